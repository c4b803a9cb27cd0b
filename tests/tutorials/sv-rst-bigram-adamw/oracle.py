#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial sv-rst-bigram-adamw (plain mpmath, 50 digits, no symgpt).

    python3 oracle.py          # check every KEY.md row: exact value, correct rounding, printed text on its DOC line
    python3 oracle.py --dump   # print every quantity the tutorial uses

Bigram: x = E[katten], z = x·W, p = softmax(z), L = -ln p[jagar], dL/dz = p - y,
dL/dW = outer(x, p - y), dL/dx = W·(p - y) (only E's row katten gets it).
AdamW as torch.optim.AdamW: decoupled decay on every parameter (E and W),
θ_t = θ_{t-1} - η·λ·θ_{t-1} - η·m̂_t/(√v̂_t + ε), the gradient of step t taken at θ_{t-1}.
Rounding is half away from zero on a 45-digit decimal of the value.
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
VOC = SPEC["model"]["vocab"]
TOK = VOC.index(SPEC["data"]["input"][0])
TGT = VOC.index(SPEC["data"]["target"])


def num(v):
    return mp.mpf(str(v))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W):
    V, d = len(E), len(E[0])
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    ex = [mp.exp(v) for v in z]
    s = mp.fsum(ex)
    p = [e / s for e in ex]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, ex=ex, sum_exp=s, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW,
                grad_x=gx, grad_E=gE)


def adamw(E, W, steps):
    a = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (num(a[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    P = {"W": [r[:] for r in W], "E": [r[:] for r in E]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    states, recs = [forward(P["E"], P["W"])], [None]
    for t in range(1, steps + 1):
        f = states[-1]
        G = {"W": f["grad_W"], "E": f["grad_E"]}
        rec, newP = {}, {}
        for k in P:
            newP[k] = [[None] * len(P[k][0]) for _ in P[k]]
            for i in range(len(P[k])):
                for j in range(len(P[k][0])):
                    g, th = G[k][i][j], P[k][i][j]
                    m[k][i][j] = b1 * m[k][i][j] + (1 - b1) * g
                    v[k][i][j] = b2 * v[k][i][j] + (1 - b2) * g * g
                    mh, vh = m[k][i][j] / (1 - b1 ** t), v[k][i][j] / (1 - b2 ** t)
                    up = lr * mh / (mp.sqrt(vh) + eps)
                    dec = lr * wd * th
                    new = th - dec - up
                    newP[k][i][j] = new
                    rec[(k, i, j)] = dict(g=g, m=m[k][i][j], v=v[k][i][j], mhat=mh, vhat=vh, update=up, decay=dec,
                                          old=th, new=new, wrong_sign=th - dec + up,
                                          no_bias_corr=lr * m[k][i][j] / (mp.sqrt(v[k][i][j]) + eps))
        P = newP
        states.append(forward(P["E"], P["W"]))
        recs.append(rec)
    return states, recs


def values():
    E = [[num(v) for v in r] for r in SPEC["weights"]["E"]]
    W = [[num(v) for v in r] for r in SPEC["weights"]["W"]]
    st, rc = adamw(E, W, 2)
    out = {}
    for k, s in enumerate(st):
        pre = "" if k == 0 else f"adamw[{k}]."
        for j, w in enumerate(VOC):
            out[f"{pre}z[{w}]"] = s["z"][j]
            out[f"{pre}exp(z[{w}])"] = s["ex"][j]
            out[f"{pre}p[{w}]"] = s["p"][j]
            out[f"{pre}grad_z[{w}]"] = s["grad_z"][j]
            for i in range(2):
                out[f"{pre}W[{i},{w}]"] = s["W"][i][j]
                out[f"{pre}grad_W[{i},{w}]"] = s["grad_W"][i][j]
                out[f"{pre}E[{w},{i}]"] = s["E"][j][i]
        for i in range(2):
            out[f"{pre}x[{i}]"] = s["x"][i]
            out[f"{pre}grad_x[{i}]"] = s["grad_x"][i]
            out[f"{pre}grad_E[{VOC[TOK]},{i}]"] = s["grad_x"][i]
        out[f"{pre}sum_exp"] = s["sum_exp"]
        out[f"{pre}loss"] = s["loss"]
        # the wrong formula of a planted error: log10 instead of ln
        out[f"{pre}log10-loss"] = -mp.log10(s["p"][TGT])
    for t in (1, 2):
        for (k, i, j), r in rc[t].items():
            idx = f"{i},{VOC[j]}" if k == "W" else f"{VOC[i]},{j}"
            for q in ("m", "v", "mhat", "vhat", "update", "decay"):
                out[f"adamw[{t}].{q}[{k},{idx}]"] = r[q]
            out[f"sqrt(adamw[{t}].vhat[{k},{idx}])"] = mp.sqrt(r["vhat"])
            out[f"adamw[{t}].mhat[{k},{idx}]/sqrt(adamw[{t}].vhat[{k},{idx}])"] = (
                r["mhat"] / mp.sqrt(r["vhat"]) if r["vhat"] else mp.mpf(0))
            out[f"wrong-sign:adamw[{t}].{k}[{idx}]"] = r["wrong_sign"]
            out[f"no-bias-corr:adamw[{t}].update[{k},{idx}]"] = r["no_bias_corr"]
    # what the planted carried rounding and log10 figures come from: the document's printed p
    out["-ln(0.1403)"] = -mp.log(mp.mpf("0.1403"))
    out["-log10(0.1524)"] = -mp.log10(mp.mpf("0.1524"))
    return out


def places_and_scale(text: str, percent: bool):
    """The digits of a printed figure, its decimal places and the factor it carries
    (a percent → 100, a trailing ·10^{-k} → 10^k)."""
    t = text.replace("−", "-").strip()
    scale = mp.mpf(100) if percent else mp.mpf(1)
    if t.endswith("%"):
        scale, t = mp.mpf(100), t.rstrip("%").strip()
    mexp = re.search(r"\s*(?:\\cdot|\\times|·|×)\s*10\^\{?(-?\d+)\}?$", t)
    if mexp:
        scale = scale * mp.mpf(10) ** (-int(mexp.group(1)))
        t = t[: mexp.start()].strip()
    places = len(t.split(".")[1]) if "." in t else 0
    return t, places, scale


def main() -> int:
    vals = values()
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(f"{k:<40} {mp.nstr(v, 15)}")
        return 0
    doc = (HERE / "DOC.rst").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        planted = len(cells) == 7
        percent = "%" in cells[2]                       # a figure of a percent column or a percent in the text
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            problems.append(f"printed text not on line {line}")
        if ref is not None:
            pbody, pplaces, pscale = places_and_scale(printed, percent)
            if planted:
                n_planted += 1
                shown = cells[4].strip("`")
                body, places, scale = places_and_scale(shown, percent)
                right = rnd(vals[ref] * scale, places)
                exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
                want = vals[ref] * (100 if percent else 1)
                if abs(exact - want) > mp.mpf("1e-10") * abs(want):
                    problems.append(f"exact value column {cells[3]} is not {mp.nstr(want, 15)}")
                if right != body:
                    problems.append(f"correct rounding column {shown} is not {right}")
                if rnd(vals[ref] * pscale, pplaces) == pbody:
                    problems.append("the planted figure is in fact the correct rounding")
            else:
                n_correct += 1
                right = rnd(vals[ref] * pscale, pplaces)
                if right != pbody:
                    problems.append(f"not the correct rounding ({right})")
        bad += bool(problems)
        tag = "planted" if planted else "correct"
        shown_v = mp.nstr(vals[ref], 15) if ref else "?"
        print(f"  {printed:>22}  line {line:>3}  {tag}  {str(ref):<30} {shown_v:<22} {'; '.join(problems) or 'ok'}")
    if n_planted != 8 or n_correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {n_planted} and {n_correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
