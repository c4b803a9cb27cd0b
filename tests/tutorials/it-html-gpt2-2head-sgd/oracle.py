#!/usr/bin/env python3
"""Independent oracle for it-html-gpt2-2head-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # every KEY.md row's quantity with its exact value, checked against the key,
                          # then every figure of DOC.html against its quantity

The model (SPEC.toml): a one-block GPT-2 (pre-LN, tanh-GELU, learned positions, biases on every
projection, a final LayerNorm, tied head), V = 6, d = 4, two heads of size 2, d_ff = 8, T = 3,
input "il gatto beve", target "latte", LayerNorm eps 1e-5 (biased variance), loss at the last
position only. The weights are written below again, read from their decimal text.

Forward:  H0 = E[ids] + W_pe;  LN1 = LN(H0; gamma1, beta1);  Q, K, V = LN1 W + b;
          per head h (columns 2h, 2h+1): S = Q_h K_h^T / sqrt(2), causal softmax A, Attn_heads = A V_h;
          Attn = Attn_heads W_O + b_O;  H1 = H0 + Attn;  LN2 = LN(H1; gamma2, beta2);
          Z = LN2 W_1 + b_1;  R = GELU_tanh(Z) (0.044715 as an exact decimal);  F = R W_2 + b_2;
          H2 = H1 + F;  LN_f = LN(H2; gamma_f, beta_f);  logits = LN_f[2] E^T;  p = softmax;
          loss = -ln p[latte].
Backward: a small reverse-mode automatic differentiation over mpf scalars (below) gives the
          gradient of the loss with respect to every node and parameter.
SGD:      every trainable parameter (E, W_pe, W_Q, W_K, W_V, b_Q, b_K, b_V, W_O, b_O, W_1, b_1, W_2,
          b_2; the LayerNorm gains and shifts stay fixed) moves by -lr * grad with lr = 0.1; the
          forward pass is run again for sgd[1].loss and sgd[1].p[latte].
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["il", "gatto", "beve", "latte", "cane", "acqua"]
IDS = [0, 1, 2]
TARGET = 3


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = {
    "E": M([[0.1, -0.2, 0.3, 0.05], [0.4, 0.1, -0.3, 0.2], [-0.2, 0.5, 0.1, -0.1],
            [0.3, 0.2, 0.4, -0.3], [0.2, -0.4, -0.1, 0.3], [-0.1, 0.3, 0.2, 0.4]]),
    "W_pe": M([[0.05, 0.1, -0.05, 0.0], [-0.1, 0.02, 0.1, 0.05], [0.0, -0.05, 0.08, 0.1]]),
    "W_Q": M([[0.5, -0.3, 0.2, 0.4], [0.1, 0.6, -0.4, 0.2], [-0.2, 0.3, 0.5, -0.1], [0.3, -0.1, 0.2, 0.6]]),
    "W_K": M([[0.4, 0.2, -0.3, 0.1], [-0.2, 0.5, 0.3, 0.4], [0.3, -0.4, 0.6, 0.2], [0.1, 0.3, -0.2, 0.5]]),
    "W_V": M([[0.3, -0.2, 0.4, 0.1], [0.2, 0.5, -0.1, 0.3], [-0.4, 0.1, 0.2, 0.6], [0.5, 0.3, 0.1, -0.2]]),
    "b_Q": M([0.01, -0.02, 0.03, 0.0]),
    "b_K": M([0.0, 0.02, -0.01, 0.01]),
    "b_V": M([0.02, 0.0, -0.03, 0.01]),
    "W_O": M([[0.2, -0.1, 0.3, 0.1], [0.4, 0.2, -0.2, 0.3], [-0.3, 0.5, 0.1, 0.2], [0.1, 0.3, 0.4, -0.5]]),
    "b_O": M([0.01, 0.02, -0.01, 0.0]),
    "W_1": M([[0.2, -0.3, 0.4, 0.1, -0.2, 0.5, 0.3, -0.1], [0.3, 0.1, -0.2, 0.4, 0.2, -0.3, 0.1, 0.5],
              [-0.1, 0.4, 0.3, -0.2, 0.5, 0.1, -0.4, 0.2], [0.4, 0.2, 0.1, 0.3, -0.1, 0.2, 0.5, -0.3]]),
    "b_1": M([0.01, 0.0, -0.02, 0.03, 0.0, 0.01, -0.01, 0.02]),
    "W_2": M([[0.2, -0.1, 0.3, 0.1], [-0.3, 0.2, 0.1, 0.4], [0.1, 0.4, -0.2, 0.2], [0.3, -0.2, 0.2, -0.1],
              [-0.1, 0.3, 0.4, 0.2], [0.2, 0.1, -0.3, 0.3], [0.4, -0.3, 0.1, 0.2], [-0.2, 0.2, 0.3, -0.4]]),
    "b_2": M([0.0, 0.01, -0.01, 0.02]),
}
FIXED = {
    "gamma1": M([1.0, 1.1, 0.9, 1.0]), "beta1": M([0.0, 0.01, 0.0, -0.01]),
    "gamma2": M([1.0, 1.0, 1.0, 1.0]), "beta2": M([0.0, 0.0, 0.0, 0.0]),
    "gamma_f": M([1.0, 0.9, 1.1, 1.0]), "beta_f": M([0.01, 0.0, 0.0, -0.01]),
}
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
GELU_C = mp.mpf("0.044715")


# ---------------------------------------------------------------- reverse-mode AD on mpf scalars

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v, self.parents, self.g = mp.mpf(v), parents, mp.mpf(0)

    def __add__(self, o):
        o = lift(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return lift(o) - self

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))


def lift(x):
    return x if isinstance(x, Var) else Var(x)


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vtanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for p, _ in n.parents:
            if id(p) not in seen:
                stack.append((p, False))
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.g += n.g * local


# ---------------------------------------------------------------- the model

def layernorm_row(h, gamma, beta):
    d = len(h)
    mu = vsum(h) / d
    var = vsum([(x - mu) * (x - mu) for x in h]) / d
    den = vsqrt(var + EPS)
    return mu, var, den, [gamma[j] * ((h[j] - mu) / den) + beta[j] for j in range(d)]


def gelu_tanh(z):
    k = mp.sqrt(2 / mp.pi)
    return mp.mpf("0.5") * z * (1 + vtanh(k * (z + GELU_C * z * z * z)))


def forward(P):
    """P: dict of parameter name -> nested lists of Var. Returns every node as Vars."""
    T, d, dk, H = 3, 4, 2, 2
    n = {}
    n["X"] = [[P["E"][IDS[t]][j] for j in range(d)] for t in range(T)]
    n["PE"] = [[P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    n["H0"] = [[n["X"][t][j] + n["PE"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm_row(n["H0"][t], FIXED["gamma1"], FIXED["beta1"]) for t in range(T)]
    n["mu1"], n["var1"], n["sd1"], n["LN1"] = ([r[i] for r in ln] for i in range(4))

    def proj(Xs, W, b):
        return [[vsum(Xs[t][i] * W[i][j] for i in range(len(W))) + b[j] for j in range(len(W[0]))] for t in range(len(Xs))]

    n["Q"], n["K"], n["V"] = (proj(n["LN1"], P[w], P[b]) for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")))
    sq = mp.sqrt(dk)
    n["dot"] = [[[vsum(n["Q"][t][h * dk + c] * n["K"][s][h * dk + c] for c in range(dk)) for s in range(T)]
                 for t in range(T)] for h in range(H)]
    n["S"] = [[[n["dot"][h][t][s] / sq for s in range(T)] for t in range(T)] for h in range(H)]
    n["expS"] = [[[vexp(n["S"][h][t][s]) for s in range(t + 1)] for t in range(T)] for h in range(H)]
    n["A_den"] = [[vsum(n["expS"][h][t]) for t in range(T)] for h in range(H)]
    n["A"] = [[[n["expS"][h][t][s] / n["A_den"][h][t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
              for h in range(H)]
    n["Attn_heads"] = [[vsum(n["A"][h][t][s] * n["V"][s][h * dk + c] for s in range(t + 1))
                        for h in range(H) for c in range(dk)] for t in range(T)]
    n["Attn"] = proj(n["Attn_heads"], P["W_O"], P["b_O"])
    n["H1"] = [[n["H0"][t][j] + n["Attn"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm_row(n["H1"][t], FIXED["gamma2"], FIXED["beta2"]) for t in range(T)]
    n["mu2"], n["var2"], n["sd2"], n["LN2"] = ([r[i] for r in ln] for i in range(4))
    n["Z"] = proj(n["LN2"], P["W_1"], P["b_1"])
    n["R"] = [[gelu_tanh(z) for z in r] for r in n["Z"]]
    n["F"] = proj(n["R"], P["W_2"], P["b_2"])
    n["H2"] = [[n["H1"][t][j] + n["F"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm_row(n["H2"][t], FIXED["gamma_f"], FIXED["beta_f"]) for t in range(T)]
    n["mu_f"], n["var_f"], n["sd_f"], n["LN_f"] = ([r[i] for r in ln] for i in range(4))
    n["h_final"] = n["LN_f"][T - 1]
    n["logits"] = [vsum(n["h_final"][j] * P["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    n["exp_logits"] = [vexp(z) for z in n["logits"]]
    n["sum_exp"] = vsum(n["exp_logits"])
    n["p"] = [e / n["sum_exp"] for e in n["exp_logits"]]
    n["loss"] = -vlog(n["p"][TARGET])
    return n


def to_vars(P):
    return {k: [[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v] for k, v in P.items()}


def val(x):
    if isinstance(x, Var):
        return x.v
    return [val(y) for y in x]


def grad(x):
    if isinstance(x, Var):
        return x.g
    return [grad(y) for y in x]


def run():
    """The initial model, its gradients, and the model after one SGD step on every trainable parameter."""
    Pv = to_vars(PARAMS)
    n = forward(Pv)
    backward(n["loss"])
    vals = {k: val(v) for k, v in n.items()}
    grads = {k: grad(v) for k, v in n.items()}
    pgrads = {k: grad(v) for k, v in Pv.items()}
    new = {}
    for k, P in PARAMS.items():
        G = pgrads[k]
        new[k] = [[P[i][j] - LR * G[i][j] for j in range(len(P[0]))] for i in range(len(P))] if isinstance(P[0], list) \
            else [P[i] - LR * G[i] for i in range(len(P))]
    n1 = forward(to_vars(new))
    vals1 = {k: val(v) for k, v in n1.items()}
    return vals, grads, pgrads, new, vals1


def quantities():
    """Every quantity the document prints, by its symgpt name, with its exact value."""
    v, g, pg, new, v1 = run()
    tok = {w: i for i, w in enumerate(VOCAB)}
    q = {}

    def put(name, arr, dims):
        import itertools
        for idx in itertools.product(*[range(k) for k in dims]):
            x = arr
            for i in idx:
                x = x[i]
            q[f"{name}[{','.join(map(str, idx))}]"] = x

    put("H0", v["H0"], (3, 4))
    for nm in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f"):
        put(nm, v[nm], (3,))
    for nm in ("LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "F", "H2", "LN_f"):
        put(nm, v[nm], (3, 4))
    put("Z", v["Z"], (3, 8))
    put("R", v["R"], (3, 8))
    put("S", v["S"], (2, 3, 3))
    put("A", v["A"], (2, 3, 3))
    put("A_den", v["A_den"], (2, 3))
    put("h_final", v["h_final"], (4,))
    for w, i in tok.items():
        q[f"logits[{w}]"] = v["logits"][i]
        q[f"p[{w}]"] = v["p"][i]
        q[f"exp(logits[{w}])"] = v["exp_logits"][i]
        q[f"grad_logits[{w}]"] = g["logits"][i]
        q[f"sgd[1].p[{w}]"] = v1["p"][i]
        q[f"sgd[1].logits[{w}]"] = v1["logits"][i]
    q["sum_exp"] = v["sum_exp"]
    q["loss"] = v["loss"]
    q["sgd[1].loss"] = v1["loss"]
    q["sgd[0].loss"] = v["loss"]
    put("grad_h_final", g["h_final"], (4,))
    for nm in ("LN_f", "H2", "F", "H1", "Attn", "Attn_heads", "V", "Q", "K", "LN2", "LN1", "H0"):
        put("grad_" + nm, g[nm], (3, 4))
    put("grad_Z", g["Z"], (3, 8))
    put("grad_R", g["R"], (3, 8))
    put("grad_A", g["A"], (2, 3, 3))
    put("grad_S", g["S"], (2, 3, 3))
    for nm, P in PARAMS.items():
        dims = (len(P), len(P[0])) if isinstance(P[0], list) else (len(P),)
        put(nm, P, dims)
        put("grad_" + nm, pg[nm], dims)
        put("sgd[1]." + nm, new[nm], dims)
    for nm, P in FIXED.items():
        put(nm, P, (4,))
    # the per-head unscaled dot products q·k = S·√d_k (the document prints one, −2,3063)
    for h in range(2):
        for t in range(3):
            for s in range(3):
                q[f"S[{h},{t},{s}]*sqrt(2)"] = v["dot"][h][t][s]
    q["lr"] = LR
    q["ln_eps"] = EPS
    for t in range(3):
        q[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(v["var1"][t] + EPS)
        q[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(v["var2"][t] + EPS)
        q[f"sqrt(var_f[{t}] + ln_eps)"] = mp.sqrt(v["var_f"][t] + EPS)
    for h in range(2):
        for t in range(3):
            for s in range(t + 1):
                q[f"exp(S[{h},{t},{s}])"] = v["expS"][h][t][s]
    return q


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def to_dot(s: str) -> str:
    """A figure as the document prints it (decimal comma, Unicode minus, '%') to a plain decimal."""
    return s.replace("−", "-").replace(",", ".").replace("%", "").replace("\u202f", "").replace(" ", "").strip()


# ---------------------------------------------------------------- every figure of DOC.html

# Each line of DOC.html that holds decimal figures, with the quantity of each figure in order
# (operands included; "PLANT" marks the planted errors, which KEY.md lists). Weights and lr are
# checked too: they must be printed exactly. SQRT2 is the constant √2.
DOC_FIGURES = {
 40: ['E[2,0]','E[2,1]','E[2,2]','E[2,3]','W_pe[2,1]','W_pe[2,2]','W_pe[2,3]','H0[2,0]','H0[2,1]','H0[2,2]','H0[2,3]'],
 44: ['gamma1[1]','gamma1[2]','beta1[1]','beta1[3]'],
 45: ['H0[2,0]','H0[2,1]','H0[2,2]','H0[2,3]','mu1[2]'],
 46: ['var1[2]'], 47: ['LN1[2,0]','LN1[2,1]','LN1[2,2]','LN1[2,3]'],
 53: ['Q[2,0]','Q[2,1]'],
 60: ['V[0,0]','V[0,1]'], 61: ['V[1,0]','V[1,1]'], 62: ['V[2,0]','V[2,1]'],
 67: ['SQRT2'],
 68: ['S[0,2,0]*sqrt(2)', 'PLANT'],
 69: ['S[0,2,1]'], 70: ['Q[2,0]','K[2,0]','Q[2,1]','K[2,1]','PLANT'],
 73: ['A_den[0,2]'],
 78: ['A[0,2,0]','PLANT','A[0,2,2]'], 79: ['A[1,2,0]','A[1,2,1]','A[1,2,2]'],
 82: ['A[0,2,1]%','A[1,2,0]%'],
 87: ['Attn_heads[2,0]','Attn_heads[2,1]'],
 88: ['Attn_heads[2,2]','Attn_heads[2,3]'],
 95: ['W_O[0,0]','W_O[0,1]','W_O[0,2]','W_O[0,3]'], 96: ['W_O[1,0]','W_O[1,1]','W_O[1,2]','W_O[1,3]'],
 97: ['W_O[2,0]','W_O[2,1]','W_O[2,2]','W_O[2,3]'], 98: ['W_O[3,0]','W_O[3,1]','W_O[3,2]','W_O[3,3]'],
 99: ['b_O[0]','b_O[1]','b_O[2]'],
 102: ['Attn_heads[2,0]','W_O[0,0]','Attn_heads[2,1]','W_O[1,0]','Attn_heads[2,2]','W_O[2,0]','Attn_heads[2,3]','W_O[3,0]','PLANT'],
 103: ['Attn[2,1]','Attn[2,2]','Attn[2,3]'],
 105: ['H1[2,0]','H1[2,1]','H1[2,2]','H1[2,3]'],
 110: ['LN_f[2,0]','LN_f[2,1]','LN_f[2,2]','LN_f[2,3]'],
 112: ['sum_exp'],
 117: ['PLANT','p[il]'], 118: ['logits[gatto]','p[gatto]'], 119: ['logits[beve]','p[beve]'], 120: ['logits[latte]','p[latte]'],
 121: ['logits[cane]','p[cane]'], 122: ['logits[acqua]','p[acqua]'],
 125: ['p[latte]%'], 126: ['loss'],
 130: ['p[latte]','grad_logits[latte]'],
 131: ['grad_h_final[0]','grad_h_final[1]','grad_h_final[2]','grad_h_final[3]'],
 134: ['grad_H1[2,0]','grad_H1[2,1]','grad_H1[2,2]','grad_H1[2,3]'],
 135: ['Attn_heads[2,0]','grad_Attn[2,0]','grad_W_O[0,0]'],
 140: ['grad_W_O[0,0]','grad_W_O[0,1]','grad_W_O[0,2]','grad_W_O[0,3]'],
 141: ['grad_W_O[1,0]','grad_W_O[1,1]','PLANT','grad_W_O[1,3]'],
 142: ['grad_W_O[2,0]','grad_W_O[2,1]','grad_W_O[2,2]','grad_W_O[2,3]'],
 143: ['grad_W_O[3,0]','grad_W_O[3,1]','grad_W_O[3,2]','grad_W_O[3,3]'],
 150: ['grad_Attn_heads[2,0]','PLANT'], 151: ['grad_Attn_heads[2,2]','grad_Attn_heads[2,3]'],
 154: ['A[0,2,1]','grad_Attn_heads[2,0]','grad_Attn_heads[2,1]','grad_V[1,0]','grad_V[1,1]'],
 159: ['grad_V[0,0]','grad_V[0,1]'], 160: ['grad_V[1,0]','grad_V[1,1]'], 161: ['grad_V[2,0]','grad_V[2,1]'],
 164: ['grad_W_V[2,0]'],
 168: ['lr'],
 173: ['W_O[0,0]','lr','grad_W_O[0,0]','sgd[1].W_O[0,0]'],
 174: ['W_O[3,3]','lr','grad_W_O[3,3]','sgd[1].W_O[3,3]'],
 175: ['lr','grad_b_O[3]','sgd[1].b_O[3]'],
 176: ['W_V[2,0]','lr','grad_W_V[2,0]','PLANT'],
 177: ['lr','grad_b_V[1]','sgd[1].b_V[1]'],
 180: ['sgd[1].p[latte]'],
 181: ['sgd[1].loss'],
}


def check_document(values) -> int:
    """Every decimal figure of DOC.html, outside the planted ones, is the correct rounding of its quantity."""
    values = dict(values, SQRT2=mp.sqrt(2))
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").split("\n")
    bad = planted = total = 0
    for ln, text in enumerate(lines, 1):
        figs = re.findall(r"−?\d+,\d+", re.sub(r"<[^>]+>", " ", text))
        names = DOC_FIGURES.get(ln)
        if names is None:
            assert not figs, f"DOC.html line {ln}: figures {figs} not listed in DOC_FIGURES"
            continue
        assert len(names) == len(figs), f"DOC.html line {ln}: {figs} against {names}"
        for printed, name in zip(figs, names):
            total += 1
            if name == "PLANT":
                planted += 1
                continue
            pct = name.endswith("%")
            v = values[name.rstrip("%")] * (100 if pct else 1)
            plain = to_dot(printed)
            if rnd(v, len(plain.split(".")[1])) != plain:
                bad += 1
                print(f"  DOC.html line {ln}: {printed} is not the rounding of {name} = {mp.nstr(v, 15)}")
    print(f"DOC.html: {total} figures, {planted} planted, {total - planted - bad} correct, {bad} wrong")
    assert planted == 8 and bad == 0
    return bad


def main() -> int:
    values = quantities()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        plain = to_dot(shown)
        places = len(plain.split(".")[1]) if "." in plain else 0
        right = rnd(v, places)
        if len(cells) == 7:  # a planted error: exact value and correct rounding must agree, printed must differ
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = plain == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and to_dot(printed) != right
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = to_dot(printed) == right
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>10}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
        assert ok, f"{printed} ({ref}): {note}"
    print(f"{len(rows)} key rows, all agree with the oracle" if not bad else f"{bad} key rows disagree")
    check_document(values)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
