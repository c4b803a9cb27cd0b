"""Pre-norm blocks (model.norm = "pre"): a norm before each sub-block, the residual stream never normalised
inside a block, and a final norm ln_f (γ_f, β_f) before the head, as GPT-2 and nanoGPT wire them.

References: PyTorch float64 autograd on the same wiring written out in tests/torch_oracle.py (F.layer_norm),
and the hand facts of a norm (LN of a row with equal entries is β; γ_f scales the final rows).
"""
from __future__ import annotations

import os

import mpmath
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


def _pre(text: str, extra: str = "") -> str:
    return replace_once(text, 'kind = "transformer"\n', f'kind = "transformer"\nnorm = "pre"\n{extra}')


def _gradients_match_torch(d, spec) -> int:
    return torch_oracle.assert_gradients_match(d, spec)[1]


@pytest.mark.parametrize("act,layers,heads", [("relu", 1, 1), ("gelu", 2, 2), ("silu", 3, 1)])
def test_every_gradient_matches_torch_float64(act, layers, heads, tmp_path):
    """Three sizes and activations; γ_f and β_f get their gradients too (learnable_ln)."""
    text = _pre(oracle.random_spec_toml(seed=20 + layers, V=5, d=4, heads=heads, d_ff=6, layers=layers, T=3,
                                        W_O=heads > 1, activation=act))
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    n = _gradients_match_torch(d, oracle.load_spec(path))
    assert n > 100
    assert d.value("grad_gamma_f[0]") != "0" and d.value("grad_beta_f[1]") != "0"


def test_the_seeds_weights_in_a_pre_norm_block(tmp_path):
    """The seed's weights and sizes, wired pre-norm, with a final norm's γ_f, β_f given in the spec."""
    text = _pre(SEED.read_text(encoding="utf-8"))
    text = replace_once(text, "[weights]\n", "[weights]\ngamma_f = [1.5, 0.5]\nbeta_f = [0.1, -0.2]\n")
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    assert _gradients_match_torch(d, oracle.load_spec(path)) == 46 + 8 + 4
    # the head reads the final norm of the last row; with d = 2 a row's normalised entries are (x̂, −x̂), so
    # (LN_f[1,0] − β_f[0]) / γ_f[0] = −(LN_f[1,1] − β_f[1]) / γ_f[1] exactly, and |x̂| = |δ|/√(δ² + ε) < 1
    assert d.value("h_final[0]", digits=20) == d.value("LN_f[1,0]", digits=20)
    with mpmath.workdps(45):
        x0 = (d.mpf("LN_f[1,0]", 40) - mpmath.mpf("0.1")) / mpmath.mpf("1.5")
        x1 = (d.mpf("LN_f[1,1]", 40) + mpmath.mpf("0.2")) / mpmath.mpf("0.5")
        assert abs(x0 + x1) < mpmath.mpf(10) ** -35 and 0.99 < abs(x0) < 1


EQUAL_ROW = """
[model]
kind = "transformer"
norm = "pre"
activation = "gelu"
vocab = ["a", "b", "c"]
d = 2
heads = 1
d_ff = 2
layers = 1
ln_eps = 1e-5

[data]
input = ["b"]
target = "c"

[weights]
E = [[0.3, 0.1], [0, -1], [0.2, 0.5]]

[[layer]]
W_Q = [[0.1, 0.2], [0.3, 0.4]]
W_K = [[0.5, 0.1], [0.2, 0.3]]
W_V = [[0.2, -0.1], [0.4, 0.3]]
W_1 = [[0.3, -0.2], [0.1, 0.4]]
b_1 = [0.1, 0]
W_2 = [[0.2, 0.1], [-0.3, 0.5]]
b_2 = [0, 0.1]
beta1 = [0.25, -0.5]
"""


def test_a_row_of_equal_entries_normalises_to_beta(tmp_path):
    """Hand facts: E[b] + PE[0] = (0, −1) + (sin 0, cos 0) = (0, 0), so σ² = 0 and LN1 = β1 exactly (ε > 0);
    attention over one position is V itself, so Attn = β1·W_V = (0.25·0.2 − 0.5·0.4, −0.25·0.1 − 0.5·0.3)."""
    d = derivation_of(write_spec(tmp_path, EQUAL_ROW))
    assert d.value("H0[0,0]") == "0" and d.value("H0[0,1]") == "0"
    assert d.value("var1[0]") == "0" and d.sign("var1[0]") == 0
    assert d.closed_form("LN1[0,0]") == sympy.Rational(1, 4) and d.closed_form("LN1[0,1]") == sympy.Rational(-1, 2)
    assert d.closed_form("Attn[0,0]") == sympy.Rational(-3, 20) and d.closed_form("Attn[0,1]") == sympy.Rational(-7, 40)


def test_bad_norm_keys_are_one_clear_error(tmp_path):
    bad = write_spec(tmp_path, replace_once(SEED.read_text(encoding="utf-8"), 'kind = "transformer"\n',
                                            'kind = "transformer"\nnorm = "sandwich"\n'), "bad.toml")
    with pytest.raises(InputError) as e:
        derivation_of(bad)
    assert "model.norm" in str(e.value) and "'pre'" in str(e.value) and str(bad) in str(e.value)
    post = write_spec(tmp_path, replace_once(SEED.read_text(encoding="utf-8"), "[weights]\n",
                                             "[weights]\ngamma_f = [1, 1]\n"), "post.toml")
    with pytest.raises(InputError, match=r"weights\.gamma_f.*model\.norm = \"pre\""):
        derivation_of(post)
    short = write_spec(tmp_path, _pre(SEED.read_text(encoding="utf-8")).replace("[weights]\n",
                                                                             "[weights]\nbeta_f = [1, 2, 3]\n"),
                       "short.toml")
    o = hostile.render(str(short), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and "weights.beta_f" in o.err and "Traceback" not in o.err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_pre_norm_document_renders_and_verifies_its_own_figures(tmp_path):
    """md and claims in both languages: the sections follow the pre-norm wiring (a norm before attention,
    Q = LN₁ W_Q, a final norm) and every printed figure passes verify."""
    spec = write_spec(tmp_path, _pre(SEED.read_text(encoding="utf-8")), "pre.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "pre.en.md").read_text(encoding="utf-8")
    heads = [ln for ln in en.splitlines() if ln.startswith("## §")]
    titles = [h.split(" ", 2)[2] for h in heads]
    i = titles.index("The norm before attention")
    assert titles[i + 1].startswith("Self-attention") and titles[i + 2] == "Residual connection (first)"
    assert "The final norm" in titles and r"Q = \mathrm{LN}_1 W_Q" in en and "LayerNorm: standardise" in en
    zh = (out / "pre.zh.md").read_text(encoding="utf-8")
    assert "注意力之前的归一化" in zh and "最终的归一化" in zh
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"pre.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
