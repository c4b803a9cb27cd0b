"""Numbers in a document's text, each with its printed precision and its context.

A tutorial prints its figures in prose, in tables (Markdown ``| … |`` rows, or
cells that lost their separators when the page was copied: ``pad0.0001.000``),
in formulas (``$z_0 = 0.3 \\times 0.5 + (-0.1) \\times 0.2 = 0.13$``) and in
code.  :func:`extract` finds every figure and records what a reader would use
to tell which quantity it is: the nearest heading, the table caption with the
row label and the column header, the symbols to its left (``q1,0 =``,
``p(你)``, ``exp(``) and the arithmetic it closes (``2.175 / 4.789 ≈ 0.454``
gives the chain ``2.175/4.789``).

Numbers that are not figures are skipped: section and table numbers (``§5``,
``5.2 计算``, ``表 5-1``), list numbers, dates, model names (``GPT-4``) and
indices written after a letter (``q0,0``, ``W_{02}``, ``p_2``).

>>> [n.text for n in extract("A1,0 = 2.175 / 4.789 ≈ 0.454")]
['2.175', '4.789', '0.454']
>>> extract("A1,0 = 2.175 / 4.789 ≈ 0.454")[2].chain
'2.175/4.789'
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from ..core.errors import LimitError
from ..core.limits import MAX_DIGITS, MAX_LINE
from .claims import parse_printed
from .read_html import html_text as html_text  # (the readers, symgpt.claims.readers: code and tests import
from .readers import read_document as read_document  # them from here)

# ---------------------------------------------------------------- one figure


@dataclass
class Number:
    """A printed figure and where it stands."""
    text: str                 # as printed ('−' read as '-'): "0.454", "-0.915", "8.5%", "10^{-3}"
    value: Fraction           # in printed units (8.5% → 17/2)
    decimals: int             # places after the point (0 for an integer)
    kind: str                 # decimal | integer | percent | power | fraction
    line: int                 # 1-based line of the document's text
    col: int                  # 0-based column in that line
    line_text: str
    heading: str = ""         # the nearest heading above
    section: int = 0          # the line its section's heading stands on (0: above the first heading)
    over: str = ""            # the headings of the sections its own lies in, joined by ' › ' ('7. One AdamW step')
    before: str = ""          # the line's text to the left of the figure (after the last figure)
    after: str = ""           # to the right, up to the next figure
    table: str = ""           # caption of the table it sits in
    row: str = ""             # the row's label (its first cell, or the text before the first figure)
    column: str = ""          # the column header (Markdown/HTML tables)
    corner: str = ""          # the corner of its table, where a pipe table's row holds a second one beside
    cell: int = -1            # position among the row's figures
    width: int = 0            # how many figures the row has
    position: int | None = None   # the input position the text is about (a line 't=1:' above it)
    subject: str = ""         # what another cell of its table row defines: '| x = E[1] | [0.3, -0.1] |' → x
    prose: str = ""           # the prose just before it (what a table is introduced as)
    about: str = ""           # the last matrix entry (W_{02}) the section's prose named before it
    chain: str | None = None  # the arithmetic it is the result of, operands as printed: "2.175/4.789"
    relation: str | None = None   # "=" or "≈": how the chain is joined to the figure
    operands: list = field(default_factory=list)  # indices (in the document) of the chain's figures
    array: str = ""           # the name of the matrix or vector literal it is an entry of: 'E', 'p', '∂l/∂z'
    pos: tuple = ()           # its place in that literal: (row, column) or (k,)
    index: int = 0            # position in the document
    source: int | None = None   # the file's own line it stands on (an HTML page's source line), once known
    printed: str = ""         # as the document writes it, where that differs from text: "3,38%" (a decimal comma)

    @property
    def where(self) -> str:
        """A short description of the place, for a claims file's ``where``.

        >>> extract("## §1 Loss\\n\\nLoss = 2.465")[0].where
        '§1 Loss: line 3 「Loss = 2.465」'
        """
        parts = [self.heading] if self.heading else []
        if self.table:
            label = f" row {self.row.strip()}" if self.row.strip() else ""
            head = f" column {self.column.strip()}" if self.column.strip() else ""
            parts.append(f"{self.table}{label}{head}")
        text = self.line_text
        a, b = max(0, self.col - 32), min(len(text), self.col + len(self.text) + 32)
        excerpt = ("…" if a else "") + text[a:b].strip() + ("…" if b < len(text) else "")
        place = f"line {self.line} 「{excerpt}」"
        return ": ".join(parts + [place]) if parts else place

    @property
    def significant(self) -> int:
        """The significant digits it prints, its power of ten aside; a zero after the point counts, and an
        integer's trailing zeros do not.

        >>> [n.significant for n in extract("0.0412 3.30% 4.822e-04 1200 0.50")]
        [3, 3, 4, 2, 2]
        """
        body = POWER_OF_TEN.sub("", self.text.strip("-+−% "))
        if re.search(r"[.,]", body):
            return len(body.replace(".", "").replace(",", "").lstrip("0"))
        return len(body.strip("0"))


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[:n - 1] + "…"


POWER_OF_TEN = re.compile(r"(?:[eE][-+−]?\d+|\s*(?:[×x·*]|\\times|\\cdot)\s*10(?:\^\{?[-+−]?\d+\}?|[⁻⁺]?[⁰-⁹]+)).*$")
"""A figure's power of ten as printed (``e-04``, ``×10⁻⁴``, ``\\times 10^{-4}``): no significant digits."""


# ---------------------------------------------------------------- what is not a figure

HEADING = re.compile(r"\s*(?:#{1,6}\s+\S.*|§\s*\d+.*|\d{1,2}(?:\.\d{1,2})+\.?\s+[^\d\s=+\-×*/&|\\].*|"
                     r"\d+\.\s+[^\d\s\-−+.,].{0,40}|[■□◆◇▶►▸▪]\s*\d{1,2}(?:[.．]\d{1,2})*[.．]?\s*[^\d\s].{0,60}$|"
                     r"【[^】]{1,30}】.{0,30}$)")
#    (a plain text's numbered marked titles: '■ 2．順伝播', '【第3節】 逆伝播'; not a list of '▶ …' items)
#                                            (a section's number: 2.3.1, not a figure: '0.7979 ile çarpınca …')
#                                            (nor a matrix's or a table's row: '0.25 & 0.50 \\', '0.25 | 0.50',
#                                             a row numbered '3.' whose first entry is negative: '3.   -0,3119 …')
BANNER = re.compile(r"\s*([-=#*~]{2,})\s*[^\W\d_][^\W\d_ ]{0,20}\s*\d{1,2}\s*\1\s*")
"""A printout's banner over a block's figures, in code output too: ``--- blok 1 ---``, ``=== Layer 2 ===``."""
LIST_ITEM = re.compile(r"\s*\d+\.\s+")
CAPTION = re.compile(r"\s*(?:\*\*)?(?:(?:表|Table|图|Figure|Tabelle|Tableau|Tabla|Tabela|Tabella|Таблица|Bảng|표|جدول|"
                     r"טבלה|ตาราง|तालिका|Tablo|Taulukko|Tabel|Tabell|Tabulka|Πίνακας|Таблиця)"
                     r"\s*\d+(?:[-.]\d+)*|"
                     r"Table:\s)")      # (a reader writes an HTML <caption> as 'Table: …')
BOLD_LINE = re.compile(r"\s*\*\*[^*]{3,80}\*\*\s*:?\s*")    # **Attention weights w[t][s]** over a table: its caption
LABEL_NUMBER = re.compile(r"(?:表|Table|图|Figure|§|Fig\.|Eq\.)\s*\d+(?:[-.]\d+)*")
DATE = re.compile(r"\d+\s*[年月日号]|\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b")   # 2024-03-05, 03/05/2024
MODEL_NAME = re.compile(r"\b[A-Z][A-Za-z]*-\d+(?:\.\d+)?")      # GPT-4, Llama-2
LATEX_INDEX = re.compile(r"(?:_|\^)\s*\{[^}]*\}|(?:_|\^)\s*\d+|\\[A-Za-z]+")
LAYER = re.compile(r"(?<=[A-Za-z\d'′])\(\d\)|⁽[⁰¹²³⁴⁵⁶⁷⁸⁹]⁾|\bdim\s*\d")
FENCE = re.compile(r"\s*```")
EXPONENT = re.compile(r"(?<![A-Za-z\\])e\^\s*\{?\s*\(?[-−+]?\d*\.\d")      # e^0.4164, e^{0.740}: exp of a figure
RUN = re.compile(r"(?:(?<=[\d.])[-−+]|(?<![\d.])[-−+]?)\d[\d.,]*%?")
FRACTION = re.compile(r"(?<![\d.(/])[1-9]\d*/[1-9]\d*(?![\d./)])")
BRACKET_INDEX = re.compile(r"(?<=[A-Za-z_\u0370-\u03ff\d'′)\]}⁾])\[[^\[\].]*\d[^\[\].]*\]")   # a name's indices
WORD_INDEX = re.compile(r"\b(?:row|column|col|dim|entry|position|layer|head|slide|cell|ligne|colonne|Zeile|Spalte|"
                        r"block|blok|bloc|bloque|blocco|Schicht|couche|capa|camada|laag|warstwa|katman|lapisan|"
                        r"step|Schritt|étape|paso|passo|krok|adım|bước|langkah|stap|steg|шаг)"
                        r"\s+\d+\b(?![.,]\d)|第\s*\d+\s*[行列维个层头步]|\[Slide\s+\d+\]", re.I)   # (not 'step 0.1')
PROMPT = re.compile(r"\b(?:In|Out)\s*\[\s*\d*\s*\]\s*:?")               # a notebook's prompts
FORMAT_SPEC = re.compile(r"(?<=[\w)\]'\"{]):(?:[^{}\s\d]?[<>^=][+\- ]?#?0?\d*[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%]?|"
                         r"[+\- ]?#?0?\d*[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%])(?=\})")
"""A format specification closing a replacement field (``{num:12.6f}``, ``{:.4f}``, ``{'p':>15}``): widths and
precisions of the code that prints, no figures (a dict's ``{"lr":0.01}`` keeps its figure).

>>> [m[0] for m in FORMAT_SPEC.finditer('f"{Jp:15.10f}{x:>8}{:.4f}" {"lr":0.01} {a: 0.5}')]
[':15.10f', ':>8', ':.4f']
"""
ERRATA = re.compile(r"\s*(?:#+\s*)?(?:ERRATA|勘误)", re.I)


def _masked(line: str) -> str:
    """The line with everything that is not a figure blanked out (same length)."""
    out = list(line)

    def blank(a, b):
        for i in range(a, b):
            out[i] = " "
    for rx in (LABEL_NUMBER, DATE, MODEL_NAME, LAYER):
        for m in rx.finditer(line):
            if rx is LAYER and re.search(r"(?<![A-Za-z])(?:pad|bos|eos|unk)$", line[:m.start()]):
                continue                   # pad(0), bos(1): a special token's id, not a layer's index
            blank(m.start(), m.end())
    for rx in (SCIENTIFIC_RUN, POWER):     # 2.23×10⁻⁴, 10^{-3}, 10⁻⁵, 1e-5: read by _powers
        for m in rx.finditer(line):
            blank(m.start(), m.end())
    for m in FRACTION.finditer(line):      # 1/3: read by _powers
        if not re.search(r"[\d.]\s*[-+×*]\s*$", line[:m.start()]):
            blank(m.start(), m.end())
    for rx in (BRACKET_INDEX, WORD_INDEX, PROMPT, FORMAT_SPEC):   # A[1,0], dx[0], W[0,鱼]; row 1, 第 0 行; In [3]:;
        #                                                         f"{num:12.6f}"
        for m in rx.finditer(line):
            blank(m.start(), m.end())
    for m in LATEX_INDEX.finditer(line):   # x_{0}, p_2, g^2; \times, \mathbf; not ℝ^{2×2}
        if not line[:m.start()].rstrip().endswith(("ℝ", "mathbb{R}")) and not EXPONENT.match(line, m.start() - 1):
            blank(m.start(), m.end())       # (e^0.4164, e^{-0.12}: an exponent that is a figure stays)
    if _is_heading(line):
        m = re.match(r"\s*(?:#+\s*)?(?:§\s*)?[\d.]+", line)
        if m:
            blank(0, m.end())
    elif LIST_ITEM.match(line):
        blank(0, LIST_ITEM.match(line).end())
    return "".join(out)


# ---------------------------------------------------------------- splitting glued cells

MAX_RUN = 80           # characters of a glued run worth cutting
PIECE = re.compile(r"(?:0|[1-9]\d{0,2})(?:\.\d+)?%?|(?:[1-9]\d{0,2})(?:,\d{3})+|[1-9]\d*")


def _punctuation(ch: str) -> bool:
    """A separating mark (``、`` ``；`` ``—`` ``!``; not the point, not a closing bracket or quote, which a PDF's
    row label may end in, ``(目标)0.0851``): what stands before a figure in prose, not the end of a figure a PDF
    glued to the next.

    >>> [_punctuation(c) for c in "、—！.)」%"]
    [True, True, True, False, False, False, False]
    """
    return ch not in ".%'" and unicodedata.category(ch) in ("Po", "Pd")


def split_run(run: str, places: int = 3) -> list:
    """A run of digits and points printed without separators, as the figures it holds.

    Each figure has at most 3 digits before the point and no leading zero.  Every cut is
    priced: a figure whose decimals differ from the cut's common number of decimals costs
    the difference, a bare integer 0.75, a second digit before the point 2; a common number
    other than ``places`` (what the line or document mostly prints) costs 1.5 more.

    >>> split_run("0.5001.800", 1), split_run("0.17117.1%"), split_run("0.1710"), split_run("10.8820.784")
    (['0.500', '1.800'], ['0.171', '17.1%'], ['0.171', '0'], ['1', '0.882', '0.784'])
    >>> split_run("001000")
    ['0', '0', '1', '0', '0', '0']
    """
    if len(run) > MAX_RUN:
        return []                             # no table cell is this long: not figures to cut
    if re.fullmatch(r"0[01]+", run):
        return list(run)                      # a one-hot row glued: 001000 is six cells
    best = None
    for target in range(1, 9):
        cut = _cut(run, target)
        if cut is None:
            continue
        cost = (cut[0] + (0 if target == places else 1.5), cut[1])
        if best is None or cost < best[0]:
            best = (cost, cut[2])
    return best[1] if best else []


def _cut(run: str, target: int):
    """(cost, figures, pieces) of the cheapest cut of ``run`` for a common number of decimals ``target``."""
    def cost(p):
        if "." not in p:
            return 0.75
        dev = abs(_places(p) - (target - 2 if p.endswith("%") else target))
        return dev + (0 if p.endswith("%") else 2 * max(0, len(p.split(".")[0]) - 1))
    best: dict = {len(run): (0, 0, [])}
    for i in range(len(run) - 1, -1, -1):
        options = []
        for j in range(i + 1, len(run) + 1):
            m = PIECE.fullmatch(run, i, j)
            if not m or j not in best or (m.group().endswith("%") and j != len(run)):
                continue
            if j < len(run) and run[j] == ".":
                continue
            c, k, rest = best[j]
            options.append((c + cost(m.group()), k + 1, [m.group()] + rest))
        if options:
            best[i] = min(options, key=lambda o: (o[0], o[1]))
    return best.get(0)


def _places(p: str) -> int:
    return len(p.rstrip("%").split(".")[1]) if "." in p else 0


# ---------------------------------------------------------------- chains

OPS = str.maketrans({"×": "*", "·": "*", "÷": "/", "−": "-", "√": "sqrt", "{": "(", "}": ")"})
CHAIN_OK = re.compile(r"[\d.\s+\-*/()^]|sqrt|exp|log|ln|sin|cos|(?<=\d)[eE](?=[-+]?\d)")


def chain_spelling(text: str) -> str:
    """Text as a chain spells it: operators as Python's, LaTeX's ``\\times``, ``\\sqrt`` and braces as symbols
    and brackets, no spaces (a figure's own text, ``2.385\\times10^{-4}``, is found so in its chain).

    >>> chain_spelling(r"0.01 \\times 2.385 \\times 10^{-4}"), chain_spelling("√(0.115 + 10⁻⁶)")
    ('0.01*2.385*10^(-4)', 'sqrt(0.115+10^(-6))')
    >>> chain_spelling(r"-0.4 - 0.01 \\times \\frac{-0.99}{\\sqrt{0.98} + 10^{-8}}")
    '-0.4-0.01*((-0.99)/(sqrt(0.98)+10^(-8)))'
    """
    s = _fractions(text) if re.search(r"\\[dt]?frac", text) else text
    s = s.replace("\\times", "×").replace("\\cdot", "·").replace("\\sqrt", "√").replace("\\ln", "ln") \
        .replace("\\log", "log").replace("\\exp", "exp")
    s = re.sub(r"\\(?:left|right|[Bb]igg?[lrm]?)(?![a-z])", "", s).replace("$", "").replace("**", "").strip()
    s = SUPERSCRIPT_POWER.sub(lambda m: "^(" + m[1].translate(SUPERSCRIPT_DIGITS) + ")", s)     # 10⁻⁶: 10^(-6)
    return s.translate(OPS).replace(" ", "")


SUPERSCRIPT_POWER = re.compile(r"(?<=\d)([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
SUPERSCRIPT_DIGITS = str.maketrans("⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹", "-+0123456789")


def _fractions(text: str) -> str:
    """LaTeX's ``\\frac{a}{b}`` (and ``\\dfrac``, ``\\tfrac``) as ``((a)/(b))``, braces nested inside kept; the
    text as it is where a fraction's braces do not close."""
    out, k = [], 0
    for m in re.finditer(r"\\[dt]?frac\s*\{", text):
        if m.start() < k:
            continue
        parts, at = [], m.end()
        for _ in range(2):
            depth, j = 1, at
            while j < len(text) and depth:
                depth += (text[j] == "{") - (text[j] == "}")
                j += 1
            if depth:
                return text
            parts.append(_fractions(text[at:j - 1]))
            at = j
            while at < len(text) and text[at] == " ":
                at += 1
            if len(parts) == 1 and (at >= len(text) or text[at] != "{"):
                return text
            at += len(parts) == 1
        out.append(text[k:m.start()] + f"(({parts[0]})/({parts[1]}))")
        k = j
    return "".join(out) + text[k:]


def _chain_text(side: str) -> str | None:
    """One side of an equation as a chain over printed numbers, or None when it holds
    more than numbers, operators and exp/ln/√ (a vector, a symbol).

    >>> _chain_text(" 0.500 × 0.3 + 1.800 × 0.5 "), _chain_text("exp(0.777)"), _chain_text("x + 1")
    ('0.500*0.3+1.800*0.5', 'exp(0.777)', None)
    >>> _chain_text(" 0.01 × 0.0694 / (√(4.822e-04) + 10^{-8}) "), _chain_text(" − ln 0.1855 ")
    ('0.01*0.0694/(sqrt(4.822e-04)+10^(-8))', '-log(0.1855)')
    >>> _chain_text("_{12} "), _chain_text("(0.3)")
    (None, None)
    """
    s = chain_spelling(side)
    s = re.sub(r"(sqrt|log|ln|exp)(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", r"\1(\2)", s)     # −ln 0.1855: ln(0.1855)
    s = re.sub(r"\bln\(", "log(", s)
    if not s or not re.search(r"\d", s) or not re.search(r"[*/+\-(]", s.lstrip("-")):
        return None
    if not re.search(r"[*/+\-^]|sqrt|log|exp", s.replace("(", "").replace(")", "").lstrip("-+")):
        return None                      # a_{1}, s_{12}: a subscript's braces, no arithmetic
    rest = CHAIN_OK.sub("", s)
    if rest or re.search(r"\d\(|\)\d|\)\(", s) or s.count("(") != s.count(")"):
        return None
    return s.lstrip("+")


# ---------------------------------------------------------------- the document

FULL_WIDTH = str.maketrans("＝（）：；／＋－，．｜\u3000\u00a0\u202f\u2009⟨⟩〈〉\u2329\u232a", "=():;/+-;.|    ()()()")
"""Full-width punctuation, bars and spaces as ASCII; angle brackets round a vector (``⟨0,4; 0,3⟩``) as parentheses."""
NATIVE = str.maketrans({**{c: str(unicodedata.decimal(chr(c))) for c in range(0x80, 0x10000)
                           if unicodedata.category(chr(c)) == "Nd"}, "٫": ".", "٪": "%", "％": "%", "﹪": "%",
                           "،": ",", "؛": ";"})
"""Digits as a script writes them (Arabic-Indic ٠٫٢٠٧٢, Persian ۰, Devanagari ०, full-width ０) as ASCII digits,
with Arabic's decimal separator ٫, percent ٪ (and the full-width ％, the small ﹪), comma ، and semicolon ؛: a
figure is read whatever its script, and reported as printed."""
SPACED_PERCENT = re.compile(r"(?<=\d) %")


BOX = str.maketrans("│┃║─━═┼╋╬├┤┌┐└┘┬┴╠╣╔╗╚╝╦╩", "|||---+++++++++++++++++++")
"""A table drawn with box characters as the grid table it is (``│ θ │ 0.001 │``, ``├───┼───┤`` as ``+---+---+``)."""


def normal_line(raw: str, comma: bool = False) -> str:
    """A line as figures are read from it, of the same length (columns keep their place): full-width
    punctuation as ASCII (＝ → =, （ → (, ， → ;), no-break spaces as spaces, ``22.5 %`` as ``22.5% ``, and
    ``3x2`` as ``3×2``, Markdown's bold and code marks around an equation's figure as spaces; in a document that
    writes decimal commas (``comma``, :func:`decimal_comma`), ``0,1400``
    as ``0.1400`` (not an index pair: ``W[0,3]``, ``(1,2)``).

    >>> normal_line("μ＝0.4333，σ²＝0.3289，22.5 %")
    'μ=0.4333;σ²=0.3289;22.5% '
    >>> normal_line("ŷ₄ = 0,1400, W[0,3] = 2,6627·10⁻⁴", comma=True)
    'ŷ₄ = 0.1400, W[0,3] = 2.6627·10⁻⁴'
    >>> normal_line("- `σ₃²` ≈ **0,0553**, `x**2`", comma=True)
    '-  σ₃²  ≈   0.0553  , `x**2`'
    >>> normal_line(" [ 0.2  0.  -0.3 -1. ]")
    ' [ 0.2  0.0 -0.3 -1.0]'
    >>> normal_line("├────┼────┤"), normal_line("│ θ  │ 0.1 │")
    ('+----+----+', '| θ  | 0.1 |')
    """
    line = re.sub(r"(?<=\d)x(?=\d)", "×", raw.translate(FULL_WIDTH).translate(NATIVE).translate(BOX))
    if "[" in line and BARE_POINT.search(line):
        line = BARE_POINT.sub(r"\1.0", line)        # NumPy's 0. and -1. (over the space after them: columns stay)
    if "\\" in line or "{,}" in line:
        line = latex_numbers(line, comma)
    if "%" in line:
        line = PERCENT_FIRST.sub(r"\1%", line)
    if comma:
        line = COMMA_DECIMAL.sub(_point, line)
    if "`" in line or "**" in line:
        line = BOLD_FIGURE.sub(lambda m: " " * len(m[0]), line)
        line = CODE_EQUATED.sub(lambda m: " " + m[1] + " ", line)
    return SPACED_PERCENT.sub(lambda m: "% ", line)


BARE_POINT = re.compile(r"(?<=[\s\[(,])([-−]?\d+)\. (?=\s*[-−\d\[\]])")
"""A whole number NumPy prints with a bare point inside an array (``[ 0.2  0.  -0.3]``): 0.0, one space taken."""
BOLD_FIGURE = re.compile(r"(?<![\w)\]*])\*\*(?=[-−+(]?\d)|(?<=[\d)%])\*\*(?![\w(*])")
"""Markdown's bold around a figure (``= **1,5372**``, ``**(0,33; 0,60)**``), not a power (``x**2``)."""
CODE_EQUATED = re.compile(r"`([^`\n]{1,80})`(?=\s*[=≈])")
"""Inline code equated to a figure (`` `μ₂ = (1,2998 + 1,7747) / 2` = 1,5372``): its text, without the marks."""


PERCENT_COLUMN = re.compile(r"(?:^|[\s,(\[])(?:in\s+|в\s+|en\s+|em\s+|%-?)?[(\[]?\s*\\?%\s*[)\]]?\s*$|"
                            r"[(\[]\s*\\?%\s*[)\]]")
"""A column header whose unit is the percent: ``p, %``, ``T = 2 (%)``, ``share in %``, ``%``, ``p (%) pada T = 2``,
LaTeX's ``(\\%)``."""
PERCENT_FIRST = re.compile(r"(?<![\w%\\])%(\d+(?:[.,]\d+)?)(?!\w|[.,]\d)")
"""A percent written before its figure, as Turkish writes it (``%58,00'ini``): moved after it (``58,00%'ini``)."""
LATEX_NUMBER = re.compile(r"\\(?:num|SI|qty)(?:\[[^\[\]{}]*\])?\{([^{}]*)\}(?:\{([^{}]*)\}|"
                          r"(\s*+(?:\\[,;:!]|~)?\s*+\\%))?|"
                          r"(?<![\d.,_{\[])(\d+)\{,\}(\d+)(\s*+(?:\\[,;:!]|~)?\s*+\\%)?|"
                          r"(?<=\d)\s*+(?:\\[,;:!]|~)?\s*+\\%")
#    (not an index: W_{0{,}2}; possessive spaces: linear on long runs)
THOUSANDS = re.compile(r"(?<![\d.,_{\[])\d{1,3}(?:\{,\}\d{3})+(?![\d{])")
"""A figure as LaTeX sets it: ``\\num{0,1163}``, ``\\SI{2.5}{\\percent}`` (siunitx), ``0{,}497`` (a decimal comma
without its space), ``34{,}38\\,\\%``."""


LATEX_PERCENT = re.compile(r"[-−+]?\d+(?:[.,]\d+)?\s*+(?:\\[,;:!]|~)?\s*+\\%")


def latex_numbers(line: str, comma: bool = True) -> str:
    """A line's LaTeX figures as plain figures with a decimal point, each padded with spaces to the length it
    had (columns keep their place).  ``{,}`` is a decimal comma, unless the document writes decimal points
    (``comma`` false) and it groups thousands (``1{,}000``); siunitx reads a comma in ``\\num`` as a decimal mark.

    >>> latex_numbers(r"$0{,}4970$ i \\num{0,1163}, $34{,}38\\,\\%$, \\SI{2.5}{\\percent}")
    '$0.4970  $ i 0.1163      , $34.38%     $, 2.5%              '
    >>> latex_numbers(r"με \\num{16,99}\\,\\%,")
    'με 16.99%         ,'
    >>> latex_numbers(r"$1{,}000$ tokens, $0{,}25$", comma=False)
    '$1,000  $ tokens, $0.25  $'
    """
    def plain(m) -> str:
        if m[1] is not None:              # \num{…}, \SI{…}{unit}, \num{…}\,\%: its figure, a percent unit as %
            unit = "%" if m[2] is not None and re.fullmatch(r"\s*(?:\\percent|\\%|%)\s*", m[2]) or m[3] else ""
            text = re.sub(r"(?<=\d)(?:\{,\}|,)(?=\d)", ".", m[1].strip()) + unit
        elif m[4] is not None:
            text = f"{m[4]}.{m[5]}" + ("%" if m[6] else "")
        else:
            text = "%"
        return text + " " * (len(m[0]) - len(text))
    line = re.sub(r"(?<=[_{\[])(\d+)\{,\}(\d+)", lambda m: f"{m[1]},{m[2]}  ", line)    # W_{0{,}2}: an index pair
    if not comma:                         # 1{,}000{,}000 in a text with decimal points: groups of thousands
        line = THOUSANDS.sub(lambda m: m[0].replace("{,}", ",") + "  " * m[0].count("{,}"), line)
    return LATEX_NUMBER.sub(plain, line)


POWER_TAIL = re.compile(r"\s*(?:\\cdot|\\times|×|·)\s*10\s*\^\s*\{?\s*[-−+]?\d+\s*\}?")
"""A mantissa's power of ten after it, as LaTeX sets it (`` \\cdot 10^{-12}``)."""


def shown(printed: str) -> str:
    """A LaTeX figure as a math renderer shows it (KaTeX or MathJax in a Markdown page, a notebook or a web
    page): ``{,}`` as a comma, ``\\num{…}`` as its figure, ``\\,`` as a space, ``\\%`` as %.  A figure
    written without LaTeX is returned as it is.

    >>> [shown(s) for s in (r"-0{,}4665", r"\\num{0,1163}", r"34{,}38\\,\\%", r"\\SI{2.5}{\\percent}", "0,5")]
    ['-0,4665', '0,1163', '34,38 %', '2.5 %', '0,5']
    """
    if "\\" not in printed and "{" not in printed:
        return printed
    s = re.sub(r"\\(?:num|SI|qty)(?:\[[^\[\]{}]*\])?\{([^{}]*)\}(\{\s*(?:\\percent|\\%|%)\s*\})?",
               lambda m: m[1].strip() + (" %" if m[2] else ""), printed)
    s = s.replace("{,}", ",").replace("{.}", ".")
    return re.sub(r"\\[,;:!]|~", " ", s).replace("\\%", "%")


COMMA_DECIMAL = re.compile(r"(?<![\d.,])(\d+),(\d+)(?!\d|,\d|\.\d)")
COMMA_EVIDENCE = re.compile(r"(?<![\d.,])\d+,\d+\s*(?:%|[·×]\s*10)|(?<![\d.,\w\[(])0,\d{2,}(?![\d,])|"
                            r"(?<![\d.,])\d+,\d{3,}\s*;\s*[-−]?\d+,\d{3,}(?![\d,])")
#                            (… or entries set apart by semicolons: [1,5739; −1,3268; …], the comma then a decimal's)


def decimal_comma(text: str) -> bool:
    """Whether a document writes decimal commas (``3,38%``, ``2,6627·10⁻⁴``, ``≈ 0,1667``): a percent or a power
    of ten after one, or three figures ``0,dd…``.

    >>> decimal_comma("p = 0,1400 и 3,38%"), decimal_comma("W[0,1] = 0.25, (1,2)"), decimal_comma("[1,5739; −1,3268]")
    (True, False, True)
    """
    found = COMMA_EVIDENCE.findall(PERCENT_FIRST.sub(r"\1%", text.replace("{,}", ",")))   # (0{,}497, %29,87 too)
    return any("%" in f or "10" in f[-2:] or ";" in f for f in found) or len(found) >= 3


def _point(m) -> str:
    """A decimal comma as a point, unless the pair is an index (``[0,3]``, ``_{1,4}``, ``(1,2)``)."""
    before, after = m.string[m.start() - 1:m.start()], m.string[m.end():m.end() + 1]
    if len(m[1]) <= 2 and len(m[2]) <= 2 and (before in "[{(_" and before or before.isalpha()) and after in "]})":
        return m[0]
    return f"{m[1]}.{m[2]}"


class Figures(list):
    """The figures of a text, in order, and the headings it was read under: ``headings`` lists (line, level,
    section number) of every line taken as a title (:func:`heading_level`)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.headings: list = []


def heading_level(line: str) -> tuple:
    """A title's depth and its section number: its ``#``s, else its number's parts (5.2 → 2, '■ 2.1' → 2), else 1.

    >>> [heading_level(x) for x in ("## 2. AdamW", "### 2.1 Moments", "2.1 一歩目", "■ 2．AdamW", "# Title")]
    [(2, '2'), (3, '2.1'), (2, '2.1'), (1, '2'), (1, '')]
    """
    number = re.match(r"\s*(?:#+\s*)?[§■□◆◇▶►▸▪]?\s*(\d{1,2}(?:[.．]\d{1,2})*)(?![\d,])", line)
    parts = re.split(r"[.．]", number[1]) if number else []
    marks = re.match(r"\s*(#+)\s", line)
    return (len(marks[1]) if marks else len(parts) or 1), ".".join(parts)


def extract(text: str) -> list:
    """Every figure of a document's text, in order, with its context.

    >>> ns = extract("表 10-1 · 分布\\nToken\\tlogit\\tp\\npad\\t0.000\\t0.171\\n")
    >>> [(n.text, n.table, n.row, n.column) for n in ns]
    [('0.000', '表 10-1 · 分布', 'pad', 'logit'), ('0.171', '表 10-1 · 分布', 'pad', 'p')]
    """
    lines = re.split(r"\r\n|\r|\n", text)   # (not splitlines: a form feed or U+2028 is no line an editor counts)
    long = next((k for k, ln in enumerate(lines, 1) if len(ln) > MAX_LINE), None)
    if long is not None:
        raise LimitError(f"line {long} has {len(lines[long - 1]):,} characters, more than the limit of {MAX_LINE:,} "
                         f"(reading a line costs time growing with its length squared; split it)")
    sections = {m[1] for m in (re.match(r"\s*(?:#+\s*)?§?\s*(\d+(?:\.\d+)+)\s+\S", ln) for ln in lines)
                if m and _is_heading(m.string)}
    out = Figures()
    heading, table, header, in_code, errata, glued_header = "", "", [], False, False, False
    outer = ""                 # the last heading that is no printout's banner
    enclosing: list = []       # (level, heading) of the sections the current one lies in, outermost first
    over = ""
    stacked = False
    section = 0
    layout: list = []          # a PDF table's header cells as (start, end, text) columns of the line
    places: Counter = Counter()
    label_rows = -1            # rows read so far of a matrix printed under its name (-1: none)
    position = None            # the input position the last 't=1:' line spoke of
    prose = ""                 # the last lines of prose before the figure's line (a table's introduction)
    last: tuple = (0, "", [])  # the previous line's number, text and figures (an equation continued below it)
    figured = None             # … and the last line with figures, while at most one short line follows it
    about = ""                 # the last matrix entry the section's prose named (对 W_{02} …)
    comma = decimal_comma(text)
    for no, raw in enumerate(lines, 1):
        line = normal_line(raw, comma)
        if FENCE.match(line):
            in_code = not in_code
            continue
        if not line.strip():
            table, header = ("", []) if not _table_like(lines, no) else (table, header)
            continue
        if ERRATA.match(line) and len(line) < 60 and not re.search(r"\S\s{3,}\d+\s*$", line):
            errata = True                 # (not the contents' line 勘误（ERRATA）      15 of a PDF)
        if (_is_heading(line) or _underlined(line, lines[no] if no < len(lines) else "") and
                (no < 2 or not lines[no - 2].strip())) and \
                len(line.strip()) < 80 and not in_code and not _cells(line) or BANNER.fullmatch(line):
            banner = BANNER.fullmatch(line) is not None
            outer = outer if banner else _heading(line)     # (a banner's section stays within its heading's)
            heading = f"{outer} {_heading(line)}".strip() if banner else outer
            table, header, position, about = "", [], None, ""
            if not banner:
                section = no
                out.headings.append((no, *heading_level(line)))
                level = heading_level(line)[0]
                while enclosing and enclosing[-1][0] >= level:
                    enclosing.pop()
                over = " › ".join(h for _, h in enclosing)
                enclosing.append((level, outer))
            if re.match(r"\s*#+\s", line) and not ERRATA.match(line) and not re.search(r"\S {3,}\S", line):
                errata = False                # (not '# 原文位置    量 …', the header of a PDF's errata table)
            if not _has_figure(line) or errata:
                continue
            found = _figures(line, no, None, [], places.most_common(1)[0][0] if places else 3)
            for n in found:                # '4.2 代入 d=2 的具体数值', '3. 分词：[2, 3]': figures in a heading
                n.heading, n.section, n.index, n.over = heading, section, len(out), over
                out.append(n)
            _link_chains(found)
            continue
        caption = bool(CAPTION.match(line)) or bool(BOLD_LINE.fullmatch(raw.rstrip()) and _cells(line) is None
                                                     and _table_like(lines, no))
        if caption:
            table, header, glued_header = line.strip().strip("*").strip(), [], True
        cells = _cells(line)
        if glued_header and GRID_RULE.fullmatch(line):
            continue                           # a grid table's rule under its caption: the header row follows
        if glued_header and not caption and cells is None and "\t" not in line:
            glued_header = False
            if len(line) < 60 and not re.search(r"\d\.\d", line) and len(_layout(line)) < 2:
                header = [line.strip()]        # its figures (ids: 我(2)) are read below, without a header
        elif not caption:
            glued_header = False
        cells = _cells(line)
        spans = _layout(line) if table and cells is None and "\t" not in line and not caption else []
        if spans and not header and len(spans) > 2 and \
                not any(_has_figure(re.sub(r"\(\d+\)", "", t)) for *_, t in spans[1:]):
            header, layout = [t for *_, t in spans], spans     # a PDF table's header: cells by their columns
            continue
        if cells is not None and set("".join(cells)) <= set("-: "):
            continue                                   # | ---: | :--- |
        if cells is not None and (_ruled(lines, no) or not header and not any(_has_figure(c) for c in cells)):
            header, stacked = cells, False    # (a row over the rule | --- | is the header, 's = 0 (the)' and all,
            continue                    # and a new table's after a blank line: not the last table's columns)
        if cells is not None and header and not any(re.search(r"\d[.,]\d", c) for c in cells) and \
                any(c.strip() for c in cells[1:]):
            stacked = True              # a second row of labels under the header: its spans are not columns
        if cells is None and "\t" in line and not _has_figure(line) and (table or not header):
            header = line.split("\t")             # a tab-separated table's header, with or without a caption
            continue
        if errata:
            continue
        if cells is None and len(line.strip()) <= 24 and \
                re.fullmatch(r"\s*[A-Za-z][A-Za-z0-9_{}^]*(?:\s*∈\s*\S+)?\s*", line):
            table, header = line.strip(), []        # a matrix's name on its own line: W_Q, b_1 ∈ ℝ⁴
            label_rows = -2                          # its rows follow (-2: this line itself, its shape)
            if not _has_figure(line) and not re.search(r"ℝ[⁰¹²³⁴⁵⁶⁷⁸⁹]", line):
                label_rows = 0
                continue
        local = Counter(_places(p) for p in re.findall(r"(?<![\w.])\d+\.\d+(?![\d.])", _masked(line)))
        row_places = max(local, key=lambda k: (local[k], places[k])) if local else \
            places.most_common(1)[0][0] if places else 3
        found = _figures(line, no, cells, header if (cells is not None or "\t" in line) else [], row_places,
                         glued_row=bool(table and cells is None and "\t" not in line), spans=not stacked)
        places.update(_places(n.text) for n in found if "." in n.text and n.kind == "decimal" and len(n.text) < 8
                      and not re.match(r"[\d.]", line[n.col + len(n.text):n.col + len(n.text) + 1]))
        if header and table and cells is None and "\t" not in line and header == [t for *_, t in layout]:
            row = _layout(line)
            for n in found:                            # a PDF table: the header cell over the figure
                n.column = _header_over(n, row, layout)
        elif header and table and cells is None and "\t" not in line:
            for n in found:
                n.column = header[0]
        found = [n for n in found if not _cross_reference(n, line, sections, comma and raw)]
        m = re.match(r"\s*(?:位置\s*)?t\s*=\s*(\d)\b|\s*第\s*(\d)\s*个位置|\s*位置\s*(?:pos\s*=\s*)?(\d)\s*[:：]", line)
        if m and not cells:
            position = int(next(g for g in m.groups() if g is not None))
        for n in found:
            n.position = position
        label = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_{}^]*)(?:\s*∈\s*\S+)?\s*", table)
        if label and label_rows >= 0 and cells is None and found and not re.search(r"[=≈×:：]", line):
            name = label[1]                          # its rows follow: 0.30.4 / 0.50.2
            for n in found:
                if not n.array:
                    n.array, n.pos = name, (label_rows, n.cell) if "ℝ" not in table or "×" in table else (n.cell,)
            label_rows += 1
        elif label_rows == -2:
            label_rows = 0
        elif cells is None and found:
            label_rows = -1                          # prose after the matrix: its rows are over
        if cells is None and CONTINUATION.match(line) and (last[0] == no - 1 or
                                                           last[0] == no - 2 and not lines[no - 2].strip()):
            #     (a PDF's lines set apart by an empty one: the sum's second line under its first)
            _continued(*(figured[1:] if not last[2] and figured is not None and figured[0] == no - 2 else last[1:]),
                       line, found)
            #     (over a PDF's fraction's denominator alone on the line between: ∂L / ∂h₁)
        for n in found:
            n.heading, n.section, n.table = heading, section, table if (table or cells is not None) else ""
            n.over = over
            n.prose, n.about = prose, about
            if n.kind == "decimal" and PERCENT_COLUMN.search(n.column or ""):   # | $p_j$, % |: its cells are in %
                n.printed = n.printed or raw[n.col:n.col + len(n.text)]
                n.kind, n.text = "percent", n.text + "%"
            n.index = len(out)
            out.append(n)
        _link_chains(out[len(out) - len(found):])
        if found or len(line.split()) > 2 or "=" in line or figured is not None and figured[0] < no - 1:
            figured = (no, line, found) if found else None   # the last line with figures, up to one short line back
        last = (no, line, found)
        if cells is None and not table and not re.search(r"\d\.\d{2}", line):
            prose = _clip((prose + " " + line.strip())[-160:], 160)
        if cells is None and "\t" not in line and not table:
            about = ([m[0] for m in re.finditer(r"(?<![A-Za-z\\])[A-Z]_\{?\d\d\}?(?!\d)", line)] or [about])[-1]
    for n in out:              # a LaTeX figure's own text (0{,}497, \num{0,1163}, 34{,}38\,\%): check shows it as set
        if n.kind == "percent" and lines[n.line - 1][n.col:n.col + 1] == "%":
            n.printed = lines[n.line - 1][n.col:n.col + len(n.text)]                   # %58,00
            continue
        sign = len(n.text) - len(n.text.lstrip("-−+"))
        raw = lines[n.line - 1]
        for at in (n.col, n.col + sign):                   # \num{-0,14} and -0{,}14
            m = LATEX_NUMBER.match(raw, at)
            if m and latex_numbers(m[0], comma).rstrip() == n.line_text[at:at + len(m[0])].rstrip():
                tail = POWER_TAIL.match(raw, m.end()) if POWER_TAIL.search(n.text) else None
                n.printed = raw[n.col:at] + m[0] + (tail[0] if tail else "")    # (-3{,}8623 \cdot 10^{-12}: all)
                break
        spaced = LATEX_PERCENT.match(raw, n.col) if n.kind == "percent" and not n.printed else None
        if spaced and spaced.end() > n.col + len(n.text):                 # 12.5\,\%
            n.printed = spaced[0]
    for n in out:              # ٠٫٢٠٧٢ is read as 0.2072 and reported as printed
        native = lines[n.line - 1][n.col:n.col + len(n.text)]
        if not n.printed and native.translate(NATIVE) != native:
            n.printed = native
    if comma:                  # a decimal comma is read as a point and reported as printed
        for n in out:
            if n.printed:
                continue
            same = lines[n.line - 1][n.col:n.col + len(n.text)]          # '2,6627·10⁻⁴' as long as its text
            spaced = re.match(r"[-−+]?\d+(?:[,.]\d+)*(?:\s*(?:[·×]|\\cdot|\\times)\s*10\s*(?:\^\{?[-−+]?\d+\}?|"
                              r"[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
                              r"(?: ?%)?", lines[n.line - 1][n.col:])   # '5,247 %', '−3,1623 · 10^{−2}' (its
            for raw in (spaced[0] if spaced else "", same):              # normal form moved the space)
                if "," in raw and raw.replace(",", ".").replace(" %", "%") == n.line_text[n.col:n.col + len(raw)]\
                        .replace(" %", "%").rstrip():
                    n.printed = raw
                    break
    return out


def _table_like(lines, no) -> bool:
    """After a caption, the table itself follows a blank line: is the next non-blank line a table row?
    (A Markdown row, or an indented row of columns set apart by runs of spaces, as ``pdftotext -layout``
    prints a PDF's table.)"""
    for line in lines[no:no + 3]:
        if line.strip():
            return _cells(line) is not None or bool(re.match(r" {4,}\S", line) and re.search(r"\S {3,}\S", line))
    return False


def _cross_reference(n, line: str, sections: set, raw: str = "") -> bool:
    """A section number cited in prose ('见 2.2 节', '2.2 的账单', and in a text of decimal commas any '(3.3, 3.6)'
    its headings number, written with a point: ``raw``, its line as written, in such a text): not a figure."""
    rest, before = line[n.col + len(n.text):].lstrip(), line[:n.col].rstrip()
    if raw and n.text in sections and "." in raw[n.col:n.col + len(n.text)]:
        return True
    if re.match(r"\d+(\.\d+)*$", n.text) and (re.match(r"(?:小节|节|章)", rest) or
                                               re.search(r"(?:section|sec\.|§)$", before, re.I)):
        return True
    if n.text not in sections:
        return False
    return bool(re.match(r"[\u4e00-\u9fff]|section|§", rest, re.I)) and not re.search(r"[=≈]\s*$", before)


def _is_heading(line: str) -> bool:
    """'§5 …', '## …', '5.2 计算 Q、K、V', '4.2 代入 d=2 …'; '1. 前向传播' only with no equation in it."""
    if not HEADING.match(line) or len(re.findall(r"\d+(?:\.\d+)?", line)) > 4:
        return False                        # '§5 自注意力H⁽⁰⁾Q·Kᵀ/√d …2×2(1.000, 0.917)': a table row
    if re.match(r"\s*[■□◆◇▶►▸▪【]", line) and re.search(r"[=≈]", re.sub(r"[(（][^()（）]*[)）]", "", line)):
        return False                        # '■ p = 0.5': a marked equation ('■ SGD（η＝0.5）' is a title)
    return not (re.match(r"\s*\d+\.\s", line) and re.search(r"[=≈×]", line))


NUMBERED_TITLE = re.compile(r"(?:[IVXLC]{1,5}|\d{1,2}|[A-Z])[.)]\s+[^\W\d_]|[一二三四五六七八九十]{1,3}[、.]\s*\S")
"""A title numbered in Roman or Arabic numerals or a letter (``V. UN PAS DE SGD``): a rule of the page's width
under it is still its underline."""
UNDERLINE = re.compile(r"\s*([=\-~.*_#^+:])\1{3,}\s*")


def _underlined(line: str, below: str) -> bool:
    """A title underlined in plain text (``٨-٣ بعد خطوة AdamW`` over ``.........``, ``Results`` over ``=======``):
    no figure's line, at least half as long as its underline; the caller asks for a blank line above it (a
    banner's lines, ruled above and below, are a title page's or a slide's).

    >>> _underlined("Step 2", "------"), _underlined("x = 0.5", "-------"), _underlined("a", "")
    (True, False, False)
    >>> _underlined("Schritt 3: Temperatur T = 2", "==========="), _underlined("loss L = 1.25", "------")
    (True, False)
    >>> _underlined("V. UN PAS DE SGD (η = 0,1)", "-" * 74), _underlined("a short line", "-" * 74)
    (True, False)
    >>> _underlined("12. Top-k, k = 2", "-" * 16), _underlined("六、第 2 步（t = 2）", "-" * 19)
    (True, True)
    """
    title = line.strip()
    equation = re.search(r"[=≈]", title) and len(re.findall(r"[^\W\d_]{2,}", re.split(r"[=≈]", title)[0])) < 2 \
        and not NUMBERED_TITLE.match(title)
    #          (words before its '=' make a title: 'Paso 9: muestreo con temperatura T = 0,7'; so does a number:
    #          '12. Top-k, k = 2')
    return bool(title) and UNDERLINE.fullmatch(below) is not None and UNDERLINE.fullmatch(line) is None and \
        (len(title) >= len(below.strip()) // 2 or NUMBERED_TITLE.match(title) is not None) and not equation and \
        not re.search(r"\||\S\s{2,}\S|\t", title) and \
        not CAPTION.match(line)                  # (a table's caption over its rule stays its caption)
    #                                          (not a text table's header 'token   p' over its rule)


def _heading(line: str) -> str:
    s = re.sub(r"^\s*#+\s*", "", line).strip()
    return _clip(re.sub(r"\s+", " ", s), 40)


def _layout(line: str) -> list:
    """The cells of a table row as ``pdftotext -layout`` prints it, an indented line whose columns are
    set apart by two spaces or more: [(start, end, text)], or [] for a line of prose.

    >>> _layout("        Parameter     g (1)      G")
    [(8, 17, 'Parameter'), (22, 27, 'g (1)'), (33, 34, 'G')]
    """
    if not re.match(r" {4,}\S", line) or not re.search(r"\S {2,}\S", line):
        return []
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def _header_over(n, row: list, layout: list) -> str:
    """The header cell of a PDF table's figure: by order when the row has one cell per header cell or one more
    (its label), as ``pdftotext -layout`` keeps the order but not the columns (a header's ``ŷ_{j}`` is wider
    than its glyphs); else the header cell nearest above it.

    >>> head, row = _layout("      j   z_{j}      e^{zj}      p_{j}"), "      1   0.08   1.0833  0.2056"
    >>> [_header_over(n, _layout(row), head) for n in extract(row)]
    ['j', 'z_{j}', 'e^{zj}', 'p_{j}']
    """
    k = next((i for i, (a, b, _) in enumerate(row) if a <= n.col < b), None)
    if k is not None and len(row) in (len(layout), len(layout) + 1):
        return layout[k - (len(row) - len(layout))][2] if k >= len(row) - len(layout) else ""
    return min(layout, key=lambda h: max(0, h[0] - n.col - len(n.text), n.col - h[1]))[2]


def pane_gap(header: list, cells: list) -> int | None:
    """Where a pipe table's row holds a second table beside the first, set apart by an empty cell under an empty
    header (``| s | s=0 |   | att | s=0 |`` over ``| t=2 | 0.2660 |   | t=2 | 0.4969 |``): that cell's place.

    >>> pane_gap(["s", "s=0", "", "att", "s=0"], ["t=2", "0.2660", "", "t=2", "0.4969"])
    2
    >>> pane_gap(["s", "s=0", "", "s=1"], ["t=2", "0.2660", "", "0.5"]) is None
    True
    """
    for j in range(2, min(len(header), len(cells)) - 2):
        if not header[j].strip() and not cells[j].strip() and header[j + 1].strip() and \
                re.search(r"[^\W\d_]", cells[j + 1]) and cells[j - 1].strip() and \
                re.search(r"\d", " ".join(cells[j + 2:])):
            return j
    return None


def _ruled(lines: list, no: int) -> bool:
    """Whether line ``no`` (from 1) is a pipe table's first row with the rule ``| --- |`` under it, or a grid
    table's first row between its top border and a rule (``┌──┐``, ``│ Step 2 │``, ``├──┤``): its header.

    >>> _ruled(["| s = 0 | s = 1 |", "|---|---|", "| 0.5 | 0.5 |"], 1)
    True
    >>> rows = ["|---|---|", "| s | t = 1 |", "|---|---|", "| a | 0.5 |", "| b | 0.2 |", "|---|---|"]
    >>> _ruled(rows, 2), _ruled(rows, 5)              # the header under a top border; the last row over the bottom
    (True, False)
    >>> _ruled(["| | head 1 | | head 2 |", "| t | s=1 | s=2 | s=1 |", "|---|---|---|---|", "| 1 | 0.5 | 0.5 | 1 |"], 2)
    True
    >>> _ruled(["┌────────┬───┐", "│ Step 2 │ θ │", "├────────┼───┤", "│ g      │ 1 │"], 2)
    True
    >>> _ruled(["│ Step 2 │ θ │", "├────────┼───┤", "│ g      │ 1 │", "├────────┼───┤"], 3)
    False
    >>> _ruled(["┌──────┬──────┐", "│ 0.51 │ 0.32 │", "├──────┼──────┤", "│ 0.13 │ 0.24 │"], 2)
    False
    """
    if no >= len(lines):
        return False
    below = _cells(normal_line(lines[no]))      # (a rule has no figure: the decimal mark is no matter)
    if below is not None and bool(below) and set("".join(below)) <= set("-: ") and "-" in "".join(below):
        if no + 1 < len(lines) and _cells(normal_line(lines[no + 1])) is not None:
            return True                         # a row follows the rule: it is the header's
        k = no - 2
        while k >= 0 and (above := _cells(normal_line(lines[k]))) is not None and above and \
                set("".join(above)) <= set("-: "):
            k -= 1                              # (over the table's top border)
        return k < 0 or _cells(normal_line(lines[k])) is None   # the first row, not the last over a bottom border
    rule = [no - 2, no] if no >= 2 else []
    cells = _cells(normal_line(lines[no - 1])) or []
    labelled = any(c.strip() and not re.fullmatch(r"\s*[-−+]?\d+(?:[.,]\d+)?\s*%?\s*", c) for c in cells)
    return bool(rule) and labelled and all(GRID_RULE.fullmatch(normal_line(lines[k])) for k in rule) and \
        (no == 2 or _cells(normal_line(lines[no - 3])) is None)     # (a row of figures alone is no header)


GRID_RULE = re.compile(r"\s*\+[-=+:]+\+(?:\s+\+[-=+:]+\+)*\s*")
"""A grid table's rule or border: ``+---+---+`` (``├───┼───┤`` once its box characters are read), or two
tables' side by side (``+---+---+   +---+---+``)."""


def _cells(line: str):
    s = line.strip()
    if s.startswith("|") and s.endswith("|") and s.count("|") >= 3:
        return [c.strip() for c in s[1:-1].split("|")]
    return None


def _numpy_entry(masked: str, start: int) -> bool:
    """Whether a sign at ``start`` begins an entry of a bracketed row that sets its entries apart by spaces, as
    NumPy prints them (``[ 0.5898 -1.4744  1.1795]``): a space before it, a digit right after it, inside ``[``.

    >>> _numpy_entry("h = [ 0.5898 -1.4744]", 13), _numpy_entry("x = 0.5898 - 1.4744", 11)
    (True, False)
    """
    before = masked[:start]
    return before[-1:].isspace() and masked[start + 1:start + 2].isdigit() and before.count("[") > before.count("]")


def _has_figure(s: str) -> bool:
    return bool(re.search(r"(?<![\w.])\d", _masked(s)))


def _figures(line: str, no: int, cells, header, places: int = 3, glued_row: bool = False,
             spans: bool = True) -> list:
    """The figures of one line (cells: its Markdown cells, header: the table's header cells;
    places: the decimals most figures have so far, to cut glued cells)."""
    masked = _masked(line)
    arithmetic = bool(re.search(r"\s[=≈]\s|[×*/÷]|\d\s+[-+−]\s+[\d(]|\\times", line))
    found = []
    for m in RUN.finditer(masked):
        start, run = m.start(), m.group()
        prev = masked[:start].rstrip()[-1:] if masked[:start].strip() else ""
        tight = line[start - 1] if start else ""
        sign = run[0] if run[0] in "+-−" else ""
        body = run[len(sign):]
        lone = tight.isspace() and not re.match(r"\s*(?:[=≈×*/·÷+]|[-−]\s)", masked[m.end():])
        #      ('0,3046 -0,7228  0,0789' in a row under 'dL/dz': a sign set against its figure, in no arithmetic)
        if sign and arithmetic and prev and re.match(r"[\d)\]]", prev) and not re.search(r"\s{2}$", masked[:start]) \
                and not _numpy_entry(masked, start) and not lone:
            sign = ""                                 # 1.810-2.200: a subtraction (not 'i = 3   −0.0411': a column)
            start += 1
            tight = line[start - 1]                   # the operator: no glue (1-0.999 is not 0.9 and 99)
        elif sign == "-" and "\u05d0" <= tight <= "\u05ea":
            sign = ""                                 # מ-17.72%, ב-0.5045: a Hebrew prefix's hyphen (maqaf), no minus
            start += 1
            tight = ""
        if tight and (tight.isalpha() and tight.isascii() or tight in "_'′^") and "." not in body and \
                not (glued_row and m.end() == len(masked.rstrip()) and re.search(r"[A-Za-z]{3,}$", line[:start])):
            continue                                  # q0,0, h1, x_0, h''0: an index (not 'Query4' ending a row)
        if tight == "." or body.endswith(","):
            body = body.rstrip(",")
        if body.endswith(".") and body[:-1]:
            body = body[:-1]                          # 'the loss is 1.0515.': the sentence's full stop
        pieces = [body] if "," not in body or re.fullmatch(r"[1-9]\d{0,2}(,\d{3})+", body) else \
            [p for p in body.split(",") if p]
        if tight and tight.isalpha() and tight.isascii() and "," in body and "." not in body:
            continue
        expanded = []
        for p in pieces:
            glued = tight and not tight.isspace() and not sign and \
                (tight not in "([{=,:：（$+-−×*/÷√≈~<>;|" and not _punctuation(tight) or
                 tight == "=" and re.search(r"[A-Za-z]=$", line[:start]) and not p.startswith("0.")) and \
                not line[:start].endswith("{=}") and \
                not re.search(r"[^\W\d_]['’]$", line[:start])   # \beta_2{=}0.999: no glue; nor an elision, l’1,68%
            #                                     (t=10.882 may be t=1 glued to 0.882; lr=0.01 is one figure)
            expanded += [p] if p.count(".") <= 1 and PIECE.fullmatch(p) and not (glued and "." in p and
                                                                                  split_run(p, places) != [p]) \
                else split_run(p, places)
        pos = start + len(sign)
        for i, p in enumerate(expanded):
            at = line.find(p, pos) if line.find(p, pos) >= 0 else pos
            text = (sign if i == 0 else "") + p
            pos = at + len(p)
            at -= len(text) - len(p)                  # a signed figure starts at its sign
            n = _number(text.replace("−", "-").replace(",", "") if re.search(r"\d,\d{3}", text) else text,
                        no, at, line)
            if n:
                found.append(n)
    found += _powers(line, no)
    found.sort(key=lambda n: n.col)
    prev_end = 0
    for i, n in enumerate(found):
        n.before = line[prev_end:n.col]
        n.after = line[n.col + len(n.text):found[i + 1].col if i + 1 < len(found) else len(line)]
        prev_end = n.col + len(n.text)
        n.cell, n.width = i, len(found)
    if found and cells is None and "\t" not in line and \
            re.fullmatch(r"\s*(?:[^\s\d=]{1,6}\s+)?[A-Za-z]\s*=\s*", line[:found[0].col]) and \
            len(found) > 1 and (found[0].kind == "integer" or found[0].kind == "decimal" and
                                re.fullmatch(r"|\s*[:：]\D*", line[found[0].col + len(found[0].text):found[1].col])) \
            and not re.search(r"[=≈×+]", line[found[0].col + len(found[0].text):]):
        #   (a decimal glued to the next, T = 0.50.396, or T = 2.0: before a row; not x = 0.346   0.324, a row)
        found = found[1:]                             # a glued row label: t=1 in 't=10.8820.784', 位置 t=0(我)001000
        for i, n in enumerate(found):
            n.cell, n.width = i, len(found)
    first = found[0].col if found else 0
    row = cells[0] if cells else line[:first]
    for n in found:
        n.row = re.sub(r"\s+", " ", row).strip()
        if cells is not None:
            k = _cell_of(line, n.col)
            lead = min((_cell_of(line, f.col) for f in found if f.kind != "integer"), default=0)
            n.column = header[spanned(header, k) if lead == 1 and spans else k] if k < len(header) else ""
            n.row = cells[0] if k > 0 else ""
            gap = pane_gap(header, cells)
            if gap is not None and k > gap + 1:      # | t=2 | 0.2660 |   | t=2 | 0.4969 |: the second table's
                n.row, n.corner = cells[gap + 1], header[gap + 1]
        elif header and "\t" in line:
            k = line[:n.col].count("\t")
            n.column = header[k] if k < len(header) else ""
            n.row = line.split("\t")[0] if k > 0 else ""
        row_cells = cells if cells is not None else line.split("\t") if "\t" in line else []
        k = _cell_of(line, n.col) if cells is not None else line[:n.col].count("\t")
        subjects = [m[1] for i, c in enumerate(row_cells) if i != k
                    for m in [re.match(r"\s*\$?\s*([A-Za-z][A-Za-z_]*)\s*=(?!=)(?!\s*\d+\s*\$?\s*$)", c)] if m]
        n.subject = subjects[0] if len(subjects) == 1 else ""   # '① 查行 | x = E[1] | [0.3, -0.1]': x
        #                                                         (not '| k = 1 | 1.063 |': a row's index)
    _chains(line, found)
    _component_chains(line, found)
    _arrays(line, found)
    return found


def _line_places(masked: str) -> int:
    """The most common number of decimals among the line's unglued figures (3 when none)."""
    c = Counter(_places(p) for p in re.findall(r"\d+\.\d+", masked) if p.count(".") == 1 and len(p) <= 8)
    return c.most_common(1)[0][0] if c else 3


def _cell_of(line: str, col: int) -> int:
    return line[:col].strip().lstrip("|").count("|")


def spanned(header: list, k: int) -> int:
    """The header cell over column ``k``: the nearest named one to its left when ``k``'s is empty, as a header
    spanning several columns is drawn (``| | q | | k | |``: q over columns 1 and 2); never the corner's.  (Only
    for rows with one label cell: a second, ``| head | t | q | | …``, leaves the rows' keys unsure.)

    >>> [spanned(["", "q", "", "k", ""], k) for k in range(5)]
    [0, 1, 1, 3, 3]
    """
    j = k
    while j > 1 and k < len(header) and not header[j].strip():
        j -= 1
    return j if k < len(header) and header[j].strip() and j >= 1 else k


SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
SCIENTIFIC_RUN = re.compile(r"(?:(?<![\w.,])[-−+]?\d+,\d+(?=\s*(?:×|\*|·|\\times|\\cdot)\s*10)|"
                            r"(?<![\w.])[-−+]?\d+(?:\.\d+)?)\s*"
                            r"(?:[eE][-+]?\d+\b|"
                            r"(?:×|\*|·|\\times|\\cdot)\s*10\s*(?:\^\s*\{\s*[-−+]?\d+\s*\}|\^\s*[-−+]?\d+|"
                            r"\*\*\s*\(?[-−+]?\d+\)?|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|−\d{1,3}(?!\d|[.,]\d)))")
"""A mantissa and its power of ten: ``2.23×10⁻⁴``, ``-3,8623 \\cdot 10^{-12}`` (a decimal comma before ×10 is
one), ``3.6909e-05``, and a PDF's ``2,8 × 10−7`` (its superscript set on the line)."""
POWER = re.compile(r"10\s*\^\s*\{\s*([-−+]?\d+)\s*\}|10\s*([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)|(?<![\w.])(\d+(?:\.\d+)?)[eE]([-+]?\d+)")


def _powers(line: str, no: int) -> list:
    """10^{-3}, 10⁻⁵, 1e-5 and 1/3: exact notations; and ℝ⁴'s 4 (a size written as a superscript)."""
    out = []
    for m in re.finditer(r"ℝ([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", line):
        out.append(Number(m[1].translate(SUPERSCRIPT), Fraction(int(m[1].translate(SUPERSCRIPT))), 0, "integer",
                          no, m.start(1), line))
    for m in FRACTION.finditer(line):
        if not re.search(r"[\d.]\s*[-+×*]\s*$", line[:m.start()]):
            n = _number(m.group(), no, m.start(), line)
            out += [n] if n else []
    taken = []
    for m in SCIENTIFIC_RUN.finditer(line):   # 2.23×10⁻⁴, −5.34 \times 10^{-7}, 3.6909e-05: one figure each
        body = re.sub(r"\s+", "", m.group()).replace("−", "-")
        body = re.sub(r"(?<=\d),(?=\d)", ".", re.sub(r"(10)-(\d+)$", r"\1^{-\2}", body))   # (2,8×10−7: 2.8×10^{-7})
        n = _number(body, no, m.start(), line)
        if n:
            n.text = m.group().replace("−", "-")     # as spaced in the line: what follows it starts at its end
            out.append(n)
            taken.append((m.start(), m.end()))
    for m in POWER.finditer(line):
        if any(a <= m.start() < b for a, b in taken):
            continue
        if m[3] is not None:
            if len(m[4].lstrip("+-")) > 3 or len(m[3]) > MAX_DIGITS:
                continue                      # 1e-999999999: beyond --max-digits, not a figure to check
            text, value = m.group(), Fraction(m[3]) * Fraction(10) ** int(m[4])
            out.append(Number(text, value, 0, "power", no, m.start(), line))
            continue
        n = _number(m.group().replace(" ", "").replace("−", "-"), no, m.start(), line)
        if n:
            out.append(n)
    return out


def _number(text: str, no: int, col: int, line: str):
    try:
        p = parse_printed(text)
    except (ValueError, ArithmeticError, LimitError):   # LimitError: more digits than --max-digits allows
        return None
    return Number(p.text, p.value, p.decimals, p.kind, no, col, line)


TUPLE = re.compile(r"\(([^()]*,[^()]*)\)")


def _component_chains(line: str, found: list) -> None:
    """An equation of tuples, read one component at a time: ``(1.541, 0.840) + (1.000, 0.917) =
    (2.541, 1.757)`` holds ``1.541 + 1.000 = 2.541`` and ``0.840 + 0.917 = 1.757``; a scalar outside the
    tuples (``0.454 × (1.310, 0.790)``) belongs to every component.

    >>> ns = extract("h = (0.5 + 0.000, 0.8 + 1.000) = (0.500, 1.800)")
    >>> [(n.text, n.chain) for n in ns if n.chain]
    [('0.500', '(0.5+0.000)'), ('1.800', '(0.8+1.000)')]
    """
    if "=" not in line or not found:
        return
    tuples = [m for m in TUPLE.finditer(line) if not re.search(r"[A-Za-z]\s*$", line[:m.start()])]
    widths = {len(_split_top(m[1])) for m in tuples}
    if len(tuples) < 2 or len(widths) != 1:
        return
    saved = {id(n): n.col for n in found}
    for k in range(widths.pop()):
        virtual, cols, pos = "", {}, 0            # the k-th component line, and each figure's column in it
        for m in tuples:
            for n in found:
                if pos <= saved[id(n)] < m.start():
                    cols[id(n)] = len(virtual) + saved[id(n)] - pos
            virtual += line[pos:m.start()]
            start, part = _split_top(m[1])[k]
            origin = m.start(1) + start
            for n in found:
                if origin <= saved[id(n)] < origin + len(part):
                    cols[id(n)] = len(virtual) + 1 + saved[id(n)] - origin
            virtual += "(" + part + ")"
            pos = m.end()
        for n in found:
            if saved[id(n)] >= pos:
                cols[id(n)] = len(virtual) + saved[id(n)] - pos
        virtual += line[pos:]
        members = [n for n in found if id(n) in cols]
        had = {id(n) for n in members if n.chain}
        for n in members:
            n.col = cols[id(n)]
        _chains(virtual, members)
        for n in members:
            n.col = saved[id(n)]
            if id(n) not in had and n.chain and "," in n.chain:
                n.chain, n.relation, n.operands = None, None, []


def _split_top(text: str) -> list:
    """[(start, part)] of a tuple's inside, cut at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append((start, text[start:i]))
            start = i + 1
    out.append((start, text[start:]))
    return out


def _chains(line: str, found: list) -> None:
    """A figure alone on one side of = or ≈, after a side that is arithmetic on printed numbers,
    gets that side as its chain: ``1.130 / 1.4142 ≈ 0.799`` → chain ``1.130/1.4142``."""
    line = re.sub(r"\\(?:quad|qquad|left|right|[Bb]igg?[lrm]?(?![a-z])|[,;:!])|&", lambda m: " " * len(m.group()),
                  line)            # spacing and bracket sizes: \big( is (
    spans = [(m.start(), m.group()) for m in re.finditer(r"=|≈|\\approx", line)]
    if not spans:
        return
    bounds = [0] + [a for a, _ in spans] + [len(line)]
    ends = [0] + [a + len(s) for a, s in spans]
    for k in range(1, len(ends)):
        _term_chains(line, found, (ends[k - 1], bounds[k]), (ends[k], bounds[k + 1]), spans[k - 1][1])
    for k in range(1, len(ends)):
        stop = SENTENCE_END.search(line, ends[k], bounds[k + 1])     # '= 1.199. The whole vector is (…)'
        stop = stop.start() if stop else bounds[k + 1]
        inside = [n for n in found if ends[k] <= n.col < stop]
        if len(inside) > 1 and not re.match(r"\s*[\[(]", line[ends[k]:inside[0].col]) and \
                (cut := CLAUSE_BREAK.search(line, inside[0].col + len(inside[0].text), stop)):
            stop = cut.start()           # '= 0.6634, −0.1 − 0.5 · (−0.5039) = 0.1520 och …': one result a clause
            #                              (not '= (0.5, 0.7)': a vector after the arithmetic is no result of it)
            inside = [n for n in inside if n.col < stop]
        side = line[ends[k]:stop]
        bare = re.fullmatch(r"\s*\(\s*[-+−]?[\d.]+%?\s*\)\s*[.,;]?\s*", side)   # (2.541): one component's result
        #                                                                       (and at a sentence's end: '(…).')
        if len(inside) != 1 or (_chain_text(side) is not None and not bare):
            continue
        rest = side.replace(inside[0].text, "", 1)
        if re.search(r"[\d]", rest) or re.search(r"[A-Za-z\u4e00-\u9fff]", re.split(r"[，,;；。]|\.\s", rest)[0][:6]):
            continue
        start = ends[k - 1]
        if k == 1:                      # 'W[0, dort] : 0.6 + …', 'the weight becomes 0.3 − …': after the label
            cut = list(LABEL_END.finditer(line, 0, bounds[k]))
            start = cut[-1].end() if cut else start
        chain = _chain_text(line[start:bounds[k]])
        if chain is None:
            start = _arithmetic_tail(line, start, bounds[k])    # '… by hand: (1.521 − 0.751) / 0.642 = 1.199'
            chain = _chain_text(line[start:bounds[k]]) if start is not None else None
        if chain:
            n = inside[0]
            n.chain, n.relation = chain, "=" if spans[k - 1][1] == "=" else "≈"
            n.operands = [m for m in found if start <= m.col < bounds[k]]


CLAUSE_BREAK = re.compile(r"\s*[,;]\s|\s+[^\W\d_₀-₉⁰-⁹]{2,}\s|\s+[(（](?=[^\W\d_]{2,})")
"""Where a result's clause ends before the next equation on its line: a comma or semicolon and a space, a word, or
a remark in brackets (``= −0.10480   (backprop: −0.10482)``)."""
CHAIN_TOKEN = re.compile(r"\s+|\d+(?:\.\d+)?|[-+−×·*/÷(){}$√^⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹]|\\(?:times|cdot|sqrt|ln|exp|div)|"
                         r"exp|ln|log|sqrt|(.)")


def _arithmetic_tail(line: str, start: int, end: int) -> int | None:
    """Where the arithmetic that ends at ``end`` begins, after prose: the longest run of figures,
    operators and functions before it whose brackets balance (None when it holds no figure).

    >>> line = "For the first entry by hand: (1.521 − 0.751) / 0.642 = 1.199"
    >>> line[_arithmetic_tail(line, 0, line.index("="))]
    '('
    >>> line = "then (σ^{2} + ε)^{3/2} = 1.4815"
    >>> _arithmetic_tail(line, 0, line.index("="))
    >>> line = "מחלקים ב-√2 ≈ 1.4142"
    >>> line[_arithmetic_tail(line, 0, line.index("≈")):line.index("≈")]
    '√2 '
    """
    run = start
    for m in CHAIN_TOKEN.finditer(line, start, end):
        if m.group(1) is not None:
            run = m.end()
    skipped = run
    while run < end and (line[run].isspace() or line[run] in ")}+×·*/÷^" or
                         line[run] == "-" and run > 0 and line[run - 1].isalpha()):
        run += 1                          # no operator or closing bracket opens it (nor a word's hyphen: ב-√2)
    if "^" in line[skipped:run]:
        return None                       # (σ² + ε)^{3/2} = …: an exponent, no arithmetic of its own
    tail = line[run:end]
    if tail.count("(") != tail.count(")") or tail.count("{") != tail.count("}"):
        return None                       # '√(σ² + ε) = …': the bracket opened in prose
    return run if re.search(r"\d", tail) else None


SENTENCE_END = re.compile(r"(?<=\S)(?:[;；。]|\.\s|[,，]\s*(?=[^\W\d_]))")
LABEL_END = re.compile(r":|←|\\leftarrow|\\gets|\bbecomes\b|\bis\b|\bto\b|变为|devient|wird|\bwordt\b|\bwynosi\b|"
                       r"staje się|\bdiventa\b|torna-se|\bfica\b|se convierte en|\bqueda\b|становится|\bolur\b|"
                       r"trở thành|\bmenjadi\b")
LATEX_NAMES = ((re.compile(r"\\(?:mathbf|mathrm|mathcal|mathit|text|boldsymbol|operatorname)\{([^{}]*)\}"), r"\1"),
               (re.compile(r"\\frac\{\\partial\s*(\w+)\}\{\\partial\s*(\w+)\}"), r"∂\1/∂\2"),
               (re.compile(r"\\(?:left|right|[Bb]igg?[lrm]?(?![a-z])|[,;!:]|quad|qquad)"), " "))
ACCENT = re.compile(r"\\(bar|overline|tilde)\s*(?:\{\s*([A-Za-z])\s*\}|([A-Za-z])(?![A-Za-z]))")


def accented(s: str) -> str:
    """LaTeX's accent on one letter as the accented letter, another quantity's name than the letter's:
    ``\\bar h`` → h̄, ``\\tilde{y}`` → ỹ.

    >>> accented(r"\\bar h = (1, 2), \\tilde{y}, \\overline x") == "h\\u0304 = (1, 2), y\\u0303, x\\u0304"
    True
    """
    return ACCENT.sub(lambda m: (m[2] or m[3]) + ("\u0303" if m[1] == "tilde" else "\u0304"), s)


OPEN = re.compile(r"\\begin\{[bpvB]?matrix\}|\[|\(")
CLOSE = re.compile(r"\\end\{[bpvB]?matrix\}|\]|\)")
ARRAY_NAME = re.compile(r"([A-Za-z∂][\w^{}∂/'′\u0303\u0304]*+(?:\[\d+\])?)\s*+&?+\s*+(?:=|:|→|\\to)\s*$")


def _arrays(line: str, found: list) -> None:
    """The matrix or vector literal each figure is an entry of, and its place in it:
    ``E = \\begin{bmatrix} 0.1 & 0.2 \\\\ 0.3 & -0.1 \\end{bmatrix}`` gives -0.1 ('E', (1, 1));
    ``p = [0.3673, 0.2832]`` gives 0.2832 ('p', (1,)); ``E = [[0.1, 0.2], [0.3, -0.1]]`` as the first;
    ``E[1]: [0.3, -0.1]`` gives -0.1 ('E', (1, 1)).

    >>> ns = extract(r"$E = \\begin{bmatrix} 0.1 & 0.2 \\\\ 0.3 & -0.1 \\end{bmatrix}$, p = [0.36, 0.28]")
    >>> [(n.text, n.array, n.pos) for n in ns][-3:]
    [('-0.1', 'E', (1, 1)), ('0.36', 'p', (0,)), ('0.28', 'p', (1,))]
    >>> [(n.text, n.array, n.pos) for n in extract("W = [[0.5, -0.3], [0.2, 0.4]]")][-1]
    ('0.4', 'W', (1, 1))
    >>> [n.pos for n in extract("g = [ -0.16  0.24  0.37 ], W = [[0.5  0.3] [0.2  0.4]]")]
    [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (1, 1)]
    """
    at = {n.col: n for n in found}
    stack: list = []
    i = 0
    while i < len(line) and found:
        m = OPEN.match(line, i)
        if m:
            latex = m.group().startswith("\\")
            if stack and not latex and stack[-1]["list"] and m.group() == "[":      # a row of [[…], […]]
                outer = stack[-1]
                if outer.get("rows") and not outer.get("comma"):
                    outer["k"] += 1                 # [[0.1 0.2] [0.3 0.4]]: NumPy's rows, no comma between
                outer["rows"], outer["comma"] = True, False
                stack.append(dict(name=outer["name"], row=outer, k=0, latex=False, list=False, lead=()))
            else:
                name, lead = _array_name(line[:i])
                stack.append(dict(name=name, row=None, k=0, latex=latex, list=m.group() == "[", r=0, c=0, lead=lead))
            i = m.end()
            continue
        m = CLOSE.match(line, i)
        if m and stack:
            stack.pop()
            i = m.end()
            continue
        if stack:
            top = stack[-1]
            if top["latex"] and line.startswith("\\\\", i):
                top["r"], top["c"] = top["r"] + 1, 0
                i += 2
                continue
            if top["latex"] and line[i] == "&":
                top["c"] += 1
            elif not top["latex"] and line[i] == ",":
                top["k"] += 1
                top["comma"] = True
            n = at.get(i)
            if n is not None and not top["latex"] and top.get("end") is not None and not line[top["end"]:i].strip():
                top["k"] += 1                       # [ -0.16  0.24  0.37 ]: NumPy's entries, set apart by spaces
            if n is not None:
                top["end"] = i + len(n.text)
            if n is not None and not n.array and not n.pos:      # an unnamed tuple keeps the place alone
                pos = (top["r"], top["c"]) if top["latex"] else \
                    (top["row"]["k"], top["k"]) if top["row"] is not None else (top["k"],)
                n.array, n.pos = top["name"], top["lead"] + pos
        i += 1


OPERATOR = r"[+×*/·]|\\cdot|\\times|\s[-−]\s"
OPERATOR_BEFORE = rf"(?:{OPERATOR}|\s[-−])\s*$"


def _array_name(before: str) -> tuple:
    """The name a literal is assigned to (``E = [``, ``∂L/∂z = [``, ``E[1]: [``) and its leading indices; none
    for a sum's or a product's value (``x₂ + o₂ = (``).

    >>> _array_name("x_{2} + o_{2} = "), _array_name("o_{2} = "), _array_name("E[1]: ")
    (('', ()), ('o_{2}', ()), ('E', (1,)))
    >>> _array_name("attn0 = 1.000 × v0 + 0.000 × v1 = ")
    ('attn0', ())
    """
    before = accented(before)
    for rx, by in LATEX_NAMES:
        before = rx.sub(by, before)
    text = before.replace("$", "").rstrip()
    m = ARRAY_NAME.search(text)
    if m and re.search(OPERATOR_BEFORE, text[:m.start(1)]):    # attn0 = 1.000 × v0 + 0.000 × v1 = (…): attn0's
        first = re.split(r"[=≈]", text[:m.start(1)])
        m = ARRAY_NAME.search(first[0] + "=") if len(first) > 1 and not re.search(OPERATOR, first[0]) else None
    if not m:
        return "", ()                    # x₂ + o₂ = (…): a sum's value, no literal of o₂
    name = m[1]
    lead = re.fullmatch(r"(.+)\[(\d+)\]", name)
    return (lead[1], (int(lead[2]),)) if lead else (name, ())


def _terms(side: str) -> list:
    """The top-level terms of a sum, with their start offsets: '0.150 + 0.900' → [(0, '0.150 '), (7, ' 0.900')]."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(side):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch == "+" and i > start and side[start:i].strip():
            out.append((start, side[start:i]))
            start = i + 1
    out.append((start, side[start:]))
    return out


def _term_chains(line: str, found: list, left: tuple, right: tuple, rel: str) -> None:
    """``a×b + c×d = e + f``: e gets the chain a×b and f the chain c×d (sums of equal length)."""
    lt, rt = _terms(line[left[0]:left[1]]), _terms(line[right[0]:right[1]])
    if len(lt) < 2 or len(lt) != len(rt):
        return
    for (ls, lterm), (rs, rterm) in zip(lt, rt):
        inside = [n for n in found if right[0] + rs <= n.col < right[0] + rs + len(rterm)]
        chain = _chain_text(lterm)
        if len(inside) != 1 or chain is None or re.search(r"\d", rterm.replace(inside[0].text, "", 1)):
            continue
        n = inside[0]
        n.chain, n.relation = chain, "=" if rel == "=" else "≈"
        n.operands = [m for m in found if left[0] + ls <= m.col < left[0] + ls + len(lterm)]


CONTINUATION = re.compile(r"\s*+\$*+\s*+&?+\s*+(?:\\q?quad\s*+)*+(?:=|≈|[-+−](?=\s*[\d(]))")
#                           (possessive: linear on a line's long runs of spaces)


def _continued(above: str, above_found: list, line: str, found: list) -> None:
    """A line that starts with = continues the equation above it: its figures get the chains the last
    side of the line above gives (``= (0.200 + 0.0915, 0.900 - 0.0915)`` over ``= (0.292, 0.809)``).

    >>> ns = extract("E = (0.200 + 0.0915, 0.900 - 0.0915)\\n    = (0.292, 0.809)")
    >>> [(n.text, n.chain) for n in ns if n.chain]
    [('0.292', '(0.200+0.0915)'), ('0.809', '(0.900-0.0915)')]
    """
    import dataclasses
    cut = max(above.rfind("="), above.rfind("≈")) + 1
    tail = re.sub(r"\\\\\s*$", "  ", above[cut:])        # (a LaTeX line break ends it: kept as wide)
    shift = len(tail) + 1
    operator = not re.match(r"\s*+\$*+\s*+&?+\s*+(?:\\q?quad\s*+)*+(?:=|≈)", line)   # '&\qquad + … = -0.345' goes on
    olds = [dataclasses.replace(m, col=m.col - cut, chain=None, operands=[]) for m in above_found if m.col >= cut]
    had = {id(n): (n.chain, n.relation, n.operands) for n in found}
    for n in found:
        n.col += shift
    virtual = tail + " " + line
    _chains(virtual, olds + found)
    _component_chains(virtual, olds + found)
    for n in found:
        n.col -= shift
        if not any(m in olds for m in n.operands) or had[id(n)][0] is not None and not operator:
            n.chain, n.relation, n.operands = had[id(n)]


def _link_chains(found: list) -> None:
    """Operand Numbers become document indices."""
    for n in found:
        n.operands = [m.index for m in n.operands]
