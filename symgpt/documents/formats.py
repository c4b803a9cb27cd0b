r"""How a document is written in each output format: escaping, the formats' value and cell writers
(:class:`Format`, :class:`Markdown`, :class:`LaTeX`), the Jinja environments and the words of each
language.  :mod:`symgpt.render` writes files with them, :mod:`symgpt.documents.html` builds the page on them.

>>> tex_escape("50% of x_1")
'50\\% of x\\_1'
"""
from __future__ import annotations

import functools
import hashlib
import re
import tomllib
import unicodedata
from pathlib import Path

import jinja2

from ..core.errors import InputError
from ..core.markup import md_text
from ..core.proofs import folder
from ..core.resources import TEMPLATES
from .blocks import is_control, line_tex, mtext, shown

LANGS = ("zh", "en")


# ---------------------------------------------------------------- escaping

md_escape = md_text  # user text made literal in Markdown (symgpt.core.markup.md_text)


_TEX_CHARS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "$": r"\$",
    "&": r"\&", "#": r"\#", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "\n": r"\textbackslash{}n", "|": r"\textbar{}",
    # symbols the document fonts (Latin Modern, Fandol) lack: drawn from math fonts
    "√": r"$\surd$", "≈": r"$\approx$", "×": r"$\times$", "·": r"$\cdot$", "μ": r"$\mu$",
    "σ": r"$\sigma$", "ε": r"$\varepsilon$", "η": r"$\eta$", "δ": r"$\delta$", "θ": r"$\theta$",
    "λ": r"$\lambda$", "β": r"$\beta$", "γ": r"$\gamma$", "Σ": r"$\Sigma$", "∑": r"$\sum$",
    "∂": r"$\partial$", "∞": r"$\infty$", "→": r"$\to$", "←": r"$\leftarrow$", "−": r"$-$",
    "≤": r"$\le$", "≥": r"$\ge$", "ℝ": r"$\mathbb{R}$", "ᵀ": r"$^{\top}$", "²": r"$^{2}$",
    "⁽": r"$^{(}$", "⁾": r"$^{)}$", "⁰": r"$^{0}$", "¹": r"$^{1}$", "⁻": r"$^{-}$", "⁵": r"$^{5}$",
    "…": r"\ldots{}", "∈": r"$\in$", "✓": r"$\checkmark$", "❌": "X", "↑": r"$\uparrow$",
}


LONG_RUN = 12  # a run of characters without a space longer than this may break anywhere (a long token)


def tex_escape(text, long_run: int = LONG_RUN) -> str:
    """User text made literal in LaTeX text mode (and in ``\\text{…}``).

    A run without spaces longer than ``long_run`` characters (a long token)
    gets a permitted line break between its characters, so that it cannot
    run off the page.

    >>> tex_escape("<pad>"), tex_escape("a_b"), tex_escape("50%"), tex_escape("$x$")
    ('\\\\textless{}pad\\\\textgreater{}', 'a\\\\_b', '50\\\\%', '\\\\$x\\\\$')
    >>> tex_escape("\\\\n"), tex_escape("&#{}"), tex_escape("m\\u0302")
    ('\\\\textbackslash{}n', '\\\\&\\\\#\\\\{\\\\}', '$\\\\hat{m}$')
    >>> print(tex_escape("a\\x07b\\x85"))
    a\\textbackslash{}x07b\\textbackslash{}x85
    >>> print(tex_escape("see tok_very_long_x", long_run=8))
    see tok\\_\\allowbreak{}very\\_\\allowbreak{}long\\_\\allowbreak{}x
    """
    out = []
    for span in re.split(r"(\s+)", str(text)):
        chars = []
        for ch in span:  # a combining mark stays with its letter
            if chars and unicodedata.combining(ch):
                chars[-1] += ch
            else:
                chars.append(ch)
        out.append(_breakable_run(chars) if len(chars) > long_run and not span.isspace()
                   else "".join(_escape_char(c) for c in chars))
    return "".join(out)


_BREAK_AFTER = "_/;:-)]}|"


def _breakable_run(chars) -> str:
    r"""A long run of characters, escaped, with a permitted break after each ``_ / ; :`` …
    and, when a stretch between those is still longer than 16 characters, between any two.

    >>> print(_breakable_run(list("a_bc/d")))
    a\_\allowbreak{}bc/\allowbreak{}d
    """
    parts, cur = [], []
    for c in chars:
        cur.append(c)
        if c in _BREAK_AFTER:
            parts.append(cur)
            cur = []
    if cur:
        parts.append(cur)
    if any(len(p) > 16 for p in parts):
        parts = [[c] for c in chars]
    return r"\allowbreak{}".join("".join(_escape_char(c) for c in p) for p in parts)


def breakable_list(tex: str) -> str:
    r"""A flat list of figures in math, ``\left( a,\; b \right)``, with a permitted break after each comma.

    Plain parentheses (a ``\left…\right`` pair cannot break); anything with
    a fraction, a root or nested delimiters is left as it is.

    >>> breakable_list(r"\left(0.5,\; 1.8\right)"), breakable_list(r"\left[1, 2\right]")
    ('(0.5,\\; \\allowbreak 1.8)', '[1, \\allowbreak 2]')
    >>> breakable_list(r"\frac{1}{2}")
    '\\frac{1}{2}'
    """
    m = re.fullmatch(r"\\left([(\[])(.*)\\right([)\]])", tex)
    if not m or any(c in m[2] for c in ("\\left", "\\frac", "\\sqrt", "{")):
        return tex
    return m[1] + re.sub(r",(\\;)? ", lambda c: c[0] + r"\allowbreak ", m[2]) + m[3]


def _escape_char(s: str) -> str:
    """One character (with its combining hat) made literal in LaTeX text mode."""
    ch = s[0]
    if s[1:] == "\u0302":  # a letter with a combining hat
        return r"$\hat{" + _escape_char(ch) + "}$"
    if ch in _TEX_CHARS:
        return _TEX_CHARS[ch] + "".join(_escape_char(c) for c in s[1:])
    if is_control(ch):  # shown as its escape, \x1b: xelatex gets no control character
        return r"\textbackslash{}" + shown(ch)[1:] + "".join(_escape_char(c) for c in s[1:])
    return s


def _sci(s: str) -> str | None:
    """``3.08e-8`` → ``3.08 \\times 10^{-8}``; None for a plain decimal."""
    m = re.fullmatch(r"(-?[\d.]+)e([+-]\d+)", s)
    if not m:
        return None
    return rf"{m[1]} \times 10^{{{int(m[2])}}}"


# ---------------------------------------------------------------- values

class Format:
    """How one output format writes values, prose and cells."""

    name = ""

    def __init__(self, L: dict):
        self.L = L

    def esc(self, s) -> str:
        raise NotImplementedError

    def math(self, s) -> str:
        return f"${s}$"

    def number(self, s) -> str:
        sci = _sci(s)
        return self.math(sci) if sci else s

    def words(self, key) -> str:
        w = self.L["words"]
        if key not in w:
            raise KeyError(f"templates/lang: [words] has no {key!r}")
        return w[key]

    def value(self, v, cell=False) -> str:
        """A typed value (see :mod:`symgpt.documents.document`) in this format."""
        t = v["t"]
        if t == "num":
            s = self.number(v["v"])
            if "exact" in v:
                s += " " + self.words("exactly") % {"x": self.number(v["exact"])}
            return s
        if t == "pct":
            return self.number(v["v"]) + self.esc("%")
        # a token: quoted in running text (「我」, ‘我’) so it never runs into the words around it; bare in a cell
        if t == "tok":
            return self.esc(v["v"]) if cell else self.words("quoted") % {"tok": self.esc(v["v"])}
        if t == "math":
            return self.math(v["v"])
        if t == "tex":
            return v["v"]
        if t == "word":
            w = self.words(v["v"])
            return w % {"j": v["j"]} if "j" in v else w
        if t == "pos":
            return self.words("pos") % {"t": v["v"], "tok": self.esc(v["tok"])}
        if t == "tokid":
            s = self.words("tokid") % {"id": v["v"], "tok": self.esc(v["tok"])}
            return s + (self.words("target_mark") if v.get("mark") == "target" else "")
        if t == "ptok":
            return self.math(f"p({mtext(v['v'])})")
        if t == "share":
            return self.words("share") % {"tok": self.esc(v["tok"]), "pct": self.number(v["v"]) + self.esc("%")}
        if t == "list":
            return self.words("sep").join(self.value(x) for x in v["v"])
        if t == "said":  # sentences of the language file joined into one: [(key, args)], a separator's key
            return self.say(v["sep"]).join(self.say(key, args) for key, args in v["v"])
        if t == "toklist":
            return self.words("sep").join(self.words("quoted") % {"tok": self.esc(x)} for x in v["v"])
        raise ValueError(f"unknown value kind {t!r}")

    def say(self, key, args=None) -> str:
        """The sentence ``key`` ("section.name") of the language file, arguments filled in."""
        s, args = self.sentence(key, args)
        return s % {k: self.value(v) for k, v in args.items()}

    def title(self, sec) -> str:
        """A section's title; a block's in a model of several layers names its layer, within the title's own
        brackets when the language file has that form (``<id>.title_l``: "Residual connection (first, layer 2)"),
        else after it ("Self-attention (layer 2)").

        >>> md = Markdown(load_lang("en"))
        >>> md.title({"id": "add1", "layer": 2}), md.title({"id": "attention", "layer": 2})
        ('Residual connection (first, layer 2)', 'Self-attention (layer 2)')
        >>> Markdown(load_lang("zh")).title({"id": "residual1", "layer": 1})
        '残差连接与 LayerNorm（第 1 层，第一次）'
        """
        key = sec["id"] + ".title"
        if not sec.get("layer"):
            return self.say(key)
        l = {"l": {"t": "num", "v": str(sec["layer"])}}
        if "title_l" in self.L.get(sec["id"], {}):
            return self.say(key + "_l", l)
        return self.say(key) + self.say("block.layer", l)

    def sentence(self, key, args=None) -> tuple:
        """(the sentence ``key`` of the language file, its arguments), checked: a ``tex`` value stands
        inside ``$…$`` and every other kind outside."""
        sec, _, name = key.partition(".")
        try:
            s = self.L[sec][name]
        except KeyError:
            raise KeyError(f"templates/lang/{self.L['lang']}.toml has no {key!r}") from None
        args = args or {}
        for i, part in enumerate(s.split("$")):
            for name in re.findall(r"%\((\w+)\)s", part):
                inside = i % 2 == 1
                if name in args and inside != (args[name]["t"] == "tex"):
                    where = "inside" if inside else "outside"
                    raise ValueError(f"{key}: %({name})s stands {where} $…$ but is given a "
                                     f"{args[name]['t']!r} value")
        return s, args


class Markdown(Format):
    name = "md"

    def esc(self, s) -> str:
        return md_escape(s)

    def cell(self, v) -> str:
        return self.value(v, cell=True).replace("|", "\\|")


class LaTeX(Format):
    name = "tex"

    def esc(self, s) -> str:
        return tex_escape(s)

    def number(self, s) -> str:
        sci = _sci(s)
        if sci:
            return self.math(sci)
        return self.math(s) if s.startswith("-") else s

    def cell(self, v) -> str:
        """A table cell: as :meth:`value`, but a long token or a long list of figures may break.

        (The break is taken only in a column held to a width, :func:`symgpt.documents.blocks.fit_table`.)
        """
        if v["t"] == "math":
            return self.math(breakable_list(v["v"]))
        if v["t"] == "ptok":  # p(token) with the token in text, where it may break
            return self.math("p(") + tex_escape(v["v"], long_run=8) + self.math(")")
        return _LaTeXCell(self.L).value(v, cell=True)


class _LaTeXCell(LaTeX):
    def esc(self, s) -> str:
        return tex_escape(s, long_run=8)


# ---------------------------------------------------------------- environments

def load_lang(lang: str) -> dict:
    """The words of one language (``templates/lang/<lang>.toml``).

    >>> load_lang("en")["words"]["token"]
    'Token'
    """
    if lang not in LANGS:
        raise InputError(f"--lang: expected one of {', '.join(LANGS)}, got {lang!r}")
    with open(TEMPLATES / "lang" / f"{lang}.toml", "rb") as f:
        L = tomllib.load(f)
    L["lang"] = lang
    return L


_OPTIONS = hashlib.sha256(Path(__file__).read_bytes() + jinja2.__version__.encode()).hexdigest()[:16]


def environment(fmt: str) -> jinja2.Environment:
    """The Jinja environment of a format: StrictUndefined; LaTeX-safe delimiters for tex."""
    opts = dict(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    if fmt == "tex":
        opts.update(block_start_string=r"\BLOCK{", block_end_string="}",
                    variable_start_string=r"\VAR{", variable_end_string="}",
                    comment_start_string=r"\#{", comment_end_string="}",
                    line_statement_prefix=None, line_comment_prefix=None)
    kept = folder(f"templates-{_OPTIONS}")  # Jinja's compiled templates (checked against their source on each
    #                                          load; the folder's name changes with this module, their options)
    if kept is not None:
        opts["bytecode_cache"] = jinja2.FileSystemBytecodeCache(str(kept))
    return jinja2.Environment(**opts)


@functools.lru_cache(maxsize=None)
def _document_template(fmt: str, lang: str):
    """The compiled document template of a format and language (compiled once per process)."""
    L = load_lang(lang)
    f = Markdown(L) if fmt == "md" else LaTeX(L)
    env = environment(fmt)
    env.filters.update(esc=f.esc, val=f.value, cell=f.cell, calc=line_tex)
    env.globals.update(say=f.say, words=f.words, title=f.title)
    return env.get_template(f"{fmt}/document.{fmt}.j2"), L


def render_doc(doc: dict, fmt: str, lang: str) -> str:
    """One document in one format and language (``md`` or ``tex``)."""
    template, L = _document_template(fmt, lang)
    text = template.render(doc=doc, L=L, lang=lang)
    return re.sub(r"\n{3,}", "\n\n", text)
