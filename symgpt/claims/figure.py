"""A printed figure against a quantity: its rounding cell, whether the quantity rounds to it, the window
a wrong figure may stand for, its place in arithmetic, and the record of a verdict.

The pieces :mod:`symgpt.claims.match` and :mod:`symgpt.claims.diagnose` (and :mod:`symgpt.claims.context`) share, in a
module
of their own so that none of them imports another back.

>>> from symgpt.claims.extract import extract
>>> n = extract("A1,0 = 2.175 / 4.789 ≈ 0.454")[-1]
>>> cell(n), operand(n)
((Fraction(907, 2000), Fraction(909, 2000)), False)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq

from ..core.numeric import UndecidableError
from .candidates import Candidate, _bounds
from .claims import Printed, certify_rounding

NEAR_ULPS = 60        # a context-named quantity this close (in last-place units) makes a figure wrong …
NEAR_RELATIVE = Fraction(1, 4)   # … or this close relatively
FORMATS = re.compile(r"\b(?:b?f(?:loat)?16|bfloat16|fp(?:16|32|64)|float(?:32|64)|half|(?:16|32)[- ]bit)\b|"
                     r"单精度|半精度|(?:16|32)\s*位", re.I)


HUGE = Fraction(10) ** 250    # a figure beyond ±10^250, or nearer 0 than 10^-250, is read as no quantity of a
TINY = Fraction(1, 10 ** 250)  # tutorial's model (floats end at 1.8e308; the prefilter's float slop is 1e-300,
#                                and certifying that a 0 does not round to 1e-300 costs seconds)


def readable(n) -> bool:
    """A figure some quantity of a tutorial's model may be: 0, or within 10^±250."""
    return not n.value or TINY <= abs(n.value) <= HUGE


@dataclass
class Result:
    """The verdict on one figure."""
    number: object                       # the extract.Number
    verdict: str                         # matched | ambiguous | unmatched | wrong
    ref: str | None = None               # the quantity (the most likely one for a wrong figure)
    candidates: list = field(default_factory=list)   # refs, best first
    score: float = 0.0
    correct: str | None = None           # for a wrong figure: the correct rounding
    exact: str | None = None             # the value, certified digits
    cause: str | None = None             # for a wrong figure (symgpt.claims.diagnose)
    distance: str | None = None          # (printed − exact) in last-place units
    chain_value: str | None = None


def cell(n) -> tuple:
    """The rounding cell [lo, hi] of a figure, in the value's units.

    >>> from symgpt.claims.extract import extract
    >>> cell(extract("0.454")[0]), cell(extract("8.5%")[0])
    ((Fraction(907, 2000), Fraction(909, 2000)), (Fraction(169, 2000), Fraction(171, 2000)))
    """
    scale = 100 if n.kind == "percent" else 1
    if n.kind in ("power", "fraction"):
        return n.value / scale, n.value / scale
    half = Fraction(1, 2 * 10 ** n.decimals)
    return (n.value - half) / scale, (n.value + half) / scale


def printed(n) -> Printed:
    return Printed(n.text, n.kind, n.value, n.decimals)


EQUAL_PRECS = (256, 1024, 4096)
"""Bits at which a power of ten's or a fraction's equality with a value is tried on balls before SymPy is asked."""


SETTINGS = frozenset(("lr", "gradcheck.h", "top_k", "top_p", "adamw.lr", "adamw.beta1", "adamw.beta2", "adamw.eps",
                      "adamw.weight_decay"))
"""The training and sampling settings: a figure is one only when it equals it."""


def rounds_to(cand: Candidate, n) -> bool:
    """Certified: does the candidate's exact value round to the printed figure?"""
    lo, hi = cell(n)
    if not cand.meets(lo, hi):
        return False
    if cand.group in SETTINGS and isinstance(cand.ball, fmpq):      # a setting is stated, never rounded: top_p =
        value = n.value / 100 if n.kind == "percent" else n.value   # 0.75 is no 0.8 (that is T = 0.8)
        return fmpq(value.numerator, value.denominator) == cand.ball
    try:
        if n.kind in ("power", "fraction"):
            t = fmpq(n.value.numerator, n.value.denominator)
            for prec in EQUAL_PRECS:      # 10^{-20} beside a gradient of 1e-21: its ball leaves t once narrow
                v = cand.q.ball(prec)
                if isinstance(v, fmpq):
                    return v == t
                lo, hi = _bounds(v)
                if not lo <= Fraction(n.value) <= hi:
                    return False
            ex = cand.q.exact()
            return ex is not None and ex == t
        r, _, _ = certify_rounding(cand.q, printed(n))
    except (UndecidableError, ArithmeticError, ValueError):
        return False
    if Fraction(r) != n.value:
        return False
    return not (n.text.lstrip()[:1] in "-−" and n.value == 0 and _bounds(cand.ball)[0] > 0)


def near_window(n) -> tuple:
    """[lo, hi] of the values a wrong figure may stand for: NEAR_ULPS last-place units or NEAR_RELATIVE."""
    scale = 100 if n.kind == "percent" else 1
    y, ulp = n.value / scale, Fraction(1, 10 ** n.decimals) / scale
    w = max(NEAR_ULPS * ulp, abs(y) * NEAR_RELATIVE)
    return y - w, y + w


def operand(n) -> bool:
    """A figure inside arithmetic (a factor, a divisor, a term after a minus), not the result of an equation or a
    table cell.

    >>> from symgpt.claims.extract import extract
    >>> [operand(f) for f in extract("mu = (-0.483 - 1.327 - 0.442) / 4 = -0.563")]
    [True, True, True, True, False]
    """
    return bool(re.match(r"\s*\)?\s*(?:[×*/÷^²·+]|\\times|\\cdot)", n.after) or
                n.line_text[n.col + len(n.text):].strip() and re.fullmatch(r"\s+[-−]\s+", n.after) or
                re.search(r"(?:[×*/÷·+]|\\times|\\cdot)\s*\(?\s*$", n.before) or
                re.search(r"[\d)]\s+[-−]\s+$", n.line_text[:n.col]) or     # 1.327 − 0.442: a difference's term
                re.search(r"[\d)]\s*[-−]\s*\(\s*$", n.line_text[:n.col]))   # 0.6849 − (−0.0052): one subtracted


BACKWARD_STATISTIC = re.compile(r"(?:\\overline|\\bar)\s*\{[^{}]*(?:\\delta|δ|\\partial|∂|\\nabla|∇|grad)|"
                                r"(?:\\delta|δ|\\partial|∂|\\nabla|∇)[^,;=]*(?:⊙|\\odot)")
"""An average of a gradient (``\\overline{\\delta^z}``) or an entrywise product (``δ ⊙ z``): a backward pass's
statistic of the author's own, which the model has no node for."""


def own_statistic(n) -> bool:
    """Whether an equation gives the figure to a statistic of the author's own (:data:`BACKWARD_STATISTIC`) as its
    left-hand side: then no quantity the context names is what it is.

    >>> from symgpt.claims.extract import extract
    >>> [own_statistic(f) for f in extract(r"où \\(\\overline{\\delta^z} = -0.0052\\) et \\(\\bar{x} = 0.25\\)")]
    [True, False]
    """
    lhs = re.search(r"([^=≈]*)[=≈]\s*$", n.line_text[:n.col])
    return lhs is not None and bool(BACKWARD_STATISTIC.search(re.split(r"\\\(|\$|[.;:,](?=\s)", lhs[1])[-1]))
