"""A document's text in one normal form, each format read by a parser made for it.

:mod:`symgpt.claims.extract` reads figures line by line from text that looks like Markdown: headings
``# …``, pipe tables (``| a | b |`` header row, ``| --- |`` rule, body rows), fenced code.  Each reader returns
its format in that form, with where each line came from (:class:`Read`):

========== ==================================================== ==============================================
format     reader                                               line numbers of the text
========== ==================================================== ==============================================
Markdown   markdown-it-py (:mod:`symgpt.claims.read_md`): tables,   lines of the normal form; each line's origin is
``.md``    headings, quotes, indented code and HTML blocks         ``line N``, the file's line it came from
           written back in the normal form, other blocks as they
           are
plain text the file's text as it is                             the file's own lines (``origins`` are empty)
HTML       lxml (:mod:`symgpt.claims.read_html`)                lines of the normal form; each line's origin is
                                                                ``source line N``, the line where the element
                                                                whose text starts it begins
Jupyter    the notebook's JSON (:func:`notebook_lines`)         cells in order, one blank line between them; a
``.ipynb``                                                      Markdown cell's lines as they are, a code cell's
                                                                inside a fence (```` ```python ```` above,
                                                                ```` ``` ```` below) and its outputs after the
                                                                fence; origins ``cell K, line J`` (J counts the
                                                                cell's own source lines from 1) and ``cell K,
                                                                output line J`` (J counts the lines its
                                                                outputs show, from 1)
PDF        pdfplumber (:mod:`symgpt.claims.read_pdf`), or       lines of the normal form, pages in order with a
           pdftotext when pdfplumber fails                      blank line between them; origins ``page N``
LaTeX      :mod:`symgpt.claims.read_tex`: sections, tabulars,   lines of the normal form; each line's origin is
``.tex``   verbatim written back in the normal form; math and   ``line N``, the source line it came from
           prose as they are
reST       docutils (:mod:`symgpt.claims.read_rst`): titles,    lines of the normal form; each line's origin is
``.rst``   tables, literal blocks written back in the normal    ``line N``, the source line it came from
           form; math and prose as they are
========== ==================================================== ==============================================

Notebooks are read with the standard library's :mod:`json`, not nbformat: nbformat would add its schema
validation, which refuses notebooks a reader can read (a code cell without its ``outputs`` or ``metadata``
key) and warns of others (a cell without an ``id``), and fastjsonschema, jsonschema, jupyter-core and traitlets
to the dependencies, for what is a list of cells with their sources and outputs (nbformat 3's worksheets too).

Bad input is one :class:`~symgpt.core.errors.InputError` naming the file.

>>> read_document("/nonexistent.md")
Traceback (most recent call last):
...
symgpt.core.errors.InputError: DOCUMENT /nonexistent.md: no such file
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.errors import InputError
from .read_html import html_lines, html_text
from .read_md import markdown_lines
from .read_pdf import pdf_lines
from .read_rst import rst_lines
from .read_tex import tex_lines

MAX_DOCUMENT_BYTES = 1 << 24   # a document is read only up to this size (16 MiB)
STYLED = {c: unicodedata.normalize("NFKC", chr(c)) for c in [*range(0x1D400, 0x1D800), 0x210E]
          if unicodedata.category(chr(c)) != "Cn" and len(unicodedata.normalize("NFKC", chr(c))) == 1}
"""Mathematical alphanumeric symbols as the letters and digits they style (𝑊 → W, 𝜕 → ∂, 𝟏 → 1, ℎ → h): a PDF's
math italic and text pasted from one are the symbols a tutorial types."""
STYLED.update({ord(c): "。" for c in "।॥۔።"})
"""… and the full stops of other scripts (Bengali and Devanagari's danda, Urdu's, Ethiopic's) as the one the
readings know (。): a sentence ends there (``α₁₁ = 1। … exp(−0.0178) = 0.9824``: no α₁₁ after it)."""
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mkdn")
TEX_SUFFIXES = (".tex", ".ltx", ".latex")
RST_SUFFIXES = (".rst", ".rest")


@dataclass
class Read:
    """A document read: its text in the normal form and, per line, where it came from ([] when the text is
    the file's own)."""
    text: str
    kind: str                                    # text | markdown | html | ipynb | pdf | latex | rst
    origins: list = field(default_factory=list)  # origins[i]: line i + 1 of the text, e.g. 'cell 3, line 2'


def read_document(path) -> str:
    """A document's text in the normal form: plain text as it is; Markdown, HTML, Jupyter notebooks and PDF
    through their readers.

    >>> import tempfile, pathlib
    >>> nb = pathlib.Path(tempfile.mkdtemp()) / "t.ipynb"
    >>> _ = nb.write_text('{"cells": [{"cell_type": "code", "source": ["print(0.5)"], "outputs": '
    ...                   '[{"output_type": "stream", "name": "stdout", "text": ["0.5\\\\n"]}]}]}')
    >>> print(read_document(nb))
    ```python
    print(0.5)
    ```
    0.5
    """
    return read(path).text


def read(path) -> Read:
    """The document at ``path`` read, with its lines' origins.

    >>> import tempfile, pathlib
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "t.html"
    >>> _ = page.write_text("<h2>§1</h2>\\n<p>p = 0.35</p>", encoding="utf-8")
    >>> r = read(page)
    >>> r.text, r.kind, r.origins
    ('## §1\\np = 0.35', 'html', ['source line 1', 'source line 2'])
    """
    r = _read(Path(path))
    return replace(r, text=r.text.translate(STYLED))


def _read(p: Path) -> Read:
    data = _bytes(p)
    suffix = p.suffix.lower()
    if suffix == ".pdf" or data[:5] == b"%PDF-":
        return _joined(pdf_lines(p), "pdf", "page {}")
    text = _decoded(p, data)
    try:
        if suffix == ".ipynb":
            return _joined(notebook_lines(text), "ipynb", "{}")
        if suffix in MARKDOWN_SUFFIXES:
            return _joined(markdown_lines(text), "markdown", "line {}")
        if suffix in HTML_SUFFIXES or re.match(r"\s*(<!doctype html|<html)", text, re.I):
            return _joined(html_lines(text), "html", "source line {}")
        if suffix in TEX_SUFFIXES or re.match(r"\s*(?:%.*\n\s*)*\\documentclass\b", text):
            return _joined(tex_lines(text), "latex", "line {}")
        if suffix in RST_SUFFIXES:
            return _joined(rst_lines(text), "rst", "line {}")
    except InputError as e:
        raise InputError(f"DOCUMENT {p}: {e}") from None
    return Read(text, "text")


def _joined(lines, kind: str, origin: str) -> Read:
    lines = side_by_side(lines)
    return Read("\n".join(line for line, _ in lines), kind,
                [origin.format(at) if at is not None else "" for _, at in lines])


RULE = re.compile(r"\|(?:\s*:?-+:?\s*\|)+")


def side_by_side(lines: list) -> list:
    """Pipe tables that set two matrices side by side, an empty column between them (``| wte | 0 | 1 | | wpe | 0
    | 1 |``), as one table after the other: a row's cells past the gap are another tensor's, not its own.  Lines are
    (text, origin) pairs; each row keeps its origin.

    >>> for line, at in side_by_side([("| E | 0 | | P | 0 |", 1), ("| --- | --- | --- | --- | --- |", None),
    ...                               ("| a | 0.3 | | t=0 | 0.1 |", 2), ("| b | 0.4 | |  |  |", 3)]):
    ...     print(line, at)
    | E | 0 | 1
    | --- | --- | None
    | a | 0.3 | 2
    | b | 0.4 | 3
     None
    | P | 0 | 1
    | --- | --- | None
    | t=0 | 0.1 | 2
    """
    out, k = [], 0
    while k < len(lines):
        end = k
        while end < len(lines) and lines[end][0].startswith("|") and lines[end][0].rstrip().endswith("|"):
            end += 1
        if end - k < 3 or not RULE.fullmatch(lines[k + 1][0].strip()):
            out.append(lines[k])
            k += 1
            continue
        rows = [(None if i == 1 else [c.strip() for c in text.strip()[1:-1].split("|")], at)
                for i, (text, at) in enumerate(lines[k:end])]
        width = max(len(r) for r, _ in rows if r is not None)
        empty = [all(len(r) <= c or not r[c] for r, _ in rows if r is not None) for c in range(width)]
        blocks, start = [], 0
        for c in range(width + 1):
            if c == width or empty[c]:
                if c > start and not all(empty[start:c]):
                    blocks.append((start, c))
                start = c + 1
        if len(blocks) < 2 or blocks[0][0] != 0:
            out += lines[k:end]
        else:
            for b, (lo, hi) in enumerate(blocks):
                if b:
                    out.append(("", None))
                for r, at in rows:
                    cells = ["---"] * (hi - lo) if r is None else (r + [""] * width)[lo:hi]
                    if r is None or any(cells) or at is rows[0][1]:
                        out.append(("| " + " | ".join(cells) + " |", at))
        k = end
    return out


def _bytes(p: Path) -> bytes:
    if not p.is_file():
        raise InputError(f"DOCUMENT {p}: no such file" if not p.exists() else f"DOCUMENT {p}: not a regular file")
    size = p.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        raise InputError(f"DOCUMENT {p}: {size:,} bytes, more than the limit of {MAX_DOCUMENT_BYTES:,}")
    try:
        return p.read_bytes()
    except OSError as e:
        raise InputError(f"DOCUMENT {p}: cannot read it: {(e.strerror or str(e)).lower()}") from None


def _decoded(p: Path, data: bytes) -> str:
    try:
        text = data.decode("utf-8-sig")
        if "\0" in text:                      # UTF-16 without its byte-order mark decodes, NULs and all
            raise UnicodeDecodeError("utf-8", data, data.index(b"\0"), data.index(b"\0") + 1, "NUL byte")
    except UnicodeDecodeError as e:
        raise InputError(f"DOCUMENT {p}: not UTF-8 text (byte {e.start}); expected text, Markdown, HTML or PDF") \
            from None
    return text


# ---------------------------------------------------------------- Jupyter notebooks

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def notebook_lines(text: str) -> list:
    """A Jupyter notebook (nbformat 4, or 3 with its worksheets) as normal-form lines with their origins:
    Markdown cells as they are, code in fences, each code cell's outputs after it as plain lines (a stream's
    text, a result's ``text/markdown``, its ``text/html`` when that holds a table, else its ``text/plain``),
    with no ``In [3]:``/``Out[3]:`` prompts, but a result that is the value of the cell's last expression
    (``model.wpe.weight.grad``) under ``>>> model.wpe.weight.grad``, its name; errors' tracebacks and images are
    left out.

    >>> nb = {"cells": [{"cell_type": "markdown", "source": "## Loss"},
    ...                 {"cell_type": "code", "source": "L", "execution_count": 3,
    ...                  "outputs": [{"output_type": "execute_result", "data": {"text/plain": "1.0515"}}]}]}
    >>> notebook_lines(json.dumps(nb))
    [('## Loss', 'cell 1, line 1'), ('', None), ('```python', 'cell 2'), ('L', 'cell 2, line 1'), \
('```', 'cell 2'), ('>>> L', 'cell 2'), ('1.0515', 'cell 2, output line 1')]
    """
    try:
        nb = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        why = f"line {e.lineno}: {e.msg}" if isinstance(e, json.JSONDecodeError) else "nested too deeply"
        raise InputError(f"not a Jupyter notebook: its JSON does not parse ({why})") from None
    if not isinstance(nb, dict):
        raise InputError("not a Jupyter notebook: its JSON is no object")
    cells = nb.get("cells")
    if cells is None and isinstance(nb.get("worksheets"), list):          # nbformat 3
        cells = [c for ws in nb["worksheets"] if isinstance(ws, dict) for c in ws.get("cells") or []]
    if not isinstance(cells, list):
        raise InputError("not a Jupyter notebook: it has no list of cells")
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    lang = _get(meta, "kernelspec", "language") or _get(meta, "language_info", "name") or "python"
    out: list = []
    for k, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise InputError(f"not a Jupyter notebook: cell {k} is no object")
        if out:
            out.append(("", None))
        kind = cell.get("cell_type")
        source = _text(cell.get("source", cell.get("input", "")), f"cell {k}'s source").splitlines()
        if kind == "heading":                                                # nbformat 3
            source = ["#" * int(cell.get("level", 1) or 1) + " " + " ".join(source)]
        if kind != "code":
            out += [(line, f"cell {k}, line {j}") for j, line in enumerate(source, 1)]
            continue
        out.append((f"```{lang}", f"cell {k}"))
        out += [(line, f"cell {k}, line {j}") for j, line in enumerate(source, 1)]
        out.append(("```", f"cell {k}"))
        j = 0
        for output in cell.get("outputs") or []:
            shown = _output(output, k)
            value = _last_expression(source) if isinstance(output, dict) and shown and \
                output.get("output_type") in ("execute_result", "pyout") and _plain(output) else None
            if value:                  # Out[n] is the value of the cell's last expression: its name
                out.append((f">>> {value}", f"cell {k}"))
            out += [(line, f"cell {k}, output line {j + i}") for i, line in enumerate(shown, 1)]
            j += len(shown)
    return out


LAST_EXPRESSION = re.compile(r"[A-Za-z_][\w.]*+(?:\[[^\[\]]*+\][\w.]*+)*+")


def _last_expression(source: list) -> str | None:
    """The name a code cell's result is the value of: its last line when that is a bare name, attribute or
    subscript (``model.wpe.weight.grad``, ``p[2]``), else None.

    >>> _last_expression(["loss.backward()", "model.wpe.weight.grad  # wpe"]), _last_expression(["x = 1"])
    ('model.wpe.weight.grad', None)
    """
    code = [line.split("#")[0].strip() for line in source]
    code = [line for line in code if line]
    return code[-1] if code and LAST_EXPRESSION.fullmatch(code[-1]) else None


def _plain(output: dict) -> bool:
    """Whether a result shows as plain text (a table, Markdown or HTML, has its own header)."""
    data = output.get("data") if isinstance(output.get("data"), dict) else output
    html = data.get("text/html", data.get("html"))
    html = "".join(h for h in html if isinstance(h, str)) if isinstance(html, list) else html
    return data.get("text/markdown", data.get("markdown")) is None and \
        not (isinstance(html, str) and "<table" in html.lower())


def _get(d: dict, *keys):
    for key in keys:
        d = d.get(key) if isinstance(d, dict) else None
    return d if isinstance(d, str) else None


def _text(value, what: str) -> str:
    """A notebook's multiline string: a string, or a list of strings (its lines, each with its newline)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise InputError(f"not a Jupyter notebook: {what} is no string or list of strings")


def _output(output, k: int) -> list:
    """One output's lines: what a reader sees under the cell."""
    if not isinstance(output, dict):
        raise InputError(f"not a Jupyter notebook: an output of cell {k} is no object")
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text", ""), f"a stream of cell {k}")
        return [ANSI.sub("", line).split("\r")[-1].rstrip() for line in text.splitlines()]
    if kind not in ("execute_result", "display_data", "pyout"):
        return []                                   # error tracebacks; unknown kinds
    data = output.get("data")
    if not isinstance(data, dict):                  # nbformat 3 keeps the formats in the output itself
        data = {"text/plain": output.get("text"), "text/html": output.get("html"),
                "text/markdown": output.get("markdown")}
    if data.get("text/markdown") is not None:
        return _text(data["text/markdown"], f"a result of cell {k}").splitlines()
    if data.get("text/html") is not None:
        html = _text(data["text/html"], f"a result of cell {k}")
        if "<table" in html.lower():                # a data frame: its table, not its aligned text
            return html_text(html).splitlines()
    if data.get("text/plain") is not None:
        return [ANSI.sub("", line).rstrip() for line in
                _text(data["text/plain"], f"a result of cell {k}").splitlines()]
    return []
