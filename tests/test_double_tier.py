"""The double-word tier (issue 29): the whole model and its adjoints in balls whose midpoints have about 106 bits
(symgpt.core.dwball, symgpt.floats.balls.DWBalls).

Each operation's ball must hold the exact result, computed here in Fractions (and mpmath at 80 digits for exp,
sqrt and log); each model's balls must hold tests/oracle.py's hand-written mpmath forward and reverse mode at 60
digits; the digits the tier prints are the oracle's own rounding; on a model deep enough that the float64 tier
certifies little, "auto" takes the double-word tier's digits and they are arb's.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgpt
from symgpt.core import dwball
from symgpt.core.dwball import DWBall
from symgpt.core.errors import InputError
from symgpt.floats import balls

import oracle
from test_float64_tier import RANDOM, TORCH, _half_away, _path

ROOT = oracle.ROOT

# -- one operation at a time, against Fractions -------------------------------------------------------------------

_exps = st.integers(-60, 60)
_fracs = st.builds(lambda p, q, e: Fraction(p, q) * Fraction(2) ** e,
                   st.integers(-10 ** 12, 10 ** 12), st.integers(1, 10 ** 9), _exps)


def _mid(b: DWBall, idx=()) -> Fraction:
    return Fraction(float(b.hi[idx])) + Fraction(float(b.lo[idx]))


def _holds(b: DWBall, exact, idx=()) -> bool:
    if not np.isfinite(b.r[idx]):
        return True
    return abs(Fraction(exact) - _mid(b, idx)) <= Fraction(float(b.r[idx]))


@settings(max_examples=150, deadline=None)
@given(st.lists(_fracs, min_size=4, max_size=4))
def test_arithmetic_holds_the_exact_result(xs):
    a, b = DWBall.of(xs[:2]), DWBall.of(xs[2:])
    for got, want in ((a + b, [x + y for x, y in zip(xs[:2], xs[2:])]),
                      (a - b, [x - y for x, y in zip(xs[:2], xs[2:])]),
                      (a * b, [x * y for x, y in zip(xs[:2], xs[2:])])):
        assert got.contains_exact(want)
        # and tightly: a few u² of the operands' size
        size = [abs(x) + abs(y) + abs(x * y) for x, y in zip(xs[:2], xs[2:])]
        assert all(float(got.r[i]) <= 64 * 2.0 ** -106 * float(size[i]) + 1e-300 for i in range(2))
    if all(y != 0 for y in xs[2:]):
        q = a / b
        assert q.contains_exact([x / y for x, y in zip(xs[:2], xs[2:])])
        assert all(float(q.r[i]) <= 64 * 2.0 ** -106 * abs(float(xs[i] / xs[2 + i])) + 1e-300 for i in range(2))


@settings(max_examples=60, deadline=None)
@given(st.lists(_fracs, min_size=3, max_size=3), st.floats(-30, 30))
def test_exp_sqrt_log_hold_mpmaths_value(xs, t):
    with mpmath.workdps(80):
        x = DWBall.of([Fraction(t)])
        e = x.exp()
        want = mpmath.exp(mpmath.mpf(t))
        assert abs(mpmath.mpf(float(e.hi[0])) + mpmath.mpf(float(e.lo[0])) - want) <= mpmath.mpf(float(e.r[0]))
        assert float(e.r[0]) < 1e-29 * float(want)
        pos = [abs(v) for v in xs if v != 0]
        if not pos:
            return
        b = DWBall.of(pos)
        for got, f in ((b.sqrt(), mpmath.sqrt), (b.log(), mpmath.log)):
            for i, v in enumerate(pos):
                w = f(mpmath.mpf(v.numerator) / v.denominator)
                assert abs(mpmath.mpf(float(got.hi[i])) + mpmath.mpf(float(got.lo[i])) - w) <= \
                    mpmath.mpf(float(got.r[i])), (v, f)
                assert float(got.r[i]) <= 1e-29 * max(abs(float(w)), 1e-300) + 1e-300


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(1, 5), st.data())
def test_matrix_products_and_sums_hold_the_exact_result(m, n, p, data):
    """Mixed magnitudes (2^±60 within a row), zero rows and columns, exact and inexact entries."""
    A = [[data.draw(st.one_of(_fracs, st.just(Fraction(0)))) for _ in range(n)] for _ in range(m)]
    B = [[data.draw(st.one_of(_fracs, st.just(Fraction(0)))) for _ in range(p)] for _ in range(n)]
    if data.draw(st.booleans()):
        A[0] = [Fraction(0)] * n
    a, b = DWBall.of(A), DWBall.of(B)
    c = a @ b
    for i in range(m):
        for j in range(p):
            want = sum(A[i][k] * B[k][j] for k in range(n))
            assert _holds(c, want, (i, j)), (i, j)
            size = sum(abs(A[i][k] * B[k][j]) for k in range(n))
            # a few u² of Σ|a||b| beyond the row's and column's scales (the slices' grids): generous, but far below
            # the float64 tier's u
            scale = max(abs(x) for x in A[i]) * sum(abs(B[k][j]) for k in range(n))
            assert float(c.r[i, j]) <= 1e-28 * float(scale) + 1e-290, (float(c.r[i, j]), float(size))
    s = a.sum(axis=1)
    assert s.contains_exact([sum(row) for row in A])
    v = a[0] @ b                       # a vector times a matrix
    assert v.contains_exact([sum(A[0][k] * B[k][j] for k in range(n)) for j in range(p)])


def test_balls_with_radii_hold_every_point():
    """An operand's radius carries through: the result holds the exact result at both ends of each ball."""
    x = DWBall([0.75, -2.5], [1e-20, 0.0], [1e-18, 1e-25])
    y = DWBall([1.25, 3.0], [0.0, 1e-17], [2e-19, 0.0])
    for sx in (-1, 1):
        for sy in (-1, 1):
            px = [_mid(x, (i,)) + sx * Fraction(float(x.r[i])) for i in range(2)]
            py = [_mid(y, (i,)) + sy * Fraction(float(y.r[i])) for i in range(2)]
            assert (x * y).contains_exact([a * b for a, b in zip(px, py)])
            assert (x / y).contains_exact([a / b for a, b in zip(px, py)])
            assert (x + y).contains_exact([a + b for a, b in zip(px, py)])
            assert (x @ y).contains_exact(px[0] * py[0] + px[1] * py[1])


def test_what_a_ball_cannot_say_is_infinite_never_wrong():
    assert np.isinf(DWBall.of([Fraction(-1)]).sqrt().r[0])                # below 0
    assert np.isinf(DWBall([1.0], None, [2.0]).sqrt().r[0])                 # reaching below 0
    assert np.isinf((DWBall.of([1]) / DWBall([0.0], None, [1e-3])).r[0])    # dividing by a ball around 0
    assert DWBall([-np.inf]).exp().contains_exact([0])                      # a masked score: exactly 0
    tiny = DWBall.of([-800]).exp()
    assert tiny.contains_exact([0]) and tiny.r[0] < 1e-300
    assert DWBall.of([Fraction(0)]).sqrt().r[0] == 0


@pytest.mark.parametrize("n", [5, 13, 20, 28])
def test_significant_rounds_as_the_exact_value_does(n):
    with mpmath.workdps(60):
        xs = [Fraction(2, 3), Fraction(-1, 7), Fraction(10 ** 12 + 1, 3), Fraction(1, 10 ** 15 * 3)]
        got = dwball.significant(DWBall.of(xs), n)
        for x, s in zip(xs, got):
            assert Fraction(s) == _half_away(mpmath.mpf(x.numerator) / x.denominator, n), (x, s)
    assert dwball.significant(DWBall([1.0], None, [1e-3]), 5) == [None]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.decimals(min_value=-99, max_value=99, places=4, allow_nan=False), min_size=1, max_size=6))
def test_the_parameters_as_double_words_hold_their_decimals(decimals):
    class Spec:
        params = {"W": [[Fraction(str(x)) for x in decimals]]}
    P = balls.parameters(Spec, words=2)
    assert P["W"].contains_exact([[Fraction(str(x)) for x in decimals]])
    assert float(P["W"].r.max()) <= 2.0 ** -105 * max(float(abs(Fraction(str(x)))) for x in decimals) + 1e-300


# -- whole models, against the mpmath oracle and PyTorch --------------------------------------------------------

@pytest.mark.parametrize("name", ["bigram", "tiny-transformer", *RANDOM])
def test_every_double_ball_holds_the_oracles_value(name, tmp_path):
    path = _path(name, tmp_path)
    loss, g = oracle.grads(path, dps=60)
    d = symgpt.load(path)
    v, why = d._balls(2)
    assert v is not None, why
    with mpmath.workdps(60):
        def near(b, idx, want):
            m = mpmath.mpf(float(b.hi[idx])) + mpmath.mpf(float(b.lo[idx]))
            return abs(m - want) <= mpmath.mpf(float(b.r[idx]))
        assert near(v["loss"], (), loss)
        assert float(v["loss"].r) < 1e-22 * abs(float(loss))       # the float64 tier: about 1e-13
        for group in d.spec.params:
            G = v["grad_" + group]
            flat = DWBall(G.hi.ravel(), G.lo.ravel(), G.r.ravel())
            for i, node in enumerate(d._skeleton.groups[group].names):
                assert near(flat, i, g[node]), (node, g[node])


@pytest.mark.parametrize("name", list(TORCH))
def test_every_double_ball_is_within_torch_float64s_own_error_of_torch(name, tmp_path):
    import torch_oracle
    path = _path(name, tmp_path)
    v, why = symgpt.load(path)._balls(2)
    assert v is not None, why
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    loss.backward()
    near = lambda b, t: np.all(np.abs(b.hi + b.lo - t) <= b.r + 1e-12 * np.abs(t) + 1e-15)
    assert near(v["loss"], loss.item())
    assert params and all(near(v["grad_" + name], t.grad.detach().numpy()) for name, t in params.items())


@pytest.mark.parametrize("name", ["tiny-transformer", *RANDOM])
def test_twenty_digits_from_the_double_tier_are_the_oracles(name, tmp_path):
    path = _path(name, tmp_path)
    strings = symgpt.load(path).gradient(20, tier="double")
    certified = {k: s for k, s in strings.items() if not s.startswith("[")}
    assert len(certified) > len(strings) // 2
    _, g = oracle.grads(path, dps=60)
    for k, s in certified.items():
        assert Fraction(s) == _half_away(g[k], 20), (k, s, g[k])


def test_a_deeper_model_takes_the_double_tier_and_prints_arbs_digits(tmp_path):
    """Three layers: float64 balls certify few of 10 digits, the double-word balls most; auto's strings are arb's."""
    p = tmp_path / "deep.toml"
    p.write_text(oracle.random_spec_toml(seed=21, V=9, d=8, heads=2, d_ff=16, layers=3, T=6), encoding="utf-8")
    d = symgpt.load(str(p))
    v1, _ = d._balls(1)
    v2, _ = d._balls(2)
    grads = [k for k in v1 if k.startswith("grad_") and k[5:] in d.spec.params]
    n1 = sum(s is not None for k in grads for s in balls.significant(v1[k], 10))
    n2 = sum(s is not None for k in grads for s in dwball.significant(v2[k], 10))
    total = sum(v1[k].size for k in grads)
    assert n2 > n1 and n2 > 0.9 * total, (n1, n2, total)
    auto = d.gradient(10)
    assert 2 in d._tiers
    assert auto == symgpt.load(str(p)).gradient(10, tier="arb")


def test_value_takes_twenty_digits_from_the_double_tier():
    d = symgpt.load("tiny-transformer")
    loss, _ = oracle.grads(ROOT + "/derivations/tiny-transformer.toml", dps=60)
    assert Fraction(d.value("loss", digits=20)) == _half_away(loss, 20)
    assert 2 in d._tiers
    assert d.value("A[1,0]", digits=25) == d.value("A[1,0]", digits=25, tier="arb")


def test_the_double_tier_refuses_what_it_cannot_run():
    d = symgpt.Derivation(symgpt.load("tiny-transformer").spec, tokens=[2, 3], target=4)
    with pytest.raises(InputError, match="double-word tier cannot run this model"):
        d.gradient(4, tier="double")


@settings(max_examples=200, deadline=None)
@given(_fracs, st.floats(0.5, 1.0), st.integers(-60, 60), st.sampled_from([-1.0, 0.0, 1.0]))
def test_dividing_by_a_ball_that_nearly_reaches_zero_holds_every_quotient(x, share, e, lo_sign):
    """A divisor whose radius is almost its size (its lowest point far below its midpoint): each end's and the
    midpoint's quotient lies in the ball (or the ball says nothing).  A review found |hi| − |lo| rounded up here."""
    hi = 2.0 ** e
    lo = lo_sign * 2.0 ** (e - 54)
    r = float(np.nextafter(hi * share, 0.0))
    y = DWBall(np.array([hi]), np.array([lo]), np.array([r]))
    q = DWBall.of([x]) / y
    mid = Fraction(hi) + Fraction(lo)
    for point in (mid - Fraction(r), mid, mid + Fraction(r)):
        if point > 0:
            assert q.contains_exact([x / point]), (x, hi, lo, r)


def test_an_exact_zero_times_anything_is_exactly_zero():
    """0 × a value beyond the split's range (or a product of a zero row): exactly 0, a well-formed ball."""
    z = DWBall(np.array([2.0 ** 1000])) * DWBall(np.array([0.0]))
    assert (z.hi[0], z.lo[0], z.r[0]) == (0.0, 0.0, 0.0)
    m = DWBall(np.zeros((1, 2))) @ DWBall(np.array([[2.0 ** 1000], [1.0]]))
    assert (m.hi[0, 0], m.r[0, 0]) == (0.0, 0.0)
