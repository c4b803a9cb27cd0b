"""Certified values of every named quantity, computed one tensor at a time.

:class:`TensorEvaluator` has the interface of :class:`symgpt.core.numeric.Evaluator`
(``ball``, ``sign``, ``decide``, ``values``/``index``, ``expr_ball``,
``expr_sign``, ``exact_rational``, ``ties``, ``open``) but evaluates a
:class:`symgpt.engine.net.Net` instead of a per-scalar SymPy graph.  Its guarantees
are the same: exact rationals where the arithmetic is rational, balls
elsewhere, a steering sign decided by rising precision, and where balls cannot
decide, SymPy's exact test on the per-scalar graph, built only then
(``graph``, a callable) — an error rather than a guess.

>>> from symgpt.engine.spec import load_spec
>>> from symgpt.engine.net import Net
>>> ev = TensorEvaluator(Net(load_spec("derivations/bigram.toml")))
>>> ev.ball("z[2]", 64), ev.ball("grad_z[0]", 128).contains(ev.ball("p[0]", 128))
(2/25, True)
"""
from __future__ import annotations

from collections import OrderedDict

import sympy
from flint import ctx, fmpq

from ..core.errors import LimitError
from ..core.numeric import (
    MAX_PREC,
    Evaluator,
    UndecidableError,
    Undecided,
    certified_sign,
    certify,
    compile_expr,
    prec_for_digits,
    remembered_sign,
    sign_of,
)
from ..core.tensor import at, parse_node, tidy
from . import cost

KEEP = 3
"""How many precisions' values an evaluator keeps (the certify loop asks for a few in turn)."""


class _Values:
    """``vals[ev.index(name)]``: every value at one precision, read by node name."""

    def __init__(self, ev, prec):
        self.ev, self.prec = ev, prec

    def __getitem__(self, name):
        return self.ev.ball(name, self.prec)


class TensorEvaluator:
    """Values of every quantity of a :class:`symgpt.engine.net.Net` for given parameter values.

    ``leaves`` overrides parameters by node name (a training state's balls);
    ``graph()`` returns the per-scalar SymPy graph of the same model, for the
    exact tests balls cannot settle (called only then).
    """

    def __init__(self, net, leaves=None, graph=None, limits=None):
        self.net = net
        self.limits = limits  # when given, each new precision's pass is checked first (cost.check_pass)
        self.leaves = {} if leaves is None else leaves
        self.graph_fn = graph
        self.signs: dict[str, int] = {}
        self.zeros: set[str] = set()
        self.open: set[str] = set()
        self.failed: dict[str, tuple] = {}
        self._cache: OrderedDict = OrderedDict()  # prec -> [values dict, next stage]
        self._where = {out: i for i, st in enumerate(net.stages) for out in st.outputs}
        self._exprs: dict = {}
        self._fallback: Evaluator | None = None
        self._pending: dict = {}  # text -> a steering expression whose sign a stage waits for
        self._exact = all(isinstance(x, fmpq) for x in self.leaves.values())
        self._freed: dict[int, set] = {}       # prec -> the groups a lean pass freed
        self._dead_after: dict | None = None
        self.lean_fallbacks = 0                # lean passes that met a freed tensor and ran whole
        self.freed_groups: set[str] = set()   # every group a lean pass has freed (at any precision)

    # -- the computation ---------------------------------------------------------
    def _state(self, prec: int) -> list:
        st = self._cache.get(prec)
        if st is None:
            if self.limits is not None:
                cost.check_pass(self.net.spec, prec, self.limits, self.net.gradients)
            with ctx.workprec(prec):
                st = self._cache[prec] = [self.net.leaf_values(self.leaves), 0]
            while len(self._cache) > KEEP:
                self._freed.pop(self._cache.popitem(last=False)[0], None)
        else:
            self._cache.move_to_end(prec)
        return st

    def _run(self, prec: int, upto: int, lean: bool = False) -> dict:
        """Run the stages up to and including ``upto`` at ``prec`` bits; the signs an op steers on are decided on
        the way.  ``lean``: free each block's tensors once no later stage reads them (:meth:`lean`)."""
        st = self._state(prec)
        dead = self._dead() if lean else {}
        while st[1] <= upto:
            try:
                with ctx.workprec(prec):
                    while st[1] <= upto:
                        self.net.stages[st[1]].run(st[0], self)
                        for g in dead.get(st[1], ()):
                            if st[0].pop(g, None) is not None:
                                self._freed.setdefault(prec, set()).add(g)
                                self.freed_groups.add(g)
                        st[1] += 1
            except KeyError as e:   # a stage read a tensor a lean pass had freed: run it whole
                if not e.args or e.args[0] not in self._freed.get(prec, ()):
                    raise
                self.lean_fallbacks += 1
                self.forget(prec)
                return self._run(prec, upto)
            except Undecided as u:  # a steering input's sign: decide it (more bits, or SymPy), go on
                if u.name in self._pending:
                    self.signs[u.name] = self.expr_sign(self._pending.pop(u.name))
                else:
                    self.decide(u.name)
        return st[0]

    def group(self, group: str, prec: int):
        """A whole named tensor at ``prec`` bits (nested lists of fmpq and arb)."""
        if group in self.net.params:
            return self._state(prec)[0][group]
        if group not in self._where:
            raise KeyError(group)
        if group in self._freed.get(prec, ()):   # a lean pass freed it: this precision's pass again, whole
            self.forget(prec)
        return self._run(prec, self._where[group])[group]

    def lean(self, prec: int) -> bool:
        """Run every stage at ``prec`` bits, freeing a block's tensors as soon as the reverse pass has left it
        (:meth:`symgpt.engine.net.Net.dead_after`): the parameters' gradients of a deep model at a fraction of the
        memory.  A freed tensor asked for later is computed again (the whole pass at that precision).  True when
        the model is deep enough for anything to be freed.

        >>> from symgpt.engine.spec import load_spec
        >>> from symgpt.engine.net import Net
        >>> ev = TensorEvaluator(Net(load_spec("derivations/bigram.toml")))
        >>> ev.lean(64), ev.ball("grad_W[0,2]", 64).contains(ev.ball("grad_W[0,2]", 128))
        (False, True)
        """
        self._run(prec, len(self.net.stages) - 1, lean=True)
        return bool(self._dead())

    def free(self, group: str, prec: int) -> None:
        """Drop one computed tensor at ``prec`` bits (a gradient already read out); asked for again, it is
        computed again."""
        st = self._cache.get(prec)
        if st is not None and st[0].pop(group, None) is not None:
            self._freed.setdefault(prec, set()).add(group)
            self.freed_groups.add(group)

    def _dead(self) -> dict:
        if self._dead_after is None:
            self._dead_after = self.net.dead_after()
        return self._dead_after

    def ball(self, name: str, prec: int):
        """The node's value (fmpq, or an arb ball that contains it) at ``prec`` bits."""
        group, index = parse_node(name)
        return tidy(at(self.group(group, prec), index))

    def flat(self, group: str, prec: int) -> dict:
        """{node name: value} of a whole group at ``prec`` bits, row by row (a gradient tensor at once).

        >>> from symgpt.engine.spec import load_spec
        >>> from symgpt.engine.net import Net
        >>> TensorEvaluator(Net(load_spec("derivations/bigram.toml"))).flat("W", 64)["W[1,2]"]
        -1/2
        """
        cells = [self.group(group, prec)]
        while cells and isinstance(cells[0], list):  # nested lists, row by row
            cells = [x for r in cells for x in r]
        return {n: tidy(x) for n, x in zip(self.net.groups[group].names, cells)}

    def forget(self, prec: int) -> None:
        """Drop the tensors computed at ``prec`` bits (a later read at that precision recomputes them)."""
        self._cache.pop(prec, None)
        self._freed.pop(prec, None)

    def release(self) -> None:
        """Drop every computed tensor (kept: leaves and decided signs); a later read recomputes.

        A training trace keeps one evaluator per state for reading its nodes: released, a
        state costs its parameters, not every activation of the model."""
        self._cache.clear()
        self._freed.clear()

    def index(self, name: str) -> str:
        """The key of ``name`` in :meth:`values` (the name itself)."""
        return name

    def values(self, prec: int) -> _Values:
        """Every value at ``prec`` bits (all stages run), read as ``vals[ev.index(name)]``."""
        self._run(prec, len(self.net.stages) - 1)
        return _Values(self, prec)

    # -- decisions ------------------------------------------------------------------
    def exact(self) -> bool:
        """True when every leaf is exact (so SymPy's zero test applies)."""
        return self._exact

    def _sign_of(self, name: str, v):
        s = self.signs.get(name)
        if s is not None:
            return s
        s = sign_of(v)
        if s is None:
            if self._exact:
                raise Undecided(name)
            self.open.add(name)  # a ball at a trace state: both branches, soundly (the op's hull)
            return None
        self.signs[name] = s
        if s == 0:
            self.zeros.add(name)
        return s

    def steering_sign(self, name: str, z):
        """The decided sign of the node ``name`` (value ``z``) that steers an op's branch, or None when it is
        open at a trace state (the op then encloses both branches); an undecided sign is decided first."""
        return self._sign_of(name, z)

    def expr_decision(self, expr) -> int:
        """The sign of an expression over earlier nodes that steers a stage (memoised by its text);
        inside a stage it raises Undecided, so that it is decided (:meth:`expr_sign`) before the stage reruns."""
        key = str(expr)
        s = self.signs.get(key)
        if s is None:
            self._pending[key] = expr
            raise Undecided(key)
        return s

    @property
    def ties(self) -> set:
        """Steering inputs proven exactly 0: where an op's tie rule was used (its ``otherwise`` branch)."""
        return {n for n in self.zeros if parse_node(n)[0] in self.net.steering}

    def sign(self, name: str) -> int:
        """The exact sign of a node: -1, 0 or 1, decided rigorously."""
        return self.decide(name)

    def decide(self, name: str) -> int:
        """The sign of a node (memoised): balls at rising precision, then SymPy on the graph."""
        stop = MAX_PREC if self._exact else 2 * max(self._cache, default=64)

        def ball_at(prec):  # a precision beyond the limits ends the climb (the exact test still runs)
            try:
                return self.ball(name, prec)
            except LimitError as e:
                raise UndecidableError(str(e)) from None
        return remembered_sign(self, name, self._exact, lambda: certified_sign(
            ball_at, name, self._exact_test(sympy.Symbol(name, real=True)), stop, balls=not self._exact))

    def fallback(self) -> Evaluator:
        """The per-scalar evaluator of the same model (built on first use), sharing the decided signs.

        UndecidableError when there is none, or when its graph is beyond ``limits.max_ops``."""
        if self._fallback is None:
            if self.graph_fn is None:
                raise UndecidableError("no exact test available: the enclosure contains 0")
            try:
                graph = self.graph_fn()
            except LimitError as e:
                raise UndecidableError(f"the exact test needs the per-scalar graph, and {e}") from None
            ev = Evaluator(graph, dict(self.leaves))
            ev.signs, ev.zeros = self.signs, self.zeros
            self._fallback = ev
        return self._fallback

    # -- expressions over node symbols ---------------------------------------------------
    def _compiled(self, expr):
        f = self._exprs.get(expr)
        if f is None:
            syms = sorted(expr.free_symbols, key=lambda s: s.name)
            slot = {s: i for i, s in enumerate(syms)}
            names = [s.name for s in syms]
            f = self._exprs[expr] = (compile_expr(expr, slot, lambda i, v: self._expr_sign_of(names[i], v)), names)
        return f

    def _expr_sign_of(self, name: str, v):
        """A steering sign inside an expression: decided on the spot when its ball straddles 0."""
        try:
            return self._sign_of(name, v)
        except Undecided:
            return self.decide(name)

    def expr_ball(self, expr, prec: int):
        """An expression over node symbols, enclosed at ``prec`` bits."""
        f, names = self._compiled(expr)
        vals = [self.ball(n, prec) for n in names]
        with ctx.workprec(prec):
            return f(vals)

    def expr_sign(self, expr) -> int:
        """The exact sign of an expression over node symbols."""
        if isinstance(expr, sympy.Symbol):
            return self.decide(expr.name)
        return certified_sign(lambda prec: self.expr_ball(expr, prec), expr, self._exact_test(expr),
                              balls=not self._exact)

    def exact_rational(self, expr) -> fmpq | None:
        """The exact value of an expression over node symbols when SymPy shows it is rational
        (None when it does not, or when the per-scalar graph is beyond the limits)."""
        if not self._exact or self.graph_fn is None:
            return None
        try:
            return self.fallback().exact_rational(expr)
        except UndecidableError:
            return None

    def _exact_test(self, expr):
        """SymPy's exact zero test of ``expr`` for :func:`certify`, when the leaves are exact and there is a graph."""
        return (lambda: self._zero_or_none(expr)) if self._exact and self.graph_fn else None

    def _zero_or_none(self, expr):
        try:
            return self.fallback()._exact_zero(expr)
        except UndecidableError:
            return None

    def exact_zero(self, name: str) -> bool:
        """True when SymPy proves the node exactly 0 (False: not proven, or no graph within the limits)."""
        if not self._exact or self.graph_fn is None:
            return False
        try:
            return self.fallback()._exact_zero(sympy.Symbol(name, real=True)) is not None
        except UndecidableError:
            return False

    def certified_expr(self, expr, fmt, digits_hint: int):
        """``fmt`` of an expression over node symbols, certified (see :func:`symgpt.core.numeric.certify`)."""
        return certify(lambda prec: self.expr_ball(expr, prec), fmt, what=f"the rounding of {expr}",
                       exact=lambda: self.exact_rational(expr), start=prec_for_digits(digits_hint)).value

    def certified(self, name, fmt, digits_hint: int):
        """``fmt`` of a node's value, certified."""
        return certify(lambda prec: self.ball(name, prec), fmt, what=f"the rounding of {name}",
                       exact=lambda: self.exact_rational(sympy.Symbol(name, real=True)),
                       start=prec_for_digits(digits_hint)).value
