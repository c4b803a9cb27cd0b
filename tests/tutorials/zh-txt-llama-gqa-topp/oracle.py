#!/usr/bin/env python3
"""Independent check of zh-txt-llama-gqa-topp: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every quantity the document prints, then every KEY.md row checked against it

Model (read from the weights below, the same numbers as SPEC.toml): a one-layer Llama block.
X = E[ids]; LN1 = RMSNorm(X) (γ = 1, ε = 1e-5, ms = mean of squares); Q = LN1·W_Q (2 heads of d_k = 2),
K = LN1·W_K, V = LN1·W_V (one shared K/V head, grouped-query attention); RoPE in Hugging Face's rotate_half
convention: with d_k = 2 column 0 pairs with column 1 of each head, angle t·θ, θ = 10000^0 = 1 (t from 0);
S[h,t,s] = Q_rot_h[t]·K_rot[s]/√2, causal softmax A; Attn = A·V per head, heads side by side (no W_O);
H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1 (gate), U = LN2·W_3 (up), R = SiLU(Z)·U, F = R·W_2;
H2 = H1 + F; LN_f = RMSNorm(H2); logits = LN_f[2]·W_out; p = softmax; loss = −ln p[苹果].
Sampling: softmax(logits/T) for T = 0.7, 1.5; top-k (k = 3) and top-p (P = 0.85, shortest prefix of the
ranking with mass ≥ P), each renormalised over the kept tokens.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["我", "喜欢", "吃", "苹果", "香蕉", "。"]
IDS, TARGET = [0, 1, 2], 3
EPS = mp.mpf("1e-5")
HEADS, KV_HEADS, DK = 2, 1, 2


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E = M([[0.5, -0.2, 0.3, 0.1], [0.2, 0.6, -0.4, 0.3], [-0.3, 0.4, 0.5, -0.1],
       [0.4, 0.1, -0.2, 0.7], [0.1, -0.5, 0.6, 0.2], [-0.2, 0.3, 0.1, -0.4]])
W_out = M([[0.6, -0.3, 0.2, 0.8, 0.5, -0.4], [0.1, 0.7, -0.2, 0.4, -0.3, 0.2],
           [-0.5, 0.2, 0.6, 0.3, 0.7, 0.1], [0.3, -0.4, 0.1, 0.9, 0.2, -0.6]])
W_Q = M([[0.5, -0.3, 0.2, 0.4], [0.1, 0.6, -0.5, 0.2], [-0.4, 0.2, 0.3, 0.6], [0.3, -0.1, 0.4, -0.2]])
W_K = M([[0.4, 0.3], [-0.3, 0.5], [0.6, -0.2], [0.2, 0.4]])
W_V = M([[0.2, -0.4], [0.6, 0.3], [-0.2, 0.6], [0.1, 0.3]])
W_1 = M([[0.3, -0.2, 0.5, 0.1, -0.4, 0.2], [0.4, 0.1, -0.3, 0.6, 0.2, -0.1],
         [-0.2, 0.5, 0.1, 0.3, 0.4, 0.6], [0.1, 0.3, -0.6, -0.2, 0.5, 0.4]])
W_3 = M([[0.2, 0.4, -0.1, 0.3, 0.5, -0.3], [-0.3, 0.2, 0.6, 0.1, -0.2, 0.4],
         [0.5, -0.1, 0.2, 0.4, 0.3, 0.1], [0.1, 0.6, 0.3, -0.5, 0.2, 0.2]])
W_2 = M([[0.4, -0.2, 0.3, 0.1], [0.2, 0.5, -0.1, 0.3], [-0.3, 0.1, 0.4, 0.2],
         [0.1, 0.3, 0.2, -0.4], [0.5, -0.3, 0.1, 0.2], [0.2, 0.4, -0.2, 0.1]])
TEMPS = [mp.mpf("0.7"), mp.mpf("1.5")]
TOP_K, TOP_P = 3, mp.mpf("0.85")


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H):
    ms = [mp.fsum(x * x for x in r) / len(r) for r in H]
    return ms, [[x / mp.sqrt(m + EPS) for x in r] for r, m in zip(H, ms)]


def rope(Mx):
    """Each pair (column 2a, column 2a+1) turned by angle t (θ = 1 with d_k = 2)."""
    out = []
    for t, r in enumerate(Mx):
        c, s = mp.cos(t), mp.sin(t)
        row = []
        for a in range(0, len(r), 2):
            row += [r[a] * c - r[a + 1] * s, r[a + 1] * c + r[a] * s]
        out.append(row)
    return out


def forward():
    T = len(IDS)
    X = [E[i][:] for i in IDS]
    ms1, LN1 = rmsnorm(X)
    Q, K, V = matmul(LN1, W_Q), matmul(LN1, W_K), matmul(LN1, W_V)
    Qr, Kr = rope(Q), rope(K)
    S = [[[None] * T for _ in range(T)] for _ in range(HEADS)]
    A = [[[mp.mpf(0)] * T for _ in range(T)] for _ in range(HEADS)]
    A_den = [[None] * T for _ in range(HEADS)]
    Attn = [[mp.mpf(0)] * 4 for _ in range(T)]
    for h in range(HEADS):
        kv = h // (HEADS // KV_HEADS)
        for t in range(T):
            for s in range(T):
                S[h][t][s] = mp.fsum(Qr[t][h * DK + j] * Kr[s][kv * DK + j] for j in range(DK)) / mp.sqrt(DK)
            A_den[h][t] = mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1))
            for s in range(t + 1):
                A[h][t][s] = mp.exp(S[h][t][s]) / A_den[h][t]
            for j in range(DK):
                Attn[t][h * DK + j] = mp.fsum(A[h][t][s] * V[s][kv * DK + j] for s in range(T))
    H1 = [[X[t][j] + Attn[t][j] for j in range(4)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1)
    Z, U = matmul(LN2, W_1), matmul(LN2, W_3)
    silu = lambda z: z / (1 + mp.exp(-z))
    R = [[silu(z) * u for z, u in zip(rz, ru)] for rz, ru in zip(Z, U)]
    F = matmul(R, W_2)
    H2 = [[H1[t][j] + F[t][j] for j in range(4)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2)
    h = LN_f[-1]
    logits = [mp.fsum(h[j] * W_out[j][v] for j in range(4)) for v in range(6)]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    loss = -mp.log(p[TARGET])

    q = {}
    def put(name, arr):
        if isinstance(arr, list):
            def rec(prefix, a):
                if isinstance(a, list):
                    for i, x in enumerate(a):
                        rec(prefix + [i], x)
                elif a is not None:
                    q[f"{name}[{','.join(map(str, prefix))}]"] = a
            rec([], arr)
        else:
            q[name] = arr
    for name, arr in (("X", X), ("ms1", ms1), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Q_rot", Qr),
                      ("K_rot", Kr), ("S", S), ("A_den", A_den), ("A", A), ("Attn", Attn), ("H1", H1),
                      ("ms2", ms2), ("LN2", LN2), ("Z", Z), ("U", U), ("R", R), ("F", F), ("H2", H2),
                      ("ms_f", ms_f), ("LN_f", LN_f), ("h_final", h), ("logits", logits), ("sum_exp", sum_exp),
                      ("p", p), ("loss", loss), ("E", E), ("W_out", W_out)):
        put(name, arr)
    for t in range(T):
        q[f"sqrt(ms1[{t}] + ln_eps)"] = mp.sqrt(ms1[t] + EPS)
        q[f"sqrt(ms2[{t}] + ln_eps)"] = mp.sqrt(ms2[t] + EPS)
        q[f"sqrt(ms_f[{t}] + ln_eps)"] = mp.sqrt(ms_f[t] + EPS)
    for h_ in range(HEADS):
        for s in range(T):
            q[f"exp(S[{h_},2,{s}])"] = mp.exp(S[h_][2][s])
    for v in range(6):
        q[f"exp(logits[{v}])"] = mp.exp(logits[v])
    for t in range(6):
        q[f"silu(Z[2,{t}])"] = silu(Z[2][t])
    # sampling
    for Tm in TEMPS:
        den = mp.fsum(mp.exp(z / Tm) for z in logits)
        for v in range(6):
            q[f"softmax_T({mp.nstr(Tm, 3)}, {v})"] = mp.exp(logits[v] / Tm) / den
    order = sorted(range(6), key=lambda v: (-p[v], v))
    kept_k = order[:TOP_K]
    mass_k = mp.fsum(p[v] for v in kept_k)
    for v in kept_k:
        q[f"topk({TOP_K}, {v})"] = p[v] / mass_k
    cum, kept_p = mp.mpf(0), []
    for v in order:
        kept_p.append(v)
        cum += p[v]
        q[f"cum[{v}]"] = cum          # running total of the ranking (no symgpt name: a sum of p's)
        if cum >= TOP_P:
            break
    for v in kept_p:
        q[f"topp({mp.nstr(TOP_P, 2)}, {v})"] = p[v] / cum
    q["top-p mass"] = cum
    mass_k_name = " + ".join(f"p[{v}]" for v in kept_k)
    q[mass_k_name] = mass_k                    # the top-k mass the text prints (0.7416)
    # figures the text prints that are no model quantity, and the planted errors' own arithmetic
    q["mean(H1[2])"] = mp.fsum(H1[2]) / 4      # μ of §八
    q["var(H1[2])"] = mp.fsum((x - q["mean(H1[2])"]) ** 2 for x in H1[2]) / 4   # the variance planted as ms
    q["cos 1"], q["sin 1"], q["cos 2"], q["sin 2"] = mp.cos(1), mp.sin(1), mp.cos(2), mp.sin(2)
    q["sqrt 2"], q["ln 6"] = mp.sqrt(2), mp.log(6)
    q["Q[2,2] cos 2"] = Q[2][2] * mp.cos(2)    # the forgotten-term value 0.1748
    q["-ln 0.3895"] = -mp.log(mp.mpf("0.3895"))
    return q


def aliases(q):
    """Token spellings: p[苹果] for p[3], softmax_T(0.7, 苹果) for softmax_T(0.7, 3), topk/topp likewise."""
    out = dict(q)
    for k, v in q.items():
        for i, w in enumerate(VOCAB):
            if k in (f"p[{i}]", f"logits[{i}]", f"exp(logits[{i}])", f"cum[{i}]"):
                out[k.replace(f"[{i}]", f"[{w}]")] = v
            m = re.fullmatch(r"(softmax_T|topk|topp)\((.+), (\d)\)", k)
            if m and int(m[3]) == i:
                out[f"{m[1]}({m[2]}, {w})"] = v
    return out


def main() -> int:
    q = aliases(forward())
    print("zh-txt-llama-gqa-topp: quantities")
    for k in sorted(k for k in q if not k.startswith(("E[", "W_out["))):
        print(f"  {k:<28} {mp.nstr(q[k], 20)}")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    bad = 0
    print("KEY rows:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = q[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        line = int(cells[1])
        on_line = printed in doc[line - 1] if 0 < line <= len(doc) else False
        if not on_line:
            note += f", BUT NOT ON LINE {line} OF DOC.txt"
            ok = False
        bad += not ok
        print(f"  {printed:>10}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
        assert ok, f"KEY row {printed!r} ({ref}) disagrees with the oracle or the document"
    print(f"{len(rows)} key rows, all agree with the oracle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
