#!/usr/bin/env python3
"""Independent computation behind KEY.md of zh-txt-seed-T3-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity's value, the rounding check, the line check

Model (read from SPEC.toml with tomllib): one post-LN block, one head, d = 2, d_ff = 4, tied head.
H0 = E[ids] + PE, PE[t] = (sin t, cos t) for d = 2 (base^(0/2) = 1); Q, K, V = H0·W;
S = Q·Kᵀ/√2 (before the mask), causal softmax A; Attn = A·V; H1 = H0 + Attn;
LN1 = γ1·(H1 − μ)/√(σ² + ε) + β1 (biased variance); Z = LN1·W_1 + b_1; R = ReLU(Z);
F = R·W_2 + b_2; H2 = LN1 + F; LN2 likewise with γ2, β2; logits = LN2[T−1]·Eᵀ; p = softmax;
loss = −ln p[target]. Sampling: softmax(z/T); top-k renormalised over the k largest;
top-p keeps the shortest prefix of the ranking whose mass is ≥ P, renormalised; greedy = argmax.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(h, g, b, eps):
    d = len(h)
    mu = mp.fsum(h) / d
    var = mp.fsum((x - mu) ** 2 for x in h) / d
    nrm = [(x - mu) / mp.sqrt(var + eps) for x in h]
    return mu, var, nrm, [g[j] * nrm[j] + b[j] for j in range(d)]


def compute() -> dict:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d, base = spec["model"]["d"], mp.mpf(str(spec["model"].get("pe_base", 10000)))
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    E = M(spec["weights"]["E"])
    L = spec["layer"][0]
    WQ, WK, WV, W1, b1, W2, b2 = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"))
    g1, be1, g2, be2 = (M(L[k]) for k in ("gamma1", "beta1", "gamma2", "beta2"))
    T = len(ids)

    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    LNa = [layernorm(H1[t], g1, be1, eps) for t in range(T)]
    LN1 = [x[3] for x in LNa]
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    LNb = [layernorm(H2[t], g2, be2, eps) for t in range(T)]
    LN2 = [x[3] for x in LNb]
    z = [mp.fsum(LN2[-1][j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(x) for x in z)
    p = [mp.exp(x) / sum_exp for x in z]

    val: dict[str, mp.mpf] = {}
    tok = lambda v: vocab[v]
    for t in range(T):
        for j in range(d):
            for name, X in (("PE", PE), ("H0", H0), ("Q", Q), ("K", K), ("V", V), ("Attn", Attn), ("H1", H1),
                            ("LN1", LN1), ("F", F), ("H2", H2), ("LN2", LN2)):
                val[f"{name}[{t},{j}]"] = X[t][j]
            val[f"(H1[{t},{j}]-mu1[{t}])/sqrt(var1[{t}]+ln_eps)"] = LNa[t][2][j]
            val[f"(H2[{t},{j}]-mu2[{t}])/sqrt(var2[{t}]+ln_eps)"] = LNb[t][2][j]
        for s in range(T):
            val[f"S[{t},{s}]"] = S[t][s]
            val[f"S[{t},{s}]*sqrt(2)"] = S[t][s] * mp.sqrt(2)
            val[f"exp(S[{t},{s}])"] = mp.exp(S[t][s])
            val[f"A[{t},{s}]"] = A[t][s]
        for k in range(len(b1)):
            val[f"Z[{t},{k}]"], val[f"R[{t},{k}]"] = Z[t][k], R[t][k]
        val[f"A_den[{t}]"] = A_den[t]
        val[f"mu1[{t}]"], val[f"var1[{t}]"] = LNa[t][0], LNa[t][1]
        val[f"mu2[{t}]"], val[f"var2[{t}]"] = LNb[t][0], LNb[t][1]
        val[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(LNa[t][1] + eps)
        val[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(LNb[t][1] + eps)
    for v in range(len(vocab)):
        val[f"logits[{tok(v)}]"] = z[v]
        val[f"exp(logits[{tok(v)}])"] = mp.exp(z[v])
        val[f"p[{tok(v)}]"] = p[v]
    val["sum_exp"] = sum_exp
    val["loss"] = -mp.log(p[tgt])

    # sampling
    for Tm in spec.get("sampling", {}).get("temperatures", [0.5, 1, 2]):
        Tq = mp.mpf(str(Tm))
        e = [mp.exp(x / Tq) for x in z]
        s = mp.fsum(e)
        name = str(Tm).rstrip("0").rstrip(".") if "." in str(Tm) else str(Tm)
        for v in range(len(vocab)):
            val[f"softmax_T({name}, {tok(v)})"] = e[v] / s
        val[f"sum_exp_T({name})"] = s
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    k = spec["sampling"]["top_k"]
    mk = mp.fsum(p[v] for v in order[:k])
    for v in order[:k]:
        val[f"topk({k}, {tok(v)})"] = p[v] / mk
    P = mp.mpf(str(spec["sampling"]["top_p"]))
    cum, kept = mp.mpf(0), []
    for v in order:
        kept.append(v)
        cum += p[v]
        if cum >= P:
            break
    for v in kept:
        val[f"topp({spec['sampling']['top_p']}, {tok(v)})"] = p[v] / cum
    run = mp.mpf(0)
    for i, v in enumerate(order):
        run += p[v]
        val["+".join(f"p[{tok(u)}]" for u in order[: i + 1])] = run
    val["_order"], val["_kept_p"], val["_kept_k"] = order, kept, order[:k]
    val["_argmax"] = order[0]
    val["_vocab"] = vocab
    return val


def main() -> int:
    values = compute()
    vocab = values["_vocab"]
    print("ranking:", " ".join(vocab[v] for v in values["_order"]),
          "| top-k keeps", "".join(vocab[v] for v in values["_kept_k"]),
          "| top-p keeps", "".join(vocab[v] for v in values["_kept_p"]),
          "| greedy:", vocab[values["_argmax"]])
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})  NO VALUE")
            bad += 1
            continue
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown.replace("−", "-") == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and rnd(v, len(printed.rstrip("%").split(".")[1]) if "." in printed else 0)
                  + ("%" if printed.endswith("%") else "") != printed.replace("−", "-"))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            ok = right == printed.replace("−", "-")
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
            correct += 1
        if not on_line:
            note += ", NOT ON LINE"
        bad += (not ok) or (not on_line)
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
