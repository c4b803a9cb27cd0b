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

from .graph import Graph
from .models import build
from .numeric import Evaluator, round_decimals, round_significant, to_mpf, prec_for_digits
from .spec import Spec, SpecError, load_spec

DERIVATIONS = Path(__file__).resolve().parent.parent / "derivations"
_REF = re.compile(r"(?P<group>[A-Za-z_][A-Za-z_0-9.]*?)(\[(?P<idx>.*)\])?")


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
    def value(self, ref, digits=None, decimals=None) -> str:
        """The certified decimal string: ``digits`` significant or ``decimals`` fixed.

        >>> load("bigram").value("loss", decimals=4)
        '1.0515'
        """
        name = self.node(ref)
        if decimals is not None:
            return self.ev.certified(name, lambda v: round_decimals(v, decimals), decimals + 10)
        digits = 15 if digits is None else digits
        return self.ev.certified(name, lambda v: round_significant(v, digits), digits)

    def mpf(self, ref, dps=50) -> mpmath.mpf:
        """The value as an mpmath number good to ``dps`` digits."""
        return to_mpf(self.ev.ball(self.node(ref), prec_for_digits(dps)))

    def sign(self, ref) -> int:
        """-1, 0 or 1, decided rigorously (0 only for an exact zero)."""
        return self.ev.sign(self.node(ref))
