r"""How a notebook shows a derivation and one of its quantities (Markdown and LaTeX).

``d["A[1,0]"]`` (or ``d.show("A[1,0]")``) is a :class:`Quantity`: its name and
meaning, its definition, a worked line formula → substitution → result with
certified figures, its closed form when small, and its value at 12 certified
significant digits.  The worked line is the document's own when the document
has one for the quantity (:mod:`symgpt.documents.transformer`, :mod:`symgpt.documents.bigram`,
resolved by :class:`symgpt.documents.steps.Printer`; only the section that shows the quantity's
group is built, :func:`worked_line`); otherwise it is built from the
node's definition, each operand's certified figure substituted.  Either way
:meth:`symgpt.documents.steps.Printer.resolve` prints the operands with up to three
guard digits and writes ``=`` only when the printed arithmetic, done exactly,
rounds to the printed result, else ``≈``.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> q = d["z[鱼]"]
>>> q
<Quantity z[鱼] = 0.0800000000000 (logits x·W)>
>>> print(q.lines()[0])
z_{\text{鱼}} &= W_{0,\text{鱼}} x_{0} + W_{1,\text{鱼}} x_{1}
>>> print(q.lines()[1])        # the document's own line (its §1, with the quantity's own name)
z_{\text{鱼}} &= 0.3000 \times 0.1 + (-0.1000) \times (-0.5) = 0.0800
"""
from __future__ import annotations

import weakref

import sympy
from flint import arb

from ..core.errors import InputError, LimitError
from ..core.graph import TooManyDefinitions
from ..core.graph import decided as sign_steered
from ..core.markup import exact_text, latex_table, md_code, md_table, md_text, tex_number
from ..engine.names import RefError
from . import bigram as doc_bigram
from . import steps as st
from . import transformer as doc_transformer
from .blocks import Numbers, mtext
from .document import DEFAULT_DIGITS
from .names_tex import TEX, _index_tex, group_tex, name_tex  # noqa: F401 - re-exported

DIGITS = 12          # significant digits of a quantity's value
SMALL_OPS = 40       # a closed form of at most this many operations (SymPy count_ops) is shown
COUNT_OPS = 1000     # up to this many its size is counted; beyond, "more than"
LAZY_NODES = 400     # beyond the limits (the lazy graph) a closed form reads at most this many definitions
LAZY_FIGURES = 24    # … and a worked line from a definition substitutes at most this many figures
OUTLINES = {"transformer": lambda d, n: doc_transformer.outline(doc_transformer.Ctx(d, n)),
            "bigram": doc_bigram.outline}
"""The document's sections of each kind, each built on demand (:class:`symgpt.documents.blocks.Part`)."""

def expr_tex(d, expr) -> str:
    r"""SymPy's LaTeX of an expression over node symbols, each symbol as :func:`name_tex`.

    >>> import symgpt
    >>> d = symgpt.load("bigram")
    >>> expr_tex(d, d.definitions.definition("z[0]"))      # over the graph's own names, as the documents build it
    'W_{0,\\text{猫}} x_{0} + W_{1,\\text{猫}} x_{1}'
    """
    names = {s: name_tex(d, s.name) for s in expr.free_symbols if s.name in d._skeleton.nodes}
    return sympy.latex(expr, symbol_names=names)


# ---------------------------------------------------------------- the worked line

_OUTLINE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _outline(d) -> list:
    """[part, its lines or None] for each section of the derivation's document, at the document's decimals."""
    if d not in _OUTLINE:
        build = OUTLINES.get(d.spec.kind)
        _OUTLINE[d] = [[p, None] for p in build(d, Numbers(d, DEFAULT_DIGITS[d.spec.kind]))] if build else []
    return _OUTLINE[d]


def _lines(d, entry) -> dict:
    """{node name: resolved line} of one section (built once): the first of its worked lines whose result is
    the node; a vector line gives one scalar line per component."""
    if entry[1] is None:
        found: dict = {}
        for step in entry[0].build({})["steps"]:
            for ln in step.get("lines", ()) if step["kind"] == "math" else ():
                if not isinstance(ln, dict) or ln["sub"] is None:
                    continue
                for one in (st.components(ln) if st.width(ln["res"]) > 1 else [ln]):
                    try:
                        name = d.node(one["res"]["ref"])
                    except (RefError, KeyError):
                        continue  # a result that is an expression (a dot product, exp(S))
                    found.setdefault(name, one)
        entry[1] = found
    return entry[1]


def worked_line(d, name: str):
    """(section number, resolved line) of the document's first worked line whose result is the node, or None.

    Only the sections that may show the node's group are built (:attr:`symgpt.documents.blocks.Part.shows`:
    a stage of the plan shows the groups its applications make), each once per derivation.

    >>> import symgpt
    >>> sec, ln = worked_line(symgpt.load("tiny-transformer"), "A[1,0]")
    >>> sec, ln["rel"]
    ('5', '=')
    """
    group = d._skeleton.nodes[name].group
    for n, entry in enumerate(_outline(d)):  # §n, as symgpt.documents.document.number_tables numbers them
        if entry[0].shows is not None and group not in entry[0].shows:
            continue
        ln = _lines(d, entry).get(name)
        if ln is not None:
            return str(n), ln
    return None


def worked_lines(d) -> dict:
    """{node name: (section number, resolved line)} of the document's worked lines whose result is one node.

    The document's sections are built once per derivation, at the document's
    decimals; a vector line gives one scalar line per component (both kinds'
    documents, see :data:`OUTLINES`).

    >>> import symgpt
    >>> sec, ln = worked_lines(symgpt.load("tiny-transformer"))["A[1,0]"]
    >>> sec, ln["rel"]
    ('5', '=')
    """
    found: dict = {}
    for n, entry in enumerate(_outline(d)):
        for name, ln in _lines(d, entry).items():
            found.setdefault(name, (str(n), ln))
    return found


class NoTree(Exception):
    """A definition with an operation the typed steps do not print (sin, cos)."""


def decided(d, expr):
    """The definition with each sign-steered function (an activation, its derivative) decided rigorously.

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> decided(d, d.definition("R[0,0]"))
    Z[0,0]
    """
    reps = {}
    for f in sign_steered(expr):
        reps[f] = f.branch(d._ev.expr_sign(f.args[0]))
    return expr.xreplace(reps)


def tree(d, expr) -> dict:
    """A typed-step tree (:mod:`symgpt.documents.steps`) of an expression over node symbols.

    Node symbols become figures (a weight printed from its exact text), rationals
    exact numbers; + − × ÷, integer powers, square roots, exp and ln are kept.

    >>> import symgpt
    >>> d = symgpt.load("bigram")
    >>> st.chain(st._fill(tree(d, d.definitions.definition("p[0]")), lambda leaf: leaf["ref"]))
    'exp(z[0])/sum_exp'
    """
    if expr.is_Symbol:
        return st.fig(expr.name, weight=d._skeleton.nodes[expr.name].value is not None)
    if expr.is_Rational:
        return st.exact(exact_text(expr), sympy.latex(expr))
    if expr.is_Add:
        return st.Add(*[tree(d, a) for a in expr.as_ordered_terms()])
    if expr.is_Mul:
        num, den = sympy.fraction(expr)
        if den != 1:
            return st.Div(tree(d, num), tree(d, den))
        coeff, rest = expr.as_coeff_Mul()
        if coeff == -1:
            return st.Neg(tree(d, rest))
        factors = [tree(d, f) for f in sympy.Mul.make_args(expr)]
        out = factors[0]
        for f in factors[1:]:
            out = st.Mul(out, f)
        return out
    if expr.is_Pow:
        b, e = expr.args
        if e == sympy.S.Half:
            return st.Sqrt(tree(d, b))
        if e.is_Integer and e > 1:
            return st.Pow(tree(d, b), int(e))
        if e.is_Rational and e.q == 2 and e > 0:  # x^{3/2} = x^1 · √x
            return st.Mul(st.Pow(tree(d, b), int(e.p // 2)) if e.p > 3 else tree(d, b), st.Sqrt(tree(d, b)))
    if isinstance(expr, sympy.exp):
        return st.Exp(tree(d, expr.args[0]))
    if isinstance(expr, sympy.log):
        return st.Ln(tree(d, expr.args[0]))
    raise NoTree(type(expr).__name__)


def definition_line(d, name: str, k: int) -> dict | None:
    """The worked line of a node from its definition, resolved at ``k`` decimals; None for a parameter
    or a definition the steps cannot print (then the display shows the definition and the value).

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> st.latex(definition_line(d, "grad_logits[4]", 3)).split("&")[1]
    '= p_{\\\\text{你}} - 1 = 0.085 - 1 = -0.915'
    """
    node = d.definitions.nodes[name]
    if node.expr is None:
        return None
    expr = decided(d, node.expr)
    try:
        sub = tree(d, expr)
    except NoTree:
        return None
    figures = sum(leaf["op"] == "fig" for leaf in st.leaves(sub))
    if not figures:
        return None  # nothing to substitute (a constant such as sin(1))
    if d.definitions.lazy and figures > LAZY_FIGURES:
        return None  # beyond the limits a wide sum is shown as its definition and value
    formula = expr_tex(d, node.expr)
    if sub["op"] == "fig":  # one operand (a function decided to its argument): name it, its figure is the result
        formula, sub = f"{formula} = {expr_tex(d, expr)}", None
    ln = st.line(name_tex(d, name), sub, name, formula=formula)
    try:
        return st.Printer(d, k).resolve(ln)
    except InputError:
        return None


# ---------------------------------------------------------------- one quantity

def decimals_for(value: str, k: int, shown: int = 3, most: int = 30) -> int:
    """Decimals for a worked line: the document's ``k``, more for a small value so that its
    result shows ``shown`` significant digits (at most ``most`` decimals).

    >>> decimals_for("0.454159904427", 3), decimals_for("-5.34439623882e-7", 3), decimals_for("0", 4)
    (3, 9, 4)
    """
    mant, _, e = value.lstrip("-").partition("e")
    digits = mant.replace(".", "").lstrip("0")
    if not digits:
        return k
    lead = -int(e or 0) + (len(mant.split(".")[1]) - len(digits) + 1 if "." in mant else 1 - len(mant))
    return min(max(k, lead + shown - 1), most)


class Quantity:
    """One quantity of a derivation as a notebook shows it (``d["A[1,0]"]``, ``d.show(name)``).

    ``digits`` significant digits of the value (certified); ``decimals`` of the
    worked line's figures (the document's, 3 for a transformer and 4 for a bigram).
    """

    count_ops = COUNT_OPS  # a closed form is built up to this many operations (beyond: "large")

    def __init__(self, d, ref: str, digits: int = DIGITS):
        self.d = d
        self.ref = d.ref(ref)  # RefError for a name the derivation does not define
        self.digits = digits
        self.name = self.ref.pretty
        self.node = self.ref.name if self.ref.kind == "node" else None
        self.k = DEFAULT_DIGITS[d.spec.kind]
        self._value = self._closed = self._worked = self._too_big = None

    def value(self) -> str:
        """The value at ``digits`` certified significant digits.

        >>> import symgpt
        >>> Quantity(symgpt.load("bigram"), "loss", digits=6).value()
        '1.05147'
        """
        if self._value is None:
            self._value = self.d.value(self.ref.name, digits=self.digits)
        return self._value

    def _closed_expr(self):
        """The closed form, or None past :data:`COUNT_OPS` operations (memoised)."""
        if self._closed is None:
            lazy = self.d.definitions.lazy  # nodes built on demand: bound the work too
            try:
                self._closed = (self.d.closed_form(self.node, max_ops=self.count_ops,
                                                   max_nodes=LAZY_NODES if lazy else None),)
            except ValueError as e:  # past COUNT_OPS operations, or (TooManyDefinitions) LAZY_NODES definitions
                self._closed = (None,)
                self._too_big = e
        return self._closed[0]

    def __repr__(self) -> str:
        exact = self._exact()
        return f"<Quantity {self.name} = {exact_text(exact) if exact is not None else self.value()} " \
               f"({self.ref.meaning})>"

    # -- the pieces ------------------------------------------------------------
    def worked(self):
        r"""(where, resolved line): the document's worked line (``where`` its section number) or one
        built from the definition (``where`` None); None when there is none.

        The document's line is shown with this quantity's own name on the left
        (:func:`name_tex`; a document may name it for its section, e.g. ``z_{2}``);
        its substitution, result and relation are the document's.

        >>> import symgpt
        >>> where, ln = symgpt.load("bigram")["z[鱼]"].worked()
        >>> print(where, st.latex(ln))
        1 z_{\text{鱼}} &= 0.3000 \times 0.1 + (-0.1000) \times (-0.5) = 0.0800
        """
        if self.node is None:
            return None
        if self._worked is None:  # memoised: lines() and notes() both ask
            try:
                found = worked_line(self.d, self.node)
            except LimitError:  # a model too big for its document: the line from the definition
                found = None
            if found is not None:
                w = found[0], {**found[1], "lhs": name_tex(self.d, self.node)}
            else:
                ln = definition_line(self.d, self.node, decimals_for(self.value(), self.k))
                w = (None, ln) if ln is not None else None
            self._worked = [w]
        return self._worked[0]

    def closed(self):
        r"""(LaTeX or None, operation count or None): the closed form when small, else its size.

        The count is None when the closed form has more than :data:`COUNT_OPS` operations.

        >>> import symgpt
        >>> print(*symgpt.load("tiny-transformer")["grad_logits[你]"].closed())
        p_{\text{你}} - 1 1
        """
        c = self._closed_expr() if self.node is not None else None
        if c is None:
            return None, None
        ops = int(sympy.count_ops(c))
        return (expr_tex(self.d, c) if ops <= SMALL_OPS else None), ops

    def lines(self) -> list:
        r"""The aligned display lines: definition, worked line, closed form, value; a line saying
        what the line before says (after the left-hand side) is left out.

        >>> import symgpt
        >>> d = symgpt.load("tiny-transformer")
        >>> for line in d["grad_logits[你]"].lines():
        ...     print(line.split("&")[1])
        = p_{\text{你}} - 1 = 0.085 - 1 = -0.915
        \approx -0.915192646785
        >>> print(*d["PE[0,0]"].lines(), *d["lr"].lines(), sep="\n")
        \mathrm{PE}_{0,0} &= 0
        \text{lr} &= 0.1
        """
        d = self.d
        if self.node is None:  # a training state, a head-step value or a size: its value only
            exact = self._exact()
            shown = exact_text(exact) if exact is not None else tex_number(self.value())
            return [rf"{mtext(self.name)} &{self._rel()} {shown}"]
        lhs = name_tex(d, self.node)
        node = d.definitions.nodes[self.node]  # beyond the limits, the lazy graph's
        out = []
        w = self.worked()
        definition = expr_tex(d, node.expr) if node.expr is not None else None
        if definition is not None and (w is None or w[0] is not None):  # a line from the definition shows it
            out.append(rf"{lhs} &= {definition}")
        if w is not None:
            out.append(st.latex(w[1]))
        tex_closed, _ = self.closed()
        if tex_closed is not None and tex_closed != definition:
            out.append(rf"{lhs} &= {tex_closed}")
        out.append(rf"{lhs} &{self._rel()} {tex_number(self.value())}")
        return [ln for i, ln in enumerate(out) if i == 0 or ln.split("&", 1)[1] != out[i - 1].split("&", 1)[1]]

    def _exact(self):
        """The exact value when known cheaply (a size, an exact setting such as lr), else None."""
        e = self.ref.expr if self.ref.kind == "size" else None
        return e if isinstance(e, sympy.Rational) else None

    def _rel(self) -> str:
        """``=`` when the printed value is the exact value (a rational shown in full), else ``\\approx``.

        Exact only where that is known cheaply: a closed form that is a rational
        number, or a size; no SymPy simplification is attempted.
        """
        if self.node is not None and self.value() == "0":  # an exact zero is an exact ball (a decided 0 carried)
            b = self.d.ball(self.node, 64)
            return "=" if (b.is_exact() if isinstance(b, arb) else True) and b == 0 else r"\approx"
        exact = self._closed_expr() if self.node is not None else self._exact()
        if not isinstance(exact, sympy.Rational):
            return r"\approx"
        mant, _, e = self.value().partition("e")
        printed = sympy.Rational(mant) * sympy.Integer(10) ** int(e or 0)
        return "=" if printed == exact else r"\approx"

    def notes(self) -> list:
        """Sentences (Markdown) below the display: where the line comes from, the closed form's size.

        >>> import symgpt
        >>> notes = symgpt.load("tiny-transformer")["loss"].notes()
        >>> notes[0].startswith("Worked line from the document's §"), notes[-1][:30]
        (True, 'Last line: the value at 12 cer')
        """
        out = []
        if self.node is None:
            return [f"Value at {self.digits} certified significant digits."]
        w = self.worked()
        if w is not None:
            src = f"the document's §{w[0]}" if w[0] is not None else "the definition, each operand's figure substituted"
            out.append(f"Worked line from {src}; `=` only when the printed figures, computed exactly, round to "
                       f"the printed result, else `≈`.")
        tex_closed, ops = self.closed()
        if ops is None and isinstance(self._too_big, TooManyDefinitions):
            out.append(f"Closed form: not built (it reads more than {LAZY_NODES} definitions); "
                       f"{md_code(f'd.definition({self.name!r})')} gives the node's own definition.")
        elif ops is None and isinstance(self._too_big, LimitError):  # refused on its size estimated beforehand
            out.append("Closed form: not built (too large written out, estimated before building it); "
                       f"{md_code(f'd.definition({self.name!r})')} gives the node's own definition.")
        elif ops is None:
            out.append(f"Closed form: large (more than {COUNT_OPS} operations); "
                       f"{md_code(f'd.definition({self.name!r})')} gives the node's own definition.")
        elif tex_closed is None:
            out.append(f"Closed form: large ({ops} operations); {md_code(f'd.closed_form({self.name!r})')} gives it.")
        out.append(f"Last line: the value at {self.digits} certified significant digits "
                   f"({md_code(f'd.value({self.name!r}, digits=50)')} for more).")
        return out

    # -- the notebook's view -----------------------------------------------------
    def _repr_latex_(self) -> str:
        return "$$" + aligned(self.lines()) + "$$"

    def _repr_markdown_(self) -> str:
        head = f"**{md_code(self.name)}** — {md_text(self.ref.meaning)}"
        if len(self.ref.shape) == 1:
            head += f" (one of {self.ref.shape[0]} entries)"
        elif self.ref.shape:
            head += f" (one entry of a {' × '.join(map(str, self.ref.shape))} array)"
        return "\n".join([head, "", "$$", aligned(self.lines()), "$$", "",
                          *[f"- {n}" for n in self.notes()]])


def aligned(lines) -> str:
    r"""Lines aligned at their ``&`` in an ``aligned`` environment (GitHub, KaTeX and MathJax read it).

    >>> aligned(["x &= 1", "y &= 2"])
    '\\begin{aligned} x &= 1 \\\\ y &= 2 \\end{aligned}'
    """
    return r"\begin{aligned} " + r" \\ ".join(lines) + r" \end{aligned}"


# ---------------------------------------------------------------- the derivation

def sizes(spec) -> str:
    """The model's sizes in one line.

    >>> import symgpt
    >>> sizes(symgpt.load("tiny-transformer").spec), sizes(symgpt.load("bigram").spec)
    ('transformer V=6 d=2 heads=1 d_ff=4 layers=1 T=2', 'bigram V=3 d=2 T=1')
    """
    if spec.kind == "bigram":
        return f"bigram V={spec.V} d={spec.d} T={spec.T}"
    return (f"transformer V={spec.V} d={spec.d} heads={spec.heads} d_ff={spec.d_ff} layers={spec.layers} "
            f"T={spec.T}")


def examples(d) -> list:
    """A few names worth looking at (canonical node names): attention, the target's p and logit gradient, the loss.

    >>> import symgpt
    >>> examples(symgpt.load("tiny-transformer")), examples(symgpt.load("bigram"))
    (['A[1,0]', 'p[4]', 'grad_logits[4]', 'loss'], ['z[2]', 'p[2]', 'grad_z[2]', 'loss'])
    """
    s, g = d.spec, d._skeleton
    t = s.target
    logits = "logits" if "logits" in g.groups else "z"
    out = []
    last = s.layer_prefix(s.layers - 1) if s.kind == "transformer" else ""
    attn = f"{last}A[{s.T - 1},0]" if s.heads == 1 else f"{last}A[0,{s.T - 1},0]"
    if attn in g.nodes:
        out.append(attn)
    else:
        out.append(f"{logits}[{t}]")
    out += [f"p[{t}]", f"grad_{logits}[{t}]", "loss"]
    return [n for n in out if n in g.nodes]


def derivation_repr(d) -> str:
    """``<Derivation NAME: sizes, N quantities>``, computing nothing.

    >>> import symgpt
    >>> derivation_repr(symgpt.load("bigram"))
    '<Derivation bigram: bigram V=3 d=2 T=1, 40 quantities>'
    """
    return f"<Derivation {d.spec.name}: {sizes(d.spec)}, {len(d._skeleton.nodes)} quantities>"


def _title(spec) -> str:
    t = spec.titles
    return t.get("en") if t.get("en") == t.get("zh") else f"{t.get('zh')} / {t.get('en')}"


def derivation_markdown(d) -> str:
    """Title, sizes, where the spec came from, a few names with their values, how to look closer.

    >>> import symgpt
    >>> print(derivation_markdown(symgpt.load("bigram")).splitlines()[6])
    | `z[鱼]` | logits x·W | 0.0800000000000 |
    """
    s = d.spec
    rows = [[md_code(d.pretty(n)), md_text(d.ref(n).meaning), d.value(n, digits=DIGITS)] for n in examples(d)]
    source = s.raw.get("source")
    first = examples(d)[0]
    return "\n".join([
        (f"**{md_text(_title(s))}** — {md_code(s.name)}: {md_text(sizes(s))}; "
         f"{' '.join(md_code(s.vocab[i]) for i in s.input)} → {md_code(s.vocab[s.target])}; "
         f"{len(d._skeleton.nodes)} named quantities in {len(d._skeleton.groups)} groups."), "",
        f"Spec: {md_code(s.path)}" + (f" (after {md_text(source)})" if source else "") + ".", "",
        md_table(["name", "meaning", f"value ({DIGITS} certified digits)"], rows, align="llr"), "",
        f"Look closer: {md_code(f'd[{d.pretty(first)!r}]')} (definition, worked line, closed form, value), "
        + ", ".join(md_code(c) for c in ('d.value("loss", digits=50)', "d.names()", 'd.trace("sgd")')) + "."])


def derivation_latex(d) -> str:
    r"""The example names and values as a LaTeX array under the title and sizes.

    >>> import symgpt
    >>> print(derivation_latex(symgpt.load("bigram")).split(r" \\ ")[0])
    $$\begin{gathered} \text{bigram: bigram V=3 d=2 T=1}
    """
    s = d.spec
    rows = [[name_tex(d, n), tex_number(d.value(n, digits=DIGITS))] for n in examples(d)]
    return "$$" + r"\begin{gathered} " + mtext(f"{s.name}: {sizes(s)}") + r" \\ " + \
        latex_table([r"\text{name}", rf"\text{{value ({DIGITS} digits)}}"], rows, align="lr") + \
        r" \end{gathered}$$"


def check_digits(digits) -> int:
    """The ``digits`` of a display: an integer in 1..100.

    >>> check_digits(12)
    12
    >>> check_digits("12")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: digits: expected an integer in 1..100, got '12'
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 100:
        raise InputError(f"digits: expected an integer in 1..100, got {digits!r}")
    return digits


__all__ = ["Quantity", "aligned", "derivation_latex", "derivation_markdown", "derivation_repr", "examples",
           "expr_tex", "group_tex", "name_tex", "sizes", "worked_line", "worked_lines"]
