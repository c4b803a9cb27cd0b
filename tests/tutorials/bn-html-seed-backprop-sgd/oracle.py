#!/usr/bin/env python3
"""Independent oracle for bn-html-seed-backprop-sgd (plain mpmath at 50 digits; no symgpt).

    python oracle.py

Model (SPEC.toml): one-layer, one-head post-LN transformer, V = 6, d = 2, d_ff = 4, T = 3,
sinusoidal positions (base 10000), ln_eps = 1e-5, gamma = 1, beta = 0 (not trained), tied head
(logits = LN2[T-1]·Eᵀ), loss = -ln p[target] at the last position only.
Backpropagation is written out by hand (softmax+CE, LayerNorm, FFN with ReLU'(0) = 0, causal
softmax attention, projections, embedding lookup); one SGD step θ - 0.1·g on every trainable
parameter (E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2), then a second forward pass.

The program
  1. checks every figure of a model quantity that DOC.html prints (FIGURES below: line, text,
     quantity) -- each must be the correct rounding (half away from zero) of its exact value,
     except the 8 planted ones;
  2. prints every row of KEY.md with its quantity's exact value and asserts that the key's
     "exact value" and "correct rounding" columns (planted rows) and the printed figure
     (correct rows) agree with it.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["<pad>", "<bos>", "আমি", "তোমাকে", "ভালো", "বাসি"]
INPUT = [2, 3, 4]
TARGET = 5
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
D, T, DFF = 2, 3, 4


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


P0 = {
    "E": M([[0.0, 0.0], [0.1, -0.1], [0.4, 0.3], [-0.2, 0.6], [0.5, -0.4], [-0.3, 0.7]]),
    "W_Q": M([[0.6, -0.2], [0.3, 0.5]]),
    "W_K": M([[0.4, 0.1], [-0.3, 0.7]]),
    "W_V": M([[0.5, 0.2], [-0.1, 0.8]]),
    "W_1": M([[0.4, -0.3, 0.2, 0.6], [-0.5, 0.1, 0.3, -0.2]]),
    "b_1": M([0.1, 0.05, -0.2, 0.0]),
    "W_2": M([[0.3, -0.4], [0.2, 0.1], [-0.5, 0.6], [0.4, 0.2]]),
    "b_2": M([0.05, -0.05]),
}


def vecmat(x, W):
    return [mp.fsum(x[i] * W[i][j] for i in range(len(x))) for j in range(len(W[0]))]


def layernorm_row(h):
    mu = mp.fsum(h) / len(h)
    var = mp.fsum((x - mu) ** 2 for x in h) / len(h)
    s = mp.sqrt(var + EPS)
    return mu, var, s, [(x - mu) / s for x in h]


def forward(P):
    X = [P["E"][i][:] for i in INPUT]
    PE = [[mp.sin(mp.mpf(t)), mp.cos(mp.mpf(t))] for t in range(T)]   # d = 2: one frequency, base^0 = 1
    H0 = [[X[t][j] + PE[t][j] for j in range(D)] for t in range(T)]
    Q = [vecmat(H0[t], P["W_Q"]) for t in range(T)]
    K = [vecmat(H0[t], P["W_K"]) for t in range(T)]
    V = [vecmat(H0[t], P["W_V"]) for t in range(T)]
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(D)) / mp.sqrt(D) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = [[mp.fsum(A[t][s] * V[s][j] for s in range(T)) for j in range(D)] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    L1 = [layernorm_row(H1[t]) for t in range(T)]
    LN1 = [l[3] for l in L1]
    Z = [[z + b for z, b in zip(vecmat(LN1[t], P["W_1"]), P["b_1"])] for t in range(T)]
    R = [[z if z > 0 else mp.mpf(0) for z in Z[t]] for t in range(T)]
    F = [[f + b for f, b in zip(vecmat(R[t], P["W_2"]), P["b_2"])] for t in range(T)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    L2 = [layernorm_row(H2[t]) for t in range(T)]
    LN2 = [l[3] for l in L2]
    hf = LN2[T - 1]
    logits = [mp.fsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    ex = [mp.exp(z) for z in logits]
    se = mp.fsum(ex)
    p = [e / se for e in ex]
    return dict(X=X, PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1,
                mu1=[l[0] for l in L1], var1=[l[1] for l in L1], sd1=[l[2] for l in L1], LN1=LN1,
                Z=Z, R=R, F=F, H2=H2, mu2=[l[0] for l in L2], var2=[l[1] for l in L2],
                sd2=[l[2] for l in L2], LN2=LN2, h_final=hf, logits=logits, exp=ex, sum_exp=se, p=p,
                loss=-mp.log(p[TARGET]))


def layernorm_back(g, s, xhat):
    n = len(g)
    mg = mp.fsum(g) / n
    mgx = mp.fsum(g[i] * xhat[i] for i in range(n)) / n
    return [(g[i] - mg - xhat[i] * mgx) / s for i in range(n)]


def backward(P, f):
    nV, t = len(VOCAB), T - 1
    glog = [f["p"][v] - (1 if v == TARGET else 0) for v in range(nV)]
    hf = f["h_final"]
    gE_head = [[glog[v] * hf[j] for j in range(D)] for v in range(nV)]
    ghf = [mp.fsum(glog[v] * P["E"][v][j] for v in range(nV)) for j in range(D)]
    gH2 = layernorm_back(ghf, f["sd2"][t], f["LN2"][t])          # only the last row has a gradient
    gF = gH2
    gR = [mp.fsum(gF[j] * P["W_2"][k][j] for j in range(D)) for k in range(DFF)]
    gW2 = [[f["R"][t][k] * gF[j] for j in range(D)] for k in range(DFF)]
    gZ = [gR[k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(DFF)]
    gW1 = [[f["LN1"][t][i] * gZ[k] for k in range(DFF)] for i in range(D)]
    gLN1 = [gH2[j] + mp.fsum(gZ[k] * P["W_1"][j][k] for k in range(DFF)) for j in range(D)]
    gH1 = layernorm_back(gLN1, f["sd1"][t], f["LN1"][t])
    gAttn = gH1
    gA = [mp.fsum(gAttn[j] * f["V"][s][j] for j in range(D)) for s in range(T)]
    gV = [[f["A"][t][s] * gAttn[j] for j in range(D)] for s in range(T)]
    dot = mp.fsum(f["A"][t][s] * gA[s] for s in range(T))
    gS = [f["A"][t][s] * (gA[s] - dot) for s in range(T)]
    gQ = [mp.fsum(gS[s] * f["K"][s][j] for s in range(T)) / mp.sqrt(D) for j in range(D)]
    gK = [[gS[s] * f["Q"][t][j] / mp.sqrt(D) for j in range(D)] for s in range(T)]
    gWQ = [[f["H0"][t][i] * gQ[j] for j in range(D)] for i in range(D)]
    gWK = [[mp.fsum(f["H0"][s][i] * gK[s][j] for s in range(T)) for j in range(D)] for i in range(D)]
    gWV = [[mp.fsum(f["H0"][s][i] * gV[s][j] for s in range(T)) for j in range(D)] for i in range(D)]
    gH0 = [[mp.mpf(0)] * D for _ in range(T)]
    for s in range(T):
        for i in range(D):
            gH0[s][i] = mp.fsum(gK[s][j] * P["W_K"][i][j] + gV[s][j] * P["W_V"][i][j] for j in range(D))
            if s == t:
                gH0[s][i] += gH1[i] + mp.fsum(gQ[j] * P["W_Q"][i][j] for j in range(D))
    gE = [row[:] for row in gE_head]
    for s in range(T):
        for j in range(D):
            gE[INPUT[s]][j] += gH0[s][j]
    return dict(logits=glog, E_head=gE_head, h_final=ghf, E=gE, W_Q=gWQ, W_K=gWK, W_V=gWV,
                W_1=gW1, b_1=gZ, W_2=gW2, b_2=gF)


def sgd_step(P, g):
    def upd(a, b):
        return [upd(x, y) for x, y in zip(a, b)] if isinstance(a, list) else a - LR * b
    return {k: upd(P[k], g[k]) for k in P}


# ---------------------------------------------------------------- every quantity, by symgpt's name

def quantities():
    f = forward(P0)
    g = backward(P0, f)
    P1 = sgd_step(P0, g)
    f1 = forward(P1)
    q = {}
    tok = lambda v: VOCAB[v]
    for name in ("PE", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "Z", "R", "F", "H2", "LN1", "LN2"):
        for t, row in enumerate(f[name]):
            for j, x in enumerate(row):
                q[f"{name}[{t},{j}]"] = x
    for name in ("A_den", "mu1", "var1", "mu2", "var2"):
        for t, x in enumerate(f[name]):
            q[f"{name}[{t}]"] = x
    for t in range(T):
        q[f"sqrt(var1[{t}] + ln_eps)"] = f["sd1"][t]
        q[f"sqrt(var2[{t}] + ln_eps)"] = f["sd2"][t]
        for s in range(t + 1):
            q[f"exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
    for v in range(len(VOCAB)):
        q[f"logits[{tok(v)}]"] = f["logits"][v]
        q[f"exp(logits[{tok(v)}])"] = f["exp"][v]
        q[f"p[{tok(v)}]"] = f["p"][v]
        q[f"grad_logits[{tok(v)}]"] = g["logits"][v]
        q[f"sgd[1].logits[{tok(v)}]"] = f1["logits"][v]
        q[f"sgd[1].p[{tok(v)}]"] = f1["p"][v]
        for j in range(D):
            q[f"grad_E_head[{tok(v)},{j}]"] = g["E_head"][v][j]
            q[f"grad_E[{tok(v)},{j}]"] = g["E"][v][j]
            q[f"sgd[1].E[{tok(v)},{j}]"] = P1["E"][v][j]
    for j in range(D):
        q[f"h_final[{j}]"] = f["h_final"][j]
        q[f"grad_h_final[{j}]"] = g["h_final"][j]
    for name in ("W_Q", "W_K", "W_V"):
        for i in range(D):
            for j in range(D):
                q[f"grad_{name}[{i},{j}]"] = g[name][i][j]
                q[f"sgd[1].{name}[{i},{j}]"] = P1[name][i][j]
    for t in range(T):                      # unscaled dot products q_t·k_s = S[t,s]·√2
        for s in range(T):
            q[f"S[{t},{s}]*sqrt(2)"] = f["S"][t][s] * mp.sqrt(2)
    q["sum_exp"] = f["sum_exp"]
    q["loss"] = f["loss"]
    q["sgd[1].loss"] = f1["loss"]
    return q


# ---------------------------------------------------------------- the figures DOC.html prints

# (line, printed text, quantity). Percent figures are quantity × 100; "sci3" = 3 significant digits.
FIGURES = [
    (48, "0.0000", "PE[0,0]"), (48, "1.0000", "PE[0,1]"), (48, "0.4000", "H0[0,0]"), (48, "1.3000", "H0[0,1]"),
    (49, "0.8415", "PE[1,0]"), (49, "0.5403", "PE[1,1]"), (49, "0.6415", "H0[1,0]"), (49, "1.1403", "H0[1,1]"),
    (50, "0.9093", "PE[2,0]"), (50, "-0.4161", "PE[2,1]"), (50, "1.4093", "H0[2,0]"), (50, "-0.8161", "H0[2,1]"),
    (59, "1.4093", "H0[2,0]"), (59, "−0.8161", "H0[2,1]"), (59, "0.6007", "Q[2,0]"), (59, "−0.6899", "Q[2,1]"),
    (63, "0.6300", "Q[0,0]"), (63, "0.5700", "Q[0,1]"), (63, "-0.2300", "K[0,0]"), (63, "0.9500", "K[0,1]"),
    (63, "0.0700", "V[0,0]"), (63, "1.1200", "V[0,1]"),
    (64, "0.7270", "Q[1,0]"), (64, "0.4419", "Q[1,1]"), (64, "-0.0855", "K[1,0]"), (64, "0.8642", "K[1,1]"),
    (64, "0.2067", "V[1,0]"), (64, "1.0405", "V[1,1]"),
    (65, "0.6007", "Q[2,0]"), (65, "-0.6899", "Q[2,1]"), (65, "0.8086", "K[2,0]"), (65, "-0.4304", "K[2,1]"),
    (65, "0.7863", "V[2,0]"), (65, "-0.3711", "V[2,1]"),
    (72, "0.6007", "Q[2,0]"), (72, "−0.2300", "K[0,0]"), (72, "−0.6899", "Q[2,1]"), (72, "0.9500", "K[0,1]"),
    (72, "−0.7936", "S[2,0]*sqrt(2)"),
    (73, "−0.6463", "S[2,1]*sqrt(2)"), (73, "0.7827", "S[2,2]*sqrt(2)"),
    (78, "0.2804", "S[0,0]"), (79, "0.3095", "S[1,0]"), (79, "0.2255", "S[1,1]"),
    (80, "-0.5612", "S[2,0]"), (80, "-0.4570", "S[2,1]"), (80, "0.5534", "S[2,2]"),
    (86, "−0.5612", "S[2,0]"), (86, "0.5705", "exp(S[2,0])"), (86, "−0.4570", "S[2,1]"),
    (86, "0.6332", "exp(S[2,1])"), (86, "0.5534", "S[2,2]"), (86, "1.7392", "exp(S[2,2])"), (86, "2.9429", "A_den[2]"),
    (87, "0.5705", "exp(S[2,0])"), (87, "2.9429", "A_den[2]"), (87, "0.1939", "A[2,0]"),
    (88, "0.6332", "exp(S[2,1])"), (88, "2.9429", "A_den[2]"), (88, "0.2152", "A[2,1]"),
    (89, "1.7392", "exp(S[2,2])"), (89, "2.9429", "A_den[2]"), (89, "0.5910", "A[2,2]"),
    (94, "100.0%", "A[0,0]"), (95, "48.8%", "A[1,0]"), (95, "51.2%", "A[1,1]"),
    (96, "19.4%", "A[2,0]"), (96, "21.5%", "A[2,1]"), (96, "59.1%", "A[2,2]"),
    (104, "0.5227", "Attn[2,0]"), (104, "0.2217", "Attn[2,1]"),
    (105, "1.4093", "H0[2,0]"), (105, "0.5227", "Attn[2,0]"), (105, "−0.8161", "H0[2,1]"), (105, "0.2217", "Attn[2,1]"),
    (105, "1.9320", "H1[2,0]"), (105, "−0.5944", "H1[2,1]"),
    (110, "1.9320", "H1[2,0]"), (110, "−0.5944", "H1[2,1]"), (110, "0.6688", "mu1[2]"),
    (111, "1.5957", "var1[2]"), (111, "1.2632", "sqrt(var1[2] + ln_eps)"),
    (112, "0.999997", "LN1[2,0]"), (112, "−0.999997", "LN1[2,1]"),
    (121, "0.999997", "Z[2,0]"), (122, "−0.349999", "Z[2,1]"), (123, "−0.300000", "Z[2,2]"), (124, "0.799997", "Z[2,3]"),
    (126, "1.0000", "R[2,0]"), (126, "0.8000", "R[2,3]"),
    (127, "1.0000", "R[2,0]"), (127, "0.8000", "R[2,3]"), (127, "0.6700", "F[2,0]"),
    (128, "1.0000", "R[2,0]"), (128, "0.8000", "R[2,3]"), (128, "−0.2400", "F[2,1]"),
    (129, "1.6700", "H2[2,0]"), (129, "−1.2900", "H2[2,1]"),
    (137, "0.1900", "mu2[2]"), (138, "2.1904", "var2[2]"), (139, "1.4800", "sqrt(var2[2] + ln_eps)"),
    (140, "0.999998", "LN2[2,0]"), (141, "-0.999998", "LN2[2,1]"),
    (148, "0.999998", "LN2[2,0]"), (148, "−0.999998", "LN2[2,1]"), (148, "-0.999998", "logits[বাসি]"),
    (152, "0.000000", "logits[<pad>]"), (152, "1.0000", "exp(logits[<pad>])"), (152, "0.1514", "p[<pad>]"),
    (153, "0.200000", "logits[<bos>]"), (153, "1.2214", "exp(logits[<bos>])"), (153, "0.1850", "p[<bos>]"),
    (154, "0.100000", "logits[আমি]"), (154, "1.1052", "exp(logits[আমি])"), (154, "0.1674", "p[আমি]"),
    (155, "-0.799998", "logits[তোমাকে]"), (155, "0.4494", "exp(logits[তোমাকে])"), (155, "0.0680", "p[তোমাকে]"),
    (156, "0.899998", "logits[ভালো]"), (156, "2.4596", "exp(logits[ভালো])"), (156, "0.3725", "p[ভালো]"),
    (157, "-0.999998", "logits[বাসি]"), (157, "0.3679", "exp(logits[বাসি])"), (157, "0.0557", "p[বাসি]"),
    (159, "6.6034", "sum_exp"), (159, "0.0557%", "p[বাসি]"),
    (160, "0.0557", "p[বাসি]"), (160, "2.8878", "loss"),
    (166, "0.1514", "grad_logits[<pad>]"), (166, "0.1850", "grad_logits[<bos>]"), (166, "0.1674", "grad_logits[আমি]"),
    (166, "0.0680", "grad_logits[তোমাকে]"), (166, "0.3725", "grad_logits[ভালো]"), (166, "−0.9443", "grad_logits[বাসি]"),
    (176, "0.1514", "grad_E_head[<pad>,0]"), (176, "0.1850", "grad_E_head[<bos>,0]"), (176, "0.1674", "grad_E_head[আমি,0]"),
    (176, "0.0680", "grad_E_head[তোমাকে,0]"), (176, "0.3725", "grad_E_head[ভালো,0]"), (176, "-0.9443", "grad_E_head[বাসি,0]"),
    (177, "-0.1514", "grad_E_head[<pad>,1]"), (177, "-0.1850", "grad_E_head[<bos>,1]"), (177, "-0.1674", "grad_E_head[আমি,1]"),
    (177, "-0.0680", "grad_E_head[তোমাকে,1]"), (177, "-0.3725", "grad_E_head[ভালো,1]"), (177, "0.9443", "grad_E_head[বাসি,1]"),
    (179, "0.5414", "grad_h_final[0]"), (179, "−0.7375", "grad_h_final[1]"),
    (188, "6.67 × 10<sup>-12</sup>", "grad_W_Q[0,0]"), (188, "-9.21 × 10<sup>-12</sup>", "grad_W_Q[0,1]"),
    (189, "-3.86 × 10<sup>-12</sup>", "grad_W_Q[1,0]"), (189, "5.33 × 10<sup>-12</sup>", "grad_W_Q[1,1]"),
    (191, "-3.01e-12", "grad_W_K[0,1]"), (191, "6.87e-12", "grad_W_K[1,1]"),
    (197, "−0.9443", "grad_E[বাসি,0]"), (197, "0.9443", "grad_E[বাসি,1]"),
    (197, "−0.3944", "sgd[1].E[বাসি,0]"), (197, "0.6056", "sgd[1].E[বাসি,1]"),
    (198, "0.599999999999333", "sgd[1].W_Q[0,0]"),
    (203, "0.9000", "logits[ভালো]"), (203, "0.8255", "sgd[1].logits[ভালো]"),
    (204, "-1.0000", "logits[বাসি]"), (204, "-0.8111", "sgd[1].logits[বাসি]"),
    (205, "0.0557", "p[বাসি]"), (205, "0.0696", "sgd[1].p[বাসি]"),
    (207, "2.6653", "sgd[1].loss"),
]
PLANTED = {(64, "0.8642"), (88, "0.2152"), (79, "0.3095"), (128, "−0.2400"), (155, "0.4494"),
           (159, "0.0557%"), (160, "2.8878"), (197, "−0.3944")}


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s


def norm(text: str) -> str:
    return text.replace("−", "-")


def correct_text(printed: str, v) -> str:
    """The correct rounding of v in the printed figure's own format."""
    p = norm(printed)
    m = re.fullmatch(r"(-?\d+\.(\d+)) × 10<sup>(-?\d+)</sup>", p) or re.fullmatch(r"(-?\d+\.(\d+))e(-?\d+)", p)
    if m:                                          # scientific: mantissa at its printed places
        e = int(m.group(3))
        mant = rnd(v / mp.mpf(10) ** e, len(m.group(2)))
        return p.replace(m.group(1), mant, 1)
    if p.endswith("%"):
        places = len(p[:-1].split(".")[1]) if "." in p else 0
        return rnd(100 * v, places) + "%"
    places = len(p.split(".")[1]) if "." in p else 0
    r = rnd(v, places)
    return r


def check_doc(q) -> int:
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    bad = 0
    for line, printed, ref in FIGURES:
        if printed not in lines[line - 1]:
            print(f"  line {line}: {printed!r} NOT FOUND on that line")
            bad += 1
            continue
        right = correct_text(printed, q[ref])
        ok = right == norm(printed)
        planted = (line, printed) in PLANTED
        if ok == planted:
            print(f"  line {line}: {printed} {ref} = {mp.nstr(q[ref], 15)} -> {right}  "
                  f"{'PLANTED BUT CORRECT' if planted else 'WRONG'}")
            bad += 1
    found = {(l, p) for l, p, _ in FIGURES} & PLANTED
    if found != PLANTED:
        print("  planted figures missing from FIGURES:", PLANTED - found)
        bad += 1
    print(f"DOC.html: {len(FIGURES)} figures checked, {len(PLANTED)} planted, {bad} problems")
    return bad


def check_key(q) -> int:
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = q[ref]
        line = int(cells[1])
        doc_line = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()[line - 1]
        assert printed in doc_line, f"{printed!r} not on line {line}"
        if len(cells) == 7:
            shown = cells[4].strip("`")
            right = correct_text(shown, v)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-").rstrip("%"))
            vv = 100 * v if shown.endswith("%") else v
            ok = right == norm(shown) and abs(exact - vv) <= mp.mpf("1e-10") * abs(vv) and right != norm(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            right = correct_text(printed, v)
            note = "correct" if right == norm(printed) else "NOT THE CORRECT ROUNDING"
            correct += 1
        bad += note.isupper()
        print(f"  {printed:>12}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"  expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    return bad


def main() -> int:
    q = quantities()
    bad = check_doc(q)
    print("KEY.md:")
    bad += check_key(q)
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
