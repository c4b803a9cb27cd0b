#!/usr/bin/env python3
"""Independent check of ru-html-bigram-adamw3: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value; the key's "exact value" and
                         # "correct rounding" columns must agree with it; then every figure of DOC.html
                         # listed in FIGURES must stand on its line and be the correct rounding (or be planted)

Model (SPEC.toml): bigram, vocabulary кот пьёт молоко спит на диване (ids 0..5), d = 3,
input пьёт, target молоко.  x = E[пьёт], z = x·W, p = softmax(z), loss = −ln p[молоко],
grad_z = p − y, grad_W = outer(x, p − y), grad_x = W·(p − y) (only E's row пьёт gets it).
AdamW as torch.optim.AdamW: lr 0.05, betas 0.9 / 0.999, eps 1e-8, decoupled weight decay 0.01 on
every parameter (W and all of E), three steps.  Names as symgpt writes them: adamw[k].m/v/mhat/vhat/
update/decay are those of the k-th step, adamw[k].W / .E / .loss / .p the model after k steps,
adamw[k].grad_W the gradient at that model (the one step k+1 uses).
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["кот", "пьёт", "молоко", "спит", "на", "диване"]
TOK, TGT = 1, 2


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E0 = M([[0.25, -0.12, 0.08], [0.31, 0.47, -0.22], [-0.18, 0.06, 0.35],
        [0.12, -0.41, 0.27], [-0.05, 0.19, -0.33], [0.44, 0.02, 0.16]])
W0 = M([[0.14, -0.26, 0.09, 0.33, -0.17, 0.21],
        [-0.08, 0.36, -0.15, 0.12, 0.28, -0.31],
        [0.23, 0.05, -0.19, -0.27, 0.11, 0.07]])
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.05", "0.9", "0.999", "1e-8", "0.01"))


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(3)) for j in range(6)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(6)]
    gW = [[x[i] * gz[j] for j in range(6)] for i in range(3)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(6)) for i in range(3)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(3)] for v in range(6)]
    return dict(E=E, W=W, x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW, grad_x=gx,
                grad_E=gE)


def train(steps=3):
    """The states after 0..steps AdamW updates and, for each step k, its per-entry record."""
    states, records = [forward(E0, W0)], [None]
    mom = {"W": [[mp.mpf(0)] * 6 for _ in range(3)], "E": [[mp.mpf(0)] * 3 for _ in range(6)]}
    sec = {"W": [[mp.mpf(0)] * 6 for _ in range(3)], "E": [[mp.mpf(0)] * 3 for _ in range(6)]}
    for k in range(1, steps + 1):
        s, rec = states[-1], {}
        new = {"W": [[None] * 6 for _ in range(3)], "E": [[None] * 3 for _ in range(6)]}
        for name, P, G in (("W", s["W"], s["grad_W"]), ("E", s["E"], s["grad_E"])):
            for i in range(len(P)):
                for j in range(len(P[0])):
                    g, th = G[i][j], P[i][j]
                    m = mom[name][i][j] = B1 * mom[name][i][j] + (1 - B1) * g
                    v = sec[name][i][j] = B2 * sec[name][i][j] + (1 - B2) * g * g
                    mh, vh = m / (1 - B1 ** k), v / (1 - B2 ** k)
                    upd, dec = LR * mh / (mp.sqrt(vh) + EPS), LR * WD * th
                    new[name][i][j] = th - dec - upd
                    rec[(name, i, j)] = dict(g=g, m=m, v=v, mhat=mh, vhat=vh, update=upd, decay=dec)
        records.append(rec)
        states.append(forward(new["E"], new["W"]))
    return states, records


def values():
    """Every quantity DOC.html prints, by its symgpt name."""
    st, rec = train(3)
    s0, out = st[0], {}
    for v, t in enumerate(VOCAB):
        out[f"z[{t}]"] = s0["z"][v]
        out[f"p[{t}]"] = s0["p"][v]
        out[f"grad_z[{t}]"] = s0["grad_z"][v]
        for i in range(3):
            out[f"W[{i},{t}]"] = W0[i][v]
            out[f"grad_W[{i},{t}]"] = s0["grad_W"][i][v]
    for i in range(3):
        out[f"x[{i}]"] = s0["x"][i]
        out[f"E[пьёт,{i}]"] = E0[TOK][i]
        out[f"grad_x[{i}]"] = s0["grad_x"][i]
        out[f"grad_E[пьёт,{i}]"] = s0["grad_E"][TOK][i]
    out["sum_exp"], out["loss"] = s0["sum_exp"], s0["loss"]
    tracked = {("W", 1, 2): "W,1,молоко", ("W", 0, 3): "W,0,спит", ("E", 1, 2): "E,пьёт,2"}
    for k in range(1, 4):
        out[f"adamw[{k}].loss"] = st[k]["loss"]
        out[f"adamw[{k}].p[молоко]"] = st[k]["p"][TGT]
        for (name, i, j), label in tracked.items():
            r = rec[k][(name, i, j)]
            for q in ("m", "v", "mhat", "vhat", "update", "decay"):
                out[f"adamw[{k}].{q}[{label}]"] = r[q]
            idx = label.split(",", 1)[1]
            out[f"adamw[{k}].{name}[{idx}]"] = st[k][name][i][j]
            out[f"adamw[{k - 1}].grad_{name}[{idx}]"] = r["g"]
    # the step-0 names are the unprefixed ones too
    for key in [k for k in out if k.startswith("adamw[0].")]:
        out[key[len("adamw[0]."):]] = out[key]
    return out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse(text: str):
    """A printed figure (decimal comma, Unicode minus, optional '%' or '·10<sup>−n</sup>') →
    (plain decimal mantissa, scale exponent, percent?)."""
    t = text.replace("−", "-").replace(",", ".").strip()
    pct = t.endswith("%")
    t = t.rstrip("%").strip()
    exp = 0
    m = re.fullmatch(r"(-?[0-9.]+)·10<sup>(-?\d+)</sup>", t)
    if m:
        t, exp = m.group(1), int(m.group(2))
    return t, exp, pct


def correct_rounding(v, printed: str) -> str:
    """The correct rounding of v at the precision and in the form `printed` shows."""
    t, exp, pct = parse(printed)
    if pct:
        v = v * 100
    places = len(t.split(".")[1]) if "." in t else 0
    r = rnd(v / mp.mpf(10) ** exp, places)
    r = r.replace("-", "−").replace(".", ",")
    if exp:
        r += f"·10<sup>{str(exp).replace('-', '−')}</sup>"
    return r + (" %" if pct else "")


# Every figure of a model quantity DOC.html prints: (line, printed, quantity).  Settings (η, β, ε, λ),
# 1 − β₁² and prose facts (1/6 ≈ 0,1667) are left out; they are true as printed.
FIGURES = [
    # BEGIN FIGURES
    (33, '0,31', 'x[0]'),
    (33, '0,47', 'x[1]'),
    (33, '−0,22', 'x[2]'),
    (37, '0,14', 'W[0,кот]'),
    (37, '−0,26', 'W[0,пьёт]'),
    (37, '0,09', 'W[0,молоко]'),
    (37, '0,33', 'W[0,спит]'),
    (37, '−0,17', 'W[0,на]'),
    (37, '0,21', 'W[0,диване]'),
    (38, '−0,08', 'W[1,кот]'),
    (38, '0,36', 'W[1,пьёт]'),
    (38, '−0,15', 'W[1,молоко]'),
    (38, '0,12', 'W[1,спит]'),
    (38, '0,28', 'W[1,на]'),
    (38, '−0,31', 'W[1,диване]'),
    (39, '0,23', 'W[2,кот]'),
    (39, '0,05', 'W[2,пьёт]'),
    (39, '−0,19', 'W[2,молоко]'),
    (39, '−0,27', 'W[2,спит]'),
    (39, '0,11', 'W[2,на]'),
    (39, '0,07', 'W[2,диване]'),
    (45, '0,31', 'x[0]'),
    (45, '0,09', 'W[0,молоко]'),
    (45, '0,47', 'x[1]'),
    (45, '−0,15', 'W[1,молоко]'),
    (45, '−0,22', 'x[2]'),
    (45, '−0,19', 'W[2,молоко]'),
    (45, '−0,0008', 'z[молоко]'),
    (46, '6,2445', 'sum_exp'),
    (50, '−0,0448', 'z[кот]'),
    (50, '0,1531', 'p[кот]'),
    (51, '0,0776', 'z[пьёт]'),
    (51, '0,1731', 'p[пьёт]'),
    (52, '−0,0008', 'z[молоко]'),
    (52, '0,1600', 'p[молоко]'),
    (53, '0,2181', 'z[спит]'),
    (53, '0,1929', 'p[спит]'),
    (54, '0,0547', 'z[на]'),
    (54, '0,1691', 'p[на]'),
    (55, '−0,0960', 'z[диване]'),
    (55, '0,1455', 'p[диване]'),
    (57, '0,1600', 'p[молоко]'),
    (57, '16,0 %', 'p[молоко]'),
    (60, '0,1600', 'p[молоко]'),
    (60, '1,8326', 'loss'),
    (65, '0,1600', 'p[молоко]'),
    (65, '−0,8400', 'grad_z[молоко]'),
    (72, '−0,2604', 'grad_W[0,молоко]'),
    (72, '0,0617', 'grad_W[0,спит]'),
    (73, '−0,3948', 'grad_W[1,молоко]'),
    (73, '0,0936', 'grad_W[1,спит]'),
    (74, '0,1848', 'grad_W[2,молоко]'),
    (74, '−0,0438', 'grad_W[2,спит]'),
    (79, '−0,0316', 'grad_x[0]'),
    (80, '−0,2022', 'grad_x[1]'),
    (81, '0,1785', 'grad_x[2]'),
    (96, '−0,15', 'W[1,молоко]'),
    (97, '0,33', 'W[0,спит]'),
    (98, '−0,22', 'E[пьёт,2]'),
    (107, '−0,394794', 'grad_W[1,молоко]'),
    (107, '−0,039479', 'adamw[1].m[W,1,молоко]'),
    (107, '1,5586·10<sup>−4</sup>', 'adamw[1].v[W,1,молоко]'),
    (107, '−0,394794', 'adamw[1].mhat[W,1,молоко]'),
    (107, '0,155862', 'adamw[1].vhat[W,1,молоко]'),
    (107, '−0,050000', 'adamw[1].update[W,1,молоко]'),
    (107, '−0,099925', 'adamw[1].W[1,молоко]'),
    (108, '0,061743', 'grad_W[0,спит]'),
    (108, '0,006174', 'adamw[1].m[W,0,спит]'),
    (108, '3,8122·10<sup>−6</sup>', 'adamw[1].v[W,0,спит]'),
    (108, '0,061743', 'adamw[1].mhat[W,0,спит]'),
    (108, '0,003812', 'adamw[1].vhat[W,0,спит]'),
    (108, '0,050000', 'adamw[1].update[W,0,спит]'),
    (108, '0,279835', 'adamw[1].W[0,спит]'),
    (109, '0,178483', 'grad_E[пьёт,2]'),
    (109, '0,017848', 'adamw[1].m[E,пьёт,2]'),
    (109, '3,1856·10<sup>−5</sup>', 'adamw[1].v[E,пьёт,2]'),
    (109, '0,178483', 'adamw[1].mhat[E,пьёт,2]'),
    (109, '0,031856', 'adamw[1].vhat[E,пьёт,2]'),
    (109, '0,050000', 'adamw[1].update[E,пьёт,2]'),
    (109, '−0,269890', 'adamw[1].E[пьёт,2]'),
    (111, '−0,15', 'W[1,молоко]'),
    (111, '−0,000075', 'adamw[1].decay[W,1,молоко]'),
    (112, '1,7251', 'adamw[1].loss'),
    (116, '−0,039479', 'adamw[1].m[W,1,молоко]'),
    (116, '−0,344981', 'adamw[1].grad_W[1,молоко]'),
    (116, '−0,070029', 'adamw[2].m[W,1,молоко]'),
    (121, '−0,344981', 'adamw[1].grad_W[1,молоко]'),
    (121, '−0,070030', 'adamw[2].m[W,1,молоко]'),
    (121, '2,7472·10<sup>−4</sup>', 'adamw[2].v[W,1,молоко]'),
    (121, '−0,368577', 'adamw[2].mhat[W,1,молоко]'),
    (121, '0,137428', 'adamw[2].vhat[W,1,молоко]'),
    (121, '−0,049712', 'adamw[2].update[W,1,молоко]'),
    (121, '−0,050213', 'adamw[2].W[1,молоко]'),
    (122, '0,072010', 'adamw[1].grad_W[0,спит]'),
    (122, '0,012758', 'adamw[2].m[W,0,спит]'),
    (122, '8,9938·10<sup>−6</sup>', 'adamw[2].v[W,0,спит]'),
    (122, '0,067147', 'adamw[2].mhat[W,0,спит]'),
    (122, '0,004499', 'adamw[2].vhat[W,0,спит]'),
    (122, '0,212703', 'adamw[2].update[W,0,спит]'),
    (122, '0,229642', 'adamw[2].W[0,спит]'),
    (123, '0,254937', 'adamw[1].grad_E[пьёт,2]'),
    (123, '0,041557', 'adamw[2].m[E,пьёт,2]'),
    (123, '9,6817·10<sup>−5</sup>', 'adamw[2].v[E,пьёт,2]'),
    (123, '0,218722', 'adamw[2].mhat[E,пьёт,2]'),
    (123, '0,048433', 'adamw[2].vhat[E,пьёт,2]'),
    (123, '0,049693', 'adamw[2].update[E,пьёт,2]'),
    (123, '−0,319448', 'adamw[2].E[пьёт,2]'),
    (125, '1,6139', 'adamw[2].loss'),
    (131, '−0,298107', 'adamw[2].grad_W[1,молоко]'),
    (131, '−0,092837', 'adamw[3].m[W,1,молоко]'),
    (131, '3,6331·10<sup>−4</sup>', 'adamw[3].v[W,1,молоко]'),
    (131, '−0,342573', 'adamw[3].mhat[W,1,молоко]'),
    (131, '0,121225', 'adamw[3].vhat[W,1,молоко]'),
    (131, '−0,049196', 'adamw[3].update[W,1,молоко]'),
    (131, '−0,000942', 'adamw[3].W[1,молоко]'),
    (132, '0,080900', 'adamw[2].grad_W[0,спит]'),
    (132, '0,019572', 'adamw[3].m[W,0,спит]'),
    (132, '1,5530·10<sup>−5</sup>', 'adamw[3].v[W,0,спит]'),
    (132, '0,072222', 'adamw[3].mhat[W,0,спит]'),
    (132, '0,121225', 'adamw[3].vhat[W,0,спит]'),
    (132, '0,050165', 'adamw[3].update[W,0,спит]'),
    (132, '0,179362', 'adamw[3].W[0,спит]'),
    (133, '0,326765', 'adamw[2].grad_E[пьёт,2]'),
    (133, '0,070078', 'adamw[3].m[E,пьёт,2]'),
    (133, '2,0350·10<sup>−4</sup>', 'adamw[3].v[E,пьёт,2]'),
    (133, '0,258590', 'adamw[3].mhat[E,пьёт,2]'),
    (133, '0,067900', 'adamw[3].vhat[E,пьёт,2]'),
    (133, '0,049618', 'adamw[3].update[E,пьёт,2]'),
    (133, '−0,368907', 'adamw[3].E[пьёт,2]'),
    (135, '1,4986', 'adamw[3].loss'),
    (138, '16,0 %', 'p[молоко]'),
    (138, '0,2234', 'adamw[3].p[молоко]'),
    (138, '22,3 %', 'adamw[3].p[молоко]'),
    # END FIGURES
]


def main() -> int:
    vals = values()
    bad = 0
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    planted = set()
    print("KEY.md:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        for n in names:                       # alternatives must be the same value
            if n in vals and vals[n] != vals[ref]:
                print(f"  {printed:>12}  ALTERNATIVE {n} DIFFERS")
                bad += 1
        v = vals[ref]
        if len(cells) == 7:
            planted.add((int(cells[1]), printed))
            shown = cells[4].strip("`")
            right = correct_rounding(v, shown)
            exact_txt = cells[3].rstrip("…").replace("−", "-")
            exact = mp.mpf(exact_txt)
            vv = v * (100 if shown.endswith("%") else 1)
            ok = shown == right and abs(exact - vv) <= mp.mpf("1e-10") * abs(vv) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = correct_rounding(v, printed)
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        shownv = v * (100 if printed.endswith("%") else 1)
        print(f"  {printed:>12}  {ref:<28} {mp.nstr(shownv, 15):<22} rounds to {right:<12} {note}")

    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    nplanted = nfig = 0
    for line, printed, ref in FIGURES:
        nfig += 1
        if printed not in doc[line - 1]:
            print(f"  line {line}: {printed} NOT ON ITS LINE")
            bad += 1
            continue
        right = correct_rounding(vals[ref], printed)
        if (line, printed) in planted:
            nplanted += 1
            if right == printed:
                print(f"  line {line}: planted {printed} IS THE CORRECT ROUNDING")
                bad += 1
        elif right != printed:
            print(f"  line {line}: {printed} for {ref} SHOULD BE {right}")
            bad += 1
    if nplanted != len(planted):
        print(f"  ONLY {nplanted} OF THE {len(planted)} PLANTED FIGURES ARE IN FIGURES")
        bad += 1
    print(f"DOC.html: {nfig} figures of model quantities, {nplanted} planted, the rest correct roundings"
          if not bad else f"{bad} problems")
    assert bad == 0, f"{bad} problems"
    return 0


if __name__ == "__main__":
    sys.exit(main())
