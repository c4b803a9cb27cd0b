#!/usr/bin/env python3
"""Independent computation behind KEY.md of zh-html-bigram-batch-adamw (plain mpmath, 50 digits, no symgpt).

    python3 oracle.py     # every KEY.md row: its quantity's value, its rounding, the printed text on its DOC line

Model (read from SPEC.toml): a bigram, x = E[token], o = x·W, ŷ = softmax(o), J = −ln ŷ[target];
a mini-batch of the [data] example and the [[training.examples]] entries: the loss is the mean of the
cross-entropies and every gradient the mean of the examples' gradients (∂J/∂W = xᵀ(ŷ − y),
∂J/∂e = W(ŷ − y) on the input's row only).  AdamW as torch.optim.AdamW: decoupled decay on every
parameter, m, v from 0, bias corrections 1 − β^k, update η·m̂/(√v̂ + ε).
Names follow symgpt's references: `loss`, `p[v]`, `grad_W[i,v]` … are the FIRST example's alone;
`sgd[0].loss`, `sgd[0].grad_W[i,v]` the batch means; `adamw[k].…` the state after k AdamW steps.
Rounding is half away from zero on the 45-digit decimal of the value.
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
DOC = next(p for p in sorted(HERE.glob("DOC.*")))


def num(v) -> mp.mpf:
    return mp.mpf(str(v))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


VOCAB = SPEC["model"]["vocab"]
ID = {t: i for i, t in enumerate(VOCAB)}
NV, D = len(VOCAB), SPEC["model"]["d"]
E0 = [[num(v) for v in r] for r in SPEC["weights"]["E"]]
W0 = [[num(v) for v in r] for r in SPEC["weights"]["W"]]
EXAMPLES = [(ID[SPEC["data"]["input"][0]], ID[SPEC["data"]["target"]])] + [
    (ID[e["input"][0]], ID[e["target"]]) for e in SPEC["training"].get("examples", [])]
AW = SPEC["training"]["adamw"]
LR, B1, B2, EPS, WD = (num(AW[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
STEPS = SPEC["training"]["steps"]


def forward(E, W, tok, tgt):
    x = E[tok][:]
    o = [mp.fsum(x[i] * W[i][k] for i in range(D)) for k in range(NV)]
    s = mp.fsum(mp.exp(a) for a in o)
    p = [mp.exp(a) / s for a in o]
    gz = [p[k] - (1 if k == tgt else 0) for k in range(NV)]
    gW = [[x[i] * gz[k] for k in range(NV)] for i in range(D)]
    gx = [mp.fsum(W[i][k] * gz[k] for k in range(NV)) for i in range(D)]
    return dict(x=x, z=o, sum_exp=s, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx, tok=tok)


def batch(E, W):
    fs = [forward(E, W, t, g) for t, g in EXAMPLES]
    n = len(fs)
    gW = [[mp.fsum(f["grad_W"][i][k] for f in fs) / n for k in range(NV)] for i in range(D)]
    gE = [[mp.mpf(0)] * D for _ in range(NV)]
    for f in fs:
        gE[f["tok"]] = [gE[f["tok"]][i] + f["grad_x"][i] / n for i in range(D)]
    return dict(ex=fs, loss=mp.fsum(f["loss"] for f in fs) / n, grad_W=gW, grad_E=gE, W=W, E=E)


def adamw():
    """States 0..STEPS: each the batch evaluation at the parameters, plus the moments of the step into it."""
    P = {"W": [r[:] for r in W0], "E": [r[:] for r in E0]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    states = [dict(batch=batch(P["E"], P["W"]), opt={})]
    for step in range(1, STEPS + 1):
        b = states[-1]["batch"]
        G = {"W": b["grad_W"], "E": b["grad_E"]}
        opt, new = {}, {}
        for name in ("W", "E"):
            new[name] = []
            for i, row in enumerate(P[name]):
                nr = []
                for j, th in enumerate(row):
                    g = G[name][i][j]
                    m[name][i][j] = B1 * m[name][i][j] + (1 - B1) * g
                    v[name][i][j] = B2 * v[name][i][j] + (1 - B2) * g * g
                    mh = m[name][i][j] / (1 - B1 ** step)
                    vh = v[name][i][j] / (1 - B2 ** step)
                    upd = LR * mh / (mp.sqrt(vh) + EPS)
                    dec = LR * WD * th
                    nr.append(th - dec - upd)
                    opt[(name, i, j)] = dict(g=g, m=m[name][i][j], v=v[name][i][j], mhat=mh, vhat=vh,
                                             update=upd, decay=dec, new=nr[-1])
                new[name].append(nr)
        P = new
        states.append(dict(batch=batch(P["E"], P["W"]), opt=opt))
    return states


def values() -> dict:
    st = adamw()
    b0 = st[0]["batch"]
    ex1, ex2 = b0["ex"]
    Q = {}
    for pre, f in (("", ex1), ("ex2.", ex2)):
        for k, t in enumerate(VOCAB):
            Q[f"{pre}z[{t}]"] = f["z"][k]
            Q[f"{pre}exp(z[{t}])"] = mp.exp(f["z"][k])
            Q[f"{pre}p[{t}]"] = f["p"][k]
            Q[f"{pre}grad_z[{t}]"] = f["grad_z"][k]
            for i in range(D):
                Q[f"{pre}grad_W[{i},{t}]"] = f["grad_W"][i][k]
        for i in range(D):
            Q[f"{pre}grad_x[{i}]"] = f["grad_x"][i]
        Q[f"{pre}sum_exp"] = f["sum_exp"]
        Q[f"{pre}loss"] = f["loss"]
    for t in VOCAB:
        for i in range(D):
            Q[f"grad_E[{t},{i}]"] = ex1["grad_x"][i] if ID[t] == ex1["tok"] else mp.mpf(0)
    for k, s in enumerate(st):
        b = s["batch"]
        if k == 0:
            Q["sgd[0].loss"] = b["loss"]
        Q[f"adamw[{k}].loss"] = b["loss"]
        for pre in (["sgd[0].", "adamw[0]."] if k == 0 else [f"adamw[{k}]."]):
            for i in range(D):
                for kk, t in enumerate(VOCAB):
                    Q[f"{pre}grad_W[{i},{t}]"] = b["grad_W"][i][kk]
                    Q[f"{pre}W[{i},{t}]"] = b["W"][i][kk]
            for kk, t in enumerate(VOCAB):
                for i in range(D):
                    Q[f"{pre}grad_E[{t},{i}]"] = b["grad_E"][kk][i]
                    Q[f"{pre}E[{t},{i}]"] = b["E"][kk][i]
            for e, f in enumerate(b["ex"]):   # the first example's p at this state (symgpt's p), ex2's privately
                for kk, t in enumerate(VOCAB):
                    Q[f"{'ex2.' if e else ''}{pre}p[{t}]"] = f["p"][kk]
        for (name, i, j), o in s["opt"].items():
            col = VOCAB[j] if name == "W" else j
            row = i if name == "W" else VOCAB[i]
            for q in ("m", "v", "mhat", "vhat", "update", "decay"):
                Q[f"adamw[{k}].{q}[{name},{row},{col}]"] = o[q]
    for t in VOCAB:
        for i in range(D):
            Q[f"E[{t},{i}]"] = E0[ID[t]][i]
    for i in range(D):
        for t in VOCAB:
            Q[f"W[{i},{t}]"] = W0[i][ID[t]]
    return Q


# Every model figure of DOC.html by line: (printed, quantity); a planted figure's quantity is None
# (KEY.md's rows check those).  Used to confirm that every figure not planted is the correct rounding.
DOC_FIGURES = {
    61: [("0.16", "z[春]")], 62: [("-0.12", "z[风]")], 63: [("0.05", "z[花]")], 64: [("0.26", "z[开]")],
    65: [("-0.28", "z[雨]")],
    68: [("1.1735", "exp(z[春])"), ("0.8869", "exp(z[风])"), ("1.0513", "exp(z[花])"), ("1.2969", "exp(z[开])"),
         ("0.7558", "exp(z[雨])")],
    69: [("5.1644", "sum_exp")],
    70: [("0.2272", "p[春]"), ("0.1717", "p[风]"), ("0.2036", "p[花]"), ("0.2511", "p[开]"), ("0.1463", "p[雨]")],
    71: [("0.1717", "p[风]"), ("0.17%", None)], 74: [("1.7620", None)],
    78: [("-0.19", "ex2.z[春]")], 79: [("0.23", "ex2.z[风]")],
    80: [("0.015", "ex2.z[花]")], 81: [("-0.30", "ex2.z[开]")], 82: [("0.42", "ex2.z[雨]")],
    83: [("0.8270", "ex2.exp(z[春])"), ("1.2586", "ex2.exp(z[风])"), ("1.0151", "ex2.exp(z[花])"),
         ("0.7408", "ex2.exp(z[开])"), ("1.5220", "ex2.exp(z[雨])"), ("5.3635", "ex2.sum_exp")],
    84: [("0.1542", "ex2.p[春]"), ("0.2347", "ex2.p[风]"), ("0.1893", "ex2.p[花]"), ("0.1381", "ex2.p[开]"),
         ("0.2838", "ex2.p[雨]")],
    86: [("0.138123", "ex2.p[开]"), ("1.9796", "ex2.loss")], 89: [("1.8707", "sgd[0].loss")],
    104: [("0.2272", "p[春]"), ("0.1717", "p[风]"), ("0.2036", "p[花]"), ("0.2511", "p[开]"), ("0.1463", "p[雨]")],
    105: [("0.1542", "ex2.p[春]"), ("0.2347", "ex2.p[风]"), ("0.1893", "ex2.p[花]"), ("0.1381", "ex2.p[开]"),
          ("0.2838", "ex2.p[雨]")],
    106: [("1.761792", "loss"), ("1.979608", "ex2.loss"), ("1.8707", "sgd[0].loss")],
    116: [("0.2272", "grad_z[春]"), ("-0.8283", "grad_z[风]"), ("0.2036", "grad_z[花]"), ("0.2511", "grad_z[开]"),
          ("0.1463", "grad_z[雨]")],
    117: [("0.1542", "ex2.grad_z[春]"), ("0.2347", "ex2.grad_z[风]"), ("0.1893", "ex2.grad_z[花]"),
          ("-0.8619", "ex2.grad_z[开]"), ("0.2838", "ex2.grad_z[雨]")],
    128: [("0.0909", "grad_W[0,春]"), ("-0.0454", None), ("0.0814", "grad_W[0,花]"), ("0.1005", "grad_W[0,开]"),
          ("0.0585", "grad_W[0,雨]")],
    129: [("-0.0454", "grad_W[1,春]"), ("0.1657", "grad_W[1,风]"), ("-0.0407", "grad_W[1,花]"),
          ("-0.0502", "grad_W[1,开]"), ("-0.0293", "grad_W[1,雨]")],
    132: [("-0.8283", "grad_z[风]"), ("0.1657", "grad_W[1,风]")],
    137: [("-0.0463", "ex2.grad_W[0,春]"), ("-0.0704", "ex2.grad_W[0,风]"), ("-0.0568", "ex2.grad_W[0,花]"),
          ("0.2586", "ex2.grad_W[0,开]"), ("-0.0851", "ex2.grad_W[0,雨]")],
    138: [("0.0771", "ex2.grad_W[1,春]"), ("0.1173", "ex2.grad_W[1,风]"), ("0.0946", "ex2.grad_W[1,花]"),
          ("-0.4309", "ex2.grad_W[1,开]"), ("0.1419", "ex2.grad_W[1,雨]")],
    143: [("0.1657", "grad_W[1,风]"), ("0.1173", "ex2.grad_W[1,风]"), ("0.1415", "sgd[0].grad_W[1,风]")],
    147: [("0.0223", "sgd[0].grad_W[0,春]"), ("-0.2009", "sgd[0].grad_W[0,风]"), ("0.0123", "sgd[0].grad_W[0,花]"),
          ("0.1795", "sgd[0].grad_W[0,开]"), ("-0.0133", "sgd[0].grad_W[0,雨]")],
    148: [("0.0158", "sgd[0].grad_W[1,春]"), ("0.1415", "sgd[0].grad_W[1,风]"), ("0.0270", "sgd[0].grad_W[1,花]"),
          ("0.0094", None), ("0.0563", "sgd[0].grad_W[1,雨]")],
    155: [("0.2587", "grad_x[0]")],
    156: [("-0.3337", "grad_x[1]"), ("-0.4838", "ex2.grad_x[0]"), ("0.5202", "ex2.grad_x[1]")],
    159: [("0.2587", "grad_x[0]"), ("-0.3337", "grad_x[1]"), ("0.1294", "sgd[0].grad_E[春,0]"),
          ("-0.1669", "sgd[0].grad_E[春,1]")],
    160: [("-0.4838", "ex2.grad_x[0]"), ("0.5202", "ex2.grad_x[1]"), ("0.2419", None),
          ("0.2601", "sgd[0].grad_E[花,1]")],
    164: [("0.1294", "sgd[0].grad_E[春,0]"), ("-0.1669", "sgd[0].grad_E[春,1]")],
    165: [("-0.2419", "sgd[0].grad_E[花,0]"), ("0.2601", "sgd[0].grad_E[花,1]")],
    173: [("0.0223", "sgd[0].grad_W[0,春]"), ("-0.2009", "sgd[0].grad_W[0,风]"), ("0.0123", "sgd[0].grad_W[0,花]"),
          ("0.1795", "sgd[0].grad_W[0,开]"), ("-0.0133", "sgd[0].grad_W[0,雨]")],
    174: [("0.0158", "sgd[0].grad_W[1,春]"), ("0.1415", "sgd[0].grad_W[1,风]"), ("0.0270", "sgd[0].grad_W[1,花]"),
          ("-0.2406", "sgd[0].grad_W[1,开]"), ("0.0563", "sgd[0].grad_W[1,雨]")],
    175: [("0.1294", "sgd[0].grad_E[春,0]"), ("-0.1669", "sgd[0].grad_E[春,1]")],
    176: [("-0.2419", "sgd[0].grad_E[花,0]"), ("0.2601", "sgd[0].grad_E[花,1]")],
    189: [("-0.200852", "sgd[0].grad_W[0,风]")],
    191: [("-0.200852", "sgd[0].grad_W[0,风]"), ("-0.020085", "adamw[1].m[W,0,风]")],
    192: [("-0.200852", "sgd[0].grad_W[0,风]"), ("4.0342", "1e5*adamw[1].v[W,0,风]")],
    193: [("-0.200852", "adamw[1].mhat[W,0,风]"), ("0.040342", "adamw[1].vhat[W,0,风]")],
    194: [("-0.200852", "adamw[1].mhat[W,0,风]"), ("0.200852", "sqrt(adamw[1].vhat[W,0,风])"),
          ("-0.050000", "adamw[1].update[W,0,风]")],
    195: [("-0.000050", "adamw[1].decay[W,0,风]")],
    202: [("-0.200852", "sgd[0].grad_W[0,风]"), ("-0.020085", "adamw[1].m[W,0,风]"),
          ("4.0342", "1e5*adamw[1].v[W,0,风]"), ("0.040342", "adamw[1].vhat[W,0,风]"),
          ("-0.050000", "adamw[1].update[W,0,风]"), ("-0.000050", "adamw[1].decay[W,0,风]")],
    203: [("-0.240582", "sgd[0].grad_W[1,开]"), ("-0.024058", "adamw[1].m[W,1,开]"),
          ("5.7880", "1e5*adamw[1].v[W,1,开]"), ("0.057880", "adamw[1].vhat[W,1,开]"),
          ("-0.050000", "adamw[1].update[W,1,开]"), ("-0.000150", "adamw[1].decay[W,1,开]")],
    204: [("0.260120", "sgd[0].grad_E[花,1]"), ("0.026012", "adamw[1].m[E,花,1]"),
          ("6.7662", "1e5*adamw[1].v[E,花,1]"), ("0.067662", "adamw[1].vhat[E,花,1]"),
          ("0.050000", "adamw[1].update[E,花,1]"), ("0.000250", "adamw[1].decay[E,花,1]")],
    208: [("-0.000050", "adamw[1].decay[W,0,风]"), ("-0.050000", "adamw[1].update[W,0,风]"),
          ("-0.049950", "adamw[1].W[0,风]")],
    209: [("-0.000150", "adamw[1].decay[W,1,开]"), ("-0.050000", "adamw[1].update[W,1,开]"), ("-0.349850", None)],
    210: [("0.000250", "adamw[1].decay[E,花,1]"), ("0.050000", "adamw[1].update[E,花,1]"),
          ("0.449750", "adamw[1].E[花,1]")],
    212: [("0.099950", "adamw[1].E[风,0]")],
    216: [("-0.171446", "adamw[1].grad_W[0,风]")],
    217: [("-0.020085", "adamw[1].m[W,0,风]"), ("-0.171446", "adamw[1].grad_W[0,风]"),
          ("-0.035221", "adamw[2].m[W,0,风]")],
    218: [("4.0342", "1e5*adamw[1].v[W,0,风]"), ("-0.171446", "adamw[1].grad_W[0,风]"),
          ("6.9695", "1e5*adamw[2].v[W,0,风]")],
    220: [("-0.185375", "adamw[2].mhat[W,0,风]"), ("0.069695", None)],
    221: [("-0.049639", "adamw[2].update[W,0,风]")],
    222: [("-0.049950", "adamw[1].W[0,风]"), ("-0.000025", "adamw[2].decay[W,0,风]")],
    223: [("-0.049950", "adamw[1].W[0,风]"), ("-0.000025", "adamw[2].decay[W,0,风]"),
          ("-0.049639", "adamw[2].update[W,0,风]"), ("-0.000286", "adamw[2].W[0,风]")],
    254: [("1.8707", "adamw[0].loss")], 255: [("-0.049950", "adamw[1].W[0,风]")],
    256: [("1.7923", "adamw[1].loss")], 257: [("-0.000286", "adamw[2].W[0,风]")], 258: [("1.7281", "adamw[2].loss")],
    265: [("1.8707", "adamw[0].loss"), ("0.1717", "adamw[0].p[风]"), ("0.1381", "ex2.adamw[0].p[开]")],
    266: [("1.7932", None), ("0.1816", "adamw[1].p[风]"), ("0.1528", "ex2.adamw[1].p[开]")],
    267: [("1.7281", "adamw[2].loss"), ("0.1899", "adamw[2].p[风]"), ("0.1661", "ex2.adamw[2].p[开]")],
    270: [("1.8707", "adamw[0].loss"), ("1.7281", "adamw[2].loss")],
    272: [("0.0123", "sgd[0].grad_W[0,花]")],
}


def quantity(Q: dict, ref: str):
    """A key of Q, or the few derived forms DOC_FIGURES uses (1e5*…, sqrt(…))."""
    if ref.startswith("1e5*"):
        return 100000 * Q[ref[4:]]
    if ref.startswith("sqrt("):
        return mp.sqrt(Q[ref[5:-1]])
    return Q[ref]


def check_document(Q: dict, doc_lines: list[str]) -> int:
    bad = 0
    for line, figs in DOC_FIGURES.items():
        text = doc_lines[line - 1]
        for printed, ref in figs:
            if printed not in text:
                print(f"  DOC line {line}: `{printed}` not found")
                bad += 1
            if ref is None:
                continue
            places = len(printed.split(".")[1]) if "." in printed else 0
            if rnd(quantity(Q, ref), places) != printed:
                print(f"  DOC line {line}: `{printed}` is not the rounding of {ref} "
                      f"({mp.nstr(quantity(Q, ref), 15)})")
                bad += 1
    return bad


def check_planted_kinds(Q: dict) -> int:
    """Each planted figure is what its stated mistake gives."""
    n = mp.mpf
    ex = [
        ("0.17%", rnd(Q["p[风]"], 2) + "%"),                                       # fraction with a % sign
        ("1.7620", rnd(-mp.log(n("0.1717")), 4)),                                 # from the rounded ŷ_风
        ("-0.0454", rnd(Q["grad_W[1,春]"], 4)),                                   # the transposed entry
        ("0.0094", rnd((Q["grad_W[1,开]"] + Q["E[花,1]"] * Q["ex2.p[开]"]) / 2, 4)),  # no −y in example 2
        ("0.2419", rnd(-Q["sgd[0].grad_E[花,0]"], 4)),                            # sign flip
        ("-0.349850", rnd(Q["W[1,开]"] - Q["adamw[1].decay[W,1,开]"] + Q["adamw[1].update[W,1,开]"], 6)),
        ("0.069695", rnd(Q["adamw[2].v[W,0,风]"] / (1 - B2), 6)),                  # step 1's bias correction
        ("1.7932", rnd(Q["adamw[1].loss"], 4)[:-2] + rnd(Q["adamw[1].loss"], 4)[-1] + rnd(Q["adamw[1].loss"], 4)[-2]),
    ]
    bad = 0
    for printed, made in ex:
        if printed != made:
            print(f"  planted `{printed}`: its stated mistake gives `{made}`")
            bad += 1
    return bad


def main() -> int:
    Q = values()
    if "--dump" in sys.argv:
        for k, v in Q.items():
            print(f"{k:34} {mp.nstr(v, 20)}")
        return 0
    doc_lines = DOC.read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in Q), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
            v = None
        else:
            v = Q[ref] * (100 if printed.endswith("%") else 1)
        if not (1 <= line <= len(doc_lines)) or printed not in doc_lines[line - 1].replace("\u2212", "-") \
                and printed not in doc_lines[line - 1]:
            problems.append(f"`{printed}` not on line {line} of {DOC.name}")
        if v is not None:
            shown = cells[4].strip("`") if len(cells) == 7 else printed
            places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
            right = rnd(v, places) + ("%" if shown.endswith("%") else "")
            if len(cells) == 7:
                planted += 1
                exact = mp.mpf(cells[3].rstrip("…"))
                if shown != right:
                    problems.append(f"correct rounding is {right}, key says {shown}")
                if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                    problems.append(f"exact value is {mp.nstr(v, 15)}, key says {cells[3]}")
                if right == printed.replace("\u2212", "-"):
                    problems.append("printed figure is the correct rounding: not an error")
                note = "planted, key agrees"
            else:
                correct += 1
                if right != printed.replace("\u2212", "-"):
                    problems.append(f"NOT THE CORRECT ROUNDING (is {right})")
                note = "correct"
            print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} "
                  f"{'; '.join(problems) if problems else note}")
        else:
            print(f"  {printed:>10}  line {line:>3}  {'; '.join(problems)}")
        bad += bool(problems)
    bad += check_document(Q, doc_lines)
    bad += check_planted_kinds(Q)
    print(f"checked {sum(map(len, DOC_FIGURES.values()))} figures of {DOC.name} and the 8 planted mistakes")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
