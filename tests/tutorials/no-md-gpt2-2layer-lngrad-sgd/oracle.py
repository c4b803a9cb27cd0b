#!/usr/bin/env python3
"""Independent oracle for no-md-gpt2-2layer-lngrad-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key;
                         # then every figure of DOC.md (listed below by line) checked: the planted ones
                         # must not be the correct rounding, all others must be.

Model (GPT-2, pre-LN): H0 = E[ids] + W_pe; per layer: u = LN1(H) (biased variance, eps 1e-5, gamma1, beta1);
Q, K, V = u·W + b; S = Q·Kᵀ/√4; causal softmax A; Attn = (A·V)·W_O + b_O; H1 = H + Attn; v = LN2(H1);
F = GELU_tanh(v·W_1 + b_1)·W_2 + b_2; H2 = H1 + F. LN_f of the last layer's H2; logits = LN_f[T-1]·Eᵀ (tied);
p = softmax; loss = -ln p[target]. Gradients by a small reverse-mode automatic differentiation over mpf
scalars. One SGD step θ - 0.1·g on every parameter (embeddings, positions, all weights, biases and every
LayerNorm γ, β), then the forward pass again. Rounding: half away from zero on the 45-digit decimal.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


class Var:
    __slots__ = ("v", "parents", "g")
    def __init__(self, v, parents=()):
        self.v = mp.mpf(v); self.parents = parents; self.g = mp.mpf(0)
    def __add__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))
    __radd__ = __add__
    def __neg__(a): return Var(-a.v, ((a, -1),))
    def __sub__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))
    def __rsub__(a, b): return Var(b) - a
    def __mul__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))
    __rmul__ = __mul__
    def __truediv__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

def vexp(a): e = mp.exp(a.v); return Var(e, ((a, e),))
def vlog(a): return Var(mp.log(a.v), ((a, 1 / a.v),))
def vsqrt(a): s = mp.sqrt(a.v); return Var(s, ((a, 1 / (2 * s)),))
def vtanh(a): t = mp.tanh(a.v); return Var(t, ((a, 1 - t * t),))
def vsum(xs):
    out = xs[0]
    for x in xs[1:]: out = out + x
    return out

def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        n, done = stack.pop()
        if done: order.append(n); continue
        if id(n) in seen: continue
        seen.add(id(n)); stack.append((n, True))
        for p, _ in n.parents:
            if id(p) not in seen: stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, lg in n.parents: p.g += n.g * lg

VOCAB = ["jeg", "liker", "brunost", "på", "brød"]
IDS, TGT = [0, 1, 2], 3
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")

RAW = dict(
  E=[[0.3, -0.2, 0.1, 0.4], [-0.1, 0.5, 0.2, -0.3], [0.2, 0.1, -0.4, 0.3], [0.4, 0.3, 0.2, -0.1], [-0.3, 0.2, 0.5, 0.1]],
  W_pe=[[0.1, 0.0, -0.1, 0.2], [0.0, 0.1, 0.2, -0.1], [-0.2, 0.1, 0.0, 0.1]],
  gamma_f=[1.1, 0.9, 1.0, 1.2], beta_f=[0.05, -0.1, 0.0, 0.1],
  layers=[dict(
    W_Q=[[0.2, -0.1, 0.3, 0.1], [0.1, 0.4, -0.2, 0.0], [-0.3, 0.2, 0.1, 0.2], [0.0, 0.1, 0.2, -0.4]],
    W_K=[[0.1, 0.3, 0.0, -0.2], [-0.2, 0.1, 0.4, 0.1], [0.3, 0.0, 0.2, 0.1], [0.1, -0.3, 0.1, 0.2]],
    W_V=[[0.4, 0.1, -0.2, 0.0], [0.1, -0.3, 0.2, 0.3], [0.0, 0.2, 0.1, -0.1], [-0.2, 0.1, 0.3, 0.2]],
    W_O=[[0.3, 0.0, 0.1, -0.2], [0.1, 0.2, 0.0, 0.1], [-0.1, 0.1, 0.3, 0.0], [0.2, -0.1, 0.0, 0.2]],
    b_Q=[0.01, -0.02, 0.0, 0.03], b_K=[0.0, 0.02, -0.01, 0.0], b_V=[0.02, 0.0, 0.01, -0.02], b_O=[0.0, 0.01, -0.01, 0.02],
    W_1=[[0.2, -0.1, 0.3, 0.0, 0.1, -0.2, 0.4, 0.1], [-0.3, 0.2, 0.1, 0.4, 0.0, 0.1, -0.1, 0.2],
         [0.1, 0.3, -0.2, 0.1, 0.2, 0.0, 0.1, -0.3], [0.0, -0.2, 0.2, -0.1, 0.3, 0.4, 0.0, 0.1]],
    b_1=[0.0, 0.1, -0.1, 0.0, 0.05, 0.0, -0.05, 0.1],
    W_2=[[0.2, 0.0, -0.1, 0.1], [0.1, 0.2, 0.0, -0.2], [-0.1, 0.1, 0.3, 0.0], [0.0, -0.2, 0.1, 0.2],
         [0.3, 0.1, 0.0, -0.1], [0.0, 0.2, -0.2, 0.1], [0.1, -0.1, 0.2, 0.0], [-0.2, 0.0, 0.1, 0.3]],
    b_2=[0.01, 0.0, -0.01, 0.02],
    gamma1=[1.0, 0.9, 1.1, 1.0], beta1=[0.0, 0.05, -0.05, 0.1], gamma2=[1.1, 1.0, 0.9, 1.0], beta2=[0.02, 0.0, 0.03, -0.02]),
   dict(
    W_Q=[[0.1, 0.2, 0.0, -0.3], [0.3, -0.1, 0.2, 0.1], [0.0, 0.2, 0.4, 0.1], [-0.2, 0.1, 0.1, 0.3]],
    W_K=[[0.2, 0.0, -0.1, 0.3], [0.1, 0.3, 0.2, 0.0], [-0.3, 0.1, 0.2, 0.2], [0.2, -0.2, 0.0, 0.1]],
    W_V=[[0.1, 0.3, 0.0, 0.2], [-0.2, 0.1, 0.3, 0.0], [0.3, 0.0, -0.1, 0.1], [0.0, 0.2, 0.1, -0.3]],
    W_O=[[0.2, 0.1, 0.0, 0.1], [0.0, 0.3, -0.1, 0.0], [0.1, 0.0, 0.2, -0.2], [-0.1, 0.1, 0.0, 0.3]],
    b_Q=[0.0, 0.01, 0.02, -0.01], b_K=[0.01, 0.0, 0.0, 0.02], b_V=[-0.01, 0.02, 0.0, 0.01], b_O=[0.02, 0.0, 0.01, 0.0],
    W_1=[[0.1, 0.3, -0.2, 0.0, 0.2, 0.1, -0.1, 0.3], [0.2, -0.1, 0.1, 0.3, 0.0, -0.2, 0.2, 0.1],
         [-0.1, 0.2, 0.3, 0.1, -0.3, 0.0, 0.1, 0.2], [0.3, 0.0, 0.1, -0.2, 0.1, 0.2, 0.3, 0.0]],
    b_1=[0.05, 0.0, 0.1, -0.05, 0.0, 0.1, 0.0, -0.1],
    W_2=[[0.1, 0.2, 0.0, -0.1], [0.0, -0.1, 0.2, 0.1], [0.2, 0.0, 0.1, 0.0], [-0.1, 0.1, 0.0, 0.2],
         [0.0, 0.3, -0.2, 0.1], [0.1, 0.0, 0.1, -0.2], [0.2, -0.1, 0.0, 0.1], [0.0, 0.1, 0.3, 0.0]],
    b_2=[0.0, 0.02, -0.01, 0.01],
    gamma1=[0.9, 1.1, 1.0, 1.2], beta1=[0.01, 0.0, -0.02, 0.03], gamma2=[1.2, 0.8, 1.0, 1.1], beta2=[0.0, -0.03, 0.02, 0.01])])

def to_vars(a):
    if isinstance(a, list): return [to_vars(x) for x in a]
    return Var(mp.mpf(str(a)) if not isinstance(a, mp.mpf) else a)

def flat(P):
    """(name, index tuple, Var) for every parameter."""
    out = []
    def rec(name, a, idx):
        if isinstance(a, list):
            for i, x in enumerate(a): rec(name, x, idx + (i,))
        else: out.append((name, idx, a))
    for k in ("E", "W_pe", "gamma_f", "beta_f"): rec(k, P[k], ())
    for l, L in enumerate(P["layers"]):
        for k, a in L.items(): rec(f"l{l}.{k}", a, ())
    return out

def params(raw=RAW):
    return dict(E=to_vars(raw["E"]), W_pe=to_vars(raw["W_pe"]), gamma_f=to_vars(raw["gamma_f"]),
                beta_f=to_vars(raw["beta_f"]), layers=[{k: to_vars(v) for k, v in L.items()} for L in raw["layers"]])

def layernorm(h, g, b):
    d = len(h)
    mu = vsum(h) / d
    var = vsum([(x - mu) * (x - mu) for x in h]) / d
    s = vsqrt(var + EPS)
    return mu, var, s, [g[j] * ((h[j] - mu) / s) + b[j] for j in range(d)]

def linear(x, W, b):
    return [vsum([x[i] * W[i][j] for i in range(len(x))]) + b[j] for j in range(len(W[0]))]

C = mp.sqrt(2 / mp.pi)
def gelu(z):
    return 0.5 * z * (1 + vtanh(C * (z + mp.mpf("0.044715") * z * z * z)))

def forward(P):
    f = {}
    T, d = len(IDS), 4
    H = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    f["X"] = [[P["E"][IDS[t]][j] for j in range(d)] for t in range(T)]
    f["H0"] = H
    for l, L in enumerate(P["layers"]):
        p = f"l{l}."
        ln1 = [layernorm(H[t], L["gamma1"], L["beta1"]) for t in range(T)]
        f[p + "mu1"] = [x[0] for x in ln1]; f[p + "var1"] = [x[1] for x in ln1]; f[p + "sd1"] = [x[2] for x in ln1]
        f[p + "LN1"] = LN1 = [x[3] for x in ln1]
        Q = [linear(LN1[t], L["W_Q"], L["b_Q"]) for t in range(T)]
        K = [linear(LN1[t], L["W_K"], L["b_K"]) for t in range(T)]
        V = [linear(LN1[t], L["W_V"], L["b_V"]) for t in range(T)]
        f[p + "Q"], f[p + "K"], f[p + "V"] = Q, K, V
        S = [[vsum([Q[t][j] * K[s][j] for j in range(d)]) / 2 for s in range(T)] for t in range(T)]
        f[p + "S"] = S
        den = [vsum([vexp(S[t][s]) for s in range(t + 1)]) for t in range(T)]
        f[p + "A_den"] = den
        A = [[vexp(S[t][s]) / den[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        f[p + "A"] = A
        AH = [[vsum([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
        f[p + "Attn_heads"] = AH
        At = [linear(AH[t], L["W_O"], L["b_O"]) for t in range(T)]
        f[p + "Attn"] = At
        H1 = [[H[t][j] + At[t][j] for j in range(d)] for t in range(T)]
        f[p + "H1"] = H1
        ln2 = [layernorm(H1[t], L["gamma2"], L["beta2"]) for t in range(T)]
        f[p + "mu2"] = [x[0] for x in ln2]; f[p + "var2"] = [x[1] for x in ln2]; f[p + "sd2"] = [x[2] for x in ln2]
        f[p + "LN2"] = LN2 = [x[3] for x in ln2]
        Z = [linear(LN2[t], L["W_1"], L["b_1"]) for t in range(T)]
        R = [[gelu(z) for z in Z[t]] for t in range(T)]
        F = [linear(R[t], L["W_2"], L["b_2"]) for t in range(T)]
        f[p + "Z"], f[p + "R"], f[p + "F"] = Z, R, F
        H = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        f[p + "H2"] = H
    lnf = [layernorm(H[t], P["gamma_f"], P["beta_f"]) for t in range(T)]
    f["mu_f"] = [x[0] for x in lnf]; f["var_f"] = [x[1] for x in lnf]; f["sd_f"] = [x[2] for x in lnf]
    f["LN_f"] = [x[3] for x in lnf]
    h = f["LN_f"][T - 1]
    f["h_final"] = h
    logits = [vsum([h[j] * P["E"][v][j] for j in range(d)]) for v in range(5)]
    f["logits"] = logits
    ex = [vexp(z) for z in logits]
    f["exp_logits"] = ex
    f["sum_exp"] = se = vsum(ex)
    f["p"] = [e / se for e in ex]
    f["loss"] = -vlog(f["p"][TGT])
    return f

def val(x):
    if isinstance(x, list): return [val(y) for y in x]
    return x.v

def grad(x):
    if isinstance(x, list): return [grad(y) for y in x]
    return x.g

def run():
    P = params()
    f = forward(P)
    backward(f["loss"])
    # SGD on every parameter
    def upd(a):
        if isinstance(a, list): return [upd(x) for x in a]
        return a.v - LR * a.g
    raw2 = dict(E=upd(P["E"]), W_pe=upd(P["W_pe"]), gamma_f=upd(P["gamma_f"]), beta_f=upd(P["beta_f"]),
                layers=[{k: upd(v) for k, v in L.items()} for L in P["layers"]])
    P2 = params(raw2)
    f2 = forward(P2)
    return P, f, P2, f2


# ---------------------------------------------------------------- every quantity the document prints

def quantities():
    P, f, P2, f2 = run()
    T = 2
    q = {}
    V = {name: i for i, name in enumerate(VOCAB)}
    for l in (0, 1):
        p = f"l{l}."
        q[p + "mu1[2]"] = f[p + "mu1"][T].v
        q[p + "var1[2]"] = f[p + "var1"][T].v
        q[f"sqrt({p}var1[2] + ln_eps)"] = f[p + "sd1"][T].v
        for j in range(4):
            q[f"{p}LN1[2,{j}]"] = f[p + "LN1"][T][j].v
            q[f"{p}F[2,{j}]"] = f[p + "F"][T][j].v
        for s in range(3):
            q[f"{p}S[2,{s}]"] = f[p + "S"][T][s].v
            q[f"{p}A[2,{s}]"] = f[p + "A"][T][s].v
    q["mu_f[2]"] = f["mu_f"][T].v
    q["var_f[2]"] = f["var_f"][T].v
    q["sqrt(var_f[2] + ln_eps)"] = f["sd_f"][T].v
    for j in range(4):
        q[f"LN_f[2,{j}]"] = f["LN_f"][T][j].v
        q[f"(l1.H2[2,{j}] - mu_f[2])/sqrt(var_f[2] + ln_eps)"] = (f["l1.H2"][T][j].v - f["mu_f"][T].v) / f["sd_f"][T].v
        q[f"grad_beta_f[{j}]"] = P["beta_f"][j].g
        q[f"grad_h_final[{j}]"] = f["h_final"][j].g
        q[f"grad_gamma_f[{j}]"] = P["gamma_f"][j].g
        q[f"grad_l1.gamma2[{j}]"] = P["layers"][1]["gamma2"][j].g
        q[f"grad_l0.beta1[{j}]"] = P["layers"][0]["beta1"][j].g
        q[f"gamma_f[{j}]"], q[f"sgd[1].gamma_f[{j}]"] = P["gamma_f"][j].v, P2["gamma_f"][j].v
        q[f"beta_f[{j}]"], q[f"sgd[1].beta_f[{j}]"] = P["beta_f"][j].v, P2["beta_f"][j].v
        q[f"l1.gamma2[{j}]"], q[f"sgd[1].l1.gamma2[{j}]"] = P["layers"][1]["gamma2"][j].v, P2["layers"][1]["gamma2"][j].v
        q[f"l0.beta1[{j}]"], q[f"sgd[1].l0.beta1[{j}]"] = P["layers"][0]["beta1"][j].v, P2["layers"][0]["beta1"][j].v
    for name, v in V.items():
        q[f"logits[{name}]"] = f["logits"][v].v
        q[f"exp(logits[{name}])"] = f["exp_logits"][v].v
        q[f"p[{name}]"] = f["p"][v].v
    q["sum_exp"] = f["sum_exp"].v
    q["loss"] = f["loss"].v
    q["grad_logits[på]"] = f["logits"][TGT].g
    b = V["brunost"]
    q["E[brunost,3]"] = P["E"][b][3].v
    q["grad_E[brunost,3]"] = P["E"][b][3].g                      # the whole gradient (E is read twice)
    q["grad_E_head[brunost,3]"] = f["p"][b].v * f["h_final"][3].v  # the output layer's part, (p - y)·h_final
    q["grad_X[2,3]"] = f["H0"][T][3].g                           # the input side's part, ∂L/∂H0 = ∂L/∂X
    q["sgd[1].E[brunost,3]"] = P2["E"][b][3].v
    q["lr"] = LR
    q["sgd[1].loss"] = f2["loss"].v
    q["sgd[1].p[på]"] = f2["p"][TGT].v
    return q


# (line of DOC.md, figure as printed, quantity); a percentage is the quantity × 100
FIGURES = [
    (50, "0.05", "l0.mu1[2]"), (50, "0.0875", "l0.var1[2]"), (50, "0.2958", "sqrt(l0.var1[2] + ln_eps)"),
    (56, "−0,1690", "l0.LN1[2,0]"), (56, "0,5064", "l0.LN1[2,1]"), (56, "−1,7233", "l0.LN1[2,2]"), (56, "1,2831", "l0.LN1[2,3]"),
    (62, "0.3871", "l0.A[2,0]"), (63, "0.3237", "l0.A[2,1]"), (64, "0.2892", "l0.A[2,2]"),
    (66, "38,7 %", "l0.A[2,0]"), (66, "3,24 %", "l0.A[2,1]"), (66, "28,9 %", "l0.A[2,2]"),
    (78, "-0.5718", "l1.LN1[2,0]"), (78, "0.5083", "l1.LN1[2,1]"), (78, "-1.2223", "l1.LN1[2,2]"), (78, "1.6940", "l1.LN1[2,3]"),
    (86, "0,1045", "l1.S[2,0]"), (86, "−0,1196", "l1.S[2,1]"), (86, "−0,1032", "l1.S[2,2]"),
    (87, "0,3829", "l1.A[2,0]"), (87, "0,3060", "l1.A[2,1]"), (87, "0,3112", "l1.A[2,2]"),
    (95, "0.1418", "l1.F[2,0]"), (95, "0.1162", "l1.F[2,1]"), (95, "-0.1187", "l1.F[2,2]"), (95, "-0.0464", "l1.F[2,3]"),
    (105, "0.1183", "mu_f[2]"), (105, "0.1441", "var_f[2]"), (105, "0.3769", "sqrt(var_f[2] + ln_eps)"),
    (109, "-0.2424", "LN_f[2,0]"), (109, "0.6299", "LN_f[2,1]"), (109, "-1.5221", "LN_f[2,2]"), (109, "1.2723", "LN_f[2,3]"),
    (119, "1.1712", "exp(logits[jeg])"), (119, "0.7069", "exp(logits[liker])"), (119, "2.7321", "exp(logits[brunost])"),
    (119, "0.7120", "exp(logits[på])"), (119, "0.6472", "exp(logits[brød])"), (119, "5.9694", "sum_exp"),
    (123, "0,1580", "logits[jeg]"), (123, "0,1962", "p[jeg]"), (124, "−0,3469", "logits[liker]"), (124, "0,1184", "p[liker]"),
    (125, "1,0051", "logits[brunost]"), (125, "0,4577", "p[brunost]"), (126, "−0,3396", "logits[på]"), (126, "0,1193", "p[på]"),
    (127, "−0,4351", "logits[brød]"), (127, "0,1084", "p[brød]"),
    (135, "0.11928", "p[på]"), (135, "2.1263", "loss"),
    (141, "−0,8807", "grad_logits[på]"),
    (155, "−0,2463", "grad_beta_f[0]"), (155, "−0,2658", "(l1.H2[2,0] - mu_f[2])/sqrt(var_f[2] + ln_eps)"), (155, "0,0655", "grad_gamma_f[0]"),
    (156, "−0,1768", "grad_beta_f[1]"), (156, "0,8110", "(l1.H2[2,1] - mu_f[2])/sqrt(var_f[2] + ln_eps)"), (156, "−0,1434", "grad_gamma_f[1]"),
    (157, "−0,2617", "grad_beta_f[2]"), (157, "−1,5221", "(l1.H2[2,2] - mu_f[2])/sqrt(var_f[2] + ln_eps)"), (157, "0,3983", "grad_gamma_f[2]"),
    (158, "0,2792", "grad_beta_f[3]"), (158, "0,9769", "(l1.H2[2,3] - mu_f[2])/sqrt(var_f[2] + ln_eps)"), (158, "0,2727", "grad_gamma_f[3]"),
    (164, "0.0274", "grad_l1.gamma2[0]"), (164, "-0.1128", "grad_l1.gamma2[3]"),
    (170, "-0.0472", "grad_l0.beta1[0]"), (170, "0.0232", "grad_l0.beta1[1]"), (170, "0.0082", "grad_l0.beta1[2]"), (170, "0.0332", "grad_l0.beta1[3]"),
    (178, "0.5823", "grad_E_head[brunost,3]"), (178, "0.3771", "grad_X[2,3]"), (178, "0.9594", "grad_E[brunost,3]"),
    (182, "0.1", "lr"),
    (184, "0.3", "E[brunost,3]"), (184, "0.1", "lr"), (184, "0.9594", "grad_E[brunost,3]"), (184, "0.2041", "sgd[1].E[brunost,3]"),
    (190, "1,0", "gamma_f[2]"), (190, "0,9602", "sgd[1].gamma_f[2]"),
    (191, "0,1", "beta_f[3]"), (191, "0,0721", "sgd[1].beta_f[3]"),
    (192, "1,2", "l1.gamma2[0]"), (192, "1,1973", "sgd[1].l1.gamma2[0]"),
    (193, "1,1", "l1.gamma2[3]"), (193, "1,0887", "sgd[1].l1.gamma2[3]"),
    (194, "0,0", "l0.beta1[0]"), (194, "0,0047", "sgd[1].l0.beta1[0]"),
    (196, "1,3629", "sgd[1].loss"), (196, "0,2559", "sgd[1].p[på]"),
]


def norm(text: str) -> str:
    return text.strip().strip("`").replace("−", "-").replace(",", ".").replace(" ", "").rstrip("%")


def places(text: str) -> int:
    t = norm(text)
    return len(t.split(".")[1]) if "." in t else 0


def rounding(q, ref: str, shown: str) -> str:
    v = q[ref] * (100 if shown.strip().strip("`").endswith("%") else 1)
    return rnd(v, places(shown))


def main() -> int:
    q = quantities()
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
        scale = 100 if printed.endswith("%") else 1
        v = q[ref] * scale
        doc_line = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()[line - 1]
        on_line = printed in doc_line
        if len(cells) == 7:                                    # planted: exact value and correct rounding must agree
            planted.add((line, printed))
            shown = cells[4].strip("`")
            right = rnd(v, places(shown))
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (norm(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and rnd(v, places(printed)) != norm(printed) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = rnd(v, places(printed))
            ok = right == norm(printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING (or not on its line)"
        bad += not ok
        print(f"  {printed:>9}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<9} {note}")
    assert len(planted) == 8, "the key must plant exactly 8 errors"
    print("DOC.md figures:")
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    seen = set()
    for line, printed, ref in FIGURES:
        right = rounding(q, ref, printed)
        is_planted = (line, printed) in planted
        on_line = printed in lines[line - 1]
        ok = on_line and ((right != norm(printed)) if is_planted else (right == norm(printed)))
        seen.add((line, printed))
        if not ok:
            bad += 1
            print(f"  PROBLEM line {line}: {printed} for {ref} = {mp.nstr(q[ref], 15)} (rounds to {right}), planted={is_planted}, on line={on_line}")
    missing = planted - seen
    bad += len(missing)
    for m in sorted(missing):
        print(f"  PROBLEM planted row {m} is not in FIGURES")
    n_planted = sum((l, p) in planted for l, p, _ in FIGURES)
    print(f"  {len(FIGURES)} figures checked: {len(FIGURES) - n_planted} correct roundings, {n_planted} planted errors")
    print("all key rows and figures agree with the oracle" if not bad else f"{bad} rows disagree")
    assert not bad, f"{bad} rows disagree"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
