"""Pictures as data, and the same data drawn as SVG (deterministic, no dependency).

A figure is a plain dict built from certified strings; the LaTeX template
(``templates/tex/figure.tex.j2``) draws it with pgfplots/TikZ, :func:`svg` draws
it for Markdown.  Both read the same fields: each bar's ``role`` and its colour
from :data:`COLOURS`, the axis ticks and ranges, the cell labels.  Geometry is
computed from the decimal strings with exact fractions and printed with two
decimals, so the same document always gives the same bytes.

An SVG file is written once per spec, not per language, so its axis titles are
the document's symbols (``p``, ``𝓛``, ``k``, ``v``), never words; the PDF,
written per language, adds its language's words next to the same symbols.

>>> f = bars(["a", "b"], ["0.25", "0.75"], 1, 0)
>>> [b["role"] for b in f["bars"]], f["yticks"]
(['target', 'argmax'], ['0.0', '0.2', '0.4', '0.6', '0.8'])
>>> svg(f).startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
"""
from __future__ import annotations

import math
from fractions import Fraction
from xml.sax.saxutils import escape

from ..core.safe import visible
from . import diagrams

# One colour table for both formats: a bar's role → (red, green, blue); the heat map's ink.
COLOURS = {"argmax": (220, 38, 38), "target": (22, 163, 74), "other": (37, 99, 235), "heat": (37, 99, 235)}
FONT = "font-family=\"Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif\""
MATH_FONT = "font-family=\"STIX Two Math, Cambria Math, Latin Modern Math, serif\" font-style=\"italic\""
MAX_INTERVALS = 6


def _dec(q: Fraction) -> str:
    """A length as a short decimal (three places at most) for TikZ.

    >>> _dec(Fraction(12, 7)), _dec(Fraction(2))
    ('1.714', '2')
    """
    return f"{float(q):.3f}".rstrip("0").rstrip(".")


def hex_colour(role: str) -> str:
    """The colour of a role as six hex digits (LaTeX's ``HTML`` model, SVG's ``#…``).

    >>> hex_colour("argmax"), hex_colour("target"), hex_colour("other")
    ('DC2626', '16A34A', '2563EB')
    """
    return "".join(f"{c:02X}" for c in COLOURS[role])


def nice_step(lo: Fraction, hi: Fraction) -> Fraction:
    """The smallest step 1, 2 or 5 × 10^k that covers [lo, hi] in at most six intervals.

    >>> nice_step(Fraction(0), Fraction(3, 4)), nice_step(Fraction(1), Fraction(10))
    (Fraction(1, 5), Fraction(2, 1))
    >>> nice_step(Fraction(2), Fraction(2))
    Fraction(1, 1)
    """
    span = hi - lo
    if span <= 0:
        return Fraction(10) ** _exponent(abs(hi)) if hi else Fraction(1)
    k = _exponent(span) - 1
    while True:
        for m in (1, 2, 5):
            step = m * Fraction(10) ** k
            if math.ceil(hi / step) - math.floor(lo / step) <= MAX_INTERVALS:
                return step
        k += 1


def _exponent(q: Fraction) -> int:
    """The k with 10^k ≤ q < 10^(k+1), for q > 0 (exactly, no logarithm)."""
    k = 0
    while Fraction(10) ** k > q:
        k -= 1
    while Fraction(10) ** (k + 1) <= q:
        k += 1
    return k


def ticks(lo: Fraction, hi: Fraction, step: Fraction) -> list:
    """The multiples of ``step`` from ``lo`` rounded down to ``hi`` rounded up.

    >>> [str(t) for t in ticks(Fraction(3, 10), Fraction(9, 10), Fraction(1, 5))]
    ['1/5', '2/5', '3/5', '4/5', '1']
    """
    return [i * step for i in range(math.floor(lo / step), math.ceil(hi / step) + 1)]


def decimal(q: Fraction, step: Fraction) -> str:
    """A tick value as a decimal with as many places as the step needs, the same for every
    tick of an axis (exact: ticks are multiples of the step).

    >>> decimal(Fraction(2, 5), Fraction(1, 5)), decimal(Fraction(3), Fraction(1))
    ('0.4', '3')
    >>> decimal(Fraction(-1, 20), Fraction(1, 20))
    '-0.05'
    """
    places = max(0, -_exponent(step))
    scaled = q * 10 ** places
    assert scaled.denominator == 1, (q, step)
    n = abs(scaled.numerator)
    s = str(n).rjust(places + 1, "0")
    body = s if places == 0 else f"{s[:-places]}.{s[-places:]}"
    return ("-" if q < 0 else "") + body


def axis(lo: Fraction, hi: Fraction) -> dict:
    """A fitted axis for data in [lo, hi]: padded by 5 % of the span (not below 0 for data
    that is not), widened to 1-2-5 ticks.

    >>> a = axis(Fraction(21, 20), Fraction(63, 50))
    >>> a["ticks"], a["min"], a["max"]
    (['1.00', '1.05', '1.10', '1.15', '1.20', '1.25', '1.30'], '1.00', '1.30')
    >>> axis(Fraction(1, 100), Fraction(21, 20))["ticks"]
    ['0.0', '0.2', '0.4', '0.6', '0.8', '1.0', '1.2']
    """
    pad = (hi - lo) / 20 if hi > lo else (abs(hi) / 20 or Fraction(1, 10))
    low = lo - pad if lo - pad >= 0 or lo < 0 else Fraction(0)  # never padded across 0 (a loss is ≥ 0)
    step = nice_step(low, hi + pad)
    ts = ticks(low, hi + pad, step)
    return {"ticks": [decimal(t, step) for t in ts], "min": decimal(ts[0], step), "max": decimal(ts[-1], step),
            "step": decimal(step, step)}


def bars(labels, values, best: int, target: int) -> dict:
    """Next-token probabilities: one bar per token, its ``role`` argmax (red), target (green) or
    other (blue); a bar that is both is the argmax, and its mark says both."""
    top = max((Fraction(v) for v in values), default=Fraction(0))
    step = nice_step(Fraction(0), top if top > 0 else Fraction(1))
    ts = ticks(Fraction(0), top if top > 0 else Fraction(1), step)
    rows = []
    for i, (lab, v) in enumerate(zip(labels, values)):
        role = "argmax" if i == best else ("target" if i == target else "other")
        mark = ["argmax"] * (i == best) + ["target"] * (i == target)
        rows.append({"i": i, "label": lab, "value": v, "role": role, "colour": hex_colour(role),
                     "best": i == best, "target": i == target, "mark": " = ".join(mark)})
    return {"kind": "bars", "labels": list(labels), "values": list(values), "best": best, "target": target,
            "ymin": "0", "ymax": decimal(ts[-1], step), "yticks": [decimal(t, step) for t in ts],
            "xtitle": "v", "ytitle": "p(v)", "colours": {r: hex_colour(r) for r in ("argmax", "target", "other")},
            "bars": rows}


def heatmap(rows, cols, values, masked) -> dict:
    """Attention weights of self-attention: ``rows[i]`` names position i and ``cols[i]`` is its
    token, so both axes are labelled alike, ``t=0 我``; rows are queries, columns keys.

    A masked cell's weight is exactly 0 (its score was −∞): it shows ``0`` on grey.
    ``shade`` is the fill strength 0–100 (the weight in per cent, rounded).

    >>> h = heatmap(["0", "1"], ["我", "爱"], [["1", "0"], ["0.4", "0.6"]], [[False, True], [False, False]])
    >>> h["row_labels"] == h["col_labels"] == ["t=0 我", "t=1 爱"], [c["shown"] for c in h["cells"]]
    (True, ['1', '0', '0.4', '0.6'])
    """
    labels = [f"t={r} {c}" for r, c in zip(rows, cols)]
    cells = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            shade = 0 if masked[i][j] else int(round(Fraction(v) * 100))
            cells.append({"i": i, "j": j, "value": v, "masked": bool(masked[i][j]),
                          "shown": "0" if masked[i][j] else v,
                          "shade": max(0, min(100, shade)), "dark": shade > 55})
    return {"kind": "heat", "rows": list(rows), "cols": list(cols), "values": values,
            "row_labels": labels, "col_labels": list(labels), "n": len(rows), "m": len(cols),
            "cell_cm": _dec(min(Fraction(2), Fraction(12, max(len(cols), 1)))),
            "colours": {"heat": hex_colour("heat")}, "cells": cells}


def line(xs, ys) -> dict:
    """A curve through (x, y) points, e.g. the loss after each training step: x ticks 1-2-5 steps
    inside the x range, the y range fitted to the data (padded, not from 0)."""
    fy = [Fraction(y) for y in ys]
    ya = axis(min(fy), max(fy))
    xstep = max(nice_step(Fraction(xs[0]), Fraction(xs[-1])), Fraction(1))
    xt = [t for t in ticks(Fraction(xs[0]), Fraction(xs[-1]), xstep) if xs[0] <= t <= xs[-1]]
    return {"kind": "line", "points": [{"x": x, "y": y} for x, y in zip(xs, ys)],
            "xmin": xs[0], "xmax": xs[-1], "xticks": [decimal(t, xstep) for t in xt],
            "ymin": ya["min"], "ymax": ya["max"], "yticks": ya["ticks"], "xtitle": "k", "ytitle": "𝓛",
            "colours": {"other": hex_colour("other")}}


SERIES = ("2563EB", "16A34A", "DC2626", "D97706", "7C3AED", "0891B2")  # blue, green, red, amber, violet, teal


PAGE_LABELS = 36
"""The most x labels a chart on the page (the PDF's, 0.9 of the text width) can set side by side, turned upright
in the smallest type: one every 9 pt or more, so that no two touch."""


def labelled(n: int, most: int = PAGE_LABELS) -> range:
    """The x positions of ``n`` that a page's chart labels: all when they fit, else every k-th from the first,
    k the smallest step that leaves at most ``most`` (the table beside the chart lists them all).

    >>> labelled(5), labelled(79), len(labelled(79)), len(labelled(72))
    (range(0, 5), range(0, 79, 3), 27, 36)
    """
    return range(0, n, max(1, -(-n // most)))


def lines(labels, series: dict, ymax: int, ytitle: str, math: bool = False) -> dict:
    """Several named series over the same labelled x positions (one line each, with a legend): e.g. the
    correct digits of every tensor along the pipeline, one line per float format.  The y axis runs from 0
    to ``ymax`` in steps of 4 (``ymax`` a multiple of 4); the series' names stand in the legend as they are.
    ``math``: the labels are formulas (LaTeX, each tensor by its symbol), set as math in both pictures.

    >>> f = lines(["H0", "Q"], {"float32": [7, 6], "bfloat16": [2, 2]}, 16, "d")
    >>> [s["name"] for s in f["series"]], f["yticks"], f["series"][1]["points"][1]
    (['float32', 'bfloat16'], ['0', '4', '8', '12', '16'], {'x': 1, 'y': 2})
    """
    out = []
    for k, (name, ys) in enumerate(series.items()):
        out.append({"name": name, "role": f"series{k}", "points": [{"x": i, "y": y} for i, y in enumerate(ys)]})
    return {"kind": "lines", "labels": list(labels), "series": out, "ymin": "0", "ymax": str(ymax),
            "ticks": [{"i": i, "label": labels[i]} for i in labelled(len(labels))],
            "yticks": [str(t) for t in range(0, ymax + 1, 4)], "ytitle": ytitle,
            "colours": {f"series{k}": SERIES[k % len(SERIES)] for k in range(len(out))}, "math": math}


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


def _text(x, y, s, anchor="middle", size=13, extra="", font="") -> str:
    """A label; its font is the figure's (set once on the svg element, :func:`_frame`) unless ``font`` says."""
    return (f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{size}"{" " + font if font else ""}'
            f'{extra}>{xml_text(s)}</text>')


def svg(fig: dict) -> str:
    """The figure as a standalone SVG document (UTF-8 text)."""
    return {"bars": _svg_bars, "heat": _svg_heat, "line": _svg_line, "lines": _svg_lines,
            "diagram": diagrams.svg}[fig["kind"]](fig)


def _frame(w, h, body) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" {FONT}>\n'
            f'<rect width="{w}" height="{h}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _y_axis(left, top, ph, right, ymin, ymax, yticks, title) -> list:
    """Horizontal grid lines with their tick labels, and the axis title turned upright."""
    lo, hi = Fraction(ymin), Fraction(ymax)
    out = []
    for t in yticks:
        y = top + ph - (Fraction(t) - lo) / (hi - lo) * ph
        out.append(f'<line x1="{left}" y1="{_f(y)}" x2="{right}" y2="{_f(y)}" stroke="#e5e7eb"/>')
        out.append(f'<line x1="{left - 4}" y1="{_f(y)}" x2="{left}" y2="{_f(y)}" stroke="#333"/>')
        out.append(_text(left - 7, y + 4, t, "end", 12, extra=' class="ytick"'))
    out.append(_text(16, top + ph / 2, title, size=15, font=MATH_FONT,
                     extra=f' class="ytitle" transform="rotate(-90 16 {_f(top + ph / 2)})"'))
    return out


def _svg_bars(fig) -> str:
    n = len(fig["bars"])
    bw, gap, left, top, ph = 56, 16, 64, 24, 220
    w, h = max(left + n * (bw + gap) + gap, 360), top + ph + 80
    lo, hi = Fraction(fig["ymin"]), Fraction(fig["ymax"])
    body = _y_axis(left, top, ph, w - 8, fig["ymin"], fig["ymax"], fig["yticks"], fig["ytitle"])
    for b in fig["bars"]:
        x = left + gap + b["i"] * (bw + gap)
        bh = (Fraction(b["value"]) - lo) / (hi - lo) * ph
        colour = "#" + b["colour"]
        body.append(f'<rect x="{_f(x)}" y="{_f(top + ph - bh)}" width="{bw}" height="{_f(bh)}" fill="{colour}" '
                    f'class="bar" data-i="{b["i"]}" data-role="{b["role"]}"/>')
        body.append(_text(x + bw / 2, top + ph - bh - 5, b["value"], size=12))
        body.append(_text(x + bw / 2, top + ph + 19, b["label"], size=14))
        if b["mark"]:
            body.append(_text(x + bw / 2, top + ph + 37, b["mark"], size=12, extra=f' fill="{colour}"'))
    body += [f'<line x1="{left}" y1="{top + ph}" x2="{w - 8}" y2="{top + ph}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>',
             _text(left + (w - 8 - left) / 2, h - 10, fig["xtitle"], size=15, font=MATH_FONT,
                   extra=' class="xtitle"')]
    return _frame(w, h, body)


def _svg_heat(fig) -> str:
    longest = max((len(s) for s in fig["row_labels"]), default=1)
    left, top = 24 + 9 * longest, 48
    cw = max(80, 8 * longest + 16, -(-(360 - left - 16) // max(fig["m"], 1)))  # a label fits its column
    ch = 48
    w, h = left + fig["m"] * cw + 16, top + fig["n"] * ch + 16
    body = []
    for j, lab in enumerate(fig["col_labels"]):
        body.append(_text(left + j * cw + cw / 2, top - 14, lab, size=14, extra=' class="col"'))
    for i, lab in enumerate(fig["row_labels"]):
        body.append(_text(left - 10, top + i * ch + ch / 2 + 5, lab, "end", 14, extra=' class="row"'))
    ink = COLOURS["heat"]
    for c in fig["cells"]:
        x, y = left + c["j"] * cw, top + c["i"] * ch
        if c["masked"]:
            fill, colour = "#f3f4f6", ' fill="#6b7280"'
        else:
            k = Fraction(c["shade"], 100)
            fill = "rgb({},{},{})".format(*(int(round(255 - (255 - b) * k)) for b in ink))
            colour = ' fill="white"' if c["dark"] else ""
        body.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" stroke="#999"/>')
        body.append(_text(x + cw / 2, y + ch / 2 + 5, c["shown"], size=14,
                          extra=f'{colour} class="cell" data-i="{c["i"]}" data-j="{c["j"]}"'))
    return _frame(w, h, body)


def _svg_line(fig) -> str:
    left, top, pw, ph = 72, 20, 420, 220
    w, h = left + pw + 24, top + ph + 56
    pts = fig["points"]
    x0, x1 = fig["xmin"], fig["xmax"]
    lo, hi = Fraction(fig["ymin"]), Fraction(fig["ymax"])
    X = lambda x: left + Fraction(x - x0, max(x1 - x0, 1)) * pw
    Y = lambda y: top + ph - (Fraction(y) - lo) / (hi - lo) * ph
    body = _y_axis(left, top, ph, left + pw, fig["ymin"], fig["ymax"], fig["yticks"], fig["ytitle"])
    for t in fig["xticks"]:
        body.append(f'<line x1="{_f(X(int(t)))}" y1="{top + ph}" x2="{_f(X(int(t)))}" y2="{top + ph + 4}" '
                    'stroke="#333"/>')
        body.append(_text(X(int(t)), top + ph + 18, t, size=12, extra=' class="xtick"'))
    body += [f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>',
             _text(left + pw / 2, h - 8, fig["xtitle"], size=15, font=MATH_FONT, extra=' class="xtitle"')]
    colour = "#" + fig["colours"]["other"]
    path = " ".join(f"{_f(X(p['x']))},{_f(Y(p['y']))}" for p in pts)
    body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
    for p in pts:
        body.append(f'<circle cx="{_f(X(p["x"]))}" cy="{_f(Y(p["y"]))}" r="3" fill="{colour}"/>')
    return _frame(w, h, body)


_GLYPHS = {"partial": "∂", "nabla": "∇", "gamma": "γ", "beta": "β", "mu": "μ", "sigma": "σ", "Sigma": "Σ",
           "theta": "θ", "eta": "η", "lambda": "λ", "epsilon": "ε", "varepsilon": "ε", "alpha": "α", "delta": "δ",
           ",": " ", " ": " ", ";": " "}
_ACCENTS = {"tilde": "\u0303", "hat": "\u0302", "bar": "\u0304"}
_SCRIPT = {"_": 3.5, "^": -4.5}
"""How far a subscript goes down and a superscript up (px of the SVG's 11 px tick labels), each level again."""


def math_runs(tex: str) -> list:
    r"""A short formula of the documents (a tensor's symbol: :func:`symgpt.documents.names_tex.group_tex`) as
    runs of SVG text, each (text, baseline offset in px, script level): sub- and superscripts nested, ``\mathrm``,
    ``\mathcal{L}`` (ℒ), Greek letters and accents as Unicode.

    >>> math_runs(r"\partial_{W_{Q}} \mathcal{L}")
    [('∂', 0, 0), ('W', 3.5, 1), ('Q', 7.0, 2), ('ℒ', 0, 0)]
    >>> math_runs(r"{\gamma^{(2)}}^{\,\mathrm{SGD}}")
    [('γ', 0, 0), ('(2) SGD', -4.5, 1)]
    """
    out: list = []

    def group(i: int, off, level) -> int:     # from tex[i] to the end or the closing brace; returns past it
        while i < len(tex) and tex[i] != "}":
            i = atom(i, off, level)
        return i + 1

    def atom(i: int, off, level) -> int:
        c = tex[i]
        if c == "{":
            return group(i + 1, off, level)
        if c in _SCRIPT:
            j = i + 1
            sub_off = off + _SCRIPT[c]
            if j >= len(tex):
                return j
            if tex[j] == "{":
                return group(j + 1, sub_off, level + 1)
            return atom(j, sub_off, level + 1)
        if c == "\\":
            j = i + 1
            while j < len(tex) and tex[j].isalpha():
                j += 1
            name = tex[i + 1:j] or tex[j]
            j = max(j, i + 2)
            if name in ("mathrm", "text", "mathit", "operatorname", "mathcal") or name in _ACCENTS:
                k = tex.index("}", j)
                body = tex[j + 1:k]
                body = "ℒ" if (name, body) == ("mathcal", "L") else body
                emit(body + _ACCENTS.get(name, ""), off, level)
                return k + 1
            emit(_GLYPHS.get(name, name), off, level)
            return j
        if c != " ":
            emit("′" if c == "'" else c, off, level)
        return i + 1

    def emit(text, off, level):
        if out and out[-1][1:] == (off, level):
            out[-1] = (out[-1][0] + text, off, level)
        else:
            out.append((text, off, level))

    i = 0
    while i < len(tex):
        i = atom(i, 0, 0) if tex[i] != "}" else i + 1
    return out


def _svg_math(x, y, tex, size, extra, inherit: bool = False) -> str:
    """A formula as one SVG text element: a tspan per run, moved by dy and set smaller in a script (a run on the
    baseline in the text's own size and font is plain text). ``inherit``: the anchor, size and font come from
    the enclosing group."""
    spans, now = [], 0
    for text, off, level in math_runs(tex):
        small = f' font-size="{_f(size * 0.75 ** min(level, 2))}"' if level else ""
        font = " " + MATH_FONT if text == "ℒ" else ""                     # the script L of the math font
        plain = off == now and not small and not font
        spans.append(xml_text(text) if plain else f'<tspan dy="{_f(off - now)}"{small}{font}>{xml_text(text)}</tspan>')
        now = off
    own = "" if inherit else f' text-anchor="end" font-size="{size}"'
    return f'<text x="{_f(x)}" y="{_f(y)}"{own}{extra}>' + "".join(spans) + "</text>"


def _svg_lines(fig) -> str:
    """Each series a polyline with dots; the x labels turned 60°; a legend of the series' names on top."""
    left, top, step, ph = 64, 36, 18, 240
    n = len(fig["labels"])
    pw = step * max(n - 1, 1)
    w, h = left + pw + 40, top + ph + 110
    ymax = Fraction(fig["ymax"])
    X = lambda i: left + i * step
    Y = lambda y: top + ph - Fraction(y) / ymax * ph
    body = _y_axis(left, top, ph, left + pw, fig["ymin"], fig["ymax"], fig["yticks"], fig["ytitle"])
    body += [f'<line x1="{_f(X(i))}" y1="{top + ph}" x2="{_f(X(i))}" y2="{top + ph + 4}" stroke="#333"/>'
             for i in range(n)]
    body.append('<g class="xtick" text-anchor="end" font-size="11">')     # the x labels share anchor and size
    for i, name in enumerate(fig["labels"]):
        turned = f' transform="rotate(-60 {_f(X(i) + 4)} {_f(top + ph + 10)})"'
        body.append(_svg_math(X(i) + 4, top + ph + 10, name, 11, turned, inherit=True) if fig.get("math")
                    else f'<text x="{_f(X(i) + 4)}" y="{_f(top + ph + 10)}"{turned}>{xml_text(name)}</text>')
    body.append("</g>")
    body.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>')
    for k, ser in enumerate(fig["series"]):
        colour = "#" + fig["colours"][ser["role"]]
        pts = [(X(p["x"]), Y(p["y"])) for p in ser["points"]]
        body.append(f'<polyline points="{" ".join(f"{_f(x)},{_f(y)}" for x, y in pts)}" fill="none" '
                    f'stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{_f(x)}" cy="{_f(y)}" r="2.5" fill="{colour}"/>' for x, y in pts]
        lx = left + k * 110
        body.append(f'<line x1="{lx}" y1="14" x2="{lx + 22}" y2="14" stroke="{colour}" stroke-width="3"/>')
        body.append(_text(lx + 28, 18, ser["name"], "start", 12, extra=' class="legend"'))
    return _frame(w, h, body)
