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

from . import figures

YMAX = 16


def picture(f, names=None) -> dict:
    """The chart as figure data (:func:`symgpt.figures.lines`): x the tensors in evaluation order (``names``,
    default the document's rows), y the fewest correct significant digits over each tensor's entries, one
    line per format."""
    from .doc_precision import digits, pipeline_rows
    names = names or pipeline_rows(f)
    return figures.lines(names, {fmt: [digits(f, fmt, name) for name in names] for fmt in f.formats}, YMAX,
                         "−log₁₀|δ/x|")


def svg(f, names=None) -> str:
    """The chart of a :class:`symgpt.precision.Forensics` as SVG."""
    return figures.svg(picture(f, names))
