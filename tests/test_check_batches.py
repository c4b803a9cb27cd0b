"""check: readings the eighth round of held-out tutorials showed (issue 27), each on a text written here, in more
than one language, notation or format where the reading has words:

* a mini-batch: ŷ^{(1)} is the first example's (the spec's own), ŷ^{(2)} another's; a table whose rows are the
  batch's examples (``样本 1（春→风）``, or a corner 'example' over rows 1, 2, 3); '… example 2 … then example 1's
  distribution': the last example named is the one a figure is about; a pair printed with one entry's sign
  turned is the tensor the other entry agrees with;
* a block's weights written ``W_{Q}^{(2)} = [0.3, 0.7; −0.4, 0.2]``: MATLAB's rows, the superscript its block;
* a head as a bare superscript digit over a table's column (``q^2_t``, ``q~^1_t``, q̃ rotated);
* a gradient check's table: ``L(θ + h)`` and ``L(θ − h)`` beside an entry;
* 'the second LayerNorm: … σ² = …' is var2; a name that shares a setting's value is no setting (``h = 10⁻²``
  beside ε = 0.01); GELU(u₅), u a usual name of the FFN's pre-activation;
* a notebook's cell that prints one tensor and shows its last expression's value (``att[0]``), a 3-D tensor
  whose blocks an empty line sets apart; AdamW(…, betas=(0.9, 0.95)) is a setting;
* shares: 'falls from 54.59 % to 4.56 %' ('to' the range's, not a token); a clause after a colon is another's;
  an exponent ``(σ² + ε)^{3/2}`` is no arithmetic of its own.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import json

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import BATCH, _d, _verdicts, _wrong, layered, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _probs(x):
    spec = oracle.loads_spec(SPEC)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    z = [sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)]
    e = [mp.exp(v) for v in z]
    return z, [v / sum(e) for v in e]


def _truncated(x, places=4) -> str:
    """Cut, not rounded, to ``places`` decimals (a slip the key calls truncation)."""
    return mp.nstr(mp.floor(x * 10 ** places) / 10 ** places, places + 1, strip_zeros=False)


# ---------------------------------------------------------------- a mini-batch's examples


@pytest.mark.parametrize("sup", ["^{(1)}", "⁽¹⁾"])
def test_a_superscript_names_the_batchs_example(tmp_path, sup):
    """ŷ^{(1)} = (…) of a three-example batch is the spec's own p; one entry cut, not rounded, is wrong."""
    with mp.workdps(50):
        _, p = _probs(X)
    j = next(j for j in range(5) if r4(p[j]) != _truncated(p[j]))
    printed = [r4(v) for v in p]
    printed[j] = _truncated(p[j])
    text = (f"## Example 2\n\nThe second example is worked the same way.\n\n## Example 1 again\n\n"
            f"The first example's distribution: $\\hat y{sup} = ({', '.join(printed)})$\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, BATCH)))
    assert got[printed[j]][:2] == ("wrong", f"p[{VOCAB[j]}]")


def test_a_table_of_the_batchs_examples(tmp_path):
    """| s^{(i)} | tokens … | over rows '样本 1（кот→пьёт）', '样本 2 …': row 1 is the spec's z (a slipped cell is
    wrong there), rows 2 and 3 claim nothing, and under a corner '样本' a row '3' neither."""
    with mp.workdps(50):
        rows = [_probs(VOCAB.index(w))[0] for w in ("кот", "рыбу", "ест")]
    slipped = r4(rows[0][2] + mp.mpf("0.01"), 2)
    cells = [[r4(v, 2) for v in r] for r in rows]
    cells[0][2] = slipped
    names = ["样本 1（кот→пьёт）", "样本 2（рыбу→спит）", "样本 3（ест→рыбу）"]
    text = ("## 三、对数几率\n\n| $s^{(i)}$ | " + " | ".join(VOCAB) + " |\n|---|" + "---:|" * 5 + "\n" +
            "\n".join(f"| {name} | " + " | ".join(c) + " |" for name, c in zip(names, cells)) + "\n")
    results = _results(tmp_path, text, write_spec(tmp_path, BATCH))
    wrong = [(ref, printed) for ref, printed, _ in _wrong(results)]
    assert (f"z[{VOCAB[2]}]", slipped) in wrong
    assert all(ref.startswith("z[") and printed == slipped for ref, printed in wrong)


def test_a_pair_with_one_sign_turned(tmp_path, run):
    """'the row кот's gradient is (a, b)' with b's sign turned: grad_E's row, b wrong by a sign flip (not
    another tensor's entry that happens to print as −b)."""
    g = run["f0"]["gx"]
    text = f"The input row «{VOCAB[X]}» gets the gradient ({r4(g[0])}, {r4(-g[1])}).\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[r4(-g[1])] == ("wrong", f"grad_E[{VOCAB[X]},1]", "sign flip") or \
        got[r4(-g[1])] == ("wrong", "grad_x[1]", "sign flip")


# ---------------------------------------------------------------- blocks, heads and norms


def _matlab(M) -> str:
    return "[" + "; ".join(", ".join(_d(v) for v in row) for row in M) + "]"


@pytest.mark.parametrize("fmt", ["doc.md", "doc.html"])
def test_matlab_rows_and_a_blocks_superscript(tmp_path, layered, fmt):  # noqa: F811
    """W_{Q}^{(1)} = [a, b; c, d] and W_{Q}^{(2)} = […]: each block's own matrix, entry by entry (a copied entry
    in block 2's is wrong at its place)."""
    path, spec, fw = layered
    Q1, Q2 = spec["layer"][0]["W_Q"], spec["layer"][1]["W_Q"]
    bad = [list(r) for r in Q2]
    bad[1][1] = bad[1][0]
    assert bad[1][1] != Q2[1][1]
    sup = (lambda k: f"^{{({k})}}") if fmt == "doc.md" else (lambda k: f"<sup>({k})</sup>")
    name = "W_{Q}" if fmt == "doc.md" else "W<sub>Q</sub>"
    text = (f"The weights of both blocks. {name}{sup(1)} = {_matlab(Q1)}, and {name}{sup(2)} = {_matlab(bad)}.\n")
    if fmt == "doc.html":
        text = f"<p>{text}</p>\n"
    results = _results(tmp_path, text, path, fmt)
    assert ("l1.W_Q[1,1]", _d(bad[1][1])) in [(ref, printed) for ref, printed, _ in _wrong(results)]
    assert _verdicts(results)[_d(Q1[0][1])][:2] == ("matched", "l0.W_Q[0,1]")


def test_a_heads_bare_superscript_over_a_tables_columns(tmp_path, tmp_path_factory):
    """| t | q^1_t | q^2_t | with two heads: q^2_t's cells are head 2's columns of Q (a transposed entry there
    is wrong at its place, not matched to the entry it copies)."""
    toml = oracle.random_spec_toml(V=5, seed=11, d=4, heads=2, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("heads"), toml)
    fw = oracle.transformer_forward(oracle.load_spec(str(path)))
    Q = fw["Q"]
    cells = [[r4(v) for v in row] for row in Q]
    cells[1][2] = r4(Q[2][1])
    assert cells[1][2] != r4(Q[1][2])
    text = ("The queries, head by head:\n\n| t | q^1_t | q^2_t |\n|---|---|---|\n" +
            "\n".join(f"| {t} | {c[0]}  {c[1]} | {c[2]}  {c[3]} |" for t, c in enumerate(cells)) + "\n")
    wrong = [(ref, printed) for ref, printed, _ in _wrong(_results(tmp_path, text, path))]
    assert ("Q[1,2]", cells[1][2]) in wrong


@pytest.mark.parametrize("words", ["The second LayerNorm: its mean is {mu} and its variance",
                                   "Seconda LayerNorm: la media è {mu}, la varianza"])
def test_the_second_norm_named_before_its_variance(tmp_path, narrow, words):  # noqa: F811
    """'the second LayerNorm: … σ² = …' over d − 1: var2, an unbiased variance (not var1, plainly wrong)."""
    path, spec, fw = narrow
    var = fw["var2"][2]
    unbiased = r4(var * 2)
    text = f"{words.format(mu=r4(fw['mu2'][2]))}\n\n    σ² = {unbiased}\n"
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[unbiased] == ("wrong", "var2[2]", "unbiased variance")


def test_a_name_sharing_a_settings_value_is_no_setting(tmp_path, narrow):  # noqa: F811
    """'with h = 10⁻⁵' beside ln_eps = 1e-5, then 'redo it with h = 10⁻⁷': h is no name of ε; nothing is wrong."""
    path, spec, fw = narrow
    eps = spec["model"]["ln_eps"]
    text = (f"We check with h = {eps}. As an exercise, redo the check with h = 1e-7 and with h = 1e-2.\n")
    assert _wrong(_results(tmp_path, text, path, "doc.txt")) == []


# ---------------------------------------------------------------- a gradient check's table


def _loss_at(E, W, row, col, delta):
    E = [list(r) for r in E]
    E[row][col] += delta
    x = E[X]
    z = [sum(x[i] * W[i][j] for i in range(2)) for j in range(5)]
    return mp.log(sum(mp.exp(v) for v in z)) - z[Y]


@pytest.mark.parametrize("entry", ["E_{кот,1}", "E[кот, 1]"])
def test_a_gradient_checks_table_of_nudged_losses(tmp_path, entry):
    """| E_{кот,1} | L(θ + h) | L(θ − h) | diff | with h = 1e-4 (entries counted from 1): the check's losses; two
    digits swapped in L(θ − h) is wrong at loss_at(E[кот,0], −1e-4)."""
    spec = oracle.loads_spec(SPEC)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    with mp.workdps(50):
        up, down = (_loss_at(E, W, X, 0, d) for d in (mp.mpf("1e-4"), -mp.mpf("1e-4")))
    up8, down8 = mp.nstr(up, 9, strip_zeros=False), mp.nstr(down, 9, strip_zeros=False)
    swapped = down8[:-2] + down8[-1] + down8[-2]
    assert swapped != down8
    text = SPEC.replace("[training]", "[training]\ngradcheck = { h = 1e-4, params = [\"E[кот,0]\"] }")
    path = write_spec(tmp_path, text)
    doc = ("## Gradient check (h = 1e-4)\n\n| parameter | L(θ + h) | L(θ − h) |\n|---|---|---|\n"
           f"| {entry} | {up8} | {swapped} |\n")
    wrong = [(ref, printed) for ref, printed, _ in _wrong(_results(tmp_path, doc, path))]
    assert wrong == [(f"loss_at(E[{VOCAB[X]},0], -1e-4)", swapped)] or \
        wrong == [("loss_at(E[0,0], -1e-4)", swapped)]


# ---------------------------------------------------------------- notebooks and prose


def _notebook(cells) -> str:
    out = []
    for kind, source, outputs in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell |= {"execution_count": 1, "outputs": outputs}
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False, indent=1)


def _torch(rows) -> str:
    return "[" + ",\n ".join("[" + ", ".join(f"{v:.4f}" for v in r) + "]" for r in rows) + "]"


def test_a_cells_last_expression_after_its_print(tmp_path, tmp_path_factory):
    """print(torch.cat(…)) then att[0]: the second output is att[0], a 3-D tensor whose heads an empty line
    sets apart (its batch's [0] no index); a weight copied from its neighbour is wrong at its place."""
    toml = oracle.random_spec_toml(V=5, seed=11, d=4, heads=2, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("att"), toml)
    fw = oracle.transformer_forward(oracle.load_spec(str(path)))
    A = [[[float(v) for v in row] for row in head] for head in fw["A"]]
    A[1][2][1] = A[1][2][0]
    row = lambda r: "[" + ", ".join(f"{v:.4f}" for v in r) + "]"      # noqa: E731
    blocks = ",\n\n".join("        [" + ",\n         ".join(row(r) for r in h) + "]" for h in A)
    shown = "tensor([" + blocks.lstrip() + "], grad_fn=<SelectBackward0>)"
    q = [[float(v) for v in row] for row in fw["Q"]]
    nb = _notebook([("code", "q = h @ W_Q\nprint(torch.cat([q, q], dim=-1)[0])\natt = F.softmax(s, dim=-1)\natt[0]",
                     [{"output_type": "stream", "name": "stdout", "text": ["tensor(" + _torch(q) + ")\n"]},
                      {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                       "data": {"text/plain": shown.splitlines(keepends=True)}}])])
    wrong = [(ref, printed) for ref, printed, _ in _wrong(_results(tmp_path, nb, path, "doc.ipynb"))]
    assert ("A[1,2,1]", f"{A[1][2][1]:.4f}") in wrong


@pytest.mark.parametrize("sentence", ["\"{top}\" falls from {a}% to {b}% and the rest rises.",
                                      "«{top}» fällt von {a}% auf {b}%, der Rest steigt."])
def test_a_shares_fall_to_another_figure(tmp_path, run, sentence):
    """'"x" falls from 54.59 % to 4.56 %': the first figure is x's share, not the token 'to' (a range's word)."""
    f = run["f0"]
    top = max(range(5), key=lambda j: f["p"][j])
    e = [mp.exp(v / 2) for v in f["z"]]
    a, b = r4(100 * f["p"][top], 2), r4(100 * e[top] / sum(e), 2)
    text = "## Temperature T = 2\n\n" + sentence.format(top=VOCAB[top], a=a, b=b) + "\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[a + "%"][0] != "wrong"


# ---------------------------------------------------------------- round 41: cross-references, bounds, conditionals


def comma(s: str) -> str:
    return s.replace(".", ",")


def test_section_numbers_in_a_text_of_decimal_commas(tmp_path, run):
    """'(siehe 3.3, 3.6)' in a text whose figures have decimal commas and whose headings are numbered 3.3 and
    3.6: cross-references, no figures (3.6 is no plain error of a setting)."""
    loss, p = comma(r4(run["f0"]["loss"])), [comma(r4(v)) for v in run["f0"]["p"]]
    text = (f"3.3 Verlust\n\nDie Wahrscheinlichkeiten sind p = ({'; '.join(p)}); der Verlust ist L = {loss}; "
            f"die Gradienten werden sichtbar (siehe 3.3, 3.6).\n\n3.6 Gradienten\n\nDazu unten mehr.\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")
    assert _wrong(results) == []
    assert not any(r.number.text in ("3.3", "3.6") and r.number.line == 3 for r in results)   # (the prose's)


def test_a_figure_squared_is_an_operand(tmp_path, narrow):  # noqa: F811
    """'… = 0,3828, σ² = 0,3828² = 0,1465': the second 0,3828 is squared, no value of σ² (no false alarm)."""
    path, spec, fw = narrow
    dev = fw["H2"][2][0] - fw["mu2"][2]
    text = (f"The last row by hand: the deviation is {r4(abs(dev))}, σ² = {r4(abs(dev))}² = {r4(dev * dev)}.\n")
    assert _wrong(_results(tmp_path, text, path, "doc.txt")) == []


@pytest.mark.parametrize("sentence", ["« {a} » et « {b} » tombent sous 0,5 %.",
                                      "“{a}” and “{b}” fall below 0.5%."])
def test_a_bound_is_no_share(tmp_path, run, sentence):
    """'x and y fall below 0.5 %': a bound, not y's share (no false alarm)."""
    p = run["f0"]["p"]
    low = sorted(range(5), key=lambda j: p[j])[:2]
    assert all(p[j] < mp.mpf("0.5") for j in low)
    text = "## Temperature T = 0.5\n\n" + sentence.format(a=VOCAB[low[0]], b=VOCAB[low[1]]) + "\n"
    assert _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC))) == []


def test_a_conditional_probability_names_its_token(tmp_path, run):
    """p(пьёт|кот) = … is пьёт's probability given кот: p[пьёт], off in its last digit wrong there."""
    p = run["f0"]["p"][Y]
    slipped = r4(p + mp.mpf("0.0002"))
    text = f"The model gives p({VOCAB[Y]}|{VOCAB[X]}) = {slipped} before any step.\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[slipped][:2] == ("wrong", f"p[{VOCAB[Y]}]")
