#!/usr/bin/env python3
"""Independent mpmath computation (50 digits, no symgpt) of every figure of DOC.ipynb, and a check of KEY.md.

    python3 oracle.py       # every KEY.md row: its quantity's value, the correct rounding, and the line check

Model (read from SPEC.toml): bigram, x = E[gato], z = x·W, p = softmax(z), loss = -ln p[bebe];
grad_z = p - y, grad_W = outer(x, p - y), grad_x = W·(p - y) (only E's row gato gets it);
gradient check: central difference (L(θ+h) - L(θ-h)) / 2h with the spec's h;
AdamW as torch.optim.AdamW: θ ← θ(1 - ηλ); m = β1 m + (1-β1) g; v = β2 v + (1-β2) g²;
m̂ = m / (1-β1^t); v̂ = v / (1-β2^t); θ ← θ - η m̂ / (√v̂ + ε), on W and E, two steps.
Rounding is half away from zero, on a 45-digit decimal of the value.
"""
from __future__ import annotations

import json
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
    """v rounded half away from zero to n decimals."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sig(v, sig: int) -> str:
    """v in Python's '.{sig-1}e' layout, the mantissa rounded half away from zero."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    if d == 0:
        return f"{0:.{sig - 1}e}"
    e = d.adjusted()
    m = (d.scaleb(-e)).quantize(Decimal(1).scaleb(-(sig - 1)), rounding=ROUND_HALF_UP)
    if abs(m) >= 10:
        e += 1
        m = (d.scaleb(-e)).quantize(Decimal(1).scaleb(-(sig - 1)), rounding=ROUND_HALF_UP)
    return f"{m:.{sig - 1}f}e{'-' if e < 0 else '+'}{abs(e):02d}"


# ---------------------------------------------------------------- the model

SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
TOK = VOCAB.index(SPEC["data"]["input"][0])
TGT = VOCAB.index(SPEC["data"]["target"])
E0 = [[num(v) for v in r] for r in SPEC["weights"]["E"]]
W0 = [[num(v) for v in r] for r in SPEC["weights"]["W"]]
D, V = len(W0), len(W0[0])
AW = {k: num(v) for k, v in SPEC["training"]["adamw"].items()}
GC = SPEC["training"]["gradcheck"]
H = num(GC["h"])


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ez = [mp.exp(v) for v in z]
    s = mp.fsum(ez)
    p = [e / s for e in ez]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    gE = [[gx[i] if r == TOK else mp.mpf(0) for i in range(D)] for r in range(len(E))]
    return dict(E=E, W=W, x=x, z=z, exp_z=ez, sum_exp=s, p=p, loss=-mp.log(p[TGT]),
                grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def param_ref(ref):
    """'W[1,2]' -> ('W', 1, 2), a token allowed for the vocabulary index."""
    name, i, j = re.fullmatch(r"(\w+)\[(\w+),(\w+)\]", ref).groups()
    idx = lambda a: int(a) if a.isdigit() else VOCAB.index(a)
    return name, idx(i), idx(j)


def loss_at(name, i, j, delta):
    E = [r[:] for r in E0]
    W = [r[:] for r in W0]
    (E if name == "E" else W)[i][j] += delta
    return forward(E, W)["loss"]


def gradcheck(name, i, j, h):
    return (loss_at(name, i, j, h) - loss_at(name, i, j, -h)) / (2 * h)


def adamw(steps):
    """AdamW states 0..steps: params, grads and, for t >= 1, m, v, mhat, vhat, update, decay."""
    lr, b1, b2, eps, wd = AW["lr"], AW["beta1"], AW["beta2"], AW["eps"], AW["weight_decay"]
    P = {"E": [r[:] for r in E0], "W": [r[:] for r in W0]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    states = [dict(fwd=forward(P["E"], P["W"]))]
    for t in range(1, steps + 1):
        f = states[-1]["fwd"]
        G = {"E": f["grad_E"], "W": f["grad_W"]}
        st = {key: {} for key in ("m", "v", "mhat", "vhat", "update", "decay", "g")}
        newP = {}
        for k in ("W", "E"):
            rows = []
            for i in range(len(P[k])):
                row = []
                for j in range(len(P[k][0])):
                    g, th = G[k][i][j], P[k][i][j]
                    m[k][i][j] = b1 * m[k][i][j] + (1 - b1) * g
                    v[k][i][j] = b2 * v[k][i][j] + (1 - b2) * g * g
                    mh = m[k][i][j] / (1 - b1 ** t)
                    vh = v[k][i][j] / (1 - b2 ** t)
                    upd = lr * mh / (mp.sqrt(vh) + eps)
                    for key, val in (("m", m[k][i][j]), ("v", v[k][i][j]), ("mhat", mh), ("vhat", vh),
                                     ("update", upd), ("decay", lr * wd * th), ("g", g)):
                        st[key][(k, i, j)] = val
                    row.append(th * (1 - lr * wd) - upd)
                rows.append(row)
            newP[k] = rows
        P = newP
        st["fwd"] = forward(P["E"], P["W"])
        states.append(st)
    return states


# ---------------------------------------------------------------- every quantity, by symgpt's names

def values():
    out = {}
    tokname = lambda j: VOCAB[j]
    f = forward(E0, W0)
    for j in range(V):
        for key in ("z", "p", "grad_z"):
            out[f"{key}[{tokname(j)}]"] = f[key][j]
        out[f"exp(z[{tokname(j)}])"] = f["exp_z"][j]
    for key in ("sum_exp", "loss"):
        out[key] = f[key]
    for i in range(D):
        out[f"x[{i}]"] = f["x"][i]
        out[f"grad_x[{i}]"] = f["grad_x"][i]
        out[f"grad_E[{tokname(TOK)},{i}]"] = f["grad_E"][TOK][i]
        for j in range(V):
            out[f"grad_W[{i},{tokname(j)}]"] = f["grad_W"][i][j]
            out[f"W[{i},{tokname(j)}]"] = W0[i][j]
    for ref in GC["params"]:
        name, i, j = param_ref(ref)
        r = f"{name}[{i},{tokname(j)}]" if name == "W" else f"{name}[{tokname(i)},{j}]"
        g = gradcheck(name, i, j, H)
        a = (f["grad_W"] if name == "W" else f["grad_E"])[i][j]
        hs = mp.nstr(H, 5)
        out[f"gradcheck({r}, {hs})"] = g
        out[f"loss_at({r}, {hs})"] = loss_at(name, i, j, H)
        out[f"loss_at({r}, -{hs})"] = loss_at(name, i, j, -H)
        out[f"abs(gradcheck({r}, {hs}) - grad_{r}) / max(abs(gradcheck({r}, {hs})), abs(grad_{r}))"] = \
            abs(g - a) / max(abs(g), abs(a))
    states = adamw(2)
    for t in (1, 2):
        st = states[t]
        for (k, i, j) in st["m"]:
            r = f"{k},{i},{tokname(j)}" if k == "W" else f"{k},{tokname(i)},{j}"
            for key in ("m", "v", "mhat", "vhat", "update", "decay"):
                out[f"adamw[{t}].{key}[{r}]"] = st[key][(k, i, j)]
            out[f"adamw[{t}].grad_{k}[{r.split(',', 1)[1]}]"] = st["g"][(k, i, j)]
        fw = st["fwd"]
        for k in ("W", "E"):
            for i in range(len(fw[k])):
                for j in range(len(fw[k][0])):
                    r = f"{i},{tokname(j)}" if k == "W" else f"{tokname(i)},{j}"
                    out[f"adamw[{t}].{k}[{r}]"] = fw[k][i][j]
        out[f"adamw[{t}].loss"] = fw["loss"]
        for j in range(V):
            out[f"adamw[{t}].p[{tokname(j)}]"] = fw["p"][j]
    # figures the prose derives from the ones above
    out["log(4)"] = mp.log(4)
    out["loss - adamw[2].loss"] = out["loss"] - out["adamw[2].loss"]
    out["adamw[2].mhat[W,0,bebe] / sqrt(adamw[2].vhat[W,0,bebe])"] = \
        out["adamw[2].mhat[W,0,bebe]"] / mp.sqrt(out["adamw[2].vhat[W,0,bebe]"])
    out["W[0,bebe] * (1 - adamw.lr * adamw.weight_decay)"] = W0[0][2] * (1 - AW["lr"] * AW["weight_decay"])
    out["1 - adamw.lr * adamw.weight_decay"] = 1 - AW["lr"] * AW["weight_decay"]
    return out


# ---------------------------------------------------------------- every figure of the document
# The code outputs' figures in print order, by quantity; a figure is checked at its printed precision
# (NumPy arrays: 4 decimals with trailing zeros dropped).

def output_refs():
    t = VOCAB
    gc = lambda r: [f"gradcheck({r}, 0.001)", f"grad_{r}",
                    f"abs(gradcheck({r}, 0.001) - grad_{r}) / max(abs(gradcheck({r}, 0.001)), abs(grad_{r}))"]
    def adam(k):
        rows = []
        for P, r in (("W", "0,bebe"), ("W", "1,leite"), ("E", "gato,1")):
            rows += [f"adamw[{k}].grad_{P}[{r}]"] + [f"adamw[{k}].{q}[{P},{r}]" for q in ("m", "v", "mhat", "vhat")] \
                    + [f"adamw[{k}].{P}[{r}]"]
        return rows + [f"adamw[{k}].loss", f"adamw[{k}].p[bebe]"]
    return {
        2: [f"z[{v}]" for v in t] + ["sum_exp", "loss"] + [f"p[{v}]" for v in t],
        3: [f"grad_z[{v}]" for v in t] + [f"grad_x[{i}]" for i in range(3)]
           + [f"grad_W[{i},{v}]" for i in range(3) for v in t],
        4: gc("W[1,bebe]") + gc("W[0,leite]") + gc("E[gato,0]"),
        5: adam(1) + adam(2) + [f"adamw[2].W[{i},{v}]" for i in range(3) for v in t],
    }


# The markdown's model figures (the spec's weights and the chains' products of them aside), by quantity.
MARKDOWN_FIGURES = [
    ("0{,}19", "z[bebe]"), ("-0{,}095", "z[leite]"),
    ("1{,}0460", "exp(z[o])"), ("1{,}0253", "exp(z[gato])"), ("1{,}2092", "exp(z[bebe])"), ("0{,}9094", "exp(z[leite])"),
    ("4{,}1899", "sum_exp"), ("0{,}2886", "p[bebe]"), ("1{,}2427", "loss"), ("1{,}3863", "log(4)"),
    ("0{,}0722", "grad_W[1,bebe]"),
    ("0{,}2497", "grad_z[o]"), ("0{,}2447", "grad_z[gato]"), ("-0{,}7114", "grad_z[bebe]"), ("0{,}2170", "grad_z[leite]"),
    ("-0{,}0699", "grad_x[0]"),
    ("-0{,}284558", "adamw[1].grad_W[0,bebe]"), ("0{,}149985", "W[0,bebe] * (1 - adamw.lr * adamw.weight_decay)"),
    ("0{,}139985", "adamw[1].W[0,bebe]"), ("0{,}9999", "1 - adamw.lr * adamw.weight_decay"),
    ("1,2427", "loss"), ("1,2243", "adamw[1].loss"),
    ("-0{,}287132", "adamw[2].mhat[W,0,bebe]"), ("0{,}082378", "adamw[2].vhat[W,0,bebe]"),
    ("-1{,}0004", "adamw[2].mhat[W,0,bebe] / sqrt(adamw[2].vhat[W,0,bebe])"),
    ("0{,}159985", "adamw[1].W[0,bebe]"), ("0{,}169973", "adamw[2].W[0,bebe]"),
    ("0{,}0100041", "-adamw[2].update[W,0,bebe]"), ("0{,}289450", "-adamw[2].grad_W[0,bebe]"),
    ("0,2886", "p[bebe]"), ("0,2940", "adamw[1].p[bebe]"), ("1,2053", "adamw[2].loss"), ("0,2996", "adamw[2].p[bebe]"),
    ("28,86%", "p[bebe]"), ("2,996%", "adamw[2].p[bebe]"), ("0,0374", "loss - adamw[2].loss"),
]

FIG = re.compile(r"-?\d+\.\d*(?:e[-+]\d+)?")


def check_every_figure(vals, planted):
    """Every model figure of DOC.ipynb: the correct rounding, unless it is a planted row of KEY.md."""
    nb = json.loads((HERE / "DOC.ipynb").read_text(encoding="utf-8"))
    refs = output_refs()
    val = lambda r: -vals[r[1:]] if r.startswith("-") and r[1:] in vals else vals[r]
    n = bad = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or cell["execution_count"] not in refs:
            continue
        text = "".join("".join(o.get("text") or o["data"]["text/plain"]) for o in cell["outputs"])
        figs = FIG.findall(text)
        want = refs[cell["execution_count"]]
        if len(figs) != len(want):
            print(f"  Out[{cell['execution_count']}]: {len(figs)} figures, {len(want)} quantities")
            bad += 1
            continue
        k = cell["execution_count"]
        for pos, (f, r) in enumerate(zip(figs, want)):
            v = val(r)
            numpy_array = k in (2, 3) or (k == 5 and pos >= len(want) - 12)   # NumPy's repr: 4 places, zeros dropped
            if "e" in f:
                ok = rnd_sig(v, len(f.split("e")[0].replace("-", "").replace(".", ""))) == f
            elif numpy_array:
                ok = Decimal(rnd(v, 4)) == Decimal(f) and len(f.split(".")[1]) <= 4
            else:
                ok = rnd(v, len(f.split(".")[1])) == f
            n += 1
            if not ok and (f in planted):
                continue
            if not ok:
                print(f"  Out[{cell['execution_count']}]: {f} is not the rounding of {r} = {mp.nstr(v, 15)}")
                bad += 1
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for printed, r in MARKDOWN_FIGURES:
        n += 1
        if printed not in md:
            print(f"  markdown: {printed} not found")
            bad += 1
            continue
        ok = shown_like(val(r), printed) == printed
        if ok == (printed.replace("{,}", ",") in planted):   # (the key writes 0{,}25 as it reads)
            print(f"  markdown: {printed} for {r} = {mp.nstr(val(r), 15)}: "
                  + ("planted but correct" if ok else "not the correct rounding"))
            bad += 1
    return n, bad


# ---------------------------------------------------------------- the key

def parse_printed(s: str):
    """A printed figure in the document's notation: decimal comma ('0,2904', '0{,}2904'), Unicode minus,
    a trailing %, or Python's e-notation."""
    t = s.replace("{,}", ".").replace(",", ".").replace("\u2212", "-").rstrip("%")
    return Decimal(t)


def shown_like(v, shown: str) -> str:
    """v rounded at the precision of `shown`, written in the same layout."""
    pct = shown.endswith("%")
    core = shown.rstrip("%")
    if "e" in core:
        sig = len(core.split("e")[0].replace("-", "").replace(".", ""))
        return rnd_sig(v, sig)
    sep = "{,}" if "{,}" in core else ("," if "," in core else ".")
    places = len(core.split(sep)[1]) if sep in core else 0
    out = rnd(v * (100 if pct else 1), places)
    if core.startswith("\u2212"):
        out = out.replace("-", "\u2212")
    elif out.startswith("-") and "\u2212" in shown:
        out = out.replace("-", "\u2212")
    return out.replace(".", sep) + ("%" if pct else "")


def doc_lines():
    return (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")


def main() -> int:
    vals = values()
    lines = doc_lines()
    json.loads("\n".join(lines))              # DOC.ipynb must be valid JSON
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            print(f"  {printed:>12}  no oracle value for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref]
        if printed not in lines[line - 1].replace("{,}", ","):   # (0{,}25 as it reads)
            problems.append(f"'{printed}' not on line {line}")
        if len(cells) == 7:                       # planted
            n_planted += 1
            correct = cells[4].strip("`")
            exact = mp.mpf(cells[3].rstrip("…"))
            right = shown_like(v, correct)
            if right != correct:
                problems.append(f"correct rounding is {right}, key says {correct}")
            scaled = v * 100 if correct.endswith("%") else v
            if abs(exact - scaled) > mp.mpf("1e-10") * abs(scaled):
                problems.append(f"exact value {mp.nstr(scaled, 15)}, key says {cells[3]}")
            if parse_printed(printed) == parse_printed(correct) or shown_like(v, printed) == printed:
                problems.append("printed figure is not wrong")
            what = "planted"
        else:
            n_correct += 1
            right = shown_like(v, printed)
            if right != printed:
                problems.append(f"correct rounding is {right}")
            what = "correct"
        bad += bool(problems)
        print(f"  {printed:>12}  line {line:>3}  {ref:<32} {mp.nstr(v, 15):<22} {what:<8} "
              + ("; ".join(problems) if problems else "ok"))
    planted = {r.strip().strip("|").split("|")[0].strip().strip("`") for r in rows
               if len(r.strip().strip("|").split("|")) == 7}
    n_all, bad_all = check_every_figure(vals, planted)
    print(f"every model figure of DOC.ipynb: {n_all} checked, "
          + (f"{bad_all} not as they should be" if bad_all else "each the correct rounding or a planted row"))
    bad += bad_all
    print(f"{n_planted} planted, {n_correct} correct rows; "
          + ("all key rows agree with the oracle and the document" if not bad else f"{bad} key rows disagree"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
