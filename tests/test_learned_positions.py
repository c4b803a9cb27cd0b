"""Learned positions (model.positions = "learned", a table W_pe of model.n_ctx ≥ T rows), GPT-2's wpe.

References: PyTorch float64 autograd (the table's first T rows added to the embeddings, tests/torch_oracle.py) and
hand facts of a lookup: PE[t] is W_pe[t] exactly, ∂L/∂W_pe[t] = ∂L/∂H0[t] for t < T, and the rows past T get 0.
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


def _learned(text: str, rows: str, n_ctx: int | None = None) -> str:
    model = 'kind = "transformer"\npositions = "learned"\n' + (f"n_ctx = {n_ctx}\n" if n_ctx else "")
    text = replace_once(text, 'kind = "transformer"\n', model)
    return replace_once(text, "[weights]\n", f"[weights]\nW_pe = {rows}\n")


@pytest.mark.parametrize("norm,act,layers", [("post", "relu", 1), ("pre", "gelu", 2)])
def test_every_gradient_matches_torch_float64_and_unused_rows_get_nothing(norm, act, layers, tmp_path):
    text = oracle.random_spec_toml(seed=31 + layers, V=5, d=4, heads=2, d_ff=6, layers=layers, T=3, W_O=True,
                                   activation=act, norm=norm, n_ctx=5)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    spec = oracle.load_spec(path)
    loss, params = torch_oracle.transformer_torch(spec, learnable_ln=True)
    assert abs(float(d.mpf("loss", 30)) - loss.item()) <= 1e-12 * abs(loss.item())
    loss.backward()
    g = params["W_pe"].grad.tolist()
    for t in range(5):
        for j in range(4):
            got = float(d.mpf(f"grad_W_pe[{t},{j}]", 30))
            assert abs(got - g[t][j]) <= max(1e-9 * abs(g[t][j]), 1e-14), (t, j)
            if t >= 3:   # positions the input does not reach
                assert d.value(f"grad_W_pe[{t},{j}]") == "0" and g[t][j] == 0
            else:        # PE[t] = W_pe[t] and H0 = X + PE
                assert d.value(f"grad_W_pe[{t},{j}]", digits=25) == d.value(f"grad_H0[{t},{j}]", digits=25)
    for name in ("E", "W_1" if layers == 1 else "l1.W_1", "W_Q" if layers == 1 else "l0.W_Q"):
        want = params[name].grad.tolist()
        got = float(d.mpf(f"grad_{name}[1,2]", 30))
        assert abs(got - want[1][2]) <= max(1e-9 * abs(want[1][2]), 1e-14), name


def test_a_position_is_its_row(tmp_path):
    path = write_spec(tmp_path, _learned(SEED.read_text(encoding="utf-8"), "[[0.1, -0.2], [0.3, 0.05], [9, 9]]", 3))
    d = derivation_of(path)
    assert d.closed_form("PE[1,1]") == sympy.Rational(1, 20) and d.closed_form("PE[0,0]") == sympy.Rational(1, 10)
    # the seed's X[0] = E[我] = (0.5, 0.8): H0[0] = (0.6, 0.6)
    assert d.closed_form("H0[0,0]") == sympy.Rational(3, 5) and d.closed_form("H0[0,1]") == sympy.Rational(3, 5)


def test_bad_tables_are_one_clear_error(tmp_path):
    seed = SEED.read_text(encoding="utf-8")
    cases = {
        "short.toml": (_learned(seed, "[[0.1, 0.2], [0.3, 0.4]]", 3), "weights.W_pe"),          # 2 rows, n_ctx 3
        "ctx.toml": (_learned(seed, "[[0.1, 0.2]]", 1), "model.n_ctx"),                          # n_ctx < T = 2
        "sines.toml": (replace_once(seed, "[weights]\n", "[weights]\nW_pe = [[0, 0], [0, 0]]\n"), "weights.W_pe"),
        "kind.toml": (replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\npositions = "rotary"\n'),
                      "model.positions"),
        "n_ctx.toml": (replace_once(seed, 'kind = "transformer"\n', 'kind = "transformer"\nn_ctx = 8\n'),
                       "model.n_ctx: a table of positions needs"),
    }
    for name, (text, key) in cases.items():
        path = write_spec(tmp_path, text, name)
        with pytest.raises(InputError) as e:
            derivation_of(path)
        assert key in str(e.value) and str(path) in str(e.value), (name, str(e.value))
        o = hostile.render(str(path), "--format", "md", "--out", str(tmp_path / "out"))
        assert o.code == 2 and key in o.err and "Traceback" not in o.err, name
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_gpt_shaped_document_renders_and_verifies(tmp_path):
    """Pre-norm, GELU and learned positions with a table longer than the input (the greedy continuation crops
    to n_ctx as nanoGPT does): md and claims in both languages, every figure verified."""
    text = replace_once(_learned(SEED.read_text(encoding="utf-8"), "[[0.1, -0.2], [0.3, 0.05], [0.2, 0.2]]", 3),
                        'kind = "transformer"\n', 'kind = "transformer"\nnorm = "pre"\nactivation = "gelu"\n')
    spec = write_spec(tmp_path, text, "gptish.toml")
    out = tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md,claims", "--lang", "all", "--out", str(out))
    assert o.code == 0, o.err
    en = (out / "gptish.en.md").read_text(encoding="utf-8")
    assert "Learned positions" in en and r"W_{\mathrm{pe}}[1]" in en and "sines and cosines" not in en
    assert "可学习的位置" in (out / "gptish.zh.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        v = hostile.verify(str(out / f"gptish.{lang}.claims.toml"))
        assert v.code == 0, v.out[-2000:] + v.err
