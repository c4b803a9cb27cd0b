"""The transformer and the bigram, assembled from layers.

>>> from symgpt.spec import load_spec
>>> g = bigram(load_spec("derivations/bigram.toml"))
>>> [g.closed_form(f"z[{v}]") for v in range(3)]
[13/100, -13/100, 2/25]
"""
from __future__ import annotations

import sympy

from .graph import Graph
from .layers import add, attention, embedding, layernorm, linear, param, positional, relu, softmax_loss, tensor
from .names import base
from .net import MEANING


def _params(g: Graph, spec) -> dict:
    out = {}
    for name, values in spec.params.items():
        meaning, axes = MEANING[base(name)]
        out[name] = param(g, name, values, meaning, axes)
    return out


def build(spec, tokens=None, target=None) -> Graph:
    """The forward graph of ``spec`` (on its own input, or on ``tokens``)."""
    return (transformer if spec.kind == "transformer" else bigram)(spec, tokens, target)


def transformer(spec, tokens=None, target=None) -> Graph:
    """L post-LN blocks, tied (or untied) head, softmax and cross-entropy."""
    tokens = spec.input if tokens is None else tokens
    target = spec.target if target is None else target
    g = Graph()
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
    h = tensor(g, "h_final", (d,), "last position of the last block's LN2", ("j",),
               lambda i: H[T - 1][i[0]])                          # (d,)
    if spec.tied:
        head = lambda v, j: E[v][j]                                # logits = h·Eᵀ
    else:
        head = lambda v, j: P["W_out"][j][v]
    logits = tensor(g, "logits", (spec.V,), "h_final · E[v] (tied head)" if spec.tied
                    else "h_final · W_out[:, v]", ("v",),
                    lambda i: sympy.Add(*[h[j] * head(i[0], j) for j in range(d)]))
    rows = None
    if spec.training.all_positions:  # every position predicts the next token
        targets = list(tokens[1:]) + [target]
        rows = [[sympy.Add(*[H[t][j] * head(v, j) for j in range(d)]) for v in range(spec.V)]
                for t in range(T - 1)]
        logits_at = [tensor(g, f"logits_at{t}", (spec.V,), f"logits at position {t}", ("v",),
                            lambda i, t=t: rows[t][i[0]]) for t in range(T - 1)]
        rows = [(z, targets[t]) for t, z in enumerate(logits_at)] + [(logits, target)]
    softmax_loss(g, logits, target, rows)
    return g


def bigram(spec, tokens=None, target=None) -> Graph:
    """x = E[token], z = x·W, p = softmax(z), loss = −ln p[target]."""
    tokens = spec.input if tokens is None else tokens
    target = spec.target if target is None else target
    g = Graph()
    P = _params(g, spec)
    E, W = P["E"], P["W"]
    x = tensor(g, "x", (spec.d,), "embedding of the input token E[token]", ("j",),
               lambda i: E[tokens[-1]][i[0]])                      # (d,)
    z = tensor(g, "z", (spec.V,), "logits x·W", ("v",),
               lambda i: sympy.Add(*[x[j] * W[j][i[0]] for j in range(spec.d)]))  # (V,)
    softmax_loss(g, z, target)
    return g


def differentiated(spec, tokens=None, target=None, gradients=True) -> Graph:
    """The model graph of ``spec`` on an example, with every ``grad_…`` node.

    A tied transformer also gets ``grad_E_head[v,j]``: the part of ∂L/∂E that
    flows through the LM head, (p − y)·h_final.  This is the model builder
    the training traces call for each example.

    >>> from symgpt.spec import load_spec
    >>> differentiated(load_spec("derivations/bigram.toml")).definition("grad_z[2]")
    p[2] - 1
    """
    g = build(spec, tokens, target)
    if gradients:
        g.backward("loss")
        if spec.kind == "transformer" and spec.tied:
            g.group("grad_E_head", (spec.V, spec.d), "∂L/∂E through the tied head only: (p − y)·h_final",
                    ("v", "j"))
            for v in range(spec.V):
                for j in range(spec.d):
                    g.define(f"grad_E_head[{v},{j}]", "grad_E_head", (v, j),
                             g.sym(f"grad_logits[{v}]") * g.sym(f"h_final[{j}]"))
    return g
