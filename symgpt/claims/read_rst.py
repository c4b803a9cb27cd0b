"""A reStructuredText file in the normal form, parsed by docutils, the format's reference parser.

The normal form (:mod:`symgpt.claims.readers`) is Markdown as :mod:`symgpt.claims.extract` reads it line by
line.  docutils decides what each block is; the source's own lines are then written back in that one form:

- a section title (underlined, perhaps overlined): a ``#`` heading, one ``#`` per level; its adornments dropped;
- a table (grid, simple, ``list-table``, ``csv-table``): a pipe table, its header rows first (an empty header when
  it has none), each row at the line of its first cell, a cell as docutils reads it, its math as ``$…$``
  (``:math:`V``` is ``$V$``), a spanned column as empty cells; ``.. table:: caption`` as ``Table: caption``;
- a literal block (after ``::``, ``code-block``, ``code``, a doctest ``>>>`` block): fenced code, its lines as
  they are;
- a comment (``.. anything``): dropped; a directive's options (``:label: eq1``): dropped;
- prose: its lines, ``:math:`…``` as ``$…$``, ````…```` as ```…```, other roles and links as their text.

Math (``.. math::``) keeps its lines: :mod:`symgpt.claims.extract` reads LaTeX math as in Markdown.  Each line
of the normal form keeps the line of the file it came from.  docutils reads with file insertion (``include``,
``:file:``) and ``raw`` off, and never stops on an error: a block it cannot read stays as written.

>>> src = "Sonuç\\n=====\\n\\n+---+-----------+\\n| t | :math:`p` |\\n+===+===========+\\n" \\
...       "| 0 | 0,4078    |\\n+---+-----------+\\n\\nDemek ki :math:`p_0 = 0{,}4078`.\\n"
>>> for line, at in rst_lines(src):
...     print(at, line or "(blank)")
1 # Sonuç
3 (blank)
5 | t | $p$ |
5 | --- | --- |
7 | 0 | 0,4078 |
9 (blank)
10 Demek ki $p_0 = 0{,}4078$.
11 (blank)
"""
from __future__ import annotations

import re

from docutils import nodes
from docutils.core import publish_doctree

from ..core.limits import MAX_LINE

SETTINGS = {"report_level": 5, "halt_level": 5, "warning_stream": False, "file_insertion_enabled": False,
            "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False, "syntax_highlight": "none",
            "input_encoding": "unicode", "line_length_limit": MAX_LINE, "_disable_config": True}
"""docutils reads no configuration file (``docutils.conf``, ``DOCUTILSCONFIG``, ``~/.docutils``), which could turn
file insertion back on: a document never makes check read another file."""
LINE_BREAKS = {c: " " for c in (0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029)}
ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+\s*")
DIRECTIVE = re.compile(r"\s*\.\.\s+[\w:.+-]+::")
OPTION = re.compile(r"\s*:[\w .-]+:(?:\s|$)")
COMMENT = re.compile(r"\s*\.\.(?:\s|$)(?!\s*(?:\[[^\]]*\]|\|[^|]+\|\s+[\w:.+-]+::))")   # and targets: .. _name:
ROLE_MATH = re.compile(r":math:`([^`]*)`")
OPEN_MATH = re.compile(r":math:`([^`]*)$")
ROLE = re.compile(r"(?<![\w:]):[\w.+-]++(?::[\w.+-]++)*+:`([^`<]*?)\s*(?:<[^`]*>)?`")
LINK = re.compile(r"`([^`<]+?)\s*<[^`]*>`__?")


def rst_lines(text: str) -> list:
    """The normal form's lines of a reStructuredText source, each with the line of the source it came from
    (from 1; None for a line the reader adds)."""
    source = re.split(r"\r\n|\r|\n", text)
    if any(len(line) > MAX_LINE for line in source):
        return [(line, k + 1) for k, line in enumerate(source)]     # (extract refuses it, with the line's number)
    try:                       # (docutils breaks lines at form feeds and U+2028 too: as spaces, lines stay ours)
        doctree = publish_doctree(text.translate(LINE_BREAKS), settings_overrides=SETTINGS)
    except Exception:          # docutils reports a document it cannot read; its lines are still text
        return [(line, k + 1) for k, line in enumerate(source)]
    blocks, covered = {}, set()    # source index where a block starts -> (its last index, its normal form)
    cursor = 0
    for node in doctree.findall(_block):
        found = _place(node, source, cursor)
        if found is None:
            continue
        first, last, lines = found
        if any(k in covered for k in range(first, last + 1)):
            continue
        blocks[first] = (last, lines)
        covered.update(range(first, last + 1))
        cursor = last + 1
    out, k = [], 0
    while k < len(source):
        if k in blocks:
            last, lines = blocks[k]
            out += lines
            k = last + 1
            continue
        out += _prose(source, k)
        k += 1 + _skipped(source, k)
    return out


def _block(node) -> bool:
    """A block the reader writes in its own way: a title, a table, a literal block (not one inside a table)."""
    return isinstance(node, (nodes.title, nodes.table, nodes.literal_block, nodes.doctest_block)) \
        and not any(isinstance(p, nodes.table) for p in _ancestors(node))


def _place(node, source: list, cursor: int):
    """Where a block stands in the source, from its first to its last index, and its lines in the normal form."""
    if isinstance(node, nodes.title):
        return _title(node, source)
    if isinstance(node, nodes.table):
        return _table(node, source, cursor)
    return _literal(node, source, cursor)


def _title(node, source: list):
    if not isinstance(node.parent, nodes.section) or node.line is None:
        return None
    text = node.rawsource.strip()
    under = node.line - 1                              # docutils puts a title at its underline
    at = next((k for k in (under - 1, under, under + 1) if 0 <= k < len(source) and source[k].strip() == text), None)
    if at is None:
        return None
    first = at - 1 if at > 0 and ADORNMENT.fullmatch(source[at - 1]) else at
    last = at + 1 if at + 1 < len(source) and ADORNMENT.fullmatch(source[at + 1]) else at
    level = sum(1 for p in _ancestors(node) if isinstance(p, nodes.section))
    return first, last, [("#" * max(1, min(level, 6)) + " " + _inline(text), at + 1)]


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


TABLE_START = re.compile(r"\s*(?:\.\.\s+(?:list-|csv-)?table::|\+[-=+]{2,}\+?\s*$|=+(?:\s+=+)+\s*$)")
"""Where a table starts: a table directive, a grid table's top rule, a simple table's top rule."""


def _table(node, source: list, cursor: int):
    """A table as a pipe table, its rows each at the line of their first cell: the first table that starts at or
    after ``cursor`` (tables are met in the order they stand), from its directive or top rule to its end."""
    groups = [g for g in node.children if isinstance(g, nodes.tgroup)][:1]
    first = next((k for k in range(cursor, len(source)) if TABLE_START.match(source[k])), None)
    if not groups or first is None:
        return None
    parts = [c for c in groups[0].children if isinstance(c, (nodes.thead, nodes.tbody))]
    head = [r for h in parts if isinstance(h, nodes.thead) for r in h.children if isinstance(r, nodes.row)]
    body = [r for b in parts if isinstance(b, nodes.tbody) for r in b.children if isinstance(r, nodes.row)]
    last = _directive_end(source, first) if DIRECTIVE.match(source[first]) else _extent(source, first + 1)[1]
    rows = []
    for r in head + body:                    # (a csv-table's cells all say line 1: its rows in order, then)
        at = _row_line(r)
        rows.append((_cells(r), at if at is not None and first < at <= last + 1 else None))
    width = max((len(c) for c, _ in rows), default=0)
    if not width:
        return None
    out = []
    title = [t for t in node.children if isinstance(t, nodes.title)]
    if title:
        out += [("Table: " + " ".join(title[0].astext().split()), first + 1), ("", None)]
    content = [k + 1 for k in range(first + 1, last + 1) if source[k].strip() and not OPTION.match(source[k])]
    filled = []
    for i, (cells, at) in enumerate(rows):    # (a header from the directive's :header: option stands on its line)
        k = i if len(content) >= len(rows) else i - len(head)
        at = at if at is not None else content[min(k, len(content) - 1)] if content and k >= 0 else first + 1
        filled.append((cells + [""] * (width - len(cells)), at))
    if not head:
        filled.insert(0, ([""] * width, filled[0][1]))
    for k, (cells, at) in enumerate(filled):
        out.append(("| " + " | ".join(cells) + " |", at))
        if k == (len(head) - 1 if head else 0):
            out.append(("| " + " | ".join(["---"] * width) + " |", at))
    return first, last, out


def _cells(row) -> list:
    cells = []
    for entry in row.children:
        if not isinstance(entry, nodes.entry):
            continue
        cells.append(" ".join(_text(entry).split()).replace("|", "∣"))
        cells += [""] * entry.get("morecols", 0)
    return cells


def _text(node) -> str:
    """A node's text with its inline math as ``$…$`` (a cell's ``:math:`\\partial L/\\partial z``` is LaTeX,
    read as in prose)."""
    if isinstance(node, nodes.math):
        return f"${node.astext()}$"
    if isinstance(node, nodes.Text):
        return node.astext()          # (its escapes undone: 't \\ u' is 't \ u', not a NUL before the backslash)
    return (" " if isinstance(node, nodes.Element) and not isinstance(node, nodes.TextElement) else "").join(
        _text(c) for c in node.children)


def _row_line(row):
    lines = [p.line for e in row.children for p in e.children if isinstance(p, nodes.paragraph) and p.line]
    return min(lines) if lines else None


def _extent(source: list, at: int) -> tuple:
    """The run of non-blank lines around index ``at - 1`` (docutils lines count from 1)."""
    k = min(max(at - 1, 0), len(source) - 1)
    first, last = k, k
    while first > 0 and source[first - 1].strip():
        first -= 1
    while last + 1 < len(source) and source[last + 1].strip():
        last += 1
    return first, last


def _directive_end(source: list, first: int) -> int:
    """The last index of a directive starting at ``first``: its indented lines, blank lines between them."""
    indent = len(source[first]) - len(source[first].lstrip())
    last, k = first, first + 1
    while k < len(source) and (not source[k].strip() or len(source[k]) - len(source[k].lstrip()) > indent):
        if source[k].strip():
            last = k
        k += 1
    return last


def _literal(node, source: list, cursor: int):
    """A literal block fenced, its lines as the source has them."""
    lines = node.astext().split("\n")
    if not any(s.strip() for s in lines):
        return None
    lead = next(s for s in lines if s.strip()).strip()
    skip = next(j for j, s in enumerate(lines) if s.strip())
    at = next((k for k in range(cursor, len(source)) if source[k].strip() == lead), None)
    if at is None:
        return None
    first = at - skip
    last = min(first + len(lines), len(source)) - 1
    while last > first and not source[last].strip():
        last -= 1
    fence = [("```", None)] + [(source[k], k + 1) for k in range(first, last + 1)] + [("```", None)]
    return first, last, fence


def _prose(source: list, k: int) -> list:
    line = source[k]
    if _comment(line) or ADORNMENT.fullmatch(line) and len(line.strip()) >= 4:
        return [("", k + 1)]
    if DIRECTIVE.match(line):
        rest = DIRECTIVE.sub("", line, count=1).strip()
        return [(_inline(rest), k + 1)]
    return [(_inline(line.strip(), k > 0 and OPEN_MATH.search(source[k - 1]) is not None), k + 1)]


def _skipped(source: list, k: int) -> int:
    """How many lines after ``k`` a comment or a directive's options cover (dropped: a comment's text or an
    option like ``:widths: 20 30`` holds no figure of the tutorial)."""
    if _comment(source[k]):
        return _directive_end(source, k) - k
    n = 0
    if DIRECTIVE.match(source[k]):
        while k + n + 1 < len(source) and OPTION.match(source[k + n + 1]):
            n += 1
    return n


def _comment(line: str) -> bool:
    return COMMENT.match(line) is not None and DIRECTIVE.match(line) is None


def _inline(text: str, opened: bool = False) -> str:
    """A prose line's roles and links as their text, inline math as ``$…$``; math whose role spans two lines
    opens with ``$`` on the first and closes with ``$`` where its lone backtick ends it on the next (``opened``:
    the line above left a math role open).

    >>> _inline(":math:`f = W_2 + b_2"), _inline("= (0.625, 0.120)`.", True), _inline(":math:`p` and ``x``")
    ('$f = W_2 + b_2', '= (0.625, 0.120)$.', '$p$ and `x`')
    >>> _inline("See the `PyTorch docs")                    # a lone backtick with no math role open above
    'See the `PyTorch docs'
    """
    text = ROLE_MATH.sub(r"$\1$", text)
    text = OPEN_MATH.sub(r"$\1", text)
    if opened and re.fullmatch(r"[^`]*`[^`]*", text):
        text = text.replace("`", "$")      # the end of a role opened on the line above
    text = ROLE.sub(r"\1", text)
    text = LINK.sub(r"\1", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)
