"""One module per operation kind, every facet of it side by side; :data:`OPS` is the table.

Each module defines its op's per-scalar SymPy definition (``define``), its tensor stages on fmpq/arb tensors
(``groups``, ``forward``, ``backward``), its adjoint rules proven by SymPy (``rules``), its cost (``cost``),
its parameters (``PARAMS``) and how its quantities are called (``NAMES``, :mod:`symgpt.ops.naming`); see
:mod:`symgpt.ops.base`.  A model is a plan of :class:`~symgpt.ops.base.Apply`
built from its architecture (:mod:`symgpt.engine.arch`): every consumer iterates the plan and looks the op up here.

>>> sorted(OPS)  # doctest: +NORMALIZE_WHITESPACE
['attention', 'embedding', 'gelu', 'gelu_tanh', 'head', 'layernorm', 'learned_positions', 'linear', 'positions',
 'relu', 'residual', 'rmsnorm', 'silu', 'softmax_xent', 'swiglu']
>>> [r.name for r in all_rules()]  # doctest: +NORMALIZE_WHITESPACE
['softmax_xent', 'softmax_den', 'scores', 'attend', 'rope', 'layernorm', 'relu', 'matmul', 'rmsnorm', 'gelu',
 'gelu_tanh', 'silu', 'swiglu']
"""
from __future__ import annotations

from . import (
    attention,
    embedding,
    gelu,
    gelu_tanh,
    head,
    layernorm,
    learned_positions,
    linear,
    positions,
    relu,
    residual,
    rmsnorm,
    silu,
    softmax_xent,
    swiglu,
)
from .base import Apply, Param
from .naming import Name, merged

OPS = {m.KIND: m for m in (embedding, positions, learned_positions, residual, attention, layernorm, rmsnorm, linear,
                           relu, gelu, gelu_tanh, silu, swiglu, head, softmax_xent)}
"""Every operation kind by name: the only list of ops."""

PARAMS = {name: p for m in OPS.values() for name, p in m.PARAMS.items()}
"""Every parameter by its name without a layer prefix: its meaning and axis letters."""

NAMES = {name: merged(name, n, m.PARAMS) for m in OPS.values() for name, n in m.NAMES.items()}
"""Every quantity an op names (a group, a parameter, a hyper-parameter), by its name without a layer prefix: its
meanings, axes, TeX, aliases and a parameter's training (:class:`~symgpt.ops.naming.Name`).

>>> NAMES["W_Q"].en, NAMES["W_Q"].zh, NAMES["l0.S".rpartition(".")[2]].of
('query projection (d × d)', '查询投影矩阵（d × d）', (('exp', ('exp',)),))
>>> sum(len(m.NAMES) for m in OPS.values()) == len(NAMES)   # no two ops name the same quantity
True
"""


OPTIONAL = {
    "define_gradients": lambda g, a: None,   # tensors of the graph's adjoints beyond the reverse mode's
    "late_groups": lambda a, net: None,      # the tensor engine's groups named after every parameter's adjoint
    "steering": lambda a: (),                # the groups whose signs choose its branches
    "inner": lambda a: (),                   # its statistics that pictures pass through
    "refused": lambda a: None,               # why a spec's sizes are impossible for it (None: they are not)
}
"""The facets an op may leave out, each with what leaving it out means."""


def facet(kind: str, name: str):
    """The op's ``name`` facet, or its default when the op has none (:data:`OPTIONAL`).

    >>> facet("relu", "steering")(Apply("relu", "R", ("Z",), (1, 1))), facet("linear", "steering")(None)
    (('Z',), ())
    """
    return getattr(OPS[kind], name, None) or OPTIONAL[name]


def all_rules() -> list:
    """Every op's adjoint rules, derived and proven (once per process), the loss's first.

    >>> all_rules()[0].grad_z.__doc__
    'grad_z(p, y, n) = (p - y)/n'
    """
    order = ("softmax_xent", "attention", "layernorm", "relu", "linear")
    return [r for k in order for r in OPS[k].rules()] + [r for k, m in OPS.items() if k not in order
                                                         for r in m.rules()]


__all__ = ["NAMES", "OPS", "OPTIONAL", "PARAMS", "Apply", "Name", "Param", "all_rules", "facet"]
