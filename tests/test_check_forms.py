"""check names a figure by the form of its arithmetic and by the words before it.

Short tutorials written here in English, German and Chinese, on a random d = 4 model; every figure they
print is rounded from the oracle's mpmath forward pass (tests/oracle.py), never from symgpt.
"""
from __future__ import annotations

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
