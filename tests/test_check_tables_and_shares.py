"""check: readings round 44 of the held-out tutorials showed (issue 27), on a table's layout and on shares of a
distribution, each on a text written here in more than one language or layout:

* two grid tables side by side on the same lines (``| t=2 | 0.2660 |   | t=2 | 0.4969 |`` under ``+---+   +---+``):
  each cell is its own table's, the second table's corner names it;
* a percentage in a sentence on attention begun a line above is an attention weight, not a token's probability;
* 'past 50%' is a bound, no one's share;
* the text speaks of top-p only ('k = x @ W_k' is attention's code, no top-k): a share equal under both is top-p's;
* '加上「X」之后是 0.8018' is the running total up to X, not X's share;
* '约为' says a name's value follows, as '为' does;
* a gradient check's table whose rows write the output matrix with the author's own letter (``B_{2,b}``).

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts, _wrong, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB
from test_check_vocabulary import _results


def _grid_pair(S, A, slip=None) -> str:
    """The scores and the weights of a 3-token block as two grid tables on the same lines, A's cell ``slip`` with
    two digits swapped."""
    def a(t, s):
        text = r4(A[t][s]) if s <= t else "0"
        if (t, s) == slip:
            text = text[:-2] + text[-1] + text[-2]
        return text
    rule = "+--------+----------+----------+----------+"
    lines = [f"  {rule}   {rule}", f"  | {'s':<6} | {'s=0':>8} | {'s=1':>8} | {'s=2':>8} |   "
             f"| {'att':<6} | {'s=0':>8} | {'s=1':>8} | {'s=2':>8} |", f"  {rule}   {rule}"]
    for t in range(3):
        left = " | ".join(f"{r4(S[t][s]) if s <= t else '-inf':>8}" for s in range(3))
        right = " | ".join(f"{a(t, s):>8}" for s in range(3))
        lines.append(f"  | {'t=' + str(t):<6} | {left} |   | {'t=' + str(t):<6} | {right} |")
    lines.append(f"  {rule}   {rule}")
    return "Scores and a softmax along each row:\n\n" + "\n".join(lines) + "\n\nOn to the MLP.\n"


def test_two_grid_tables_side_by_side(tmp_path, narrow):  # noqa: F811
    """Every cell is its own table's: S's and A's matched; A[2,1] with two digits swapped is A's, wrong."""
    path, _, fw = narrow
    S, A = fw["S"], fw["A"]
    slip = r4(A[2][1])
    swapped = slip[:-2] + slip[-1] + slip[-2]
    assert swapped != slip
    got = _verdicts(_results(tmp_path, _grid_pair(S, A, slip=(2, 1)), path, "doc.txt"))
    assert got[swapped][:2] == ("wrong", "A[2,1]")
    assert got[r4(A[2][0])][:2] == ("matched", "A[2,0]") and got[r4(S[2][2])][:2] == ("matched", "S[2,2]")


@pytest.fixture(scope="module")
def distinct(tmp_path_factory):
    """A post-LN block at d = 2, T = 3, whose three input tokens differ (the first such seed): path, spec,
    forward."""
    for seed in range(100):
        toml = oracle.random_spec_toml(seed=seed, V=5, d=2, heads=1, d_ff=4, layers=1, T=3)
        spec = oracle.loads_spec(toml)
        if len(set(spec["data"]["input"])) == 3:
            return write_spec(tmp_path_factory.mktemp("distinct"), toml), spec, oracle.transformer_forward(spec)
    raise AssertionError("no seed below 100 gives three different tokens")


@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_a_share_in_a_sentence_on_attention_begun_a_line_above(tmp_path, distinct, fmt):
    """'So the last position (“c”) gives 47.49% of its attention to ⏎ “a”, 25.37% to “b” and 27.14% to itself':
    each the last query's weight, none a token's probability."""
    path, spec, fw = distinct
    seq = spec["data"]["input"]
    last = fw["A"][2]
    pct = lambda x: f"{mp.nstr(100 * x, 4, strip_zeros=False)}%"   # noqa: E731
    text = (f"So the last position (\"{seq[2]}\") gives {pct(last[0])} of its attention to\n"
            f"\"{seq[0]}\", {pct(last[1])} to \"{seq[1]}\" and {pct(last[2])} to itself; the first layer was\n"
            f"flatter.\n")
    results = _results(tmp_path, text, path, f"doc.{fmt}")
    assert _wrong(results) == []
    assert _verdicts(results)[pct(last[1])][:2] == ("matched", "A[2,1]")


def test_past_fifty_percent_is_a_bound(tmp_path):
    """'One step and “пьёт” is past 50%: …': a bound, not the token's share called wrong."""
    f = oracle.bigram_forward(oracle.loads_spec(SPEC))
    assert abs(f["p"][3] - mp.mpf("0.5")) > mp.mpf("0.05")
    text = (f"Before the step “пьёт” has {r4(f['p'][3])}.\n\nOne step and \"пьёт\" is past 50%: the loss drops, "
            "because every weight moves downhill at once.\n")
    assert _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")) == []


TOP_P = SPEC.replace("top_p = 0.8", "top_p = 0.65")


def _kept():
    """The bigram's shares renormalised over its three likeliest tokens (top-3, and top-p 0.65 keeps the same),
    and the running totals of the sorted shares."""
    p = oracle.bigram_forward(oracle.loads_spec(TOP_P))["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    mass = [sum(p[j] for j in order[:k + 1]) for k in range(5)]
    assert mass[1] < mp.mpf("0.65") <= mass[2]
    return p, order, mass


@pytest.mark.parametrize("code", ["k = x @ W_k", "q, k = x @ W_q, x @ W_k"])
def test_a_text_on_top_p_alone_reads_its_shares_as_top_p(tmp_path, code):
    """A text that names top-p only (its code's k = … is attention's): a kept share in prose no reading names is
    topp(0.65, …)'s, not topk(3, …)'s, which has the same value."""
    p, order, mass = _kept()
    j = order[1]
    before, after = (f"{mp.nstr(100 * x, 4, strip_zeros=False)}%" for x in (p[j], p[j] / mass[2]))
    text = (f"```python\n{code}\n```\n\ntop-p（P = 0.65）保留累计概率第一次达到 0.65 的最短前缀，再重新归一化。\n\n"
            f"截断之后，「{VOCAB[j]}」的概率从 {before} 提高到 {after}。\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, TOP_P), "doc.md"))
    assert got[after][:2] == ("matched", f"topp(0.65, {VOCAB[j]})")


@pytest.mark.parametrize("sentence", ["加上「{w}」之后是 {v}", "加上“{w}”以后是 {v}"])
def test_a_running_total_after_adding_a_token(tmp_path, sentence):
    """'加上「рыбу」之后是 0.6973': the running total of the sorted shares up to it, not рыбу's own share."""
    p, order, mass = _kept()
    total = r4(mass[2])
    text = (f"top-p（p = 0.65）：排序后前两个词加起来是 {r4(mass[1])}，" +
            sentence.format(w=VOCAB[order[2]], v=total) + "，所以留下三个词。\n")
    results = _results(tmp_path, text, write_spec(tmp_path, TOP_P), "doc.md")
    assert _wrong(results) == []
    assert _verdicts(results)[total][0] == "matched"


@pytest.mark.parametrize("word", ["约为", "为"])
def test_about_says_the_value_follows(tmp_path, word):
    """'损失 $\\mathcal{L}$ 约为 …' with a slipped last digit: the loss, wrong."""
    f = oracle.bigram_forward(oracle.loads_spec(SPEC))
    off = r4(f["loss"] + mp.mpf("0.0003"))
    text = f"前向算完以后，损失 $\\mathcal{{L}}$ {word} {off}。\n"
    assert [w[:2] for w in _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md"))] == [("loss", off)]


CHECKED = SPEC.replace("steps = 3\n", 'steps = 3\ngradcheck = { h = 1e-3, params = ["W[1,пьёт]"] }\n')


@pytest.mark.parametrize("row", ["B_{2,пьёт}", "U[1,пьёт]"])
def test_a_gradient_checks_table_in_the_authors_letters(tmp_path, row):
    """| B_{2,пьёт} | L(θ + h) | L(θ − h) |: the check's losses of W[1,пьёт] moved up and down (the author's letter
    for W, its rows counted from 1 or 0); L(θ − h) with two digits swapped is that loss, wrong."""
    losses = []
    for h in (Fraction(1, 1000), Fraction(-1, 1000)):
        spec = oracle.loads_spec(CHECKED)
        spec["weights"]["W"][1][3] += h
        losses.append(oracle.bigram_forward(spec)["loss"])
    up, down = (mp.nstr(x, 11, strip_zeros=False) for x in losses)
    swapped = down[:-3] + down[-2] + down[-3] + down[-1]
    assert swapped != down
    name = row if row.startswith("U") else "$" + row + "$"
    text = ("A gradient check, central differences with h = 0.001:\n\n| entry | L(θ + h) | L(θ − h) |\n|---|---|---|\n"
            f"| {name} | {up} | {swapped} |\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, CHECKED), "doc.md"))
    assert got[up][:2] == ("matched", f"loss_at(W[1,{VOCAB[3]}], 1e-3)")
    assert got[swapped][:2] == ("wrong", f"loss_at(W[1,{VOCAB[3]}], -1e-3)")


@pytest.mark.parametrize("said, wrong", [(", which is below 1 only because of rounding", False),
                                         (", जो पूर्णांकन की वजह से 1 से थोड़ा कम है", False),
                                         (", so the probabilities sum to it", True)])
def test_a_sum_of_rounded_shares_the_text_says_is_off_by_rounding(tmp_path, said, wrong):
    """Σ of the printed shares = their exact sum, not 1: where the words after it say rounding is why, the author's
    own account, no wrong figure; said otherwise, a carried rounding of Σp (the test's control)."""
    f = oracle.bigram_forward(oracle.loads_spec(SPEC))
    rounded = lambda k: [Decimal(mp.nstr(x, 30)).quantize(Decimal(10) ** -k, ROUND_HALF_UP) for x in f["p"]]  # noqa: E731
    places = next(k for k in range(2, 9) if sum(rounded(k)) != 1)
    shown = [str(x) for x in rounded(places)]
    total = sum(rounded(places))
    assert total != 1
    text = f"The five shares: {' + '.join(shown)} = {total}{said}.\n"
    got = _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md"))
    assert bool(got) == wrong
    if wrong:
        assert got[0][2] == "carried rounding"


@pytest.mark.parametrize("lhs", [r"J_{\text{after}}", r"L_{\text{nach}}", "loss_after"])
def test_a_loss_subscripted_after(tmp_path, lhs):
    """J_{after} = … after one SGD step, its last digit off: the loss after the step, wrong (not the first loss)."""
    spec = oracle.loads_spec(SPEC)
    g = oracle.bigram_grads(spec)
    lr = Fraction(1, 2)
    x = oracle.token_ids(spec, spec["data"]["input"])[-1]
    spec["weights"]["W"] = [[w - lr * Fraction(mp.nstr(gw, 40)) for w, gw in zip(row, grow)]
                            for row, grow in zip(spec["weights"]["W"], g["grad_W"])]
    spec["weights"]["E"][x] = [e - lr * Fraction(mp.nstr(gx, 40))
                               for e, gx in zip(spec["weights"]["E"][x], g["grad_x"])]
    after = oracle.bigram_forward(spec)["loss"]
    off = r4(after + mp.mpf("0.0002"))
    text = f"One SGD step with η = 0.5, then the forward pass again:\n\n$${lhs} = {off}$$\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md"))
    assert got[off][:2] == ("wrong", "sgd[1].loss")


def test_a_grid_of_figures_alone_has_no_header():
    """A box table whose rows are all figures, a rule between each: every row is read, none taken as a header."""
    from symgpt.claims.extract import extract
    text = "┌──────┬──────┐\n│ 0.51 │ 0.32 │\n├──────┼──────┤\n│ 0.13 │ 0.24 │\n└──────┴──────┘\n"
    assert [n.value for n in extract(text)] == [Fraction(x) for x in ("0.51", "0.32", "0.13", "0.24")]


@pytest.mark.parametrize("after", [", around the middle", ", in the background"])
def test_words_that_only_contain_round_do_not_excuse_a_carried_rounding(tmp_path, after):
    """'= 0.9999, around the middle': no word says rounding, so Σp printed off is still a carried rounding."""
    from symgpt.claims.match import ROUNDING_SAID
    assert not ROUNDING_SAID.search("for the ground-truth token, around, background")
    f = oracle.bigram_forward(oracle.loads_spec(SPEC))
    rounded = lambda k: [Decimal(mp.nstr(x, 30)).quantize(Decimal(10) ** -k, ROUND_HALF_UP) for x in f["p"]]  # noqa: E731
    places = next(k for k in range(2, 9) if sum(rounded(k)) != 1)
    text = f"The five shares: {' + '.join(str(x) for x in rounded(places))} = {sum(rounded(places))}{after}.\n"
    got = _wrong(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md"))
    assert [w[2] for w in got] == ["carried rounding"]


@pytest.mark.parametrize("text", ["Padding “рыбу” gets {v}.", "Plusieurs : « рыбу » obtient {v}."])
def test_a_word_that_only_contains_add_is_no_running_total(tmp_path, text):
    """'Padding “рыбу” gets 23.65%': the token's share (p), not a running total left unread."""
    p = oracle.bigram_forward(oracle.loads_spec(SPEC))["p"]
    v = f"{mp.nstr(100 * p[2], 4, strip_zeros=False)}%"
    got = _verdicts(_results(tmp_path, text.format(v=v) + "\n", write_spec(tmp_path, SPEC), "doc.md"))
    assert got[v][:2] == ("matched", "p[рыбу]")
