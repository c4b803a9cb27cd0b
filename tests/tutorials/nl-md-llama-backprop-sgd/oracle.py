#!/usr/bin/env python3
"""Independent oracle for nl-md-llama-backprop-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every KEY.md row's quantity with its exact value, checked against the key

Model (SPEC.toml): one Llama block, one head, d = 4, d_ff = 6, V = 5, T = 3, untied head, no biases.
  X = E[ids]; RMSNorm(h) = g * h / sqrt(mean(h^2) + eps), eps = 1e-5, before attention (gamma1),
  before the MLP (gamma2) and at the end (gamma_f); Q, K, V = LN1 W; RoPE in Hugging Face's
  rotate_half convention (pairs (0,2), (1,3), theta_i = 10000^(-2i/4)); S = Q_rot K_rot^T / 2,
  causal softmax A; Attn = A V; H1 = X + Attn; LN2; Z = LN2 W_1 (gate), U = LN2 W_3 (up),
  R = SiLU(Z) * U, F = R W_2, H2 = H1 + F; LN_f; logits = LN_f[T-1] W_out; p = softmax; loss = -ln p[target].
Backward pass written out by hand (checked here against central differences), then one SGD step
(lr 0.1) on every parameter, the RMSNorm gains included, and the new forward pass.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["ik", "drink", "graag", "koffie", "thee"]
IDS, TARGET = [0, 1, 2], 3
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = dict(
    E=M([[0.5, -0.3, 0.2, 0.4], [-0.2, 0.6, 0.3, -0.1], [0.3, 0.1, -0.5, 0.2], [0.1, 0.4, 0.2, -0.3],
         [-0.4, 0.2, 0.1, 0.5]]),
    W_out=M([[0.3, -0.2, 0.1, 0.5, -0.4], [-0.1, 0.4, 0.2, -0.3, 0.1], [0.2, 0.1, -0.3, 0.4, 0.2],
             [0.4, -0.3, 0.2, -0.2, 0.1]]),
    gamma_f=M([1.0, 0.9, 1.1, 1.2]),
    gamma1=M([1.0, 1.1, 0.9, 1.2]),
    gamma2=M([0.9, 1.0, 1.2, 1.1]),
    W_Q=M([[0.4, -0.2, 0.1, 0.3], [0.2, 0.5, -0.3, 0.1], [-0.1, 0.3, 0.4, -0.2], [0.3, 0.1, 0.2, 0.5]]),
    W_K=M([[0.3, 0.1, -0.2, 0.4], [-0.4, 0.2, 0.3, 0.1], [0.2, -0.3, 0.5, 0.2], [0.1, 0.4, 0.1, -0.3]]),
    W_V=M([[0.2, 0.4, -0.1, 0.3], [0.5, -0.2, 0.3, 0.1], [-0.3, 0.1, 0.4, 0.2], [0.1, 0.3, 0.2, -0.4]]),
    W_1=M([[0.3, -0.2, 0.4, 0.1, -0.3, 0.2], [-0.1, 0.4, 0.2, -0.3, 0.5, 0.1], [0.2, 0.1, -0.4, 0.3, 0.2, -0.2],
           [0.4, 0.3, 0.1, -0.2, 0.1, 0.3]]),
    W_3=M([[0.2, 0.3, -0.1, 0.4, 0.1, -0.2], [0.4, -0.1, 0.3, 0.2, -0.3, 0.1], [-0.2, 0.2, 0.5, -0.1, 0.3, 0.4],
           [0.1, -0.4, 0.2, 0.3, 0.2, 0.1]]),
    W_2=M([[0.3, -0.1, 0.2, 0.4], [-0.2, 0.4, 0.1, -0.3], [0.1, 0.2, -0.3, 0.2], [0.4, -0.2, 0.3, 0.1],
           [-0.3, 0.1, 0.2, 0.3], [0.2, 0.3, -0.1, -0.2]]),
)


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def T_(A):
    return [list(r) for r in zip(*A)]


def rms(H, g):
    d = len(H[0])
    ms = [mp.fsum(x * x for x in r) / d for r in H]
    rt = [mp.sqrt(m + EPS) for m in ms]
    return ms, rt, [[g[j] * r[j] / q for j in range(d)] for r, q in zip(H, rt)]


def rms_back(H, g, rt, dY):
    d = len(H[0])
    dg = [mp.fsum(dY[t][j] * H[t][j] / rt[t] for t in range(len(H))) for j in range(d)]
    dH = []
    for t in range(len(H)):
        c = mp.fsum(g[k] * dY[t][k] * H[t][k] for k in range(d)) / (d * rt[t] ** 3)
        dH.append([g[j] * dY[t][j] / rt[t] - H[t][j] * c for j in range(d)])
    return dg, dH


def angles(t):
    th = [mp.mpf(10000) ** (-mp.mpf(2 * i) / 4) for i in range(2)]
    return [mp.cos(t * x) for x in th], [mp.sin(t * x) for x in th]


def rope(Y):
    out = []
    for t, r in enumerate(Y):
        c, s = angles(t)
        out.append([r[0] * c[0] - r[2] * s[0], r[1] * c[1] - r[3] * s[1], r[2] * c[0] + r[0] * s[0],
                    r[3] * c[1] + r[1] * s[1]])
    return out


def rope_back(dY):
    out = []
    for t, r in enumerate(dY):
        c, s = angles(t)
        out.append([r[0] * c[0] + r[2] * s[0], r[1] * c[1] + r[3] * s[1], r[2] * c[0] - r[0] * s[0],
                    r[3] * c[1] - r[1] * s[1]])
    return out


def sig(z):
    return 1 / (1 + mp.exp(-z))


def forward(P):
    T, d = len(IDS), 4
    f = {}
    X = [P["E"][i][:] for i in IDS]
    f["X"] = X
    f["ms1"], f["rt1"], f["LN1"] = rms(X, P["gamma1"])
    LN1 = f["LN1"]
    f["Q"], f["K"], f["V"] = matmul(LN1, P["W_Q"]), matmul(LN1, P["W_K"]), matmul(LN1, P["W_V"])
    f["Q_rot"], f["K_rot"] = rope(f["Q"]), rope(f["K"])
    f["S"] = [[mp.fsum(f["Q_rot"][t][j] * f["K_rot"][s][j] for j in range(d)) / 2 for s in range(T)]
              for t in range(T)]
    f["A_den"] = [mp.fsum(mp.exp(f["S"][t][s]) for s in range(t + 1)) for t in range(T)]
    f["A"] = [[mp.exp(f["S"][t][s]) / f["A_den"][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    f["Attn"] = matmul(f["A"], f["V"])
    f["H1"] = [[X[t][j] + f["Attn"][t][j] for j in range(d)] for t in range(T)]
    f["ms2"], f["rt2"], f["LN2"] = rms(f["H1"], P["gamma2"])
    f["Z"], f["U"] = matmul(f["LN2"], P["W_1"]), matmul(f["LN2"], P["W_3"])
    f["silu"] = [[z * sig(z) for z in r] for r in f["Z"]]
    f["R"] = [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(f["silu"], f["U"])]
    f["F"] = matmul(f["R"], P["W_2"])
    f["H2"] = [[f["H1"][t][j] + f["F"][t][j] for j in range(d)] for t in range(T)]
    f["ms_f"], f["rtf"], f["LN_f"] = rms(f["H2"], P["gamma_f"])
    f["h_final"] = f["LN_f"][-1]
    f["logits"] = [mp.fsum(f["h_final"][j] * P["W_out"][j][v] for j in range(d)) for v in range(len(VOCAB))]
    f["sum_exp"] = mp.fsum(mp.exp(z) for z in f["logits"])
    f["p"] = [mp.exp(z) / f["sum_exp"] for z in f["logits"]]
    f["loss"] = -mp.log(f["p"][TARGET])
    return f


def backward(P, f):
    T, d = len(IDS), 4
    g = {}
    g["logits"] = [f["p"][v] - (1 if v == TARGET else 0) for v in range(len(VOCAB))]
    g["W_out"] = [[f["h_final"][j] * g["logits"][v] for v in range(len(VOCAB))] for j in range(d)]
    g["h_final"] = [mp.fsum(P["W_out"][j][v] * g["logits"][v] for v in range(len(VOCAB))) for j in range(d)]
    g["LN_f"] = [[mp.mpf(0)] * d for _ in range(T - 1)] + [g["h_final"]]
    g["gamma_f"], g["H2"] = rms_back(f["H2"], P["gamma_f"], f["rtf"], g["LN_f"])
    g["F"] = g["H2"]
    g["R"] = matmul(g["F"], T_(P["W_2"]))
    g["W_2"] = matmul(T_(f["R"]), g["F"])
    g["U"] = [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(g["R"], f["silu"])]
    g["Z"] = [[dr * u * sig(z) * (1 + z * (1 - sig(z))) for dr, u, z in zip(rr, ru, rz)]
              for rr, ru, rz in zip(g["R"], f["U"], f["Z"])]
    g["W_1"] = matmul(T_(f["LN2"]), g["Z"])
    g["W_3"] = matmul(T_(f["LN2"]), g["U"])
    a, b = matmul(g["Z"], T_(P["W_1"])), matmul(g["U"], T_(P["W_3"]))
    g["LN2"] = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    g["gamma2"], dH1 = rms_back(f["H1"], P["gamma2"], f["rt2"], g["LN2"])
    g["H1"] = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(g["H2"], dH1)]
    g["Attn"] = g["H1"]
    g["A"] = matmul(g["Attn"], T_(f["V"]))
    g["V"] = matmul(T_(f["A"]), g["Attn"])
    g["S"] = [[f["A"][t][s] * (g["A"][t][s] - mp.fsum(f["A"][t][r] * g["A"][t][r] for r in range(T)))
               for s in range(T)] for t in range(T)]
    g["Q_rot"] = [[x / 2 for x in r] for r in matmul(g["S"], f["K_rot"])]
    g["K_rot"] = [[x / 2 for x in r] for r in matmul(T_(g["S"]), f["Q_rot"])]
    g["Q"], g["K"] = rope_back(g["Q_rot"]), rope_back(g["K_rot"])
    for n in ("Q", "K", "V"):
        g["W_" + n] = matmul(T_(f["LN1"]), g[n])
    parts = [matmul(g[n], T_(P["W_" + n])) for n in ("Q", "K", "V")]
    g["LN1"] = [[parts[0][t][j] + parts[1][t][j] + parts[2][t][j] for j in range(d)] for t in range(T)]
    g["gamma1"], dX = rms_back(f["X"], P["gamma1"], f["rt1"], g["LN1"])
    g["X"] = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(g["H1"], dX)]
    g["E"] = [[mp.mpf(0)] * d for _ in VOCAB]
    for t, i in enumerate(IDS):
        g["E"][i] = [g["E"][i][j] + g["X"][t][j] for j in range(d)]
    return g


def sgd_step(P, g):
    out = {}
    for n, w in P.items():
        if isinstance(w[0], list):
            out[n] = [[w[i][j] - LR * g[n][i][j] for j in range(len(w[0]))] for i in range(len(w))]
        else:
            out[n] = [w[j] - LR * g[n][j] for j in range(len(w))]
    return out


def gradcheck(P, g, n, idx, h=mp.mpf("1e-20")):
    def bumped(delta):
        Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
        if len(idx) == 2:
            Q[n][idx[0]][idx[1]] += delta
        else:
            Q[n][idx[0]] += delta
        return forward(Q)["loss"]
    num = (bumped(h) - bumped(-h)) / (2 * h)
    ana = g[n][idx[0]][idx[1]] if len(idx) == 2 else g[n][idx[0]]
    assert abs(num - ana) < mp.mpf("1e-25"), (n, idx, num, ana)


# ---------------------------------------------------------------- the quantities

def quantities():
    P = PARAMS
    f = forward(P)
    g = backward(P, f)
    for n, idx in (("W_out", (0, 3)), ("gamma_f", (1,)), ("W_V", (1, 2)), ("W_Q", (2, 0)), ("W_Q", (0, 3)),
                   ("W_1", (3, 1)), ("W_3", (0, 2)), ("W_2", (5, 0)), ("gamma1", (2,)), ("gamma2", (0,)),
                   ("W_K", (1, 3)), ("E", (2, 1)), ("E", (0, 0))):
        gradcheck(P, g, n, idx)
    P1 = sgd_step(P, g)
    f1 = forward(P1)
    vals = {}
    tok = lambda i: VOCAB[i]

    def put(name, arr, tokaxis=None):
        if not isinstance(arr, list):
            vals[name] = arr
            return
        if isinstance(arr[0], list):
            for i, r in enumerate(arr):
                for j, x in enumerate(r):
                    ii = tok(i) if tokaxis == 0 else i
                    jj = tok(j) if tokaxis == 1 else j
                    vals[f"{name}[{ii},{jj}]"] = x
                    vals[f"{name}[{i},{j}]"] = x
        else:
            for i, x in enumerate(arr):
                vals[f"{name}[{tok(i) if tokaxis == 0 else i}]"] = x
                vals[f"{name}[{i}]"] = x

    for n in ("X", "ms1", "LN1", "Q", "K", "V", "Q_rot", "K_rot", "S", "A_den", "A", "Attn", "H1", "ms2", "LN2",
              "Z", "U", "R", "F", "H2", "ms_f", "LN_f", "h_final"):
        put(n, f[n])
    put("logits", f["logits"], 0)
    put("p", f["p"], 0)
    put("sum_exp", f["sum_exp"])
    put("loss", f["loss"])
    for t in range(3):
        vals[f"sqrt(ms1[{t}] + ln_eps)"] = f["rt1"][t]
        vals[f"sqrt(ms2[{t}] + ln_eps)"] = f["rt2"][t]
        vals[f"sqrt(ms_f[{t}] + ln_eps)"] = f["rtf"][t]
        for s in range(t + 1):
            vals[f"exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
        for k in range(6):
            vals[f"R[{t},{k}] / U[{t},{k}]"] = f["silu"][t][k]       # SiLU(Z[t,k])
    for v in range(5):
        vals[f"exp(logits[{VOCAB[v]}])"] = mp.exp(f["logits"][v])
    put("grad_logits", g["logits"], 0)
    put("grad_W_out", g["W_out"], 1)
    for n in ("h_final", "gamma_f", "H2", "F", "R", "Z", "U", "LN2", "gamma2", "H1", "Attn", "A", "V", "S",
              "Q_rot", "Q", "K", "W_Q", "W_K", "W_V", "W_1", "W_2", "W_3", "gamma1", "LN1", "X"):
        put("grad_" + n, g[n])
    put("grad_E", g["E"], 0)
    for n, w in P.items():
        put(n, w, 1 if n == "W_out" else (0 if n == "E" else None))
    for n, w in P1.items():
        put(f"sgd[1].{n}", w, 1 if n == "W_out" else (0 if n == "E" else None))
    put("sgd[1].logits", f1["logits"], 0)
    put("sgd[1].p", f1["p"], 0)
    put("sgd[1].loss", f1["loss"])
    put("sgd[1].h_final", f1["h_final"])
    vals["lr"] = LR
    vals["ln_eps"] = EPS
    # figures the document prints that are no node of the model: RoPE's cos and sin at position 2, the
    # attention-weighted mean of the normalised rows (the factor of grad_W_V) and one normalised entry
    vals["cos(2)"], vals["sin(2)"] = mp.cos(2), mp.sin(2)
    for i in range(4):
        vals[f"sum_s A[2,s]*LN1[s,{i}]"] = mp.fsum(f["A"][2][s] * f["LN1"][s][i] for s in range(3))
    for j in range(4):
        vals[f"H2[2,{j}] / sqrt(ms_f[2] + ln_eps)"] = f["H2"][2][j] / f["rtf"][2]
    return vals


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def value_of(expr, vals):
    """A key quantity: a name, or a name times 100 written `100 * name`."""
    if expr in vals:
        return vals[expr]
    m = re.fullmatch(r"100 \* (.+)", expr)
    if m and m.group(1) in vals:
        return 100 * vals[m.group(1)]
    return None


def main() -> int:
    vals = quantities()
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for k, v in vals.items():
            print(f"{k:<32} {mp.nstr(v, 20)}")
        return 0
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        if printed not in doc[line - 1] and printed.replace(",", "{,}") not in doc[line - 1]:   # LaTeX sets 0{,}3122
            print(f"  {printed:>10}  NOT ON LINE {line}")
            bad += 1
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if value_of(n, vals) is not None), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = value_of(ref, vals) * (100 if printed.endswith("%") and not ref.startswith("100 *") else 1)
        num = lambda s: s.replace(" ", "").rstrip("%").replace(",", ".").replace("−", "-")   # decimal comma
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(num(shown).split(".")[1]) if "." in num(shown) else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = num(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != num(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == num(printed) else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:<4} {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert bad == 0, f"{bad} key rows disagree"
    return 0


if __name__ == "__main__":
    sys.exit(main())
