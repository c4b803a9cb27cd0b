"""The seeded draw takes u from the command line (--uniform) as well as from the spec."""
import subprocess
import sys

import mpmath

import oracle
from conftest import ROOT, SEED


def _drawn(u, out):
    r = subprocess.run([sys.executable, "-m", "symgpt.render", "tiny-transformer", "--format", "md",
                        "--lang", "en", "--uniform", u, "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
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


def test_uniform_from_the_command_line(tmp_path):
    for u in ("0.1", "0.5", "0.75", "0.95"):
        assert _drawn(u, tmp_path / u) == _inverse_cdf(u)


def test_bad_uniform_is_one_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "symgpt.render", "--uniform", "1.5", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "--uniform" in r.stderr
    assert not any(tmp_path.iterdir())
