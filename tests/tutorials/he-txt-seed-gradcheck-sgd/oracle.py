#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial he-txt-seed-gradcheck-sgd (plain mpmath, 50 digits, no symgpt).

    python oracle.py          # every KEY.md row: its quantity, its exact value, and a check of the key's columns

Model (the seed's: one post-LN block, one head, d = 2, d_ff = 4, tied head, ln_eps 1e-5), weights as in SPEC.toml:
H0 = E[ids] + PE with PE[t] = (sin t, cos t); Q, K, V = H0·W; S = Q·Kᵀ/√2, causal softmax A; Attn = A·V;
H1 = H0 + Attn; LN1 (biased variance); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2;
logits = LN2[T-1]·Eᵀ; p = softmax; loss = -ln p[target] (last position only).
The gradient is written out by hand (reverse mode, every node) and checked against a 50-digit central
difference (step 1e-20) of every parameter; one SGD step θ - 0.5·g updates every parameter (LayerNorm fixed);
the gradient check is (L(θ+h) - L(θ-h))/(2h) with h = 1e-4.
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

VOCAB = ["<pad>", "אני", "שותה", "קפה", "שחור", "תה"]
IDS = [1, 2, 3]
TGT = 4
T, D, DFF = 3, 2, 4
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.5")
H_GC = mp.mpf("1e-4")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


P0 = dict(
    E=M([[0.0, 0.0], [0.4, 0.7], [0.6, -0.2], [0.3, 0.5], [0.8, -0.3], [-0.2, 0.6]]),
    W_Q=M([[0.5, -0.3], [0.2, 0.4]]),
    W_K=M([[0.3, 0.6], [-0.4, 0.2]]),
    W_V=M([[0.7, 0.1], [-0.2, 0.5]]),
    W_1=M([[0.4, -0.3, 0.2, 0.6], [-0.5, 0.1, 0.7, -0.2]]),
    b_1=M([0.1, -0.1, 0.05, 0.0]),
    W_2=M([[-0.6, 0.5], [0.3, 0.2], [-0.5, 0.8], [-0.3, 0.6]]),
    b_2=M([-0.12, 0.0]),
)
PARAMS = list(P0)


def zeros(*shape):
    if len(shape) == 1:
        return [mp.mpf(0)] * shape[0]
    return [[mp.mpf(0)] * shape[1] for _ in range(shape[0])]


def matmul(X, W):
    return [[mp.fsum(X[t][i] * W[i][j] for i in range(len(W))) for j in range(len(W[0]))] for t in range(len(X))]


def copyP(P):
    return {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}


def layernorm(H):
    mu = [mp.fsum(r) / D for r in H]
    var = [mp.fsum((x - mu[t]) ** 2 for x in H[t]) / D for t, r in enumerate(H)]
    sd = [mp.sqrt(v + EPS) for v in var]
    return mu, var, sd, [[(H[t][j] - mu[t]) / sd[t] for j in range(D)] for t in range(T)]


def forward(P):
    f = {}
    f["X"] = [P["E"][i][:] for i in IDS]
    f["PE"] = [[mp.sin(t), mp.cos(t)] for t in range(T)]
    f["H0"] = [[f["X"][t][j] + f["PE"][t][j] for j in range(D)] for t in range(T)]
    f["Q"], f["K"], f["V"] = (matmul(f["H0"], P[w]) for w in ("W_Q", "W_K", "W_V"))
    dk = mp.sqrt(D)
    f["S"] = [[mp.fsum(f["Q"][t][j] * f["K"][s][j] for j in range(D)) / dk for s in range(T)] for t in range(T)]
    f["A_den"] = [mp.fsum(mp.exp(f["S"][t][s]) for s in range(t + 1)) for t in range(T)]
    f["A"] = [[mp.exp(f["S"][t][s]) / f["A_den"][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    f["Attn"] = matmul(f["A"], f["V"])
    f["H1"] = [[f["H0"][t][j] + f["Attn"][t][j] for j in range(D)] for t in range(T)]
    f["mu1"], f["var1"], f["sd1"], f["LN1"] = layernorm(f["H1"])
    f["Z"] = [[z + P["b_1"][k] for k, z in enumerate(r)] for r in matmul(f["LN1"], P["W_1"])]
    f["R"] = [[z if z > 0 else mp.mpf(0) for z in r] for r in f["Z"]]
    f["F"] = [[x + P["b_2"][j] for j, x in enumerate(r)] for r in matmul(f["R"], P["W_2"])]
    f["H2"] = [[f["LN1"][t][j] + f["F"][t][j] for j in range(D)] for t in range(T)]
    f["mu2"], f["var2"], f["sd2"], f["LN2"] = layernorm(f["H2"])
    f["h_final"] = f["LN2"][T - 1][:]
    f["logits"] = [mp.fsum(f["h_final"][j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    f["sum_exp"] = mp.fsum(mp.exp(z) for z in f["logits"])
    f["p"] = [mp.exp(z) / f["sum_exp"] for z in f["logits"]]
    f["loss"] = -mp.log(f["p"][TGT])
    return f


def ln_back(g_out, H, mu, sd):
    """LayerNorm without γ, β: y = (h - μ)/√(σ² + ε); returns ∂L/∂h for each row."""
    out = []
    for t in range(T):
        y = [(H[t][j] - mu[t]) / sd[t] for j in range(D)]
        mg = mp.fsum(g_out[t]) / D
        mgy = mp.fsum(g_out[t][j] * y[j] for j in range(D)) / D
        out.append([(g_out[t][j] - mg - y[j] * mgy) / sd[t] for j in range(D)])
    return out


def backward(P, f):
    g = {}
    V_ = len(VOCAB)
    g["logits"] = [f["p"][v] - (1 if v == TGT else 0) for v in range(V_)]
    g["E_head"] = [[g["logits"][v] * f["h_final"][j] for j in range(D)] for v in range(V_)]
    g["h_final"] = [mp.fsum(g["logits"][v] * P["E"][v][j] for v in range(V_)) for j in range(D)]
    g["LN2"] = zeros(T, D)
    g["LN2"][T - 1] = g["h_final"][:]
    g["H2"] = ln_back(g["LN2"], f["H2"], f["mu2"], f["sd2"])
    g["F"] = [r[:] for r in g["H2"]]
    g["b_2"] = [mp.fsum(g["F"][t][j] for t in range(T)) for j in range(D)]
    g["W_2"] = [[mp.fsum(f["R"][t][k] * g["F"][t][j] for t in range(T)) for j in range(D)] for k in range(DFF)]
    g["R"] = [[mp.fsum(g["F"][t][j] * P["W_2"][k][j] for j in range(D)) for k in range(DFF)] for t in range(T)]
    g["Z"] = [[g["R"][t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(DFF)] for t in range(T)]
    g["b_1"] = [mp.fsum(g["Z"][t][k] for t in range(T)) for k in range(DFF)]
    g["W_1"] = [[mp.fsum(f["LN1"][t][j] * g["Z"][t][k] for t in range(T)) for k in range(DFF)] for j in range(D)]
    g["LN1"] = [[g["H2"][t][j] + mp.fsum(g["Z"][t][k] * P["W_1"][j][k] for k in range(DFF)) for j in range(D)]
                for t in range(T)]
    g["H1"] = ln_back(g["LN1"], f["H1"], f["mu1"], f["sd1"])
    g["Attn"] = [r[:] for r in g["H1"]]
    g["A"] = [[mp.fsum(g["Attn"][t][j] * f["V"][s][j] for j in range(D)) if s <= t else mp.mpf(0) for s in range(T)]
              for t in range(T)]
    g["V"] = [[mp.fsum(f["A"][t][s] * g["Attn"][t][j] for t in range(T)) for j in range(D)] for s in range(T)]
    g["S"] = []
    for t in range(T):
        dot = mp.fsum(f["A"][t][s] * g["A"][t][s] for s in range(t + 1))
        g["S"].append([f["A"][t][s] * (g["A"][t][s] - dot) if s <= t else mp.mpf(0) for s in range(T)])
    dk = mp.sqrt(D)
    g["Q"] = [[mp.fsum(g["S"][t][s] * f["K"][s][j] for s in range(T)) / dk for j in range(D)] for t in range(T)]
    g["K"] = [[mp.fsum(g["S"][t][s] * f["Q"][t][j] for t in range(T)) / dk for j in range(D)] for s in range(T)]
    g["H0"] = [[g["H1"][t][i]
                + mp.fsum(g[n][t][j] * P[w][i][j] for n, w in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")) for j in range(D))
                for i in range(D)] for t in range(T)]
    for n, w in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")):
        g[w] = [[mp.fsum(f["H0"][t][i] * g[n][t][j] for t in range(T)) for j in range(D)] for i in range(D)]
    g["X"] = [r[:] for r in g["H0"]]
    g["E"] = [r[:] for r in g["E_head"]]
    for t, i in enumerate(IDS):
        for j in range(D):
            g["E"][i][j] += g["X"][t][j]
    return g


def loss_of(P):
    return forward(P)["loss"]


def moved(P, name, idx, delta):
    Q = copyP(P)
    if isinstance(Q[name][0], list):
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


def entries(P, name):
    v = P[name]
    if isinstance(v[0], list):
        return [(i, j) for i in range(len(v)) for j in range(len(v[0]))]
    return [(i,) for i in range(len(v))]


def get(x, idx):
    for i in idx:
        x = x[i]
    return x


F0 = forward(P0)
G0 = backward(P0, F0)

# the hand-written backward pass against a 50-digit central difference, every parameter entry
_h = mp.mpf("1e-20")
for _n in PARAMS:
    for _idx in entries(P0, _n):
        _num = (loss_of(moved(P0, _n, _idx, _h)) - loss_of(moved(P0, _n, _idx, -_h))) / (2 * _h)
        assert abs(_num - get(G0[_n], _idx)) < mp.mpf("1e-25"), (_n, _idx, _num, get(G0[_n], _idx))

# one SGD step on every parameter
P1 = copyP(P0)
for _n in PARAMS:
    for _idx in entries(P0, _n):
        _new = get(P0[_n], _idx) - LR * get(G0[_n], _idx)
        if len(_idx) == 2:
            P1[_n][_idx[0]][_idx[1]] = _new
        else:
            P1[_n][_idx[0]] = _new
F1 = forward(P1)
G1 = backward(P1, F1)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def rnd_like(v, printed: str) -> str:
    """The correct rounding of v at the precision and in the notation of `printed`."""
    s = printed.replace("−", "-").strip()
    m = re.fullmatch(r"(-?\d+(?:\.(\d+))?)\s*[×x]\s*10([⁻⁰-⁹]+|\^-?\d+)", s)
    if m:
        n = len(m.group(2) or "")
        ex = int(m.group(3).translate(SUP).lstrip("^"))
        mant = v / mp.mpf(10) ** ex
        return f"{rnd(mant, n)} × 10{m.group(3)}"
    if s.endswith("%"):
        body = s[:-1]
        n = len(body.split(".")[1]) if "." in body else 0
        return rnd(v * 100, n) + "%"
    n = len(s.split(".")[1]) if "." in s else 0
    return rnd(v, n)


# ---------------------------------------------------------------- names (symgpt's spelling)

def tok(s: str) -> int:
    s = s.strip()
    return int(s) if s.isdigit() else VOCAB.index(s)


def param_entry(ref: str):
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref.strip())
    name, idx = m.group(1), [x.strip() for x in m.group(2).split(",")]
    if name == "E":
        return name, (tok(idx[0]), int(idx[1]))
    return name, tuple(int(x) for x in idx)


def node(name: str, idx: list[str], f, g):
    if name.startswith("grad_"):
        base = name[5:]
        src = g
    else:
        base, src = name, f
    table = src[base]
    if not isinstance(table, list):
        return table
    ii = []
    for k, x in enumerate(idx):
        if base in ("logits", "p") or (base in ("E", "E_head") and k == 0):
            ii.append(tok(x))
        else:
            ii.append(int(x))
    return get(table, ii)


def value(ref: str):
    ref = ref.strip().strip("`").strip()
    m = re.fullmatch(r"gradcheck\((.+),\s*([0-9.e+-]+)\)", ref)
    if m:
        n, idx = param_entry(m.group(1))
        h = mp.mpf(m.group(2))
        return (loss_of(moved(P0, n, idx, h)) - loss_of(moved(P0, n, idx, -h))) / (2 * h)
    m = re.fullmatch(r"loss_at\((.+),\s*([0-9.e+-]+)\)", ref)
    if m:
        n, idx = param_entry(m.group(1))
        return loss_of(moved(P0, n, idx, mp.mpf(m.group(2))))
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(value(m.group(1)))
    m = re.fullmatch(r"sqrt\((.+)\s*\+\s*ln_eps\)", ref)
    if m:
        return mp.sqrt(value(m.group(1)) + EPS)
    f, g, P = F0, G0, P0
    m = re.fullmatch(r"sgd\[(\d)\]\.(.+)", ref)
    if m:
        f, g, P = ((F0, G0, P0), (F1, G1, P1))[int(m.group(1))]
        ref = m.group(2)
    if ref in ("loss", "sum_exp"):
        return f[ref]
    if ref == "lr":
        return LR
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref)
    name, idx = m.group(1), [x.strip() for x in m.group(2).split(",")]
    if name in P:
        ii = [tok(idx[0]), int(idx[1])] if name == "E" else [int(x) for x in idx]
        return get(P[name], ii)
    return node(name, idx, f, g)


# ---------------------------------------------------------------- the key

def cells(line: str):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def main() -> int:
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    section, bad, rows = None, 0, 0
    for line in key.splitlines():
        if line.startswith("## "):
            section = "planted" if "Planted" in line else "correct" if "Correct" in line else None
            continue
        if not line.startswith("|") or section is None or line.startswith("| ---") or line.startswith("| printed"):
            continue
        c = cells(line)
        printed = c[0].strip("`")
        refs = [r.strip().strip("`") for r in c[-1].split(" or ")]
        rows += 1
        for alt, ref in enumerate(refs):
            v = value(ref)
            good = rnd_like(v, printed)
            if section == "planted":
                exact, correct = c[3], c[4].strip("`")
                digits = re.sub(r"[…\s]", "", exact)
                shown = v * 100 if printed.endswith("%") else v   # a percentage's exact value is the quantity × 100
                # the "exact value" column is the first quantity's; an alternative must round the same way
                ok_exact = alt > 0 or abs(shown - mp.mpf(digits)) < mp.mpf(10) ** (-(len(digits.split(".")[-1]) - 1))
                ok = ok_exact and good == correct and good != printed.replace("−", "-")
                print(f"{'ok ' if ok else 'BAD'} planted {printed:>14}  line {c[1]:>3}  {ref:<32} = {mp.nstr(v, 20)}  "
                      f"(correct {good}; key: {exact} / {correct})")
            else:
                ok = good == printed.replace("−", "-")
                print(f"{'ok ' if ok else 'BAD'} correct {printed:>14}  line {c[1]:>3}  {ref:<32} = {mp.nstr(v, 20)}")
            bad += not ok
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    for line in key.splitlines():
        c = cells(line) if line.startswith("|") else []
        if len(c) >= 4 and c[1].isdigit():
            if c[0].strip("`") not in doc[int(c[1]) - 1]:
                print(f"BAD line {c[1]}: {c[0]} not in {doc[int(c[1]) - 1]!r}")
                bad += 1
    print(f"{rows} key rows, {bad} disagreements")
    assert bad == 0 and rows == 18, "the key disagrees with the oracle"
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for ref in sys.argv[2:]:
            print(ref, "=", mp.nstr(value(ref), 20))
        sys.exit(0)
    sys.exit(main())
