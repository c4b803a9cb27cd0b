"""The model as tensor operations: every named quantity of :mod:`symgpt.engine.models`, one tensor at a time.

:class:`Net` plans the forward pass and the reverse pass of a spec on one
example as a list of stages; each stage fills one or more named groups
(``H0``, ``l0.S``, ``grad_W_Q``, …) with the same names, shapes and meanings
as the SymPy graph of :func:`symgpt.engine.models.differentiated`, so a quantity
means the same whichever path computes it.  The stages are the plan's op
applications (:mod:`symgpt.engine.arch`): each op (:mod:`symgpt.ops`) gives its
forward stage and its backward stage, whose adjoints are the rules the op derives
with SymPy on generic symbols, applied per element; a gradient is the sum of its
consumers' contributions.  Matrix products run in python-flint (:mod:`symgpt.core.tensor`).
No SymPy expression is built per scalar: the graph is built only when someone asks for a
closed form (:class:`symgpt.derivation.Derivation`).

>>> from symgpt.engine.spec import load_spec
>>> net = Net(load_spec("derivations/bigram.toml"))
>>> net.groups["grad_W"].shape, [a.op for a in net.plan], [st.outputs for st in net.stages][:2]
((2, 3), ['embedding', 'linear', 'softmax_xent'], [('x',), ('z',)])
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from flint import fmpq

from ..core import graph
from ..core.numeric import to_flint
from ..ops import OPS, PARAMS, facet
from .arch import Arch


class Group(graph.Group):
    """A named tensor (:class:`symgpt.core.graph.Group`) whose node names are made when first asked for."""

    def __init__(self, name, shape, meaning, axes):
        super().__init__(name, tuple(shape), meaning, tuple(axes), None)

    @property
    def names(self) -> list:
        """Every node name of the tensor, row by row (``H0[0,0]``, ``H0[0,1]``, …)."""
        if self._names is None:
            idx = [()]
            for n in self.shape:
                idx = [i + (k,) for i in idx for k in range(n)]
            self._names = [f"{self.name}[{','.join(map(str, i))}]" if i else self.name for i in idx]
        return self._names

    @names.setter
    def names(self, value) -> None:
        self._names = value


@dataclass
class Stage:
    """One step of the computation: fills ``outputs`` (group names) from earlier groups."""
    outputs: tuple
    run: object  # run(v: dict, ev) -> None; ev decides the signs an op steers on


_LAYER = re.compile(r"(?:grad_)?l(\d+)\.")


def _base(group: str) -> str:
    return group.rpartition(".")[2]


def _q(x) -> fmpq:
    return to_flint(x) if not isinstance(x, fmpq) else x


class Net:
    """The forward and reverse computation of ``spec`` on one example, per tensor.

    ``groups`` are the named tensors in definition order (forward, then the
    adjoints ``grad_…``); ``stages`` compute them in that order.
    """

    def __init__(self, spec, tokens=None, target=None, gradients=True):
        self.spec = spec
        self.tokens = tuple(spec.input if tokens is None else tokens)
        self.target = spec.target if target is None else target
        self.gradients = gradients
        self.groups: dict[str, Group] = {}
        self.stages: list[Stage] = []
        self.params = list(spec.params)
        self._exact_params: dict | None = None
        for name in self.params:
            p = PARAMS[_base(name)]
            vals = spec.params[name]
            shape = (len(vals), len(vals[0])) if vals and isinstance(vals[0], list) else (len(vals),)
            self.group(name, shape, p.meaning, p.axes)
        self.plan = Arch.of(spec).plan(len(self.tokens), self.tokens, self.target)
        self.steering = {g for a in self.plan for g in facet(a.op, "steering")(a)}
        """The groups whose signs steer an op's branch (a tie there is a rule's tie)."""
        for a in self.plan:                       # forward: each application's tensors and its stage
            OPS[a.op].groups(a, self)
            OPS[a.op].forward(a, self)
        if gradients:
            self._backward()

    def _backward(self) -> None:
        """Reverse mode over the plan: an adjoint is named when it is complete, just before the backward of the
        application that made its tensor; each application adds its share to its inputs' adjoints."""
        for a in reversed(self.plan):
            self.grad_group(a.out)
            OPS[a.op].backward(a, self)
        for name in reversed(self.params):
            self.grad_group(name)
        for a in self.plan:
            facet(a.op, "late_groups")(a, self)

    # -- planning ---------------------------------------------------------------
    def group(self, name, shape, meaning, axes) -> None:
        self.groups[name] = Group(name, tuple(shape), meaning, tuple(axes))

    def stage(self, outputs, run) -> None:
        self.stages.append(Stage(tuple(outputs), run))

    def grad_group(self, name: str) -> str:
        """Name the adjoint ``grad_<name>`` of a tensor (once: a second call keeps the first place)."""
        if "grad_" + name not in self.groups:
            g = self.groups[name]
            self.group("grad_" + name, g.shape, f"∂loss/∂{name}", g.axes)
        return "grad_" + name

    def dead_after(self) -> dict[int, list]:
        """{stage index: the groups no later stage reads}, as far as the blocks tell it: a block's tensors and
        adjoints (``l5.S``, ``grad_l5.S``) are dead once the reverse pass has reached two blocks below it (it
        writes ``grad_l3.…``); the block just below may still take its input's adjoint from it.  After the last
        stage, the remaining blocks' tensors.  Parameters, their gradients and the unprefixed tensors are never
        listed.  A pass that frees them saves a deep model's
        memory (:meth:`symgpt.engine.values.TensorEvaluator.lean`).

        >>> from symgpt.engine.spec import load_spec
        >>> Net(load_spec("derivations/tiny-transformer.toml")).dead_after()     # one block: nothing to free
        {}
        """
        keep = set(self.params) | {"grad_" + p for p in self.params}
        by_layer: dict[int, list] = {}
        for g in self.groups:
            m = _LAYER.match(g)
            if m and g not in keep:
                by_layer.setdefault(int(m.group(1)), []).append(g)
        out, freed = {}, set()
        for i, st in enumerate(self.stages):
            below = [int(m.group(1)) for o in st.outputs if o.startswith("grad_") and (m := _LAYER.match(o))]
            if not below:
                continue
            gone = {layer for layer in by_layer if layer >= min(below) + 2} - freed
            if gone:
                freed |= gone
                out[i - 1] = [g for layer in sorted(gone, reverse=True) for g in by_layer[layer]]   # before stage i
        if freed:   # at the end, the blocks the reverse pass left last
            out.setdefault(len(self.stages) - 1, []).extend(
                g for layer in by_layer if layer not in freed for g in by_layer[layer])
        return out

    def leaf_values(self, leaves: dict | None) -> dict:
        """The parameters as tensors of fmpq (the spec's values) or of the given leaves (by node name).

        The spec's values are converted once per model (stages only read them)."""
        if self._exact_params is None:
            self._exact_params = {
                name: [[_q(x) for x in row] for row in vals] if vals and isinstance(vals[0], list)
                else [_q(x) for x in vals] for name, vals in self.spec.params.items()}
        if not leaves:
            return dict(self._exact_params)
        v = {}
        for name, X in self._exact_params.items():
            if X and isinstance(X[0], list):
                v[name] = [[leaves.get(f"{name}[{i},{j}]", x) for j, x in enumerate(row)] for i, row in enumerate(X)]
            else:
                v[name] = [leaves.get(f"{name}[{i}]", x) for i, x in enumerate(X)]
        return v
