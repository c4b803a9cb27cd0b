#!/usr/bin/env python3
"""Independent oracle for tr-ipynb-bigram-batch2-adamw2: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # prints every KEY.md row's quantity with its exact value and checks the
                          # key's "exact value" / "correct rounding" columns against it (exit 1 on a mismatch)

It reads the model from SPEC.toml (tomllib; every number read exactly from its decimal text).
Bigram: for an example (a -> b), x = E[a], z = x.W, p = softmax(z), loss = -ln p[b]; the gradients
are p - y, outer(x, p - y) for W and W.(p - y) for the row E[a].  The mini-batch is the [data]
example followed by training.examples; its loss is the mean of the per-example losses and every
gradient the mean over the batch.  AdamW as torch.optim.AdamW (decoupled decay on W and E):
m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, mhat = m / (1 - b1^t), vhat = v / (1 - b2^t),
theta <- theta - lr wd theta - lr mhat / (sqrt(vhat) + eps).

The reverse pass is checked against central differences of the batch loss (h = 1e-20, at the
initial weights and after one AdamW step) before the key is checked.

Names follow symgpt's: `z[süt]`, `p[süt]`, `exp(z[kedi])`, `sum_exp`, `loss`, `grad_z[..]` for the
first example; `example[1].p[içer]`, `example[1].loss` for the second; `sgd[0].loss`,
`sgd[0].grad_W[0,süt]`, `sgd[0].grad_E[kedi,1]` for the batch; `adamw[k].m[W,0,süt]`,
`adamw[k].mhat[..]`, `adamw[k].update[..]`, `adamw[k].W[..]`, `adamw[k].loss`, `adamw[k].p[süt]`
after k AdamW updates.  Rounding is half away from zero on the 45-digit decimal of the value.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=str)


def num(s) -> mp.mpf:
    return mp.mpf(str(s))


VOCAB = SPEC["model"]["vocab"]
IX = {w: i for i, w in enumerate(VOCAB)}
V, D = len(VOCAB), int(SPEC["model"]["d"])
E0 = [[num(c) for c in r] for r in SPEC["weights"]["E"]]
W0 = [[num(c) for c in r] for r in SPEC["weights"]["W"]]
BATCH = [(IX[SPEC["data"]["input"][-1]], IX[SPEC["data"]["target"]])] + [
    (IX[ex["input"][-1]], IX[ex["target"]]) for ex in SPEC["training"].get("examples", [])]
A = SPEC["training"]["adamw"]
LR, B1, B2, EPS, WD = (num(A[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def example(E, W, a, b):
    x = E[a][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(c) for c in z)
    p = [mp.exp(c) / S for c in z]
    gz = [p[j] - (1 if j == b else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[b]), grad_z=gz, grad_W=gW, grad_x=gx)


def batch_loss(E, W):
    return mp.fsum(example(E, W, a, b)["loss"] for a, b in BATCH) / len(BATCH)


def batch(E, W):
    exs = [example(E, W, a, b) for a, b in BATCH]
    n = len(BATCH)
    gW = [[mp.fsum(e["grad_W"][i][j] for e in exs) / n for j in range(V)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(V)]
    for (a, _), e in zip(BATCH, exs):
        for i in range(D):
            gE[a][i] += e["grad_x"][i] / n
    return exs, mp.fsum(e["loss"] for e in exs) / n, gW, gE


def gradcheck(E, W):
    """Reverse pass against central differences of the batch loss, every entry of W and E."""
    _, _, gW, gE = batch(E, W)
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for name, P, G in (("W", W, gW), ("E", E, gE)):
        for i in range(len(P)):
            for j in range(len(P[0])):
                up = [r[:] for r in P]
                dn = [r[:] for r in P]
                up[i][j] += h
                dn[i][j] -= h
                if name == "W":
                    fd = (batch_loss(E, up) - batch_loss(E, dn)) / (2 * h)
                else:
                    fd = (batch_loss(up, W) - batch_loss(dn, W)) / (2 * h)
                worst = max(worst, abs(fd - G[i][j]))
    assert worst < mp.mpf("1e-25"), f"reverse pass disagrees with central differences: {worst}"
    return worst


def adamw(E, W, steps):
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
        moments = {k: {} for k in ("m", "v", "mhat", "vhat", "update", "decay")}
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


def values() -> dict:
    out = {}
    states = adamw(E0, W0, 2)
    s0 = states[0]
    for n, e in enumerate(s0["exs"]):
        pre = "" if n == 0 else f"example[{n}]."
        for j, w in enumerate(VOCAB):
            out[pre + f"z[{w}]"] = e["z"][j]
            out[f"exp({pre}z[{w}])"] = mp.exp(e["z"][j])
            out[pre + f"p[{w}]"] = e["p"][j]
            out[pre + f"grad_z[{w}]"] = e["grad_z"][j]
        out[pre + "sum_exp"] = e["sum_exp"]
        out[pre + "loss"] = e["loss"]
        for i in range(D):
            out[pre + f"x[{i}]"] = e["x"][i]
            out[pre + f"grad_x[{i}]"] = e["grad_x"][i]
            for j, w in enumerate(VOCAB):
                out[pre + f"grad_W[{i},{w}]"] = e["grad_W"][i][j]
    for k, st in enumerate(states):
        for pre in (["sgd[0].", "adamw[0]."] if k == 0 else [f"adamw[{k}]."]):
            out[pre + "loss"] = st["loss"]
            f = st["exs"][0]
            for j, w in enumerate(VOCAB):
                out[pre + f"p[{w}]"] = f["p"][j]
            for i in range(D):
                for j, w in enumerate(VOCAB):
                    out[pre + f"W[{i},{w}]"] = st["W"][i][j]
                    out[pre + f"grad_W[{i},{w}]"] = st["grad_W"][i][j]
            for a, w in enumerate(VOCAB):
                for i in range(D):
                    out[pre + f"E[{w},{i}]"] = st["E"][a][i]
                    out[pre + f"grad_E[{w},{i}]"] = st["grad_E"][a][i]
        if k:
            for name in ("m", "v", "mhat", "vhat", "update", "decay"):
                for (P, i, j), val in st[name].items():
                    idx = f"{i},{VOCAB[j]}" if P == "W" else f"{VOCAB[i]},{j}"
                    out[f"adamw[{k}].{name}[{P},{idx}]"] = val
    return out


def check_gradients() -> None:
    states = adamw(E0, W0, 1)
    for st in states:
        gradcheck(st["E"], st["W"])
    print("reverse pass agrees with central differences (initial weights and after one AdamW step)")


def percent(s: str) -> bool:
    return s.startswith("%") or s.endswith("%")


def main() -> int:
    check_gradients()
    vals = values()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  no oracle value for {cells[-1]}")
            bad += 1
            continue
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        v = vals[ref] * (100 if percent(shown) else 1)
        body = shown.strip("%").replace(",", ".")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places)
        if "," in shown.strip("%"):
            right = right.replace(".", ",")
        if shown.startswith("%"):
            right = "%" + right
        elif shown.endswith("%"):
            right += "%"
        if planted:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
                  and rnd(v, places) != printed.strip("%").replace(",", "."))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>12}  {ref:<32} {mp.nstr(v, 20):<26} rounds to {right:<12} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
