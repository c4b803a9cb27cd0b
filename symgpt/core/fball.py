"""Float64 balls: a tensor as a midpoint array and a radius array of float64, every operation enclosing its
exact result (the first part of a float64 tier: certified values at the speed of BLAS).

A :class:`Ball` ``(m, r)`` stands for every array ``x`` with ``|x − m| ≤ r`` entrywise.  numpy rounds to
nearest; no operation here changes the rounding mode.  Each operation computes its midpoint in float64 and a
radius that bounds, with margin, (i) what the inputs' radii let the exact result be and (ii) the rounding of
the midpoint itself, under these standard bounds (u = 2⁻⁵³ the unit roundoff, η = 2⁻¹⁰⁷⁴ the smallest
subnormal; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §2.2 and §3.1; Rump,
"Fast and parallel interval arithmetic", BIT 39 (1999), for the midpoint–radius matrix product):

- one operation ``fl(a ∘ b) = (a ∘ b)(1 + δ) + ε`` with ``|δ| ≤ u``, ``|ε| ≤ η/2`` (ε = 0 for + and −);
- a dot product of length n, summed in any order, with or without FMA:
  ``|fl(xᵀy) − xᵀy| ≤ γ_n |x|ᵀ|y| + n·η`` with ``γ_n = n·u/(1 − n·u)``;
- a nonnegative expression of k operations computed to nearest is at least its exact value times
  ``(1 − u)^k`` (less k·η for underflow), so multiplying the computed value by ``1 + 2(k + 1)u``, adding
  (k + 1)·η and stepping one float up (:func:`up`) gives an upper bound.

Transcendental functions (exp, log, sqrt, tanh, erf, sin, cos) are evaluated on each element by python-flint's
``arb``, rigorous by construction, and the result's ball is rounded outward back to float64: no accuracy of the
C library's ``exp`` is assumed.  A radius that overflows is ``inf`` (a ball that says nothing), never wrong.

>>> import numpy as np
>>> x = Ball.exact(np.array([[0.1, 0.2], [0.3, 0.4]]))
>>> y = x @ x
>>> exact = [[Fraction(0.1) * Fraction(0.1) + Fraction(0.2) * Fraction(0.3), None], [None, None]]
>>> bool(np.all(y.r > 0)), y[0, 0].contains_exact(exact[0][0])
(True, True)
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq

U = 2.0 ** -53
"""The unit roundoff of float64 (round to nearest)."""
ETA = 2.0 ** -1074
"""The smallest positive subnormal float64: the absolute error a rounding may make in the underflow range."""


def up(x) -> np.ndarray:
    """The next float64 above each entry (an upper bound of a value computed to nearest in one operation).

    >>> float(up(np.float64(1.0))) == 1.0 + 2.0 ** -52
    True
    """
    return np.nextafter(np.asarray(x, dtype=np.float64), np.inf)


def bound(v, ops: int) -> np.ndarray:
    """An upper bound of the exact value of a nonnegative expression of ``ops`` operations whose value computed
    to nearest is ``v`` (see the module).

    >>> float(bound(np.float64(1.0), 3)) > 1.0 + 8 * 2.0 ** -53
    True
    """
    k = ops + 1
    with np.errstate(over="ignore"):
        return up(np.asarray(v, dtype=np.float64) * (1.0 + 2.0 * k * U) + k * ETA)


def gamma(n: int) -> float:
    """γ_n = n·u/(1 − n·u), rounded up (n·u < 1/2).

    >>> gamma(1) > 2.0 ** -53
    True
    """
    if n * U >= 0.5:
        raise ValueError(f"a dot product of length {n} is beyond float64's a-priori bound")
    return float(up(n * U / np.nextafter(1.0 - n * U, 0.0)))   # n·u exact; the denominator rounded down


class Ball:
    """Float64 midpoints ``m`` and radii ``r`` (same shape): the arrays ``x`` with ``|x − m| ≤ r``."""

    __slots__ = ("m", "r")
    __array_priority__ = 100      # ndarray ∘ Ball goes to Ball's operator

    def __init__(self, m, r=None):
        self.m = np.asarray(m, dtype=np.float64)
        self.r = np.zeros_like(self.m) if r is None else np.broadcast_to(np.asarray(r, dtype=np.float64),
                                                                         self.m.shape).copy()
        self.r[np.isnan(self.r)] = np.inf     # a radius that could not be bounded says nothing

    # -- making and reading balls ----------------------------------------------------------------------------
    @classmethod
    def exact(cls, floats) -> Ball:
        """Balls of radius 0 around float64 values (which are exact numbers)."""
        return cls(np.asarray(floats, dtype=np.float64))

    @classmethod
    def of(cls, values) -> Ball:
        """Balls around exact numbers (Fractions, fmpq, ints, decimal strings as Fractions): the nearest float
        and a radius that covers its distance to the number.

        >>> b = Ball.of([Fraction(1, 3)])
        >>> bool(b.r[0] > 0), b.contains_exact([Fraction(1, 3)])
        (True, True)
        """
        flat = [Fraction(str(v)) if isinstance(v, fmpq) else Fraction(v) for v in np.ravel(np.asarray(values,
                                                                                                    dtype=object))]
        m = np.array([float(q) for q in flat], dtype=np.float64)
        r = np.array([0.0 if Fraction(float(q)) == q else float(up(abs(float(q)) * 2 * U + ETA)) for q in flat])
        shape = np.shape(np.asarray(values, dtype=object))
        return cls(m.reshape(shape), r.reshape(shape))

    @classmethod
    def from_arb(cls, values) -> Ball:
        """Balls enclosing arb balls (rounded outward to float64)."""
        vals = list(np.ravel(np.asarray(values, dtype=object)))
        m, r = zip(*(_arb_to_ball(v) for v in vals)) if vals else ((), ())
        shape = np.shape(np.asarray(values, dtype=object))
        return cls(np.array(m, dtype=np.float64).reshape(shape), np.array(r, dtype=np.float64).reshape(shape))

    def arbs(self) -> np.ndarray:
        """Each entry as an arb ball (exact: a float midpoint and a float radius)."""
        out = np.empty(self.m.shape, dtype=object)
        for idx in np.ndindex(self.m.shape):
            out[idx] = arb(float(self.m[idx]), float(self.r[idx])) if np.isfinite(self.r[idx]) else \
                arb(float(self.m[idx])).union(arb("nan"))
        return out

    def contains_exact(self, exact) -> bool:
        """Whether every exact number of ``exact`` (Fractions, ints, or floats taken as the exact numbers they
        are) lies in its ball: checked in exact rationals; a ball of infinite radius contains everything."""
        want = np.asarray(exact, dtype=object)
        for idx in np.ndindex(self.m.shape):
            q = want[idx]
            q = Fraction(q)
            if not np.isfinite(self.r[idx]):
                continue
            if abs(q - Fraction(float(self.m[idx]))) > Fraction(float(self.r[idx])):
                return False
        return True

    @property
    def shape(self) -> tuple:
        return self.m.shape

    @property
    def T(self) -> Ball:
        return Ball(self.m.T, self.r.T)

    def __getitem__(self, idx) -> Ball:
        return Ball(self.m[idx], self.r[idx])

    def __repr__(self) -> str:
        return f"Ball(m={self.m!r}, r={self.r!r})"

    def sign(self) -> np.ndarray:
        """+1 or −1 where the ball lies on one side of 0, else 0 (undecided: to be decided exactly elsewhere)."""
        return np.where(self.m - self.r > 0, 1, np.where(self.m + self.r < 0, -1, 0))

    # -- arithmetic --------------------------------------------------------------------------------------------
    def __neg__(self) -> Ball:
        return Ball(-self.m, self.r)

    def __add__(self, other) -> Ball:
        o = _ball(other)
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m + o.m
            return Ball(m, bound(self.r + o.r + U * np.abs(m), 3))

    __radd__ = __add__

    def __sub__(self, other) -> Ball:
        return self + (-_ball(other))

    def __rsub__(self, other) -> Ball:
        return _ball(other) + (-self)

    def __mul__(self, other) -> Ball:
        o = _ball(other)
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m * o.m
            # |ab − m_a m_b| ≤ |m_a| r_b + r_a (|m_b| + r_b); the product's own rounding ≤ u|m| + η
            r = np.abs(self.m) * o.r + self.r * (np.abs(o.m) + o.r) + U * np.abs(m) + ETA
            return Ball(m, bound(r, 6))

    __rmul__ = __mul__

    def __truediv__(self, other) -> Ball:
        o = _ball(other)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            low = np.nextafter(np.nextafter(np.abs(o.m) - o.r, -np.inf), -np.inf)   # ≤ |b| on the ball, twice down
            m = self.m / o.m
            # |a/b − m_a/m_b| = |(a − m_a) m_b − m_a (b − m_b)| / |b m_b| ≤ (r_a + |m_a/m_b| r_b) / |b|
            r = (self.r + np.abs(m) * (1 + 2 * U) * o.r) / np.where(low > 0, low, np.nan) + U * np.abs(m) + ETA
            r = np.where(low > 0, bound(r, 8), np.inf)
            return Ball(m, r)

    def __rtruediv__(self, other) -> Ball:
        return _ball(other) / self

    def __matmul__(self, other) -> Ball:
        """Rump's midpoint–radius product: the float product of the midpoints through BLAS, and a radius that
        holds for any summation order: γ_n |A||B| + n·η for the midpoints' rounding, and
        |A| r_B + r_A (|B| + r_B) for the radii, all rounded up.

        >>> a = Ball.exact(np.full((3, 3), 0.1))
        >>> (a @ a).contains_exact(np.full((3, 3), Fraction(3) * Fraction(0.1) ** 2))
        True
        """
        o = _ball(other)
        n = self.m.shape[-1]
        g = gamma(n)
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m @ o.m
            am, bm = np.abs(self.m), np.abs(o.m)
            mid_err = g * (am @ bm) + 3 * n * ETA        # and what the nonnegative products may underflow
            rad = am @ o.r + self.r @ (bm + o.r) if (self.r.any() or o.r.any()) else 0.0
            # each product of nonnegative arrays is itself a nonnegative dot product: computed to nearest it is
            # within γ_n of its value; the sums of the three terms add 4 operations
            r = bound((mid_err + rad) * (1 + 2 * g), 4 + 2)
            return Ball(m, r)

    def sum(self, axis=-1) -> Ball:
        """Σ along an axis (any order): γ_n Σ|m| + the radii's sum, rounded up."""
        n = self.m.shape[axis]
        g = gamma(max(n, 1))
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m.sum(axis=axis)
            r = np.abs(self.m).sum(axis=axis) * g + self.r.sum(axis=axis) * (1 + 2 * g) + n * ETA
            return Ball(m, bound(r, 4))

    # -- functions, through arb ------------------------------------------------------------------------------
    def apply(self, name: str) -> Ball:
        """An elementwise function by arb on each element's ball (``exp``, ``log``, ``sqrt``, ``tanh``,
        ``erf``, ``sin``, ``cos``), rounded outward to float64.

        >>> b = Ball.exact([0.0, 1.0]).apply("exp")
        >>> bool(b.m[0] == 1.0 and b.r[0] == 0.0), bool(abs(b.m[1] - 2.718281828459045) < 1e-15)
        (True, True)
        """
        fn = {"exp": arb.exp, "log": arb.log, "sqrt": arb.sqrt, "tanh": arb.tanh, "erf": arb.erf,
              "sin": arb.sin, "cos": arb.cos}[name]
        out_m, out_r = np.empty(self.m.shape), np.empty(self.m.shape)
        with ctx.workprec(80):     # the function's own error far below a float64 ulp
            for idx in np.ndindex(self.m.shape):
                if not np.isfinite(self.r[idx]) or not np.isfinite(self.m[idx]):
                    out_m[idx], out_r[idx] = self.m[idx], np.inf
                    continue
                out_m[idx], out_r[idx] = _arb_to_ball(fn(arb(float(self.m[idx]), float(self.r[idx]))))
        return Ball(out_m, out_r)

    def exp(self) -> Ball:
        return self.apply("exp")

    def log(self) -> Ball:
        return self.apply("log")

    def sqrt(self) -> Ball:
        return self.apply("sqrt")

    # -- what it certifies -------------------------------------------------------------------------------------
    def bits(self) -> np.ndarray:
        """Relative accuracy in bits of each entry: −log₂(r/|m|) (inf for an exact ball, 0 where it says nothing).

        >>> float(Ball([1.0], [2.0 ** -40]).bits()[0])
        40.0
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            b = -np.log2(self.r / np.abs(self.m))
        return np.where(self.r == 0, np.inf, np.where(np.isfinite(b), np.maximum(b, 0.0), 0.0))


def _ball(x) -> Ball:
    return x if isinstance(x, Ball) else Ball.exact(x)


def _arb_to_ball(v: arb) -> tuple[float, float]:
    """(m, r) floats with [m − r, m + r] ⊇ the arb ball ``v`` (r = inf when it is not finite)."""
    if not v.is_finite():
        return float("nan"), float("inf")
    try:
        m = float(v.mid())
    except OverflowError:
        return float("nan"), float("inf")
    if not np.isfinite(m):
        return m, float("inf")
    e = (v - arb(m)).abs_upper()       # exact: the farthest point of the ball from m
    if e.is_zero():
        return m, 0.0
    return m, float(up(float(e)))      # to nearest, then one float up: ≥ e
