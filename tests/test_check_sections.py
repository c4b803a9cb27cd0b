"""check reads what a section is about, how a page shows its math and what a notebook prints, each reading on a
text written here in more than one language or format:

* AdamW's moments (and √v̂, which is |g| after one step) are values of the sections about AdamW only: a
  gradient printed with its sign flipped in the backward pass is that gradient, wrong, not √v̂;
* a plain text's marked titles (``■ 3．逆伝播``, ``【第2節】``) are sections;
* NumPy's arrays, entries set apart by spaces alone (``[ -0.16  0.24  0.37 ]``, ``[[a  b] [c  d]]``), give
  each entry its place;
* a LaTeX figure in a Markdown page's or a notebook's math (``$0{,}4665$``) is reported as it is shown
  (``0,4665``);
* a notebook cell that prints several tensors names each output by its print, and a print that picks rows
  (``W.grad[[1]]``, ``W.grad[1:]``) gives the rows it picked.

Every expected value is computed here with mpmath (the bigram of :mod:`test_check_readings`), never by symgpt.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from fractions import Fraction

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, _wrong, _wrong_of, by_hand, comma


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _flipped(v) -> str:
    s = r4(v)
    return s[1:] if s.startswith("-") else "-" + s


ADAMW_SECTION = {
    "md": "## 4. AdamW\n\nAdam keeps the moments m and v; after one step v̂ = g², so √v̂ = |g|: {root}.\n",
    "ja": "■ 4．AdamW\n\nAdam のモーメント m と v：一歩目は v̂ ＝ g² なので √v̂ ＝ |g| ＝ {root}。\n",
}
BACKWARD = {
    "md": "# A bigram, SGD and AdamW\n\n## 3. Backward\n\nThe gradient of W's first row:\n\n    dW[0] = [ {row} ]\n\n",
    "ja": "バイグラム：SGD と AdamW\n\n■ 3．逆伝播\n\nW の 0 行目の勾配：\n\n  dW[0] ＝ [ {row} ]\n\n",
}


@pytest.mark.parametrize("lang", ["md", "ja"])
def test_a_flipped_gradient_in_the_backward_pass_is_no_adamw_root(tmp_path, run, lang):
    """|g[0,2]| is √v̂ after one AdamW step: in the backward section a flipped g[0,2] is g's entry, wrong."""
    g = run["f0"]["gW"][0]
    row = "  ".join(_flipped(v) if j == 2 else r4(v) for j, v in enumerate(g))
    text = BACKWARD[lang].format(row=row) + ADAMW_SECTION[lang].format(root=r4(abs(g[2])))
    name = "doc.md" if lang == "md" else "doc.txt"
    assert _wrong(tmp_path, text, name) == [(f"grad_W[0,{VOCAB[2]}]", _flipped(g[2]))]


def test_numpy_arrays_set_apart_by_spaces_give_each_entry_its_place(tmp_path, run):
    """``[[a  b  …] [c  d  …]]`` on one line: rows and columns by place; the copied neighbour is wrong."""
    g = run["f0"]["gW"]
    rows = [[r4(v) for v in g[0]], [r4(v) for v in g[1]]]
    rows[1][3] = rows[1][2]                                   # a copy of the neighbouring entry
    assert r4(g[1][3]) != rows[1][3]
    text = "## Backward\n\n    dW = [[" + "  ".join(rows[0]) + "] [" + "  ".join(rows[1]) + "]]\n"
    assert _wrong(tmp_path, text, "doc.md") == [(f"grad_W[1,{VOCAB[3]}]", rows[1][3])]


@pytest.mark.parametrize("fmt", ["md", "ipynb"])
def test_latex_figures_in_rendered_math_are_reported_as_shown(tmp_path, run, fmt):
    """``$\\hat y_2 = 0{,}1234$`` on a page that renders its math: a slip reported as ``0,1234``."""
    p = run["f0"]["p"]
    bad = r4(p[2])
    bad = bad[:-1] + str((int(bad[-1]) + 3) % 10)
    lines = [f"Die Wahrscheinlichkeiten: $p_{{{VOCAB[0]}}} = {comma(r4(p[0])).replace(',', '{,}')}$ und "
             f"$p_{{{VOCAB[2]}}} = {comma(bad).replace(',', '{,}')}$."]
    if fmt == "md":
        doc = "\n".join(lines) + "\n"
    else:
        doc = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": lines}], "metadata": {},
                          "nbformat": 4, "nbformat_minor": 5})
    assert _wrong(tmp_path, doc, f"doc.{fmt}") == [(f"p[{VOCAB[2]}]", comma(bad))]


def _notebook(cells) -> str:
    out = []
    for source, printed in cells:
        out.append({"cell_type": "code", "execution_count": 1, "metadata": {}, "source": source,
                    "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]})
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _tensor(rows) -> list:
    body = ",\n        ".join("[" + ", ".join(f"{r4(v):>7}" for v in row) + "]" for row in rows)
    return [line + "\n" for line in f"tensor([{body}], dtype=torch.float64)".split("\n")]


@pytest.mark.parametrize("pick", ["[[1]]", "[1:]"])
def test_a_cell_printing_two_tensors_and_a_picked_row(tmp_path, run, pick):
    """``print(E.grad[0])`` then ``print(W.grad[[1]])``: the second output is W's row 1, one entry of it wrong;
    its other entries, and the first output's, are right (no false alarm)."""
    f = run["f0"]
    gW = [list(r) for r in f["gW"]]
    shown = [r4(v) for v in gW[1]]
    bad = _flipped(gW[1][4])
    printed = _tensor([f["gx"]]) + [x.replace(f"{r4(gW[1][4]):>7}", f"{bad:>7}") for x in _tensor([gW[1]])]
    assert any(bad in x for x in printed) and shown[4] != bad
    doc = tmp_path / "doc.ipynb"
    doc.write_text(_notebook([(["loss.backward()\n", "print(E.grad[0])\n", f"print(W.grad{pick})"], printed)]),
                   encoding="utf-8")
    spec = write_spec(tmp_path, SPEC)
    results = check(doc, spec)
    wrong = [(r.ref, r.number.printed or r.number.text) for r in results if r.verdict == "wrong"]
    assert wrong == [(f"grad_W[1,{VOCAB[4]}]", bad)]
    matched = {r.ref for r in results if r.verdict == "matched"}
    assert {f"grad_W[1,{VOCAB[j]}]" for j in range(4)} <= matched


def test_marked_titles_of_a_plain_text_are_sections(tmp_path, run):
    """Under ``【第3節】逆伝播`` a flipped gradient is g's, though the text's AdamW section comes later."""
    g = run["f0"]["gW"][0]
    text = ("【第3節】 逆伝播\n\n  dW[0] ＝ [ " + "  ".join(_flipped(v) if j == 2 else r4(v) for j, v in enumerate(g)) +
            " ]\n\n【第4節】 AdamW\n\nAdam：√v̂ ＝ |g| ＝ " + r4(abs(g[2])) + "\n")
    assert _wrong(tmp_path, text) == [(f"grad_W[0,{VOCAB[2]}]", _flipped(g[2]))]
    assert mp.mpf(r4(abs(g[2]))) > 0


@pytest.mark.parametrize("words", [("Выход внимания", "Остаточная связь прибавляет его ко входу"),
                                   ("The attention output is", "The residual adds it to the input")])
def test_a_sum_after_a_named_vector_in_one_paragraph_is_not_that_vector(tmp_path, two_heads, words):
    """``o₂ = (…). … x₂ + o₂ = (…)`` in one HTML paragraph: the second vector is the sum (H1's row), not o₂ again,
    so its correct entries are no false alarm; a slip in it is H1's."""
    path, f = two_heads
    attn, h1 = [r4(v) for v in f["Attn"][2]], [r4(v) for v in f["H1"][2]]
    bad = h1[1][:-1] + str((int(h1[1][-1]) + 4) % 10)
    shown = [comma(v) for v in h1[:1]] + [comma(bad)] + [comma(v) for v in h1[2:]]
    text = (f"<!doctype html>\n<html><body>\n<p>{words[0]} o<sub>2</sub> = ({'; '.join(comma(v) for v in attn)}). "
            f"{words[1]}:\nx<sub>2</sub> + o<sub>2</sub> = ({'; '.join(shown).replace('-', '&minus;')}).</p>\n"
            "</body></html>\n")
    assert _wrong_of(tmp_path, text, path, "doc.html") == [("H1[2,1]", comma(bad).replace("-", "−"))]


def test_a_mathml_figure_is_reported_on_its_own_source_line(tmp_path, run):
    """``<mn>1,6042</mn>`` on line 5 of a ``<math>`` block that starts on line 3 (decimal commas, as a line above
    shows): reported at line 5."""
    loss = run["f0"]["loss"]
    bad = r4(loss)[:-1] + str((int(r4(loss)[-1]) + 5) % 10)
    p = "; ".join(comma(r4(v)) for v in run["f0"]["p"])
    text = (f"<!doctype html>\n<html><body><p>p = ({p})</p>\n<math display=\"block\">\n  <mrow><mi>L</mi><mo>=</mo>\n"
            f"  <mn>{comma(bad)}</mn></mrow>\n</math>\n</body></html>\n")
    doc = tmp_path / "doc.html"
    doc.write_text(text, encoding="utf-8")
    wrong = [(r.ref, r.number.source) for r in check(doc, write_spec(tmp_path, SPEC)) if r.verdict == "wrong"]
    assert wrong == [("loss", 5)]


def _adamw_row(run):
    """W[0,2]'s first AdamW step by hand: (v̂, update, new value) as printed at 4 places."""
    f = run["f0"]
    W0 = run["states"][0][1]
    a = run["adamw"](W0[0][2], f["gW"][0][2])
    return r4(a["vhat"]), r4(a["update"]), r4(a["new"])


@pytest.mark.parametrize("layout", [
    "1. Forward\n\np = ({p})\n\n2. AdamW\n\n2.1 First step\n\nv̂ = {vhat}, update {upd}, W[0,2] becomes {new}.\n",
    "## 1. Forward\n\np = ({p})\n\n## 2. AdamW\n\n```python\n# one step\nopt.step()\n```\n\n"
    "v̂ = {vhat}, update {upd}, W[0,2] becomes {new}.\n",
    "■ 1．順伝播\n\np ＝ ({p})\n\n■ 2．AdamW\n\n■ 2.1 一歩目\n\nv̂ ＝ {vhat}，更新量 {upd}，W[0,2] は {new} になる。\n",
])
def test_subsections_and_code_comments_keep_their_sections_topic(tmp_path, run, layout):
    """A subsection (2.1 under 2., ■ 2.1 under ■ 2．) speaks of what its section does, and a comment in code is
    no title: AdamW's v̂ and new W[0,2] are read there (matched), the forward pass's p too, nothing wrong."""
    vhat, upd, new = _adamw_row(run)
    p = ", ".join(r4(v) for v in run["f0"]["p"])
    doc = tmp_path / ("doc.md" if layout.startswith("#") else "doc.txt")
    doc.write_text(layout.format(p=p, vhat=vhat, upd=upd, new=new), encoding="utf-8")
    results = check(doc, write_spec(tmp_path, SPEC))
    assert not [r for r in results if r.verdict == "wrong"]
    matched = {r.ref for r in results if r.verdict == "matched"}
    assert {f"adamw[1].W[0,{VOCAB[2]}]", "adamw[1].vhat[W,0,2]"} <= matched


def test_a_list_of_marked_items_is_no_list_of_titles(tmp_path, run):
    """``▶ …`` items under a numbered title about AdamW are that section's lines: the new W[0,2] is AdamW's."""
    vhat, upd, new = _adamw_row(run)
    p = ", ".join(r4(v) for v in run["f0"]["p"])
    text = (f"1. Forward\n\np = ({p})\n\n2. One AdamW step for W[0,2]\n\n▶ v̂ becomes {vhat}\n▶ the update is {upd}\n"
            f"▶ W[0,2] becomes {new}\n")
    doc = tmp_path / "doc.txt"
    doc.write_text(text, encoding="utf-8")
    results = check(doc, write_spec(tmp_path, SPEC))
    assert not [r for r in results if r.verdict == "wrong"]
    assert f"adamw[1].W[0,{VOCAB[2]}]" in {r.ref for r in results if r.verdict == "matched"}


@pytest.mark.parametrize("first", ["print(step)", "print(lr)"])
def test_a_print_that_shows_no_tensor_leaves_the_tensors_unnamed_by_order(tmp_path, run, first):
    """``print(step)`` before ``print(W.grad[0])`` and ``print(W.grad[1])``: the names are not given out in order
    (the first output is no tensor), and a flipped entry of row 1 is still W's gradient, wrong."""
    gW = run["f0"]["gW"]
    bad = _flipped(gW[1][3])
    row = [f"tensor([{', '.join(f'{r4(v):>7}' for v in r)}])\n" for r in gW]       # a row prints as a vector
    out = ["1\n", row[0], row[1].replace(f"{r4(gW[1][3]):>7}", f"{bad:>7}")]
    doc = tmp_path / "doc.ipynb"
    doc.write_text(_notebook([([f"{first}\n", "print(W.grad[0])\n", "print(W.grad[1])"], out)]), encoding="utf-8")
    wrong = [(r.ref, r.number.printed or r.number.text) for r in check(doc, write_spec(tmp_path, SPEC))
             if r.verdict == "wrong"]
    assert wrong == [(f"grad_W[1,{VOCAB[3]}]", bad)]


def test_a_single_print_that_picks_a_row(tmp_path, run):
    """``print(W.grad[[1]])`` alone in its cell: the output is row 1 of W's gradient."""
    gW = run["f0"]["gW"]
    bad = _flipped(gW[1][3])
    out = [x.replace(f"{r4(gW[1][3]):>7}", f"{bad:>7}") for x in _tensor([gW[1]])]
    doc = tmp_path / "doc.ipynb"
    doc.write_text(_notebook([(["loss.backward()\n", "print(W.grad[[1]])"], out)]), encoding="utf-8")
    wrong = [(r.ref, r.number.printed or r.number.text) for r in check(doc, write_spec(tmp_path, SPEC))
             if r.verdict == "wrong"]
    assert wrong == [(f"grad_W[1,{VOCAB[3]}]", bad)]


def test_numpy_negative_entries_after_one_space(tmp_path, run):
    """``[[ 0.1648  0.0990 -0.1419 …] [-0.0824 …]]``: a sign after one space starts an entry; the slip is
    W's gradient at its own place."""
    g = run["f0"]["gW"]
    rows = [[f"{r4(v):>7}" for v in g[0]], [f"{r4(v):>7}" for v in g[1]]]
    bad = r4(g[1][3])[:-1] + str((int(r4(g[1][3])[-1]) + 1) % 10)
    rows[1][3] = f"{bad:>7}"
    text = "## Backward\n\n    dW = [[" + " ".join(rows[0]) + "]\n          [" + " ".join(rows[1]) + "]]\n"
    assert any(c.startswith(" -") or c.startswith("-") for c in rows[0] + rows[1])
    assert _wrong(tmp_path, text, "doc.md") == [(f"grad_W[1,{VOCAB[3]}]", bad)]


@pytest.mark.parametrize("words", [("점수", "쿼리", "키"), ("Scores", "Anfrage", "Schlüssel"),
                                   ("scores", "requête", "clé")])
def test_a_score_table_by_query_and_key_in_other_languages(tmp_path, two_heads, words):
    """| scores | key 1 | … | over rows 'query 1' …, the words in Korean, German or French: rows are queries,
    columns keys (from 1); the transposed entry is S[0,2,1]'s, wrong."""
    path, f = two_heads
    S = f["S"][0]
    cells = [[r4(S[t][s]) for s in range(3)] for t in range(3)]
    cells[2][1] = r4(S[1][2])
    rows = [f"| {words[1]} {t + 1} | " + " | ".join(cells[t]) + " |" for t in range(3)]
    text = "\n".join([f"| {words[0]} | " + " | ".join(f"{words[2]} {s + 1}" for s in range(3)) + " |",
                      "|---|---:|---:|---:|", *rows, ""])
    assert r4(S[1][2]) != r4(S[2][1])
    assert _wrong_of(tmp_path, "## Kopf 1\n\n" + text, path) == [("S[0,2,1]", r4(S[1][2]))]


@pytest.fixture(scope="module")
def distinct_heads(tmp_path_factory):
    """A one-layer, two-head transformer whose input tokens are distinct (t1 t4 t0: tests/oracle.py, seed 1)."""
    path = write_spec(tmp_path_factory.mktemp("distinct"),
                      oracle.random_spec_toml(seed=1, V=5, d=4, heads=2, d_ff=4, layers=1, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


@pytest.mark.parametrize("text", [
    "Dans la tête 1, « t0 » consacre {a} % de son\nattention à « t1 », et la tête 2 garde {b} % pour\n« t0 » lui-même.",
    "In head 1, “t0” gives {a} % of its\nattention to “t1”, and head 2 keeps {b} % for\n“t0” itself."])
def test_a_share_given_by_one_token_to_another_over_a_line_break(tmp_path, distinct_heads, text):
    """The query named before the share (t0, position 2), the key after it on the next line (t1, position 0),
    heads from 1, and a residual stream written h^{(0)}, h^{(1)} (no heads): head 1's share is A[0,2,0], right;
    head 2's own share, slipped by ten, is A[1,2,2]'s, wrong."""
    path, f = distinct_heads
    A = f["A"]
    a, b = mp.nstr(100 * A[0][2][0], 4, strip_zeros=False), mp.nstr(10 * A[1][2][2], 3, strip_zeros=False)
    doc = ("## Attention\n\nThe stream $h^{(0)}_t$ becomes $h^{(1)}_t$ after the block.\n\n" +
           text.format(a=a, b=b) + "\n")
    doc_path = tmp_path / "doc.md"
    doc_path.write_text(doc, encoding="utf-8")
    results = check(doc_path, path)
    assert [(r.ref, r.number.value) for r in results if r.verdict == "wrong"] == [("A[1,2,2]", Fraction(b))]
    assert ("A[0,2,0]", Fraction(a)) in [(r.ref, r.number.value) for r in results if r.verdict == "matched"]


@pytest.mark.parametrize("space", [r"\qquad", r"\quad"])
def test_matrices_side_by_side_are_each_their_own(tmp_path, space):
    """``$$E = \\begin{bmatrix}…\\end{bmatrix} \\qquad W = \\begin{bmatrix}…\\end{bmatrix}$$``, every entry right:
    W's entries are W's (no false alarm from reading them as E's)."""
    w = tomllib.loads(SPEC, parse_float=str)["weights"]                     # the weights as the spec writes them

    def bmatrix(rows):
        return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(str(x) for x in r) for r in rows) + r"\end{bmatrix}"
    text = f"## Weights\n\n$$E = {bmatrix(w['E'])} {space} W = {bmatrix(w['W'])}$$\n"
    assert _wrong(tmp_path, text, "doc.md") == []


def test_a_share_compared_to_another_token_is_no_share_given_to_it(tmp_path, distinct_heads):
    """'… mostly on “t4”: a %, compared to “t1”, which gets only b %': the shares of t4 and t1, not t4's share
    given to t1 (that reading needs 'attention to' in the same clause)."""
    path, f = distinct_heads
    A = f["A"][0][2]
    a, b = mp.nstr(100 * A[1], 4, strip_zeros=False), mp.nstr(100 * A[0], 3, strip_zeros=False)
    text = (f"## Attention\n\nIn head 1 the last position puts its attention mostly on “t4”: {a} %, compared to "
            f"“t1”, which gets only {b} %.\n")
    assert _wrong_of(tmp_path, text, path) == []


@pytest.mark.parametrize("verb", ["the loss becomes L = {bad}", "daraus wird der Verlust L = {bad}"])
def test_becomes_outside_a_training_section_is_no_step(tmp_path, run, verb):
    """'so the loss becomes L = …' in the forward pass, an SGD section further on: a slip there is the loss's, not
    the loss after a step."""
    loss = r4(run["f0"]["loss"])
    bad = loss[:-1] + str((int(loss[-1]) + 1) % 10)
    text = (f"## 1. Forward\n\nWith p as above, {verb.format(bad=bad)}.\n\n## 2. SGD\n\nOne step with learning rate "
            f"0.5 follows.\n")
    assert _wrong(tmp_path, text, "doc.md") == [("loss", bad)]


def test_a_head_as_a_superscript_on_a_name_of_the_text(tmp_path, distinct_heads):
    """``P^{(2)}_{2,1}`` among ``P^{(h)}_{t,s}`` (heads, positions from 1): head 2's A[1,1,0], a slip there wrong."""
    path, f = distinct_heads
    A = f["A"]
    entries = [(1, 1, 1), (1, 2, 1), (1, 2, 2), (2, 2, 2), (2, 2, 1)]
    cells = {e: r4(A[e[0] - 1][e[1] - 1][e[2] - 1]) for e in entries}
    good = cells[(2, 2, 1)]
    cells[(2, 2, 1)] = good[:-1] + str((int(good[-1]) + 1) % 10)
    text = "## Attention\n\n" + ", ".join(f"$P^{{({h})}}_{{{t},{s}}} = {v}$" for (h, t, s), v in cells.items()) + ".\n"
    assert _wrong_of(tmp_path, text, path) == [("A[1,1,0]", cells[(2, 2, 1)])]


@pytest.mark.parametrize("words", [("Il modello preferisce «{a}», con il {pa} %, a «{b}», con il {pb} %.", "it"),
                                   ("The model prefers “{a}”, with {pa} %; “{b}” gets {pb} %.", "en")])
def test_a_tokens_percentage_in_a_section_with_a_logits_table_is_its_share(tmp_path, run, words):
    """A section whose table lists z, e^z and p by token, then prose giving two tokens' percentages: shares (p),
    never logits; a slip in one is p's."""
    f = run["f0"]
    z, p = f["z"], f["p"]
    rows = "\n".join(f"| «{t}» | {comma(r4(z[j]))} | {comma(r4(mp.exp(z[j])))} | {comma(r4(p[j]))} |"
                     for j, t in enumerate(VOCAB))
    pa, pb = mp.nstr(100 * p[2], 4, strip_zeros=False), mp.nstr(100 * p[3], 4, strip_zeros=False)
    bad = pb[:-1] + str((int(pb[-1]) + 1) % 10)
    text = ("## Output\n\n| token | $z_v$ | $e^{z_v}$ | $p_v$ |\n|---|---:|---:|---:|\n" + rows + "\n\n" +
            words[0].format(a=VOCAB[2], b=VOCAB[3], pa=comma(pa), pb=comma(bad)) + "\n")
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    wrong = [(r.ref, r.number.value) for r in check(doc, write_spec(tmp_path, SPEC)) if r.verdict == "wrong"]
    assert wrong == [(f"p[{VOCAB[3]}]", Fraction(bad))]          # (the figure's value in printed units)


@pytest.mark.parametrize("env", ["align*", "aligned"])
def test_exponentials_in_a_latex_alignment(tmp_path, run, env):
    """``e^{z} &= value`` in an alignment (Spanish LaTeX): exp of the logit the exponent is; one cut, not rounded,
    is exp(z)'s, truncated."""
    z = run["f0"]["z"]
    cells = [(r4(v), r4(mp.exp(v))) for v in z[:4]]
    cut = {j: mp.nstr(mp.floor(mp.exp(z[j]) * 10 ** 4) / 10 ** 4, 5) for j in range(4)}
    j = next(j for j in range(4) if cut[j] != cells[j][1])            # an entry whose cut differs from its rounding
    cells[j] = (cells[j][0], cut[j])
    rows = r" \\ ".join(" & ".join(f"e^{{{a}}} &= {b}" for a, b in cells[k:k + 2]) for k in (0, 2))
    text = (f"\\documentclass{{article}}\n\\begin{{document}}\n\\section{{Softmax}}\n"
            f"\\begin{{{env}}}\n{rows}\n\\end{{{env}}}\n\\end{{document}}\n")
    got = [(r.ref, r.cause) for r in _results(tmp_path, text, "doc.tex") if r.verdict == "wrong"]
    assert got == [(f"exp(z[{VOCAB[j]}])", "truncation")]


def _results(tmp_path, text, name):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return check(doc, write_spec(tmp_path, SPEC))


FORMULA_NAMES = {
    "ko": "## 7. 피드포워드 (마지막 위치)\n\n- $z = u W_1 + b_1$ = ({z})\n- $f = \\max(0, z) W_2 + b_2$ = ({f})\n\n"
          "## 9. 로짓\n\n토큰 $v$의 로짓은 $z_v = h \\cdot e_v$입니다: {logits}.\n",
    "en": "## 7. The feed-forward layer, last position\n\nz = u·W_1 + b_1 = [{z}]\nf = relu(z)·W_2 + b_2 = "
          "[{f}]\n\n## 9. Logits\n\nThe logit of token v is z_v = h · e_v: {logits}.\n",
}


@pytest.mark.parametrize("lang", list(FORMULA_NAMES))
def test_a_formula_names_its_result_whatever_its_letter_means_elsewhere(tmp_path, distinct_heads, lang):
    """``z = u W_1 + b_1 = (…)``: W_1 and b_1 make Z, so the vector is Z's last row, not the logits the letter z
    names in the rest of the text (z_v = h·e_v), and its four right entries raise no false alarm;
    ``f = … W_2 + b_2`` with one entry slipped is F's, wrong."""
    path, fw = distinct_heads
    Z, F = fw["Z"][-1], fw["F"][-1]
    f = [mp.nstr(v, 3, strip_zeros=False) if abs(v) < 1 else mp.nstr(v, 4, strip_zeros=False) for v in F]
    good = f[1]
    f[1] = good[:-1] + str((int(good[-1]) + 4) % 10)
    z = ", ".join(mp.nstr(v, 3, strip_zeros=False) if abs(v) < 1 else mp.nstr(v, 4, strip_zeros=False) for v in Z)
    doc = tmp_path / "doc.md"
    logits = ", ".join(f"$z_{{t{v}}} = {mp.nstr(x, 4, strip_zeros=False)}$" for v, x in enumerate(fw["logits"]))
    doc.write_text(FORMULA_NAMES[lang].format(z=z, f=", ".join(f), logits=logits), encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.number.value) for r in results if r.verdict == "wrong"] == [("F[2,1]", Fraction(f[1]))]
    z_line = [r for r in results if r.number.line == 3]
    assert len(z_line) >= 4 and all(r.verdict in ("matched", "ambiguous") and r.ref.startswith("Z[")
                                    for r in z_line if r.number.value != 1), [(r.verdict, r.ref) for r in z_line]
    assert sum(r.ref.startswith("logits") and r.verdict == "matched" for r in results) == len(fw["logits"])


@pytest.mark.parametrize("lang", list(FORMULA_NAMES))
def test_the_reading_of_a_formula_is_the_tensor_its_parameters_make(distinct_heads, lang):
    """Where the text's notation makes z the logits (z_v = h·e_v), the place ``z = u W_1 + b_1 = (…)`` still
    names Z: the label the reading gives each entry is Z's, and ``f = … W_2 + b_2``'s is F's."""
    import symgpt
    from symgpt.claims.extract import extract
    from symgpt.claims.labels import labels
    from symgpt.claims.match import made_by
    path, _ = distinct_heads
    spec = symgpt.load(str(path)).spec
    text = FORMULA_NAMES[lang].format(z="0.597, -1.353, 0.629, 0.882", f="-0.489, 1.208, -0.0288, -1.779",
                                      logits="$z_{t0} = -1.411$")
    numbers = extract(text)
    names = set(spec.params) | {"Z", "F", "logits", "LN1", "R"}
    read = labels(text, numbers, list(spec.vocab), names, spec.params, [], made_by(spec))
    on = {line: [str(read[n.index]).partition("[")[0] for n in numbers if n.line == line and n.index in read]
          for line in (3, 4)}
    assert on[3] == ["Z"] * 4 and on[4] == ["F"] * 4, on


def _prenorm_norms(spec):
    """A pre-norm model's last position: each block's second norm's μ and σ² and the final norm's, by hand (mpmath,
    50 digits), and the loss (to hold this forward against PyTorch's)."""
    m, w = spec["model"], spec["weights"]
    with mp.workdps(50):
        ids = oracle.token_ids(spec, spec["data"]["input"])
        E = oracle.mat(w["E"])
        H = oracle.add([E[i] for i in ids], oracle.positional_encoding(len(ids), int(m["d"]), 10000))
        eps = oracle.num(m["ln_eps"])
        stats = []
        for layer in spec["layer"]:
            P = oracle.layer_weights(layer, int(m["d"]))
            L1, _, _ = oracle.layer_norm_rows(H, P["gamma1"], P["beta1"], eps)
            Q, K, V = (oracle.matmul(L1, P[k]) for k in ("W_Q", "W_K", "W_V"))
            A = [oracle.softmax([mp.fdot(Q[t], K[s]) / mp.sqrt(int(m["d"])) for s in range(t + 1)])
                 for t in range(len(H))]
            H1 = oracle.add(H, [[mp.fsum(A[t][s] * V[s][c] for s in range(t + 1)) for c in range(len(V[0]))]
                                for t in range(len(H))])
            L2, mu2, var2 = oracle.layer_norm_rows(H1, P["gamma2"], P["beta2"], eps)
            Z = [[z + b for z, b in zip(row, P["b_1"])] for row in oracle.matmul(L2, P["W_1"])]
            F = [[f + b for f, b in zip(row, P["b_2"])] for row in oracle.matmul([[max(z, 0) for z in r] for r in Z],
                                                                                 P["W_2"])]
            H = oracle.add(H1, F)
            stats.append((mu2[-1], var2[-1]))
        ones = [mp.mpf(1)] * len(H[0])
        Hf, mu_f, var_f = oracle.layer_norm_rows(H, ones, [mp.mpf(0)] * len(H[0]), eps)
        p = oracle.softmax([mp.fdot(Hf[-1], e) for e in E])
        loss = -mp.log(p[oracle.token_ids(spec, [spec["data"]["target"]])[0]])
    return stats, (mu_f[-1], var_f[-1]), loss


NORMS_BY_SECTION = {
    "it": "4.3 MLP dello strato 2\n----------------------\n\n"
          ":math:`\\mathrm{{LN}}_2(u^{{(2)}}_3)` ha :math:`\\mu = {mu}` e :math:`\\sigma^2 = {var}`.\n\n"
          "5. LayerNorm finale\n===================\n\nPer :math:`h^{{(2)}}_3`: "
          ":math:`\\mu = {muf}`, :math:`\\sigma^2 = {varf}`.\n",
    "en": "### 4.3 The MLP of layer 2\n\nIts norm LN₂(u₃) has μ = {mu} and σ² = {var}.\n\n## 5. The final LayerNorm\n\n"
          "For h₃: μ = {muf}, σ² = {varf}.\n",
}


@pytest.mark.parametrize("lang", list(NORMS_BY_SECTION))
def test_a_blocks_norm_mean_is_read_in_its_section_not_the_final_norms(tmp_path, lang):
    """μ and σ² with no index, once under layer 2's MLP and once under the final norm of a pre-norm model: the
    first pair is l1.mu2's and l1.var2's (its σ² slipped: wrong), the second mu_f's and var_f's; μ is a name of
    a block's norm too, not only of the final norm, which alone has no layer's prefix."""
    import torch_oracle
    text = oracle.random_spec_toml(seed=61, V=5, d=4, heads=1, d_ff=4, layers=2, T=3, norm="pre")
    path = write_spec(tmp_path, text)
    spec = oracle.load_spec(str(path))
    stats, (mu_f, var_f), loss = _prenorm_norms(spec)
    assert abs(float(loss) - torch_oracle.transformer_torch(spec, learnable_ln=True)[0].item()) < 1e-12
    mu, var = stats[1]
    sep = "{,}" if lang == "it" else "."          # LaTeX's decimal comma in the Italian page
    four = lambda x: mp.nstr(x, 5, strip_zeros=False).replace(".", sep)      # noqa: E731   (1{,}3481)
    bad = four(var)[:-1] + str((int(four(var)[-1]) + 5) % 10)
    doc = tmp_path / ("doc.rst" if lang == "it" else "doc.md")
    doc.write_text(NORMS_BY_SECTION[lang].format(mu=four(mu), var=bad, muf=four(mu_f), varf=four(var_f)),
                   encoding="utf-8")
    results = check(doc, path)
    assert [r.ref for r in results if r.verdict == "wrong"] == ["l1.var2[2]"]
    matched = {r.ref for r in results if r.verdict == "matched"}
    assert {"l1.mu2[2]", "mu_f[2]", "var_f[2]"} <= matched, [(r.ref, r.verdict) for r in results]


FORGOTTEN_Y = {
    "md": "## 9. Gradient ở tầng đầu ra\n\n∂L/∂zᵥ = pᵥ − yᵥ:\n\n| | t0 | t1 | t2 | t3 | t4 |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: |\n| ∂L/∂zᵥ | {row} |\n",
    "tex": "\\subsection{{Gradient of the logits}}\n\nWith $\\partial\\mathcal{{L}}/\\partial\\ell_v = P(v) - y_v$:\n"
           "\\begin{{equation*}}\n  \\frac{{\\partial\\mathcal{{L}}}}{{\\partial\\boldsymbol{{\\ell}}}} =\n"
           "  \\begin{{bmatrix}} {row} \\end{{bmatrix}}.\n\\end{{equation*}}\n",
}


@pytest.mark.parametrize("fmt", list(FORGOTTEN_Y))
def test_the_logits_gradient_under_a_running_index_or_script_ell_with_the_target_printed_as_p(tmp_path,
                                                                                            distinct_heads, fmt):
    """A row labelled ``∂L/∂zᵥ`` (a running index after the name, the columns giving v), or a vector
    ``\\frac{∂ℒ}{∂ℓ} =`` whose name ends the line above its matrix (ℓ: the logits): its entries are the gradient,
    and the target's, printed as p there, is the gradient with its −y forgotten (wrong), not p."""
    path, fw = distinct_heads
    p, y = fw["p"], 2                       # target t2
    row = [mp.nstr(v - (1 if j == y else 0), 4, strip_zeros=False) for j, v in enumerate(p)]
    row[y] = mp.nstr(p[y], 4, strip_zeros=False)                  # p instead of p − 1
    doc = tmp_path / ("doc.md" if fmt == "md" else "doc.tex")
    doc.write_text(FORGOTTEN_Y[fmt].format(row=(" | " if fmt == "md" else " & ").join(row)), encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("grad_logits[t2]", "forgotten −y")]
    assert {f"grad_logits[t{j}]" for j in (0, 1, 3, 4)} <= {r.ref for r in results if r.verdict == "matched"}


QUERY_SENTENCE = {
    "zh": "## 6. 注意力\n\n每一行加起来都是 1，位置 0 只能看自己。看最后一行（「t0」作查询）：头 0 把 {a}% 的注意力"
          "给「t1」、{b}% 给「t4」、{c}% 给自己。\n",
    "de": "## 6. Aufmerksamkeit\n\nJede Zeile summiert sich zu 1, Position 0 sieht nur sich selbst. Letzte Zeile, "
          "„t0“ als Query: Kopf 0 gibt {a} % seiner Aufmerksamkeit an „t1“, {b} % an „t4“ und {c} % an sich selbst.\n",
}


@pytest.mark.parametrize("lang", list(QUERY_SENTENCE))
def test_shares_listed_after_the_query_a_sentence_names(tmp_path, distinct_heads, lang):
    """The last row's query named once (「t0」作查询, „t0“ als Query), its shares listed after it, each given to a
    key (给「t1」、… 给「t4」, an „t1“ …) or to itself; a position named in the sentence before does not count, and
    a figure after an ideographic comma (``、5.77%``) is one figure.  The slipped share (÷ 10) is A[0,2,1], wrong."""
    path, fw = distinct_heads
    A = fw["A"][0][2]                                   # head 0, query t0 (position 2): keys t1, t4, t0
    pct = lambda x: mp.nstr(100 * x, 3, strip_zeros=False)      # noqa: E731
    a, b, c = pct(A[0]), mp.nstr(10 * A[1], 3, strip_zeros=False), pct(A[2])
    if lang == "de":
        a, b, c = (x.replace(".", ",") for x in (a, b, c))
    doc = tmp_path / "doc.md"
    doc.write_text(QUERY_SENTENCE[lang].format(a=a, b=b, c=c), encoding="utf-8")
    results = check(doc, path)
    assert [r.ref for r in results if r.verdict == "wrong"] == ["A[0,2,1]"], [(r.ref, r.verdict) for r in results]
    assert {"A[0,2,0]", "A[0,2,2]"} <= {r.ref for r in results if r.verdict == "matched"}


UNBIASED = {
    "md": "## 6. LayerNorm\n\n$$\\mu = \\frac{{{sum}}}{{4}} = {mu}$$\n\n"
          "$$\\sigma^2 = \\frac{{{squares}}}{{4 - 1}} = {var}$$\n",
    "tex": "\\subsection{{The first norm}}\nIts mean is ${mu}$ and its variance\n\\begin{{equation*}}\n"
           "  \\sigma^{{2}} = \\tfrac13\\sum_{{j=1}}^{{4}}(h_{{3,j}} - {mu})^{{2}} = {var},\n\\end{{equation*}}\n",
}


@pytest.mark.parametrize("fmt", list(UNBIASED))
def test_an_unbiased_variance_beside_its_mean_is_that_norms_variance_wrong(tmp_path, distinct_heads, fmt):
    """σ² divided by d − 1, its mean printed on its line as an operand or on the line above (``Its mean is …``),
    its sum written with ``\\tfrac13\\sum_{j=1}^{4}``: no variance rounds to it, the mean names the norm and the
    position, so it is var1[2], wrong, an unbiased variance."""
    path, fw = distinct_heads
    h, mu, var = fw["H1"][2], fw["mu1"][2], fw["var1"][2]
    f4 = lambda x: mp.nstr(x, 4, strip_zeros=False)      # noqa: E731
    text = UNBIASED[fmt].format(sum=" + ".join(f4(x) for x in h), mu=f4(mu), var=f4(var * 4 / 3),
                                squares=" + ".join(f"({f4(x)} - {f4(mu)})^2" for x in h))
    doc = tmp_path / ("doc.md" if fmt == "md" else "doc.tex")
    doc.write_text(text, encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("var1[2]", "unbiased variance")], \
        [(r.number.text, r.ref, r.verdict) for r in results]


@pytest.mark.parametrize("text", [
    "## 5. SGD\n\nAdımdan sonra $W^{{(1)}} = $ [[{row0}], [{row1}]]\n",
    "## 5. SGD\n\nNach dem Schritt: W⁽¹⁾ = [[{row0}], [{row1}]]\n"])
def test_a_step_superscript_with_no_index_after_it_names_the_state(tmp_path, run, text):
    """``W^{(1)} = [[…]]`` (the step's superscript and nothing after it: once a crash): the bigram's W after the
    first SGD step, one entry of it slipped and wrong."""
    W1 = run["states"][1][1]
    rows = [[r4(v) for v in row] for row in W1]
    bad = rows[1][2][:-1] + str((int(rows[1][2][-1]) + 3) % 10)
    rows[1][2] = bad
    assert _wrong(tmp_path, text.format(row0=", ".join(rows[0]), row1=", ".join(rows[1])), "doc.md") == \
        [(f"sgd[1].W[1,{VOCAB[2]}]", bad)]


NUMBERED_COLUMNS = {
    "booktabs": "\\begin{{tabular}}{{lrrrr}}\n\\toprule\n$j$ & 1 & 2 & 3 & 4 \\\\\n\\midrule\n"
                "$\\partial\\mathcal{{L}}/\\partial\\gamma_{{f,j}}$ & {row} \\\\\n\\bottomrule\n\\end{{tabular}}\n",
    "hline": "\\begin{{tabular}}{{|l|c|c|c|c|}}\n\\hline\n$k$ & 1 & 2 & 3 & 4 \\\\ \\hline\n"
             "$\\partial \\mathcal{{L}} / \\partial \\gamma_{{f,k}}$ & {row} \\\\ \\hline\n\\end{{tabular}}\n",
}


@pytest.mark.parametrize("rule", list(NUMBERED_COLUMNS))
def test_a_latex_table_with_numbered_columns_and_a_row_of_one_gradient(tmp_path, rule):
    """A tabular whose first row numbers the columns (``$j$ & 1 & 2 & 3 & 4``, ruled off below) is its header,
    and a row labelled ``∂ℒ/∂γ_{f,j}`` is the final norm's gain's gradient, j over the columns: its first entry,
    sign-flipped, is grad_gamma_f[0], wrong (PyTorch float64's gradient, learnable norms, is the reference)."""
    import torch_oracle
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=61, V=5, d=4, heads=1, d_ff=4, layers=2, T=3,
                                                        norm="pre"))
    loss, params = torch_oracle.transformer_torch(oracle.load_spec(str(path)), learnable_ln=True)
    loss.backward()
    g = [f"{x:.4f}" for x in params["gamma_f"].grad.tolist()]
    assert all(abs(float(x)) >= 0.001 for x in g)
    flipped = g[0][1:] if g[0].startswith("-") else "-" + g[0]
    doc = tmp_path / "doc.tex"
    doc.write_text("\\section{Final norm}\n" + NUMBERED_COLUMNS[rule].format(row=" & ".join([flipped] + g[1:])),
                   encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("grad_gamma_f[0]", "sign flip")]
    assert {f"grad_gamma_f[{j}]" for j in (1, 2, 3)} <= {r.ref for r in results if r.verdict == "matched"}


LATIN = ["le", "chat", "mange", "la", "souris"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
@pytest.mark.parametrize("rules", ["hline", "booktabs", "boxed"])
def test_a_pdf_table_ruled_only_around_its_header_keeps_its_rows(tmp_path, run, rules):
    """A LaTeX table ruled above and below its header and at its end, compiled by pdflatex: pdfplumber finds one
    drawn row holding the whole body, which the reader splits back into a row per line; each token's p and
    ∂L/∂z is then its own, and the slipped gradient of 'souris' is grad_z's, wrong."""
    f = run["f0"]
    g = [r4(v) for v in (f["p"][j] - (1 if j == 3 else 0) for j in range(5))]
    bad = g[4][:-1] + str((int(g[4][-1]) + 3) % 10)
    top, mid, end = ("\\hline", "\\hline", "\\hline") if rules != "booktabs" else \
        ("\\toprule", "\\midrule", "\\bottomrule")
    spec_cols = "|l|c|c|" if rules == "boxed" else "lcc"          # column rules: pdfplumber finds the table
    body = "\n".join(f"{w} & {r4(f['p'][j])} & {bad if j == 4 else g[j]} \\\\" for j, w in enumerate(LATIN))
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\n" + ("\\usepackage{booktabs}\n" if rules == "booktabs" else "") +
        "\\begin{document}\\pagestyle{empty}\n\\section{Backward}\n"
        f"\\begin{{tabular}}{{{spec_cols}}}\n{top}\nmot & $p$ & $\\partial L/\\partial z$ \\\\\n{mid}\n{body}\n{end}\n"
        "\\end{tabular}\n\\end{document}\n", encoding="utf-8")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    spec = SPEC.replace(str(VOCAB).replace("'", '"'), str(LATIN).replace("'", '"')) \
        .replace('"кот"', '"le"').replace('"пьёт"', '"la"')
    results = check(tmp_path / "t.pdf", write_spec(tmp_path, spec))
    assert [(r.ref, r.number.value) for r in results if r.verdict == "wrong"] == [("grad_z[souris]", Fraction(bad))]
    assert {f"p[{w}]" for w in LATIN} <= {r.ref for r in results if r.verdict == "matched"}


def test_a_table_cell_holding_a_vector_gives_each_entry_its_component(tmp_path, distinct_heads):
    """``| 2 | 0.9087    0.1317 | …``: a cell under q_i prints the row's two components; the first of one cell,
    slipped, is Q[1,0], wrong, and its neighbours are right (no entry read as the other component)."""
    path, fw = distinct_heads
    Q = fw["Q"]
    cells = [[mp.nstr(Q[t][c], 4, strip_zeros=False) for c in (0, 1)] for t in range(3)]
    good = cells[1][0]
    cells[1][0] = good[:-1] + str((int(good[-1]) + 4) % 10)
    rows = "".join(f"| {t + 1} | {cells[t][0]}    {cells[t][1]} |\n" for t in range(3))
    doc = tmp_path / "doc.md"
    doc.write_text("## 3. Queries\n\n| i | q_i (first two components) |\n| --- | --- |\n" + rows, encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.number.value) for r in results if r.verdict == "wrong"] == [("Q[1,0]", Fraction(cells[1][0]))]
    assert {"Q[0,0]", "Q[0,1]", "Q[1,1]", "Q[2,0]", "Q[2,1]"} <= {r.ref for r in results if r.verdict == "matched"}


MATHJAX_ROW = {
    "html": "<h2>Backward</h2>\n<table>\n<tr><th>\\(v\\)</th>{heads}</tr>\n"
            "<tr><td>\\(\\partial\\mathcal{{L}}/\\partial z_v\\)</td>{cells}</tr>\n</table>\n",
    "md": "## Rétropropagation\n\n| \\(v\\) | {heads} |\n| --- | --- | --- | --- | --- | --- |\n"
          "| \\(\\partial\\mathcal{{L}}/\\partial z_v\\) | {cells} |\n",
}


@pytest.mark.parametrize("fmt", list(MATHJAX_ROW))
def test_a_mathjax_row_label_over_quoted_token_columns(tmp_path, distinct_heads, fmt):
    """A row labelled in MathJax's ``\\( … \\)`` over columns headed by quoted tokens (「t0」, « t0 »): the
    gradient of the logits, each token's own; the target's printed as p is the gradient with −y forgotten."""
    path, fw = distinct_heads
    p, y = fw["p"], 2
    vals = [mp.nstr(v - (1 if j == y else 0), 4, strip_zeros=False) for j, v in enumerate(p)]
    vals[y] = mp.nstr(p[y], 4, strip_zeros=False)
    if fmt == "html":
        heads = "".join(f"<th>「t{j}」</th>" for j in range(5))
        cells = "".join(f"<td>{v}</td>" for v in vals)
    else:
        heads = " | ".join(f"« t{j} »" for j in range(5))
        cells = " | ".join(vals)
    doc = tmp_path / f"doc.{fmt}"
    doc.write_text(MATHJAX_ROW[fmt].format(heads=heads, cells=cells), encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("grad_logits[t2]", "forgotten −y")]


@pytest.mark.parametrize("text", ["## Training\n\nAfter two steps the loss fell by {pct} % (from {l0} to {l2}).\n",
                                  "## Eğitim\n\nİki adımda kayıp %{pct_tr} azaldı ({l0_tr} → {l2_tr}).\n"])
def test_a_percentage_said_of_the_loss_is_a_change_not_the_loss(tmp_path, run, text):
    """'the loss fell by 24.3 %' (Turkish: 'kayıp %24,3 azaldı'): a relative change; never the loss × 100,
    wrong.  The two losses beside it are the model's and the second step's, right."""
    l0, l2 = run["f"][0]["loss"], run["f"][2]["loss"]
    pct = mp.nstr(100 * (l0 - l2) / l0, 3, strip_zeros=False)
    fill = dict(pct=pct, l0=r4(l0), l2=r4(l2), pct_tr=comma(pct), l0_tr=comma(r4(l0)), l2_tr=comma(r4(l2)))
    assert _wrong(tmp_path, text.format(**fill), "doc.md") == []


def test_a_mean_in_one_clause_does_not_name_the_vector_of_the_next(tmp_path, distinct_heads):
    """``位置 3 の場合、\\(\\mu = … = m\\) で、正規化後のベクトルは \\(\\hat{\\boldsymbol{h}}_3 = (…)\\)``: the
    ideographic comma ends μ's clause, so the vector is ĥ's (the norm's output), not μ's; beside a table of
    each position's μ and σ², nothing is wrong."""
    path, fw = distinct_heads
    f4 = lambda x: mp.nstr(x, 4, strip_zeros=False)      # noqa: E731
    rows = "".join(f"<tr><td>\\(t={t + 1}\\)</td><td>{f4(fw['mu1'][t])}</td><td>{f4(fw['var1'][t])}</td></tr>\n"
                   for t in range(3))
    vec = ",\\ ".join(f4(x) for x in fw["LN1"][2])
    doc = tmp_path / "doc.html"
    doc.write_text("<h3>3.1 ln_1</h3>\n<table>\n<tr><th>位置</th><th>\\(\\mu\\)</th><th>\\(\\sigma^2\\)</th></tr>\n" +
                   rows + "</table>\n<p>位置 3 の場合、\\(\\mu = " + f4(fw["mu1"][2]) + "\\) で、正規化後のベクトルは "
                   "\\(\\hat{\\boldsymbol{h}}_3 = (" + vec + ")\\) です。</p>\n", encoding="utf-8")
    results = check(doc, path)
    assert [r.ref for r in results if r.verdict == "wrong"] == []
    assert {"mu1[0]", "mu1[1]", "var1[2]"} <= {r.ref for r in results if r.verdict == "matched"}


@pytest.mark.parametrize("lead", ["    dL/dz_v = p_v - y_v,    y = one-hot dari \"пьёт\"\n\n",
                                  "Der Gradient ∂L/∂z_j = ŷ_j − y_j pro Token:\n"])
def test_a_token_list_under_the_logits_gradient_is_that_gradient(tmp_path, run, lead):
    """``кот: 0.1234   ест: …`` on the line below ``dL/dz_v = p_v − y_v`` (a blank line between or not): each
    token's gradient; the target's printed as p is the gradient with −y forgotten (not p, right)."""
    p = run["f0"]["p"]
    vals = [r4(v - (1 if j == 3 else 0)) for j, v in enumerate(p)]
    vals[3] = r4(p[3])
    text = "3. Backward\n\n" + lead + "    " + "   ".join(f"{w}: {v}" for w, v in zip(VOCAB, vals)) + "\n"
    assert _wrong(tmp_path, text, "doc.txt") == [(f"grad_z[{VOCAB[3]}]", vals[3])]


@pytest.mark.parametrize("name", ["W₂", "W_{2}"])
def test_a_subscripted_parameter_name_is_the_models_own(tmp_path, distinct_heads, name):
    """``W₂ = [ … ]`` (or ``W_{2}``) in a model with W_1 and W_2 is W_2, not row 2 of a W: a slipped entry of its
    first row is W_2[0,1], wrong, and W₁'s rows beside b₁ stay W_1's and b_1's (no false alarm)."""
    path, _ = distinct_heads
    P = oracle.load_spec(str(path))["layer"][0]
    fmt = lambda x: str(float(x))                                  # noqa: E731   (the spec's own decimals)
    W1, b1, W2 = P["W_1"], P["b_1"], P["W_2"]
    w2 = [[fmt(x) for x in row] for row in W2]
    bad = str(round(float(W2[0][1]) + 0.3, 2))
    w2[0][1] = bad
    lines = [f"        W₁ = [ {'  '.join(fmt(x) for x in W1[0])} ]        b₁ = [ {'  '.join(fmt(x) for x in b1)} ]"]
    lines += [f"             [ {'  '.join(fmt(x) for x in row)} ]" for row in W1[1:]]
    lines += ["", f"        {name} = [ {'  '.join(w2[0])} ]"] + [f"             [ {'  '.join(r)} ]" for r in w2[1:]]
    doc = tmp_path / "doc.md"
    doc.write_text("## 6. FFN\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.number.value) for r in results if r.verdict == "wrong"] == [("W_2[0,1]", Fraction(bad))]


@pytest.mark.parametrize("text", [
    "## Previsão\n\nEm porcentagem, o modelo dá só {bad}% de chance para {tok}, contra {good}% para {other}.\n",
    "## Prediction\n\nThe model gives only {bad}% probability to {tok} and {good}% to {other}.\n"])
def test_a_share_given_to_a_token_a_noun_of_chance_between(tmp_path, run, text):
    """'2,28 % de chance para peixe': the share's noun between the figure and its token still gives the token;
    the slipped percentage (÷ 10) is that token's p, wrong, and the other is right."""
    p = run["f0"]["p"]
    bad = mp.nstr(10 * p[2], 3, strip_zeros=False)
    good = mp.nstr(100 * p[0], 4, strip_zeros=False)
    assert _wrong(tmp_path, text.format(bad=bad, good=good, tok=VOCAB[2], other=VOCAB[0]), "doc.md") == \
        [(f"p[{VOCAB[2]}]", bad + "%")]
