"""The readers: HTML, Jupyter notebooks and PDF read into the normal form ``extract`` reads (pipe tables,
``#`` headings, fenced code), and figures checked through ``python -m symgpt.check`` from each.

The documents are written here (HTML, a notebook made with nbformat, PDFs written by hand) or kept in
tests/data (readers.pdf, made by ``xelatex readers.tex``).  The figures they print are the bigram's, written by
hand: p = (0.3673, 0.2832, 0.3494), z = (0.13, -0.13, 0.08), loss 1.0515 (derivations/rendered/bigram.en.md).
"""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symgpt.claims.read_html import html_text
from symgpt.claims.read_pdf import pdf_lines, tiny_pdf
from symgpt.claims.readers import read, read_document
from symgpt.core.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bigram 0.99</title>
<style>.n { width: 0.5em }</style>
<script>var p = [0.1, 0.2];</script></head>
<body>
<h1>A bigram, step by step</h1>
<p>After &lsquo;吃&rsquo; the model gives &lsquo;鱼&rsquo; a probability of
0.3494, and the loss is
1.0515 &ndash; not yet small.</p>
<p>Each head projects with W<sub>Q</sub>; the step is 10<sup>-4</sup>.</p>
<p>In TeX: <span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>z</mi></mrow><annotation
encoding="application/x-tex">z_{0} = 0.3 \\times 0.5 + (-0.1) \\times 0.2 = 0.13</annotation></semantics></math>
</span><span class="katex-html" aria-hidden="true">z0=0.3×0.5+(−0.1)×0.2=0.13</span></span>.</p>
<table>
<caption>Next-token probabilities</caption>
<thead><tr><th>Token</th><th>z</th><th>p</th></tr></thead>
<tbody>
<tr><th>猫</th><td>0.1300</td><td>0.3673</td></tr>
<tr><th>吃</th><td>&minus;0.1300</td><td>0.2832</td></tr>
<tr><th>鱼</th><td>0.0800</td><td>0.3494</td></tr>
</tbody></table>
<pre>
&gt;&gt;&gt; print(loss)
1.0515
</pre>
</body></html>
"""

PAGE_TEXT = """# A bigram, step by step
After ‘吃’ the model gives ‘鱼’ a probability of 0.3494, and the loss is 1.0515 – not yet small.
Each head projects with W_{Q}; the step is 10^{-4}.
In TeX: $z_{0} = 0.3 \\times 0.5 + (-0.1) \\times 0.2 = 0.13$.

Table: Next-token probabilities
| Token | z | p |
| --- | --- | --- |
| 猫 | 0.1300 | 0.3673 |
| 吃 | −0.1300 | 0.2832 |
| 鱼 | 0.0800 | 0.3494 |

```
>>> print(loss)
1.0515
```"""


ANY = None   # (a figure whose quantity the test leaves to the matcher)


def checked(doc: Path) -> list:
    """``python -m symgpt.check DOC --spec bigram --format json``: (printed, verdict, ref) of each figure, in
    order (not their lines: where a figure is reported is check's business, not the reader's)."""
    r = subprocess.run([sys.executable, "-m", "symgpt.check", str(doc), "--spec", "bigram", "--format", "json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    return [(f["printed"], f["verdict"], f["ref"]) for f in json.loads(r.stdout)["figures"]]


def same(figures, expected) -> bool:
    """The figures printed as expected, each matched to the quantity expected (ANY: any verdict but wrong)."""
    assert [printed for printed, *_ in figures] == [printed for printed, _ in expected]
    for (printed, verdict, ref), (_, want) in zip(figures, expected):
        assert verdict != "wrong" and (want is ANY or (verdict, ref) == ("matched", want)), (printed, verdict, ref)
    return True


# ---------------------------------------------------------------- HTML

def test_html_normal_form(tmp_path):
    # A figure that starts a wrapped source line stays in its sentence; W<sub>Q</sub> is W_{Q}; the formula is
    # read once, as its TeX; the table is a pipe table under its caption; <pre> is fenced; no script, no style.
    doc = tmp_path / "page.html"
    doc.write_text(PAGE, encoding="utf-8")
    r = read(doc)
    assert (r.kind, r.text) == ("html", PAGE_TEXT)
    assert r.origins[:4] == ["source line 6", "source line 7", "source line 10", "source line 11"]
    assert r.origins[PAGE_TEXT.split("\n").index(">>> print(loss)")] == "source line 23"
    assert read_document(doc) == PAGE_TEXT


def test_html_figures_through_check(tmp_path):
    doc = tmp_path / "page.html"
    doc.write_text(PAGE, encoding="utf-8")
    assert same(checked(doc), [
        ("0.3494", "p[鱼]"), ("1.0515", "loss"), ("10^{-4}", ANY),
        ("0.3", ANY), ("0.5", ANY), ("-0.1", ANY), ("0.2", ANY), ("0.13", "z[猫]"),
        ("0.1300", "z[猫]"), ("0.3673", "p[猫]"), ("−0.1300", "z[吃]"), ("0.2832", "p[吃]"),
        ("0.0800", "z[鱼]"), ("0.3494", "p[鱼]"), ("1.0515", "loss")])


def test_html_tables_spans_and_math():
    # Spanning cells repeated in every place they cover; two header rows joined per column; a label cell kept;
    # a '|' in a cell splits no cell; MathML without TeX read from its elements; display math keeps its lines.
    page = ('<p>The probabilities:</p><table><thead><tr><th rowspan="2">Token</th><th colspan="2">Forward</th></tr>'
            '<tr><th>z</th><th>p</th></tr></thead>'
            '<tr><th rowspan="2">猫 | cat</th><td>0.1300</td><td>0.3673</td></tr><tr><td colspan="2">0.5</td></tr>'
            '</table><p>ε is <math><mi>ε</mi><mo>=</mo><msup><mn>10</mn><mrow><mo>−</mo><mn>5</mn></mrow></msup>'
            '</math>.</p><div class="display"><span class="katex-display"><span class="katex"><math display="block">'
            '<semantics><mi>z</mi><annotation encoding="application/x-tex">z_{0} &amp;= 0.13 \\\\\nz_{1} &amp;= -0.13'
            '</annotation></semantics></math></span></span></div>')
    assert html_text(page) == (
        "The probabilities:\n\n"
        "| Token | Forward z | Forward p |\n| --- | --- | --- |\n"
        "| 猫 ∣ cat | 0.1300 | 0.3673 |\n| 猫 ∣ cat | 0.5 | 0.5 |\n\n"
        "ε is $ε = 10^{−5}$.\n$z_{0} &= 0.13 \\\\\nz_{1} &= -0.13$")


def test_html_layout_tables_and_numbered_captions():
    # A table that lays out a page (a table inside it) is read as blocks; a caption already numbered is its own
    # caption line, the form extract recognises ('Table 2-1 · …').
    page = ("<table><tr><td><h2>§1</h2><p>loss 1.0515</p></td><td><table><tr><td>a</td><td>0.5</td></tr>"
            "</table></td></tr></table><table><caption>Table 2-1 · p</caption><tr><td>鱼</td><td>0.3494</td></tr>"
            "</table>")
    assert html_text(page) == "## §1\nloss 1.0515\n\n| a | 0.5 |\n\nTable 2-1 · p\n| 鱼 | 0.3494 |"


def test_hostile_html_is_refused_or_read():
    # libxml2 keeps nothing of a page nested deeper than it allows: one error, not an empty page; a text longer
    # than its default limit (10 MB) is read whole.
    with pytest.raises(InputError, match=r"^HTML the parser cannot read: Excessive depth in document: 2048 \("):
        html_text("<div>" * 3000 + "0.5")
    assert html_text("<p>" + "a " * 6_000_000 + "0.5</p>").endswith(" a a 0.5")


# ---------------------------------------------------------------- Jupyter notebooks

def notebook() -> str:
    nbformat = pytest.importorskip("nbformat")
    v4 = nbformat.v4
    nb = v4.new_notebook(metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}})
    frame = ('<div><style scoped>td {width: 0.5em}</style><table class="dataframe"><thead><tr><th></th><th>token</th>'
             '<th>z</th><th>p</th></tr></thead><tbody><tr><th>0</th><td>猫</td><td>0.1300</td><td>0.3673</td></tr>'
             '</tbody></table></div>')
    nb.cells = [
        v4.new_markdown_cell("# Bigram\n\nAfter ‘吃’ the model gives\np(鱼) = 0.3494."),
        v4.new_code_cell("p = softmax(x @ W)\nprint(p)\nloss", execution_count=3, outputs=[
            v4.new_output("stream", name="stdout", text="[0.3673 0.2832 0.3494]\n"),
            v4.new_output("execute_result", {"text/plain": "1.0515"}, execution_count=3)]),
        v4.new_code_cell("df", execution_count=4, outputs=[
            v4.new_output("execute_result", {"text/plain": "  token       z       p\n0     猫  0.1300  0.3673",
                                             "text/html": frame}, execution_count=4)]),
        v4.new_code_cell("1/0", execution_count=5, outputs=[
            v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                          traceback=["\x1b[0;31mZeroDivisionError\x1b[0m  Traceback", "Cell In[5], line 1"])]),
    ]
    nbformat.validate(nb)
    return nbformat.writes(nb)


NOTEBOOK_TEXT = """# Bigram

After ‘吃’ the model gives
p(鱼) = 0.3494.

```python
p = softmax(x @ W)
print(p)
loss
```
[0.3673 0.2832 0.3494]
>>> loss
1.0515

```python
df
```
|  | token | z | p |
| --- | --- | --- | --- |
| 0 | 猫 | 0.1300 | 0.3673 |

```python
1/0
```"""


def test_notebook_normal_form(tmp_path):
    # Markdown as it is, code fenced, outputs after the code as plain lines (a data frame as its table); no
    # In [3]:/Out[3]: prompts, no traceback; a plain result under '>>> loss', the expression it is the value of.
    doc = tmp_path / "nb.ipynb"
    doc.write_text(notebook(), encoding="utf-8")
    r = read(doc)
    assert (r.kind, r.text) == ("ipynb", NOTEBOOK_TEXT)
    assert "In [" not in r.text and "Out[" not in r.text and "Traceback" not in r.text
    assert r.origins[:13] == ["cell 1, line 1", "cell 1, line 2", "cell 1, line 3", "cell 1, line 4", "",
                              "cell 2", "cell 2, line 1", "cell 2, line 2", "cell 2, line 3", "cell 2",
                              "cell 2, output line 1", "cell 2", "cell 2, output line 2"]


def test_notebook_figures_through_check(tmp_path):
    doc = tmp_path / "nb.ipynb"
    doc.write_text(notebook(), encoding="utf-8")
    figures = [f for f in checked(doc) if f[0] not in ("0", "1")]       # (the frame's index 0, the code's 1/0)
    assert same(figures, [("0.3494", "p[鱼]"), ("0.3673", "p[猫]"), ("0.2832", "p[吃]"), ("0.3494", "p[鱼]"),
                          ("1.0515", "loss"), ("0.1300", "z[猫]"), ("0.3673", "p[猫]")])


def test_notebook_version_3_and_bad_notebooks(tmp_path):
    v3 = {"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": ["Loss"]},
        {"cell_type": "code", "input": ["loss"], "prompt_number": 1,
         "outputs": [{"output_type": "pyout", "prompt_number": 1, "text": ["1.0515"]}]}]}]}
    doc = tmp_path / "v3.ipynb"
    doc.write_text(json.dumps(v3), encoding="utf-8")
    assert read_document(doc) == "## Loss\n\n```python\nloss\n```\n>>> loss\n1.0515"
    for body, why in [("{\"cells\": [", "its JSON does not parse \\(line 1: Expecting value\\)"),
                      ("[1, 2]", "its JSON is no object"), ('{"cells": {}}', "it has no list of cells"),
                      ('{"cells": [{"cell_type": "code", "source": 5}]}', "cell 1's source is no string")]:
        doc.write_text(body, encoding="utf-8")
        with pytest.raises(InputError, match=f"^DOCUMENT {doc}: not a Jupyter notebook: {why}"):
            read_document(doc)


# ---------------------------------------------------------------- PDF

def test_pdf_from_latex_normal_form():
    # tests/data/readers.pdf (xelatex readers.tex): σ², 10⁻⁵, 10000^{2i/d} and √ on their lines, a table with
    # rules as a pipe table, headings from the larger type, a blank line between pages.
    r = read(DATA / "readers.pdf")
    lines = r.text.split("\n")
    assert lines[0] == "# 1  Forward pass"
    assert lines[2:4] == ["The model gives p(猫) = 0.3673, p(吃) = 0.2832 and p(鱼) = 0.3494, so the loss",
                          "is L = 1.0515."]
    assert lines[5].strip() == "Table 1: Logits and probabilities"
    assert lines[7:12] == ["| Token | z | p |", "| --- | --- | --- |", "| 猫 | 0.1300 | 0.3673 |",
                           "| 吃 | −0.1300 | 0.2832 |", "| 鱼 | 0.0800 | 0.3494 |"]
    assert lines[13].strip() == "LayerNorm divides by √σ^{2} + ε with σ^{2} = 0.25 and ε = 10^{−5}; the angle is"
    assert lines[14] == "t/10000^{2i/d}, and AdamW steps by m̂/(√v̂ + ϵ)."
    assert lines[16:] == ["# 2  Backward pass", "", "The gradient of the logits is p − y = (0.3673, 0.2832, −0.6506)."]
    assert (r.kind, r.origins[0], r.origins[15], r.origins[-1]) == ("pdf", "page 1", "", "page 2")


def test_pdf_figures_through_check():
    assert same(checked(DATA / "readers.pdf"), [
        ("0.3673", "p[猫]"), ("0.2832", "p[吃]"), ("0.3494", "p[鱼]"), ("1.0515", "loss"),
        ("0.1300", "z[猫]"), ("0.3673", "p[猫]"), ("−0.1300", "z[吃]"), ("0.2832", "p[吃]"),
        ("0.0800", "z[鱼]"), ("0.3494", "p[鱼]"),
        ("0.25", ANY), ("10^{-5}", ANY), ("10000", ANY),                 # σ² = 0.25: not 2, not 10 and −5
        ("0.3673", "grad_z[猫]"), ("0.2832", "grad_z[吃]"), ("−0.6506", "grad_z[鱼]")])


def hand_pdf() -> bytes:
    """A PDF written by hand: a heading, scripts set with the text rise (x₀, 10⁻⁵), a table drawn with rules,
    a chart's empty grid (no table), a second page."""
    text = (b"BT /F1 16 Tf 72 720 Td (Results) Tj ET "
            b"BT /F1 12 Tf 72 690 Td (The loss is 1.0515 and x) Tj /F1 8 Tf -2 Ts (0) Tj 0 Ts /F1 12 Tf "
            b"( = 0.3 with h = 10) Tj /F1 8 Tf 4 Ts (-5) Tj 0 Ts /F1 12 Tf (;) Tj ET "
            b"BT /F1 12 Tf 72 676 Td (the step is 0.5.) Tj ET ")
    xs, ys = [100, 180, 260, 340], [600, 580, 560, 540]
    grid = b"".join(b"%d %d m %d %d l S " % (xs[0], y, xs[-1], y) for y in ys) + \
        b"".join(b"%d %d m %d %d l S " % (x, ys[-1], x, ys[0]) for x in xs)
    for r, row in enumerate([["Token", "z", "p"], ["cat", "0.1300", "0.3673"], ["eat", "-0.1300", "0.2832"]]):
        grid += b"".join(b"BT /F1 10 Tf %d %d Td (%s) Tj ET " % (xs[c] + 5, ys[r] - 15, t.encode())
                         for c, t in enumerate(row))
    chart = b"".join(b"100 %d m 300 %d l S " % (y, y) for y in (300, 250, 200)) + \
        b"".join(b"%d 200 m %d 300 l S " % (x, x) for x in (100, 200, 300)) + \
        b"BT /F1 12 Tf 72 150 Td (Figure 1: an empty grid.) Tj ET"
    return tiny_pdf([text + grid + chart, b"BT /F1 12 Tf 72 720 Td (Page two: 0.2832.) Tj ET"])


def test_pdf_scripts_tables_and_pages():
    assert pdf_lines(io.BytesIO(hand_pdf())) == [
        ("# Results", 1), ("", 1),
        ("The loss is 1.0515 and x_{0} = 0.3 with h = 10^{-5};", 1), ("the step is 0.5.", 1), ("", 1),
        ("| Token | z | p |", 1), ("| --- | --- | --- |", 1), ("| cat | 0.1300 | 0.3673 |", 1),
        ("| eat | -0.1300 | 0.2832 |", 1), ("", 1), ("Figure 1: an empty grid.", 1), ("", None),
        ("Page two: 0.2832.", 2)]


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs pdftotext (poppler-utils)")
def test_bad_documents_are_one_error_naming_the_file(tmp_path):
    # A damaged PDF: pdfplumber fails, then pdftotext; one line names the file and both reasons, exit 2.
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4\n1 0 obj garbage\n")
    r = subprocess.run([sys.executable, "-m", "symgpt.check", str(bad), "--spec", "bigram"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert (r.returncode, r.stdout, len(r.stderr.strip().splitlines())) == (2, "", 1)
    assert r.stderr.startswith(f"error: DOCUMENT {bad}: pdfplumber could not read it (") and \
        "pdftotext could not read it" in r.stderr and "Traceback" not in r.stderr
    nb = tmp_path / "bad.ipynb"
    nb.write_text("{not json", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symgpt.check", str(nb), "--spec", "bigram"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.strip() == (f"error: DOCUMENT {nb}: not a Jupyter notebook: its JSON does not parse (line 1: "
                                f"Expecting property name enclosed in double quotes)")


def test_markdown_and_text_are_the_files_own(tmp_path):
    # Plain text is the file's own text; Markdown's paragraphs and # headings keep their lines as written
    # (full-width punctuation, tabs, trailing spaces), each at its line of the file (CRLF counts one line).
    body = "# §1\r\n\r\np（鱼）＝0.3494，\tloss = 1.0515  \n| a | b |\n"
    doc = tmp_path / "t.txt"
    doc.write_bytes(body.encode("utf-8"))
    r = read(doc)
    assert (r.text, r.kind, r.origins) == (body, "text", [])
    doc = tmp_path / "t.md"
    doc.write_bytes(body.encode("utf-8"))
    r = read(doc)
    assert r.kind == "markdown"
    assert r.text == "# §1\n\np（鱼）＝0.3494，\tloss = 1.0515  \n| a | b |"   # one pipe row and no rule: prose
    assert r.origins == ["line 1", "", "line 3", "line 4"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xelatex") is None, reason="needs xelatex (TeX Live with ctex)")
def test_pdf_fixture_is_its_tex(tmp_path):
    # tests/data/readers.pdf is what xelatex makes of tests/data/readers.tex: read the same.
    shutil.copy(DATA / "readers.tex", tmp_path / "readers.tex")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "readers.tex"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    assert read_document(tmp_path / "readers.pdf") == read_document(DATA / "readers.pdf")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
def test_pdflatex_fonts_without_a_unicode_table(tmp_path):
    # pdflatex without the cmap package: Computer Modern's math fonts carry no ToUnicode table, and pdfminer
    # reads a minus sign as (cid:0), × as (cid:2), √ as p; read by TeX's encodings, the figures keep their signs.
    (tmp_path / "m.tex").write_text(
        "\\documentclass{article}\\begin{document}\\pagestyle{empty}\n"
        "$z_1 = 0.3 \\times (-0.3) + (-0.1) \\times 0.4 = -0.13$ and $\\sqrt{\\sigma^2 + \\varepsilon}$ with "
        "$\\sigma^2 = 0.25$.\n\\end{document}\n", encoding="utf-8")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "m.tex"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    assert read_document(tmp_path / "m.pdf").strip() == \
        "z_{1} = 0.3 × (−0.3) + (−0.1) × 0.4 = −0.13 and √σ^{2} + ε with σ^{2} = 0.25."
