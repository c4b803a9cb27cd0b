"""``render`` on a terminal says what it is doing; in a pipe or with --quiet it says nothing; its files
get the modes any tool's files get (0666 and 0777 less the umask).

The fast tests run ``render.main`` in this process through ``symgpt.cli.run``, stderr a stream
that says it is a terminal (or not), the umask set around the call and restored.  The slow
ones run the real command in a child process: stderr a pseudo-terminal (``os.openpty``) or a
pipe, the umask set in the child before it starts.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from symgpt import render as render_module
from symgpt.cli import run

ROOT = Path(__file__).resolve().parent.parent
BIGRAM = ROOT / "derivations" / "bigram.toml"


class _Stream(io.StringIO):
    """A text stream that answers isatty() as told (a terminal or a pipe)."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def render_here(args, out: Path, stderr_tty: bool, umask: int = 0o022):
    """``render.main`` in this process (stdout not a terminal); (exit status, stdout, stderr text)."""
    argv = [str(BIGRAM), "--out", str(out), *args]
    stdout, stderr = _Stream(False), _Stream(stderr_tty)
    old = os.umask(umask)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                run(lambda: render_module.main(argv))
            except SystemExit as e:
                code = e.code
    finally:
        os.umask(old)
    return code, stdout.getvalue(), stderr.getvalue()


def render(args, out: Path, stderr_tty: bool, umask: int = 0o022):
    """Run ``python -m symgpt.render`` (stdout a pipe); (exit status, stdout, stderr text)."""
    argv = [sys.executable, "-m", "symgpt.render", str(BIGRAM), "--out", str(out), *args]
    if stderr_tty:
        main_fd, child_fd = os.openpty()
        try:
            r = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=child_fd, stdin=subprocess.DEVNULL,
                               timeout=300, preexec_fn=lambda: os.umask(umask))
        finally:
            os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # EIO: the child's end is closed and everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(main_fd)
        err = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    else:
        r = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           timeout=300, preexec_fn=lambda: os.umask(umask))
        err = r.stderr.decode("utf-8")
    return r.returncode, r.stdout.decode("utf-8"), err


STEPS = ["[1/5] bigram: derivation …", "[2/5] bigram.zh.claims.toml …", "[3/5] bigram.zh.md …",
         "[4/5] bigram.en.claims.toml …", "[5/5] bigram.en.md …"]


def test_a_terminal_sees_one_numbered_line_per_step(tmp_path):
    code, out, err = render_here(["--format", "md,claims", "--lang", "zh,en"], tmp_path / "o", stderr_tty=True)
    assert code == 0
    # 1 spec: its derivation, then 2 formats × 2 languages = 5 steps, counted up to 5 in order
    assert err.splitlines() == STEPS
    assert "[" not in out  # stdout keeps the list of written files only
    assert sorted(out.split()) == sorted(str(p) for p in (tmp_path / "o").iterdir())


def test_quiet_silences_a_terminal_and_a_pipe_gets_no_progress(tmp_path):
    code, out, err = render_here(["--format", "md", "--lang", "en", "--quiet"], tmp_path / "q", stderr_tty=True)
    assert code == 0 and err == "" and out.count("\n") == 4
    code, out, err = render_here(["--format", "md", "--lang", "en"], tmp_path / "p", stderr_tty=False)
    assert code == 0 and err == "" and out.count("\n") == 4


@pytest.mark.slow
def test_a_real_terminal_and_a_real_pipe(tmp_path):
    """The real command: a pseudo-terminal gets the numbered lines, a pipe and --quiet nothing."""
    code, out, err = render(["--format", "md,claims", "--lang", "zh,en"], tmp_path / "o", stderr_tty=True)
    assert code == 0 and err.splitlines() == STEPS
    assert sorted(out.split()) == sorted(str(p) for p in (tmp_path / "o").iterdir())
    code, out, err = render(["--format", "md", "--lang", "en", "--quiet"], tmp_path / "q", stderr_tty=True)
    assert code == 0 and err == "" and out.count("\n") == 4
    code, out, err = render(["--format", "md", "--lang", "en"], tmp_path / "p", stderr_tty=False)
    assert code == 0 and err == "" and out.count("\n") == 4


def _modes(folder: Path) -> dict:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]}


def _check_modes(tmp_path, umask, file_mode, dir_mode, render_fn):
    fresh = tmp_path / "new" / "out"  # --out and its parent created by the run
    existing = tmp_path / "existing"
    existing.mkdir()
    os.chmod(existing, 0o755)
    for out in (fresh, existing):
        code, listing, _ = render_fn(["--format", "md,claims", "--lang", "en"], out, stderr_tty=False, umask=umask)
        assert code == 0 and len(listing.split()) == 5
        modes = _modes(out)
        files = {n: m for n, m in modes.items() if n != out.name}
        assert set(files) == {"bigram.en.md", "bigram.en.claims.toml", "bigram-probs.svg", "bigram-loss.svg",
                              "bigram-precision.svg"}
        assert set(files.values()) == {file_mode}, {n: oct(m) for n, m in files.items()}
    assert _modes(fresh)["out"] == dir_mode and stat.S_IMODE(fresh.parent.stat().st_mode) == dir_mode
    assert not [p for p in existing.iterdir() if re.match(r"\.", p.name)]  # no staging folder left behind


def test_written_files_respect_the_umask(tmp_path):
    """A umask other than the usual 022 (so modes fixed at 0644/0755 would fail)."""
    _check_modes(tmp_path, 0o027, 0o640, 0o750, render_here)


@pytest.mark.slow
@pytest.mark.parametrize("umask,file_mode,dir_mode", [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)])
def test_the_real_command_respects_the_umask_it_inherits(tmp_path, umask, file_mode, dir_mode):
    _check_modes(tmp_path, umask, file_mode, dir_mode, render)
