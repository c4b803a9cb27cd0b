"""Errata: the source document's wrong figures, for the document build (claims side).

The document layer never calls back into ``verify``: :func:`for_document` is
computed here and handed to :func:`symgpt.document.build`.

>>> import symgpt
>>> rows = for_document(symgpt.load("bigram"))
>>> sorted(rows[0])[:3]
['cause', 'correct', 'exact']
"""
from __future__ import annotations

from pathlib import Path

from .claims import judge_all, read_claims


def claims_path(spec) -> Path:
    """``derivations/NAME.claims.toml`` beside a spec.

    >>> import symgpt
    >>> claims_path(symgpt.load("bigram").spec).name
    'bigram.claims.toml'
    """
    return Path(spec.path).with_name(f"{spec.name}.claims.toml")


def for_document(d):
    """The wrong printed figures of the spec's claims file, or None without one.

    Each entry has the keys ``ref, printed, where, exact, correct, verdict, cause``.
    """
    path = claims_path(d.spec)
    if not path.exists():
        return None
    return [{k: str(getattr(v, k) or "") for k in ("ref", "printed", "where", "exact", "correct", "verdict", "cause")}
            for v in judge_all(read_claims(path), d) if not v.ok]
