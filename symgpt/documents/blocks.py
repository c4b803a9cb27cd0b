"""The pieces a document is built of: typed values, step kinds and certified numbers.

A document is a dict of strings, lists and dicts that the templates lay out
(DESIGN decision 6): nothing in it is computed by a template, and nothing in
it is in one language.  Prose is referred to by key (``"attention.intro"``)
with typed arguments; the words for each key live in
``templates/lang/<lang>.toml``.

A *value* (an argument or a table cell) is a small dict ``{"t": kind, "v": text}``:

- ``num``  a certified decimal string, e.g. ``"0.454"`` (with ``ref``, the quantity it prints)
- ``tok``  a token of the vocabulary (user text, escaped by the format's filter)
- ``math`` a LaTeX formula (SymPy's LaTeX or a fixed template formula)
- ``word`` a key of ``[words]`` in the language file
- ``pos``  a position label: ``v`` the index, ``tok`` the token there

A *step* is one of ``text``, ``note``, ``sub`` (a sub-heading), ``math``
(display lines, aligned at ``&``; a line is LaTeX text or a typed step of
:mod:`symgpt.documents.steps`), ``table``, ``figure``, ``derivation``, ``code`` (a
program shown verbatim) and ``items`` (a numbered list of sentences).

>>> display("a &= b")["lines"]
['a = b']
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import sympy
from flint import fmpq

from ..core import worked
from ..core.numeric import round_decimals, round_significant
from ..core.safe import is_control, shown, visible  # noqa: F401 (used by the escapes of every format)
from . import layout
from . import steps as st

# ---------------------------------------------------------------- values

def num(s, ref: str | None = None) -> dict:
    """A certified number; ``ref`` names the quantity it prints (it becomes a claim).

    >>> num("0.454"), num("0.454", "A[1,0]")["ref"]
    ({'t': 'num', 'v': '0.454'}, 'A[1,0]')
    """
    return {"t": "num", "v": str(s)} if ref is None else {"t": "num", "v": str(s), "ref": ref}


def tok(s) -> dict:
    """A token (user text).

    >>> tok("<pad>")["t"]
    'tok'
    """
    return {"t": "tok", "v": s}


def math(s, figs=None) -> dict:
    """A LaTeX formula shown inline; ``figs`` the (reference, printed) pairs of the figures in it.

    >>> math(r"\\sqrt{2}")["v"]
    '\\\\sqrt{2}'
    """
    return {"t": "math", "v": s} if not figs else {"t": "math", "v": s, "figs": list(figs)}


def tex(s, figs=None) -> dict:
    """Raw LaTeX for a place inside ``$…$`` of a sentence (a number or a formula), figures as in :func:`math`.

    >>> tex("0.5"), tex("0.5", [("x[0]", "0.5")])["figs"]
    ({'t': 'tex', 'v': '0.5'}, [('x[0]', '0.5')])
    """
    return {"t": "tex", "v": str(s)} if not figs else {"t": "tex", "v": str(s), "figs": list(figs)}


def vec(xs) -> str:
    r"""LaTeX of a row vector of strings.

    Plain parentheses around plain figures, so that a long vector in a
    sentence may break after a comma (the PDF allows it, see the preamble);
    ``\left( … \right)`` around taller entries (fractions, roots).

    >>> print(vec(["0.5", "1.8"]), vec([r"\frac{1}{2}"]))
    (0.5,\; 1.8) \left(\frac{1}{2}\right)
    """
    body = r",\; ".join(xs)
    return rf"\left({body}\right)" if "\\" in body.replace(r"\;", "") else f"({body})"


def word(key) -> dict:
    """A word of the language file's ``[words]`` table.

    >>> word("position")
    {'t': 'word', 'v': 'position'}
    """
    return {"t": "word", "v": key}


def pos(t: int, token: str) -> dict:
    """A position label such as ``t=1 (爱)``.

    >>> pos(1, "爱")
    {'t': 'pos', 'v': '1', 'tok': '爱'}
    """
    return {"t": "pos", "v": str(t), "tok": token}


# ---------------------------------------------------------------- steps

def text(key, **args) -> dict:
    """A paragraph of prose ``key`` with typed arguments.

    >>> text("softmax.intro")["kind"]
    'text'
    """
    return {"kind": "text", "key": key, "args": args}


def note(key, **args) -> dict:
    """A remark set apart from the main line (a quote box)."""
    return {"kind": "note", "key": key, "args": args}


def sub(key, **args) -> dict:
    """A numbered sub-heading: the k-th of section n is numbered ``n.k``
    (:func:`symgpt.documents.document.number_tables`).

    >>> sub("attention.scores")["kind"]
    'sub'
    """
    return {"kind": "sub", "key": key, "args": args}


def minor(key, **args) -> dict:
    """An unnumbered heading below a sub-heading (one of several parallel parts, such as Q, K and V).

    >>> minor("attention.elem", M="Q")["kind"]
    'minor'
    """
    return {"kind": "minor", "key": key, "args": args}


def display(*lines, figs=None) -> dict:
    r"""Display math; several lines are aligned at their ``&`` (one line is not).

    A line is LaTeX text, or a resolved typed step (:mod:`symgpt.documents.steps`),
    laid out by the templates' ``calc`` filter (:func:`line_tex`); ``figs``:
    the (reference, printed) pairs of the figures inside text lines.

    >>> display("a &= b", "c &= d")["lines"], display("a &= b \\& c")["lines"]
    (['a &= b', 'c &= d'], ['a = b \\& c'])
    """
    lines = [ln for ln in lines if ln]
    if len(lines) == 1 and isinstance(lines[0], str):
        lines = [_drop_alignment(lines[0])]
    out = {"kind": "math", "lines": lines, "aligned": len(lines) > 1}
    if figs:
        out["figs"] = list(figs)
    return out


def line_tex(ln, aligned: bool = True) -> str:
    r"""The LaTeX of one display line (text, or a typed step's layout from :func:`symgpt.documents.steps.latex`).

    >>> line_tex("x &= 1", aligned=False)
    'x = 1'
    """
    s = st.latex(ln)
    return s if aligned else _drop_alignment(s)


def fit(step: dict) -> dict:
    r"""A display whose lines fit the page: a too-wide line is broken (:func:`symgpt.documents.layout.wrap`).

    A computed vector line (no formula, no tail) becomes one line per
    component (:func:`symgpt.documents.steps.components`: the same figures, so still
    true by hand and with the same claims); any other wide line, and a
    component line still too wide, is broken per term.  The display becomes
    aligned when a line was broken.

    >>> wide = "y &= " + " + ".join(["0.123456 \\times 0.5"] * 9)
    >>> [ln.count("\\\\") for ln in fit(display(wide))["lines"]], fit(display("x &= 1"))["aligned"]
    ([2], False)
    """
    out, changed = [], False
    for ln in step["lines"]:  # first the vector lines too wide become component lines
        if isinstance(ln, dict) and not layout.fits(st.latex(ln)) and not ln["formula"] and not ln["tail"] \
                and st.width(ln["res"]) > 1:
            out.extend(st.components(ln))
            changed = True
        else:
            out.append(ln)
    # the right-hand sides of an aligned display all start after its widest left-hand side
    lhs = [layout.lhs_width(st.latex(ln)) for ln in out]
    widest = max(lhs) if len(out) > 1 or changed else 0.0
    fitted = []
    for ln, own in zip(out, lhs):
        budget = layout.BUDGET - max(widest - own, 0.0)
        if layout.fits(st.latex(ln), budget):
            fitted.append(ln)
            continue
        changed = True
        fitted.append(layout.wrap(ln, budget) if isinstance(ln, str) else {**ln, "wrap": budget})
    return {**step, "lines": fitted, "aligned": True} if changed else step


def fit_displays(sections) -> None:
    """Fit every display and table of the document to the page width (:func:`fit`, :func:`fit_table`), in place."""
    for sec in sections:
        sec["steps"] = [fit(s) if s["kind"] == "math" else fit_table(s) if s["kind"] == "table" else
                        fit_derivation(s) if s["kind"] == "derivation" else s for s in sec["steps"]]


RULE_EM = 14.0  # the rule named beside a derivation step (a few words, in any language)


def fit_derivation(step: dict) -> dict:
    r"""A derivation whose steps fit the page beside their rules: a wide right side is broken per term.

    >>> wide = {"lhs": "L", "rhs": " + ".join(["e^{z_{%d}}" % i for i in range(24)]), "rule": "r", "checked": True}
    >>> [s["rhs"].count("\\\\") > 0 for s in fit_derivation({"kind": "derivation", "steps": [wide]})["steps"]]
    [True]
    """
    out = []
    for s in step["steps"]:
        line = f"{s['lhs']} &= {s['rhs']}"
        if layout.fits(line, layout.BUDGET - RULE_EM):
            out.append(s)
            continue
        wrapped = layout.wrap(f"{s['lhs']} &= {layout.unfold(s['rhs'])}", layout.BUDGET - RULE_EM)
        out.append({**s, "rhs": wrapped.split("&", 1)[1].lstrip()[1:].lstrip()})
    return {**step, "steps": out}


def value_width(v) -> float:
    """The estimated printed width of a typed value in em (:mod:`symgpt.documents.layout`), in any language.

    >>> value_width(num("-0.125")), value_width(pos(2, "tok3_very_long_token_string")) > 15
    (3.06, True)
    """
    t, w = v["t"], layout.cell_width
    if t == "num":
        sci = lambda x: w(x) + (3 if "e" in x else 0)  # 3.1e-7 prints as 3.1 × 10^-7
        return sci(v["v"]) + (sci(v["exact"]) + 5.5 if "exact" in v else 0)  # "(in fact …)"
    if t in ("tok", "pct"):
        return w(v["v"]) + (1 if t == "pct" else 0)
    if t == "ptok":  # p(tok)
        return w(v["v"]) + 2
    if t in ("tokid", "pos", "share"):  # "3 tok", "t=2 (tok)", "tok 45.4%"
        return w(v["v"]) + w(v["tok"]) + {"tokid": 1.5, "pos": 3, "share": 2}[t]
    if t in ("math", "tex"):
        return layout.width(v["v"])
    if t in ("list", "toklist"):
        return sum(value_width(x) if isinstance(x, dict) else w(x) + 2 for x in v["v"])
    if t == "word":
        return layout.word_width(v["v"], v.get("j"))
    return 5.0


def fit_table(step: dict) -> dict:
    """A table laid out to the page width: its ``parts`` (column groups, each repeating column 0).

    Each part is ``{"cols": [...], "spec": …}``, the LaTeX column spec; a
    column held to a width wraps (``p{…}``); the later parts are continuations
    (:func:`symgpt.documents.layout.column_groups`).

    >>> t = table("x.cap", [word("token")] + [num(j) for j in range(12)], [[tok("a")] + [num("-0.123")] * 12])
    >>> [p["cols"][:3] for p in fit_table(t)["parts"]], fit_table(t)["parts"][1]["spec"]
    ([[0, 1, 2], [0, 10, 11]], 'lrrr')
    """
    n = len(step["head"])
    widths = [max(value_width(r[c]) for r in [step["head"], *step["rows"]]) for c in range(n)]
    groups, held = layout.column_groups(widths)
    parts = []
    for cols in groups:
        spec = ""
        for c in cols:
            a = step["align"][c]
            if held[c] is None:
                spec += a
            else:
                ragged = {"l": r"\raggedright", "r": r"\raggedleft", "c": r"\centering"}[a]
                spec += rf">{{{ragged}\arraybackslash}}p{{{held[c]}em}}"
        parts.append({"cols": cols, "spec": spec})
    return {**step, "parts": parts}


def _drop_alignment(line: str) -> str:
    r"""Remove the alignment ``&`` outside environments; a matrix keeps its own.

    >>> _drop_alignment(r"E &= \begin{bmatrix} 1 & 2 \end{bmatrix}")
    'E = \\begin{bmatrix} 1 & 2 \\end{bmatrix}'
    """
    out, depth, i = [], 0, 0
    while i < len(line):
        if line.startswith("\\begin{", i):
            depth += 1
        elif line.startswith("\\end{", i):
            depth -= 1
        ch = line[i]
        if ch == "\\":  # keep an escaped character (\&) and the command it starts
            out.append(line[i:i + 2])
            i += 2
            continue
        if not (ch == "&" and depth == 0):
            out.append(ch)
        i += 1
    return "".join(out)


def figure(name, key, **args) -> dict:
    """A picture: ``name`` indexes ``doc["figures"]``."""
    return {"kind": "figure", "name": name, "key": key, "args": args}


def derivation_step(steps) -> dict:
    """A chain of equalities from :mod:`symgpt.engine.derive`, each with its rule and SymPy's check.

    The left-hand side is shown only where it changes.

    >>> from symgpt.engine.derive import softmax_ce_steps
    >>> st = derivation_step(softmax_ce_steps(3, 2))
    >>> [s["rule"] for s in st["steps"]][:2], st["steps"][1]["lhs"]
    (['rule_definition', 'rule_log_of_a_quotient'], '')
    """
    out, prev = [], None
    for s in steps:
        out.append({"rule": "rule_" + re.sub(r"[^a-z0-9]+", "_", s.rule.lower()).strip("_"),
                    "lhs": "" if s.lhs == prev else s.lhs, "rhs": s.latex, "checked": bool(s.checked)})
        prev = s.lhs
    return {"kind": "derivation", "steps": out}


def code(text: str, lang: str = "python") -> dict:
    """A program shown verbatim; ``fence`` is a Markdown fence longer than any run of backticks in it.

    >>> c = code("print('``')")
    >>> c["kind"], c["fence"], c["lang"]
    ('code', '```', 'python')
    >>> code("a ```` b")["fence"]
    '`````'
    """
    longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
    return {"kind": "code", "lang": lang, "text": text.rstrip("\n"), "fence": "`" * max(3, longest + 1)}


def items(*entries) -> dict:
    """A numbered list; each entry a :func:`text` step (its key and typed arguments).

    >>> items(text("a.q1"), text("a.q2", x=num("1")))["entries"][1]["args"]
    {'x': {'t': 'num', 'v': '1'}}
    """
    return {"kind": "items", "entries": [{"key": e["key"], "args": e["args"]} for e in entries]}


@dataclass(frozen=True)
class Part:
    """One section of a document, built on demand: ``build(figs)`` is the section (its pictures' data put into
    ``figs``); ``shows`` names the groups whose worked lines it may hold (None: any), so that one quantity's
    line is found by building its part alone (:func:`symgpt.documents.display.worked_line`).

    >>> p = Part("vocab", lambda figs: {"id": "vocab", "steps": []}, shows=())
    >>> p.build({})["id"], p.shows
    ('vocab', ())
    """
    id: str
    build: Callable
    shows: tuple | None = None


def table(key, head, rows, args=None, align=None) -> dict:
    """A table: caption ``key``, header cells, rows of cells (all values).

    One part of all its columns until :func:`fit_table` lays it out to the page.

    >>> t = table("x.cap", [word("token")], [[tok("a")]])
    >>> t["align"], t["parts"]
    ('l', [{'cols': [0], 'spec': 'l'}])
    """
    n = len(head)
    align = align or ("l" + "r" * (n - 1))
    return {"kind": "table", "key": key, "args": args or {}, "head": head, "rows": rows,
            "align": align, "number": "", "parts": [{"cols": list(range(n)), "spec": align}]}


# ---------------------------------------------------------------- numbers

exact_decimal = worked.decimal
"""A rational as its exact decimal when it terminates, else None (:func:`symgpt.core.worked.decimal`)."""

# ---------------------------------------------------------------- control characters

# Characters a token may hold that \text{…} cannot show the same way in LaTeX, KaTeX and MathJax
# (MathJax's \text{} reads no macros): each is a math-mode symbol, in braces so it spaces as a letter.
# \lt and \gt keep a raw < or > out of Markdown (GitHub would take it for HTML); the LaTeX
# renderer turns them into < and > (LaTeX has no \lt).
_MATH_CHARS = {"_": r"\_", "%": r"\%", "$": r"\$", "&": r"\&", "#": r"\#", "{": r"\{", "}": r"\}",
               "\\": r"{\backslash}", "^": r"{\hat{}}", "~": r"{\sim}", "<": r"{\lt}", ">": r"{\gt}"}


def mtext(token: str) -> str:
    """A token inside math, the same in LaTeX, KaTeX and MathJax 3: plain runs as ``\\text{…}``,
    special characters as math symbols between them.

    >>> print(mtext("<pad>"), mtext("a_b"), mtext("50%"))
    {\\lt}\\text{pad}{\\gt} \\text{a}\\_\\text{b} \\text{50}\\%
    >>> print(mtext("\\n"), mtext("{}"), mtext("a\x1b"), mtext("我"), mtext("\ue000"))
    {\\backslash}\\text{n} \\{\\} \\text{a}{\\backslash}\\text{x1b} \\text{我} {\\backslash}\\text{ue000}
    """
    out, run = [], []

    def flush():
        if run:
            out.append(r"\text{" + "".join(run) + "}")
            run.clear()
    for ch in token:
        if ch in _MATH_CHARS:
            flush()
            out.append(_MATH_CHARS[ch])
        elif is_control(ch) or unicodedata.category(ch) == "Co":  # \x1b shown as the four characters \x1b;
            # a private-use character (KaTeX refuses it) as \ue000
            flush()
            out.append(_MATH_CHARS["\\"])
            run.append(shown(ch)[1:])
        else:
            run.append(ch)
    flush()
    return "".join(out) or r"\text{}"


class Numbers:
    """Certified strings from one derivation at the document's precision.

    >>> import symgpt
    >>> n = Numbers(symgpt.load("bigram"), 4)
    >>> n.v("loss"), n.v("z[0]", 2), n.weight("W[0,2]")
    ('1.0515', '0.13', '0.1')
    """

    def __init__(self, d, digits: int):
        self.d, self.k = d, digits
        self.pr = st.Printer(d, digits) if d is not None else None
        self._e: dict = {}

    def calc(self, *lines) -> dict:
        """Display math whose typed lines are resolved: figures printed, relations chosen."""
        return display(*[self.pr.resolve(ln) if isinstance(ln, dict) else ln for ln in lines if ln])

    def vec(self, refs, k=None, kind=math) -> dict:
        """A row vector of figures as a ``math`` (or ``tex``) value that carries their references.

        >>> import symgpt
        >>> Numbers(symgpt.load("bigram"), 4).vec(["x[0]", "x[1]"])["figs"]
        [('x[0]', '0.3000'), ('x[1]', '-0.1000')]
        """
        figs = [(r, self.v(r, k)) for r in refs]
        return kind(vec([f for _, f in figs]), figs)

    def cell(self, ref, k=None) -> dict:
        """A table cell printing ``ref`` (a claim of the document)."""
        return num(self.v(ref, k), ref)

    def const(self, q) -> dict:
        """An exact input number (lr, ε, a count) as a leaf of a typed step."""
        return worked.const(q)

    def v(self, ref, k=None) -> str:
        """A node (or trace/head_step name, or a reference expression) at k decimals (default: the document's)."""
        return self.pr.figure(ref, self.k if k is None else k)

    def sig(self, ref, n) -> str:
        """A node at n significant digits."""
        return self.d.value(ref, digits=n)

    def e(self, expr, k=None) -> str:
        """An expression over node symbols at k decimals, certified (once per expression and k)."""
        k = self.k if k is None else k
        key = (expr, k)
        if key not in self._e:
            self._e[key] = self.d._ev.certified_expr(expr, lambda b: round_decimals(b, k), k + 10)
        return self._e[key]

    def e_sig(self, expr, n) -> str:
        return self.d._ev.certified_expr(expr, lambda b: round_significant(b, n), n + 10)

    def sym(self, name):
        return self.d.graph.sym(name)

    def weight(self, name) -> str:
        """A parameter: its exact decimal when it terminates, else certified."""
        q = self.d.graph.nodes[name].value
        s = exact_decimal(q)
        return s if s is not None else self.v(name)

    def rational(self, q) -> str:
        r"""An exact input number (lr, T, u, a base) as its decimal, or SymPy's LaTeX.

        >>> Numbers(None, 3).rational(sympy.Rational(1, 2)), Numbers(None, 3).rational(sympy.Rational(1, 3))
        ('0.5', '\\frac{1}{3}')
        """
        s = exact_decimal(q)
        return s if s is not None else sympy.latex(sympy.Rational(q))

    def tex_rational(self, q) -> str:
        """LaTeX of an exact input number: ``10^{-5}`` for 1/100000, else :meth:`rational`.

        >>> Numbers(None, 3).tex_rational(sympy.Rational(1, 100000))
        '10^{-5}'
        """
        return worked.rational_tex(q)

    def closed(self, name, max_ops=10, rationals=False):
        """SymPy's LaTeX of a short closed form, or None when long or just a decimal.

        A terminating rational (21/20) counts as just a decimal unless ``rationals``.
        """
        try:
            c = self.d.closed_form(name, max_ops=max_ops)
        except ValueError:
            return None
        if c.is_Rational and (c.is_Integer or (not rationals and exact_decimal(c) is not None)):
            return None
        if sympy.count_ops(c) > max_ops:
            return None
        return sympy.latex(c)

    def tiny(self, name, k=None, prec=512):
        """Three significant digits of a value that rounds to zero at k decimals.

        None when it does not round to zero, when it is exactly zero, or when
        ``prec`` bits cannot separate it from zero (no costly exact test here).

        >>> import symgpt
        >>> Numbers(symgpt.load("tiny-transformer"), 3).tiny("Z[0,0]")
        '0.00000329'
        """
        k = self.k if k is None else k
        s = self.v(name, k)
        if s.lstrip("-").strip("0.") != "":
            return None
        b = self.d.ball(name, prec)
        r = None if _exact_zero(b) else round_significant(b, 3)
        return None if r == "0" else r


def _exact_zero(b) -> bool:
    return isinstance(b, fmpq) and b == 0


def batch(s) -> bool:
    """Whether the spec trains on a mini-batch (``training.examples``): its updates use the batch's mean gradient.

    >>> import symgpt
    >>> batch(symgpt.load("bigram").spec)
    False
    """
    return len(s.training.examples) > 1
