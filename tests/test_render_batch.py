"""A spec that trains on a mini-batch (``training.examples``) renders: its SGD step and AdamW's first step use the
batch's mean gradient, its loss before the step is the batch's mean, and the document checks itself (issue 27's
fifth round: such a spec was refused by render, its update line's operands landing off the mean's result).

Expected values are the batch's by hand in mpmath (:func:`test_check_authors._batch_by_hand`), never symgpt's.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt.check import check
from symgpt.render import render_all
from symgpt.verify import check_file

from conftest import write_spec
from test_check_authors import BATCH, _batch_by_hand
from test_check_readings import VOCAB, Y


def _rounded(x, text: str) -> str:
    """x rounded half away from zero to the places ``text`` prints."""
    places = len(text.partition(".")[2])
    return str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    d = tmp_path_factory.mktemp("batch")
    path = write_spec(d, BATCH)
    out = render_all([path], formats=("md", "claims"), langs=("en", "zh"))
    for name, text in out.items():
        (d / name).write_text(text, encoding="utf-8") if isinstance(text, str) else (d / name).write_bytes(text)
    with mp.workdps(50):
        loss, gW = _batch_by_hand()
    return d, path, loss, gW


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_update_uses_the_batchs_mean_gradient(batch, lang):
    d, _, loss, gW = batch
    md = (d / f"spec.{lang}.md").read_text(encoding="utf-8")
    line = next(x for x in md.split("\n") if f"W_{{0{Y}}}^{{\\mathrm{{new}}}}" in x)
    m = re.search(r"= (-?[\d.]+) - ([\d.]+) \\times \(?(-?[\d.]+)\)? (?:=|\\approx) (-?[\d.]+)", line)
    w, lr, g, new = m.groups()
    assert g == _rounded(gW[0][Y], g)
    with mp.workdps(50):
        assert new == _rounded(mp.mpf(w) - mp.mpf(lr) * gW[0][Y], new)
    assert _rounded(loss, "0.0000") in md          # the mean loss, before the step


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_batch_document_checks_itself(batch, lang):
    d, path, _, _ = batch
    assert [r for r in check(d / f"spec.{lang}.md", path) if r.verdict == "wrong"] == []
    assert [v for v in check_file(d / f"spec.{lang}.claims.toml") if v.verdict == "wrong"] == []


def test_the_title_counts_nothing_it_cannot_know(batch):
    """The cast's title names no count (five tokens here, not the source document's three)."""
    d, *_ = batch
    md = (d / "spec.en.md").read_text(encoding="utf-8")
    assert "three tokens" not in md and len(VOCAB) == 5
