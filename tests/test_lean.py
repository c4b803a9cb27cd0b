"""The gradient of a deep model from a lean pass: each block's tensors are freed once the reverse pass has left it.

The oracle is PyTorch float64 autograd (tests/torch_oracle.py) on the same spec: every entry of
``Derivation.gradient`` must agree with it, for each family of blocks.  Meanwhile the pass really frees the blocks
(the upper ones during the reverse pass, the rest and each gradient once read out) and never has to run again
whole.  A freed tensor asked for afterwards is computed again.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import oracle
from conftest import derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402

FAMILIES = {
    "seed (post-norm, ReLU, sinusoidal)": dict(W_O=True),
    "gpt2 (pre-norm, GELU, learned, biases)": dict(activation="gelu", norm="pre", bias=True, n_ctx=4, tied=False),
    "llama (RMSNorm, SwiGLU, RoPE, GQA)": dict(activation="swiglu", norm="pre", norm_kind="rmsnorm", rope=True,
                                               kv_heads=1, W_O=True, bias=False),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_a_lean_gradient_is_torchs_and_frees_the_upper_blocks(family, tmp_path):
    text = oracle.random_spec_toml(seed=12, V=5, d=4, heads=2, d_ff=6, layers=4, T=3, **FAMILIES[family])
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    loss.backward()
    g = d.gradient(12, tier="arb")     # arb's lean pass (the ball tiers would serve these digits without it)
    n = 0
    for name, t in params.items():
        want = t.grad.detach().numpy()
        for idx in np.ndindex(want.shape):
            key = f"{name}[{','.join(map(str, idx))}]"
            got = 0.0 if g[key].startswith("[") else float(g[key])   # an enclosure of 0: |x| < its radius
            assert abs(got - want[idx]) <= max(1e-9 * abs(want[idx]), 1e-14), f"{key}: {g[key]} vs {want[idx]!r}"
            n += 1
    assert n == len(g)
    freed = d._ev.freed_groups
    assert {"l3.S", "l3.H2", "grad_l3.H1", "l2.LN2", "l0.S", "grad_l1.W_Q"} <= freed
    assert not freed & {"loss", "X", "logits"}   # what no block owns stays
    assert d._ev.lean_fallbacks == 0
    # a freed tensor asked for afterwards: computed again, the same as from a fresh derivation
    fresh = derivation_of(path)
    for ref in ("l3.S[1,2,0]", "grad_l3.H1[2,1]", "l2.H2[0,3]"):
        assert d.value(ref, digits=20) == fresh.value(ref, digits=20)


def test_a_one_block_model_frees_nothing():
    from symgpt.engine.net import Net
    from symgpt.engine.spec import load_spec
    assert Net(load_spec("derivations/tiny-transformer.toml")).dead_after() == {}
