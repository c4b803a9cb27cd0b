#!/usr/bin/env python3
"""Independent mpmath oracle (50 digits, no symgpt) for the tutorial DOC.pdf on SPEC.toml.

    python3 oracle.py

Model (read from SPEC.toml): two GPT-2 blocks, pre-LayerNorm (biased variance, eps = model.ln_eps),
one head, scores q·k/√d, causal softmax, attention output (Σ a v)·W_O + b_O, MLP with GELU in
tanh form (0.044715 exact), learned positions, biases everywhere, final LayerNorm (gamma_f,
beta_f), tied head (logits = h_final·Eᵀ), loss = −ln p[target] at the last position.
Gradients by a small reverse-mode autodiff on mpf scalars (exact to ~50 digits); SGD updates every
parameter except the LayerNorm gains and shifts (lr = training.lr, training.steps steps); the
gradient check moves one parameter by ±h and takes the centred difference.

Checks:
  * every model figure of the document (FIGURES below: line of `pdftotext -layout DOC.pdf -`,
    printed text, quantity) occurs on its line and is the correct rounding (half away from zero)
    of its exact value, except the 8 planted ones, which must differ from it;
  * every worked line printed with "=" closes on its own printed operands (CHAINS);
  * every row of KEY.md: exact value, correct rounding, printed text on the stated line.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath
from mpmath import mp, mpf

mp.dps = 50
HERE = Path(__file__).resolve().parent


# ----------------------------------------------------------------- reverse-mode scalars

class N:
    __slots__ = ("v", "ps", "g")

    def __init__(self, v, ps=()):
        self.v = v if isinstance(v, mpmath.mpf) else mpf(v)
        self.ps = ps
        self.g = mpf(0)

    def __add__(a, b):
        b = lift(b)
        return N(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = lift(b)
        return N(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return lift(b) - a

    def __mul__(a, b):
        b = lift(b)
        return N(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = lift(b)
        return N(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))


def lift(x):
    return x if isinstance(x, N) else N(mpf(x))


def nexp(a):
    e = mpmath.exp(a.v)
    return N(e, ((a, e),))


def nlog(a):
    return N(mpmath.log(a.v), ((a, 1 / a.v),))


def nsqrt(a):
    r = mpmath.sqrt(a.v)
    return N(r, ((a, 1 / (2 * r)),))


def ntanh(a):
    t = mpmath.tanh(a.v)
    return N(t, ((a, 1 - t * t),))


def nsum(xs):
    out = N(0)
    for x in xs:
        out = out + x
    return out


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for p, _ in n.ps:
            stack.append((p, False))
    out.g = mpf(1)
    for n in reversed(order):
        for p, w in n.ps:
            p.g += n.g * w


def vals(x):
    if isinstance(x, N):
        return x.v
    return [vals(y) for y in x]


# ----------------------------------------------------------------- the model

SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
EPS = mpf(str(SPEC["model"]["ln_eps"]))
D = SPEC["model"]["d"]
IDS = [VOCAB.index(t) for t in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
TRAINED = {"W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"}


def exact(x):
    return [exact(y) for y in x] if isinstance(x, list) else mpf(str(x))


def initial_params():
    w = SPEC["weights"]
    P = {k: exact(w[k]) for k in ("E", "W_pe", "gamma_f", "beta_f")}
    for l, layer in enumerate(SPEC["layer"]):
        for k, v in layer.items():
            P[f"l{l}.{k}"] = exact(v)
    return P


def trainable(P):
    return ["E", "W_pe"] + [k for k in P if "." in k and k.split(".", 1)[1] in TRAINED]


def forward(P):
    """Loss node, a record of every intermediate (nodes) and the parameter nodes."""
    PN = {k: [[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v] for k, v in P.items()}
    R = {}
    T = len(IDS)

    def ln(x, g, b):
        mu = nsum(x) * (1 / mpf(len(x)))
        var = nsum([(xi - mu) * (xi - mu) for xi in x]) * (1 / mpf(len(x)))
        sd = nsqrt(var + EPS)
        return mu, var, sd, [g[j] * ((x[j] - mu) / sd) + b[j] for j in range(len(x))]

    def lin(x, W, b):
        return [nsum([x[i] * W[i][j] for i in range(len(x))]) + b[j] for j in range(len(W[0]))]

    def gelu(x):
        c = mpmath.sqrt(2 / mpmath.pi)
        return 0.5 * x * (1 + ntanh(c * (x + mpf("0.044715") * x * x * x)))

    h = [[PN["E"][IDS[t]][j] + PN["W_pe"][t][j] for j in range(D)] for t in range(T)]
    R["H0"] = h
    for l in range(len(SPEC["layer"])):
        p = lambda k: PN[f"l{l}.{k}"]
        ln1 = [ln(h[t], p("gamma1"), p("beta1")) for t in range(T)]
        u = [x[3] for x in ln1]
        q = [lin(u[t], p("W_Q"), p("b_Q")) for t in range(T)]
        k = [lin(u[t], p("W_K"), p("b_K")) for t in range(T)]
        v = [lin(u[t], p("W_V"), p("b_V")) for t in range(T)]
        S = [[nsum([q[t][j] * k[s][j] for j in range(D)]) * (1 / mpmath.sqrt(D)) for s in range(t + 1)] for t in range(T)]
        ex = [[nexp(x) for x in row] for row in S]
        den = [nsum(row) for row in ex]
        A = [[ex[t][s] / den[t] for s in range(t + 1)] for t in range(T)]
        o = [[nsum([A[t][s] * v[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
        c = [lin(o[t], p("W_O"), p("b_O")) for t in range(T)]
        h1 = [[h[t][j] + c[t][j] for j in range(D)] for t in range(T)]
        ln2 = [ln(h1[t], p("gamma2"), p("beta2")) for t in range(T)]
        w = [x[3] for x in ln2]
        m = [lin(w[t], p("W_1"), p("b_1")) for t in range(T)]
        mh = [[gelu(x) for x in row] for row in m]
        f = [lin(mh[t], p("W_2"), p("b_2")) for t in range(T)]
        h2 = [[h1[t][j] + f[t][j] for j in range(D)] for t in range(T)]
        pre = f"l{l}."
        R.update({pre + "mu1": [x[0] for x in ln1], pre + "var1": [x[1] for x in ln1], pre + "LN1": u,
                  pre + "Q": q, pre + "K": k, pre + "V": v, pre + "S": S, pre + "A_den": den, pre + "A": A,
                  pre + "Attn_heads": o, pre + "Attn": c, pre + "H1": h1, pre + "mu2": [x[0] for x in ln2],
                  pre + "var2": [x[1] for x in ln2], pre + "LN2": w, pre + "Z": m, pre + "R": mh, pre + "F": f,
                  pre + "H2": h2})
        h = h2
    muf, varf, _, hf = ln(h[T - 1], PN["gamma_f"], PN["beta_f"])
    z = [nsum([hf[j] * PN["E"][vv][j] for j in range(D)]) for vv in range(len(VOCAB))]
    ez = [nexp(x) for x in z]
    se = nsum(ez)
    pi = [e / se for e in ez]
    loss = nlog(se) - z[TGT]
    R.update({"mu_f": muf, "var_f": varf, "h_final": hf, "logits": z, "sum_exp": se, "p": pi, "loss": loss})
    return loss, R, PN


def state(P):
    """Values of every recorded quantity and the gradient of every parameter."""
    loss, R, PN = forward(P)
    backward(loss)
    G = {k: [[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v] for k, v in PN.items()}
    return {k: vals(v) for k, v in R.items()}, G


def copy(P):
    return {k: [r[:] for r in v] if isinstance(v[0], list) else v[:] for k, v in P.items()}


def sgd_step(P, G, lr):
    Q = copy(P)
    for k in trainable(P):
        if isinstance(P[k][0], list):
            Q[k] = [[P[k][i][j] - lr * G[k][i][j] for j in range(len(P[k][0]))] for i in range(len(P[k]))]
        else:
            Q[k] = [P[k][i] - lr * G[k][i] for i in range(len(P[k]))]
    return Q


def moved(P, name, idx, delta):
    Q = copy(P)
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


# ----------------------------------------------------------------- every quantity the document prints

def quantities():
    P0 = initial_params()
    lr = mpf(str(SPEC["training"]["lr"]))
    states, params, grads = [], [P0], []
    for k in range(SPEC["training"]["steps"] + 1):
        R, G = state(params[-1])
        states.append(R)
        grads.append(G)
        if k < SPEC["training"]["steps"]:
            params.append(sgd_step(params[-1], G, lr))
    R, G = states[0], grads[0]
    Q = {}

    def put(prefix, name, x, idx=()):
        if isinstance(x, list):
            for i, y in enumerate(x):
                put(prefix, name, y, idx + (i,))
        else:
            Q[f"{prefix}{name}[{','.join(map(str, idx))}]" if idx else f"{prefix}{name}"] = x

    for name, x in R.items():
        put("", name, x)
    for name, x in G.items():
        put("", "grad_" + name, x)
    for k in range(1, len(states)):
        for name, x in states[k].items():
            put(f"sgd[{k}].", name, x)
        for name, x in params[k].items():
            put(f"sgd[{k}].", name, x)
        for name, x in grads[k].items():
            put(f"sgd[{k}].grad_", name, x)
    for v in range(len(VOCAB)):
        Q[f"grad_logits[{v}]"] = Q[f"p[{v}]"] - (1 if v == TGT else 0)
    # token names as the document (and the key) use them
    for key in list(Q):
        m = re.match(r"^(.*\b(?:p|logits|E|grad_E|grad_logits))\[(\d)(.*)$", key)
        if m:
            Q[f"{m.group(1)}[{VOCAB[int(m.group(2))]}{m.group(3)}"] = Q[key]
    # derived expressions printed in the document
    c = mpmath.sqrt(2 / mpmath.pi)
    for l in (0, 1):
        for t in (0, 1):
            Q[f"sqrt(l{l}.var1[{t}] + ln_eps)"] = mpmath.sqrt(Q[f"l{l}.var1[{t}]"] + EPS)
            Q[f"sqrt(l{l}.var2[{t}] + ln_eps)"] = mpmath.sqrt(Q[f"l{l}.var2[{t}]"] + EPS)
        for t in (0, 1):
            for s in range(t + 1):
                Q[f"exp(l{l}.S[{t},{s}])"] = mpmath.exp(Q[f"l{l}.S[{t},{s}]"])
    Q["sqrt(var_f + ln_eps)"] = mpmath.sqrt(Q["var_f"] + EPS)
    for j in range(D):
        Q[f"(h_final[{j}] - beta_f[{j}]) / gamma_f[{j}]"] = (Q[f"h_final[{j}]"] - P0["beta_f"][j]) / P0["gamma_f"][j]
    for l, kk in ((0, 1), (1, 0)):
        z = Q[f"l{l}.Z[1,{kk}]"]
        arg = c * (z + mpf("0.044715") * z ** 3)
        Q[f"l{l}.Z[1,{kk}]^3"] = z ** 3
        Q[f"l{l}.Z[1,{kk}]/2"] = z / 2
        Q[f"sqrt(2/pi())*(l{l}.Z[1,{kk}] + 0.044715*l{l}.Z[1,{kk}]^3)"] = arg
        Q[f"tanh(sqrt(2/pi())*(l{l}.Z[1,{kk}] + 0.044715*l{l}.Z[1,{kk}]^3))"] = mpmath.tanh(arg)
        Q[f"1 + tanh(sqrt(2/pi())*(l{l}.Z[1,{kk}] + 0.044715*l{l}.Z[1,{kk}]^3))"] = 1 + mpmath.tanh(arg)
    for v in range(len(VOCAB)):
        Q[f"exp(logits[{VOCAB[v]}])"] = mpmath.exp(Q[f"logits[{v}]"])
    Q["sum(p[:])"] = mpmath.fsum(Q[f"p[{v}]"] for v in range(len(VOCAB)))
    Q["-logits[dorme]"] = -Q["logits[dorme]"]
    Q["log(sum_exp)"] = mpmath.log(Q["sum_exp"])
    Q["loss - sgd[1].loss"] = Q["loss"] - Q["sgd[1].loss"]
    Q["sgd[1].loss - sgd[2].loss"] = Q["sgd[1].loss"] - Q["sgd[2].loss"]
    Q["params()"] = mpf(sum(len(P0[k]) * (len(P0[k][0]) if isinstance(P0[k][0], list) else 1) for k in trainable(P0)))
    # the gradient check
    gc = SPEC["training"]["gradcheck"]
    h = mpf(str(gc["h"]))
    hs = "0.0001"
    assert mpf(hs) == h
    for name in gc["params"]:
        m = re.match(r"^(.*)\[(\d+),(\d+)\]$", name)
        pname, idx = m.group(1), (int(m.group(2)), int(m.group(3)))
        tokname = f"{pname}[{VOCAB[idx[0]]},{idx[1]}]" if pname == "E" else name
        lp = state(moved(P0, pname, idx, h))[0]["loss"]
        lm = state(moved(P0, pname, idx, -h))[0]["loss"]
        g = G[pname][idx[0]][idx[1]]
        fd = (lp - lm) / (2 * h)
        Q[f"loss_at({tokname}, {hs})"] = lp
        Q[f"loss_at({tokname}, -{hs})"] = lm
        Q[f"loss_at({tokname}, {hs}) - loss_at({tokname}, -{hs})"] = lp - lm
        Q[f"gradcheck({tokname}, {hs})"] = fd
        Q[f"grad_{tokname}"] = g
        Q[f"abs(gradcheck({tokname}, {hs}) - grad_{tokname}) / max(abs(gradcheck({tokname}, {hs})), "
          f"abs(grad_{tokname}))"] = abs(fd - g) / max(abs(fd), abs(g))
    return Q


REL = {t: ("abs(gradcheck({p}, 0.0001) - grad_{p}) / max(abs(gradcheck({p}, 0.0001)), abs(grad_{p}))"
           .replace("{p}", t)) for t in ("E[dorme,0]", "l0.W_V[1,0]")}
GELU1 = "sqrt(2/pi())*(l0.Z[1,1] + 0.044715*l0.Z[1,1]^3)"
GELU2 = "sqrt(2/pi())*(l1.Z[1,0] + 0.044715*l1.Z[1,0]^3)"

# (line of pdftotext -layout DOC.pdf -, printed text, quantity, planted?)
FIGURES = [
    (35, "106", "params()", False),
    (54, "(0,4;", "H0[0,0]", False), (54, "−0,3)", "H0[0,1]", False),
    (54, "(−0,3;", "H0[1,0]", False), (54, "0,7)", "H0[1,1]", False),
    (86, "0,05", "l0.mu1[0]", False), (86, "0,1225", "l0.var1[0]", False),
    (88, "0,3640", "sqrt(l0.var1[0] + ln_eps)", False), (88, "0,9615", "l0.LN1[0,0]", False),
    (88, "−0,9615", "l0.LN1[0,1]", False), (88, "0,2", "l0.mu1[1]", False), (88, "0,25", "l0.var1[1]", False),
    (89, "0,5099", "sqrt(l0.var1[1] + ln_eps)", False), (89, "−0,9806", "l0.LN1[1,0]", False),
    (89, "0,9806", "l0.LN1[1,1]", False),
    (94, "−0,2942", "l0.Q[1,0]", True),
    (95, "0,6864", "l0.Q[1,1]", False),
    (100, "0,3885", "l0.Q[0,0]", False), (100, "−0,6731", "l0.Q[0,1]", False), (100, "0,6731", "l0.K[0,0]", False),
    (100, "0,4846", "l0.K[0,1]", False), (100, "0,6269", "l0.V[0,0]", False), (100, "−0,7731", "l0.V[0,1]", False),
    (101, "−0,1942", "l0.Q[1,0]", False), (101, "0,6864", "l0.Q[1,1]", False), (101, "−0,6864", "l0.K[1,0]", False),
    (101, "−0,2922", "l0.K[1,1]", False), (101, "−0,5383", "l0.V[1,0]", False), (101, "0,5864", "l0.V[1,1]", False),
    (104, "−0,0458", "l0.S[0,0]", False),
    (105, "−0,1942", "l0.Q[1,0]", False), (105, "0,6731", "l0.K[0,0]", False), (105, "0,4846", "l0.K[0,1]", False),
    (106, "0,1428", "l0.S[1,0]", False),
    (108, "−0,6864", "l0.K[1,0]", False), (108, "−0,2922", "l0.K[1,1]", False),
    (109, "−0,0476", "l0.S[1,1]", False),
    (111, "1,1535", "exp(l0.S[1,0])", False),
    (113, "0,5475", "l0.A[1,0]", False), (113, "0,4525", "l0.A[1,1]", False),
    (114, "0,9535", "exp(l0.S[1,1])", False), (114, "2,1070", "l0.A_den[1]", False),
    (118, "0,5475", "l0.A[1,0]", False), (118, "0,6269", "l0.V[0,0]", False), (118, "−0,5383", "l0.V[1,0]", False),
    (118, "0,0996", "l0.Attn_heads[1,0]", False),
    (119, "−0,7731", "l0.V[0,1]", False), (119, "0,5864", "l0.V[1,1]", False),
    (119, "−0,1579", "l0.Attn_heads[1,1]", True),
    (121, "0,1071", "l0.Attn[1,0]", False), (121, "−0,0663", "l0.Attn[1,1]", False),
    (121, "−0,1929", "l0.H1[1,0]", False), (121, "0,6337", "l0.H1[1,1]", False),
    (123, "0,6081", "l0.Attn[0,0]", False), (123, "−0,5058", "l0.Attn[0,1]", False),
    (123, "1,0081", "l0.H1[0,0]", False), (123, "−0,8058", "l0.H1[0,1]", False),
    (127, "0,2204", "l0.mu2[1]", False), (127, "0,1708", "l0.var2[1]", False),
    (127, "0,4252", "sqrt(l0.var2[1] + ln_eps)", False),
    (128, "−0,9720", "l0.LN2[1,0]", False), (128, "0,9720", "l0.LN2[1,1]", False),
    (130, "−0,1916", "l0.Z[1,0]", False), (130, "0,6776", "l0.Z[1,1]", False), (130, "−0,7776", "l0.Z[1,2]", False),
    (130, "0,1028", "l0.Z[1,3]", False),
    (132, "−0,0812", "l0.R[1,0]", False), (132, "0,5088", "l0.R[1,1]", False), (132, "0,1699", "l0.R[1,2]", True),
    (132, "0,0556", "l0.R[1,3]", False),
    (136, "0,6776", "l0.Z[1,1]", False), (136, "0,3111", "l0.Z[1,1]^3", False), (136, "0,5517", GELU1, False),
    (136, "0,3388", "l0.Z[1,1]/2", False), (136, "0,5018", "tanh(" + GELU1 + ")", False),
    (136, "0,5088", "l0.R[1,1]", False),
    (138, "(−0,0812)", "l0.R[1,0]", False), (138, "(0,5088)", "l0.R[1,1]", False), (138, "(−0,1699)", "l0.R[1,2]", False),
    (138, "(0,0556)", "l0.R[1,3]", False), (138, "0,2679", "l0.F[1,0]", False),
    (140, "0,1280", "l0.F[1,1]", False), (140, "0,0750", "l0.H2[1,0]", False), (140, "0,7616", "l0.H2[1,1]", False),
    (142, "0,8588", "l0.H2[0,0]", False), (142, "−0,9412", "l0.H2[0,1]", False),
    (151, "−0,0412", "l1.mu1[0]", False), (151, "0,8100", "l1.var1[0]", False),
    (151, "0,9055", "sqrt(l1.var1[0] + ln_eps)", False), (151, "(0,9939;", "l1.LN1[0,0]", False),
    (151, "−0,9939)", "l1.LN1[0,1]", False),
    (152, "0,4183", "l1.mu1[1]", False), (152, "0,1179", "l1.var1[1]", False),
    (152, "0,3576", "sqrt(l1.var1[1] + ln_eps)", False), (152, "(−0,9601;", "l1.LN1[1,0]", False),
    (152, "0,9601)", "l1.LN1[1,1]", False),
    (157, "−0,5963", "l1.Q[0,0]", False), (157, "0,5969", "l1.Q[0,1]", False), (157, "0,2988", "l1.K[0,0]", False),
    (157, "−0,7951", "l1.K[0,1]", False), (157, "0,7951", "l1.V[0,0]", False), (157, "0,1494", "l1.V[0,1]", False),
    (158, "0,5969", "l1.Q[1,0]", True), (158, "−0,3801", "l1.Q[1,1]", False), (158, "−0,0920", "l1.K[1,0]", False),
    (158, "0,7681", "l1.K[1,1]", False), (158, "−0,7681", "l1.V[1,0]", False), (158, "−0,0460", "l1.V[1,1]", False),
    (161, "(0,5761)", "l1.Q[1,0]", False), (161, "(0,2988)", "l1.K[0,0]", False), (161, "(−0,3801)", "l1.Q[1,1]", False),
    (161, "(−0,7951)", "l1.K[0,1]", False), (162, "0,3354", "l1.S[1,0]", False),
    (164, "(0,5761)", "l1.Q[1,0]", False), (164, "(−0,0920)", "l1.K[1,0]", False), (164, "(0,7681)", "l1.K[1,1]", False),
    (165, "−0,2439", "l1.S[1,1]", False),
    (167, "1,3985", "exp(l1.S[1,0])", False), (167, "2,1820", "l1.A_den[1]", False), (167, "0,6409", "l1.A[1,0]", False),
    (167, "0,3591", "l1.A[1,1]", False),
    (168, "64,1 %", "l1.A[1,0]", False), (168, "3,59 %", "l1.A[1,1]", True),
    (169, "0,6409", "l1.A[1,0]", False), (169, "0,3591", "l1.A[1,1]", False),
    (169, "(0,2338;", "l1.Attn_heads[1,0]", False), (169, "0,0792)", "l1.Attn_heads[1,1]", False),
    (171, "(0,1827;", "l1.Attn[1,0]", False), (171, "−0,0460)", "l1.Attn[1,1]", False),
    (171, "(0,2577;", "l1.H1[1,0]", False), (171, "0,7157)", "l1.H1[1,1]", False),
    (172, "0,4867", "l1.mu2[1]", False),
    (173, "0,1049", "l1.var2[1]", True),
    (175, "0,2499", "sqrt(l1.var2[1] + ln_eps)", False), (175, "(−0,9164;", "l1.LN2[1,0]", False),
    (175, "0,9164)", "l1.LN2[1,1]", False),
    (177, "0,8248", "l1.Z[1,0]", False), (177, "−0,2666", "l1.Z[1,1]", False), (177, "−0,4666", "l1.Z[1,2]", False),
    (177, "0,5082", "l1.Z[1,3]", False), (177, "0,6558", "l1.R[1,0]", False), (177, "−0,1053", "l1.R[1,1]", False),
    (177, "−0,1495", "l1.R[1,2]", False), (177, "0,3529", "l1.R[1,3]", False),
    (178, "(−0,9164)", "l1.LN2[1,0]", False), (178, "(0,9164)", "l1.LN2[1,1]", False), (178, "0,8248", "l1.Z[1,0]", False),
    (178, "0,4124", "l1.Z[1,0]/2", False),
    (179, "0,6781", GELU2, False), (179, "0,4124", "l1.Z[1,0]/2", False),
    (179, "1,5903", "1 + tanh(" + GELU2 + ")", False), (179, "0,6558", "l1.R[1,0]", False),
    (179, "(0,2142;", "l1.F[1,0]", False), (179, "0,4925)", "l1.F[1,1]", False),
    (181, "(0,4719;", "l1.H2[1,0]", False), (181, "1,2082)", "l1.H2[1,1]", False),
    (187, "0,8401", "mu_f", False), (187, "0,1355", "var_f", False), (187, "0,3815", "sqrt(var_f + ln_eps)", False),
    (188, "(−0,9650;", "(h_final[0] - beta_f[0]) / gamma_f[0]", False),
    (188, "0,9650)", "(h_final[1] - beta_f[1]) / gamma_f[1]", False),
    (190, "(−0,9650)", "(h_final[0] - beta_f[0]) / gamma_f[0]", False),
    (190, "0,9650", "(h_final[1] - beta_f[1]) / gamma_f[1]", False),
    (190, "(−1,0615;", "h_final[0]", False), (190, "0,9685)", "h_final[1]", False),
    (194, "(−1,0615)", "h_final[0]", False), (194, "(0,9685)", "h_final[1]", False),
    (194, "−0,4339", "logits[dorme]", False),
]
for line, tok in zip(range(197, 202), ("il", "gatto", "dorme", "sul", "divano")):
    pass  # filled below from the computed values (the table of logits)
FIGURES += [
    (202, "5,4748", "sum_exp", False), (202, "1,0000", "sum(p[:])", False),
    (206, "5,4748", "sum_exp", False), (206, "0,4339", "-logits[dorme]", False),
    (206, "1,7002", "log(sum_exp)", False), (206, "2,1341", "loss", False),
    (209, "11,8 %", "p[dorme]", False),
    (212, "(0,1094;", "grad_logits[il]", False), (212, "0,2992;", "grad_logits[gatto]", False),
    (212, "−0,8816;", "grad_logits[dorme]", False), (212, "0,2089;", "grad_logits[sul]", False),
    (212, "0,2641)", "grad_logits[divano]", False),
    (226, "(0,1184", "p[dorme]", False), (226, "(−1,0615)", "h_final[0]", False),
    (226, "0,9359", "grad_E[dorme,0]", False),
    (233, "2,13416122", "loss_at(E[dorme,0], 0.0001)", False),
    (233, "2,13397440", "loss_at(E[dorme,0], -0.0001)", True),
    (233, "0,9358989371", "gradcheck(E[dorme,0], 0.0001)", False),
    (233, "0,9358989373", "grad_E[dorme,0]", False),
    (233, "1,7 · 10−10", REL["E[dorme,0]"], False),
    (234, "2,13406788", "loss_at(l0.W_V[1,0], 0.0001)", False),
    (234, "2,13406738", "loss_at(l0.W_V[1,0], -0.0001)", False),
    (234, "0,0024878109", "gradcheck(l0.W_V[1,0], 0.0001)", False),
    (234, "0,0024878109", "grad_l0.W_V[1,0]", False),
    (234, "1,0 · 10−10", REL["l0.W_V[1,0]"], False),
    (238, "2,13416122", "loss_at(E[dorme,0], 0.0001)", False),
    (238, "2,13397404", "loss_at(E[dorme,0], -0.0001)", False),
    (238, "2,13406788", "loss_at(l0.W_V[1,0], 0.0001)", False),
    (238, "2,13406738", "loss_at(l0.W_V[1,0], -0.0001)", False),
    (238, "0,00018718", "loss_at(E[dorme,0], 0.0001) - loss_at(E[dorme,0], -0.0001)", False),
    (239, "0,9359", "gradcheck(E[dorme,0], 0.0001)", False),
    (239, "0,0025", "gradcheck(l0.W_V[1,0], 0.0001)", False),
    (249, "(0,9359;", "grad_E[dorme,0]", False), (249, "−0,8539)", "grad_E[dorme,1]", False),
    (251, "0,9359", "grad_E[dorme,0]", False), (251, "0,4532", "sgd[1].E[dorme,0]", False),
    (252, "(−0,8539)", "grad_E[dorme,1]", False), (252, "0,0573", "sgd[1].E[dorme,1]", True),
    (254, "0,0024878", "grad_l0.W_V[1,0]", False), (254, "0,099876", "sgd[1].l0.W_V[1,0]", False),
    (256, "(−0,054968)", "grad_l1.b_2[0]", False), (256, "−0,0473", "sgd[1].l1.b_2[0]", False),
    (259, "(0,3060;", "sgd[1].E[il,0]", False), (259, "−0,2055)", "sgd[1].E[il,1]", False),
    (259, "(−0,0812;", "sgd[1].E[gatto,0]", False), (259, "0,3826)", "sgd[1].E[gatto,1]", False),
    (260, "(−1,0507;", "sgd[1].h_final[0]", False), (260, "0,9596)", "sgd[1].h_final[1]", False),
    (260, "−0,3392", "sgd[1].logits[dorme]", False), (260, "0,1319", "sgd[1].p[dorme]", False),
    (260, "2,0257", "sgd[1].loss", False),
    (261, "0,9121", "sgd[1].grad_E[dorme,0]", False),
    (263, "0,4532", "sgd[1].E[dorme,0]", False), (263, "0,9121", "sgd[1].grad_E[dorme,0]", False),
    (263, "0,4076", "sgd[2].E[dorme,0]", False),
    (265, "0,1465", "sgd[2].p[dorme]", False), (265, "1,9205", "sgd[2].loss", False),
    (268, "−0,4339", "logits[dorme]", False), (268, "0,1184", "p[dorme]", False), (268, "2,1341", "loss", False),
    (269, "−0,3392", "sgd[1].logits[dorme]", False), (269, "0,1319", "sgd[1].p[dorme]", False),
    (269, "2,0257", "sgd[1].loss", False),
    (270, "−0,2465", "sgd[2].logits[dorme]", False), (270, "0,1465", "sgd[2].p[dorme]", False),
    (270, "1,9205", "sgd[2].loss", False),
    (272, "0,1084", "loss - sgd[1].loss", False), (272, "0,1052", "sgd[1].loss - sgd[2].loss", False),
    (273, "11,8 %", "p[dorme]", False), (273, "14,7 %", "sgd[2].p[dorme]", False),
]

# worked lines printed with "=": (line, operands combined as printed, printed result, relation)
F = lambda s: mpf(s.replace(",", ".").replace("−", "-"))
SQ2 = mpmath.sqrt(2)
CHAINS = [
    (86, lambda: (F("0,35") ** 2 + F("0,35") ** 2) / 2, "0,1225", "="),
    (88, lambda: mpmath.sqrt(F("0,1225") + F("0,01")), "0,3640", "="),
    (88, lambda: mpmath.sqrt(F("0,26")), "0,5099", "="),
    (94, lambda: F("−0,9806") * F("0,5") + F("0,9806") * F("0,2"), "−0,2942", "="),
    (95, lambda: F("−0,9806") * F("−0,3") + F("0,9806") * F("0,4") + 0, "0,6864", "="),
    (106, lambda: (F("−0,1942") * F("0,6731") + F("0,6864") * F("0,4846")) / SQ2, "0,1428", "="),
    (109, lambda: (F("−0,1942") * F("−0,6864") + F("0,6864") * F("−0,2922")) / SQ2, "−0,0476", "="),
    (113, lambda: mpmath.exp(F("0,1428")) / (mpmath.exp(F("0,1428")) + mpmath.exp(F("−0,0476"))), "0,5475", "="),
    (113, lambda: F("1,1535") / (F("1,1535") + F("0,9535")), "0,5475", "="),
    (114, lambda: F("1,1535") + F("0,9535"), "2,1070", "="),
    (113, lambda: F("1,1535") / F("2,1070"), "0,5475", "="),
    (118, lambda: F("0,5475") * F("0,6269") + F("0,4525") * F("−0,5383"), "0,0996", "="),
    (119, lambda: F("0,5475") * F("−0,7731") + F("0,4525") * F("0,5864"), "−0,1579", "="),
    (136, lambda: mpmath.sqrt(2 / mpmath.pi) * (F("0,6776") + F("0,044715") * F("0,3111")), "0,5517", "="),
    (136, lambda: F("0,3388") * (1 + F("0,5018")), "0,5088", "="),
    (138, lambda: (F("−0,0812") * F("0,3") + F("0,5088") * F("0,2") + F("−0,1699") * F("−0,5")
                   + F("0,0556") * F("0,1") + F("0,1")), "0,2679", "="),
    (162, lambda: (F("0,5761") * F("0,2988") + F("−0,3801") * F("−0,7951")) / SQ2, "0,3354", "="),
    (165, lambda: (F("0,5761") * F("−0,0920") + F("−0,3801") * F("0,7681")) / SQ2, "−0,2439", "="),
    (167, lambda: F("1,3985") / F("2,1820"), "0,6409", "="),
    (169, lambda: F("0,6409") * F("0,7951") + F("0,3591") * F("−0,7681"), "0,2338", "="),
    (169, lambda: F("0,6409") * F("0,1494") + F("0,3591") * F("−0,0460"), "0,0792", "="),
    (178, lambda: F("−0,9164") * F("−0,3") + F("0,9164") * F("0,6") + 0, "0,8248", "="),
    (179, lambda: F("0,4124") * (1 + mpmath.tanh(F("0,6781"))), "0,6558", "="),
    (179, lambda: F("0,4124") * F("1,5903"), "0,6558", "="),
    (179, lambda: 1 + mpmath.tanh(F("0,6781")), "1,5903", "="),
    (190, lambda: F("1,1") * F("−0,9650") + 0, "−1,0615", "="),
    (190, lambda: F("0,9") * F("0,9650") + F("0,1"), "0,9685", "="),
    (194, lambda: F("−1,0615") * F("0,5") + F("0,9685") * F("0,1"), "−0,4339", "="),
    (202, lambda: F("0,5992") + F("1,6381") + F("0,6480") + F("1,1435") + F("1,4460"), "5,4748", "="),
    (206, lambda: mpmath.log(F("5,4748")) + F("0,4339"), "2,1341", "="),
    (206, lambda: mpmath.log(F("5,4748")), "1,7002", "="),
    (206, lambda: F("1,7002") + F("0,4339"), "2,1341", "="),
    (226, lambda: (F("0,1184") - 1) * F("−1,0615"), "0,9359", "≈"),
    (239, lambda: F("2,13416122") - F("2,13397404"), "0,00018718", "="),
    (239, lambda: (F("2,13416122") - F("2,13397404")) / F("0,0002"), "0,9359", "="),
    (239, lambda: F("0,00018718") / F("0,0002"), "0,9359", "="),
    (239, lambda: (F("2,13406788") - F("2,13406738")) / F("0,0002"), "0,0025", "="),
    (251, lambda: F("0,5") - F("0,05") * F("0,9359"), "0,4532", "="),
    (252, lambda: F("0,1") + F("0,05") * F("−0,8539"), "0,0573", "="),
    (254, lambda: F("0,1") - F("0,05") * F("0,0024878"), "0,099876", "="),
    (256, lambda: F("−0,05") - F("0,05") * F("−0,054968"), "−0,0473", "="),
    (263, lambda: F("0,4532") - F("0,05") * F("0,9121"), "0,4076", "="),
    (272, lambda: F("2,1341") - F("2,0257"), "0,1084", "="),
    (272, lambda: F("2,0257") - F("1,9205"), "0,1052", "="),
]


# ----------------------------------------------------------------- rounding and reading figures

def rnd(v, n: int) -> str:
    d = Decimal(mpmath.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse(printed: str):
    """(kind, places, mantissa text) of a printed figure in the document's notation."""
    s = printed.strip("();").replace("−", "-").replace(",", ".")
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?) · 10(-?\d+)", s)
    if m:
        mant = m.group(1)
        return "sci", int(m.group(2)), mant
    if s.endswith(" %"):
        return "pct", None, s[:-2]
    return "dec", None, s


def correct_text(printed: str, v) -> str:
    """The correct rounding of v in the same form (and places) as `printed`, in the document's notation."""
    kind, exp10, num = parse(printed)
    places = len(num.split(".")[1]) if "." in num else 0
    if kind == "sci":
        out = rnd(v / mpf(10) ** exp10, places) + f" · 10{exp10}"
    elif kind == "pct":
        out = rnd(v * 100, places) + " %"
    else:
        out = rnd(v, places)
    return out.replace("-", "−").replace(".", ",")


def bare(printed: str) -> str:
    return printed.strip("();")


def doc_lines():
    pdf = HERE / "DOC.pdf"
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, check=True,
                          text=True).stdout
    return text.split("\n")


def main() -> int:
    Q = quantities()
    lines = doc_lines()
    bad = 0
    print(f"DOC.pdf: {len(lines)} lines of pdftotext -layout")

    # 1. every figure of the document
    planted = 0
    for line, printed, ref, is_planted in FIGURES:
        if printed not in lines[line - 1]:
            print(f"  line {line}: {printed!r} not found in {lines[line - 1]!r}")
            bad += 1
            continue
        right = correct_text(bare(printed), Q[ref])
        if is_planted:
            planted += 1
            if right == bare(printed):
                print(f"  line {line}: planted {printed} equals the correct rounding of {ref}")
                bad += 1
        elif right != bare(printed):
            print(f"  line {line}: {printed} is not the correct rounding of {ref} ({mpmath.nstr(Q[ref], 15)} -> {right})")
            bad += 1
    # the table of logits, exponentials and probabilities
    for line, tok in zip(range(197, 202), VOCAB):
        want = [correct_text("0,0000", Q[f"logits[{tok}]"]), correct_text("0,0000", Q[f"exp(logits[{tok}])"]),
                correct_text("0,0000", Q[f"p[{tok}]"])]
        if lines[line - 1].split() != [tok] + want:
            print(f"  line {line}: table row {lines[line - 1].split()} != {[tok] + want}")
            bad += 1
    print(f"figures: {len(FIGURES) + 15} checked, {planted} planted")

    # 2. worked lines
    for line, fn, printed, rel in CHAINS:
        if printed not in lines[line - 1] and printed not in lines[line - 2] and printed not in lines[line]:
            print(f"  chain near line {line}: result {printed} not found")
            bad += 1
        got = correct_text(printed, fn())
        if rel == "=" and got != printed:
            print(f"  chain near line {line}: printed operands give {got}, printed {printed}")
            bad += 1
        if rel == "≈" and abs(F(got) - F(printed)) > mpf("1.000001e-4"):
            print(f"  chain near line {line}: ≈ too far ({got} vs {printed})")
            bad += 1
    print(f"worked lines: {len(CHAINS)} checked")

    # 3. the key
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in Q), None)
        if ref is None:
            print(f"  KEY {printed}: no oracle value for {cells[-1]}")
            bad += 1
            continue
        v = Q[ref]
        on_line = printed in lines[line - 1]
        right = correct_text(printed, v)
        if len(cells) == 7:
            n_planted += 1
            key_right = cells[4].strip("`")
            key_exact = mpf(cells[3].rstrip("…").replace("−", "-"))
            shown = v * 100 if printed.endswith("%") else v     # a percentage's exact value is v × 100
            ok = (on_line and key_right == right and right != printed
                  and abs(key_exact - shown) <= mpf("1e-10") * abs(shown))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            ok = on_line and right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>14}  line {line:>3}  {ref[:44]:<44} {mpmath.nstr(v, 15):<22} -> {right:<14} {note}")
    if (n_planted, n_correct) != (8, 10):
        print(f"  KEY has {n_planted} planted and {n_correct} correct rows (want 8 and 10)")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} checks failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
