"""Specs that train on more than one prediction render and check themselves (issue 27's held-out rounds 34 and 35
found both refused by render, a worked line's operands landing off its result):

* a mini-batch (``training.examples``): the bigram's SGD step and AdamW's first step use the batch's mean gradient,
  its loss before the step is the batch's mean;
* the language-model loss over every position (``training.all_positions``): the transformer's loss line is the
  mean of every position's −ln p_t(next token);
* a transformer on a mini-batch: the table of one full step starts from the batch's mean loss, and shows no update
  along the output path alone (document 000's construction for one example).

Expected values are by hand in mpmath (:func:`test_check_authors._batch_by_hand`) or from ``tests/oracle.py``,
never symgpt's.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt.check import check
from symgpt.render import render_all
from symgpt.verify import check_file

import oracle
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


@pytest.fixture(scope="module")
def every(tmp_path_factory):
    d = tmp_path_factory.mktemp("every")
    toml = oracle.random_spec_toml(seed=19, V=5, d=2, heads=1, d_ff=4, layers=1, T=3) + \
        "\n[training]\nlr = 0.1\nall_positions = true\n"
    path = write_spec(d, toml)
    out = render_all([path], formats=("md", "claims"), langs=("en", "zh"))
    for name, text in out.items():
        (d / name).write_text(text, encoding="utf-8") if isinstance(text, str) else (d / name).write_bytes(text)
    with mp.workdps(50):
        fw = oracle.transformer_forward(oracle.load_spec(str(path)))
    return d, path, fw


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_loss_over_every_position(every, lang):
    """L = (−ln p₀ − ln p₁ − ln p₂) / 3: each position's probability of its next token, and their mean."""
    d, path, fw = every
    md = (d / f"spec.{lang}.md").read_text(encoding="utf-8")
    line = next(x for x in md.split("\n") if x.startswith(r"\mathcal{L} = -\frac{1}{3}"))
    ps = re.findall(r"\\ln ([\d.]+)", line)
    spec = oracle.load_spec(str(path))
    ids = oracle.token_ids(spec, spec["data"]["input"])
    terms = oracle.loss_terms(spec, ids)
    assert len(ps) == len(terms) == 3
    for printed, (pos, y) in zip(ps, terms):
        assert printed == _rounded(fw["p_at"][pos][y], printed)
    loss = line.rsplit("= ", 1)[1]
    assert loss == _rounded(fw["loss"], loss)
    assert [r for r in check(d / f"spec.{lang}.md", path) if r.verdict == "wrong"] == []
    assert [v for v in check_file(d / f"spec.{lang}.claims.toml") if v.verdict == "wrong"] == []


def test_a_transformer_on_a_mini_batch_starts_from_the_mean_loss(tmp_path):
    """Two examples: the full step's 'before' loss is their mean (each example's loss by tests/oracle.py)."""
    toml = oracle.random_spec_toml(seed=23, V=5, d=2, heads=1, d_ff=4, layers=1, T=2)
    spec0 = oracle.loads_spec(toml)
    other = ["t1", "t3"]
    toml += '\n[training]\nlr = 0.1\n\n[[training.examples]]\ninput = ["t1", "t3"]\ntarget = "t4"\n'
    path = write_spec(tmp_path, toml)
    with mp.workdps(50):
        first = oracle.transformer_forward(spec0)["loss"]
        spec1 = oracle.loads_spec(toml)
        spec1["data"] = {"input": other, "target": "t4"}
        second = oracle.transformer_forward(spec1)["loss"]
        mean = (first + second) / 2
    out = render_all([path], formats=("md",), langs=("en",))
    md = next(t for p, t in out.items() if str(p).endswith(".en.md"))
    table = md[md.index("Before and after one update"):]
    row = next(x for x in table.split("\n") if x.startswith(r"| $\mathcal{L}$"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == 3                                   # quantity, before, full step: no output-path column
    assert cells[1] == _rounded(mean, cells[1])
    with mp.workdps(50):                                     # ∂L/∂E's table: the two examples' mean
        g = [(a + b) / 2 for a, b in zip(oracle.transformer_grads(spec0)["grad_E"][4],
                                          oracle.transformer_grads(spec1)["grad_E"][4])]
    part = md[md.index(r"$\partial \mathcal{L} / \partial E$"):]
    row = next(x for x in part.split("\n") if x.startswith("| 4 t4 |"))
    printed = [c.strip() for c in row.strip("|").split("|")[1:]]
    assert printed == [_rounded(x, p) for x, p in zip(g, printed)]


@pytest.mark.parametrize("lang, single", [("en", "single training example"), ("zh", "只有一条")])
def test_a_batch_bigram_never_says_it_has_one_example(batch, lang, single):
    """The setup and the gain sentences of a batch say a batch: no 'single training example', no 'rises'."""
    d, *_ = batch
    md = (d / f"spec.{lang}.md").read_text(encoding="utf-8")
    assert single not in md and "rises from" not in md
