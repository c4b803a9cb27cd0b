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

from . import cost
from .errors import InputError, LimitError
from .limits import Limits
from .markup import exact_text, latex_table, md_code, md_table, md_text, tex_number
from .models import differentiated
from .names import LN_GROUPS, Ref, RefError, base
from .names import learnable as _learnable
from .net import Net
from .numeric import (
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
from .spec import number
from .values import TensorEvaluator

NO_DECAY = ("E", "b_1", "b_2") + LN_GROUPS  # nanoGPT-style groups, plus the embedding


def model_arg(d, what: str = "d"):
    """A model argument: a loaded derivation (anything with ``spec`` and ``ev``).

    >>> model_arg("bigram")
    Traceback (most recent call last):
    ...
    symgpt.errors.InputError: d: expected a loaded derivation such as symgpt.load("bigram"), got 'bigram'
    """
    if not all(hasattr(d, a) for a in ("spec", "ev")):
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
    """The number of trainable scalars (LayerNorm γ, β only when learnable).

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
    """The model after ``step`` updates, and what the update that made it used."""
    step: int
    params: dict                       # name -> value
    loss: object = None
    p: list = field(default_factory=list)
    grads: dict = field(default_factory=dict)   # gradient at this state
    lr: object = None                  # learning rate of the update that made it
    clip_coef: object = None
    m: dict = field(default_factory=dict)
    v: dict = field(default_factory=dict)
    mhat: dict = field(default_factory=dict)
    vhat: dict = field(default_factory=dict)
    update: dict = field(default_factory=dict)  # η·m̂/(√v̂+ε)
    decay: dict = field(default_factory=dict)   # η·λ·θ
    ties: set = field(default_factory=set)      # ReLU inputs exactly 0 here
    open: set = field(default_factory=set)      # ReLU inputs whose sign no ball settled (both branches kept)
    nodes: object = None                        # (evaluator, values) of the spec's example


def step_arg(optimizer: str, steps: int, k, ref="loss") -> None:
    """Check the arguments ``(k, ref)`` of a reading of a trace: a step number and a quantity name.

    >>> step_arg("sgd", 20, "loss", 3)
    Traceback (most recent call last):
    ...
    symgpt.names.RefError: sgd['loss']: k: expected a step number 0..20 of the sgd trace (an int), got 'loss' (arguments swapped? the call is value(k, ref), k the step)
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
    symgpt.errors.InputError: digits: expected an integer ≥ 1, got -1
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
    symgpt.errors.LimitError: prec: 1000000000 bits asked, above the limit 13480 bits
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

    def shown_steps(self, most: int = 8) -> list:
        """The steps a summary table shows: all when few, else the first update and steps evenly spread.

        >>> import symgpt
        >>> symgpt.load("bigram").trace("sgd").shown_steps(6)
        [0, 1, 5, 10, 15, 20]
        """
        if isinstance(most, bool) or not isinstance(most, int) or most < 3:
            raise InputError(f"most: expected an integer ≥ 3 (step 0, step 1 and the last), got {most!r}")
        if self.steps < most:
            return list(range(self.steps + 1))
        return sorted({1} | {round(i * self.steps / (most - 2)) for i in range(most - 1)})

    def loss_table(self, digits: int = 10) -> list:
        """(k, certified loss at ``digits`` significant digits) for the :meth:`shown_steps`."""
        return [(k, self.value(k, "loss", digits=digits)) for k in self.shown_steps()]

    def _repr_markdown_(self) -> str:
        rows = [[md_code(f"{self.optimizer}[{k}].loss"), v] for k, v in self.loss_table()]
        return "\n".join([
            f"**{md_text(self.optimizer)}** trace of {md_code(self.d.spec.name)}: {self._steps_text()}, "
            f"{len(self.names)} parameters, lr {self._lr()}"
            + (", AdamW" if self.optimizer == "adamw" else "") + ". The loss before and after updates "
            "(certified, 10 significant digits):", "",
            md_table(["state", "loss"], rows, align="lr"), "",
            "Any quantity of a state: " + md_code('t.value(k, "p[0]", digits=20)') + ", "
            + md_code(f'd.value("{self.optimizer}[1].loss")') + "."])

    def _repr_latex_(self) -> str:
        rows = [[str(k), tex_number(v)] for k, v in self.loss_table()]
        name = self.optimizer.replace("_", r"\_")        # sgd_wrong_order in \text{…}
        return "$$" + latex_table([r"k", rf"\mathcal{{L}}(\theta_k)\ \text{{({name})}}"], rows, align="rr") + "$$"


class Trace(Shown):
    """N steps of SGD or AdamW from a model's spec, at any precision.

    ``d`` is the model on the spec's own example: ``spec``, ``net``, ``ev``
    and ``registry`` (a :class:`symgpt.Derivation` is one).  ``build(tokens,
    target)`` builds the model (a :class:`symgpt.net.Net`, with gradients) of
    each further training example; by default ``Net(spec, tokens, target)``.
    Every state runs on tensors (:class:`symgpt.values.TensorEvaluator`).
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
        cost.check_trace(d.spec, getattr(d, "limits", None))
        self.names = learnable(d)
        self.examples = [d.net] + [build(tok, tgt) for tok, tgt in d.spec.training.examples[1:]]
        self._by_prec: dict[int, list] = {}
        self._floor = 0  # lowest precision known to decide every sign of the trace
        self._open: set = set()

    def _graph_of(self, ex):
        """The per-scalar graph of an example, built only if an exact test needs it (a ReLU tie at state 0)."""
        if ex is self.d.net:
            return lambda: self.d.graph
        return lambda: differentiated(self.d.spec, ex.tokens, ex.target)

    def _lr(self) -> str:
        tr = self.d.spec.training
        return exact_text(tr.lr if self.optimizer == "sgd" else tr.adamw.lr)

    # -- the computation ------------------------------------------------------
    def _evaluate(self, leaves, prec):
        """Mean loss and gradient over the examples at the given parameters."""
        loss, grads, ties = 0, {n: 0 for n in self.names}, set()
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
            if ex is self.d.net:
                self._open = set(ev.open)
                p = [vals[ev.index(f"p[{v}]")] for v in range(self.d.spec.V)]
                nodes = (ev, vals)
            ev.release()  # a node read later recomputes this state's pass
        k = len(self.examples)
        if k > 1:
            loss = loss / k
            grads = {n: g / k for n, g in grads.items()}
        return loss, p, grads, ties, nodes

    def states(self, prec: int) -> list:
        """All states at ``prec`` bits (memoised)."""
        if prec in self._by_prec:
            return self._by_prec[prec]
        spec, tr = self.d.spec, self.d.spec.training
        params = {n: to_flint(self.d.registry.graph.nodes[n].value) for n in self.names}
        m = {n: fmpq(0) for n in self.names}
        v = {n: fmpq(0) for n in self.names}
        out = []
        with ctx.workprec(prec):
            state = State(0, dict(params))
            for k in range(self.steps + 1):
                state.loss, state.p, state.grads, state.ties, state.nodes = self._evaluate(params, prec)
                state.open = self._open
                out.append(state)
                if k == self.steps:
                    break
                grads, coef = self._clip(state.grads)
                lr = lr_at(spec, tr.lr if self.optimizer == "sgd" else tr.adamw.lr, k)
                new = State(k + 1, {}, lr=lr, clip_coef=coef)
                if self.optimizer == "sgd":
                    for n in self.names:
                        params[n] = params[n] - lr * grads[n]
                else:
                    self._adamw(params, grads, m, v, k + 1, lr, new)
                new.params = dict(params)
                self._bounded(new)
                state = new
        self._by_prec[prec] = out
        return out

    def _lr_key(self) -> str:
        tr = self.d.spec.training
        return f"training.lr = {tr.lr}" if self.optimizer == "sgd" else f"training.adamw.lr = {tr.adamw.lr}"

    def _bounded(self, state: State) -> None:
        """Refuse a state whose parameters grew past 10^max_digits.  (A non-finite
        ball only needs more bits: :func:`certify` raises the precision.)"""
        limits = getattr(self.d, "limits", None) or Limits()
        for n, x in state.params.items():
            if limits.max_digits < magnitude(x) < math.inf:
                raise LimitError(
                    f"{self.d.spec.path}: {self._lr_key()} drives {self.optimizer}[{state.step}].{n} beyond "
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

    def _adamw(self, params, grads, m, v, t, lr, new: State):
        """Decoupled weight decay, moments, bias correction (torch.optim.AdamW)."""
        a = self.d.spec.training.adamw
        b1, b2, eps, wd = (to_flint(x) for x in (a.beta1, a.beta2, a.eps, a.weight_decay))
        groups = self.d.spec.training.decay_groups
        for n in self.names:
            gr = grads[n]
            decays = not groups or base(n.partition("[")[0]) not in NO_DECAY
            new.decay[n] = lr * wd * params[n] if decays else fmpq(0)
            m[n] = b1 * m[n] + (1 - b1) * gr
            v[n] = b2 * v[n] + (1 - b2) * gr * gr
            new.m[n], new.v[n] = m[n], v[n]
            new.mhat[n] = m[n] / (1 - b1 ** t)
            new.vhat[n] = v[n] / (1 - b2 ** t)
            root = arb(new.vhat[n]).sqrt() if not isinstance(new.vhat[n], fmpq) or new.vhat[n] != 0 else fmpq(0)
            new.update[n] = lr * new.mhat[n] / (root + eps)
            params[n] = params[n] - new.decay[n] - new.update[n]

    # -- reading it -------------------------------------------------------
    def _step(self, k, ref="loss") -> None:
        step_arg(self.optimizer, self.steps, k, ref)

    def ball(self, k: int, ref, prec: int):
        """A quantity of state k: loss, p[v], a parameter, grad_<param>, m[param], …

        ``ref`` is a name (``m[W,0,2]``) or its :class:`symgpt.names.Ref`.  Any
        other node (``logits[v]``, ``A[1,0]``, ``grad_Q[0,1]``) is read from the
        forward and backward pass of the spec's own example at that state.
        """
        self._step(k, ref)
        precision(prec, getattr(self.d, "limits", None))
        r = ref if isinstance(ref, Ref) else self.d.registry.state(ref, self.optimizer)
        s = self.states(prec)[k]
        if r.part in ("loss", "lr", "clip_coef"):
            return getattr(s, r.part)
        if r.part == "p":
            return s.p[r.index[0]]
        if r.part == "moment":
            return getattr(s, r.group)[r.node]
        if r.part == "grad":
            return s.grads[r.node[len("grad_"):]]  # the (mini-batch mean) gradient
        if r.part == "param":
            return s.params[r.node]
        ev, vals = s.nodes  # any other node of the graph, at this state's parameters
        return vals[ev.index(r.node)]

    def relu_ties(self, k: int) -> list:
        """ReLU inputs exactly 0 at state k, where ReLU'(0) = 0 was used.

        Only the spec's own weights (state 0, exact) can prove a tie; a
        later state whose ReLU input cannot be separated from 0 raises
        UndecidableError instead of guessing.
        """
        self._step(k)
        prec = max(prec_for_digits(30) + 16 * self.steps, self._floor)
        if k == 0:
            ev = self.d.ev
            ev.values(prec)
            return sorted(ev.ties)
        s = self.states(prec)[k]
        for _ in range(3):  # a sign left open at one precision may settle at a higher one
            if not s.open:
                break
            prec *= 2
            s = self.states(prec)[k]
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
                self._floor = max(self._floor, 2 * prec)
                raise
        start = max(prec_for_digits(n) + 16 * self.steps, self._floor)
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
    symgpt.errors.InputError: h: expected an exact number (an int, a sympy.Rational, a Fraction
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
    name = d.registry.node(ref)
    if d.registry.graph.nodes[name].value is None:
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
    (there is no round-off in ball arithmetic).

    >>> import symgpt
    >>> c = gradcheck(symgpt.load("bigram"), "W[0,2]", sympy.Rational(1, 10**5))
    >>> round_decimals(c.numeric, 6), round_decimals(c.analytic, 6)
    ('-0.195173', '-0.195173')
    """
    name = _param(d, ref)
    node = d.registry.graph.nodes[name]
    h = exact_number(h, "h", low=0)
    precision(prec, getattr(d, "limits", None))
    theta = to_flint(node.value)
    L = []
    for sign in (1, -1):
        ev = TensorEvaluator(d.net, {name: theta + sign * to_flint(h)}, graph=lambda: d.graph)
        L.append(ev.ball("loss", prec))
    with ctx.workprec(prec):
        numeric = (L[0] - L[1]) / (2 * to_flint(h))
    return GradCheck(name, h, d.ev.ball("grad_" + name, prec), numeric)


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
    node = d.registry.graph.nodes[name]
    try:
        exponents = list(exponents)
    except TypeError:
        raise InputError(f"exponents: expected integers e in 1..300 (h = 10^-e), got {exponents!r}") from None
    if not all(isinstance(e, int) and not isinstance(e, bool) and 1 <= e <= 300 for e in exponents):
        raise InputError(f"exponents: expected integers e in 1..300 (h = 10^-e), got {exponents!r}")
    precision(prec, getattr(d, "limits", None))
    exact = d.ev.ball("grad_" + name, prec)
    theta = int(node.value.p) / int(node.value.q)
    rows = []
    for e in exponents:
        h = sympy.Rational(1, 10 ** e)
        c = gradcheck(d, ref, h, prec)
        hf = float(f"1e-{e}")
        fd = (float64_loss(d.graph, name, theta + hf) - float64_loss(d.graph, name, theta - hf)) / (2 * hf)
        with ctx.workprec(prec):
            err64 = arb(fd) - exact
        rows.append({"h": h, "error_exact": c.difference, "error_float64": err64})
    return rows


def float64_loss(graph, name: str, x: float) -> float:
    """The loss in IEEE float64 with the parameter ``name`` set to ``x``.

    >>> import symgpt
    >>> float64_loss(symgpt.load("bigram").graph, "W[0,2]", 0.1)
    1.0514701356032603
    """
    return float64_values(graph, {name: x})[graph.order.index("loss")]
