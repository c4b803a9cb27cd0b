"""Sampling from a model known only through enclosures of its logits: a state after training steps.

:mod:`symgpt.training.sampling` samples the spec's own model, whose logits are exact expressions. After SGD or AdamW
steps (``sgd[3]``) the logits are arb balls of a trace, so here each share is a ball of the same formula, and each
choice a tie-break cannot settle is decided by the balls or not at all: top-k keeps the k tokens whose logits lie
above every other token's, top-p the shortest prefix whose mass is above P, and a comparison the balls do not decide
raises :class:`UndecidableError` (the certifying loop then asks for more bits, and gives up at its ceiling: an exact
tie in a trained model is never guessed).

>>> from flint import arb
>>> z = [arb(1), arb(0), arb(-1)]
>>> round(float(softmax_T(z, 1, 0).mid()), 6), round(float(top_k(z, 2, 0).mid()), 6), top_p(z, 0.5, 1)
(0.665241, 0.731059, 0)
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq

from ..core.numeric import UndecidableError


def _arb(x) -> arb:
    """An exact number (int, Fraction, fmpq, decimal text) or a ball as a ball at the working precision."""
    if isinstance(x, arb):
        return x
    if isinstance(x, fmpq):
        return arb(x)
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def softmax_T(z: list, T, v: int):
    """exp(z_v/T) / Σ_k exp(z_k/T) over the balls ``z``; ``T`` exact and > 0, or None for T → ∞ (1/V).

    >>> from flint import arb
    >>> float(softmax_T([arb(0), arb(0)], 2, 1).mid()), softmax_T([arb(5), arb(0)], None, 0)
    (0.5, 1/2)
    """
    if T is None:
        return fmpq(1, len(z))
    return _shares(z, T)[v]


def _shares(z: list, T=1) -> list:
    """Every token's exp(z_k/T) / Σ exp(z/T), the exponentials taken once (shifted by a largest logit: no overflow;
    the logits before any step may be exact, a bigram's)."""
    z, t = [_arb(x) for x in z], _arb(T)
    top = max(range(len(z)), key=lambda k: z[k].mid())
    e = [((x - z[top]) / t).exp() for x in z]
    total = sum(e, arb(0))
    return [x / total for x in e]


def _above(z: list, kept: list) -> None:
    """Decide that every kept token's logit lies above every other token's (else UndecidableError)."""
    rest = [k for k in range(len(z)) if k not in kept]
    if not rest:
        return
    low = min(kept, key=lambda k: z[k].lower())
    high = max(rest, key=lambda k: z[k].upper())
    if not z[low].lower() > z[high].upper():
        raise UndecidableError(f"the logits of tokens {low} and {high} are not told apart: {z[low]}, {z[high]}")


def _order(z: list) -> list:
    """Token ids by decreasing logit midpoint (each cut of it decided by :func:`_above` where it matters)."""
    return sorted(range(len(z)), key=lambda k: (-z[k].mid(), k))


def top_k(z: list, k: int, v: int):
    """p_v renormalised over the k tokens of highest logit, 0 for a dropped token.

    >>> from flint import arb
    >>> round(float(top_k([arb(2), arb(1), arb(0)], 2, 1).mid()), 6), top_k([arb(2), arb(1), arb(0)], 1, 2)
    (0.268941, 0)
    """
    z = [_arb(x) for x in z]
    kept = _order(z)[:k]
    _above(z, kept)
    if v not in kept:
        return fmpq(0)
    return softmax_T([z[i] for i in kept], 1, kept.index(v))


def top_p(z: list, P, v: int):
    """p_v renormalised over the shortest prefix of the ranking whose mass reaches ``P`` (≥, decided), 0 for a
    dropped token.

    >>> from flint import arb
    >>> (top_p([arb(3), arb(0), arb(0)], "0.9", 0) - 1).contains(0), top_p([arb(3), arb(0), arb(0)], "0.9", 1)
    (True, 0)
    """
    z = [_arb(x) for x in z]
    order, p, P = _order(z), _shares(z), _arb(P)
    highest = sorted((q.upper() for q in p), key=lambda b: -b.mid())
    mass, bound = arb(0), arb(0)
    for n, k in enumerate(order, 1):
        mass, bound = mass + p[k], bound + highest[n - 1]
        if n < len(order) and bound < P:
            continue          # no n tokens at all, whichever the balls allow, reach P: the nucleus is larger
        if n < len(order) and not mass >= P:
            raise UndecidableError(f"the mass of the {n} most probable tokens, {mass}, is not told apart from P")
        break
    kept = order[:n]
    _above(z, kept)           # (and these n are the n most probable: the nucleus)
    if v not in kept:
        return fmpq(0)
    return p[v] / mass
