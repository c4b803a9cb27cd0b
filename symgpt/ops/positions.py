"""Sinusoidal positions: ``PE[t,2i] = sin(t / base^(2i/d))``, ``PE[t,2i+1] = cos(same)`` (no parameters).

>>> from symgpt.core.graph import Graph
>>> g = Graph()
>>> PE = define(g, Apply("positions", "PE", (), (2, 2), opts=(("base", sympy.Integer(10000)),)), {})
>>> g.definition("PE[1,0]"), g.definition("PE[0,1]")
(sin(1), 1)
>>> table(2, 2, 10000)[0], table(2, 2, 10000)[1][0].contains(__import__("flint").arb(1).sin())
([0, 1], True)
"""
from __future__ import annotations

from fractions import Fraction

import sympy
from flint import fmpq

from ..core import numeric
from ..core.grid import tensor
from ..core.numeric import to_flint
from ..core.tensor import ZERO
from .base import Apply, size
from .naming import Name

KIND = "positions"
PARAMS: dict = {}
MEANING = "sinusoidal positional encoding"
"""What its output is (a plan writes it)."""


def angle(t: int, j: int, d: int, base):
    """t / base^(2⌊j/2⌋/d), exact (SymPy).

    >>> angle(3, 2, 4, sympy.Integer(100))
    3/10
    """
    return sympy.Integer(t) / base ** sympy.Rational(2 * (j // 2), d)


def define(g, a: Apply, T: dict):
    """PE[t,2i] = sin(t / base^(2i/d)), PE[t,2i+1] = cos(same)  (T, d)."""
    d, base = a.shape[1], a.opt("base")

    def pe(idx):
        t, j = idx
        x = angle(t, j, d, base)
        return sympy.sin(x) if j % 2 == 0 else sympy.cos(x)
    return tensor(g, a.out, a.shape, a.meaning, a.axes, pe, (), lambda i: 0)


def table(T: int, d: int, base) -> list:
    """PE[t][2i] = sin(t / base^(2i/d)), PE[t][2i+1] = cos(same), exact where rational (row 0 is 0, 1, …)."""
    base = to_flint(base) if not isinstance(base, (fmpq, int)) else fmpq(base)
    out = []
    for t in range(T):
        row = []
        for j in range(d):
            x = fmpq(t) / numeric.power(base, fmpq(2 * (j // 2), d)) if t else ZERO
            row.append(numeric.sin(x) if j % 2 == 0 else numeric.cos(x))
        out.append(row)
    return out


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    T, d = a.shape
    net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, table(T, d, a.opt("base"))))


def backward(a: Apply, net) -> None:
    """Nothing to pass on: the positions read no parameter (their own adjoint is the block input's)."""


def rules() -> list:
    return []


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): a power, a quotient and a sine or cosine of an exact argument each."""
    return size(a.shape), 11 * size(a.shape)


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

def sinusoids(T: int, d: int, base, ctx) -> list:
    """PE[t][2i] = sin(t / base^(2i/d)), PE[t][2i+1] = cos(…), in mpmath (``ctx``): what a format then rounds
    once (the correctly rounded sin/cos, not ``torch.sin`` in the format).

    >>> import mpmath
    >>> sinusoids(2, 2, 10000, mpmath.mp)[1][0] == mpmath.sin(1)
    True
    """
    b = ctx.mpf(Fraction(str(base)).numerator) / Fraction(str(base)).denominator
    return [[(ctx.sin if j % 2 == 0 else ctx.cos)(t / b ** (ctx.mpf(2 * (j // 2)) / d)) for j in range(d)]
            for t in range(T)]


def floats_forward(a: Apply, pipe) -> None:
    T, d = a.shape
    base = a.opt("base")
    pipe.add(a.out, [], lambda ar: ar.cast(sinusoids(T, d, base, ar.ctx)))


def floats_backward(a: Apply, pipe) -> None:
    """Nothing to pass on (no parameters)."""


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "PE": Name("sinusoidal positional encoding", "正弦位置编码", ("t", "j"), r"\mathrm{PE}",
               ("pe", "位置编码", "sin", "cos")),
    "pe_base": Name("positional-encoding base", kind="size", aliases=("10000", "base")),
}
"""How its output and its hyper-parameter (the spec's ``model.pe_base``) are called (:mod:`symgpt.ops.naming`)."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {
    "layout": "sinusoidal",
    "setup": "setup.pe_fixed",            # what the set-up says of the positions
    "formula": r"\mathrm{PE}(t, 2i) = \sin\left(\frac{t}{b^{2i/d}}\right),\quad "
               r"\mathrm{PE}(t, 2i+1) = \cos\left(\frac{t}{b^{2i/d}}\right)",
}
"""How a document shows it (:mod:`symgpt.documents.transformer`): the formula, the frequencies, each row."""


def frequencies(a: Apply) -> list:
    r"""The display lines of the denominators ``b^{2i/d}``, one per frequency, exact.

    >>> frequencies(Apply("positions", "PE", (), (2, 2), opts=(("base", sympy.Integer(10000)),)))
    ['i = 0: &\\quad b^{0/2} = 1']
    """
    d, base = a.shape[1], a.opt("base")
    return [rf"i = {i}: &\quad b^{{{2 * i}/{d}}} = {sympy.latex(base ** sympy.Rational(2 * i, d))}"
            for i in range(d // 2 + d % 2)]
