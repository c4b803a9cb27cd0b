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
from .base import Apply, Param, accumulate, plus, size
from .naming import Name, param

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

def _scatter(ar, like, rows):
    """Σ of the rows ``(i, g)`` into zeros shaped like ``like``, each added to row i in order (torch's
    ``index_add`` of the embedding's backward).  Row 0 starts as ``like[0]·0``, a zero of the arithmetic's own
    numbers (with its sign, as the float model always had it).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> _scatter(ar, ar.zeros((3, 1)), [(2, ar.cast([1])), (2, ar.cast([2]))]).ravel().tolist()
    [0.0, 0.0, 3.0]
    """
    out = ar.zeros(like.shape)
    out[0] = like[0] * 0
    for i, g in rows:
        out[i] = ar.add(out[i], g)
    return out


def floats_forward(a: Apply, pipe) -> None:
    """X = E[tokens] (a copy of the rows), or x = E[last token]."""
    En, tokens = a.ins[0], a.opt("tokens")
    if len(a.shape) == 1:
        tok = tokens[-1]
        pipe.add(a.out, [En], lambda ar, E: E[tok].copy())
    else:
        toks = list(tokens)
        pipe.add(a.out, [En], lambda ar, E: E[toks].copy())


def floats_backward(a: Apply, pipe) -> None:
    """E's share: each position's gradient row scattered into its token's row, then added to E's other shares
    (a tied head's), in autograd's order."""
    En, tokens, vector = a.ins[0], a.opt("tokens"), len(a.shape) == 1

    def fold(ar, acc, E, G):
        rows = [(tokens[-1], G)] if vector else [(tok, G[t]) for t, tok in enumerate(tokens)]
        return plus(ar, acc, _scatter(ar, E if acc is None else acc, rows))
    pipe.fold(En, [En, pipe.grad(a.out)], fold)


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "E": param("V", "d", zh="词元嵌入矩阵（V × d）", aliases=("e", "嵌入", "embedding"), grad=("∂l/∂e", "梯度"),
               decays=False),
    "X": Name("token embeddings E[token]", "输入词元的嵌入 E[词元]", ("t", "j"), aliases=("x", "嵌入")),
    "x": Name("embedding of the input token E[token]", "输入词元的嵌入 E[词元]", ("j",), aliases=("x", "查行"),
              grad=("∂l/∂x",)),
}
"""How its parameter and its outputs are called (:mod:`symgpt.ops.naming`): E is not decayed (nanoGPT's groups)."""


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
