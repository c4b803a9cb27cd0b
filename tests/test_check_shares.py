"""check: a percentage is a share, a norm's spread has its n − 1 slip, and a gated MLP prints its gate (issue 27),
on texts written for these tests in several notations and languages.  Every expected value is computed here
(``tests/oracle.py`` or mpmath in the test, 60 digits), never taken from symgpt.

* A percentage prints a share (an attention weight, a probability) or a rate: '2.25 %' is no squared deviation
  that happens to be 0.0225, and a weight printed as a decimal in a matrix is the share a paragraph below it
  restates in words, with its point moved (4.51 % for 45.1 %) or its fraction given a % sign (0.45 %).
* A norm's variance or mean square divided by d − 1 (the sample-variance habit) is that quantity, wrong, whatever
  else its digits happen to be near; so is its root √(σ² + ε).
* A Llama block's worked MLP row prints σ(g) and SiLU(g) = g·σ(g), and its RMS row √(ms + ε).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4


@pytest.fixture(autouse=True, scope="module")
def _digits():
    """60 digits while this module's tests run; the global precision is given back after them (later doctests
    read mpmath.mp.dps)."""
    before, mp.mp.dps = mp.mp.dps, 60
    yield
    mp.mp.dps = before


def _results(tmp_path, text, spec, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return check(doc, spec)


def _wrong(rs) -> list:
    return [(r.ref, (r.number.printed or r.number.text).replace(" ", ""), r.cause) for r in rs if r.verdict == "wrong"]


def comma(s: str) -> str:
    return s.replace(".", ",")


@pytest.fixture(scope="module")
def post_ln(tmp_path_factory):
    """The one-layer, one-head post-LN transformer of tests/oracle.py (seed 3, d = 4, T = 3): path and forward."""
    toml = oracle.random_spec_toml(seed=3, V=5, d=4, heads=1, d_ff=4, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("post_ln"), toml)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


def _llama(tmp_path_factory, still: bool):
    """A one-layer Llama block (RMSNorm with γ = 1, RoPE, SwiGLU; tests/oracle.py seed 7) and its first norm worked
    out here: a Llama block adds no positions to x, and RoPE turns q and k only, so ms1[t] = mean of E[id_t]².
    ``still``: its values are zero (W_V = 0), so that attention adds nothing, ms2 = ms1, and the MLP's gate is
    g = (x_t / √(ms2[t] + ε)) · W_1."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=2, d_ff=6, layers=1, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True, ln_params=False)
    if still:
        toml = re.sub(r"(?m)^W_V = .*$", "W_V = " + repr([[0.0] * 4] * 4), toml)
    path = write_spec(tmp_path_factory.mktemp("llama"), toml)
    spec = oracle.load_spec(str(path))
    E, ids = oracle.mat(spec["weights"]["E"]), oracle.token_ids(spec, spec["data"]["input"])
    eps = oracle.num(spec["model"].get("ln_eps", "1e-5"))
    x = [E[i] for i in ids]
    ms = [mp.fsum(v * v for v in row) / 4 for row in x]
    root = [mp.sqrt(m + eps) for m in ms]
    return path, dict(x=x, ms=ms, root=root, eps=eps)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return _llama(tmp_path_factory, still=False)


@pytest.fixture(scope="module")
def llama_still(tmp_path_factory):
    return _llama(tmp_path_factory, still=True)


# ---------------------------------------------------------------- a percentage is a share

PROSE = ("The mask keeps each position from looking ahead, so the first row is all on itself.",
         "Each row sums to one, as a softmax row must.",
         "The second row already splits its weight between two words.",
         "Below we say the same in words for the last word.",
         "")
SHARES = {
    "en": ("a_3 = ({0}, {1}, {2})", "In words: position 3 gives {0} to t0, {1} to the middle word and {2} to "
                                     "itself."),
    "fi": ("α₃ = ({0}; {1}; {2})", "Sanoin: sija 3 antaa {0} ensimmäiselle sanalle, {1} toiselle ja {2} "
                                    "itselleen."),
}


@pytest.mark.parametrize("lang", list(SHARES))
@pytest.mark.parametrize("slip", ["moved point", "fraction"])
@pytest.mark.parametrize("gap", [1, 4])
def test_a_share_restated_in_words_with_its_point_moved(tmp_path, post_ln, lang, slip, gap):
    """The last row of A printed as decimals, then restated as percentages six lines below; one of them has its
    decimal point moved (4.51 % for 45.1 %) or is the fraction with a % sign (0.45 %): that share, wrong, not an
    unmatched figure (its row printed too far above for a figure's own neighbourhood: 7 lines, or 22, as a
    notebook's JSON spreads a cell's output and the words below it)."""
    path, f = post_ln
    A = f["blocks"][0]["A"][2]
    j = max(range(3), key=lambda s: A[s])                  # the largest share: 0.45 has no other reading
    dec = [r4(A[s]) for s in range(3)]
    pct = [f"{r4(A[s] * 100, 2)} %" for s in range(3)]
    pct[j] = f"{r4(A[j] * 10, 2)} %" if slip == "moved point" else f"{r4(A[j], 2)} %"
    row, words = SHARES[lang]
    if lang == "fi":
        dec, pct = [comma(s) for s in dec], [comma(s) for s in pct]
    text = "\n".join(["## Attention", "", row.format(*dec), "", *PROSE * gap, words.format(*pct), ""])
    want = "scale slip" if slip == "moved point" else "percent slip"
    assert _wrong(_results(tmp_path, text, path)) == [(f"A[2,{j}]", pct[j].replace(" ", ""), want)]


def test_a_percentage_is_no_squared_deviation(tmp_path, post_ln):
    """A percentage whose digits are those of a squared deviation (x − μ)² of a LayerNorm row (0.0225 as
    '2.25 %') is not read as that square: a percentage prints a share or a rate.  (Before, it was matched to it,
    and a slipped share restated so was never judged.)"""
    path, f = post_ln
    b = f["blocks"][0]
    shares = [a for row in b["A"] for a in row] + list(f["p"])
    sq = next(s for t in range(3) for j in range(4) for s in [(b["H1"][t][j] - b["mu1"][t]) ** 2]
              if 0.001 < s < 0.1 and all(r4(a * 100, 2) != r4(s * 100, 2) for a in shares))
    text = f"Only {r4(sq * 100, 2)} % of the time does this happen.\n"
    rs = _results(tmp_path, text, path)
    assert [r.ref for r in rs if r.number.kind == "percent" and r.verdict == "matched"] == []


# ---------------------------------------------------------------- a spread over d − 1

@pytest.mark.parametrize("notation", ["σ² = {v}", "var = {v}", "dispersioon: {v}"])
def test_a_variance_over_d_minus_one_is_the_variance_wrong(tmp_path, post_ln, notation):
    """A LayerNorm row's variance printed as Σ(x − μ)²/3 for d = 4: var1[2], wrong, 'unbiased variance', named by
    that slip even where no symbol of the variance is read (4-digit figures: a chance hit is one in 10⁴ per
    variance).  'σ²' and 'var' name it as before (guards); 'dispersioon' names nothing, and the slip does."""
    path, f = post_ln
    b = f["blocks"][0]
    var = b["var1"][2]
    slipped = r4(var * 4 / 3)
    assert slipped != r4(var)
    h = ", ".join(r4(x) for x in b["H1"][2])
    text = f"## LayerNorm, row 3\n\nh = ({h})\n\nmean μ = {r4(b['mu1'][2])}\n\n" + notation.format(v=slipped) + "\n"
    assert _wrong(_results(tmp_path, text, path)) == [("var1[2]", slipped, "unbiased variance")]


@pytest.mark.parametrize("what", ["ms", "root"])
def test_a_mean_square_over_d_minus_one(tmp_path, llama, what):
    """RMSNorm's mean square of a row, or its root √(ms + ε), with the squares summed over d − 1 = 3: ms1[t] (or
    sqrt(ms1[t] + ln_eps)), wrong, 'unbiased variance'."""
    path, v = llama
    t = 1 if what == "ms" else 2                      # (x with no index is the last word's row)
    x = ", ".join(str(c) for c in v["x"][t])
    if what == "ms":
        fig, ref = r4(v["ms"][t] * 4 / 3), f"ms1[{t}]"
        line = f"mean of squares = {fig}"
    else:
        fig, ref = r4(mp.sqrt(v["ms"][t] * 4 / 3 + v["eps"])), f"sqrt(ms1[{t}] + ln_eps)"
        line = f"RMS(x) = √(ms + ε) = {fig}"
    text = f"## RMSNorm\n\nx = ({x})\n\n{line}\n"
    assert _wrong(_results(tmp_path, text, path)) == [(ref, fig, "unbiased variance")]


# ---------------------------------------------------------------- a Llama block's worked rows

def test_the_rms_root_and_the_gate_of_a_worked_row(tmp_path, llama_still):
    """'√(0.2325 + 10⁻⁵) = 0.4821', 'σ(1.3998) = 0.8021', 'SiLU(g₁) = 1.3998 × 0.8021 = 1.1228', and the row
    normalised as 1.0 × x / rms with γ = 1: each is matched (the root is the norm's denominator, σ(g) and SiLU(g)
    the gate's), and nothing is wrong.  Before, σ(g) and SiLU(g) had no candidate and '1.0' could be a token id."""
    path, v = llama_still
    t = 2
    ln = [c / v["root"][t] for c in v["x"][t]]
    spec = oracle.load_spec(str(path))
    W1 = oracle.mat(spec["layer"][0]["W_1"])
    g = [mp.fsum(ln[i] * W1[i][k] for i in range(4)) for k in range(6)]
    s = 1 / (1 + mp.exp(-g[0]))
    lines = [f"Mean square: {r4(v['ms'][t])}; root: √({r4(v['ms'][t])} + 0.00001) = {r4(v['root'][t])}.",
             f"First coordinate: 1.0 × {v['x'][t][0]} / {r4(v['root'][t])} = {r4(ln[0])}.",
             f"Gate: g₁ = {r4(g[0])}, σ({r4(g[0])}) = {r4(s)}, SiLU(g₁) = {r4(g[0])} × {r4(s)} = {r4(g[0] * s)}."]
    rs = _results(tmp_path, "\n\n".join(lines) + "\n", path)
    assert _wrong(rs) == []
    refs = {(r.number.text, r.ref) for r in rs if r.verdict == "matched"}
    assert {(r4(s), f"1/(1+exp(-Z[{t},0]))"), (r4(g[0] * s), f"Z[{t},0]/(1+exp(-Z[{t},0]))")} <= refs
    assert {(r4(v["root"][t]), f"sqrt(ms1[{t}] + ln_eps)"), (r4(v["root"][t]), f"sqrt(ms2[{t}] + ln_eps)")} & refs
    #      (both norms divide by this root here: attention adds nothing)


# ---------------------------------------------------------------- text tables, rows of three, accents in a PDF

def _bigram(tmp_path):
    from test_check_readings import SPEC, VOCAB, Y, forward
    spec = oracle.loads_spec(SPEC)
    f = forward(oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"]))
    return write_spec(tmp_path, SPEC), VOCAB, Y, f


@pytest.mark.parametrize("point", [".", ","])
def test_a_text_table_right_aligned_with_signs_one_space_apart(tmp_path, point):
    """A text table typed in an editor: token headers over right-aligned columns, a negative figure one space
    after its left neighbour (so the two read as one cell), under a row label with a slash ('dL/dz'): each
    figure is its own column's entry, the target's p − y keeps its minus, and nothing is wrong."""
    path, vocab, y, f = _bigram(tmp_path)

    def row(label, values):
        return f"  {label:<8}" + "".join(f"{r4(v).replace('.', point):>8}" for v in values)
    g = [p - (1 if j == y else 0) for j, p in enumerate(f["p"])]
    assert any(v < 0 for v in f["z"][1:]) and g[y] < 0
    head = "          " + "".join(f"{t:>8}" for t in vocab)
    text = "\n".join(["Logits, probabilities and their gradient:", "", head, row("z", f["z"]), row("p", f["p"]), "",
                      head, row("dL/dz", g), ""])
    rs = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(rs) == []
    assert [r.ref for r in rs if r.number.value == mp.mpf(0) or r.number.text == r4(g[y])] == \
        [f"grad_z[{vocab[y]}]"]


@pytest.mark.parametrize("label, middle", [("skoor(3,j)", "sign flip"), ("score row 3", "sign flip"),
                                           ("skoor(3,j)", "plain"), ("score row 3", "plain")])
def test_a_row_of_three_scores_names_its_middle_by_a_cause(tmp_path, post_ln, label, middle):
    """Three scores of the last row under 'j = 1  j = 2  j = 3': the outer two are S[2,0] and S[2,2], so the
    middle one is S[2,1]; printed with its sign flipped it is S[2,1], wrong, 'sign flip'; printed off by a plain
    error, wrong all the same (the row names its entries, 'skoor(3,j)' by the letter its columns bind, 'score
    row 3' by its number, and the outer two agree with S at their own indices)."""
    path, f = post_ln
    S = f["blocks"][0]["S"][2]
    mid = r4(-S[1]) if middle == "sign flip" else r4(S[1] + mp.mpf("0.4321"))
    text = "\n".join(["## Scores", "", "                 j = 1     j = 2     j = 3",
                      f"  {label:<12} {r4(S[0]):>9} {mid:>9} {r4(S[2]):>9}", ""])
    want = [("S[2,1]", mid, "sign flip" if middle == "sign flip" else "plain error")]
    assert _wrong(_results(tmp_path, text, path, "doc.txt")) == want


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
@pytest.mark.parametrize("accent", ["hat", "tilde"])
def test_a_matrix_named_with_an_accent_in_a_pdf(tmp_path, post_ln, accent):
    """``\\hat{\\mathbf{X}} = \\begin{bmatrix}…`` compiled by pdflatex: TeX sets the accent so high over the
    display's middle row that a reader by baselines finds it on a line of its own; it belongs to its letter,
    so the matrix is X̂ (learned from its figures: LN1), not X, and none of its figures is wrong."""
    path, f = post_ln
    LN1 = f["blocks"][0]["LN1"]
    rows = " \\\\\n".join(" & ".join(r4(v).replace(".", "{,}") for v in row) for row in LN1)
    (tmp_path / "t.tex").write_text(
        "\\documentclass[11pt]{article}\n\\usepackage{amsmath}\n\\begin{document}\\pagestyle{empty}\n"
        "\\section{Normirani ulaz}\nNakon normiranja retci su\n\\[\n\\" + accent + "{\\mathbf{X}} = "
        "\\begin{bmatrix}\n" + rows + "\n\\end{bmatrix}.\n\\]\n\\end{document}\n", encoding="utf-8")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=True)
    rs = check(tmp_path / "t.pdf", path)
    assert _wrong(rs) == []
    assert sum(r.verdict == "matched" and r.ref.startswith("LN1[") for r in rs) == 12


# ---------------------------------------------------------------- sentences and terms in other scripts

@pytest.mark.parametrize("stop, lang", [("।", "bn"), ("।", "hi"), ("۔", "ur")])
def test_a_full_stop_of_another_script_ends_a_sentence(tmp_path, post_ln, stop, lang):
    """'α₁₁ = 1। … exp(−0.0178) = 0.9824': Bengali's and Hindi's danda and Urdu's full stop end the sentence, so
    α₁₁ names nothing after them; exp(s) is exp of the score (before, α₁₁'s name ran on and called it A[0,0],
    wrong; the Urdu line was read right already: a guard)."""
    path, f = post_ln
    S = f["blocks"][0]["S"][1]
    words = {"bn": "দ্বিতীয় সারিতে", "hi": "दूसरी पंक्ति में", "ur": "دوسری قطار میں"}[lang]
    text = (f"α₁₁ = 1{stop} {words} exp({r4(S[0])}) = {r4(mp.exp(S[0]))}, exp({r4(S[1])}) = {r4(mp.exp(S[1]))}"
            f"{stop}\n")
    rs = _results(tmp_path, text, path)
    assert _wrong(rs) == []
    assert [r.ref for r in rs if r.number.text == r4(mp.exp(S[0]))] == ["exp(S[1,0])"]


@pytest.mark.parametrize("word", ["এবং", "और", "اور"])
def test_and_in_more_scripts_ends_a_vectors_clause(tmp_path, post_ln, word):
    """'a₁ = v₁ = (…) এবং a₂ = (…)': 'and' in Bengali, Hindi or Urdu ends the first clause, so the second vector
    is a₂ (the attention output at position 2), not v₁ again (wrong twice before, in Bengali; Hindi's and Urdu's
    were read already: guards)."""
    path, f = post_ln
    b = f["blocks"][0]
    v1, a2 = [r4(x) for x in b["V"][0]], [r4(x) for x in b["Attn"][1]]
    assert v1 != a2
    text = f"প্রথম দুটি: a₁ = v₁ = ({', '.join(v1)}) {word} a₂ = ({', '.join(a2)})।\n"
    assert _wrong(_results(tmp_path, text, path)) == []


def test_a_term_after_a_minus_is_no_sign_flip_of_its_entry(tmp_path, post_ln):
    """cos 2 printed 0.4161 in the table of PE is PE[2,1] with its sign flipped (wrong), but in
    'x₃ = (e + 0.9093, e − 0.4161)' the same digits are the entry's size after a binary minus: matched, not a second
    sign flip."""
    path, f = post_ln
    spec = oracle.load_spec(str(path))
    E, ids = oracle.mat(spec["weights"]["E"]), oracle.token_ids(spec, spec["data"]["input"])
    pe = [mp.sin(2), mp.cos(2)]
    e = E[ids[2]]
    assert pe[1] < 0
    h = [e[0] + pe[0], e[1] + pe[1]]
    PE = [[f(t / mp.mpf(10000) ** (2 * (j // 2) / mp.mpf(4))) for j, f in enumerate((mp.sin, mp.cos) * 2)]
          for t in range(3)]                                   # sin, cos at frequencies 1 and 1/100
    assert PE[2][:2] == pe
    cells = [[r4(v) for v in row] for row in PE]
    cells[2][1] = r4(-pe[1])
    table = "| pos | PE₀ | PE₁ | PE₂ | PE₃ |\n|---|---|---|---|---|\n" + \
        "".join(f"| {t} | " + " | ".join(cells[t]) + " |\n" for t in range(3))
    text = (f"{table}\n"
            f"x₃ = e + PE(2) = ({e[0]} + {r4(pe[0])}, {e[1]} − {r4(-pe[1])}, …) = ({r4(h[0])}, {r4(h[1])}, …)\n")
    assert _wrong(_results(tmp_path, text, path)) == [("PE[2,1]", r4(-pe[1]), "sign flip")]


# ---------------------------------------------------------------- percent signs, code defaults, the kind of step

SEED = Path(__file__).resolve().parent.parent / "derivations" / "tiny-transformer.toml"


@pytest.mark.parametrize("sign", ["％", "٪"])
def test_a_full_width_percent_sign(tmp_path, sign):
    """'正解の「你」は 26.4％ しかありません': the full-width (or Arabic) percent sign makes a percentage, p[你] as a
    share, not a decimal 26.4 read as p with its point moved (wrong before; the Arabic sign was read: a guard)."""
    f = oracle.transformer_forward(oracle.load_spec(str(SEED)))
    v = 4                                                   # 你's id in the seed's vocabulary
    pct = r4(f["p"][v] * 100, 1)
    text = f"モデルは「你」に {pct}{sign} しか与えていません。\n"
    rs = _results(tmp_path, text, SEED)
    assert _wrong(rs) == []
    assert [(r.ref, r.number.kind) for r in rs] == [("p[你]", "percent")]


def test_a_default_in_a_python_signature_is_no_claim(tmp_path):
    """``def grad_numerico(pesos, eps=1e-6):`` in a notebook's code: the default is the code's, not the LayerNorm ε
    of the model (1e-5) with its point moved (wrong before)."""
    text = "```python\ndef grad_numerico(pesos, eps=1e-6):\n    return pesos\n```\n"
    assert _wrong(_results(tmp_path, text, SEED)) == []


def test_the_loss_after_updating_only_the_targets_row(tmp_path):
    """The seed's tied head: one step on the target's embedding row only (η = 0.1), then L′ = −ln p′: L′ is
    head_step.loss, matched, though a loss after 'the step' reads as SGD's at first (wrong before).  Worked out
    here: g = (p_你 − 1)·h_final, E′_你 = E_你 − η g, only 你's logit moves."""
    spec = oracle.load_spec(str(SEED))
    f = oracle.transformer_forward(spec)
    v, lr = 4, mp.mpf("0.1")
    E = oracle.mat(spec["weights"]["E"])
    g = [(f["p"][v] - 1) * h for h in f["h_final"]]
    row = [e - lr * x for e, x in zip(E[v], g)]
    logits = list(f["logits"])
    logits[v] = mp.fsum(h * e for h, e in zip(f["h_final"], row))
    p = oracle.softmax(logits)
    loss = -mp.log(p[v])
    text = (f"## 7. One step on 你's row, η = 0.1\n\nOnly 你's logit moves, to {r4(logits[v], 3)}; the new "
            f"probability is {r4(p[v])}, and the loss after the step is\n\n"
            f"$$\n\\mathcal{{L}}' = -\\ln {r4(p[v])} = {r4(loss, 3)}\n$$\n")
    rs = _results(tmp_path, text, SEED)
    assert _wrong(rs) == []
    assert [r.ref for r in rs if r.number.text == r4(loss, 3)] == ["head_step.loss"]


@pytest.mark.parametrize("bar", [" / ", "/"])
def test_a_derivative_spelled_with_spaces_round_its_bar(tmp_path, bar):
    """'- $\\partial L / \\partial z_{\\text{пьёт}} = 0.1234$' in a list, one line per word: ∂L / ∂z with spaces
    round its bar is ∂L/∂z, the gradient at the logits; the target's entry printed as p (−y forgotten) is
    grad_z[пьёт], wrong, not matched to p[пьёт] (the spaced spelling was unread before; the tight one is a
    guard)."""
    from test_check_readings import SPEC, VOCAB, Y, forward
    spec = oracle.loads_spec(SPEC)
    f = forward(oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"]))
    path = write_spec(tmp_path, SPEC)
    lines = [f"- $\\partial L{bar}\\partial z_{{\\text{{{t}}}}} = {r4(f['p'][j])}$" for j, t in enumerate(VOCAB)]
    text = "So $\\partial L / \\partial z = p - y$:\n\n" + "\n".join(lines) + "\n"
    assert _wrong(_results(tmp_path, text, path)) == [(f"grad_z[{VOCAB[Y]}]", r4(f["p"][Y]), "forgotten −y")]
