"""Documents that check themselves: every figure our documents print, judged by verify.

``python -m symgpt.render --format claims`` writes one claim per printed figure
(table cells, worked lines' operands and results; a worked line's result with its
printed arithmetic as ``chain`` and ``relation``).  ``verify`` recomputes every
figure from the engine and, for ``relation = "="``, redoes the printed
arithmetic exactly: that is the independent check of the documents.
"""
from __future__ import annotations

import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from symgpt.render import render_all
from symgpt.verify import check_file

import hostile
import oracle
from conftest import ref_round_decimals
from test_render_cases import CASES, SEEDS, rendered


def _untied(directory: Path) -> Path:
    path = directory / "untied.toml"
    path.write_text(oracle.random_spec_toml(seed=3, V=5, d=2, heads=1, d_ff=3, layers=1, T=2,
                                            tied=False, W_O=True), encoding="utf-8")
    return path


def claims_files(case, tmp_path) -> dict:
    """{name: text} of a case's two self-claims files: the session's shared render for the
    cases of test_render_cases, a render of its own for the untied spec."""
    if case in CASES:
        files = rendered(case)
    else:
        files = render_all([_untied(tmp_path)], formats=("claims",), langs=("zh", "en"))
    return {p.name: t for p, t in files.items() if p.name.endswith(".claims.toml")}


@pytest.mark.parametrize("case", CASES + ["untied"])
def test_every_printed_figure_of_our_documents_verifies(tmp_path, case):
    files = claims_files(case, tmp_path)
    assert sorted(files) == sorted(f"{case}.{lang}.claims.toml" for lang in ("zh", "en"))
    zh, en = (tomllib.loads(files[f"{case}.{lang}.claims.toml"])["claim"] for lang in ("zh", "en"))
    # the two languages claim the same figures; only the where-strings are in their language
    assert [{k: v for k, v in c.items() if k != "where"} for c in zh] == \
           [{k: v for k, v in c.items() if k != "where"} for c in en]
    assert [c["where"] for c in zh] != [c["where"] for c in en]
    path = tmp_path / f"{case}.en.claims.toml"
    path.write_text(files[path.name], encoding="utf-8")
    verdicts = check_file(path)
    assert len(verdicts) == len(en) > 50
    bad = [(v.where, v.ref, v.printed, v.correct, v.cause) for v in verdicts if not v.ok]
    assert not bad, bad[:5]
    # a worked line is a claim with its printed arithmetic; most close by hand
    closing = [v for v in verdicts if v.chain is not None and v.chain_from is None]
    assert len(closing) >= 8


def test_the_claims_command_and_verify_agree_wherever_out_is(tmp_path, monkeypatch):
    out = tmp_path / "deeper" / "dir"
    o = hostile.render("bigram", "--format", "claims", "--lang", "en", "--out", str(out))
    assert o.code == 0, o.err
    claims = out / "bigram.en.claims.toml"
    data = tomllib.loads(claims.read_text(encoding="utf-8"))
    assert (claims.parent / data["spec"]).resolve() == SEEDS[1].resolve()
    assert not Path(data["spec"]).is_absolute()
    monkeypatch.chdir(tmp_path)  # verify from another working folder
    o = hostile.verify(str(claims))
    assert o.code == 0, o.out + o.err
    # where-strings are in the document's language and name our section and place
    wheres = [c["where"] for c in data["claim"]]
    assert any(re.fullmatch(r"§\d+ .+, table \d+-\d+, row \d+, column \d+", w) for w in wheres)
    assert any(re.fullmatch(r"§\d+ .+, worked display \d+, line \d+", w) for w in wheres)


def _rational_chain(chain: str):
    """A chain of numbers with + - * / and parentheses, evaluated with Fractions (None otherwise)."""
    tokens = re.findall(r"\d+(?:\.\d+)?(?:e-?\d+)?|[-+*/()^]", chain)
    if "".join(tokens) != chain or "^" in tokens:
        return None
    pos = 0

    def expr():
        nonlocal pos
        v = term()
        while pos < len(tokens) and tokens[pos] in "+-":
            op = tokens[pos]
            pos += 1
            v = v + term() if op == "+" else v - term()
        return v

    def term():
        nonlocal pos
        v = factor()
        while pos < len(tokens) and tokens[pos] in "*/":
            op = tokens[pos]
            pos += 1
            v = v * factor() if op == "*" else v / factor()
        return v

    def factor():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t == "-":
            return -factor()
        if t == "(":
            v = expr()
            pos += 1
            return v
        mant, _, e = t.partition("e")
        return Fraction(mant) * Fraction(10) ** int(e or 0)

    return expr()


@pytest.mark.parametrize("case", ["tiny-transformer", "bigram"])
def test_worked_sums_and_products_close_by_hand(tmp_path, case):
    """Independently of verify: the + − × ÷ lines marked = redo to the printed result with Fractions."""
    data = tomllib.loads(claims_files(case, tmp_path)[f"{case}.en.claims.toml"])
    checked = 0
    for c in data["claim"]:
        if c.get("relation") != "=":
            continue
        q = _rational_chain(c["chain"])
        if q is None:
            continue
        places = len(c["printed"].split(".")[1]) if "." in c["printed"] else 0
        assert ref_round_decimals(q, places) == c["printed"], c
        checked += 1
    assert checked > (40 if case == "tiny-transformer" else 5)


def test_the_source_documents_false_equations_are_true_in_ours(tmp_path):
    """The issue's examples: Z as a sum of its printed terms and −ln p_target close in our document."""
    text = rendered("tiny-transformer")[Path("tiny-transformer.en.md")]
    z = next(ln for ln in text.splitlines() if ln.startswith("Z = "))
    terms, result = z[len("Z = "):].split(" = ")
    total = sum((Fraction(t.strip()) for t in terms.split("+")), Fraction(0))
    assert ref_round_decimals(total, 3) == result.strip()
    loss = next(ln for ln in text.splitlines() if ln.startswith(r"\mathcal{L} = -\ln p"))
    m = re.search(r"-\\ln ([\d.]+) = ([\d.]+)$", loss)
    import mpmath
    with mpmath.workdps(40):
        assert ref_round_decimals(-mpmath.log(mpmath.mpf(m[1])), 3) == m[2]
    assert m[2] == "2.467"
    assert "How to read a worked line" in text
