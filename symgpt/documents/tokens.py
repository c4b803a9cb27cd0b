"""A token sequence as a reader reads it: words of a Latin script apart, CJK characters together."""
from __future__ import annotations

import unicodedata


def latin(ch: str) -> bool:
    """A letter or digit of the Latin script (ASCII or accented).

    >>> latin("a"), latin("é"), latin("7"), latin("你"), latin(" ")
    (True, True, True, False, False)
    """
    return ch.isascii() and ch.isalnum() or unicodedata.name(ch, "").startswith("LATIN ")


def joined(tokens) -> str:
    """The tokens as one text: a space between two tokens that meet letter to letter in a Latin
    script (``the`` ``cat`` → ``the cat``), none elsewhere (``我`` ``爱`` → ``我爱``; a token that brings
    its own space or punctuation keeps it).

    >>> joined(["the", "cat"]), joined(["我", "爱"]), joined(["the", "猫"]), joined(["t3", "t2", ","])
    ('the cat', '我爱', 'the猫', 't3 t2,')
    """
    out = ""
    for t in tokens:
        if out and t and latin(out[-1]) and latin(t[0]):
            out += " "
        out += t
    return out
