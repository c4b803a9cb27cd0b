#!/usr/bin/env python3
"""Independent check of el-tex-bigram-adamw: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # every figure of DOC.tex from SPEC.toml's weights; then every KEY.md row

Model (a bigram): h = E[πίνει], s = h·W, ŷ = softmax(s), L = -ln ŷ[γάλα], δ = ŷ - y,
∂L/∂W = outer(h, δ), ∂L/∂h = W·δ (only E's row πίνει gets it). Gradient check: central
difference (L(θ+h) - L(θ-h)) / 2h, h = 1e-4. AdamW as torch.optim.AdamW (decoupled weight decay
on every parameter, bias-corrected moments, ε added to √v̂), two steps on E and W together.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
TOK = VOCAB.index(SPEC["data"]["input"][0])
TGT = VOCAB.index(SPEC["data"]["target"])
V, D = len(VOCAB), SPEC["model"]["d"]



def as_read(line: str) -> str:
    """A source line as its figures read (the key's printed column): 0{,}25 as 0,25, \\num{0,24}\\,\\% as 0,24 %."""
    line = re.sub(r"\\num\{([^{}]*)\}", r"\1", line.replace("\\\\", "\\"))
    return line.replace("{,}", ",").replace("\\,\\%", " %").replace("\\%", "%")

def q(v) -> mp.mpf:
    return mp.mpf(str(v))          # the decimal text, as written in the TOML


def rnd(v, n: int) -> str:
    """v rounded half away from zero to n decimals (a '-' kept on a negative value)."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sci(v, sig: int) -> str:
    """v in scientific notation with sig significant digits, rounded half away from zero: '1.7226e-4'."""
    e = int(mp.floor(mp.log10(abs(v))))
    mant = Decimal(mp.nstr(v / mp.mpf(10) ** e, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    mant = mant.quantize(Decimal(1).scaleb(-(sig - 1)), rounding=ROUND_HALF_UP)
    if abs(mant) >= 10:
        return f"{mant / 10:.{sig - 1}f}e{e + 1}"      # 9.99995 -> 1.0000e(e+1)
    return f"{mant:.{sig - 1}f}e{e}"


# ---------------------------------------------------------------- the model

def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(a) for a in z]
    Z = mp.fsum(ex)
    p = [a / Z for a in ex]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, ex=ex, Z=Z, p=p, loss=-mp.log(p[TGT]), gz=gz, gW=gW, gx=gx, gE=gE)


def loss_of(E, W):
    return forward(E, W)["loss"]


def moved(E, W, name, i, j, delta):
    E2, W2 = [r[:] for r in E], [r[:] for r in W]
    (E2 if name == "E" else W2)[i][j] += delta
    return loss_of(E2, W2)


def adamw(E, W, steps, lr, b1, b2, eps, wd):
    """torch.optim.AdamW on every entry of E and W; states[k] = forward pass after k updates."""
    P = {"E": [r[:] for r in E], "W": [r[:] for r in W]}
    m = {k: [[mp.mpf(0)] * len(r) for r in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(r) for r in P[k]] for k in P}
    states, moments = [forward(P["E"], P["W"])], [None]
    for t in range(1, steps + 1):
        s = states[-1]
        G = {"E": s["gE"], "W": s["gW"]}
        info = {}
        newP = {}
        for k in ("E", "W"):
            newP[k] = []
            for i, row in enumerate(P[k]):
                nr = []
                for j, th in enumerate(row):
                    g = G[k][i][j]
                    m[k][i][j] = b1 * m[k][i][j] + (1 - b1) * g
                    v[k][i][j] = b2 * v[k][i][j] + (1 - b2) * g * g
                    mh = m[k][i][j] / (1 - b1 ** t)
                    vh = v[k][i][j] / (1 - b2 ** t)
                    upd = lr * mh / (mp.sqrt(vh) + eps)
                    dec = lr * wd * th
                    new = th - dec - upd
                    info[(k, i, j)] = dict(g=g, theta=th, m=m[k][i][j], v=v[k][i][j], mhat=mh, vhat=vh,
                                           update=upd, decay=dec, new=new)
                    nr.append(new)
                newP[k].append(nr)
        P = newP
        states.append(forward(P["E"], P["W"]))
        moments.append(info)
    return states, moments


def values() -> dict[str, mp.mpf]:
    """Every model figure of DOC.tex by its symgpt name."""
    E = [[q(a) for a in r] for r in SPEC["weights"]["E"]]
    W = [[q(a) for a in r] for r in SPEC["weights"]["W"]]
    s = forward(E, W)
    out: dict[str, mp.mpf] = {}
    for j in range(D):
        out[f"x[{j}]"] = s["x"][j]
        out[f"grad_x[{j}]"] = s["gx"][j]
        out[f"grad_E[{VOCAB[TOK]},{j}]"] = s["gE"][TOK][j]
    for j, w in enumerate(VOCAB):
        out[f"z[{w}]"] = s["z"][j]
        out[f"exp(z[{w}])"] = s["ex"][j]
        out[f"p[{w}]"] = s["p"][j]
        out[f"grad_z[{w}]"] = s["gz"][j]
        for i in range(D):
            out[f"grad_W[{i},{w}]"] = s["gW"][i][j]
    out["sum_exp"], out["loss"] = s["Z"], s["loss"]
    out["1/sum_exp"] = 1 / s["Z"]

    h = q(SPEC["training"]["gradcheck"]["h"])
    for name, i, w, j in (("W", 0, "γάλα", TGT), ("E", TOK, 1, 1)):
        ref = f"{name}[{i if name == 'W' else VOCAB[i]},{w}]"
        lp, lm = moved(E, W, name, i, j, h), moved(E, W, name, i, j, -h)
        out[f"loss_at({ref}, 0.0001)"] = lp
        out[f"loss_at({ref}, -0.0001)"] = lm
        out[f"loss_at({ref}, 0.0001) - loss_at({ref}, -0.0001)"] = lp - lm
        out[f"gradcheck({ref}, 0.0001)"] = (lp - lm) / (2 * h)
        exact = s["gW"][i][j] if name == "W" else s["gE"][i][j]
        out[f"gradcheck({ref}, 0.0001) - grad_{ref}"] = (lp - lm) / (2 * h) - exact

    a = SPEC["training"]["adamw"]
    states, moments = adamw(E, W, 2, q(a["lr"]), q(a["beta1"]), q(a["beta2"]), q(a["eps"]), q(a["weight_decay"]))
    for k in (1, 2):
        st = states[k]
        out[f"adamw[{k}].loss"] = st["loss"]
        out[f"adamw[{k}].p[γάλα]"] = st["p"][TGT]
        for j, w in enumerate(VOCAB):
            out[f"adamw[{k}].p[{w}]"] = st["p"][j]
        for (P, i, j), info in moments[k].items():
            row = VOCAB[i] if P == "E" else str(i)
            col = str(j) if P == "E" else VOCAB[j]
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                out[f"adamw[{k}].{f}[{P},{row},{col}]"] = info[f]
            out[f"adamw[{k}].{P}[{row},{col}]"] = info["new"]
            out[f"adamw[{k - 1}].grad_{P}[{row},{col}]"] = info["g"]
    return out


# ---------------------------------------------------------------- the key

def figure(printed: str) -> tuple[mp.mpf, int, bool, bool]:
    """A printed figure of DOC.tex -> (value, decimals or significant digits, percent?, scientific?)."""
    t = printed.replace("\\num{", "").replace("}", "").replace("{,", ",").replace("\\,", "").replace("−", "-")
    t = t.replace("\\%", "%").strip()
    pct = t.endswith("%")
    t = t.rstrip("%").replace(",", ".")
    sci = "e" in t
    mant = t.split("e")[0]
    places = len(mant.split(".")[1]) if "." in mant else 0
    return mp.mpf(t), (places + 1 if sci else places), pct, sci


def main() -> int:
    vals = values()
    doc = (HERE / "DOC.tex").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    bad = 0
    rows = [r for r in key if r.startswith("| `")]
    planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if not (1 <= line <= len(doc)) or printed not in as_read(doc[line - 1]):
            problems.append(f"not on line {line}")
        if ref is None:
            print(f"  {printed:>22}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        value, n, pct, sci = figure(printed)
        v = vals[ref] * (100 if pct else 1)
        if len(cells) == 7:                      # planted: printed | line | where | exact | correct | kind | quantity
            planted += 1
            shown = cells[4].strip("`")
            _, n2, pct2, sci2 = figure(shown)
            right = rnd_sci(v, n2) if sci2 else rnd(v, n2)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact column {cells[3]} is not {mp.nstr(v, 15)}")
            if figure(shown)[0] != mp.mpf(right.replace("e", "e")):
                problems.append(f"correct-rounding column {shown} is not {right}")
            mine = rnd_sci(v, n) if sci else rnd(v, n)
            if mp.mpf(mine) == value:
                problems.append(f"printed {printed} is the correct rounding: not an error")
            note = "planted, key agrees"
        else:                                    # correct: printed | line | where | quantity
            correct += 1
            right = rnd_sci(v, n) if sci else rnd(v, n)
            if mp.mpf(right) != value or (right.startswith("-") != str(value).startswith("-")):
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            bad += 1
            note = "WRONG: " + "; ".join(problems)
        print(f"  {printed:>22}  line {line:>3}  {ref:<44} {mp.nstr(v, 15):<20} {note}")
    if planted != 8 or correct != 10:
        bad += 1
        print(f"KEY has {planted} planted rows and {correct} correct rows (want 8 and 10)")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
