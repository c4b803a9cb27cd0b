#!/usr/bin/env python3
"""Independent oracle for ja-md-gpt2-2head-adamw2 (plain mpmath, 50 digits, no symgpt).

    python oracle.py     # every figure of DOC.md's model quantities, then every KEY.md row, checked

Model (GPT-2 wiring, one block): x = E[ids] + W_pe; a = LN1(x); Q, K, V = a·W + b (2 heads, d_k = 2,
head h on columns 2h, 2h+1); S = q·k/√d_k, causal softmax A; heads concatenated, ·W_O + b_O; H1 = x + Attn;
LN2; Z = LN2·W_1 + b_1; GELU tanh form ½z(1 + tanh(√(2/π)(z + 0.044715 z³))); F = ·W_2 + b_2;
H2 = H1 + F; ln_f; logits = ln_f(H2)[last]·Eᵀ (tied); p = softmax; loss = −ln p[target].
LayerNorm: biased variance, eps 1e-5, γ = 1, β = 0 (not trained).
Gradients by a small reverse-mode autodiff over mpf scalars. AdamW as torch.optim.AdamW (decoupled decay
on every trained parameter: E, W_pe, W_Q, b_Q, W_K, b_K, W_V, b_V, W_O, b_O, W_1, b_1, W_2, b_2).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

# ------------------------------------------------------------------ the spec's weights (as decimal text)
VOCAB = ["<s>", "猫", "が", "魚", "を", "食べる"]
IDS = [1, 2, 3]          # 猫 が 魚
TGT = 4                  # を
W = {
    "E": [[-0.1, -0.38, -0.1, 0.1], [-0.46, -0.2, -0.24, -0.3], [-0.46, 0.3, 0.4, -0.08],
          [0.02, -0.41, -0.04, 0.18], [-0.33, -0.4, -0.02, 0.2], [-0.06, 0.3, 0.2, 0.0]],
    "W_pe": [[0.1, 0.0, 0.2, 0.2], [0.0, -0.16, -0.3, -0.4], [0.05, -0.4, -0.1, -0.4]],
    "W_Q": [[0.11, 0.5, 0.24, -0.5], [0.4, 0.3, 0.4, 0.3], [-0.25, -0.34, 0.0, -0.13], [-0.45, -0.3, 0.29, -0.39]],
    "b_Q": [-0.04, -0.08, 0.01, 0.04],
    "W_K": [[0.2, 0.2, 0.5, -0.22], [-0.4, 0.13, -0.4, 0.37], [0.35, 0.35, -0.3, -0.31], [0.5, -0.3, -0.26, 0.2]],
    "b_K": [0.04, -0.09, -0.05, 0.03],
    "W_V": [[-0.31, 0.12, 0.07, 0.0], [0.28, -0.05, -0.2, -0.47], [-0.24, 0.38, 0.21, -0.22], [-0.19, -0.02, -0.46, -0.2]],
    "b_V": [-0.04, -0.08, -0.05, -0.03],
    "W_O": [[-0.28, -0.02, 0.5, 0.26], [0.5, -0.4, 0.02, -0.1], [-0.3, 0.45, 0.2, -0.31], [0.05, 0.08, 0.2, 0.5]],
    "b_O": [-0.02, -0.08, 0.02, -0.07],
    "W_1": [[0.5, -0.17, 0.03, 0.3, -0.3, 0.4, 0.17, 0.4], [-0.41, 0.35, 0.44, -0.01, 0.0, -0.4, 0.4, -0.2],
            [0.1, -0.04, -0.33, -0.04, -0.49, -0.24, -0.4, -0.2], [-0.2, -0.01, -0.38, -0.3, 0.33, 0.42, 0.5, 0.17]],
    "b_1": [0.04, -0.07, 0.02, -0.08, 0.06, 0.01, 0.02, -0.01],
    "W_2": [[0.17, -0.5, -0.22, -0.2], [-0.16, 0.5, -0.42, 0.0], [-0.38, -0.2, -0.4, -0.06], [-0.38, 0.18, 0.4, 0.29],
            [-0.05, -0.4, 0.15, -0.27], [0.0, -0.47, 0.3, -0.13], [-0.46, -0.4, 0.2, -0.08], [0.4, 0.0, 0.12, -0.12]],
    "b_2": [0.03, -0.06, 0.07, 0.05],
}
TRAINED = list(W)
D, HEADS, DK, T = 4, 2, 2, 3
LN_EPS = mp.mpf("1e-5")
LR, B1, B2, ADAM_EPS, WD = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8"), mp.mpf("0.1")


def conv(a):
    return [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))


P0 = {k: conv(v) for k, v in W.items()}


# ------------------------------------------------------------------ reverse-mode autodiff on mpf scalars
class Val:
    __slots__ = ("x", "g", "parents")

    def __init__(self, x, parents=()):
        self.x = x if isinstance(x, mp.mpf) else mp.mpf(x)
        self.g = mp.mpf(0)
        self.parents = parents          # ((parent, ∂self/∂parent), ...)

    def __add__(s, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(s.x + o.x, ((s, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(s, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(s.x - o.x, ((s, 1), (o, -1)))

    def __mul__(s, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(s.x * o.x, ((s, o.x), (o, s.x)))

    __rmul__ = __mul__

    def __truediv__(s, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(s.x / o.x, ((s, 1 / o.x), (o, -s.x / o.x ** 2)))

    def __neg__(s):
        return Val(-s.x, ((s, -1),))


def vexp(a):
    e = mp.exp(a.x)
    return Val(e, ((a, e),))


def vlog(a):
    return Val(mp.log(a.x), ((a, 1 / a.x),))


def vsqrt(a):
    r = mp.sqrt(a.x)
    return Val(r, ((a, 1 / (2 * r)),))


def vtanh(a):
    t = mp.tanh(a.x)
    return Val(t, ((a, 1 - t * t),))


def vsum(xs):
    xs = list(xs)
    return Val(mp.fsum(v.x for v in xs), tuple((v, 1) for v in xs))


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p, _ in node.parents if id(p) not in seen)
    out.g = mp.mpf(1)
    for node in reversed(order):
        for p, dl in node.parents:
            p.g += node.g * dl


# ------------------------------------------------------------------ the model
def layernorm(h):
    mu = vsum(h) / D
    var = vsum([(x - mu) * (x - mu) for x in h]) / D
    s = vsqrt(var + LN_EPS)
    return mu, var, [(x - mu) / s for x in h]


def linear(x, Wm, b):
    return [vsum([x[i] * Wm[i][j] for i in range(len(x))]) + b[j] for j in range(len(Wm[0]))]


GELU_C = mp.sqrt(2 / mp.pi)


def gelu(z):
    return mp.mpf("0.5") * z * (1 + vtanh(GELU_C * (z + mp.mpf("0.044715") * z * z * z)))


def tree(a, f):
    return [tree(b, f) for b in a] if isinstance(a, list) else f(a)


def forward(P):
    L = {k: tree(v, Val) for k, v in P.items()}
    E = L["E"]
    H0 = [[E[IDS[t]][j] + L["W_pe"][t][j] for j in range(D)] for t in range(T)]
    n1 = [layernorm(h) for h in H0]
    LN1 = [n[2] for n in n1]
    Q = [linear(a, L["W_Q"], L["b_Q"]) for a in LN1]
    K = [linear(a, L["W_K"], L["b_K"]) for a in LN1]
    V = [linear(a, L["W_V"], L["b_V"]) for a in LN1]
    S = [[[vsum([Q[t][h * DK + i] * K[s][h * DK + i] for i in range(DK)]) / mp.sqrt(DK) for s in range(T)]
          for t in range(T)] for h in range(HEADS)]
    A, A_den = [], []
    for h in range(HEADS):
        Ah, Dh = [], []
        for t in range(T):
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(ex)
            Dh.append(den)
            Ah.append([ex[s] / den if s <= t else Val(0) for s in range(T)])
        A.append(Ah)
        A_den.append(Dh)
    heads = [[vsum([A[j // DK][t][s] * V[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
    Attn = [linear(x, L["W_O"], L["b_O"]) for x in heads]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    LN2 = [layernorm(h)[2] for h in H1]
    Z = [linear(x, L["W_1"], L["b_1"]) for x in LN2]
    R = [[gelu(z) for z in r] for r in Z]
    F = [linear(x, L["W_2"], L["b_2"]) for x in R]
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    h_final = layernorm(H2[T - 1])[2]
    logits = [vsum([h_final[j] * E[v][j] for j in range(D)]) for v in range(len(VOCAB))]
    se = vsum([vexp(z) for z in logits])
    p = [vexp(z) / se for z in logits]
    loss = -vlog(p[TGT])
    backward(loss)
    X = lambda a: tree(a, lambda v: v.x)
    out = dict(H0=X(H0), mu1=[n[0].x for n in n1], var1=[n[1].x for n in n1], LN1=X(LN1), Q=X(Q), K=X(K), V=X(V),
               S=X(S), A=X(A), A_den=X(A_den), logits=X(logits), sum_exp=se.x, p=X(p), loss=loss.x)
    for k, v in L.items():
        out[k] = X(v)
        out["grad_" + k] = tree(v, lambda x: x.g)
    return out


def at(a, idx):
    for i in idx:
        a = a[i]
    return a


def indices(a):
    return [(i,) + r for i, x in enumerate(a) for r in indices(x)] if isinstance(a, list) else [()]


def adamw(P, steps):
    """states[k] = the model after k updates; states[k]["adam"][(param, i, j)] = that update's figures."""
    states, mom, cur = [forward(P)], {}, P
    for t in range(1, steps + 1):
        s, new, rec = states[-1], {}, {}
        for k in TRAINED:
            arr = tree(cur[k], lambda x: x)
            for idx in indices(cur[k]):
                g, th = at(s["grad_" + k], idx), at(cur[k], idx)
                m0, v0 = mom.get((k,) + idx, (mp.mpf(0), mp.mpf(0)))
                m, v = B1 * m0 + (1 - B1) * g, B2 * v0 + (1 - B2) * g * g
                mh, vh = m / (1 - B1 ** t), v / (1 - B2 ** t)
                upd, dec = LR * mh / (mp.sqrt(vh) + ADAM_EPS), LR * WD * th
                mom[(k,) + idx] = (m, v)
                rec[(k,) + idx] = dict(g=g, m=m, v=v, mhat=mh, vhat=vh, update=upd, decay=dec, new=th - dec - upd)
                if len(idx) == 1:
                    arr[idx[0]] = th - dec - upd
                else:
                    arr[idx[0]][idx[1]] = th - dec - upd
            new[k] = arr
        cur = new
        nxt = forward(cur)
        nxt["adam"] = rec
        states.append(nxt)
    return states


# ------------------------------------------------------------------ every quantity the document prints
def quantities():
    st = adamw(P0, 2)
    s0 = st[0]
    tok = {w: i for i, w in enumerate(VOCAB)}
    q = {}
    for j in range(D):
        q[f"H0[2,{j}]"] = s0["H0"][2][j]
        q[f"LN1[2,{j}]"] = s0["LN1"][2][j]
    q["mu1[2]"], q["var1[2]"] = s0["mu1"][2], s0["var1"][2]
    for j in range(D):
        q[f"Q[2,{j}]"] = s0["Q"][2][j]
        for t in range(T):
            q[f"K[{t},{j}]"] = s0["K"][t][j]
    for h in range(HEADS):
        for s in range(T):
            q[f"S[{h},2,{s}]"] = s0["S"][h][2][s]
            q[f"A[{h},2,{s}]"] = s0["A"][h][2][s]
    for w, i in tok.items():
        q[f"logits[{w}]"], q[f"p[{w}]"] = s0["logits"][i], s0["p"][i]
    q["sum_exp"], q["loss"] = s0["sum_exp"], s0["loss"]
    q["W_Q[0,1]"], q["W_1[1,3]"], q["E[を,1]"] = P0["W_Q"][0][1], P0["W_1"][1][3], P0["E"][4][1]
    q["adamw.lr"], q["adamw.beta1"], q["adamw.beta2"], q["adamw.eps"], q["adamw.weight_decay"] = LR, B1, B2, ADAM_EPS, WD
    q["1 - adamw.beta1^2"], q["1 - adamw.beta2^2"] = 1 - B1 ** 2, 1 - B2 ** 2
    entries = {("W_Q", 0, 1): "W_Q,0,1", ("W_1", 1, 3): "W_1,1,3", ("E", 4, 1): "E,を,1"}
    for k in (1, 2):
        q[f"adamw[{k}].loss"] = st[k]["loss"]
        for key, nm in entries.items():
            r = st[k]["adam"][key]
            gname = f"grad_{key[0]}[{nm.split(',', 1)[1]}]"
            q[gname if k == 1 else f"adamw[1].{gname}"] = r["g"]
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{k}].{f}[{nm}]"] = r[f]
            q[f"adamw[{k}].{key[0]}[{nm.split(',', 1)[1]}]"] = r["new"]
    return q


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sci(v, n: int) -> str:
    """a.bcd × 10^e with n decimals of the mantissa (LaTeX as the document prints it)."""
    e = int(mp.floor(mp.log10(abs(v))))
    mant = rnd(v / mp.mpf(10) ** e, n)
    if abs(Decimal(mant)) >= 10:
        e += 1
        mant = rnd(v / mp.mpf(10) ** e, n)
    return mant if e == 0 else f"{mant} \\times 10^{{{e}}}"


def shown(v, printed: str) -> str:
    """v rounded as `printed` is written (plain decimal, percent, or a × 10^e)."""
    if "\\times" in printed:
        return rnd_sci(v, len(printed.split("\\times")[0].strip().split(".")[1]))
    if printed.endswith("%"):
        body = printed[:-1]
        return rnd(100 * v, len(body.split(".")[1]) if "." in body else 0) + "%"
    return rnd(v, len(printed.split(".")[1]) if "." in printed else 0)


# (line of DOC.md, text as printed, quantity, planted?) — every figure of a model quantity in the document
FIGURES = [
    (39, "0.07", "H0[2,0]", 0), (39, "-0.81", "H0[2,1]", 0), (39, "-0.14", "H0[2,2]", 0), (39, "-0.22", "H0[2,3]", 0),
    (47, "-0.2750", "mu1[2]", 0), (47, "0.1066", "var1[2]", 0),
    (53, "1.0565", "LN1[2,0]", 0), (53, "-1.6383", "LN1[2,1]", 0), (53, "0.4314", "LN1[2,2]", 1), (53, "0.1684", "LN1[2,3]", 0),
    (65, "-0.7583", "Q[2,0]", 0), (65, "-0.2343", "Q[2,1]", 0),
    (72, "0.5166", "K[0,0]", 0), (72, "-0.7698", "K[0,1]", 1),
    (73, "-0.7698", "K[1,0]", 0), (73, "0.4912", "K[1,1]", 0),
    (74, "1.1355", "K[2,0]", 0), (74, "0.0025", "K[2,1]", 0),
    (81, "-0.7583", "Q[2,0]", 0), (81, "0.5166", "K[0,0]", 0), (81, "-0.2343", "Q[2,1]", 0), (81, "-0.2179", "K[0,1]", 0),
    (81, "-0.2409", "S[0,2,0]", 0),
    (84, "0.3314", "S[0,2,1]", 0), (84, "-0.6093", "S[0,2,2]", 0),
    (88, "0.2887", "A[0,2,0]", 0), (88, "0.5116", "A[0,2,1]", 0), (88, "0.1997", "A[0,2,2]", 0),
    (89, "0.3187", "A[1,2,0]", 0), (89, "0.5116", "A[1,2,1]", 1), (89, "0.3984", "A[1,2,2]", 0),
    (107, "0.3937", "logits[<s>]", 0), (107, "0.2305", "p[<s>]", 0),
    (108, "-0.2920", "logits[猫]", 0), (108, "0.1161", "p[猫]", 0),
    (109, "-0.7012", "logits[が]", 0), (109, "0.0771", "p[が]", 0),
    (110, "0.5943", "logits[魚]", 0), (110, "0.2817", "p[魚]", 0),
    (111, "0.2035", "logits[を]", 0), (111, "0.1906", "p[を]", 0),
    (112, "-0.4022", "logits[食べる]", 0), (112, "0.1040", "p[食べる]", 0),
    (114, "6.4316", "sum_exp", 0), (114, "0.1906%", "p[を]", 1),
    (119, "0.1906", "p[を]", 0), (119, "1.6576", "loss", 1),
    (126, "0.01", "adamw.lr", 0), (126, "0.9", "adamw.beta1", 0), (126, "0.999", "adamw.beta2", 0),
    (126, "0.1", "adamw.weight_decay", 0),
    (138, "0.5", "W_Q[0,1]", 0), (139, "-0.01", "W_1[1,3]", 0), (140, "-0.4", "E[を,1]", 0),
    (144, "0.01", "adamw.lr", 0), (144, "0.1", "adamw.weight_decay", 0), (144, "0.5", "W_Q[0,1]", 0),
    (144, "0.0005", "adamw[1].decay[W_Q,0,1]", 0),
    # step 1 table
    (148, "-0.010013", "grad_W_Q[0,1]", 0), (148, "-0.001001", "adamw[1].m[W_Q,0,1]", 0),
    (148, "1.003 \\times 10^{-7}", "adamw[1].v[W_Q,0,1]", 0), (148, "-0.010013", "adamw[1].mhat[W_Q,0,1]", 0),
    (148, "1.003 \\times 10^{-4}", "adamw[1].vhat[W_Q,0,1]", 0), (148, "-0.010000", "adamw[1].update[W_Q,0,1]", 0),
    (148, "0.509500", "adamw[1].W_Q[0,1]", 0),
    (149, "0.118707", "grad_W_1[1,3]", 0), (149, "0.011871", "adamw[1].m[W_1,1,3]", 0),
    (149, "1.409 \\times 10^{-5}", "adamw[1].v[W_1,1,3]", 0), (149, "0.118707", "adamw[1].mhat[W_1,1,3]", 0),
    (149, "1.409 \\times 10^{-2}", "adamw[1].vhat[W_1,1,3]", 0), (149, "0.010000", "adamw[1].update[W_1,1,3]", 0),
    (149, "-0.019991", "adamw[1].W_1[1,3]", 1),
    (150, "1.245459", "grad_E[を,1]", 0), (150, "0.124546", "adamw[1].m[E,を,1]", 0),
    (150, "1.551 \\times 10^{-3}", "adamw[1].v[E,を,1]", 0), (150, "1.245459", "adamw[1].mhat[E,を,1]", 0),
    (150, "1.551", "adamw[1].vhat[E,を,1]", 0), (150, "0.010000", "adamw[1].update[E,を,1]", 0),
    (150, "-0.409600", "adamw[1].E[を,1]", 0),
    (152, "0.01", "adamw[1].update[E,を,1]", 0), (152, "1.5400", "adamw[1].loss", 0),
    (156, "0.9", "adamw.beta1", 0), (156, "0.19", "1 - adamw.beta1^2", 0),
    (156, "0.999", "adamw.beta2", 0), (156, "0.001999", "1 - adamw.beta2^2", 0),
    # step 2 table
    (160, "-0.008916", "adamw[1].grad_W_Q[0,1]", 0), (160, "-0.001793", "adamw[2].m[W_Q,0,1]", 0),
    (160, "1.797 \\times 10^{-7}", "adamw[2].v[W_Q,0,1]", 0), (160, "-0.009435", "adamw[2].mhat[W_Q,0,1]", 0),
    (160, "8.987 \\times 10^{-5}", "adamw[2].vhat[W_Q,0,1]", 0), (160, "-0.009953", "adamw[2].update[W_Q,0,1]", 0),
    (160, "0.519453", "adamw[2].W_Q[0,1]", 1),
    (161, "0.112090", "adamw[1].grad_W_1[1,3]", 0), (161, "0.021893", "adamw[2].m[W_1,1,3]", 0),
    (161, "2.664 \\times 10^{-5}", "adamw[2].v[W_1,1,3]", 0), (161, "0.115224", "adamw[2].mhat[W_1,1,3]", 0),
    (161, "1.333 \\times 10^{-2}", "adamw[2].vhat[W_1,1,3]", 0), (161, "-0.009981", "adamw[2].update[W_1,1,3]", 1),
    (161, "-0.029951", "adamw[2].W_1[1,3]", 0),
    (162, "1.277106", "adamw[1].grad_E[を,1]", 0), (162, "0.239802", "adamw[2].m[E,を,1]", 0),
    (162, "3.181 \\times 10^{-3}", "adamw[2].v[E,を,1]", 0), (162, "1.262115", "adamw[2].mhat[E,を,1]", 0),
    (162, "1.591", "adamw[2].vhat[E,を,1]", 0), (162, "0.010006", "adamw[2].update[E,を,1]", 0),
    (162, "-0.419196", "adamw[2].E[を,1]", 0),
    (164, "0.01", "adamw[2].update[E,を,1]", 0), (164, "1.4326", "adamw[2].loss", 0),
    (168, "1.6577", "loss", 0), (168, "1.5400", "adamw[1].loss", 0), (168, "1.4326", "adamw[2].loss", 0),
]


def main() -> int:
    q = quantities()
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = 0

    print("DOC.md figures:")
    planted_doc = set()
    for line, printed, ref, planted in FIGURES:
        v = q[ref]
        right = shown(v, printed)
        in_line = printed in doc[line - 1]
        if planted:
            ok = in_line and right != printed
            planted_doc.add((line, printed))
        else:
            ok = in_line and right == printed
        bad += not ok
        if not ok:
            print(f"  line {line:>3}  {printed:>22}  {ref:<28} {mp.nstr(v, 12):<18} -> {right}  "
                  f"{'NOT IN LINE' if not in_line else 'PROBLEM'}")
    print(f"  {len(FIGURES)} figures listed, {len(FIGURES) - len(planted_doc)} correct roundings, "
          f"{len(planted_doc)} planted; {len({r for _, _, r, _ in FIGURES})} quantities")

    print("KEY.md rows:")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    planted_key = set()
    for r in (r for r in key if r.startswith("| `")):
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref] * (100 if printed.endswith("%") else 1)
        in_line = printed in doc[line - 1]
        if len(cells) == 7:                                   # planted: exact value and correct rounding
            correct = cells[4].strip("`")
            right = shown(q[ref], correct)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = in_line and correct == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            planted_key.add((line, printed))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = shown(q[ref], printed)
            ok = in_line and right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING / NOT IN LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted_key != planted_doc:
        print("  PLANTED SETS DIFFER:", planted_key ^ planted_doc)
        bad += 1
    if len(planted_key) != 8:
        print(f"  EXPECTED 8 PLANTED ROWS, FOUND {len(planted_key)}")
        bad += 1
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0, f"{bad} problems"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
