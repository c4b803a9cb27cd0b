#!/usr/bin/env python3
"""Independent check of DOC.ipynb and KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model (SPEC.toml): the seed transformer, one post-LN block, one head, d = 4, d_ff = 8, V = 6
(el la gato bebe leche agua), input "el gato bebe la" (T = 4), target "leche", ln_eps 1e-5, tied head.
H0 = E[ids] + PE, PE[t,2i] = sin(t/10000^(2i/d)), PE[t,2i+1] = cos(same); Q, K, V = H0·W; S = Q·Kᵀ/√d;
causal softmax A; H1 = H0 + A·V; LN1 (biased variance); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2;
H2 = LN1 + F; LN2; h_final = LN2[T-1]; logits = E·h_final; p = softmax; loss = -ln p[target].
Backward by hand (chain rule written out below), one SGD step θ - 0.1·g on E, W_Q, W_K, W_V, W_1, b_1,
W_2, b_2 (γ, β fixed at 1, 0), and the central difference (L(θ+h) - L(θ-h))/(2h) at the exact h = 1e-4.

It prints every KEY.md row's quantity with its exact value and asserts the key's "exact value" and
"correct rounding" columns, that each row's printed figure is on its line of DOC.ipynb, and (AUDIT below)
that every other model figure of the document is the correct rounding, half away from zero, of its value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["el", "la", "gato", "bebe", "leche", "agua"]
IDS = [0, 2, 3, 1]
TGT = 4
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
H = mp.mpf("1e-4")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


P0 = dict(
    E=M([[0.1, -0.2, 0.3, 0.05], [0.2, 0.1, -0.1, 0.3], [-0.3, 0.4, 0.2, -0.1], [0.5, -0.1, 0.1, 0.2],
         [0.3, 0.25, -0.4, 0.1], [-0.2, 0.3, 0.15, -0.35]]),
    W_Q=M([[0.2, -0.1, 0.3, 0.1], [0.1, 0.4, -0.2, 0.0], [-0.3, 0.2, 0.1, 0.25], [0.05, 0.1, 0.2, -0.3]]),
    W_K=M([[0.3, 0.1, -0.1, 0.2], [-0.2, 0.3, 0.2, 0.1], [0.1, -0.25, 0.4, 0.0], [0.2, 0.1, 0.1, 0.3]]),
    W_V=M([[0.4, -0.2, 0.1, 0.3], [0.1, 0.3, -0.3, 0.2], [-0.1, 0.2, 0.5, -0.2], [0.3, 0.1, 0.2, 0.1]]),
    W_1=M([[0.3, -0.2, 0.1, 0.4, -0.3, 0.2, 0.05, -0.1], [-0.1, 0.4, 0.2, -0.3, 0.1, 0.3, -0.2, 0.25],
           [0.2, 0.1, -0.4, 0.2, 0.3, -0.1, 0.35, 0.1], [0.1, -0.3, 0.3, 0.1, -0.2, 0.4, 0.1, -0.15]]),
    b_1=M([0.05, -0.1, 0.0, 0.1, -0.05, 0.02, 0.0, 0.1]),
    W_2=M([[0.2, -0.1, 0.3, 0.1], [-0.2, 0.3, 0.1, 0.2], [0.1, 0.2, -0.3, 0.15], [0.3, -0.2, 0.1, -0.1],
           [-0.1, 0.1, 0.2, 0.3], [0.25, 0.1, -0.1, 0.2], [0.1, -0.3, 0.2, 0.1], [-0.2, 0.1, 0.1, -0.25]]),
    b_2=M([0.01, -0.02, 0.0, 0.03]),
)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def tr(A):
    return [list(r) for r in zip(*A)]


def ln_fwd(Hm):
    d = len(Hm[0])
    mu = [mp.fsum(r) / d for r in Hm]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(Hm, mu)]
    sd = [mp.sqrt(v + EPS) for v in var]
    return mu, var, sd, [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(Hm, mu, sd)]


def ln_bwd(G, Y, sd):
    d = len(Y[0])
    out = []
    for g, y, s in zip(G, Y, sd):
        mg, mgy = mp.fsum(g) / d, mp.fsum(a * b for a, b in zip(g, y)) / d
        out.append([(g[j] - mg - y[j] * mgy) / s for j in range(d)])
    return out


def forward(P):
    E, T, d = P["E"], len(IDS), len(P["E"][0])
    ang = lambda t, j: t / mp.mpf(10000) ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = mm(H0, P["W_Q"]), mm(H0, P["W_K"]), mm(H0, P["W_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    H1 = [[H0[t][j] + x for j, x in enumerate(r)] for t, r in enumerate(mm(A, V))]
    mu1, var1, sd1, LN1 = ln_fwd(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in mm(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in mm(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, sd2, LN2 = ln_fwd(H2)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, H1=H1, mu1=mu1, var1=var1, sd1=sd1, LN1=LN1,
                Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, sd2=sd2, LN2=LN2, h_final=hf, logits=logits,
                sum_exp=sum_exp, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    E, T, d, nv = P["E"], len(IDS), len(P["E"][0]), len(P["E"])
    gl = [f["p"][v] - (1 if v == TGT else 0) for v in range(nv)]               # p - y
    gE = [[gl[v] * f["h_final"][j] for j in range(d)] for v in range(nv)]      # tied head
    gLN2 = [[mp.mpf(0)] * d for _ in range(T)]
    gLN2[-1] = [mp.fsum(gl[v] * E[v][j] for v in range(nv)) for j in range(d)]
    gH2 = ln_bwd(gLN2, f["LN2"], f["sd2"])
    gW2 = mm(tr(f["R"]), gH2)
    gb2 = [mp.fsum(gH2[t][j] for t in range(T)) for j in range(d)]
    gR = mm(gH2, tr(P["W_2"]))
    gZ = [[gR[t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(len(gR[0]))] for t in range(T)]
    gW1 = mm(tr(f["LN1"]), gZ)
    gb1 = [mp.fsum(gZ[t][k] for t in range(T)) for k in range(len(gZ[0]))]
    back1 = mm(gZ, tr(P["W_1"]))
    gH1 = ln_bwd([[gH2[t][j] + back1[t][j] for j in range(d)] for t in range(T)], f["LN1"], f["sd1"])
    gA, gV = mm(gH1, tr(f["V"])), mm(tr(f["A"]), gH1)
    gS = []
    for t in range(T):
        dot = mp.fsum(f["A"][t][r] * gA[t][r] for r in range(t + 1))
        gS.append([f["A"][t][s] * (gA[t][s] - dot) / mp.sqrt(d) if s <= t else mp.mpf(0) for s in range(T)])
    gQ, gK = mm(gS, f["K"]), mm(tr(gS), f["Q"])
    gWQ, gWK, gWV = mm(tr(f["H0"]), gQ), mm(tr(f["H0"]), gK), mm(tr(f["H0"]), gV)
    a, b, c = mm(gQ, tr(P["W_Q"])), mm(gK, tr(P["W_K"])), mm(gV, tr(P["W_V"]))
    for t, i in enumerate(IDS):
        for j in range(d):
            gE[i][j] += gH1[t][j] + a[t][j] + b[t][j] + c[t][j]
    return dict(logits=gl, E=gE, W_Q=gWQ, W_K=gWK, W_V=gWV, W_1=gW1, b_1=gb1, W_2=gW2, b_2=gb2)


def step(P, G):
    return {k: ([[x - LR * g for x, g in zip(r, gr)] for r, gr in zip(v, G[k])] if isinstance(v[0], list)
                else [x - LR * g for x, g in zip(v, G[k])]) for k, v in P.items()}


def moved(name, idx, delta):
    P = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P0.items()}
    if len(idx) == 2:
        P[name][idx[0]][idx[1]] += delta
    else:
        P[name][idx[0]] += delta
    return P


def values():
    f = forward(P0)
    g = backward(P0, f)
    P1 = step(P0, g)
    f1 = forward(P1)
    tok = {w: i for i, w in enumerate(VOCAB)}
    v = {}
    for t in range(4):
        for j in range(4):
            for k in ("PE", "H0", "H1", "LN1", "LN2"):
                v[f"{k}[{t},{j}]"] = f[k][t][j]
        for s in range(4):
            v[f"A[{t},{s}]"] = f["A"][t][s]
            v[f"S[{t},{s}]"] = f["S"][t][s]
        for k in ("mu1", "var1", "mu2", "var2", "A_den"):
            v[f"{k}[{t}]"] = f[k][t]
        v[f"sqrt(var1[{t}] + ln_eps)"] = f["sd1"][t]
        v[f"h_final[{t}]"] = f["h_final"][t]
        v[f"grad_b_2[{t}]"] = g["b_2"][t]
    for w, i in tok.items():
        v[f"logits[{w}]"] = f["logits"][i]
        v[f"p[{w}]"] = f["p"][i]
        v[f"grad_logits[{w}]"] = g["logits"][i]
        v[f"sgd[1].logits[{w}]"] = f1["logits"][i]
        v[f"sgd[1].p[{w}]"] = f1["p"][i]
        for j in range(4):
            v[f"grad_E[{w},{j}]"] = g["E"][i][j]
            v[f"grad_E_head[{w},{j}]"] = g["logits"][i] * f["h_final"][j]
            v[f"sgd[1].E[{w},{j}]"] = P1["E"][i][j]
    for i in range(4):
        for j in range(4):
            v[f"grad_W_Q[{i},{j}]"] = g["W_Q"][i][j]
            v[f"sgd[1].W_Q[{i},{j}]"] = P1["W_Q"][i][j]
    v["sgd[1].b_2[3]"] = P1["b_2"][3]
    v["sum_exp"], v["loss"], v["sgd[1].loss"] = f["sum_exp"], f["loss"], f1["loss"]
    for name, idx, label in (("E", (2, 1), "E[gato,1]"), ("W_Q", (1, 2), "W_Q[1,2]"), ("W_1", (2, 5), "W_1[2,5]"),
                             ("b_2", (3,), "b_2[3]")):
        lp, lm = forward(moved(name, idx, H))["loss"], forward(moved(name, idx, -H))["loss"]
        v[f"loss_at({label}, 1e-4)"], v[f"loss_at({label}, -1e-4)"] = lp, lm
        v[f"gradcheck({label}, 1e-4)"] = (lp - lm) / (2 * H)
        v[f"grad_{label}"] = g[name][idx[0]][idx[1]] if len(idx) == 2 else g[name][idx[0]]
    return v


def norm(s: str) -> str:
    """A printed figure as a plain decimal: Unicode minus to '-', decimal comma (also LaTeX {,}) to point, no %."""
    return s.replace("{,}", ",").replace("−", "-").replace(",", ".").replace("%", "").strip()


def places(s: str) -> int:
    s = norm(s)
    return len(s.split(".")[1]) if "." in s else 0


# Every model figure of DOC.ipynb that is not planted, as printed, with its quantity (× 100 when printed with %).
AUDIT = [
    ("0{,}1411", "PE[3,0]"), ("-0{,}9900", "PE[3,1]"), ("0{,}0300", "PE[3,2]"), ("0{,}9996", "PE[3,3]"),
    ("0.2626", "A[3,0]"), ("0.2525", "A[3,1]"), ("0.2368", "A[3,2]"), ("0.2481", "A[3,3]"),
    ("3{,}7616", "A_den[3]"),
    ("26,3 %", "A[3,0]"), ("25,2 %", "A[3,1]"), ("23,7 %", "A[3,2]"), ("24,8 %", "A[3,3]"),
    ("0.4737", "mu1[3]"), ("0.7914", "var1[3]"),
    ("0.4823", "LN1[3,0]"), ("-1.4715", "LN1[3,1]"), ("-0.2513", "LN1[3,2]"), ("1.2405", "LN1[3,3]"),
    ("0{,}7914", "var1[3]"), ("0{,}8896", "sqrt(var1[3] + ln_eps)"),
    ("0,9027", "H1[3,0]"), ("0,4737", "mu1[3]"), ("0,8896", "sqrt(var1[3] + ln_eps)"),
    ("0.6823", "h_final[0]"), ("-1.5638", "h_final[1]"), ("-0.1512", "h_final[2]"), ("1.0326", "h_final[3]"),
    ("0{,}1166", "mu2[3]"),
    ("0,6823", "h_final[0]"), ("−1,5638", "h_final[1]"), ("−0,1512", "h_final[2]"), ("1,0326", "h_final[3]"),
    ("0.3873", "logits[el]"), ("0.305", "logits[la]"), ("-0.9637", "logits[gato]"), ("0.6889", "logits[bebe]"),
    ("-0.0225", "logits[leche]"), ("-0.9897", "logits[agua]"), ("1.9023", "loss"),
    ("0{,}1492", "p[leche]"), ("30,4 %", "p[bebe]"), ("1{,}9023", "loss"),
    ("0,1492", "p[leche]"), ("−0,8508", "grad_logits[leche]"), ("0,6823", "h_final[0]"),
    ("-0.5805", "grad_E[leche,0]"), ("1.3304", "grad_E[leche,1]"), ("0.1286", "grad_E[leche,2]"),
    ("-0.8785", "grad_E[leche,3]"),
    ("-0.1309", "grad_b_2[0]"), ("-0.1387", "grad_b_2[1]"), ("0.3429", "grad_b_2[2]"), ("-0.0733", "grad_b_2[3]"),
    ("−0,5805", "grad_E[leche,0]"), ("0,3581", "sgd[1].E[leche,0]"), ("−0,8785", "grad_E[leche,3]"),
    ("0,0189", "grad_W_Q[1,2]"), ("−0,2019", "sgd[1].W_Q[1,2]"),
    ("1.3840", "sgd[1].loss"),
    ("−0,0225", "logits[leche]"), ("0,5195", "sgd[1].logits[leche]"), ("0,1492", "p[leche]"),
    ("0,2506", "sgd[1].p[leche]"), ("1,9023", "loss"),
]
GC = [("E[gato,1]", "1.90228621", "1.90231838", "-0.16086543"),
      ("W_Q[1,2]", "1.90230418", "1.90230041", "0.01885388"),
      ("W_1[2,5]", "1.90230469", "1.90229989", "0.02400629"),
      ("b_2[3]", "1.90229496", "1.90230962", "-0.07330860")]
for lab, lp, lm, gd in GC:
    AUDIT += [(lp, f"loss_at({lab}, 1e-4)"), (lm, f"loss_at({lab}, -1e-4)"), (gd, f"gradcheck({lab}, 1e-4)"),
              (gd, f"grad_{lab}")]


def main() -> int:
    v = values()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8")
    lines = doc.splitlines()
    bad = 0
    print("KEY.md rows:")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in v), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        x = v[ref] * (100 if printed.endswith("%") else 1)
        on_line = printed in lines[line - 1]
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            right = rnd(x, places(shown))
            exact = mp.mpf(norm(cells[3].rstrip("…")))
            ok = norm(shown) == right and abs(exact - x) <= mp.mpf("1e-10") * abs(x) and right != norm(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rnd(x, places(printed))
            ok = right == norm(printed)
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        if not on_line:
            ok, note = False, note + " / NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>12}  line {line:<4} {ref:<28} {mp.nstr(x, 15):<22} rounds to {right:<12} {note}")
    if n_planted != 8:
        print(f"  expected 8 planted rows, found {n_planted}")
        bad += 1
    print("audit of the document's other figures:")
    nbad = 0
    for printed, ref in AUDIT:
        x = v[ref] * (100 if printed.endswith("%") else 1)
        right = rnd(x, places(printed))
        if right != norm(printed) or printed not in doc:
            nbad += 1
            print(f"  {printed:>12}  {ref:<28} {mp.nstr(x, 15)} rounds to {right}  WRONG or absent")
    print(f"  {len(AUDIT) - nbad} of {len(AUDIT)} audited figures are correct roundings present in DOC.ipynb")
    bad += nbad
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    assert not bad, f"{bad} problems"
    return 0


if __name__ == "__main__":
    sys.exit(main())
