"""Tensors of named nodes: each op (:mod:`symgpt.ops`) adds its tensors to a graph through :func:`tensor`.

A tensor is given by its rule ``fn(idx)`` (the node's small definition at one
index) and, for each input tensor, which of its own indices use an input's
index (``uses``: the consumers, read by the lazy graph's reverse mode,
:mod:`symgpt.engine.lazy`).  The full graph defines every node now; the lazy graph
keeps the rule and defines a node when it is asked for: the same code, so
the two cannot drift.

Shapes are :class:`Grid` s of SymPy symbols: a matrix is ``rows[i][j]``.
Axis letters name what an index means: ``t``/``s`` positions, ``j`` model
dimension, ``k`` FFN unit, ``v`` token (so ``p[你]`` works), ``h`` head.

>>> import sympy
>>> from symgpt.core.graph import Graph
>>> g = Graph()
>>> x = param(g, "x", [sympy.Rational(1, 2), 2], "an input", ("j",))
>>> y = tensor(g, "y", (2,), "twice x", ("j",), lambda i: 2 * x[i[0]], [(x, lambda j: [j])], lambda i: 1)
>>> g.definition("y[1]"), g.closed_form("y[0]")
(2*x[1], 1)
"""
from __future__ import annotations

from sympy import Symbol


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
