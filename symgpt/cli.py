"""Shared command-line plumbing: one clear error line, transactional output, signals, children.

Every command's ``main`` runs inside :func:`run`, which turns bad input and
faults into one ``error: …`` line on stderr (exit status 2), SIGINT into exit
130 and SIGTERM into exit 143, after every ``finally`` and ``with`` block has
run (a child process group is killed, a staging folder removed).

Output goes through :func:`staged`: files are written into a staging folder on
the same filesystem as ``--out`` and moved into place only when every one of
them was written (and the listing reached stdout).

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "a" / "out"
>>> with staged(out) as stage:
...     _ = stage.write("x.txt", "hello")
>>> sorted(p.name for p in out.parent.iterdir()), (out / "x.txt").read_text()
(['out'], 'hello')
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from .core.errors import InputError, OutputError
from .core.numeric import UndecidableError
from .core.safe import visible

# exit status of a run stopped by a signal: 128 + the signal's number, as a shell reports it
STOPPED = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``error: …`` line, exit status 2."""

    def error(self, message):
        raise InputError(f"{message} (see {self.prog} --help)")


class Stopped(BaseException):
    """A signal (SIGINT, SIGTERM) raised in the main thread, so every ``finally`` runs."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def terminal_safe(text) -> str:
    r"""Text fit for a terminal: control characters (C0, DEL, C1, bidi) shown as escapes.

    >>> terminal_safe("bad\x1b[2J token\u202e")
    'bad\\x1b[2J token\\u202e'
    """
    return visible(text)


# ---------------------------------------------------------------- progress

class Progress:
    """Numbered progress lines on a terminal (``[2/8] bigram.en.pdf …``), nothing elsewhere.

    Shown only when ``stream`` is a TTY and not ``quiet``: a pipe, a file or a log
    gets no progress lines, so output stays byte-identical and parseable.

    >>> import io
    >>> p = Progress(2, io.StringIO())   # not a terminal: silent
    >>> p.step("bigram.en.md"); p.stream.getvalue()
    ''
    """

    def __init__(self, total: int, stream=None, quiet: bool = False):
        self.total, self.done = total, 0
        self.stream = sys.stderr if stream is None else stream
        self.shown = not quiet and _is_tty(self.stream)

    def step(self, what: str) -> None:
        """Count one step and, on a terminal, say what it is."""
        self.done += 1
        if self.shown:
            with contextlib.suppress(OSError, ValueError):
                print(f"[{self.done}/{self.total}] {terminal_safe(what)} \u2026", file=self.stream, flush=True)


def _is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


# ---------------------------------------------------------------- the output folder

def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a named pipe" if stat.S_ISFIFO(mode) else "a socket"


def _not_writable(d: Path) -> str | None:
    """Why nothing can be created in the directory ``d`` (None when something can)."""
    if os.access(d, os.W_OK | os.X_OK):
        return None
    try:
        if os.statvfs(d).f_flag & os.ST_RDONLY:
            return "a read-only file system"
    except OSError:
        pass
    return "permission denied"


def check_out(out) -> Path:
    """``--out`` as a directory that exists or can be created, checked before any work.

    >>> check_out("/dev/null")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.OutputError: --out /dev/null: expected a directory, got a device
    """
    out = Path(out)
    try:
        mode = os.stat(out).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if out.is_symlink():
            raise OutputError(f"--out {out}: expected a directory, got a dangling symbolic link") from None
        mode = None
    except OSError as e:
        raise OutputError(f"--out {out}: cannot use it: {_reason(e)}") from None
    if mode is not None:
        if not stat.S_ISDIR(mode):
            raise OutputError(f"--out {out}: expected a directory, got {_kind(mode)}")
        why = _not_writable(out)
        if why:
            raise OutputError(f"--out {out}: cannot write into the directory: {why}")
        return out
    base = out.parent
    while not os.path.lexists(base) and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise OutputError(f"--out {out}: cannot create the directory: {base} is not a directory")
    why = _not_writable(base)
    if why:
        raise OutputError(f"--out {out}: cannot create the directory in {base}: {why}")
    return out


def _reason(e: OSError) -> str:
    return (e.strerror or str(e)).lower()


class Stage:
    """A staging folder: files written here move into ``out`` when the run succeeds."""

    def __init__(self, out: Path, folder: Path):
        self.out, self.folder, self.names = out, folder, []

    def write(self, rel, data) -> Path:
        """Write one file (text as UTF-8) into the staging folder; its final path."""
        rel = Path(rel)
        final = self.out / rel
        if final.is_dir() and not final.is_symlink():
            raise OutputError(f"{final}: expected a file to write, got a directory")
        path = self.folder / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # 0o666 less the umask (0644 under umask 022), as any tool's new file; never 0600
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            with open(fd, "wb") as f:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as e:
            raise OutputError(f"{final}: cannot write the file: {_reason(e)} "
                              f"(nothing was written to {self.out})") from None
        self.names.append(rel)
        return final


@contextlib.contextmanager
def staged(out):
    """A :class:`Stage` for ``out``; on success its files move into place, on any error
    or signal the staging folder (and every folder made for ``out``) is removed.

    The staging folder lies inside ``out`` when it exists, else beside it (then it
    is renamed to ``out``): always on the same filesystem, so the moves are renames.
    """
    out = check_out(out)
    made: list = []
    stage, committed = None, False
    try:
        try:
            stage = Stage(out, _stage_folder(out, made))
        except OSError as e:
            raise OutputError(f"--out {out}: cannot create a folder: {_reason(e)}") from None
        yield stage
        try:
            _commit(stage)
        except OSError as e:
            raise OutputError(f"--out {out}: cannot move the files into place: {_reason(e)}") from None
        committed = True
    finally:
        if stage is not None and stage.folder.exists():
            shutil.rmtree(stage.folder, ignore_errors=True)
        if not committed:
            for d in reversed(made):
                with contextlib.suppress(OSError):
                    d.rmdir()


def _stage_folder(out: Path, made: list) -> Path:
    """A fresh staging folder on the filesystem of ``out`` (folders created for it go in ``made``)."""
    if out.is_dir():
        return Path(tempfile.mkdtemp(dir=out, prefix=".symgpt-stage-"))
    for d in reversed([out.parent, *out.parent.parents]):
        if not os.path.lexists(d):
            d.mkdir()
            made.append(d)
    folder = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.symgpt-"))
    os.chmod(folder, 0o777 & ~umask())  # it becomes out: the mode mkdir would have given
    return folder


def umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_whole(path: Path, fill, what: str) -> None:
    """Write one file whole or not at all: ``fill(tmp)`` writes a temporary file beside ``path``, which takes the
    permissions the umask gives a new file and is renamed into place; on any failure it is removed, and an OSError
    is one OutputError naming ``what`` (the option) and the file.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> write_whole(p, lambda t: t.write_text("x"), "--out"); p.read_text(), len(list(p.parent.iterdir()))
    ('x', 1)
    """
    folder = path.parent if str(path.parent) else Path(".")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        fill(Path(tmp))
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise OutputError(f"{what} {path}: cannot write the file: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def positive(flag: str):
    """An argparse type: a whole number ≥ 1 (digits, optionally with _ separators).

    >>> positive("--max-digits")("2_000")
    2000
    """
    def read(text: str) -> int:
        if not re.fullmatch(r"\d+(_\d+)*", text) or len(text) > 30 or int(text) < 1:
            raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {visible(text)!r}")
        return int(text)
    read.__name__ = flag
    return read


def _commit(stage: Stage) -> None:
    """Move the staged files into place with signals held back, so a run stops before or after."""
    held = _hold_signals()
    try:
        if not stage.out.exists():
            os.rename(stage.folder, stage.out)
            return
        for rel in stage.names:
            (stage.out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage.folder / rel, stage.out / rel)
        shutil.rmtree(stage.folder)
    finally:
        _release_signals(held)


def _hold_signals():
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPPED))
    except (AttributeError, ValueError, OSError):
        return None


def _release_signals(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


# ---------------------------------------------------------------- child processes

def run_child(argv, *, cwd, env, timeout: float, what: str, flag: str) -> subprocess.CompletedProcess:
    """Run ``argv`` in a session of its own, output captured; whatever happens (a timeout,
    an error, a signal) its whole process group is killed before this returns.

    >>> run_child(["sleep", "5"], cwd=".", env=None, timeout=0.2, what="sleep", flag="--t")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.OutputError: sleep: still running after 0.2 s, stopped (--t raises the limit)
    """
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise OutputError(f"{what}: still running after {timeout:g} s, stopped "
                          f"({flag} raises the limit)") from None
    finally:
        _kill_group(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out.decode("utf-8", "replace"), "")


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        if proc.stdout:
            proc.stdout.close()
    proc.wait()


# ---------------------------------------------------------------- stdout

def flush_stdout() -> None:
    """Flush stdout; a closed pipe or a full device becomes an :class:`OutputError`."""
    try:
        sys.stdout.flush()
    except OSError as e:
        _silence_stdout()
        raise OutputError(f"cannot write to stdout: {_reason(e)}") from None


def _stdout_fault(e: OSError) -> bool:
    """An OSError that came from writing stdout (no file name; a pipe or device fault)."""
    return isinstance(e, BrokenPipeError) or (
        e.filename is None and e.errno in (errno.EPIPE, errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EBADF))


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's last flush of stdout cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if sys.__stdout__ is not None and sys.__stdout__.fileno() == 1:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)


# ---------------------------------------------------------------- running a command

def _on_signal(signum, frame):
    for s in STOPPED:  # a second signal must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    raise Stopped(signum)


@contextlib.contextmanager
def _signals():
    """SIGINT and SIGTERM raise :class:`Stopped`; SIGXFSZ is ignored, so a write above the
    file-size limit raises EFBIG instead of killing the process.  Restored on the way out."""
    wanted = {signal.SIGINT: _on_signal, signal.SIGTERM: _on_signal, signal.SIGXFSZ: signal.SIG_IGN}
    old = {}
    try:
        for s, h in wanted.items():
            old[s] = signal.signal(s, h)
    except ValueError:  # not the main thread: leave the handlers alone
        pass
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _say(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"error: {terminal_safe(message)}", file=sys.stderr, flush=True)


def run(main) -> None:
    """Call ``main()`` and exit: its status; 2 with one ``error: …`` line for bad input or
    an output fault; 130 on SIGINT, 143 on SIGTERM (one line each)."""
    with _signals():
        try:
            code = main()
            flush_stdout()
        except (InputError, UndecidableError) as e:
            _say(str(e))
            code = 2
        except OSError as e:
            if not _stdout_fault(e):
                raise
            _silence_stdout()
            _say(f"cannot write to stdout: {_reason(e)}")
            code = 2
        except (Stopped, KeyboardInterrupt) as e:
            signum = e.signum if isinstance(e, Stopped) else signal.SIGINT
            _say(f"stopped by {signal.Signals(signum).name}")
            code = STOPPED[signum]
    sys.exit(code or 0)
