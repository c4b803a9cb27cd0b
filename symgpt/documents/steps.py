"""Typed steps: a displayed computation as data (formula → substitution → result).

A *calc line* is one displayed equation, like handcalcs' three parts::

    lhs = formula = substitution  (= | ≈)  result

The substitution is a small arithmetic tree whose leaves are printed figures
of named quantities (:func:`fig`, :func:`exact`); the result is a printed
figure (or a vector of them) with its reference.  From this one record come

- its LaTeX (:func:`latex`, the template filter ``calc``),
- its claims (:func:`claims`): the result with the substitution as a
  ``chain`` in the grammar of :mod:`symgpt.claims.refs` and the relation, and one
  claim per operand,
- the choice of guard digits (:meth:`Printer.resolve`): the computed operands
  are printed with the document's decimals k, else k+1 … k+3, the first that
  makes the printed arithmetic, done exactly, round (half away from zero) to
  the printed result; when none does, the relation is written ``≈``.

The result is always printed from its exact value; it is never bent to the
operands.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> pr = Printer(d, 4)
>>> ln = pr.resolve(line("z_0", Add(Mul(fig("x[0]"), fig("W[0,0]", weight=True)),
...                                 Mul(fig("x[1]"), fig("W[1,0]", weight=True))), "z[0]"))
>>> latex(ln)
'z_0 &= 0.3000 \\\\times 0.5 + (-0.1000) \\\\times 0.2 = 0.1300'
>>> ln["rel"], claims(ln)[0]["chain"]
('=', '0.3000*0.5+(-0.1000)*0.2')
"""
from __future__ import annotations

import contextvars
import re
from fractions import Fraction

from flint import fmpq

from ..claims.claims import certify_rounding, parse_printed
from ..claims.refs import bind, parse
from ..core.errors import InputError
from ..core.numeric import UndecidableError, bounds, round_decimals
from ..core.worked import (  # noqa: F401 (the tree's constructors, in core so that an op can state its lines)
    Add,
    Div,
    Dot,
    Exp,
    Group,
    Ln,
    Mul,
    Neg,
    Pow,
    Sqrt,
    Sub,
    Vec,
    exact,
    fig,
    line,
    result,
)
from . import layout

GUARD = 3           # at most k+3 decimals for an operand, as a rule
WIDE_GUARDS = (6, 9, 12)  # then these, when a factor (a large lr) amplifies the operands' rounding
SMALL = 12          # a value below 10^-12 that rounds to 0 is printed as 0 (no 13th decimal)
FIGURE: contextvars.ContextVar = contextvars.ContextVar("FIGURE", default=None)
"""When set, ``mark(ref, printed, tex)`` wraps each figure :func:`tex` writes (the HTML page's live figures,
:func:`symgpt.documents.html.marking`); its sign stays outside, so a sign folds into the operator as before."""


def width(tree) -> int:
    """Number of components (1 for a scalar).

    >>> width(fig("a")), width(Add(fig("a"), Vec(fig("b"), fig("c"))))
    (1, 2)
    """
    if tree["op"] == "vec":
        return len(tree["args"])
    return max((width(a) for a in tree.get("args", [])), default=1)


def component(tree, j: int):
    """The j-th scalar tree of a vector tree (a scalar is its own every component).

    >>> component(Add(fig("a"), Vec(fig("b"), fig("c"))), 1)["args"][1]["ref"]
    'c'
    """
    if tree["op"] == "vec":
        return tree["args"][j]
    if "args" not in tree:
        return tree
    return {**tree, "args": [component(a, j) for a in tree["args"]]}


def leaves(tree):
    """Every leaf of a tree, left to right."""
    if tree["op"] in ("fig", "num"):
        yield tree
    for a in tree.get("args", []):
        yield from leaves(a)


# ---------------------------------------------------------------- printing

class Printer:
    """Certified figures of one derivation, memoised per (reference, decimals).

    >>> import symgpt
    >>> Printer(symgpt.load("bigram"), 4).figure("exp(z[0])", 4)
    '1.1388'
    """

    def __init__(self, d, k: int):
        self.d, self.k = d, k
        self._memo: dict = {}
        self._bound: dict = {}

    def quantity(self, ref: str):
        if ref not in self._bound:
            self._bound[ref] = bind(parse(ref, self.d.limits), self.d, self.d.limits)
        return self._bound[ref]

    def _names_one(self, ref: str) -> bool:
        """True when ``ref`` is one quantity of the registry (not an expression)."""
        try:
            self.d.ref(ref)
        except ValueError:
            return False
        return True

    def figure(self, ref: str, decimals: int) -> str:
        """``ref`` rounded (half away from zero) to ``decimals``, certified."""
        key = (ref, decimals)
        if key not in self._memo:
            if self._names_one(ref):
                s = self.d.value(ref, decimals=decimals)
            else:
                s = certify_rounding(self.quantity(ref), parse_printed("0." + "0" * decimals if decimals
                                                                        else "0"))[0]
            self._memo[key] = s
        return self._memo[key]

    def small(self, ref: str, decimals: int) -> str:
        """The figure at ``decimals``; a nonzero value that rounds to 0 gets decimals to its first two digits.

        Below 10^-12 (:data:`SMALL`) it stays the rounded 0.
        """
        s = self.figure(ref, decimals)
        if Fraction(s) != 0:
            return s
        try:
            lo, hi = bounds(self.quantity(ref).ball(128))
        except ArithmeticError:  # not finite at 128 bits: too far from 0 to matter here
            return s
        if lo <= 0 <= hi:
            return s  # 0, or too close to 0 to tell cheaply: leave it
        q = min(abs(lo), abs(hi))
        e = 0
        while Fraction(1, 10 ** e) > q and e < SMALL:
            e += 1
        return self.figure(ref, max(decimals, e + 1)) if e < SMALL else s

    def weight(self, ref: str) -> str:
        """A parameter printed from its exact decimal text (else certified at k)."""
        key = (ref, "w")
        if key not in self._memo:
            q = self.d.graph.nodes[self.d.node(ref)].value
            s = _terminating(Fraction(int(q.p), int(q.q)))
            self._memo[key] = s if s is not None else self.figure(ref, self.k)
        return self._memo[key]

    def value(self, leaf, m: int) -> str:
        """The printed text of a leaf when computed operands carry m decimals."""
        if leaf["op"] == "num":
            return leaf["v"]
        if leaf["weight"]:
            return self.weight(leaf["ref"])
        return self.small(leaf["ref"], m if leaf["decimals"] is None else leaf["decimals"])

    def resolve(self, ln: dict) -> dict:
        """The line with every figure printed and its relation chosen (= when it closes).

        >>> import symgpt
        >>> pr = Printer(symgpt.load("bigram"), 4)
        >>> pr.resolve(line("L", Neg(Ln(fig("p[2]"))), "loss"))["rel"]
        '='
        """
        res = ln["res"]
        outs = [self.figure(r["ref"], self.k if r["decimals"] is None else r["decimals"])
                for r in ([component(res, j) for j in range(width(res))])]
        if ln["sub"] is None:  # a result shown without arithmetic
            return {**ln, "res": _fill(res, lambda lf: outs.pop(0)), "rel": "="}
        n = width(ln["sub"])
        for m in [*range(self.k, self.k + GUARD + 1), *(self.k + g for g in WIDE_GUARDS)]:
            sub = _fill(ln["sub"], lambda lf: self.value(lf, m))
            if all(_closes(self, component(sub, j), outs[j if len(outs) > 1 else 0]) for j in range(n)):
                rel = "="
                break
        else:
            sub, rel = _fill(ln["sub"], lambda lf: self.value(lf, self.k)), "≈"
            far = [j for j in range(n) if not _closes(self, component(sub, j), outs[j if len(outs) > 1 else 0], 1)]
            if far:  # ≈ covers rounding, never a wrong operand or result (a bug in the document's step)
                raise InputError(f"{self.d.spec.path}: worked line '{ln['lhs']}': its printed operands, even with "
                                 f"{WIDE_GUARDS[-1]} guard digits, land more than one last-place unit from the "
                                 f"printed result (a large factor such as training.lr amplifies their rounding); "
                                 f"print more decimals with --digits")
        filled = _fill(res, lambda lf: outs.pop(0))
        return {**ln, "sub": sub, "res": filled, "rel": rel}


def _fill(tree, text_of):
    """A copy of the tree with each leaf's printed text set (``"v"``)."""
    if tree["op"] == "fig":
        return {**tree, "v": text_of(tree)}
    if tree["op"] == "num":
        return tree
    return {**tree, "args": [_fill(a, text_of) for a in tree["args"]]}


def _terminating(q: Fraction) -> str | None:
    """q as its exact decimal when it terminates, else None.

    >>> _terminating(Fraction(-1, 8)), _terminating(Fraction(1, 3))
    ('-0.125', None)
    """
    for k in range(0, 60):
        if (q * 10 ** k).denominator == 1:
            return round_decimals(fmpq(q.numerator, q.denominator), k)
    return None


def _closes(pr: Printer, tree, printed: str, units: int = 0) -> bool:
    """Does the printed arithmetic, done exactly, round to the printed figure
    (or, with ``units``, to within that many last-place units of it)?"""
    places = len(printed.split(".")[1]) if "." in printed else 0
    q = _rational(tree)
    if q is not None:
        r = round_decimals(fmpq(q.numerator, q.denominator), places)
    else:
        try:
            r = certify_rounding(pr.quantity(chain(tree)), parse_printed(printed))[0]
        except UndecidableError:
            return False
    return abs(Fraction(r) - Fraction(printed)) <= Fraction(units, 10 ** places)


def _rational(tree) -> Fraction | None:
    """The exact value of a tree of + − × ÷ and integer powers; None with exp/ln/sqrt."""
    op = tree["op"]
    if op in ("fig", "num"):
        return _number(tree["v"])
    xs = [_rational(a) for a in tree["args"]]
    if any(x is None for x in xs):
        return None
    if op == "add":
        return sum(xs, Fraction(0))
    if op == "sub":
        return xs[0] - xs[1]
    if op == "mul":
        return xs[0] * xs[1]
    if op == "div":
        return xs[0] / xs[1] if xs[1] != 0 else None
    if op == "neg":
        return -xs[0]
    if op == "pow":
        return xs[0] ** int(xs[1])
    if op == "group":
        return xs[0]
    return None


def _number(text: str) -> Fraction:
    """A printed figure's exact value (``1e-5`` and ``1/3`` included).

    >>> _number("-0.25"), _number("1e-5"), _number("1/3")
    (Fraction(-1, 4), Fraction(1, 100000), Fraction(1, 3))
    """
    if "/" in text:
        a, b = text.split("/")
        return Fraction(a) / Fraction(b)
    mant, _, e = text.lower().partition("e")
    return Fraction(mant) * Fraction(10) ** int(e) if e else Fraction(mant)


# ---------------------------------------------------------------- chain text (claims grammar)

_FN = {"exp": "exp", "ln": "log", "sqrt": "sqrt"}


def chain(tree) -> str:
    """The printed arithmetic in the claims grammar of :mod:`symgpt.claims.refs`.

    >>> chain(Sub({"op": "fig", "v": "0.292"}, Mul(exact("0.5"), {"op": "fig", "v": "-0.8"})))
    '0.292-0.5*(-0.8)'
    """
    op = tree["op"]
    if op in ("fig", "num"):
        v = tree["v"]
        return f"({v})" if v.startswith("-") or "/" in v else v
    a = tree["args"]
    if op == "add":
        return "+".join(chain(x) for x in a)
    if op == "sub":
        return f"{chain(a[0])}-{_tight(a[1], ('add', 'sub'))}"
    if op == "mul":
        return f"{_tight(a[0], ('add', 'sub'))}*{_tight(a[1], ('add', 'sub', 'div'))}"
    if op == "div":
        return f"{_tight(a[0], ('add', 'sub'))}/{_tight(a[1], ('add', 'sub', 'mul', 'div'))}"
    if op == "neg":
        return f"-{_tight(a[0], ('add', 'sub'))}"
    if op == "pow":
        return f"{_tight(a[0], ('add', 'sub', 'mul', 'div', 'neg', 'pow'))}^{chain(a[1])}"
    if op == "group":
        return f"({chain(a[0])})"
    if op in _FN:
        return f"{_FN[op]}({chain(a[0])})"
    raise ValueError(f"no chain for a {op!r} node")


def _tight(x, loose) -> str:
    return f"({chain(x)})" if x["op"] in loose else chain(x)


# ---------------------------------------------------------------- LaTeX

def _num_tex(v: str) -> str:
    """A printed figure in LaTeX: ``3.1e-7`` → ``3.1 \\times 10^{-7}``.

    >>> _num_tex("3.1e-7"), _num_tex("0.5")
    ('3.1 \\\\times 10^{-7}', '0.5')
    """
    m = re.fullmatch(r"(-?[\d.]+)e([+-]\d+)", v)
    return rf"{m[1]} \times 10^{{{int(m[2])}}}" if m else v


def tex(tree) -> str:
    r"""LaTeX of a filled tree; signs folded (``a + (−b)`` is ``a - b``).

    >>> t = Add(Mul({"op": "fig", "v": "-0.2"}, exact("0.3")), Neg({"op": "fig", "v": "0.1"}))
    >>> tex(t)
    '(-0.2) \\times 0.3 - 0.1'
    >>> tex(Sqrt(Add({"op": "fig", "v": "0.25"}, exact("1e-5", "10^{-5}"))))
    '\\sqrt{0.25 + 10^{-5}}'
    """
    op = tree["op"]
    if op == "fig":
        s, mark = _num_tex(tree["v"]), FIGURE.get()
        if mark is None or not tree.get("ref"):
            return s
        sign = "-" if s.startswith("-") else ""
        return sign + mark(tree["ref"], tree["v"], s[len(sign):])
    if op == "num":
        return tree["tex"]
    a = tree["args"]
    if op == "add":
        out = tex(a[0])
        for x in a[1:]:
            s = tex(x)
            out += f" - {s[1:]}" if s.startswith("-") else f" + {s}"
        return out
    if op == "sub":
        if a[1]["op"] in ("fig", "num") and tex(a[1]).startswith("-"):
            return f"{tex(a[0])} + {tex(a[1])[1:]}"
        return f"{tex(a[0])} - {_factor(a[1], ('add', 'sub'))}"
    if op == "mul":
        return rf"{_factor(a[0], ('add', 'sub'))} \times {_factor(a[1], ('add', 'sub'))}"
    if op == "div":
        return f"{_factor(a[0], ('add', 'sub'))} / {_factor(a[1], ('add', 'sub', 'mul', 'div'))}"
    if op == "neg":
        return f"-{_factor(a[0], ('add', 'sub'))}"
    if op == "pow":
        return f"{_factor(a[0], ('add', 'sub', 'mul', 'div', 'neg', 'pow'), always_neg=True)}^{{{tex(a[1])}}}"
    if op == "group":
        return rf"\left({tex(a[0])}\right)"
    if op == "exp":
        return rf"\exp\left({tex(a[0])}\right)"
    if op == "ln":
        return rf"\ln {_factor(a[0], ('add', 'sub', 'mul', 'div', 'neg'))}"
    if op == "sqrt":
        return rf"\sqrt{{{tex(a[0])}}}"
    if op == "vec":
        return r"\left(" + r",\; ".join(tex(x) for x in a) + r"\right)"
    raise ValueError(f"no LaTeX for a {op!r} node")


def _factor(x, loose, always_neg=True) -> str:
    s = tex(x)
    if x["op"] in loose or (s.startswith("-") and always_neg):
        return rf"\left({s}\right)" if x["op"] in loose else f"({s})"
    return s


def latex(ln) -> str:
    """One display line: ``lhs &= [formula =] substitution (= | \\approx) result[tail]``.

    A plain string (a line that is not a computation) passes through.  A line
    marked ``wrap`` (a width in em, set by :func:`symgpt.documents.blocks.fit`) is broken
    per term to fit it (:func:`symgpt.documents.layout.wrap`).
    """
    if isinstance(ln, str):
        return ln
    rel = "=" if ln["rel"] == "=" else r"\approx"
    parts = [p for p in (ln["formula"], tex(ln["sub"]) if ln["sub"] is not None else "") if p]
    tail = ln["tail"] or ""
    middle = "".join(f"{p} = " for p in parts[:-1]) + (f"{parts[-1]} {rel} " if parts else "")
    s = f"{ln['lhs']} &= {middle}{tex(ln['res'])}{tail}"
    return layout.wrap(s, ln["wrap"]) if ln.get("wrap") else s


def component_lhs(lhs: str, j: int) -> str:
    r"""The left-hand side of component j of a vector line: ``h_{2}`` → ``h_{2,j}``, else ``(lhs)_{j}``.

    >>> component_lhs("h'_{2}", 5), component_lhs(r"\mathrm{LN}(h)", 0)
    ("h'_{2,5}", '\\left(\\mathrm{LN}(h)\\right)_{0}')
    """
    m = re.fullmatch(r"(.*)_\{([^{}]*)\}", lhs)
    return f"{m[1]}_{{{m[2]},{j}}}" if m else rf"\left({lhs}\right)_{{{j}}}"


def components(ln: dict) -> list:
    """A resolved vector line as one scalar line per component, the same figures in each.

    Every component line is true by hand when the vector line is, and the
    component lines' claims are the vector line's (:func:`claims`).

    >>> v = {"lhs": "h_{0}", "formula": "", "tail": "", "rel": "=",
    ...      "sub": Add(Vec({"op": "fig", "ref": "a", "v": "1"}, {"op": "fig", "ref": "b", "v": "2"}),
    ...                 Vec({"op": "fig", "ref": "c", "v": "3"}, {"op": "fig", "ref": "d", "v": "4"})),
    ...      "res": Vec({"op": "fig", "ref": "x", "v": "4"}, {"op": "fig", "ref": "y", "v": "6"})}
    >>> [latex(c) for c in components(v)]
    ['h_{0,0} &= 1 + 3 = 4', 'h_{0,1} &= 2 + 4 = 6']
    """
    return [{**ln, "lhs": component_lhs(ln["lhs"], j),
             "sub": component(ln["sub"], j) if ln["sub"] is not None else None,
             "res": component(ln["res"], j)} for j in range(width(ln["res"]))]


# ---------------------------------------------------------------- claims

def claims(ln) -> list:
    """The claims of one resolved line: each result (chain, relation), then each operand.

    Each a dict ``ref, printed`` (plus ``chain, relation`` for a result).
    """
    out = []
    res, sub = ln["res"], ln["sub"]
    for j in range(width(res)):
        r = component(res, j)
        if sub is None:
            out.append({"ref": r["ref"], "printed": r["v"]})
            continue
        s = component(sub, j) if width(sub) > 1 else sub
        out.append({"ref": r["ref"], "printed": r["v"], "chain": chain(s), "relation": ln["rel"]})
    for lf in (leaves(sub) if sub is not None else ()):
        if lf["op"] == "fig":
            out.append({"ref": lf["ref"], "printed": lf["v"]})
    return out
