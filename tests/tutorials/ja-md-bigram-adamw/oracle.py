#!/usr/bin/env python3
"""Independent oracle for the ja-md-bigram-adamw tutorial: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every figure of DOC.md listed below and every KEY.md row, checked

Model (read from SPEC.toml): a bigram, x = E[input], z = x·W, p = softmax(z), loss = -ln p[target];
grad_z = p - y, grad_W = outer(x, p - y), grad_x = W·(p - y) (only E's input row gets it).
AdamW as torch.optim.AdamW: decoupled decay on every parameter, θ ← θ - η·λ·θ - η·m̂/(√v̂ + ε),
m̂ = m/(1 - β1^t), v̂ = v/(1 - β2^t). State k is the model after k updates (state 0 has no prefix).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def places(text: str) -> int:
    t = text.rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


# ---------------------------------------------------------------- the model

spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
D = spec["model"]["d"]
NV = len(VOCAB)
TOK = VOCAB.index(spec["data"]["input"][0])
TGT = VOCAB.index(spec["data"]["target"])
E0 = [[mp.mpf(str(a)) for a in row] for row in spec["weights"]["E"]]
W0 = [[mp.mpf(str(a)) for a in row] for row in spec["weights"]["W"]]
AW = spec["training"]["adamw"]
LR, B1, B2, EPS, WD = (mp.mpf(str(AW[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
STEPS = spec["training"]["steps"]


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(NV)]
    ex = [mp.exp(a) for a in z]
    S = mp.fsum(ex)
    p = [a / S for a in ex]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(NV)]
    gW = [[x[i] * gz[j] for j in range(NV)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(NV)) for i in range(D)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(NV)]
    return dict(x=x, z=z, ex=ex, sum_exp=S, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def idx(P, i, j):
    return f"{i},{VOCAB[j]}" if P == "W" else f"{VOCAB[i]},{j}"


VALUES: dict[str, mp.mpf] = {}


def record(prefix, params, f):
    for i in range(D):
        VALUES[f"{prefix}x[{i}]"] = f["x"][i]
        VALUES[f"{prefix}grad_x[{i}]"] = f["grad_x"][i]
    for j, v in enumerate(VOCAB):
        VALUES[f"{prefix}z[{v}]"] = f["z"][j]
        VALUES[f"exp({prefix}z[{v}])"] = f["ex"][j]
        VALUES[f"{prefix}p[{v}]"] = f["p"][j]
        VALUES[f"{prefix}grad_z[{v}]"] = f["grad_z"][j]
    VALUES[f"{prefix}sum_exp"] = f["sum_exp"]
    VALUES[f"{prefix}loss"] = f["loss"]
    for P in ("W", "E"):
        for i, row in enumerate(params[P]):
            for j, a in enumerate(row):
                VALUES[f"{prefix}{P}[{idx(P, i, j)}]"] = a
                VALUES[f"{prefix}grad_{P}[{idx(P, i, j)}]"] = f[f"grad_{P}"][i][j]


params = {"W": W0, "E": E0}
f = forward(E0, W0)
record("", params, f)
m = {P: [[mp.mpf(0)] * len(params[P][0]) for _ in params[P]] for P in params}
v = {P: [[mp.mpf(0)] * len(params[P][0]) for _ in params[P]] for P in params}
for t in range(1, STEPS + 1):
    grads = {"W": f["grad_W"], "E": f["grad_E"]}
    new = {}
    for P, th in params.items():
        new[P] = []
        for i in range(len(th)):
            row = []
            for j in range(len(th[0])):
                g = grads[P][i][j]
                m[P][i][j] = B1 * m[P][i][j] + (1 - B1) * g
                v[P][i][j] = B2 * v[P][i][j] + (1 - B2) * g * g
                mhat = m[P][i][j] / (1 - B1 ** t)
                vhat = v[P][i][j] / (1 - B2 ** t)
                update = LR * mhat / (mp.sqrt(vhat) + EPS)
                decay = LR * WD * th[i][j]
                k = f"{P},{idx(P, i, j)}"
                VALUES.update({f"adamw[{t}].m[{k}]": m[P][i][j], f"adamw[{t}].v[{k}]": v[P][i][j],
                               f"adamw[{t}].mhat[{k}]": mhat, f"adamw[{t}].vhat[{k}]": vhat,
                               f"adamw[{t}].update[{k}]": update, f"adamw[{t}].decay[{k}]": decay})
                row.append(th[i][j] - decay - update)
            new[P].append(row)
    params = new
    f = forward(params["E"], params["W"])
    record(f"adamw[{t}].", params, f)
VALUES["sqrt(adamw[2].vhat[W,2,を])"] = mp.sqrt(VALUES["adamw[2].vhat[W,2,を]"])
VALUES["ln(5)"] = mp.log(NV)
VALUES["1/V"] = mp.mpf(1) / NV
VALUES["adamw.lr"] = LR

# ---------------------------------------------------------------- every model figure DOC.md prints correctly
# (line, printed text, quantity, multiplier): the printed text is the rounding of quantity × multiplier
# (100 for a percentage, 10^k for the mantissa of a figure printed as "… × 10^{-k}").
FIGURES = [
    (61, "0.19", "z[猫]", "1"),
    (62, "-0.06", "z[が]", "1"),
    (63, "-0.09", "z[魚]", "1"),
    (64, "0.35", "z[を]", "1"),
    (65, "-0.07", "z[食べる]", "1"),
    (69, "-0.06", "z[が]", "1"),
    (69, "0.35", "z[を]", "1"),
    (77, "1.2092", "exp(z[猫])", "1"),
    (77, "0.9418", "exp(z[が])", "1"),
    (77, "0.9139", "exp(z[魚])", "1"),
    (77, "0.9324", "exp(z[食べる])", "1"),
    (77, "5.4164", "sum_exp", "1"),
    (79, "0.9418", "exp(z[が])", "1"),
    (79, "5.4164", "sum_exp", "1"),
    (79, "0.1739", "p[が]", "1"),
    (83, "0.2233", "p[猫]", "1"),
    (83, "0.1739", "p[が]", "1"),
    (83, "0.1687", "p[魚]", "1"),
    (83, "0.2620", "p[を]", "1"),
    (83, "0.1721", "p[食べる]", "1"),
    (85, "26.20", "p[を]", "100"),
    (85, "22.33", "p[猫]", "100"),
    (129, "0.262", "p[を]", "1"),
    (129, "0.2620", "p[を]", "1"),
    (141, "0.2233", "grad_z[猫]", "1"),
    (141, "0.1687", "grad_z[魚]", "1"),
    (141, "0.2620", "grad_z[を]", "1"),
    (141, "0.1721", "grad_z[食べる]", "1"),
    (155, "0.0893", "grad_W[0,猫]", "1"),
    (155, "-0.3305", "grad_W[0,が]", "1"),
    (155, "0.0675", "grad_W[0,魚]", "1"),
    (155, "0.1048", "grad_W[0,を]", "1"),
    (155, "0.0689", "grad_W[0,食べる]", "1"),
    (156, "-0.0447", "grad_W[1,猫]", "1"),
    (156, "0.1652", "grad_W[1,が]", "1"),
    (156, "-0.0524", "grad_W[1,を]", "1"),
    (156, "-0.0344", "grad_W[1,食べる]", "1"),
    (157, "0.0670", "grad_W[2,猫]", "1"),
    (157, "-0.2478", "grad_W[2,が]", "1"),
    (157, "0.0506", "grad_W[2,魚]", "1"),
    (157, "0.0786", "grad_W[2,を]", "1"),
    (157, "0.0516", "grad_W[2,食べる]", "1"),
    (159, "0.2620", "grad_z[を]", "1"),
    (159, "0.0786", "grad_W[2,を]", "1"),
    (169, "0.2233", "grad_z[猫]", "1"),
    (169, "-0.8261", "grad_z[が]", "1"),
    (169, "0.1687", "grad_z[魚]", "1"),
    (169, "0.2620", "grad_z[を]", "1"),
    (169, "0.1721", "grad_z[食べる]", "1"),
    (169, "0.2455", "grad_x[0]", "1"),
    (173, "0.2455", "grad_x[0]", "1"),
    (173, "-0.4110", "grad_x[1]", "1"),
    (199, "-0.330451", "grad_W[0,が]", "1"),
    (199, "-0.033045", "adamw[1].m[W,0,が]", "1"),
    (199, "1.0920", "adamw[1].v[W,0,が]", "1e4"),
    (199, "-0.330451", "adamw[1].mhat[W,0,が]", "1"),
    (199, "0.109198", "adamw[1].vhat[W,0,が]", "1"),
    (199, "-0.079980", "adamw[1].W[0,が]", "1"),
    (200, "0.078598", "grad_W[2,を]", "1"),
    (200, "0.007860", "adamw[1].m[W,2,を]", "1"),
    (200, "6.1777", "adamw[1].v[W,2,を]", "1e6"),
    (200, "0.078598", "adamw[1].mhat[W,2,を]", "1"),
    (200, "0.006178", "adamw[1].vhat[W,2,を]", "1"),
    (200, "0.279940", "adamw[1].W[2,を]", "1"),
    (201, "-0.411006", "grad_E[猫,1]", "1"),
    (201, "-0.041101", "adamw[1].m[E,猫,1]", "1"),
    (201, "1.6893", "adamw[1].v[E,猫,1]", "1e4"),
    (201, "-0.411006", "adamw[1].mhat[E,猫,1]", "1"),
    (201, "0.168926", "adamw[1].vhat[E,猫,1]", "1"),
    (207, "-0.000020", "adamw[1].decay[W,0,が]", "1"),
    (207, "-0.020000", "adamw[1].update[W,0,が]", "1"),
    (208, "0.000060", "adamw[1].decay[W,2,を]", "1"),
    (208, "0.020000", "adamw[1].update[W,2,を]", "1"),
    (209, "-0.000040", "adamw[1].decay[E,猫,1]", "1"),
    (209, "-0.020000", "adamw[1].update[E,猫,1]", "1"),
    (211, "-0.079980", "adamw[1].W[0,が]", "1"),
    (217, "18.16", "adamw[1].p[が]", "100"),
    (217, "1.7494", "loss", "1"),
    (217, "1.7058", "adamw[1].loss", "1"),
    (221, "0.379920", "adamw[1].E[猫,0]", "1"),
    (221, "-0.179960", "adamw[1].E[猫,1]", "1"),
    (221, "0.319940", "adamw[1].E[猫,2]", "1"),
    (223, "0.2202", "adamw[1].p[猫]", "1"),
    (223, "0.1816", "adamw[1].p[が]", "1"),
    (223, "0.1658", "adamw[1].p[魚]", "1"),
    (223, "0.2579", "adamw[1].p[を]", "1"),
    (223, "0.1745", "adamw[1].p[食べる]", "1"),
    (227, "0.319940", "adamw[1].E[猫,2]", "1"),
    (227, "0.257899", "adamw[1].p[を]", "1"),
    (227, "0.082512", "adamw[1].grad_W[2,を]", "1"),
    (231, "0.007860", "adamw[1].m[W,2,を]", "1"),
    (231, "0.082512", "adamw[1].grad_W[2,を]", "1"),
    (231, "0.015325", "adamw[2].m[W,2,を]", "1"),
    (233, "6.1777", "adamw[1].v[W,2,を]", "1e6"),
    (233, "0.082512", "adamw[1].grad_W[2,を]", "1"),
    (233, "1.2980", "adamw[2].v[W,2,を]", "1e5"),
    (235, "0.015325", "adamw[2].m[W,2,を]", "1"),
    (235, "0.015325", "adamw[2].m[W,2,を]", "1"),
    (235, "0.080658", "adamw[2].mhat[W,2,を]", "1"),
    (237, "1.2980", "adamw[2].v[W,2,を]", "1e5"),
    (237, "1.2980", "adamw[2].v[W,2,を]", "1e5"),
    (237, "0.006493", "adamw[2].vhat[W,2,を]", "1"),
    (239, "0.080580", "sqrt(adamw[2].vhat[W,2,を])", "1"),
    (241, "0.080658", "adamw[2].mhat[W,2,を]", "1"),
    (241, "0.080580", "sqrt(adamw[2].vhat[W,2,を])", "1"),
    (241, "0.020019", "adamw[2].update[W,2,を]", "1"),
    (243, "0.279940", "adamw[1].W[2,を]", "1"),
    (243, "0.020019", "adamw[2].update[W,2,を]", "1"),
    (281, "1.7058", "adamw[1].loss", "1"),
    (281, "1.6642", "adamw[2].loss", "1"),
    (281, "0.1893", "adamw[2].p[が]", "1"),
    (289, "1.7494", "loss", "1"),
    (289, "0.1739", "p[が]", "1"),
    (290, "1.7058", "adamw[1].loss", "1"),
    (290, "0.1816", "adamw[1].p[が]", "1"),
    (291, "1.6642", "adamw[2].loss", "1"),
    (291, "0.1893", "adamw[2].p[が]", "1"),
    # the code outputs and a few figures written out by hand
    (124, "0.19", "z[猫]", "1"), (124, "-0.06", "z[が]", "1"), (124, "-0.09", "z[魚]", "1"),
    (124, "0.35", "z[を]", "1"), (124, "-0.07", "z[食べる]", "1"),
    (125, "0.2233", "p[猫]", "1"), (125, "0.1739", "p[が]", "1"), (125, "0.1687", "p[魚]", "1"),
    (125, "0.262", "p[を]", "1"), (125, "0.1721", "p[食べる]", "1"),
    (126, "1.7494", "loss", "1"),
    (277, "1.7058", "adamw[1].loss", "1"), (277, "0.279940", "adamw[1].W[2,を]", "1"),
    (278, "1.6642", "adamw[2].loss", "1"), (278, "0.259865", "adamw[2].W[2,を]", "1"),
    (211, "-0.000020", "adamw[1].decay[W,0,が]", "1"), (211, "-0.020000", "adamw[1].update[W,0,が]", "1"),
    (85, "20", "1/V", "100"), (94, "1.6094", "ln(5)", "1"), (214, "0.02", "adamw.lr", "1"),
]


def on_line(doc: list[str], line: int, text: str) -> bool:
    """The printed text stands on that line as a figure of its own (not inside a longer number)."""
    return 1 <= line <= len(doc) and re.search(r"(?<![\d.])" + re.escape(text) + r"(?![\d])", doc[line - 1]) is not None


def main() -> int:
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    bad = 0
    print(f"DOC.md ({len(doc)} lines): {len(FIGURES)} model figures")
    for line, text, ref, mult in FIGURES:
        right = rnd(VALUES[ref] * mp.mpf(mult), places(text))
        if right != text or not on_line(doc, line, text):
            bad += 1
            print(f"  line {line}: {text} for {ref} x {mult}: correct {right}, on the line: {on_line(doc, line, text)}")
    print("KEY.md:")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in VALUES), None)
        if ref is None:
            bad += 1
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            continue
        val = VALUES[ref] * (100 if printed.endswith("%") else 1)
        here = on_line(doc, line, printed)
        if len(cells) == 7:  # planted: exact value and correct rounding columns must agree, printed must differ
            planted += 1
            shown = cells[4].strip("`")
            right = rnd(val, places(shown)) + ("%" if shown.endswith("%") else "")
            exact = mp.mpf(cells[3].rstrip("…%"))
            ok = (shown == right and abs(exact - val) <= mp.mpf("1e-10") * abs(val) and printed != right
                  and rnd(val, places(printed)) + ("%" if printed.endswith("%") else "") != printed and here)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rnd(val, places(printed)) + ("%" if printed.endswith("%") else "")
            note = "correct" if right == printed and here else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += note.isupper() or note.endswith("DISAGREES")
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(val, 15):<20} rounds to {right:<10} {note}")
    if planted != 8:
        bad += 1
        print(f"  expected 8 planted rows, found {planted}")
    print(f"all {len(rows)} key rows and {len(FIGURES)} document figures agree with the oracle" if not bad
          else f"{bad} rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
