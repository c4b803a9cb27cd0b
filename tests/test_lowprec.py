"""bfloat16 rounding and the bigram's bfloat16 first step, against PyTorch's own bfloat16.

PyTorch rounds a float64 tensor to bfloat16 with round-to-nearest-even; every
value a float64 holds is an exact rational, so the two must agree exactly.  The
first step is redone in the test scalar by scalar with torch bfloat16 tensors
(each product, sum, exp, quotient and log a bfloat16 operation) and float32
master weights.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

torch = pytest.importorskip("torch")

from symgpt.floats.lowprec import BF16, FP32, bf16, bigram_step, exp_rounded, fp32, log_rounded, round_float  # noqa: E402


def torch_round(x: float, dtype) -> float:
    return torch.tensor(x, dtype=torch.float64).to(dtype).item()


def same(ours, theirs: float) -> bool:
    if math.isinf(theirs) or math.isnan(theirs):
        return ours == theirs
    return ours == Fraction(theirs)


@settings(max_examples=600, deadline=None)
@given(hs.floats(allow_nan=False, allow_infinity=False, width=64))
def test_bf16_rounding_matches_torch(x):
    assert same(bf16(Fraction(x)), torch_round(x, torch.bfloat16))


@settings(max_examples=300, deadline=None)
@given(hs.floats(min_value=-1e4, max_value=1e4, allow_nan=False, width=64))
def test_fp32_rounding_matches_torch(x):
    assert same(fp32(Fraction(x)), torch_round(x, torch.float32))


@settings(max_examples=300, deadline=None)
@given(hs.integers(min_value=-140, max_value=129), hs.integers(min_value=0, max_value=2 ** 12))
def test_bf16_near_ties_subnormals_and_overflow_match_torch(e, m):
    """Values on and beside the midpoints of every binade, subnormals and the overflow edge."""
    x = math.ldexp(1 + m / 2 ** 12, e)
    for y in (x, -x):
        assert same(bf16(Fraction(y)), torch_round(y, torch.bfloat16)), y


def test_hand_cases():
    assert bf16(Fraction(257)) == 256 and bf16(Fraction(259)) == 260  # ties to even; 8 significant bits
    assert bf16(Fraction(1, 2 ** 133)) == Fraction(1, 2 ** 133)  # the smallest subnormal
    assert bf16(Fraction(1, 2 ** 134)) == 0  # half of it: a tie, to even (0)
    assert bf16(BF16.largest) == BF16.largest and bf16(2 * BF16.largest) == math.inf
    assert round_float(Fraction(1, 10), FP32) == Fraction(13421773, 2 ** 27)


@settings(max_examples=200, deadline=None)
@given(hs.floats(min_value=-20, max_value=20, allow_nan=False, width=32))
def test_exp_and_log_round_like_torch(x):
    """Correctly rounded exp/log against torch's bfloat16 exp/log (computed in float32, then rounded)."""
    xb = torch.tensor(x, dtype=torch.bfloat16)
    q = Fraction(xb.item())
    assert exp_rounded(q) == Fraction(xb.exp().item())
    if q > 0:
        assert log_rounded(q) == Fraction(xb.log().item())


def _torch_step(E, W, tok, tgt, lr):
    """The first SGD step in torch: float32 master weights, every operation a bfloat16 scalar."""
    b, f = torch.bfloat16, torch.float32
    t = lambda v, dt: torch.tensor(float(v), dtype=dt)
    W32 = [[t(w, torch.float64).to(f) for w in row] for row in W]
    E32 = [t(e, torch.float64).to(f) for e in E[tok]]
    Wb = [[w.to(b) for w in row] for row in W32]
    x = [e.to(b) for e in E32]
    d, V = len(W), len(W[0])

    def dot(a, c):
        acc = None
        for u, v in zip(a, c):
            acc = u * v if acc is None else acc + u * v
        return acc
    z = [dot(x, [Wb[i][j] for i in range(d)]) for j in range(V)]
    ez = [v.exp() for v in z]
    Z = ez[0]
    for v in ez[1:]:
        Z = Z + v
    p = [v / Z for v in ez]
    loss = -p[tgt].log()
    gz = [p[j] - t(1 if j == tgt else 0, b) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [dot(Wb[i], gz) for i in range(d)]
    lr32 = t(lr, torch.float64).to(f)
    W_new = [[W32[i][j] - lr32 * gW[i][j].to(f) for j in range(V)] for i in range(d)]
    E_new = [E32[i] - lr32 * gx[i].to(f) for i in range(d)]
    F = lambda v: Fraction(v.item())
    return {"x": [F(v) for v in x], "z": [F(v) for v in z], "exp_z": [F(v) for v in ez], "Z": F(Z),
            "p": [F(v) for v in p], "loss": F(loss), "grad_z": [F(v) for v in gz],
            "grad_W": [[F(v) for v in r] for r in gW], "grad_x": [F(v) for v in gx],
            "W_new": [[F(v) for v in r] for r in W_new], "E_row_new": [F(v) for v in E_new]}


SEED_E = [["0.1", "0.2"], ["0.3", "-0.1"], ["-0.2", "0.4"]]
SEED_W = [["0.5", "-0.3", "0.1"], ["0.2", "0.4", "-0.5"]]


@pytest.mark.parametrize("E,W,tok,tgt,lr", [
    (SEED_E, SEED_W, 1, 2, "0.5"),
    ([["1.7", "-0.33"], ["0.01", "2.5"]], [["0.77", "-1.3"], ["0.123", "0.9"]], 0, 1, "0.1"),
    ([["0.3", "-0.7", "1.1"]], [["0.5", "-0.3", "0.1", "2"], ["0.2", "0.4", "-0.5", "1"], ["1", "2", "3", "4"]],
     0, 3, "0.05"),
])
def test_bf16_first_step_matches_torch_scalar_by_scalar(E, W, tok, tgt, lr):
    Fq = lambda s: Fraction(s)
    ours = bigram_step([[Fq(v) for v in r] for r in E], [[Fq(v) for v in r] for r in W], tok, tgt, Fq(lr))
    theirs = _torch_step([[float(v) for v in r] for r in E], [[float(v) for v in r] for r in W], tok, tgt,
                         float(lr))
    assert ours == theirs


def test_a_softmax_beyond_bf16_is_refused_and_torch_agrees():
    """exp(100) is past bfloat16's largest number (about 3.4e38): torch gives inf, we refuse the step."""
    assert torch.tensor(100.0, dtype=torch.bfloat16).exp().item() == math.inf
    assert exp_rounded(Fraction(100)) == math.inf and exp_rounded(Fraction(-200)) == 0
    with pytest.raises(OverflowError, match="range of bfloat16"):
        bigram_step([[Fraction(10), Fraction(10)]], [[Fraction(5), Fraction(1)], [Fraction(5), Fraction(1)]],
                    0, 1, Fraction(1, 2))
