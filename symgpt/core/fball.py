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

Functions.  ``exp`` is vectorised and bounds its own error (:meth:`Ball.exp`: argument reduction by ln 2 in ball
arithmetic, a Taylor polynomial by Horner's rule with Higham's bound γ_2N·Σ|a_i||x|^i, §5.1, eq. 5.3, and the
Taylor remainder), so no accuracy of the C library's ``exp`` is assumed.  ``sqrt`` relies on IEEE 754's
correctly rounded square root (IEEE 754-2019 §5.4.1; numpy's ``sqrt`` is the hardware instruction) and rounds each
end of the ball outward.  The others (log, tanh, erf, sin, cos) are evaluated on each element by python-flint's
``arb``, rigorous by construction, and the result's ball is rounded outward back to float64.  A radius that
overflows is ``inf`` (a ball that says nothing), never wrong.

Comparisons (``x > 0``) are decided per entry when the ball lies on one side; an entry that straddles the value
raises :class:`Undecided` unless its sign was decided elsewhere (``signs``, set by the caller from an exact
decision).

>>> import numpy as np
>>> x = Ball.exact(np.array([[0.1, 0.2], [0.3, 0.4]]))
>>> y = x @ x
>>> exact = [[Fraction(0.1) * Fraction(0.1) + Fraction(0.2) * Fraction(0.3), None], [None, None]]
>>> bool(np.all(y.r > 0)), y[0, 0].contains_exact(exact[0][0])
(True, True)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq

from .numeric import _format_significant

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


class Undecided(ArithmeticError):
    """A comparison a ball cannot decide: some entry's ball holds the value it is compared with."""


class Arrays:
    """What a ball made of several float64 arrays of one shape (``FIELDS``, its constructor's arguments in
    order) does with its shape and its comparisons, whatever its arithmetic: indexing, transposing, reshaping,
    the array functions an op's float model uses (joining, choosing, broadcasting), and decided comparisons
    through the subclass's ``sign`` and ``_zero``.

    >>> b = Ball([[1.0, -2.0]], [[0.5, 0.0]])
    >>> b.T.shape, b[0, 1].m.item(), (b > 0).tolist()
    ((2, 1), -2.0, [[True, False]])
    """

    __slots__ = ()
    FIELDS: tuple = ()
    __array_priority__ = 100      # ndarray ∘ ball goes to the ball's operator
    __array_ufunc__ = None        # numpy's operators defer to the ball's (np.float64(2) * ball is __rmul__)

    @classmethod
    def coerce(cls, x):
        """x as a ball of this kind (a float array: exact)."""
        raise NotImplementedError

    def _map(self, f):
        return type(self)(*(f(getattr(self, k)) for k in self.FIELDS))

    @property
    def shape(self) -> tuple:
        return getattr(self, self.FIELDS[0]).shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return getattr(self, self.FIELDS[0]).size

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def T(self):
        return self._map(lambda a: a.T)

    def __getitem__(self, idx):
        return self._map(lambda a: a[idx])

    def __setitem__(self, idx, value) -> None:
        v = self.coerce(value)
        for k in self.FIELDS:
            getattr(self, k)[idx] = getattr(v, k)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.FIELDS) + ")"

    def copy(self):
        return self._map(np.copy)

    def reshape(self, *shape):
        return self._map(lambda a: a.reshape(*shape))

    def __array_function__(self, func, types, args, kwargs):
        """The array functions an op's float model uses on its tensors (joining, choosing, broadcasting),
        applied to every field alike; any other refuses (TypeError)."""
        fields = self.FIELDS
        if func is np.where:
            cond, a, b = args
            a, b = self.coerce(a), self.coerce(b)
            return type(self)(*(np.where(cond, getattr(a, k), getattr(b, k)) for k in fields))
        if func in (np.concatenate, np.stack):
            parts = [self.coerce(x) for x in args[0]]
            return type(self)(*(func([getattr(x, k) for x in parts], *args[1:], **kwargs) for k in fields))
        if func in (np.broadcast_to, np.ravel, np.transpose, np.reshape):
            return type(self)(*(func(getattr(args[0], k), *args[1:], **kwargs) for k in fields))
        if func in (np.shape, np.ndim, np.size):
            return func(getattr(args[0], fields[0]))
        return NotImplemented

    def compare(self, other) -> np.ndarray:
        """sign(x − other) entrywise, decided: an exact 0 is 0; an entry whose ball holds ``other`` raises
        :class:`Undecided`, unless ``signs`` holds its decided sign (comparisons with 0).

        >>> Ball([1.0, 0.0, -2.0], [0.5, 0.0, 1.0]).compare(0).tolist()
        [1, 0, -1]
        """
        if self.signs is not None and np.isscalar(other) and other == 0:
            return self.signs
        d = self - other if not (np.isscalar(other) and other == 0) else self
        s = d.sign()
        open_ = (s == 0) & ~d._zero()
        if open_.any():
            raise Undecided(f"{int(open_.sum())} entries of a comparison lie within their ball's radius of it")
        return s

    def __gt__(self, other):
        return self.compare(other) > 0

    def __lt__(self, other):
        return self.compare(other) < 0

    def __ge__(self, other):
        return self.compare(other) >= 0

    def __le__(self, other):
        return self.compare(other) <= 0


class Ball(Arrays):
    """Float64 midpoints ``m`` and radii ``r`` (same shape): the arrays ``x`` with ``|x − m| ≤ r``.

    ``signs``, when set, holds each entry's sign decided elsewhere (exactly): comparisons with 0 read it.
    """

    __slots__ = ("m", "r", "signs")
    FIELDS = ("m", "r")

    def __init__(self, m, r=None):
        self.m = np.asarray(m, dtype=np.float64)
        self.r = np.zeros_like(self.m) if r is None else np.broadcast_to(np.asarray(r, dtype=np.float64),
                                                                         self.m.shape).copy()
        self.r[np.isnan(self.r)] = np.inf     # a radius that could not be bounded says nothing
        self.signs = None

    # -- making and reading balls ----------------------------------------------------------------------------
    @classmethod
    def coerce(cls, x) -> Ball:
        return _ball(x)

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

    def _zero(self) -> np.ndarray:
        """Where the ball is exactly 0 (midpoint and radius 0)."""
        return (self.m == 0) & (self.r == 0)

    def sign(self) -> np.ndarray:
        """+1 or −1 where the ball lies on one side of 0, else 0 (undecided: to be decided exactly elsewhere).

        (m − r and m + r are computed to nearest: each is within half an ulp of the exact end, and a difference
        rounds to 0 exactly when the two are equal, so a strict comparison of the rounded end with 0 is that of
        the exact end.)"""
        return np.where(self.m - self.r > 0, 1, np.where(self.m + self.r < 0, -1, 0))

    def shift(self) -> Ball:
        """An exact per-row constant near each row's largest midpoint (…, 1): what a softmax subtracts before
        exp.  A softmax does not depend on the constant, so it need not be the row's exact maximum.

        >>> Ball([[1.0, 3.0, -np.inf]]).shift().m.tolist()
        [[3.0]]
        """
        m = np.where(np.isfinite(self.m), self.m, -np.inf).max(axis=-1, keepdims=True)
        return Ball(np.where(np.isfinite(m), m, 0.0))

    # -- arithmetic --------------------------------------------------------------------------------------------
    def __neg__(self) -> Ball:
        return Ball(-self.m, self.r)

    def __add__(self, other) -> Ball:
        o = _ball(other)
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m + o.m
            r = bound(self.r + o.r + U * np.abs(m), 3)
            r = np.where((m == 0) & (self.r == 0) & (o.r == 0), 0.0, r)   # two floats whose sum rounds to 0: exact
            # an exact ±∞ (a masked score) plus a finite ball is that exact ±∞
            inf = (np.isinf(self.m) & (self.r == 0) & np.isfinite(o.m) & np.isfinite(o.r)) | \
                  (np.isinf(o.m) & (o.r == 0) & np.isfinite(self.m) & np.isfinite(self.r))
            return Ball(m, np.where(inf, 0.0, r) if inf.any() else r)

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
            return Ball(m, np.where(self._zero() | o._zero(), 0.0, bound(r, 6)))   # × an exact 0 is exactly 0

    __rmul__ = __mul__

    def __pow__(self, k: int) -> Ball:
        if k != 2:
            return NotImplemented
        return self * self

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
        """The midpoint–radius product (Rump): the midpoints' product and a radius that holds for any summation
        order, with or without FMA, plus |A| r_B + r_A (|B| + r_B) for the radii, all rounded up.

        The midpoints' product is accurate to about one rounding, not n: each factor is split (Ozaki, Ogita,
        Oishi and Rump, "Error-free transformations of matrix multiplication by using fast routines of matrix
        multiplication and its applications", Numer. Algorithms 59, 2012) as A = A₁ + A₂, A₁ holding each row's
        leading β bits on one grid, 2β + log₂ n ≤ 53, so A₁B₁ is computed *exactly* by BLAS in any order; A₁B₂
        and A₂B are 2^−β smaller, and their γ_n error is bounded through row and column sums.  Where a split
        would underflow or a value is not finite, the a-priori bound γ_n |A||B| is used instead.

        >>> a = Ball.exact(np.full((3, 3), 0.1))
        >>> (a @ a).contains_exact(np.full((3, 3), Fraction(3) * Fraction(0.1) ** 2))
        True
        >>> bool(((a @ a).r < 4 * 2.0 ** -53 * 0.03).all())     # one rounding of the result, about
        True
        """
        o = _ball(other)
        a_m, b_m, a_r, b_r = self.m, o.m, self.r, o.r
        vec_a, vec_b = a_m.ndim == 1, b_m.ndim == 1
        if vec_a:
            a_m, a_r = a_m[None, :], a_r[None, :]
        if vec_b:
            b_m, b_r = b_m[:, None], b_r[:, None]
        if a_m.ndim != 2 or b_m.ndim != 2:
            raise TypeError("a ball product of matrices and vectors only")
        n = a_m.shape[-1]
        g = gamma(max(n, 1))
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            split = _split_product(a_m, b_m, n, g)
            am, bm = np.abs(a_m), np.abs(b_m)
            if split is None:
                m = a_m @ b_m
                mid_err = g * (am @ bm) + 3 * n * ETA        # and what the nonnegative products may underflow
            else:
                m, mid_err = split
            rad = am @ b_r + a_r @ (bm + b_r) if (a_r.any() or b_r.any()) else 0.0
            # each product of nonnegative arrays is itself a nonnegative dot product: computed to nearest it is
            # within γ_n of its value; the sums of the three terms add 4 operations
            r = bound((mid_err + rad) * (1 + 2 * g), 4 + 2)
        zero = self._zero().all(axis=-1) if not vec_a else self._zero().all()
        zero_cols = o._zero().all(axis=0) if not vec_b else o._zero().all()
        r = np.where(np.reshape(zero, (-1, 1)) | np.reshape(zero_cols, (1, -1)), 0.0, r)   # an exact zero row
        if vec_a:
            m, r = m[0], r[0]
        if vec_b:
            m, r = m[..., 0], r[..., 0]
        return Ball(m, r)

    def sum(self, axis=-1) -> Ball:
        """Σ along an axis (any order): γ_n Σ|m| + the radii's sum, rounded up."""
        n = self.m.shape[axis]
        g = gamma(max(n, 1))
        with np.errstate(over="ignore", invalid="ignore"):
            m = self.m.sum(axis=axis)
            r = np.abs(self.m).sum(axis=axis) * g + self.r.sum(axis=axis) * (1 + 2 * g) + n * ETA
            return Ball(m, np.where(self._zero().all(axis=axis), 0.0, bound(r, 4)))

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
        """e^x, vectorised, with its own error bound (no trust in libm).

        With k = round(m/ln 2) and t = m − k·ln 2 (a ball, computed in ball arithmetic: ln 2 = hi + lo, hi
        with 32 bits so that k·hi is exact, lo enclosed), |t| < 0.36; e^t is the degree-16 Taylor polynomial
        of t's midpoint by Horner's rule.  Its error
        is at most γ₃₂·Σ|a_i||t|^i (Higham, eq. 5.3) + u·Σ|t|^i/i! (the coefficients 1/i! rounded) + the
        remainder |t|¹⁷/17!·e^|t| (< 10⁻²¹), each Σ ≤ e^0.36 < 1.5, and 1.6·ρ for t's own radius ρ.  Then
        2^k is exact (ldexp; a subnormal result adds η).  A ball of radius r around m adds e^m·(e^r − 1) ≤
        e^m·r·(1 + r) (r ≤ 1).  An exact −∞ gives an exact 0.

        >>> x = Ball([0.0, 1.0, -745.0, -np.inf], [0.0, 1e-12, 0.0, 0.0]).exp()
        >>> x.m[0], x.contains_exact([1, Fraction(2.718281828459045), 0, 0]), bool(x.r[1] < 1e-11), x.r[3]
        (np.float64(1.0), True, True, np.float64(0.0))
        """
        m, r = self.m, self.r
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            ok = np.isfinite(m) & np.isfinite(r) & (m + r < 709.0) & (r <= 1.0)
            mm = np.where(ok, m, 0.0)
            k = np.rint(mm * (1 / math.log(2)))
            t = (Ball.exact(mm) - Ball.exact(k * _LN2_HI)) - Ball.exact(k) * _LN2_LO    # k·ln2_hi exact
            tm = t.m
            p = np.full_like(tm, _INV_FACT[-1])
            for c in _INV_FACT[-2::-1]:
                p = p * tm + c
            err0 = bound(_HORNER + 1.6 * t.r, 3)
            ok &= (np.abs(tm) < 0.36) & (t.r < 0.01)
            mid = np.ldexp(p, k.astype(np.int64))
            top = np.ldexp(bound(p + err0, 1), k.astype(np.int64))    # ≥ e^m
            rad = np.ldexp(err0, k.astype(np.int64)) + top * r * (1 + r) + 2 * ETA
            rad = bound(rad, 5)
            rad = np.where(ok, rad, np.inf)
            zero = np.isneginf(m) & (r == 0)
            return Ball(np.where(zero, 0.0, np.where(ok, mid, np.nan)), np.where(zero, 0.0, rad))

    def log(self) -> Ball:
        return self.apply("log")

    def sqrt(self) -> Ball:
        """√x by IEEE 754's correctly rounded square root (IEEE 754-2019 §5.4.1) at each end of the ball, each
        end stepped one float outward; a ball reaching below 0 says nothing (radius inf).

        >>> b = Ball([4.0, 2.0], [0.0, 1e-15]).sqrt()
        >>> b.m[0], b.contains_exact([2, Fraction(1.4142135623730951)])
        (np.float64(2.0), True)
        """
        m, r = self.m, self.r
        with np.errstate(invalid="ignore", over="ignore"):
            lo = np.nextafter(m - r, -np.inf)
            hi = np.nextafter(m + r, np.inf)
            mid = np.sqrt(np.maximum(m, 0.0))
            s_lo = np.nextafter(np.sqrt(np.maximum(lo, 0.0)), -np.inf)
            s_hi = np.nextafter(np.sqrt(hi), np.inf)
            rad = up(np.maximum(up(mid - s_lo), up(s_hi - mid)))
            exact = r == 0
            rad = np.where(exact, up(U * mid), rad)     # one rounding of the exact root: within u·√x
            rad = np.where((lo < 0) | ~np.isfinite(m) | ~np.isfinite(r), np.inf, rad)
            return Ball(mid, rad)

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


def _split(X: np.ndarray, axis: int, beta: int):
    """X = X₁ + X₂ exactly, X₁ each row's (axis 1) or column's (axis 0) value rounded to a multiple of
    2^(e − β), 2^e ≥ the row's largest |x| (so X₁ has at most β + 1 bits on that grid), |X₂| ≤ 2^(e − β − 1):
    fl((x + σ) − σ) with σ = 1.5·2^(e − β + 52).  Returns (X₁, X₂, e)."""
    mu = np.abs(X).max(axis=axis, keepdims=True)
    e = np.frexp(mu)[1]                     # 2^e > mu (mu = f·2^e, ½ ≤ f < 1), exact
    sigma = np.ldexp(1.5, e - beta + 52)
    X1 = (X + sigma) - sigma
    return X1, X - X1, e


def _split_product(A: np.ndarray, B: np.ndarray, n: int, g: float):
    """(fl(AB), a bound of its error) by the split product of :meth:`Ball.__matmul__`, or None when a split
    could underflow, overflow or meet a value that is not finite."""
    if not (np.isfinite(A).all() and np.isfinite(B).all()) or n == 0:
        return None
    beta = (53 - max(n - 1, 1).bit_length()) // 2          # 2β + ⌈log₂ n⌉ ≤ 53: A₁B₁'s sums are exact
    A1, A2, e = _split(A, 1, beta)                          # e: (m, 1)
    B1, B2, f = _split(B, 0, beta)                          # f: (1, p)
    rows, cols = (A != 0).any(axis=1, keepdims=True), (B != 0).any(axis=0, keepdims=True)   # a zero row: exact 0
    if not rows.any() or not cols.any():
        return np.zeros((A.shape[0], B.shape[1])), np.zeros((A.shape[0], B.shape[1]))
    if e[rows].min() + f[cols].min() - 2 * beta < -1000 or e.max() - beta + 52 > 1000 or f.max() - beta + 52 > 1000:
        return None
    P = A1 @ B1                                             # exact: multiples of 2^(e+f−2β), |Σ| < 2^(e+f+log n)
    QR = A1 @ B2 + A2 @ B
    m = P + QR
    # |A₁||B₂| ≤ Σ_k|A₁| · 2^(f−β−1), |A₂||B| ≤ 2^(e−β−1) · Σ_k|B|; their products' γ_n, the sum's u, m's u
    S = bound(np.abs(A1).sum(axis=1, keepdims=True) * np.where(cols, np.ldexp(1.0, f - beta - 1), 0.0)
              + np.where(rows, np.ldexp(1.0, e - beta - 1), 0.0) * np.abs(B).sum(axis=0, keepdims=True), n + 4)
    err = (g + U * (1 + g)) * S * (1 + 2 * g) + 2 * U * np.abs(m) + 6 * n * ETA
    return m, err


_INV_FACT = [float(Fraction(1, math.factorial(i))) for i in range(17)]   # a_i = fl(1/i!), i = 0 … 16
_HORNER = float(up(gamma(32) * 1.5 + U * 1.5 + 1e-21))    # Horner's and the coefficients' error, the remainder


def _ln2_split() -> tuple[float, Ball]:
    """ln 2 = hi + lo: hi its leading 32 bits (a float: k·hi is exact for |k| < 2^21), lo enclosed by a ball."""
    with ctx.workprec(160):
        ln2 = arb.log(arb(2))
        hi = math.ldexp(math.floor(math.ldexp(float(ln2.mid()), 32)), -32)
        m, r = _arb_to_ball(ln2 - arb(hi))
    return hi, Ball(np.float64(m), np.float64(r))


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


_LN2_HI, _LN2_LO = _ln2_split()

_POW10 = np.array([float(Fraction(10) ** k) for k in range(-300, 301)])    # correctly rounded (CPython), normal


def significant(b: Ball, n: int) -> list:
    """Each entry's decimal string to ``n`` significant digits (as :func:`symgpt.core.numeric.round_significant`
    writes it, half away from 0), or None where the ball does not certify them; vectorised.

    With a, b the ends of |x| (rounded outward) and s = 10^(n−1−e) correctly rounded, A = a·s and B = b·s
    are within 2.01u of their exact values and the float steps below add ≤ 2u(A + 1): a margin δ = 16u(B + 1)
    covers them, so every exact value of the ball rounds to M when ⌊A − δ + ½⌋ = ⌊B + δ + ½⌋ = M with
    10^(n−1) ≤ M < 10^n.  Beyond 13 digits δ is too wide and nothing is certified here.

    >>> significant(Ball([2.0 / 3, 0.0, 1.0], [1e-15, 0.0, 1.0]), 5)
    ['0.66667', '0', None]
    """
    m, r = b.m.ravel(), b.r.ravel()
    out = [None] * m.size
    if n > 13:
        return out
    with np.errstate(all="ignore"):
        lo, hi = np.nextafter(m - r, -np.inf), np.nextafter(m + r, np.inf)
        pos, neg = lo > 0, hi < 0
        a, c = np.where(pos, lo, -hi), np.where(pos, hi, -lo)
        ok = (pos | neg) & np.isfinite(c) & (a > 1e-280) & (c < 1e280)     # n − 1 − e within ±300
        e = np.floor(np.log10(np.where(ok, a, 1.0))).astype(np.int64)
        s = _POW10[np.clip(n - 1 - e, -300, 300) + 300]
        A, B = a * s, c * s
        delta = 16 * U * (B + 1)
        M, M2 = np.floor(A - delta + 0.5), np.floor(B + delta + 0.5)
        ok &= (M == M2) & (M >= 10.0 ** (n - 1)) & (M < 10.0 ** n)
    for i in np.flatnonzero(ok):
        out[i] = _format_significant(1 if pos[i] else -1, int(M[i]), int(e[i]), n)
    for i in np.flatnonzero((m == 0) & (r == 0)):
        out[i] = "0"
    return out
