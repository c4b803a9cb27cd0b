"""check's readings from round 53 of the held-out tutorials (issue 27), each on texts written here in more than one
notation or language:

* 'from A to B' in languages that write it without spaces (Thai), as prefixes (Hebrew) or after A (Korean, Hindi,
  Turkish, Finnish): B is A's quantity after the training step;
* a notebook cell that prints one tensor and then shows another as its last expression (``>>> logits_new``): the
  shown tensor is the expression's, not the print's;
* a symbol after a formula and words (``y = n + f, whose mean is μ = …``) names the figure, not the formula's head;
* ∂L/∂wte, the gradient under a checkpoint's name, of a word that is no input is E's gradient, not the head's part it
  equals; a second figure under it, the head's part of an input word, is E's gradient with a term left out;
* a product printed with its sign turned is the node it defines even where the first AdamW m̂ equals that node;
* a table's rows per head under columns of entries (``head 2 | α_{3,3}``), and a row's formula after its name
  (``score s_{3j} = q_3·k_j / √4``) over columns ``j = 1 (word)``;

and from round 54:

* a row 'after' a part of the model (``LN2 (nach Block 1)``, 'after the softmax') is no state after training;
* a keyword inside an optimizer's constructor (``AdamW(…, eps=1e-8)``) is that optimizer's setting;
* a word after a figure that has its own bracketed figure (``… hinter *trinkt* (0,3350)``) is not the figure's token;
* a bold caption that ends on a figure, or starts with 'table' in another language, is the table's caption;
* 'the entry $W_{2,glows}$ has the gradient …' is that entry's gradient.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import json
from decimal import Decimal

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_steps_and_shares import SPEC, VOCAB, X, Y, _wrong, forward, r, sgd_states, weights
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    """The five-word bigram of test_check_steps_and_shares (SGD at lr 0.5, AdamW, a temperature, top-k, top-p)."""
    return write_spec(tmp_path_factory.mktemp("bigram"), SPEC)


def _slip(s: str) -> str:
    """s with its last digit moved by one."""
    return s[:-1] + str((int(s[-1]) + 1) % 10)


FROM_TO = {"th": "## สรุป\n\nด้วยอัตราการเรียนรู้ 0.5 หลังก้าวเดียว loss ลดจาก {a} เหลือ {b}\n",
           "he": "## סיכום צעד SGD\n\nה־loss ירד מ-{a} ל-{b} אחרי הצעד.\n",
           "ko": "## SGD 한 스텝\n\n손실이 {a}에서 {b}로 줄었다.\n",
           "hi": "## SGD का एक कदम\n\nloss {a} से {b} तक घट गया।\n",
           "tr": "## Bir SGD adımı\n\nKayıp {a}'ten {b}'e düştü.\n",
           "fi": "## Yksi SGD-askel\n\nHäviö laski {a}:stä {b}:een.\n"}


@pytest.mark.parametrize("lang", sorted(FROM_TO))
def test_from_to_in_more_languages(tmp_path, spec_path, lang):
    """'the loss fell from L₀ to L₁' with L₁'s last digit moved: sgd[1].loss, a last-digit slip (it was unmatched:
    the words around the two figures were not read as 'from … to')."""
    with mp.workdps(50):
        before, after = r(forward(*weights())["loss"], 3), r(sgd_states(1)[0]["loss"], 3)   # (four digits: no
    #                                                                                        lone slip by value)
    slip = _slip(after)
    got = _verdicts(_results(tmp_path, "# Training\n\n" + FROM_TO[lang].format(a=before, b=slip), spec_path))
    assert got[before][:2] == ("matched", "loss")
    assert _wrong(got, slip) == ("sgd[1].loss", "last-digit slip")


def _notebook(cells: list) -> str:
    """An nbformat-4 notebook of (kind, source, outputs) cells."""
    out = []
    for kind, source, outputs in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=1, outputs=outputs)
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False)


@pytest.mark.parametrize("name", ["logits_new", "z_after"])
def test_a_cells_last_expression_after_a_print(tmp_path, spec_path, name):
    """A cell prints E_new[src], then shows ``logits_new`` as its last expression, one entry slipped: that entry is
    sgd[1].z's, a last-digit slip (the shown array had been read as E_new[src]'s, an entry that does not exist)."""
    lr = mp.mpf("0.5")
    with mp.workdps(50):
        E, W = weights()
        f = forward(E, W)
        row = [E[X][i] - lr * f["gE"][X][i] for i in range(3)]
        z = sgd_states(1)[0]["z"]
    shown = [r(v, 3) for v in z]
    slipped = _slip(shown[1])
    shown[1] = slipped
    cells = [("markdown", "## One SGD step (lr 0.5)\n", []),
             ("code", f"W_new = W - lr * dW\nE_new = E.copy()\nE_new[src] -= lr * dE\n{name} = E_new[src] @ W_new\n"
                      f"print(E_new[src])\n{name}",
              [{"output_type": "stream", "name": "stdout", "text": ["[" + "  ".join(r(v) for v in row) + "]\n"]},
               {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                "data": {"text/plain": ["array([" + ", ".join(shown) + "])"]}}])]
    got = _verdicts(_results(tmp_path, _notebook(cells), spec_path, "doc.ipynb"))
    assert _wrong(got, slipped) == ("sgd[1].z[rises]", "last-digit slip")
    assert got[shown[2]][:2] == ("matched", "sgd[1].z[sets]")


@pytest.fixture(scope="module")
def block(tmp_path_factory):
    """A one-block seed model (post-LN, ReLU, tied head), V = 6, T = 3, each input word once: the spec's path, the
    oracle's forward pass and E's gradient, with the head's part of it worked here, (p_w − y_w)·h_j, and an input
    word whose gradient at dimension j, summed from its two parts rounded, is a carried rounding: (w, j)."""
    for seed in range(200):
        toml = oracle.random_spec_toml(seed=seed, V=6, d=4, heads=1, d_ff=8, layers=1, T=3)
        spec = oracle.loads_spec(toml)
        ids = oracle.token_ids(spec, spec["data"]["input"])
        target = oracle.token_ids(spec, [spec["data"]["target"]])[0]
        if len(set(ids)) < 3 or target in ids:
            continue
        with mp.workdps(50):
            g = oracle.transformer_grads(spec)
            h = g["blocks"][-1]["LN2"][-1]
            head = [[(g["p"][w] - (w == target)) * h[j] for j in range(4)] for w in range(6)]
        carried = [(w, j) for w in ids[:-1] for j in range(4)
                   if Decimal(r(head[w][j])) + Decimal(r(g["grad_E"][w][j] - head[w][j])) !=
                   Decimal(r(g["grad_E"][w][j]))]
        if all(r(g["grad_E"][w][0]) != r(head[w][0]) for w in ids) and carried and \
                all(r(head[w][0]) != r(g["grad_E"][w][0] - head[w][0]) for w in ids):
            return write_spec(tmp_path_factory.mktemp("block"), toml), spec, ids, target, g, head, carried[0]
    raise AssertionError("no seed below 200 fits")


@pytest.mark.parametrize("text", [
    "## Second LayerNorm\n\nThe second residual y_3 = n_3 + f_3 has the mean μ = {mu} and the variance σ² = {var}.\n",
    "## Toinen LayerNorm\n\nToisen jäännösyhteyden y_3 = n_3 + f_3 keskiarvo on μ = {mu} ja varianssi σ² = {var}.\n"])
def test_a_symbol_after_a_formula_and_words(tmp_path, block, text):
    """'y_3 = n_3 + f_3 has the mean μ = …': μ names the figure (mu2 at position 3), not y_3, the formula's head (the
    figure had been read as the one-hot target's entry y[3]: a false alarm)."""
    path, spec, *_ = block
    with mp.workdps(50):
        b = oracle.transformer_forward(spec)
    mu, var = r(b["mu2"][2]), r(b["var2"][2])
    got = _verdicts(_results(tmp_path, "# Forward pass\n\n" + text.format(mu=mu, var=var), path))
    assert got[mu][:2] == ("matched", "mu2[2]")
    assert not [f for f, v in got.items() if v[0] == "wrong"]


@pytest.mark.parametrize("form", ["$\\frac{{\\partial L}}{{\\partial \\text{{wte}}[\\text{{{w}}}, {j}]}} = {x}$",
                                  "∂L/∂wte[{w}, {j}] = {x}"])
def test_the_gradient_of_wte_is_es_whole_gradient(tmp_path, block, form):
    """Under ∂L/∂wte (E by a checkpoint's name), an input word's entry summed from its two parts rounded and
    another's printed as its head's part alone: both E's gradient, wrong (a carried rounding; a term left out),
    where they had been read as the head's part, which the second agrees with."""
    path, spec, ids, target, g, head, (w2, j) = block
    vocab = spec["model"]["vocab"]
    w1 = ids[-1]
    a, b = r(head[w2][j]), r(g["grad_E"][w2][j] - head[w2][j])
    total = str(Decimal(a) + Decimal(b))
    alone = r(head[w1][0])
    text = ("# Backward\n\n## The embedding, tied to the head\n\n" +
            form.format(w=vocab[w2], j=j, x=f"{a} + ({b}) = {total}") + "\n\n" +
            form.format(w=vocab[w1], j=0, x=alone) + "\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[total][:3] == ("wrong", f"grad_E[{vocab[w2]},{j}]", "carried rounding")
    assert got[alone][:2] == ("wrong", f"grad_E[{vocab[w1]},0]")


@pytest.mark.parametrize("line", ["Its component 0: ∂L/∂e_{{{w},0}} = {x}.",
                                  "Pentru componenta 0, ∂L/∂e[{w}][0] = {x}."])
def test_one_figure_under_a_parameters_derivative(tmp_path, block, line):
    """∂L/∂e_{w,0} printed as the input path's part alone (the residual's gradient at w's position): E's gradient,
    wrong (it had been matched to the residual's gradient, which its one figure agrees with)."""
    path, spec, ids, target, g, head, _ = block
    vocab = spec["model"]["vocab"]
    w = ids[0]
    part = r(g["grad_E"][w][0] - head[w][0])
    got = _verdicts(_results(tmp_path, "# Backward\n\n## The embedding\n\n" + line.format(w=vocab[w], x=part) + "\n",
                             path))
    assert got[part][:2] == ("wrong", f"grad_E[{vocab[w]},0]")


@pytest.mark.parametrize("lead", ["g = x_0 · (p_glows − 1)", "Der Gradient ist x₀ · (p − 1)"])
def test_a_product_with_its_sign_turned_beside_an_equal_moment(tmp_path, spec_path, lead):
    """∂L/∂W[0,glows] = E[moon,0]·(p − 1) printed with its sign turned, in a text that speaks of AdamW (whose first
    m̂ equals the gradient): grad_W[0,glows], a sign flip (it was unmatched: two nodes, the gradient and m̂, at its
    value). The lead names no entry: the product's operands and its node say which."""
    with mp.workdps(50):
        E, W = weights()
        f = forward(E, W)
        x, delta = E[X][0], f["p"][Y] - 1
    turned = r(-x * delta)
    text = ("# Backward\n\nLater we take one AdamW step with these gradients.\n\n"
            f"{lead.format()} = {r(x, 1)} × ({r(delta)}) = {turned}\n")
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert got[turned][:3] == ("wrong", f"grad_W[0,{VOCAB[Y]}]", "sign flip")


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    toml = oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, W_O=True)
    with mp.workdps(50):
        b = oracle.transformer_forward(oracle.loads_spec(toml))["blocks"][0]
    return write_spec(tmp_path_factory.mktemp("heads"), toml), b["S"], b["A"]


@pytest.mark.parametrize("word", ["head", "Kopf", "capul"])
def test_rows_per_head_under_columns_of_entries(tmp_path, two_heads, word):
    """| {word} 2 | … | under columns s_{3,1} … α_{3,3}: head 2's entries; its α_{3,3} slipped: A[1,2,2], a
    last-digit slip (the row had named nothing: the figure was unmatched)."""
    path, S, A = two_heads
    rows = [[r(S[h][2][s]) for s in range(3)] + [r(A[h][2][s]) for s in range(3)] for h in range(2)]
    right = rows[1][5]
    rows[1][5] = _slip(right)
    text = ("# Attention of the last position\n\n| | $s_{3,1}$ | $s_{3,2}$ | $s_{3,3}$ | $α_{3,1}$ | $α_{3,2}$ | "
            "$α_{3,3}$ |\n|---|---|---|---|---|---|---|\n" +
            "".join(f"| {word} {h + 1} | " + " | ".join(rows[h]) + " |\n" for h in range(2)))
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, rows[1][5]) == ("A[1,2,2]", "last-digit slip")
    assert got[rows[1][3]][:2] == ("matched", "A[1,2,0]") and got[rows[0][1]][:2] == ("matched", "S[0,2,1]")


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_a_rows_formula_after_its_name(tmp_path, block, fmt):
    """A row 'score s_{3j} = q_3·k_j / √4' over columns 'j = 1 (word)', one score printed before its scaling: S[2,1],
    a forgotten 1/√d_k (it had been matched to q·k, the intermediate it equals)."""
    path, spec, *_ = block
    vocab, seq = spec["model"]["vocab"], spec["data"]["input"]
    with mp.workdps(50):
        S = oracle.transformer_forward(spec)["S"]
    cells = [r(S[2][s]) for s in range(3)]
    cells[1] = r(S[2][1] * 2)                         # (√d_k = 2: the dot product q_3·k_2)
    heads = [f"j = {s + 1} ({seq[s]})" for s in range(3)]
    if fmt == "html":
        text = ("<html><body><h2>Attention</h2><table><tr><th></th>" + "".join(f"<th>{h}</th>" for h in heads) +
                "</tr><tr><th>score s<sub>3j</sub> = q<sub>3</sub>·k<sub>j</sub> / √4</th>" +
                "".join(f"<td>{c}</td>" for c in cells) + "</tr></table></body></html>")
    else:
        text = ("## Attention\n\n| | " + " | ".join(heads) + " |\n|---|---|---|---|\n"
                "| score $s_{3j} = q_3 \\cdot k_j / \\sqrt{4}$ | " + " | ".join(cells) + " |\n")
    got = _verdicts(_results(tmp_path, text, path, f"doc.{fmt}"))
    assert got[cells[1]][:3] == ("wrong", "S[2,1]", "forgotten 1/√d_k")
    assert got[cells[0]][:2] == ("matched", "S[2,0]")
    assert vocab                                      # (the words the columns name are the spec's)


# ---------------------------------------------------------------- round 54


@pytest.fixture(scope="module")
def trained_block(tmp_path_factory):
    """The seed's block with an SGD step and AdamW settings in its spec: path and the oracle's forward pass."""
    toml = oracle.random_spec_toml(seed=2, V=5, d=4, heads=1, d_ff=8, layers=1, T=3) + (
        "\n[training]\nlr = 0.1\nsteps = 1\n[training.adamw]\nlr = 0.01\nbeta1 = 0.9\nbeta2 = 0.999\neps = 1e-8\n"
        "weight_decay = 0.01\n")
    with mp.workdps(50):
        f = oracle.transformer_forward(oracle.loads_spec(toml))
    return write_spec(tmp_path_factory.mktemp("trained"), toml), f


@pytest.mark.parametrize("row", ["`LN2` (nach Block 1)", "LN2, after the block", "LN2 (après la couche 1)"])
def test_a_row_after_a_part_of_the_model_is_no_training_state(tmp_path, trained_block, row):
    """A table row 'LN2 (nach Block 1)' over μ and σ²: the forward pass's statistics (the row had been read as the
    state after one SGD step, 'nach', and its figures called wrong)."""
    path, f = trained_block
    mu, var = r(f["mu2"][2]), r(f["var2"][2])
    text = ("# Forward pass\n\n## Norm statistics at position 3\n\n| norm | μ | σ² |\n|---|---|---|\n"
            f"| {row} | {mu} | {var} |\n\nAn SGD step with lr 0.1 comes later.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert not [k for k, v in got.items() if v[0] == "wrong"]
    assert got[mu][:2] == ("matched", "mu2[2]")


@pytest.mark.parametrize("call", ["opt = torch.optim.AdamW(model.parameters(), lr=0.01, betas=(0.9, 0.999), eps=1e-8, "
                                  "weight_decay=0.01)",
                                  "optimizer = optim.AdamW(params, lr=1e-2, eps=1e-8)"])
def test_a_keyword_of_an_optimizers_constructor(tmp_path, trained_block, call):
    """``AdamW(…, eps=1e-8)`` after ``nn.LayerNorm(4, eps=1e-5)``: AdamW's ε, not the norm's (eps had been learned
    as the norm's, and 1e-8 called wrong)."""
    path, _ = trained_block
    text = ("# Setup\n\n```python\nln_1 = nn.LayerNorm(4, eps=1e-5)\nln_2 = nn.LayerNorm(4, eps=1e-5)\n" + call +
            "\n```\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got["1e-8"][:2] == ("matched", "adamw.eps")
    assert got["1e-5"][:2] == ("matched", "ln_eps")


@pytest.mark.parametrize("line", ["*glows* gets {a}, just behind *sets* ({b}).",
                                  "*glows* ist mit {a} nur Zweiter hinter *sets* ({b})."])
def test_a_word_after_the_figure_with_its_own_bracketed_figure(tmp_path, spec_path, line):
    """'*glows* gets 0.1939, behind *sets* (0.2204)': the first figure is glows' share (the word after it, which has
    its own figure in brackets, had been taken for its token); glows' printed with a slip is p[glows], wrong."""
    with mp.workdps(50):
        p = forward(*weights())["p"]
    a, b = _slip(r(p[Y])), r(p[2])
    got = _verdicts(_results(tmp_path, "# Shares\n\n" + line.format(a=a, b=b) + "\n", spec_path))
    assert _wrong(got, a) == ("p[glows]", "last-digit slip")
    assert got[b][:2] == ("matched", "p[sets]")


@pytest.mark.parametrize("caption", ["**Shares at T = 1.5**", "**جدول 2: توزیع در دمای $T = 1.5$**",
                                     "**Taulukko 2. Jakauma lämpötilassa T = 1.5**"])
def test_a_bold_caption_in_any_language(tmp_path, spec_path, caption):
    """A bold caption that ends on its temperature or starts with 'table' in another language, over a table whose
    row 'sets' prints the row above's share: softmax_T(1.5, sets), wrong (the caption had been lost, and the copied
    share matched its twin)."""
    with mp.workdps(50):
        E, W = weights()
        z = forward(E, W)["z"]
        e = [mp.exp(v / mp.mpf("1.5")) for v in z]
        q = [v / mp.fsum(e) for v in e]
    rows = [r(100 * v, 2) + "%" for v in q]
    rows[2] = rows[1]
    assert r(100 * q[2], 2) != r(100 * q[1], 2)
    text = (f"# Sampling\n\n{caption}\n\n| word | p |\n|---|---:|\n" +
            "".join(f"| {w} | {x} |\n" for w, x in zip(VOCAB, rows)))
    results = _results(tmp_path, text, spec_path)
    wrong = [(x.number.line, x.ref) for x in results if x.verdict == "wrong"]
    assert wrong == [(text.split("\n").index(f"| sets | {rows[2]} |") + 1, "softmax_T(1.5, sets)")]


@pytest.mark.parametrize("line", ["Der Eintrag $W_{{2,glows}}$ (also `W[2, 4]`) hat den Gradienten {g}.",
                                  "The entry $W_{{2,glows}}$ has the gradient {g}."])
def test_an_entry_that_has_the_gradient(tmp_path, spec_path, line):
    """'The entry $W_{2,glows}$ has the gradient …' printed with its sign turned: grad_W[2,glows], a sign flip."""
    with mp.workdps(50):
        g = forward(*weights())["gW"][2][Y]
    turned = r(-g)
    got = _verdicts(_results(tmp_path, "# Backward\n\n" + line.format(g=turned) + "\n", spec_path))
    assert _wrong(got, turned) == (f"grad_W[2,{VOCAB[Y]}]", "sign flip")
