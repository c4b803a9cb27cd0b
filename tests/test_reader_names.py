"""The parts written for readers name quantities as the text does, never by their code names: the precision
section (its tables, sentences and chart) and the errata, in Markdown and LaTeX, both languages, for the seeds
(the bigram's errata are its AdamW moments), a 2-layer spec, and the converted entries written out by hand."""
from __future__ import annotations

import re

import pytest

import symgpt
from symgpt.documents.expressions import expression
from symgpt.documents.precision import label

from test_render_cases import document, rendered, spec_path

CODE = re.compile(r"`[^`\n]+`|\\_|grad_|sgd\[|adamw\[|softmax_T\(|topk\(|topp\(|params\(\)|\\texttt|"
                  r"(?<!\\)\b[A-Za-z_]\w*\[[^\]]*\]")   # a backtick span, W\_Q, grad_E, sgd[1]., a call, p[4], W_Q[1,0]
SOURCE = re.compile(r"\d{3}\\_[0-9a-f]{16}\.txt")
"""The source's file name (in the errata's first sentence: a file's name, not a quantity's)."""


def reader_parts(text: str, fmt: str, lang: str) -> list:
    """The precision section without its command line, and the errata, of one rendered document."""
    if fmt == "md":
        start = text.index('<a id="sec-precision"></a>')
        body = re.sub(r"```sh\n.*?```", "", text[start:], flags=re.S)
    else:
        start = text.index(r"\label{sec:precision}")
        body = re.sub(r"\\begin\{(verbatim|lstlisting|Verbatim)\}.*?\\end\{\1\}", "", text[start:], flags=re.S)
    body = SOURCE.sub("", body.replace(r"\allowbreak{}", ""))
    return [ln for ln in body.splitlines() if ln.strip()]


@pytest.mark.parametrize("case", ["tiny-transformer", "bigram", "deep"])
@pytest.mark.parametrize("fmt", ["md", "tex"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_precision_and_errata_print_no_code_name(case, fmt, lang):
    files = rendered(case)
    text = next(t for p, t in files.items() if p.name == f"{case}.{lang}.{fmt}")
    lines = reader_parts(text, fmt, lang)
    found = [(m[0], ln[:160]) for ln in lines for m in CODE.finditer(ln) if "python -m symgpt.precision" not in ln]
    assert not found, found[:5]
    if case != "deep":  # the seeds have a claims file: their errata are in what was read
        arrows = "".join(lines).count(" → **" if fmt == "md" else r" $\to$ \textbf{")   # printed → should read
        assert arrows == {"bigram": 3}.get(case, 41)


@pytest.mark.parametrize("case", ["tiny-transformer", "bigram", "deep"])
def test_the_precision_chart_labels_tensors_by_their_symbols(case):
    """The chart's x labels (SVG and PDF) are the digits table's symbols, not names such as grad_W_Q or sgd[1].E."""
    fig = document(case)["figures"]["precision"]
    assert fig["math"] and not [x for x in fig["labels"] if CODE.search(x)]
    svg = next(t for p, t in rendered(case).items() if p.name == f"{case}-precision.svg")
    group = re.search(r'<g class="xtick"[^>]*>(.*?)</g>', svg, re.S)[1]          # the x labels' group
    ticks = re.findall(r"<text [^>]*>(.*?)</text>", group)
    assert len(ticks) == len(fig["labels"])
    shown = [re.sub(r"<[^>]+>|\[\d+\]", "", t) for t in ticks]     # the text of each; a layer's [2] is raised
    assert not [s for s in shown if CODE.search(s) or "_" in s or "\\" in s], shown
    assert any(s.startswith("∂") and s.endswith("ℒ") for s in shown)


def test_converted_entries_read_as_written_by_hand():
    t = symgpt.load("tiny-transformer")
    assert expression(t, "softmax_T(0.5, 爱)")["v"] == r"p_{\text{爱}}^{(T = 0.5)}"
    assert expression(t, "topk(3, <pad>)")["v"] == r"p_{{\lt}\text{pad}{\gt}}^{(\text{top-}k,\, k = 3)}"
    assert expression(t, "log(p[你])")["v"] == r"\ln p_{\text{你}}"
    assert expression(t, "params()") == {"t": "word", "v": "n_params"}
    b = symgpt.load("bigram")
    said = expression(b, "adamw[1].mhat[W,0,2]")["v"]
    assert said == [("errata.in_adamw", {"q": {"t": "tex", "v": r"\hat m_{W_{0,\text{鱼}}}"}})]
    assert label("grad_l1.W_Q") == r"\partial_{{W_{Q}}^{[2]}} \mathcal{L}"
    assert label("sgd[1].E") == r"{E}^{\,\mathrm{SGD}}"


def test_the_bigram_errata_read_in_both_languages():
    """The bigram's AdamW rows, as the English and the Chinese Markdown print them."""
    files = rendered("bigram")
    en = next(t for p, t in files.items() if p.name == "bigram.en.md")
    zh = next(t for p, t in files.items() if p.name == "bigram.zh.md")
    assert r"| $\hat m_{W_{0,\text{鱼}}}$ in the first AdamW step: -0.195170 → **-0.195173**" in en
    assert r"| AdamW 第一步的 $\sqrt{\hat v_{W_{0,\text{鱼}}}}$: 0.195170 → **0.195173**" in zh
    tex = next(t for p, t in files.items() if p.name == "bigram.en.tex")
    assert r"$(\eta \lambda \theta)_{W_{0,\text{鱼}}} / W_{0,\text{鱼}}$ in the first AdamW step: 0.1\%" in tex


def test_a_two_layer_state_reads_with_its_layer():
    d = symgpt.load(str(spec_path("deep")))
    said = expression(d, "sqrt(adamw[1].vhat[l1.W_Q,0,1])")["v"]
    assert said == [("errata.in_adamw", {"q": {"t": "tex", "v": r"\sqrt{\hat v_{{{W_{Q}}^{[2]}}_{0,1}}}"}})]
    after = expression(d, "sgd[3].l0.W_Q[0,1]")["v"]
    assert after[0][0] == "precision.after_sgd_k" and after[0][1]["k"]["v"] == "3"
