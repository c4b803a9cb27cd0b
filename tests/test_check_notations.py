"""check reads notations the source documents never use: a gradient table counted from 1 whose rows are an
axis our names call k (∂L/∂W_2's rows, d_ff), σ_t² with the square after the subscript, a script 𝓛, Japanese
row labels (1行目) and 'from A to B' written 「A から B に」, and a probability in a sentence that sets the
temperature (T = 2 … p(你) = …).

Figures are rounded here from tests/oracle.py (mpmath), never from symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4

SEED = oracle.ROOT + "/derivations/tiny-transformer.toml"
BIGRAM = oracle.ROOT + "/derivations/bigram.toml"


@pytest.fixture(scope="module")
def seed():
    spec = oracle.load_spec(SEED)
    _, g = oracle.grads(SEED, dps=40)
    return spec, oracle.transformer_forward(spec), g


def _check(tmp_path, spec, text, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return [(r.ref, r.number.text) for r in check(doc, spec) if r.verdict == "wrong"]


@pytest.mark.parametrize("corner", ["k", "i"])
def test_a_gradient_table_counted_from_1_over_the_ffn_rows(tmp_path, corner):
    """∂L/∂W_2 (d_ff × d = 6 × 4) with rows 1 … 6 and columns j = 1 … 4: a sign flip in row k + 1 is
    W_2[k,·]'s (W_2's rows are an axis our names call k, which is no step to count as written)."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=21, V=6, d=4, heads=1, d_ff=6, layers=1, T=3))
    _, g = oracle.grads(str(path), dps=40)
    flip = next(k for k in range(6) if abs(g[f"W_2[{k},1]"]) > mp.mpf("0.001"))       # a row ReLU keeps
    rows = []
    for k in range(6):
        cells = [r4(g[f"W_2[{k},{j}]"]) for j in range(4)]
        if k == flip:
            cells[1] = r4(-g[f"W_2[{k},1]"])
        rows.append(f"| {k + 1} | " + " | ".join(cells) + " |")
    text = "\n".join(["The gradient of the second FFN matrix, counted from 1:", "",
                      f"| {corner} | j = 1 | j = 2 | j = 3 | j = 4 |", "|" + " ---: |" * 5, *rows, ""])
    assert _check(tmp_path, path, text) == [(f"grad_W_2[{flip},1]", r4(-g[f"W_2[{flip},1]"]))]


def test_a_variance_written_with_its_square_after_the_subscript(tmp_path, seed):
    """σ_2² = … of the second position, counted from 1: a truncated variance is var1[1]'s."""
    _, f, _ = seed
    var = f["var1"][1]
    cut = str(mp.nstr(var, 12))[:6]
    assert cut != r4(var)
    text = (f"For the second position, μ_2 = {r4(f['mu1'][1])} and\n\n"
            f"σ_2² = ½ Σ_j (h_{{2,j}} − μ_2)² = {cut}\n")
    assert _check(tmp_path, SEED, text) == [("var1[1]", cut)]


@pytest.mark.parametrize("row", ["∂𝓛/∂z_v", "∂ℒ/∂z_v"])
def test_a_script_loss_names_the_gradient_row(tmp_path, row):
    """A row ∂𝓛/∂z_v over token columns: p printed where p − y is meant (the target's −1 forgotten) is wrong."""
    g = oracle.bigram_grads(oracle.load_spec(BIGRAM), dps=40)
    vocab = oracle.load_spec(BIGRAM)["model"]["vocab"]
    t = vocab.index(oracle.load_spec(BIGRAM)["data"]["target"])
    cells = [r4(x) for x in g["grad_z"]]
    cells[t] = r4(g["p"][t])                                 # the −1 forgotten
    text = "\n".join(["The gradient of the loss with respect to the logits is p − y:", "",
                      "| | " + " | ".join(f"`{v}`" for v in vocab) + " |", "| --- |" + " ---: |" * len(vocab),
                      f"| {row} | " + " | ".join(cells) + " |", ""])
    assert _check(tmp_path, BIGRAM, text) == [(f"grad_z[{vocab[t]}]", cells[t])]


def test_japanese_rows_and_from_to(tmp_path):
    """A table with rows 1行目 … (counted from 1) and a sentence 「A から B に」: a sign flip in row 2 is
    grad_W[1,·]'s, and B is the probability after the step (a percent slip there is wrong as that)."""
    spec = oracle.load_spec(BIGRAM)
    vocab = spec["model"]["vocab"]
    g = oracle.bigram_grads(spec, dps=40)
    t = vocab.index(spec["data"]["target"])
    with mp.workdps(40):
        lr = mp.mpf(str(spec["training"]["lr"]))
        after = oracle.load_spec(BIGRAM)
        W, E = oracle.mat(spec["weights"]["W"]), oracle.mat(spec["weights"]["E"])
        after["weights"]["W"] = [[W[i][j] - lr * g["grad_W"][i][j] for j in range(len(W[0]))] for i in range(len(W))]
        after["weights"]["E"] = [[E[i][j] - lr * g["grad_E"][i][j] for j in range(len(E[0]))] for i in range(len(E))]
        p1 = oracle.bigram_forward(after, dps=40)["p"][t]
    rows = []
    for i, row in enumerate(g["grad_W"]):
        cells = [r4(x) for x in row]
        if i == 1:
            cells[0] = r4(-row[0])
        rows.append(f"  {i + 1}行目   " + "   ".join(f"{c:>8}" for c in cells))
    slip = f"{mp.nstr(p1, 12)[:6]}%"                          # the fraction with a % sign
    pct = lambda x: str(r4(100 * x, 2)) + "%"                  # noqa: E731
    text = "\n".join(["勾配 ∂L/∂W（SGD で 1 ステップ更新します）", "",
                      "         " + "   ".join(f"{v:>8}" for v in vocab), *rows, "",
                      f"更新すると、p({vocab[t]}) は {pct(g['p'][t])} から {slip} に上がります。", ""])
    wrong = _check(tmp_path, BIGRAM, text, "doc.txt")
    assert (f"grad_W[1,{vocab[0]}]", r4(-g["grad_W"][1][0])) in wrong
    assert (f"sgd[1].p[{vocab[t]}]", slip) in wrong
    assert len(wrong) == 2


@pytest.mark.parametrize("sentence", ["With T = {T} instead, p(你) = {x}.",
                                      "温度 T = {T} にすると、p(你) = {x} になります。",
                                      "À la température T = {T}, p(你) vaut {x}."])
def test_a_probability_in_a_sentence_that_sets_the_temperature(tmp_path, seed, sentence):
    """p(你) after 'T = 2' is p at that temperature: a slip there is wrong as that quantity, not as p(你)."""
    _, f, _ = seed
    x = oracle.softmax([v / 2 for v in f["logits"]])[4]
    right = r4(x)
    bad = r4(x + mp.mpf("0.0010"))                 # one unit off in the third decimal
    assert bad != right
    text = "\n".join([sentence.format(T=2, x=right), "", sentence.format(T=2, x=bad), ""])
    assert _check(tmp_path, SEED, text) == [("softmax_T(2, 你)", bad)]
