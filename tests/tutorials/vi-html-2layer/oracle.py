#!/usr/bin/env python3
"""Independent check of DOC.html's figures: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity's value, the rounding, the line of DOC.html

Model (read from SPEC.toml): two post-LN blocks, one head, d = 2, d_ff = 4, tied head.
H0 = E[ids] + PE, PE[t,2i] = sin(t/base^(2i/d)), PE[t,2i+1] = cos(same), t from 0;
per block: Q, K, V = H·W; S = Q·Kᵀ/√d; causal softmax A; Attn = A·V; H1 = H + Attn;
LN1 (biased variance, eps, γ = 1, β = 0); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2;
H2 = LN1 + F; LN2 is the next block's input.  logits = LN2[T-1]·Eᵀ; p = softmax; loss = −ln p[target].
Gradients by a small reverse-mode differentiation over mpf scalars (ReLU'(0) = 0).
One AdamW step as torch.optim.AdamW on every parameter (E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2 of both
blocks; decoupled decay θ·(1 − lr·λ) − lr·m̂/(√v̂ + ε)), then the forward pass again.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def num(x):
    return mp.mpf(str(x))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- a tiny reverse-mode scalar

class Var:
    __slots__ = ("v", "g", "parents")

    def __init__(self, v, parents=()):
        self.v, self.g, self.parents = v, mp.mpf(0), parents

    @staticmethod
    def lift(b):
        return b if isinstance(b, Var) else Var(num(b))

    def __add__(a, b):
        b = Var.lift(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    def __sub__(a, b):
        b = Var.lift(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))

    def __mul__(a, b):
        b = Var.lift(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    def __truediv__(a, b):
        b = Var.lift(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

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


def relu(a):
    return Var(a.v, ((a, 1),)) if a.v > 0 else Var(mp.mpf(0), ((a, 0),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        stack.extend((p, False) for p, _ in n.parents if id(p) not in seen)
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, dd in n.parents:
            p.g += n.g * dd


# ---------------------------------------------------------------- the model

VOCAB = SPEC["model"]["vocab"]
D = SPEC["model"]["d"]
EPS = num(SPEC["model"]["ln_eps"])
BASE = num(SPEC["model"].get("pe_base", 10000))
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
TRAINED = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")


def initial_params():
    P = {"E": [[num(x) for x in r] for r in SPEC["weights"]["E"]]}
    for l, layer in enumerate(SPEC["layer"]):
        for k in TRAINED:
            v = layer[k]
            P[f"l{l}.{k}"] = [[num(x) for x in r] for r in v] if isinstance(v[0], list) else [num(x) for x in v]
    return P


def as_vars(P):
    return {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v]) for k, v in P.items()}


def matmul(A, B):
    return [[vsum([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    mu = [vsum(r) / D for r in H]
    var = [vsum([(x - m) * (x - m) for x in r]) / D for r, m in zip(H, mu)]
    out = [[(r[j] - m) / vsqrt(v + EPS) for j in range(D)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def forward(W):
    out = {}
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / D)
    PE = [[Var(mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j))) for j in range(D)] for t in range(T)]
    X = [[W["E"][IDS[t]][j] for j in range(D)] for t in range(T)]
    H = [[X[t][j] + PE[t][j] for j in range(D)] for t in range(T)]
    out.update(PE=PE, X=X, H0=H)
    for l in range(len(SPEC["layer"])):
        p = f"l{l}."
        Q, K, V = matmul(H, W[p + "W_Q"]), matmul(H, W[p + "W_K"]), matmul(H, W[p + "W_V"])
        S = [[vsum([Q[t][j] * K[s][j] for j in range(D)]) / Var(mp.sqrt(D)) for s in range(T)] for t in range(T)]
        ex = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [vsum(e) for e in ex]
        A = [[ex[t][s] / den[t] if s <= t else Var(mp.mpf(0)) for s in range(T)] for t in range(T)]
        At = [[vsum([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
        H1 = [[H[t][j] + At[t][j] for j in range(D)] for t in range(T)]
        mu1, var1, LN1 = layernorm(H1)
        Z = [[z + b for z, b in zip(r, W[p + "b_1"])] for r in matmul(LN1, W[p + "W_1"])]
        R = [[relu(z) for z in r] for r in Z]
        F = [[f + b for f, b in zip(r, W[p + "b_2"])] for r in matmul(R, W[p + "W_2"])]
        H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H2)
        for k, v in dict(Q=Q, K=K, V=V, S=S, A_den=den, A=A, Attn=At, H1=H1, mu1=mu1, var1=var1, LN1=LN1,
                         Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2).items():
            out[p + k] = v
        H = LN2
    hf = H[-1]
    logits = [vsum([hf[j] * W["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    se = vsum([vexp(z) for z in logits])
    p = [vexp(z) / se for z in logits]
    out.update(h_final=hf, logits=logits, sum_exp=se, p=p, loss=-vlog(p[TGT]))
    return out


def flatten(prefix, name, x, into):
    """'l0.S' [[..]] → into['l0.S[1,0]'] = value; token indices also by their string."""
    def put(idx, v):
        keys = [",".join(map(str, idx))]
        if name in ("logits", "p") or (name in ("E", "grad_E") and len(idx) == 2):
            keys.append(",".join([VOCAB[idx[0]]] + [str(i) for i in idx[1:]]))
        for k in keys:
            into[f"{prefix}{name}[{k}]"] = v
    if isinstance(x, Var):
        into[prefix + name] = x.v
    elif isinstance(x, list) and isinstance(x[0], list):
        for i, r in enumerate(x):
            for j, v in enumerate(r):
                put((i, j), v.v if isinstance(v, Var) else v)
    else:
        for i, v in enumerate(x):
            put((i,), v.v if isinstance(v, Var) else v)


def values():
    P = initial_params()
    W = as_vars(P)
    out = forward(W)
    backward(out["loss"])
    vals = {}
    for k, v in out.items():
        flatten("", k, v, vals)
    for k, v in W.items():
        flatten("", "grad_" + k, [[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v], vals)
    # one AdamW step on every parameter
    aw = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (num(aw[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    new = {}
    for k, v in P.items():
        pname = k.split(".")[-1]
        lay = k[: -len(pname)]
        def step(th, g, idx):
            m, vv = (1 - b1) * g, (1 - b2) * g * g
            mh, vh = m / (1 - b1), vv / (1 - b2)
            upd = lr * mh / (mp.sqrt(vh) + eps)
            dec = lr * wd * th
            for nm, val in (("m", m), ("v", vv), ("mhat", mh), ("vhat", vh), ("update", upd), ("decay", dec)):
                key = ",".join([lay + pname] + [VOCAB[idx[0]] if pname == "E" else str(idx[0])] + [str(i) for i in idx[1:]])
                vals[f"adamw[1].{nm}[{key}]"] = val
            return th - dec - upd
        if isinstance(v[0], list):
            new[k] = [[step(v[i][j], W[k][i][j].g, (i, j)) for j in range(len(v[0]))] for i in range(len(v))]
        else:
            new[k] = [step(v[i], W[k][i].g, (i,)) for i in range(len(v))]
    for k, v in new.items():
        flatten("adamw[1].", k, v, vals)
    after = forward(as_vars(new))
    for k, v in after.items():
        flatten("adamw[1].", k, v, vals)
    # expressions the document prints
    for k, tok in enumerate(VOCAB):
        vals[f"exp(logits[{tok}])"] = mp.exp(vals[f"logits[{tok}]"])
        vals[f"grad_logits[{tok}]"] = vals[f"p[{tok}]"] - (1 if k == TGT else 0)
    for t in range(T):
        for s in range(t + 1):
            vals[f"exp(l0.S[{t},{s}])"] = mp.exp(vals[f"l0.S[{t},{s}]"])
            vals[f"exp(l1.S[{t},{s}])"] = mp.exp(vals[f"l1.S[{t},{s}]"])
        vals[f"sqrt(l1.var1[{t}] + ln_eps)"] = mp.sqrt(vals[f"l1.var1[{t}]"] + EPS)
    vals["loss - adamw[1].loss"] = vals["loss"] - vals["adamw[1].loss"]
    return vals


# ---------------------------------------------------------------- the key

def main() -> int:
    vals = values()
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        mant = shown.replace("−", "-").rstrip("%")
        sci = re.fullmatch(r"(-?[\d.]+) \\times 10\^\{(-?\d+)\}", mant)
        if sci:
            e = int(sci.group(2))
            places = len(sci.group(1).split(".")[1]) if "." in sci.group(1) else 0
            right = rnd(v / mp.mpf(10) ** e, places) + f" \\times 10^{{{e}}}"
            mant = sci.group(1) + f" \\times 10^{{{e}}}"
        else:
            places = len(mant.split(".")[1]) if "." in mant else 0
            right = rnd(v, places)
        right += "%" if shown.endswith("%") else ""
        norm = lambda s: s.replace("−", "-")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (norm(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != norm(printed) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == norm(printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>12}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    planted = sum(1 for r in rows if len(r.strip().strip('|').split('|')) == 7)
    print(f"{len(rows)} key rows ({planted} planted)")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
