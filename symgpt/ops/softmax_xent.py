"""Softmax with cross-entropy: ``sum_exp``, ``p = softmax(logits)``, ``loss = −z_t + ln Σ_k e^{z_k}``.

The loss is written in the logsumexp form so that SymPy's ``diff`` gives ∂L/∂z_j = −δ_jt + e^{z_j}/Σ_k e^{z_k},
which re-folds to p_j − y_j.  With several predicting rows the loss is their mean (the language-model loss).

>>> from flint import fmpq
>>> softmax_xent_rule().grad_z(fmpq(1, 4), fmpq(1), fmpq(2))   # (p − y)/n
-3/8
"""
from __future__ import annotations

import math

import numpy as np
import sympy
from flint import fmpq

from ..core import numeric
from ..core.grid import _indices, tensor
from ..core.proofs import kept
from ..core.prove import Rule, closures, generic, prove_equal, real, stated
from ..core.tensor import ONE, ZERO, add, total
from .base import Apply, accumulate
from .naming import Name

KIND = "softmax_xent"
PARAMS: dict = {}

STATED = {
    # softmax + cross-entropy, one row's share of the mean over n rows
    "softmax_xent.grad_z": lambda p, y, n: (p - y) / n,
}
"""The rule as the documents state it, proven equal to SymPy's derivation (:func:`softmax_xent_rule`)."""

N_LOGITS = 4
"""The number of generic logits the rule is derived on."""


def _rows(a: Apply) -> tuple:
    """(logits group, target id) of every predicting row; the last is the one ``p`` is of."""
    return a.opt("rows")


def _meaning(a: Apply) -> str:
    return ("cross-entropy −ln p[target]" if len(_rows(a)) == 1
            else "mean cross-entropy over every position (language-model loss)")


def define(g, a: Apply, T_: dict):
    """sum_exp, p and the loss of the last row's logits (the mean over the rows)."""
    rows = [(T_[name], t) for name, t in _rows(a)]
    logits = rows[-1][0]
    V = len(logits)
    se = tensor(g, "sum_exp", (), "Σ_k exp(logits[k])", (), lambda i: sympy.Add(*[sympy.exp(z) for z in logits]),
                [(logits, lambda k: [()])], lambda i: V)
    tensor(g, "p", (V,), "next-token probabilities softmax(logits)", ("v",),
           lambda i: sympy.exp(logits[i[0]]) / se, [(logits, lambda v: [v]), ("sum_exp", lambda _: _indices((V,)))],
           lambda i: 2)
    ce = lambda z, t: -z[t] + sympy.log(sympy.Add(*[sympy.exp(x) for x in z]))
    # with one token −z + ln e^z is 0: the loss's uses and arity are then bounds (symgpt.engine.lazy checks its inputs)
    return tensor(g, a.out, (), _meaning(a), (), lambda i: sympy.Add(*[ce(z, t) for z, t in rows]) / len(rows),
                  [(z, lambda k: [()]) for z, _ in rows], lambda i: V * len(rows))


def groups(a: Apply, net) -> None:
    V = a.opt("V")
    net.group("sum_exp", (), "Σ_k exp(logits[k])", ())
    net.group("p", (V,), "next-token probabilities softmax(logits)", ("v",))
    net.group(a.out, (), _meaning(a), ())


def forward(a: Apply, net) -> None:
    rows = _rows(a)
    logits = rows[-1][0]

    def run(v, ev):
        e = [numeric.exp(z) for z in v[logits]]
        v["sum_exp"] = total(e)
        v["p"] = [x / v["sum_exp"] for x in e]
        ce = ZERO
        for name, t in rows:
            z = v[name]
            ce = ce + (-z[t] + numeric.log(total([numeric.exp(x) for x in z])))
        v[a.out] = ce / len(rows) if len(rows) > 1 else ce
    net.stage(("sum_exp", "p", a.out), run)


def backward(a: Apply, net) -> None:
    """∂loss/∂z for every row: the rule p − y (over the number of rows); the loss's own adjoint is 1."""
    rows = _rows(a)
    grads = [net.grad_group(name) for name, _ in rows]
    rule, n = softmax_xent_rule().grad_z, fmpq(len(rows))
    last = rows[-1][0]

    def run(v, ev):
        v["grad_" + a.out] = ONE
        for (name, t), g in zip(rows, grads):
            if name == last:
                p = v["p"]
            else:
                e = [numeric.exp(x) for x in v[name]]
                se = total(e)
                p = [x / se for x in e]
            accumulate(v, g, [rule(pv, ONE if j == t else ZERO, n) for j, pv in enumerate(p)], add)
    net.stage(("grad_" + a.out,) + tuple(grads), run)


@kept
def softmax_xent_rule() -> Rule:
    """loss = mean over n rows of −z_target + ln Σ_k exp(z_k); grad_z(p, y, n) = (p − y)/n.

    Derived on 4 generic logits (the target as a one-hot y, so −z_target = −Σ y_k z_k),
    ``exp(z_j)`` re-folded as p_j · sum_exp.

    >>> from flint import fmpq
    >>> softmax_xent_rule().grad_z(fmpq(1, 3), fmpq(0), fmpq(1))
    1/3
    """
    V = N_LOGITS
    z, y, p = real(f"z0:{V}"), real(f"y0:{V}"), real(f"p0:{V}")
    n, sum_exp = sympy.symbols("n sum_exp", positive=True)
    g = {"p": sympy.Symbol("p", real=True), "y": sympy.Symbol("y", real=True), "n": n}
    se = sympy.Add(*[sympy.exp(zk) for zk in z])
    loss = (-sympy.Add(*[yk * zk for yk, zk in zip(y, z)]) + sympy.log(se)) / n
    per = []
    for j in range(V):
        d = sympy.diff(loss, z[j]).xreplace({se: sum_exp})
        per.append(d.xreplace({sympy.exp(z[j]): p[j] * sum_exp}))
    want = stated(STATED, "softmax_xent", "grad_z", g)
    grad_z = generic("softmax_xent.grad_z", per, [{p[j]: g["p"], y[j]: g["y"]} for j in range(V)], want)
    # the literal −z_t form, p unfolded, for every target t and logit j
    for t in range(V):
        lit = (-z[t] + sympy.log(se)) / n
        for j in range(V):
            want = STATED["softmax_xent.grad_z"](sympy.exp(z[j]) / se, int(j == t), n)
            prove_equal(f"softmax_xent.grad_z (target {t}, logit {j})", sympy.diff(lit, z[j]), want)
    derived = {"grad_z": grad_z}
    return Rule(
        name="softmax_xent",
        forward={"loss": loss, **{f"p[{j}]": sympy.exp(z[j]) / se for j in range(V)}},
        symbols={"z0..z3": "logits of one row", "y0..y3": "one-hot target of the row",
                 "n": "number of rows the loss averages", "sum_exp": "Σ_k exp(z_k)",
                 "p": "p_j = exp(z_j)/sum_exp", "y": "y_j (1 at the target)"},
        derived=derived,
        checked=(f"∂loss/∂z_j = (p_j − y_j)/n for every logit j of {V} generic logits (one-hot y as symbols, "
                 f"and −z_t + ln Σ exp for each target t), by diff, then expand"),
        closures=closures(STATED, "softmax_xent", derived, g),
    )


def rules() -> list:
    return [softmax_xent_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): sum_exp, p, and the loss over the rows."""
    V, rows = a.opt("V"), len(_rows(a))
    return 1 + V + 1, 2 * V + 2 * V + rows * (2 * V + 2)


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# torch's ``softmax``, ``log_softmax`` and the adjoint of ``−log_softmax[target]`` (``F.cross_entropy``), each one
# composite kernel in the working type, rounded once.  Softmax subtracts the row maximum first and multiplies by
# 1/Σ; the loss is −log_softmax[target] and its adjoint exp(log_softmax) − onehot (torch's formula).  A loss over
# every position (``training.all_positions``) is the mean of −log p[next token] summed in position order, then ÷ T,
# each row's adjoint −1/T at its target (F.cross_entropy's mean; checked against it within the first-order bound).


def softmax(ar, x, mask=None):
    """Row softmax of (…, n): the row maximum subtracted, exp, times 1/Σ; masked entries (True) are −∞.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> [float(v) for v in softmax(ar, ar.cast([0, 0, 5]), mask=[False, False, True])]
    [0.5, 0.5, 0.0]
    """
    x = ar.w(x)
    if mask is not None:
        x = np.where(mask, ar.const(-math.inf), x)
    e = ar.wexp(x - ar.shift(x))
    return ar.out(e * ar.inv(ar.rowsum(e))[..., None])


def log_softmax(ar, x):
    """(x − max) − log Σ exp(x − max), with Σ and its log kept in the tensor's own format (torch's buffers).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> [round(float(v), 6) for v in log_softmax(ar, ar.cast([0, 0]))]
    [-0.693147, -0.693147]
    """
    x = ar.w(x)
    m = ar.shift(x)
    e = ar.wexp(x - m)
    ls = ar.keep(ar.wlog(ar.keep(ar.rowsum(e))))
    return ar.out((x - m) - ls[..., None])


def xent_grad(ar, logp, target, n: int = 1):
    """torch's adjoint of −log_softmax[target] (over n positions, the mean's share −1/n):
    g − exp(log p)·Σg with g = −onehot/n, i.e. (exp(log p) − onehot)/n.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> [float(v) for v in xent_grad(ar, log_softmax(ar, ar.cast([0, 0])), 1)]
    [0.5, -0.5]
    """
    g = ar.wzeros(np.shape(logp))
    g[target] = -(ar.const(1) / ar.const(n))
    return ar.out(g - ar.wexp(logp) * ar.rowsum(g))


def mean_nll(ar, logps, ys):
    """The mean over positions of −log p[y], summed in position order in the working type, then ÷ n.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> float(mean_nll(ar, [ar.cast([-1, -2]), ar.cast([-3, -4])], [0, 1]))
    2.5
    """
    acc = ar.const(0)
    for lp, y in zip(logps, ys):
        acc = acc - ar.w(lp)[y]
    return ar.out(acc / ar.const(len(ys)))


def _logp(row: str) -> str:
    """The log-probabilities of an earlier row, named after its logits (logits_at0 → logp_at0, z0 → logp_z0).

    >>> _logp("logits_at0"), _logp("z0")
    ('logp_at0', 'logp_z0')
    """
    return "logp" + row[len("logits"):] if row.startswith("logits") else "logp_" + row


def floats_forward(a: Apply, pipe) -> None:
    """Each earlier row's log p (beside its logits, the order the documents list them), then p and log p of the
    last row, and the loss: −log p[target], or the mean over the rows."""
    rows = _rows(a)
    last = rows[-1][0]
    for name, _ in rows[:-1]:
        pipe.add(_logp(name), [name], log_softmax, beside=name)
    pipe.add("p", [last], softmax)
    pipe.add("logp", [last], log_softmax)
    if len(rows) > 1:
        ys = [t for _, t in rows]
        pipe.add(a.out, [_logp(n) for n, _ in rows[:-1]] + ["logp"], lambda ar, *lps: mean_nll(ar, lps, ys))
    else:
        t = rows[0][1]
        pipe.add(a.out, ["logp"], lambda ar, lp: ar.sub(lp[t] * 0, lp[t]))
    pipe.decide("p", "top")
    pipe.decide(last, "top")


def floats_backward(a: Apply, pipe) -> None:
    """Each row's logits get torch's adjoint of its share of the loss."""
    rows = _rows(a)
    n = len(rows)
    for i, (name, t) in enumerate(rows):
        pipe.share(name, ["logp" if i == n - 1 else _logp(name)], lambda ar, lp, t=t: xent_grad(ar, lp, t, n))


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "sum_exp": Name("Σ_k exp(logits[k])", "Σ_k exp(logits[k])：softmax 的分母", (), r"\Sigma",
                    ("z", "分母", "sum", "和"), helper=True),
    "p": Name("next-token probabilities softmax(logits)", "下一个词元的概率 softmax(logits)", ("v",),
              aliases=("p", "prob", "概率", "百分比", "%"), of=(("log", ("ln", "log")),)),
    "loss": Name("cross-entropy −ln p[target]", "交叉熵损失 −ln p[目标]", (), r"\mathcal{L}", ("loss", "l", "损失")),
}
"""How its groups are called (:mod:`symgpt.ops.naming`)."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "softmax"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): the exponentials, their sum, the
probabilities; the loss is worked in the training section."""


def inner(a: Apply) -> tuple:
    """The statistic inside it (the softmax's sum), which a picture of the gradient's route passes through.

    >>> inner(Apply("softmax_xent", "loss", ("logits",)))
    ('sum_exp',)
    """
    return ("sum_exp",)
