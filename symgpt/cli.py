"""Shared command-line plumbing: one clear error line, atomic writes.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "a" / "x.txt"
>>> write_atomic(p, "hello"); p.read_text()
'hello'
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .errors import InputError
from .numeric import UndecidableError


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``error: …`` line, exit status 2."""

    def error(self, message):
        raise InputError(f"{message} (see {self.prog} --help)")


def write_atomic(path: Path, data) -> None:
    """Write to a temporary file beside ``path``, then rename over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run(main) -> None:
    """Call ``main()``; turn bad input into ``error: …`` on stderr and exit 2."""
    try:
        code = main()
    except (InputError, UndecidableError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code or 0)
