"""The gated SiLU of Llama's MLP: ``R = SiLU(Z) ⊙ U``, Z = x·W_1 the gate and U = x·W_3 the up projection.

The MLP is then ``F = R·W_2`` (Llama's ``down(silu(gate(x)) * up(x))``, its w2, w1 and w3).  The gate's SiLU is
:mod:`symgpt.ops.silu`'s definition, so both read one formula.

>>> from flint import fmpq
>>> swiglu_rule().grad_U(fmpq(1), fmpq(0)), swiglu_rule().grad_Z(fmpq(1), fmpq(0), fmpq(3))   # σ(0) = ½
(0, 3/2)
"""
from __future__ import annotations

import functools

import sympy

from ..core.grid import tensor
from ..core.proofs import kept
from ..core.prove import Rule, closures, prove_equal, real, stated
from ..core.tensor import add
from . import silu
from .base import Apply, accumulate, size
from .naming import Name

KIND = "swiglu"
PARAMS: dict = {}
MEANING = "SiLU({x}) ⊙ U, the gated MLP's hidden units"
"""What its output is, of the gate ``x`` (a plan writes it)."""


def f(z, u):
    """SiLU(z)·u."""
    return silu.f(z) * u


STATED = {
    "swiglu.grad_Z": lambda gR, Z, U: gR * U * silu.STATED["silu.grad_Z"](1, Z),
    "swiglu.grad_U": lambda gR, Z: gR * silu.f(Z),
}
"""The rules as the documents state them, proven equal to SymPy's derivation (:func:`swiglu_rule`)."""


@kept
def swiglu_rule() -> Rule:
    """R = SiLU(Z)·U: grad_Z = gR·U·SiLU'(Z), grad_U = gR·SiLU(Z), each by SymPy's diff.

    >>> swiglu_rule().name
    'swiglu'
    """
    Z, U, gR = real("Z U gR")
    syms = {"Z": Z, "U": U, "gR": gR}
    derived = {"grad_Z": gR * sympy.diff(f(Z, U), Z), "grad_U": gR * sympy.diff(f(Z, U), U)}
    for name in derived:
        prove_equal(f"swiglu.{name}", derived[name], stated(STATED, "swiglu", name, syms))
    return Rule(name="swiglu", forward={"R": f(Z, U)}, symbols={"Z": "gate", "U": "up", "gR": "grad_R"},
                derived=derived, checked="d(SiLU(Z)·U)/dZ and /dU by SymPy's diff equal the stated rules",
                closures=closures(STATED, "swiglu", derived, syms))


def rules() -> list:
    return [swiglu_rule()]


@functools.cache
def _value():
    Z, U = real("Z U")
    return closures({"swiglu.value": lambda Z, U: f(Z, U)}, "swiglu", {"value": f(Z, U)}, {"Z": Z, "U": U})["value"]


def define(g, a: Apply, T: dict):
    """R[t,k] = SiLU(Z[t,k])·U[t,k]  (T, d_ff)."""
    Z, U = T[a.ins[0]], T[a.ins[1]]
    return tensor(g, a.out, (len(Z), len(Z[0])), a.meaning, a.axes, lambda i: f(Z[i[0]][i[1]], U[i[0]][i[1]]),
                  [(Z, lambda z: [z]), (U, lambda u: [u])], lambda i: 2)


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    Zn, Un, value = a.ins[0], a.ins[1], _value()
    net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, [[value(z, u) for z, u in zip(zr, ur)]
                                                           for zr, ur in zip(v[Zn], v[Un])]))


def backward(a: Apply, net) -> None:
    """grad_Z = grad_R·U·SiLU'(Z), grad_U = grad_R·SiLU(Z)."""
    Zn, Un = a.ins
    R = swiglu_rule()

    def run(v, ev):
        G, Z, U = v["grad_" + a.out], v[Zn], v[Un]
        accumulate(v, "grad_" + Zn, [[R.grad_Z(g, z, u) for g, z, u in zip(*rows)] for rows in zip(G, Z, U)], add)
        accumulate(v, "grad_" + Un, [[R.grad_U(g, z) for g, z in zip(*rows)] for rows in zip(G, Z)], add)
    net.stage(("grad_" + Zn, "grad_" + Un), run)


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): a SiLU and a product per entry."""
    return size(a.shape), 10 * size(a.shape)


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

def gated(ar, z, u):
    """F.silu(z) · u, each rounded to the format."""
    return ar.mul(silu.silu(ar, z), u)


def floats_forward(a: Apply, pipe) -> None:
    pipe.add(a.out, list(a.ins), gated)


def floats_backward(a: Apply, pipe) -> None:
    Zn, Un = a.ins
    G = pipe.grad(a.out)
    pipe.share(Zn, [Zn, Un, G], lambda ar, z, u, g: silu.silu_grad(ar, z, ar.mul(g, u)))
    pipe.share(Un, [Zn, G], lambda ar, z, g: ar.mul(g, silu.silu(ar, z)))


# ---------------------------------------------------------------- names and the document

NAMES = {
    "U": Name("the gated MLP's up projection LN·W_3", "门控前馈网络的上投影 LN·W_3", ("t", "k"), aliases=("up", "u")),
}
"""How the up projection is called; R is the FFN's hidden units, as every activation's output."""

DOCUMENT = {
    "layout": "gated",
    "word": "act_swiglu",
    "symbol": r"\mathrm{SiLU}",
    "name": "SwiGLU",
    "table": "gated.cap",
    "rule": "gated.rule",
}
"""How a document shows it: at each position, a table of the gate, its SiLU, the up projection and their
product; then what it computes."""
