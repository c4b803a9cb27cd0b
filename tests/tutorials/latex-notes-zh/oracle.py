#!/usr/bin/env python3
"""latex-notes-zh 的独立验算 / the exact values behind latex-notes-zh/KEY.md (mpmath, 50 digits, no symgpt).

    python oracle.py          # check KEY.md: exact value, correct rounding, and the line of DOC.md
    python oracle.py --dump   # every quantity the notes were written from

SPEC.toml is a pre-LN block (GPT-2's wiring) with one head, d = 3, d_ff = 4, T = 2, tied head:
    H0 = E[ids] + PE      PE[t, j] = sin(t / 10000^(2*floor(j/2)/d)) for even j, cos(...) for odd j
    LN1 = LN(H0);  Q, K, V = LN1 W_Q, LN1 W_K, LN1 W_V;  S = Q K^T / sqrt(3);  A = causal softmax(S)
    H1 = H0 + A V;  LN2 = LN(H1);  Z = LN2 W_1 + b_1;  F = relu(Z) W_2 + b_2;  H2 = H1 + F
    LN_f = LN(H2);  logits[v] = LN_f[T-1] . E[v];  p = softmax(logits);  loss = -ln p[茶]
LN(h) = (h - mean) / sqrt(biased variance + 1e-5), gain 1 and shift 0 everywhere.
Rounding: half away from zero, on the value's 45-digit decimal expansion.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["<s>", "我", "喜欢", "喝", "茶", "咖啡"]
IDS = [VOCAB.index("喜欢"), VOCAB.index("喝")]
TARGET = VOCAB.index("茶")
EPS = mp.mpf("1e-5")


def grid(text: str) -> list[list[mp.mpf]]:
    """Rows separated by ';', entries by spaces, each read exactly from its decimal text."""
    return [[mp.mpf(a) for a in row.split()] for row in text.split(";")]


E = grid("0.0 0.1 -0.1; 0.3 -0.2 0.4; 0.5 0.1 -0.3; -0.2 0.4 0.1; 0.4 -0.3 0.2; -0.1 0.2 0.5")
WQ = grid("0.4 -0.1 0.2; 0.3 0.5 -0.2; -0.1 0.2 0.6")
WK = grid("0.5 0.2 -0.3; -0.2 0.4 0.1; 0.1 -0.3 0.5")
WV = grid("0.3 -0.4 0.1; 0.2 0.1 0.5; -0.5 0.3 0.2")
W1 = grid("0.2 -0.4 0.3 0.5; 0.6 0.1 -0.2 0.3; -0.3 0.5 0.4 -0.1")
B1 = grid("0.1 -0.1 0.0 0.05")[0]
W2 = grid("0.3 -0.2 0.4; 0.1 0.5 -0.3; -0.4 0.2 0.1; 0.2 0.3 -0.5")
B2 = grid("0.0 0.1 -0.1")[0]


def times(X, M):
    return [[mp.fsum(x[k] * M[k][j] for k in range(len(M))) for j in range(len(M[0]))] for x in X]


def layer_norm(X):
    mean, var, out = [], [], []
    for x in X:
        m = mp.fsum(x) / len(x)
        v = mp.fsum((a - m) ** 2 for a in x) / len(x)
        mean.append(m)
        var.append(v)
        out.append([(a - m) / mp.sqrt(v + EPS) for a in x])
    return mean, var, out


def compute() -> dict[str, mp.mpf]:
    T, d = len(IDS), len(E[0])
    PE = [[(mp.sin if j % 2 == 0 else mp.cos)(t / mp.mpf(10000) ** (mp.mpf(2 * (j // 2)) / d)) for j in range(d)]
          for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layer_norm(H0)
    Q, K, V = times(LN1, WQ), times(LN1, WK), times(LN1, WV)
    raw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    S = [[r / mp.sqrt(d) for r in row] for row in raw]
    den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = times(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layer_norm(H1)
    Z = [[z + b for z, b in zip(row, B1)] for row in times(LN2, W1)]
    R = [[max(z, mp.mpf(0)) for z in row] for row in Z]
    F = [[f + b for f, b in zip(row, B2)] for row in times(R, W2)]
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    muf, varf, LNf = layer_norm(H2)
    h = LNf[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(VOCAB))]
    total = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / total for z in logits]

    out: dict[str, mp.mpf] = {"sum_exp": total, "loss": -mp.log(p[TARGET])}
    tables = {"PE": PE, "H0": H0, "LN1": LN1, "Q": Q, "K": K, "V": V, "S": S, "A": A, "Attn": Attn, "H1": H1,
              "LN2": LN2, "Z": Z, "R": R, "F": F, "H2": H2, "LN_f": LNf}
    for name, M in tables.items():
        for i, row in enumerate(M):
            for j, a in enumerate(row):
                out[f"{name}[{i},{j}]"] = a
    for name, vec in {"mu1": mu1, "var1": var1, "mu2": mu2, "var2": var2, "mu_f": muf, "var_f": varf,
                      "A_den": den, "h_final": h}.items():
        for i, a in enumerate(vec):
            out[f"{name}[{i}]"] = a
    for t in range(T):
        for s in range(T):
            out[f"S[{t},{s}]*sqrt(3)"] = raw[t][s]
            out[f"exp(S[{t},{s}])"] = mp.exp(S[t][s])
        for nm, v in (("var1", var1), ("var2", var2), ("var_f", varf)):
            out[f"sqrt({nm}[{t}] + ln_eps)"] = mp.sqrt(v[t] + EPS)
    for v, tok in enumerate(VOCAB):
        out[f"logits[{tok}]"] = logits[v]
        out[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        out[f"p[{tok}]"] = p[v]
        out[f"grad_logits[{tok}]"] = p[v] - (1 if v == TARGET else 0)
    return out


# ---------------------------------------------------------------- the key

def rounding(x: mp.mpf, places: int) -> str:
    d = Decimal(mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return str(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def plain(figure: str) -> str:
    return figure.replace("\u2212", "-").replace(" ", "").strip("`")


def decimals(figure: str) -> int:
    f = plain(figure).rstrip("%")
    return len(f.split(".")[1]) if "." in f else 0


def table_rows():
    kind = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            kind = "planted" if "lanted" in line else "correct"
        elif line.startswith("| `"):
            yield kind, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def main() -> int:
    values = compute()
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    failures = 0
    for kind, cells in table_rows():
        printed, line = cells[0].strip("`"), int(cells[1])
        ref = next((n for n in re.findall(r"`([^`]+)`", cells[-1]) if n in values), None)
        notes = []
        if not (1 <= line <= len(doc) and printed in doc[line - 1]):
            notes.append(f"not on line {line}")
        if ref is None:
            notes.append(f"no value for {cells[-1]}")
            print(f"  {printed:>10}  {'; '.join(notes)}")
            failures += 1
            continue
        x = values[ref] * (100 if printed.endswith("%") else 1)
        if kind == "planted":
            right = cells[4].strip("`")
            if rounding(x, decimals(right)) != plain(right).rstrip("%"):
                notes.append(f"correct rounding is {rounding(x, decimals(right))}")
            if abs(mp.mpf(plain(cells[3]).rstrip("…")) - x) > mp.mpf("1e-10") * max(abs(x), 1):
                notes.append("exact value differs")
            if rounding(x, decimals(printed)) == plain(printed).rstrip("%"):
                notes.append("printed figure is right")
        elif rounding(x, decimals(printed)) != plain(printed).rstrip("%"):
            notes.append(f"not the correct rounding ({rounding(x, decimals(printed))})")
        failures += bool(notes)
        ok = "planted, key agrees" if kind == "planted" else "correct"
        print(f"  {printed:>10}  {ref:<24} {mp.nstr(x, 15):<22} {'; '.join(notes).upper() if notes else ok}")
    print("every key row agrees with the oracle" if not failures else f"{failures} key rows disagree")
    return 1 if failures else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        for k, v in compute().items():
            print(f"{k:<26} {mp.nstr(v, 20)}")
        sys.exit(0)
    sys.exit(main())
