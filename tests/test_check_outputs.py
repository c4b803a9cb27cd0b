"""check: readings the seventh round of held-out tutorials showed (issue 27), each on a text written here, in more
than one language, notation or format where the reading has words:

* a notebook's prints with their output in a fence of its own (``print(dz)`` ⏎ ``````text`` ⏎ ``[…]``);
* δ, backpropagation's error signal at the logits; ``∂ℓ/∂W``, the loss written ℓ; a bigram's ∂ℓ/∂x with the −y
  left out; ``−ln p`` is the loss; ``Σ_j e^{z_j}`` is the softmax's denominator;
* a sum of products worked to its terms and then summed (``a·w + c·v = e + f = g``): g's form is the products';
  a long sum wrapped over two lines with an empty line between, as a PDF's text sets it;
* tables: a corner ``Schritt t`` over the training steps' rows (a row copied from the one above is wrong); a
  column ``att[2, s]`` beside a column of s's values written ``1 (t4)``; a column 'value' under a caption that
  names the entry (``m_1``, ``v̂_1``, ``step``);
* sampling: a share's rise under a temperature ('grew from 33.76 % to 41.38 %', under a tutorial's 'Step 9'); the
  mass top-k leaves out; the running totals of the renormalised shares;
* an update's size in words ('grows by 0.0100') is no sign flipped; arithmetic on figures no quantity is (a
  later step's moment) claims nothing;
* names: ``a_1``, ``a_2`` (the article's letter with its own subscript); ``LN_2: γ = (…)``;
* two matrices side by side with their names on a line of their own between two rows;
* of quantities that print alike, the node (σ² at d = 2, not a squared deviation).

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import json

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _block, _d, _f, _verdicts, _wrong, layered, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _spec(tmp_path):
    return write_spec(tmp_path, SPEC)


def _notebook(cells) -> str:
    """An nbformat 4 notebook of (kind, source, output) cells."""
    out = []
    for kind, source, printed in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell |= {"execution_count": 1, "outputs": [{"output_type": "stream", "name": "stdout",
                                                         "text": printed.splitlines(keepends=True)}]}
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False, indent=1)


# ---------------------------------------------------------------- prints, gradients and their names


def test_prints_whose_output_has_a_fence_of_its_own(tmp_path, run):
    """print(p); print(dz) ⏎ ```text ⏎ […] ⏎ […]: the second array is dz, its target's entry p (−y forgotten)."""
    f = run["f0"]
    p = "[" + "  ".join(r4(v) for v in f["p"]) + "]"
    dz = [r4(f["p"][j] - (1 if j == Y else 0)) for j in range(5)]
    dz[Y] = r4(f["p"][Y])
    text = ("## Backward\n\n```python\ndz = p.copy()\ndz[target] -= 1\nprint(p)\nprint(dz)\n```\n\n"
            f"```text\n{p}\n[{'  '.join(dz)}]\n```\n")
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[dz[Y]] == ("wrong", f"grad_z[{VOCAB[Y]}]", "forgotten −y")


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_delta_is_the_gradient_at_the_logits(tmp_path, run, fmt):
    """δ = (…) after ∂L/∂z = p − onehot: its target's entry printed as p is the gradient, −y forgotten."""
    f = run["f0"]
    d = [r4(f["p"][j] - (1 if j == Y else 0)) for j in range(5)]
    d[Y] = r4(f["p"][Y])
    text = f"The softmax and the cross-entropy together give p − onehot; by hand,\n\nδ = ({', '.join(d)})\n"
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path), fmt))
    assert got[d[Y]] == ("wrong", f"grad_z[{VOCAB[Y]}]", "forgotten −y")


@pytest.mark.parametrize("name", ["∂ℓ/∂E_{кот}", "∂ℓ/∂x"])
def test_a_bigram_input_gradient_without_its_y(tmp_path, run, name):
    """∂ℓ/∂x = W(p − y) printed as W·p at one entry: that entry, its cause the −y left out (+ W[j, target])."""
    f = run["f0"]
    W = oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])
    slipped = r4(f["gx"][1] + W[1][Y])
    assert slipped != r4(f["gx"][1])
    text = f"## Backward\n\nThrough the head: {name} = ({r4(f['gx'][0])}, {slipped})\n"
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    ref = f"grad_E[{VOCAB[X]},1]" if "E" in name else "grad_x[1]"
    assert got[slipped][0] == "wrong" and got[slipped][1] in (ref, f"grad_E[{VOCAB[X]},1]", "grad_x[1]")
    assert got[slipped][2] == "forgotten −y"


@pytest.mark.parametrize("fmt, minus", [("doc.md", "-"), ("doc.txt", "−")])
def test_minus_ln_of_a_probability_is_the_loss(tmp_path, run, fmt, minus):
    """$-\\ln p_{пьёт} = 1.2345$: the loss, not ln p with its sign flipped."""
    loss = r4(run["f0"]["loss"])
    sub = f"\\text{{{VOCAB[Y]}}}" if fmt == "doc.md" else f"{{{VOCAB[Y]}}}"
    ln = "\\ln" if fmt == "doc.md" else "ln"
    text = f"The target has only a small share, so the loss\n\n${minus}{ln} p_{sub} = {loss}$ is not small.\n"
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path), fmt))
    assert got[loss] == ("matched", "loss", None)


@pytest.mark.parametrize("sum_sign", ["\\sum_j", "Σ_j"])
def test_a_sum_of_exponentials_named_by_its_sigma(tmp_path, run, sum_sign):
    """Σ_j e^{z_j} = … under a section on one row: the softmax's denominator, no entry of exp(z)."""
    z = run["f0"]["z"]
    total = r4(sum(mp.exp(v) for v in z))
    text = f"## 4. The output (row 2 only)\n\n$${sum_sign} e^{{z_j}} = {total}$$\n"
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[total][:2] == ("matched", "sum_exp")


# ---------------------------------------------------------------- chains


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_products_summed_after_their_terms(tmp_path, narrow, fmt):  # noqa: F811
    """f = a × w + c × v = e + f = g, the bias left out: g is Z[t,j], a forgotten term (its form is the products')."""
    path, spec, fw = narrow
    W1, b1 = spec["layer"][0]["W_1"], spec["layer"][0]["b_1"]
    t, j = 2, next(k for k in range(4) if b1[k] != 0)
    x = [r4(v) for v in fw["LN1"][t]]
    terms = [mp.mpf(x[i]) * _f(W1[i][j]) for i in range(2)]
    printed = [r4(v) for v in terms]
    total = r4(mp.mpf(printed[0]) + mp.mpf(printed[1]))
    assert total != r4(fw["Z"][t][j])
    text = (f"The hidden unit {j} at row {t}:\n\n"
            f"    f_pre = {x[0]} × ({_d(W1[0][j])}) + ({x[1]}) × ({_d(W1[1][j])}) = {printed[0]} + ({printed[1]}) = "
            f"{total}\n")
    got = _verdicts(_results(tmp_path, text, path, fmt))
    assert got[total] == ("wrong", f"Z[{t},{j}]", "forgotten term")


def test_a_long_sum_wrapped_over_an_empty_line(tmp_path, narrow):  # noqa: F811
    """F[t,0] = Σ_k R·W_2 + b_2 over two lines an empty one apart (a PDF's), its result off in the last digit:
    F[t,0], wrong (nine operands, more than the eight a form was tried with)."""
    path, spec, fw = narrow
    W2, b2 = spec["layer"][0]["W_2"], spec["layer"][0]["b_2"]
    t = 2
    r = [r4(v) for v in fw["R"][t]]
    exact = fw["F"][t][0]
    slipped = r4(exact + mp.mpf("0.0003"))
    first = " + ".join(f"({r[k]}) × ({_d(W2[k][0])})" for k in range(2))
    second = " + ".join(f"({r[k]}) × ({_d(W2[k][0])})" for k in range(2, 4))
    text = (f"The second matrix of the MLP at row {t}:\n\n         m = {first}\n\n"
            f"             + {second} + ({_d(b2[0])}) = {slipped}\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[slipped][:2] == ("wrong", f"F[{t},0]")


def test_arithmetic_on_figures_no_quantity_is_claims_nothing(tmp_path, run):
    """a / b = r on operands no quantity is (a later step's moment, say), r a few per cent from p[ест]: no claim."""
    p = run["f0"]["p"][1]
    r = r4(p * mp.mpf("1.03"))
    a = str(mp.mpf(r) * mp.mpf("1.7"))[:7]
    r = r4(mp.mpf(a) / mp.mpf("1.7"))
    text = f"## Step 2 of AdamW\n\nThe second moment, corrected:  v̂ = {a} / 1.7 = {r}\n"
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[r][0] != "wrong"


# ---------------------------------------------------------------- tables


@pytest.mark.parametrize("corner, caption", [("Schritt t", "Tabelle 4: Verlauf mit SGD"),
                                             ("step k", "Table 4: three SGD steps")])
def test_a_corner_of_steps_and_a_row_copied_from_the_one_above(tmp_path, run, corner, caption):
    """| Schritt t | ℓ | W_{1,ест} | over rows 0–3: row t is the state after t steps; row 3 printing row 2's
    weight is wrong, not row 2's weight printed again."""
    loss = [r4(f["loss"]) for f in run["f"]]
    w = [r4(E_W[1][0][1]) for E_W in run["states"]]
    assert w[3] != w[2]
    rows = [f"| {k} | {loss[k]} | {w[k] if k < 3 else w[2]} |" for k in range(4)]
    text = f"**{caption}**\n\n| {corner} | ℓ | W_{{1,{VOCAB[1]}}} |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    got = _wrong(_results(tmp_path, text, _spec(tmp_path)))
    assert (f"sgd[3].W[0,{VOCAB[1]}]", w[2], "plain error") in got or \
        any(ref == f"sgd[3].W[0,{VOCAB[1]}]" for ref, _, _ in got)


@pytest.mark.parametrize("row", ["{s} ({tok})", "{s}（{tok}）"])
def test_a_column_bound_by_a_column_of_index_values(tmp_path, narrow, row):  # noqa: F811
    """| s | score | att[2, s] | over rows '1 (t4)': att[2, 1]; a weight copied from the row above is wrong."""
    path, spec, fw = narrow
    A = fw["A"][2]
    weights = [r4(A[0]), r4(A[0]), r4(A[2])]
    assert weights[1] != r4(A[1])
    toks = spec["data"]["input"]
    lines = [f"| {row.format(s=s, tok=toks[s])} | {r4(fw['S'][2][s])} | {weights[s]} |" for s in range(3)]
    text = "## Attention of the last row\n\n| $s$ | score | `att[2, s]` |\n|---|---|---|\n" + "\n".join(lines) + "\n"
    got = _wrong(_results(tmp_path, text, path))
    assert [ref for ref, printed, _ in got if printed == weights[1]] == ["A[2,1]"]


@pytest.mark.parametrize("value, caption", [("Wert", "Tabelle 3: Erster AdamW-Schritt für W_{{1,{w}}}"),
                                            ("value", "Table 3: the first AdamW step for W_{{1,{w}}}")])
def test_a_value_column_under_a_caption_naming_the_entry(tmp_path, run, value, caption):
    """| m_1 | 0.1·g | … | under 'the first AdamW step for W_{1,рыбу}': adamw[1]'s moments and step of W[0,рыбу];
    v̂_1 off in its last digit is wrong."""
    W = oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])
    g = run["f0"]["gW"][0][2]
    a = run["adamw"](W[0][2], g)
    vhat = r4(a["vhat"] + mp.mpf("0.000003"), 6)
    text = (f"<p>{caption.format(w=VOCAB[2])}</p>\n\n<table>\n<caption>{caption.format(w=VOCAB[2])}</caption>\n"
            f"<tr><th>Größe</th><th>Rechnung</th><th>{value}</th></tr>\n"
            f"<tr><td>m<sub>1</sub></td><td>0,1 · g</td><td>{r4(a['m'], 5)}</td></tr>\n"
            f"<tr><td>v̂<sub>1</sub></td><td>v / 0,001</td><td>{vhat}</td></tr>\n"
            f"<tr><td>Schritt</td><td>η · m̂ / √v̂</td><td>{r4(a['update'])}</td></tr>\n</table>\n")
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path), "doc.html"))
    assert got[r4(a["m"], 5)][:2] == ("matched", "adamw[1].m[W,0,2]")
    assert got[vhat][:2] == ("wrong", "adamw[1].vhat[W,0,2]")


# ---------------------------------------------------------------- sampling


def _shares(f, T):
    e = [mp.exp(v / T) for v in f["z"]]
    return [v / sum(e) for v in e]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_share_risen_under_a_temperature(tmp_path, run, lang):
    """Under a tutorial's 'Step 9. Temperature': 'grew from 33.76 % to 41.38 %' at T = 0.5 is the share at that
    temperature, not the probability after a training step."""
    f = run["f0"]
    top = max(range(5), key=lambda j: f["p"][j])
    before, after = r4(100 * f["p"][top], 2), r4(100 * _shares(f, mp.mpf("0.5"))[top], 2)
    text = {"ru": f"## Шаг 9. Температура\n\nПри $T = 0.5$ лидер «{VOCAB[top]}» вырос с {before}% до {after}%.\n",
            "en": f"## Step 9. Temperature\n\nAt $T = 0.5$ the leader “{VOCAB[top]}” grew from {before}% to "
                  f"{after}%.\n"}[lang]
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[after + "%"][0] != "wrong"


def test_the_mass_top_k_leaves_out_and_the_renormalised_running_totals(tmp_path, run):
    """'we drop 23.94 % of the mass — with «пьёт»': 1 − the three likeliest; the renormalised shares' running
    totals are the sampler's bounds."""
    p = run["f0"]["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    mass = sum(p[j] for j in order[:3])
    dropped = r4(100 * (1 - mass), 2)
    kept = [p[j] / mass for j in order[:3]]
    running = r4(kept[0] + kept[1])
    text = (f"## Top-k\n\nWith $k = 3$ we drop {dropped}% of the mass — with «{VOCAB[order[3]]}», fourth. "
            f"The sampler's bounds: {r4(kept[0])}, then {running}, then 1.0000.\n")
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[dropped + "%"][0] == "matched"
    assert got[running][0] == "matched"


# ---------------------------------------------------------------- prose


def test_a_step_size_told_in_words_is_no_sign_flip(tmp_path, run):
    """'W_{1,x} grows by 0.0100 in the AdamW step': the update's size (its sign the direction in words)."""
    W = oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])
    gW = run["f0"]["gW"]
    i, j = next((i, j) for i in range(2) for j in range(5) if gW[i][j] < 0)
    a = run["adamw"](W[i][j], gW[i][j])
    size = r4(-a["update"])
    text = (f"## The AdamW step\n\nThe gradient of W_{{{i + 1},{VOCAB[j]}}} is negative, so the weight grows by "
            f"{size} in this step.\n")
    got = _verdicts(_results(tmp_path, text, _spec(tmp_path)))
    assert got[size][0] != "wrong"


# ---------------------------------------------------------------- names and layouts


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_vectors_named_by_a_subscripted_article_letter(tmp_path, narrow, fmt):  # noqa: F811
    """a_1 = (…), a_2 = (…): rows of the attention's output (the letter 'a' with its own subscript is no
    article); a_2's second entry off in its last digit is wrong."""
    path, spec, fw = narrow
    o = fw["Attn"]
    slipped = r4(o[1][1] + mp.mpf("0.0001"))
    text = (f"The attention's output, row by row:\n\n    a_{{1}} = ({r4(o[0][0])}, {r4(o[0][1])}),  "
            f"a_{{2}} = ({r4(o[1][0])}, {slipped}),  a_{{3}} = ({r4(o[2][0])}, {r4(o[2][1])})\n")
    got = _verdicts(_results(tmp_path, text, path, fmt))
    assert got[slipped][:2] == ("wrong", "Attn[1,1]")


def test_a_norm_named_before_the_name_of_its_weight(tmp_path, narrow):  # noqa: F811
    """LN_1: γ = (…), β = (…); LN_2: γ = (…), β = (…): the norms' own weights, none of them wrong."""
    path, spec, fw = narrow
    L = spec["layer"][0]
    vec = lambda v: "(" + ", ".join(_d(x) for x in v) + ")"     # noqa: E731
    text = (f"Weights of the two norms. LN_{{1}}：γ = {vec(L['gamma1'])}，β = {vec(L['beta1'])}；"
            f"LN_{{2}}：γ = {vec(L['gamma2'])}，β = {vec(L['beta2'])}。\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(results) == []
    refs = [r.ref for r in results if r.verdict == "matched"]
    assert "gamma1[1]" in refs and "gamma2[1]" in refs


def test_two_matrices_side_by_side_named_between_their_rows(tmp_path, layered):  # noqa: F811
    """  q … ⏎ Q = ⎜ ⎟ , K = ⎜ ⎟ . ⏎ …: an even count of rows, the names on a line of their own; K's second row
    printing its first entry twice is wrong at K[1,1]."""
    path, spec, fw = layered
    Q, K = fw["blocks"][0]["Q"], fw["blocks"][0]["K"]
    k11 = r4(K[1][0])
    assert k11 != r4(K[1][1])
    text = ("The first layer's queries and keys:\n\n"
            f"        {r4(Q[0][0])}   {r4(Q[0][1])}            {r4(K[0][0])}   {r4(K[0][1])}\n"
            "    Q = ⎜                 ⎟ ,      K = ⎜                 ⎟ .\n"
            f"        {r4(Q[1][0])}   {r4(Q[1][1])}            {r4(K[1][0])}   {k11}\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got.get(k11) is not None
    wrong = [(ref, printed) for ref, printed, _ in _wrong(_results(tmp_path, text, path, "doc.txt"))]
    assert ("l0.K[1,1]", k11) in wrong


def test_a_variance_that_equals_a_squared_deviation_at_d_2(tmp_path, narrow):  # noqa: F811
    """σ₂² = ((h − μ)² + (h − μ)²)/2 = …: at d = 2 both deviations are alike; the variance, not one of them."""
    path, spec, fw = narrow
    var = r4(fw["var1"][1])
    text = f"The second row's variance:\n\n    σ₂² = {var}\n"
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[var] == ("matched", "var1[1]", None)
