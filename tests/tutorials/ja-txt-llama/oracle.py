#!/usr/bin/env python3
"""Independent oracle for the ja-txt-llama tutorial: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity's value, the key's columns, and the DOC line

Model (read from SPEC.toml): one Llama-style block, pre-norm, 1 head, d = 4, d_ff = 4, no biases.
  X = E[ids]; RMSNorm(h) = h / sqrt(mean(h^2) + eps) (gain 1);
  Q, K, V = LN1 W_Q, LN1 W_K, LN1 W_V; RoPE in Hugging Face's rotate_half layout:
  pairs (j, j + d/2) turned by t*theta_j, theta_j = rope_theta^(-2j/d);
  S = Q_rot K_rot^T / sqrt(d), causal softmax A; Attn = A V; H1 = X + Attn;
  LN2 = RMSNorm(H1); Z = LN2 W_1, U = LN2 W_3, R = SiLU(Z) * U, F = R W_2; H2 = H1 + F;
  LN_f = RMSNorm(H2); logits = LN_f[T-1] W_out; p = softmax; loss = -ln p[target].
Gradients by a small reverse-mode autodiff over mpf scalars; one SGD step (lr) on every weight
matrix (E, W_Q, W_K, W_V, W_1, W_3, W_2, W_out); the norms' gains stay 1.
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


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents
        self.g = mp.mpf(0)

    def __add__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return Var(b) - a

    def __mul__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __rtruediv__(a, b):
        return Var(b) / a

    def __neg__(a):
        return Var(-a.v, ((a, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


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
        stack.extend((p, False) for p, _ in n.parents if id(p) not in seen)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, w in n.parents:
            p.g += n.g * w


# ---------------------------------------------------------------- the model

PARAMS = ("E", "W_out", "W_Q", "W_K", "W_V", "W_1", "W_3", "W_2")


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    raw = {"E": spec["weights"]["E"], "W_out": spec["weights"]["W_out"]}
    raw.update({k: spec["layer"][0][k] for k in PARAMS[2:]})
    return spec, {k: [[mp.mpf(str(x)) for x in row] for row in m] for k, m in raw.items()}


def matmul(A, B):
    return [[vsum([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, eps):
    ms = [vsum([x * x for x in row]) / len(row) for row in H]
    rms = [vsqrt(m + eps) for m in ms]
    return ms, rms, [[x / s for x in row] for row, s in zip(H, rms)]


def forward(spec, P):
    W = {k: [[Var(x) for x in row] for row in m] for k, m in P.items()}
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    base = mp.mpf(str(spec["model"]["rope_theta"]))
    d = spec["model"]["d"]
    T, half = len(ids), d // 2
    X = [W["E"][i] for i in ids]
    ms1, rms1, LN1 = rmsnorm(X, eps)
    Q, K, V = matmul(LN1, W["W_Q"]), matmul(LN1, W["W_K"]), matmul(LN1, W["W_V"])
    theta = [base ** (-mp.mpf(2 * i) / d) for i in range(half)]

    def rope(M):
        out = []
        for t, row in enumerate(M):
            c = [mp.cos(t * th) for th in theta]
            s = [mp.sin(t * th) for th in theta]
            out.append([row[j] * c[j] - row[j + half] * s[j] for j in range(half)]
                       + [row[j + half] * c[j] + row[j] * s[j] for j in range(half)])
        return out

    Qr, Kr = rope(Q), rope(K)
    S = [[vsum([Qr[t][j] * Kr[s][j] for j in range(d)]) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [vsum([vexp(S[t][s]) for s in range(t + 1)]) for t in range(T)]
    A = [[vexp(S[t][s]) / A_den[t] for s in range(t + 1)] for t in range(T)]
    Attn = [[vsum([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, rms2, LN2 = rmsnorm(H1, eps)
    Z, U = matmul(LN2, W["W_1"]), matmul(LN2, W["W_3"])
    silu = [[z / (1 + vexp(-z)) for z in row] for row in Z]
    R = [[a * b for a, b in zip(r1, r2)] for r1, r2 in zip(silu, U)]
    F = matmul(R, W["W_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, rms_f, LN_f = rmsnorm(H2, eps)
    h = LN_f[-1]
    logits = [vsum([h[j] * W["W_out"][j][v] for j in range(d)]) for v in range(len(vocab))]
    sum_exp = vsum([vexp(z) for z in logits])
    p = [vexp(z) / sum_exp for z in logits]
    loss = -vlog(p[tgt])
    return dict(W=W, X=X, ms1=ms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=A_den, A=A, Attn=Attn,
                H1=H1, ms2=ms2, LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, ms_f=ms_f, LN_f=LN_f, h_final=h,
                logits=logits, sum_exp=sum_exp, p=p, loss=loss, eps=eps, vocab=vocab, tgt=tgt)


def values():
    spec, P = load_spec()
    lr = mp.mpf(str(spec["training"]["lr"]))
    f = forward(spec, P)
    backward(f["loss"])
    P1 = {k: [[P[k][i][j] - lr * f["W"][k][i][j].g for j in range(len(P[k][0]))] for i in range(len(P[k]))]
          for k in P}
    f1 = forward(spec, P1)
    vocab = f["vocab"]
    out = {}

    def put(prefix, name, m, grad=False, tok_last=False):
        def key(idx):
            idx = list(idx)
            if tok_last:
                idx[-1] = vocab[idx[-1]]
            return f"{prefix}{name}[{','.join(map(str, idx))}]"
        if isinstance(m, Var):
            out[f"{prefix}{name}"] = m.g if grad else m.v
        elif isinstance(m[0], list):
            for i, row in enumerate(m):
                for j, x in enumerate(row):
                    out[key((i, j))] = x.g if grad else (x.v if isinstance(x, Var) else x)
        else:
            for i, x in enumerate(m):
                out[key((i,))] = x.g if grad else (x.v if isinstance(x, Var) else x)

    for st, pre in ((f, ""), (f1, "sgd[1].")):
        for n in ("X", "ms1", "LN1", "Q", "K", "V", "Q_rot", "K_rot", "S", "A_den", "A", "Attn", "H1", "ms2",
                  "LN2", "Z", "U", "R", "F", "H2", "ms_f", "LN_f", "h_final", "sum_exp", "loss"):
            put(pre, n, st[n])
        put(pre, "logits", st["logits"], tok_last=True)
        put(pre, "p", st["p"], tok_last=True)
        for t in range(len(st["ms1"])):
            for n in ("ms1", "ms2", "ms_f"):
                out[f"{pre}sqrt({n}[{t}] + ln_eps)"] = mp.sqrt(st[n][t].v + st["eps"])
    put("", "grad_logits", f["logits"], grad=True, tok_last=True)
    for k in PARAMS:
        tl = k == "W_out"
        put("", "grad_" + k, f["W"][k], grad=True, tok_last=tl)
        put("", k, P[k], tok_last=tl)
        put("sgd[1].", k, P1[k], tok_last=tl)
    for t in range(len(f["Z"])):
        for k in range(len(f["Z"][0])):
            z = f["Z"][t][k].v
            out[f"R[{t},{k}]/U[{t},{k}]"] = z / (1 + mp.exp(-z))
    return out


# ---------------------------------------------------------------- the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm(s: str) -> str:
    return s.replace("−", "-")


def main() -> int:
    vals = values()
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = norm(cells[4].strip("`")) if len(cells) == 7 else norm(printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != norm(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            note = "correct" if right == norm(printed) else "NOT THE CORRECT ROUNDING"
            correct += 1
        if not on_line:
            note = f"NOT ON LINE {line}"
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>10}  l.{line:<4} {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
