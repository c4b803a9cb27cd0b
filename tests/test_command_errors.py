"""What a new user's mistakes give through the command: one ``error:`` line naming the file, the key and
what was expected, exit 2, no traceback (``hostile.assert_refused``); and the forgiving cases work.

Each case runs ``python -m symgpt …`` in a folder of its own, as a user in another folder would.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath
import pytest

import hostile

ROOT = Path(__file__).resolve().parent.parent
BIGRAM = (ROOT / "derivations" / "bigram.toml").read_text(encoding="utf-8")


def symgpt(*args, cwd: Path, timeout=120) -> subprocess.CompletedProcess:
    env = dict(os.environ, TMPDIR=str(cwd), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "symgpt", *map(str, args)], cwd=cwd, env=env, timeout=timeout,
                          capture_output=True, text=True)


def refused(r, *needles) -> str:
    return hostile.assert_refused(hostile.Outcome(r.returncode, r.stdout, r.stderr), *needles)


def spec(tmp_path: Path, old: str, new: str, name="s.toml") -> Path:
    assert BIGRAM.count(old) == 1, old
    p = tmp_path / name
    p.write_text(BIGRAM.replace(old, new), encoding="utf-8")
    return p


# ---------------------------------------------------------------- faults

@pytest.mark.parametrize("loop", ["self", "two"])
@pytest.mark.parametrize("cmd", [["render", "--format", "md", "--out", "o"], ["list"], ["precision"]])
def test_a_symlink_loop_is_one_error(tmp_path, loop, cmd):
    if loop == "self":
        (tmp_path / "loop.toml").symlink_to("loop.toml")
    else:
        (tmp_path / "loop.toml").symlink_to("other.toml")
        (tmp_path / "other.toml").symlink_to("loop.toml")
    r = symgpt(cmd[0], "loop.toml", *cmd[1:], cwd=tmp_path)
    refused(r, "loop.toml", "symbolic link loop")
    assert not (tmp_path / "o").exists()


def test_check_of_a_symlink_loop_spec_is_one_error(tmp_path):
    (tmp_path / "loop.toml").symlink_to("loop.toml")
    (tmp_path / "doc.md").write_text("p = 0.5\n", encoding="utf-8")
    refused(symgpt("check", "--spec", "loop.toml", "doc.md", cwd=tmp_path), "loop.toml", "symbolic link loop")


@pytest.mark.parametrize("old, new, key", [
    ("lr = 0.5\n", "lr = 1e400\n", "training.lr"),
    ("lr = 0.5\n", "lr = 1e40\n", "training.lr"),
    ("lr = 1e-3\n", "lr = 1e400\n", "training.adamw.lr"),
])
def test_a_huge_learning_rate_is_one_error(tmp_path, old, new, key):
    spec(tmp_path, old, new)
    r = symgpt("render", "s.toml", "--format", "md", "--out", "o", cwd=tmp_path)
    line = refused(r, "s.toml", key, "--max-digits")
    assert "OverflowError" not in line and len(line) < 400
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, span", [
    (["render", "bigram", "--digits", "0", "--out", "o"], "1 to 30"),
    (["render", "bigram", "--digits", "31", "--out", "o"], "1 to 30"),
    (["grad", "bigram", "--digits", "0", "--out", "g.json"], "1 to 1000"),
    (["grad", "bigram", "--digits", "1001", "--out", "g.json"], "1 to 1000"),
])
def test_digits_out_of_range_says_the_range(tmp_path, args, span):
    refused(symgpt(*args, cwd=tmp_path), "--digits", span)
    assert not (tmp_path / "o").exists() and not (tmp_path / "g.json").exists()


def test_digits_one_renders(tmp_path):
    r = symgpt("render", "bigram", "--digits", "1", "--format", "md", "--lang", "en", "--out", "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # the loss, −ln p(鱼) = 1.0515…, at one decimal (worked out by hand from z = (0.13, −0.13, 0.08))
    with mpmath.workdps(30):
        z = [mpmath.mpf(13) / 100, -mpmath.mpf(13) / 100, mpmath.mpf(8) / 100]
        loss = -mpmath.log(mpmath.exp(z[2]) / sum(map(mpmath.exp, z)))
    assert mpmath.nstr(loss, 2) == "1.1" and "1.1" in (tmp_path / "o" / "bigram.en.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- messages

def test_an_unknown_spec_key_suggests_ours(tmp_path):
    spec(tmp_path, "lr = 0.5\n", "learning_rate = 0.5\n")
    refused(symgpt("render", "s.toml", "--out", "o", cwd=tmp_path), "s.toml", "training.learning_rate",
            "did you mean lr?")


@pytest.mark.parametrize("old, new, row, has, want", [
    ("E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]]", "E = [[0.1, 0.2], [0.3], [-0.2, 0.4]]", 1, "1 number", 2),
    ("W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]", "W = [[0.5, -0.3, 0.1, 0.2], [0.2, 0.4, -0.5]]", 0, "4 numbers", 3),
])
def test_a_ragged_row_names_the_row(tmp_path, old, new, row, has, want):
    spec(tmp_path, old, new)
    line = refused(symgpt("render", "s.toml", "--out", "o", cwd=tmp_path), "s.toml",
                   f"row {row} has {has}, not {want}")
    assert "/" not in line.split("got", 1)[1]    # not "3×1/2"


def test_a_shipped_spec_asked_for_as_a_file_elsewhere_is_pointed_at(tmp_path):
    refused(symgpt("render", "bigram.toml", "--out", "o", cwd=tmp_path), "bigram.toml",
            "a shipped spec has that name", "symgpt render bigram")


@pytest.mark.parametrize("args", [["render", "bigram", "--format", "MD", "--lang", "EN", "--out", "o"],
                                  ["verify", "bigram", "--format", "JSON"],
                                  ["precision", "bigram", "--format", "Md", "--no-births"]])
def test_a_format_in_capitals_is_accepted(tmp_path, args):
    r = symgpt(*args, cwd=tmp_path)
    # the bigram's source has a wrong figure
    assert r.returncode in ((1, 0) if args[0] == "verify" else (0,)), r.stderr
    if args[0] == "render":
        assert (tmp_path / "o" / "bigram.en.md").is_file()
    if args[0] == "verify":   # the same as in small letters
        assert r.stdout == symgpt(*args[:-1], "json", cwd=tmp_path).stdout and json.loads(r.stdout)


# ---------------------------------------------------------------- verify reads scientific notation

def _sci(v, e: int, places: int) -> str:
    """The mantissa of v·10^-e at ``places`` decimals, half away from zero, from 40 digits of v."""
    m = (Decimal(mpmath.nstr(v, 40, min_fixed=-1, max_fixed=-1)).scaleb(-e)).quantize(Decimal(1).scaleb(-places),
                                                                                        rounding=ROUND_HALF_UP)
    return str(m)


def test_verify_reads_printed_figures_in_scientific_notation(tmp_path):
    with mpmath.workdps(40):   # the bigram by hand: x = E[吃] = (0.3, −0.1), z = x·W
        z = [mpmath.mpf(13) / 100, -mpmath.mpf(13) / 100, mpmath.mpf(8) / 100]
        p = [mpmath.exp(x) / sum(map(mpmath.exp, z)) for x in z]
        g = mpmath.mpf(3) / 10 * (p[2] - 1)          # ∂L/∂W[0,2] = x[0]·(p[2] − 1)
        figures = [("p[鱼] * 1e-10", f"{_sci(p[2] * mpmath.mpf(10) ** -10, -11, 0)}e-11"),
                   ("grad_W[0,2] * 1e-9", f"{_sci(g * mpmath.mpf(10) ** -9, -10, 2)}e-10"),
                   ("p[猫] / 1000", f"{_sci(p[0] / 1000, -4, 2)}×10⁻⁴"),
                   ("p[吃] / 1000", rf"{_sci(p[1] / 1000, -4, 2)} \times 10^{{-4}}"),
                   ("p[鱼] / 1000", f"{_sci(p[2] / 1000, -4, 3)}E-4")]
    assert figures[0][1] == "3e-11" and figures[1][1] == "-1.95e-10"   # as worked out on paper
    claims = [f'spec = "{ROOT / "derivations" / "bigram.toml"}"\n']
    claims += [f'[[claim]]\nref = "{ref}"\nprinted = \'{printed}\'\nwhere = "test"\n' for ref, printed in figures]
    (tmp_path / "sci.claims.toml").write_text("\n".join(claims), encoding="utf-8")
    r = symgpt("verify", "sci.claims.toml", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [c["verdict"] for c in json.loads(r.stdout)] == ["correct"] * len(figures)
    # one last digit off: wrong, so the test can fail
    wrong = figures[2][1].replace(figures[2][1][3], str((int(figures[2][1][3]) + 1) % 10), 1)
    (tmp_path / "sci.claims.toml").write_text(claims[0] + f'[[claim]]\nref = "p[猫] / 1000"\nprinted = "{wrong}"\n'
                                              f'where = "test"\n', encoding="utf-8")
    r = symgpt("verify", "sci.claims.toml", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1 and json.loads(r.stdout)[0]["verdict"] == "wrong"
