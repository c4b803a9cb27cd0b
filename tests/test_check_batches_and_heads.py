"""check and the names behind it: readings round 47 of the held-out tutorials showed (issue 27), each on a text
written here in more than one notation or language:

* a mini-batch's other examples have names of their own, ``example[b].p[v]``, ``example[b].loss`` (0 is the spec's
  ``[data]``), and a text's rows, paragraphs and indices for them (``z_{2,chase}``, ``ŷ^{(3)}``, a row of ``P`` per
  example, 'Example 2: …') are read as them: matched where right, wrong against them where not;
* a moment or a gradient written with its parameter (``m_W``, ``v̂_W``, ``dW``) under a lead-in naming one entry,
  in a section of step 2, is that entry's AdamW state at step 2, its gradient the one step 2 takes;
* a step of an untied head alone (``head_step``: W_out − η·∂L/∂W_out, the rest frozen) and the pass after it;
* heads counted from 1 when the only superscript 0 is a vector's ``h^{(0)}``; ∂L/∂o^{(2)} is the second head's
  columns of the concatenated heads' gradient;
* 'wymiar 3', 'dimensión 2' are a table's axes; 矩阵 (a matrix) is no talk of AdamW's moments.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import copy
import re
import shutil
import subprocess
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt import load
from symgpt.check import check
from symgpt.engine.names import RefError

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_vocabulary import _results

VOCAB = ["dogs", "chase", "cats", "eat", "fish"]
BATCH = """title = "A bigram on a mini-batch of three"
[model]
kind = "bigram"
vocab = ["dogs", "chase", "cats", "eat", "fish"]
d = 3
[data]
input = ["dogs"]
target = "chase"
[weights]
E = [[0.25, -0.4, 0.1], [-0.3, 0.15, 0.45], [0.6, 0.05, -0.2], [-0.1, 0.35, -0.25], [0.2, -0.15, 0.3]]
W = [[0.12, -0.35, 0.4, 0.05, -0.2], [-0.25, 0.3, 0.1, -0.45, 0.22], [0.33, 0.08, -0.15, 0.2, -0.06]]
[training]
lr = 0.1
steps = 2
examples = [{ input = ["chase"], target = "cats" }, { input = ["cats"], target = "eat" }]
[training.adamw]
lr = 0.01
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
weight_decay = 0.01
"""
PAIRS = [("dogs", "chase"), ("chase", "cats"), ("cats", "eat")]


def r4(x, places=4) -> str:
    """x rounded half away from zero to ``places`` decimals."""
    return str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def swap(text: str) -> str:
    """The figure with its last two digits swapped, or its last digit moved by one where they are alike."""
    out = text[:-2] + text[-1] + text[-2]
    if out == text:
        out = text[:-1] + str((int(text[-1]) + 1) % 10)
    assert out != text
    return out


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The batch's spec path and each example's forward pass and gradients (mpmath, by the oracle)."""
    path = write_spec(tmp_path_factory.mktemp("batch"), BATCH)
    spec = oracle.load_spec(str(path))
    out = []
    for tok, tgt in PAIRS:
        one = copy.deepcopy(spec)
        one["data"] = {"input": [tok], "target": tgt}
        out.append(oracle.bigram_grads(one))
    return path, out


# ---------------------------------------------------------------- the names


def test_an_examples_quantities_by_name(batch):
    """example[b].p[v], .loss, .grad_W[i,v] are example b's; example[0] is the spec's own; sgd[0].loss their mean."""
    path, ex = batch
    d = load(path)
    for b in range(3):
        for v, t in enumerate(VOCAB):
            assert d.value(f"example[{b}].p[{t}]", digits=20) == mp.nstr(ex[b]["p"][v], 20, strip_zeros=False)
        assert d.value(f"example[{b}].loss", digits=20) == mp.nstr(ex[b]["loss"], 20, strip_zeros=False)
        assert d.value(f"example[{b}].grad_W[2,cats]", digits=15) == mp.nstr(ex[b]["grad_W"][2][2], 15,
                                                                             strip_zeros=False)
    with mp.workdps(60):
        mean = mp.fsum(e["loss"] for e in ex) / 3
    assert d.value("sgd[0].loss", digits=20) == mp.nstr(mean, 20, strip_zeros=False)
    assert d.value("example[0].z[eat]", digits=12) == d.value("z[eat]", digits=12)


@pytest.mark.parametrize("ref, says", [("example[3].loss", "example[0] ([data]) to example[2]"),
                                       ("example[1].sgd[1].loss", "reads a node of the model")])
def test_an_example_out_of_range_is_refused(batch, ref, says):
    with pytest.raises(RefError, match=re.escape(ref) + ".*" + re.escape(says)):
        load(batch[0]).value(ref, digits=5)


def test_a_spec_of_one_example_has_only_example_0():
    with pytest.raises(RefError, match=r"1 training example, example\[0\]"):
        load("bigram").value("example[1].loss", digits=5)


# ---------------------------------------------------------------- check on a mini-batch


def _rows(ex) -> str:
    rows = ",\n       ".join("[" + ", ".join(r4(p) for p in e["p"]) + "]" for e in ex)
    return f"array([{rows}])"


def test_a_row_of_probabilities_per_example(tmp_path, batch):
    """A NumPy print of P, one row per example: rows 2 and 3 are example[1]'s and example[2]'s, none wrong."""
    path, ex = batch
    text = ("# Forward pass on the batch\n\nThe probabilities, one row per example:\n\n```\n" + _rows(ex) +
            "\n```\n\nThe batch loss is the mean of the three losses.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert not [k for k, v in got.items() if v[0] == "wrong"]
    assert got[r4(ex[1]["p"][2])][:2] == ("matched", "example[1].p[cats]")
    assert got[r4(ex[2]["p"][3])][:2] == ("matched", "example[2].p[eat]")


@pytest.mark.parametrize("form", ["$$z_{{{k},\\mathrm{{{v}}}}} = {x} \\times {w0} + {x1} \\times {w1} + {x2} "
                                  "\\times {w2} = {z}$$",
                                  "z[{k}, {v}] = {x} * {w0} + {x1} * {w1} + {x2} * {w2} = {z}"])
def test_an_examples_number_as_the_first_index(tmp_path, batch, form):
    """z_{2,chase} = … is example 2's z[chase], example[1].z[chase] (examples counted from 1): right, matched;
    with two digits swapped, wrong as it."""
    path, ex = batch

    def line(z):            # example 2's input is chase, E[chase] = (−0.3, 0.15, 0.45); W's column dogs
        return form.format(k=2, v="dogs", x="-0.3", x1="0.15", x2="0.45", w0="0.12", w1="-0.25", w2="0.33", z=z)
    z = r4(ex[1]["z"][0])
    text = ("## Logits of each example\n\n" + line(z) + "\n\nand the first example's "
            f"z_{{1,chase}} = {r4(ex[0]['z'][1])}.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[z][:2] == ("matched", "example[1].z[dogs]")
    bad = swap(z)
    got = _verdicts(_results(tmp_path, text.replace(f"= {z}", f"= {bad}"), path))
    assert got[bad][:2] == ("wrong", "example[1].z[dogs]")


@pytest.mark.parametrize("lang, para", [("en", "For example 3 (cats → eat) the probability of eat is {}."),
                                        ("fr", "Pour l'exemple 3 (cats → eat), la probabilité de eat vaut {}.")])
def test_a_paragraph_on_another_example(tmp_path, batch, lang, para):
    """'For example 3 … p(eat) is 0.1938': example[2].p[eat], matched; with a slip, wrong as it."""
    path, ex = batch
    right = r4(ex[2]["p"][3])
    head = f"## Example 1\n\nThe probability of chase is {r4(ex[0]['p'][1])}.\n\n## Example 3\n\n"
    got = _verdicts(_results(tmp_path, head + para.format(right) + "\n", path))
    assert got[right][:2] == ("matched", "example[2].p[eat]")
    bad = swap(right)
    got = _verdicts(_results(tmp_path, head + para.format(bad) + "\n", path))
    assert got[bad][:2] == ("wrong", "example[2].p[eat]")


# ---------------------------------------------------------------- an entry's states named with their parameter


def test_moments_written_with_their_parameter_under_a_lead_in(tmp_path, batch):
    """'W[0,chase]: dW = …  m_W = …  v_W = …' in a section of step 2: the gradient step 2 takes (adamw[1]'s) and
    adamw[2]'s moments of that entry; in step 1, adamw[1]'s and the gradient at the start."""
    path, ex = batch
    d = load(path)       # (the moments themselves are checked against mpmath in test_training; here: the reading)
    with mp.workdps(60):
        g0 = mp.fsum(e["grad_W"][0][1] for e in ex) / 3
        m1, v1 = mp.mpf("0.1") * g0, mp.mpf("0.001") * g0 ** 2
    text = (f"## AdamW, step 1\n\nW[0,chase]: dW = {mp.nstr(g0, 5)}  m_W = {mp.nstr(m1, 5)}  "
            f"v_W = {mp.nstr(v1, 5)}\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[mp.nstr(m1, 5)][:2] == ("matched", "adamw[1].m[W,0,1]")
    assert got[mp.nstr(g0, 5)][:2] == ("matched", "sgd[0].grad_W[0,chase]")
    g1 = mp.mpf(d.value("adamw[1].grad_W[0,chase]", digits=30))    # the gradient at the first step's weights
    with mp.workdps(60):
        m2 = mp.mpf("0.9") * m1 + mp.mpf("0.1") * g1
    text2 = text + (f"\n## AdamW, step 2\n\nW[0,chase]: dW = {mp.nstr(g1, 5)}  m_W = {mp.nstr(m2, 5)}\n")
    got = _verdicts(_results(tmp_path, text2, path))
    assert got[mp.nstr(m2, 5)][:2] == ("matched", "adamw[2].m[W,0,1]")
    assert got[mp.nstr(g1, 5)][:2] == ("matched", "adamw[1].grad_W[0,chase]")
    bad = swap(mp.nstr(m2, 5))
    got = _verdicts(_results(tmp_path, text2.replace(f"m_W = {mp.nstr(m2, 5)}", f"m_W = {bad}"), path))
    assert got[bad][:2] == ("wrong", "adamw[2].m[W,0,1]")


# ---------------------------------------------------------------- a step of an untied head alone


@pytest.fixture(scope="module")
def untied(tmp_path_factory):
    """A post-LN block with an untied W_out, lr 0.5: path, spec, the oracle's pass with gradients and the pass after
    W_out alone steps (W_out − η·∂L/∂W_out: logits' = h_final·W_out', p', loss')."""
    toml = oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, tied=False) + \
        "\n[training]\nlr = 0.5\n"
    path = write_spec(tmp_path_factory.mktemp("untied"), toml)
    spec = oracle.load_spec(str(path))
    g = oracle.transformer_grads(spec)
    with mp.workdps(60):
        W = oracle.mat(spec["weights"]["W_out"])
        new = [[w - mp.mpf("0.5") * gw for w, gw in zip(row, grow)] for row, grow in zip(W, g["grad_W_out"])]
        logits = oracle.vecmat(g["h_final"], new)
        p = oracle.softmax(logits)
        t = oracle.token_ids(spec, [spec["data"]["target"]])[0]
        after = dict(W_out=new, logits=logits, p=p, loss=-mp.log(p[t]), t=t)
    return path, spec, g, after


def test_an_untied_head_alone_steps(untied):
    """head_step.W_out[j,v], .logits[v], .p[v] and .loss of an untied head: W_out alone moved, the rest frozen."""
    path, spec, _, after = untied
    d = load(path)
    t = spec["data"]["target"]
    for v, tok in enumerate(spec["model"]["vocab"]):
        assert d.value(f"head_step.logits[{tok}]", digits=20) == mp.nstr(after["logits"][v], 20, strip_zeros=False)
        assert d.value(f"head_step.p[{tok}]", digits=20) == mp.nstr(after["p"][v], 20, strip_zeros=False)
    assert d.value(f"head_step.W_out[1,{t}]", digits=20) == mp.nstr(after["W_out"][1][after["t"]], 20,
                                                                   strip_zeros=False)
    assert d.value("head_step.loss", digits=20) == mp.nstr(after["loss"], 20, strip_zeros=False)


@pytest.mark.parametrize("text", [
    "## One SGD step on W_out only\n\nOnly W_out is updated (lr 0.5); every other weight stays frozen.\n\n"
    "Now “{t}” gets {p}% of the probability, and the new loss is {loss}.\n",
    "## Un paso de SGD solo sobre W_out\n\nSolo actualizamos W_out; el resto de pesos se quedan congelados.\n\n"
    "Ahora «{t}» se lleva un {p}% de la probabilidad. La pérdida nueva: L' = {loss}\n"])
def test_a_step_of_the_head_alone_in_a_text(tmp_path, untied, text):
    """The share and the loss after a step of W_out alone are head_step's: matched; a slipped loss is wrong as it."""
    path, spec, _, after = untied
    t = spec["data"]["target"]
    p, loss = str(Decimal(r4(after["p"][after["t"]] * 100, 1))), r4(after["loss"], 3)
    doc = text.format(t=t, p=p, loss=loss)
    got = _verdicts(_results(tmp_path, doc, path))
    assert got[loss][:2] == ("matched", "head_step.loss")
    assert got[p + "%"][:2] == ("matched", f"head_step.p[{t}]")
    bad = swap(loss)
    got = _verdicts(_results(tmp_path, doc.replace(loss, bad), path))
    assert got[bad][:2] == ("wrong", "head_step.loss")


# ---------------------------------------------------------------- a PDF's display fractions


@pytest.fixture(scope="module")
def block(tmp_path_factory):
    """A post-LN block at d = 2 (W_V is 2 × 2) whose ∂L/∂W_V has four different entries: path, oracle's grads.
    (ε = 0.1: at d = 2 a norm with a small ε passes almost no gradient.)"""
    for seed in range(40):
        toml = oracle.random_spec_toml(seed=seed, V=5, d=2, heads=1, d_ff=4, layers=1, T=3).replace(
            "ln_eps = 1e-5", "ln_eps = 0.1")
        g = oracle.transformer_grads(oracle.loads_spec(toml))
        gv = [r4(x, 6) for row in g["grad_W_V"] for x in row]
        if len(set(gv)) == 4 and "0.000000" not in gv and "-0.000000" not in gv:
            return write_spec(tmp_path_factory.mktemp("block"), toml), g
    raise AssertionError("no seed below 40 gives four different entries")


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="needs xelatex")
def test_display_fractions_in_a_pdf(tmp_path, batch, block):
    """TeX sets ∂L/∂z as a fraction over three lines and ∂L/∂W_V = (2 × 2) with the fraction's parts on the
    matrix's rows: both read as written, a transposed entry of the matrix wrong as its own place's entry."""
    path, ex = batch
    dz = r4(ex[0]["grad_z"][1])
    bpath, g = block
    G = [[r4(x, 6) for x in row] for row in g["grad_W_V"]]
    tex = ("\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n"
           "The gradient at the target's logit:\n"
           f"\\[ \\frac{{\\partial L}}{{\\partial z_{{\\mathrm{{chase}}}}}} = p_{{\\mathrm{{chase}}}} - 1 = {dz} \\]\n"
           "Then the value matrix:\n"
           f"\\[ \\frac{{\\partial L}}{{\\partial W_{{V}}}} = \\begin{{pmatrix}} {G[0][0]} & {G[1][0]} \\\\ "
           f"{G[1][0]} & {G[1][1]} \\end{{pmatrix}} . \\]\n\\end{{document}}\n")
    (tmp_path / "doc.tex").write_text(tex, encoding="utf-8")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "doc.tex"], cwd=tmp_path, capture_output=True,
                   check=True, timeout=120)
    def got(spec):              # (as the PDF sets them: a Unicode minus)
        return {k.replace("−", "-"): v for k, v in _verdicts(check(tmp_path / "doc.pdf", spec)).items()}
    assert got(path)[dz][:2] == ("matched", "grad_z[chase]")
    block = got(bpath)
    assert block[G[1][1]][:2] == ("matched", "grad_W_V[1,1]") and block[G[0][0]][:2] == ("matched", "grad_W_V[0,0]")
    wrongs = [r for r in check(tmp_path / "doc.pdf", bpath) if r.verdict == "wrong"]
    assert [(r.number.text.replace("−", "-"), r.ref) for r in wrongs] == [(G[1][0], "grad_W_V[0,1]")]


# ---------------------------------------------------------------- heads counted from 1


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    """A post-LN block with 2 heads and W_O at d = 4, T = 3: path, the oracle's forward pass and ∂L/∂Attn_heads
    (the heads' outputs side by side, before W_O), by the oracle's own steps back to it."""
    toml = oracle.random_spec_toml(seed=5, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, W_O=True)
    path = write_spec(tmp_path_factory.mktemp("heads"), toml)
    spec = oracle.load_spec(str(path))
    with mp.workdps(60):
        f, (E, W_out, Ps) = oracle._transformer(spec, None)
        P, b = Ps[0], f["blocks"][0]
        ids = oracle.token_ids(spec, spec["data"]["input"])
        eps = oracle.num(spec["model"]["ln_eps"])
        gY, _ = oracle.head_backward(b["LN2"], oracle.loss_terms(spec, ids), f["p_at"], E, W_out)
        gH2 = oracle.layer_norm_backward(gY, P["gamma2"], b["H2"], b["mu2"], b["var2"], eps)[0]
        gZ = [[g * oracle.ACTIVATIONS["relu"][1](z) for g, z in zip(gr, zr)]
              for gr, zr in zip(oracle.matmul_t(gH2, P["W_2"]), b["Z"])]
        gLN1 = oracle.add(gH2, oracle.matmul_t(gZ, P["W_1"]))
        gH1 = oracle.layer_norm_backward(gLN1, P["gamma1"], b["H1"], b["mu1"], b["var1"], eps)[0]
        gO = oracle.matmul_t(gH1, P["W_O"])
    return path, f, gO


def _heads_text(f, gO, s33=None, g1=None) -> str:
    h = ", ".join(r4(x) for x in f["H0"][2])
    s = [r4(f["S"][0][2][k]) for k in range(3)]
    g = [r4(x) for x in gO[2]]
    return ("## Attention, head by head\n\n"
            f"The stream before the block at position 3 is $h^{{(0)}}_3 = ({h})$. For the first head:\n\n"
            f"$s_{{31}}^{{(1)}} = {s[0]}$, $s_{{32}}^{{(1)}} = {s[1]}$, $s_{{33}}^{{(1)}} = {s33 or s[2]}$\n\n"
            "Back through $W_O$, split by head:\n\n"
            f"- $\\partial L/\\partial o_3^{{(1)}} = ({g[0]};\\ {g1 or g[1]})$\n"
            f"- $\\partial L/\\partial o_3^{{(2)}} = ({g[2]};\\ {g[3]})$\n")


def test_heads_counted_from_one_beside_a_vectors_zero(tmp_path, two_heads):
    """s_{31}^{(1)} is the first head's S[0,2,0] though h^{(0)} = (…) shows a 0; ∂L/∂o_3^{(2)} is the second head's
    columns of ∂L/∂Attn_heads; a slip and a turned sign are wrong as their own entries."""
    path, f, gO = two_heads
    got = _verdicts(_results(tmp_path, _heads_text(f, gO), path))
    assert got[r4(f["S"][0][2][1])][:2] == ("matched", "S[0,2,1]")
    assert got[r4(gO[2][3])][:2] == ("matched", "grad_Attn_heads[2,3]")
    assert got[r4(gO[2][0])][:2] == ("matched", "grad_Attn_heads[2,0]")
    slip, turned = swap(r4(f["S"][0][2][2])), r4(-gO[2][1])
    got = _verdicts(_results(tmp_path, _heads_text(f, gO, s33=slip, g1=turned), path))
    assert got[slip][:2] == ("wrong", "S[0,2,2]")
    assert got[turned][:3] == ("wrong", "grad_Attn_heads[2,1]", "sign flip")


# ---------------------------------------------------------------- words of a table's axes and of a topic


@pytest.mark.parametrize("row, col", [("pozycja {}", "wymiar {}"), ("posición {}", "dimensión {}"),
                                      ("posizione {}", "dimensione {}")])
def test_a_tables_axes_in_more_languages(tmp_path, two_heads, row, col):
    """| x̂ | wymiar 1 | … | over rows 'pozycja t': LN1[t−1, j−1]; a transposed cell wrong as its own place's."""
    path, f, _ = two_heads
    L = f["LN1"]

    def table(cell):
        head = "| $\\hat{x}$ | " + " | ".join(col.format(j + 1) for j in range(4)) + " |\n|---|" + "---:|" * 4
        rows = [f"| {row.format(t + 1)} | " + " | ".join(cell(t, j) for j in range(4)) + " |" for t in range(3)]
        return "## Normalised\n\n" + head + "\n" + "\n".join(rows) + "\n"
    got = _verdicts(_results(tmp_path, table(lambda t, j: r4(L[t][j])), path))
    assert got[r4(L[0][2])][:2] == ("matched", "LN1[0,2]") and got[r4(L[2][1])][:2] == ("matched", "LN1[2,1]")
    flipped = table(lambda t, j: r4(L[j][t]) if (t, j) == (1, 2) else r4(L[t][j]))
    got = [(r.verdict, r.ref) for r in _results(tmp_path, flipped, path) if r.number.text == r4(L[2][1])]
    assert got == [("wrong", "LN1[1,2]"), ("matched", "LN1[2,1]")]


def test_a_matrix_in_chinese_is_no_talk_of_moments(tmp_path, batch):
    """'矩阵' (a matrix) says nothing of AdamW: a figure equal to an AdamW moment is not one where the text never
    speaks of AdamW."""
    path, ex = batch
    with mp.workdps(60):
        m = mp.fsum(e["grad_W"][2][4] for e in ex) / 30       # adamw[1].m[W,2,fish] = (1 − β₁)·g
    text = f"## 输出矩阵\n\n输出矩阵 W 的第 3 行与 x 相乘。这里的一个数是 {r4(m, 6)}。\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert not (got[r4(m, 6)][1] or "").startswith("adamw")
    got = _verdicts(_results(tmp_path, text.replace("输出矩阵 W", "AdamW 的一阶矩与矩阵 W"), path))
    assert got[r4(m, 6)][1] == "adamw[1].m[W,2,4]"


# ---------------------------------------------------------------- round 48: a row's sum, a row's edge, AdamW alone


@pytest.fixture(scope="module")
def one_head(tmp_path_factory):
    """A post-LN block with one head at d = 4, T = 3: path, spec, the oracle's forward pass."""
    toml = oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("one"), toml)
    spec = oracle.load_spec(str(path))
    return path, spec, oracle.transformer_forward(spec)


@pytest.mark.parametrize("line", ["und dem Nenner Σ_i exp(s_3i) = {}:",
                                  "with the denominator $\\sum_j \\exp(s_{{3j}}) = {}$,"])
def test_the_sum_of_a_rows_exps_of_scores_is_the_attentions_denominator(tmp_path, one_head, line):
    """Σ_i exp(s_3i) is the third query's softmax denominator, not the logits' sum_exp; slipped, wrong as it."""
    path, _, f = one_head
    with mp.workdps(60):
        den = mp.fsum(mp.exp(x) for x in f["S"][2])
    right = r4(den, 3)
    got = _verdicts(_results(tmp_path, "## Attention\n\n" + line.format(right) + "\n", path))
    assert got[right][:2] == ("matched", "A_den[2]")
    bad = swap(right)
    got = _verdicts(_results(tmp_path, "## Attention\n\n" + line.format(bad) + "\n", path))
    assert got[bad][:2] == ("wrong", "A_den[2]")


@pytest.mark.parametrize("sep", ["  ", " | "])
def test_a_rows_first_cell_under_a_header_of_tokens(tmp_path, one_head, sep):
    """A header of tokens over one row of logits, no row label: the first cell with two digits swapped is
    wrong as its own token's logit, its neighbours agreeing."""
    path, spec, f = one_head
    vocab = spec["model"]["vocab"]
    cells = [r4(x, 3) for x in f["logits"]]
    first = swap(cells[0])
    text = ("## Logits\n\nThe logits z_w = h · e_w of every word:\n\n  " + sep.join(f"{t:<8}" for t in vocab) +
            "\n  " + sep.join(f"{c:<8}" for c in [first] + cells[1:]) + "\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[first][:2] == ("wrong", f"logits[{vocab[0]}]")
    assert got[cells[2]][:2] == ("matched", f"logits[{vocab[2]}]")


def test_a_text_on_adamw_alone_has_no_sgd_states(tmp_path, batch):
    """'The loss after two updates' in a text that trains by AdamW and never by SGD: AdamW's state, never SGD's
    wrong; an AdamW step table's g_2, 更新量 and 新しい値 θ_2 under 'Step 2' are step 2's."""
    path, _ = batch
    d = load(path)
    v = {r: d.value(r, decimals=6) for r in ("adamw[1].grad_W[0,chase]", "adamw[2].update[W,0,1]",
                                             "adamw[2].W[0,chase]", "adamw[2].loss")}
    text = ("# Two AdamW steps\n\n## Step 2\n\n| parameter | $g_2$ | 更新量 | 新しい値 $\\theta_2$ |\n"
            "|---|---:|---:|---:|\n"
            f"| $W_{{0,\\text{{chase}}}}$ | {v['adamw[1].grad_W[0,chase]']} | {v['adamw[2].update[W,0,1]']} | "
            f"{v['adamw[2].W[0,chase]']} |\n\nAfter the two updates the loss is $L_2 = {v['adamw[2].loss'][:-2]}$.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[v["adamw[1].grad_W[0,chase]"]][:2] == ("matched", "adamw[1].grad_W[0,chase]")
    assert got[v["adamw[2].update[W,0,1]"]][:2] == ("matched", "adamw[2].update[W,0,1]")
    assert got[v["adamw[2].W[0,chase]"]][:2] == ("matched", "adamw[2].W[0,chase]")
    assert got[v["adamw[2].loss"][:-2]][0] != "wrong"
    assert not any(r and r.startswith("sgd[") for _, r, _ in got.values())


def test_a_consonant_with_a_hat_names_a_quantity(tmp_path, one_head):
    """'ĝ_j' (precomposed ĝ, as HTML sets it) defined as ∂L/∂ĥ_j: its entries read, a slip wrong as its entry."""
    path, spec, f = one_head
    with mp.workdps(60):            # tied head: ∂L/∂h_final = Σ_v E[v]·(p_v − y_v)
        E = oracle.mat(spec["weights"]["E"])
        t = oracle.token_ids(spec, [spec["data"]["target"]])[0]
        vals = [r4(mp.fsum(E[v][j] * (f["p"][v] - (v == t)) for v in range(len(E)))) for j in range(4)]
    bad = swap(vals[1])
    text = ("## Back to the head\n\nCall ∂L/∂ĥ_j = Σ_v E[v, j] δ_v by the name ĝ_j:\n\n" +
            "\n".join(f"- ĝ<sub>{j + 1}</sub> = {bad if j == 1 else x}" for j, x in enumerate(vals)) + "\n")
    html = "<html><body>" + text.replace("\n\n", "<p>").replace("- ", "<li>") + "</body></html>"
    got = _verdicts(_results(tmp_path, html, path, "doc.html"))
    assert got[bad][:2] == ("wrong", "grad_h_final[1]")


def test_losses_numbered_by_example_in_a_text_on_adamw(tmp_path, batch):
    """'L_1 = −ln p = …', 'L_2 = …' on a mini-batch trained by AdamW: the examples' losses (loss, example[1].loss),
    not the losses after steps 1 and 2; L_1 one unit off (a carried rounding) wrong as example 1's loss."""
    path, ex = batch
    p1, l1, l2 = r4(ex[0]["p"][1]), r4(ex[0]["loss"]), r4(ex[1]["loss"])
    with mp.workdps(60):
        carried = r4(-mp.log(mp.mpf(p1)))
    text = ("# One AdamW step on the batch\n\nFirst the loss of each example: "
            f"$L_1 = -\\ln {p1} = {{}}$ and $L_2 = {l2}$.\n")
    got = _verdicts(_results(tmp_path, text.format(l1), path))
    assert got[l1][:2] == ("matched", "loss") and got[l2][:2] == ("matched", "example[1].loss")
    assert carried != l1                 # (−ln of the rounded p is one unit off here)
    got = _verdicts(_results(tmp_path, text.format(carried), path))
    assert got[carried][:2] == ("wrong", "loss")
