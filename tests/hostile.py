"""Helpers for the hostile-input matrix: run a command in-process, assert one clear refusal.

A refusal is exit status 2 with exactly one line on stderr, ``error: …``, that
names what the test says it must (the file, the key or claim, the expectation),
no traceback, and no file written.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Outcome:
    code: int
    out: str
    err: str


def run_main(main, argv) -> Outcome:
    """``symgpt.cli.run(main)`` on ``argv`` in this process, stdout and stderr captured."""
    from symgpt.cli import run
    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            run(lambda: main(list(argv)))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return Outcome(code, out.getvalue(), err.getvalue())


def render(*argv) -> Outcome:
    from symgpt import render as r
    return run_main(r.main, argv)


def verify(*argv) -> Outcome:
    from symgpt import verify as v
    return run_main(v.main, argv)


def run_symgpt(*argv) -> Outcome:
    """The ``symgpt`` command itself (:func:`symgpt.command.main`)."""
    from symgpt import command
    return run_main(command.main, argv)


def files_under(*dirs) -> set:
    """Every path under the given directories (and symgpt's scratch folders in TMPDIR)."""
    found = set()
    for d in dirs:
        d = Path(d)
        if d.exists():
            found |= {str(p) for p in d.rglob("*")} | {str(d)}
    tmp = Path(tempfile.gettempdir())
    found |= {str(p) for p in tmp.glob("symgpt-*")}
    return found


def assert_refused(o: Outcome, *needles: str) -> str:
    """Exit 2, one ``error: …`` line naming every needle, no traceback; the line."""
    assert o.code == 2, f"exit status {o.code}, stderr: {o.err!r}"
    lines = o.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), f"expected one error line, got {o.err!r}"
    assert "Traceback" not in o.err
    for n in needles:
        assert n in lines[0], f"{n!r} not named in {lines[0]!r}"
    assert all(ch == "\t" or ch >= " " for ch in lines[0]), f"control character in {lines[0]!r}"
    return lines[0]


def raises_clear(exc_type, fn, *needles):
    """``fn()`` raises ``exc_type`` with a one-line message naming every needle; the message."""
    try:
        fn()
    except exc_type as e:
        msg = str(e)
        assert "\n" not in msg, f"multi-line message {msg!r}"
        for n in needles:
            assert n in msg, f"{n!r} not named in {msg!r}"
        return msg
    raise AssertionError(f"{fn} did not raise {exc_type.__name__}")


def env_without(*names) -> dict:
    return {k: v for k, v in os.environ.items() if k not in names}


PYTHON = sys.executable
