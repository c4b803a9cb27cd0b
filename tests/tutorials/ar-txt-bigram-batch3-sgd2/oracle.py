#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial ar-txt-bigram-batch3-sgd2 (mpmath, 50 digits, no symgpt).

    python oracle.py

Model: bigram, V = 5 (الولد يقرأ كتابا القط ينام), d = 3; x = E[input], z = x·W, p = softmax(z),
loss = -ln p[target].  Mini-batch of three pairs (الولد→يقرأ, يقرأ→كتابا, القط→ينام); the batch loss is
the mean of the three losses and every gradient the mean of the three examples' gradients
(grad_W = mean of outer(x, p - y); an input row of E gets W·(p - y) / 3 from each example that uses
it).  SGD θ ← θ - lr·g with lr = 0.5 on W and E together, two steps.

The program
  1. computes every quantity DOC.txt prints (names as symgpt's: `z[v]`, `example[1].p[v]`,
     `sgd[0].grad_W[i,v]`, `sgd[1].W[i,v]`, …; the per-example target probabilities after a step,
     which have no symgpt name, under internal names `sgd[k]:example[b].p[v]`);
  2. checks that every decimal figure of DOC.txt is the correct rounding (half away from zero) of its
     quantity at the printed precision, except the planted errors listed in KEY.md;
  3. prints each KEY.md row's quantity with its exact value and asserts that the key's "exact value"
     and "correct rounding" columns agree with it (and that the row's figure is on its line).
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["الولد", "يقرأ", "كتابا", "القط", "ينام"]
ID = {w: i for i, w in enumerate(VOCAB)}
V, D = 5, 3
LR = mp.mpf("0.5")
BATCH = [(0, 1), (1, 2), (3, 4)]  # (input id, target id)


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E0 = M([[0.4, -0.2, 0.1], [0.1, 0.3, -0.5], [-0.3, 0.2, 0.6], [0.5, 0.1, -0.3], [-0.1, -0.4, 0.3]])
W0 = M([[0.2, 0.6, -0.3, 0.1, -0.4], [-0.5, 0.3, 0.4, -0.2, 0.1], [0.3, -0.1, 0.5, 0.2, -0.6]])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W, tok, tgt):
    x = E[tok]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx)


def batch(E, W):
    fs = [forward(E, W, t, g) for t, g in BATCH]
    B = len(BATCH)
    loss = mp.fsum(f["loss"] for f in fs) / B
    gW = [[mp.fsum(f["grad_W"][i][j] for f in fs) / B for j in range(V)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(V)]
    for (t, _), f in zip(BATCH, fs):
        for i in range(D):
            gE[t][i] += f["grad_x"][i] / B
    return fs, loss, gW, gE


def train(steps):
    states = []
    E, W = E0, W0
    for _ in range(steps + 1):
        fs, loss, gW, gE = batch(E, W)
        states.append(dict(E=E, W=W, fs=fs, loss=loss, grad_W=gW, grad_E=gE))
        W = [[W[i][j] - LR * gW[i][j] for j in range(V)] for i in range(D)]
        E = [[E[v][i] - LR * gE[v][i] for i in range(D)] for v in range(V)]
    return states


def values():
    st = train(2)
    val = {"lr": LR, "ln(5)": mp.log(5)}
    s0 = st[0]
    for v in range(V):
        for j in range(D):
            val[f"E[{VOCAB[v]},{j}]"] = E0[v][j]
    for i in range(D):
        for j in range(V):
            val[f"W[{i},{VOCAB[j]}]"] = W0[i][j]
    for b, f in enumerate(s0["fs"]):
        pre = "" if b == 0 else f"example[{b}]."
        for j in range(V):
            val[f"{pre}z[{VOCAB[j]}]"] = f["z"][j]
            val[f"{pre}p[{VOCAB[j]}]"] = f["p"][j]
            val[f"{pre}grad_z[{VOCAB[j]}]"] = f["grad_z"][j]
        for i in range(D):
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
        for b, ((_, tgt), f) in enumerate(zip(BATCH, s["fs"])):
            if b == 0:
                for j in range(V):
                    val[f"sgd[{k}].p[{VOCAB[j]}]"] = f["p"][j]
            else:  # no symgpt name: example b's target probability after k updates
                val[f"sgd[{k}]:example[{b}].p[{VOCAB[tgt]}]"] = f["p"][tgt]
    return val


# Every decimal figure of DOC.txt, line by line, in the order it appears: its quantity.
FIGURES = {
    19: ["lr"],
    37: ["E[الولد,0]", "E[الولد,1]", "E[الولد,2]"],
    38: ["E[يقرأ,0]", "E[يقرأ,1]", "E[يقرأ,2]"],
    39: ["E[القط,0]", "E[القط,1]", "E[القط,2]"],
    45: [f"W[0,{w}]" for w in VOCAB],
    46: [f"W[1,{w}]" for w in VOCAB],
    47: [f"W[2,{w}]" for w in VOCAB],
    60: ["E[الولد,0]", "W[0,يقرأ]", "E[الولد,1]", "W[1,يقرأ]", "E[الولد,2]", "W[2,يقرأ]", "z[يقرأ]"],
    **{67 + j: [f"z[{VOCAB[j]}]", f"example[1].z[{VOCAB[j]}]", f"example[2].z[{VOCAB[j]}]"] for j in range(V)},
    74: ["sum_exp"],
    **{80 + j: [f"p[{VOCAB[j]}]", f"example[1].p[{VOCAB[j]}]", f"example[2].p[{VOCAB[j]}]"] for j in range(V)},
    87: ["example[1].p[ينام]"],
    91: ["p[يقرأ]", "loss"],
    92: ["example[1].p[كتابا]", "example[1].loss"],
    93: ["example[2].loss"],
    95: ["sgd[0].loss"],
    96: ["ln(5)"],
    110: ["E[الولد,0]", "p[يقرأ]", "E[يقرأ,0]", "example[1].p[يقرأ]", "E[القط,0]", "example[2].p[يقرأ]",
          "sgd[0].grad_W[0,يقرأ]"],
    **{117 + i: [f"sgd[0].grad_W[{i},{w}]" for w in VOCAB] for i in range(D)},
    126: [f"sgd[0].grad_E[الولد,{j}]" for j in range(D)],
    128: [f"sgd[0].grad_E[يقرأ,{j}]" for j in range(D)],
    135: ["lr"],
    138: ["W[0,يقرأ]", "lr", "sgd[0].grad_W[0,يقرأ]", "sgd[1].W[0,يقرأ]"],
    142: ["W[2,ينام]", "lr", "sgd[0].grad_W[2,ينام]", "sgd[1].W[2,ينام]"],
    151: ["sgd[1].loss", "sgd[1].p[يقرأ]", "sgd[1]:example[1].p[كتابا]", "sgd[1]:example[2].p[ينام]"],
    152: ["sgd[2].loss", "sgd[2].p[يقرأ]", "sgd[2]:example[1].p[كتابا]", "sgd[2]:example[2].p[ينام]"],
    155: ["sgd[0].loss", "p[يقرأ]", "example[1].p[كتابا]", "example[2].p[ينام]"],
}

FIG = re.compile(r"-?\d+\.\d+%?")


def rounding_of(v, shown: str) -> str:
    pct = shown.endswith("%")
    places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
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
                assert right != shown, f"line {ln}: planted {shown} is in fact correct"
                found_planted.add((ln, shown))
            else:
                assert right == shown, f"line {ln}: {shown} for {ref} should be {right}"
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
        assert corr == right, f"{printed}: key's correct rounding {corr}, oracle {right}"
        assert abs(ex - v) <= mp.mpf("1e-10") * abs(v), f"{printed}: key's exact {exact}, oracle {mp.nstr(v, 15)}"
        assert right != printed
        print(f"  {printed:>9}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<8} key agrees")
    print("KEY.md correct figures:")
    for c in correct:
        printed, line, quantity = c[0].strip("`"), int(c[1]), c[3]
        names = re.findall(r"`([^`]+)`", quantity)
        ref = next(n for n in names if n in val)
        assert printed in FIG.findall(doc[line - 1]), f"{printed} not on line {line}"
        assert ref in FIGURES[line], f"{ref} is not a quantity of line {line}"
        right = rounding_of(val[ref], printed)
        assert right == printed, f"{printed}: oracle rounds {ref} to {right}"
        v = val[ref] * (100 if printed.endswith("%") else 1)
        print(f"  {printed:>9}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} correct")
    print("all key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
