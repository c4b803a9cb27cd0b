#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial pl-md-nanogpt-temp-topk (plain mpmath, 50 digits, no symgpt).

    python oracle.py           # every KEY.md row: its quantity, exact value, correct rounding, and a check that
                               # the key's "exact value" / "correct rounding" columns agree; then every figure of
                               # DOC.md listed in FIGURES below is checked against its quantity
    python oracle.py --dump    # the values used to write DOC.md

Model (nanoGPT, one block, one head, bias=True, tied head), positions t = 0, 1, 2 (the post numbers them 1, 2, 3):
  H0 = wte[ids] + wpe;  LN(h) = gamma (h - mu)/sqrt(var + eps) + beta (biased variance, eps = 1e-5)
  LN1 = LN(H0);  Q, K, V = LN1 W + b;  S = Q K^T / sqrt(4);  A = causal softmax(S);  Attn_heads = A V
  Attn = Attn_heads W_O + b_O;  H1 = H0 + Attn;  LN2 = LN(H1);  Z = LN2 W_1 + b_1
  R = GELU(Z) = Z/2 (1 + erf(Z/sqrt 2));  F = R W_2 + b_2;  H2 = H1 + F;  LN_f = LN(H2) with gamma_f, beta_f
  h_final = LN_f[2];  logits = h_final E^T;  p = softmax(logits);  loss = -ln p[i]
  softmax_T(tau, v) = softmax(logits / tau)[v];  topk(3, v) = p[v] / (sum of the 3 largest p), for v among them
  topp(0.9, v) = p[v] / (mass of the shortest prefix of the ranking with mass >= 0.9), for v in that prefix
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
VOCAB = ["Ala", "ma", "kota", "psa", "i", "mleko", "żółwia"]
IDS = [0, 1, 2]          # Ala ma kota
TARGET = 4               # i
EPS = mp.mpf("1e-5")
W = dict(
E = [[0.4, 0.1, 0.2, 0.3], [0.5, -0.1, -0.3, 0.4], [0.1, 0.3, 0.3, 0.0], [0.2, -0.3, 0.7, 0.2], [0.2, 0.3, -0.8, -0.2], [0.4, 0.0, -0.8, 0.0], [-0.3, -0.7, -0.4, 0.8]],
W_pe = [[-0.18, -0.12, 0.18, -0.08], [0.02, -0.09, -0.26, -0.14], [0.17, -0.29, 0.06, 0.14]],
W_Q = [[0.5, 0.3, -0.4, -0.7], [0.1, -0.1, -0.2, 0.7], [0.4, 0.5, 0.4, -0.2], [-0.5, 0.7, 0.5, 0.3]],
W_K = [[-0.1, 0.2, 0.5, 0.1], [0.3, -0.4, 0.0, -0.4], [-0.3, 0.0, -0.5, 0.5], [0.6, 0.5, -0.2, -0.3]],
W_V = [[0.2, 0.1, 0.6, -0.7], [0.5, 0.4, -0.4, 0.2], [0.2, -0.2, -0.4, 0.2], [-0.6, 0.0, 0.6, -0.2]],
b_Q = [-0.17, -0.11, -0.14, 0.11],
b_K = [-0.07, 0.14, 0.05, -0.04],
b_V = [0.04, -0.07, 0.0, -0.04],
W_O = [[-0.4, 0.1, -0.6, 0.3], [-0.5, 0.6, -0.2, 0.6], [0.1, -0.2, -0.1, 0.4], [-0.3, -0.6, -0.2, 0.5]],
b_O = [0.08, -0.06, -0.09, 0.06],
W_1 = [[-0.2, 0.1, -0.5, 0.0, 0.0, 0.1, 0.4, -0.2, 0.6, -0.6, 0.6, 0.1, -0.3, 0.0, 0.6, -0.3], [-0.1, -0.5, -0.4, -0.4, -0.2, -0.4, -0.6, 0.6, -0.3, 0.0, 0.2, 0.3, 0.3, 0.2, -0.1, -0.6], [0.2, 0.4, 0.4, 0.3, -0.3, -0.4, -0.1, -0.3, -0.2, 0.2, 0.2, 0.5, -0.6, 0.0, -0.2, 0.6], [0.3, -0.4, -0.3, 0.5, 0.3, -0.2, -0.3, 0.2, -0.2, 0.0, -0.5, -0.2, 0.6, 0.3, -0.6, 0.4]],
b_1 = [0.15, -0.11, -0.19, 0.2, 0.17, -0.11, -0.04, -0.13, 0.01, -0.15, 0.08, 0.07, 0.18, -0.16, -0.15, 0.17],
W_2 = [[-0.06, -0.3, 0.16, 0.05], [-0.17, -0.29, 0.26, -0.21], [0.01, -0.05, 0.12, 0.09], [0.2, -0.22, -0.06, -0.26], [0.09, -0.17, -0.22, 0.02], [-0.27, -0.26, 0.21, 0.04], [0.18, 0.11, -0.19, -0.03], [0.01, -0.11, 0.11, -0.15], [-0.04, 0.27, -0.3, -0.1], [-0.28, 0.05, 0.06, 0.29], [0.15, -0.17, 0.16, 0.04], [-0.01, 0.15, -0.21, 0.13], [0.27, 0.26, 0.21, -0.09], [-0.17, -0.3, -0.04, 0.27], [0.28, 0.29, -0.16, 0.15], [-0.02, -0.05, 0.21, 0.23]],
b_2 = [0.06, -0.06, 0.0, -0.01],
gamma1 = [0.86, 0.82, 1.1, 1.08], beta1 = [0.02, -0.06, 0.05, 0.02],
gamma2 = [1.11, 0.97, 0.81, 0.86], beta2 = [0.01, 0.02, -0.06, 0.02],
gamma_f = [1.31, 1.09, 1.32, 1.28], beta_f = [-0.07, -0.02, 0.09, -0.1],
)


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def plus_bias(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def layernorm(H, g, b):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[g[j] * (r[j] - m) / mp.sqrt(v + EPS) + b[j] for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu(z):
    return z / 2 * (1 + mp.erf(z / mp.sqrt(2)))


def softmax(xs):
    e = [mp.exp(x) for x in xs]
    s = mp.fsum(e)
    return [x / s for x in e], s


def forward():
    P = {k: M(v) for k, v in W.items()}
    T, d = len(IDS), 4
    H0 = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, P["gamma1"], P["beta1"])
    Q = plus_bias(matmul(LN1, P["W_Q"]), P["b_Q"])
    K = plus_bias(matmul(LN1, P["W_K"]), P["b_K"])
    V = plus_bias(matmul(LN1, P["W_V"]), P["b_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn_heads = matmul(A, V)
    Attn = plus_bias(matmul(Attn_heads, P["W_O"]), P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, P["gamma2"], P["beta2"])
    Z = plus_bias(matmul(LN2, P["W_1"]), P["b_1"])
    R = [[gelu(z) for z in r] for r in Z]
    F = plus_bias(matmul(R, P["W_2"]), P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, P["gamma_f"], P["beta_f"])
    h = LN_f[-1]
    logits = [mp.fsum(h[j] * P["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    p, sum_exp = softmax(logits)
    q = {}
    for name, X in (("H0", H0), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("S", S), ("A", A),
                    ("Attn_heads", Attn_heads), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("Z", Z), ("R", R),
                    ("F", F), ("H2", H2), ("LN_f", LN_f)):
        for i, row in enumerate(X):
            for j, x in enumerate(row):
                q[f"{name}[{i},{j}]"] = x
    for name, X in (("mu1", mu1), ("var1", var1), ("A_den", A_den), ("mu2", mu2), ("var2", var2),
                    ("mu_f", mu_f), ("var_f", var_f), ("h_final", h)):
        for i, x in enumerate(X):
            q[f"{name}[{i}]"] = x
    for v, tok in enumerate(VOCAB):
        q[f"logits[{tok}]"] = logits[v]
        q[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        q[f"p[{tok}]"] = p[v]
    q["sum_exp"] = sum_exp
    q["loss"] = -mp.log(p[TARGET])
    for tau in ("0.5", "1", "2"):
        pt, _ = softmax([x / mp.mpf(tau) for x in logits])
        for v, tok in enumerate(VOCAB):
            q[f"softmax_T({tau}, {tok})"] = pt[v]
    rank = sorted(range(len(VOCAB)), key=lambda v: (-p[v], v))
    top3 = mp.fsum(p[v] for v in rank[:3])
    for v in rank[:3]:
        q[f"topk(3, {VOCAB[v]})"] = p[v] / top3
    q["p[mleko] + p[i] + p[ma]"] = top3
    cum, nucleus = mp.mpf(0), []
    for n, v in enumerate(rank):
        cum += p[v]
        nucleus.append(v)
        q[" + ".join(f"p[{VOCAB[u]}]" for u in nucleus)] = cum
        if cum >= mp.mpf("0.9"):
            break
    for v in nucleus:
        q[f"topp(0.9, {VOCAB[v]})"] = p[v] / cum
    q["sqrt(var1[2] + ln_eps)"] = mp.sqrt(var1[2] + EPS)
    q["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(var_f[2] + EPS)
    q["A[2,1]*100"] = A[2][1] * 100
    return q, rank, nucleus



# Every figure of a model quantity that DOC.md prints: (line, printed, quantity). A figure the key plants is
# checked to be wrong (by the key's table); every other one must be the correct rounding of its quantity.
def _row(line, name, t, printed):
    return [(line, x, f"{name}[{t},{j}]") for j, x in enumerate(printed.split())]


FIGURES = (
    _row(42, "H0", 2, "0.27 0.01 0.36 0.14")
    + _row(58, "LN1", 0, "0.1404 -1.3227 1.4359 0.1712")
    + _row(59, "LN1", 1, "1.0831 -0.4506 -1.2056 0.6778")
    + _row(60, "LN1", 2, "0.5071 -1.2056 1.4206 -0.4286")
    + _row(69, "S", 2, "1.0352 1.1103 -1.3290")
    + [(71, "3.6550", "A_den[2]")]
    + _row(79, "A", 2, "0.0972 0.8304 0.0724")
    + [(82, "83%", "A[2,1]")]
    + _row(85, "Attn", 2, "0.8137 0.2418 0.3390 -0.0812")
    + _row(91, "H1", 2, "1.0837 0.2518 0.6990 0.0588")
    + [(105, "1.2388", "Z[2,6]"), (105, "1.1053", "R[2,6]"), (113, "0.4437", "var_f[2]")]
    + [(116, x, f"h_final[{j}]") for j, x in enumerate("2.0555 -0.0597 -0.6498 -1.4128".split())]
    + [(139, "12.3372", "sum_exp")]
    + [(146 + v, x, q) for v, (tok, row) in enumerate(zip(VOCAB, (
        "0.2624 0.0518 0.1054 0.1319", "0.6653 0.1156 0.1574 0.1611", "-0.0073 0.0302 0.0805 0.1152",
        "-0.3084 0.0165 0.0595 0.0991", "1.1956 0.3350 0.2679 0.2262", "1.3421 0.4491 0.3102 0.2262",
        "-1.4452 0.0017 0.0191 0.0561")))
       for x, q in zip(row.split(), (f"logits[{tok}]", f"softmax_T(0.5, {tok})", f"softmax_T(1, {tok})",
                                     f"softmax_T(2, {tok})"))]
    + [(155, "5.6%", "softmax_T(2, żółwia)"), (161, "0.7355", "p[mleko] + p[i] + p[ma]"),
       (163, "0.3102", "p[mleko]"), (163, "0.7355", "p[mleko] + p[i] + p[ma]"), (163, "0.4218", "topk(3, mleko)"),
       (163, "0.3643", "topk(3, i)"), (163, "0.2140", "topk(3, ma)"),
       (182, "0.3102", "p[mleko]"), (183, "0.5781", "p[mleko] + p[i]"), (184, "0.7355", "p[mleko] + p[i] + p[ma]"),
       (185, "0.8409", "p[mleko] + p[i] + p[ma] + p[Ala]"),
       (186, "0.9214", "p[mleko] + p[i] + p[ma] + p[Ala] + p[kota]"),
       (190, "0.3102", "p[mleko]"), (190, "0.3447", "topp(0.9, mleko)"), (191, "0.0873", "topp(0.9, kota)"),
       (198, "0.2679", "p[i]"), (198, "1.3171", "loss")]
)


def places(text: str) -> int:
    t = text.rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def rounded(v, text: str) -> str:
    pct = text.endswith("%")
    return rnd(v * 100 if pct else v, places(text)) + ("%" if pct else "")


def main() -> int:
    q, _, _ = forward()
    bad = 0
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    planted = set()
    print("KEY.md rows:")
    for r in key:
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = q[ref]
        if len(cells) == 7:
            planted.add((line, printed))
            shown = cells[4].strip("`")
            right = rounded(v, shown)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rounded(v, printed)
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>9}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    assert len(planted) == 8, f"{len(planted)} planted rows, expected 8"
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    n_ok = 0
    for line, printed, ref in FIGURES:
        text = doc[line - 1]
        if not re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", text):
            print(f"  DOC.md line {line} does not print {printed}: {text}")
            bad += 1
            continue
        right = rounded(q[ref], printed)
        if (line, printed) in planted:
            if right == printed:
                print(f"  planted {printed} at line {line} is not wrong ({ref})")
                bad += 1
        elif right != printed:
            print(f"  DOC.md line {line}: {printed} is not the correct rounding of {ref} ({right})")
            bad += 1
        else:
            n_ok += 1
    missing = planted - {(l, t) for l, t, _ in FIGURES}
    assert not missing, f"planted rows not among FIGURES: {missing}"
    print(f"DOC.md: {len(FIGURES)} figures of model quantities listed, {n_ok} correct, "
          f"{len(FIGURES) - n_ok} planted")
    assert bad == 0, f"{bad} disagreements"
    print("all key rows and document figures agree with the oracle")
    return 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        q, rank, nucleus = forward()
        for k, v in q.items():
            print(f"{k:44} {mp.nstr(v, 15)}")
        print("rank", [VOCAB[v] for v in rank], "nucleus", [VOCAB[v] for v in nucleus])
    else:
        sys.exit(main())
