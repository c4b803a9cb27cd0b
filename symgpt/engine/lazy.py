"""The lazy per-scalar graph: a node's SymPy definition made when someone asks for it, at any size.

:class:`LazyGraph` answers what the callers of the full :class:`symgpt.core.graph.Graph`
ask of one node — ``nodes[name]`` (``expr``, ``inputs``, ``sym``, ``group``,
``index``, ``value``), ``definition``, ``sym``, ``closed_form``, ``depths``,
``by_sym`` — and builds only the nodes asked for and what their definitions
need.  Every definition is the full graph's (SymPy ``==``):

* a forward node is its layer's rule at one index (:mod:`symgpt.ops`
  registers the rule instead of defining every node: the same code);
* an adjoint is :func:`symgpt.core.graph.adjoint`, Σ over the node's consumers c of
  grad_c · fold(∂def_c/∂x), as :meth:`symgpt.core.graph.Graph.backward` writes it.
  The consumers come from each layer's ``uses`` maps (which of its indices read
  an input's index), not from a built graph.  Only consumers on the loss's path
  count (``needed``: some chain of consumers reaches the loss, found depth
  first, memoised, trying first the way the last path left the same tensor);
  a node off the path has the adjoint 0.  The full graph
  skips a consumer whose adjoint is literally 0 and writes a consumer's
  adjoint as a number when it is one: the adjoint of a node on the path is
  never literally 0 (its terms are nonzero local derivatives times distinct
  ``grad_c`` symbols, or the loss's 1), and only the loss's adjoint is a
  number, so neither needs the consumer's adjoint built (tests/test_lazy.py
  checks every node of several models against the full graph);
* the fold map (a forward node's definition → its symbol) is searched among
  the consumers of one symbol of the subexpression whose arity (each layer
  says how many inputs a node has) is its number of symbols: a node whose
  definition equals it uses every symbol in it and no other.

A node whose definition has other inputs than its layer's arity says is an
error, never a wrong adjoint.  Nothing
here visits every node: a definition costs its neighbourhood (its consumers'
definitions, for an adjoint), and a closed form can be bounded by the
definitions it reads (``max_nodes``).  What needs every node at once
(``order``) is refused.

>>> from symgpt.engine.spec import load_spec
>>> from symgpt.engine.models import differentiated
>>> g = differentiated(load_spec("derivations/tiny-transformer.toml"), lazy=True)
>>> g.definition("grad_logits[4]"), g.nodes["A[1,0]"].inputs
(p[4] - 1, ('A_den[1]', 'S[1,0]'))
>>> g.definition("grad_S[0,1]"), g.needed("S[0,1]")
(0, False)
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import sympy
from sympy import Symbol

from ..core.errors import LimitError
from ..core.graph import Decided, Group, Named, Node, _symbols, adjoint
from ..core.grid import _indices, _name, node_sym
from ..core.tensor import parse_node


class LazyGroup(Group):
    """A group whose node names are listed only when someone iterates them."""

    def __init__(self, name, shape, meaning, axes):
        super().__init__(name, tuple(shape), meaning, tuple(axes), None)

    @property
    def names(self) -> list:
        if self._names is None:
            self._names = [_name(self.name, i) for i in _indices(self.shape)]
        return self._names

    @names.setter
    def names(self, value) -> None:
        self._names = value


class LazyGraph(Named):
    """Each tensor's rule and consumers; nodes defined on demand and memoised (:attr:`built`).

    >>> from symgpt.engine.spec import load_spec
    >>> from symgpt.engine.models import differentiated
    >>> g = differentiated(load_spec("derivations/bigram.toml"), lazy=True)
    >>> g.closed_form("z[2]"), g.consumers("x[0]")
    (2/25, ['z[2]', 'z[1]', 'z[0]'])
    """

    lazy = True

    def __init__(self):
        self.groups: dict[str, Group] = {}
        self.built: dict[str, Node] = {}
        self.nodes = _Nodes(self)
        self.by_sym = _BySym(self)
        self.fold = _Fold(self)
        self.loss: str | None = None
        self.prefix = "grad_"
        self._rule: dict = {}                 # group → fn(idx), its definition at one index
        self._arity: dict = {}                # group → idx ↦ its number of inputs (or None)
        self._values: dict = {}               # parameter group → its exact values
        self._users = defaultdict(list)       # input group → [(consumer group, idx ↦ consumer indices)]
        self._forward: set = set()            # the forward groups (the fold map's), fixed by backward
        self._alive: set = set()              # nodes on the loss's path …
        self._dead: set = set()               # … and off it, as (group, index)
        self._prefer: dict = {}               # tensor → the consumer tensor its last path to the loss took
        self._touched: dict = {}

    # -- what the layers register --------------------------------------------------
    def group(self, name, shape, meaning, axes=()) -> None:
        self.groups.setdefault(name, LazyGroup(name, shape, meaning, axes))

    def lazy_tensor(self, group, shape, meaning, axes, fn, uses, arity=None) -> None:
        """``group[idx] = fn(idx)``; ``uses``: [(input group, idx_in ↦ indices of ``group`` using it)];
        ``arity(idx)``: the number of inputs of ``group[idx]`` (None: unknown)."""
        self.group(group, shape, meaning, axes)
        self._rule[group] = fn
        self._arity[group] = arity
        for inp, m in uses:
            self._users[inp].append((group, m))
        if self.loss is None:
            self._forward.add(group)

    def lazy_param(self, group, shape, meaning, axes, values) -> None:
        self.group(group, shape, meaning, axes)
        self._values[group] = values

    def backward(self, loss: str, prefix: str = "grad_") -> None:
        """The adjoints ``grad_<name>`` of :meth:`symgpt.core.graph.Graph.backward`, defined when asked for.

        A tensor gets adjoints when it is a parameter or some node of it is on the loss's path.
        """
        self.loss, self.prefix = loss, prefix
        for name in list(self.groups):
            src = self.groups[name]
            if name in self._values or self.touched(name):
                self.group(prefix + name, src.shape, f"∂{loss}/∂{name}", src.axes)

    def _reads(self, name: str) -> int:
        """The definitions substituting ``name`` reads: its own, and an adjoint's its consumers'
        (what :meth:`closed_form`'s ``max_nodes`` counts)."""
        group = parse_node(name)[0]
        if group in self._rule or group in self._values:
            return 1
        return 1 + len(self.consumers(name[len(self.prefix):]))

    @property
    def order(self):
        raise LimitError("the order of every node needs the full per-scalar graph; the lazy graph defines "
                         "nodes one at a time")

    # -- the consumers and the loss's path -------------------------------------------
    def _uses(self, key) -> list:
        """The forward nodes (group, index) whose definition holds the node ``key``, last first; first
        of all those of the tensor through which the loss's path last left ``key``'s tensor."""
        group, idx = key
        first = self._prefer.get(group)
        out = []
        for cg, m in sorted(reversed(self._users.get(group, ())), key=lambda u: u[0] != first):
            cis = m(idx)  # a list of index tuples
            out.extend([(cg, ci) for ci in reversed(cis)])
        return out

    def consumers(self, name: str) -> list:
        """The names of the forward nodes whose definitions use ``name``, last first."""
        return [_name(g, i) for g, i in self._uses(parse_node(name))]

    def needed(self, name: str) -> bool:
        """True when the loss depends on the node (a chain of consumers reaches it)."""
        return self._on_path(parse_node(name))

    def _on_path(self, key) -> bool:
        """Depth first along consumers, without recursion (a deep model has long chains); every node
        met is remembered on the path (``alive``) or off it (``dead``), whole lists tested at once."""
        alive, dead, loss = self._alive, self._dead, (self.loss, ())
        if key == loss or key in alive:
            return True
        if key in dead:
            return False
        stack = [[key, self._uses(key), 0]]  # [node, its consumers, the next one to try]
        while stack:
            frame = stack[-1]
            top, cs, i = frame
            if i == 0 and (loss in cs or not alive.isdisjoint(cs)):
                path = [f[0] for f in stack] + [next(c for c in cs if c == loss or c in alive)]
                for k, nxt in zip(path, path[1:]):
                    alive.add(k)
                    self._prefer[k[0]] = nxt[0]  # the next search from this tensor tries that way first
                return True
            if dead.issuperset(cs[i:]):
                dead.add(top)
                stack.pop()
                continue
            while cs[i] in dead:
                i += 1
            frame[2] = i + 1
            stack.append([cs[i], self._uses(cs[i]), 0])
        return False

    def touched(self, group: str) -> bool:
        """True when some node of the tensor is on the loss's path (its last nodes tried first)."""
        if group not in self._touched:
            shape = self.groups[group].shape
            self._touched[group] = any(self._on_path((group, i)) for i in reversed(_indices(shape)))
        return self._touched[group]

    # -- nodes -------------------------------------------------------------------------
    def _key(self, name):
        """(group, index) of an existing node's canonical name, else KeyError."""
        if not isinstance(name, str):
            raise KeyError(name)
        try:
            group, idx = parse_node(name)
        except ValueError:
            raise KeyError(name) from None
        g = self.groups.get(group)
        if g is None or len(idx) != len(g.shape) or any(not 0 <= i < n for i, n in zip(idx, g.shape)) \
                or _name(group, idx) != name:
            raise KeyError(name)
        return group, idx

    def node(self, name: str) -> Node:
        """The node, built on first use: a parameter, a forward rule at its index, or an adjoint."""
        n = self.built.get(name)
        if n is None:
            group, idx = self._key(name)
            if group in self._values:
                value = self._values[group]
                for i in idx:
                    value = value[i]
                n = Node(name, node_sym(group, idx), None, group, idx, (), value)
            else:
                expr = self._rule[group](idx) if group in self._rule else self._adjoint(name[len(self.prefix):])
                expr = sympy.Integer(expr) if isinstance(expr, int) else expr
                n = Node(name, node_sym(group, idx), expr, group, idx, tuple(s.name for s in _symbols(expr)))
                arity = self._arity.get(group)
                if arity is not None and arity(idx) != len(n.inputs) and self.loss not in (None, group):
                    raise ValueError(f"{name} has {len(n.inputs)} inputs and its layer's maps say {arity(idx)}: "
                                     f"its consumers would be wrong")
            self.built[name] = n
        return n

    def _adjoint(self, name: str) -> sympy.Expr:
        """grad_name = Σ_c grad_c · fold(∂def_c/∂name) over the consumers on the loss's path."""
        if name == self.loss:
            return sympy.S.One
        if not self.needed(name):
            return sympy.S.Zero
        uses = [(self.node(c).expr, sympy.S.One if c == self.loss else node_sym(self.prefix + c, ()))
                for c in self.consumers(name) if self.needed(c)]
        return adjoint(node_sym(name, ()), uses, self.fold)


class _Nodes(Mapping):
    """``nodes[name]``: built on first use; iterating lists every name (only a small model should)."""

    def __init__(self, g):
        self.g = g

    def __getitem__(self, name):
        return self.g.node(name)

    def __contains__(self, name):
        try:
            self.g._key(name)
        except KeyError:
            return False
        return True

    def __iter__(self):
        for grp in self.g.groups.values():
            yield from grp.names

    def __len__(self):
        return sum(len(_indices(grp.shape)) for grp in self.g.groups.values())


class _BySym(Mapping):
    """``by_sym[symbol]``: the node name of a node's symbol."""

    def __init__(self, g):
        self.g = g

    def __getitem__(self, s):
        if not isinstance(s, Symbol) or s.name not in self.g.nodes:
            raise KeyError(s)
        return s.name

    def __iter__(self):
        return (node_sym(*parse_node(n)) for n in self.g.nodes)

    def __len__(self):
        return len(self.g.nodes)


class _Fold:
    """The fold map of :meth:`symgpt.core.graph.Graph.backward` (a forward node's definition → its
    symbol), as a rule for ``xreplace``: a subexpression is looked up when it is met.

    A node whose definition equals the subexpression uses every symbol in it and no
    other, so it is among the consumers of any one of them (the one with the fewest is
    tried) whose arity is the number of its symbols.  The
    only forward definitions without symbols are the positional encoding's sin and cos.
    """

    def __init__(self, g):
        self.g = g
        self.memo: dict = {}
        self._constants: dict | None = None

    def __bool__(self):
        return True

    def __contains__(self, e):
        return self[e] is not None

    def __getitem__(self, e):
        if e not in self.memo:
            self.memo[e] = self._find(e)
        return self.memo[e]

    def get(self, e, default=None):  # what xreplace asks of an atom
        found = self[e]
        return default if found is None else found

    def _find(self, e):
        if e.is_Atom or isinstance(e, Decided):
            return None
        syms = e.free_symbols
        if not syms:
            return self.constants().get(e) if isinstance(e, (sympy.sin, sympy.cos)) else None
        best = None
        for s in syms:
            cs = self.g._uses(parse_node(s.name))
            if best is None or len(cs) < len(best):
                best = cs
        arity = self.g._arity
        found = [_name(*k) for k in best if arity.get(k[0]) is None or arity[k[0]](k[1]) == len(syms)]
        found = [c for c in found if _same(self.g.node(c).expr, e)]
        if len(found) > 1:
            raise ValueError(f"the definitions of {', '.join(found)} are equal: the fold map is ambiguous")
        return self.g.node(found[0]).sym if found else None

    def constants(self) -> dict:
        """{definition: symbol} of the forward nodes without inputs (the later one wins, as in a dict)."""
        if self._constants is None:
            self._constants = {}
            inputs = {g for users in self.g._users.values() for g, _ in users}
            for group in self.g._rule:
                if group in self.g._forward and group not in inputs:
                    for i in _indices(self.g.groups[group].shape):
                        e = self.g._rule[group](i)
                        if isinstance(e, sympy.Basic) and not e.is_Atom and not isinstance(e, Decided):
                            self._constants[e] = node_sym(group, i)
        return self._constants


def _same(a, b) -> bool:
    return a is not None and hash(a) == hash(b) and a == b
