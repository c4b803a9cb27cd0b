"""Where each line of a document's normal form stands in the file itself, so a figure is reported at the
line its author finds it on: an HTML page's source line, a notebook's line of JSON, a text file's own line.

A PDF has no lines of its own: its figures are reported at the lines ``pdftotext -layout`` (poppler-utils) prints
them on, where that tool is installed, so anyone can find them (``pdftotext -layout doc.pdf - | sed -n 73p``);
else they keep the lines of check's own text.

>>> from symgpt.claims.readers import Read
>>> file_lines(Read("a\\nb", "html", ["source line 3", "source line 7"]), "")
[3, 7]
"""
from __future__ import annotations

import difflib
import json
import re

from .read_pdf import layout_text


def file_lines(read, raw: str, path=None) -> list:
    """For each line of ``read.text`` (from 1), the line of the file it came from (None: none); a PDF's
    (``path``), the line of ``pdftotext -layout``'s text."""
    n = read.text.count("\n") + 1
    if read.kind in ("html", "markdown", "latex", "rst"):
        return [int(m[1]) if (m := re.fullmatch(r"(?:source )?line (\d+)", o or "")) else None for o in read.origins]
    if read.kind == "ipynb":
        return _json_lines(read.text.split("\n"), read.origins, raw)
    if read.kind == "pdf":
        layout = layout_text(path) if path is not None else None
        return layout_lines(read.text.split("\n"), layout.split("\n")) if layout else [None] * n
    return list(range(1, n + 1))


FIGURE = re.compile(r"\d+(?:[.,]\d+)?")


def layout_lines(lines: list, layout: list) -> list:
    """For each of check's lines of a PDF, the line (from 1) of ``pdftotext -layout``'s text whose figures its
    own figures were aligned with (in order: the runs of digits of both texts matched as two sequences), or
    None for a line without figures.

    >>> layout_lines(["x", "a 0.25 b 1.5", "c 3"], ["title", "", "a 0.25   b 1.5   c 3"])
    [None, 3, 3]
    """
    votes: dict = {}
    for (k, _), line in layout_runs(lines, layout).items():
        votes.setdefault(k, []).append(line)
    out = [None] * len(lines)
    for k, found in votes.items():
        out[k] = max(set(found), key=found.count)
    for k, line in enumerate(lines):          # a line none of whose figures were aligned: its neighbour's
        if out[k] is None and FIGURE.search(line):
            near = [out[j] for j in (k - 1, k + 1) if 0 <= j < len(lines) and out[j] is not None]
            out[k] = near[0] if near else None
    return out


def layout_runs(lines: list, layout: list) -> dict:
    """{(check's line from 0, the run of digits' place in it from 0): the line (from 1) of ``pdftotext -layout``'s
    text the run was aligned with}: where one line of check's holds figures pdftotext sets on two (a matrix
    beside another, ``S(1) = … , S(2) = …``), each run keeps its own.

    >>> layout_runs(["S = 0.1 0.2 , T = 0.3"], ["   0.1 0.2", "", "   0.3"])
    {(0, 0): 1, (0, 1): 1, (0, 2): 3}
    """
    ours = [(k, j, m[0]) for k, line in enumerate(lines) for j, m in enumerate(FIGURE.finditer(line))]
    theirs = [(k, m[0]) for k, line in enumerate(layout) for m in FIGURE.finditer(line)]
    out: dict = {}
    matcher = difflib.SequenceMatcher(None, [x for *_, x in ours], [x for _, x in theirs], autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for i in range(size):
            out[ours[a + i][:2]] = theirs[b + i][0] + 1
    return out


def run_lines(read, path) -> dict:
    """A PDF's :func:`layout_runs` (empty for another format or without pdftotext)."""
    layout = layout_text(path) if read.kind == "pdf" and path is not None else None
    return layout_runs(read.text.split("\n"), layout.split("\n")) if layout else {}


def figure_line(runs: dict, line_text: str, line: int, n, before: list):
    """The pdftotext line of figure ``n`` on check's ``line`` (from 1) from :func:`layout_runs` (None: not
    aligned): its first run of digits, the same run's occurrence as many times as ``before`` (the figures left of
    it on the line) print it."""
    first = FIGURE.search(n.text)
    if first is None:
        return None
    same = sum(1 for m in before if (f := FIGURE.search(m.text)) and f[0] == first[0])
    hits = [j for j, m in enumerate(FIGURE.finditer(line_text)) if m[0] == first[0]]
    return runs.get((line - 1, hits[same])) if same < len(hits) else None


def _json_lines(lines: list, origins: list, raw: str) -> list:
    """A notebook's text lines found in its JSON: each line's text as JSON writes it inside a string
    (``"W.grad[1, bellt] = 0.2 × (−0.8253)\\n",``), searched for within its cell, which begins after the
    lines the cells before it were found on (a code cell's outputs come before its source in the file).

    >>> raw = '{"cells": [\\n {"source": [\\n  "a = 0.5\\\\n",\\n  "b = 0.25"\\n ]}\\n]}'
    >>> _json_lines(["a = 0.5", "b = 0.25", "```"], ["cell 1, line 1", "cell 1, line 2", ""], raw)
    [3, 4, None]
    """
    file = raw.split("\n")
    out, start, end, cell = [], 0, 0, None
    for line, origin in zip(lines, origins + [""] * (len(lines) - len(origins))):
        k = re.match(r"cell (\d+)", origin or "")
        if k and k[1] != cell:
            cell, start = k[1], end
        found = None
        if line.strip() and k:
            for quoted in {json.dumps(line, ensure_ascii=False)[1:-1], json.dumps(line)[1:-1]}:
                i = next((i for i in range(start, len(file)) if quoted in file[i]), None)
                if i is not None and (found is None or i < found):
                    found = i
        if found is not None:
            end = max(end, found + 1)
        out.append(found + 1 if found is not None else None)
    return out


HTML_SPELLINGS = (("−", "&minus;"), ("−", "&#8722;"), ("−", "-"), ("×", "&times;"), ("%", "&#37;"))


def within_elements(numbers, raw: str, reach: int = 60) -> None:
    """An HTML element's figures on the source lines they stand on: a paragraph wrapped over lines 143–147
    starts on 143, but its 1.122 is written on 147 (the figure's text searched for from the element's line,
    after the element's figures before it; as printed, or with its minus or times as an entity).

    >>> from types import SimpleNamespace as N
    >>> ns = [N(text="0.5", source=1), N(text="−0.25", source=1)]
    >>> within_elements(ns, "<p>a = 0.5 and\\nb = &minus;0.25</p>")
    >>> [n.source for n in ns]
    [1, 2]
    >>> ns = [N(text="1.3231", printed="1,3231", source=1)]
    >>> within_elements(ns, "<math>\\n<mn>0,2663</mn>\\n<mn>1,3231</mn></math>")
    >>> [n.source for n in ns]
    [3]
    """
    file = raw.split("\n")
    after: dict = {}
    for n in numbers:
        s = getattr(n, "source", None)
        if not s:
            continue
        spellings = {n.text, *([n.printed] if getattr(n, "printed", "") else [])}    # 1,3231 as the page writes it
        for a, b in HTML_SPELLINGS:
            spellings |= {t.replace(a, b) for t in spellings}
        start = after.get(s, s - 1)
        alone = re.compile("|".join(rf"(?<![\d.,\-−]){re.escape(t)}(?![\d])" for t in sorted(spellings, key=len)[::-1]))
        i = next((i for i in range(start, min(len(file), s - 1 + reach)) if alone.search(file[i])), None)
        #    (a figure as a whole number: 0.1 is not the end of -0.1 on the line above)
        if i is not None:
            n.source, after[s] = i + 1, i
