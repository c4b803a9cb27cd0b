"""check: readings round 44 of the held-out tutorials showed (issue 27), on an author's notation for scores, norms
and gradients, each on a text written here in more than one notation or format:

* ``s_{2,0} = q·k/√2 = (…)(…) + (…)(…) = …`` with the division left out: S's entry, wrong, its cause the forgotten
  1/√d_k (one figure does not make 's' mean the unscaled dot product);
* ``\\hat{x}`` with braces is x̂, a letter of its own (the normalised row), as ``\\hat x`` is;
* ``δ^z = ∂C/∂z = (…)`` and ``δ = ∂E/∂h = (…)`` name a gradient (``\\mathcal{C}`` a loss's letter): with one sign
  turned, the final vector's gradient, wrong, not the norm's shift or gain whose values it then happens to have;
* ``\\overline{\\delta^z} = …``: a mean of the author's own, no quantity the context's letters name;
* ``(W_2)_{11}`` on a list item's lead-in is W_2's entry 1,1;
* a mantissa with a decimal comma and ``\\cdot 10^{-12}``, or a PDF's ``× 10−7``, is one figure, shown whole.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest

from symgpt.claims.extract import extract, shown

import oracle
from test_check_authors import _verdicts, _wrong, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_vocabulary import _results


def _final_gradient(spec, fw) -> list:
    """∂L/∂h_final by hand: the tied head's E^T (p − y) at the last position."""
    E = oracle.mat(spec["weights"]["E"])
    y = oracle.token_ids(spec, [spec["data"]["target"]])[0]
    g = [p - (1 if v == y else 0) for v, p in enumerate(fw["p"])]
    return [mp.fsum(E[v][j] * g[v] for v in range(len(E))) for j in range(len(E[0]))]


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_a_score_whose_division_by_root_dk_is_left_out(tmp_path, narrow, fmt):  # noqa: F811
    """s_{2,0} = q₂·k₀/√2 = (…)(…) + (…)(…) = q₂·k₀: S[2,0], wrong, 'forgotten 1/√d_k'."""
    path, _, fw = narrow
    Q, K, S = fw["Q"], fw["K"], fw["S"]
    unscaled = r4(S[2][0] * mp.sqrt(2))
    assert unscaled != r4(S[2][0])
    name = r"$$s_{2,0} = \frac{q_2 \cdot k_0}{\sqrt{2}}" if fmt == "md" else "s_{2,0} = q_2·k_0 / √2"
    tail = "$$" if fmt == "md" else ""
    text = (f"The score of the last query on the first key:\n\n{name} = ({r4(Q[2][0])})({r4(K[0][0])}) + "
            f"({r4(Q[2][1])})({r4(K[0][1])}) = {unscaled}{tail}\n")
    got = _verdicts(_results(tmp_path, text, path, f"doc.{fmt}"))
    assert got[unscaled] == ("wrong", "S[2,0]", "forgotten 1/√d_k")


def test_a_hat_with_braces_is_a_letter_of_its_own(tmp_path, narrow):  # noqa: F811
    """$\\hat{x}_2 = (x_2 − μ_2)/σ_2 = (…)$ is LN1's row 2: one entry slipped is LN1's, wrong."""
    path, _, fw = narrow
    row = [r4(x) for x in fw["LN1"][2]]
    off = r4(fw["LN1"][2][1] + mp.mpf("0.0002"))
    text = (r"After the residual, each row is normalised: $\hat{x}_2 = (x_2 - \mu_2)/\sigma_2 = "
            f"({row[0]},\\ {off})$.\n\nAnd the first row: " r"$\hat{x}_0 = " f"({r4(fw['LN1'][0][0])},\\ "
            f"{r4(fw['LN1'][0][1])})$.\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text, path, "doc.md"))] == [("LN1[2,1]", off)]


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A post-LN block at d = 4 (seed 5, T = 3, one head, d_ff = 8): path, spec, forward."""
    from test_check_authors import _block
    return _block(tmp_path_factory, "wide", seed=5, d=4, heads=1, d_ff=8, layers=1, T=3)


@pytest.mark.parametrize("name", [r"\boldsymbol{\delta}^z = \partial \mathcal{C} / \partial \mathbf{z}",
                                  r"\boldsymbol{\delta} = \partial \mathcal{E} / \partial \mathbf{h}"])
def test_a_gradient_vector_with_one_sign_turned(tmp_path, wide, name):
    """δ^z = ∂C/∂z = (a; −b; c; d) where b is right: the final vector's gradient with b's sign turned, wrong; not
    the last norm's shift's gradient, which holds the same values (only the last position has a loss)."""
    path, spec, fw = wide
    g = _final_gradient(spec, fw)
    shown = [r4(x) for x in g]
    shown[1] = r4(-g[1])
    assert shown[1] != r4(g[1])
    entries = ";\\ ".join(shown)
    text = f"Back through the head: \\({name} = ({entries})\\).\n"
    got = _verdicts(_results(tmp_path, text, path, "doc.html"))
    assert got[shown[1]][0] == "wrong" and got[shown[1]][1] in ("grad_h_final[1]", "grad_LN2[2,1]")
    assert got[shown[1]][2] == "sign flip"
    assert got[shown[0]][:2] in (("matched", "grad_h_final[0]"), ("matched", "grad_LN2[2,0]"))


def test_a_mean_of_the_authors_own_is_no_quantity(tmp_path, narrow):  # noqa: F811
    """\\overline{\\delta^z} = … near an entry of Z (the context writes z): unmatched, not Z's entry wrong."""
    path, _, fw = narrow
    near = r4(fw["Z"][2][1] + mp.mpf("0.0011"))
    text = (r"The norm's backward pass needs two means: \(\overline{\delta^z} = " f"{near}" r"\) and "
            r"\(\overline{\delta^z \odot \mathbf{z}} = 0{,}3152\).")
    results = _results(tmp_path, text + "\n", path, "doc.html")
    assert _wrong(results) == []


def test_a_bracketed_name_on_a_list_items_lead_in(tmp_path, wide):
    """'- Entry $(W_2)_{ij}$, with $g = …$' under an item on E's entry: W_2's entry (counted from 1), not the item
    above's entry's."""
    path, spec, _ = wide
    G = oracle.transformer_grads(spec)
    gE, gW = G["grad_E"], G["grad_W_2"]
    v = next(v for v in range(len(gE)) if abs(gE[v][1]) > mp.mpf("0.001"))
    i, j = next((i, j) for i in range(len(gW)) for j in range(len(gW[0])) if abs(gW[i][j]) > mp.mpf("0.001"))
    g = r4(gW[i][j])
    assert g != r4(gE[v][1]) and all(g != r4(x) for row in gW for x in row if x is not gW[i][j])
    text = (f"SGD, entry by entry:\n\n- Entry $E_{{t{v},1}}$, with $g = {r4(gE[v][1])}$\n"
            f"- Entry $(W_2)_{{{i + 1}{j + 1}}}$, with $g = {g}$\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.md"))
    assert got[g][:2] == ("matched", f"grad_W_2[{i},{j}]")


@pytest.mark.parametrize("text, printed, value", [
    (r"$-3{,}8623 \cdot 10^{-12}$", r"-3,8623 \cdot 10^{-12}", "-3.8623e-12"),
    (r"é $1,9955 \cdot 10^{-6}$ e 0,4053", r"1,9955 \cdot 10^{-6}", "1.9955e-6"),
    ("error relativo 2,8 × 10−7 y 0,3910", None, "2.8e-7"),
    (r"$2.5 \times 10^{-3}$", None, "2.5e-3")])
def test_a_mantissa_and_its_power_of_ten(text, printed, value):
    """One figure each, its value the mantissa's times the power, shown as written."""
    figures = [n for n in extract(text) if n.value == Fraction(value)]
    assert len(figures) == 1
    if printed is not None:
        assert shown(figures[0].printed or figures[0].text) == printed


@pytest.fixture(scope="module")
def gelu_block(tmp_path_factory):
    """A post-LN block at d = 4 with the exact GELU (seed 11, T = 3, one head, d_ff = 8): path, spec, forward."""
    from test_check_authors import _block
    return _block(tmp_path_factory, "gelu", seed=11, d=4, heads=1, d_ff=8, layers=1, T=3, activation="gelu")


def test_a_functions_equation_continued_over_lines(tmp_path, gelu_block):
    """GELU(z) = 0.5·z·(1 + erf(z/√2)) ⏎ = 0.5·z·(1 + …) ⏎ = r, r's last digit off: R's entry, wrong."""
    path, _, fw = gelu_block
    j = next(j for j in range(8) if abs(fw["Z"][2][j]) > mp.mpf("0.1"))
    z, r = fw["Z"][2][j], fw["R"][2][j]
    off = r4(r + mp.mpf("0.0001"))
    text = (f"GELU for unit {j} of the last position:\n\n"
            f"    GELU({r4(z)}) = 0.5 * {r4(z)} * (1 + erf({r4(z)} / sqrt(2)))\n"
            f"                 = 0.5 * {r4(z)} * (1 + {r4(mp.erf(z / mp.sqrt(2)))})\n"
            f"                 = {off}\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[off][:2] == ("wrong", f"R[2,{j}]")


ADAMW = ("\n[training]\nsteps = 1\n[training.adamw]\nlr = 0.02\nbeta1 = 0.9\nbeta2 = 0.999\neps = 1e-8\n"
         "weight_decay = 0.05\n")


@pytest.mark.parametrize("name", [r"W^{\text{down}}_{%d,%d}", r"(W_{\text{down}})_{%d%d}"])
def test_adamw_blocks_on_an_mlp_matrix_by_its_role(tmp_path, wide, name):
    """<strong>W^{down}_{i,j}</strong> (W_2, counted from 1) over a list of m₁, m̂₁, v̂₁, the update, the decay and
    'new value θ₁ = …', three entries: each line that entry's AdamW state; the third's θ₁ with the update's sign
    turned is adamw[1].W_2 at that entry, wrong, with the other entries' origin (not another entry it equals)."""
    from conftest import write_spec
    path, spec, _ = wide
    toml = path.read_text(encoding="utf-8") + ADAMW
    spec = oracle.loads_spec(toml)
    G, W2 = oracle.transformer_grads(spec)["grad_W_2"], spec["layer"][0]["W_2"]
    at = [(i, j) for i in range(len(G)) for j in range(len(G[0])) if abs(G[i][j]) > mp.mpf("0.001")][:3]
    assert len(at) == 3
    lr, wd, eps = mp.mpf("0.02"), mp.mpf("0.05"), mp.mpf("1e-8")
    six = lambda x: f"{float(mp.nstr(x, 15)):.6f}"   # noqa: E731
    blocks, wrong = [], None
    for k, (i, j) in enumerate(at):
        theta, g = mp.mpf(W2[i][j].numerator) / W2[i][j].denominator, G[i][j]
        update, decay = lr * g / (abs(g) + eps), lr * wd * theta
        new = theta - decay + update if k == 2 else theta - decay - update
        if k == 2:
            wrong = six(new)
            assert wrong != six(theta - decay - update)
        label = name % (i + 1, j + 1) if "%" in name else name
        w = oracle.num(W2[i][j])
        blocks.append(f"<p><strong>\\({label}\\)</strong>, \\(\\theta_0 = {w}\\), \\(\\nabla = {six(g)}\\):</p>\n"
                      f"<ul>\n  <li>\\(m_1 = 0.1 \\times {six(g)} = {six(g / 10)}\\)</li>\n"
                      f"  <li>\\(\\hat m_1 = {six(g)}\\)</li>\n"
                      f"  <li>decay \\(= 0.02 \\times 0.05 \\times {w} = {six(decay)}\\)</li>\n"
                      f"  <li>new value \\(\\theta_1 = {six(new)}\\)</li>\n</ul>")
    text = "<h2>11. One AdamW step</h2>\n" + "\n".join(blocks) + "\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, toml, "adamw.toml"), "doc.html"))
    i, j = at[2]
    assert got[wrong][:3] == ("wrong", f"adamw[1].W_2[{i},{j}]", "update with the wrong sign")
    i0, j0 = at[0]
    assert got[six(G[i0][j0] / 10)][:2] == ("matched", f"adamw[1].m[W_2,{i0},{j0}]")


@pytest.mark.parametrize("sentence", ["the variance of $\\mathbf{{y}}_3$ is {v}", "la varianza di $y_3$ è {v}"])
def test_a_statistic_of_a_named_row(tmp_path, narrow, sentence):  # noqa: F811
    """'the variance of y₃ is 0.1189': the norm's variance of that row, not y's entry 3 (the target's one-hot)
    called wrong."""
    path, _, fw = narrow
    v = r4(fw["var1"][2])
    text = "Before the first norm, " + sentence.format(v=v) + ".\n"
    results = _results(tmp_path, text, path, "doc.md")
    assert _wrong(results) == []
    assert _verdicts(results)[v][:2] == ("matched", "var1[2]")


@pytest.mark.parametrize("text, values", [("[2.1e-05,3.6909e-05]", ("2.1e-05", "3.6909e-05")),
                                          ("(0.5,2×10^{-3})", ("0.5", "2e-3")),
                                          ("4 × 10-20 tokens", ("4", "10", "20"))])
def test_mantissas_beside_commas_and_hyphens(text, values):
    """A comma between two figures sets them apart; an ASCII hyphen after ×10 is a subtraction, not a power."""
    assert [n.value for n in extract(text)] == [Fraction(v) for v in values]


def test_a_layers_error_is_no_gradient_of_l():
    """Nielsen's δ^l_j is layer l's error, not ∂L/∂l; δ^z is ∂L/∂z."""
    from symgpt.claims.symbols import parse_label
    assert str(parse_label("δ^z", [])) == "∂L/∂z" and not str(parse_label("δ^l_j", [])).startswith("∂L/∂")
