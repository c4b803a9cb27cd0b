"""Adjoint rules proven by SymPy: the machinery every op's rule (:mod:`symgpt.ops`) is derived and checked with.

An op states its adjoints as the documents write them, one line each, in a table ``STATED`` of its own
(``"matmul.grad_X": lambda G, W: G * W.T``).  Its rule function differentiates the op's forward definition with
SymPy's ``diff`` on generic real symbols of a small size, re-folds the result onto per-element symbols and proves it
equal to the stated line (:func:`prove_equal`); a failed proof is a :class:`RuleError`.  The per-element rules are
compiled with :func:`symgpt.core.numeric.compile_expr` into closures of fmpq or arb numbers, which the tensor engine
calls per element; the matrix rules are checks only.

>>> import sympy
>>> x, g = sympy.symbols("x g", real=True)
>>> table = {"square.grad_x": lambda g, x: 2 * g * x}
>>> derived = {"grad_x": g * sympy.diff(x**2, x)}
>>> prove_equal("square.grad_x", derived["grad_x"], stated(table, "square", "grad_x", {"g": g, "x": x}))
>>> closures(table, "square", derived, {"g": g, "x": x})["grad_x"](3, 5)
30
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import sympy

from .numeric import compile_expr


class RuleError(Exception):
    """A derived adjoint does not equal the stated rule (or the derivation could not be re-folded)."""


@dataclass(eq=False)
class Rule:
    """One operation kind: forward definition, derived adjoints, what was proven, numeric closures.

    ``forward`` and ``derived`` map names to SymPy expressions over the generic
    symbols documented in ``symbols``; each per-element adjoint is also an
    attribute, a closure of fmpq/arb numbers compiled from ``derived``.

    >>> r = Rule("id", {}, {}, {}, "nothing", {"grad_x": lambda g: g})
    >>> r.grad_x(7), r.name
    (7, 'id')
    """
    name: str
    forward: dict
    symbols: dict
    derived: dict
    checked: str
    closures: dict = field(default_factory=dict)

    def __getattr__(self, attr):
        closures = self.__dict__.get("closures", {})
        if attr in closures:
            return closures[attr]
        raise AttributeError(f"rule {self.__dict__.get('name')!r} has no closure {attr!r}")


def stated(table: dict, rule: str, adjoint: str, syms: dict):
    """The stated rule ``rule.adjoint`` of ``table`` applied to the generic symbols named by its parameters.

    >>> stated({"f.grad_x": lambda a, b: a - b}, "f", "grad_x", {"a": 3, "b": 1})
    2
    """
    fn = table[f"{rule}.{adjoint}"]
    return fn(*[syms[a] for a in inspect.signature(fn).parameters])


def prove_equal(what: str, derived, want) -> None:
    """Raise RuleError unless derived − want is 0 (expand, then cancel, then simplify).

    >>> a = sympy.Symbol("a")
    >>> prove_equal("ok", (a + 1)**2, a**2 + 2*a + 1)
    >>> prove_equal("bad", a, 2 * a)
    Traceback (most recent call last):
    ...
    symgpt.core.prove.RuleError: bad: SymPy derives a, the stated rule is 2*a (difference -a)
    """
    diff = derived - want
    if isinstance(diff, sympy.MatrixBase):
        bad = [e for e in diff if not _is_zero(e)]
        if bad:
            raise RuleError(f"{what}: the derived matrix {derived} is not the stated rule {want}")
        return
    if not _is_zero(diff):
        raise RuleError(f"{what}: SymPy derives {derived}, the stated rule is {want} "
                        f"(difference {sympy.simplify(diff)})")


def _is_zero(e) -> bool:
    e = sympy.expand(e)
    return e == 0 or sympy.cancel(e) == 0 or sympy.simplify(e) == 0


def generic(what: str, per_index: list, renames: list, want) -> sympy.Expr:
    """The one expression over the generic symbols that every index's derivation gives.

    ``per_index[j]`` is the derived adjoint for index j over indexed symbols;
    ``renames[j]`` maps them to the generic ones.  Each must equal the stated rule ``want``.

    >>> x0, x1, x = sympy.symbols("x0 x1 x")
    >>> generic("double", [2 * x0, 2 * x1], [{x0: x}, {x1: x}], 2 * x)
    2*x
    """
    forms = [e.xreplace(r) for e, r in zip(per_index, renames)]
    for j, f in enumerate(forms):
        prove_equal(f"{what} at index {j}", f, want)
    return forms[0]


def _closure(name: str, expr, args: tuple):
    """f(*args) -> fmpq | arb, compiled from ``expr`` with symgpt.core.numeric.compile_expr."""
    extra = expr.free_symbols - set(args)
    if extra:
        raise RuleError(f"{name} = {expr} still depends on {sorted(map(str, extra))}, not only on {args}")
    f = compile_expr(expr, {a: i for i, a in enumerate(args)}, None)

    def rule(*values):
        return f(values)
    rule.__name__ = name
    rule.__doc__ = f"{name}({', '.join(map(str, args))}) = {expr}"
    rule.args, rule.expr = args, expr
    rule.compiled = True       # this function is its expression compiled, nothing more (symgpt.core.proofs keeps it)
    return rule


def closures(table: dict, rule: str, derived: dict, syms: dict) -> dict:
    """The numeric closure of every derived adjoint that ``table`` states, its arguments in the stated order."""
    out = {}
    for name, expr in derived.items():
        if f"{rule}.{name}" in table:
            params = tuple(syms[a] for a in inspect.signature(table[f"{rule}.{name}"]).parameters)
            out[name] = _closure(name, expr, params)
    return out


def real(names: str):
    """Real SymPy symbols (``sympy.symbols(names, real=True)``).

    >>> real("a b")
    (a, b)
    """
    return sympy.symbols(names, real=True)


def matrix(name: str, rows: int, cols: int) -> sympy.ImmutableMatrix:
    """A matrix of real symbols ``name{i}{j}``.

    >>> matrix("X", 1, 2)
    Matrix([[X00, X01]])
    """
    return sympy.ImmutableMatrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i}{j}", real=True))


def bilinear(table: dict, rule: str, forward, inputs: dict, adjoint: str, extra: dict | None = None) -> tuple:
    """Adjoints of Y = forward(inputs) by diff of Σ G∘Y, each proven equal to the stated matrix rule.

    Returns (Y, derived): derived[grad_<input>] is the matrix of ∂(Σ G∘Y)/∂input[i, j].

    >>> t = {"mm.grad_X": lambda G, W: G * W.T, "mm.grad_W": lambda X, G: X.T * G}
    >>> Y, d = bilinear(t, "mm", lambda X, W: X * W, {"X": matrix("X", 1, 2), "W": matrix("W", 2, 1)}, "G")
    >>> d["grad_X"]
    Matrix([[G00*W00, G00*W10]])
    """
    Y = forward(**inputs)
    G = matrix(adjoint, *Y.shape)
    L = sum((G[i, j] * Y[i, j] for i in range(Y.shape[0]) for j in range(Y.shape[1])), sympy.S.Zero)
    syms = {**inputs, adjoint: G, **(extra or {})}
    derived = {}
    for name, M in inputs.items():
        grad = sympy.ImmutableMatrix(*M.shape, lambda i, j: sympy.expand(sympy.diff(L, M[i, j])))
        prove_equal(f"{rule}.grad_{name}", grad, stated(table, rule, f"grad_{name}", syms))
        derived[f"grad_{name}"] = grad
    return Y, derived
