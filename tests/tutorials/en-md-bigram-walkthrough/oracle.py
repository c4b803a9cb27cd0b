#!/usr/bin/env python3
"""Independent oracle for en-md-bigram-walkthrough: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py           # check every KEY.md row against the exact values and DOC.md
    python3 oracle.py --dump    # print the values the tutorial uses

Model (read from SPEC.toml): a bigram. x = E[input], z = x·W, p = softmax(z), loss = −ln p[target],
grad_z = p − y, grad_W = outer(x, grad_z), grad_x = W·grad_z (only E's input row gets it).
SGD: θ ← θ − lr·g on W and E together, training.steps times. Gradient check: central difference
(L(θ+h) − L(θ−h)) / (2h). Rounding is half away from zero, on a 45-digit decimal of the value.
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


def rnd_sci(v, sig: int) -> str:
    """v rounded to `sig` significant digits, as mantissa and exponent ("1.7e-9")."""
    if v == 0:
        return "0"
    e = int(mp.floor(mp.log10(abs(v))))
    m = v / mp.mpf(10) ** e
    r = rnd(m, sig - 1)
    if abs(Decimal(r)) >= 10:
        e += 1
        r = rnd(v / mp.mpf(10) ** e, sig - 1)
    return f"{r}e{e}"


SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
E0 = [[num(v) for v in row] for row in SPEC["weights"]["E"]]
W0 = [[num(v) for v in row] for row in SPEC["weights"]["W"]]
TOK = VOCAB.index(SPEC["data"]["input"][0])
TGT = VOCAB.index(SPEC["data"]["target"])
LR = num(SPEC["training"]["lr"])
STEPS = SPEC["training"]["steps"]
GC_H = num(SPEC["training"]["gradcheck"]["h"])
V, D = len(VOCAB), len(E0[0])


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ez = [mp.exp(v) for v in z]
    S = mp.fsum(ez)
    p = [e / S for e in ez]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(E=E, W=W, x=x, z=z, exp_z=ez, sum_exp=S, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW,
                grad_x=gx)


def step(s):
    W = [[s["W"][i][j] - LR * s["grad_W"][i][j] for j in range(V)] for i in range(D)]
    E = [row[:] for row in s["E"]]
    E[TOK] = [E[TOK][i] - LR * s["grad_x"][i] for i in range(D)]
    return forward(E, W)


def loss_with(E, W, which, i, j, delta):
    E = [r[:] for r in E]
    W = [r[:] for r in W]
    (W if which == "W" else E)[i][j] += delta
    return forward(E, W)["loss"]


def compute():
    states = [forward(E0, W0)]
    for _ in range(STEPS):
        states.append(step(states[-1]))
    s = states[0]
    val = {}
    tn = lambda j: VOCAB[j]
    for k, st in enumerate(states):
        pre = "" if k == 0 else f"sgd[{k}]."
        for q in ("loss", "sum_exp"):
            val[pre + q] = st[q]
        for j in range(V):
            val[f"{pre}z[{tn(j)}]"] = st["z"][j]
            val[f"{pre}exp(z[{tn(j)}])"] = st["exp_z"][j]
            val[f"{pre}p[{tn(j)}]"] = st["p"][j]
            val[f"{pre}grad_z[{tn(j)}]"] = st["grad_z"][j]
        for i in range(D):
            val[f"{pre}x[{i}]"] = st["x"][i]
            val[f"{pre}grad_x[{i}]"] = st["grad_x"][i]
            val[f"{pre}grad_E[{tn(TOK)},{i}]"] = st["grad_x"][i]
            val[f"{pre}E[{tn(TOK)},{i}]"] = st["E"][TOK][i]
            for j in range(V):
                val[f"{pre}W[{i},{tn(j)}]"] = st["W"][i][j]
                val[f"{pre}grad_W[{i},{tn(j)}]"] = st["grad_W"][i][j]
    for k in range(STEPS + 1):
        val[f"sgd[{k}].loss"] = states[k]["loss"]
        val[f"sgd[{k}].p[{tn(TGT)}]"] = states[k]["p"][TGT]
        val[f"sgd[{k}].W[1,{tn(TGT)}]"] = states[k]["W"][1][TGT]
    # gradient check, the spec's two parameters
    for prm in SPEC["training"]["gradcheck"]["params"]:
        m = re.fullmatch(r"(W|E)\[(\w+),(\w+)\]", prm)
        which, a, b = m.group(1), m.group(2), m.group(3)
        i = VOCAB.index(a) if which == "E" and not a.isdigit() else int(a)
        j = VOCAB.index(b) if which == "W" and not b.isdigit() else int(b)
        name = f"{which}[{tn(i) if which == 'E' else i},{tn(j) if which == 'W' else j}]"
        lp = loss_with(E0, W0, which, i, j, GC_H)
        lm = loss_with(E0, W0, which, i, j, -GC_H)
        fd = (lp - lm) / (2 * GC_H)
        an = s["grad_W"][i][j] if which == "W" else (s["grad_x"][j] if i == TOK else mp.mpf(0))
        val[f"loss_at({name}, 0.0001)"] = lp
        val[f"loss_at({name}, -0.0001)"] = lm
        val[f"gradcheck({name}, 0.0001)"] = fd
        val[f"gradcheck({name}, 0.0001) - grad_{name}"] = fd - an
    val[f"(loss - sgd[{STEPS}].loss) / loss"] = (states[0]["loss"] - states[STEPS]["loss"]) / states[0]["loss"]
    val[f"1 - sgd[{STEPS}].loss / loss"] = 1 - states[STEPS]["loss"] / states[0]["loss"]
    return states, val


def check_key(val) -> int:
    doc = next(HERE.glob("DOC.*"))
    lines = doc.read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in val), None)
        problems = []
        if not (1 <= line <= len(lines)) or printed not in lines[line - 1]:
            problems.append(f"'{printed}' not on line {line} of {doc.name}")
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = val[ref] * (100 if pct else 1)
        is_planted = len(cells) == 7
        shown = (cells[4] if is_planted else cells[0]).strip("`")
        body = shown.rstrip("%").replace("−", "-")
        if "e" in body:                                   # scientific: significant digits of the mantissa
            sig = len(body.split("e")[0].replace("-", "").replace(".", ""))
            right = rnd_sci(v, sig)
        else:
            places = len(body.split(".")[1]) if "." in body else 0
            right = rnd(v, places) + ("%" if pct else "")
            if shown.startswith("−"):
                right = right.replace("-", "−")
        if is_planted:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            if right != shown:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact value {mp.nstr(v, 15)}, key says {cells[3]}")
            if printed.replace("−", "-") == right.replace("−", "-"):
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees"
        else:
            correct += 1
            if right.replace("−", "-") != printed.replace("−", "-"):
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            note = "KEY DISAGREES: " + "; ".join(problems)
            bad += 1
        print(f"  {printed:>12}  line {line:>3}  {ref:<40} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle and the document" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


def main() -> int:
    states, val = compute()
    if "--dump" in sys.argv:
        for k, v in val.items():
            print(f"{k:<45} {mp.nstr(v, 20)}")
        return 0
    return check_key(val)


if __name__ == "__main__":
    sys.exit(main())
