"""Why a printed figure is wrong: the causes seen in hand-computed tutorials.

A figure that rounds from no quantity is *wrong* when either its own
arithmetic (``2.175 / 4.789 ≈ 0.454``) or its context (``p(你) = 0.0851``
in a row labelled 你) points to a quantity whose value is near it.  The cause
is the first of these that explains the printed digits:

* **carried rounding**: the figure's own chain, computed exactly from the
  rounded figures the document printed before, rounds to it;
* **round-half-even**: the value is exactly halfway, and rounding the tie to
  the even digit gives it (half away from zero is the convention checked);
* **truncation**: the value cut (not rounded) at the printed place gives it;
* **float artefact**: it carries float64's error (``0.30000000000000004``);
* **transposed index**: it is the value of the same quantity with its
  indices swapped (``A[0,1]`` printed for ``A[1,0]``);
* **last-digit slip**: only the last printed digit differs;
* **swapped digits**: two neighbouring digits trade places;
* **scale slip**: the context names a quantity that is the figure times 10 or 100 (``0.0851`` printed
  as ``0.851``); **percent slip**: a fraction printed with a % sign (``λ = 0.1`` as ``0.1%``);
* **plain error**: none of these.

The distance is (printed − exact) in units of the last printed place.

>>> from fractions import Fraction
>>> cause_of(Fraction("0.4539"), Fraction("0.45398"), 4, chain_ok=False)
'truncation'
>>> cause_of(Fraction("0.124"), Fraction("0.1245"), 3, chain_ok=False, tie_even="0.124")
'round-half-even'
"""
from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from ..core.numeric import UndecidableError, round_decimals
from .candidates import _bounds, _integral, _same_value
from .causes import CAUSES, SPREAD, cause_of, diagnosis, exact_value, slips
from .claims import certify_rounding, show
from .context import SIZES, _names, _pinned, score
from .figure import FORMATS, NEAR_RELATIVE, NEAR_ULPS, Result, cell, own_statistic, printed, rounds_to
from .figure import operand as _operand
from .refs import ExprError, bind, parse
from .symbols import plain

__all__ = ["CAUSES", "cause_of", "diagnose", "slipped", "wrong"]
STRONG = 4.0          # the context score that names a quantity on its own
CARRIED = 12          # last places a rounding carried through a figure's own arithmetic may move it
COUNTS = ("y", "onehot", "id")   # integers by definition: a figure near one is no wrong figure of it


_value = exact_value      # (the name the matcher's modules use)


def _bounds_of(b):
    return _bounds(b)


def _chain_rounds(m, n) -> tuple:
    """(does the chain computed exactly from its printed operands round to the figure, its rounding)."""
    if not n.chain:
        return False, None
    try:
        q = bind(parse(n.chain, m.d.limits), m.d, m.d.limits)
        if n.kind in ("power", "fraction"):
            return False, None
        r, _, _ = certify_rounding(q, printed(n))
        return Fraction(r) == n.value, r
    except (ExprError, UndecidableError, ArithmeticError, ValueError, KeyError):
        return False, None


def diagnose(m, n, ctx, prev, dc=None, sure=False):
    """A figure no candidate rounds to: a wrong figure with its likely quantity and cause, or unmatched.

    ``dc`` is the figure's own arithmetic over its operands' quantities (None without one); ``sure``
    says every operand was named by its context, so that arithmetic outranks the context's symbol."""
    chain_ok, chain_value = _chain_rounds(m, n)
    scale = 100 if n.kind == "percent" else 1
    y = n.value / scale
    ulp = Fraction(1, 10 ** n.decimals) / scale
    if n.kind == "integer" and not chain_ok:
        return _count(m, n, ctx, prev)
    if n.kind in ("power", "fraction") and not chain_ok:
        return Result(n, "unmatched")
    if not chain_ok and (_operand(n) or own_statistic(n)):
        return Result(n, "unmatched")   # 1.11 in (1.11/1.11): what it is, only its own equation could say
        #                                 (and \overline{\delta^z} = −0.0052: the author's own mean, no node)
    window = max(NEAR_ULPS * ulp, abs(y) * NEAR_RELATIVE)
    if FORMATS.search(" ".join((n.column, n.row, n.before[-12:], n.table))):
        return Result(n, "unmatched")   # a float32 or bf16 value, printed to show that format's error
    near = [c for c in m.nearby(n, y - window, y + window) if not _integral(c.ball)
            and c.group not in COUNTS and not (c.meets(Fraction(0), Fraction(0)) and abs(y) > ulp)]
    if dc is not None and dc.meets(y - window, y + window):
        near.append(dc)
    ranked = sorted(((score(c, ctx, prev), -i, c) for i, c in enumerate(near)), key=lambda t: (-t[0], t[1]))
    best = _slip_fit(m, n, y, ulp, ctx, prev)
    named = [r[2] for r in ranked if r[0] >= max(STRONG, ranked[0][0] - 2) and r[2] is not dc
             and _named_by(r[2], ctx)] if ranked else []
    near_dc = dc is not None and n.chain and dc.meets(y - window, y + window)
    if near_dc and named:               # its arithmetic lands within 2 last places, the named symbol 20 away:
        off = lambda c: abs(_value(c.q, 128) - y) / ulp     # noqa: E731 - q0 · k1 = … = 1.241 is no K[1,1]
        sure = sure or off(dc) <= 2 and all(off(c) > 20 for c in named)
    if best is not None:
        pass                            # a formula slip of one quantity gives its digits: σ² over d − 1
    elif near_dc and sure:
        best = _node_for(m, dc, near, ctx, prev)   # 1.050×0.644 + 0.560×1.009 = 1.241: that dot product
    elif named:                         # the context names it: q1,0 = … = 0.882 is Q[1,0]; among
        best = min(named, key=lambda c: abs(_value(c.q, 128) - y))   # names as good, the nearest value
    elif near_dc:
        best = _node_for(m, dc, near, ctx, prev)   # else its own arithmetic does: a×b = c is a·b
    elif ranked:
        top = ranked[0][0]
        need = 0.0 if chain_ok else STRONG
        if top >= need and (chain_ok or _named_by(ranked[0][2], ctx)):
            tied = [r[2] for r in ranked if r[0] == top]
            best = min(tied, key=lambda c: abs(_value(c.q, 128) - y))
            if chain_ok and top < STRONG and not _named_by(best, ctx) and abs(_value(best.q, 128) - y) > CARRIED * ulp:
                best = None             # its own arithmetic holds, nothing names it, and no quantity is a
                #                         carried rounding away (SiLU(g) = 1.1975 × 0.7681 = 0.9198: no node)
    if best is None and not chain_ok:
        best = _lone(m, n, near, y, ulp)
    if best is None:
        return Result(n, "unmatched", candidates=[r[2].ref for r in ranked[:3]])
    best = _with_eps(m, best, n)
    transposed = any(c.group == best.group and len(c.idx) == 2 and c.idx == best.idx[::-1] and
                     c.idx != best.idx and _near_round(c, n) for c in m.every)   # (every: a batch's mean too)
    return wrong(n, best, [r[2].ref for r in ranked[:3]], ranked[0][0] if ranked else 0.0,
                 chain_ok=chain_ok, chain_value=chain_value, transposed=transposed, d=m.d)


def _with_eps(m, best, n):
    """√(σ²) as the norm's denominator √(σ² + ε) when the two round alike at the figure's places: what a worked
    row divides by (a wrong root is that denominator's)."""
    if not best.ref.startswith("sqrt("):
        return best
    eps = next((c for c in m.cands if c.ref == f"{best.ref[:-1]} + ln_eps)"), None)
    k = n.decimals + (2 if n.kind == "percent" else 0)
    try:
        same = eps is not None and round_decimals(eps.q.ball(256), k) == round_decimals(best.q.ball(256), k)
    except UndecidableError:
        same = False
    return eps if same else best


SLIP_PREV = 6        # the figures before a slip that name its entry when several entries' slips print alike
SLIP_DIGITS = 4      # significant digits a figure needs before a formula slip of one quantity names it alone


def _slip_fit(m, n, y: Fraction, ulp: Fraction, ctx, prev):
    """The one quantity whose formula slip (:func:`symgpt.claims.causes.slips`: σ² or a mean square over d − 1,
    −log₁₀ for −ln, …) rounds to the figure, among those the section may speak of: ``0.3221`` for σ²_f[2] =
    0.2416 × 4/3.  A figure of fewer than four significant digits needs its context to name the quantity too.
    Entries of one node (X[1,0], E[爱,0]) count once; a slip several quantities share names none."""
    digits = n.significant
    if n.kind != "decimal" or not y or digits < 3:
        return None
    if not hasattr(m, "_slips"):
        some = [c for c in m.cands if any(slips(c.ref, Fraction(s, 2), m.d.spec) for s in (-1, 1))]   # by name
        m._slips = [(c, v) for c in some for v in slips(c.ref, _value(c.q, 128), m.d.spec).values()]
    quiet = {id(c) for c in m.nearby(n, Fraction(-10 ** 9), Fraction(10 ** 9))} if m.silent.get(n.section) else None
    squares = SQUARES_SAID.search(ctx.text + " " + ctx.far)
    fits = [c for c, v in m._slips if abs(v - y) * 2 <= ulp and (quiet is None or id(c) in quiet)
            and (digits >= SLIP_DIGITS or _named_in(c, ctx) or squares and SPREAD.fullmatch(c.ref))]
    refs = {c.ref for c in fits}
    fits = [c for c in fits if not (c.ref.startswith("sqrt(") and f"{c.ref[:-1]} + ln_eps)" in refs)]   # √(σ² + ε)
    if len({_value(c.q, 128) for c in fits}) != 1:
        told = plain(n.line_text[:n.col])
        said = [c for c in fits if c.of and entry_named(c.of, c.idx, c.axes, told, m.vocab)]
        just = {(p.of, p.idx) for p in prev[-SLIP_PREV:] if p is not None and p.of}
        fits = said if len({(c.of, c.idx) for c in said}) == 1 else [c for c in fits if c.of and (c.of, c.idx) in just]
        if len(fits) != 1:           # (every entry's update slips to ±η·(1 − β₁)/√(1 − β₂): the entry its line
            return None              #  names, 'for W^Q_{2,0} the step is …', else the entry whose m and v were
            #                          printed just before it, '更新量 ＝ 3.162e-3' under m₁ and v₁)
    return max(fits, key=lambda c: score(c, ctx, prev))


def entry_named(of: str, idx: tuple, axes: str, text: str, vocab) -> bool:
    """Whether plain ``text`` writes the parameter entry ``of[idx]`` (indices from 0; on a token axis, ``v`` in
    ``axes``, its word or its id): ``W_Q[2,0]``, ``W_Q_{2,0}`` (``W^Q_{2,0}`` made plain), ``E[varmt,3]``.

    >>> text = "För W_Q_{2,0} blir steget"
    >>> entry_named("W_Q", (2, 0), "jd", text, []), entry_named("W_Q", (0, 2), "jd", text, [])
    (True, False)
    >>> v = ["kallt", "varmt"]
    >>> entry_named("E", (1, 3), "vj", "E[varmt,3] =", v), entry_named("E", (1, 3), "vj", "E[kallt,3]", v)
    (True, False)
    """
    name = r"_?\{?".join(re.escape(part) for part in of.split("_"))

    def key(i, axis) -> str:
        words = [str(i)] + ([re.escape(vocab[i])] if axis == "v" and 0 <= i < len(vocab) else [])
        return "(?:" + "|".join(words) + ")"

    keys = r"\s*,\s*".join(key(i, a) for i, a in zip(idx, axes))
    return re.search(rf"(?<![\w\\]){name}\s*_?\s*[\[{{(]\s*,?\s*{keys}\s*[\]}})]", text) is not None


SQUARES_SAID = re.compile(r"(?:[Σ∑]|\\sum).{0,30}(?:²|\^\{?2)|\brms|mean.?sq|variance|varianz|variância|"
                          r"varianza|σ²|σ\^\{?2", re.I)
"""Words or a formula beside a figure that say it is a mean of squares (``(1/4)·Σ (h₃ + f₃)_j²``, 'RMSNorm',
'variance'): a norm's spread, whose slip over d − 1 then names it with three significant digits."""

LONE_DIGITS = 5      # significant digits a figure needs before a lone quantity one place away names it


def _lone(m, n, near: list, y: Fraction, ulp: Fraction):
    """The one quantity a figure of five or more significant digits misses by one unit of its last place (cut
    instead of rounded, or its last digit slipped), when no other quantity is within ten units: ``5.2243`` for
    Σ e^z = 5.22446.  A figure that precise lands that near a quantity it is not about only by chance: one in
    several thousand per quantity."""
    digits = n.significant
    if n.kind != "decimal" or digits < LONE_DIGITS or not y:
        return None
    close = [c for c in near if c.q is not None and c.group not in m.d.spec.params and
             abs(_value(c.q, 128) - y) <= 10 * ulp]
    nodes = {_value(c.q, 128) for c in close}
    if len(nodes) != 1 or abs(next(iter(nodes)) - y) >= Fraction(3, 2) * ulp:    # its rounding one digit off
        return None
    return close[0]


def _node_for(m, dc, near, ctx, prev):
    """The arithmetic's quantity, as the graph node it equals when there is one (2.175 + 2.614 is A_den[1]),
    the one the context names best; else the arithmetic itself."""
    same = [c for c in near if c is not dc and c.group not in m.d.spec.params and _same_value(c, dc)]
    return max(same, key=lambda c: score(c, ctx, prev)) if same else dc


def wrong(n, best, candidates, score: float, *, chain_ok=False, chain_value=None, transposed=False, spec=None,
          d=None):
    """The wrong-figure verdict on figure ``n`` for the quantity ``best``, with its cause and distance."""
    scale = 100 if n.kind == "percent" else 1
    y, ulp = n.value / scale, Fraction(1, 10 ** n.decimals) / scale
    x = _value(best.q)
    k = n.decimals + (2 if n.kind == "percent" else 0)
    cause = diagnosis(best.q, n.value, n.kind, n.decimals, n.text, chain_ok=chain_ok, transposed=transposed,
                      ref=best.ref, spec=spec, d=d)
    correct = round_decimals(best.q.ball(256), k)
    if n.kind == "percent" and correct is not None:
        correct = f"{Decimal(correct) * 100:.{n.decimals}f}%"      # exact: correct has decimals + 2 places
    return Result(n, "wrong", best.ref, candidates, score, correct=correct,
                  exact=show(best.q, best.q.ball(256), 256, 12), cause=cause,
                  distance=f"{float((y - x) / ulp):.2g}", chain_value=chain_value)


MAGNITUDE = re.compile(r"\s*(?:万|亿|千|百万|million|billion|thousand|[kMB]\b)", re.I)


def _count(m, n, ctx, prev):
    """An integer that no count rounds to: wrong only when the word right beside it names a count the model's
    sizes give ('全部 18 个参数', '总参数38'; not a size itself, d or T), no magnitude word follows (5 万亿参数
    is another model's), and that count is within a factor of three."""
    near = n.before[-4:] + " " + n.after[:6]
    if MAGNITUDE.match(n.after):
        return Result(n, "unmatched")
    y = n.value
    named = [c for c in m.cands if _integral(c.ball) and c.group not in COUNTS + SIZES and c.meets(y / 3, y * 3)
             and any(len(a) > 1 and a in near.lower() for a in _names(c))]
    #        (a size the spec sets, said otherwise, is another model's: 'next lecture, T = 8'; a count is worked)
    if len(named) != 1:
        return Result(n, "unmatched")
    return wrong(n, named[0], [named[0].ref], 0.0, d=m.d)


def _named_by(c, ctx) -> bool:
    """The context names the quantity itself (its symbol, or its table's label with every index)."""
    return ctx.symbol in _names(c) or _pinned(c, ctx)


def _near_round(c, n) -> bool:
    return rounds_to(c, n)


WORDED = frozenset({"loss drop"})
"""Quantities a text names by words alone, with no symbol of their own ('J fell …, a drop of 49 %')."""
NAMES_SLIP = 3.0     # the context score a quantity needs before a ×10 / ×100 / % slip is blamed on it …
SLIP_GAP = 2.0       # … and by how much it must name it better than anything that rounds to the figure


WORKED = re.compile(r"\d\s*[-+×*/·÷]\s*\(?-?\d[\d.]*\)?\s*(?:=|≈)\s*$")
"""Arithmetic written out just before a figure (``0.1 × 0.1491 ≈``): the figure is its result."""


def slipped(m, n, ctx, prev, best_hit: float, recent: frozenset = frozenset()):
    """A wrong figure off by a power of ten from the quantity its context names: the %-sign on a fraction
    (``收 0.1% 的税`` beside ``weight decay`` when λ = 0.1), or a decimal point moved by one or two places.
    None unless exactly one quantity is named (NAMES_SLIP, SLIP_GAP above ``best_hit``, the best score of the
    quantities that do round to it) and its value, so scaled, rounds to the printed digits.

    >>> import symgpt
    >>> from symgpt.claims.extract import extract
    >>> from symgpt.claims.match import Matcher
    >>> from symgpt.claims.context import context
    >>> m = Matcher(symgpt.load("bigram"))
    >>> n = extract("weight decay 每步收 0.1% 的税")[0]
    >>> r = slipped(m, n, context(n, m.vocab), [], 0.0)
    >>> r.ref, r.cause, r.correct
    ('adamw.weight_decay', 'percent slip', '10.0%')

    ``recent``: the quantities of the figures just above it, which name it as well as a symbol would when its
    digits (three or more) are theirs (``−ln(0.146264) …`` then 'only 1.46 % for the right word').
    """
    import dataclasses

    if n.kind not in ("decimal", "percent") or n.value == 0:
        return None
    y = n.value / (100 if n.kind == "percent" else 1)
    digits = n.significant            # as printed (3.30 % has three: the zero after its point counts)
    worked = WORKED.search(plain(n.line_text[:n.col])) is not None        # the result of arithmetic written out
    k0 = n.decimals + (2 if n.kind == "percent" else 0)
    readings = []                     # (the figure as it would print the quantity's value, the cause)
    fraction = n.kind == "percent" and 0 < abs(n.value) < 1 and digits >= 2     # 0.42 %: a share's 0.4202 with a
    #                                                                            % sign (no share is 0.0042)
    if n.kind == "percent":
        readings.append((dataclasses.replace(n, kind="decimal"), "percent slip"))
    for e in (-2, -1, 1, 2):          # the value is y·10^e, printed with e places fewer
        if k0 - e >= 0:
            readings.append((dataclasses.replace(n, kind="decimal", value=y * Fraction(10) ** e, decimals=k0 - e),
                             "scale slip"))
    readings = [(r, cell(r), why) for r, why in readings if why != "scale slip" or not _operand(n)]
    #            (an operand, 0.04 in (0.25 + 0.09 + 0.04 + 0.16) / 4, is the arithmetic's, no slipped quantity)
    named = []
    for c in m.cands:
        if _integral(c.ball) or c.group in COUNTS or c.meets(Fraction(0), Fraction(0)):
            continue
        near = [(r, why) for r, box, why in readings if c.meets(*box)]     # cheap: the 64-bit enclosure
        shown = c.ref in recent and (digits >= 3 or fraction) and not n.chain and not worked   # (0.1 × 0.1491 ≈
        #                                                                                       0.0149)
        if not near or not (shown or _named_in(c, ctx)):
            continue
        sc = score(c, ctx, prev) + (NAMES_SLIP if c.group in WORDED else 0)   # (one word is all a drop has)
        if sc < max(NAMES_SLIP, best_hit + SLIP_GAP) and not shown:
            continue
        cause = next((why for r, why in near if rounds_to(c, r)), None)          # certified
        if cause == "percent slip" or cause == "scale slip" and (shown or _named_by(c, ctx) or c.group in WORDED):
            named.append((sc, c, cause))     # a moved point needs the symbol itself (λ = 0.01), not a word nearby
            #                                  (but a drop has no symbol: 'a drop of 4.9 %' is named by its words)
    if not named:
        return None
    top = max(sc for sc, _, _ in named)
    named = [t for t in named if t[0] == top]
    if len({c.ref for _, c, _ in named}) != 1:
        return None
    sc, c, cause = named[0]
    return dataclasses.replace(wrong(n, c, [c.ref], sc, d=m.d), cause=cause)


def _named_in(c, ctx) -> bool:
    """The quantity's symbol, or a name of it longer than one letter, is written beside the figure."""
    return _named_by(c, ctx) or any(len(a) > 1 and a in ctx.text for a in _names(c))
