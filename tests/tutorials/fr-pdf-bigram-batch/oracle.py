#!/usr/bin/env python3
"""Independent computation behind KEY.md of fr-pdf-bigram-batch: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # every KEY.md row: the quantity's value, its rounding, and the printed
                          # text on the stated line of `pdftotext -layout DOC.pdf -`

Model (read from SPEC.toml with tomllib): a bigram, x = E[input], z = x·W, p = softmax(z),
loss_i = -ln p[target_i] for each of the mini-batch's examples (data first, then
[[training.examples]]), mean loss = (1/n) Σ loss_i, mean gradients
grad_W = (1/n) Σ outer(x_i, p_i - y_i), grad_E[input_i] += (1/n) W·(p_i - y_i);
SGD θ ← θ - lr·g on W and E together, training.steps times on the same batch.

Names: symgpt's where it has one (`z[v]`, `p[v]`, `loss`, `grad_z[v]` are the FIRST example's;
`sgd[k].loss` the batch mean after k updates, `sgd[0].grad_W[j,v]`, `sgd[0].grad_E[v,j]` the batch
means, `sgd[k].W[j,v]`, `sgd[k].E[v,j]`, `sgd[k].p[v]` the first example's p after k updates),
and `exI.…` (I = 1, 2, 3 as the handout numbers them) for every example's own figures.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def num(v) -> mp.mpf:
    return mp.mpf(str(v))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    E = [[num(a) for a in row] for row in spec["weights"]["E"]]
    W = [[num(a) for a in row] for row in spec["weights"]["W"]]
    pairs = [(spec["data"]["input"][-1], spec["data"]["target"])]
    pairs += [(e["input"][-1], e["target"]) for e in spec["training"].get("examples", [])]
    batch = [(vocab.index(a), vocab.index(b)) for a, b in pairs]
    return vocab, E, W, batch, num(spec["training"]["lr"]), int(spec["training"]["steps"])


def forward(E, W, tok, tgt):
    V, d = len(W[0]), len(W)
    x = E[tok][:]
    z = [mp.fsum(x[j] * W[j][v] for j in range(d)) for v in range(V)]
    ez = [mp.exp(a) for a in z]
    s = mp.fsum(ez)
    p = [a / s for a in ez]
    g = [p[v] - (1 if v == tgt else 0) for v in range(V)]
    gx = [mp.fsum(W[j][v] * g[v] for v in range(V)) for j in range(d)]
    return dict(x=x, z=z, ez=ez, s=s, p=p, loss=-mp.log(p[tgt]), g=g, gx=gx, tok=tok, tgt=tgt)


def batch_state(E, W, batch):
    V, d, n = len(W[0]), len(W), len(batch)
    fs = [forward(E, W, t, y) for t, y in batch]
    gW = [[mp.fsum(f["x"][j] * f["g"][v] for f in fs) / n for v in range(V)] for j in range(d)]
    gE = [[mp.mpf(0)] * d for _ in range(len(E))]
    for f in fs:
        for j in range(d):
            gE[f["tok"]][j] += f["gx"][j] / n
    return dict(fs=fs, loss=mp.fsum(f["loss"] for f in fs) / n, gW=gW, gE=gE)


def compute() -> dict[str, mp.mpf]:
    vocab, E, W, batch, lr, steps = load()
    V, d = len(vocab), len(W)
    out: dict[str, mp.mpf] = {}
    states = []
    for k in range(steps + 1):
        st = batch_state(E, W, batch)
        states.append(st)
        pre = f"sgd[{k}]."
        out[pre + "loss"] = st["loss"]
        for v in range(V):
            out[pre + f"p[{vocab[v]}]"] = st["fs"][0]["p"][v]
            for j in range(d):
                out[pre + f"W[{j},{vocab[v]}]"] = W[j][v]
                out[pre + f"E[{vocab[v]},{j}]"] = E[v][j]
                out[pre + f"grad_W[{j},{vocab[v]}]"] = st["gW"][j][v]
                out[pre + f"grad_E[{vocab[v]},{j}]"] = st["gE"][v][j]
        for i, f in enumerate(st["fs"], 1):
            q = f"{pre}ex{i}."
            out[q + "loss"] = f["loss"]
            out[q + "sum_exp"] = f["s"]
            for v in range(V):
                out[q + f"z[{vocab[v]}]"] = f["z"][v]
                out[q + f"exp(z[{vocab[v]}])"] = f["ez"][v]
                out[q + f"p[{vocab[v]}]"] = f["p"][v]
                out[q + f"grad_z[{vocab[v]}]"] = f["g"][v]
            for j in range(d):
                out[q + f"grad_x[{j}]"] = f["gx"][j]
                out[q + f"grad_x_mean[{j}]"] = f["gx"][j] / len(batch)
        if k < steps:
            W = [[W[j][v] - lr * st["gW"][j][v] for v in range(V)] for j in range(d)]
            E = [[E[v][j] - lr * st["gE"][v][j] for j in range(d)] for v in range(V)]
    # the first example's own quantities, under symgpt's plain names
    f = states[0]["fs"][0]
    out["loss"], out["sum_exp"] = f["loss"], f["s"]
    for v in range(V):
        out[f"z[{vocab[v]}]"], out[f"p[{vocab[v]}]"] = f["z"][v], f["p"][v]
        out[f"exp(z[{vocab[v]}])"], out[f"grad_z[{vocab[v]}]"] = f["ez"][v], f["g"][v]
        for j in range(d):
            out[f"grad_W[{j},{vocab[v]}]"] = f["x"][j] * f["g"][v]
    for j in range(d):
        out[f"grad_x[{j}]"] = f["gx"][j]
    for v in range(V):
        for j in range(d):
            out[f"W[{j},{vocab[v]}]"] = out[f"sgd[0].W[{j},{vocab[v]}]"]
            out[f"E[{vocab[v]},{j}]"] = out[f"sgd[0].E[{vocab[v]},{j}]"]
    return out


def as_number(text: str):
    """'−0,1617' → (Decimal text '-0.1617', places 4, percent False); '17,14 %' → ('17.14', 2, True)."""
    t = text.strip().replace("\u2212", "-").replace("\u202f", " ").replace("\u00a0", " ")
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return t, places, pct


def main() -> int:
    values = compute()
    pdf = HERE / "DOC.pdf"
    lines = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        problems = []
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if not (1 <= line <= len(lines)) or printed not in lines[line - 1]:
            problems.append(f"printed text not on line {line}")
        p_txt, p_places, p_pct = as_number(printed)
        v = values[ref] * (100 if p_pct else 1)
        if len(cells) == 7:                                   # planted
            planted += 1
            shown, places, pct = as_number(cells[4].strip("`"))
            right = rnd(values[ref] * (100 if pct else 1), places)
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            if abs(exact - values[ref] * (100 if pct else 1)) > mp.mpf("1e-10") * max(abs(exact), mp.mpf(1)):
                problems.append(f"exact column {cells[3]} is not {mp.nstr(values[ref], 15)}")
            if right != shown:
                problems.append(f"correct rounding column {cells[4]} is not {right}")
            if rnd(v, p_places) == p_txt:
                problems.append("the printed figure IS the correct rounding (not an error)")
            note = "planted, key agrees"
        else:
            correct += 1
            right = rnd(v, p_places)
            if right != p_txt:
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            bad += 1
            note = "; ".join(problems).upper()
        print(f"  {printed:>10}  l.{line:<4} {ref:<28} {mp.nstr(values[ref], 15):<20} rounds to {right:<9} {note}")
    print(f"{planted} planted, {correct} correct rows")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad or planted != 8 or correct != 10 else 0


if __name__ == "__main__":
    sys.exit(main())
