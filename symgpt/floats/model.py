"""The model in floating point: one forward pass, its adjoints and the first updates, stage by stage in numpy.

Each named tensor is one *stage* ``(name, inputs, fn)``: ``fn(ar, *inputs)`` computes it from earlier tensors
with an arithmetic ``ar``.  :class:`Floats` is IEEE arithmetic in one format (numpy float64/float32/float16,
bfloat16 as float32 arrays rounded by :func:`bfloat16`); :class:`Exact` is mpmath at a high precision.  The two are
only the primitives (casts, the working type, elementwise operations, exp, log, sqrt, matrix products, sums over a
row, fused multiply-adds); every op writes its float model once over them, below its "floats" marker in
:mod:`symgpt.ops` (``floats_forward``, ``floats_backward``), and :class:`Pipeline` iterates the model's plan
(:mod:`symgpt.engine.arch`) and never names an op.  So the local rounding of a stage is ``fn(Floats) − fn(Exact)``
on the same float inputs, and :mod:`symgpt.precision` can inject it alone.

Operation order (PyTorch 2.x on CPU, as measured for these shapes; see ``tests/test_precision.py``):

* matrix products: in float64 and float32 every product is rounded and the sum runs over k from 0 upwards, no fused
  multiply-add (what torch's CPU ``mm`` does for these small shapes), except that when the right factor is a
  transposed view (``K.T``, ``W.T`` in autograd) the even and the odd k are summed apart and then added; in
  bfloat16 and float16 the products are exact in float32, summed in float32 in order, and rounded once to the
  format.  (For n ≥ 16 columns torch's float32/float64 kernel sums in yet another order, not modelled.)
* reductions (sums over a row or a column): sequential, in float32 for bfloat16 and float16.
* an op's composite kernel (a softmax, a norm, and their backward formulas) is one operation: computed in float32
  for bfloat16 and float16 (in the format itself for float32 and float64) and rounded once; each op's facet says
  its formula and what it keeps in the tensor's own format.
* exp, log and sqrt: numpy's in float64 and float32; computed in float32 and rounded for bfloat16 and float16.
  (torch's vectorised exp and log are not numpy's: they can differ in the last bit.)
* float32 islands (:meth:`Arithmetic.island`): what Hugging Face's Llama computes in float32 in a model of any
  dtype, its RMSNorm (the input cast to float32, normalised there, cast back, then times γ in the format) and its
  rotary cos and sin tables, is computed in float32 here too, also for float64.
* scalars (1/√d_k, ε, lr, β) are rounded to the arithmetic's working type (float32 for the two 16-bit formats);
  what torch computes in Python floats first (the optimizers' step sizes, √d_k) is computed in Python floats
  (:meth:`Floats.host`).
* parameters: the spec's exact values rounded once to the nearest float of the format (no float32 master
  copy).  ``model.to(dtype)`` from a float64 model would round twice; for the seeds' short decimals the two
  agree.  A constant table an op computes exactly (the positions) is correctly rounded the same way.

>>> import numpy as np
>>> ar = Floats("bfloat16")
>>> float(ar.mm(ar.cast([[1, 1]]), ar.cast([[1], [2 ** -9]]))[0, 0])  # the sum in float32, rounded once
1.0
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from ..core.errors import InputError
from ..engine.arch import Arch
from ..ops import OPS
from ..ops.base import plus
from ..training.train import NO_DECAY, _learnable, lr_at

_CR = mpmath.mp.clone()
_CR.dps = 40  # exp and log of a float64, then rounded to float64: correct but for a tie within 10⁻⁴⁰
_MP50 = mpmath.mp.clone()
_MP50.dps = 50  # exact tables an op's float model rounds once (mpmath, before the rounding)


def bfloat16(x) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even, ±inf past the largest, NaN kept), held in
    float32.  A bfloat16 is a float32 without its 16 low significand bits, so the rounding is integer arithmetic on
    the bits, as PyTorch and ml_dtypes do it; numpy has no bfloat16 type, and ml_dtypes, which adds one, takes most
    of a second to import.

    >>> x = [1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.4e38, 2 ** -134, 3 * 2 ** -134]   # ties to even, overflow, subnormals
    >>> bfloat16(x).tolist() == [1.0, 1 + 2 ** -6, float("inf"), 0.0, 2 ** -132]
    True
    """
    with np.errstate(over="ignore"):                       # a float64 past float32's range is ±inf, as it should be
        a = np.asarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000   # half of the dropped bits' unit, less 1 when even
    return np.where(np.isnan(a), a, bits.astype(np.uint32).view(np.float32))


FORMATS = {
    # name: (its rounding: a numpy type or bfloat16, working type of its composite operations, significand bits,
    #        smallest normal exponent)
    "float64": (np.float64, np.float64, 53, -1022),
    "float32": (np.float32, np.float32, 24, -126),
    "bfloat16": (bfloat16, np.float32, 8, -126),
    "float16": (np.float16, np.float32, 11, -14),
}
"""Every IEEE format the forensics knows, widest first."""


def check_formats(names) -> list:
    """The format names, checked; a name given twice counts once.

    >>> check_formats(["float32", "bfloat16", "float32"])
    ['float32', 'bfloat16']
    """
    out = []
    for n in names:
        if n not in FORMATS:
            raise InputError(f"--formats: expected some of {', '.join(FORMATS)}, got {n!r}")
        if n not in out:
            out.append(n)
    if not out:
        raise InputError("--formats: expected at least one format")
    return out


def exact_of(x) -> Fraction:
    """The exact rational value of a float of any format (a float is a dyadic rational).

    >>> exact_of(np.float32(0.1))
    Fraction(13421773, 134217728)
    """
    return Fraction(float(np.float64(x)))  # every format here widens to float64 exactly


def fraction(q) -> Fraction:
    """An exact number (int, Fraction, float, an mpmath mpf of any context, a SymPy Rational) as a Fraction.

    >>> fraction(mpmath.mpf(-0.5)), fraction(0.25)
    (Fraction(-1, 2), Fraction(1, 4))
    """
    if hasattr(q, "_mpf_"):
        sign, man, e, _ = q._mpf_                          # ±man·2^e, the sign kept apart
        if not man and e:
            raise ValueError(f"{q}: not a finite number")
        return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(e)
    if isinstance(q, (int, float, Fraction)):
        return Fraction(q)
    return Fraction(str(q))


def round_to(q: Fraction, fmt: str):
    """The float of ``fmt`` nearest the exact rational ``q`` (ties to even), as a float64 holding it exactly.

    >>> round_to(Fraction(1, 3), "bfloat16") == 171 / 512
    True
    """
    _, _, bits, emin = FORMATS[fmt]
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    step = Fraction(2) ** (max(e, emin) - bits + 1)       # spacing of the format at |q| (subnormals below emin)
    n, r = divmod(a, step)
    n = int(n) + (1 if r > step / 2 or (r == step / 2 and n % 2 == 1) else 0)
    v = float(n * step)                                     # exact: within float64's range for these formats
    v = v if q > 0 else -v
    return float(np.float64(FORMATS[fmt][0](v)))           # overflow to ±inf as the format does



def _odd(s, t):
    """s made odd toward s + t where the exact value s + t is not a float64 (rounding to odd: the last bit of s
    records that something was dropped, so that a later rounding to 2 or more fewer bits is a single rounding;
    Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
    IEEE Trans. Computers 57(4), 2008)."""
    even = (s.view(np.int64) & 1) == 0
    return np.where((t != 0) & even & np.isfinite(s), np.nextafter(s, np.where(t > 0, np.inf, -np.inf)), s)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """p + e = a·b exactly (Dekker, Veltkamp's split), barring overflow and underflow."""
    p = a * b
    c = 134217729.0 * a
    ah = c - (c - a)
    c = 134217729.0 * b
    bh = c - (c - b)
    return p, ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)


def _to_format(x, fmt: str) -> np.ndarray:
    """float64 values rounded to odd (or exact) as floats of a narrower ``fmt``, rounded once to nearest, held in
    float64."""
    if fmt == "bfloat16":   # to odd in float32 first (24 bits ≥ 8 + 2), then bfloat16's own rounding of its bits
        with np.errstate(over="ignore"):
            x32 = x.astype(np.float32)
        inexact = np.isfinite(x32) & (x32.astype(np.float64) != x)
        even = (x32.view(np.int32) & 1) == 0
        x32 = np.where(inexact & even, np.nextafter(x32, np.where(x > x32, np.float32(np.inf), -np.float32(np.inf))),
                       x32)
        return bfloat16(x32).astype(np.float64)
    with np.errstate(over="ignore"):
        return x.astype(FORMATS[fmt][0]).astype(np.float64)


def rounded_quotients(p: np.ndarray, q: np.ndarray, fmt: str) -> np.ndarray:
    """p/q (integers below 2⁵³ held exactly in float64, q > 0) correctly rounded to ``fmt``: the IEEE quotient
    (itself correctly rounded), made odd where the remainder p − x·q is not 0, then rounded to the format.

    >>> from fractions import Fraction
    >>> [Fraction(x) == Fraction(round_to(Fraction(1, 3), f)) for f, x in
    ...  zip(FORMATS, (rounded_quotients(np.array([1.0]), np.array([3.0]), f)[0] for f in FORMATS))]
    [True, True, True, True]
    """
    with np.errstate(under="ignore"):
        x = p / q
        h, low = _two_prod(x, q)
        rest = (p - h) - low                         # its sign is that of p − x·q: a rounding keeps a sign
    tiny = (np.abs(x) < 2.0 ** -960) & (p != 0)      # below, the product's low part may underflow
    out = x.copy() if fmt == "float64" else _to_format(_odd(x, np.where(tiny, 0.0, rest)), fmt)
    for i in np.flatnonzero(tiny):
        out[i] = round_to(Fraction(int(p[i]), int(q[i])), fmt)
    return out


def fused(a: np.ndarray, b: np.ndarray, c: np.ndarray, wide: str):
    """(a·b + c rounded once to ``wide`` ("float64" or "float32"), where that is proven) for float64 arrays
    holding floats of ``wide``.  float32: a·b is exact in float64, a·b + c rounded to odd there, then to float32.
    float64: Boldo and Melquiond's emulation (see :func:`_odd`): a·b = u + e exactly, u + c = s + t exactly,
    the result RN(s + RO(t + e)); proven without underflow or overflow, so an entry whose a·b or c is outside
    [2⁻⁹⁰⁰, 2⁹⁰⁰] (but 0) is marked not done (``ok`` False) for an exact computation.

    >>> a, b, c = (np.array([v]) for v in (1 + 2.0 ** -30, 1 - 2.0 ** -30, -1.0))
    >>> float(fused(a, b, c, "float64")[0][0]) == -2.0 ** -60     # fl(a·b) = 1 would give 0
    True
    """
    with np.errstate(all="ignore"):
        if wide == "float32":
            u = a * b                                  # exact: 24 + 24 bits
            s, t = _two_sum(u, c)
            return _odd(s, t).astype(np.float32).astype(np.float64), np.ones(a.shape, dtype=bool)
        u, e = _two_prod(a, b)
        s, t = _two_sum(c, u)
        v, w = _two_sum(t, e)
        out = s + _odd(v, w)
        mag = np.abs(u)
        ok = np.isfinite(out) & ((a == 0) | (b == 0) | ((mag > 2.0 ** -900) & (mag < 2.0 ** 900))) & \
            ((c == 0) | ((np.abs(c) > 2.0 ** -900) & (np.abs(c) < 2.0 ** 900)))
        inf = ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))     # IEEE's own ∞ and NaN rules
        return np.where(inf, a * b + c, out), ok | inf


class Arithmetic:
    """What an op's float model is written over: the primitives each arithmetic defines, and what follows from them.

    Primitives: ``cast`` (exact values to the format), ``const`` (a scalar in the working type), ``w`` (to the
    working type), ``out`` (working type to the format, rounded), ``zeros`` and ``wzeros`` (of the format, of the
    working type), ``wexp``, ``wlog``, ``wsqrt``, ``werf``, ``wtanh`` (in the working type, correctly rounded to
    it), ``fma``, ``mm``, ``rowsum`` (sequential, over the last axis), ``host`` and ``host_sqrt`` (a scalar as
    torch's Python code computes it); ``wider`` (the working type is wider than the format), ``exact`` (nothing
    is rounded: the reference a float run is measured against, so a statistic takes its definition, not a float
    algorithm's order), ``name`` and ``ctx`` (mpmath, for the exact constants a model rounds).  Numpy's operators
    on working-type arrays are the working type's own.
    """

    exact = False

    # elementwise operations of the format, each result rounded to it
    def add(self, a, b):
        return self.out(self.w(a) + self.w(b))

    def sub(self, a, b):
        return self.out(self.w(a) - self.w(b))

    def mul(self, a, b):
        return self.out(self.w(a) * self.w(b))

    def div(self, a, b):
        return self.out(self.w(a) / self.w(b))

    def exp(self, x):
        return self.out(self.wexp(x))

    def log(self, x):
        return self.out(self.wlog(x))

    def sqrt(self, x):
        return self.out(self.wsqrt(x))

    def keep(self, v):
        """A working-type value stored in the tensor's own format and read back (a saved statistic, a buffer)."""
        return self.w(self.out(v))

    def shift(self, x):
        """What a softmax subtracts from each row of x before exp (…, 1): the row's maximum, as torch does."""
        return x.max(axis=-1, keepdims=True)

    def inv(self, x):
        """1/x in the working type, as an array (numpy's divide: an mpf divided by an array would first try to
        read the array as a number)."""
        return np.asarray(np.divide(self.const(1), x))

    def island(self):
        """The arithmetic of a float32 island: what Hugging Face's Llama computes in float32 whatever the model's
        dtype (its RMSNorm and its rotary tables).  ``island().w(x)`` takes this format's values into it (rounded
        from float64, exact from the 16-bit formats) and ``out`` brings its results back.  The exact arithmetic
        is its own island."""
        return self


class Floats(Arithmetic):
    """IEEE arithmetic of one format, in PyTorch CPU's order (see the module docstring)."""

    def __init__(self, fmt: str):
        self.name = fmt
        self.round, self.wide = FORMATS[fmt][0], FORMATS[fmt][1]
        self.dt = np.float32 if self.round is bfloat16 else self.round   # the numpy type the format's values are in
        self.wider = self.wide is not self.round
        self.ctx = _MP50

    def cast(self, x):
        """Exact values (Fractions, ints, strings of decimals, mpf) rounded to the format: p/q with both below
        2⁵³ in float arithmetic (:func:`rounded_quotients`), any other number through :func:`round_to`."""
        a = np.array(x, dtype=object)
        out = np.empty(a.shape, dtype=np.float64)
        flat, done = a.ravel(), out.ravel()
        pq = [(v.numerator, v.denominator) if isinstance(v, (Fraction, int)) else None for v in flat]
        quick = np.array([t is not None and abs(t[0]) < 2 ** 53 and t[1] < 2 ** 53 for t in pq], dtype=bool)
        if quick.any():
            p = np.array([t[0] for t, ok in zip(pq, quick) if ok], dtype=np.float64)
            q = np.array([t[1] for t, ok in zip(pq, quick) if ok], dtype=np.float64)
            done[quick] = rounded_quotients(p, q, self.name)
        for i in np.flatnonzero(~quick):
            done[i] = round_to(fraction(flat[i]), self.name)
        return out.reshape(a.shape).astype(self.dt)

    def const(self, q):
        """A scalar in the working type (a Python float given to a torch operation)."""
        return self.wide(float(q))

    def host(self, q):
        """An exact scalar as torch's Python code holds it: a Python float."""
        return float(q)

    def host_sqrt(self, x):
        """√x of a host scalar, in Python floats (``math.sqrt``)."""
        return math.sqrt(x)

    def out(self, x):
        x = np.asarray(x, dtype=self.wide)
        return bfloat16(x) if self.round is bfloat16 else x.astype(self.dt)

    def island(self):
        return self if self.name == "float32" else Floats("float32")

    def w(self, x):
        return np.asarray(x).astype(self.wide)

    def zeros(self, shape=()):
        return np.zeros(shape, dtype=self.dt)

    def wzeros(self, shape=()):
        return np.zeros(shape, dtype=self.wide)

    def wexp(self, x):
        return self._rounded(np.exp, "exp", x)

    def wlog(self, x):
        return self._rounded(np.log, "log", x)

    def wsqrt(self, x):
        return np.sqrt(self.w(x))

    def werf(self, x):
        return self._rounded(np.vectorize(math.erf, otypes=[np.float64]), "erf", x)

    def wtanh(self, x):
        return self._rounded(np.tanh, "tanh", x)

    def _rounded(self, f, name, x):
        """f(x) correctly rounded to the working type (torch's exp and log nearly always are; numpy's float32
        ones often are not): through float64 for float32, through mpmath for float64."""
        x = self.w(x)
        if self.wide is np.float32:
            return f(x.astype(np.float64)).astype(np.float32)
        g = getattr(_CR, name)
        return np.vectorize(lambda v: float(g(v)) if math.isfinite(v) else float(f(v)), otypes=[np.float64])(x)

    def rowsum(self, x):
        """Σ over the last axis of a working-type array, sequentially."""
        acc = np.zeros(x.shape[:-1], dtype=x.dtype)
        for k in range(x.shape[-1]):
            acc = acc + x[..., k]
        return acc

    def mm(self, a, b):
        """(m, k)·(k, n): products rounded (exact in float32 for 16-bit formats), summed over k in order; in
        float32/float64, when b is a transposed view (as torch's Mᵀ is), the even and the odd k are summed apart
        and the two sums added (what torch's CPU kernel does for that layout)."""
        strided = (not self.wider and np.ndim(b) == 2 and np.shape(a)[0] > 1 and b.shape[0] > 2
                   and b.strides[0] < b.strides[1])
        a, b = self.w(a), self.w(b)
        lanes = [np.zeros((a.shape[0], b.shape[1]), dtype=self.wide) for _ in range(2 if strided else 1)]
        for k in range(a.shape[1]):
            lanes[k % len(lanes)] = lanes[k % len(lanes)] + a[:, k:k + 1] * b[k:k + 1, :]
        return self.out(lanes[0] + lanes[1] if strided else lanes[0])

    def fma(self, a, b, c):
        """a·b + c rounded once in the working type (the compiler fuses these in torch's vectorised kernels):
        :func:`fused`, vectorised; an entry beyond its proof's range through exact Fractions."""
        wide = "float64" if self.wide is np.float64 else "float32"
        a, b, c = (np.asarray(v, dtype=np.float64) for v in np.broadcast_arrays(a, b, c))
        out, ok = fused(a, b, c, wide)
        for idx in zip(*np.nonzero(~ok)):
            out[idx] = round_to(Fraction(float(a[idx])) * Fraction(float(b[idx])) + Fraction(float(c[idx])), wide)
        return out.astype(self.wide)


class Exact(Arithmetic):
    """The same primitives in mpmath (context ``ctx``, default 50 digits): the reference for local roundings.
    The format and the working type are both the context's numbers, so ``out`` and ``keep`` round nothing."""

    wider = False
    exact = True

    def __init__(self, ctx=None):
        self.name = "exact"
        if ctx is None:
            ctx = mpmath.mp.clone()
            ctx.dps = 50
        self.ctx = ctx

    def cast(self, x):
        return self.w(x)

    def table(self, exprs):
        """A table of exact SymPy constants (rows of expressions) in this context (SymPy's N, 10 digits over)."""
        return np.array([[self.const(self.ctx.mpf(str(sympy.N(e, self.ctx.dps + 10)))) for e in row]
                         for row in exprs], dtype=object)

    def const(self, q):
        return self.ctx.mpf(q.numerator) / q.denominator if isinstance(q, Fraction) else self.ctx.mpf(q)

    def host(self, q):
        """An exact scalar kept exact (a Fraction)."""
        return Fraction(q)

    def host_sqrt(self, x):
        return self.ctx.sqrt(self.const(x))

    def w(self, x):
        """Any numbers (floats, Fractions, mpf) as an object array of this context's mpf (an object array is
        taken to hold them already: every value this arithmetic makes is one)."""
        if isinstance(x, np.ndarray) and x.dtype == object:
            return x
        def one(v):
            if isinstance(v, Fraction):
                return self.ctx.mpf(v.numerator) / v.denominator
            return self.ctx.mpf(v) if hasattr(v, "_mpf_") else self.ctx.mpf(float(v))
        return np.vectorize(one, otypes=[object])(np.asarray(x, dtype=object)) if np.ndim(x) else \
            np.array(one(x if not isinstance(x, np.ndarray) else x.item()), dtype=object)

    def out(self, x):
        return np.asarray(x, dtype=object)

    def zeros(self, shape=()):
        return np.full(shape, self.ctx.mpf(0), dtype=object)

    wzeros = zeros

    def _map(self, f, x):
        return np.vectorize(f, otypes=[object])(self.w(x))

    def wexp(self, x):
        return self._map(lambda v: self.ctx.exp(v) if v != -mpmath.inf else self.ctx.mpf(0), x)

    def wlog(self, x):
        return self._map(self.ctx.log, x)

    def wsqrt(self, x):
        return self._map(self.ctx.sqrt, x)

    def werf(self, x):
        return self._map(self.ctx.erf, x)

    def wtanh(self, x):
        return self._map(self.ctx.tanh, x)

    def rowsum(self, x):
        acc = np.zeros(x.shape[:-1], dtype=object) + self.ctx.mpf(0)
        for k in range(x.shape[-1]):   # the array first: an mpf + an array would try to read it as a number
            acc = x[..., k] + acc
        return np.asarray(acc, dtype=object)

    def mm(self, a, b):
        return np.dot(self.w(a), self.w(b))

    def fma(self, a, b, c):
        return a * b + c


# ---------------------------------------------------------------------------------------------- the stages

class Stage:
    """One named tensor: ``fn(ar, *values of inputs)``."""

    __slots__ = ("name", "inputs", "fn")

    def __init__(self, name, inputs, fn):
        self.name, self.inputs, self.fn = name, tuple(inputs), fn

    def __repr__(self):
        return f"Stage({self.name} ← {', '.join(self.inputs)})"


def exact_params(spec) -> dict:
    """The spec's parameters as exact Fractions (from their decimal text), one nested list per group."""
    def q(x):
        return Fraction(int(x.p), int(x.q)) if isinstance(x, sympy.Rational) else Fraction(str(x))
    return {n: [[q(x) for x in r] for r in v] if v and isinstance(v[0], list) else [q(x) for x in v]
            for n, v in spec.params.items()}


SAVED = ("format", "working")
"""Where an op keeps what its forward saves for its backward: in the tensor's own format (PyTorch's CPU kernels:
16-bit statistics for a 16-bit input) or in the working type."""


class Pipeline:
    """Every stage of one spec's forward pass, adjoints and first SGD/AdamW updates (PyTorch's formulas).

    ``params`` are the groups read from the spec (their exact values in ``exact_params(spec)``); stages are in
    evaluation order and every stage's inputs come earlier.  ``trained`` are the groups an optimizer updates.
    The forward and the adjoints are the plan's ops (:meth:`symgpt.engine.arch.Arch.plan`), each one's float
    facet in :mod:`symgpt.ops` called in plan order and then in reverse; ``decisions`` are the tensors whose
    signs or order an op decides on (:meth:`decide`).  ``saved`` is passed to every op (:data:`SAVED`).

    >>> from symgpt.engine.spec import load_spec
    >>> p = Pipeline(load_spec("derivations/bigram.toml"))
    >>> [st.name for st in p.stages][:5], p.decisions["p"]
    (['x', 'z', 'p', 'logp', 'loss'], ('top', ''))
    """

    def __init__(self, spec, updates=True, saved="format"):
        if saved not in SAVED:
            raise ValueError(f"saved: expected one of {', '.join(SAVED)}, got {saved!r}")
        self.spec, self.saved = spec, saved
        self.stages: list[Stage] = []
        self.params = list(spec.params)
        self.decisions: dict = {}
        tr = spec.training
        self.trained = sorted({n.partition("[")[0] for n in _trained(spec)}, key=self.params.index)
        self.plan = Arch.of(spec).plan(len(spec.input), spec.input, spec.target)
        # how many applications read each tensor: its adjoint is complete once each of them has added its share
        self._readers = Counter(x for a in self.plan for x in dict.fromkeys(a.ins + tuple(p for _, p in a.params)))
        self._grad: dict = {}      # tensor → the stage holding its complete adjoint
        self._shares: dict = {}    # tensor → the shares of its adjoint not yet summed
        for a in self.plan:
            OPS[a.op].floats_forward(a, self)
        for a in reversed(self.plan):
            OPS[a.op].floats_backward(a, self)
        for name in self.params:   # a parameter read twice (a tied table): its sum after every share
            if name in self._shares:
                self.grad(name)
        self.grads = ["grad_" + n for n in self.params if "grad_" + n in self.names]
        self.notes = []
        if updates and len(tr.examples) > 1:
            self.notes.append("the first updates are left out: a mini-batch's step moves by its examples' mean "
                              "gradient, and this pipeline runs [data]'s example alone")
        elif updates:
            self._updates()

    @property
    def names(self) -> list:
        return [st.name for st in self.stages]

    # -- what an op's float facet calls -------------------------------------------------------------------
    def add(self, name, inputs, fn, beside=None):
        """The stage ``name = fn(ar, *inputs)``, after the others (or right after the stage ``beside``)."""
        st = Stage(name, inputs, fn)
        if beside is None:
            self.stages.append(st)
        else:
            self.stages.insert(self.names.index(beside) + 1, st)

    def decide(self, name, kind: str, label: str = ""):
        """``name`` is a tensor an op decides on: ``top`` (its argmax and top-k), ``causal`` (the argmax of each
        causal row) or ``sign`` (each entry's sign, one decision of the op ``label`` each)."""
        self.decisions[name] = (kind, label)

    def grad(self, name) -> str:
        """The stage holding ∂loss/∂name, complete: the sum of its shares (made here, once), the one share
        itself, or the adjoint an alias passes on unchanged.

        >>> import symgpt
        >>> p = Pipeline(symgpt.load("tiny-transformer").spec)
        >>> p.grad("Attn"), next(st.inputs for st in p.stages if st.name == "grad_LN1")   # H1 = H0 + Attn
        ('grad_H1', ('grad_H2', 'grad_Z', 'W_1'))
        """
        if name not in self._grad:
            shares = self._shares.pop(name, [])
            if not shares or len(shares) < self._readers[name]:
                raise KeyError(f"the adjoint of {name} is not complete: {len(shares)} of "
                               f"{self._readers[name]} shares")
            if len(shares) == 1 and shares[0][1] is None:
                self._grad[name] = shares[0][0][0]
            elif len(shares) == 1:
                self.add("grad_" + name, *shares[0][:2])
                self._grad[name] = "grad_" + name
            else:
                inputs = list(dict.fromkeys(i for ins, _, _ in shares for i in ins))
                self.add("grad_" + name, inputs, _summed(shares, inputs))
                self._grad[name] = "grad_" + name
        return self._grad[name]

    def share(self, name, inputs, fn):
        """Add ``fn(ar, *inputs)`` to the adjoint of ``name`` (after the shares before it)."""
        self._contribute(name, inputs, fn, lambda ar, acc, *v: plus(ar, acc, fn(ar, *v)))

    def fold(self, name, inputs, fn):
        """Add a share that adds itself: ``fn(ar, acc, *inputs)`` is the sum so far with it (``acc`` None when
        it is the first)."""
        self._contribute(name, inputs, lambda ar, *v: fn(ar, None, *v), fn)

    def alias(self, name, source: str):
        """Add the adjoint held by the stage ``source`` to that of ``name``, unchanged (no stage of its own
        when it is the only share)."""
        self._contribute(name, (source,), None, lambda ar, acc, v: plus(ar, acc, v))

    def _contribute(self, name, inputs, alone, fold):
        """A share of ``name``'s adjoint; a tensor read once has its adjoint made from it here."""
        self._shares.setdefault(name, []).append((tuple(inputs), alone, fold))
        if self._readers[name] == 1:
            self.grad(name)

    # -- the first updates --------------------------------------------------------------------------------
    def _updates(self):
        tr = self.spec.training
        lr, a = _first_rate(self.spec, tr.lr), tr.adamw   # the schedule's rate at update 0 (a warm-up's share)
        alr = _first_rate(self.spec, a.lr)
        b1, b2, eps, wd = (Fraction(str(x)) for x in (a.beta1, a.beta2, a.eps, a.weight_decay))
        decays = set(_decaying(self.spec, self.trained))
        grad = {n: "grad_" + n for n in self.trained}
        if tr.clip is not None:  # torch.nn.utils.clip_grad_norm_: every gradient times min(1, c/(‖g‖ + 10⁻⁶))
            c = Fraction(str(tr.clip))
            self.add("clip_coef", list(grad.values()), lambda ar, *gs: clip_coef(ar, gs, c))
            for n in self.trained:
                self.add(f"clip[1].grad_{n}", [grad[n], "clip_coef"], lambda ar, G, k: ar.mul(G, k))
            grad = {n: f"clip[1].grad_{n}" for n in self.trained}
        for n in self.trained:
            self.add(f"sgd[1].{n}", [n, grad[n]], lambda ar, P, G: _sgd(ar, P, G, lr))

            def adamw(ar, P, G, wd=wd if n in decays else Fraction(0)):
                # torch.optim.AdamW's first step (single-tensor): θ·(1 − lr·λ); m = lerp(0, g, 1 − β1);
                # v = 0 + (1 − β2)·g·g; θ + (−lr/(1 − β1))·m / (√v / √(1 − β2) + ε), the scalars in Python floats
                k = _scalars(ar, alr, b1, b2, wd)
                P = ar.mul(P, k["decay"]) if wd else P
                m = ar.mul(G, k["1-b1"])
                v = ar.out(ar.fma(ar.w(G) * k["1-b2"], ar.w(G), ar.w(0)))
                den = ar.add(ar.div(ar.sqrt(v), k["sqrt(bc2)"]), ar.const(eps))
                return ar.out(ar.w(P) + ar.w(m) * k["-step"] / ar.w(den))   # = −step·m/den, array first
            self.add(f"adamw[1].{n}", [n, grad[n]], adamw)


def _summed(shares, inputs):
    """The stage function of an adjoint summed from several shares, in the order they came (each folds itself in)."""
    picks = [[inputs.index(i) for i in ins] for ins, _, _ in shares]
    folds = [f for _, _, f in shares]

    def fn(ar, *values):
        acc = None
        for pick, f in zip(picks, folds):
            acc = f(ar, acc, *(values[i] for i in pick))
        return acc
    return fn


def clip_coef(ar, grads, c: Fraction):
    """torch's clip_grad_norm_: each gradient's 2-norm, the norm of those norms, c/(norm + 10⁻⁶) clamped to 1
    (a 0-d array of the format, the factor every gradient is multiplied by).

    >>> ar = Floats("float32")
    >>> float(clip_coef(ar, [ar.cast([3]), ar.cast([4])], Fraction(1, 2)))   # 0.5/(‖(3, 4)‖ + 10⁻⁶), ‖(3, 4)‖ = 5
    0.09999997913837433
    """
    norms = [ar.out(ar.wsqrt(ar.rowsum(np.ravel(ar.w(g)) ** 2))) for g in grads]
    total = ar.out(ar.wsqrt(ar.rowsum(ar.w(np.stack(norms)) ** 2)))
    coef = ar.out(ar.const(c) / (ar.w(total) + ar.const(Fraction(1, 10 ** 6))))
    return np.minimum(coef, ar.out(ar.const(1)))


def _first_rate(spec, lr) -> Fraction:
    """The learning rate of update 0 (:func:`symgpt.training.train.lr_at`: a warm-up's first share, else lr itself).

    >>> import dataclasses, symgpt
    >>> spec = symgpt.load("bigram").spec
    >>> _first_rate(spec, spec.training.lr)
    Fraction(1, 2)
    >>> _first_rate(dataclasses.replace(spec, training=dataclasses.replace(spec.training, warmup=3)), spec.training.lr)
    Fraction(1, 8)
    """
    q = lr_at(spec, lr, 0)
    return Fraction(int(q.p), int(q.q))


def _sgd(ar, P, G, lr):
    """θ + (−lr)·g: torch's add_(g, alpha=−lr).  In float32/float64 one fused multiply-add.  In the 16-bit
    formats alpha is rounded to the format; whole vectors of 32 entries are done in float32 and rounded once, the
    entries after the last whole vector (a scalar loop) round the product to the format, then the sum."""
    if ar.wider:
        alpha = -ar.keep(ar.const(lr))
        vector = ar.out(ar.w(P) + ar.w(G) * alpha)
        scalar = ar.add(P, ar.mul(G, alpha))
        whole = np.arange(np.size(P)).reshape(np.shape(P)) < np.size(P) // 32 * 32
        return np.where(whole, vector, scalar).astype(ar.dt)
    return ar.out(ar.fma(ar.w(G), -ar.const(lr), ar.w(P)))


def _scalars(ar, lr, b1, b2, wd) -> dict:
    """AdamW's step-1 scalars as torch.optim computes them: in Python floats (:meth:`Floats.host`; exact values
    for :class:`Exact`), then given to the tensor operations in the working type."""
    lr, b1, b2, wd = (ar.host(x) for x in (lr, b1, b2, wd))
    step = 1  # the bias corrections 1 − β^step of the first update
    return {k: ar.const(v) for k, v in (("decay", 1 - lr * wd), ("1-b1", 1 - b1), ("1-b2", 1 - b2),
                                         ("-step", -(lr / (1 - b1 ** step))),
                                         ("sqrt(bc2)", ar.host_sqrt(1 - b2 ** step)))}


def _trained(spec) -> list:
    return _learnable(spec)


def _decaying(spec, trained) -> list:
    return [n for n in trained if not spec.training.decay_groups or n.rpartition(".")[2] not in NO_DECAY]


def run(pipe: Pipeline, ar, params: dict, upto: int | None = None) -> dict:
    """Every stage's value with the arithmetic ``ar`` from the exact ``params`` (rounded by ``ar.cast``).

    >>> from symgpt.engine.spec import load_spec
    >>> p = Pipeline(load_spec("derivations/bigram.toml"))
    >>> v = run(p, Floats("float32"), exact_params(p.spec))
    >>> v["loss"].dtype, round(float(v["loss"]), 5)
    (dtype('float32'), 1.05147)
    """
    vals = {n: ar.cast(x) for n, x in params.items()}
    for st in pipe.stages[:upto]:
        vals[st.name] = st.fn(ar, *(vals[i] for i in st.inputs))
    return vals
