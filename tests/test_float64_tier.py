"""The float64 tier (issue 29): the whole model and its adjoints in float64 balls (symgpt.floats.balls).

Every ball must hold the independent value: tests/oracle.py's hand-written mpmath forward and reverse mode at
40 digits, on the seeds and on random specs of other architectures (several layers and heads, GELU and its tanh form,
pre-norm, learned positions, untied heads).  Where a ball certifies digits, gradient() prints the oracle's
own rounding of them (half away from 0, in Fractions here); where it does not, "auto" goes to arb and gives the
same strings as tier="arb"; "float64" shows the ball.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

import symgpt
from symgpt.core.errors import InputError
from symgpt.core.fball import Ball, Undecided
from symgpt.floats import balls

import oracle

ROOT = oracle.ROOT

RANDOM = {   # tests/oracle.py computes these (post-norm LayerNorm, sinusoidal positions)
    "2 layers, 2 heads": dict(seed=3, V=7, d=4, heads=2, d_ff=6, layers=2, T=4),
    "GELU, untied, W_O": dict(seed=8, V=6, d=4, heads=2, d_ff=5, layers=1, T=3, tied=False, W_O=True,
                              activation="gelu"),
    "GELU tanh, 2 layers": dict(seed=60, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, W_O=True,
                                activation="gelu_tanh"),
}
TORCH = {    # beyond the mpmath oracle: PyTorch float64 (tests/torch_oracle.py)
    "pre-norm": dict(seed=61, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, W_O=True, norm="pre"),
    "learned positions": dict(seed=11, V=6, d=4, heads=1, d_ff=4, layers=1, T=3, n_ctx=5),
    "SwiGLU, pre-norm RMSNorm": dict(seed=62, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, W_O=True,
                                     activation="swiglu", norm="pre", norm_kind="rmsnorm", bias=False),
    "rotary positions (Llama's block)": dict(seed=5, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, rope=True,
                                              norm="pre", norm_kind="rmsnorm", bias=False, activation="swiglu"),
}


def _path(name, tmp_path):
    if name in ("bigram", "tiny-transformer"):
        return ROOT + f"/derivations/{name}.toml"
    p = tmp_path / "spec.toml"
    p.write_text(oracle.random_spec_toml(**{**RANDOM, **TORCH}[name]), encoding="utf-8")
    return str(p)


def _holds(ball: Ball, idx, value) -> bool:
    with mpmath.workdps(40):
        return abs(mpmath.mpf(value) - mpmath.mpf(float(ball.m[idx]))) <= mpmath.mpf(float(ball.r[idx]))


def _half_away(x, n: int) -> str:
    """mpmath value x rounded half away from 0 to n significant digits, as a Fraction's decimal."""
    q = Fraction(mpmath.nstr(x, 45, min_fixed=-1000, max_fixed=1000)) if x else Fraction(0)
    if q == 0:
        return Fraction(0)
    e = mpmath.floor(mpmath.log10(abs(x)))
    unit = Fraction(10) ** (int(e) - n + 1)
    M = int(abs(q) / unit + Fraction(1, 2))
    return (1 if q > 0 else -1) * M * unit


@pytest.mark.parametrize("name", ["bigram", "tiny-transformer", *RANDOM])
def test_every_ball_holds_the_oracles_value(name, tmp_path):
    path = _path(name, tmp_path)
    loss, g = oracle.grads(path, dps=40)
    d = symgpt.load(path)
    v, why = d._balls(1)
    assert v is not None, why
    assert _holds(v["loss"], (), loss)
    names = {n: group for group in d.spec.params for n in d._skeleton.groups[group].names}
    checked = 0
    for node, want in g.items():
        group = names[node]
        flat = v["grad_" + group]
        i = d._skeleton.groups[group].names.index(node)
        assert _holds(Ball(flat.m.ravel(), flat.r.ravel()), i, want), (node, want)
        checked += 1
    assert checked == len(names)


@pytest.mark.parametrize("name", list(TORCH))
def test_every_ball_is_within_torch_float64s_own_error_of_torch(name, tmp_path):
    """Beyond the mpmath oracle: |midpoint − torch| ≤ radius + torch's own error (10⁻¹² relative)."""
    import torch_oracle
    path = _path(name, tmp_path)
    d = symgpt.load(path)
    v, why = d._balls(1)
    assert v is not None, why
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    loss.backward()
    near = lambda b, t: np.all(np.abs(b.m - t) <= b.r + 1e-12 * np.abs(t) + 1e-15)
    assert near(v["loss"], loss.item())
    assert params and all(near(v["grad_" + name], t.grad.detach().numpy()) for name, t in params.items())


@pytest.mark.parametrize("name", ["bigram", "tiny-transformer", *RANDOM, *TORCH])
def test_printed_digits_are_the_oracles_and_auto_equals_arb(name, tmp_path):
    path = _path(name, tmp_path)
    ball_strings = symgpt.load(path).gradient(6, tier="float64")
    certified = {k: s for k, s in ball_strings.items() if not s.startswith("[")}
    assert certified, "the tier certified nothing"
    if name not in TORCH:
        _, g = oracle.grads(path, dps=40)
        for k, s in certified.items():
            assert Fraction(s) == _half_away(g[k], 6), (k, s, g[k])
    assert symgpt.load(path).gradient(6) == symgpt.load(path).gradient(6, tier="arb")


def test_a_forced_float64_entry_it_cannot_round_is_its_ball():
    # the seed's ∂L/∂W_Q ≈ 1e-11 is a cancellation: the balls hold it but cannot round it
    g = symgpt.load("tiny-transformer").gradient(4, tier="float64")
    lo, hi = (float(x) for x in g["W_Q[0,0]"].strip("[]").replace("+/-", "").split()) \
        if g["W_Q[0,0]"].count(" ") == 2 else (0.0, float(g["W_Q[0,0]"].split()[-1].rstrip("]")))
    _, ref = oracle.grads(ROOT + "/derivations/tiny-transformer.toml", dps=30)
    assert abs(float(ref["W_Q[0,0]"]) - lo) <= hi


def test_value_takes_a_named_quantity_from_the_tier_with_arbs_digits():
    d = symgpt.load("tiny-transformer")
    loss, _ = oracle.grads(ROOT + "/derivations/tiny-transformer.toml", dps=30)
    assert Fraction(d.value("loss", digits=12)) == _half_away(loss, 12)
    assert d.value("A[1,0]", digits=8) == d.value("A[1,0]", digits=8, tier="arb")


def test_a_sign_the_balls_cannot_decide_is_asked_for_and_used():
    b = Ball([0.5, 1e-20, -0.25], [0.0, 1e-18, 0.0])
    asked = []
    balls._decide(b, "l0.Z", lambda node: asked.append(node) or -1)
    assert asked == ["l0.Z[1]"] and b.signs.tolist() == [1, -1, -1]
    assert (b > 0).tolist() == [True, False, False]
    with pytest.raises(Undecided):
        balls._decide(Ball([1e-20], [1e-18]), "Z", None)
    with pytest.raises(Undecided):
        Ball([1e-20], [1e-18]) > 0


def test_the_tier_argument_is_checked():
    d = symgpt.load("bigram")
    with pytest.raises(InputError, match="tier: expected one of 'auto', 'float64', 'double', 'arb', got 'gpu'"):
        d.gradient(4, tier="gpu")
    with pytest.raises(InputError, match="tier: expected one of 'auto', 'arb'"):
        d.value("loss", digits=4, tier="float64")


def test_another_example_goes_to_arb_and_float64_then_says_why():
    d = symgpt.Derivation(symgpt.load("tiny-transformer").spec, tokens=[2, 3], target=4)
    with pytest.raises(InputError, match="float64 tier cannot run this model"):
        d.gradient(4, tier="float64")
    assert d.gradient(4) == d.gradient(4, tier="arb")


def test_the_parameters_balls_hold_the_decimals():
    spec = symgpt.load("tiny-transformer").spec
    P = balls.parameters(spec)
    for name, vals in spec.params.items():
        want = np.asarray(vals, dtype=object)
        assert P[name].contains_exact(np.vectorize(lambda x: Fraction(int(x.p), int(x.q)), otypes=[object])(want))


@pytest.mark.parametrize("name", ["tiny-transformer", "bigram", "2 layers, 2 heads", "learned positions",
                                  "every position"])
def test_every_quantity_the_tier_serves_has_arbs_digits(name, tmp_path):
    """value() serves any model quantity from the tier: each of them, at 7 digits, as arb prints it."""
    if name == "every position":
        p = tmp_path / "spec.toml"
        p.write_text(oracle.random_spec_toml(**RANDOM["2 layers, 2 heads"]) + "\n[training]\nall_positions = true\n",
                     encoding="utf-8")
        path = str(p)
    else:
        path = _path(name, tmp_path)
    d = symgpt.load(path)
    v, _ = d._balls(1)
    served = 0
    for group, shape, _ in d.names():
        if group not in v or v[group].shape != tuple(shape):
            continue
        for node in d._skeleton.groups[group].names[:6]:
            tier = d._value_from_balls(d._quantity(node), 7, 1)
            if tier is not None:
                assert tier == d.value(node, digits=7, tier="arb"), node
                served += 1
    assert served > 20
