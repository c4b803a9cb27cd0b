#!/usr/bin/env python3
"""Independent oracle for DOC.tex (en-tex-bigram-batch2-sgd): plain mpmath at 50 digits, no symgpt.

    python oracle.py     # prints every KEY.md row's quantity with its exact value, checks the key's
                         # "exact value" / "correct rounding" columns, then audits every figure of DOC.tex

Model: bigram, vocab (the, dog, ran, to, park, fast), d = 2.  For an example (x, y):
h = C[x], s = h·W, q = softmax(s), l = -ln q[y], delta = q - onehot(y), dW = outer(h, delta),
dh = W·delta (only row x of C gets it).  The mini-batch is (dog -> ran), (the -> dog); the batch loss
and the gradients are the means over the two examples; SGD theta - 0.5 * mean gradient on W and C.
Names are symgpt's: the first example is unprefixed (z, p, loss, grad_W ...), the second is
example[1].NAME, the batch state after k steps is sgd[k].NAME (sgd[0].loss = batch loss at start,
sgd[k].grad_W = the batch's mean gradient at that state, sgd[k].p = the first example's p).
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["the", "dog", "ran", "to", "park", "fast"]
BATCH = [(1, 2), (0, 1)]          # (input id, target id): dog -> ran, the -> dog
LR = mp.mpf("0.5")
STEPS = 2


def mat(rows):
    return [[mp.mpf(str(x)) for x in r] for r in rows]


C0 = mat([[0.3, -0.2], [0.5, 0.4], [-0.1, 0.6], [0.2, 0.1], [-0.4, 0.3], [0.1, -0.5]])
W0 = mat([[0.2, -0.1, 0.4, 0.3, -0.2, 0.1], [-0.3, 0.5, 0.1, -0.2, 0.4, 0.2]])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def example(C, W, x, y):
    V, d = len(VOCAB), len(C[0])
    h = list(C[x])
    s = [mp.fsum(h[i] * W[i][j] for i in range(d)) for j in range(V)]
    e = [mp.exp(v) for v in s]
    Z = mp.fsum(e)
    q = [v / Z for v in e]
    delta = [q[j] - (1 if j == y else 0) for j in range(V)]
    dW = [[h[i] * delta[j] for j in range(V)] for i in range(d)]
    dh = [mp.fsum(W[i][j] * delta[j] for j in range(V)) for i in range(d)]
    dC = [[dh[i] if v == x else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(x=h, z=s, e=e, sum_exp=Z, p=q, loss=-mp.log(q[y]), grad_z=delta, grad_W=dW, grad_x=dh, grad_E=dC)


def batch_state(C, W):
    exs = [example(C, W, x, y) for x, y in BATCH]
    B = len(exs)
    loss = mp.fsum(e["loss"] for e in exs) / B
    gW = [[mp.fsum(e["grad_W"][i][j] for e in exs) / B for j in range(len(W[0]))] for i in range(len(W))]
    gC = [[mp.fsum(e["grad_E"][v][i] for e in exs) / B for i in range(len(C[0]))] for v in range(len(C))]
    return dict(C=C, W=W, exs=exs, loss=loss, grad_W=gW, grad_E=gC)


def values() -> dict:
    out = {}
    states = [batch_state(C0, W0)]
    for _ in range(STEPS):
        s = states[-1]
        W = [[s["W"][i][j] - LR * s["grad_W"][i][j] for j in range(6)] for i in range(2)]
        C = [[s["C"][v][i] - LR * s["grad_E"][v][i] for i in range(2)] for v in range(6)]
        states.append(batch_state(C, W))
    s0 = states[0]
    # per-example quantities at the initial weights
    for b, ex in enumerate(s0["exs"]):
        for pre in ([f"example[{b}]."] + ([""] if b == 0 else [])):
            out[f"{pre}sum_exp"] = ex["sum_exp"]
            out[f"{pre}loss"] = ex["loss"]
            for j, w in enumerate(VOCAB):
                out[f"{pre}z[{w}]"] = ex["z"][j]
                out[f"exp({pre}z[{w}])"] = ex["e"][j]
                out[f"{pre}p[{w}]"] = ex["p"][j]
                out[f"{pre}grad_z[{w}]"] = ex["grad_z"][j]
                for i in range(2):
                    out[f"{pre}grad_W[{i},{w}]"] = ex["grad_W"][i][j]
                    out[f"{pre}grad_E[{w},{i}]"] = ex["grad_E"][j][i]
            for i in range(2):
                out[f"{pre}x[{i}]"] = ex["x"][i]
                out[f"{pre}grad_x[{i}]"] = ex["grad_x"][i]
    # the batch states
    for k, st in enumerate(states):
        out[f"sgd[{k}].loss"] = st["loss"]
        out[f"sgd[{k}].p[ran]"] = st["exs"][0]["p"][2]
        for j, w in enumerate(VOCAB):
            for i in range(2):
                out[f"sgd[{k}].W[{i},{w}]"] = st["W"][i][j]
                out[f"sgd[{k}].E[{w},{i}]"] = st["C"][j][i]
                out[f"sgd[{k}].grad_W[{i},{w}]"] = st["grad_W"][i][j]
                out[f"sgd[{k}].grad_E[{w},{i}]"] = st["grad_E"][j][i]
    for j, w in enumerate(VOCAB):
        for i in range(2):
            out[f"W[{i},{w}]"] = W0[i][j]
            out[f"E[{w},{i}]"] = C0[j][i]
    # arithmetic the document prints in prose
    out["sgd[0].loss - sgd[2].loss"] = states[0]["loss"] - states[2]["loss"]
    return out


def check_key(vals) -> int:
    bad = 0
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    doc = (HERE / "DOC.tex").read_text(encoding="utf-8").splitlines()
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if printed not in doc[line - 1]:
            print(f"  {printed:>10}  NOT ON LINE {line} of DOC.tex")
            bad += 1
        v = vals[ref]
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.split(".")[1]) if "." in shown else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    return bad


def audit_doc(vals, planted) -> int:
    """Every decimal figure of DOC.tex's body must be the correct rounding of some oracle quantity
    (or of an arithmetic result the line prints), unless the key plants it."""
    lines = (HERE / "DOC.tex").read_text(encoding="utf-8").splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("\\begin{document}"))
    pool = list(vals.values())
    bad = n = 0
    for no, line in enumerate(lines, 1):
        if no <= start or line.lstrip().startswith("%"):
            continue
        for m in re.finditer(r"(?<![\w.])-?\d+\.\d+", line):
            t = m.group(0)
            n += 1
            if (no, t) in planted:
                continue
            places = len(t.split(".")[1])
            if not any(rnd(v, places) == t for v in pool):
                print(f"  AUDIT: line {no}: {t} is the rounding of no oracle quantity")
                bad += 1
    print(f"  audited {n} decimal figures of DOC.tex, {len(planted)} of them planted")
    return bad


def main() -> int:
    vals = values()
    print("en-tex-bigram-batch2-sgd:")
    bad = check_key(vals)
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted = set()
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        if len(cells) == 7:
            planted.add((int(cells[1]), cells[0].strip("`")))
    bad += audit_doc(vals, planted)
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0, f"{bad} problems"
    return 0


if __name__ == "__main__":
    sys.exit(main())
