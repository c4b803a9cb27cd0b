"""A worked line as data: ``lhs = formula = substitution = result``, the substitution a small arithmetic tree.

The leaves of a tree are figures of named quantities (:func:`fig`, printed later at the document's decimals, or
a parameter from its exact text) and exact numbers (:func:`exact`, :func:`const`); its nodes are + − × ÷,
integer powers, √, exp, ln, parentheses and row vectors.  Nothing here prints a figure: an op states the
arithmetic of its worked lines with these plain dicts (its document facet, :mod:`symgpt.ops`), and
:mod:`symgpt.documents.steps` prints and checks them.

>>> ln = line("z_0", Add(Mul(fig("x[0]"), fig("W[0,0]", weight=True)), const(sympy.Rational(1, 2))), "z[0]")
>>> ln["sub"]["op"], [a["op"] for a in ln["sub"]["args"]], ln["res"]["ref"]
('add', ['mul', 'num'], 'z[0]')
"""
from __future__ import annotations

from decimal import Decimal, localcontext

import sympy


def fig(ref: str, weight=False, decimals=None) -> dict:
    """A leaf: the printed figure of a quantity (``weight``: printed from its exact text).

    >>> fig("Q[1,0]")
    {'op': 'fig', 'ref': 'Q[1,0]', 'weight': False, 'decimals': None}
    """
    return {"op": "fig", "ref": ref, "weight": weight, "decimals": decimals}


def exact(text: str, tex: str | None = None) -> dict:
    """A leaf that is an exact number (lr, a count, ε): ``text`` in the claims grammar.

    >>> exact("1e-5", "10^{-5}")["tex"]
    '10^{-5}'
    """
    return {"op": "num", "v": text, "tex": tex if tex is not None else text}


def _op(name, *args) -> dict:
    return {"op": name, "args": list(args)}


def Add(*terms) -> dict:
    """A sum of terms (a vector sum when the terms are vectors)."""
    return _op("add", *terms)


def Sub(a, b) -> dict:
    """a − b."""
    return _op("sub", a, b)


def Mul(a, b) -> dict:
    """a × b (a scalar times a vector scales it)."""
    return _op("mul", a, b)


def Div(a, b) -> dict:
    """a / b."""
    return _op("div", a, b)


def Neg(a) -> dict:
    """−a."""
    return _op("neg", a)


def Pow(a, n: int) -> dict:
    """a to an integer power."""
    return _op("pow", a, exact(str(n)))


def Exp(a) -> dict:
    """e^a."""
    return _op("exp", a)


def Ln(a) -> dict:
    """The natural logarithm."""
    return _op("ln", a)


def Sqrt(a) -> dict:
    """The square root."""
    return _op("sqrt", a)


def Group(a) -> dict:
    """Parentheses the reader sees: ``(h_0 + h_1) / 2``."""
    return _op("group", a)


def Vec(*items) -> dict:
    """A row vector; arithmetic on vectors is component by component."""
    return _op("vec", *items)


def Dot(xs, ws) -> dict:
    """Σ x_i × w_i.

    >>> Dot([fig("a")], [fig("b")])["op"]
    'add'
    """
    return Add(*[Mul(x, w) for x, w in zip(xs, ws)])


def result(ref: str, decimals=None) -> dict:
    """A result figure: the quantity ``ref`` at the document's decimals (or ``decimals``)."""
    return {"op": "fig", "ref": ref, "weight": False, "decimals": decimals}


def line(lhs: str, sub, res, formula: str = "", tail: str = "") -> dict:
    """One displayed equation ``lhs &= formula = sub = res`` (``res`` a ref, a result or a Vec).

    >>> line("x", fig("a"), "b")["res"]["ref"]
    'b'
    """
    if isinstance(res, str):
        res = result(res)
    return {"lhs": lhs, "formula": formula, "sub": sub, "res": res, "tail": tail, "rel": "="}


# ---------------------------------------------------------------- exact numbers

def decimal(q) -> str | None:
    """A rational as its exact decimal when it terminates, else None.

    >>> decimal(sympy.Rational(3, 10)), decimal(sympy.Rational(-1, 5)), decimal(sympy.Rational(1, 3))
    ('0.3', '-0.2', None)
    """
    q = sympy.Rational(q)
    den = int(q.q)
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return None
    with localcontext() as c:
        c.prec = 200
        s = format((Decimal(int(q.p)) / Decimal(int(q.q))).normalize(), "f")
    return s


def rational_tex(q) -> str:
    r"""An exact number in LaTeX: its decimal, ``10^{-5}`` for 1/100000, else SymPy's LaTeX.

    >>> rational_tex(sympy.Rational(1, 100000)), rational_tex(sympy.Rational(1, 2)), rational_tex(sympy.Rational(1, 3))
    ('10^{-5}', '0.5', '\\frac{1}{3}')
    """
    q = sympy.Rational(q)
    if q.p == 1 and q.q > 1000:
        k = len(str(q.q)) - 1
        if 10 ** k == q.q:
            return f"10^{{-{k}}}"
    s = decimal(q)
    return s if s is not None else sympy.latex(q)


def const(q) -> dict:
    """An exact input number (lr, ε, a count) as a leaf: its decimal (else ``p/q``) and its LaTeX.

    >>> const(sympy.Rational(1, 100000))
    {'op': 'num', 'v': '0.00001', 'tex': '10^{-5}'}
    """
    q = sympy.Rational(q)
    s = decimal(q)
    return exact(s if s is not None else f"{q.p}/{q.q}", rational_tex(q))
