"""The facets a smooth entrywise activation shares: ``R = f(Z)``, grad_Z = grad_R · f'(Z).

An activation without a decision (GELU, its tanh form, SiLU) is given by one SymPy function of one real symbol;
everything else follows from it here, so that each op module (:mod:`symgpt.ops.gelu`, …) holds only its own
mathematics: its definition ``f``, the derivative it states, its IEEE model in PyTorch's order, and its words.

* the per-scalar definition is ``f(Z[t,k])``; the graph differentiates it itself;
* the tensor stages evaluate ``f`` and the derivative SymPy finds (:func:`rule`), compiled to fmpq/arb closures
  (:func:`symgpt.core.numeric.compile_expr`): an exact 0 stays exact wherever ``f`` keeps it so;
* the rule proves the stated derivative equal to SymPy's ``diff`` of ``f``.

>>> import sympy
>>> z = sympy.Symbol("Z", real=True)
>>> r = rule("square", lambda x: x**2, {"square.grad_Z": lambda gR, Z: 2 * gR * Z})
>>> r.derived["grad_Z"], r.grad_Z(3, 5)
(2*Z*gR, 30)
"""
from __future__ import annotations

import functools

import sympy
from flint import fmpq

from ..core.grid import tensor
from ..core.prove import Rule, closures, prove_equal, real, stated
from ..core.tensor import add
from .base import Apply, accumulate, size

OPS_PER_ENTRY = 8
"""Scalar operations counted per entry of a smooth activation (a transcendental function and a few products)."""


def rule(name: str, f, table: dict) -> Rule:
    """R = f(Z): grad_Z = gR · f'(Z), derived by SymPy and proven equal to ``table[name + ".grad_Z"]``.

    The rule's closure ``grad_Z`` takes (gR, Z); :func:`value` gives f(Z) itself, compiled the same way.
    """
    Z, gR = real("Z gR")
    syms = {"gR": gR, "Z": Z}
    derived = {"grad_Z": gR * sympy.diff(f(Z), Z)}
    prove_equal(f"{name}.grad_Z", derived["grad_Z"], stated(table, name, "grad_Z", syms))
    fns = closures(table, name, derived, syms)
    fns["grad_Z"] = _exact_at_zero(fns["grad_Z"], sympy.diff(f(Z), Z).subs(Z, 0), factor=True)
    return Rule(name=name, forward={"R": f(Z)}, symbols={"Z": "pre-activation", "gR": "grad_R"}, derived=derived,
                checked=f"d {name}(Z)/dZ by SymPy's diff equals the stated derivative", closures=fns)


@functools.cache
def value(f):
    """f(Z) as a closure of one fmpq or arb number, compiled from the definition (exact at an exact Z = 0 where
    f(0) is rational).

    >>> value(lambda z: z**2 + 1)(fmpq(0)), value(lambda z: z**2 + 1)(fmpq(1, 2))
    (1, 5/4)
    """
    Z = sympy.Symbol("Z", real=True)
    fn = closures({"f.value": lambda Z: f(Z)}, "f", {"value": f(Z)}, {"Z": Z})["value"]
    return _exact_at_zero(fn, f(sympy.S.Zero))


def _exact_at_zero(fn, value, factor=False):
    """``fn``, except that at an exact Z = 0 it gives ``value`` (times gR, the first argument, when ``factor``)
    as an exact rational, where SymPy finds ``value`` rational: balls of exact 0 would lose that."""
    if not value.is_Rational:
        return fn
    q = fmpq(int(value.p), int(value.q))

    def at(*args):
        z = args[-1]
        if isinstance(z, fmpq) and z == 0:
            return args[0] * q if factor else q
        return fn(*args)
    at.__name__, at.__doc__, at.args, at.expr = fn.__name__, fn.__doc__, fn.args, fn.expr
    return at


def define(g, a: Apply, T: dict, f):
    """R[t,k] = f(Z[t,k])  (T, d_ff)."""
    Z = T[a.ins[0]]
    return tensor(g, a.out, (len(Z), len(Z[0])), a.meaning, a.axes,
                  lambda i: f(Z[i[0]][i[1]]), [(Z, lambda z: [z])], lambda i: 1)


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net, f) -> None:
    """R = f(Z) entry by entry, in the balls' precision."""
    Zn, fz = a.ins[0], value(f)
    net.stage((a.out,), lambda v, ev: v.__setitem__(a.out, [[fz(z) for z in row] for row in v[Zn]]))


def backward(a: Apply, net, r: Rule) -> None:
    """grad_Z = grad_R · f'(Z)."""
    Zn, gZ = a.ins[0], "grad_" + a.ins[0]

    def run(v, ev):
        G, Z = v["grad_" + a.out], v[Zn]
        accumulate(v, gZ, [[r.grad_Z(g, z) for g, z in zip(gr, zr)] for gr, zr in zip(G, Z)], add)
    net.stage((gZ,), run)


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): one function value per entry."""
    return size(a.shape), OPS_PER_ENTRY * size(a.shape)


def facets(f, the_rule):
    """The engine's facets of the activation ``f`` whose proven rule ``the_rule()`` gives (built when first used):
    ``(rules, define, groups, forward, backward, cost)``, for an op module to take as its own.

    >>> triple = lambda x: 3 * x
    >>> rules, *_ = facets(triple, lambda: rule("triple", triple, {"triple.grad_Z": lambda gR: 3 * gR}))
    >>> rules()[0].derived["grad_Z"]
    3*gR
    """
    return (lambda: [the_rule()],
            lambda g, a, T: define(g, a, T, f),
            groups,
            lambda a, net: forward(a, net, f),
            lambda a, net: backward(a, net, the_rule()),
            cost)


def float_facets(value, grad):
    """The float model's facets of an activation from its IEEE functions ``value(ar, z)`` and ``grad(ar, z, g)``
    (the adjoint g·f'(z)): ``(floats_forward, floats_backward)``."""
    def floats_forward(a: Apply, pipe) -> None:
        pipe.add(a.out, [a.ins[0]], value)

    def floats_backward(a: Apply, pipe) -> None:
        pipe.share(a.ins[0], [a.ins[0], pipe.grad(a.out)], grad)
    return floats_forward, floats_backward
