"""Claims expressions from Python: ``parse`` one, ``evaluate`` it against a derivation.

A claims expression is what a claims file's ``ref`` and a page's ``data-ref`` hold: a name
(``A[1,0]``, ``l0.Q[1,0]``, ``sgd[1].W[0,吃]``), arithmetic over names and numbers
(``A[1,0] + A[1,1]``), and the functions verify accepts (``exp(logits[2])``,
``softmax_T(0.5, 你)``, ``topk(3, 我)``, ``sqrt(var1[1] + ln_eps)``).

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> evaluate("p[猫] + p[吃] + p[鱼]", d).contains(1)
True
>>> b = evaluate("exp(z[猫]) / sum_exp - p[猫]", d, prec=128)
>>> b == 0 or b.contains(0)
True
"""
from __future__ import annotations

from .claims.refs import ExprError, bind
from .claims.refs import parse as _parse
from .core.limits import Limits

__all__ = ["ExprError", "evaluate", "parse"]


def parse(text: str, limits: Limits | None = None):
    """The parse tree of a claims expression (an ExprError names what is wrong with it).

    >>> parse("A[1,0] + 1")[0]
    'add'
    """
    return _parse(text, limits or Limits())


def evaluate(text: str, d, prec: int = 256):
    """The expression's value on derivation ``d``: an exact rational (python-flint ``fmpq``) when it is
    one, else an arb ball at ``prec`` bits that encloses it.

    >>> import symgpt
    >>> evaluate("1/3 + 1/6", symgpt.load("bigram"))
    1/2
    """
    return bind(parse(text, d.limits), d, d.limits).ball(prec)
