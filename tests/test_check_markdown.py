"""check reads Markdown as CommonMark and GFM parse it (markdown-it-py): a table without its outer pipes, one in a
block quote, one with an escaped pipe in a cell, an HTML table written into the Markdown, a heading underlined
with ===, indented code.  In each, a truncated probability is wrong as the p of its row, the other figures are
right, and each is reported at its own line of the file.

The bigram's exact z and p come from tests/oracle.py (mpmath), never from symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.check import check
from symgpt.claims.readers import read

import oracle
from conftest import write_spec
from test_check_lead_in import SPEC
from test_check_typography import fmt

VOCAB = ["the", "cat", "sat", "on", "mat"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("md"), SPEC)
    with mp.workdps(40):
        f = oracle.bigram_forward(oracle.load_spec(path), dps=40)
    global WRONG   # the first word whose p printed truncated differs from p rounded: the planted error
    WRONG = next(k for k in range(len(VOCAB)) if _truncated(f["p"][k]) != fmt(f["p"][k], 4))
    return path, f["z"], f["p"]


def _truncated(x) -> str:
    s = mp.nstr(x, 30, strip_zeros=False)
    whole, _, frac = s.partition(".")
    return f"{whole}.{frac[:4]}"


def _rows(z, p):
    rows = []
    for k, tok in enumerate(VOCAB):
        shown = _truncated(p[k]) if k == WRONG else fmt(p[k], 4)
        rows.append((tok, fmt(z[k], 4), shown))
    return rows


def _no_outer_pipes(rows, head):
    return [f"{head[0]} | {head[1]} | {head[2]}", "--- | ---: | ---:"] + [" | ".join(r) for r in rows]


def _quoted(rows, head):
    return ["> " + ln for ln in [f"| {' | '.join(head)} |", "|---|---|---|"] + [f"| {' | '.join(r)} |" for r in rows]]


def _escaped(rows, head):
    return [f"| {' | '.join(head)} |", "| :-- | --: | --: |"] + \
        [f"| {tok} \\| {tok.upper()} | {zz} | {pp} |" for tok, zz, pp in rows]


def _html(rows, head):
    cells = "".join(f"<th>{h}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return ["<table>", f"<tr>{cells}</tr>", body, "</table>"]


LAYOUTS = {"no outer pipes": _no_outer_pipes, "block quote": _quoted, "escaped pipe": _escaped,
           "html table": _html}
TEXTS = {
    "en": ("Next-word probabilities\n=======================\n\nAfter *cat*, each word's logit and probability:",
           ["word", "logit z", "p"]),
    "zh": ("下一个词的概率\n==============\n\n输入「cat」之后，每个词的 logit 与概率：", ["词", "logit z", "概率 p"]),
}


@pytest.mark.parametrize("lang", TEXTS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_table_in_any_markdown_layout_is_read_by_rows_and_columns(tmp_path, model, layout, lang):
    path, z, p = model
    intro, head = TEXTS[lang]
    lines = intro.split("\n") + [""] + LAYOUTS[layout](_rows(z, p), head) + ["", "    code: 1 + 1 = 2", ""]
    doc = tmp_path / "doc.md"
    doc.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = check(doc, path)
    by_text = {}
    for r in results:
        by_text.setdefault(r.number.text.replace("-", "−"), r)
    wrong = [r for r in results if r.verdict == "wrong"]
    assert [(r.ref, r.number.text) for r in wrong] == [(f"p[{VOCAB[WRONG]}]", _truncated(p[WRONG]))]
    assert wrong[0].cause == "truncation"
    for k, tok in enumerate(VOCAB):
        if k != WRONG:
            assert by_text[fmt(p[k], 4)].ref == f"p[{tok}]" and by_text[fmt(p[k], 4)].verdict == "matched"
    # reported at the file's own line: the wrong figure's row
    row = next(i for i, ln in enumerate(lines, 1) if _truncated(p[WRONG]) in ln)
    assert wrong[0].number.source == row


def test_the_normal_form_of_a_quoted_table_and_a_setext_heading():
    doc = "Title\n=====\n\n> a | b\n> --|--\n> 1 | 0.5\n\n    x = 0.25\n"
    import tempfile
    from pathlib import Path
    f = Path(tempfile.mkdtemp()) / "t.md"
    f.write_text(doc, encoding="utf-8")
    r = read(f)
    assert r.kind == "markdown"
    assert r.text.split("\n") == ["# Title", "", "| a | b |", "| --- | --- |", "| 1 | 0.5 |", "", "```",
                                  "x = 0.25", "```"]
    assert r.origins[:5] == ["line 1", "", "line 4", "line 4", "line 6"] and r.origins[7] == "line 8"


def test_plain_text_is_read_as_it_is(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("Title\n=====\n    x = 0.25\n", encoding="utf-8")
    r = read(f)
    assert (r.kind, r.text, r.origins) == ("text", "Title\n=====\n    x = 0.25\n", [])
