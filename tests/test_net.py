"""The tensor engine and the per-scalar SymPy graph are two derivations of one model.

symgpt.engine.net computes every named quantity one tensor at a time, with the adjoint rules
the ops of symgpt.ops derive once; symgpt.engine.models builds one SymPy definition per scalar and
differentiates each.  Both are evaluated in certified arithmetic, so on every node of
every shape (heads, layers, W_O, untied head, every-position loss, ε = 0) their
enclosures must overlap, and what the graph finds exact the engine must find exact and
equal.  Their groups carry the same names, shapes, meanings and axes.  (Each is also
checked against independent references: tests/test_transformer.py, test_scale_gradients.py.)
"""
from __future__ import annotations

import pytest
from flint import arb, fmpq

from symgpt.core.numeric import Evaluator
from symgpt.engine.models import differentiated
from symgpt.engine.net import Net
from symgpt.engine.spec import load_spec
from symgpt.engine.values import TensorEvaluator

import oracle
from conftest import ROOT

SEED = ROOT / "derivations" / "tiny-transformer.toml"

SHAPES = {
    "seed": None,
    "bigram": ROOT / "derivations" / "bigram.toml",
    "W_O": dict(seed=1, V=8, d=4, heads=2, layers=2, T=4, W_O=True),
    "untied": dict(seed=2, V=8, d=4, heads=2, layers=2, T=4, tied=False),
    "one-head-exact-scale": dict(seed=3, V=8, d=4, heads=1, layers=1, T=4),  # d_k = 4: 1/√d_k = 1/2 exact
    "one-position": dict(seed=5, V=8, d=4, heads=2, layers=2, T=1),  # A = 1: no adjoint groups for S, Q, K
}


def _spec(tmp_path, name):
    shape = SHAPES[name]
    if shape is None:
        return load_spec(SEED)
    if not isinstance(shape, dict):
        return load_spec(shape)
    p = tmp_path / f"{name}.toml"
    p.write_text(oracle.random_spec_toml(**shape), encoding="utf-8")
    return load_spec(p)


def _agree(spec, prec=160):
    new = TensorEvaluator(Net(spec))
    g = differentiated(spec)
    old = Evaluator(g)
    vals = old.values(prec)
    net_groups = {k: (v.shape, v.meaning, v.axes) for k, v in new.net.groups.items()}
    assert net_groups == {k: (v.shape, v.meaning, v.axes) for k, v in g.groups.items()}
    for name in g.order:
        a, b = vals[old.index(name)], new.ball(name, prec)
        if isinstance(a, fmpq):
            assert isinstance(b, fmpq) and a == b, (name, a, b)
        else:
            assert arb(b).overlaps(a), (name, a, b)
            # tight: the working precision reaches every stage (cancellation costs some bits)
            assert isinstance(b, fmpq) or b.rel_accuracy_bits() > prec // 2 or abs(b) < arb(2) ** -100, name
    return g


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_node_agrees_with_the_per_scalar_graph(tmp_path, name):
    _agree(_spec(tmp_path, name))


@pytest.mark.parametrize("shape", [dict(seed=4, V=8, d=4, heads=1, layers=1, T=4),
                                   dict(seed=6, V=8, d=4, heads=2, layers=2, T=3, tied=False, W_O=True)])
def test_every_position_loss_agrees(tmp_path, shape):
    p = tmp_path / "lm.toml"
    p.write_text(oracle.random_spec_toml(**shape) + "\n[training]\nall_positions = true\nlr = 0.1\n",
                 encoding="utf-8")
    g = _agree(load_spec(p))
    assert "logits_at0" in g.groups


def test_a_flat_layernorm_agrees_and_its_gradients_are_exact_zeros(tmp_path):
    """ε = 0 and d = 2: LN is ±γ + β, so the graph's zeros (which it needs SymPy for) are exact fmpq 0 here."""
    p = tmp_path / "eps0.toml"
    p.write_text(SEED.read_text(encoding="utf-8").replace("ln_eps = 1e-5", "ln_eps = 0"), encoding="utf-8")
    spec = load_spec(p)
    ev = TensorEvaluator(Net(spec))
    for name in ("grad_W_Q[0,0]", "grad_W_1[1,3]", "grad_b_2[0]", "grad_H1[1,0]", "grad_H2[0,1]"):
        assert ev.ball(name, 64) == 0 and isinstance(ev.ball(name, 64), fmpq), name
    assert isinstance(ev.ball("LN1[1,0]", 64), fmpq)  # γ·(±1) + β, rational
