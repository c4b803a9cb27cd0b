"""The marks around a figure that say which head, row or section it belongs to: ``head 2``, ``第 2 行：``,
``s^{(1)}_{ts}``, a slide's or a section's title."""
from __future__ import annotations

import re

from .symbols import SUPERSCRIPTS, plain

HEAD_WORDS = r"head|Kopf|tête|cabeça|cabeza|testa|голова|헤드|đầu|głowica|głowa|kafa|kop|kepala|हेड|huvud(?:et)?|" \
    r"hode|hoved|رأس|الرأس|κεφαλή|κεφαλής|hlava|hlavy|fej|feje|pää|pään|capul|ראש"
HEAD_WORD = re.compile(rf"(?:{HEAD_WORDS}|头|ヘッド)", re.I)
"""The word for an attention head alone: a table column of heads."""
HEAD_MARK = re.compile(rf"\b(?:{HEAD_WORDS})\s*\$?\s*\(?(\d+)\)?|"     # (huvud $(1)$: in brackets)
                       rf"\b(?:{HEAD_WORDS})\s+(?-i:([A-H]))\b|"       # hoved A, head B: heads by letter, from A
                       r"第\s*(\d+)\s*个头|"
                       r"(?:头|ヘッド)\s*(\d+)", re.I)


LAYER_WORDS = r"layer|laag|Schicht|couche|capa|camada|strato|warstwa|katman|lapisan|kerros|réteg|vrstva|слой|шар|" \
    r"block|blok|blokk|bloc|bloque|blocco|Block"
LAYER_MENTION = re.compile(rf"\(\s*[lL](\d)\s*\)|\b(?:{LAYER_WORDS})\s*(\d)\b|第\s*(\d)\s*[层層]|(\d)\s*층|"
                           rf"[层層]\s*(\d)", re.I)
"""A block named in words beside an entry (``W2[3,2] (l2)``, ``van laag 2``, ``第 2 层``), as the text counts
its blocks."""


def layer_mentioned(text: str) -> tuple:
    """The block a text names in words, as a superscript would give it: ``(2,)``; () when it names none or
    several.

    >>> layer_mentioned("W2[3,2] (l2)"), layer_mentioned("Met de hand voor W2[3,2] van laag 2:"), layer_mentioned("x")
    ((2,), (2,), ())
    """
    found = {int(next(g for g in m.groups() if g)) for m in LAYER_MENTION.finditer(text or "")}
    return (found.pop(),) if len(found) == 1 else ()


def paragraph_above(lines: list, no: int, most: int = 3) -> str:
    """The lines of a figure's paragraph above its own (up to ``most``, back to a blank line): a sentence that
    names the head on the line before the figure ('nella testa 1 … il\\n13,43 % a «il»')."""
    out = []
    for k in range(no - 2, max(-1, no - 2 - most), -1):
        if not lines[k].strip() or lines[k].lstrip().startswith(("#", "|")):
            break
        out.append(lines[k])
    return " ".join(reversed(out))


SUPERSCRIPT = re.compile(r"[^\W\d_][\w'\u0302\u0303\u0304]*\}?(?:_(?:\{[^{}]*\}|\w))?"
                         r"(?:\^\{?[(\[](\d+)(?:,\s*(\d+))?[)\]]\}?|⁽([⁰¹²³⁴⁵⁶⁷⁸⁹]+)⁾)")
#                                     (\mathbf{q}^{[2]}: the brace of a bold name before its superscript;
#                                      \tilde{q}_1^{(2)}: a subscript before it; q̃^{(2)}: an accent on it)


def lhs_superscript(text: str) -> tuple | None:
    """The superscript of the name a literal is equated to, the last name before an '=' that is not a bracketed
    formula (``attn_3 = [o^{[1]}; o^{[2]}] = (`` has none: attn's; ``o_3^{[2]} = (`` has (2,)); None when no
    '=' stands before it.

    >>> lhs_superscript("attn_3 = [o_3^{[1]}; o_3^{[2]}] = ("), lhs_superscript("x, o_3^{[2]} = (−0.1; ")
    ((), (2,))
    """
    parts = plain(text).split("=")
    for part in reversed(parts[:-1]):
        tail = part.rstrip()
        if re.search(r"[\])]\s*$", tail) and not re.search(r"\^\{?[\[(][^{}]*[\])]\}?$", tail):
            continue                   # '[o^{[1]}; o^{[2]}] =': a formula between the name and its value
        return superscript_of(tail[-40:] + " =")
    return None


def superscript_of(text: str) -> tuple:
    """The numbers of the last superscript on a name in a text (``Q^{(1)}_2 = (``: (1,); ``a^{(2,0)}``: (2, 0);
    ``o⁽⁰⁾₂,₀``: (0,)), which :mod:`symgpt.claims.notation` reads as a head or a layer; () if none.

    >>> superscript_of("Q^{(1)}_2 = ("), superscript_of("a^{(2, 0)}_{1,0} ="), superscript_of("o⁽¹⁾₂,₀ = ")
    ((1,), (2, 0), (1,))
    >>> superscript_of(r"$s^{[1,2]}$"), superscript_of(r"\\mathbf{q}^{[2]}_3 = (")
    ((1, 2), (2,))
    >>> superscript_of("x² = "), superscript_of(r"$\\tilde{q}_1^{(2)}$"), superscript_of("k_{j}^{(1)} = ")
    ((), (2,), (1,))
    """
    m = ([None] + list(SUPERSCRIPT.finditer((text or "")[-80:])))[-1]     # (the name next to the figure)
    if m is None:
        return ()
    if m[3]:
        return (int(m[3].translate(SUPERSCRIPTS)),)
    return tuple(int(g) for g in m.groups()[:2] if g is not None)


def sentence_of(lines: list, n, most: int = 3) -> str:
    """The sentence a figure stands in, up to the figure, begun up to ``most`` lines above when it wraps
    (``La tête 2 fait … « chat » ⏎ et 8,74 % pour « boit »``).

    >>> from symgpt.claims.extract import extract
    >>> text = "Head 1 gives 30 %. Head 2 gives 9.8 % to a,\\n5 % to b\\nand 8.74 % to c."
    >>> sentence_of(text.split("\\n"), extract(text)[3])
    'Head 2 gives 9.8 % to a, 5 % to b and '
    """
    text = n.line_text[:n.col]
    for k in range(n.line - 2, max(-1, n.line - 2 - most), -1):
        if re.search(r"[.!?。](?:\s|$)", text):
            break
        above = lines[k]
        if not above.strip() or re.search(r"[.!?。:：]\s*$", above) or above.lstrip().startswith(("|", "#", "```")):
            break
        text = above.strip() + " " + text
    return re.split(r"[.!?。](?:\s|$)", text)[-1]


def head_mark(text: str, one: bool = False) -> int | None:
    """The last attention head a text names (``head 2``, ``第 2 个头``), as written; None if none, and with
    ``one`` (a paragraph, a caption, a title) None too where it names two heads ('head 1 and head 2').

    >>> head_mark("head 1 gives 30 %, head 2 keeps"), head_mark("Attention: head 1 and head 2", one=True)
    (2, None)
    >>> head_mark("Hoved B er mere jævnt fordelt"), head_mark("η κεφαλή 2 μοιράζει"), head_mark("a head a")
    (2, 2, None)
    """
    heads = {head_number(m) for m in HEAD_MARK.finditer(text or "")}
    if one and len(heads) > 1:
        return None
    m = ([None] + list(HEAD_MARK.finditer(text or "")))[-1]
    return head_number(m) if m else None


def head_number(m) -> int:
    """A head mark's head as written: its number, or its letter counted from A = 1 (``hoved B``: 2)."""
    g = next(g for g in m.groups() if g is not None)
    return ord(g) - ord("A") + 1 if g.isalpha() else int(g)


ROW_MARK = re.compile(r"(?:第\s*(\d+)\s*(?:行|个位置|个词)|\b(?:row|position|pos|query|ligne|Zeile|Position|vị trí|"
                      r"posizione|posición|posição|позиция|pozycj[ai]|pozisyon|konum|positie|posisi|स्थिति|"
                      r"[Rr]ad(?:en)?|[Rr][âa]nd(?:ul)?|[Ff]ila|[Rr]iga|[Ll]inha|[Ss]atır|[Rr]ij|[Bb]aris|[Hh]àng|[Сс]трок[аеи]|[Ww]iersz[au]?|पंक्ति|الصف|الموضع|"
                      r"الموقع|[Pp]aik(?:k)?a\w*|[Pp]ozíció\w*|[Pp]ozic\w*|[Pp]lats(?:en)?)\s*=?\s*\$?\s*"
                      r"(\d+)|\bt\s*=\s*(\d+)|位置\s*(\d+))")       # (rad $2$: the number in math)
SLIDE = re.compile(r"\s*\[?(?:Slide|Folie|Diapositive|幻灯片|Page)\s*\d+\]?", re.I)


def row_mark(text: str, anywhere: bool = False) -> int | None:
    """The row a line's lead-in (``第 2 行：``, ``row 1:``, ``t=2:``) or a section's title
    (``…, position 3``) speaks of, as written (its origin is learned), else None."""
    if anywhere:
        m = ROW_MARK.search(text)
    else:                                       # the last lead-in before it: 第 1 行：…；第 2 行：σ²＝…
        m = ([None] + list(re.finditer(ROW_MARK.pattern + r"\s*[:：,，]", text)))[-1]
    return int(next(g for g in m.groups() if g is not None)) if m else None


def section_titles(lines: list, numbers: list) -> dict:
    """figure index → the title of the section it stands in: its heading, or the last slide's title."""
    slides, title = {}, ""
    for no, line in enumerate(lines, 1):
        if SLIDE.match(line):
            title = line.strip()
        slides[no] = title
    return {n.index: n.heading or slides.get(n.line, "") for n in numbers}


def printed_by(lines: list, n, back: int = 40) -> str:
    """The code line of the fenced cell above an output line that prints it: the ``print`` whose literal text
    starts as the output's line does (``print(f"E[2,1]   : {new_params['E'][2, 1]:.6f}")`` for ``E[2,1]   :
    0.089900``), else ''.  What it formats says which state the figure is of (``new_params``: after the step).

    >>> code = ['```', 'print(f"E[2,1] : {new_params[2, 1]:.4f}")', 'print(f"loss: {L:.4f}")', '```',
    ...         'E[2,1] : 0.0899', 'loss: 1.7783']
    >>> from types import SimpleNamespace as N
    >>> printed_by(code, N(line=5, line_text="E[2,1] : 0.0899", col=9))
    'print(f"E[2,1] : {new_params[2, 1]:.4f}")'
    >>> fenced = code[:4] + ['```text', 'E[2,1] : 0.0899', '```']         # the output in a block of its own
    >>> printed_by(fenced, N(line=6, line_text="E[2,1] : 0.0899", col=9))
    'print(f"E[2,1] : {new_params[2, 1]:.4f}")'
    >>> printed_by(code + ['```', 'x = 1', '```', 'E[2,1] : 0.0899'], N(line=10, line_text="E[2,1] : 0.0899", col=9))
    ''
    >>> apart = code[:4] + ['Then we print again:', '```text', 'E[2,1] : 0.0899', '```']    # prose between the two
    >>> printed_by(apart, N(line=7, line_text="E[2,1] : 0.0899", col=9))
    ''
    """
    head = n.line_text[:n.col].strip()
    if not head or not re.search(r"[^\W\d_]", head):
        return ""
    fences = [k for k in range(n.line - 2, max(-1, n.line - 2 - back), -1)
              if lines[k].lstrip().startswith(("```", "~~~"))][:3]
    if len(fences) >= 3 and not "".join(lines[fences[1] + 1:fences[0]]).strip():
        top, bottom = fences[2], fences[1]     # the output's own block (```text … ```) right under the code's
    elif len(fences) >= 2:
        top, bottom = fences[1], fences[0]     # the output right under the code's block
    else:
        return ""
    for code in reversed(lines[top + 1:bottom]):
        m = re.search(r"print\(\s*f?(['\"])(.*?)\{", code)
        if m and m[2].strip() and head.startswith(m[2].strip()):
            return code.strip()
    return ""
