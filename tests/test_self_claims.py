"""Documents that check themselves: every figure our documents print, judged by verify.

``python -m symgpt.render --format claims`` writes one claim per printed figure
(table cells, worked lines' operands and results; a worked line's result with its
printed arithmetic as ``chain`` and ``relation``).  ``verify`` recomputes every
figure from the engine and, for ``relation = "="``, redoes the printed
arithmetic exactly: that is the independent check of the documents.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

import oracle
from conftest import ROOT, ref_round_decimals
from symgpt.render import render_all
from symgpt.verify import check_file
from test_render_cases import SEEDS, deep_spec_path, weird_spec_path


def _untied(directory: Path) -> Path:
    path = directory / "untied.toml"
    path.write_text(oracle.random_spec_toml(seed=3, V=5, d=2, heads=1, d_ff=3, layers=1, T=2,
                                            tied=False, W_O=True), encoding="utf-8")
    return path


SPECS = {"tiny-transformer": lambda tmp: SEEDS[0], "bigram": lambda tmp: SEEDS[1],
         "weird": lambda tmp: weird_spec_path(), "deep": lambda tmp: deep_spec_path(), "untied": _untied}


@pytest.mark.parametrize("case", sorted(SPECS))
def test_every_printed_figure_of_our_documents_verifies(tmp_path, case):
    path = SPECS[case](tmp_path)
    out = tmp_path / "out"
    files = render_all([path], formats=("claims",), langs=("zh", "en"), out_dir=out)
    assert sorted(p.name for p in files) == sorted(f"{path.stem}.{lang}.claims.toml" for lang in ("zh", "en"))
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
        verdicts = check_file(out / rel)
        assert len(verdicts) > 50
        bad = [(v.where, v.ref, v.printed, v.correct, v.cause) for v in verdicts if not v.ok]
        assert not bad, bad[:5]
        # a worked line is a claim with its printed arithmetic; most close by hand
        closing = [v for v in verdicts if v.chain is not None and v.chain_from is None]
        assert len(closing) >= 8


def test_the_claims_command_and_verify_agree_wherever_out_is(tmp_path):
    out = tmp_path / "deeper" / "dir"
    r = subprocess.run([sys.executable, "-m", "symgpt.render", "bigram", "--format", "claims", "--lang", "en",
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    claims = out / "bigram.en.claims.toml"
    data = tomllib.loads(claims.read_text(encoding="utf-8"))
    assert (claims.parent / data["spec"]).resolve() == SEEDS[1].resolve()
    assert not Path(data["spec"]).is_absolute()
    r = subprocess.run([sys.executable, "-m", "symgpt.verify", str(claims)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
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
    files = render_all([SPECS[case](tmp_path)], formats=("claims",), langs=("en",))
    data = tomllib.loads(next(iter(files.values())))
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
    text = next(t for p, t in render_all([SEEDS[0]], formats=("md",), langs=("en",)).items() if p.suffix == ".md")
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
