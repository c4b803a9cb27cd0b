"""Hostile claims files: every bad input is one clear line, exit 2, fast, nothing written.

A matrix of claims files (huge numbers, bad expressions, unknown keys, wrong
types, files that are not files, control characters) run through
``python -m symgpt.verify`` in-process (:mod:`hostile`), a handful through the
real command, and a hypothesis fuzz test of the claims grammar.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgpt import ClaimError, InputError, LimitError
from symgpt.claims.claims import Claim, ClaimsFile, judge_all
from symgpt.claims.refs import FUNCTIONS

import hostile
from conftest import BIGRAM, ROOT, loaded

SPEC = f'spec = "{BIGRAM.as_posix()}"\n'


def claim(ref="loss", printed="1.0515", where="§1", **more) -> str:
    """One [[claim]] table; values are TOML strings unless given as raw TOML (a tuple)."""
    rows = dict(ref=ref, printed=printed, where=where, **more)
    body = "".join(f"{k} = {v[0] if isinstance(v, tuple) else json.dumps(v)}\n"
                   for k, v in rows.items() if v is not None)
    return "\n[[claim]]\n" + body


def write(tmp_path, text: str | bytes, name="h.claims.toml") -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def refused(tmp_path, text, *needles, argv=()):
    """verify on a claims file: exit 2, one line naming the file and every needle, nothing written."""
    path = write(tmp_path, text)
    before = hostile.files_under(tmp_path)
    t = time.monotonic()
    o = hostile.verify(str(path), *argv)
    assert time.monotonic() - t < 10
    line = hostile.assert_refused(o, str(path), *needles)
    assert o.out == ""
    assert hostile.files_under(tmp_path) == before
    return line


# ---------------------------------------------------------------- the size of a claim

HUGE = [
    ("2^(2^40)", "2^(2^40)"),
    ("10^10^10", "10^(10^10)"),
    ("1e999999999", "the number 1e999999999"),
    ("1" * 1500, "the number 111"),
    ("(1/10)^100000", "(1/10)^100000"),
    ("2^(1/10^18)", "2^(1/(10^18))"),
    ("exp(exp(exp(10)))", "exp(exp(10))"),
    ("1e999*1e999*1e999", "1e999*1e999"),
    ("p[猫]^(10^9)", "p[猫]^(10^9)"),
    ("softmax_T(1e-900, 猫)", "softmax_T(1e-900, 猫)"),
    ("sgd[1].loss^(10^5)", "sgd[1].loss^(10^5)"),
    ("sum(W[0,:])^(10^4)", "sum(W[0,:])^(10^4)"),
    ("exp(-exp(7))", "exp(-exp(7))"),
    ("10^(-10^4)", "10^(-(10^4))"),
    ("loss^(2^(2^20))", "2^(2^20)"),
]


@pytest.mark.parametrize("ref, part", HUGE, ids=[h[0][:24] for h in HUGE])
def test_a_huge_ref_is_refused_up_front(tmp_path, ref, part):
    line = refused(tmp_path, SPEC + claim(ref=ref, printed="0.1"), "claim 1 (line 3)", "ref '", part,
                   "above --max-digits 1000")
    assert "needs numbers of" in line or "has about" in line


@pytest.mark.parametrize("key, value, part", [
    ("chain", "10^10^10", "10^(10^10)"),
    ("chain", "2^(2^40)", "2^(2^40)"),
    ("printed", "1e-999999999", "has about 1e09 digits"),
    ("printed", "10^{-999999999}", "has about 1e09 digits"),
    ("printed", "0." + "1" * 5000, "has about 5001 digits"),
])
def test_a_huge_chain_or_printed_figure_is_refused(tmp_path, key, value, part):
    more = {key: value} if key == "chain" else {"printed": value}
    refused(tmp_path, SPEC + claim(**more), "claim 1", f"{key} '", part, "--max-digits 1000")


def test_the_flag_raises_the_limit(tmp_path):
    path = write(tmp_path, SPEC + claim(ref="2^4000", printed="1"))   # 2^4000 has 1205 digits
    hostile.assert_refused(hostile.verify(str(path)), "2^4000", "about 1205 digits", "--max-digits 1000")
    o = hostile.verify(str(path), "--max-digits", "2000")
    assert o.code == 1 and "1 wrong" in o.out         # 2^4000 is not 1: a verdict, not a refusal


@pytest.mark.parametrize("value", ["0", "-3", "abc", "1e6", "9" * 40])
def test_bad_limit_flags(tmp_path, value):
    path = write(tmp_path, SPEC + claim())
    for flag in ("--max-digits", "--max-ops"):
        hostile.assert_refused(hostile.verify(str(path), flag, value), flag, "expected a whole number")


# ---------------------------------------------------------------- bad expressions

@pytest.mark.parametrize("ref, part", [
    ("__import__(os)", "unknown function '__import__'"),
    ("Foo[1]", "unknown quantity 'Foo'"),
    ("", "empty expression"),
    ("1 +", "unexpected end"),
    ("(((1", "expected ')'"),
    ("-" * 1500 + "1", "nested too deeply"),
    ("exp(1, 2)", "exp() takes 1 argument"),
    ("W[0,:]", "one number"),
    ("1/0", "division by zero"),
    ("x" * 3000, "expression too long: 3000 characters, at most 2000"),
    ("1" * 5000, "expression too long: 5000 characters"),
    ("id(狗)", "not a token"),
    ("(-8)^(1/3)", "a negative number to a fractional power is not real"),
])
def test_a_bad_ref_is_one_line(tmp_path, ref, part):
    refused(tmp_path, SPEC + claim(ref=ref), "claim 1 (line 3)", "ref '", part)


# ---------------------------------------------------------------- the file's keys and types

@pytest.mark.parametrize("text, needles", [
    ('sepc = "x"\n' + claim(), ("unknown key 'sepc'", "did you mean 'spec'")),
    (SPEC + 'claims = []\n', ("unknown key 'claims'", "did you mean 'claim'")),
    (SPEC + claim(prnted="1"), ("claim 1 (line 3)", "unknown key 'prnted'", "did you mean 'printed'")),
    (SPEC + claim(chian="1"), ("claim 1", "unknown key 'chian'", "did you mean 'chain'")),
    (SPEC + claim(printed=("1.0515",)), ("claim 1", "printed: expected a string", "the number 1.0515")),
    (SPEC + claim(ref=("3",)), ("claim 1", "ref: expected a string", "the number 3")),
    (SPEC + claim(where=("true",)), ("claim 1", "where: expected a string", "true")),
    (SPEC + claim(chain=('["a"]',)), ("claim 1", "chain: expected a string", "an array")),
    (SPEC + claim(relation=("1",), chain="1"), ("claim 1", "relation: expected a string")),
    (SPEC + claim(relation="<", chain="1"), ("claim 1", 'relation: expected "=" or "≈"', "'<'")),
    (SPEC + claim(relation="="), ("claim 1", "relation needs a chain")),
    (SPEC + claim(printed=None), ("claim 1", "missing printed")),
    ("spec = 3\n" + claim(), ("spec: expected a string", "the number 3")),
    ('spec = "nope.toml"\n' + claim(), ("spec: no such spec file 'nope.toml'",)),
    ('spec = "."\n' + claim(), ("spec: expected a spec file", "not a regular file")),
    (claim(), ("missing spec",)),
    (SPEC + 'claim = "x"\n', ("claim: expected [[claim]] tables",)),
    (SPEC + "[[claim]\n", ("not valid TOML",)),
    (SPEC + claim() + claim(prnted="2"), ("claim 2 (line 8)", "unknown key 'prnted'")),
])
def test_a_bad_claims_file_is_one_line(tmp_path, text, needles):
    refused(tmp_path, text, *needles)


@pytest.mark.parametrize("chain, part", [
    ("W[0,:]", "a chain is one number"),               # found by the fuzz test: a list reached the rounding
    ("log(-2)", "logarithm"),                          # SymPy's log 2 + iπ reached the evaluator
])
def test_a_bad_chain_is_one_line(tmp_path, chain, part):
    refused(tmp_path, SPEC + claim(printed="1.0516", chain=chain), "claim 1 (line 3)", "chain '", part)


def test_powers_of_numbers_are_not_factored(tmp_path):
    """SymPy factors n to simplify n^(p/q) (seconds for 22 digits, OverflowError past 10^308)."""
    path = write(tmp_path, SPEC + claim(ref="1886056144392301314048^(1177/657)", printed="1.30e38"[:4]))
    t = time.monotonic()
    o = hostile.verify(str(path))
    assert o.code == 1 and "1 wrong" in o.out and time.monotonic() - t < 3


def test_printed_not_a_number(tmp_path):
    refused(tmp_path, SPEC + claim(printed="about 1"), "claim 1", "printed 'about 1'", "not a number")


# ---------------------------------------------------------------- files that are not files

def test_not_utf8(tmp_path):
    refused(tmp_path, SPEC.encode() + b'\n[[claim]]\nref = "\xff"\n', "not UTF-8", "line 4")


def test_a_directory_and_a_fifo(tmp_path):
    d = tmp_path / "d.claims.toml"
    d.mkdir()
    hostile.assert_refused(hostile.verify(str(d)), str(d), "got a directory")
    if hasattr(os, "mkfifo"):
        f = tmp_path / "f.claims.toml"
        os.mkfifo(f)
        t = time.monotonic()
        hostile.assert_refused(hostile.verify(str(f)), str(f), "got a named pipe")
        assert time.monotonic() - t < 5


# ---------------------------------------------------------------- control characters

@pytest.mark.parametrize("ref, part", [
    ("p[\u001b[31m]", "\\x1b"),
    ("loss\u202e", "\\u202e"),
    ("W[0,\u0085]", "\\x85"),
    ("1 + \u007f", "\\x7f"),
])
def test_control_characters_in_a_ref_are_escaped_in_the_message(tmp_path, ref, part):
    refused(tmp_path, SPEC + claim(ref=ref), "claim 1", "ref '", part)


@pytest.mark.parametrize("fmt", ["table", "md"])
def test_control_characters_in_where_never_reach_the_terminal(tmp_path, fmt):
    where = "\u001b[2J\u0007\u202e\u2066\u0085\u2028"
    path = write(tmp_path, SPEC + claim(printed="1.0516", where=where))
    for colour in ("never", "always"):
        o = hostile.verify(str(path), "--format", fmt, "--color", colour)
        assert o.code == 1 and o.err == ""
        assert "\\x1b[2J" in o.out and "\\u202e" in o.out and "\\x85" in o.out and "\\u2028" in o.out
        raw = [c for c in o.out if c in "\u0007\u0085\u2028\u202e\u2066"]
        assert raw == []
        if colour == "never":
            assert "\x1b" not in o.out


def test_json_escapes_what_a_terminal_would_obey(tmp_path):
    where = "§1 \u001b[2J \u007f \u0085 \u2028 \u202e"
    path = write(tmp_path, SPEC + claim(printed="1.0516", where=where))
    o = hostile.verify(str(path), "--format", "json")
    assert o.code == 1
    assert not any(c in o.out for c in "\u001b\u007f\u0085\u2028\u202e")
    assert json.loads(o.out)[0]["where"] == where       # the data survives, escaped


# ---------------------------------------------------------------- fine claims: a verdict

@pytest.mark.parametrize("ref, printed, code", [
    ("loss", "1.0515", 0),
    ("loss", "1.0516", 1),
    ("2^100", "1267650600228229401496703205376", 0),
    ("(1/10)^900 * 10^900", "1", 0),
    ("exp(-100)", "0.000", 0),
    ("--exp(1)", "2.718", 0),                  # SymPy makes exp(1) its constant E
    ("sum_exp^1000 - 1", "1", 1),              # 10^477: settles by precision, not SymPy
])
def test_fine_claims_get_a_verdict(tmp_path, ref, printed, code):
    path = write(tmp_path, SPEC + claim(ref=ref, printed=printed))
    o = hostile.verify(str(path), "--all")
    assert (o.code, o.err) == (code, "")
    assert ("1 correct" if code == 0 else "1 wrong") in o.out


# ---------------------------------------------------------------- the real command (slow: a process each)
# A crash (SIGFPE) or a hang would take pytest down with it in-process; the same refusals are
# checked in-process above (HUGE, test_control_characters_in_where_never_reach_the_terminal).

def command(*argv, timeout=20):
    return subprocess.run([sys.executable, "-m", "symgpt.verify", *argv], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@pytest.mark.slow
def test_command_refuses_the_sigfpe_power_fast(tmp_path):
    path = write(tmp_path, SPEC + claim(ref="2^(2^40)", printed="1"))
    t = time.monotonic()
    r = command(str(path))
    assert time.monotonic() - t < 10
    o = hostile.Outcome(r.returncode, r.stdout, r.stderr)
    hostile.assert_refused(o, str(path), "claim 1", "ref '2^(2^40)'", "above --max-digits 1000")


@pytest.mark.slow
@pytest.mark.parametrize("ref", ["10^10^10", "1e999999999", "2^(1/10^18)"])
def test_command_refuses_hangs(tmp_path, ref):
    path = write(tmp_path, SPEC + claim(ref=ref, printed="1"))
    r = command(str(path))
    hostile.assert_refused(hostile.Outcome(r.returncode, r.stdout, r.stderr), str(path), "ref '", "--max-digits")


@pytest.mark.slow
def test_command_escape_in_where_with_colour_never(tmp_path):
    path = write(tmp_path, SPEC + claim(printed="1.0516", where="x\u001b[31mred\u001b[0m"))
    r = command(str(path), "--color", "never")
    assert r.returncode == 1 and "\x1b" not in r.stdout and "x\\x1b[31mred" in r.stdout


def test_unknown_flag_is_one_line():
    hostile.assert_refused(hostile.verify("--frobnicate"), "--frobnicate")


# ---------------------------------------------------------------- fuzz: the claims grammar

NAMES = ["loss", "p[猫]", "p[鱼]", "z[吃]", "W[0,2]", "E[猫,0]", "x[1]", "sum_exp", "grad_W[1,2]", "d",
         "lr", "adamw.eps", "sgd[1].loss", "sgd[20].p[猫]", "adamw[1].m[W,0,2]", "W[0,:]", "E[:,1]",
         "p[狗]", "W[9,9]", "nope"]
NUMBERS = ["0", "1", "2", "0.5", "1e-5", "3.25", "1e999", "1e-999", "1e99999", "9" * 1200, "10^10^10",
           "2^(2^40)", "(1/10)^100000", "1e999999999", ".5", "1e+3"]
JUNK = ["@", "]", "[", ",", ":", "\u001b", "''", "\\", ";", "=", "{", "inf", "猫", "∞", "¹", "\u202e", "1..2"]
OPS = ["+", "-", "*", "/", "^", "×", "÷", "−", "·"]


def expressions():
    leaf = st.one_of(st.sampled_from(NUMBERS + NAMES),
                     st.integers(-10 ** 30, 10 ** 30).map(str),
                     st.fractions(max_denominator=10 ** 6).map(lambda q: f"{q.numerator}/{q.denominator}"),
                     st.sampled_from(JUNK))

    def grow(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(OPS), inner).map(" ".join),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
            st.tuples(st.sampled_from(sorted(FUNCTIONS)), st.lists(inner, max_size=3))
              .map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, st.sampled_from(JUNK + OPS), inner).map("".join))
    return st.recursive(leaf, grow, max_leaves=12)


_FUZZ_D = {}   # the bigram derivation, loaded once


@settings(max_examples=300, deadline=3000, suppress_health_check=list(HealthCheck), derandomize=True)
@given(ref=expressions(), printed=st.sampled_from(["0.1", "1", "-0.25", "8.5%", "1/3", "10^{-3}", "0.000",
                                                  "1e-999999999", "x"]),
       chain=st.one_of(st.none(), expressions()))
def test_fuzz_every_claim_is_a_verdict_or_one_clear_error(ref, printed, chain):
    if "d" not in _FUZZ_D:
        _FUZZ_D["d"] = loaded("bigram")
    cf = ClaimsFile(Path("f.claims.toml"), BIGRAM, (Claim(1, 3, ref, printed, "§1", chain),))
    t = time.monotonic()
    try:
        vs = judge_all(cf, _FUZZ_D["d"])
    except (ClaimError, InputError, LimitError) as e:
        msg = str(e)
        assert "\n" not in msg and msg.startswith("f.claims.toml: claim 1 (line 3): ")
        assert all(c == "\t" or (c >= " " and not "\u007f" <= c <= "\u009f") for c in msg)
    else:
        assert [v.verdict in ("correct", "wrong", "undecided") for v in vs] == [True]
    assert time.monotonic() - t < 3
