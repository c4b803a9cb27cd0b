r"""A claims expression as the text writes it: the errata's quantities in the documents' notation.

A claim names what it prints with a reference (:mod:`symgpt.claims.refs`): ``H0[1,0]*W_Q[0,0]``,
``softmax_T(0.5, 爱)``, ``adamw[1].mhat[W,0,2]``.  The errata print each quantity as the sections do: a node
as :func:`~symgpt.documents.names_tex.name_tex` writes it, a function as the section that computes it writes its
value (p at a temperature as :math:`p_i^{(T)}`, the loss's logarithm as :math:`\ln`), a training state with its
step in words, the parameter count in words.

>>> import symgpt
>>> d = symgpt.load("tiny-transformer")
>>> print(expression(d, "H0[1,0]*W_Q[0,0]")["v"], "|", expression(d, "softmax_T(0.5, 爱)")["v"])
{H^{(0)}}_{1,0} \cdot {W_{Q}}_{0,0} | p_{\text{爱}}^{(T = 0.5)}
>>> expression(d, "params()")
{'t': 'word', 'v': 'n_params'}
"""
from __future__ import annotations

from ..claims.refs import ExprError, parse
from ..engine.names import MOMENTS, OPTIMIZERS
from .blocks import math, mtext, num, word
from .names_tex import name_tex
from .precision import reader

_PREC = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
"""How tightly each operation binds; a leaf or a call binds tightest (5)."""

MOMENT_TEX = {"m": "m_{%s}", "v": "v_{%s}", "mhat": r"\hat m_{%s}", "vhat": r"\hat v_{%s}",
              "update": r"(\eta\, \hat m / (\sqrt{\hat v} + \epsilon))_{%s}", "decay": r"(\eta \lambda \theta)_{%s}"}
"""An AdamW quantity of one parameter (%s its symbol), as the AdamW section's table writes it."""


class _NotShown(Exception):
    """The expression has a part with no notation of the text's (it is printed as written)."""


def expression(d, ref: str) -> dict | None:
    r"""A claims reference as the text writes it: a typed value (math, a word, or math with a training step in
    words), or None when a part of it has no notation of the text's (an unknown function, mixed states).

    >>> import symgpt
    >>> d = symgpt.load("bigram")
    >>> said = expression(d, "sqrt(adamw[1].vhat[W,0,2])")
    >>> said["v"][0][0], said["v"][0][1]["q"]["v"]
    ('errata.in_adamw', '\\sqrt{\\hat v_{W_{0,\\text{鱼}}}}')
    >>> print(expression(d, "adamw[1].decay[W,0,2] / W[0,2]")["v"][0][1]["q"]["v"])
    (\eta \lambda \theta)_{W_{0,\text{鱼}}} / W_{0,\text{鱼}}
    >>> print(expression(d, "log(p[鱼])")["v"], "|", expression(d, "sgd[5].loss")["v"][0])
    \ln p_{\text{鱼}} | ('precision.after_sgd_k', {'q': {'t': 'tex', 'v': '\\mathcal{L}'}, 'k': {'t': 'num', 'v': '5'}})
    """
    try:
        tree = parse(ref)
    except ExprError:
        return None
    if tree == ("call", "params", ()):
        return word("n_params")
    names = list(_names(tree))
    states = {_state(x) for x in names} - {None}
    if len(states) > 1 or any(opt not in ("sgd", "adamw") for opt, _ in states):
        return None
    try:
        if not states:
            return math(_tex(d, tree))
        (opt, k), = states
        q = {"q": {"t": "tex", "v": _tex(d, tree)}}
    except _NotShown:
        return None
    moments = [_state(x) is not None and x.partition("].")[2].partition("[")[0] in MOMENTS for x in names]
    plain = [_state(x) is None for x in names]
    if all(m or p for m, p in zip(moments, plain)) and any(moments) and (k == 1 or not any(plain)):
        key = "errata.in_adamw" if k == 1 else "errata.in_adamw_k"       # a quantity of the step itself
    elif not any(plain):
        key = f"precision.after_{opt}" if k == 1 else f"precision.after_{opt}_k"   # the state the steps leave
    else:
        return None
    return {"t": "said", "v": [(key, q if k == 1 else q | {"k": num(str(k))})], "sep": "precision.flips_sep"}


def _names(tree):
    """The names of a parsed reference, in order."""
    if tree[0] == "name":
        yield tree[1]
    for kid in tree[2] if tree[0] == "call" else tree[1:] if tree[0] in _PREC else ():
        yield from _names(kid)


def _state(name: str):
    """(optimizer, step) of a training state's name, else None."""
    head, _, rest = name.partition("].")
    opt, _, k = head.partition("[")
    return (opt, int(k)) if rest and opt in OPTIMIZERS and k.isdigit() else None


def _tex(d, t) -> str:
    """LaTeX of a parsed reference; a state's name as the quantity it reads (its step is said around it)."""
    kind = t[0]
    if kind == "num":
        return t[2]
    if kind == "inf":
        return r"\infty"
    if kind == "word":
        return mtext(t[1])
    if kind == "name":
        return _name(d, t[1])
    if kind == "call":
        return _call(d, t[1], t[2])
    if kind == "neg":
        return "-" + _wrap(d, t[1], 1)
    if kind == "pow":
        return f"{_wrap(d, t[1], 4)}^{{{_tex(d, t[2])}}}"
    a, b = t[1], t[2]
    op = {"add": " + ", "sub": " - ", "mul": r" \cdot ", "div": " / "}[kind]
    return _wrap(d, a, _PREC[kind] - 1) + op + _wrap(d, b, _PREC[kind] - (kind == "add" or kind == "mul"))


def _wrap(d, t, loose: int) -> str:
    """A part in parentheses when it binds no tighter than ``loose``."""
    s = _tex(d, t)
    return f"({s})" if _PREC.get(t[0], 5) <= loose else s


def _name(d, name: str) -> str:
    state = _state(name)
    if state is not None:
        rest = name.partition("].")[2]
        head, _, idx = rest.partition("[")
        if head in MOMENTS:
            param, _, at = idx.partition(",")
            return MOMENT_TEX[head] % _node_tex(d, f"{param}[{at}")
        name = rest
    try:
        v = reader(d, name)
    except Exception as e:  # noqa: BLE001 - not a quantity of this model
        raise _NotShown(name) from e
    if v["t"] != "math":
        raise _NotShown(name)
    return v["v"]


def _node_tex(d, name: str) -> str:
    try:
        return name_tex(d, name)
    except Exception as e:  # noqa: BLE001 - not a parameter of this model
        raise _NotShown(name) from e


def _call(d, f: str, args) -> str:
    """A function as the section that computes it writes its value."""
    if f == "exp":
        return rf"\exp({_tex(d, args[0])})"
    if f == "log":
        return r"\ln " + _wrap(d, args[0], 4)
    if f == "sqrt":
        return rf"\sqrt{{{_tex(d, args[0])}}}"
    if f == "abs":
        return rf"\lvert {_tex(d, args[0])} \rvert"
    if f in ("sin", "cos", "max", "min"):
        return rf"\{f}({', '.join(_tex(d, a) for a in args)})"
    if f in ("sum", "mean", "var", "dot"):
        return rf"\mathrm{{{f}}}({', '.join(_tex(d, a) for a in args)})"
    if f == "softmax_T" and len(args) == 2:                   # p_i^{(T)}, §11.2's formula
        T = r"T \to \infty" if args[0][0] == "inf" else f"T = {_tex(d, args[0])}"
        return f"p_{{{_tex(d, args[1])}}}^{{({T})}}"
    if f in ("topk", "topp") and len(args) == 2:              # as §11.3's headings: Top-k (k = 3), Top-p (P = 0.5)
        cut = rf"\text{{top-}}k,\, k = {_tex(d, args[0])}" if f == "topk" else \
            rf"\text{{top-}}p,\, P = {_tex(d, args[0])}"
        return f"p_{{{_tex(d, args[1])}}}^{{({cut})}}"
    if f == "argmax" and not args:                            # §11.1's greedy choice
        return r"\arg\max_v p_v"
    if f == "params" and not args:
        return r"\lvert \theta \rvert"
    if f == "vocab_size" and not args:                        # the hyper-parameters' table: V and T
        return "V"
    if f == "seq_len" and not args:
        return "T"
    if f == "id" and len(args) == 1:
        return rf"\mathrm{{id}}({_tex(d, args[0])})"
    if f == "onehot" and len(args) == 2:                      # the one-hot matrix of §2.2
        return rf"{{X_{{\mathrm{{oh}}}}}}_{{{_tex(d, args[0])},{_tex(d, args[1])}}}"
    if f == "gradcheck" and len(args) == 2:                   # the central difference of the bigram's §2.3
        theta, h = _tex(d, args[0]), _tex(d, args[1])
        return rf"\frac{{\mathcal{{L}}({theta} + {h}) - \mathcal{{L}}({theta} - {h})}}{{2 \cdot {h}}}"
    raise _NotShown(f)
