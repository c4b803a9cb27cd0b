"""Layers: each adds named nodes to a graph and returns their symbols.

Shapes are nested lists of SymPy symbols: a matrix is ``rows[i][j]``.
Axis letters name what an index means: ``t``/``s`` positions, ``j`` model
dimension, ``k`` FFN unit, ``v`` token (so ``p[你]`` works), ``h`` head.

>>> from symgpt.graph import Graph
>>> g = Graph()
>>> PE = positional(g, 2, 2, sympy.Integer(10000))
>>> g.definition("PE[1,0]"), g.definition("PE[0,1]")
(sin(1), 1)
"""
from __future__ import annotations

import sympy

from .graph import Graph, ReLU


def _name(group, idx):
    return f"{group}[{','.join(map(str, idx))}]" if idx else group


def tensor(g: Graph, group, shape, meaning, axes, fn):
    """Define ``group[idx] = fn(idx)`` over the shape; nested list of symbols."""
    g.group(group, shape, meaning, axes)
    if len(shape) == 0:
        return g.define(group, group, (), fn(()))
    if len(shape) == 1:
        return [g.define(_name(group, (i,)), group, (i,), fn((i,))) for i in range(shape[0])]
    return [[g.define(_name(group, (i, j)), group, (i, j), fn((i, j))) for j in range(shape[1])]
            for i in range(shape[0])]


def param(g: Graph, group, values, meaning, axes):
    """Leaves holding exact values (a vector or a matrix)."""
    if values and isinstance(values[0], list):
        shape = (len(values), len(values[0]))
        g.group(group, shape, meaning, axes)
        return [[g.param(_name(group, (i, j)), group, (i, j), values[i][j]) for j in range(shape[1])]
                for i in range(shape[0])]
    g.group(group, (len(values),), meaning, axes)
    return [g.param(_name(group, (i,)), group, (i,), values[i]) for i in range(len(values))]


def embedding(g: Graph, E, tokens, name="X"):
    """X[t] = E[tokens[t]]  (T, d): the lookup, i.e. X_oh · E."""
    d = len(E[0])
    return tensor(g, name, (len(tokens), d), "token embeddings E[token]", ("t", "j"),
                  lambda i: E[tokens[i[0]]][i[1]])


def positional(g: Graph, T, d, base):
    """PE[t,2i] = sin(t / base^(2i/d)), PE[t,2i+1] = cos(same)  (T, d)."""
    def pe(idx):
        t, j = idx
        angle = sympy.Integer(t) / base ** sympy.Rational(2 * (j // 2), d)
        return sympy.sin(angle) if j % 2 == 0 else sympy.cos(angle)
    return tensor(g, "PE", (T, d), "sinusoidal positional encoding", ("t", "j"), pe)


def add(g: Graph, name, A, B, meaning):
    """Elementwise A + B  (T, d)."""
    return tensor(g, name, (len(A), len(A[0])), meaning, ("t", "j"),
                  lambda i: A[i[0]][i[1]] + B[i[0]][i[1]])


def linear(g: Graph, name, X, W, b, meaning, axes):
    """X · W (+ b)  (T, n)."""
    n = len(W[0])
    return tensor(g, name, (len(X), n), meaning, axes,
                  lambda i: sympy.Add(*[X[i[0]][r] * W[r][i[1]] for r in range(len(W))])
                  + (b[i[1]] if b is not None else 0))


def attention(g: Graph, pre, H, W_Q, W_K, W_V, W_O, heads):
    """Causal multi-head self-attention; returns Attn  (T, d).

    S[h,t,s] = Q_h[t]·K_h[s]/√d_k for every (t, s), before the mask;
    A[h,t,s] = exp(S[h,t,s]) / A_den[h,t] for s ≤ t, and 0 for s > t.
    """
    T, d = len(H), len(H[0])
    dk = d // heads
    Q = linear(g, pre + "Q", H, W_Q, None, "queries H·W_Q", ("t", "j"))
    K = linear(g, pre + "K", H, W_K, None, "keys H·W_K", ("t", "j"))
    V = linear(g, pre + "V", H, W_V, None, "values H·W_V", ("t", "j"))
    hs = (lambda h, t, s: (h, t, s)) if heads > 1 else (lambda h, t, s: (t, s))
    hd = (lambda h, t: (h, t)) if heads > 1 else (lambda h, t: (t,))
    S_shape = (heads, T, T) if heads > 1 else (T, T)
    S_axes = ("h", "t", "s") if heads > 1 else ("t", "s")
    rsqrt = 1 / sympy.sqrt(dk)
    g.group(pre + "S", S_shape, "scaled scores Q_h K_hᵀ/√d_k, before the mask", S_axes)
    g.group(pre + "A_den", S_shape[:-1], "softmax denominator Σ_{s≤t} exp(S[t,s])", S_axes[:-1])
    g.group(pre + "A", S_shape, "attention weights (causal softmax of S)", S_axes)
    A = [[[None] * T for _ in range(T)] for _ in range(heads)]
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        S = [[g.define(_name(pre + "S", hs(h, t, s)), pre + "S", hs(h, t, s),
                       sympy.Add(*[Q[t][c] * K[s][c] for c in cols]) * rsqrt)
              for s in range(T)] for t in range(T)]
        for t in range(T):
            den = g.define(_name(pre + "A_den", hd(h, t)), pre + "A_den", hd(h, t),
                           sympy.Add(*[sympy.exp(S[t][s]) for s in range(t + 1)]))
            for s in range(T):
                # row 0 sees one position: its softmax is exactly 1 (and stays exact)
                w = (sympy.S.One if t == 0 else sympy.exp(S[t][s]) / den) if s <= t else sympy.S.Zero
                A[h][t][s] = g.define(_name(pre + "A", hs(h, t, s)), pre + "A", hs(h, t, s), w)
    name = pre + ("Attn_heads" if W_O is not None else "Attn")
    O = tensor(g, name, (T, d), "attention output: Σ_s A[t,s] V[s], heads concatenated",
               ("t", "j"), lambda i: sympy.Add(*[A[i[1] // dk][i[0]][s] * V[s][i[1]] for s in range(T)]))
    if W_O is not None:
        O = linear(g, pre + "Attn", O, W_O, None, "attention output after W_O", ("t", "j"))
    return O


def layernorm(g: Graph, pre, n, H, gamma, beta, eps):
    """LN(h)_j = γ_j (h_j − μ)/√(σ² + ε) + β_j per row, biased σ²  (T, d)."""
    T, d = len(H), len(H[0])
    mu = tensor(g, f"{pre}mu{n}", (T,), f"mean of H{n} over j", ("t",),
                lambda i: sympy.Add(*H[i[0]]) / d)
    var = tensor(g, f"{pre}var{n}", (T,), f"variance σ² of H{n} over j (biased)", ("t",),
                 lambda i: sympy.Add(*[(x - mu[i[0]]) ** 2 for x in H[i[0]]]) / d)
    return tensor(g, f"{pre}LN{n}", (T, d), f"LayerNorm of H{n}", ("t", "j"),
                  lambda i: gamma[i[1]] * (H[i[0]][i[1]] - mu[i[0]]) / sympy.sqrt(var[i[0]] + eps)
                  + beta[i[1]])


def relu(g: Graph, name, Z):
    """R = ReLU(Z), the sign of each Z decided rigorously  (T, d_ff)."""
    return tensor(g, name, (len(Z), len(Z[0])), "ReLU(Z); ReLU(0) = 0", ("t", "k"),
                  lambda i: ReLU(Z[i[0]][i[1]]))


def softmax_loss(g: Graph, logits, target, rows=None):
    """sum_exp, p = softmax(logits), loss = −z_t + ln Σ_k e^{z_k}.

    The loss is written in the logsumexp form so that SymPy's diff gives
    ∂L/∂z_j = −δ_jt + e^{z_j}/Σ_k e^{z_k}, which re-folds to p_j − y_j.
    ``rows`` — [(logit symbols, target id), …] — averages the loss over
    several positions (the language-model loss) instead.
    """
    V = len(logits)
    tensor(g, "sum_exp", (), "Σ_k exp(logits[k])", (), lambda i: sympy.Add(*[sympy.exp(z) for z in logits]))
    se = g.sym("sum_exp")
    p = tensor(g, "p", (V,), "next-token probabilities softmax(logits)", ("v",),
               lambda i: sympy.exp(logits[i[0]]) / se)
    rows = rows or [(logits, target)]
    ce = lambda z, t: -z[t] + sympy.log(sympy.Add(*[sympy.exp(x) for x in z]))
    meaning = ("cross-entropy −ln p[target]" if len(rows) == 1
               else "mean cross-entropy over every position (language-model loss)")
    loss = tensor(g, "loss", (), meaning, (),
                  lambda i: sympy.Add(*[ce(z, t) for z, t in rows]) / len(rows))
    return p, loss
