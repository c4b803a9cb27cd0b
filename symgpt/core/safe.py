r"""Text from input made safe for any output: control characters shown as their escapes.

One rule for every output (terminal, SVG, LaTeX, Markdown, TOML, JSON, error lines):
C0, DEL, C1, bidi controls, line and paragraph separators, surrogates and
noncharacters never appear raw; they are shown as ``\x1b``, ``\u202e``.

>>> print(visible("a\x1b[2Jb"))
a\x1b[2Jb
"""
from __future__ import annotations

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def is_control(ch: str) -> bool:
    r"""A character no output should carry raw: C0, DEL, C1, a bidi control, a line or
    paragraph separator, a surrogate or a noncharacter like U+FFFE (none is allowed in
    XML 1.0 text or safe on a terminal).

    >>> [is_control(c) for c in "a\x1b\x7f\x85\u202e\ufffe\u00e9"]
    [False, True, True, True, True, True, False]
    """
    o = ord(ch)
    return (o < 0x20 or 0x7F <= o < 0xA0 or ch in _BIDI or o in (0x2028, 0x2029)
            or 0xD800 <= o < 0xE000 or (o & 0xFFFE) == 0xFFFE)


def shown(ch: str) -> str:
    r"""A control character as the escape that shows it: ``\n``, ``\x1b``, ``\u202e``.

    >>> print(shown("\n"), shown("\x1b"), shown("\x85"), shown("\u202e"))
    \n \x1b \x85 \u202e
    """
    o = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def visible(text) -> str:
    r"""Text with every control character (see :func:`is_control`) shown as its escape.

    >>> print(visible("a\x1b[31mb\u202ec\td"))
    a\x1b[31mb\u202ec\td
    """
    return "".join(shown(ch) if is_control(ch) else ch for ch in str(text))


def clip(text, n: int | None) -> str:
    r"""Input text for a one-line message: at most ``n`` characters (then ``…``), made visible.

    The cut comes before the escapes, so an escape is never cut in half.

    >>> clip("a\x1bb", 10), clip("x" * 5, 3), clip("xyz", None)
    ('a\\x1bb', 'xxx…', 'xyz')
    """
    text = str(text)
    cut = n is not None and len(text) > n
    return visible(text[:n] if cut else text) + ("…" if cut else "")
