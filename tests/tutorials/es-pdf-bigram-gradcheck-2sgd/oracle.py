#!/usr/bin/env python3
"""Independent oracle for es-pdf-bigram-gradcheck-2sgd: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # every KEY.md row: exact value, correct rounding (half away from zero),
                               # and the printed text on its line of `pdftotext -layout DOC.pdf -`;
                               # then every decimal figure of the PDF is checked to be the correct
                               # rounding of some value computed here, or a planted figure of the key
    python3 oracle.py --dump   # print every computed value

Model (SPEC.toml, read with tomllib): a bigram. u = C[gato] (the spec's E row of the input word),
a_j = sum_i u_i B_ij (B is the spec's W), p = softmax(a), l = -ln p[bebe].
Backward: dl/da = p - y, dl/dB_ij = u_i (p_j - y_j), dl/du_i = sum_j B_ij (p_j - y_j) (only row gato of C).
Gradient check: (l(theta + h) - l(theta - h)) / 2h, h = training.gradcheck.h, on training.gradcheck.params.
SGD: theta <- theta - lr * g on B and C together, training.steps times.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def num(v) -> mp.mpf:
    return mp.mpf(str(v))


VOCAB = SPEC["model"]["vocab"]
V, D = len(VOCAB), SPEC["model"]["d"]
TOK = VOCAB.index(SPEC["data"]["input"][0])
TGT = VOCAB.index(SPEC["data"]["target"])
C0 = [[num(v) for v in row] for row in SPEC["weights"]["E"]]
B0 = [[num(v) for v in row] for row in SPEC["weights"]["W"]]
LR = num(SPEC["training"]["lr"])
STEPS = SPEC["training"]["steps"]
GC = SPEC["training"]["gradcheck"]
H = num(GC["h"])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(C, B):
    u = C[TOK][:]
    a = [mp.fsum(u[i] * B[i][j] for i in range(D)) for j in range(V)]
    ex = [mp.exp(v) for v in a]
    Z = mp.fsum(ex)
    p = [e / Z for e in ex]
    loss = -mp.log(p[TGT])
    ga = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gB = [[u[i] * ga[j] for j in range(V)] for i in range(D)]
    gu = [mp.fsum(B[i][j] * ga[j] for j in range(V)) for i in range(D)]
    gC = [[gu[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(C=C, B=B, u=u, a=a, ex=ex, Z=Z, p=p, loss=loss, ga=ga, gB=gB, gu=gu, gC=gC)


def parse_param(s: str):
    m = re.fullmatch(r"(\w+)\[(\w+|[^\],]+),\s*([^\]]+)\]", s)
    name, i, j = m.group(1), m.group(2), m.group(3)
    idx = lambda t: VOCAB.index(t) if t in VOCAB else int(t)
    return name, idx(i), idx(j)


def loss_at(param: str, delta):
    name, i, j = parse_param(param)
    C = [r[:] for r in C0]
    B = [r[:] for r in B0]
    (B if name == "W" else C)[i][j] += delta
    return forward(C, B)["loss"]


def values() -> dict:
    f = forward(C0, B0)
    out = {}
    for j, w in enumerate(VOCAB):
        for key in (w, str(j)):
            out[f"z[{key}]"] = f["a"][j]
            out[f"exp(z[{key}])"] = f["ex"][j]
            out[f"p[{key}]"] = f["p"][j]
            out[f"grad_z[{key}]"] = f["ga"][j]
            for i in range(D):
                out[f"W[{i},{key}]"] = B0[i][j]
                out[f"grad_W[{i},{key}]"] = f["gB"][i][j]
                out[f"E[{key},{i}]"] = C0[j][i]
                out[f"grad_E[{key},{i}]"] = f["gC"][j][i]
    for i in range(D):
        out[f"x[{i}]"] = f["u"][i]
        out[f"grad_x[{i}]"] = f["gu"][i]
    out["sum_exp"] = f["Z"]
    out["loss"] = f["loss"]
    # gradient check
    for param in GC["params"]:
        name, i, j = parse_param(param)
        key = f"{name}[{i},{VOCAB[j]}]" if name == "W" else f"{name}[{VOCAB[i]},{j}]"
        hs = mp.nstr(H, 5)
        lp, lm = loss_at(param, H), loss_at(param, -H)
        g = f["gB"][i][j] if name == "W" else f["gC"][i][j]
        fd = (lp - lm) / (2 * H)
        out[f"loss_at({key}, {hs})"] = lp
        out[f"loss_at({key}, -{hs})"] = lm
        out[f"loss_at({key}, {hs}) - loss_at({key}, -{hs})"] = lp - lm
        out[f"gradcheck({key}, {hs})"] = fd
        out[f"grad_{key}"] = g
        out[f"gradcheck({key}, {hs}) - grad_{key}"] = fd - g
        out[f"abs(gradcheck({key}, {hs}) - grad_{key}) / abs(grad_{key})"] = abs(fd - g) / abs(g)
    # SGD
    st = f
    for k in range(1, STEPS + 1):
        B = [[st["B"][i][j] - LR * st["gB"][i][j] for j in range(V)] for i in range(D)]
        C = [[st["C"][v][i] - LR * st["gC"][v][i] for i in range(D)] for v in range(V)]
        st = forward(C, B)
        pre = f"sgd[{k}]."
        out[pre + "loss"] = st["loss"]
        out[pre + "sum_exp"] = st["Z"]
        for j, w in enumerate(VOCAB):
            out[pre + f"p[{w}]"] = st["p"][j]
            out[pre + f"z[{w}]"] = st["a"][j]
            for i in range(D):
                out[pre + f"W[{i},{w}]"] = B[i][j]
                out[pre + f"E[{w},{i}]"] = C[j][i]
                out[pre + f"grad_W[{i},{w}]"] = st["gB"][i][j]
        for i in range(D):
            out[pre + f"x[{i}]"] = st["u"][i]
            out[pre + f"grad_x[{i}]"] = st["gu"][i]
    return out



# ---------------------------------------------------------------- reading printed figures

def norm(text: str) -> str:
    return text.replace("\u2212", "-").replace(",", ".").replace(" ", "").replace("\u00d7", "x")


def parse_printed(text: str):
    """(scale, places, decimal string) of a printed figure: plain, percent, or m × 10^e [%]."""
    t = norm(text)
    pct = t.endswith("%")
    t = t.rstrip("%")
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)x10(-?\d+)", t)
    if m:
        mant, exp = m.group(1), int(m.group(2))
        return (mp.mpf(100) if pct else 1) / mp.mpf(10) ** exp, len(mant.split(".")[1]) if "." in mant else 0, mant
    return (mp.mpf(100) if pct else 1), len(t.split(".")[1]) if "." in t else 0, t


def rounds_to(value, text: str, places_from: str | None = None) -> tuple[bool, str]:
    scale, places, shown = parse_printed(text)
    if places_from is not None:
        places = parse_printed(places_from)[1]
    r = rnd(value * scale, places)
    return r == shown, r


def pdf_lines() -> list[str]:
    out = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], check=True,
                         capture_output=True, text=True).stdout
    return out.split("\n")


def key_rows():
    rows = []
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append(cells)
    return rows


# ---------------------------------------------------------------- every decimal of the PDF

NUM = re.compile(r"(?<!\d)(?<!\d,)(\u2212?)(\d+,\d+)(?!\d)(?!,\d)")
SCI = re.compile(r"\u2212?\d+,\d+ \u00d7 10\u2212?\d+ ?%")


def sweep(lines, vals, planted) -> int:
    """Every decimal-comma figure of the PDF must be the correct rounding of a value computed here
    (weights, products u_i·B_ij, model quantities, differences of losses, ...) or a planted figure."""
    f = forward(C0, B0)
    pool = list(vals.values())
    pool += [f["u"][i] * B0[i][j] for i in range(D) for j in range(V)]          # terms of the a_j chains
    pool += [B0[i][j] * f["ga"][j] for i in range(D) for j in range(V)]         # terms of dl/du_i
    pool += [LR, H, 2 * H, mp.log(6), mp.mpf(1) / 6 * 100, mp.mpf(1)]           # η, h, 2h, ln 6, 1/6 in %, Σp̂
    pool += [vals["loss"] - vals["sgd[2].loss"], vals["loss"] - vals["sgd[1].loss"],
             vals["sgd[1].loss"] - vals["sgd[2].loss"]]
    pool += [vals["p[bebe]"] * 100, vals["sgd[2].p[bebe]"] * 100]
    pool += [mp.mpf("0.31435"), mp.mpf("0.39104"), mp.mpf("0.04151")]          # five-decimal gradient, as printed
    bad = 0
    for n, line in enumerate(lines, 1):
        for m in NUM.finditer(line):
            text = m.group(1) + m.group(2)
            if (n, text) in planted:
                continue
            sci = SCI.match(line, m.start())
            if sci:                                   # a relative error, m × 10^e %
                full = sci.group(0)
                ok = any(rounds_to(v, full)[0] for k, v in vals.items() if k.startswith("abs(gradcheck"))
                if not ok:
                    bad += 1
                    print(f"  SWEEP: line {n}: {full} is no relative error of the check")
                continue
            t = m.group(2).replace(",", ".")
            places = len(t.split(".")[1])
            neg = m.group(1) == "\u2212"
            binary_minus = line[:m.start()].rstrip().endswith("\u2212")
            ok = False
            for v in pool:
                for scale in (1,):
                    r = rnd(abs(v) * scale, places)
                    if r == t and ((v < 0) == neg or (not neg and v < 0 and binary_minus) or v == 0):
                        ok = True
                        break
                if ok:
                    break
            if not ok:
                bad += 1
                print(f"  SWEEP: line {n}: {text} is the rounding of no computed value")
    return bad


def main() -> int:
    vals = values()
    lines = pdf_lines()
    print(f"DOC.pdf: {len(lines)} lines of pdftotext -layout")
    bad = 0
    planted = set()
    for cells in key_rows():
        printed = cells[0].strip("`")
        line_no = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        on_line = 0 < line_no <= len(lines) and printed in lines[line_no - 1]
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref]
        scale = parse_printed(printed)[0]
        if len(cells) == 7:                                   # planted: key columns must agree
            planted.add((line_no, printed))
            shown = cells[4].strip("`")
            right_ok, right = rounds_to(v, shown)
            _, at_printed = rounds_to(v, printed, places_from=shown)
            exact = mp.mpf(cells[3].rstrip("…"))
            exact_ok = abs(exact - v * (100 if shown.endswith("%") else 1)) <= mp.mpf("1e-10") * abs(v * scale)
            differs = not rounds_to(v, printed)[0]
            ok = right_ok and exact_ok and differs and on_line
            note = "planted, key agrees" if ok else (
                f"KEY DISAGREES (rounding {right_ok}, exact {exact_ok}, differs {differs}, on line {on_line})")
        else:
            ok_r, right = rounds_to(v, printed)
            ok = ok_r and on_line
            note = "correct" if ok else f"NOT CORRECT (rounds to {right}, on line {on_line})"
        bad += not ok
        print(f"  {printed:>14}  line {line_no:>3}  {ref:<40} {mp.nstr(v * scale, 15):<20} rounds to {right:<12} {note}")
    print("sweep of every decimal figure in DOC.pdf:")
    bad += sweep(lines, vals, planted)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows or figures disagree")
    return 1 if bad else 0


if __name__ == "__main__" and "--dump" not in sys.argv:
    sys.exit(main())

if __name__ == "__main__" and "--dump" in sys.argv:
    for k, v in values().items():
        if not re.search(r"\[\d,\d\]|\[\d\]\)|z\[\d\]|p\[\d\]", k) or k.startswith(("x[", "grad_x", "sgd")):
            print(f"{k:<70} {mp.nstr(v, 16)}")
    sys.exit(0)
