"""Linear: ``out = X·W (+ b)`` for a matrix X (T rows) or a vector x; grad_X = G·Wᵀ, grad_W = Xᵀ·G, grad_b = Σ_t G.

>>> matmul_rule().derived["grad_X"].shape, matmul_rule().closures
((2, 3), {})
"""
from __future__ import annotations

import sympy
from sympy import Mul

from ..core.grid import tensor
from ..core.proofs import kept
from ..core.prove import Rule, bilinear, matrix
from ..core.tensor import add, col_sums, mm, transpose
from .base import Apply, Param, accumulate, size
from .naming import Name, param

KIND = "linear"
PARAMS = {
    "W": Param("output projection (d × V)", ("j", "v")),
    "W_1": Param("FFN first layer (d × d_ff)", ("j", "k")),
    "b_1": Param("FFN first bias (d_ff)", ("k",)),
    "W_2": Param("FFN second layer (d_ff × d)", ("k", "j")),
    "b_2": Param("FFN second bias (d)", ("j",)),
    "W_3": Param("gated FFN up projection (d × d_ff)", ("j", "k")),
    "b_3": Param("gated FFN up bias (d_ff)", ("k",)),
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


@kept
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

# torch's ``x @ W + b`` and autograd's ``G @ W.T``, ``X.T @ G``, ``G.sum(0)``: the products in the arithmetic's
# ``mm`` order (a transposed view is the layout torch's kernel sees), the bias's sum over rows sequential.


def floats_forward(a: Apply, pipe) -> None:
    """out = X·W (+ b), or x·W for a vector x  (T, n) or (n,)."""
    X, W, b = a.ins[0], a.param("W"), a.param("b")
    if _vector(a):
        pipe.add(a.out, [X, W], lambda ar, x, W_: ar.mm(x[None, :], W_)[0])
    elif b:
        pipe.add(a.out, [X, W, b], lambda ar, X_, W_, b_: ar.add(ar.mm(X_, W_), b_))
    else:
        pipe.add(a.out, [X, W], lambda ar, X_, W_: ar.mm(X_, W_))


def floats_backward(a: Apply, pipe) -> None:
    """grad_X = G·Wᵀ, grad_W = Xᵀ·G, grad_b = Σ_t G, in that order."""
    X, W, b = a.ins[0], a.param("W"), a.param("b")
    G = pipe.grad(a.out)
    if _vector(a):
        pipe.share(X, [G, W], lambda ar, g, W_: ar.mm(g[None, :], W_.T)[0])
        pipe.share(W, [X, G], lambda ar, x, g: ar.mm(x[:, None], g[None, :]))
        return
    pipe.share(X, [G, W], lambda ar, G_, W_: ar.mm(G_, W_.T))
    pipe.share(W, [X, G], lambda ar, X_, G_: ar.mm(X_.T, G_))
    if b:
        pipe.share(b, [G], lambda ar, G_: ar.out(ar.rowsum(ar.w(G_).T)))


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "W": param("d", "V", zh="输出投影矩阵（d × V）", grad=("∂l/∂w", "解析梯度", "analytic")),
    "W_1": param("d", "d_ff", zh="前馈网络第一层权重（d × d_ff）"),
    "b_1": param("d_ff", zh="前馈网络第一层偏置（d_ff）", decays=False),
    "W_2": param("d_ff", "d", zh="前馈网络第二层权重（d_ff × d）"),
    "b_2": param("d", zh="前馈网络第二层偏置（d）", decays=False),
    "W_3": param("d", "d_ff", zh="门控前馈网络的上投影（d × d_ff）", optional=True),
    "b_3": param("d_ff", zh="门控前馈网络的上投影偏置（d_ff）", decays=False, optional=True),
    "z": Name("logits x·W", "logits x·W", ("v",), aliases=("z", "logit", "打分"),
              grad=("∂l/∂z", "梯度", "grad", "p-y", "p - y", "信号"), of=(("exp", ("exp", "e^z", "e^{z")),)),
    "Z": Name("FFN pre-activation LN1·W_1 + b_1", "前馈网络激活前的值 LN1·W_1 + b_1", ("t", "k"), aliases=("z",)),
    "F": Name("FFN output R·W_2 + b_2", "前馈网络输出 R·W_2 + b_2", ("t", "j"), aliases=("ffn",)),
}
"""How its parameters and the seed's linear maps are called (:mod:`symgpt.ops.naming`): the biases are not decayed."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "affine"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): each entry as a dot product plus the bias."""
