"""GELU's tanh form: ``R = Z/2·(1 + tanh(√(2/π)·(Z + 0.044715·Z³)))``, GPT-2's ``gelu_new`` and minGPT's NewGELU.

The constant 0.044715 is the exact decimal the definition writes (44715/10⁶), as every other input.

>>> from flint import fmpq
>>> gelu_tanh_rule().grad_Z(fmpq(1), fmpq(0))      # the tanh form's derivative at 0 is 1/2 too
1/2
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from ..core.proofs import kept
from . import pointwise

KIND = "gelu_tanh"
PARAMS: dict = {}
MEANING = "GELU({x}) in tanh form, ½{x}(1 + tanh(√(2/π)({x} + 0.044715{x}³)))"
"""What its output is, of the input ``x`` (a plan writes it)."""

KAPPA = sympy.Rational(44715, 1000000)


def f(z):
    """½z·(1 + tanh(√(2/π)·(z + κz³))), κ = 0.044715.

    >>> f(sympy.Integer(0))
    0
    """
    return z * (1 + sympy.tanh(sympy.sqrt(2 / sympy.pi) * (z + KAPPA * z**3))) / 2


def _inner(Z):
    return sympy.sqrt(2 / sympy.pi) * (Z + KAPPA * Z**3)


STATED = {
    # with u = √(2/π)(Z + κZ³): d/dZ = ½(1 + tanh u) + ½Z·(1 − tanh²u)·√(2/π)(1 + 3κZ²)
    "gelu_tanh.grad_Z": lambda gR, Z: gR * ((1 + sympy.tanh(_inner(Z))) / 2
                                            + Z * (1 - sympy.tanh(_inner(Z))**2) * sympy.sqrt(2 / sympy.pi)
                                            * (1 + 3 * KAPPA * Z**2) / 2),
}
"""The rule as the documents state it, proven equal to SymPy's derivative of :func:`f` (:func:`gelu_tanh_rule`)."""


@kept
def gelu_tanh_rule():
    """R = GELU_tanh(Z): grad_Z = gR·GELU_tanh'(Z), proven by SymPy.

    >>> gelu_tanh_rule().name
    'gelu_tanh'
    """
    return pointwise.rule(KIND, f, STATED)


rules, define, groups, forward, backward, cost = pointwise.facets(f, gelu_tanh_rule)
"""The engine's facets (:func:`symgpt.ops.pointwise.facets`): R[t,k] = f(Z[t,k]), grad_Z = grad_R·f′(Z)."""


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# ATen's CPU GELU kernel (approximate='tanh'): inner = β·(x + κ·x³) with x³ = x·x·x and β = √2·(2/√π)·½,
# y = ½·x·(1 + tanh(inner)); its backward dy·(½(1 + tanh) + ½x·(1 − tanh²)·β·(1 + 3κx²)).  tanh is taken
# correctly rounded (the arithmetic's ``wtanh``).


def _constants(ar):
    """½, κ and β = √2·(2/√π)·½ in the working type, as the kernel holds them."""
    half = ar.const(Fraction(1, 2))
    beta = ar.const(ar.ctx.sqrt(2)) * ar.const(2 / ar.ctx.sqrt(ar.ctx.pi)) * half
    return half, ar.const(Fraction(44715, 1000000)), beta


def gelu_tanh(ar, z):
    """The tanh form of GELU entrywise, in the arithmetic ``ar``.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> [round(float(v), 9) for v in gelu_tanh(ar, ar.cast([-1, 0, 1]))]
    [-0.158808009, 0.0, 0.841191991]
    """
    x = ar.w(z)
    half, kappa, beta = _constants(ar)
    inner = beta * (x + kappa * (x * x * x))
    return ar.out(half * x * (ar.const(1) + ar.wtanh(inner)))


def gelu_tanh_grad(ar, z, g):
    """grad_R·GELU_tanh'(z) entrywise."""
    x, dy = ar.w(z), ar.w(g)
    half, kappa, beta = _constants(ar)
    th = ar.wtanh(beta * (x + kappa * (x * x * x)))
    left = half * (ar.const(1) + th)
    right = half * x * (ar.const(1) - th * th) * beta * (ar.const(1) + ar.const(3) * kappa * x * x)
    return ar.out(dy * (left + right))


floats_forward, floats_backward = pointwise.float_facets(gelu_tanh, gelu_tanh_grad)


# ---------------------------------------------------------------- names and the document

NAMES: dict = {}
"""Its output is the FFN's activation R, which the first activation op names (a plan gives its meaning)."""

DOCUMENT = {
    "layout": "activation",
    "word": "act_gelu_tanh",                   # its name in prose (a word of the language files)
    "symbol": r"\mathrm{GELU}_{\tanh}",
    "name": "GELU(tanh)",
    "table": "ffn.act_cap",
    "rule": "ffn.gelu_tanh_rule",
}
"""How a document shows it: at each position, a table of its inputs and outputs; then what it computes."""
