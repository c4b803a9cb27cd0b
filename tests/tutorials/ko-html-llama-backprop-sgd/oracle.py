#!/usr/bin/env python3
"""Independent mpmath computation (50 digits, no symgpt) for ko-html-llama-backprop-sgd.

    python oracle.py     # prints every KEY.md row's quantity with its exact value and checks
                         # the key's "exact value" and "correct rounding" columns against it

Model (SPEC.toml): Llama block, 1 layer, 1 head, d = 4, d_ff = 6, V = 6, T = 3, untied head, no biases.
X = E[ids]; LN1 = RMSNorm(X) (γ = 1, ε = 1e-5); Q, K, V = LN1·W; RoPE in Hugging Face's rotate_half
convention (pairs (i, i + 2), θ_i = 10000^(-2i/4)); S = Q̃K̃ᵀ/√4, causal softmax A; Attn = A·V;
H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1 (gate g), U = LN2·W_3 (up u); R = SiLU(Z)⊙U;
F = R·W_2; H2 = H1 + F; LN_f = RMSNorm(H2); h_final = LN_f[T-1]; logits = h_final·W_out;
p = softmax; loss = -ln p[target].  Backward: grad_logits = p - y; grad_W_out = outer(h_final, p - y);
grad_h_final = W_out·(p - y); back through the final RMSNorm at t = 2; one SGD step (lr 0.1) on W_out
(head_step): W_out - lr·grad_W_out, new logits = h_final·W_out_new, p and loss from them.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["나는", "밥을", "물을", "맛있게", "먹었다", "마셨다"]
IDS = [0, 1, 3]
TGT = 4
EPS = mp.mpf(1) / 100000
LR = mp.mpf(1) / 10


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E = M([[0.52, -0.21, 0.33, 0.14], [-0.13, 0.44, 0.25, -0.32], [0.21, 0.36, -0.41, 0.12],
       [0.35, 0.12, 0.48, -0.27], [-0.42, 0.23, 0.15, 0.61], [0.17, -0.54, 0.26, 0.31]])
W_out = M([[0.31, -0.22, 0.12, 0.43, 0.25, -0.14], [-0.15, 0.41, 0.23, -0.34, 0.18, 0.36],
           [0.24, 0.13, -0.35, 0.21, 0.46, -0.27], [0.42, -0.33, 0.16, 0.11, -0.24, 0.52]])
W_Q = M([[0.21, -0.12, 0.33, 0.14], [0.15, 0.32, -0.24, 0.22], [-0.31, 0.25, 0.13, 0.41], [0.23, 0.11, 0.26, -0.17]])
W_K = M([[0.12, 0.24, -0.13, 0.35], [0.31, -0.22, 0.27, 0.14], [0.25, 0.16, 0.42, -0.21], [-0.14, 0.33, 0.11, 0.23]])
W_V = M([[0.43, 0.12, -0.25, 0.21], [-0.16, 0.34, 0.22, 0.13], [0.27, -0.31, 0.15, 0.36], [0.11, 0.24, 0.32, -0.23]])
W_1 = M([[0.32, -0.21, 0.14, 0.43, -0.12, 0.25], [0.11, 0.42, -0.33, 0.24, 0.31, -0.15],
         [-0.23, 0.16, 0.22, 0.35, 0.13, 0.41], [0.26, 0.34, 0.12, -0.22, 0.44, 0.17]])
W_3 = M([[0.24, 0.13, -0.31, 0.22, 0.35, 0.12], [-0.14, 0.21, 0.43, 0.15, -0.23, 0.32],
         [0.33, -0.12, 0.25, 0.41, 0.16, -0.24], [0.15, 0.36, 0.11, -0.13, 0.22, 0.45]])
W_2 = M([[0.23, -0.14, 0.31, 0.12], [0.15, 0.33, -0.22, 0.24], [-0.32, 0.21, 0.16, 0.43],
         [0.41, 0.13, 0.25, -0.15], [0.12, -0.24, 0.34, 0.21], [0.26, 0.42, -0.11, 0.14]])


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H):
    ms = [mp.fsum(x * x for x in row) / len(row) for row in H]
    r = [mp.sqrt(m + EPS) for m in ms]
    return ms, r, [[x / r[t] for x in H[t]] for t in range(len(H))]


def rope(Mx):
    out = []
    for t, row in enumerate(Mx):
        new = row[:]
        for i in range(2):
            th = t * mp.power(10000, -mp.mpf(2 * i) / 4)
            c, s = mp.cos(th), mp.sin(th)
            new[i] = row[i] * c - row[i + 2] * s
            new[i + 2] = row[i + 2] * c + row[i] * s
        out.append(new)
    return out


def silu(z):
    return z / (1 + mp.exp(-z))


def compute():
    q = {}
    T, d, dff, V = 3, 4, 6, 6
    X = [E[i][:] for i in IDS]
    ms1, r1, LN1 = rmsnorm(X)
    Q, K, Vv = matmul(LN1, W_Q), matmul(LN1, W_K), matmul(LN1, W_V)
    Qr, Kr = rope(Q), rope(K)
    S = [[mp.fsum(Qr[t][j] * Kr[s][j] for j in range(d)) / 2 for s in range(T)] for t in range(T)]
    A = []
    for t in range(T):
        den = mp.fsum(mp.exp(S[t][s]) for s in range(t + 1))
        A.append([mp.exp(S[t][s]) / den if s <= t else mp.mpf(0) for s in range(T)])
    Attn = [[mp.fsum(A[t][s] * Vv[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, r2, LN2 = rmsnorm(H1)
    Z, U = matmul(LN2, W_1), matmul(LN2, W_3)
    R = [[silu(Z[t][k]) * U[t][k] for k in range(dff)] for t in range(T)]
    F = matmul(R, W_2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    msf, rf, LNf = rmsnorm(H2)
    h = LNf[T - 1]
    logits = [mp.fsum(h[j] * W_out[j][v] for j in range(d)) for v in range(V)]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    loss = -mp.log(p[TGT])
    y = [1 if v == TGT else 0 for v in range(V)]
    gl = [p[v] - y[v] for v in range(V)]
    gWo = [[h[j] * gl[v] for v in range(V)] for j in range(d)]
    gh = [mp.fsum(W_out[j][v] * gl[v] for v in range(V)) for j in range(d)]
    # back through the final RMSNorm at the last position (γ = 1): y_k = h_k / r
    t = T - 1
    Hl, r = H2[t], rf[t]
    dot = mp.fsum(gh[k] * Hl[k] for k in range(d))          # Σ_k g_k h_k
    gms = -dot / (2 * r ** 3)                               # ∂L/∂ms_f
    gH2 = [gh[j] / r - Hl[j] * dot / (d * r ** 3) for j in range(d)]
    # one SGD step on W_out (everything else frozen), then the new logits / p / loss
    Wn = [[W_out[j][v] - LR * gWo[j][v] for v in range(V)] for j in range(d)]
    ln = [mp.fsum(h[j] * Wn[j][v] for j in range(d)) for v in range(V)]
    sn = mp.fsum(mp.exp(z) for z in ln)
    pn = [mp.exp(z) / sn for z in ln]

    for t in range(T):
        q[f"ms1[{t}]"] = ms1[t]; q[f"ms2[{t}]"] = ms2[t]; q[f"ms_f[{t}]"] = msf[t]
        q[f"sqrt(ms1[{t}] + ln_eps)"] = r1[t]; q[f"sqrt(ms2[{t}] + ln_eps)"] = r2[t]
        q[f"sqrt(ms_f[{t}] + ln_eps)"] = rf[t]
        for s in range(T):
            q[f"S[{t},{s}]"] = S[t][s]; q[f"A[{t},{s}]"] = A[t][s]
        for j in range(d):
            for nm, Mx in (("X", X), ("LN1", LN1), ("Q", Q), ("K", K), ("V", Vv), ("Q_rot", Qr), ("K_rot", Kr),
                           ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("F", F), ("H2", H2), ("LN_f", LNf)):
                q[f"{nm}[{t},{j}]"] = Mx[t][j]
        for k in range(dff):
            q[f"Z[{t},{k}]"] = Z[t][k]; q[f"U[{t},{k}]"] = U[t][k]; q[f"R[{t},{k}]"] = R[t][k]
            q[f"silu(Z[{t},{k}])"] = silu(Z[t][k])
    for j in range(d):
        q[f"h_final[{j}]"] = h[j]; q[f"grad_h_final[{j}]"] = gh[j]; q[f"grad_LN_f[2,{j}]"] = gh[j]
        q[f"grad_H2[2,{j}]"] = gH2[j]
        for v in range(V):
            q[f"W_out[{j},{VOCAB[v]}]"] = W_out[j][v]
            q[f"grad_W_out[{j},{VOCAB[v]}]"] = gWo[j][v]
            q[f"head_step.W_out[{j},{VOCAB[v]}]"] = Wn[j][v]
    for v in range(V):
        tok = VOCAB[v]
        q[f"logits[{tok}]"] = logits[v]; q[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        q[f"p[{tok}]"] = p[v]; q[f"grad_logits[{tok}]"] = gl[v]
        q[f"head_step.logits[{tok}]"] = ln[v]; q[f"head_step.p[{tok}]"] = pn[v]
    q["sum_exp"] = se; q["loss"] = loss
    q["grad_ms_f[2]"] = gms
    q["sum(grad_h_final[j]*H2[2,j])"] = dot
    q["head_step.sum_exp"] = sn; q["head_step.loss"] = -mp.log(pn[TGT])
    return q


def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def key_rows():
    """(printed, exact, correct, quantity) of the planted rows and (printed, quantity) of the correct rows."""
    text = (HERE / "KEY.md").read_text(encoding="utf-8")
    planted, correct = [], []
    section = None
    for line in text.splitlines():
        if line.startswith("## "):
            section = "planted" if "Planted" in line else "correct" if "Correct" in line else None
            continue
        if not line.startswith("| `") or section is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        bt = lambda c: re.findall(r"`([^`]*)`", c)
        if section == "planted":
            planted.append((bt(cells[0])[0], cells[3], bt(cells[4])[0], bt(cells[6])))
        else:
            correct.append((bt(cells[0])[0], bt(cells[3])))
    return planted, correct


def decimals(s: str) -> int:
    s = s.replace("−", "-").rstrip("%")
    return len(s.split(".")[1]) if "." in s else 0


# ---------------------------------------------------------------- every model figure DOC.html prints
# (line, printed, quantity); quantities are keys of compute() or callables on it.  The planted ones are
# listed too, marked True: they must NOT be the correct rounding.
_T = VOCAB
DOC_FIGURES = [
    (72, "45.09%", "A[2,0]", False), (72, "22.44%", "A[2,1]", False), (72, "3.247%", "A[2,2]", True),
] + [
    (83 + k, pr, f"{nm}[2,{k}]", plant)
    for k, row in enumerate([("0.5867", "0.7585", "0.2860"), ("−0.1169", "0.3712", "−0.0204"),
                             ("0.5385", "−0.4081", "−0.1388"), ("0.7468", "0.5018", "0.2543"),
                             ("0.1202", "0.9202", "0.0586"), ("0.8409", "0.3229", "0.2256")])
    for nm, pr, plant in zip(("Z", "U", "R"), row, (False, False, k == 5))
] + [
    (91, "0.3770", "silu(Z[2,0])", False), (91, "0.7585", "U[2,0]", False), (91, "0.2860", "R[2,0]", False),
    (94, "1.2652", "H2[2,0]", False), (94, "−0.1054", "H2[2,1]", False), (94, "0.4759", "H2[2,2]", False),
    (94, "0.3876", "H2[2,3]", False),
    (99, "0.7051", "sqrt(ms_f[2] + ln_eps)", False),
    (100, "1.7944", "h_final[0]", False), (100, "−0.1495", "h_final[1]", False), (100, "0.6794", "h_final[2]", True),
    (100, "0.5497", "h_final[3]", False),
    (108, "1.7944", "h_final[0]", False), (108, "−0.1495", "h_final[1]", False), (108, "0.6749", "h_final[2]", False),
    (108, "0.5497", "h_final[3]", False), (108, "0.6002", "logits[먹었다]", False),
] + [
    (113 + v, pr, f"{nm}[{_T[v]}]", False)
    for v, row in enumerate([("0.9716", "2.6421", "0.2730"), ("−0.5497", "0.5771", "0.0596"),
                             ("0.0327", "1.0332", "0.1068"), ("1.0246", "2.7861", "0.2879"),
                             ("0.6002", "1.8225", "0.1883"), ("−0.2014", "0.8176", "0.0845")])
    for nm, pr in zip(("logits", "exp(logits", "p"), row)
] + [
    (119, "9.6786", "sum_exp", True), (119, "1.0000", "sum(p)", False),
    (124, "0.1883", "p[먹었다]", False), (124, "1.6697", "loss", False),
    (133, "0.1883", "p[먹었다]", False), (133, "−0.8117", "grad_logits[먹었다]", False),
] + [
    (135, pr, f"grad_logits[{_T[v]}]", False)
    for v, pr in enumerate(["0.2730", "0.0596", "0.1068", "0.2879", "−0.8117", "0.0845"])
] + [
    (140, "1.7944", "h_final[0]", False), (140, "−0.8117", "grad_logits[먹었다]", False),
    (140, "−1.4565", "grad_W_out[0,먹었다]", False),
] + [
    (145 + j, pr, f"grad_W_out[{j},{_T[v]}]", (j, v) == (1, 4))
    for j, row in enumerate([["0.4898", "0.1070", "0.1916", "0.5165", "−1.4565", "0.1516"],
                             ["−0.0408", "−0.0089", "−0.0160", "−0.0430", "−0.1214", "−0.0126"],
                             ["0.1842", "0.0402", "0.0721", "0.1943", "−0.5478", "0.0570"],
                             ["0.1501", "0.0328", "0.0587", "0.1582", "−0.4462", "0.0464"]])
    for v, pr in enumerate(row)
] + [
    (158, "−0.0067", "grad_h_final[0]", False), (159, "−0.2056", "grad_h_final[1]", True),
    (160, "−0.2998", "grad_h_final[2]", False), (161, "0.3825", "grad_h_final[3]", False),
] + [
    (161, pr, f"grad_logits[{_T[v]}]", False)
    for v, pr in enumerate(["0.2730", "0.0596", "0.1068", "0.2879", "−0.8117", "0.0845"])
] + [
    (169, "−0.0268", "grad_ms_f[2]", False),
    (174, "−0.0264", "grad_H2[2,0]", False), (175, "−0.2901", "grad_H2[2,1]", False),
    (176, "−0.2998", "grad_h_final[2]", False), (176, "0.7051", "sqrt(ms_f[2] + ln_eps)", False),
    (176, "−0.0268", "grad_ms_f[2]", False), (176, "0.4759", "H2[2,2]", False), (176, "−0.4316", "grad_H2[2,2]", False),
    (177, "0.5424", "grad_H2[2,3]", True),
] + [
    (188 + j, pr, f"{nm}[{j},먹었다]", plant)
    for j, row in enumerate([("−1.4565", "0.3957"), ("0.1214", "0.1679"), ("−0.5478", "0.5148"), ("−0.4462", "−0.1954")])
    for nm, pr, plant in zip(("grad_W_out", "head_step.W_out"), row, (False, j == 0))
] + [
    (195, "3.9999", "sum(h_final^2)", False),
    (197, "0.6002", "logits[먹었다]", False), (197, "0.8117", "1 - p[먹었다]", False), (197, "3.9999", "sum(h_final^2)", False),
    (197, "0.9249", "head_step.logits[먹었다]", False),
    (199, "0.6002", "logits[먹었다]", False), (199, "0.9249", "head_step.logits[먹었다]", False),
]


def audit_doc(q) -> bool:
    q = dict(q)
    q["sum(p)"] = mp.fsum(q[f"p[{t}]"] for t in VOCAB)
    q["sum(h_final^2)"] = mp.fsum(q[f"h_final[{j}]"] ** 2 for j in range(4))
    q["1 - p[먹었다]"] = 1 - q["p[먹었다]"]
    for t in VOCAB:
        q[f"exp(logits[{t}]"] = q[f"exp(logits[{t}])"]
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").split("\n")
    ok = True
    for line, printed, ref, planted in DOC_FIGURES:
        pr = printed.replace("−", "-")
        pct = pr.endswith("%")
        want = rnd(q[ref] * (100 if pct else 1), decimals(pr)) + ("%" if pct else "")
        good = (want != pr) if planted else (want == pr)
        good &= printed in lines[line - 1]
        if not good:
            print(f"BAD doc figure line {line}: {printed} as {ref} (oracle {want}, planted={planted})")
        ok &= good
    print(f"## DOC.html audit: {len(DOC_FIGURES)} figures of model quantities, "
          f"{sum(1 for f in DOC_FIGURES if f[3])} planted, {'all as intended' if ok else 'MISMATCH'}")
    return ok


def main() -> int:
    q = compute()
    ok = True
    planted, correct = key_rows() if (HERE / "KEY.md").exists() else ([], [])
    print("## planted errors")
    for printed, exact, corr, refs in planted:
        v = q[refs[0]]
        scale = 100 if corr.endswith("%") else 1
        want = rnd(v * scale, decimals(corr)) + ("%" if corr.endswith("%") else "")
        ex = exact.replace("…", "").replace("−", "-").strip()
        exact_ok = mp.nstr(v * scale, 45, min_fixed=-60, max_fixed=60).startswith(ex) or \
            rnd(v * scale, len(ex.split(".")[1])) == ex or mp.nstr(v * scale, 45).startswith(ex)
        good = exact_ok and want == corr.replace("−", "-") and printed.replace("−", "-") != corr.replace("−", "-")
        ok &= good
        print(f"{'ok ' if good else 'BAD'} {refs[0]:28s} = {mp.nstr(v, 20):>24s}  printed {printed:>9s}  "
              f"key exact {ex:>18s}  key rounding {corr:>8s}  oracle rounding {want}")
    print("## correct figures")
    for printed, refs in correct:
        v = q[refs[0]]
        pr = printed.replace("−", "-")
        pct = pr.endswith("%")
        want = rnd(v * (100 if pct else 1), decimals(pr)) + ("%" if pct else "")
        good = want == pr
        ok &= good
        print(f"{'ok ' if good else 'BAD'} {refs[0]:28s} = {mp.nstr(v, 20):>24s}  printed {printed:>9s}  oracle {want}")
    if (HERE / "DOC.html").exists():
        ok &= audit_doc(q)
    print("ALL OK" if ok else "MISMATCH")
    assert ok, "key disagrees with the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
