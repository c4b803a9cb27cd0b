#!/usr/bin/env python3
"""Independent oracle for ja-pdf-nanogpt-gradcheck-sgd: plain mpmath (50 digits), no symgpt.

    python oracle.py     # every quantity of KEY.md with its value; checks the key's columns

Model (nanoGPT-style GPT-2 block, pre-LN, learned positions, exact-erf GELU, tied head, no c_proj):
  x_t   = wte[w_t] + wpe[t]                              H0
  u_t   = LN_1(x_t)        (biased variance, eps 1e-5)   mu1, var1, LN1
  q,k,v = u W_Q + b_Q, u W_K + b_K, u W_V + b_V          Q, K, V   (head h: columns 2h, 2h+1)
  s^h_ts = q^h_t . k^h_s / sqrt(2); causal softmax a^h   S, A
  attn_t = concat_h sum_s a^h_ts v^h_s                   Attn
  x'_t  = x_t + attn_t                                   H1
  m_t   = GELU(LN_2(x'_t) W_1 + b_1) W_2 + b_2           Z, R, F
  x''_t = x'_t + m_t                                     H2
  h     = LN_f(x''_3)                                    h_final
  z_v   = h . wte[v];  p = softmax(z);  L = -ln p[wo]
Gradients by a small reverse-mode automatic differentiation over mpf scalars (written here, micrograd
style), cross-checked against a 50-digit central difference.  Central-difference gradient check at
h = 1e-4 on three parameters; one SGD step (lr 0.1) on every parameter (LayerNorm gains and shifts,
biases and the position table included) and the loss after it.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents      # tuples (parent, local derivative)
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    r = mp.sqrt(x.v)
    return Var(r, ((x, 1 / (2 * r)),))


def vgelu(x):
    """x * Phi(x) with the exact erf (torch.nn.GELU()), derivative Phi(x) + x phi(x)."""
    Phi = (1 + mp.erf(x.v / mp.sqrt(2))) / 2
    phi = mp.exp(-x.v ** 2 / 2) / mp.sqrt(2 * mp.pi)
    return Var(x.v * Phi, ((x, Phi + x.v * phi),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()

    def visit(n):
        if id(n) in seen:
            return
        seen.add(id(n))
        for p, _ in n.parents:
            visit(p)
        order.append(n)

    import sys
    sys.setrecursionlimit(100000)
    visit(root)
    for n in order:
        n.g = mp.mpf(0)
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, dv in n.parents:
            p.g += n.g * dv


# ---------------------------------------------------------------- the spec's numbers

VOCAB = ["neko", "ga", "sakana", "wo", "taberu"]
INPUT, TARGET = [0, 1, 2], 3
D, HEADS, DFF = 4, 2, 8
DK = D // HEADS
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
H_GC = mp.mpf("1e-4")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS0 = {
    "E": M([[0.3, -0.2, 0.5, 0.1], [-0.1, 0.4, 0.2, -0.3], [0.2, 0.1, -0.4, 0.6],
            [0.5, 0.3, -0.1, -0.2], [-0.3, 0.2, 0.1, 0.4]]),
    "W_pe": M([[0.1, 0.0, -0.1, 0.2], [0.0, 0.2, 0.1, -0.1], [-0.2, 0.1, 0.0, 0.1]]),
    "W_Q": M([[0.4, -0.3, 0.2, 0.1], [0.1, 0.5, -0.2, 0.3], [-0.3, 0.2, 0.4, -0.1], [0.2, 0.1, 0.3, 0.5]]),
    "W_K": M([[0.3, 0.2, -0.1, 0.4], [-0.2, 0.4, 0.3, 0.1], [0.5, -0.1, 0.2, -0.3], [0.1, 0.3, -0.4, 0.2]]),
    "W_V": M([[0.2, -0.1, 0.3, 0.4], [0.5, 0.2, -0.2, 0.1], [-0.1, 0.3, 0.1, -0.3], [0.3, -0.4, 0.2, 0.2]]),
    "b_Q": M([0, 0, 0, 0]), "b_K": M([0, 0, 0, 0]), "b_V": M([0, 0, 0, 0]),
    "W_1": M([[0.2, -0.3, 0.1, 0.4, -0.2, 0.3, 0.05, -0.1], [-0.1, 0.2, 0.3, -0.2, 0.4, 0.1, -0.3, 0.2],
              [0.3, 0.1, -0.2, 0.1, 0.2, -0.4, 0.2, 0.3], [0.1, 0.4, 0.2, -0.3, -0.1, 0.2, 0.3, -0.2]]),
    "b_1": M([0] * 8),
    "W_2": M([[0.3, -0.2, 0.1, 0.2], [-0.1, 0.3, 0.2, -0.2], [0.2, 0.1, -0.3, 0.1], [0.1, -0.2, 0.2, 0.3],
              [-0.2, 0.1, 0.3, -0.1], [0.2, 0.2, -0.1, 0.1], [0.1, -0.3, 0.1, 0.2], [-0.1, 0.2, 0.2, -0.3]]),
    "b_2": M([0] * 4),
    "gamma1": M([1] * 4), "beta1": M([0] * 4), "gamma2": M([1] * 4), "beta2": M([0] * 4),
    "gamma_f": M([1] * 4), "beta_f": M([0] * 4),
}


def wrap(P):
    """Each parameter entry as a leaf Var."""
    return {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v])
            for k, v in P.items()}


def layernorm(h, g, b):
    mu = vsum(h) / D
    var = vsum([(x - mu) * (x - mu) for x in h]) / D
    den = vsqrt(var + EPS)
    return mu, var, [g[j] * ((h[j] - mu) / den) + b[j] for j in range(D)]


def vecmat(x, W, b):
    return [vsum([x[i] * W[i][j] for i in range(len(x))]) + b[j] for j in range(len(W[0]))]


def forward(Pv):
    T = len(INPUT)
    out = {}
    H0 = [[Pv["E"][INPUT[t]][j] + Pv["W_pe"][t][j] for j in range(D)] for t in range(T)]
    ln1 = [layernorm(H0[t], Pv["gamma1"], Pv["beta1"]) for t in range(T)]
    LN1 = [l[2] for l in ln1]
    Q = [vecmat(u, Pv["W_Q"], Pv["b_Q"]) for u in LN1]
    K = [vecmat(u, Pv["W_K"], Pv["b_K"]) for u in LN1]
    V = [vecmat(u, Pv["W_V"], Pv["b_V"]) for u in LN1]
    rt = mp.sqrt(DK)
    S = [[[vsum([Q[t][h * DK + i] * K[s][h * DK + i] for i in range(DK)]) / rt for s in range(T)]
          for t in range(T)] for h in range(HEADS)]
    A, A_den = [], []
    for h in range(HEADS):
        Ah, dh = [], []
        for t in range(T):
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(ex)
            dh.append(den)
            Ah.append([ex[s] / den for s in range(t + 1)] + [Var(0)] * (T - t - 1))
        A.append(Ah)
        A_den.append(dh)
    Attn = [[vsum([A[j // DK][t][s] * V[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    ln2 = [layernorm(H1[t], Pv["gamma2"], Pv["beta2"]) for t in range(T)]
    LN2 = [l[2] for l in ln2]
    Z = [vecmat(u, Pv["W_1"], Pv["b_1"]) for u in LN2]
    R = [[vgelu(z) for z in r] for r in Z]
    F = [vecmat(r, Pv["W_2"], Pv["b_2"]) for r in R]
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    lnf = layernorm(H2[T - 1], Pv["gamma_f"], Pv["beta_f"])
    hf = lnf[2]
    logits = [vsum([hf[j] * Pv["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    p = [e / sum_exp for e in ex]
    loss = -vlog(p[TARGET])
    out.update(H0=H0, mu1=[l[0] for l in ln1], var1=[l[1] for l in ln1], LN1=LN1, Q=Q, K=K, V=V, S=S, A=A,
               A_den=A_den, Attn=Attn, H1=H1, LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=lnf[0], var_f=lnf[1],
               h_final=hf, logits=logits, exp_logits=ex, sum_exp=sum_exp, p=p, loss=loss)
    return out


def val(x):
    if isinstance(x, Var):
        return x.v
    return [val(y) for y in x]


def loss_of(P):
    return forward(wrap(P))["loss"].v


def with_entry(P, name, idx, delta):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


def grads(P):
    Pv = wrap(P)
    f = forward(Pv)
    backward(f["loss"])
    G = {k: ([[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v]) for k, v in Pv.items()}
    return f, G


def sgd_step(P, G):
    return {k: ([[x - LR * g for x, g in zip(r, gr)] for r, gr in zip(v, G[k])] if isinstance(v[0], list)
                else [x - LR * g for x, g in zip(v, G[k])]) for k, v in P.items()}


# ---------------------------------------------------------------- every quantity the document prints

def compute():
    P = PARAMS0
    f, G = grads(P)
    F = {k: val(v) for k, v in f.items()}
    q = {}
    tok = {v: i for i, v in enumerate(VOCAB)}
    for v, i in tok.items():
        for j in range(D):
            q[f"E[{v},{j}]"] = P["E"][i][j]
    for j in range(D):
        q[f"W_pe[2,{j}]"] = P["W_pe"][2][j]
        q[f"H0[2,{j}]"] = F["H0"][2][j]
        q[f"LN1[2,{j}]"] = F["LN1"][2][j]
        q[f"Attn[2,{j}]"] = F["Attn"][2][j]
        q[f"F[2,{j}]"] = F["F"][2][j]
        q[f"H2[2,{j}]"] = F["H2"][2][j]
        q[f"h_final[{j}]"] = F["h_final"][j]
    q["mu1[2]"], q["var1[2]"] = F["mu1"][2], F["var1"][2]
    q["sqrt(var1[2] + ln_eps)"] = mp.sqrt(F["var1"][2] + EPS)
    for h in range(HEADS):
        for t in range(3):
            for s in range(3):
                q[f"S[{h},{t},{s}]"] = F["S"][h][t][s]
                q[f"A[{h},{t},{s}]"] = F["A"][h][t][s]
            q[f"A_den[{h},{t}]"] = F["A_den"][h][t]
    for k in range(DFF):
        q[f"Z[2,{k}]"], q[f"R[2,{k}]"] = F["Z"][2][k], F["R"][2][k]
    q["mu_f[2]"], q["var_f[2]"] = F["mu_f"], F["var_f"]
    for v, i in tok.items():
        q[f"logits[{v}]"] = F["logits"][i]
        q[f"exp(logits[{v}])"] = F["exp_logits"][i]
        q[f"p[{v}]"] = F["p"][i]
        q[f"grad_logits[{v}]"] = F["p"][i] - (1 if i == TARGET else 0)
    q["sum_exp"], q["loss"] = F["sum_exp"], F["loss"]

    # self-test of the autodiff: 50-digit central differences with a tiny step on a few entries
    for name, idx in (("W_Q", (3, 0)), ("W_1", (3, 2)), ("E", (3, 0)), ("gamma1", (2,)), ("W_pe", (2, 3))):
        tiny = mp.mpf("1e-18")
        fd = (loss_of(with_entry(P, name, idx, tiny)) - loss_of(with_entry(P, name, idx, -tiny))) / (2 * tiny)
        g = G[name][idx[0]][idx[1]] if len(idx) == 2 else G[name][idx[0]]
        assert abs(fd - g) < mp.mpf("1e-25"), (name, idx, fd, g)

    # the gradient check, h = 1e-4, on three parameters
    for name, idx, ref in (("W_Q", (3, 0), "W_Q[3,0]"), ("W_1", (3, 2), "W_1[3,2]"), ("E", (3, 0), "E[wo,0]")):
        Lp = loss_of(with_entry(P, name, idx, H_GC))
        Lm = loss_of(with_entry(P, name, idx, -H_GC))
        num = (Lp - Lm) / (2 * H_GC)
        ana = G[name][idx[0]][idx[1]]
        q[ref] = P[name][idx[0]][idx[1]]
        q[f"grad_{ref}"] = ana
        q[f"gradcheck({ref}, 1e-4)"] = num
        q[f"L(+h) {ref}"] = Lp
        q[f"L(-h) {ref}"] = Lm
        q[f"(grad_{ref} - gradcheck({ref}, 1e-4)) / grad_{ref}"] = (ana - num) / ana
        assert abs(ana - num) / max(abs(ana), abs(num)) == (ana - num) / ana   # the printed |.|/max form

    # one SGD step on every parameter
    P1 = sgd_step(P, G)
    f1 = forward(wrap(P1))
    q["sgd[1].W_Q[3,0]"] = P1["W_Q"][3][0]
    q["sgd[1].W_1[3,2]"] = P1["W_1"][3][2]
    q["sgd[1].E[wo,0]"] = P1["E"][3][0]
    q["sgd[1].loss"] = f1["loss"].v
    q["sgd[1].p[wo]"] = f1["p"][TARGET].v
    q["sgd[1].logits[wo]"] = f1["logits"][TARGET].v
    p1 = [x.v for x in f1["p"]]
    assert sorted(range(len(VOCAB)), key=lambda i: -p1[i])[1] == TARGET   # "wo is now second most likely"
    return q


# ---------------------------------------------------------------- the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def sci(v, sig: int) -> str:
    """v as m × 10^e with sig significant digits (half away from zero), e.g. '3.02e-9'."""
    e = int(mp.floor(mp.log10(abs(v))))
    m = rnd(v / mp.mpf(10) ** e, sig - 1)
    if abs(Decimal(m)) >= 10:
        e += 1
        m = rnd(v / mp.mpf(10) ** e, sig - 1)
    return f"{m}e{e}"


def correct_rounding(v, shown: str) -> str:
    """The correct rounding of v in the format of the printed text ``shown``."""
    s = shown.replace("−", "-")
    m = re.fullmatch(r"(-?[\d.]+)\s*(?:\\times|×)\s*10\^\{?(-?\d+)\}?", s) or re.fullmatch(r"(-?[\d.]+)e(-?\d+)", s)
    if m:
        mant = m.group(1)
        sig = len(mant.replace("-", "").replace(".", "").lstrip("0")) or 1
        return sci(v, sig)
    pct = s.endswith("%")
    s = s.rstrip("%")
    places = len(s.split(".")[1]) if "." in s else 0
    return rnd(v * (100 if pct else 1), places) + ("%" if pct else "")


def norm(s: str) -> str:
    s = s.replace("−", "-").replace(" ", "")
    m = re.fullmatch(r"(-?[\d.]+)(?:\\times|×)10\^\{?(-?\d+)\}?", s)
    return f"{m.group(1)}e{int(m.group(2))}" if m else s


# Every other figure of a model quantity in DOC.pdf (the planted ones are in KEY.md): printed text, quantity.
RELS = {P: f"(grad_{P} - gradcheck({P}, 1e-4)) / grad_{P}" for P in ("W_Q[3,0]", "W_1[3,2]", "E[wo,0]")}
DOC_FIGURES = [
    # Table 1, wte
    *[(t, f"E[{v},{j}]") for v, row in zip(VOCAB, [["0.3", "-0.2", "0.5", "0.1"], ["-0.1", "0.4", "0.2", "-0.3"],
                                                    ["0.2", "0.1", "-0.4", "0.6"], ["0.5", "0.3", "-0.1", "-0.2"],
                                                    ["-0.3", "0.2", "0.1", "0.4"]]) for j, t in enumerate(row)],
    # 2.1 x_3 = e_sakana + p_3
    ("0.2", "E[sakana,0]"), ("0.1", "E[sakana,1]"), ("-0.4", "E[sakana,2]"), ("0.6", "E[sakana,3]"),
    ("-0.2", "W_pe[2,0]"), ("0.1", "W_pe[2,1]"), ("0.0", "W_pe[2,2]"), ("0.1", "W_pe[2,3]"),
    ("0.0", "H0[2,0]"), ("0.2", "H0[2,1]"), ("-0.4", "H0[2,2]"), ("0.7", "H0[2,3]"),
    # 2.2 ln_1
    ("0.125", "mu1[2]"), ("0.156875", "var1[2]"), ("0.39609", "sqrt(var1[2] + ln_eps)"),
    ("-0.3156", "LN1[2,0]"), ("0.1894", "LN1[2,1]"), ("-1.3255", "LN1[2,2]"),
    # 2.3 scores
    ("0.304", "S[0,0,0]"), ("-0.621", "S[0,1,0]"), ("0.087", "S[0,1,1]"), ("0.358", "S[0,2,0]"), ("-0.238", "S[0,2,2]"),
    ("-0.330", "S[1,0,0]"), ("0.230", "S[1,1,0]"), ("-0.290", "S[1,1,1]"), ("0.053", "S[1,2,0]"),
    ("-0.461", "S[1,2,1]"), ("0.468", "S[1,2,2]"),
    # 2.4 weights and percentages
    ("1", "A[0,0,0]"), ("0", "A[0,0,1]"), ("0", "A[0,0,2]"), ("0.330", "A[0,1,0]"), ("0.670", "A[0,1,1]"), ("0", "A[0,1,2]"),
    ("0.461", "A[0,2,0]"), ("0.286", "A[0,2,1]"), ("0.254", "A[0,2,2]"),
    ("1", "A[1,0,0]"), ("0", "A[1,0,1]"), ("0", "A[1,0,2]"), ("0.627", "A[1,1,0]"), ("0.373", "A[1,1,1]"), ("0", "A[1,1,2]"),
    ("0.321", "A[1,2,0]"), ("0.192", "A[1,2,1]"), ("0.486", "A[1,2,2]"),
    ("28.6%", "A[0,2,1]"), ("25.4%", "A[0,2,2]"), ("48.6%", "A[1,2,2]"),
    # 2.5 attention output, 2.6 MLP
    ("-0.1373", "Attn[2,0]"), ("-0.0937", "Attn[2,1]"), ("0.1107", "Attn[2,2]"), ("0.1736", "Attn[2,3]"),
    ("0.4368", "Z[2,2]"), ("0.2922", "R[2,2]"),
    ("0.0836", "F[2,0]"), ("0.2269", "F[2,1]"), ("-0.1003", "F[2,2]"), ("-0.0222", "F[2,3]"),
    # 2.7 ln_f, logits, softmax, loss
    ("-0.517", "h_final[0]"), ("0.320", "h_final[1]"), ("-1.245", "h_final[2]"), ("1.442", "h_final[3]"),
    ("0.5", "E[wo,0]"), ("0.3", "E[wo,1]"), ("-0.1", "E[wo,2]"), ("-0.2", "E[wo,3]"),
    ("-0.6974", "logits[neko]"), ("-0.5019", "logits[ga]"), ("1.2918", "logits[sakana]"), ("-0.3266", "logits[wo]"),
    ("0.0671", "p[neko]"), ("0.0816", "p[ga]"), ("0.4904", "p[sakana]"), ("0.0972", "p[wo]"), ("0.2638", "p[taberu]"),
    ("7.4214", "sum_exp"), ("2.3310", "loss"),
    # 3 gradient check
    ("2.33103740", "L(+h) W_Q[3,0]"), ("2.33096628", "L(-h) W_Q[3,0]"),
    ("2.33104855", "L(+h) E[wo,0]"), ("2.33095513", "L(-h) E[wo,0]"),
    ("0.2", "W_Q[3,0]"), ("0.3556275943", "grad_W_Q[3,0]"), ("0.3556275932", "gradcheck(W_Q[3,0], 1e-4)"),
    ("3.02e-9", RELS["W_Q[3,0]"]),
    ("0.2", "W_1[3,2]"), ("-0.4313591353", "grad_W_1[3,2]"), ("-0.4313591326", "gradcheck(W_1[3,2], 1e-4)"),
    ("6.38e-9", RELS["W_1[3,2]"]),
    ("0.5", "E[wo,0]"), ("0.4671066216", "grad_E[wo,0]"), ("0.4671066216", "gradcheck(E[wo,0], 1e-4)"),
    ("3.49e-11", RELS["E[wo,0]"]),
    # 4 SGD
    ("0.3556", "grad_W_Q[3,0]"), ("0.16444", "sgd[1].W_Q[3,0]"), ("-0.4314", "grad_W_1[3,2]"),
    ("0.4671", "grad_E[wo,0]"), ("0.45329", "sgd[1].E[wo,0]"),
    ("0.7897", "sgd[1].logits[wo]"), ("0.2950", "sgd[1].p[wo]"), ("1.2208", "sgd[1].loss"),
]


def main() -> int:
    q = compute()
    q.update({f"E[{v},{j}]": PARAMS0["E"][i][j] for i, v in enumerate(VOCAB) for j in range(D)})
    for printed, ref in DOC_FIGURES:                          # every unplanted figure is the correct rounding
        right = correct_rounding(q[ref], printed)
        assert norm(right) == norm(printed), (printed, ref, mp.nstr(q[ref], 15), right)
    print(f"{len(DOC_FIGURES)} unplanted figures of DOC.pdf are the correct roundings of their quantities")
    print("ja-pdf-nanogpt-gradcheck-sgd:")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        v = q[ref]
        if len(cells) == 7:                                   # planted: the key's columns must agree
            shown = cells[4].strip("`")
            right = correct_rounding(v, shown)
            exact_txt = cells[3].rstrip("…").replace("−", "-")
            exact = mp.mpf(exact_txt.replace("×10^", "e").replace(" ", ""))
            scale = 100 if shown.endswith("%") else 1
            digits = len(re.sub(r"[^0-9]", "", exact_txt.split("e")[0]).lstrip("0"))
            ok = (norm(shown) == norm(right) and abs(exact - v * scale) <= mp.mpf(10) ** (-digits + 2) * abs(v * scale)
                  and norm(right) != norm(printed))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = correct_rounding(v, printed)
            note = "correct" if norm(right) == norm(printed) else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>14}  {ref:<52} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
        assert not note.isupper(), r
    print(f"{len(rows)} key rows, all agree with the oracle")
    return 0


if __name__ == "__main__":
    main()
