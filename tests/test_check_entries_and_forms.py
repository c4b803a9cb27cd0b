"""check's readings from round 49 of the held-out tutorials (issue 27), each on texts written here in more than one
notation or language:

* a sum of exps written before its '=' (``$\\sum_v e^{z_v}$ = …``, ``Σ_v exp(z_v) = …``) is the softmax's
  denominator; two neighbouring digits traded are the cause 'swapped digits';
* a product whose printed result has the sign turned (``0.2376 × 0.3800 = −0.0903``) is the node the product
  defines, wrong by a sign flip;
* an entry by its word and index ('its entry [1,2] is only …', 'el elemento (1, 2) de ∂L/∂W_Q es …', 'am Eintrag
  [1,2]') is that entry of the tensor the sentence names;
* a heading that states a sampling setting ('Top-p sampling (P = 0.85)') states the setting;
* a name after a lead-in and a colon ('Zeile 3: Z_{3,1} = …', 'для W_{2,молоко}: m_{2} = …') is the equation's head;
  a chain whose operands give the figure but whose formula leaves a term out is 'forgotten term', not carried
  rounding;
* a head written as the name's subscript in a one-layer model of two heads (``s₁(3,2)``);
* a norm's statistic under a heading that names the norm by its place ('the LayerNorm before the feed-forward',
  '前馈层之前的 LayerNorm'), the one entry its section's other figures name;
* 'after «пьёт»', 'the next token' put a word after another, not a state after a training step;
* a table row of one parameter entry's states (g, m₁, v₁, m̂₁, v̂₁): a cell no quantity rounds to is the state of
  that entry a cause explains (a sign turned);
* ``head_step.sum_exp``, the softmax's denominator after the head's own step.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_batches_and_heads import BATCH
from test_check_batches_and_heads import VOCAB as BATCH_VOCAB
from test_check_vocabulary import _results


def r(x, places=4, comma=False) -> str:
    """x rounded half away from zero to ``places`` decimals (with a decimal comma where asked)."""
    s = str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))
    return s.replace(".", ",") if comma else s


def _spec(factory, name, extra="", **kw):
    toml = oracle.random_spec_toml(V=5, **kw) + extra
    path = write_spec(factory.mktemp(name), toml)
    spec = oracle.load_spec(str(path))
    return path, spec, oracle.transformer_forward(spec), oracle.transformer_grads(spec)


@pytest.fixture(scope="module")
def narrow(tmp_path_factory):
    """One post-LN block at d = 2 (seed 3, T = 3), with a top-p setting."""
    return _spec(tmp_path_factory, "narrow", "\n[sampling]\ntop_p = 0.85\n", seed=3, d=2, heads=1, d_ff=4,
                 layers=1, T=3)


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """One post-LN block at d = 4 (seed 5, T = 3), whose gradients do not vanish."""
    return _spec(tmp_path_factory, "wide", seed=5, d=4, heads=1, d_ff=8, layers=1, T=3)


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    """One block of two heads at d = 4 (seed 11, T = 3)."""
    return _spec(tmp_path_factory, "heads", seed=11, d=4, heads=2, d_ff=8, layers=1, T=3)


def _wrong(got, figure):
    verdict, ref, cause = got[figure]
    assert verdict == "wrong", (figure, got[figure])
    return ref, cause


def _traded(s: str) -> str:
    """The figure with its last two different neighbouring digits traded."""
    digits = [i for i, ch in enumerate(s) if ch.isdigit()]
    for a, b in zip(digits[::-1][1:], digits[::-1]):
        if b == a + 1 and s[a] != s[b]:
            return s[:a] + s[b] + s[a] + s[b + 1:]
    raise AssertionError(s)


@pytest.mark.parametrize("form", ["The sum of the exponentials is $\\sum_v e^{{z_v}}$ = {s}, so p is {p}.",
                                  "Again the denominator: $\\sum_v e^{{z_v}} = {s}$, and $p_{{t1}} = {p}$.",
                                  "La suma de las exponenciales es Σ_v exp(z_v) = {s}, y p vale {p}."])
def test_a_sum_of_exps_before_its_equals_is_the_denominator(tmp_path, narrow, form):
    """Σ_v e^{z_v} = 6.0496 for 6.0946: sum_exp, its digits swapped (it was unmatched: 'exponentials' read)."""
    path, _, f, _ = narrow
    with mp.workdps(50):
        s = mp.fsum(mp.exp(z) for z in f["logits"])
    printed = _traded(r(s))
    text = "# Forward\n\n" + form.format(s=printed, p=r(f["p"][1])) + "\n"
    assert _wrong(_verdicts(_results(tmp_path, text, path)), printed) == ("sum_exp", "swapped digits")


@pytest.mark.parametrize("words", ["Backward: t3's row of E gets (p − y)·h from the head; its second component "
                                   "is {p} × {h} = {g}.",
                                   "Rückwärts: die Zeile von t3 in E bekommt (p − y)·h; zweite Komponente: "
                                   "{p} · {h} = {g}."])
def test_a_products_result_with_its_sign_turned(tmp_path, narrow, words):
    """(p − y)_t3 · h_1 printed negative: ∂L/∂E[t3,1] (t3 is not in the input: the head's part alone), a sign
    flip (it was unmatched)."""
    path, spec, f, g = narrow
    assert "t3" not in spec["data"]["input"]
    with mp.workdps(50):
        value = f["p"][3] * f["h_final"][1]
    assert abs(value - g["grad_E"][3][1]) < mp.mpf(10) ** -40
    text = "# Backward\n\n" + words.format(p=r(f["p"][3]), h=r(f["h_final"][1]), g=r(-value)) + "\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(-value)) == ("grad_E[t3,1]", "sign flip")


ENTRY = {
    "en": ("# Backward\n\nThe loss is {L} and p(t1) is {p}. The gradient of $W_Q$ is much smaller: its entry $[1,2]$ "
           "is only {x}.\n"),
    "en-of": "# Backward\n\nThe loss is {L} and p(t1) is {p}. The entry (1, 2) of ∂L/∂W_Q is {x}.\n",
    "es": ("# Retropropagación\n\nLa pérdida es {L}, p(t1) vale {p} y p(t2) vale {p2}. El gradiente de $W_Q$ es "
           "pequeño: su entrada $[1,2]$ vale apenas {x}.\n"),
    "de": ("# Rückwärts\n\nDer Verlust ist {L}, p(t1) ist {p} und p(t2) ist {p2}. Die Ableitung nach W_Q ist klein: "
           "der Eintrag [1,2] von ∂L/∂W_Q hat den Wert {x}.\n"),
}


@pytest.mark.parametrize("lang", sorted(ENTRY))
def test_an_entry_by_its_word_and_index(tmp_path, wide, lang):
    """'its entry [1,2] is only …' with W_Q's gradient at [2,1] printed: grad_W_Q[1,2], a transposed index (the
    value had won: matched to grad_W_Q[2,1])."""
    path, _, f, g = wide
    comma = lang in ("es", "de")
    x = r(g["grad_W_Q"][2][1], 7, comma)
    assert r(g["grad_W_Q"][1][2], 7) != r(g["grad_W_Q"][2][1], 7)
    text = ENTRY[lang].format(L=r(f["loss"], 4, comma), p=r(f["p"][1], 4, comma), p2=r(f["p"][2], 4, comma), x=x)
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, x.replace(",", ".") if x not in got else x) == ("grad_W_Q[1,2]", "transposed index")


@pytest.mark.parametrize("heading", ["## 13. Top-p sampling (P = 0.85)", "## 十三、top-p 采样（P = 0.85）"])
def test_a_heading_states_a_setting(tmp_path, narrow, heading):
    """A heading's 'P = 0.85' over a table whose column P holds the probabilities: the setting top_p, not a
    probability called wrong."""
    path, _, f, _ = narrow
    order = sorted(range(5), key=lambda v: -f["p"][v])
    kept, total = [], mp.mpf(0)
    for v in order:
        if total >= mp.mpf("0.85"):
            break
        kept.append(v)
        total += f["p"][v]
    rows = "\n".join(f"| {k + 1} | t{v} | {r(f['p'][v])} | {r(f['p'][v] / total) if v in kept else '0'} |"
                     for k, v in enumerate(order))
    text = (f"# Sampling\n\n{heading}\n\nWe add the probabilities from the largest down until they pass 0.85, "
            f"then divide the kept ones by their sum {r(total)}.\n\n"
            f"| rank | token | p | P |\n|---|---|---|---|\n{rows}\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got["0.85"][0] != "wrong"
    assert not [k for k, v in got.items() if v[0] == "wrong"]


@pytest.mark.parametrize("lead", ["Zeile 3: ", "Row 3: ", "第 3 行："])
def test_a_lead_in_before_a_colon_and_a_forgotten_term(tmp_path, wide, lead):
    """'Row 3: Z_{3,2} = a × b + c × d + b₁ = …' with the products of two of four inputs and the bias, the rest
    left out: Z[2,1] (1-based, as the other rows say), 'forgotten term' (its printed operands give it: not carried
    rounding)."""
    path, spec, f, _ = wide
    P = spec["layer"][0]
    W1, b1 = oracle.mat(P["W_1"]), oracle.vec(P["b_1"])
    LN1, Z = f["LN1"], f["Z"]
    terms = [f"{r(LN1[2][i])} × {r(W1[i][1], 2)}" for i in range(3)]
    with mp.workdps(50):
        partial = mp.fsum(mp.mpf(r(LN1[2][i])) * W1[i][1] for i in range(3)) + b1[1]
    assert r(partial) != r(Z[2][1])
    rows = "\n".join(f"Z_{{{t + 1},{j + 1}}} = {r(Z[t][j])}" for t in range(2) for j in range(4))
    text = (f"# The FFN\n\nThe first rows of Z:\n\n{rows}\n\n"
            f"{lead}Z_{{3,2}} = {' + '.join(terms)} + {r(b1[1], 2)} = {r(partial)}\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(partial)) == ("Z[2,1]", "forgotten term")


def test_a_head_in_the_names_subscript(tmp_path, two_heads):
    """s₁(3,1), s₁(3,2), s₁(3,3) and s₂(…): head 1's and head 2's scores at position 3; s₁(3,3) printed with its
    sign turned is S[0,2,2], a sign flip (it was unmatched)."""
    path, _, f, _ = two_heads
    S = f["S"]
    row = [S[0][2][s] for s in range(3)]
    flipped = r(-row[2])
    assert r(row[2]) != flipped
    text = ("# Scores\n\nThe notation s₁(3,2) is head 1's score of position 3 on position 2.\n\n"
            f"    s₁(3,1) = {r(row[0])}\n    s₁(3,2) = {r(row[1])}\n    s₁(3,3) = {flipped}\n\n"
            f"    s₂(3,1) = {r(S[1][2][0])}\n    s₂(3,2) = {r(S[1][2][1])}\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[r(row[1])][:2] == ("matched", "S[0,2,1]")
    assert _wrong(got, flipped) == ("S[0,2,2]", "sign flip")


@pytest.mark.parametrize("heading", ["## 8. The LayerNorm before the feed-forward", "## 八、前馈层之前的 LayerNorm"])
def test_a_norms_statistic_under_a_heading_that_places_the_norm(tmp_path, wide, heading):
    """σ² = (a sum of squares over d − 1) under the heading of the second norm, √(σ² + ε) right beside it: var2 at
    the last position (it was read as the first norm's, or left unmatched)."""
    path, _, f, _ = wide
    H1, mu2, var2 = f["H1"][2], f["mu2"][2], f["var2"][2]
    with mp.workdps(50):
        unbiased = mp.fsum((h - mu2) ** 2 for h in H1) / 3
    text = (f"# The block\n\n{heading}\n\nAt the last position the mean is μ = {r(mu2)} and\n\n"
            f"    σ² = {r(unbiased)}\n    √(σ² + ε) = {r(mp.sqrt(var2 + mp.mpf('1e-5')))}\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(unbiased))[0] == "var2[2]"


def test_after_a_quoted_word_is_no_state_after_a_step(tmp_path):
    """A forward table captioned 'probabilities of the next token after «t1»' in a text that trains by SGD: its
    cell with two digits swapped is p's, not sgd[1].p's (which it was judged against)."""
    toml = oracle.random_spec_toml(V=5, seed=3, d=4, heads=1, d_ff=8, layers=1, T=3) + \
        "\n[training]\nlr = 0.5\nsteps = 1\n"
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    f = oracle.transformer_forward(spec)
    cells = [r(p) for p in f["p"]]
    k = max(range(5), key=lambda v: len({*cells[v][-2:]}))
    cells[k] = _traded(cells[k])
    rows = "\n".join(f"| t{v} | {r(f['logits'][v])} | {cells[v]} |" for v in range(5))
    text = (f"# Forward\n\nTable 2. Logits and probabilities of the next token after «{spec['data']['input'][-1]}»\n\n"
            f"| token | z | P |\n|---|---|---|\n{rows}\n\n# One SGD step\n\nThe new loss after the step is lower.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, cells[k])[0] == f"p[t{k}]"


ADAM = "\n".join(line for line in BATCH.splitlines() if not line.startswith("examples"))
"""The mini-batch tests' bigram with its one example and its AdamW settings."""


def _states_table(g: dict, entries, flip, plain: bool) -> str:
    """A table of AdamW's first-step states of some entries: g, m₁ = 0.1·g, v₁ = 0.001·g², m̂₁ = g, v̂₁ = g²."""
    rows = []
    for name, i, j in entries:
        x = g[f"grad_{name}"][i][j]
        cells = [r(x, 8), r(x / 10, 8), mp.nstr(x * x / 1000, 5, min_fixed=-30, max_fixed=30), r(x, 8),
                 mp.nstr(x * x, 5, min_fixed=-30, max_fixed=30)]
        if (name, i, j) == flip:
            cells[1] = r(-x / 10, 8)
        rows.append((f"{name}[{i},{j}]", cells))
    if plain:
        return "    weight     g             m_1            v_1          m̂_1           v̂_1\n" + "\n".join(
            f"    {w:<10} " + "  ".join(f"{c:>12}" for c in cells) for w, cells in rows)
    return "| weight | g | m_1 | v_1 | m̂_1 | v̂_1 |\n|---|---|---|---|---|---|\n" + "\n".join(
        f"| {w} | " + " | ".join(cells) + " |" for w, cells in rows)


@pytest.mark.parametrize("plain", [False, True])
def test_a_rows_cells_are_one_entrys_states(tmp_path, plain):
    """A table of AdamW's first step, one row per weight (no label check knows): m₁ printed with its sign turned is
    that row's adamw[1].m, a sign flip (it was unmatched: no quantity has its value)."""
    path = write_spec(tmp_path, ADAM)
    g = oracle.bigram_grads(oracle.load_spec(str(path)))
    entries = [("W", 0, 1), ("W", 2, 3), ("E", 0, 2)]
    flip = ("W", 2, 3)
    x = g["grad_W"][2][3]
    text = ("# One AdamW step\n\nAdamW starts from zero moments, so m₁ = (1 − β₁)·g and v₁ = (1 − β₂)·g².\n\n" +
            _states_table(g, entries, flip, plain) + "\n")
    got = _verdicts(_results(tmp_path, text, path, name="doc.txt" if plain else "doc.md"))
    assert _wrong(got, r(-x / 10, 8)) == ("adamw[1].m[W,2,3]", "sign flip")     # (W[2,eat] by its ids)


def test_the_head_steps_sum_of_exps(tmp_path):
    """head_step.sum_exp: Σ_v exp(z′_v) of the forward pass with the target's row moved, E′_t = E_t − lr·(p_t − 1)·h
    (the row is the input's embedding too: the whole pass again, by the oracle), as head_step.p and .loss are."""
    from symgpt import load
    toml = oracle.random_spec_toml(V=5, seed=5, d=4, heads=1, d_ff=8, layers=1, T=3) + "\n[training]\nlr = 0.5\n"
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    f = oracle.transformer_forward(spec)
    h = f["h_final"]
    t = spec["model"]["vocab"].index(spec["data"]["target"])
    assert spec["data"]["target"] in spec["data"]["input"]       # (so the pass after the step differs from h·E′)
    with mp.workdps(60):
        E = oracle.mat(spec["weights"]["E"])
        E[t] = [e - mp.mpf("0.5") * (f["p"][t] - 1) * x for e, x in zip(E[t], h)]
        spec["weights"]["E"] = E
        after = oracle.transformer_forward(spec)
        want = mp.fsum(mp.exp(z) for z in after["logits"])
    d = load(path)
    assert d.value("head_step.sum_exp", digits=25) == mp.nstr(want, 25, strip_zeros=False)
    assert d.value("head_step.loss", digits=25) == mp.nstr(after["loss"], 25, strip_zeros=False)


@pytest.mark.parametrize("form", ["$\\delta W^Q_{{{i},{j}}} = {x}$", "δW_Q[{i},{j}] = {x}"])
def test_a_gradient_in_delta_notation(tmp_path, wide, form):
    """δW^Q_{1,3} for ∂L/∂W_Q[0,2] (δx for ∂L/∂x, counted from 1): one entry printed with its sign turned is that
    gradient's, a sign flip (LaTeX's '\\delta W' was read as W_Q itself)."""
    path, spec, _, g = wide
    G, W = g["grad_W_Q"], oracle.mat(spec["layer"][0]["W_Q"])
    weights = ["- " + form.replace("\\delta ", "").replace("δ", "").format(i=i + 1, j=j + 1, x=r(W[i][j], 2))
               for i in range(4) for j in range(4)]
    lines = ["- " + form.format(i=i + 1, j=j + 1, x=r(-G[i][j] if (i, j) == (0, 2) else G[i][j], 6))
             for i in range(2) for j in range(4)]
    text = ("# The weights\n\nThe query weights:\n\n" + "\n".join(weights) +
            "\n\n# Backward\n\nWe write δx for ∂L/∂x. The gradient of the query weights:\n\n" + "\n".join(lines) + "\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(-G[0][2], 6)) == ("grad_W_Q[0,2]", "sign flip")


def test_a_step_h_in_scientific_notation_is_the_checks_setting(tmp_path):
    """'h = 1e-3' beside a central difference is the check's step (gradcheck.h, 1/1000 as the spec sets it), not
    a tensor its letter names elsewhere (it was H0's entry, a 'scale slip')."""
    from symgpt import load
    toml = oracle.random_spec_toml(V=5, seed=5, d=4, heads=1, d_ff=8, layers=1, T=3) + \
        '\n[training]\nlr = 0.1\ngradcheck = { h = "1e-3", params = ["W_Q[0,0]"] }\n'
    path = write_spec(tmp_path, toml)
    assert load(path).value("gradcheck.h", digits=5) == "0.0010000"
    f = oracle.transformer_forward(oracle.load_spec(str(path)))
    h_rows = "\n".join(f"    h[{t + 1}] = [{', '.join(r(x) for x in f['H0'][t])}]" for t in range(3))
    text = (f"# Forward\n\nThe block's input rows:\n\n{h_rows}\n\n# Checking the gradient\n\n"
            "Nudge one weight up and down and take the central difference:\n\n"
            "    g_num = ( L(theta + h) - L(theta - h) ) / (2h),   h = 1e-3\n")
    got = _verdicts(_results(tmp_path, text, path, name="doc.txt"))
    assert got["1e-3"][:2] == ("matched", "gradcheck.h")


@pytest.mark.parametrize("lead", ["Für U_{2,eat} zum Beispiel:", "For the weight W[1, eat], say:"])
def test_a_moment_at_a_step_under_a_lead_in(tmp_path, batch_adam, lead):
    """'m_{2} = 0.9 · m₁ + 0.1 · g₂ = …' a line below a lead-in naming the entry: AdamW's m of that entry at step 2,
    matched (its own subscript was taken for an entry of another tensor, and the lead-in lost)."""
    path, m2 = batch_adam
    text = ("# AdamW, step 1\n\nThe first step moves every weight by about the learning rate.\n\n"
            f"# AdamW, step 2\n\nThe bias correction divides by 0.19 now. {lead}\n\n"
            f"    m_{{2}} = {r(m2['m'], 6)}\n\n"
            f"    m̂_{{2}} = {r(m2['m'], 6)} / 0.19 = {r(m2['m'] / mp.mpf('0.19'), 5)}\n")
    got = _verdicts(_results(tmp_path, text, path, name="doc.txt"))
    assert got[r(m2["m"], 6)][:2] == ("matched", "adamw[2].m[W,1,3]")


@pytest.fixture
def batch_adam(tmp_path):
    """The bigram of one example and two AdamW steps; m of W[1,eat] at step 2, worked here from the oracle's
    gradients at the weights step 1 made."""
    toml = ADAM.replace("steps = 1", "steps = 2")
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    with mp.workdps(50):
        lr, b1, b2, eps, wd = (mp.mpf(x) for x in ("0.01", "0.9", "0.999", "1e-8", "0.01"))
        g1 = oracle.bigram_grads(spec, dps=50)
        m1 = {k: [[(1 - b1) * x for x in row] for row in g1[f"grad_{k}"]] for k in ("E", "W")}
        v1 = {k: [[(1 - b2) * x * x for x in row] for row in g1[f"grad_{k}"]] for k in ("E", "W")}
        after = oracle.load_spec(str(path))
        for k in ("E", "W"):
            P = oracle.mat(spec["weights"][k])
            after["weights"][k] = [[P[i][j] - lr * wd * P[i][j] - lr * (m1[k][i][j] / (1 - b1)) /
                                    (mp.sqrt(v1[k][i][j] / (1 - b2)) + eps) for j in range(len(P[0]))]
                                   for i in range(len(P))]
        g2 = oracle.bigram_grads(after, dps=50)
        m = b1 * m1["W"][1][3] + (1 - b1) * g2["grad_W"][1][3]
    return path, {"m": m}


@pytest.mark.parametrize("row", ["$\\alpha^{{(2)}}_{{3,j}}$", "α^(2)_{{3,j}}"])
def test_a_row_indexed_by_the_columns_running_letter(tmp_path, row):
    """A table row 'α^{(2)}_{3,j}' over a column per input token: head 2's weights of the last query, one entry
    per column; its last cell copied from the one before is wrong as its own entry (it was matched to the entry it
    copies). (The gradient's row, δα^{(2)}_{4,j}, is read alike: tests/tutorials/pt-md-gpt2-2head-backprop-sgd.)"""
    toml = oracle.random_spec_toml(V=5, seed=12, d=4, heads=2, d_ff=8, layers=1, T=3) + "\n[training]\nlr = 0.1\n"
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    cells = [r(x, 4) for x in oracle.transformer_forward(spec)["A"][1][2]]
    assert cells[1] != cells[2]
    cells[2] = cells[1]
    tokens = spec["data"]["input"]
    text = (f"# Attention\n\n| head 2, query {tokens[2]} | {' | '.join(tokens)} |\n|---|---:|---:|---:|\n"
            f"| {row.format()} | {' | '.join(cells)} |\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, cells[2])[0] == "A[1,2,2]"


@pytest.mark.parametrize("row", ["$\\tilde h$ at t = 3", "$\\tilde h$ (t = 3)", "$\\tilde h$ bei t = 3"])
def test_a_row_that_names_its_position_after_its_symbol(tmp_path, wide, row):
    """A lone table row 'h̃ at t = 3' over columns 'dim 1' … 'dim 4' (counted from 1): the residual stream after
    attention at position 3, one entry per column; its last cell off by a forgotten term is wrong as H1[2,3] (it
    was left unmatched: the row's label was not read, and three cells agreeing make no run)."""
    path, _, f, _ = wide
    H1 = f["H1"]
    cells = [r(x, 5) for x in H1[2]]
    cells[3] = r(H1[2][3] - f["H0"][2][3], 5)          # the attention's output alone, the residual left out
    text = ("# After attention\n\nThe last position's row, counted from 1:\n\n"
            "| | dim 1 | dim 2 | dim 3 | dim 4 |\n|---|---:|---:|---:|---:|\n"
            f"| {row} | " + " | ".join(cells) + " |\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, cells[3])[0] == "H1[2,3]"


@pytest.mark.parametrize("note", ["（$\\theta_0 = {w}$）", " (θ₀ = {w})"])
def test_a_state_table_whose_rows_note_the_start_value(tmp_path, note):
    """Rows '$W[2,eat]$（$\\theta_0 = 0.2$）' under columns g | m_1 | v_1 | m̂_1 | v̂_1 of AdamW's first step: the
    note is no part of the entry, and the column g is the entry's gradient; g printed with its sign turned is
    grad_W[2,eat], a sign flip (the row was not read: the value matched the gradient of another entry)."""
    path = write_spec(tmp_path, ADAM)
    spec = oracle.load_spec(str(path))
    g = oracle.bigram_grads(spec)
    W = oracle.mat(spec["weights"]["W"])
    rows = []
    for i, j in ((0, 1), (2, 3), (1, 4)):
        x = g["grad_W"][i][j]
        cells = [r(-x if (i, j) == (2, 3) else x, 6), r(x / 10, 6), mp.nstr(x * x / 1000, 4, min_fixed=-30,
                                                                             max_fixed=30), r(x, 6), r(x * x, 6)]
        label = f"$W[{i},{BATCH_VOCAB[j]}]$" + note.format(w=r(W[i][j], 2))
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    text = ("# One AdamW step\n\nThe first step of AdamW for three entries of W:\n\n"
            "| entry | $g$ | $m_1$ | $v_1$ | $\\hat m_1$ | $\\hat v_1$ |\n|---|---:|---:|---:|---:|---:|\n" +
            "\n".join(rows) + "\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(-g["grad_W"][2][3], 6)) == ("grad_W[2,eat]", "sign flip")


def test_readings_that_stay_narrow(tmp_path):
    """What the readings above must not take: a capital in prose is no tensor of 'element (1,0)'; 'of Q squared'
    is no entry of Q; a gradient's label with a figure written as a power of ten stays the gradient's (not the
    check's step h it happens to equal); a point moved in 0.10 for 0.0102 is a scale slip, not swapped digits."""
    from symgpt.claims.causes import cause_of
    path = oracle.ROOT + "/derivations/tiny-transformer.toml"
    spec = oracle.load_spec(path)
    f = oracle.transformer_forward(spec)
    a10, q01 = r(f["A"][1][0], 3), f["Q"][0][1]
    text = (f"# Attention\n\nWith Q known, the attention weights' element (1,0) is {a10}.\n\n"
            f"Entry (0,1) of Q squared is {r(q01 * q01, 4)}.\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert not [k for k, v in got.items() if v[0] == "wrong"], got
    g = oracle.transformer_grads(spec)["grad_W_Q"][0][1]
    assert abs(g) < mp.mpf("1e-9")                       # (so 1e-5 is far from it, and equal to no entry)
    got = _verdicts(_results(tmp_path, "# Backward\n\nThe gradient: ∂L/∂W_Q[0,1] = 1e-5.\n", path))
    assert got["1e-5"][:2] == ("wrong", "grad_W_Q[0,1]")
    assert cause_of(Fraction("0.10"), Fraction("0.0102"), 2, chain_ok=False) == "scale slip"
