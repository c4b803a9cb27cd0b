"""The named-node graph: small exact definitions, closed forms, reverse mode.

A model is a list of named quantities (``H0[1,0]``, ``A[1,0]``, ``loss``), each
defined by a *small* SymPy expression of earlier nodes' symbols.  Parameters
are leaves.  Gradients are nodes too (``grad_W_Q[0,1]``): each adjoint is the
sum over consumers of ``grad_consumer · ∂definition/∂node``, with the partial
derivative taken by SymPy's ``diff`` and re-folded onto named quantities.

>>> g = Graph()
>>> x = g.param("x[0]", "x", (0,), sympy.Rational(3, 10))
>>> y = g.define("y", "y", (), x**2 + 1)
>>> g.closed_form("y")
109/100
>>> g.backward("y")
>>> g.definition("grad_x[0]")
2*x[0]
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import sympy
from sympy import Symbol


class Decided(sympy.Function):
    """A function of one node whose value is one of two branches, chosen by the node's sign.

    The sign is decided rigorously (an exact rational, a ball at rising precision, SymPy's exact test), never
    guessed; a sign of 0 takes the ``otherwise`` branch (the documented tie rule).  Each op that steers on a
    sign (:mod:`symgpt.ops`: an activation and its derivative) defines a subclass with ``branches(x)`` — the
    SymPy pair (if x > 0, otherwise) — and ``ball(x, sign)``, ``floats(x)``: the value of a ball (both
    branches' hull when ``sign`` is None, an open sign at a training state) and of a float64.

    >>> class Pos(Decided):
    ...     @staticmethod
    ...     def branches(x):
    ...         return sympy.S.One, sympy.S.Zero
    >>> x = sympy.Symbol("x", real=True)
    >>> Pos(sympy.Rational(1, 2)), Pos(0), Pos(x).branch(-1)
    (1, 0, 0)
    """

    @classmethod
    def eval(cls, x):
        if x.is_Rational:
            return cls.branches(x)[0 if x > 0 else 1]

    def branch(self, sign: int):
        """The expression the node's decided sign selects."""
        return self.branches(self.args[0])[0 if sign > 0 else 1]


def decided(expr) -> set:
    """The sign-steered functions in an expression (:class:`Decided`).

    >>> decided(sympy.Symbol("x") + 1)
    set()
    """
    return expr.atoms(Decided)


class TooManyDefinitions(ValueError):
    """A closed form that would substitute more definitions than asked (``max_nodes``)."""


class _Above(Exception):
    """:meth:`Named.written_size` passed its cap."""


@dataclass
class Node:
    name: str
    sym: Symbol
    expr: sympy.Expr | None  # None for a parameter (leaf)
    group: str
    index: tuple
    inputs: tuple = ()
    value: sympy.Rational | None = None  # a parameter's exact value


@dataclass
class Group:
    """A tensor of nodes: ``H0`` with shape (2, 2) and axes ("t", "j")."""
    name: str
    shape: tuple
    meaning: str
    axes: tuple
    names: list = field(default_factory=list)


class Named:
    """What reading a graph needs: ``nodes`` (name → :class:`Node`) and ``by_sym``; shared by the
    full :class:`Graph` and the lazy one (:class:`symgpt.engine.lazy.LazyGraph`), so their definitions,
    closed forms and depths are computed by the same code."""

    lazy = False  # layers define every node now (False) or register each tensor's rule (True)

    def sym(self, name) -> Symbol:
        return self.nodes[name].sym

    def definition(self, name) -> sympy.Expr:
        """The node's own small definition (a parameter is its value)."""
        n = self.nodes[name]
        return n.value if n.expr is None else n.expr

    # -- closed forms ---------------------------------------------------
    def closed_form(self, name, stop=lambda node: False, decide=None, max_ops=20000, max_nodes=None):
        """Substitute definitions until only numbers (or ``stop`` nodes) remain.

        ``decide(name) -> sign`` resolves the sign-steered functions of a node; without it
        they stay symbolic.  Raises ValueError past ``max_ops`` operations
        (None: no limit, for the naive one-expression benchmark), or when it
        would read more than ``max_nodes`` definitions (None: no limit; a bound
        on the work, for a model whose nodes are built on demand: each
        substituted node's own definition, and for the lazy graph's adjoint
        its consumers', :meth:`_reads`).

        >>> g = Graph(); x = g.param("x", "x", (), 2)
        >>> y = g.define("y", "y", (), x + 1); z = g.define("z", "z", (), y * y)
        >>> g.closed_form("z"), g.closed_form("z", stop=lambda node: node.name == "y")
        (9, y**2)
        >>> g.closed_form("z", max_nodes=1)
        Traceback (most recent call last):
        ...
        symgpt.core.graph.TooManyDefinitions: the closed form of z reads more than 1 definitions; ...
        """
        memo: dict[str, sympy.Expr] = {}
        substituted = [0]

        def walk(n: str) -> sympy.Expr:
            if n in memo:
                return memo[n]
            node = self.nodes[n]
            if stop(node):
                out = node.sym
            elif node.expr is None:
                out = node.value
            else:
                substituted[0] += self._reads(n)
                if max_nodes is not None and substituted[0] > max_nodes:
                    raise TooManyDefinitions(f"the closed form of {name} reads more than {max_nodes} "
                                             f"definitions; use definition({name!r}) or a smaller model")
                out = _resolve(node.expr, decide, self)
                # zeros first: a weight that is 0 drops its product before the other factor is built
                # (SymPy's 0·x asks whether a huge x is finite, which took minutes); the other numbers go
                # in with the rest, so the expression SymPy's proofs see keeps its shape
                zeros = {self.nodes[i].sym: sympy.S.Zero for i in node.inputs
                         if self.nodes[i].expr is None and self.nodes[i].value == 0 and not stop(self.nodes[i])}
                out = out.xreplace(zeros) if zeros else out
                out = out.xreplace({self.nodes[i].sym: walk(i) for i in node.inputs})
                if max_ops is not None and _size_exceeds(out, max_ops):
                    raise ValueError(
                        f"the closed form of {n} has more than {max_ops} operations; "
                        f"use definition({n!r}) or a smaller model")
            memo[n] = out
            return out

        return walk(name)

    def written_size(self, name, stop=lambda node: False, decide=None, cap: int = 20000) -> int:
        """The size of :meth:`closed_form` written out, estimated before it is built: the nodes of its tree
        with every definition substituted in full (numbers first, as :meth:`closed_form` does), before SymPy
        collects terms; ``cap + 1`` as soon as it is known to be above ``cap``.

        Building a closed form costs time by this size (SymPy's constructors look at the whole argument
        of an ``exp``), not by the size of the result, so a refusal is decided on it without the work:
        a walk of at most ``cap`` distinct nodes.

        >>> g = Graph(); x = g.param("x", "x", (), 2); w = g.param("w", "w", (), 0)
        >>> y = g.define("y", "y", (), sympy.exp(x)); z = g.define("z", "z", (), y * y + w * y)
        >>> g.written_size("y"), g.written_size("z"), g.written_size("z", cap=3), g.closed_form("z")
        (2, 4, 4, exp(4))
        """
        memo: dict[str, int] = {}

        def size(n: str) -> int:
            if n in memo:
                return memo[n]
            node = self.nodes[n]
            if stop(node) or node.expr is None:
                memo[n] = 1
                return 1
            if len(memo) > cap:   # every node walked appears at least once in the tree
                raise _Above
            e = _resolve(node.expr, decide, self)
            numbers = {self.nodes[i].sym: self.nodes[i].value for i in node.inputs
                       if self.nodes[i].expr is None and not stop(self.nodes[i])}
            e = e.xreplace(numbers) if numbers else e
            total = 0
            for a in sympy.preorder_traversal(e):
                total += size(self.by_sym[a]) if a.is_Symbol and a in self.by_sym else 1
                if total > cap:   # a node's tree is inside the tree of every node that reads it
                    raise _Above
            memo[n] = total
            return total

        try:
            return size(name)
        except _Above:
            return cap + 1

    def _reads(self, name: str) -> int:
        """The definitions substituting ``name`` reads (its own)."""
        return 1

    def depths(self, name, k: int) -> set:
        """The nodes fewer than ``k`` definitions away from ``name`` (itself included):
        what an expansion ``k`` levels deep substitutes.

        >>> g = Graph(); x = g.param("x", "x", (), 1)
        >>> y = g.define("y", "y", (), x + 1); z = g.define("z", "z", (), 2 * y)
        >>> sorted(g.depths("z", 2)), sorted(g.depths("z", 1))
        (['y', 'z'], ['z'])
        """
        seen, layer = {name}, [name]
        for _ in range(k - 1):
            layer = [i for n in layer for i in self.nodes[n].inputs if i not in seen]
            seen.update(layer)
        return seen


class Graph(Named):
    """Named nodes in definition (topological) order."""

    def __init__(self):
        self.nodes: dict[str, Node] = {}
        self.order: list[str] = []
        self.groups: dict[str, Group] = {}
        self.by_sym: dict[Symbol, str] = {}

    # -- building -------------------------------------------------------
    def group(self, name, shape, meaning, axes=()) -> None:
        """Register the tensor ``name`` (its nodes are added afterwards)."""
        self.groups.setdefault(name, Group(name, tuple(shape), meaning, tuple(axes)))

    def _add(self, node: Node) -> Symbol:
        if node.name in self.nodes:
            raise ValueError(f"node {node.name} defined twice")
        self.nodes[node.name] = node
        self.order.append(node.name)
        self.by_sym[node.sym] = node.name
        if node.group in self.groups:
            self.groups[node.group].names.append(node.name)
        return node.sym

    def param(self, name, group, index, value) -> Symbol:
        """A leaf with an exact value."""
        return self._add(Node(name, Symbol(name, real=True), None, group, tuple(index), (), value))

    def define(self, name, group, index, expr) -> Symbol:
        """A node defined by a small expression of earlier nodes."""
        expr = sympy.Integer(expr) if isinstance(expr, int) else expr
        inputs = tuple(self.by_sym[s] for s in _symbols(expr))
        return self._add(Node(name, Symbol(name, real=True), expr, group, tuple(index), inputs))

    def expand(self, name, span: int, decide=None, max_ops=2000) -> sympy.Expr:
        """The closed form down to a cut: nodes defined more than ``span``
        places before ``name`` stay symbols (parameters become values).

        A consistent cut, so an expansion that is identically 0 in the
        remaining symbols proves the node is exactly 0.
        """
        pos = {n: i for i, n in enumerate(self.order)}
        cut = pos[name] - span
        return self.closed_form(name, stop=lambda node: node.expr is not None and pos[node.name] < cut,
                                decide=decide, max_ops=max_ops)

    # -- reverse mode ---------------------------------------------------
    def backward(self, loss: str, prefix: str = "grad_") -> None:
        """Add ``grad_<name>`` for every node the loss depends on.

        Each adjoint is Σ_consumers grad_c · fold(∂def_c/∂node), so its
        definition stays as small as the forward definitions it comes from.
        """
        needed = self.ancestors(loss)
        consumers = defaultdict(list)
        for n in self.order:
            if n in needed:
                for i in self.nodes[n].inputs:
                    consumers[i].append(n)
        fold = self._fold_map()
        grads: dict[str, sympy.Expr] = {}
        # nodes off the loss's path get a zero adjoint when they are parameters or
        # share a tensor with nodes on it (so grad_Z is whole even if Z[0,·] is unused)
        touched = {self.nodes[m].group for m in needed}
        idle = [m for m in self.order if m not in needed
                and (self.nodes[m].expr is None or self.nodes[m].group in touched)]
        for n in reversed([m for m in self.order if m in needed] + idle):
            node = self.nodes[n]
            if n == loss:
                total = sympy.S.One
            elif n not in needed:  # the loss does not depend on it
                total = sympy.S.Zero
            else:
                uses = [(self.nodes[c].expr, grads[c] if grads[c].is_Number else self.nodes[prefix + c].sym)
                        for c in consumers[n] if grads[c] != 0]
                total = adjoint(node.sym, uses, fold)
            gname = prefix + n
            ggroup = prefix + node.group
            if ggroup not in self.groups and node.group in self.groups:
                src = self.groups[node.group]
                self.group(ggroup, src.shape, f"∂{loss}/∂{node.group}", src.axes)
            self.define(gname, ggroup, node.index, total)
            grads[n] = total

    def ancestors(self, name) -> set:
        """Every node ``name`` depends on, itself included."""
        seen, stack = {name}, [name]
        while stack:
            for i in self.nodes[stack.pop()].inputs:
                if i not in seen:
                    seen.add(i)
                    stack.append(i)
        return seen

    def _fold_map(self) -> dict:
        """definition → symbol for every compound node (sum_exp, p[j], A[t,s], …)."""
        return {node.expr: node.sym for node in self.nodes.values()
                if node.expr is not None and not node.expr.is_Atom and not isinstance(node.expr, Decided)}


def adjoint(x, uses, fold) -> sympy.Expr:
    """Σ_c grad_c · fold(∂def_c/∂x) over the consumers c of x, given as (def_c, grad_c) pairs:
    the one adjoint rule of :meth:`Graph.backward` and of the lazy graph (:mod:`symgpt.engine.lazy`).

    ``fold`` maps a subexpression that is some node's definition to that node's symbol.

    >>> x, y, gy, s = sympy.symbols("x y grad_y s")
    >>> adjoint(x, [(sympy.exp(x) / s, gy), (x * y, 1)], {sympy.exp(x) / s: y})
    grad_y*y + y
    """
    return sympy.Add(*[g * _fold(local_diff(expr, x), fold) for expr, g in uses])


def local_diff(expr, x):
    """∂expr/∂x by the sum and product rules, SymPy's ``diff`` for the rest.

    Only the terms and factors that contain x are differentiated, which is
    what makes reverse mode over wide sums (Σ_k e^{z_k}) cheap.

    >>> a, b, x = sympy.symbols("a b x")
    >>> local_diff(a * x**2 + b * sympy.exp(x) + a * b, x)
    2*a*x + b*exp(x)
    """
    if expr.is_Add:
        return sympy.Add(*[local_diff(t, x) for t in expr.args if x in t.free_symbols])
    if expr.is_Mul:
        args = expr.args
        return sympy.Add(*[sympy.Mul(*args[:i], local_diff(f, x), *args[i + 1:])
                           for i, f in enumerate(args) if x in f.free_symbols])
    return sympy.diff(expr, x)


def _fold(expr, fold_map, rounds=3):
    """Re-fold subexpressions that are some node's definition onto its name."""
    for _ in range(rounds):
        new = expr.xreplace(fold_map)
        if new == expr:
            break
        expr = new
    return expr


def _resolve(expr, decide, graph):
    """Replace each sign-steered function of a node x (:class:`Decided`) by the branch its decided sign selects."""
    found = decided(expr) if decide is not None else ()
    if not found:
        return expr
    return expr.xreplace({f: f.branch(decide(graph.by_sym[f.args[0]])) for f in found})


def _symbols(expr) -> list:
    """Free symbols in a stable order (first appearance, depth first)."""
    seen: dict = {}
    for a in sympy.preorder_traversal(expr):
        if a.is_Symbol:
            seen.setdefault(a, None)
    return list(seen)


def _size_exceeds(expr, limit: int) -> bool:
    """True when the expression has more than ``limit`` operations (count_ops).

    A tree walk that stops early guards count_ops, which would otherwise
    walk a huge shared-subtree expression in full.
    """
    n = 0
    for _ in sympy.preorder_traversal(expr):
        n += 1
        if n > 8 * limit + 64:
            return True
    return sympy.count_ops(expr) > limit
