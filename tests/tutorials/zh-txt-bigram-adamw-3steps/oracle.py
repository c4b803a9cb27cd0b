#!/usr/bin/env python3
"""Independent check of zh-txt-bigram-adamw-3steps: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py

Reads the weights and settings from SPEC.toml and computes every model figure DOC.txt prints:
bigram e = E[喝], s = e·U (U is the spec's W), q = softmax(s), J = -ln q[茶], ∂J/∂s = q - y,
∂J/∂U = outer(e, q - y), ∂J/∂e = U·(q - y) (only E's input row gets it); then three AdamW steps
as torch.optim.AdamW (decoupled decay η·λ·θ on every parameter, E's rows with a zero gradient
included; bias corrections 1 - β^t), with the forward pass and gradient after each step.
Then it checks

* every figure listed in FIGURES below: the printed text is on its line of DOC.txt, a correct
  figure is the rounding half away from zero of its exact value at the printed precision, a
  planted one is not and reproduces the mistake its kind names;
* every row of KEY.md: exact value, correct rounding, printed text on the stated line, and that
  it is one of FIGURES (planted or correct as the table says).
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
SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def num(v):
    return mp.mpf(str(v))


def rnd(v, n: int) -> str:
    """v rounded half away from zero to n decimals (Decimal's ROUND_HALF_UP is away from zero)."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sci(v, sig: int) -> str:
    """v as the document writes small figures, 1.728×10⁻⁴ (sig significant digits, half away from zero)."""
    e = int(mp.floor(mp.log10(abs(v))))
    m = rnd(v / mp.mpf(10) ** e, sig - 1)
    if abs(Decimal(m)) >= 10:
        e += 1
        m = rnd(v / mp.mpf(10) ** e, sig - 1)
    return f"{m}×10{str(e).translate(SUP)}"


def minus(s: str) -> str:
    return s.replace("-", "−")


# ---------------------------------------------------------------- the model, from SPEC.toml

spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
V, D = len(VOCAB), spec["model"]["d"]
TOK = VOCAB.index(spec["data"]["input"][0])
TGT = VOCAB.index(spec["data"]["target"])
E0 = [[num(v) for v in r] for r in spec["weights"]["E"]]
U0 = [[num(v) for v in r] for r in spec["weights"]["W"]]
aw = spec["training"]["adamw"]
LR, B1, B2, EPS, WD = (num(aw[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
STEPS = spec["training"]["steps"]
assert VOCAB == ["我", "想", "喝", "咖啡", "茶"] and (TOK, TGT, D, STEPS) == (2, 4, 3, 3)
assert (LR, B1, B2, EPS, WD) == (num("0.1"), num("0.9"), num("0.999"), num("1e-8"), num("0.1"))
assert spec["model"]["kind"] == "bigram" and spec["data"]["input"] == ["喝"]


def forward(E, U):
    e = E[TOK][:]
    s = [mp.fsum(e[i] * U[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(t) for t in s]
    S = mp.fsum(ex)
    q = [t / S for t in ex]
    gs = [q[j] - (1 if j == TGT else 0) for j in range(V)]
    gU = [[e[i] * gs[j] for j in range(V)] for i in range(D)]
    ge = [mp.fsum(U[i][j] * gs[j] for j in range(V)) for i in range(D)]
    gE = [[ge[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(E=E, U=U, e=e, s=s, ex=ex, S=S, q=q, J=-mp.log(q[TGT]), gs=gs, gU=gU, ge=ge, gE=gE)


states = [forward(E0, U0)]
moments = {}                                             # (step, "W"/"E", i, j) -> record
mW = [[mp.mpf(0)] * V for _ in range(D)]
vW = [[mp.mpf(0)] * V for _ in range(D)]
mE = [[mp.mpf(0)] * D for _ in range(V)]
vE = [[mp.mpf(0)] * D for _ in range(V)]
for k in range(1, STEPS + 1):
    s = states[-1]

    def step(name, P, G, M, Vv, i, j):
        g, th = G[i][j], P[i][j]
        M[i][j] = B1 * M[i][j] + (1 - B1) * g
        Vv[i][j] = B2 * Vv[i][j] + (1 - B2) * g * g
        mh, vh = M[i][j] / (1 - B1 ** k), Vv[i][j] / (1 - B2 ** k)
        u = LR * mh / (mp.sqrt(vh) + EPS)
        dec = LR * WD * th
        moments[(k, name, i, j)] = dict(theta=th, g=g, m=M[i][j], v=Vv[i][j], mhat=mh, vhat=vh, update=u,
                                        decay=dec, new=th - dec - u)
        return th - dec - u

    U2 = [[step("W", s["U"], s["gU"], mW, vW, i, j) for j in range(V)] for i in range(D)]
    E2 = [[step("E", s["E"], s["gE"], mE, vE, v, i) for i in range(D)] for v in range(V)]
    states.append(forward(E2, U2))

# every value, by symgpt's reference names (tokens written as words; U is symgpt's W, e is x)
VAL: dict[str, mp.mpf] = {}
for k, st in enumerate(states):
    pre = "" if k == 0 else f"adamw[{k}]."
    for v, w in enumerate(VOCAB):
        VAL[f"{pre}z[{w}]"] = st["s"][v]
        VAL[f"exp({pre}z[{w}])"] = st["ex"][v]
        VAL[f"{pre}p[{w}]"] = st["q"][v]
        VAL[f"{pre}grad_z[{w}]"] = st["gs"][v]
        for i in range(D):
            VAL[f"{pre}W[{i},{w}]"] = st["U"][i][v]
            VAL[f"{pre}E[{w},{i}]"] = st["E"][v][i]
            VAL[f"{pre}grad_W[{i},{w}]"] = st["gU"][i][v]
    for i in range(D):
        VAL[f"{pre}x[{i}]"] = st["e"][i]
        VAL[f"{pre}grad_x[{i}]"] = st["ge"][i]
        VAL[f"{pre}grad_E[喝,{i}]"] = st["ge"][i]
    VAL[f"{pre}sum_exp"] = st["S"]
    VAL[f"{pre}loss"] = st["J"]
for (k, name, i, j), r in moments.items():
    idx = f"{i},{VOCAB[j]}" if name == "W" else f"{VOCAB[i]},{j}"
    for q in ("m", "v", "mhat", "vhat", "update", "decay"):
        VAL[f"adamw[{k}].{q}[{name},{idx}]"] = r[q]
    VAL[f"sqrt(adamw[{k}].vhat[{name},{idx}])"] = mp.sqrt(r["vhat"])
# settings and exact facts the text prints
VAL["adamw.lr"], VAL["adamw.beta1"], VAL["adamw.beta2"], VAL["adamw.weight_decay"] = LR, B1, B2, WD
VAL["1 - adamw.beta1"], VAL["1 - adamw.beta2"] = 1 - B1, 1 - B2
for t in (2, 3):
    VAL[f"1 - adamw.beta1^{t}"], VAL[f"1 - adamw.beta2^{t}"] = 1 - B1 ** t, 1 - B2 ** t
VAL["adamw.lr*adamw.weight_decay"] = LR * WD
VAL["1 - adamw.lr*adamw.weight_decay"] = 1 - LR * WD
VAL["ln(5)"] = mp.log(5)
VAL["adamw.lr*grad_W[1,想]"] = LR * states[0]["gU"][1][1]
VAL["100*(loss - adamw[3].loss)/loss"] = 100 * (states[0]["J"] - states[3]["J"]) / states[0]["J"]
VAL["adamw[1].p[茶] - p[茶]"] = states[1]["q"][TGT] - states[0]["q"][TGT]

# ---------------------------------------------------------------- every model figure of DOC.txt
# (line, printed, ref, planted kind or 0) — generated from the document's source, checked below.
# FIGURES-BEGIN
FIGURES = [
    (21, '0.2', 'E[我,0]', 0),
    (21, '−0.1', 'E[我,1]', 0),
    (21, '0.3', 'E[我,2]', 0),
    (22, '−0.3', 'E[想,0]', 0),
    (22, '0.4', 'E[想,1]', 0),
    (22, '0.1', 'E[想,2]', 0),
    (23, '0.5', 'E[喝,0]', 0),
    (23, '0.2', 'E[喝,1]', 0),
    (23, '−0.4', 'E[喝,2]', 0),
    (24, '0.1', 'E[咖啡,0]', 0),
    (24, '−0.3', 'E[咖啡,1]', 0),
    (24, '0.2', 'E[咖啡,2]', 0),
    (25, '−0.2', 'E[茶,0]', 0),
    (25, '0.1', 'E[茶,1]', 0),
    (25, '0.4', 'E[茶,2]', 0),
    (33, '0.3', 'W[0,我]', 0),
    (33, '−0.2', 'W[0,想]', 0),
    (33, '0.1', 'W[0,喝]', 0),
    (33, '0.4', 'W[0,咖啡]', 0),
    (33, '−0.1', 'W[0,茶]', 0),
    (34, '−0.1', 'W[1,我]', 0),
    (34, '0.5', 'W[1,想]', 0),
    (34, '0.2', 'W[1,喝]', 0),
    (34, '−0.3', 'W[1,咖啡]', 0),
    (34, '0.2', 'W[1,茶]', 0),
    (35, '0.2', 'W[2,我]', 0),
    (35, '0.1', 'W[2,想]', 0),
    (35, '−0.3', 'W[2,喝]', 0),
    (35, '0.15', 'W[2,咖啡]', 0),
    (35, '0.3', 'W[2,茶]', 0),
    (49, '0.5', 'x[0]', 0),
    (49, '0.2', 'x[1]', 0),
    (49, '−0.4', 'x[2]', 0),
    (53, '0.5', 'x[0]', 0),
    (53, '0.3', 'W[0,我]', 0),
    (53, '0.2', 'x[1]', 0),
    (53, '−0.1', 'W[1,我]', 0),
    (53, '−0.4', 'x[2]', 0),
    (53, '0.2', 'W[2,我]', 0),
    (53, '0.05', 'z[我]', 0),
    (54, '0.5', 'x[0]', 0),
    (54, '−0.2', 'W[0,想]', 0),
    (54, '0.2', 'x[1]', 0),
    (54, '0.5', 'W[1,想]', 0),
    (54, '−0.4', 'x[2]', 0),
    (54, '0.1', 'W[2,想]', 0),
    (54, '−0.04', 'z[想]', 0),
    (55, '0.5', 'x[0]', 0),
    (55, '0.1', 'W[0,喝]', 0),
    (55, '0.2', 'x[1]', 0),
    (55, '0.2', 'W[1,喝]', 0),
    (55, '−0.4', 'x[2]', 0),
    (55, '−0.3', 'W[2,喝]', 0),
    (55, '0.21', 'z[喝]', 0),
    (56, '0.5', 'x[0]', 0),
    (56, '0.4', 'W[0,咖啡]', 0),
    (56, '0.2', 'x[1]', 0),
    (56, '−0.3', 'W[1,咖啡]', 0),
    (56, '−0.4', 'x[2]', 0),
    (56, '0.15', 'W[2,咖啡]', 0),
    (56, '0.08', 'z[咖啡]', 0),
    (57, '0.5', 'x[0]', 0),
    (57, '−0.1', 'W[0,茶]', 0),
    (57, '0.2', 'x[1]', 0),
    (57, '0.2', 'W[1,茶]', 0),
    (57, '−0.4', 'x[2]', 0),
    (57, '0.3', 'W[2,茶]', 0),
    (57, '−0.13', 'z[茶]', 0),
    (59, '0.21', 'z[喝]', 0),
    (59, '−0.13', 'z[茶]', 0),
    (63, '0.05', 'z[我]', 0),
    (63, '1.0513', 'exp(z[我])', 0),
    (64, '−0.04', 'z[想]', 0),
    (64, '0.9608', 'exp(z[想])', 0),
    (65, '0.21', 'z[喝]', 0),
    (65, '1.2337', 'exp(z[喝])', 0),
    (66, '0.08', 'z[咖啡]', 0),
    (66, '1.0833', 'exp(z[咖啡])', 0),
    (67, '−0.13', 'z[茶]', 0),
    (67, '0.8781', 'exp(z[茶])', 0),
    (71, '1.0513', 'exp(z[我])', 0),
    (71, '0.9608', 'exp(z[想])', 0),
    (71, '1.2337', 'exp(z[喝])', 0),
    (71, '1.0833', 'exp(z[咖啡])', 0),
    (71, '0.8781', 'exp(z[茶])', 0),
    (71, '5.2071', 'sum_exp', 0),
    (75, '0.8781', 'exp(z[茶])', 0),
    (75, '5.2071', 'sum_exp', 0),
    (75, '0.1686', 'p[茶]', 0),
    (76, '0.2019', 'p[我]', 0),
    (76, '0.1845', 'p[想]', 0),
    (76, '0.2396', 'p[喝]', 'digits swapped'),
    (76, '0.2080', 'p[咖啡]', 0),
    (76, '0.1686', 'p[茶]', 0),
    (80, '0.1686', 'p[茶]', 0),
    (80, '1.7802', 'loss', 'carried'),
    (82, '1.6094', 'ln(5)', 0),
    (89, '0.1686', 'p[茶]', 0),
    (89, '−0.8314', 'grad_z[茶]', 0),
    (90, '0.2019', 'grad_z[我]', 0),
    (90, '0.1845', 'grad_z[想]', 0),
    (90, '0.2369', 'grad_z[喝]', 0),
    (90, '0.2080', 'grad_z[咖啡]', 0),
    (90, '−0.8314', 'grad_z[茶]', 0),
    (99, '0.1009', 'grad_W[0,我]', 0),
    (99, '0.0404', 'grad_W[0,想]', 'transposed'),
    (99, '0.1185', 'grad_W[0,喝]', 0),
    (99, '0.1040', 'grad_W[0,咖啡]', 0),
    (99, '−0.4157', 'grad_W[0,茶]', 0),
    (100, '0.0404', 'grad_W[1,我]', 0),
    (100, '0.0369', 'grad_W[1,想]', 0),
    (100, '0.0474', 'grad_W[1,喝]', 0),
    (100, '0.0416', 'grad_W[1,咖啡]', 0),
    (100, '−0.1663', 'grad_W[1,茶]', 0),
    (101, '−0.0808', 'grad_W[2,我]', 0),
    (101, '−0.0738', 'grad_W[2,想]', 0),
    (101, '−0.0948', 'grad_W[2,喝]', 0),
    (101, '−0.0832', 'grad_W[2,咖啡]', 0),
    (101, '0.3325', 'grad_W[2,茶]', 0),
    (106, '0.5', 'x[0]', 0),
    (106, '−0.8314', 'grad_z[茶]', 0),
    (106, '−0.4157', 'grad_W[0,茶]', 0),
    (116, '0.3', 'W[0,我]', 0),
    (116, '0.2019', 'grad_z[我]', 0),
    (116, '−0.2', 'W[0,想]', 0),
    (116, '0.1845', 'grad_z[想]', 0),
    (116, '0.1', 'W[0,喝]', 0),
    (116, '0.2369', 'grad_z[喝]', 0),
    (116, '0.4', 'W[0,咖啡]', 0),
    (116, '0.2080', 'grad_z[咖啡]', 0),
    (116, '−0.1', 'W[0,茶]', 0),
    (116, '−0.8314', 'grad_z[茶]', 0),
    (116, '0.2137', 'grad_x[0]', 0),
    (120, '0.2137', 'grad_x[0]', 0),
    (120, '−0.1092', 'grad_x[1]', 0),
    (120, '0.0695', 'grad_x[2]', 'forgot y'),
    (132, '0.1', 'adamw.lr', 0),
    (132, '0.9', 'adamw.beta1', 0),
    (132, '0.999', 'adamw.beta2', 0),
    (132, '0.1', 'adamw.weight_decay', 0),
    (139, '0.1', '1 - adamw.beta1', 0),
    (139, '0.001', '1 - adamw.beta2', 0),
    (141, '−0.1', 'W[0,茶]', 0),
    (141, '−0.415683', 'grad_W[0,茶]', 0),
    (143, '0.1', '1 - adamw.beta1', 0),
    (143, '−0.415683', 'grad_W[0,茶]', 0),
    (143, '−0.041568', 'adamw[1].m[W,0,茶]', 0),
    (144, '0.001', '1 - adamw.beta2', 0),
    (144, '0.415683', '-grad_W[0,茶]', 0),
    (144, '1.728×10⁻⁴', 'adamw[1].v[W,0,茶]', 0),
    (145, '0.9', 'adamw.beta1', 0),
    (145, '−0.415683', 'adamw[1].mhat[W,0,茶]', 0),
    (146, '0.999', 'adamw.beta2', 0),
    (146, '0.172793', 'adamw[1].vhat[W,0,茶]', 0),
    (147, '0.1', 'adamw.lr', 0),
    (147, '−0.415683', 'adamw[1].mhat[W,0,茶]', 0),
    (147, '0.415683', 'sqrt(adamw[1].vhat[W,0,茶])', 0),
    (147, '−0.100000', 'adamw[1].update[W,0,茶]', 0),
    (148, '0.1', 'adamw.lr', 0),
    (148, '0.1', 'adamw.weight_decay', 0),
    (148, '−0.1', 'W[0,茶]', 0),
    (148, '−0.001000', 'adamw[1].decay[W,0,茶]', 0),
    (149, '−0.1', 'W[0,茶]', 0),
    (149, '−0.001000', 'adamw[1].decay[W,0,茶]', 0),
    (149, '−0.100000', 'adamw[1].update[W,0,茶]', 0),
    (149, '0.001000', 'adamw[1].W[0,茶]', 0),
    (156, '−0.1', 'W[0,茶]', 0),
    (156, '0.5', 'W[1,想]', 0),
    (156, '0.5', 'E[喝,0]', 0),
    (157, '−0.415683', 'grad_W[0,茶]', 0),
    (157, '0.036903', 'grad_W[1,想]', 0),
    (157, '0.213709', 'grad_x[0]', 0),
    (158, '−0.041568', 'adamw[1].m[W,0,茶]', 0),
    (158, '0.003690', 'adamw[1].m[W,1,想]', 0),
    (158, '0.021371', 'adamw[1].m[E,喝,0]', 0),
    (159, '1.728×10⁻⁴', 'adamw[1].v[W,0,茶]', 0),
    (159, '1.362×10⁻⁶', 'adamw[1].v[W,1,想]', 0),
    (159, '4.567×10⁻⁵', 'adamw[1].v[E,喝,0]', 0),
    (160, '−0.415683', 'adamw[1].mhat[W,0,茶]', 0),
    (160, '0.036903', 'adamw[1].mhat[W,1,想]', 0),
    (160, '0.213709', 'adamw[1].mhat[E,喝,0]', 0),
    (161, '0.172793', 'adamw[1].vhat[W,0,茶]', 0),
    (161, '0.001362', 'adamw[1].vhat[W,1,想]', 0),
    (161, '0.045672', 'adamw[1].vhat[E,喝,0]', 0),
    (162, '−0.100000', 'adamw[1].update[W,0,茶]', 0),
    (162, '0.100000', 'adamw[1].update[W,1,想]', 0),
    (162, '0.100000', 'adamw[1].update[E,喝,0]', 0),
    (163, '−0.001000', 'adamw[1].decay[W,0,茶]', 0),
    (163, '0.005000', 'adamw[1].decay[W,1,想]', 0),
    (163, '0.005000', 'adamw[1].decay[E,喝,0]', 0),
    (164, '0.001000', 'adamw[1].W[0,茶]', 0),
    (164, '0.395000', 'adamw[1].W[1,想]', 0),
    (164, '0.395000', 'adamw[1].E[喝,0]', 0),
    (169, '0.99', '1 - adamw.lr*adamw.weight_decay', 0),
    (170, '0.2', 'E[我,0]', 0),
    (170, '−0.1', 'E[我,1]', 0),
    (170, '0.3', 'E[我,2]', 0),
    (170, '0.198', 'adamw[1].E[我,0]', 0),
    (170, '−0.099', 'adamw[1].E[我,1]', 0),
    (170, '0.297', 'adamw[1].E[我,2]', 0),
    (175, '0.1970', 'adamw[1].W[0,我]', 0),
    (175, '−0.2980', 'adamw[1].W[0,想]', 0),
    (175, '−0.0010', 'adamw[1].W[0,喝]', 0),
    (175, '0.2960', 'adamw[1].W[0,咖啡]', 0),
    (175, '0.0010', 'adamw[1].W[0,茶]', 0),
    (176, '−0.1990', 'adamw[1].W[1,我]', 0),
    (176, '0.3950', 'adamw[1].W[1,想]', 0),
    (176, '0.0980', 'adamw[1].W[1,喝]', 0),
    (176, '−0.3970', 'adamw[1].W[1,咖啡]', 0),
    (176, '0.2980', 'adamw[1].W[1,茶]', 0),
    (177, '0.2980', 'adamw[1].W[2,我]', 0),
    (177, '0.1990', 'adamw[1].W[2,想]', 0),
    (177, '−0.1970', 'adamw[1].W[2,喝]', 0),
    (177, '0.2485', 'adamw[1].W[2,咖啡]', 0),
    (177, '0.1970', 'adamw[1].W[2,茶]', 0),
    (180, '0.3950', 'adamw[1].E[喝,0]', 0),
    (180, '0.2980', 'adamw[1].E[喝,1]', 0),
    (180, '−0.2960', 'adamw[1].E[喝,2]', 0),
    (182, '−0.0697', 'adamw[1].z[我]', 0),
    (182, '−0.0589', 'adamw[1].z[想]', 0),
    (182, '0.0871', 'adamw[1].z[喝]', 0),
    (182, '−0.0749', 'adamw[1].z[咖啡]', 0),
    (182, '0.0309', 'adamw[1].z[茶]', 0),
    (183, '0.9327', 'exp(adamw[1].z[我])', 0),
    (183, '0.9428', 'exp(adamw[1].z[想])', 0),
    (183, '1.0910', 'exp(adamw[1].z[喝])', 0),
    (183, '0.9278', 'exp(adamw[1].z[咖啡])', 0),
    (183, '1.0314', 'exp(adamw[1].z[茶])', 0),
    (183, '4.9257', 'adamw[1].sum_exp', 0),
    (184, '0.1894', 'adamw[1].p[我]', 0),
    (184, '0.1914', 'adamw[1].p[想]', 0),
    (184, '0.2215', 'adamw[1].p[喝]', 0),
    (184, '0.1884', 'adamw[1].p[咖啡]', 0),
    (184, '0.2094', 'adamw[1].p[茶]', 0),
    (186, '0.1686', 'p[茶]', 0),
    (186, '0.2094', 'adamw[1].p[茶]', 0),
    (186, '1.5637', 'adamw[1].loss', 'last-digit slip'),
    (186, '0.0408', 'adamw[1].p[茶] - p[茶]', 0),
    (193, '0.3950', 'adamw[1].x[0]', 0),
    (193, '0.2094', 'adamw[1].p[茶]', 0),
    (193, '−0.3123', 'adamw[1].grad_W[0,茶]', 0),
    (194, '0.2980', 'adamw[1].x[1]', 0),
    (194, '0.1914', 'adamw[1].p[想]', 0),
    (194, '0.0570', 'adamw[1].grad_W[1,想]', 0),
    (195, '0.1970', 'adamw[1].W[0,我]', 0),
    (195, '0.1894', 'adamw[1].grad_z[我]', 0),
    (195, '−0.2980', 'adamw[1].W[0,想]', 0),
    (195, '0.1914', 'adamw[1].grad_z[想]', 0),
    (195, '−0.0010', 'adamw[1].W[0,喝]', 0),
    (195, '0.2215', 'adamw[1].grad_z[喝]', 0),
    (196, '0.2960', 'adamw[1].W[0,咖啡]', 0),
    (196, '0.1884', 'adamw[1].grad_z[咖啡]', 0),
    (196, '0.0010', 'adamw[1].W[0,茶]', 0),
    (196, '−0.7906', 'adamw[1].grad_z[茶]', 0),
    (196, '0.0350', 'adamw[1].grad_x[0]', 0),
    (198, '0.19', '1 - adamw.beta1^2', 0),
    (198, '0.001999', '1 - adamw.beta2^2', 0),
    (199, '0.021371', 'adamw[1].m[E,喝,0]', 0),
    (199, '4.567×10⁻⁵', 'adamw[1].v[E,喝,0]', 0),
    (199, '0.035006', 'adamw[1].grad_x[0]', 0),
    (201, '0.9', 'adamw.beta1', 0),
    (201, '0.021371', 'adamw[1].m[E,喝,0]', 0),
    (201, '0.1', '1 - adamw.beta1', 0),
    (201, '0.035006', 'adamw[1].grad_x[0]', 0),
    (201, '0.022734', 'adamw[2].m[E,喝,0]', 0),
    (202, '0.999', 'adamw.beta2', 0),
    (202, '4.567×10⁻⁵', 'adamw[1].v[E,喝,0]', 0),
    (202, '0.001', '1 - adamw.beta2', 0),
    (202, '0.035006', 'adamw[1].grad_x[0]', 0),
    (202, '4.685×10⁻⁵', 'adamw[2].v[E,喝,0]', 0),
    (203, '0.1', 'adamw.lr', 0),
    (203, '0.022734', 'adamw[2].m[E,喝,0]', 0),
    (203, '4.685×10⁻⁵', 'adamw[2].v[E,喝,0]', 0),
    (203, '0.3321', 'adamw[2].update[E,喝,0]', 'no bias correction'),
    (210, '0.001000', 'adamw[1].W[0,茶]', 0),
    (210, '0.395000', 'adamw[1].W[1,想]', 0),
    (210, '0.395000', 'adamw[1].E[喝,0]', 0),
    (211, '−0.312292', 'adamw[1].grad_W[0,茶]', 0),
    (211, '0.057039', 'adamw[1].grad_W[1,想]', 0),
    (211, '0.035006', 'adamw[1].grad_x[0]', 0),
    (212, '−0.068641', 'adamw[2].m[W,0,茶]', 0),
    (212, '0.009025', 'adamw[2].m[W,1,想]', 0),
    (212, '0.022734', 'adamw[2].m[E,喝,0]', 0),
    (213, '2.701×10⁻⁴', 'adamw[2].v[W,0,茶]', 0),
    (213, '4.614×10⁻⁶', 'adamw[2].v[W,1,想]', 0),
    (213, '4.685×10⁻⁵', 'adamw[2].v[E,喝,0]', 0),
    (214, '−0.361267', 'adamw[2].mhat[W,0,茶]', 0),
    (214, '0.047501', 'adamw[2].mhat[W,1,想]', 0),
    (214, '0.119655', 'adamw[2].mhat[E,喝,0]', 0),
    (215, '0.135141', 'adamw[2].vhat[W,0,茶]', 0),
    (215, '0.002308', 'adamw[2].vhat[W,1,想]', 0),
    (215, '0.023437', 'adamw[2].vhat[E,喝,0]', 0),
    (216, '−0.098273', 'adamw[2].update[W,0,茶]', 0),
    (216, '0.098872', 'adamw[2].update[W,1,想]', 0),
    (216, '0.078158', 'adamw[2].update[E,喝,0]', 0),
    (217, '0.000010', 'adamw[2].decay[W,0,茶]', 0),
    (217, '0.003950', 'adamw[2].decay[W,1,想]', 0),
    (217, '0.003950', 'adamw[2].decay[E,喝,0]', 0),
    (218, '0.099263', 'adamw[2].W[0,茶]', 0),
    (218, '0.292178', 'adamw[2].W[1,想]', 0),
    (218, '0.312892', 'adamw[2].E[喝,0]', 0),
    (221, '0.3129', 'adamw[2].E[喝,0]', 0),
    (221, '0.3900', 'adamw[2].E[喝,1]', 0),
    (221, '−0.2099', 'adamw[2].E[喝,2]', 0),
    (223, '−0.1677', 'adamw[2].z[我]', 0),
    (223, '−0.0714', 'adamw[2].z[想]', 0),
    (223, '−0.0115', 'adamw[2].z[喝]', 0),
    (223, '−0.2031', 'adamw[2].z[咖啡]', 0),
    (223, '0.1645', 'adamw[2].z[茶]', 0),
    (223, '4.7603', 'adamw[2].sum_exp', 0),
    (224, '0.1776', 'adamw[2].p[我]', 0),
    (224, '0.1956', 'adamw[2].p[想]', 0),
    (224, '0.2077', 'adamw[2].p[喝]', 0),
    (224, '0.1715', 'adamw[2].p[咖啡]', 0),
    (224, '0.2476', 'adamw[2].p[茶]', 0),
    (225, '0.2476', 'adamw[2].p[茶]', 0),
    (225, '1.3959', 'adamw[2].loss', 0),
    (230, '0.271', '1 - adamw.beta1^3', 0),
    (230, '0.002997001', '1 - adamw.beta2^3', 0),
    (232, '0.3129', 'adamw[2].x[0]', 0),
    (232, '0.2476', 'adamw[2].p[茶]', 0),
    (232, '−0.2354', 'adamw[2].grad_W[0,茶]', 0),
    (233, '0.3900', 'adamw[2].x[1]', 0),
    (233, '0.1956', 'adamw[2].p[想]', 0),
    (233, '0.0763', 'adamw[2].grad_W[1,想]', 0),
    (234, '−0.1216', 'adamw[2].grad_x[0]', 0),
    (238, '0.9', 'adamw.beta1', 0),
    (238, '−0.068641', 'adamw[2].m[W,0,茶]', 0),
    (238, '0.1', '1 - adamw.beta1', 0),
    (238, '−0.235413', 'adamw[2].grad_W[0,茶]', 0),
    (238, '−0.085318', 'adamw[3].m[W,0,茶]', 0),
    (239, '−0.085318', 'adamw[3].m[W,0,茶]', 0),
    (239, '0.271', '1 - adamw.beta1^3', 0),
    (239, '−0.314826', 'adamw[3].mhat[W,0,茶]', 0),
    (240, '0.002997001', '1 - adamw.beta2^3', 0),
    (240, '0.108540', 'adamw[3].vhat[W,0,茶]', 0),
    (241, '0.1', 'adamw.lr', 0),
    (241, '−0.314826', 'adamw[3].mhat[W,0,茶]', 0),
    (241, '0.329455', 'sqrt(adamw[3].vhat[W,0,茶])', 0),
    (241, '−0.095560', 'adamw[3].update[W,0,茶]', 0),
    (242, '0.1', 'adamw.lr', 0),
    (242, '0.1', 'adamw.weight_decay', 0),
    (242, '0.099263', 'adamw[2].W[0,茶]', 0),
    (242, '0.000993', 'adamw[3].decay[W,0,茶]', 0),
    (243, '0.099263', 'adamw[2].W[0,茶]', 0),
    (243, '0.000993', 'adamw[3].decay[W,0,茶]', 0),
    (243, '0.095560', '-adamw[3].update[W,0,茶]', 0),
    (243, '0.002710', 'adamw[3].W[0,茶]', 'update sign'),
    (248, '0.099263', 'adamw[2].W[0,茶]', 0),
    (248, '0.292178', 'adamw[2].W[1,想]', 0),
    (248, '0.312892', 'adamw[2].E[喝,0]', 0),
    (249, '−0.235413', 'adamw[2].grad_W[0,茶]', 0),
    (249, '0.076286', 'adamw[2].grad_W[1,想]', 0),
    (249, '0.008296', 'adamw[2].grad_x[0]', 'copied'),
    (250, '−0.085318', 'adamw[3].m[W,0,茶]', 0),
    (250, '0.015751', 'adamw[3].m[W,1,想]', 0),
    (250, '0.008296', 'adamw[3].m[E,喝,0]', 0),
    (251, '3.253×10⁻⁴', 'adamw[3].v[W,0,茶]', 0),
    (251, '1.043×10⁻⁵', 'adamw[3].v[W,1,想]', 0),
    (251, '6.160×10⁻⁵', 'adamw[3].v[E,喝,0]', 0),
    (252, '−0.314826', 'adamw[3].mhat[W,0,茶]', 0),
    (252, '0.058122', 'adamw[3].mhat[W,1,想]', 0),
    (252, '0.030613', 'adamw[3].mhat[E,喝,0]', 0),
    (253, '0.108540', 'adamw[3].vhat[W,0,茶]', 0),
    (253, '0.003480', 'adamw[3].vhat[W,1,想]', 0),
    (253, '0.020555', 'adamw[3].vhat[E,喝,0]', 0),
    (254, '−0.095560', 'adamw[3].update[W,0,茶]', 0),
    (254, '0.098531', 'adamw[3].update[W,1,想]', 0),
    (254, '0.021353', 'adamw[3].update[E,喝,0]', 0),
    (255, '0.000993', 'adamw[3].decay[W,0,茶]', 0),
    (255, '0.002922', 'adamw[3].decay[W,1,想]', 0),
    (255, '0.003129', 'adamw[3].decay[E,喝,0]', 0),
    (256, '0.193830', 'adamw[3].W[0,茶]', 0),
    (256, '0.190726', 'adamw[3].W[1,想]', 0),
    (256, '0.288410', 'adamw[3].E[喝,0]', 0),
    (259, '0.2900', 'adamw[3].p[茶]', 0),
    (259, '1.2378', 'adamw[3].loss', 0),
    (267, '0.1686', 'p[茶]', 0),
    (267, '1.7800', 'loss', 0),
    (268, '0.2094', 'adamw[1].p[茶]', 0),
    (268, '1.5636', 'adamw[1].loss', 0),
    (269, '0.2476', 'adamw[2].p[茶]', 0),
    (269, '1.3959', 'adamw[2].loss', 0),
    (270, '0.2900', 'adamw[3].p[茶]', 0),
    (270, '1.2378', 'adamw[3].loss', 0),
    (273, '30.5', '100*(loss - adamw[3].loss)/loss', 0),
    (276, '0.0369', 'grad_W[1,想]', 0),
    (276, '0.0570', 'adamw[1].grad_W[1,想]', 0),
    (276, '0.0763', 'adamw[2].grad_W[1,想]', 0),
    (277, '0.1', 'adamw.lr', 0),
    (277, '0.0369', 'grad_W[1,想]', 0),
    (277, '0.0037', 'adamw.lr*grad_W[1,想]', 0),
    (278, '0.035006', 'adamw[1].grad_x[0]', 0),
    (278, '−0.121648', 'adamw[2].grad_x[0]', 0),
    (278, '0.008296', 'adamw[3].m[E,喝,0]', 0),
    (279, '0.021353', 'adamw[3].update[E,喝,0]', 0),
    (280, '0.01', 'adamw.lr*adamw.weight_decay', 0),
]
# FIGURES-END


def correct_text(printed: str, v) -> str:
    """The correct rounding of v in printed's format (decimals, or 1.728×10⁻⁴), with the Unicode minus."""
    if "×10" in printed:
        sig = len(re.sub(r"[^0-9]", "", printed.split("×")[0]))
        return minus(rnd_sci(v, sig))
    p = printed.rstrip("%")
    places = len(p.split(".")[1]) if "." in p else 0
    return minus(rnd(v, places)) + ("%" if printed.endswith("%") else "")


DOC = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()


def doc_has(line: int, printed: str) -> bool:
    if not 1 <= line <= len(DOC):
        return False
    return re.search(rf"(?<![\d.]){re.escape(printed)}(?![\d])", DOC[line - 1]) is not None


def mistakes() -> dict:
    """What each planted kind reproduces, computed from the document's own operands or the exact values."""
    s0 = states[0]
    r2 = moments[(2, "E", TOK, 0)]
    return {
        "carried": minus(rnd(-mp.log(num("0.1686")), 4)),
        "digits swapped": None,
        "transposed": minus(rnd(s0["gU"][1][0], 4)),             # ∂J/∂U at row 1, column 0 (我)
        "forgot y": minus(rnd(mp.fsum(U0[2][j] * s0["q"][j] for j in range(V)), 4)),
        "last-digit slip": None,
        "no bias correction": minus(rnd(LR * r2["m"] / (mp.sqrt(r2["v"]) + EPS), 4)),
        "copied": minus(rnd(moments[(3, "E", TOK, 0)]["m"], 6)),     # the m cell just below
        "update sign": minus(rnd(num("0.099263") - num("0.000993") - num("0.095560"), 6)),
    }


def main() -> int:
    bad = 0

    def fail(msg: str) -> None:
        nonlocal bad
        bad += 1
        print("FAIL", msg)

    expect = mistakes()
    for line, printed, ref, planted in FIGURES:
        if ref.lstrip("-") not in VAL:
            fail(f"line {line}: no value for {ref}")
            continue
        value = -VAL[ref[1:]] if ref.startswith("-") else VAL[ref]
        right = correct_text(printed, value)
        if not doc_has(line, printed):
            fail(f"line {line}: {printed!r} not on the line")
        if planted:
            if right == printed:
                fail(f"line {line}: planted {printed} is the correct rounding of {ref}")
            elif planted == "digits swapped" and sorted(printed) != sorted(right):
                fail(f"line {line}: {printed} is not {right} with two digits swapped")
            elif planted == "last-digit slip" and (printed[:-1] != right[:-1] or abs(int(printed[-1]) - int(right[-1])) != 1):
                fail(f"line {line}: {printed} is not a last-digit slip of {right}")
            elif expect.get(planted) is not None and expect[planted] != printed:
                fail(f"line {line}: planted {printed} ({planted}) should reproduce {expect[planted]}")
        elif right != printed:
            fail(f"line {line}: {printed} for {ref}, correct rounding {right} (exact {mp.nstr(value, 15)})")
    n_planted = sum(1 for f in FIGURES if f[3])
    print(f"DOC.txt: {len(FIGURES)} figures, {n_planted} planted, {bad} failures")
    if n_planted != 8:
        fail("FIGURES does not hold exactly 8 planted figures")

    planted_rows = correct_rows = 0
    for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in VAL), None)
        if ref is None:
            fail(f"KEY {printed}: no oracle value for {cells[-1]}")
            continue
        v = VAL[ref]
        if not doc_has(line, printed):
            fail(f"KEY {printed}: not on line {line} of DOC.txt")
        if len(cells) == 7:
            planted_rows += 1
            shown = cells[4].strip("`")
            right = correct_text(shown, v)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            ok = ok and any(f[0] == line and f[1] == printed and f[2] in names and f[3] for f in FIGURES)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            correct_rows += 1
            right = correct_text(printed, v)
            ok = right == printed and any(f[0] == line and f[1] == printed and f[2] in names and not f[3]
                                          for f in FIGURES)
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        if not ok:
            fail(f"KEY {printed} line {line}: {note}")
        print(f"  {printed:>14}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<14} {note}")
    if planted_rows != 8 or correct_rows != 10:
        fail(f"KEY.md has {planted_rows} planted and {correct_rows} correct rows (want 8 and 10)")
    print("all checks pass: every figure and every KEY.md row agree with the oracle" if not bad
          else f"{bad} checks failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
