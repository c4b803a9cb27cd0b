#!/usr/bin/env python3
"""Independent computation behind KEY.md of fr-nbhtml-seed-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model (read from SPEC.toml): one post-LN transformer block, one head, d = 2, d_ff = 4, ReLU, sinusoidal
positions (PE[t,0] = sin t, PE[t,1] = cos t for d = 2), LayerNorm without learned gain/shift (biased
variance, eps from the spec), tied head (logits = LN2[T-1]·Eᵀ), loss = -ln p[target] at the last position.
Gradients: central finite differences at h = 1e-20 on every one of the 46 parameters (50-digit arithmetic:
about 30 correct digits, far more than any printed figure needs), checked against an analytic
softmax-cross-entropy gradient for the head path. SGD: θ ← θ − lr·∂L/∂θ on every parameter, two steps.

Checks:
  * every KEY.md row: exact value, correct rounding (half away from zero), printed text on the stated line;
  * every tensor printed in an output <pre> of DOC.html against the exact values (planted entries excepted,
    they must differ);
  * every model figure written in the prose (PROSE list below) against its exact value.
"""
from __future__ import annotations

import copy
import html
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
EPS = mp.mpf(str(SPEC["model"]["ln_eps"]))
BASE = mp.mpf(str(SPEC["model"].get("pe_base", 10000)))
LR = mp.mpf(str(SPEC["training"]["lr"]))
_L = SPEC["layer"][0]
P0 = {"E": M(SPEC["weights"]["E"]), "W_Q": M(_L["W_Q"]), "W_K": M(_L["W_K"]), "W_V": M(_L["W_V"]),
      "W_1": M(_L["W_1"]), "b_1": M(_L["b_1"]), "W_2": M(_L["W_2"]), "b_2": M(_L["b_2"])}


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]


def forward(P):
    E, T, d = P["E"], len(IDS), len(P["E"][0])
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    logits = [mp.fsum(LN2[-1][j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, logits=logits, sum_exp=sum_exp,
                p=p, loss=-mp.log(p[TGT]))


def gradient(P, h=mp.mpf("1e-20")):
    G = {}
    for name, X in P.items():
        is_mat = isinstance(X[0], list)
        cells = ([(i, j) for i in range(len(X)) for j in range(len(X[0]))] if is_mat
                 else [(i, None) for i in range(len(X))])
        g = [[None] * len(X[0]) for _ in X] if is_mat else [None] * len(X)
        for i, j in cells:
            Pp, Pm = copy.deepcopy(P), copy.deepcopy(P)
            if is_mat:
                Pp[name][i][j] += h
                Pm[name][i][j] -= h
            else:
                Pp[name][i] += h
                Pm[name][i] -= h
            v = (forward(Pp)["loss"] - forward(Pm)["loss"]) / (2 * h)
            if is_mat:
                g[i][j] = v
            else:
                g[i] = v
        G[name] = g
    return G


def sgd_step(P, G):
    return {n: ([[X[i][j] - LR * G[n][i][j] for j in range(len(X[0]))] for i in range(len(X))]
                if isinstance(X[0], list) else [X[i] - LR * G[n][i] for i in range(len(X))]) for n, X in P.items()}


# ---------------------------------------------------------------- the states

F0 = forward(P0)
G0 = gradient(P0)
P1 = sgd_step(P0, G0)
F1 = forward(P1)
G1 = gradient(P1)
P2 = sgd_step(P1, G1)
F2 = forward(P2)

# analytic cross-check of the head path: café is not in the input, so its embedding row gets only
# (p[café] - 1)·LN2[T-1]
for j in range(2):
    analytic = (F0["p"][TGT] - 1) * F0["LN2"][-1][j]
    assert abs(analytic - G0["E"][TGT][j]) < mp.mpf("1e-25"), "finite differences disagree with (p - y)·h"

tok = VOCAB.index
VALUES = {
    # planted
    "H0[1,0]": F0["H0"][1][0],
    "A[2,0]": F0["A"][2][0],
    "Attn[2,1]": F0["Attn"][2][1],
    "var1[2]": F0["var1"][2],
    "F[2,1]": F0["F"][2][1],
    "p[café]": F0["p"][TGT],
    "grad_W_Q[0,1]": G0["W_Q"][0][1],
    "sgd[1].E[café,0]": P1["E"][TGT][0],
    # correct sample
    "PE[2,0]": F0["PE"][2][0],
    "Q[2,0]": F0["Q"][2][0],
    "A_den[2]": F0["A_den"][2],
    "mu1[2]": F0["mu1"][2],
    "Z[2,3]": F0["Z"][2][3],
    "sum_exp": F0["sum_exp"],
    "loss": F0["loss"],
    "grad_W_1[0,0]": G0["W_1"][0][0],
    "grad_E[café,0]": G0["E"][TGT][0],
    "sgd[1].W_1[0,0]": P1["W_1"][0][0],
    "sgd[1].loss": F1["loss"],
    "sgd[2].loss": F2["loss"],
    "sgd[1].p[café]": F1["p"][TGT],
    "sgd[2].p[café]": F2["p"][TGT],
}


# ---------------------------------------------------------------- rounding and figures

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s


def rnd_sci(v, n: int) -> str:
    """v as m.mmmme±XX with n mantissa decimals, half away from zero (torch's sci layout)."""
    if v == 0:
        return f"{0:.{n}f}e+00"
    e = int(mp.floor(mp.log10(abs(v))))
    m = rnd(v / mp.mpf(10) ** e, n)
    if abs(Decimal(m)) >= 10:                       # 9.99995 → 10.0000: renormalise
        e += 1
        m = rnd(v / mp.mpf(10) ** e, n)
    return f"{m}e{'-' if e < 0 else '+'}{abs(e):02d}"


def norm(s: str) -> str:
    return s.replace("−", "-").replace("\u2009", " ").strip()


def round_like(v, shown: str) -> str:
    """The correct rounding of v at the precision and in the form of the figure `shown`."""
    s = norm(shown)
    if s.endswith("%"):
        body = s.rstrip("%").rstrip()
        places = len(body.split(".")[1]) if "." in body else 0
        return rnd(v * 100, places) + s[len(body):]
    if "e" in s:
        mant = s.split("e")[0]
        return rnd_sci(v, len(mant.split(".")[1]) if "." in mant else 0)
    return rnd(v, len(s.split(".")[1]) if "." in s else 0)


# ---------------------------------------------------------------- the document's tensors

DOC = (HERE / "DOC.html").read_text(encoding="utf-8")
DOC_LINES = DOC.splitlines()


def flat(x):
    return ([y for r in x for y in r] if isinstance(x, list) and x and isinstance(x[0], list)
            else (x if isinstance(x, list) else [x]))


# the <pre> outputs of the notebook, in order; each tensor against its exact values
OUTPUT_TENSORS = [
    ("In[2]", [46]),
    ("In[3]", flat(F0["PE"])), ("In[3]", flat(F0["H0"])),
    ("In[4]", flat(F0["Q"])), ("In[4]", flat(F0["K"])), ("In[4]", flat(F0["V"])),
    ("In[5]", flat(F0["S"])),
    ("In[6]", flat(F0["A"])),
    ("In[7]", flat(F0["Attn"])),
    ("In[8]", flat(F0["H1"])), ("In[8]", F0["mu1"]), ("In[8]", F0["var1"]), ("In[8]", flat(F0["LN1"])),
    ("In[9]", flat(F0["Z"])), ("In[9]", flat(F0["R"])), ("In[9]", flat(F0["F"])),
    ("In[10]", F0["mu2"]), ("In[10]", F0["var2"]), ("In[10]", flat(F0["LN2"])),
    ("In[11]", F0["logits"]),
    ("In[12]", F0["p"]), ("In[12]", [F0["loss"]]),
    ("In[13]", flat(G0["W_Q"])),
    ("In[14]", flat(G0["W_1"])), ("In[14]", G0["E"][TGT]),
    ("In[15]", flat(P1["W_Q"])), ("In[15]", flat(P1["W_1"])), ("In[15]", P1["E"][TGT]),
    ("In[16]", [F1["loss"]]),
    ("In[17]", [F2["loss"]]),
]
PLANTED_IN_OUTPUTS = {("In[3]", 1, 2), ("In[13]", 0, 1)}   # (cell, tensor #, flat index): planted, must differ

NUM = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?|(?<![\w.])\d+(?![\w.])")


def output_tensors():
    """Every tensor printed in an output <pre>, with its cell, as lists of figure strings."""
    out = []
    for m in re.finditer(r'In&nbsp;\[(\d+)\]:.*?(?=In&nbsp;\[\d+\]:|\Z)', DOC, re.S):
        cell = f"In[{m.group(1)}]"
        chunk = m.group(0)
        for pre in re.findall(r'class="[^"]*output_subarea[^"]*"><pre>(.*?)</pre>', chunk, re.S):
            text = html.unescape(pre)
            parts = re.findall(r"tensor\((.*?)dtype=", text, re.S) or [text]
            for part in parts:
                out.append((cell, NUM.findall(part)))
    return out


# ---------------------------------------------------------------- the prose's figures

# (text as printed in DOC, exact value): every model figure of the Markdown cells that is not planted
PROSE = [
    ("0.9093", F0["PE"][2][0]), ("-0.4161", F0["PE"][2][1]), ("1.0093", F0["H0"][2][0]),
    ("-0.2161", F0["H0"][2][1]), ("0.3605", F0["Q"][2][0]), ("0.3460", F0["K"][2][0]),
    ("0.0145", F0["K"][2][1]), ("-0.4109", F0["Q"][2][1]), ("0.0840", F0["S"][2][2]),
    ("-0.1362", F0["S"][2][0]), ("-0.1268", F0["S"][2][1]), ("2.8412", F0["A_den"][2]),
    ("0.3828", F0["A"][2][2]), ("49.01 %", F0["A"][1][0]), ("50.99 %", F0["A"][1][1]),
    ("31.01 %", F0["A"][2][1]), ("38.28 %", F0["A"][2][2]), ("38 %", F0["A"][2][2]), ("100 %", F0["A"][0][0]),
    ("0.87263", mp.exp(F0["S"][2][0])), ("0.88092", mp.exp(F0["S"][2][1])), ("1.08763", mp.exp(F0["S"][2][2])),
    ("0.3071", F0["A"][2][0]), ("0.3101", F0["A"][2][1]), ("0.0600", F0["V"][0][0]), ("0.2267", F0["V"][1][0]),
    ("0.5263", F0["V"][2][0]), ("0.3300", F0["V"][0][1]), ("0.4104", F0["V"][1][1]), ("0.1370", F0["V"][2][1]),
    ("0.2902", F0["Attn"][2][0]), ("1.2995", F0["H1"][2][0]), ("0.0649", F0["H1"][2][1]),
    ("0.6822", F0["mu1"][2]), ("0.6173", F0["H1"][2][0] - F0["mu1"][2]),
    ("1.0000", F0["LN1"][2][0]), ("-1.0000", F0["LN1"][2][1]), ("0.6500", F0["Z"][2][3]), ("0.6000", F0["Z"][2][0]),
    ("0.3600", F0["F"][2][0]), ("0.8000", F0["logits"][TGT]), ("6.5184", F0["sum_exp"]),
    ("2.2255", mp.exp(F0["logits"][TGT])), ("0.3414", F0["p"][TGT]), ("0.2289", F0["p"][0]),
    ("1.8746", mp.log(F0["sum_exp"])), ("1.0746", F0["loss"]), ("-0.6586", G0["E"][TGT][0]),
    ("0.6586", G0["E"][TGT][1]), ("-6.6420e-07", G0["W_1"][0][0]), ("0.20000006642", P1["W_1"][0][0]),
    ("-0.3659", P1["E"][TGT][1]), ("0.9709", F1["loss"]), ("0.8788", F2["loss"]),
    ("0.3788", F1["p"][TGT]), ("0.4153", F2["p"][TGT]),
]


def main() -> int:
    bad = 0
    # 1. the key
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    n_planted = 0
    print("KEY.md rows:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in VALUES), None)
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = VALUES[ref]
        on_line = 1 <= line <= len(DOC_LINES) and printed in DOC_LINES[line - 1]
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            right = round_like(v, shown)
            exact = mp.mpf(cells[3].replace("…", "").replace("−", "-"))
            scale = 100 if shown.endswith("%") else 1
            ok = (shown == right and abs(exact - v * scale) <= mp.mpf("1e-10") * abs(v * scale)
                  and round_like(v, printed) != norm(printed) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = round_like(v, printed)
            ok = right == norm(printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>14}  line {line:>3}  {ref:<18} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    if n_planted != 8:
        print(f"  EXPECTED 8 PLANTED ROWS, GOT {n_planted}")
        bad += 1

    # 2. every tensor the notebook prints
    got = output_tensors()
    if len(got) != len(OUTPUT_TENSORS):
        print(f"OUTPUT TENSORS: {len(got)} printed, {len(OUTPUT_TENSORS)} expected")
        bad += 1
    n_fig = 0
    for k, ((cell, figs), (cell_e, vals)) in enumerate(zip(got, OUTPUT_TENSORS)):
        idx = sum(1 for c, _ in OUTPUT_TENSORS[:k] if c == cell_e)
        if cell != cell_e or len(figs) != len(vals):
            print(f"  {cell}: {len(figs)} figures, expected {cell_e}: {len(vals)}")
            bad += 1
            continue
        for i, (f, v) in enumerate(zip(figs, vals)):
            n_fig += 1
            right = round_like(mp.mpf(v), f) if "." in f else str(v)
            planted = (cell, idx, i) in PLANTED_IN_OUTPUTS
            if (right == f) == planted:
                print(f"  {cell} tensor {idx} entry {i}: printed {f}, correct {right}, planted={planted}  MISMATCH")
                bad += 1
    print(f"output tensors: {len(got)} tensors, {n_fig} figures checked")

    # 3. the prose
    for text, v in PROSE:
        if round_like(v, text) != norm(text):
            print(f"  prose {text}: correct rounding is {round_like(v, text)}  MISMATCH")
            bad += 1
        if text.replace("-", "−") not in DOC and text not in DOC:
            print(f"  prose {text}: not in DOC.html")
            bad += 1
    print(f"prose: {len(PROSE)} figures checked")
    print("all key rows, output tensors and prose figures agree with the oracle" if not bad
          else f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
