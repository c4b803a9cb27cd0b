#!/usr/bin/env python3
"""Exact values behind html-gpt-page/KEY.md, computed with mpmath at 50 digits (no symgpt).

    python oracle.py          # check every row of KEY.md against the values computed here (its exact value,
                              # its correct rounding, and that the figure is printed on the raw HTML line given)
    python oracle.py --dump   # print every quantity (the numbers the tutorial was written from)

The model of SPEC.toml: one post-LN block, d = 4, two heads of width d_k = 2, d_ff = 8, T = 3,
sinusoidal positions (base 10000), tied output head, LayerNorm with the biased variance and eps 1e-5.

    H0 = E[ids] + PE,           PE[t, 2i] = sin(t / 10000^(2i/d)),  PE[t, 2i+1] = cos(same)
    Q, K, V = H0 W_Q, H0 W_K, H0 W_V           head h owns the columns 2h, 2h+1
    S[h,t,s] = Q_h[t] . K_h[s] / sqrt(d_k)     A[h,t,:] = softmax over s <= t
    Attn[t] = concat_h sum_s A[h,t,s] V_h[s];  H1 = H0 + Attn;  LN1 = LN(H1)
    Z = LN1 W_1 + b_1;  R = max(Z, 0);  F = R W_2 + b_2;  H2 = LN1 + F;  LN2 = LN(H2)
    logits[v] = LN2[T-1] . E[v];  p = softmax(logits);  loss = -ln p[target]

Rounding is half away from zero, done on a 45-digit decimal string of the value.
"""
from __future__ import annotations

import html
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
KEY = Path(__file__).resolve().parent / "KEY.md"

VOCAB = ["the", "sun", "is", "warm", "cold", "bright"]
INPUT, TARGET = ["the", "sun", "is"], "warm"
HEADS, EPS, BASE = 2, mp.mpf("1e-5"), mp.mpf(10000)

E = [["0.1", "-0.2", "0.3", "0.0"], ["0.4", "0.1", "-0.3", "0.2"], ["-0.1", "0.3", "0.2", "-0.4"],
     ["0.5", "-0.1", "0.1", "0.3"], ["-0.3", "0.2", "-0.2", "0.1"], ["0.2", "0.4", "0.0", "-0.2"]]
W_Q = [["0.5", "-0.2", "0.1", "0.3"], ["0.1", "0.4", "-0.3", "0.2"], ["-0.2", "0.3", "0.6", "-0.1"],
       ["0.3", "0.1", "0.2", "0.5"]]
W_K = [["0.4", "0.1", "-0.2", "0.3"], ["-0.3", "0.5", "0.1", "0.2"], ["0.2", "-0.1", "0.4", "0.1"],
       ["0.1", "0.3", "0.2", "-0.4"]]
W_V = [["0.3", "0.2", "-0.1", "0.4"], ["0.1", "-0.3", "0.5", "0.2"], ["-0.2", "0.4", "0.3", "-0.1"],
       ["0.5", "0.1", "-0.2", "0.3"]]
W_1 = [["0.2", "-0.3", "0.4", "0.1", "-0.2", "0.5", "0.3", "-0.1"],
       ["0.3", "0.2", "-0.1", "0.4", "0.5", "-0.2", "0.1", "0.2"],
       ["-0.4", "0.1", "0.2", "-0.3", "0.1", "0.3", "-0.2", "0.4"],
       ["0.1", "0.4", "-0.3", "0.2", "-0.1", "0.1", "0.5", "-0.3"]]
b_1 = ["0.1", "0.0", "-0.1", "0.05", "0.0", "0.1", "-0.05", "0.0"]
W_2 = [["0.3", "-0.1", "0.2", "0.1"], ["-0.2", "0.4", "0.1", "-0.3"], ["0.1", "0.2", "-0.4", "0.3"],
       ["0.4", "-0.3", "0.1", "0.2"], ["-0.1", "0.1", "0.3", "-0.2"], ["0.2", "0.3", "-0.1", "0.4"],
       ["-0.3", "0.2", "0.2", "0.1"], ["0.1", "-0.2", "0.3", "-0.1"]]
b_2 = ["0.0", "0.0", "0.0", "0.0"]


def mpm(a):
    """Decimal strings to mpf, exactly as written (0.1 is the nearest 50-digit binary, not a float)."""
    return [mpm(r) for r in a] if isinstance(a, list) else mp.mpf(a)


def mat(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def norm(rows):
    n = len(rows[0])
    mus = [mp.fsum(r) / n for r in rows]
    vs = [mp.fsum((x - m) ** 2 for x in r) / n for r, m in zip(rows, mus)]
    out = [[(x - m) / mp.sqrt(v + EPS) for x in r] for r, m, v in zip(rows, mus, vs)]
    return mus, vs, out


def model() -> dict[str, mp.mpf]:
    e, wq, wk, wv = mpm(E), mpm(W_Q), mpm(W_K), mpm(W_V)
    w1, bb1, w2, bb2 = mpm(W_1), mpm(b_1), mpm(W_2), mpm(b_2)
    ids = [VOCAB.index(w) for w in INPUT]
    T, d = len(ids), len(e[0])
    dk = d // HEADS
    PE = []
    for t in range(T):
        row = []
        for j in range(d):
            angle = t / BASE ** (mp.mpf(2 * (j // 2)) / d)
            row.append(mp.sin(angle) if j % 2 == 0 else mp.cos(angle))
        PE.append(row)
    H0 = [[e[ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = mat(H0, wq), mat(H0, wk), mat(H0, wv)
    dot = {}   # unscaled q.k per head
    S, A, den = {}, {}, {}
    Attn = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(HEADS):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            for s in range(T):
                dot[h, t, s] = mp.fsum(Q[t][c] * K[s][c] for c in cols)
                S[h, t, s] = dot[h, t, s] / mp.sqrt(dk)
            den[h, t] = mp.fsum(mp.exp(S[h, t, s]) for s in range(t + 1))
            for s in range(T):
                A[h, t, s] = mp.exp(S[h, t, s]) / den[h, t] if s <= t else mp.mpf(0)
            for c in cols:
                Attn[t][c] = mp.fsum(A[h, t, s] * V[s][c] for s in range(T))
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = norm(H1)
    Z = [[z + b for z, b in zip(r, bb1)] for r in mat(LN1, w1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, bb2)] for r in mat(R, w2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = norm(H2)
    hf = LN2[T - 1]
    logits = [mp.fsum(hf[j] * e[v][j] for j in range(d)) for v in range(len(VOCAB))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    tgt = VOCAB.index(TARGET)

    q: dict[str, mp.mpf] = {"sum_exp": sum_exp, "loss": -mp.log(p[tgt])}
    for name, M in (("PE", PE), ("H0", H0), ("Q", Q), ("K", K), ("V", V), ("Attn", Attn), ("H1", H1),
                    ("LN1", LN1), ("Z", Z), ("R", R), ("F", F), ("H2", H2), ("LN2", LN2)):
        for i, r in enumerate(M):
            for j, x in enumerate(r):
                q[f"{name}[{i},{j}]"] = x
    for name, vec in (("mu1", mu1), ("var1", var1), ("mu2", mu2), ("var2", var2), ("h_final", hf)):
        for i, x in enumerate(vec):
            q[f"{name}[{i}]"] = x
    for (h, t, s), x in S.items():
        q[f"S[{h},{t},{s}]"] = x
        q[f"A[{h},{t},{s}]"] = A[h, t, s]
        q[f"exp(S[{h},{t},{s}])"] = mp.exp(x)
        q[f"S[{h},{t},{s}]*sqrt(2)"] = dot[h, t, s]          # the unscaled score q.k
    for (h, t), x in den.items():
        q[f"A_den[{h},{t}]"] = x
    for v, tok in enumerate(VOCAB):
        q[f"logits[{tok}]"] = logits[v]
        q[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        q[f"p[{tok}]"] = p[v]
    for t in range(T):
        q[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(var1[t] + EPS)
        q[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(var2[t] + EPS)
    return q


# ---------------------------------------------------------------- the key

def rounded(x: mp.mpf, places: int) -> str:
    """x rounded half away from zero to `places` decimals."""
    text = mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60)
    return str(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def places_of(figure: str) -> int:
    body = figure.rstrip("%").strip()
    return len(body.split(".")[1]) if "." in body else 0


def key_rows():
    """(section, cells) for each body row of KEY.md's two tables."""
    section = None
    for line in KEY.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = "planted" if "lanted" in line else "correct"
        if line.startswith("| `"):
            yield section, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def figure_value(figure: str, x: mp.mpf) -> mp.mpf:
    return x * 100 if figure.endswith("%") else x


def on_line(printed: str, line: int) -> bool:
    """Whether the key's figure is printed on that 1-based line of the raw HTML (entities decoded)."""
    raw = (KEY.parent / "DOC.html").read_text(encoding="utf-8").splitlines()
    if not 1 <= line <= len(raw):
        return False
    text = html.unescape(raw[line - 1]).replace("\u2212", "-")
    return printed.replace("\u2212", "-") in text


def check() -> int:
    q = model()
    bad = 0
    for section, cells in key_rows():
        if not on_line(cells[0].strip("`"), int(cells[1])):
            print(f"  {cells[0]:>10}  NOT ON LINE {cells[1]} of DOC.html")
            bad += 1
        printed = cells[0].strip("`").replace("\u2212", "-").replace(" ", "")
        names = re.findall(r"`([^`]+)`", cells[-1])
        name = next((n for n in names if n in q), None)
        if name is None:
            print(f"  {printed:>10}  NO VALUE for {cells[-1]}")
            bad += 1
            continue
        value = figure_value(printed, q[name])
        if section == "planted":
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            right = cells[4].strip("`").replace("\u2212", "-").replace(" ", "")
            value = figure_value(right, q[name])
            want = rounded(value, places_of(right)) + ("%" if right.endswith("%") else "")
            ok = (want == right and abs(exact - value) <= mp.mpf("1e-10") * max(abs(value), 1)
                  and want != printed)
            status = "planted: key agrees" if ok else f"KEY DISAGREES (rounds to {want})"
        else:
            want = rounded(value, places_of(printed)) + ("%" if printed.endswith("%") else "")
            ok = want == printed
            status = "correct" if ok else f"NOT CORRECT (rounds to {want})"
        bad += not ok
        print(f"  {printed:>10}  {name:<24} {mp.nstr(value, 15):<22} {status}")
    print("every key row agrees with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        for k, v in model().items():
            print(f"{k:<26} {mp.nstr(v, 20)}")
        sys.exit(0)
    sys.exit(check())
