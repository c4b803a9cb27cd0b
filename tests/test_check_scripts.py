"""check reads more authors (each reading on a text written here, its values from mpmath in this file):

* a reStructuredText file, parsed by docutils: titles, grid, simple and list tables, literal blocks, comments,
  ``:math:`` roles; a German handout with a wrong cell in each table, reported at its line of the ``.rst``;
* figures in Arabic-Indic (٠٫٢٠٧٢, ٢٧٫٩٦٪), Persian (۰٫۲) and Devanagari (०.२) digits, reported as printed;
* a head written as its name's superscript (``Q^{(1)}_2``, ``q⁽¹⁾₂``): head h's entry i is Q's column h·d_k + i;
* a notebook's result named by the cell's last expression, a print's output by what it prints;
* a name whose figures agree as well with the model's W as with W one AdamW step later names the model's W;
* ``L(W + h) = …`` (a gradient check's nudged loss) names no quantity;
* a title underlined in plain text is a heading (``After one AdamW step`` over dots);
* ``∂L'/∂W(0, пьёт)`` is the gradient after one step, its chain read though it names tokens;
* a share in Swedish (``12,3 % på “t4”`` in a paragraph on ``uppmärksamhet``, ``rad 3``).
"""
from __future__ import annotations

import json
import tomllib

import mpmath as mp
import pytest
from docutils.core import publish_doctree

from symgpt.check import check
from symgpt.claims import read_rst
from symgpt.claims.extract import extract
from symgpt.claims.read_rst import rst_lines

from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, Y, _wrong, _wrong_of, comma


def swapped(s: str) -> str:
    """The last two digits of a figure swapped (a figure whose last two digits differ)."""
    out = s[:-2] + s[-1] + s[-2]
    assert out != s
    return out


# ---------------------------------------------------------------- reStructuredText

RST = """\
.. _ergebnisse:

============
 Ergebnisse
============

Wahrscheinlichkeiten
--------------------

.. table:: Tabelle 1

   =====  =======
   Wort   p
   =====  =======
   kot    0,25
   =====  =======

+---+-----------+
| 1 | 0,5       |
+---+-----------+

.. list-table::
   :header-rows: 1
   :widths: 20 30

   * - i
     - :math:`g_i`
   * - 2
     - 0,75

.. Anmerkung: 0,99 ist kein Wert.

Also gilt :math:`p = 0{,}25` und ``W[0, 1]``::

   >>> p
   0.25
"""


def test_a_restructuredtext_file_is_read_by_docutils():
    """Titles (over- and underlined) as headings by level, the three kinds of table as pipe tables at their rows'
    lines (a caption, an empty header for a table with none), comments and a directive's options dropped, roles
    as math and code, a literal block fenced; every line keeps its source line."""
    lines = [(text, at) for text, at in rst_lines(RST) if text.strip()]
    assert lines == [
        ("# Ergebnisse", 4), ("## Wahrscheinlichkeiten", 7),
        ("Table: Tabelle 1", 10), ("| Wort | p |", 13), ("| --- | --- |", 13), ("| kot | 0,25 |", 15),
        ("|  |  |", 19), ("| --- | --- |", 19), ("| 1 | 0,5 |", 19),
        ("| i | $g_i$ |", 26), ("| --- | --- |", 26), ("| 2 | 0,75 |", 28),
        ("Also gilt $p = 0{,}25$ und `W[0, 1]`::", 33),
        ("```", None), ("   >>> p", 35), ("   0.25", 36), ("```", None)]


def test_a_german_rst_handout_with_a_wrong_cell_in_each_table(tmp_path, bigram_run):
    """A simple table of p by word (two digits swapped) and a ``list-table`` of ∂L/∂W's second row (one sign
    flipped), with decimal commas: both wrong, reported as printed, at their own lines of the ``.rst`` file (a
    list-table's cell stands on a line of its own)."""
    f = bigram_run["f0"]
    p = [comma(r4(v)) for v in f["p"]]
    bad_p = swapped(p[2])
    g = [comma(r4(v)) for v in f["gW"][1]]
    flipped = comma(r4(-f["gW"][1][1]))
    rows = "\n".join(f"   {w:<6}{v}" for w, v in zip(VOCAB, [*p[:2], bad_p, *p[3:]]))
    items = "\n".join(f"   * - {w}\n     - {v}" for w, v in zip(VOCAB, [g[0], flipped, *g[2:]]))
    text = ("Ein Bigramm von Hand\n====================\n\n"
            "Die Wahrscheinlichkeiten nach dem Softmax:\n\n"
            "   =====  ======\n   Wort   p\n   =====  ======\n" + rows + "\n   =====  ======\n\n"
            "Der Gradient nach der zweiten Zeile von W:\n\n"
            ".. list-table::\n   :header-rows: 1\n\n   * - Wort\n     - :math:`\\partial L/\\partial W_{1,w}`\n"
            + items + "\n")
    doc = tmp_path / "handout.rst"
    doc.write_text(text, encoding="utf-8")
    wrong = [(r.ref, r.number.printed or r.number.text, r.number.source) for r in check(doc, write_spec(tmp_path, SPEC))
             if r.verdict == "wrong"]
    source = text.split("\n")                              # (a list-table's cell at its own line)
    assert wrong == [(f"p[{VOCAB[2]}]", bad_p, 1 + next(k for k, s in enumerate(source) if bad_p in s)),
                     (f"grad_W[1,{VOCAB[1]}]", flipped, 1 + next(k for k, s in enumerate(source)
                                                                if s == f"     - {flipped}"))]


# ---------------------------------------------------------------- digits of other scripts

ARABIC = str.maketrans("0123456789.%", "٠١٢٣٤٥٦٧٨٩٫٪")


@pytest.mark.parametrize("script", ["arabic", "persian", "devanagari"])
def test_figures_in_other_digits_are_read_and_reported_as_printed(tmp_path, bigram_run, script):
    """p of one word with two digits swapped and another's share slipped by ten, written in that script's digits:
    both wrong, each reported as printed."""
    table = {"arabic": ARABIC, "persian": str.maketrans("0123456789.%", "۰۱۲۳۴۵۶۷۸۹٫٪"),
             "devanagari": str.maketrans("0123456789", "०१२३४५६७८९")}[script]
    f = bigram_run["f0"]
    good, bad = r4(f["p"][0]), swapped(r4(f["p"][1]))
    slip = mp.nstr(f["p"][3] * 10, 4, strip_zeros=False) + "%"
    text = (f"الاحتمالات: p({VOCAB[0]}) = {good.translate(table)} ، p({VOCAB[1]}) = {bad.translate(table)}\n"
            f"ويحصل «{VOCAB[3]}» على {slip.translate(table)} فقط.\n")
    assert _wrong(tmp_path, text) == [(f"p[{VOCAB[1]}]", bad.translate(table)),
                                      (f"p[{VOCAB[3]}]", slip.translate(table))]


def test_an_arabic_decimal_separator_and_comma_are_no_index_pair():
    """``W[٠،١]`` is an index pair, ``٠٫٥`` one figure."""
    assert [(n.text, n.printed) for n in extract("W[٠،١] = ٠٫٥")] == [("0.5", "٠٫٥")]


# ---------------------------------------------------------------- heads, notebooks, ties

@pytest.mark.parametrize("name", ["Q^{{({h})}}_2 = ({a};\\ {b})", "q⁽{h}⁾₂ = ({a}, {b})"])
def test_a_head_superscript_names_the_head(tmp_path, two_heads, name):
    """A one-layer model with two heads (0 and 1, as the superscripts count them): head 1's query at position 2
    is Q's columns 2 and 3; its second entry printed with two digits swapped is Q[2,3]'s, wrong (not head 0's
    Q[2,1])."""
    path, f = two_heads
    Q = [r4(v) for v in f["Q"][2]]
    bad = swapped(Q[3])
    zero, one = ("0", "1") if "^" in name else ("⁰", "¹")
    text = ("Die Anfragen beider Köpfe an der letzten Stelle:\n\n" + name.format(h=zero, a=Q[0], b=Q[1]) +
            "\n\n" + name.format(h=one, a=Q[2], b=bad) + "\n")
    assert _wrong_of(tmp_path, text, path) == [("Q[2,3]", bad)]


def test_a_notebook_result_is_named_by_its_last_expression(tmp_path, bigram_run):
    """A cell that prints W.grad and ends on ``W``: the printed matrix is the gradient, the result the weights,
    whose entry printed wrong is W's (one name for both would read the weights as the gradient)."""
    f = bigram_run["f0"]
    gW = [[r4(v) for v in row] for row in f["gW"]]
    W = [[r4(v) for v in row] for row in bigram_run["states"][0][1]]
    W[1][3] = "0.7300"
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["## Backward\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 3,
         "source": ["loss.backward()\n", "print(W.grad)\n", "W"],
         "outputs": [{"output_type": "stream", "name": "stdout",
                      "text": ["tensor([[" + ", ".join(gW[0]) + "],\n", "        [" + ", ".join(gW[1]) + "]])\n"]},
                     {"output_type": "execute_result", "execution_count": 3, "metadata": {},
                      "data": {"text/plain": ["tensor([[" + ", ".join(W[0]) + "],\n",
                                              "        [" + ", ".join(W[1]) + "]], requires_grad=True)"]}}]}]}
    assert _wrong(tmp_path, json.dumps(nb, indent=1), "nb.ipynb") == [(f"W[1,{VOCAB[3]}]", "0.7300")]


def test_figures_as_close_to_a_later_state_name_the_model(tmp_path, bigram_run):
    """W written out under the author's name U in a text about AdamW, to one place: one AdamW step (lr 0.01)
    moves no entry out of its rounding, so W and adamw[1].W agree as well; U names the model's W, and an entry
    off by 0.1 is W's, wrong."""
    W = [[r4(v, 1) for v in row] for row in bigram_run["states"][0][1]]
    assert W[1][3] == "0.7"
    W[1][3] = "0.8"
    text = ("We train with AdamW (lr 0.01). The weights before the step:\n\n"
            "U = [[" + ", ".join(W[0]) + "],\n     [" + ", ".join(W[1]) + "]]\n")
    assert _wrong(tmp_path, text) == [(f"W[1,{VOCAB[3]}]", "0.8")]


# ---------------------------------------------------------------- gradient checks, headings, primes, shares

def test_a_nudged_loss_names_no_quantity(tmp_path, bigram_run):
    """``L(W + h)`` and ``L(W − h)`` of a gradient check (h = 1e-4 on W[0, пьёт]) printed to 13 places are no
    loss to judge; the central difference they give is the gradient, and right."""
    E, W = bigram_run["states"][0]
    h = mp.mpf("1e-4")

    def loss(dw):
        W2 = [row[:] for row in W]
        W2[0][Y] += dw
        z = [sum(E[0][i] * W2[i][j] for i in range(2)) for j in range(5)]
        return mp.log(sum(mp.exp(v) for v in z)) - z[Y]
    plus, minus = loss(h), loss(-h)
    text = (f"L(W+h)   = {mp.nstr(plus, 14)}\nL(W-h)   = {mp.nstr(minus, 14)}\n"
            f"g_num    = {mp.nstr((plus - minus) / (2 * h), 8)}\n")
    assert _wrong(tmp_path, text) == []


def test_a_title_underlined_in_plain_text_is_a_heading(tmp_path, bigram_run):
    """``After one full AdamW step`` over a rule of dots: the loss below it is the loss after the step (not the
    model's, which it would be wrong as); its probability with two digits swapped is wrong as the step's."""
    adamw = bigram_run["adamw"]
    E, W = bigram_run["states"][0]
    f = bigram_run["f0"]
    gE = [[f["gx"][i] if r == 0 else 0 for i in range(2)] for r in range(5)]
    E1 = [[adamw(E[r][i], gE[r][i])["new"] for i in range(2)] for r in range(5)]
    W1 = [[adamw(W[i][j], f["gW"][i][j])["new"] for j in range(5)] for i in range(2)]
    z = [sum(E1[0][i] * W1[i][j] for i in range(2)) for j in range(5)]
    p = [mp.exp(v) / sum(mp.exp(u) for u in z) for v in z]
    bad = swapped(r4(p[Y]))
    text = ("Step by step\n\n"
            "After one full AdamW step\n.........................\n\n"
            "Running the forward pass again on every updated weight:\n\n"
            f"    L = {r4(-mp.log(p[Y]))}      p({VOCAB[Y]}) = {bad}\n")
    assert _wrong(tmp_path, text) == [(f"adamw[1].p[{VOCAB[Y]}]", bad)]


def test_a_primed_gradient_is_the_gradient_after_a_step(tmp_path, bigram_run):
    """``∂L'/∂W(0, пьёт) = x'0 × (p'(пьёт) − 1) = a × b = c`` after one SGD step: c is sgd[1].grad_W[0, пьёт];
    printed with the wrong sign it is wrong as that."""
    f1 = bigram_run["f"][1]
    x, g = r4(bigram_run["states"][1][0][0][0], 5), r4(f1["p"][Y] - 1, 5)
    c = r4(-f1["gW"][0][Y], 5)
    text = ("Second step\n\nThe new gradient of the entry we follow:\n\n"
            f"    ∂L'/∂W(0, {VOCAB[Y]}) = x'0 × (p'({VOCAB[Y]}) − 1) = {x} × ({g}) = {c}\n")
    assert _wrong(tmp_path, text) == [(f"sgd[1].grad_W[0,{VOCAB[Y]}]", c)]


def test_a_swedish_share_in_a_paragraph_on_attention(tmp_path, two_heads):
    """``Huvud 1, rad 3: 12,3 % på “t4”`` (heads and rows counted from 1 here): the last query's share for key 0
    in head 0, slipped by ten, is A[0,2,0]'s, wrong; the input is t4 t2 t2."""
    path, f = two_heads
    A = f["A"][0][2]
    slip = comma(mp.nstr(A[0] * 10, 4, strip_zeros=False))
    text = f"Uppmärksamheten i huvud 1, rad 3: {slip} % på “t4”.\n"
    assert _wrong_of(tmp_path, text, path) == [("A[0,2,0]", slip + " %")]


# ---------------------------------------------------------------- what a review found

def test_a_docutils_configuration_file_never_turns_file_insertion_on(tmp_path, monkeypatch):
    """A ``docutils.conf`` in the working directory (or named by DOCUTILSCONFIG) that enables file insertion and
    raw HTML is not read: ``.. include::`` of another file (here a table) brings none of its text."""
    (tmp_path / "secret.rst").write_text("=====  ======\nw      p\n=====  ======\nSECRET 0.1234\n=====  ======\n",
                                         encoding="utf-8")
    conf = tmp_path / "docutils.conf"
    conf.write_text("[general]\nfile_insertion_enabled: true\nraw_enabled: true\ninput_encoding: utf-8\n",
                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCUTILSCONFIG", str(conf))
    src = f"Title\n=====\n\n.. include:: {tmp_path / 'secret.rst'}\n\n.. raw:: html\n\n   <b>0.5</b>\n"
    doctree = publish_doctree(src, settings_overrides=read_rst.SETTINGS)     # what the reader parses
    assert "SECRET" not in doctree.astext()
    assert not any("SECRET" in text for text, _ in rst_lines(src))


def test_a_csv_table_after_prose_keeps_the_prose_and_its_lines():
    """A ``csv-table`` (whose cells docutils places on line 1) stands at its own lines; the prose above it stays."""
    src = "The loss is 1.6891 here.\n\n.. csv-table::\n   :header: w, p\n\n   f, 0.11\n   g, 0.22\n"
    assert [(text, at) for text, at in rst_lines(src) if text.strip()] == [
        ("The loss is 1.6891 here.", 1), ("| w | p |", 3), ("| --- | --- |", 3), ("| f | 0.11 |", 6),
        ("| g | 0.22 |", 7)]


def test_a_norms_divisor_is_no_nudged_loss(tmp_path, two_heads):
    """``√(σ² + ε) = …`` is LayerNorm's divisor (with ε inside its bracket, no gradient check's nudge): printed
    with two digits swapped it is wrong, as the divisor (with ε or without: both round alike here)."""
    path, f = two_heads
    eps = mp.mpf(tomllib.loads(path.read_text(encoding="utf-8"))["model"].get("ln_eps", "1e-5"))
    bad = swapped(r4(mp.sqrt(f["var1"][0] + eps)))
    text = f"For position 0 the divisor is √(σ² + ε) = {bad}.\n"
    assert _wrong_of(tmp_path, text, path) in ([("sqrt(var1[0] + ln_eps)", bad)], [("sqrt(var1[0])", bad)])


def test_a_layer_superscript_with_a_full_column_index(tmp_path, two_heads):
    """``Q^{(1)}_{0,3}`` in a one-layer model: column 3 is no head's column (d_k = 2), so the superscript is the
    layer and the entry is Q[0,3]'s, wrong when two of its digits are swapped."""
    path, f = two_heads
    bad = swapped(r4(f["Q"][0][3]))
    text = f"In layer 1: $Q^{{(1)}}_{{0,2}} = {r4(f['Q'][0][2])}$ and $Q^{{(1)}}_{{0,3}} = {bad}$.\n"
    assert _wrong_of(tmp_path, text, path) == [("Q[0,3]", bad)]


def test_a_figure_said_to_be_before_the_step_is_the_models(tmp_path, bigram_run):
    """Under '# Weights before and after one SGD step', 'Before the step, W_{0,0} = 0.41' is the model's
    W[0, кот] (0.40), wrong as that: not the value after the step."""
    text = "# Weights before and after one SGD step\n\nBefore the step, W_{0,0} = 0.41.\n"
    assert _wrong(tmp_path, text) == [(f"W[0,{VOCAB[0]}]", "0.41")]
