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
and document 000's head-only step (``head_step.E[你,0]``).  ``python -m
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
import weakref
from fractions import Fraction

import sympy
from flint import arb, ctx, fmpq

from .numeric import UNARY, power

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

SIZES = {
    # name: (meaning, spec attribute)
    "d": ("model width (embedding dimension)", "d"),
    "d_ff": ("FFN hidden width", "d_ff"),
    "heads": ("attention heads", "heads"),
    "layers": ("transformer blocks", "layers"),
    "ln_eps": ("LayerNorm ε", "ln_eps"),
    "pe_base": ("positional-encoding base", "pe_base"),
}


ADAMW = {
    # adamw.NAME: meaning (the spec's [training.adamw] value)
    "lr": "AdamW learning rate η",
    "beta1": "AdamW first-moment decay β1",
    "beta2": "AdamW second-moment decay β2",
    "eps": "AdamW ε in √v̂ + ε",
    "weight_decay": "AdamW decoupled weight decay λ",
}


class ExprError(ValueError):
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
    return tree


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

    def expr(self):
        self.depth += 1
        if self.depth > 100:
            raise ExprError("expression nested too deeply")
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
        if self.at("-"):
            self.next()
            return ("neg", self.factor())
        if self.at("+"):
            self.next()
            return self.factor()
        return self.power()

    def power(self):
        a = self.atom()
        if self.at("^"):
            self.next()
            self.depth += 1
            if self.depth > 100:
                raise ExprError("expression nested too deeply")
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

    >>> import symgpt
    >>> q = bind(parse("A[1,0] + A[1,1] - 1/3"), symgpt.load("tiny-transformer"))
    >>> from symgpt.numeric import round_decimals
    >>> round_decimals(q.ball(128), 6)
    '0.666667'
    """

    def __init__(self, fn, vector=False):
        self.fn = fn
        self.vector = vector
        self.size = 1
        self._cache: dict[int, object] = {}

    def ball(self, prec: int):
        if prec not in self._cache:
            with ctx.workprec(prec):
                self._cache[prec] = self.fn(prec)
        return self._cache[prec]


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
    >>> bind(parse("A[1,0]*V[0,0]"), symgpt.load("tiny-transformer")).vector
    False
    >>> bind(parse("A[2,0]"), symgpt.load("tiny-transformer"))
    Traceback (most recent call last):
    ...
    symgpt.refs.ExprError: A[2,0]: index '2' out of range; expected 0..1
    """
    return _Binder(d).bind(tree)


def _q(x) -> fmpq:
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


class _Binder:
    def __init__(self, d):
        self.d = d

    def bind(self, t) -> Quantity:
        kind = t[0]
        if kind == "num":
            c = _q(t[1])
            return Quantity(lambda prec: c)
        if kind == "inf":
            raise ExprError("inf is only a temperature: softmax_T(inf, tok)")
        if kind == "word":
            raise ExprError(f"{t[1]!r} is a token, not a quantity; tokens go inside brackets "
                            f"(p[{t[1]}]) or as a function argument (id({t[1]}))")
        if kind == "name":
            return self.name(t[1])
        if kind == "neg":
            a = self.scalar(t[1])
            return Quantity(lambda prec: -a.ball(prec))
        if kind in ("add", "sub", "mul", "div", "pow"):
            a, b = self.scalar(t[1]), self.scalar(t[2])
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
        d = self.d
        from .derivation import RefError
        if text in SIZES:
            value = getattr(d.spec, SIZES[text][1])
            if value is None:
                raise ExprError(f"{text} is not defined for a {d.spec.kind} spec")
            c = _q(Fraction(int(value.p), int(value.q)) if hasattr(value, "p") else value)
            return Quantity(lambda prec: c)
        if text == "lr" or (text.startswith("adamw.") and text[len("adamw."):] in ADAMW):
            x = d.spec.training.lr if text == "lr" else getattr(d.spec.training.adamw, text[len("adamw."):])
            c = _q(Fraction(int(x.p), int(x.q)))
            return Quantity(lambda prec: c)
        if ":" in text:
            return self.slice(text)
        try:
            m = re.fullmatch(r"(sgd|adamw|sgd_wrong_order)\[(\d+)\]\.(.+)", text)
            if m:
                return self.trace(m[1], int(m[2]), m[3], text)
            if text.startswith("head_step."):
                rest = text[len("head_step."):]
                if rest == "loss" or rest.startswith("p["):
                    if rest != "loss":
                        d.node(rest)  # checks the index
                    return Quantity(lambda prec: d.ball(text, prec))
                expr = d.head_step(rest)
                return Quantity(lambda prec: d.ev.expr_ball(expr, prec))
            node = d.node(text)
        except RefError as e:
            raise ExprError(str(e)) from None
        return Quantity(lambda prec: d.ev.ball(node, prec))

    def slice(self, text: str) -> Quantity:
        d = self.d
        m = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9.]*)\[(.*)\]", text)
        if not m or m[1] not in d.graph.groups:
            raise ExprError(f"{text}: a slice ':' works on a graph quantity such as Q[0,:]")
        grp = d.graph.groups[m[1]]
        raw = [x.strip() for x in m[2].split(",")]
        if len(raw) != len(grp.shape):
            raise ExprError(f"{text}: {grp.name} takes {len(grp.shape)} indices {grp.axes}, got {len(raw)}")
        refs = [[]]
        for x, n in zip(raw, grp.shape):
            opts = [str(i) for i in range(n)] if x == ":" else [x]
            refs = [r + [o] for r in refs for o in opts]
        parts = [self.name(f"{m[1]}[{','.join(r)}]") for r in refs]
        q = Quantity(lambda prec: [p.ball(prec) for p in parts], vector=True)
        q.size = len(parts)
        return q

    def trace(self, opt: str, k: int, rest: str, text: str) -> Quantity:
        d = self.d
        from .train import learnable
        steps = d.spec.training.steps
        if not 0 <= k <= steps:
            raise ExprError(f"{text}: the {opt} trace has steps 0..{steps}")
        head, _, idx = rest.partition("[")
        params = set(learnable(d))
        if opt == "sgd_wrong_order":
            if rest != "loss":
                node = d.node(rest)
                if not (node.startswith("p[") or node in params):
                    raise ExprError(f"{text}: sgd_wrong_order[k] has loss, p[v] and parameters")
            t = _wrong_order(d)
            return Quantity(lambda prec: t.ball(k, rest, _trace_prec(prec, steps)))
        if rest in ("loss", "lr", "clip_coef") or head == "p":
            if head == "p":
                d.node(rest)
        elif head in ("m", "v", "mhat", "vhat", "update", "decay"):
            if opt != "adamw":
                raise ExprError(f"{text}: {head}[…] is an AdamW quantity (adamw[k].{rest})")
            if k == 0:
                raise ExprError(f"{text}: AdamW state is defined after an update (k ≥ 1)")
            node = d.node(idx[:-1].replace(",", "[", 1) + "]") if "," in idx else None
            if node not in params:
                raise ExprError(f"{text}: expected {head}[PARAM,i,j], e.g. {head}[W,0,2]")
        else:
            d.node(rest)  # any graph quantity, read at the state
        tr = d.trace(opt)
        return Quantity(lambda prec: tr.ball(k, rest, _trace_prec(prec, steps)))

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
            g = UNARY[f]
            return Quantity(lambda prec: g(a.ball(prec)))
        if f in ("sum", "mean", "var", "max", "min", "dot"):
            if not args:
                raise ExprError(f"{f}() needs at least one argument")
            parts = [self.bind(a) for a in args]
            return Quantity(_REDUCE[f](parts))
        if f == "params":
            from .train import param_count
            return _const(param_count(d))
        if f == "vocab_size":
            return _const(d.spec.V)
        if f == "seq_len":
            return _const(len(d.spec.input))
        if f == "argmax":
            from .sampling import greedy
            return _const(greedy(d).id)
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
        from . import sampling
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
        if expr.is_Rational:
            c = _q(Fraction(int(expr.p), int(expr.q)))
            return Quantity(lambda prec: c)
        return Quantity(lambda prec: d.ev.expr_ball(expr, prec))

    def gradcheck(self, args) -> Quantity:
        from .train import gradcheck, learnable
        d = self.d
        if args[0][0] != "name":
            raise ExprError("gradcheck(): the first argument is a parameter, e.g. W[0,2]")
        from .derivation import RefError
        try:
            node = d.node(args[0][1])
        except RefError as e:
            raise ExprError(str(e)) from None
        if node not in learnable(d):
            raise ExprError(f"gradcheck(): {args[0][1]} is not a parameter")
        h = self.constant(args[1], "gradcheck")
        if h <= 0:
            raise ExprError("gradcheck(): the step h must be > 0")
        h = sympy.Rational(h.numerator, h.denominator)
        return Quantity(lambda prec: gradcheck(d, node, h, prec).numeric)


def _const(n: int) -> Quantity:
    c = fmpq(n)
    return Quantity(lambda prec: c)


def _trace_prec(prec: int, steps: int) -> int:
    """Working precision of a trace: the request plus room for its steps."""
    return prec + 8 * steps


_WRONG_ORDER: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _wrong_order(d):
    """The derivation's wrong-order SGD trace, made once per derivation."""
    from .update_order import WrongOrderTrace
    if d not in _WRONG_ORDER:
        _WRONG_ORDER[d] = WrongOrderTrace(d)
    return _WRONG_ORDER[d]


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
