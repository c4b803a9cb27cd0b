#!/usr/bin/env python3
"""Independent oracle for ca-pdf-bigram-adamw2 (plain mpmath at 50 digits; no symgpt).

    python oracle.py          # every KEY.md row's quantity with its exact value, and a check of
                              # the key's "exact value" and "correct rounding" columns

Model: bigram, vocabulary el, gat, menja, peix (ids 0..3), d = 2, one pair gat -> menja.
x = E[gat], z = x.W, p = softmax(z), loss = -ln p[menja], grad_z = p - y,
grad_W = outer(x, grad_z), grad_x = W.grad_z (only E's row gat receives it).
Central difference (L(theta + h) - L(theta - h)) / 2h with h = 1e-4.
AdamW as torch.optim.AdamW (decoupled decay on every parameter): lr 0.1, betas 0.9 / 0.999,
eps 1e-8, weight decay 0.01; theta <- theta - lr*wd*theta - lr*mhat/(sqrt(vhat) + eps), two steps.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["el", "gat", "menja", "peix"]
TOK, TGT = 1, 2
E0 = [["0.12", "-0.35"], ["0.48", "0.26"], ["-0.31", "0.42"], ["0.07", "-0.18"]]
W0 = [["0.25", "-0.42", "0.16", "0.33"], ["-0.14", "0.37", "0.29", "-0.21"]]
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.1", "0.9", "0.999", "1e-8", "0.01"))
H = mp.mpf("1e-4")


def mat(a):
    return [[mp.mpf(v) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W):
    V, d = len(E), len(E[0])
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    ez = [mp.exp(v) for v in z]
    S = mp.fsum(ez)
    p = [e / S for e in ez]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, exp=ez, sum_exp=S, p=p, loss=-mp.log(p[TGT]),
                grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def loss_with(E, W, name, i, j, delta):
    E2 = [r[:] for r in E]
    W2 = [r[:] for r in W]
    (E2 if name == "E" else W2)[i][j] += delta
    return forward(E2, W2)["loss"]


def adamw(E, W, steps):
    """States 0..steps and, for k >= 1, the optimizer's per-entry record of update k."""
    states = [forward(E, W)]
    rec = [None]
    m = {("W", i, j): mp.mpf(0) for i in range(len(W)) for j in range(len(W[0]))}
    m.update({("E", i, j): mp.mpf(0) for i in range(len(E)) for j in range(len(E[0]))})
    v = dict(m)
    for k in range(1, steps + 1):
        s = states[-1]
        r = {}
        newP = {"W": [r_[:] for r_ in s["W"]], "E": [r_[:] for r_ in s["E"]]}
        for key in m:
            name, i, j = key
            g = s["grad_" + name][i][j]
            th = s[name][i][j]
            m[key] = B1 * m[key] + (1 - B1) * g
            v[key] = B2 * v[key] + (1 - B2) * g * g
            mhat = m[key] / (1 - B1 ** k)
            vhat = v[key] / (1 - B2 ** k)
            upd = LR * mhat / (mp.sqrt(vhat) + EPS)
            dec = LR * WD * th
            new = th - dec - upd
            newP[name][i][j] = new
            r[key] = dict(g=g, m=m[key], v=v[key], mhat=mhat, vhat=vhat, update=upd, decay=dec, new=new)
        rec.append(r)
        states.append(forward(newP["E"], newP["W"]))
    return states, rec


def quantities() -> dict:
    """symgpt-style name -> exact value, for every quantity the document prints."""
    E, W = mat(E0), mat(W0)
    st, rec = adamw(E, W, 2)
    s = st[0]
    q = {}
    for v in range(4):
        for j in range(2):
            q[f"E[{VOCAB[v]},{j}]"] = E[v][j]
    for i in range(2):
        for v in range(4):
            q[f"W[{i},{VOCAB[v]}]"] = W[i][v]
    for j in range(2):
        q[f"x[{j}]"] = s["x"][j]
        q[f"grad_x[{j}]"] = s["grad_x"][j]
    for v in range(4):
        t = VOCAB[v]
        q[f"z[{t}]"] = s["z"][v]
        q[f"exp(z[{t}])"] = s["exp"][v]
        q[f"p[{t}]"] = s["p"][v]
        q[f"grad_z[{t}]"] = s["grad_z"][v]
        for i in range(2):
            q[f"grad_W[{i},{t}]"] = s["grad_W"][i][v]
    q["sum_exp"] = s["sum_exp"]
    q["loss"] = s["loss"]
    # central differences
    for nm, (P, i, j) in {"W[1,menja]": ("W", 1, 2), "E[gat,0]": ("E", 1, 0)}.items():
        q[f"loss_at({nm}, 0.0001)"] = loss_with(E, W, P, i, j, H)
        q[f"loss_at({nm}, -0.0001)"] = loss_with(E, W, P, i, j, -H)
        q[f"gradcheck({nm}, 0.0001)"] = (q[f"loss_at({nm}, 0.0001)"] - q[f"loss_at({nm}, -0.0001)"]) / (2 * H)
    # AdamW
    for k in (1, 2):
        for key, r in rec[k].items():
            name, i, j = key
            idx = f"{i},{VOCAB[j]}" if name == "W" else f"{VOCAB[i]},{j}"
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{k}].{f}[{name},{idx}]"] = r[f]
            q[f"adamw[{k}].{name}[{idx}]"] = r["new"]
            q[f"adamw[{k - 1}].grad_{name}[{idx}]"] = r["g"]
        q[f"adamw[{k}].loss"] = st[k]["loss"]
        for v in range(4):
            q[f"adamw[{k}].p[{VOCAB[v]}]"] = st[k]["p"][v]
    q["adamw[0].loss"] = s["loss"]
    return q


# ---------------------------------------------------------------- the key

def norm_num(s: str) -> str:
    return s.strip().strip("`").replace("−", "-").replace(",", ".").replace("\u2009", "")


def key_rows():
    rows = []
    section = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = "planted" if "Planted" in line else "correct"
            continue
        if not line.startswith("| `") or section is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((section, cells))
    return rows


def main() -> int:
    q = quantities()
    fails = 0
    n_planted = n_correct = 0
    for section, cells in key_rows():
        printed = norm_num(cells[0])
        qty = cells[-1]
        names = [n.strip().strip("`") for n in qty.split(" or ")]
        vals = [q[n] for n in names if n in q]
        if not vals:
            print(f"MISSING quantity {qty}")
            fails += 1
            continue
        val = vals[0]
        for other in vals[1:]:
            if abs(other - val) > mp.mpf("1e-40"):
                print(f"ALTERNATIVES DIFFER {qty}")
                fails += 1
        ndec = len(printed.split(".")[1]) if "." in printed else 0
        mine = rnd(val, ndec)
        if section == "planted":
            n_planted += 1
            exact = norm_num(cells[3]).rstrip("…").rstrip(".")
            correct = norm_num(cells[4])
            ok_exact = mp.nstr(val, 40, strip_zeros=False, min_fixed=-60, max_fixed=60).startswith(exact) \
                or abs(mp.mpf(exact) - val) < mp.mpf(10) ** (-(len(exact.split(".")[1]) if "." in exact else 0))
            ok_round = correct == mine
            ok_wrong = printed != mine
            status = "ok" if (ok_exact and ok_round and ok_wrong) else "FAIL"
            if status == "FAIL":
                fails += 1
            print(f"[planted] {status:4} {names[0]:34} = {mp.nstr(val, 20):>24}  printed {printed:>10}  "
                  f"correct {mine:>10}  key says {correct}")
        else:
            n_correct += 1
            status = "ok" if printed == mine else "FAIL"
            if status == "FAIL":
                fails += 1
            print(f"[correct] {status:4} {names[0]:34} = {mp.nstr(val, 20):>24}  printed {printed:>10}  "
                  f"rounds to {mine}")
    print(f"{n_planted} planted, {n_correct} correct, {fails} failures")
    assert n_planted == 8 and n_correct == 10, "the key must list 8 planted errors and 10 correct figures"
    assert fails == 0, f"{fails} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for k, v in quantities().items():
            print(f"{k:40} {mp.nstr(v, 25)}")
        sys.exit(0)
    sys.exit(main())
