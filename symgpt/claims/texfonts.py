"""The characters of TeX's math and text fonts, for PDFs that leave them out.

pdflatex embeds Computer Modern as Type 1 fonts with their own encodings (OT1, OML, OMS, OMX) and, without
the ``cmap`` package, no ``ToUnicode`` table; pdfminer then reads a minus sign as ``(cid:0)``, a ``×`` as
``(cid:2)``, a radical as ``p`` and a display sum as ``X``.  :func:`tex_char` reads them by the font's name.

>>> tex_char("UTACNV+CMSY10", "(cid:0)"), tex_char("KNCMHP+CMEX10", "X"), tex_char("ABCDEF+CMR10", "(cid:12)")
('−', '∑', 'fi')
"""
from __future__ import annotations

import re

_ = ""   # (a piece of a larger glyph: no character of its own)

OT1 = list("ΓΔΘΛΞΠΣΥΦΨΩ") + ["ff", "fi", "fl", "ffi", "ffl"] + list("ıȷ`´ˇ˘¯˚¸ßæœøÆŒØ")
OML = list("ΓΔΘΛΞΠΣΥΦΨΩαβγδϵζηθικλμνξπρστυϕχψωεϑϖϱςφ↼↽⇀⇁") + [_, _] + list("▹◃0123456789.,</>⋆∂ABCDEFGHIJKLMNOPQRST"
                                                                     "UVWXYZ♭♮♯⌣⌢ℓabcdefghijklmnopqrstuvwxyzıȷ℘\u20d7⁀")
OMS = list("−·×∗÷⋄±∓⊕⊖⊗⊘⊙◯∘∙≍≡⊆⊇≤≥⪯⪰∼≈⊂⊃≪≫≺≻←→↑↓↔↗↘≃⇐⇒⇑⇓⇔↖↙∝′∞∈∋△▽\u0338") + [_] + \
    list("∀∃¬∅ℜℑ⊤⊥ℵABCDEFGHIJKLMNOPQRSTUVWXYZ∪∩⊎∧∨⊢⊣⌊⌋⌈⌉{}⟨⟩|‖↕⇕\\≀√⨿∇∫⊔⊓⊑⊒§†‡¶♣♢♡♠")
OMX = list("()[]⌊⌋⌈⌉{}⟨⟩|‖/\\()()[]⌊⌋⌈⌉{}⟨⟩/\\()[]⌊⌋⌈⌉{}⟨⟩/\\/\\⎛⎞⎡⎤⎣⎦⎢⎥⎧⎫⎩⎭⎨⎬⎪") + [_] + \
    list("⎝⎠⎜⎟⟨⟩⊔⊔∮∮⊙⊙⊕⊕⊗⊗∑∏∫⋃⋂⊎∧∨∑∏∫⋃⋂⊎∧∨∐∐ˆˆˆ˜˜˜[]⌊⌋⌈⌉{}√√√√√") + [_] * 11

FAMILIES = [(re.compile(r"(?:CMB?SY|LMMathSymbols)\d"), OMS, str.isalnum),      # no letter or digit is itself
            (re.compile(r"(?:CMEX|LMMathExtension)\d"), OMX, str.isalnum),
            (re.compile(r"(?:CMMIB?|LMMathItalic)\d"), OML, "@`".__contains__),
            (re.compile(r"CM(?:R|BX|SL|TI|SS|SSI|SSBX|BXTI|CSC|U|FIB|FF|B)\d"), OT1, '{|\\"'.__contains__)]
OT1_ASCII = {"{": "–", "|": "—", "\\": "“", '"': "”"}
CID = re.compile(r"\(cid:(\d+)\)")


def tex_char(font: str, text: str) -> str:
    """The character ``text`` (as pdfminer read it) stands for in ``font``; another font's ``(cid:N)``, a glyph
    with no known character, is U+FFFD (never the digits of its number, which would read as a figure).

    >>> tex_char("CMMI10", "(cid:27)"), tex_char("CMSY10", "p"), tex_char("CMSY10", "{"), tex_char("Foo", "(cid:3)")
    ('σ', '√', '{', '\ufffd')
    """
    name = font.split("+", 1)[-1]
    cid = CID.fullmatch(text)
    for pattern, table, misread in FAMILIES:
        if pattern.match(name):
            code = int(cid[1]) if cid else ord(text) if len(text) == 1 and text.isascii() and misread(text) else None
            if code is None or code >= len(table):
                break
            return OT1_ASCII[text] if table is OT1 and not cid else table[code]
    return "\ufffd" if cid else text
