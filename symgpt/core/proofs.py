"""Proven rules kept on disk, as Python keeps compiled modules: a rule is proven by SymPy once per version of
the sources it depends on, and later processes read the proven expressions back.

A rule function (``layernorm_rule``) differentiates its op's forward with SymPy and proves the result equal
to the stated adjoints; that takes a tenth of a second to a quarter of one per rule, every process.  The
proof depends only on the ops, the core, SymPy and Python, so its result is stored under a key hashed from
exactly those (:func:`sources`), and any edit to one of them proves the rules again.

The store is ``proofs`` under ``$SYMGPT_CACHE`` if set (``off`` turns it off), else under
``$XDG_CACHE_HOME/symgpt`` or ``~/.cache/symgpt``; Jinja's compiled templates are kept beside it.  A file
is read only when it belongs to this user and no one else may write it (it is a pickle, trusted as
``__pycache__`` is).  A store that cannot be read or written is passed over: the
rule is proven again, and nothing fails for want of a cache.  The numeric closures are compiled afresh from
the stored expressions.

>>> from symgpt.ops.softmax_xent import softmax_xent_rule
>>> r = softmax_xent_rule()
>>> r.name, r.derived["grad_z"]
('softmax_xent', (p - y)/n)
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from .prove import Rule, _closure

VERSION = 1
"""The format of a stored proof; bumped when :class:`Rule`'s fields change."""


def root() -> Path | None:
    """The folder symgpt keeps what it made once (proofs, compiled templates), or None when that is off
    (``SYMGPT_CACHE=off``).

    >>> import os
    >>> os.environ["SYMGPT_CACHE"] = "off"; root() is None
    True
    >>> del os.environ["SYMGPT_CACHE"]
    """
    env = os.environ.get("SYMGPT_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("off", "0", "no", "") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "symgpt"


def store() -> Path | None:
    """The folder proofs are kept in (``proofs`` under :func:`root`), or None."""
    r = root()
    return None if r is None else r / "proofs"


def folder(name: str) -> Path | None:
    """A folder of :func:`root` made for this user alone (``name``: ``templates``), or None when the cache is
    off or the folder cannot be made or is not this user's alone."""
    r = root()
    if r is None:
        return None
    path = r / name
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return path if _trusted(path) else None


def _hash_sources() -> str:
    import sympy
    h = hashlib.sha256(f"{VERSION}\0{sympy.__version__}\0{sys.version.split()[0]}\0".encode())
    package = Path(__file__).resolve().parent.parent
    for folder in ("core", "ops"):
        for path in sorted((package / folder).glob("*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def sources() -> str:
    """A hash of every source a proof can depend on: the ops, the core (the prover and its helpers), SymPy's
    and Python's versions.  Any edit there proves every rule again.

    >>> len(sources())
    64
    """
    return _AT_IMPORT


def _trusted(path: Path) -> bool:
    try:
        st = path.stat()
    except OSError:
        return False
    own = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return own and not st.st_mode & 0o022


def _pack(value):
    if isinstance(value, Rule):  # the closures are compiled again from their expressions
        if not all(getattr(f, "compiled", False) for f in value.closures.values()):
            raise TypeError(f"rule {value.name}: a closure is more than its expression (exact at 0): not kept")
        return ("rule", (value.name, value.forward, value.symbols, value.derived, value.checked,
                         {c: (f.expr, f.args) for c, f in value.closures.items()}))
    return ("value", value)


def _unpack(kept):
    kind, value = kept
    if kind == "rule":
        name, forward, symbols, derived, checked, compiled = value
        return Rule(name, forward, symbols, derived, checked,
                    {c: _closure(c, expr, args) for c, (expr, args) in compiled.items()})
    return value


def _load(path: Path):
    if not _trusted(path) or not _trusted(path.parent):
        return None
    try:
        with open(path, "rb") as f:
            return _unpack(pickle.load(f))
    except Exception:  # a torn or foreign file: prove again
        return None


def _save(path: Path, value) -> None:
    tmp = None
    try:
        kept = pickle.dumps(_pack(value), protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(kept)
        os.replace(tmp, path)  # whole or not at all: another process reads the old file or the new one
        stem = path.name.rsplit(".", 2)[0]
        for old in path.parent.glob(stem + ".*.pickle"):
            if old != path:  # the same proof made from sources that have since changed
                old.unlink(missing_ok=True)
    except Exception:  # a closure that does not pickle, a full disk: the next process proves again
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def kept(fn):
    """``functools.cache`` for a proof (a rule function, or a function of a few whole numbers), its result
    also kept on disk (see the module).  The file's name holds the function, its arguments, and the hash
    of the sources and of the function's own module.

    >>> @kept
    ... def square_rule():
    ...     return Rule("square", {}, {}, {}, "nothing")
    >>> square_rule() is square_rule()
    True
    """
    @functools.lru_cache(maxsize=64)
    @functools.wraps(fn)
    def proof(*args):
        where = store()
        if where is None or not all(type(a) in (int, bool, type(None)) for a in args):
            return fn(*args)
        h = hashlib.sha256(sources().encode() + Path(sys.modules[fn.__module__].__file__).read_bytes())
        name = f"{fn.__module__}.{fn.__qualname__}{''.join(f'-{a}' for a in args)}"
        path = where / f"{name}.{h.hexdigest()[:32]}.pickle"
        got = _load(path)
        if got is not None:
            return got
        proven = fn(*args)
        if _hash_sources() == sources():      # the files are still the ones this process imported
            _save(path, proven)
        return proven
    return proof


_AT_IMPORT = _hash_sources()
"""The sources as this process imported them (the ops import this module first): a file edited later is not
what the process runs, so nothing is kept under its hash (:func:`_save` checks it again)."""
