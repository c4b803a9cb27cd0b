"""check: what a code transcript shows, what an equation's form says, and a matrix drawn with token rows (issue 27),
on texts written for these tests in several notations and languages.  Every expected value is computed here
(mpmath in the test, 50 digits, through ``test_check_readings.forward``), never taken from symgpt.

* A REPL transcript in one fenced block names each output by the prompt above it (``>>> logits.grad``), also
  after statements (``>>> probs = z.softmax(-1); probs``); a prompt that shows nothing names nothing below it.
* ``dlogits = p(t) = 0.2269``: an equation that says the logits' gradient is a token's probability claims the
  gradient's entry, which is p only away from the target (forgotten −y there).
* ``0.01 × m / (√v + 10⁻⁸)`` on the raw moments is AdamW's update without its bias correction, though its own
  arithmetic is right: the update of the moments' entry, wrong, 'no bias correction'.
* A matrix drawn one row per line in brackets keeps its first row when that row's label is no word (``<s>``).
* A symbol after the words of its sentence names the figure (``… je tedy gradient ∂L/∂z_{t} = …``), also before a
  formula and its arithmetic; a step on a symbol no vote resolved is the state of its first operand's parameter.
* A vector named by a display fraction a PDF's text sets over three lines (``∂L`` ⏎ ``= (…)`` ⏎ ``∂z``).
* An AdamW update slip under no known word is the entry's whose m and v stand just above it.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand, forward


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _results(tmp_path, text, spec=SPEC, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return check(doc, write_spec(tmp_path, spec))


def _wrong(rs) -> list:
    return [(r.ref, (r.number.printed or r.number.text).replace(" ", ""), r.cause) for r in rs if r.verdict == "wrong"]


def _tensor(xs) -> str:
    return "tensor([" + ", ".join(r4(x) for x in xs) + "])"


# ---------------------------------------------------------------- a transcript's outputs

@pytest.mark.parametrize("prompt", [">>> ", "In [7]: "])
@pytest.mark.parametrize("name", ["z.grad", "logits.grad"])
def test_a_transcripts_output_is_its_prompts_expression(tmp_path, run, prompt, name):
    """``>>> z.grad`` over a tensor whose target entry is printed as p (the −1 forgotten): that entry is grad_z,
    wrong, 'forgotten −y', and the other entries are grad_z's (equal to p away from the target), not p's;
    the probabilities shown after ``; probs`` are p's, right."""
    f = run["f0"]
    shown = [f["p"][j] for j in range(5)]           # every entry p: the target's should be p − 1
    text = ("## Backward\n\n```python\n"
            f"{prompt}probs = z.softmax(-1); probs\n{_tensor(f['p'])}\n"
            f"{prompt}loss.backward()\n"
            f"{prompt}{name}\n{_tensor(shown)}\n```\n")
    rs = _results(tmp_path, text)
    assert _wrong(rs) == [(f"grad_z[{VOCAB[Y]}]", r4(f["p"][Y]), "forgotten −y")]
    refs = [r.ref for r in rs if r.verdict == "matched"]
    assert [f"p[{v}]" in refs for v in VOCAB] == [True] * 5
    assert [f"grad_z[{v}]" in refs for v in VOCAB if v != VOCAB[Y]] == [True] * 4


def test_a_prompt_that_shows_nothing_names_nothing(tmp_path, run):
    """After ``>>> loss.backward()`` a tensor of the logits is not the previous prompt's p: every entry is read
    by its value, right.  (A guard: the prompt above named the tensor below it, two prompts down.)"""
    f = run["f0"]
    text = ("```\n>>> p\n" + _tensor(f["p"]) + "\n>>> loss.backward()\n>>> model(x)[0]\n"
            + _tensor(f["z"]) + "\n```\n")
    assert _wrong(_results(tmp_path, text)) == []


# ---------------------------------------------------------------- an equation's form

@pytest.mark.parametrize("form", [
    "Untuk sasaran `{t}`, $\\text{{dlogits}} = p(\\text{{{t}}}) = {v}$, token lain $p$ masing-masing.",
    "For the target {t}: ∂L/∂z = p({t}) = {v}.",
    "Für das Ziel {t} gilt dlogits = p({t}) = {v}.",
])
def test_the_logits_gradient_said_to_be_the_targets_probability(tmp_path, run, form):
    """``dlogits = p(t) = …`` for the target t: grad_z[t], wrong, 'forgotten −y' (the figure is p[t], right as
    a probability but not as the gradient the equation claims); for another token the same form is right."""
    f = run["f0"]
    other = 1
    text = "## Gradient\n\n" + form.format(t=VOCAB[Y], v=r4(f["p"][Y])) + "\n\n" + \
        form.format(t=VOCAB[other], v=r4(f["p"][other])) + "\n"
    rs = _results(tmp_path, text)
    assert _wrong(rs) == [(f"grad_z[{VOCAB[Y]}]", r4(f["p"][Y]), "forgotten −y")]
    assert f"grad_z[{VOCAB[other]}]" in [r.ref for r in rs if r.verdict == "matched"]


@pytest.mark.parametrize("notation", ["e", "latex"])
def test_an_adamw_update_on_the_raw_moments(tmp_path, run, notation):
    """m and v of W[0,пьёт] printed right, then ``0.01 × m / (√v + 10⁻⁸) = …`` worked on them (its arithmetic
    right): AdamW's update of that entry, wrong, 'no bias correction' (the right one divides by 1 − βᵗ first);
    the same line on m̂ and v̂ is the update, right."""
    a = run["adamw"](mp.mpf("0.2"), run["f0"]["gW"][0][3])
    lr, eps = mp.mpf("0.01"), mp.mpf("1e-8")
    raw = lr * a["m"] / (mp.sqrt(a["v"]) + eps)

    def sci(x):
        e = int(mp.floor(mp.log10(abs(x))))
        mant = r4(x / mp.mpf(10) ** e, 3)
        return f"{mant}e{e:+03d}" if notation == "e" else f"{mant} \\times 10^{{{e}}}"
    eps_text = "1e-8" if notation == "e" else "10^{-8}"
    times = "×" if notation == "e" else "\\times"
    sqrt = "√" if notation == "e" else "\\sqrt"
    text = ("## Ein AdamW-Schritt\n\nFür W[0,пьёт]: "
            f"$m = {r4(a['m'], 6)}$, $v = {sci(a['v'])}$.\n\n"
            f"Schritt $= 0.01 {times} {r4(a['m'], 6)} / ({sqrt}{{{sci(a['v'])}}} + {eps_text}) = {r4(raw, 6)}$.\n\n"
            f"Mit $\\hat m = {r4(a['mhat'], 6)}$ und $\\hat v = {sci(a['vhat'])}$: Schritt "
            f"$= 0.01 {times} {r4(a['mhat'], 6)} / ({sqrt}{{{sci(a['vhat'])}}} + {eps_text})"
            f" = {r4(a['update'], 6)}$.\n")
    rs = _results(tmp_path, text)
    assert _wrong(rs) == [("adamw[1].update[W,0,3]", r4(raw, 6), "no bias correction")]
    assert "adamw[1].update[W,0,3]" in [r.ref for r in rs if r.verdict == "matched"]


# ---------------------------------------------------------------- a matrix drawn in text

@pytest.mark.parametrize("comma", [True, False])
def test_a_drawn_matrix_whose_first_row_is_labelled_by_a_special_token(tmp_path, comma):
    """E drawn one row per line in brackets, its rows labelled by their tokens after them and the first token
    ``<s>``, its name on the middle row: each row is its token's, right (the first row is no row of its own
    apart from the rest).  Hungarian and English decimal marks."""
    vocab = ["<s>", "ест", "рыбу", "пьёт", "спит"]
    spec = SPEC.replace('vocab = ["кот"', 'vocab = ["<s>"').replace('input = ["кот"]', 'input = ["<s>"]')
    E = [[mp.mpf(x) / 10 for x in r] for r in ((6, -3), (1, 4), (-2, 5), (3, 2), (4, -1))]

    def fig(x):
        s = r4(x, 1)
        return s.replace(".", ",") if comma else s
    def fig4(x):
        return r4(x).replace(".", ",")
    rows = [f"[ {fig(a):>5}  {fig(b):>5} ]   {vocab[i]}" for i, (a, b) in enumerate(E)]
    W = [[mp.mpf(x) / 10 for x in r] for r in ((4, -1, 3, 2, -5), (-2, 5, 1, 7, 3))]
    f = forward(E, W)                                # (the input <s> is E's row 0, as кот was)
    said = " és ".join(f"p({vocab[j]}) = {fig4(f['p'][j])}" for j in (Y, 1, 2))
    text = "2.1 A beágyazási mátrix:\n\n" + "\n".join(
        ("  E  =  " if i == 2 else "        ") + row for i, row in enumerate(rows)) + \
        (f"\n\nEbből {said}.\n" if comma else "\n")
    rs = _results(tmp_path, text, spec, "doc.txt")
    assert _wrong(rs) == []
    assert [f"E[{vocab[0]},{j}]" in [r.ref for r in rs if r.verdict == "matched"] for j in (0, 1)] == [True, True]


def test_forward_is_the_hand_computation():
    """The helper the expectations come from agrees with a closed form: z = x·W at the input's row."""
    E = [[mp.mpf(x) / 10 for x in r] for r in ((6, -3), (1, 4), (-2, 5), (3, 2), (4, -1))]
    W = [[mp.mpf(x) / 10 for x in r] for r in ((4, -1, 3, 2, -5), (-2, 5, 1, 7, 3))]
    f = forward(E, W)
    assert abs(f["z"][Y] - (E[X][0] * W[0][Y] + E[X][1] * W[1][Y])) < mp.mpf(10) ** -40


# ---------------------------------------------------------------- a symbol after words; a step's unnamed symbol

@pytest.mark.parametrize("form", [
    "Pro cílové slovo *{t}* je tedy gradient $\\frac{{\\partial L}}{{\\partial z_{{\\text{{{t}}}}}}} = {v}$.",
    "For the target {t} the gradient ∂L/∂z_{{{t}}} = {v}, as for the others.",
])
def test_a_symbol_after_the_words_of_its_sentence(tmp_path, run, form):
    """'… je tedy gradient ∂L/∂z_{t} = 0.1860' (the words before the symbol end at it): grad_z[t] for the target,
    printed as p, wrong, 'forgotten −y' (not p[t], which it equals).  (The English form is a guard: its symbol
    was read before; the Czech one, after a markdown emphasis and words, was not.)"""
    f = run["f0"]
    text = "## Gradient\n\n" + form.format(t=VOCAB[Y], v=r4(f["p"][Y])) + "\n"
    assert _wrong(_results(tmp_path, text)) == [(f"grad_z[{VOCAB[Y]}]", r4(f["p"][Y]), "forgotten −y")]


def test_a_step_on_a_symbol_no_vote_resolved_is_its_first_operands(tmp_path):
    """An untied head W_out written only as W: ``W_{0,t1} ← a − 0,1 · g = …`` twice, the second result with its
    sign flipped: sgd[1].W_out[1,t1] (the parameter the update's first operand is), wrong, 'sign flip'."""
    toml = oracle.random_spec_toml(seed=3, V=5, d=4, heads=1, d_ff=4, layers=1, T=3, tied=False) + \
        "\n[training]\nlr = 0.1\nsteps = 1\n"
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    g = oracle.transformer_grads(spec)["grad_W_out"]
    W = oracle.mat(spec["weights"]["W_out"])
    t = 1                                               # column t1
    new = [W[i][t] - mp.mpf("0.1") * g[i][t] for i in (0, 1)]
    assert abs(new[1]) > mp.mpf("0.001")

    def c(x, k=4):
        return r4(x, k).replace(".", ",").replace("-", "−")
    text = ("## 8. Jeden krok SGD\n\nRučně pro první prvek: "
            f"$W_{{0,\\text{{t1}}}} \\leftarrow {c(W[0][t], 2)} − 0{{,}}1 \\cdot ({c(g[0][t])}) = {c(new[0])}$.\n"
            f"Obdobně $W_{{1,\\text{{t1}}}} \\leftarrow {c(W[1][t], 2)} − 0{{,}}1 \\cdot ({c(g[1][t])}) = "
            f"{c(-new[1])}$.\n").replace("{,}", "{,}")
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    assert _wrong(check(doc, path)) == [("sgd[1].W_out[1,t1]", c(-new[1]), "sign flip")]


# ---------------------------------------------------------------- a PDF's stacked fraction; a slip's entry

@pytest.mark.parametrize("comma", [True, False])
def test_a_vector_named_by_a_fraction_set_over_three_lines(tmp_path, run, comma):
    """``∂L`` ⏎ ``= (…)`` ⏎ ``∂z``, as a PDF's text lays out a display fraction: the vector is ∂L/∂z, so its
    target entry printed as p is grad_z, wrong, 'forgotten −y', and the other entries are grad_z's."""
    f = run["f0"]
    shown = [r4(f["p"][j]) for j in range(5)]
    sep = "; " if comma else ", "
    body = sep.join(x.replace(".", ",") if comma else x for x in shown)
    text = ("Gradientas paprastas: ∂L/∂z_w = p_w − y_w.\n\n" + " " * 22 + "∂L\n" + " " * 23 + f"= ({body}).\n" +
            " " * 22 + "∂z\n")
    rs = _results(tmp_path, text, name="doc.txt")
    want = shown[Y].replace(".", ",") if comma else shown[Y]
    assert _wrong(rs) == [(f"grad_z[{VOCAB[Y]}]", want, "forgotten −y")]


@pytest.mark.parametrize("word", ["sasisho", "Aktualisierung des Eintrags"])
def test_an_updates_slip_names_the_entry_whose_moments_stand_above_it(tmp_path, run, word):
    """m₁ and v₁ of W[0,пьёт] printed right, then its update without the bias correction under a word no reading
    knows: every entry's slip prints ±η·(1 − β₁)/√(1 − β₂), so the entry is the one whose moments stand just
    above it: adamw[1].update[W,0,3], wrong, 'no bias correction'."""
    a = run["adamw"](mp.mpf("0.2"), run["f0"]["gW"][0][3])
    slip = mp.mpf("0.01") * a["m"] / (mp.sqrt(a["v"]) + mp.mpf("1e-8"))
    e = int(mp.floor(mp.log10(abs(a["v"]))))
    text = (f"## AdamW\n\n  m₁ = {r4(a['m'], 6)},   v₁ = {r4(a['v'] / mp.mpf(10) ** e, 4)}e{e}\n"
            f"  {word} = {r4(slip, 6)}\n")
    assert _wrong(_results(tmp_path, text, name="doc.txt")) == \
        [("adamw[1].update[W,0,3]", r4(slip, 6), "no bias correction")]


def test_a_symbol_after_words_before_its_formula_and_arithmetic(tmp_path, run):
    """'Hedef sütununda ise ∂L/∂W_{1,t} = x_1 (ŷ_{t} − y_{t}) = −0,3 × 0,1860 = …' (the −y forgotten in the
    arithmetic): the symbol after the words names the result, grad_W[1,пьёт], wrong (not x[1]·p[пьёт] matched)."""
    f = run["f0"]
    p = r4(f["p"][Y])
    bad = r4(mp.mpf("-0.3") * mp.mpf(p))
    text = ("## ∂L/∂W\n\nHedef sütununda ise $\\partial L / \\partial W_{1,\\text{пьёт}} = x_1 \\,"
            "(\\hat{y}_{\\text{пьёт}} - y_{\\text{пьёт}}) = "
            f"{{-0{{,}}3}} \\times {p.replace('.', '{,}')} = {bad.replace('.', '{,}')}$.\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text))] == [(f"grad_W[1,{VOCAB[Y]}]", bad.replace(".", ","))]


@pytest.mark.parametrize("form", [
    "$\\partial L / \\partial W_{{0,\\text{{{t}}}}} = x_0 \\, \\hat y_{{\\text{{{t}}}}} = {x} \\times {p} = {v}$",
    "`W.grad[0, {k}] = {x} * {p} = {v}`",
])
def test_a_weight_gradients_arithmetic_without_the_y(tmp_path, run, form):
    """∂L/∂W_{0,t} worked as x₀ · p_t (the −y left out of p − y at the target): grad_W[0,пьёт], wrong, and its
    cause is 'forgotten −y' (the same arithmetic with p_t − 1 gives the gradient), not carried rounding."""
    f = run["f0"]
    x, p = mp.mpf("0.6"), r4(f["p"][Y])
    v = r4(x * mp.mpf(p))
    text = "## ∂L/∂W by hand\n\n" + form.format(t=VOCAB[Y], k=Y, x="0.6", p=p, v=v) + "\n"
    assert _wrong(_results(tmp_path, text)) == [(f"grad_W[0,{VOCAB[Y]}]", v, "forgotten −y")]
