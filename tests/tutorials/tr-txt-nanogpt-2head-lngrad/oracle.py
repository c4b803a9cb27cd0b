#!/usr/bin/env python3
"""Independent oracle for tr-txt-nanogpt-2head-lngrad: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key

Model (nanoGPT-like GPT-2 block, read from the weights below, which copy SPEC.toml):
  H0 = E[ids] + W_pe;  LN(h) = gamma * (h - mu) / sqrt(var + eps) + beta (biased variance);
  LN1 = ln_1(H0);  Q, K, V = LN1 W + b;  2 heads of d_k = 2 (head h = columns 2h, 2h+1);
  S[h,t,s] = q.k / sqrt(2), causal softmax -> A;  Attn_heads = A V (heads side by side);
  Attn = Attn_heads W_O + b_O;  H1 = H0 + Attn;  LN2 = ln_2(H1);  Z = LN2 W_1 + b_1;
  R = GELU(Z) = Z * Phi(Z) (exact erf);  F = R W_2 + b_2;  H2 = H1 + F;  LN_f = ln_f(H2);
  logits = LN_f[T-1] . E[v] (tied);  p = softmax;  loss = -ln p[target].
Backward by hand (chain rule written out below, checked against central differences when run
with --fd); SGD θ - lr·g on every parameter (LayerNorm gains and shifts included), then the
forward pass again.  Rounding is half away from zero.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    if isinstance(a[0], list):
        return [[mp.mpf(str(v)) for v in r] for r in a]
    return [mp.mpf(str(v)) for v in a]


VOCAB = ["ben", "seni", "çok", "seviyorum", "özledim"]
IDS = [0, 1, 2]
TARGET = 3
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.05")
NH, DK = 2, 2

P0 = dict(
    E=M([[0.2, -0.1, 0.3, 0.0], [-0.3, 0.4, 0.1, 0.2], [0.1, 0.2, -0.4, 0.3],
         [0.4, 0.1, 0.2, -0.3], [-0.2, -0.3, 0.1, 0.4]]),
    W_pe=M([[0.1, 0.0, -0.1, 0.2], [0.0, 0.2, 0.1, -0.1], [-0.1, 0.1, 0.2, 0.1]]),
    gamma_f=M([1.0, 1.1, 0.9, 1.0]), beta_f=M([0.0, 0.1, 0.0, -0.1]),
    gamma1=M([1.1, 0.9, 1.0, 1.2]), beta1=M([0.1, 0.0, -0.1, 0.0]),
    W_Q=M([[0.5, -0.3, 0.2, 0.1], [0.2, 0.4, -0.1, 0.3], [-0.4, 0.1, 0.3, 0.2], [0.1, 0.2, 0.4, -0.5]]),
    b_Q=M([0.0, 0.1, 0.0, -0.1]),
    W_K=M([[0.3, 0.2, -0.2, 0.4], [-0.1, 0.5, 0.3, 0.1], [0.4, -0.2, 0.1, 0.3], [0.2, 0.1, -0.3, 0.2]]),
    b_K=M([0.1, 0.0, 0.0, 0.1]),
    W_V=M([[0.2, 0.1, 0.4, -0.2], [0.3, -0.4, 0.1, 0.2], [-0.1, 0.2, 0.3, 0.5], [0.4, 0.3, -0.2, 0.1]]),
    b_V=M([0.0, 0.1, -0.1, 0.0]),
    W_O=M([[0.3, -0.1, 0.2, 0.1], [0.1, 0.4, -0.2, 0.3], [-0.2, 0.2, 0.5, 0.1], [0.2, 0.1, 0.1, -0.4]]),
    b_O=M([0.1, 0.0, 0.0, -0.1]),
    gamma2=M([1.0, 1.0, 1.0, 1.0]), beta2=M([0.0, 0.0, 0.0, 0.0]),
    W_1=M([[0.2, -0.3, 0.4, 0.1, -0.2, 0.3, 0.1, -0.1],
           [0.1, 0.2, -0.1, 0.3, 0.4, -0.2, 0.2, 0.1],
           [-0.3, 0.1, 0.2, -0.2, 0.1, 0.4, -0.1, 0.3],
           [0.4, 0.2, 0.1, 0.2, -0.3, 0.1, 0.3, -0.2]]),
    b_1=M([0.1, 0.0, -0.1, 0.0, 0.1, 0.0, 0.0, 0.1]),
    W_2=M([[0.3, -0.2, 0.1, 0.2], [0.1, 0.3, -0.2, 0.1], [-0.2, 0.1, 0.4, 0.0], [0.2, 0.2, -0.1, -0.3],
           [0.0, -0.1, 0.2, 0.3], [0.1, 0.4, 0.0, -0.2], [-0.3, 0.1, 0.2, 0.1], [0.2, 0.0, -0.3, 0.2]]),
    b_2=M([0.0, 0.1, 0.0, -0.1]),
)


# ---------------------------------------------------------------- small linear algebra

def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def T_(A):
    return [list(c) for c in zip(*A)]


def colsum(A):
    return [mp.fsum(c) for c in zip(*A)]


def zeros(n, m):
    return [[mp.mpf(0)] * m for _ in range(n)]


def ln_fwd(H, g, b):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    sd = [mp.sqrt(v + EPS) for v in var]
    xh = [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(H, mu, sd)]
    out = [[g[j] * r[j] + b[j] for j in range(d)] for r in xh]
    return mu, var, sd, xh, out


def ln_bwd(gout, g, xh, sd):
    """d/dh of LN given d/dout; returns (grad_h, grad_gamma, grad_beta)."""
    d = len(g)
    gh = []
    for go, x, s in zip(gout, xh, sd):
        gx = [go[j] * g[j] for j in range(d)]
        m1 = mp.fsum(gx) / d
        m2 = mp.fsum(gx[j] * x[j] for j in range(d)) / d
        gh.append([(gx[j] - m1 - x[j] * m2) / s for j in range(d)])
    gg = [mp.fsum(gout[t][j] * xh[t][j] for t in range(len(gout))) for j in range(d)]
    gb = colsum(gout)
    return gh, gg, gb


def Phi(z):
    return (1 + mp.erf(z / mp.sqrt(2))) / 2


def gelu(z):
    return z * Phi(z)


def gelu_d(z):
    return Phi(z) + z * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)


# ---------------------------------------------------------------- forward and backward

def forward(P):
    T, d = len(IDS), len(P["E"][0])
    f = {}
    f["X"] = [P["E"][i][:] for i in IDS]
    f["H0"] = [[f["X"][t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    f["mu1"], f["var1"], f["sd1"], f["xh1"], f["LN1"] = ln_fwd(f["H0"], P["gamma1"], P["beta1"])
    f["Q"] = addb(mm(f["LN1"], P["W_Q"]), P["b_Q"])
    f["K"] = addb(mm(f["LN1"], P["W_K"]), P["b_K"])
    f["V"] = addb(mm(f["LN1"], P["W_V"]), P["b_V"])
    S, A, Aden, dots = {}, {}, {}, {}
    AH = zeros(T, d)
    for h in range(NH):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(T):
                dots[h, t, s] = mp.fsum(f["Q"][t][c] * f["K"][s][c] for c in cols)
                S[h, t, s] = dots[h, t, s] / mp.sqrt(DK)
            Aden[h, t] = mp.fsum(mp.exp(S[h, t, s]) for s in range(t + 1))
            for s in range(T):
                A[h, t, s] = mp.exp(S[h, t, s]) / Aden[h, t] if s <= t else mp.mpf(0)
            for c in cols:
                AH[t][c] = mp.fsum(A[h, t, s] * f["V"][s][c] for s in range(t + 1))
    f["dot"], f["S"], f["A"], f["A_den"], f["Attn_heads"] = dots, S, A, Aden, AH
    f["Attn"] = addb(mm(AH, P["W_O"]), P["b_O"])
    f["H1"] = [[f["H0"][t][j] + f["Attn"][t][j] for j in range(d)] for t in range(T)]
    f["mu2"], f["var2"], f["sd2"], f["xh2"], f["LN2"] = ln_fwd(f["H1"], P["gamma2"], P["beta2"])
    f["Z"] = addb(mm(f["LN2"], P["W_1"]), P["b_1"])
    f["R"] = [[gelu(z) for z in r] for r in f["Z"]]
    f["F"] = addb(mm(f["R"], P["W_2"]), P["b_2"])
    f["H2"] = [[f["H1"][t][j] + f["F"][t][j] for j in range(d)] for t in range(T)]
    f["mu_f"], f["var_f"], f["sd_f"], f["xh_f"], f["LN_f"] = ln_fwd(f["H2"], P["gamma_f"], P["beta_f"])
    f["h_final"] = f["LN_f"][-1][:]
    f["logits"] = [mp.fsum(f["h_final"][j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    f["sum_exp"] = mp.fsum(mp.exp(z) for z in f["logits"])
    f["p"] = [mp.exp(z) / f["sum_exp"] for z in f["logits"]]
    f["loss"] = -mp.log(f["p"][TARGET])
    return f


def backward(P, f):
    T, d, V = len(IDS), len(P["E"][0]), len(P["E"])
    g = {}
    gl = [f["p"][v] - (1 if v == TARGET else 0) for v in range(V)]
    g["logits"] = gl
    gE = [[gl[v] * f["h_final"][j] for j in range(d)] for v in range(V)]      # head path
    g["E_head"] = [r[:] for r in gE]
    ghf = [mp.fsum(gl[v] * P["E"][v][j] for v in range(V)) for j in range(d)]
    g["h_final"] = ghf
    gLNf = zeros(T, d)
    gLNf[-1] = ghf[:]
    g["LN_f"] = gLNf
    gH2, g["gamma_f"], g["beta_f"] = ln_bwd(gLNf, P["gamma_f"], f["xh_f"], f["sd_f"])
    g["H2"] = gH2
    gF = gH2
    g["W_2"] = mm(T_(f["R"]), gF)
    g["b_2"] = colsum(gF)
    gR = mm(gF, T_(P["W_2"]))
    gZ = [[gR[t][k] * gelu_d(f["Z"][t][k]) for k in range(len(gR[0]))] for t in range(T)]
    g["Z"] = gZ
    g["W_1"] = mm(T_(f["LN2"]), gZ)
    g["b_1"] = colsum(gZ)
    gLN2 = mm(gZ, T_(P["W_1"]))
    gh, g["gamma2"], g["beta2"] = ln_bwd(gLN2, P["gamma2"], f["xh2"], f["sd2"])
    gH1 = [[gH2[t][j] + gh[t][j] for j in range(d)] for t in range(T)]
    g["H1"] = gH1
    gAttn = gH1
    g["Attn"] = gAttn
    g["W_O"] = mm(T_(f["Attn_heads"]), gAttn)
    g["b_O"] = colsum(gAttn)
    gAH = mm(gAttn, T_(P["W_O"]))
    g["Attn_heads"] = gAH
    gQ, gK, gV = zeros(T, d), zeros(T, d), zeros(T, d)
    for h in range(NH):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            gA = {s: mp.fsum(gAH[t][c] * f["V"][s][c] for c in cols) for s in range(t + 1)}
            for s in range(t + 1):
                for c in cols:
                    gV[s][c] += f["A"][h, t, s] * gAH[t][c]
            avg = mp.fsum(f["A"][h, t, s] * gA[s] for s in range(t + 1))
            for s in range(t + 1):
                gS = f["A"][h, t, s] * (gA[s] - avg)
                for c in cols:
                    gQ[t][c] += gS * f["K"][s][c] / mp.sqrt(DK)
                    gK[s][c] += gS * f["Q"][t][c] / mp.sqrt(DK)
    g["Q"], g["K"], g["V"] = gQ, gK, gV
    for n, gX in (("Q", gQ), ("K", gK), ("V", gV)):
        g["W_" + n] = mm(T_(f["LN1"]), gX)
        g["b_" + n] = colsum(gX)
    gLN1 = [[mp.fsum(gQ[t][k] * P["W_Q"][j][k] + gK[t][k] * P["W_K"][j][k] + gV[t][k] * P["W_V"][j][k]
                     for k in range(d)) for j in range(d)] for t in range(T)]
    g["LN1"] = gLN1
    gh0, g["gamma1"], g["beta1"] = ln_bwd(gLN1, P["gamma1"], f["xh1"], f["sd1"])
    gH0 = [[gH1[t][j] + gh0[t][j] for j in range(d)] for t in range(T)]
    g["H0"] = gH0
    g["W_pe"] = [r[:] for r in gH0]
    for t, i in enumerate(IDS):
        for j in range(d):
            gE[i][j] += gH0[t][j]
    g["E"] = gE
    return g


PARAMS = list(P0)


def sgd_step(P, g):
    out = {}
    for n in PARAMS:
        if isinstance(P[n][0], list):
            out[n] = [[P[n][i][j] - LR * g[n][i][j] for j in range(len(P[n][0]))] for i in range(len(P[n]))]
        else:
            out[n] = [P[n][i] - LR * g[n][i] for i in range(len(P[n]))]
    return out


F0 = forward(P0)
G0 = backward(P0, F0)
P1 = sgd_step(P0, G0)
F1 = forward(P1)


# ---------------------------------------------------------------- named values (symgpt's names)

def value(name: str):
    """A symgpt-style name: 'loss', 'p[seviyorum]', 'S[1,2,0]', 'grad_W_K[0,1]', 'sgd[1].gamma_f[0]', ..."""
    m = re.fullmatch(r"sqrt\((.+) \+ ln_eps\)", name)
    if m:
        return mp.sqrt(value(m[1]) + EPS)
    m = re.fullmatch(r"(exp|Phi)\((.+)\)", name)
    if m:
        return (mp.exp if m[1] == "exp" else Phi)(value(m[2]))
    state = 0
    m = re.fullmatch(r"sgd\[(\d)\]\.(.*)", name)
    if m:
        state, name = int(m[1]), m[2]
    P, F = (P0, F0) if state == 0 else (P1, F1)
    G = G0 if state == 0 else None
    m = re.fullmatch(r"(\w+?)(?:\[([^\]]*)\])?", name)
    base, idx = m[1], m[2]
    if base.startswith("grad_"):
        obj = G[base[5:]]
    elif base in P:
        obj = P[base]
    else:
        obj = F[base]
    if idx is None:
        return obj
    ix = [int(i) if i.strip().lstrip("-").isdigit() else VOCAB.index(i.strip()) for i in idx.split(",")]
    if isinstance(obj, dict):
        return obj[tuple(ix)]
    for i in ix:
        obj = obj[i]
    return obj


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def fd_check():
    """Central differences (h = 1e-20) against the hand-written backward pass, on every parameter."""
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for n in PARAMS:
        shape = (len(P0[n]), len(P0[n][0])) if isinstance(P0[n][0], list) else (len(P0[n]),)
        idxs = [(i, j) for i in range(shape[0]) for j in range(shape[1])] if len(shape) == 2 else [(i,) for i in range(shape[0])]
        for ix in idxs:
            vals = []
            for sgn in (1, -1):
                P = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P0.items()}
                if len(ix) == 2:
                    P[n][ix[0]][ix[1]] += sgn * h
                else:
                    P[n][ix[0]] += sgn * h
                vals.append(forward(P)["loss"])
            fd = (vals[0] - vals[1]) / (2 * h)
            an = G0[n][ix[0]][ix[1]] if len(ix) == 2 else G0[n][ix[0]]
            worst = max(worst, abs(fd - an))
    print("largest |finite difference - backward| over all parameters:", mp.nstr(worst, 3))
    assert worst < mp.mpf("1e-30")


def main() -> int:
    if "--fd" in sys.argv:
        fd_check()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    assert len(rows) == 18, f"expected 8 planted + 10 correct rows, got {len(rows)}"
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").split("\n")
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        if printed not in doc[line - 1]:
            print(f"  {printed!r} is not on line {line} of DOC.txt")
            bad += 1
        ref = re.findall(r"`([^`]+)`", cells[-1])[0]
        pct = printed.endswith("%")
        v = value(ref) * (100 if pct else 1)
        plain = printed.rstrip("%").replace(",", ".").replace("\u2212", "-")
        if len(cells) == 7:
            shown = cells[4].strip("`").rstrip("%").replace(",", ".")
            places = len(shown.split(".")[1]) if "." in shown else 0
            right = rnd(v, places)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * max(abs(v), 1) and right != plain
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            places = len(plain.split(".")[1]) if "." in plain else 0
            right = rnd(v, places)
            note = "correct" if right == plain else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<24} {mp.nstr(v, 20):<26} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
