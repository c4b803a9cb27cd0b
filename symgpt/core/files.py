"""Reading input files: regular files only, up to a size cap, UTF-8.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "x.toml"; _ = p.write_text("a = 1")
>>> read_text(p, "spec")
'a = 1'
>>> read_text(p.parent, "spec")
Traceback (most recent call last):
...
symgpt.core.errors.InputError: ...: expected a spec file, got a directory
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import InputError
from .limits import MAX_FILE_BYTES

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def read_text(path, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``; else one InputError.

    The file is opened without blocking (a named pipe never hangs) and checked
    to be a regular file before a byte is read.
    """
    path = Path(path)
    data = read_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise InputError(f"{path}: line {line}: the {what} file is not UTF-8 "
                         f"(byte 0x{data[e.start]:02x} at offset {e.start})") from None


def resolved(path, what: str = "file") -> Path:
    """The absolute path with every symbolic link followed; a loop of links is one InputError.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "loop.toml"; p.symlink_to(p.name)
    >>> resolved(p, "spec")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: ...loop.toml: cannot read the spec file: a symbolic link loop
    """
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError):   # Python 3.11 says RuntimeError("Symlink loop …"), 3.13 OSError(ELOOP)
        raise InputError(f"{path}: cannot read the {what} file: a symbolic link loop") from None


def read_bytes(path, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; else one InputError (as :func:`read_text`)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what} file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: expected a {what} file, got a directory") from None
    except OSError as e:
        reason = "a symbolic link loop" if e.errno == errno.ELOOP else (e.strerror or str(e)).lower()
        raise InputError(f"{path}: cannot read the {what} file: {reason}") from None
    try:
        st = os.fstat(fd)
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise InputError(f"{path}: expected a {what} file, got {kind}")
        if st.st_size > max_bytes:
            raise InputError(f"{path}: the {what} file has {st.st_size} bytes, more than the limit "
                             f"of {max_bytes}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot read the {what} file: {(e.strerror or str(e)).lower()}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise InputError(f"{path}: the {what} file has more than {max_bytes} bytes (the limit)")
    return data
