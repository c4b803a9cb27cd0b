#!/usr/bin/env python3
"""Independent check of ja-md-bigram-3sgd-gradcheck: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Reads the weights from SPEC.toml, computes every model figure DOC.md prints
(bigram x = E[魚], z = x·W, p = softmax(z), loss = -ln p[食べる], grad_z = p - y,
grad_W = outer(x, p - y), grad_x = W·(p - y) on E's input row only; the central
difference (L(θ+h) - L(θ-h))/2h at h = 1e-3 on W[0,食べる]; three SGD steps with
lr 0.5 on W and E together), then checks

* every figure listed in FIGURES below: the printed text is on its line of DOC.md, a
  correct figure is the rounding half away from zero of its exact value at the printed
  precision, a planted one is not (and reproduces its stated mistake);
* every row of KEY.md: exact value, correct rounding, printed text on the stated line.
"""
from __future__ import annotations

import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def num(v):
    return mp.mpf(str(v))


def rnd(v, n: int) -> str:
    """v rounded half away from zero to n decimals (Decimal's ROUND_HALF_UP is away from zero)."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sci(v, sig: int) -> tuple[str, int]:
    """Mantissa (sig significant digits) and exponent of v, half away from zero."""
    e = int(mp.floor(mp.log10(abs(v))))
    m = rnd(v / mp.mpf(10) ** e, sig - 1)
    if abs(Decimal(m)) >= 10:
        e += 1
        m = rnd(v / mp.mpf(10) ** e, sig - 1)
    return m, e


# ---------------------------------------------------------------- the model

spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
ID = {w: i for i, w in enumerate(VOCAB)}
E0 = [[num(v) for v in r] for r in spec["weights"]["E"]]
W0 = [[num(v) for v in r] for r in spec["weights"]["W"]]
TOK = ID[spec["data"]["input"][0]]
TGT = ID[spec["data"]["target"]]
LR = num(spec["training"]["lr"])
STEPS = spec["training"]["steps"]
H = num(spec["training"]["gradcheck"]["h"])
V, D = len(VOCAB), spec["model"]["d"]
assert (VOCAB, TOK, TGT, D, STEPS) == (["猫", "魚", "食べる", "寝る"], 1, 2, 2, 3)
assert LR == num("0.5") and H == num("0.001") and spec["training"]["gradcheck"]["params"] == ["W[0,2]"]


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(v) for v in z]
    S = mp.fsum(ex)
    p = [e / S for e in ex]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(E=E, W=W, x=x, z=z, exp=ex, sum_exp=S, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW, grad_x=gx)


states = [forward(E0, W0)]
for _ in range(STEPS):
    s = states[-1]
    W2 = [[s["W"][i][j] - LR * s["grad_W"][i][j] for j in range(V)] for i in range(D)]
    E2 = [r[:] for r in s["E"]]
    E2[TOK] = [s["E"][TOK][i] - LR * s["grad_x"][i] for i in range(D)]
    states.append(forward(E2, W2))
s0 = states[0]


def loss_at(i, j, delta):
    W = [r[:] for r in W0]
    W[i][j] += delta
    return forward(E0, W)["loss"]


L_plus, L_minus = loss_at(0, TGT, H), loss_at(0, TGT, -H)
numeric = (L_plus - L_minus) / (2 * H)

# every value, by symgpt's reference names (tokens written as words)
VAL: dict[str, mp.mpf] = {}
for k, st in enumerate(states):
    pre = "" if k == 0 else f"sgd[{k}]."
    for v, w in enumerate(VOCAB):
        VAL[f"{pre}z[{w}]"] = st["z"][v]
        VAL[f"{pre}exp(z[{w}])" if k == 0 else f"exp({pre}z[{w}])"] = st["exp"][v]
        VAL[f"{pre}p[{w}]"] = st["p"][v]
        VAL[f"{pre}grad_z[{w}]"] = st["grad_z"][v]
        for i in range(D):
            VAL[f"{pre}W[{i},{w}]"] = st["W"][i][v]
            VAL[f"{pre}E[{w},{i}]"] = st["E"][v][i]
            VAL[f"{pre}grad_W[{i},{w}]"] = st["grad_W"][i][v]
    for i in range(D):
        VAL[f"{pre}x[{i}]"] = st["x"][i]
        VAL[f"{pre}grad_x[{i}]"] = st["grad_x"][i]
        VAL[f"{pre}grad_E[魚,{i}]"] = st["grad_x"][i]
    VAL[f"{pre}sum_exp"] = st["sum_exp"]
    VAL[f"{pre}loss"] = st["loss"]
VAL["exp(z[寝る])"] = s0["exp"][3]
VAL["loss_at(W[0,食べる], 0.001)"] = L_plus
VAL["loss_at(W[0,食べる], -0.001)"] = L_minus
VAL["gradcheck(W[0,食べる], 0.001)"] = numeric
VAL["gradcheck(W[0,食べる], 0.001) - grad_W[0,食べる]"] = numeric - s0["grad_W"][0][TGT]
VAL["100*(loss - sgd[3].loss)/loss"] = 100 * (s0["loss"] - states[3]["loss"]) / s0["loss"]
# figures that are exact facts of the gradient check's setting, not graph nodes
VAL["W[0,食べる] + 0.001"] = W0[0][TGT] + H
VAL["W[0,食べる] - 0.001"] = W0[0][TGT] - H
VAL["z[食べる] + x[0]*0.001"] = s0["z"][TGT] + s0["x"][0] * H
VAL["z[食べる] - x[0]*0.001"] = s0["z"][TGT] - s0["x"][0] * H

# ---------------------------------------------------------------- every model figure of DOC.md
# (line, printed, ref, planted?)  — the planted ones carry the mistake they reproduce, checked below.
FIGURES = [
    (36, "0.2", "E[猫,0]", 0), (36, "-0.1", "E[猫,1]", 0), (36, "0.4", "E[魚,0]", 0), (36, "0.3", "E[魚,1]", 0),
    (36, "-0.3", "E[食べる,0]", 0), (36, "0.5", "E[食べる,1]", 0), (36, "0.1", "E[寝る,0]", 0), (36, "-0.4", "E[寝る,1]", 0),
    (42, "0.3", "W[0,猫]", 0), (42, "-0.2", "W[0,魚]", 0), (42, "0.1", "W[0,食べる]", 0), (42, "0.5", "W[0,寝る]", 0),
    (43, "-0.1", "W[1,猫]", 0), (43, "0.4", "W[1,魚]", 0), (43, "-0.3", "W[1,食べる]", 0), (43, "0.2", "W[1,寝る]", 0),
    (54, "0.4", "x[0]", 0), (54, "0.3", "x[1]", 0),
    (63, "0.09", "z[猫]", 0), (64, "0.04", "z[魚]", 0), (65, "-0.05", "z[食べる]", 0), (66, "0.26", "z[寝る]", 0),
    (80, "1.0942", "exp(z[猫])", 0), (80, "1.0408", "exp(z[魚])", 0), (80, "0.9512", "exp(z[食べる])", 0),
    (80, "1.2968", "exp(z[寝る])", "last-digit slip"),
    (83, "1.2969", "exp(z[寝る])", 0), (83, "4.3831", "sum_exp", 0),
    (89, "0.9512", "exp(z[食べる])", 0), (89, "4.3831", "sum_exp", 0), (89, "0.2170", "p[食べる]", 0),
    (95, "0.2469", "p[猫]", "digits swapped"), (95, "0.2375", "p[魚]", 0), (95, "0.2170", "p[食べる]", 0),
    (95, "0.2959", "p[寝る]", 0),
    (105, "0.217020", "p[食べる]", 0), (105, "0.6635", "loss", "log10"),
    (121, "0.2170", "p[食べる]", 0), (121, "-0.7830", "grad_z[食べる]", 0),
    (122, "0.2496", "grad_z[猫]", 0), (122, "0.2375", "grad_z[魚]", 0), (122, "-0.7830", "grad_z[食べる]", 0),
    (122, "0.2959", "grad_z[寝る]", 0),
    (139, "0.4", "x[0]", 0), (139, "0.0999", "grad_W[0,猫]", 0), (139, "0.0749", "grad_W[0,魚]", "transposed"),
    (139, "-0.3132", "grad_W[0,食べる]", 0), (139, "0.1184", "grad_W[0,寝る]", 0),
    (140, "0.3", "x[1]", 0), (140, "0.0749", "grad_W[1,猫]", 0), (140, "0.0712", "grad_W[1,魚]", 0),
    (140, "-0.2349", "grad_W[1,食べる]", 0), (140, "0.0888", "grad_W[1,寝る]", 0),
    (145, "-0.7830", "grad_z[食べる]", 0), (145, "-0.2349", "grad_W[1,食べる]", 0),
    (160, "0.2496", "p[猫]", 0), (160, "0.2375", "p[魚]", 0), (160, "-0.7830", "grad_z[食べる]", 0),
    (160, "0.2959", "p[寝る]", 0), (160, "-0.0970", "grad_x[0]", "sign"),
    (161, "0.2496", "p[猫]", 0), (161, "0.2375", "p[魚]", 0), (161, "-0.7830", "grad_z[食べる]", 0),
    (161, "0.2959", "p[寝る]", 0), (161, "0.3641", "grad_x[1]", 0),
    (165, "0.0970", "grad_x[0]", 0), (165, "0.3641", "grad_x[1]", 0),
    (177, "0.1", "W[0,食べる]", 0), (177, "0.101", "W[0,食べる] + 0.001", 0), (177, "-0.0496", "z[食べる] + x[0]*0.001", 0),
    (177, "0.099", "W[0,食べる] - 0.001", 0), (177, "-0.0504", "z[食べる] - x[0]*0.001", 0),
    (179, "1.527453", "loss_at(W[0,食べる], 0.001)", 0), (180, "1.528080", "loss_at(W[0,食べる], -0.001)", 0),
    (185, "1.527453", "loss_at(W[0,食べる], 0.001)", 0), (185, "1.528080", "loss_at(W[0,食べる], -0.001)", 0),
    (185, "-0.3135", "gradcheck(W[0,食べる], 0.001)", "carried"),
    (188, "-0.3132", "grad_W[0,食べる]", 0),
    (194, "1.5274532264757", "loss_at(W[0,食べる], 0.001)", 0),
    (195, "1.5280796105849", "loss_at(W[0,食べる], -0.001)", 0),
    (196, "-0.3131920546", "gradcheck(W[0,食べる], 0.001)", 0),
    (197, "-0.3131920557", "grad_W[0,食べる]", 0),
    (198, "1.03e-9", "gradcheck(W[0,食べる], 0.001) - grad_W[0,食べる]", 0),
    (212, "-0.3132", "grad_W[0,食べる]", 0), (212, "-0.0566", "sgd[1].W[0,食べる]", "update sign"),
    (213, "-0.2349", "grad_W[1,食べる]", 0), (213, "-0.1826", "sgd[1].W[1,食べる]", 0),
    (220, "0.0970", "grad_x[0]", 0), (220, "0.3515", "sgd[1].E[魚,0]", 0),
    (221, "0.3641", "grad_x[1]", 0), (221, "0.1180", "sgd[1].E[魚,1]", 0),
    (228, "0.2501", "sgd[1].W[0,猫]", 0), (228, "-0.2475", "sgd[1].W[0,魚]", 0), (228, "0.2566", "sgd[1].W[0,食べる]", 0),
    (228, "0.4408", "sgd[1].W[0,寝る]", 0),
    (229, "-0.1374", "sgd[1].W[1,猫]", 0), (229, "0.3644", "sgd[1].W[1,魚]", 0), (229, "-0.1826", "sgd[1].W[1,食べる]", 0),
    (229, "0.1556", "sgd[1].W[1,寝る]", 0),
    (235, "0.3515", "sgd[1].x[0]", 0), (235, "0.1180", "sgd[1].x[1]", 0),
    (235, "0.0717", "sgd[1].z[猫]", 0), (235, "-0.0440", "sgd[1].z[魚]", 0), (235, "0.0687", "sgd[1].z[食べる]", 0),
    (235, "0.1733", "sgd[1].z[寝る]", 0),
    (235, "1.0743", "exp(sgd[1].z[猫])", 0), (235, "0.9569", "exp(sgd[1].z[魚])", 0),
    (235, "1.0711", "exp(sgd[1].z[食べる])", 0), (235, "1.1892", "exp(sgd[1].z[寝る])", 0), (235, "4.2915", "sgd[1].sum_exp", 0),
    (238, "0.2503", "sgd[1].p[猫]", 0), (238, "0.2230", "sgd[1].p[魚]", 0), (238, "0.2496", "sgd[1].p[食べる]", 0),
    (238, "0.2771", "sgd[1].p[寝る]", 0),
    (239, "0.249576", "sgd[1].p[食べる]", 0), (239, "1.3880", "sgd[1].loss", 0),
    (242, "0.2170", "p[食べる]", 0), (242, "0.2496", "sgd[1].p[食べる]", 0),
    (250, "1.5278", "loss", 0), (250, "0.2170", "p[食べる]", 0), (250, "0.2959", "p[寝る]", 0),
    (251, "1.3880", "sgd[1].loss", 0), (251, "0.2496", "sgd[1].p[食べる]", 0), (251, "0.2771", "sgd[1].p[寝る]", 0),
    (252, "1.3108", "sgd[2].loss", 0), (252, "0.2696", "sgd[2].p[食べる]", 0), (252, "0.2703", "sgd[2].p[寝る]", 0),
    (253, "1.2158", "sgd[3].loss", 0), (253, "0.2696", "sgd[3].p[食べる]", "copied"), (253, "0.2650", "sgd[3].p[寝る]", 0),
    (255, "1.5278", "loss", 0), (255, "1.2158", "sgd[3].loss", 0), (255, "20.4", "100*(loss - sgd[3].loss)/loss", 0),
    (255, "0.2703", "sgd[2].p[寝る]", 0), (255, "0.2965", "sgd[3].p[食べる]", 0),
    (257, "0.4758", "sgd[3].E[魚,0]", 0), (257, "-0.0824", "sgd[3].E[魚,1]", 0),
    (287, "1.5278", "loss", 0), (287, "0.2170", "p[食べる]", 0),
    (288, "1.3880", "sgd[1].loss", 0), (288, "0.2496", "sgd[1].p[食べる]", 0),
    (289, "1.3108", "sgd[2].loss", 0), (289, "0.2696", "sgd[2].p[食べる]", 0),
    (290, "1.2158", "sgd[3].loss", 0), (290, "0.2965", "sgd[3].p[食べる]", 0),
    (297, "1.5278", "loss", 0), (297, "1.2158", "sgd[3].loss", 0),
]
# exp(sgd[1].z[…]) under that name too
for v, w in enumerate(VOCAB):
    VAL[f"exp(sgd[1].z[{w}])"] = states[1]["exp"][v]


def correct_text(printed: str, v) -> str:
    """The correct rounding of v in printed's format."""
    if "e" in printed:
        mant = printed.split("e")[0]
        m, e = rnd_sci(v, len(mant.replace("-", "").replace(".", "")))
        return f"{m}e{e}"
    places = len(printed.split(".")[1]) if "." in printed else 0
    return rnd(v, places)


def doc_has(line: int, printed: str) -> bool:
    text = DOC[line - 1]
    if "e" in printed:                                    # 1.03e-9 is printed as 1.03 \times 10^{-9}
        m, e = printed.split("e")
        return f"{m} \\times 10^{{{e}}}" in text
    return re.search(rf"(?<![\d.]){re.escape(printed)}(?![\d])", text) is not None


DOC = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
bad = 0


def fail(msg: str) -> None:
    global bad
    bad += 1
    print("FAIL", msg)


# the planted mistakes reproduce what KEY.md says they are
g = s0["grad_W"]
MISTAKE = {
    "last-digit slip": None,
    "digits swapped": "0.2496",                           # 0.2496 with its 9 and 6 swapped
    "log10": rnd(-mp.log10(mp.mpf("0.217020")), 4),
    "transposed": rnd(g[1][0], 4),
    "sign": rnd(-s0["grad_x"][0], 4),
    "carried": rnd((mp.mpf("1.527453") - mp.mpf("1.528080")) / (2 * mp.mpf("0.001")), 4),
    "update sign": rnd(mp.mpf("0.1") + mp.mpf("0.5") * mp.mpf("-0.3132"), 4),
    "copied": rnd(states[2]["p"][TGT], 4),
}
for line, printed, ref, planted in FIGURES:
    v = VAL[ref]
    right = correct_text(printed, v)
    if not doc_has(line, printed):
        fail(f"line {line}: {printed!r} not on the line")
    if planted:
        expect = MISTAKE[planted]
        if right == printed:
            fail(f"line {line}: planted {printed} is the correct rounding of {ref}")
        elif planted == "digits swapped" and (right != expect or sorted(printed) != sorted(right)):
            fail(f"line {line}: {printed} is not {right} with two digits swapped")
        elif planted == "last-digit slip" and printed[:-1] != right[:-1]:
            fail(f"line {line}: {printed} differs from {right} beyond the last digit")
        elif expect is not None and planted != "digits swapped" and expect != printed:
            fail(f"line {line}: planted {printed} ({planted}) should reproduce {expect}")
    elif right != printed:
        fail(f"line {line}: {printed} for {ref}, correct rounding {right} (exact {mp.nstr(v, 15)})")
print(f"DOC.md: {len(FIGURES)} figures, {sum(1 for f in FIGURES if f[3])} planted, {bad} failures")

# ---------------------------------------------------------------- KEY.md
key = (HERE / "KEY.md").read_text(encoding="utf-8")
planted_rows = correct_rows = 0
for r in key.splitlines():
    if not r.startswith("| `"):
        continue
    cells = [c.strip() for c in r.strip().strip("|").split("|")]
    printed = cells[0].strip("`")
    line = int(cells[1])
    names = re.findall(r"`([^`]+)`", cells[-1])
    ref = next((n for n in names if n in VAL), None)
    if ref is None:
        fail(f"KEY {printed}: no oracle value for {cells[-1]}")
        continue
    v = VAL[ref]
    if not doc_has(line, printed):
        fail(f"KEY {printed}: not on line {line} of DOC.md")
    if not any(f[0] == line and f[1] == printed and f[2] in names for f in FIGURES):
        fail(f"KEY {printed} line {line}: not among FIGURES with {names}")
    if len(cells) == 7:
        planted_rows += 1
        shown = cells[4].strip("`")
        right = correct_text(shown, v)
        exact = mp.mpf(cells[3].rstrip("…"))
        ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
        if not any(f[0] == line and f[1] == printed and f[3] for f in FIGURES):
            ok = False
        note = "planted, key agrees" if ok else "KEY DISAGREES"
    else:
        correct_rows += 1
        right = correct_text(printed, v)
        note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
    if note.isupper():
        fail(f"KEY {printed}: {note}")
    print(f"  {printed:>16}  line {line:>3}  {ref:<36} {mp.nstr(v, 15):<22} rounds to {right:<16} {note}")
if planted_rows != 8 or correct_rows != 10:
    fail(f"KEY.md has {planted_rows} planted and {correct_rows} correct rows (want 8 and 10)")
if sum(1 for f in FIGURES if f[3]) != 8:
    fail("FIGURES does not hold exactly 8 planted figures")
print("all checks pass: every figure and every KEY.md row agree with the oracle" if not bad else f"{bad} checks failed")
sys.exit(1 if bad else 0)
