#!/usr/bin/env python3
"""Independent exact values for da-pdf-bigram-batch2-adamw2 (plain mpmath at 50 digits, no symgpt).

    python oracle.py     # every KEY.md row: quantity, exact value, correct rounding, and a check of
                         # the key's columns; then every model figure of DOC.pdf (list FIGURES below)

Model (SPEC.toml): bigram, vocab hunden katten løber sover hjem, d = 2, x = E[token], z = x·W,
p = softmax(z), loss = -ln p[target].  Mini-batch of two pairs: example 0 = hunden -> løber
(the unprefixed names), example 1 = katten -> sover (`example[1].…`).  The batch loss and
gradient are the means over the two (`sgd[0].loss`, `sgd[0].grad_W[…]`).  AdamW as
torch.optim.AdamW (decoupled decay on every parameter, E included), lr 0.05, betas 0.9/0.999,
eps 1e-8, weight decay 0.01, two steps on the batch-mean gradient; `adamw[k].…` is the model
after k updates, `adamw[k].m/v/mhat/vhat/update/decay[P,i,j]` the k-th update's moments.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["hunden", "katten", "løber", "sover", "hjem"]
TOK = {w: i for i, w in enumerate(VOCAB)}
F = lambda s: mp.mpf(str(s))

E0 = [[F(a) for a in r] for r in [[0.3, -0.2], [-0.1, 0.4], [0.2, 0.1], [0.0, -0.3], [0.5, 0.25]]]
W0 = [[F(a) for a in r] for r in [[0.2, -0.1, 0.4, 0.15, -0.3], [0.1, 0.35, -0.2, 0.3, 0.05]]]
BATCH = [(TOK["hunden"], TOK["løber"]), (TOK["katten"], TOK["sover"])]
LR, B1, B2, EPS, WD = F("0.05"), F("0.9"), F("0.999"), F("1e-8"), F("0.01")


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W, tok, tgt):
    V, d = len(W[0]), len(W)
    x = E[tok][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    S = mp.fsum(mp.exp(a) for a in z)
    p = [mp.exp(a) / S for a in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    gE = [[gx[i] if v == tok else mp.mpf(0) for i in range(d)] for v in range(len(E))]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def batch(E, W):
    ex = [forward(E, W, t, y) for t, y in BATCH]
    n = len(ex)
    mean = lambda key: [[mp.fsum(e[key][i][j] for e in ex) / n for j in range(len(ex[0][key][0]))]
                        for i in range(len(ex[0][key]))]
    return ex, mp.fsum(e["loss"] for e in ex) / n, {"W": mean("grad_W"), "E": mean("grad_E")}


def quantities():
    q = {}
    ex, L, G = batch(E0, W0)
    for b, e in enumerate(ex):
        pre = "" if b == 0 else f"example[{b}]."
        for v, w in enumerate(VOCAB):
            q[f"{pre}z[{w}]"] = e["z"][v]
            q[f"{pre}p[{w}]"] = e["p"][v]
            q[f"{pre}grad_z[{w}]"] = e["grad_z"][v]
            for i in range(2):
                q[f"{pre}grad_W[{i},{w}]"] = e["grad_W"][i][v]
                q[f"{pre}grad_E[{w},{i}]"] = e["grad_E"][v][i]
        for i in range(2):
            q[f"{pre}grad_x[{i}]"] = e["grad_x"][i]
        q[f"{pre}sum_exp"] = e["sum_exp"]
        q[f"{pre}loss"] = e["loss"]
    q["sgd[0].loss"] = L
    for v, w in enumerate(VOCAB):
        for i in range(2):
            q[f"sgd[0].grad_W[{i},{w}]"] = G["W"][i][v]
            q[f"sgd[0].grad_E[{w},{i}]"] = G["E"][v][i]
            q[f"W[{i},{w}]"] = W0[i][v]
            q[f"E[{w},{i}]"] = E0[v][i]
    # two AdamW steps (torch.optim.AdamW): every parameter, decoupled decay
    P = {"W": [r[:] for r in W0], "E": [r[:] for r in E0]}
    m = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    v = {k: [[mp.mpf(0)] * len(P[k][0]) for _ in P[k]] for k in P}
    for t in (1, 2):
        new = {}
        for k in ("W", "E"):
            new[k] = [[None] * len(P[k][0]) for _ in P[k]]
            for i in range(len(P[k])):
                for j in range(len(P[k][0])):
                    g, th = G[k][i][j], P[k][i][j]
                    m[k][i][j] = B1 * m[k][i][j] + (1 - B1) * g
                    v[k][i][j] = B2 * v[k][i][j] + (1 - B2) * g * g
                    mh, vh = m[k][i][j] / (1 - B1 ** t), v[k][i][j] / (1 - B2 ** t)
                    up = LR * mh / (mp.sqrt(vh) + EPS)
                    dec = LR * WD * th
                    new[k][i][j] = th - dec - up
                    # the index as symgpt names it: W[i, token], E[token, i]
                    idx = f"{i},{VOCAB[j]}" if k == "W" else f"{VOCAB[i]},{j}"
                    for nm, val in (("m", m[k][i][j]), ("v", v[k][i][j]), ("mhat", mh), ("vhat", vh),
                                    ("update", up), ("decay", dec)):
                        q[f"adamw[{t}].{nm}[{k},{idx}]"] = val
                    q[f"adamw[{t}].{k}[{idx}]"] = new[k][i][j]
                    q[f"adamw[{t - 1}].grad_{k}[{idx}]"] = g
        P = new
        ex, L, G = batch(P["E"], P["W"])
        q[f"adamw[{t}].loss"] = L
    return q


# Every figure of a model quantity in DOC.pdf (pdftotext -layout line, printed text, quantity).
# Planted figures are marked with the index of their KEY row; the others must be correct.
FIGURES = [
    (23, "0,3", "E[hunden,0]"), (23, "−0,2", "E[hunden,1]"), (23, "−0,1", "E[katten,0]"), (23, "0,4", "E[katten,1]"),
    (26, "0,2", "W[0,hunden]"), (26, "−0,1", "W[0,katten]"), (26, "0,4", "W[0,løber]"), (26, "0,15", "W[0,sover]"),
    (26, "−0,3", "W[0,hjem]"), (28, "0,1", "W[1,hunden]"), (28, "0,35", "W[1,katten]"), (28, "−0,2", "W[1,løber]"),
    (28, "0,3", "W[1,sover]"), (28, "0,05", "W[1,hjem]"),
    (40, "0,3", "E[hunden,0]"), (40, "0,4", "W[0,løber]"), (40, "−0,2", "E[hunden,1]"), (40, "−0,2", "W[1,løber]"),
    (40, "0,1600", "z[løber]"),
    (45, "0,0400", "z[hunden]"), (45, "0,2078", "p[hunden]"), (46, "−0,1000", "z[katten]"), (46, "0,1806", "p[katten]"),
    (47, "0,1600", "z[løber]"), (47, "0,2343", "p[løber]"), (48, "−0,0150", "z[sover]"), (48, "0,1967", "p[sover]"),
    (49, "−0,1000", "z[hjem]"), (49, "0,1806", "p[hjem]"),
    (54, "5,0091", "sum_exp"), (54, "0,2343 %", "p[løber]", "planted"),
    (57, "1,4513", "loss"),
    (64, "0,0200", "example[1].z[hunden]"), (64, "0,1500", "example[1].z[katten]"),
    (64, "−0,1200", "example[1].z[løber]"), (64, "0,1050", "example[1].z[sover]"), (64, "0,0500", "example[1].z[hjem]"),
    (66, "0,1950", "example[1].p[hunden]"), (66, "0,2221", "example[1].p[katten]"),
    (66, "0,1696", "example[1].p[løber]"), (66, "0,2123", "example[1].p[sover]"), (66, "0,2010", "example[1].p[hjem]"),
    (68, "5,2390", "example[1].sum_exp", "planted"), (68, "21,23 %", "example[1].p[sover]"),
    (69, "1,5496", "example[1].loss"),
    (70, "1,4513", "loss"), (70, "1,5496", "example[1].loss"), (70, "1,5005", "sgd[0].loss", "planted"),
    (77, "0,2343", "p[løber]"), (77, "−0,7657", "grad_z[løber]"), (77, "−0,7877", "example[1].grad_z[sover]"),
    (88, "0,0542", "grad_W[0,katten]"), (88, "−0,0222", "example[1].grad_W[0,katten]"),
    (88, "0,0182", "sgd[0].grad_W[0,katten]", "planted"),
    (89, "−0,2297", "grad_W[0,løber]"), (89, "−0,0170", "example[1].grad_W[0,løber]"),
    (89, "−0,1233", "sgd[0].grad_W[0,løber]"),
    (90, "−0,0393", "grad_W[1,sover]"), (90, "−0,3151", "example[1].grad_W[1,sover]"),
    (90, "−0,1772", "sgd[0].grad_W[1,sover]"),
    (91, "0", "grad_E[katten,1]"), (91, "0,1629", "example[1].grad_E[katten,1]", "planted"),
    (91, "−0,0815", "sgd[0].grad_E[katten,1]"),
    (113, "−0,123336", "sgd[0].grad_W[0,løber]"),
    (115, "−0,123336", "sgd[0].grad_W[0,løber]"), (115, "−0,012334", "adamw[1].m[W,0,løber]"),
    (117, "0,4", "W[0,løber]"), (117, "0,000200", "adamw[1].decay[W,0,løber]"),
    (118, "0,4", "W[0,løber]"), (118, "0,000200", "adamw[1].decay[W,0,løber]"),
    (118, "−0,050000", "adamw[1].update[W,0,løber]"), (118, "0,449800", "adamw[1].W[0,løber]"),
    (124, "−0,012334", "adamw[1].m[W,0,løber]"), (124, "1,5212·10−5", "adamw[1].v[W,0,løber]"),
    (124, "−0,123336", "adamw[1].mhat[W,0,løber]"), (124, "0,015212", "adamw[1].vhat[W,0,løber]"),
    (124, "−0,050000", "adamw[1].update[W,0,løber]"), (124, "0,449800", "adamw[1].W[0,løber]"),
    (125, "−0,017720", "adamw[1].m[W,1,sover]"), (125, "3,1400·10−5", "adamw[1].v[W,1,sover]"),
    (125, "−0,177199", "adamw[1].mhat[W,1,sover]"), (125, "0,031400", "adamw[1].vhat[W,1,sover]"),
    (125, "−0,050000", "adamw[1].update[W,1,sover]"), (125, "0,349850", "adamw[1].W[1,sover]"),
    (126, "−0,008146", "adamw[1].m[E,katten,1]"), (126, "6,6358·10−6", "adamw[1].v[E,katten,1]"),
    (126, "−0,081460", "adamw[1].mhat[E,katten,1]"), (126, "0,006636", "adamw[1].vhat[E,katten,1]"),
    (126, "−0,050000", "adamw[1].update[E,katten,1]"), (126, "0,450000", "adamw[1].E[katten,1]", "planted"),
    (130, "1,4453", "adamw[1].loss"),
    (137, "−0,198473", "adamw[1].grad_W[1,sover]"),
    (138, "−0,017720", "adamw[1].m[W,1,sover]"), (138, "−0,198473", "adamw[1].grad_W[1,sover]"),
    (138, "−0,035795", "adamw[2].m[W,1,sover]"),
    (139, "0,000175", "adamw[2].decay[W,1,sover]"),
    (141, "0,349850", "adamw[1].W[1,sover]"), (141, "0,000175", "adamw[2].decay[W,1,sover]"),
    (141, "0,050067", "-adamw[2].update[W,1,sover]"), (141, "0,399742", "adamw[2].W[1,sover]"),
    (144, "−0,024653", "adamw[2].m[W,0,løber]"), (144, "−0,035795", "adamw[2].m[W,1,sover]"),
    (144, "−0,019221", "adamw[2].m[E,katten,1]"),
    (145, "3,3563·10−5", "adamw[2].v[W,0,løber]"), (145, "7,0760·10−5", "adamw[2].v[W,1,sover]"),
    (145, "2,0765·10−5", "adamw[2].v[E,katten,1]"),
    (146, "−0,246525", "adamw[2].mhat[W,0,løber]", "planted"), (146, "−0,188396", "adamw[2].mhat[W,1,sover]"),
    (146, "−0,101162", "adamw[2].mhat[E,katten,1]"),
    (147, "0,016790", "adamw[2].vhat[W,0,løber]"), (147, "0,035398", "adamw[2].vhat[W,1,sover]"),
    (147, "0,010388", "adamw[2].vhat[E,katten,1]"),
    (148, "−0,050067", "adamw[2].update[W,0,løber]"), (148, "−0,050067", "adamw[2].update[W,1,sover]"),
    (148, "−0,049629", "adamw[2].update[E,katten,1]", "planted"),
    (149, "0,499642", "adamw[2].W[0,løber]"), (149, "0,399742", "adamw[2].W[1,sover]"),
    (149, "0,499203", "adamw[2].E[katten,1]"),
    (153, "1,3839", "adamw[2].loss"),
]


def parse(printed: str):
    """(mantissa text in '.' form, power of ten, percent?) of a figure as the PDF prints it."""
    s = printed.replace("−", "-").replace(",", ".").strip()
    pct = s.endswith("%")
    s = s.rstrip("%").strip()
    exp = 0
    mt = re.fullmatch(r"(-?[0-9.]+)·10(-?[0-9]+)", s)
    if mt:
        s, exp = mt.group(1), int(mt.group(2))
    return s, exp, pct


def correct(value, printed: str, like: str | None = None) -> str:
    """The correct rounding of value in the format of `like` (default: printed), written as the PDF does."""
    s, exp, pct = parse(like or printed)
    x = value * 100 if pct else value / mp.mpf(10) ** exp
    places = len(s.split(".")[1]) if "." in s else 0
    out = rnd(x, places)
    if out.startswith("-") and set(out[1:]) <= set("0."):
        out = out[1:]
    out = out.replace("-", "−").replace(".", ",")
    if exp:
        out += f"·10{str(exp).replace('-', '−')}"
    return out + (" %" if pct else "")


def value_of(q, ref: str):
    return -q[ref[1:]] if ref.startswith("-") else q[ref]


def pdf_lines():
    pdf = HERE / "DOC.pdf"
    if not pdf.is_file() or not shutil.which("pdftotext"):
        return None
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\n")


def main() -> int:
    q = quantities()
    bad = 0
    lines = pdf_lines()

    print("KEY.md rows:")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted = [r for r in rows if len(r.strip().strip("|").split("|")) == 7]
    sample = [r for r in rows if len(r.strip().strip("|").split("|")) == 4]
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref]
        notes = []
        if lines is not None and (line > len(lines) or printed not in lines[line - 1]):
            notes.append(f"NOT ON LINE {line}")
        if len(cells) == 7:
            shown = cells[4].strip("`")
            right = correct(v, printed, like=shown)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            vv = v * 100 if parse(shown)[2] else v
            if right != shown:
                notes.append(f"KEY ROUNDING {shown} != {right}")
            if abs(exact - vv) > mp.mpf("1e-10") * abs(vv):
                notes.append("KEY EXACT VALUE DISAGREES")
            if right == printed or correct(v, printed) == printed:
                notes.append("PRINTED IS NOT WRONG")
            kind = "planted"
        else:
            right = correct(v, printed)
            if right != printed:
                notes.append(f"NOT THE CORRECT ROUNDING ({right})")
            kind = "correct"
        bad += bool(notes)
        print(f"  {printed:>12}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<12} "
              f"{kind}{'; ' + '; '.join(notes) if notes else ', key agrees'}")
    if len(planted) != 8 or len(sample) != 10:
        print(f"  KEY HAS {len(planted)} PLANTED AND {len(sample)} SAMPLE ROWS (want 8 and 10)")
        bad += 1

    print("\nevery model figure of the document:")
    n_planted = 0
    for fig in FIGURES:
        line, printed, ref = fig[:3]
        is_planted = len(fig) > 3
        v = value_of(q, ref)
        right = correct(v, printed)
        notes = []
        if lines is not None and printed not in lines[line - 1]:
            notes.append(f"NOT ON LINE {line}")
        if is_planted:
            n_planted += 1
            if right == printed:
                notes.append("PLANTED BUT CORRECT")
        elif right != printed:
            notes.append(f"WRONG (should be {right})")
        bad += bool(notes)
        if notes or is_planted:
            print(f"  {printed:>12}  line {line:>3}  {ref:<30} {'planted' if is_planted else ''} {'; '.join(notes)}")
    distinct = len({(f[1], f[2]) for f in FIGURES})
    print(f"  {len(FIGURES)} figures ({distinct} distinct), {n_planted} planted, the others correct roundings"
          if not bad else "")
    if n_planted != 8:
        bad += 1
        print("  PLANTED COUNT IS NOT 8")
    print("all rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0, f"{bad} problems"
    return 0


if __name__ == "__main__":
    sys.exit(main())
