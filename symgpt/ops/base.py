"""What an operation kind is, and one application of it in a model's plan.

An op (one module of :mod:`symgpt.ops` each) keeps every facet of itself side by side:

* ``define(g, a, T)``: the per-scalar SymPy definition of each output entry from its inputs' entries, shared
  by the whole graph and the lazy graph (:func:`symgpt.core.grid.tensor`);
* ``groups(a, net)``, ``forward(a, net)``, ``backward(a, net)``: the named tensors it fills and its stages on
  fmpq/arb tensors (:class:`symgpt.engine.net.Net`);
* ``rules()``: its adjoint rules as the documents state them, each proven equal to SymPy's ``diff``
  (:mod:`symgpt.core.prove`);
* ``floats_forward(a, pipe)``, ``floats_backward(a, pipe)``: its model in IEEE arithmetic in PyTorch's CPU order
  (:mod:`symgpt.floats.model`), written once over an arithmetic ``ar`` that is either IEEE in one format or its
  exact twin: ``pipe.add(name, inputs, fn)`` adds the stage ``name = fn(ar, *inputs)``; in the backward
  ``pipe.grad(x)`` names the stage holding x's complete adjoint and ``pipe.share(x, inputs, fn)`` adds a term to
  it (``pipe.fold`` a term that adds itself to the sum so far, ``pipe.alias`` another adjoint unchanged), in
  autograd's order: a tensor read once gets its adjoint where the term is made, a sum where it is first read;
  ``pipe.decide(x, kind)`` marks a tensor the op decides on.  The compositions use only the arithmetic's
  primitives (``w``, ``out``, ``keep``, ``mm``, ``rowsum``, ``fma``, ``wexp`` …:
  :class:`symgpt.floats.model.Arithmetic`);
* ``cost(a, shapes)``: the nodes and scalar operations its definitions add, from the shapes of the groups
  (:mod:`symgpt.engine.cost`);
* ``PARAMS``: the meaning and the axis letters of each parameter it reads;
* optional facets, each with its default in :data:`symgpt.ops.OPTIONAL` (read through :func:`symgpt.ops.facet`):
  ``define_gradients``, ``late_groups``, ``steering``, ``inner``, ``refused``.

A model is a *plan*: a list of :class:`Apply` built once from its architecture (:mod:`symgpt.engine.arch`);
every consumer iterates the plan and never names an op.

>>> a = Apply("residual", "H1", ("H0", "Attn"), (2, 2), meaning="first residual H + Attn", axes=("t", "j"))
>>> a.op, a.out, a.ins, a.param("W")
('residual', 'H1', ('H0', 'Attn'), None)
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Apply:
    """One application of an op: ``out = op(ins…; params…)``.

    ``op`` names the op in :data:`symgpt.ops.OPS`; ``out`` is the group it defines (with its layer prefix)
    and ``shape`` its shape, ``ins`` the groups it reads, ``params`` the parameter groups by their role
    (``("W", "l0.W_1")``), ``pre`` the layer prefix of the names it makes, ``meaning`` and ``axes`` those of
    ``out``; ``opts`` holds what else the op needs (a norm's number, the attention heads, the head's rows).
    """
    op: str
    out: str
    ins: tuple = ()
    shape: tuple = ()
    params: tuple = ()
    pre: str = ""
    meaning: str = ""
    axes: tuple = ()
    opts: tuple = ()

    def param(self, role: str):
        """The parameter group playing ``role``, or None (a bias the model does not have).

        >>> Apply("linear", "Z", ("LN1",), (2, 4), (("W", "W_1"), ("b", "b_1"))).param("b")
        'b_1'
        """
        return dict(self.params).get(role)

    def opt(self, key: str, default=None):
        """An option of the application (``opts`` as pairs, so that an Apply stays hashable).

        >>> Apply("attention", "Attn", ("H0",), (2, 2), opts=(("heads", 2),)).opt("heads")
        2
        """
        return dict(self.opts).get(key, default)


@dataclass(frozen=True)
class Param:
    """A parameter an op reads: its meaning (English; the Chinese is in the op's ``NAMES``) and axis letters."""
    meaning: str
    axes: tuple = field(default=())


def size(shape) -> int:
    """The number of entries of a tensor of ``shape``.

    >>> size((2, 3)), size(())
    (6, 1)
    """
    n = 1
    for k in shape:
        n *= k
    return n


def accumulate(v: dict, name: str, value, add) -> None:
    """v[name] += value, the first contribution taken as it is (a gradient is the sum over its consumers).

    >>> v = {}
    >>> accumulate(v, "g", [1, 2], lambda a, b: [x + y for x, y in zip(a, b)])
    >>> accumulate(v, "g", [3, 4], lambda a, b: [x + y for x, y in zip(a, b)]); v["g"]
    [4, 6]
    """
    v[name] = value if name not in v else add(v[name], value)


def plus(ar, acc, x):
    """acc + x in the arithmetic ``ar`` of a float model, or x alone when there is no sum yet (acc None).

    >>> class Ar:
    ...     add = staticmethod(lambda a, b: a + b)
    >>> plus(Ar, None, 2), plus(Ar, 1, 2)
    (2, 3)
    """
    return x if acc is None else ar.add(acc, x)
