"""Work started ahead in a forked process while this one goes on: one value, read back when it is needed.

A document's precision section does not depend on the rest of the document, and on a machine with a second
processor it can be computed beside it.  :class:`Ahead` forks (Linux only; elsewhere it computes nothing and
the caller does the work itself), the child computes ``fn(*args)`` and sends the pickled value back through a
pipe.  A child that fails, or a value that cannot be pickled, gives ``None``: the caller computes the value
itself, so an error is raised where it would have been without the fork, and nothing is ever lost.

>>> import os
>>> a = Ahead(pow, 2, 10)
>>> a.result() == (1024 if available() else None)
True
>>> Ahead(divmod, 1, 0).result() is None   # the child failed: the caller computes it and sees the error
True
"""
from __future__ import annotations

import os
import pickle
import sys
import weakref

from .numeric import one_thread


def cores() -> int:
    """The processors this process may run on (its CPU affinity where the system has one).

    >>> cores() >= 1
    True
    """
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def forks() -> bool:
    """Whether this system forks as the workers need: Linux (elsewhere a fork may not be safe or may not exist)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def available() -> bool:
    """Whether work can be started ahead here: a fork and a second processor to run it on.

    >>> isinstance(available(), bool)
    True
    """
    return forks() and cores() > 1


class Ahead:
    """``fn(*args)`` computed in a forked child; :meth:`result` waits for it (None when the child failed)."""

    def __init__(self, fn, *args):
        self.pid = None
        if not available():
            return
        r, w = os.pipe()
        with one_thread():  # FLINT's thread pool does not survive a fork: the child starts with none
            pid = os.fork()
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit handlers
            os.close(r)
            code = 1
            try:
                data = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(w, "wb") as out:
                    out.write(data)
                code = 0
            except BaseException:  # noqa: BLE001 (the parent computes the value itself and meets the error)
                pass
            finally:
                os._exit(code)
        os.close(w)
        self.pid, self._r = pid, r
        self._done = weakref.finalize(self, _reap, pid, r)

    def result(self):
        """The child's value, or None (no child, or it failed)."""
        if self.pid is None:
            return None
        chunks = []
        with os.fdopen(self._r, "rb", closefd=False) as f:
            chunks.append(f.read())
        _, status = os.waitpid(self.pid, 0)
        self._done.detach()
        os.close(self._r)
        self.pid = None
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:
            return None


def _reap(pid: int, r: int) -> None:
    """A value never read: stop its child and close the pipe."""
    import signal
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    try:
        os.close(r)
    except OSError:
        pass
