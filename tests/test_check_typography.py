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
