"""Fingerprints of the source documents' sentences, so a test can tell pasted prose without the sources.

The two source documents (000 and 004) are not part of the repository.  What the
test needs from them is only whether one of their sentences appears in our words:
each sentence of 12 characters or more with a run of six Chinese characters is kept
as the hashes of its 12-character pieces (at offsets 0, 12, 24, … and the last 12),
never as text.  A sentence pasted into our words has every one of those pieces in
them, so its fingerprint is found.

Regenerate (only if the sources change):
    python tests/source_prints.py /work/shared/seeds/000_*.txt /work/shared/seeds/004_*.txt \
        > tests/data/source-sentences.txt

>>> [fp] = prints(["这是一个足够长的中文句子，用来测试指纹。短句。"])  # the short one is not kept
>>> len(fp), set(fp) <= windows("前文：这是一个足够长的中文句子，用来测试指纹，后文")
(2, True)
>>> set(fp) <= windows("这是一个足够长的中文句子，用来检查指纹")
False
"""
from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

PIECE = 12


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def sentences(text: str) -> set:
    """The sentences of a source document worth checking (as the test has always cut them)."""
    out = set()
    for s in re.split(r"[。！？\n]|(?<=[.!?])\s", text):
        s = s.strip()
        if len(s) >= PIECE and re.search(r"[\u4e00-\u9fff]{6}", s):
            out.add(s)
    return out


def pieces(s: str) -> list:
    starts = sorted(set(range(0, len(s) - PIECE + 1, PIECE)) | {len(s) - PIECE})
    return [s[i:i + PIECE] for i in starts]


def prints(texts) -> list:
    """One fingerprint (the digests of its pieces) per sentence of the given documents, sorted."""
    found = set().union(*(sentences(t) for t in texts))
    return sorted([digest(p) for p in pieces(s)] for s in found)


def windows(text: str) -> set:
    """The digests of every 12-character window of ``text``: a fingerprint is in ``text``
    when all its digests are here."""
    return {digest(text[i:i + PIECE]) for i in range(len(text) - PIECE + 1)}


if __name__ == "__main__":
    files = [Path(a) for a in sys.argv[1:]]
    print("# fingerprints of the sentences of " + ", ".join(p.name for p in files)
          + " (tests/source_prints.py); one sentence a line")
    for fp in prints(p.read_text(encoding="utf-8") for p in files):
        print(" ".join(fp))
