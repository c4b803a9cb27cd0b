#!/usr/bin/env python3
"""Independent check of ru-txt-seed-T4-topk-topp: plain mpmath (50 digits), no symgpt.

    python oracle.py     # prints every KEY.md row's quantity with its exact value and checks the
                         # key's "exact value" / "correct rounding" columns (and the correct figures)

Model (SPEC.toml): one post-LN block, one head, d = 2, d_ff = 4, tied head, ln_eps 1e-5,
input «я люблю пить горячий» (ids 1 2 3 4), target «чай» (id 5).
H0 = E[ids] + PE, PE[t] = (sin t, cos t) (d = 2: one frequency); Q, K, V = H0·W;
S = Q·Kᵀ/√2 (before the mask); causal softmax A; Attn = A·V; H1 = H0 + Attn; LN1 (biased variance);
Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2; h_final = LN2[T-1];
logits = h_final·Eᵀ; p = softmax; loss = −ln p[чай]; softmax_T(T, v) = softmax(logits/T);
topk(k, v), topp(P, v) renormalised over the kept tokens; grad_logits = p − y;
grad_E_head[v, j] = (p − y)[v]·h_final[j] (the target's column of the output matrix Eᵀ).
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
D = mp.mpf
VOCAB = ["<н>", "я", "люблю", "пить", "горячий", "чай"]
IDS, TGT = [1, 2, 3, 4], 5


def M(a):
    return [[D(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [D(str(v)) for v in a]


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    mu = [mp.fsum(r) / len(r) for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / len(r) for r, m in zip(H, mu)]
    return mu, var, [[(x - m) / mp.sqrt(v + eps) for x in r] for r, m, v in zip(H, mu, var)]


def softmax(z):
    e = [mp.exp(x) for x in z]
    s = mp.fsum(e)
    return [x / s for x in e]


def model():
    E = M([[0.1, 0.5], [0.7, -0.5], [-0.3, 0.4], [0.4, -0.2], [-0.6, 0.4], [0.6, -0.3]])
    WQ, WK, WV = M([[0.6, -0.3], [0.2, 0.8]]), M([[0.5, 0.4], [-0.6, 0.7]]), M([[0.3, -0.5], [0.9, 0.2]])
    W1 = M([[0.4, -0.7, 0.2, 0.5], [-0.3, 0.6, 0.8, -0.2]])
    b1 = M([0.1, -0.1, 0.05, 0.0])
    W2 = M([[0.6, -0.2], [0.3, 0.5], [-0.4, 0.7], [0.2, -0.6]])
    b2 = M([0.0, 0.0])
    eps = D("1e-5")
    T, d = len(IDS), 2
    PE = [[mp.sin(t), mp.cos(t)] for t in range(T)]        # base^(0/d) = 1: angle t for both entries
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = mm(H0, WQ), mm(H0, WK), mm(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else D(0) for s in range(T)] for t in range(T)]
    Attn = mm(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1, eps)
    Z = [[z + b for z, b in zip(r, b1)] for r in mm(LN1, W1)]
    R = [[z if z > 0 else D(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in mm(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2, eps)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    p = softmax(logits)
    order = sorted(range(len(p)), key=lambda v: (-p[v], v))
    val = {}

    def put(name, v):
        val[name] = v

    for t in range(T):
        for j in range(d):
            for n, X in (("PE", PE), ("H0", H0), ("Q", Q), ("K", K), ("V", V), ("Attn", Attn), ("H1", H1),
                         ("LN1", LN1), ("F", F), ("H2", H2), ("LN2", LN2)):
                put(f"{n}[{t},{j}]", X[t][j])
        for s in range(T):
            put(f"S[{t},{s}]", S[t][s])
            put(f"A[{t},{s}]", A[t][s])
        for k in range(4):
            put(f"Z[{t},{k}]", Z[t][k])
            put(f"R[{t},{k}]", R[t][k])
        for n, X in (("mu1", mu1), ("var1", var1), ("mu2", mu2), ("var2", var2), ("A_den", A_den)):
            put(f"{n}[{t}]", X[t])
        put(f"sqrt(var1[{t}]+ln_eps)", mp.sqrt(var1[t] + eps))
        put(f"exp(S[3,{t}])", mp.exp(S[3][t]))
    for j in range(d):
        put(f"h_final[{j}]", h[j])
    put("sum_exp", mp.fsum(mp.exp(z) for z in logits))
    put("loss", -mp.log(p[TGT]))
    for T_ in ("0.5", "1", "2"):
        pt = softmax([z / D(T_) for z in logits])
        for v in range(len(p)):
            put(f"softmax_T({T_}, {v})", pt[v])
    topk = order[:2]
    kept, acc = [], D(0)
    for v in order:
        kept.append(v)
        acc += p[v]
        if acc >= D("0.8"):
            break
    for v in range(len(p)):
        y = 1 if v == TGT else 0
        put(f"logits[{VOCAB[v]}]", logits[v])
        put(f"p[{VOCAB[v]}]", p[v])
        put(f"grad_logits[{VOCAB[v]}]", p[v] - y)
        put(f"topk(2, {v})", p[v] / mp.fsum(p[u] for u in topk) if v in topk else D(0))
        put(f"topp(0.8, {v})", p[v] / mp.fsum(p[u] for u in kept) if v in kept else D(0))
        for j in range(d):
            put(f"E[{VOCAB[v]},{j}]", E[v][j])
            put(f"grad_E_head[{VOCAB[v]},{j}]", (p[v] - y) * h[j])
    put("p[я]+p[чай]", p[1] + p[5])
    put("p[я]+p[чай]+p[пить]", p[1] + p[5] + p[3])
    assert [VOCAB[v] for v in order[:3]] == ["я", "чай", "пить"] and len(kept) == 3
    assert order[0] == 1                                            # greedy picks «я»
    return val


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def as_doc(s: str) -> str:
    """'−0,5744' / '26,92%' → '-0.5744' / '26.92%' (the document's comma and Unicode minus)."""
    return s.strip().strip("`").replace("\u2212", "-").replace(",", ".").replace(" ", "")


def main() -> int:
    values = model()
    key = HERE / "KEY.md"
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if printed not in doc[line - 1]:
            print(f"  {printed:>10}  NOT ON LINE {line}: {doc[line - 1]!r}")
            bad += 1
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        shown = as_doc(cells[4]) if len(cells) == 7 else as_doc(printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if pct else "")
        if len(cells) == 7:
            n_planted += 1
            exact = D(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = shown == right and abs(exact - v) <= D("1e-10") * abs(v) and right != as_doc(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            note = "correct" if right == as_doc(printed) else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    assert n_planted == 8 and n_correct == 10, (n_planted, n_correct)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
