"""The gated MLP (model.activation = "swiglu"): F = (SiLU(x·W_1) ⊙ x·W_3)·W_2, Llama's down(silu(gate(x)) * up(x)).

References: PyTorch float64 (F.silu(gate) * up, tests/torch_oracle.py) and hand facts: SiLU(0) = 0, so a zero gate
gives a zero unit whatever u is, and ∂r/∂u = SiLU(z), ∂r/∂z = u·σ(z)(1 + z(1 − σ(z))) = u/2 at z = 0.
"""
from __future__ import annotations

import os

import pytest
from flint import fmpq

from symgpt.core.errors import InputError
from symgpt.ops import swiglu

import hostile
import oracle
from conftest import SEED, derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402


def test_the_rule_at_a_zero_gate():
    r = swiglu.swiglu_rule()
    assert r.grad_U(fmpq(3), fmpq(0)) == 0 and r.grad_Z(fmpq(2), fmpq(0), fmpq(5)) == 5   # 2·5·½


@pytest.mark.parametrize("bias,norm,norm_kind", [(False, "pre", "rmsnorm"), (None, "post", "layernorm"),
                                                 (True, "pre", "layernorm")])
def test_every_gradient_matches_torch_float64(bias, norm, norm_kind, tmp_path):
    text = oracle.random_spec_toml(seed=60, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, W_O=True, activation="swiglu",
                                   norm=norm, norm_kind=norm_kind, bias=bias)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    params, n = torch_oracle.assert_gradients_match(d, oracle.load_spec(path))
    assert any(k.endswith("W_3") for k in params)


LLAMA_LIKE = "".join(
    ln for ln in SEED.read_text(encoding="utf-8")
    .replace('kind = "transformer"\n', 'kind = "transformer"\nnorm = "pre"\nnorm_kind = "rmsnorm"\n'
                                       'activation = "swiglu"\nbias = false\n', 1)
    .replace("W_2 = ", "W_3 = [[0.1, -0.2, 0.3, 0.2], [0.4, 0.1, -0.3, 0.2]]\nW_2 = ", 1)
    .splitlines(keepends=True) if not ln.startswith(("beta", "b_1", "b_2")))


def test_up_projection_keys_are_checked(tmp_path):
    cases = {"missing.toml": (LLAMA_LIKE.replace("W_3 = [[0.1, -0.2, 0.3, 0.2], [0.4, 0.1, -0.3, 0.2]]\n", ""),
                              "layer[0].W_3: missing"),
             "relu.toml": (SEED.read_text(encoding="utf-8").replace("[[layer]]\n", "[[layer]]\nW_3 = [[1], [1]]\n"),
                           "layer[0].W_3: an up projection belongs to a gated MLP"),
             "bias.toml": (LLAMA_LIKE.replace("[[layer]]\n", "[[layer]]\nb_3 = [0, 0, 0, 0]\n"), "layer[0].b_3")}
    for name, (text, said) in cases.items():
        path = write_spec(tmp_path, text, name)
        with pytest.raises(InputError) as e:
            derivation_of(path)
        assert said in str(e.value), (name, str(e.value))


@pytest.mark.slow
def test_a_llama_shaped_document_renders_and_verifies(tmp_path):
    """RMSNorm before each sub-block, the gated MLP, no biases: md and claims in both languages, verified."""
    spec = write_spec(tmp_path, LLAMA_LIKE, "llama.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "llama.en.md").read_text(encoding="utf-8")
    assert r"\mathrm{FFN}(h) = \left(\mathrm{SiLU}(h W_1) \odot h W_3\right) W_2" in en and "The up projection" in en
    assert "门控前馈网络" in (out / "llama.zh.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"llama.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
