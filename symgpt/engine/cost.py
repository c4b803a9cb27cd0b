"""The cost of a spec, estimated from its sizes before any work is done.

A derivation computes the model's values and gradients on tensors
(:mod:`symgpt.engine.net`), builds the per-scalar SymPy graph when a closed form or
a document needs it, replays the tensors for every state of the SGD and
AdamW traces, rebuilds the forward graph for each greedily continued token
and writes one softmax per sampling temperature.  :func:`estimate` counts
the scalar operations of all of these from V, d, heads, d_ff, layers, T, the
training examples, ``training.steps``, ``sampling.continue`` and the number
of temperatures (work on tensors counts ÷ :data:`TENSOR`).  Each part is
checked against ``limits.max_ops`` when its work is asked for (a load checks
``values``, the first closed form ``graph``, a trace ``training trace``;
:func:`check_part`), and a render checks them all up front (:func:`check`);
a refusal names the estimate and the keys that drive it.  Nothing here
builds anything, so a refusal is instant.

>>> from symgpt.engine.spec import load_spec
>>> c = estimate(load_spec("derivations/tiny-transformer.toml"))
>>> 300 < c.nodes < 2000, 2_000 < c.ops < 200_000
(True, True)
>>> check(load_spec("derivations/bigram.toml"), Limits(max_ops=10))  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
symgpt.core.errors.LimitError: derivations/bigram.toml: the spec needs about 5.4e2 scalar operations
    (continuation 1.8e2: sampling.continue = 2 forward passes of growing T; ...),
    above the limit 10 (--max-ops; symgpt.Limits(max_ops=…) in Python)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..core.errors import LimitError
from ..core.limits import Limits
from ..core.numeric import prec_for_digits
from ..ops import OPS
from ..ops.base import size
from .arch import Arch

BACKWARD = 2
"""Reverse-mode operations per forward operation (each input of a definition
gives one term grad_c·∂def/∂x of a few operations), plus one node per node."""

WORD_BITS = 512
"""Up to this precision an arb operation costs about the same (Python's own
overhead dominates); above it an operation counts as (bits/512)^1.5."""

SYMBOLIC = 2
"""A continued token's forward graph, and each temperature's softmax, is built
in SymPy and then evaluated: each of its operations counts twice."""

TENSOR = 200
"""Per-scalar graph operations that cost as much time as one scalar operation of the tensor
engine (:mod:`symgpt.engine.net`: flint matrix products, no SymPy per scalar).  Work on tensors — the
values at load, the training traces — counts its operations ÷ TENSOR against ``limits.max_ops``,
so one limit, in one unit, bounds both paths (benchmarks/bench_scale.py measures both)."""

OPTIMIZERS = 2
"""Traces a document replays: SGD and AdamW (the wrong-order SGD of the bigram
replays the same graph once more per step, counted in its optimizer's slot)."""


@dataclass(frozen=True)
class Graph:
    """Nodes and scalar operations of one graph."""
    nodes: int
    ops: int

    def __add__(self, other: "Graph") -> "Graph":
        return Graph(self.nodes + other.nodes, self.ops + other.ops)


def _tensor(n: int, ops_each: int) -> Graph:
    return Graph(n, n * ops_each)


def forward(kind: str, V: int, d: int, T: int, heads=1, d_ff=0, layers=0, W_O=False, tied=True,
            all_positions=False) -> Graph:
    """Nodes and operations of the forward graph: the parameters, then each op application of the plan.

    The blocks are alike, so the cost is that of the model without blocks plus ``layers`` times one block's
    (counted on the plans of 0 and 1 blocks: an estimate takes no time however deep the model).

    >>> forward("bigram", V=3, d=2, T=1)
    Graph(nodes=22, ops=32)
    >>> forward("transformer", V=6, d=2, T=2, d_ff=4, layers=3).ops   # 3 blocks of 312, 110 outside them
    1046
    """
    arch = Arch(kind=kind, V=V, d=d, heads=heads, d_ff=d_ff, layers=min(layers, 1), tied=tied, W_O=W_O,
                all_positions=all_positions)
    if layers <= 1:
        return _of_plan(arch, T)
    bare, one = _of_plan(replace(arch, layers=0), T), _of_plan(arch, T)
    return Graph(bare.nodes + layers * (one.nodes - bare.nodes), bare.ops + layers * (one.ops - bare.ops))


def _of_plan(arch: Arch, T: int) -> Graph:
    shapes = arch.params()
    g = Graph(sum(size(s) for s in shapes.values()), 0)
    for a in arch.plan(T):
        shapes[a.out] = a.shape
        g = g + Graph(*OPS[a.op].cost(a, shapes))
    return g


def reverse(fwd: Graph, V: int, d: int, tied: bool) -> Graph:
    """The forward graph with every adjoint ``grad_…`` (and ``grad_E_head``).

    >>> reverse(Graph(10, 20), V=3, d=2, tied=False)
    Graph(nodes=20, ops=70)
    """
    head = _tensor(V * d, 1) if tied else Graph(0, 0)
    return fwd + Graph(fwd.nodes, BACKWARD * fwd.ops + fwd.nodes) + head


@dataclass(frozen=True)
class Cost:
    """The estimate of one spec: parts (name, nodes, operations, what drives it)."""
    parts: tuple

    @property
    def ops(self) -> int:
        return sum(p[2] for p in self.parts)

    @property
    def nodes(self) -> int:
        return sum(p[1] for p in self.parts)

    def breakdown(self, n: int = 3) -> str:
        """The ``n`` largest parts, each with the keys that drive it."""
        big = sorted(self.parts, key=lambda p: -p[2])
        shown = [f"{name} {_sci(ops)}: {why}" for name, _, ops, why in big[:n] if ops]
        return "; ".join(shown) + ("; …" if len([p for p in big if p[2]]) > n else "")


def _sci(x: float) -> str:
    """2 significant digits, scientific: ``3.1e9``.

    >>> _sci(3_141_592_653), _sci(7), _sci(10**1000)
    ('3.1e9', '7', '1e1000')
    """
    if x < 100:
        return str(int(x))
    s = f"{int(x):d}"
    e = len(s) - 1
    m = round(int(s[:3]) / 10) / 10
    if m >= 10:
        m, e = m / 10, e + 1
    return f"{m:g}e{e}"


def _sizes(spec) -> dict:
    a = Arch.of(spec)
    return dict(kind=a.kind, V=a.V, d=a.d, heads=a.heads, d_ff=a.d_ff, layers=a.layers, W_O=a.W_O, tied=a.tied,
                all_positions=a.all_positions)


def _forward_at(sizes: dict, T: int) -> Graph:
    return forward(T=T, **sizes)


def _continuation(sizes: dict, T: int, n: int) -> Graph:
    """Σ_{i<n} forward(T + i): the forward graph is a quadratic polynomial in T,
    so the sum is exact in closed form (no loop over 10^6 tokens).

    >>> s = dict(kind="transformer", V=6, d=2, heads=1, d_ff=4, layers=1, W_O=False, all_positions=False)
    >>> _continuation(s, 2, 3) == _forward_at(s, 2) + _forward_at(s, 3) + _forward_at(s, 4)
    True
    """
    if n == 0:
        return Graph(0, 0)
    f = [_forward_at(sizes, t) for t in (0, 1, 2)]

    def total(attr):
        y0, y1, y2 = (getattr(g, attr) for g in f)
        c2 = (y2 - 2 * y1 + y0) // 2          # y(t) = y0 + b t + c2 t²
        b = y1 - y0 - c2
        s0, s1 = n, n * (2 * T + n - 1) // 2   # Σ 1, Σ (T + i)
        s2 = sum_squares(T + n - 1) - sum_squares(T - 1)
        return y0 * s0 + b * s1 + c2 * s2
    return Graph(total("nodes"), total("ops"))


def sum_squares(m: int) -> int:
    """1² + 2² + … + m² (0 for m ≤ 0).

    >>> sum_squares(3), sum_squares(0)
    (14, 0)
    """
    return m * (m + 1) * (2 * m + 1) // 6 if m > 0 else 0


def trace_bits(steps: int) -> int:
    """The working precision of a trace of ``steps`` updates: its balls widen
    with every update, so a trace starts 16 bits per step above the digits it
    prints (see :meth:`symgpt.training.train.Trace.value`).

    >>> trace_bits(0), trace_bits(100)
    (123, 1723)
    """
    return prec_for_digits(25) + 16 * steps


def _wide(bits: int) -> float:
    """Cost of one operation at ``bits`` relative to one at ≤ 512 bits
    (multiplication of long mantissas: about bits^1.5).

    >>> _wide(64), _wide(2048)
    (1.0, 8.0)
    """
    return max(1.0, bits / WORD_BITS) ** 1.5


def estimate(spec, gradients: bool = True, only: str | None = None) -> Cost:
    """Nodes and scalar operations of everything a derivation of ``spec`` does (or of the part ``only``).

    Parts: the graph (forward and reverse, one per training example), the
    training traces (optimizers × states × examples × the graph's operations,
    plus the optimizer's own arithmetic per parameter), the greedy
    continuation (a forward graph of growing T per token) and sampling (a
    softmax of V terms per temperature).

    >>> from symgpt.engine.spec import load_spec
    >>> [p[0] for p in estimate(load_spec("derivations/bigram.toml")).parts]
    ['values', 'graph', 'training trace', 'continuation', 'sampling']
    >>> estimate(load_spec("derivations/bigram.toml"), only="sampling").parts[0][0]
    'sampling'
    """
    sizes = _sizes(spec)
    T, V, d = spec.T, spec.V, spec.d
    fwd = _forward_at(sizes, T)
    full = reverse(fwd, V, d, spec.kind == "transformer" and spec.tied) if gradients else fwd
    tr = spec.training
    n_ex = len(tr.examples)
    shape = (f"model.d = {d}, V = {V}" + (f", T = {T} (data.input), model.d_ff = {spec.d_ff}, "
                                           f"model.layers = {spec.layers}" if spec.kind == "transformer" else ""))

    def graph():
        return ("graph", full.nodes * n_ex, full.ops * n_ex,
                shape + (f", × {n_ex} training.examples" if n_ex > 1 else ""))

    def values():
        return ("values", 0, full.ops // TENSOR, f"{_sci(full.ops)} scalar operations on tensors ÷ {TENSOR}, {shape}")

    def trace():
        params = sum(len(v) * (len(v[0]) if v and isinstance(v[0], list) else 1) for v in spec.params.values()) \
            if spec.params else fwd.nodes
        states = tr.steps + 1
        per_state = n_ex * full.ops + 20 * params
        bits = trace_bits(tr.steps)
        return ("training trace", 0,
                int(OPTIMIZERS * states * per_state * _wide(bits)) // TENSOR if gradients else 0,
                f"{OPTIMIZERS} optimizers × (training.steps + 1 = {states}) states × "
                f"{n_ex} example{'s' if n_ex > 1 else ''} × {_sci(per_state)} ops at {_sci(bits)} bits, on tensors "
                f"÷ {TENSOR}")

    def continuation():
        n = spec.sampling.n_continue
        cont = _continuation(sizes, T, n)
        rank = n * V * max(1, V.bit_length()) * 4
        return ("continuation", cont.nodes, SYMBOLIC * cont.ops + rank,
                f"sampling.continue = {n} forward passes of growing T")

    def sampling():
        temps = len(spec.sampling.temperatures)
        return ("sampling", 0, SYMBOLIC * temps * V * (V + 4), f"{temps} sampling.temperatures × V² = {V}²")

    parts = {"values": values, "graph": graph, "training trace": trace, "continuation": continuation,
             "sampling": sampling}
    return Cost(tuple(f() for name, f in parts.items() if only in (None, name)))


def check_part(spec, part: str, limits: Limits | None = None, gradients: bool = True, what: str = "") -> Cost:
    """One part of the estimate (``values``, ``graph``, ``training trace``, …), or LimitError
    when it alone exceeds ``limits.max_ops``: each piece of work is checked when it is asked for.

    >>> from symgpt.engine.spec import load_spec
    >>> check_part(load_spec("derivations/bigram.toml"), "graph").parts[0][0]
    'graph'
    """
    c = estimate(spec, gradients, only=part)
    _refuse(spec, c, limits or Limits(), what)
    return c


def check_values(spec, limits: Limits | None = None, gradients: bool = True) -> Cost:
    """The values part (a load): the forward and reverse pass on tensors."""
    return check_part(spec, "values", limits, gradients)


def check_graph(spec, limits: Limits | None = None, gradients: bool = True) -> Cost:
    """The per-scalar SymPy graph (closed forms, definitions, documents), checked before it is built."""
    return check_part(spec, "graph", limits, gradients,
                      " for closed forms and documents (values need no graph: d.value, d.gradient)")


def check_trace(spec, limits: Limits | None = None, steps: int | None = None) -> Cost:
    """The training traces (both optimizers, every state), of ``steps`` updates when given
    (a trace asked for with its own length) instead of the spec's ``training.steps``.

    >>> from symgpt.engine.spec import load_spec
    >>> s = load_spec("derivations/bigram.toml")
    >>> check_trace(s, steps=200).ops > check_trace(s).ops
    True
    """
    if steps is not None and steps != spec.training.steps:
        spec = replace(spec, training=replace(spec.training, steps=steps))
    return check_part(spec, "training trace", limits)


def check_pass(spec, prec: int, limits: Limits | None = None, gradients: bool = True) -> int:
    """One forward (and reverse) pass on tensors at ``prec`` bits, checked before it runs: its
    operations ÷ :data:`TENSOR`, each counting (bits/512)^1.5 above 512 bits (:func:`_wide`).

    >>> from symgpt.engine.spec import load_spec
    >>> check_pass(load_spec("derivations/bigram.toml"), 4096) > check_pass(load_spec("derivations/bigram.toml"), 64)
    True
    """
    return check_run(spec, prec, 1, limits, gradients)


def check_run(spec, prec: int, passes: int, limits: Limits | None = None, gradients: bool = True,
              what: str = "one pass") -> int:
    """``passes`` forward (and reverse) passes at up to ``prec`` bits (a training trace's states),
    checked before the first runs, as :func:`check_pass` counts one.

    >>> from symgpt.engine.spec import load_spec
    >>> check_run(load_spec("derivations/bigram.toml"), 2048, 10**6, what="a long trace")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: derivations/bigram.toml: a long trace at 2048 bits needs about 4.7e6 scalar ...
    """
    limits = limits or Limits()
    sizes = _sizes(spec)
    fwd = _forward_at(sizes, spec.T)
    full = reverse(fwd, spec.V, spec.d, spec.kind == "transformer" and spec.tied) if gradients else fwd
    ops = int(passes * full.ops * _wide(prec)) // TENSOR
    if ops > limits.max_ops:
        times = f"{passes} passes × " if passes > 1 else ""
        raise LimitError(f"{spec.path}: {what} at {prec} bits needs about {_sci(ops)} scalar operations "
                         f"({times}{_sci(full.ops)} on tensors ÷ {TENSOR}, × {_wide(prec):.3g} for the width of "
                         f"{prec}-bit numbers), above the limit {_sci(limits.max_ops)} "
                         f"(--max-ops; symgpt.Limits(max_ops=…) in Python)")
    return ops


def _refuse(spec, c: Cost, limits: Limits, what: str = "") -> None:
    if c.ops > limits.max_ops:
        raise LimitError(f"{spec.path}: the spec needs about {_sci(c.ops)} scalar operations{what} "
                         f"({c.breakdown()}), above the limit {_sci(limits.max_ops)} "
                         f"(--max-ops; symgpt.Limits(max_ops=…) in Python)")


def check(spec, limits: Limits | None = None, gradients: bool = True) -> Cost:
    """The estimate, or LimitError when it exceeds ``limits.max_ops``.

    >>> from symgpt.engine.spec import load_spec
    >>> check(load_spec("derivations/bigram.toml")).ops < Limits().max_ops
    True
    """
    c = estimate(spec, gradients)
    _refuse(spec, c, limits or Limits())
    return c
