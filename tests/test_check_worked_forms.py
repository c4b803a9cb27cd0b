"""check: forms the sixth round of held-out tutorials showed (issue 27), each on a text written here, in more than one
language, notation or format where the reading has words:

* an equation's form against the graph's definitions: a sum of products without the bias its node adds, with no
  name beside it (a forgotten term); ``θ − η·g`` printed as θ + η·g, or ``θ·(1 − ηλ) + Δ`` written for
  ``θ·(1 − ηλ) − Δ`` (an update with the wrong sign); a sum of squares divided by n − 1 (an unbiased variance);
  a labelled chain whose arithmetic is exactly another node's definition (that node);
* a sum of exponentials is the softmax's denominator; ``√(σ² + 10⁻⁶)`` is the norm's root with ε;
* tables: a row named by a letter its column binds (``s_2(3,j)`` under ``j = 1``); indices grouped under a name
  (``q`` over ``[0] [1]``); columns numbered 'unit 1'; full-width bars; ``T = 2.0``; a column ``U[2,runs]``
  under a corner of steps;
* prose: ``e^(0.22)`` after a word; δ defined as ``q − onehot(runs)``; 'a drop of 4.9 %'; 'the other 34
  parameters'; an article that is also a token; a temperature said on the line above; 'loss after one AdamW step';
* a PDF's matrix with its rows' names beside it (``x1``, ``X = x2 =``), and an equation whose ∂L / ∂h₁ the PDF
  set over two lines;
* a checkpoint's short names in an optimizer's table (``wte[in, 0]``, ``c_fc.bias[5]``).

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _block, _d, _f, _verdicts, _wrong, gpt2, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A post-LN block at d = 4 (seed 5, T = 3, two heads, d_ff = 8)."""
    return _block(tmp_path_factory, "forms-wide", seed=5, d=4, heads=2, d_ff=8, layers=1, T=3)


# ---------------------------------------------------------------- an equation's form


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_an_unnamed_sum_of_products_without_its_bias(tmp_path, wide, fmt):
    """u₁[j] = a × w + … = …, the bias left out and the name u never learned: Z[t,j], a forgotten term."""
    path, spec, fw = wide
    L = spec["layer"][0]
    t, j = 2, 1
    x = [r4(v, 6) for v in fw["LN1"][t]]
    without = fw["Z"][t][j] - _f(L["b_1"][j])
    printed = r4(without)
    assert printed != r4(fw["Z"][t][j])
    terms = " + ".join(f"({xv}) × ({_d(L['W_1'][i][j])})" for i, xv in enumerate(x))
    text = f"The MLP, unit by unit:\n\n    u₃[{j}] = {terms} = {printed}\n"
    got = _verdicts(_results(tmp_path, text, path, fmt))
    assert got[printed] == ("wrong", f"Z[{t},{j}]", "forgotten term")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_update_printed_uphill(tmp_path, run, lang):
    """W₁₂ : θ − η·g = …, the result θ + η·g: the new weight, its update's sign turned."""
    W0, gW = oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"]), run["f0"]["gW"]
    theta, g = W0[0][1], gW[0][1]
    uphill = r4(theta + mp.mpf("0.5") * g)
    words = {"en": "After one SGD step", "fr": "Après un pas de SGD"}[lang]
    text = f"{words} :\n\n    {_d(oracle.loads_spec(SPEC)['weights']['W'][0][1])} − 0.5 × ({r4(g)}) = {uphill}\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[uphill] == ("wrong", f"sgd[1].W[0,{VOCAB[1]}]", "update with the wrong sign")


def test_an_adamw_update_written_uphill(tmp_path, run):
    """θ·(1 − ηλ) + Δ written where AdamW subtracts Δ: the new weight, its update's sign turned."""
    theta = oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])[1][2]
    a = run["adamw"](theta, run["f0"]["gW"][1][2])
    written = r4(theta * (1 - mp.mpf("0.0001")) + a["update"], 6)
    text = (f"## One AdamW step\n\nFor W[1, {VOCAB[2]}]:\n\n"
            f"    θ₁ = {_d(oracle.loads_spec(SPEC)['weights']['W'][1][2])} × 0.9999 + {r4(a['update'], 10)} = "
            f"{written}\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[written] == ("wrong", f"adamw[1].W[1,{VOCAB[2]}]", "update with the wrong sign")


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_a_variance_divided_by_n_minus_1(tmp_path, wide, fmt):
    """(d₀² + d₁² + d₂² + d₃²) / 3 = …: the variance of the row, its sum divided by d − 1."""
    path, _, fw = wide
    t = 2
    h, mu = fw["H1"][t], fw["mu1"][t]
    squares = [(v - mu) ** 2 for v in h]
    printed = r4(mp.fsum(squares) / 3)
    text = (f"The mean is {r4(mu)}, and the variance of the row is "
            f"({' + '.join(r4(s) for s in squares)}) / 3 = {printed}.\n")
    got = _verdicts(_results(tmp_path, text, path, fmt))
    assert got[printed] == ("wrong", f"var1[{t}]", "unbiased variance")


def test_a_labelled_chain_that_defines_another_node(tmp_path, narrow):  # noqa: F811
    """x^{(1)}_{3,1} = h₀ + attention = …: the residual its arithmetic is, not the x the symbol first read as."""
    path, _, fw = narrow
    t = 2
    text = "\n".join([f"$x_{{{t + 1},{j + 1}}} = {r4(fw['LN1'][t][j])}$" for j in range(2)] +
                     [f"$x^{{(1)}}_{{{t + 1},1}} = {r4(fw['H0'][t][0])} + {r4(fw['Attn'][t][0])} = "
                      f"{r4(fw['H1'][t][0])}$"]) + "\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert got[r4(fw["H1"][t][0])][:2] == ("matched", f"H1[{t},0]")


# ---------------------------------------------------------------- sums and roots


@pytest.mark.parametrize("layout", ["S = ∑_k e^(z_k) = {} ≈ {}", "$\\sum_j e^{{z_j}} = {} = {}$"])
def test_a_sum_of_exponentials_is_the_softmax_denominator(tmp_path, run, layout):
    z = run["f0"]["z"]
    parts = " + ".join(r4(mp.exp(v)) for v in z)
    total = r4(mp.fsum(mp.exp(v) for v in z))
    got = _verdicts(_results(tmp_path, layout.format(parts, total) + "\n", write_spec(tmp_path, SPEC)))
    assert got[total][:2] == ("matched", "sum_exp")


@pytest.mark.parametrize("root", ["√({} + 10⁻⁵) = {}", "$\\sqrt{{{} + 10^{{-5}}}} = {}$"])
def test_a_root_with_epsilon_written_in(tmp_path, wide, root):
    """√(σ² + 10⁻⁵): the norm's root with ε, where ε moves no printed digit."""
    path, _, fw = wide
    t = next(t for t in range(3) if r4(mp.sqrt(fw["var1"][t] + mp.mpf("1e-5"))) == r4(mp.sqrt(fw["var1"][t])))
    var = fw["var1"][t]
    shown = r4(mp.sqrt(var + mp.mpf("1e-5")))
    text = f"σ² = {r4(var)}; " + root.format(r4(var), shown) + "\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert got[shown][:2] == ("matched", f"sqrt(var1[{t}] + ln_eps)")


# ---------------------------------------------------------------- tables


@pytest.mark.parametrize("row", ["$s(3,j)$", "$s_{{3,j}}$"])
def test_a_row_named_by_a_letter_its_columns_bind(tmp_path, narrow, row):  # noqa: F811
    """| s(3,j) | … | under | | j = 1 | j = 2 | j = 3 |: S at row 3, column j (as written, from 1)."""
    path, _, fw = narrow
    S = fw["S"]
    swapped = r4(S[0][2]) if r4(S[0][2]) != r4(S[2][0]) else r4(S[2][0] + mp.mpf("0.0111"))
    text = ("| | $j = 1$ | $j = 2$ | $j = 3$ |\n|:--|--:|--:|--:|\n"
            f"| $s(2,j)$ | {r4(S[1][0])} | {r4(S[1][1])} | −∞ |\n"
            f"| {row.format()} | {swapped} | {r4(S[2][1])} | {r4(S[2][2])} |\n")
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("S[2,0]", swapped)]


@pytest.mark.parametrize("sub", ["[{}]", "dim {}"])
def test_indices_grouped_under_their_names(tmp_path, narrow, sub):  # noqa: F811
    """      q           k      over  t   [0]  [1]  [0]  [1]: each index under its name, Q's and K's entries."""
    path, _, fw = narrow
    Q, K = fw["Q"], fw["K"]
    bad = r4(Q[0][1]) if r4(Q[0][1]) != r4(Q[1][0]) else r4(Q[1][0] + mp.mpf("0.0111"))
    head = "      " + "".join(f"{s:>10}" for s in [sub.format(0), sub.format(1)] * 2)
    rows = [f"  {t:<4}" + "".join(f"{v:>10}" for v in vals) for t, vals in
            ((0, [r4(Q[0][0]), r4(Q[0][1]), r4(K[0][0]), r4(K[0][1])]),
             (1, [bad, r4(Q[1][1]), r4(K[1][0]), r4(K[1][1])]))]
    text = "Queries and keys, one row per position:\n\n" + \
        "                  q                   k\n" + "  t " + head[4:] + "\n" + "\n".join(rows) + "\n"
    results = _results(tmp_path, text, path, "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("Q[1,0]", bad)]


def test_columns_numbered_unit_1_under_a_corner_word(tmp_path):
    """| word | unit 1 | unit 2 |: E's rows, counted from 1; | W | the | … | with rows 'unit 1': W's."""
    spec = oracle.loads_spec(SPEC)
    E, W = spec["weights"]["E"], spec["weights"]["W"]
    slip = _d(W[1][3] + type(W[1][3])(1, 10))
    text = ("| word | unit 1 | unit 2 |\n|:--|--:|--:|\n" +
            "".join(f"| {VOCAB[v]} | {_d(E[v][0])} | {_d(E[v][1])} |\n" for v in range(5)) +
            "\nAnd the output matrix:\n\n| W | " + " | ".join(VOCAB) + " |\n|:--|" + "--:|" * 5 + "\n" +
            f"| unit 1 | {' | '.join(_d(w) for w in W[0])} |\n"
            f"| unit 2 | {' | '.join(_d(w) if j != 3 else slip for j, w in enumerate(W[1]))} |\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"W[1,{VOCAB[3]}]", slip)]


def test_a_table_drawn_with_full_width_bars(tmp_path, narrow):  # noqa: F811
    """｜ s_ij ｜ j=0 ｜ … ｜ with a transposed cell: S's entry, wrong."""
    path, _, fw = narrow
    S = fw["S"]
    bad = r4(S[0][2], 3) if r4(S[0][2], 3) != r4(S[2][0], 3) else r4(S[2][0] + mp.mpf("0.011"), 3)
    text = ("缩放后的分数：\n\n　　｜ s_ij ｜ j=0 ｜ j=1 ｜ j=2 ｜\n"
            f"　　｜ i=1 ｜ {r4(S[1][0], 3)} ｜ {r4(S[1][1], 3)} ｜ −∞ ｜\n"
            f"　　｜ i=2 ｜ {bad} ｜ {r4(S[2][1], 3)} ｜ {r4(S[2][2], 3)} ｜\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("S[2,0]", bad)]


@pytest.mark.parametrize("fmt", ["doc.txt", "doc.md"])
def test_a_temperature_written_as_2_point_0(tmp_path, run, fmt):
    """A column T=2.0: the distribution at temperature 2; a cell copied from the row above is wrong."""
    z = run["f0"]["z"]
    p2 = oracle.softmax([v / 2 for v in z])
    copied = r4(p2[1])
    assert copied != r4(p2[2])
    cells = [r4(v) for v in p2]
    cells[2] = copied
    if fmt == "doc.txt":
        text = "词　　T=1　　　T=2.0\n" + "".join(f"{VOCAB[v]}　　{r4(run['f0']['p'][v])}　　{cells[v]}\n"
                                              for v in range(5))
    else:
        text = "| word | T=1 | T=2.0 |\n|--|--:|--:|\n" + "".join(
            f"| {VOCAB[v]} | {r4(run['f0']['p'][v])} | {cells[v]} |\n" for v in range(5))
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), fmt)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"softmax_T(2, {VOCAB[2]})", copied)]


def test_a_column_of_one_entry_under_a_corner_of_steps(tmp_path, run):
    """| step | J | U[2,пьёт] |, U the author's name for W counted from 1: each row the state after k steps."""
    rows = "".join(f"| {k} | {r4(run['f'][k]['loss'])} | {r4(run['states'][k][1][1][3])} |\n" for k in range(4))
    bad = r4(run["states"][2][1][1][3] + mp.mpf("0.0100"))
    rows = rows.replace(f"| {r4(run['states'][2][1][1][3])} |", f"| {bad} |")
    text = f"| step | J | U[2,{VOCAB[3]}] |\n|--:|--:|--:|\n{rows}"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"sgd[2].W[1,{VOCAB[3]}]", bad)]


# ---------------------------------------------------------------- prose


@pytest.mark.parametrize("lead", ["On my calculator", "Mit dem Taschenrechner:"])
def test_e_to_a_power_after_a_word(tmp_path, run, lead):
    """'On my calculator e^(0.19) = …, and e^(0.22) = …': exp of the figure inside, a slip found."""
    z = run["f0"]["z"]
    swapped = r4(mp.exp(z[4]))
    swapped = swapped[:-2] + swapped[-1] + swapped[-2]
    assert swapped != r4(mp.exp(z[4]))
    text = f"{lead} e^({r4(z[0])}) = {r4(mp.exp(z[0]))}, and e^({r4(z[4])}) = {swapped}.\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"exp(z[{VOCAB[4]}])", swapped)]


def test_delta_defined_as_q_minus_onehot(tmp_path, run):
    """δ = q − onehot(пьёт) = (…), the target's entry printed as its probability: ∂L/∂z there, −y forgotten."""
    p = run["f0"]["p"]
    vec = ", ".join(r4(v) for v in p)
    text = f"As a vector, δ = q − onehot({VOCAB[Y]}):\n\n    δ = q − onehot({VOCAB[Y]}) = ({vec})\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert _wrong(results) == [(f"grad_z[{VOCAB[Y]}]", r4(p[Y]), "forgotten −y")]


@pytest.mark.parametrize("sentence", ["Over three steps J fell from {} to {}, a drop of {}%.",
                                      "En trois pas, la perte passe de {} à {}, une baisse de {} %."])
def test_a_relative_drop_with_its_point_moved(tmp_path, run, sentence):
    """'a drop of 4.9%' where J fell by 49.0 % of itself: the relative drop, its point moved."""
    before, after = run["f"][0]["loss"], run["f"][3]["loss"]
    share = (before - after) / before * 100
    moved = r4(share / 10, 1)
    assert moved != r4(share, 1)
    text = sentence.format(r4(before), r4(after), moved) + "\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    wrong = _wrong(results)
    assert [(ref, cause) for ref, _, cause in wrong] == [("(loss - sgd[3].loss) / loss", "scale slip")]


@pytest.mark.parametrize("sentence", ["The other {} parameters barely move.",
                                      "Die übrigen {} Parameter bewegen sich kaum."])
def test_a_part_of_the_parameters_is_no_count_of_them(tmp_path, sentence):
    """'the other 7 parameters': a part, not the model's count (12 here)."""
    text = sentence.format(7) + "\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert _wrong(results) == []


ENGLISH = """
[model]
kind = "bigram"
vocab = ["the", "dog", "runs", "fast"]
d = 2
[data]
input = ["dog"]
target = "runs"
[weights]
E = [[0.1, -0.3], [0.5, -0.2], [-0.1, 0.4], [0.3, 0.1]]
W = [[0.2, -0.1, 0.3, 0.15], [-0.3, 0.4, 0.1, -0.2]]
[sampling]
temperatures = ["0.5", "2"]
"""


def _english():
    spec = oracle.loads_spec(ENGLISH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    z = [sum(E[1][i] * W[i][j] for i in range(2)) for j in range(4)]
    return z, oracle.softmax(z)


def test_an_article_that_is_also_a_token(tmp_path):
    """'with only 27.03% of the mass': the share of the word named before it, not of the article 'the'."""
    with mp.workdps(50):
        _, p = _english()
    text = f"The right word runs is the favourite, but with only {r4(p[2] * 100, 2)}% of the mass.\n"
    results = _results(tmp_path, text, write_spec(tmp_path, ENGLISH))
    assert _wrong(results) == []
    assert _verdicts(results)[f"{r4(p[2] * 100, 2)}%"][:2] == ("matched", "p[runs]")


@pytest.mark.parametrize("fmt", ["doc.txt", "doc.md"])
def test_a_temperature_said_on_the_line_above(tmp_path, fmt):
    """'At T = 2 the favourite keeps only 31.2%,⏎ and dog still gets 24.0%': both at T = 2."""
    with mp.workdps(50):
        z, _ = _english()
        p2 = oracle.softmax([v / 2 for v in z])
    text = (f"At T = 2 the favourite keeps only {r4(p2[3] * 100, 1)}%,\n"
            f"and even dog still gets {r4(p2[1] * 100, 1)}%.\n")
    results = _results(tmp_path, text, write_spec(tmp_path, ENGLISH), fmt)
    got = _verdicts(results)
    assert got[f"{r4(p2[1] * 100, 1)}%"][:2] == ("matched", "softmax_T(2, dog)")
    assert _wrong(results) == []


@pytest.mark.parametrize("line", ["loss after one AdamW step: {}", "Verlust nach 1 AdamW-Schritt: {}"])
def test_the_loss_after_a_count_of_steps(tmp_path, run, line):
    """'loss after one AdamW step: …' names the loss after that step, wrong by its last digits."""
    f = run["f0"]
    spec = oracle.loads_spec(SPEC)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    W1 = [[run["adamw"](W[i][j], f["gW"][i][j])["new"] for j in range(5)] for i in range(2)]
    E1 = [[run["adamw"](E[r][i], f["gx"][i] if r == X else mp.mpf(0))["new"] for i in range(2)] for r in range(5)]
    z = [sum(E1[X][i] * W1[i][j] for i in range(2)) for j in range(5)]
    loss = -mp.log(oracle.softmax(z)[Y])
    slip = r4(loss + mp.mpf("0.000003"), 6)
    got = _verdicts(_results(tmp_path, line.format(slip) + "\n", write_spec(tmp_path, SPEC)))
    assert got[slip][:2] == ("wrong", "adamw[1].loss")


# ---------------------------------------------------------------- PDF layouts, checkpoints


def test_a_matrix_with_its_rows_names_beside_it(tmp_path, narrow):  # noqa: F811
    """pdftotext's rows 'x1  0.3000 0.9000', 'X = x2 = …', 'x3 …': X's rows (H0), one entry slipped."""
    path, _, fw = narrow
    H0 = fw["H0"]
    bad = r4(H0[2][0])
    bad = bad[:-2] + bad[-1] + bad[-2] if bad[-1] != bad[-2] else r4(H0[2][0] + mp.mpf("0.0011"))
    text = ("Stacking the three rows,\n\n"
            f"               x1    {r4(H0[0][0])} {r4(H0[0][1])}\n"
            f"        X = x2  = {r4(H0[1][0])} {r4(H0[1][1])}  .\n"
            f"               x3    {bad} {r4(H0[2][1])}\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("H0[2,0]", bad)]


def test_an_equation_over_a_fractions_lines(tmp_path, narrow):  # noqa: F811
    """∂L / ∂h₁ set over two lines, its sum's second half on the third: the gradient's entry, from the rounded terms."""
    path, spec, fw = narrow
    E = oracle.mat(spec["weights"]["E"])
    g = [p - (1 if v == oracle.token_ids(spec, [spec["data"]["target"]])[0] else 0) for v, p in enumerate(fw["p"])]
    terms = [f"{_d(spec['weights']['E'][v][0])} × ({r4(g[v])})" for v in range(5)]
    carried = r4(mp.fsum(mp.mpf(_d(spec["weights"]["E"][v][0])) * mp.mpf(r4(g[v])) for v in range(5)))
    exact = r4(mp.fsum(E[v][0] * g[v] for v in range(5)))
    if carried == exact:
        pytest.skip("the rounded terms give the exact rounding here")
    text = (f"                 ∂L\n                     = {' + '.join(terms[:3])}\n"
            f"                 ∂h1\n                         + {' + '.join(terms[3:])} = {carried},\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(results) == [("grad_h_final[0]", carried, "carried rounding")]


def test_a_checkpoints_short_names_as_a_tables_rows(tmp_path, gpt2):  # noqa: F811
    """| `wte[t2, 0]` | θ₀ | … | and | `c_fc.bias[5]` | … |, | `h[0].attn.c_attn.weight[1, 5]` |: the spec's
    entries (E, b_1, W_K through c_attn's Q|K|V), read as their rows' parameters."""
    path, spec = gpt2
    L = spec["layer"][0]
    slip = _d(L["b_1"][5] + type(L["b_1"][5])(3, 100))
    text = ("| parameter | θ₀ |\n|---|---:|\n"
            f"| `wte[t2, 0]` | {_d(spec['weights']['E'][2][0])} |\n"
            f"| `c_fc.bias[5]` | {slip} |\n"
            f"| `h[0].attn.c_attn.weight[1, 5]` | {_d(L['W_K'][1][1])} |\n")
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("b_1[5]", slip)]


# ---------------------------------------------------------------- round 37: vectors, handouts, printouts


@pytest.mark.parametrize("name", ["\\boldsymbol{\\pi} - \\boldsymbol{y}", "ŷ^{(1)} − y^{(1)}"])
def test_a_vector_named_p_minus_y_with_the_targets_sign_turned(tmp_path, run, name):
    """$π − y = (…)$ with 1 − p at the target: ∂L/∂z there, its sign flipped."""
    g = [p - (1 if j == Y else 0) for j, p in enumerate(run["f0"]["p"])]
    shown = [r4(v) for v in g]
    shown[Y] = r4(-g[Y])
    text = f"$${name} = ({', '.join(shown)})$$\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert _wrong(results) == [(f"grad_z[{VOCAB[Y]}]", shown[Y], "sign flip")]


def test_another_examples_p_minus_y_names_nothing(tmp_path):
    """ŷ⁽²⁾ − y⁽²⁾ = (…) on a mini-batch: the second example's gradient, none of the spec's quantities."""
    from test_check_authors import BATCH
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    x, y = VOCAB.index("рыбу"), VOCAB.index("спит")
    with mp.workdps(50):
        p = oracle.softmax([sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)])
    g = ", ".join(r4(v - (1 if j == y else 0)) for j, v in enumerate(p))
    results = _results(tmp_path, f"$$ŷ^{{(2)}} − y^{{(2)}} = ({g})$$\n", write_spec(tmp_path, BATCH))
    assert _wrong(results) == []


def test_a_numpy_printout_with_bare_points(tmp_path, narrow):  # noqa: F811
    """NumPy prints a ReLU's zeros as ``0.`` (``[[0.4123 0.     0.2 …]]``): each entry keeps its column."""
    path, _, fw = narrow
    R = fw["R"]
    assert any(v == 0 for row in R for v in row[:-1])
    bad = r4(R[2][3] + mp.mpf("0.0100"))
    cell = lambda v: "0.    " if v == 0 else r4(v)   # noqa: E731
    rows = [[cell(v) for v in row] for row in R]
    rows[2][3] = bad
    text = "```python\nprint(R)\n```\n```\n[" + "\n ".join("[" + " ".join(r) + "]" for r in rows) + "]\n```\n"
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("R[2,3]", bad)]


@pytest.mark.parametrize("log", ["− log", "-\\log"])
def test_a_loss_with_the_common_logarithm(tmp_path, run, log):
    """ℓ = −log 0.2118 = 0.6741 where ln gives 1.5522: the loss, its logarithm's base 10."""
    p = run["f0"]["p"][Y]
    slip = r4(-mp.log10(mp.mpf(r4(p))))
    text = f"$ℓ_1 = {log} \\hat y = {log} {r4(p)} = {slip}$\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert _wrong(results) == [("loss", slip, "log₁₀ for ln")]


@pytest.mark.parametrize("words", [("Exercice 1 : la sortie", "Solution. On trouve", "Reprendre l'exercice 1 avec"),
                                   ("Exercise 1: the output", "Solution. We find", "Redo exercise 1 with")])
def test_a_handouts_solved_exercises_are_claims(tmp_path, run, words):
    """A numbered exercise followed by its solution is worked: its wrong figure is wrong; the closing 'redo the
    exercise with η = 0,05' sets another rate, no claim."""
    p = run["f0"]["p"][Y]
    slip = r4(p + mp.mpf("0.0100"))
    text = (f"## {words[0]}\n\n{words[1]} p = {slip}.\n\n## Questions\n\n{words[2]} η = 0.05.\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"p[{VOCAB[Y]}]", slip)]


def test_a_heads_run_of_columns_in_one_table(tmp_path, wide):
    """| t | head 1: s=0 | s=1 | s=2 | head 2: s=0 | s=1 | s=2 |: each run its head's weights; a cell copied from
    its neighbour is wrong as its own."""
    path, _, fw = wide
    A = fw["A"]
    rows = []
    for t in range(3):
        cells = [r4(A[h][t][s]) for h in range(2) for s in range(3)]
        if t == 2:
            cells[4] = cells[5]
            copied = cells[5]
        rows.append(f"| {t} | " + " | ".join(cells) + " |")
    assert copied != r4(A[1][2][1])
    text = "| t | head 1: s=0 | s=1 | s=2 | head 2: s=0 | s=1 | s=2 |\n|---|" + "---|" * 6 + "\n" + \
        "\n".join(rows) + "\n"
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("A[1,2,1]", copied)]


# ---------------------------------------------------------------- round 38


def test_a_grid_table_under_a_caption_with_a_percent_column(tmp_path, run):
    """'Tabela 3.' over a +---+ grid table | palavra | q_j | q_j em % |: each column p, printed twice a row; a slip
    in the decimal column is wrong though the percent beside it is right."""
    p = run["f0"]["p"]
    slip = r4(p[4])
    slip = slip[:-2] + slip[-1] + slip[-2] if slip[-1] != slip[-2] else r4(p[4] + mp.mpf("0.0011"))
    rule = "    +---------+---------+----------+"
    rows = [f"    | {VOCAB[v]:<7} | {r4(p[v]) if v != 4 else slip}  | {r4(p[v] * 100, 2)}% |" for v in range(5)]
    text = "\n".join(["Tabela 3. Distribuição prevista", "", rule, "    | palavra |   q_j   | q_j em % |", rule,
                      *rows, rule, ""])
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [(f"p[{VOCAB[4]}]", slip)]


@pytest.mark.parametrize("sentence", ["The second window gives {v} only p = {p}, so ℓ₂ = {l}.",
                                      "La deuxième séquence donne à {v} seulement p = {p}, donc ℓ₂ = {l}."])
def test_the_second_window_of_a_batch_names_nothing(tmp_path, sentence):
    """On a mini-batch, 'the second window' works another example: its p and ℓ are none of the spec's."""
    from test_check_authors import BATCH
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    x, y = VOCAB.index("рыбу"), VOCAB.index("спит")
    with mp.workdps(50):
        p = oracle.softmax([sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)])
    text = sentence.format(v=VOCAB[y], p=r4(p[y]), l=r4(-mp.log(p[y]))) + "\n"
    results = _results(tmp_path, text, write_spec(tmp_path, BATCH))
    assert _wrong(results) == []


def test_a_matrix_of_symbols_beside_its_figures(tmp_path, narrow):  # noqa: F811
    """pdftotext's 's11   s12     0.37  −0.36' ⏎ 's21   s22     −0.36  0.26': each figure its symbol's entry (S, from
    1), a transposed one wrong as its own."""
    path, _, fw = narrow
    S = fw["S"]
    swapped = r4(S[0][1]) if r4(S[0][1]) != r4(S[1][0]) else r4(S[1][0] + mp.mpf("0.0111"))
    text = ("The scores before the mask:\n\n"
            f"        s11   s12          {r4(S[0][0])}    {r4(S[0][1])}\n"
            f"        s21   s22          {swapped}    {r4(S[1][1])}\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("S[1,0]", swapped)]
