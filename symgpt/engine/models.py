"""The transformer and the bigram, assembled from layers.

>>> from symgpt.engine.spec import load_spec
>>> g = bigram(load_spec("derivations/bigram.toml"))
>>> [g.closed_form(f"z[{v}]") for v in range(3)]
[13/100, -13/100, 2/25]
"""
from __future__ import annotations

import sympy
from sympy import Mul

from ..core.graph import Graph
from .layers import (
    add,
    attention,
    embedding,
    layernorm,
    linear,
    node_sym,
    param,
    positional,
    relu,
    softmax_loss,
    tensor,
)
from .lazy import LazyGraph
from .names import base
from .net import MEANING


def _params(g, spec) -> dict:
    out = {}
    for name, values in spec.params.items():
        meaning, axes = MEANING[base(name)]
        out[name] = param(g, name, values, meaning, axes)
    return out


def build(spec, tokens=None, target=None, g=None) -> Graph:
    """The forward graph of ``spec`` (on its own input, or on ``tokens``), into ``g`` (a new
    :class:`Graph` when None; a :class:`symgpt.engine.lazy.LazyGraph` keeps each tensor's rule instead)."""
    return (transformer if spec.kind == "transformer" else bigram)(spec, tokens, target, g)


def transformer(spec, tokens=None, target=None, g=None) -> Graph:
    """L post-LN blocks, tied (or untied) head, softmax and cross-entropy."""
    tokens = spec.input if tokens is None else tokens
    target = spec.target if target is None else target
    g = Graph() if g is None else g
    P = _params(g, spec)
    T, d = len(tokens), spec.d
    E = P["E"]
    X = embedding(g, E, tokens)                                   # (T, d)
    PE = positional(g, T, d, spec.pe_base)                        # (T, d)
    H = add(g, "H0", X, PE, "block input H0 = X + PE")            # (T, d)
    for l in range(spec.layers):
        pre = spec.layer_prefix(l)
        Attn = attention(g, pre, H, P[pre + "W_Q"], P[pre + "W_K"], P[pre + "W_V"],
                         P.get(pre + "W_O"), spec.heads)           # (T, d)
        H1 = add(g, pre + "H1", H, Attn, "first residual H + Attn")
        LN1 = layernorm(g, pre, 1, H1, P[pre + "gamma1"], P[pre + "beta1"], spec.ln_eps)
        Z = linear(g, pre + "Z", LN1, P[pre + "W_1"], P[pre + "b_1"],
                   "FFN pre-activation LN1·W_1 + b_1", ("t", "k"))  # (T, d_ff)
        R = relu(g, pre + "R", Z)
        F = linear(g, pre + "F", R, P[pre + "W_2"], P[pre + "b_2"],
                   "FFN output R·W_2 + b_2", ("t", "j"))            # (T, d)
        H2 = add(g, pre + "H2", LN1, F, "second residual LN1 + F")
        H = layernorm(g, pre, 2, H2, P[pre + "gamma2"], P[pre + "beta2"], spec.ln_eps)
    last = lambda t: lambda x: [x[1:]] if x[0] == t else []  # H[t, j] ↦ [(j,)], other rows ↦ []
    h = tensor(g, "h_final", (d,), "last position of the last block's LN2", ("j",),
               lambda i: H[T - 1][i[0]], [(H, last(T - 1))], lambda i: 1)  # (d,)
    if spec.tied:
        head, W = (lambda v, j: E[v][j]), E                        # logits = h·Eᵀ
        head_uses = lambda e: [e[:1]]                              # E[v, j] ↦ [(v,)]
    else:
        head, W = (lambda v, j: P["W_out"][j][v]), P["W_out"]
        head_uses = lambda w: [w[1:]]                              # W_out[j, v] ↦ [(v,)]
    every_v = lambda _: [(v,) for v in range(spec.V)]
    logits = tensor(g, "logits", (spec.V,), "h_final · E[v] (tied head)" if spec.tied
                    else "h_final · W_out[:, v]", ("v",),
                    lambda i: sympy.Add(*[Mul(h[j], head(i[0], j)) for j in range(d)]),
                    [(h, every_v), (W, head_uses)], lambda i: 2 * d)
    rows = None
    if spec.training.all_positions:  # every position predicts the next token
        targets = list(tokens[1:]) + [target]
        logits_at = [tensor(g, f"logits_at{t}", (spec.V,), f"logits at position {t}", ("v",),
                            lambda i, t=t: sympy.Add(*[Mul(H[t][j], head(i[0], j)) for j in range(d)]),
                            [(H, lambda x, t=t: every_v(x) if x[0] == t else []), (W, head_uses)], lambda i: 2 * d)
                     for t in range(T - 1)]
        rows = [(z, targets[t]) for t, z in enumerate(logits_at)] + [(logits, target)]
    softmax_loss(g, logits, target, rows)
    return g


def bigram(spec, tokens=None, target=None, g=None) -> Graph:
    """x = E[token], z = x·W, p = softmax(z), loss = −ln p[target]."""
    tokens = spec.input if tokens is None else tokens
    target = spec.target if target is None else target
    g = Graph() if g is None else g
    P = _params(g, spec)
    E, W = P["E"], P["W"]
    x = tensor(g, "x", (spec.d,), "embedding of the input token E[token]", ("j",),
               lambda i: E[tokens[-1]][i[0]], [(E, lambda e: [e[1:]] if e[0] == tokens[-1] else [])],
               lambda i: 1)                                         # (d,)
    z = tensor(g, "z", (spec.V,), "logits x·W", ("v",),
               lambda i: sympy.Add(*[Mul(x[j], W[j][i[0]]) for j in range(spec.d)]),
               [(x, lambda _: [(v,) for v in range(spec.V)]), (W, lambda w: [w[1:]])], lambda i: 2 * spec.d)  # (V,)
    softmax_loss(g, z, target)
    return g


def differentiated(spec, tokens=None, target=None, gradients=True, lazy=False) -> Graph:
    """The model graph of ``spec`` on an example, with every ``grad_…`` node.

    A tied transformer also gets ``grad_E_head[v,j]``: the part of ∂L/∂E that
    flows through the LM head, (p − y)·h_final.  This is the model builder
    the training traces call for each example.  ``lazy``: a
    :class:`symgpt.engine.lazy.LazyGraph`, which defines a node when it is asked for
    (the same definitions, at any size).

    >>> from symgpt.engine.spec import load_spec
    >>> differentiated(load_spec("derivations/bigram.toml")).definition("grad_z[2]")
    p[2] - 1
    >>> differentiated(load_spec("derivations/bigram.toml"), lazy=True).definition("grad_z[2]")
    p[2] - 1
    """
    g = build(spec, tokens, target, LazyGraph() if lazy else None)
    if gradients:
        g.backward("loss")
        if spec.kind == "transformer" and spec.tied:
            tensor(g, "grad_E_head", (spec.V, spec.d), "∂L/∂E through the tied head only: (p − y)·h_final",
                   ("v", "j"), lambda i: node_sym("grad_logits", i[:1]) * node_sym("h_final", i[1:]))
    return g
