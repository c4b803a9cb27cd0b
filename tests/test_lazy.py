"""The lazy per-scalar graph (symgpt/engine/lazy.py) against the full graph and against the tensor values.

For every node of several models — the seeds, and specs written here with two heads, W_O, an
untied head, the all-positions loss, two layers, ln_eps = 0 with d = 2, one position, and a
ReLU tie — the lazy definition equals the full graph's (SymPy ``==``), inputs and all; the
layers' consumer maps are the inverse of the full graph's inputs, the loss's path is the full
graph's ancestors of the loss, and the arities are the numbers of inputs.  Beyond the limits a
derivation answers definitions, closed forms and displays from the lazy graph; at nanoGPT scale
(slow) an adjoint's definition, evaluated on the tensor values of its inputs, gives the tensor
value of the adjoint (an independent check of the consumer maps).
"""
from __future__ import annotations

import pytest
import sympy
from flint import arb, fmpq

from symgpt import LimitError, Limits
from symgpt.core.graph import TooManyDefinitions
from symgpt.derivation import Derivation
from symgpt.engine.lazy import LazyGraph
from symgpt.engine.models import differentiated
from symgpt.engine.spec import load_spec

import oracle
from conftest import BIGRAM, ROOT, SEED, write_spec
from test_decisions import TIE_FAR_BACK

NANOGPT = ROOT / "benchmarks" / "specs" / "nanogpt.toml"


def _text(name: str) -> str:
    """The spec of each case as TOML text (a shipped spec's own text for the seeds)."""
    if name == "seed":
        return SEED.read_text(encoding="utf-8")
    if name == "bigram":
        return BIGRAM.read_text(encoding="utf-8")
    if name == "tie":
        return TIE_FAR_BACK
    if name == "heads2-WO-untied-all-positions":
        return oracle.random_spec_toml(seed=7, V=4, d=2, heads=2, d_ff=2, layers=2, T=3, tied=False, W_O=True) \
            + "\n[training]\nall_positions = true\n"
    if name == "d2-eps0-tied-all-positions":
        return oracle.random_spec_toml(seed=3, V=4, d=2, heads=1, d_ff=2, layers=2, T=3).replace(
            "ln_eps = 1e-5", "ln_eps = 0") + "\n[training]\nall_positions = true\n"
    if name == "one-position-heads2":
        return oracle.random_spec_toml(seed=5, V=3, d=2, heads=2, d_ff=2, layers=1, T=1, W_O=True)
    raise KeyError(name)


QUICK = ["seed", "bigram", "tie", "heads2-WO-untied-all-positions", "d2-eps0-tied-all-positions",
         "one-position-heads2"]


@pytest.fixture(params=QUICK, scope="module")
def pair(request, tmp_path_factory):
    """(full graph, lazy graph) of one case, built once for the module (a test reads them, never changes them)."""
    spec = load_spec(write_spec(tmp_path_factory.mktemp(request.param), _text(request.param)))
    return differentiated(spec), differentiated(spec, lazy=True)


def test_every_node_is_the_full_graphs(pair):
    full, lazy = pair
    for name in full.order:
        a, b = full.nodes[name], lazy.nodes[name]
        assert (b.expr, b.inputs, b.value, b.group, b.index, b.sym) == \
               (a.expr, a.inputs, a.value, a.group, a.index, a.sym), name
        assert lazy.definition(name) == full.definition(name)
        assert lazy.by_sym[a.sym] == name
    assert set(lazy.nodes) == set(full.nodes) and len(lazy.nodes) == len(full.nodes)
    assert {g: (x.shape, x.meaning, x.axes, sorted(x.names)) for g, x in lazy.groups.items()} == \
           {g: (x.shape, x.meaning, x.axes, sorted(x.names)) for g, x in full.groups.items()}


def test_consumers_path_and_arity_are_the_full_graphs(pair):
    """The layers' maps against the full graph: consumers are the inverse of inputs among forward nodes."""
    full, lazy = pair
    forward = [n for n in full.order if not n.startswith("grad_")]
    users = {n: set() for n in forward}
    for n in forward:
        for i in full.nodes[n].inputs:
            users[i].add(n)
    path = full.ancestors("loss")
    for n in forward:
        assert set(lazy.consumers(n)) == users[n], n
        assert len(lazy.consumers(n)) == len(users[n]), n  # each consumer once
        assert lazy.needed(n) == (n in path), n
        node = full.nodes[n]
        if node.expr is not None:
            assert lazy._arity[node.group](node.index) == len(node.inputs), n


def test_off_path_adjoints_are_zero_and_on_path_ones_are_not(pair):
    """What the lazy graph assumes of the full graph's `gc == 0` skip and `gc.is_Number` (module docstring)."""
    full, lazy = pair
    for n in full.order:
        if n.startswith("grad_") or "grad_" + n not in full.nodes:
            continue
        g = full.definition("grad_" + n)
        assert (g == 0) == (not lazy.needed(n)), n
        assert g.is_Number == (n == "loss" or not lazy.needed(n)), n


def test_a_name_the_full_graph_lacks_is_not_a_lazy_node(pair):
    full, lazy = pair
    for name in ("grad_p[0]", "grad_sum_exp", "p[99]", "E[0, 0]", "E[00,0]", "nothing", 3, "grad_E_head[0]"):
        assert (name in lazy.nodes) == (name in full.nodes)
        if name not in full.nodes:
            with pytest.raises(KeyError):
                lazy.nodes[name]


def test_closed_forms_and_depths_agree(pair):
    full, lazy = pair
    for name in full.order[:: max(1, len(full.order) // 12)]:
        try:
            want = full.closed_form(name, max_ops=100)
        except ValueError:
            with pytest.raises(ValueError):
                lazy.closed_form(name, max_ops=100)
            continue
        assert lazy.closed_form(name, max_ops=100) == want, name
        assert lazy.depths(name, 3) == full.depths(name, 3), name


def test_a_bounded_closed_form_is_the_same_cold_or_warm():
    """``max_nodes`` counts the definitions a closed form reads, not what happens to be built already."""
    cold, warm = differentiated(load_spec(SEED), lazy=True), differentiated(load_spec(SEED), lazy=True)
    for name in warm.nodes:
        warm.nodes[name]
    seen = set()
    for name in ("grad_W_Q[1,0]", "loss", "A[1,0]", "grad_logits[4]", "H0[1,0]"):
        out = []
        for g in (cold, warm):
            try:
                out.append(g.closed_form(name, max_nodes=12))
            except TooManyDefinitions as e:
                out.append(str(e))
        assert out[0] == out[1], name
        seen.add(isinstance(out[0], str))
    assert seen == {True, False}


def test_the_order_of_every_node_refuses():
    lazy = differentiated(load_spec(SEED), lazy=True)
    with pytest.raises(LimitError):
        lazy.order


def test_a_derivation_beyond_the_limits_answers_from_the_lazy_graph():
    small = Derivation(load_spec(SEED), limits=Limits(max_ops=1000))  # the graph needs about 1.4e3
    with pytest.raises(LimitError):
        small.graph
    d = Derivation(load_spec(SEED))
    assert isinstance(small.definitions, LazyGraph) and not isinstance(d.definitions, LazyGraph)
    for ref in ("A[1,0]", "grad_logits[你]", "grad_W_Q[1,0]", "R[0,0]", "loss", "grad_E_head[4,1]"):
        assert small.definition(ref) == d.definition(ref), ref
    for ref in ("A[1,0]", "grad_logits[你]", "R[0,0]", "grad_E_head[4,1]"):
        assert small.closed_form(ref) == d.closed_form(ref), ref
    q = small.show("grad_A[1,0]")
    lines = q.lines()
    assert lines[-1] == d.show("grad_A[1,0]").lines()[-1]  # the value
    assert any("Attn" in ln for ln in lines[:-1])  # the definition's line, from the lazy graph
    assert "Worked line from the definition" in q._repr_markdown_()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_random_models_node_by_node(seed, tmp_path):
    """Random sizes, heads, tying, W_O and losses: every node of the lazy graph is the full graph's."""
    heads = 1 + seed % 2
    text = oracle.random_spec_toml(seed=100 + seed, V=3 + seed % 3, d=2 * heads, heads=heads, d_ff=1 + seed % 3,
                                   layers=1 + seed % 2, T=1 + seed % 4, tied=seed % 3 != 1, W_O=seed % 4 == 3)
    if seed % 2:
        text += "\n[training]\nall_positions = true\n"
    spec = load_spec(write_spec(tmp_path, text))
    full, lazy = differentiated(spec), differentiated(spec, lazy=True)
    for name in reversed(full.order):  # adjoints first: nothing built before they are asked for
        a, b = full.nodes[name], lazy.nodes[name]
        assert (b.expr, b.inputs, b.value) == (a.expr, a.inputs, a.value), name
    assert set(lazy.nodes) == set(full.nodes)


@pytest.mark.slow
def test_nanogpt_definitions_and_an_adjoint_evaluated_on_the_tensor_values():
    d = Derivation(load_spec(NANOGPT))
    with pytest.raises(LimitError):
        d.graph
    assert isinstance(d.definitions, LazyGraph)
    for layer in range(4):
        p, t = f"l{layer}.", 63 if layer == 3 else 4  # the last block's rows before 63 are off the loss's path
        for ref in (f"{p}A[1,5,3]", f"{p}LN2[63,1]", f"{p}Z[2,7]", f"grad_{p}S[0,{t},1]", f"grad_{p}Q[63,0]",
                    f"grad_{p}W_V[3,4]", f"grad_{p}mu1[{t}]", f"grad_{p}Z[{t},7]", f"grad_{p}LN1[{t},3]"):
            e = d.definition(ref)
            assert isinstance(e, sympy.Expr) and e.free_symbols, ref
    assert d.definition("grad_l3.Q[5,0]") == 0 == d.ball("grad_l3.Q[5,0]", 64)  # off the loss's path
    assert d.closed_form("PE[3,2]") == sympy.sin(sympy.Rational(3, 10) * 10 ** sympy.Rational(7, 8))
    for ref in ("grad_l2.S[0,4,1]", "grad_l1.mu1[10]", "grad_l3.K[7,5]", "grad_h_final[3]", "grad_l0.LN2[9,2]",
                "grad_E[3,3]"):
        assert _close(_evaluated(d, ref), _mid(d.ball(ref, 256))), ref
    shown = d["grad_l2.S[0,4,1]"]._repr_markdown_()  # the definition's worked line, the value, bounded work
    assert r"e^{{{S}^{[3]}}_{0,4,1}}" in shown and d.value("grad_l2.S[0,4,1]", digits=12) in shown
    assert "Closed form: not built (too large written out" in shown     # refused on its estimated size


def _mid(b) -> sympy.Expr:
    """A ball's midpoint (an exact rational as it is), to 60 digits."""
    if isinstance(b, fmpq):
        return sympy.Rational(int(b.p), int(b.q))
    assert isinstance(b, arb) and b.rel_accuracy_bits() > 100
    return sympy.Float(b.mid().str(60, radius=False), 60)


def _close(a, b) -> bool:
    return abs(a - b) <= sympy.Float("1e-25") * max(abs(b), sympy.Float("1e-40"))


def _evaluated(d, ref) -> sympy.Expr:
    """The definition of ``ref`` with every input replaced by its tensor value, to 50 digits."""
    e = d.definition(ref)
    return e.xreplace({s: _mid(d.ball(s.name, 256)) for s in e.free_symbols}).evalf(50)
