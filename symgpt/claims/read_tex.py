"""A LaTeX source file in the normal form: the file a tutorial's author wrote, read without compiling it.

The normal form (:mod:`symgpt.claims.readers`) is Markdown as :mod:`symgpt.claims.extract` reads it line by
line.  LaTeX writes the same blocks in its own way, and this reader writes them back in that one way:

- the preamble (up to ``\\begin{document}``) and what follows ``\\end{document}``: not read; comments
  (``% …``, but not ``\\%``): removed;
- ``\\section{…}``, ``\\subsection{…}``, ``\\subsubsection{…}``, ``\\paragraph{…}``: ``#`` headings;
- a ``tabular`` (``tabular*``, ``tabularx``, ``longtable``): a pipe table, its first row the header, one row
  per ``\\\\``, one cell per ``&``; rules (``\\toprule``, ``\\hline``, …) dropped, ``\\multicolumn`` as its
  text and empty cells, ``$`` around a cell's math dropped; ``\\caption{…}`` as ``Table: …``;
- ``verbatim``, ``Verbatim``, ``lstlisting``, ``minted``: fenced code, their lines as they are;
- ``\\item``: a list item; ``~``: a space; a macro defined in the preamble with one argument
  (``\\newcommand{\\w}[1]{\\textit{#1}}``) and ``\\emph``, ``\\textbf``, ``\\textit``, ``\\texttt``: their argument.

Math (``\\[ … \\]``, ``align``, ``bmatrix``) keeps its lines as written: :mod:`symgpt.claims.extract` reads
LaTeX math and its figures (``0{,}497``, ``\\num{2.3e-4}``) as it does in Markdown.  Each line of the normal
form keeps the line of the file it came from.

>>> src = "\\\\documentclass{article}\\n\\\\begin{document}\\n\\\\section{Wyniki}\\n" \\
...       "\\\\begin{tabular}{lc}\\n\\\\toprule\\n$i$ & $s_{i1}$ \\\\\\\\\\n\\\\midrule\\n" \\
...       "1 & $0{,}3024$ \\\\\\\\ % ok\\n\\\\end{tabular}\\n\\\\end{document}"
>>> for line, at in tex_lines(src):
...     print(at, line)
3 # Wyniki
6 | i | s_{i1} |
6 | --- | --- |
8 | 1 | 0{,}3024 |
"""
from __future__ import annotations

import re

SECTION = re.compile(r"\s*\\(part|chapter|section|subsection|subsubsection|paragraph)\*?(?:\[[^\]]*\])?\s*\{")
LEVEL = {"part": "#", "chapter": "#", "section": "#", "subsection": "##", "subsubsection": "###", "paragraph": "####"}
TABULAR = re.compile(r"\\begin\{(tabular\*?|tabularx|tabulary|longtable)\}")
VERBATIM = re.compile(r"\\begin\{(verbatim\*?|Verbatim|BVerbatim|lstlisting|minted)\}")
RULE = re.compile(r"\\(?:toprule|midrule|bottomrule|hline|specialrule|addlinespace|endhead|endfirsthead|endfoot|"
                  r"endlastfoot|noalign)\b(?:\{[^{}]*\})*|\\c(?:mid)?rule(?:\([^)]*\))?\{[^{}]*\}|"
                  r"\\rowcolor(?:\[[^\]]*\])?\{[^{}]*\}")
COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%.*")    # % after an even run of backslashes: \\% is a line break, then %
NEWCOMMAND = re.compile(r"\\(?:re)?newcommand\*?\s*\{?\\([A-Za-z]+)\}?\s*(?:\[([01])\])?\s*\{")
FORMATTING = ("emph", "textbf", "textit", "texttt", "textrm", "textsf", "textup", "underline", "mbox")


def _uncommented(line: str) -> str:
    return COMMENT.sub(r"\1", line)


def tex_lines(text: str) -> list:
    """The normal form's lines of a LaTeX source, each with the line of the source it came from (from 1;
    None for a line the reader adds)."""
    source = re.split(r"\r\n|\r|\n", text)
    begin = next((k for k, s in enumerate(source) if re.search(r"\\begin\{document\}", _uncommented(s))), None)
    end = next((k for k, s in enumerate(source) if re.search(r"\\end\{document\}", _uncommented(s))), len(source))
    macros = {name: (1, "#1") for name in FORMATTING} | \
        _definitions("\n".join(_uncommented(s) for s in source[:begin or 0]))
    out: list = []
    k = begin + 1 if begin is not None else 0
    while k < end:
        line = source[k]
        verbatim = VERBATIM.search(_uncommented(line))
        close = re.compile(r"\\end\{" + re.escape(verbatim[1]) + r"\}") if verbatim else None
        if verbatim and not close.search(line, verbatim.end()):     # code as it is, fenced (not one line's)
            j = next((j for j in range(k + 1, end) if close.search(source[j])), end)
            out += [("```", None), *((source[i], i + 1) for i in range(k + 1, j)), ("```", None)]
            k = j + 1
            continue
        line = _uncommented(line)
        tabular = TABULAR.search(line)
        if tabular:
            close = re.compile(r"\\end\{" + re.escape(tabular[1]) + r"\}")
            start = tabular.end()
            j = next((j for j in range(k, end) if close.search(_uncommented(source[j]), start * (j == k))), end - 1)
            body = [(_uncommented(source[i]), i + 1) for i in range(k, j + 1)]
            if line[:tabular.start()].strip():                   # text before it on its line: a line of its own
                out.append((_prose(line[:tabular.start()], macros), k + 1))
            out += _table(body, tabular[1], macros)
            after = close.search(body[-1][0], start * (j == k))
            if after and body[-1][0][after.end():].strip():      # and text after its end
                out.append((_prose(body[-1][0][after.end():], macros), j + 1))
            k = j + 1
            continue
        out.append((_prose(line, macros), k + 1))
        k += 1
    return out


def _prose(line: str, macros: dict) -> str:
    section = SECTION.match(line)
    if section:
        title, rest = _group(line, section.end() - 1)
        return f"{LEVEL[section[1]]} {_unwrapped(title, macros)} {_unwrapped(rest, macros)}".rstrip()
    line = re.sub(r"^(\s*)\\item(?:\[([^\]]*)\])?\s*", lambda m: f"{m[1]}- " + (f"{m[2]} " if m[2] else ""), line)
    caption = re.match(r"\s*\\caption\*?(?:\[[^\]]*\])?\s*\{", line)
    if caption:
        title, rest = _group(line, caption.end() - 1)
        return f"Table: {_unwrapped(title, macros)} {_unwrapped(rest, macros)}".rstrip()
    return _unwrapped(line, macros).rstrip()


def _definitions(preamble: str) -> dict:
    """name → (arguments, body) of the preamble's macros of none or one argument (``\\newcommand{\\blk}[1]{^{[#1]}}``,
    ``\\newcommand{\\R}{\\mathbb{R}}``).

    >>> _definitions(r"\\newcommand{\\blk}[1]{^{[#1]}} \\newcommand\\w[1]{\\textit{#1}} \\newcommand{\\R}{\\mathbb{R}}")
    {'blk': (1, '^{[#1]}'), 'w': (1, '\\\\textit{#1}'), 'R': (0, '\\\\mathbb{R}')}
    """
    out = {}
    for m in NEWCOMMAND.finditer(preamble):
        body, _ = _group(preamble, m.end() - 1)
        out[m[1]] = (int(m[2] or 0), body)
    return out


def _unwrapped(text: str, macros: dict) -> str:
    """A preamble's macros written out (``\\blk{1}`` → ``^{[1]}``), formatting macros as their argument
    (``\\textbf{0,5}`` → ``0,5``), ``~`` as a space.

    >>> _unwrapped(r"\\mathbf{f}\\blk{1}_3 = \\textbf{0,5}~x", {"blk": (1, "^{[#1]}"), "textbf": (1, "#1")})
    '\\\\mathbf{f}^{[1]}_3 = 0,5 x'
    """
    if macros:
        one = [k for k, (n, _) in macros.items() if n == 1]
        none = [k for k, (n, _) in macros.items() if n == 0]
        pattern = re.compile(r"\\(" + "|".join(map(re.escape, one)) + r")\s*\{([^{}]*)\}") if one else None
        bare = re.compile(r"\\(" + "|".join(map(re.escape, none)) + r")(?![A-Za-z])") if none else None
        for _ in range(3):                                   # nested: \emph{\w{ala}}
            n = m = 0
            if pattern:
                text, n = pattern.subn(lambda x: macros[x[1]][1].replace("#1", x[2]), text)
            if bare:
                text, m = bare.subn(lambda x: macros[x[1]][1], text)
            if not n and not m:
                break
    return re.sub(r"(?<!\\)~", " ", text)


def _group(line: str, at: int) -> tuple:
    """The brace group opening at ``line[at]`` and what follows it (the rest of the line when unbalanced)."""
    depth = 0
    for i in range(at, len(line)):
        depth += line[i] == "{"
        depth -= line[i] == "}"
        if depth == 0:
            return line[at + 1:i], line[i + 1:]
    return line[at + 1:], ""


def _table(lines: list, env: str, macros: dict) -> list:
    """A tabular's rows as a pipe table: [(line, source line)]."""
    text, starts = "", []                    # the environment's text and where each source line starts in it
    for line, at in lines:
        starts.append((len(text), at))
        text += line + "\n"
    begin = TABULAR.search(text)
    pos = begin.end()
    if env in ("tabular*", "tabularx", "tabulary"):
        pos = _skip_group(text, pos)         # the width
    spec_at = _skip_space(text, pos, optional=True)
    pos = _skip_group(text, spec_at)                                # [t] then the column spec
    columns = len(re.findall(r"[lcrXLCRS]|[pmb]\{", re.sub(r"@\{[^{}]*\}|>\{[^{}]*\}|<\{[^{}]*\}", "",
                                                           text[spec_at:pos])))
    stop = re.search(r"\\end\{" + re.escape(env) + r"\}", text[pos:])
    body = text[pos:pos + stop.start()] if stop else text[pos:]
    rows, caption, start, ruled_rows = [], None, pos, []
    for m in re.finditer(r"\\\\(?:\[[^\]]*\])?|\\tabularnewline\b|$", body):
        row = body[start - pos:m.start()]
        cap = re.search(r"\\caption\*?\s*\{", row)
        if cap:
            caption = (_group(row, cap.end() - 1)[0], _line_at(starts, start + cap.start()))
            row = row[:cap.start()] + _group(row, cap.end() - 1)[1]
        ruled = RULE.match(row.lstrip()) is not None               # a rule before this row's cells
        row = RULE.sub(lambda r: " " * len(r[0]), row)             # (as wide: the row starts where its text does)
        lead = len(row) - len(row.lstrip())
        title = re.match(r"\s*\\multicolumn\s*\{\s*(\d+)\s*\}\s*\{[^{}]*\}\s*\{", row) if not rows else None
        if title and int(title[1]) >= columns and caption is None and "&" not in row:   # a first row spanning every
            #                                                                              column: the table's title
            caption = (_group(row, title.end() - 1)[0], _line_at(starts, start + lead))   # ('τ = 2' over słowo, π)
        elif row.strip():
            rows.append((_cells(row, macros), _line_at(starts, start + lead)))
            ruled_rows.append(ruled)
        start = pos + m.end()
        if m.group() == "":
            break
    out = [(f"Table: {_unwrapped(caption[0], macros)}", caption[1]), ("", None)] if caption else []
    if not rows:
        return out
    width = max(len(cells) for cells, _ in rows)
    numbered = len(rows) > 1 and ruled_rows[1] and all(re.fullmatch(r"\s*\$?\s*\d{1,2}\s*\$?\s*", c)
                                                         for c in rows[0][0][1:] if c.strip())
    if not numbered and any(_figure(c) and not re.search(r"[A-Za-z]\s*=", c) for c in rows[0][0][1:]):
        rows.insert(0, ([""] * width, rows[0][1]))       # a first row of figures is no header: an empty one
    #                                                      (but '$j$ & 1 & 2 & 3 \\ \midrule': columns numbered)
    for k, (cells, at) in enumerate(rows):
        cells = cells + [""] * (width - len(cells))
        out.append(("| " + " | ".join(cells) + " |", at))
        if k == 0:
            out.append(("| " + " | ".join(["---"] * width) + " |", at))
    return out


def _figure(cell: str) -> bool:
    """Whether a cell holds a figure (not only a subscript's digit: ``s_{i1}``, ``j = 1`` counts)."""
    return re.search(r"(?<![\w{])[-−]?\d", re.sub(r"[_^]\{[^{}]*\}|[_^]\w", "", cell)) is not None


def _cells(row: str, macros: dict) -> list:
    cells = []
    for cell in re.split(r"(?<!\\)&", row):
        cell = cell.strip()
        span = re.match(r"\\multicolumn\s*\{\s*(\d{1,3})\s*\}\s*\{[^{}]*\}\s*\{", cell)
        extra = 0
        if span:
            extra = int(span[1]) - 1
            cell = _group(cell, span.end() - 1)[0]
        cell = re.sub(r"(?<!\\)\$", "", _unwrapped(cell, macros)).replace("|", "∣").strip()
        cells += [" ".join(cell.split())] + [""] * min(extra, 64)
    return cells


def _skip_space(text: str, pos: int, optional: bool = False) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if optional and text.startswith("[", pos):
        close = text.find("]", pos)
        pos = close + 1 if close >= 0 else pos
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return pos


def _skip_group(text: str, pos: int) -> int:
    pos = _skip_space(text, pos)
    return len(text) - len(_group(text, pos)[1]) if text.startswith("{", pos) else pos


def _line_at(starts: list, offset: int) -> int:
    at = starts[0][1]
    for start, line in starts:
        if start > offset:
            break
        at = line
    return at
