#!/usr/bin/env python3
"""Independent mpmath oracle for en-nbhtml-gpt2-gradcheck (50 digits, no symgpt).

    python3 oracle.py     # every KEY.md row: value, correct rounding, and the printed text on its DOC line

Model (GPT-2 block, one layer, one head, pre-LN, tied head, ln_f), weights read from SPEC.toml
as exact decimals:
  H0 = E[ids] + W_pe[:T]
  LN1 = ln(H0; gamma1, beta1)                (biased variance, eps)
  Q, K, V = LN1·W_Q + b_Q, LN1·W_K + b_K, LN1·W_V + b_V
  S = Q Kᵀ/√d_k, causal softmax A, Attn_heads = A V, Attn = Attn_heads·W_O + b_O
  H1 = H0 + Attn
  LN2 = ln(H1; gamma2, beta2), Z = LN2·W_1 + b_1, R = gelu_tanh(Z), F = R·W_2 + b_2
  H2 = H1 + F
  LN_f = ln(H2; gamma_f, beta_f), h_final = LN_f[T-1], logits = h_final·Eᵀ
  p = softmax(logits), loss = -ln p[target]
Gradients: hand-written backprop (below), checked against 50-digit central differences with a
tiny step. gradcheck(P, h) = (loss(P + h) - loss(P - h)) / (2h). SGD: every parameter
(LayerNorm gains and shifts included) θ - lr·g, then a fresh forward pass.
Rounding is half away from zero, on a 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def num(x):
    return mp.mpf(str(x))


def conv(a):
    if isinstance(a, list):
        return [conv(v) for v in a]
    return num(a)


def load_spec():
    with open(HERE / "SPEC.toml", "rb") as f:
        spec = tomllib.load(f, parse_float=Decimal)
    vocab = spec["model"]["vocab"]
    P = {"E": conv(spec["weights"]["E"]), "W_pe": conv(spec["weights"]["W_pe"]),
         "gamma_f": conv(spec["weights"]["gamma_f"]), "beta_f": conv(spec["weights"]["beta_f"])}
    for k, v in spec["layer"][0].items():
        P[k] = conv(v)
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = num(spec["model"]["ln_eps"])
    lr = num(spec["training"]["lr"])
    gc = spec["training"]["gradcheck"]
    return spec, vocab, P, ids, tgt, eps, lr, num(gc["h"]), gc["params"]


SPEC, VOCAB, P0, IDS, TGT, EPS, LR, H_GC, GC_PARAMS = load_spec()
D = len(P0["E"][0])
T = len(IDS)
DFF = len(P0["b_1"])
C = mp.sqrt(2 / mp.pi)
GC = mp.mpf("0.044715")


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(A, b):
    return [[a + bb for a, bb in zip(r, b)] for r in A]


def ln(H, g, b):
    mu = [mp.fsum(r) / len(r) for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / len(r) for r, m in zip(H, mu)]
    rs = [mp.sqrt(v + EPS) for v in var]
    nrm = [[(x - m) / s for x in r] for r, m, s in zip(H, mu, rs)]
    out = [[g[j] * n[j] + b[j] for j in range(len(n))] for n in nrm]
    return mu, var, rs, nrm, out


def gelu(z):
    return z / 2 * (1 + mp.tanh(C * (z + GC * z ** 3)))


def dgelu(z):
    u = C * (z + GC * z ** 3)
    th = mp.tanh(u)
    return (1 + th) / 2 + z / 2 * (1 - th ** 2) * C * (1 + 3 * GC * z ** 2)


def forward(P):
    f = {}
    X = [P["E"][i][:] for i in IDS]
    H0 = [[X[t][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    f.update(X=X, H0=H0)
    f["mu1"], f["var1"], f["rs1"], f["n1"], f["LN1"] = ln(H0, P["gamma1"], P["beta1"])
    Q = addb(mm(f["LN1"], P["W_Q"]), P["b_Q"])
    K = addb(mm(f["LN1"], P["W_K"]), P["b_K"])
    V = addb(mm(f["LN1"], P["W_V"]), P["b_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(D)) / mp.sqrt(D) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Ah = mm(A, V)
    Attn = addb(mm(Ah, P["W_O"]), P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    f.update(Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Ah, Attn=Attn, H1=H1)
    f["mu2"], f["var2"], f["rs2"], f["n2"], f["LN2"] = ln(H1, P["gamma2"], P["beta2"])
    Z = addb(mm(f["LN2"], P["W_1"]), P["b_1"])
    R = [[gelu(z) for z in r] for r in Z]
    F = addb(mm(R, P["W_2"]), P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    f.update(Z=Z, R=R, F=F, H2=H2)
    f["mu_f"], f["var_f"], f["rs_f"], f["n_f"], f["LN_f"] = ln(H2, P["gamma_f"], P["beta_f"])
    hf = f["LN_f"][T - 1]
    logits = [mp.fsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    f.update(h_final=hf, logits=logits, exp_logits=[mp.exp(z) for z in logits], sum_exp=se, p=p,
             loss=-mp.log(p[TGT]))
    return f


def ln_back(dout, nrm, rs, g):
    """dout [T][D] → (dH, dgamma, dbeta) for out = g·(h - mu)/rs + b."""
    dH, dg, db = [], [mp.mpf(0)] * D, [mp.mpf(0)] * D
    for t in range(len(dout)):
        dn = [dout[t][j] * g[j] for j in range(D)]
        mdn = mp.fsum(dn) / D
        mdnn = mp.fsum(dn[j] * nrm[t][j] for j in range(D)) / D
        dH.append([(dn[j] - mdn - nrm[t][j] * mdnn) / rs[t] for j in range(D)])
        for j in range(D):
            dg[j] += dout[t][j] * nrm[t][j]
            db[j] += dout[t][j]
    return dH, dg, db


def zeros(r, c=None):
    return [mp.mpf(0)] * r if c is None else [[mp.mpf(0)] * c for _ in range(r)]


def tr(A):
    return [list(r) for r in zip(*A)]


def backward(P, f):
    g = {}
    y = [1 if v == TGT else 0 for v in range(len(VOCAB))]
    dlog = [f["p"][v] - y[v] for v in range(len(VOCAB))]
    dhf = [mp.fsum(dlog[v] * P["E"][v][j] for v in range(len(VOCAB))) for j in range(D)]
    gE = [[dlog[v] * f["h_final"][j] for j in range(D)] for v in range(len(VOCAB))]
    g["E_head"] = copy.deepcopy(gE)
    dLNf = zeros(T, D)
    dLNf[T - 1] = dhf[:]
    dH2, g["gamma_f"], g["beta_f"] = ln_back(dLNf, f["n_f"], f["rs_f"], P["gamma_f"])
    dF = dH2
    g["b_2"] = [mp.fsum(dF[t][j] for t in range(T)) for j in range(D)]
    g["W_2"] = mm(tr(f["R"]), dF)
    dR = mm(dF, tr(P["W_2"]))
    dZ = [[dR[t][k] * dgelu(f["Z"][t][k]) for k in range(DFF)] for t in range(T)]
    g["b_1"] = [mp.fsum(dZ[t][k] for t in range(T)) for k in range(DFF)]
    g["W_1"] = mm(tr(f["LN2"]), dZ)
    dLN2 = mm(dZ, tr(P["W_1"]))
    dH1b, g["gamma2"], g["beta2"] = ln_back(dLN2, f["n2"], f["rs2"], P["gamma2"])
    dH1 = [[dH2[t][j] + dH1b[t][j] for j in range(D)] for t in range(T)]
    dAttn = dH1
    g["b_O"] = [mp.fsum(dAttn[t][j] for t in range(T)) for j in range(D)]
    g["W_O"] = mm(tr(f["Attn_heads"]), dAttn)
    dAh = mm(dAttn, tr(P["W_O"]))
    dA = mm(dAh, tr(f["V"]))
    dV = mm(tr(f["A"]), dAh)
    dS = zeros(T, T)
    for t in range(T):
        s_ = mp.fsum(dA[t][s] * f["A"][t][s] for s in range(t + 1))
        for s in range(t + 1):
            dS[t][s] = f["A"][t][s] * (dA[t][s] - s_)
    sc = 1 / mp.sqrt(D)
    dQ = [[sc * mp.fsum(dS[t][s] * f["K"][s][j] for s in range(T)) for j in range(D)] for t in range(T)]
    dK = [[sc * mp.fsum(dS[t][s] * f["Q"][t][j] for t in range(T)) for j in range(D)] for s in range(T)]
    dLN1 = zeros(T, D)
    for nm, dM in (("Q", dQ), ("K", dK), ("V", dV)):
        g["b_" + nm] = [mp.fsum(dM[t][j] for t in range(T)) for j in range(D)]
        g["W_" + nm] = mm(tr(f["LN1"]), dM)
        back = mm(dM, tr(P["W_" + nm]))
        dLN1 = [[dLN1[t][j] + back[t][j] for j in range(D)] for t in range(T)]
    dH0b, g["gamma1"], g["beta1"] = ln_back(dLN1, f["n1"], f["rs1"], P["gamma1"])
    dH0 = [[dH1[t][j] + dH0b[t][j] for j in range(D)] for t in range(T)]
    g["W_pe"] = [dH0[t][:] for t in range(len(P["W_pe"]))]
    for t, i in enumerate(IDS):
        for j in range(D):
            gE[i][j] += dH0[t][j]
    g["E"] = gE
    nodes = dict(logits=dlog, h_final=dhf, H2=dH2, F=dF, R=dR, Z=dZ, LN2=dLN2, H1=dH1, Attn=dAttn,
                 A=dA, S=dS, Q=dQ, K=dK, V=dV, LN1=dLN1, H0=dH0)
    return g, nodes


def parse_param(s):
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", s)
    name, idx = m.group(1), [x.strip() for x in m.group(2).split(",")]
    out = []
    for i, x in enumerate(idx):
        out.append(VOCAB.index(x) if (name == "E" and i == 0 and x in VOCAB) else int(x))
    return name, tuple(out)


def get(P, name, idx):
    v = P[name]
    for i in idx:
        v = v[i]
    return v


def shifted(P, name, idx, delta):
    Q = copy.deepcopy(P)
    ref = Q[name]
    for i in idx[:-1]:
        ref = ref[i]
    ref[idx[-1]] += delta
    return Q


def loss_at(P):
    return forward(P)["loss"]


def gradcheck(P, name, idx, h):
    return (loss_at(shifted(P, name, idx, h)) - loss_at(shifted(P, name, idx, -h))) / (2 * h)


def sgd_step(P, g, lr):
    Q = copy.deepcopy(P)
    for k in Q:
        if isinstance(Q[k][0], list):
            Q[k] = [[Q[k][i][j] - lr * g[k][i][j] for j in range(len(Q[k][0]))] for i in range(len(Q[k]))]
        else:
            Q[k] = [Q[k][i] - lr * g[k][i] for i in range(len(Q[k]))]
    return Q


F0 = forward(P0)
G0, N0 = backward(P0, F0)
P1 = sgd_step(P0, G0, LR)
F1 = forward(P1)


def self_test():
    """Hand backprop against 50-digit central differences (step 1e-18) on every parameter entry."""
    h = mp.mpf(10) ** -18
    worst = mp.mpf(0)
    for k in P0:
        shape = (len(P0[k]), len(P0[k][0])) if isinstance(P0[k][0], list) else (len(P0[k]),)
        idxs = [(i, j) for i in range(shape[0]) for j in range(shape[1])] if len(shape) == 2 else [(i,) for i in range(shape[0])]
        for idx in idxs:
            num_ = gradcheck(P0, k, idx, h)
            worst = max(worst, abs(num_ - get(G0, k, idx)))
    return worst


# ---------------------------------------------------------------- the key's quantity names

def value_of(ref: str):
    """The value of a symgpt reference as used in KEY.md (a small subset)."""
    ref = ref.strip()
    m = re.fullmatch(r"gradcheck\((\w+\[[^\]]+\]),\s*([0-9.e-]+)\)", ref)
    if m:
        name, idx = parse_param(m.group(1))
        return gradcheck(P0, name, idx, num(m.group(2)))
    m = re.fullmatch(r"abs\((.*)\)", ref)
    if m:
        return abs(value_of(m.group(1)))
    F, G, P = F0, G0, P0
    m = re.fullmatch(r"sgd\[(\d)\]\.(.*)", ref)
    if m:
        if m.group(1) == "1":
            F, P = F1, P1
            G = None
        ref = m.group(2)
    m = re.fullmatch(r"exp\((.*)\)", ref)
    if m:
        return mp.exp(value_of(m.group(1)))
    m = re.fullmatch(r"sqrt\((\w+)\[(\d)\]\s*\+\s*ln_eps\)", ref)
    if m:
        return mp.sqrt(F[m.group(1)][int(m.group(2))] + EPS)
    if ref in ("loss", "sum_exp"):
        return F[ref]
    if ref == "lr":
        return LR
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref)
    name = m.group(1)
    idx = [x.strip() for x in m.group(2).split(",")]
    idx = [VOCAB.index(x) if x in VOCAB else int(x) for x in idx]
    if name.startswith("grad_"):
        base = name[5:]
        src = G if base in G else N0
        v = src[base]
    elif name in P:
        v = P[name]
    else:
        v = F[name]
    for i in idx:
        v = v[i]
    return v


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def places_of(text: str):
    """Decimal places and scale of a printed figure: '0.1234', '-1.2e-05', '3.4%'."""
    t = text.replace("−", "-").rstrip("%")
    m = re.fullmatch(r"(-?\d+(?:\.(\d+))?)(?:e([+-]\d+))?", t)
    return len(m.group(2) or ""), int(m.group(3) or 0)


def render(v, like: str) -> str:
    """v rounded half away from zero in the format of the printed text `like`."""
    places, exp = places_of(like)
    pct = like.endswith("%")
    x = v * (100 if pct else 1)
    if exp:
        mant = rnd(x / mp.mpf(10) ** exp, places)
        s = f"{mant}e{exp:+03d}"
    else:
        s = rnd(x, places)
    if like.startswith("−"):
        s = s.replace("-", "−")
    return s + ("%" if pct else "")


def same(a: str, b: str) -> bool:
    return a.replace("−", "-") == b.replace("−", "-")


def main() -> int:
    worst = self_test()
    print(f"hand backprop vs 50-digit central differences: worst |difference| = {mp.nstr(worst, 3)}")
    bad = 0 if worst < mp.mpf(10) ** -25 else 1
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = value_of(names[0])
        for other in names[1:]:                 # alternatives must be the same number
            if abs(value_of(other) - v) > mp.mpf(10) ** -40:
                print(f"  alternative {other} differs from {names[0]}")
                bad += 1
        on_line = printed in doc[line - 1]
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            right = render(v, shown)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            scale = 100 if shown.endswith("%") else 1
            ok = (same(shown, right) and abs(exact - v * scale) <= mp.mpf("1e-10") * abs(v * scale)
                  and not same(render(v, printed), printed) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            right = render(v, printed)
            ok = same(right, printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING (or not on its line)"
        bad += not ok
        print(f"  {printed:>12} l.{line:<4} {names[0]:<30} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    if n_planted != 8 or n_correct != 10:
        print(f"expected 8 planted and 10 correct rows, got {n_planted} and {n_correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
