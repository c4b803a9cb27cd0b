"""check on matrices TeX sets as displays (issue 27, round 52): a ``bmatrix`` or ``pmatrix`` in a PDF puts its name
on the middle row's line and the other rows on lines of their own, two heads' matrices side by side on the same
lines, a causal mask's entries printed as −∞ or left blank. Each matrix is read as written, so a transposed score is
wrong at its own place (it had been matched by value to its mirror, S[0,1,2], for want of any place).

Expected values come from ``tests/oracle.py`` (mpmath), never from symgpt.
"""
from __future__ import annotations

import shutil
import subprocess
from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_authors import _verdicts

pytestmark = pytest.mark.skipif(shutil.which("xelatex") is None, reason="needs xelatex")


def r(x, places=4) -> str:
    """x rounded half away from zero, as TeX would print it (a minus sign from ``-``)."""
    return str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


@pytest.fixture(scope="module")
def heads(tmp_path_factory):
    """Two heads at d = 4, T = 3 whose score S[0,2,1] and its mirror S[0,1,2] differ at four places: the spec's
    path and the oracle's S and A (per head, row t over columns s)."""
    for seed in range(30):
        toml = oracle.random_spec_toml(seed=seed, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, W_O=True)
        with mp.workdps(50):
            b = oracle.transformer_forward(oracle.loads_spec(toml))["blocks"][0]
        S, A = b["S"], b["A"]
        if r(S[0][2][1]) != r(S[0][1][2]) and r(A[1][2][0])[-2] != r(A[1][2][0])[-1]:
            return write_spec(tmp_path_factory.mktemp("heads"), toml), S, A
    raise AssertionError("no seed below 30 fits")


def _pdf(tmp_path, body: str):
    tex = "\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n" + body + "\n\\end{document}\n"
    (tmp_path / "doc.tex").write_text(tex, encoding="utf-8")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "doc.tex"], cwd=tmp_path, capture_output=True,
                   check=True, timeout=120)
    return tmp_path / "doc.pdf"


def _matrix(env: str, rows: list, masked: str) -> str:
    """A causal matrix's LaTeX: row t's entries up to t, then ``masked`` (−∞, 0, or nothing) past it."""
    return (f"\\begin{{{env}}} " + " \\\\ ".join(" & ".join(rows[t][s] if s <= t else masked for s in range(3))
                                                 for t in range(3)) + f" \\end{{{env}}}")


@pytest.mark.parametrize("names,env", [(("\\tilde a^{(1)}", "\\tilde a^{(2)}"), "bmatrix"),
                                       (("S^{(1)}", "S^{(2)}"), "pmatrix")])
def test_two_heads_score_matrices_side_by_side(tmp_path, heads, names, env):
    """S of both heads side by side, −∞ above the diagonal, head 1's row 3 printing S[0,1,2]'s value at column 2:
    S[0,2,1], a transposed index; every other score matched at its own place."""
    path, S, _ = heads
    cells = [[[r(S[h][t][s]) for s in range(3)] for t in range(3)] for h in range(2)]
    cells[0][2][1] = r(S[0][1][2])
    mask = "-\\infty"
    body = ("The scaled scores of the two heads, the causal mask above the diagonal:\n"
            f"\\[ {names[0]} = {_matrix(env, cells[0], mask)}, \\qquad "
            f"{names[1]} = {_matrix(env, cells[1], mask)} . \\]\n")
    results = check(_pdf(tmp_path, body), path)
    wrongs = [(x.number.text.replace("−", "-"), x.ref, x.cause) for x in results if x.verdict == "wrong"]
    assert wrongs == [(r(S[0][1][2]), "S[0,2,1]", "transposed index")]
    got = {k.replace("−", "-"): v for k, v in _verdicts(results).items()}
    for h, t, s in [(0, 0, 0), (0, 2, 2), (1, 1, 0), (1, 2, 1), (1, 2, 2)]:
        assert got[r(S[h][t][s])][:2] == ("matched", f"S[{h},{t},{s}]"), (h, t, s)


def test_weights_with_the_masked_triangle_left_blank(tmp_path, heads):
    """The two heads' weights with the masked entries left blank, head 2's A[1,2,0] with its last two digits
    swapped: A[1,2,0], swapped digits (the rows' figures count from the left, as the triangle sets them)."""
    path, _, A = heads
    cells = [[[r(A[h][t][s]) for s in range(3)] for t in range(3)] for h in range(2)]
    right = cells[1][2][0]
    cells[1][2][0] = right[:-2] + right[-1] + right[-2]
    body = ("A softmax along each row:\n"
            f"\\[ A^{{(1)}} = {_matrix('bmatrix', cells[0], '')}, \\qquad "
            f"A^{{(2)}} = {_matrix('bmatrix', cells[1], '')} . \\]\n")
    results = check(_pdf(tmp_path, body), path)
    wrongs = [(x.number.text.replace("−", "-"), x.ref, x.cause) for x in results if x.verdict == "wrong"]
    assert wrongs == [(cells[1][2][0], "A[1,2,0]", "swapped digits")]
    got = {k.replace("−", "-"): v for k, v in _verdicts(results).items()}
    assert got[r(A[0][2][1])][:2] == ("matched", "A[0,2,1]") and got[r(A[1][1][1])][:2] == ("matched", "A[1,1,1]")
