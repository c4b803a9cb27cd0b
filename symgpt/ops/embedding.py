"""Embedding: ``X[t] = E[tokens[t]]`` (the lookup, i.e. X_oh · E), or the last token's row ``x = E[token]``.

Its adjoint adds each position's gradient row to the row of E that position read: a row no position read
gets nothing (the sparse update).

>>> from symgpt.core.graph import Graph
>>> from symgpt.core.grid import param
>>> g = Graph()
>>> E = param(g, "E", [[1, 2], [3, 4], [5, 6]], "E", ("v", "j"))
>>> X = define(g, Apply("embedding", "X", ("E",), (2, 2), opts=(("tokens", (2, 0)),)), {"E": E})
>>> g.definition("X[0,1]"), g.closed_form("X[1,0]")
(E[2,1], 1)
"""
from __future__ import annotations

from ..core.grid import tensor
from ..core.tensor import add, zeros
from .base import Apply, Param, accumulate, size

KIND = "embedding"
PARAMS = {"E": Param("token embedding matrix (V × d)", ("v", "j"))}


def define(g, a: Apply, T: dict):
    """X[t,j] = E[tokens[t], j]  (T, d); with one output row only the last token's ``x[j]``  (d,)."""
    E, tokens = T[a.ins[0]], a.opt("tokens")
    if len(a.shape) == 1:
        tok = tokens[-1]
        return tensor(g, a.out, a.shape, a.meaning, a.axes, lambda i: E[tok][i[0]],
                      [(E, lambda e: [e[1:]] if e[0] == tok else [])], lambda i: 1)
    return tensor(g, a.out, a.shape, a.meaning, a.axes, lambda i: E[tokens[i[0]]][i[1]],
                  [(E, lambda e: [(t, e[1]) for t, v in enumerate(tokens) if v == e[0]])], lambda i: 1)


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    En, tokens = a.ins[0], a.opt("tokens")
    if len(a.shape) == 1:
        net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, list(v[En][tokens[-1]])))         # (d,)
    else:
        net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, [list(v[En][tok]) for tok in tokens]))


def backward(a: Apply, net) -> None:
    """grad_E[v] = Σ over the positions t that read row v of grad_X[t]."""
    En, tokens, G, gE = a.ins[0], a.opt("tokens"), "grad_" + a.out, "grad_" + a.ins[0]
    shape = net.groups[En].shape

    def run(v, ev):
        rows = [v[G]] if len(a.shape) == 1 else v[G]
        read = tokens[-1:] if len(a.shape) == 1 else tokens
        g = zeros(shape)
        for tok, row in zip(read, rows):
            g[tok] = add(g[tok], row)
        accumulate(v, gE, g, add)
    net.stage((gE,), run)


def rules() -> list:
    return []


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): a looked-up entry each, no arithmetic."""
    return size(a.shape), 0


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "lookup"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): the table of E, then each position's row."""


def entry(a: Apply, index: tuple) -> str:
    """The parameter entry that an output entry is (a document prints it from its exact text).

    >>> entry(Apply("embedding", "X", ("E",), (2, 2), opts=(("tokens", (2, 0)),)), (0, 1))
    'E[2,1]'
    """
    t, j = index if len(index) == 2 else (-1, index[0])
    return f"{a.ins[0]}[{a.opt('tokens')[t]},{j}]"
