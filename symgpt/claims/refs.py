"""References: the small language a claim uses to name a quantity.

Grammar (read by the small parser here; nothing is ever passed to ``eval``,
``exec`` or ``sympify``)::

    expr    := term (("+" | "-") term)*
    term    := factor (("*" | "×" | "/" | "÷") factor)*
    factor  := ("-" | "+") factor | power
    power   := atom ("^" factor)?
    atom    := NUMBER | NAME | FUNC "(" args ")" | "(" expr ")"
    NUMBER  := 12 | 0.454 | 1e-5          (an exact rational from its text)
    NAME    := name ("[" index ("," index)* "]")? ("." NAME)?

Names are the graph's quantities (``A[1,0]``, ``p[你]``, ``E[你,1]``,
``l0.Q[1,0]``; an index may be a token, or ``:`` for a whole axis inside
``sum``/``mean``/``var``/``dot``/``max``/``min``), the spec's sizes (``d``,
``d_ff``, ``heads``, ``layers``, ``ln_eps``, ``pe_base``, ``lr``, ``adamw.eps``
and the other AdamW settings in :data:`ADAMW`), training
states (``sgd[5].loss``, ``adamw[1].m[W,0,2]``, ``sgd_wrong_order[1].loss``)
and document 000's head-only step (``head_step.E[你,0]``): every name is
resolved by :mod:`symgpt.engine.names`, the one vocabulary.  Nesting (parentheses,
unary signs, powers, operator chains) is bounded by :data:`MAX_DEPTH`.  ``python -m
symgpt.verify --list SPEC`` prints them all; :data:`FUNCTIONS` lists the
functions.  A bound reference encloses its value at any precision: an exact
``fmpq`` while the arithmetic is rational, an ``arb`` ball otherwise.

>>> parse("exp(S[1,0]) / A_den[1]")
('div', ('call', 'exp', (('name', 'S[1,0]'),)), ('name', 'A_den[1]'))
>>> import symgpt
>>> evaluate("params() - vocab_size()*d", symgpt.load("tiny-transformer"))
34
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import sympy
from flint import arb, ctx, fmpq

from ..core.errors import InputError, LimitError
from ..core.limits import MAX_DIGITS, Limits
from ..core.numeric import UNARY, Certified, UndecidableError, certify, compile_expr, power, sign_of
from ..core.safe import clip
from ..engine.names import ADAMW, SIZES, RefError  # noqa: F401 (ADAMW, SIZES: re-exported, their home is names)
from ..training import ball_sampling, sampling
from ..training.train import gradcheck, loss_at, param_count

FUNCTIONS = {
    # name: (arguments, meaning)
    "exp": ("x", "e^x"),
    "log": ("x", "natural logarithm"),
    "sqrt": ("x", "square root"),
    "sin": ("x", "sine"),
    "cos": ("x", "cosine"),
    "erf": ("x", "error function (GELU's Φ(x) is (1 + erf(x/√2))/2)"),
    "tanh": ("x", "hyperbolic tangent (GELU's tanh approximation)"),
    "abs": ("x", "absolute value"),
    "sum": ("x, …", "sum of the arguments (a slice X[0,:] counts as its entries)"),
    "mean": ("x, …", "mean of the arguments"),
    "var": ("x, …", "biased variance (÷ n) of the arguments"),
    "max": ("x, …", "largest argument"),
    "min": ("x, …", "smallest argument"),
    "dot": ("u, v", "Σ u_i·v_i of two slices of equal length"),
    "softmax_T": ("T, tok", "p at temperature T: exp(z_tok/T)/Σ exp(z_k/T); T = inf gives 1/V"),
    "topk": ("k, tok", "p[tok] renormalised over the k most probable tokens (0 if dropped)"),
    "topp": ("P, tok", "p[tok] renormalised over the smallest prefix of mass ≥ P (0 if dropped)"),
    "argmax": ("", "id of the most probable next token (greedy choice)"),
    "params": ("", "number of trainable scalars"),
    "vocab_size": ("", "V, the number of tokens"),
    "seq_len": ("", "T, the number of input tokens"),
    "id": ("tok", "the token's id (its row in E)"),
    "onehot": ("t, tok", "1 if input position t holds tok, else 0"),
    "gradcheck": ("PARAM, h", "central difference (L(θ+h) − L(θ−h))/2h for one parameter"),
    "loss_at": ("PARAM, δ", "the loss with one parameter moved by δ: a gradient check's L(θ+h) and L(θ−h)"),
    "pi": ("", "π (a tutorial's √(2/π) in GELU's tanh form)"),
}

STATE_CALL = re.compile(r"(?P<state>[A-Za-z_]\w*\[\d+\])\.(?P<f>softmax_T|topk|topp)")
"""A sampling function of the model after training steps: ``sgd[3].softmax_T(0.7, 鱼)``, ``adamw[1].topk(2, 猫)``."""


def _function(f: str) -> str:
    """A call's function without the training state it samples (``sgd[3].topk`` → ``topk``)."""
    return f.rpartition(".")[2]


MAX_LENGTH = 2000
"""Longest reference text, in characters."""

MAX_DEPTH = 100
"""Deepest nesting a reference may have (parentheses, unary signs, powers, operator
chains): a bound that keeps parsing and binding far from Python's recursion limit."""


class ExprError(InputError):
    """A reference that does not parse, or names nothing the spec defines."""


# ---------------------------------------------------------------- tokenizer

_OPS = {"+": "+", "-": "-", "−": "-", "*": "*", "×": "*", "·": "*", "/": "/", "÷": "/",
        "^": "^", "(": "(", ")": ")", ",": ","}
_NUMBER = re.compile(r"\d+(\.\d+)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_WORD = re.compile(r"[^\s()\[\],+\-−*×·/÷^'\"`;:=\\{}!@#$&|?~]+")


def tokenize(text: str) -> list:
    """(kind, text, position) tokens: num, name, word (a bare token), op, end.

    A name runs through its bracketed indices and dotted parts, so the text
    inside brackets (``<pad>``, ``你``) is taken as it is.

    >>> [t[:2] for t in tokenize("p[<pad>]*2")]
    [('name', 'p[<pad>]'), ('op', '*'), ('num', '2'), ('end', '')]
    >>> [t[:2] for t in tokenize("topp(0.9, bún)")][3:5]
    [('op', ','), ('word', 'bún')]
    """
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        m = _NUMBER.match(text, i)
        if m:
            out.append(("num", m.group(), i))
            i = m.end()
            continue
        m = _IDENT.match(text, i)
        w = _WORD.match(text, i)
        if m and w.end() > m.end() and text[m.end()] not in ".<>":
            out.append(("word", w.group(), i))       # a token spelled with letters beyond ASCII: phở, bún
            i = w.end()
            continue
        if m:
            j = _name_end(text, i)
            out.append(("name", text[i:j], i))
            i = j
            continue
        if c in _OPS:
            out.append(("op", _OPS[c], i))
            i += 1
            continue
        m = _WORD.match(text, i)
        if m:
            out.append(("word", m.group(), i))
            i = m.end()
            continue
        raise ExprError(f"unexpected character {c!r} at position {i + 1}")
    out.append(("end", "", n))
    return out


def _name_end(text: str, i: int) -> int:
    """End of a name starting at i: ident, [ … ], . ident, … ."""
    n = len(text)
    while True:
        m = _IDENT.match(text, i)
        if not m:
            raise ExprError(f"expected a name at position {i + 1}")
        i = m.end()
        if i < n and text[i] == "[":
            j = text.find("]", i)
            if j < 0:
                raise ExprError(f"unclosed '[' at position {i + 1}")
            inner = text[i + 1:j]
            if "[" in inner or any(ch in inner for ch in "()'\"`;=\\"):
                raise ExprError(f"bad index {inner!r} at position {i + 2}")
            i = j + 1
        if i < n and text[i] == "." and _IDENT.match(text, i + 1):
            i += 1
            continue
        return i


# ---------------------------------------------------------------- parser

def parse(text: str, limits: Limits | None = None):
    """Parse a reference into a tree of tuples.

    A number is measured from its text before it is converted: one of more
    than ``limits.max_digits`` digits (``1e999999999``) raises LimitError.

    Trees: ``('num', Fraction, text)``, ``('name', text)``, ``('word', text)``,
    ``('inf',)``, ``('neg', a)``, ``('add'|'sub'|'mul'|'div'|'pow', a, b)``,
    ``('call', f, (args…))``.

    >>> parse("-2^2")
    ('neg', ('pow', ('num', Fraction(2, 1), '2'), ('num', Fraction(2, 1), '2')))
    >>> parse("__import__(os)")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.claims.refs.ExprError: unknown function '__import__'; known: abs, argmax, cos, dot, erf, exp, gradcheck, id,
        log, loss_at, max, mean, min, onehot, params, pi, seq_len, sin, softmax_T, sqrt, sum, tanh, topk, topp, var,
        vocab_size; after training steps: sgd[k].softmax_T, sgd[k].topk, sgd[k].topp (adamw[k] too)
    """
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression too long: {len(text)} characters, at most {MAX_LENGTH}")
    p = _Parser(text, (limits or Limits()).max_digits)
    tree = p.expr()
    p.expect("end")
    if _height(tree) > MAX_DEPTH:
        raise ExprError(f"expression nested too deeply (more than {MAX_DEPTH} levels)")
    return tree


def _height(tree) -> int:
    """Height of a tree, measured without recursion (a long a+b+c+… is a deep tree)."""
    best, stack = 0, [(tree, 1)]
    while stack:
        t, h = stack.pop()
        best = max(best, h)
        kids = t[2] if t[0] == "call" else t[1:] if t[0] in ("neg", "add", "sub", "mul", "div", "pow") else ()
        stack.extend((k, h + 1) for k in kids)
    return best


class _Parser:
    def __init__(self, text, max_digits):
        self.max_digits = max_digits
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self):
        return self.toks[self.i]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, text) -> bool:
        t = self.peek()
        return t[0] == "op" and t[1] == text

    def expect(self, kind, text=None):
        t = self.next()
        if t[0] != kind or (text is not None and t[1] != text):
            want = repr(text) if text else ("end of expression" if kind == "end" else kind)
            got = "the end" if t[0] == "end" else repr(t[1])
            raise ExprError(f"expected {want} at position {t[2] + 1}, found {got}")
        return t

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExprError(f"expression nested too deeply (more than {MAX_DEPTH} levels)")

    def expr(self):
        self.enter()
        a = self.term()
        while self.at("+") or self.at("-"):
            op = self.next()[1]
            a = ("add" if op == "+" else "sub", a, self.term())
        self.depth -= 1
        return a

    def term(self):
        a = self.factor()
        while self.at("*") or self.at("/"):
            op = self.next()[1]
            a = ("mul" if op == "*" else "div", a, self.factor())
        return a

    def factor(self):
        signs = []  # a chain of unary signs, read without recursion
        while self.at("-") or self.at("+"):
            signs.append(self.next()[1])
            self.enter()
        a = self.power()
        for _ in range(signs.count("-")):
            a = ("neg", a)
        self.depth -= len(signs)
        return a

    def power(self):
        a = self.atom()
        if self.at("^"):
            self.next()
            self.enter()
            a = ("pow", a, self.factor())
            self.depth -= 1
        return a

    def atom(self):
        kind, text, pos = self.next()
        if kind == "num":
            return ("num", _exact(text, self.max_digits), text)
        if kind == "op" and text == "(":
            a = self.expr()
            self.expect("op", ")")
            return a
        if kind == "name":
            if self.at("("):
                if text not in FUNCTIONS and not STATE_CALL.fullmatch(text):
                    raise ExprError(f"unknown function {text!r}; known: {', '.join(sorted(FUNCTIONS))}; after "
                                    f"training steps: sgd[k].softmax_T, sgd[k].topk, sgd[k].topp (adamw[k] too)")
                self.next()
                args = []
                if not self.at(")"):
                    args.append(self.arg())
                    while self.at(","):
                        self.next()
                        args.append(self.arg())
                self.expect("op", ")")
                return ("call", text, tuple(args))
            if text in ("inf", "oo"):
                return ("inf",)
            return ("name", text)
        if kind == "word":
            return ("word", text)
        if kind == "end":
            raise ExprError("unexpected end of expression")
        raise ExprError(f"unexpected {text!r} at position {pos + 1}")

    def arg(self):
        return self.expr()


def numeral_digits(text: str) -> float:
    """An upper bound of the digits of a decimal numeral's exact value, read from
    its text alone (no conversion): mantissa digits plus the exponent's size.

    >>> numeral_digits("0.454"), numeral_digits("1e-5"), numeral_digits("1e999999999")
    (4, 6, 1000000000)
    """
    mant, _, exp = text.lower().partition("e")
    digits = sum(c.isdigit() for c in mant)
    exp = exp.lstrip("+-").lstrip("0")
    if len(exp) > 18:
        return math.inf
    return digits + (int(exp) if exp else 0)


def _exact(text: str, max_digits: int = MAX_DIGITS) -> Fraction:
    """A number's exact value from its decimal text (never via float), refused
    before conversion when it has more than ``max_digits`` digits."""
    n = numeral_digits(text)
    if n > max_digits:
        raise LimitError(f"the number {_clip(text)} has {_about(n)} digits, "
                         f"above --max-digits {max_digits}")
    mant, _, exp = text.lower().partition("e")
    q = Fraction(mant if not mant.startswith(".") else "0" + mant)
    return q * Fraction(10) ** int(exp) if exp else q


# ---------------------------------------------------------------- size, before evaluation

LOG10_2, LOG10_E = math.log10(2), math.log10(math.e)


@dataclass(frozen=True)
class Size:
    """Upper bounds for a parsed expression, found without evaluating it.

    ``digits``: of the numerator and denominator of every exact rational its
    evaluation makes (SymPy's and flint's exact arithmetic); ``mag``: of
    |log10 |v|| for every value it makes (an ``exp(exp(9))`` ball is small in
    digits but has 10^3500 as its size).  A difference of nearly equal balls may
    be smaller than ``mag`` says: no enclosure sees below its precision, which
    :data:`symgpt.core.numeric.MAX_PREC` bounds.  ``exact``: the value may be an exact
    rational; ``value``: it, when numbers alone give it; ``count``: the entries of
    a slice.

    >>> s = size(parse("2^100 / 3")); s.cost, s.value == Fraction(2 ** 100, 3)
    (31, True)
    """
    digits: float = 0.0
    mag: float = 0.0
    exact: bool = True
    value: Fraction | None = None
    count: int = 1
    top: float | None = None     # log10 of an upper bound of |v|, where an enclosure gives one (mag bounds both ways)

    @property
    def cost(self) -> float:
        """The larger of the digits and the magnitude: what ``--max-digits`` bounds."""
        digits = math.floor(self.digits - 1) + 1 if self.digits >= 1 and self.digits < math.inf else self.digits
        return max(digits, self.mag)


def _log10(n: int) -> float:
    """An upper bound of log10 |n| (0 for 0 and ±1)."""
    n = abs(n)
    return math.log10(n) * (1 + 1e-12) + 1e-12 if n > 1 else 0.0


def _of_value(v: Fraction) -> Size:
    """The size of an exact rational: its digits and |log10| of it."""
    p, q = abs(v.numerator), v.denominator
    mag = abs(_log10(p) - _log10(q)) + 1e-9 if p else 0.0
    return Size(max(_log10(p), _log10(q)) + 1, mag, True, v)


def _lg(a: Size) -> float:
    """log10 of the largest numerator or denominator a's digits allow (0 for a ball)."""
    return max(a.digits - 1, 0.0)


def _exp10(x: float) -> float:
    """10^x, infinite past the floats."""
    return math.inf if x > 300 else 10.0 ** x


def _abs_bound(a: Size) -> float:
    """An upper bound of |a|."""
    if a.value is not None:
        return float(abs(a.value)) if a.digits < 300 else math.inf
    return _exp10(a.top if a.top is not None else a.mag)     # (a small value's mag is its −log10: no bound of it)


def size_of_ball(v) -> Size:
    """The size of a value already enclosed (a name's, from one low-precision ball).

    >>> size_of_ball(fmpq(1, 3)).cost, round(size_of_ball(arb(10) ** 50).mag)
    (1, 50)
    >>> s = size_of_ball(arb("-0.000338")); round(s.mag, 2), round(s.top, 2), _abs_bound(s) < 0.001
    (3.47, -3.47, True)
    """
    if isinstance(v, list):
        parts = [size_of_ball(x) for x in v] or [Size()]
        tops = [p.top for p in parts]
        return Size(max(p.digits for p in parts), max(p.mag for p in parts),
                    all(p.exact for p in parts), None, len(parts),
                    None if None in tops else max(tops))
    if isinstance(v, fmpq):
        p, q = int(v.p), int(v.q)
        s = _of_value(Fraction(p, q))
        return Size(s.digits, s.mag, True, None, top=_log10(p) - (len(str(q)) - 1) if p else -math.inf)
    if not v.is_finite():
        return Size(0, math.inf, False)
    hi, lo = v.abs_upper(), v.abs_lower()
    mag = max(_log10_arb(hi, True), -_log10_arb(lo, False) if lo > 0 else 0.0, 0.0)
    return Size(0, mag, False, top=_log10_arb(hi, True) if hi > 0 else -math.inf)


def _log10_arb(x, up: bool) -> float:
    """log10 of a positive finite arb's midpoint (an abs_upper or abs_lower bound),
    from its mantissa and exponent, rounded outward (``up``: a bound from above)."""
    m, e = x.mid().man_exp()
    lg = math.log10(abs(int(m))) + int(e) * LOG10_2
    return lg + 1e-9 * (1 + abs(lg)) * (1 if up else -1)


def _upper(v) -> float:
    """An upper bound of |v| for an fmpq or a finite arb (inf otherwise)."""
    if isinstance(v, fmpq):
        return _abs_bound(_of_value(Fraction(int(v.p), int(v.q))))
    if not v.is_finite():
        return math.inf
    hi = v.abs_upper()
    return _exp10(_log10_arb(hi, True)) if hi > 0 else 0.0


_ARITH = ("add", "sub", "mul", "div")
_SMALL_INTS = ("params", "vocab_size", "seq_len", "argmax", "id", "onehot")


TOKEN_ARG = {"softmax_T": 1, "topk": 1, "topp": 1, "id": 0, "onehot": 1}   # the argument that is a token


def size(tree, leaf=None, max_digits: int = MAX_DIGITS) -> Size:
    """The :class:`Size` of a parsed reference; LimitError at the first part above
    ``max_digits`` (before anything that large is computed).

    ``leaf(tree, args)`` gives the size of a name (``args`` None) or of a call of
    a derivation's function (``args`` the arguments' sizes), or None for the
    default: a name counts as 0 digits, so that a derivation-free estimate is a
    lower bound of the full one and refuses early.

    >>> size(parse("(1/10)^3 + 1")).value
    Fraction(1001, 1000)
    >>> size(parse("10^10^10"))
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: 10^(10^10) needs numbers of about 1e10 digits, above --max-digits 1000
    >>> size(parse("exp(exp(exp(10)))"))
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: exp(exp(10)) needs numbers of about 95661 digits, above --max-digits 1000
    """
    return _Sizer(leaf, max_digits).size(tree)


class _Sizer:
    def __init__(self, leaf, max_digits):
        self.leaf, self.max_digits = leaf, max_digits

    def size(self, t) -> Size:
        s = self._size(t)
        if s.cost > self.max_digits:
            raise LimitError(f"{_clip(unparse(t))} needs numbers of {_about(s.cost)} digits, "
                             f"above --max-digits {self.max_digits}")
        return s

    def _size(self, t) -> Size:
        kind = t[0]
        if kind == "num":
            return _of_value(t[1])
        if kind in ("inf", "word"):
            return Size(0, 0, False)
        if kind == "name":
            s = self.leaf(t, None) if self.leaf else None
            return s or Size(0, 0, False)
        if kind == "neg":
            a = self.size(t[1])
            return a if a.value is None else _of_value(-a.value)
        if kind in _ARITH:
            return self.arith(kind, self.size(t[1]), self.size(t[2]))
        if kind == "pow":
            return self.pow(self.size(t[1]), self.size(t[2]))
        token = TOKEN_ARG.get(_function(t[1]))     # topk(3, dort): a token, however it is spelled, is no quantity
        return self.call(t[1], [Size(0, 0, False) if k == token and a[0] == "name" else self.size(a)
                                for k, a in enumerate(t[2])], t)

    def arith(self, kind, a: Size, b: Size) -> Size:
        if a.value is not None and b.value is not None and not (kind == "div" and b.value == 0):
            x, y = a.value, b.value
            return _of_value(x + y if kind == "add" else x - y if kind == "sub" else
                             x * y if kind == "mul" else x / y)
        exact = a.exact and b.exact
        if kind in ("add", "sub"):  # p/q ± r/s = (ps ± rq)/qs
            return Size(_lg(a) + _lg(b) + LOG10_2 + 1, max(a.mag, b.mag) + LOG10_2, exact)
        return Size(_lg(a) + _lg(b) + 1, a.mag + b.mag, exact)

    def pow(self, a: Size, b: Size) -> Size:
        """a^(r/s): an exact base's digits and every value's size grow |r/s|-fold, and
        the s-th root of an exact base is sought among integers of up to s bits."""
        if a.value is not None and a.value in (0, 1, -1):
            return Size(a.digits, 0, a.exact)
        e = _abs_bound(b)   # |b| ≤ 10^mag; an exact b's denominator ≤ 10^digits
        s_ = b.value.denominator if b.value is not None else _exp10(_lg(b)) if b.exact else 1
        root = (float(s_) if s_ < 10 ** 300 else math.inf) * LOG10_2 if a.exact and s_ != 1 else 0
        digits = _lg(a) * e + 1 + root
        mag = a.mag * e if a.mag else 0.0
        exact = a.exact and b.value is not None and s_ == 1
        if exact and a.value is not None and max(digits, mag) <= self.max_digits:
            if b.value >= 0 or a.value != 0:
                return _of_value(a.value ** int(b.value))
        return Size(digits, mag, exact)

    def call(self, f: str, args: list, t) -> Size:
        s = self.leaf(t, args) if self.leaf else None
        if s is not None:
            return s
        x = args[0] if args else Size()
        n = sum(a.count for a in args) or 1
        if f == "exp":
            if x.value == 0:
                return _of_value(Fraction(1))
            return Size(x.digits, _abs_bound(x) * LOG10_E + 1, False)
        if f == "log":   # |ln x| ≥ |x − 1|/max(x, 1): an exact x near 1 gives a small log
            return Size(x.digits, max(math.log10(x.mag * 2.31 + 1), x.digits + x.mag) + 1, False)
        if f == "sqrt":
            return Size(x.digits, x.mag / 2, x.exact)
        if f in ("sin", "cos"):  # |sin x| for a rational x: π's irrationality measure (< 7.2)
            return Size(x.digits, 8 * (x.digits + x.mag) + 2, False)
        if f in ("erf", "tanh"):  # |·| < 1, and near x for a small x
            return Size(x.digits, 1, x.value == 0)
        if f == "abs":
            return x if x.value is None else _of_value(abs(x.value))
        total = sum(_lg(a) * a.count for a in args) + math.log10(n) + 1   # Σ over a common denominator
        top = max((a.mag for a in args), default=0) + math.log10(n)
        exact = all(a.exact for a in args)
        if f in ("sum", "mean", "max", "min"):
            return Size(total + 1, top + 1, exact)
        if f == "var":   # Σ (x − mean)² / n
            return Size(2 * total + 1, 2 * top + 2, exact)
        if f == "dot":
            return Size(total + 1, sum(a.mag for a in args) + math.log10(n) + 1, exact)
        if f in _SMALL_INTS:
            return Size(12, 12, True)
        # softmax_T, topk, topp, gradcheck: a derivation's leaf decides; alone, the arguments'
        return Size(max((a.digits for a in args), default=0), max((a.mag for a in args), default=0), False)


def unparse(t) -> str:
    """A parsed reference written back (fully bracketed where it nests).

    >>> unparse(parse("-2^2 + f(1)" .replace("f", "exp")))
    '-(2^2) + exp(1)'
    """
    kind = t[0]
    if kind == "num":
        return t[2]
    if kind in ("name", "word"):
        return t[1]
    if kind == "inf":
        return "inf"
    if kind == "neg":
        return "-" + _bracket(t[1])
    if kind == "call":
        return f"{t[1]}({', '.join(unparse(a) for a in t[2])})"
    op = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "^"}[kind]
    return _bracket(t[1]) + op + _bracket(t[2]) if kind != "add" else unparse(t[1]) + op + unparse(t[2])


def _bracket(t) -> str:
    return unparse(t) if t[0] in ("num", "name", "word", "inf", "call") else f"({unparse(t)})"


def _clip(text: str, n: int = 60) -> str:
    return clip(text, n)


def _about(x: float) -> str:
    """An estimate for a message: about 12, about 3.3e11, more than 1e300.

    >>> _about(12), _about(3.3e11), _about(math.inf)
    ('about 12', 'about 3.3e11', 'more than 1e300')
    """
    if x == math.inf:
        return "more than 1e300"
    if x < 1e6:
        return f"about {math.ceil(x)}"
    return "about " + f"{x:.2g}".replace("e+", "e")


# ---------------------------------------------------------------- binding

class Quantity:
    """A parsed reference bound to a derivation: ``ball(prec)`` encloses it.

    Arithmetic over graph nodes, sizes and numbers binds to one SymPy
    expression over node symbols (``expr``), enclosed by the derivation's
    evaluator, whose ``exact()`` finds an exact rational value (a rounding
    tie, an exact 0) through SymPy.  Training states, head-step forward
    passes, gradient checks, max and min stay closures over balls.  Either
    way :meth:`certify` is :func:`symgpt.core.numeric.certify`.

    >>> import symgpt
    >>> q = bind(parse("A[1,0] + A[1,1] - 1/3"), symgpt.load("tiny-transformer"))
    >>> from symgpt.core.numeric import round_decimals
    >>> round_decimals(q.ball(128), 6), q.expr
    ('0.666667', A[1,0] + A[1,1] - 1/3)
    >>> q.exact()
    2/3
    """

    def __init__(self, fn, vector=False, expr=None, exact=None, items=()):
        self.fn = fn
        self.vector = vector
        self.expr = expr
        self._exact = exact
        self.items = list(items)   # a slice's entries
        self.estimate: Size | None = None   # the size :func:`bind` estimated
        self.size = len(self.items) if vector else 1
        self._cache: dict[int, object] = {}

    def ball(self, prec: int):
        if prec not in self._cache:
            with ctx.workprec(prec):
                self._cache[prec] = self.fn(prec)
        return self._cache[prec]

    def exact(self):
        """The exact value (fmpq) when SymPy can prove one, else None."""
        return self._exact() if self._exact is not None else None

    def certify(self, fmt, what: str = "the value", start: int = 64) -> Certified:
        """``fmt`` of the value, certified by :func:`symgpt.core.numeric.certify`."""
        return certify(self.ball, fmt, what=what, exact=self.exact, start=start)

    def sign(self) -> int:
        """The exact sign: -1, 0 or 1 (0 only when proven exactly 0)."""
        return self.certify(sign_of, "the sign").value


def evaluate(text: str, d, prec: int = 128):
    """Parse, bind and enclose a reference in one call.

    >>> import symgpt
    >>> evaluate("params() - vocab_size()*d", symgpt.load("tiny-transformer"))
    34
    """
    limits = getattr(d, "limits", None)
    return bind(parse(text, limits), d, limits).ball(prec)


def bind(tree, d, limits: Limits | None = None) -> Quantity:
    """Resolve every name and function of a parsed reference against ``d``.

    Raises :class:`ExprError` for an unknown name, a bad index or a misused
    function, before anything is evaluated; and LimitError when its
    :func:`size` (the names' own from one 128-bit enclosure each) exceeds
    ``limits.max_digits`` (by default ``d.limits``).

    >>> import symgpt
    >>> bind(parse("A[1,0]*V[0,0]"), symgpt.load("tiny-transformer")).expr
    A[1,0]*V[0,0]
    >>> bind(parse("A[2,0]"), symgpt.load("tiny-transformer"))
    Traceback (most recent call last):
    ...
    symgpt.claims.refs.ExprError: A[2,0]: index '2' out of range; expected 0..1
    >>> bind(parse("p[你]^(10^9)"), symgpt.load("tiny-transformer"))
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: p[你]^(10^9) needs numbers of about 1.1e09 digits, above --max-digits 1000
    """
    limits = limits or getattr(d, "limits", None) or Limits()
    s = size(tree, None, limits.max_digits)   # numbers alone first: refused before a name is evaluated
    b = _Binder(d)
    if d is not None:
        s = size(tree, b.leaf, limits.max_digits)
    q = b.bind(tree)
    q.estimate = s
    return q


def _q(x) -> fmpq:
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


_NOT_REAL = (sympy.zoo, sympy.nan, sympy.I, sympy.oo, sympy.E)


def _real(e) -> bool:
    """No infinity, NaN or imaginary unit anywhere in a new expression (log 0, 0^-1,
    √-1, log(-2) = log 2 + iπ), nor SymPy's E (exp(1)), which no evaluator reads."""
    return not e.has(*_NOT_REAL)


def _root_of_number(kind: str, a, b) -> bool:
    """A root of a number (``√n``, ``n^(p/q)``): enclosed by :func:`symgpt.core.numeric.power`
    (exact when the root is rational), not by SymPy, which factors n to simplify it.

    >>> _root_of_number("pow", sympy.Integer(7), sympy.Rational(1, 3))
    True
    >>> _root_of_number("pow", sympy.Integer(7), sympy.Integer(3))
    False
    """
    if kind == "sqrt":
        return a.is_number
    return kind == "pow" and a.is_number and not b.is_integer


_SYMPY_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}

_SYMPY_UNARY = {"exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "sin": sympy.sin, "cos": sympy.cos,
                "abs": sympy.Abs, "erf": sympy.erf, "tanh": sympy.tanh}


LEAF_PRECS = (128, 512, 2048)   # precisions a name's size is read at, until its enclosure is finite


class _Binder:
    def __init__(self, d):
        self.d = d  # None: numbers and functions of numbers only (a chain of printed figures)
        self.names = None if d is None else d._registry
        self.bound: dict[str, Quantity] = {}   # names, bound once (their sizes are read first)

    # -- sizes of the leaves, for :func:`size` -------------------------------------
    def leaf(self, t, args) -> Size | None:
        """A name's size from its enclosure (128 bits, more while it is not finite: a deep
        model loses bits); a sampling or gradcheck call's from the logits' or
        probabilities' enclosures and its arguments' sizes."""
        if t[0] == "name":
            for prec in LEAF_PRECS:
                s = self._enclosed(lambda: self.name(t[1]).ball(prec))
                if s is not None and math.isfinite(s.mag):
                    return s
            return s
        f, state = t[1], STATE_CALL.fullmatch(t[1])
        if state is not None and (state["f"] != "softmax_T" or not args or t[2][0] == ("inf",)):
            return Size(max((a.digits for a in args), default=0), 1, False)   # a share of a trained state
        if _function(f) == "softmax_T" and args and t[2][0] != ("inf",):   # exp(z/T) and its ratios: |z|/T·log10 e
            try:
                logits = [q.ball(128) for q in self._state_logits(state["state"])] if state else \
                    [self.d._ev.expr_ball(x, 128) for x in sampling._logits(self.d)[0]]
                z = max(_upper(b) for b in logits)
            except (UndecidableError, ArithmeticError, ValueError):
                return None
            inv_T = _abs_bound(_of_value(1 / args[0].value)) if args[0].value else _exp10(args[0].mag)
            mag = 2 * z * inv_T * LOG10_E + math.log10(self.d.spec.V) + 1
            return Size(args[0].digits, mag, False)
        if f in ("topk", "topp"):
            p = self._enclosed(lambda: [self.d._ev.expr_ball(x, 128) for x in sampling._probs(self.d)])
            if p is None:
                return None
            return Size(max(a.digits for a in args), p.mag + math.log10(self.d.spec.V) + 1, False)
        if f == "loss_at" and len(args) == 2:     # L(θ + δ): the loss's own size
            loss = self._enclosed(lambda: self.name("loss").ball(128))
            return Size(args[1].digits, (loss.mag if loss else 0) + 20, False)
        if f == "gradcheck" and len(args) == 2:   # (L(θ+h) − L(θ−h))/2h: the loss grows with h at most
            loss = self._enclosed(lambda: self.name("loss").ball(128))
            return Size(args[1].digits, 2 * args[1].mag + (loss.mag if loss else 0) + 20, False)
        return None

    def _enclosed(self, ball) -> Size | None:
        try:
            return size_of_ball(ball())
        except InputError:
            raise
        except (UndecidableError, ArithmeticError, ValueError):
            return None

    def expr(self, e) -> Quantity:
        """A quantity that is an expression over node symbols (or a number)."""
        if e.is_Rational:
            c = _q(Fraction(int(e.p), int(e.q)))
            return Quantity(lambda prec: c, expr=e, exact=lambda: c)
        if self.d is None:  # no node symbols: enclose the expression of numbers directly
            f = compile_expr(e, {}, None)
            return Quantity(lambda prec: f([]), expr=e, exact=lambda: None)
        ev, names = self.d._ev, self.names
        return Quantity(lambda prec: ev.expr_ball(e, prec), expr=e, exact=lambda: names.exact(e))

    def bind(self, t) -> Quantity:
        kind = t[0]
        if kind == "num":
            return self.expr(sympy.Rational(t[1].numerator, t[1].denominator))
        if kind == "inf":
            raise ExprError("inf is only a temperature: softmax_T(inf, tok)")
        if kind == "word":
            raise ExprError(f"{t[1]!r} is a token, not a quantity; tokens go inside brackets "
                            f"(p[{t[1]}]) or as a function argument (id({t[1]}))")
        if kind == "name":
            return self.name(t[1])
        if kind == "neg":
            a = self.scalar(t[1])
            if a.expr is not None:
                return self.expr(-a.expr)
            return Quantity(lambda prec: -a.ball(prec))
        if kind in ("add", "sub", "mul", "div", "pow"):
            a, b = self.scalar(t[1]), self.scalar(t[2])
            if kind == "div" and b.expr is sympy.S.Zero:
                raise ZeroDivisionError("division by zero")
            if a.expr is not None and b.expr is not None and not _root_of_number(kind, a.expr, b.expr):
                e = _SYMPY_BINARY[kind](a.expr, b.expr)
                if _real(e):
                    return self.expr(e)
            return Quantity(_BINARY[kind](a, b))
        if kind == "call":
            return self.call(t[1], t[2])
        raise ExprError(f"cannot evaluate {kind}")  # pragma: no cover

    def scalar(self, t) -> Quantity:
        q = self.bind(t)
        if q.vector:
            raise ExprError("a slice (an index ':') is a list of numbers: use it inside "
                            "sum, mean, var, max, min or dot")
        return q

    # -- names --------------------------------------------------------------
    def name(self, text: str) -> Quantity:
        if self.d is None:
            raise ExprError(f"{text}: a name needs a derivation (evaluate(text, d))")
        if text not in self.bound:
            self.bound[text] = self._name(text)
        return self.bound[text]

    def _name(self, text: str) -> Quantity:
        try:
            if ":" in text:
                return self.slice(text)
            r = self.names.ref(text)
        except RefError as e:
            raise ExprError(str(e)) from None
        if r.expr is not None:
            return self.expr(r.expr)
        if r.kind == "state":
            steps = self.d.spec.training.steps
            return Quantity(lambda prec: r.ball(_trace_prec(prec, steps)))
        return Quantity(r.ball)

    def slice(self, text: str) -> Quantity:
        parts = [self.expr(r.expr) for r in self.names.slice(text)]
        return Quantity(lambda prec: [p.ball(prec) for p in parts], vector=True, items=parts)

    # -- functions -------------------------------------------------------------
    def call(self, f: str, args: tuple) -> Quantity:
        d = self.d
        if (state := STATE_CALL.fullmatch(f)) is not None:
            return self.state_sampling(state["state"], state["f"], args)
        arity = {"exp": 1, "log": 1, "sqrt": 1, "sin": 1, "cos": 1, "abs": 1, "erf": 1, "tanh": 1, "dot": 2,
                 "softmax_T": 2, "topk": 2, "topp": 2, "argmax": 0, "params": 0,
                 "vocab_size": 0, "seq_len": 0, "id": 1, "onehot": 2, "gradcheck": 2, "loss_at": 2, "pi": 0}
        if f in arity and len(args) != arity[f]:
            raise ExprError(f"{f}() takes {arity[f]} argument(s) ({FUNCTIONS[f][0]}), got {len(args)}")
        if f in UNARY:
            a = self.scalar(args[0])
            if a.expr is not None and not _root_of_number("sqrt" if f == "sqrt" else "", a.expr, None):
                e = _SYMPY_UNARY[f](a.expr)
                if _real(e):
                    return self.expr(e)
            g = UNARY[f]
            return Quantity(lambda prec: g(a.ball(prec)))
        if f == "pi":
            return self.expr(sympy.pi)
        if d is None and f not in _REDUCE:
            raise ExprError(f"{f}(): needs a derivation (evaluate(text, d))")
        if f in ("sum", "mean", "var", "max", "min", "dot"):
            if not args:
                raise ExprError(f"{f}() needs at least one argument")
            parts = [self.bind(a) for a in args]
            e = _reduce_expr(f, parts)
            return self.expr(e) if e is not None else Quantity(_REDUCE[f](parts))
        if f == "params":
            return _const(param_count(d))
        if f == "vocab_size":
            return _const(d.spec.V)
        if f == "seq_len":
            return _const(len(d.spec.input))
        if f == "argmax":
            return _const(sampling.greedy(d).id)
        if f == "id":
            return _const(self.token(args[0], f))
        if f == "onehot":
            t = self.integer(args[0], f, "a position")
            if not 0 <= t < len(d.spec.input):
                raise ExprError(f"onehot(): position {t} out of range 0..{len(d.spec.input) - 1}")
            return _const(int(d.spec.input[t] == self.token(args[1], f)))
        if f in ("softmax_T", "topk", "topp"):
            return self.sampling(f, args)
        if f in ("gradcheck", "loss_at"):
            return self.gradcheck(args, f)
        raise ExprError(f"unknown function {f!r}")  # pragma: no cover (the parser checks)

    def token(self, t, f) -> int:
        vocab = self.d.spec.vocab
        text = t[1] if t[0] in ("word", "name") else None
        if t[0] == "num" and t[1].denominator == 1 and 0 <= t[1] < len(vocab):
            return int(t[1])
        if text is None or text not in vocab:
            shown = text if text is not None else "an expression"
            raise ExprError(f"{f}(): {shown!r} is not a token; the vocabulary is {', '.join(vocab)}")
        return vocab.index(text)

    def integer(self, t, f, what) -> int:
        if t[0] == "num" and t[1].denominator == 1:
            return int(t[1])
        raise ExprError(f"{f}(): expected {what} (a whole number)")

    def constant(self, t, f) -> Fraction:
        """A number argument: any expression of numbers alone (no names)."""
        q = self.scalar(t)
        v = q.ball(64)
        if not isinstance(v, fmpq):
            raise ExprError(f"{f}(): expected an exact number")
        return Fraction(int(v.p), int(v.q))

    def sampling(self, f, args) -> Quantity:
        d = self.d
        v = self.token(args[1], f)
        if f == "softmax_T":
            if args[0] == ("inf",):
                T = sympy.oo
            else:
                T = self.constant(args[0], f)
                if T <= 0:
                    raise ExprError("softmax_T(): the temperature must be > 0 (or inf)")
                T = sympy.Rational(T.numerator, T.denominator)
            expr = sampling.temperature(d, T)[v]
        elif f == "topk":
            k = self.integer(args[0], f, "k")
            if not 1 <= k <= d.spec.V:
                raise ExprError(f"topk(): k must be 1..{d.spec.V}")
            expr = sampling.top_k(d, k).probs[v]
        else:
            P = self.constant(args[0], f)
            if not 0 < P <= 1:
                raise ExprError("topp(): P must lie in (0, 1]")
            expr = sampling.top_p(d, sympy.Rational(P.numerator, P.denominator)).probs[v]
        return self.expr(sympy.Integer(expr) if isinstance(expr, int) else expr)

    def state_sampling(self, state: str, f: str, args) -> Quantity:
        """``STATE.softmax_T(T, tok)``, ``STATE.topk(k, tok)``, ``STATE.topp(P, tok)``: sampling from the model after
        the training state's steps, over the enclosures of that state's logits
        (:mod:`symgpt.training.ball_sampling`)."""
        d = self.d
        if d is None:
            raise ExprError(f"{state}.{f}(): needs a derivation (evaluate(text, d))")
        if len(args) != 2:
            raise ExprError(f"{state}.{f}() takes 2 argument(s) ({FUNCTIONS[f][0]}), got {len(args)}")
        call = f"{state}.{f}"
        v = self.token(args[1], call)
        z = self._state_logits(state)
        if f == "softmax_T":
            T = None if args[0] == ("inf",) else self.constant(args[0], call)
            if T is not None and T <= 0:
                raise ExprError(f"{call}(): the temperature must be > 0 (or inf)")
            return Quantity(lambda prec: ball_sampling.softmax_T([q.ball(prec) for q in z], T, v))
        if f == "topk":
            k = self.integer(args[0], call, "k")
            if not 1 <= k <= d.spec.V:
                raise ExprError(f"{call}(): k must be 1..{d.spec.V}")
            return Quantity(lambda prec: ball_sampling.top_k([q.ball(prec) for q in z], k, v))
        P = self.constant(args[0], call)
        if not 0 < P <= 1:
            raise ExprError(f"{call}(): P must lie in (0, 1]")
        return Quantity(lambda prec: ball_sampling.top_p([q.ball(prec) for q in z], P, v))

    def _state_logits(self, state: str) -> list:
        """The logits of the model after ``state``'s steps, one quantity per token (``sgd[3].z[0]``, …)."""
        for group in ("logits", "z"):
            try:
                self.names.ref(f"{state}.{group}[0]")
            except RefError as e:
                failed = e
                continue
            return [self.name(f"{state}.{group}[{v}]") for v in range(self.d.spec.V)]
        raise ExprError(f"{state}: no training state of this spec to sample from ({failed})")

    def gradcheck(self, args, f: str = "gradcheck") -> Quantity:
        """``gradcheck(PARAM, h)``, the central difference, or ``loss_at(PARAM, δ)``, one of its two losses."""
        d = self.d
        if args[0][0] != "name":
            raise ExprError(f"{f}(): the first argument is a parameter, e.g. W[0,2]")
        try:
            node = self.names.node(args[0][1])
        except RefError as e:
            raise ExprError(str(e)) from None
        if node not in self.names.params:
            raise ExprError(f"{f}(): {args[0][1]} is not a parameter")
        h = self.constant(args[1], f)
        if f == "gradcheck" and h <= 0:
            raise ExprError("gradcheck(): the step h must be > 0")
        h = sympy.Rational(h.numerator, h.denominator)
        if f == "loss_at":
            return Quantity(lambda prec: loss_at(d, node, h, prec))
        return Quantity(lambda prec: gradcheck(d, node, h, prec).numeric)


def _const(n: int) -> Quantity:
    c = fmpq(n)
    return Quantity(lambda prec: c, expr=sympy.Integer(n), exact=lambda: c)


def _trace_prec(prec: int, steps: int) -> int:
    """Working precision of a trace: the request plus room for its steps."""
    return prec + 8 * steps


def _reduce_expr(f, parts):
    """sum, mean, var, dot as one SymPy expression when every entry is one; else None."""
    if f in ("max", "min") or any(p.expr is None and not p.vector for p in parts):
        return None
    if f == "dot":
        _dot_of(parts)  # checks the arguments
        u, v = parts[0].items, parts[1].items
        if any(x.expr is None for x in u + v):
            return None
        return sympy.Add(*[a.expr * b.expr for a, b in zip(u, v)])
    xs = [x for p in parts for x in (p.items if p.vector else [p])]
    if any(x.expr is None for x in xs):
        return None
    es = [x.expr for x in xs]
    total = sympy.Add(*es)
    if f == "sum":
        return total
    mean = total / len(es)
    if f == "mean":
        return mean
    return sympy.Add(*[(e - mean) ** 2 for e in es]) / len(es)


# ---------------------------------------------------------------- arithmetic

def _div(x, y):
    if isinstance(y, fmpq) and y == 0:
        raise ZeroDivisionError("division by zero")
    return x / y


_BINARY = {
    "add": lambda a, b: lambda prec: a.ball(prec) + b.ball(prec),
    "sub": lambda a, b: lambda prec: a.ball(prec) - b.ball(prec),
    "mul": lambda a, b: lambda prec: a.ball(prec) * b.ball(prec),
    "div": lambda a, b: lambda prec: _div(a.ball(prec), b.ball(prec)),
    "pow": lambda a, b: lambda prec: _power(a.ball(prec), b.ball(prec)),
}


def _power(x, y):
    """x^y, refused for a negative x and a fractional y (not a real number)."""
    if not (isinstance(y, fmpq) and y.q == 1) and x < 0:
        raise ValueError("a negative number to a fractional power is not real")
    return power(x, y)


def _flat(parts, prec) -> list:
    out = []
    for p in parts:
        v = p.ball(prec)
        out.extend(v if p.vector else [v])
    return out


def _total(xs):
    s = fmpq(0)
    for x in xs:
        s = s + x
    return s


def _mean(xs):
    return _total(xs) / len(xs)


def _var(xs):
    m = _mean(xs)
    return _total([(x - m) * (x - m) for x in xs]) / len(xs)


def _extreme(xs, pick):
    """max or min, certified: arb's max/min of balls encloses the true one."""
    best = xs[0]
    for x in xs[1:]:
        if isinstance(best, fmpq) and isinstance(x, fmpq):
            best = pick(best, x)
        else:
            best = arb(best).max(arb(x)) if pick is max else arb(best).min(arb(x))
    return best


def _dot_of(parts):
    if len(parts) != 2 or not all(p.vector for p in parts):
        raise ExprError("dot() takes two slices, e.g. dot(Q[1,:], K[0,:])")
    if parts[0].size != parts[1].size:
        raise ExprError(f"dot(): lengths {parts[0].size} and {parts[1].size} differ")

    def fn(prec):
        u, v = parts[0].ball(prec), parts[1].ball(prec)
        return _total([a * b for a, b in zip(u, v)])
    return fn


_REDUCE = {
    "sum": lambda parts: lambda prec: _total(_flat(parts, prec)),
    "mean": lambda parts: lambda prec: _mean(_flat(parts, prec)),
    "var": lambda parts: lambda prec: _var(_flat(parts, prec)),
    "max": lambda parts: lambda prec: _extreme(_flat(parts, prec), max),
    "min": lambda parts: lambda prec: _extreme(_flat(parts, prec), min),
    "dot": _dot_of,
}
