#!/usr/bin/env python3
"""Independent oracle for the tutorial DOC.html: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # prints every KEY.md row's quantity with its value and checks the key:
                          # exact value, correct rounding (half away from zero), and that the printed
                          # text stands on the stated line of DOC.html

The model is read from SPEC.toml (tomllib).  One Llama block, 0-based positions t:
  X[t] = E[token_t];  RMSNorm(h) = h / sqrt(mean(h^2) + eps)   (gains are 1)
  LN1 = RMSNorm(X);  Q = LN1 W_Q (2 query heads of width 2 side by side);  K = LN1 W_K;  V = LN1 W_V
  (one key/value head shared by both query heads: grouped-query attention)
  RoPE, rotate_half convention, head width 2: angle t * theta^0 = t rad,
      (x0, x1) -> (x0 cos t - x1 sin t, x1 cos t + x0 sin t)
  S[h,t,s] = Qrot_h[t] . Krot[s] / sqrt(2), causal softmax -> A;  heads o_h[t] = sum_s A[h,t,s] V[s]
  Attn = [o_a | o_b] W_O;  H1 = X + Attn;  LN2 = RMSNorm(H1)
  Z = LN2 W_1 (gate), U = LN2 W_3 (up), R = SiLU(Z) * U, F = R W_2 (down);  H2 = H1 + F
  LN_f = RMSNorm(H2);  logits[v] = LN_f[T-1] . E[v] (tied head);  p = softmax;  loss = -ln p[target]
Gradients by a small reverse-mode automatic differentiation over mpmath scalars written here.
AdamW as torch.optim.AdamW, one step from zero moments, decoupled decay on every trained matrix
(E, W_Q, W_K, W_V, W_O, W_1, W_3, W_2; the RMSNorm gains are not trained).
"""
from __future__ import annotations

import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ reverse-mode AD on mpf scalars

class Var:
    __slots__ = ("v", "par", "g")

    def __init__(self, v, par=()):
        self.v = mp.mpf(v)
        self.par = par
        self.g = mp.mpf(0)

    @staticmethod
    def lift(b):
        return b if isinstance(b, Var) else Var(mp.mpf(b))

    def __add__(a, b):
        b = Var.lift(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

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

    def __neg__(a):
        return Var(-a.v, ((a, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    r = mp.sqrt(a.v)
    return Var(r, ((a, 1 / (2 * r)),))


def vsum(xs):
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
        for p, _ in n.par:
            if id(p) not in seen:
                stack.append((p, False))
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, lg in n.par:
            p.g += n.g * lg


# ------------------------------------------------------------------ the model

spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
TOK = {w: i for i, w in enumerate(VOCAB)}
IDS = [TOK[w] for w in spec["data"]["input"]]
TGT = TOK[spec["data"]["target"]]
D, NH, NKV, DFF = spec["model"]["d"], spec["model"]["heads"], spec["model"]["kv_heads"], spec["model"]["d_ff"]
DK = D // NH
EPS = mp.mpf(str(spec["model"]["ln_eps"]))
THETA = mp.mpf(str(spec["model"]["rope_theta"]))
assert spec["model"]["arch"] == "llama" and NKV == 1 and DK == 2 and spec["model"]["tied"]
AW = spec["training"]["adamw"]
LR, B1, B2, AEPS, WD = (mp.mpf(str(AW[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
LAYER = spec["layer"][0]
PARAMS = {"E": spec["weights"]["E"]} | {k: LAYER[k] for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2")}


def exact(x):
    return mp.mpf(str(x))


def mat(a, b):
    return [[vsum([a[i][k] * b[k][j] for k in range(len(b))]) for j in range(len(b[0]))] for i in range(len(a))]


def rmsnorm(rows):
    ms = [vsum([x * x for x in r]) / len(r) for r in rows]
    rr = [vsqrt(m + EPS) for m in ms]
    return ms, rr, [[x / r for x in row] for row, r in zip(rows, rr)]


def rope(row, t):
    ang = mp.mpf(t) * THETA ** 0          # head width 2: one frequency, theta^(-0/2) = 1
    c, s = mp.cos(ang), mp.sin(ang)
    out = []
    for h in range(len(row) // 2):
        x0, x1 = row[2 * h], row[2 * h + 1]
        out += [x0 * c - x1 * s, x1 * c + x0 * s]
    return out


def forward(P):
    """P: name -> matrix of Var.  Returns every intermediate (as Var) in a dict."""
    E, T = P["E"], len(IDS)
    X = [E[i][:] for i in IDS]
    ms1, r1, LN1 = rmsnorm(X)
    Q, K, V = mat(LN1, P["W_Q"]), mat(LN1, P["W_K"]), mat(LN1, P["W_V"])
    Qr = [rope(Q[t], t) for t in range(T)]
    Kr = [rope(K[t], t) for t in range(T)]
    sq = mp.sqrt(DK)
    S = [[[vsum([Qr[t][DK * h + j] * Kr[s][j] for j in range(DK)]) / sq for s in range(T)] for t in range(T)]
         for h in range(NH)]
    Aden = [[vsum([vexp(S[h][t][s]) for s in range(t + 1)]) for t in range(T)] for h in range(NH)]
    A = [[[vexp(S[h][t][s]) / Aden[h][t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
         for h in range(NH)]
    Oh = [[vsum([A[h][t][s] * V[s][j] for s in range(t + 1)]) for h in range(NH) for j in range(DK)]
          for t in range(T)]
    Attn = mat(Oh, P["W_O"])
    H1 = [[X[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    ms2, r2, LN2 = rmsnorm(H1)
    Z, U = mat(LN2, P["W_1"]), mat(LN2, P["W_3"])
    sig = [[1 / (1 + vexp(-z)) for z in r] for r in Z]
    SiLU = [[z * s for z, s in zip(zr, sr)] for zr, sr in zip(Z, sig)]
    R = [[a * u for a, u in zip(ar, ur)] for ar, ur in zip(SiLU, U)]
    F = mat(R, P["W_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    msf, rf, LNf = rmsnorm(H2)
    hf = LNf[-1]
    logits = [vsum([hf[j] * E[v][j] for j in range(D)]) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TGT])
    return dict(X=X, ms1=ms1, r1=r1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=Aden, A=A,
                Attn_heads=Oh, Attn=Attn, H1=H1, ms2=ms2, r2=r2, LN2=LN2, Z=Z, U=U, sig=sig, SiLU=SiLU, R=R,
                F=F, H2=H2, ms_f=msf, rf=rf, LN_f=LNf, h_final=hf, logits=logits, exp=ex, sum_exp=se, p=p,
                loss=loss)


def run(values):
    P = {k: [[Var(x) for x in row] for row in m] for k, m in values.items()}
    f = forward(P)
    backward(f["loss"])
    return P, f


def val(x):
    if isinstance(x, Var):
        return x.v
    return [val(y) for y in x]


def grad(x):
    if isinstance(x, Var):
        return x.g
    return [grad(y) for y in x]


def compute():
    init = {k: [[exact(x) for x in row] for row in m] for k, m in PARAMS.items()}
    P, f = run(init)
    out: dict[str, mp.mpf] = {}

    def put(name, arr, idx_names=None):
        def rec(prefix, a, depth):
            if isinstance(a, list):
                for i, b in enumerate(a):
                    lab = idx_names[i] if (idx_names and depth == 0) else str(i)
                    rec(prefix + [lab], b, depth + 1)
            else:
                out[f"{name}[{','.join(prefix)}]" if prefix else name] = a
        rec([], arr, 0)

    for k in ("X", "ms1", "r1", "LN1", "Q", "K", "V", "Q_rot", "K_rot", "S", "A_den", "A", "Attn_heads", "Attn",
              "H1", "ms2", "r2", "LN2", "Z", "U", "sig", "SiLU", "R", "F", "H2", "ms_f", "rf", "LN_f", "h_final",
              "sum_exp", "loss"):
        put(k, val(f[k]))
    for k in ("logits", "p", "exp"):
        put(k, val(f[k]), VOCAB)
    put("grad_logits", grad(f["logits"]), VOCAB)
    put("grad_h_final", grad(f["h_final"]))
    put("grad_H2", grad(f["H2"]))
    put("grad_F", grad(f["F"]))
    put("grad_R", grad(f["R"]))
    put("grad_U", grad(f["U"]))
    put("grad_Z", grad(f["Z"]))
    for k in PARAMS:
        put(k, val(P[k]), VOCAB if k == "E" else None)
        put("grad_" + k, grad(P[k]), VOCAB if k == "E" else None)
    # sqrt(mean square + eps) under symgpt's reference names
    for t in range(len(IDS)):
        out[f"sqrt(ms1[{t}] + ln_eps)"] = out[f"r1[{t}]"]
        out[f"sqrt(ms2[{t}] + ln_eps)"] = out[f"r2[{t}]"]
        out[f"sqrt(ms_f[{t}] + ln_eps)"] = out[f"rf[{t}]"]
    for v in VOCAB:
        out[f"exp(logits[{v}])"] = out[f"exp[{v}]"]
    # one AdamW step (torch.optim.AdamW, step 1, zero moments)
    new = {}
    for k in PARAMS:
        G, TH = grad(P[k]), val(P[k])
        rows = []
        for i, (grow, trow) in enumerate(zip(G, TH)):
            nrow = []
            for j, (g, th) in enumerate(zip(grow, trow)):
                m = (1 - B1) * g
                v = (1 - B2) * g * g
                mh, vh = m / (1 - B1), v / (1 - B2)
                upd = LR * mh / (mp.sqrt(vh) + AEPS)
                dec = LR * WD * th
                nv = th - dec - upd
                ii = VOCAB[i] if k == "E" else str(i)
                for nm, x in (("m", m), ("v", v), ("mhat", mh), ("vhat", vh), ("update", upd), ("decay", dec)):
                    out[f"adamw[1].{nm}[{k},{ii},{j}]"] = x
                out[f"adamw[1].{k}[{ii},{j}]"] = nv
                nrow.append(nv)
            rows.append(nrow)
        new[k] = rows
    P1, f1 = run(new)
    out["adamw[1].loss"] = f1["loss"].v
    for v, x in zip(VOCAB, val(f1["p"])):
        out[f"adamw[1].p[{v}]"] = x
    for v, x in zip(VOCAB, val(f1["logits"])):
        out[f"adamw[1].logits[{v}]"] = x
    out["ln_5"] = mp.log(5)
    return out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm_num(s: str) -> str:
    return s.replace("\u2212", "-").replace("−", "-")


def main() -> int:
    values = compute()
    doc_lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        problems = []
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if not (1 <= line <= len(doc_lines)) or printed not in doc_lines[line - 1]:
            problems.append(f"TEXT NOT ON LINE {line}")
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        if len(cells) == 7:                                   # planted error
            shown = cells[4].strip("`")
            places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
            right = rnd(v, places) + ("%" if pct else "")
            exact_txt = cells[3].rstrip("…").replace("−", "-")
            if abs(mp.mpf(exact_txt) - v) > mp.mpf("1e-10") * max(abs(v), mp.mpf("1e-30")):
                problems.append("EXACT VALUE DISAGREES")
            if norm_num(shown) != right:
                problems.append(f"CORRECT ROUNDING DISAGREES ({right})")
            # the planted figure must differ from the correct rounding at its own printed precision
            pp = norm_num(printed).rstrip("%")
            own = len(pp.split(".")[1]) if "." in pp else 0
            if rnd(v, own) == pp:
                problems.append("PLANTED FIGURE IS ACTUALLY CORRECT")
            note = "planted, key agrees"
        else:
            pp = norm_num(printed).rstrip("%")
            places = len(pp.split(".")[1]) if "." in pp else 0
            right = rnd(v, places)
            if right != pp:
                problems.append(f"NOT THE CORRECT ROUNDING ({right})")
            note = "correct"
        if problems:
            note = "; ".join(problems)
            bad += 1
        print(f"  {printed:>12}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<22} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
