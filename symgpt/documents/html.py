"""The explorable page: one self-contained HTML file per document, every printed figure live.

The page is the document of :mod:`symgpt.documents.document`, laid out by
``templates/html/``, with three things the Markdown cannot have:

- every printed figure is an element carrying its quantity
  (``data-ref="A[1,0]"``), its certified value to 30 significant digits
  (``data-exact``) and the figure as printed (``data-printed``); focusing or
  hovering it opens its proof (:mod:`symgpt.documents.explore`): meaning, definition,
  worked line, closed form, value, and links to the figures it is computed
  from and the figures computed from it;
- controls over exact tables (:mod:`symgpt.documents.controls`): temperature, top-k and
  top-p, the seeded draw on the cumulative bar, the training states;
- the source's wrong figures marked where ours stand (``data-err``).

Math is typeset while rendering (:mod:`symgpt.documents.mathhtml`, KaTeX by node); the
KaTeX CSS and fonts, the page's CSS and script are inline: the file makes no
network request and opens from a ``file://`` URL.

While the template runs, :class:`Page` collects the formulas and the figures:
a formula becomes a placeholder, a figure a ``data-n`` number (inside a
formula, KaTeX's ``\\htmlData{n=K}{…}``).  Afterwards one node process
typesets every formula, and each ``data-n`` becomes the figure's attributes.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import re
import tomllib
import zlib

from ..core.resources import TEMPLATES, version_line
from ..core.safe import is_control, shown
from ..ops import NAMES
from . import controls, explore
from . import steps as st
from .blocks import line_tex
from .document import printed_figures
from .figures import svg
from .formats import Format, environment, load_lang
from .mathhtml import KATEX, typeset

MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"   # a formula's placeholder: MARK_OPEN n MARK_CLOSE
EXACT_DIGITS = 30


def esc(text) -> str:
    """User text made literal in HTML: ``< > & " '`` escaped, a control character shown as its escape.

    >>> esc("<pad> & \\"x\\""), esc("a\\x1b"), esc("\\ue000")
    ('&lt;pad&gt; &amp; &quot;x&quot;', 'a\\\\x1b', '&#xe000;')
    """
    out = []
    for ch in str(text):
        if ch in (MARK_OPEN, MARK_CLOSE):
            out.append(f"&#x{ord(ch):x};")
        elif is_control(ch):
            out.append(html.escape(shown(ch)))
        else:
            out.append(html.escape(ch, quote=True))
    return "".join(out)


class Page:
    """The formulas and figures one page collects while its template renders.

    >>> p = Page()
    >>> p.math("x^2", False), p.figure("A[1,0]", "0.454"), p.maths, p.figures
    ('\\ue0000\\ue001', 0, [('x^2', False, True)], [('A[1,0]', '0.454')])
    """

    def __init__(self):
        self.maths: list = []     # (tex, display)
        self.figures: list = []   # (ref, printed)

    def math(self, tex: str, display: bool, mathml: bool = True) -> str:
        self.maths.append((tex, display, mathml))
        return f"{MARK_OPEN}{len(self.maths) - 1}{MARK_CLOSE}"

    def figure(self, ref: str, printed: str) -> int:
        self.figures.append((ref, printed))
        return len(self.figures) - 1

    def mark(self, ref: str, printed: str, tex: str) -> str:
        """A figure inside a formula: ``\\htmlData{n=K}{tex}``."""
        return rf"\htmlData{{n={self.figure(ref, printed)}}}{{{tex}}}"

    def span(self, ref: str, printed: str, text: str) -> str:
        """A figure in running text or a table cell."""
        return f'<span data-n="{self.figure(ref, printed)}">{text}</span>'


_BEFORE = r"(?<![\d.^_{\-−])(?<!\^\{)(?<!_\{)"  # not inside a longer or signed number, an index, an exponent
_AFTER = r"(?![\d])"


def mark_tex(tex: str, figs, mark) -> str:
    r"""``tex`` with each printed figure of ``figs`` (ref, printed) wrapped by ``mark(ref, printed, tex)``.

    Figures are found left to right, each after the one before; one not found there is looked for
    from the start among the text not yet marked.  Digits of an index or an exponent (``h_{0}``,
    ``10^{-5}``) and a figure inside a signed one (0.48 in −0.48) are never taken.

    >>> mark_tex(r"h_{0} = (0.5,\; -0.25)", [("a", "0.5"), ("b", "-0.25")], lambda r, p, t: f"[{r}:{t}]")
    'h_{0} = ([a:0.5],\\; [b:-0.25])'
    >>> mark_tex("-0.48 + 0.48", [("a", "0.48"), ("b", "-0.48")], lambda r, p, t: f"[{r}:{t}]")
    '[b:-0.48] + [a:0.48]'
    """
    taken: list = []  # (start, end, replacement)
    cursor = 0
    for ref, printed in figs:
        pat = re.compile(_BEFORE + re.escape(st._num_tex(printed)) + _AFTER)
        free = lambda m: not any(a < m.end() and m.start() < b for a, b, _ in taken)
        m = next((m for m in pat.finditer(tex, cursor) if free(m)), None) \
            or next((m for m in pat.finditer(tex) if free(m)), None)
        if m is None:
            continue
        taken.append((m.start(), m.end(), mark(ref, printed, m[0])))
        cursor = m.end()
    out, at = [], 0
    for a, b, text in sorted(taken):
        out += [tex[at:a], text]
        at = b
    return "".join(out) + tex[at:]


@contextlib.contextmanager
def marking(page: Page):
    """Within it, :func:`symgpt.documents.steps.tex` marks each figure of a worked line for ``page``."""
    token = st.FIGURE.set(page.mark)
    try:
        yield
    finally:
        st.FIGURE.reset(token)


def calc(ln, aligned: bool = True) -> str:
    """A display line for the page: as :func:`symgpt.documents.blocks.line_tex`, never broken by width
    (a page scrolls a wide formula; the breaks are the PDF's)."""
    if isinstance(ln, dict) and ln.get("wrap"):
        ln = {**ln, "wrap": None}
    return line_tex(ln, aligned)


# ---------------------------------------------------------------- the finished page

KATEX_CSS_MARK = MARK_OPEN + "katex-css" + MARK_CLOSE
# KaTeX's fonts by the classes that ask for them; a page carries only the fonts its formulas use
FONT_CLASSES = {  # font: the class sets (all in one class attribute) that ask for it
    "KaTeX_AMS-Regular": ("amsrm", "mathbb", "textbb"), "KaTeX_Caligraphic-Regular": ("mathcal",),
    "KaTeX_Caligraphic-Bold": ("mathcal textbf", "mathcal mathbf"), "KaTeX_Fraktur-Regular": ("mathfrak", "textfrak"),
    "KaTeX_Fraktur-Bold": ("mathboldfrak", "textboldfrak"), "KaTeX_Main-Bold": ("mathbf", "textbf"),
    "KaTeX_Main-BoldItalic": ("textbf textit", "mathbf mathit"), "KaTeX_Main-Italic": ("mathit", "textit"),
    "KaTeX_Math-BoldItalic": ("boldsymbol",), "KaTeX_SansSerif-Bold": ("mathboldsf", "textboldsf"),
    "KaTeX_SansSerif-Italic": ("mathitsf", "textitsf"), "KaTeX_SansSerif-Regular": ("mathsf", "textsf"),
    "KaTeX_Script-Regular": ("mathscr", "textscr"), "KaTeX_Typewriter-Regular": ("mathtt", "texttt"),
    "KaTeX_Size1-Regular": ("delimsizing size1", "delim-size1", "small-op"),
    "KaTeX_Size2-Regular": ("delimsizing size2", "large-op"), "KaTeX_Size3-Regular": ("delimsizing size3",),
    "KaTeX_Size4-Regular": ("delimsizing size4", "delim-size4"),
}
ALWAYS = ("KaTeX_Main-Regular", "KaTeX_Math-Italic")


def inline_css(page: str | None = None) -> str:
    """KaTeX's CSS with its woff2 fonts inline (data: URLs), the other formats dropped; with ``page``,
    only the fonts its formulas' classes ask for (every font without it).

    >>> css = inline_css()
    >>> "url(fonts/" in css, css.count("data:font/woff2;base64,")
    (False, 20)
    >>> inline_css('<span class="mord mathnormal">x</span>').count("data:font/woff2;base64,")
    2
    """
    css = (KATEX / "katex.min.css").read_text(encoding="utf-8")
    attrs = {frozenset(a.split()) for a in re.findall(r'class="([^"]*)"', page)} if page is not None else None

    def used(font: str) -> bool:
        if attrs is None or font in ALWAYS:
            return True
        wants = [frozenset(w.split()) for w in FONT_CLASSES.get(font, ())]
        return any(w <= a for a in attrs for w in wants)

    def face(m):
        fonts = re.findall(r"url\(fonts/([\w-]+)\.woff2\)", m[0])
        if not fonts or not used(fonts[0]):
            return ""
        data = base64.b64encode((KATEX / "fonts" / f"{fonts[0]}.woff2").read_bytes()).decode("ascii")
        return re.sub(r"src:[^;}]*", f'src:url(data:font/woff2;base64,{data}) format("woff2")', m[0])
    return re.sub(r"@font-face\{[^}]*\}", face, css)


def finish(texts, page: Page, attrs, what: str) -> list:
    """The texts with every formula typeset (one node run for all) and every ``data-n`` replaced by
    ``attrs(n)``'s attributes."""
    done = typeset(page.maths, what)
    out = []
    for text in texts:
        text = re.sub(f"{MARK_OPEN}(\\d+){MARK_CLOSE}", lambda m: done[int(m[1])], text)
        text = re.sub(r'(<annotation encoding="application/x-tex">)(.*?)(</annotation>)',
                      lambda m: m[1] + unmark(m[2]) + m[3], text, flags=re.S)
        text = text.replace('class="enclosing" data-n=', 'data-math data-n=')
        out.append(re.sub(r'(data-math )?data-n="(\d+)"', lambda m: attrs(int(m[2]), bool(m[1])), text))
    return out


def unmark(tex: str) -> str:
    r"""A formula without its figure marks: ``\htmlData{n=3}{0.5}`` → ``0.5`` (for the MathML annotation,
    the TeX a reader copies).

    >>> unmark(r"x = \htmlData{n=3}{0.5} + \htmlData{n=4}{\frac{1}{2}}")
    'x = 0.5 + \\frac{1}{2}'
    """
    while True:
        m = re.search(r"\\htmlData\{n=\d+\}\{", tex)
        if not m:
            return tex
        depth, i = 1, m.end()
        while depth and i < len(tex):
            depth += {"{": 1, "}": -1}.get(tex[i], 0) if tex[i - 1] != "\\" else 0
            i += 1
        tex = tex[:m.start()] + tex[m.end():i - 1] + tex[i:]


def packed(text: str) -> str:
    """Text zlib-compressed (RFC 1950, what a browser's ``DecompressionStream("deflate")`` reads), as base64.

    zlib, not gzip: Python's gzip header differs between versions (3.12 changed it), zlib's stream
    does not, so a page is the same bytes whichever Python renders it.

    >>> import zlib; zlib.decompress(base64.b64decode(packed("card"))).decode()
    'card'
    """
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")


def attributes(ref: str, printed: str, exact: str, err: dict | None = None, in_math: bool = False) -> str:
    """The attributes of one live figure; one in a formula is out of the tab order (KaTeX's visual
    layer is hidden from screen readers, which read its MathML), reached by a pointer or a link.

    >>> attributes("A[1,0]", "0.454", "0.4541")
    'class="n" tabindex="0" data-ref="A[1,0]" data-printed="0.454" data-exact="0.4541"'
    """
    out = f'class="n{" err" if err else ""}" tabindex="{-1 if in_math else 0}" data-ref="{esc(ref)}" ' \
          f'data-printed="{esc(printed)}" data-exact="{esc(exact)}"'
    if err:
        out += f' data-err="{esc(json.dumps(err, ensure_ascii=False))}"'
    return out


# ---------------------------------------------------------------- the format

def _format_class():

    class HTMLFormat(Format):
        """How the page writes values and sentences: HTML text, figures live, math as placeholders."""

        name = "html"

        def __init__(self, L: dict, page: Page):
            super().__init__(L)
            self.page = page

        def esc(self, s) -> str:
            return esc(s)

        def math(self, s) -> str:
            return self.page.math(s, False)

        def number(self, s) -> str:
            sci = st._num_tex(s)
            return self.math(sci) if sci != s else esc(s)

        def _live(self, ref, printed, text) -> str:
            return self.page.span(ref, printed, text)

        def value(self, v, cell=False) -> str:
            t = v["t"]
            if t == "num" and "hyper" in v:  # a hyper-parameter: live, its card says what it is
                return f'<span class="n" tabindex="0" data-key="{esc(hyper_key(v))}">{esc(v["v"])}</span>'
            if t == "num" and "ref" in v:
                s = self._live(v["ref"], v["v"], self.number(v["v"]))
                if "exact" in v:
                    s += " " + self.words("exactly") % {"x": self._live(v["ref"], v["exact"], self.number(v["exact"]))}
                return s
            if t == "pct" and "ref" in v:
                return self._live(v["ref"], v["v"] + "%", self.number(v["v"]) + "%")
            if t == "share" and "ref" in v:
                pct = self._live(v["ref"], v["v"] + "%", self.number(v["v"]) + "%")
                return self.words("share") % {"tok": self.esc(v["tok"]), "pct": pct}
            if t in ("math", "tex") and v.get("figs"):
                marked = mark_tex(v["v"], v["figs"], self.page.mark)
                return self.math(marked) if t == "math" else marked
            return super().value(v, cell)

        def cell(self, v) -> str:
            return self.value(v, cell=True)

        def say(self, key, args=None) -> str:
            """The sentence ``key`` in HTML: its text escaped, its ``$…$`` typeset, arguments filled in."""
            s, args = self.sentence(key, args)
            vals = {k: self.value(v) for k, v in args.items()}
            return "".join(self.math(part % vals) if i % 2 else esc(part) % vals
                           for i, part in enumerate(s.split("$")))

    return HTMLFormat


# ---------------------------------------------------------------- the page

ASSETS = ("page.css", "page.js")
SAMPLING_AFTER = {"transformer": "sample", "bigram": "bigram_forward"}
TRAINING_AFTER = {"transformer": "train", "bigram": "bigram_update"}


def _label(s: str) -> str:
    return "∞" if s == "inf" else s


def render_page(doc: dict, d, lang: str, controls: dict | None = None, langs=("zh", "en")) -> str:
    """One document as an explorable page (``NAME.<lang>.html``): text, figures live, math typeset.

    ``controls`` (:func:`page_data`) is computed once per spec and shared by its languages.
    """
    controls = controls if controls is not None else page_data(doc, d)
    L = load_lang(lang)
    page = Page()
    f = _format_class()(L, page)
    env = environment("html")
    env.autoescape = False

    def display(tex, figs=None) -> str:
        return page.math(mark_tex(tex, figs, page.mark) if figs else tex, True)

    def figure(ref, printed) -> str:
        return f._live(ref, printed, f.number(printed))

    table = meanings(lang)

    def meaning(text: str) -> str:  # the names registry's English meaning, in the page's language when known
        m = re.fullmatch(r"∂loss/∂(\S+)", text)
        if m and "gradient" in table:
            return table["gradient"] % {"x": m[1]} + f" ({text})"
        return translated(table, text)

    env.filters.update(esc=esc, val=f.value, cell=f.cell, calc=calc, display=display, figure=figure, meaning=meaning,
                       cardmath=lambda tex: page.math(tex, True, mathml=False),
                       label=_label, klabel=lambda k: f"k = {k}", svg=lambda fig: _inline_svg(fig))
    env.globals.update(say=f.say, words=f.words, title=f.title)
    other = "en" if lang == "zh" else "zh"
    js_words = {k: f.words("html_" + k) for k in ("err_printed", "err_correct", "err_cause", "close", "card")}
    info = {**controls, "katex_css": KATEX_CSS_MARK, "generator": version_line(),
            "other_file": f"{doc['name']}.{other}.html" if other in langs else None, "other_lang": other,
            "sampling_after": SAMPLING_AFTER[doc["kind"]], "training_after": TRAINING_AFTER[doc["kind"]],
            "script_hash": SCRIPT_HASH_MARK,
            "pretty": lambda r: controls["pretty"].get(r, r), "words_json": json.dumps(js_words, ensure_ascii=False),
            "math": lambda tex: page.math(tex, False, mathml=False),
            "reader": lambda ref: (lambda n: page.math(r"\mathcal{L}", False) if n == "loss" else esc(n))(
                reader_name(controls["pretty"].get(ref, ref)))}
    with marking(page):
        cards_html = env.get_template("html/cards.html.j2").render(page=info)
        info["cards_gz"] = MARK_OPEN + "cards" + MARK_CLOSE
        info["panels_gz"] = MARK_OPEN + "panels" + MARK_CLOSE
        info["pack"] = (PACK_OPEN, PACK_CLOSE)
        text = env.get_template("html/document.html.j2").render(doc=doc, L=L, lang=lang, page=info)
    cards = {c["key"]: c for c in controls["cards"]}
    errata = controls["errata"]

    def attrs(n: int, in_math: bool) -> str:
        ref, printed = page.figures[n]
        key = controls["keys"].get(ref, ref)
        err = errata.get(key)
        if err is not None:
            err = {**err, "cause": f.words("cause_" + err["cause"].replace(" ", "_"))}
        return attributes(ref, printed, cards[key]["value"], err, in_math) + f' data-key="{esc(key)}"'
    text, cards_html = finish([re.sub(r"\n{2,}", "\n", text), cards_html], page, attrs, f"{doc['name']}.{lang}.html")
    text, panels = pack_panels(text)
    text = text.replace(MARK_OPEN + "cards" + MARK_CLOSE, packed(cards_html))
    text = text.replace(MARK_OPEN + "panels" + MARK_CLOSE, packed(json.dumps(panels, ensure_ascii=False)))
    own = re.search(r"<script>(.*?)</script>", text, re.S)  # the page's script as it stands in the page
    text = text.replace(SCRIPT_HASH_MARK, script_hash(own[1]))
    return text.replace(KATEX_CSS_MARK, inline_css(text + "".join(panels)))


PACK_OPEN, PACK_CLOSE = MARK_OPEN + "pack" + MARK_CLOSE, MARK_OPEN + "/pack" + MARK_CLOSE


def pack_panels(text: str) -> tuple:
    """The page with each control's hidden panels (between PACK_OPEN and PACK_CLOSE) taken out, a placeholder
    left in each one's place; and the panels' HTML, in order.  The page carries them zlib-compressed, as it
    carries the cards, and its script puts them back when it loads; the panel a control starts on stays.

    >>> pack_panels(f"<p>{PACK_OPEN}<div>a</div>{PACK_CLOSE}</p>")
    ('<p><div class="packed" data-p="0" hidden></div></p>', ['<div>a</div>'])
    """
    panels: list = []

    def take(m):
        panels.append(m[1])
        return f'<div class="packed" data-p="{len(panels) - 1}" hidden></div>'
    return re.sub(f"{PACK_OPEN}(.*?){PACK_CLOSE}", take, text, flags=re.S), panels


SCRIPT_HASH_MARK = MARK_OPEN + "script-hash" + MARK_CLOSE


def script_hash(js: str) -> str:
    """The CSP source that allows exactly this inline script and nothing else (no handler attribute).

    >>> script_hash("")
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    """
    return "'sha256-" + base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode("ascii") + "'"


def meanings(lang: str) -> dict:
    """{English meaning: the page language's} (none for English): each quantity's from its op's names
    (:data:`symgpt.ops.NAMES`), and the language's ``gradient`` phrase from ``templates/lang/<lang>.meanings.toml``.

    >>> meanings("zh")["first residual H + Attn"], meanings("zh")["gradient"], meanings("en")
    ('第一次残差 H + Attn', '损失对 %(x)s 的偏导数', {})
    """
    table = {n.en: m for n in NAMES.values() if n.en and (m := n.meaning(lang)) and m != n.en}
    path = TEMPLATES / "lang" / f"{lang}.meanings.toml"
    if path.is_file():
        with open(path, "rb") as f:
            table.update(tomllib.load(f))
    return table


def translated(table: dict, text: str) -> str:
    """``text`` (an English meaning) in the table's language: the exact entry, else the first of its
    ``patterns`` that matches in full (``{0}`` the tensor's name), else the English itself.

    >>> z = meanings("zh")
    >>> translated(z, "LayerNorm of l1.H2"), translated(z, "mean of H0 over j"), translated(z, "no such words")
    ('l1.H2 的 LayerNorm', 'H0 沿 j 的均值', 'no such words')
    """
    if text in table and isinstance(table[text], str):
        return table[text]
    for pattern, words in table.get("patterns", {}).items():
        m = re.fullmatch(pattern, text)
        if m:
            return words.format(*m.groups())
    return text


def reader_name(pretty: str) -> str:
    """A training row's name as the documents write it: its state and layer prefixes dropped (its group
    names the tensor and layer), p[你] as p(你); the loss stays ``loss`` (the page writes it 𝓛).

    >>> reader_name("sgd[1].l0.W_Q[1,0]"), reader_name("adamw[2].p[你]"), reader_name("sgd[0].E[我,1]")
    ('W_Q[1,0]', 'p(你)', 'E[我,1]')
    """
    name = re.sub(r"^l\d+\.", "", re.sub(r"^(?:sgd|adamw)\[\d+\]\.", "", pretty))
    m = re.fullmatch(r"p\[(.+)\]", name)
    return f"p({m[1]})" if m else name


def hyper_key(v: dict) -> str:
    """The card key of a printed hyper-parameter (:func:`symgpt.documents.transformer.hyper_num`).

    >>> hyper_key({"t": "num", "v": "5", "hyper": {"sym": "V", "word": "vocab_size"}})
    'hyper:V'
    """
    return "hyper:" + v["hyper"]["sym"]


def hyper_cards(sections) -> list:
    """The cards of the hyper-parameters the document prints: symbol, meaning, value (no proof: the spec sets them)."""
    found: dict = {}

    def walk(x):
        if isinstance(x, dict):
            if x.get("t") == "num" and "hyper" in x:
                found.setdefault(hyper_key(x), x)
            for y in x.values():
                walk(y)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
    walk(sections)
    return [{"key": k, "name": v["hyper"]["sym"], "hyper": v["hyper"], "value": v["v"], "inputs": [], "consumers": [],
             "lines": None, "meaning": None, "source": [], "place": None} for k, v in found.items()]


PER_HEAD = ("S", "A", "A_den")  # the quantities whose first index is a head when there are several


def code_place(key: str, heads: int) -> dict | None:
    """Where a code name's 0-based prefix and head index stand, for the card to say so counting from 1:
    ``{"code": "l0.", "l": 1}``, with ``"q", "i", "h"`` when the name is a head's (several heads).

    >>> code_place("l0.A[1,1,0]", 2), code_place("sgd[1].l1.W_Q[0,0]", 2), code_place("A[1,0]", 1)
    ({'code': 'l0.', 'l': 1, 'q': 'A', 'i': '1', 'h': 2}, {'code': 'l1.', 'l': 2}, None)
    """
    m = re.search(r"(?<![A-Za-z0-9])l(\d+)\.(\w+)(?:\[(\d+),)?", key)
    if m is None:
        return None
    out = {"code": f"l{m[1]}.", "l": int(m[1]) + 1}
    if heads > 1 and m[2] in PER_HEAD and m[3] is not None:
        out.update(q=m[2], i=m[3], h=int(m[3]) + 1)
    return out


def _inline_svg(fig: dict) -> str:
    return re.sub(r"^<\?xml[^>]*>\s*", "", svg(fig))


def page_data(doc: dict, d) -> dict:
    """What both languages' pages share: the cards, the controls, the errata by quantity, CSS and script."""
    sampling = controls.sampling_panels(d, doc["digits"] + 1)
    training = controls.training_states(d, doc["digits"])
    refs = [f["ref"] for f in printed_figures(doc["sections"])]
    for kind in ("temperature", "top_k", "top_p"):
        refs += [r for p in sampling[kind] for r, _ in p["figures"]]
    refs += [r for states in training.values() for s in states for g in s["groups"] for row in g["rows"]
             for r in (row["ref"], row["change"]) if r]
    uses = explore.consumers(d)
    source = explore.source_chains(d)
    keys, cards = {}, {}
    for r in dict.fromkeys(refs):
        c = explore.card(d, r, uses, source)
        keys[r] = c["key"]
        cards.setdefault(c["key"], c)
    # a card links only to quantities the page prints (a link elsewhere would open a card beside nothing);
    # the others it names as plain text
    for c in cards.values():
        c["place"] = code_place(c["key"], d.spec.heads)
    for c in hyper_cards(doc["sections"]):
        cards[c["key"]] = c
    errata = {}
    for row in doc["errata"] or ():
        for fig in row["figures"]:
            key = fig["node"] or fig["ref"]
            errata.setdefault(key, {"printed": ", ".join(fig["printed"]), "correct": fig["correct"],
                                    "exact": fig["exact"], "cause": row["cause"], "n": row["n"]})
    return {"sampling": sampling, "training": training, "cards": list(cards.values()), "keys": keys,
            "errata": errata, "pretty": {k: c["name"] for k, c in cards.items()}, "card_keys": set(cards),
            "css": (TEMPLATES / "html" / "page.css").read_text(encoding="utf-8"),
            "js": (TEMPLATES / "html" / "page.js").read_text(encoding="utf-8")}
