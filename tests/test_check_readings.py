"""check reads what other authors write, each reading on a text written here in more than one language:

* decimal commas (``ŷ₂ = 0,1234``, ``3,38%``, ``2,6627·10⁻⁴``), without touching index pairs (``W[0,1]``);
* a grid table (``+---+``) with a row per training step and a column per parameter entry (``W₁₂``);
* a matrix named on its first row (``∇_W ℒ = i=1 [ … ]``) under a header of tokens;
* lead-ins ``[W₂₃]`` / ``[E(кот)₂]`` whose AdamW blocks count indices from 1 (learned, not assumed);
* a ranking (rank, token, p, ``p / 0.7074``) keyed by its token cells, the formula column read as top-k;
* an SGD step worked from the value after the first step (``W₁₂ : 0.4580 − 0.5·g = …``);
* a quoted token's share in prose, and constants (``ln 5 ≈ 1.6094``, ``√(2/π) = 0.7979``) that are no quantity.

Every expected value is computed here with mpmath from the spec's weights (a bigram, its SGD and AdamW steps
written out below), never by symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4

SPEC = """
title = "test"
[model]
kind = "bigram"
vocab = ["кот", "ест", "рыбу", "пьёт", "спит"]
d = 2
[data]
input = ["кот"]
target = "пьёт"
[weights]
E = [[0.6, -0.3], [0.1, 0.4], [-0.2, 0.5], [0.3, 0.2], [0.4, -0.1]]
W = [[0.4, -0.1, 0.3, 0.2, -0.5], [-0.2, 0.5, 0.1, 0.7, 0.3]]
[sampling]
temperatures = ["0.5", "1", "2"]
top_k = 3
top_p = 0.8
[training]
lr = 0.5
steps = 3
[training.adamw]
lr = 0.01
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
weight_decay = 0.01
"""
VOCAB = ["кот", "ест", "рыбу", "пьёт", "спит"]
X, Y = 0, 3                       # input кот, target пьёт


def forward(E, W):
    """x, z, p, loss and the gradients of W and E's input row, at 50 digits."""
    x = E[X]
    z = [sum(x[i] * W[i][j] for i in range(2)) for j in range(5)]
    m = max(z)
    e = [mp.exp(v - m) for v in z]
    p = [v / sum(e) for v in e]
    g = [p[j] - (1 if j == Y else 0) for j in range(5)]
    gW = [[x[i] * g[j] for j in range(5)] for i in range(2)]
    gx = [sum(W[i][j] * g[j] for j in range(5)) for i in range(2)]
    return dict(z=z, p=p, loss=-mp.log(p[Y]), gW=gW, gx=gx)


@pytest.fixture(scope="module")
def run():
    """The model, its three SGD steps and one AdamW step, by hand (:func:`by_hand`)."""
    yield from by_hand()


def by_hand():
    """The model, its three SGD steps (lr 0.5) and one AdamW step, by hand (at 50 digits while a module's
    tests run; the global precision is given back after them)."""
    before, mp.mp.dps = mp.mp.dps, 50
    spec = oracle.loads_spec(SPEC)
    E0, W0 = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    states = [(E0, W0)]
    for _ in range(3):
        E, W = states[-1]
        f = forward(E, W)
        W = [[W[i][j] - mp.mpf("0.5") * f["gW"][i][j] for j in range(5)] for i in range(2)]
        E = [[E[r][i] - (mp.mpf("0.5") * f["gx"][i] if r == X else 0) for i in range(2)] for r in range(5)]
        states.append((E, W))
    f0 = forward(E0, W0)
    lr, b1, b2, eps, lam = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))

    def adamw(theta, g):
        m, v = (1 - b1) * g, (1 - b2) * g * g
        mhat, vhat = m / (1 - b1), v / (1 - b2)
        update = lr * mhat / (mp.sqrt(vhat) + eps)
        return dict(m=m, v=v, mhat=mhat, vhat=vhat, update=update, decay=lr * lam * theta,
                    new=theta - lr * lam * theta - update)
    yield dict(states=states, f=[forward(*s) for s in states], f0=f0, adamw=adamw)
    mp.mp.dps = before


def _wrong(tmp_path, text, name="doc.txt"):
    return _wrong_of(tmp_path, text, write_spec(tmp_path, SPEC), name)


def _wrong_of(tmp_path, text, spec, name="doc.md"):
    """(quantity, figure as printed) of every figure check calls wrong in the text, on the spec."""
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return [(r.ref, r.number.printed or r.number.text) for r in check(doc, spec) if r.verdict == "wrong"]


def comma(s: str) -> str:
    return s.replace(".", ",")


# ---------------------------------------------------------------- decimal commas

@pytest.mark.parametrize("lang", ["ru", "de"])
def test_decimal_commas_are_read_and_reported_as_printed(tmp_path, run, lang):
    """In a text with decimal commas a swapped digit is p's, and a percent slip is the temperature's p."""
    f = run["f0"]
    p = f["p"]
    good, bad = r4(p[0]), r4(p[2])
    swapped = bad[:-2] + bad[-1] + bad[-2]
    assert swapped != bad
    z = [v / mp.mpf("0.5") for v in f["z"]]
    pt = [mp.exp(v) / sum(mp.exp(w) for w in z) for v in z]
    slip = f"{mp.nstr(pt[4] * 10, 3, strip_zeros=False)}"          # ×10 for ×100
    words = {"ru": ("Вероятность", "При T = 0,5 на слово «спит» приходится уже"),
             "de": ("Die Wahrscheinlichkeit", "Bei T = 0,5 entfällt auf «спит» nur")}[lang]
    text = (f"{words[0]}: ŷ₁ = {comma(good)}, ŷ₃ = {comma(swapped)}.\n\n"
            f"{words[1]} {comma(slip)}% вероятности.\n")
    assert _wrong(tmp_path, text) == [("p[рыбу]", comma(swapped)), ("softmax_T(0.5, спит)", comma(slip) + "%")]


def test_an_index_pair_is_no_decimal_comma(tmp_path, run):
    """`W[0,3]` and `(1,2)` stay indices in a text of decimal commas: W's entry is read, not the figure 0.3."""
    g = run["f0"]["gW"]
    text = (f"Градиент: ∂L/∂W[0,3] = {comma(r4(g[0][3]))}, а ∂L/∂W[1,3] = {comma(r4(-g[1][3]))}.\n"
            f"Сумма 0,1234 + 0,0001 не важна.\n")
    assert _wrong(tmp_path, text) == [("grad_W[1,пьёт]", comma(r4(-g[1][3])))]


# ---------------------------------------------------------------- tables

def test_a_grid_table_of_steps_and_entries(tmp_path, run):
    """| k | ℒ | W₁₄ | W₂₄ | over +---+ rules: row k is the model after k steps; a wrong W₁₄ at k = 2 is
    sgd[2].W[0,3]'s, counted from 1 as the column says."""
    rows = []
    for k, ((E, W), f) in enumerate(zip(run["states"], run["f"])):
        w14 = r4(W[0][3]) if k != 2 else r4(W[0][3] + mp.mpf("0.01"))
        rows.append(f"    | {k} | {r4(f['loss'])} | {w14} | {r4(W[1][3])} |")
    rule = "    +---+--------+--------+--------+"
    text = "\n".join(["Таблица шагов SGD:", "", rule, "    | k |   ℒ    |  W₁₄   |  W₂₄   |", rule, *rows, rule, ""])
    bad = r4(run["states"][2][1][0][3] + mp.mpf("0.01"))
    assert _wrong(tmp_path, text) == [("sgd[2].W[0,пьёт]", bad)]


@pytest.mark.parametrize("name", ["∇_W ℒ", "dW"])
def test_a_matrix_named_on_its_first_row(tmp_path, run, name):
    """A matrix whose name and first row label share a line (``∇_W ℒ = i=1 [ …``) under a header of tokens:
    a sign flip in row i = 2 is grad_W[1, ·]'s."""
    g = run["f0"]["gW"]
    first = "   ".join(f"{r4(v):>7}" for v in g[0])
    second = [r4(v) for v in g[1]]
    second[3] = r4(-g[1][3])
    pad = " " * (len(name) + 3)
    text = "\n".join(["", "        " + pad + "     ".join(VOCAB),
                      f"    {name} = i=1 [ {first} ]",
                      f"    {pad}i=2 [ " + "   ".join(f"{v:>7}" for v in second) + " ]", ""])
    assert _wrong(tmp_path, text) == [("grad_W[1,пьёт]", second[3])]


@pytest.mark.parametrize("head", ["順位   トークン    p        p / {mass}", "rank   word     p        p / {mass}"])
def test_a_ranking_keyed_by_its_token_cells(tmp_path, run, head):
    """Rows ranked by p (rank, token, p, p / mass): the renormalised column is top-k's, the row's token its key."""
    p = run["f0"]["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    mass = sum(p[j] for j in order[:3])
    rows = []
    for r, j in enumerate(order):
        q = r4(p[j] / mass) if r < 3 else "0"
        if r == 2:
            q = r4(p[j] / mass + mp.mpf("0.0003"))
            bad = (f"topk(3, {VOCAB[j]})", q)
        rows.append(f"   {r + 1}     {VOCAB[j]:<6}   {r4(p[j])}     {q}")
    text = "\n".join(["(2) top-k (k = 3)", "", "  " + head.format(mass=r4(mass)), *rows, ""])
    assert _wrong(tmp_path, text) == [bad]


# ---------------------------------------------------------------- lead-ins and steps

def test_adamw_blocks_under_lead_ins_counted_from_1(tmp_path, run):
    """[W₁₄], [W₂₄], [E(кот)₂]: each block's m, v, m̂, v̂, Δ, ηλθ, θ' are that entry's (indices from 1, which
    the figures show); a wrong Δ in the second block is adamw[1].update[W,1,3]; the third block is E's."""
    f = run["f0"]
    blocks, bad = [], None
    for tag, theta, g in (("W₁₄", mp.mpf("0.2"), f["gW"][0][3]), ("W₂₄", mp.mpf("0.7"), f["gW"][1][3]),
                          ("E(кот)₂", mp.mpf("-0.3"), f["gx"][1])):
        a = run["adamw"](theta, g)
        step = r4(a["update"], 6)
        if tag == "W₂₄":
            step = bad = r4(a["update"] * mp.sqrt(10), 6)
        blocks += [f"[{tag}]  θ = {mp.nstr(theta, 2)}, g = {r4(g, 6)}",
                   f"  m   = {r4(a['m'], 6)}", f"  v   = {mp.nstr(a['v'], 5, min_fixed=-10, max_fixed=-10)}",
                   f"  m̂   = {r4(a['mhat'], 6)}", f"  v̂   = {r4(a['vhat'], 6)}",
                   f"  Δ   = {step}", f"  ηλθ = {mp.nstr(a['decay'], 2, min_fixed=-10, max_fixed=-10)}",
                   f"  θ'  = {r4(a['new'], 6)}", ""]
    text = "\n".join(["AdamW, один шаг (η = 0.01, λ = 0.01)", "", *blocks])
    assert _wrong(tmp_path, text) == [("adamw[1].update[W,1,3]", bad)]


def test_a_second_sgd_step_worked_from_the_first(tmp_path, run):
    """'∂L/∂W₁₄ = g₂' in a section on the second step is the gradient after one step; 'W₁₄ : w₁ − 0.5·g₂ = w₂'
    gives W after two steps, so a slip there is sgd[2].W[0,3]'s."""
    w1, w2 = run["states"][1][1][0][3], run["states"][2][1][0][3]
    g1 = run["f"][1]["gW"][0][3]
    g0 = run["f0"]["gW"][0][3]
    w0 = run["states"][0][1][0][3]
    bad = r4(w2 + mp.mpf("0.002"))
    text = "\n".join([
        "5. Градиентный спуск (SGD)", "", "5.1. Первый шаг", "",
        f"    W₁₄ :  {mp.nstr(w0, 2)} − 0.5·({r4(g0)}) = {r4(w1)}",
        f"    W₂₄ :  0.7 − 0.5·({r4(run['f0']['gW'][1][3])}) = {r4(run['states'][1][1][1][3])}", "",
        "5.2. Второй шаг для W₁₄", "",
        f"Градиент в новой точке: ∂L/∂W₁₄ = {r4(g1)}, поэтому", "",
        f"    W₁₄ : {r4(w1)} − 0.5·({r4(g1)}) = {bad}", ""])
    assert _wrong(tmp_path, text) == [("sgd[2].W[0,пьёт]", bad)]


# ---------------------------------------------------------------- prose

@pytest.mark.parametrize("sentence, j", [("지금 모델에서 “스핏”이 아니라 “спит”에 {x}%가 갑니다.", 4),
                                         ("Le mot «спит» reçoit à peine {x}% ici.", 4),
                                         ("La palabra correcta, пьёт, recibe apenas un {x} % de la probabilidad.", 3),
                                         ("The right word, `пьёт`, gets only {x} % of the mass.", 3)])
def test_a_token_share_in_prose(tmp_path, run, sentence, j):
    """A percentage a few words after a token in quotes, or after a token set off by commas, is that token's p
    (a percent slip is p's)."""
    x = mp.nstr(run["f0"]["p"][j] * 10, 4, strip_zeros=False)
    assert _wrong(tmp_path, sentence.format(x=x) + "\n") == [(f"p[{VOCAB[j]}]", x + "%")]


@pytest.mark.parametrize("text", ["참고로 균등 분포였다면 ln 5 ≈ 1.6094 이니, 모델이 더 낫습니다.",
                                  "Zum Vergleich: gleichverteilt wäre der Verlust ln 5 ≈ 1.6094.",
                                  "GELU: √(2/π) = 0.7979 를 곱하면 1.1029, tanh(1.1029) = 0.8015."])
def test_constants_are_no_quantity(tmp_path, text):
    """ln 5 and √(2/π), and the arithmetic after them, are no figure of the model to call wrong."""
    assert _wrong(tmp_path, text + "\n") == []


@pytest.mark.parametrize("words", ['After top-3 filtering "рыбу" is drawn with probability {x}.',
                                   'Nach dem Top-3-Filter wird „рыбу“ mit {x} gezogen.'])
def test_a_top_k_sentence_reads_the_renormalised_p(tmp_path, run, words):
    """A token's probability in a sentence about top-k filtering is the renormalised one, even where it prints p
    itself (the renormalisation forgotten)."""
    x = r4(run["f0"]["p"][2])
    assert _wrong(tmp_path, words.format(x=x) + "\n") == [("topk(3, рыбу)", x)]


def test_a_latex_delta_defined_as_the_logits_gradient(tmp_path, run):
    """``$$\\delta_v = \\frac{\\partial \\mathcal{L}}{\\partial z_v} = p_v - y_v$$`` and a row ``$\\delta_v$``: the
    target's p printed there (the −1 forgotten) is grad_z's."""
    f = run["f0"]
    cells = [r4(f["p"][j] - (1 if j == Y else 0)) for j in range(5)]
    cells[Y] = r4(f["p"][Y])
    text = "\n".join([r"$$\delta_v = \frac{\partial \mathcal{L}}{\partial z_v} = p_v - y_v \tag{4}$$", "",
                      "| | " + " | ".join(f"`{v}`" for v in VOCAB) + " |", "| --- |" + " ---: |" * 5,
                      r"| $\delta_v$ | " + " | ".join(cells) + " |", ""])
    assert _wrong(tmp_path, text, "doc.md") == [("grad_z[пьёт]", cells[Y])]


def heads_spec(tmp_path_factory):
    """A one-layer, two-head transformer (tests/oracle.py's random spec, seed 5) and its forward pass."""
    path = write_spec(tmp_path_factory.mktemp("heads"),
                      oracle.random_spec_toml(seed=5, V=5, d=4, heads=2, d_ff=4, layers=1, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


@pytest.mark.parametrize("corner", ["cabeça 0", "head 0", "Kopf 0"])
def test_a_head_named_in_the_corner_of_its_score_table(tmp_path, two_heads, corner):
    """| cabeça 0 | s = 0 | … | over rows t = …: head 0's scores; a transposed entry is S[0,t,s]'s, wrong."""
    path, f = two_heads
    S = f["S"][0]
    rows = []
    for t in range(3):
        cells = [r4(S[t][s]) for s in range(3)]
        if t == 0:
            cells[2] = r4(S[2][0])                      # the value of row 2, column 0
        rows.append(f"| t = {t} | " + " | ".join(cells) + " |")
    text = "\n".join([f"| {corner} | s = 0 | s = 1 | s = 2 |", "| --- | ---: | ---: | ---: |", *rows, ""])
    assert _wrong_of(tmp_path, text, path) == [("S[0,0,2]", r4(S[2][0]))]


@pytest.mark.parametrize("text", ["A cabeça 2 dá {a}% da atenção para “t4”, {b}% para “t2” e {c}% para ela mesma.",
                                  "Head 2 gives {a}% of its attention to “t4”, {b}% to “t2” and {c}% to itself."])
def test_attention_shares_in_prose_with_itself(tmp_path, two_heads, text):
    """The last query's shares in prose (heads counted from 1, as a text without a head 0 counts them): “t4” is
    key 0, “t2” stands twice in the input (no one position), and 'itself' is the query's own position; a percent
    slip on key 0 is A[1,2,0]'s. Input: t4 t2 t2."""
    path, f = two_heads
    A = f["A"][1][2]
    a = mp.nstr(A[0] * 10, 4, strip_zeros=False)         # a percent slip
    line = text.format(a=a, b=f"{mp.nstr(A[1] * 100, 4, strip_zeros=False)}",
                       c=f"{mp.nstr(A[2] * 100, 4, strip_zeros=False)}")
    assert _wrong_of(tmp_path, line + "\n", path) == [("A[1,2,0]", a + "%")]


def test_a_vector_named_after_its_arithmetic(tmp_path, two_heads):
    """'For the last position: o₂ = 0.33·v₀ + … = (…)': the literal is o₂, the attention output's row 2 (a
    sign flipped in its first entry is wrong), not 'position'."""
    path, f = two_heads
    O = f["Attn"][2]
    A = f["A"][0][2]
    cells = [r4(v) for v in O]
    cells[0] = r4(-O[0])
    text = (f"For the last position: o₂ = {r4(A[0])}·v₀ + {r4(A[1])}·v₁ + {r4(A[2])}·v₂ = "
            f"({', '.join(cells)}).\n")
    assert _wrong_of(tmp_path, text, path) == [("Attn[2,0]", cells[0])]


def test_a_quoted_token_closing_the_clause_before_a_spaced_decimal_comma_percent(tmp_path, run):
    """'… preferisce «спит», a cui va il 8,95 % della massa': the quoted token of the clause before is the
    share's (not a word of the sentence), and the figure is reported as printed, space and comma kept."""
    x = comma(mp.nstr(run["f0"]["p"][4] * 10, 3, strip_zeros=False))
    text = f"Il modello preferisce «спит», a cui va il {x} % della massa (con 0,5 di temperatura no).\n"
    assert _wrong(tmp_path, text) == [("p[спит]", f"{x} %")]


@pytest.mark.parametrize("text", ["Nella testa 2, guardando dalla posizione 3,\n“t4” riceve solo il {a}% "
                                  "dell'attenzione.",
                                  "In head 2, looking from the third position,\n“t4” gets only {a}% of the attention."])
def test_a_head_named_on_the_line_above_the_share(tmp_path, two_heads, text):
    """A sentence that names the head on one line and prints the share on the next: the head is the paragraph's."""
    path, f = two_heads
    a = mp.nstr(f["A"][1][2][0] * 10, 4, strip_zeros=False)
    assert _wrong_of(tmp_path, text.format(a=a) + "\n", path) == [("A[1,2,0]", a + "%")]
