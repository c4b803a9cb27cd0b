#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial fr-txt-bigram-batch3-gradcheck-sgd2 (mpmath, 50 digits, no symgpt).

    python oracle.py

Model (read from SPEC.toml with tomllib): bigram, V = 5 (le chat boit du lait), d = 3;
x = E[input], z = x·W, p = softmax(z), loss = -ln p[target].  Mini-batch of three pairs
(le→chat, chat→boit, du→lait); the batch loss is the mean of the three losses and every gradient
the mean of the three examples' gradients (grad_W = mean of outer(x, p - y); the input row of E of
each example gets W·(p - y) / 3).  The reverse pass is checked against central differences of the
batch loss (h = 1e-4 for the printed check, and on every parameter entry for the whole gradient).
SGD θ ← θ - lr·g with lr = 0.5 on W and E together, two steps.

The program
  1. computes every quantity DOC.txt prints, under symgpt's names (`z[v]`, `example[1].p[v]`,
     `sgd[0].grad_W[i,v]`, `loss_at(W[1,boit], 1e-4)`, `gradcheck(E[du,2], 1e-4)`, `sgd[2].loss`, …);
  2. checks that every decimal figure of DOC.txt (decimal comma, as French writes it) is the correct
     rounding (half away from zero) of its quantity at the printed precision, except the planted errors
     listed in KEY.md, which must not be;
  3. prints each KEY.md row's quantity with its exact value and asserts the key's "exact value" and
     "correct rounding" columns agree with it (and that the row's figure stands on its line).
Exit status 1 on any disagreement.
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

VOCAB = SPEC["model"]["vocab"]
ID = {w: i for i, w in enumerate(VOCAB)}
V, D = len(VOCAB), SPEC["model"]["d"]
LR = mp.mpf(str(SPEC["training"]["lr"]))
STEPS = SPEC["training"]["steps"]
H = mp.mpf(str(SPEC["training"]["gradcheck"]["h"]))
BATCH = [(ID[SPEC["data"]["input"][-1]], ID[SPEC["data"]["target"]])] + [
    (ID[ex["input"][-1]], ID[ex["target"]]) for ex in SPEC["training"]["examples"]
]


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E0 = M(SPEC["weights"]["E"])
W0 = M(SPEC["weights"]["W"])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and set(s[1:]) <= set("0.") else s


def forward(E, W, tok, tgt):
    x = E[tok]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(v) for v in z]
    S = mp.fsum(ex)
    p = [e / S for e in ex]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, exp=ex, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx)


def batch(E, W):
    fs = [forward(E, W, t, g) for t, g in BATCH]
    B = len(BATCH)
    loss = mp.fsum(f["loss"] for f in fs) / B
    gW = [[mp.fsum(f["grad_W"][i][j] for f in fs) / B for j in range(V)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(V)]
    for (t, _), f in zip(BATCH, fs):
        gE[t] = [gE[t][i] + f["grad_x"][i] / B for i in range(D)]
    return fs, loss, gW, gE


def batch_loss(E, W):
    return batch(E, W)[1]


def moved(which, r, c, delta):
    E, W = [row[:] for row in E0], [row[:] for row in W0]
    (E if which == "E" else W)[r][c] += delta
    return batch_loss(E, W)


def train(steps):
    states = []
    E, W = E0, W0
    for _ in range(steps + 1):
        fs, loss, gW, gE = batch(E, W)
        states.append(dict(E=E, W=W, fs=fs, loss=loss, grad_W=gW, grad_E=gE))
        W = [[W[i][j] - LR * gW[i][j] for j in range(V)] for i in range(D)]
        E = [[E[v][i] - LR * gE[v][i] for i in range(D)] for v in range(V)]
    return states


def check_reverse_pass():
    """Every entry of the batch-mean gradient against a central difference (step 1e-6, tolerance 1e-9)."""
    _, _, gW, gE = batch(E0, W0)
    s = mp.mpf("1e-6")
    worst = mp.mpf(0)
    for i in range(D):
        for j in range(V):
            num = (moved("W", i, j, s) - moved("W", i, j, -s)) / (2 * s)
            worst = max(worst, abs(num - gW[i][j]))
    for v in range(V):
        for j in range(D):
            num = (moved("E", v, j, s) - moved("E", v, j, -s)) / (2 * s)
            worst = max(worst, abs(num - gE[v][j]))
    assert worst < mp.mpf("1e-9"), f"reverse pass disagrees with central differences: {worst}"
    return worst


def values():
    st = train(STEPS)
    val = {"lr": LR, "h": H, "ln(5)": mp.log(5)}
    for v in range(V):
        for j in range(D):
            val[f"E[{VOCAB[v]},{j}]"] = E0[v][j]
    for i in range(D):
        for j in range(V):
            val[f"W[{i},{VOCAB[j]}]"] = W0[i][j]
    for b, f in enumerate(st[0]["fs"]):
        pre = "" if b == 0 else f"example[{b}]."
        for j in range(V):
            w = VOCAB[j]
            val[f"{pre}z[{w}]"] = f["z"][j]
            val[f"exp({pre}z[{w}])"] = f["exp"][j]
            val[f"{pre}p[{w}]"] = f["p"][j]
            val[f"{pre}grad_z[{w}]"] = f["grad_z"][j]
        for i in range(D):
            val[f"{pre}x[{i}]"] = f["x"][i]
            val[f"{pre}grad_x[{i}]"] = f["grad_x"][i]
        val[f"{pre}sum_exp"] = f["sum_exp"]
        val[f"{pre}loss"] = f["loss"]
    for k, s in enumerate(st):
        val[f"sgd[{k}].loss"] = s["loss"]
        for i in range(D):
            for j in range(V):
                val[f"sgd[{k}].W[{i},{VOCAB[j]}]"] = s["W"][i][j]
                val[f"sgd[{k}].grad_W[{i},{VOCAB[j]}]"] = s["grad_W"][i][j]
        for v in range(V):
            for j in range(D):
                val[f"sgd[{k}].E[{VOCAB[v]},{j}]"] = s["E"][v][j]
                val[f"sgd[{k}].grad_E[{VOCAB[v]},{j}]"] = s["grad_E"][v][j]
        for j in range(V):
            val[f"sgd[{k}].p[{VOCAB[j]}]"] = s["fs"][0]["p"][j]
    # the gradient check of the batch loss (symgpt: loss_at / gradcheck, the batch mean with training.examples)
    for which, r, c in (("W", 1, ID["boit"]), ("E", ID["du"], 2)):
        name = f"W[{r},{VOCAB[c]}]" if which == "W" else f"E[{VOCAB[r]},{c}]"
        lp, lm = moved(which, r, c, H), moved(which, r, c, -H)
        val[f"loss_at({name}, 1e-4)"] = lp
        val[f"loss_at({name}, -1e-4)"] = lm
        val[f"gradcheck({name}, 1e-4)"] = (lp - lm) / (2 * H)
        g = st[0]["grad_W"][r][c] if which == "W" else st[0]["grad_E"][r][c]
        val[f"abs(gradcheck({name}, 1e-4) - sgd[0].grad_{which}[{name[2:-1]}])"] = abs((lp - lm) / (2 * H) - g)
    val["sgd[0].loss - sgd[1].loss"] = st[0]["loss"] - st[1]["loss"]
    val["sgd[1].loss - sgd[2].loss"] = st[1]["loss"] - st[2]["loss"]
    return val


# Every decimal figure of DOC.txt, line by line, in the order it appears: its quantity.
FIGURES: dict[int, list[str]] = {
    44: ['E[le,0]', 'E[le,1]', 'E[le,2]'],
    45: ['E[chat,0]', 'E[chat,1]', 'E[chat,2]'],
    46: ['E[du,0]', 'E[du,1]', 'E[du,2]'],
    50: ['W[0,le]', 'W[0,chat]', 'W[0,boit]', 'W[0,du]', 'W[0,lait]'],
    51: ['W[1,le]', 'W[1,chat]', 'W[1,boit]', 'W[1,du]', 'W[1,lait]'],
    52: ['W[2,le]', 'W[2,chat]', 'W[2,boit]', 'W[2,du]', 'W[2,lait]'],
    54: ['lr'],
    69: ['E[le,0]', 'W[0,le]', 'E[le,1]', 'W[1,le]', 'E[le,2]', 'W[2,le]', 'z[le]'],
    76: ['z[le]', 'example[1].z[le]', 'example[2].z[le]'],
    77: ['z[chat]', 'example[1].z[chat]', 'example[2].z[chat]'],
    78: ['z[boit]', 'example[1].z[boit]', 'example[2].z[boit]'],
    79: ['z[du]', 'example[1].z[du]', 'example[2].z[du]'],
    80: ['z[lait]', 'example[1].z[lait]', 'example[2].z[lait]'],
    87: ['exp(example[1].z[le])', 'exp(example[1].z[chat])', 'exp(example[1].z[boit])', 'exp(example[1].z[du])', 'exp(example[1].z[lait])'],
    89: ['example[1].sum_exp'],
    92: ['exp(example[1].z[boit])', 'example[1].sum_exp', 'example[1].p[boit]'],
    98: ['p[le]', 'example[1].p[le]', 'example[2].p[le]'],
    99: ['p[chat]', 'example[1].p[chat]', 'example[2].p[chat]'],
    100: ['p[boit]', 'example[1].p[boit]', 'example[2].p[boit]'],
    101: ['p[du]', 'example[1].p[du]', 'example[2].p[du]'],
    102: ['p[lait]', 'example[1].p[lait]', 'example[2].p[lait]'],
    108: ['p[chat]', 'loss'],
    109: ['example[1].p[boit]', 'example[1].loss'],
    110: ['example[2].p[lait]', 'example[2].loss'],
    114: ['sgd[0].loss'],
    116: ['ln(5)'],
    129: ['p[chat]', 'grad_z[chat]'],
    130: ['example[2].p[lait]', 'example[2].grad_z[lait]'],
    134: ['example[1].grad_z[le]', 'example[1].grad_z[chat]', 'example[1].grad_z[boit]', 'example[1].grad_z[du]', 'example[1].grad_z[lait]'],
    147: ['E[le,1]', 'grad_z[boit]', 'E[chat,1]', 'example[1].grad_z[boit]'],
    148: ['E[du,1]', 'example[2].grad_z[boit]', 'sgd[0].grad_W[1,boit]'],
    154: ['sgd[0].grad_W[0,le]', 'sgd[0].grad_W[0,chat]', 'sgd[0].grad_W[0,boit]', 'sgd[0].grad_W[0,du]', 'sgd[0].grad_W[0,lait]'],
    155: ['sgd[0].grad_W[1,le]', 'sgd[0].grad_W[1,chat]', 'sgd[0].grad_W[1,boit]', 'sgd[0].grad_W[1,du]', 'sgd[0].grad_W[1,lait]'],
    156: ['sgd[0].grad_W[2,le]', 'sgd[0].grad_W[2,chat]', 'sgd[0].grad_W[2,boit]', 'sgd[0].grad_W[2,du]', 'sgd[0].grad_W[2,lait]'],
    164: ['sgd[0].grad_E[du,0]', 'sgd[0].grad_E[du,1]', 'sgd[0].grad_E[du,2]'],
    170: ['sgd[0].grad_E[le,0]', 'sgd[0].grad_E[le,1]', 'sgd[0].grad_E[le,2]'],
    171: ['sgd[0].grad_E[chat,0]', 'sgd[0].grad_E[chat,1]', 'sgd[0].grad_E[chat,2]'],
    172: ['sgd[0].grad_E[du,0]', 'sgd[0].grad_E[du,1]', 'sgd[0].grad_E[du,2]'],
    191: ['loss_at(W[1,boit], 1e-4)', 'loss_at(W[1,boit], -1e-4)', 'gradcheck(W[1,boit], 1e-4)', 'sgd[0].grad_W[1,boit]'],
    192: ['loss_at(E[du,2], 1e-4)', 'loss_at(E[du,2], -1e-4)', 'gradcheck(E[du,2], 1e-4)', 'sgd[0].grad_E[du,2]'],
    203: ['lr'],
    210: ['W[0,le]', 'lr', 'sgd[0].grad_W[0,le]', 'sgd[1].W[0,le]'],
    216: ['W[1,chat]', 'sgd[0].grad_W[1,chat]', 'sgd[1].W[1,chat]'],
    217: ['W[2,lait]', 'sgd[0].grad_W[2,lait]', 'sgd[1].W[2,lait]'],
    218: ['E[le,0]', 'sgd[0].grad_E[le,0]', 'sgd[1].E[le,0]'],
    219: ['E[du,2]', 'sgd[0].grad_E[du,2]', 'sgd[1].E[du,2]'],
    223: ['sgd[1].loss', 'sgd[0].loss'],
    229: ['sgd[1].grad_W[1,boit]'],
    231: ['sgd[1].W[1,boit]', 'lr', 'sgd[1].grad_W[1,boit]', 'sgd[2].W[1,boit]'],
    235: ['sgd[1].grad_W[1,chat]', 'sgd[2].W[1,chat]'],
    236: ['sgd[1].grad_W[2,lait]', 'sgd[2].W[2,lait]'],
    237: ['sgd[1].grad_E[le,0]', 'sgd[2].E[le,0]'],
    238: ['sgd[1].grad_E[du,2]', 'sgd[2].E[du,2]'],
    240: ['sgd[2].loss'],
    248: ['sgd[0].loss', 'sgd[0].p[chat]'],
    249: ['sgd[1].loss', 'sgd[1].p[chat]'],
    250: ['sgd[2].loss', 'sgd[2].p[chat]'],
    252: ['sgd[0].loss - sgd[1].loss', 'sgd[1].loss - sgd[2].loss'],
}

FIG = re.compile(r"-?\d+,\d+(?: ?%)?")


def as_dot(shown: str) -> str:
    return shown.replace(" ", "").replace(",", ".")


def rounding_of(v, shown: str) -> str:
    s = as_dot(shown)
    pct = s.endswith("%")
    places = len(s.rstrip("%").split(".")[1]) if "." in s else 0
    return rnd(v * (100 if pct else 1), places) + ("%" if pct else "")


def key_rows():
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted, correct = [], []
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        (planted if len(cells) == 7 else correct).append(cells)
    return planted, correct


def main() -> int:
    val = values()
    worst = check_reverse_pass()
    print(f"reverse pass vs central differences (all 30 entries, step 1e-6): max |diff| = {mp.nstr(worst, 3)}")
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    planted, correct = key_rows()
    assert len(planted) == 8, f"KEY.md must list exactly 8 planted errors, has {len(planted)}"
    assert len(correct) == 10, f"KEY.md must list 10 correct figures, has {len(correct)}"
    planted_at = {(int(c[1]), c[0].strip("`")) for c in planted}

    # 1. every figure of the document
    n_fig, found_planted = 0, set()
    for ln, text in enumerate(doc, 1):
        figs = FIG.findall(text)
        if not figs:
            assert ln not in FIGURES, f"line {ln}: mapped but has no figure"
            continue
        assert ln in FIGURES, f"line {ln}: figures {figs} not mapped"
        refs = FIGURES[ln]
        assert len(refs) == len(figs), f"line {ln}: {figs} vs {refs}"
        for shown, ref in zip(figs, refs):
            n_fig += 1
            right = rounding_of(val[ref], shown)
            if (ln, shown) in planted_at:
                assert right != as_dot(shown), f"line {ln}: planted {shown} is in fact correct"
                found_planted.add((ln, shown))
            else:
                assert right == as_dot(shown), f"line {ln}: {shown} for {ref} should be {right}"
    assert found_planted == planted_at, f"planted rows not found in DOC: {planted_at - found_planted}"
    print(f"DOC.txt: {n_fig} figures, {n_fig - len(planted_at)} correct roundings, {len(planted_at)} planted")

    # 2. the key's rows
    print("KEY.md planted errors:")
    for c in planted:
        printed, line, exact, corr, quantity = c[0].strip("`"), int(c[1]), c[3], c[4].strip("`"), c[6]
        names = re.findall(r"`([^`]+)`", quantity)
        ref = next(n for n in names if n in val)
        assert printed in FIG.findall(doc[line - 1]), f"{printed} not on line {line}"
        assert ref in FIGURES[line], f"{ref} is not a quantity of line {line}"
        v = val[ref] * (100 if printed.endswith("%") else 1)
        right = rounding_of(val[ref], corr)
        ex = mp.mpf(exact.rstrip("…"))
        assert as_dot(corr) == right, f"{printed}: key's correct rounding {corr}, oracle {right}"
        assert abs(ex - v) <= mp.mpf("1e-10") * abs(v), f"{printed}: key's exact {exact}, oracle {mp.nstr(v, 15)}"
        assert right != as_dot(printed)
        print(f"  {printed:>10}  line {line:>3}  {ref:<42} {mp.nstr(v, 15):<20} rounds to {right:<8} key agrees")
    print("KEY.md correct figures:")
    for c in correct:
        printed, line, quantity = c[0].strip("`"), int(c[1]), c[3]
        names = re.findall(r"`([^`]+)`", quantity)
        ref = next(n for n in names if n in val)
        assert printed in FIG.findall(doc[line - 1]), f"{printed} not on line {line}"
        assert ref in FIGURES[line], f"{ref} is not a quantity of line {line}"
        right = rounding_of(val[ref], printed)
        assert right == as_dot(printed), f"{printed}: oracle rounds {ref} to {right}"
        v = val[ref] * (100 if printed.endswith("%") else 1)
        print(f"  {printed:>10}  line {line:>3}  {ref:<42} {mp.nstr(v, 15):<20} correct")
    print("all figures and key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("MISMATCH:", e)
        sys.exit(1)
