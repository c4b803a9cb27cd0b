"""Rotary positions (model.positions = "rope", base model.rope_theta): each head's queries and keys turned by
t·θ_i, θ_i = base^(−2i/d_k), in the rotate_half convention of Hugging Face's Llama.

References: the rotation written out in torch float64 (tests/torch_oracle.py: cat(freqs, freqs), x·cos +
rotate_half(x)·sin) at d_k = 2, 4 and 6 (θ = 10000^(−1/3) is irrational), and hand facts: at position 0 the rotation
is the identity, exactly; a rotation keeps each pair's length.
"""
from __future__ import annotations

import os

import pytest
import sympy

from symgpt.core.errors import InputError

import hostile
import oracle
from conftest import SEED, derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402


@pytest.mark.parametrize("d,heads,layers,bias", [(4, 2, 2, False), (4, 1, 1, True), (6, 1, 1, None)])
def test_every_gradient_matches_torch_float64(d, heads, layers, bias, tmp_path):
    text = oracle.random_spec_toml(seed=70 + d, V=5, d=d, heads=heads, d_ff=6, layers=layers, T=3, W_O=True,
                                   activation="swiglu", norm="pre", norm_kind="rmsnorm", bias=bias, rope=True)
    path = write_spec(tmp_path, text)
    dv = derivation_of(path)
    params, n = torch_oracle.assert_gradients_match(dv, oracle.load_spec(path))
    if bias:   # a key bias is turned with its key: no longer shift-invariant, its gradient is not 0
        assert abs(params["b_K"].grad).max().item() > 1e-8 and dv.sign("grad_b_K[0]") != 0


ROPE = "".join(ln for ln in SEED.read_text(encoding="utf-8").replace(
    'kind = "transformer"\n', 'kind = "transformer"\nnorm = "pre"\npositions = "rope"\nrope_theta = 500\n', 1)
    .splitlines(keepends=True) if not ln.startswith("pe_base"))


def test_position_zero_is_not_turned_and_lengths_are_kept(tmp_path):
    d = derivation_of(write_spec(tmp_path, ROPE))
    assert d.spec.T == 2 and d.spec.positions == "rope"
    for j in range(2):
        assert d.closed_form(f"Q_rot[0,{j}]") == d.closed_form(f"Q[0,{j}]")   # angle 0: identity, exactly
        assert d.closed_form(f"K_rot[0,{j}]") == d.closed_form(f"K[0,{j}]")
    # d_k = 2: one pair turned by 1·500^0 = 1 radian at t = 1
    q, qr = [d.closed_form(f"Q[1,{j}]") for j in range(2)], [d.closed_form(f"Q_rot[1,{j}]") for j in range(2)]
    assert sympy.simplify(qr[0] - (q[0] * sympy.cos(1) - q[1] * sympy.sin(1))) == 0
    assert sympy.simplify(qr[0] ** 2 + qr[1] ** 2 - q[0] ** 2 - q[1] ** 2) == 0


def test_bad_rotary_keys_are_one_clear_error(tmp_path):
    cases = {"odd.toml": (ROPE.replace("heads = 1", "heads = 2"), "model.positions: rotary positions pair"),
             "theta.toml": (SEED.read_text(encoding="utf-8").replace('kind = "transformer"\n',
                                                                     'kind = "transformer"\nrope_theta = 100\n'),
                            "model.rope_theta: a rotary base needs"),
             "zero.toml": (ROPE.replace("rope_theta = 500", "rope_theta = 0"), "model.rope_theta")}
    for name, (text, said) in cases.items():
        path = write_spec(tmp_path, text, name)
        with pytest.raises(InputError) as e:
            derivation_of(path)
        assert said in str(e.value) and str(path) in str(e.value), (name, str(e.value))
    o = hostile.render(str(tmp_path / "odd.toml"), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and "rotary" in o.err and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_rotary_document_renders_and_verifies(tmp_path):
    spec = write_spec(tmp_path, ROPE, "rope.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "rope.en.md").read_text(encoding="utf-8")
    assert "Rotary positions: turn the queries and keys" in en and "Positional encoding" not in en
    assert "$b = 500$" in en and "旋转位置编码" in (out / "rope.zh.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"rope.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err


@pytest.mark.parametrize("dk,theta", [(2, 10000), (6, 10000), (16, 500000), (64, 100)])
def test_the_float32_tables_are_hugging_faces(dk, theta):
    """Llama's rotary tables as Hugging Face computes them in float32: every inv_freq equal to torch's, every cos
    and sin within one unit in the last place of torch's vectorised float32 kernels (ours are correctly rounded)."""
    import numpy as np

    from symgpt.floats.model import Floats
    from symgpt.ops.rope import hf_inv_freq, hf_tables
    T = 64
    inv = 1.0 / (float(theta) ** (torch.arange(0, dk, 2, dtype=torch.float) / dk))
    angles = torch.arange(T)[..., None].float() * inv
    C, S = hf_tables(Floats("float32"), sympy.Integer(theta), dk, T)
    for ours, theirs in ((C, angles.cos().numpy()), (S, angles.sin().numpy())):
        assert ours.dtype == np.float32 and ours.shape == theirs.shape
        assert np.all(np.abs(ours.astype(np.float64) - theirs) <= np.spacing(np.abs(theirs)) * 1.0)
        assert np.mean(ours == theirs) > 0.85
    assert C[0].tolist() == [1.0] * (dk // 2) and S[0].tolist() == [0.0] * (dk // 2)
    assert [float(f) for f in hf_inv_freq(Floats("float32"), sympy.Integer(theta), dk)] == inv.tolist()
