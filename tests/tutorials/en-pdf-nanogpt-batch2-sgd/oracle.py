#!/usr/bin/env python3
"""Independent mpmath oracle (50 digits, no symgpt) for the tutorial en-pdf-nanogpt-batch2-sgd.

    python oracle.py     # every KEY.md row's quantity with its exact value; asserts the key agrees

The model (SPEC.toml): a nanoGPT-style GPT-2 block, written out here from scratch.
  x_t    = wte[id_t] + wpe[t]                                   (H0)
  u      = LN(x)   (γ = 1, β = 0, biased variance, ε = 1e-5)     (LN1, ln_1)
  q,k,v  = u·W_Q + b_Q, u·W_K + b_K, u·W_V + b_V                (c_attn, heads side by side, d_k = 2)
  S[h,t,s] = q_h[t]·k_h[s]/√2, causal softmax → A[h,t,s]; y = A·v (heads concatenated)
  attn   = y·W_O + b_O                                          (attn.c_proj)
  x'     = x + attn                                             (H1)
  z      = LN(x')·W_1 + b_1, g = GELU(z) = z/2·(1 + erf(z/√2))  (mlp.c_fc, exact GELU)
  x''    = x' + g·W_2 + b_2                                     (H2, mlp.c_proj)
  h      = LN(x'')[T-1]                                         (ln_f at the last position)
  logits = h·wteᵀ (tied), p = softmax, loss = −ln p[target]
Mini-batch of two sequences; the batch loss is the mean, the gradient the mean of the two gradients.
Gradients are taken by central differences at 90 digits with step 1e-28 (truncation ~1e-56), which is
far below the 50 digits kept. SGD: θ ← θ − 0.1·g on every parameter except the LayerNorms (fixed).
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["the", "dog", "saw", "cat", "ran"]
TOK = {w: i for i, w in enumerate(VOCAB)}
BATCH = [(["the", "dog", "saw"], "the"), (["dog", "saw", "the"], "cat")]
LR = "0.1"
EPS = "1e-5"

WEIGHTS = {
    "E": [[0.1, -0.2, 0.3, 0.0], [0.4, 0.1, -0.3, 0.2], [-0.2, 0.5, 0.1, -0.1], [0.3, 0.2, -0.1, 0.4],
          [-0.1, -0.3, 0.2, 0.3]],
    "W_pe": [[0.1, 0.0, 0.0, -0.1], [0.0, 0.1, -0.1, 0.0], [-0.1, 0.0, 0.1, 0.1]],
    "W_Q": [[0.5, -0.3, 0.2, 0.4], [0.1, 0.6, -0.4, 0.2], [-0.2, 0.3, 0.5, -0.1], [0.4, 0.0, 0.1, 0.3]],
    "W_K": [[0.3, 0.2, -0.5, 0.1], [-0.4, 0.5, 0.2, 0.3], [0.6, -0.1, 0.3, -0.2], [0.1, 0.4, 0.0, 0.5]],
    "W_V": [[0.2, -0.1, 0.4, 0.3], [0.5, 0.3, -0.2, 0.1], [-0.3, 0.4, 0.1, 0.2], [0.1, -0.2, 0.3, -0.4]],
    "b_Q": [0.1, 0.0, -0.1, 0.0],
    "b_K": [0.0, 0.1, 0.0, -0.1],
    "b_V": [0.05, 0.0, 0.0, -0.05],
    "W_O": [[0.3, -0.2, 0.1, 0.2], [0.1, 0.4, -0.3, 0.0], [-0.2, 0.1, 0.5, 0.3], [0.4, 0.0, 0.2, -0.1]],
    "b_O": [0.0, 0.05, -0.05, 0.0],
    "W_1": [[0.2, -0.3, 0.4, 0.1, -0.2, 0.5, 0.0, 0.3], [-0.1, 0.4, 0.2, -0.5, 0.3, 0.1, 0.2, -0.2],
            [0.3, 0.1, -0.4, 0.2, 0.5, -0.1, 0.4, 0.1], [0.0, -0.2, 0.1, 0.3, -0.1, 0.2, -0.3, 0.4]],
    "b_1": [0.0, 0.1, -0.1, 0.0, 0.05, 0.0, -0.05, 0.1],
    "W_2": [[0.3, -0.1, 0.2, 0.0], [0.1, 0.2, -0.3, 0.4], [-0.2, 0.3, 0.1, -0.1], [0.4, 0.0, -0.2, 0.2],
            [0.0, -0.3, 0.4, 0.1], [0.2, 0.1, 0.0, -0.3], [-0.1, 0.2, 0.3, 0.1], [0.1, -0.4, 0.1, 0.2]],
    "b_2": [0.0, -0.05, 0.05, 0.0],
}


def exact(a):
    """Decimal text → mpf exactly as the decimal (0.1 is 1/10 to the working precision)."""
    return [exact(r) for r in a] if isinstance(a, list) else mp.mpf(str(a))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addrow(M, b):
    return [[x + y for x, y in zip(r, b)] for r in M]


def ln(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(x - m) / mp.sqrt(v + eps) for x in r] for r, m, v in zip(H, mu, var)]


def gelu(z):
    return z / 2 * (1 + mp.erf(z / mp.sqrt(2)))


def forward(P, words, target):
    eps = mp.mpf(EPS)
    ids = [TOK[w] for w in words]
    T, d, nh = len(ids), 4, 2
    dk = d // nh
    H0 = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = ln(H0, eps)
    Q = addrow(mm(LN1, P["W_Q"]), P["b_Q"])
    K = addrow(mm(LN1, P["W_K"]), P["b_K"])
    V = addrow(mm(LN1, P["W_V"]), P["b_V"])
    S = [[[mp.fsum(Q[t][h * dk + j] * K[s][h * dk + j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(nh)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(nh)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(nh)]
    Y = [[mp.fsum(A[j // dk][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    Attn = addrow(mm(Y, P["W_O"]), P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = ln(H1, eps)
    Z = addrow(mm(LN2, P["W_1"]), P["b_1"])
    R = [[gelu(z) for z in r] for r in Z]
    F = addrow(mm(R, P["W_2"]), P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    muf, varf, LNf = ln(H2, eps)
    h = LNf[-1]
    logits = [mp.fsum(h[j] * P["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    return dict(H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Y,
                Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=muf, var_f=varf,
                LN_f=LNf, h_final=h, logits=logits, sum_exp=se, p=p, loss=-mp.log(p[TOK[target]]))


def entries(P):
    """Every trainable scalar as (name, index tuple)."""
    out = []
    for name, W in P.items():
        if isinstance(W[0], list):
            out += [(name, (i, j)) for i in range(len(W)) for j in range(len(W[0]))]
        else:
            out += [(name, (i,)) for i in range(len(W))]
    return out


def get(P, name, idx):
    return P[name][idx[0]][idx[1]] if len(idx) == 2 else P[name][idx[0]]


def put(P, name, idx, val):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] = val
    else:
        Q[name][idx[0]] = val
    return Q


def gradients(P, words, target):
    """∂loss/∂θ for every trainable scalar θ, by central differences at 90 digits."""
    g = {}
    with mp.workdps(90):
        h = mp.mpf("1e-28")
        for name, idx in entries(P):
            th = get(P, name, idx)
            up = forward(put(P, name, idx, th + h), words, target)["loss"]
            dn = forward(put(P, name, idx, th - h), words, target)["loss"]
            g[(name, idx)] = (up - dn) / (2 * h)
    return {k: +v for k, v in g.items()}


def compute():
    P = {k: exact(v) for k, v in WEIGHTS.items()}
    lr = mp.mpf(LR)
    f = [forward(P, w, t) for w, t in BATCH]
    g = [gradients(P, w, t) for w, t in BATCH]
    gm = {k: (g[0][k] + g[1][k]) / 2 for k in g[0]}
    P1 = P
    for (name, idx), v in gm.items():
        P1 = put(P1, name, idx, get(P, name, idx) - lr * v)
    f1 = [forward(P1, w, t) for w, t in BATCH]

    vals = {}
    a, b = f
    for t in range(3):
        vals[f"mu1[{t}]"] = a["mu1"][t]
        vals[f"var1[{t}]"] = a["var1"][t]
        for j in range(4):
            for key in ("H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "F", "H2", "LN_f"):
                vals[f"{key}[{t},{j}]"] = a[key][t][j]
        for k in range(8):
            vals[f"Z[{t},{k}]"] = a["Z"][t][k]
            vals[f"R[{t},{k}]"] = a["R"][t][k]
        vals[f"mu2[{t}]"] = a["mu2"][t]
        vals[f"var2[{t}]"] = a["var2"][t]
        vals[f"mu_f[{t}]"] = a["mu_f"][t]
        vals[f"var_f[{t}]"] = a["var_f"][t]
    for h in range(2):
        for t in range(3):
            vals[f"A_den[{h},{t}]"] = a["A_den"][h][t]
            for s in range(3):
                vals[f"S[{h},{t},{s}]"] = a["S"][h][t][s]
                vals[f"A[{h},{t},{s}]"] = a["A"][h][t][s]
    for j in range(4):
        vals[f"h_final[{j}]"] = a["h_final"][j]
    for v, w in enumerate(VOCAB):
        vals[f"logits[{w}]"] = a["logits"][v]
        vals[f"p[{w}]"] = a["p"][v]
        vals[f"example[1].logits[{w}]"] = b["logits"][v]
        vals[f"example[1].p[{w}]"] = b["p"][v]
        vals[f"sgd[1].p[{w}]"] = f1[0]["p"][v]
        vals[f"sgd[1].logits[{w}]"] = f1[0]["logits"][v]
    vals["sum_exp"] = a["sum_exp"]
    vals["loss"] = a["loss"]
    vals["example[1].loss"] = b["loss"]
    vals["sgd[0].loss"] = (a["loss"] + b["loss"]) / 2
    vals["sgd[1].loss"] = (f1[0]["loss"] + f1[1]["loss"]) / 2
    # no symgpt name: each sequence's own loss after the step (printed in the document, not in the key)
    vals["after.loss.seq1"] = f1[0]["loss"]
    vals["after.loss.seq2"] = f1[1]["loss"]
    for (name, idx), v in gm.items():
        ix = ",".join(VOCAB[i] if (name == "E" and n == 0) else str(i) for n, i in enumerate(idx))
        vals[f"grad_{name}[{ix}]"] = g[0][(name, idx)]
        vals[f"example[1].grad_{name}[{ix}]"] = g[1][(name, idx)]
        vals[f"sgd[0].grad_{name}[{ix}]"] = v
        vals[f"{name}[{ix}]"] = get(P, name, idx)
        vals[f"sgd[1].{name}[{ix}]"] = get(P1, name, idx)
    return vals


def check_key(vals) -> int:
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`").replace("\u2212", "-")   # the PDF's Unicode minus
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`").replace("\u2212", "-") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:                      # planted: exact value and correct rounding must agree
            ex = mp.mpf(cells[3].rstrip("\u2026").replace("\u2212", "-"))
            ok = shown == right and abs(ex - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    return bad


def main() -> int:
    vals = compute()
    print("en-pdf-nanogpt-batch2-sgd:")
    bad = check_key(vals)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
