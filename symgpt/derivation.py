"""A loaded derivation: the REPL's view of a spec, its graph and its values.

>>> import symgpt
>>> d = symgpt.load("tiny-transformer")
>>> d.closed_form("H0[1,0]")
7/10 + sin(1)
>>> d.value("loss", digits=24)
'2.46737302749765479995003'
>>> d.value("A[1,0]", decimals=3), d.value("p[你]", decimals=4)
('0.454', '0.0848')
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import sympy
from flint import arb

from .claims.refs import bind, parse  # the claims' own parser: one vocabulary
from .core import dwball
from .core.errors import InputError, LimitError
from .core.files import resolved
from .core.graph import Graph, Named, TooManyDefinitions
from .core.limits import Limits
from .core.markup import printed_mpf
from .core.numeric import UndecidableError, certify, count, magnitude, prec_for_digits, to_mpf
from .core.resources import DERIVATIONS
from .core.tensor import parse_node, tidy
from .documents import display
from .engine import cost, layouts
from .engine.lazy import LazyGraph
from .engine.models import differentiated
from .engine.names import OPTIMIZERS, Names, Ref, RefError
from .engine.net import Net
from .engine.skeleton import Skeleton
from .engine.spec import Spec, SpecError, load_spec
from .engine.values import TensorEvaluator
from .floats import balls
from .training.train import Trace, max_prec, precision, rounding
from .training.update_order import WrongOrderTrace

GRADIENT_MARGIN = 64
"""Bits above :func:`symgpt.core.numeric.prec_for_digits` at which :meth:`Derivation.value` and
:meth:`Derivation.gradient` start: a pass through a few layers' sums costs some 50 bits of the balls'
accuracy, below 512 bits a pass costs the same, and a value and the gradient then share one pass."""
LAYER_MARGIN = 6
"""Bits more per block past the first, times log2 T: a block costs the balls some 15 bits forward and 15 more back
at T = 64 and some 45 in all at T = 256 (measured on nanoGPT's seeded init), so a deep model's first pass is its
only one."""

_NAME = re.compile(r"[\w.]+(\[[^\[\]]*\])?(\.[\w.]+(\[[^\[\]]*\])?)*")   # one name, not an expression

WRITTEN = 20000
"""The size written out (:meth:`symgpt.core.graph.Named.written_size`) up to which :meth:`Derivation.closed_form`
builds a closed form whatever its ``max_ops``: on the seed the slowest such, built and printed, takes some 10 s here."""


def _stop(name: str):
    """Where a closed form stops: a gradient at the forward quantities it is written in, else nowhere."""
    if name.startswith("grad_"):
        return lambda node: not node.name.startswith("grad_")
    return lambda node: False


__all__ = ["DERIVATIONS", "Derivation", "RefError", "find_spec", "load", "ref_text"]


def ref_text(ref) -> str:
    """A quantity name given to the REPL: a non-empty string.

    >>> ref_text(" loss "), ref_text("p['你']"), ref_text('E["我", 1] + 1')
    ('loss', 'p[你]', 'E[我, 1] + 1')
    >>> ref_text(0.5)
    Traceback (most recent call last):
    ...
    symgpt.engine.names.RefError: ref: expected a quantity name such as 'loss' or 'p[你]' (a string), got 0.5
    """
    if not isinstance(ref, str) or not ref.strip():
        raise RefError(f"ref: expected a quantity name such as 'loss' or 'p[你]' (a string), got {ref!r}")
    return _QUOTED.sub(lambda m: m[1] + m[3], ref.strip())


_QUOTED = re.compile(r"""([\[,]\s*)(['"])([^'"\[\],]+)\2(?=\s*[\],])""")
# a token written in quotes inside brackets (p['你'], E["dog", 0]): the quotes are only a way to write it


_NODE = re.compile(r"[A-Za-z_][\w.]*(\[\d+(,\d+)*\])?")
"""A plain node name (``l0.Z[1,2]``, ``loss``): not a training state (``sgd[1].E[0,0]``)."""
_SIGNIFICANT = {1: balls.significant, 2: dwball.significant}
"""Each ball tier's certified rounding, by its words (1: float64, 2: double-word)."""


def _tier(tier, allowed) -> None:
    if tier not in allowed:
        raise InputError(f"tier: expected one of {', '.join(map(repr, allowed))}, got {tier!r}")


def find_spec(name_or_path) -> Path:
    """``derivations/NAME.toml`` for a name (the shipped specs, :mod:`symgpt.core.resources`); a path as it is.

    >>> find_spec("bigram").name
    'bigram.toml'
    >>> find_spec("bigrma")
    Traceback (most recent call last):
    ...
    symgpt.engine.spec.SpecError: bigrma: no such derivation; known: bigram, tiny-transformer
    >>> import os; os.path.exists("bigram.toml")
    False
    >>> find_spec("bigram.toml")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.engine.spec.SpecError: bigram.toml: no such spec file here; a shipped spec has that name: ask for it by
        name, `symgpt render bigram` (symgpt.load('bigram') in Python)
    >>> find_spec("derivations/bigram.claims.toml")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.engine.spec.SpecError: derivations/bigram.claims.toml: a claims file, not a spec: give the spec
        its `spec` key names (symgpt verify checks a claims file)
    """
    if isinstance(name_or_path, str) and not name_or_path.strip():
        raise SpecError(f"expected a spec name such as bigram or a spec file, got {name_or_path!r}")
    p = Path(name_or_path)
    if p.name.endswith(".claims.toml"):
        raise SpecError(f"{name_or_path}: a claims file, not a spec: give the spec its `spec` key names "
                        f"(symgpt verify checks a claims file)")
    if p.is_symlink():
        resolved(p, "spec")   # a loop of links is refused here, by name, for every command
    if p.suffix == ".toml" and not p.exists() and (DERIVATIONS / p.name).is_file() and len(p.parts) == 1:
        raise SpecError(f"{name_or_path}: no such spec file here; a shipped spec has that name: ask for it by name, "
                        f"`symgpt render {p.stem}` (symgpt.load({p.stem!r}) in Python)")
    if p.suffix == ".toml" or p.exists():
        return p
    found = DERIVATIONS / f"{name_or_path}.toml"
    if not found.exists():
        known = sorted(q.stem for q in DERIVATIONS.glob("*.toml") if not q.stem.endswith(".claims"))
        if not known:
            raise SpecError(f"{name_or_path}: no such derivation; no specs in {DERIVATIONS} (a broken install?)")
        raise SpecError(f"{name_or_path}: no such derivation; known: {', '.join(known)}")
    return found


def load(name_or_path, limits: Limits | None = None) -> Derivation:
    """Load a derivation by name (``derivations/NAME.toml``) or by path.

    >>> load("bigram").spec.vocab
    ('猫', '吃', '鱼')
    >>> load(3)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: name_or_path: expected a derivation name such as 'bigram' or a path to a .toml spec,
    got 3
    """
    if not isinstance(name_or_path, (str, os.PathLike)) or not str(name_or_path).strip():
        raise InputError(f"name_or_path: expected a derivation name such as 'bigram' or a path to a .toml "
                         f"spec, got {name_or_path!r}")
    if limits is not None and not isinstance(limits, Limits):
        raise InputError(f"limits: expected symgpt.Limits(max_ops=…, max_digits=…) or None, got {limits!r}")
    return Derivation(load_spec(find_spec(name_or_path), limits), limits=limits)


class Derivation:
    """Forward and backward graph of one spec, with certified values.

    Every name goes through one :class:`symgpt.engine.names.Names`.  The engine's parts (``_net``, ``_ev``,
    ``_skeleton``, ``_registry``) are private: ``dir(d)`` shows the REPL's API.
    """

    def __init__(self, spec: Spec, tokens=None, target=None, gradients=True, limits: Limits | None = None):
        self.spec = spec
        self.limits = limits or Limits()
        self.cost = cost.check_values(spec, self.limits, gradients)  # before any tensor is computed
        self._example = (tokens, target, gradients)
        self._net = Net(spec, tokens, target, gradients)
        self._graph: Graph | None = None
        self._lazy: LazyGraph | None = None
        self._skeleton = Skeleton(self._net, lambda: self.graph, lambda: self.definitions)
        self._ev = TensorEvaluator(self._net, graph=lambda: self.graph, limits=self.limits)
        self._registry = Names(spec, self._skeleton, ev=self._ev, trace=self.trace)
        self._traces: dict = {}
        self._tiers: dict = {}                # words (1: float64, 2: double-word) → (balls by group or None, why not)

    @property
    def graph(self) -> Graph:
        """The per-scalar SymPy graph (closed forms, definitions, documents), built on first use.

        Values never need it: they come from the tensor engine one tensor at a time.  Its
        size is checked against ``limits.max_ops`` before it is built
        (:func:`symgpt.engine.cost.check_graph`).
        """
        if self._graph is None:
            cost.check_graph(self.spec, self.limits, self._example[2])
            self._graph = differentiated(self.spec, *self._example)
        return self._graph

    @property
    def definitions(self) -> Named:
        """The per-scalar definitions: the full :attr:`graph` within ``limits.max_ops``, else the
        lazy graph (:class:`symgpt.engine.lazy.LazyGraph`), which defines a node when it is asked for.

        Either gives the same definition of every node; what needs every node at once
        (:attr:`graph`'s ``order``, a document) still refuses beyond the limits.

        >>> from symgpt import Limits
        >>> d = load("tiny-transformer", Limits(max_ops=1000))
        >>> type(d.definitions).__name__, d.definition("grad_logits[你]")
        ('LazyGraph', p[你] - 1)
        """
        if self._graph is None and self._lazy is None:
            try:
                return self.graph
            except LimitError:
                self._lazy = differentiated(self.spec, *self._example, lazy=True)
        return self._graph if self._graph is not None else self._lazy

    # -- how a notebook shows it (symgpt.documents.display) ------------------------------------
    def __repr__(self) -> str:
        """One line, computing nothing.

        >>> load("tiny-transformer")
        <Derivation tiny-transformer: transformer V=6 d=2 heads=1 d_ff=4 layers=1 T=2, 309 quantities>
        """
        return display.derivation_repr(self)

    def _repr_markdown_(self) -> str:
        return display.derivation_markdown(self)

    def _repr_latex_(self) -> str:
        return display.derivation_latex(self)

    def __getitem__(self, ref) -> display.Quantity:
        """``d["A[1,0]"]``: the quantity as a notebook shows it (:meth:`show`)."""
        return self.show(ref)

    def show(self, ref, digits: int = display.DIGITS) -> display.Quantity:
        """One quantity for display: definition, worked line, closed form, value at ``digits`` digits.

        In Jupyter it shows as Markdown (or LaTeX); in a terminal as one line.

        >>> load("bigram").show("loss")
        <Quantity loss = 1.05147013560 (cross-entropy −ln p[target])>
        """
        text = ref_text(ref)
        if not _NAME.fullmatch(text):   # arithmetic or a function: a value, not one quantity to show
            raise RefError(f"{text}: d[…] and show() show one named quantity; d.value({text!r}) evaluates an "
                           f"expression, d.closed_form({text!r}) gives its closed form")
        return display.Quantity(self, text, display.check_digits(digits))

    def ref(self, name: str) -> Ref:
        """The resolved quantity of any name (see :mod:`symgpt.engine.names`).

        >>> load("bigram").ref("p[鱼]").name
        'p[2]'
        """
        return self._registry.ref(ref_text(name))

    def _quantity(self, ref):
        """A name's :class:`Ref`, or any other claims expression bound to this derivation
        (:func:`symgpt.claims.refs.bind`): both have ``ball(prec)``, ``exact()`` and ``expr``."""
        text = ref_text(ref)
        try:
            return self._registry.ref(text)
        except RefError as e:
            try:
                tree = parse(text, self.limits)
            except InputError:
                if _NAME.fullmatch(text) and ":" not in text:
                    raise e from None   # a name: what is wrong with it
                raise                   # an expression: where it does not parse
            if tree[0] == "name" and ":" not in text:
                raise
        q = bind(tree, self, self.limits)
        if q.vector:
            raise RefError(f"{text}: a slice (an index ':') is a list of numbers; ask for one entry, "
                           f"or for sum(…), mean(…), max(…) of it")
        return q

    def _expr(self, ref) -> sympy.Expr:
        """The SymPy expression over node symbols of a ref that is not a graph node (a size, arithmetic)."""
        q = self._quantity(ref)
        if q.expr is None:
            raise RefError(f"{ref_text(ref)}: computed, not defined over the graph's names (a training state, "
                           f"a head step, sampling or a gradient check); value() gives it")
        e = q.expr
        return e if isinstance(e, sympy.Basic) else sympy.Rational(e)   # a size: its number, exactly

    # -- names ------------------------------------------------------------
    def names(self) -> list[tuple[str, tuple, str]]:
        """Every quantity: (name, shape, one-line meaning).

        >>> [n for n in load("bigram").names() if n[0] in ("z", "loss")]
        [('z', (3,), 'logits x·W'), ('loss', (), 'cross-entropy −ln p[target]')]
        """
        return [(g.name, g.shape, g.meaning) for g in self._skeleton.groups.values()]

    def node(self, ref: str) -> str:
        """The canonical node name for a reference such as ``p[你]``.

        >>> load("tiny-transformer").node("E[你,1]")
        'E[4,1]'
        """
        return self._registry.node(ref_text(ref))

    def pretty(self, name: str) -> str:
        """A name with token indices shown as tokens: ``p[4]`` → ``p[你]``."""
        return self._registry.ref(ref_text(name)).pretty

    # -- exact forms ------------------------------------------------------
    def definition(self, ref) -> sympy.Expr:
        """The node's own small definition over earlier nodes, a token index written as its token
        wherever the axis is the vocabulary (``p[你]``, as refs and the documents write it).

        An expression of names (any ref of :meth:`value`) is itself; a size is its number.

        >>> load("tiny-transformer").definition("grad_logits[你]")
        p[你] - 1
        >>> b = load("bigram")
        >>> b.definition("grad_z[1]"), b.definition("exp(z[1]) / sum_exp"), b.definition("lr")
        (p[吃], exp(z[吃])/sum_exp, 1/2)
        """
        try:
            name = self._registry.node(ref_text(ref))
        except RefError:
            e = self._expr(ref)
        else:
            e = self.definitions.definition(name)
        shown = {s: self._shown(s.name) for s in e.free_symbols}
        return e.xreplace({s: sympy.Symbol(n, **s.assumptions0) for s, n in shown.items() if n != s.name})

    def _shown(self, name: str) -> str:
        """A node name with its token indices as tokens (``p[4]`` → ``p[你]``) when that reads back as the
        same node; the graph's own name when a token would not (``,``, a space: ``E[,,3]`` is no ref)."""
        try:
            pretty = self.pretty(name)
            return pretty if self.node(pretty) == name else name
        except InputError:
            return name

    def closed_form(self, ref, max_ops=20000, max_nodes=None) -> sympy.Expr:
        """A forward quantity in numbers; a gradient in named forward quantities; an expression of names
        (any ref of :meth:`value`) with each name's closed form substituted.

        Refused (a LimitError naming ``ref``) before any work when its size written out, every definition
        substituted before SymPy collects terms (:meth:`symgpt.core.graph.Named.written_size`), is above
        ``max(max_ops, WRITTEN)``: SymPy's time to build and print it grows with that size (the seed's loss
        would take hours). Refused too when the result has more than ``max_ops`` operations (SymPy's count),
        or reads more than ``max_nodes`` definitions (None: no such bound;
        see :meth:`symgpt.core.graph.Named.closed_form`). ``definition(ref)`` and ``value(ref)`` answer at any size.

        >>> b = load("bigram")
        >>> b.closed_form("grad_W[0,2]"), b.closed_form("z[鱼] + 1")
        (x[0]*(p[2] - 1), 27/25)
        >>> load("tiny-transformer").closed_form("loss")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        symgpt.core.errors.LimitError: closed_form('loss'): written out it has more than 2,000,000 operations ...
        """
        if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 1:
            raise InputError(f"max_ops: expected an integer ≥ 1, got {max_ops!r}")
        if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
            raise InputError(f"max_nodes: expected an integer ≥ 1 or None, got {max_nodes!r}")
        text = ref_text(ref)
        g = self.definitions
        try:
            names = [self._registry.node(text)]
            expr = g.sym(names[0])
        except RefError:
            expr = self._expr(text)
            names = [g.by_sym[x] for x in expr.free_symbols]
        cap = max(max_ops, WRITTEN)
        size = sum(g.written_size(n, _stop(n), self._ev.decide, 100 * cap) for n in names)
        if size > cap:
            about = f"more than {100 * cap:,}" if size > 100 * cap else f"about {size:,}"
            raise LimitError(f"closed_form({text!r}): written out it has {about} operations (estimated before "
                             f"building it), above {cap:,}: SymPy would take minutes or more to build and print it; "
                             f"definition({text!r}) gives its own definition, value({text!r}) its value, "
                             f"and max_ops=… raises the bound")
        try:
            return expr.xreplace({g.sym(n): g.closed_form(n, stop=_stop(n), decide=self._ev.decide, max_ops=max_ops,
                                                         max_nodes=max_nodes) for n in names})
        except TooManyDefinitions as e:
            raise TooManyDefinitions(f"closed_form({text!r}): {e}") from None
        except InputError:
            raise
        except ValueError as e:   # past max_ops; the graph names the node it had reached
            raise LimitError(f"closed_form({text!r}): more than {max_ops} operations ({e}); "
                             f"definition({text!r}) gives its own definition and value({text!r}) its value") from None

    # -- values -----------------------------------------------------------
    def ball(self, ref: str, prec: int):
        """An enclosure (fmpq or arb) of any documented quantity at ``prec`` bits.

        An arb prints as ``[midpoint +/- radius]`` with python-flint's ``ctx.dps``
        digits (15 unless changed), every printed digit inside the ball;
        ``b.str(n)`` prints n digits, as many as the radius allows.  An exact
        rational (a weight, an exact zero) is an fmpq.

        Besides graph nodes: ``sgd[k].NAME`` and ``adamw[k].NAME`` (the state
        after k updates, see :class:`symgpt.training.train.Trace`) and
        ``head_step.E[v,j]``, ``head_step.logits[v]``, ``head_step.p[v]``,
        ``head_step.loss`` (document 000's update of the target's row of E with
        the head-path gradient; of W_out alone with an untied head) and
        ``example[b].NAME`` (a mini-batch's example b, 0 being ``[data]``).
        """
        return self._quantity(ref).ball(precision(prec, self.limits))

    def value(self, ref, digits=None, decimals=None, tier: str = "auto") -> str:
        """The certified decimal string of ``ref``: ``digits`` significant or ``decimals`` fixed.

        ``ref`` is any claims expression, what a claims file's ``ref`` and a page's ``data-ref`` hold
        (:mod:`symgpt.refs`; ``symgpt list SPEC`` or ``d.names()`` lists the names):

        - a name: ``loss``, ``A[1,0]``, ``E[你,1]`` (an index on the vocabulary may be its token, in quotes
          or not: ``p[你]``, ``p['你']``), ``grad_W_Q[0,1]``, ``l0.Q[1,0]`` in a model of several blocks
          (``l0.`` is the first block: the prefixes count from 0, the documents' headings from 1);
        - a size or setting: ``d``, ``lr``, ``ln_eps``, ``adamw.beta1``;
        - a training state or document 000's head-only step: ``sgd[1].loss``, ``adamw[1].m[W,0,2]``,
          ``head_step.logits[你]``; a mini-batch's other example: ``example[1].p[你]``;
        - arithmetic over those and exact numbers (``+ - * / ^``, parentheses): ``A[1,0] + A[1,1]``,
          ``1 - p[你]``;
        - a function verify knows: ``exp(logits[2])``, ``sqrt(var1[1] + ln_eps)``, ``sum(Q[0,:])``,
          ``softmax_T(0.5, 你)`` (p at temperature 0.5), ``topk(2, 鱼)``, ``gradcheck(W[0,2], 1e-5)``.

        >>> b = load("bigram")
        >>> b.value("loss", decimals=4), b.value("sgd[1].loss", decimals=4)
        ('1.0515', '0.8894')
        >>> b.value("p['鱼'] + p[猫] + p[吃]", decimals=3), b.value("-log(p[鱼])", digits=5)
        ('1.000', '1.0515')

        ``tier``: ``"auto"`` takes a named quantity of the model asked for with at most 13 significant digits
        from the float64 tier when its ball certifies them (:meth:`gradient`), else, up to 28 digits, from the
        double-word tier when its ball does, else from arb; ``"arb"`` always from arb.  The digits are the same
        either way.
        """
        if isinstance(digits, str) and not isinstance(ref, str):
            raise RefError(f"ref: expected a quantity name such as 'loss' or 'p[你]' (a string), got {ref!r} "
                           f"(arguments swapped? the call is value(ref, digits=…))")
        _tier(tier, ("auto", "arb"))
        fmt, n = rounding(digits, decimals, self.limits)
        r = self._quantity(ref)
        if tier == "auto" and decimals is None:
            for words, most in ((1, balls.MAX_DIGITS), (2, dwball.MAX_DIGITS)):
                s = self._value_from_balls(r, n, words) if n <= most else None
                if s is not None:
                    return s

        # A value above 10^max_digits is refused before its decimals are written.  A tiny one (a probability
        # of 10^-19500 after a large lr) is legitimate: it rounds to 0.0000 or prints as 1.2×10^-19500, but its
        # rounding builds an integer of as many digits as its exponent, so one below 10^-(1000·max_digits)
        # (lr = 1e40 gives 10^-4e39) is refused too.
        huge, tiny = self.limits.max_digits, 1000 * self.limits.max_digits

        def ball(prec):
            b = r.ball(prec)
            m = magnitude(b)
            if math.isfinite(m) and (m > huge or m < -tiny) and not (isinstance(b, arb) and b.contains(0)):
                opt = getattr(r, "opt", None)
                why = f"; training.{'adamw.' if opt == 'adamw' else ''}lr drives it there" if opt else ""
                about = f"about 10^{m:.3g}" if abs(m) < 1e300 else f"{'below 10^-' if m < 0 else 'above 10^'}1e300"
                beyond = f"above 10^{huge}" if m > 0 else f"below 10^-{tiny}"
                raise LimitError(f"{self.spec.path}: {ref_text(ref)} is {about}, {beyond}{why} (--max-digits; "
                                 f"symgpt.Limits(max_digits=…) in Python)")
            return b
        try:
            return certify(ball, fmt, what=f"the rounding of {ref}", exact=r.exact, start=self._start(n)).value
        except LimitError as e:   # the precision a rounding climbed to: say whose rounding it was
            if str(e).startswith("prec: "):
                raise LimitError(f"cannot certify the rounding of {ref} within the precision limit: it may be "
                                 f"exactly 0 or lie on a rounding boundary ({e})") from None
            raise

    def _start(self, n: int) -> int:
        """The first precision of a value or the gradient at n digits (one pass for both, deep or not)."""
        deeper = max(0, self.spec.layers - 1)
        log_T = len(self.spec.input).bit_length()
        return prec_for_digits(n) + GRADIENT_MARGIN + LAYER_MARGIN * deeper * log_T

    def _balls(self, words: int = 1) -> tuple:
        """(every stage of the model in float64 balls (``words=1``) or double-word balls (``words=2``) by group
        name, or None; why not), computed once each.

        Not for a derivation of another example than the spec's own (tokens or target given) nor one without
        gradients: the tiers run the spec's own model.  Signs the balls cannot decide are decided exactly by the
        arb tier (:meth:`symgpt.engine.values.TensorEvaluator.sign`).
        """
        if words not in self._tiers:
            if self._example != (None, None, True):
                self._tiers[words] = (None, "the derivation is of another example than the spec's")
            else:
                try:
                    self._tiers[words] = (balls.values(self.spec, decide=self._ev.sign, updates=False, words=words),
                                          "")
                except balls.Unsupported as e:
                    self._tiers[words] = (None, str(e))
                except (OverflowError, ZeroDivisionError, FloatingPointError) as e:   # weights beyond float64
                    self._tiers[words] = (None, f"a value beyond float64 ({type(e).__name__})")
        return self._tiers[words]

    def gradient(self, digits: int = 50, by: str = "spec", tier: str = "auto") -> dict:
        """∂loss/∂θ for every parameter θ of the spec, each certified to ``digits`` significant digits.

        ``by="spec"``: keys are the parameters' node names in the spec's order (``E[0,0]``, ``W_Q[1,0]``, …),
        each value a decimal string.  ``by="checkpoint"``, for a spec imported from a checkpoint
        (``weights.names``): keys are the checkpoint's own state_dict names (``transformer.h.0.attn.c_attn.weight``
        …), each value the whole tensor as nested lists of decimal strings in the checkpoint's shape and layout
        (:mod:`symgpt.engine.layouts`), to lay beside ``param.grad`` of the original model; a tied head's
        ``lm_head.weight`` is E's whole gradient.
        Every gradient tensor is computed at once, at rising precision while some entry's
        ball is too wide to round.  An entry that is exactly 0 but only SymPy could prove it
        (a cancellation the balls cannot see) is "0" when the exact test is within the limits;
        otherwise it is shown as its enclosure, ``[+/- 6.1e-87]``: every digit shown is true.
        In a model of several blocks the pass is lean: each block's tensors, and each gradient once read out,
        are freed (:meth:`symgpt.engine.values.TensorEvaluator.lean`); asked for later, they are computed again.

        ``tier`` says where the digits come from:

        - ``"auto"`` (the default): with at most 13 digits, first from the float64 tier (:mod:`symgpt.floats.balls`:
          the whole model, its adjoints and first updates in float64 midpoint–radius balls, matrix products through
          BLAS), every entry whose ball certifies its digits; what is left, and everything up to 28 digits, from
          the double-word tier (the same pass with midpoints of about 106 bits, :mod:`symgpt.core.dwball`); the
          rest from arb at rising precision.  The strings are the same as arb's: a printed digit is a certified
          digit.
        - ``"float64"`` or ``"double"``: that tier alone; an entry its ball cannot round is shown as that ball
          (``[0.1234 +/- 5.6e-9]``: the digits it does certify).  An error if the tier cannot run this model.
        - ``"arb"``: arb alone, as before the tiers existed.

        >>> g = load("bigram").gradient(6)
        >>> len(g), g["W[0,2]"], g["E[0,0]"]
        (12, '-0.195173', '0')
        >>> load("tiny-transformer").gradient(4, tier="float64")["W_Q[0,0]"][:5]   # ≈ 1e-11: a cancellation
        '[+/- '
        """
        _tier(tier, ("auto", "float64", "double", "arb"))
        if by not in ("spec", "checkpoint"):
            raise InputError(f"by: expected 'spec' (the spec's names) or 'checkpoint' (the checkpoint's), got {by!r}")
        if by == "checkpoint" and not self.spec.checkpoint:
            raise InputError(f"{self.spec.path}: by='checkpoint': this spec does not say whose tensor names its "
                             f"weights have (weights.names = {' | '.join(map(repr, layouts.FAMILIES))}; "
                             f"symgpt import writes it)")
        fmt, n = rounding(digits, None, self.limits)
        start = self._start(n)
        prec, top = start, max_prec(self.limits)
        out: dict = {name: None for group in self.spec.params for name in self._skeleton.groups[group].names}
        if tier in ("auto", "float64") and (n <= balls.MAX_DIGITS or tier == "float64"):
            self._from_balls(out, n, tier, 1)
        if tier in ("auto", "double") and (n <= dwball.MAX_DIGITS or tier == "double") and None in out.values():
            self._from_balls(out, n, tier, 2)
        if tier in ("float64", "double") or None not in out.values():
            return out if by == "spec" else self._by_checkpoint(out)
        last, todo = {}, set()
        for _ in range(4):  # every tensor at once, at rising precision, while some entry's ball is too wide
            try:
                lean = self._ev.lean(prec)   # a deep model's blocks are freed as the reverse pass leaves them
                for group in self.spec.params:
                    G = self._ev.group("grad_" + group, prec)
                    rows = G if G and isinstance(G[0], list) else [G]
                    for name, x in zip(self._skeleton.groups[group].names, (x for r in rows for x in r)):
                        if out[name] is None:
                            out[name] = fmt(tidy(x))
                            if out[name] is None:
                                last[name] = x
                                todo.add(name)
                            else:
                                todo.discard(name)
                    del G, rows
                    if lean:
                        self._ev.free("grad_" + group, prec)   # read out: its balls need not stay
            except LimitError:
                if prec == start:
                    raise
                break  # the next precision is beyond the limits: what is left goes the long way
            if not todo or 2 * prec > top:
                break
            self._ev.forget(prec)  # the next pass holds the model's tensors again: not twice
            prec *= 2
        for name, v in out.items():
            if v is None:
                out[name] = self._hard_entry(name, n, last[name])
        return out if by == "spec" else self._by_checkpoint(out)

    def _value_from_balls(self, r, n: int, words: int) -> str | None:
        """A model quantity's n digits from a ball tier (``words`` 1 or 2), or None (not a node of it, or not
        certified).  A group is taken only where the tier's tensor has the engine's shape for it."""
        name = getattr(r, "name", None)
        if not name or not _NODE.fullmatch(name):
            return None
        group, index = parse_node(name)
        got = self._balls(words)[0]
        known = self._skeleton.groups.get(group)
        if got is None or group not in got or known is None or got[group].shape != tuple(known.shape):
            return None
        return _SIGNIFICANT[words](got[group][index] if index else got[group], n)[0]

    def _from_balls(self, out: dict, n: int, tier: str, words: int) -> None:
        """Fill the entries of ``out`` (node name → string or None) still None with the gradient entries a ball
        tier (``words`` 1: float64, 2: double-word) certifies to n digits; with that tier forced, the others as
        their balls."""
        got, why = self._balls(words)
        forced = tier != "auto"
        if got is None:
            if forced:
                what = "float64" if words == 1 else "double-word"
                raise InputError(f"{self.spec.path}: tier={tier!r}: the {what} tier cannot run this model "
                                 f"({why}); tier='auto' or 'arb' computes it in arb")
            return
        for group in self.spec.params:
            G = got.get("grad_" + group)
            if G is None:
                continue
            names = self._skeleton.groups[group].names
            if not forced and all(out[k] is not None for k in names):
                continue
            strings = _SIGNIFICANT[words](G, n)
            if forced:
                flat = G.arbs().ravel()
                strings = [s if s is not None else flat[i].str(min(n, 30), radius=True)
                           for i, s in enumerate(strings)]
            for name, s in zip(names, strings):
                if out[name] is None:
                    out[name] = s

    def shaped(self, g: dict) -> dict:
        """{parameter: numpy object array in its shape} of a per-entry dict keyed by node names (a gradient).

        >>> d = load("bigram")
        >>> d.shaped(d.gradient(3))["W"].shape
        (2, 3)
        """
        arrays = {}
        for group in self.spec.params:
            names = self._skeleton.groups[group].names
            a = np.empty(len(names), dtype=object)
            a[:] = [g[name] for name in names]
            arrays[group] = a.reshape(self._skeleton.groups[group].shape)
        return arrays

    def _by_checkpoint(self, g: dict) -> dict:
        """The gradient ``g`` (by the spec's node names) as the checkpoint's tensors, nested lists of strings."""
        arrays = self.shaped(g)
        return {s.key: layouts.assemble(s, arrays).tolist() for s in layouts.layout(self.spec, self.spec.checkpoint)}

    def _hard_entry(self, name: str, n: int, ball) -> str:
        """A gradient no enclosure rounds: proven 0, certified the long way, or its enclosure."""
        if isinstance(ball, arb) and ball.contains(0) and self._ev.exact_zero("grad_" + name):
            return "0"
        if not ball.contains(0):
            try:
                return self.value("grad_" + name, digits=n)
            except (UndecidableError, LimitError):
                pass
        return ball.str(n)

    def mpf(self, ref, dps=50):
        """The value as an mpmath number good to ``dps`` digits, printing its ``dps`` certified digits.

        The number belongs to a private mpmath context at ``dps`` digits
        (``mpmath.MPContext``), so it prints at that precision whatever the
        global ``mpmath.mp.dps`` is, and arithmetic on it runs at ``dps``
        digits.  Its ``str`` and ``repr`` are :meth:`value` at ``dps``
        significant digits (rounded half away from zero from a ball that
        proves it): mpmath's own printing rounds the binary midpoint to
        nearest, and when the value lies within the ball's radius of a
        rounding boundary that last digit could differ from the true value's
        rounding.  The binary value itself is the midpoint of a ball of
        relative radius below 10^-(dps+2); results of arithmetic print
        mpmath's rounding, with no certificate.

        >>> import mpmath
        >>> x = load("tiny-transformer").mpf("loss", 30)
        >>> x, mpmath.mp.dps
        (mpf('2.46737302749765479995003394588'), 15)
        >>> print(x + 1)
        3.46737302749765479995003394588
        """
        dps = count("dps", dps, 1, self.limits)
        prec, top = prec_for_digits(dps), max_prec(self.limits)
        b = self.ball(ref, prec)
        while isinstance(b, arb) and b.rel_accuracy_bits() < prec_for_digits(dps + 2) - 40 and prec < top:
            prec = min(2 * prec, top)
            b = self.ball(ref, prec)
        return printed_mpf(to_mpf(b, prec), lambda: self._printed(ref, dps, b), dps)

    def _printed(self, ref, dps: int, ball) -> str:
        """``value(ref, digits=dps)``; when no rounding can be certified (a zero SymPy cannot
        prove), the enclosure itself, ``[+/- 1.2e-10000]``: every digit shown is still true."""
        try:
            return self.value(ref, digits=dps)
        except UndecidableError:
            return ball.str(dps) if isinstance(ball, arb) else str(ball)

    def sign(self, ref) -> int:
        """-1, 0 or 1, decided rigorously (0 only for an exact zero)."""
        return self._ev.sign(self.node(ref))

    def _optimizer(self, optimizer) -> str:
        if optimizer not in OPTIMIZERS:
            raise InputError(f"optimizer: expected one of {', '.join(OPTIMIZERS)}, got {optimizer!r}")
        return optimizer

    # -- training ---------------------------------------------------------
    def trace(self, optimizer: str = "sgd"):
        """The spec's training trace for ``sgd``, ``adamw`` or ``sgd_wrong_order`` (memoised)."""
        if self._optimizer(optimizer) not in self._traces:
            if optimizer == "sgd_wrong_order":
                self._traces[optimizer] = WrongOrderTrace(self)
            else:
                self._traces[optimizer] = Trace(self, optimizer)
        return self._traces[optimizer]

    def head_step(self, ref: str) -> sympy.Expr:
        """Document 000's update of the target's row: E[t] ← E[t] − η·grad_E_head[t].

        ``E[v,j]`` (other rows unchanged) and ``logits[v]`` = h_final·E_new[v]
        with h_final as it was, as exact expressions; ``Derivation.ball``
        also gives ``head_step.loss`` and ``head_step.p[v]`` from a forward
        pass with the new row.  With an untied head the step moves W_out alone:
        ``W_out[j,v]`` − η·grad_W_out[j,v], and ``logits[v]`` = h_final·W_out_new[:,v].

        >>> load("tiny-transformer").head_step("E[你,0]")
        1/5 - grad_E_head[4,0]/10
        """
        return self._registry.head_expr(self.node(ref))
