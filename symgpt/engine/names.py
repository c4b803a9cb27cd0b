"""The one vocabulary: every quantity name resolved to one :class:`Ref`.

A name is a graph node (``A[1,0]``, ``p[你]`` = ``p[4]``, ``l0.Q[1,0]``,
``grad_W[0,2]``), a training state (``sgd[5].loss``, ``adamw[1].m[W,0,2]``,
``sgd_wrong_order[1].p[鱼]``), document 000's head-only step
(``head_step.E[你,0]``) or a size or hyper-parameter (``d``, ``ln_eps``, ``lr``,
``adamw.eps``).  :class:`Names` resolves it once to a frozen :class:`Ref`: its
canonical and pretty names, group, indices, shape, meaning, kind, its exact
SymPy expression over node symbols where one exists, and closures for its
enclosure at a precision and its exact rational value.  The REPL
(:class:`symgpt.Derivation`), the claims binder, the traces and ``verify
--list`` all resolve names here; :func:`split` gives the parts of a plain name
to anyone who needs them (the documents).

>>> split("W[0,2]"), split("l0.Q[1,0]"), split("loss")
(('W', ('0', '2')), ('l0.Q', ('1', '0')), ('loss', ()))
>>> import symgpt
>>> r = symgpt.load("tiny-transformer")._registry.ref("p[你]")
>>> r.name, r.pretty, r.kind, r.group, r.index, r.shape
('p[4]', 'p[你]', 'node', 'p', (4,), (6,))
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import sympy
from flint import fmpq

from ..core.errors import InputError, nearest
from ..core.numeric import Evaluator, to_flint
from ..ops import NAMES as OP_NAMES
from .values import TensorEvaluator


class RefError(InputError):
    """A quantity name that the derivation does not define."""


SIZES = {
    # name: (meaning, spec attribute): the model's sizes, then the ops' hyper-parameters (by name)
    "d": ("model width (embedding dimension)", "d"),
    "d_ff": ("FFN hidden width", "d_ff"),
    "heads": ("attention heads", "heads"),
    "layers": ("transformer blocks", "layers"),
    **{name: (n.en, name) for name, n in sorted(OP_NAMES.items()) if n.kind == "size"},
}

ADAMW = {
    # adamw.NAME: meaning (the spec's [training.adamw] value)
    "lr": "AdamW learning rate η",
    "beta1": "AdamW first-moment decay β1",
    "beta2": "AdamW second-moment decay β2",
    "eps": "AdamW ε in √v̂ + ε",
    "weight_decay": "AdamW decoupled weight decay λ",
}

SAMPLING = {
    # NAME: meaning (the spec's [sampling] setting)
    "top_k": "top-k sampling: the k most likely tokens kept",
    "top_p": "top-p (nucleus) sampling: the smallest set whose probability reaches P",
}

MOMENTS = {
    # adamw[k].NAME[PARAM,i,j]: meaning
    "m": "first moment β1·m + (1 − β1)·g",
    "v": "second moment β2·v + (1 − β2)·g²",
    "mhat": "bias-corrected m / (1 − β1^k)",
    "vhat": "bias-corrected v / (1 − β2^k)",
    "update": "adaptive step η·mhat/(√vhat + ε)",
    "decay": "decoupled weight decay η·λ·θ",
}

OPTIMIZERS = ("sgd", "adamw", "sgd_wrong_order")
UNTRAINED = tuple(name for name, n in OP_NAMES.items() if n.kind == "param" and not n.trained)
"""The parameters (names without a layer prefix) not trained unless ``training.learnable_ln``: the norms' γ and β."""

_PLAIN = re.compile(r"(?P<group>[A-Za-z_][A-Za-z_0-9.]*?)(?:\[(?P<idx>[^\[\]]*)\])?")
_STATE = re.compile(r"(?P<opt>sgd_wrong_order|sgd|adamw)\[(?P<k>\d+)\]\.(?P<rest>.+)")
_HEAD = "head_step."
_EXAMPLE = re.compile(r"example\[(?P<b>\d+)\]\.(?P<rest>.+)")


def split(name: str) -> tuple[str, tuple[str, ...]]:
    """The group and the index texts of a plain name (no state prefix).

    >>> split("p[你]"), split("grad_E[ 4, 1 ]")
    (('p', ('你',)), ('grad_E', ('4', '1')))
    >>> split("sgd[1].loss")
    Traceback (most recent call last):
    ...
    symgpt.engine.names.RefError: 'sgd[1].loss' is not a plain name group[i,j]
    """
    m = _PLAIN.fullmatch(name.strip())
    if not m:
        raise RefError(f"{name!r} is not a plain name group[i,j]")
    idx = m["idx"]
    return m["group"], (() if idx is None else tuple(x.strip() for x in idx.split(",")))


def join(group: str, index) -> str:
    """The name of ``group`` at ``index``: the inverse of :func:`split`.

    >>> join("W", (0, 2)), join("loss", ())
    ('W[0,2]', 'loss')
    """
    return f"{group}[{','.join(map(str, index))}]" if index else group


def base(group: str) -> str:
    """A group's name without its layer prefix: ``l0.W_Q`` → ``W_Q``.

    >>> base("l1.LN2"), base("E")
    ('LN2', 'E')
    """
    return group.rpartition(".")[2]


def param_names(spec) -> list[str]:
    """Every parameter's node name, in the spec's order (what :func:`learnable` filters).

    >>> from symgpt.engine.spec import load_spec
    >>> param_names(load_spec("derivations/bigram.toml"))[:3]
    ['E[0,0]', 'E[0,1]', 'E[1,0]']
    """
    out = []
    for group, values in spec.params.items():
        if values and isinstance(values[0], list):
            out += [f"{group}[{i},{j}]" for i, row in enumerate(values) for j in range(len(row))]
        else:
            out += [f"{group}[{i}]" for i in range(len(values))]
    return out


def learnable(spec, graph=None) -> list:
    """Names of the parameters an optimizer updates, in definition order.

    >>> import symgpt
    >>> d = symgpt.load("bigram")
    >>> learnable(d.spec)[:3]
    ['E[0,0]', 'E[0,1]', 'E[1,0]']
    """
    keep_all = spec.training.learnable_ln
    return [n for n in param_names(spec) if keep_all or base(n.partition("[")[0]) not in UNTRAINED]


@dataclass(frozen=True)
class Ref:
    """One resolved quantity.

    ``kind`` is ``node`` (a graph node), ``state`` (a quantity of a training
    state: ``opt``, ``step`` and ``part`` — loss, lr, clip_coef, p, grad,
    param, moment or node — say which), ``head_step``, ``example`` (a node of
    a mini-batch's example, its number in ``step``) or ``size``.  ``node``
    is the graph node it reads (a moment's parameter), ``expr`` its exact
    SymPy expression over node symbols when one exists, ``ball(prec)`` its
    enclosure and ``exact()`` its exact rational when SymPy can prove one.
    """
    name: str
    pretty: str
    kind: str
    group: str
    index: tuple
    shape: tuple
    meaning: str
    node: str | None = None
    opt: str | None = None
    step: int | None = None
    part: str | None = None
    expr: object = field(default=None, compare=False, repr=False)
    ball: Callable = field(default=None, compare=False, repr=False)
    exact: Callable = field(default=None, compare=False, repr=False)


class Names:
    """Resolves names against one spec and its graph.

    ``ev`` evaluates the graph; ``trace(opt)`` returns the trace of an
    optimizer (sgd, adamw, sgd_wrong_order) with ``ball(k, ref, prec)``.
    """

    def __init__(self, spec, graph, ev: Evaluator | None = None, trace=None):
        self.spec, self.graph = spec, graph
        self.ev = Evaluator(graph) if ev is None else ev
        self.trace = trace
        self._refs: dict[str, Ref] = {}
        self._params: list | None = None

    @property
    def params(self) -> list:
        """The learnable parameters (see :func:`learnable`)."""
        if self._params is None:
            self._params = learnable(self.spec)
        return self._params

    def ref(self, text: str) -> Ref:
        """The quantity a name denotes (memoised); RefError when there is none.

        >>> import symgpt
        >>> R = symgpt.load("bigram")._registry
        >>> R.ref("adamw[1].m[W,0,鱼]").name, R.ref("adamw[1].m[W,0,鱼]").node
        ('adamw[1].m[W,0,2]', 'W[0,2]')
        >>> R.ref("lr").expr, R.ref("sgd[2].loss").part
        (1/2, 'loss')
        """
        text = text.strip()
        r = self._refs.get(text)
        if r is None:
            r = self._refs[text] = self._resolve(text)
        return r

    def _resolve(self, text: str) -> Ref:
        size = self._size(text)
        if size is not None:
            return size
        m = _STATE.fullmatch(text)
        if m:
            return self._state(m["opt"], int(m["k"]), m["rest"], text)
        if text.startswith(_HEAD):
            return self._head_step(text[len(_HEAD):], text)
        m = _EXAMPLE.fullmatch(text)
        if m:
            return self._example(int(m["b"]), m["rest"], text)
        return self._node(text)

    # -- graph nodes -------------------------------------------------------
    def node(self, text: str) -> str:
        """The canonical node name of a plain name: ``p[你]`` → ``p[4]``.

        >>> import symgpt
        >>> symgpt.load("tiny-transformer")._registry.node("E[你,1]")
        'E[4,1]'
        """
        group, raw = self._parts(text)
        grp = self.graph.groups[group]
        if len(raw) != len(grp.shape):
            raise RefError(f"{text}: {grp.name} takes {len(grp.shape)} indices {grp.axes}, got {len(raw)}")
        idx = [self._index(text, x, axis, n) for x, axis, n in zip(raw, grp.axes, grp.shape)]
        return join(group, idx)

    def _parts(self, text):
        try:
            group, raw = split(text)
        except RefError:
            group, raw = text, ()
        if group not in self.graph.groups:
            raise RefError(f"unknown quantity {group!r}{self._hint(group, text)}; `symgpt list {self.spec.path}` "
                           f"(in Python: d.names()) lists the names")
        return group, raw

    def _hint(self, group: str, text: str) -> str:
        """What an unknown name most likely meant: the same name in each block of a deep model
        (``l0.`` … count from 0, the documents' headings from 1), else the nearest name.

        >>> import symgpt
        >>> symgpt.load("bigram")._registry._hint("Z", "Z[0]")
        '; did you mean z?'
        """
        layers = getattr(self.spec, "layers", 1)
        if layers > 1 and f"l0.{group}" in self.graph.groups:
            options = " or ".join(f"l{i}.{text} (layer {i + 1})" for i in range(layers))
            return (f": it is inside a block; did you mean {options}? The prefixes count blocks from 0, "
                    f"the documents' headings from 1")
        near = nearest(group, [*self.graph.groups, *SIZES, "lr", "gradcheck.h", *(f"adamw.{k}" for k in ADAMW),
                               *SAMPLING])
        return f"; did you mean {near}?" if near else ""

    def _index(self, text, x, axis, n) -> int:
        """A whole number is an index (a token id on a vocabulary axis); other text is a token.

        So with a numeral token (vocabulary ``["2", …]``) ``p[0]`` is id 0 and the
        token "2" is written by its id.
        """
        if re.fullmatch(r"\d+", x) and len(x) <= len(str(n)) and int(x) < n:
            return int(x)
        if axis == "v" and x in self.spec.vocab:
            return self.spec.vocab.index(x)
        want = f"0..{n - 1}" + (f" or a token ({', '.join(map(repr, self.spec.vocab[:40]))}"
                                f"{', …' if len(self.spec.vocab) > 40 else ''})" if axis == "v" else "")
        raise RefError(f"{text}: index {x!r} out of range; expected {want}")

    def pretty(self, name: str) -> str:
        """A node name with token indices shown as tokens: ``p[4]`` → ``p[你]``."""
        node = self.graph.nodes[name]
        grp = self.graph.groups.get(node.group)
        if not node.index or grp is None:
            return name
        return join(node.group, [self.spec.vocab[i] if a == "v" and not re.fullmatch(r"\d+", self.spec.vocab[i]) else i
                                 for i, a in zip(node.index, grp.axes)])

    def _node(self, text: str) -> Ref:
        name = self.node(text)
        node, ev = self.graph.nodes[name], self.ev
        grp = self.graph.groups[node.group]
        expr = node.sym
        return Ref(name, self.pretty(name), "node", node.group, node.index, grp.shape, grp.meaning, name,
                   expr=expr, ball=lambda prec: ev.ball(name, prec), exact=lambda: self.exact(expr))

    def slice(self, text: str) -> list[Ref]:
        """The nodes of a slice such as ``Q[0,:]`` (``:`` runs over a whole axis)."""
        try:
            group, raw = split(text)
        except RefError:
            group, raw = None, ()
        if group not in self.graph.groups:
            raise RefError(f"{text}: a slice ':' works on a graph quantity such as Q[0,:]")
        grp = self.graph.groups[group]
        if len(raw) != len(grp.shape):
            raise RefError(f"{text}: {grp.name} takes {len(grp.shape)} indices {grp.axes}, got {len(raw)}")
        refs = [[]]
        for x, n in zip(raw, grp.shape):
            opts = [str(i) for i in range(n)] if x == ":" else [x]
            refs = [r + [o] for r in refs for o in opts]
        return [self.ref(join(group, r)) for r in refs]

    def exact(self, expr) -> fmpq | None:
        """The exact rational value of an expression over node symbols, if SymPy
        proves one (a rounding tie, or an exact 0 computed as balls); else None."""
        ev = self.ev
        if not ev.exact():
            return None
        q = ev.exact_rational(expr)
        if q is None and ev.expr_sign(expr) == 0:
            q = fmpq(0)
        return q

    def _expr_ref(self, name, pretty, kind, group, index, shape, meaning, expr, node=None) -> Ref:
        ev = self.ev
        return Ref(name, pretty, kind, group, index, shape, meaning, node, expr=expr,
                   ball=lambda prec: ev.expr_ball(expr, prec), exact=lambda: self.exact(expr))

    # -- sizes and hyper-parameters ----------------------------------------
    def _size(self, text: str) -> Ref | None:
        s = self.spec
        if text in SIZES:
            meaning, attr = SIZES[text]
            value = getattr(s, attr)
            if value is None:
                raise RefError(f"{text} is not defined for a {s.kind} spec")
        elif text == "lr":
            meaning, value = "SGD learning rate", s.training.lr
        elif text == "gradcheck.h":
            meaning, value = "the gradient check's step h of (L(θ + h) − L(θ − h)) / 2h", s.training.gradcheck_h
        elif text in SAMPLING:
            meaning, value = SAMPLING[text], getattr(s.sampling, text)
        elif text.startswith("adamw.") and text[len("adamw."):] in ADAMW:
            meaning = ADAMW[text[len("adamw."):]]
            value = getattr(s.training.adamw, text[len("adamw."):])
        else:
            return None
        c = sympy.Rational(value)
        q = to_flint(c)
        return Ref(text, text, "size", text, (), (), meaning, expr=c, ball=lambda prec: q, exact=lambda: q)

    # -- training states -----------------------------------------------------
    def state(self, rest: str, opt: str = "sgd") -> Ref:
        """The quantity ``rest`` read at a state (``loss``, ``p[鱼]``, ``m[W,0,2]``, …),
        without its step: what a trace's ``ball(k, ref, prec)`` reads.

        >>> import symgpt
        >>> r = symgpt.load("bigram")._registry.state("grad_W[0,鱼]")
        >>> r.part, r.node
        ('grad', 'grad_W[0,2]')
        """
        rest = rest.strip()
        key = f"{opt}[].{rest}"
        r = self._refs.get(key)
        if r is None:
            r = self._refs[key] = self._state_part(opt, rest, rest)
        return r

    def _state_part(self, opt, rest, text) -> Ref:
        head, _, idx = rest.partition("[")
        if opt == "sgd_wrong_order" and rest != "loss":
            node = self.node(rest)
            if not (node.startswith("p[") or node in self.params):
                raise RefError(f"{text}: sgd_wrong_order[k] has loss, p[v] and parameters")
        if rest in ("loss", "lr", "clip_coef"):
            meaning = {"loss": "the loss", "lr": "the learning rate of the update that made the state",
                       "clip_coef": "the clipping coefficient of that update"}[rest]
            return Ref(rest, rest, "state", rest, (), (), meaning, "loss" if rest == "loss" else None, part=rest)
        if head in MOMENTS:
            if opt != "adamw":
                raise RefError(f"{text}: {head}[…] is an AdamW quantity (adamw[k].{rest})")
            node = None
            if "," in idx and idx.endswith("]"):
                param, _, at = idx[:-1].partition(",")
                node = self.node(f"{param}[{at}]")
            if node not in self.params:
                raise RefError(f"{text}: expected {head}[PARAM,i,j], e.g. {head}[W,0,2]")
            p = self.graph.nodes[node]
            pretty = self.pretty(node)
            return Ref(f"{head}[{node.replace('[', ',', 1)}", f"{head}[{pretty.replace('[', ',', 1)}",
                       "state", head, (p.group,) + p.index, self.graph.groups[p.group].shape,
                       MOMENTS[head], node, part="moment")
        node = self.node(rest)
        n = self.graph.nodes[node]
        grp = self.graph.groups[n.group]
        if n.group == "p":
            part = "p"
        elif node.startswith("grad_") and node[len("grad_"):] in self.params:
            part = "grad"
        elif node in self.params:
            part = "param"
        else:
            part = "node"
        return Ref(node, self.pretty(node), "state", n.group, n.index, grp.shape, grp.meaning, node, part=part)

    def _state(self, opt: str, k: int, rest: str, text: str) -> Ref:
        steps = self.spec.training.steps
        if not 0 <= k <= steps:
            raise RefError(f"{text}: the {opt} trace has steps 0..{steps}")
        inner = self.state(rest, opt)
        if inner.part == "moment" and k == 0:
            raise RefError(f"{text}: AdamW state is defined after an update (k ≥ 1)")
        trace = self.trace
        return Ref(f"{opt}[{k}].{inner.name}", f"{opt}[{k}].{inner.pretty}", "state", inner.group, inner.index,
                   inner.shape, inner.meaning, inner.node, opt, k, inner.part,
                   ball=lambda prec: trace(opt).ball(k, inner, prec), exact=lambda: None)

    # -- a mini-batch's other examples --------------------------------------------
    def _example(self, b: int, rest: str, text: str) -> Ref:
        """A node of training example b (0 is the spec's own ``[data]``, 1… ``training.examples``) at the
        spec's weights: ``example[1].p[cats]``, ``example[2].loss``, ``example[1].grad_W[0,2]``.

        >>> import symgpt
        >>> R = symgpt.load("bigram")._registry
        >>> R.ref("example[0].p[鱼]").name
        'example[0].p[2]'
        >>> R.ref("example[1].loss")
        Traceback (most recent call last):
        ...
        symgpt.engine.names.RefError: example[1].loss: the spec has 1 training example, example[0] ([data])
        """
        n = len(self.spec.training.examples)
        if not 0 <= b < n:
            have = "example[0] ([data])" if n == 1 else f"example[0] ([data]) to example[{n - 1}] (training.examples)"
            raise RefError(f"{text}: the spec has {n} training example{'s' * (n != 1)}, {have}")
        inner = self.ref(rest)
        if inner.kind != "node":
            raise RefError(f"{text}: example[b] reads a node of the model (loss, p[v], grad_W[i,j], …), "
                           f"not {inner.kind} {rest!r}")
        trace = self.trace
        ball = inner.ball if b == 0 else (lambda prec: trace("sgd").example_ball(b, inner.node, prec))
        return Ref(f"example[{b}].{inner.name}", f"example[{b}].{inner.pretty}", "example", inner.group,
                   inner.index, inner.shape, inner.meaning, inner.node, step=b,
                   expr=inner.expr if b == 0 else None, ball=ball, exact=inner.exact if b == 0 else lambda: None)

    # -- document 000's head-only step -----------------------------------------
    def head_expr(self, node: str):
        """``E[v,j]`` after E[t] ← E[t] − η·grad_E_head[t], or ``logits[v]`` = h_final·E_new[v]
        (h_final as it was), as an exact expression over node symbols.  With an untied head the step
        moves all of W_out: ``W_out[j,v]`` − η·grad_W_out[j,v], and ``logits[v]`` = h_final·W_out_new[:,v]."""
        g, s = self.graph, self.spec
        head = self._head_param()
        lr, t = s.training.lr, s.target

        def new(v, j):
            if head == "W_out":
                return g.nodes[f"W_out[{j},{v}]"].value - lr * g.sym(f"grad_W_out[{j},{v}]")
            old = g.nodes[f"E[{v},{j}]"].value
            return old - lr * g.sym(f"grad_E_head[{v},{j}]") if v == t else old
        n = g.nodes[node]
        if n.group == head:
            return new(*(n.index[::-1] if head == "W_out" else n.index))
        if n.group == "logits":
            return sympy.Add(*[g.sym(f"h_final[{j}]") * new(n.index[0], j) for j in range(s.d)])
        raise RefError(f"head_step.{node}: defined are {head}[{'j,v' if head == 'W_out' else 'v,j'}], logits[v], "
                       f"sum_exp, p[v] and loss")

    def _head_param(self) -> str:
        """The head a head-only step moves: the target's row of a tied E, or an untied W_out."""
        if "grad_E_head" in self.graph.groups:
            return "E"
        if "grad_W_out" in self.graph.groups and "h_final" in self.graph.groups:
            return "W_out"
        raise RefError("head_step needs a transformer's head: a tied transformer head (E) or an untied W_out")

    def _head_step(self, rest: str, text: str) -> Ref:
        head = self._head_param()
        node = self.node(rest)
        n = self.graph.nodes[node]
        grp = self.graph.groups[n.group]
        name, pretty = _HEAD + node, _HEAD + self.pretty(node)
        if n.group in ("loss", "p", "sum_exp"):  # a forward pass with the new row (the new W_out)
            s, ev, g = self.spec, self.ev, self.graph
            moved = [f"E[{s.target},{j}]" for j in range(s.d)] if head == "E" else \
                [f"W_out[{j},{v}]" for j in range(s.d) for v in range(s.V)]
            exprs = [self.head_expr(x) for x in moved]

            def ball(prec):
                leaves = {x: ev.expr_ball(e, prec) for x, e in zip(moved, exprs)}
                net = getattr(ev, "net", None)  # the tensor engine's model when there is one
                return (TensorEvaluator(net, leaves) if net is not None else Evaluator(g, leaves)).ball(node, prec)
            return Ref(name, pretty, "head_step", n.group, n.index, grp.shape, grp.meaning, node,
                       ball=ball, exact=lambda: None)
        return self._expr_ref(name, pretty, "head_step", n.group, n.index, grp.shape, grp.meaning,
                              self.head_expr(node), node)

    # -- the list ------------------------------------------------------------------
    def groups(self) -> list[tuple[str, tuple, str]]:
        """(name pattern, shape, meaning) of every graph tensor: ``E[v,j]``, ``loss``.

        >>> import symgpt
        >>> symgpt.load("bigram")._registry.groups()[0]
        ('E[v,j]', (3, 2), 'token embedding matrix (V × d)')
        """
        return [(join(g.name, g.axes), g.shape, g.meaning) for g in self.graph.groups.values()]

    def sizes(self) -> list[Ref]:
        """Every size and hyper-parameter the spec defines (d, d_ff, …, lr, gradcheck.h, adamw.*, top_k, top_p)."""
        out = []
        for name in [*SIZES, "lr", "gradcheck.h", *(f"adamw.{a}" for a in ADAMW), *SAMPLING]:
            try:
                out.append(self.ref(name))
            except RefError:
                continue
        return out
