"""check names a figure by the form of its arithmetic and by the words before it.

Short tutorials written here in English, German and Chinese, on a random d = 4 model; every figure they
print is rounded from the oracle's mpmath forward pass (tests/oracle.py), never from symgpt.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec

T = 3


def fmt(x, places: int = 3) -> str:
    """x rounded half-even to ``places`` decimals, with a Unicode minus as the tutorials write it."""
    s = str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_EVEN))
    return s.replace("-", "−")


def off(x, by: str, places: int = 3) -> str:
    """A wrong figure: x's rounding moved by ``by`` in its last places."""
    return fmt(Decimal(fmt(x, places).replace("−", "-")) + Decimal(by), places)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("forms"),
                      oracle.random_spec_toml(seed=5, V=6, d=4, heads=2, d_ff=8, layers=1, T=T, ln_params=False))
    spec = oracle.load_spec(path)
    with mp.workdps(40):
        f = oracle.transformer_forward(spec, dps=40)
        t = T - 1
        eps = oracle.num(spec["model"].get("ln_eps", "0.00001"))
        sd = mp.sqrt(f["var1"][t] + eps)
        return path, f, t, sd


def verdicts(tmp_path, path, text: str, suffix: str = ".md") -> dict:
    doc = tmp_path / f"doc{suffix}"
    doc.write_text(text, encoding="utf-8")
    return {(r.number.line, r.number.text): r for r in check(doc, path)}


def at(results: dict, line: int, printed: str):
    return results[(line, printed)]


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_a_result_after_prose_is_the_node_its_arithmetic_defines(tmp_path, model, lang):
    """'(h − μ) / √(σ² + ε) = …' after a sentence: the result is LN1's entry, wrong when it does not round
    from it, whatever the operands' own printing."""
    path, f, t, sd = model
    h, mu, var = f["H1"][t], f["mu1"][t], f["var1"][t]
    good, bad = fmt(f["LN1"][t][0]), off(f["LN1"][t][0], "0.004")
    lead = {"en": "For the first entry by hand:", "de": "Der erste Eintrag von Hand:", "zh": "第一项手算："}[lang]
    mean = {"en": f"Its mean is μ = {fmt(mu)}, its variance is σ² = {fmt(var)}",
            "de": f"Der Mittelwert ist μ = {fmt(mu)}, die Varianz ist σ² = {fmt(var)}",
            "zh": f"均值 μ = {fmt(mu)}，方差 σ² = {fmt(var)}"}[lang]
    text = (f"# LayerNorm\n\nThe residual: ({', '.join(fmt(x) for x in h)}).\n\n"
            f"{mean}, and √(σ² + ε) = {fmt(sd)}. {lead} ({fmt(h[0])} − {fmt(mu)}) / {fmt(sd)} = {bad}. "
            f"{lead} ({fmt(h[0])} − {fmt(mu)}) / {fmt(sd)} = {good}.\n")
    r = verdicts(tmp_path, path, text)
    wrong = at(r, 5, bad)
    assert (wrong.verdict, wrong.ref, wrong.correct) == ("wrong", f"LN1[{t},0]", good.replace("−", "-"))
    right = [x for (line, printed), x in r.items() if printed == good and line == 5]
    assert right and all(x.verdict == "matched" for x in right)
    assert at(r, 5, fmt(mu)).ref == f"mu1[{t}]" and at(r, 5, fmt(var)).ref == f"var1[{t}]"
    assert sum(x.verdict == "wrong" for x in r.values()) == 1


@pytest.mark.parametrize("words", ["its mean is {mu} and its variance {var}, so √(σ² + ε) = {sd}",
                                   "der Mittelwert ist {mu} und die Varianz {var}, also √(σ² + ε) = {sd}"])
def test_a_name_in_prose_picks_the_tensor_and_its_neighbours_the_entry(tmp_path, model, words):
    """'its variance 1.053' with no = : the name says var, the mean beside it says which norm and position."""
    path, f, t, sd = model
    bad = off(f["var1"][t], "0.050")
    text = "# Norm\n\n" + words.format(mu=fmt(f["mu1"][t]), var=bad, sd=fmt(sd)) + ".\n"
    r = verdicts(tmp_path, path, text)
    wrong = at(r, 3, bad)
    assert (wrong.verdict, wrong.ref, wrong.correct) == ("wrong", f"var1[{t}]", fmt(f["var1"][t]).replace("−", "-"))
    assert at(r, 3, fmt(sd)).verdict == "matched"


def test_a_hyphenated_word_before_a_name_is_not_a_minus(tmp_path, model):
    """'the cross-entropy loss is −ln p = …': the loss, judged against its own value."""
    path, f, t, sd = model
    bad = off(f["loss"], "0.002")          # −ln of the target's p, printed as exp(−loss) rounds
    text = f"# Loss\n\nThe cross-entropy loss is −ln {fmt(mp.exp(-f['loss']))} = {bad}.\n"
    r = verdicts(tmp_path, path, text)
    assert (at(r, 3, bad).verdict, at(r, 3, bad).ref) == ("wrong", "loss")


def test_a_short_coefficient_is_the_number_it_prints(tmp_path, model):
    """'0.1 × g = m': 0.1 is β₁'s complement, not a quantity that rounds to 0.1; a correct product is no alarm."""
    path, f, t, sd = model
    x = f["LN1"][t][1]
    text = f"# Scale\n\nA tenth of it: 0.1 × {fmt(x, 4)} = {fmt(x / 10, 5)}.\n"
    r = verdicts(tmp_path, path, text)
    assert not [x for x in r.values() if x.verdict == "wrong"]


@pytest.fixture(scope="module")
def heads_model(tmp_path_factory):
    """The d = 4, 2-head model with an input of three different tokens (t0 t1 t2), its forward pass by the oracle."""
    toml = oracle.random_spec_toml(seed=5, V=6, d=4, heads=2, d_ff=8, layers=1, T=T, ln_params=False)
    toml = re.sub(r"(?m)^input = .*$", 'input = ["t0", "t1", "t2"]', toml)
    path = write_spec(tmp_path_factory.mktemp("heads"), toml)
    with mp.workdps(40):
        return path, oracle.transformer_forward(oracle.load_spec(path), dps=40)


def _head_table(caption: str, M, swap=None) -> list:
    """A Markdown table of M (T × 4) with one column per head and coordinate; ``swap``: (t, c, value) printed
    in place of M[t][c]."""
    rows = [f"Table: {caption}", "", "|  | head 1, a | head 1, b | head 2, a | head 2, b |",
            "| --- | --- | --- | --- | --- |"]
    for t in range(T):
        cells = [fmt(M[t][c]) if swap is None or (t, c) != swap[:2] else swap[2] for c in range(4)]
        rows.append(f"| t = {t} | " + " | ".join(cells) + " |")
    return rows + [""]


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_a_head_column_is_its_own_tables_and_a_share_is_the_weight_on_a_token(tmp_path, heads_model, lang):
    """Tables of Q, K and V share the headers 'head 2, a': each column is read in its own table, so a value
    transposed into V's row 1 is wrong as V[1,2] (not V[2,1], whose value it is); '0.324 % on t1' in head 2's
    paragraph is head 2's weight from the last position on t1's position, wrong by a percent slip."""
    path, f = heads_model
    V, A = f["V"], f["A"]
    assert fmt(V[2][1]) != fmt(V[1][2])
    shares = [fmt(A[1][2][s] * 100, 1) for s in range(3)]
    slip = fmt(A[1][2][1], 3)                                   # the fraction printed with a % sign
    said = {"en": "Head 2 spreads its attention: {} % on t0, {} % on t1 and {} % on t2.",
            "de": "Kopf 2 verteilt seine Aufmerksamkeit: {} % auf t0, {} % auf t1 und {} % auf t2.",
            "zh": "第 2 个头的注意力：{} % 在 t0 上，{} % 在 t1 上，{} % 在 t2 上。"}[lang]
    lines = ["# Attention", ""] + _head_table("Queries", f["Q"]) + _head_table("Keys", f["K"]) + \
        _head_table("Values", V, swap=(1, 2, fmt(V[2][1]))) + [said.format(shares[0], slip, shares[2]), ""]
    r = {(x.number.line, x.number.text): x for x in check(_write(tmp_path, "\n".join(lines)), path)}
    v_line = lines.index("Table: Values") + 5 + 1          # its row t = 1, 1-based
    moved = r[(v_line, fmt(V[2][1]).replace("−", "-"))]
    assert (moved.verdict, moved.ref) == ("wrong", "V[1,2]") and "transpos" in moved.cause
    share = r[(len(lines) - 1, slip + "%")]
    assert (share.verdict, share.ref) == ("wrong", "A[1,2,1]") and "percent" in share.cause
    assert sum(x.verdict == "wrong" for x in r.values()) == 2


def _write(tmp_path, text: str):
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    return doc


@pytest.mark.parametrize("form", ["q_{t} \\cdot k_{s} / \\sqrt{{2}}", "q{t}·k{s}/√2", "q_{t} · k_{s} / √(d_k)"])
def test_a_scaled_dot_product_is_the_score(tmp_path, heads_model, form):
    """'q_2 · k_1 / √2 = …' in head 2's paragraph is head 2's score S[1,2,1]; printed with its sign flipped it
    is wrong as that score, not matched to another of the same size."""
    path, f = heads_model
    S = f["S"][1][2]
    flip = fmt(-S[1]) if fmt(-S[1]) != fmt(S[1]) else None
    assert flip is not None
    lhs = [form.format(t=2, s=s) for s in range(3)]
    text = (f"# Scores\n\nHead 2, the last query: ${lhs[0]} = {fmt(S[0])}$, ${lhs[1]} = {flip}$ and "
            f"${lhs[2]} = {fmt(S[2])}$.\n")
    r = {(x.number.line, x.number.text): x for x in check(_write(tmp_path, text), path)}
    got = r[(3, flip.replace("−", "-")) if (3, flip.replace("−", "-")) in r else (3, flip)]
    assert (got.verdict, got.ref) == ("wrong", "S[1,2,1]") and "sign" in got.cause
    assert r[(3, fmt(S[0]).replace("−", "-")) if (3, fmt(S[0]).replace("−", "-")) in r else (3, fmt(S[0]))].ref == \
        "S[1,2,0]"
