"""check on fractions TeX sets as displays (issue 27, round 55): ``\\frac{a − b}{2h}`` in a PDF puts the numerator
on the line above the equation's '=' signs and the denominator on the line below. The fraction is read in its place
as ``(a − b)/(2h)``, so a gradient check's quotient worked on its two printed losses is a chain, and that chain on
the check's two losses of one entry is the check's quotient, not the gradient it may equal to its digits.

Expected values come from mpmath (``test_check_round55._moved_losses``), never from symgpt.
"""
from __future__ import annotations

import shutil
from decimal import ROUND_HALF_UP, Decimal

import pytest

from symgpt.check import check

from conftest import write_spec
from test_check_authors import _verdicts
from test_check_display_matrices import _pdf
from test_check_round55 import _moved_losses
from test_check_steps_and_shares import SPEC, r

pytestmark = pytest.mark.skipif(shutil.which("xelatex") is None, reason="needs xelatex")

ENTRIES = ((1, 2, "W[1,sets]"), (2, 4, "W[2,glows]"), (0, 1, "W[0,rises]"), (2, 0, "W[2,sun]"))
BODY = {
    "en": ("For ${name}$:\n\\[ \\frac{{L(\\theta + h) - L(\\theta - h)}}{{2h}} = "
           "\\frac{{{lp} - {lm}}}{{2 \\cdot 10^{{-4}}}} = {q}, \\]\nwhile backpropagation gives {g}.\n\n"),
    "ca": ("Per a ${name}$:\n\\[ \\frac{{\\ell(\\theta + \\tau) - \\ell(\\theta - \\tau)}}{{2\\tau}} = "
           "\\frac{{{lp} - {lm}}}{{2 \\cdot 10^{{-4}}}} = {q}, \\]\ni la retropropagació dona {g}.\n\n"),
}


@pytest.mark.parametrize("lang", sorted(BODY))
def test_a_gradient_check_set_as_display_fractions(tmp_path, lang):
    """Each quotient is the check's: one worked on the printed eight-decimal losses, where that differs from the
    exact quotient's rounding, is wrong as a carried rounding of gradcheck(…); the others match it (before: the
    fraction's parts were lines of their own, no chain, and the quotient was read as the gradient or unmatched)."""
    from test_check_steps_and_shares import forward, weights
    g = forward(*weights())["gW"]
    spec = SPEC.replace("steps = 2\n", "steps = 2\ngradcheck = { h = 1e-4, params = [" +
                        ", ".join(f'"{name}"' for *_, name in ENTRIES) + "] }\n")
    comma = (lambda s: s.replace(".", "{,}")) if lang == "ca" else (lambda s: s)
    body, expect = "", {}
    for i, j, name in ENTRIES:
        lp, lm, quotient = _moved_losses(i, j, "1e-4")
        carried = (Decimal(r(lp, 8)) - Decimal(r(lm, 8))) / Decimal("2e-4")
        q = str(carried.quantize(Decimal("0.0001"), ROUND_HALF_UP))
        expect[q.replace(".", ",") if lang == "ca" else q] = (name, q != r(quotient, 4))
        body += BODY[lang].format(name=name.replace("[", "_{").replace("]", "}"), lp=comma(r(lp, 8)),
                                  lm=comma(r(lm, 8)), q=comma(q), g=comma(r(g[i][j], 6)))
    assert any(c for _, c in expect.values()) and not all(c for _, c in expect.values())
    results = check(_pdf(tmp_path, body), write_spec(tmp_path, spec))
    got = {k.replace("−", "-"): v for k, v in _verdicts(results).items()}
    for q, (name, carried) in expect.items():
        i, j = next((i, j) for i, j, x in ENTRIES if x == name)
        verdict, ref, cause = got[q]
        assert ref in (f"gradcheck(W[{i},{j}], 1e-4)", f"gradcheck({name}, 1e-4)"), (q, got[q])
        assert (verdict, cause) == (("wrong", "carried rounding") if carried else ("matched", None)), (q, got[q])
