"""check: what a cell, a code variable or a clause beside it says about a figure (issue 27), on texts written for
these tests in several languages and formats.  Every expected value is computed here (mpmath in the test, 50
digits, through ``test_check_readings``'s hand computation or ``tests/oracle.py``), never taken from symgpt.

* A text table's cell ``exp(0,4000) = 1,4918`` under 'exp(logit)': the figure inside exp( ) is the logit.
* A header spanning several columns, drawn as a named cell and empty ones (``| | q | | | |``), heads them all.
* A column headed by its formula (``∂L/∂z_w = p − y``) is the quantity the formula defines.
* A table row whose only label names an entry (``| ∂L/∂E_{кот,2} | −0,1234 |``) names its figure.
* A code variable set to a token's id (``entrada = vocab.index("кот")``) indexes what a print shows.
* A token's figure in a clause beside one named by a symbol (``"ест" tem z_ест = … e "спит" tem …``) takes it.
* √v₁ under a lead-in stays a root; an operand repeating a figure named just above is that figure; AdamW's
  update worked on the raw moments without ε is still that entry's update without its bias correction.
* A lead-in written in LaTeX (``W_{\\text{out}}[1,\\text{狗}]``) names the entries of an align block below it.
* Shares said by tokens in Markdown emphasis, with the query before them ('*t4* … 18,97 % auf *t1*').
* Equations a conjunction joins ('m̂ = … e v̂ = …') each close their own clause; z^3 is no z.
* A size said otherwise ('下一讲 … T=8') is another model's; an underlined title may hold an '='.
"""
from __future__ import annotations

import json
from fractions import Fraction

import mpmath as mp
import pytest

from symgpt.claims.extract import extract

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_shares import _results, _wrong


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


@pytest.fixture(scope="module")
def seed1(tmp_path_factory):
    """The one-layer, one-head post-LN transformer of tests/oracle.py, seed 1 (input t1 t4 t0): path, forward."""
    toml = oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=4, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("seed1"), toml)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


def c(x, k=4) -> str:
    """A figure with a decimal comma and a Unicode minus."""
    return r4(x, k).replace(".", ",").replace("-", "−")


def _spec(tmp_path):
    return write_spec(tmp_path, SPEC)


def _right(tmp_path, text, name: str, ref: str) -> bool:
    """No figure of the text on the bigram is wrong, and one is matched to ``ref``."""
    rs = _results(tmp_path, text, _spec(tmp_path), name)
    return _wrong(rs) == [] and ref in [r.ref for r in rs if r.verdict == "matched"]


def test_the_argument_inside_exp_in_a_table_cell(tmp_path, run):
    """Columns 'logit', 'exp(logit)', 'probabilidad', the exp cell written ``exp(0,3000) = 1,3499``: the figure
    inside exp( ) is the logit, right; the one wrong exp value is exp(z[рыбу]), and nothing else is."""
    f = run["f0"]
    rows = []
    for j, w in enumerate(VOCAB):
        e = mp.exp(f["z"][j]) * (mp.mpf("1.01") if j == 2 else 1)
        rows.append(f"  {w:<8}{c(f['z'][j]):>8}    exp({c(f['z'][j])}) = {c(e)}    {c(f['p'][j])}")
    text = ("Paso 8: logits\n==============\n\n"
            "  palabra    logit    exp(logit)                probabilidad\n"
            "  -------   ------    ----------------------    ------------\n" + "\n".join(rows) + "\n")
    assert [w[0] for w in _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.txt"))] == [f"exp(z[{VOCAB[2]}])"]


def test_a_header_spanning_columns(tmp_path, seed1):
    """An HTML table whose header names q and k once each over four columns (``<th>q</th><th></th>…``): a copy of
    the entry beside it in row 2 is Q[1,1], wrong (not Q[1,0] matched, whose value it prints)."""
    path, fw = seed1
    Q, K = fw["Q"], fw["K"]
    head = "<tr><th></th><th>q</th>" + "<th></th>" * 3 + "<th>k</th>" + "<th></th>" * 3 + "</tr>"
    rows = []
    for t in range(3):
        q = [r4(x) for x in Q[t]]
        if t == 1:
            q[1] = q[0]
        rows.append(f"<tr><th>{t + 1}</th>" + "".join(f"<td>{x}</td>" for x in q + [r4(x) for x in K[t]]) + "</tr>")
    assert r4(Q[1][0]) != r4(Q[1][1])
    text = "<html><body><h2>2. Query and key</h2>\n<table>\n" + head + "\n" + "\n".join(rows) + "\n</table>\n" \
        "</body></html>\n"
    assert _wrong(_results(tmp_path, text, path, "doc.html")) == [("Q[1,1]", r4(Q[1][0]), "plain error")]


def test_a_column_headed_by_its_formula(tmp_path, run):
    """A column headed ``∂L/∂z<sub>w</sub> = p − y`` beside the column p(w): the target's cell printed as p (the
    −1 forgotten) is the gradient's entry, wrong, 'forgotten −y' (not p[пьёт] matched)."""
    f = run["f0"]
    g = [f["p"][j] - (1 if j == Y else 0) for j in range(5)]
    rows = "\n".join(f"<tr><th>{w}</th><td>{c(f['z'][j])}</td><td>{c(f['p'][j])}</td>"
                     f"<td>{c(f['p'][j] if j == Y else g[j])}</td></tr>" for j, w in enumerate(VOCAB))
    text = ("<html><body><h2>8. Kayıp</h2>\n<table>\n<tr><th>w</th><th>z<sub>w</sub></th><th>p(w)</th>"
            "<th>∂L/∂z<sub>w</sub> = p − y</th></tr>\n" + rows + "\n</table>\n</body></html>\n")
    wrong = _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.html"))
    assert [(w[1], w[2]) for w in wrong] == [(c(f["p"][Y]), "forgotten −y")] and wrong[0][0].endswith(f"[{VOCAB[Y]}]")


def test_a_row_that_names_its_figure(tmp_path, run):
    """A two-column table without a header, ``∂L/∂E<sub>кот,1</sub> | …`` and ``… кот,2 | …`` (components from 1):
    the second with its sign flipped is grad_E[кот,1], wrong, 'sign flip'."""
    gx = run["f0"]["gx"]
    text = ("<html><body><h2>9. Gradyan</h2>\n<table>\n"
            f"<tr><td>∂L/∂E<sub>{VOCAB[X]},1</sub></td><td>{r4(gx[0])}</td></tr>\n"
            f"<tr><td>∂L/∂E<sub>{VOCAB[X]},2</sub></td><td>{r4(-gx[1])}</td></tr>\n</table>\n</body></html>\n")
    assert _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.html")) == \
        [(f"grad_E[{VOCAB[X]},1]", r4(-gx[1]), "sign flip")]


def _notebook(cells) -> str:
    out = []
    for kind, source, *shown in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell |= {"execution_count": 1, "outputs": [{"name": "stdout", "output_type": "stream", "text": shown[0]}]}
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False)


def test_a_code_variable_that_holds_a_tokens_id(tmp_path, run):
    """``entrada = vocab.index("кот")``, then ``print(W.grad)`` and ``print(E.grad[entrada])``: the second output
    is E's row кот, and its second entry with the sign flipped is grad_E[кот,1], wrong, 'sign flip'."""
    f = run["f0"]
    W = "tensor([" + ",\n        ".join("[" + ", ".join(f"{r4(x):>7}" for x in row) + "]" for row in f["gW"]) + \
        "], dtype=torch.float64)\n"
    E = f"tensor([{r4(f['gx'][0])}, {r4(-f['gx'][1])}], dtype=torch.float64)\n"
    text = _notebook([
        ("markdown", "## 4. Gradientes\n"),
        ("code", f'entrada, alvo = vocab.index("{VOCAB[X]}"), vocab.index("{VOCAB[Y]}")\nloss.backward()\n'
                 "print(W.grad)\nprint(E.grad[entrada])", W + E)])
    assert _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.ipynb")) == \
        [(f"grad_E[{VOCAB[X]},1]", r4(-f["gx"][1]), "sign flip")]


def test_a_tokens_figure_beside_a_named_one(tmp_path, run):
    """In a section that also gives tokens' shares: '"ест" tem z_ест = … e "спит" tem …': the second figure is
    z[спит] (a logit, right), not спит's share."""
    f = run["f0"]
    p, z = f["p"], f["z"]
    text = (f"## 2. Passo para a frente\n\nAs probabilidades: \"{VOCAB[0]}\" fica com {c(p[0] * 100, 2)} %.\n\n"
            f"Por pouco: \"{VOCAB[1]}\" tem $z_{{\\text{{{VOCAB[1]}}}}} = {c(z[1], 2).replace(',', '{,}')}$ e "
            f"\"{VOCAB[4]}\" tem ${c(z[4], 2).replace(',', '{,}')}$.\n")
    assert _right(tmp_path, text, "doc.md", f"z[{VOCAB[4]}]")


def test_an_update_on_raw_moments_with_its_root_and_no_epsilon(tmp_path, run):
    """Under 'Conferindo `W[0, пьёт]` à mão': √v₁ ≈ s is the root of v (right), and Δ = η m₁ / (√v₁ + ε) =
    0,01 × m / s ≈ 0,0316 (ε left out, s repeated from above) is the entry's update, wrong, 'no bias correction'."""
    g = run["f0"]["gW"][0][Y]
    m, v = mp.mpf("0.1") * g, mp.mpf("0.001") * g * g
    s = mp.sqrt(v)
    step = mp.mpf("0.01") * m / s
    k = lambda x, n: c(x, n).replace(",", "{,}")                       # noqa: E731 (LaTeX's decimal comma)
    text = (f"## 7. Um passo de AdamW\n\nConferindo `W[0, {VOCAB[Y]}]` à mão: $g = {k(g, 6)}$, então "
            f"$m_1 = 0{{,}}1 \\times {k(g, 6)} = {k(m, 7)}$ e\n$\\sqrt{{v_1}} \\approx {k(s, 6)}$. O passo fica\n"
            f"$\\Delta = \\eta\\, m_1 / (\\sqrt{{v_1}} + \\varepsilon) = 0{{,}}01 \\times {k(m, 7)} / {k(s, 6)} "
            f"\\approx {k(step, 4)}$.\n")
    assert _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.md")) == \
        [(f"adamw[1].update[W,0,{Y}]", c(step, 4), "no bias correction")]


def test_a_latex_lead_in_over_an_align_block(tmp_path, run):
    """'对 $W_{0,\\text{пьёт}}$（初值 $0.2$）：' over an align* block whose lines are long: m₁, v₁, Δ and θ₁ are that
    entry's, and θ₁ = θ₀ − ηλθ₀ − Δ = … is adamw[1].W[0,пьёт], right (not the arithmetic of other entries that
    its operands happen to print).  (A guard: the bigram's few entries let the values decide here as well; in a
    one-layer GPT-2 whose every update is ±η they do not.)"""
    a = run["adamw"](mp.mpf("0.2"), run["f0"]["gW"][0][Y])
    e = int(mp.floor(mp.log10(a["v"])))
    text = ("\\section{一步 AdamW}\n\n"
            f"对 $W_{{0,\\text{{{VOCAB[Y]}}}}}$（初值 $0.2$）：\n\\begin{{align*}}\n"
            f"  m_1 &= (1-\\beta_1)\\,g = {r4(a['m'], 6)},\\qquad v_1=(1-\\beta_2)\\,g^2 = "
            f"{r4(a['v'] / mp.mpf(10) ** e, 3)}\\times10^{{{e}}},\\\\\n"
            f"  \\Delta &= \\eta\\,\\frac{{\\hat m_1}}{{\\sqrt{{\\hat v_1}}+\\epsilon}}={r4(a['update'], 6)},\\\\\n"
            f"  \\theta_1 &= \\theta_0-\\eta\\lambda\\theta_0-\\Delta=0.2-{r4(a['decay'], 5)}-({r4(a['update'], 6)})"
            f"={r4(a['new'], 6)}.\n\\end{{align*}}\n")
    rs = _results(tmp_path, text, _spec(tmp_path), "doc.tex")
    assert _wrong(rs) == []
    assert [r.ref for r in rs if r.number.text == r4(a["new"], 6)] == [f"adamw[1].W[0,{VOCAB[Y]}]"]


def test_shares_in_markdown_emphasis_with_their_query(tmp_path, seed1):
    """German: '*t4* verteilt sich mit a % auf *t1* und b % auf sich selbst, und *t1* schaut zu 100 % auf sich
    selbst': A[1,0], A[1,1] and A[0,0]; b with its last digit slipped is A[1,1], wrong, and nothing else is."""
    path, fw = seed1
    A = fw["A"]
    b = mp.mpf(r4(A[1][1] * 100, 2)) + mp.mpf("0.01")
    text = ("## 4. Aufmerksamkeit\n\nDie zweite Zeile der Matrix: *t4* verteilt sich mit "
            f"{c(A[1][0] * 100, 2)} % auf *t1* und\n{c(b, 2)} % auf sich selbst, und *t1* schaut natürlich zu "
            "100 % auf sich selbst.\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text, path, "doc.md"))] == [("A[1,1]", c(b, 2) + "%")]


def test_shares_given_with_a_word_for_on(tmp_path, seed1):
    """Romanian: 'Tokenul "t4" își împarte atenția: a pe "t1" și b pe el însuși' (t4's query, position 1), and
    'Rândul 3: … pe el însuși' (position 2): every share right, none called another row's."""
    path, fw = seed1
    A = fw["A"]
    text = (f"4. Atenție\n\nTokenul \"t4\" își împarte atenția: {r4(A[1][0])} pe \"t1\" și {r4(A[1][1])} pe el "
            f"însuși.\nPe rândul 3 (\"t0\") atenția e împărțită: {r4(A[2][0])} pe \"t1\", {r4(A[2][1])} pe \"t4\" și\n"
            f"{r4(A[2][2])} pe el însuși.\n")
    rs = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(rs) == []
    assert {r.ref for r in rs if r.verdict == "matched"} >= {"A[1,0]", "A[1,1]", "A[2,0]", "A[2,1]", "A[2,2]"}


def test_equations_a_conjunction_joins(tmp_path, run):
    """Under 'Para `W[0, пьёт]`:' a bullet 'm̂ = m / (1 - 0.9) = m̂ e v̂ = v / (1 - 0.999) = v̂': the last figure is
    v̂ (right), not m̂ (which it would be wrong as)."""
    a = run["adamw"](mp.mpf("0.2"), run["f0"]["gW"][0][Y])
    text = (f"## AdamW\n\nPara `W[0, {VOCAB[Y]}]`:\n\n"
            f"* `m̂ = {r4(a['m'], 6)} / (1 - 0.9) = {r4(a['mhat'], 6)}` e "
            f"`v̂ = {r4(a['v'], 9)} / (1 - 0.999) = {r4(a['vhat'], 6)}`\n")
    assert _right(tmp_path, text, "doc.md", f"adamw[1].vhat[W,0,{Y}]")


def test_a_power_of_a_name_is_no_name(tmp_path, seed1):
    """Czech: '$z_{3,3} ≈ z$: $z^3 ≈ z³$' beside a table of z (Z's row 3, so z is read): z³ is no entry of Z, and
    is not called one.  (A guard where z's reading is learned from the table.)"""
    path, fw = seed1
    Z = fw["blocks"][0]["Z"]
    table = "| j | " + " | ".join(str(j + 1) for j in range(4)) + " |\n|---|---|---|---|---|\n" + \
        "| z_{3,j} | " + " | ".join(r4(x, 3) for x in Z[2]) + " |\n"
    z = Z[2][2]
    text = (f"## 6. FFN\n\n{table}\nUkázka pro třetí neuron, $z_{{3,3}} \\approx {r4(z, 3).replace('.', '{,}')}$: "
            f"$z^3 \\approx {r4(z ** 3).replace('.', '{,}')}$, dál.\n")
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == []


def test_a_size_said_for_another_model(tmp_path, seed1):
    """'下一讲（第 8 讲）把序列长度加到 T=8' (the next lecture sets the sequence length to 8; the spec's T is 3):
    another model's size, not a wrong figure of this one."""
    path, _ = seed1
    text = "## 小结\n\n下一讲（第 8 讲）把序列长度加到 $T=8$，并把输出矩阵与嵌入共享。\n"
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == []


def test_an_underlined_title_may_hold_an_equation():
    """'Paso 9: muestreo con temperatura T = 0,7' over '=====' is a title (words before its '='); 'loss L = 1.25'
    over '-----' stays an equation."""
    text = ("Paso 9: muestreo con temperatura T = 0,7\n========================================\n\nTexto.\n\n"
            "loss L = 1.25\n-------------\n")
    assert [h[0] for h in extract(text).headings] == [1]


@pytest.mark.parametrize(("text", "value"), [("p = 0,3354, yani %33,5. Sonra", "33.5"), ("yani %3,10.", "3.10")])
def test_a_percent_first_before_a_full_stop(text, value):
    """Turkish writes the percent sign first; a full stop after the figure ends the sentence, not the figure."""
    assert [(n.kind, n.value) for n in extract(text) if n.kind == "percent"] == [("percent", Fraction(value))]
