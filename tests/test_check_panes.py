"""check: readings round 41 of the held-out tutorials showed (issue 27), each on a text written here, in more than one
language, notation or format:

* two tables set side by side in a text's layout (a PDF's, a plain text's): E's rows and the positions' rows on the
  same lines, the second table's own row labels (``t = 1``, ``位置 1``) in the middle of each line;
* a norm's weight and shift by their Greek letter and the norm's number (``γ₁ = (…)``, ``\\beta_{2} = (…)``): our
  gamma1 and beta2, not a matrix γ's rows;
* ``\\hat h`` without braces is ĥ, a letter of its own: ``ĥ_3 = h_3 / 1.0874 = (…)`` is the normalised row, not h's.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _d, _verdicts, _wrong, narrow  # noqa: F401 - fixtures
from test_check_layouts import r4
from test_check_vocabulary import _results


def _side_by_side(E, PE, row_label, wrong_at=None) -> str:
    """E's five rows and, beside the first three, the positions' rows, laid out with spaces as pdftotext does;
    PE's entry ``wrong_at`` printed with its last digit one up."""
    def pe(t, j):
        text = r4(PE[t][j])
        if (t, j) == wrong_at:
            text = text[:-1] + str((int(text[-1]) + 1) % 10)
        return text
    lines = [f"{'E':>8}{'0':>9}{'1':>9}", f"{'':>40}{'P':<10}{'0':>9}{'1':>9}"]
    for v in range(5):
        left = f"{'t' + str(v):>8}{_d(E[v][0]):>9}{_d(E[v][1]):>9}"
        right = f"{'':>12}{row_label(v):<10}{pe(v, 0):>9}{pe(v, 1):>9}" if v < 3 else ""
        lines.append(left + right)
    return "Weights and positions:\n\n" + "\n".join(lines) + "\n\nThe rest follows.\n"


@pytest.mark.parametrize("row_label", [lambda t: f"t = {t}", lambda t: f"位置 {t}", lambda t: f"pos{t}"])
def test_two_tables_side_by_side_in_a_texts_layout(tmp_path, narrow, row_label):  # noqa: F811
    """Each cell is its own table's: no position's entry read as E's, and a wrong position entry is P's."""
    path, spec, fw = narrow
    E, PE = spec["weights"]["E"], fw["PE"]
    assert _wrong(_results(tmp_path, _side_by_side(E, PE, row_label), path, "doc.txt")) == []
    got = _wrong(_results(tmp_path, _side_by_side(E, PE, row_label, wrong_at=(2, 0)), path, "doc.txt"))
    assert [ref for ref, *_ in got] == ["PE[2,0]"]


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_a_norms_weight_by_its_greek_letter_and_number(tmp_path, narrow, fmt):  # noqa: F811
    """γ₁ = (…) and β₂ = (…) are gamma1's and beta2's entries; one of β₂'s entries off is beta2's, wrong."""
    path, spec, _ = narrow
    layer = spec["layer"][0]
    g1, b2 = [_d(x) for x in layer["gamma1"]], [_d(x) for x in layer["beta2"]]
    off = str(mp.nstr(mp.mpf(layer["beta2"][1].numerator) / layer["beta2"][1].denominator + mp.mpf("0.5"), 6))
    names = (r"$\gamma_1$", r"$\beta_{2}$") if fmt == "md" else ("γ₁", "β₂")
    text = (f"The norms' parameters: {names[0]} = ({g1[0]}, {g1[1]}) and {names[1]} = ({b2[0]}, {off}).\n")
    got = _verdicts(_results(tmp_path, text, path, f"doc.{fmt}"))
    assert got[g1[0]][:2] == ("matched", "gamma1[0]") and got[g1[1]][:2] == ("matched", "gamma1[1]")
    assert got[off][:2] == ("wrong", "beta2[1]")


@pytest.fixture(scope="module")
def rms_block(tmp_path_factory):
    """A pre-RMSNorm block whose norms have weight 1 (d = 2, T = 3): path and the inputs' rows by hand."""
    toml = oracle.random_spec_toml(seed=5, V=5, d=2, heads=1, d_ff=4, layers=1, T=3, ln_params=False, norm="pre",
                                   norm_kind="rmsnorm")
    path = write_spec(tmp_path_factory.mktemp("rms"), toml)
    with mp.workdps(50):
        X = oracle.transformer_forward(oracle.loads_spec(toml))["X"]
    return path, X


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_normalised_row_written_as_its_formula(tmp_path, rms_block, fmt):
    """ĥ_3 = h_3 / rms = (…): the normalised row's entries, not h's (no false alarm as X's); h_3 = (…) is X's."""
    path, X = rms_block
    with mp.workdps(50):
        rms = mp.sqrt((X[2][0] ** 2 + X[2][1] ** 2) / 2 + mp.mpf("1e-5"))
        hat = [r4(x / rms) for x in X[2]]
    h = [r4(x) for x in X[2]]
    rows = [(t, r4(X[t][0]), r4(X[t][1])) for t in range(3)]
    math = (r"\(h^{{[0]}}_{} = ({}, {})\)", r"\(\hat h^{{[0]}}_3 = h^{{[0]}}_3 / {} = ({}, {})\)")
    if fmt == "md":
        math = tuple(m.replace(r"\(", "$").replace(r"\)", "$") for m in math)
    body = (f"The inputs are {', '.join(math[0].format(t + 1, a, b) for t, a, b in rows[:2])}, and the last word "
            f"has {math[0].format(3, *h)}, so the normalised vector is {math[1].format(r4(rms), *hat)}.")
    text = f"<!doctype html><article><p>{body}</p></article>\n" if fmt == "html" else body + "\n"
    got = _verdicts(_results(tmp_path, text, path, f"doc.{fmt}"))
    assert all(got[x][0] != "wrong" for x in hat) and all(got[x][1] in ("LN1[2,0]", "LN1[2,1]", None) for x in hat)
    assert got[h[0]][0] == "matched" and got[h[0]][1] in ("X[2,0]", "H0[2,0]")
