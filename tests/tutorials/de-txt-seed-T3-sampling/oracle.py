#!/usr/bin/env python3
"""Independent oracle for de-txt-seed-T3-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # prints every KEY.md row's quantity with its exact value, checks the key's
                         # "exact value" and "correct rounding" columns, and checks every model figure
                         # of DOC.txt (correct ones round correctly, planted ones do not)

Model (SPEC.toml): one post-LN block ("seed"), one head, d = 2, d_ff = 4, ReLU, sinusoidal positions
(d = 2: PE(t) = (sin t, cos t)), tied head, ln_eps = 0.1, input "ich trinke gern", target "Tee".
H0 = E[ids] + PE; Q, K, V = H0·W; S = Q·Kᵀ/√2, causal softmax A; Attn = A·V; H1 = H0 + Attn;
LN1 (biased variance); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2;
logits = LN2[2]·Eᵀ; p = softmax(logits); loss = -ln p[Tee].
Sampling: softmax_T(T, v) = softmax(logits/T)[v]; topk(2, v) = p[v] / (p of the 2 most probable);
topp(0.8, v) = p[v] / (mass of the shortest prefix of the ranking with mass >= 0.8).
Rounding is half away from zero, on the 45-digit decimal of the value; the document prints a
decimal comma.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["ich", "trinke", "gern", "Kaffee", "Tee", "Milch"]
TOK = {w: i for i, w in enumerate(VOCAB)}


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


E = M([[0.2, -0.1], [0.5, 0.3], [-0.4, 0.6], [0.9, -0.7], [0.6, -0.2], [-0.3, 0.8]])
W_Q = M([[0.5, 0.3], [-0.2, 0.8]])
W_K = M([[0.4, -0.6], [0.7, 0.1]])
W_V = M([[0.6, -0.3], [0.2, 0.9]])
W_1 = M([[0.5, -0.4, 0.3, 0.2], [-0.3, 0.6, 0.1, -0.5]])
b_1 = M([0.1, -0.1, 0.0, 0.2])
W_2 = M([[0.4, -0.3], [-0.2, 0.5], [0.6, 0.1], [-0.1, -0.4]])
b_2 = M([0.05, -0.05])
EPS = mp.mpf("0.1")
IDS = [TOK["ich"], TOK["trinke"], TOK["gern"]]
TARGET = TOK["Tee"]


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def forward():
    T, d = len(IDS), 2
    PE = [[mp.sin(t), mp.cos(t)] for t in range(T)]          # base^(0/d) = 1 for d = 2
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, W_Q), matmul(H0, W_K), matmul(H0, W_V)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, b_1)] for r in matmul(LN1, W_1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b_2)] for r in matmul(R, W_2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(VOCAB))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, h=h, logits=logits,
                sum_exp=sum_exp, p=p, loss=-mp.log(p[TARGET]))


def values():
    f = forward()
    v = {}
    for name in ("PE", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t, row in enumerate(f[name]):
            for j, x in enumerate(row):
                v[f"{name}[{t},{j}]"] = x
    for name in ("A_den", "mu1", "var1", "mu2", "var2"):
        for t, x in enumerate(f[name]):
            v[f"{name}[{t}]"] = x
    for j, x in enumerate(f["h"]):
        v[f"h_final[{j}]"] = x
    for t in range(3):
        v[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + EPS)
        v[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(f["var2"][t] + EPS)
    p, z = f["p"], f["logits"]
    for w, i in TOK.items():
        v[f"logits[{w}]"] = z[i]
        v[f"p[{w}]"] = p[i]
        v[f"exp(logits[{w}])"] = mp.exp(z[i])
    v["sum_exp"], v["loss"], v["ln_eps"] = f["sum_exp"], f["loss"], EPS
    # temperature
    for Ts in ("0.5", "1", "2"):
        T = mp.mpf(Ts)
        den = mp.fsum(mp.exp(x / T) for x in z)
        v[f"sum_exp_T({Ts})"] = den
        for w, i in TOK.items():
            v[f"softmax_T({Ts}, {w})"] = mp.exp(z[i] / T) / den
    # ranking, top-k, top-p
    order = sorted(range(len(VOCAB)), key=lambda i: (-p[i], i))
    assert [VOCAB[i] for i in order[:4]] == ["Kaffee", "Tee", "ich", "trinke"]
    assert max(range(6), key=lambda i: p[i]) == TOK["Kaffee"]          # greedy
    mass_k = p[order[0]] + p[order[1]]
    for i in order[:2]:
        v[f"topk(2, {VOCAB[i]})"] = p[i] / mass_k
    cum, n = mp.mpf(0), 0
    while cum < mp.mpf("0.8"):
        cum += p[order[n]]
        n += 1
    assert n == 3, n
    for i in order[:n]:
        v[f"topp(0.8, {VOCAB[i]})"] = p[i] / cum
    v["p[Kaffee] + p[Tee]"] = p[TOK["Kaffee"]] + p[TOK["Tee"]]
    v["p[Kaffee] + p[Tee] + p[ich]"] = cum
    return v


def rnd(x, n: int) -> str:
    """Half away from zero at n decimals, written with a decimal comma."""
    d = Decimal(mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}".replace(".", ",")


def right_for(printed: str, x) -> str:
    """The correct rounding of x at the precision and in the style of `printed` (percent: x × 100)."""
    pct = printed.endswith("%")
    body = printed.rstrip("%").rstrip()
    places = len(body.split(",")[1]) if "," in body else 0
    s = rnd(x * 100 if pct else x, places)
    return s + (" %" if pct else "")


# Every model figure of DOC.txt: (line, printed, quantity, planted?)
FIGURES = [
    (37, "0,200", "H0[0,0]", 0), (37, "0,900", "H0[0,1]", 0),
    (38, "1,341", "H0[1,0]", 0), (38, "0,840", "H0[1,1]", 0),
    (39, "0,509", "H0[2,0]", 0), (39, "0,184", "H0[2,1]", 0),
    (48, "0,218", "Q[2,0]", 0), (48, "0,300", "Q[2,1]", 0),
    (53, "0,710", "K[0,0]", 0), (53, "-0,030", "K[0,1]", 0), (53, "0,300", "V[0,0]", 0), (53, "0,750", "V[0,1]", 0),
    (54, "-0,030", "K[1,0]", 1), (54, "-0,721", "K[1,1]", 0), (54, "0,973", "V[1,0]", 0), (54, "0,354", "V[1,1]", 0),
    (55, "0,332", "K[2,0]", 0), (55, "-0,287", "K[2,1]", 0), (55, "0,342", "V[2,0]", 0), (55, "0,013", "V[2,1]", 0),
    (63, "0,103", "S[2,0]", 0), (63, "0,020", "S[2,1]", 0), (63, "-0,010", "S[2,2]", 0),
    (66, "3,120", "A_den[2]", 0),
    (68, "0,355", "A[2,0]", 0), (68, "0,327", "A[2,1]", 0), (68, "0,317", "A[2,2]", 0),
    (71, "35,5 %", "A[2,0]", 0), (72, "3,17 %", "A[2,2]", 1),
    (76, "0,534", "Attn[2,0]", 0), (76, "0,386", "Attn[2,1]", 0),
    (77, "1,043", "H1[2,0]", 0), (77, "0,570", "H1[2,1]", 0),
    (83, "0,807", "mu1[2]", 0), (83, "0,0559", "var1[2]", 0),
    (85, "1,043", "H1[2,0]", 0), (85, "0,807", "mu1[2]", 0), (85, "0,395", "sqrt(var1[2] + ln_eps)", 0),
    (85, "0,597", "LN1[2,0]", 1),
    (86, "-0,599", "LN1[2,1]", 0),
    (92, "0,579", "Z[2,0]", 0), (92, "-0,699", "Z[2,1]", 0), (92, "0,120", "Z[2,2]", 0), (92, "0,419", "Z[2,3]", 1),
    (93, "0,292", "F[2,0]", 0), (93, "0,459", "F[2,1]", 1),
    (94, "0,890", "H2[2,0]", 0), (94, "-1,058", "H2[2,1]", 0),
    (103, "-0,084", "mu2[2]", 0), (103, "0,949", "var2[2]", 0),
    (105, "0,951", "h_final[0]", 0), (105, "-0,951", "h_final[1]", 0),
    (117, "0,258", "logits[ich]", 1), (117, "0,190", "logits[trinke]", 0), (117, "-0,951", "logits[gern]", 0),
    (117, "1,522", "logits[Kaffee]", 0), (117, "0,761", "logits[Tee]", 0), (117, "-1,046", "logits[Milch]", 0),
    (119, "9,998", "sum_exp", 0),
    (129, "0,061", "softmax_T(0.5, ich)", 0), (129, "0,133", "softmax_T(1, ich)", 0), (129, "0,163", "softmax_T(2, ich)", 0),
    (130, "0,050", "softmax_T(0.5, trinke)", 0), (130, "0,121", "softmax_T(1, trinke)", 0),
    (130, "0,156", "softmax_T(2, trinke)", 0),
    (131, "0,005", "softmax_T(0.5, gern)", 0), (131, "0,039", "softmax_T(1, gern)", 0), (131, "0,088", "softmax_T(2, gern)", 0),
    (132, "0,722", "softmax_T(0.5, Kaffee)", 0), (132, "0,458", "softmax_T(1, Kaffee)", 0),
    (132, "0,303", "softmax_T(2, Kaffee)", 0),
    (133, "0,158", "softmax_T(0.5, Tee)", 0), (133, "0,214", "softmax_T(1, Tee)", 0), (133, "0,208", "softmax_T(2, Tee)", 1),
    (134, "0,004", "softmax_T(0.5, Milch)", 0), (134, "0,035", "softmax_T(1, Milch)", 0),
    (134, "0,084", "softmax_T(2, Milch)", 0),
    (136, "29,067", "sum_exp_T(0.5)", 0),
    (154, "0,682", "topk(2, Kaffee)", 0), (154, "0,318", "topk(2, Tee)", 0),
    (164, "0,458", "p[Kaffee]", 0), (165, "0,672", "p[Kaffee] + p[Tee]", 0),
    (166, "0,805", "p[Kaffee] + p[Tee] + p[ich]", 0),
    (171, "0,569", "topp(0.8, Kaffee)", 0), (171, "0,266", "topp(0.8, Tee)", 0), (171, "0,165", "topp(0.8, ich)", 0),
    (177, "0,214", "p[Tee]", 0), (177, "1,5418", "loss", 1),
]

# Planted errors: how the printed figure arises (checked exactly)
def planted_explanations(v):
    return {
        "K[1,0]": ("-0,030", v["K[0,1]"]),                                  # transposed entry
        "A[2,2]": ("3,17 %", v["A[2,2]"] / 10),                             # decimal point moved
        "LN1[2,0]": ("0,597", (mp.mpf("1.043") - mp.mpf("0.807")) / mp.mpf("0.395")),   # carried
        "Z[2,3]": ("0,419", v["Z[2,3]"] - b_1[3]),                          # b_1 forgotten
        "F[2,1]": ("0,459", -v["F[2,1]"]),                                  # sign flip
        "logits[ich]": ("0,258", None),                                     # digits swapped 0,285
        "softmax_T(2, Tee)": ("0,208", None),                               # last digit +1
        "loss": ("1,5418", -mp.log(mp.mpf("0.214"))),                       # carried
    }


def main() -> int:
    v = values()
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    bad = 0

    # 1. every model figure of the document
    n_planted = 0
    for line, printed, q, planted in FIGURES:
        right = right_for(printed, v[q])
        if printed not in doc[line - 1]:
            print(f"  line {line}: {printed!r} NOT ON THAT LINE")
            bad += 1
        if planted:
            n_planted += 1
            if right == printed:
                print(f"  planted {printed} at {line} is the correct rounding of {q}!")
                bad += 1
        elif right != printed:
            print(f"  line {line}: {printed} for {q} should be {right}")
            bad += 1
    print(f"DOC.txt: {len(FIGURES)} model figures, {n_planted} planted, "
          f"{'all others correct' if not bad else f'{bad} problems'}")

    for q, (printed, how) in planted_explanations(v).items():
        if how is not None:
            got = right_for(printed, how)
            if got != printed:
                print(f"  explanation of planted {printed} ({q}) gives {got}")
                bad += 1
    assert right_for("0,258", v["logits[ich]"]) == "0,285"
    assert right_for("0,208", v["softmax_T(2, Tee)"]) == "0,207"

    # 2. the key
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    n_key_planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        known = [n for n in names if n in v]
        if not known:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        ref = known[0]
        for other in known[1:]:
            assert abs(v[other] - v[ref]) < mp.mpf("1e-40"), (ref, other)
        x = v[ref]
        shown_x = x * 100 if printed.endswith("%") else x
        on_line = printed in doc[line - 1]
        if len(cells) == 7:
            n_key_planted += 1
            shown = cells[4].strip("`")
            right = right_for(shown, x)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - shown_x) <= mp.mpf("1e-10") * abs(shown_x)
                  and right_for(printed, x) != printed and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = right_for(printed, x)
            note = "correct" if right == printed and on_line else "NOT THE CORRECT ROUNDING (or not on its line)"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<30} {mp.nstr(shown_x, 15):<22} rounds to {right:<9} {note}")
    if n_key_planted != 8:
        print(f"  the key lists {n_key_planted} planted errors, not 8")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
