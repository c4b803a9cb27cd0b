#!/usr/bin/env python3
"""Independent check of ar-txt-seed-topp: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # recompute every figure from SPEC.toml and check KEY.md against it

Model (the seed's block): H0 = E[ids] + PE with PE[t] = (sin t, cos t) for d = 2 (base 10000,
one frequency); Q, K, V = H0·W; S = Q·Kᵀ/√d_k; causal softmax A; Attn = A·V; H1 = H0 + Attn;
LN1 (biased variance, eps); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2;
logits = LN2[T-1]·Eᵀ (tied head); p = softmax; loss = -ln p[target].  Sampling: softmax at
temperature T, top-k renormalisation, top-p (shortest prefix of the ranking with mass >= P).
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def num(x):
    return mp.mpf(str(x))


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def compute():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    d, eps, base = m["d"], num(m["ln_eps"]), num(m.get("pe_base", 10000))
    E = M(w["E"])
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    WQ, WK, WV = M(L["W_Q"]), M(L["W_K"]), M(L["W_V"])
    W1, b1, W2, b2 = M(L["W_1"]), M(L["b_1"]), M(L["W_2"]), M(L["b_2"])
    T = len(ids)
    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [E[i][:] for i in ids]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    dk = d // m["heads"]
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1, eps)
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2, eps)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    val = {}

    def put(name, mat, rows=None, cols=None):
        if isinstance(mat, list) and isinstance(mat[0], list):
            for i, r in enumerate(mat):
                for j, x in enumerate(r):
                    val[f"{name}[{rows[i] if rows else i},{cols[j] if cols else j}]"] = x
        elif isinstance(mat, list):
            for i, x in enumerate(mat):
                val[f"{name}[{rows[i] if rows else i}]"] = x
        else:
            val[name] = mat

    for n, x in dict(PE=PE, X=X, H0=H0, Q=Q, K=K, V=V, S=S, A=A, Attn=Attn, H1=H1, LN1=LN1, Z=Z, R=R, F=F,
                     H2=H2, LN2=LN2).items():
        put(n, x)
    for n, x in dict(A_den=A_den, mu1=mu1, var1=var1, mu2=mu2, var2=var2, h_final=hf).items():
        put(n, x)
    put("E", E, rows=vocab)
    put("logits", logits, rows=vocab)
    put("p", p, rows=vocab)
    val["sum_exp"], val["loss"], val["ln_eps"] = sum_exp, -mp.log(p[tgt]), eps
    # extras a reader computes on the way
    for t in range(T):
        val[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(var1[t] + eps)
        val[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(var2[t] + eps)
        val[f"var1_unbiased[{t}]"] = var1[t] * d / (d - 1)
        val[f"var2_unbiased[{t}]"] = var2[t] * d / (d - 1)
        for s in range(T):
            val[f"exp(S[{t},{s}])"] = mp.exp(S[t][s])
            val[f"Q[{t},:]·K[{s},:]"] = S[t][s] * mp.sqrt(dk)
    for v, tok in enumerate(vocab):
        val[f"exp(logits[{tok}])"] = mp.exp(logits[v])
    # sampling
    smp = spec.get("sampling", {})
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    for Tt in smp.get("temperatures", []):
        Tm = num(Tt)
        zs = mp.fsum(mp.exp(z / Tm) for z in logits)
        val[f"sum(exp(logits/{Tt}))"] = zs
        for v, tok in enumerate(vocab):
            val[f"logits[{tok}]/{Tt}"] = logits[v] / Tm
            val[f"exp(logits[{tok}]/{Tt})"] = mp.exp(logits[v] / Tm)
            val[f"softmax_T({Tt}, {tok})"] = mp.exp(logits[v] / Tm) / zs
    k = smp.get("top_k", 3)
    keep = order[:k]
    mass = mp.fsum(p[v] for v in keep)
    val[f"topk_mass({k})"] = mass
    for v, tok in enumerate(vocab):
        val[f"topk({k}, {tok})"] = p[v] / mass if v in keep else mp.mpf(0)
    P = num(smp.get("top_p", 0.9))
    cum, kept = mp.mpf(0), []
    for r, v in enumerate(order):
        if cum < P:
            kept.append(v)
        cum += p[v]
        val[f"cum[{r + 1}]"] = cum
    pmass = mp.fsum(p[v] for v in kept)
    val[f"topp_mass({smp.get('top_p')})"] = pmass
    for v, tok in enumerate(vocab):
        val[f"topp({smp.get('top_p')}, {tok})"] = p[v] / pmass if v in kept else mp.mpf(0)
    return val, dict(vocab=vocab, order=order, kept=kept, keep=keep, tgt=tgt)


def main() -> int:
    val, info = compute()
    vocab = info["vocab"]
    # cumulative sums of the sorted table, under the names a reader of the key uses
    for r in range(1, len(vocab) + 1):
        val[" + ".join(f"p[{vocab[v]}]" for v in info["order"][:r])] = val[f"cum[{r}]"]
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in val), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if printed not in doc[line - 1]:
            print(f"  {printed:>10}  NOT ON LINE {line}: {doc[line - 1]!r}")
            bad += 1
            continue
        v = val[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            pl = printed.rstrip("%")
            differs = rnd(v, len(pl.split(".")[1]) if "." in pl else 0) != pl
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and differs
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    n_planted = sum(1 for r in rows if len([c for c in r.strip().strip('|').split('|')]) == 7)
    if n_planted != 8:
        print(f"  expected 8 planted rows, found {n_planted}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
