#!/usr/bin/env python3
"""Independent oracle for fi-md-seed-T3-adamw (plain mpmath at 50 digits; symgpt is not imported).

    python oracle.py    # every KEY.md row: its quantity, exact value, and a check of the key's columns;
                        # then an audit of every figure DOC.md prints (listed in DOC_FIGURES below)

Model (the seed's wiring): post-LN block, one head, d = 2, d_ff = 4, tied head, ln_eps = 1e-5,
PE[t] = (sin t, cos t) for d = 2; H0 = E[ids] + PE; Q, K, V = H0·W; S = Q·Kᵀ/√2; causal softmax A;
Attn = A·V; H1 = H0 + Attn; LN1 (biased variance); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2;
H2 = LN1 + F; LN2; h = LN2[T-1]; logits = E·h; p = softmax; loss = -ln p[target].
Backward: hand-written reverse mode (checked here against central differences at h = 1e-20).
AdamW: torch.optim.AdamW, first step, decoupled decay on every parameter:
m = (1-b1) g, v = (1-b2) g², m̂ = m/(1-b1), v̂ = v/(1-b2), update = lr·m̂/(√v̂ + eps), decay = lr·wd·θ,
θ' = θ - decay - update.  Rounding is half away from zero on the exact value.
"""
from __future__ import annotations

import copy
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["<pad>", "kissa", "juo", "kylmää", "maitoa", "vettä"]
IDS, TGT = [1, 2, 3], 4
EPS_LN = mp.mpf("1e-5")
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = dict(
    E=M([[0.0, 0.0], [0.3, -0.2], [-0.1, 0.4], [0.5, 0.1], [0.2, -0.6], [-0.4, 0.3]]),
    W_Q=M([[0.4, -0.3], [0.2, 0.5]]), W_K=M([[0.1, 0.6], [-0.5, 0.2]]), W_V=M([[0.3, 0.2], [-0.1, 0.4]]),
    W_1=M([[0.5, -0.2, 0.3, -0.4], [-0.1, 0.6, -0.3, 0.2]]), b_1=M([0.1, -0.1, 0.05, 0.0]),
    W_2=M([[0.4, -0.2], [-0.3, 0.5], [0.2, 0.1], [0.1, -0.3]]), b_2=M([0.0, 0.0]))


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + EPS_LN) for j in range(d)] for r, m, v in zip(H, mu, var)]


def forward(P):
    E, WQ, WK, WV, W1, b1, W2, b2 = (P[k] for k in ("E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"))
    T, d = len(IDS), 2
    PE = [[mp.sin(t), mp.cos(t)] for t in range(T)]          # d = 2: one frequency, base^0 = 1
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = mm(H0, WQ), mm(H0, WK), mm(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = mm(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, b1)] for r in mm(LN1, W1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in mm(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, h_final=h, logits=logits,
                sum_exp=se, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    E, WQ, WK, WV, W1, W2 = (P[k] for k in ("E", "W_Q", "W_K", "W_V", "W_1", "W_2"))
    T, d, V, dff = len(IDS), 2, len(E), 4
    g = {}
    gl = [f["p"][v] - (1 if v == TGT else 0) for v in range(V)]
    g["logits"] = gl
    g["E_head"] = [[gl[v] * f["h_final"][j] for j in range(d)] for v in range(V)]
    gh = [mp.fsum(gl[v] * E[v][j] for v in range(V)) for j in range(d)]
    g["h_final"] = gh

    def ln_back(Y, var, gY):
        out = []
        for t in range(T):
            s = mp.sqrt(var[t] + EPS_LN)
            m1 = mp.fsum(gY[t]) / d
            m2 = mp.fsum(gY[t][j] * Y[t][j] for j in range(d)) / d
            out.append([(gY[t][j] - m1 - Y[t][j] * m2) / s for j in range(d)])
        return out

    gLN2 = [[mp.mpf(0)] * d for _ in range(T)]
    gLN2[T - 1] = gh[:]
    gH2 = ln_back(f["LN2"], f["var2"], gLN2)
    gF = gH2
    g["W_2"] = [[mp.fsum(f["R"][t][k] * gF[t][j] for t in range(T)) for j in range(d)] for k in range(dff)]
    g["b_2"] = [mp.fsum(gF[t][j] for t in range(T)) for j in range(d)]
    gR = [[mp.fsum(gF[t][j] * W2[k][j] for j in range(d)) for k in range(dff)] for t in range(T)]
    gZ = [[gR[t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(dff)] for t in range(T)]
    g["W_1"] = [[mp.fsum(f["LN1"][t][j] * gZ[t][k] for t in range(T)) for k in range(dff)] for j in range(d)]
    g["b_1"] = [mp.fsum(gZ[t][k] for t in range(T)) for k in range(dff)]
    gLN1 = [[gH2[t][j] + mp.fsum(gZ[t][k] * W1[j][k] for k in range(dff)) for j in range(d)] for t in range(T)]
    gH1 = ln_back(f["LN1"], f["var1"], gLN1)
    gA = [[mp.fsum(gH1[t][j] * f["V"][s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    gV = [[mp.fsum(f["A"][t][s] * gH1[t][j] for t in range(T)) for j in range(d)] for s in range(T)]
    gS = [[f["A"][t][s] * (gA[t][s] - mp.fsum(f["A"][t][u] * gA[t][u] for u in range(T))) for s in range(T)]
          for t in range(T)]
    rd = mp.sqrt(d)
    gQ = [[mp.fsum(gS[t][s] * f["K"][s][j] for s in range(T)) / rd for j in range(d)] for t in range(T)]
    gK = [[mp.fsum(gS[t][s] * f["Q"][t][j] for t in range(T)) / rd for j in range(d)] for s in range(T)]
    H0 = f["H0"]
    for nm, G in (("W_Q", gQ), ("W_K", gK), ("W_V", gV)):
        g[nm] = [[mp.fsum(H0[t][i] * G[t][j] for t in range(T)) for j in range(d)] for i in range(d)]
    gH0 = [[gH1[t][j] + mp.fsum(gQ[t][k] * WQ[j][k] + gK[t][k] * WK[j][k] + gV[t][k] * WV[j][k] for k in range(d))
            for j in range(d)] for t in range(T)]
    gE = [r[:] for r in g["E_head"]]
    for t, i in enumerate(IDS):
        for j in range(d):
            gE[i][j] += gH0[t][j]
    g["E"] = gE
    g["X"] = gH0
    return g


def entries(A):
    if isinstance(A[0], list):
        return [((i, j), A[i][j]) for i in range(len(A)) for j in range(len(A[0]))]
    return [((i,), A[i]) for i in range(len(A))]


def adamw_step(P, g):
    new, st = {}, {}
    for name, A in P.items():
        B = copy.deepcopy(A)
        for idx, th in entries(A):
            gr = g[name][idx[0]][idx[1]] if len(idx) == 2 else g[name][idx[0]]
            m, v = (1 - B1) * gr, (1 - B2) * gr * gr
            mh, vh = m / (1 - B1), v / (1 - B2)
            upd = LR * mh / (mp.sqrt(vh) + EPS)
            dec = LR * WD * th
            nv = th - dec - upd
            st[(name,) + idx] = dict(m=m, v=v, mhat=mh, vhat=vh, update=upd, decay=dec, new=nv)
            if len(idx) == 2:
                B[idx[0]][idx[1]] = nv
            else:
                B[idx[0]] = nv
        new[name] = B
    return st, new


def compute():
    f = forward(PARAMS)
    g = backward(PARAMS, f)
    st, newP = adamw_step(PARAMS, g)
    f1 = forward(newP)
    val = {}
    tok = lambda v: VOCAB[v]
    for nm in ("PE", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for (i, j), x in entries(f[nm]):
            val[f"{nm}[{i},{j}]"] = x
    for nm in ("A_den", "mu1", "var1", "mu2", "var2", "h_final"):
        for (i,), x in entries(f[nm]):
            val[f"{nm}[{i}]"] = x
    for v in range(6):
        val[f"logits[{tok(v)}]"] = f["logits"][v]
        val[f"p[{tok(v)}]"] = f["p"][v]
        val[f"grad_logits[{tok(v)}]"] = g["logits"][v]
        val[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
        val[f"adamw[1].p[{tok(v)}]"] = f1["p"][v]
        for j in range(2):
            val[f"grad_E_head[{tok(v)},{j}]"] = g["E_head"][v][j]
            val[f"grad_E[{tok(v)},{j}]"] = g["E"][v][j]
    for j in range(2):
        val[f"grad_h_final[{j}]"] = g["h_final"][j]
        for t in range(3):
            val[f"grad_X[{t},{j}]"] = g["X"][t][j]
    for t in range(3):
        for s_ in range(3):
            val[f"exp(S[{t},{s_}])"] = mp.exp(f["S"][t][s_])
    val["sum_exp"], val["loss"], val["adamw[1].loss"] = f["sum_exp"], f["loss"], f1["loss"]
    val["loss - adamw[1].loss"] = f["loss"] - f1["loss"]
    val["sqrt(var1[2] + ln_eps)"] = mp.sqrt(f["var1"][2] + EPS_LN)
    val["sqrt(var2[2] + ln_eps)"] = mp.sqrt(f["var2"][2] + EPS_LN)
    for nm in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"):
        for idx, x in entries(g[nm]):
            val[f"grad_{nm}[{','.join(map(str, idx))}]"] = x
    for key, s in st.items():
        name, idx = key[0], list(key[1:])
        if name == "E":
            idx[0] = tok(idx[0])
        ix = ",".join(map(str, idx))
        for q in ("m", "v", "mhat", "vhat", "update", "decay"):
            val[f"adamw[1].{q}[{name},{ix}]"] = s[q]
        val[f"adamw[1].{name}[{ix}]"] = s["new"]
    return val, f, g


# ---------------------------------------------------------------- reading the document's number formats

SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def parse(text: str):
    """A printed figure → (Decimal value of the text, decimals of its mantissa, exponent, percent?)."""
    t = text.strip().strip("`").replace("{,}", ",").replace("\u2212", "-").replace("\u00a0", " ")
    pct = t.endswith("%")
    t = t.rstrip("%").strip()
    exp = 0
    m = re.fullmatch(r"(-?\d+(?:,\d+)?)\s*(?:·|\\cdot|×|\\times)\s*10\^?\{?([-⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)\}?", t)
    if m:
        t, exp = m.group(1), int(m.group(2).translate(SUP))
    mant = t.replace(",", ".")
    dec = len(mant.split(".")[1]) if "." in mant else 0
    return Decimal(mant), dec, exp, pct


def rounded(v, dec: int, exp: int) -> Decimal:
    scaled = v / mp.mpf(10) ** exp
    d = Decimal(mp.nstr(scaled, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return d.quantize(Decimal(1).scaleb(-dec), rounding=ROUND_HALF_UP)


def correct(text: str, v) -> tuple[bool, Decimal]:
    mant, dec, exp, pct = parse(text)
    r = rounded(v * (100 if pct else 1), dec, exp)
    return r == mant, r


# ---------------------------------------------------------------- every figure DOC.md prints (audit)
# (printed text, quantity); planted errors are the KEY's rows and are skipped here by (line, text).

# BEGIN DOC_FIGURES (line, printed, quantity, status)
DOC_FIGURES: list[tuple[int, str, str, str]] = [
    (51, '0{,}3', 'H0[0,0]', 'correct'),
    (51, '0{,}8', 'H0[0,1]', 'correct'),
    (53, '0{,}8415', 'PE[1,0]', 'correct'),
    (53, '0{,}5403', 'PE[1,1]', 'correct'),
    (53, '0{,}7415', 'H0[1,0]', 'correct'),
    (53, '0{,}9403', 'H0[1,1]', 'correct'),
    (55, '0{,}9093', 'PE[2,0]', 'correct'),
    (55, '−0{,}4161', 'PE[2,1]', 'correct'),
    (55, '1{,}4093', 'H0[2,0]', 'correct'),
    (55, '−0{,}3161', 'H0[2,1]', 'correct'),
    (63, '0,2800', 'Q[0,0]', 'correct'),
    (63, '0,3100', 'Q[0,1]', 'correct'),
    (63, '−0,3700', 'K[0,0]', 'correct'),
    (63, '0,3400', 'K[0,1]', 'correct'),
    (63, '0,0100', 'V[0,0]', 'correct'),
    (63, '0,3800', 'V[0,1]', 'correct'),
    (64, '0,4846', 'Q[1,0]', 'correct'),
    (64, '0,2477', 'Q[1,1]', 'correct'),
    (64, '−0,3960', 'K[1,0]', 'correct'),
    (64, '0,6239', 'K[1,1]', 'planted'),
    (64, '0,1284', 'V[1,0]', 'correct'),
    (64, '0,5244', 'V[1,1]', 'correct'),
    (65, '0,5005', 'Q[2,0]', 'correct'),
    (65, '−0,5809', 'Q[2,1]', 'correct'),
    (65, '0,2990', 'K[2,0]', 'correct'),
    (65, '0,7823', 'K[2,1]', 'correct'),
    (65, '0,4544', 'V[2,0]', 'correct'),
    (65, '0,1554', 'V[2,1]', 'correct'),
    (73, '0,0013', 'S[0,0]', 'correct'),
    (73, '0,0603', 'S[0,1]', 'correct'),
    (73, '0,2307', 'S[0,2]', 'correct'),
    (74, '−0,0672', 'S[1,0]', 'correct'),
    (74, '−0,0248', 'S[1,1]', 'correct'),
    (74, '0,2395', 'S[1,2]', 'correct'),
    (75, '0,2307', 'S[2,0]', 'planted'),
    (75, '−0,4001', 'S[2,1]', 'correct'),
    (75, '−0,2155', 'S[2,2]', 'correct'),
    (79, '0{,}4894', 'A[1,0]', 'correct'),
    (79, '0{,}5106', 'A[1,1]', 'correct'),
    (79, '0{,}3407', 'A[2,0]', 'correct'),
    (79, '0{,}2993', 'A[2,1]', 'correct'),
    (79, '0{,}3600', 'A[2,2]', 'correct'),
    (81, '34,1 %', 'A[2,0]', 'correct'),
    (81, '29,9 %', 'A[2,1]', 'correct'),
    (81, '36,0 %', 'A[2,2]', 'correct'),
    (87, '0{,}2054', 'Attn[2,0]', 'correct'),
    (87, '0{,}3425', 'Attn[2,1]', 'planted'),
    (89, '1{,}6147', 'H1[2,0]', 'correct'),
    (89, '0{,}0262', 'H1[2,1]', 'correct'),
    (95, '0,8205', 'mu1[2]', 'correct'),
    (96, '1,2617', 'var1[2]', 'planted'),
    (97, '0,7943', 'sqrt(var1[2] + ln_eps)', 'correct'),
    (99, '1{,}6147', 'H1[2,0]', 'correct'),
    (99, '0{,}8205', 'mu1[2]', 'correct'),
    (99, '0{,}7943', 'sqrt(var1[2] + ln_eps)', 'correct'),
    (99, '0{,}0262', 'H1[2,1]', 'correct'),
    (99, '0{,}8205', 'mu1[2]', 'correct'),
    (99, '0{,}7943', 'sqrt(var1[2] + ln_eps)', 'correct'),
    (99, '0{,}9999', 'LN1[2,0]', 'planted'),
    (99, '−1{,}0000', 'LN1[2,1]', 'correct'),
    (107, '0{,}699995', 'Z[2,0]', 'correct'),
    (107, '−0{,}899994', 'Z[2,1]', 'correct'),
    (107, '0{,}649995', 'Z[2,2]', 'correct'),
    (107, '−0{,}599995', 'Z[2,3]', 'correct'),
    (111, '0{,}409997', 'F[2,0]', 'correct'),
    (111, '−0{,}075000', 'F[2,1]', 'correct'),
    (111, '1{,}409989', 'H2[2,0]', 'correct'),
    (111, '−1{,}074992', 'H2[2,1]', 'correct'),
    (113, '0{,}167499', 'mu2[2]', 'correct'),
    (113, '1{,}543782', 'var2[2]', 'correct'),
    (115, '0{,}999997', 'h_final[0]', 'correct'),
    (115, '−0{,}999997', 'h_final[1]', 'correct'),
    (123, '0,1339', 'p[<pad>]', 'correct'),
    (124, '0,499998', 'logits[kissa]', 'correct'),
    (124, '0,2207', 'p[kissa]', 'correct'),
    (125, '−0,499998', 'logits[juo]', 'correct'),
    (125, '0,0812', 'p[juo]', 'correct'),
    (126, '0,399999', 'logits[kylmää]', 'correct'),
    (126, '0,1997', 'p[kylmää]', 'correct'),
    (127, '0,799997', 'logits[maitoa]', 'correct'),
    (127, '0,2980', 'p[maitoa]', 'correct'),
    (128, '−0,699998', 'logits[vettä]', 'correct'),
    (128, '0,0665', 'p[vettä]', 'correct'),
    (130, '7{,}4692', 'sum_exp', 'correct'),
    (130, '29,8 %', 'p[maitoa]', 'correct'),
    (132, '0{,}2980', 'p[maitoa]', 'correct'),
    (132, '1{,}2107', 'loss', 'planted'),
    (136, '−0{,}7020', 'grad_logits[maitoa]', 'correct'),
    (142, '0,1339', 'grad_E_head[<pad>,0]', 'correct'),
    (142, '0,2207', 'grad_E_head[kissa,0]', 'correct'),
    (142, '0,0812', 'grad_E_head[juo,0]', 'correct'),
    (142, '0,1997', 'grad_E_head[kylmää,0]', 'correct'),
    (142, '−0,7020', 'grad_E_head[maitoa,0]', 'correct'),
    (142, '0,0665', 'grad_E_head[vettä,0]', 'correct'),
    (143, '−0,1339', 'grad_E_head[<pad>,1]', 'correct'),
    (143, '0,2207', 'grad_E_head[kissa,1]', 'planted'),
    (143, '−0,0812', 'grad_E_head[juo,1]', 'correct'),
    (143, '−0,1997', 'grad_E_head[kylmää,1]', 'correct'),
    (143, '0,7020', 'grad_E_head[maitoa,1]', 'correct'),
    (143, '−0,0665', 'grad_E_head[vettä,1]', 'correct'),
    (145, '−0{,}0090', 'grad_h_final[0]', 'correct'),
    (145, '0{,}4495', 'grad_h_final[1]', 'correct'),
    (151, '−3,078 · 10⁻¹²', 'grad_W_Q[0,0]', 'correct'),
    (151, '−1,343 · 10⁻¹²', 'grad_W_Q[0,1]', 'correct'),
    (152, '6,905 · 10⁻¹³', 'grad_W_Q[1,0]', 'correct'),
    (152, '3,014 · 10⁻¹³', 'grad_W_Q[1,1]', 'correct'),
    (154, '0{,}1997', 'grad_E[kylmää,0]', 'correct'),
    (154, '−0{,}1997', 'grad_E[kylmää,1]', 'correct'),
    (154, '−0{,}7020', 'grad_E[maitoa,0]', 'correct'),
    (154, '0{,}7020', 'grad_E[maitoa,1]', 'correct'),
    (164, '−0{,}199729', 'grad_E[kylmää,1]', 'correct'),
    (166, '−0{,}0199729', 'adamw[1].m[E,kylmää,1]', 'correct'),
    (167, '3{,}9892 \\cdot 10^{-5}', 'adamw[1].v[E,kylmää,1]', 'correct'),
    (168, '−0{,}199729', 'adamw[1].mhat[E,kylmää,1]', 'correct'),
    (168, '0{,}0398918', 'adamw[1].vhat[E,kylmää,1]', 'correct'),
    (169, '−0{,}0100000', 'adamw[1].update[E,kylmää,1]', 'correct'),
    (170, '0{,}00001', 'adamw[1].decay[E,kylmää,1]', 'correct'),
    (171, '0{,}109990', 'adamw[1].E[kylmää,1]', 'correct'),
    (177, '−0,0702036', 'adamw[1].m[E,maitoa,0]', 'correct'),
    (177, '4,9285 · 10⁻⁴', 'adamw[1].v[E,maitoa,0]', 'correct'),
    (177, '−0,702036', 'adamw[1].mhat[E,maitoa,0]', 'correct'),
    (177, '0,492854', 'adamw[1].vhat[E,maitoa,0]', 'correct'),
    (177, '−0,0100000', 'adamw[1].update[E,maitoa,0]', 'correct'),
    (177, '0,210000', 'adamw[1].E[maitoa,0]', 'planted'),
    (178, '−1,1952 · 10⁻⁷', 'adamw[1].m[b_2,0]', 'correct'),
    (178, '1,4285 · 10⁻¹⁵', 'adamw[1].v[b_2,0]', 'correct'),
    (178, '−1,1952 · 10⁻⁶', 'adamw[1].mhat[b_2,0]', 'correct'),
    (178, '1,4285 · 10⁻¹²', 'adamw[1].vhat[b_2,0]', 'correct'),
    (178, '−0,0099170', 'adamw[1].update[b_2,0]', 'correct'),
    (178, '0,009917', 'adamw[1].b_2[0]', 'correct'),
    (179, '−3,0779 · 10⁻¹³', 'adamw[1].m[W_Q,0,0]', 'correct'),
    (179, '9,4733 · 10⁻²⁷', 'adamw[1].v[W_Q,0,0]', 'correct'),
    (179, '−3,0779 · 10⁻¹²', 'adamw[1].mhat[W_Q,0,0]', 'correct'),
    (179, '9,4733 · 10⁻²⁴', 'adamw[1].vhat[W_Q,0,0]', 'correct'),
    (179, '−3,0769 · 10⁻⁶', 'adamw[1].update[W_Q,0,0]', 'correct'),
    (179, '0,399963', 'adamw[1].W_Q[0,0]', 'correct'),
    (181, '0{,}00004', 'adamw[1].decay[W_Q,0,0]', 'correct'),
    (189, '0,2980', 'p[maitoa]', 'correct'),
    (189, '0,3064', 'adamw[1].p[maitoa]', 'correct'),
    (190, '1,2108', 'loss', 'correct'),
    (190, '1,1829', 'adamw[1].loss', 'correct'),
    (192, '0,028', 'loss - adamw[1].loss', 'correct'),
]
# END DOC_FIGURES


def audit(values) -> int:
    """Every figure DOC.md prints: on its line, and the correct rounding unless it is planted."""
    bad = 0
    for line, printed, ref, status in DOC_FIGURES:
        ok, r = correct(printed, values[ref])
        present = printed.replace("{,}", ",") in DOC_LINES[line - 1].replace("{,}", ",")
        good = present and (ok != (status == "planted"))
        if not good:
            bad += 1
            print(f"  AUDIT FAIL line {line}: {printed!r} {ref} exact {mp.nstr(values[ref], 12)} rounds to {r} "
                  f"({status}, present={present})")
    n_ok = sum(1 for x in DOC_FIGURES if x[3] != "planted")
    print(f"audit: {len(DOC_FIGURES)} figures of DOC.md ({n_ok} correct, {len(DOC_FIGURES) - n_ok} planted) checked")
    return bad


DOC_LINES = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines() if (HERE / "DOC.md").is_file() else []


def gradient_selfcheck(g) -> int:
    """Central differences at h = 1e-20 against the hand-written backward pass, every parameter."""
    bad = 0
    for name, A in PARAMS.items():
        for idx, x0 in entries(A):
            def loss_at(x):
                P = copy.deepcopy(PARAMS)
                if len(idx) == 2:
                    P[name][idx[0]][idx[1]] = x
                else:
                    P[name][idx[0]] = x
                return forward(P)["loss"]
            h = mp.mpf("1e-20")
            fd = (loss_at(x0 + h) - loss_at(x0 - h)) / (2 * h)
            an = g[name][idx[0]][idx[1]] if len(idx) == 2 else g[name][idx[0]]
            if abs(fd - an) > mp.mpf("1e-28"):
                bad += 1
                print(f"  GRADIENT MISMATCH {name}{idx}: {an} vs {fd}")
    return bad


def main() -> int:
    values, f, g = compute()
    bad = gradient_selfcheck(g)
    print("backward pass agrees with central differences" if not bad else f"{bad} gradient mismatches")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = values[ref]
        line = int(cells[1])
        assert printed in DOC_LINES[line - 1].replace("{,}", ","), f"{printed!r} is not on line {line}"
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            ok_shown, right = correct(shown, v)
            ok_printed, _ = correct(printed, v)
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            pct = shown.endswith("%")
            ok = ok_shown and not ok_printed and abs(exact - v * (100 if pct else 1)) <= mp.mpf("1e-10") * abs(v * (100 if pct else 1))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok, right = correct(printed, v)
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>16}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<24} rounds to {right!s:<12} {note}")
    assert n_planted == 8, n_planted
    bad += audit(values)
    print("all key rows agree with the oracle" if not bad else f"{bad} rows disagree")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
