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

import re
from pathlib import Path

import mpmath
import sympy
from flint import fmpq

from .graph import Graph
from .models import build
from .numeric import (Evaluator, UndecidableError, prec_for_digits, round_decimals,
                      round_significant, to_mpf)
from .spec import Spec, SpecError, load_spec

DERIVATIONS = Path(__file__).resolve().parent.parent / "derivations"
_TRACE = re.compile(r"(?P<opt>sgd|adamw)\[(?P<k>\d+)\]\.(?P<rest>.+)")
_REF = re.compile(r"(?P<group>[A-Za-z_][A-Za-z_0-9.]*?)(\[(?P<idx>.*)\])?")


def _straddles_zero(b) -> bool:
    return not isinstance(b, fmpq) and not (b > 0 or b < 0)


class RefError(ValueError):
    """A quantity name that the derivation does not define."""


def find_spec(name_or_path) -> Path:
    """``derivations/NAME.toml`` for a name; a path as it is.

    >>> find_spec("bigram").name
    'bigram.toml'
    """
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    found = DERIVATIONS / f"{name_or_path}.toml"
    if not found.exists():
        known = sorted(q.stem for q in DERIVATIONS.glob("*.toml") if not q.stem.endswith(".claims"))
        raise SpecError(f"{name_or_path}: no such derivation; known: {', '.join(known)}")
    return found


def load(name_or_path) -> "Derivation":
    """Load a derivation by name (``derivations/NAME.toml``) or by path.

    >>> load("bigram").spec.vocab
    ('猫', '吃', '鱼')
    """
    return Derivation(load_spec(find_spec(name_or_path)))


class Derivation:
    """Forward and backward graph of one spec, with certified values."""

    def __init__(self, spec: Spec, tokens=None, target=None, gradients=True):
        self.spec = spec
        self.graph: Graph = build(spec, tokens, target)
        if gradients:
            self.graph.backward("loss")
            self._head_gradient()
        self.ev = Evaluator(self.graph)
        self._traces: dict = {}

    def _head_gradient(self):
        """grad_E_head[v,j]: the part of ∂L/∂E that flows through the LM head."""
        g, s = self.graph, self.spec
        if s.kind != "transformer" or not s.tied:
            return
        g.group("grad_E_head", (s.V, s.d), "∂L/∂E through the tied head only: (p − y)·h_final", ("v", "j"))
        for v in range(s.V):
            for j in range(s.d):
                g.define(f"grad_E_head[{v},{j}]", "grad_E_head", (v, j),
                         g.sym(f"grad_logits[{v}]") * g.sym(f"h_final[{j}]"))

    # -- names ------------------------------------------------------------
    def names(self) -> list[tuple[str, tuple, str]]:
        """Every quantity: (name, shape, one-line meaning).

        >>> [n for n in load("bigram").names() if n[0] in ("z", "loss")]
        [('z', (3,), 'logits x·W'), ('loss', (), 'cross-entropy −ln p[target]')]
        """
        return [(g.name, g.shape, g.meaning) for g in self.graph.groups.values()]

    def node(self, ref: str) -> str:
        """The canonical node name for a reference such as ``p[你]``.

        >>> load("tiny-transformer").node("E[你,1]")
        'E[4,1]'
        """
        m = _REF.fullmatch(ref.strip())
        if not m or m["group"] not in self.graph.groups:
            group = m["group"] if m else ref
            raise RefError(f"unknown quantity {group!r}; `python -m symgpt.verify --list "
                           f"{self.spec.path}` lists the names")
        grp = self.graph.groups[m["group"]]
        raw = [] if m["idx"] is None else [x.strip() for x in m["idx"].split(",")]
        if len(raw) != len(grp.shape):
            raise RefError(f"{ref}: {grp.name} takes {len(grp.shape)} indices {grp.axes}, got {len(raw)}")
        idx = [self._index(ref, x, axis, n) for x, axis, n in zip(raw, grp.axes, grp.shape)]
        return f"{grp.name}[{','.join(map(str, idx))}]" if idx else grp.name

    def _index(self, ref, x, axis, n) -> int:
        if axis == "v" and x in self.spec.vocab:
            return self.spec.vocab.index(x)
        if re.fullmatch(r"\d+", x) and int(x) < n:
            return int(x)
        want = f"0..{n - 1}" + (" or a token" if axis == "v" else "")
        raise RefError(f"{ref}: index {x!r} out of range; expected {want}")

    def pretty(self, name: str) -> str:
        """A node name with token indices shown as tokens: ``p[4]`` → ``p[你]``."""
        node = self.graph.nodes[name]
        grp = self.graph.groups.get(node.group)
        if not node.index or grp is None:
            return name
        parts = [self.spec.vocab[i] if a == "v" else str(i) for i, a in zip(node.index, grp.axes)]
        return f"{node.group}[{','.join(parts)}]"

    # -- exact forms ------------------------------------------------------
    def definition(self, ref) -> sympy.Expr:
        """The node's own small definition over earlier nodes."""
        return self.graph.definition(self.node(ref))

    def closed_form(self, ref, max_ops=20000) -> sympy.Expr:
        """A forward quantity in numbers; a gradient in named forward quantities.

        >>> load("bigram").closed_form("grad_W[0,2]")
        x[0]*(p[2] - 1)
        """
        name = self.node(ref)
        if name.startswith("grad_"):
            stop = lambda node: not node.name.startswith("grad_")
        else:
            stop = lambda node: False
        return self.graph.closed_form(name, stop=stop, decide=self.ev.decide, max_ops=max_ops)

    # -- values -----------------------------------------------------------
    def ball(self, ref: str, prec: int):
        """An enclosure (fmpq or arb) of any documented quantity at ``prec`` bits.

        Besides graph nodes: ``sgd[k].NAME`` and ``adamw[k].NAME`` (the state
        after k updates, see :class:`symgpt.train.Trace`) and
        ``head_step.E[v,j]``, ``head_step.logits[v]``, ``head_step.p[v]``,
        ``head_step.loss`` (document 000's update of the target's row of E with
        the head-path gradient).
        """
        m = _TRACE.fullmatch(ref.strip())
        if m:
            return self.trace(m["opt"]).ball(int(m["k"]), m["rest"], prec)
        if ref.startswith("head_step."):
            rest = ref[len("head_step."):]
            if rest == "loss" or rest.startswith("p["):  # a forward pass with the new row
                t, d = self.spec.target, self.spec.d
                leaves = {f"E[{t},{j}]": self.ev.expr_ball(self.head_step(f"E[{t},{j}]"), prec)
                          for j in range(d)}
                return Evaluator(self.graph, leaves).ball(self.node(rest), prec)
            return self.ev.expr_ball(self.head_step(rest), prec)
        return self.ev.ball(self.node(ref), prec)

    def value(self, ref, digits=None, decimals=None) -> str:
        """The certified decimal string: ``digits`` significant or ``decimals`` fixed.

        >>> load("bigram").value("loss", decimals=4)
        '1.0515'
        >>> load("bigram").value("sgd[1].loss", decimals=4)
        '0.8894'
        """
        if decimals is not None:
            fmt, n = (lambda v: round_decimals(v, decimals)), decimals + 10
        else:
            digits = 15 if digits is None else digits
            fmt, n = (lambda v: round_significant(v, digits)), digits
        prec = start = prec_for_digits(n)
        while prec <= 1 << 16:
            try:
                b = self.ball(ref, prec)
                s = fmt(b)
            except UndecidableError:
                b = s = None
            if s is not None:
                return s
            if prec == 8 * start and b is not None:
                q = self._exact_rational(ref)  # a rounding tie or an exact 0 computed as balls
                if q is not None:
                    return fmt(q)
            if prec >= 8 * start and b is not None and _straddles_zero(b) and self._exactly_zero(ref):
                return fmt(fmpq(0))  # e.g. the variance of two equal entries, computed as balls
            prec *= 2
        if b is not None and _straddles_zero(b):
            raise UndecidableError(f"cannot certify {ref}: its enclosure still contains 0 at {prec // 2} bits "
                                   f"and SymPy cannot prove it is exactly 0")
        raise UndecidableError(f"cannot certify the rounding of {ref}: it may lie on a rounding boundary")

    def _exact_rational(self, ref):
        """The exact rational value of a graph node or head_step expression, if SymPy finds one."""
        if _TRACE.fullmatch(ref.strip()):
            return None
        try:
            if ref.startswith("head_step."):
                rest = ref[len("head_step."):]
                if rest == "loss" or rest.startswith("p["):
                    return None
                return self.ev.exact_rational(self.head_step(rest))
            return self.ev.exact_rational(self.graph.sym(self.node(ref)))
        except RefError:
            return None

    def _exactly_zero(self, ref) -> bool:
        """SymPy's exact zero test, for a graph node or a head_step expression."""
        try:
            if ref.startswith("head_step."):
                return self.ev.expr_sign(self.head_step(ref[len("head_step."):])) == 0
            if _TRACE.fullmatch(ref.strip()):
                return False  # a trace holds balls: an exact 0 cannot be proven
            return self.ev.sign(self.node(ref)) == 0
        except (UndecidableError, RefError):
            return False

    def mpf(self, ref, dps=50) -> mpmath.mpf:
        """The value as an mpmath number good to ``dps`` digits."""
        prec = prec_for_digits(dps)
        return to_mpf(self.ball(ref, prec), prec)

    def sign(self, ref) -> int:
        """-1, 0 or 1, decided rigorously (0 only for an exact zero)."""
        return self.ev.sign(self.node(ref))

    # -- training ---------------------------------------------------------
    def trace(self, optimizer: str = "sgd"):
        """The spec's training trace for ``sgd`` or ``adamw`` (memoised)."""
        from .train import Trace
        if optimizer not in self._traces:
            self._traces[optimizer] = Trace(self, optimizer)
        return self._traces[optimizer]

    def head_step(self, ref: str) -> sympy.Expr:
        """Document 000's update of the target's row: E[t] ← E[t] − η·grad_E_head[t].

        ``E[v,j]`` (other rows unchanged) and ``logits[v]`` = h_final·E_new[v]
        with h_final as it was, as exact expressions; ``Derivation.ball``
        also gives ``head_step.loss`` and ``head_step.p[v]`` from a forward
        pass with the new row.

        >>> load("tiny-transformer").head_step("E[你,0]")
        1/5 - grad_E_head[4,0]/10
        """
        g, lr, t = self.graph, self.spec.training.lr, self.spec.target
        if "grad_E_head" not in g.groups:
            raise RefError("head_step needs a tied transformer head")

        def new(v, j):
            old = g.nodes[f"E[{v},{j}]"].value
            return old - lr * g.sym(f"grad_E_head[{v},{j}]") if v == t else old
        name = self.node(ref)
        group, idx = name.split("[")[0], [int(x) for x in name[:-1].split("[")[1].split(",")]
        if group == "E":
            return new(*idx)
        if group == "logits":
            return sympy.Add(*[g.sym(f"h_final[{j}]") * new(idx[0], j) for j in range(self.spec.d)])
        raise RefError(f"head_step.{ref}: defined are E[v,j], logits[v], p[v] and loss")
