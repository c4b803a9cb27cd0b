"""Rotary positions (RoPE), as Hugging Face's Llama applies them: each head's queries and keys rotated by angle.

In ``rotate_half``'s convention a head of d_k columns pairs column i with column i + d_k/2 (i < d_k/2) and turns
the pair by the angle t·θ_i at position t, θ_i = base^(−2i/d_k):

    x'_i = x_i cos(tθ_i) − x_{i+d_k/2} sin(tθ_i),    x'_{i+d_k/2} = x_{i+d_k/2} cos(tθ_i) + x_i sin(tθ_i).

A rotation's adjoint is its transpose (:func:`rope_rule`, proven by SymPy).  The attention op
(:mod:`symgpt.ops.attention`) applies it to Q and K when its application has the option ``rope`` (the base);
this module holds every facet of the rotation itself.  At position 0 every angle is 0 and the rotation is the
identity, exactly.

>>> angle(sympy.Integer(10000), 4, 1, 2)      # 2·10000^(−2/4)
1/50
"""
from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import sympy

from ..core import numeric
from ..core.grid import tensor
from ..core.proofs import kept
from ..core.prove import Rule, closures, prove_equal, real, stated

STATED = {
    # one pair (x_i, x_{i+d_k/2}) turned by the angle φ: its adjoint turns (g_i, g_{i+d_k/2}) back by −φ
    "rope.grad_first": lambda g0, g1, c, s: g0 * c + g1 * s,
    "rope.grad_second": lambda g0, g1, c, s: -g0 * s + g1 * c,
}
"""The rules as the documents state them (c = cos φ, s = sin φ), proven equal to SymPy's derivation."""


def angle(base, dk: int, i: int, t: int):
    """t·θ_i = t·base^(−2i/d_k), exact (SymPy).

    >>> angle(sympy.Integer(10000), 2, 0, 3)
    3
    """
    return sympy.Integer(t) * sympy.Pow(base, sympy.Rational(-2 * i, dk))


def pair(c: int, dk: int) -> tuple:
    """(column paired with c, index i of its frequency, +1 for the first half of the head or −1 for the second).

    >>> pair(0, 4), pair(3, 4), pair(5, 4)
    ((2, 0, 1), (1, 1, -1), (7, 1, 1))
    """
    h, j = divmod(c, dk)
    half = dk // 2
    return (h * dk + j + half, j, 1) if j < half else (h * dk + j - half, j - half, -1)


def define(g, name: str, X, T: int, dk: int, base, meaning: str, axes=("t", "j")):
    """``name[t,c]`` = X rotated: X[t,c]·cos − X[t,partner]·sin (first half) or + (second half)."""
    d = len(X[0])

    def entry(idx):
        t, c = idx
        p, i, side = pair(c, dk)
        phi = angle(base, dk, i, t)
        return X[t][c] * sympy.cos(phi) - side * X[t][p] * sympy.sin(phi)
    return tensor(g, name, (T, d), meaning, axes, entry, [(X, lambda x: [x, (x[0], pair(x[1], dk)[0])])],
                  lambda idx: 2)


@functools.cache
def trig(base, dk: int, T: int) -> tuple:
    """(cos, sin) per position and frequency as SymPy expressions: [t][i]."""
    return tuple(tuple(sympy.cos(angle(base, dk, i, t)) for i in range(dk // 2)) for t in range(T)), \
        tuple(tuple(sympy.sin(angle(base, dk, i, t)) for i in range(dk // 2)) for t in range(T))


def _balls(base, dk: int, T: int) -> tuple:
    """cos and sin at the working precision (fmpq where exact: 1 and 0 at position 0)."""
    cos, sin = trig(base, dk, T)
    ev = lambda e: numeric.to_flint(e) if e.is_Rational else _arb(e)
    return [[ev(c) for c in row] for row in cos], [[ev(s) for s in row] for row in sin]


def _arb(e):
    f = numeric.compile_expr(e, {}, None)
    return f([])


def rotate(X, dk: int, base) -> list:
    """X (T, d) with every head's pairs turned by t·θ_i (fmpq/arb entries).

    >>> from flint import fmpq
    >>> rotate([[fmpq(1), fmpq(2)]], 2, sympy.Integer(10000))   # position 0: the identity
    [[1, 2]]
    """
    T, d = len(X), len(X[0])
    cos, sin = _balls(base, dk, T)
    out = []
    for t, row in enumerate(X):
        new = []
        for c in range(d):
            p, i, side = pair(c, dk)
            new.append(row[c] if t == 0 else row[c] * cos[t][i] - side * row[p] * sin[t][i])
        out.append(new)
    return out


def unrotate(G, dk: int, base) -> list:
    """The adjoint: each pair of G turned back by −t·θ_i (:func:`rope_rule`)."""
    T, d = len(G), len(G[0])
    cos, sin = _balls(base, dk, T)
    R = rope_rule()
    out = []
    for t, row in enumerate(G):
        new = []
        for c in range(d):
            p, i, side = pair(c, dk)
            if t == 0:
                new.append(row[c])
            elif side > 0:
                new.append(R.grad_first(row[c], row[p], cos[t][i], sin[t][i]))
            else:
                new.append(R.grad_second(row[p], row[c], cos[t][i], sin[t][i]))
        out.append(new)
    return out


@kept
def rope_rule() -> Rule:
    """y = (x0 c − x1 s, x1 c + x0 s): ∂(g·y)/∂x0 = g0 c + g1 s, ∂(g·y)/∂x1 = −g0 s + g1 c.

    >>> from flint import fmpq
    >>> rope_rule().grad_first(fmpq(1), fmpq(0), fmpq(1), fmpq(0))
    1
    """
    x0, x1, g0, g1, c, s = real("x0 x1 g0 g1 c s")
    y0, y1 = x0 * c - x1 * s, x1 * c + x0 * s
    L = g0 * y0 + g1 * y1
    syms = {"g0": g0, "g1": g1, "c": c, "s": s}
    derived = {"grad_first": sympy.diff(L, x0), "grad_second": sympy.diff(L, x1)}
    for name, e in derived.items():
        prove_equal(f"rope.{name}", e, stated(STATED, "rope", name, syms))
    return Rule(name="rope", forward={"y0": y0, "y1": y1},
                symbols={"x0, x1": "a pair of one head", "c, s": "cos and sin of its angle", "g0, g1": "grad_y"},
                derived=derived, checked="the adjoint of a pair's rotation is its transpose, by SymPy's diff",
                closures=closures(STATED, "rope", derived, syms))


# ---------------------------------------------------------------- floats

def float_trig(ar, base, dk: int, T: int) -> tuple:
    """cos and sin (T, d_k) as Llama's rotary embedding lays them out (the frequencies twice), as Hugging Face makes
    them in any model's dtype: in float32 (:func:`hf_tables`), then cast to the format.  The exact arithmetic takes
    the exact tables.

    >>> from symgpt.floats.model import Floats
    >>> C, S = float_trig(Floats("float64"), sympy.Integer(10000), 2, 2)
    >>> float(C[1, 0]) == float(np.float32(np.cos(1.0))), float(S[1, 0]) == float(np.float32(np.sin(1.0)))
    (True, True)
    """
    if ar.exact:
        cos, sin = trig(base, dk, T)
        return (ar.table([[cos[t][j % (dk // 2)] for j in range(dk)] for t in range(T)]),
                ar.table([[sin[t][j % (dk // 2)] for j in range(dk)] for t in range(T)]))
    C, S = hf_tables(ar.island(), base, dk, T)
    twice = lambda M: ar.out(np.concatenate([M, M], axis=1))
    return twice(C), twice(S)


def hf_tables(f32, base, dk: int, T: int) -> tuple:
    """Hugging Face's float32 rotary tables (T, d_k/2), each step rounded to float32 (``f32.cast``) as torch does
    it: inv_freq_i = 1 / base^((2i)/d_k) (the base cast to float32; the quotient, the power and the reciprocal each
    rounded), the angle t·inv_freq_i rounded, and its cos and sin rounded.  The power, cos and sin are taken
    correctly rounded (from mpmath at ``f32.ctx``'s precision); torch's vectorised float32 kernels are within one
    unit in the last place of that (measured: every inv_freq equal; 5–7 % of cos and sin one unit apart).

    >>> from symgpt.floats.model import Floats
    >>> C, S = hf_tables(Floats("float32"), sympy.Integer(10000), 4, 2)
    >>> C.dtype, float(S[1, 1]) == float(np.float32(np.sin(np.float32(0.01))))
    (dtype('float32'), True)
    """
    ctx, r32 = f32.ctx, lambda x: f32.cast(x)[()]
    ang = [[r32(t * Fraction(float(f))) for f in hf_inv_freq(f32, base, dk)] for t in range(T)]
    table = lambda fn: np.array([[r32(fn(ctx.mpf(float(a)))) for a in row] for row in ang],
                                dtype=np.float32).reshape(T, dk // 2)
    return table(ctx.cos), table(ctx.sin)


def hf_inv_freq(f32, base, dk: int) -> list:
    """inv_freq_i = 1 / base^((2i)/d_k) in float32 as Hugging Face computes it (``f32.cast`` rounds each step).

    >>> from symgpt.floats.model import Floats
    >>> [float(f) for f in hf_inv_freq(Floats("float32"), sympy.Integer(100), 4)]
    [1.0, 0.10000000149011612]
    """
    ctx, r32 = f32.ctx, lambda x: f32.cast(x)[()]
    q = lambda f: Fraction(float(f))                      # a float32, exactly
    b = q(r32(Fraction(str(sympy.Rational(base))) if sympy.Rational(base) == base else
              ctx.mpf(str(sympy.N(base, ctx.dps + 10)))))
    power = lambda e: ctx.power(ctx.mpf(b.numerator) / b.denominator, ctx.mpf(float(r32(e))))
    return [r32(1 / q(r32(power(Fraction(2 * i, dk))))) for i in range(dk // 2)]


def float_rotate(ar, X, dk: int, base, sign: int = 1):
    """q·cos + rotate_half(q)·sin per head (sign −1: the adjoint, g·cos − rotate_half(g·sin)...)."""
    X = ar.w(X)
    T, d = X.shape
    C, S = float_trig(ar, base, dk, T)
    C, S = ar.w(C), ar.w(S)
    half = dk // 2
    out = []
    for h in range(d // dk):
        x = X[:, h * dk:(h + 1) * dk]
        if sign > 0:
            rot = np.concatenate([-x[:, half:], x[:, :half]], axis=1)            # rotate_half
            out.append(ar.add(ar.mul(x, C), ar.mul(rot, S)))
        else:   # the adjoint of x·C + rotate_half(x)·S: g·C + rotate_halfᵀ(g·S)
            gs = ar.w(ar.mul(x, S))
            back = np.concatenate([gs[:, half:], -gs[:, :half]], axis=1)
            out.append(ar.add(ar.mul(x, C), back))
    return np.concatenate(out, axis=1)
