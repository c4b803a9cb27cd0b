"""Double-word balls: a tensor as a midpoint ``hi + lo`` (two float64 arrays, about 106 bits) and a float64
radius, every operation enclosing its exact result: the second float tier, for when the float64 tier's ~53 bits
are used up by a deep model's worst-case error growth (issue 29).

A :class:`DWBall` ``(hi, lo, r)`` stands for every array ``x`` with ``|x − (hi + lo)| ≤ r`` entrywise.  The
worst case a rigorous radius must allow grows by the condition of each stage (about √n per matrix product, more
through a softmax's or a norm's adjoint), so a deep model's gradient loses 20 or more decimal digits to it.  In
float64 balls nothing is then left; with midpoints of 106 bits the same growth starts from u² ≈ 10⁻³², and 10 or
more digits survive.

The midpoints use error-free transformations (Knuth's TwoSum, Dekker's TwoProduct by Veltkamp splitting; numpy
has no fused multiply-add) and the double-word algorithms and error bounds of Joldes, Muller and Popescu, "Tight
and rigorous error bounds for basic building blocks of double-word arithmetic", ACM TOMS 44(2), 2017:

- ``AccurateDWPlusDW`` (their Algorithm 6): relative error ≤ 3u²/(1 − 4u) (Theorem 3.1); we take 4u²;
- ``DWTimesDW1`` (Algorithm 10): relative error ≤ 7u² (Theorem 5.3); we take 8u².

Division and the square root are a float step and one correction, their error bounded a posteriori from a
residual computed with the two bounds above.  Each bound assumes no underflow; every operation also adds an
absolute 16·η (η = 2⁻¹⁰⁷⁴), which covers the few roundings that may underflow in it.  Entries beyond ±2⁹⁹⁰
(where Veltkamp's split could overflow) get an infinite radius: a ball that says nothing, never a wrong one.

Matrix products split each factor into slices on a per-row (per-column) grid (Ozaki, Ogita, Oishi and Rump,
Numer. Algorithms 59, 2012), so that the products of slices at one level are exact in any summation order; what
the slices leave is at most 2^−(3β+1) of (a row's largest entry × a column's sum), β = ⌊(53 − ⌈log₂ 3n⌉)/2⌋
(2⁻⁶⁴ at n = 171), computed in float64 with the a-priori bound γ_n|X||Y| (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., §3.1); the low words' products (magnitude u) are computed to about one rounding
by the float64 tier's split product.  So a product is accurate to a few u² of (row maximum × column sum) of
|A| and |B|.

exp is argument reduction by ln 2 (ln 2 held in three words) and a degree-22 Taylor polynomial, all in these
balls (so each step's error is in the radius), plus the Taylor remainder.  log,
tanh, erf, sin and cos go through python-flint's arb element by element (rigorous, slower).

>>> x = DWBall.of([Fraction(1, 10), Fraction(1, 3)])
>>> y = (x * x + x) / x                          # = x + 1
>>> y.contains_exact([Fraction(11, 10), Fraction(4, 3)]), bool((y.r < 1e-30).all())
(True, True)
>>> y.contains_exact([Fraction(11, 10) + Fraction(1, 10 ** 28), Fraction(4, 3)])
False
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from .fball import ETA, Arrays, Ball, U, _split_product, bound, gamma, up
from .fball import significant as significant64
from .numeric import round_significant

__all__ = ["DWBall", "significant", "MAX_DIGITS"]

MAX_DIGITS = 28
"""The most significant digits a double-word ball is asked to certify (:func:`significant`)."""

U2 = U * U
_SPLITTER = 134217729.0          # 2^27 + 1: Veltkamp's split of a float64 into two 26-bit halves
_BIG = 2.0 ** 990                # beyond it the split may overflow: such an entry says nothing
_TINY = 16 * ETA                 # the underflow an operation may add (see the module)


# -- error-free transformations (exact barring overflow; underflow covered by _TINY) ----------------------------
def two_sum(a, b):
    """s + e = a + b exactly, s = fl(a + b) (Knuth).

    >>> two_sum(np.float64(1.0), np.float64(2.0 ** -60))
    (np.float64(1.0), np.float64(8.673617379884035e-19))
    """
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a, b):
    """s + e = a + b exactly when |a| ≥ |b| or a = 0 (Dekker)."""
    s = a + b
    return s, b - (s - a)


def _veltkamp(a):
    c = _SPLITTER * a
    h = c - (c - a)
    return h, a - h


def two_prod(a, b):
    """p + e = a·b exactly, p = fl(a·b) (Dekker's TwoProduct).

    >>> p, e = two_prod(np.float64(0.1), np.float64(0.1))
    >>> Fraction(p) + Fraction(e) == Fraction(0.1) ** 2
    True
    """
    p = a * b
    ah, al = _veltkamp(a)
    bh, bl = _veltkamp(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


# -- double-word arithmetic on midpoints: (hi, lo) pairs, returning the result and an error bound -----------------
def _dw_add(xh, xl, yh, yl):
    """AccurateDWPlusDW; returns (zh, zl, err) with |z − (x + y)| ≤ err."""
    sh, sl = two_sum(xh, yh)
    th, tl = two_sum(xl, yl)
    vh, vl = fast_two_sum(sh, sl + th)
    zh, zl = fast_two_sum(vh, tl + vl)
    return zh, zl, 4 * U2 * np.abs(zh) + _TINY


def _dw_mul(xh, xl, yh, yl):
    """DWTimesDW1; returns (zh, zl, err) with |z − x·y| ≤ err."""
    ch, cl1 = two_prod(xh, yh)
    cl3 = cl1 + (xh * yl + xl * yh)
    zh, zl = fast_two_sum(ch, cl3)
    return zh, zl, 8 * U2 * np.abs(zh) * (1 + 4 * U) + _TINY


def _finite(*arrays):
    ok = True
    for a in arrays:
        ok = ok & np.isfinite(a) & (np.abs(a) < _BIG)
    return ok


class DWBall(Arrays):
    """Double-word midpoints ``hi + lo`` and float64 radii ``r`` (same shape): the arrays ``x`` with
    ``|x − (hi + lo)| ≤ r``.  ``signs``, when set, holds each entry's sign decided elsewhere (exactly).

    >>> b = DWBall.of([Fraction(2, 3)])
    >>> b.contains_exact([Fraction(2, 3)]), bool(b.r[0] < 1e-32)
    (True, True)
    """

    __slots__ = ("hi", "lo", "r", "signs")
    FIELDS = ("hi", "lo", "r")

    def __init__(self, hi, lo=None, r=None):
        self.hi = np.asarray(hi, dtype=np.float64)
        self.lo = np.zeros_like(self.hi) if lo is None else np.broadcast_to(np.asarray(lo, dtype=np.float64),
                                                                            self.hi.shape).copy()
        self.r = np.zeros_like(self.hi) if r is None else np.broadcast_to(np.asarray(r, dtype=np.float64),
                                                                          self.hi.shape).copy()
        self.r[np.isnan(self.r)] = np.inf
        self.signs = None

    # -- making and reading --------------------------------------------------------------------------------------
    @classmethod
    def exact(cls, floats) -> DWBall:
        """Radius-0 balls around float64 values."""
        return cls(np.asarray(floats, dtype=np.float64))

    @classmethod
    def of(cls, values) -> DWBall:
        """Balls around exact numbers (Fractions, ints, fmpq, SymPy Rationals): hi the nearest float, lo the
        nearest float to the rest, r the distance left (0 when hi + lo is the number).

        >>> DWBall.of([Fraction(1, 4)]).r[0], DWBall.of([Fraction(1, 10)]).contains_exact([Fraction(1, 10)])
        (np.float64(0.0), True)
        """
        arr = np.asarray(values, dtype=object)
        flat = [Fraction(str(v)) if not isinstance(v, (int, Fraction, float)) else Fraction(v) for v in arr.ravel()]
        hi, lo, r = [], [], []
        for q in flat:
            h = float(q)
            rest = q - Fraction(h)
            low = float(rest)
            left = abs(rest - Fraction(low))
            hi.append(h)
            lo.append(low)
            r.append(0.0 if left == 0 else float(up(float(left))))
        shape = arr.shape
        return cls(np.array(hi).reshape(shape), np.array(lo).reshape(shape), np.array(r).reshape(shape))

    @classmethod
    def from_arb(cls, values) -> DWBall:
        """Balls enclosing arb balls (midpoint to two words, radius rounded up)."""
        arr = np.asarray(values, dtype=object)
        out = [_arb_to_dw(v) for v in arr.ravel()]
        hi, lo, r = (np.array([o[i] for o in out], dtype=np.float64).reshape(arr.shape) for i in range(3))
        return cls(hi, lo, r)

    @classmethod
    def from_ball(cls, b: Ball) -> DWBall:
        """A float64 ball as a double-word ball (the same set)."""
        return cls(b.m, None, b.r)

    def to_ball(self) -> Ball:
        """The smallest float64 ball this code makes around it: fl(hi + lo), the rounding added to the radius."""
        m = self.hi + self.lo
        with np.errstate(over="ignore"):
            return Ball(m, np.where((self.r == 0) & (self.lo == 0), 0.0, bound(self.r + U * np.abs(m), 2)))

    def arbs(self) -> np.ndarray:
        """Each entry as an arb ball (exact: hi + lo ± r)."""
        out = np.empty(self.hi.shape, dtype=object)
        with ctx.workprec(256):                  # hi + lo ± r exactly (a 256-bit sum of two floats is exact)
            for idx in np.ndindex(self.hi.shape):
                m = arb(float(self.hi[idx])) + arb(float(self.lo[idx]))
                out[idx] = m + arb(0, float(self.r[idx])) if np.isfinite(self.r[idx]) else m.union(arb("nan"))
        return out

    def contains_exact(self, exact) -> bool:
        """Whether every exact number of ``exact`` (Fractions, ints, floats as exact numbers) lies in its ball."""
        want = np.asarray(exact, dtype=object)
        for idx in np.ndindex(self.hi.shape):
            if not np.isfinite(self.r[idx]):
                continue
            mid = Fraction(float(self.hi[idx])) + Fraction(float(self.lo[idx]))
            if abs(Fraction(want[idx]) - mid) > Fraction(float(self.r[idx])):
                return False
        return True

    @classmethod
    def coerce(cls, x) -> DWBall:
        return _dw(x)

    @property
    def m(self) -> np.ndarray:
        """The midpoint rounded to one float64 (for what needs only its size: a shift, a sign)."""
        return self.hi + self.lo

    def _zero(self) -> np.ndarray:
        return (self.hi == 0) & (self.lo == 0) & (self.r == 0)

    def sign(self) -> np.ndarray:
        """+1 or −1 where the ball lies on one side of 0, else 0.  (hi carries the sign of hi + lo unless hi = 0;
        the ball's ends are compared through |hi| − |lo| − r rounded down.)"""
        with np.errstate(invalid="ignore", over="ignore"):
            low = np.nextafter(np.nextafter(np.abs(self.hi) - np.abs(self.lo), -np.inf) - self.r, -np.inf)
        side = np.where(low > 0, np.sign(self.hi), 0)
        return np.where(self._zero(), 0, side).astype(int)

    def shift(self) -> DWBall:
        """An exact per-row constant near each row's largest midpoint: what a softmax subtracts before exp."""
        return DWBall(Ball(self.hi).shift().m)

    # -- arithmetic ------------------------------------------------------------------------------------------------
    def __neg__(self) -> DWBall:
        return DWBall(-self.hi, -self.lo, self.r)

    def __add__(self, other) -> DWBall:
        o = _dw(other)
        with np.errstate(over="ignore", invalid="ignore"):
            hi, lo, err = _dw_add(self.hi, self.lo, o.hi, o.lo)
            r = bound(self.r + o.r + err, 3)
            r = np.where(self._zero() & o._zero(), 0.0, r)
            inf = (np.isinf(self.hi) & (self.r == 0) & np.isfinite(o.hi) & np.isfinite(o.r)) | \
                  (np.isinf(o.hi) & (o.r == 0) & np.isfinite(self.hi) & np.isfinite(self.r))
            if inf.any():           # an exact ±∞ (a masked score) plus a finite ball is that ±∞
                hi = np.where(inf, self.hi + o.hi, hi)
                lo, r = np.where(inf, 0.0, lo), np.where(inf, 0.0, r)
            return DWBall(hi, lo, np.where(_finite(self.hi, o.hi) | inf, r, np.inf))

    __radd__ = __add__

    def __sub__(self, other) -> DWBall:
        return self + (-_dw(other))

    def __rsub__(self, other) -> DWBall:
        return _dw(other) + (-self)

    def __mul__(self, other) -> DWBall:
        o = _dw(other)
        with np.errstate(over="ignore", invalid="ignore"):
            hi, lo, err = _dw_mul(self.hi, self.lo, o.hi, o.lo)
            # |xy − m_x m_y| ≤ |m_x| r_y + r_x (|m_y| + r_y), |m| ≤ (|hi| + |lo|)
            ax, ay = np.abs(self.hi) + np.abs(self.lo), np.abs(o.hi) + np.abs(o.lo)
            r = bound(ax * o.r + self.r * (ay + o.r) + err, 7)
            r = np.where(_finite(self.hi, o.hi), r, np.inf)
            zero = self._zero() | o._zero()     # × an exact 0 is exactly 0 (whatever the other factor's midpoint)
            return DWBall(np.where(zero, 0.0, hi), np.where(zero, 0.0, lo), np.where(zero, 0.0, r))

    __rmul__ = __mul__

    def __pow__(self, k: int) -> DWBall:
        if k != 2:
            return NotImplemented
        return self * self

    def __truediv__(self, other) -> DWBall:
        """x/y: q = x_h/y_h, one correction, then |x/y − z| = |x − z·y|/|y| with the residual x − z·y computed in
        double words and its error bounded; the balls' radii add (r_x + |z| r_y)/|y| (|y| at its lowest)."""
        o = _dw(other)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            q1 = self.hi / o.hi
            ph, pl, _ = _dw_mul(o.hi, o.lo, q1, 0.0)
            rh, _, _ = _dw_add(self.hi, self.lo, -ph, -pl)
            zh, zl = fast_two_sum(q1, rh / o.hi)
            eh, el, e1 = _dw_mul(o.hi, o.lo, zh, zl)
            dh, dl, e2 = _dw_add(self.hi, self.lo, -eh, -el)
            residual = np.abs(dh) + np.abs(dl) + e1 + e2                  # ≥ |x − z·y| for the midpoints
            ay = np.nextafter(np.abs(o.hi) - np.abs(o.lo), -np.inf) - o.r        # each step rounded down
            low = np.nextafter(np.nextafter(ay, -np.inf) * (1 - 4 * U), -np.inf)   # ≤ |y| on the ball
            low_ = np.where(low > 0, low, np.nan)
            az = (np.abs(zh) + np.abs(zl)) * (1 + 2 * U) + residual * (1 + 2 * U) / low_    # ≥ |m_x/m_y|
            r = (self.r + az * (1 + 2 * U) * o.r + residual * (1 + 2 * U)) / low_
            r = np.where((low > 0) & _finite(self.hi, o.hi, zh), bound(r, 8), np.inf)
            zero = self._zero() & (low > 0)
            return DWBall(np.where(zero, 0.0, zh), np.where(zero, 0.0, zl), np.where(zero, 0.0, r))

    def __rtruediv__(self, other) -> DWBall:
        return _dw(other) / self

    def __matmul__(self, other) -> DWBall:
        """The double-word product (see the module): exact slice products summed in double words, the rest in
        float64 with γ_n bounds, and Rump's |A| r_B + r_A (|B| + r_B) for the radii.

        >>> a = DWBall.of([[Fraction(1, 10), Fraction(2, 10)], [Fraction(3, 10), Fraction(4, 10)]])
        >>> c = a @ a
        >>> c.contains_exact([[Fraction(7, 100), Fraction(10, 100)], [Fraction(15, 100), Fraction(22, 100)]])
        True
        >>> bool((c.r < 1e-31).all())
        True
        """
        o = _dw(other)
        a, b = self, o
        vec_a, vec_b = a.ndim == 1, b.ndim == 1
        if vec_a:
            a = a[None, :]
        if vec_b:
            b = DWBall(b.hi[:, None], b.lo[:, None], b.r[:, None])
        if a.ndim != 2 or b.ndim != 2:
            raise TypeError("a ball product of matrices and vectors only")
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            hi, lo, err = _dw_matmul(a.hi, a.lo, b.hi, b.lo)
            Am, Bm = np.abs(a.hi) + np.abs(a.lo), np.abs(b.hi) + np.abs(b.lo)
            n = a.shape[1]
            g = gamma(max(n, 1))
            rad = (Am @ b.r + a.r @ (Bm + b.r)) * (1 + 2 * g) if (a.r.any() or b.r.any()) else 0.0
            r = bound(err + rad, 4)
            ok = _finite(a.hi).all(axis=1)[:, None] & _finite(b.hi).all(axis=0)[None, :]
            r = np.where(ok, r, np.inf)
            zero = a._zero().all(axis=1)[:, None] | b._zero().all(axis=0)[None, :]
            hi, lo, r = np.where(zero, 0.0, hi), np.where(zero, 0.0, lo), np.where(zero, 0.0, r)
        if vec_a:
            hi, lo, r = hi[0], lo[0], r[0]
        if vec_b:
            hi, lo, r = hi[..., 0], lo[..., 0], r[..., 0]
        return DWBall(hi, lo, r)

    def sum(self, axis=-1) -> DWBall:
        """Σ along an axis, pairwise in double words: each of the ⌈log₂ n⌉ levels adds at most 4u² of the sum of
        the |terms| (Joldes et al.'s bound per addition), and the radii add.

        >>> DWBall.of([Fraction(1, 10)] * 10).sum(axis=0).contains_exact(1)
        True
        """
        hi, lo = np.moveaxis(self.hi, axis, -1), np.moveaxis(self.lo, axis, -1)
        n = hi.shape[-1]
        mag = (np.abs(hi) + np.abs(lo)).sum(axis=-1)
        levels = 0
        while hi.shape[-1] > 1:
            if hi.shape[-1] % 2:
                pad = [(0, 0)] * (hi.ndim - 1) + [(0, 1)]
                hi, lo = np.pad(hi, pad), np.pad(lo, pad)
            hi, lo, _ = _dw_add(hi[..., 0::2], lo[..., 0::2], hi[..., 1::2], lo[..., 1::2])
            levels += 1
        hi, lo = (hi[..., 0], lo[..., 0]) if n else (np.zeros(mag.shape), np.zeros(mag.shape))
        rs = np.moveaxis(self.r, axis, -1).sum(axis=-1)
        with np.errstate(over="ignore", invalid="ignore"):
            r = bound((rs + 4 * U2 * levels * mag * (1 + 2 * gamma(max(n, 1)))) * (1 + 2 * gamma(max(n, 1)))
                      + levels * _TINY, 4)
            r = np.where(self._zero().all(axis=axis), 0.0, r)
            r = np.where(_finite(self.hi).all(axis=axis), r, np.inf)
        return DWBall(hi, lo, r)

    # -- functions -------------------------------------------------------------------------------------------------
    def apply(self, name: str) -> DWBall:
        """An elementwise function by arb at 128 bits on each element's ball (``log``, ``tanh``, ``erf``, ``sin``,
        ``cos``, ``exp``, ``sqrt``), rounded outward to double words.

        >>> b = DWBall.of([Fraction(1, 2)]).apply("log")
        >>> bool(abs(float(b.hi[0]) + 0.6931471805599453) < 1e-16), bool(b.r[0] < 1e-31)
        (True, True)
        """
        fn = {"exp": arb.exp, "log": arb.log, "sqrt": arb.sqrt, "tanh": arb.tanh, "erf": arb.erf,
              "sin": arb.sin, "cos": arb.cos}[name]
        out = np.empty(self.hi.shape, dtype=object)
        with ctx.workprec(128):
            for idx, x in zip(np.ndindex(self.hi.shape), self.arbs().ravel()):
                out[idx] = fn(x)
        return DWBall.from_arb(out)

    def log(self) -> DWBall:
        return self.apply("log")

    def exp(self) -> DWBall:
        """e^x, vectorised, in these balls (see the module): k = round(x/ln 2), t = x − k ln 2 with |t| < 0.347,
        e^t by its degree-22 Taylor polynomial by Horner's rule (remainder ≤ |t|²³/23!·e^|t| < 1.5·10⁻³³; each step
        multiplies the error so far by |t| < 0.35, so about 20u² in all), times 2^k.  An exact −∞ gives an exact
        0; an argument below −700 the ball (0, 10⁻³⁰⁴); one above 700 says nothing.

        >>> e = DWBall.of([1]).exp()
        >>> bool(abs(float(e.hi[0]) - 2.718281828459045) < 1e-15), bool(e.r[0] < 1e-30)
        (True, True)
        """
        hi, lo, r = self.hi, self.lo, self.r
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            ok = _finite(hi, r) & (hi + r < 700.0) & (hi - r > -700.0) & (r <= 1.0)
            h = np.where(ok, hi, 0.0)
            k = np.rint(h * (1 / math.log(2)))
            x = DWBall(h, np.where(ok, lo, 0.0))
            t = x - DWBall(k * _LN2[0]) - DWBall(k * _LN2[1]) - DWBall(k) * _LN2_REST   # k·ln2₀, k·ln2₁ exact
            ok &= np.abs(t.hi) + t.r < 0.347
            p = _INV_FACT[_DEGREE]
            for c in _INV_FACT[_DEGREE - 1::-1]:
                p = p * t + c
            p = DWBall(p.hi, p.lo, bound(p.r + _TAYLOR_REST, 1))
            ki = k.astype(np.int64)
            mh, ml = np.ldexp(p.hi, ki), np.ldexp(p.lo, ki)
            top = np.ldexp(bound(np.abs(p.hi) + np.abs(p.lo) + p.r, 2), ki)
            rad = bound(np.ldexp(p.r, ki) + top * r * (1 + r) + 4 * ETA, 4)
            rad = np.where(ok, rad, np.inf)
            zero = np.isneginf(hi) & (r == 0)
            tiny = np.isfinite(hi) & np.isfinite(r) & (hi + r <= -700.0)     # in [0, e^−700]: the ball (0, 1e−304)
            mh, ml = np.where(ok, mh, np.nan), np.where(ok, ml, 0.0)
            return DWBall(np.where(zero | tiny, 0.0, mh), np.where(zero | tiny, 0.0, ml),
                          np.where(zero, 0.0, np.where(tiny, _EXP_M700, rad)))

    def sqrt(self) -> DWBall:
        """√x: s = √x_h (IEEE's correctly rounded root), one correction z = s + (x − s²)/(2s), and
        |√x − z| = |x − z²|/(√x + z) with the residual computed in double words; a ball of radius r adds
        r/(√(x − r) + √x) ≤ r/√(x − r).  A ball reaching below 0 says nothing.

        >>> s = DWBall.of([2]).sqrt()
        >>> bool(abs(float(s.hi[0]) - 1.4142135623730951) < 1e-16), bool(s.r[0] < 1e-31)
        (True, True)
        """
        hi, lo, r = self.hi, self.lo, self.r
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            low = np.nextafter(np.nextafter(hi - np.abs(lo), -np.inf) - r, -np.inf)      # ≤ x on the ball
            s = np.sqrt(np.maximum(hi, 0.0))
            ph, pl = two_prod(s, s)
            dh, _, _ = _dw_add(hi, lo, -ph, -pl)
            zh, zl = fast_two_sum(s, np.where(s > 0, dh / (2 * s), 0.0))
            qh, ql, e1 = _dw_mul(zh, zl, zh, zl)
            eh, el, e2 = _dw_add(hi, lo, -qh, -ql)
            residual = np.abs(eh) + np.abs(el) + e1 + e2
            root_low = np.nextafter(np.sqrt(np.maximum(low, 0.0)), -np.inf) * (1 - 2 * U)   # ≤ √(x − r)
            z_low = np.nextafter(np.abs(zh) - np.abs(zl), -np.inf) * (1 - 2 * U)              # ≤ z
            denom = np.nextafter(root_low + z_low, -np.inf)
            rad = residual * (1 + 2 * U) / denom + r * (1 + 2 * U) / root_low
            rad = np.where((low > 0) & _finite(hi), bound(rad, 6), np.inf)
            zero = (hi == 0) & (lo == 0) & (r == 0)
            return DWBall(np.where(zero, 0.0, zh), np.where(zero, 0.0, zl), np.where(zero, 0.0, rad))

    def bits(self) -> np.ndarray:
        """Relative accuracy in bits of each entry: −log₂(r/|m|) (inf for an exact ball, 0 where it says
        nothing)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            b = -np.log2(self.r / np.abs(self.hi))
        return np.where(self.r == 0, np.inf, np.where(np.isfinite(b), np.maximum(b, 0.0), 0.0))


def _dw(x) -> DWBall:
    if isinstance(x, DWBall):
        return x
    if isinstance(x, Ball):
        return DWBall.from_ball(x)
    return DWBall.exact(x)


# -- the matrix product -----------------------------------------------------------------------------------------
_LEVELS = 3


def _slices(X: np.ndarray, axis: int, beta: int):
    """X = X₀ + X₁ + X₂ + R exactly: X_i on the grid 2^(e − (i + 1)β) of each row (axis 1) or column (axis 0),
    |X_i| ≤ 2^(e − iβ), the remainder after k slices ≤ 2^(e − kβ − 1); 2^e > the row's largest |x|.  Returns
    ([X₀, X₁, X₂], [the remainders after 1, 2, 3 slices], e)."""
    mu = np.abs(X).max(axis=axis, keepdims=True)
    e = np.frexp(mu)[1]
    out, rests, rest = [], [], X
    for i in range(_LEVELS):
        sigma = np.ldexp(1.5, e - (i + 1) * beta + 52)
        S = (rest + sigma) - sigma
        out.append(S)
        rest = rest - S                      # exact (the extraction's remainder)
        rests.append(rest)
    return out, rests, e


def _dw_matmul(Ah, Al, Bh, Bl):
    """(hi, lo, err): hi + lo within err of (Ah + Al)(Bh + Bl), entrywise.

    Level ℓ = i + j < 3 of the slices is one exact product (its terms on one grid, 2β + ⌈log₂ 3n⌉ ≤ 53 so no
    sum rounds); the rest, A_i·R_B(3 − i) (R_B(k) what B's first k slices leave) and R_A·B_h, is at most
    2^−(3β+1) of a row's scale times a column's sum, computed in float64 with γ_n bounds through row maxima and
    column sums; the low words' products
    A_l·B_h and A_h·B_l by the float64 tier's split product (:func:`symgpt.core.fball._split_product`, about one
    rounding); A_l·B_l (about u²) is bounded, not computed."""
    m, n = Ah.shape
    p = Bh.shape[1]
    beta = (53 - (3 * max(n, 1) - 1).bit_length()) // 2
    if not (np.isfinite(Ah).all() and np.isfinite(Bh).all()) or n == 0 or \
            np.abs(Ah).max(initial=0) >= _BIG or np.abs(Bh).max(initial=0) >= _BIG:
        hi = Ah @ Bh
        return hi, np.zeros_like(hi), np.full(hi.shape, np.inf)
    A, RAs, e = _slices(Ah, 1, beta)            # e: (m, 1)
    B, RBs, f = _slices(Bh, 0, beta)            # f: (1, p)
    rows, cols = (Ah != 0).any(axis=1, keepdims=True), (Bh != 0).any(axis=0, keepdims=True)   # zero: exact 0
    if rows.any() and cols.any() and e[rows].min() + f[cols].min() - 5 * beta < -960:
        hi = Ah @ Bh                            # a grid below the normal range: the slices' products could underflow
        g = gamma(n)
        low = np.abs(Al) @ np.abs(Bh) + np.abs(Ah) @ np.abs(Bl) + np.abs(Al) @ np.abs(Bl)
        return hi, np.zeros_like(hi), bound(g * (np.abs(Ah) @ np.abs(Bh)) + 4 * n * ETA + bound(low, n + 4), 3)
    levels = [np.concatenate(A[:k + 1], axis=1) @ np.concatenate(B[k::-1], axis=0) for k in range(_LEVELS)]
    g = gamma(max(n, 1))
    cs = [np.abs(RBs[k]).sum(axis=0, keepdims=True) for k in range(_LEVELS)] + [np.abs(Bh).sum(axis=0, keepdims=True)]
    # the slices' tails and A's rest: Σ_k |x||y| ≤ (x's largest in its row) · Σ_k |y| (column sums, bounded up)
    tails = [A[i] @ RBs[2 - i] for i in range(_LEVELS)] + [RAs[2] @ Bh]
    rowmax = [np.abs(X).max(axis=1, keepdims=True) for X in A + [RAs[2]]]      # each slice's largest, per row
    mag = sum(rowmax[i] * cs[2 - i] for i in range(_LEVELS)) + rowmax[3] * cs[3]
    mag = bound(mag, n + 8)
    err_t = g * mag
    # the low words' products, each to about one rounding (the float64 tier's split product)
    for X, Y in ((Al, Bh), (Ah, Bl)):
        if not X.any() or not Y.any():
            continue
        split = _split_product(X, Y, n, g)
        if split is None:
            prod = X @ Y
            e_p = g * (np.abs(X).max(axis=1, keepdims=True) * np.abs(Y).sum(axis=0, keepdims=True)) + 3 * n * ETA
        else:
            prod, e_p = split
        tails.append(prod)
        mag = mag + np.abs(prod) + e_p
        err_t = err_t + e_p
    if Al.any() and Bl.any():                   # |Al||Bl|: about u² of |A||B|, bounded, not computed
        ll = np.abs(Al).max(axis=1, keepdims=True) * np.abs(Bl).sum(axis=0, keepdims=True)
        mag, err_t = mag + ll, err_t + ll
    t = sum(tails[1:], tails[0])                # at most 5 additions, each within u of its partial sum
    t_err = bound(err_t + 6 * U * mag, 12) + 8 * n * ETA
    hi, lo = levels[2], np.zeros((m, p))
    err = np.zeros((m, p))
    for L in (levels[1], levels[0]):
        hi, lo, e_add = _dw_add(L, np.zeros_like(L), hi, lo)
        err = err + e_add
    hi, lo, e_add = _dw_add(hi, lo, t, np.zeros_like(t))
    err = bound(err + e_add + t_err, 4)
    return hi, lo, err


# -- constants --------------------------------------------------------------------------------------------------
def _arb_to_dw(v: arb) -> tuple[float, float, float]:
    """(hi, lo, r) with hi + lo ± r ⊇ the arb ball ``v`` (r = inf when it is not finite)."""
    if not v.is_finite():
        return float("nan"), 0.0, float("inf")
    with ctx.workprec(256):
        mid = v.mid()
        try:
            hi = float(mid)
        except OverflowError:
            return float("nan"), 0.0, float("inf")
        if not math.isfinite(hi):
            return hi, 0.0, float("inf")
        lo = float(mid - arb(hi))
        e = (v - arb(hi) - arb(lo)).abs_upper()      # exact at 256 bits: the farthest point from hi + lo
    if e.is_zero():
        return hi, lo, 0.0
    return hi, lo, float(up(float(e)))


def _ln2_words() -> tuple:
    """ln 2 = w₀ + w₁ + rest: w₀, w₁ with 32 bits each (k·w exact for |k| < 2²¹), rest a double-word ball."""
    with ctx.workprec(300):
        ln2 = arb.log(arb(2))
        w0 = math.ldexp(math.floor(math.ldexp(float(ln2.mid()), 32)), -32)
        rest = ln2 - arb(w0)
        e1 = math.frexp(float(rest.mid()))[1]
        w1 = math.ldexp(math.floor(math.ldexp(float(rest.mid()), 32 - e1)), e1 - 32)
        return w0, w1, DWBall.from_arb(np.array([rest - arb(w1)], dtype=object)).reshape(())


_LN2 = _ln2_words()
_LN2_REST = _LN2[2]
with ctx.workprec(256):
    _INV_FACT = [DWBall.from_arb(np.array([arb(1) / arb(math.factorial(i))], dtype=object)).reshape(())
                 for i in range(23)]
_DEGREE = 22
_TAYLOR_REST = float(up(0.347 ** 23 / math.factorial(23) * math.exp(0.347) * 1.01))
_EXP_M700 = 1e-304                    # > e^−700 ≈ 9.86e−305


# -- what it certifies ------------------------------------------------------------------------------------------
def significant(b: DWBall, n: int) -> list:
    """Each entry's decimal string to ``n`` significant digits (half away from 0), or None where the ball does not
    certify them: up to 13 digits through :func:`symgpt.core.fball.significant` on the float64 ball around it,
    beyond through arb on each entry.

    >>> significant(DWBall.of([Fraction(2, 3)]), 25)
    ['0.6666666666666666666666667']
    """
    if n <= 13:
        return significant64(b.to_ball(), n)
    if n > MAX_DIGITS:
        return [None] * b.size
    finite = np.isfinite(b.r.ravel()) & np.isfinite(b.hi.ravel())
    return [round_significant(x, n) if ok else None for x, ok in zip(b.arbs().ravel(), finite)]
