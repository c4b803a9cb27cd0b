"""Typed steps (symgpt.documents.steps): guard digits, the ≈ fallback, LaTeX and chains.

References are the mpmath oracle (tests/oracle.py) and exact Fractions here.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from symgpt.documents import steps as st

import oracle
from conftest import BIGRAM, SEED, ref_round_decimals


def test_sum_of_exponentials_gets_a_guard_digit_where_three_decimals_do_not_close(seed):
    o = oracle.transformer_forward(oracle.load_spec(SEED), dps=50)
    with mpmath.workdps(50):
        ex = [mpmath.exp(z) for z in o["logits"]]
        Z = ref_round_decimals(sum(ex), 3)
        at3 = sum(Fraction(ref_round_decimals(e, 3)) for e in ex)
        at4 = sum(Fraction(ref_round_decimals(e, 4)) for e in ex)
    assert ref_round_decimals(at3, 3) != Z  # the source's false Z = … = 5.855
    assert ref_round_decimals(at4, 3) == Z
    pr = st.Printer(seed, 3)
    ln = pr.resolve(st.line("Z", st.Add(*[st.fig(f"exp(logits[{v}])") for v in range(6)]), "sum_exp"))
    assert ln["rel"] == "="
    assert [lf["v"] for lf in st.leaves(ln["sub"])] == [ref_round_decimals(e, 4) for e in ex]
    assert ln["res"]["v"] == Z


def test_a_line_that_cannot_close_is_written_with_approx(bigram):
    p2 = oracle.bigram_forward(oracle.load_spec(BIGRAM), 50)["p"][2]
    pr = st.Printer(bigram, 2)
    # an operand pinned to two decimals cannot carry guard digits: 0.35 × 10 = 3.50, one unit
    # from the exact rounding 3.49 of 10·p[鱼], so the line says ≈
    ln = pr.resolve(st.line("y", st.Mul(st.fig("p[2]", decimals=2), st.exact("10")), "10*p[2]"))
    assert ref_round_decimals(p2, 2) == "0.35" and ref_round_decimals(10 * p2, 2) == "3.49"
    assert ln["rel"] == "≈"
    assert ln["res"]["v"] == ref_round_decimals(10 * p2, 2)  # the result is still the exact rounding
    assert st.latex(ln).endswith(r"\approx " + ref_round_decimals(10 * p2, 2))
    c = st.claims(ln)[0]
    assert c["relation"] == "≈" and c["chain"] == f"{ref_round_decimals(p2, 2)}*10"


def test_a_tiny_operand_is_printed_with_its_significant_digits(seed):
    o = oracle.transformer_forward(oracle.load_spec(SEED), dps=50)
    r00 = o["R"][0][0]
    assert 0 < r00 < mpmath.mpf("5e-4")
    pr = st.Printer(seed, 3)
    s = pr.small("R[0,0]", 3)
    assert Fraction(s) != 0 and abs(Fraction(s) - Fraction(mpmath.nstr(r00, 30))) < Fraction(1, 10 ** 6)
    assert pr.small("R[0,1]", 3) == "0.000"  # an exact zero stays 0


def test_latex_and_chain_fold_signs_and_keep_precedence():
    a, b, c = ({"op": "fig", "v": v} for v in ("0.292", "-0.808", "1.5"))
    t = st.Sub(a, st.Mul(st.exact("0.5"), b))
    assert st.tex(t) == r"0.292 - 0.5 \times (-0.808)"
    assert st.chain(t) == "0.292-0.5*(-0.808)"
    t = st.Sub(a, b)
    assert st.tex(t) == "0.292 + 0.808" and st.chain(t) == "0.292-(-0.808)"
    t = st.Div(st.Group(st.Add(a, c)), st.exact("2"))
    assert st.tex(t) == r"\left(0.292 + 1.5\right) / 2" and st.chain(t) == "(0.292+1.5)/2"
    t = st.Pow(st.Group(st.Sub(c, a)), 2)
    assert st.chain(t) == "(1.5-0.292)^2"
    t = st.Neg(st.Ln(a))
    assert st.tex(t) == r"-\ln 0.292" and st.chain(t) == "-log(0.292)"
    v = st.Add(st.Vec(a, b), st.Vec(c, c))
    assert st.width(v) == 2 and st.chain(st.component(v, 1)) == "(-0.808)+1.5"
    assert st.tex(v) == r"\left(0.292,\; -0.808\right) + \left(1.5,\; 1.5\right)"


# ---------------------------------------------------------------- property: chain text means what the tree means

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

from symgpt.claims.refs import evaluate  # noqa: E402

_decimals = hs.builds(lambda n, k: str(Fraction(n, 10 ** k)) if k == 0 else f"{n / 10 ** k:.{k}f}",
                      hs.integers(-999, 999), hs.integers(0, 3))
_leaf = _decimals.map(lambda v: {"op": "fig", "v": v})
_tree = hs.recursive(_leaf, lambda t: hs.one_of(
    hs.builds(lambda a, b: st.Add(a, b), t, t), hs.builds(st.Sub, t, t), hs.builds(st.Mul, t, t),
    hs.builds(st.Neg, t), hs.builds(st.Group, t), hs.builds(lambda a: st.Pow(a, 2), t)), max_leaves=6)


def _value(t) -> Fraction:
    """The tree's value, computed here (not by symgpt)."""
    op = t["op"]
    if op == "fig":
        return Fraction(t["v"])
    a = [_value(x) for x in t["args"] if x["op"] != "num" or op != "pow"]
    return {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
            "neg": lambda: -a[0], "group": lambda: a[0], "pow": lambda: a[0] ** 2}[op]()


@settings(max_examples=150, deadline=None)
@given(_tree)
def test_the_chain_text_parses_back_to_the_trees_value(tree):
    v = evaluate(st.chain(tree), None)
    assert Fraction(int(v.p), int(v.q)) == _value(tree)


def test_a_line_whose_arithmetic_misses_its_result_is_refused(bigram):
    """≈ covers rounding only: p[鱼] ≈ 0.35 shown as the loss (≈ 1.05) is a bug, not an approximation."""
    pr = st.Printer(bigram, 4)
    with pytest.raises(ValueError, match="more than one last-place unit"):
        pr.resolve(st.line("L", st.fig("p[2]"), "loss"))
