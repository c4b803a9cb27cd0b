r"""Markdown and LaTeX pieces for notebook display: escapes, tables, printed numbers.

Low in the package (it imports only :mod:`symgpt.core.safe` and :mod:`mpmath`), so
that :mod:`symgpt.training.train` can lay out a :class:`~symgpt.training.train.Trace` with it;
the display of a derivation and of one quantity is in :mod:`symgpt.documents.display`.
Every figure laid out here is a certified string computed by the caller.

>>> print(md_table(["k", "loss"], [["0", "1.05"], ["1", "0.889"]]))
| k | loss |
| ---: | ---: |
| 0 | 1.05 |
| 1 | 0.889 |
>>> print(latex_table(["k", r"\mathcal{L}"], [["0", "1.05"]]))
\begin{array}{rr} k & \mathcal{L} \\ \hline 0 & 1.05 \end{array}
"""
from __future__ import annotations

import re

import mpmath

from .safe import is_control, shown


def md_text(text) -> str:
    r"""Text made literal in Markdown (names, titles, meanings): specials escaped, controls shown.

    >>> md_text("a_b*[x]"), md_text("<pad>"), md_text("a\x1b"), md_text("50%"), md_text("{}")
    ('a\\_b\\*\\[x\\]', '&lt;pad&gt;', 'a\\\\x1b', '50%', '{}')
    """
    out = []
    for ch in str(text):
        if ch in "\\`*_[]#|$~":
            out.append("\\" + ch)
        elif ch in "<>&":
            out.append({"<": "&lt;", ">": "&gt;", "&": "&amp;"}[ch])
        elif is_control(ch):
            out.append("\\" + shown(ch))
        else:
            out.append(ch)
    return "".join(out)


def md_code(text) -> str:
    """Text as inline code (a name to type), controls shown: a fence one backtick longer than the
    longest run of backticks inside, padded with a space when the text starts or ends with one
    (a CommonMark code span strips one such space on each side).

    >>> md_code("p[你]"), md_code("a`b"), md_code("x``y"), md_code("a`")
    ('`p[你]`', '``a`b``', '```x``y```', '`` a` ``')
    """
    s = "".join(shown(ch) if is_control(ch) else ch for ch in str(text))
    longest = max((len(run) for run in re.findall("`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_table(head, rows, align=None) -> str:
    r"""A Markdown (GFM) table of cells already in Markdown; ``align`` one of l/r per column (default r).

    Every ``|`` in a cell is escaped: GFM splits cells on ``|`` even inside a
    code span, where ``\|`` then shows as ``|``.

    >>> print(md_table(["name", "value"], [["`|`", "0.5"]], align="lr"))
    | name | value |
    | --- | ---: |
    | `\|` | 0.5 |
    """
    align = align or "r" * len(head)
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = [[_cell(c) for c in head], rule, *[[_cell(c) for c in r] for r in rows]]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _cell(text: str) -> str:
    r"""A table cell with each ``|`` not already escaped escaped (``\|`` from :func:`md_text` stays).

    >>> _cell("a|b"), _cell("a\\|b"), _cell("`x|y`")
    ('a\\|b', 'a\\|b', '`x\\|y`')
    """
    return re.sub(r"(?<!\\)((?:\\\\)*)\|", r"\1\\|", text)


def latex_table(head, rows, align=None) -> str:
    r"""A LaTeX ``array`` (math mode) of cells already in LaTeX, the head ruled off.

    >>> print(latex_table(["x", "y"], [["1", "2"], ["3", "4"]], align="lr"))
    \begin{array}{lr} x & y \\ \hline 1 & 2 \\ 3 & 4 \end{array}
    """
    align = align or "r" * len(head)
    body = [" & ".join(head) + r" \\ \hline"] + [" & ".join(r) for r in rows]
    return rf"\begin{{array}}{{{align}}} " + r" \\ ".join(body[1:]).join([body[0] + " ", ""]) + r" \end{array}"


def tex_number(s: str) -> str:
    r"""A certified decimal string in LaTeX: ``2.5e-7`` → ``2.5 \times 10^{-7}``.

    >>> tex_number("2.5e-7"), tex_number("-0.125")
    ('2.5 \\times 10^{-7}', '-0.125')
    """
    mant, _, e = s.partition("e")
    return rf"{mant} \times 10^{{{int(e)}}}" if e else s


def exact_text(q) -> str:
    """An exact rational (a spec's lr, ε) as its decimal when it terminates, else ``p/q``.

    >>> from fractions import Fraction
    >>> exact_text(Fraction(1, 10)), exact_text(Fraction(1, 3)), exact_text(Fraction(-5, 4)), exact_text(3)
    ('0.1', '1/3', '-1.25', '3')
    """
    p, n = int(q.numerator), int(q.denominator)
    k, m = 0, n
    for f in (2, 5):
        while m % f == 0:
            m //= f
    if m != 1:
        return f"{p}/{n}"
    while (10 ** k) % n:
        k += 1
    digits = str(abs(p) * (10 ** k // n)).rjust(k + 1, "0")
    body = digits if k == 0 else f"{digits[:-k]}.{digits[-k:]}"
    return ("-" if p < 0 else "") + body


# ---------------------------------------------------------------- numbers that print what they are

_CONTEXTS: dict = {}


def context(dps: int) -> mpmath.ctx_mp.MPContext:
    """A private mpmath context at ``dps`` digits (one per dps); the global ``mp`` is left alone.

    >>> context(30).dps, mpmath.mp.dps
    (30, 15)
    """
    if dps not in _CONTEXTS:
        ctx = mpmath.MPContext()
        ctx.dps = dps
        _CONTEXTS[dps] = ctx
    return _CONTEXTS[dps]


def printed_mpf(x: mpmath.mpf, text, dps: int):
    """The mpmath number ``x`` (all its bits kept) in the private context of ``dps`` digits, printing as ``text``.

    ``text`` is the certified rounding of the quantity (:meth:`symgpt.Derivation.value`),
    or a function giving it, called on the first print only (certifying can be slow
    near a rounding boundary, and a number used only in arithmetic never pays for
    it); so ``str``/``repr`` show only certified digits. mpmath's own printing rounds
    the binary value to nearest, which can differ from the true value's rounding
    in the last digit when the value lies near a rounding boundary.  Arithmetic
    on it gives plain numbers of that context (they print ``dps`` digits, as any
    mpmath number, without a certificate).

    >>> x = printed_mpf(mpmath.mpf(1) / 3, "0.333", 3)
    >>> str(x), repr(x), str(x * 3)
    ('0.333', "mpf('0.333')", '1.0')
    >>> str(printed_mpf(mpmath.mpf(2) / 3, lambda: "0.667", 3))
    '0.667'
    """
    ctx = context(dps)
    cls = _printed_class(ctx)
    out = cls.__new__(cls)
    out._mpf_ = x._mpf_  # every bit of x (a conversion would round to the context's precision)
    out._text = text
    return out


def _text(x) -> str:
    if callable(x._text):
        x._text = x._text()
    return x._text


_CLASSES: dict = {}


def _printed_class(ctx):
    if id(ctx) not in _CLASSES:
        def __str__(self):
            return _text(self)

        def __repr__(self):
            return f"mpf('{_text(self)}')"
        _CLASSES[id(ctx)] = type("mpf", (ctx.mpf,), {"__str__": __str__, "__repr__": __repr__,
                                                     "__doc__": "An mpf printing its certified digits."})
    return _CLASSES[id(ctx)]
