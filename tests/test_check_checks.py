"""check: gradient checks, later optimizer steps, layers and final norms said without their marks, and Markdown's
own marks (issue 27), on texts written for these tests.  Every expected value is computed here (mpmath in the
test, 50 digits, through ``test_check_readings``'s hand computation, ``tests/oracle.py`` or
``test_check_sections``' pre-norm forward), never taken from symgpt.

* A gradient check's two losses L(θ ± h) and its moved entry θ ± h are quantities (``loss_at(W[0,2], 1e-3)``),
  read only beside words that move the entry by h.
* A second AdamW step under a numbered title that names the entry (``VI. DEUX PAS D'ADAMW SUR W(1, пьёт)``):
  its gradient is the gradient after the first step, its moments step 2's; a table row 'après 2 pas' is the
  model after two steps, and a remark beside it ('(p(пьёт) = …)') names its own figure.
* Markdown's bold and inline code around an equation's figure (```σ₂²` ≈ **0,0564**``) are no part of it.
* A share column headed ``p (%) pada T = 2`` is the temperature's, in percent.
* ``s^{(1)}_{3,2}`` of a two-layer model is layer 1's score, even where only one of its figures agrees.
* The final norm's statistics written μ_f and σ_f² without a position are the last position's.
* ``∂L/∂l`` with a plain l, and a LaTeX ``\\frac{∂L}{∂ℓ} \\approx`` over the vector on the next line, name the logits'
  gradient; an update and a decay said in words ('bước cập nhật', 'suy giảm') under a title naming the entry.
"""
from __future__ import annotations

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand, forward
from test_check_sections import _prenorm_norms
from test_check_shares import _results, _wrong

CHECKED = SPEC.replace("steps = 3\n", 'steps = 3\ngradcheck = { h = 1e-3, params = ["W[0,3]"] }\n')
LR, B1, B2, EPS, LAM = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def c(x, k=4) -> str:
    """A figure with a decimal comma and a Unicode minus."""
    return r4(x, k).replace(".", ",").replace("-", "−")


def test_a_gradient_checks_losses_and_moved_entry(tmp_path, run):
    """'IV. VÉRIFICATION PAR DIFFÉRENCES CENTRÉES': W[1][4] = 0,201 puis 0,199, L+ and L− at six decimals, and the
    quotient: every figure right, the losses L(θ ± h) and the moved entry matched (not W[0,пьёт] wrong by one)."""
    E, W = run["states"][0]
    losses = []
    for s in (1, -1):
        moved = [row[:] for row in W]
        moved[0][Y] += s * mp.mpf("0.001")
        losses.append(forward(E, moved)["loss"])
    q = (mp.mpf(r4(losses[0], 6)) - mp.mpf(r4(losses[1], 6))) / mp.mpf("0.002")
    text = ("IV. VÉRIFICATION PAR DIFFÉRENCES CENTRÉES\n" + "-" * 60 + "\n\n"
            "On vérifie W[1][4] = 0,2 avec h = 0,001.\n\n"
            "a) On refait la passe avant avec W[1][4] = 0,201 puis 0,199 :\n"
            f"      L+ = perte(W[1][4] + h) = {c(losses[0], 6)}\n"
            f"      L− = perte(W[1][4] − h) = {c(losses[1], 6)}\n\n"
            f"b) Quotient : (L+ − L−) / (2h) = {c(q, 4)}\n")
    rs = _results(tmp_path, text, write_spec(tmp_path, CHECKED), "doc.txt")
    assert _wrong(rs) == []
    assert {r.ref for r in rs if r.verdict == "matched"} >= \
        {"loss_at(W[0,3], 1e-3)", "loss_at(W[0,3], -1e-3)", "W[0,3] + (1e-3)", "W[0,3] + (-1e-3)"}


def test_a_loss_is_no_check_loss_where_nothing_moves(tmp_path, run):
    """In a text with a gradient check, the loss of the forward pass truncated (L(θ + h) rounds to it) is the
    loss, wrong, 'truncation': the check's losses are read only beside words that move the entry.  (A guard: the
    code before loss_at had no such candidate to confuse it with.)"""
    loss = run["f0"]["loss"]
    cut = mp.floor(loss * 10 ** 5) / 10 ** 5
    assert r4(cut, 5) != r4(loss, 5)
    text = (f"## 2. Loss\n\nL = −ln p = {r4(cut, 5)}\n\n## 4. Finite differences\n\nWith h = 0.001 we check "
            "W[1][4].\n")
    assert _wrong(_results(tmp_path, text, write_spec(tmp_path, CHECKED), "doc.md")) == \
        [("loss", r4(cut, 5), "truncation")]


def _adamw_twice(run):
    """Two AdamW steps of the whole bigram (every parameter, decoupled decay), by hand: W[0,пьёт]'s gradients,
    moments and values, and the loss and p(пьёт) after the second step."""
    E, W = ([row[:] for row in M] for M in run["states"][0])
    zero = mp.mpf(0)
    mE, vE = [[zero] * 2 for _ in range(5)], [[zero] * 2 for _ in range(5)]
    mW, vW = [[zero] * 5 for _ in range(2)], [[zero] * 5 for _ in range(2)]
    seen = []
    for t in (1, 2):
        f = forward(E, W)
        gE = [[f["gx"][i] if r == X else zero for i in range(2)] for r in range(5)]
        for P, G, M, V in ((W, f["gW"], mW, vW), (E, gE, mE, vE)):
            for i in range(len(P)):
                for j in range(len(P[0])):
                    M[i][j] = B1 * M[i][j] + (1 - B1) * G[i][j]
                    V[i][j] = B2 * V[i][j] + (1 - B2) * G[i][j] ** 2
                    mhat, vhat = M[i][j] / (1 - B1 ** t), V[i][j] / (1 - B2 ** t)
                    if P is W and (i, j) == (0, Y):
                        seen.append(dict(g=G[i][j], m=M[i][j], v=V[i][j], mhat=mhat, vhat=vhat,
                                         update=LR * mhat / (mp.sqrt(vhat) + EPS), theta=P[i][j]))
                    P[i][j] = P[i][j] - LR * LAM * P[i][j] - LR * mhat / (mp.sqrt(vhat) + EPS)
    f = forward(E, W)
    return seen, f["loss"], f["p"][Y]


def test_a_second_adamw_step_under_a_title_that_names_the_entry(tmp_path, run):
    """Under 'VI. DEUX PAS D'ADAMW SUR W(1, пьёт)' (a numbered title over a page-wide rule): step 2's gradient,
    m₂, v₂, m̂₂ and v̂₂ are right; the table's row 'après 2 pas AdamW' with log₁₀ for ln is adamw[2].loss, wrong,
    and the remark '(p(пьёт) = …)' beside it is p after two steps, right."""
    (s1, s2), loss2, p2 = _adamw_twice(run)
    log10 = -mp.log10(p2)
    text = ("VI. DEUX PAS D'ADAMW SUR W(1, пьёт)\n" + "-" * 74 + "\n\n"
            f"a) Pas 1 (t = 1), g = {c(s1['g'], 6)}\n\n"
            f"b) Pas 2 (t = 2) : le nouveau gradient est g = {c(s2['g'], 6)}.\n\n"
            f"      moment d'ordre 1    m2  = {c(s2['m'], 6)}\n"
            f"      moment d'ordre 2    v2  = {c(s2['v'], 8)}\n"
            f"      corrigés            m̂2  = {c(s2['mhat'], 6)}\n"
            f"                          v̂2  = {c(s2['vhat'], 6)}\n\n"
            "c) Bilan :\n\n"
            "      étape                    perte\n"
            "      -------------------------------\n"
            f"      après 2 pas AdamW        {c(log10)}   (p(пьёт) = {c(p2)})\n")
    assert r4(log10) != r4(loss2)
    rs = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")
    assert [w[:2] for w in _wrong(rs)] == [("adamw[2].loss", c(log10))]
    assert _wrong(rs)[0][2] == "log₁₀ for ln"
    matched = {r.ref for r in rs if r.verdict == "matched"}
    assert {"adamw[1].grad_W[0,пьёт]", "adamw[2].m[W,0,3]", "adamw[2].vhat[W,0,3]", "adamw[2].p[пьёт]"} <= matched


def test_markdown_marks_around_an_equations_figure(tmp_path, seed1_prenorm):
    """'- rata-rata: `μ₂` = **…**' with its last digit slipped and '- varians: `σ₂²` ≈ **…**': μ is mu1[1], wrong;
    σ² right (the bold and the code marks are no part of either)."""
    path, blocks = seed1_prenorm
    mu, var = blocks["mu1"][1], blocks["var1"][1]
    slip = mp.mpf(r4(mu)) + mp.mpf("0.0001") * (1 if r4(mu)[-1] != "9" else -1)
    text = (f"## Langkah 6 — LayerNorm\n\nPosisi 2:\n\n- rata-rata: `μ₂` = **{c(slip)}**\n"
            f"- varians: `σ₂²` ≈ **{c(var)}**\n- rata-rata lagi: `μ₁` = **{c(blocks['mu1'][0])}**\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text, path, "doc.md"))] == [("mu1[1]", c(slip))]


@pytest.fixture(scope="module")
def seed1_prenorm(tmp_path_factory):
    """tests/oracle.py's seed-1 post-LN block (input t1 t4 t0): path and its block's statistics."""
    toml = oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=4, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("seed1"), toml)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


def test_a_share_column_at_a_temperature_in_percent(tmp_path, run):
    """Columns 'p (%) pada T = 1' and 'p (%) pada T = 2', cells without a % sign: the T = 2 cell copied from the
    row above is softmax_T(2, рыбу), wrong (not the neighbour's share matched)."""
    z = run["f0"]["z"]
    soft = {t: [mp.exp(v / t) / sum(mp.exp(w / t) for w in z) for v in z] for t in (1, 2)}
    rows = []
    for j, w in enumerate(VOCAB):
        t2 = soft[2][j - 1] if j == 2 else soft[2][j]
        rows.append(f"| {w} | {r4(soft[1][j] * 100, 2)} | {r4(t2 * 100, 2)} |")
    assert r4(soft[2][1] * 100, 2) != r4(soft[2][2] * 100, 2)
    text = "## Langkah 9 — Suhu\n\n| token | p (%) pada T = 1 | p (%) pada T = 2 |\n|---|---:|---:|\n" + \
        "\n".join(rows) + "\n"
    assert [w[0] for w in _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md"))] == \
        [f"softmax_T(2, {VOCAB[2]})"]


@pytest.fixture(scope="module")
def prenorm(tmp_path_factory):
    """A two-layer pre-norm model (seed 61, as test_check_sections'): path, spec, layer 1's scaled scores, and
    the final norm's μ and σ² at the last position."""
    text = oracle.random_spec_toml(seed=61, V=5, d=4, heads=1, d_ff=4, layers=2, T=3, norm="pre")
    path = write_spec(tmp_path_factory.mktemp("prenorm"), text)
    spec = oracle.load_spec(str(path))
    _, final, _ = _prenorm_norms(spec)
    m, w = spec["model"], spec["weights"]
    with mp.workdps(50):
        ids = oracle.token_ids(spec, spec["data"]["input"])
        E = oracle.mat(w["E"])
        H = oracle.add([E[i] for i in ids], oracle.positional_encoding(len(ids), int(m["d"]), 10000))
        P = oracle.layer_weights(spec["layer"][0], int(m["d"]))
        L1, _, _ = oracle.layer_norm_rows(H, P["gamma1"], P["beta1"], oracle.num(m["ln_eps"]))
        Q, K = oracle.matmul(L1, P["W_Q"]), oracle.matmul(L1, P["W_K"])
        S = [[mp.fdot(Q[t], K[s]) / 2 for s in range(3)] for t in range(3)]
    return path, S, final


def test_a_layers_score_written_with_its_superscript(tmp_path, prenorm):
    """'s^{(1)}_{3,1} = …' right and 's^{(1)}_{3,2} = …' printed with s^{(1)}_{2,3}'s value: layer 1's S[2,1],
    wrong, 'transposed index' (one figure of two agreeing names the layer)."""
    path, S, _ = prenorm
    assert r4(S[1][2]) != r4(S[2][1])
    text = (f"## 3. 第1層のスコア\n\n$s^{{(1)}}_{{3,1}} = {r4(S[2][0])}$ です。同様に "
            f"$s^{{(1)}}_{{3,2}} = {r4(S[1][2])}$ となります。\n")
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == [("l0.S[2,1]", r4(S[1][2]), "transposed index")]


def test_the_final_norms_statistics_without_a_position(tmp_path, prenorm):
    """'$\\mathbf{h}^{(2)}_3$ の平均は $\\mu_f = …$、分散は $\\sigma_f^2 = …$' with σ_f² truncated: var_f[2], the last
    position's, wrong (the layer's superscript on h names no layer of μ_f).  (A guard: here the value finds it
    too; in the notebook of round 28 the name had to.)"""
    path, _, (mu_f, var_f) = prenorm
    cut = mp.floor(var_f * 10 ** 5) / 10 ** 5
    assert r4(cut, 5) != r4(var_f, 5)
    text = (f"## 6. 最後の LayerNorm\n\n$\\mathbf{{h}}^{{(2)}}_3$ の平均は $\\mu_f = {r4(mu_f)}$、分散は "
            f"$\\sigma_f^2 = {r4(cut, 5)}$ です。\n")
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == [("var_f[2]", r4(cut, 5), "truncation")]


@pytest.mark.parametrize("fmt", ["txt", "tex"])
def test_the_logits_gradient_with_its_target_entry_printed_as_p(tmp_path, run, fmt):
    """'∂L/∂l ≈ [p; p; p; p; p]' (a plain l for ℓ), or '\\frac{∂L}{∂ℓ} \\approx' over the vector on the next line
    of a LaTeX equation: the target's entry printed as its probability is grad_z[пьёт], wrong, 'forgotten −y'."""
    p = run["f0"]["p"]
    g = [p[j] - (1 if j == Y else 0) for j in range(5)]
    shown = [c(p[j] if j == Y else g[j]) for j in range(5)]
    if fmt == "txt":
        text = "Aufgabe 8: Gradient an den Logits\n---------------------------------\n\n        ∂L/∂l ≈ [" + \
            "; ".join(shown) + "]\n"
    else:
        text = ("\\subsection{El gradiente}\n\\begin{equation}\n  \\frac{\\partial \\mathcal{L}}{\\partial \\ell} "
                "\\approx\n  (" + ";\\ ".join(s.replace(",", "{,}") for s in shown) + ").\n\\end{equation}\n")
    wrong = _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), f"doc.{fmt}"))
    assert [(w[1], w[2]) for w in wrong] == [(shown[Y], "forgotten −y")] and wrong[0][0].endswith(f"[{VOCAB[Y]}]")


def test_an_update_said_in_words_under_a_title_naming_the_entry(tmp_path, run):
    """Vietnamese, under '### 5.1. Phần tử W_{1,пьёт} (θ = 0,2; g = …)': θ alone is the entry, 'bước cập nhật =
    0,01 × m̂ / √v̂ = …' its AdamW update (not a name in the phrase's last word, nor the learning rate with its
    sign flipped) and 'suy giảm trọng số: …' its decay: every figure right.  (A guard: in this short text the
    moments' lead-in settles it already; round 29's page needed the words.)"""
    a = run["adamw"](mp.mpf("0.2"), run["f0"]["gW"][0][Y])
    root = mp.sqrt(a["vhat"])
    text = (f"### 5.1. Phần tử W_{{1,{VOCAB[Y]}}} (θ = 0,2; g = {c(a['mhat'], 6)})\n\n"
            f"* m = 0,1 × ({c(a['mhat'], 6)}) = {c(a['m'], 6)}\n"
            f"* m̂ = {c(a['mhat'], 6)}, v̂ = {c(a['vhat'], 6)}, √v̂ = {c(root, 6)}\n"
            f"* bước cập nhật = 0,01 × ({c(a['mhat'], 6)}) / {c(root, 6)} = {c(a['update'], 6)}\n"
            f"* suy giảm trọng số: 0,01 × 0,01 × 0,2 = {c(a['decay'], 6)}\n")
    rs = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md")
    assert _wrong(rs) == []
    assert f"adamw[1].mhat[W,0,{Y}]" in {r.ref for r in rs if r.verdict == "matched"}
