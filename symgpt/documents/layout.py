r"""How wide a line of LaTeX prints, and how to break one that is too wide.

One small, deliberately rough estimate, used for every layout decision of
the documents (display lines, table columns), so that Markdown and LaTeX get
the same lines:

- widths are in em of the document's body font (ctexart ``zihao=-4``: 12 pt);
- a digit, a Latin letter or a parenthesis is half an em, a CJK character
  one em, a binary operator or relation with its spacing 1.3 em, ``\;`` 0.28
  em, a super/subscript 0.7 of its content, a fraction its wider part;
- the budget is the A4 text width (21 cm − 2 × 2.2 cm = 16.6 cm = 472 pt,
  39 em) less a margin for the estimate's error: :data:`BUDGET` em.

The estimate errs wide (a line judged to fit is well inside the page).

>>> width("0.5 + 0.25") <= 6, width(r"\text{我爱}") == 2.0
(True, True)
"""
from __future__ import annotations

import functools
import re
import tomllib

from ..core.resources import TEMPLATES

EM_PT = 12.0                      # the body font size (ctexart zihao=-4)
TEXT_WIDTH_PT = (21.0 - 2 * 2.2) / 2.54 * 72.27   # A4, margin 2.2 cm: ≈ 472 pt
BUDGET = 36.0                     # em a display line may take (39 em less the estimate's margin)
TABLE_BUDGET = 43.0               # em of \\small type (10.95 pt: 43 em to the text width) a table row may take
COLUMN_GAP = 1.1                  # em between two columns (2 × \\tabcolsep = 12 pt)
LABEL_MAX = 10.0                  # em of a row-label column before its text wraps

_OPS = {"+": 1.3, "=": 1.4, "-": 1.3, "<": 1.4, ">": 1.4, "/": 0.5, ",": 0.3, ".": 0.28, ";": 0.3,
        ":": 0.3, "'": 0.3, "|": 0.3, "!": 0.3}
_SPACES = {r"\;": 0.28, r"\,": 0.17, r"\:": 0.22, r"\ ": 0.33, r"\quad": 1.0, r"\qquad": 2.0, r"\!": -0.17}
_RELS = {"times", "approx", "cdot", "to", "mapsto", "le", "ge", "in", "Rightarrow", "neq", "pm", "leftarrow"}
_WORDS = {"sin", "cos", "exp", "ln", "log", "max", "min", "sqrt", "mathrm", "mathbf", "mathcal", "text",
          "operatorname", "textbf", "texttt", "mathit", "boldsymbol", "hat", "bar", "tilde", "widehat"}
_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_]|\s+|.", re.S)


def _glyph(ch: str) -> float:
    """The width of one printed character.

    >>> _glyph("7"), _glyph("爱"), _glyph("+")
    (0.5, 1.0, 1.3)
    """
    if ch in _OPS:
        return _OPS[ch]
    if ord(ch) >= 0x2E80:  # CJK, full-width forms
        return 1.0
    if ch.isupper():
        return 0.72
    return 0.5


def _group(tokens, i):
    """The tokens of the brace group starting at ``tokens[i]`` and the index after it (a lone token too)."""
    if i >= len(tokens):
        return [], i
    if tokens[i] != "{":
        return [tokens[i]], i + 1
    depth, j = 0, i
    while j < len(tokens):
        depth += tokens[j] == "{"
        depth -= tokens[j] == "}"
        j += 1
        if depth == 0:
            break
    return tokens[i + 1:j - 1], j


def _before(tokens, i) -> str:
    """The last token before ``tokens[i]`` that is not a space (``""`` at the start)."""
    for t in reversed(tokens[:i]):
        if not t.isspace():
            return t
    return ""


def _width(tokens) -> float:
    w, i = 0.0, 0
    while i < len(tokens):
        t = tokens[i]
        if t.isspace() or t in ("{", "}", "&"):
            i += 1
        elif t in ("^", "_"):
            g, i = _group(tokens, i + 1)
            w += 0.7 * _width(g)
        elif t == r"\frac" or t == r"\dfrac":
            a, i = _group(tokens, i + 1)
            b, i = _group(tokens, i)
            w += max(_width(a), _width(b)) + 0.3
        elif t in (r"\text", r"\textbf", r"\texttt", r"\mathrm", r"\mathbf", r"\operatorname"):
            g, i = _group(tokens, i + 1)
            w += _width(g)
        elif t in (r"\left", r"\right", r"\bigl", r"\bigr", r"\Bigl", r"\Bigr"):
            i += 1
            if i < len(tokens) and tokens[i] == ".":
                i += 1
        elif t in _SPACES:
            w += _SPACES[t]
            i += 1
        elif t.startswith("\\") and len(t) > 2:
            name = t[1:]
            if name in ("textless", "textgreater", "textbackslash", "textasciicircum", "textasciitilde"):
                w += 0.5
            elif name in _RELS:
                w += 1.3
            elif name in ("sqrt",):
                w += 1.0
            elif name in _WORDS:
                w += 0.5 * len(name) if name in ("sin", "cos", "exp", "ln", "log", "max", "min") else 0.0
            else:
                w += 0.6  # a Greek letter or a symbol
            i += 1
        elif t.startswith("\\"):  # \_ \% \{ …
            w += 0.5
            i += 1
        else:
            unary = t == "-" and _before(tokens, i) in ("", "(", "[", "{", "=", "+", "-", ",", "&")
            w += 0.78 if unary else _glyph(t)  # a sign is narrower than a binary minus with its spaces
            i += 1
    return w


def width(tex: str) -> float:
    r"""The estimated printed width of a line of math (or plain text) in em.

    >>> width("0.123"), width(r"\left(0.5,\; 1.8\right)"), width("(-1)") < width("0 - 1")
    (2.28, 4.14, True)
    >>> width("0.123"), width(r"\left(0.5,\; 1.8\right)")
    (2.28, 4.14)
    >>> width(r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}")
    4.0
    >>> round(width(r"x_{0} &= \frac{1}{2}"), 2)
    3.05
    """
    extra = 0.0
    for m in list(_MATRIX.finditer(tex))[::-1]:  # a matrix is as wide as its widest cell per column
        rows = [[c for c in r.split("&")] for r in m[2].split(r"\\")]
        cols = max(len(r) for r in rows)
        extra += sum(max(width(r[c]) if c < len(r) else 0 for r in rows) + 1.0 for c in range(cols)) + 1.0
        tex = tex[:m.start()] + tex[m.end():]
    return round(extra + _width(_TOKEN.findall(tex)), 2)


_MATRIX = re.compile(r"\\begin\{([bp]?matrix)\}(.*?)\\end\{\1\}", re.S)


def cell_width(text: str) -> float:
    """The estimated width of a table cell's text (a token, a number, a word).

    >>> cell_width("tok3_very_long_token_string") > 12
    True
    """
    narrow = {"_": 0.5, "-": 0.78, "+": 0.78, "<": 0.78, ">": 0.78, "=": 0.78, " ": 0.33}
    return round(sum(narrow.get(ch) or _glyph(ch) for ch in text), 2)


LANG_DIR = TEMPLATES / "lang"


@functools.lru_cache(maxsize=None)
def _words() -> tuple:
    """The ``[words]`` tables of every language file."""
    return tuple(tomllib.loads(p.read_text(encoding="utf-8")).get("words", {})
                 for p in sorted(LANG_DIR.glob("*.toml")))


def word_width(key: str, j: str | None = None) -> float:
    """The width of a word of the language files (``[words]``), the widest of its languages.

    A document's layout is the same in every language, so it is made for the widest.

    >>> word_width("position") >= cell_width("Position"), word_width("dim", "7") >= cell_width("dim 7")
    (True, True)
    """
    texts = [w[key] % {"j": j} if j is not None else w[key] for w in _words() if key in w]
    return max((cell_width(t) for t in texts), default=5.0)


# ---------------------------------------------------------------- breaking a display line

def _delimiter(s: str, i: int) -> tuple:
    r"""``(+1, 5)`` at a ``\left``, ``(-1, 6)`` at a ``\right`` (arrows are not delimiters), else ``(0, 0)``.

    >>> _delimiter(r"\left(", 0), _delimiter(r"\right)", 0), _delimiter(r"\leftarrow", 0)
    ((1, 5), (-1, 6), (0, 0))
    """
    if s.startswith(r"\left", i) and not s.startswith(r"\leftarrow", i):
        return 1, 5
    if s.startswith(r"\right", i) and not s.startswith(r"\rightarrow", i):
        return -1, 6
    return 0, 0


def _split_top(s: str):
    r"""Cut ``s`` at its top-level break points (outside braces and ``\left…\right``).

    A piece is ``(joiner, text)``: ``" "`` before an operator piece (``+ b``,
    ``= c``), ``"\; "`` after a comma of a list (the comma stays with the
    piece before).

    >>> _split_top(r"a + \left(b + c\right) = d")
    [('', 'a'), (' ', '+ \\left(b + c\\right)'), (' ', '= d')]
    >>> _split_top("= - x + y")
    [('', '= - x'), (' ', '+ y')]
    >>> _split_top(r"x = \begin{cases} a + b & t \end{cases} + c")
    [('', 'x'), (' ', '= \\begin{cases} a + b & t \\end{cases}'), (' ', '+ c')]
    >>> _split_top(r"0.5,\; 1.8,\; -2")
    [('', '0.5,'), ('\\; ', '1.8,'), ('\\; ', '-2')]
    """
    pieces, start, depth, i = [], 0, 0, 0
    joiner = ""
    while i < len(s):
        step, length = _delimiter(s, i)
        if step:
            depth += step
            i += length
            continue
        if s.startswith((r"\begin{", r"\end{"), i):  # an environment (cases, matrix) is one piece
            depth += 1 if s.startswith(r"\begin{", i) else -1
            i = s.index("}", i) + 1
            continue
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            for op in (" + ", " - ", " = ", r" \approx "):
                if s.startswith(op, i) and s[start:i].strip() not in ("", "=", "+", "-", r"\approx"):
                    pieces.append((joiner, s[start:i]))
                    joiner, start = " ", i + 1
                    break
            else:
                if s.startswith(r",\; ", i):
                    pieces.append((joiner, s[start:i + 1]))
                    joiner, start = r"\; ", i + 4
                    i += 4
                    continue
        i += 1
    pieces.append((joiner, s[start:]))
    return [(j, t) for j, t in pieces if t]


def _outer_group(text: str):
    r"""``(before, inner, after)`` of the widest top-level ``\left( … \right)`` of a piece, else None.

    >>> _outer_group(r"+ \left(a + b\right)^{2}")
    ('+ ', 'a + b', '^{2}')
    >>> _outer_group(r"\left(a\right) / \left(b + c + d\right)")[1]
    'b + c + d'
    """
    best, i = None, text.find(r"\left(")
    while i >= 0:
        if text[:i].count("{") != text[:i].count("}"):
            break
        depth, j, found = 0, i, None
        while j < len(text):
            step, length = _delimiter(text, j)
            depth += step
            if step < 0 and depth == 0:
                found = (text[:i], text[i + 6:j], text[j + 7:])
                break
            j += length or 1
        if found is None or text[j + 6:j + 7] != ")":
            break
        if best is None or width(found[1]) > width(best[1]):
            best = found
        i = text.find(r"\left(", j)
    return best


def _brace_end(s: str, i: int) -> int:
    """The index just after the brace group that opens at ``s[i]``."""
    depth = 0
    for j in range(i, len(s)):
        depth += s[j] == "{"
        depth -= s[j] == "}"
        if depth == 0:
            return j + 1
    return len(s)


def unfold(tex: str, budget: float = BUDGET) -> str:
    r"""The same formula in a form :func:`wrap` can break: ``\frac{a}{b}`` with a wide part as
    ``a / \left(b\right)``, and ``\log{\left(…\right)}`` without the braces that hide its parentheses.

    >>> unfold(r"- \log{\left(\frac{e^{z}}{" + " + ".join(["e^{z_{%d}}" % i for i in range(16)]) + r"} \right)}")[:40]
    '- \\log\\left(e^{z} / \\left(e^{z_{0}} + e^'
    """
    out, i = [], 0
    while i < len(tex):
        if tex.startswith(r"\frac{", i):
            a_end = _brace_end(tex, i + 5)
            b_end = _brace_end(tex, a_end)
            a, b = tex[i + 6:a_end - 1], tex[a_end + 1:b_end - 1]
            if max(width(a), width(b)) > budget / 2:
                a, b = unfold(a, budget), unfold(b, budget)
                num = a if re.fullmatch(r"[\w^{}.\\]+", a) else rf"\left({a}\right)"
                out.append(rf"{num} / \left({b}\right)")
                i = b_end
                continue
        m = re.match(r"\\(log|ln|exp|sin|cos)\{\\left\(", tex[i:])
        if m:
            end = _brace_end(tex, i + len(m[1]) + 1)
            inner = tex[i + len(m[1]) + 2:end - 1]
            if inner.rstrip().endswith(r"\right)"):
                out.append(rf"\{m[1]}" + unfold(inner, budget))
                i = end
                continue
        out.append(tex[i])
        i += 1
    return "".join(out)


def _pack(pieces, avail: float, first_avail: float):
    """Greedy lines of pieces: as many as fit each line (a piece too wide alone is opened up)."""
    lines: list = []
    cur, w = "", 0.0
    for joiner, text in pieces:
        pw = width(text)
        room = first_avail if not lines else avail
        if cur and w + pw + 0.3 > room:
            lines.append(cur)
            cur, w = "", 0.0
            room = avail
        if not cur and pw > room and _outer_group(text):
            before, inner, after = _outer_group(text)
            sub = _pack(_split_top(inner), avail - 1.0, room - width(before) - 0.6)
            if len(sub) > 1:
                sub[0] = before + r"\left(" + sub[0] + r"\right."
                for k in range(1, len(sub) - 1):
                    sub[k] = r"\left." + sub[k] + r"\right."
                sub[-1] = r"\left." + sub[-1] + r"\right)" + after
                lines.extend(sub[:-1])
                cur, w = sub[-1], width(sub[-1])
                continue
        cur = cur + joiner + text if cur else text
        w += pw + (0.3 if joiner else 0)
    if cur:
        lines.append(cur)
    return lines


def _split_lhs(line: str):
    r"""``(lhs, rest)`` at the line's alignment ``&`` (or its first top-level ``=``).

    >>> _split_lhs("x &= 1"), _split_lhs("x = 1"), _split_lhs("x")
    (('x ', '= 1'), ('x ', '= 1'), ('', 'x'))
    >>> _split_lhs(r"W = \begin{bmatrix} 1 & 2 \end{bmatrix}")[0]
    'W '
    """
    depth = env = 0
    for i, ch in enumerate(line):
        depth += ch == "{"
        depth -= ch == "}"
        env += line.startswith(r"\begin{", i) - line.startswith(r"\end{", i)  # a matrix's & are its own
        if depth == 0 and env == 0 and ch == "&" and (i == 0 or line[i - 1] != "\\"):
            return line[:i], line[i + 1:].lstrip()
    pieces = _split_top(line)
    for k, (_, text) in enumerate(pieces):
        if k and text.startswith("= "):
            lhs = "".join(j + t for j, t in pieces[:k])
            return lhs + " ", line[len(lhs):].lstrip()
    return "", line


def lhs_width(line: str) -> float:
    """The width of a line's left-hand side (before its alignment point).

    >>> lhs_width("x &= 1") < lhs_width(r"\\mathrm{logit}_{3} &= 1")
    True
    """
    return width(_split_lhs(line)[0])


def fits(line: str, budget: float = BUDGET) -> bool:
    """Does the line fit the text width?

    >>> fits("x &= 1"), fits(" + ".join(["0.123456"] * 12))
    (True, False)
    """
    return width(line) <= budget


def wrap(line: str, budget: float = BUDGET) -> str:
    r"""The line broken per term into aligned lines when it is too wide (else as it is).

    Continuation lines start at the alignment point: ``&= …`` for a new side
    of the equation, ``&\qquad + …`` for the next terms of a sum; a group
    ``\left( … \right)`` too wide for a line is opened (``\right.`` /
    ``\left.``) and broken inside.

    >>> print(wrap("y &= " + " + ".join(["0.123456 \\times 0.5"] * 4) + " = 1.2", budget=22))
    y &= 0.123456 \times 0.5 + 0.123456 \times 0.5 \\
    &\qquad + 0.123456 \times 0.5 + 0.123456 \times 0.5 = 1.2
    """
    if fits(line, budget) or re.search(r"\\begin\{(?!bmatrix)", line):
        return line  # an environment other than a matrix (cases) has its own & and \\: laid out by hand
    lhs, rest = _split_lhs(line)
    room = budget - width(lhs)
    if r"\begin{bmatrix}" in rest:
        return split_matrix(lhs, rest, room)
    lines = _pack(_split_top(rest), max(room - 2.0, 12.0), max(room, 12.0))
    out = []
    for k, ln in enumerate(lines):
        if k == 0:
            out.append(f"{lhs}&{ln}")
        elif ln.startswith(("= ", r"\approx ")):
            out.append(f"&{ln}")
        else:
            out.append(rf"&\qquad {ln}")
    return " \\\\\n".join(out)


# ---------------------------------------------------------------- table columns

def column_groups(widths, budget: float = TABLE_BUDGET, label_max: float = LABEL_MAX, wrap_min: float = 6.0):
    """Which columns go in each part of a table, and the width a column is held to (None: its own).

    ``widths`` are the columns' natural widths in em; column 0 labels the rows
    and is repeated in every part.  In turn, until the table fits ``budget``:
    a label column wider than ``label_max`` wraps at that width; the widest
    other columns (text, lists) wrap, each no narrower than ``wrap_min``;
    then the columns are packed left to right into parts (a table of many
    narrow columns continues below itself).

    >>> column_groups([4, 5, 5, 5])
    ([[0, 1, 2, 3]], [None, None, None, None])
    >>> column_groups([4] + [6] * 12)[0]
    [[0, 1, 2, 3, 4, 5], [0, 6, 7, 8, 9, 10], [0, 11, 12]]
    >>> column_groups([3, 4, 30, 4])
    ([[0, 1, 2, 3]], [None, None, 27.6, None])
    >>> column_groups([16, 50])
    ([[0, 1]], [10.0, 30.8])
    """
    gap = COLUMN_GAP
    held = [None] * len(widths)
    w = list(widths)

    def total():
        return sum(w) + gap * len(w)

    if total() <= budget:
        return [list(range(len(w)))], held
    if w[0] > label_max:
        held[0] = w[0] = label_max
    while total() > budget:
        c = max(range(1, len(w)), key=lambda k: w[k], default=None)
        if c is None or w[c] <= wrap_min:
            break
        w[c] = held[c] = round(max(wrap_min, w[c] - (total() - budget)), 2)
    if total() <= budget:
        return [list(range(len(w)))], held
    room = budget - w[0] - gap
    parts, cur, used = [], [], 0.0
    for c in range(1, len(w)):
        if w[c] + gap > room:
            held[c] = w[c] = round(room - gap - 0.2, 2)
        if cur and used + w[c] + gap > room:
            parts.append(cur)
            cur, used = [], 0.0
        cur.append(c)
        used += w[c] + gap
    if cur:
        parts.append(cur)
    return [[0] + p for p in parts], held


def split_matrix(lhs: str, rest: str, room: float) -> str:
    r"""A line ``lhs &= \begin{bmatrix} … \end{bmatrix}`` too wide for the page, its columns in blocks.

    The matrix is printed as consecutive blocks of columns, one block a line,
    bracketed as one matrix (``\left[ … \right.`` then ``\left. … \right]``).

    >>> m = r"\begin{bmatrix} 1.25 & 2.25 & 3.25 & 4.25 \\ 5 & 6 & 7 & 8 \end{bmatrix}"
    >>> print(split_matrix("W ", "= " + m, 10))
    W &= \left[\begin{matrix} 1.25 & 2.25 \\ 5 & 6 \end{matrix}\right. \\
    &\qquad \left.\begin{matrix} 3.25 & 4.25 \\ 7 & 8 \end{matrix}\right]
    """
    i, j = rest.index(r"\begin{bmatrix}"), rest.index(r"\end{bmatrix}")
    before, body, after = rest[:i], rest[i + len(r"\begin{bmatrix}"):j], rest[j + len(r"\end{bmatrix}"):]
    rows = [[c.strip() for c in r.split("&")] for r in body.split(r"\\")]
    n = max(len(r) for r in rows)
    widths = [max(width(r[c]) if c < len(r) else 0 for r in rows) + 1.0 for c in range(n)]
    blocks, cur, used = [], [], 0.0
    avail = max(room - 2.0 - width(before) - width(after), 6.0)
    for c in range(n):
        if cur and used + widths[c] > avail:
            blocks.append(cur)
            cur, used = [], 0.0
        cur.append(c)
        used += widths[c]
    blocks.append(cur)
    if len(blocks) == 1:
        return f"{lhs}&{rest}"

    def block(cols):
        return (r"\begin{matrix} " + r" \\ ".join(" & ".join(r[c] for c in cols if c < len(r)) for r in rows)
                + r" \end{matrix}")

    out = []
    for k, cols in enumerate(blocks):
        left = r"\left[" if k == 0 else r"\left."
        right = r"\right]" if k == len(blocks) - 1 else r"\right."
        text = f"{left}{block(cols)}{right}"
        out.append(f"{lhs}&{before}{text}" if k == 0 else rf"&\qquad {text}{after if k == len(blocks) - 1 else ''}")
    return " \\\\\n".join(out)
