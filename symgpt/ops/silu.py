"""SiLU (the swish): ``R = Z·σ(Z) = Z/(1 + e^(−Z))``, Llama's MLP activation.

>>> from flint import fmpq
>>> silu_rule().grad_Z(fmpq(1), fmpq(0))      # SiLU'(0) = σ(0) = 1/2
1/2
"""
from __future__ import annotations

import sympy

from ..core.proofs import kept
from . import pointwise

KIND = "silu"
PARAMS: dict = {}
MEANING = "SiLU({x}) = {x}·σ({x})"
"""What its output is, of the input ``x`` (a plan writes it)."""


def f(z):
    """SiLU(z) = z / (1 + e^(−z)).

    >>> f(sympy.Integer(0))
    0
    """
    return z / (1 + sympy.exp(-z))


STATED = {
    # with σ = 1/(1 + e^(−Z)): SiLU' = σ·(1 + Z·(1 − σ))
    "silu.grad_Z": lambda gR, Z: gR * (1 + Z * (1 - 1 / (1 + sympy.exp(-Z)))) / (1 + sympy.exp(-Z)),
}
"""The rule as the documents state it, proven equal to SymPy's derivative of :func:`f` (:func:`silu_rule`)."""


@kept
def silu_rule():
    """R = SiLU(Z): grad_Z = gR·σ(Z)·(1 + Z·(1 − σ(Z))), proven by SymPy.

    >>> silu_rule().name
    'silu'
    """
    return pointwise.rule(KIND, f, STATED)


rules, define, groups, forward, backward, cost = pointwise.facets(f, silu_rule)
"""The engine's facets (:func:`symgpt.ops.pointwise.facets`): R[t,k] = f(Z[t,k]), grad_Z = grad_R·f′(Z)."""


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# ATen's CPU SiLU kernel: y = x / (1 + exp(−x)); its backward dy·σ·(1 + x·(1 − σ)) with σ = 1/(1 + exp(−x)).


def silu(ar, z):
    """SiLU(z) entrywise, in the arithmetic ``ar``.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> [round(float(v), 12) for v in silu(ar, ar.cast([-1, 0, 1]))]
    [-0.26894142137, 0.0, 0.73105857863]
    """
    x = ar.w(z)
    return ar.out(x / (ar.const(1) + ar.wexp(-x)))


def silu_grad(ar, z, g):
    """grad_R·SiLU'(z) entrywise."""
    x, dy = ar.w(z), ar.w(g)
    one = ar.const(1)
    sigma = one / (one + ar.wexp(-x))
    return ar.out(dy * sigma * (one + x * (one - sigma)))


floats_forward, floats_backward = pointwise.float_facets(silu, silu_grad)


# ---------------------------------------------------------------- names and the document

NAMES: dict = {}
"""Its output is the FFN's activation R, which the first activation op names (a plan gives its meaning)."""

DOCUMENT = {
    "layout": "activation",
    "word": "act_silu",                        # its name in prose (a word of the language files)
    "symbol": r"\mathrm{SiLU}",
    "name": "SiLU",
    "table": "ffn.act_cap",
    "rule": "ffn.silu_rule",
}
"""How a document shows it: at each position, a table of its inputs and outputs; then what it computes."""
