"""A Markdown document in the normal form, read by markdown-it-py (CommonMark with GFM tables).

The normal form (:mod:`symgpt.claims.readers`) is Markdown as :mod:`symgpt.claims.extract` reads it line by
line: ``#`` headings, pipe tables with a rule under their header, fenced code.  Markdown may write the same
things in other ways, which a line reader cannot tell apart from prose; the parser can, and this reader
writes each block back in the one way:

- a table without its outer pipes (``a | b``), with escaped pipes in a cell (``\\|``), or inside a quote
  (``> | a | b |``): a row ``| a | b |`` per line, the rule under the header (a pipe inside a cell becomes
  ``∣``, so the columns stay the columns);
- a heading underlined with ``===`` or ``---``: ``#`` or ``##`` before its text;
- a block quote: its contents without the ``>`` markers;
- code indented by four spaces: fenced;
- an HTML block (a ``<table>`` written into the Markdown): read by the HTML reader
  (:func:`symgpt.claims.read_html.html_lines`).

Every other block (paragraphs, lists, math, fenced code, ``#`` headings) keeps its lines exactly as written,
so a sentence reads the same as before.  Each line of the normal form keeps the line of the file it came from.

>>> for line, at in markdown_lines("Losses\\n======\\n\\nstep | loss\\n--- | ---\\n1 | 0.69 \\\\| 0.70\\n"):
...     print(at, line or "(blank)")
1 # Losses
None (blank)
4 | step | loss |
4 | --- | --- |
6 | 1 | 0.69 ∣ 0.70 |
"""
from __future__ import annotations

import functools
import re

from .read_html import html_lines

QUOTE = re.compile(r"^[ \t]{0,3}>[ ]?")


FRONT_MATTER = re.compile(r"(?:---|\+\+\+)[ \t]*")
"""The fence of a YAML (``---``) or TOML (``+++``) front matter block at the top of a file."""


@functools.cache
def _parser():
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    return md.disable("inline")        # the blocks are all this reader needs: a cell's text is its source


def markdown_lines(text: str) -> list:
    """The normal form's lines of a Markdown text, each with the line of the text it came from (from 1; None
    for a blank line between blocks)."""
    from markdown_it.tree import SyntaxTreeNode
    source = re.split(r"\r\n|\r|\n", text)
    out: list = []
    front = _front_matter(source)
    if front:                          # title: …, date: …: kept as lines of text, and not read as Markdown
        out += [(source[k], k + 1) for k in range(front)]
        source_text = "\n" * front + "\n".join(source[front:])
    else:
        source_text = "\n".join(source)
    for node in SyntaxTreeNode(_parser().parse(source_text)).children:
        _block(node, source, out, 0)
    while out and not out[-1][0]:
        out.pop()
    return out


def _front_matter(source: list) -> int:
    """How many lines a front matter block at the file's top takes (its two fences included), or 0.

    >>> _front_matter(["---", "title: A bigram", "---", "", "# Text"]), _front_matter(["# Text"])
    (3, 0)
    """
    if not source or not FRONT_MATTER.fullmatch(source[0]):
        return 0
    fence = source[0].strip()
    end = next((k for k in range(1, min(len(source), 200)) if source[k].strip() == fence), None)
    return end + 1 if end is not None else 0


def _block(node, source: list, out: list, quoted: int) -> None:
    """Append the lines of one block (``quoted``: the depth of block quotes it stands in)."""
    if node.map is None:
        return
    start, end = node.map
    if out and out[-1][0]:
        out.append(("", None))
    if node.type == "blockquote":
        for child in node.children:
            _block(child, source, out, quoted + 1)
        return
    if node.type == "table":
        _table(node, out, quoted)
        return
    if node.type == "heading" and node.markup in ("=", "-"):     # setext: the text over its underline
        out.append(("#" * int(node.tag[1]) + " " + " ".join(node.children[0].content.split()), start + 1))
        return
    if node.type == "code_block":                                 # indented code, fenced as the form has it
        out.append(("```", None))
        out.extend((ln, start + 1 + k) for k, ln in enumerate(node.content.rstrip("\n").split("\n")))
        out.append(("```", None))
        return
    if node.type == "html_block" and not quoted:
        for line, at in html_lines(node.content):
            out.append((line, start + at if at is not None else None))
        return
    for k in range(start, min(end, len(source))):                # as written (less its quote markers)
        line = source[k]
        for _ in range(quoted):
            line = QUOTE.sub("", line, count=1)
        out.append((line, k + 1))


def _table(node, out: list, quoted: int) -> None:
    """A table's rows as ``| a | b |`` lines, the rule under the header row."""
    for part in node.children:                                    # thead, tbody
        for tr in part.children:
            cells = [" ".join(c.children[0].content.split()).replace("|", "∣") if c.children else ""
                     for c in tr.children]
            at = tr.map[0] + 1 if tr.map else None
            out.append(("| " + " | ".join(cells) + " |", at))
            if part.type == "thead":
                out.append(("| " + " | ".join("---" for _ in cells) + " |", at))
