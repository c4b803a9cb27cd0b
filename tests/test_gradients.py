"""Reverse mode against independent references.

Every ``grad_<param>`` of both seeds (and of a two-layer, two-head spec) is
compared with PyTorch float64 autograd and with central differences of the
pure-mpmath oracle at high precision (tests/oracle.py).  PyTorch is a
test-only oracle: with CI=true a missing torch is a failure, not a skip.
"""
from __future__ import annotations

import os

import mpmath
import pytest
import sympy

import oracle
from conftest import BIGRAM, SEED, assert_close, derivation_of, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401  (CI must have the oracle)
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402


def _entries(name, tensor):
    """(symgpt node name, float) for every entry of a torch gradient."""
    g = tensor.detach().tolist()
    if isinstance(g[0], list):
        return [(f"{name}[{i},{j}]", x) for i, row in enumerate(g) for j, x in enumerate(row)]
    return [(f"{name}[{i}]", x) for i, x in enumerate(g)]


def _check_torch(d, loss, params):
    loss.backward()
    n = 0
    for name, tensor in params.items():
        for node, want in _entries(name, tensor.grad):
            got = float(d.mpf("grad_" + node, 30))
            tol = max(1e-9 * abs(want), 1e-14)
            assert abs(got - want) <= tol, f"{node}: symgpt {got!r}, torch {want!r}"
            n += 1
    return n


def test_seed_transformer_gradients_match_torch(seed):
    spec = oracle.load_spec(SEED)
    loss, params = torch_oracle.transformer_torch(spec, learnable_ln=True)
    assert _check_torch(seed, loss, params) == 46 + 8


def test_bigram_gradients_match_torch(bigram):
    spec = oracle.load_spec(BIGRAM)
    loss, params = torch_oracle.bigram_torch(spec)
    assert _check_torch(bigram, loss, params) == 12


def test_two_layer_two_head_gradients_match_torch(tmp_path):
    text = oracle.random_spec_toml(seed=7, V=8, d=4, heads=2, d_ff=8, layers=2, T=4, W_O=True)
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    assert _check_torch(d, loss, params) > 200


def _spec_path(spec_dict, node):
    """The key path of a parameter entry inside the raw spec dict."""
    group, idx = node.split("[")
    idx = [int(x) for x in idx[:-1].split(",")]
    if "." in group:
        l, base = group.split(".")
        return ["layer", int(l[1:]), base] + idx
    if group in ("E", "W", "W_out"):
        return ["weights", group] + idx
    return ["layer", 0, group] + idx


@pytest.mark.parametrize("which", ["transformer", "bigram"])
def test_gradients_match_central_differences_to_40_digits(which, seed, bigram):
    d, path = (seed, SEED) if which == "transformer" else (bigram, BIGRAM)
    spec = oracle.load_spec(path)
    f = ((lambda s: oracle.transformer_forward(s, dps=130)["loss"]) if which == "transformer"
         else (lambda s: oracle.bigram_forward(s, dps=130)["loss"]))
    names = [n for n in d.graph.order if d.graph.nodes[n].expr is None
             and not d.graph.nodes[n].group.startswith(("gamma", "beta"))]
    assert len(names) == (46 if which == "transformer" else 12)
    for node in names:
        fd = oracle.central_difference(f, spec, _spec_path(spec, node), "1e-30", dps=130)
        got = d.mpf("grad_" + node, 60)
        with mpmath.workdps(130):
            if abs(fd) < mpmath.mpf(10) ** -60:
                assert abs(got) < mpmath.mpf(10) ** -50, node  # unused rows: exactly 0
                continue
        assert_close(got, fd, 40, node)


def test_logit_gradient_is_p_minus_y_from_sympy(seed):
    """The adjoint of the logits is SymPy's derivative of the loss, re-folded: p − y, over p named by its
    tokens (p[你], as the documents write it)."""
    t = seed.spec.target
    for v, token in enumerate(seed.spec.vocab):
        want = sympy.Symbol(f"p[{token}]", real=True) - (1 if v == t else 0)
        assert sympy.simplify(seed.definition(f"grad_logits[{v}]") - want) == 0


def test_bigram_closed_form_gradients_in_named_quantities(bigram):
    x0, p2 = sympy.Symbol("x[0]", real=True), sympy.Symbol("p[2]", real=True)
    assert sympy.simplify(bigram.closed_form("grad_W[0,2]") - x0 * (p2 - 1)) == 0
    W = lambda i, j: sympy.Symbol(f"W[{i},{j}]", real=True)
    p = lambda j: sympy.Symbol(f"p[{j}]", real=True)
    want = W(1, 0) * p(0) + W(1, 1) * p(1) + W(1, 2) * (p(2) - 1)  # (W(p − y))_1
    assert sympy.simplify(bigram.closed_form("grad_E[吃,1]") - want) == 0
    assert bigram.closed_form("grad_E[猫,0]") == 0  # rows not used get no gradient


def test_head_path_gradient_is_a_part_of_the_full_one(seed, seed_oracle):
    """grad_E_head = (p − y)·h_final (document 000 §12.4); the full ∂L/∂E differs."""
    p, h = seed_oracle["p"], seed_oracle["h_final"]
    with mpmath.workdps(60):
        for v in range(6):
            y = 1 if v == 4 else 0
            for j in range(2):
                assert_close(seed.mpf(f"grad_E_head[{v},{j}]", 40), (p[v] - y) * h[j], 35)
    # E[我] and E[爱] also feed the input embedding: the full gradient differs there,
    # by the input-path part (tiny, since a d = 2 LayerNorm flattens it), as torch says
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(SEED))
    loss.backward()
    full = params["E"].grad
    for v in (2, 3):
        for j in range(2):
            y = 0
            with mpmath.workdps(40):
                torch_input_path = float(full[v, j]) - float((p[v] - y) * h[j])
                ours = seed.mpf(f"grad_E[{v},{j}]", 40) - seed.mpf(f"grad_E_head[{v},{j}]", 40)
            assert ours != 0 and abs(float(ours) - torch_input_path) < 1e-15
    with mpmath.workdps(60):  # rows used only by the head: the full gradient is the head's (p − y)·h_final
        for v in (0, 1, 4, 5):
            y = 1 if v == 4 else 0
            for j in range(2):
                assert_close(seed.mpf(f"grad_E[{v},{j}]", 40), (p[v] - y) * h[j], 35, f"grad_E[{v},{j}]")


def test_relu_tie_has_derivative_zero(tmp_path):
    """An exact zero at the ReLU: ReLU(0) = 0 and ReLU'(0) = 0 (PyTorch's rule).

    With γ = 1, β = 0 and d = 2, LN1[t,0] + LN1[t,1] = 0 exactly, so a W_1
    column with equal entries and a zero bias gives Z[t,0] = 0 exactly, an
    irrational expression whose ball always contains 0: SymPy's exact zero
    test decides the tie.  At t = 1 the loss depends on it.
    """
    text = SEED.read_text(encoding="utf-8")
    text = text.replace("W_1 = [[0.3, 0.1, -0.2, 0.4], [0.2, -0.3, 0.5, 0.1]]",
                        "W_1 = [[0.3, 0.1, -0.2, 0.4], [0.3, -0.3, 0.5, 0.1]]")
    text = text.replace("b_1 = [0.1, 0.1, 0.1, 0.1]", "b_1 = [0, 0.1, 0.1, 0.1]")
    d = derivation_of(write_spec(tmp_path, text))
    assert d.sign("Z[1,0]") == 0 and "Z[1,0]" in d._ev.ties
    assert d.value("R[1,0]") == "0"
    assert d.sign("grad_R[1,0]") != 0          # the loss does depend on R[1,0] …
    assert d.value("grad_Z[1,0]") == "0"       # … but ReLU'(0) = 0 stops it
    assert d.value("grad_Z[0,2]") == "0"       # Z[0,·] does not reach a one-position loss


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10 ** 6), V=st.integers(2, 5), dh=st.sampled_from([(2, 1), (2, 2), (4, 1), (4, 2)]),
       layers=st.integers(1, 2), T=st.integers(1, 3), tied=st.booleans())
def test_random_specs_gradients_match_torch(tmp_path_factory, seed, V, dh, layers, T, tied):
    d_model, heads = dh
    text = oracle.random_spec_toml(seed=seed, V=V, d=d_model, heads=heads, d_ff=3, layers=layers, T=T,
                                   tied=tied, W_O=not tied)
    path = write_spec(tmp_path_factory.mktemp("spec"), text)
    d = derivation_of(path)
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(path), learnable_ln=True)
    assert _check_torch(d, loss, params) > 0
