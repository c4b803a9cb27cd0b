"""Grouped-query attention (model.kv_heads): fewer K and V heads than query heads, head h reading K, V head
h // (heads / kv_heads), as Hugging Face's repeat_kv lays them out.

References: torch float64 with the heads' K and V columns repeated (tests/torch_oracle.py), and a hand fact: with
kv_heads = heads the model is the plain one, to the last digit.
"""
from __future__ import annotations

import os

import pytest

from symgpt.core.errors import InputError

import oracle
from conftest import derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402


@pytest.mark.parametrize("heads,kv,rope,bias", [(4, 2, True, False), (4, 1, False, True), (2, 1, True, None)])
def test_every_gradient_matches_torch_float64(heads, kv, rope, bias, tmp_path):
    text = oracle.random_spec_toml(seed=90 + heads + kv, V=5, d=8, heads=heads, d_ff=6, layers=2, T=3, W_O=True,
                                   activation="swiglu", norm="pre", norm_kind="rmsnorm", bias=bias, rope=rope,
                                   kv_heads=kv)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    params, n = torch_oracle.assert_gradients_match(d, oracle.load_spec(path))
    assert tuple(params["l0.W_K"].shape) == (8, 8 // heads * kv)


def test_as_many_kv_heads_as_heads_is_the_plain_model(tmp_path):
    text = oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=4, layers=1, T=3, activation="gelu")
    plain = derivation_of(write_spec(tmp_path, text, "a.toml"))
    same = derivation_of(write_spec(tmp_path, text.replace("heads = 2\n", "heads = 2\nkv_heads = 2\n", 1), "b.toml"))
    assert plain.value("loss", digits=30) == same.value("loss", digits=30)
    assert plain.value("grad_W_K[1,0]", digits=20) == same.value("grad_W_K[1,0]", digits=20)


def test_a_kv_head_count_must_divide_the_heads(tmp_path):
    text = oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=4, layers=1, T=3).replace(
        "heads = 2\n", "heads = 2\nkv_heads = 3\n", 1)
    with pytest.raises(InputError, match=r"model\.kv_heads: expected a divisor of heads = 2"):
        derivation_of(write_spec(tmp_path, text))
