"""The model in floating point: one forward pass, its adjoints and the first updates, written per layer in numpy.

Each named tensor is one *stage* ``(name, inputs, fn)``: ``fn(ar, *inputs)`` computes it from earlier tensors
with an arithmetic ``ar``.  :class:`Floats` is IEEE arithmetic in one format (numpy float64/float32/float16,
ml_dtypes bfloat16); :class:`Exact` is mpmath at a high precision, with the same code.  So the local rounding of a
stage is ``fn(Floats) − fn(Exact)`` on the same float inputs, and :mod:`symgpt.precision` can inject it alone.

Operation order (PyTorch 2.x on CPU, as measured for these shapes; see ``tests/test_precision.py``):

* matrix products: in float64 and float32 every product is rounded and the sum runs over k from 0 upwards, no fused
  multiply-add (what torch's CPU ``mm`` does for these small shapes), except that when the right factor is a
  transposed view (``K.T``, ``W.T`` in autograd) the even and the odd k are summed apart and then added; in
  bfloat16 and float16 the products are exact in float32, summed in float32 in order, and rounded once to the
  format.  (For n ≥ 16 columns torch's float32/float64 kernel sums in yet another order, not modelled.)
* reductions (sums over a row or a column): sequential, in float32 for bfloat16 and float16.
* softmax, log-softmax, LayerNorm and their backward formulas are each one composite operation: computed in
  float32 for bfloat16 and float16 (in the format itself for float32 and float64) and rounded once.  Softmax
  subtracts the row maximum first and multiplies by 1/Σ; the loss is −log_softmax[target], and its adjoint is
  ``exp(log_softmax) − onehot`` (torch's formula); the softmax adjoint is ``A ⊙ (g − Σ g·A)``; LayerNorm's is
  torch's ``a·g·γ + b·x + c`` form with ``a = rstd``.
* a loss over every position (``training.all_positions``): the head's (T, V) logits, a log-softmax per row, and
  the mean of −log p[next token] summed in position order, then ÷ T; each row's adjoint gets −1/T at its target
  (F.cross_entropy's mean; checked against it within the first-order bound, not bit for bit).
* exp, log and sqrt: numpy's in float64 and float32; computed in float32 and rounded for bfloat16 and float16.
  (torch's vectorised exp and log are not numpy's: they can differ in the last bit.)
* scalars (1/√d_k, ε, lr, β) are rounded to the arithmetic's working type (float32 for the two 16-bit formats).
* parameters: the spec's exact values rounded once to the nearest float of the format (no float32 master
  copy).  ``model.to(dtype)`` from a float64 model would round twice; for the seeds' short decimals the two
  agree.  The positional encoding is the correctly rounded sin/cos, not ``torch.sin`` in the format.

>>> import numpy as np
>>> ar = Floats("bfloat16")
>>> float(ar.mm(ar.cast([[1, 1]]), ar.cast([[1], [2 ** -9]]))[0, 0])  # the sum in float32, rounded once
1.0
"""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np

from ..core.errors import InputError
from ..training.train import NO_DECAY, _learnable, lr_at

_CR = mpmath.mp.clone()
_CR.dps = 40  # exp and log of a float64, then rounded to float64: correct but for a tie within 10⁻⁴⁰

FORMATS = {
    # name: (numpy type, working type of its composite operations, significand bits, smallest normal exponent)
    "float64": (np.float64, np.float64, 53, -1022),
    "float32": (np.float32, np.float32, 24, -126),
    "bfloat16": (ml_dtypes.bfloat16, np.float32, 8, -126),
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


class Floats:
    """IEEE arithmetic of one format, in PyTorch CPU's order (see the module docstring)."""

    def __init__(self, fmt: str):
        self.name = fmt
        self.dt, self.wide = FORMATS[fmt][0], FORMATS[fmt][1]

    def cast(self, x):
        """Exact values (Fractions, ints, strings of decimals, mpf) rounded to the format."""
        a = np.array(x, dtype=object)
        return np.vectorize(lambda q: round_to(fraction(q), self.name), otypes=[np.float64])(a).astype(self.dt)

    def const(self, q: Fraction):
        """A scalar in the working type (a Python float given to a torch operation)."""
        return self.wide(float(q))

    def out(self, x):
        return np.asarray(x, dtype=self.wide).astype(self.dt)

    def w(self, x):
        return np.asarray(x).astype(self.wide)

    # elementwise operations of the format, each result rounded to it
    def add(self, a, b):
        return self.out(self.w(a) + self.w(b))

    def sub(self, a, b):
        return self.out(self.w(a) - self.w(b))

    def mul(self, a, b):
        return self.out(self.w(a) * self.w(b))

    def div(self, a, b):
        return self.out(self.w(a) / self.w(b))

    def relu(self, z):
        return np.where(self.w(z) > 0, z, self.dt(0)).astype(self.dt)

    def step_mask(self, z, g):
        """ReLU's adjoint: g where z > 0, else 0."""
        return np.where(self.w(z) > 0, g, self.dt(0)).astype(self.dt)

    def exp(self, x):
        return self.out(self._rounded(np.exp, "exp", x))

    def log(self, x):
        return self.out(self._rounded(np.log, "log", x))

    def _rounded(self, f, name, x):
        """f(x) correctly rounded to the working type (torch's exp and log nearly always are; numpy's float32
        ones often are not): through float64 for float32, through mpmath for float64."""
        x = self.w(x)
        if self.wide is np.float32:
            return f(x.astype(np.float64)).astype(np.float32)
        g = getattr(_CR, name)
        return np.vectorize(lambda v: float(g(v)) if math.isfinite(v) else float(f(v)), otypes=[np.float64])(x)

    def sqrt(self, x):
        return self.out(np.sqrt(self.w(x)))

    # composite operations: in the working type, rounded once
    def _rowsum(self, x):                                   # x (…, n) in the working type: sequential
        acc = np.zeros(x.shape[:-1], dtype=x.dtype)
        for k in range(x.shape[-1]):
            acc = acc + x[..., k]
        return acc

    def mm(self, a, b):
        """(m, k)·(k, n): products rounded (exact in float32 for 16-bit formats), summed over k in order; in
        float32/float64, when b is a transposed view (as torch's Mᵀ is), the even and the odd k are summed apart
        and the two sums added (what torch's CPU kernel does for that layout)."""
        strided = (self.wide is self.dt and np.ndim(b) == 2 and np.shape(a)[0] > 1 and b.shape[0] > 2
                   and b.strides[0] < b.strides[1])
        a, b = self.w(a), self.w(b)
        lanes = [np.zeros((a.shape[0], b.shape[1]), dtype=self.wide) for _ in range(2 if strided else 1)]
        for k in range(a.shape[1]):
            lanes[k % len(lanes)] = lanes[k % len(lanes)] + a[:, k:k + 1] * b[k:k + 1, :]
        return self.out(lanes[0] + lanes[1] if strided else lanes[0])

    def colsum(self, g):
        """Σ over rows (a bias gradient), (T, n) → (n,)."""
        return self.out(self._rowsum(self.w(g).T))

    def softmax(self, x, mask=None):
        """Row softmax of (…, n); masked entries (True) are −∞."""
        x = self.w(x)
        if mask is not None:
            x = np.where(mask, -np.inf, x).astype(self.wide)
        e = self._rounded(np.exp, "exp", (x - x.max(axis=-1, keepdims=True)).astype(self.wide))
        return self.out(e * (self.wide(1) / self._rowsum(e))[..., None])

    def log_softmax(self, x):
        x = self.w(x)
        m = x.max(axis=-1, keepdims=True)
        e = self._rounded(np.exp, "exp", (x - m).astype(self.wide))
        # torch keeps Σ and its log in the tensor's own format (a 16-bit buffer for a 16-bit input)
        ls = self.w(self.out(self._rounded(np.log, "log", self.w(self.out(self._rowsum(e))))))
        return self.out((x - m) - ls[..., None])

    def xent_grad(self, logp, target, n: int = 1):
        """torch's adjoint of −log_softmax[target] (over n positions, the mean's share −1/n):
        g − exp(log p)·Σg with g = −onehot/n, i.e. (exp(log p) − onehot)/n."""
        g = np.zeros(logp.shape, dtype=self.wide)
        g[target] = -self.wide(1) / self.wide(n) if n > 1 else -1
        return self.out(g - self._rounded(np.exp, "exp", logp) * self._rowsum(g))

    def clip_coef(self, grads, c: Fraction):
        """torch's clip_grad_norm_: each gradient's 2-norm, the norm of those norms, c/(norm + 10⁻⁶) clamped to 1
        (a 0-d array of the format, the factor every gradient is multiplied by)."""
        norms = [self.out(np.sqrt(self._rowsum(np.ravel(self.w(g)) ** 2))) for g in grads]
        total = self.out(np.sqrt(self._rowsum(self.w(np.array(norms)) ** 2)))
        coef = self.out(self.wide(float(c)) / (self.w(total) + self.wide(1e-6)))
        return np.minimum(coef, self.out(self.wide(1)))

    def mean_nll(self, logps, ys):
        """The mean over positions of −log p[y], summed in position order in the working type, then ÷ n."""
        acc = self.wide(0)
        for lp, y in zip(logps, ys):
            acc = acc - self.w(lp)[y]
        return self.out(acc / self.wide(len(ys)))

    def softmax_grad(self, a, g):
        """A ⊙ (g − Σ_s g·A), row by row."""
        a, g = self.w(a), self.w(g)
        return self.out(a * (g - self._rowsum(g * a)[..., None]))

    LANES = {"float64": 4}  # lanes of torch's vectorised Welford as measured (8 for float32 and its opmath)

    def _moments(self, x, eps):
        """(mean, rstd) of each row: torch's RowwiseMoments (Welford, per vector lane, lanes then merged), and
        rstd = 1/√(var + ε).  One chunk of lanes (d ≤ 16 vectors); beyond that torch cascades the chunks."""
        N, V = x.shape[-1], self.LANES.get(self.name, 8)
        n, w = N // V, self.wide
        m1, m2 = np.zeros(x.shape[:-1] + (V,), w), np.zeros(x.shape[:-1] + (V,), w)
        for j in range(n):                                   # lane-wise Welford, × 1/(j+1)
            xv = x[..., j * V:(j + 1) * V]
            delta = xv - m1
            m1 = m1 + delta * w(1 / w(j + 1))
            m2 = m2 + delta * (xv - m1)
        c0, a1, a2 = 0, np.zeros(x.shape[:-1], w), np.zeros(x.shape[:-1], w)
        for i in range(n * V, N):                            # the tail, scalar Welford
            delta = x[..., i] - a1
            c0 += 1
            a1 = a1 + delta / w(c0)
            a2 = a2 + delta * (x[..., i] - a1)
        for lane in range(V if n else 0):                    # AddMoments of each lane (two multiply-adds fused)
            c = w(n) / w(c0 + n)
            delta = m1[..., lane] - a1
            a1 = self.fma(c, delta, a1)
            a2 = a2 + self.fma(delta * delta * c, w(c0), m2[..., lane])
            c0 += n
        return a1, w(1) / np.sqrt(a2 / w(N) + eps)

    def layer_norm(self, x, gamma, beta, eps):
        """(x − mean)·rstd·γ + β per row, the last multiply-add fused; rstd = 1/√(var + ε) (biased variance)."""
        x = self.w(x)
        mean, rstd = self._moments(x, self.const(Fraction(str(eps))))
        return self.out(self.fma((x - mean[:, None]) * rstd[:, None], self.w(gamma), self.w(beta)))

    def fma(self, a, b, c):
        """a·b + c rounded once in the working type (the compiler fuses these in torch's vectorised kernels)."""
        wide = "float64" if self.wide is np.float64 else "float32"
        a, b, c = np.broadcast_arrays(a, b, c)
        return np.vectorize(lambda x, y, z: round_to(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)),
                                                     wide), otypes=[np.float64])(a, b, c).astype(self.wide)

    def _saved(self, x, eps):
        """(mean, rstd) as the forward pass saves them for the backward: in the tensor's own format (torch's CPU
        LayerNorm keeps them in bfloat16 or float16 for a 16-bit input)."""
        return tuple(self.w(np.asarray(v).astype(self.dt)) for v in self._moments(x, self.const(Fraction(str(eps)))))

    def layer_norm_grad(self, x, g, gamma, eps):
        """∂L/∂x of LayerNorm in torch's CPU form: a·g·γ + b·x + c with a = rstd,
        b = (Σgγ·mean − Σgxγ)·a³/N, c = −b·mean − Σgγ·a/N (fused multiply-adds where torch's compiler fuses)."""
        x, g, gamma = self.w(x), self.w(g), self.w(gamma)
        inv = self.const(Fraction(1, x.shape[-1]))
        mean, a = self._saved(x, eps)
        ds, db = self._rowsum(g * x * gamma), self._rowsum(g * gamma)
        b = self.fma(db, mean, -ds) * a * a * a * inv
        c = self.fma(-b, mean, -(db * a * inv))
        return self.out(self.fma(b[:, None], x, a[:, None] * g * gamma) + c[:, None])

    def layer_norm_param_grads(self, x, g, eps):
        """(∂L/∂γ, ∂L/∂β) = (Σ_t g·(a·x − a·mean), Σ_t g) with a = rstd, accumulated row by row."""
        x, g = self.w(x), self.w(g)
        mean, a = self._saved(x, eps)
        xh = self.fma(a[:, None], x, (-a * mean)[:, None])
        keep = self._buffer
        dg, dbeta = keep(g[0] * xh[0]), keep(g[0])
        for t in range(1, x.shape[0]):
            dg, dbeta = keep(self.fma(g[t], xh[t], dg)), keep(dbeta + g[t])
        return self.out(dg), self.out(dbeta)

    def _buffer(self, v):
        """A value stored in torch's per-thread γ/β gradient buffer, which has the tensor's own format."""
        return self.w(self.out(v))


class Exact(Floats):
    """The same operations in mpmath (context ``ctx``, default 50 digits): the reference for local roundings."""

    def __init__(self, ctx=None):
        self.name = "exact"
        if ctx is None:
            ctx = mpmath.mp.clone()
            ctx.dps = 50
        self.ctx = ctx

    def cast(self, x):
        return self.w(x)

    def const(self, q):
        return self.ctx.mpf(q.numerator) / q.denominator if isinstance(q, Fraction) else self.ctx.mpf(q)

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

    def _map(self, f, x):
        return np.vectorize(f, otypes=[object])(self.w(x))

    def exp(self, x):
        return self._map(lambda v: self.ctx.exp(v) if v != -mpmath.inf else self.ctx.mpf(0), x)

    def log(self, x):
        return self._map(self.ctx.log, x)

    def sqrt(self, x):
        return self._map(self.ctx.sqrt, x)

    def relu(self, z):
        return np.where(self.w(z) > 0, self.w(z), self.ctx.mpf(0)).astype(object)

    def step_mask(self, z, g):
        return np.where(self.w(z) > 0, self.w(g), self.ctx.mpf(0)).astype(object)

    def mm(self, a, b):
        return np.dot(self.w(a), self.w(b))

    def softmax(self, x, mask=None):
        x = self.w(x)
        if mask is not None:
            x = np.where(mask, -mpmath.inf, x).astype(object)
        e = self.exp(x - np.array([max(r) for r in x.reshape(-1, x.shape[-1])], dtype=object).reshape(
            x.shape[:-1] + (1,)))
        return e / self._rowsum(e)[..., None]

    def log_softmax(self, x):
        x = self.w(x)
        m = max(x)
        return (x - m) - self.ctx.log(sum(self.exp(x - m)))

    def xent_grad(self, logp, target, n: int = 1):
        g = self.exp(logp)
        g[target] -= 1
        return g / n if n > 1 else g

    def clip_coef(self, grads, c: Fraction):
        norm = self.ctx.sqrt(sum((x * x for g in grads for x in np.ravel(g)), self.ctx.mpf(0)))
        return min(self.const(c) / (norm + self.const(Fraction(1, 10 ** 6))), self.ctx.mpf(1))

    def mean_nll(self, logps, ys):
        return sum((-self.w(lp)[y] for lp, y in zip(logps, ys)), self.ctx.mpf(0)) / len(ys)

    def _moments(self, x, eps):
        n = x.shape[-1]
        mean = self._rowsum(x) / n
        c = x - mean[:, None]
        rstd = np.array([1 / self.ctx.sqrt(v / n + eps) for v in self._rowsum(c * c)], dtype=object)
        return mean, rstd

    def _saved(self, x, eps):
        return self._moments(x, self.const(Fraction(str(eps))))


    def fma(self, a, b, c):
        return a * b + c

    def _buffer(self, v):
        return v

    def _rowsum(self, x):
        acc = np.zeros(x.shape[:-1], dtype=object) + self.ctx.mpf(0)
        for k in range(x.shape[-1]):
            acc = acc + x[..., k]
        return np.asarray(acc, dtype=object)


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
        return Fraction(str(x))
    return {n: [[q(x) for x in r] for r in v] if v and isinstance(v[0], list) else [q(x) for x in v]
            for n, v in spec.params.items()}


def positional_exact(T: int, d: int, base, ctx) -> list:
    """PE[t][2i] = sin(t / base^(2i/d)), PE[t][2i+1] = cos(…), in mpmath (``ctx``)."""
    b = ctx.mpf(Fraction(str(base)).numerator) / Fraction(str(base)).denominator
    return [[(ctx.sin if j % 2 == 0 else ctx.cos)(t / b ** (ctx.mpf(2 * (j // 2)) / d)) for j in range(d)]
            for t in range(T)]


class Pipeline:
    """Every stage of one spec's forward pass, adjoints and first SGD/AdamW updates (PyTorch's formulas).

    ``params`` are the groups read from the spec (their exact values in ``exact_params(spec)``); stages are in
    evaluation order and every stage's inputs come earlier.  ``trained`` are the groups an optimizer updates.

    >>> from symgpt.engine.spec import load_spec
    >>> p = Pipeline(load_spec("derivations/bigram.toml"))
    >>> [st.name for st in p.stages][:5]
    ['x', 'z', 'p', 'logp', 'loss']
    """

    def __init__(self, spec, updates=True):
        self.spec = spec
        self.stages: list[Stage] = []
        self.params = list(spec.params)
        tr = spec.training
        self.trained = sorted({n.partition("[")[0] for n in _trained(spec)}, key=self.params.index)
        if spec.kind == "transformer":
            self._transformer()
        else:
            self._bigram()
        self.grads = ["grad_" + n for n in self.params if "grad_" + n in self.names]
        self.notes = []
        if updates:
            if len(tr.examples) > 1:
                self.notes.append("the first updates use [data] alone (the other examples of training.examples "
                                  "are left out of the gradient)")
            self._updates()

    @property
    def names(self) -> list:
        return [st.name for st in self.stages]

    def add(self, name, inputs, fn):
        self.stages.append(Stage(name, inputs, fn))

    # -- the bigram -------------------------------------------------------------------------------------
    def _bigram(self):
        s = self.spec
        tok, tgt = s.input[-1], s.target
        self.add("x", ["E"], lambda ar, E: E[tok].copy())
        self.add("z", ["x", "W"], lambda ar, x, W: ar.mm(x[None, :], W)[0])
        self._head_loss("z", tgt)
        self.add("grad_z", ["logp"], lambda ar, lp: ar.xent_grad(lp, tgt))
        self.add("grad_x", ["grad_z", "W"], lambda ar, g, W: ar.mm(g[None, :], W.T)[0])
        self.add("grad_W", ["x", "grad_z"], lambda ar, x, g: ar.mm(x[:, None], g[None, :]))
        self.add("grad_E", ["E", "grad_x"], lambda ar, E, g: _scatter(ar, E, [(tok, g)]))

    def _head_loss(self, z, tgt, earlier=(), ys=()):
        """p and log p at the last position; the loss −log p[target], or with ``earlier`` positions' log p
        (targets ``ys``, the last one's included) the mean of −log p over every position."""
        self.add("p", [z], lambda ar, v: ar.softmax(v))
        self.add("logp", [z], lambda ar, v: ar.log_softmax(v))
        if earlier:
            self.add("loss", list(earlier) + ["logp"], lambda ar, *lps: ar.mean_nll(lps, ys))
        else:
            self.add("loss", ["logp"], lambda ar, lp: ar.sub(lp[tgt] * 0, lp[tgt]))

    # -- the transformer ----------------------------------------------------------------------------------
    def _transformer(self):
        s = self.spec
        toks, T, d = list(s.input), len(s.input), s.d
        self.add("X", ["E"], lambda ar, E: E[toks].copy())
        self.add("PE", [], lambda ar: ar.cast(positional_exact(T, d, s.pe_base, _mp50())) if
                 not isinstance(ar, Exact) else ar.w(positional_exact(T, d, s.pe_base, ar.ctx)))
        self.add("H0", ["X", "PE"], lambda ar, X, P: ar.add(X, P))
        H = "H0"
        for l in range(s.layers):
            H = self._block(s.layer_prefix(l), H)
        W = "E" if s.tied else "W_out"
        head = (lambda ar, h, W_: ar.mm(h[None, :], W_.T if s.tied else W_)[0])
        every = s.training.all_positions  # the loss is the mean over every position: t predicts token t + 1
        early = list(range(T - 1)) if every else []
        for t in early:
            self.add(f"logits_at{t}", [H, W], lambda ar, X, W_, t=t: head(ar, X[t].copy(), W_))
            self.add(f"logp_at{t}", [f"logits_at{t}"], lambda ar, v: ar.log_softmax(v))
        self.add("h_final", [H], lambda ar, X: X[T - 1].copy())
        self.add("logits", ["h_final", W], head)
        ys = [toks[t + 1] for t in early] + [s.target]
        self._head_loss("logits", s.target, [f"logp_at{t}" for t in early], ys)
        # the adjoints, from the loss backwards (each position's share 1/T of the mean)
        n = len(ys)
        for t in early:
            self.add(f"grad_logits_at{t}", [f"logp_at{t}"], lambda ar, lp, y=ys[t]: ar.xent_grad(lp, y, n))
        self.add("grad_logits", ["logp"], lambda ar, lp: ar.xent_grad(lp, s.target, n))
        self.add("grad_h_final", ["grad_logits", W],
                 lambda ar, g, W_: ar.mm(g[None, :], W_ if s.tied else W_.T)[0])
        G = [f"grad_logits_at{t}" for t in early] + ["grad_logits"]
        last_block = [H]  # the head reads row t of the last block's output for each position it predicts from
        if s.tied:  # the last position's g ⊗ h_final (the engine's grad_E_head); the earlier ones' Σ_t g_t ⊗ h_t
            self.add("grad_E_head", ["grad_logits", "h_final"], lambda ar, g, h: ar.mm(g[:, None], h[None, :]))
            if early:
                self.add("grad_E_early", G[:-1] + last_block,
                         lambda ar, *a: ar.mm(np.stack(a[:-1]).T, a[-1][:len(a) - 1]))
        else:
            self.add("grad_W_out", G + last_block,
                     lambda ar, *a: ar.mm(a[-1][T - len(a[:-1]):].T, np.stack(a[:-1])))

        def grad_rows(ar, gh, W_, X, *gs):  # row T−1 from grad_h_final; rows t < T−1 from their own logits
            out = _row(ar, X, T - 1, gh)
            for t, g in enumerate(gs):
                out[t] = ar.mm(g[None, :], W_ if s.tied else W_.T)[0]
            return out
        self.add("grad_" + H, ["grad_h_final", W, H] + G[:-1], grad_rows)
        for l in reversed(range(s.layers)):
            self._block_backward(s.layer_prefix(l), "H0" if l == 0 else s.layer_prefix(l - 1) + "LN2")
        rows = [(tok, t) for t, tok in enumerate(toks)]
        if s.tied:  # autograd adds the embedding's gradient (its rows summed first) to the head's
            more = ["grad_E_early"] if s.training.all_positions and T > 1 else []

            def grad_E(ar, gh, g, *early):
                head_part = ar.add(gh, early[0]) if early else gh
                return ar.add(head_part, _scatter(ar, gh, [(tok, g[t]) for tok, t in rows]))
            self.add("grad_E", ["grad_E_head", "grad_H0"] + more, grad_E)
        else:
            self.add("grad_E", ["E", "grad_H0"], lambda ar, E, g: _scatter(ar, E, [(tok, g[t]) for tok, t in rows]))

    def _block(self, pre: str, H: str) -> str:
        s = self.spec
        T, heads = len(s.input), s.heads
        dk = s.d // heads
        n = {k: pre + k for k in ("Q", "K", "V", "S", "A", "Attn_heads", "Attn", "H1", "LN1", "Z", "R", "F",
                                  "H2", "LN2", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2",
                                  "gamma1", "beta1", "gamma2", "beta2")}
        has_WO = n["W_O"] in s.params
        mask = np.triu(np.ones((T, T), dtype=bool), 1)
        rs = Fraction(1, dk) ** Fraction(1, 2) if dk in (1, 4, 16, 64) else None  # 1/√d_k as torch gets it
        for m in ("Q", "K", "V"):
            self.add(n[m], [H, n["W_" + m]], lambda ar, X, W: ar.mm(X, W))

        def scores(ar, Q, K):                        # (heads, T, T) or (T, T): Q_h K_hᵀ / √d_k
            root = ar.const(Fraction(dk) ** Fraction(1, 2) if rs is not None else _sqrt(ar, dk))
            S = [ar.div(ar.mm(Q[:, h * dk:(h + 1) * dk], K[:, h * dk:(h + 1) * dk].T), root) for h in range(heads)]
            return S[0] if heads == 1 else np.stack(S)
        self.add(n["S"], [n["Q"], n["K"]], scores)
        self.add(n["A"], [n["S"]], lambda ar, S: ar.softmax(S, np.broadcast_to(mask, S.shape)))
        O = n["Attn_heads"] if has_WO else n["Attn"]

        def attend(ar, A, V):                        # (T, d): Σ_s A[t,s] V[s], heads side by side
            A = A if heads > 1 else A[None]
            return np.concatenate([ar.mm(A[h], V[:, h * dk:(h + 1) * dk]) for h in range(heads)], axis=1)
        self.add(O, [n["A"], n["V"]], attend)
        if has_WO:
            self.add(n["Attn"], [O, n["W_O"]], lambda ar, X, W: ar.mm(X, W))
        self.add(n["H1"], [H, n["Attn"]], lambda ar, X, Y: ar.add(X, Y))
        eps = s.ln_eps
        self.add(n["LN1"], [n["H1"], n["gamma1"], n["beta1"]], lambda ar, X, g, b: ar.layer_norm(X, g, b, eps))
        self.add(n["Z"], [n["LN1"], n["W_1"], n["b_1"]], lambda ar, X, W, b: ar.add(ar.mm(X, W), b))
        self.add(n["R"], [n["Z"]], lambda ar, Z: ar.relu(Z))
        self.add(n["F"], [n["R"], n["W_2"], n["b_2"]], lambda ar, X, W, b: ar.add(ar.mm(X, W), b))
        self.add(n["H2"], [n["LN1"], n["F"]], lambda ar, X, Y: ar.add(X, Y))
        self.add(n["LN2"], [n["H2"], n["gamma2"], n["beta2"]], lambda ar, X, g, b: ar.layer_norm(X, g, b, eps))
        self._n = n
        return n["LN2"]

    def _block_backward(self, pre: str, H: str):
        s = self.spec
        T, heads = len(s.input), s.heads
        dk = s.d // heads
        g = {k: "grad_" + pre + k for k in ("LN2", "H2", "F", "R", "Z", "LN1", "H1", "Attn", "Attn_heads", "A", "V",
                                            "S", "Q", "K", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2",
                                            "gamma1", "beta1", "gamma2", "beta2")}
        p = {k: pre + k for k in ("H1", "H2", "LN1", "Z", "R", "A", "V", "Q", "K", "Attn_heads", "W_Q", "W_K", "W_V",
                                  "W_O", "W_1", "W_2", "gamma1", "gamma2")}
        has_WO = p["W_O"] in s.params
        eps = s.ln_eps
        mask = np.triu(np.ones((T, T), dtype=bool), 1)
        self.add(g["H2"], [p["H2"], g["LN2"], p["gamma2"]], lambda ar, X, G, gm: ar.layer_norm_grad(X, G, gm, eps))
        self.add(g["gamma2"], [p["H2"], g["LN2"]], lambda ar, X, G: ar.layer_norm_param_grads(X, G, eps)[0])
        self.add(g["beta2"], [p["H2"], g["LN2"]], lambda ar, X, G: ar.layer_norm_param_grads(X, G, eps)[1])
        self.add(g["R"], [g["H2"], p["W_2"]], lambda ar, G, W: ar.mm(G, W.T))
        self.add(g["W_2"], [p["R"], g["H2"]], lambda ar, R, G: ar.mm(R.T, G))
        self.add(g["b_2"], [g["H2"]], lambda ar, G: ar.colsum(G))
        self.add(g["Z"], [p["Z"], g["R"]], lambda ar, Z, G: ar.step_mask(Z, G))
        self.add(g["W_1"], [p["LN1"], g["Z"]], lambda ar, X, G: ar.mm(X.T, G))
        self.add(g["b_1"], [g["Z"]], lambda ar, G: ar.colsum(G))
        self.add(g["LN1"], [g["H2"], g["Z"], p["W_1"]], lambda ar, G, GZ, W: ar.add(G, ar.mm(GZ, W.T)))
        self.add(g["H1"], [p["H1"], g["LN1"], p["gamma1"]], lambda ar, X, G, gm: ar.layer_norm_grad(X, G, gm, eps))
        self.add(g["gamma1"], [p["H1"], g["LN1"]], lambda ar, X, G: ar.layer_norm_param_grads(X, G, eps)[0])
        self.add(g["beta1"], [p["H1"], g["LN1"]], lambda ar, X, G: ar.layer_norm_param_grads(X, G, eps)[1])
        GO = g["Attn_heads"] if has_WO else g["H1"]
        if has_WO:
            self.add(g["W_O"], [p["Attn_heads"], g["H1"]], lambda ar, X, G: ar.mm(X.T, G))
            self.add(GO, [g["H1"], p["W_O"]], lambda ar, G, W: ar.mm(G, W.T))

        def per_head(f):
            def run(ar, *a):
                out = [f(ar, h, *a) for h in range(heads)]
                return out[0] if heads == 1 else np.stack(out)
            return run
        cols = [slice(h * dk, (h + 1) * dk) for h in range(heads)]
        hd = (lambda X, h: X if heads == 1 else X[h])
        self.add(g["A"], [GO, p["V"]], per_head(lambda ar, h, G, V: ar.mm(G[:, cols[h]], V[:, cols[h]].T)))
        self.add(g["V"], [p["A"], GO], lambda ar, A, G: np.concatenate(
            [ar.mm(hd(A, h).T, G[:, cols[h]]) for h in range(heads)], axis=1))

        def grad_S(ar, h, A, G):
            return np.where(mask, ar.cast(0) if not isinstance(ar, Exact) else ar.const(Fraction(0)),
                            ar.softmax_grad(hd(A, h), hd(G, h)))
        self.add(g["S"], [p["A"], g["A"]], per_head(grad_S))
        rs = dk in (1, 4, 16, 64)

        def qk(which):
            def run(ar, GS, Q, K):
                root = ar.const(Fraction(dk) ** Fraction(1, 2) if rs else _sqrt(ar, dk))
                out = []
                for h in range(heads):
                    G = ar.div(hd(GS, h), root)
                    out.append(ar.mm(G, K[:, cols[h]]) if which == "Q" else ar.mm(G.T, Q[:, cols[h]]))
                return np.concatenate(out, axis=1)
            return run
        self.add(g["Q"], [g["S"], p["Q"], p["K"]], qk("Q"))
        self.add(g["K"], [g["S"], p["Q"], p["K"]], qk("K"))
        for m in ("Q", "K", "V"):
            self.add(g["W_" + m], [H, g[m]], lambda ar, X, G: ar.mm(X.T, G))

        def through(ar, G, GQ, GK, GV, WQ, WK, WV):   # autograd's order: residual, then the V, K and Q paths
            return ar.add(ar.add(ar.add(G, ar.mm(GV, WV.T)), ar.mm(GK, WK.T)), ar.mm(GQ, WQ.T))
        self.add("grad_" + H, [g["H1"], g["Q"], g["K"], g["V"], p["W_Q"], p["W_K"], p["W_V"]], through)

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
            self.add("clip_coef", list(grad.values()), lambda ar, *gs: ar.clip_coef(gs, c))
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
                return ar.out(ar.w(P) + k["-step"] * ar.w(m) / ar.w(den))
            self.add(f"adamw[1].{n}", [n, grad[n]], adamw)


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
    if isinstance(ar, Exact):
        return P - G * ar.const(lr)
    if ar.wide is not ar.dt:
        alpha = -ar.w(ar.out(ar.const(lr)))
        vector = ar.out(ar.w(P) + ar.w(G) * alpha)
        scalar = ar.add(P, ar.mul(G, alpha))
        whole = np.arange(np.size(P)).reshape(np.shape(P)) < np.size(P) // 32 * 32
        return np.where(whole, vector, scalar).astype(ar.dt)
    return ar.out(ar.fma(ar.w(G), -ar.const(lr), ar.w(P)))


def _scalars(ar, lr, b1, b2, wd) -> dict:
    """AdamW's step-1 scalars as torch.optim computes them: Python floats (exact values for :class:`Exact`)."""
    if isinstance(ar, Exact):
        c = {k: ar.const(v) for k, v in (("decay", 1 - lr * wd), ("1-b1", 1 - b1), ("1-b2", 1 - b2),
                                          ("-step", -lr / (1 - b1)))}
        c["sqrt(bc2)"] = ar.ctx.sqrt(ar.const(1 - b2))
        return c
    lr, b1, b2, wd = float(lr), float(b1), float(b2), float(wd)
    return {k: ar.wide(v) for k, v in (("decay", 1 - lr * wd), ("1-b1", 1 - b1), ("1-b2", 1 - b2),
                                        ("-step", -(lr / (1 - b1 ** 1))), ("sqrt(bc2)", math.sqrt(1 - b2 ** 1)))}


def _mp50():
    ctx = mpmath.mp.clone()
    ctx.dps = 50
    return ctx


def _root(ar, q: Fraction):
    """√q as the arithmetic gets it (a float64 for the floats, as Python's math.sqrt; exact in mpmath)."""
    if isinstance(ar, Exact):
        return ar.ctx.sqrt(ar.const(q))
    return Fraction(float(np.sqrt(np.float64(float(q)))))


def _sqrt(ar, n: int):
    return _root(ar, Fraction(n))


def _row(ar, X, t, g):
    """A zero tensor shaped like X with row t = g."""
    out = np.zeros(X.shape, dtype=X.dtype) if not isinstance(ar, Exact) else np.zeros(X.shape, dtype=object) * 0 + \
        ar.const(Fraction(0))
    out[t] = g
    return out


def _scatter(ar, like, rows, start=None):
    """Σ of rows into a tensor shaped like ``like`` (an embedding's gradient), added in order."""
    out = _row(ar, like, 0, like[0] * 0) if start is None else start.copy()
    for i, g in rows:
        out[i] = ar.add(out[i], g)
    return out


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
