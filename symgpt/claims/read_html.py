"""An HTML page's visible text in the normal form :mod:`symgpt.claims.extract` reads.

The page is parsed by lxml (libxml2's HTML parser, which mends what browsers mend: ``</td>``, ``</tr>`` and
``</head>`` left out, entities).  Block elements (``p``, ``div``, ``li``, ``h1``–``h6``, ``tr``, ``br`` …) start
lines; inline elements never do, so a figure that starts a wrapped source line stays in its sentence
(whitespace is collapsed, as a browser collapses it).  What the normal form makes of the rest:

- a heading is ``## text``; a ``<pre>`` is a fenced block (its lines as they are);
- a ``<table>`` is a Markdown pipe table between blank lines: its ``<caption>`` above it (``Table: caption``,
  or the caption as it is when it is already numbered, ``Table 2-1 · …``/``表 2-1 …``, the form ``extract``
  recognises), the header row (``<thead>`` rows, or leading rows of ``<th>`` cells) and a ``| --- |`` rule, then
  the rows with their label cells; a cell spanning columns or rows is repeated in each; a ``|`` inside a cell
  is written ``∣`` (U+2223) so that it splits no cell;
- typeset math is read once, as its TeX source ``$…$`` (KaTeX's or MathML's
  ``annotation[encoding="application/x-tex"]``), else as the MathML's text (``msup`` as ``^{…}``), else as
  KaTeX's own glyphs; display math keeps its TeX's lines;
- ``<sub>``/``<sup>`` are ``_{…}``/``^{…}``: W<sub>Q</sub> is ``W_{Q}``, 10<sup>-4</sup> is ``10^{-4}``;
- MathJax's ``<script type="math/tex">`` (``; mode=display``) is its TeX, ``$…$`` (displayed: its own lines);
- other ``script``, ``style``, ``template``, ``noscript`` and ``title`` are dropped, as are attributes
  (``data-exact``, ``alt``, ``title``); an element marked ``hidden`` is read (a slider's other panels are
  figures the page prints too); an SVG's ``<text>`` elements are lines of their own.

Line numbers are those of the normal form; :func:`html_lines` gives, for each line, the source line of the
element whose text starts it (libxml2's ``sourceline``).

>>> print(html_text('<h2>§1</h2><p>loss\\n  1.0515 and W<sub>Q</sub></p><table><caption>Probabilities</caption>'
...                 '<tr><th>token<th>p<tr><td>鱼<td>0.3494</table>'))
## §1
loss 1.0515 and W_{Q}
<BLANKLINE>
Table: Probabilities
| token | p |
| --- | --- |
| 鱼 | 0.3494 |
"""
from __future__ import annotations

import re

from ..core.errors import InputError

BLOCKS = frozenset("""p div br li ul ol dl dt dd h1 h2 h3 h4 h5 h6 table caption thead tbody tfoot tr td th pre
    section article header footer nav main aside blockquote figure figcaption hr address details summary form
    fieldset legend menu hgroup option select textarea body html text""".split())   # text: an SVG's <text>
HIDDEN = frozenset({"script", "style", "title", "template", "noscript", "head"})
NUMBERED = re.compile(r"\s*(?:\*\*)?(?:表|Table|图|Figure)\s*\d")    # a caption extract reads as one
MAX_SPAN = 1000                                                   # colspan and rowspan beyond this are read as it


def html_text(html: str) -> str:
    """The visible text of an HTML page in the normal form (see the module's description).

    >>> html_text('<p>so <span class="katex"><span class="katex-mathml"><math><semantics><mi>p</mi>'
    ...           '<annotation encoding="application/x-tex">p_{2} = 0.35</annotation></semantics></math></span>'
    ...           '<span class="katex-html" aria-hidden="true">p2=0.35</span></span>.</p>')
    'so $p_{2} = 0.35$.'
    """
    return "\n".join(line for line, _ in html_lines(html))


def html_lines(html: str) -> list:
    """The normal form's lines, each with the source line it starts at (None for a blank line).

    >>> html_lines('<p>a</p>\\n\\n<p>b\\nc</p>')
    [('a', 1), ('b c', 3)]
    """
    root = _parse(html)
    if root is None:
        return []
    walk = _Walk("flow")
    walk.run(root)
    out: list = []
    for line, at in walk.lines:
        if line or (out and out[-1][0]):
            out.append((line, at))
    while out and not out[-1][0]:
        out.pop()
    return out


def _parse(html: str):
    from lxml import etree
    from lxml import html as lxml_html

    # huge_tree: a text of any length (the document's size is limited already), elements up to 2048 deep
    parser = lxml_html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True,
                                  huge_tree=True)
    try:
        root = lxml_html.document_fromstring(html.encode("utf-8", "surrogatepass"), parser=parser)
    except etree.ParserError as e:
        if "empty" in str(e).lower():
            return None                           # nothing but whitespace or comments
        raise InputError(f"HTML the parser cannot read: {e}") from None
    except (etree.LxmlError, ValueError) as e:
        raise InputError(f"HTML the parser cannot read: {e}") from None
    fatal = [e for e in parser.error_log if e.level_name == "FATAL"]
    if fatal:                                     # libxml2 stops there and keeps nothing: say so, not an empty page
        why = re.sub(r",?\s*use XML_PARSE_HUGE option", "", fatal[0].message)
        raise InputError(f"HTML the parser cannot read: {why} (line {fatal[0].line})")
    return root


DISPLAYED = re.compile(r"\\\[(.+?)\\\]|\$\$(.+?)\$\$", re.S)     # \[ … \] or $$ … $$: a displayed formula


def _classes(el) -> list:
    return (el.get("class") or "").split()


def _is_math(el) -> bool:
    return el.tag == "math" or el.tag == "span" and "katex" in _classes(el)


class _Walk:
    """One pass over an element's subtree: ``flow`` writes lines, ``inline`` one line (a cell, a caption),
    ``verbatim`` keeps the text's own spaces and line breaks (a ``<pre>``)."""

    def __init__(self, mode: str):
        self.mode, self.lines, self.buf, self.at, self.prefix = mode, [], [], None, ""

    def run(self, root) -> None:
        stack = [(root, True)]
        while stack:
            el, opening = stack.pop()
            if not opening:
                self.close(el)
                if el is not root:
                    self.put(el.tail, el)
                continue
            descend = isinstance(el.tag, str) and self.open(el, stack)
            if descend:
                stack.append((el, False))
                stack.extend((child, True) for child in reversed(el))
                self.put(el.text, el)
            elif el is not root:
                self.put(el.tail, el)
        self.flush()

    def put(self, text, el) -> None:
        if text:
            if not self.buf:
                self.at = el.sourceline
            self.buf.append(text)

    def flush(self) -> None:
        text = "".join(self.buf)
        self.buf = []
        if self.mode == "verbatim":                 # (its k-th line is k lines below where it starts)
            self.lines += [(ln.rstrip(), self.at + k if self.at else None) for k, ln in enumerate(text.split("\n"))]
            return
        if self.mode == "flow" and DISPLAYED.search(text):    # MathJax's \[…\] and $$…$$ in the page's own text
            self._displayed(text)
            return
        text = " ".join(text.split())
        if text and self.mode == "flow":
            self.lines.append((self.prefix + text, self.at))
        elif text:
            self.lines.append((text, self.at))
        self.prefix = ""

    def _displayed(self, text: str) -> None:
        """A run of the flow whose raw TeX displays formulas (``\\[…\\]``, ``$$…$$``, which MathJax typesets
        as blocks): each formula on a line of its own as ``$…$`` (an aligned one's rows, split at ``\\\\``, on
        theirs), the text around it on lines of its own, each at its own source line.

        >>> html_lines('<p>Keys:</p>\\n\\\\[k_1 = (0.1,\\n 0.2)\\\\]\\n\\\\[k_2 = 0.3\\\\] and')
        [('Keys:', 1), ('$k_1 = (0.1, 0.2)$', 2), ('$k_2 = 0.3$', 4), ('and', 4)]
        >>> html_lines(r'<p>z:</p> \\[\\begin{aligned} z_0 &= 0.13 \\\\ z_1 &= -0.13 \\end{aligned}\\]')
        [('z:', 1), ('$z_0 &= 0.13$', 1), ('$z_1 &= -0.13$', 1)]
        """
        at, pos = self.at, 0
        for m in (*DISPLAYED.finditer(text), None):
            before = text[pos:m.start() if m else len(text)]
            words = " ".join(before.split())
            if words:
                self.lines.append((self.prefix + words, at + text.count("\n", 0, pos) if at else None))
                self.prefix = ""
            if m is None:
                break
            start = m.start(m.lastindex)
            for row in re.split(r"\\\\", m[m.lastindex]):           # an aligned block's rows, each a formula
                lead = start + len(row) - len(row.lstrip())
                start += len(row) + 2
                row = re.sub(r"\\(?:begin|end)\{[A-Za-z*]+\}", " ", row)
                if row.strip():
                    self.lines.append((f"${' '.join(row.split())}$", at + text.count("\n", 0, lead) if at else None))
            pos = m.end()
        self.prefix = ""

    def brk(self, el) -> None:
        """A block's edge: a new line in the flow, a space in a cell, a line break in a <pre>."""
        if self.mode == "flow":
            self.flush()
        elif self.mode == "inline":
            self.put(" ", el)
        elif self.buf and not self.buf[-1].endswith("\n"):
            self.put("\n", el)

    def open(self, el, stack) -> bool:
        tag = el.tag
        if tag == "script" and (el.get("type") or "").startswith("math/tex"):
            self.tex((el.text or "").strip(), el, "mode=display" in el.get("type"))
            return False                   # MathJax's <script type="math/tex">: its TeX, the page's formula
        if tag in HIDDEN:                  # (not [hidden]: a slider's other panels are the page's figures too)
            return False
        if _is_math(el):
            self.math(el, stack)
            return False
        if self.mode == "flow" and tag == "table" and not _layout(el):
            self.flush()
            self.blank()
            for line in _table(el):
                self.lines.append(line)
            self.blank()
            return False
        if self.mode == "flow" and tag == "pre":
            self.flush()
            code = _Walk("verbatim")
            code.run(el)
            body = code.lines
            while body and not body[0][0].strip():
                body.pop(0)
            while body and not body[-1][0].strip():
                body.pop()
            self.lines += [("```", el.sourceline), *body, ("```", el.sourceline)]
            return False
        if tag in ("sub", "sup"):
            self.put("_{" if tag == "sub" else "^{", el)
        elif tag in ("td", "th") and self.mode != "flow":
            self.put(" ", el)              # (in the flow, a layout table's cell is a block)
        elif tag in BLOCKS:
            self.brk(el)
            if self.mode == "flow" and re.fullmatch(r"h[1-6]", tag):
                self.prefix = "#" * int(tag[1]) + " "
        return True

    def close(self, el) -> None:
        if el.tag in ("sub", "sup"):
            self.put("}", el)
        elif el.tag in BLOCKS and el.tag != "br":
            self.brk(el)

    def blank(self) -> None:
        if self.lines and self.lines[-1][0]:
            self.lines.append(("", None))

    def math(self, root, stack) -> None:
        """A formula, read once; blocks an unclosed formula swallowed (``<span class="katex">…<p>``) are walked
        after it, as a browser shows them."""
        own, blocks = _own(root)
        tex = next(("".join(e.itertext()) for e in own
                    if e.tag == "annotation" and e.get("encoding") == "application/x-tex"), "").strip()
        if not tex:
            math = root if root.tag == "math" else next((e for e in own if e.tag == "math"), None)
            ink = next((e for e in own if e.tag == "span" and "katex-html" in _classes(e)), None)
            tex = _mathml(math, 0) if math is not None else \
                " ".join("".join(ink.itertext()).split()) if ink is not None else ""
        near = [a for a, _ in zip(root.iterancestors(), range(3))]
        display = root.get("display") == "block" or any(
            "katex-display" in _classes(a) or a.tag == "mjx-container" and a.get("display") == "true" for a in near)
        self.tex(tex, root, display)
        stack.extend((b, True) for b in reversed(blocks))

    def tex(self, tex: str, el, display: bool) -> None:
        """A formula's TeX: its own lines when displayed in the flow, else ``$…$`` in the line."""
        if tex and display and self.mode == "flow":
            self.flush()
            self.lines += [(ln.rstrip(), el.sourceline + k if el.sourceline else None)
                           for k, ln in enumerate(f"${tex}$".split("\n")) if ln.strip()]
        elif tex:
            self.put("$" + (tex if self.mode == "verbatim" else " ".join(tex.split())) + "$", el)


def _own(root) -> tuple:
    """The descendants of a formula outside any block element in it, and those outermost blocks."""
    own, blocks, stack = [], [], list(reversed(root))
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        if el.tag in BLOCKS and el.tag not in ("br", "text"):
            blocks.append(el)
            continue
        own.append(el)
        stack.extend(reversed(el))
    return own, blocks


def _layout(table) -> bool:
    """A table that lays a page out rather than holding data: tables or headings in it, or long cells.
    Its cells are read as blocks of the flow."""
    if table.xpath(".//table | .//h1 | .//h2 | .//h3 | .//h4 | .//pre"):
        return True
    return any(len("".join(c.itertext())) > 400 for c in table.xpath(".//td | .//th"))


def _mathml(el, depth: int) -> str:
    """MathML as text: tokens spaced, ``msup`` as ``^{…}``, ``msub`` as ``_{…}``, ``mfrac`` as ``(a)/(b)``,
    ``msqrt`` as ``√(…)``.

    >>> from lxml import html
    >>> _mathml(html.fromstring('<math><mi>ε</mi><mo>=</mo><msup><mn>10</mn><mrow><mo>−</mo><mn>5</mn>'
    ...                         '</mrow></msup></math>'), 0)
    'ε = 10^{−5}'
    >>> _mathml(html.fromstring('<math><mo>(</mo><mn>0.3</mn><mo>,</mo><mo>−</mo><mn>0.2</mn><mo>)</mo>'
    ...                         '<mo>−</mo><mn>1</mn></math>'), 0)
    '( 0.3 , −0.2 ) − 1'
    """
    if not isinstance(el.tag, str) or el.tag in ("annotation", "annotation-xml"):
        return ""
    kids = [k for k in el if isinstance(k.tag, str) and k.tag not in ("annotation", "annotation-xml")]
    if not kids or depth > 100:
        return " ".join("".join(el.itertext()).split())
    parts = [_mathml(k, depth + 1) for k in kids]
    tight = ["".join(p.split()) for p in parts]               # a script's tokens: 10^{−5}, not 10^{− 5}
    if el.tag in ("msup", "mover") and len(parts) == 2:
        return f"{parts[0]}^{{{tight[1]}}}"
    if el.tag in ("msub", "munder") and len(parts) == 2:
        return f"{parts[0]}_{{{tight[1]}}}"
    if el.tag in ("msubsup", "munderover") and len(parts) == 3:
        return f"{parts[0]}_{{{tight[1]}}}^{{{tight[2]}}}"
    if el.tag == "mfrac" and len(parts) == 2:
        return "/".join(p if re.fullmatch(r"[\w.]+", p) else f"({p})" for p in parts)
    if el.tag == "msqrt":
        return f"√({' '.join(parts)})"
    out: list = []
    for k, (kid, part) in enumerate(zip(kids, parts)):
        signed = k > 0 and kids[k - 1].tag == "mo" and tight[k - 1] in ("−", "-", "+") and kid.tag == "mn" and \
            (k == 1 or kids[k - 2].tag == "mo" and tight[k - 2] in ("(", ",", ";", "=", "[", "|", "≈"))
        if signed:                     # ( 0.30 , − 0.30 ): the sign of −0.30, not a subtraction
            out[-1] += part
        elif part:
            out.append(part)
    return " ".join(out)


def _table(table) -> list:
    """A <table> as pipe-table lines (with source lines): caption, header and rule, rows."""
    lines = []
    caption = table.find("caption")
    if caption is not None:
        text = _inline(caption)
        if text:
            lines.append((text if NUMBERED.match(text) else f"Table: {text}", caption.sourceline))
    rows = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    cells = [[(_inline(c).replace("|", "∣"), _span(c, "colspan"), _span(c, "rowspan"))
              for c in tr.xpath("./td | ./th")] for tr in rows]
    grid = _grid(cells)
    heads = 0
    while heads < len(rows) and (rows[heads].getparent().tag == "thead" or
                                 rows[heads].xpath("./td | ./th") and not rows[heads].xpath("./td")):
        heads += 1
    if heads:
        width = max(len(r) for r in grid[:heads])
        header = [" ".join(dict.fromkeys(r[k] for r in grid[:heads] if k < len(r) and r[k])) for k in range(width)]
        lines += [(_row(header), rows[0].sourceline), (_row(["---"] * width), None)]
    lines += [(_row(r), tr.sourceline) for r, tr in zip(grid[heads:], rows[heads:]) if any(r)]
    return lines


def _row(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def _inline(el) -> str:
    walk = _Walk("inline")
    walk.run(el)
    return " ".join(line for line, _ in walk.lines).strip()


def _span(cell, name: str) -> int:
    m = re.match(r"\s*(\d+)", cell.get(name) or "")
    return min(max(int(m[1]), 1), MAX_SPAN) if m else 1


def _grid(rows) -> list:
    """Rows of (text, colspan, rowspan) cells as rows of texts, a spanning cell repeated in each place.

    >>> _grid([[("a", 1, 2), ("b", 2, 1)], [("c", 1, 1), ("d", 1, 1)]])
    [['a', 'b', 'b'], ['a', 'c', 'd']]
    """
    carry: dict = {}                 # column → (text, rows still to fill)
    out = []
    for cells in rows:
        line, queue = [], list(cells)
        while queue or any(k >= len(line) for k in carry):
            col = len(line)
            if col in carry:
                text, left = carry.pop(col)
                if left > 1:
                    carry[col] = (text, left - 1)
                line.append(text)
            elif queue:
                text, across, down = queue.pop(0)
                for k in range(col, col + across):
                    if k in carry:                     # (a malformed table: two cells in one place)
                        old, left = carry.pop(k)
                        carry.update({k: (old, left - 1)} if left > 1 else {})
                    line.append(text)
                    if down > 1:
                        carry[k] = (text, down - 1)
            else:
                line.append("")
        out.append(line)
    return out
