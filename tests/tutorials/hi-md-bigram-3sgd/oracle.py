#!/usr/bin/env python3
"""Independent oracle for hi-md-bigram-3sgd: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py

Reads SPEC.toml's weights (tomllib), computes the bigram exactly as the tutorial does
(e = E[दूध], s = e·W, q = softmax(s), L = -ln q[पीती], q - y, dL/dW = outer(e, q - y),
dL/de = W·(q - y), three SGD steps θ ← θ - 0.3·g on W and on E's input row), then checks

* every row of KEY.md: the exact value, the correct rounding (half away from zero) and, for a
  planted row, that the printed figure differs from it; and that the printed text stands on the
  stated line of DOC.md;
* every other model figure of DOC.md (FIGURES below): the correct rounding, on its line;
* every worked equation of DOC.md (CHAINS below): its printed operands, combined exactly, round to
  its printed result.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
DOC = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def num(text: str):
    return mp.mpf(text.replace("−", "-"))


# ---------------------------------------------------------------- the model

VOCAB = SPEC["model"]["vocab"]
TOK = VOCAB.index(SPEC["data"]["input"][0])
TGT = VOCAB.index(SPEC["data"]["target"])
LR = num(repr(SPEC["training"]["lr"]))
STEPS = SPEC["training"]["steps"]
E0 = [[num(repr(a)) for a in row] for row in SPEC["weights"]["E"]]
W0 = [[num(repr(a)) for a in row] for row in SPEC["weights"]["W"]]
V, D = len(VOCAB), len(E0[0])


def forward(E, W):
    e = E[TOK][:]
    s = [mp.fsum(e[i] * W[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(a) for a in s]
    tot = mp.fsum(ex)
    q = [a / tot for a in ex]
    g = [q[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[e[i] * g[j] for j in range(V)] for i in range(D)]
    ge = [mp.fsum(W[i][j] * g[j] for j in range(V)) for i in range(D)]
    gE = [[ge[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(E=E, W=W, x=e, z=s, exp=ex, sum_exp=tot, p=q, loss=-mp.log(q[TGT]),
                grad_z=g, grad_W=gW, grad_x=ge, grad_E=gE)


STATES = [forward(E0, W0)]
for _ in range(STEPS):
    st = STATES[-1]
    W = [[st["W"][i][j] - LR * st["grad_W"][i][j] for j in range(V)] for i in range(D)]
    E = [[st["E"][v][i] - LR * st["grad_E"][v][i] for i in range(D)] for v in range(V)]
    STATES.append(forward(E, W))


def idx(tok: str) -> int:
    tok = tok.strip()
    return int(tok) if tok.isdigit() else VOCAB.index(tok)


def value(ref: str):
    """A reference in symgpt's naming: [sgd[k].]NAME[i(,j)] or exp(z[v])."""
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(value(m.group(1)))
    k = 0
    m = re.fullmatch(r"sgd\[(\d+)\]\.(.+)", ref)
    if m:
        k, ref = int(m.group(1)), m.group(2)
    st = STATES[k]
    m = re.fullmatch(r"(\w+)(?:\[([^\]]+)\])?", ref)
    name, ix = m.group(1), m.group(2)
    val = st[name]
    if ix is None:
        return val
    parts = [p for p in ix.split(",")]
    if name in ("W", "grad_W"):          # W[j, v]: a dimension, then a token
        return val[int(parts[0])][idx(parts[1])]
    if name in ("E", "grad_E"):          # E[v, j]: a token, then a dimension
        return val[idx(parts[0])][int(parts[1])]
    if name in ("x", "grad_x"):
        return val[int(parts[0])]
    return val[idx(parts[0])]            # z, p, grad_z, exp by token


# ---------------------------------------------------------------- the document's other figures
# (line, printed, quantity): every model figure of DOC.md that is not a planted error

FIGURES = [
    (66, "-0.12", "z[बिल्ली]"), (68, "-0.14", "z[दूध]"), (70, "0.19", "z[पीती]"),
    (72, "0.31", "z[है]"), (74, "-0.07", "z[घर]"),
    (84, "0.8869", "exp(z[बिल्ली])"), (85, "0.8694", "exp(z[दूध])"), (86, "1.2092", "exp(z[पीती])"),
    (57, "0.4", "x[0]"), (57, "-0.3", "x[1]"), (57, "0.2", "x[2]"),
    (88, "0.9324", "exp(z[घर])"), (90, "5.2613", "sum_exp"), (93, "0.2298", "p[पीती]"),
    (99, "-0.12", "z[बिल्ली]"), (99, "-0.14", "z[दूध]"), (99, "0.19", "z[पीती]"), (99, "0.31", "z[है]"),
    (99, "-0.07", "z[घर]"),
    (100, "0.1686", "p[बिल्ली]"), (100, "0.1652", "p[दूध]"), (100, "0.2298", "p[पीती]"),
    (100, "0.2591", "p[है]"), (100, "0.1772", "p[घर]"), (104, "0.2591", "p[है]"), (110, "0.2298", "p[पीती]"),
    (126, "0.1686", "grad_z[बिल्ली]"), (126, "0.1652", "grad_z[दूध]"), (126, "0.2591", "grad_z[है]"),
    (126, "0.1772", "grad_z[घर]"),
    (139, "0.0674", "grad_W[0,बिल्ली]"), (139, "-0.3081", "grad_W[0,पीती]"), (139, "0.1037", "grad_W[0,है]"),
    (139, "0.0709", "grad_W[0,घर]"),
    (140, "-0.0506", "grad_W[1,बिल्ली]"), (140, "-0.0496", "grad_W[1,दूध]"), (140, "0.2310", "grad_W[1,पीती]"),
    (140, "-0.0777", "grad_W[1,है]"), (140, "-0.0532", "grad_W[1,घर]"),
    (141, "0.0337", "grad_W[2,बिल्ली]"), (141, "0.0330", "grad_W[2,दूध]"), (141, "-0.1540", "grad_W[2,पीती]"),
    (141, "0.0518", "grad_W[2,है]"), (141, "0.0354", "grad_W[2,घर]"),
    (144, "-0.7702", "grad_z[पीती]"), (144, "-0.3081", "grad_W[0,पीती]"),
    (145, "-0.7702", "grad_z[पीती]"), (145, "-0.1540", "grad_W[2,पीती]"),
    (157, "0.1686", "grad_z[बिल्ली]"), (157, "0.1652", "grad_z[दूध]"), (157, "-0.7702", "grad_z[पीती]"),
    (157, "0.2591", "grad_z[है]"), (157, "0.1772", "grad_z[घर]"), (159, "-0.1886", "grad_x[0]"),
    (163, "0.1686", "grad_z[बिल्ली]"), (163, "0.1652", "grad_z[दूध]"), (163, "-0.7702", "grad_z[पीती]"),
    (163, "0.2591", "grad_z[है]"), (163, "0.1772", "grad_z[घर]"), (165, "0.1168", "grad_x[1]"),
    (169, "-0.1886", "grad_x[0]"), (169, "0.1168", "grad_x[1]"),
    (182, "-0.3081", "grad_W[0,पीती]"), (182, "0.3924", "sgd[1].W[0,पीती]"),
    (184, "0.2310", "grad_W[1,पीती]"), (184, "-0.1693", "sgd[1].W[1,पीती]"),
    (186, "-0.1540", "grad_W[2,पीती]"), (186, "0.2462", "sgd[1].W[2,पीती]"),
    (190, "0.1037", "grad_W[0,है]"), (190, "0.4689", "sgd[1].W[0,है]"),
    (194, "-0.1886", "grad_x[0]"), (194, "0.4566", "sgd[1].E[दूध,0]"),
    (196, "0.1168", "grad_x[1]"),
    (198, "-0.0565", "grad_x[2]"), (198, "0.2170", "sgd[1].E[दूध,2]"),
] + [
    (204 + i, rnd(STATES[1]["W"][i][j], 4), f"sgd[1].W[{i},{VOCAB[j]}]") for i in range(3) for j in range(5)
] + [
    (210, "-0.1463", "sgd[1].z[बिल्ली]"), (210, "-0.1764", "sgd[1].z[दूध]"), (210, "0.2893", "sgd[1].z[पीती]"),
    (210, "0.3251", "sgd[1].z[है]"), (210, "-0.1033", "sgd[1].z[घर]"),
    (212, "0.19", "z[पीती]"), (212, "0.2893", "sgd[1].z[पीती]"), (212, "0.3251", "sgd[1].z[है]"),
    (213, "0.2509", "sgd[1].p[पीती]"), (213, "1.3828", "sgd[1].loss"),
    (220, "-0.7491", "sgd[1].grad_z[पीती]"), (222, "0.4330", "sgd[2].z[पीती]"), (222, "0.3460", "sgd[2].z[है]"),
    (229, "1.3828", "sgd[1].loss"), (229, "1.2616", "sgd[2].loss"), (229, "1.0966", "sgd[3].loss"),
    (230, "0.2509", "sgd[1].p[पीती]"), (230, "0.2832", "sgd[2].p[पीती]"),
    (232, "0.6379", "sgd[3].E[दूध,0]"), (232, "-0.4564", "sgd[3].E[दूध,1]"), (232, "0.2890", "sgd[3].E[दूध,2]"),
    (233, "0.6103", "sgd[3].W[0,पीती]"),
    (237, "1.3828", "sgd[1].loss"), (237, "1.0966", "sgd[3].loss"), (238, "22.98%", "p[पीती]"),
]

# (line, the printed operands' arithmetic, printed result[, the operands' line when the equation
# goes on over the next lines]): each worked equation must close
CHAINS = [
    (66, "0.4*0.1 + (-0.3)*0.2 + 0.2*(-0.5)", "-0.12"), (68, "0.4*(-0.2) + (-0.3)*0.4 + 0.2*0.3", "-0.14"),
    (70, "0.4*0.3 + (-0.3)*(-0.1) + 0.2*0.2", "0.19"), (72, "0.4*0.5 + (-0.3)*(-0.3) + 0.2*0.1", "0.31"),
    (74, "0.4*(-0.4) + (-0.3)*0.1 + 0.2*0.6", "-0.07"),
    (93, "1.2092/5.2613", "0.2298"), (102, "0.1686 + 0.1652 + 0.2298 + 0.2591 + 0.1772", "0.9999"),
    (144, "0.4*(-0.7702)", "-0.3081"), (145, "0.2*(-0.7702)", "-0.1540"),
    (159, "0.1*0.1686 + (-0.2)*0.1652 + 0.3*(-0.7702) + 0.5*0.2591 + (-0.4)*0.1772", "-0.1886", 157),
    (159, "0.01686 - 0.03304 - 0.23106 + 0.12955 - 0.07088", "-0.1886"),
    (165, "0.2*0.1686 + 0.4*0.1652 + (-0.1)*(-0.7702) + (-0.3)*0.2591 + 0.1*0.1772", "0.1168", 163),
    (165, "0.03372 + 0.06608 + 0.07702 - 0.07773 + 0.01772", "0.1168"),
    (182, "0.3 - 0.3*(-0.3081)", "0.3924"), (184, "-0.1 - 0.3*0.2310", "-0.1693"),
    (186, "0.2 - 0.3*(-0.1540)", "0.2462"), (190, "0.5 - 0.3*0.1037", "0.4689"),
    (194, "0.4 - 0.3*(-0.1886)", "0.4566"), (196, "-0.3 + 0.3*0.1168", "-0.2650"),
    (198, "0.2 - 0.3*(-0.0565)", "0.2170"),
]


def on_line(line: int, text: str) -> bool:
    return 1 <= line <= len(DOC) and text in DOC[line - 1].replace("−", "-")


def places(text: str) -> int:
    t = text.rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def rounded(v, shown: str) -> str:
    pct = shown.endswith("%")
    return rnd(v * (100 if pct else 1), places(shown)) + ("%" if pct else "")


def main() -> int:
    bad = 0
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = 0
    print("KEY.md:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        vals = [value(n) for n in names]
        v = vals[0]
        if any(abs(w - v) > mp.mpf("1e-40") for w in vals[1:]):
            print(f"  {printed:>10}  alternatives {names} differ")
            bad += 1
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            right = rounded(v, shown)
            exact = mp.mpf(cells[3].rstrip("…"))
            vv = v * (100 if shown.endswith("%") else 1)
            ok = shown == right and abs(exact - vv) <= mp.mpf("1e-10") * abs(vv) and right != printed \
                and rounded(v, printed) != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rounded(v, printed)
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        if not on_line(line, printed):
            note = f"NOT ON LINE {line}"
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>10}  line {line:>3}  {names[0]:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if n_planted != 8:
        print(f"  expected 8 planted rows, found {n_planted}")
        bad += 1

    print("DOC.md figures:")
    nf = 0
    for line, printed, ref in FIGURES:
        right = rounded(value(ref), printed)
        if right != printed or not on_line(line, printed):
            print(f"  line {line}: {printed} for {ref}: rounds to {right}, on line: {on_line(line, printed)}")
            bad += 1
        nf += 1
    print(f"  {nf} figures checked")

    print("DOC.md equations:")
    for line, expr, printed, *op_line in CHAINS:
        op_line = op_line[0] if op_line else line
        operands = re.findall(r"\d+\.\d+", expr)
        v = eval(re.sub(r"(\d+\.\d+)", r"mp.mpf('\1')", expr), {"mp": mp})
        right = rnd(v, places(printed))
        if right != printed or not on_line(line, printed) or not all(on_line(op_line, o) for o in operands):
            print(f"  line {line}: {expr} = {mp.nstr(v, 12)} rounds to {right}, printed {printed}")
            bad += 1
    print(f"  {len(CHAINS)} equations checked")

    print("DOC.md weights and facts:")
    cells = lambda l: [c.strip() for c in DOC[l - 1].replace("\\\\", "").replace("&", "|").strip("| ").split("|")]
    for v in range(V):                                  # E as a bmatrix on lines 32-36
        if [num(c) for c in cells(32 + v)] != E0[v]:
            print(f"  line {32 + v}: E row {v} differs from SPEC.toml"); bad += 1
    for i in range(D):                                  # W as a table on lines 45-47, label first
        if [num(c) for c in cells(45 + i)[1:]] != W0[i]:
            print(f"  line {45 + i}: W row {i} differs from SPEC.toml"); bad += 1
    facts = [(50, "0.3", LR), (113, "1.6094", mp.log(5)), (112, "0.2", mp.mpf(1) / V), (178, "0.3", LR),
             (49, "15 + 15 = 30", None)]
    for line, printed, v in facts:
        if not on_line(line, printed) or (v is not None and rnd(v, places(printed)) != printed):
            print(f"  line {line}: {printed} is not true"); bad += 1
    print("  E, W, lr, 1/V, ln 5 and the parameter count checked")

    print("all key rows, figures and equations agree with the oracle" if not bad else f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
