#!/usr/bin/env python3
"""Exact values behind ipynb-bigram-adam/KEY.md: mpmath at 50 digits, written without symgpt.

    python oracle.py          # check every row of KEY.md (value, rounding, and the line it is on)
    python oracle.py --dump   # print every quantity the notebook was written from

Model (SPEC.toml): a bigram over six German words, d = 2, input "Hund", target "bellt".
    x = E[Hund];  z = x W;  p = softmax(z);  loss = -ln p[bellt]
    dz = p - onehot(bellt);  W.grad = outer(x, dz);  E.grad[Hund] = W dz, every other row of E.grad 0
AdamW as torch.optim.AdamW (lr 0.01, betas 0.9 / 0.999, eps 1e-8, weight_decay 0.01), on E and W, with
the decay decoupled and applied to every entry (the zero-gradient rows of E decay too):
    m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  mhat = m / (1 - b1^k);  vhat = v / (1 - b2^k)
    theta <- theta - lr*wd*theta - lr * mhat / (sqrt(vhat) + eps)

A figure's precision is its printed quantum: 0.0472 rounds to 1e-4, 2.23e-06 and 2.23×10⁻⁶ to 1e-8.
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["der", "Hund", "bellt", "laut", "Katze", "schläft"]
TOKEN, TARGET = "Hund", "bellt"
E0 = [["0.3", "-0.1"], ["0.5", "0.2"], ["-0.2", "0.4"], ["0.1", "-0.3"], ["-0.4", "0.1"], ["0.2", "0.3"]]
W0 = [["0.2", "-0.3", "0.1", "0.4", "-0.1", "0.3"], ["-0.2", "0.5", "0.3", "-0.1", "0.2", "-0.4"]]
LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))
STEPS = 2


def forward(E, W):
    """Every forward and backward quantity of one bigram evaluation."""
    t, y = VOCAB.index(TOKEN), VOCAB.index(TARGET)
    d, n = len(W), len(VOCAB)
    x = list(E[t])
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(n)]
    total = mp.fsum(mp.exp(a) for a in z)
    p = [mp.exp(a) / total for a in z]
    dz = [p[j] - (1 if j == y else 0) for j in range(n)]
    gW = [[x[i] * dz[j] for j in range(n)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * dz[j] for j in range(n)) for i in range(d)]
    gE = [[gx[i] if v == t else mp.mpf(0) for i in range(d)] for v in range(n)]
    return {"x": x, "z": z, "sum_exp": total, "p": p, "loss": -mp.log(p[y]), "grad_z": dz,
            "grad_W": gW, "grad_x": gx, "grad_E": gE, "W": W, "E": E}


def quantities() -> dict[str, mp.mpf]:
    E = [[mp.mpf(a) for a in r] for r in E0]
    W = [[mp.mpf(a) for a in r] for r in W0]
    q: dict[str, mp.mpf] = {}
    moments = {}                      # (P, i, j) -> (m, v)

    def name_index(P, i, j):          # W[j, token] and E[token, j], as the spec names them
        return f"{i},{VOCAB[j]}" if P == "W" else f"{VOCAB[i]},{j}"

    def record(prefix, f):
        q[prefix + "loss"] = f["loss"]
        q[prefix + "sum_exp"] = f["sum_exp"]
        for j, tok in enumerate(VOCAB):
            for key in ("z", "p", "grad_z"):
                q[f"{prefix}{key}[{tok}]"] = f[key][j]
            q[f"exp({prefix}z[{tok}])"] = mp.exp(f["z"][j])
        for i in range(2):
            q[f"{prefix}x[{i}]"] = f["x"][i]
            q[f"{prefix}grad_x[{i}]"] = f["grad_x"][i]
        for P in ("W", "E"):
            M, G = f[P], f["grad_" + P]
            for i in range(len(M)):
                for j in range(len(M[0])):
                    q[f"{prefix}{P}[{name_index(P, i, j)}]"] = M[i][j]
                    q[f"{prefix}grad_{P}[{name_index(P, i, j)}]"] = G[i][j]

    f = forward(E, W)
    record("", f)
    for k in range(1, STEPS + 1):
        new = {"W": [r[:] for r in W], "E": [r[:] for r in E]}
        for P, M, G in (("W", W, f["grad_W"]), ("E", E, f["grad_E"])):
            for i in range(len(M)):
                for j in range(len(M[0])):
                    g, theta = G[i][j], M[i][j]
                    m0, v0 = moments.get((P, i, j), (mp.mpf(0), mp.mpf(0)))
                    m, v = B1 * m0 + (1 - B1) * g, B2 * v0 + (1 - B2) * g * g
                    moments[P, i, j] = (m, v)
                    mhat, vhat = m / (1 - B1 ** k), v / (1 - B2 ** k)
                    update, decay = LR * mhat / (mp.sqrt(vhat) + EPS), LR * WD * theta
                    new[P][i][j] = theta - decay - update
                    idx = f"{P},{name_index(P, i, j)}"
                    for key, val in (("m", m), ("v", v), ("mhat", mhat), ("vhat", vhat), ("update", update),
                                     ("decay", decay)):
                        q[f"adamw[{k}].{key}[{idx}]"] = val
        W, E = new["W"], new["E"]
        f = forward(E, W)
        record(f"adamw[{k}].", f)
    return q


# ---------------------------------------------------------------- reading and checking the key

SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def as_decimal(text: str) -> Decimal:
    """A printed figure as a Decimal keeping its printed quantum: 3.1e-04, 2.23×10⁻⁴, −0.0472, 12.5 %."""
    t = text.replace("\u2212", "-").replace(" ", "").rstrip("%").translate(SUPER)
    t = re.sub(r"[×x·]10\^?\{?(-?\d+)\}?", r"e\1", t)
    return Decimal(t)


def rounded_like(value: mp.mpf, like: str) -> Decimal:
    """value rounded half away from zero to the quantum of the printed figure `like`."""
    quantum = Decimal(1).scaleb(as_decimal(like).as_tuple().exponent)
    exact = Decimal(mp.nstr(value, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return exact.quantize(quantum, rounding=ROUND_HALF_UP)


def notebook_lines() -> list[str]:
    return (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()


def on_line(printed: str, line: int, lines: list[str]) -> bool:
    """The figure is on that 1-based line of the .ipynb file (its JSON text, string escapes decoded)."""
    if not 1 <= line <= len(lines):
        return False
    raw = lines[line - 1].strip().rstrip(",")
    try:
        raw = json.loads(raw) if raw.startswith('"') else raw
    except ValueError:
        pass
    return printed in str(raw)


def rows():
    part = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            part = "planted" if "lanted" in line else "correct"
        elif line.startswith("| `"):
            yield part, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def main() -> int:
    q = quantities()
    lines = notebook_lines()
    bad = 0
    for part, cells in rows():
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        name = next((n for n in names if n in q), None)
        problems = []
        if not on_line(printed, int(cells[1]), lines):
            problems.append(f"not on line {cells[1]}")
        if name is None:
            print(f"  {printed:>12}  no value for {cells[-1]}")
            bad += 1
            continue
        scale = 100 if printed.endswith("%") else 1
        value = q[name] * scale
        if part == "planted":
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            right = cells[4].strip("`")
            if rounded_like(value, right) != as_decimal(right):
                problems.append(f"correct rounding is {rounded_like(value, right)}")
            if abs(exact - value) > mp.mpf("1e-10") * max(abs(value), mp.mpf("1e-30")):
                problems.append("exact value differs")
            if rounded_like(value, printed) == as_decimal(printed):
                problems.append("the printed figure is not wrong")
        elif rounded_like(value, printed) != as_decimal(printed):
            problems.append(f"not the correct rounding ({rounded_like(value, printed)})")
        bad += bool(problems)
        ok = "planted, key agrees" if part == "planted" else "correct"
        status = "; ".join(problems).upper() if problems else ok
        print(f"  {printed:>12}  {name:<28} {mp.nstr(value, 15):<22} {status}")
    print("every key row agrees with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        for k, v in quantities().items():
            print(f"{k:<30} {mp.nstr(v, 20)}")
        sys.exit(0)
    sys.exit(main())
