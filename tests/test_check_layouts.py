"""Layouts other authors use, read by their structure: a literal written beside another on its line, a column
header that is a function (``e^z``), a row that names one quantity over token columns (``dL/dz``), a header row
over its rule that holds indices (``s = 1 (爱)``) under a bold caption naming the matrix (``w[t][s]``), a
dashed rule under a space-laid table's header, arithmetic on plain numbers (``ln 5``), prose beside an English
token that is only an article, and a training state only where the text speaks of training.

Exact values come from tests/oracle.py (mpmath), never from symgpt.
"""
from __future__ import annotations

import tomllib
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_lead_in import SPEC

VOCAB = ["the", "cat", "sat", "on", "mat"]
ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
SEED = ROOT / "derivations" / "tiny-transformer.toml"


def r4(x, places=4) -> str:
    """Half away from zero, as tutorials round (and the key of every corpus says)."""
    d = Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return str(d)


@pytest.fixture(scope="module")
def bigram(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("layouts"), SPEC)
    with mp.workdps(40):
        return path, oracle.bigram_grads(oracle.load_spec(path), dps=40)


def _verdicts(tmp_path, text, spec, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return check(doc, spec)


def _wrong(results):
    return [(r.ref, r.number.text) for r in results if r.verdict == "wrong"]


def test_a_literal_beside_another_is_its_own(tmp_path, bigram):
    """`W = [[…],    x = […]` on one line: x's entries are x's, and W's second row is on the next line."""
    path, g = bigram
    W = tomllib.loads(SPEC)["weights"]["W"]                   # the weights as the spec writes them
    x = [r4(v) for v in g["x"]]
    rows = [", ".join(str(v) for v in row) for row in W]
    text = (f"The weights, and the embedding of *cat* beside them:\n\n"
            f"    W = [[{rows[0]}],      x = [{', '.join(x)}]\n"
            f"         [{rows[1]}],\n         [{rows[2]}]]\n")
    results = _verdicts(tmp_path, text, path)
    assert _wrong(results) == []
    assert [r.ref for r in results if r.number.source == 3][-3:] == ["x[0]", "x[1]", "x[2]"]


@pytest.mark.parametrize("header", ["e^z", "exp(z)", "e^logit"])
def test_a_function_column_header_names_the_function_of_its_rows(tmp_path, bigram, header):
    path, g = bigram
    k = 3                                                    # 'on': its exp printed one digit off
    rows = []
    for j, tok in enumerate(VOCAB):
        e = mp.exp(g["z"][j])
        shown = r4(e + (mp.mpf("0.001") if j == k else 0))
        rows.append(f"{tok} | {r4(g['z'][j])} | {shown}")
    text = f"word | z | {header}\n--- | --- | ---\n" + "\n".join(rows) + "\n"
    assert _wrong(_verdicts(tmp_path, text, path)) == [("exp(z[on])", r4(mp.exp(g["z"][k]) + mp.mpf("0.001")))]


@pytest.mark.parametrize("row_name", ["dL/dz", "∂L/∂z", "grad_z"])
def test_a_row_that_names_one_quantity_over_token_columns(tmp_path, bigram, row_name):
    """`dL/dz | 0.1 | …` under token headers: each cell is that token's entry; a sign flip is wrong as it."""
    path, g = bigram
    t = VOCAB.index("sat")                                   # the target: its gradient is p − 1 < 0
    cells = [r4(-v if j == t else v) for j, v in enumerate(g["grad_z"])]
    text = (f"| | {' | '.join(VOCAB)} |\n|---|{'---|' * len(VOCAB)}\n| p | {' | '.join(r4(v) for v in g['p'])} |\n"
            f"| {row_name} | {' | '.join(cells)} |\n")
    wrong = [r for r in _verdicts(tmp_path, text, path) if r.verdict == "wrong"]
    assert [(r.ref, r.cause) for r in wrong] == [("grad_z[sat]", "sign flip")]


@pytest.mark.parametrize("corner, caption", [("query", "**Attention weights w[t][s], in percent**"),
                                             ("t \\ s", "**The weights α_{ts} (%)**")])
def test_a_header_over_its_rule_holds_indices_and_the_caption_names_the_matrix(tmp_path, corner, caption):
    """Header cells with numbers ('s = 1 (爱)') are the header, because the rule is under them; the caption's
    w[t][s] names the matrix; a weight printed as a fraction with % is a percent slip of A[1,1]."""
    f = oracle.transformer_forward(oracle.load_spec(SEED))
    A = f["A"]
    pct = lambda x: f"{r4(100 * x, 2)}%"
    slip = f"{r4(A[1][1], 4)}%"                              # 0.xxxx% for xx.xx%
    text = (f"The causal weights of the two positions:\n\n> {caption}\n>\n"
            f"> | {corner} | s = 0 (我) | s = 1 (爱) |\n> | --- | ---: | ---: |\n"
            f"> | t = 0 (我) | {pct(A[0][0])} | – |\n> | t = 1 (爱) | {pct(A[1][0])} | {slip} |\n")
    results = _verdicts(tmp_path, text, SEED)
    assert [(r.ref, r.cause) for r in results if r.verdict == "wrong"] == [("A[1,1]", "percent slip")]
    assert {r.number.text: r.ref for r in results if r.verdict == "matched"}[pct(A[1][0])] == "A[1,0]"


def test_a_dashed_rule_under_a_space_laid_header_keeps_the_header(tmp_path, bigram):
    path, g = bigram
    k = VOCAB.index("mat")
    p_wrong = r4(g["p"][k])[:-2] + r4(g["p"][k])[-1] + r4(g["p"][k])[-2]   # the last two digits swapped
    assert p_wrong != r4(g["p"][k])
    lines = ["    Wort     z[j]      p[j]", "    -----   -------   ------"]
    for j, tok in enumerate(VOCAB):
        lines.append(f"    {tok:<7} {r4(g['z'][j]):>7}   {p_wrong if j == k else r4(g['p'][j]):>6}")
    results = _verdicts(tmp_path, "Softmax:\n\n" + "\n".join(lines) + "\n", path, "doc.txt")
    assert _wrong(results) == [("p[mat]", p_wrong)]


def test_arithmetic_on_plain_numbers_is_no_quantity_of_the_model(tmp_path, bigram):
    path, g = bigram
    text = (f"Our loss is L = {r4(g['loss'])}. A model that guesses uniformly has L = ln 5 = 1.6094, "
            f"and gives every word the uniform 20%.\n")
    results = _verdicts(tmp_path, text, path)
    assert _wrong(results) == []
    assert {r.number.text: r.ref for r in results}["1.6094"] in ("log(5)", "log(vocab_size())")
    wrong_ln = _verdicts(tmp_path, "A uniform model has L = ln 5 = 1.6904.\n", path)
    assert [n for _, n in _wrong(wrong_ln)] == ["1.6904"]  # and its own arithmetic is still checked


def test_a_truncated_p_is_wrong_as_p_where_no_optimizer_is_spoken_of(tmp_path, bigram):
    """The document never mentions training: a figure in the p column is p's, truncated, never another state
    of p (AdamW's, SGD's) that happens to round to it."""
    path, g = bigram
    rows = []
    for j, tok in enumerate(VOCAB):
        rows.append(f"| {tok} | {mp.nstr(g['p'][j], 30)[:6]} |")          # every p truncated to 4 places
    text = "| word | p |\n|---|---|\n" + "\n".join(rows) + "\n"
    results = _verdicts(tmp_path, text, path)
    for r in results:
        assert r.ref is None or "[1]" not in r.ref
    truncated = [j for j in range(5) if mp.nstr(g["p"][j], 30)[:6] != r4(g["p"][j])]
    assert sorted(r.ref for r in results if r.verdict == "wrong") == sorted(f"p[{VOCAB[j]}]" for j in truncated)


def _seed_sampling():
    """The seed's logits and, by hand from them, p at T = 0.5, 1, 2 and the top-3 renormalised distribution."""
    spec = oracle.load_spec(SEED)
    f = oracle.transformer_forward(spec)
    z = f["logits"]
    at = {T: oracle.softmax([x / mp.mpf(T) for x in z]) for T in ("0.5", "1", "2")}
    order = sorted(range(len(z)), key=lambda v: -z[v])[:3]
    mass = sum(at["1"][v] for v in order)
    top = {v: at["1"][v] / mass for v in order}
    return spec["model"]["vocab"], at, top, order


def test_a_temperature_column_under_the_corner_t(tmp_path):
    """Rows 0.5, 1, 2 under the corner 'T' are temperatures (row 1 is T = 1, not row 1 of a matrix); a cell
    computed with z·T instead of z/T is wrong as the row's temperature."""
    vocab, at, _, _ = _seed_sampling()
    toks = vocab[2:]                                            # the words (the table leaves out <pad>, <bos>)
    bad = r4(oracle.softmax([x * 2 for x in oracle.transformer_forward(oracle.load_spec(SEED))["logits"]])[4])
    rows = []
    for T in ("0.5", "1", "2"):
        cells = [r4(at[T][vocab.index(t)]) for t in toks]
        if T == "2":
            cells[toks.index("你")] = bad
        rows.append(f"| {T} | " + " | ".join(cells) + " |")
    text = "| T | " + " | ".join(toks) + " |\n|---|" + "---|" * len(toks) + "\n" + "\n".join(rows) + "\n"
    assert bad != r4(at["2"][4])
    assert _wrong(_verdicts(tmp_path, "Sampling at temperature T:\n\n" + text, SEED)) == [("softmax_T(2, 你)", bad)]


@pytest.mark.parametrize("said", ["After top-3 filtering, {a} keeps probability {pa} and {b} {pb}.",
                                  "Top-k (k = 3): renormalised, {a} is drawn with probability {pa}, {b} with {pb}."])
def test_a_probability_in_a_sentence_about_top_k_is_the_top_k_one(tmp_path, said):
    vocab, at, top, order = _seed_sampling()
    a, b = order[0], order[1]
    right = said.format(a=vocab[a], pa=r4(top[a]), b=vocab[b], pb=r4(top[b]))
    results = _verdicts(tmp_path, right + "\n", SEED)
    assert {r.number.text: r.ref for r in results if r.verdict == "matched"}[r4(top[a])] == f"topk(3, {vocab[a]})"
    assert _wrong(results) == []
    # p itself: a section on top-k prints p too, so a figure p explains is read as p where the sentence may
    # mean p ('keeps probability'); where it says the draw is renormalised, p is the renormalisation forgotten
    unnormalised = said.format(a=vocab[a], pa=r4(at["1"][a]), b=vocab[b], pb=r4(top[b]))
    results = _verdicts(tmp_path, unnormalised + "\n", SEED)
    if "renormalised" in said:
        assert _wrong(results) == [(f"topk(3, {vocab[a]})", r4(at["1"][a]))]
    else:
        assert _wrong(results) == [] and {r.number.text: r.ref for r in results}[r4(at["1"][a])] == f"p[{vocab[a]}]"



def test_no_training_state_where_the_text_never_speaks_of_training(tmp_path, bigram):
    """'So after top-k …': 'after' alone is no training step; in a text that never speaks of one, a figure is
    never read as the model after an SGD or AdamW step."""
    path, g = bigram
    text = (f"So after all that, the word *on* gets probability {r4(g['p'][3] + mp.mpf('0.05'))}.\n"
            f"The loss is {r4(g['loss'])}.\n")
    for r in _verdicts(tmp_path, text, path):
        assert r.ref is None or not r.ref.startswith(("sgd", "adamw", "head_step")), r
