"""Float64 balls enclose their exact results: every operation checked against exact rational arithmetic
(Fractions: a float64 is an exact rational) or mpmath at 60 digits, on random arrays that include subnormals,
cancellations, mixed magnitudes and long dot products; and the radii are tight enough to certify 10 digits of a
well-conditioned product, the float tier's purpose.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from symgpt.core.fball import ETA, Ball, gamma, significant

FLOATS = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    st.floats(-1e-300, 1e-300, allow_nan=False, allow_infinity=False),     # subnormals and their neighbours
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0 ** -1074, 1e16, -1e16, 0.1, 1 / 3]),
)


def arrays(shape):
    return hnp.arrays(np.float64, shape, elements=FLOATS)


def radii(shape):
    return hnp.arrays(np.float64, shape, elements=st.floats(0, 1e-3, allow_nan=False))


def Q(x) -> Fraction:
    return Fraction(float(x))


def inside(ball: Ball, idx, exact: Fraction) -> bool:
    if not np.isfinite(ball.r[idx]):
        return True
    return abs(exact - Q(ball.m[idx])) <= Q(ball.r[idx])


def corners(m, r):
    """The extreme points of a ball entry: m − r and m + r, exactly."""
    return [Q(m) - Q(r), Q(m) + Q(r)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(arrays((3, n)), arrays((n, 2)))))
def test_the_product_of_exact_matrices_encloses_the_exact_product(ab):
    a, b = ab
    c = Ball.exact(a) @ Ball.exact(b)
    for i in range(3):
        for j in range(2):
            exact = sum((Q(a[i, k]) * Q(b[k, j]) for k in range(a.shape[1])), Fraction(0))
            assert inside(c, (i, j), exact)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(arrays((2, n)), radii((2, n)), arrays((n, 2)),
                                                     radii((n, 2)), st.integers(0, 2 ** 30))))
def test_the_product_of_balls_encloses_every_product_of_their_points(x):
    am, ar, bm, br, seed = x
    c = Ball(am, ar) @ Ball(bm, br)
    rng = np.random.default_rng(seed)
    for _ in range(4):   # points of the balls: corners and random points, the product exact in Fractions
        ta, tb = rng.uniform(-1, 1, am.shape), rng.uniform(-1, 1, bm.shape)
        pa = [[Q(am[i, k]) + Fraction(ta[i, k]) * Q(ar[i, k]) for k in range(am.shape[1])] for i in range(2)]
        pb = [[Q(bm[k, j]) + Fraction(tb[k, j]) * Q(br[k, j]) for j in range(2)] for k in range(bm.shape[0])]
        for i in range(2):
            for j in range(2):
                assert inside(c, (i, j), sum((pa[i][k] * pb[k][j] for k in range(am.shape[1])), Fraction(0)))


@settings(max_examples=80, deadline=None)
@given(arrays(5), radii(5), arrays(5), radii(5), st.sampled_from(["+", "-", "*", "/"]))
def test_elementwise_arithmetic_encloses_every_combination_of_corners(am, ar, bm, br, op):
    a, b = Ball(am, ar), Ball(bm, br)
    c = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]
    f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": lambda x, y: x / y}[op]
    for k in range(5):
        for x in corners(am[k], ar[k]):
            for y in corners(bm[k], br[k]):
                if op == "/" and (y == 0 or (Q(bm[k]) - Q(br[k])) * (Q(bm[k]) + Q(br[k])) <= 0):
                    assert not np.isfinite(c.r[k]) or y != 0       # a divisor ball around 0 says nothing
                    continue
                assert inside(c, (k,), f(x, y))


def test_cancellation_keeps_an_honest_radius():
    a = Ball.exact([1e16, 1.0, -1e16])
    s = a.sum()
    assert s.contains_exact(Fraction(1))
    assert float(s.r) >= abs(float(s.m) - 1.0)       # float64 summation loses the 1: the radius says so
    ones = Ball.exact(np.array([[1e16, 1.0, -1e16]])) @ Ball.exact(np.ones((3, 1)))
    assert ones.contains_exact([[Fraction(1)]])


def test_underflow_is_enclosed():
    tiny = Ball.exact([2.0 ** -600])
    p = tiny * tiny
    assert p.contains_exact([Fraction(2) ** -1200]) and float(p.r[0]) >= ETA
    m = Ball.exact(np.full((1, 64), 2.0 ** -540)) @ Ball.exact(np.full((64, 1), 2.0 ** -540))
    assert m.contains_exact([[64 * Fraction(2) ** -1080]])


@pytest.mark.parametrize("name, f, lo, hi", [("exp", mp.exp, -30, 30), ("log", mp.log, 1e-3, 1e3),
                                             ("sqrt", mp.sqrt, 0, 1e6), ("tanh", mp.tanh, -20, 20),
                                             ("erf", mp.erf, -5, 5), ("sin", mp.sin, -10, 10),
                                             ("cos", mp.cos, -10, 10)])
def test_functions_enclose_the_mpmath_value(name, f, lo, hi):
    rng = np.random.default_rng(7)
    x = rng.uniform(lo, hi, 200)
    b = Ball.exact(x).apply(name)
    with mp.workdps(60):
        for k in range(x.size):
            v = f(mp.mpf(float(x[k])))
            assert abs(v - mp.mpf(float(b.m[k]))) <= mp.mpf(float(b.r[k]))
            assert float(b.r[k]) <= 2 * np.spacing(abs(float(b.m[k])))     # within two ulps: tight
    wide = Ball(np.array([1.0]), np.array([0.5])).apply(name)        # a ball in: every point's value out
    with mp.workdps(60):
        for t in (0.5, 0.75, 1.0, 1.25, 1.5):
            assert abs(f(mp.mpf(t)) - mp.mpf(float(wide.m[0]))) <= mp.mpf(float(wide.r[0]))


def test_a_well_conditioned_product_certifies_ten_digits():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 1.5, (256, 256)), rng.uniform(0.5, 1.5, (256, 256))   # positive: no cancellation
    c = Ball.exact(a) @ Ball.exact(b)
    assert float(np.max(c.r / np.abs(c.m))) < 1e-12
    assert np.min(c.bits()) > 40
    assert gamma(256) < 256 * 1.2e-16


def test_signs_are_decided_only_off_zero():
    b = Ball(np.array([1.0, -1.0, 1e-20, 0.0]), np.array([0.5, 0.5, 1e-19, 0.0]))
    assert b.sign().tolist() == [1, -1, 0, 0]


# -- the vectorised functions and the certified decimals (issue 29's float64 tier) ----------------------------

@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, 6, elements=st.one_of(st.floats(-740, 705, allow_nan=False),
                                                    st.floats(-1e-8, 1e-8, allow_nan=False),
                                                    st.sampled_from([0.0, 0.5 * np.log(2), -0.5 * np.log(2)]))),
       radii(6))
def test_exp_encloses_mpmaths_exp_of_every_point_and_is_tight(m, r):
    b = Ball(m, r).exp()
    with mp.workdps(60):
        for i in range(6):
            for x in (Q(m[i]) - Q(r[i]), Q(m[i]), Q(m[i]) + Q(r[i])):
                want = mp.exp(mp.mpf(x.numerator) / x.denominator)
                assert abs(want - mp.mpf(b.m[i])) <= mp.mpf(b.r[i]), (m[i], r[i])
    exact = r == 0
    rel = b.r[exact] / b.m[exact]
    assert np.all(rel[b.m[exact] > 1e-300] < 1e-13)     # about 13 digits: the tier's 10 with room


def test_exp_of_minus_infinity_is_exactly_zero_and_overflow_says_nothing():
    b = Ball([-np.inf, 800.0, np.nan]).exp()
    assert b.m[0] == 0 and b.r[0] == 0
    assert np.isinf(b.r[1]) and np.isinf(b.r[2])


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, 5, elements=st.floats(0, 1e6, allow_nan=False)), radii(5))
def test_sqrt_encloses_every_point(m, r):
    b = Ball(m, r).sqrt()
    with mp.workdps(50):
        for i in range(5):
            for x in (Q(m[i]) - Q(r[i]), Q(m[i]) + Q(r[i])):
                if x < 0:
                    assert np.isinf(b.r[i])
                    continue
                want = mp.sqrt(mp.mpf(x.numerator) / x.denominator)
                assert abs(want - mp.mpf(b.m[i])) <= mp.mpf(b.r[i])


@settings(max_examples=120, deadline=None)
@given(st.floats(-1e12, 1e12, allow_nan=False).filter(lambda x: x != 0), st.floats(0, 1e-9), st.integers(1, 13))
def test_significant_digits_agree_with_exact_rounding_of_both_ends(m, r, n):
    """Certified only when both exact ends round alike (half away from 0, Fractions), and then to that."""
    got = significant(Ball([m], [r]), n)[0]
    ends = [_half_away(Q(m) - Q(r), n), _half_away(Q(m) + Q(r), n)]
    if got is not None:
        assert ends[0] == ends[1] and Fraction(got) == ends[0], (m, r, n, got, ends)
    if r == 0 and n <= 10 and abs(m) > 1e-200:
        # a float's rounding is certified unless it lies within the margin of a boundary
        q = abs(Q(m)) / Fraction(10) ** (_exp10(abs(Q(m))) - n + 1)
        if abs(q - int(q) - Fraction(1, 2)) > Fraction(1, 10 ** 3) and int(q + Fraction(1, 2)) < 10 ** n:
            assert got is not None, (m, n)


def _exp10(q: Fraction) -> int:
    e = len(str(q.numerator // q.denominator)) - 1 if q >= 1 else -1
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    return e


def _half_away(q: Fraction, n: int) -> Fraction:
    if q == 0:
        return Fraction(0)
    a = abs(q)
    e = _exp10(a)
    unit = Fraction(10) ** (e - n + 1)
    M = int(a / unit + Fraction(1, 2))
    return (1 if q > 0 else -1) * M * unit


def test_significant_refuses_what_straddles_zero_or_a_boundary():
    got = significant(Ball([0.0, 1e-3, 0.12345, 0.0], [1e-3, 0.0, 5e-6, 0.0]), 4)
    assert got == [None, "0.001000", None, "0"]
