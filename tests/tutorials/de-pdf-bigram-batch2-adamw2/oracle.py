#!/usr/bin/env python3
"""Independent oracle for de-pdf-bigram-batch2-adamw2 (plain mpmath, 50 digits, no symgpt).

    python oracle.py

Model (SPEC.toml): bigram, vocab der Hund bellt laut oft, d = 3; a mini-batch of two pairs,
Hund -> bellt (the [data] example, symgpt's unprefixed names) and bellt -> laut (`example[1].…`).
x = E[token], z = x·W, p = softmax(z), loss = -ln p[target], grad_z = p - y,
grad_W = outer(x, p - y), grad_x = W·(p - y) (only E's input row gets it). The batch loss and
gradient are the means over the two examples (`sgd[0].loss`, `sgd[0].grad_W[…]`, same as `adamw[0].…`).
AdamW as torch.optim.AdamW: θ ← θ - lr·wd·θ; m = β1 m + (1-β1) g; v = β2 v + (1-β2) g²;
m̂ = m/(1-β1^t); v̂ = v/(1-β2^t); update = lr·m̂/(√v̂ + eps); θ ← θ - update. Decay on every parameter.
`adamw[t].X` is the state after t updates; its m, v, mhat, vhat, update, decay are those of update t,
computed from the batch gradient at `adamw[t-1]`.

It prints every KEY.md row's quantity with its exact value and checks the key's "exact value" and
"correct rounding" columns (planted rows) or the printed figure (correct rows); then it checks every
figure the document prints (a list kept here, line numbers of `pdftotext -layout DOC.pdf -`): each
one that is not planted must be the correct rounding (half away from zero) of its quantity.
Exits with status 1 on any disagreement.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["der", "Hund", "bellt", "laut", "oft"]
ID = {w: i for i, w in enumerate(VOCAB)}
V, D = 5, 3


def M(rows):
    return [[mp.mpf(str(v)) for v in r] for r in rows]


E0 = M([[0.12, -0.31, 0.25], [0.46, 0.18, -0.22], [-0.27, 0.39, 0.14], [0.33, -0.08, 0.41], [-0.15, 0.22, -0.36]])
W0 = M([[0.21, -0.34, 0.17, 0.08, -0.12], [-0.45, 0.26, 0.38, -0.19, 0.05], [0.14, 0.31, -0.23, 0.29, -0.41]])
BATCH = [(ID["Hund"], ID["bellt"]), (ID["bellt"], ID["laut"])]
LR, B1, B2, EPS, WD = mp.mpf("0.02"), mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8"), mp.mpf("0.01")


def forward(E, W, tok, tgt):
    x = E[tok][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    gE = [[gx[i] if v == tok else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def batch(E, W):
    ex = [forward(E, W, a, b) for a, b in BATCH]
    n = len(ex)
    return dict(ex=ex, loss=mp.fsum(e["loss"] for e in ex) / n,
                grad_W=[[mp.fsum(e["grad_W"][i][j] for e in ex) / n for j in range(V)] for i in range(D)],
                grad_E=[[mp.fsum(e["grad_E"][v][i] for e in ex) / n for i in range(D)] for v in range(V)])


def adamw(steps):
    P = {"W": [r[:] for r in W0], "E": [r[:] for r in E0]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    states = [dict(P={k: [r[:] for r in P[k]] for k in P}, b=batch(P["E"], P["W"]), rec={})]
    for t in range(1, steps + 1):
        b = states[-1]["b"]
        G = {"W": b["grad_W"], "E": b["grad_E"]}
        rec, new = {}, {}
        for k in P:
            new[k] = [[None] * len(P[k][0]) for _ in P[k]]
            for i in range(len(P[k])):
                for j in range(len(P[k][0])):
                    g, th = G[k][i][j], P[k][i][j]
                    m[k][i][j] = B1 * m[k][i][j] + (1 - B1) * g
                    v[k][i][j] = B2 * v[k][i][j] + (1 - B2) * g * g
                    mh, vh = m[k][i][j] / (1 - B1 ** t), v[k][i][j] / (1 - B2 ** t)
                    upd = LR * mh / (mp.sqrt(vh) + EPS)
                    dec = LR * WD * th
                    new[k][i][j] = th - dec - upd
                    rec[(k, i, j)] = dict(g=g, m=m[k][i][j], v=v[k][i][j], mhat=mh, vhat=vh, update=upd, decay=dec,
                                          nobc=LR * m[k][i][j] / (mp.sqrt(v[k][i][j]) + EPS))
        P = new
        states.append(dict(P={k: [r[:] for r in P[k]] for k in P}, b=batch(P["E"], P["W"]), rec=rec))
    return states


def quantities() -> dict[str, mp.mpf]:
    st = adamw(2)
    s0 = st[0]["b"]
    e1, e2 = s0["ex"]
    q: dict[str, mp.mpf] = {}
    for i in range(D):
        for w in VOCAB:
            q[f"W[{i},{w}]"] = W0[i][ID[w]]
    for w in ("Hund", "bellt"):
        for i in range(D):
            q[f"E[{w},{i}]"] = E0[ID[w]][i]
    for prefix, e in (("", e1), ("example[1].", e2)):
        for w in VOCAB:
            q[f"{prefix}z[{w}]"] = e["z"][ID[w]]
            q[f"{prefix}p[{w}]"] = e["p"][ID[w]]
            q[f"{prefix}grad_z[{w}]"] = e["grad_z"][ID[w]]
        q[f"{prefix}sum_exp"] = e["sum_exp"]
        q[f"{prefix}loss"] = e["loss"]
        for i in range(D):
            q[f"{prefix}grad_x[{i}]"] = e["grad_x"][i]
            for w in VOCAB:
                q[f"{prefix}grad_W[{i},{w}]"] = e["grad_W"][i][ID[w]]
                q[f"{prefix}grad_E[{w},{i}]"] = e["grad_E"][ID[w]][i]
    for t in range(3):
        b = st[t]["b"]
        q[f"adamw[{t}].loss"] = b["loss"]
        q[f"adamw[{t}].p[bellt]"] = b["ex"][0]["p"][ID["bellt"]]
        for i in range(D):
            for w in VOCAB:
                q[f"adamw[{t}].grad_W[{i},{w}]"] = b["grad_W"][i][ID[w]]
                q[f"adamw[{t}].W[{i},{w}]"] = st[t]["P"]["W"][i][ID[w]]
                q[f"adamw[{t}].grad_E[{w},{i}]"] = b["grad_E"][ID[w]][i]
                q[f"adamw[{t}].E[{w},{i}]"] = st[t]["P"]["E"][ID[w]][i]
        for (k, i, j), r in st[t]["rec"].items():
            idx = f"{i},{VOCAB[j]}" if k == "W" else f"{VOCAB[i]},{j}"
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{t}].{f}[{k},{idx}]"] = r[f]
            q[f"nobc:adamw[{t}].update[{k},{idx}]"] = r["nobc"]       # not a symgpt name: the planted slip
    # the batch's mean at the initial model: sgd[0] and adamw[0] are the same state
    for key in list(q):
        if key.startswith("adamw[0]."):
            q["sgd[0]." + key[len("adamw[0]."):]] = q[key]
    q["exp(z[bellt])"] = mp.exp(e1["z"][ID["bellt"]])
    return q


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse(fig: str) -> tuple[str, int | None, bool]:
    """A printed figure as (plain decimal mantissa with '.', power of ten or None, percent?)."""
    f = fig.strip().strip("`").replace("\u2212", "-").replace("\u00a0", " ")
    pct = f.endswith("%")
    f = f.rstrip("%").strip()
    exp = None
    m = re.fullmatch(r"(-?[\d,]+)\s*·\s*10\s*(-?\d+)", f)
    if m:
        f, exp = m.group(1), int(m.group(2))
    return f.replace(",", "."), exp, pct


def correct_rounding(value, printed: str) -> str:
    """The correct rounding of value in the printed figure's own format (German decimal comma)."""
    mant, exp, pct = parse(printed)
    v = value * (100 if pct else 1)
    if exp is not None:
        v = v / mp.mpf(10) ** exp
    places = len(mant.split(".")[1]) if "." in mant else 0
    r = rnd(v, places)
    if r.startswith("-") and all(c in "0." for c in r[1:]) and v == 0:
        r = r[1:]
    out = r.replace(".", ",").replace("-", "\u2212")
    if exp is not None:
        out += f" · 10{str(exp).replace('-', chr(0x2212))}"
    if pct:
        out += " %"
    return out


def same_fig(a: str, b: str) -> bool:
    return parse(a) == parse(b)


# Every figure the document prints: (line of `pdftotext -layout DOC.pdf -`, printed, quantity).
# (pdftotext sets the exponent of the first v₁ cell of Tabelle 4, "−5", alone on the line above, 128.)
# Settings and plain constants (η, β, λ, ε, 0,1, 0,001, 0,19, 0,001999, 1, 20 %, …) are checked below apart.
DOC_FIGURES = [
    (28, "0,46", "E[Hund,0]"), (28, "0,18", "E[Hund,1]"), (28, "−0,22", "E[Hund,2]"),
    (29, "−0,27", "E[bellt,0]"), (29, "0,39", "E[bellt,1]"), (29, "0,14", "E[bellt,2]"),
    (32, "0,21", "W[0,der]"), (32, "−0,34", "W[0,Hund]"), (32, "0,17", "W[0,bellt]"), (32, "0,08", "W[0,laut]"), (32, "−0,12", "W[0,oft]"),
    (33, "−0,45", "W[1,der]"), (33, "0,26", "W[1,Hund]"), (33, "0,38", "W[1,bellt]"), (33, "−0,19", "W[1,laut]"), (33, "0,05", "W[1,oft]"),
    (34, "0,14", "W[2,der]"), (34, "0,31", "W[2,Hund]"), (34, "−0,23", "W[2,bellt]"), (34, "0,29", "W[2,laut]"), (34, "−0,41", "W[2,oft]"),
    (43, "0,46", "E[Hund,0]"), (43, "0,17", "W[0,bellt]"), (43, "0,18", "E[Hund,1]"), (43, "0,38", "W[1,bellt]"),
    (43, "−0,22", "E[Hund,2]"), (43, "−0,23", "W[2,bellt]"), (43, "0,1972", "z[bellt]"),
    (46, "5,0256", "sum_exp"), (46, "5,0889", "example[1].sum_exp"),
    (53, "−0,0152", "z[der]"), (53, "0,1960", "p[der]"), (53, "−0,2126", "example[1].z[der]"), (53, "0,1589", "example[1].p[der]"),
    (54, "−0,1778", "z[Hund]"), (54, "0,1666", "p[Hund]"), (54, "0,2366", "example[1].z[Hund]"), (54, "0,2490", "example[1].p[Hund]"),
    (55, "0,1972", "z[bellt]"), (55, "0,2424", "p[bellt]"), (55, "0,0701", "example[1].z[bellt]"), (55, "0,2108", "example[1].p[bellt]"),
    (56, "−0,0612", "z[laut]"), (56, "0,1827", "p[laut]"), (56, "−0,0551", "example[1].z[laut]"), (56, "0,1860", "example[1].p[laut]"),
    (57, "0,0440", "z[oft]"), (57, "0,2079", "p[oft]"), (57, "−0,0055", "example[1].z[oft]"), (57, "0,1954", "example[1].p[oft]"),
    (59, "24,24 %", "p[bellt]"), (60, "18,60 %", "example[1].p[laut]"),
    (63, "1,4174", "loss"), (65, "0,1860", "example[1].p[laut]"), (65, "1,6820", "example[1].loss"),
    (66, "1,5498", "sgd[0].loss"),
    (75, "0,2424", "p[bellt]"), (75, "−0,7576", "grad_z[bellt]"), (75, "0,1860", "example[1].p[laut]"), (75, "−0,8140", "example[1].grad_z[laut]"),
    (81, "−0,1543", "grad_x[0]"), (81, "−0,3580", "grad_x[1]"), (81, "0,2224", "grad_x[2]"),
    (81, "−0,1040", "example[1].grad_x[0]"), (81, "−0,2378", "example[1].grad_x[1]"), (81, "−0,2653", "example[1].grad_x[2]"),
    (90, "−0,3485", "grad_W[0,bellt]"), (90, "−0,0569", "example[1].grad_W[0,bellt]"), (90, "−0,2027", "sgd[0].grad_W[0,bellt]"),
    (91, "−0,0366", "grad_W[1,bellt]"), (91, "0,0822", "example[1].grad_W[1,bellt]"), (91, "−0,0271", "sgd[0].grad_W[1,bellt]"),
    (92, "0,0337", "grad_W[1,laut]"), (92, "−0,3175", "example[1].grad_W[1,laut]"), (92, "−0,1419", "sgd[0].grad_W[1,laut]"),
    (93, "−0,0412", "grad_W[2,laut]"), (93, "−0,1140", "example[1].grad_W[2,laut]"), (93, "−0,0776", "sgd[0].grad_W[2,laut]"),
    (94, "−0,1543", "grad_E[Hund,0]"), (94, "0", "example[1].grad_E[Hund,0]"), (94, "−0,1543", "sgd[0].grad_E[Hund,0]"),
    (95, "−0,3580", "grad_E[Hund,1]"), (95, "0", "example[1].grad_E[Hund,1]"), (95, "−0,1790", "sgd[0].grad_E[Hund,1]"),
    (115, "−0,2027", "adamw[0].grad_W[0,bellt]"),
    (117, "−0,2027", "adamw[0].grad_W[0,bellt]"), (117, "−0,02027", "adamw[1].m[W,0,bellt]"),
    (118, "−0,2027", "adamw[0].grad_W[0,bellt]"), (118, "4,109 · 10−5", "adamw[1].v[W,0,bellt]"),
    (119, "0,17", "W[0,bellt]"), (119, "0,000034", "adamw[1].decay[W,0,bellt]"), (119, "0,020000", "-adamw[1].update[W,0,bellt]"),
    (119, "0,189966", "adamw[1].W[0,bellt]"),
    (121, "0,17", "W[0,bellt]"), (121, "0,000034", "adamw[1].decay[W,0,bellt]"),
    (122, "0,02", "-adamw[1].update[W,0,bellt]"),
]
STEP_ROWS = {
    1: [(129, "W", "0,bellt", ["−0,2027", "−0,02027", "4,109 · 10−5", "−0,2027", "0,04109", "−0,020000", "0,189966"]),
        (130, "W", "1,laut", ["−0,1419", "−0,01419", "2,013 · 10−5", "−0,1419", "0,02013", "−0,020000", "−0,169962"]),
        (131, "E", "Hund,1", ["−0,1790", "−0,01790", "3,203 · 10−5", "−0,1790", "0,03203", "−0,020000", "0,199965"])],
    2: [(152, "W", "0,bellt", ["−0,2054", "−0,03879", "8,324 · 10−5", "−0,2042", "0,04164", "−0,020006", "0,209934"]),
        (153, "W", "1,laut", ["−0,1312", "−0,02589", "3,733 · 10−5", "−0,1363", "0,01867", "−0,019944", "−0,149984"]),
        (154, "E", "Hund,1", ["−0,1877", "−0,03488", "6,722 · 10−5", "−0,1836", "0,03363", "−0,085073", "0,219943"])],
}
for t, rows in STEP_ROWS.items():
    for line, k, idx, figs in rows:
        param = f"{k}[{idx}]"
        names = [f"adamw[{t - 1}].grad_{param}", f"adamw[{t}].m[{k},{idx}]", f"adamw[{t}].v[{k},{idx}]",
                 f"adamw[{t}].mhat[{k},{idx}]", f"adamw[{t}].vhat[{k},{idx}]", f"adamw[{t}].update[{k},{idx}]",
                 f"adamw[{t}].{param}"]
        DOC_FIGURES += [(line, f, n) for f, n in zip(figs, names)]
DOC_FIGURES += [
    (135, "1,5172", "adamw[1].loss"), (136, "0,2424", "adamw[0].p[bellt]"), (136, "0,2524", "adamw[1].p[bellt]"),
    (144, "−0,01419", "adamw[1].m[W,1,laut]"), (144, "−0,1312", "adamw[1].grad_W[1,laut]"), (144, "−0,02589", "adamw[2].m[W,1,laut]"),
    (145, "−0,02589", "adamw[2].m[W,1,laut]"), (145, "−0,1363", "adamw[2].mhat[W,1,laut]"),
    (146, "−0,169962", "adamw[1].W[1,laut]"), (146, "−0,169962", "adamw[1].W[1,laut]"),
    (146, "−0,019944", "adamw[2].update[W,1,laut]"), (146, "−0,149984", "adamw[2].W[1,laut]"),
    (158, "1,4839", "adamw[2].loss"),
    (170, "1,5498", "adamw[0].loss"), (170, "0,2424", "adamw[0].p[bellt]"),
    (171, "1,5172", "adamw[1].loss"), (171, "0,2524", "adamw[1].p[bellt]"),
    (172, "1,4839", "adamw[2].loss"), (172, "0,2635", "adamw[2].p[bellt]"),
    (174, "0,03", "adamw[0].loss - adamw[1].loss"), (174, "0,03", "adamw[1].loss - adamw[2].loss"),
]

# The eight planted figures: (line, printed) -> what the author's slip computes (checked to give the figure).
PLANTED_MECHANISM = {
    (56, "0,1827"): ("digits swapped", None),
    (65, "1,6820"): ("carried", lambda q: -mp.log(mp.mpf("0.1860"))),
    (81, "−0,2378"): ("sign flip", lambda q: -q["example[1].grad_x[1]"]),
    (91, "−0,0366"): ("transposed", lambda q: q["grad_W[2,Hund]"]),
    (94, "−0,1543"): ("sum for mean", lambda q: q["grad_E[Hund,0]"] + q["example[1].grad_E[Hund,0]"]),
    (131, "0,199965"): ("last digit", None),
    (152, "−0,2042"): ("carried", lambda q: mp.mpf("-0.03879") / mp.mpf("0.19")),
    (154, "−0,085073"): ("no bias correction", lambda q: q["nobc:adamw[2].update[E,Hund,1]"]),
}


def value_of(q, name: str):
    name = name.strip()
    if name.startswith("-") and name[1:] in q:
        return -q[name[1:]]
    if " - " in name:
        a, b = name.split(" - ")
        return q[a.strip()] - q[b.strip()]
    return q[name]


def with_ids(q: dict) -> dict:
    """Every name also with its tokens written as ids (`W[0,bellt]` is `W[0,2]`)."""
    out = dict(q)
    for name, v in q.items():
        alias = re.sub(r"\[([^\[\]]*)\]",
                       lambda m: "[" + ",".join(str(ID[a]) if a in ID else a for a in m.group(1).split(",")) + "]", name)
        out.setdefault(alias, v)
    return out


def key_value(q, cell: str):
    """The first name of a KEY quantity cell that the oracle knows."""
    for n in re.findall(r"`([^`]+)`", cell):
        n = n.replace(" ", "")
        try:
            return n, value_of(q, n)
        except KeyError:
            pass
    return None, None


def main() -> int:
    q = with_ids(quantities())
    bad = 0

    # 1. the KEY's rows
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted_lines = set()
    print("KEY.md rows:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        ref, v = key_value(q, cells[-1])
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if len(cells) == 7:                                   # a planted error
            planted_lines.add((line, printed))
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            shown = cells[4].strip("`")
            right = correct_rounding(v, printed if "·" in printed else shown)
            ok = (same_fig(shown, right) and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and not same_fig(right, printed))
            mech = PLANTED_MECHANISM.get((line, printed))
            if mech and mech[1] is not None:
                ok = ok and same_fig(correct_rounding(mech[1](q), printed), printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = correct_rounding(v, printed)
            note = "correct" if same_fig(right, printed) else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>14}  line {line:>3}  {ref:<32} {mp.nstr(v, 15):<22} rounds to {right:<14} {note}")
    if len([r for r in rows if len(r.strip().strip('|').split('|')) == 7]) != 8:
        print("  KEY DOES NOT LIST EXACTLY 8 PLANTED ERRORS")
        bad += 1

    # 2. every figure of the document
    print("document figures:")
    n_ok = n_planted = 0
    for line, printed, name in DOC_FIGURES:
        v = value_of(q, name)
        right = correct_rounding(v, printed)
        is_planted = (line, printed) in PLANTED_MECHANISM and not (
            (line, printed) == (94, "−0,1543") and name == "grad_E[Hund,0]")
        if is_planted:
            n_planted += 1
            if same_fig(right, printed):
                print(f"  planted {printed} at line {line} is in fact correct for {name}")
                bad += 1
            if (line, printed) not in planted_lines:
                print(f"  planted {printed} at line {line} is missing from KEY.md")
                bad += 1
        elif same_fig(right, printed):
            n_ok += 1
        else:
            print(f"  WRONG unplanted figure {printed} at line {line}: {name} = {mp.nstr(v, 12)} rounds to {right}")
            bad += 1
    # settings printed in the text
    for printed, val in (("0,02", LR), ("0,9", B1), ("0,999", B2), ("0,01", WD), ("0,19", 1 - B1 ** 2),
                         ("0,001999", 1 - B2 ** 2), ("0,1", 1 - B1), ("0,001", 1 - B2), ("20 %", mp.mpf(1) / V)):
        if not same_fig(correct_rounding(val, printed), printed):
            print(f"  WRONG setting {printed}")
            bad += 1
    # the worked lines that the document writes with '=' close on their printed operands
    chains = [
        (mp.mpf("0.46") * mp.mpf("0.17") + mp.mpf("0.18") * mp.mpf("0.38") + mp.mpf("-0.22") * mp.mpf("-0.23"), "0,1972"),
        (mp.mpf("0.2424") - 1, "−0,7576"), (mp.mpf("0.1860") - 1, "−0,8140"),
        (mp.mpf("0.1") * mp.mpf("-0.2027"), "−0,02027"), (mp.mpf("0.001") * mp.mpf("0.2027") ** 2, "4,109 · 10−5"),
        (mp.mpf("0.17") - mp.mpf("0.000034") + mp.mpf("0.020000"), "0,189966"),
        (mp.mpf("0.02") * mp.mpf("0.01") * mp.mpf("0.17"), "0,000034"),
        (mp.mpf("0.9") * mp.mpf("-0.01419") + mp.mpf("0.1") * mp.mpf("-0.1312"), "−0,02589"),
        (mp.mpf("-0.02589") / mp.mpf("0.19"), "−0,1363"),
        (mp.mpf("-0.169962") - mp.mpf("0.02") * mp.mpf("0.01") * mp.mpf("-0.169962") + mp.mpf("0.019944"), "−0,149984"),
    ]
    for val, fig in chains:
        if not same_fig(correct_rounding(val, fig), fig):
            print(f"  worked line does not close: {mp.nstr(val, 12)} vs {fig}")
            bad += 1
    print(f"  {n_ok} correct figures, {n_planted} planted figures, {len(DOC_FIGURES)} listed")
    print("all key rows and document figures agree with the oracle" if not bad else f"{bad} disagreements")
    assert not bad, f"{bad} disagreements between KEY.md / DOC and the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
