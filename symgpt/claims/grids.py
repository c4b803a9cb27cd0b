"""The grids a document prints: a matrix literal's rows and columns, a table's body.

A figure in a grid has a place, (row, column), counted from 0 over the grid's own figures.  Which tensor a
grid prints, and from which entry, is read from the figures whose values agree (:meth:`Matcher._grids`); this
module only finds the grids and their places.

>>> from symgpt.claims.extract import extract
>>> ns = extract("| | a | b |\\n|---|---|---|\\n| t=0 | 0.12 | 0.34 |\\n| t=1 | 0.56 | 0.78 |")
>>> [[(ns[k].text, place) for k, place in g] for g in grids(ns, {})]
[[('0.12', (0, 0)), ('0.34', (0, 1)), ('0.56', (1, 0)), ('0.78', (1, 1))]]
"""
from __future__ import annotations

import re

LINE_GAP = 2          # lines a table's rows may stand apart (an HTML row's cells on lines of their own)


def _entry(n) -> bool:
    """A figure a grid's cell may print: a decimal or a percent, not a row label's integer ('sija 3')."""
    return n.kind in ("decimal", "percent")


def _literals(numbers, labels: dict) -> dict:
    """(the literal's name and place in the text) → [(figure index, (row, column))] for 2-D literals."""
    out: dict = {}
    for n in numbers:
        lab = labels.get(n.index)
        if lab is None or len(lab.index) != 2 or not all(isinstance(k, tuple) and k[0] == "at" for k in lab.index):
            continue
        if _entry(n):
            out.setdefault((lab.name, lab.sup, lab.head, n.section), []).append((n.index, (lab.index[0][1],
                                                                                         lab.index[1][1])))
    return out


def _tables(numbers, taken: set) -> list:
    """The bodies of tables (a caption or column headers over them): runs of lines of one caption and section;
    a row's place counts its lines, a column's its header (else its order in the row)."""
    rows: dict = {}
    lines: dict = {}
    for n in numbers:
        lines.setdefault(n.line, []).append(n)
    for n in numbers:
        if n.index in taken or n.cell < 0 or not _entry(n):
            continue                   # (a table's row may print one figure: a causal mask's first row)
        if n.table or n.column or _cells(lines[n.line]):
            rows.setdefault((n.table, n.section), {}).setdefault(n.line, []).append(n)
    grids = []
    for (table, section), lines in rows.items():
        for block in _blocks(sorted(lines)):
            figs = [lines[line] for line in block]
            heads = sorted({n.column for row in figs for n in row if n.column},
                           key=lambda h: min(n.cell for row in figs for n in row if n.column == h))
            by_head = all(n.column for row in figs for n in row) and len(heads) > 1
            cells = []
            for r, row in enumerate(figs):
                for c, n in enumerate(sorted(row, key=lambda n: n.cell)):
                    cells.append((n.index, (r, heads.index(n.column) if by_head else c)))
            if len(block) >= 2:
                grids.append(cells)
    return grids


RULE_GAP = re.compile(r"[ \t]*+[&|][ \t]*+")     # (possessive: no backtracking over long runs of spaces)


def _gap(before: str) -> bool:
    """Whether the text between two figures is a column's separator alone: ``&``, ``|``, a tab, or two spaces
    or more (a ``$`` of inline math around it counts as a space)."""
    b = before.replace("$", " ")
    return RULE_GAP.fullmatch(b) is not None or not b.strip() and ("  " in b or "\t" in b)


def _cells(figures: list) -> bool:
    """Whether a line's figures stand in cells: two or more, each set apart from the last by nothing but a
    column's separator (``3 & 0.9093 & -0.4162 \\``, ``| 0.12 | 0.34 |``, a tab, a run of spaces)."""
    return len(figures) >= 2 and all(_gap(n.before) for n in figures[1:])


def _blocks(lines: list) -> list:
    """Runs of lines at most LINE_GAP apart."""
    out: list = []
    for line in lines:
        if out and line - out[-1][-1] <= LINE_GAP:
            out[-1].append(line)
        else:
            out.append([line])
    return out


def grids(numbers, labels: dict) -> list:
    """Every grid: a list of (figure index, (row, column)), literals first, then tables' bodies."""
    lit = [g for g in _literals(numbers, labels).values() if len({p[0] for _, p in g}) >= 2]
    taken = {k for g in lit for k, _ in g}
    return lit + _tables(numbers, taken)
