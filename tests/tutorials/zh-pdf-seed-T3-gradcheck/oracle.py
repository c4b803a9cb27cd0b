#!/usr/bin/env python3
"""Independent oracle for zh-pdf-seed-T3-gradcheck: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every figure of DOC.tex (FIGURES) against its exact value, then every
                         # row of KEY.md against the same values; AssertionError on any disagreement

Model (SPEC.toml): one post-LN block, one head, d = 2, d_ff = 4, ReLU, sinusoidal positions
(PE[t] = (sin t, cos t) for d = 2), tied head, LayerNorm eps 0.1 (biased variance), input 我 爱 喝,
target 绿茶, loss = -ln p[target] at the last position.
Forward: H0 = E[ids] + PE; Q, K, V = H0 W; S = Q K^T / sqrt(2), causal softmax A; Attn = A V;
H1 = H0 + Attn; LN1; Z = LN1 W_1 + b_1; R = ReLU(Z); F = R W_2 + b_2; H2 = LN1 + F; LN2;
logits = LN2[2] E^T; p = softmax; loss.
Backward: written out by hand (reverse mode), checked here against mpmath's numerical derivative.
Gradient check: L(theta +- h) with h = 1e-4 exactly, central difference (L+ - L-)/(2h), relative error
|num - ana| / max(|num|, |ana|).
Rounding: half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["我", "爱", "喝", "绿茶", "咖啡", "水"]
IDS = [0, 1, 2]
TARGET = 3
LN_EPS = mp.mpf("0.1")
H = mp.mpf("1e-4")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = dict(
    E=M([[0.3, -0.1], [0.5, 0.2], [-0.2, 0.4], [0.6, -0.3], [0.1, 0.6], [-0.4, -0.2]]),
    W_Q=M([[0.4, -0.3], [0.2, 0.5]]),
    W_K=M([[0.3, 0.1], [-0.2, 0.6]]),
    W_V=M([[0.5, -0.4], [0.3, 0.2]]),
    W_1=M([[0.4, -0.3, 0.2, 0.1], [-0.2, 0.5, 0.3, -0.4]]),
    b_1=M([0.1, 0.0, -0.1, 0.05]),
    W_2=M([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2], [0.2, 0.3]]),
    b_2=M([0.0, 0.0]),
)


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


def forward(P, eps=LN_EPS):
    E, WQ, WK, WV, W1, b1, W2, b2 = (P[k] for k in ("E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"))
    T, d = len(IDS), len(E[0])
    PE = [[mp.sin(t) if j == 0 else mp.cos(t) for j in range(d)] for t in range(T)]   # base^(0/2) = 1
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    ex = [[mp.exp(S[t][s]) if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(r) for r in ex]
    A = [[ex[t][s] / A_den[t] for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, s1, LN1 = ln_fwd(H1, eps)
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, s2, LN2 = ln_fwd(H2, eps)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                s1=s1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, s2=s2, LN2=LN2, h_final=hf,
                logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[TARGET]))


def backward(P, f):
    E, WQ, WK, WV, W1, W2 = (P[k] for k in ("E", "W_Q", "W_K", "W_V", "W_1", "W_2"))
    T, d, Vn = len(IDS), len(E[0]), len(E)
    zero = mp.mpf(0)
    g = {"logits": [f["p"][v] - (1 if v == TARGET else 0) for v in range(Vn)]}
    g["h_final"] = [mp.fsum(g["logits"][v] * E[v][j] for v in range(Vn)) for j in range(d)]
    g["E_head"] = [[g["logits"][v] * f["h_final"][j] for j in range(d)] for v in range(Vn)]
    gLN2 = [[zero] * d for _ in range(T)]
    gLN2[-1] = list(g["h_final"])
    gH2 = [ln_bwd(f["LN2"][t], f["s2"][t], gLN2[t]) for t in range(T)]
    gR = matmul(gH2, tr(W2))                                   # grad_F = grad_H2 (b_2 adds)
    gZ = [[gR[t][k] if f["Z"][t][k] > 0 else zero for k in range(len(W1[0]))] for t in range(T)]
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
    g.update(LN2=gLN2, H2=gH2, F=gH2, R=gR, Z=gZ, LN1=gLN1, H1=gH1, Attn=gH1, A=gA, V=gV, S=gS, Q=gQ, K=gK,
             H0=gH0, E=gE)
    return g


def moved(name, i, j, delta):
    P = copy.deepcopy(PARAMS)
    P[name][i][j] += delta
    return P


GC = [("W_V", 0, 1), ("W_V", 1, 0), ("E", 3, 0), ("E", 2, 1)]


def ref(name, i, j):
    return f"{name}[{VOCAB[i] if name == 'E' else i},{j}]"


def compute() -> dict:
    f = forward(PARAMS)
    g = backward(PARAMS, f)
    # the hand-written backward pass against mpmath's own derivative of the loss
    for name, i, j in GC + [("W_V", 0, 0), ("E", 0, 0), ("E", 1, 1), ("W_Q", 0, 1), ("W_K", 1, 0)]:
        num = mp.diff(lambda x: forward(moved(name, i, j, x - PARAMS[name][i][j]))["loss"], PARAMS[name][i][j])
        assert abs(num - g[name][i][j]) < mp.mpf("1e-30"), (name, i, j, num, g[name][i][j])
    out = {"loss": f["loss"], "sum_exp": f["sum_exp"], "ln_eps": LN_EPS}
    tok = lambda v: VOCAB[v]
    for t in range(3):
        for j in range(2):
            for n in ("PE", "H0", "Q", "K", "V", "Attn", "H1", "LN1", "F", "H2", "LN2"):
                out[f"{n}[{t},{j}]"] = f[n][t][j]
            for n in ("H0", "H1", "LN1", "H2", "V"):
                out[f"grad_{n}[{t},{j}]"] = g[n][t][j]
        for s in range(3):
            out[f"S[{t},{s}]"], out[f"A[{t},{s}]"] = f["S"][t][s], f["A"][t][s]
        for k in range(4):
            out[f"Z[{t},{k}]"], out[f"grad_Z[{t},{k}]"] = f["Z"][t][k], g["Z"][t][k]
        for n in ("mu1", "var1", "mu2", "var2", "A_den"):
            out[f"{n}[{t}]"] = f[n][t]
        out[f"sqrt(var1[{t}] + ln_eps)"] = f["s1"][t]
        out[f"sqrt(var2[{t}] + ln_eps)"] = f["s2"][t]
    for j in range(2):
        out[f"h_final[{j}]"], out[f"grad_h_final[{j}]"] = f["h_final"][j], g["h_final"][j]
    for v in range(6):
        out[f"logits[{tok(v)}]"], out[f"p[{tok(v)}]"] = f["logits"][v], f["p"][v]
        out[f"grad_logits[{tok(v)}]"] = g["logits"][v]
        for j in range(2):
            out[f"grad_E[{tok(v)},{j}]"], out[f"grad_E_head[{tok(v)},{j}]"] = g["E"][v][j], g["E_head"][v][j]
    for i in range(2):
        for j in range(2):
            out[f"grad_W_V[{i},{j}]"] = g["W_V"][i][j]
    # the gradient check: L(theta +- h), the central difference, the analytic gradient, the relative error
    for name, i, j in GC:
        r = ref(name, i, j)
        plus = forward(moved(name, i, j, H))["loss"]
        minus = forward(moved(name, i, j, -H))["loss"]
        num, ana = (plus - minus) / (2 * H), g[name][i][j]
        out[f"loss_at({r}, +1e-4)"], out[f"loss_at({r}, -1e-4)"] = plus, minus
        out[f"gradcheck({r}, 1e-4)"] = num
        out[f"relerr({r})"] = abs(num - ana) / max(abs(num), abs(ana))
    head = g["E_head"][2][1]
    num = out["gradcheck(E[喝,1], 1e-4)"]
    out["relerr_head(E[喝,1])"] = abs(num - head) / max(abs(num), abs(head))
    return out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sig(v, n: int) -> str:
    """n significant digits as 'm.mmme-k' (the document prints m.mm × 10^{-k})."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    e = d.adjusted()
    m = (d.scaleb(-e)).quantize(Decimal(1).scaleb(-(n - 1)), rounding=ROUND_HALF_UP)
    if abs(m) >= 10:
        m, e = (m / 10).quantize(Decimal(1).scaleb(-(n - 1)), rounding=ROUND_HALF_UP), e + 1
    return f"{m}e{e}"


def rounding_of(v, printed: str) -> str:
    """v rounded the way `printed` is written: fixed decimals, 'm.mme-k', or a percentage."""
    if "e" in printed:
        return rnd_sig(v, len(printed.split("e")[0].lstrip("-").replace(".", "")))
    if printed.endswith("%"):
        body = printed[:-1]
        return rnd(v * 100, len(body.split(".")[1]) if "." in body else 0) + "%"
    return rnd(v, len(printed.split(".")[1]) if "." in printed else 0)


# Every figure of a model quantity that DOC.tex prints (the given weights aside), in document order:
# (quantity, figure as written; ASCII minus).  Planted errors are in PLANTED instead.
# BEGIN FIGURES
FIGURES = [
    ('PE[1,0]', '0.8415'),
    ('PE[2,0]', '0.9093'),
    ('PE[2,1]', '-0.4161'),
    ('H0[0,0]', '0.3000'),
    ('H0[0,1]', '0.9000'),
    ('H0[1,0]', '1.3415'),
    ('H0[1,1]', '0.7403'),
    ('H0[2,0]', '0.7093'),
    ('H0[2,1]', '-0.0161'),
    ('S[2,0]', '-0.1069'),
    ('S[2,1]', '-0.0399'),
    ('S[2,2]', '0.0333'),
    ('A[2,0]', '0.3106'),
    ('A[2,1]', '0.3321'),
    ('A[2,2]', '0.3573'),
    ('Attn[2,0]', '0.5519'),
    ('Attn[2,1]', '-0.2129'),
    ('H1[2,0]', '1.2612'),
    ('H1[2,1]', '-0.2291'),
    ('mu1[2]', '0.5161'),
    ('var1[2]', '0.5553'),
    ('sqrt(var1[2] + ln_eps)', '0.8095'),
    ('LN1[2,0]', '0.9205'),
    ('LN1[2,1]', '-0.9205'),
    ('Z[2,0]', '0.6523'),
    ('Z[2,1]', '-0.7364'),
    ('Z[2,3]', '0.5103'),
    ('F[2,0]', '0.2978'),
    ('F[2,1]', '0.0226'),
    ('H2[2,0]', '1.2183'),
    ('H2[2,1]', '-0.8979'),
    ('LN2[2,0]', '0.9581'),
    ('LN2[2,1]', '-0.9581'),
    ('logits[我]', '0.3833'),
    ('p[我]', '0.2044'),
    ('logits[爱]', '0.2874'),
    ('logits[喝]', '-0.5749'),
    ('p[喝]', '0.0784'),
    ('logits[绿茶]', '0.8623'),
    ('p[绿茶]', '0.3301'),
    ('p[咖啡]', '0.0863'),
    ('logits[水]', '-0.1916'),
    ('p[水]', '0.1150'),
    ('loss', '1.1085'),
    ('grad_h_final[0]', '-0.3008'),
    ('grad_h_final[1]', '0.2778'),
    ('grad_E_head[我,0]', '0.195865'),
    ('grad_E_head[爱,0]', '0.177970'),
    ('grad_E_head[喝,0]', '0.075136'),
    ('grad_E_head[绿茶,0]', '-0.641890'),
    ('grad_E_head[咖啡,0]', '0.082691'),
    ('grad_E_head[水,0]', '0.110228'),
    ('grad_H2[2,0]', '-0.021482'),
    ('grad_H2[2,1]', '0.021482'),
    ('grad_Z[2,0]', '-0.010741'),
    ('grad_Z[2,3]', '0.002148'),
    ('grad_LN1[2,0]', '-0.025564'),
    ('grad_LN1[2,1]', '0.022771'),
    ('grad_V[0,0]', '-0.001415'),
    ('grad_V[1,0]', '-0.001513'),
    ('grad_V[2,0]', '-0.001628'),
    ('grad_W_V[0,0]', '-0.003609'),
    ('grad_W_V[1,0]', '-0.002368'),
    ('grad_W_V[1,1]', '0.002368'),
    ('grad_H0[0,0]', '-0.001248'),
    ('grad_H0[0,1]', '-0.000218'),
    ('grad_H0[1,0]', '-0.001396'),
    ('grad_H0[1,1]', '-0.000047'),
    ('grad_H0[2,0]', '-0.006047'),
    ('grad_H0[2,1]', '0.004297'),
    ('grad_E[我,0]', '0.1946'),
    ('grad_E[我,1]', '-0.1961'),
    ('grad_E[爱,0]', '0.1766'),
    ('grad_E[爱,1]', '-0.1780'),
    ('grad_E[喝,0]', '0.0691'),
    ('grad_E[喝,1]', '-0.0708'),
    ('loss', '1.108490404246'),
    ('loss_at(W_V[0,1], +1e-4)', '1.108490765189'),
    ('loss_at(W_V[0,1], -1e-4)', '1.108490043360'),
    ('loss_at(W_V[1,0], +1e-4)', '1.108490167507'),
    ('loss_at(W_V[1,0], -1e-4)', '1.108490641010'),
    ('loss_at(E[绿茶,0], +1e-4)', '1.108426216282'),
    ('loss_at(E[绿茶,0], -1e-4)', '1.108554594240'),
    ('loss_at(E[喝,1], +1e-4)', '1.108483320699'),
    ('loss_at(E[喝,1], -1e-4)', '1.108497488540'),
    ('gradcheck(W_V[0,1], 1e-4)', '0.003609147005'),
    ('grad_W_V[0,1]', '0.003609146986'),
    ('relerr(W_V[0,1])', '5.48e-9'),
    ('grad_W_V[1,0]', '-0.002367514065'),
    ('relerr(W_V[1,0])', '2.36e-9'),
    ('gradcheck(E[绿茶,0], 1e-4)', '-0.641889789689'),
    ('grad_E[绿茶,0]', '-0.641889789799'),
    ('relerr(E[绿茶,0])', '1.72e-10'),
    ('gradcheck(E[喝,1], 1e-4)', '-0.070839206612'),
    ('grad_E[喝,1]', '-0.070839206555'),
    ('relerr(E[喝,1])', '8.09e-10'),
    ('grad_E_head[喝,1]', '-0.075136'),
    ('relerr_head(E[喝,1])', '5.7%'),
]
PLANTED = [
    ('PE[1,1]', '0.5430'),
    ('Z[2,2]', '-0.0921'),
    ('p[爱]', '0.1858'),
    ('logits[咖啡]', '-0.5749'),
    ('grad_logits[绿茶]', '0.6699'),
    ('grad_H1[2,0]', '-0.004558'),
    ('grad_W_V[0,1]', '-0.002368'),
    ('gradcheck(W_V[1,0], 1e-4)', '-0.002367515000'),
]
# END FIGURES


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace(" ", "")


def main() -> int:
    values = compute()
    bad = 0
    print(f"DOC.tex: {len(FIGURES)} correct figures, {len(PLANTED)} planted")
    for q, printed in FIGURES:
        right = rounding_of(values[q], printed)
        if right != printed:
            bad += 1
            print(f"  NOT THE CORRECT ROUNDING: {q} printed {printed}, exact {mp.nstr(values[q], 15)} -> {right}")
    for q, printed in PLANTED:
        right = rounding_of(values[q], printed)
        if right == printed:
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
        if len(cells) == 7:                               # a planted error: the key's columns must agree
            planted_rows += 1
            shown = norm(cells[4].strip("`"))
            right = rounding_of(v, shown)
            exact = mp.mpf(norm(cells[3]).rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed \
                and (q, printed) in PLANTED
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rounding_of(v, printed)
            note = "correct" if right == printed and (q, printed) in FIGURES else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>16}  {q:<30} {mp.nstr(v, 15):<22} rounds to {right:<16} {note}")
    assert planted_rows == len(PLANTED) == 8, (planted_rows, len(PLANTED))
    assert bad == 0, f"{bad} disagreements"
    print("all figures and key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
