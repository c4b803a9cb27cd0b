"""check: the author's own arithmetic and the settings a text only mentions (issue 27), on texts written for these
tests in several languages.  Every expected value is computed here (``test_check_readings``'s bigram by hand at 50
digits), never taken from symgpt.

* A sentence that sets an exercise (``Esercizio per casa: … con η = 0,1``) and a clause that says its figure is
  worked from rounded values (``la somma dei valori arrotondati dà …``) claim nothing about the model.
* A text table's header may name a column by its formula (``passo   L = −ln p̂   p̂``): rows of steps.
* An update line whose left side is a row and a component (``E[кот]_0 = 0.6 − 0.5 × … = …``), a printout's
  ``grad E[кот] = […]`` and ``E[кот] nieuw = […]``: the gradient, and the entry after the step.
* A gradient worked as ``∂L/∂W_{1,пьёт} = x_1 · (p̂_пьёт − y_пьёт) = 0,6 × … = …`` names its result though the
  token is a subscript; a line broken after an operator goes on below it; ``g_z = (…)`` is ∂L/∂z.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from test_check_layouts import r4
from test_check_readings import X, Y, _wrong, by_hand


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def c(x, k=4) -> str:
    """A figure with a decimal comma and a Unicode minus."""
    return r4(x, k).replace(".", ",").replace("-", "−")


def test_an_exercise_and_a_sum_of_rounded_values(tmp_path, run):
    """'Esercizio per casa: … con η = 0,1' is another setting (lr is 0.5); '(la somma dei valori arrotondati dà
    …)' is the sum of the printed exponentials: neither is wrong; the same sum said as S is sum_exp's, wrong, and
    so is one 'rounded to three places' (a rounding the text claims)."""
    with mp.workdps(50):
        exps = [mp.exp(v) for v in run["f0"]["z"]]
        rounded, exact = sum(mp.mpf(r4(e, 3)) for e in exps), sum(exps)
    assert r4(rounded, 3) != r4(exact, 3)
    text = (f"    S = {' + '.join(c(e, 3) for e in exps)} ≈ {c(exact, 3)}\n\n"
            f"(la somma dei valori arrotondati dà {c(rounded, 3)}; con tutte le cifre si ottiene {c(exact, 3)}.)\n\n"
            "Esercizio per casa: rifate il paragrafo 5 con η = 0,1 e confrontate la perdita.\n")
    assert _wrong(tmp_path, text) == []
    said = text.replace(f"≈ {c(exact, 3)}", f"= {c(rounded, 3)}", 1)
    assert _wrong(tmp_path, said) == [("sum_exp", c(rounded, 3))]
    claimed = said.replace("    S = ", "    Rounded to three places, S = ", 1)   # (a rounding claimed, not disowned)
    assert _wrong(tmp_path, claimed) == [("sum_exp", c(rounded, 3))]


def test_a_text_tables_header_names_a_column_by_its_formula(tmp_path, run):
    """'passo   L = −ln p̂_пьёт   p̂_пьёт' over rows 0–3 under a heading of SGD steps: the model after k steps; two
    swapped digits at step 2 are sgd[2].loss's."""
    fs = run["f"]
    good = r4(fs[2]["loss"])
    swapped = good[:-2] + good[-1] + good[-2]
    assert swapped != good
    rows = [f"      {k}           {c(f['loss']) if k != 2 else swapped.replace('.', ',')}            {c(f['p'][Y])}"
            for k, f in enumerate(fs)]
    text = ("## 6. Tre passi di SGD\n\nIl passo k è il modello dopo k aggiornamenti.\n\n"
            "    passo     L = −ln p̂_пьёт     p̂_пьёт\n"
            + "\n".join(rows) + "\n")
    assert _wrong(tmp_path, text) == [("sgd[2].loss", swapped.replace(".", ","))]


def test_an_update_line_of_a_rows_component_and_a_printout(tmp_path, run):
    """'grad E[кот] = […]', 'E[кот] nieuw = […]' (a notebook's printout) and 'E[кот]_1 = … + 0.5 × … = …' with
    the wrong sign: the gradient, the entries after the step, and sgd[1].E[кот,1], wrong."""
    gx = run["f0"]["gx"]
    E0, E1 = run["states"][0][0], run["states"][1][0]
    wrong_sign = E0[X][1] + mp.mpf("0.5") * mp.mpf(r4(gx[1]))
    assert r4(wrong_sign) != r4(E1[X][1])
    text = ("```\n"
            f"grad E[кот]  = [{r4(gx[0])} {r4(gx[1])}]\n"
            f"E[кот] nieuw = [{r4(E1[X][0])} {r4(E1[X][1])}]\n```\n\n"
            "De update per component:\n\n$$\\begin{aligned}\n"
            f"E[\\text{{кот}}]_0 &= {r4(E0[X][0], 1)} - 0.5 \\times ({r4(gx[0])}) = {r4(E1[X][0])}\\\\\n"
            f"E[\\text{{кот}}]_1 &= {r4(E0[X][1], 1)} + 0.5 \\times ({r4(gx[1])}) = {r4(wrong_sign)}\n"
            "\\end{aligned}$$\n")
    assert _wrong(tmp_path, text, "doc.md") == [("sgd[1].E[кот,1]", r4(wrong_sign))]


def test_a_gradient_with_a_token_subscript_and_a_wrapped_line(tmp_path, run):
    """'∂L/∂W_{1,пьёт} = x_1 · (p̂_пьёт − y_пьёт) = 0.6 × … = …' (i from 1) with the −y forgotten is
    grad_W[0,пьёт]; 'z_пьёт = 0.6 × 0.2 +' broken over a line before ' … = …' names its result; 'g_z = (…)' with the
    target's entry printed as p is grad_z[пьёт], forgotten −y."""
    f = run["f0"]
    p, x = f["p"], run["states"][0][0][X]
    forgot = mp.mpf(r4(x[0], 1)) * mp.mpf(r4(p[Y]))
    gy = p[Y] - 1
    text = (f"    ∂L/∂W_{{1,пьёт}} = x_1 · (p̂_пьёт − y_пьёт) = {r4(x[0], 1)} × {r4(p[Y])} = {r4(forgot)}\n"
            f"    ∂L/∂W_{{2,пьёт}} = x_2 · (p̂_пьёт − y_пьёт) = ({r4(x[1], 1)}) × ({r4(gy)}) = {r4(x[1] * gy)}\n")
    assert [ref for ref, _ in _wrong(tmp_path, text)] == ["grad_W[0,пьёт]"]
    z = f["z"]
    g = [p[j] - (1 if j == Y else 0) for j in range(5)]
    shown = [r4(p[j] if j == Y else g[j]) for j in range(5)]
    text = (f"Check one logit: z_пьёт = {r4(x[0], 1)} × 0.2 +\n({r4(x[1], 1)}) × 0.7 = {r4(z[3])}, as expected.\n\n"
            f"The gradient at the logits:\n\n$$g_{{z}} = ({', '.join(shown)})$$\n")
    assert _wrong(tmp_path, text, "doc.md") == [("grad_z[пьёт]", shown[Y])]
    text = text.replace(f"= {r4(z[3])}", f"= {r4(z[3] + mp.mpf('0.01'))}")
    assert _wrong(tmp_path, text, "doc.md")[0] == ("z[пьёт]", r4(z[3] + mp.mpf("0.01")))


def test_a_loss_after_a_step_said_on_the_line_above(tmp_path, run):
    """'… och förlusten efter ett steg är' ⏎ ':math:`L = -\\ln p = …`' with log₁₀ for ln: the loss after the first
    step, sgd[1].loss, wrong (the words that say so end the line above the equation)."""
    p1 = run["f"][1]["p"][Y]
    slip = r4(-mp.log10(p1))
    text = (f"## SGD, steg 1\n\nEfter steg 1 får *пьёт* sannolikheten {r4(p1)}, och förlusten efter ett steg är\n"
            f"$L = -\\ln {r4(p1)} = {slip}$. Förlusten har alltså sjunkit.\n")
    assert _wrong(tmp_path, text, "doc.md") == [("sgd[1].loss", slip)]


def test_a_bigrams_logits_printed_after_a_step(tmp_path, run):
    """'z(1) = [ … ]' after the step, in a literal block: the logits after step 1, sgd[1].z; one entry two places
    off is that entry's, wrong."""
    z1 = run["f"][1]["z"]
    shown = [r4(v) for v in z1]
    shown[2] = r4(z1[2] + mp.mpf("0.0100"))
    text = "Ett nytt framåtpass efter steg 1 ger logiterna::\n\n    z(1) = [ " + "  ".join(shown) + " ]\n"
    assert _wrong(tmp_path, text, "doc.txt") == [("sgd[1].z[рыбу]", shown[2])]


def test_right_figures_a_review_found_called_wrong(tmp_path, run):
    """Right figures that readings of rounds 30 and 31 had called wrong: 'di nuovo' (again) is no 'new' beside
    the name; an SGD table is no AdamW's for an 'unlike Adam' above it; a '#' column numbers rows, not steps; a
    one-line aligned block in a page is one formula a row; a printout's banner keeps its section's exercise."""
    f0, fs = run["f0"], run["f"]
    z, p = f0["z"], f0["p"]
    texts = {
        "again.md": f"Ricontrolliamo di nuovo la perdita L = {r4(f0['loss'])} e p(пьёт) = {r4(p[Y])}.\n",
        "unlike.md": "## Training\n\nWe train with plain SGD (η = 0.5); unlike Adam it keeps no state.\n\n"
                     "| step | loss |\n|------|------|\n" + "".join(f"| {k} | {r4(f['loss'])} |\n"
                                                           for k, f in enumerate(fs[:3])),
        "rank.md": "| # | input | target | loss |\n|---|-------|--------|------|\n"
                   f"| 1 | кот | пьёт | {r4(f0['loss'])} |\n",
        "aligned.html": "<p>The logits, entry by entry:\n\\[\\begin{aligned} " + " \\\\ ".join(
            f"z_{{{j}}} &= {r4(z[j])}" for j in range(5)) + " \\end{aligned}\\]\nand that is all.</p>\n",
        "banner.md": "## Exercise 3\n\nRedo the SGD step with η = 0.1 instead; the script prints:\n\n```\n"
                     f"--- step 1 ---\nW_new[0][3] = {r4(run['states'][0][1][0][3] - mp.mpf('0.1') * f0['gW'][0][3])}\n"
                     "```\n",
    }
    for name, text in texts.items():
        assert _wrong(tmp_path, text, name) == [], name
