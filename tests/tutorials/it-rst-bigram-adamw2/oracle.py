#!/usr/bin/env python3
"""Independent oracle for it-rst-bigram-adamw2: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # prints every KEY.md row's quantity with its exact value and checks the
                         # key's "exact value" / "correct rounding" columns against it

Model (SPEC.toml): bigram, vocab il gatto mangia pesce dorme, d = 3, input gatto, target mangia.
x = E[gatto], z = x·W, p = softmax(z), loss = -ln p[mangia]; grad_z = p - y,
grad_W = outer(x, grad_z), grad_x = W·grad_z (only E's gatto row gets it).
AdamW as torch.optim.AdamW (decoupled decay on every parameter, E and W alike):
m_t = b1 m + (1-b1) g, v_t = b2 v + (1-b2) g^2, mhat = m/(1-b1^t), vhat = v/(1-b2^t),
theta_t = theta (1 - lr wd) - lr mhat/(sqrt(vhat) + eps).  Two steps.
Rounding: half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["il", "gatto", "mangia", "pesce", "dorme"]
TOK, TGT = 1, 2
E0 = [[0.12, -0.35, 0.27], [0.41, 0.18, -0.23], [-0.16, 0.52, 0.09], [0.33, -0.07, 0.44], [-0.28, 0.25, -0.11]]
W0 = [[0.21, -0.14, 0.08, 0.36, -0.27], [-0.32, 0.45, 0.19, -0.06, 0.13], [0.17, 0.29, -0.38, 0.24, 0.05]]
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.05", "0.9", "0.999", "1e-8", "0.01"))
STEPS = 2


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W):
    V, d = len(E), len(E[0])
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][k] for i in range(d)) for k in range(V)]
    ez = [mp.exp(v) for v in z]
    S = mp.fsum(ez)
    p = [e / S for e in ez]
    gz = [p[k] - (1 if k == TGT else 0) for k in range(V)]
    gW = [[x[i] * gz[k] for k in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][k] * gz[k] for k in range(V)) for i in range(d)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, exp=ez, sum_exp=S, p=p, loss=-mp.log(p[TGT]),
                grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def adamw():
    """states[k] = forward pass after k updates; opt[k][(P, i, j)] = m, v, mhat, vhat, update, decay of step k."""
    E, W = M(E0), M(W0)
    states = [forward(E, W)]
    mom = {}
    opt = [None]
    for t in range(1, STEPS + 1):
        s = states[-1]
        rec = {}
        new = {}
        for name, P, G in (("W", s["W"], s["grad_W"]), ("E", s["E"], s["grad_E"])):
            new[name] = [[None] * len(P[0]) for _ in P]
            for i in range(len(P)):
                for j in range(len(P[0])):
                    g, th = G[i][j], P[i][j]
                    m0, v0 = mom.get((name, i, j), (mp.mpf(0), mp.mpf(0)))
                    m = B1 * m0 + (1 - B1) * g
                    v = B2 * v0 + (1 - B2) * g * g
                    mom[(name, i, j)] = (m, v)
                    mhat, vhat = m / (1 - B1 ** t), v / (1 - B2 ** t)
                    upd = LR * mhat / (mp.sqrt(vhat) + EPS)
                    dec = LR * WD * th
                    rec[(name, i, j)] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, g=g)
                    new[name][i][j] = th - dec - upd
        opt.append(rec)
        states.append(forward(new["E"], new["W"]))
    return states, opt


def quantities() -> dict:
    """Every quantity the document prints, by its symgpt name."""
    st, opt = adamw()
    s = st[0]
    q = {}
    for i in range(3):
        q[f"x[{i}]"] = s["x"][i]
        for k, w in enumerate(VOCAB):
            q[f"W[{i},{w}]"] = s["W"][i][k]
            q[f"grad_W[{i},{w}]"] = s["grad_W"][i][k]
        q[f"grad_x[{i}]"] = s["grad_x"][i]
        q[f"grad_E[gatto,{i}]"] = s["grad_E"][TOK][i]
    for v, w in enumerate(VOCAB):
        for i in range(3):
            q[f"E[{w},{i}]"] = s["E"][v][i]
    for k, w in enumerate(VOCAB):
        q[f"z[{w}]"] = s["z"][k]
        q[f"exp(z[{w}])"] = s["exp"][k]
        q[f"p[{w}]"] = s["p"][k]
        q[f"grad_z[{w}]"] = s["grad_z"][k]
    q["sum_exp"] = s["sum_exp"]
    q["loss"] = s["loss"]
    for t in (1, 2):
        for k, w in enumerate(VOCAB):
            q[f"adamw[{t}].p[{w}]"] = st[t]["p"][k]
        q[f"adamw[{t}].loss"] = st[t]["loss"]
        q[f"adamw[{t}].sum_exp"] = st[t]["sum_exp"]
        for (name, i, j), r in opt[t].items():
            col = VOCAB[j] if name == "W" else str(j)
            row = str(i) if name == "W" else VOCAB[i]
            for key in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{t}].{key}[{name},{row},{col}]"] = r[key]
            q[f"adamw[{t}].{name}[{row},{col}]"] = st[t][name][i][j]
            q[f"adamw[{t - 1}].grad_{name}[{row},{col}]"] = r["g"]
        for i in range(3):
            q[f"adamw[{t}].x[{i}]"] = st[t]["x"][i]
        for k, w in enumerate(VOCAB):
            q[f"adamw[{t}].z[{w}]"] = st[t]["z"][k]
    for k in list(q):                      # adamw[0].NAME is the untrained model's NAME
        if k.startswith("adamw[0]."):
            q.setdefault(k[len("adamw[0]."):], q[k])
    return q


def main() -> int:
    values = quantities()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").replace(",", ".").split(".")[1]) if ("." in shown or "," in shown) else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown.replace(",", ".") == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != printed.replace(",", "."))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed.replace(",", ".") else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>12}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    assert planted == 8, f"{planted} planted rows, expected 8"
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print(f"all {len(rows)} key rows agree with the oracle ({planted} planted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
