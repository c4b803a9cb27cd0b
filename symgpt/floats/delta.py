"""Perturbations carried through the model: where the precision forensics sends one rounding at a time.

A :class:`Delta` is a tensor ``v + d``: base values ``v`` (float64, the exact values rounded) and a perturbation
``d`` (float64).  Every operation computes the perturbation of its result from the perturbations of its
arguments by a formula for the *difference* itself, never as f(v + d) − f(v):

- (a + d_a)(b + d_b) − ab = a·d_b + d_a·b + d_a·d_b, and so for the matrix product;
- (a + d_a)/(b + d_b) − a/b = (d_a − (a/b)·d_b) / (b + d_b);
- e^(a + d) − e^a = e^a·expm1(d); ln(a + d) − ln a = log1p(d/a); √(a + d) − √a = d / (√(a + d) + √a);
- tanh(a + d) − tanh a = tanh d / cosh²a / (1 + tanh a·tanh d); sin and cos by their sum formulas;
- erf(a + d) − erf a: eight-point Gauss–Legendre on (2/√π)·e^(−t²) over [a, a + d] where
  |d|·(1 + |a| + |d|) < 1/20 (the integrand changes by less than e^(1/10) over the interval: the rule's error
  is below 10⁻¹⁶ of the result); beyond, a difference of erfc on the side of 0 the two points are on, which
  cancels at most a digit or two there.

So a perturbation of any size keeps about 15 significant digits through each operation, and nothing is
linearised: a comparison (:class:`Decision`) holds both the perturbed decision and the unperturbed one, so a
perturbation that flips a ReLU is carried as the flip it is (the change from the unperturbed branch's value to
the perturbed branch's).  What float64 bases cannot give is a change below their own cancellation: a composite
formula such as GELU's 1 + tanh(…) far in its tail, or AdamW's m / (√v + ε) for a large gradient, keeps about
u·|value|/|change| less.  This is the exact pipeline of :mod:`symgpt.floats.forensics` with one stage's rounding
added, at the cost of about three float passes, where mpmath's object arrays took hundreds.

:class:`Deltas` is the arithmetic an op's float facet runs over (:mod:`symgpt.floats.model`), like
:class:`symgpt.floats.balls.Balls`; everything but the inputs' perturbations is exact, as there.

>>> ar = Deltas()
>>> x = Delta([1.0, 2.0], [1e-20, 0.0])
>>> ar.wexp(x).d[0] == np.exp(1.0) * 1e-20, float(ar.wlog(x).d[0])
(np.True_, 1e-20)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from ..core.fball import Arrays
from .balls import Balls, _cast

__all__ = ["Delta", "Deltas"]

_GL = [((x + 1) / 2, w / 2) for x, w in zip(*np.polynomial.legendre.leggauss(8))]
"""Eight-point Gauss–Legendre on [0, 1]: (node, weight)."""
_ERF_NEAR = 0.05
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erf_change(a, d):
    """erf(a + d) − erf(a) (see the module)."""
    b = a + d
    near = sum(w * np.exp(-(a + x * d) ** 2) for x, w in _GL) * d * (2 / math.sqrt(math.pi))
    far = np.where((a >= 0) & (b >= 0), _erfc(a) - _erfc(b),
                   np.where((a <= 0) & (b <= 0), _erfc(-b) - _erfc(-a), _erf(b) - _erf(a)))
    return np.where(np.abs(d) * (1 + np.abs(a) + np.abs(d)) < _ERF_NEAR, near, far)


def _v(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class Decision(np.ndarray):
    """A comparison of perturbed tensors: the perturbed decision (the array itself, bool) and ``unperturbed``, the
    decision on the base values, so that ``np.where`` can carry a flip as the change it makes."""

    unperturbed: np.ndarray

    @classmethod
    def of(cls, now, was) -> Decision:
        out = np.asarray(now, dtype=bool).view(cls)
        out.unperturbed = np.asarray(was, dtype=bool)
        return out


_COMPARE = {np.greater: "__gt__", np.less: "__lt__", np.greater_equal: "__ge__", np.less_equal: "__le__"}
_UFUNCS = {np.add: lambda a, b: a + b, np.subtract: lambda a, b: a - b, np.multiply: lambda a, b: a * b,
           np.true_divide: lambda a, b: a / b, np.matmul: lambda a, b: a @ b, np.negative: lambda a: -a,
           np.minimum: lambda a, b: np.where(a <= b, a, b), np.maximum: lambda a, b: np.where(a >= b, a, b)}


class Delta(Arrays):
    """Base values ``v`` and a perturbation ``d`` of one shape: the tensor v + d, its change d kept apart.

    >>> x = Delta([3.0], [2.0 ** -60])
    >>> y = x * x - Delta([9.0])          # (3 + ε)² − 9 = 6ε + ε²: the 9s cancel, the change does not
    >>> y.v[0], y.d[0] == 6 * 2.0 ** -60
    (np.float64(0.0), np.True_)
    """

    __slots__ = ("v", "d", "signs")
    FIELDS = ("v", "d")

    def __init__(self, v, d=None):
        self.v = _v(v)
        d = np.zeros_like(self.v) if d is None else _v(d)
        self.d = d if d.shape == self.v.shape else np.broadcast_to(d, self.v.shape).copy()
        self.signs = None

    # -- making and reading --------------------------------------------------------------------------------------
    @classmethod
    def coerce(cls, x) -> Delta:
        return x if isinstance(x, Delta) else cls(np.asarray(x, dtype=np.float64))

    @classmethod
    def exact(cls, floats) -> Delta:
        """Unperturbed values."""
        return cls(floats)

    @classmethod
    def of(cls, values) -> Delta:
        """Unperturbed exact numbers (Fractions, ints, fmpq), each rounded to the nearest float64 as its base."""
        arr = np.asarray(values, dtype=object)
        flat = [float(Fraction(str(v)) if not isinstance(v, (int, Fraction, float)) else v) for v in arr.ravel()]
        return cls(np.array(flat, dtype=np.float64).reshape(arr.shape))

    @classmethod
    def from_arb(cls, values) -> Delta:
        """Unperturbed arb balls: their midpoints, rounded."""
        arr = np.asarray(values, dtype=object)
        return cls(np.array([float(v.mid()) for v in arr.ravel()], dtype=np.float64).reshape(arr.shape))

    @property
    def m(self) -> np.ndarray:
        """The perturbed value v + d, rounded (what a comparison or a shift reads)."""
        return self.v + self.d

    def _zero(self) -> np.ndarray:
        return self.m == 0

    def sign(self) -> np.ndarray:
        """The sign of the perturbed value (always decided: the perturbed pipeline is one float run)."""
        return np.sign(self.m).astype(int)

    def _decide(self, other, op) -> Decision:
        o = Delta.coerce(other)
        return Decision.of(op(self.m, o.m), op(self.v, o.v))

    def __gt__(self, other):
        return self._decide(other, np.greater)

    def __lt__(self, other):
        return self._decide(other, np.less)

    def __ge__(self, other):
        return self._decide(other, np.greater_equal)

    def __le__(self, other):
        return self._decide(other, np.less_equal)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``ndarray ∘ Delta`` and ``np.minimum`` (a clip coefficient's clamp) as the perturbed operations."""
        if method != "__call__" or kwargs or ufunc not in _UFUNCS and ufunc not in _COMPARE:
            return NotImplemented
        args = [Delta.coerce(x) for x in inputs]
        if ufunc in _COMPARE:
            return getattr(args[0], _COMPARE[ufunc])(args[1])
        return _UFUNCS[ufunc](*args)

    def __array_function__(self, func, types, args, kwargs):
        """``np.where`` on a :class:`Decision`: the base from the unperturbed branch, the change to the perturbed
        branch's value; any other array function as every ball does it."""
        if func is np.where and isinstance(args[0], Decision):
            cond, a, b = args[0], Delta.coerce(args[1]), Delta.coerce(args[2])
            was = cond.unperturbed
            now = np.asarray(cond, dtype=bool)
            v = np.where(was, a.v, b.v)
            d = np.where(now, a.d, b.d)
            flip = now != was
            if flip.any():
                d = np.where(flip, np.where(now, a.v + a.d, b.v + b.d) - v, d)
            return self._made(v, d)
        return super().__array_function__(func, types, args, kwargs)

    def shift(self) -> Delta:
        """A per-row constant near each row's largest value, unperturbed: what a softmax subtracts before exp
        (a softmax does not depend on it)."""
        m = np.where(np.isfinite(self.v), self.v, -np.inf).max(axis=-1, keepdims=True)
        return Delta(np.where(np.isfinite(m), m, 0.0))

    @staticmethod
    def _made(v, d) -> Delta:
        """A result; where its base is not finite (a masked score, −∞) it has no perturbation."""
        finite = np.isfinite(v)
        return Delta(v, d if finite.all() else np.where(finite, d, 0.0))

    # -- arithmetic ------------------------------------------------------------------------------------------------
    def __neg__(self) -> Delta:
        return Delta(-self.v, -self.d)

    def __add__(self, other) -> Delta:
        o = Delta.coerce(other)
        with np.errstate(invalid="ignore", over="ignore"):
            return self._made(self.v + o.v, self.d + o.d)

    __radd__ = __add__

    def __sub__(self, other) -> Delta:
        return self + (-Delta.coerce(other))

    def __rsub__(self, other) -> Delta:
        return Delta.coerce(other) + (-self)

    def __mul__(self, other) -> Delta:
        o = Delta.coerce(other)
        with np.errstate(invalid="ignore", over="ignore"):
            if not o.d.any():                       # a constant factor: the change scales
                return self._made(self.v * o.v, self.d * o.v)
            if not self.d.any():
                return self._made(self.v * o.v, self.v * o.d)
            return self._made(self.v * o.v, self.v * o.d + self.d * o.v + self.d * o.d)

    __rmul__ = __mul__

    def __pow__(self, k: int) -> Delta:
        if k != 2:
            return NotImplemented
        return self * self

    def __truediv__(self, other) -> Delta:
        o = Delta.coerce(other)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            q = self.v / o.v
            return self._made(q, (self.d - q * o.d) / (o.v + o.d))

    def __rtruediv__(self, other) -> Delta:
        return Delta.coerce(other) / self

    def __matmul__(self, other) -> Delta:
        """(A + D_A)(B + D_B) − AB = A·D_B + D_A·B + D_A·D_B, each product skipped where its perturbation is 0."""
        o = Delta.coerce(other)
        v = self.v @ o.v
        d = np.zeros_like(v)
        pa, pb = self.d.any(), o.d.any()
        if pb:
            d = d + self.v @ o.d
        if pa:
            d = d + self.d @ o.v
        if pa and pb:
            d = d + self.d @ o.d
        return self._made(v, d)

    def __rmatmul__(self, other) -> Delta:
        return Delta.coerce(other) @ self

    def sum(self, axis=-1) -> Delta:
        return Delta(self.v.sum(axis=axis), self.d.sum(axis=axis))

    # -- functions ---------------------------------------------------------------------------------------------------
    def exp(self) -> Delta:
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            e = np.exp(self.v)
            return self._made(e, e * np.expm1(self.d))

    def log(self) -> Delta:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._made(np.log(self.v), np.log1p(self.d / self.v))

    def sqrt(self) -> Delta:
        with np.errstate(divide="ignore", invalid="ignore"):
            s, t = np.sqrt(self.v), np.sqrt(self.v + self.d)
            den = s + t
            return self._made(s, np.where(den > 0, self.d / np.where(den > 0, den, 1.0), t - s))

    def apply(self, name: str) -> Delta:
        """``exp``, ``log``, ``sqrt``, ``tanh``, ``erf``, ``sin`` or ``cos`` of each entry (see the module)."""
        if name in ("exp", "log", "sqrt"):
            return getattr(self, name)()
        a, d = self.v, self.d
        with np.errstate(over="ignore", invalid="ignore"):
            if name == "tanh":
                ta, td = np.tanh(a), np.tanh(d)        # 1 − tanh²a as 1/cosh²a: no cancellation in the tail
                return self._made(ta, td / np.cosh(a) ** 2 / (1 + ta * td))
            if name == "sin":
                return self._made(np.sin(a), 2 * np.cos(a + d / 2) * np.sin(d / 2))
            if name == "cos":
                return self._made(np.cos(a), -2 * np.sin(a + d / 2) * np.sin(d / 2))
            if name == "erf":
                return self._made(_erf(a), _erf_change(a, d))
        raise TypeError(f"no perturbation formula for {name}")


class Deltas(Balls):
    """The arithmetic of :class:`Delta`: an op's float facet run exactly (as :class:`symgpt.floats.balls.Balls`
    runs it) on perturbed tensors; constants and tables are unperturbed.

    >>> ar = Deltas()
    >>> y = ar.mm(Delta([[1.0, 2.0]], [[2.0 ** -100, 0.0]]), ar.cast([[3], [4]]))
    >>> y.v.tolist(), y.d.tolist() == [[3 * 2.0 ** -100]]
    ([[11.0]], True)
    """

    name = "deltas"
    kind = Delta

    def const(self, q):
        if isinstance(q, Delta):
            return q
        if isinstance(q, arb):
            return Delta(float(q.mid()))
        if isinstance(q, float):
            return Delta(q)
        return Delta.of(np.array(Fraction(q.numerator, q.denominator) if isinstance(q, Fraction) else q,
                                 dtype=object))

    def host(self, q):
        return Fraction(q) if not isinstance(q, Delta) else q

    def w(self, x):
        if isinstance(x, Delta):
            return x
        if isinstance(x, np.ndarray) and x.dtype != object:
            return Delta(x)
        return self.const(x) if np.ndim(x) == 0 else _cast(x, Delta)

    def out(self, x):
        return self.w(x)

    keep = out

    def zeros(self, shape=()):
        return Delta(np.zeros(shape))

    wzeros = zeros

    def inv(self, x):
        return Delta(np.float64(1.0)) / self.w(x)
