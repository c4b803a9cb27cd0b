"""The float64 tier: the whole model, its adjoints and its first updates in float64 balls, each op's float facet
run over a ball arithmetic.

Every op writes its float model once over an arithmetic's primitives (:mod:`symgpt.floats.model`).
:class:`Balls` is a third arithmetic beside IEEE floats and mpmath: its values are
:class:`symgpt.core.fball.Ball` arrays (a float64 midpoint and a float64 radius), and nothing is rounded away:
``out`` and ``keep`` return what they are given, so each stage's ball encloses the *exact* value of the
quantity (the model's definition, as the exact arithmetic computes it, not torch's float order).  Matrix
products go through BLAS with Rump's bound, so the whole pass costs a few float passes.

A decision an op makes (ReLU's sign of Z) is read from the ball where the ball decides it; an entry the ball
cannot decide is decided exactly by ``decide(name)``, the arb tier's rigorous sign
(:meth:`symgpt.engine.values.TensorEvaluator.sign`), and the ball goes on with it.

What the tier does not cover raises :class:`Unsupported` (a numpy function balls do not have, such as the
clipped gradient's); the caller then uses the arb tier.

>>> import symgpt
>>> v = values(symgpt.load("bigram").spec)
>>> significant(v["loss"], 8), significant(v["grad_W"][0], 6)
(['1.0514701'], ['0.110202', '0.0849712', '-0.195173'])
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq

from ..core import numeric
from ..core.dwball import DWBall, two_prod
from ..core.fball import ETA, Ball, U, Undecided, significant
from ..core.tensor import node_name
from .model import Arithmetic, Pipeline, fraction

__all__ = ["Balls", "DWBalls", "Unsupported", "Undecided", "values", "significant", "MAX_DIGITS"]

MAX_DIGITS = 13
"""The most significant digits the float64 tier certifies (:func:`symgpt.core.fball.significant`)."""


class Unsupported(Exception):
    """A stage the float64 tier cannot enclose (the arb tier computes it)."""


class _ArbContext:
    """What an op's float facet asks of ``ar.ctx`` (constants and exact tables: √2, π, sin, the positions),
    answered with arb balls at 128 bits, so a constant is enclosed, not rounded."""

    def __init__(self, prec: int = 128):
        self.prec = prec

    def mpf(self, x):
        if isinstance(x, str):
            raise Unsupported("a decimal string from SymPy carries no error bound")
        if isinstance(x, Fraction):
            return arb(fmpq(x.numerator, x.denominator))
        return arb(x)

    FUNCTIONS = ("sqrt", "exp", "log", "sin", "cos", "erf", "tanh")

    def __getattr__(self, name):
        """``ctx.sin(x)`` and the other functions of :data:`FUNCTIONS`: arb's, at :attr:`prec` bits."""
        if name not in self.FUNCTIONS:
            raise AttributeError(name)

        def f(x):
            with ctx.workprec(self.prec):
                return getattr(arb, name)(x if isinstance(x, arb) else self.mpf(x))
        return f

    @property
    def pi(self):
        with ctx.workprec(self.prec):
            return arb.pi()

    @property
    def dps(self):
        return int(self.prec * 0.30103)


def _exact_scalar(q) -> Ball:
    """A 0-d ball around an exact number (int, Fraction, fmpq, float, arb, SymPy Rational)."""
    if isinstance(q, Ball):
        return q
    if isinstance(q, arb):
        return Ball.from_arb(np.array(q, dtype=object))
    return Ball.of(np.array(fraction(q), dtype=object))


class Balls(Arithmetic):
    """Float64 ball arithmetic: the primitives of :class:`symgpt.floats.model.Arithmetic` on
    :class:`symgpt.core.fball.Ball`, every result enclosing the exact one.

    >>> ar = Balls()
    >>> y = ar.mm(ar.cast([[Fraction(1, 10), Fraction(2, 10)]]), ar.cast([[3], [4]]))
    >>> y.contains_exact([[Fraction(11, 10)]]), bool(y.r[0, 0] < 1e-15)
    (True, True)
    """

    name = "balls"
    kind = Ball       # the balls it makes
    exact = True      # nothing is rounded away: an op takes the definition, not a float algorithm's order
    wider = False

    def __init__(self):
        self.ctx = _ArbContext()

    def cast(self, x):
        return _cast(x, self.kind)

    def const(self, q):
        if isinstance(q, float) and math.isinf(q):
            return Ball(np.float64(q))
        return _exact_scalar(q)

    def host(self, q):
        return Fraction(q) if not isinstance(q, Ball) else q

    def table(self, exprs):
        """A table of exact SymPy constants, each enclosed by arb at the arithmetic's precision (128 bits, 256 for
        double words; compiled by :func:`symgpt.core.numeric.compile_expr`), then in its balls."""
        with ctx.workprec(self.ctx.prec):
            vals = [[numeric.to_flint(e) if e.is_Rational else numeric.compile_expr(e, {}, None)([]) for e in row]
                    for row in exprs]
        return self.kind.from_arb(np.array([[arb(v) if isinstance(v, fmpq) else v for v in row] for row in vals],
                                      dtype=object))

    def host_sqrt(self, x):
        return self.const(x).sqrt()

    def w(self, x):
        if isinstance(x, Ball):
            return x
        if isinstance(x, np.ndarray) and x.dtype != object:
            return Ball.exact(x)     # structural float arrays (0/1 masks) are exact
        return _exact_scalar(x) if np.ndim(x) == 0 else _cast(x)

    def out(self, x):
        return x if isinstance(x, Ball) else self.w(x)

    def keep(self, v):
        return self.out(v)

    def island(self):
        return self

    def zeros(self, shape=()):
        return Ball.exact(np.zeros(shape))

    wzeros = zeros

    def wexp(self, x):
        return self.w(x).exp()

    def wlog(self, x):
        return self.w(x).log()

    def wsqrt(self, x):
        return self.w(x).sqrt()

    def werf(self, x):
        return self.w(x).apply("erf")

    def wtanh(self, x):
        return self.w(x).apply("tanh")

    def rowsum(self, x):
        return self.w(x).sum(axis=-1)

    def mm(self, a, b):
        return self.w(a) @ self.w(b)

    def fma(self, a, b, c):
        return self.w(a) * self.w(b) + self.w(c)

    def shift(self, x):
        return self.w(x).shift()

    def inv(self, x):
        return Ball(np.float64(1.0)) / self.w(x)


class DWBalls(Balls):
    """Double-word ball arithmetic (:class:`symgpt.core.dwball.DWBall`: midpoints of about 106 bits, a float64
    radius): the same primitives as :class:`Balls`, for models whose worst-case error growth uses up float64.

    >>> ar = DWBalls()
    >>> y = ar.mm(ar.cast([[Fraction(1, 10), Fraction(2, 10)]]), ar.cast([[3], [4]]))
    >>> y.contains_exact([[Fraction(11, 10)]]), bool(y.r[0, 0] < 1e-30)
    (True, True)
    """

    name = "dwballs"
    kind = DWBall

    def __init__(self):
        self.ctx = _ArbContext(256)

    def const(self, q):
        if isinstance(q, float) and math.isinf(q):
            return DWBall(np.float64(q))
        if isinstance(q, DWBall):
            return q
        if isinstance(q, arb):
            return DWBall.from_arb(np.array(q, dtype=object))
        return DWBall.of(np.array(fraction(q), dtype=object))

    def host(self, q):
        return Fraction(q) if not isinstance(q, DWBall) else q

    def w(self, x):
        if isinstance(x, DWBall):
            return x
        if isinstance(x, Ball):
            return DWBall.from_ball(x)
        if isinstance(x, np.ndarray) and x.dtype != object:
            return DWBall.exact(x)
        return self.const(x) if np.ndim(x) == 0 else _cast(x, DWBall)

    def zeros(self, shape=()):
        return DWBall.exact(np.zeros(shape))

    wzeros = zeros

    def inv(self, x):
        return DWBall(np.float64(1.0)) / self.w(x)


def _cast(x, kind=Ball):
    """Exact values (nested lists of Fractions, fmpq, ints, SymPy Rationals) as balls of ``kind`` (:class:`Ball`
    or :class:`DWBall`): the nearest float(s) and the distance bound ``kind.of`` gives; an arb (a table an op
    computes exactly) is enclosed."""
    a = np.asarray(x, dtype=object)
    flat = a.ravel()
    if flat.size and all(isinstance(v, arb) for v in flat):
        return kind.from_arb(a)
    if flat.size and any(isinstance(v, arb) for v in flat):
        raise Unsupported("a table mixing balls and exact numbers")
    return kind.of(np.array([fraction(v) for v in flat], dtype=object).reshape(a.shape) if flat.size
                   else np.zeros(a.shape))


def parameters(spec, words: int = 1) -> dict:
    """The spec's parameters as balls: each exact rational p/q as the float64 p/q (correctly rounded: IEEE
    division of two integers below 2^53 is exact or rounded once) with radius 0 when q is a power of two (the
    quotient is then exact unless it underflows) and u·|p/q| otherwise, rounded up.  Vectorised over each tensor.

    >>> import symgpt
    >>> P = parameters(symgpt.load("bigram").spec)      # W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]
    >>> P["W"].contains_exact([[Fraction(x) for x in row] for row in [["0.5", "-0.3", "0.1"], ["0.2", "0.4", "-0.5"]]])
    True
    >>> P["W"].contains_exact([[Fraction("0.5"), Fraction("-0.3"), Fraction("0.1") + Fraction(1, 10 ** 15)],
    ...                        [Fraction("0.2"), Fraction("0.4"), Fraction("-0.5")]])
    False
    """
    out = {}
    for name, vals in spec.params.items():
        a = np.asarray(vals, dtype=object)
        flat = a.ravel()
        pq = [(int(x.p), int(x.q)) if hasattr(x, "p") else (x.numerator, x.denominator) for x in flat]
        if any(abs(p) >= 2 ** 53 or q >= 2 ** 53 for p, q in pq):
            out[name] = _cast(vals, Ball if words == 1 else DWBall)
            continue
        num = np.array([p for p, _ in pq], dtype=np.float64).reshape(a.shape)
        den = np.array([q for _, q in pq], dtype=np.int64).reshape(a.shape)
        with np.errstate(under="ignore"):
            m = num / den
        dyadic = (den & (den - 1)) == 0
        if words == 2 and not (np.abs(m)[m != 0] < 2.0 ** -960).any():
            q = den.astype(np.float64)
            ph, pl = two_prod(m, q)
            rho = (num - ph) - pl                       # exact (see above)
            lo = rho / q
            out[name] = DWBall(m, lo, np.where(rho == 0, 0.0, np.nextafter(U * np.abs(lo) + ETA, np.inf)))
            continue
        if words == 2:
            out[name] = _cast(vals, DWBall)
            continue
        out[name] = Ball(m, np.where(dyadic & ((m == 0) | (np.abs(m) >= 2.0 ** -1022)), 0.0,
                                     np.nextafter(U * np.abs(m) + ETA, np.inf)))
    return out


def values(spec, decide=None, updates: bool = True, params: dict | None = None, words: int = 1) -> dict:
    """Every stage of the spec's model (forward, adjoints, first updates) as float64 balls, by the engine's
    group names (``loss``, ``grad_W_Q``, ``l0.A``, ``sgd[1].E`` …).

    ``decide(node)`` gives the exact sign of one entry a ball cannot decide (``node`` as ``l0.Z[3,1]``);
    without it such an entry raises :class:`Undecided`.  :class:`Unsupported` when a stage is beyond the
    tier.  ``params``: the parameters' balls when already made (:func:`parameters`).  ``words=2``: in double-word
    balls (:class:`DWBalls`), about 106 bits for the midpoints.

    >>> import symgpt
    >>> v = values(symgpt.load("tiny-transformer").spec)
    >>> significant(v["loss"], 10)
    ['2.467373027']
    """
    pipe = Pipeline(spec, updates=updates)
    ar = Balls() if words == 1 else DWBalls()
    kind_of = Ball if words == 1 else DWBall
    vals = dict(parameters(spec, words) if params is None else params)
    for st in pipe.stages:
        try:
            with ctx.workprec(ar.ctx.prec):        # what an op computes on ar.ctx's arbs (t / base^(2i/d))
                out = st.fn(ar, *(vals[i] for i in st.inputs))
        except (TypeError, AttributeError, Unsupported) as e:      # a numpy feature balls do not have
            raise Unsupported(f"{st.name}: {e}") from None
        if not isinstance(out, kind_of):
            raise Unsupported(f"{st.name}: not a ball ({type(out).__name__})")
        kind = pipe.decisions.get(st.name, ("",))[0]
        if kind == "sign":
            _decide(out, st.name, decide)
        vals[st.name] = out
    return vals


def _decide(b, name: str, decide) -> None:
    """Set ``b.signs``: each entry's sign, from the ball where it decides, else from ``decide``."""
    s = b.sign()
    open_ = (s == 0) & ~((b.m == 0) & (b.r == 0))
    if open_.any():
        if decide is None:
            raise Undecided(f"{name}: {int(open_.sum())} signs the balls cannot decide")
        s = s.copy()
        for idx in zip(*np.nonzero(open_)):
            s[idx] = decide(node_name(name, tuple(int(i) for i in idx)))
    b.signs = s
