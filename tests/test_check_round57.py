"""check's readings from round 57 of the held-out tutorials (issue 27), each on texts written here in more than one
notation, language or format:

* a text table whose cells are vectors (``t  q_t  k_t  v_t`` over ``2  (0,5129; 0,5898)  …``): the cell's row and
  column name the vector, and its places are the entries;
* a table of a mini-batch's gradients, each example's and their mean (``平均 ḡ``): the mean column is the batch's
  gradient, never the first AdamW step's m̂ that equals it, and a sum there is a slip;
* a bigram's training pairs as a mini-batch's examples ('pair 2', '쌍 3'), ``ℓ^{(b)}`` over their rows; a notebook's
  gradient check of the batch's mean loss J (loss_at, gradcheck of the batch), and an f-string's format
  specifications, which are no figures;
* the document's own letter for a parameter (U for W) in a table's rows, ``\tfrac``, and ∇_U J as the batch's mean
  gradient;
* a letter set equal to Eᵀ (``U = E^\top``): a tied model's output matrix, read transposed;
* an AdamW table whose rows carry a note of their value (``(was 0.2)``, ``(oli 0)``), a bias written with its
  number first (``b_{2,1}``), moments' columns, 'new value' and 'after the step' in more languages;
* attention shares given to keys after long words, then 'to itself';
* GPT-2's fused c_attn in a table captioned ∂L/∂W_attn[i, c] with columns ``c = 8 (v, head 1)``;
* rows named by the entry beside its module (``mlp.fc1  (W_1)_{2,1}``) under a caption on new values;
* an equation's operands are no row of cells (x's entries equal to W's), and our own document of a mini-batch with
  a gradient check checks clean;

and from round 58:

* a column named by a position (``x_2``) over rows of dimensions ('boyut'); columns after numbered steps
  ('2. adımdan sonra'); a row's module in brackets (``E[süt, 1] (embed_tokens)``);
* a block's braced weight ``∂L/∂W_{Q}^{(0)}[2, 0]`` read by its figures; a word's hyphen before a root (``ב-√2``);
* a check's quotient after its entry's name, with a remark in brackets after it;
* the distribution function after a token; a text table's header that defines its columns (``s(3,j) = …``).

Every expected value is computed here with mpmath or PyTorch float64 (``tests/torch_oracle.py``), or is the spec's
own decimal text, never by symgpt.
"""
from __future__ import annotations

import math
import re

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_layouts import r4
from test_check_round55 import _flip, _torch_run, f4
from test_check_vocabulary import _results

VECTOR_CELLS = {
    # a Russian plain text: positions from 1, (a; b) with decimal commas and Unicode minus
    "ru": ("Все позиции сразу:\n\n    t        q_t                  k_t                  v_t\n"
           "{rows}\n", "    {t}    ({q0}; {q1})    ({k0}; {k1})    ({v0}; {v1})", 1, True),
    # an English text: positions from 0, [a, b] with decimal points
    "en": ("All positions at once:\n\n  pos     q                   k                   v\n{rows}\n",
           "  {t}       [{q0}, {q1}]    [{k0}, {k1}]    [{v0}, {v1}]", 0, False),
    # a German text with rules between the cells
    "de": ("Alle Positionen:\n\n  Position | q_t              | k_t              | v_t\n{rows}\n",
           "  {t}        | ({q0}; {q1}) | ({k0}; {k1}) | ({v0}; {v1})", 1, True),
}


def _comma(s: str) -> str:
    return s.replace(".", ",").replace("-", "−")


@pytest.mark.parametrize("style", sorted(VECTOR_CELLS))
def test_a_text_table_of_vectors(tmp_path, style):
    """Each cell of a table laid out with spaces holds one position's q, k or v as a vector: its entries are
    Q[t, j], K[t, j], V[t, j] by the row's position and the place in the vector, so a wrong V[1, 0] is wrong as
    V[1,0] (before: the cells were anonymous vectors, named by value alone, and a vector with one wrong figure named
    nothing)."""
    toml = oracle.random_spec_toml(seed=57, V=6, d=2, heads=1, d_ff=4, layers=1, T=4)
    path, q, _ = _torch_run(toml, tmp_path)
    head, row, origin, comma = VECTOR_CELLS[style]
    fmt = _comma if comma else str
    wrong = f4(q["V"][1][0] + 0.3711)
    rows = []
    for t in range(4):
        cells = {f"{x}{j}": f4(q[x.upper()][t][j]) for x in "qkv" for j in range(2)}
        if t == 1:
            cells["v0"] = wrong
        rows.append(row.format(t=t + origin, **{k: fmt(v) for k, v in cells.items()}))
    text = head.format(rows="\n".join(rows))
    results = _results(tmp_path, text, path, "doc.txt")
    got = {(r.number.line, r.number.col): r for r in results}
    lines = text.splitlines()
    for t in range(4):
        line_no = next(k for k, x in enumerate(lines, 1) if x.lstrip().startswith(f"{t + origin} "))
        col = len(lines[line_no - 1]) - len(lines[line_no - 1].lstrip()) + 1
        for x in "qkv":
            for j in range(2):
                value = fmt(wrong if (t, x, j) == (1, "v", 0) else f4(q[x.upper()][t][j]))
                col = lines[line_no - 1].index(value, col)
                r = got[(line_no, col)]
                col += len(value)
                assert r.ref == f"{x.upper()}[{t},{j}]", (style, value, r.ref)
                assert r.verdict == ("wrong" if (t, x, j) == (1, "v", 0) else "matched"), (style, value, r.verdict)


def _per_example_gradients():
    """Each example's gradient of W in BATCH's mini-batch of three, by hand (mpmath)."""
    from test_check_authors import BATCH
    from test_check_readings import VOCAB, X, Y
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    out = []
    for x, y in ((X, Y), (VOCAB.index("рыбу"), VOCAB.index("спит")), (VOCAB.index("ест"), VOCAB.index("рыбу"))):
        z = [sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)]
        e = [mp.exp(v) for v in z]
        p = [v / sum(e) for v in e]
        out.append([[E[x][i] * (p[j] - (j == y)) for j in range(5)] for i in range(2)])
    return out


MEAN_COLUMN = {
    "en-md": ("| entry | example 1 g⁽¹⁾ | example 2 g⁽²⁾ | example 3 g⁽³⁾ | mean ḡ |\n|---|---|---|---|---|\n{rows}\n",
              "| W[{i}, {w}] | {a} | {b} | {c} | {m} |", "doc.md"),
    "ja-html": ("<table><caption>勾配（系列ごとと平均）</caption>\n<tr><th>パラメータ</th>"
                "<th>系列 1 g<sup>(1)</sup></th><th>系列 2 g<sup>(2)</sup></th><th>系列 3 g<sup>(3)</sup></th>"
                "<th>平均 ḡ</th></tr>\n{rows}\n</table>\n",
                "<tr><td>W[{i}, {w}]</td><td>{a}</td><td>{b}</td><td>{c}</td><td>{m}</td></tr>", "doc.html"),
}


@pytest.mark.parametrize("style", sorted(MEAN_COLUMN))
def test_a_column_of_the_batchs_mean_gradient(tmp_path, style):
    """A table of each example's gradient and their mean (ḡ), in a spec trained by AdamW: the mean column is the
    batch's gradient, sgd[0].grad_W, and an entry that sums instead of averaging is wrong as it (before: the
    column was read as the first AdamW step's m̂, which equals the gradient, so the slip was m̂'s)."""
    from test_check_authors import BATCH
    from test_check_readings import VOCAB
    with mp.workdps(50):
        g = _per_example_gradients()
    head, row, name = MEAN_COLUMN[style]
    entries = [(0, 3), (1, 2), (1, 4), (0, 0)]
    rows, summed = [], None
    for i, j in entries:
        a, b, c = (r4(g[k][i][j]) for k in range(3))
        mean = r4((g[0][i][j] + g[1][i][j] + g[2][i][j]) / 3)
        if (i, j) == (1, 2):
            mean = summed = r4(g[0][i][j] + g[1][i][j] + g[2][i][j])
        rows.append(row.format(i=i, w=VOCAB[j], a=a, b=b, c=c, m=mean))
    text = head.format(rows="\n".join(rows))
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, BATCH), name))
    assert got[summed][:2] == ("wrong", "sgd[0].grad_W[1,рыбу]"), got[summed]
    for i, j in entries:
        if (i, j) != (1, 2):
            mean = r4((g[0][i][j] + g[1][i][j] + g[2][i][j]) / 3)
            assert got[mean][:2] == ("matched", f"sgd[0].grad_W[{i},{VOCAB[j]}]"), (mean, got[mean])


# ---------------------------------------------------------------- a mini-batch's pairs, its gradient check


def _batch_spec(tmp_path):
    """BATCH (three pairs of a bigram) with a gradient check of W[1,2] at h = 1e-4."""
    from test_check_authors import BATCH
    assert "steps = 3\n" in BATCH
    return write_spec(tmp_path, BATCH.replace("steps = 3\n", 'steps = 3\ngradcheck = { h = 1e-4, params = '
                                                             '["W[1,2]"] }\n', 1))


def _batch_by_hand():
    """Each pair's loss, and the mean loss with W[1,2] moved by ±1e-4 and its quotient, by hand (mpmath, 50
    digits)."""
    from test_check_authors import BATCH
    from test_check_readings import VOCAB, X, Y
    spec = oracle.loads_spec(BATCH)
    pairs = ((X, Y), (VOCAB.index("рыбу"), VOCAB.index("спит")), (VOCAB.index("ест"), VOCAB.index("рыбу")))
    with mp.workdps(50):
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])

        def losses(w12):
            out = []
            for x, y in pairs:
                z = [sum(E[x][i] * (w12 if (i, j) == (1, 2) else W[i][j]) for i in range(2)) for j in range(5)]
                out.append(mp.log(sum(mp.exp(v) for v in z)) - z[y])
            return out
        h = mp.mpf(1) / 10 ** 4
        plus, minus = sum(losses(W[1][2] + h)) / 3, sum(losses(W[1][2] - h)) / 3
        return losses(W[1][2]), plus, minus, (plus - minus) / (2 * h)


PAIRS = {
    "en": ("| pair | input → target | $\\ell^{{(b)}}$ |\n|:---|:---|---:|\n| 1 | кот → пьёт | {l0} |\n"
           "| 2 | рыбу → спит | {l1} |\n| 3 | ест → рыбу | {l2} |\n\n"
           "## Gradient check (central differences, $h = 10^{{-4}}$)\n\n"
           "```python\nfor name, (i, j) in checks:\n"
           "    print(f\"{{name:<12}}{{Jp:15.10f}}{{Jm:15.10f}}{{num:12.6f}}\")\n```\n\n"
           "```\nentry                J(θ+h)         J(θ-h)     numeric\nW[1,рыбу]       {jp}   {jm}    {q}\n```\n"),
    "ko": ("| 쌍 | 입력 → 목표 | $\\ell^{{(b)}}$ |\n|:---|:---|---:|\n| 1 | кот → пьёт | {l0} |\n"
           "| 2 | рыбу → спит | {l1} |\n| 3 | ест → рыбу | {l2} |\n\n쌍 3: ест → рыбу   ℓ = {l2}\n\n"
           "## 기울기 검사 (중앙 차분, $h = 10^{{-4}}$)\n\n```python\n"
           "print(f\"{{'항목':<12}}{{'J(θ+h)':>15}}{{'J(θ-h)':>15}}{{'수치':>12}}\")\n"
           "print(f\"{{label:<12}}{{Jp:15.10f}}{{Jm:15.10f}}{{num:12.6f}}\")\n```\n\n"
           "```\n항목                   J(θ+h)         J(θ-h)          수치\n"
           "W[1,рыбу]       {jp}   {jm}    {q}\n```\n"),
}


@pytest.mark.parametrize("lang", sorted(PAIRS))
def test_a_batchs_pairs_and_its_gradient_check(tmp_path, lang):
    """A bigram trained on three pairs: a table whose rows are the pairs ('pair', '쌍') and whose column is ℓ^{(b)}
    gives each pair's loss, and a slipped one is wrong as that pair's; the gradient check a notebook prints moves
    the batch's mean loss J, so J(θ ± h) and the quotient are loss_at and gradcheck of W[1,2]; an f-string's format
    specifications (``{Jp:15.10f}``) are no figures (before: the pairs were no examples, the check's losses were
    read as the first pair's and called wrong, and 15.10 and 12.6 were figures)."""
    losses, plus, minus, q = _batch_by_hand()
    slip = r4(losses[2] + mp.mpf("0.0002"))
    text = PAIRS[lang].format(l0=r4(losses[0]), l1=r4(losses[1]), l2=slip, jp=mp.nstr(plus, 11, strip_zeros=False),
                              jm=mp.nstr(minus, 11, strip_zeros=False), q=mp.nstr(q, 6, strip_zeros=False))
    results = _results(tmp_path, text, _batch_spec(tmp_path))
    got = _verdicts(results)
    assert got[slip][:2] == ("wrong", "example[2].loss"), got[slip]
    assert got[r4(losses[1])][:2] == ("matched", "example[1].loss"), got[r4(losses[1])]
    assert got[mp.nstr(plus, 11, strip_zeros=False)][:2] == ("matched", "loss_at(W[1,2], 1e-4)")
    assert got[mp.nstr(minus, 11, strip_zeros=False)][:2] == ("matched", "loss_at(W[1,2], -1e-4)")
    assert got[mp.nstr(q, 6, strip_zeros=False)][:2] == ("matched", "gradcheck(W[1,2], 1e-4)")
    assert not [x for x in results if x.number.text in ("15.10", "12.6", "12", "15")]
    assert [(x.number.text, x.ref) for x in results if x.verdict == "wrong"] == [(slip, "example[2].loss")] * \
        (2 if lang == "ko" else 1)


LETTER = {
    "en": ("The output matrix is $U$ (the spec's W):\n\n$$U = \\begin{{bmatrix}} {u0} \\\\ {u1} \\end{{bmatrix}}$$\n\n"
           "## Backward: the batch's mean gradient\n\n"
           "$$(\\nabla_U J)_{{1,\\text{{рыбу}}}} = \\tfrac{{1}}{{3}}\\left[{a} + {b} + {c}\\right] = {summed}$$\n\n"
           "## One SGD step ($\\eta = 0.5$)\n\n| entry | $\\theta$ | $g = \\partial J / \\partial \\theta$ | "
           "$\\theta - 0.5\\,g$ |\n|:---|---:|---:|---:|\n{rows}\n"),
    "ko": ("출력 행렬은 $U$ 이다:\n\n$$U = \\begin{{bmatrix}} {u0} \\\\ {u1} \\end{{bmatrix}}$$\n\n"
           "## 역전파: 배치 평균 기울기\n\n"
           "$$(\\nabla_U J)_{{1,\\text{{рыбу}}}} = \\tfrac{{1}}{{3}}\\left[{a} + {b} + {c}\\right] = {summed}$$\n\n"
           "## SGD 한 걸음 (학습률 $\\eta = 0.5$)\n\n| 항목 | $\\theta$ | $g = \\partial J / \\partial \\theta$ | "
           "$\\theta - 0.5\\,g$ |\n|:---|---:|---:|---:|\n{rows}\n"),
}


@pytest.mark.parametrize("lang", sorted(LETTER))
def test_the_documents_own_letter_for_a_parameter(tmp_path, lang):
    """U, printed with W's values, is the document's letter for W: a table's rows U_{0,пьёт} under columns θ, g and
    θ − ηg are W's entry, the batch's mean gradient and the entry after the step, so a step taken with the wrong
    sign is wrong as sgd[1].W; (∇_U J)_{1,рыбу} = \\tfrac{1}{3}[…] that forgets the 1/3 is wrong as the batch's mean
    gradient (before: U named no parameter in the table's rows, \\tfrac was read as a name, and ∇_U J was the
    first pair's gradient)."""
    from test_check_readings import VOCAB
    spec = oracle.loads_spec(__import__("test_check_authors").BATCH)
    W = [[f"{float(x):g}" for x in row] for row in spec["weights"]["W"]]      # (the spec's own decimal text)
    with mp.workdps(50):
        g = _per_example_gradients()
        mean = [[(g[0][i][j] + g[1][i][j] + g[2][i][j]) / 3 for j in range(5)] for i in range(2)]
        new = [[mp.mpf(str(W[i][j])) - mp.mpf("0.5") * mean[i][j] for j in range(5)] for i in range(2)]
    summed = r4(g[0][1][2] + g[1][1][2] + g[2][1][2])
    wrong_sign = r4(mp.mpf(str(W[0][3])) + mp.mpf("0.5") * mean[0][3])
    rows = [f"| $U_{{0,\\text{{{VOCAB[3]}}}}}$ | {W[0][3]} | {r4(mean[0][3])} | {wrong_sign} |",
            f"| $U_{{1,\\text{{{VOCAB[4]}}}}}$ | {W[1][4]} | {r4(mean[1][4])} | {r4(new[1][4])} |"]
    text = LETTER[lang].format(u0=" & ".join(W[0]), u1=" & ".join(W[1]),
                               a=r4(g[0][1][2]), b=r4(g[1][1][2]), c=r4(g[2][1][2]), summed=summed,
                               rows="\n".join(rows))
    got = _verdicts(_results(tmp_path, text, _batch_spec(tmp_path)))
    assert got[wrong_sign][:2] == ("wrong", f"sgd[1].W[0,{VOCAB[3]}]"), got[wrong_sign]
    assert got[summed][:2] == ("wrong", f"sgd[0].grad_W[1,{VOCAB[2]}]"), got[summed]
    assert got[r4(mean[1][4])][:2] == ("matched", f"sgd[0].grad_W[1,{VOCAB[4]}]"), got[r4(mean[1][4])]
    assert got[r4(new[1][4])][:2] == ("matched", f"sgd[1].W[1,{VOCAB[4]}]"), got[r4(new[1][4])]


# ---------------------------------------------------------------- the seed's block: Uᵀ, an AdamW table

SEED_BLOCK = 61
ADAMW = ("\n[training]\nlr = 0.1\nsteps = 1\n\n[training.adamw]\nlr = 0.01\nbeta1 = 0.9\nbeta2 = 0.999\neps = 1e-8\n"
         "weight_decay = 0.01\n")


def _seed_block(tmp_path):
    """A tied one-block model of the seed's shape (V 6, d 2, d_ff 4, T 3) trained by AdamW: (path, torch's
    quantities, torch's gradients, the spec as oracle reads it)."""
    toml = oracle.random_spec_toml(seed=SEED_BLOCK, V=6, d=2, heads=1, d_ff=4, layers=1, T=3) + ADAMW
    path, q, g = _torch_run(toml, tmp_path)
    return path, q, g, oracle.load_spec(str(path))


TRANSPOSED = {
    "en": ("The output matrix is $U = E^\\top$, and its entry $U_{{j,w}}$ has the gradient "
           "$\\partial L/\\partial U_{{j,w}} = h_j\\,(p_w - y_w)$:\n\n| $\\partial L/\\partial U$ | {heads} |\n"
           "|---|{rules}|\n| row $j = 1$ | {r0} |\n| row $j = 2$ | {r1} |\n"),
    "fi": ("Tulostematriisin $U = E^\\top$ alkion $U_{{j,w}}$ gradientti on $\\partial L/\\partial U_{{j,w}} = "
           "h_j\\,(p_w − y_w)$:\n\n| $\\partial L/\\partial U$ | {heads} |\n|---|{rules}|\n| rivi $j = 1$ | {r0} |\n"
           "| rivi $j = 2$ | {r1} |\n"),
}


@pytest.mark.parametrize("lang", sorted(TRANSPOSED))
def test_a_letter_set_equal_to_e_transposed(tmp_path, lang):
    """'U = E^⊤' names the tied model's output matrix U: a table of ∂L/∂U with rows j and a column per token is E's
    head part read transposed, and a sign-flipped entry is wrong as grad_E_head[w, j] (before: U named nothing,
    and the rows were matched by value to the logits' gradient or to p)."""
    path, q, _, spec = _seed_block(tmp_path)
    vocab = spec["model"]["vocab"]
    h, p = q["LN2"][-1], q["p"]
    y = vocab.index(spec["data"]["target"])
    grad = [[h[j] * (p[w] - (w == y)) for w in range(6)] for j in range(2)]    # ∂L/∂U[j, w] = h_j (p_w − y_w)
    flip = 1 if y != 1 else 2
    rows = [[f4(grad[j][w]) for w in range(6)] for j in range(2)]
    rows[1][flip] = _flip(rows[1][flip])
    text = TRANSPOSED[lang].format(heads=" | ".join(vocab), rules="---:|" * 6, r0=" | ".join(rows[0]),
                                   r1=" | ".join(rows[1]))
    results = _results(tmp_path, text, path)
    got = {(x.number.line, x.number.text): x for x in results}
    lines = text.splitlines()
    row_line = [k for k, x in enumerate(lines, 1) if x.startswith("| row") or x.startswith("| rivi")]
    for j in range(2):
        for w in range(6):
            x = got[(row_line[j], rows[j][w])]
            assert x.ref in (f"grad_E_head[{vocab[w]},{j}]", f"grad_E[{vocab[w]},{j}]"), (j, w, x.ref)
            assert x.verdict == ("wrong" if (j, w) == (1, flip) else "matched"), (j, w, x.verdict)
    assert got[(row_line[1], rows[1][flip])].ref == f"grad_E_head[{vocab[flip]},1]"


ADAM_TABLE = {
    "en": ("## One AdamW step\n\n| parameter | $m$ | $v$ | $\\hat m$ | $\\hat v$ | $\\Delta$ | new value |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n{rows}\n\n| | before the step | after the step |\n|---|---:|---:|\n"
           "| loss $L$ | {l0} | {l1} |\n", "was"),
    "fi": ("## Yksi AdamW-askel\n\n| parametri | $m$ | $v$ | $\\hat m$ | $\\hat v$ | $\\Delta$ | uusi arvo |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n{rows}\n\n| | ennen askelta | askeleen jälkeen |\n|---|---:|---:|\n"
           "| häviö $L$ | {l0} | {l1} |\n", "oli"),
}


def _fixed(x, places=6, comma=False) -> str:
    s = f"{float(x):.{places}f}"
    assert abs(abs(float(x)) * 10 ** places % 1 - 0.5) > 0.01
    return s.replace(".", ",").replace("-", "−") if comma else s


@pytest.mark.parametrize("lang", sorted(ADAM_TABLE))
def test_an_adamw_table_of_entries_with_notes(tmp_path, lang):
    """AdamW's first step as a table: rows of entries with a note of their value (``$e_{w,1}$ (was 0.2)``, ``$b_{2,1}$
    (oli 0)``: E's and b_2's entry 1), columns m, v, m̂, v̂, Δ and the new value ('uusi arvo'); the new value without
    the weight decay is wrong as adamw[1].E; a row 'loss $L$' under 'after the step' ('askeleen jälkeen') is the
    loss after the step (before: the notes hid the entries, b_{2,1} was no parameter, m and v̂ tied with other
    readings, and the new value and the loss after the step were read as nothing)."""
    import torch_oracle
    path, q, g, spec = _seed_block(tmp_path)
    template, was = ADAM_TABLE[lang]
    comma = lang == "fi"
    vocab = spec["model"]["vocab"]
    w = vocab.index(spec["data"]["target"])
    E0 = f"{float(spec['weights']['E'][w][0]):g}"
    b0 = f"{float(spec['layer'][0]['b_2'][0]):g}"
    rows, expected = [], {}
    for label, theta, grad, ref in ((f"$e_{{\\text{{{vocab[w]}}},1}}$", E0, g["E"][w][0], f"E[{vocab[w]},0]"),
                                    ("$b_{2,1}$", b0, g["b_2"][0], "b_2[0]")):
        with mp.workdps(50):
            gg, th = mp.mpf(float(grad)), mp.mpf(theta)
            m, v = gg / 10, gg ** 2 / 1000
            update = mp.mpf("0.01") * gg / (abs(gg) + mp.mpf("1e-8"))
            new = th - mp.mpf("0.01") * mp.mpf("0.01") * th - update
        cells = [_fixed(m, 7, comma), _fixed(v, 8, comma), _fixed(gg, 6, comma), _fixed(gg ** 2, 6, comma),
                 _fixed(update, 7, comma), _fixed(th - update if ref.startswith("E") else new, 6, comma)]
        expected[ref] = cells
        rows.append(f"| {label} ({was} {theta.replace('.', ',') if comma else theta}) | " + " | ".join(cells) + " |")
    records = torch_oracle.torch_train(spec, "transformer", "adamw", 2, 0.01, weight_decay=0.01)
    l0, l1 = _fixed(records[0]["loss"], 4, comma), _fixed(records[2]["loss"], 4, comma)
    text = template.format(rows="\n".join(rows), l0=l0, l1=l1)
    got = _verdicts(_results(tmp_path, text, path))
    e = f"E[{vocab[w]},0]"
    assert got[expected[e][5]][:2] == ("wrong", f"adamw[1].{e}"), got[expected[e][5]]
    assert got[expected[e][0]][:2] == ("matched", f"adamw[1].m[E,{w},0]"), got[expected[e][0]]
    assert got[expected[e][3]][:2] == ("matched", f"adamw[1].vhat[E,{w},0]"), got[expected[e][3]]
    assert got[expected["b_2[0]"][0]][:2] == ("matched", "adamw[1].m[b_2,0]"), got[expected["b_2[0]"][0]]
    assert got[expected["b_2[0]"][5]][:2] == ("matched", "adamw[1].b_2[0]"), got[expected["b_2[0]"][5]]
    assert got[l1][:2] == ("matched", "adamw[1].loss"), got[l1]


SHARES = {
    "fi": "Sana *{q}* jakaa huomionsa: {a} menee sanalle *{t0}*, {b} sanalle *{t1}* ja {c} sille itselleen.\n",
    "en": "The word *{q}* spreads its attention: {a} goes over to *{t0}*, {b} over to *{t1}* and {c} to itself.\n",
}


@pytest.mark.parametrize("lang", sorted(SHARES))
def test_attention_shares_to_keys_then_to_itself(tmp_path, lang):
    """'*c* spreads its attention: 34.1 % goes to the word *a*, 29.9 % to the word *b* and 36.0 % to itself': the
    last query's weights, the share 'to itself' its own A[2,2] (before: a key named after a long word, Finnish's
    'sanalle', was taken for the query, and 'itself' became A[1,1], a false alarm)."""
    path, q, _, spec = _seed_block(tmp_path)
    seq = spec["data"]["input"]
    A = q["A"]
    pct = [f"{100 * float(A[2][s]):.1f} %" for s in range(3)]
    for s in range(3):
        assert abs(1000 * float(A[2][s]) % 1 - 0.5) > 0.01
    text = SHARES[lang].format(q=seq[2], t0=seq[0], t1=seq[1], a=pct[0], b=pct[1], c=pct[2])
    if lang == "fi":
        text = text.replace(".", ",").replace(",\n", ".\n")
    got = {x.number.printed or x.number.text: x for x in _results(tmp_path, text, path)}
    for s in range(3):
        shown = pct[s].replace(".", ",") if lang == "fi" else pct[s]
        x = next(v for k, v in got.items() if k.replace(" ", "") == shown.replace(" ", ""))
        assert (x.verdict, x.ref) == ("matched", f"A[2,{s}]"), (s, x.verdict, x.ref)


# ---------------------------------------------------------------- GPT-2's fused c_attn in a table

FUSED = {
    "html": ("<table>\n<caption>∂L/∂W<sub>attn</sub>[i, c] (a few entries)</caption>\n<tr><th>input dim i</th>"
             "<th>c = 0 (q, head 1)</th><th>c = 1 (q, head 1)</th><th>c = 8 (v, head 1)</th></tr>\n"
             "<tr><td>0</td><td>{a}</td><td>{b}</td><td>{c}</td></tr>\n"
             "<tr><td>1</td><td>{d}</td><td>{e}</td><td>{f}</td></tr>\n</table>\n", "doc.html"),
    "md": ("Table: $\\partial L/\\partial W_{{attn}}[i, c]$ (einige Einträge)\n\n"
           "| Eingabe-Dimension i | c = 0 (q, Kopf 1) "
           "| c = 1 (q, Kopf 1) | c = 8 (v, Kopf 1) |\n|---|---:|---:|---:|\n| 0 | {a} | {b} | {c} |\n"
           "| 1 | {d} | {e} | {f} |\n", "doc.md"),
}


@pytest.mark.parametrize("fmt", sorted(FUSED))
def test_a_table_of_the_fused_attention_matrix(tmp_path, fmt):
    """A table under the caption ∂L/∂W_attn[i, c], its rows the input dimension i and its columns c = 0, 1, 8 with a
    note: each cell is the fused matrix's entry as x·W has it (c < 4: W_Q, c ≥ 8: W_V), and a transposed entry is
    wrong as its own cell (before: the columns' notes hid their index, and each column was read by its values, so
    the transposed figure matched grad_W_Q[1,0])."""
    toml = oracle.random_spec_toml(seed=23, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, W_O=True, bias=True, n_ctx=4,
                                   norm="pre", activation="gelu_tanh")
    toml = toml.replace('kind = "transformer"', 'kind = "transformer"\narch = "gpt2"', 1)
    path, _, g = _torch_run(toml, tmp_path)
    Q, V = g["W_Q"], g["W_V"]
    cells = dict(a=f4(Q[0][0]), b=f4(Q[1][0]), c=f4(V[0][0]), d=f4(Q[1][0]), e=f4(Q[1][1]), f=f4(V[1][0]))
    template, name = FUSED[fmt]
    text = template.format(**cells)
    results = _results(tmp_path, text, path, name)
    lines = text.splitlines()
    rows = [next(k for k, x in enumerate(lines, 1) if x.startswith((f"| {i} |", f"<tr><td>{i}</td>"))) for i in (0, 1)]
    got = [[(x.verdict, x.ref, x.cause) for x in sorted(results, key=lambda x: x.number.col)
            if x.number.line == line and x.number.kind == "decimal"] for line in rows]
    assert got[0] == [("matched", "grad_W_Q[0,0]", None), ("wrong", "grad_W_Q[0,1]", "transposed index"),
                      ("matched", "grad_W_V[0,0]", None)], got[0]
    assert got[1] == [("matched", "grad_W_Q[1,0]", None), ("matched", "grad_W_Q[1,1]", None),
                      ("matched", "grad_W_V[1,0]", None)], got[1]


MODULES = {
    "en": ("8. Gradients and one SGD step\n\n                 Table 6: Gradients and new values\n"
           "    module        entry           gradient     after the step\n{rows}\n",
           "    {m:<12}  {e:<14}  {g:>8}     {new:>9}"),
    "pt": ("8. Gradientes e um passo de SGD\n\n                 Tabela 6: Gradientes e valores novos\n"
           "    módulo        entrada         gradiente    depois do passo\n{rows}\n",
           "    {m:<12}  {e:<14}  {g:>8}     {new:>9}"),
}


@pytest.mark.parametrize("lang", sorted(MODULES))
def test_rows_named_by_an_entry_beside_its_module(tmp_path, lang):
    """A text table whose first column names the module (``mlp.fc1``) and whose second the entry (``(W_1)_{2,1}``):
    each row is that entry's, its gradient and its value after the step; a transposed gradient is wrong as its own
    entry, and the caption's 'new values' leaves a gradient the step's own, not the next step's (before: the rows
    were the modules', read by value, and the transposed figure was taken as the next step's gradient)."""
    path, q, g, spec = _seed_block(tmp_path)
    vocab = spec["model"]["vocab"]
    E, W1 = spec["weights"]["E"], spec["layer"][0]["W_1"]
    comma = lang == "pt"

    def show(x, places=4):
        s = f"{float(x):.{places}f}"
        assert abs(abs(float(x)) * 10 ** places % 1 - 0.5) > 0.01
        return s.replace(".", ",").replace("-", "−") if comma else s
    w = 1 if vocab[1] in spec["data"]["input"] else next(v for v in range(6) if vocab[v] in spec["data"]["input"])
    entries = [("embed", f"E_{{{vocab[w]},1}}", g["E"][w][0], E[w][0], f"E[{vocab[w]},0]"),
               ("mlp.fc1", "(W_1)_{1,3}", g["W_1"][0][2], W1[0][2], "W_1[0,2]"),
               ("mlp.fc1", "(W_1)_{2,1}", g["W_1"][0][1], W1[1][0], "W_1[1,0]")]     # W_1[0,1]'s gradient
    assert abs(float(g["W_1"][0][1]) - float(g["W_1"][1][0])) > 0.01
    rows = [MODULES[lang][1].format(m=m, e=e, g=show(grad), new=show(float(theta) - 0.1 * float(
        g["W_1"][1][0] if ref == "W_1[1,0]" else grad), 5)) for m, e, grad, theta, ref in entries]
    got = _verdicts(_results(tmp_path, MODULES[lang][0].format(rows="\n".join(rows)), path, "doc.txt"))
    assert got[show(g["W_1"][0][1])][:3] == ("wrong", "grad_W_1[1,0]", "transposed index"), got[show(g["W_1"][0][1])]
    assert got[show(g["E"][w][0])][:2] == ("matched", f"grad_E[{vocab[w]},0]"), got[show(g["E"][w][0])]
    assert got[show(g["W_1"][0][2])][:2] == ("matched", "grad_W_1[0,2]")
    after = show(float(W1[0][2]) - 0.1 * float(g["W_1"][0][2]), 5)
    assert got[after][:2] == ("matched", "sgd[1].W_1[0,2]"), got[after]


KO_SPEC = """
[model]
kind = "bigram"
vocab = ["나는", "밥을", "먹는다", "학교에", "간다"]
d = 2
[data]
input = ["나는"]
target = "밥을"
[weights]
E = [[0.4, -0.2], [-0.3, 0.5], [0.1, 0.3], [0.6, 0.2], [-0.2, -0.4]]
W = [[0.2, -0.1, 0.3, 0.5, -0.4], [-0.3, 0.4, 0.1, -0.2, 0.6]]
"""

PRODUCT = {
    "tex": ("$$\n\\begin{{aligned}}\nz_{{1}} &= {x0} \\times ({w0}) + ({x1}) \\times {w1} = {z} \\\\\n"
            "\\end{{aligned}}\n$$\n"),
    "plain": "z_1 = {x0} × ({w0}) + ({x1}) × {w1} = {z}\n",
}


@pytest.mark.parametrize("style", sorted(PRODUCT))
def test_an_equations_operands_are_no_row_of_cells(tmp_path, style):
    """z₁ = x₀ × W₀₁ + x₁ × W₁₁ where x's entries (0.4, −0.2) happen to equal W₁₁ and W₁₃: the operands are the
    equation's, not a row of W's cells whose middle one, −0.1, would be W₁₂ = 0.1 with its sign flipped (a false
    alarm on our own rendered document before)."""
    from fractions import Fraction as F
    x, W = (F("0.4"), F("-0.2")), ((F("0.2"), F("-0.1")), (F("-0.3"), F("0.4")))
    z = x[0] * W[0][1] + x[1] * W[1][1]
    text = PRODUCT[style].format(x0="0.4000", w0="-0.1", x1="-0.2000", w1="0.4", z=f"{float(z):.4f}")
    results = _results(tmp_path, text, write_spec(tmp_path, KO_SPEC))
    assert [(r.number.text, r.verdict) for r in results if r.verdict == "wrong"] == []
    got = _verdicts(results)
    assert got["-0.1"][:2] == ("matched", "W[0,밥을]"), got["-0.1"]
    assert got[f"{float(z):.4f}"][:2] == ("matched", "z[밥을]")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_our_document_of_a_batch_with_a_gradient_check_checks_clean(tmp_path, lang):
    """A user's bigram trained on three pairs, whose gradient check lists an entry no input reads (E[학교에,0] of the
    first pair): the document renders (it stopped before: the check's two losses were equal and their quotient's
    sign uncertain), says the check moves the batch's mean loss, and our own check finds no wrong figure in it."""
    from symgpt import render
    text = KO_SPEC + """
[training]
lr = 0.3
steps = 1
examples = [
  { input = ["밥을"], target = "먹는다" },
  { input = ["학교에"], target = "간다" },
]
gradcheck = { h = 1e-4, params = ["W[0,1]", "E[4,0]"] }
"""
    spec = write_spec(tmp_path, text)
    out = tmp_path / "out"
    assert render.main([str(spec), "--format", "md", "--lang", lang, "--out", str(out)]) == 0
    doc = next(out.glob(f"*.{lang}.md"))
    shown = doc.read_text(encoding="utf-8")
    assert ("mean loss" in shown) if lang == "en" else ("平均损失" in shown)
    results = check(doc, spec)
    assert [(r.number.line, r.number.text, r.ref) for r in results if r.verdict == "wrong"] == []


# ---------------------------------------------------------------- round 58

def _llama(tmp_path, layers=1, seed=58):
    toml = oracle.random_spec_toml(seed=seed, V=5, d=4, heads=1, d_ff=6, layers=layers, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True, tied=False)
    return _torch_run(toml, tmp_path)


DIMS = {
    "tr-html": ("<table>\n<caption>Katman 0, konum 2: input_layernorm</caption>\n<tr><th>boyut</th><th>x<sub>2</sub>"
                "</th><th>n<sub>2</sub> = RMSNorm(x<sub>2</sub>)</th></tr>\n{rows}\n</table>\n",
                "<tr><td>{j}</td><td>{x}</td><td>{n}</td></tr>", "doc.html", ",", "−"),
    "en-md": ("| dim | $x_2$ | $n_2 = \\mathrm{{RMSNorm}}(x_2)$ |\n|---|---:|---:|\n{rows}\n",
              "| {j} | {x} | {n} |", "doc.md", ".", "-"),
}


@pytest.mark.parametrize("style", sorted(DIMS))
def test_a_column_named_by_a_position_over_rows_of_dimensions(tmp_path, style):
    """A column ``x_2`` over rows of dimensions ('boyut', 'dim'): the position-2 vector's entries X[2, j], not X[j, 2];
    a slipped normalised entry is wrong as LN1[2, j] (before: x_2's entries were read as X[j, 2], false alarms of a
    transposed index)."""
    path, q, _ = _llama(tmp_path)
    template, row, name, point, minus = DIMS[style]
    show = lambda x: f4(x).replace(".", point).replace("-", minus)      # noqa: E731
    slip = f4(q["LN1"][2][1] + 0.25)
    rows = [row.format(j=j, x=show(q["X"][2][j]), n=show(q["LN1"][2][j]) if j != 1 else
                       slip.replace(".", point).replace("-", minus)) for j in range(4)]
    results = _results(tmp_path, template.format(rows="\n".join(rows)), path, name)
    wrong = [(r.ref, r.number.text) for r in results if r.verdict == "wrong"]
    assert [w[0] for w in wrong] == ["LN1[2,1]"], wrong
    got = {r.ref for r in results if r.verdict == "matched"}
    assert {f"X[2,{j}]" for j in range(4)} <= got and {f"LN1[2,{j}]" for j in (0, 2, 3)} <= got, got


STEPS_AFTER = {
    "tr": ("<p>Öğrenme oranı η = 0,1; ilk adımdan sonra kayıp {l0} değerinden {l2} değerine iniyor.</p>\n<table>\n"
           "<caption>Seçilmiş ağırlıkların yolculuğu</caption>\n<tr><th>parametre</th><th>1. adımdan sonra"
           "</th><th>2. adımdan sonra</th></tr>\n<tr><td>E[{w}, 1] (embed_tokens)</td><td>{a}</td><td>{b}</td></tr>\n"
           "</table>\n", "doc.html", ",", "−"),
    "de": ("Lernrate η = 0,1; der Verlust fällt im ersten Schritt von {l0} auf {l2}.\n\n"
           "| Parameter | nach dem 1. Schritt | nach dem 2. Schritt |\n|---|---:|---:|\n"
           "| E[{w}, 1] (embed_tokens) | {a} | {b} |\n", "doc.md", ",", "−"),
}


@pytest.mark.parametrize("lang", sorted(STEPS_AFTER))
def test_columns_after_numbered_steps(tmp_path, lang):
    """Columns '1. adımdan sonra', '2. adımdan sonra' ('nach dem 2. Schritt'): the states after steps 1 and 2, an
    ordinal's number before the step's word; a row 'E[w, 1] (embed_tokens)' is that entry, its module aside. A wrong
    value after step 2 is wrong as sgd[2].E (before: both columns were step 1's, and the row named nothing)."""
    import torch_oracle
    toml = oracle.random_spec_toml(seed=58, V=5, d=4, heads=1, d_ff=6, layers=1, T=3) + \
        "\n[training]\nlr = 0.1\nsteps = 2\n"
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    records = torch_oracle.torch_train(spec, "transformer", "sgd", 2, 0.1)
    w = spec["data"]["input"][0]
    v = spec["model"]["vocab"].index(w)
    a, b = records[1]["params"]["E"][v][1], records[2]["params"]["E"][v][1]
    template, name, point, minus = STEPS_AFTER[lang]
    slip = f4(b + 0.0123)
    show = lambda x: x.replace(".", point).replace("-", minus)      # noqa: E731
    losses = [show(f"{records[k]['loss']:.3f}") for k in (0, 2)]
    got = _verdicts(_results(tmp_path, template.format(w=w, a=show(f4(a)), b=show(slip), l0=losses[0], l2=losses[1]),
                             path, name))
    assert got[show(slip)][:2] == ("wrong", f"sgd[2].E[{w},1]"), got[show(slip)]
    assert got[show(f4(a))][:2] == ("matched", f"sgd[1].E[{w},1]"), got[show(f4(a))]


def test_a_layers_braced_weight_and_its_superscript(tmp_path):
    """``∂L/∂W_{Q}^{(0)}[2, 0] = …`` in a two-block model: the braced subscript is W_Q's and the block's gradient is
    read by its figures (grad_l0.W_Q), so a sign flip is wrong as grad_l0.W_Q[2,0] (before: the braces hid the name,
    and ∂L/∂W_Q spelled no block's gradient)."""
    path, _, g = _llama(tmp_path, layers=2, seed=59)
    G = g["l0.W_Q"]
    text = ("## Katman 0'ın q_proj'u\n\n<ul>\n"
            f"<li>∂L/∂W<sub>Q</sub><sup>(0)</sup>[2, 0] = {_flip(f4(G[2][0]))}</li>\n"
            f"<li>∂L/∂W<sub>Q</sub><sup>(0)</sup>[2, 3] = {f4(G[2][3])}</li>\n</ul>\n")
    got = _verdicts(_results(tmp_path, "<html><body>" + text + "</body></html>", path, "doc.html"))
    assert got[_flip(f4(G[2][0]))][:2] == ("wrong", "grad_l0.W_Q[2,0]"), got[_flip(f4(G[2][0]))]
    assert got[f4(G[2][3])][:2] == ("matched", "grad_l0.W_Q[2,3]")


@pytest.mark.parametrize("prefix", ["ב-", "ל-"])
def test_a_words_hyphen_before_a_root_is_no_minus(tmp_path, prefix):
    """Hebrew writes 'by √2' as ``ב-√2``: the hyphen joins a prefix to the root, so ``ב-√2 ≈ 1.4142`` is √d, not
    −√d with its sign flipped (a false alarm before)."""
    path, q, _, spec = _seed_block(tmp_path)
    text = f"מחלקים את המכפלות הסקלריות {prefix}√2 ≈ 1.4142:\n"
    results = _results(tmp_path, text, path, "doc.txt")
    assert [r for r in results if r.verdict == "wrong"] == []
    assert _verdicts(results)["1.4142"][:2] == ("matched", "sqrt(d)")


CHECK_LINE = {
    "he": ("מזיזים פרמטר אחד ב-+h וב--h ומחשבים הפרש מרכזי:\n   g_num = (L(θ + h) − L(θ − h)) / (2h),    h = 1e-4\n\n"
           "   W2[2,1]:     ({p} − {m}) / 0.0002 = {q}     (backprop: {g})\n"),
    "en": ("A gradient check by central differences, h = 1e-4:\n\n"
           "   W_2[2,1]:  ({p} − {m}) / 0.0002 = {q}   (analytic: {g})\n"),
}


@pytest.mark.parametrize("lang", sorted(CHECK_LINE))
def test_a_check_quotient_after_its_entrys_name(tmp_path, lang):
    """``W2[1,1]: (L₊ − L₋) / 0.0002 = −0.10480   (backprop: −0.10482)``: the line names the entry, but the chain on
    its two moved losses is the check's quotient, here carried from the rounded losses (before: it was read as W_2's
    value, and the remark in brackets hid its chain)."""
    import torch

    import torch_oracle
    path, q, g, spec = _seed_block(tmp_path)
    text_spec = path.read_text(encoding="utf-8").replace("steps = 1\n", 'steps = 1\ngradcheck = { h = 1e-4, params = '
                                                                    '["W_2[1,0]"] }\n', 1)
    path.write_text(text_spec, encoding="utf-8")
    P = torch_oracle.transformer_params(spec)
    losses = []
    for s in (1, -1):                  # the two moved losses by PyTorch float64
        Q = {k: v.clone() for k, v in P.items()}
        Q["W_2"][1, 0] += s * 1e-4
        with torch.no_grad():
            losses.append(float(torch_oracle.transformer_loss(spec, Q)))
    Lp, Lm = f"{losses[0]:.8f}", f"{losses[1]:.8f}"
    carried = (mp.mpf(Lp) - mp.mpf(Lm)) / mp.mpf("0.0002")
    exact = (losses[0] - losses[1]) / 2e-4
    qs = f"{float(carried):.5f}"
    text = CHECK_LINE[lang].format(p=Lp, m=Lm, q=qs, g=f"{float(g['W_2'][1][0]):.5f}")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    verdict, ref, _ = got[qs]
    assert ref == "gradcheck(W_2[1,0], 1e-4)", got[qs]
    assert verdict == ("matched" if qs == f"{exact:.5f}" else "wrong"), (verdict, qs, exact)


CDF = {
    "pl": "Losowanie robimy metodą odwrotnej dystrybuanty; generator daje u ≈ 0,7362. Dystrybuanta w kolejności "
          "identyfikatorów słów wynosi {a} po „{t2}” i {b} po „{t3}”.\n",
    "en": "We draw by the inverse CDF. In the order of the token ids the CDF is {a} after “{t2}” and {b} after "
          "“{t3}”.\n",
}


@pytest.mark.parametrize("lang", sorted(CDF))
def test_the_distribution_function_after_a_token(tmp_path, lang):
    """'the CDF is 0,5892 after «kota» and 0,7285 after «psa»': running totals of p in the order of the ids, through
    each token, not that token's own share (before: a false alarm as p of the token after)."""
    from test_check_batches import _probs
    from test_check_readings import SPEC, VOCAB, X
    with mp.workdps(50):
        _, p = _probs(X)
    a, b = r4(sum(p[:3])), r4(sum(p[:4]))
    text = CDF[lang].format(a=a.replace(".", ",") if lang == "pl" else a, b=b.replace(".", ",") if lang == "pl" else b,
                            t2=VOCAB[2], t3=VOCAB[3])
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    assert [r for r in results if r.verdict == "wrong"] == []
    for total, upto in ((a, 3), (b, 4)):
        r = next(x for x in results if x.number.text.replace(",", ".") == total)
        assert r.verdict == "matched" and set(re.findall(r"p\[(\w+)\]", r.ref)) == set(VOCAB[:upto]), (r.verdict, r.ref)


HEADER_FORMULA = {
    "he": "      j     s(3,j) = q_3·k_j/√2     exp(s(3,j))     α(3,j)\n{rows}\n",
    "en": "      j     s(3,j) = q_3·k_j/√2     exp(s(3,j))     a(3,j)\n{rows}\n",
}


@pytest.mark.parametrize("lang", sorted(HEADER_FORMULA))
def test_a_text_tables_header_that_defines_its_columns(tmp_path, lang):
    """A header ``s(3,j) = q_3·k_j/√2   exp(s(3,j))   α(3,j)`` over rows j = 1, 2, 3: the third query's scores, their
    exponentials and weights, a fixed index before the rows' letter; a slipped score is wrong as S[2, j] (before:
    the '=' and the digits in the header made it no header, and the slip was unmatched)."""
    path, q, _, spec = _seed_block(tmp_path)
    S, A = q["S"], q["A"]
    slip = f4(S[2][1] + 0.0003)
    rows = [f"      {j + 1}          {f4(S[2][j]) if j != 1 else slip}              {f4(math.exp(S[2][j]))}"
            f"         {f4(A[2][j])}" for j in range(3)]
    got = _verdicts(_results(tmp_path, HEADER_FORMULA[lang].format(rows="\n".join(rows)), path, "doc.txt"))
    assert got[slip][:2] == ("wrong", "S[2,1]"), got[slip]
    assert got[f4(A[2][2])][:2] == ("matched", "A[2,2]")
