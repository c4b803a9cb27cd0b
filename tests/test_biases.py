"""Biases (model.bias): true gives every projection a bias (b_Q, b_K, b_V; b_O with W_O; the FFN's b_1, b_2),
as GPT-2 and nanoGPT's bias=True; false gives none; left out, the seed's (the FFN's only).

References: PyTorch float64 autograd (nn.Linear's x·W + b, tests/torch_oracle.py), and a hand fact: a key bias adds
q_t·b_K to every score of row t, which the softmax ignores, so ∂L/∂b_K = 0 exactly (torch sees float64 noise).
"""
from __future__ import annotations

import os

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


@pytest.mark.parametrize("bias,W_O,norm,layers", [(True, True, "pre", 2), (True, False, "post", 1),
                                                   (False, True, "pre", 2)])
def test_every_gradient_matches_torch_float64(bias, W_O, norm, layers, tmp_path):
    text = oracle.random_spec_toml(seed=41 + layers, V=5, d=4, heads=2, d_ff=6, layers=layers, T=3, W_O=W_O,
                                   activation="gelu", norm=norm, bias=bias)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    spec = oracle.load_spec(path)
    params, _ = torch_oracle.assert_gradients_match(d, spec)
    biases = sorted(k.rpartition(".")[2] for k in params if k.rpartition(".")[2].startswith("b_"))
    want = (["b_1", "b_2", "b_K", "b_Q", "b_V"] + (["b_O"] if W_O else [])) if bias else []
    assert sorted(set(biases)) == sorted(want)
    for name in (k for k in params if k.endswith("b_K")):   # exactly 0, proven: no rounding, no time
        for j, w in enumerate(params[name].grad.tolist()):
            node = f"grad_{name}[{j}]"
            assert d.value(node) == "0" and d.sign(node) == 0 and abs(w) < 1e-15


def test_a_bias_shifts_the_projection_by_itself(tmp_path):
    """Hand: Q = X·W_Q + b_Q, so Q with b_Q minus Q without it is b_Q in every row, exactly."""
    seed = SEED.read_text(encoding="utf-8")
    with_b = replace_once(replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nbias = true\n'),
                          "[[layer]]\n", "[[layer]]\nb_Q = [0.25, -0.5]\nb_K = [0, 0]\nb_V = [0.1, 0.2]\n")
    d1, d0 = derivation_of(write_spec(tmp_path, with_b, "b.toml")), derivation_of(write_spec(tmp_path, seed, "s.toml"))
    for t in range(2):
        assert d1.closed_form(f"Q[{t},0]") - d0.closed_form(f"Q[{t},0]") == sympy.Rational(1, 4)
        assert d1.closed_form(f"V[{t},1]") - d0.closed_form(f"V[{t},1]") == sympy.Rational(1, 5)


def test_bias_keys_are_checked_against_model_bias(tmp_path):
    seed = SEED.read_text(encoding="utf-8")
    on = replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nbias = true\n')
    off = replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nbias = false\n')
    cases = {
        "missing.toml": (on, "layer[0].b_Q"),                                                   # true: b_Q required
        "extra.toml": (off, "layer[0].b_1"),                                                    # false: no b_1
        "seedish.toml": (replace_once(seed, "[[layer]]\n", "[[layer]]\nb_Q = [0, 0]\n"), "model.bias = true"),
        "type.toml": (replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nbias = "yes"\n'),
                      "model.bias"),
    }
    for name, (text, key) in cases.items():
        path = write_spec(tmp_path, text, name)
        with pytest.raises(InputError) as e:
            derivation_of(path)
        assert key in str(e.value) and str(path) in str(e.value), (name, str(e.value))
    o = hostile.render(str(tmp_path / "missing.toml"), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and "b_Q" in o.err and "Traceback" not in o.err and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_biased_document_shows_the_biases_and_verifies(tmp_path):
    seed = SEED.read_text(encoding="utf-8")
    text = replace_once(replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nbias = true\n'),
                        "[[layer]]\n", "[[layer]]\nb_Q = [0.1, -0.1]\nb_K = [0.2, 0.05]\nb_V = [-0.1, 0.3]\n")
    spec = write_spec(tmp_path, text, "biased.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "biased.en.md").read_text(encoding="utf-8")
    assert "Q = H W_Q + b_Q" in en and "+ 0.1 = " in en
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"biased.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
