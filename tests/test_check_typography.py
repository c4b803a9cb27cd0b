"""check reads figures as tutorials type them: the exponent of e^x is a figure whose exp the result is, and a
date is no figure.

The bigram and its exact logits come from tests/oracle.py (mpmath), never from symgpt.
"""
from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import mpmath as mp
import pytest

from symgpt.check import check
from symgpt.claims.extract import extract

import oracle
from conftest import write_spec
from test_check_lead_in import SPEC


def fmt(x, places: int) -> str:
    s = str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_EVEN))
    return s.replace("-", "−")


@pytest.fixture(scope="module")
def logits(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("typo"), SPEC)
    with mp.workdps(40):
        return path, oracle.bigram_forward(oracle.load_spec(path), dps=40)["z"]


@pytest.mark.parametrize("form", ["e^{}", "$e^{{{}}}$", "e^({})"])
def test_the_exponent_of_e_is_read_and_names_the_result(tmp_path, logits, form):
    """'e^0.4164 = …': 0.4164 is the logit it rounds from, the result is that logit's exp, and a result that
    does not round from it is wrong as exp of that logit, whatever other quantity it equals."""
    path, z = logits
    k_right, k_wrong = 0, 3                                   # 'the' and 'on', both positive: e^0.125
    wrong = fmt(mp.exp(z[k_wrong]) + mp.mpf("0.0123"), 4)
    text = (f"The exponentials, one per word:\n\n"
            f"{form.format(fmt(z[k_right], 4))} = {fmt(mp.exp(z[k_right]), 4)}\n\n"
            f"{form.format(fmt(z[k_wrong], 4))} = {wrong}\n")
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    r = {n.number.text.replace("-", "−"): n for n in check(doc, path)}
    assert r[fmt(z[k_right], 4)].ref == "z[the]"
    assert (r[fmt(mp.exp(z[k_right]), 4)].verdict, r[fmt(mp.exp(z[k_right]), 4)].ref) == ("matched", "exp(z[the])")
    assert (r[wrong].verdict, r[wrong].ref) == ("wrong", "exp(z[on])")


@pytest.mark.parametrize("line", ["Posted on 2024-03-05, p = 0.25", "发布于 2024-03-05，p = 0.25",
                                  "Updated 03/05/2024: p = 0.25"])
def test_a_date_is_no_figure(line):
    assert [n.text for n in extract(line)] == ["0.25"]


def test_a_table_laid_out_with_spaces_is_read_by_order_and_keeps_its_minus_signs(tmp_path, logits):
    """A table as pdftotext prints a PDF's: a caption, a header wider than its cells (z_{j}, ŷ_{j}), a blank
    line for the rule, rows labelled 'j = 1'. Each cell is its column's (by order, not by position), a negative
    cell keeps its sign after the row label's '=', and a truncated probability is wrong as that p."""
    path, z = logits
    with mp.workdps(40):
        p = [mp.exp(x) / mp.fsum(mp.exp(y) for y in z) for x in z]
    k = max(range(5), key=lambda j: p[j] * 10 ** 4 % 1)       # the one whose truncation differs from its rounding
    assert p[k] * 10 ** 4 % 1 > 0.5
    cut = f"{int(mp.floor(p[k] * 10 ** 4)) / 10 ** 4:.4f}"
    rows = [f"            j = {j + 1}   {fmt(z[j], 4):>8}   {fmt(mp.exp(z[j]), 4):>8}   "
            f"{cut if j == k else fmt(p[j], 4):>8}" for j in range(5)]
    text = "\n".join(["表 1: 前向传播", "", "                        z_{j}            e^{z_{j}}            ŷ_{j}", "",
                      *rows, ""])
    doc = tmp_path / "doc.txt"
    doc.write_text(text, encoding="utf-8")
    r = {(x.number.line, x.number.text): x for x in check(doc, path)}
    vocab = ["the", "cat", "sat", "on", "mat"]
    for j in range(5):
        line = 5 + j
        assert r[(line, fmt(z[j], 4))].ref == f"z[{vocab[j]}]"
        if j != k:
            assert r[(line, fmt(p[j], 4))].ref == f"p[{vocab[j]}]"
    assert (r[(5 + k, cut)].verdict, r[(5 + k, cut)].ref) == ("wrong", f"p[{vocab[k]}]")


@pytest.mark.parametrize("symbol,defined", [("δ", "δ_j = ŷ_j − y_j"), ("g", "记 g_{j} = p_{j} − y_{j}"),
                                            ("e", "e_j = \\hat{y}_j - y_j")])
def test_a_symbol_the_document_defines_names_what_it_defines(tmp_path, logits, symbol, defined):
    """'δ_j = ŷ_j − y_j' makes δ the logits' gradient: δ_j of a non-target word (where it equals p_j) is the
    gradient, and the target's δ printed with the wrong sign (1 − ŷ) is wrong as the gradient; 'L = −ln ŷ_3'
    is the loss, wrong when it does not round from it."""
    path, z = logits
    with mp.workdps(40):
        p = [mp.exp(x) / mp.fsum(mp.exp(y) for y in z) for x in z]
        loss = -mp.log(p[2])                                       # the target 'sat' is word 3
    wrong_loss = fmt(loss + mp.mpf("0.11"), 4)
    text = "\n".join([
        "## 反向传播", "",
        f"交叉熵 L = −ln ŷ_3 = {wrong_loss}.", "",
        f"定义 {defined}，于是",
        f"{symbol}_1 = {fmt(p[0], 4)},  {symbol}_2 = {fmt(p[1], 4)},  {symbol}_4 = {fmt(p[3], 4)},  "
        f"{symbol}_5 = {fmt(p[4], 4)},",
        f"{symbol}_3 = 1 − ŷ_3 = {fmt(1 - p[2], 4)}.", ""])
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    r = {(x.number.line, x.number.text): x for x in check(doc, path)}
    assert (r[(3, wrong_loss)].verdict, r[(3, wrong_loss)].ref) == ("wrong", "loss")
    assert r[(6, fmt(p[4], 4))].ref == "grad_z[mat]"
    flipped = r[(7, fmt(1 - p[2], 4))]
    assert (flipped.verdict, flipped.ref) == ("wrong", "grad_z[sat]") and "sign" in flipped.cause
