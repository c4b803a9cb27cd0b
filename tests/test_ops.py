"""Every op of symgpt.ops.OPS: its facets agree with one another on random exact inputs.

For each op one application is built on random rationals: the per-scalar facet (``define``, SymPy), expanded to
a closed form in the inputs, is the reference; the tensor facet (``forward``, ``backward`` on fmpq/arb) must give
the same values, and the adjoints SymPy's ``diff`` gives of Σ G∘out for a random rational G (the rules each op
states are proven equal to that ``diff`` on generic symbols, and the tensor facet applies them); each op's rules
must prove themselves; and its cost must count its definitions.  A new op without a case here fails the table
test, so every op is checked.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, ctx, fmpq

from symgpt.core.graph import Graph
from symgpt.core.grid import param
from symgpt.core.tensor import parse_node
from symgpt.ops import OPS, Apply
from symgpt.ops.base import size

DPS = 60
PREC = 256   # bits of the tensor facet's balls
TOL = mpmath.mpf("1e-40")


def rationals(rng, shape, lo=-2, hi=2, den=5, nonzero=False):
    """A nested list of random rationals of ``shape`` (Fractions)."""
    if not shape:
        while True:
            x = Fraction(rng.randint(lo * den, hi * den), rng.randint(1, den))
            if x or not nonzero:
                return x
    return [rationals(rng, shape[1:], lo, hi, den, nonzero) for _ in range(shape[0])]


def _flat(x, prefix=()):
    if isinstance(x, list):
        for i, y in enumerate(x):
            yield from _flat(y, prefix + (i,))
    else:
        yield prefix, x


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _to_flint(x):
    return [_to_flint(y) for y in x] if isinstance(x, list) else _fq(x)


def _mp(x):
    """An mpf of an fmpq or of the midpoint of a tight arb ball."""
    if isinstance(x, fmpq):
        return mpmath.mpf(int(x.p)) / int(x.q)
    assert x.rad() < arb("1e-45") * max(1, abs(x.mid())), f"ball too wide: {x}"
    return mpmath.mpf(x.mid().str(70, radius=False))


def _close(got, want) -> bool:
    return abs(_mp(got) - want) <= TOL * max(1, abs(want))


# ---------------------------------------------------------------- one application of each op

def case(kind: str, rng):
    """(Apply, {input group: values}, [output groups seeded with an adjoint]) for the op ``kind``."""
    if kind == "embedding":
        tokens = (2, 0, 2)
        return Apply(kind, "X", ("E",), (3, 3), opts=(("tokens", tokens),)), {"E": rationals(rng, (4, 3))}, ["X"]
    if kind == "learned_positions":   # a table of 4 rows, the first 3 positions read
        return (Apply(kind, "PE", ("W_pe",), (3, 2), opts=(("tokens", (0, 1, 2)),)), {"W_pe": rationals(rng, (4, 2))},
                ["PE"])
    if kind == "positions":
        return Apply(kind, "PE", (), (3, 4), opts=(("base", sympy.Integer(10000)),)), {}, ["PE"]
    if kind == "residual":
        return Apply(kind, "H", ("A", "B"), (2, 3)), {"A": rationals(rng, (2, 3)), "B": rationals(rng, (2, 3))}, ["H"]
    if kind == "attention":
        # two heads of one column each over three positions, with W_O: small enough for SymPy's closed forms
        # with every projection's bias (the seeds test attention without them throughout)
        ins = {"H": rationals(rng, (3, 2))} | {w: rationals(rng, (2, 2), -1, 1) for w in ("W_Q", "W_K", "W_V", "W_O")}
        ins |= {b: rationals(rng, (2,), -1, 1) for b in ("b_Q", "b_K", "b_V", "b_O")}
        params = tuple((w, w) for w in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O"))
        return Apply(kind, "Attn", ("H",), (3, 2), params, opts=(("heads", 2),)), ins, ["Attn"]
    if kind == "layernorm":
        ins = {"H": rationals(rng, (3, 4)), "gamma": rationals(rng, (4,)), "beta": rationals(rng, (4,))}
        return (Apply(kind, "LN1", ("H",), (3, 4), (("gamma", "gamma"), ("beta", "beta")),
                      opts=(("n", 1), ("eps", sympy.Rational(1, 100000)))), ins, ["LN1"])
    if kind == "rmsnorm":
        ins = {"H": rationals(rng, (3, 4)), "gamma": rationals(rng, (4,))}
        return (Apply(kind, "LN1", ("H",), (3, 4), (("gamma", "gamma"),),
                      opts=(("n", 1), ("eps", sympy.Rational(1, 100000)))), ins, ["LN1"])
    if kind == "linear":
        ins = {"X": rationals(rng, (3, 2)), "W": rationals(rng, (2, 4)), "b": rationals(rng, (4,))}
        return Apply(kind, "Y", ("X",), (3, 4), (("W", "W"), ("b", "b"))), ins, ["Y"]
    if kind == "relu":
        return Apply(kind, "R", ("Z",), (2, 4)), {"Z": rationals(rng, (2, 4), nonzero=True)}, ["R"]
    if kind in ("gelu", "gelu_tanh", "silu"):   # smooth: an exact 0 among the inputs, the rest generic
        Z = rationals(rng, (2, 3))
        Z[1][2] = Fraction(0)
        return Apply(kind, "R", ("Z",), (2, 3)), {"Z": Z}, ["R"]
    if kind == "swiglu":   # the gate with an exact 0 (SiLU(0) = 0, SiLU'(0) = 1/2), the up projection generic
        Z = rationals(rng, (2, 3))
        Z[0][1] = Fraction(0)
        return Apply(kind, "R", ("Z", "U"), (2, 3)), {"Z": Z, "U": rationals(rng, (2, 3))}, ["R"]
    if kind == "head":
        ins = {"H": rationals(rng, (3, 2)), "E": rationals(rng, (4, 2))}
        a = Apply(kind, "logits", ("H",), (4,), (("W", "E"),),
                  opts=(("tied", True), ("d", 2), ("rows", (("logits_at0", 0),))))
        return a, ins, ["logits", "logits_at0"]
    if kind == "softmax_xent":
        ins = {"z0": rationals(rng, (4,)), "z": rationals(rng, (4,))}
        return Apply(kind, "loss", ("z0", "z"), (), opts=(("rows", (("z0", 1), ("z", 3))), ("V", 4))), ins, ["loss"]
    raise KeyError(kind)


def rope_case(rng):
    """Attention with rotary positions: one head of d_k = 2 over three positions (the angles 0, 1, 2), with
    W_O and every bias (a key bias, which RoPE does not leave shift-invariant)."""
    ins = {"H": rationals(rng, (3, 2))} | {w: rationals(rng, (2, 2), -1, 1) for w in ("W_Q", "W_K", "W_V", "W_O")}
    ins |= {b: rationals(rng, (2,), -1, 1) for b in ("b_Q", "b_K", "b_V", "b_O")}
    params = tuple((w, w) for w in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O"))
    return Apply("attention", "Attn", ("H",), (3, 2), params, opts=(("heads", 1), ("rope", sympy.Integer(10000)))), \
        ins, ["Attn"]


VECTOR_CASES = {  # the bigram's forms of two ops: a vector in, a vector out
    "embedding": lambda rng: (Apply("embedding", "x", ("E",), (3,), opts=(("tokens", (1, 2)),)),
                              {"E": rationals(rng, (4, 3))}, ["x"]),
    "linear": lambda rng: (Apply("linear", "z", ("x",), (3,), (("W", "W"),)),
                           {"x": rationals(rng, (2,)), "W": rationals(rng, (2, 3))}, ["z"]),
}


def test_every_op_has_a_case():
    rng = random.Random(0)
    for kind in OPS:
        a, _, _ = case(kind, rng)
        assert a.op == kind and OPS[kind].KIND == kind


# ---------------------------------------------------------------- a bench for the tensor facet

class Bench:
    """What an op's tensor facet asks of :class:`symgpt.engine.net.Net`: groups, adjoint names, stages."""

    class _Group:
        def __init__(self, shape):
            self.shape = tuple(shape)

    def __init__(self, shapes: dict):
        self.groups = {n: self._Group(s) for n, s in shapes.items()}
        self.stages = []

    def group(self, name, shape, meaning, axes):
        self.groups[name] = self._Group(shape)

    def grad_group(self, name):
        self.groups.setdefault("grad_" + name, self._Group(self.groups[name].shape))
        return "grad_" + name

    def stage(self, outputs, run):
        self.stages.append(run)


class Signs:
    """The evaluator side the stages call: exact signs of rational steering inputs."""

    def steering_sign(self, name, z):
        assert isinstance(z, fmpq), f"{name}: a steering input of exact inputs is exact"
        return (z > 0) - (z < 0)

    def expr_decision(self, expr):
        raise AssertionError("no locally constant norm in these cases")


def _shape(x):
    return (len(x),) + _shape(x[0]) if isinstance(x, list) else ()


# ---------------------------------------------------------------- the per-scalar facet as closed forms

def _closed(g, sym, leaves, memo):
    """The definition of a node with every non-leaf node substituted: an expression in the leaves' symbols."""
    if sym in leaves:
        return sym
    if sym in memo:
        return memo[sym]
    name = g.by_sym[sym]
    expr = g.nodes[name].expr
    out = expr.xreplace({s: _closed(g, s, leaves, memo) for s in expr.free_symbols})
    memo[sym] = out
    return out


def _facets(kind, a, ins, seeds, rng):
    g, T = Graph(), {}
    for name, values in ins.items():
        T[name] = param(g, name, [[sympy.Rational(x) for x in r] for r in values] if isinstance(values[0], list)
                        else [sympy.Rational(x) for x in values], name, ())
    OPS[kind].define(g, a, T)
    leaves = {g.nodes[n].sym for n in g.order if g.nodes[n].expr is None}
    at = {g.nodes[n].sym: g.nodes[n].value for n in g.order if g.nodes[n].expr is None}
    bench = Bench({n: _shape(v) for n, v in ins.items()})
    OPS[kind].groups(a, bench)
    OPS[kind].forward(a, bench)
    v = {n: _to_flint(x) for n, x in ins.items()}
    with ctx.workprec(PREC):
        for run in bench.stages:
            run(v, Signs())
    return g, leaves, at, bench, v


EXTRA = [f"{k} (vector)" for k in VECTOR_CASES] + ["attention (rope)", "attention (gqa)"]


def gqa_case(rng):
    """Grouped-query attention: two query heads of d_k = 1 sharing one K, V head, over three positions."""
    ins = {"H": rationals(rng, (3, 2)), "W_Q": rationals(rng, (2, 2), -1, 1), "W_K": rationals(rng, (2, 1), -1, 1),
           "W_V": rationals(rng, (2, 1), -1, 1), "W_O": rationals(rng, (2, 2), -1, 1)}
    params = tuple((w, w) for w in ("W_Q", "W_K", "W_V", "W_O"))
    return Apply("attention", "Attn", ("H",), (3, 2), params, opts=(("heads", 2), ("kv_heads", 1))), ins, ["Attn"]


def any_case(kind, rng):
    base = kind.split(" ")[0]
    if "(rope)" in kind:
        return rope_case(rng)
    if "(gqa)" in kind:
        return gqa_case(rng)
    return VECTOR_CASES[base](rng) if "(vector)" in kind else case(kind, rng)


@pytest.mark.parametrize("kind", list(OPS) + EXTRA)
def test_the_tensor_facet_is_the_per_scalar_facet_and_its_derivative(kind):
    rng = random.Random(sum(map(ord, kind)))   # the same inputs in every run
    base = kind.split(" ")[0]
    a, ins, seeds = any_case(kind, rng)
    g, leaves, at, bench, v = _facets(base, a, ins, seeds, rng)
    memo = {}
    with mpmath.workdps(DPS):
        # forward: every group the op defines, entry by entry
        defined = [n for n in g.order if g.nodes[n].expr is not None]
        assert defined, kind
        for name in defined:
            group, idx = parse_node(name)
            got = v[group]
            for i in idx:
                got = got[i]
            want = sympy.N(_closed(g, g.nodes[name].sym, leaves, memo).xreplace(at), DPS)
            assert _close(got, mpmath.mpf(str(want))), f"{kind}: {name} = {got}, the per-scalar facet gives {want}"
        # backward: L = Σ G∘out over the seeded outputs; the op's adjoints of its inputs are ∂L/∂input
        L, start = sympy.S.Zero, len(bench.stages)
        for out in seeds:
            if out == "loss":
                L += _closed(g, g.nodes["loss"].sym, leaves, memo)   # the loss seeds itself with 1
                continue
            G = rationals(rng, bench.groups[out].shape)
            v["grad_" + out] = _to_flint(G)
            for idx, gx in _flat(G):
                name = f"{out}[{','.join(map(str, idx))}]" if idx else out
                L += sympy.Rational(gx) * _closed(g, g.nodes[name].sym, leaves, memo)
        OPS[base].backward(a, bench)
        with ctx.workprec(PREC):
            for run in bench.stages[start:]:
                run(v, Signs())
        checked = 0
        for name in ins:
            grad = v.get("grad_" + name)
            if grad is None:
                continue
            for idx, got in _flat(grad):
                sym = g.nodes[f"{name}[{','.join(map(str, idx))}]"].sym
                want = sympy.N(sympy.diff(L, sym).xreplace(at), DPS)
                assert _close(got, mpmath.mpf(str(want))), f"{kind}: grad_{name}{list(idx)} = {got}, diff gives {want}"
                checked += 1
        assert checked == sum(size(_shape(x)) for x in ins.values()), f"{kind}: every input entry has an adjoint"


@pytest.mark.parametrize("kind", list(OPS))
def test_every_rule_proves_itself_and_the_cost_counts_the_definitions(kind):
    """Each rule is derived by SymPy's diff and proven equal to the stated line when it is built (a wrong line
    raises: tests/test_rules.py); the cost counts exactly the scalar definitions the op makes."""
    for r in OPS[kind].rules():
        assert r.checked and r.derived and r.name
    rng = random.Random(1)
    a, ins, _ = case(kind, rng)
    g, *_ = _facets(kind, a, ins, [], rng)
    shapes = {n: _shape(x) for n, x in ins.items()}
    nodes, ops = OPS[kind].cost(a, shapes)
    defined = sum(1 for n in g.order if g.nodes[n].expr is not None)
    assert nodes == defined and ops >= 0, (kind, nodes, defined)


# ---------------------------------------------------------------- the float facet

FLOAT32_ISLANDS = {"rmsnorm", "attention (rope)"}
"""What Hugging Face computes in float32 even in a float64 model (its LlamaRMSNorm, its rotary tables), and so do
the float models."""


def _float_bench(a):
    """A pipeline (symgpt.floats.model.Pipeline) holding one application: what its float facet asks of it."""
    from collections import Counter

    from symgpt.floats.model import Pipeline, Stage
    pipe = Pipeline.__new__(Pipeline)
    pipe.stages, pipe.decisions, pipe.saved, pipe.plan = [], {}, "format", [a]
    pipe._readers = Counter(list(dict.fromkeys(a.ins + tuple(p for _, p in a.params))))
    pipe._grad, pipe._shares = {}, {}
    for x in a.ins:   # each input as the stage an earlier op would have made (a stage may be placed beside it)
        pipe.stages.append(Stage(x, (x,), lambda ar, v: v))
    return pipe


@pytest.mark.parametrize("kind", list(OPS) + EXTRA)
def test_the_float_facet_in_exact_arithmetic_is_the_per_scalar_facet_and_its_derivative(kind):
    """The op's IEEE model (written once over an arithmetic) run in the exact twin gives the per-scalar facet's
    values and SymPy's adjoints of Σ G∘out to 40 digits; run in float64 it is within float64's error of them."""
    from symgpt.floats.model import Exact, Floats, run
    rng = random.Random(sum(map(ord, kind)) + 1)
    base = kind.split(" ")[0]
    a, ins, seeds = any_case(kind, rng)
    g, leaves, at, bench, _ = _facets(base, a, ins, seeds, rng)
    pipe = _float_bench(a)
    OPS[base].floats_forward(a, pipe)
    params = {n: x for n, x in ins.items()}
    L, memo = sympy.S.Zero, {}
    for out in seeds:
        if out == "loss":
            L += _closed(g, g.nodes["loss"].sym, leaves, memo)
            continue
        G = rationals(rng, bench.groups[out].shape)
        pipe._grad[out] = "seed_" + out
        params["seed_" + out] = G
        for idx, gx in _flat(G):
            name = f"{out}[{','.join(map(str, idx))}]" if idx else out
            L += sympy.Rational(gx) * _closed(g, g.nodes[name].sym, leaves, memo)
    OPS[base].floats_backward(a, pipe)
    adjoints = {x: pipe.grad(x) for x in ins if x in pipe._grad or x in pipe._shares}
    ctx = mpmath.mp.clone()
    ctx.dps = DPS
    exact, f64 = run(pipe, Exact(ctx), params), run(pipe, Floats("float64"), params)
    tol = 1e-6 if kind in FLOAT32_ISLANDS else 1e-12
    with mpmath.workdps(DPS):
        defined = [n for n in g.order if g.nodes[n].expr is not None]
        checked = 0
        for name in defined:
            group, idx = parse_node(name)
            if group not in exact:
                continue
            want = mpmath.mpf(str(sympy.N(_closed(g, g.nodes[name].sym, leaves, memo).xreplace(at), DPS)))
            got, fl = np.asarray(exact[group], dtype=object)[idx], np.asarray(f64[group])[idx]
            assert abs(mpmath.mpf(got) - want) <= TOL * max(1, abs(want)), f"{kind}: {name} = {got}, want {want}"
            assert abs(float(fl) - float(want)) <= tol * max(1, abs(float(want))), f"{kind}: float64 {name}"
            checked += 1
        assert checked >= size(a.shape), f"{kind}: the float facet computes the op's output"
        for x, stage in adjoints.items():
            for idx, got in _flat(exact[stage].tolist()):
                sym = g.nodes[f"{x}[{','.join(map(str, idx))}]"].sym
                want = mpmath.mpf(str(sympy.N(sympy.diff(L, sym).xreplace(at), DPS)))
                assert abs(mpmath.mpf(got) - want) <= TOL * max(1, abs(want)), f"{kind}: ∂/∂{x}{list(idx)}"
        assert set(adjoints) == {x for x in ins}, f"{kind}: every input gets its adjoint"
