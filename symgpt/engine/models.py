"""The per-scalar SymPy graph of a spec: its parameters, then each op application of its plan in turn.

>>> from symgpt.engine.spec import load_spec
>>> g = build(load_spec("derivations/bigram.toml"))
>>> [g.closed_form(f"z[{v}]") for v in range(3)]
[13/100, -13/100, 2/25]
"""
from __future__ import annotations

from ..core.graph import Graph
from ..core.grid import param
from ..ops import OPS, PARAMS, facet
from .arch import Arch
from .lazy import LazyGraph
from .names import base


def _params(g, spec) -> dict:
    out = {}
    for name, values in spec.params.items():
        p = PARAMS[base(name)]
        out[name] = param(g, name, values, p.meaning, p.axes)
    return out


def plan(spec, tokens=None, target=None) -> list:
    """The op applications of ``spec`` on its own example (or on ``tokens`` and ``target``)."""
    tokens = spec.input if tokens is None else tokens
    target = spec.target if target is None else target
    return Arch.of(spec).plan(len(tokens), tokens, target)


def build(spec, tokens=None, target=None, g=None) -> Graph:
    """The forward graph of ``spec`` (on its own input, or on ``tokens``), into ``g`` (a new
    :class:`Graph` when None; a :class:`symgpt.engine.lazy.LazyGraph` keeps each tensor's rule instead)."""
    g = Graph() if g is None else g
    T = _params(g, spec)
    for a in plan(spec, tokens, target):
        T[a.out] = OPS[a.op].define(g, a, T)
    return g


def differentiated(spec, tokens=None, target=None, gradients=True, lazy=False) -> Graph:
    """The model graph of ``spec`` on an example, with every ``grad_…`` node.

    A tied transformer also gets ``grad_E_head[v,j]``: the part of ∂L/∂E that
    flows through the LM head, (p − y)·h_final.  This is the model builder
    the training traces call for each example.  ``lazy``: a
    :class:`symgpt.engine.lazy.LazyGraph`, which defines a node when it is asked for
    (the same definitions, at any size).

    >>> from symgpt.engine.spec import load_spec
    >>> differentiated(load_spec("derivations/bigram.toml")).definition("grad_z[2]")
    p[2] - 1
    >>> differentiated(load_spec("derivations/bigram.toml"), lazy=True).definition("grad_z[2]")
    p[2] - 1
    """
    g = build(spec, tokens, target, LazyGraph() if lazy else None)
    if gradients:
        g.backward("loss")
        for a in plan(spec, tokens, target):
            facet(a.op, "define_gradients")(g, a)
    return g
