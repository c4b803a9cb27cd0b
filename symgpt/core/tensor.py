"""Tensors of certified numbers: nested lists of exact rationals (fmpq) and balls (arb).

A tensor is a nested Python list of scalars, each an ``fmpq`` while its value
is rational (the exact fast path) or an ``arb`` ball that contains it.
Products of matrices run in python-flint: ``fmpq_mat`` where every factor is
exact, ``arb_mat`` otherwise (rows that are exact keep exact products), so a
matrix product costs one C call instead of a Python loop over scalars.

>>> from flint import fmpq, arb
>>> mm([[fmpq(1, 3), fmpq(1, 2)]], [[fmpq(3)], [fmpq(2)]])
[[2]]
>>> mm([[arb(2).sqrt()]], [[arb(2).sqrt()]])[0][0].contains(2)
True
"""
from __future__ import annotations

from flint import arb, arb_mat, fmpq, fmpq_mat

ZERO, ONE = fmpq(0), fmpq(1)


def exact(x) -> bool:
    """Every scalar of a tensor (nested lists) is an exact rational.

    >>> exact([[fmpq(1), fmpq(2)]]), exact([fmpq(1), arb(1)])
    (True, False)
    """
    if isinstance(x, list):
        return all(exact(y) for y in x)
    return isinstance(x, fmpq)


def zeros(shape) -> list | fmpq:
    """A tensor of exact zeros of the given shape.

    >>> zeros((2, 1))
    [[0], [0]]
    """
    if not shape:
        return ZERO
    return [zeros(shape[1:]) for _ in range(shape[0])]


def transpose(X: list) -> list:
    """Xᵀ of a matrix (a list of rows).

    >>> transpose([[1, 2], [3, 4]])
    [[1, 3], [2, 4]]
    """
    return [list(c) for c in zip(*X)] if X else []


def _rows(M) -> list:
    n = M.ncols()
    e = M.entries()
    return [e[i * n:(i + 1) * n] for i in range(M.nrows())]


def mm(X: list, Y: list) -> list:
    """X·Y for an (a × n) and an (n × b) matrix; an entry whose row of X and column of Y are exact stays exact.

    Runs at the working precision (``flint.ctx.workprec``).

    >>> mm([[fmpq(1), fmpq(0)], [arb(1) / 3, fmpq(1)]], [[fmpq(1, 10)], [fmpq(2)]])[0]
    [1/10]
    """
    a, b = len(X), len(Y[0]) if Y else 0
    if a == 0 or b == 0:
        return [[ZERO] * b for _ in range(a)]
    rows = [i for i, r in enumerate(X) if all(type(x) is fmpq for x in r)]
    cols = [j for j, c in enumerate(zip(*Y)) if all(type(x) is fmpq for x in c)] if rows else []
    if len(rows) == a and len(cols) == b:
        return _rows(fmpq_mat(X) * fmpq_mat(Y))
    out = _rows(arb_mat(X) * arb_mat(Y))
    if rows and cols:  # the exact block: exact rows times exact columns
        block = _rows(fmpq_mat([X[i] for i in rows]) * fmpq_mat([[r[j] for j in cols] for r in Y]))
        for i, r in zip(rows, block):
            for j, x in zip(cols, r):
                out[i][j] = x
    return out


def scale(X, c):
    """c·X elementwise (nested lists).

    >>> scale([[fmpq(1), fmpq(2)]], fmpq(1, 2))
    [[1/2, 1]]
    """
    if isinstance(X, list):
        return [scale(x, c) for x in X]
    return X * c


def add(X, Y):
    """X + Y elementwise (nested lists of the same shape).

    >>> add([fmpq(1)], [fmpq(1, 2)])
    [3/2]
    """
    if isinstance(X, list):
        return [add(x, y) for x, y in zip(X, Y)]
    return X + Y


def col_sums(X: list) -> list:
    """Σ_t X[t][j] for every column j (a bias's gradient).

    >>> col_sums([[fmpq(1), fmpq(2)], [fmpq(3), fmpq(4)]])
    [4, 6]
    """
    return [total(c) for c in zip(*X)]


def total(xs):
    """x_0 + x_1 + … left to right, 0 (exact) for none.

    >>> total([fmpq(1, 2), fmpq(1, 3)]), total([])
    (5/6, 0)
    """
    s = ZERO
    for x in xs:
        s = s + x
    return s


def tidy(x):
    """A scalar as the engine serves it: a ball of radius 0 is its exact (dyadic) midpoint.

    >>> tidy(arb(3) / 4), tidy(arb(1) / 3) == arb(1) / 3
    (3/4, False)
    """
    if isinstance(x, arb) and x.is_exact() and x.is_finite():
        man, exp = x.mid().man_exp()
        man, exp = int(man), int(exp)
        return fmpq(man * 2 ** exp) if exp >= 0 else fmpq(man, 2 ** -exp)
    return x


def node_name(group: str, index: tuple) -> str:
    """``group[i,j]``, or ``group`` for a scalar.

    >>> node_name("l0.S", (1, 0, 1)), node_name("loss", ())
    ('l0.S[1,0,1]', 'loss')
    """
    return f"{group}[{','.join(map(str, index))}]" if index else group


def parse_node(name: str) -> tuple[str, tuple]:
    """(group, index) of a canonical node name.

    >>> parse_node("l0.S[1,0,1]"), parse_node("loss")
    (('l0.S', (1, 0, 1)), ('loss', ()))
    """
    if not name.endswith("]"):
        return name, ()
    group, _, inner = name[:-1].partition("[")
    return group, tuple(int(i) for i in inner.split(","))


def at(X, index: tuple):
    """X[i][j]… for an index tuple.

    >>> at([[1, 2], [3, 4]], (1, 0))
    3
    """
    for i in index:
        X = X[i]
    return X
