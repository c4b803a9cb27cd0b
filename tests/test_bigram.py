"""The bigram (document 004): exact logits, p and L against hand and float64 values."""
from __future__ import annotations

import math

import pytest
from sympy import Rational

from conftest import assert_close, assert_significant

# The document's numbers: x = E[吃] = (0.3, −0.1), W as in derivations/bigram.toml.
X = (0.3, -0.1)
W = ((0.5, -0.3, 0.1), (0.2, 0.4, -0.5))
DOC_P = ("0.3673", "0.2832", "0.3494")
DOC_LOSS = "1.0515"


def float64_forward():
    """An independent float64 forward pass with math.exp."""
    z = [X[0] * W[0][v] + X[1] * W[1][v] for v in range(3)]
    e = [math.exp(x) for x in z]
    s = sum(e)
    p = [x / s for x in e]
    return z, p, -math.log(p[2])


def _4dp(x: float) -> str:
    # far from a rounding boundary, so float formatting is safe here
    frac = abs(x) * 1e4 - math.floor(abs(x) * 1e4)
    assert abs(frac - 0.5) > 1e-6
    return f"{x:.4f}"


def test_logits_exact(bigram):
    # z = x·W: 0.15 − 0.02, −0.09 − 0.04, 0.03 + 0.05
    assert [bigram.closed_form(f"z[{v}]") for v in range(3)] == [Rational(13, 100), Rational(-13, 100),
                                                                 Rational(2, 25)]
    assert [bigram.closed_form(f"x[{j}]") for j in range(2)] == [Rational(3, 10), Rational(-1, 10)]
    assert bigram.value("z[1]", decimals=2) == "-0.13"


def test_loss_document_value(bigram):
    assert bigram.value("loss", decimals=4) == DOC_LOSS
    assert _4dp(float64_forward()[2]) == DOC_LOSS


def test_p_four_decimals(bigram):
    _, p, _ = float64_forward()
    got = tuple(bigram.value(f"p[{v}]", decimals=4) for v in range(3))
    assert got == tuple(_4dp(x) for x in p)
    assert got == DOC_P
    assert bigram.value("p[鱼]", decimals=4) == DOC_P[2]


def test_against_oracle(bigram, bigram_oracle):
    assert_significant(bigram.value("loss", digits=30), bigram_oracle["loss"], 30)
    for v in range(3):
        assert_significant(bigram.value(f"p[{v}]", digits=30), bigram_oracle["p"][v], 30)


@pytest.mark.parametrize("name,key", [("grad_z", "grad_z"), ("grad_x", "grad_x")])
def test_gradient_vectors_against_oracle(bigram, bigram_oracle, name, key):
    # the oracle's analytic gradients: grad_z = p − y, grad_x = W·grad_z
    for i, want in enumerate(bigram_oracle[key]):
        assert_close(bigram.mpf(f"{name}[{i}]", 40), want, 30, f"{name}[{i}]")


def test_gradient_W_against_oracle(bigram, bigram_oracle):
    for i in range(2):
        for j in range(3):
            assert_close(bigram.mpf(f"grad_W[{i},{j}]", 40), bigram_oracle["grad_W"][i][j], 30,
                         f"grad_W[{i},{j}]")
