#!/usr/bin/env python3
"""Independent exact values for nbhtml-transformer-en (mpmath, 50 digits; symgpt is not imported).

    python oracle.py          # check every KEY.md row: value, rounding, the figure on its raw DOC.html line
    python oracle.py --dump   # every quantity, 20 digits

Model (SPEC.toml): post-LN block, d = 4, two heads of d_k = 2 (head h = columns 2h, 2h+1), d_ff = 6,
sinusoidal PE (base 10000), tied head, LayerNorm with biased variance, eps 1e-5.
Rounding: half away from zero, on a 45-digit decimal string.
"""

from __future__ import annotations

import html
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["a", "dog", "ran", "home", "fast"]
INPUT, TARGET = ["a", "dog", "ran"], "home"
HEADS, EPS, BASE = 2, mp.mpf("1e-5"), mp.mpf(10000)
E = [
    ["0.2", "-0.1", "0.0", "0.3"],
    ["-0.3", "0.4", "0.1", "-0.2"],
    ["0.5", "0.2", "-0.4", "0.1"],
    ["0.1", "-0.3", "0.3", "0.4"],
    ["-0.2", "0.1", "0.5", "-0.1"],
]
W_Q = [
    ["0.3", "-0.1", "0.2", "0.4"],
    ["0.2", "0.5", "-0.3", "0.1"],
    ["-0.4", "0.2", "0.1", "0.3"],
    ["0.1", "-0.2", "0.4", "-0.1"],
]
W_K = [
    ["0.1", "0.3", "-0.2", "0.2"],
    ["0.4", "-0.1", "0.3", "0.1"],
    ["0.2", "0.2", "0.1", "-0.3"],
    ["-0.3", "0.1", "0.2", "0.4"],
]
W_V = [
    ["0.2", "0.1", "0.3", "-0.2"],
    ["-0.1", "0.4", "0.2", "0.3"],
    ["0.3", "-0.2", "0.1", "0.4"],
    ["0.1", "0.3", "-0.4", "0.2"],
]
W_1 = [
    ["0.3", "-0.2", "0.1", "0.4", "-0.1", "0.2"],
    ["0.1", "0.3", "-0.4", "0.2", "0.2", "-0.1"],
    ["-0.2", "0.1", "0.3", "-0.3", "0.4", "0.1"],
    ["0.4", "0.2", "0.1", "-0.1", "-0.3", "0.3"],
]
b_1 = ["0.05", "0.0", "-0.1", "0.1", "0.0", "-0.05"]
W_2 = [
    ["0.2", "-0.3", "0.1", "0.4"],
    ["0.3", "0.1", "-0.2", "0.1"],
    ["-0.1", "0.4", "0.3", "-0.2"],
    ["0.1", "-0.1", "0.2", "0.3"],
    ["0.4", "0.2", "-0.3", "0.1"],
    ["-0.2", "0.3", "0.1", "0.2"],
]
b_2 = ["0.0", "0.1", "0.0", "-0.1"]


def M(a):
    return [M(x) for x in a] if isinstance(a, list) else mp.mpf(a)


def matmul(A, B):
    return [
        [mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))
    ]


def layernorm(X):
    n = len(X[0])
    mu = [mp.fsum(r) / n for r in X]
    var = [mp.fsum((x - m) ** 2 for x in r) / n for r, m in zip(X, mu)]
    return mu, var, [[(x - m) / mp.sqrt(v + EPS) for x in r] for r, m, v in zip(X, mu, var)]


def model():
    e = M(E)
    ids = [VOCAB.index(w) for w in INPUT]
    T, d = len(ids), 4
    dk = d // HEADS
    PE = [
        [(mp.sin if j % 2 == 0 else mp.cos)(t / BASE ** (mp.mpf(2 * (j // 2)) / d)) for j in range(d)]
        for t in range(T)
    ]
    X = [e[i] for i in ids]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, M(W_Q)), matmul(H0, M(W_K)), matmul(H0, M(W_V))
    q = {}
    Attn = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(HEADS):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            S = [mp.fsum(Q[t][c] * K[s][c] for c in cols) / mp.sqrt(dk) for s in range(T)]
            den = mp.fsum(mp.exp(S[s]) for s in range(t + 1))
            q[f"A_den[{h},{t}]"] = den
            for s in range(T):
                a = mp.exp(S[s]) / den if s <= t else mp.mpf(0)
                q[f"S[{h},{t},{s}]"], q[f"A[{h},{t},{s}]"] = S[s], a
                q[f"exp(S[{h},{t},{s}])"] = mp.exp(S[s])
                q[f"S[{h},{t},{s}]*sqrt(2)"] = S[s] * mp.sqrt(dk)
            for c in cols:
                Attn[t][c] = mp.fsum(q[f"A[{h},{t},{s}]"] * V[s][c] for s in range(T))
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + mp.mpf(b) for z, b in zip(r, b_1)] for r in matmul(LN1, M(W_1))]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + mp.mpf(b) for f, b in zip(r, b_2)] for r in matmul(R, M(W_2))]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * e[v][j] for j in range(d)) for v in range(len(VOCAB))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    tgt = VOCAB.index(TARGET)
    q["sum_exp"], q["loss"] = se, -mp.log(p[tgt])
    for name, A in (
        ("X", X),
        ("PE", PE),
        ("H0", H0),
        ("Q", Q),
        ("K", K),
        ("V", V),
        ("Attn", Attn),
        ("H1", H1),
        ("LN1", LN1),
        ("Z", Z),
        ("R", R),
        ("F", F),
        ("H2", H2),
        ("LN2", LN2),
    ):
        for i, r in enumerate(A):
            for j, x in enumerate(r):
                q[f"{name}[{i},{j}]"] = x
    for name, vec in (("mu1", mu1), ("var1", var1), ("mu2", mu2), ("var2", var2), ("h_final", hf)):
        for i, x in enumerate(vec):
            q[f"{name}[{i}]"] = x
    for t in range(T):
        q[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(var1[t] + EPS)
    for v, tok in enumerate(VOCAB):
        q[f"logits[{tok}]"], q[f"exp(logits[{tok}])"], q[f"p[{tok}]"] = logits[v], mp.exp(logits[v]), p[v]
        q[f"grad_logits[{tok}]"] = p[v] - (1 if v == tgt else 0)
    return q


def rounded(x, places):
    text = mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60)
    return str(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def places_of(fig):
    b = fig.rstrip("%").strip()
    return len(b.split(".")[1]) if "." in b else 0


def key_rows():
    section = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = "planted" if "lanted" in line else "correct"
        if line.startswith("| `"):
            yield section, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def on_line(printed, n):
    raw = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    text = re.sub(r"<[^>]+>", "", html.unescape(raw[n - 1])) if 1 <= n <= len(raw) else ""
    return printed.replace("\u2212", "-") in text.replace("\u2212", "-")


def check():
    q, bad = model(), 0
    for section, cells in key_rows():
        printed = cells[0].strip("`")
        if not on_line(printed, int(cells[1])):
            print(f"  {printed:>10}  NOT ON LINE {cells[1]}")
            bad += 1
        printed = printed.replace("\u2212", "-").replace(" ", "")
        name = next((n for n in re.findall(r"`([^`]+)`", cells[-1]) if n in q), None)
        if name is None:
            print(f"  {printed:>10}  NO VALUE for {cells[-1]}")
            bad += 1
            continue
        fig = cells[4].strip("`").replace("\u2212", "-").replace(" ", "") if section == "planted" else printed
        val = q[name] * (100 if fig.endswith("%") else 1)
        want = rounded(val, places_of(fig)) + ("%" if fig.endswith("%") else "")
        if section == "planted":
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = want == fig and abs(exact - val) <= mp.mpf("1e-10") * max(abs(val), 1) and want != printed
        else:
            ok = want == printed
        bad += not ok
        verdict = "ok" if ok else f"DISAGREES (rounds to {want})"
        print(
            f"  {printed:>10}  {name:<22} {mp.nstr(val, 15):<22} {verdict} [{section}]"
        )
    print("every key row agrees with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        for k, v in model().items():
            print(f"{k:<24} {mp.nstr(v, 20)}")
        sys.exit(0)
    sys.exit(check())
