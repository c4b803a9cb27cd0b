"""check: the words, marks and symbols of authors in more languages (issue 27), on texts written for these tests in
several notations.  Every expected value is computed here (mpmath in the test, 50–60 digits, through
``test_check_readings``'s hand computation or ``tests/oracle.py``), never taken from symgpt.

* A vector in angle brackets (``⟨0,4; 0,3⟩``) is a literal like one in parentheses.
* A header of temperatures after a word (``λέξη  T = 0,5  T = 1  T = 2``) heads a table of shares.
* A lead-in names a parameter's entry in lower case (``w_{1,t}``, ``e_{t,1}``); under it θ₀ is the entry, θ₁ the
  entry after the step, g its gradient, and the words for 'update' its update.
* A table's row 'query t=2' and column 'key s = 1' are indices after their axis words.
* A reST math role spanning two lines is math; an equation whose line begins with '=' is named by the line above.
* A lower-case letter no tensor is spelled by names its capital (f for F), read as one position's row.
* ``L = − ln p ( t )`` is the loss; a formula with ⊙ is no name.
* Shares said by numbered positions (Finnish 'Paikka 3 … X % painolla paikkaan 2', 'itseensä', 'pään 2'), and
  a query's share for itself in Romanian ('pe el însuși').
* A head's output written with its superscript (``o_3^{[2]}``) is its half of Attn; names listed in inline code on
  one line each name their own literal; indices inside names (``s(3→3)``) end no clause; a percentage restating
  the figure just before it (``0,3467, cioè il 34,67%``) is that figure's share.
"""
from __future__ import annotations

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_shares import _results, _wrong


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def c(x, k=4) -> str:
    """A figure with a decimal comma and a Unicode minus."""
    return r4(x, k).replace(".", ",").replace("-", "−")


def _spec(tmp_path):
    return write_spec(tmp_path, SPEC)


@pytest.mark.parametrize("brackets", ["⟨⟩", "〈〉"])
def test_a_vector_in_angle_brackets(tmp_path, run, brackets):
    """'π = ⟨…⟩' with its second share truncated: p[ест], wrong, 'truncation'; the others right.  (A guard: here
    the values alone find it; the brackets matter where they do not.)"""
    p = run["f0"]["p"]
    shown = [c(x) for x in p]
    cut = mp.floor(p[1] * 10 ** 4) / 10 ** 4
    assert r4(cut) != r4(p[1])
    shown[1] = c(cut)
    text = f"(δ) Softmax:\n\n    π = {brackets[0]}" + "; ".join(shown) + f"{brackets[1]}\n"
    assert _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.txt")) == [(f"p[{VOCAB[1]}]", shown[1], "truncation")]


def test_a_header_of_temperatures_after_a_word(tmp_path, run):
    """Rows by token, columns 'T = 0,5  T = 1  T = 2', percentages: a cell copied from its neighbour at T = 2
    is softmax_T(2, ·), wrong (not p matched, which it equals)."""
    z = run["f0"]["z"]

    def soft(t):
        e = [mp.exp(v / t) for v in z]
        return [v / sum(e) for v in e]
    cols = {t: soft(mp.mpf(t)) for t in ("0.5", "1", "2")}
    rows = []
    for j, w in enumerate(VOCAB):
        cells = [cols[t][j] * 100 for t in ("0.5", "1", "2")]
        if j == 2:
            cells[2] = cells[1]                          # the T = 1 cell copied into T = 2
        rows.append(f"  {w:<8}" + "".join(f"{c(x, 2)}%".rjust(10) for x in cells))
    assert r4(cols["1"][2] * 100, 2) != r4(cols["2"][2] * 100, 2)
    text = "§3 Θερμοκρασία\n\n  λέξη         T = 0,5    T = 1     T = 2\n" + "\n".join(rows) + "\n"
    assert [w[0] for w in _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.txt"))] == \
        [f"softmax_T(2, {VOCAB[2]})"]


@pytest.mark.parametrize("lead", ["(γ) e_{{{t},1}}, θ₀ = {theta}:", "(γ) w_{{1,{t}}}, θ₀ = {theta}:"])
def test_a_lower_case_entry_under_its_lead_in(tmp_path, run, lead):
    """AdamW worked by hand for e_{кот,1} (E's row кот, entry 0) or w_{1,пьёт} (W[0,пьёт]), written in lower
    case: g, m₁, v₁, the update (Greek 'ενημέρωση') and θ₁ are that entry's; θ₁ with the update's sign flipped is
    adamw[1].E[кот,0] / adamw[1].W[0,пьёт], wrong (not another entry's that it equals by chance)."""
    f0 = run["f0"]
    if lead.startswith("(γ) e"):
        theta, g, ref, tok = mp.mpf("0.6"), f0["gx"][0], f"adamw[1].E[{VOCAB[X]},0]", VOCAB[X]
    else:
        theta, g, ref, tok = mp.mpf("0.2"), f0["gW"][0][Y], f"adamw[1].W[0,{VOCAB[Y]}]", VOCAB[Y]
    a = run["adamw"](theta, g)
    flipped = theta - a["decay"] + a["update"]
    e = int(mp.floor(mp.log10(a["v"])))
    text = ("§5 Ένα βήμα AdamW (t = 1)\n\n" + lead.format(t=tok, theta=c(theta, 1)) + "\n"
            f"    g = {c(g)},  m₁ = {c(a['m'], 5)},  v₁ = {c(a['v'] / mp.mpf(10) ** e)}·10^{{{e}}}\n"
            f"    ενημέρωση: {c(a['update'], 6)}\n"
            f"    θ₁ = {c(flipped, 6)}\n")
    assert [w[0] for w in _wrong(_results(tmp_path, text, _spec(tmp_path), "doc.txt"))] == [ref]


def test_axis_words_before_a_tables_indices(tmp_path):
    """A score table with rows 'query t=0 …' and columns 'key s = 0 …' (a reST grid table's header), one entry
    transposed: S[2,1], wrong, 'transposed index' (not S[1,2] matched).  (A guard: the grid of these values names
    it too; the row and column words decide where its short figures cannot vote.)"""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=4, layers=1, T=3))
    S = oracle.transformer_forward(oracle.load_spec(str(path)))["S"]
    cells = [[r4(S[t][s], 3) if s <= t else "−∞" for s in range(3)] for t in range(3)]
    cells[2][1] = r4(S[1][2], 3)
    rule = "+" + "+".join(["-" * 12] * 4) + "+"
    rows = [rule, "|" + "|".join(f" {x:<10} " for x in ["S", "key s = 0", "key s = 1", "key s = 2"]) + "|",
            rule.replace("-", "=")]
    for t in range(3):
        rows += ["|" + "|".join(f" {x:<10} " for x in [f"query t={t}", *cells[t]]) + "|", rule]
    text = "Scores\n======\n\nScaled scores:\n\n" + "\n".join(rows) + "\n"
    assert _wrong(_results(tmp_path, text, path, "doc.rst")) == [("S[2,1]", r4(S[1][2], 3), "transposed index")]


def test_a_math_role_over_two_lines_names_its_vector_by_the_line_above(tmp_path):
    """reST ``:math:`f = ReLU(z) W_2 + b_2`` ⏎ ``= … = (0.625, 0.120)``: the vector is f, the FFN's output at
    the last position (F's row, f a lower-case F), and its sign-flipped entry is F[2,1], wrong, 'sign flip'.
    d = 2: one entry of two agrees, too few for a vote without the name."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=3, V=5, d=2, heads=1, d_ff=4, layers=1, T=3))
    F = oracle.transformer_forward(oracle.load_spec(str(path)))["blocks"][0]["F"][2]
    shown = [r4(F[0], 3), r4(-F[1], 3)]
    text = ("5.2 Output\n----------\n\n:math:`f = \\mathrm{ReLU}(z)\\, W_2 + b_2\n= (" + ", ".join(shown) + ")`.\n")
    assert _wrong(_results(tmp_path, text, path, "doc.rst")) == [("F[2,1]", shown[1], "sign flip")]


@pytest.mark.parametrize("eq", ["$L = − ln p ( {t} ) = {v}$", "L = − ln P({t}) = {v}"])
def test_minus_ln_with_spaces_is_the_loss(tmp_path, run, eq):
    """The loss written with spaces inside (``− ln p ( t )``): the loss, right, not p[t]."""
    f = run["f0"]
    text = "## 7. Häviö\n\n" + eq.format(t=VOCAB[Y], v=r4(f["loss"])) + "\n"
    rs = _results(tmp_path, text, _spec(tmp_path), "doc.md")
    assert _wrong(rs) == [] and "loss" in [x.ref for x in rs if x.verdict == "matched"]


def test_shares_said_by_numbered_positions(tmp_path):
    """Finnish: 'Paikka 3 jakaa huomionsa näin: a % painolla paikkaan 1, b % painolla paikkaan 2 ja c % painolla
    itseensä' under 'Pään 2': head 2's weights of query 3 on keys 1, 2 and 3; b with its point moved is A[1,2,1],
    wrong, 'scale slip'."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=1, V=5, d=4, heads=2, d_ff=4, layers=1, T=3))
    A = oracle.transformer_forward(oracle.load_spec(str(path)))["A"][1][2]      # head 2, query 3
    slip = A[1] * 10
    assert r4(slip, 2) != r4(A[1] * 100, 2)
    text = ("## 4. Pisteet ja softmax\n\nTaulukko 3. Pään 2 skaalatut pisteet.\n"
            f"Paikka 3 jakaa huomionsa näin: {c(100 * A[0], 2)} % painolla paikkaan 1, "
            f"{c(slip, 3)} % painolla paikkaan 2 "
            f"ja {c(100 * A[2], 2)} % painolla itseensä.\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text, path, "doc.md"))] == [("A[1,2,1]", f"{c(slip, 3)}%")]


def test_a_hadamard_product_is_no_name(tmp_path_factory):
    """'u = (…)' then 'SiLU(g) ⊙ u = (…)': the product's vector is not u (U), so its entries are read by value
    (right), not called U's wrong entries.  (A Llama block with W_V = 0, worked here: attention adds nothing, so
    the MLP reads the first norm's output; g = x̂·W_1, u = x̂·W_3.  A guard against a reading of this session
    that took the product for u.)"""
    from test_check_shares import _llama
    path, v = _llama(tmp_path_factory, still=True)
    spec = oracle.load_spec(str(path))
    t = 2
    xn = [x / v["root"][t] for x in v["x"][t]]
    W1, W3 = oracle.mat(spec["layer"][0]["W_1"]), oracle.mat(spec["layer"][0]["W_3"])
    g = [mp.fsum(xn[i] * W1[i][k] for i in range(4)) for k in range(6)]
    u = [mp.fsum(xn[i] * W3[i][k] for i in range(4)) for k in range(6)]
    prod = [gk / (1 + mp.exp(-gk)) * uk for gk, uk in zip(g, u)]
    text = ("## 9. SwiGLU\n\nu = x̂₃ W_up = (" + ", ".join(r4(x) for x in u) + ")\n\n"
            "SiLU(g) ⊙ u = (" + ", ".join(r4(x) for x in prod) + ")\n")
    doc = tmp_path_factory.mktemp("hadamard") / "doc.md"
    doc.write_text(text, encoding="utf-8")
    assert _wrong(check(doc, path)) == []


# ---------------------------------------------------------------- heads' outputs, lists of names, restatements

@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    """tests/oracle.py's one-layer block with two heads and no W_O (seed 1): Attn is the heads' outputs side by
    side, head h's in columns 2h − 2, 2h − 1."""
    path = write_spec(tmp_path_factory.mktemp("two_heads"),
                      oracle.random_spec_toml(seed=1, V=5, d=4, heads=2, d_ff=4, layers=1, T=3))
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


@pytest.mark.parametrize("sup", ["^{{[{h}]}}", "^{{({h})}}"])
def test_a_heads_output_is_its_half_of_attn(tmp_path, two_heads, sup):
    """``o_3^{[1]} = (…)``, ``o_3^{[2]} = (…)`` and ``attn_3 = [o_3^{[1]}; o_3^{[2]}] = (…)``: head 2's output is
    Attn's columns 2 and 3, and the concatenation is Attn's whole row (its formula's superscripts name no head);
    head 2's sign-flipped entry is Attn[2,3], wrong."""
    path, f = two_heads
    a = f["Attn"][2]
    o1, o2 = [r4(a[0]), r4(a[1])], [r4(a[2]), r4(-a[3])]
    s1, s2 = sup.format(h=1), sup.format(h=2)
    text = (f"## 6. Wyjścia głów\n\nCzyli $o_3{s1} = ({o1[0]};\\ {o1[1]})$, $o_3{s2} = ({o2[0]};\\ {o2[1]})$, a po "
            f"sklejeniu\n$\\mathrm{{attn}}_3 = [\\,o_3{s1}\\,;\\ o_3{s2}\\,] = ({';'.join(r4(x) for x in a)})$.\n")
    assert _wrong(_results(tmp_path, text, path, "doc.md")) == [("Attn[2,3]", r4(-a[3]), "sign flip")]


def test_names_listed_in_inline_code_on_one_line(tmp_path, two_heads):
    """`E[t1] = […]`, `E[t4] = […]` en `E[t0] = […]`: each literal is its own name's row; a sign flip in the
    third is E[t0,1], wrong (not E[t4]'s entries called wrong)."""
    path, _ = two_heads
    E = oracle.mat(oracle.load_spec(str(path))["weights"]["E"])
    rows = {t: [c(x, 2) for x in E[int(t[1])]] for t in ("t1", "t4", "t0")}
    rows["t0"][1] = c(-E[0][1], 2)
    assert E[0][1] != 0
    text = ("De embeddings zijn vectoren van 4 getallen; voor de invoer zijn dat " +
            ", ".join(f"`E[{t}] = [{'; '.join(v)}]`" for t, v in list(rows.items())[:2]) +
            f" en `E[t0] = [{'; '.join(rows['t0'])}]`.\nDe kans is 0,4521; de andere 0,1234 en 0,3333.\n")
    assert [w[:2] for w in _wrong(_results(tmp_path, text, path, "doc.md"))] == [("E[t0,1]", rows["t0"][1])]


def test_indices_inside_names_leave_the_next_name_its_own(tmp_path, two_heads):
    """'s(3→1) = a, s(3→2) = b en s(3→3) = c' under head 1: each figure is its own score, S[0,2,·], right (the 3s
    inside the names are no figures that end a clause)."""
    path, f = two_heads
    S = f["S"][0][2]
    text = ("## 4. Attention, head 1\n\n- Stap 1: " + ", ".join(f"`s(3→{k + 1}) = {c(S[k])}`" for k in range(2)) +
            f" en `s(3→3) = {c(S[2])}`.\n- Stap 2: de kans 0,4521 en 0,1234.\n")
    rs = _results(tmp_path, text, path, "doc.md")
    assert _wrong(rs) == []
    assert {f"S[0,2,{k}]" for k in range(3)} <= {x.ref for x in rs if x.verdict == "matched"}


def test_a_percentage_restating_the_figure_before_it(tmp_path, run):
    """'ŷ = 0,1860, cioè il 18,60%' where 'il' is one of the vocabulary's tokens: the percentage is the share just
    printed (p[пьёт]), right, not the token il's."""
    spec = SPEC.replace('"рыбу"', '"il"').replace("рыбу", "il")
    p = run["f0"]["p"][Y]
    text = f"## Dopo\n\nSi ottiene ŷ_пьёт = {c(p)}, cioè il {c(100 * p, 2)}%. Le altre: 0,1234 e 0,5678.\n"
    assert _wrong(_results(tmp_path, text, write_spec(tmp_path, spec), "doc.md")) == []


def test_a_share_for_itself_in_romanian(tmp_path):
    """'Pe rândul 3 … atenția e împărțită: a pe "t1", b pe "t4" și c pe el însuși': the query's weight on itself
    is A[2,2], right (not the token before it's probability)."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=1, V=5, d=4, heads=1, d_ff=4, layers=1, T=3))
    A = oracle.transformer_forward(oracle.load_spec(str(path)))["A"][2]
    text = ("## 4. Scoruri și atenție\n\nPe rândul 3 (\"t0\") atenția e împărțită destul de egal: "
            f"{r4(A[0])} pe \"t1\", {r4(A[1])} pe\n\"t4\" și {r4(A[2])} pe el însuși.\n")
    rs = _results(tmp_path, text, path, "doc.txt")
    assert _wrong(rs) == [] and "A[2,2]" in [x.ref for x in rs if x.verdict == "matched"]
