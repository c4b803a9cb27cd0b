"""model.arch presets and model.positions = "none".

A preset fills the wiring keys of a family (seed, gpt2, llama); a key given beside it wins.  References: the
same spec written with the keys spelled out (the loss to 25 digits), and torch float64 for a model without
position vectors, where only the causal mask tells positions apart.
"""
from __future__ import annotations

import os

import pytest

from symgpt.core.errors import InputError
from symgpt.engine.spec import load_spec

import oracle
from conftest import SEED, derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402

SPELLED = {"gpt2": 'norm = "pre"\nactivation = "gelu_tanh"\npositions = "learned"\nbias = true\n',
           "llama": 'norm = "pre"\nnorm_kind = "rmsnorm"\nactivation = "swiglu"\npositions = "rope"\nbias = false\n'}


def _family(family: str, keys: str, tmp_path, name: str):
    extra = {"gpt2": ("W_pe = [[0.1, 0.2], [0.3, -0.1]]\n", "b_Q = [0.1, 0]\nb_K = [0, 0.1]\nb_V = [0.2, 0.2]\n"),
             "llama": ("", "W_3 = [[0.1, -0.2, 0.3, 0.2], [0.4, 0.1, -0.3, 0.2]]\n")}[family]
    lines = [ln for ln in SEED.read_text(encoding="utf-8").splitlines(keepends=True)
             if not (family == "llama" and ln.startswith(("beta", "b_1", "b_2", "pe_base")))]
    text = "".join(lines).replace('kind = "transformer"\n', 'kind = "transformer"\n' + keys, 1)
    text = text.replace("[weights]\n", "[weights]\n" + extra[0], 1).replace("[[layer]]\n", "[[layer]]\n" + extra[1], 1)
    return write_spec(tmp_path, text, name)


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_a_preset_is_its_keys_spelled_out(family, tmp_path):
    by_preset = derivation_of(_family(family, f'arch = "{family}"\n', tmp_path, "p.toml"))
    spelled = derivation_of(_family(family, SPELLED[family], tmp_path, "s.toml"))
    for attr in ("norm", "norm_kind", "activation", "positions", "bias"):
        assert getattr(by_preset.spec, attr) == getattr(spelled.spec, attr), attr
    assert by_preset.value("loss", digits=25) == spelled.value("loss", digits=25)


def test_a_key_beside_a_preset_wins(tmp_path):
    s = load_spec(_family("gpt2", 'arch = "gpt2"\nactivation = "gelu"\n', tmp_path, "nano.toml"))   # nanoGPT's GELU
    assert (s.activation, s.norm, s.positions) == ("gelu", "pre", "learned")
    with pytest.raises(InputError, match=r"model\.arch: expected one of 'seed', 'gpt2', 'llama'"):
        load_spec(write_spec(tmp_path, SEED.read_text(encoding="utf-8").replace(
            'kind = "transformer"\n', 'kind = "transformer"\narch = "bert"\n'), "bad.toml"))


def test_no_positions_matches_torch_float64(tmp_path):
    text = oracle.random_spec_toml(seed=81, V=5, d=4, heads=2, d_ff=6, layers=2, T=3, activation="gelu", norm="pre")
    text = text.replace('kind = "transformer"\n', 'kind = "transformer"\npositions = "none"\n', 1)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    assert abs(float(d.mpf("loss", 30)) - loss.item()) <= 1e-12 * abs(loss.item())
    loss.backward()
    want = params["l1.W_1"].grad[2, 3].item()
    assert abs(float(d.mpf("grad_l1.W_1[2,3]", 30)) - want) <= 1e-9 * abs(want)
    assert "PE" not in d.graph.groups and "H0" not in d.graph.groups


def test_an_undecidable_rounding_names_its_quantity(tmp_path):
    """Without positions, an input of one repeated token makes every row the same: the scores' gradients, and so
    W_K's, are exactly 0, which no ball settles. The refusal names the quantity it could not round."""
    text = oracle.random_spec_toml(seed=4, V=4, d=4, heads=2, d_ff=4, layers=1, T=2, activation="relu")
    text = text.replace('kind = "transformer"\n', 'kind = "transformer"\npositions = "none"\n', 1)
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("input = "))
    lines[i] = 'input = ["t0", "t0"]'
    d = derivation_of(write_spec(tmp_path, "\n".join(lines) + "\n"))
    assert abs(float(d.mpf("grad_W_K[2,0]", 30))) < 1e-25          # 0, as the balls see it
    with pytest.raises((InputError, ArithmeticError)) as e:
        d.value("adamw[1].W_K[2,0]", digits=6)
    assert "adamw[1].W_K[2,0]" in str(e.value)


@pytest.mark.parametrize("family", [dict(), dict(activation="gelu", norm="pre", bias=True, n_ctx=4),
                                    dict(activation="gelu_tanh", norm="pre", W_O=True), dict(activation="silu"),
                                    dict(activation="swiglu", norm="pre", norm_kind="rmsnorm", rope=True, kv_heads=1,
                                         W_O=True, bias=False)])
@pytest.mark.parametrize("layers", [1, 2])
def test_every_quantity_of_every_family_has_its_chinese_meaning(family, layers, tmp_path):
    """The Chinese page words each quantity in Chinese (the names registry's English, translated exactly or by a
    pattern that names the tensor), whatever the family's blocks."""
    import re

    from symgpt.documents.html import meanings, translated
    zh = meanings("zh")
    d = derivation_of(write_spec(tmp_path, oracle.random_spec_toml(seed=1, V=4, d=4, heads=2, d_ff=4, layers=layers,
                                                                   T=2, **family)))
    english = {g.name: d.ref(g.names[0]).meaning for g in d._net.groups.values() if not g.name.startswith("grad_")}
    left = {n: m for n, m in english.items() if not re.search(r"[\u4e00-\u9fff]", translated(zh, m))}
    assert not left, left
