"""Residual: ``out = a + b`` entrywise (the blocks' skip connections, and H0 = X + PE).

>>> from symgpt.core.graph import Graph
>>> from symgpt.core.grid import param
>>> g = Graph()
>>> A, B = param(g, "A", [[1, 2]], "a", ("t", "j")), param(g, "B", [[3, 4]], "b", ("t", "j"))
>>> out = define(g, Apply("residual", "H", ("A", "B"), (1, 2), meaning="A + B", axes=("t", "j")), {"A": A, "B": B})
>>> g.definition("H[0,1]"), g.closed_form("H[0,1]")
(A[0,1] + B[0,1], 6)
"""
from __future__ import annotations

from ..core.grid import tensor
from ..core.tensor import add
from .base import Apply, accumulate, size
from .naming import Name

PARAMS: dict = {}
KIND = "residual"


def define(g, a: Apply, T: dict):
    """out[t,j] = a[t,j] + b[t,j]  (T, d)."""
    A, B = (T[n] for n in a.ins)
    return tensor(g, a.out, (len(A), len(A[0])), a.meaning, a.axes,
                  lambda i: A[i[0]][i[1]] + B[i[0]][i[1]], [(A, lambda x: [x]), (B, lambda x: [x])], lambda i: 2)


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    x, y = a.ins
    net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, add(v[x], v[y])))


def backward(a: Apply, net) -> None:
    """∂out/∂a = ∂out/∂b = 1: the output's adjoint flows to both inputs unchanged."""
    G = "grad_" + a.out
    ins = tuple("grad_" + n for n in a.ins)

    def run(v, ev):
        for g in ins:
            accumulate(v, g, v[G], add)
    net.stage(ins, run)


def rules() -> list:
    return []


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): one addition per entry."""
    return size(a.shape), size(a.shape)


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

def floats_forward(a: Apply, pipe) -> None:
    """out = a + b, rounded once to the format."""
    pipe.add(a.out, list(a.ins), lambda ar, x, y: ar.add(x, y))


def floats_backward(a: Apply, pipe) -> None:
    """Both inputs get the output's adjoint unchanged (autograd adds it to their other shares first)."""
    g = pipe.grad(a.out)
    for x in a.ins:
        pipe.alias(x, g)


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "H0": Name("block input H0 = X + PE", "块的输入 H0 = X + PE", ("t", "j"), "H^{(0)}", ("h", "h(0)", "h⁽⁰⁾", "pe")),
    "H1": Name("first residual H + Attn", "第一次残差 H + Attn", ("t", "j"), "H'",
               ("h'", "h′", "残差", "第一次", "first"), primes=1),
    "H2": Name("second residual LN1 + F", "第二次残差 LN1 + F", ("t", "j"), "H''", ("h''", "h″", "第二次", "second"),
               primes=2),
}
"""How the seed's residual sums are called (:mod:`symgpt.ops.naming`): H⁽⁰⁾, H', H''."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "sum"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): each row as the sum of two vectors."""
