#!/usr/bin/env python3
"""Independent exact computation for the held-out tutorial vi-md-nanogpt-2head-attngrad (no symgpt).

    python oracle.py     # prints every KEY.md row's quantity with its exact value and checks the key

Model (as SPEC.toml): nanoGPT-like GPT-2 block, pre-LN, learned positions, biases everywhere,
exact-erf GELU, 1 layer, 2 heads (d_k = 2), d = 4, d_ff = 8, tied head, ln_eps = 1e-5.
    H0 = E[ids] + W_pe;  LN1 = ln_1(H0);  Q,K,V = LN1·W + b;  S[h,t,s] = q_h·k_h/√2;  causal softmax A
    Attn_heads = A·V (heads side by side);  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn
    LN2 = ln_2(H1);  Z = LN2·W_1 + b_1;  R = GELU(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = ln_f(H2) with gamma_f, beta_f;  logits = LN_f[T-1]·Eᵀ;  p = softmax;  loss = −ln p[target]
Backward is written out by hand (chain rule), only through the last position where the loss reads.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


VOCAB = ["tôi", "thích", "uống", "trà", "sữa"]
IDS, TGT = [0, 1, 2], 3
EPS = mp.mpf("1e-5")
E = M([[0.2, -0.1, 0.3, 0.0], [-0.3, 0.4, 0.1, 0.2], [0.1, 0.2, -0.4, 0.3], [0.4, 0.1, 0.2, -0.2],
       [-0.1, -0.3, 0.2, 0.4]])
W_pe = M([[0.1, 0.0, -0.1, 0.05], [0.0, 0.1, 0.05, -0.1], [-0.05, 0.1, 0.0, 0.1]])
gamma_f, beta_f = M([1.0, 0.9, 1.1, 1.0]), M([0.0, 0.05, 0.0, -0.05])
W_Q = M([[0.5, -0.2, 0.3, 0.1], [0.1, 0.4, -0.3, 0.2], [-0.2, 0.3, 0.4, -0.1], [0.3, 0.1, 0.2, 0.5]])
b_Q = M([0.0, 0.1, 0.0, -0.1])
W_K = M([[0.4, 0.1, -0.2, 0.3], [-0.1, 0.5, 0.2, 0.1], [0.2, -0.3, 0.5, 0.2], [0.1, 0.2, -0.1, 0.4]])
b_K = M([0.05, 0.0, 0.0, 0.05])
W_V = M([[0.3, 0.2, -0.1, 0.4], [0.2, -0.4, 0.3, 0.1], [-0.1, 0.3, 0.2, -0.2], [0.4, 0.1, 0.1, 0.3]])
b_V = M([0.0, 0.0, 0.1, 0.0])
W_O = M([[0.2, -0.1, 0.3, 0.1], [0.1, 0.3, -0.2, 0.2], [-0.3, 0.2, 0.1, 0.4], [0.2, 0.1, 0.3, -0.1]])
b_O = M([0.0, 0.05, 0.0, 0.0])
W_1 = M([[0.3, -0.2, 0.1, 0.4, -0.3, 0.2, 0.1, -0.1], [0.2, 0.1, -0.4, 0.3, 0.2, -0.1, 0.3, 0.2],
         [-0.1, 0.3, 0.2, -0.2, 0.4, 0.1, -0.3, 0.3], [0.4, 0.2, 0.3, 0.1, -0.1, -0.4, 0.2, 0.1]])
b_1 = M([0.0, 0.1, 0.0, -0.1, 0.0, 0.05, 0.0, 0.0])
W_2 = M([[0.2, -0.1, 0.1, 0.3], [0.1, 0.3, -0.2, 0.1], [-0.2, 0.1, 0.3, 0.2], [0.3, 0.2, 0.1, -0.1],
         [0.1, -0.3, 0.2, 0.2], [-0.1, 0.2, 0.3, 0.1], [0.2, 0.1, -0.1, 0.3], [0.1, 0.2, 0.2, -0.2]])
b_2 = M([0.0, 0.0, 0.05, 0.0])
# gamma1, beta1, gamma2, beta2 are 1 and 0
H, DK = 2, 2


def vecmat(x, W, b=None):
    return [mp.fsum(x[i] * W[i][j] for i in range(len(x))) + (b[j] if b else 0) for j in range(len(W[0]))]


def matvec(W, g):  # W·g  (g over W's columns)
    return [mp.fsum(W[i][j] * g[j] for j in range(len(g))) for i in range(len(W))]


def ln(h, gamma=None, beta=None):
    d = len(h)
    mu = mp.fsum(h) / d
    var = mp.fsum((x - mu) ** 2 for x in h) / d
    sd = mp.sqrt(var + EPS)
    xh = [(x - mu) / sd for x in h]
    gamma = gamma or [mp.mpf(1)] * d
    beta = beta or [mp.mpf(0)] * d
    return mu, var, sd, xh, [gamma[j] * xh[j] + beta[j] for j in range(d)]


def ln_back(gy, sd, xh, gamma=None):
    d = len(gy)
    gamma = gamma or [mp.mpf(1)] * d
    gx = [gamma[j] * gy[j] for j in range(d)]
    m1 = mp.fsum(gx) / d
    m2 = mp.fsum(gx[j] * xh[j] for j in range(d)) / d
    return [(gx[j] - m1 - xh[j] * m2) / sd for j in range(d)]


def gelu(z):
    return z / 2 * (1 + mp.erf(z / mp.sqrt(2)))


def gelu_d(z):
    return (1 + mp.erf(z / mp.sqrt(2))) / 2 + z * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)


def compute():
    T, d = len(IDS), 4
    H0 = [[E[IDS[t]][j] + W_pe[t][j] for j in range(d)] for t in range(T)]
    L1 = [ln(H0[t]) for t in range(T)]
    LN1 = [r[4] for r in L1]
    Q = [vecmat(LN1[t], W_Q, b_Q) for t in range(T)]
    K = [vecmat(LN1[t], W_K, b_K) for t in range(T)]
    V = [vecmat(LN1[t], W_V, b_V) for t in range(T)]
    cols = lambda h: range(h * DK, (h + 1) * DK)
    S = [[[mp.fsum(Q[t][j] * K[s][j] for j in cols(h)) / mp.sqrt(DK) for s in range(T)] for t in range(T)]
         for h in range(H)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    Y = [[mp.fsum(A[j // DK][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    O = [vecmat(Y[t], W_O, b_O) for t in range(T)]
    H1 = [[H0[t][j] + O[t][j] for j in range(d)] for t in range(T)]
    L2 = [ln(H1[t]) for t in range(T)]
    LN2 = [r[4] for r in L2]
    Z = [vecmat(LN2[t], W_1, b_1) for t in range(T)]
    R = [[gelu(z) for z in Z[t]] for t in range(T)]
    F = [vecmat(R[t], W_2, b_2) for t in range(T)]
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    Lf = [ln(H2[t], gamma_f, beta_f) for t in range(T)]
    LNf = [r[4] for r in Lf]
    hf = LNf[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    loss = -mp.log(p[TGT])
    # ---- backward, last position only (t = 2)
    t = T - 1
    g_logits = [p[v] - (1 if v == TGT else 0) for v in range(len(E))]
    g_hf = [mp.fsum(g_logits[v] * E[v][j] for v in range(len(E))) for j in range(d)]
    g_H2 = ln_back(g_hf, Lf[t][2], Lf[t][3], gamma_f)
    g_F = g_H2
    g_R = matvec(W_2, g_F)
    g_Z = [g_R[k] * gelu_d(Z[t][k]) for k in range(8)]
    g_LN2 = matvec(W_1, g_Z)
    g_H1 = [g_H2[j] + x for j, x in enumerate(ln_back(g_LN2, L2[t][2], L2[t][3]))]
    g_O = g_H1
    g_Y = matvec(W_O, g_O)
    g_A = [[mp.fsum(g_Y[j] * V[s][j] for j in cols(h)) for s in range(T)] for h in range(H)]
    g_S = []
    for h in range(H):
        dot = mp.fsum(A[h][t][s] * g_A[h][s] for s in range(T))
        g_S.append([A[h][t][s] * (g_A[h][s] - dot) for s in range(T)])
    g_Q = [mp.mpf(0)] * d
    g_K = [[mp.mpf(0)] * d for _ in range(T)]
    g_V = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        for j in cols(h):
            g_Q[j] = mp.fsum(g_S[h][s] * K[s][j] for s in range(T)) / mp.sqrt(DK)
            for s in range(T):
                g_K[s][j] = g_S[h][s] * Q[t][j] / mp.sqrt(DK)
                g_V[s][j] = A[h][t][s] * g_Y[j]
    g_WQ = [[LN1[t][i] * g_Q[j] for j in range(d)] for i in range(d)]
    g_WK = [[mp.fsum(LN1[s][i] * g_K[s][j] for s in range(T)) for j in range(d)] for i in range(d)]
    g_WV = [[mp.fsum(LN1[s][i] * g_V[s][j] for s in range(T)) for j in range(d)] for i in range(d)]

    v = {}
    for tt in range(T):
        v[f"mu1[{tt}]"], v[f"var1[{tt}]"] = L1[tt][0], L1[tt][1]
        v[f"mu2[{tt}]"], v[f"var2[{tt}]"] = L2[tt][0], L2[tt][1]
        v[f"mu_f[{tt}]"], v[f"var_f[{tt}]"] = Lf[tt][0], Lf[tt][1]
        v[f"sqrt(var1[{tt}] + ln_eps)"] = L1[tt][2]
        for j in range(d):
            for name, X in (("H0", H0), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Attn_heads", Y),
                            ("Attn", O), ("H1", H1), ("LN2", LN2), ("F", F), ("H2", H2), ("LN_f", LNf)):
                v[f"{name}[{tt},{j}]"] = X[tt][j]
        for k in range(8):
            v[f"Z[{tt},{k}]"], v[f"R[{tt},{k}]"] = Z[tt][k], R[tt][k]
    for h in range(H):
        for tt in range(T):
            v[f"A_den[{h},{tt}]"] = A_den[h][tt]
            for s in range(tt + 1):
                v[f"S[{h},{tt},{s}]"], v[f"A[{h},{tt},{s}]"] = S[h][tt][s], A[h][tt][s]
        for s in range(T):
            v[f"grad_A[{h},{t},{s}]"], v[f"grad_S[{h},{t},{s}]"] = g_A[h][s], g_S[h][s]
    for j in range(d):
        v[f"h_final[{j}]"] = hf[j]
        v[f"grad_Attn_heads[{t},{j}]"] = g_Y[j]
        v[f"grad_Attn[{t},{j}]"] = g_O[j]
        v[f"grad_Q[{t},{j}]"] = g_Q[j]
        for i in range(d):
            v[f"grad_W_Q[{i},{j}]"], v[f"grad_W_K[{i},{j}]"], v[f"grad_W_V[{i},{j}]"] = g_WQ[i][j], g_WK[i][j], g_WV[i][j]
    for k, tok in enumerate(VOCAB):
        v[f"logits[{tok}]"], v[f"p[{tok}]"], v[f"grad_logits[{tok}]"] = logits[k], p[k], g_logits[k]
        v[f"exp(logits[{tok}])"] = mp.exp(logits[k])
    v["sum_exp"], v["loss"] = se, loss
    return v


def main() -> int:
    values = compute()
    if "--all" in sys.argv:
        for k, x in values.items():
            print(f"{k:<28} {mp.nstr(x, 12)}")
        return 0
    bad = 0
    key = HERE / "KEY.md"
    doc_lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        if printed not in doc_lines[line - 1]:
            print(f"  {printed:>10}  NOT ON LINE {line} OF DOC.md")
            bad += 1
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        val = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(val, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - val) <= mp.mpf("1e-10") * abs(val) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<26} {mp.nstr(val, 15):<20} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert not bad, f"{bad} key rows disagree"
    return 0


if __name__ == "__main__":
    sys.exit(main())
