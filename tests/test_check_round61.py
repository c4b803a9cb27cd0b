"""check's readings from round 61 of the held-out tutorials (issue 27), each on texts written here in more than one
notation, language or format:

* a block's weight named with its layer as a superscript (``∂L/∂W_Q^{(1)}[0,1]``, ``W_K⁽²⁾[1,0]``) in a model of
  several blocks, where one section prints both blocks' entries: the superscript names the block, counted as the
  document counts its blocks, and the indices after it are no figures;
* the rows of an AdamW table named so, with the update written Δ; a block named in words beside an entry ('(l2)',
  'van laag 2') and a new value written ``theta_nieuw``;
* a token's possessive before another quantity of it ('"오늘"의 제곱합은 …'), which is no share of the token;
* a table's corner ``t \\ u`` escaped in reStructuredText, and a
  caption that names scores under a heading that names weights too;
* a mini-batch's mean gradient under the document's own letter, every figure of it wrong; a transposed entry of it;
* a 2 × 2 matrix a PDF's text sets with its name between its rows, a blank line above the name; a name with a bar
  (``W̄_{V}``);
* an AdamW step's update on the line after its lead-in, under a heading that counts the step with an ordinal
  ('2. adım').

Every expected value is computed here with PyTorch float64 (``tests/torch_oracle.py``) and mpmath, never by symgpt.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_round55 import _torch_run, f4
from test_check_round57 import ADAMW
from test_check_round59 import f5
from test_check_vocabulary import _results

TWO_BLOCKS = oracle.random_spec_toml(seed=7, V=6, d=4, heads=1, d_ff=8, layers=2, T=3)

LAYERED = {   # (file, text, first block's number): W_Q of the second block and W_Q of the first
    "md-from-0": ("doc.md", "## Gradien perhatian\n\nBlok 1: $\\partial L / \\partial W_Q^{{(1)}}[0,1] = {a}$, "
                            "dan di blok 0, $\\partial L / \\partial W_Q^{{(0)}}[1,2] = {b}$.\n", 0),
    "txt-from-1": ("doc.txt", "Gradients of the attention weights\n\n  ∂L/∂W_Q⁽²⁾[0,1] = {a}\n"
                              "  ∂L/∂W_Q⁽¹⁾[1,2] = {b}\n", 1),
    "html-from-1": ("doc.html", "<html><body><h2>Gradienten</h2><p>Im zweiten Block ist "
                                "\\(\\partial L/\\partial W_Q^{{(2)}}[0,1] = {a}\\), im ersten "
                                "\\(\\partial L/\\partial W_Q^{{(1)}}[1,2] = {b}\\).</p></body></html>", 1),
}


@pytest.mark.parametrize("style", sorted(LAYERED))
def test_a_layer_written_as_a_superscript_names_the_block(tmp_path, style):
    """Two blocks' W_Q gradients in one section, each with its block in a superscript: the second block's entry
    printed transposed (the value of [1,0]) is wrong as grad_l1.W_Q[0,1], the first block's correct entry is
    grad_l0.W_Q[1,2], whether the blocks count from 0 or from 1 (before: the superscript was dropped, the section
    named no block, and the transposed value was matched to grad_l1.W_Q[1,0], the entry it equals)."""
    path, _, g = _torch_run(TWO_BLOCKS, tmp_path)
    transposed, right = f5(g["l1.W_Q"][1, 0]), f5(g["l0.W_Q"][1, 2])
    assert transposed != f5(g["l1.W_Q"][0, 1])
    name, text, _ = LAYERED[style]
    got = _verdicts(_results(tmp_path, text.format(a=transposed, b=right), path, name))
    assert got[transposed][:2] == ("wrong", "grad_l1.W_Q[0,1]"), got[transposed]
    assert got[right][:2] == ("matched", "grad_l0.W_Q[1,2]"), got[right]
    assert "0" not in got and "2" not in got, got        # (the indices after the superscript are no figures)


def test_an_adamw_table_whose_rows_name_their_block_by_a_superscript(tmp_path):
    """Rows W_Q^{(1)}[1,0] and W_Q^{(0)}[0,1] under m, v, m̂, v̂, Δ of one AdamW step (blocks from 0): each cell is
    that block's state, so m̂ with its last digit off is wrong as adamw[1].mhat[l1.W_Q,1,0], and Δ is the update
    (before: the rows named no block, and every cell went by its value alone)."""
    path, _, g = _torch_run(TWO_BLOCKS + ADAMW, tmp_path)
    rows = []
    for label, gr in (("W_Q^{(1)}[1,0]", g["l1.W_Q"][1, 0]), ("W_Q^{(0)}[0,1]", g["l0.W_Q"][0, 1])):
        with mp.workdps(50):
            x = mp.mpf(float(gr))
            states = [x / 10, x ** 2 / 1000, x, x ** 2, mp.mpf("0.01") * x / (abs(x) + mp.mpf("1e-8"))]
        cells = [f"{float(s):.6f}" if k not in (1, 3) else f"{float(s):.4e}" for k, s in enumerate(states)]
        for k in (0, 2):
            assert abs(abs(float(states[k])) * 1e6 % 1 - 0.5) > 0.02
        rows.append((label, cells))
    slipped = rows[0][1][2][:-1] + str((int(rows[0][1][2][-1]) + 1) % 10)
    rows[0][1][2] = slipped
    body = "\n".join(f"| ${label}$ | " + " | ".join(cells) + " |" for label, cells in rows)
    text = ("## Satu langkah AdamW\n\nAdamW, lr = 0.01.\n\n| parameter | m | v | $\\hat m$ | $\\hat v$ | Δ |\n"
            "|---|---|---|---|---|---|\n" + body + "\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.md"))
    assert got[slipped][:2] == ("wrong", "adamw[1].mhat[l1.W_Q,1,0]"), got[slipped]
    assert got[rows[1][1][0]][:2] == ("matched", "adamw[1].m[l0.W_Q,0,1]"), got[rows[1][1][0]]
    assert got[rows[1][1][2]][:2] == ("matched", "adamw[1].mhat[l0.W_Q,0,1]"), got[rows[1][1][2]]


LAYER_WORDS = {   # (file, text): an AdamW table whose rows name their block in words, and a lead-in that does
    "nl": ("doc.txt", "6. Een AdamW-stap\n\nAdamW, lr = 0.01.\n\n"
                      "    parameter     |     m           v           Delta      theta_nieuw\n"
                      "    --------------+---------------------------------------------------\n"
                      "    W2[{r},{c}] (l2)  |  {m}  {v}  {u}  {new}\n\n"
                      "Met de hand voor W2[{r},{c}] van laag 2 (theta = {theta}):\n\n    theta_nieuw = {new2}\n"),
    "en": ("doc.md", "## One AdamW step\n\nAdamW with lr = 0.01.\n\n"
                     "| entry | m | v | Δθ | θ_new |\n|---|---|---|---|---|\n"
                     "| W_2[{r},{c}], layer 2 | {m} | {v} | {u} | {new} |\n\n"
                     "By hand for W_2[{r},{c}] of layer 2 (θ = {theta}):\n\n- θ_new = {new2}\n"),
}


@pytest.mark.parametrize("lang", sorted(LAYER_WORDS))
def test_a_block_named_in_words_beside_an_entry(tmp_path, lang):
    """W2[3,2] of the second block, its block named in words in the row ('(l2)', 'layer 2') and in the lead-in ('van
    laag 2'), in a two-block model whose W_2 entries are alike in name: the row's cells are that block's AdamW states,
    and a new value with the decay left out is wrong as adamw[1].l1.W_2 (before: the rows named no block, and the
    new values went by value alone, to whichever weight they equal)."""
    path, _, g = _torch_run(TWO_BLOCKS + ADAMW, tmp_path)
    spec = oracle.load_spec(str(path))
    r, c = next((i + 1, j + 1) for i in range(8) for j in range(4)     # (from 1, as the texts count; an entry
                if abs(g["l1.W_2"][i, j]) > 1e-3)                        #  whose unit is alive)
    theta = spec["layer"][1]["W_2"][r - 1][c - 1]
    with mp.workdps(50):
        x, th = mp.mpf(float(g["l1.W_2"][r - 1, c - 1])), mp.mpf(theta.numerator) / theta.denominator
        step = mp.mpf("0.01") * x / (abs(x) + mp.mpf("1e-8"))
        new = th - mp.mpf("0.01") * mp.mpf("0.01") * th - step
        cells = dict(m=f"{float(x / 10):.6f}", v=f"{float(x ** 2 / 1000):.4e}", u=f"{float(step):.6f}",
                     new=f"{float(new):.6f}", new2=f"{float(th - step):.6f}", theta=f"{float(th):g}")
    assert abs(abs(float(new)) * 1e6 % 1 - 0.5) > 0.02 and cells["new2"] != cells["new"]
    name, text = LAYER_WORDS[lang]
    got = _verdicts(_results(tmp_path, text.format(r=r, c=c, **cells), path, name))
    at = f"{r - 1},{c - 1}"
    assert got[cells["new"]][:2] == ("matched", f"adamw[1].l1.W_2[{at}]"), got[cells["new"]]
    assert got[cells["m"]][:2] == ("matched", f"adamw[1].m[l1.W_2,{at}]"), got[cells["m"]]
    assert got[cells["new2"]][:2] == ("wrong", f"adamw[1].l1.W_2[{at}]"), got[cells["new2"]]


TOKEN_OWNS = {   # a token's possessive and a noun that is no share of it, before a chain of its row's squares
    "ko": ("doc.rst", "첫 단어 \"{t}\"의 제곱합은 :math:`{chain} = {s}` 이므로\n"
                      "제곱평균은 :math:`{s} / 4 = {ms}` 입니다.\n"),
    "ja": ("doc.md", "最初の単語「{t}」の二乗和は ${chain} = {s}$ なので、\n二乗平均は ${s} / 4 = {ms}$ です。\n"),
    "en": ("doc.md", "The first word \"{t}\"'s sum of squares is ${chain} = {s}$, so\n"
                     "its mean square is ${s} / 4 = {ms}$.\n"),
}


UNIFORM = """
title = "uniform"
[model]
kind = "bigram"
vocab = ["나", "너", "우리", "그"]
d = 2
[data]
input = ["나"]
target = "너"
[weights]
E = [[0.27, 0.1], [0.3, -0.2], [-0.1, 0.4], [0.2, 0.2]]
W = [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
"""
"""A bigram whose output matrix is zero: every probability is 1/4 exactly, near the first weight of 나, 0.27."""


@pytest.mark.parametrize("lang", sorted(TOKEN_OWNS))
def test_a_quantity_a_token_owns_is_no_share_of_it(tmp_path, lang):
    """'"나"의 제곱합은 0.27² + 0.10² = 0.0829', 「나」の二乗和, "나"'s sum of squares: the squares of the token's
    embedding, never the token's probability, though p = 1/4 is near its first weight (before: the quoted token made
    every figure of the chain p[나], and the correct weight and sum were called wrong)."""
    path = write_spec(tmp_path, UNIFORM)
    row = [Fraction(27, 100), Fraction(1, 10)]
    chain = " + ".join(f"{float(w):.2f}^2" for w in row)
    squares = sum(w * w for w in row)
    s, ms = f"{float(squares):.4f}", f"{float(squares / 2):.5f}"
    assert Fraction(s) == squares and Fraction(ms) == squares / 2
    name, text = TOKEN_OWNS[lang]
    got = _verdicts(_results(tmp_path, text.format(t="나", chain=chain, s=s, ms=ms).replace(" / 4 ", " / 2 "), path,
                             name))
    assert not any(v[0] == "wrong" for v in got.values()), got


ONE_BLOCK = oracle.random_spec_toml(seed=13, V=6, d=4, heads=1, d_ff=8, layers=1, T=3)

SCORE_TABLES = {   # a table of scores and a table of weights, each with a corner that names both axes
    "rst": ("doc.rst", "Scores and weights\n==================\n\n"
                       ".. table:: Table 3. Attention scores a_{{t,u}}\n\n{scores}\n"
                       ".. table:: Table 4. Attention weights α_{{t,u}}\n\n{weights}"),
    "html": ("doc.html", "<html><body><h2>Escores e pesos de atenção</h2><table><caption>Tabela 4 — escores"
                         "</caption>{scores}</table><p>O softmax de cada linha dá os pesos a<sub>t,j</sub>:</p>"
                         "<table><caption>Tabela 5 — pesos de atenção</caption>{weights}</table></body></html>"),
}


def _causal(fmt: str, cells: list) -> str:
    """A causal table with the corner 't \\\\ u' (reStructuredText, its backslash escaped) or 't \\ j' (HTML)."""
    if fmt == "rst":
        rule = "   ======  ========  ========  ========\n"
        return rule + "   t \\\\ u   1         2         3\n" + rule + "".join(
            f"   {t + 1}       " + "  ".join(f"{c:<8}" for c in row) + "\n" for t, row in enumerate(cells)) + rule
    return "<tr><th>t \\ j</th><th>1</th><th>2</th><th>3</th></tr>" + "".join(
        f"<tr><td>{t + 1}</td>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for t, row in enumerate(cells))


@pytest.mark.parametrize("fmt", sorted(SCORE_TABLES))
def test_a_score_table_whose_corner_names_both_axes(tmp_path, fmt):
    """A causal table of scores and one of weights, both with a corner that names the two axes ('t \\\\ u', escaped
    in reStructuredText, or 't \\ j'), under a heading on scores and weights: each table's cells are its caption's
    (S, A), so a copied score is wrong as S and no correct figure is called wrong (before: the corner was read as
    one name for both tables, and one table's every figure was a false alarm)."""
    path, q, _ = _torch_run(ONE_BLOCK, tmp_path)
    S = [[f4(q["S"][t, s]) if s <= t else "−∞" for s in range(3)] for t in range(3)]
    A = [[f4(q["A"][t, s]) if s <= t else "—" for s in range(3)] for t in range(3)]
    copied = S[1][0]
    assert f4(q["S"][2, 1]) != copied
    S[2][1] = copied
    name, text = SCORE_TABLES[fmt]
    results = _results(tmp_path, text.format(scores=_causal(fmt, S), weights=_causal(fmt, A)), path, name)
    wrong = [(r.ref, r.number.printed or r.number.text) for r in results if r.verdict == "wrong"]
    assert wrong == [("S[2,1]", copied)], wrong


MEAN_BY_LETTER = {   # the batch's gradient under the text's own letter U for W, its figures all wrong
    "md": ("doc.md", "The output matrix is $U$:\n\n$$U = \\begin{{bmatrix}} {u0} \\\\ {u1} \\end{{bmatrix}}$$\n\n"
                     "Over the batch, $(\\nabla_U \\mathcal{{L}})_{{1,{t}}} = {total}$ and "
                     "$(\\nabla_U \\mathcal{{L}})_{{0,{s}}} = {swapped}$.\n"),
    "txt": ("doc.txt", "The output matrix U:\n\n    U = [[{u0c}], [{u1c}]]\n\nOver the batch:\n\n"
                       "    dL/dU[1, {t}] = {total}\n    dL/dU[0, {s}] = {swapped}\n"),
}


@pytest.mark.parametrize("fmt", sorted(MEAN_BY_LETTER))
def test_a_batchs_mean_gradient_under_the_texts_own_letter(tmp_path, fmt):
    """∇_U 𝓛 where U is the text's letter for W, on a batch of three, with both its figures wrong (a sum not divided
    by 3, and an entry transposed): they are the batch's mean gradient's, sgd[0].grad_W, and are judged as such
    (before: no figure agreed with the name's reading, so it was dropped, and the sum was judged as some chain)."""
    from test_check_authors import BATCH, _batch_by_hand
    from test_check_readings import VOCAB
    with mp.workdps(50):
        _, gW = _batch_by_hand()
    path = write_spec(tmp_path, BATCH)
    W = oracle.loads_spec(BATCH)["weights"]["W"]
    total, swapped = f"{float(gW[1][2] * 3):.4f}", f"{float(gW[1][0]):.4f}"
    assert swapped != f"{float(gW[0][1]):.4f}" and total != f"{float(gW[1][2]):.4f}"
    rows = [[f"{float(w):.1f}" for w in row] for row in W]
    name, text = MEAN_BY_LETTER[fmt]
    text = text.format(u0=" & ".join(rows[0]), u1=" & ".join(rows[1]), u0c=", ".join(rows[0]),
                       u1c=", ".join(rows[1]), t=VOCAB[2], s=VOCAB[1], total=total, swapped=swapped)
    got = _verdicts(_results(tmp_path, text, path, name))
    assert got[total] == ("wrong", f"sgd[0].grad_W[1,{VOCAB[2]}]", "sum for mean"), got[total]
    assert got[swapped] == ("wrong", f"sgd[0].grad_W[0,{VOCAB[1]}]", "transposed index"), got[swapped]


SEED_SHAPE = oracle.random_spec_toml(seed=21, V=6, d=2, heads=1, d_ff=4, layers=1, T=3, norm_kind="rmsnorm")

NAME_BETWEEN_ROWS = {   # a 2 × 2 matrix as a PDF's text sets it: the first row in its brackets, a blank line, the name
    "bar": "and finally W̄_{{V}} = Σ_j x_j^⊤ v̄_j:\n\n\n                   [{a} {b}]\n\n"
           "             W̄_{{V}} =                 .\n                    {c}   {d}\n",
    "partial": "The gradient of W_V:\n\n\n                   [{a} {b}]\n\n"
               "             ∂L/∂W_{{V}} =                 .\n                    {c}   {d}\n",
}


@pytest.mark.parametrize("name", sorted(NAME_BETWEEN_ROWS))
def test_a_two_by_two_matrix_named_between_its_rows(tmp_path, name):
    """A PDF's text of a 2 × 2 display matrix: its first row in brackets, a blank line, then the name's line and the
    second row below it. Its four figures are the matrix's entries in place, so an entry transposed is wrong as its
    own (before: the first row was read as a vector, its entries placed by value, the transposed one 'matched' the
    entry it equals)."""
    path, _, g = _torch_run(SEED_SHAPE, tmp_path)
    G = g["W_V"]

    def f6(x) -> str:
        assert abs(abs(float(x)) * 1e6 % 1 - 0.5) > 0.02
        return f"{float(x):.6f}"
    a, b, c, d = f6(G[0, 0]), f6(G[1, 0]), f6(G[1, 0]), f6(G[1, 1])     # b: [1,0]'s value where [0,1]'s stands
    assert f6(G[0, 1]) != b
    results = _results(tmp_path, NAME_BETWEEN_ROWS[name].format(a=a, b=b, c=c, d=d), path, "doc.txt")
    placed = [(r.verdict, r.ref, r.cause) for r in results if r.number.kind == "decimal"]
    assert placed[1] == ("wrong", "grad_W_V[0,1]", "transposed index"), placed
    assert placed[0][:2] == ("matched", "grad_W_V[0,0]") and placed[2][:2] == ("matched", "grad_W_V[1,0]"), placed


WRAPPED_STEP = {   # the update of an entry on the line after the sentence that names the entry, under step 2's heading
    "tr": ("## 4. AdamW — 2. adım\n\nGömme tarafında $E_{{кот,0}}$ için de aynı hesabı yapıyoruz ve\n"
           "Adam adımı bu kez $\\Delta\\theta = \\eta\\, \\hat{{m}}_2 / (\\sqrt{{\\hat{{v}}_2}} + \\epsilon) = {x}$ "
           "oluyor; yeni değer hesaplanabilir.\n"),
    "de": ("## 4. AdamW: der 2. Schritt\n\nFür den Eintrag $E_{{кот,0}}$ rechnen wir genauso, und\n"
           "der Adam-Schritt ist diesmal $\\Delta\\theta = \\eta\\, \\hat{{m}}_2 / "
           "(\\sqrt{{\\hat{{v}}_2}} + \\epsilon) = "
           "{x}$, kleiner als zuvor.\n"),
}


@pytest.mark.parametrize("lang", sorted(WRAPPED_STEP))
def test_an_update_on_the_line_after_its_entry_under_an_ordinal_step(tmp_path, lang):
    """'… E_{кот,0} için de aynı hesabı yapıyoruz ve ⏎ Adam adımı … Δθ = … = x' under '2. adım' ('2. Schritt'): the
    update of E[кот,0] at AdamW's second step, so a wrong one is wrong as adamw[2].update (before: the sentence's
    entry on the line above was not read, nor a step counted by an ordinal before its noun)."""
    import torch_oracle
    from test_check_readings import SPEC
    path = write_spec(tmp_path, SPEC)
    records = torch_oracle.torch_train(oracle.loads_spec(SPEC), "bigram", "adamw", 2, 0.01, weight_decay=0.01)
    before, after = records[1]["params"]["E"][0][0], records[2]["params"]["E"][0][0]
    update = before * (1 - 0.01 * 0.01) - after                  # θ ← θ(1 − ηλ) − update, as torch's AdamW steps
    x = f"{update * 3:.6f}"
    assert x != f"{update:.6f}"
    got = _verdicts(_results(tmp_path, WRAPPED_STEP[lang].format(x=x), path))
    assert got[x][0] == "wrong" and got[x][1] in ("adamw[2].update[E,кот,0]", "adamw[2].update[E,0,0]"), got[x]
    #                                                                  (кот is token 0: one entry, two spellings)


def _batch_gradients():
    """The mean gradients of W and E over BATCH's three examples, by hand (mpmath)."""
    from test_check_authors import BATCH
    from test_check_readings import VOCAB
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    gW = [[mp.mpf(0)] * 5 for _ in range(2)]
    gE = [[mp.mpf(0)] * 2 for _ in range(5)]
    for x, y in (("кот", "пьёт"), ("рыбу", "спит"), ("ест", "рыбу")):
        x, y = VOCAB.index(x), VOCAB.index(y)
        z = [sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)]
        e = [mp.exp(v) for v in z]
        delta = [v / sum(e) - (j == y) for j, v in enumerate(e)]
        for i in range(2):
            gE[x][i] += sum(W[i][j] * delta[j] for j in range(5)) / 3
            for j in range(5):
                gW[i][j] += E[x][i] * delta[j] / 3
    return BATCH, VOCAB, gW, gE


LETTERED = {   # tables of the batch's mean gradients under the text's own letters G^W and G^E, rows and columns
    "ja": ("勾配 $G^W$", "行 {i}", "勾配 $G^E$", "列 {i}"),      # counted in words, as CJK writes them
    "zh": ("梯度 $G^W$", "行 {i}", "梯度 $G^E$", "列 {i}"),
    "en": ("gradient $G^W$", "row {i}", "gradient $G^E$", "column {i}"),
    "fr": ("gradient $G^W$", "c = {i}", "gradient $G^E$", "c = {i}"),    # (an author's running letter)
}


@pytest.mark.parametrize("lang", sorted(LETTERED))
def test_mean_gradients_under_letters_with_a_superscript(tmp_path, lang):
    """A table 'G^W' with rows '行 0', '行 1' and a column per token, and a table 'G^E' with a row per token and
    columns '列 0', '列 1': the text's letters for the batch's mean gradients, learned from their figures, so an
    entry transposed is wrong as sgd[0].grad_W and a sign flipped as sgd[0].grad_E (before: G^W was read as W
    itself, '行 0' named no row, and every cell went by value alone)."""
    spec_text, vocab, gW, gE = _batch_gradients()
    path = write_spec(tmp_path, spec_text)
    W_corner, W_row, E_corner, E_col = LETTERED[lang]
    cols = vocab[:4]
    cells = [[f"{float(gW[i][j]):.4f}" for j in range(4)] for i in range(2)]
    swapped = f"{float(gW[1][0]):.4f}"
    assert swapped != cells[0][1]
    cells[0][1] = swapped
    wtable = f"| {W_corner} | " + " | ".join(cols) + " |\n|---|" + "---:|" * 4 + "\n" + "".join(
        f"| {W_row.format(i=i)} | " + " | ".join(cells[i]) + " |\n" for i in range(2))
    rows = [vocab.index(t) for t in ("кот", "рыбу", "ест")]
    ecells = {r: [f"{float(gE[r][i]):.4f}" for i in range(2)] for r in rows}
    flipped = ecells[rows[1]][1].lstrip("-") if ecells[rows[1]][1].startswith("-") else "-" + ecells[rows[1]][1]
    ecells[rows[1]][1] = flipped
    etable = f"| {E_corner} | {E_col.format(i=0)} | {E_col.format(i=1)} |\n|---|---:|---:|\n" + "".join(
        f"| {vocab[r]} | " + " | ".join(ecells[r]) + " |\n" for r in rows)
    results = _results(tmp_path, f"## 3.\n\n{wtable}\n{etable}", path)
    got = _verdicts(results)
    twice = [(r.verdict, r.ref, r.cause) for r in results if (r.number.printed or r.number.text) == swapped]
    assert twice == [("wrong", f"sgd[0].grad_W[0,{vocab[1]}]", "transposed index"),    # (row 0's, then row 1's
                     ("matched", f"sgd[0].grad_W[1,{vocab[0]}]", None)], twice        #  own)
    assert got[flipped][:3] == ("wrong", f"sgd[0].grad_E[{vocab[rows[1]]},1]", "sign flip"), got[flipped]
    assert got[cells[1][2]][:2] == ("matched", f"sgd[0].grad_W[1,{vocab[2]}]"), got[cells[1][2]]


def test_a_logit_near_zero_has_a_small_exponential(tmp_path):
    """exp of a logit of 3·10⁻⁵ needs a few digits, not 10^4.5 · log10 e of them: a value's size bounds |v| by its
    enclosure, not by the digits a small value takes to write (before: such a spec's document was refused,
    'exp(logits[1]) needs numbers of about 1287 digits')."""
    import symgpt
    toml = UNIFORM.replace("W = [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]",
                           "W = [[0.3, 0.0, 0.0, 0.0], [-0.8097, 0.0, 0.0, 0.0]]")
    d = symgpt.load(str(write_spec(tmp_path, toml)))
    z = Fraction(27, 100) * Fraction(3, 10) + Fraction(1, 10) * Fraction(-8097, 10000)     # E[나]·W[:, 나], by hand
    assert 0 < abs(z) < Fraction(1, 10000)
    with mp.workdps(40):
        expected = mp.nstr(mp.exp(mp.mpf(z.numerator) / z.denominator), 15, strip_zeros=False)
    assert d.value("exp(z[나])", digits=15) == expected


TAU_TITLED = r"""\documentclass{article}
\newcommand{\tem}[1]{\tau = #1}
\begin{document}
\begin{tabular}{|l|r|}
\hline
\multicolumn{2}{|c|}{$\tem{2}$} \\
\hline
słowo & $\pi_v$ \\
\hline
""" + "{rows}" + r"""\hline
\end{tabular}
\end{document}
"""


def test_a_latex_table_titled_by_a_row_across_it_and_a_macro():
    """A tabular whose first row spans both columns ('\\multicolumn{2}{|c|}{$\\tem{2}$}', a macro of the preamble for
    τ = #1) over rows word | share: the row is the table's title, so its cells are the shares at T = 2, and one
    copied from another row is wrong as softmax_T(2, ·) (before: the spanning row was a header of one cell, the
    macro was read as its bare argument, and the temperature was lost)."""
    import tempfile
    from pathlib import Path

    from test_check_readings import SPEC, VOCAB, forward
    spec = oracle.loads_spec(SPEC)
    with mp.workdps(50):
        z = forward(oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"]))["z"]
        e = [mp.exp(v / 2) for v in z]
        shares = [f"{float(v / sum(e)):.4f}".replace(".", "{,}") for v in e]
    copied = shares[0]
    assert shares[1] != copied
    shares[1] = copied
    rows = "".join(f"{w} & ${c}$ \\\\\n" for w, c in zip(VOCAB, shares))
    tmp = Path(tempfile.mkdtemp())
    path = write_spec(tmp, SPEC)
    results = _results(tmp, TAU_TITLED.replace("{rows}", rows), path, "doc.tex")
    wrong = [(r.ref, r.cause) for r in results if r.verdict == "wrong"]
    assert wrong == [(f"softmax_T(2, {VOCAB[1]})", "plain error")], wrong


FINITE = {   # a gradient check's table, its columns named in words (the central difference, then backprop)
    "fr": "    coefficient  J(theta + h)  J(theta - h)  différence finie  rétropropagation\n",
    "es": "    coeficiente  J(theta + h)  J(theta - h)  diferencia finita  retropropagación\n",
}


@pytest.mark.parametrize("lang", sorted(FINITE))
def test_a_gradient_checks_column_named_by_finite_differences(tmp_path, lang):
    """'différence finie', 'diferencia finita': the check's numerical derivative, so one without the 2 of 2h is wrong
    as gradcheck(W[1,boit], 1e-4) (before: only 'finite' and 'numerical' named it, and the figure named nothing)."""
    from test_check_readings import SPEC
    checked = SPEC.replace("[training]\nlr = 0.5\nsteps = 3\n",
                           "[training]\nlr = 0.5\nsteps = 3\ngradcheck = { h = 1e-4, params = [\"W[1,пьёт]\"] }\n")
    assert checked != SPEC
    path = write_spec(tmp_path, checked)
    spec = oracle.loads_spec(SPEC)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    from test_check_readings import forward
    with mp.workdps(50):
        h = mp.mpf("1e-4")
        up = [[W[i][j] + (h if (i, j) == (1, 3) else 0) for j in range(5)] for i in range(2)]
        down = [[W[i][j] - (h if (i, j) == (1, 3) else 0) for j in range(5)] for i in range(2)]
        plus, minus = forward(E, up)["loss"], forward(E, down)["loss"]
        g = forward(E, W)["gW"][1][3]
    twice = f"{float((plus - minus) / h):.6f}"
    row = f"    W[2, пьёт]   {float(plus):.10f}  {float(minus):.10f}  {twice}          {float(g):.6f}\n"
    text = ("Vérification : h = 10^-4.\n\n" if lang == "fr" else "Comprobación: h = 10^-4.\n\n") + FINITE[lang] + \
        "    -----------  ------------  ------------  ----------------  ----------------\n" + row
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[twice][:2] == ("wrong", "gradcheck(W[1,пьёт], 1e-4)"), got


AFTER_STEP_N = {   # the loss after a step whose number follows its noun, in a sentence with the verb 'is'
    "en": "## AdamW\n\nThe loss after step 2 is {x}.\n",
    "id": "## AdamW\n\nKerugian setelah langkah 2 adalah {x}.\n",
    "de": "## AdamW\n\nDer Verlust nach Schritt 2 ist {x}.\n",
}


@pytest.mark.parametrize("lang", sorted(AFTER_STEP_N))
def test_the_loss_after_step_n(tmp_path, lang):
    """'the loss after step 2 is …', 'Kerugian setelah langkah 2 adalah …' (Indonesian 'is' read as 'is'), 'nach
    Schritt 2': the loss of AdamW's second step, so a last-digit slip is wrong as adamw[2].loss (before: the step's
    number after its noun was read as a figure, which cut the sentence's name off)."""
    import torch_oracle
    from test_check_readings import SPEC, forward
    path = write_spec(tmp_path, SPEC)
    records = torch_oracle.torch_train(oracle.loads_spec(SPEC), "bigram", "adamw", 2, 0.01, weight_decay=0.01)
    E, W = ([[mp.mpf(float(v)) for v in row] for row in records[2]["params"][k]] for k in ("E", "W"))
    with mp.workdps(30):
        loss = forward(E, W)["loss"]
    assert abs(float(loss) * 1e4 % 1 - 0.5) > 0.01
    slipped = f"{float(loss) + 0.0001:.4f}"
    got = _verdicts(_results(tmp_path, AFTER_STEP_N[lang].format(x=slipped), path))
    assert got[slipped][:2] == ("wrong", "adamw[2].loss"), got


NEW_GRADIENT = {   # a column of the gradients at the model the first step made, beside the entries after step 2
    "fr": ("5.2 Deuxième pas (SGD, taux d'apprentissage 0,5)", "coefficient  nouveau gradient  après le pas 2"),
    "en": ("5.2 Second step (SGD, learning rate 0.5)", "entry        new gradient      after step 2  "),
}


@pytest.mark.parametrize("lang", sorted(NEW_GRADIENT))
def test_a_new_gradient_column_is_a_gradient(tmp_path, lang):
    """'nouveau gradient', 'new gradient' over rows of entries: the gradient at the model step 1 made
    (sgd[1].grad_W), not the entry after a step, so its correct figures are matched, not false alarms (before: the
    word 'new' made the column the entries after step 1)."""
    from test_check_readings import SPEC, X, forward
    path = write_spec(tmp_path, SPEC)
    spec = oracle.loads_spec(SPEC)
    with mp.workdps(50):
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
        f = forward(E, W)
        half = mp.mpf("0.5")
        W1 = [[W[i][j] - half * f["gW"][i][j] for j in range(5)] for i in range(2)]
        E1 = [[E[r][i] - (half * f["gx"][i] if r == X else 0) for i in range(2)] for r in range(5)]
        g1 = forward(E1, W1)["gW"]
    heading, header = NEW_GRADIENT[lang]
    rows = [(1, 3, "пьёт"), (0, 2, "рыбу")]
    body = "".join(f"    W[{i + 1}, {t}]   {float(g1[i][j]):>14.4f}  {float(W1[i][j] - half * g1[i][j]):>14.4f}\n"
                   for i, j, t in rows)
    text = f"{heading}\n\n    {header}\n    -----------  ----------------  --------------\n{body}"
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    first = f"{float(g1[1][3]):.4f}"
    assert got[first][:2] == ("matched", "sgd[1].grad_W[1,пьёт]"), got
    assert not any(v[0] == "wrong" for v in got.values()), got
