"""check: rows, matrices and clauses as authors lay them out (issue 27), on texts written for these tests in several
notations and languages.  Every expected value is computed here (``tests/oracle.py`` or mpmath in the test, 60
digits), never taken from symgpt.

* A table's row of four cells or more prints one vector: when every other cell is one tensor's entry at its place,
  the odd cell is that tensor's entry too, even at the row's end (a sign-flipped first entry).
* A text table's row numbered ``3.`` whose first entry is negative is a row, not a section's title.
* Two matrices set side by side (``K = ( … ),  V = ( … )``, as a PDF lays out a display) share their rows.
* ``a_{3,2}`` is an attention weight (the English article only without indices); ``L = − ln P(t)`` is the loss,
  not ln P(t) with its sign flipped.
* Equations set one after another in a sentence (``… = 0.6634, −0.1 − 0.5 · (−0.5039) = 0.1520 och …``) each
  close their own clause: the second is read as arithmetic, and its carried rounding is found.
* A quoted token after a share names it, not a token that is also a word of the sentence (Arabic إلى, 'to').
* A percentage restating a share printed above it with its point moved counts the zero after its point (3.30 %).
* A mean of squares said as ``Σ (…)²`` and printed with three digits over d − 1 is that norm's spread, wrong.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_readings import SPEC, VOCAB, X, by_hand
from test_check_shares import _results, _wrong


@pytest.fixture(autouse=True, scope="module")
def _digits():
    """60 digits while this module's tests run; the global precision is given back after them."""
    before, mp.mp.dps = mp.mp.dps, 60
    yield
    mp.mp.dps = before


def r(x, places=4) -> str:
    """Half away from zero, as tutorials round."""
    d = Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return str(d)


@pytest.fixture(scope="module")
def seed3(tmp_path_factory):
    """tests/oracle.py's one-layer, one-head block, seed 3 (d = 4, d_ff = 4, T = 3): path and forward pass."""
    path = write_spec(tmp_path_factory.mktemp("seed3"),
                      oracle.random_spec_toml(seed=3, V=5, d=4, heads=1, d_ff=4, layers=1, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


def _seed1(tmp_path, names: dict):
    """Seed 1's block (input t1 t4 t0, all distinct) with its tokens renamed: path and forward pass."""
    toml = oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=4, layers=1, T=3)
    for old, new in names.items():
        toml = toml.replace(f'"{old}"', f'"{new}"')
    path = write_spec(tmp_path, toml)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


# ---------------------------------------------------------------- rows and matrices

@pytest.mark.parametrize("layout", ["text", "markdown"])
def test_a_rows_odd_cell_at_its_end_is_the_rows_tensor(tmp_path, seed3, layout):
    """'pre-activation z_3  −z₀  z₁  z₂  z₃' under 'unit 1 … unit 4': three cells are Z[2,1..3], so the first is
    Z[2,0], wrong, 'sign flip' (its value is no other entry's); the ReLU row below is right."""
    path, f = seed3
    Z, R = f["blocks"][0]["Z"][2], f["blocks"][0]["R"][2]
    row = [r(-Z[0])] + [r(x) for x in Z[1:]]
    if layout == "text":
        text = ("7. The MLP at the last position\n\n" + " " * 24 + "unit 1   unit 2   unit 3   unit 4\n\n"
                "  pre-activation r_3    " + "".join(f"{x:>9}" for x in row) + "\n"
                "  after ReLU            " + "".join(f"{r(x):>9}" for x in R) + "\n")
    else:
        text = ("## 7. The MLP at the last position\n\n| | unit 1 | unit 2 | unit 3 | unit 4 |\n|---|---|---|---|---|\n"
                "| pre-activation $r_3$ | " + " | ".join(row) + " |\n| after ReLU | " +
                " | ".join(r(x) for x in R) + " |\n")
    rs = _results(tmp_path, text, path, "doc.txt" if layout == "text" else "doc.md")
    assert _wrong(rs) == [("Z[2,0]", row[0], "sign flip")]


def test_a_row_numbered_three_with_a_negative_first_entry_is_a_row(tmp_path):
    """A score table laid out with spaces, rows numbered '1.', '2.', '3.', row 3 starting with a minus: one table,
    so its transposed entry at row 3, column 2 is S[2,1], wrong, 'transposed index' (not S[1,2] matched).
    Hungarian decimal commas."""
    path, f = _seed1(tmp_path, {})
    S = [row[:] for row in f["S"]]
    shown = [[S[i][j] for j in range(3)] for i in range(3)]
    shown[2][1] = S[1][2]                          # printed at (3, 2): the entry at (2, 3)
    assert r(S[1][2]) != r(S[2][1]) and r(S[2][0]).startswith("-")
    body = "\n".join(f"      {i + 1}.   " + "".join(f"{r(x).replace('.', ','):>10}" for x in row)
                     for i, row in enumerate(shown))
    text = ("5. Pontszámok\n\n   A teljes 3 × 3-as tábla (sor = query, oszlop = key), maszkolás előtt:\n\n"
            "                 1.        2.        3.\n" + body + "\n")
    rs = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(rs) == [("S[2,1]", r(S[1][2]).replace(".", ","), "transposed index")]


@pytest.mark.parametrize("gap", ["\uf8f7", "⎟"])
def test_two_matrices_side_by_side_share_their_rows(tmp_path, seed3, gap):
    """K and V set side by side as a PDF's text lays a display out, their names on the middle row, bracket pieces
    between the rows: row i's first four figures are K's, the next four V's; one K entry printed transposed is
    K[2,1], wrong (not K[1,2] matched)."""
    path, f = seed3
    K, V = f["K"], f["V"]
    Kp = [[K[i][j] for j in range(4)] for i in range(3)]
    Kp[2][1] = K[1][2]
    assert r(K[1][2], 3) != r(K[2][1], 3)

    def cells(row):
        return "  ".join(f"{r(x, 3):>7}" for x in row)
    text = ("4. Keys and values\n\n"
            f"          {cells(Kp[0])}          {cells(V[0])}\n   {gap}\n"
            f"K^(1) =   {cells(Kp[1])} ,  V^{{(1)}} =  {cells(V[1])} .\n"
            f"          {cells(Kp[2])}          {cells(V[2])}\n")
    rs = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(rs) == [("K[2,1]", r(K[1][2], 3), "transposed index")]
    assert {x.ref for x in rs if x.verdict == "matched"} >= {f"V[{i},{j}]" for i in range(3) for j in range(4)}


@pytest.mark.parametrize("form", ["a_{{3,{j}}} = {v}", "a_{{3,{j}}}^{{(1)}} = {v}"])
def test_a_with_two_indices_is_an_attention_weight(tmp_path, seed3, form):
    """``a_{3,1} = …, a_{3,2} = …`` (positions from 1): A[2,0] and A[2,1]; a copy of the neighbour in a_{3,2} is
    A[2,1], wrong (not A[2,0] matched)."""
    path, f = seed3
    A = f["A"][2]
    shown = [A[0], A[0], A[2]]
    assert r(A[0], 3) != r(A[1], 3)
    text = "## Attention at the last position\n\n" + ",   ".join(
        form.format(j=j + 1, v=r(x, 3)) for j, x in enumerate(shown)) + ".\n"
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == [("A[2,1]", r(A[0], 3), "plain error")]


@pytest.mark.parametrize("eq", ["L = − ln P(t1) = {v}", "$\\mathcal{{L}} = -\\ln p(\\text{{t1}}) = {v}$"])
def test_minus_ln_of_the_targets_probability_is_the_loss(tmp_path, seed3, eq):
    """``L = − ln P(t1) = 1.8411``: the loss, right (not ln p[t1] with its sign flipped)."""
    path, f = seed3
    text = "## Loss\n\nThe cross-entropy loss is\n\n    " + eq.format(v=r(f["loss"])) + "\n"
    rs = _results(tmp_path, text, path, "doc.md")
    assert _wrong(rs) == [] and "loss" in [x.ref for x in rs if x.verdict == "matched"]


# ---------------------------------------------------------------- clauses and shares

@pytest.fixture(scope="module")
def run():
    yield from by_hand()


@pytest.mark.parametrize("join", [" och ", ", ", "; "])
def test_equations_one_after_another_in_a_sentence(tmp_path, run, join):
    """Three SGD updates of E's input row worked in one sentence; the second printed from its rounded gradient
    (carried rounding): sgd[1].E[кот,1], wrong, 'carried rounding'; the others right.  (A guard: each result now
    gets its own clause's chain; before, the second was judged from its candidates, which give the same here.)"""
    E0 = [[mp.mpf(x) / 10 for x in row] for row in ((6, -3), (1, 4), (-2, 5), (3, 2), (4, -1))]
    gx = run["f0"]["gx"]
    new = [E0[X][i] - mp.mpf("0.5") * gx[i] for i in range(2)]
    carried = Decimal(r(E0[X][1], 1)) - Decimal("0.5") * Decimal(r(gx[1], 3))    # from g printed at 3 places
    carried = str(carried.quantize(Decimal("0.0001"), ROUND_HALF_UP))
    assert carried != r(new[1])
    parts = [f"{r(E0[X][0], 1)} − 0,5 · ({r(gx[0])}) = {r(new[0])}",
             f"{r(E0[X][1], 1)} − 0,5 · ({r(gx[1], 3)}) = {carried}"]
    text = ("<h2>4. Ett SGD-steg</h2>\n<p>Räknat för hand: " + join.join(p.replace(".", ",") for p in parts)
            + ". De andra raderna i E rör vi inte (η = 0,5).</p>\n")
    text = text.replace("-", "−")
    rs = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.html")
    assert _wrong(rs) == [(f"sgd[1].E[{VOCAB[X]},1]", carried.replace(".", ",").replace("-", "−"),
                           "carried rounding")]


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_a_quoted_token_after_a_share_outweighs_a_word_that_is_a_token(tmp_path, lang):
    """Tokens renamed so that one is a preposition of the sentence (Arabic إلى 'to', English 'to'): the share
    before '… إلى «الولد»' is the query's weight on الولد's position (A[2,0]), right, not on إلى's."""
    names = {"ar": {"t1": "الولد", "t4": "إلى", "t0": "ذهب"}, "en": {"t1": "boy", "t4": "to", "t0": "went"}}[lang]
    path, f = _seed1(tmp_path, names)
    A = f["A"][2]
    q, k0, k1 = names["t0"], names["t1"], names["t4"]
    if lang == "ar":
        text = (f"## 5. أوزان الانتباه\n\nالكلمة «{q}» توجّه {r(100 * A[2], 1)}% من انتباهها إلى نفسها، "
                f"و {r(100 * A[1], 1)}% إلى «{k1}»، و {r(100 * A[0], 1)}% فقط إلى «{k0}».\n")
    else:
        text = (f"## 5. Attention\n\n“{q}” keeps {r(100 * A[2], 1)}% of its attention for itself, gives "
                f"{r(100 * A[1], 1)}% to “{k1}”, and {r(100 * A[0], 1)}% only to “{k0}”.\n")
    rs = _results(tmp_path, text, path, "doc.md")
    assert _wrong(rs) == []
    assert [f"A[2,{j}]" in [x.ref for x in rs if x.verdict == "matched"] for j in (0, 1, 2)] == [True] * 3


def test_a_percentage_restating_a_share_counts_its_trailing_zero(tmp_path):
    """A's row 2 printed at three places (0.190 for A[1,0] = 0.18967), then '1.90 %' for it in words: A[1,0],
    wrong, 'scale slip' (three significant digits, the zero after the point counted)."""
    path, f = _seed1(tmp_path, {})
    A = f["A"]
    assert r(A[1][0], 3) == "0.190"
    text = ("## Attention weights\n\n| query | t1 | t4 | t0 |\n|---|---|---|---|\n" +
            "\n".join(f"| {q} | " + " | ".join(r(A[i][j], 3) for j in range(3)) + " |"
                      for i, q in enumerate(["t1", "t4", "t0"])) +
            "\n\nSo “t4” looks back at “t1” with only 1.90% of its attention.\n")
    rs = _results(tmp_path, text, path, "doc.md")
    assert _wrong(rs) == [("A[1,0]", "1.90%", "scale slip")]


@pytest.mark.parametrize("form", ["(1/4)·Σ_j (h_j − μ)² = {v}", "$\\frac{{1}}{{4}}\\sum_j (h_j-\\mu)^2 = {v}$"])
def test_a_mean_of_squares_over_d_minus_one_with_three_digits(tmp_path, seed3, form):
    """The first norm's variance at the last position worked over d − 1 and printed with three significant digits
    after a sum of squares: var1[2], wrong, 'unbiased variance' (three digits need the formula to name it)."""
    path, f = seed3
    var = f["blocks"][0]["var1"][2]
    slip = var * 4 / 3
    digits = 3 - 1 - int(mp.floor(mp.log10(slip)))          # three significant digits
    v = r(slip, digits)
    assert len(re.sub(r"^[0.]+", "", v)) == 3
    text = "## The first norm, last position\n\n" + form.format(v=v) + "\n"
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == [("var1[2]", v, "unbiased variance")]
