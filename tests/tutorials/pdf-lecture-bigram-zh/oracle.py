#!/usr/bin/env python3
"""Independent exact values for pdf-lecture-bigram-zh (mpmath, 50 digits; symgpt is not imported).

    python oracle.py          # check every KEY.md row (value and rounding; the printed text on that line of
                              # pdftotext -layout, the lines symgpt check reports a PDF's figures at)
    python oracle.py --dump   # every quantity, 20 digits

Bigram of SPEC.toml: x = E[风], z = x W, p = softmax(z), L = -ln p[吹].
Backward: dz = p - y, dW = x (outer) dz, dx = W dz (the gradient of E's row 风; other rows 0).
SGD (lr 0.5): theta - lr g on E and W.  AdamW (torch.optim.AdamW, first step): m = (1-b1) g, v = (1-b2) g^2,
mhat = m/(1-b1), vhat = v/(1-b2), update = lr mhat/(sqrt(vhat)+eps), decay = lr wd theta,
theta1 = theta - decay - update (decay on every entry, also rows of E with zero gradient).
Rounding: half away from zero on a 45-digit decimal string.
"""

from __future__ import annotations

import re
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["春", "风", "吹", "花", "落"]
INP, TGT = 1, 2
E0 = [
    ["0.2", "-0.1", "0.4"],
    ["0.5", "0.3", "-0.2"],
    ["-0.3", "0.2", "0.1"],
    ["0.1", "-0.4", "0.3"],
    ["0.0", "0.2", "-0.5"],
]
W0 = [
    ["0.3", "-0.2", "0.1", "0.4", "-0.1"],
    ["-0.1", "0.5", "0.2", "-0.3", "0.2"],
    ["0.2", "0.1", "-0.4", "0.3", "0.6"],
]
LR = mp.mpf("0.5")
A_LR, B1, B2, EPS, WD = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8"), mp.mpf("0.01")


def M(a):
    return [M(x) for x in a] if isinstance(a, list) else mp.mpf(a)


def forward(E, W):
    x = E[INP]
    z = [mp.fsum(x[i] * W[i][j] for i in range(3)) for j in range(5)]
    se = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / se for v in z]
    return x, z, se, p, -mp.log(p[TGT])


def model():
    E, W = M(E0), M(W0)
    x, z, se, p, L = forward(E, W)
    dz = [p[j] - (1 if j == TGT else 0) for j in range(5)]
    gW = [[x[i] * dz[j] for j in range(5)] for i in range(3)]
    gx = [mp.fsum(W[i][j] * dz[j] for j in range(5)) for i in range(3)]
    gE = [[gx[i] if r == INP else mp.mpf(0) for i in range(3)] for r in range(5)]
    q = {"sum_exp": se, "loss": L}
    for i in range(3):
        q[f"x[{i}]"], q[f"grad_x[{i}]"] = x[i], gx[i]
    for j, tok in enumerate(VOCAB):
        q[f"z[{tok}]"], q[f"exp(z[{tok}])"], q[f"p[{tok}]"], q[f"grad_z[{tok}]"] = (
            z[j],
            mp.exp(z[j]),
            p[j],
            dz[j],
        )
    for i in range(3):
        for j, tok in enumerate(VOCAB):
            q[f"grad_W[{i},{tok}]"] = gW[i][j]
    # SGD
    Es = [[E[r][i] - LR * gE[r][i] for i in range(3)] for r in range(5)]
    Ws = [[W[i][j] - LR * gW[i][j] for j in range(5)] for i in range(3)]
    *_, ps, Ls = forward(Es, Ws)
    q["sgd[1].loss"] = Ls
    for j, tok in enumerate(VOCAB):
        q[f"sgd[1].p[{tok}]"] = ps[j]
        for i in range(3):
            q[f"sgd[1].W[{i},{tok}]"] = Ws[i][j]
    for i in range(3):
        q[f"sgd[1].E[风,{i}]"] = Es[INP][i]

    # AdamW, first step
    def adam(theta, g):
        m, v = (1 - B1) * g, (1 - B2) * g * g
        mh, vh = m / (1 - B1), v / (1 - B2)
        up, dec = A_LR * mh / (mp.sqrt(vh) + EPS), A_LR * WD * theta
        return m, v, mh, vh, up, dec, theta - dec - up

    Ea = [[adam(E[r][i], gE[r][i])[-1] for i in range(3)] for r in range(5)]
    Wa = [[None] * 5 for _ in range(3)]
    for i in range(3):
        for j, tok in enumerate(VOCAB):
            m, v, mh, vh, up, dec, new = adam(W[i][j], gW[i][j])
            Wa[i][j] = new
            for nm, val in (("m", m), ("v", v), ("mhat", mh), ("vhat", vh), ("update", up), ("decay", dec)):
                q[f"adamw[1].{nm}[W,{i},{tok}]"] = val
            q[f"adamw[1].W[{i},{tok}]"] = new
    *_, pa, La = forward(Ea, Wa)
    q["adamw[1].loss"] = La
    for j, tok in enumerate(VOCAB):
        q[f"adamw[1].p[{tok}]"] = pa[j]
    return q


def rounded(x, places):
    text = mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60)
    return str(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def places_of(fig):
    b = fig.rstrip("%").strip()
    return len(b.split(".")[1]) if "." in b else 0


def sci(fig):
    """(mantissa, exponent) of a figure written as 1.4843×10^{-4}, else None."""
    m = re.fullmatch(r"(-?[\d.]+)×10\^\{?(-?\d+)\}?", fig)
    return (m.group(1), int(m.group(2))) if m else None


def want_of(val, fig):
    s = sci(fig)
    if s:
        return rounded(val / mp.mpf(10) ** s[1], places_of(s[0])) + f"×10^{{{s[1]}}}"
    return rounded(val, places_of(fig)) + ("%" if fig.endswith("%") else "")


def key_rows():
    section = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = "planted" if "lanted" in line else "correct"
        if line.startswith("| `"):
            yield section, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def check():
    q, bad = model(), 0
    try:
        lines = subprocess.run(
            ["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], capture_output=True, text=True
        ).stdout.split("\n")               # (as grep -n and sed count: a page break \f is no line)
    except OSError:
        lines = None
    for section, cells in key_rows():
        printed = cells[0].strip("`").replace("\u2212", "-").replace(" ", "")
        if lines is not None:
            n = int(cells[1])
            window = lines[n - 1].replace("\u2212", "-").replace(" ", "") if n <= len(lines) else ""
            if (sci(printed)[0] if sci(printed) else printed) not in window:
                print(f"  {printed:>10}  not on pdftotext line {n}")
                bad += 1
        name = next((n for n in re.findall(r"`([^`]+)`", cells[-1]) if n in q), None)
        if name is None:
            print(f"  {printed:>10}  NO VALUE for {cells[-1]}")
            bad += 1
            continue
        fig = cells[4].strip("`").replace("\u2212", "-").replace(" ", "") if section == "planted" else printed
        val = q[name] * (100 if fig.endswith("%") else 1)
        want = want_of(val, fig)
        if section == "planted":
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = want == fig and abs(exact - val) <= mp.mpf("1e-10") * max(abs(val), 1) and want != printed
        else:
            ok = want == printed
        bad += not ok
        verdict = "ok" if ok else f"DISAGREES (rounds to {want})"
        print(
            f"  {printed:>10}  {name:<26} {mp.nstr(val, 15):<22} {verdict} [{section}]"
        )
    print("every key row agrees with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        for k, v in model().items():
            print(f"{k:<26} {mp.nstr(v, 20)}")
        sys.exit(0)
    sys.exit(check())
