"""RMSNorm (model.norm_kind = "rmsnorm"): RMS(h)_j = γ_j h_j / √(mean(h²) + ε), no mean and no shift, Llama's.

References: torch's F.rms_norm in float64 (tests/torch_oracle.py), and the hand closed form of a row (a, −a):
its mean square is a², so RMS = (γ₀ a, −γ₁ a)/√(a² + ε).
"""
from __future__ import annotations

import os
import re

import pytest
import sympy

from symgpt.core.errors import InputError

import hostile
import oracle
from conftest import SEED, derivation_of, replace_once, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402


@pytest.mark.parametrize("norm,layers,d", [("pre", 2, 4), ("post", 1, 6)])
def test_every_gradient_matches_torch_float64(norm, layers, d, tmp_path):
    text = oracle.random_spec_toml(seed=50 + d, V=5, d=d, heads=2, d_ff=6, layers=layers, T=3, W_O=True,
                                   activation="silu", norm=norm, norm_kind="rmsnorm")
    path = write_spec(tmp_path, text)
    dv = derivation_of(path)
    params, n = torch_oracle.assert_gradients_match(dv, oracle.load_spec(path))
    assert not any("beta" in k for k in params) and any("gamma" in k for k in params)


_PRE_RMS = 'kind = "transformer"\nnorm = "pre"\nnorm_kind = "rmsnorm"\n'
RMS_ROW = "".join(line for line in replace_once(replace_once(
    SEED.read_text(encoding="utf-8"), 'kind = "transformer"\n', _PRE_RMS), "gamma1 = [1, 1]", "gamma1 = [2, 0.5]")
    .splitlines(keepends=True) if not line.startswith("beta"))   # no shift


def test_a_row_a_minus_a_by_hand(tmp_path):
    """The seed's E[我] = (0.5, 0.8) with PE[0] = (0, 1): H0[0] = (0.5, 1.8), not (a, −a); so the input is chosen:
    E[我] = (0.3, −1.3) gives H0[0] = (0.3, −0.3), ms = 0.09, RMS = (2·0.3, −0.5·0.3)/√(0.09 + 10⁻⁵)."""
    text = RMS_ROW.replace("[0.5, 0.8]", "[0.3, -1.3]", 1)
    d = derivation_of(write_spec(tmp_path, text))
    assert d.closed_form("H0[0,0]") == sympy.Rational(3, 10) and d.closed_form("H0[0,1]") == sympy.Rational(-3, 10)
    assert d.closed_form("ms1[0]") == sympy.Rational(9, 100)
    root = sympy.sqrt(sympy.Rational(9, 100) + sympy.Rational(1, 100000))
    for j, want in ((0, 2 * sympy.Rational(3, 10) / root), (1, -sympy.Rational(1, 2) * sympy.Rational(3, 10) / root)):
        assert sympy.simplify(d.closed_form(f"LN1[0,{j}]") - want) == 0


def test_a_shift_is_refused(tmp_path):
    for where, text in (("layer[0].beta1", RMS_ROW.replace("[[layer]]\n", "[[layer]]\nbeta1 = [0, 0]\n", 1)),
                        ("weights.beta_f", RMS_ROW.replace("[weights]\n", "[weights]\nbeta_f = [0, 0]\n", 1))):
        path = write_spec(tmp_path, text, where.replace(".", "_") + ".toml")
        with pytest.raises(InputError, match=re.escape(where) + ": .*no shift"):
            derivation_of(path)
    zero = write_spec(tmp_path, RMS_ROW.replace("ln_eps = 1e-5", "ln_eps = 0"), "zero.toml")
    with pytest.raises(InputError, match=r"model\.ln_eps: expected ε > 0 for RMSNorm"):
        derivation_of(zero)
    bad = write_spec(tmp_path, RMS_ROW.replace('norm_kind = "rmsnorm"', 'norm_kind = "batchnorm"'), "bad.toml")
    o = hostile.render(str(bad), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and "model.norm_kind" in o.err and "'rmsnorm'" in o.err and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_an_rmsnorm_document_renders_and_verifies(tmp_path):
    spec = write_spec(tmp_path, RMS_ROW, "rms.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "rms.en.md").read_text(encoding="utf-8")
    assert "RMSNorm: rescale by the root mean square" in en and r"\mathrm{RMS}(h_{1})" in en
    assert "RMSNorm：按均方根缩放" in (out / "rms.zh.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"rms.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
