"""Pictures as data, and the same data drawn as SVG (deterministic, no dependency).

A figure is a plain dict built from certified strings; the LaTeX templates
draw it with pgfplots/TikZ, :func:`svg` draws it for Markdown.  Geometry is
computed from the decimal strings with exact fractions and printed with two
decimals, so the same document always gives the same bytes.

>>> f = bars(["a", "b"], ["0.25", "0.75"], 1, 0)
>>> f["kind"], f["ymax"]
('bars', '0.8')
>>> svg(f).startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
"""
from __future__ import annotations

from fractions import Fraction
from xml.sax.saxutils import escape

from . import diagrams
from .safe import visible

BLUE = (37, 99, 235)
FONT = "font-family=\"Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif\""


def _nice_max(values) -> Fraction:
    """The smallest of 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, … ×10^k at or above max(values).

    >>> _nice_max(["0.255"]), _nice_max(["2.5"]), _nice_max(["0"])
    (Fraction(3, 10), Fraction(5, 2), Fraction(1, 1))
    """
    top = max((Fraction(v) for v in values), default=Fraction(0))
    if top <= 0:
        return Fraction(1)
    scale = Fraction(1)
    while scale > top:
        scale /= 10
    while scale * 10 <= top:
        scale *= 10
    for m in (1, 2, Fraction(5, 2), 3, 4, 5, 6, 8, 10):
        if m * scale >= top:
            return m * scale
    return 10 * scale


def _dec(q: Fraction) -> str:
    """A fraction as a short exact-or-rounded decimal for axis limits.

    >>> _dec(Fraction(3, 10)), _dec(Fraction(5, 2)), _dec(Fraction(1))
    ('0.3', '2.5', '1')
    """
    s = f"{float(q):.6f}".rstrip("0").rstrip(".")
    return s or "0"


def bars(labels, values, best: int, target: int) -> dict:
    """Next-token probabilities: one bar per token; ``best`` and ``target`` marked."""
    return {"kind": "bars", "labels": list(labels), "values": list(values), "best": best,
            "target": target, "ymax": _dec(_nice_max(values)),
            "bars": [{"i": i, "label": lab, "value": v, "best": i == best, "target": i == target}
                     for i, (lab, v) in enumerate(zip(labels, values))]}


def heatmap(rows, cols, values, masked) -> dict:
    """Attention weights: rows are queries, columns keys; masked cells are left blank.

    ``shade`` is the fill strength 0–100 (the weight in per cent, rounded).
    """
    cells = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            shade = int((Fraction(v) * 100).__round__()) if not masked[i][j] else 0
            cells.append({"i": i, "j": j, "value": v, "masked": bool(masked[i][j]),
                          "shade": max(0, min(100, shade)), "dark": shade > 55})
    return {"kind": "heat", "rows": list(rows), "cols": list(cols), "values": values,
            "n": len(rows), "m": len(cols), "cells": cells}


def line(xs, ys) -> dict:
    """A curve through (x, y) points, e.g. the loss after each training step."""
    return {"kind": "line", "points": [{"x": x, "y": y} for x, y in zip(xs, ys)],
            "xmin": xs[0], "xmax": xs[-1], "ymax": _dec(_nice_max(ys))}


# ---------------------------------------------------------------- SVG

def _f(x) -> str:
    return f"{float(x):.2f}"


def xml_text(s) -> str:
    r"""Any text as XML 1.0 character data: control characters (not allowed in XML, or
    invisible) shown as their escapes, then ``& < > " '`` as entities.

    >>> xml_text('<a & "b">\x1b\x00\ufffe')
    '&lt;a &amp; &quot;b&quot;&gt;\\x1b\\x00\\ufffe'
    """
    return escape(visible(s), {'"': "&quot;", "'": "&apos;"})


def _text(x, y, s, anchor="middle", size=12, extra="") -> str:
    return (f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{size}" {FONT}{extra}>'
            f"{xml_text(s)}</text>")


def svg(fig: dict) -> str:
    """The figure as a standalone SVG document (UTF-8 text)."""
    return {"bars": _svg_bars, "heat": _svg_heat, "line": _svg_line, "diagram": diagrams.svg}[fig["kind"]](fig)


def _frame(w, h, body) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">\n'
            f'<rect width="{w}" height="{h}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _svg_bars(fig) -> str:
    n = len(fig["bars"])
    bw, gap, left, top, ph = 56, 16, 48, 24, 200
    w, h = left + n * (bw + gap) + gap, top + ph + 56
    ymax = Fraction(fig["ymax"])
    body = [f'<line x1="{left}" y1="{top + ph}" x2="{w - 8}" y2="{top + ph}" stroke="#333"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>',
            _text(left - 6, top + ph + 4, "0", "end", 11), _text(left - 6, top + 4, fig["ymax"], "end", 11)]
    for b in fig["bars"]:
        x = left + gap + b["i"] * (bw + gap)
        bh = Fraction(b["value"]) / ymax * ph
        colour = "#dc2626" if b["best"] else ("#16a34a" if b["target"] else "#2563eb")
        body.append(f'<rect x="{_f(x)}" y="{_f(top + ph - bh)}" width="{bw}" height="{_f(bh)}" fill="{colour}"/>')
        body.append(_text(x + bw / 2, top + ph - bh - 5, b["value"], size=11))
        body.append(_text(x + bw / 2, top + ph + 18, b["label"]))
        mark = "argmax" if b["best"] else ("target" if b["target"] else "")
        if mark:
            body.append(_text(x + bw / 2, top + ph + 36, mark, size=10, extra=f' fill="{colour}"'))
    return _frame(w, h, body)


def _svg_heat(fig) -> str:
    cw, ch, left, top = 64, 40, 96, 40
    w, h = left + fig["m"] * cw + 16, top + fig["n"] * ch + 16
    body = []
    for j, lab in enumerate(fig["cols"]):
        body.append(_text(left + j * cw + cw / 2, top - 12, lab))
    for i, lab in enumerate(fig["rows"]):
        body.append(_text(left - 8, top + i * ch + ch / 2 + 4, lab, "end"))
    for c in fig["cells"]:
        x, y = left + c["j"] * cw, top + c["i"] * ch
        if c["masked"]:
            body.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="#f3f4f6" stroke="#999"/>')
            body.append(_text(x + cw / 2, y + ch / 2 + 4, "−∞", extra=' fill="#999"'))
            continue
        k = Fraction(c["shade"], 100)
        rgb = tuple(int(round(255 - (255 - b) * k)) for b in BLUE)
        body.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="rgb{rgb}" stroke="#999"/>')
        body.append(_text(x + cw / 2, y + ch / 2 + 4, c["value"], extra=' fill="white"' if c["dark"] else ""))
    return _frame(w, h, body)


def _svg_line(fig) -> str:
    left, top, pw, ph = 56, 20, 420, 200
    w, h = left + pw + 24, top + ph + 40
    pts = fig["points"]
    x0, x1 = fig["xmin"], fig["xmax"]
    ymax = Fraction(fig["ymax"])
    X = lambda x: left + Fraction(x - x0, max(x1 - x0, 1)) * pw
    Y = lambda y: top + ph - Fraction(y) / ymax * ph
    body = [f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>',
            _text(left - 6, top + ph + 4, "0", "end", 11), _text(left - 6, top + 4, fig["ymax"], "end", 11),
            _text(left, top + ph + 18, x0, size=11), _text(left + pw, top + ph + 18, x1, size=11)]
    path = " ".join(f"{_f(X(p['x']))},{_f(Y(p['y']))}" for p in pts)
    body.append(f'<polyline points="{path}" fill="none" stroke="#2563eb" stroke-width="2"/>')
    for p in pts:
        body.append(f'<circle cx="{_f(X(p["x"]))}" cy="{_f(Y(p["y"]))}" r="3" fill="#2563eb"/>')
    return _frame(w, h, body)
