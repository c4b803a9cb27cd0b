"""Certified values: exact rationals where possible, arb balls elsewhere.

Every node is evaluated in python-flint: an ``fmpq`` while the arithmetic is
rational (the exact fast path), otherwise an ``arb`` ball that is proven to
contain the exact value.  A digit is printed only when the whole ball rounds
to it.  Signs that steer the computation (an activation's branch, argmax,
top-k) are decided: exact rational, then balls at rising precision, then
SymPy's exact zero test; an exact zero is a tie, resolved by the op's documented
rule (its ``otherwise`` branch, :class:`symgpt.core.graph.Decided`).

>>> from flint import fmpq
>>> round_decimals(fmpq(-183, 2000), 3)   # -0.0915: a tie, away from zero
'-0.092'
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
import weakref
from fractions import Fraction
from typing import NamedTuple

import mpmath
import sympy
from flint import arb, ctx, fmpq

from .errors import InputError, LimitError
from .graph import Decided, decided
from .limits import Limits

MAX_THREADS = 256
"""The most threads ``SYMGPT_THREADS`` may ask for."""


def threads(text: str | None, cores: int | None) -> int:
    """How many threads python-flint's matrix products use: ``SYMGPT_THREADS`` when it is a whole
    number from 1 to :data:`MAX_THREADS`, else every core this process may run on (a wrong value is
    named on stderr and the default kept).

    >>> threads("1", 8), threads(None, 2), threads(None, None)
    (1, 2, 1)
    >>> threads("²", 2), threads("99999999999999999999", 2)  # named on stderr, the default kept
    (2, 2)
    """
    default = max(1, min(cores or 1, MAX_THREADS))
    if text is None or not text.strip():
        return default
    try:
        n = int(text.strip()) if text.strip().isascii() else 0
    except ValueError:
        n = 0
    if 1 <= n <= MAX_THREADS:
        return n
    print(f"symgpt: SYMGPT_THREADS: expected a whole number ≥ 1, got {text!r}; using {default}", file=sys.stderr)
    return default


ctx.threads = threads(os.environ.get("SYMGPT_THREADS"),
                      len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
"""Matrix products (arb_mat, fmpz_mat) run on every core unless ``SYMGPT_THREADS`` says otherwise."""

@contextlib.contextmanager
def one_thread():
    """python-flint on one thread for the block, then as before.  Around a fork: FLINT's pool of threads does not
    survive into a child, which would wait on it for ever, so a process forks with no pool.

    >>> with one_thread():
    ...     ctx.threads
    1
    """
    before = ctx.threads
    ctx.threads = 1
    try:
        yield
    finally:
        ctx.threads = before


MAX_PREC = 1 << 16
"""The precision ceiling (bits) of :func:`certify`, the only loop that raises
precision: past it a rounding or a sign that no enclosure settles is reported
undecidable (after the exact test), never guessed.  It is at least 16 times
the starting precision of the request (:func:`ceiling`), so every number of
digits a limit allows (``limits.MAX_DIGITS`` = 1000 digits start at 3,370
bits, far below 65,536) can be certified."""

SYMPY_SECONDS = 2.0
"""Time budget of one SymPy exact test (a zero test of one quantity, all its
cuts together; a rational value); past it the test counts as inconclusive, so
certification goes on in ball arithmetic and ends in a clear UndecidableError
instead of a hang.  An :class:`Evaluator` runs each test at most once (its
verdict, inconclusive included, is remembered), so a quantity costs at most
one budget however often it is asked for."""


DEPTH_SECONDS = 1.5
"""Time budget of one zero test on an expansion by dependency depth (see
:meth:`Evaluator._cuts`): at most five of them per quantity (7.5 s), on top of
:data:`SYMPY_SECONDS`."""


def ceiling(start: int) -> int:
    """The precision at which :func:`certify` gives up, for a request starting at ``start`` bits.

    >>> ceiling(64) == MAX_PREC, ceiling(prec_for_digits(10**4)) > prec_for_digits(10**4)
    (True, True)
    """
    return max(MAX_PREC, 16 * start)


class _OutOfTime(BaseException):
    """A SymPy test ran past its budget.

    A BaseException, so SymPy's own ``except Exception`` clauses cannot swallow it.
    """

    def __init__(self, box):
        super().__init__()
        self.box = box


class _Box:
    """One open time box: its deadline (time.monotonic), or its time left while an inner box runs."""
    __slots__ = ("deadline", "left", "open")

    def __init__(self, seconds: float):
        self.deadline, self.left, self.open = time.monotonic() + seconds, None, True


_BOXES: list[_Box] = []  # the open boxes of the main thread, outermost first


def _arm() -> None:
    """Set the alarm for the innermost open box (at once when its time is up)."""
    live = [b for b in _BOXES if b.open]
    if live:
        signal.setitimer(signal.ITIMER_REAL, max(live[-1].deadline - time.monotonic(), 1e-4))
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _alarm(signum, frame):
    live = [b for b in _BOXES if b.open]
    if live and live[-1].deadline <= time.monotonic() + 1e-3:
        raise _OutOfTime(live[-1])
    _arm()  # early (clock skew) or a box already closing: wait for the innermost deadline


@contextlib.contextmanager
def time_box(seconds: float | None):
    """Raise :class:`_OutOfTime` inside the block after ``seconds`` (SIGALRM; in
    threads other than the main one the block runs unbounded).

    Boxes nest: while an inner box is open the enclosing box's clock stops,
    so each test is charged its own time only and gets its whole budget; the
    total stays bounded because an :class:`Evaluator` runs each test once.

    >>> with time_box(1):
    ...     2 + 2
    4
    """
    if threading.current_thread() is not threading.main_thread() or seconds is None:
        yield None
        return
    outer = _BOXES[-1] if _BOXES else None
    if outer is None:  # a timer set outside the boxes is put back when they close
        old, since = signal.signal(signal.SIGALRM, _alarm), time.monotonic()
        previous = signal.getitimer(signal.ITIMER_REAL)[0]
    else:
        outer.left = outer.deadline - time.monotonic()  # its clock stops
    box = _Box(seconds)
    _BOXES.append(box)
    precs = mpmath.mp.prec, ctx.prec  # an alarm inside a workprec's exit would leave its precision behind
    try:
        _arm()
        yield box
    finally:
        box.open = False
        mpmath.mp.prec, ctx.prec = precs
        if box in _BOXES:  # with any inner box an interrupted exit left behind
            del _BOXES[_BOXES.index(box):]
        if outer is None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            if previous:
                signal.setitimer(signal.ITIMER_REAL, max(previous - (time.monotonic() - since), 1e-4))
        else:
            if outer.left is not None:  # its clock goes on
                outer.deadline, outer.left = time.monotonic() + outer.left, None
            _arm()


def bounded(test, seconds: float | None = None):
    """``test()``, or None when it runs past ``seconds`` (by default
    :data:`SYMPY_SECONDS`, read at the call, so a user may raise it) or SymPy fails on it.

    >>> bounded(lambda: 7), bounded(lambda: 1 / 0)
    (7, None)
    >>> import time as t
    >>> bounded(lambda: t.sleep(5), 0.05) is None   # out of time: inconclusive
    True
    """
    box = None
    try:
        with time_box(SYMPY_SECONDS if seconds is None else seconds) as box:
            return test()
    except _OutOfTime as e:
        if e.box is not box:  # an enclosing box's time is up: its test ends too
            raise
        return None
    except (RecursionError, ArithmeticError, ValueError, TypeError):
        return None


class Undecided(Exception):
    """A ball straddles 0 where a sign steers the computation."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class UndecidableError(ValueError):
    """Neither enclosures nor SymPy could decide a sign or a rounding.

    ``cause`` is the innermost undecided fact (the sign of a steering input that a
    value depends on), named once however deep the dependence.
    """

    def __init__(self, message: str, cause: str | None = None):
        super().__init__(message)
        self.cause = message if cause is None else cause


def to_flint(q) -> fmpq:
    """A SymPy Rational as an exact fmpq.

    >>> to_flint(sympy.Rational(3, 10))
    3/10
    """
    return fmpq(int(q.p), int(q.q))


def _iroot(x: int, n: int) -> int | None:
    """The exact integer n-th root of x ≥ 0, or None."""
    lo, hi = 0, 1 << (x.bit_length() // n + 1)
    while lo < hi:  # the largest r with r^n ≤ x
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if mid ** n <= x else (lo, mid - 1)
    return lo if lo ** n == x else None


def rational_root(b: fmpq, n: int) -> fmpq | None:
    """The exact n-th root of a rational b ≥ 0, or None when it is irrational.

    >>> rational_root(fmpq(8, 27), 3), rational_root(fmpq(2), 2)
    (2/3, None)
    """
    p, q = _iroot(int(b.p), n), _iroot(int(b.q), n)
    return fmpq(p, q) if p is not None and q is not None else None


def sqrt(v):
    """√v: exact for a rational square, else a ball; a negative rational is an error."""
    if isinstance(v, fmpq):
        if v < 0:
            raise ValueError("square root of a negative number")
        r = rational_root(v, 2)
        if r is not None:
            return r
    return arb(v).sqrt()


def power(b, e):
    """b^e for a rational exponent e (fmpq): exact where the root is rational.

    >>> power(fmpq(4, 9), fmpq(-1, 2)), power(fmpq(2), fmpq(3))
    (3/2, 8)
    """
    if isinstance(e, fmpq) and e.q == 1:
        if isinstance(b, fmpq):
            if b == 0 and e < 0:
                raise ZeroDivisionError("0 to a negative power")
            return b ** int(e.p)
        return _ipow(b, int(e.p))
    if isinstance(b, fmpq) and isinstance(e, fmpq) and b >= 0:
        r = rational_root(b, int(e.q))
        if r is not None:
            return power(r, fmpq(int(e.p)))
    return arb(b) ** arb(e)


def _ipow(x: arb, n: int) -> arb:
    """x^n for a ball and an integer n, by repeated squaring.

    (python-flint's ``arb ** 2`` is NaN for a ball centred on 0, which a
    variance meets when two entries are equal.)

    >>> _ipow(arb("0 +/- 1e-20"), 2).contains(0), _ipow(arb(2), -2)
    (True, 0.250000000000000)
    """
    if n < 0:
        return 1 / _ipow(x, -n)
    base, out = (abs(x) if n % 2 == 0 else x), arb(1)
    while n:
        if n & 1:
            out = out * base
        base = base * base
        n >>= 1
    return out


def exp(v):
    return fmpq(1) if isinstance(v, fmpq) and v == 0 else arb(v).exp()


def log(v):
    """ln v: 0 at 1, else a ball; a rational ≤ 0 is an error."""
    if isinstance(v, fmpq):
        if v <= 0:
            raise ValueError("logarithm of a number ≤ 0")
        if v == 1:
            return fmpq(0)
    return arb(v).log()


def sin(v):
    return fmpq(0) if isinstance(v, fmpq) and v == 0 else arb(v).sin()


def cos(v):
    return fmpq(1) if isinstance(v, fmpq) and v == 0 else arb(v).cos()


def erf(v):
    """erf v, the Gauss error function: 0 at 0, else a ball (arb's erf, rigorous).

    >>> erf(fmpq(0)), erf(fmpq(1)).overlaps(arb("0.8427007929497148693 +/- 1e-19"))
    (0, True)
    """
    return fmpq(0) if isinstance(v, fmpq) and v == 0 else arb(v).erf()


def tanh(v):
    """tanh v: 0 at 0, else a ball (arb's tanh, rigorous).

    >>> tanh(fmpq(0)), tanh(fmpq(1, 2)).overlaps(arb("0.46211715726000975850 +/- 1e-20"))
    (0, True)
    """
    return fmpq(0) if isinstance(v, fmpq) and v == 0 else arb(v).tanh()


UNARY = {"exp": exp, "log": log, "sqrt": sqrt, "sin": sin, "cos": cos, "abs": abs, "erf": erf, "tanh": tanh}
_FUNCS = {sympy.exp: exp, sympy.log: log, sympy.sin: sin, sympy.cos: cos, sympy.erf: erf, sympy.tanh: tanh}


def compile_expr(expr, slot, sign_of):
    """A closure ``f(values) -> fmpq | arb`` for a SymPy expression.

    ``slot`` maps each symbol to its index in ``values``; ``sign_of(i, v)``
    decides the sign of value ``v`` held in slot ``i`` (for a sign-steered
    function, :class:`symgpt.core.graph.Decided`), or returns None for a ball
    whose sign is open: the function then encloses both branches.

    >>> x = sympy.Symbol("x")
    >>> f = compile_expr(x**2 + sympy.Rational(1, 2), {x: 0}, None)
    >>> f([fmpq(1, 3)])
    11/18
    """
    if expr.is_Rational:
        c = to_flint(expr)
        return lambda v: c
    if expr.is_Symbol:
        i = slot[expr]
        return lambda v: v[i]
    if expr is sympy.pi:
        return lambda v: arb.pi()
    if expr.is_Add or expr.is_Mul:
        fs = [compile_expr(a, slot, sign_of) for a in expr.args]
        if expr.is_Add:
            def add(v):
                s = fs[0](v)
                for f in fs[1:]:
                    s = s + f(v)
                return s
            return add

        def mul(v):
            s = fs[0](v)
            for f in fs[1:]:
                s = s * f(v)
            return s
        return mul
    if expr.is_Pow:
        fb = compile_expr(expr.base, slot, sign_of)
        e = expr.exp
        if e.is_Rational:
            e = to_flint(e)
            if expr.base.is_Symbol:  # a rule applied along a row meets the same base (σ of the row) d times
                i, memo = slot[expr.base], [None, 0, None]     # [base object, precision, its power]

                def power_of_slot(v):
                    b = v[i]
                    if memo[0] is not b or memo[1] != ctx.prec:
                        memo[:] = b, ctx.prec, power(b, e)
                    return memo[2]
                return power_of_slot
            return lambda v: power(fb(v), e)
        fe = compile_expr(e, slot, sign_of)
        return lambda v: (arb(fe(v)) * arb(fb(v)).log()).exp()
    if isinstance(expr, Decided):
        i = slot[expr.args[0]]
        return lambda v: expr.ball(v[i], sign_of(i, v[i]))
    if expr.func in _FUNCS and len(expr.args) == 1:
        g, fa = _FUNCS[expr.func], compile_expr(expr.args[0], slot, sign_of)
        return lambda v: g(fa(v))
    if expr.func is sympy.Abs:
        fa = compile_expr(expr.args[0], slot, sign_of)
        return lambda v: abs(fa(v))
    raise TypeError(f"cannot evaluate {expr.func.__name__} in {expr}")


_FLOAT_FUNCS = {sympy.exp: math.exp, sympy.log: math.log, sympy.sin: math.sin, sympy.cos: math.cos,
                sympy.Abs: abs, sympy.erf: math.erf, sympy.tanh: math.tanh}


def compile_float(expr, slot):
    """A closure ``f(values) -> float`` for a SymPy expression in IEEE float64.

    What a float64 program computing the same definition gets (round-off
    included): constants rounded once to the nearest double, sums and
    products left to right in the definition's order, a factor x⁻¹ as a
    division, a sign-steered function its float branch.  Never exact: for the float64 column of
    the gradient check only.

    >>> x = sympy.Symbol("x")
    >>> compile_float(x / 10 + sympy.Rational(1, 10), {x: 0})([2.0])
    0.30000000000000004
    """
    if expr.is_Rational:
        c = int(expr.p) / int(expr.q)  # correctly rounded
        return lambda v: c
    if expr.is_Symbol:
        i = slot[expr]
        return lambda v: v[i]
    if expr is sympy.pi:
        return lambda v: math.pi
    if expr.is_Add:
        fs = [compile_float(a, slot) for a in expr.args]

        def add(v):
            s = fs[0](v)
            for f in fs[1:]:
                s = s + f(v)
            return s
        return add
    if expr.is_Mul:
        num = [compile_float(a, slot) for a in expr.args if not _is_reciprocal(a)]
        den = [compile_float(a.base if a.exp == -1 else 1 / a, slot) for a in expr.args if _is_reciprocal(a)]

        def mul(v):
            s = num[0](v) if num else 1.0
            for f in num[1:]:
                s = s * f(v)
            for f in den:
                s = s / f(v)
            return s
        return mul
    if expr.is_Pow:
        fb, e = compile_float(expr.base, slot), expr.exp
        if e == sympy.Rational(1, 2):
            return lambda v: math.sqrt(fb(v))
        if e == sympy.Rational(-1, 2):
            return lambda v: 1.0 / math.sqrt(fb(v))
        if e.is_Integer:
            n = int(e)
            return lambda v: fb(v) ** n
        fe = compile_float(e, slot)
        return lambda v: fb(v) ** fe(v)
    if isinstance(expr, Decided):
        fa = compile_float(expr.args[0], slot)
        return lambda v: expr.floats(fa(v))
    if expr.func in _FLOAT_FUNCS and len(expr.args) == 1:
        g, fa = _FLOAT_FUNCS[expr.func], compile_float(expr.args[0], slot)
        return lambda v: g(fa(v))
    raise TypeError(f"cannot evaluate {expr.func.__name__} in {expr} in float64")


def _is_reciprocal(a) -> bool:
    """A factor written as a division: x^-n for an integer n ≥ 1 (not a number)."""
    return a.is_Pow and a.exp.is_Integer and a.exp < 0 and not a.base.is_Number


def float64_values(graph, leaves=None) -> list:
    """Every node of a graph in IEEE float64, in definition order.

    ``leaves`` overrides parameters with floats; the others are their exact
    values rounded to the nearest double.

    >>> from symgpt.core.graph import Graph
    >>> g = Graph(); x = g.param("x", "x", (), sympy.Rational(1, 10))
    >>> _ = g.define("y", "y", (), 3 * x)
    >>> float64_values(g)
    [0.1, 0.30000000000000004]
    """
    leaves = {} if leaves is None else leaves
    slot, out = {}, []
    for name in graph.order:
        node = graph.nodes[name]
        if node.expr is None:
            out.append(leaves[name] if name in leaves else int(node.value.p) / int(node.value.q))
        else:
            out.append(compile_float(node.expr, slot)(out))
        slot[node.sym] = len(out) - 1
    return out


def magnitude(v) -> float:
    """An upper bound of log10 |v| (inf for a non-finite ball, -inf for 0), at most ±1e300 (a ball of a
    ``training.lr = 1e400`` state can have an exponent no float holds).

    >>> 400 <= magnitude(fmpq(10**400)) < 401, magnitude(arb("nan")), magnitude(fmpq(0))
    (True, inf, -inf)
    """
    if isinstance(v, fmpq):
        if v == 0:
            return -math.inf
        p, q = abs(int(v.p)), int(v.q)
        return (p.bit_length() - (q.bit_length() - 1)) * math.log10(2)
    if not v.is_finite():
        return math.inf
    man, exp = v.abs_upper().man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return -math.inf
    bits = man.bit_length() + exp
    if abs(bits) >= 10 ** 300:
        return -1e300 if bits < 0 else 1e300
    return max(-1e300, min(1e300, bits * math.log10(2)))


def bounds(v) -> tuple[Fraction, Fraction]:
    """Exact lower and upper ends of a ball (or an exact rational twice).

    >>> bounds(fmpq(1, 3))
    (Fraction(1, 3), Fraction(1, 3))
    """
    if isinstance(v, fmpq):
        q = Fraction(int(v.p), int(v.q))
        return q, q
    if not v.is_finite():
        raise ArithmeticError("non-finite enclosure")
    m, r = _dyadic(v.mid()), _dyadic(v.rad())
    return m - r, m + r


def _dyadic(x: arb) -> Fraction:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _round_half_away(q: Fraction) -> int:
    n = math.floor(abs(q) + Fraction(1, 2))
    return n if q >= 0 else -n


def _fmt(n: int, k: int) -> str:
    s = str(abs(n)).rjust(k + 1, "0")
    body = s if k == 0 else f"{s[:-k]}.{s[-k:]}"
    return ("-" if n < 0 else "") + body


def _dyadic_ends(v: arb) -> tuple[int, int, int]:
    """(L, H, e): the ball's ends are L·2^e and H·2^e, in integers (no Fraction)."""
    if not v.is_finite():
        raise ArithmeticError("non-finite enclosure")
    mm, me = v.mid().man_exp()
    rm, re_ = v.rad().man_exp()
    mm, me, rm, re_ = int(mm), int(me), int(rm), int(re_)
    e = min(me, re_) if rm else me
    M, R = mm << (me - e), (rm << (re_ - e)) if rm else 0
    return M - R, M + R, e


def _scaled_half_away(N: int, e: int, k: int) -> int:
    """round-half-away(N·2^e·10^k), in integers."""
    num, den = abs(N), 1
    if e >= 0:
        num <<= e
    else:
        den <<= -e
    if k >= 0:
        num *= 10 ** k
    else:
        den *= 10 ** -k
    r = (2 * num + den) // (2 * den)
    return r if N >= 0 else -r


def _exponent_dyadic(N: int, e: int) -> int:
    """E with 10^E ≤ |N·2^e| < 10^(E+1), for N ≠ 0."""
    N = abs(N)
    E = math.floor((N.bit_length() - 1 + e) * 0.30102999566398120)

    def at_least(E):  # |N|·2^e ≥ 10^E
        num, den = N, 1
        num, den = (num << e, den) if e >= 0 else (num, den << -e)
        return num * (10 ** -E if E < 0 else 1) >= den * (10 ** E if E > 0 else 1)
    while not at_least(E):
        E -= 1
    while at_least(E + 1):
        E += 1
    return E


def _significant_dyadic(N: int, e: int, n: int) -> tuple[int, int, int]:
    """:func:`_significant` of N·2^e in integers."""
    E = _exponent_dyadic(N, e)
    M = abs(_scaled_half_away(N, e, n - 1 - E))
    if M == 10 ** n:
        M, E = M // 10, E + 1
    return (1 if N > 0 else -1), M, E


def round_decimals(v, k: int) -> str | None:
    """The value rounded to k decimals (half away from zero), if certified.

    None when the ball does not lie inside one rounding interval.

    >>> round_decimals(arb(1).sin(), 3)
    '0.841'
    """
    if isinstance(v, arb):
        L, H, e = _dyadic_ends(v)
        a, b = _scaled_half_away(L, e, k), _scaled_half_away(H, e, k)
        return _fmt(a, k) if a == b else None
    lo, hi = bounds(v)
    scale = 10 ** k
    a, b = _round_half_away(lo * scale), _round_half_away(hi * scale)
    return _fmt(a, k) if a == b else None


def _exponent(q: Fraction) -> int:
    """e with 10^e ≤ |q| < 10^(e+1), for q ≠ 0."""
    q = abs(q)
    e = math.floor(math.log10(q.numerator) - math.log10(q.denominator))
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    return e


def round_significant(v, n: int) -> str | None:
    """The value to n significant digits, if certified; '0' for exact zero.

    Both ends of the ball must give the same digits *and* the same decimal
    exponent (a ball across a power of ten is not certified).

    >>> round_significant(arb(2).sqrt(), 5), round_significant(fmpq(1234), 3)
    ('1.4142', '1230')
    """
    if isinstance(v, arb):
        a = _significant_decimal(v, n)
        if a is not None:
            return _format_significant(*a, n)
        L, H, e = _dyadic_ends(v)
        if L == H == 0:
            return "0"
        if L <= 0 <= H:
            return None
        a, b = _significant_dyadic(L, e, n), _significant_dyadic(H, e, n)
        return _format_significant(*a, n) if a == b else None
    lo, hi = bounds(v)
    if lo == hi == 0:
        return "0"
    if lo <= 0 <= hi:
        return None
    a, b = _significant(lo, n), _significant(hi, n)
    return _format_significant(*a, n) if a == b else None


def _significant_decimal(v: arb, n: int):
    """(sign, M, E) of a ball to n significant digits from arb's own decimal enclosure [m ± r]·10^x (a little wider
    than the ball, so whatever it rounds is certified), or None when that enclosure does not round (the exact ends
    are tried then).  The fast path of :func:`round_significant`: one C call and small integers.

    >>> _significant_decimal(arb(2).sqrt(), 5), _significant_decimal(arb(1) / 3 - arb(1) / 3, 5)
    ((1, 14142, 0), None)
    """
    if not v.is_finite():
        return None
    m, r, x = v.mid_rad_10exp(n + 6)
    m, r, x = int(m), int(r), int(x)
    lo, hi = m - r, m + r
    if lo <= 0 <= hi:
        return None
    a, b = _significant_integer(lo, x, n), _significant_integer(hi, x, n)
    return a if a == b else None


def _significant_integer(N: int, x: int, n: int) -> tuple[int, int, int]:
    """(sign, M, E) of N·10^x (N ≠ 0) to n significant digits, half away from 0.

    >>> _significant_integer(-14995, -4, 3), _significant_integer(9996, 0, 3)
    ((-1, 150, 0), (1, 100, 4))
    """
    a = abs(N)
    k = len(str(a))
    E, drop = k - 1 + x, k - n
    if drop > 0:
        q, rem = divmod(a, 10 ** drop)
        M = q + (2 * rem >= 10 ** drop)
    else:
        M = a * 10 ** -drop
    if M == 10 ** n:
        M, E = M // 10, E + 1
    return (1 if N > 0 else -1), M, E


def _significant(q: Fraction, n: int) -> tuple[int, int, int]:
    """(sign, n-digit mantissa M, exponent e): q ≈ ±M·10^(e−n+1), half away from 0."""
    e = _exponent(q)
    M = _round_half_away(abs(q) / Fraction(10) ** (e - n + 1))
    if M == 10 ** n:  # 9.99… rounded up to 10.0…
        M, e = M // 10, e + 1
    return (1 if q > 0 else -1), M, e


def _format_significant(sign: int, M: int, e: int, n: int) -> str:
    """Plain decimals for −6 ≤ e < 21, else d.ddd…e±x."""
    if -6 <= e < 21:
        k = n - 1 - e
        body = _fmt(M, k) if k >= 0 else str(M) + "0" * -k
    else:
        digits = str(M)
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + f"e{e:+d}"
    return ("-" if sign < 0 else "") + body


def to_mpf(v, prec: int = 53):
    """An mpmath number from an exact rational or a ball's midpoint.

    The result carries ``prec`` bits (at least the midpoint's own bits),
    whatever mpmath's working precision is when it is called.

    >>> mpmath.nstr(to_mpf(fmpq(1, 3), 100), 25)
    '0.3333333333333333333333333'
    """
    if isinstance(v, fmpq):
        with mpmath.workprec(prec):
            return mpmath.mpf(int(v.p)) / int(v.q)
    man, exp = v.mid().man_exp()
    man, exp = int(man), int(exp)
    with mpmath.workprec(max(prec, man.bit_length() + 1)):
        return mpmath.mpf(man) * mpmath.mpf(2) ** exp


def prec_for_digits(digits: int) -> int:
    """Working precision (bits) to try first for ``digits`` decimal digits."""
    return int(digits * 3.33) + 40


def count(name: str, value, low: int, limits: Limits | None = None) -> int:
    """An integer argument such as ``digits`` in low..limits.max_digits.

    >>> count("digits", 5, 1)
    5
    >>> count("digits", 0, 1)
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: digits: expected an integer ≥ 1, got 0
    >>> count("digits", 10**6, 1)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: digits: 1000000 digits asked, above the limit 1000
        (--max-digits; symgpt.Limits(max_digits=…) in Python)
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(f"{name}: expected an integer ≥ {low}, got {value!r}")
    top = (limits or Limits()).max_digits
    if value > top:
        raise LimitError(f"{name}: {value} digits asked, above the limit {top} "
                         f"(--max-digits; symgpt.Limits(max_digits=…) in Python)")
    return value


class Certified(NamedTuple):
    """What :func:`certify` proved: ``value`` = fmt(ball), read from ``ball`` at ``prec`` bits."""
    value: object
    ball: object
    prec: int


def remembered_sign(ev, name: str, exact: bool, find) -> int:
    """The sign of node ``name`` by ``find()``, remembered in ``ev.signs`` (a 0 also in ``ev.zeros``);
    with exact leaves an undecidable sign is final, remembered in ``ev.failed`` and raised at once
    when asked again.  The bookkeeping of both evaluators' ``decide``.

    >>> from types import SimpleNamespace
    >>> ev = SimpleNamespace(signs={}, zeros=set(), failed={})
    >>> remembered_sign(ev, "Z[0,0]", True, lambda: 0), ev.zeros, remembered_sign(ev, "Z[0,0]", True, None)
    (0, {'Z[0,0]'}, 0)
    """
    if name in ev.signs:
        return ev.signs[name]
    if name in ev.failed:
        raise UndecidableError(*ev.failed[name])
    try:
        s = find()
    except UndecidableError as e:
        if exact:  # every bit up to the ceiling and the SymPy test were tried: final
            ev.failed[name] = (str(e), e.cause)
        raise
    ev.signs[name] = s
    if s == 0:
        ev.zeros.add(name)
    return s


def certify(ball_at, fmt, *, what, exact=None, start: int = 64, stop: int = MAX_PREC) -> Certified:
    """``fmt(ball_at(prec))`` at prec = start, 2·start, … until it is not None.

    The one loop that raises precision.  ``fmt`` reads a certified fact off an
    enclosure (a rounding: :func:`round_decimals`; a sign: :func:`sign_of`) or
    returns None when the ball is too wide.  A value on a rounding tie or an
    exact 0 computed as balls never settles: at 8·start bits (or at the last
    step) ``exact()`` may give its exact rational (SymPy), read by ``fmt``.
    ``ball_at`` may raise UndecidableError (a sign inside it needs more bits):
    the loop goes on.  Past ``stop`` (at most :data:`MAX_PREC`) it raises
    UndecidableError naming ``what``: never a guess.

    >>> certify(lambda prec: arb(2).sqrt(), lambda b: round_decimals(b, 3), what="√2").value
    '1.414'
    >>> tie = lambda prec: arb(1) / 2000 + arb(1) / 2000     # 0.001 = 1/1000 as balls
    >>> certify(tie, sign_of, what="1/1000").value
    1
    >>> certify(lambda prec: arb(1).sin() ** 2 + arb(1).cos() ** 2 - 1, sign_of, what="0",
    ...         exact=lambda: fmpq(0)).value
    0
    """
    stop = min(stop, ceiling(start))
    prec, pending, failed, infinite = start, exact is not None, None, False
    while True:
        try:
            ball, failed = ball_at(prec), None
            infinite = not isinstance(ball, fmpq) and not ball.is_finite()
            r = None if infinite else fmt(ball)  # a non-finite ball: more bits
        except UndecidableError as e:
            ball = r = None
            failed = e
        if r is not None:
            return Certified(r, ball, prec)
        last = isinstance(ball, fmpq) or 2 * prec > stop
        if pending and (prec >= 8 * start or last):
            pending = False
            q = bounded(exact)
            if q is not None and fmt(q) is not None:
                return Certified(fmt(q), q, prec)
        if last:
            break
        prec *= 2
    if failed is not None:  # the cause, once: the sign inside that no bits settled
        cause = getattr(failed, "cause", str(failed))
        raise UndecidableError(f"cannot certify {what}: {cause}", cause=cause)
    if infinite:
        raise UndecidableError(f"cannot enclose {what} in {prec} bits: its magnitude or the growth of "
                               f"its error bounds is beyond what the precision limit encloses")
    proof = (f", which SymPy could not prove within {SYMPY_SECONDS:g} s (numeric.SYMPY_SECONDS)"
             if exact is not None else "")
    if fmt is sign_of:
        raise UndecidableError(f"cannot decide {what} at {prec} bits: every enclosure contains 0; "
                               f"it may be exactly 0{proof}")
    raise UndecidableError(f"cannot certify {what} at {prec} bits: it may lie on a rounding "
                           f"boundary, or be 0{proof}")


def certified_sign(ball_at, what, exact=None, stop: int = MAX_PREC, balls: bool = False) -> int:
    """The sign of ``what`` through :func:`certify`: enclosures at rising precision, then ``exact()``.

    ``balls``: the inputs are themselves balls (a training state), so more bits cannot settle
    a straddling enclosure; the error then says so instead of naming the precision.

    >>> certified_sign(lambda prec: arb(2).sqrt() - 1, "√2 − 1")
    1
    """
    try:
        return certify(ball_at, sign_of, what=f"the sign of {what}", stop=stop, exact=exact).value
    except UndecidableError:
        if not balls:
            raise
        raise UndecidableError(f"cannot decide the sign of {what}: its enclosure contains 0 "
                               f"and its inputs are balls, not exact numbers") from None


def sign_of(v) -> int | None:
    """The sign of an exact rational or of a ball that excludes 0; None when it straddles 0.

    >>> sign_of(fmpq(-1, 3)), sign_of(fmpq(0)), sign_of(arb("0 +/- 1e-9")), sign_of(arb(2))
    (-1, 0, None, 1)
    """
    if isinstance(v, fmpq):
        return (v > 0) - (v < 0)
    return 1 if v > 0 else -1 if v < 0 else None


class _Reads:
    """A symbol → slot map that remembers how many leading slots a compiled closure reads."""

    def __init__(self, slot):
        self.slot, self.upto = slot, 0

    def __getitem__(self, sym):
        i = self.slot[sym]
        self.upto = max(self.upto, i + 1)
        return i


_SHARED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> {node: closure}


class Evaluator:
    """Values of every node of a graph, for given leaf values.

    ``leaves`` overrides parameter values with fmpq or arb numbers (a
    training trace's parameters are balls).  Signs, once decided, are
    remembered.
    """

    def __init__(self, graph, leaves=None):
        self.graph = graph
        self.leaves = {} if leaves is None else leaves
        self.slot: dict = {}
        self.fns: list = []
        self.names: list = []
        self.cache: dict[int, list] = {}
        self.signs: dict[str, int] = {}
        self.zeros: set[str] = set()  # nodes proven exactly 0
        self.open: set[str] = set()   # steering inputs whose ball straddles 0: both branches enclosed
        self.failed: dict[str, tuple] = {}  # exact leaves: signs neither balls nor SymPy decide (asked once)
        self._exprs: dict = {}
        self._tests: dict = {}  # (kind, expr) -> the verdict of one time-boxed SymPy test

    def _sync(self):
        g = self.graph
        for name in g.order[len(self.names):]:
            node = g.nodes[name]
            i = len(self.names)
            self.names.append(name)
            self.slot[node.sym] = i
            if node.expr is None:
                c = to_flint(node.value)
                self.fns.append(lambda v, n=name, c=c: self.leaves.get(n, c))
            elif decided(node.expr):  # its sign decisions belong to this evaluator
                self.fns.append(compile_expr(node.expr, self.slot, self._sign_of))
            else:  # the same closure serves every evaluator of the graph (a trace makes many)
                f = _SHARED.setdefault(g, {}).get(name)
                if f is None:
                    f = _SHARED[g][name] = compile_expr(node.expr, self.slot, None)
                self.fns.append(f)

    @property
    def ties(self) -> set:
        """Steering inputs proven exactly 0: where an op's tie rule was used."""
        if not self.zeros:
            return set()
        g = self.graph
        key = ("steering inputs", len(g.order))  # the graph may grow; its steering inputs are found once per size
        shared = _SHARED.setdefault(g, {})
        if key not in shared:
            shared[key] = {g.by_sym[f.args[0]] for n in g.order if g.nodes[n].expr is not None
                           for f in decided(g.nodes[n].expr)}
        return self.zeros & shared[key]

    def exact(self) -> bool:
        """True when every leaf is exact (so SymPy's zero test applies)."""
        return all(isinstance(x, fmpq) for x in self.leaves.values())

    def _sign_of(self, i, v) -> int:
        name = self.names[i]
        s = self.signs.get(name)
        if s is not None:
            return s
        if isinstance(v, fmpq):
            s = (v > 0) - (v < 0)
        elif v > 0:
            s = 1
        elif v < 0:
            s = -1
        elif not self.exact():  # a ball at a trace state: both branches, soundly (Decided.ball)
            self.open.add(name)
            return None
        else:
            raise Undecided(name)
        self.signs[name] = s
        if s == 0:
            self.zeros.add(name)
        return s

    def index(self, name: str) -> int:
        self._sync()
        return self.slot[self.graph.sym(name)]

    def values(self, prec: int, upto: int | None = None) -> list:
        """Node values at ``prec`` bits (memoised), the first ``upto`` at least.

        Signs that steer a node are decided on the way (see :meth:`decide`).
        """
        self._sync()
        n = len(self.fns) if upto is None else upto
        vals = self.cache.setdefault(prec, [])
        while len(vals) < n:
            try:
                with ctx.workprec(prec):
                    while len(vals) < n:
                        vals.append(self.fns[len(vals)](vals))
            except Undecided as u:  # an earlier node's sign: decide it, go on
                self.decide(u.name)
        return vals

    def ball(self, name: str, prec: int):
        """The node's value (fmpq or arb) at ``prec`` bits."""
        i = self.index(name)
        return self.values(prec, i + 1)[i]

    def sign(self, name: str) -> int:
        """The exact sign of a node: -1, 0 or 1, decided rigorously.

        An exact 0 is recorded in ``zeros`` (and, at a steering input, in ``ties``).
        """
        return self.decide(name)

    def decide(self, name: str) -> int:
        """The sign of a node (memoised); with exact leaves a sign found undecidable
        stays so: asked again, it raises at once instead of paying for the search again."""
        i = self.index(name)
        # with inexact leaves (a trace) more working precision cannot shrink the
        # leaves' own radii: give up early so the caller raises the trace's precision
        exact = self.exact()
        stop = MAX_PREC if exact else 2 * max(self.cache, default=64)
        return remembered_sign(self, name, exact, lambda: self._sign(
            lambda prec: self.values(prec, i + 1)[i], self.graph.sym(name), name, stop))

    def _sign(self, ball_at, expr, what, stop=None) -> int:
        """The sign through :func:`certified_sign`, with SymPy's exact zero test as the last resort."""
        exact = self.exact()
        return certified_sign(ball_at, what, (lambda: self._exact_zero(expr)) if exact else None,
                              stop or MAX_PREC, balls=not exact)

    def _exact_zero(self, expr):
        """fmpq(0) when SymPy proves ``expr`` exactly 0, else None: first on partial
        expansions (identically 0 in the remaining symbols proves 0, cheaply), then
        on the full closed form.  One time box for all of it, run once (memoised)."""
        def test():
            for kind, e in self._cuts(expr, depths=True):
                if kind == "depth":  # added cuts, each in a small box of its own (the
                    # enclosing box's clock stops meanwhile): the others keep their time
                    proven = bounded(lambda: _is_zero(e, quick=2000), DEPTH_SECONDS)
                else:
                    proven = _is_zero(e, quick=300 if kind == "span" else None)
                if proven:
                    return fmpq(0)
            return None
        return self._tested("zero", expr, test)

    def _tested(self, kind: str, expr, test):
        """``test()`` in one time box (:func:`bounded`), run once per (kind, expr): its
        verdict, an inconclusive None included, is remembered (an interrupted one is not)."""
        key = (kind, expr)
        if key not in self._tests:
            self._tests[key] = bounded(test)
        return self._tests[key]

    def _compiled(self, expr):
        """(closure, number of leading nodes it reads) of an expression over node symbols (memoised)."""
        self._sync()
        f = self._exprs.get(expr)
        if f is None:
            slot = _Reads(self.slot)
            f = self._exprs[expr] = (compile_expr(expr, slot, self._sign_of), slot.upto)
        return f

    def expr_ball(self, expr, prec: int):
        """An expression over node symbols, enclosed at ``prec`` bits."""
        f, upto = self._compiled(expr)
        vals = self.values(prec, upto)
        with ctx.workprec(prec):
            return f(vals)

    def expr_sign(self, expr) -> int:
        """The exact sign of an expression over node symbols (see :meth:`decide`)."""
        return self._sign(lambda prec: self.expr_ball(expr, prec), expr, expr)

    def exact_rational(self, expr) -> fmpq | None:
        """The exact value of an expression over node symbols when SymPy shows it
        is rational (A[0,0]·V[0,0] whose ball never settles on a rounding tie).
        """
        if not self.exact():
            return None
        return self._tested("rational", expr, lambda: self._rational(expr))

    def _rational(self, expr) -> fmpq | None:
        for _, e in self._cuts(expr):
            if sympy.count_ops(e) <= 2000:
                e = sympy.simplify(e)
                if e.is_Rational:
                    return to_flint(e)
        return None

    def _cuts(self, expr, depths=False):
        """(kind, expr) with its node symbols expanded to rising consistent cuts
        (the nodes defined up to 1, 4, 16, 64 places before each), then with
        ``depths`` to its definitions 2, 3, 4, 6, 8 levels deep ("depth"), then to
        full closed forms ("full"); expansions that grow too large are skipped.

        An expression identically 0 (or rational) at a cut is so exactly (each
        substitution replaces a symbol by an expression of the same value): the
        cheap cuts prove most ties without the full closed form.
        """
        g = self.graph
        cuts = [("span", k) for k in (1, 4, 16, 64)]
        cuts += [("depth", k) for k in (2, 3, 4, 6, 8)] if depths else []
        for kind, k in cuts + [("full", None)]:
            try:
                sub = {s: self._expand(g.by_sym[s], kind, k) for s in expr.free_symbols}
            except (ValueError, UndecidableError):
                continue
            yield kind, expr.xreplace(sub)

    def _expand(self, name, kind, k):
        """One node's closed form down to a cut (see :meth:`_cuts`)."""
        g = self.graph
        if kind == "span":
            return g.expand(name, k, self.decide)
        if kind == "full":
            return g.closed_form(name, decide=self.decide)
        depth = g.depths(name, k)
        return g.closed_form(name, stop=lambda node: node.expr is not None and node.name not in depth,
                             decide=self.decide, max_ops=2000)

    def certified_expr(self, expr, fmt, digits_hint: int):
        """``fmt`` of an expression over node symbols, certified (see :func:`certify`)."""
        return certify(lambda prec: self.expr_ball(expr, prec), fmt, what=f"the rounding of {expr}",
                       exact=lambda: self.exact_rational(expr), start=prec_for_digits(digits_hint)).value

    def certified(self, name, fmt, digits_hint: int):
        """``fmt`` of a node's value, certified (see :func:`certify`)."""
        return certify(lambda prec: self.ball(name, prec), fmt, what=f"the rounding of {name}",
                       exact=lambda: self.exact_rational(self.graph.sym(name)),
                       start=prec_for_digits(digits_hint)).value


def _is_zero(expr, quick: int | None = None) -> bool:
    """Proven exactly 0 by SymPy (``quick``: only up to that many operations, no ``equals``).

    >>> x = sympy.Symbol("x", real=True)
    >>> _is_zero((x + 1)**2 - x**2 - 2*x - 1, quick=300), _is_zero(x - 1), _is_zero(x**2 + 1, quick=1)
    (True, False, False)
    """
    if expr == 0:
        return True
    if quick is not None and sympy.count_ops(expr) > quick:
        return False
    if sympy.simplify(expr) == 0:
        return True
    return quick is None and expr.equals(0) is True
