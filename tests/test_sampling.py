"""Sampling on the seed against independent mpmath computations from the oracle's logits."""
from __future__ import annotations

import mpmath
import pytest
import sympy
from sympy import Rational

from symgpt.training import sampling

import oracle
from conftest import BIGRAM, ORACLE_DPS, assert_close, ball_mid, derivation_of, replace_once, write_spec

PREC = 200  # bits for reading exact expressions as balls


def value_of(d, expr):
    """An exact expression over node symbols, enclosed at PREC bits; its midpoint as an mpf."""
    return ball_mid(d._ev.expr_ball(expr, PREC))


def oracle_ranking(p):
    """Ids by decreasing p, with a margin check so the order is not a near tie."""
    order = sorted(range(len(p)), key=lambda v: -p[v])
    with mpmath.workdps(ORACLE_DPS):
        for a, b in zip(order, order[1:]):
            assert p[a] - p[b] > mpmath.mpf(10) ** -20
    return order


def test_greedy_seed(seed, seed_oracle):
    c = sampling.greedy(seed)
    assert (c.token, c.id, c.ties) == ("爱", 3, False)
    assert c.id == oracle_ranking(seed_oracle["p"])[0]


def test_ranking_seed(seed, seed_oracle):
    order, ties = sampling.ranking(seed)
    assert order == oracle_ranking(seed_oracle["p"])
    assert ties is False


@pytest.mark.parametrize("T", [Rational(1, 2), Rational(1), Rational(2)])
def test_temperature_against_mpmath(seed, seed_oracle, T):
    probs = sampling.temperature(seed, T)
    with mpmath.workdps(ORACLE_DPS):
        tq = mpmath.mpf(T.p) / T.q
        want = oracle.softmax([z / tq for z in seed_oracle["logits"]])
    assert len(probs) == 6
    for v in range(6):
        assert_close(value_of(seed, probs[v]), want[v], 30, f"p_T={T}[{v}]")


def test_temperature_spec_values(seed):
    assert seed.spec.sampling.temperatures == (Rational(1, 2), 1, 2, sympy.oo)


def test_temperature_infinity_is_uniform(seed):
    assert sampling.temperature(seed, sympy.oo) == [Rational(1, 6)] * 6


def test_temperature_one_is_p(seed, seed_oracle):
    probs = sampling.temperature(seed, Rational(1))
    for v in range(6):
        assert_close(value_of(seed, probs[v]), seed_oracle["p"][v], 30, f"p[{v}]")


def test_top_k_seed(seed, seed_oracle):
    k = seed.spec.sampling.top_k
    assert k == 3
    tr = sampling.top_k(seed, k)
    assert [seed.spec.vocab[v] for v in tr.kept] == ["爱", "他", "<pad>"]
    assert tr.kept == oracle_ranking(seed_oracle["p"])[:3]
    for v in range(6):
        if v not in tr.kept:
            assert tr.probs[v] == 0
    # renormalised exactly: the kept probabilities sum to exactly 1 ...
    total = sympy.Add(*tr.probs.values())
    assert sympy.cancel(total) == 1
    with mpmath.workdps(60):
        assert abs(value_of(seed, total) - 1) < mpmath.mpf(10) ** -50
    # ... and each is p[v] / Σ_kept p, computed here from the oracle
    p = seed_oracle["p"]
    with mpmath.workdps(ORACLE_DPS):
        mass = mpmath.fsum(p[v] for v in tr.kept)
        want = {v: p[v] / mass for v in tr.kept}
    for v in tr.kept:
        assert_close(value_of(seed, tr.probs[v]), want[v], 30, f"top-k p[{v}]")


def test_top_p_seed(seed, seed_oracle):
    P = seed.spec.sampling.top_p
    assert P == Rational(1, 2)
    tr = sampling.top_p(seed, P)
    assert len(tr.kept) == 3
    # the smallest prefix of the oracle's ranking whose mass reaches P
    p, order = seed_oracle["p"], oracle_ranking(seed_oracle["p"])
    with mpmath.workdps(ORACLE_DPS):
        acc, n = mpmath.mpf(0), 0
        while acc < mpmath.mpf(1) / 2:
            acc += p[order[n]]
            n += 1
        assert abs(acc - mpmath.mpf(1) / 2) > mpmath.mpf(10) ** -20
    assert tr.kept == order[:n]
    assert sympy.cancel(sympy.Add(*tr.probs.values())) == 1
    with mpmath.workdps(ORACLE_DPS):
        for i, c in enumerate(tr.cumulative):
            assert_close(value_of(seed, c), mpmath.fsum(p[v] for v in order[:i + 1]), 30, f"cum[{i}]")


def test_seeded_draw(seed, seed_oracle):
    u = seed.spec.sampling.uniform
    assert u == Rational(3, 4)
    c = sampling.draw(seed, u)
    # an independent inverse CDF in token-id order: first v with Σ_{i≤v} p_i > u
    with mpmath.workdps(ORACLE_DPS):
        acc, uu = mpmath.mpf(0), mpmath.mpf(3) / 4
        for v, pv in enumerate(seed_oracle["p"]):
            acc += pv
            if acc > uu:
                break
        assert abs(acc - uu) > mpmath.mpf(10) ** -20 and abs(acc - pv - uu) > mpmath.mpf(10) ** -20
    assert (c.token, c.id) == ("你", v)
    assert v == 4


@pytest.mark.parametrize("u,want", [(Rational(0), 0), (Rational(1, 10), 0), (Rational(1, 5), 1),
                                    (Rational(99, 100), 5)])
def test_draw_other_u(seed, seed_oracle, u, want):
    with mpmath.workdps(ORACLE_DPS):
        cdf = [mpmath.fsum(seed_oracle["p"][:v + 1]) for v in range(6)]
        uu = mpmath.mpf(u.p) / u.q
        assert next(v for v in range(6) if cdf[v] > uu) == want
    assert sampling.draw(seed, u).id == want


# ---------------------------------------------------------------- exact ties

@pytest.fixture
def tied_bigram(tmp_path):
    # W's columns 1 and 2 are equal, so with x = E[吃] = (0.3, −0.1):
    # z[吃] = z[鱼] = 0.3·0.2 + (−0.1)·0.1 = 0.05 > z[猫] = 0.3·0.1 + (−0.1)·0.5 = −0.02
    text = replace_once(BIGRAM.read_text(encoding="utf-8"),
                        "W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]",
                        "W = [[0.1, 0.2, 0.2], [0.5, 0.1, 0.1]]")
    return derivation_of(write_spec(tmp_path, text))


def test_tie_ranking_lower_id_first(tied_bigram):
    d = tied_bigram
    assert [d.closed_form(f"z[{v}]") for v in range(3)] == [Rational(-1, 50), Rational(1, 20), Rational(1, 20)]
    order, ties = sampling.ranking(d)
    assert order == [1, 2, 0]
    assert ties is True
    c = sampling.greedy(d)
    assert (c.id, c.token, c.ties) == (1, "吃", True)
    assert sampling.top_k(d, 1).kept == [1]


def test_tie_irrational_logits(tmp_path, seed_text):
    # 他 gets 爱's embedding row: with a tied head their logits are equal, but only
    # through sin/cos/sqrt/exp, so the tie must be decided exactly, not by balls
    text = replace_once(seed_text, "[0.6, 0.4],   # 他", "[0.7, 0.3],   # 他")
    path = write_spec(tmp_path, text)
    d = derivation_of(path, gradients=False)
    res = oracle.transformer_forward(oracle.load_spec(path), dps=ORACLE_DPS)
    with mpmath.workdps(ORACLE_DPS):
        assert abs(res["logits"][3] - res["logits"][5]) < mpmath.mpf(10) ** -50
    order, ties = sampling.ranking(d)
    assert ties is True
    assert order.index(3) + 1 == order.index(5)
    assert order[0] == 3


def test_no_tie_reported_without_one(bigram):
    order, ties = sampling.ranking(bigram)
    assert (order, ties) == ([0, 2, 1], False)  # z = (0.13, −0.13, 0.08)


# ---------------------------------------------------------------- continuation

def test_greedy_continuation(seed):
    n = seed.spec.sampling.n_continue
    assert n == 3
    out = sampling.continue_greedy(seed, n)
    assert len(out) == n
    spec = oracle.load_spec(seed.spec.path)
    tokens = list(seed.spec.input)
    for c in out:
        res = oracle.transformer_forward(spec, tokens=tokens, dps=ORACLE_DPS)
        assert c.id == oracle_ranking(res["logits"])[0]
        assert c.token == seed.spec.vocab[c.id]
        assert c.ties is False
        tokens.append(c.id)
