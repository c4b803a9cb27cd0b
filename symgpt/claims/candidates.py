"""Candidates: every quantity a tutorial of one spec is likely to print, enclosed once.

Each entry of every graph node, the sizes, token ids, the one-hot target, the functions of
entries tutorials print as each op names them (exp of the logits and of every block's scores, √ of
the variances), the sampling tables (temperatures, top-k, top-p and the cumulative sums the draw
reads), every SGD state's loss and p, the first update's parameters and AdamW moments, the head
step and the gradient checks.  Each is enclosed once at :data:`PREFILTER_BITS` bits, so that a
figure's rounding cell picks the few worth certifying.

>>> import symgpt
>>> cs = candidates(symgpt.load("bigram"))
>>> [c.ref for c in cs if c.group == "p"]
['p[猫]', 'p[吃]', 'p[鱼]']
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np
from flint import arb, fmpq

from ..core.numeric import UndecidableError
from ..engine.names import base
from ..ops import NAMES
from ..training.train import param_count
from .refs import ExprError, bind, parse

PREFILTER_BITS = 64


TOKEN_AXES = ("v",)


@dataclass
class Candidate:
    """A quantity a figure may be."""
    ref: str
    group: str                # the name it belongs to: 'A', 'exp(logits)', 'sgd[1].p', 'id'
    idx: tuple = ()           # its indices as integers (a token as its id)
    axes: str = ""            # the axes' letters: 'ts', 'vj'
    q: object = None          # the bound quantity
    ball: object = None       # enclosure at PREFILTER_BITS
    derived: bool = False     # arithmetic over other figures' quantities
    param: str | None = None  # a function's parameter: the temperature of softmax_T(0.5, 爱)
    of: str = ""              # the parameter a moment belongs to: adamw[1].m[W,0,2] is W's
    scoped: bool = False      # named only by a figure's place (a later AdamW step), never matched by value alone

    def __post_init__(self):
        self.span = _float_span(self.ball)
        parts = [self.of, *map(str, self.idx)] if self.of else list(map(str, self.idx))
        self.key = f"{self.group}[{','.join(parts)}]" if parts else self.group

    def meets(self, lo: Fraction, hi: Fraction) -> bool:
        """Can the value lie in [lo, hi]? (from the prefilter enclosure, widened to floats outward)"""
        if self.span is None:
            return True
        return not (self.span[1] < _down(lo) or self.span[0] > _up(hi))


class Spans:
    """The candidates whose prefilter enclosure may meet [lo, hi], found for a list at once (one numpy
    comparison over their float spans, not a Python loop per candidate); the order of the list is kept.

    >>> cs = [Candidate("a", "a", ball=fmpq(1, 2)), Candidate("b", "b", ball=fmpq(3, 2))]
    >>> [c.ref for c in Spans(cs).among(Fraction(1, 3), Fraction(2, 3))]
    ['a']
    """

    def __init__(self, cands: list):
        self.cands = list(cands)
        spans = [c.span if c.span is not None else (-np.inf, np.inf) for c in self.cands]
        self.lo = np.array([a for a, _ in spans], dtype=float)
        self.hi = np.array([b for _, b in spans], dtype=float)

    def among(self, lo: Fraction, hi: Fraction) -> list:
        keep = np.flatnonzero((self.hi >= _down(lo)) & (self.lo <= _up(hi)))
        return [self.cands[i] for i in keep]


def _down(x: Fraction) -> float:
    f = float(x)
    return f - abs(f) * 1e-12 - 1e-300


def _up(x: Fraction) -> float:
    f = float(x)
    return f + abs(f) * 1e-12 + 1e-300


def _float_span(b):
    """[lo, hi] of an enclosure as floats rounded outward (a little wider: a prefilter only)."""
    if b is None:
        return None
    if not isinstance(b, fmpq) and not b.is_finite():
        return (float("-inf"), float("inf"))
    lo, hi = _bounds(b)
    return _down(lo), _up(hi)


def _bounds(b):
    """[lo, hi] of an enclosure, exactly, as Fractions.

    >>> _bounds(fmpq(1, 3))
    (Fraction(1, 3), Fraction(1, 3))
    """
    if isinstance(b, fmpq):
        v = Fraction(int(b.p), int(b.q))
        return v, v
    m, r = b.mid().man_exp(), b.rad().man_exp()
    mid = Fraction(int(m[0])) * Fraction(2) ** int(m[1])
    rad = Fraction(int(r[0])) * Fraction(2) ** int(r[1])
    return mid - rad, mid + rad


def _entries(shape):
    return itertools.product(*(range(n) for n in shape)) if shape else [()]


def candidates(d) -> list:
    """Every quantity a tutorial of ``d``'s spec is likely to print, enclosed once.

    >>> import symgpt
    >>> cs = candidates(symgpt.load("bigram"))
    >>> [c.ref for c in cs if c.group == "p"]
    ['p[猫]', 'p[吃]', 'p[鱼]']
    """
    s, out, seen = d.spec, [], set()
    vocab = ref_tokens(s.vocab)

    def add(ref, group, idx=(), axes="", of="", scoped=False):
        if ref in seen:
            return
        seen.add(ref)
        try:
            q = bind(parse(ref, d.limits), d, d.limits)
            ball = q.ball(PREFILTER_BITS)
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return
        if getattr(q, "vector", False) or not isinstance(ball, fmpq) and not ball.is_finite():
            return
        out.append(Candidate(ref, group, tuple(idx), axes, q, ball, of=of, scoped=scoped))

    def ref_of(name, axes, idx):
        if not idx:
            return name
        return f"{name}[{','.join(vocab[i] if a in TOKEN_AXES else str(i) for a, i in zip(axes, idx))}]"
    groups = list(d._registry.groups())
    for pattern, shape, _ in groups:
        name, _, axes = pattern.partition("[")
        axes = axes.rstrip("]").replace(",", "")
        for idx in _entries(shape):
            add(ref_of(name, axes, idx), name, idx, axes)
    for r in d._registry.sizes():
        add(r.name, r.name)
    for f in ("vocab_size()", "seq_len()", "params()", "argmax()"):
        add(f, f)
    if s.kind == "transformer":
        add("d/heads", "d/heads")
        add("sqrt(d/heads)", "sqrt(d/heads)")
    for i, t in enumerate(vocab):
        add(f"id({t})", "id", (i,), "v")
    logits = next((g for g in ("logits", "z") if f"grad_{g}" in {p.partition("[")[0] for p, _, _ in groups}), None)
    for i, t in enumerate(vocab):
        if logits:                        # the one-hot target y = p − ∂L/∂logits: 0 or 1 by its definition
            add(f"p[{t}] - grad_{logits}[{t}]", "y", (i,), "v")
            if out and out[-1].group == "y":
                out[-1].ball = fmpq(int(i == _target_id(s)))
                out[-1].__post_init__()
        for pos in range(s.T):
            add(f"onehot({pos}, {t})", "onehot", (pos, i), "tv")
    shapes = {p.partition("[")[0]: (shape, p.partition("[")[2].rstrip("]").replace(",", "")) for p, shape, _ in groups}
    for name, (shape, axes) in shapes.items():   # each block's too: exp(S), exp(l1.S), sqrt(l0.var1), log(p)
        for f, _ in _functions(name):
            for idx in _entries(shape):
                add(f"{f}({ref_of(name, axes, idx)})", f"{f}({name})", idx, axes)
                if f == "sqrt" and s.kind == "transformer":     # a norm's denominator √(σ² + ε)
                    add(f"sqrt({ref_of(name, axes, idx)} + ln_eps)", f"sqrt({name}+eps)", idx, axes)
                    add(f"1/sqrt({ref_of(name, axes, idx)} + ln_eps)", f"1/sqrt({name}+eps)", idx, axes)   # its
                    #                                                       reciprocal, what multiplies (x − μ)
                    add(f"{ref_of(name, axes, idx)} + ln_eps", f"{name}+eps", idx, axes)     # and under it:
                    #                                                       √0,14501 for a mean square 0,145
    for name, (shape, axes) in shapes.items():   # a gated MLP's gate: σ(g) and SiLU(g) = g·σ(g), before g·σ(g)·u
        if base(name) == "Z" and name.replace("Z", "U", 1) in shapes:
            for idx in _entries(shape):
                z = ref_of(name, axes, idx)
                add(f"1/(1+exp(-{z}))", f"sigmoid({name})", idx, axes)
                add(f"{z}/(1+exp(-{z}))", f"SiLU({name})", idx, axes)
    for name, (shape, axes) in shapes.items():   # q·k before its scaling by 1/√d_k: what a hand computation prints
        if base(name) == "S" and s.kind == "transformer":
            for idx in _entries(shape):
                add(f"{ref_of(name, axes, idx)}*sqrt(d/heads)", f"{name}*sqrt(d/heads)", idx, axes)
    if s.kind == "transformer" and getattr(s, "positions", "") == "rope":    # the rotation's cos and sin, a
        dk = s.d // s.heads                                                   # table's columns
        for t in range(s.T):                                                 # (at 0: 1 and 0, as a table has)
            for i in range(dk // 2):
                angle = f"{t}" if i == 0 else f"{t}*({s.rope_theta})^(-{2 * i}/{dk})"     # t·θ_i
                add(f"cos({angle})", "rope.cos", (t, i), "ti")
                add(f"sin({angle})", "rope.sin", (t, i), "ti")
    sm = s.sampling
    for T in sm.temperatures:
        if T == 1:
            continue                      # softmax_T(1, t) is p[t]
        tt = "inf" if str(T) == "oo" else _decimal(T)
        for i, t in enumerate(vocab):
            add(f"softmax_T({tt}, {t})", "softmax_T", (i,), "v")
            if out and out[-1].ref == f"softmax_T({tt}, {t})":
                out[-1].param = tt if tt == "inf" else str(Fraction(str(T)))
    for i, t in enumerate(vocab):
        add(f"topk({sm.top_k}, {t})", "topk", (i,), "v")
        add(f"topp({_decimal(sm.top_p)}, {t})", "topp", (i,), "v")
    _trained_sampling(d, add, vocab)
    _cumulative(d, add)
    _counts(d, add, groups)
    _deviations(d, add, groups, ref_of)
    _training(d, add, shapes, ref_of)
    return out


MAX_SAMPLED = 4000     # shares sampled from the trained model (states × settings × tokens) up to which they are
#                        candidates


def _trained_sampling(d, add, vocab) -> None:
    """The sampling tables of the model after each SGD and AdamW step (``sgd[3].softmax_T(0.7, 鱼)``,
    ``adamw[1].topk(2, 猫)``): read by their place only, a table under 'after step 3' (a tutorial that trains, then
    samples from what it trained)."""
    sm, steps = d.spec.sampling, d.spec.training.steps
    temps = ["inf" if str(T) == "oo" else _decimal(T) for T in sm.temperatures if T != 1]
    settings = [f"softmax_T({tt}, " for tt in temps] + [f"topk({sm.top_k}, ", f"topp({_decimal(sm.top_p)}, "]
    if 2 * steps * len(settings) * len(vocab) > MAX_SAMPLED:
        return
    for run in ("sgd", "adamw"):
        for k in range(1, steps + 1):
            for setting in settings:
                for i, t in enumerate(vocab):
                    add(f"{run}[{k}].{setting}{t})", f"{run}[{k}].{setting.partition('(')[0]}", (i,), "v",
                        scoped=True)


def value_candidates(cands: list) -> list:
    """The candidates a figure's value alone may be matched to (not those only its place can name)."""
    return [c for c in cands if not c.scoped]


def _functions(group: str) -> tuple:
    """(function, aliases) of a group's entries that tutorials print, as its op names it (:data:`symgpt.ops.NAMES`),
    whatever its layer.

    >>> _functions("l1.S"), _functions("grad_l1.S")
    ((('exp', ('exp',)),), ())
    """
    n = None if group.startswith("grad_") else NAMES.get(base(group))
    return n.of if n is not None else ()


SIZE_OF_AXIS = {"v": "vocab_size()", "i": "d", "j": "d", "k": "d_ff"}


def _counts(d, add, groups):
    """Each parameter matrix's count of numbers as a product of sizes (``d*d`` for W_Q,
    ``vocab_size()*d`` for E), and a weight with its bias (``d*d_ff + d_ff`` for W_1, b_1):
    the last column of a tutorial's table of parameters."""
    sizes = {"vocab_size()": len(d.spec.vocab), "d": d.spec.d, "d_ff": getattr(d.spec, "d_ff", None)}
    counts, of = {}, {}               # parameter → its count; count → the parameters (W_Q;W_K;W_V) it counts
    for pattern, shape, _ in groups:
        name, _, axes = pattern.partition("[")
        names = [SIZE_OF_AXIS.get(a, "") for a in axes.rstrip("]").split(",")]
        if name in d.spec.params and len(names) == len(shape) and all(sizes.get(x) == n for x, n in zip(names, shape)):
            counts[name] = "*".join(names)            # (an axis whose size has no name here: no count)
    for name, count in counts.items():
        bias = re.sub(r"(^|\.)W_", r"\1b_", name)
        if len(count) > 2 and "*" in count:
            of.setdefault(count, []).append(name)
        if bias != name and bias in counts:
            of.setdefault(f"{count} + {counts[bias]}", []).append(f"{name},{bias}")
    for count, names in of.items():
        add(count, "count", of=";".join(names))
    every = sum(int(np.prod(shape)) for pattern, shape, _ in groups if pattern.partition("[")[0] in d.spec.params)
    extra = every - param_count(d)        # the norms' fixed γ (and β), counted by a text that counts every weight
    if 0 < extra and extra % d.spec.d == 0:
        add(f"params() + {extra // d.spec.d}*d", "count")


def _deviations(d, add, groups, ref_of):
    """The terms of a variance, (x − μ)² summed: each deviation x − μ and its square, the figures a
    norm's paragraph prints on the way (``(1.810-2.200)² = 0.1521``)."""
    import sympy
    for pattern, shape, _ in groups:
        name, _, axes = pattern.partition("[")
        axes = axes.rstrip("]").replace(",", "")
        for idx in _entries(shape):
            try:
                e = d.definition(ref_of(name, axes, idx))
            except Exception:  # noqa: BLE001 - a parameter: no definition
                break
            squares = [b for t in sympy.Add.make_args(e) for b in t.atoms(sympy.Pow)
                       if b.exp == 2 and b.base.is_Add and len(b.base.args) == 2]
            if not squares or len(squares) != len(sympy.Add.make_args(e)):
                break                     # not a variance: the group's other entries are not either
            for b in squares:
                x, m = sorted(b.base.args, key=lambda a: a.could_extract_minus_sign())
                if not (x.is_Symbol and (-m).is_Symbol):
                    continue
                add(f"{x}-{-m}", f"{name}.deviation", idx, axes)
                add(f"({x}-{-m})^2", f"{name}.square", idx, axes)


def _target_id(s) -> int:
    """The spec's target token's id."""
    return s.target if isinstance(s.target, int) else list(s.vocab).index(s.target)


def ref_tokens(vocab) -> list:
    """The vocabulary as a ref writes it: a token that would not read back inside ``p[…]`` (white space at its
    ends, a comma, a bracket, a quote, digits only) by its id.

    >>> ref_tokens(["我", " ", "a,b", "cat"]), ref_tokens([" ", "0", "1"])
    (['我', '1', '2', 'cat'], ['0', '1', '2'])
    """
    return [t if t and t == t.strip() and not re.search(r"[,\[\]()'\"]", t) and not t.isdigit() else str(i)
            for i, t in enumerate(vocab)]     # (a token of digits reads as an id: by its own id)


def _cumulative(d, add):
    """p sorted from the largest, summed: the running totals a top-p paragraph prints."""
    try:
        ps = sorted(((d.ball(f"p[{t}]", PREFILTER_BITS).mid(), t) for t in ref_tokens(d.spec.vocab)), reverse=True)
    except Exception:   # noqa: BLE001 - a spec without p
        return
    for order in (ps, [(0, t) for t in ref_tokens(d.spec.vocab)]):      # by probability (top-p), by id (the draw's CDF)
        terms = []
        for _, t in order[:-1]:
            terms.append(f"p[{t}]")
            if len(terms) > 1:
                add(" + ".join(terms), "cumulative p", (len(terms),), "n")
            if order is ps:                  # the mass the k likeliest leave to the rest: what top-k drops
                add(f"1 - ({' + '.join(terms)})", "left out p", (len(terms),), "n")
    k = d.spec.sampling.top_k
    kept = [f"topk({k}, {t})" for _, t in ps[:k]]
    for n in range(2, len(kept)):            # the renormalised shares' running totals, the sampler's bounds
        add(" + ".join(kept[:n]), "cumulative p", (n,), "n")


PERCENT_OF = re.compile(r"(?:^|\.)(?:p|A)$|^(?:softmax_T|topk|topp|cumulative p|left out p|loss drop)$"
                        r"|^(?:adamw\.)?lr$|^adamw\.(?:weight_decay|beta[12])$|^1 - adamw\.")
"""Groups a percentage can print: shares (probabilities, attention weights, sampling tables), a relative
drop, and the optimizer's rates. A squared deviation or a gradient of 0.0225 is no '2.25 %'."""


MAX_REPEATED = 256     # the logits a repeated forward pass after a step prints, up to this many entries
LATER_STEPS = 2000     # parameter entries × steps up to which the AdamW steps after the first are candidates


def _training(d, add, shapes, ref_of):
    tr = d.spec.training
    params = [p for p in d.spec.params if p in shapes]
    steps = range(1, tr.steps + 1)                 # state 0 is the model itself: loss, p
    for k in steps:
        add(f"sgd[{k}].loss", "sgd.loss", (k,), "k")
        for name in ("p",):
            if name in shapes:
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    add(f"sgd[{k}].{ref_of(name, axes, idx)}", f"sgd.{name}", (k, *idx), "k" + axes)
        add(f"sgd_wrong_order[{k}].loss", "sgd_wrong_order.loss", (k,), "k")
    for k in steps:                                # the AdamW run's states, as the SGD run's: adamw.loss (k),
        add(f"adamw[{k}].loss", "adamw.loss", (k,), "k", scoped=k > 1)    # for a table of steps (the first
        if "p" in shapes:                                                  # step's also by its value)
            shape, axes = shapes["p"]
            for idx in _entries(shape):
                add(f"adamw[{k}].{ref_of('p', axes, idx)}", "adamw.p", (k, *idx), "k" + axes, scoped=k > 1)
    entries = sum(len(list(_entries(shapes[name][0]))) for name in params)
    if entries * tr.steps <= LATER_STEPS:          # the later AdamW steps' moments, for a small model
        for k in range(2, tr.steps + 1):
            for name in params:
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    inner = ",".join([name] + [str(i) for i in idx])
                    add(f"adamw[{k}].{ref_of(name, axes, idx)}", f"adamw[{k}].{name}", idx, axes, scoped=True)
                    for m in ("m", "v", "mhat", "vhat", "update", "decay"):
                        add(f"adamw[{k}].{m}[{inner}]", f"adamw[{k}].{m}", idx, axes, of=name, scoped=True)
                    add(f"adamw[{k - 1}].grad_{ref_of(name, axes, idx)}", f"adamw[{k - 1}].grad_{name}", idx, axes,
                        scoped=True)        # (the gradient step k takes: at the model step k − 1 made)
        for k in range(2, tr.steps + 1):           # the forward pass repeated after each later step
            for name in ("z", "logits", "sum_exp", "p"):
                if name in shapes and len(list(_entries(shapes[name][0]))) <= MAX_REPEATED:
                    shape, axes = shapes[name]
                    for idx in _entries(shape):
                        add(f"adamw[{k}].{ref_of(name, axes, idx)}", f"adamw[{k}].{name}", idx, axes, scoped=True)
                        if name != "p":            # (SGD's p after every step is a candidate by its value)
                            add(f"sgd[{k}].{ref_of(name, axes, idx)}", f"sgd[{k}].{name}", idx, axes, scoped=True)
        for k in steps:                            # the SGD run's later parameters and its gradients on the way,
            for name in params:                    # read by their place only (W₁₄ at step 2, ∂L/∂W₁₄ after a step)
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    entry = ref_of(name, axes, idx)
                    if k > 1:
                        add(f"sgd[{k}].{entry}", f"sgd[{k}].{name}", idx, axes, scoped=True)
                    add(f"sgd[{k}].grad_{entry}", f"sgd[{k}].grad_{name}", idx, axes, scoped=True)
    if len(tr.examples) > 1:                       # a mini-batch: its mean loss and gradients, where the run starts
        add("sgd[0].loss", "sgd.loss", (0,), "k")
        for name in params:
            shape, axes = shapes[name]
            for idx in _entries(shape):
                entry = ref_of(name, axes, idx)
                add(f"sgd[0].grad_{entry}", f"sgd[0].grad_{name}", idx, axes, scoped=True)
        add("sgd[0].loss - sgd[1].loss", "loss drop")
        _examples(d, add, shapes, ref_of, params)
    add("loss - sgd[1].loss", "loss drop")
    add("loss - adamw[1].loss", "loss drop")
    for run in ("sgd", "adamw"):                   # … and relative to where it started: 'a drop of 49 %'
        for k in sorted({1, tr.steps}):
            add(f"(loss - {run}[{k}].loss) / loss", "loss drop")
    add("adamw[1].loss", "adamw[1].loss")             # the model after the first AdamW step
    if "p" in shapes:
        shape, axes = shapes["p"]
        for idx in _entries(shape):
            add(f"adamw[1].{ref_of('p', axes, idx)}", "adamw[1].p", idx, axes)
    for name in ("z", "logits", "sum_exp"):           # a forward pass repeated after the step, read by its place
        if name in shapes and len(list(_entries(shapes[name][0]))) <= MAX_REPEATED:
            shape, axes = shapes[name]
            for state in ("sgd[1]", "adamw[1]"):
                for idx in _entries(shape):
                    add(f"{state}.{ref_of(name, axes, idx)}", f"{state}.{name}", idx, axes, scoped=True)
            if name != "sum_exp":                      # and the backward pass that starts the next step: δ' = q' − y
                for k in range(1, tr.steps + 1):
                    for idx in _entries(shape):
                        entry = ref_of(name, axes, idx)
                        add(f"sgd[{k}].grad_{entry}", f"sgd.grad_{name}", (k, *idx), "k" + axes, scoped=True)
    for b in ("beta1", "beta2"):                   # the moments' share of the new gradient: m = (1 − β₁)·g
        add(f"1 - adamw.{b}", f"1 - adamw.{b}")
    for name in params:
        shape, axes = shapes[name]
        for idx in _entries(shape):
            entry = ref_of(name, axes, idx)
            add(f"sgd[1].{entry}", f"sgd[1].{name}", idx, axes)
            add(f"adamw[1].{entry}", f"adamw[1].{name}", idx, axes)
            inner = ",".join([name] + [str(i) for i in idx])
            for m in ("m", "v", "mhat", "vhat", "update", "decay"):
                add(f"adamw[1].{m}[{inner}]", f"adamw[1].{m}", idx, axes, of=name)
            add(f"sqrt(adamw[1].vhat[{inner}])", "sqrt(adamw[1].vhat)", idx, axes, of=name)
            add(f"lr*grad_{entry}", f"lr*grad_{name}", idx, axes)
    if tr.gradcheck_params:
        add("gradcheck.h", "gradcheck.h")          # the check's own step, a setting: 'h = 1e-3'
    for p in tr.gradcheck_params:
        h = _num(tr.gradcheck_h)
        add(f"gradcheck({p}, {h})", "gradcheck")
        for sign in ("", "-"):                   # the check's two losses and the moved entry: L(θ ± h), θ ± h
            add(f"loss_at({p}, {sign}{h})", "loss_at")
            add(f"{p} + ({sign}{h})", "gradcheck.theta")
    if "grad_E_head" in shapes or "grad_W_out" in shapes and "h_final" in shapes:    # a step of the head alone:
        t = d.spec.vocab.index(d.spec.target) if isinstance(d.spec.target, str) else d.spec.target  # the target's
        if "grad_E_head" in shapes:                                              # row of a tied E, an untied W_out
            shape, axes = shapes["E"]
            for j in range(shape[1]):
                add(f"head_step.{ref_of('E', axes, (t, j))}", "head_step.E", (t, j), axes)
        #    (an untied W_out's move is the SGD step's, sgd[1].W_out, unless clipping, a warm-up or a mini-batch
        #     makes them differ: its candidates would tie with sgd[1]'s; only the pass after it is the head step's)
        for name in ("logits", "p"):
            shape, axes = shapes[name]
            for idx in _entries(shape):
                add(f"head_step.{ref_of(name, axes, idx)}", f"head_step.{name}", idx, axes)
        add("head_step.sum_exp", "head_step.sum_exp")
        add("head_step.loss", "head_step.loss")
        add("head_step.logits[%s] - logits[%s]" % ((ref_tokens(d.spec.vocab)[t],) * 2), "head_step.rise")


EXAMPLE_GROUPS = ("x", "z", "logits", "sum_exp", "p", "loss", "grad_z", "grad_logits", "grad_x")
"""What a mini-batch's other examples are printed with: their forward pass to the loss and δ = p − y."""


def _examples(d, add, shapes, ref_of, params):
    """The other examples of a mini-batch (``example[1].p[cats]``, ``example[2].loss``): their forward pass, its
    exps and δ = p − y; their own gradients of the parameters when the model is small."""
    n = len(d.spec.training.examples)
    small = sum(len(list(_entries(shapes[name][0]))) for name in params) * (n - 1) <= LATER_STEPS
    passes = sum(len(list(_entries(shapes[g][0]))) for g in EXAMPLE_GROUPS if g in shapes) * (n - 1)
    for b in range(1, n if passes <= LATER_STEPS else 1):     # (a large batch of a large model: its mean alone)
        for name in EXAMPLE_GROUPS + tuple(f"grad_{p}" for p in params if small):
            if name in shapes and len(list(_entries(shapes[name][0]))) <= MAX_REPEATED:
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    add(f"example[{b}].{ref_of(name, axes, idx)}", f"example.{name}", (b, *idx), "b" + axes)
                    if name in ("z", "logits"):
                        add(f"exp(example[{b}].{ref_of(name, axes, idx)})", f"exp(example.{name})", (b, *idx),
                            "b" + axes)


def _decimal(x) -> str:
    """A parameter as a tutorial writes it: 0.5 for 1/2 (a fraction when no decimal ends it).

    >>> _decimal(Fraction(1, 2)), _decimal(Fraction(3, 5)), _decimal(Fraction(1, 3)), _decimal(2)
    ('0.5', '0.6', '1/3', '2')
    """
    f = Fraction(str(x))
    for k in range(13):
        if (f * 10 ** k).denominator == 1:
            return str(f.numerator) if k == 0 else f"{Decimal(f.numerator) / Decimal(f.denominator):.{k}f}"
    return f"{f.numerator}/{f.denominator}"


def _num(x) -> str:
    f = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(str(x))
    if f.denominator == 1:
        return str(f.numerator)
    e = 0
    while f.denominator != 1 and e < 30:
        f *= 10
        e += 1
    return f"{f.numerator}e-{e}"


# ---------------------------------------------------------------- context


def _integral(b) -> bool:
    """An exact integer enclosure (a count, a size, an id)."""
    if isinstance(b, fmpq):
        return b.q == 1
    return b.is_exact() and b.is_integer()


def _same_value(a: Candidate, b: Candidate) -> bool:
    """Equal enclosures at 128 bits to within 2^-100 (a node and the arithmetic that defines it)."""
    try:
        x, y = a.q.ball(128), b.q.ball(128)
        diff = arb(x) - arb(y) if not isinstance(x, fmpq) or not isinstance(y, fmpq) else x - y
        if isinstance(diff, fmpq):
            return diff == 0
        return abs(diff) < arb(2) ** -100
    except (ArithmeticError, ValueError, TypeError):
        return False
