"""The production extras of a bigram document (§4), computed by the engine.

A spec's ``[extras]`` (:class:`symgpt.engine.spec.Extras`) gives a mini-batch, a
clipping threshold and a warm-up + cosine schedule.  They are illustrations
beside the spec's own training, so each is run on a *variant* of the spec:

- the mini-batch: the spec with ``[data]`` set to the batch's first pair and
  ``training.examples`` to the whole batch, so :class:`symgpt.training.train.Trace`
  averages the loss and the gradient over it (clipping and schedule off);
- clipping: the same batch with ``training.clip`` set, read off the first
  update (``clip_coef``, torch's ``clip_grad_norm_``: c / (‖g‖ + 10⁻⁶) when
  below 1);
- the schedule: :func:`symgpt.training.train.lr_at` with the extras' warm-up, decay
  steps and min_lr, for AdamW's learning rate.

Every figure is a certified rounding (:func:`symgpt.core.numeric.certify`).

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> b = Batch(d)
>>> b.mean("grad_W[0,2]", 4), b.norm(4), b.coef(4)
('-0.0826', '0.3984', '1')
>>> [schedule_lr(d, k, 3) for k in (0, 1, 2, 6, 10, 11)]
['0.000333', '0.000667', '0.00100', '0.000550', '0.000100', '0.000100']
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

from flint import arb, ctx, fmpq

from ..core.numeric import certify, prec_for_digits, round_decimals, round_significant
from ..training.train import Trace, lr_at
from . import lowprec


def _cert(ball_at, fmt, what: str, n: int) -> str:
    return certify(ball_at, fmt, what=what, start=prec_for_digits(n + 10)).value


def decimals(ball_at, k: int, what: str) -> str:
    """A ball function's value certified at k decimals.

    >>> decimals(lambda prec: arb(2).sqrt(), 3, "√2")
    '1.414'
    """
    return _cert(ball_at, lambda b: round_decimals(b, k), what, k)


def significant(ball_at, n: int, what: str) -> str:
    """A ball function's value certified at n significant digits.

    >>> significant(lambda prec: arb(2).sqrt() / 1000, 3, "√2/1000")
    '0.00141'
    """
    return _cert(ball_at, lambda b: round_significant(b, n), what, n)


def variant(spec, examples, clip=None):
    """The spec trained on ``examples`` ((input ids, target id) pairs), the first as its [data].

    >>> import symgpt
    >>> s = variant(symgpt.load("bigram").spec, (((0,), 1),))
    >>> s.input, s.target, s.training.examples
    ((0,), 1, (((0,), 1),))
    """
    tr = dataclasses.replace(spec.training, examples=tuple(examples), clip=clip, warmup=0, decay_steps=0)
    (inp, tgt) = examples[0]
    return dataclasses.replace(spec, input=tuple(inp), target=tgt, training=tr)


class Batch:
    """The extras' mini-batch: each example's model, the mean over the batch, and clipping."""

    def __init__(self, d):
        s = d.spec
        model = type(d)             # a symgpt.Derivation, made from the variant spec under d's limits
        self.d, self.pairs = d, s.extras.batch
        self.models = [d if (s.input[-1:], s.target) == (inp, tgt) else model(variant(s, ((inp, tgt),)),
                                                                                 limits=d.limits)
                       for inp, tgt in self.pairs]
        self.mean_model = model(variant(s, self.pairs), limits=d.limits)
        self.trace = Trace(self.mean_model, "sgd", 1)
        self.clipped = Trace(model(variant(s, self.pairs, s.extras.clip), limits=d.limits), "sgd", 1)

    def example(self, i: int, ref: str, k: int) -> str:
        """Example i's own value of ``ref`` (loss, grad_W[0,2] …) at k decimals."""
        return self.models[i].value(ref, decimals=k)

    def mean(self, ref: str, k: int) -> str:
        """The batch mean of ``loss`` or a gradient at k decimals."""
        return self.trace.value(0, ref, decimals=k)

    def _norm(self, prec):
        grads = self.trace.states(prec)[0].grads
        with ctx.workprec(prec):
            return arb(sum((g * g for g in grads.values()), fmpq(0))).sqrt()

    def norm(self, k: int) -> str:
        """‖g‖, the Euclidean norm of the mean gradient over every parameter."""
        return decimals(self._norm, k, "the gradient's norm")

    def _coef(self, prec):
        return self.clipped.states(prec)[1].clip_coef

    def coef(self, k: int) -> str:
        """The clipping coefficient min(1, c / (‖g‖ + 10⁻⁶)); exactly 1 when no clipping happens."""
        return decimals(self._coef, k, "the clipping coefficient") if self.clips() else "1"

    def clips(self) -> bool:
        """Whether the threshold cuts the gradient (the coefficient is below 1)."""
        return not (isinstance(self._coef(128), fmpq) and self._coef(128) == 1)

    def clipped_grad(self, name: str, k: int) -> str:
        """A parameter's clipped gradient (the mean gradient times the coefficient)."""
        def ball(prec):
            s = self.clipped.states(prec)
            with ctx.workprec(prec):
                return s[0].grads[name] * s[1].clip_coef
        return decimals(ball, k, f"the clipped gradient of {name}")


def schedule_lr(d, step: int, n: int) -> str:
    """AdamW's learning rate at update ``step`` (0-based) under the extras' schedule, n significant digits."""
    s = d.spec
    tr = dataclasses.replace(s.training, warmup=s.extras.warmup, decay_steps=s.extras.decay_steps,
                             min_lr=s.extras.min_lr)
    spec = dataclasses.replace(s, training=tr)

    def ball(prec):
        with ctx.workprec(prec):
            return lr_at(spec, s.training.adamw.lr, step)
    return significant(ball, n, f"the learning rate at step {step}")


def bf16_step(d) -> dict:
    """The first SGD step of the spec's example in bfloat16 (:func:`symgpt.floats.lowprec.bigram_step`)."""
    s = d.spec
    F = lambda q: Fraction(int(q.p), int(q.q))
    return lowprec.bigram_step([[F(q) for q in r] for r in s.params["E"]], [[F(q) for q in r] for r in s.params["W"]],
                               s.input[-1], s.target, F(s.training.lr))


def error(d, ref: str, value: Fraction, n: int) -> str:
    """value − (the exact quantity ``ref``), certified at n significant digits ('0' when equal)."""
    q = fmpq(value.numerator, value.denominator)
    return significant(lambda prec: q - d.ball(ref, prec), n, f"the error of {ref}")


def exact_decimals(q: Fraction, k: int) -> str:
    """An exact rational rounded to k decimals.

    >>> exact_decimals(Fraction(13421773, 2 ** 27), 4)
    '0.1000'
    """
    return round_decimals(fmpq(q.numerator, q.denominator), k)
