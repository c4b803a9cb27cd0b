#!/usr/bin/env python3
"""Independent check of ko-md-gpt2-heads (plain mpmath, 50 digits, no symgpt).

    python oracle.py     # every KEY.md row: its quantity's value, its rounding, and its place in DOC.md

The model, read from SPEC.toml: a GPT-2 block (pre-LayerNorm, 2 heads, exact-erf GELU, learned positions,
biases everywhere, W_O, tied head). H0 = E[ids] + W_pe; LN1 = LN(H0); Q, K, V = LN1·W + b; per head h
(columns 2h, 2h+1): S = Q_h K_hᵀ/√2, causal softmax A; Attn_heads = concat_h(A_h V_h);
Attn = Attn_heads·W_O + b_O; H1 = H0 + Attn; LN2 = LN(H1); Z = LN2·W_1 + b_1; R = GELU(Z) = Z·Φ(Z);
F = R·W_2 + b_2; H2 = H1 + F; LN_f = LN(H2); h_final = LN_f[T-1]; logits = h_final·Eᵀ; p = softmax;
loss = −ln p[target]. γ = 1, β = 0 everywhere (the spec gives none). ∂L/∂logits = p − y; the target's
embedding row (not among the inputs) gets only the head's gradient (p[target] − 1)·h_final; SGD lr 0.1.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
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
    return s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def gelu(x):
    return x * (1 + mp.erf(x / mp.sqrt(2))) / 2


spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
vocab = spec["model"]["vocab"]
nh, eps, lr = spec["model"]["heads"], mp.mpf(str(spec["model"]["ln_eps"])), mp.mpf(str(spec["training"]["lr"]))
w, L = spec["weights"], spec["layer"][0]
E, Wpe = M(w["E"]), M(w["W_pe"])
WQ, WK, WV, WO = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_O"))
bQ, bK, bV, bO = (M(L[k]) for k in ("b_Q", "b_K", "b_V", "b_O"))
W1, b1, W2, b2 = M(L["W_1"]), M(L["b_1"]), M(L["W_2"]), M(L["b_2"])
ids = [vocab.index(t) for t in spec["data"]["input"]]
tgt = vocab.index(spec["data"]["target"])
T, d = len(ids), len(E[0])
dk = d // nh

X = [E[i][:] for i in ids]
H0 = [[X[t][j] + Wpe[t][j] for j in range(d)] for t in range(T)]
mu1, var1, LN1 = layernorm(H0, eps)
Q, K, Vv = addb(matmul(LN1, WQ), bQ), addb(matmul(LN1, WK), bK), addb(matmul(LN1, WV), bV)
S = [[[mp.fsum(Q[t][h * dk + j] * K[s][h * dk + j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)]
      for t in range(T)] for h in range(nh)]
A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(nh)]
A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
     for h in range(nh)]
heads_out = [[mp.fsum(A[j // dk][t][s] * Vv[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
Attn = addb(matmul(heads_out, WO), bO)
H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
mu2, var2, LN2 = layernorm(H1, eps)
Z = addb(matmul(LN2, W1), b1)
R = [[gelu(z) for z in r] for r in Z]
F = addb(matmul(R, W2), b2)
H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
muf, varf, LNf = layernorm(H2, eps)
hf = LNf[-1]
logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
sum_exp = mp.fsum(mp.exp(z) for z in logits)
p = [mp.exp(z) / sum_exp for z in logits]
loss = -mp.log(p[tgt])
grad_logits = [p[v] - (1 if v == tgt else 0) for v in range(len(E))]
assert tgt not in ids                                  # so E[target] gets the head's gradient alone
grad_E_tgt = [grad_logits[tgt] * hf[j] for j in range(d)]
new_E_tgt = [E[tgt][j] - lr * grad_E_tgt[j] for j in range(d)]

# ------------------------------------------------------------------ names as the key writes them
values: dict[str, mp.mpf] = {"loss": loss, "sum_exp": sum_exp, "lr": lr}
for t in range(T):
    for n, arr in (("mu1", mu1), ("var1", var1), ("mu2", mu2), ("var2", var2), ("mu_f", muf), ("var_f", varf)):
        values[f"{n}[{t}]"] = arr[t]
        if n.startswith("var"):
            values[f"sqrt({n}[{t}] + ln_eps)"] = mp.sqrt(arr[t] + eps)
    for j in range(d):
        for n, arr in (("X", X), ("PE", Wpe), ("H0", H0), ("LN1", LN1), ("Q", Q), ("K", K), ("V", Vv),
                       ("Attn_heads", heads_out), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("F", F),
                       ("H2", H2), ("LN_f", LNf)):
            values[f"{n}[{t},{j}]"] = arr[t][j]
    for k in range(len(b1)):
        values[f"Z[{t},{k}]"] = Z[t][k]
        values[f"R[{t},{k}]"] = R[t][k]
for h in range(nh):
    for t in range(T):
        values[f"A_den[{h},{t}]"] = A_den[h][t]
        for s in range(T):
            values[f"S[{h},{t},{s}]"] = S[h][t][s]
            values[f"A[{h},{t},{s}]"] = A[h][t][s]
            values[f"S[{h},{t},{s}]*sqrt(2)"] = S[h][t][s] * mp.sqrt(dk)
            values[f"exp(S[{h},{t},{s}])"] = mp.exp(S[h][t][s])
for j in range(d):
    values[f"h_final[{j}]"] = hf[j]
    values[f"grad_E[{vocab[tgt]},{j}]"] = grad_E_tgt[j]
    values[f"sgd[1].E[{vocab[tgt]},{j}]"] = new_E_tgt[j]
for v, tok in enumerate(vocab):
    values[f"logits[{tok}]"] = logits[v]
    values[f"exp(logits[{tok}])"] = mp.exp(logits[v])
    values[f"p[{tok}]"] = p[v]
    values[f"grad_logits[{tok}]"] = grad_logits[v]
# the remaining figures the post prints: Φ in its GELU example, ln 6 (uniform guessing), √2, the first
# LayerNorm's worked deviations, and the target's logit after the step with everything else held (h_final fixed)
values["Phi(Z[2,6])"] = mp.ncdf(Z[2][6])
values["ln(6)"] = mp.log(len(vocab))
values["sqrt(2)"] = mp.sqrt(2)
for j in range(d):
    values[f"H0[2,{j}] - mu1[2]"] = H0[2][j] - mu1[2]
values["sum((H0[2,:] - mu1[2])^2)"] = mp.fsum((x - mu1[2]) ** 2 for x in H0[2])
values["var1[2] + ln_eps"] = var1[2] + eps
values[f"head_step.logits[{vocab[tgt]}]"] = mp.fsum(hf[j] * new_E_tgt[j] for j in range(d))


def dump():
    """Every figure the document needs, to its printed precision (used while writing DOC.md)."""
    for k, v in values.items():
        print(f"{k:<28} {mp.nstr(v, 20)}")


def main() -> int:
    if "--dump" in sys.argv:
        dump()
        return 0
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        problems = []
        if (not (1 <= line <= len(doc))
                or printed not in doc[line - 1].replace("−", "-") and printed not in doc[line - 1]):
            problems.append(f"{printed!r} not on line {line}")
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact value {mp.nstr(v, 15)}, key says {cells[3]}")
            if right == printed.replace("−", "-"):
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees"
        else:
            correct += 1
            if right != printed.replace("−", "-"):
                problems.append(f"correct rounding is {right}")
            note = "correct"
        if problems:
            note = "KEY DISAGREES: " + "; ".join(problems)
            bad += 1
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    if (planted, correct) != (8, 10):
        print(f"expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
