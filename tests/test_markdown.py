"""Every Markdown output parses with a real Markdown + math parser, and its math is KaTeX-safe.

The parser is markdown-it-py (CommonMark + GFM tables) with the dollarmath
plugin, which is how KaTeX-based renderers find ``$…$`` and ``$$…$$``.
Each math span is then checked by a small KaTeX-compatibility checker:
balanced braces, ``\\left``/``\\right`` and environments, only environments
and macros KaTeX supports (an allowlist), and no macro KaTeX lacks such as
``\\DeclareMathOperator`` or ``align*``.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from test_render_cases import CASES, WEIRD_TOKENS, rendered

ENVIRONMENTS = {"aligned", "array", "pmatrix", "bmatrix", "cases", "matrix", "gathered"}

# Macros KaTeX supports (katex.org/docs/supported) that these documents may use.
MACROS = {
    "text", "mathrm", "mathbb", "mathcal", "operatorname", "frac", "sqrt", "left", "right",
    "times", "cdot", "quad", "qquad", "to", "mapsto", "approx", "in", "le", "ge", "leq", "geq",
    "bar", "min", "pi", "kappa", "lVert", "rVert", "Delta", "Sigma",
    "infty", "sum", "ln", "log", "exp", "sin", "cos", "arg", "max", "partial", "delta", "varepsilon",
    "epsilon", "gamma", "beta", "eta", "lambda", "mu", "sigma", "theta", "top", "hat", "textstyle",
    "Big", "leftarrow", "Rightarrow", "checkmark", "textbackslash", "textasciicircum", "textless", "textgreater",
    "textasciitilde", "begin", "end", "nabla", "mathbf", "prime", "ldots", "cdots", "pm", "lbrace",
    "rbrace", "lt", "gt", "backslash", "sim", "lvert", "rvert",
}
SYMBOL_MACROS = set("{}_%$&#,;! |\\")  # \{ \} \_ \% \$ \& \# \, \; \! \  \| \\

md = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)


def katex_problems(tex: str) -> list:
    """What in ``tex`` KaTeX (and GitHub's math) would not render.

    >>> katex_problems(r"\\frac{a}{b} + \\left(x\\right)")
    []
    >>> katex_problems(r"\\begin{align*} a \\end{align*}")
    ['environment align* is not supported', 'environment align* is not supported']
    >>> for problem in katex_problems(r"\\DeclareMathOperator{\\foo}{foo} {"):
    ...     print(problem)
    macro \\DeclareMathOperator is not on the KaTeX allowlist
    macro \\foo is not on the KaTeX allowlist
    unbalanced braces
    """
    out = []
    depth = 0
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+)", tex[i:])
            if m:
                if m[1] not in MACROS:
                    out.append(f"macro \\{m[1]} is not on the KaTeX allowlist")
                i += len(m[0])
                continue
            if i + 1 < len(tex) and tex[i + 1] in SYMBOL_MACROS:
                i += 2
                continue
            out.append(f"stray backslash before {tex[i + 1:i + 2]!r}")
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                break
        elif ch == "$":
            out.append("unescaped $ inside math")
        i += 1
    if depth != 0:
        out.append("unbalanced braces")
    begins = re.findall(r"\\begin\{([^}]*)\}", tex)
    ends = re.findall(r"\\end\{([^}]*)\}", tex)
    for env in begins + ends:
        if env not in ENVIRONMENTS:
            out.append(f"environment {env} is not supported")
    if begins != ends[::-1]:
        out.append("environments do not nest")
    if len(re.findall(r"\\left(?![a-z])", tex)) != len(re.findall(r"\\right(?![a-z])", tex)):
        out.append("unbalanced \\left/\\right")
    for arg in re.findall(r"\\mathbb\{([^}]*)\}", tex):
        if not re.fullmatch(r"[A-Z]+", arg):
            out.append(f"\\mathbb{{{arg}}}: KaTeX has blackboard capitals only")
    return out


def math_spans(text: str) -> list:
    """(kind, content) of every math token markdown-it finds, tables and inline included."""
    spans = []

    def walk(tokens):
        for t in tokens:
            if t.type in ("math_inline", "math_block", "math_inline_double"):
                spans.append((t.type, t.content))
            if t.children:
                walk(t.children)
    walk(md.parse(text))
    return spans


def markdown_files():
    """(case, file name) of every Markdown output, named without rendering (collection stays fast)."""
    for case in CASES:
        for lang in ("zh", "en"):
            yield pytest.param(case, f"{case}.{lang}.md", id=f"{case}.{lang}.md")


@pytest.mark.parametrize("case,name", list(markdown_files()))
def test_every_math_span_is_katex_safe(case, name):
    text = rendered(case)[_path(case, name)]
    spans = math_spans(text)
    assert len(spans) > 20
    problems = [(c[:80], p) for _, c in spans for p in katex_problems(c)]
    assert not problems, problems[:10]


@pytest.mark.parametrize("case,name", list(markdown_files()))
def test_display_math_stands_on_its_own_lines(case, name):
    text = rendered(case)[_path(case, name)]
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if "$$" in ln:
            assert ln == "$$", f"line {i + 1}: $$ must stand alone: {ln[:80]!r}"
    assert text.count("\n$$\n") >= 10
    assert "align*" not in text and "DeclareMathOperator" not in text


@pytest.mark.parametrize("case,name", list(markdown_files()))
def test_tables_parse_with_their_columns(case, name):
    text = rendered(case)[_path(case, name)]
    tokens = md.parse(text)
    tables = [t for t in tokens if t.type == "table_open"]
    assert len(tables) >= 3
    # every row has as many cells as its header
    rows, cells = [], 0
    for t in tokens:
        if t.type == "tr_open":
            cells = 0
        elif t.type in ("th_open", "td_open"):
            cells += 1
        elif t.type == "tr_close":
            rows.append(cells)
        elif t.type == "table_close":
            assert len(set(rows)) == 1, rows
            rows = []


def test_weird_tokens_show_literally_in_markdown():
    for name, text in rendered("weird").items():
        if name.suffix != ".md":
            continue
        tokens = md.parse(text)
        table_text = []

        def walk(ts):
            for t in ts:
                if t.type == "text":
                    table_text.append(t.content)
                if t.children:
                    walk(t.children)
        walk(tokens)
        cells = set(table_text)
        for tok in WEIRD_TOKENS:
            # the vocabulary table has the token alone in a cell
            assert tok in cells, f"{name}: token {tok!r} is not shown literally"


def test_pictures_are_well_formed_svg_beside_the_markdown():
    for case in CASES:
        files = rendered(case)
        svgs = {p.name: t for p, t in files.items() if p.suffix == ".svg"}
        assert svgs
        for name, text in svgs.items():
            root = ET.fromstring(text)
            assert root.tag.endswith("svg")
        for p, text in files.items():
            if p.suffix == ".md":
                for ref in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
                    assert ref in svgs, f"{p.name} shows {ref}, which is not rendered beside it"
    weird = [t for p, t in rendered("weird").items() if p.name == "weird-probs.svg"][0]
    labels = [el.text for el in ET.fromstring(weird).iter() if el.tag.endswith("text")]
    for tok in WEIRD_TOKENS:
        assert tok in labels


def _path(case, name):
    return next(p for p in rendered(case) if p.name == name)


def test_matrices_keep_their_columns():
    """Inside a matrix no cell holds two numbers: the column separators survived."""
    import re
    from pathlib import Path
    two_numbers = re.compile(r"-?\d+(\.\d+)?\s+-?\d+(\.\d+)?")
    for md in sorted((Path(__file__).resolve().parent.parent / "derivations" / "rendered").glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for body in re.findall(r"\\begin\{[bp]matrix\}(.*?)\\end\{[bp]matrix\}", text, re.S):
            for row in body.split(r"\\"):
                for cell in row.split("&"):
                    assert not two_numbers.fullmatch(cell.strip()), f"{md.name}: {row.strip()!r}"


@pytest.mark.parametrize("case,name", list(markdown_files()))
def test_every_contents_entry_links_to_its_heading_in_the_same_file(case, name):
    """The contents list under **Contents** / **目录**: one link per ``##`` heading, in order, each to an
    ``<a id>`` of the same file that stands right before the heading the link's text repeats."""
    text = rendered(case)[_path(case, name)]
    tokens = md.parse(text)
    start = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content in ("**Contents**", "**目录**"))
    end = next(i for i in range(start, len(tokens)) if tokens[i].type == "ordered_list_close")
    entries = [t.content for t in tokens[start:end] if t.type == "inline" and t is not tokens[start]]
    links = [re.fullmatch(r"\[(.*)\]\(#([^)\s]+)\)", e) for e in entries]
    assert links and all(links), entries
    headings = {}                                    # anchor → the text of the heading that follows it
    for i, t in enumerate(tokens):
        for anchor in re.findall(r'^<a id="([^"]+)"></a>$', t.content if t.type in ("html_block", "inline") else ""):
            j = next(k for k in range(i, len(tokens)) if tokens[k].type == "heading_open")
            headings[anchor] = tokens[j + 1].content
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert [m[1] for m in links] == h2                                   # every section, in order
    for m in links:
        assert headings.get(m[2]) == m[1], (m[0], headings.get(m[2]))


CODE_NAME = re.compile(r"\[|\]|grad|sgd|adamw|\\_|\bl\d\.|\\text\{[A-Za-z_]{2,}\}")   # p[4], grad_E, l0.W_Q, \text{W}\_


@pytest.mark.parametrize("case", ["tiny-transformer", "bigram", "deep"])
def test_the_precision_tables_name_quantities_as_the_text_does(case):
    """The floating-point section's tables, in Markdown and LaTeX, both languages: each row names its quantity in
    the text's notation (p_你, ∂𝓛/∂E_{你,0}, W_Q after one SGD step, a layer as a superscript), never a code
    name; the target's probability is p with the target token, read from the spec."""
    import tomllib

    from test_render_cases import spec_path
    raw = tomllib.loads(spec_path(case).read_text(encoding="utf-8"))
    p_target = rf"$p_{{\text{{{raw['data']['target']}}}}}$"
    for lang, after in (("en", "after one SGD step"), ("zh", "SGD 更新一步后的")):
        md_text = rendered(case)[_path(case, f"{case}.{lang}.md")].split('<a id="sec-precision"></a>')[1]
        tex_text = rendered(case)[_path(case, f"{case}.{lang}.tex")].split(r"\label{sec:precision}")[1]
        md_cells = [ln.split(" | ")[0].removeprefix("| ") for ln in md_text.split("\n")
                    if ln.startswith("| ") and not ln.startswith("| :")]
        tex_cells = [ln.split(" & ")[0] for ln in tex_text.split("\n") if " & " in ln and ln.endswith("\\\\")]
        for cells in (md_cells, tex_cells):
            names = [c for c in cells if c.startswith("$") or after in c]
            assert len(names) >= 10 and p_target in names, cells
            code = [c for c in names if CODE_NAME.search(re.sub(r"\^\{\[\d+\]\}", "", c))]   # ^{[2]}: layer 2
            assert not code, code
            assert any(after in c for c in names) and any(r"\partial \mathcal{L} / \partial" in c for c in names)
        born = [c for ln in md_text.split("\n") if re.match(r"\| (float|bfloat)\d+ \| ", ln)
                for c in ln.strip("| ").split(" | ")[1:] if "%" in c]    # where the error is born: sources by symbol
        assert born and not [c for c in born if CODE_NAME.search(re.sub(r"\^\{\[\d+\]\}", "", c))], born


def test_the_errata_name_quantities_as_the_text_does():
    """The seed's errata, Markdown and LaTeX, both languages: each figure's quantity is math in the text's notation
    (H0_{1,0}·W_{Q,0,0}, p_爱 + p_他, a function the claims call as its section writes it: p_爱^{(T = 0.5)}, ln p_你),
    the parameter count in words; never a code name in code font (`params()`) nor an escaped one such as
    H0\\[1,0\\]·W\\_Q\\[0,0\\]."""
    import tomllib

    from test_render_cases import spec_path
    vocab = tomllib.loads(spec_path("tiny-transformer").read_text(encoding="utf-8"))["model"]["vocab"]
    tokens = lambda s: re.sub(r"\\text\{([^}]*)\}", lambda m: "" if any(m[1] in v for v in vocab) else m[0], s)
    for lang in ("en", "zh"):
        md_text = rendered("tiny-transformer")[_path("tiny-transformer", f"tiny-transformer.{lang}.md")]
        rows = [ln for ln in md_text.split('<a id="errata"></a>')[1].split("\n") if re.match(r"\| \d+ \|", ln)]
        names = [re.match(r"(.*?): ", entry)[1] for ln in rows for entry in ln.split(" | ")[2].split("<br>")]
        tex_text = rendered("tiny-transformer")[_path("tiny-transformer", f"tiny-transformer.{lang}.tex")]
        tex_rows = tex_text.split(r"\begin{longtable}")[-1].split(r"\end{longtable}")[0]
        tex_names = re.findall(r"& ([^&]*?): -?[\d.]+(?:, -?[\d.]+)* \$\\to\$", tex_rows)
        assert len(names) == len(tex_names) >= 30
        count = {"en": "number of trainable scalars", "zh": "可训练标量的个数"}[lang]
        for name in names + tex_names:
            assert name == count or re.fullmatch(r"\$[^$]*\$", name), name                   # one formula, or words
            assert not CODE_NAME.search(tokens(re.sub(r"\^\{\[\d+\]\}", "", name))), name   # a token is no code
            assert "`" not in name and "texttt" not in name and not re.search(r"(?<![\\\w])[A-Za-z_]\w*\(", name), name
        assert r"$p_{\text{爱}} + p_{\text{他}}$" in names and r"$\exp(S_{1,0})$" in tex_names
        assert names.count(count) == tex_names.count(count) == 1                            # params(): 18, 38 → 46
        assert r"$p_{\text{爱}}^{(T = 0.5)}$" in names and r"$\ln p_{\text{你}}$" in tex_names   # softmax_T, log
        assert r"$p_{{\lt}\text{pad}{\gt}}^{(\text{top-}k,\, k = 3)}$" in names                  # topk(3, <pad>)
