#!/usr/bin/env python3
"""Independent computation behind KEY.md for en-pdf-seed-2head-adamw: plain mpmath at 50 digits, no symgpt.

    python oracle.py            # every KEY.md row: its quantity, the exact value, and a check of the
                                # key's "exact value" / "correct rounding" columns; then every figure
                                # the handout prints (FIGURES below) against its correct rounding
    python oracle.py --dump     # every quantity computed, by name
    python oracle.py --fd       # finite-difference check of the hand-written backward pass

Model (the seed's wiring): one post-LN block, two heads (d_k = 2), ReLU FFN, sinusoidal PE
PE[t,2i] = sin(t/10000^(2i/d)), PE[t,2i+1] = cos(same), t from 0; tied head (logits = LN2[T-1]·Eᵀ);
no output projection W_O, the heads' outputs are concatenated. LayerNorm: biased variance, eps 1e-5,
γ = 1, β = 0 (not trained). Loss on the last position only. AdamW as torch.optim.AdamW, one step,
decoupled weight decay on every trained parameter (E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2).
Rounding is half away from zero, on the 45-digit decimal of the value.
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
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0" + s[2:] if s.startswith("-0") and Decimal(s) == 0 else s


VOCAB = ["the", "cat", "sat", "on", "mat", "dog"]
IDS = [0, 1, 2]
TGT = 3
D, DFF, HEADS, DK = 4, 8, 2, 2
EPS = mp.mpf("1e-5")
BASE = 10000

P0 = dict(
    E=M([[0.2, -0.1, 0.3, 0.0], [-0.3, 0.4, 0.1, 0.2], [0.5, 0.1, -0.2, 0.3],
         [0.1, 0.3, 0.2, -0.2], [-0.2, -0.4, 0.2, 0.1], [0.3, 0.2, -0.1, -0.3]]),
    W_Q=M([[0.4, -0.2, 0.1, 0.3], [0.1, 0.5, -0.3, 0.2], [-0.2, 0.3, 0.4, 0.1], [0.3, 0.1, 0.2, -0.4]]),
    W_K=M([[0.3, 0.2, -0.1, 0.4], [-0.2, 0.4, 0.3, 0.1], [0.1, -0.3, 0.5, 0.2], [0.4, 0.1, 0.2, -0.3]]),
    W_V=M([[0.2, 0.1, -0.3, 0.4], [0.5, -0.2, 0.1, 0.3], [-0.1, 0.4, 0.2, -0.2], [0.3, 0.2, 0.4, 0.1]]),
    W_1=M([[0.2, -0.3, 0.4, 0.1, -0.2, 0.3, 0.5, -0.1], [0.3, 0.1, -0.2, 0.4, 0.2, -0.4, 0.1, 0.3],
           [-0.1, 0.4, 0.3, -0.3, 0.5, 0.2, -0.2, 0.1], [0.4, 0.2, 0.1, 0.2, -0.3, 0.1, 0.3, -0.4]]),
    b_1=M([0.05, -0.1, 0.0, 0.1, -0.05, 0.0, 0.1, -0.1]),
    W_2=M([[0.3, -0.1, 0.2, 0.1], [-0.2, 0.4, 0.1, 0.3], [0.1, 0.2, -0.3, 0.2], [0.4, -0.3, 0.1, -0.1],
           [-0.1, 0.1, 0.4, 0.2], [0.2, 0.3, -0.2, -0.3], [0.1, -0.2, 0.3, 0.4], [-0.3, 0.1, 0.2, 0.1]]),
    b_2=M([0.0, 0.05, -0.05, 0.0]),
)
ADAMW = dict(lr=mp.mpf("0.01"), b1=mp.mpf("0.9"), b2=mp.mpf("0.999"), eps=mp.mpf("1e-8"), wd=mp.mpf("0.01"))


def zeros(r, c=None):
    return [mp.mpf(0)] * r if c is None else [[mp.mpf(0)] * c for _ in range(r)]


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def T_(A):
    return [list(r) for r in zip(*A)]


def ln_fwd(x):
    mu = mp.fsum(x) / len(x)
    var = mp.fsum((v - mu) ** 2 for v in x) / len(x)
    sig = mp.sqrt(var + EPS)
    return mu, var, [(v - mu) / sig for v in x]


def ln_bwd(y, var, dy):
    n = len(y)
    sig = mp.sqrt(var + EPS)
    m1 = mp.fsum(dy) / n
    m2 = mp.fsum(a * b for a, b in zip(dy, y)) / n
    return [(dy[j] - m1 - y[j] * m2) / sig for j in range(n)]


def forward(P):
    T = len(IDS)
    ang = lambda t, j: t / mp.mpf(BASE) ** (mp.mpf(j - j % 2) / D)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(D)] for t in range(T)]
    X = [P["E"][i][:] for i in IDS]
    H0 = [[X[t][j] + PE[t][j] for j in range(D)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    raw = [[[mp.fsum(Q[t][c] * K[s][c] for c in range(h * DK, (h + 1) * DK)) for s in range(T)]
            for t in range(T)] for h in range(HEADS)]
    S = [[[raw[h][t][s] / mp.sqrt(DK) for s in range(T)] for t in range(T)] for h in range(HEADS)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(HEADS)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(HEADS)]
    Attn = [[mp.fsum(A[c // DK][t][s] * V[s][c] for s in range(T)) for c in range(D)] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    mu1, var1, LN1 = zip(*[ln_fwd(r) for r in H1])
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    mu2, var2, LN2 = zip(*[ln_fwd(r) for r in H2])
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    return dict(X=X, PE=PE, H0=H0, Q=Q, K=K, V=V, raw=raw, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1,
                mu1=list(mu1), var1=list(var1), LN1=list(LN1), Z=Z, R=R, F=F, H2=H2, mu2=list(mu2),
                var2=list(var2), LN2=list(LN2), h_final=hf, logits=logits, sum_exp=se, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    T, Vn = len(IDS), len(VOCAB)
    g = {}
    g["logits"] = [f["p"][v] - (1 if v == TGT else 0) for v in range(Vn)]
    g["h_final"] = [mp.fsum(g["logits"][v] * P["E"][v][j] for v in range(Vn)) for j in range(D)]
    g["E_head"] = [[g["logits"][v] * f["h_final"][j] for j in range(D)] for v in range(Vn)]
    g["LN2"] = [zeros(D) for _ in range(T - 1)] + [g["h_final"][:]]
    g["H2"] = [ln_bwd(f["LN2"][t], f["var2"][t], g["LN2"][t]) for t in range(T)]
    g["F"] = g["H2"]
    g["W_2"] = [[mp.fsum(f["R"][t][k] * g["F"][t][j] for t in range(T)) for j in range(D)] for k in range(DFF)]
    g["b_2"] = [mp.fsum(g["F"][t][j] for t in range(T)) for j in range(D)]
    g["R"] = matmul(g["F"], T_(P["W_2"]))
    g["Z"] = [[g["R"][t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(DFF)] for t in range(T)]
    g["W_1"] = [[mp.fsum(f["LN1"][t][j] * g["Z"][t][k] for t in range(T)) for k in range(DFF)] for j in range(D)]
    g["b_1"] = [mp.fsum(g["Z"][t][k] for t in range(T)) for k in range(DFF)]
    back = matmul(g["Z"], T_(P["W_1"]))
    g["LN1"] = [[g["H2"][t][j] + back[t][j] for j in range(D)] for t in range(T)]
    g["H1"] = [ln_bwd(f["LN1"][t], f["var1"][t], g["LN1"][t]) for t in range(T)]
    g["Attn"] = g["H1"]
    gA = [[[mp.fsum(g["Attn"][t][c] * f["V"][s][c] for c in range(h * DK, (h + 1) * DK)) if s <= t else mp.mpf(0)
            for s in range(T)] for t in range(T)] for h in range(HEADS)]
    g["A"] = gA
    gV = [[mp.fsum(f["A"][c // DK][t][s] * g["Attn"][t][c] for t in range(T)) for c in range(D)] for s in range(T)]
    gS = [[[f["A"][h][t][s] * (gA[h][t][s] - mp.fsum(f["A"][h][t][u] * gA[h][t][u] for u in range(t + 1)))
            if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)] for h in range(HEADS)]
    g["S"] = gS
    r2 = mp.sqrt(DK)
    gQ = [[mp.fsum(gS[c // DK][t][s] * f["K"][s][c] for s in range(T)) / r2 for c in range(D)] for t in range(T)]
    gK = [[mp.fsum(gS[c // DK][t][s] * f["Q"][t][c] for t in range(T)) / r2 for c in range(D)] for s in range(T)]
    g["Q"], g["K"], g["V"] = gQ, gK, gV
    H0T = T_(f["H0"])
    g["W_Q"], g["W_K"], g["W_V"] = matmul(H0T, gQ), matmul(H0T, gK), matmul(H0T, gV)
    bq, bk, bv = matmul(gQ, T_(P["W_Q"])), matmul(gK, T_(P["W_K"])), matmul(gV, T_(P["W_V"]))
    g["H0"] = [[g["H1"][t][j] + bq[t][j] + bk[t][j] + bv[t][j] for j in range(D)] for t in range(T)]
    gE = [r[:] for r in g["E_head"]]
    for t, i in enumerate(IDS):
        for j in range(D):
            gE[i][j] += g["H0"][t][j]
    g["E"] = gE
    return g


PARAMS = ["E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"]


def adamw1(P, g):
    a = ADAMW
    st, newP = {}, {}
    for name in PARAMS:
        th, G = P[name], g[name]
        vec = not isinstance(th[0], list)
        rows = [th] if vec else th
        grows = [G] if vec else G
        out = []
        for i, (r, gr) in enumerate(zip(rows, grows)):
            o = []
            for j, (x, gg) in enumerate(zip(r, gr)):
                m, v = (1 - a["b1"]) * gg, (1 - a["b2"]) * gg * gg
                mh, vh = m / (1 - a["b1"]), v / (1 - a["b2"])
                upd = a["lr"] * mh / (mp.sqrt(vh) + a["eps"])
                new = x * (1 - a["lr"] * a["wd"]) - upd
                idx = (j,) if vec else (i, j)
                st[(name,) + idx] = dict(m=m, v=v, mhat=mh, vhat=vh, update=upd, decay=a["lr"] * a["wd"] * x, new=new)
                o.append(new)
            out.append(o)
        newP[name] = out[0] if vec else out
    return st, newP


def tok(i):
    return VOCAB[i]


def values():
    """Every quantity, keyed by symgpt-style names."""
    f = forward(P0)
    g = backward(P0, f)
    st, newP = adamw1(P0, g)
    f1 = forward(newP)
    out = {}
    T = len(IDS)
    for name in ["E", "W_Q", "W_K", "W_V", "W_1", "W_2"]:
        for i, r in enumerate(P0[name]):
            for j, x in enumerate(r):
                out[f"{name}[{tok(i) if name == 'E' else i},{j}]"] = x
    for name in ["b_1", "b_2"]:
        for j, x in enumerate(P0[name]):
            out[f"{name}[{j}]"] = x
    for name in ["X", "PE", "H0", "Q", "K", "V", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"]:
        for t, r in enumerate(f[name]):
            for j, x in enumerate(r):
                out[f"{name}[{t},{j}]"] = x
    for name in ["mu1", "var1", "mu2", "var2"]:
        for t, x in enumerate(f[name]):
            out[f"{name}[{t}]"] = x
            if name.startswith("var"):
                out[f"sqrt({name}[{t}] + ln_eps)"] = mp.sqrt(x + EPS)
    for name in ["S", "A", "raw"]:
        for h in range(HEADS):
            for t in range(T):
                for s in range(T):
                    key = f"S[{h},{t},{s}]*sqrt(2)" if name == "raw" else f"{name}[{h},{t},{s}]"
                    out[key] = f[name][h][t][s]
                    if name == "S":
                        out[f"exp(S[{h},{t},{s}])"] = mp.exp(f["S"][h][t][s])
    for h in range(HEADS):
        for t in range(T):
            out[f"A_den[{h},{t}]"] = f["A_den"][h][t]
    for j, x in enumerate(f["h_final"]):
        out[f"h_final[{j}]"] = x
    for v in range(len(VOCAB)):
        out[f"logits[{tok(v)}]"] = f["logits"][v]
        out[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
        out[f"p[{tok(v)}]"] = f["p"][v]
        out[f"grad_logits[{tok(v)}]"] = g["logits"][v]
        out[f"adamw[1].p[{tok(v)}]"] = f1["p"][v]
    out["sum_exp"] = f["sum_exp"]
    out["loss"] = f["loss"]
    out["adamw[1].loss"] = f1["loss"]
    for j, x in enumerate(g["h_final"]):
        out[f"grad_h_final[{j}]"] = x
    for name in ["LN2", "H2", "F", "R", "Z", "LN1", "H1", "Attn", "Q", "K", "V", "H0"]:
        for t, r in enumerate(g[name]):
            for j, x in enumerate(r):
                out[f"grad_{name}[{t},{j}]"] = x
    for name in ["A", "S"]:
        for h in range(HEADS):
            for t in range(T):
                for s in range(T):
                    out[f"grad_{name}[{h},{t},{s}]"] = g[name][h][t][s]
    for name in PARAMS + ["E_head"]:
        G = g[name]
        if isinstance(G[0], list):
            for i, r in enumerate(G):
                for j, x in enumerate(r):
                    out[f"grad_{name}[{tok(i) if name.startswith('E') else i},{j}]"] = x
        else:
            for j, x in enumerate(G):
                out[f"grad_{name}[{j}]"] = x
    for key, d in st.items():
        name, idx = key[0], key[1:]
        if name == "E":
            idx = (tok(idx[0]),) + idx[1:]
        ix = ",".join(str(i) for i in idx)
        for q in ["m", "v", "mhat", "vhat", "update", "decay"]:
            out[f"adamw[1].{q}[{name},{ix}]"] = d[q]
        out[f"adamw[1].{name}[{ix}]"] = d["new"]
    out["sqrt(2)"] = mp.sqrt(2)
    out["sqrt(adamw[1].vhat[W_2,5,3])"] = mp.sqrt(out["adamw[1].vhat[W_2,5,3]"])
    out.update({"d": D, "d_k": DK, "d_ff": DFF, "heads": HEADS, "ln_eps": EPS, "adamw.lr": ADAMW["lr"],
                "adamw.beta1": ADAMW["b1"], "adamw.beta2": ADAMW["b2"], "adamw.eps": ADAMW["eps"],
                "adamw.weight_decay": ADAMW["wd"]})
    return {k: mp.mpf(v) for k, v in out.items()}


def fd_check():
    """Central differences of the loss against the backward pass, for every parameter entry."""
    f = forward(P0)
    g = backward(P0, f)
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for name in PARAMS:
        th = P0[name]
        vec = not isinstance(th[0], list)
        for i in range(1 if vec else len(th)):
            for j in range(len(th) if vec else len(th[0])):
                def L(delta):
                    P = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P0.items()}
                    if vec:
                        P[name][j] += delta
                    else:
                        P[name][i][j] += delta
                    return forward(P)["loss"]
                num = (L(h) - L(-h)) / (2 * h)
                ana = g[name][j] if vec else g[name][i][j]
                worst = max(worst, abs(num - ana))
    print("largest |finite difference - backward| over every parameter entry:", mp.nstr(worst, 5))
    assert worst < mp.mpf("1e-30")


# Every figure the handout prints (model quantities and settings), as (line of `pdftotext -layout DOC.pdf -`,
# printed text, quantity, planted?). Planted figures must NOT be the correct rounding; all others must be.
FIGURES: list[tuple[int, str, str, bool]] = [
    (22, "4", "d", False), (22, "2", "d_k", False), (22, "8", "d_ff", False),
    (24, "10−5", "ln_eps", False),
    (54, "0.200", "H0[0,0]", False), (54, "0.900", "H0[0,1]", False), (54, "0.300", "H0[0,2]", False),
    (54, "1.000", "H0[0,3]", False),
    (55, "0.541", "H0[1,0]", False), (55, "0.904", "H0[1,1]", True), (55, "0.110", "H0[1,2]", False),
    (55, "1.200", "H0[1,3]", False),
    (56, "1.409", "H0[2,0]", False), (56, "−0.316", "H0[2,1]", False), (56, "−0.180", "H0[2,2]", False),
    (56, "1.300", "H0[2,3]", False),
    (67, "1.414", "sqrt(2)", False),
    (79, "0.148", "S[0,2,0]*sqrt(2)", False), (79, "0.104", "S[0,2,0]", False), (79, "0.272", "A[0,2,0]", False),
    (79, "0.267", "S[1,2,0]*sqrt(2)", False), (79, "0.189", "S[1,2,0]", False), (79, "0.361", "A[1,2,0]", False),
    (80, "0.238", "S[0,2,1]*sqrt(2)", False), (80, "0.168", "S[0,2,1]", False), (80, "0.290", "A[0,2,1]", False),
    (80, "0.226", "S[1,2,1]*sqrt(2)", False), (80, "0.160", "S[1,2,1]", False), (80, "0.350", "A[1,2,1]", False),
    (81, "0.823", "S[0,2,2]*sqrt(2)", False), (81, "0.582", "S[0,2,2]", False), (81, "0.438", "A[0,2,2]", False),
    (81, "−0.047", "S[1,2,2]*sqrt(2)", False), (81, "−0.033", "S[1,2,2]", False), (81, "0.289", "A[1,2,2]", False),
    (92, "0.708", "Attn[2,0]", False), (92, "0.259", "Attn[2,1]", False), (92, "0.337", "Attn[2,2]", False),
    (92, "0.533", "Attn[2,3]", False),
    (95, "0.760", "V[0,0]", False), (95, "0.927", "V[1,0]", False), (95, "0.532", "V[2,0]", False),
    (98, "0.272", "A[0,2,0]", False), (98, "0.760", "V[0,0]", False), (98, "0.290", "A[0,2,1]", False),
    (98, "0.927", "V[1,0]", False), (98, "0.438", "A[0,2,2]", False), (98, "0.532", "V[2,0]", False),
    (98, "0.709", "Attn[2,0]", True),
    (105, "2.118", "H1[2,0]", False), (105, "−0.057", "H1[2,1]", False), (105, "0.157", "H1[2,2]", False),
    (105, "1.833", "H1[2,3]", False),
    (111, "1.013", "mu1[2]", False), (112, "0.943", "var1[2]", False),
    (114, "1.138", "LN1[2,0]", False), (114, "−1.102", "LN1[2,1]", False), (114, "−0.881", "LN1[2,2]", False),
    (114, "0.845", "LN1[2,3]", False),
    (125, "0.373", "Z[2,0]", False), (125, "−0.735", "Z[2,1]", False), (125, "0.496", "Z[2,2]", False),
    (125, "0.207", "Z[2,3]", True), (125, "−1.192", "Z[2,4]", False), (125, "0.691", "Z[2,5]", False),
    (125, "0.989", "Z[2,6]", False), (125, "−0.970", "Z[2,7]", False),
    (130, "0.225", "mu2[2]", False), (130, "1.377", "var2[2]", False),
    (131, "1.188", "LN2[2,0]", False), (131, "−1.080", "LN2[2,1]", False), (131, "−0.896", "LN2[2,2]", False),
    (131, "0.787", "LN2[2,3]", False),
    (142, "0.077", "logits[the]", False), (142, "−0.720", "logits[cat]", False), (142, "0.901", "logits[sat]", False),
    (142, "−0.542", "logits[on]", False), (142, "0.094", "logits[mat]", False), (142, "−0.006", "logits[dog]", False),
    (143, "0.161", "p[the]", False), (143, "0.073", "p[cat]", False), (143, "0.367", "p[sat]", False),
    (143, "0.087", "p[on]", False), (143, "0.164", "p[mat]", False), (143, "0.148", "p[dog]", False),
    (145, "36.7%", "p[sat]", False), (145, "0.87%", "p[on]", True),
    (147, "0.087", "p[on]", False), (147, "2.442", "loss", True),
    (154, "0.087", "p[on]", False), (154, "−0.913", "grad_logits[on]", False),
    (159, "−0.913", "grad_logits[on]", False), (159, "1.188", "h_final[0]", False),
    (159, "−1.085", "grad_E[on,0]", False),
    (168, "0.989", "R[2,6]", False), (168, "0.114", "grad_F[2,3]", False), (168, "0.113", "grad_W_2[6,3]", False),
    (172, "0.063", "grad_b_1[5]", True), (172, "0.044", "grad_b_1[6]", False),
    (176, "−0.0813", "grad_W_V[0,0]", False), (176, "−0.0371", "grad_W_V[0,1]", True),
    (180, "−0.0371", "grad_W_V[1,0]", False), (180, "−0.0066", "grad_W_V[1,1]", False),
    (182, "0.0036", "grad_W_Q[0,0]", False),
    (188, "0.01", "adamw.lr", False), (188, "0.9", "adamw.beta1", False), (188, "0.999", "adamw.beta2", False),
    (188, "10−8", "adamw.eps", False), (189, "0.01", "adamw.weight_decay", False),
    (201, "0.40", "W_Q[0,0]", False), (201, "−0.30", "W_2[5,3]", False), (201, "0.10", "E[on,0]", False),
    (202, "0.003564", "grad_W_Q[0,0]", False), (202, "0.078812", "grad_W_2[5,3]", False),
    (202, "−1.084993", "grad_E[on,0]", False),
    (203, "0.000356", "adamw[1].m[W_Q,0,0]", False), (203, "0.007881", "adamw[1].m[W_2,5,3]", False),
    (203, "−0.108499", "adamw[1].m[E,on,0]", False),
    (204, "1.270 × 10−8", "adamw[1].v[W_Q,0,0]", False), (204, "6.211 × 10−6", "adamw[1].v[W_2,5,3]", False),
    (204, "1.177 × 10−3", "adamw[1].v[E,on,0]", False),
    (205, "0.003564", "adamw[1].mhat[W_Q,0,0]", False), (205, "0.078812", "adamw[1].mhat[W_2,5,3]", False),
    (205, "−1.084993", "adamw[1].mhat[E,on,0]", False),
    (206, "1.270 × 10−5", "adamw[1].vhat[W_Q,0,0]", False), (206, "6.211 × 10−3", "adamw[1].vhat[W_2,5,3]", False),
    (206, "1.177", "adamw[1].vhat[E,on,0]", False),
    (207, "0.390000", "adamw[1].W_Q[0,0]", True), (207, "−0.309970", "adamw[1].W_2[5,3]", False),
    (207, "0.109990", "adamw[1].E[on,0]", False),
    (212, "−0.30", "W_2[5,3]", False), (212, "0.01", "adamw.lr", False),
    (212, "0.078812", "adamw[1].mhat[W_2,5,3]", False), (212, "0.078812", "sqrt(adamw[1].vhat[W_2,5,3])", False),
    (212, "10−8", "adamw.eps", False), (212, "0.01", "adamw.lr", False), (212, "0.01", "adamw.weight_decay", False),
    (212, "−0.30", "W_2[5,3]", False),
    (213, "−0.30", "W_2[5,3]", False), (213, "0.010000", "adamw[1].update[W_2,5,3]", False),
    (213, "0.000030", "-adamw[1].decay[W_2,5,3]", False), (213, "−0.309970", "adamw[1].W_2[5,3]", False),
    (215, "0.01", "adamw.lr", False),
    (217, "2.348", "adamw[1].loss", False),
]


def parse_printed(text: str):
    """(mantissa text, power of ten, is percent) of a printed figure: '1.270 × 10−8', '36.7%', '−0.30'."""
    t = text.replace("−", "-")
    pct = t.endswith("%")
    t = t.rstrip("%")
    m = re.fullmatch(r"(-?[0-9.]+) × 10(-?[0-9]+)", t)
    if m:
        return m.group(1), int(m.group(2)), pct
    m = re.fullmatch(r"10(-?[0-9]+)", t)
    if m:
        return "1", int(m.group(1)), pct
    return t, 0, pct


def check_figures(vals) -> int:
    lines = None
    pdf = HERE / "DOC.pdf"
    try:
        import subprocess
        lines = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                               check=True).stdout.split("\n")
    except Exception:                                   # no poppler: check the values only
        pass
    bad = 0
    for line, printed, ref, planted in FIGURES:
        neg = ref.startswith("-")
        v = vals[ref.lstrip("-")] * (-1 if neg else 1)
        mant, exp, pct = parse_printed(printed)
        if pct:
            v = v * 100
        v = v / mp.mpf(10) ** exp
        places = len(mant.split(".")[1]) if "." in mant else 0
        right = rnd(v, places)
        ok = (right != mant) if planted else (right == mant)
        if lines is not None and printed not in lines[line - 1]:
            print(f"  line {line}: {printed!r} not found in {lines[line - 1]!r}")
            ok = False
        if not ok:
            bad += 1
            print(f"  FIGURE {printed} (line {line}, {ref}): exact {mp.nstr(v, 12)}, rounds to {right}, planted={planted}")
    planted = sum(f[3] for f in FIGURES)
    print(f"{len(FIGURES)} printed figures checked ({planted} planted, "
          f"{sum(1 for f in FIGURES if not f[3] and not f[2].startswith(('d', 'ln_eps', 'adamw.', 'sqrt(2)')))} "
          f"correct figures of model quantities)" + ("" if lines is not None else " (no pdftotext: lines not checked)"))
    return bad


def check_key(vals) -> int:
    bad = 0
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        shown_n = shown.rstrip("%").replace("−", "-")
        places = len(shown_n.split(".")[1]) if "." in shown_n else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (shown.replace("−", "-") == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != printed.replace("−", "-"))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed.replace("−", "-") else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>12}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    return bad


def main() -> int:
    if "--fd" in sys.argv:
        fd_check()
        return 0
    vals = values()
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(f"{k:<34} {mp.nstr(v, 20)}")
        return 0
    print("KEY.md rows:")
    bad = check_key(vals)
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print("all key rows agree with the oracle")
    print("every figure of the handout:")
    badf = check_figures(vals)
    assert badf == 0, f"{badf} printed figures disagree with the oracle"
    print("every unplanted figure is the correct rounding, every planted one is not")
    return 0


if __name__ == "__main__":
    sys.exit(main())
