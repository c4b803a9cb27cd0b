"""Several specs at once (``--jobs``) and the precision section computed ahead give the same files, byte for
byte, as one spec after another; a failing spec is reported as a run one after another reports it, and
nothing is written.  Run as a user runs it: the real command in a child process."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symgpt.cli import Progress
from symgpt.core.ahead import Ahead, available
from symgpt.render import render_all

ROOT = Path(__file__).resolve().parent.parent
SPECS = [ROOT / "derivations" / "bigram.toml", ROOT / "derivations" / "tiny-transformer.toml"]


def _render(out: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symgpt.render", *args, "--out", str(out), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_jobs_give_the_same_bytes_as_one_after_another(tmp_path):
    both = [str(s) for s in SPECS]
    one = _render(tmp_path / "one", *both, "--jobs", "1", "--format", "md,claims", "--lang", "all")
    two = _render(tmp_path / "two", *both, "--jobs", "2", "--format", "md,claims", "--lang", "all")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    a, b = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len(a) == 16 and a == b   # 2 specs × 2 languages × (md + claims), and 3 + 5 pictures
    assert sorted(two.stdout.split()) == sorted(str(tmp_path / "two" / p) for p in b)


def _failing(tmp_path, jobs: str) -> str:
    bad = tmp_path / "bad.toml"
    bad.write_text(SPECS[0].read_text(encoding="utf-8").replace("[model]", "[model]\nwidth = 3", 1),
                   encoding="utf-8")
    r = _render(tmp_path / "out", str(SPECS[1]), str(bad), "--jobs", jobs)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "bad.toml" in r.stderr and "width" in r.stderr
    assert not (tmp_path / "out").exists()
    return r.stderr


def test_a_failing_spec_is_reported_alike_and_nothing_is_written(tmp_path):
    errs = []
    for jobs in ("1", "2"):
        (tmp_path / jobs).mkdir()
        errs.append(_failing(tmp_path / jobs, jobs).replace(str(tmp_path / jobs), "TMP"))
    assert errs[0] == errs[1]


def test_a_terminal_counts_every_step_of_a_parallel_run():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    stream = Tty()
    progress = Progress(2 * (1 + 2), stream)
    render_all(SPECS, formats=("md", "claims"), langs=("en",), progress=progress, jobs=2)
    lines = stream.getvalue().splitlines()
    assert [ln.split("]")[0] for ln in lines] == [f"[{k}/6" for k in range(1, 7)]
    assert {ln.split("] ")[1].removesuffix(" …") for ln in lines} == {
        "bigram: derivation", "bigram.en.claims", "bigram.en.md",
        "tiny-transformer: derivation", "tiny-transformer.en.claims", "tiny-transformer.en.md"}


def test_work_ahead_returns_its_value_or_nothing():
    if not available():
        assert Ahead(pow, 2, 10).result() is None
        return
    assert Ahead(sorted, [3, 1, 2]).result() == [1, 2, 3]
    assert Ahead(int, "not a number").result() is None      # the caller computes it and meets the error itself
    assert Ahead(lambda: os.getpid()).result() != os.getpid()   # computed in another process
    never = Ahead(pow, 3, 3)
    pid = never.pid
    del never                                                # never read: its child is stopped and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)
