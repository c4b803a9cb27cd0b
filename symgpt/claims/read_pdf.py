"""A PDF's text in the normal form :mod:`symgpt.claims.extract` reads, from its characters and their places.

pdfplumber (over pdfminer.six) gives every character with its font, size and baseline:

- characters sharing a baseline make a line; a smaller character raised above it is a superscript and one
  lowered below it a subscript, written on the line (``σ^{2}``, ``10^{2i/d}``, ``ε = 10^{−5}``, ``x_{0}``,
  stacked ``h_{0}^{(0)}``) where ``pdftotext`` puts them on a line of their own; a radical ``√`` or a sum
  ``∑``, which TeX hangs from above its operand, stays on its operand's line; spacing accents combine with
  their letter (``ˆ`` over ``m`` is ``m̂``);
- gaps become spaces, wide ones runs of spaces and a line's indent leading spaces, about as
  ``pdftotext -layout`` prints them, so the columns of a table drawn without rules (booktabs) stay apart;
- a table drawn with rules (``page.find_tables()``, a chart's grid of empty cells left out) is a Markdown pipe
  table, its first row the header, between blank lines;
- a line set larger than the body text is a heading, ``#`` for the largest size, ``##`` for the next;
- TeX's fonts embedded without a ``ToUnicode`` table are read by their encodings
  (:mod:`symgpt.claims.texfonts`); a glyph with no known character is U+FFFD, never ``(cid:0)``, whose 0
  would read as a figure; rotated text (a margin's arXiv stamp, an axis label) is left out;
- a vertical gap wider than the line spacing is a blank line, and so is a page break.

When pdfplumber cannot read the file, ``pdftotext -layout`` (poppler-utils) is tried before giving up.
Line numbers are those of the normal form; :func:`pdf_lines` gives each line's page.

>>> pdf_lines(_example())
[('x^{2} = 0.25, h = 10^{-5}', 1)]
"""
from __future__ import annotations

import logging
import re
import statistics
from collections import Counter

from ..core.errors import InputError
from .texfonts import tex_char

ACCENTS = {"ˆ": "\u0302", "˜": "\u0303", "¯": "\u0304", "˙": "\u0307", "¨": "\u0308", "´": "\u0301", "`": "\u0300",
           "ˇ": "\u030c", "˘": "\u0306", "→": "\u20d7"}
HANGING = frozenset("√∛∜∑∏∐∫∮⋃⋂")   # TeX hangs these from above their operand: not a line of their own
SMALL = 0.88          # a script is at most this fraction of its line's size
MAX_DRAWN = 5000      # a page drawing more lines and shapes than this is a picture: no tables looked for in it


def pdf_text(path) -> str:
    """A PDF's text in the normal form (see the module's description).

    >>> print(pdf_text(_example()))
    x^{2} = 0.25, h = 10^{-5}
    """
    return "\n".join(line for line, _ in pdf_lines(path))


def pdf_lines(path) -> list:
    """The normal form's lines, each with its page number (None for a blank line).

    >>> pdf_lines(_example())[0][1]
    1
    """
    try:
        import pdfplumber
    except ImportError:                        # (a dependency; pdftotext if it is missing all the same)
        return _pdftotext(path, None)
    quiet = logging.getLogger("pdfminer")
    level = quiet.level
    quiet.setLevel(logging.ERROR)              # pdfminer warns of every damaged object
    try:
        with pdfplumber.open(path) as pdf:
            sized = []
            for page in pdf.pages:
                if sized:
                    sized.append(("", None, None))
                sized += [(text, size, page.page_number) for text, size in _page(page)]
    except Exception as e:                     # pdfminer fails in many ways on a damaged file
        return _pdftotext(path, " ".join(f"{type(e).__name__}: {e}".rstrip(": ").split()))
    finally:
        quiet.setLevel(level)
    lines = [(_accent_joined(t), page)
             for t, page in _display_fractions(_display_matrices(_stacked(_headings(sized))))]
    while lines and not lines[-1][0]:
        lines.pop()
    if not any(text.strip() for text, _ in lines):
        raise InputError(f"DOCUMENT {path}: the PDF has no text (pages of images need OCR first)")
    return lines


ACCENT_SPLIT = re.compile(r"([^\W\d_])_\{([^{}]*)\}([\u0300-\u036f]) ?_\{,([^{}]*)\}")


def _accent_joined(text: str) -> str:
    """An accent TeX sets over a letter whose subscript has two indices, read between them (``q_{3}̃ _{,3}`` for
    ``\\tilde q_{3,3}``), written on its letter with the subscript whole.

    >>> _accent_joined("q_{3}\u0303 _{,3} = 0.5, h_{2,1} = 0.1")
    'q̃_{3,3} = 0.5, h_{2,1} = 0.1'
    """
    return ACCENT_SPLIT.sub(r"\1\3_{\2,\4}", text)


STACKED_PART = re.compile(r"\s*((?:∂|d(?=[A-Zα-ωΑ-Ωℓℒ]))[^\s=]{1,24})\s*")
"""One side of a derivative TeX sets as a display fraction, alone on its line: ``∂L`` above, ``∂a_{3,1}`` below."""


NUMERATOR = re.compile(r"[∂d](?:L|ℓ|ℒ|J|E|l)")
"""A derivative's numerator: the loss's symbol under ∂ or d."""


def _stacked(lines: list) -> list:
    """A derivative set as a display fraction, its numerator a line above the equation it starts and its
    denominator a line below (``∂L`` ⏎ ``= … = −0.010741,`` ⏎ ``∂a_{3,1}``), written on the equation's line as
    ``∂L/∂a_{3,1} = …``; the two lines left blank, so the lines below keep their numbers.

    >>> [t for t, _ in _stacked([("   ∂L", 1), ("      = 0.2 × 0.3 = 0.06,", 1), ("  ∂a_{3,1}", 1)])]
    ['', '  ∂L/∂a_{3,1} = 0.2 × 0.3 = 0.06,', '']
    """
    out = list(lines)
    for k in range(len(out) - 2):
        (top, page), (mid, _), (below, _) = out[k], out[k + 1], out[k + 2]
        rows = _matrix_rows(top, mid, below) if len({page, out[k + 1][1], out[k + 2][1]}) == 1 else None
        if rows is not None:          # ∂L/∂W = ( a b ⏎ c d ): the fraction and the matrix's rows share lines
            out[k], out[k + 2] = ("", page), ("", page)
            out[k + 1] = (rows, out[k + 1][1])
            continue
        num, den = STACKED_PART.fullmatch(top), STACKED_PART.fullmatch(below)
        eq = re.match(r"(\s*)=", mid)
        if num is None or den is None or eq is None or not top.strip() or not NUMERATOR.fullmatch(num[1]) or \
                len({page, out[k + 1][1], out[k + 2][1]}) != 1 or \
                len(eq[1]) <= max(num.start(1), den.start(1)) or abs(num.start(1) - den.start(1)) > 4:
            continue
        indent = min(num.start(1), den.start(1))
        out[k] = ("", page)
        out[k + 1] = (" " * indent + f"{num[1]}/{den[1]} " + mid.lstrip(), out[k + 1][1])
        out[k + 2] = ("", page)
    return out


FIGURE_ROW = re.compile(r"\s*((?:∂|d(?=[A-Zα-ωΑ-Ωℓℒ]))[^\s=]{1,24})\s+[(\[⎛⎝⎡⎣|]?\s*"
                        r"((?:[-−]?\d+(?:[.,]\d+)?\s+){1,7}[-−]?\d+(?:[.,]\d+)?)\s*[)\]⎞⎠⎤⎦|]?\s*")
"""A matrix's row with a display fraction's part before it (``∂L    ( 0.0123   −0.0235)``), a bracket beside it."""


def _matrix_rows(top: str, mid: str, below: str) -> str | None:
    """A derivative set as a display fraction beside a two-row matrix, each part on a row's line and ``=`` between
    (``∂L   −0.0036 −0.0024`` ⏎ ``=`` ⏎ ``∂W_{V}   −0.0024 0.0024``), as one line ``∂L/∂W_{V} = [[…], […]]``.

    >>> _matrix_rows("  ∂L   ( 0.1 -0.2)", "     =      .", "  ∂W   0.3 0.4")
    '  ∂L/∂W = [[0.1, -0.2], [0.3, 0.4]].'
    >>> _matrix_rows("  dogs   1 2", "     =", "  days   3 4") is None       # words, no derivative
    True
    """
    a, b = FIGURE_ROW.fullmatch(top), FIGURE_ROW.fullmatch(below)
    eq = re.fullmatch(r"(\s*)=\s*([.,;]?)\s*", mid)
    if a is None or b is None or eq is None or len(a[2].split()) != len(b[2].split()) or \
            not NUMERATOR.fullmatch(a[1]) or \
            len(eq[1]) <= max(a.start(1), b.start(1)):
        return None
    indent = " " * min(a.start(1), b.start(1))
    return f"{indent}{a[1]}/{b[1]} = [[{', '.join(a[2].split())}], [{', '.join(b[2].split())}]]{eq[2]}"


CELL = r"[-−]?(?:\d+(?:[.,]\d+)?|∞)"
ROW = re.compile(rf"\s*{CELL}(?:\s+{CELL})*\s*")
"""A display matrix's row on a line of its own: figures and masked entries (``0.304   −∞   −∞``)."""
PIECE = r"[\uf8e5-\uf8fe⎛-⎿]"
PIECES = re.compile(r"(?:[\s\[\]()|]|[\uf8e5-\uf8fe⎛-⎿]|[_^]\{[^{}]{1,6}\})*")
"""A line of bracket pieces alone: TeX builds a tall ``[`` or ``(`` from glyphs on baselines of their own (a script
set beside them, the ``^{(2)}`` of the next matrix's name, is lost with them)."""
NAMED_ROW = re.compile(rf"(?P<name>[^\s=,;][^=,;]{{0,40}}?\s*=\s*(?:[^=,;\d−-][^=,;]{{0,24}}?\s*=\s*)*)"
                       rf"(?P<row>{CELL}(?:\s+{CELL})*)\s*(?P<end>[,;.]?)\s*")
"""One matrix on a line of side-by-side matrices: its name (and what it equals, ``O = PV =``) and its middle row."""
MAX_ROWS = 12


def _unbracketed(line: str) -> str:
    """A row's line with the bracket pieces beside its figures made spaces (``⎣ 0.0169 −0.1701⎦``)."""
    return re.sub(PIECE, " ", line)


def _display_matrices(lines: list) -> list:
    """Matrices TeX sets as displays (``bmatrix``): the name on the middle row's line, the other rows on lines of
    their own above and below, side by side when several stand on one line. Each is written on the name's line as a
    nested list (``ã^{(1)} = [[0.304, −∞, −∞], [−0.621, 0.087, −∞], […]]``), one column's figures as a flat list;
    the rows' lines and the bracket pieces' are left blank, so the lines below keep their numbers. A row's figure
    belongs to the matrix whose name stands left of its place; the rows must fit (each as long as the middle one,
    or a causal mask's triangle left blank), else the lines are left as they are.

    >>> rows = [("     0.30   −∞         0.1  −∞", 1), ("A =  0.12  0.88 ,  B = 0.2  0.3 .", 1),
    ...         ("     0.40  0.60        0.5  0.7", 1)]
    >>> [t for t, _ in _display_matrices(rows)][:2]
    ['', 'A = [[0.30, −∞], [0.12, 0.88], [0.40, 0.60]] ,  B = [[0.1, −∞], [0.2, 0.3], [0.5, 0.7]] .']
    >>> rows = [("   1   0", 1), ("A = 0.3 0.7", 1), ("   0.4", 1)]     # a row too short: left as it is
    >>> [t for t, _ in _display_matrices(rows)] == [t for t, _ in rows]
    True
    """
    out = list(lines)
    for k, (mid, page) in enumerate(lines):
        parts = _named_rows(mid)
        if not parts:
            continue
        above, below = _rows_beside(lines, k, -1, page), _rows_beside(lines, k, 1, page)
        if not (above and below) or abs(len(above) - len(below)) > 1:
            continue                  # (the name stands by the middle row: a row lost to other text shows here)
        mats = [[] for _ in parts]
        for j in [*reversed(above), k, *below]:
            groups = [m["row"].split() for m in parts] if j == k else _split(_unbracketed(lines[j][0]), len(parts))
            if groups is None:
                mats = None
                break
            for rows, group in zip(mats, groups):
                rows.append(group)
        if mats is None or not all(_fits(rows) for rows in mats):
            continue
        for j in [*above, *below]:
            out[j] = ("", lines[j][1])
        for j in _pieces_beside(lines, k, page):
            out[j] = ("", lines[j][1])
        text = mid[:parts[0].start("name")]
        for i, m in enumerate(parts):
            rows = [r for r in mats[i] if r]
            body = "[" + ", ".join(r[0] for r in rows) + "]" if all(len(r) == 1 for r in rows) else \
                "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"
            gap = mid[m.end("end"):parts[i + 1].start("name")] if i + 1 < len(parts) else ""
            text += f"{m['name'].rstrip()} {body}{' ' if m['end'] else ''}{m['end']}{gap}"
        out[k] = (text, page)
    return out


def _display_fractions(lines: list) -> list:
    """Fractions TeX sets as displays, their numerators a line above an equation's blank places and their
    denominators a line below (``ℓ(θ + τ) − ℓ(θ − τ)   1,2972 − 1,2973`` ⏎ ``=       = −0,18895`` ⏎
    ``2τ   2 · 10^{−4}``),
    written into those places: ``(num)/(den)`` where either holds a figure, ``num/den`` for a derivative
    (``∂L/∂z_{4}``). A place is the equation's left side before its first '=', or a blank run of three spaces or
    more before its last '='. The parts are taken off their lines; the lines keep their numbers.

    >>> rows = [("    a − b   1.50 − 1.25", 1), ("          =           = 1.25,", 1), ("     2h       0.2", 1)]
    >>> [t.rstrip() for t, _ in _display_fractions(rows)]
    ['', '    (a − b)/(2h) = (1.50 − 1.25)/(0.2) = 1.25,', '']
    >>> chain = [("z = 0.5 × 1.2 + 0.3", 1), ("  = 0.60 + 0.3", 1), ("  = 0.90", 1)]    # an aligned chain: no fraction
    >>> _display_fractions(chain) == chain
    True
    >>> rows = [("      ∂L       ∂L", 1), ("          = b_{3}    = (0.1; 0.2)", 1), ("     ∂W_{:,4}     ∂z_{4}", 1)]
    >>> [t.rstrip() for t, _ in _display_fractions(rows)][1]
    '     ∂L/∂W_{:,4} = b_{3} ∂L/∂z_{4} = (0.1; 0.2)'
    """
    out = list(lines)
    for k in range(1, len(lines) - 1):
        (top, page), (mid, _), (below, _) = out[k - 1], out[k], out[k + 1]
        if len({page, lines[k][1], lines[k + 1][1]}) != 1 or page is None or not top.strip() or not below.strip():
            continue
        eqs = [m.start() for m in re.finditer(r"=", mid)]
        if not eqs:
            continue
        places = ([(0, eqs[0])] if not mid[:eqs[0]].strip() else []) + \
            [(m.start(), m.end()) for m in re.finditer(r" {3,}", mid[:eqs[-1]]) if m.start() > eqs[0]]
        ups, downs = _spans(top), _spans(below)
        if not places or not len(places) == len(ups) == len(downs):
            continue                     # (each place its part above and below, in order: TeX centres a part on its
            #                              bar, so the columns a line's text gives it are only roughly the place's)
        fills = [(a, b, num, den, bool(NUMERATOR.fullmatch(num[2]) and STACKED_PART.fullmatch(den[2])))
                 for (a, b), num, den in zip(places, ups, downs)]
        if any("=" in f[2][2] + f[3][2] or not (f[2][0] < f[1] + 4 and f[2][1] > f[0] - 4 and
                                                f[3][0] < f[1] + 4 and f[3][1] > f[0] - 4) for f in fills):
            continue                     # (each part over or under its place, give or take a few columns; no part
            #                              an equation of its own: an aligned chain's lines are no fraction)
        figures = [f for f in fills if re.search(r"\d", f[2][2]) and re.search(r"\d", f[3][2])]
        if not all(f[4] or f in figures or f[0] == 0 and figures for f in fills):
            continue                     # (a derivative, a fraction of figures, or the left side of an equation
            #                              that has one: not words alone)
        text, at = "", 0
        for a, b, num, den, derivative in fills:
            lead = " " * min(num[0], den[0]) if a == 0 else " "
            text += mid[at:a].rstrip() if a else ""
            text += lead + (f"{num[2]}/{den[2]}" if derivative else f"({num[2]})/({den[2]})") + " "
            at = b
        out[k] = (text + mid[at:].lstrip(), lines[k][1])
        out[k - 1] = (_blanked(top, [n for _, _, n, _, _ in fills]), page)
        out[k + 1] = (_blanked(below, [d for _, _, _, d, _ in fills]), page)
    return out


def _spans(line: str) -> list:
    """(start, end, text) of each group of a line's words, groups set apart by three spaces or more."""
    return [(m.start(), m.end(), m[0]) for m in re.finditer(r"\S+(?: {1,2}\S+)*", line)]


def _blanked(line: str, spans: list) -> str:
    """The line with those spans' text taken off (spaces in their place), '' when nothing else is left."""
    for a, b, _ in spans:
        line = line[:a] + " " * (b - a) + line[b:]
    return line if line.strip() else ""


def _named_rows(line: str) -> list:
    """The matches of :data:`NAMED_ROW` that make up the whole line, else [] (also where a name's part is a gap
    between two '=', a display fraction's place: ``P_{31} =       = 0.3061``)."""
    parts, at = [], len(line) - len(line.lstrip())
    while at < len(line):
        m = NAMED_ROW.match(line, at)
        if m is None or m.end() == at or re.search(r"=\s{3,}\S", m["name"]):
            return []
        parts.append(m)
        at = m.end()
    return parts


def _split(line: str, n: int) -> list | None:
    """A row's line as the rows of ``n`` matrices side by side: its figures cut at the ``n − 1`` widest gaps
    between them (the places of a line with scripts written out are not the page's); None for fewer than ``n``.

    >>> _split("  0.30  −∞         0.1  −∞", 2)
    [['0.30', '−∞'], ['0.1', '−∞']]
    """
    cells = list(re.finditer(CELL, line))
    if len(cells) < n:
        return None
    gaps = sorted(range(len(cells) - 1), key=lambda i: cells[i].end() - cells[i + 1].start())[:n - 1]
    cuts = [0, *sorted(i + 1 for i in gaps), len(cells)]
    return [[c[0] for c in cells[a:b]] for a, b in zip(cuts, cuts[1:])]


def _rows_beside(lines: list, k: int, step: int, page) -> list:
    """The lines of a matrix's rows above (step −1) or below (step 1) line k, nearest first, over bracket pieces."""
    rows, j = [], k + step
    while 0 <= j < len(lines) and lines[j][1] == page and lines[j][0].strip() and len(rows) < MAX_ROWS:
        if ROW.fullmatch(_unbracketed(lines[j][0])):
            rows.append(j)
        elif not PIECES.fullmatch(lines[j][0]):
            break
        j += step
    return rows


def _pieces_beside(lines: list, k: int, page) -> list:
    """The lines of bracket pieces alone among a matrix's rows around line k."""
    out = []
    for step in (-1, 1):
        j = k + step
        while 0 <= j < len(lines) and lines[j][1] == page and lines[j][0].strip() and \
                (ROW.fullmatch(_unbracketed(lines[j][0])) or PIECES.fullmatch(lines[j][0])):
            if not ROW.fullmatch(_unbracketed(lines[j][0])):
                out.append(j)
            j += step
    return out


def _fits(rows: list) -> bool:
    """A matrix's rows, each as long as the longest, or a lower triangle (row k of k + 1 entries, the masked
    entries left blank); at least two entries in all."""
    n = max(len(r) for r in rows)
    if sum(len(r) for r in rows) < 2 or not n:
        return False
    return all(len(r) == n for r in rows) or [len(r) for r in rows] == list(range(n - len(rows) + 1, n + 1))


# ---------------------------------------------------------------- one page


class _Line:
    """Characters on one baseline (and the scripts and radicals attached to it)."""

    def __init__(self, chars):
        self.chars = chars
        sizes = Counter(round(c["size"], 1) for c in chars)
        self.size = sizes.most_common(1)[0][0]
        self.base = statistics.median(c["base"] for c in chars if round(c["size"], 1) == self.size)
        self.x0, self.x1 = min(c["x0"] for c in chars), max(c["x1"] for c in chars)

    @property
    def top(self):
        return self.base - 0.75 * self.size

    @property
    def bottom(self):
        return self.base + 0.25 * self.size


def _headings(sized) -> list:
    """(text, size, page) lines as (text, page), a line set larger than the body text (the size most of the
    text has) marked as a heading, ``#`` for the largest size, ``##`` for the next: ``## 2.1 Attention``."""
    weight: Counter = Counter()
    prev = None
    for text, size, _ in sized:
        if size:
            weight[size] += len(text.strip())
    body = weight.most_common(1)[0][0] if weight else 0
    big = [size for text, size, _ in sized if size and size > 1.15 * body and _titled(text)]
    levels = {size: min(k, 6) for k, size in enumerate(sorted(set(big), reverse=True), 1)}
    out: list = []
    for text, size, page in sized:
        if size not in levels or not _titled(text):
            out.append((text, page))
        elif out and out[-1][0].startswith("#" * levels[size] + " ") and prev == size:
            out[-1] = (out[-1][0] + " " + text.strip(), page)          # a heading wrapped onto a second line
        else:
            out.append(("#" * levels[size] + " " + text.strip(), page))
        prev = size
    return out


def _titled(text: str) -> bool:
    """Words a heading might be: three letters or more, short, no equation (but in brackets: 'top-p 采样（p = 0.8）').

    >>> _titled("11 top-p 采样（p = 0.8）"), _titled("L = 0.5394 nats")
    (True, False)
    """
    return sum(ch.isalpha() for ch in text) >= 3 and len(text.strip()) <= 100 and \
        "=" not in re.sub(r"[(（][^()（）]*[)）]", "", text)


def _page(page) -> list:
    """The page's lines, top to bottom, each with its size (None for a blank line and a table's rows): text
    lines and the tables drawn with rules."""
    drawn = len(page.lines) + len(page.rects) + len(page.curves)
    tables = [t for t in page.find_tables() if _data(t)] if drawn <= MAX_DRAWN else []
    lines = _lines(_chars(page.chars, [t.bbox for t in tables]))
    left = min((ln.x0 for ln in lines), default=0)
    items = [(ln.top, ln.bottom, ln.size, [_text(ln.chars, ln, left)]) for ln in lines]
    items += [(t.bbox[1], t.bbox[3], None, _table(page, t)) for t in tables]
    items.sort(key=lambda it: it[0])
    out: list = []
    last = None                                       # (bottom, size) of the item above; size None: a table
    for top, bottom, size, texts in items:
        if last is not None and (size is None or last[1] is None or top - last[0] > 0.6 * max(size, last[1])):
            out.append(("", None))
        out += [(text, size) for text in texts]
        last = (bottom, size)
    return out


def _chars(chars, boxes=()) -> list:
    """The upright, visible characters outside the boxes, each with its text (TeX's fonts read by
    :func:`~symgpt.claims.texfonts.tex_char`) and its baseline measured from the top of the page: the bottom of
    its box less its font's descent, the descent being what most of the font's characters have below their
    origin (a character raised with the text rise ``Ts`` keeps its origin where it was)."""
    chars = [{**c, "text": tex_char(c.get("fontname") or "", c["text"])} for c in chars
             if c.get("upright", True) and not any(_inside(c, b) for b in boxes)]
    chars = [c for c in chars if c["text"].strip()]
    descents: dict = {}
    for c in chars:
        if c.get("matrix"):
            size = max(float(c.get("size") or 0), 1.0)
            descents.setdefault(c.get("fontname"), Counter())[round((c["y0"] - c["matrix"][5]) / size, 2)] += 1
    out = []
    for k, c in enumerate(chars):
        size = max(float(c.get("size") or 0), 1.0)
        ratio = descents[c.get("fontname")].most_common(1)[0][0] if c.get("fontname") in descents else -0.2
        out.append({**c, "size": size, "base": c["bottom"] + ratio * size, "seq": k})
    return out


def _inside(c, box) -> bool:
    x, y = (c["x0"] + c["x1"]) / 2, (c["top"] + c["bottom"]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _lines(chars) -> list:
    """Characters grouped by baseline, scripts and radicals then moved onto the line they belong to."""
    rows: list = []
    for c in sorted(chars, key=lambda c: c["base"]):
        if rows and abs(c["base"] - rows[-1][-1]["base"]) <= 0.2 * c["size"]:
            rows[-1].append(c)
        else:
            rows.append([c])
    lines = [_Line(r) for r in rows]
    mains = [ln for ln in lines if not _small(ln, lines)]
    keep = list(mains)
    for ln in lines:
        if ln in mains:
            continue
        for group in _groups(ln.chars):
            host = _host(group, mains)
            if host is None:
                keep.append(_Line(group))
            else:
                host.chars += group
    for ln in mains:                                   # a radical or a sum on its own: onto its operand's line
        for c in [c for c in ln.chars if c["text"] in HANGING and len(ln.chars) < 3]:
            host = _operand(c, mains)
            if host is not None and host is not ln:
                ln.chars.remove(c)
                host.chars.append(c)
    emptied = set()
    for ln in list(keep):                              # an accent on a line of its own (X̂ in display math):
        for c in [c for c in ln.chars if c["text"] in ACCENTS]:          # onto its letter's line
            host = _accent_host(c, mains)
            if host is not None and host is not ln:
                ln.chars.remove(c)
                host.chars.append(c)
                emptied.add(id(ln))
    for ln in list(keep):                              # a big bracket (bigl, left): onto the line it encloses
        for c in [c for c in ln.chars if c["text"] in "()[]"]:
            host = _spanned(c, mains)
            if host is not None and host is not ln:
                ln.chars.remove(c)
                host.chars.append(c)
                emptied.add(id(ln))
    return sorted((ln for ln in keep if ln.chars or id(ln) in emptied), key=lambda ln: ln.base)
    #              (a line left empty stays, blank: the lines below keep their numbers)


def _accent_host(c, mains):
    """The line of the letter a spacing accent is set over: the nearest line whose baseline lies below the
    accent's within one and a half sizes and that has a letter under it (None if none)."""
    near = [m for m in mains if 0 < m.base - c["base"] <= 1.5 * m.size and any(
        o["text"] not in ACCENTS and min(c["x1"], o["x1"]) - max(c["x0"], o["x0"]) > 0.3 * (c["x1"] - c["x0"])
        for o in m.chars)]
    return min(near, key=lambda m: m.base - c["base"], default=None)


def _spanned(c, mains):
    r"""The line a bracket drawn from the math extension font (``\bigl(``, ``\left(``) stands on: TeX hangs such a
    glyph down from its origin, so the origin, not its box, says where it is: the nearest line whose baseline
    lies 0.3 to 2.5 sizes below that origin and whose characters follow it (an opening bracket) or precede it
    (a closing one) within a size (None if none)."""
    font = (c.get("fontname") or "").lower()
    if ("extension" not in font and "cmex" not in font) or not c.get("matrix"):
        return None
    origin = c["bottom"] + (c["y0"] - c["matrix"][5])      # from the page's top, as the baselines are measured
    opening = c["text"] in "(["
    near = [m for m in mains if 0.3 * m.size <= m.base - origin <= 2.5 * m.size and any(
        (o["x0"] - c["x1"] if opening else c["x0"] - o["x1"]) <= m.size and
        (o["x0"] >= c["x1"] - 0.1 if opening else o["x1"] <= c["x0"] + 0.1) for o in m.chars if o is not c)]
    return min(near, key=lambda m: m.base - origin, default=None)


REACH = 3     # sizes a line's scripts may reach past its last character: the exponent −11 after a row's last 10


def _small(ln, lines) -> bool:
    """A line of smaller characters beside a line of larger ones: scripts, not a line of its own."""
    return any(o.size * SMALL >= ln.size and abs(o.base - ln.base) < 0.75 * o.size and
               o.x0 - o.size <= ln.x0 and ln.x1 <= o.x1 + REACH * o.size for o in lines if o is not ln)


def _groups(chars) -> list:
    """Characters of a line split where a gap wider than its size parts them (10^{−5} … 10^{2i/d})."""
    out: list = []
    for c in sorted(chars, key=_across):
        if out and c["x0"] - out[-1][-1]["x1"] <= c["size"]:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def _across(c) -> tuple:
    """Left to right; characters at one place (a zero-width glyph) in the order the page drew them."""
    return c["x0"], c["seq"]


def _host(group, mains):
    """The line a group of small characters is the script of: the nearest larger line beside it."""
    x0, x1 = min(c["x0"] for c in group), max(c["x1"] for c in group)
    base, size = statistics.median(c["base"] for c in group), max(c["size"] for c in group)
    near = [m for m in mains if m.size * SMALL >= size and abs(m.base - base) < 0.75 * m.size and
            m.x0 - m.size <= x0 and x1 <= m.x1 + REACH * m.size]
    return min(near, key=lambda m: abs(m.base - base), default=None)


def _operand(c, mains):
    """The line whose character starts right after a radical (or a sum): the nearest such line at or below
    the glyph's baseline (TeX hangs the glyph down from there), within a line's height of it."""
    near = [m for m in mains if -0.2 * m.size <= m.base - c["base"] <= 1.2 * m.size and
            any(abs(o["x0"] - c["x1"]) <= 0.4 * m.size for o in m.chars if o is not c)]
    return min(near, key=lambda m: abs(m.base - c["base"]), default=None)


def _text(chars, line, left: float) -> str:
    """A line's characters as text: spaces from the gaps, scripts in ^{…}/_{…}, accents combined."""
    size, base = line.size, line.base
    width = 0.5 * size                                  # one column of pdftotext -layout, about
    out = []
    prev = None
    for run in _runs(_accented(sorted(chars, key=_across)), size, base):
        first = run[0][1][0]
        gap = first["x0"] - prev["x1"] if prev is not None else None
        if gap is None and left is not None:
            out.append(" " * round(max(0.0, first["x0"] - left) / width))
        elif gap is not None and gap > 1.0 * size:
            out.append(" " * max(2, round(gap / width)))
        elif gap is not None and gap > 0.15 * size:
            out.append(" ")
        for kind, group in run:
            text = _spaced(group, size)
            out.append(f"{kind}{{{text}}}" if kind else text)
        prev = max((c for _, g in run for c in g), key=lambda c: c["x1"])
    return "".join(out).rstrip()


def _runs(chars, size: float, base: float) -> list:
    """A line's characters as runs: a plain character, or a cluster of scripts (a subscript and a superscript
    stacked at one place are written ``_{…}^{…}``, as TeX writes h_{0}^{(0)}).  Each run is a list of
    (kind, characters): kind '' for plain text, '_' or '^'."""
    def kind(c):
        if c["size"] > SMALL * size:
            return ""
        return "^" if c["base"] < base - 0.12 * size else "_" if c["base"] > base + 0.08 * size else ""
    runs: list = []
    for c in chars:
        k = kind(c)
        if k and runs and runs[-1][0][0] and c["x0"] - max(x["x1"] for _, g in runs[-1] for x in g) <= 0.15 * size:
            cluster = dict(runs[-1])
            cluster.setdefault(k, []).append(c)
            runs[-1] = [(key, cluster[key]) for key in ("_", "^") if key in cluster]
        else:
            runs.append([(k, [c])])
    return runs


def _spaced(chars, size: float) -> str:
    """Characters of one kind side by side, a space where a gap parts them."""
    out, prev = [], None
    for c in chars:
        if prev is not None and c["x0"] - prev["x1"] > 0.15 * size:
            out.append(" ")
        out.append(c["text"])
        prev = c
    return "".join(out)


def _accented(chars) -> list:
    """Spacing accents set over a letter (``ˆ`` over ``m``) become the letter's combining mark (``m̂``)."""
    def over(accent, letter):
        return letter["text"] not in ACCENTS and \
            min(accent["x1"], letter["x1"]) - max(accent["x0"], letter["x0"]) > 0.3 * (accent["x1"] - accent["x0"])
    out: list = []
    for c in chars:
        mark = ACCENTS.get(c["text"])
        if mark and out and over(c, out[-1]):
            out[-1] = {**out[-1], "text": out[-1]["text"] + mark}
        elif out and ACCENTS.get(out[-1]["text"]) and over(out[-1], c):      # the accent came first
            out[-1] = {**c, "text": c["text"] + ACCENTS[out[-1]["text"]]}
        else:
            out.append(c)
    return out


# ---------------------------------------------------------------- tables drawn with rules


def _data(table) -> bool:
    """A table of text: at least two rows of two cells with text (not a chart's grid of empty cells)."""
    rows = table.extract()
    return len(rows) >= 2 and sum(sum(bool(c and c.strip()) for c in r) >= 2 for r in rows) >= 2


def _table(page, table) -> list:
    """A table as pipe rows, the first the header; a merged cell repeated in each place it covers.  A row of
    the drawing whose cells hold several lines of text each, level with one another (the body of a table ruled
    only above and below it, ``\\hline`` under the header), is as many rows, one per line."""
    lines = []
    for k, row in enumerate(table.rows):
        cells, last = [], []
        for box in row.cells:
            if box is not None:
                chars = _chars([c for c in page.chars if _inside(c, box)])
                last = [(ln.top, ln.size, _text(ln.chars, ln, None).replace("|", "∣")) for ln in _lines(chars)]
            cells.append(last)
        for texts in _rows_within(cells):
            if any(texts):
                lines.append("| " + " | ".join(texts) + " |")
        if k == 0:
            lines.append("| " + " | ".join(["---"] * len(cells)) + " |")
    return lines


def _rows_within(cells: list) -> list:
    """The rows of text in one drawn row, from each cell's lines as (top, size, text): one row per level that
    the cells' lines share when at least two cells hold several lines and every line sits at such a level;
    else one row of each cell's lines joined.

    >>> _rows_within([[(0, 10, "a"), (12, 10, "b")], [(0.5, 10, "1,0"), (12.4, 10, "2,0")]])
    [['a', '1,0'], ['b', '2,0']]
    >>> _rows_within([[(0, 10, "a long"), (12, 10, "label")], [(6, 10, "3,0")]])
    [['a long label', '3,0']]
    >>> _rows_within([[(0, 10, "E"), (3.7, 7, "cat,1"), (14, 10, "W")], [(0, 10, "0,1"), (14, 10, "0,4")]])
    [['E_{cat,1}', '0,1'], ['W', '0,4']]
    """
    cells = [_scripted(cell) for cell in cells]
    joined = [[" ".join(t for *_, t in cell)] for cell in cells]
    if sum(len(cell) > 1 for cell in cells) < 2:
        return [[j[0] for j in joined]]
    levels: list = []                              # the tops of the text rows, from the lines of every cell
    for cell in cells:
        for top, size, _ in cell:
            if not any(abs(top - t) < 0.5 * size for t in levels):
                levels.append(top)
    levels.sort()
    rows = [[""] * len(cells) for _ in levels]
    for i, cell in enumerate(cells):
        for top, size, text in cell:
            at = [k for k, t in enumerate(levels) if abs(top - t) < 0.5 * size]
            if len(at) != 1 or rows[at[0]][i]:
                return [[j[0] for j in joined]]     # a line between two levels, or two on one: a cell's wrapped text
            rows[at[0]][i] = text
    return rows


def _scripted(cell: list) -> list:
    """A cell's lines with each line of smaller type set level with a larger one (a subscript the layout gave a
    line of its own, ``E`` over ``молоко,1``) joined to it as its script: ``E_{молоко,1}``."""
    big = max((size for _, size, _ in cell), default=0)
    out = [list(ln) for ln in cell if ln[1] >= 0.85 * big]
    for top, size, text in cell:
        if size >= 0.85 * big:
            continue
        host = min(out, key=lambda ln: abs(ln[0] - top), default=None)
        if host is None or abs(host[0] - top) >= 0.6 * host[1]:
            return cell                            # (a line of small type on its own: not a script)
        host[2] += f"{'_' if top > host[0] else '^'}{{{text}}}"
    return [tuple(ln) for ln in out]


# ---------------------------------------------------------------- the fallback


def _run_pdftotext(path):
    """``pdftotext -layout`` on a PDF (its CompletedProcess, 120 s at most), or None where poppler-utils is not
    installed; raises subprocess.TimeoutExpired past 120 s."""
    import shutil
    import subprocess
    exe = shutil.which("pdftotext")
    if exe is None:
        return None
    return subprocess.run([exe, "-layout", "-enc", "UTF-8", str(path), "-"], capture_output=True, timeout=120)


def layout_text(path) -> str | None:
    """``pdftotext -layout``'s text of a PDF, or None (the tool missing or failing): the lines check reports a
    PDF's figures at (:mod:`symgpt.claims.sources`)."""
    import subprocess
    try:
        r = _run_pdftotext(path)
    except (subprocess.TimeoutExpired, OSError):
        return None
    return r.stdout.decode("utf-8", "replace") if r is not None and r.returncode == 0 else None


def _pdftotext(path, why) -> list:
    import subprocess

    failed = f"pdfplumber could not read it ({why}), and " if why else ""
    try:
        r = _run_pdftotext(path)
    except subprocess.TimeoutExpired:
        raise InputError(f"DOCUMENT {path}: {failed}pdftotext took more than 120 s; refused") from None
    if r is None:
        instead = f"pdfplumber could not read it ({why}); reading it instead" if why else "reading a PDF"
        raise InputError(f"DOCUMENT {path}: {instead} needs pdftotext, which is not installed (install the "
                         f"poppler-utils package, e.g. apt-get install poppler-utils)")
    if r.returncode != 0:
        msg = r.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = msg[-1] if msg else f"exit status {r.returncode}"
        raise InputError(f"DOCUMENT {path}: {failed}pdftotext could not read it: {reason}")
    pages = r.stdout.decode("utf-8", "replace").split("\f")
    lines = [(line.rstrip(), k) for k, page in enumerate(pages, 1) for line in page.splitlines()]
    if not any(text.strip() for text, _ in lines):
        raise InputError(f"DOCUMENT {path}: the PDF has no text (pages of images need OCR first)")
    return lines


def _example():
    """A one-line PDF written by hand (for the examples): x² = 0.25, h = 10⁻⁵, the scripts set smaller and
    raised with the text rise ``Ts``."""
    import io

    text = (b"BT /F1 12 Tf 72 720 Td (x) Tj /F1 8 Tf 4 Ts (2) Tj 0 Ts /F1 12 Tf ( = 0.25, h = 10) Tj "
            b"/F1 8 Tf 4 Ts (-5) Tj ET")
    return io.BytesIO(tiny_pdf([text]))


def tiny_pdf(pages) -> bytes:
    """A PDF of the given page content streams (Times as /F1, Helvetica as /F2), written by hand.

    >>> tiny_pdf([b"BT /F1 12 Tf 72 720 Td (x) Tj ET"])[:8]
    b'%PDF-1.4'
    """
    n = len(pages)
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (5 + 2 * k) for k in range(n)) + b"] /Count %d >>" % n,
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for k, stream in enumerate(pages):
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                    b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>" % (6 + 2 * k))
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)
