"""More of what other authors write, each reading on a text written here (in more than one language where the
reading has words):

* a PDF's math italic (𝑊, 𝑖) read as the letters it styles, a table whose rows are ``𝑖 = 1`` and whose header's
  subscripts stand on a line of their own;
* a matrix drawn one bracketed row per line and named on its middle row (``k = [ … ]  dog``), and a vector
  an interpreter prints after its prompt (``>>> dlogits``);
* a table of training states by row (``nach 2 SGD-Schritten``) and quantities by column;
* the loss written J (``∇_{x}J``, ``∂J/∂W``), and ``δ = ∂L/∂ℓ = π − y`` defining δ;
* an update whose sign is wrong on the bigram's input row (``x₁ ← 0,5 + 0,5 · g``), the new gradient of an
  entry named in a sentence about gradients;
* ``GELU(z) = … = value``: the activation of that entry of Z;
* a PyTorch Linear's ``.weight.grad`` printed out × in: the transposed matrix;
* a share renormalised under top-p after a quoted token, in Vietnamese;
* a decimal comma in scientific notation, reported as printed.

Every expected value is computed here with mpmath (the bigram of :mod:`test_check_readings`, its SGD step
written out there) or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.claims.readers import STYLED
from symgpt.claims.refs import parse

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import VOCAB, Y, _wrong, _wrong_of, by_hand, comma


@pytest.fixture(scope="module")
def run():
    yield from by_hand()




def test_math_italic_letters_are_the_letters_they_style():
    """𝑊, 𝑖, 𝜕, 𝟏 and ℎ fold to W, i, ∂, 1 and h; ℓ and ℒ (letterlike symbols a text means) stay."""
    assert "𝑊_{𝑖,𝑤} 𝜕ℒ/𝜕𝑒 𝟏 ℎ ℓ".translate(STYLED) == "W_{i,w} ∂ℒ/∂e 1 h ℓ"


def test_a_pdf_style_table_of_rows_i_equals_k_with_a_transposed_entry(tmp_path, run):
    """Rows ``𝑖 = 1 … 2`` (math italic, counted from 1) under a header of tokens, the corner ``∇_{𝑊} ℒ``: the
    entry printed at row 1, column спит with row 2's value there is grad_W[0,спит]'s, wrong."""
    g = run["f0"]["gW"]
    rows = [[r4(v) for v in g[0]], [r4(v) for v in g[1]]]
    rows[0][4] = r4(g[1][4])
    text = "\n".join(["", "        ∇_{𝑊} ℒ      " + "     ".join(VOCAB), "",
                      *(f"        𝑖 = {i + 1}   " + "   ".join(f"{v:>7}" for v in row) for i, row in enumerate(rows)),
                      ""])
    assert _wrong(tmp_path, text) == [("grad_W[0,спит]", r4(g[1][4]))]


def test_a_header_whose_subscripts_stand_on_the_line_below(tmp_path, run):
    """``ℒ  W  W`` over ``1,пьёт  2,пьёт`` (a PDF's subscripts), rows ``step k``: W_{2,пьёт} after two steps."""
    rows = []
    for k, ((E, W), f) in enumerate(zip(run["states"], run["f"])):
        w2 = W[1][3] + (mp.mpf("0.002") if k == 2 else 0)
        rows.append(f"        step {k}  {r4(f['loss'])}  {r4(W[0][3]):>7}  {r4(w2):>7}")
    head = ["", "                 ℒ        W       W", "                                     1,пьёт   2,пьёт", ""]
    text = "\n".join([*head,
                      *rows, ""])
    assert _wrong(tmp_path, text) == [("sgd[2].W[1,пьёт]", r4(run["states"][2][1][1][3] + mp.mpf("0.002")))]


@pytest.mark.parametrize("words", [("Ausgangsmodell", "nach {k} SGD-Schritt{e}"),
                                   ("initial model", "after {k} SGD step{e}")])
def test_a_table_of_training_states_by_row(tmp_path, run, words):
    """Rows 'nach 2 SGD-Schritten' / 'after 2 SGD steps' under columns J and π: the loss after that many
    steps; a wrong loss at step 2 is sgd[2].loss's."""
    rows = []
    for k, f in enumerate(run["f"][:3]):
        loss = f["loss"] + (mp.mpf("0.01") if k == 2 else 0)
        name = words[0] if k == 0 else words[1].format(k=k, e="en" if k > 1 and "nach" in words[1] else
                                                          "s" if k > 1 else "")
        rows.append(f"    {name:<24}{r4(loss)}   {r4(f['p'][Y])}")
    text = "\n".join(["", "    Modell                  J        π", "                                     пьёт", "",
                      *rows, ""])
    assert _wrong(tmp_path, text) == [("sgd[2].loss", r4(run["f"][2]["loss"] + mp.mpf("0.01")))]


@pytest.mark.parametrize("name", ["∇_{x}J", "∇_x ℒ"])
def test_a_gradient_vector_of_a_loss_named_j_with_decimal_commas(tmp_path, run, name):
    """``∇_{x}J = (0,1101; −0,3398)``: J is the loss, ';' parts the entries of a vector with decimal commas; a
    sign flip in the first entry is grad_x[0]'s."""
    gx, p = run["f0"]["gx"], run["f0"]["p"]
    text = (f"Mit π_{{кот}} = {comma(r4(p[0]))} und π_{{ест}} = {comma(r4(p[1]))} insgesamt\n\n"
            f"    {name} = ({comma(r4(-gx[0]))}; {comma(r4(gx[1]))}).\n")
    assert _wrong(tmp_path, text) == [("grad_x[0]", comma(r4(-gx[0])))]


def test_a_loss_named_j_in_a_fraction(tmp_path, run):
    """``∂J/∂W_{1,пьёт} = …`` counted from 1: W's gradient; a forgotten −y is grad_W[0,пьёт]'s."""
    f = run["f0"]
    x0 = mp.mpf("0.6")
    bad = r4(x0 * f["p"][Y])
    text = (f"∂J/∂W_{{2,пьёт}} = {r4(f['gW'][1][3])} und ∂J/∂W_{{1,пьёт}} = 0.6 · {r4(f['p'][Y])} = {bad}.\n")
    assert _wrong(tmp_path, text) == [("grad_W[0,пьёт]", bad)]


@pytest.mark.parametrize("other", [True, False])
def test_a_delta_defined_through_the_gradient_and_pi_minus_y(tmp_path, run, other):
    """``$\\boldsymbol{\\delta} = \\partial\\mathcal{L}/\\partial\\boldsymbol{\\ell} = \\boldsymbol{\\pi} -
    \\mathbf{y}$``: δ is the logits' gradient; π of the target printed as δ of it is grad_z's, wrong, beside
    another δ or alone (its one figure agreeing with p does not make δ mean p)."""
    p = run["f0"]["p"]
    text = (r"$\boldsymbol{\delta} = \partial\mathcal{L}/\partial\boldsymbol{\ell} = \boldsymbol{\pi} - "
            r"\mathbf{y}$, so " + (r"$\delta_{\text{рыбу}}$ = " + r4(p[2]) + " and " if other else "")
            + r"$\delta_{\text{пьёт}}$ = " + r4(p[Y]) + ".\n")
    assert _wrong(tmp_path, text, "doc.md") == [("grad_z[пьёт]", r4(p[Y]))]


@pytest.mark.parametrize("lang", ["de", "en"])
def test_an_update_of_the_input_row_with_the_wrong_sign(tmp_path, run, lang):
    """``x₁ ← 0,6 + 0,5 · g = …`` (the gradient added): the bigram's input row after the step, E[кот,0]'s,
    wrong; the row's own gradient named in a sentence about gradients is read as its gradient, right."""
    f0, f1 = run["f0"], run["f"][1]
    bad = r4(mp.mpf("0.6") + mp.mpf("0.5") * f0["gx"][0])
    said = {"de": f"Der neue Gradient für x_{{2}} beträgt {comma(r4(f1['gx'][1]))}.",
            "en": f"The new gradient of x_{{2}} comes out at {comma(r4(f1['gx'][1]))}."}[lang]
    text = (f"Gradient: ∂L/∂x_{{1}} = {comma(r4(f0['gx'][0]))}, ∂L/∂x_{{2}} = {comma(r4(f0['gx'][1]))}.\n\n"
            f"    x_{{1}} ← 0,6 + 0,5 · {comma(r4(f0['gx'][0]))} = {comma(bad)}.\n\n{said}\n")
    assert _wrong(tmp_path, text) == [("sgd[1].E[кот,0]", comma(bad))]


def test_a_matrix_drawn_row_by_row_named_on_its_middle_row(tmp_path, two_heads):
    """``    [ … ]  t4`` / ``k = [ … ]  t2`` / ``    [ … ]  t2``: K, row by row; swapped digits in row 2 are
    K[2,1]'s (not whatever entry their value is near)."""
    path, f = two_heads
    K = f["K"]
    rows = [[r4(v) for v in row] for row in K]
    good = rows[2][1]
    rows[2][1] = good[:-2] + good[-1] + good[-2]
    assert rows[2][1] != good
    names = ["    ", "k = ", "    "]
    text = "\n".join(["", *(f"    {names[t]}[ " + "  ".join(f"{v:>7}" for v in rows[t]) + " ]   tok"
                            for t in range(3)), ""])
    assert _wrong_of(tmp_path, text, path, "doc.txt") == [("K[2,1]", rows[2][1])]


def test_an_interpreter_prints_a_vector_after_its_prompt(tmp_path, run):
    """``>>> dlogits`` then ``[ 0.1  …  0.3 ]``: the vector is dlogits; the target's p there is grad_z's."""
    g = [run["f0"]["p"][j] - (1 if j == Y else 0) for j in range(5)]
    cells = [r4(v) for v in g]
    cells[Y] = r4(run["f0"]["p"][Y])
    text = "\n".join(["From my script:", "", "    >>> dlogits", "    [ " + "   ".join(cells) + " ]", ""])
    assert _wrong(tmp_path, text) == [("grad_z[пьёт]", cells[Y])]


@pytest.mark.parametrize("fn, act", [("GELU", "gelu_tanh"), ("gelu", "gelu")])
def test_an_activation_of_a_figure_closes_its_formula(tmp_path, fn, act):
    """``* GELU(z) = 0.5 × z × (1 + tanh(…)) = value``: the FFN's activation R of that entry of Z; a value three
    off in the last place is R's, wrong (tanh-GELU and erf-GELU models, values from tests/oracle.py; a negative z,
    whose activation no other quantity equals)."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=11, V=5, d=4, heads=2, d_ff=4, layers=1, T=3,
                                                        activation=act))
    f = oracle.transformer_forward(oracle.load_spec(str(path)))
    t, k = next((t, k) for t in range(3) for k in range(4) if f["Z"][t][k] < -0.2)
    z, r = f["Z"][t][k], f["R"][t][k]
    bad = r4(r + mp.mpf("0.0003"))
    text = f"Two by hand:\n\n* {fn}({r4(z)}) = 0.5 × {r4(z)} × (1 + …) = {bad}\n"
    assert _wrong_of(tmp_path, text, path, "doc.md") == [(f"R[{t},{k}]", bad)]


def test_a_linear_weight_grad_is_printed_out_by_in(tmp_path):
    """A notebook prints ``model.ffn.w2.weight.grad`` (PyTorch keeps a Linear's weight as out × in): the
    matrix is grad_W_2 transposed; a value moved to its transposed place is wrong there."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=6, layers=1, T=3))
    spec = oracle.load_spec(str(path))
    g = oracle.transformer_grads(spec)["grad_W_2"]                   # d_ff × d
    rows = [[r4(g[k][j]) for k in range(6)] for j in range(4)]      # printed d × d_ff: out × in
    j, k = next((j, k) for j in range(4) for k in range(4) if j != k and r4(g[k][j]) != r4(g[j][k]))
    rows[j][k] = r4(g[j][k])
    cell = "\n".join(["```python", "model.ffn.w2.weight.grad", "```", "```",
                      "tensor([" + ",\n        ".join("[" + ", ".join(f"{v:>7}" for v in row) + "]" for row in rows)
                      + "])", "```", ""])
    assert _wrong_of(tmp_path, cell, path) == [(f"grad_W_2[{k},{j}]", r4(g[j][k]))]


def test_a_top_p_share_renormalised_after_a_quoted_token_in_vietnamese(tmp_path, run):
    """'Ví dụ “рыбу” sau khi chuẩn hóa: p / 0,8 = …' (divided by top-p's threshold, not the kept mass): the
    token's renormalised top-p share, wrong."""
    p = run["f0"]["p"]
    bad = r4(p[2] / mp.mpf("0.8"))
    text = (f"## Lấy mẫu top-p\n\nVí dụ “рыбу” sau khi chuẩn hóa: {r4(p[2])} / 0.8 = {bad}.\n")
    assert _wrong(tmp_path, text, "doc.md") == [("topp(0.8, рыбу)", bad)]


def test_a_token_with_letters_beyond_ascii_in_a_function_argument():
    """``topp(0.9, bún)`` and ``softmax_T(0.7, phở)``: the token is one word, not a name cut at its first
    accented letter."""
    assert parse("topp(0.9, bún)")[2][1] == ("word", "bún")
    assert parse("softmax_T(0.7, phở)")[2][1] == ("word", "phở")


def test_a_decimal_comma_in_scientific_notation_is_reported_as_printed(tmp_path, run):
    """``Δ = −3,1623 · 10^{−2}`` (AdamW without bias correction) under a lead-in: adamw[1].update's, wrong,
    reported with its comma, spaces and exponent."""
    g = run["f0"]["gW"][0][3]
    a = run["adamw"](mp.mpf("0.2"), g)
    m = mp.mpf("0.1") * g
    bad = -mp.mpf("0.01") * m / mp.sqrt(mp.mpf("0.001") * g * g) if g < 0 else mp.mpf("0.01") * m / mp.sqrt(
        mp.mpf("0.001") * g * g)
    mant = comma(mp.nstr(bad * 100 if abs(bad) < 0.1 else bad * 10, 5, strip_zeros=False))
    shown = f"{mant} · 10^{{−2}}" if abs(bad) < 0.1 else f"{mant} · 10^{{−1}}"
    text = "\n".join([f"Gewicht W_{{1,пьёт}}   (θ = 0,2, g = {comma(r4(g, 6))})", "",
                      f"    m = {comma(r4(a['m'], 6))},   m̂ = {comma(r4(a['mhat'], 6))},   "
                      f"v̂ = {comma(r4(a['vhat'], 6))}",
                      f"    Δ = {shown},    θ' = {comma(r4(a['new'], 6))}", ""])
    assert _wrong(tmp_path, text) == [(f"adamw[1].update[W,0,{Y}]", shown)]     # (an of-entry's token by its id)


def test_equations_side_by_side_are_not_one_function(tmp_path, two_heads):
    """``exp(s₀) = …     exp(s₂) = …`` on one line: each value is its own exp, the last is not exp of the first
    (values from tests/oracle.py, all right: nothing is wrong)."""
    path, f = two_heads
    S = f["S"][0][2]
    text = "      " + "     ".join(f"exp({r4(S[s], 3)}) = {r4(mp.exp(S[s]), 3)}" for s in range(3)) + "\n"
    assert _wrong_of(tmp_path, text, path, "doc.txt") == []


@pytest.mark.parametrize("corner", ["t", "pos"])
def test_an_rms_column_by_position_with_the_token_beside(tmp_path, corner):
    """``t  token  rms`` rows ``1  t2  0.4933``: row t (the token only shown beside it), rms = √(mean of x² + ε),
    RMSNorm's divisor; a value off in the last places is sqrt(ms1[1] + ln_eps)'s, wrong. Values by hand here:
    x is E's rows of the input (a Llama block adds no positions; RoPE turns q and k only)."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=2, d_ff=6, layers=1, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True)
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    E, ids = oracle.mat(spec["weights"]["E"]), oracle.token_ids(spec, spec["data"]["input"])
    eps = oracle.num(spec["model"].get("ln_eps", "1e-5"))
    rms = [mp.sqrt(mp.fsum(v * v for v in E[i]) / 4 + eps) for i in ids]
    cells = [r4(v) for v in rms]
    cells[1] = r4(rms[1] + mp.mpf("0.0004"))
    toks = spec["data"]["input"]
    text = "\n".join(["Per position:", "", f"     {corner:<4} token      rms",
                      *(f"     {t:<4} {toks[t]:<9}  {cells[t]}" for t in range(3)), ""])
    assert _wrong_of(tmp_path, text, path, "doc.txt") == [("sqrt(ms1[1] + ln_eps)", cells[1])]


def test_a_parenthesis_of_prose_is_no_vector():
    """'(z = −1.2785, where silu' = 0)' is a remark, not a vector literal whose first place is the figure;
    '(0.25, −1.5)' is one."""
    from symgpt.claims.extract import extract
    from symgpt.claims.labels import labels
    for text, places in (("the minimum of silu (z = -1.2785, where silu' = 0).", []),
                         ("so h = (0.25, -1.5).", [(("at", 0),), (("at", 1),)])):
        figs = extract(text)
        got = labels(text, figs, ["a", "b"], {"h"}, set(), ["a"])
        assert [got[n.index].index for n in figs if n.index in got and got[n.index].index] == places


def test_a_token_index_beyond_the_vocabulary_is_no_crash(tmp_path):
    """``token[9] = 0.35`` on a five-word vocabulary: an index no token has; check reads on (nothing wrong)."""
    assert _wrong(tmp_path, "token[9] = 0.35\n") == []


def test_a_bracket_of_words_starts_no_matrix():
    """'[see 0.5 and 0.7]' over 'x = [0.3, 0.4]': the words' bracket is no row of x; x's entries keep their
    places."""
    from symgpt.claims.extract import extract
    from symgpt.claims.literals import stacked_literals
    text = "[see 0.5 and 0.7]\nx = [0.3  0.4]"
    got = stacked_literals(text.split("\n"), extract(text), [])
    assert sorted((str(lab), pos) for lab, pos in got.values()) == [("x", (0,)), ("x", (1,))]
