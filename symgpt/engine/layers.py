"""Layers: each adds a tensor of named nodes to a graph and returns its symbols.

A tensor is given by its rule ``fn(idx)`` (the node's small definition at one
index) and, for each input tensor, which of its own indices use an input's
index (``uses``: the consumers, read by the lazy graph's reverse mode,
:mod:`symgpt.engine.lazy`).  The full graph defines every node now; the lazy graph
keeps the rule and defines a node when it is asked for: the same code, so
the two cannot drift.

Shapes are :class:`Grid` s of SymPy symbols: a matrix is ``rows[i][j]``.
Axis letters name what an index means: ``t``/``s`` positions, ``j`` model
dimension, ``k`` FFN unit, ``v`` token (so ``p[你]`` works), ``h`` head.

>>> from symgpt.core.graph import Graph
>>> g = Graph()
>>> PE = positional(g, 2, 2, sympy.Integer(10000))
>>> g.definition("PE[1,0]"), g.definition("PE[0,1]")
(sin(1), 1)
"""
from __future__ import annotations

import sympy
from sympy import Mul, Symbol  # Mul(a, b) is a * b, built without the operator's dispatch

from ..core.graph import ReLU


def _name(group, idx):
    return f"{group}[{','.join(map(str, idx))}]" if idx else group


def node_sym(group, idx) -> Symbol:
    """The symbol of the node ``group[idx]`` (SymPy symbols are equal by name and assumptions).

    >>> node_sym("A", (1, 0)), node_sym("loss", ())
    (A[1,0], loss)
    """
    return Symbol(_name(group, idx), real=True)


class Grid:
    """The symbols of a tensor: ``X[t][j]`` is the symbol of ``X[t,j]``, ``len(X)`` its first size.

    ``rows`` holds them when the graph defined every node; otherwise each is made on demand.

    >>> X = Grid("X", (2, 3))
    >>> X[1][2], len(X), len(X[0]), list(X[0])
    (X[1,2], 2, 3, [X[0,0], X[0,1], X[0,2]])
    """

    def __init__(self, group: str, shape: tuple, rows=None):
        self.group, self.shape, self.rows = group, tuple(shape), rows

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, i):
        if self.rows is not None:
            return self.rows[i]
        if not 0 <= i < self.shape[0]:
            raise IndexError(i)
        if len(self.shape) == 1:
            return node_sym(self.group, (i,))
        return _Row(self.group, i, self.shape[1])

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _Row:
    """Row ``i`` of a matrix: its symbols made on demand."""

    def __init__(self, group, i, n):
        self.group, self.i, self.n = group, i, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, j):
        if not 0 <= j < self.n:
            raise IndexError(j)
        return node_sym(self.group, (self.i, j))

    def __iter__(self):
        return (self[j] for j in range(self.n))


def _indices(shape):
    idx = [()]
    for n in shape:
        idx = [i + (k,) for i in idx for k in range(n)]
    return idx


def tensor(g, group, shape, meaning, axes, fn, uses=(), arity=None):
    """``group[idx] = fn(idx)`` over the shape: a :class:`Grid` (a symbol for a scalar).

    For the lazy graph: ``uses`` — [(input Grid or group name, idx_in ↦ the indices of
    ``group`` whose definition holds the input's node idx_in), …] — the consumers, and
    ``arity(idx)`` the number of distinct symbols in ``fn(idx)`` (so that the fold map's
    search builds only definitions that can match).
    """
    uses = [(u if isinstance(u, str) else u.group, m) for u, m in uses]
    if g.lazy:
        g.lazy_tensor(group, shape, meaning, axes, fn, uses, arity)
        return node_sym(group, ()) if len(shape) == 0 else Grid(group, shape)
    g.group(group, shape, meaning, axes)
    if len(shape) == 0:
        return g.define(group, group, (), fn(()))
    if len(shape) == 1:
        return Grid(group, shape, [g.define(_name(group, (i,)), group, (i,), fn((i,))) for i in range(shape[0])])
    return Grid(group, shape, [[g.define(_name(group, (i, j)), group, (i, j), fn((i, j))) for j in range(shape[1])]
                               for i in range(shape[0])])


def param(g, group, values, meaning, axes):
    """Leaves holding exact values (a vector or a matrix)."""
    shape = (len(values), len(values[0])) if values and isinstance(values[0], list) else (len(values),)
    if g.lazy:
        g.lazy_param(group, shape, meaning, axes, values)
        return Grid(group, shape)
    g.group(group, shape, meaning, axes)
    if len(shape) == 2:
        return Grid(group, shape, [[g.param(_name(group, (i, j)), group, (i, j), values[i][j])
                                    for j in range(shape[1])] for i in range(shape[0])])
    return Grid(group, shape, [g.param(_name(group, (i,)), group, (i,), values[i]) for i in range(shape[0])])


def embedding(g, E, tokens, name="X"):
    """X[t] = E[tokens[t]]  (T, d): the lookup, i.e. X_oh · E."""
    d = len(E[0])
    return tensor(g, name, (len(tokens), d), "token embeddings E[token]", ("t", "j"),
                  lambda i: E[tokens[i[0]]][i[1]],
                  [(E, lambda e: [(t, e[1]) for t, v in enumerate(tokens) if v == e[0]])], lambda i: 1)


def positional(g, T, d, base):
    """PE[t,2i] = sin(t / base^(2i/d)), PE[t,2i+1] = cos(same)  (T, d)."""
    def pe(idx):
        t, j = idx
        angle = sympy.Integer(t) / base ** sympy.Rational(2 * (j // 2), d)
        return sympy.sin(angle) if j % 2 == 0 else sympy.cos(angle)
    return tensor(g, "PE", (T, d), "sinusoidal positional encoding", ("t", "j"), pe, (), lambda i: 0)


def add(g, name, A, B, meaning):
    """Elementwise A + B  (T, d)."""
    return tensor(g, name, (len(A), len(A[0])), meaning, ("t", "j"),
                  lambda i: A[i[0]][i[1]] + B[i[0]][i[1]], [(A, lambda a: [a]), (B, lambda b: [b])], lambda i: 2)


def linear(g, name, X, W, b, meaning, axes):
    """X · W (+ b)  (T, n)."""
    T, n = len(X), len(W[0])
    uses = [(X, lambda x: [(x[0], c) for c in range(n)]), (W, lambda w: [(t, w[1]) for t in range(T)])]
    if b is not None:
        uses.append((b, lambda c: [(t, c[0]) for t in range(T)]))
    return tensor(g, name, (T, n), meaning, axes,
                  lambda i: sympy.Add(*[Mul(X[i[0]][r], W[r][i[1]]) for r in range(len(W))])
                  + (b[i[1]] if b is not None else 0), uses, lambda i: 2 * len(W) + (b is not None))


def attention(g, pre, H, W_Q, W_K, W_V, W_O, heads):
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
    hts = (lambda i: i) if heads > 1 else (lambda i: (0, *i))  # an index of S, A (A_den) as (h, t, s) ((h, t))
    S_shape = (heads, T, T) if heads > 1 else (T, T)
    S_axes = ("h", "t", "s") if heads > 1 else ("t", "s")
    rsqrt = 1 / sympy.sqrt(dk)
    nS, nden, nA = pre + "S", pre + "A_den", pre + "A"

    def score(i):      # S[h,t,s] = Σ_{c in head h} Q[t,c] K[s,c] / √d_k
        h, t, s = hts(i)
        return sympy.Add(*[Mul(Q[t][c], K[s][c]) for c in range(h * dk, (h + 1) * dk)]) * rsqrt

    def den(i):        # A_den[h,t] = Σ_{s≤t} exp(S[h,t,s])
        h, t = hts(i)
        return sympy.Add(*[sympy.exp(node_sym(nS, hs(h, t, s))) for s in range(t + 1)])

    def weight(i):     # row 0 sees one position: its softmax is exactly 1 (and stays exact)
        h, t, s = hts(i)
        if s > t:
            return sympy.S.Zero
        return sympy.S.One if t == 0 else sympy.exp(node_sym(nS, hs(h, t, s))) / node_sym(nden, hd(h, t))

    name = pre + ("Attn_heads" if W_O is not None else "Attn")
    # the consumers: Q[t,c] is read by S[h(c),t,s] for every s, K[s,c] by S[h(c),t,s] for every t;
    # S[h,t,s] by A_den[h,t] and A[h,t,s] when s ≤ t (A's row 0 is 1), A_den[h,t] by A[h,t,s≤t] (t > 0)
    score_uses = [(Q, lambda q: [hs(q[1] // dk, q[0], s) for s in range(T)]),
                  (K, lambda k: [hs(k[1] // dk, t, k[0]) for t in range(T)])]
    den_uses = [(nS, lambda i: [hd(*hts(i)[:2])] if hts(i)[2] <= hts(i)[1] else [])]
    weight_uses = [(nS, lambda i: [i] if 0 < hts(i)[1] and hts(i)[2] <= hts(i)[1] else []),
                   (nden, lambda i: [hs(*hts(i), s) for s in range(hts(i)[1] + 1)] if hts(i)[1] > 0 else [])]
    if g.lazy:
        tensor(g, nS, S_shape, "scaled scores Q_h K_hᵀ/√d_k, before the mask", S_axes, score, score_uses,
               lambda i: 2 * dk)
        tensor(g, nden, S_shape[:-1], "softmax denominator Σ_{s≤t} exp(S[t,s])", S_axes[:-1], den, den_uses,
               lambda i: hts(i)[1] + 1)
        tensor(g, nA, S_shape, "attention weights (causal softmax of S)", S_axes, weight, weight_uses,
               lambda i: 2 if 0 < hts(i)[1] and hts(i)[2] <= hts(i)[1] else 0)
    else:  # the full graph keeps its order: per head, S, then each row's A_den and A
        g.group(nS, S_shape, "scaled scores Q_h K_hᵀ/√d_k, before the mask", S_axes)
        g.group(nden, S_shape[:-1], "softmax denominator Σ_{s≤t} exp(S[t,s])", S_axes[:-1])
        g.group(nA, S_shape, "attention weights (causal softmax of S)", S_axes)
        for h in range(heads):
            for t in range(T):
                for s in range(T):
                    g.define(_name(nS, hs(h, t, s)), nS, hs(h, t, s), score(hs(h, t, s)))
            for t in range(T):
                g.define(_name(nden, hd(h, t)), nden, hd(h, t), den(hd(h, t)))
                for s in range(T):
                    g.define(_name(nA, hs(h, t, s)), nA, hs(h, t, s), weight(hs(h, t, s)))
    O = tensor(g, name, (T, d), "attention output: Σ_s A[t,s] V[s], heads concatenated", ("t", "j"),
               lambda i: sympy.Add(*[Mul(node_sym(nA, hs(i[1] // dk, i[0], s)), V[s][i[1]]) for s in range(T)]),
               [(nA, lambda a: [(hts(a)[1], j) for j in range(hts(a)[0] * dk, (hts(a)[0] + 1) * dk)]),  # head h's
                (V, lambda v: [(t, v[1]) for t in range(T)])], lambda i: 2 * T)          # columns, every row
    if W_O is not None:
        O = linear(g, pre + "Attn", O, W_O, None, "attention output after W_O", ("t", "j"))
    return O


def layernorm(g, pre, n, H, gamma, beta, eps):
    """LN(h)_j = γ_j (h_j − μ)/√(σ² + ε) + β_j per row, biased σ²  (T, d)."""
    T, d = len(H), len(H[0])
    mu = tensor(g, f"{pre}mu{n}", (T,), f"mean of H{n} over j", ("t",),
                lambda i: sympy.Add(*H[i[0]]) / d, [(H, lambda h: [h[:1]])], lambda i: d)
    var = tensor(g, f"{pre}var{n}", (T,), f"variance σ² of H{n} over j (biased)", ("t",),
                 lambda i: sympy.Add(*[(x - mu[i[0]]) ** 2 for x in H[i[0]]]) / d,
                 [(H, lambda h: [h[:1]]), (mu, lambda t: [t])], lambda i: d + 1)
    row = lambda t: [(t[0], j) for j in range(d)]
    column = lambda j: [(t, j[0]) for t in range(T)]
    return tensor(g, f"{pre}LN{n}", (T, d), f"LayerNorm of H{n}", ("t", "j"),
                  lambda i: gamma[i[1]] * (H[i[0]][i[1]] - mu[i[0]]) / sympy.sqrt(var[i[0]] + eps)
                  + beta[i[1]], [(H, lambda h: [h]), (mu, row), (var, row), (gamma, column), (beta, column)],
                  lambda i: 5)


def relu(g, name, Z):
    """R = ReLU(Z), the sign of each Z decided rigorously  (T, d_ff)."""
    return tensor(g, name, (len(Z), len(Z[0])), "ReLU(Z); ReLU(0) = 0", ("t", "k"),
                  lambda i: ReLU(Z[i[0]][i[1]]), [(Z, lambda z: [z])], lambda i: 1)


def softmax_loss(g, logits, target, rows=None):
    """sum_exp, p = softmax(logits), loss = −z_t + ln Σ_k e^{z_k}.

    The loss is written in the logsumexp form so that SymPy's diff gives
    ∂L/∂z_j = −δ_jt + e^{z_j}/Σ_k e^{z_k}, which re-folds to p_j − y_j.
    ``rows`` — [(logit Grid, target id), …] — averages the loss over
    several positions (the language-model loss) instead.
    """
    V = len(logits)
    se = tensor(g, "sum_exp", (), "Σ_k exp(logits[k])", (), lambda i: sympy.Add(*[sympy.exp(z) for z in logits]),
                [(logits, lambda k: [()])], lambda i: V)
    p = tensor(g, "p", (V,), "next-token probabilities softmax(logits)", ("v",),
               lambda i: sympy.exp(logits[i[0]]) / se, [(logits, lambda v: [v]), ("sum_exp", lambda _: _indices((V,)))],
               lambda i: 2)
    rows = rows or [(logits, target)]
    ce = lambda z, t: -z[t] + sympy.log(sympy.Add(*[sympy.exp(x) for x in z]))
    meaning = ("cross-entropy −ln p[target]" if len(rows) == 1
               else "mean cross-entropy over every position (language-model loss)")
    # with one token −z + ln e^z is 0: the loss's uses and arity are then bounds (symgpt.engine.lazy checks its inputs)
    loss = tensor(g, "loss", (), meaning, (), lambda i: sympy.Add(*[ce(z, t) for z, t in rows]) / len(rows),
                  [(z, lambda k: [()]) for z, _ in rows], lambda i: V * len(rows))
    return p, loss
