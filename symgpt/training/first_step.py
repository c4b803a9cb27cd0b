"""The first training step as formulas over the model's own names.

From state 0 (zero moments, t = 1, one example, no clipping, no schedule) every
quantity of ``sgd[1]`` and ``adamw[1]`` is a short formula in the parameters,
their gradients and the hyper-parameters::

    sgd[1].θ   = θ − lr·g                      m = (1 − β₁)·g        m̂ = m / (1 − β₁)
    head_step.E[t] = E[t] − lr·grad_E_head[t]  (the target's row; document 000's step)
    adamw[1].θ = θ − decay − update             v = (1 − β₂)·g²       v̂ = v / (1 − β₂)
    update     = η·m̂ / (√v̂ + ε)                 decay = η·λ·θ

These are the rules a tutorial prints its arithmetic from (``W_02: 0.1 − 0.5 × (−0.1952)``,
``m = 0.1 × g``), so :mod:`symgpt.check` reads a step's printed factors with them,
and the check's benchmark uses them to see that a claim written
``(W[0,2] - sgd[1].W[0,2]) / grad_W[0,2]`` is ``lr``.  Names are the graph's
(token ids, not tokens: ``W[0,2]``, ``grad_W[0,2]``); the hyper-parameters are
symbols (``lr``, ``adamw.beta1``), not their values.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> rule(d, "sgd[1].W[0,鱼]")
W[0,2] - grad_W[0,2]*lr
>>> rule(d, "adamw[1].m[W,0,2]")
grad_W[0,2]*(1 - adamw.beta1)
>>> rule(d, "sgd[5].loss") is None
True
"""
from __future__ import annotations

import re
import weakref

import sympy

from .train import learnable

STATE = re.compile(r"(sgd|adamw)\[1\]\.([\w.]+)\[([^\]]+)\]$")
HEAD = re.compile(r"head_step\.E\[([^,\]]+),(\d+)\]$")
MOMENTS = ("m", "v", "mhat", "vhat", "update", "decay")


def textbook(d) -> bool:
    """Is the first update the textbook rule: one example, no clipping, no warm-up or decay schedule,
    every parameter decaying?

    >>> import symgpt
    >>> textbook(symgpt.load("bigram"))
    True
    """
    tr = d.spec.training
    return tr.clip is None and tr.warmup == 0 and tr.decay_steps == 0 and not tr.decay_groups and \
        len(tr.examples) <= 1


def key(d, name: str, index) -> str:
    """A graph name with token indices as ids: key(d, "W", ["0", "鱼"]) → "W[0,2]".  A number is a
    position, as the engine reads it, even where a token is spelled with digits."""
    vocab = list(d.spec.vocab)
    return f"{name}[{','.join(i if i.isdigit() or i not in vocab else str(vocab.index(i)) for i in index)}]"


_TRAINED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def trained(d) -> set:
    """The learnable parameters' names (symgpt.training.train.learnable), once per derivation."""
    if d not in _TRAINED:
        _TRAINED[d] = set(learnable(d))
    return _TRAINED[d]


def rule(d, ref: str):
    """The formula of a first-step quantity (``sgd[1].W[0,鱼]``, ``adamw[1].update[E,1,0]``) over
    graph names and hyper-parameters; None for anything else, or a spec whose first step is not
    :func:`textbook`.

    >>> import symgpt
    >>> rule(symgpt.load("bigram"), "adamw[1].update[W,0,2]")
    adamw.lr*grad_W[0,2]/(adamw.eps + sqrt(grad_W[0,2]**2))
    """
    m = HEAD.match(ref.replace(" ", ""))
    if m is not None:                         # document 000's step on the target's row of E alone
        t, j = m[1], m[2]
        target = d.spec.target if isinstance(d.spec.target, str) else d.spec.vocab[d.spec.target]
        theta = sympy.Symbol(key(d, "E", [t, j]))
        if "grad_E_head" not in {g.partition("[")[0] for g, _, _ in d._registry.groups()} or \
                str(theta) not in trained(d):
            return None                       # no tied head, or no such entry of E (head_step.E[你,9])
        return theta - sympy.Symbol("lr") * sympy.Symbol(key(d, "grad_E_head", [t, j])) if \
            key(d, "E", [t]) == key(d, "E", [target]) else theta
    m = STATE.match(ref.replace(" ", ""))
    if m is None or not textbook(d):
        return None
    opt, part, index = m[1], m[2], m[3].split(",")
    group, index = (index[0], index[1:]) if opt == "adamw" and part in MOMENTS else (part, index)
    if key(d, group, index) not in trained(d):
        return None                          # not a parameter, or one the spec does not train (a norm's γ, β)
    theta, g = (sympy.Symbol(key(d, prefix + group, index)) for prefix in ("", "grad_"))
    if opt == "sgd":
        return theta - sympy.Symbol("lr") * g
    b1, b2, eps, lam, lr = (sympy.Symbol(f"adamw.{x}") for x in ("beta1", "beta2", "eps", "weight_decay", "lr"))
    mhat, vhat = g, g ** 2                                   # m/(1 − β₁) and v/(1 − β₂) at t = 1
    update, decay = lr * mhat / (sympy.sqrt(vhat) + eps), lr * lam * theta
    rules = {"m": (1 - b1) * g, "v": (1 - b2) * g ** 2, "mhat": mhat, "vhat": vhat, "update": update,
             "decay": decay, group: theta - decay - update}
    return rules.get(part)
