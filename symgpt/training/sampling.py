"""Sampling: greedy, temperature, top-k, top-p, a seeded draw, continuation.

Every choice is decided by exact signs (never by rounded floats) and every
renormalised probability is an exact expression over the named logits.
Ties are broken by the lower token id, and the result says a tie happened.

>>> import symgpt
>>> d = symgpt.load("tiny-transformer")
>>> greedy(d).token, [d.spec.vocab[v] for v in top_k(d, 3).kept]
('爱', ['爱', '他', '<pad>'])
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from types import SimpleNamespace

import sympy

from ..core.errors import InputError
from ..core.limits import Limits
from ..core.numeric import Evaluator
from ..core.safe import clip
from ..engine import cost
from ..engine.models import build
from .train import exact_number, model_arg


def _exact(x, what, low=None, high=None):
    """An exact number for P, T or u: a SymPy Rational, a Fraction, an int or
    decimal text; a Python float is refused (it is not the number its text shows).

    >>> _exact("0.5", "P", low=0, high=1)
    1/2
    """
    if x is sympy.oo:
        return x
    return exact_number(x, what, low, high)


def _model(d):
    """The model argument, checked (:func:`symgpt.training.train.model_arg`)."""
    return model_arg(d)


def _count(x, what, low, high) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not low <= x <= high:
        raise InputError(f"{what}: expected an integer in {low}..{high}, got {x!r}")
    return x


@dataclass
class Choice:
    token: str
    id: int
    ties: bool = False  # an exact tie was broken by the lower id


@dataclass
class Truncated:
    """A renormalised distribution over the kept tokens (in rank order)."""
    kept: list       # token ids, most probable first
    probs: dict      # id -> exact expression (0 for dropped tokens)
    cumulative: list  # exact partial sums of p along the ranking


def _logits(d):
    """The logits' symbols, from the model's skeleton when it has one (the SymPy graph is not built for them:
    their order is decided on the tensor engine's values)."""
    g = getattr(d, "_skeleton", None) or d.graph
    name = "logits" if "logits" in g.groups else "z"
    return [g.sym(f"{name}[{v}]") for v in range(d.spec.V)], name


def ranking(d) -> tuple[list, bool]:
    """Token ids by decreasing probability, decided exactly; ties by lower id."""
    z, _ = _logits(_model(d))
    ties = False

    def cmp(a, b):
        nonlocal ties
        s = d._ev.expr_sign(z[b] - z[a])  # > 0: b ranks first
        if s == 0:
            ties = True
            return a - b
        return s
    return sorted(range(d.spec.V), key=functools.cmp_to_key(cmp)), ties


def greedy(d) -> Choice:
    """argmax of p (= argmax of the logits)."""
    order, ties = ranking(_model(d))
    return Choice(d.spec.vocab[order[0]], order[0], ties)


def temperature(d, T) -> list:
    """p_T[v] = exp(z_v/T)/Σ_k exp(z_k/T) as exact expressions; T = oo is 1/V.

    >>> import symgpt
    >>> temperature(symgpt.load("bigram"), sympy.oo)
    [1/3, 1/3, 1/3]
    """
    z, _ = _logits(_model(d))
    T = _exact(T, "T", low=0)
    if T is sympy.oo:
        return [sympy.Rational(1, len(z))] * len(z)
    e = [sympy.exp(x / T) for x in z]
    den = sympy.Add(*e)
    return [x / den for x in e]


def top_k(d, k) -> Truncated:
    """Keep the k most probable tokens, renormalise exactly."""
    k = _count(k, "k", 1, _model(d).spec.V)
    order, _ = ranking(d)
    return _truncate(d, order, order[:k])


def top_p(d, P) -> Truncated:
    """Keep the smallest prefix of the ranking whose mass reaches P (≥, decided)."""
    P = exact_number(P, "P", low=0, high=1)
    order, _ = ranking(_model(d))
    p = _probs(d)
    mass = sympy.S.Zero
    for n, v in enumerate(order, 1):
        mass = mass + p[v]
        if d._ev.expr_sign(mass - P) >= 0:
            return _truncate(d, order, order[:n])
    return _truncate(d, order, order)


def _probs(d):
    return [d.graph.sym(f"p[{v}]") for v in range(d.spec.V)]


def _truncate(d, order, kept) -> Truncated:
    p = _probs(d)
    mass = sympy.Add(*[p[v] for v in kept])
    probs = {v: (p[v] / mass if v in kept else sympy.S.Zero) for v in range(d.spec.V)}
    cum, acc = [], sympy.S.Zero
    for v in order:
        acc = acc + p[v]
        cum.append(acc)
    return Truncated(list(kept), probs, cum)


def draw(d, u, probs=None) -> Choice:
    """Inverse CDF in token-id order: the first v with Σ_{i≤v} p_i > u.

    ``probs`` (exact expressions) defaults to p; u comes from the spec or the
    command line, so the draw is reproducible.
    """
    _model(d)
    if probs is None:
        probs = _probs(d)
    if isinstance(probs, dict) and sorted(probs, key=str) == sorted(range(d.spec.V), key=str):
        probs = [probs[v] for v in range(d.spec.V)]  # top_k(…).probs: {id: p}
    if not isinstance(probs, (list, tuple)) or len(probs) != d.spec.V or \
            not all(isinstance(q, (int, sympy.Expr)) and not isinstance(q, bool) for q in probs):
        raise InputError(f"probs: expected {d.spec.V} exact probabilities (SymPy expressions, one per token id, "
                         f"as from temperature() or top_k().probs), got {clip(repr(probs), 80)}")
    u = exact_number(u, "u")
    if not 0 <= u < 1:
        raise InputError(f"u: expected a number in [0, 1), got {u}")
    acc = sympy.S.Zero
    for v, q in enumerate(probs):
        acc = acc + q
        s = d._ev.expr_sign(acc - u)
        if s > 0:
            return Choice(d.spec.vocab[v], v, False)
    v = max(i for i, q in enumerate(probs) if q != 0)  # u lies in the last interval's edge
    return Choice(d.spec.vocab[v], v, True)


def continue_greedy(d, n) -> list:
    """n greedy tokens, each from a full exact forward pass on the longer input.

    >>> import symgpt
    >>> [c.token for c in continue_greedy(symgpt.load("bigram"), 2)]
    ['猫', '猫']
    """
    _model(d)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"n: expected an integer ≥ 0, got {n!r}")
    limits = getattr(d, "limits", None) or Limits()
    cost.check(dataclasses.replace(d.spec, sampling=dataclasses.replace(d.spec.sampling, n_continue=n)),
               limits, gradients=False)
    tokens = list(d.spec.input)
    out = []
    window = d.spec.n_ctx if d.spec.positions == "learned" else None    # a learned table has n_ctx rows
    for _ in range(n):
        graph = build(d.spec, tuple(tokens[-window:] if window else tokens))   # nanoGPT crops to block_size
        c = greedy(SimpleNamespace(spec=d.spec, graph=graph, _ev=Evaluator(graph)))
        out.append(c)
        tokens.append(c.id)
    return out
