#!/usr/bin/env python3
"""Independent mpmath computation (50 digits, no symgpt) behind KEY.md of zh-md-bigram-batch-sgd.

    python oracle.py        # every KEY.md row: its quantity's value, its rounding, and its place in DOC.md

Bigram on a mini-batch: for each example (input u, target t), x = E[u], z = x·W, p = softmax(z),
loss_i = -ln p[t], grad_z = p - y, grad_W_i = outer(x, p - y), grad_x_i = W·(p - y) (only E's
row u receives it). The batch loss is the mean of the three losses, the gradients are the means of
the per-example gradients, and SGD updates W and E together with θ ← θ - lr·mean_grad.
Names follow symgpt: `loss`, `p[v]`, `z[v]`, `grad_*` are the FIRST example's alone;
`sgd[k].loss` is the batch mean after k updates, `sgd[k].grad_*` the batch mean gradient there.
Rounding is half away from zero, on the 45-digit decimal of the value.
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
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    E = [[num(v) for v in r] for r in spec["weights"]["E"]]
    W = [[num(v) for v in r] for r in spec["weights"]["W"]]
    ex = [(spec["data"]["input"][0], spec["data"]["target"])]
    ex += [(e["input"][0], e["target"]) for e in spec["training"].get("examples", [])]
    ex = [(vocab.index(a), vocab.index(b)) for a, b in ex]
    return spec, vocab, E, W, ex, num(spec["training"]["lr"]), int(spec["training"]["steps"])


def forward(E, W, u, t):
    V, d = len(E), len(E[0])
    x = E[u][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    ez = [mp.exp(v) for v in z]
    S = mp.fsum(ez)
    p = [e / S for e in ez]
    gz = [p[j] - (1 if j == t else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    gE = [[gx[i] if v == u else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(x=x, z=z, exp=ez, sum_exp=S, p=p, loss=-mp.log(p[t]), grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def batch(E, W, ex):
    per = [forward(E, W, u, t) for u, t in ex]
    n = len(per)
    V, d = len(E), len(E[0])
    return dict(E=E, W=W, per=per, loss=mp.fsum(f["loss"] for f in per) / n,
                grad_W=[[mp.fsum(f["grad_W"][i][j] for f in per) / n for j in range(V)] for i in range(d)],
                grad_E=[[mp.fsum(f["grad_E"][v][i] for f in per) / n for i in range(d)] for v in range(V)])


def train(E, W, ex, lr, steps):
    states = [batch(E, W, ex)]
    for _ in range(steps):
        s = states[-1]
        W2 = [[s["W"][i][j] - lr * s["grad_W"][i][j] for j in range(len(W[0]))] for i in range(len(W))]
        E2 = [[s["E"][v][i] - lr * s["grad_E"][v][i] for i in range(len(E[0]))] for v in range(len(E))]
        states.append(batch(E2, W2, ex))
    return states


def values():
    spec, vocab, E, W, ex, lr, steps = load()
    st = train(E, W, ex, lr, steps)
    out = {}
    f = st[0]["per"][0]                      # the first example alone: symgpt's plain names
    for j, v in enumerate(vocab):
        out[f"z[{v}]"] = f["z"][j]
        out[f"exp(z[{v}])"] = f["exp"][j]
        out[f"p[{v}]"] = f["p"][j]
        out[f"grad_z[{v}]"] = f["grad_z"][j]
        for i in range(len(W)):
            out[f"grad_W[{i},{v}]"] = f["grad_W"][i][j]
        for i in range(len(E[0])):
            out[f"grad_E[{v},{i}]"] = f["grad_E"][j][i]
    for i in range(len(E[0])):
        out[f"grad_x[{i}]"] = f["grad_x"][i]
    out["sum_exp"] = f["sum_exp"]
    out["loss"] = f["loss"]
    for k, s in enumerate(st):
        out[f"sgd[{k}].loss"] = s["loss"]
        out[f"sgd[{k}].p[{vocab[ex[0][1]]}]"] = s["per"][0]["p"][ex[0][1]]
        for i in range(len(W)):
            for j, v in enumerate(vocab):
                out[f"sgd[{k}].W[{i},{v}]"] = s["W"][i][j]
                out[f"sgd[{k}].grad_W[{i},{v}]"] = s["grad_W"][i][j]
        for j, v in enumerate(vocab):
            for i in range(len(E[0])):
                out[f"sgd[{k}].E[{v},{i}]"] = s["E"][j][i]
                out[f"sgd[{k}].grad_E[{v},{i}]"] = s["grad_E"][j][i]
    return out, st, vocab, ex


def main() -> int:
    vals, _, _, _ = values()
    doc_lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if not (1 <= line <= len(doc_lines)) or printed not in doc_lines[line - 1]:
            problems.append(f"'{printed}' is not on line {line} of DOC.md")
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact value {mp.nstr(v, 15)}, key says {cells[3]}")
            if right == printed:
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees"
        else:
            correct += 1
            if right != printed:
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            note = "KEY DISAGREES: " + "; ".join(problems)
            bad += 1
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
