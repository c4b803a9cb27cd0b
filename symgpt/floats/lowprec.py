"""Low-precision floats as exact rationals: bfloat16 and float32 rounding, and the bigram's
first step with every operation's result rounded to bfloat16.

A binary float format is its significand width (bits, the hidden bit counted)
and its exponent range.  :func:`round_float` rounds an exact rational to the
nearest number of the format, ties to even, with subnormals below the smallest
normal and overflow to ±inf (IEEE 754's default rounding).  bfloat16 keeps
float32's 8-bit exponent and cuts the significand to 8 bits.

A transcendental result (exp, ln) is rounded from a certified enclosure: the
ball is narrowed until both its ends round to the same float (a nonzero
rational's exp or log is never exactly a float's midpoint, except at 0).

>>> from fractions import Fraction
>>> bf16(Fraction(1, 10)), bf16(Fraction(1, 3))
(Fraction(205, 2048), Fraction(171, 512))
>>> bf16(Fraction(2) ** 128), bf16(Fraction(1, 2 ** 140))
(inf, Fraction(0, 1))
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpq


@dataclass(frozen=True)
class Format:
    """A binary float format: ``bits`` of significand (hidden bit counted), exponents emin..emax."""
    name: str
    bits: int
    emin: int
    emax: int

    @property
    def largest(self) -> Fraction:
        """The largest finite number: (2 − 2^(1−bits))·2^emax.

        >>> BF16.largest == (2 - Fraction(1, 128)) * 2 ** 127
        True
        """
        return (2 - Fraction(1, 2 ** (self.bits - 1))) * Fraction(2) ** self.emax


BF16 = Format("bfloat16", 8, -126, 127)
FP32 = Format("float32", 24, -126, 127)


def _round_half_even(q: Fraction) -> int:
    """The integer nearest q, ties to the even one.

    >>> [_round_half_even(Fraction(x, 2)) for x in (1, 3, 5, -1, -3)]
    [0, 2, 2, 0, -2]
    """
    n = math.floor(q)
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    return n


def round_float(q, fmt: Format = BF16):
    """The number of ``fmt`` nearest the exact rational ``q`` (ties to even); ±inf on overflow.

    >>> round_float(Fraction(257), BF16), round_float(Fraction(259), BF16), round_float(Fraction(1, 10), FP32)
    (Fraction(256, 1), Fraction(260, 1), Fraction(13421773, 134217728))
    """
    q = Fraction(q)
    if q == 0:
        return Fraction(0)
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2^e ≤ a < 2^(e+1) after the fix-up
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, fmt.emin)  # below the normal range the spacing stays that of 2^emin (subnormals)
    ulp = Fraction(2) ** (e - fmt.bits + 1)
    r = _round_half_even(a / ulp) * ulp
    if r > fmt.largest:
        # IEEE 754: the value rounded with an unbounded exponent is past the largest float
        return sign * math.inf
    return sign * r


def bf16(q):
    """``q`` rounded to bfloat16 (see :func:`round_float`).

    >>> bf16(Fraction(-3, 10))
    Fraction(-77, 256)
    """
    return round_float(q, BF16)


def fp32(q):
    """``q`` rounded to float32.

    >>> float(fp32(Fraction(1, 10))) == 0.10000000149011612
    True
    """
    return round_float(q, FP32)


def _round_ball(f, fmt: Format, what: str) -> Fraction:
    """The float of ``fmt`` nearest the value enclosed by ``f(prec)``, raising the precision until sure."""
    for prec in (64, 128, 256, 512, 1024, 2048):
        with ctx.workprec(prec):
            b = f()
            lo, hi = b.mid() - b.rad(), b.mid() + b.rad()
            a, z = round_float(_exact(lo), fmt), round_float(_exact(hi), fmt)
        if a == z:
            return a
    raise ValueError(f"{what}: cannot round to {fmt.name} (on a midpoint?)")


def _exact(x: arb) -> Fraction:
    """The exact rational of an arb with zero radius (an endpoint)."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m) * Fraction(2) ** e


def exp_rounded(x: Fraction, fmt: Format = BF16) -> Fraction:
    """e^x rounded to ``fmt`` (correctly: from a certified enclosure).

    >>> exp_rounded(Fraction(1))
    Fraction(87, 32)
    """
    if x > 2 ** (fmt.emax + 1) or x < -2 ** (fmt.emax + 1):  # far past overflow or underflow: no ball needed
        return math.inf if x > 0 else Fraction(0)
    return _round_ball(lambda: arb(fmpq(x.numerator, x.denominator)).exp(), fmt, f"exp({x})")


def log_rounded(x: Fraction, fmt: Format = BF16) -> Fraction:
    """ln x (x > 0) rounded to ``fmt``.

    >>> log_rounded(Fraction(1, 2))
    Fraction(-177, 256)
    """
    if x <= 0:
        raise ValueError(f"ln({x}): expected a positive number")
    if x == 1:
        return Fraction(0)
    return _round_ball(lambda: arb(fmpq(x.numerator, x.denominator)).log(), fmt, f"ln({x})")


def bigram_step(E, W, tok: int, target: int, lr, fmt: Format = BF16) -> dict:
    """One SGD step of a bigram with every operation's result rounded to ``fmt``.

    Mixed precision as in training with autocast: the master weights are float32
    (the spec's exact values rounded to float32), cast to ``fmt`` for the forward
    and backward pass; sums are taken left to right, each partial sum rounded;
    the update θ − η·g is done in float32 with the ``fmt`` gradient.

    Returns the intermediate values (exact rationals): x, z, exp_z, Z, p, loss,
    grad_z, grad_W (rows of W), grad_x, and the float32 parameters after the
    step, W_new and E_row_new.  OverflowError when a logit's exponential leaves the format's range.

    >>> F = Fraction
    >>> s = bigram_step([[F(1, 10), F(2, 10)], [F(3, 10), F(-1, 10)], [F(-2, 10), F(4, 10)]],
    ...                 [[F(5, 10), F(-3, 10), F(1, 10)], [F(2, 10), F(4, 10), F(-5, 10)]], 1, 2, F(1, 2))
    >>> [round(float(v), 4) for v in s["p"]], round(float(s["loss"]), 4)
    ([0.3691, 0.2832, 0.3516], 1.0469)
    """
    r = lambda q: round_float(q, fmt)
    V, d = len(W[0]), len(W)
    W32 = [[fp32(Fraction(w)) for w in row] for row in W]
    E32 = [fp32(Fraction(e)) for e in E[tok]]
    Wl = [[r(w) for w in row] for row in W32]
    x = [r(e) for e in E32]

    def dot(a, b):
        acc = None
        for u, v in zip(a, b):
            term = r(u * v)
            acc = term if acc is None else r(acc + term)
        return acc

    z = [dot(x, [Wl[i][j] for i in range(d)]) for j in range(V)]
    ez = [exp_rounded(v, fmt) if not isinstance(v, float) else v for v in z]
    Z = ez[0]
    for v in ez[1:]:
        Z = r(Z + v) if not isinstance(Z, float) and not isinstance(v, float) else math.inf
    if isinstance(Z, float) or Z == 0:
        raise OverflowError(f"the softmax of this step leaves the range of {fmt.name} (its sum of exponentials "
                            f"is {'infinite' if isinstance(Z, float) else '0'})")
    p = [r(v / Z) for v in ez]
    loss = -log_rounded(p[target], fmt)
    gz = [r(p[j] - (1 if j == target else 0)) for j in range(V)]
    gW = [[r(x[i] * gz[j]) for j in range(V)] for i in range(d)]
    gx = [dot(Wl[i], gz) for i in range(d)]
    lr32 = fp32(Fraction(lr))
    W_new = [[fp32(W32[i][j] - fp32(lr32 * gW[i][j])) for j in range(V)] for i in range(d)]
    E_new = [fp32(E32[i] - fp32(lr32 * gx[i])) for i in range(d)]
    return {"x": x, "z": z, "exp_z": ez, "Z": Z, "p": p, "loss": loss, "grad_z": gz, "grad_W": gW,
            "grad_x": gx, "W_new": W_new, "E_row_new": E_new}
