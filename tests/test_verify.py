"""python -m symgpt.verify: planted errors, certified verdicts near rounding boundaries,
output formats, exit statuses, one-line errors, --list, errata and the seed verdicts.

Expected values come from the mpmath oracle, Fractions and the decimal module.
"""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tomllib
from fractions import Fraction

import mpmath
import pytest

from symgpt import LimitError, Limits, verify

import hostile
import oracle
from conftest import BIGRAM, ORACLE_DPS, ROOT, ref_round_decimals, to_fraction

SEED_CLAIMS = ROOT / "derivations" / "tiny-transformer.claims.toml"
BIGRAM_CLAIMS = ROOT / "derivations" / "bigram.claims.toml"
NAMES = ["<pad>", "<bos>", "我", "爱", "你", "他"]


def cli(*args, env=None):
    """Run python -m symgpt.verify in a subprocess: (status, stdout, stderr)."""
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable, "-m", "symgpt.verify", *map(str, args)], cwd=ROOT,
                       capture_output=True, text=True, encoding="utf-8", env=e, timeout=300)
    return r.returncode, r.stdout, r.stderr


def claim_count(path) -> int:
    """How many [[claim]] tables a claims file has, read with tomllib (not with symgpt)."""
    return len(tomllib.loads(path.read_text(encoding="utf-8"))["claim"])


def run_main(capsys, *args):
    code = verify.main([str(a) for a in args])
    return code, capsys.readouterr().out


def claims_text(claims, spec=BIGRAM) -> str:
    """A claims file for (ref, printed[, chain]) tuples."""
    out = [f'spec = {json.dumps(spec.as_posix())}']
    for i, c in enumerate(claims, 1):
        out.append(f'\n[[claim]]\nref = {json.dumps(c[0], ensure_ascii=False)}\n'
                   f'printed = {json.dumps(c[1], ensure_ascii=False)}\nwhere = "test {i}"')
        if len(c) > 2:
            out.append(f'chain = {json.dumps(c[2], ensure_ascii=False)}')
    return "\n".join(out) + "\n"


def write_claims(tmp_path, claims, spec=BIGRAM, name="t.claims.toml"):
    path = tmp_path / name
    path.write_text(claims_text(claims, spec), encoding="utf-8")
    return path


def copy_with(tmp_path, source, plants: dict):
    """A copy of a claims file (its spec made absolute) with printed figures replaced.

    ``plants`` maps a claim's 1-based index to its new printed string.
    """
    lines = source.read_text(encoding="utf-8").splitlines()
    n, out = 0, []
    for line in lines:
        if line.strip() == "[[claim]]":
            n += 1
        if line.startswith("spec = "):
            line = f'spec = {json.dumps((source.parent / tomllib.loads(line)["spec"]).as_posix())}'
        if n in plants and line.startswith("printed = "):
            line = f'printed = "{plants[n]}"'
        out.append(line)
    path = tmp_path / source.name
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def find(path, ref, printed):
    """Index of the first claim with this ref and printed figure."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for i, c in enumerate(data["claim"], 1):
        if c["ref"] == ref and c["printed"] == printed:
            return i
    raise AssertionError(f"no claim {ref} = {printed}")


def decimal_round(x, k) -> str:
    return ref_round_decimals(to_fraction(x), k)


# ---------------------------------------------------------------- planted errors

@pytest.fixture(scope="module")
def seed_verdicts():
    return verify.check_file(SEED_CLAIMS)


def test_planted_errors_are_exactly_the_new_wrong_ones(tmp_path, seed_verdicts, seed_oracle):
    o = seed_oracle
    plants = {
        find(SEED_CLAIMS, "A[1,0]", "0.454"): "0.464",          # a changed digit
        find(SEED_CLAIMS, "W_1[1,1]", "-0.3"): "0.3",           # a flipped sign
        find(SEED_CLAIMS, "A[1,1]", "0.546"): "0.547",          # one unit in the last place
        find(SEED_CLAIMS, "p[你]", "8.5%"): "8.4%",              # one unit, as a percentage
        find(SEED_CLAIMS, "vocab_size()", "6"): "7",            # a wrong count
    }
    # the oracle agrees that each original figure is right and each planted one is not
    assert decimal_round(o["A"][1][0], 3) == "0.454" and decimal_round(o["A"][1][1], 3) == "0.546"
    assert decimal_round(o["p"][4] * 100, 1) == "8.5"
    copy = copy_with(tmp_path, SEED_CLAIMS, plants)
    after = verify.check_file(copy)
    before = {v.index: v for v in seed_verdicts}
    newly_wrong = {v.index for v in after if not v.ok and before[v.index].ok}
    assert newly_wrong == set(plants)
    for v in after:
        if v.index not in plants:
            b = before[v.index]
            assert (v.verdict, v.cause, v.exact, v.correct) == (b.verdict, b.cause, b.exact, b.correct)
    by_index = {v.index: v for v in after}
    assert by_index[find(SEED_CLAIMS, "A[1,0]", "0.454")].correct == "0.454"
    assert by_index[find(SEED_CLAIMS, "vocab_size()", "6")].distance == "1.0"
    # the causes, by hand: 0.464 for 0.45416 differs before its last digit; 0.3 is −0.3's digits with the other
    # sign; 0.547 for 0.54584 differs in the last digit only; 8.4% is 8.4807% cut, not rounded; 7 for the exact 6
    # is a one-digit figure's plain error
    causes = {"0.464": "plain error", "0.3": "sign flip", "0.547": "last-digit slip", "8.4%": "truncation",
              "7": "plain error"}
    assert {plants[i]: by_index[i].cause for i in plants} == causes


def test_planted_errors_via_the_command(tmp_path):
    plants = {find(BIGRAM_CLAIMS, "loss", "1.0515"): "1.0516",
              find(BIGRAM_CLAIMS, "grad_W[0,2]", "-0.1952"): "0.1952"}
    copy = copy_with(tmp_path, BIGRAM_CLAIMS, plants)
    o = hostile.verify(str(copy), "--format", "json")
    assert o.code == 1 and o.err == ""
    rows = json.loads(o.out)
    assert len(rows) == claim_count(BIGRAM_CLAIMS)
    base = {r["index"] for r in json.loads(hostile.verify(str(BIGRAM_CLAIMS), "--format", "json").out)
            if r["verdict"] != "correct"}
    assert {r["index"] for r in rows if r["verdict"] != "correct"} == base | set(plants)


# ---------------------------------------------------------------- near rounding boundaries

def _mp_round(expr_fn, k):
    with mpmath.workdps(120):
        return decimal_round(expr_fn(), k)


@pytest.mark.parametrize("ref, printed, verdict", [
    ("0.0005 + exp(-100)", "0.001", "correct"),          # 3.7e-44 above the boundary
    ("0.0005 + exp(-100)", "0.000", "wrong"),
    ("0.0005 - exp(-100)", "0.000", "correct"),          # just below it
    ("0.0005 - exp(-100)", "0.001", "wrong"),
    ("-0.0005 - exp(-100)", "-0.001", "correct"),
    ("0.0005", "0.001", "correct"),                      # an exact tie: half away from zero
    ("-0.0005", "-0.001", "correct"),
    ("0.0005", "0.000", "wrong"),
    # engine values that cancel: p·Z/e^z = 1 exactly, enclosed by balls of growing precision
    ("p[鱼]*sum_exp/exp(z[鱼]) - 1 + 0.0005 + exp(-100)", "0.001", "correct"),
    ("p[鱼]*sum_exp/exp(z[鱼]) - 1 + 0.0005 - exp(-100)", "0.000", "correct"),
])
def test_near_boundary_is_certified(tmp_path, capsys, ref, printed, verdict):
    path = write_claims(tmp_path, [(ref, printed)])
    [v] = verify.check_file(path)
    # the independent reference: mpmath at 120 digits, rounded by the decimal module
    with mpmath.workdps(120):
        sign = -1 if ref.startswith("-") else 1
        tiny = mpmath.exp(-100) * (-1 if " - exp" in ref else 1 if "exp" in ref else 0)
        want = ref_round_decimals(sign * Fraction(5, 10000) + to_fraction(tiny), 3)
    assert v.verdict == verdict
    assert v.correct == want
    if "exp(-100)" in ref:
        assert v.prec > 128          # the first enclosure could not decide; more bits did


def test_a_value_on_the_boundary_is_undecided_not_guessed(tmp_path, capsys):
    path = write_claims(tmp_path, [("0.0005 + exp(-100000)", "0.001"), ("loss", "1.0515")])
    # exp(-100000) is 10^-43429.4…: past the default --max-digits, refused up front
    with pytest.raises(LimitError, match=r"claim 1 .*ref .*exp\(-100000\) needs numbers of about 43431 digits"):
        verify.check_file(path)
    # allowed, it lies below what MAX_PREC bits resolve: undecided, never guessed
    vs = verify.check_file(path, Limits(max_digits=50_000))
    assert vs[0].verdict == "undecided" and "rounding boundary" in vs[0].cause
    assert vs[1].verdict == "correct"
    code, out = run_main(capsys, path, "--max-digits", "50000")
    assert code == 1 and "1 undecided" in out


# ---------------------------------------------------------------- formats and statuses

def test_exit_zero_when_every_claim_holds(tmp_path, capsys, bigram_oracle):
    assert decimal_round(bigram_oracle["loss"], 4) == "1.0515"
    path = write_claims(tmp_path, [("loss", "1.0515"), ("params()", "12"), ("p[鱼]", "34.9%")])
    code, out = run_main(capsys, path)
    assert code == 0 and "3 claims, 3 correct, 0 wrong" in out


def test_json_shape(tmp_path, capsys):
    path = write_claims(tmp_path, [("loss", "1.0515"), ("loss", "1.0516", "1.0516")])
    code, out = run_main(capsys, path, "--format", "json")
    assert code == 1
    rows = json.loads(out)
    assert isinstance(rows, list) and len(rows) == 2
    for r in rows:
        assert {"ref", "printed", "where", "exact", "verdict", "cause", "correct", "distance"} <= set(r)
    assert rows[0]["verdict"] == "correct" and rows[0]["cause"] is None
    assert rows[1]["verdict"] == "wrong" and rows[1]["cause"] == "carried rounding"
    assert rows[1]["correct"] == "1.0515" and rows[1]["exact"].startswith("1.05147013560")


def test_md_and_table(tmp_path, capsys):
    path = write_claims(tmp_path, [("loss", "1.0515"), ("p[鱼]", "0.3495")])
    code, out = run_main(capsys, path, "--format", "md")
    assert code == 1
    assert "| # | where | ref | printed | exact | correct | Δ ulp | verdict | cause |" in out
    assert out.count("\n| ") == 2                     # header + the one wrong claim
    code, out = run_main(capsys, path, "--format", "md", "--all")
    assert out.count("\n| ") == 3
    code, out = run_main(capsys, path, "--color", "never")
    assert "\x1b[" not in out and "0.3495" in out and "2 claims, 1 correct, 1 wrong (1 last-digit slip)" in out
    code, out = run_main(capsys, path, "--color", "always")
    assert "\x1b[31mwrong" in out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_only_on_a_terminal(tmp_path, monkeypatch):
    path = write_claims(tmp_path, [("p[鱼]", "0.3495")])
    o = hostile.verify(str(path))                      # captured stdout is not a TTY
    assert o.code == 1 and "\x1b[" not in o.out and "0.3495" in o.out
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    tty = _Terminal()
    monkeypatch.setattr(sys, "stdout", tty)            # a stdout that says it is a terminal
    assert verify.main([str(path)]) == 1
    assert "\x1b[31mwrong" in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")                # … unless NO_COLOR is set
    tty.seek(0)
    tty.truncate()
    verify.main([str(path)])
    assert "\x1b[" not in tty.getvalue() and "0.3495" in tty.getvalue()


def test_smoke_the_real_command(tmp_path):
    """The one subprocess run of ``python -m symgpt.verify`` (messages are checked in-process):
    exit 1 for a wrong figure, the table on stdout without colour (a pipe), nothing on stderr."""
    path = write_claims(tmp_path, [("loss", "1.0515"), ("p[鱼]", "0.3495")])
    code, out, err = cli(path)
    assert (code, err) == (1, "")
    assert "\x1b[" not in out and "0.3495" in out and "2 claims, 1 correct, 1 wrong (1 last-digit slip)" in out


def test_no_arguments_checks_every_seed_file():
    o = hostile.verify()
    assert o.code == 1 and o.err == ""
    for path in (SEED_CLAIMS, BIGRAM_CLAIMS):
        assert f"{path.name}: {claim_count(path)} claims" in o.out


# ---------------------------------------------------------------- bad input: one line, status 2

@pytest.mark.parametrize("ref, fragment", [
    ("Foo[1]", "unknown quantity 'Foo'"),
    ("W[7,0]", "index '7' out of range"),
    ("frobnicate(W[0,0])", "unknown function 'frobnicate'"),
    ("__import__('os').system('x')", "unexpected character"),
    ("__import__(os)", "unknown function '__import__'"),
])
def test_bad_claims_give_one_line(tmp_path, ref, fragment):
    path = write_claims(tmp_path, [("loss", "1.0515"), (ref, "0.1")])
    o = hostile.verify(str(path))
    assert o.out == ""
    hostile.assert_refused(o, str(path), "claim 2", fragment)


@pytest.mark.parametrize("text, fragment", [
    ('spec = "nope.toml"\n', "spec: no such spec file 'nope.toml'"),
    ('spec = "x"\n[[claim]]\nref = "loss"\n', "missing printed"),
    ('spec = "x"\n[[claim\n', "not valid TOML"),
])
def test_bad_files_give_one_line(tmp_path, text, fragment):
    path = tmp_path / "bad.claims.toml"
    path.write_text(text, encoding="utf-8")
    hostile.assert_refused(hostile.verify(str(path)), fragment)


def test_bad_printed_and_chain(tmp_path, capsys):
    from symgpt.claims.claims import ClaimError
    with pytest.raises(ClaimError, match=r"claim 1 .*not a number"):
        verify.check_file(write_claims(tmp_path, [("loss", "about 1")]))
    with pytest.raises(ClaimError, match=r"claim 1 .*chain 'Nope'.*unknown quantity"):
        verify.check_file(write_claims(tmp_path, [("loss", "1.0515", "Nope")]))
    hostile.assert_refused(hostile.verify(str(tmp_path / "missing.claims.toml")), "no such claims file")


# ---------------------------------------------------------------- --list

def test_list_names_every_name_the_seed_claims_use():
    o = hostile.verify("--list", "tiny-transformer")
    assert o.code == 0
    out = o.out
    assert re.search(r"E\[v,j\]\s+6×2", out) and re.search(r"loss\s+scalar", out)
    used = set()
    for path in (SEED_CLAIMS, BIGRAM_CLAIMS):
        for c in tomllib.loads(path.read_text(encoding="utf-8"))["claim"]:
            used |= set(re.findall(r"(?<![0-9A-Za-z_])([A-Za-z_][A-Za-z_0-9]*)", c["ref"]))
    bigram_out = hostile.verify("--list", "bigram").out
    listed = out + bigram_out
    tokens = set(NAMES) | {"pad", "bos", "W", "inf"}
    for name in used - tokens:
        assert re.search(rf"(^|\s|\.){re.escape(name)}[\[(\s.]", listed, re.M), f"{name} is not listed"


# ---------------------------------------------------------------- the seeds against the oracle

def test_seed_verdicts_agree_with_oracle(seed_verdicts, seed_oracle):
    o = seed_oracle
    by = {}
    for v in seed_verdicts:
        by.setdefault((v.ref, v.printed), v)
    assert decimal_round(o["A"][1][0], 3) == "0.454"
    assert by[("A[1,0]", "0.454")].verdict == "correct"
    # the parameter count: 46 by the spec's shapes; 38 and 18 are printed
    assert by[("params()", "38")].verdict == "wrong" and by[("params()", "38")].correct == "46"
    assert by[("params()", "18")].cause == "plain error"
    # table 11-1, T = 0.5: recomputed from the oracle's logits
    with mpmath.workdps(ORACLE_DPS):
        pT = oracle.softmax([z * 2 for z in o["logits"]])
    for tok, printed in (("爱", "0.396"), ("你", "0.045"), ("他", "0.266")):
        v = by[(f"softmax_T(0.5, {tok})", printed)]
        want = decimal_round(pT[NAMES.index(tok)], 3)
        assert want != printed
        assert (v.verdict, v.correct, v.cause) == ("wrong", want, "plain error")
    # Q[1,0] = 0.8826 prints as 0.882 from the document's own 0.4623 + 0.4200
    assert decimal_round(o["Q"][1][0], 3) == "0.883"
    assert by[("Q[1,0]", "0.882")].cause == "carried rounding"


def test_bigram_verdicts_agree_with_oracle(bigram_oracle):
    vs = verify.check_file(BIGRAM_CLAIMS)
    by = {(v.ref, v.printed): v for v in vs}
    o = bigram_oracle
    assert decimal_round(o["loss"], 4) == "1.0515" and by[("loss", "1.0515")].ok
    g = o["grad_W"][0][2]
    assert decimal_round(g, 6) == "-0.195173"
    assert by[("adamw[1].mhat[W,0,2]", "-0.195170")].correct == "-0.195173"
    assert by[("sgd_wrong_order[1].loss", "0.8792")].ok
    # weight decay per step is η·λ = 10^-4 of the weight: 0.01 %, printed as 0.1 %
    assert by[("adamw[1].decay[W,0,2] / W[0,2]", "0.1%")].verdict == "wrong"


def test_errata(seed):
    rows = verify.errata(seed)
    assert rows and all(r["verdict"] != "correct" for r in rows)
    assert {"ref", "printed", "where", "exact", "correct", "verdict", "cause"} <= set(rows[0])
    wrong = {(r["ref"], r["printed"]) for r in rows}
    assert ("params()", "38") in wrong and ("softmax_T(0.5, 爱)", "0.396") in wrong
    assert ("A[1,0]", "0.454") not in wrong
    assert all(Fraction(r["correct"].rstrip("%").lstrip("+")) != Fraction(r["printed"].rstrip("%").lstrip("+"))
               for r in rows)
