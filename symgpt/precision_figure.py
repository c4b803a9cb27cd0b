"""A picture of the error along the pipeline: correct significant digits of every tensor, one line per format (SVG).

``python -m symgpt.precision SPEC --svg DIR`` writes ``DIR/NAME-precision.svg``.  Drawn with the helpers of
:mod:`symgpt.figures` (same fonts, grid and frame); like its pictures, the axis titles are symbols, never words.

>>> import symgpt
>>> from symgpt.precision import forensics
>>> s = svg(forensics(symgpt.load("bigram"), ["float32", "bfloat16"], births=False))
>>> s.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), s.count("<polyline")
(True, 2)
"""
from __future__ import annotations

from fractions import Fraction

from .figures import _f, _frame, _text, _y_axis

COLOURS = {"float64": "#2563eb", "float32": "#16a34a", "bfloat16": "#dc2626", "float16": "#d97706"}
"""One colour per format (blue, green, red, amber)."""
YMAX = 16


def svg(f, names=None) -> str:
    """The chart of a :class:`symgpt.precision.Forensics`: x the tensors in evaluation order (``names``, default
    the document's rows), y the fewest correct significant digits over each tensor's entries."""
    from .doc_precision import digits, pipeline_rows
    names = names or pipeline_rows(f)
    left, top, step, ph = 64, 36, 18, 240
    pw = step * max(len(names) - 1, 1)
    w, h = left + pw + 40, top + ph + 110
    X = lambda i: left + i * step
    Y = lambda y: top + ph - Fraction(y, YMAX) * ph
    body = _y_axis(left, top, ph, left + pw, "0", str(YMAX), [str(t) for t in range(0, YMAX + 1, 4)],
                   "−log₁₀|δ/x|")
    for i, name in enumerate(names):
        x = _f(X(i))
        body.append(f'<line x1="{x}" y1="{top + ph}" x2="{x}" y2="{top + ph + 4}" stroke="#333"/>')
        body.append(_text(X(i) + 4, top + ph + 10, name, "end", 11,
                          extra=f' class="xtick" transform="rotate(-60 {_f(X(i) + 4)} {_f(top + ph + 10)})"'))
    body.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>')
    for k, fmt in enumerate(f.formats):
        colour = COLOURS[fmt]
        pts = [(X(i), Y(digits(f, fmt, name))) for i, name in enumerate(names)]
        body.append(f'<polyline points="{" ".join(f"{_f(x)},{_f(y)}" for x, y in pts)}" fill="none" '
                    f'stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{_f(x)}" cy="{_f(y)}" r="2.5" fill="{colour}"/>' for x, y in pts]
        lx = left + k * 110
        body.append(f'<line x1="{lx}" y1="14" x2="{lx + 22}" y2="14" stroke="{colour}" stroke-width="3"/>')
        body.append(_text(lx + 28, 18, fmt, "start", 12, extra=' class="legend"'))
    return _frame(w, h, body)
