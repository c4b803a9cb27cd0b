"""Hostile inputs to the engine: cost refusals, overflow, REPL arguments, exactness.

Each case asserts the typed exception and the one-line message naming the
key or argument (``hostile.raises_clear``); refusals whose point is speed are
timed (a generous bound, not a benchmark).  Values are checked against
independent ones: the mpmath oracle, the spec's own numbers, counts taken
from the built graph.
"""
from __future__ import annotations

import dataclasses
import re
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy
from mpmath import mp

import symgpt
from symgpt.core.errors import InputError, LimitError
from symgpt.core.numeric import UndecidableError, bounds
from symgpt.derivation import Derivation
from symgpt.engine import cost
from symgpt.engine.models import build, differentiated
from symgpt.engine.spec import load_spec
from symgpt.training import sampling, train

import hostile
import oracle
from conftest import loaded

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "derivations" / "tiny-transformer.toml"


@pytest.fixture(scope="module")
def seed():
    return load_spec(SEED)


@pytest.fixture(scope="module")
def bigram():
    return loaded("bigram")


@pytest.fixture(scope="module")
def tiny():
    return loaded("tiny-transformer")


def _with(spec, **sizes):
    """The seed's Spec with one size blown up (a file would exceed the 1 MiB cap)."""
    if "T" in sizes:
        return dataclasses.replace(spec, input=(2,) * sizes["T"])
    if "V" in sizes:
        return dataclasses.replace(spec, vocab=tuple(f"t{v}" for v in range(sizes["V"])))
    if "steps" in sizes:
        return dataclasses.replace(spec, training=dataclasses.replace(spec.training, steps=sizes["steps"]))
    if "cont" in sizes:
        return dataclasses.replace(spec, sampling=dataclasses.replace(spec.sampling, n_continue=sizes["cont"]))
    return dataclasses.replace(spec, **sizes)


# -- 1. cost up front ---------------------------------------------------------------
BOMBS = [  # (sizes, the key the message names, when the work is asked for)
    ({"d": 100_000}, "model.d = 100000", "load"),
    ({"T": 10_000}, "T = 10000 (data.input)", "load"),
    ({"V": 10 ** 6}, "V² = 1000000²", "document"),
    ({"layers": 1000}, "model.layers = 1000", "document"),
    ({"steps": 100_000}, "training.steps + 1 = 100001", "trace"),
    ({"cont": 10 ** 6}, "sampling.continue = 1000000", "document"),
]
ASKED = {
    "load": lambda spec: Derivation(spec),                      # values on tensors: checked at load
    "document": lambda spec: cost.check(spec),                  # a render checks every part up front
    "trace": lambda spec: Derivation(spec).trace("sgd"),        # a trace: checked when it is asked for
}


@pytest.mark.parametrize("sizes,key,when", BOMBS, ids=[next(iter(s)) for s, _, _ in BOMBS])
def test_resource_bomb_is_refused_fast_with_the_estimate(seed, sizes, key, when):
    spec = _with(seed, **sizes)
    t = time.process_time()        # this process's CPU time: a busy machine does not stretch it as it does a wall
    msg = hostile.raises_clear(LimitError, lambda: ASKED[when](spec), str(SEED), key, "scalar operations",
                               "--max-ops", "Limits(max_ops=")
    assert time.process_time() - t < 1.0
    assert "above the limit" in msg


def test_a_model_too_big_for_closed_forms_still_gives_values(tmp_path):
    """Values need no per-scalar graph: under a limit the graph exceeds, the loss and a gradient
    come out (and agree with the mpmath oracle); a node's definition is built alone (the lazy graph),
    while a closed form too big to read is refused with one clear error."""
    spec = load_spec(_shape_spec(tmp_path, "d = 4\nheads = 2"))
    graph_ops = next(p for p in cost.estimate(spec).parts if p[0] == "graph")[2]
    d = Derivation(spec, limits=symgpt.Limits(max_ops=graph_ops - 1))
    with mpmath.workdps(40):
        want = oracle.transformer_forward(oracle.load_spec(spec.path), dps=40)["loss"]
        assert abs(mpmath.mpf(d.value("loss", digits=30)) - want) < mpmath.mpf(10) ** -28
    assert d.value("grad_W_Q[0,0]", digits=5)
    # −z[t] + ln Σ_v exp(z[v]), over the logits' symbols (V = 6, target 4): read off by hand; the REPL
    # writes a vocabulary index as its token (logits[t4], as a ref does)
    z = [sympy.Symbol(f"logits[{tok}]", real=True) for tok in spec.vocab]
    assert len(z) == 6
    assert d.definition("loss") == -z[spec.target] + sympy.log(sympy.Add(*[sympy.exp(x) for x in z]))
    hostile.raises_clear(ValueError, lambda: d.closed_form("loss", max_ops=50), "operations")
    # names, the one-line repr and a notebook display need no whole graph: value and definition
    assert ("loss", (), "cross-entropy −ln p[target]") in d.names() and "quantities>" in repr(d)
    shown = d["loss"]._repr_markdown_()
    assert d.value("loss", digits=12) in shown and "from the definition" in shown
    assert f"= {d.value('loss', decimals=3)}" in shown  # the worked line ends at the loss


def test_a_raised_limit_lets_the_spec_through(seed):
    spec = _with(seed, layers=3)   # no weights for layers 1, 2: refused only by cost, or accepted
    est = cost.estimate(spec).ops
    hostile.raises_clear(LimitError, lambda: cost.check(spec, symgpt.Limits(max_ops=est - 1)), "--max-ops")
    assert cost.check(spec, symgpt.Limits(max_ops=est)).ops == est


def _graph_counts(g):
    """Nodes and operations counted independently from a built graph (SymPy's count_ops)."""
    return len(g.order), sum(sympy.count_ops(n.expr) for n in g.nodes.values() if n.expr is not None)


SHAPES = [
    "",
    "d = 4\nd_ff = 6",
    "d = 4\nheads = 2",
    "T = 5",
    "V = 12",
]


def _shape_spec(tmp_path, shape) -> Path:
    text = oracle.random_spec_toml(seed=3, V=6, d=2, heads=1, d_ff=4, layers=1, T=2)
    sizes = dict(line.split(" = ") for line in shape.splitlines())
    kw = dict(V=6, d=2, heads=1, d_ff=4, layers=1, T=2)
    kw.update({k: int(v) for k, v in sizes.items()})
    text = oracle.random_spec_toml(seed=3, **kw)
    p = tmp_path / "shape.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("shape", SHAPES, ids=["seed-like", "wide", "heads", "long", "vocab"])
def test_estimate_bounds_the_built_graph(tmp_path, shape):
    """Within a stated factor: nodes 0.9–1.2 ×, operations 1–4 × the built graph's."""
    spec = load_spec(_shape_spec(tmp_path, shape))
    nodes, ops = _graph_counts(differentiated(spec))
    graph = next(p for p in cost.estimate(spec).parts if p[0] == "graph")
    assert 0.9 <= graph[1] / nodes <= 1.2, (graph[1], nodes)
    assert 1.0 <= graph[2] / ops <= 4.0, (graph[2], ops)
    fwd_nodes, fwd_ops = _graph_counts(build(spec))
    est = cost.forward(T=spec.T, **cost._sizes(spec))
    assert 0.9 <= est.nodes / fwd_nodes <= 1.2 and 1.0 <= est.ops / fwd_ops <= 2.0


# -- 2. overflow --------------------------------------------------------------------
def _spec_file(tmp_path, old, new, name="x.toml") -> Path:
    text = SEED.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new), encoding="utf-8")
    return p


@pytest.mark.parametrize("lr", ["1000", "1e400"])
def test_huge_learning_rate_is_certified_not_arithmetic_error(tmp_path, lr):
    d = symgpt.load(_spec_file(tmp_path, "lr = 0.1", f"lr = {lr}"))
    t = time.perf_counter()
    five, ten = d.value("sgd[1].loss", digits=5), d.value("sgd[1].loss", digits=10)
    assert time.perf_counter() - t < 5
    # the 10-digit figure rounds to the 5-digit one (both certified from the same exact value)
    assert f"{Decimal(ten):.4e}" == f"{Decimal(five):.4e}"


@pytest.mark.parametrize("lr,digits", [('"1e100/1e-5"', 100), ('"1e500/1e-10"', 500)])
def test_growth_past_max_digits_is_refused_naming_the_key(tmp_path, lr, digits):
    """Each number of lr is within the digit limit (the spec reader's check), its value 10^5 above it:
    the first SGD step moves E past 10^max_digits and the trace refuses, naming training.lr."""
    d = symgpt.load(_spec_file(tmp_path, "lr = 0.1", f"lr = {lr}"), limits=symgpt.Limits(max_digits=digits))
    hostile.raises_clear(LimitError, lambda: d.value("sgd[1].loss", digits=5), "training.lr", f"10^{digits}",
                         "--max-digits", "x.toml")


# -- 4. REPL arguments --------------------------------------------------------------
REPL = [
    ("digits=0", lambda d: d.value("loss", digits=0), InputError, ["digits", "≥ 1", "0"]),
    ("digits=-3", lambda d: d.value("loss", digits=-3), InputError, ["digits", "-3"]),
    ("digits=1.5", lambda d: d.value("loss", digits=1.5), InputError, ["digits", "1.5"]),
    ("decimals=-3", lambda d: d.value("loss", decimals=-3), InputError, ["decimals", "≥ 0"]),
    ("dps=-5", lambda d: d.mpf("loss", dps=-5), InputError, ["dps", "-5"]),
    ("value(0.5)", lambda d: d.value(0.5), InputError, ["ref", "0.5", "string"]),
    ("ball(None)", lambda d: d.ball(None, 64), InputError, ["ref", "None"]),
    ("digits=10**6", lambda d: d.value("loss", digits=10 ** 6), LimitError, ["digits", "1000000", "--max-digits",
                                                                             "Limits(max_digits="]),
    ("decimals=10**6", lambda d: d.value("loss", decimals=10 ** 6), LimitError, ["decimals", "--max-digits"]),
    ("dps=10**6", lambda d: d.mpf("loss", dps=10 ** 6), LimitError, ["dps", "--max-digits"]),
    ("prec=-1", lambda d: d.ball("loss", -1), InputError, ["prec", "-1"]),
    ("prec=10**9", lambda d: d.ball("loss", 10 ** 9), LimitError, ["prec", "--max-digits"]),
    ("both", lambda d: d.value("loss", digits=3, decimals=3), InputError, ["digits", "decimals"]),
    ("trace('sdg')", lambda d: d.trace("sdg"), InputError, ["optimizer", "'sdg'", "sgd, adamw"]),
    ("trace(None)", lambda d: d.trace(None), InputError, ["optimizer", "None"]),
    ("unknown ref", lambda d: d.value("nope"), InputError, ["'nope'", "symgpt list", "d.names()"]),
    ("index", lambda d: d.value("W[9,9]"), InputError, ["W[9,9]", "'9'", "0..1"]),
    ("step range", lambda d: d.value("sgd[99].loss"), InputError, ["sgd[99].loss", "0..20"]),
    ("trace digits", lambda d: d.trace("sgd").value(1, "loss", digits=0), InputError, ["digits"]),
    ("trace step", lambda d: d.trace("sgd").ball(-1, "loss", 64), InputError, ["sgd[-1]", "0..20"]),
    ("Trace steps", lambda d: train.Trace(d, "sgd", steps=-1), InputError, ["steps", "-1"]),
    ("Trace optimizer", lambda d: train.Trace(d, "adam"), InputError, ["optimizer", "'adam'"]),
    ("gradcheck float", lambda d: train.gradcheck(d, "W[0,2]", 0.1), InputError, ["h", "float 0.1", '"0.1"']),
    ("gradcheck h=0", lambda d: train.gradcheck(d, "W[0,2]", 0), InputError, ["h", "> 0"]),
    ("gradcheck text", lambda d: train.gradcheck(d, "W[0,2]", "tiny"), InputError, ["h", "tiny"]),
    ("gradcheck node", lambda d: train.gradcheck(d, "loss", "1e-5"), InputError, ["loss", "parameter"]),
    ("gradcheck ref", lambda d: train.gradcheck(d, 3, "1e-5"), InputError, ["ref", "3"]),
    ("gradcheck prec", lambda d: train.gradcheck(d, "W[0,2]", "1e-5", prec=0), InputError, ["prec", "0"]),
    ("gradcheck_table", lambda d: train.gradcheck_table(d, "W[0,2]", exponents=[0.5]), InputError,
     ["exponents", "0.5"]),
    ("top_k=0", lambda d: sampling.top_k(d, 0), InputError, ["k", "1..3", "0"]),
    ("top_k=99", lambda d: sampling.top_k(d, 99), InputError, ["k", "99"]),
    ("top_p float", lambda d: sampling.top_p(d, 0.5), InputError, ["P", "float"]),
    ("top_p > 1", lambda d: sampling.top_p(d, "1.5"), InputError, ["P", "≤ 1"]),
    ("draw u=1", lambda d: sampling.draw(d, 1), InputError, ["u", "[0, 1)"]),
    ("temperature < 0", lambda d: sampling.temperature(d, "-1"), InputError, ["T", "> 0"]),
    ("continue -1", lambda d: sampling.continue_greedy(d, -1), InputError, ["n", "-1"]),
    ("continue 10**6", lambda d: sampling.continue_greedy(d, 10 ** 6), LimitError,
     ["sampling.continue = 1000000", "--max-ops"]),
]


@pytest.mark.parametrize("call,exc,needles", [(c, e, n) for _, c, e, n in REPL], ids=[i for i, *_ in REPL])
def test_repl_argument_gets_one_typed_error(bigram, call, exc, needles):
    t = time.perf_counter()
    hostile.raises_clear(exc, lambda: call(bigram), *needles)
    assert time.perf_counter() - t < 2.0
    assert issubclass(exc, ValueError)


def test_gradcheck_takes_exact_steps_of_every_kind(bigram):
    """"1e-5", Fraction and sympy.Rational are the same exact h: the same certified ball."""
    a = train.gradcheck(bigram, "W[0,2]", "1e-5")
    b = train.gradcheck(bigram, "W[0,2]", Fraction(1, 10 ** 5))
    c = train.gradcheck(bigram, "W[0,2]", sympy.Rational(1, 10 ** 5))
    assert a.h == b.h == c.h == sympy.Rational(1, 10 ** 5)
    assert a.numeric.overlaps(b.numeric) and b.numeric.overlaps(c.numeric)


def test_max_digits_allowed_is_certified(tiny):
    """Anything the limit allows can be certified: 1000 digits of the loss agree with mpmath's."""
    got = tiny.value("loss", digits=1000)
    ref = oracle.transformer_forward(oracle.load_spec(SEED), dps=1030)["loss"]
    with mp.workdps(1030):
        assert got == mp.nstr(ref, 1000, strip_zeros=False, min_fixed=-10, max_fixed=10)


# -- 3. exact decisions in trained states ------------------------------------------------
@pytest.fixture(scope="module")
def eps0(tmp_path_factory):
    return _spec_file(tmp_path_factory.mktemp("eps0"), "ln_eps = 1e-5", "ln_eps = 0", "eps0.toml")


def test_ln_eps_zero_seed_renders(eps0):
    from symgpt.render import render_all
    out = render_all([eps0], formats=("md",), langs=("en",))
    assert any(str(k).endswith("eps0.en.md") for k in out)


def test_ln_eps_zero_values_match_the_oracle(eps0):
    d = symgpt.load(eps0)
    ref = oracle.transformer_forward(oracle.load_spec(eps0), dps=60)
    with mp.workdps(60):
        assert d.value("loss", digits=30) == mp.nstr(ref["loss"], 30, strip_zeros=False)
        for v in range(6):
            assert d.value(f"p[{v}]", digits=20) == mp.nstr(ref["p"][v], 20, strip_zeros=False)


def test_ln_eps_zero_first_sgd_step_by_hand(eps0):
    """With d = 2 and ε = 0 every LayerNorm output is exactly ±1, so only E's head
    path has a gradient: E[v] ← E[v] − η (p_v − y_v) h_final, the rest stays.
    sgd[1].loss is the oracle's forward pass with that E; W_1 keeps the spec's 0.3."""
    d = symgpt.load(eps0)
    raw = oracle.load_spec(eps0)
    with mp.workdps(80):
        f0 = oracle.transformer_forward(raw, dps=80)
        lr, target = mp.mpf(1) / 10, raw["model"]["vocab"].index("你")
        E = oracle.mat(raw["weights"]["E"])
        E1 = [[E[v][j] - lr * (f0["p"][v] - (v == target)) * f0["h_final"][j] for j in range(2)]
              for v in range(6)]
        raw1 = dict(raw, weights=dict(raw["weights"], E=E1))
        loss1 = oracle.transformer_forward(raw1, dps=80)["loss"]
        assert d.value("sgd[1].loss", digits=25) == mp.nstr(loss1, 25, strip_zeros=False)
        assert d.value("sgd[1].E[4,0]", digits=25) == mp.nstr(E1[4][0], 25, strip_zeros=False)
    lo, hi = bounds(d.ball("sgd[1].W_1[0,0]", 64))
    assert lo <= Fraction(3, 10) <= hi
    assert d.value("sgd[1].W_1[0,0]", digits=30) == "0." + "3" + "0" * 29


def test_undecidable_sign_names_the_quantity():
    """A sign no enclosure settles and SymPy cannot decide: one line naming it."""
    from flint import arb

    from symgpt.core.numeric import certify, sign_of
    msg = hostile.raises_clear(UndecidableError,
                               lambda: certify(lambda p: arb("0 +/- 1e-30"), sign_of, what="the sign of Z[0,0]",
                                               start=64, stop=256), "Z[0,0]")
    assert "bits" in msg


def _lr_spec(tmp_path, lr):
    seed = (ROOT / "derivations" / "tiny-transformer.toml").read_text(encoding="utf-8")
    spec = tmp_path / f"lr{lr}.toml"
    spec.write_text(re.sub(r"(?m)^lr = .*$", f"lr = {lr}", seed, count=1), encoding="utf-8")
    return spec


def test_a_huge_lr_renders(tmp_path):
    """lr = 1000 prints true equations (wider guard digits)."""
    spec, out = _lr_spec(tmp_path, "1000"), tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md", "--lang", "en", "--out", str(out))
    assert o.code == 0, o.err
    assert (out / "lr1000.en.md").exists()


@pytest.mark.slow
def test_an_absurd_lr_names_the_worked_line_and_lr(tmp_path):
    """lr = 1e400 is refused in one line naming the worked line and the key (after some 4 s of work)."""
    spec, out = _lr_spec(tmp_path, "1e400"), tmp_path / "out"
    o = hostile.render(str(spec), "--format", "md", "--lang", "en", "--out", str(out))
    hostile.assert_refused(o, str(spec), "E^{\\mathrm{new}}", "training.lr")
    assert not out.exists()
