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
resolved by :mod:`symgpt.names`, the one vocabulary.  Nesting (parentheses,
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

import re
from fractions import Fraction

import sympy
from flint import arb, ctx, fmpq

from . import sampling
from .errors import InputError
from .names import ADAMW, SIZES, RefError  # noqa: F401 (ADAMW, SIZES: re-exported, their home is names)
from .numeric import UNARY, Certified, certify, compile_expr, power, sign_of
from .train import gradcheck, param_count

FUNCTIONS = {
    # name: (arguments, meaning)
    "exp": ("x", "e^x"),
    "log": ("x", "natural logarithm"),
    "sqrt": ("x", "square root"),
    "sin": ("x", "sine"),
    "cos": ("x", "cosine"),
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
}

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

def parse(text: str):
    """Parse a reference into a tree of tuples.

    Trees: ``('num', Fraction, text)``, ``('name', text)``, ``('word', text)``,
    ``('inf',)``, ``('neg', a)``, ``('add'|'sub'|'mul'|'div'|'pow', a, b)``,
    ``('call', f, (args…))``.

    >>> parse("-2^2")
    ('neg', ('pow', ('num', Fraction(2, 1), '2'), ('num', Fraction(2, 1), '2')))
    >>> parse("__import__(os)")
    Traceback (most recent call last):
    ...
    symgpt.refs.ExprError: unknown function '__import__'; known: abs, argmax, cos, dot, exp, gradcheck, id, log, max, mean, min, onehot, params, seq_len, sin, softmax_T, sqrt, sum, topk, topp, var, vocab_size
    """
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    if len(text) > 2000:
        raise ExprError("expression too long")
    p = _Parser(text)
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
    def __init__(self, text):
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
            return ("num", _exact(text), text)
        if kind == "op" and text == "(":
            a = self.expr()
            self.expect("op", ")")
            return a
        if kind == "name":
            if self.at("("):
                if text not in FUNCTIONS:
                    raise ExprError(f"unknown function {text!r}; known: {', '.join(sorted(FUNCTIONS))}")
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


def _exact(text: str) -> Fraction:
    """A number's exact value from its decimal text (never via float)."""
    mant, _, exp = text.lower().partition("e")
    q = Fraction(mant if not mant.startswith(".") else "0" + mant)
    return q * Fraction(10) ** int(exp) if exp else q


# ---------------------------------------------------------------- binding

class Quantity:
    """A parsed reference bound to a derivation: ``ball(prec)`` encloses it.

    Arithmetic over graph nodes, sizes and numbers binds to one SymPy
    expression over node symbols (``expr``), enclosed by the derivation's
    evaluator, whose ``exact()`` finds an exact rational value (a rounding
    tie, an exact 0) through SymPy.  Training states, head-step forward
    passes, gradient checks, max and min stay closures over balls.  Either
    way :meth:`certify` is :func:`symgpt.numeric.certify`.

    >>> import symgpt
    >>> q = bind(parse("A[1,0] + A[1,1] - 1/3"), symgpt.load("tiny-transformer"))
    >>> from symgpt.numeric import round_decimals
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
        """``fmt`` of the value, certified by :func:`symgpt.numeric.certify`."""
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
    return bind(parse(text), d).ball(prec)


def bind(tree, d) -> Quantity:
    """Resolve every name and function of a parsed reference against ``d``.

    Raises :class:`ExprError` for an unknown name, a bad index or a misused
    function, before anything is evaluated.

    >>> import symgpt
    >>> bind(parse("A[1,0]*V[0,0]"), symgpt.load("tiny-transformer")).expr
    A[1,0]*V[0,0]
    >>> bind(parse("A[2,0]"), symgpt.load("tiny-transformer"))
    Traceback (most recent call last):
    ...
    symgpt.refs.ExprError: A[2,0]: index '2' out of range; expected 0..1
    """
    return _Binder(d).bind(tree)


def _q(x) -> fmpq:
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


_NOT_REAL = (sympy.zoo, sympy.nan, sympy.I, sympy.oo, -sympy.oo)


def _real(e) -> bool:
    """No infinity, NaN or imaginary unit in a new expression: its parts were checked
    when they were made, so only the top and its arguments can be new (log 0, 0^-1, √-1)."""
    return id(e) not in _NOT_REAL_IDS and not any(id(a) in _NOT_REAL_IDS for a in e.args)


_NOT_REAL_IDS = {id(x) for x in _NOT_REAL}  # SymPy's singletons: identity, not ==

_SYMPY_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}

_SYMPY_UNARY = {"exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "sin": sympy.sin, "cos": sympy.cos,
                "abs": sympy.Abs}


class _Binder:
    def __init__(self, d):
        self.d = d  # None: numbers and functions of numbers only (a chain of printed figures)
        self.names = None if d is None else d.registry

    def expr(self, e) -> Quantity:
        """A quantity that is an expression over node symbols (or a number)."""
        if e.is_Rational:
            c = _q(Fraction(int(e.p), int(e.q)))
            return Quantity(lambda prec: c, expr=e, exact=lambda: c)
        if self.d is None:  # no node symbols: enclose the expression of numbers directly
            f = compile_expr(e, {}, None)
            return Quantity(lambda prec: f([]), expr=e, exact=lambda: None)
        ev, names = self.d.ev, self.names
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
            if a.expr is not None and b.expr is not None:
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
        arity = {"exp": 1, "log": 1, "sqrt": 1, "sin": 1, "cos": 1, "abs": 1, "dot": 2,
                 "softmax_T": 2, "topk": 2, "topp": 2, "argmax": 0, "params": 0,
                 "vocab_size": 0, "seq_len": 0, "id": 1, "onehot": 2, "gradcheck": 2}
        if f in arity and len(args) != arity[f]:
            raise ExprError(f"{f}() takes {arity[f]} argument(s) ({FUNCTIONS[f][0]}), got {len(args)}")
        if f in UNARY:
            a = self.scalar(args[0])
            if a.expr is not None:
                e = _SYMPY_UNARY[f](a.expr)
                if _real(e):
                    return self.expr(e)
            g = UNARY[f]
            return Quantity(lambda prec: g(a.ball(prec)))
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
        if f == "gradcheck":
            return self.gradcheck(args)
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

    def gradcheck(self, args) -> Quantity:
        d = self.d
        if args[0][0] != "name":
            raise ExprError("gradcheck(): the first argument is a parameter, e.g. W[0,2]")
        try:
            node = self.names.node(args[0][1])
        except RefError as e:
            raise ExprError(str(e)) from None
        if node not in self.names.params:
            raise ExprError(f"gradcheck(): {args[0][1]} is not a parameter")
        h = self.constant(args[1], "gradcheck")
        if h <= 0:
            raise ExprError("gradcheck(): the step h must be > 0")
        h = sympy.Rational(h.numerator, h.denominator)
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
    "pow": lambda a, b: lambda prec: power(a.ball(prec), b.ball(prec)),
}


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
