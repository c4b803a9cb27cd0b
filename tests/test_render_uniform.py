"""The seeded draw takes u from the command line (--uniform) as well as from the spec.

The draw at many values of u is checked against an inverse CDF in test_sampling.py;
here only that the flag reaches the document (in this process), and, in the slow
set, the real command at four values.
"""
import subprocess
import sys

import mpmath
import pytest

import hostile
import oracle
from conftest import ROOT, SEED


def _drawn_token(out):
    text = (out / "tiny-transformer.en.md").read_text(encoding="utf-8")
    line = next(l for l in text.splitlines() if l.startswith(r"\mathrm{vocab}["))
    return int(line.split("[")[1].split("]")[0])


def _inverse_cdf(u):
    p = oracle.transformer_forward(oracle.load_spec(SEED), dps=40)["p"]
    with mpmath.workdps(40):
        acc = 0
        for v, q in enumerate(p):
            acc += q
            if acc > mpmath.mpf(u):
                return v


def test_uniform_from_the_command_line_reaches_the_document(tmp_path):
    # the spec's own u = 0.75 draws 你 (id 4); u = 0.1 draws another token
    assert _inverse_cdf("0.1") != _inverse_cdf("0.75")
    o = hostile.render("tiny-transformer", "--format", "md", "--lang", "en", "--uniform", "0.1",
                       "--out", str(tmp_path))
    assert o.code == 0, o.err
    assert _drawn_token(tmp_path) == _inverse_cdf("0.1")


@pytest.mark.slow
def test_uniform_from_the_real_command_at_four_values(tmp_path):
    for u in ("0.1", "0.5", "0.75", "0.95"):
        out = tmp_path / u
        r = subprocess.run([sys.executable, "-m", "symgpt.render", "tiny-transformer", "--format", "md",
                            "--lang", "en", "--uniform", u, "--out", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert _drawn_token(out) == _inverse_cdf(u)


def test_bad_uniform_is_one_error(tmp_path):
    hostile.assert_refused(hostile.render("--uniform", "1.5", "--out", str(tmp_path)), "--uniform")
    assert not any(tmp_path.iterdir())
