"""The names of a model without its SymPy graph: what resolving a name needs.

:class:`Skeleton` answers what :class:`symgpt.engine.names.Names` asks of a graph —
its groups, whether a node exists, a node's group, index, symbol and (for a
parameter) exact value — from a :class:`symgpt.engine.net.Net`, building nothing per
scalar.  A node's definition (``expr``) comes from the callable ``definitions``
(the full graph, or the lazy one beyond the limits); the order of every node
from the full graph, built on first use by the callable ``graph``.

>>> from symgpt.engine.spec import load_spec
>>> from symgpt.engine.net import Net
>>> sk = Skeleton(Net(load_spec("derivations/bigram.toml")))
>>> sk.nodes["W[0,2]"].value, sk.nodes["grad_z[1]"].index, "z[9]" in sk.nodes
(1/10, (1,), False)
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import sympy

from ..core.tensor import parse_node


class SkeletonNode:
    """A node's name, group, index, symbol and (parameters) exact value; ``expr`` from the definitions."""
    __slots__ = ("name", "group", "index", "value", "_skeleton")

    def __init__(self, skeleton, name, group, index, value):
        self.name, self.group, self.index, self.value, self._skeleton = name, group, index, value, skeleton

    @property
    def sym(self) -> sympy.Symbol:
        return sympy.Symbol(self.name, real=True)

    @property
    def expr(self):
        """None for a parameter; otherwise the node's definition (the graph built on first use)."""
        if self.value is not None:
            return None
        return self._skeleton.definitions().nodes[self.name].expr

    @property
    def inputs(self) -> tuple:
        return self._skeleton.definitions().nodes[self.name].inputs


class _Nodes(Mapping):
    def __init__(self, skeleton):
        self.sk = skeleton

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise KeyError(name)
        try:
            group, index = parse_node(name) if name.endswith("]") and "[" in name else (name, ())
        except ValueError:  # an index that is not a whole number: no such node
            raise KeyError(name) from None
        g = self.sk.groups.get(group)
        if g is None or len(index) != len(g.shape) or any(not 0 <= i < n for i, n in zip(index, g.shape)):
            raise KeyError(name)
        if name != (f"{group}[{','.join(map(str, index))}]" if index else group):
            raise KeyError(name)  # not canonical (spaces, leading zeros)
        value = None
        if group in self.sk.net.spec.params:
            x = self.sk.net.spec.params[group]
            for i in index:
                x = x[i]
            value = x
        return SkeletonNode(self.sk, name, group, index, value)

    def __contains__(self, name):
        try:
            self[name]
        except (KeyError, ValueError):
            return False
        return True

    def __iter__(self):
        for g in self.sk.groups.values():
            yield from g.names

    def __len__(self):
        return sum(math.prod(g.shape) for g in self.sk.groups.values())


class Skeleton:
    """A graph-shaped view of a :class:`symgpt.engine.net.Net`: ``groups``, ``nodes``, ``sym``; the rest from
    ``graph()``."""

    def __init__(self, net, graph=None, definitions=None):
        self.net = net
        self.groups = net.groups
        self.nodes = _Nodes(self)
        self._graph = graph
        self._definitions = definitions

    def full(self):
        """The per-scalar SymPy graph (built on first use by the derivation)."""
        if self._graph is None:
            raise ValueError("no per-scalar graph for this model")
        return self._graph()

    def definitions(self):
        """The per-scalar definitions (the full graph when no other source is given)."""
        return self._definitions() if self._definitions is not None else self.full()

    def sym(self, name) -> sympy.Symbol:
        return sympy.Symbol(name, real=True)

    def definition(self, name):
        return self.definitions().definition(name)

    @property
    def order(self) -> list:
        return self.full().order
