"""check: a figure's place names its quantity before its value does (issue 27), on texts written for these
tests in several notations and languages, every expected value computed here by hand (``tests/oracle.py``,
mpmath at 60 digits) and never taken from symgpt."""
from __future__ import annotations

import json
import tomllib

import mpmath as mp
import pytest

from symgpt.check import check
from symgpt.claims.extract import extract

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, _wrong, _wrong_of, forward
from test_check_sections import distinct_heads  # noqa: F401 - a fixture

TOKENS = ["t1", "t4", "t0"]          # distinct_heads' input, positions 0, 1, 2


def f3(x) -> str:
    return mp.nstr(x, 3, strip_zeros=False) if abs(x) >= 1 else r4(x, 3)


# ---------------------------------------------------------------- a component per row, a token per column

COMPONENT_TABLE = {
    "unicode": ("## 3. Queries\n\n| | {cols} |\n|---|---:|---:|---:|\n{rows}\n", "q{sub}", "{tok}"),
    "latex": ("## 3. Les requêtes\n\n| | {cols} |\n|---|---:|---:|---:|\n{rows}\n", "$q_{{{j}}}$", "« {tok} »"),
    "vi": ("## 3. Truy vấn\n\n| | {cols} |\n| --- | ---: | ---: | ---: |\n{rows}\n", "q{sub}", "«{tok}»"),
}


@pytest.mark.parametrize("layout", list(COMPONENT_TABLE))
def test_a_row_per_component_over_a_column_per_token(tmp_path, distinct_heads, layout):  # noqa: F811
    """Rows ``q₁ … q₄`` (the components, from 1) over the input's tokens as columns (their positions): every
    cell is Q at that token's position and component.  A cell holding its transpose's value (Q[2,1]'s at
    Q[1,2]) is Q[1,2], wrong, not the entry it equals."""
    path, f = distinct_heads
    Q = f["Q"]
    frame, row_name, col_name = COMPONENT_TABLE[layout]
    rows = []
    for j in range(4):
        cells = [r4(Q[t][j]) for t in range(3)]
        if j == 2:
            cells[1] = r4(Q[2][1])                         # the cell (position 1, component 2) holds Q[2,1]
        name = row_name.format(sub="₁₂₃₄"[j], j=j + 1)
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    text = frame.format(cols=" | ".join(col_name.format(tok=t) for t in TOKENS), rows="\n".join(rows))
    assert r4(Q[2][1]) != r4(Q[1][2])
    assert _wrong_of(tmp_path, text, path) == [("Q[1,2]", r4(Q[2][1]))]


@pytest.mark.parametrize("words", [("Head 1", "scores"), ("Đầu 1", "điểm số"), ("Tête 1", "scores")])
def test_a_row_named_by_its_token_and_place(tmp_path, distinct_heads, words):  # noqa: F811
    """Rows ``t4 (2)``: a token and its place in brackets is that token's row; head 1's causal scores over
    the tokens' columns, one cell holding its transpose, which is masked (S[0,1,2]'s value at S[0,2,1])."""
    path, f = distinct_heads
    S = f["S"][0]
    rows = []
    for t in range(3):
        cells = [r4(S[t][s]) if s <= t else "—" for s in range(3)]
        if t == 2:
            cells[1] = r4(S[1][2])
        rows.append(f"| {TOKENS[t]} ({t + 1}) | " + " | ".join(cells) + " |")
    text = f"## {words[0]}\n\n| {words[1]} | " + " | ".join(TOKENS) + " |\n|---|---:|---:|---:|\n" + \
        "\n".join(rows) + "\n"
    assert r4(S[1][2]) != r4(S[2][1])
    assert _wrong_of(tmp_path, text, path) == [("S[0,2,1]", r4(S[1][2]))]


# ---------------------------------------------------------------- two positions alike: the last one's

ALIKE = """title = "A post-norm block of width two"

[model]
kind = "transformer"
vocab = ["sun", "rain", "wind", "snow", "fog"]
d = 2
heads = 1
d_ff = 3
layers = 1
tied = true
pe_base = 10000
ln_eps = 1e-5

[data]
input = ["rain", "sun", "wind"]
target = "snow"

[weights]
E = [[0.4, -0.1], [0.2, 0.3], [-0.3, 0.2], [0.1, -0.5], [0.6, 0.2]]

[[layer]]
W_Q = [[0.3, -0.2], [0.1, 0.4]]
W_K = [[0.2, 0.1], [-0.3, 0.5]]
W_V = [[0.4, 0.1], [-0.2, 0.3]]
W_1 = [[0.3, -0.2, 0.1], [-0.4, 0.5, 0.2]]
b_1 = [0.1, -0.1, 0.0]
W_2 = [[0.2, -0.3], [0.4, 0.1], [-0.1, 0.5]]
b_2 = [0.05, 0.0]
"""
"""A model of width 2 after a norm: every position's normed stream is ±(1, −1), so positions 1 and 2 (sun,
wind) have the same FFN input to three digits, and the same second-norm mean."""


@pytest.fixture(scope="module")
def alike(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("alike"), ALIKE)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


FFN = {
    "code": "## 6. FFN\n\n    x = ({x0}, {x1})\n    z = x · W₁ + b₁ = ( {z} )\n",
    "latex": "## 6. Le FFN\n\nPour l'entrée $x = ({x0}, {x1})$ :\n\n$$z = x W_1 + b_1 = ({z})$$\n",
    "vi": "## 6. Mạng truyền thẳng\n\nVới đầu vào x = ({x0}, {x1}):\n\n    z = x · W₁ + b₁ = ( {z} )\n",
}


@pytest.mark.parametrize("layout", list(FFN))
def test_a_vector_two_positions_share_is_the_last_positions(tmp_path, alike, layout):
    """z = x W₁ + b₁ printed once, where positions 1 and 2 agree to every printed digit: it is the last
    position's row (the one the prediction reads); its sign-flipped entry, which equals row 0's entry, is
    Z[2,2], wrong."""
    path, f = alike
    Z, X = f["Z"], f["LN1"]
    assert [f3(v) for v in Z[1]] == [f3(v) for v in Z[2]] and f3(-Z[2][2]) == f3(Z[0][2])
    z = [f3(Z[2][0]), f3(Z[2][1]), f3(-Z[2][2])]
    text = FFN[layout].format(x0=f3(X[2][0]), x1=f3(X[2][1]), z=", ".join(z))
    name = "doc.tex" if layout == "latex" else "doc.md"
    assert _wrong_of(tmp_path, text, path, name) == [("Z[2,2]", z[2])]


@pytest.mark.parametrize("text", [
    "## 7. The second norm\n\nμ = {mu}; each entry is {dev} away from it, so σ² = {var}.\n",
    "## 7. LayerNorm thứ hai\n\nμ = {mu}, độ lệch từng thành phần là {dev} và −{dev}, nên σ² = {var}.\n"])
def test_a_variance_beside_a_mean_two_positions_share(tmp_path, alike, text):
    """σ² beside μ, where μ rounds from the second norm's mean at two positions: the variance is the last
    position's, and σ² summed over d − 1 = 1 (twice the true variance) is var2[2], wrong, unbiased."""
    path, f = alike
    mu, var, H2 = f["mu2"], f["var2"], f["H2"]
    assert f3(mu[1]) == f3(mu[2])
    bad = f3(2 * var[2])
    doc = text.format(mu=f3(mu[2]), dev=f3(H2[2][0] - mu[2]), var=bad)
    results = _results_of(tmp_path, doc, path)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("var2[2]", "unbiased variance")]


def _results_of(tmp_path, text, spec, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return check(doc, spec)


# ---------------------------------------------------------------- a sentence on top-k in a section of temperatures

TOP_K_AFTER_T = {
    "en": ("## 8. Sampling\n\nAt T = 0.5, «{a}» rises to {ta}.\n\n"
           "With top-3, «{a}» is chosen with probability {ka}% and «{b}» with probability {kb}%.\n"),
    "vi": ("## 8. Lấy mẫu\n\nỞ T = 0.5, «{a}» tăng lên {ta}.\n\n"
           "Với top-3, «{a}» được chọn với xác suất {ka}% và «{b}» với xác suất {kb}%.\n"),
}


@pytest.mark.parametrize("lang", list(TOP_K_AFTER_T))
def test_a_top_k_sentence_in_a_section_about_temperatures(tmp_path, run, lang):
    """A section whose token shares are a temperature's (T = 0.5) and then one sentence on top-3: the shares
    in that sentence are top-3's; the second token's, printed as a fraction with a % sign, is wrong.  The first
    share names its own token, not the token that follows it with its own figure."""
    p = run["f0"]["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    mass = sum(p[j] for j in order[:3])
    a, b = order[0], order[1]
    z = [mp.log(v) for v in p]
    e = [mp.exp(2 * v) for v in z]
    ta = r4(e[a] / sum(e))
    ka = mp.nstr(100 * p[a] / mass, 3, strip_zeros=False)
    kb = r4(p[b] / mass, 3)
    text = TOP_K_AFTER_T[lang].format(a=VOCAB[a], b=VOCAB[b], ta=ta, ka=ka, kb=kb)
    assert _wrong(tmp_path, text, "doc.md") == [(f"topk(3, {VOCAB[b]})", kb + "%")]


@pytest.fixture(scope="module")
def run():
    from test_check_readings import by_hand
    yield from by_hand()


# ---------------------------------------------------------------- a slip of the quantity printed just above

SLIP_BELOW = {
    "en": "## 3. Loss\n\n$$L = -\\ln {p} = {loss}$$\n\nThe model gives the right word only {bad} % of its "
          "mass.\n",
    "tr": "## 3. Kayıp\n\n$$L = -\\ln({p}) \\approx {loss}$$\n\nModel doğru kelimeye yalnızca %{bad} olasılık "
          "veriyor.\n",
}


@pytest.mark.parametrize("lang", list(SLIP_BELOW))
def test_a_percentage_off_by_ten_from_the_quantity_printed_above(tmp_path, run, lang):
    """p(target) printed to six places, then as a percentage with the point one place off (×10, not ×100) and no
    token named: the figure's digits are those of the quantity just above, so it is that p, wrong, a scale slip.
    (Its printed places are one fewer than the percentage's: p rounds to 0.1461 at four places, not 0.14600.)"""
    p = run["f0"]["p"][3]
    bad = r4(10 * p, 2)
    text = SLIP_BELOW[lang].format(p=r4(p, 6), loss=r4(-mp.log(p)), bad=bad)
    if lang == "tr":
        text = text.replace(r4(p, 6), r4(p, 6).replace(".", "{,}")).replace(f"%{bad}", "%" + bad.replace(".", ","))
        bad = bad.replace(".", ",")
    results = _results_of(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [(f"p[{VOCAB[3]}]", "scale slip")]


# ---------------------------------------------------------------- AdamW's moments of rows counted from 1

ADAMW_ROWS = {
    "md": ("## 5. Een stap met AdamW\n\n| parameter | g | m₁ | v̂_1 | stap | nieuw θ′ |\n"
           "|---|---|---|---|---|---|\n{rows}\n", "| W_{{{i},{tok}}} | {cells} |"),
    "html": ("<h2>5. AdamW</h2>\n<table>\n<tr><th>parameter</th><th><i>g</i></th><th><i>m</i><sub>1</sub></th>"
             "<th><i>v̂</i><sub>1</sub></th><th>step</th><th>new θ′</th></tr>\n{rows}\n</table>\n",
             "<tr><th><i>W</i><sub>{i},{tok}</sub></th>{cells}</tr>"),
}


@pytest.mark.parametrize("fmt", list(ADAMW_ROWS))
def test_adamw_moments_of_rows_counted_from_one(tmp_path, run, fmt):
    """An AdamW table whose rows are W's entries counted from 1 (``W_{2,пьёт}`` is W[1,пьёт]) and whose moment
    columns carry the step (m₁, v̂₁): the moments are those rows' entries as the other columns count them, so
    every right figure is matched and the one wrong m₁ is the first row's, not a neighbour row's."""
    rows, bad = [], None
    for r, (i, j) in enumerate(((1, 3), (0, 2))):
        a = run["adamw"](oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])[i][j], run["f0"]["gW"][i][j])
        m1 = r4(a["m"], 6) if r else r4(a["m"] + mp.mpf("0.0002"), 6)
        bad = bad or (f"adamw[1].m[W,{i},{j}]", m1)
        cells = [r4(run["f0"]["gW"][i][j], 6), m1, r4(a["vhat"], 6), r4(a["update"], 6), r4(a["new"], 6)]
        joined = " | ".join(cells) if fmt == "md" else "".join(f"<td>{c}</td>" for c in cells)
        rows.append(ADAMW_ROWS[fmt][1].format(i=i + 1, tok=VOCAB[j], cells=joined))
    text = ADAMW_ROWS[fmt][0].format(rows="\n".join(rows))
    results = _results_of(tmp_path, text, write_spec(tmp_path, SPEC), "doc." + fmt)
    assert [(r.ref, r.number.text) for r in results if r.verdict == "wrong"] == [bad]
    assert all(r.verdict == "matched" for r in results if r.verdict != "wrong" and "." in r.number.text), \
        [(r.number.text, r.verdict, r.ref) for r in results]


# ---------------------------------------------------------------- a score table of keys by queries; heads in a corner

SCORE_WORDS = {"pl": ("Uwaga: głowica 1 i głowica 2", "zapytanie", "klucz"),
               "en": ("Attention: head 1 and head 2", "query", "key"),
               "de": ("Aufmerksamkeit: Kopf 1 und Kopf 2", "Anfrage", "Schlüssel")}


@pytest.mark.parametrize("lang", list(SCORE_WORDS))
def test_score_tables_with_heads_in_the_corner_and_keys_as_rows(tmp_path, distinct_heads, lang):  # noqa: F811
    """Two score tables under a title naming both heads: head 1's with query rows, its corner ``s^{[1,1]}``
    (layer 1, head 1), and head 2's printed the other way, key rows under query columns, corner ``s^{[1,2]}``.
    A last-digit slip in head 1's table is S[0,1,1]'s; head 2's cell (key 1, query 3) holding the masked
    S[1,0,2]'s value is S[1,2,0]'s, wrong; nothing else is."""
    path, f = distinct_heads
    S = f["S"]
    title, query, key = SCORE_WORDS[lang]

    def table(h, transposed, bad):
        rows = []
        for a in range(3):
            cells = []
            for b in range(3):
                t, s = (b, a) if transposed else (a, b)
                cells.append("—" if s > t else bad.get((t, s), r4(S[h][t][s])))
            rows.append(f"| {key if transposed else query} {a + 1} | " + " | ".join(cells) + " |")
        head = f"| $s^{{[1,{h + 1}]}}$ | " + " | ".join(f"{query if transposed else key} {b + 1}" for b in range(3))
        return head + " |\n|:--|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    slip = r4(S[0][1][1] + mp.mpf("0.0001"))
    moved = r4(S[1][0][2])
    assert moved != r4(S[1][2][0])
    text = f"## 3.2 {title}\n\n" + table(0, False, {(1, 1): slip}) + "\n" + table(1, True, {(2, 0): moved})
    assert _wrong_of(tmp_path, text, path) == [("S[0,1,1]", slip), ("S[1,2,0]", moved)]


# ---------------------------------------------------------------- temperatures as columns; a code's tau

@pytest.mark.parametrize("header", ["| Wort | $\\tau = 0{{,}}5$ | $\\tau = 2$ |", "| word | T = 0.5 | T = 2 |"])
def test_a_column_per_temperature_over_a_row_per_token(tmp_path, run, header):
    """A token per row, a temperature per column, percentages: each cell is that temperature's share of the
    row's token; a cell copied from the row above is its own token's, wrong."""
    z = [mp.log(v) for v in run["f0"]["p"]]

    def share(t, j):
        e = [mp.exp(v / t) for v in z]
        return mp.nstr(100 * e[j] / sum(e), 3, strip_zeros=False)
    rows = [[share(mp.mpf("0.5"), j), share(2, j)] for j in range(5)]
    rows[2][1] = rows[1][1]
    assert rows[1][1] != share(2, 2)
    comma_ = "{,}" in header
    lines = [f"| {VOCAB[j]} | " + " | ".join((c.replace(".", ",") if comma_ else c) + " %" for c in rows[j]) + " |"
             for j in range(5)]
    text = "## 8. Sampling\n\n" + header.format() + "\n|---|---:|---:|\n" + "\n".join(lines) + "\n"
    bad = rows[1][1].replace(".", ",") if comma_ else rows[1][1]
    assert [(ref, x.replace(" ", "")) for ref, x in _wrong(tmp_path, text, "doc.md")] == \
        [(f"softmax_T(2, {VOCAB[2]})", bad + "%")]


@pytest.mark.parametrize("fmt", ["tau = {t}:  p({tok}) = {v}", "T = {t}   p({tok}) = {v}"])
def test_a_temperature_a_program_prints_beside_a_probability(tmp_path, run, fmt):
    """A program's printed lines ``tau = 0.5:  p(пьёт) = …`` and ``tau = 2.0: …`` (a float's 2.0 for the
    spec's 2): each is that temperature's probability; the second, slipped in its last digit, is wrong."""
    z = [mp.log(v) for v in run["f0"]["p"]]

    def share(t):
        e = [mp.exp(v / t) for v in z]
        return e[3] / sum(e)
    good, bad = r4(share(mp.mpf("0.5"))), r4(share(2) + mp.mpf("0.0002"))
    out = "\n".join(fmt.format(t=t, tok=VOCAB[3], v=v) for t, v in (("0.5", good), ("2.0", bad)))
    text = "## 8. Sampling\n\nThe logits divided by a temperature before the softmax:\n\n```\n" + out + "\n```\n"
    assert _wrong(tmp_path, text, "doc.md") == [(f"softmax_T(2, {VOCAB[3]})", bad)]


# ---------------------------------------------------------------- ∂ℒ/∂ℓ_w over token rows; W = np.array in code

@pytest.mark.parametrize("column", [r"$\partial \mathcal{L} / \partial \ell_w$",
                                    r"$\frac{\partial L}{\partial \ell_{w}}$"])
def test_the_gradient_of_script_ell_logits_as_a_column(tmp_path, run, column):
    """The logits written ℓ (``\\ell_w``, its index a letter right after it): the column ∂ℒ/∂ℓ_w is the logits'
    gradient, and the target's p printed there (−y forgotten) is that gradient's entry, wrong."""
    p = run["f0"]["p"]
    rows = [f"| {VOCAB[j]} | {r4(p[j], 3)} | {int(j == 3)} | {r4(p[j] - (j == 3), 3) if j != 3 else r4(p[j], 3)} |"
            for j in range(5)]
    text = f"## 7. Gradient\n\n| word | $p_w$ | $y_w$ | {column} |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    assert _wrong(tmp_path, text, "doc.md") == [(f"grad_z[{VOCAB[3]}]", r4(p[3], 3))]     # (a bigram's logits: z)


def _shown(n: int, source: list, printed: str) -> dict:
    return {"cell_type": "code", "execution_count": n, "metadata": {}, "source": source,
            "outputs": [{"output_type": "execute_result", "execution_count": n, "metadata": {},
                         "data": {"text/plain": [printed]}}]}


def test_a_weight_a_code_cell_assigns_is_that_weight_not_the_cells_output(tmp_path, alike):
    """A cell showing ``X`` (3 × 2), then a cell ``W_Q = np.array([[…], […]])`` (2 × 2, in X's range) ending in
    ``Q = X @ W_Q; Q``: the literal in the code is W_Q's (every entry right), not X's, the name shown before it;
    the queries shown have one entry wrong."""
    path, f = alike
    w = tomllib.loads(ALIKE, parse_float=str)["layer"][0]["W_Q"]      # the weights as the spec writes them
    X, Q = f["X"], f["Q"]
    bad = r4(Q[1][0] + mp.mpf("0.0003"))

    def array(rows, wrong=None):
        return "array([" + ",\n       ".join("[" + ", ".join(wrong if (i, j) == (1, 0) and wrong else r4(v)
                                                             for j, v in enumerate(r)) + "]"
                                             for i, r in enumerate(rows)) + "])"
    cells = [_shown(1, ["X = E[ids] + PE\n", "X"], array(X)),
             _shown(2, ["W_Q = np.array([" + ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in w) +
                        "])\n", "Q = X @ W_Q\n", "Q"], array(Q, bad))]
    doc = tmp_path / "doc.ipynb"
    doc.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    results = check(doc, path)
    assert [(r.ref, r.number.text) for r in results if r.verdict == "wrong"] == [("Q[1,0]", bad)]


# ---------------------------------------------------------------- LaTeX arrays, a head's superscript above its matrix

@pytest.mark.parametrize("env", [("\\left[\\begin{{array}}{{rr|rr}}", "\\end{{array}}\\right]"),
                                 ("\\left(\\begin{{array}}{{cccc}}", "\\end{{array}}\\right)"),
                                 ("\\begin{{bmatrix}}", "\\end{{bmatrix}}")])
def test_a_latex_array_between_brackets_is_a_matrix(tmp_path, distinct_heads, env):  # noqa: F811
    """``K = \\hat{X} W_K = \\left[\\begin{array}{rr|rr} … \\end{array}\\right]`` (an array with a rule between the
    heads' columns, or between parentheses): K's matrix; an entry holding its transpose's value is wrong."""
    path, f = distinct_heads
    K = f["K"]
    rows = [[r4(v, 3) for v in r] for r in K]
    rows[2][0] = r4(K[0][2], 3)
    assert rows[2][0] != r4(K[2][0], 3)
    body = " \\\\\n    ".join(" & ".join(r) for r in rows)
    text = (f"\\section{{Keys}}\n\\[\n  K = X W_K =\n  {env[0].format()}\n    {body}\n  {env[1].format()},\n\\]\n")
    assert _wrong_of(tmp_path, text, path, "doc.tex") == [("K[2,0]", rows[2][0])]


@pytest.mark.parametrize("sup", ["S^{{({h})}}", "\\mathbf{{S}}^{{({h})}}"])
def test_a_heads_superscript_on_the_line_above_its_matrix(tmp_path, distinct_heads, sup):  # noqa: F811
    """``S^{(1)} = ⏎ \\begin{bmatrix} … \\end{bmatrix}, \\qquad S^{(2)} = ⏎ …`` with −∞ above the diagonal: each
    matrix is its head's scores (heads from 1); a sign-flipped entry of head 2's is S[1,2,1]."""
    path, f = distinct_heads
    S = f["S"]

    def matrix(h, bad=None):
        rows = [" & ".join(bad if (t, s) == (2, 1) and bad else r4(S[h][t][s], 3) if s <= t else "-\\infty"
                           for s in range(3)) for t in range(3)]
        return "  " + sup.format(h=h + 1) + " =\n  \\begin{bmatrix}\n    " + " \\\\\n    ".join(rows) + \
            "\n  \\end{bmatrix}"
    flipped = r4(-S[1][2][1], 3)
    text = "\\section{Scores}\n\\[\n" + matrix(0) + ",\n  \\qquad\n" + matrix(1, flipped) + ".\n\\]\n"
    assert _wrong_of(tmp_path, text, path, "doc.tex") == [("S[1,2,1]", flipped)]


@pytest.mark.parametrize("text", [
    "I huvud $({h})$ lägger {q} hela ${a}\\%$ av vikten på sig själv. På rad\n$2$ tittar huvud $({h2})$ mest "
    "bakåt, med ${b}\\%$ på {k}.\n",
    "In head $({h})$, {q} keeps ${a}\\%$ of the weight for itself. On row\n$2$ head $({h2})$ looks back, with "
    "${b}\\%$ on {k}.\n"])
def test_shares_with_a_head_in_brackets_and_a_row_wrapped_onto_the_next_line(tmp_path, distinct_heads, text):  # noqa: F811
    """'head (1)': a head in brackets; the last token keeps a share for itself (slipped by ten: A[0,2,2], wrong);
    'row ⏎ 2' wrapped over a line break: head 2's query at position 2 gives its share to the first token,
    A[1,1,0], right (no false alarm as the last query's)."""
    path, f = distinct_heads
    A = f["A"]
    a = mp.nstr(10 * A[0][2][2], 3, strip_zeros=False)
    b = mp.nstr(100 * A[1][1][0], 3, strip_zeros=False)
    doc = "\\section{Attention}\n" + text.format(h=1, h2=2, q=TOKENS[2], k=TOKENS[0], a=a, b=b)
    assert _wrong_of(tmp_path, doc, path, "doc.tex") == [("A[0,2,2]", a + "%")]


@pytest.mark.parametrize("words", [("Attention of the last word", "head"), ("Uwaga ostatniego słowa", "głowa"),
                                   ("Aufmerksamkeit des letzten Wortes", "Kopf")])
def test_a_row_per_head_over_a_column_per_input_token(tmp_path, distinct_heads, words):  # noqa: F811
    """| | t1 | t4 | t0 | over rows 'head 1', 'head 2' in percent: each head's weights from the last query to
    the column's token; head 2's share of t4 slipped by ten is A[1,2,1], wrong, and nothing else is."""
    path, f = distinct_heads
    A = f["A"]
    rows = []
    for h in range(2):
        cells = [mp.nstr(100 * A[h][2][s], 3, strip_zeros=False) + " %" for s in range(3)]
        if h == 1:
            cells[1] = mp.nstr(10 * A[1][2][1], 3, strip_zeros=False) + " %"
        rows.append(f"| {words[1]} {h + 1} | " + " | ".join(cells) + " |")
    text = f"## {words[0]}\n\n|  | " + " | ".join(TOKENS) + " |\n|---|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    assert [ref for ref, _ in _wrong_of(tmp_path, text, path)] == ["A[1,2,1]"]


# ---------------------------------------------------------------- MathJax scripts, elisions, a repeated token's place

def test_mathjax_scripts_are_read_as_their_tex(tmp_path, run):
    """A page whose math is MathJax's ``<script type="math/tex">`` (inline in a table's row label and displayed
    on its own): the scripts' TeX is read, so the displayed loss, carried from a rounded p, is wrong, and the
    table's row of p is p (every cell right)."""
    p = run["f0"]["p"]
    loss = r4(-mp.log(mp.mpf(r4(p[3], 3))))
    assert loss != r4(-mp.log(p[3]))
    cells = "".join(f"<td>{r4(v)}</td>" for v in p)
    html = ("<article><h2>3. Probabilità</h2><table><tr><th></th>" + "".join(f"<th>{t}</th>" for t in VOCAB) +
            f"</tr><tr><td><script type=\"math/tex\">p_w</script></td>{cells}</tr></table>\n"
            f"<p>La perdita:</p>\n<script type=\"math/tex; mode=display\">\\mathcal{{L}} = -\\ln {r4(p[3], 3)} = "
            f"{loss}</script></article>")
    assert _wrong(tmp_path, html, "doc.html") == [("loss", loss)]


@pytest.mark.parametrize("text", ["il 25,4% al primo, appena l’1,68% a gatto", "soit 2,5 ; puis d’1,68 % du reste"])
def test_a_figure_after_an_elided_article_is_one_figure(text):
    """``l’1,68%`` (an elided article before the figure): one figure, not 1,6 and 8 % glued to a quote."""
    from symgpt.claims.extract import extract
    assert "1.68%" in [n.text for n in extract(text)]


REPEATED = ALIKE.replace('input = ["rain", "sun", "wind"]', 'input = ["rain", "sun", "rain"]')
"""The width-two model with a token twice in its input (rain at positions 1 and 3)."""


@pytest.mark.parametrize("name", ["$q_{j}$", "q{sub}"])
def test_a_column_per_token_and_its_place_where_a_token_repeats(tmp_path, name):
    """Columns ``rain (1) | sun (2) | rain (3)``: a token and its place is that place (rain stands twice); the
    component rows' one wrong cell, in the second rain's column, is Q[2,1]."""
    path = write_spec(tmp_path, REPEATED)
    Q = oracle.transformer_forward(oracle.load_spec(str(path)))["Q"]
    bad = r4(-Q[2][1])
    assert bad != r4(Q[0][1])
    rows = ["| " + name.format(j=j + 1, sub="₁₂"[j]) + " | " +
            " | ".join(bad if (t, j) == (2, 1) else r4(Q[t][j]) for t in range(3)) + " |" for j in range(2)]
    text = "## 3. Queries\n\n| | rain (1) | sun (2) | rain (3) |\n|---|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    assert _wrong_of(tmp_path, text, path) == [("Q[2,1]", bad)]


def test_a_heads_superscript_on_the_line_an_equation_continues(tmp_path, distinct_heads):  # noqa: F811
    """``e`` names the embeddings in one section and the scores in another (``e^{(2)}_{31} = \\frac{…}`` ⏎
    ``= …``, the result on the continued line): there the head is the continued line's superscript, and
    head 2's wrong score is S[1,2,0]; head 1's is right."""
    path, f = distinct_heads
    S, E = f["S"], tomllib.loads(path.read_text(encoding="utf-8"), parse_float=str)["weights"]["E"]
    bad = r4(S[1][2][0] * 2 ** 0.5 / 2)
    assert bad != r4(S[1][2][0])
    emb = "\n".join(f"$$e_{{{t}}} = ({', '.join(str(x) for x in E[int(t[1])])})$$" for t in TOKENS)
    text = ("## 2. Embeddings\n\n" + emb + "\n\n## 6. Scores\n\n" +
            "".join(f"$$\ne^{{({h + 1})}}_{{31}} = \\frac{{q_3 \\cdot k_1}}{{\\sqrt{{2}}}}\n= {v} .\n$$\n\n"
                    for h, v in ((0, r4(S[0][2][0])), (1, bad))))
    assert _wrong_of(tmp_path, text, path) == [("S[1,2,0]", bad)]


@pytest.mark.parametrize("words", [("position", "head"), ("posición", "cabeza")])
def test_a_table_whose_rows_name_their_head_in_a_column(tmp_path, distinct_heads, words):  # noqa: F811
    """| position | head | q₁ | q₂ | over rows ``2 (t4) | 2 | …``: the row's head column picks the head's slice
    of Q (head 2's q₁ is Q[1,2]); one wrong cell of head 2's row is Q[1,3]."""
    path, f = distinct_heads
    Q = f["Q"]
    bad = r4(-Q[1][3])
    rows = []
    for t in (1, 2):
        for h in (0, 1):
            cells = [r4(Q[t][2 * h + j]) for j in range(2)]
            if (t, h) == (1, 1):
                cells[1] = bad
            rows.append(f"| {t + 1} ({TOKENS[t]}) | {h + 1} | " + " | ".join(cells) + " |")
    text = f"## 4. Queries\n\n| {words[0]} | {words[1]} | $q_1$ | $q_2$ |\n|---|---|---:|---:|\n" + \
        "\n".join(rows) + "\n"
    assert _wrong_of(tmp_path, text, path) == [("Q[1,3]", bad)]


# ---------------------------------------------------------------- a matrix laid out without brackets (a PDF's text)

@pytest.mark.parametrize("name", ["(e_{ij}) =", "A^{(1)} = a_{ts}  ="])
def test_a_matrix_laid_out_in_rows_with_its_name_on_the_middle_row(tmp_path, alike, name):
    """The text a PDF reader gives a displayed matrix: rows of figures with no brackets (the bracket pieces on
    lines between them, −∞ for masked cells), the name on the middle row.  Each row is a row of the scores, so
    the middle row's first cell holding S[0,1]'s value is S[1,0], wrong."""
    path, f = alike
    S = f["S"]
    moved = r4(S[0][1])
    assert moved != r4(S[1][0])
    pad = " " * (len(name) + 10)
    text = ("## 4. Scores\n\nThe scores before the mask:\n" + pad + "\uf8eb                  \uf8f6\n" +
            pad + "   ".join(r4(v) for v in S[0]) + "\n" + pad + "\uf8ec                  \uf8f7\n" +
            "        " + name + " \uf8ed " + "   ".join([moved] + [r4(v) for v in S[1][1:]]) + " \uf8f8 .\n" +
            pad + "   ".join(r4(v) for v in S[2]) + "\n\nThe mask comes next.\n")
    assert _wrong_of(tmp_path, text, path, "doc.txt") == [("S[1,0]", moved)]


@pytest.mark.parametrize("line, figures", [("x = 0.346   0.324", ["0.346", "0.324"]),
                                           ("T = 2.0: tensor([0.2160, 0.1795])", ["0.2160", "0.1795"]),
                                           ("T = 0.50.3960.045", ["0.396", "0.045"])])
def test_a_row_named_by_a_letter_keeps_its_first_figure(line, figures):
    """``x = 0.346   0.324`` is a row of two figures named x; only a row label's own value (``T = 2.0:`` before
    the row, or ``T = 0.5`` glued to it) is no figure of the row."""
    from symgpt.claims.extract import extract
    assert [n.text for n in extract(line)] == figures


@pytest.mark.parametrize("words", [("위치", "{t}번째 토큰", "쿼리 $q_i$", "키 $k_i$"),
                                   ("position", "token {t}", "query $q_i$", "key $k_i$")])
def test_vectors_in_table_cells_are_named_by_their_row_and_column(tmp_path, alike, words):
    """| position | query q_i | key k_i | over rows 'token 1' (or ``1번째 토큰``), each cell a vector ``(a, b)``: the
    cell's entries are that row's query or key, component by component; the one wrong entry is K[1,1]."""
    path, f = alike
    Q, K = f["Q"], f["K"]
    bad = r4(-K[1][1], 3)
    rows = []
    for t in range(3):
        k = [r4(v, 3) for v in K[t]]
        if t == 1:
            k[1] = bad
        rows.append(f"| {words[1].format(t=t + 1)} | ({r4(Q[t][0], 3)}, {r4(Q[t][1], 3)}) | ({k[0]}, {k[1]}) |")
    text = f"## 3. QKV\n\n| {words[0]} | {words[2]} | {words[3]} |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    assert _wrong_of(tmp_path, text, path) == [("K[1,1]", bad)]


@pytest.mark.parametrize("form", [
    ("doc.tex", "\\begin{{multline*}}\n(\\nabla_{{\\mathbf{{x}}}}\\mathcal{{L}})_{i} = {head} \\\\\n  + {tail} = {v}.\n"
                "\\end{{multline*}}\n"),
    ("doc.md", "$$(\\partial L/\\partial x)_{i} = {head} + {tail} = {v}$$\n")])
def test_an_entry_of_a_gradient_in_brackets(tmp_path, run, form):
    """``(∇_x ℒ)_1 = … = −0.17`` and ``(∇_x ℒ)_2 = …`` (the gradient in brackets, its entries after them, counted
    from 1; in LaTeX the sums wrapped onto a second line): x's gradient, the first entry slipped in its last
    digit."""
    gx, g, W = run["f0"]["gx"], run["f0"]["gW"], oracle.mat(oracle.loads_spec(SPEC)["weights"]["W"])
    delta = [g[0][j] / run["states"][0][0][0][0] for j in range(5)]      # p − y, from dW's first row ÷ x₀
    terms = [f"({mp.nstr(W[0][j], 2)})({r4(delta[j])})" for j in range(5)]
    bad = r4(gx[0] + mp.mpf("0.0001"))
    name, text = form
    second = [f"({mp.nstr(W[1][j], 2)})({r4(delta[j])})" for j in range(5)]
    doc = "## 4. Backward\n\n" + text.format(i=1, head=" + ".join(terms[:3]), tail=" + ".join(terms[3:]), v=bad) + \
        "\n" + text.format(i=2, head=" + ".join(second[:3]), tail=" + ".join(second[3:]), v=r4(gx[1]))
    assert _wrong(tmp_path, doc, name) == [("grad_x[0]", bad)]      # (the second entry, right, says: from 1)


# ---------------------------------------------------------------- a percent column, MathML's signs, a head's bar

@pytest.mark.parametrize("header", ["| слово | $p_j$ | $p_j$, % |", "| word | p | share (%) |"])
def test_a_column_whose_unit_is_the_percent(tmp_path, run, header):
    """A column headed ``p_j, %`` (or ``share (%)``) prints percentages without their sign: its cells are
    p × 100, all right (no scale slip read into them); the one slipped cell (÷ 10) is p's, wrong."""
    p = run["f0"]["p"]
    comma_ = "слово" in header
    rows = []
    for j in range(5):
        pct = mp.nstr(100 * p[j] if j != 2 else 10 * p[j], 4, strip_zeros=False)
        cells = [r4(p[j]), pct]
        rows.append(f"| {VOCAB[j]} | " + " | ".join(c.replace(".", ",") if comma_ else c for c in cells) + " |")
    text = "## 2. Softmax\n\n" + header + "\n|---|---:|---:|\n" + "\n".join(rows) + "\n"
    assert [ref for ref, _ in _wrong(tmp_path, text, "doc.md")] == [f"p[{VOCAB[2]}]"]


def test_a_mathml_sign_before_its_number_is_the_numbers(tmp_path, alike):
    """MathML writes −1.240 as ``<mo>−</mo><mn>1.240</mn>``: after a comma the sign is the figure's, so the
    second stream's vectors (their second entries negative) are right, with no sign flip read into them; the
    one flipped entry is wrong."""
    path, f = alike
    H2 = f["H2"]
    assert H2[1][1] < 0 and H2[2][1] < 0 and H2[2][0] > 0
    flipped = r4(-H2[2][0], 3)

    def mn(x: str) -> str:
        return f"<mo>−</mo><mn>{x[1:]}</mn>" if x.startswith("-") else f"<mn>{x}</mn>"

    def vec(t, first):
        return "<mo>(</mo>" + mn(first) + "<mo>,</mo>" + mn(r4(H2[t][1], 3)) + "<mo>)</mo>"
    html = ("<h2>7. Second residual</h2><p>The stream after the block at positions 2 and 3:</p>"
            f"<math display=\"block\"><msub><mi>H2</mi><mn>1</mn></msub><mo>=</mo>{vec(1, r4(H2[1][0], 3))}</math>"
            f"<math display=\"block\"><msub><mi>H2</mi><mn>2</mn></msub><mo>=</mo>{vec(2, flipped)}</math>")
    assert _wrong_of(tmp_path, html, path, "doc.html") == [("H2[2,0]", flipped.replace("-", "−"))]   # (as printed)


@pytest.mark.parametrize("bar", ["|", "∣"])
def test_a_bar_between_two_heads_halves_of_a_vector(tmp_path, distinct_heads, bar):  # noqa: F811
    """``q_3 = ( a, b | c, d )`` under a paragraph naming both heads: a bar sets the two heads' halves apart; it
    separates entries as a comma does, so c is Q[2,2] (no head's slice: the paragraph names two), and the wrong
    d is Q[2,3]."""
    path, f = distinct_heads
    Q = f["Q"][2]
    bad = r4(-Q[3], 3)
    text = (f"## 3. Queries\n\nThe first two components are head 1's, the last two head 2's\n\n"
            f"    q_3 = ( {r4(Q[0], 3)}, {r4(Q[1], 3)} {bar} {r4(Q[2], 3)}, {bad} )\n")
    assert _wrong_of(tmp_path, text, path) == [("Q[2,3]", bad)]


@pytest.mark.parametrize("text", [
    "La tête 1 accorde {a} % à « t1 ». La tête 2 fait l'inverse : {b} % pour « t1 »,\n{c} % pour « t4 »\n"
    "et {d} % pour « t0 » : elle regarde le mot courant.\n",
    "Head 1 gives {a} % to “t1”. Head 2 does the opposite: {b} % for “t1”, {c} % for “t4”\nand {d} % for “t0” "
    "itself.\n"])
def test_a_head_named_where_the_sentence_began_on_the_line_above(tmp_path, distinct_heads, text):  # noqa: F811
    """A sentence naming head 2 and wrapping onto the next line: the shares on the next line are still head 2's
    (the last query's); the one slipped by ten is A[1,2,2]."""
    path, f = distinct_heads
    A = f["A"]
    pct = lambda x: mp.nstr(100 * x, 3, strip_zeros=False)      # noqa: E731
    d = mp.nstr(10 * A[1][2][2], 3, strip_zeros=False)
    doc = "## 5. Attention\n\n" + text.format(a=pct(A[0][2][0]), b=pct(A[1][2][0]), c=pct(A[1][2][1]), d=d)
    assert [ref for ref, _ in _wrong_of(tmp_path, doc, path)] == ["A[1,2,2]"]


@pytest.mark.parametrize("text", ["At “t4”, head 1 still looks {a} % towards “t1” and head 2 {b} %.\n",
                                  "En «t4», la cabeza 1 mira todavía un {a} % hacia «t1» y la cabeza 2 un {b} %.\n"])
def test_a_query_named_at_the_start_of_the_sentence(tmp_path, distinct_heads, text):  # noqa: F811
    """'At “t4”, head 1 looks a % towards “t1”': the token the sentence starts at is the query (position 1, not
    the last); head 1's share, slipped by ten, is A[0,1,0], wrong, and head 2's (no token after it) is right."""
    path, f = distinct_heads
    A = f["A"]
    a = mp.nstr(10 * A[0][1][0], 3, strip_zeros=False)
    b = mp.nstr(100 * A[1][1][0], 3, strip_zeros=False)
    doc = "## 5. Attention\n\n" + text.format(a=a, b=b)
    assert [ref for ref, _ in _wrong_of(tmp_path, doc, path)] == ["A[0,1,0]"]


# ---------------------------------------------------------------- a row of consecutive entries under an unknown label

@pytest.fixture(scope="module")
def wide_ffn(tmp_path_factory):
    """A one-layer, two-head transformer with eight FFN units (tests/oracle.py, seed 3)."""
    path = write_spec(tmp_path_factory.mktemp("wide"),
                      oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=8, layers=1, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


ROW_OF_UNITS = {
    "cs-text": ("## 6. Síť\n\nvstup neuronu: {cells}\n", ", ", "doc.md"),
    "md-function": ("## 6. FFN\n\n| k | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |\n|---|---|---|---|---|---|---|---|---|\n"
                    "| GELU(z₃ₖ) | {cells} |\n", " | ", "doc.md"),
    "it-rst": ("6. La rete\n==========\n\n+-----+-----+\n| neurone | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |\n"
               "+=====+=====+\n| :math:`u^{{[2]}}_{{3}}` | {cells} |\n+-----+-----+\n", " | ", "doc.rst"),
}


@pytest.mark.parametrize("layout", list(ROW_OF_UNITS))
def test_a_row_of_consecutive_entries_under_a_label_no_one_reads(tmp_path, wide_ffn, layout):
    """A row printing the last position's eight FFN inputs in order, under a label that names nothing the
    notation knows: most cells are Z[2,k] at their own place, so the sixth cell, which copies the fifth's
    value, is Z[2,5], wrong, not Z[2,4] a second time; the same row without the copy has nothing wrong."""
    path, f = wide_ffn
    Z = f["Z"][2]
    cells = [r4(v) for v in Z]
    assert len(set(cells)) == 8
    frame, sep, name = ROW_OF_UNITS[layout]
    assert _wrong_of(tmp_path, frame.format(cells=sep.join(cells)), path, name) == []
    copied = cells[:5] + [cells[4]] + cells[6:]
    assert _wrong_of(tmp_path, frame.format(cells=sep.join(copied)), path, name) == [("Z[2,5]", cells[4])]


# ---------------------------------------------------------------- p − y as a name; ∂ℒ/∂z in a table's corner

@pytest.mark.parametrize("form", [
    "## 5. Gradient\n\n    token   | p - y\n    --------+--------\n{rows}\n",
    "## 5. Gradient\n\n| słowo | $p_v - y_v$ |\n|---|---:|\n{rows}\n",
    "## 5. Gradient\n\n$$\\frac{{\\partial \\mathcal L}}{{\\partial z}} = p - y = ({vector})$$\n",
    "## 5. Κλίση\n\n| $\\partial \\mathcal{{L}} / \\partial z_v$ | {words} |\n|---|{rules}\n| τιμή | {cells} |\n",
    "## 5. Gradient\n\n| $\\partial \\mathcal{{L}} / \\partial z_v$ | {words} |\n|---|{rules}\n| value | {cells} |\n",
])
def test_the_gradient_at_the_logits_written_as_p_minus_y(tmp_path, run, form):
    """The loss's gradient at the logits written as its formula (a column ``p − y``, ``p_v − y_v``, an equation
    ``∂ℒ/∂z = p − y = (…)`` with ``\\mathcal L`` unbraced) or named in a table's corner over a row of plain
    words ('τιμή', 'value'): every entry but the target's is p's value, and the target's printed as p (−y
    forgotten) is the gradient's entry, wrong, not p matched."""
    p = run["f0"]["p"]
    vals = [r4(p[j] - (j == Y), 4) if j != Y else r4(p[j], 4) for j in range(5)]
    assert r4(p[Y], 4) != r4(p[Y] - 1, 4)
    text = form.format(rows="\n".join(f"    {VOCAB[j]:7s} | {vals[j]}" if form.startswith("## 5. Gradient\n\n    ")
                                      else f"| {VOCAB[j]} | {vals[j]} |" for j in range(5)),
                       vector=", ".join(vals), words=" | ".join(VOCAB), rules="---:|" * 5, cells=" | ".join(vals))
    assert _wrong(tmp_path, text, "doc.md") == [(f"grad_z[{VOCAB[Y]}]", vals[Y])]


# ---------------------------------------------------------------- one quantity one digit away, in words no one reads

@pytest.mark.parametrize("sentence, named", [
    ("## 3. Softmax\n\nمجموع الأسس الخمسة هو {s}، وبقسمة كل أسّ عليه نحصل على الاحتمالات.\n", False),
    ("## 3. Softmax\n\nΤο άθροισμα των εκθετικών είναι $\\sum_v e^{{z_v}} = {s}$, και κάθε $p_v$ διαιρείται με αυτό.\n",
     True),
])
def test_a_precise_figure_one_digit_from_the_only_quantity_near_it(tmp_path, run, sentence, named):
    """Σ e^z printed with five significant digits, its last digit one off, in words the readings do not know
    (Arabic) or under its formula: no other quantity is within ten units of its last place, so it is that
    quantity, wrong; the same sum to three digits, one off, says too little to be anyone's and stays unread in
    words, while its formula Σ_v e^{z_v} names it whatever its digits (the place decides, the value confirms)."""
    z = run["f0"]["z"]
    total = sum(mp.exp(v) for v in z)
    assert 1 < total < 10
    def off(s):                       # the last digit one off (down from a 9)
        return s[:-1] + str(int(s[-1]) + 1 if s[-1] != "9" else 8)
    slipped = off(mp.nstr(total, 5, strip_zeros=False))
    assert _wrong(tmp_path, sentence.format(s=slipped), "doc.md") == [("sum_exp", slipped)]
    short = off(mp.nstr(total, 3, strip_zeros=False))
    assert _wrong(tmp_path, sentence.format(s=short), "doc.md") == ([("sum_exp", short)] if named else [])


# ---------------------------------------------------------------- a nudged model's loss; a bold name's head

@pytest.mark.parametrize("form", [
    "<h2>4. التحقق العددي</h2>\n<table>\n<caption>التحقق العددي (ثماني خانات)</caption>\n"
    "<tr><th>الكمية</th><th>القيمة</th></tr>\n"
    "<tr><th>L(θ + h)</th><td>{up}</td></tr>\n<tr><th>L(θ − h)</th><td>{down}</td></tr>\n"
    "<tr><th>∂L/∂W</th><td>{g}</td></tr>\n</table>\n",
    "## 4. Gradient check\n\nTable 2: the check, eight places.\n\n| quantity | value |\n|---|---|\n"
    "| J(w + ε) | {up} |\n| J(w − ε) | {down} |\n"
    "| (J(w + ε) − J(w − ε)) / 2ε | {g} |\n",
])
def test_a_gradient_checks_nudged_losses_are_no_loss(tmp_path, run, form):
    """A gradient check's table: the loss of the model with one weight nudged by ±h, printed to eight places
    beside the unnudged loss's neighbourhood, is no figure of the loss (a row 'L(θ + h)', 'J(w − ε)'): nothing
    in the table is wrong."""
    E, W = run["states"][0]
    h = mp.mpf("0.001")
    nudged = [forward(E, [[W[i][j] + (s if (i, j) == (0, Y) else 0) for j in range(5)] for i in range(2)])["loss"]
              for s in (h, -h)]
    up, down = (mp.nstr(v, 9, strip_zeros=False) for v in nudged)
    g = mp.nstr((nudged[0] - nudged[1]) / (2 * h), 6, strip_zeros=False)
    assert abs(nudged[0] - run["f0"]["loss"]) > mp.mpf("1e-5") and E[X]
    name = "doc.html" if form.startswith("<") else "doc.md"
    assert _wrong(tmp_path, form.format(up=up, down=down, g=g), name) == []


@pytest.mark.parametrize("bold", ["\\mathbf{{{v}}}", "\\boldsymbol{{{v}}}"])
def test_a_bold_names_bracketed_superscript_is_its_head(tmp_path, distinct_heads, bold):  # noqa: F811
    """``\\mathbf{q}^{[1]}_3`` and ``\\mathbf{q}^{[2]}_3`` side by side: the superscript after the bold name's brace
    is the head (from 1), so the second vector is Q's last row's columns 2 and 3; its sign-flipped entry is
    Q[2,2], wrong, not head 1's entry."""
    path, f = distinct_heads
    Q = f["Q"][2]
    q = bold.format(v="q")
    first, second = [r4(Q[0]), r4(Q[1])], [r4(-Q[2]), r4(Q[3])]
    text = (f"## 4. Queries\n\n$$\n{q}^{{[1]}}_3 = ({first[0]};\\ {first[1]}),\\qquad "
            f"{q}^{{[2]}}_3 = ({second[0]};\\ {second[1]}).\n$$\n")
    assert r4(-Q[2]) not in (r4(Q[0]), r4(Q[1]))
    assert _wrong_of(tmp_path, text, path) == [("Q[2,2]", second[0])]


@pytest.mark.parametrize("form", [
    "Top-k\n=====\n\n.. math::\n\n   p^{{(\\tau, 3)}} = \\Bigl(\\frac{{{pa}}}{{{m}}};\\ \\frac{{{pb}}}{{{m}}};\\ "
    "\\frac{{{pc}}}{{{m}}}\\Bigr) = ({a};\\ {b};\\ {c})\n",
    "## 6. Top-k\n\nAfter keeping three words, $p^{{(k=3)}} = ({pa}/{m}, {pb}/{m}, {pc}/{m}) = ({a}, {b}, {c})$.\n",
])
def test_a_name_whose_superscript_holds_a_letter_is_another_quantity(tmp_path, run, form):
    """p^{(τ, 3)}, p^{(k=3)}: a superscript with letters in it is no layer, head or step of p; it names another
    quantity (here the top-3 renormalised shares), so its correct figures are not p's wrong ones."""
    p = run["f0"]["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    mass = sum(p[j] for j in order[:3])
    a, b, c = (r4(p[j] / mass, 3) for j in order[:3])
    pa, pb, pc = (r4(p[j], 3) for j in order[:3])
    assert r4(p[order[1]], 3) != b
    name = "doc.rst" if form.startswith("Top") else "doc.md"
    text = form.format(a=a, b=b, c=c, pa=pa, pb=pb, pc=pc, m=r4(mass, 3))
    assert "\n" in text and "\\n" not in text
    assert _wrong(tmp_path, text, name) == []


# ---------------------------------------------------------------- σ² spelled sigma^2; a term after a minus

@pytest.fixture(scope="module")
def two_layers(tmp_path_factory):
    """A two-layer, two-head post-norm transformer (tests/oracle.py, seed 5)."""
    path = write_spec(tmp_path_factory.mktemp("two"),
                      oracle.random_spec_toml(seed=5, V=5, d=4, heads=2, d_ff=4, layers=2, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


@pytest.mark.parametrize("word", ["lag", "layer"])
def test_sigma_squared_in_ascii_is_the_variance_of_its_sections_layer(tmp_path, two_layers, word):
    """Plain-text notes, one section per layer, σ² written sigma^2.  The first layer's σ² and √(σ² + ε) are
    right; in the second layer's section σ² is taken over d − 1: l1.var1[2], wrong, 'unbiased variance' (a
    formula slip; before the slip named its quantity it was left unread), and √(σ² + ε) is right for that layer:
    it is sqrt(l1.var1[2] + ε), matched, not the first layer's, wrong."""
    path, f = two_layers
    eps = mp.mpf("1e-5")
    blocks = f["blocks"]
    mu = [r4(b["mu1"][2], 3) for b in blocks]
    var = [r4(b["var1"][2]) for b in blocks]
    root = [r4(mp.sqrt(b["var1"][2] + eps)) for b in blocks]
    bad = r4(blocks[1]["var1"][2] * 4 / 3)
    said = [f"sigma^2 = {var[0]}", f"sigma^2 = 1/3 * sum_j (x_j - mu)^2 = {bad}"]
    text = "".join(f"4.{k + 1} First LayerNorm in {word} {k + 1}, pos 3\n\n    mu      = {mu[k]}\n\n"
                   f"    {said[k]}\n\n    sqrt(sigma^2 + eps) = {root[k]}\n\n" for k in range(2))
    assert root[0] != root[1] and bad != var[1]
    results = _results_of(tmp_path, text, path, "doc.txt")
    assert [(r.ref, r.number.text, r.cause) for r in results if r.verdict == "wrong"] == \
        [("l1.var1[2]", bad, "unbiased variance")]
    assert [r.ref for r in results if r.number.text == root[1]] == ["sqrt(l1.var1[2] + ln_eps)"]


# ---------------------------------------------------------------- a name learned in one section, used otherwise later

@pytest.mark.parametrize("words", [("Keys", "Another key, of the second head at the second place"),
                                   ("Κλειδιά", "Και ένα κλειδί της δεύτερης κεφαλής στη δεύτερη θέση")])
def test_a_name_read_from_one_sections_vector_does_not_judge_another_sections(tmp_path, distinct_heads, words):  # noqa: F811
    """``u = (…)`` in one section is the first head's key at the first place (its figures agree with that, so
    the notation learns u from them); in the next section ``u_1``, ``u_2`` are another head's key at another place,
    in words no reading follows.  None of that section's figures agree with the first reading, so it does not
    judge them: no false alarm."""
    path, f = distinct_heads
    K = f["K"]
    text = (f"## 3. {words[0]}\n\n$$u = ({r4(K[0][0])};\\ {r4(K[0][1])})$$\n\n"
            f"## 4. {words[0]} II\n\n{words[1]}:\n\n$$u_1 = {r4(K[1][2])}, \\qquad u_2 = {r4(K[1][3])}$$\n")
    assert {r4(K[1][2]), r4(K[1][3])}.isdisjoint({r4(K[0][0]), r4(K[0][1])})
    assert _wrong_of(tmp_path, text, path) == []


# ---------------------------------------------------------------- a Hebrew prefix before a figure

def test_a_hebrew_prefix_joined_by_a_hyphen_is_no_minus():
    """ב-0.5045, מ-17.72%: a Hebrew prefix letter joined to a figure by a hyphen (the maqaf) signs nothing; a
    hyphen after a Latin or Greek letter (x-0.5, α-0.2) is still read as written."""
    texts = [n.text for n in extract("ההפסד ירד ב-0.5045, ועלה מ-17.72% ל-22.07%; x-0.5 and α-0.2")]
    assert texts == ["0.5045", "17.72%", "22.07%", "-0.5", "-0.2"]


# ---------------------------------------------------------------- the model after a step, said in Hebrew or Greek

@pytest.mark.parametrize("form", [
    "## 4. צעד 1\n\n```\nצעד 1: loss = {loss}, p[{t}] = {p}\n```\n\n## 5. סיכום\n\nSGD, lr = 0.5.\n",
    "## 4. Βήμα 1\n\nΗ απώλεια είναι τώρα $L = {loss}$ και $p_{{\\text{{{t}}}}} = {p}$.\n\n## 5. Σύνοψη\n\n"
    "SGD, lr = 0.5.\n",
])
def test_the_loss_and_share_after_a_step_in_hebrew_and_greek(tmp_path, run, form):
    """In a text about SGD (said in its last section), a section titled 'step 1' in Hebrew or Greek (צעד, βήμα)
    printing the loss and the target's share: they are the model's after one SGD step (lr 0.5), right, not the
    untrained model's, wrong."""
    f = run["f"]
    loss, p = r4(f[1]["loss"], 4), r4(f[1]["p"][Y], 4)
    assert loss != r4(f[0]["loss"], 4) and p != r4(f[0]["p"][Y], 4)
    assert _wrong(tmp_path, form.format(loss=loss, p=p, t=VOCAB[Y]), "doc.md") == []
