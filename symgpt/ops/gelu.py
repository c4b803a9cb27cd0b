"""GELU with the exact error function: ``R = Z·Φ(Z) = Z/2·(1 + erf(Z/√2))``, as ``nn.GELU()`` and nanoGPT.

>>> from flint import fmpq
>>> gelu_rule().grad_Z(fmpq(1), fmpq(0))      # GELU'(0) = Φ(0) = 1/2, exactly
1/2
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from ..core.proofs import kept
from . import pointwise

KIND = "gelu"
PARAMS: dict = {}
MEANING = "GELU({x}) = {x}·Φ({x}), with the exact erf"
"""What its output is, of the input ``x`` (a plan writes it)."""


def f(z):
    """GELU(z) = z/2 · (1 + erf(z/√2)).

    >>> f(sympy.Integer(0)), f(sympy.oo)
    (0, oo)
    """
    return z * (1 + sympy.erf(z / sympy.sqrt(2))) / 2


STATED = {
    # GELU'(Z) = Φ(Z) + Z·φ(Z), with φ the standard normal density
    "gelu.grad_Z": lambda gR, Z: gR * ((1 + sympy.erf(Z / sympy.sqrt(2))) / 2
                                       + Z * sympy.exp(-Z**2 / 2) / sympy.sqrt(2 * sympy.pi)),
}
"""The rule as the documents state it, proven equal to SymPy's derivative of :func:`f` (:func:`gelu_rule`)."""


@kept
def gelu_rule():
    """R = GELU(Z): grad_Z = gR·(Φ(Z) + Z·φ(Z)), proven by SymPy.

    >>> gelu_rule().name, gelu_rule().forward["R"]
    ('gelu', Z*(erf(sqrt(2)*Z/2) + 1)/2)
    """
    return pointwise.rule(KIND, f, STATED)


rules, define, groups, forward, backward, cost = pointwise.facets(f, gelu_rule)
"""The engine's facets (:func:`symgpt.ops.pointwise.facets`): R[t,k] = f(Z[t,k]), grad_Z = grad_R·f′(Z)."""


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# ATen's CPU GELU kernel (approximate='none'): y = x·0.5·(1 + erf(x·√½)); its backward
# dy·(cdf + x·pdf) with cdf = 0.5·(1 + erf(x·√½)) and pdf = exp(−0.5·x·x)·(2/√π)·√½·0.5.  erf and exp are
# taken correctly rounded (the arithmetic's ``werf``, ``wexp``); the vectorised library's may differ by an ulp.


def _constants(ar):
    """½, √½ and (2/√π)·√½·½ in the working type, as the kernel holds them (M_SQRT1_2, M_2_SQRTPI)."""
    half, alpha = ar.const(Fraction(1, 2)), ar.const(1 / ar.ctx.sqrt(2))
    return half, alpha, ar.const(2 / ar.ctx.sqrt(ar.ctx.pi)) * alpha * half


def gelu(ar, z):
    """GELU(z) entrywise, in the arithmetic ``ar``.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> [round(float(v), 12) for v in gelu(ar, ar.cast([-1, 0, 1]))]
    [-0.158655253931, 0.0, 0.841344746069]
    """
    x = ar.w(z)
    half, alpha, _ = _constants(ar)
    return ar.out(x * half * (ar.const(1) + ar.werf(x * alpha)))


def gelu_grad(ar, z, g):
    """grad_R·GELU'(z) entrywise: dy·(cdf + x·pdf)."""
    x, dy = ar.w(z), ar.w(g)
    half, alpha, beta = _constants(ar)
    cdf = half * (ar.const(1) + ar.werf(x * alpha))
    pdf = ar.wexp(-half * x * x) * beta
    return ar.out(dy * (cdf + x * pdf))


floats_forward, floats_backward = pointwise.float_facets(gelu, gelu_grad)


# ---------------------------------------------------------------- names and the document

NAMES: dict = {}
"""Its output is the FFN's activation R, which the first activation op names (a plan gives its meaning)."""

DOCUMENT = {
    "layout": "activation",
    "word": "act_gelu",                        # its name in prose (a word of the language files)
    "symbol": r"\mathrm{GELU}",      # its name in a formula
    "name": "GELU",                   # … and in a picture's plain text
    "table": "ffn.act_cap",           # caption of one position's values
    "rule": "ffn.gelu_rule",          # what it is
}
"""How a document shows it: at each position, a table of its inputs and outputs; then what it computes."""
