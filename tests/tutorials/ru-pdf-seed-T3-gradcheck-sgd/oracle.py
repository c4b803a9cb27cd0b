#!/usr/bin/env python3
"""Independent oracle for ru-pdf-seed-T3-gradcheck-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every key row of KEY.md (and every figure listed below) against its exact value
    python oracle.py --dump   # print all computed quantities

Model (read from SPEC.toml with tomllib): one post-LN block, one head, d = 2, d_ff = 4, ReLU,
sinusoidal positions (d = 2: PE[t] = (sin t, cos t)), tied head, LayerNorm with biased variance and
the spec's eps, gamma = 1, beta = 0; loss = -ln p[target] at the last position.
Backward pass written out by hand (reverse mode) and checked against central differences with a tiny
step at 50 digits.  Gradient check: L(theta +- h), h = 1e-4 exactly, (L+ - L-)/(2h).
SGD: every parameter (E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2) moves by -lr * grad; a second forward pass
gives the new quantities (sgd[1].*).
Rounding: half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))

VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TARGET = VOCAB.index(SPEC["data"]["target"])
LN_EPS = mp.mpf(str(SPEC["model"]["ln_eps"]))
LR = mp.mpf(str(SPEC["training"]["lr"]))
H = mp.mpf(str(SPEC["training"]["gradcheck"]["h"]))
PNAMES = ("E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = {"E": M(SPEC["weights"]["E"])}
for k in PNAMES[1:]:
    PARAMS[k] = M(SPEC["layer"][0][k])


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def tr(A):
    return [list(r) for r in zip(*A)]


def ln_fwd(Hm, eps):
    d = len(Hm[0])
    mu = [mp.fsum(r) / d for r in Hm]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(Hm, mu)]
    s = [mp.sqrt(v + eps) for v in var]
    return mu, var, s, [[(r[j] - m) / si for j in range(d)] for r, m, si in zip(Hm, mu, s)]


def ln_bwd(xhat, s, g):
    d = len(g)
    mg = mp.fsum(g) / d
    mgx = mp.fsum(a * b for a, b in zip(g, xhat)) / d
    return [(g[j] - mg - xhat[j] * mgx) / s for j in range(d)]


def forward(P):
    E, WQ, WK, WV, W1, b1, W2, b2 = (P[k] for k in PNAMES)
    T, d = len(IDS), len(E[0])
    PE = [[mp.sin(t) if j == 0 else mp.cos(t) for j in range(d)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    ex = [[mp.exp(S[t][s]) if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(r) for r in ex]
    A = [[ex[t][s] / A_den[t] for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, s1, LN1 = ln_fwd(H1, LN_EPS)
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, s2, LN2 = ln_fwd(H2, LN_EPS)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, ex=ex, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1,
                var1=var1, s1=s1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, s2=s2, LN2=LN2,
                h_final=hf, logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[TARGET]))


def backward(P, f):
    E, WQ, WK, WV, W1, b1, W2, b2 = (P[k] for k in PNAMES)
    T, d, Vn, dff = len(IDS), len(E[0]), len(E), len(W1[0])
    zero = mp.mpf(0)
    g = {"logits": [f["p"][v] - (1 if v == TARGET else 0) for v in range(Vn)]}
    g["h_final"] = [mp.fsum(g["logits"][v] * E[v][j] for v in range(Vn)) for j in range(d)]
    g["E_head"] = [[g["logits"][v] * f["h_final"][j] for j in range(d)] for v in range(Vn)]
    gLN2 = [[zero] * d for _ in range(T)]
    gLN2[-1] = list(g["h_final"])
    gH2 = [ln_bwd(f["LN2"][t], f["s2"][t], gLN2[t]) for t in range(T)]
    g["W_2"] = matmul(tr(f["R"]), gH2)
    g["b_2"] = [mp.fsum(gH2[t][j] for t in range(T)) for j in range(d)]
    gR = matmul(gH2, tr(W2))
    gZ = [[gR[t][k] if f["Z"][t][k] > 0 else zero for k in range(dff)] for t in range(T)]
    g["W_1"] = matmul(tr(f["LN1"]), gZ)
    g["b_1"] = [mp.fsum(gZ[t][k] for t in range(T)) for k in range(dff)]
    gLN1 = [[gH2[t][j] + x for j, x in enumerate(r)] for t, r in enumerate(matmul(gZ, tr(W1)))]
    gH1 = [ln_bwd(f["LN1"][t], f["s1"][t], gLN1[t]) for t in range(T)]
    A, Vv, Q, K, H0 = f["A"], f["V"], f["Q"], f["K"], f["H0"]
    gA = [[mp.fsum(gH1[t][j] * Vv[s][j] for j in range(d)) if s <= t else zero for s in range(T)] for t in range(T)]
    gV = [[mp.fsum(A[t][s] * gH1[t][j] for t in range(T)) for j in range(d)] for s in range(T)]
    gS = [[A[t][s] * (gA[t][s] - mp.fsum(A[t][r] * gA[t][r] for r in range(T))) for s in range(T)] for t in range(T)]
    gQ = [[mp.fsum(gS[t][s] * K[s][j] for s in range(T)) / mp.sqrt(d) for j in range(d)] for t in range(T)]
    gK = [[mp.fsum(gS[t][s] * Q[t][j] for t in range(T)) / mp.sqrt(d) for j in range(d)] for s in range(T)]
    g["W_V"], g["W_Q"], g["W_K"] = matmul(tr(H0), gV), matmul(tr(H0), gQ), matmul(tr(H0), gK)
    gH0 = [[gH1[t][j] + a + b + c for j, (a, b, c) in enumerate(zip(ra, rb, rc))]
           for t, (ra, rb, rc) in enumerate(zip(matmul(gQ, tr(WQ)), matmul(gK, tr(WK)), matmul(gV, tr(WV))))]
    gE = [list(r) for r in g["E_head"]]
    for t, v in enumerate(IDS):
        for j in range(d):
            gE[v][j] += gH0[t][j]
    g.update(LN2=gLN2, H2=gH2, F=gH2, R=gR, Z=gZ, LN1=gLN1, H1=gH1, Attn=gH1, A=gA, V=gV, S=gS, Q=gQ,
             K=gK, H0=gH0, E=gE)
    return g


def moved(P, name, idx, delta):
    P = copy.deepcopy(P)
    if len(idx) == 2:
        P[name][idx[0]][idx[1]] += delta
    else:
        P[name][idx[0]] += delta
    return P


def entries(P):
    for name in PNAMES:
        if isinstance(P[name][0], list):
            for i in range(len(P[name])):
                for j in range(len(P[name][0])):
                    yield name, (i, j)
        else:
            for i in range(len(P[name])):
                yield name, (i,)


def get(X, idx):
    return X[idx[0]][idx[1]] if len(idx) == 2 else X[idx[0]]


def parse_param(s):
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", s)
    name, raw = m.group(1), [x.strip() for x in m.group(2).split(",")]
    idx = tuple(VOCAB.index(x) if x in VOCAB else int(x) for x in raw)
    return name, idx


def ref(name, idx):
    if name == "E":
        return f"E[{VOCAB[idx[0]]},{idx[1]}]"
    return f"{name}[{','.join(map(str, idx))}]"


def tok(v):
    return VOCAB[v]


def add_forward(out, f, prefix=""):
    T = len(IDS)
    for t in range(T):
        for j in range(2):
            for n in ("PE", "H0", "Q", "K", "V", "Attn", "H1", "LN1", "F", "H2", "LN2"):
                out[f"{prefix}{n}[{t},{j}]"] = f[n][t][j]
        for s in range(T):
            out[f"{prefix}S[{t},{s}]"], out[f"{prefix}A[{t},{s}]"] = f["S"][t][s], f["A"][t][s]
            out[f"{prefix}exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
        for k in range(4):
            out[f"{prefix}Z[{t},{k}]"], out[f"{prefix}R[{t},{k}]"] = f["Z"][t][k], f["R"][t][k]
        for n in ("mu1", "var1", "mu2", "var2", "A_den"):
            out[f"{prefix}{n}[{t}]"] = f[n][t]
        out[f"{prefix}sqrt(var1[{t}] + ln_eps)"] = f["s1"][t]
        out[f"{prefix}sqrt(var2[{t}] + ln_eps)"] = f["s2"][t]
    for j in range(2):
        out[f"{prefix}h_final[{j}]"] = f["h_final"][j]
    for v in range(len(VOCAB)):
        out[f"{prefix}logits[{tok(v)}]"], out[f"{prefix}p[{tok(v)}]"] = f["logits"][v], f["p"][v]
        out[f"{prefix}exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
    out[f"{prefix}sum_exp"], out[f"{prefix}loss"] = f["sum_exp"], f["loss"]


def compute() -> dict:
    f = forward(PARAMS)
    g = backward(PARAMS, f)
    # the hand-written reverse pass against central differences (step 1e-20 at 50 digits) on every entry
    tiny = mp.mpf("1e-20")
    for name, idx in entries(PARAMS):
        num = (forward(moved(PARAMS, name, idx, tiny))["loss"] - forward(moved(PARAMS, name, idx, -tiny))["loss"]) / (2 * tiny)
        assert abs(num - get(g[name], idx)) < mp.mpf("1e-25"), (name, idx, num, get(g[name], idx))
    out = {"ln_eps": LN_EPS, "lr": LR}
    add_forward(out, f)
    T = len(IDS)
    for t in range(T):
        for j in range(2):
            for n in ("H0", "H1", "LN1", "H2", "LN2", "V", "Q", "K", "Attn", "F"):
                out[f"grad_{n}[{t},{j}]"] = g[n][t][j]
        for k in range(4):
            out[f"grad_Z[{t},{k}]"], out[f"grad_R[{t},{k}]"] = g["Z"][t][k], g["R"][t][k]
        for s in range(T):
            out[f"grad_A[{t},{s}]"], out[f"grad_S[{t},{s}]"] = g["A"][t][s], g["S"][t][s]
    for j in range(2):
        out[f"grad_h_final[{j}]"] = g["h_final"][j]
    for v in range(len(VOCAB)):
        out[f"grad_logits[{tok(v)}]"] = g["logits"][v]
        for j in range(2):
            out[f"grad_E_head[{tok(v)},{j}]"] = g["E_head"][v][j]
    for name, idx in entries(PARAMS):
        out[f"grad_{ref(name, idx)}"] = get(g[name], idx)
        out[f"sgd[0].grad_{ref(name, idx)}"] = get(g[name], idx)
    # the gradient check
    for s in SPEC["training"]["gradcheck"]["params"]:
        name, idx = parse_param(s)
        r = ref(name, idx)
        plus = forward(moved(PARAMS, name, idx, H))["loss"]
        minus = forward(moved(PARAMS, name, idx, -H))["loss"]
        out[f"loss_at({r}, 1e-4)"], out[f"loss_at({r}, -1e-4)"] = plus, minus
        out[f"gradcheck({r}, 1e-4)"] = (plus - minus) / (2 * H)
        out[f"gradcheck({r}, 1e-4) - grad_{r}"] = (plus - minus) / (2 * H) - get(g[name], idx)
    # one SGD step on every parameter
    P1 = copy.deepcopy(PARAMS)
    for name, idx in entries(PARAMS):
        if len(idx) == 2:
            P1[name][idx[0]][idx[1]] -= LR * get(g[name], idx)
        else:
            P1[name][idx[0]] -= LR * get(g[name], idx)
    for name, idx in entries(P1):
        out[f"{ref(name, idx)}"] = get(PARAMS[name], idx)
        out[f"sgd[1].{ref(name, idx)}"] = get(P1[name], idx)
    f1 = forward(P1)
    add_forward(out, f1, "sgd[1].")
    out["sgd[0].loss"] = f["loss"]
    return out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rounding_of(v, printed: str) -> str:
    """v rounded the way `printed` is written: fixed decimals or a percentage."""
    if printed.endswith("%"):
        body = printed[:-1]
        return rnd(v * 100, len(body.split(".")[1]) if "." in body else 0) + "%"
    return rnd(v, len(printed.split(".")[1]) if "." in printed else 0)


# BEGIN FIGURES
# Every figure of a model quantity DOC.tex prints (given weights aside), in document order:
# (quantity, figure with ASCII minus and a decimal point).  Planted errors are in PLANTED instead.
FIGURES = [
    ('PE[0,0]', '0.0000'),
    ('PE[0,1]', '1.0000'),
    ('H0[0,0]', '0.4200'),
    ('H0[0,1]', '0.8300'),
    ('PE[1,0]', '0.8415'),
    ('PE[1,1]', '0.5403'),
    ('H0[1,0]', '0.6115'),
    ('H0[1,1]', '0.9003'),
    ('PE[2,1]', '-0.4161'),
    ('H0[2,0]', '1.0593'),
    ('H0[2,1]', '0.1639'),
    ('K[0,0]', '0.1481'),
    ('K[0,0]', '0.1481'),
    ('K[0,1]', '0.3388'),
    ('K[1,0]', '0.1201'),
    ('K[1,1]', '0.4501'),
    ('K[2,0]', '-0.2246'),
    ('K[2,1]', '0.5844'),
    ('V[0,0]', '0.4596'),
    ('V[0,1]', '0.2939'),
    ('V[1,0]', '0.5952'),
    ('V[1,1]', '0.2954'),
    ('V[2,0]', '0.6961'),
    ('V[2,1]', '-0.0884'),
    ('Q[2,0]', '0.4372'),
    ('Q[2,1]', '-0.1930'),
    ('S[2,0]', '-0.0004'),
    ('exp(S[2,0])', '0.9996'),
    ('A[2,0]', '0.3523'),
    ('S[2,1]', '-0.0243'),
    ('exp(S[2,1])', '0.9760'),
    ('S[2,2]', '-0.1492'),
    ('exp(S[2,2])', '0.8614'),
    ('A[2,2]', '0.3036'),
    ('A_den[2]', '2.8370'),
    ('Attn[2,0]', '0.5781'),
    ('Attn[2,1]', '0.1783'),
    ('H1[2,0]', '1.6374'),
    ('H1[2,1]', '0.3422'),
    ('mu1[2]', '0.9898'),
    ('sqrt(var1[2] + ln_eps)', '0.6851'),
    ('LN1[2,0]', '0.9452'),
    ('LN1[2,1]', '-0.9452'),
    ('Z[2,0]', '0.5888'),
    ('Z[2,1]', '-0.9235'),
    ('Z[2,3]', '0.5115'),
    ('R[2,0]', '0.5888'),
    ('R[2,3]', '0.5115'),
    ('F[2,0]', '0.1970'),
    ('F[2,1]', '-0.4318'),
    ('H2[2,0]', '1.1422'),
    ('H2[2,1]', '-1.3770'),
    ('mu2[2]', '-0.1174'),
    ('var2[2]', '1.5867'),
    ('sqrt(var2[2] + ln_eps)', '1.2793'),
    ('LN2[2,0]', '0.9846'),
    ('LN2[2,1]', '-0.9846'),
    ('logits[кот]', '0.5809'),
    ('p[кот]', '0.2723'),
    ('logits[пьёт]', '-0.5809'),
    ('p[пьёт]', '0.0852'),
    ('logits[тёплое]', '-0.4234'),
    ('p[тёплое]', '0.0998'),
    ('logits[молоко]', '0.3348'),
    ('p[молоко]', '0.2129'),
    ('logits[спит]', '-0.5514'),
    ('p[спит]', '0.0878'),
    ('logits[дома]', '0.4628'),
    ('sum_exp', '6.5641'),
    ('p[молоко]', '0.2129'),
    ('loss', '1.5469'),
    ('grad_logits[кот]', '0.2723'),
    ('grad_logits[пьёт]', '0.0852'),
    ('grad_logits[тёплое]', '0.0998'),
    ('grad_logits[молоко]', '-0.7871'),
    ('grad_logits[спит]', '0.0878'),
    ('grad_logits[дома]', '0.2420'),
    ('grad_h_final[0]', '-0.3896'),
    ('grad_h_final[1]', '-0.2541'),
    ('grad_logits[молоко]', '-0.7871'),
    ('grad_E[молоко,0]', '-0.7750'),
    ('grad_E[молоко,1]', '0.7750'),
    ('grad_E_head[кот,0]', '0.2681'),
    ('grad_E_head[кот,1]', '-0.2681'),
    ('grad_H2[2,0]', '-0.001618'),
    ('grad_H2[2,1]', '0.001618'),
    ('grad_W_2[0,0]', '-0.000953'),
    ('grad_W_2[0,1]', '0.000953'),
    ('grad_W_2[3,0]', '-0.000828'),
    ('grad_W_2[3,1]', '0.000828'),
    ('grad_R[2,0]', '-0.001214'),
    ('grad_R[2,1]', '0.001343'),
    ('grad_R[2,2]', '-0.000210'),
    ('grad_R[2,3]', '-0.000307'),
    ('grad_Z[2,0]', '-0.001214'),
    ('grad_Z[2,3]', '-0.000307'),
    ('grad_W_1[0,0]', '-0.001147'),
    ('grad_W_1[0,3]', '-0.000291'),
    ('grad_W_1[1,0]', '0.001147'),
    ('grad_W_1[1,3]', '0.000291'),
    ('grad_LN1[2,0]', '-0.002113'),
    ('grad_LN1[2,1]', '0.001975'),
    ('sqrt(var1[2] + ln_eps)', '0.6851'),
    ('grad_H1[2,0]', '-0.000318'),
    ('grad_H1[2,1]', '0.000318'),
    ('grad_V[0,0]', '-0.000112'),
    ('grad_V[0,1]', '0.000112'),
    ('grad_V[1,0]', '-0.000109'),
    ('grad_V[1,1]', '0.000109'),
    ('grad_V[2,0]', '-0.000096'),
    ('grad_V[2,1]', '0.000096'),
    ('grad_W_V[0,0]', '-0.000216'),
    ('grad_W_V[1,0]', '-0.000207'),
    ('grad_W_V[1,1]', '0.000207'),
    ('loss_at(E[молоко,0], 1e-4)', '1.546774822493'),
    ('loss_at(E[молоко,0], -1e-4)', '1.546929815878'),
    ('gradcheck(E[молоко,0], 1e-4)', '-0.77496692'),
    ('grad_E[молоко,0]', '-0.77496692'),
    ('loss_at(W_2[0,0], 1e-4)', '1.546852223105'),
    ('loss_at(W_2[0,0], -1e-4)', '1.546852413648'),
    ('grad_W_2[0,0]', '-0.00095271'),
    ('loss_at(W_V[1,0], 1e-4)', '1.546852297657'),
    ('loss_at(W_V[1,0], -1e-4)', '1.546852339093'),
    ('gradcheck(W_V[1,0], 1e-4)', '-0.00020718'),
    ('grad_W_V[1,0]', '-0.00020718'),
    ('loss', '1.546852318373'),
    ('grad_E[молоко,0]', '-0.7750'),
    ('grad_E[молоко,1]', '0.7750'),
    ('sgd[1].E[молоко,0]', '0.9975'),
    ('sgd[1].E[молоко,1]', '-0.1175'),
    ('grad_W_2[0,0]', '-0.000953'),
    ('sgd[1].W_2[0,0]', '0.440476'),
    ('sgd[1].b_2[0]', '0.030809'),
    ('sgd[1].b_2[1]', '-0.060809'),
    ('grad_W_V[0,0]', '-0.000216'),
    ('sgd[1].W_V[0,0]', '0.620108'),
    ('sgd[1].LN2[2,0]', '0.9842'),
    ('sgd[1].LN2[2,1]', '-0.9842'),
    ('sgd[1].logits[молоко]', '1.0973'),
    ('sgd[1].sum_exp', '7.2643'),
    ('sgd[1].p[молоко]', '0.4124'),
    ('p[молоко]', '0.2129'),
    ('sgd[1].p[молоко]', '0.4124'),
]
PLANTED = [
    ('PE[2,0]', '0.9039'),
    ('A[2,1]', '0.3441'),
    ('var1[2]', '0.8387'),
    ('Z[2,2]', '-0.1796'),
    ('p[дома]', '0.0878'),
    ('grad_W_V[0,1]', '-0.000207'),
    ('gradcheck(W_2[0,0], 1e-4)', '-0.00095272'),
    ('sgd[1].loss', '0.3846'),
]
# END FIGURES


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace(" ", "").replace(",", ".")


def main() -> int:
    values = compute()
    if "--dump" in sys.argv:
        for k, v in values.items():
            print(f"{k:<40} {mp.nstr(v, 20)}")
        return 0
    bad = 0
    print(f"DOC: {len(FIGURES)} correct figures listed, {len(PLANTED)} planted")
    for q, printed in FIGURES:
        right = rounding_of(values[q], printed)
        if right != printed:
            bad += 1
            print(f"  NOT THE CORRECT ROUNDING: {q} printed {printed}, exact {mp.nstr(values[q], 15)} -> {right}")
    for q, printed in PLANTED:
        if rounding_of(values[q], printed) == printed:
            bad += 1
            print(f"  PLANTED FIGURE IS CORRECT: {q} {printed}")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    print(f"KEY.md: {len(rows)} rows")
    planted_rows = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = norm(cells[0].strip("`"))
        names = re.findall(r"`([^`]+)`", cells[-1])
        q = next((n for n in names if n in values), None)
        if q is None:
            bad += 1
            print(f"  {printed:>16}  NO ORACLE VALUE for {cells[-1]}")
            continue
        v = values[q]
        if len(cells) == 7:
            planted_rows += 1
            shown = norm(cells[4].strip("`"))
            right = rounding_of(v, shown)
            exact = mp.mpf(norm(cells[3]).rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and rounding_of(v, printed) != printed \
                and (q, printed) in PLANTED
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rounding_of(v, printed)
            note = "correct" if right == printed and (q, printed) in FIGURES else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>16}  {q:<34} {mp.nstr(v, 15):<22} rounds to {right:<16} {note}")
    assert planted_rows == len(PLANTED) == 8, (planted_rows, len(PLANTED))
    assert bad == 0, f"{bad} disagreements"
    print("all figures and key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
