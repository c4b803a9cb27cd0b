"""Training: gradient checks, SGD and AdamW traces, clipping, schedules, batches.

A trace holds the states of N updates, ``states[k]`` being the model after k
updates (``sgd[0]`` is the initial model).  Every number in it is an arb
ball at a working precision; asking for more certified digits than a
precision gives recomputes the whole trace at a higher one.  The first
update of a spec's own weights is also available exactly, as expressions
over named quantities (``θ − η·grad_θ``).

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> t = Trace(d, "sgd", 20)
>>> [t.value(k, "loss", decimals=4) for k in (0, 1, 4, 9, 19)]
['1.0515', '0.8894', '0.2890', '0.0450', '0.0125']
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from flint import arb, ctx, fmpq

from ..core.errors import InputError, LimitError
from ..core.limits import Limits
from ..core.markup import exact_text, latex_table, md_code, md_table, md_text, tex_number
from ..core.numeric import (
    UndecidableError,
    certify,
    count,
    float64_values,
    magnitude,
    prec_for_digits,
    round_decimals,
    round_significant,
    to_flint,
)
from ..engine import cost
from ..engine.models import differentiated
from ..engine.names import Ref, RefError, base
from ..engine.names import learnable as _learnable
from ..engine.net import Net
from ..engine.spec import number
from ..engine.values import TensorEvaluator
from ..ops import NAMES

NO_DECAY = tuple(name for name, n in NAMES.items() if n.kind == "param" and not n.decays)
"""The parameters AdamW does not decay under ``training.decay_groups``: nanoGPT-style groups (the biases and the
norms' γ, β), plus the embedding; each op's names facet says which of its parameters (:mod:`symgpt.ops.naming`)."""


def model_arg(d, what: str = "d"):
    """A model argument: a loaded derivation (anything with ``spec`` and the engine's ``_ev``).

    >>> model_arg("bigram")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: d: expected a loaded derivation such as symgpt.load("bigram"), got 'bigram'
    """
    if not all(hasattr(d, a) for a in ("spec", "_ev")):
        raise InputError(f'{what}: expected a loaded derivation such as symgpt.load("bigram"), got {d!r:.80}')
    return d


def learnable(d) -> list:
    """Names of the parameters an optimizer updates, in definition order.

    ``d`` is a model: anything with ``spec`` (a Derivation).

    >>> import symgpt
    >>> learnable(symgpt.load("bigram"))[-1]
    'W[1,2]'
    """
    model_arg(d)
    return _learnable(d.spec)


def param_count(d) -> int:
    """The number of trainable scalars (the norms' γ, β only with ``training.learnable_ln``).

    >>> import symgpt
    >>> param_count(symgpt.load("tiny-transformer")), param_count(symgpt.load("bigram"))
    (46, 12)
    """
    return len(learnable(d))


def lr_at(spec, lr0, it: int):
    """nanoGPT's schedule: linear warm-up, then cosine decay to min_lr.

    ``it`` is the 0-based update index.  Without ``decay_steps`` the rate is
    constant after the warm-up.  Exact when the
    arithmetic allows (fmpq), a ball otherwise.
    """
    tr = spec.training
    lr0 = to_flint(lr0)
    if tr.decay_steps == 0 and tr.warmup == 0:
        return lr0
    if it < tr.warmup:
        return lr0 * fmpq(it + 1, tr.warmup + 1)
    if tr.decay_steps == 0:  # warm-up only, then constant
        return lr0
    if it > tr.decay_steps:
        return to_flint(tr.min_lr)
    ratio = fmpq(it - tr.warmup, tr.decay_steps - tr.warmup)
    coeff = (1 + (arb.pi() * ratio).cos()) / 2 if ratio not in (0, 1) else fmpq(1 - ratio)
    return to_flint(tr.min_lr) + coeff * (lr0 - to_flint(tr.min_lr))


@dataclass
class State:
    """The model after ``step`` updates: what every state keeps (the loss, p, the update that made it).

    Its parameters, gradients and AdamW moments (``params``, ``grads``, ``m``, ``v``) are kept
    for checkpoints only on a large model (:data:`KEEP_ENTRIES`); :meth:`Trace.full` recomputes
    them for any state, the same balls at the same precisions.
    """
    step: int
    prec: int                          # the working precision of this state's pass (bits)
    loss: object = None
    p: list = field(default_factory=list)
    lr: object = None                  # learning rate of the update that made it
    clip_coef: object = None
    ties: set = field(default_factory=set)      # ReLU inputs exactly 0 here
    open: set = field(default_factory=set)      # ReLU inputs whose sign no ball settled (both branches kept)
    params: dict | None = None         # name -> value (None: not kept, see Trace.full)
    grads: dict | None = None          # gradient at this state
    m: dict | None = None
    v: dict | None = None
    exhausted: bool = False            # the balls had no bit left before this state: everything is unknown
    cause: str = ""                    # why, when a decision (a clipping threshold) could not be made
    bits: float = math.inf             # how much of its loss and gradient is known (:func:`accuracy`)


KEEP_ENTRIES = 2_000_000
KEPT_PASSES = 4        # passes at different precisions a small trace keeps (a ref's size is read at 128, 512, 2048
#                        bits, its enclosure at another: two kept made every candidate of a state run the trace again)
"""How many parameter-sized balls (parameters, gradients, moments) a trace keeps across its states;
beyond it only every c-th state keeps them (checkpoints) and the others are recomputed when read."""

CALIBRATE = 256
"""The precision of the first, cheap trace that measures how fast a trace's balls widen (:meth:`Trace.start`)."""

GUARD = 32
"""Bits a state's pass works above the accuracy its parameters still have (rounding stays negligible)."""


SAMPLE = 8192
"""How many entries of a state :func:`accuracy` reads at most (evenly spread)."""


def accuracy(*tensors: dict) -> float:
    """Bits between the largest magnitude and the widest radius, tensor by tensor (the least of them):
    how much of a state is still known.  Exact entries count as known to every bit.

    >>> x = arb(1) / 3
    >>> accuracy({"W[0,0]": x, "W[0,1]": fmpq(1)}) > 50, accuracy({"W[0,0]": fmpq(1, 3)})
    (True, inf)
    """
    worst = math.inf
    for t in tensors:
        groups: dict = {}
        step = max(1, len(t) // SAMPLE)  # a big state: an even sample (it only steers the precision)
        for name, x in list(t.items())[::step]:
            if isinstance(x, fmpq):
                continue
            big, rad = groups.get(name.partition("[")[0], (-math.inf, -math.inf))
            groups[name.partition("[")[0]] = (max(big, _log2(x.mid())), max(rad, _log2(x.rad())))
        for big, rad in groups.values():
            if rad > -math.inf and big > -math.inf:  # (balls around 0 alone say nothing of a scale)
                worst = min(worst, big - rad)
    return worst


def _log2(x) -> float:
    """An integer close to log2|x| of an exact arb (mid or rad), −inf for 0 and +inf when not finite."""
    if x == 0:
        return -math.inf
    if not x.is_finite():
        return math.inf
    man, exp = x.man_exp()
    return int(exp) + int(man).bit_length()


def step_arg(optimizer: str, steps: int, k, ref="loss") -> None:
    """Check the arguments ``(k, ref)`` of a reading of a trace: a step number and a quantity name.

    >>> step_arg("sgd", 20, "loss", 3)
    Traceback (most recent call last):
    ...
    symgpt.engine.names.RefError: sgd['loss']: k: expected a step number 0..20 of the sgd trace (an int), got 'loss' (arguments swapped? the call is value(k, ref), k the step)
    """  # noqa: E501
    swapped = isinstance(k, str) and isinstance(ref, int) and not isinstance(ref, bool)
    hint = " (arguments swapped? the call is value(k, ref), k the step)" if swapped else ""
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= steps:
        raise RefError(f"{optimizer}[{k!r}]: k: expected a step number 0..{steps} of the "
                       f"{optimizer} trace (an int), got {k!r}{hint}")
    if not isinstance(ref, (str, Ref)) or (isinstance(ref, str) and not ref.strip()):
        raise RefError(f"ref: expected a quantity name such as 'loss' or 'p[0]' (a string), got {ref!r}{hint}")


def rounding(digits, decimals, limits: Limits | None = None):
    """(fmt, n) of a reading: ``fmt`` rounds a ball to ``digits`` significant digits (15 when neither
    is given) or to ``decimals`` places, ``n`` the digits it needs; both checked against ``limits``.

    >>> fmt, n = rounding(None, 3)
    >>> fmt(fmpq(2, 3)), n
    ('0.667', 13)
    >>> rounding(-1, None)
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: digits: expected an integer ≥ 1, got -1
    """
    if digits is not None and decimals is not None:
        raise InputError(f"digits, decimals: expected one of them, got digits={digits!r} and "
                         f"decimals={decimals!r}")
    limits = limits or Limits()
    if decimals is not None:
        count("decimals", decimals, 0, limits)
        return (lambda b: round_decimals(b, decimals)), decimals + 10
    digits = 15 if digits is None else count("digits", digits, 1, limits)
    return (lambda b: round_significant(b, digits)), digits


def max_prec(limits: Limits | None = None) -> int:
    """The highest working precision a reading may ask for: 4 × the bits of ``limits.max_digits``.

    >>> max_prec(Limits(max_digits=1000))
    13480
    """
    return 4 * prec_for_digits((limits or Limits()).max_digits)


def precision(prec, limits: Limits | None = None) -> int:
    """A working precision in bits: an integer from 2 to 4 × the bits of ``limits.max_digits``.

    >>> precision(128)
    128
    >>> precision(10 ** 9)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: prec: 1000000000 bits asked, above the limit 13480 bits
        (4 × the bits of --max-digits; symgpt.Limits(max_digits=…) in Python)
    """
    top = max_prec(limits)
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 2:
        raise InputError(f"prec: expected an integer ≥ 2 (bits), got {prec!r}")
    if prec > top:
        raise LimitError(f"prec: {prec} bits asked, above the limit {top} bits "
                         f"(4 × the bits of --max-digits; symgpt.Limits(max_digits=…) in Python)")
    return prec


class Shown:
    """How a notebook shows a trace: one line, and a table of certified losses (Markdown, LaTeX).

    A trace has ``d``, ``optimizer``, ``steps``, ``names`` (its learnable parameters),
    ``_lr()`` and ``value(k, ref, digits=…)``.
    """

    def __repr__(self) -> str:
        """One line, computing nothing: optimizer, spec, steps, parameters, learning rate.

        >>> import symgpt
        >>> symgpt.load("bigram").trace("sgd")
        <Trace sgd of bigram: 20 steps (states sgd[0]..sgd[20]), 12 parameters, lr 0.5>
        """
        return (f"<Trace {self.optimizer} of {self.d.spec.name}: {self._steps_text()} (states "
                f"{self.optimizer}[0]..{self.optimizer}[{self.steps}]), {len(self.names)} parameters, "
                f"lr {self._lr()}>")

    def _steps_text(self) -> str:
        return f"{self.steps} step" + ("" if self.steps == 1 else "s")

    def shown_steps(self) -> list:
        """The steps a summary table shows: 0 (before any update), the spec's ``training.report`` steps this
        trace reaches, and its last step.

        >>> import symgpt
        >>> symgpt.load("bigram").trace("sgd").shown_steps()        # report = [1, 2, 5, 10, 20]
        [0, 1, 2, 5, 10, 20]
        >>> Trace(symgpt.load("bigram"), "sgd", 7).shown_steps()
        [0, 1, 2, 5, 7]
        """
        return sorted({0, self.steps} | {k for k in self.d.spec.training.report if k <= self.steps})

    def loss_table(self, digits: int = 10) -> list:
        """(k, certified loss at ``digits`` significant digits) for the :meth:`shown_steps`."""
        return [(k, self.value(k, "loss", digits=digits)) for k in self.shown_steps()]

    def _repr_markdown_(self) -> str:
        t = self.optimizer                                  # the tour's variable: sgd = d.trace("sgd")
        rows = [[md_code(f"{t}[{k}].loss"), v] for k, v in self.loss_table()]
        return "\n".join([
            f"**{md_text(self.optimizer)}** trace of {md_code(self.d.spec.name)}: {self._steps_text()}, "
            f"{len(self.names)} parameters, lr {self._lr()}"
            + (", AdamW" if self.optimizer == "adamw" else "") + ". The loss before and after updates "
            "(certified, 10 significant digits):", "",
            md_table(["state", "loss"], rows, align="lr"), "",
            "Any quantity of a state: " + md_code(t + '.value(k, "p[0]", digits=20)') + " (with "
            + md_code(f'{t} = d.trace("{t}")') + "), " + md_code(f'd.value("{t}[1].loss")') + "."])

    def _repr_latex_(self) -> str:
        rows = [[str(k), tex_number(v)] for k, v in self.loss_table()]
        name = self.optimizer.replace("_", r"\_")        # sgd_wrong_order in \text{…}
        return "$$" + latex_table([r"k", rf"\mathcal{{L}}(\theta_k)\ \text{{({name})}}"], rows, align="rr") + "$$"


class Trace(Shown):
    """N steps of SGD or AdamW from a model's spec, at any precision.

    ``d`` is the model on the spec's own example: ``spec``, ``net``, ``ev``
    and ``registry`` (a :class:`symgpt.Derivation` is one).  ``build(tokens,
    target)`` builds the model (a :class:`symgpt.engine.net.Net`, with gradients) of
    each further training example; by default ``Net(spec, tokens, target)``.
    Every state runs on tensors (:class:`symgpt.engine.values.TensorEvaluator`).
    """

    def __init__(self, d, optimizer: str = "sgd", steps: int | None = None, build=None):
        model_arg(d)
        if optimizer not in ("sgd", "adamw"):
            raise InputError(f"optimizer: expected 'sgd' or 'adamw', got {optimizer!r}")
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 0):
            raise InputError(f"steps: expected an integer ≥ 0, got {steps!r}")
        build = build or (lambda tokens, target: Net(d.spec, tokens, target))
        self.d, self.optimizer = d, optimizer
        self.steps = d.spec.training.steps if steps is None else steps
        cost.check_trace(d.spec, getattr(d, "limits", None), self.steps)
        self.names = learnable(d)
        self.examples = [d._net] + [build(tok, tgt) for tok, tgt in d.spec.training.examples[1:]]
        self._by_prec: dict[int, list] = {}
        self._example_evs: dict[int, TensorEvaluator] = {}   # example b's evaluator at the spec's weights
        self._floor = 0  # lowest precision known to decide every sign of the trace
        self._loss_per_step = None  # (bits state 0's pass loses, bits per update, measured?): start()
        self._full = self._ev = None  # the last state recomputed in full, the last state's evaluator
        # AdamW's (β1, β2, ε, λ) as fmpq, and the parameters that decay (with decay_groups, not those of
        # NO_DECAY: the embedding, the biases, the norms)
        tr = d.spec.training
        a = tr.adamw
        self._adam = (*(to_flint(x) for x in (a.beta1, a.beta2, a.eps, a.weight_decay)),
                      {n for n in self.names if not tr.decay_groups or base(n.partition("[")[0]) not in NO_DECAY})

    def _graph_of(self, ex):
        """The per-scalar graph of an example, built only if an exact test needs it (a ReLU tie at state 0)."""
        return _graph_of(self.d, ex)

    def _lr(self) -> str:
        tr = self.d.spec.training
        return exact_text(tr.lr if self.optimizer == "sgd" else tr.adamw.lr)

    # -- the computation ------------------------------------------------------
    def _evaluate(self, leaves, prec):
        """(mean loss, p of the spec's example, mean gradient, ties, open signs) at the given parameters."""
        with ctx.workprec(prec):  # the sums and the mean round at the pass's precision
            return self._mean(leaves, prec)

    def _mean(self, leaves, prec):
        loss, grads, ties, open_ = 0, {n: 0 for n in self.names}, set(), set()
        for ex in self.examples:
            ev = TensorEvaluator(ex, dict(leaves), graph=self._graph_of(ex))
            vals = ev.values(prec)
            loss = loss + vals[ev.index("loss")]
            for group in dict.fromkeys(n.partition("[")[0] for n in self.names):
                for n, g in ev.flat("grad_" + group, prec).items():
                    n = n[len("grad_"):]
                    if n in grads:
                        grads[n] = grads[n] + g
            ties |= ev.ties
            if ex is self.d._net:
                open_ = set(ev.open)
                p = [vals[ev.index(f"p[{v}]")] for v in range(self.d.spec.V)]
            ev.release()
        k = len(self.examples)
        if k > 1:
            loss = loss / k
            grads = {n: g / k for n, g in grads.items()}
        return loss, p, grads, ties, open_

    def _keep_every(self) -> int:
        """Keep parameters, gradients and moments at every c-th state (c = 1 for a small model)."""
        per_state = len(self.names) * (4 if self.optimizer == "adamw" else 2)
        return max(1, math.ceil(per_state * (self.steps + 1) / KEEP_ENTRIES))

    def states(self, prec: int) -> list:
        """All states, the first pass at ``prec`` bits (memoised).

        A state's balls are as wide as the updates before it made them, so each pass works only
        :data:`GUARD` bits above the accuracy its parameters still have: the precision falls along
        the trace.  When nothing is left, the remaining states are marked ``exhausted`` (their
        values read as unknown, so :meth:`value` asks for more bits).
        """
        if prec in self._by_prec:
            self._by_prec[prec] = self._by_prec.pop(prec)  # most recently used last
            return self._by_prec[prec]
        cost.check_run(self.d.spec, prec, (self.steps + 1) * len(self.examples), getattr(self.d, "limits", None),
                       what=f"the {self.optimizer} trace ({self.steps} steps)")
        params = {n: to_flint(self.d._registry.graph.nodes[n].value) for n in self.names}
        m = {n: fmpq(0) for n in self.names}
        v = {n: fmpq(0) for n in self.names}
        keep, out, work, lr, coef = self._keep_every(), [], prec, None, None
        for k in range(self.steps + 1):
            loss, p, grads, ties, open_ = self._evaluate(params, work)
            kept = k % keep == 0 or k == self.steps
            out.append(State(k, work, loss, p, lr, coef, ties, open_, *(
                (params, grads, m, v) if kept else (None,) * 4), bits=accuracy(grads, {"loss": loss})))
            if k == self.steps:
                break
            try:
                params, m, v, lr, coef = self._update(k, params, m, v, grads, work)
            except UndecidableError as e:  # e.g. whether the norm exceeds the clipping threshold: more bits
                out += [State(j, work, exhausted=True, cause=str(e)) for j in range(k + 1, self.steps + 1)]
                break
            left = accuracy(params, m, v)
            if left < 1:  # no bit left: the rest is unknown at this precision
                out += [State(j, work, exhausted=True) for j in range(k + 1, self.steps + 1)]
                break
            if left < math.inf:  # (every parameter still exact: the same precision)
                work = min(work, max(64, math.ceil(left) + GUARD))
        self._by_prec[prec] = out
        small = len(self.names) * (4 if self.optimizer == "adamw" else 2) * (self.steps + 1) <= KEEP_ENTRIES // 8
        while len(self._by_prec) > (KEPT_PASSES if small else 2):   # (a small trace: every precision asked for)
            self._by_prec.pop(next(iter(self._by_prec)))
        return out

    def _update(self, k, params, m, v, grads, prec):
        """The update that makes state k + 1: (params, m, v, lr, clip coefficient), new dicts."""
        spec, tr = self.d.spec, self.d.spec.training
        with ctx.workprec(prec):
            grads, coef = self._clip(grads)
            lr = lr_at(spec, tr.lr if self.optimizer == "sgd" else tr.adamw.lr, k)
            if self.optimizer == "sgd":
                params = {n: params[n] - lr * grads[n] for n in self.names}
            else:
                params, m, v = self._adamw(params, grads, m, v, k + 1, lr)
        self._bounded(k + 1, params)
        return params, m, v, lr, coef

    def full(self, prec: int, k: int) -> State:
        """State k of the trace at ``prec`` with its parameters, gradients and moments, recomputed from the
        last kept state before it when it did not keep them (the same precisions, so the same balls)."""
        states = self.states(prec)
        s = states[k]
        if s.params is not None or s.exhausted:
            return s
        if self._full is not None and self._full[:2] == (prec, k):
            return self._full[2]
        j = max(i for i in range(k) if states[i].params is not None)
        params, m, v, grads = states[j].params, states[j].m, states[j].v, states[j].grads
        for i in range(j, k):
            params, m, v, _, _ = self._update(i, params, m, v, grads, states[i].prec)
            _, _, grads, _, _ = self._evaluate(params, states[i + 1].prec)
        full = State(**{**s.__dict__, "params": params, "grads": grads, "m": m, "v": v})
        self._full = (prec, k, full)
        return full

    def _lr_key(self) -> str:
        """The learning rate's key and value, a long value in 3 figures (``training.lr = 1.00e+400``)."""
        tr = self.d.spec.training
        key, lr = ("training.adamw.lr", tr.adamw.lr) if self.optimizer == "adamw" else ("training.lr", tr.lr)
        return f"{key} = {lr if len(str(lr)) <= 20 else sympy.Float(lr, 3)}"

    def _bounded(self, k: int, params: dict) -> None:
        """Refuse a state whose parameters grew past 10^max_digits.  (A non-finite
        ball only needs more bits: :func:`certify` raises the precision.)"""
        limits = getattr(self.d, "limits", None) or Limits()
        for n, x in params.items():
            if limits.max_digits < magnitude(x) < math.inf:
                raise LimitError(
                    f"{self.d.spec.path}: {self._lr_key()} drives {self.optimizer}[{k}].{n} beyond "
                    f"10^{limits.max_digits}; lower the learning rate or training.steps "
                    f"(--max-digits; symgpt.Limits(max_digits=…) in Python)")

    def _clip(self, grads):
        """torch.nn.utils.clip_grad_norm_: g·min(1, c/(‖g‖ + 1e-6))."""
        c = self.d.spec.training.clip
        if c is None:
            return grads, fmpq(1)
        norm = arb(sum((x * x for x in grads.values()), fmpq(0))).sqrt()
        coef = to_flint(c) / (norm + fmpq(1, 10 ** 6))
        if coef >= 1:
            return grads, fmpq(1)
        if not coef < 1:
            raise UndecidableError("clipping: cannot decide whether the norm exceeds the threshold")
        return {n: x * coef for n, x in grads.items()}, coef

    def _adamw(self, params, grads, m, v, t, lr):
        """One AdamW update (torch.optim.AdamW): decoupled weight decay, moments, bias correction.
        Returns the new (params, m, v)."""
        b1, b2 = self._adam[:2]
        c1, c2 = 1 - b1, 1 - b2
        decay, adaptive = self._adam_rules(t, lr)
        m = {n: b1 * m[n] + c1 * grads[n] for n in self.names}
        v = {n: b2 * v[n] + c2 * grads[n] * grads[n] for n in self.names}
        return {n: params[n] - decay(n, params[n]) - adaptive(m[n], v[n]) for n in self.names}, m, v

    def _adam_rules(self, t: int, lr):
        """(decay(n, θ), adaptive(m, v)) of update t: η·λ·θ (0 for a parameter that does not decay)
        and η·m̂/(√v̂ + ε) with m̂ = m/(1 − β1^t), v̂ = v/(1 − β2^t); the update and a reading share them."""
        b1, b2, eps, wd, decaying = self._adam
        rate, c1, c2, zero = lr * wd, 1 - b1 ** t, 1 - b2 ** t, fmpq(0)

        def decay(n, theta):
            return rate * theta if n in decaying else zero

        def adaptive(m, v):
            vhat = v / c2
            root = arb(vhat).sqrt() if not isinstance(vhat, fmpq) or vhat != 0 else zero
            return lr * (m / c1) / (root + eps)
        return decay, adaptive

    def _moment(self, prec: int, k: int, what: str, n: str):
        """An AdamW quantity of state k ≥ 1: m, v, or (recomputed, as the update did) m̂, v̂, update, decay."""
        s = self.full(prec, k)
        if s.exhausted:
            return arb.nan()
        if what in ("m", "v"):
            return getattr(s, what)[n]
        b1, b2 = self._adam[:2]
        with ctx.workprec(self.states(prec)[k - 1].prec):  # as the update computed them
            decay, adaptive = self._adam_rules(k, s.lr)
            if what == "decay":
                return decay(n, self.full(prec, k - 1).params[n])
            if what == "update":
                return adaptive(s.m[n], s.v[n])
            return s.m[n] / (1 - b1 ** k) if what == "mhat" else s.v[n] / (1 - b2 ** k)

    # -- reading it -------------------------------------------------------
    def _step(self, k, ref="loss") -> None:
        step_arg(self.optimizer, self.steps, k, ref)

    def ball(self, k: int, ref, prec: int):
        """A quantity of state k: loss, p[v], a parameter, grad_<param>, m[param], …

        ``ref`` is a name (``m[W,0,2]``) or its :class:`symgpt.engine.names.Ref`.  Any
        other node (``logits[v]``, ``A[1,0]``, ``grad_Q[0,1]``) is read from the
        forward and backward pass of the spec's own example at that state.
        ``prec`` is the precision wanted of the result: the trace starts higher (:meth:`start`).
        """
        self._step(k, ref)
        limits = getattr(self.d, "limits", None)
        precision(prec, limits)
        r = ref if isinstance(ref, Ref) else self.d._registry.state(ref, self.optimizer)
        prec = self.start(prec)
        if prec > max_prec(limits):
            first, per_step, measured = self._loss_per_step
            why = (f"its balls lose about {per_step} bits per update and {first} in a pass" if measured else
                   f"its balls kept no bit over two updates even at {per_step} bits")
            raise LimitError(f"{self.d.spec.path}: {self.optimizer}[{k}].{r.name}: the trace would start at "
                             f"{prec} bits ({why}), above the limit {max_prec(limits)} bits (4 × the bits of "
                             f"--max-digits; symgpt.Limits(max_digits=…) in Python)")
        s = self.states(prec)[k]
        if k == 0 and r.part in ("moment", "lr", "clip_coef"):
            raise RefError(f"{self.optimizer}[0].{r.name}: {'AdamW state' if r.part == 'moment' else r.part} "
                           f"is defined after an update (k ≥ 1)")
        if s.exhausted:  # nothing known at this precision: more bits
            if s.cause:
                raise UndecidableError(s.cause)
            return arb.nan()
        if r.part in ("loss", "lr", "clip_coef"):
            return getattr(s, r.part)
        if r.part == "p":
            return s.p[r.index[0]]
        if r.part == "moment":
            return self._moment(prec, k, r.group, r.node)
        if r.part == "grad":
            return self.full(prec, k).grads[r.node[len("grad_"):]]  # the (mini-batch mean) gradient
        if r.part == "param":
            return self.full(prec, k).params[r.node]
        return self._nodes(prec, k).ball(r.node, s.prec)  # any other node, at this state's parameters

    def example_ball(self, b: int, node: str, prec: int):
        """A node of training example b (0: the spec's own) at the spec's weights, at ``prec`` bits.

        >>> import symgpt
        >>> d = symgpt.load("bigram")
        >>> d.trace("sgd").example_ball(0, "loss", 64).overlaps(d.ball("loss", 64))
        True
        """
        if b not in self._example_evs:
            params = {n: to_flint(self.d._registry.graph.nodes[n].value) for n in self.names}
            ex = self.examples[b]
            self._example_evs[b] = TensorEvaluator(ex, params, graph=self._graph_of(ex))
        return self._example_evs[b].ball(node, prec)

    def _nodes(self, prec: int, k: int) -> TensorEvaluator:
        """The evaluator of the spec's own example at state k (the last one asked for is kept)."""
        if self._ev is None or self._ev[:2] != (prec, k):
            self._ev = (prec, k, TensorEvaluator(self.d._net, dict(self.full(prec, k).params),
                                                 graph=self._graph_of(self.d._net)))
        return self._ev[2]

    def start(self, bits: int) -> int:
        """The precision a trace starts at so that every state keeps about ``bits`` bits.

        Measured, not guessed: a first trace at a low precision tells how many bits state 0's pass
        loses to rounding and how many each update costs (the balls widen with every update, by
        however much the model's size makes them), and the start covers both with a margin.

        >>> import symgpt
        >>> t = symgpt.load("bigram").trace("sgd")
        >>> 128 < t.start(128) < 128 + 16 * t.steps
        True
        """
        if self._loss_per_step is None:
            self._calibrate()
        first, per_step, _ = self._loss_per_step
        need = bits + first + math.ceil(1.1 * per_step * self.steps)
        return max(-(-need // 64) * 64, self._floor)

    def _calibrate(self) -> None:
        """Bits lost by state 0's pass and per update, read off a trace at :data:`CALIBRATE` bits
        (at 4 × that when the balls ran out before two states could be compared)."""
        for cal in (CALIBRATE, 4 * CALIBRATE):
            known = [s.bits for s in self.states(cal) if not s.exhausted]
            steps = [a - b for a, b in zip(known, known[1:]) if a < math.inf and b > 16]
            measured = bool(steps) or len(known) == self.steps + 1
            if measured:
                break
        first = cal - min(max(known[0], 0), cal) if known else cal
        self._loss_per_step = (first, max(steps + [8]) if measured else cal, measured)

    def relu_ties(self, k: int) -> list:
        """ReLU inputs exactly 0 at state k, where ReLU'(0) = 0 was used.

        Only the spec's own weights (state 0, exact) can prove a tie; a
        later state whose ReLU input cannot be separated from 0 raises
        UndecidableError instead of guessing.
        """
        self._step(k)
        prec = self.start(prec_for_digits(30))
        if k == 0:
            ev = self.d._ev
            ev.values(prec)
            return sorted(ev.ties)
        s = self.states(prec)[k]
        for _ in range(3):  # a sign left open (or a state out of bits) at one precision may settle at a higher one
            if (not s.open and not s.exhausted) or 2 * prec > max_prec(getattr(self.d, "limits", None)):
                break
            prec *= 2
            s = self.states(prec)[k]
        if s.exhausted:
            raise UndecidableError(f"{self.d.spec.path}: {self.optimizer}[{k}]: the trace's balls have no bit left "
                                   f"at {prec} bits; its ReLU signs are unknown there"
                                   + (f" ({s.cause})" if s.cause else ""))
        if s.open:
            raise UndecidableError(
                f"{self.d.spec.path}: {self.optimizer}[{k}]: cannot decide whether "
                f"{', '.join(sorted(s.open))} is exactly 0 (a ReLU tie): its enclosure contains 0 and its "
                f"inputs are balls, not exact numbers; the trace's values enclose both branches")
        return sorted(s.ties)

    def value(self, k: int, ref: str, digits=None, decimals=None) -> str:
        """Certified string of a state's quantity (recomputing at higher precision if needed)."""
        self._step(k, ref)
        fmt, n = rounding(digits, decimals, getattr(self.d, "limits", None))

        def ball_at(prec):
            try:
                return self.ball(k, ref, prec)
            except UndecidableError:  # a ReLU sign needs tighter balls: go up for good
                self._floor = max(self._floor, 2 * self.start(prec))
                raise
        start = prec_for_digits(n) + GUARD
        try:
            return certify(ball_at, fmt, what=f"{self.optimizer}[{k}].{ref}", start=start).value
        except UndecidableError as e:
            if "cannot enclose" in str(e):
                raise LimitError(f"{self.d.spec.path}: {self._lr_key()} drives {self.optimizer}[{k}].{ref} "
                                 f"out of every enclosure the precision limit allows: {e}") from None
            raise UndecidableError(f"{self.d.spec.path}: {e}") from None


def first_step_exact(d, lr=None, grad="grad_") -> dict:
    """θ − η·grad_θ for every learnable parameter, as exact expressions.

    ``grad`` is the prefix of the gradient nodes (``grad_``); ``lr`` an exact number > 0.

    >>> import symgpt
    >>> first_step_exact(symgpt.load("bigram"))["W[0,2]"]
    1/10 - grad_W[0,2]/2
    """
    lr = d.spec.training.lr if lr is None else exact_number(lr, "lr", low=0)
    g = d.graph
    names = learnable(d)
    if not isinstance(grad, str) or not all(grad + n in g.nodes for n in names):
        raise InputError(f"grad: expected the prefix of a gradient node of every parameter ('grad_'), "
                         f"got {grad!r}")
    return {n: g.nodes[n].value - lr * g.sym(grad + n) for n in names}


def exact_number(x, name: str, low=None, high=None) -> sympy.Rational:
    """A user's number as an exact Rational: an int, a sympy.Rational, a Fraction
    or decimal text ("1e-5", "1/3"); a float is refused (it is not the number
    its text shows).  ``low < x`` and ``x ≤ high`` when given.

    >>> exact_number("1e-5", "h", low=0), exact_number(Fraction(1, 3), "h")
    (1/100000, 1/3)
    >>> exact_number(0.1, "h")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: h: expected an exact number (an int, a sympy.Rational, a Fraction
    or text such as "0.1"), got the float 0.1
    """
    if isinstance(x, float):
        raise InputError(f'{name}: expected an exact number (an int, a sympy.Rational, a Fraction or text '
                         f'such as "{x!r}"), got the float {x!r}')
    if isinstance(x, Fraction):
        q = sympy.Rational(x.numerator, x.denominator)
    elif isinstance(x, sympy.Rational):
        q = x
    elif isinstance(x, (int, str)) and not isinstance(x, bool):
        q = number(x if isinstance(x, int) else str(x), "argument", name)
    else:
        raise InputError(f"{name}: expected an exact number (an int, a sympy.Rational, a Fraction or decimal "
                         f"text), got {x!r}")
    if low is not None and not q > low:
        raise InputError(f"{name}: expected a number > {low}, got {q}")
    if high is not None and q > high:
        raise InputError(f"{name}: expected a number ≤ {high}, got {q}")
    return q


def _param(d, ref) -> str:
    """The node name of a parameter given to a gradient check."""
    model_arg(d)
    if not isinstance(ref, str) or not ref.strip():
        raise RefError(f"ref: expected a parameter name such as 'W[0,2]' (a string), got {ref!r}")
    name = d._registry.node(ref)
    if d._registry.graph.nodes[name].value is None:
        raise RefError(f"{ref}: expected a parameter (a weight of the spec), not a computed quantity")
    return name


@dataclass
class GradCheck:
    name: str
    h: sympy.Rational
    analytic: object
    numeric: object

    @property
    def difference(self):
        return self.numeric - self.analytic


def gradcheck(d, ref, h, prec: int = 200) -> GradCheck:
    """Central difference (L(θ+h) − L(θ−h))/(2h) at exact h, beside ∂L/∂θ.

    Both are certified balls; their difference is the truncation error
    (there is no round-off in ball arithmetic).  With a mini-batch
    (``training.examples``), L is what training minimises, the batch's mean
    loss, and ∂L/∂θ its gradient (``sgd[0].grad_…``).

    >>> import symgpt
    >>> c = gradcheck(symgpt.load("bigram"), "W[0,2]", sympy.Rational(1, 10**5))
    >>> round_decimals(c.numeric, 6), round_decimals(c.analytic, 6)
    ('-0.195173', '-0.195173')
    """
    return _check(d, _param(d, ref), exact_number(h, "h", low=0), prec, _examples(d))


def _check(d, name: str, h, prec: int, examples: list) -> GradCheck:
    """:func:`gradcheck` of the node ``name`` over ``examples`` (:func:`_examples`)."""
    numeric, analytic = [], []
    for ex, graph in examples:
        L = [_moved_loss(d, ex, graph, name, sign * h, prec) for sign in (1, -1)]
        with ctx.workprec(prec):
            q = (L[0] - L[1]) / (2 * to_flint(h))
        grad = d._ev.ball("grad_" + name, prec) if ex is d._net else \
            TensorEvaluator(ex, {}, graph=graph).ball("grad_" + name, prec)
        if q.contains(0) and grad == 0 and not _loss_depends_on(graph(), name):
            q = arb(0)       # an entry this example's loss never reads (a row of E no input gathers): flat
        #                      (its gradient is then an exact 0: only then is the graph walked)
        numeric.append(q)
        analytic.append(grad)
    with ctx.workprec(prec):
        return GradCheck(name, h, sum(analytic, arb(0)) / len(examples), sum(numeric, arb(0)) / len(examples))


def _examples(d) -> list:
    """(model, its per-scalar graph on demand) of each training example: the spec's own, then a mini-batch's
    others."""
    nets = [d._net] + [Net(d.spec, tokens, target) for tokens, target in d.spec.training.examples[1:]]
    return [(net, _graph_of(d, net)) for net in nets]


def _graph_of(d, net):
    """The per-scalar graph of one example's model, built on demand (``d.graph`` for the spec's own)."""
    if net is d._net:
        return lambda: d.graph
    return lambda: differentiated(d.spec, net.tokens, net.target)


def _loss_depends_on(graph, name: str) -> bool:
    """Whether the loss of ``graph`` reads the parameter entry ``name`` at all, through the nodes' definitions.

    >>> import symgpt
    >>> g = symgpt.load("bigram").graph
    >>> _loss_depends_on(g, "W[0,2]"), _loss_depends_on(g, "E[0,0]")
    (True, False)
    """
    seen, todo = set(), ["loss"]
    while todo:
        x = todo.pop()
        if x == name:
            return True
        if x not in seen:
            seen.add(x)
            node = graph.nodes[x]
            todo.extend(node.inputs if node.value is None else ())
    return False


def loss_at(d, ref, delta, prec: int = 200):
    """The loss with one parameter entry moved by an exact ``delta``: L(θ + δ), a gradient check's two losses
    (with a mini-batch, the batch's mean loss, as :func:`gradcheck` takes it).

    >>> import symgpt
    >>> plus, minus = (loss_at(symgpt.load("bigram"), "W[0,2]", sympy.Rational(s, 1000)) for s in (1, -1))
    >>> round_decimals(plus, 6), round_decimals(minus, 6)
    ('1.051275', '1.051665')
    """
    name = _param(d, ref)
    delta = exact_number(delta, "delta")
    examples = _examples(d)
    losses = [_moved_loss(d, ex, graph, name, delta, prec) for ex, graph in examples]
    with ctx.workprec(prec):
        return sum(losses, arb(0)) / len(examples) if len(losses) > 1 else losses[0]


def _moved_loss(d, net, graph, name: str, delta, prec: int):
    """One example's loss with the entry ``name`` moved by ``delta`` (``graph``: that example's, on demand, for an
    exact sign test)."""
    node = d._registry.graph.nodes[name]
    precision(prec, getattr(d, "limits", None))
    ev = TensorEvaluator(net, {name: to_flint(node.value) + to_flint(delta)}, graph=graph)
    return ev.ball("loss", prec)


def gradcheck_table(d, ref, exponents=range(1, 13), prec: int = 200) -> list:
    """Error of the central difference against the step h = 10^-e.

    Each row: h, the exact-arithmetic error (truncation only, certified) and
    the error of the same formula in IEEE float64 (truncation + round-off):
    θ ± h and the loss computed in Python floats, the difference quotient in
    floats, its exact difference from ∂L/∂θ certified.

    >>> import symgpt
    >>> row = gradcheck_table(symgpt.load("bigram"), "W[0,2]", exponents=[6])[0]
    >>> round_significant(row["error_float64"], 3)
    '-7.41e-11'
    """
    name = _param(d, ref)
    node = d._registry.graph.nodes[name]
    try:
        exponents = list(exponents)
    except TypeError:
        raise InputError(f"exponents: expected integers e in 1..300 (h = 10^-e), got {exponents!r}") from None
    if not all(isinstance(e, int) and not isinstance(e, bool) and 1 <= e <= 300 for e in exponents):
        raise InputError(f"exponents: expected integers e in 1..300 (h = 10^-e), got {exponents!r}")
    precision(prec, getattr(d, "limits", None))
    theta = int(node.value.p) / int(node.value.q)
    examples = _examples(d)
    graphs = [graph() for _, graph in examples]

    def mean_loss(x: float) -> float:         # the batch's mean loss in float64, as a float program takes it
        return sum(float64_loss(g, name, x) for g in graphs) / len(graphs)

    rows = []
    for e in exponents:
        h = sympy.Rational(1, 10 ** e)
        c = _check(d, name, h, prec, examples)
        hf = float(f"1e-{e}")
        fd = (mean_loss(theta + hf) - mean_loss(theta - hf)) / (2 * hf)
        with ctx.workprec(prec):
            err64 = arb(fd) - c.analytic
        rows.append({"h": h, "error_exact": c.difference, "error_float64": err64})
    return rows


def float64_loss(graph, name: str, x: float) -> float:
    """The loss in IEEE float64 with the parameter ``name`` set to ``x``.

    >>> import symgpt
    >>> float64_loss(symgpt.load("bigram").graph, "W[0,2]", 0.1)
    1.0514701356032603
    """
    return float64_values(graph, {name: x})[graph.order.index("loss")]
