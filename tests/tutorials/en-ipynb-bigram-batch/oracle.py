#!/usr/bin/env python3
"""Independent mpmath oracle for en-ipynb-bigram-batch (no symgpt).

    python oracle.py     # every KEY.md row, every printed tensor / print() output of DOC.ipynb,
                         # and the hand-written figures of the Markdown cells

Model (read from SPEC.toml): bigram, x = E[token], z = x·W, p = softmax(z), per-example loss
-ln p[target]; the mini-batch is [data] plus training.examples (three pairs), the batch loss is the
mean of the three cross-entropies and W.grad, E.grad are the batch means of
x_iᵀ(p_i − y_i) and W(p_i − y_i) (added into E's row of input i). SGD θ ← θ − lr·grad on W and E
together, training.steps times. State k (symgpt's sgd[k]) is the model after k updates;
sgd[k].p[v] and the unprefixed names (x, z, p, loss, grad_z, …) are the [data] example's.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
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
BATCH = [(ID[SPEC["data"]["input"][0]], ID[SPEC["data"]["target"]])] + [
    (ID[e["input"][0]], ID[e["target"]]) for e in SPEC["training"]["examples"]]
B = len(BATCH)


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def near_tie(v, n: int) -> bool:
    """True when v is within 1e-9 of a rounding tie at n decimals (Python's float format could differ)."""
    s = v * mp.mpf(10) ** n
    return abs(abs(s - mp.floor(s)) - mp.mpf("0.5")) < mp.mpf("1e-9") * mp.mpf(10) ** n


# ---------------------------------------------------------------- the model

def forward(E, W):
    rows = []
    for tok, tgt in BATCH:
        x = E[tok][:]
        z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
        ez = [mp.exp(v) for v in z]
        s = mp.fsum(ez)
        p = [e / s for e in ez]
        dl = [p[j] - (1 if j == tgt else 0) for j in range(V)]
        dx = [mp.fsum(W[i][j] * dl[j] for j in range(V)) for i in range(D)]
        rows.append(dict(tok=tok, tgt=tgt, x=x, z=z, exp=ez, sum_exp=s, p=p, loss=-mp.log(p[tgt]), dl=dl, dx=dx))
    loss = mp.fsum(r["loss"] for r in rows) / B
    gW = [[mp.fsum(r["x"][i] * r["dl"][j] for r in rows) / B for j in range(V)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(V)]
    for r in rows:
        gE[r["tok"]] = [gE[r["tok"]][i] + r["dx"][i] / B for i in range(D)]
    return dict(E=E, W=W, rows=rows, loss=loss, gW=gW, gE=gE)


def trace():
    E, W = M(SPEC["weights"]["E"]), M(SPEC["weights"]["W"])
    states = [forward(E, W)]
    for _ in range(STEPS):
        s = states[-1]
        W = [[s["W"][i][j] - LR * s["gW"][i][j] for j in range(V)] for i in range(D)]
        E = [[s["E"][v][i] - LR * s["gE"][v][i] for i in range(D)] for v in range(V)]
        states.append(forward(E, W))
    return states


ST = trace()


def values() -> dict:
    """Every quantity the key names, under symgpt's reference names."""
    r = ST[0]["rows"][0]
    out = {"loss": r["loss"], "sum_exp": r["sum_exp"]}
    for v, w in enumerate(VOCAB):
        out[f"z[{w}]"], out[f"p[{w}]"], out[f"grad_z[{w}]"] = r["z"][v], r["p"][v], r["dl"][v]
        out[f"exp(z[{w}])"] = r["exp"][v]
    for j in range(D):
        out[f"x[{j}]"], out[f"grad_x[{j}]"] = r["x"][j], r["dx"][j]
    for k, st in enumerate(ST):
        out[f"sgd[{k}].loss"] = st["loss"]
        for v, w in enumerate(VOCAB):
            out[f"sgd[{k}].p[{w}]"] = st["rows"][0]["p"][v]
            for i in range(D):
                out[f"sgd[{k}].W[{i},{w}]"] = st["W"][i][v]
                out[f"sgd[{k}].E[{w},{i}]"] = st["E"][v][i]
                out[f"sgd[{k}].grad_W[{i},{w}]"] = st["gW"][i][v]
                out[f"sgd[{k}].grad_E[{w},{i}]"] = st["gE"][v][i]
    return out


# ---------------------------------------------------------------- PyTorch's printing (precision=4)

def _fmt(vals, n=4):
    """torch._tensor_str._Formatter for a float tensor: fixed point, common width."""
    nz = [v for v in vals if v != 0]
    assert nz and max(abs(v) for v in nz) / min(abs(v) for v in nz) <= 1000 and min(abs(v) for v in nz) >= 1e-4, \
        "PyTorch would switch to scientific notation"
    for v in vals:
        assert not near_tie(v, n), f"near tie: {v}"
    strs = [rnd(v, n) if v != 0 else f"{0:.{n}f}" for v in vals]
    width = max(len(rnd(v, n)) for v in nz)
    return [" " * (width - len(t)) + t for t in strs]


def tensor_lines(t, suffix: str = "") -> list[str]:
    two_d = isinstance(t[0], list)
    rows = t if two_d else [t]
    cells = _fmt([v for r in rows for v in r])
    n = len(rows[0])
    body = [", ".join(cells[i * n:(i + 1) * n]) for i in range(len(rows))]
    tail = f", {suffix})" if suffix else ")"
    if not two_d:
        return [f"tensor([{body[0]}]{tail}"]
    return [("tensor([[" if i == 0 else "        [") + b + ("]]" + tail if i == len(body) - 1 else "],")
            for i, b in enumerate(body)]


def outputs() -> list[str]:
    """The output lines of DOC.ipynb's code cells, computed here."""
    s0, rows = ST[0], ST[0]["rows"]
    out = tensor_lines([r["x"] for r in rows], "grad_fn=<IndexBackward0>")
    out += tensor_lines([r["z"] for r in rows], "grad_fn=<MmBackward0>")
    out += tensor_lines([r["p"] for r in rows], "grad_fn=<SoftmaxBackward0>")
    out += tensor_lines([r["loss"] for r in rows], "grad_fn=<NllLossBackward0>")
    out += [f"loss = {rnd(s0['loss'], 4)}"]
    out += tensor_lines([r["dl"] for r in rows])
    out += tensor_lines(s0["gW"])
    out += tensor_lines(s0["gE"])
    out += tensor_lines(ST[1]["W"])
    out += tensor_lines(ST[1]["E"][:3])
    out += [f"after step {k}: loss = {rnd(ST[k]['loss'], 4)}" for k in range(1, STEPS + 1)]
    out += tensor_lines(ST[3]["W"][0])
    out += tensor_lines(ST[3]["E"][ID["dog"]])
    return out


# ---------------------------------------------------------------- figures written by hand in the Markdown cells

def hand_figures() -> list[tuple[str, object]]:
    """(printed, exact value) of the Markdown cells' model figures that are not planted errors."""
    v, r0, _r1, r2 = values(), *ST[0]["rows"]
    f = [(rnd(v["z[dog]"], 2), v["z[dog]"]), (rnd(r2["z"][ID["at"]], 2), r2["z"][ID["at"]])]
    f += [(rnd(e, 4), e) for e in r0["exp"]]
    f += [(rnd(v["sum_exp"], 4), v["sum_exp"]), (rnd(v["p[dog]"], 4), v["p[dog]"])]
    f += [(rnd(r["loss"], 4), r["loss"]) for r in ST[0]["rows"]]
    f += [(rnd(ST[0]["loss"], 4), ST[0]["loss"])]
    f += [(rnd(r["dl"][r["tgt"]], 4), r["dl"][r["tgt"]]) for r in ST[0]["rows"]]
    f += [(rnd(r["p"][r["tgt"]], 4), r["p"][r["tgt"]]) for r in ST[0]["rows"]]
    f += [(rnd(v["sgd[0].grad_W[2,dog]"], 4), v["sgd[0].grad_W[2,dog]"]),
          (rnd(v["sgd[0].grad_E[the,0]"], 4), v["sgd[0].grad_E[the,0]"]),
          (rnd(v["sgd[0].grad_E[dog,0]"], 4), v["sgd[0].grad_E[dog,0]"]),
          (rnd(v["sgd[1].W[2,dog]"], 4), v["sgd[1].W[2,dog]"]),
          (rnd(v["sgd[1].E[the,2]"], 4), v["sgd[1].E[the,2]"])]
    for k in range(STEPS + 1):
        f += [(rnd(v[f"sgd[{k}].p[dog]"], 4), v[f"sgd[{k}].p[dog]"]),
              (rnd(v[f"sgd[{k}].W[0,dog]"], 4), v[f"sgd[{k}].W[0,dog]"]),
              (rnd(v[f"sgd[{k}].E[dog,2]"], 4), v[f"sgd[{k}].E[dog,2]"])]
        if k != 2:
            f += [(rnd(v[f"sgd[{k}].loss"], 4), v[f"sgd[{k}].loss"])]
    f += [(rnd(100 * v["sgd[0].p[dog]"], 1) + "%", None), (rnd(100 * v["sgd[3].p[dog]"], 1) + "%", None)]
    return f


# ---------------------------------------------------------------- checks

def key_rows():
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    return [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]


def main() -> int:
    vals = values()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8")
    lines = doc.replace("\u2212", "-").split("\n")          # the Markdown cells write minus as U+2212
    json.loads(doc)
    bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print("  FAIL:", msg)

    print("key rows:")
    planted = {}
    for cells in key_rows():
        printed, line = cells[0].strip("`").replace("\u2212", "-"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            fail(f"{printed}: no oracle value for {cells[-1]}")
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if near_tie(v, places):
            fail(f"{printed}: {ref} is within 1e-9 of a rounding tie")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted[(line, printed)] = right
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        if not ok if len(cells) == 7 else right != printed:
            fail(f"{printed} {ref}: {note}")
        on_line = 1 <= line <= len(lines) and re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", lines[line - 1])
        if not on_line:
            fail(f"{printed} is not on line {line} of DOC.ipynb")
        print(f"  {printed:>9}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    n_planted = len(planted)
    if n_planted != 8:
        fail(f"{n_planted} planted rows, expected 8")

    print("code-cell outputs:")
    want = outputs()
    for w in want:
        hits = [i for i, l in enumerate(lines) if w in l]
        if hits:
            continue
        # a line carrying a planted figure: it must differ from the computed line only there
        alt = [(i + 1, l) for i, l in enumerate(lines) for (pl, pr), right in planted.items()
               if i + 1 == pl for at in [m.start() for m in re.finditer(re.escape(pr), l)]
               if w in l[:at] + right + l[at + len(pr):]]
        if len(alt) == 1:
            print(f"  line {alt[0][0]}: planted figure in  {w}")
        else:
            fail(f"output line not found: {w}")
    print(f"  {len(want)} output lines checked")

    print("hand-written figures:")
    md = "\n".join(lines)
    for printed, v in hand_figures():
        if not re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", md):
            fail(f"hand figure {printed} not in DOC")
        if v is not None and near_tie(v, len(printed.split(".")[1])):
            fail(f"hand figure {printed} near a tie")
    print(f"  {len(hand_figures())} figures found")

    nlines = len(doc.rstrip("\n").split("\n"))
    if not 150 <= nlines <= 300:
        fail(f"DOC.ipynb has {nlines} lines")
    print(f"DOC.ipynb: {nlines} lines, {n_planted} planted errors")
    print("all key rows agree with the oracle" if not bad else f"{bad} checks failed")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
