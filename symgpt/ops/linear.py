"""Linear: ``out = X·W (+ b)`` for a matrix X (T rows) or a vector x; grad_X = G·Wᵀ, grad_W = Xᵀ·G, grad_b = Σ_t G.

>>> matmul_rule().derived["grad_X"].shape, matmul_rule().closures
((2, 3), {})
"""
from __future__ import annotations

import functools

import sympy
from sympy import Mul

from ..core.grid import tensor
from ..core.prove import Rule, bilinear, matrix
from ..core.tensor import add, col_sums, mm, transpose
from .base import Apply, Param, accumulate, size

KIND = "linear"
PARAMS = {
    "W": Param("output projection (d × V)", ("j", "v")),
    "W_1": Param("FFN first layer (d × d_ff)", ("j", "k")),
    "b_1": Param("FFN first bias (d_ff)", ("k",)),
    "W_2": Param("FFN second layer (d_ff × d)", ("k", "j")),
    "b_2": Param("FFN second bias (d)", ("j",)),
}

STATED = {
    # matrices (G is the adjoint of the product)
    "matmul.grad_X": lambda G, W: G * W.T,
    "matmul.grad_W": lambda X, G: X.T * G,
}
"""The rules as the documents state them, proven equal to SymPy's derivation (:func:`matmul_rule`)."""


def _vector(a: Apply) -> bool:
    return len(a.shape) == 1


def define(g, a: Apply, T: dict):
    """out[t,c] = Σ_r X[t,r] W[r,c] (+ b[c])  (T, n); a vector input gives out[c] = Σ_r x[r] W[r,c]  (n,)."""
    X, W = T[a.ins[0]], T[a.param("W")]
    b = T[a.param("b")] if a.param("b") else None
    n = len(W[0])
    if _vector(a):
        return tensor(g, a.out, (n,), a.meaning, a.axes,
                      lambda i: sympy.Add(*[Mul(X[j], W[j][i[0]]) for j in range(len(W))]),
                      [(X, lambda _: [(c,) for c in range(n)]), (W, lambda w: [w[1:]])], lambda i: 2 * len(W))
    rows = len(X)
    uses = [(X, lambda x: [(x[0], c) for c in range(n)]), (W, lambda w: [(t, w[1]) for t in range(rows)])]
    if b is not None:
        uses.append((b, lambda c: [(t, c[0]) for t in range(rows)]))
    return tensor(g, a.out, (rows, n), a.meaning, a.axes,
                  lambda i: sympy.Add(*[Mul(X[i[0]][r], W[r][i[1]]) for r in range(len(W))])
                  + (b[i[1]] if b is not None else 0), uses, lambda i: 2 * len(W) + (b is not None))


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    Xn, Wn, bn = a.ins[0], a.param("W"), a.param("b")
    if _vector(a):
        net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, mm([v[Xn]], v[Wn])[0]))           # (n,)
    elif bn:
        net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, [add(r, v[bn]) for r in mm(v[Xn], v[Wn])]))
    else:
        net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, mm(v[Xn], v[Wn])))               # (T, n)


def backward(a: Apply, net) -> None:
    """grad_X = G·Wᵀ, grad_W = Xᵀ·G, grad_b = Σ_t G (the rules of :func:`matmul_rule`)."""
    Xn, Wn, bn = a.ins[0], a.param("W"), a.param("b")
    G, gX, gW = "grad_" + a.out, "grad_" + Xn, "grad_" + Wn
    gb = "grad_" + bn if bn else None

    def run(v, ev):
        if _vector(a):
            accumulate(v, gX, mm([v[G]], transpose(v[Wn]))[0], add)      # x·W: ∂/∂x = grad·Wᵀ
            accumulate(v, gW, mm(transpose([v[Xn]]), [v[G]]), add)       # ∂/∂W = xᵀ·grad
            return
        accumulate(v, gW, mm(transpose(v[Xn]), v[G]), add)
        if gb:
            accumulate(v, gb, col_sums(v[G]), add)
        accumulate(v, gX, mm(v[G], transpose(v[Wn])), add)
    net.stage((gX, gW) + ((gb,) if gb else ()), run)


@functools.cache
def matmul_rule() -> Rule:
    """Y = X·W on a generic 2×3 · 3×2 product: grad_X = G·Wᵀ, grad_W = Xᵀ·G (checks only).

    >>> matmul_rule().derived["grad_W"].shape
    (3, 2)
    """
    X, W = matrix("X", 2, 3), matrix("W", 3, 2)
    Y, derived = bilinear(STATED, "matmul", lambda X, W: X * W, {"X": X, "W": W}, "G")
    return Rule(name="matmul", forward={"Y": Y}, symbols={"X": "2×3", "W": "3×2", "G": "grad_Y, 2×2"},
                derived=derived, checked="grad_X = G·Wᵀ and grad_W = Xᵀ·G entrywise by diff of Σ G∘(X·W), "
                "on a generic 2×3 · 3×2 product")


def rules() -> list:
    return [matmul_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): a dot product of the input's width per entry, plus the bias."""
    n_in = shapes[a.param("W")][0]
    return size(a.shape), size(a.shape) * (2 * n_in + (a.param("b") is not None))


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "affine"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): each entry as a dot product plus the bias."""
