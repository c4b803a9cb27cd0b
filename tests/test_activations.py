"""The FFN's smooth activations (model.activation): GELU with the exact erf, its tanh form, SiLU.

Each is checked against references that do not use symgpt: closed forms worked out by hand (GELU(0) = 0,
GELU′(0) = SiLU′(0) = ½, GELU(1) = Φ(1)), mpmath's own ncdf/npdf/tanh in the pure-mpmath oracle
(tests/oracle.py, its derivatives written by hand), and PyTorch float64 autograd (F.gelu, F.silu).
"""
from __future__ import annotations

import os

import mpmath
import pytest
import sympy
from flint import arb, ctx, fmpq

from symgpt.core.errors import InputError
from symgpt.ops import OPS, pointwise

import hostile
import oracle
from conftest import SEED, assert_close, derivation_of, replace_once, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402

SMOOTH = ("gelu", "gelu_tanh", "silu")


def _with_activation(text: str, act: str) -> str:
    return replace_once(text, 'kind = "transformer"\n', f'kind = "transformer"\nactivation = "{act}"\n')


# ---------------------------------------------------------------- closed forms by hand

@pytest.mark.parametrize("act", SMOOTH)
def test_at_zero_the_value_is_exactly_0_and_the_slope_exactly_one_half(act):
    """f(0) = 0 and f′(0) = ½ for all three (Φ(0) = σ(0) = ½, tanh 0 = 0): exact rationals, not balls."""
    r, f = OPS[act].rules()[0], pointwise.value(OPS[act].f)
    assert f(fmpq(0)) == 0 and isinstance(f(fmpq(0)), fmpq)
    assert r.grad_Z(fmpq(1), fmpq(0)) == fmpq(1, 2) and isinstance(r.grad_Z(fmpq(1), fmpq(0)), fmpq)


def test_gelu_of_one_is_the_normal_cdf_at_one():
    """GELU(1) = 1·Φ(1) and GELU(−1) = −Φ(−1) = Φ(1) − 1; GELU′(1) = Φ(1) + φ(1) (mpmath's ncdf, npdf)."""
    r, f = OPS["gelu"].rules()[0], pointwise.value(OPS["gelu"].f)
    with mpmath.workdps(40), ctx.workprec(200):
        phi1, dens1 = mpmath.ncdf(1), mpmath.npdf(1)
        for z, want in ((1, phi1), (-1, phi1 - 1)):
            got = f(fmpq(z))
            assert isinstance(got, arb) and got.overlaps(arb(f"{mpmath.nstr(want, 38)} +/- 1e-37"))
            assert_close(got.mid().str(35, radius=False), want, 30, f"GELU({z})")
        assert_close(r.grad_Z(fmpq(1), fmpq(1)).mid().str(35, radius=False), phi1 + dens1, 30, "GELU'(1)")


def test_the_tanh_form_and_silu_at_one():
    """½(1 + tanh(√(2/π)·1.044715)) and 1/(1 + e⁻¹), by mpmath."""
    with mpmath.workdps(40):
        want_tanh = (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * mpmath.mpf("1.044715"))) / 2
        want_silu = 1 / (1 + mpmath.exp(-1))
    for act, want in (("gelu_tanh", want_tanh), ("silu", want_silu)):
        with ctx.workprec(200):
            got = pointwise.value(OPS[act].f)(fmpq(1))
        assert_close(got.mid().str(35, radius=False), want, 30, act)


@pytest.mark.parametrize("act", SMOOTH)
def test_the_stated_derivative_is_sympys(act):
    """The rule each module states is SymPy's diff of its definition (checked anew here, not by the module)."""
    m = OPS[act]
    Z, gR = sympy.symbols("Z gR", real=True)
    derived = gR * sympy.diff(m.f(Z), Z)
    stated = m.STATED[f"{act}.grad_Z"](gR, Z)
    for z in (sympy.Rational(-3, 2), sympy.Rational(1, 3), sympy.Integer(2)):
        assert abs(sympy.N((derived - stated).subs({gR: 1, Z: z}), 50)) < sympy.Float("1e-45")


# ---------------------------------------------------------------- whole models against independent oracles

@pytest.mark.parametrize("act", SMOOTH)
def test_the_seed_with_each_activation_matches_the_mpmath_oracle_to_30_digits(act, tmp_path):
    path = write_spec(tmp_path, _with_activation(SEED.read_text(encoding="utf-8"), act))
    d = derivation_of(path)
    loss, grads = oracle.grads(str(path), dps=50)
    assert_close(d.mpf("loss", 40), loss, 30, "loss")
    assert len(grads) == 54
    for name, want in grads.items():
        if abs(want) > mpmath.mpf(10) ** -25:
            assert_close(d.mpf("grad_" + name, 40), want, 28, name)


@pytest.mark.parametrize("act", SMOOTH)
def test_a_two_layer_two_head_model_matches_torch_float64(act, tmp_path):
    """A random spec of another size (V 5, d 4, 2 heads, d_ff 6, 2 layers, T 3, W_O): every parameter's
    gradient agrees with PyTorch float64 autograd within float64's error."""
    text = oracle.random_spec_toml(seed=11, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, W_O=True, activation=act)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    spec = oracle.load_spec(path)
    _, n = torch_oracle.assert_gradients_match(d, spec)
    assert n > 150


# ---------------------------------------------------------------- the spec key and the documents

def test_an_unknown_activation_is_one_clear_error(tmp_path):
    path = write_spec(tmp_path, _with_activation(SEED.read_text(encoding="utf-8"), "swish"))
    with pytest.raises(InputError) as e:
        derivation_of(path)
    msg = str(e.value)
    assert str(path) in msg and "model.activation" in msg and "'gelu'" in msg and "swish" in msg
    o = hostile.render(str(path), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and "model.activation" in o.err and not (tmp_path / "out").exists()
    assert "Traceback" not in o.err


def test_a_bigram_has_no_activation(tmp_path):
    text = (oracle.ROOT_PATH if hasattr(oracle, "ROOT_PATH") else SEED.parent / "bigram.toml").read_text("utf-8")
    path = write_spec(tmp_path, text.replace('kind = "bigram"\n', 'kind = "bigram"\nactivation = "gelu"\n', 1))
    with pytest.raises(InputError, match=r"model\.activation"):
        derivation_of(path)


@pytest.mark.slow
@pytest.mark.parametrize("act", ["gelu", "silu"])
def test_the_documents_name_the_activation_and_verify_their_own_figures(act, tmp_path):
    """Render md and claims in both languages: the FFN's prose names the activation (not ReLU), and every
    figure the document prints passes verify."""
    spec = write_spec(tmp_path, _with_activation(SEED.read_text(encoding="utf-8"), act), f"tt-{act}.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    name = OPS[act].DOCUMENT["name"]
    for lang in ("en", "zh"):
        md = (out / f"tt-{act}.{lang}.md").read_text(encoding="utf-8")
        assert f"\\mathrm{{{name}}}" in md and "ReLU" not in md, lang
        v = hostile.verify(str(out / f"tt-{act}.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
