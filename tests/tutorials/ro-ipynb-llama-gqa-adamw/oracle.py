#!/usr/bin/env python3
"""Independent oracle for DOC.ipynb (ro-ipynb-llama-gqa-adamw): plain mpmath at 50 digits, no symgpt, no torch.

    python oracle.py

Model (SPEC.toml): one pre-norm Llama block, d = 4, 2 query heads of size 2 sharing 1 key/value head (GQA),
RMSNorm gamma*h/sqrt(mean(h^2) + 1e-6), RoPE in the rotate_half convention with theta = 10000^0 = 1
(position t, counted from 0, turns each head's pair by t radians), SwiGLU (SiLU(h W_1) * h W_3) W_2,
final RMSNorm, untied head logits = h_final . W_out, softmax, loss = -ln p[cald].
Gradients by a small reverse-mode automatic differentiation over mpf scalars (exact to the working precision).
AdamW as torch.optim.AdamW, one step, lr 0.01, betas 0.9/0.999, eps 1e-8, decoupled weight decay 0.1 on every
matrix (E, W_Q, W_K, W_V, W_O, W_1, W_3, W_2, W_out); the RMSNorm gains are fixed.

It prints every figure of the document (its line in DOC.ipynb, the quantity, the exact value, the correct
rounding) and checks: each figure's text is on its line; every figure not planted is the correct rounding
(half away from zero) of its exact value; each planted one is not; and each KEY.md row's "exact value" and
"correct rounding" columns agree with the oracle. Exit status 1 if anything disagrees.
"""
from __future__ import annotations

import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- reverse-mode AD over mpf

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents
        self.g = mp.mpf(0)

    @staticmethod
    def lift(x):
        return x if isinstance(x, Var) else Var(x)

    def __add__(a, b):
        b = Var.lift(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __neg__(a):
        return Var(-a.v, ((a, -1),))

    def __sub__(a, b):
        b = Var.lift(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return Var.lift(b) - a

    def __mul__(a, b):
        b = Var.lift(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = Var.lift(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __rtruediv__(a, b):
        return Var.lift(b) / a


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    r = mp.sqrt(a.v)
    return Var(r, ((a, 1 / (2 * r)),))


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        stack.extend((p, False) for p, _ in n.parents)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.g += n.g * local


def vsum(xs):
    xs = list(xs)
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    return acc


# ---------------------------------------------------------------- the model

def M(a):
    return [[mp.mpf(str(x)) for x in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(x)) for x in a]


VOCAB = ["eu", "beau", "ceai", "cald", "seară"]
IDS, TGT = [0, 1, 2], 3
HEADS, DK = 2, 2
EPS = mp.mpf("1e-6")
G1, G2, GF = M([1.0, 0.8, 1.2, 0.9]), M([0.9, 1.1, 1.0, 0.8]), M([1.1, 0.9, 1.0, 1.2])
W0 = dict(
    E=M([[0.5, -0.2, 0.3, 0.1], [-0.3, 0.4, 0.2, -0.5], [0.2, 0.6, -0.4, 0.3], [0.7, -0.1, 0.1, 0.4],
         [-0.2, 0.3, 0.5, -0.6]]),
    W_out=M([[0.3, -0.2, 0.5, 0.4, -0.1], [0.1, 0.6, -0.3, 0.2, 0.4], [-0.4, 0.2, 0.1, 0.5, -0.3],
             [0.2, -0.5, 0.4, 0.3, 0.1]]),
    W_Q=M([[0.4, -0.3, 0.2, 0.5], [0.1, 0.6, -0.2, 0.3], [-0.5, 0.2, 0.4, -0.1], [0.3, 0.1, -0.6, 0.2]]),
    W_K=M([[0.5, 0.2], [-0.3, 0.4], [0.2, -0.1], [0.6, 0.3]]),
    W_V=M([[0.3, -0.4], [0.5, 0.2], [-0.2, 0.6], [0.1, 0.3]]),
    W_O=M([[0.2, -0.1, 0.4, 0.3], [0.5, 0.3, -0.2, 0.1], [-0.3, 0.6, 0.1, 0.2], [0.1, 0.2, 0.3, -0.4]]),
    W_1=M([[0.3, -0.2, 0.5, 0.1, -0.4, 0.2], [0.6, 0.1, -0.3, 0.4, 0.2, -0.1], [-0.2, 0.5, 0.1, -0.3, 0.3, 0.4],
           [0.1, 0.3, 0.2, 0.5, -0.1, -0.3]]),
    W_3=M([[0.2, 0.4, -0.1, 0.3, 0.5, -0.2], [-0.3, 0.1, 0.4, 0.2, -0.2, 0.6], [0.5, -0.3, 0.2, 0.1, 0.4, 0.3],
           [0.1, 0.2, -0.4, 0.6, 0.1, 0.2]]),
    W_2=M([[0.3, -0.2, 0.1, 0.4], [-0.1, 0.5, 0.3, -0.2], [0.4, 0.1, -0.3, 0.2], [0.2, -0.4, 0.5, 0.1],
           [-0.3, 0.2, 0.2, 0.3], [0.1, 0.3, -0.1, -0.5]]),
)


def matmul(A, B):
    return [[vsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, g):
    ms, out = [], []
    for r in H:
        m = vsum(x * x for x in r) / len(r)
        den = vsqrt(m + EPS)
        ms.append(m)
        out.append([g[j] * r[j] / den for j in range(len(r))])
    return ms, out


def rope(row, t):
    c, s = mp.cos(t), mp.sin(t)
    out = []
    for h0 in range(0, len(row), DK):
        a, b = row[h0], row[h0 + 1]
        out += [a * c - b * s, b * c + a * s]
    return out


def forward(W):
    P = {k: [[Var(x) for x in r] for r in v] for k, v in W.items()}
    T = len(IDS)
    X = [P["E"][i] for i in IDS]
    ms1, LN1 = rmsnorm(X, G1)
    Q, K, V = matmul(LN1, P["W_Q"]), matmul(LN1, P["W_K"]), matmul(LN1, P["W_V"])
    Qr, Kr = [rope(Q[t], t) for t in range(T)], [rope(K[t], t) for t in range(T)]
    S = [[[(Qr[t][DK * h] * Kr[s][0] + Qr[t][DK * h + 1] * Kr[s][1]) / mp.sqrt(DK) for s in range(T)]
          for t in range(T)] for h in range(HEADS)]
    A = [[None] * T for _ in range(HEADS)]
    for h in range(HEADS):
        for t in range(T):
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(ex)
            A[h][t] = [e / den for e in ex]
    heads = [[vsum(A[h][t][s] * V[s][j] for s in range(t + 1)) for h in range(HEADS) for j in range(DK)]
             for t in range(T)]
    Attn = matmul(heads, P["W_O"])
    H1 = [[X[t][j] + Attn[t][j] for j in range(4)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1, G2)
    Z, U = matmul(LN2, P["W_1"]), matmul(LN2, P["W_3"])
    R = [[Z[t][k] / (1 + vexp(-Z[t][k])) * U[t][k] for k in range(6)] for t in range(T)]
    F = matmul(R, P["W_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(4)] for t in range(T)]
    msf, LNf = rmsnorm(H2, GF)
    hf = LNf[-1]
    logits = matmul([hf], P["W_out"])[0]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TGT])
    backward(loss)
    val = lambda x: [val(y) for y in x] if isinstance(x, list) else x.v
    out = {k: val(v) for k, v in dict(X=X, ms1=ms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, Attn=Attn,
                                        H1=H1, LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, LN_f=LNf, h_final=hf,
                                        logits=logits, p=p).items()}
    out["A"] = [[[A[h][t][s].v if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)] for h in range(HEADS)]
    out["sum_exp"], out["loss"] = se.v, loss.v
    out["grad_logits"] = [out["p"][v] - (1 if v == TGT else 0) for v in range(len(VOCAB))]
    out["grad"] = {k: [[x.g for x in r] for r in v] for k, v in P.items()}
    return out


def adamw_step(W, grad, lr=mp.mpf("0.01"), b1=mp.mpf("0.9"), b2=mp.mpf("0.999"), eps=mp.mpf("1e-8"),
               wd=mp.mpf("0.1")):
    state, new = {}, {}
    for k, Pm in W.items():
        new[k] = []
        for i, r in enumerate(Pm):
            row = []
            for j, th in enumerate(r):
                g = grad[k][i][j]
                m, v = (1 - b1) * g, (1 - b2) * g * g
                mhat, vhat = m / (1 - b1), v / (1 - b2)
                upd = lr * mhat / (mp.sqrt(vhat) + eps)
                nw = th * (1 - lr * wd) - upd
                state[(k, i, j)] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, new=nw)
                row.append(nw)
            new[k].append(row)
    return state, new


def quantities():
    f = forward(W0)
    st, new = adamw_step(W0, f["grad"])
    f1 = forward(new)
    q = {}
    tok = lambda v: VOCAB[v]
    for j in range(4):
        q[f"LN1[2,{j}]"] = f["LN1"][2][j]
        q[f"Q_rot[2,{j}]"] = f["Q_rot"][2][j]
        q[f"F[2,{j}]"] = f["F"][2][j]
        q[f"h_final[{j}]"] = f["h_final"][j]
    for t in range(3):
        for j in range(2):
            q[f"K[{t},{j}]"] = f["K"][t][j]
            q[f"K_rot[{t},{j}]"] = f["K_rot"][t][j]
    for h in range(2):
        for s in range(3):
            q[f"S[{h},2,{s}]"] = f["S"][h][2][s]
            q[f"A[{h},2,{s}]"] = f["A"][h][2][s]
    q["sqrt(ms1[2] + ln_eps)"] = mp.sqrt(f["ms1"][2] + EPS)
    for v in range(5):
        q[f"logits[{tok(v)}]"] = f["logits"][v]
        q[f"p[{tok(v)}]"] = f["p"][v]
        q[f"grad_logits[{tok(v)}]"] = f["grad_logits"][v]
    q["loss"] = f["loss"]
    for name in ("W_K", "W_out", "W_2"):
        for i, r in enumerate(f["grad"][name]):
            for j, g in enumerate(r):
                q[f"grad_{name}[{i},{j}]"] = g
    for v in range(5):
        for j in range(4):
            q[f"grad_E[{tok(v)},{j}]"] = f["grad"]["E"][v][j]
    for (k, i, j) in [("W_out", 0, 3), ("W_K", 2, 0), ("E", 2, 1), ("W_2", 3, 1)]:
        s = st[(k, i, j)]
        for fld in ("m", "v", "mhat", "vhat", "update"):
            q[f"adamw[1].{fld}[{k},{i},{j}]"] = s[fld]
        ii = tok(i) if k == "E" else i
        q[f"adamw[1].{k}[{ii},{j}]"] = s["new"]
    q["adamw[1].loss"] = f1["loss"]
    q["adamw[1].p[cald]"] = f1["p"][TGT]
    # inputs, settings and constants the hand checks use
    q["gamma1[3]"], q["E[ceai,3]"] = G1[3], W0["E"][2][3]
    q["cos(2)"], q["sin(2)"] = mp.cos(2), mp.sin(2)
    q["adamw.lr"] = mp.mpf("0.01")
    return q


# ---------------------------------------------------------------- rounding of a printed figure

def rnd(v, places: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):.{places}f}"


def correct_text(printed: str, v) -> str:
    """The correct rounding of v in the printed figure's own format (comma or point, %, e-notation, sign)."""
    comma = "," in printed
    t = printed.replace(",", ".")
    if "e" in t:                                   # 1.0758e-04: rounded at the mantissa's last place
        mant, ex = t.split("e")
        places = len(mant.split(".")[1])
        r = rnd(v / mp.mpf(10) ** int(ex), places) + "e" + ex
    else:
        pct = t.endswith("%")
        body = t.rstrip("%")
        places = len(body.split(".")[1]) if "." in body else 0
        r = rnd(v * (100 if pct else 1), places) + ("%" if pct else "")
        if body.startswith("+") and not r.startswith("-"):
            r = "+" + r
    return r.replace(".", ",") if comma else r


# ---------------------------------------------------------------- every figure of DOC.ipynb
# (line, printed as read, quantity, planted?)  Weight literals in the code and the hyper-parameters
# in the set-up cell are inputs, not listed; the hand checks' inputs and constants are.

FIGURES = [
    (112, "0.4961", "LN1[2,0]", False), (112, "1.1907", "LN1[2,1]", False),
    (112, "-1.1907", "LN1[2,2]", False), (112, "0.6698", "LN1[2,3]", False),
    (137, "0,9", "gamma1[3]", False), (137, "0,3", "E[ceai,3]", False),
    (137, "0,4031", "sqrt(ms1[2] + ln_eps)", False), (137, "0,6968", "LN1[2,3]", True),
    (161, "-0.8222", "Q_rot[2,0]", False), (161, "0.8487", "Q_rot[2,1]", False),
    (162, "-0.3572", "Q_rot[2,2]", False), (162, "-1.2820", "Q_rot[2,3]", False),
    (163, "-0.8370", "K_rot[2,0]", False), (163, "-0.3230", "K_rot[2,1]", False),
    (195, "0,0546", "K[2,0]", False), (195, "-0,4161", "cos(2)", False), (195, "0,8955", "K[2,1]", False),
    (195, "0,9093", "sin(2)", False), (195, "-0,8371", "K_rot[2,0]", True),
    (208, "-0,3572", "Q_rot[2,2]", False), (208, "-0,4798", "K_rot[1,0]", False),
    (208, "-1,2820", "Q_rot[2,3]", False), (208, "-1,2056", "K_rot[1,1]", False),
    (208, "1,7170", "S[1,2,1]", True),
    (220, "0.1945", "A[0,2,0]", False), (220, "0.2607", "A[0,2,1]", False), (220, "0.5449", "A[0,2,2]", False),
    (221, "0.1155", "A[1,2,0]", False), (221, "0.5929", "A[1,2,1]", False), (221, "0.2915", "A[1,2,2]", False),
    (243, "5,93%", "A[1,2,1]", True),
    (256, "-0.0016", "F[2,0]", False), (256, "-0.2841", "F[2,1]", False),
    (256, "0.4565", "F[2,2]", False), (256, "-0.0360", "F[2,3]", False),
    (288, "0.5748", "h_final[0]", False), (288, "1.0523", "h_final[1]", False),
    (288, "1.0581", "h_final[2]", False), (288, "1.3364", "h_final[3]", False),
    (289, "0.1217", "logits[eu]", False), (289, "0.0598", "logits[beau]", False),
    (289, "0.6121", "logits[ceai]", False), (289, "1.3704", "logits[cald]", False),
    (289, "0.1796", "logits[seară]", False),
    (290, "0.1232", "p[eu]", False), (290, "0.1158", "p[beau]", False), (290, "0.2011", "p[ceai]", False),
    (290, "0.4294", "p[cald]", False), (290, "0.1305", "p[seară]", False),
    (315, "0.8455", "loss", False),
    (329, "0,4294", "p[cald]", False), (329, "0,8454", "loss", True),
    (339, "0,5706", "grad_logits[cald]", True),
    (352, "-0.6005", "grad_W_out[1,3]", False), (353, "+0.8506", "grad_E[ceai,1]", False),
    (355, "-0.1755", "grad_W_K[0,0]", False), (355, "-0.1132", "grad_W_K[1,0]", False),
    (355, "0.2075", "grad_W_K[2,0]", False), (355, "-0.2008", "grad_W_K[3,0]", False),
    (356, "-0.0080", "grad_W_K[0,1]", False), (356, "0.0656", "grad_W_K[1,1]", False),
    (356, "0.0938", "grad_W_K[2,1]", False), (356, "-0.0930", "grad_W_K[3,1]", False),
    (373, "-0,5706", "grad_logits[cald]", False), (373, "1,0523", "h_final[1]", False),
    (373, "-0,6005", "grad_W_out[1,3]", False),
    (375, "-0,1132", "grad_W_K[0,1]", True),
    (398, "-0.032800", "adamw[1].m[W_out,0,3]", False), (398, "1.0758e-04", "adamw[1].v[W_out,0,3]", False),
    (399, "+0.020750", "adamw[1].m[W_K,2,0]", False), (399, "4.3058e-05", "adamw[1].v[W_K,2,0]", False),
    (400, "+0.085061", "adamw[1].m[E,2,1]", False), (400, "7.2354e-04", "adamw[1].v[E,2,1]", False),
    (401, "+0.035829", "adamw[1].m[W_2,3,1]", False), (401, "1.2837e-04", "adamw[1].v[W_2,3,1]", False),
    (427, "-0,3280", "adamw[1].mhat[W_out,0,3]", False), (427, "0,10758", "adamw[1].vhat[W_out,0,3]", False),
    (427, "-0,0099999997", "adamw[1].update[W_out,0,3]", False), (427, "0,4100", "adamw[1].W_out[0,3]", True),
    (428, "0,2075", "adamw[1].mhat[W_K,2,0]", False), (428, "0,04306", "adamw[1].vhat[W_K,2,0]", False),
    (428, "0,0099999995", "adamw[1].update[W_K,2,0]", False), (428, "0,1898", "adamw[1].W_K[2,0]", False),
    (429, "0,8506", "adamw[1].mhat[E,2,1]", False), (429, "0,72354", "adamw[1].vhat[E,2,1]", False),
    (429, "0,0099999999", "adamw[1].update[E,2,1]", False), (429, "0,5894", "adamw[1].E[ceai,1]", False),
    (430, "0,3583", "adamw[1].mhat[W_2,3,1]", False), (430, "0,12837", "adamw[1].vhat[W_2,3,1]", False),
    (430, "0,0099999997", "adamw[1].update[W_2,3,1]", False), (430, "-0,4096", "adamw[1].W_2[3,1]", False),
    (444, "0.737270970051955", "adamw[1].loss", False),
    (478, "0,8455", "loss", False), (478, "0,7373", "adamw[1].loss", False),
    (478, "0,01", "adamw.lr", False),
]


def main() -> int:
    q = quantities()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    json.loads("\n".join(doc))                     # the notebook is valid JSON
    bad = 0
    print("DOC.ipynb, every figure:")
    for line, printed, ref, planted in FIGURES:
        text = doc[line - 1].replace("{,}", ",")
        on_line = printed in text
        right = correct_text(printed, q[ref])
        ok = on_line and ((right != printed) if planted else (right == printed))
        bad += not ok
        tag = "planted" if planted else "correct"
        note = "" if ok else ("  <-- NOT ON ITS LINE" if not on_line else "  <-- DISAGREES")
        print(f"  {line:>4}  {printed:>18}  {ref:<28} {mp.nstr(q[ref], 15):<22} -> {right:<18} {tag}{note}")
    model = [f for f in FIGURES if f[2] not in ("gamma1[3]", "E[ceai,3]", "cos(2)", "sin(2)", "adamw.lr")]
    print(f"  {len(model)} figures of model quantities, {sum(f[3] for f in FIGURES)} planted")

    print("KEY.md rows:")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted_rows = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>18}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref]
        on_line = printed in doc[line - 1].replace("{,}", ",")
        if len(cells) == 7:                        # planted: the key's exact value and correct rounding
            planted_rows += 1
            shown = cells[4].strip("`")
            exact = mp.mpf(cells[3].rstrip("…").replace(",", "."))
            scale = 100 if printed.endswith("%") else 1
            ok = (on_line and shown == correct_text(shown, v) and shown != printed
                  and abs(exact - v * scale) <= mp.mpf("1e-10") * abs(v * scale)
                  and any(f[0] == line and f[1] == printed and f[3] for f in FIGURES))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            shown = correct_text(printed, v)
            ok = on_line and shown == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING (or not on its line)"
        bad += not ok
        print(f"  {printed:>18}  line {line:<4} {ref:<28} {mp.nstr(v, 15):<22} rounds to {shown:<16} {note}")
    if planted_rows != 8:
        print(f"  expected 8 planted rows, found {planted_rows}")
        bad += 1
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} disagreements")
    assert not bad, f"{bad} disagreements"
    return 0


if __name__ == "__main__":
    sys.exit(main())
