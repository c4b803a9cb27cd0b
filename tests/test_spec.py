"""Reading specs: exact numbers, and bad specs rejected with one clear line."""
from __future__ import annotations

import re
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational

from symgpt.engine.spec import SpecError, load_spec, number

import hostile
import oracle
from conftest import BIGRAM, SEED, replace_once, write_spec

# ---------------------------------------------------------------- exact numbers


def test_seed_numbers_are_exact():
    s = load_spec(SEED)
    p = s.params
    assert p["W_Q"] == [[Rational(3, 10), Rational(2, 5)], [Rational(1, 2), Rational(1, 5)]]
    assert p["E"][2] == [Rational(1, 2), Rational(4, 5)]       # 我
    assert p["E"][0] == [0, 0]                                 # <pad>
    assert p["W_1"][0] == [Rational(3, 10), Rational(1, 10), Rational(-1, 5), Rational(2, 5)]
    assert p["b_1"] == [Rational(1, 10)] * 4
    assert p["gamma1"] == [1, 1] and p["beta2"] == [0, 0]
    for row in p["E"] + p["W_Q"] + p["W_2"]:
        for x in row:
            assert isinstance(x, sympy.Rational)
    # 0.3 is 3/10, not the double nearest to it
    assert p["W_Q"][0][0] != Rational(0.3)
    assert s.ln_eps == Rational(1, 100000)
    assert isinstance(s.ln_eps, sympy.Rational)
    assert s.pe_base == 10000
    assert (s.vocab, s.input, s.target) == (("<pad>", "<bos>", "我", "爱", "你", "他"), (2, 3), 4)
    assert (s.V, s.d, s.heads, s.d_ff, s.layers, s.T, s.tied) == (6, 2, 1, 4, 1, 2, True)
    assert s.sampling.uniform == Rational(3, 4) and s.sampling.top_p == Rational(1, 2)


def test_fraction_strings(tmp_path, seed_text):
    text = replace_once(seed_text, "b_1 = [0.1, 0.1, 0.1, 0.1]", 'b_1 = ["1/3", 0.1, "-2/7", 1e-5]')
    s = load_spec(write_spec(tmp_path, text))
    assert s.params["b_1"] == [Rational(1, 3), Rational(1, 10), Rational(-2, 7), Rational(1, 100000)]


@pytest.mark.parametrize("text,want", [("0.3", Rational(3, 10)), ("1e-5", Rational(1, 100000)),
                                       ("1/3", Rational(1, 3)), ("-2.50", Rational(-5, 2)),
                                       ("1.5E+3", 1500), (7, 7)])
def test_number(text, want):
    got = number(text, "f.toml", "k")
    assert got == want and isinstance(got, sympy.Rational)


decimals = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}" + (f".{frac}" if frac else "") + (f"e{exp}" if exp else ""),
    st.sampled_from(["", "-", "+"]), st.integers(0, 10 ** 6), st.text("0123456789", max_size=12),
    st.one_of(st.none(), st.integers(-30, 30)))


@settings(max_examples=100, deadline=None)
@given(decimals)
def test_toml_float_text_is_exact(text):
    """A TOML float is read from its text: the value is Fraction(text), exactly."""
    spec_text = replace_once(SEED.read_text(encoding="utf-8"), "W_Q = [[0.3, 0.4]", f"W_Q = [[{text}, 0.4]")
    want = Fraction(text)
    with tempfile.TemporaryDirectory() as tmp:
        got = load_spec(write_spec(Path(tmp), spec_text)).params["W_Q"][0][0]
    assert isinstance(got, sympy.Rational)
    assert (got.p, got.q) == (want.numerator, want.denominator)


# ---------------------------------------------------------------- bad specs

def _drop_line(text, start):
    lines = text.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.startswith(start)]
    assert len(hits) == 1
    return "".join(lines[:hits[0]] + lines[hits[0] + 1:])


def _d4_heads3(_seed_text):
    return oracle.random_spec_toml(seed=5, V=6, d=4, heads=3, d_ff=4, layers=1, T=2)


INJECTION = "__import__('os').system('x')"

# name -> (make the bad text from the seed's text, key the message names, what it expects)
BAD = {
    "missing_W_Q": (lambda t: _drop_line(t, "W_Q = "), "W_Q", r"missing|required"),
    "W_Q_2x3": (lambda t: replace_once(t, "W_Q = [[0.3, 0.4], [0.5, 0.2]]",
                                       "W_Q = [[0.3, 0.4, 0.1], [0.5, 0.2, 0.6]]"), "W_Q", r"2×2|2x2"),
    "unknown_token": (lambda t: replace_once(t, 'input = ["我", "爱"]', 'input = ["我", "她"]'),
                      "data.input", r"她"),
    "duplicate_token": (lambda t: replace_once(t, '"你", "他"]', '"你", "我"]'), "vocab", r"twice|duplicate"),
    "non_numeric_weight": (lambda t: replace_once(t, "W_Q = [[0.3, 0.4]", 'W_Q = [["abc", 0.4]'),
                           "W_Q", r"number"),
    "code_in_ln_eps": (lambda t: replace_once(t, "ln_eps = 1e-5", f'ln_eps = "{INJECTION}"'),
                       "ln_eps", r"number"),
    "code_in_weight": (lambda t: replace_once(t, "W_V = [[0.1, 0.5]", f'W_V = [["{INJECTION}", 0.5]'),
                       "W_V", r"number"),
    "heads_3_d_2": (lambda t: replace_once(t, "heads = 1", "heads = 3"), "heads", r"divisor|divid"),
    "heads_3_d_4": (_d4_heads3, "heads", r"divisor|divid"),
    "empty_input": (lambda t: replace_once(t, 'input = ["我", "爱"]', "input = []"), "data.input",
                    r"non-empty|at least one|empty"),
    "negative_eps": (lambda t: replace_once(t, "ln_eps = 1e-5", "ln_eps = -1e-5"), "ln_eps",
                     r"≥ 0|>= 0|non-negative|nonnegative"),
    "malformed_toml": (lambda t: replace_once(t, "d = 2\n", "d = = 2\n"), "", r"TOML.*line \d+"),
}


def _bad_spec(tmp_path, seed_text, case) -> Path:
    make, _, _ = BAD[case]
    text = make(seed_text)
    assert text != seed_text
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    return write_spec(spec_dir, text, f"bad-{case.replace('_', '-')}.toml")


def _check_message(msg, path, case):
    _, key, expect = BAD[case]
    assert "\n" not in msg.strip(), msg
    assert path.name in msg, f"the file is not named: {msg}"
    assert key in msg, f"the key {key!r} is not named: {msg}"
    assert re.search(expect, msg), f"no expectation /{expect}/ in: {msg}"


def test_valid_variants_load(tmp_path, seed_text):
    """Control: the untouched seed text loads, so each failure below is the defect's."""
    load_spec(write_spec(tmp_path, seed_text))


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_spec_in_process(tmp_path, seed_text, case):
    path = _bad_spec(tmp_path, seed_text, case)
    with pytest.raises(SpecError) as e:
        load_spec(path)
    _check_message(str(e.value), path, case)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_spec_render_command(tmp_path, seed_text, case):
    """The command's refusal (in this process, through symgpt.cli.run): exit 2, one line, nothing written."""
    path = _bad_spec(tmp_path, seed_text, case)
    out = tmp_path / "out"
    out.mkdir()
    line = hostile.assert_refused(hostile.render(str(path), "--out", str(out)))
    _check_message(line, path, case)
    assert list(out.iterdir()) == []


def test_bad_spec_stops_the_whole_render(tmp_path, seed_text):
    """A good spec, then a bad one: exit 2 and nothing written, not even the good one's files
    (the good one renders in full first); a new --out is not even created."""
    good = write_spec(tmp_path, BIGRAM.read_text(encoding="utf-8"), "good.toml")
    bad = _bad_spec(tmp_path, seed_text, "W_Q_2x3")
    before = sorted(tmp_path.rglob("*"))
    hostile.assert_refused(hostile.render(str(good), str(bad), "--out", str(tmp_path / "new" / "out")), bad.name)
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("field", ["ln_eps", "W_V"])
def test_code_in_a_number_field_is_never_run(tmp_path, seed_text, field):
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path('{marker}').touch()"
    if field == "ln_eps":
        text = replace_once(seed_text, "ln_eps = 1e-5", f'ln_eps = "{payload}"')
    else:
        text = replace_once(seed_text, "W_V = [[0.1, 0.5]", f'W_V = [["{payload}", 0.5]')
    path = write_spec(tmp_path, text)
    with pytest.raises(SpecError):
        load_spec(path)
    hostile.assert_refused(hostile.render(str(path), "--out", str(tmp_path / "out")), field)
    assert not marker.exists()


# ---------------------------------------------------------------- number texts that escape SpecError

def test_number_division_by_zero_is_spec_error():
    with pytest.raises(SpecError, match=r"f\.toml: layer\[0\]\.W_Q\[0,0\]: .*division by zero"):
        number("1/0", "f.toml", "layer[0].W_Q[0,0]")


@pytest.mark.parametrize("text,want", [("1e-5/3", Fraction(1, 300000)), ("0.5/2", Fraction(1, 4)),
                                       ("-3/4", Fraction(-3, 4))])
def test_number_decimal_fractions_are_exact(text, want):
    """A quotient of two decimal texts is the exact quotient."""
    q = number(text, "f.toml", "k")
    assert Fraction(int(q.p), int(q.q)) == want


def test_render_cli_division_by_zero_in_weight(tmp_path, seed_text):
    text = replace_once(seed_text, "W_Q = [[0.3, 0.4]", 'W_Q = [["1/0", 0.4]')
    path = write_spec(tmp_path, text)
    out = tmp_path / "out"
    out.mkdir()
    hostile.assert_refused(hostile.render(str(path), "--out", str(out)), "W_Q", "division by zero")
    assert list(out.iterdir()) == []


def test_toml_float_with_underscores(tmp_path, seed_text):
    text = replace_once(seed_text, "ln_eps = 1e-5", "ln_eps = 0.000_01")
    assert load_spec(write_spec(tmp_path, text)).ln_eps == Rational(1, 100000)
