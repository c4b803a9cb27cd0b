#!/usr/bin/env python3
"""Independent oracle for en-ipynb-bigram-batch3-adamw: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # prints every KEY.md row's quantity with its exact value and asserts that
                          # the key's "exact value" / "correct rounding" columns agree with it

Model: bigram, vocab dogs chase cats eat fish, d = 3.  For an example (a -> b):
x = E[a], z = x.W, p = softmax(z), loss = -ln p[b], p - y, outer(x, p - y), W.(p - y).
The mini-batch is (dogs -> chase), (chase -> cats), (cats -> eat); its loss is the mean of the three
losses and every gradient the mean of the three (E's rows collect W.(p - y) of the examples that read
them).  AdamW as torch.optim.AdamW: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
mhat = m / (1 - b1^t), vhat = v / (1 - b2^t), theta <- theta - lr wd theta - lr mhat / (sqrt(vhat) + eps),
decoupled decay on every parameter (W and E), lr 0.01, betas 0.9 / 0.999, eps 1e-8, wd 0.01.

Names follow symgpt's (`z[chase]`, `p[eat]`, `loss` for the first example; `sgd[0].loss`,
`sgd[0].grad_W[0,cats]`, `sgd[0].grad_E[cats,1]` for the batch's; `adamw[k].m[W,0,chase]`,
`adamw[k].mhat[...]`, `adamw[k].W[...]`, `adamw[k].loss`, `adamw[k].p[chase]` after k AdamW updates).
Other keys (`ex2.loss`, `ex3.p[fish]`, `exp(z[dogs])`) name the per-example figures symgpt has no name
for.  Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["dogs", "chase", "cats", "eat", "fish"]
V, D = 5, 3
BATCH = [(0, 1), (1, 2), (2, 3)]          # (input id, target id)


def M(rows):
    return [[mp.mpf(str(c)) for c in r] for r in rows]


E0 = M([[0.25, -0.4, 0.1], [-0.3, 0.15, 0.45], [0.6, 0.05, -0.2], [-0.1, 0.35, -0.25], [0.2, -0.15, 0.3]])
W0 = M([[0.12, -0.35, 0.4, 0.05, -0.2], [-0.25, 0.3, 0.1, -0.45, 0.22], [0.33, 0.08, -0.15, 0.2, -0.06]])
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def example(E, W, tok, tgt):
    x = E[tok][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(c) for c in z)
    p = [mp.exp(c) / S for c in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx)


def batch(E, W):
    exs = [example(E, W, a, b) for a, b in BATCH]
    n = len(BATCH)
    gW = [[mp.fsum(e["grad_W"][i][j] for e in exs) / n for j in range(V)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(V)]
    for (a, _), e in zip(BATCH, exs):
        for i in range(D):
            gE[a][i] += e["grad_x"][i] / n
    return exs, mp.fsum(e["loss"] for e in exs) / n, gW, gE


def adamw(E, W, steps):
    """States after 0..steps updates: params, batch loss/grads there, and the moments of each update."""
    P = {"W": [r[:] for r in W], "E": [r[:] for r in E]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    states, moments = [], {}
    for t in range(steps + 1):
        exs, L, gW, gE = batch(P["E"], P["W"])
        st = dict(W=[r[:] for r in P["W"]], E=[r[:] for r in P["E"]], exs=exs, loss=L, grad_W=gW, grad_E=gE)
        if t:
            st.update(moments)
        states.append(st)
        if t == steps:
            break
        t1 = t + 1
        moments = {"m": {}, "v": {}, "mhat": {}, "vhat": {}, "update": {}, "decay": {}}
        newP = {}
        for k, G in (("W", gW), ("E", gE)):
            rows = []
            for i in range(len(P[k])):
                row = []
                for j in range(len(P[k][0])):
                    g, th = G[i][j], P[k][i][j]
                    m[k][i][j] = B1 * m[k][i][j] + (1 - B1) * g
                    v[k][i][j] = B2 * v[k][i][j] + (1 - B2) * g * g
                    mh = m[k][i][j] / (1 - B1 ** t1)
                    vh = v[k][i][j] / (1 - B2 ** t1)
                    up = LR * mh / (mp.sqrt(vh) + EPS)
                    dec = LR * WD * th
                    for name, val in (("m", m[k][i][j]), ("v", v[k][i][j]), ("mhat", mh), ("vhat", vh),
                                      ("update", up), ("decay", dec)):
                        moments[name][(k, i, j)] = val
                    row.append(th - dec - up)
                rows.append(row)
            newP[k] = rows
        P = newP
    return states


def tok(j, axis):
    """Index name as symgpt prints it: tokens on the vocabulary axis, numbers on the d axis."""
    return VOCAB[j] if axis == "v" else str(j)


def values() -> dict:
    out = {}
    states = adamw(E0, W0, 2)
    s0 = states[0]
    e1, e2, e3 = s0["exs"]
    # first example, symgpt's unprefixed names
    for j in range(V):
        out[f"z[{VOCAB[j]}]"] = e1["z"][j]
        out[f"exp(z[{VOCAB[j]}])"] = mp.exp(e1["z"][j])
        out[f"p[{VOCAB[j]}]"] = e1["p"][j]
        out[f"grad_z[{VOCAB[j]}]"] = e1["grad_z"][j]
    out["sum_exp"] = e1["sum_exp"]
    out["loss"] = e1["loss"]
    for i in range(D):
        out[f"x[{i}]"] = e1["x"][i]
        out[f"grad_x[{i}]"] = e1["grad_x"][i]
        for j in range(V):
            out[f"grad_W[{i},{VOCAB[j]}]"] = e1["grad_W"][i][j]
    # the other two examples (no symgpt name)
    for n, e in ((2, e2), (3, e3)):
        out[f"ex{n}.loss"] = e["loss"]
        for j in range(V):
            out[f"ex{n}.z[{VOCAB[j]}]"] = e["z"][j]
            out[f"ex{n}.p[{VOCAB[j]}]"] = e["p"][j]
            out[f"ex{n}.grad_z[{VOCAB[j]}]"] = e["grad_z"][j]
    # training states
    for k, st in enumerate(states):
        for pre in (["sgd[0].", "adamw[0]."] if k == 0 else [f"adamw[{k}]."]):
            out[pre + "loss"] = st["loss"]
            f = st["exs"][0]
            for j in range(V):
                out[pre + f"p[{VOCAB[j]}]"] = f["p"][j]
            for i in range(D):
                for j in range(V):
                    out[pre + f"W[{i},{VOCAB[j]}]"] = st["W"][i][j]
                    out[pre + f"grad_W[{i},{VOCAB[j]}]"] = st["grad_W"][i][j]
            for a in range(V):
                for i in range(D):
                    out[pre + f"E[{VOCAB[a]},{i}]"] = st["E"][a][i]
                    out[pre + f"grad_E[{VOCAB[a]},{i}]"] = st["grad_E"][a][i]
        if k:
            for name in ("m", "v", "mhat", "vhat", "update", "decay"):
                for (P, i, j), val in st[name].items():
                    idx = f"{i},{VOCAB[j]}" if P == "W" else f"{VOCAB[i]},{j}"
                    out[f"adamw[{k}].{name}[{P},{idx}]"] = val
    return out


def main() -> int:
    vals = values()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        body = shown.rstrip("%")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if planted:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>12}  {ref:<30} {mp.nstr(v, 20):<26} rounds to {right:<12} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert not bad, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
