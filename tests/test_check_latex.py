"""Figures as LaTeX sets them, and a few more ways authors write (each on a text written here):

* a LaTeX source file read as it is (``.tex``): sections, ``tabular`` tables with booktabs rules, ``bmatrix``
  inside ``\\[ … \\]``, ``%`` comments, verbatim code; in Polish with decimal commas (``0{,}4970``,
  ``\\num{0,1163}``, ``34{,}38\\,\\%``) and in English with points (``\\num{2.5e-4}``, ``\\SI{12.5}{\\percent}``);
* the same ``{,}`` inside a Markdown page's math;
* a percent written before its figure, as Turkish does (``%29,87``);
* the loss after k steps written with k primes (``L'``, ``J''``), and a bigram's ``e''_1``;
* figures under an exercise heading (``η = 0.05`` to try) are no claims;
* a sum of rounded figures that the text itself rounds (``= −0.0001 ≈ 0``) is not wrong.

Every expected value is computed here with mpmath on the bigram of :mod:`test_check_readings`.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest

from symgpt.claims.extract import extract
from symgpt.claims.read_tex import tex_lines

from test_check_layouts import r4
from test_check_readings import VOCAB, Y, _wrong, _wrong_of, by_hand, comma, heads_spec


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def tex(body: str) -> str:
    return ("% handout\n\\documentclass{article}\n\\usepackage{booktabs,siunitx}\n"
            "\\newcommand{\\w}[1]{\\textit{#1}}\n\\begin{document}\n" + body + "\n\\end{document}\n")


def pl(s: str) -> str:
    """A figure as a Polish LaTeX source writes it: 0{,}4970."""
    return s.replace(".", "{,}")


def test_a_latex_source_file_is_read_as_latex():
    """Preamble and comments gone, sections as headings, a tabular as a pipe table (``\\multicolumn`` as its
    text and an empty cell, the caption as a caption), verbatim fenced; each line keeps its source line."""
    src = tex("\\section{Wyniki}\n"
              "\\begin{table}\\centering\n"
              "\\begin{tabular}{@{}l*{2}{c}@{}}\n\\toprule\n"
              "& \\multicolumn{2}{c}{\\w{kot}} \\\\\n\\midrule\n"
              "$i = 1$ & $0{,}25$ & 1 \\\\ % the first row\n"
              "\\bottomrule\n\\end{tabular}\n\\caption{Wagi}\n\\end{table}\n"
              "\\begin{verbatim}\n>>> p  # 50% done\n\\end{verbatim}")
    lines = tex_lines(src)
    assert lines == [("# Wyniki", 6), ("\\begin{table}\\centering", 7), ("|  | kot |  |", 10),
                     ("| --- | --- | --- |", 10), ("| i = 1 | 0{,}25 | 1 |", 12),
                     ("Table: Wagi", 15), ("\\end{table}", 16),
                     ("```", None), (">>> p  # 50% done", 18), ("```", None)]


def test_latex_figures_are_read_and_reported_as_printed():
    """``0{,}4970``, ``-0{,}2180``, ``\\num{0,1163}``, ``34{,}38\\,\\%`` in a text with decimal commas;
    ``\\num{2.5e-4}``, ``\\SI{12.5}{\\percent}``, ``1{,}000`` (thousands) and ``0{,}25`` in one with points."""
    polish = extract("$a = 0{,}4970$, $b = -0{,}2180$, $c \\approx \\num{0,1163}$ i $34{,}38\\,\\%$")
    assert [(n.text, n.printed) for n in polish] == [
        ("0.4970", "0{,}4970"), ("-0.2180", "-0{,}2180"), ("0.1163", "\\num{0,1163}"), ("34.38%", "34{,}38\\,\\%")]
    english = extract("a = \\num{2.5e-4}, b = \\SI{12.5}{\\percent} of $1{,}000$ tokens, c = $0{,}25$")
    assert [(n.printed or n.text, n.value) for n in english] == [
        ("\\num{2.5e-4}", Fraction(1, 4000)), ("\\SI{12.5}{\\percent}", Fraction(25, 2)), ("1{,}000", 1000),
        ("0{,}25", Fraction(1, 4))]


def test_a_polish_latex_handout_with_a_wrong_table_cell_and_matrix_entry(tmp_path, run):
    """A ``.tex`` file: a tabular of π by word (one digit swapped) and a ``bmatrix`` of ∂L/∂W under
    ``\\[ … \\]`` beside another (one sign flipped): both wrong, each reported as it is set (``0{,}0709`` as
    ``0,0709``)."""
    f = run["f0"]
    p = [r4(v) for v in f["p"]]
    swapped = p[1][:-2] + p[1][-1] + p[1][-2]
    assert swapped != p[1]
    g = [[r4(v) for v in row] for row in f["gW"]]
    flipped = r4(-f["gW"][1][2])
    rows = [list(g[0]), list(g[1])]
    rows[1][2] = flipped
    matrix = " \\\\\n".join("  " + " & ".join(pl(v) for v in row) for row in rows)
    cells = " & ".join(f"${pl(v)}$" for v in [p[0], swapped, *p[2:]])
    body = ("\\section{Rozkład}\n"
            "\\begin{tabular}{@{}l" + "c" * 5 + "@{}}\n\\toprule\n"
            "słowo & " + " & ".join(f"\\w{{{w}}}" for w in VOCAB) + " \\\\\n\\midrule\n"
            f"$\\pi_w$ & {cells} \\\\\n\\bottomrule\n\\end{{tabular}}\n\n"
            "\\section{Gradient}\n\\[\n"
            "x = \\begin{bmatrix} 0{,}6 & -0{,}3 \\end{bmatrix},\\qquad\n"
            "\\frac{\\partial \\mathcal{L}}{\\partial W} = \\begin{bmatrix}\n" + matrix + "\n\\end{bmatrix}.\n\\]")
    got = _wrong(tmp_path, tex(body), "doc.tex")
    assert got == [("p[ест]", comma(swapped)), ("grad_W[1,рыбу]", comma(flipped))]


def test_the_same_decimal_commas_in_markdown_math(tmp_path, run):
    """``$p = (0{,}2747; …)$`` in a Markdown page: read as the figures they are; a wrong entry is p's, reported as
    the page shows it (``0,2747``: KaTeX and MathJax set ``{,}`` as a comma)."""
    p = [r4(v) for v in run["f0"]["p"]]
    p[Y] = r4(run["f0"]["p"][Y] + mp.mpf("0.01"))
    text = "# Vorwärts\n\n$p = (" + "; ".join(pl(v) for v in p) + ")$\n"
    assert _wrong(tmp_path, text, "doc.md") == [("p[пьёт]", comma(p[Y]))]


def test_a_percent_written_before_its_figure(tmp_path, run):
    """Turkish writes ``%29,87``: a percent slip there (p·10 printed as a percent) is p's, reported as printed."""
    p = run["f0"]["p"]
    good, bad = comma(r4(100 * p[1], 2)), comma(r4(10 * p[Y], 2))
    text = f"Model «кот»tan sonra «ест» için %{good}'lik, «пьёт» için ise %{bad}'lik bir olasılık veriyor.\n"
    assert _wrong(tmp_path, text, "doc.txt") == [("p[пьёт]", f"%{bad}")]


@pytest.mark.parametrize("name,steps", [("J''", 2), ("\\mathcal{L}'", 1), ("L′", 1)])
def test_the_loss_after_k_steps_written_with_k_primes(tmp_path, run, name, steps):
    """``J'' = 0.xxxx`` after two SGD steps: sgd[2].loss; a log₁₀ in place of ln there is wrong."""
    loss = run["f"][steps]["loss"]
    bad = r4(loss / mp.log(10))
    text = (f"# Training: SGD with lr 0.5\n\nThe loss before any step is {r4(run['f'][0]['loss'])}.\n\n"
            f"After the update the new loss is ${name} = {bad}$.\n")
    assert _wrong(tmp_path, text, "doc.md") == [(f"sgd[{steps}].loss", bad)]


def test_an_exercise_is_no_claim(tmp_path, run):
    """Under 'Exercises' / 'Übungen' a vector of what to try (with η = 0.05) is no claim; the same vector above
    the heading, with a wrong entry, is wrong."""
    p = [r4(v) for v in run["f0"]["p"]]
    p[Y] = r4(run["f0"]["p"][Y] + mp.mpf("0.01"))
    vector = "p = (" + "; ".join(comma(v) for v in p) + ")"
    for heading in ("## Exercises", "## Übungen"):
        text = f"# Forward\n\n{vector}\n\n{heading}\n\n1. With η = 0,05: {vector}.\n"
        assert _wrong(tmp_path, text, "doc.md") == [("p[пьёт]", comma(p[Y]))]


def test_a_sum_of_rounded_figures_the_text_rounds_itself(tmp_path, run):
    """``1.350 + … + 0.677 = 4.914 ≈ 4.913``: the text gives the sum of its rounded exp(z) and then the sum's own
    rounding, so 4.914 is not wrong; without ``≈ 4.913`` it is the sum's carried rounding."""
    z = run["f0"]["z"]
    e = [r4(mp.exp(v), 3) for v in z]
    total, true = sum(Fraction(x) for x in e), r4(sum(mp.exp(v) for v in z), 3)
    assert Fraction(true) != total                        # the rounded terms do not add up to the rounded sum
    head = f"z = ({', '.join(r4(v) for v in z)})\n\nexp(z) = ({', '.join(e)})\n\n"
    line = f"Sum: {' + '.join(e)} = {float(total):.3f}"
    assert _wrong(tmp_path, head + line + f" ≈ {true}, the last digit is rounding.\n") == []
    assert _wrong(tmp_path, head + line + ".\n") == [("sum_exp", f"{float(total):.3f}")]


def test_a_figure_in_a_line_that_looks_like_a_numbered_heading_keeps_its_chain():
    """``  0,7979 ile çarpınca 0,5893, tanh(0,5893) = 0,5294``: no section number (0,7979), and the chain's
    operands are the document's figures."""
    ns = extract("u = 0,7217 için: u³ = 0,3759\n  0,7979 ile çarpınca 0,5893, tanh(0,5893) = 0,5294, sonuç\n")
    last = ns[-1]
    assert last.text == "0.5294" and last.heading == ""
    assert all(isinstance(i, int) and ns[i].text == "0.5893" for i in last.operands)


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    return heads_spec(tmp_path_factory)


@pytest.mark.parametrize("text", [
    "In de aandacht geeft kop 2 {c}% aan zichzelf en maar {a}% op “t4”.",
    "Kafa 2 dikkatinin %{c}'ini kendisine, %{a}'ini ise «t4»e veriyor.",
    "W uwadze głowica 2 daje {c} % samej sobie… a tylko {a} % na „t4”."])
def test_attention_shares_in_dutch_turkish_and_polish(tmp_path, two_heads, text):
    """The last query's shares, heads counted from 1: a percent slip on “t4” (key 0) is A[1,2,0]'s, reported as
    printed (Turkish writes the percent first). Input: t4 t2 t2."""
    path, f = two_heads
    A = f["A"][1][2]
    a = mp.nstr(A[0] * 10, 4, strip_zeros=False)
    c = mp.nstr(A[2] * 100, 4, strip_zeros=False)
    comma_ = "%{a}" in text or "głowica" in text
    a_, c_ = (comma(a), comma(c)) if comma_ else (a, c)
    printed = f"%{a_}" if "%{a}" in text else f"{a_} %" if "głowica" in text else f"{a_}%"
    got = _wrong_of(tmp_path, "Tabel: 0,1234 en 0,5678 en 0,9012.\n\n" * comma_ + text.format(a=a_, c=c_) + "\n", path)
    assert got == [("A[1,2,0]", printed)]


def test_a_vector_with_a_bar_is_not_the_vector_without(tmp_path, run):
    """``\\bar x = (0.60, −0.31)`` is some other vector than x = (0.6, −0.3) (a normalised one, say): −0.31 is
    not x's entry printed wrong; the same figures written as x are."""
    assert _wrong(tmp_path, "$\\bar x = (0.60, -0.31)$\n", "doc.md") == []
    assert _wrong(tmp_path, "$x = (0.60, -0.31)$\n", "doc.md") == [("x[1]", "-0.31")]



def test_latex_source_edge_cases_from_a_review():
    """A line break ``\\\\`` before ``%`` ends the row, and the rest is a comment; a verbatim opened and closed on
    one line is that line's; text beside a tabular is kept; a first row of figures is no header (an empty one
    is); LyX's ``\\tabularnewline`` ends a row; a ``\\multicolumn`` of 99999999 columns is read without a crash
    (as the title of its table, a row across it)."""
    src = ("\\begin{document}\nRun \\begin{verbatim}python bigram.py\\end{verbatim} first.\n"
           "\\begin{tabular}{ll}\nA & $0{,}3773$ \\\\\nB & $0{,}2832$ \\\\% was $p_3 = 0{,}3000$\n"
           "\\end{tabular} and $p_3 = 0{,}3594$\n"
           "\\begin{tabular}{l} x \\tabularnewline y \\tabularnewline \\end{tabular}\n"
           "\\begin{tabular}{l} \\multicolumn{99999999}{c}{z} \\\\ \\end{tabular}\n\\end{document}")
    assert tex_lines(src) == [
        ("Run \\begin{verbatim}python bigram.py\\end{verbatim} first.", 2),
        ("|  |  |", 4), ("| --- | --- |", 4), ("| A | 0{,}3773 |", 4), ("| B | 0{,}2832 |", 5),
        (" and $p_3 = 0{,}3594$", 6),
        ("| x |", 7), ("| --- |", 7), ("| y |", 7),
        ("Table: z", 8), ("", None)]       # (a first row spanning every column is the table's title)


def test_latex_figures_printed_with_their_sign_inside_and_indices_with_a_latex_comma():
    """``\\num{-0,14}`` and ``12.5\\,\\%`` are reported as printed; ``W_{0{,}2}`` is an index pair, no figure."""
    ns = extract(r"a \num{-0,14}, b 12.5\,\%, $W_{0{,}2} = 0{,}3$ and $0{,}25$, $0{,}75$")
    assert [(n.text, n.printed) for n in ns] == [("-0.14", "\\num{-0,14}"), ("12.5%", "12.5\\,\\%"),
                                                 ("0.3", "0{,}3"), ("0.25", "0{,}25"), ("0.75", "0{,}75")]


def test_an_approximation_excuses_only_a_sum_that_closes_and_a_task_is_no_exercise(tmp_path, run):
    """``p = 0.xxxx ≈ 0.yy`` (a figure with no arithmetic of its own) stays wrong, ≈ or not; a heading 'Die
    Aufgabe: …' (the task) is no exercise heading."""
    p = run["f0"]["p"]
    bad = r4(p[Y] + mp.mpf("0.01"))
    vector = "p = (" + ", ".join(r4(v) if j != Y else bad for j, v in enumerate(p)) + ")"
    approx = vector.replace(bad, f"{bad} ≈ {r4(p[Y], 2)}")     # (…, 0.1960 ≈ 0.19, …): the true value's rounding
    assert _wrong(tmp_path, approx + "\n") == [("p[пьёт]", bad)]
    assert _wrong(tmp_path, f"## Die Aufgabe: das nächste Wort\n\n{vector}\n", "doc.md") == [("p[пьёт]", bad)]
