"""The transformer document (after source document 000), section by section.

Each section is ``{"id", "steps"}``.  The sections between the tokens and the
sampling come from the model's plan (:mod:`symgpt.engine.arch`): one per stage
of it, in order (:func:`stages`), each application laid out as its op's
document facet says (``DOCUMENT`` of each module of :mod:`symgpt.ops`: the
layout, and the op's own formulas, words and worked lines); nothing here names
an op.  Sizes come from the spec, so tables grow with V, d, d_ff, T, heads and
layers; element-by-element sums are written out for the *worked rows* (every
position when T ≤ 2, else the last one, the position that predicts).

>>> import symgpt
>>> from symgpt.documents.blocks import Numbers
>>> d = symgpt.load("tiny-transformer")
>>> secs, figs = sections(d, Numbers(d, 3))
>>> [s["id"] for s in secs][:4]
['setup', 'vocab', 'tokenize', 'embed']
>>> sorted(figs)
['attention', 'backprop', 'pipeline', 'precision', 'probs']
"""
from __future__ import annotations

import functools

import sympy

from ..engine import scale
from ..engine.arch import stages
from ..engine.derive import softmax_ce_steps
from ..engine.models import plan
from ..ops import NAMES, OPS
from ..training import sampling
from ..training.train import learnable, param_count
from . import diagrams
from . import precision as doc_precision
from .blocks import (
    Part,
    batch,
    derivation_step,
    display,
    figure,
    math,
    minor,
    mtext,
    note,
    num,
    pos,
    sub,
    table,
    tex,
    text,
    tok,
    vec,
    word,
)
from .figures import bars, heatmap
from .figures import line as curve
from .steps import Add, Div, Dot, Exp, Ln, Mul, Neg, Sqrt, Sub, Vec, exact, fig, line, result
from .tokens import joined

DESC = {"E": "use_E", "W_out": "use_W_out", "W_Q": "use_W_Q", "W_K": "use_W_K", "W_V": "use_W_V",
        "W_O": "use_W_O", "W_1": "use_W_1", "b_1": "use_b_1", "W_2": "use_W_2", "b_2": "use_b_2",
        "gamma1": "use_gamma", "beta1": "use_beta", "gamma2": "use_gamma", "beta2": "use_beta",
        "gamma_f": "use_gamma", "beta_f": "use_beta"}
PARAM_TEX = {"E": "E", "W_out": r"W_{\mathrm{out}}", "W_Q": "W_Q", "W_K": "W_K", "W_V": "W_V",
             "W_O": "W_O", "W_1": "W_1", "b_1": "b_1", "W_2": "W_2", "b_2": "b_2",
             "gamma1": r"\gamma^{(1)}", "beta1": r"\beta^{(1)}", "gamma2": r"\gamma^{(2)}",
             "beta2": r"\beta^{(2)}", "gamma_f": r"\gamma^{(f)}", "beta_f": r"\beta^{(f)}"}


def bmatrix(rows) -> str:
    """LaTeX bmatrix of rows of strings.

    >>> bmatrix([["1", "2"]])
    '\\\\begin{bmatrix} 1 & 2 \\\\end{bmatrix}'
    """
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def shape_tex(shape) -> str:
    """``(6, 2)`` → ``6 \\times 2``.

    >>> shape_tex((6, 2)), shape_tex((4,))
    ('6 \\\\times 2', '4')
    """
    return r" \times ".join(map(str, shape))


class Ctx:
    """What every section needs: the derivation, its numbers, its sizes."""

    def __init__(self, d, n):
        self.d, self.n, self.s = d, n, d.spec
        s = self.s
        self.T, self.dm, self.V = s.T, s.d, s.V
        self.dk = s.d // s.heads
        self.toks = [s.vocab[i] for i in s.input]
        self.rows = list(range(self.T)) if self.T <= 2 else [self.T - 1]
        self.k = n.k
        self.fine = n.k + 1
        self.plan = plan(s)
        self.made_by = {a.out: a for a in self.plan}
        self.final = next((a.ins[0] for a in self.plan if OPS[a.op].DOCUMENT["layout"] == "head"), None)

    def operand(self, group, t, j) -> dict:
        """The figure of an entry in a worked line; an entry that is a parameter's (a lookup's, as its op
        says) is printed as that weight, from its exact text."""
        a = self.made_by.get(group)
        entry = getattr(OPS[a.op], "entry", None) if a is not None else None
        return fig(entry(a, (t, j)), weight=True) if entry else fig(f"{group}[{t},{j}]")

    def param_value(self, name):
        """A parameter's exact value."""
        return self.d.graph.nodes[self.d.node(name)].value

    def stated(self, a, kind, what) -> dict:
        """An argument an op's sentence names: the weights of its parameter ``what`` (a role), or its exact
        option ``what``."""
        if kind == "weights":
            if a.param(what) is None:      # a role the model leaves out (a norm's shift without biases): 0
                return tex("0")
            return tex(vec([self.n.weight(nm) for nm in self.d.graph.groups[a.param(what)].names]))
        return tex(self.n.tex_rational(a.opt(what)))

    def remark(self, remark, t) -> list:
        """An op's remark (a sentence, a display, a sentence of certified figures at row t) as steps."""
        args = {"t": self.posl(t)}
        for name, kind, expr, ref, (how, digits) in remark["args"]:
            v = self.n.e(expr, digits) if how == "decimals" else self.n.e_sig(expr, digits)
            args[name] = tex(v, [(ref, v)]) if kind == "tex" else num(v, ref)
        return [text(remark["text"]), display(remark["display"]), text(remark["then"], **args)]

    def per_head(self, key):
        """A caption key, its per-head variant (naming the head, and the layer when there are several, from 1)
        when there are several heads."""
        if self.s.heads == 1:
            return key
        return "tteach." + key.replace(".", "_") + ("_lh" if self.s.layers > 1 else "_h")

    def where(self, l, h=None) -> str:
        """A worked line's superscript naming where it stands, from 1: ``^{(l)}`` its layer when there are
        several, ``^{(l,h)}`` its layer and head when there are several heads; else nothing.

        On a 2-layer, 2-head page, A_{1,0} of layer 1, head 2 is ``A_{1,0}^{(1,2)}``.
        """
        if h is not None and self.s.heads > 1:
            return rf"^{{({(l or 0) + 1},{h + 1})}}"
        return rf"^{{({(l or 0) + 1})}}" if self.s.layers > 1 else ""

    def mark(self, a) -> str:
        """The superscript of an application's worked lines: its layer's (:meth:`where`) inside a block of a
        model of several layers; else nothing (one layer, or the embedding, the positions, a final norm).

        On a 2-layer page, h'_{0,0} of layer 2 is ``h'^{(2)}_{0,0}``; the seed has one layer:

        >>> import symgpt
        >>> from symgpt.documents.blocks import Numbers
        >>> d = symgpt.load("tiny-transformer")
        >>> [Ctx(d, Numbers(d, 3)).mark(a) for a in plan(d.spec)][4:6]
        ['', '']
        """
        return self.where(a.opt("block")) if layer_of(a, self.s.layers) else ""

    def layered(self, key, a) -> tuple:
        """A sentence key and its arguments naming the layer: inside a block of a model of several layers, its
        variant ``key_l`` with ``l`` the layer from 1; else the key as it is, with no arguments.

        >>> import symgpt
        >>> from symgpt.documents.blocks import Numbers
        >>> d = symgpt.load("tiny-transformer")
        >>> Ctx(d, Numbers(d, 3)).layered("ffn.row", plan(d.spec)[5])
        ('ffn.row', {})
        """
        l = layer_of(a, self.s.layers)
        return (key, {}) if l is None else (key + "_l", {"l": num(l)})

    def stream(self, a, shown) -> str:
        """The name of the stream a block's first sum reads: ``shown`` in a model of one layer; in a deeper one
        the output of the block before, ``H^{(l-1)}`` (``H^{(0)}``, the positions' sum, before the first).

        >>> import symgpt
        >>> from symgpt.documents.blocks import Numbers
        >>> from symgpt.ops.base import Apply
        >>> d = symgpt.load("tiny-transformer")
        >>> Ctx(d, Numbers(d, 3)).stream(Apply("residual", "H1", opts=(("block", 0),)), "H^{(0)}")
        'H^{(0)}'
        """
        l = layer_of(a, self.s.layers)
        return shown if l is None else f"H^{{({l - 1})}}"

    def caption(self, w, a) -> tuple:
        """A stage's table caption ``w["cap"]`` and its arguments: the table of a block's output (``output``) in
        a model of several layers names it, ``H^{(l)}`` of layer l (the caption ``cap_l``), the stream the next
        block's sum reads (:meth:`stream`).

        >>> import symgpt
        >>> from symgpt.documents.blocks import Numbers
        >>> d = symgpt.load("tiny-transformer")
        >>> Ctx(d, Numbers(d, 3)).caption(STAGES["residual2"]["norm"], plan(d.spec)[-3])
        ('residual.LN_cap2', None)
        """
        l = layer_of(a, self.s.layers)
        if not w.get("output") or l is None:
            return w["cap"], None
        return w["cap"] + "_l", {"l": num(l), "H": tex(f"H^{{({l})}}")}

    def posl(self, t):
        return pos(t, self.toks[t])

    def head_idx(self, h, *idx):
        return ",".join(map(str, ((h,) if self.s.heads > 1 else ()) + idx))

    def matrix_table(self, key, group, row_labels, col_head, args=None, k=None, weights=False):
        """A table of a (rows × cols) group with labelled rows."""
        grp = self.d.graph.groups[group]
        nrows, ncols = grp.shape
        rows = []
        for i in range(nrows):
            f = (lambda j: num(self.n.weight(f"{group}[{i},{j}]"), f"{group}[{i},{j}]")) if weights else \
                (lambda j: self.n.cell(f"{group}[{i},{j}]", k))
            rows.append([row_labels(i)] + [f(j) for j in range(ncols)])
        head = [col_head[0]] + [col_head[1](j) for j in range(ncols)]
        return table(key, head, rows, args)

    def cellv(self, ref):
        """A table cell: the value, and its significant digits when it rounds to zero."""
        tiny = self.n.tiny(ref)
        v = self.n.v(ref)
        return {"t": "num", "v": v, "exact": tiny, "ref": ref} if tiny else num(v, ref)

    def pos_table(self, key, group, colword="dim", args=None, k=None):
        return self.matrix_table(key, group, self.posl,
                                 (word("position"), lambda j: _colhead(colword, j)), args, k)


def _colhead(colword, j):
    return {"t": "word", "v": colword, "j": str(j)}


def layer_of(a, layers: int):
    """The layer of an application, from 1 as headings number it; None outside the blocks or for one layer.

    >>> from symgpt.ops.base import Apply
    >>> layer_of(Apply("residual", "l1.H1", opts=(("block", 1),)), 2)
    2
    >>> layer_of(Apply("residual", "H1", opts=(("block", 0),)), 1), layer_of(Apply("residual", "H0"), 2)
    (None, None)
    """
    block = a.opt("block")
    return block + 1 if block is not None and layers > 1 else None


def outline(c) -> list:
    """The document's sections in order, each a :class:`~symgpt.documents.blocks.Part`: the set-up, the
    vocabulary and the tokens; one section per stage of the plan (:func:`stages`), showing the groups its
    applications make (:func:`made`); sampling, training (the loss's worked line), the summary, precision.

    >>> import symgpt
    >>> from symgpt.documents.blocks import Numbers
    >>> d = symgpt.load("tiny-transformer")
    >>> [(p.id, p.shows) for p in outline(Ctx(d, Numbers(d, 3)))][2:6]  # doctest: +NORMALIZE_WHITESPACE
    [('tokenize', ()), ('embed', ('X',)), ('positional', ('PE', 'H0')),
     ('attention', ('Q', 'K', 'V', 'S', 'A_den', 'A', 'Attn'))]
    """
    groups = c.d._skeleton.groups
    before = [Part("setup", lambda figs: setup(c, figs), ()), Part("vocab", lambda figs: vocab(c), ()),
              Part("tokenize", lambda figs: tokenize(c), ())]
    staged = [Part(key, functools.partial(stage_section, c, key, run), tuple(g for a in run for g in made(a, groups)))
              for key, run in stages(c.plan)]
    after = [Part("sample", lambda figs: sample(c), ()), Part("train", lambda figs: training(c, figs), ("loss",)),
             Part("summary", lambda figs: summary(c), ()),
             Part("precision", lambda figs: doc_precision.section(c.d, c.n, figs=figs), ())]
    return before + staged + after


class _Made:
    """What an op's ``groups(a, net)`` asks of a net, recording the names it makes."""

    def __init__(self, groups):
        self.groups, self.names = groups, []

    def group(self, name, *rest) -> None:
        self.names.append(name)


def made(a, groups) -> tuple:
    """The groups an application makes (as its op registers them), ``groups`` the model's (their shapes).

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> [made(a, d._skeleton.groups) for a in plan(d.spec)][-3:-1]
    [('mu2', 'var2', 'LN2'), ('h_final', 'logits')]
    """
    m = _Made(groups)
    OPS[a.op].groups(a, m)
    return tuple(m.names)


def sections(d, n):
    """All sections and the figures' data of a transformer document."""
    c = Ctx(d, n)
    figs: dict = {}
    return [part.build(figs) for part in outline(c)], figs


# ---------------------------------------------------------------- a stage of the plan

STAGES = {
    "embed": {"summary": "X"},
    "positional": {"row": "h^{(0)}", "summary": "H^{(0)}",
                   "sum": {"lead": (("sub", "tteach.pe_add"), ("text", "positional.closed")),
                           "formula": r"H^{(0)} = X + \mathrm{PE}", "closed": True, "cap": "positional.H0_cap"}},
    "learned_positional": {"row": "h^{(0)}", "summary": "H^{(0)}",
                           "sum": {"lead": (("sub", "tteach.pe_add"), ("text", "learned.add")),
                                   "formula": r"H^{(0)} = X + \mathrm{PE}", "cap": "positional.H0_cap"}},
    "attention": {"summary": r"\mathrm{Attn}"},
    "residual1": {"row": "h'", "summary": r"\mathrm{LN}_1",
                  "sum": {"lead": (("text", "residual.intro1"), ("sub", "tteach.residual_add")),
                          "formula": lambda H: rf"H' = {H} + \mathrm{{Attn}}", "input": "H^{(0)}"},
                  "norm": {"cap": "residual.LN_cap1"}},
    "residual2": {"row": "h''", "summary": r"\mathrm{LN}_2",
                  "sum": {"lead": (("text", "residual.intro2"), ("sub", "tteach.residual_add")),
                          "formula": r"H'' = \mathrm{LN}_1 + \mathrm{FFN}"},
                  "norm": {"cap": "residual.LN_cap2", "output": True}},
    # a pre-norm block (model.norm = "pre"): a norm before each sub-block, a residual sum after it; a final norm
    "norm1": {"row": "h", "summary": r"\mathrm{LN}_1", "norm": {"cap": "prenorm.LN_cap1"}},
    "add1": {"row": "h'", "summary": "H'",
             "sum": {"lead": (("text", "prenorm.add1"), ("sub", "tteach.residual_add")),
                     "formula": lambda H: rf"H' = {H} + \mathrm{{Attn}}", "input": "H", "cap": "prenorm.H1_cap"}},
    "norm2": {"row": "h'", "summary": r"\mathrm{LN}_2", "norm": {"cap": "prenorm.LN_cap2"}},
    "add2": {"row": "h''", "summary": "H''",
             "sum": {"lead": (("text", "prenorm.add2"), ("sub", "tteach.residual_add")),
                     "formula": r"H'' = H' + \mathrm{FFN}", "cap": "prenorm.H2_cap", "output": True}},
    "final_norm": {"row": "h''", "summary": r"\mathrm{LN}_f", "norm": {"cap": "prenorm.LNf_cap"}},
    "ffn": {"summary": r"\mathrm{FFN}",
            "lead": (("text", "ffn.intro"), ("sub", "tteach.ffn_formula"),
                     ("formula", lambda facets: rf"\mathrm{{FFN}}(h) = {facets['activation']['symbol']}"
                                                r"(h W_1 + b_1)\, W_2 + b_2"),
                     ("sub", "tteach.ffn_weights"), ("weights", None)),
            "affine": ({"sub": "ffn.first", "row": "ffn.row", "lhs": "z"},
                       {"sub": "ffn.second", "row": "ffn.row2", "lhs": r"\mathrm{ffn}", "cap": "ffn.F_cap"})},
    "ffn_gated": {"summary": r"\mathrm{FFN}",
                  "lead": (("text", "gated.intro"), ("sub", "tteach.ffn_formula"),
                           ("formula", lambda facets: r"\mathrm{FFN}(h) = \left(\mathrm{SiLU}(h W_1) \odot h W_3\right)"
                                                      r" W_2"),
                           ("sub", "tteach.ffn_weights"), ("weights", None)),
                  "affine": ({"sub": "gated.gate", "row": "ffn.row", "lhs": "z"},
                             {"sub": "gated.up", "row": "ffn.row", "lhs": "u"},
                             {"sub": "ffn.second", "row": "ffn.row2", "lhs": r"\mathrm{ffn}", "cap": "ffn.F_cap"})},
    "head": {"summary": r"\mathrm{logits}"},
    "softmax": {"summary": lambda c, run: probability_row(c)},
}
"""The words of each stage that are this document's, not an op's: its lead, the letter of its rows, its sums'
formulas (a block's first sum: a function of the name of the stream it reads, ``input`` in a model of one layer,
:meth:`Ctx.stream`) and its captions (``output``: the table of a block's output, which a deeper model names,
:meth:`Ctx.caption`; the layouts below read them; an op's own words are in its document facet), and the symbol of
its output in the summary (or the summary's row)."""


class Rows(list):
    """The steps of each worked row, a list per row: consecutive Rows of a stage are shown row by row (an
    activation's decisions at a position follow the lines that computed its inputs there)."""


def by_rows(parts) -> list:
    """The steps of a stage's parts, consecutive :class:`Rows` interleaved row by row.

    >>> by_rows([1, Rows([[2], [3]]), Rows([[4], [5]]), 6])
    [1, 2, 4, 3, 5, 6]
    """
    out, rows = [], None
    for p in [*parts, None]:
        if isinstance(p, Rows):
            rows = p if rows is None else Rows(a + b for a, b in zip(rows, p))
            continue
        if rows is not None:
            out += [s for row in rows for s in row]
            rows = None
        if p is not None:
            out.append(p)
    return out


def layout(a) -> str:
    """How the document shows an application: the layout its op's document facet names (:data:`LAYOUTS`).

    >>> from symgpt.ops.base import Apply
    >>> layout(Apply("linear", "Z")), layout(Apply("residual", "H1"))
    ('affine', 'sum')
    """
    return OPS[a.op].DOCUMENT["layout"]


def stage_section(c, key, run, figs) -> dict:
    """The section of one stage: its lead, then each application in the layout its op names, row by row where
    several walk the rows; after the last block, the vector that predicts.

    The FFN of the seed: its lead, then at each of the two worked rows the first affine map's lines and the
    activation's table, the activation's rule, the second map row by row, its table.

    >>> import symgpt
    >>> from symgpt.documents.blocks import Numbers
    >>> d = symgpt.load("tiny-transformer")
    >>> c = Ctx(d, Numbers(d, 3))
    >>> key, run = stages(c.plan)[4]
    >>> sec = stage_section(c, key, run, {})
    >>> key, [layout(a) for a in run], sec["layer"]
    ('ffn', ['affine', 'activation', 'affine'], None)
    >>> [step["kind"] for step in sec["steps"]][5:]  # doctest: +NORMALIZE_WHITESPACE
    ['sub', 'text', 'math', 'table', 'text', 'math', 'table', 'note', 'sub', 'text', 'math', 'text', 'math',
     'table']
    """
    words = STAGES.get(key, {})
    parts = lead(c, words.get("lead", ()), run)
    seen: dict = {}
    for a in run:
        i = seen[layout(a)] = seen.get(layout(a), -1) + 1  # the i-th application of this layout in the stage
        parts += LAYOUTS[layout(a)](c, a, words, i, figs)
    if run[-1].out == c.final:
        parts.append(note("residual.final", t=c.posl(c.T - 1),
                          h=c.n.vec([f"h_final[{j}]" for j in range(c.dm)], kind=tex)))
    return {"id": key, "steps": by_rows(parts), "layer": layer_of(run[0], c.s.layers)}


def lead(c, items, run) -> list:
    """Steps from (kind, what) pairs: a text, note or sub-heading by key; a formula made from the stage's
    ops' document facets; the weights the stage reads.

    >>> lead(None, (("sub", "tteach.pe_add"), ("text", "positional.closed")), [])[1]
    {'kind': 'text', 'key': 'positional.closed', 'args': {}}
    """
    out = []
    for kind, what in items:
        if kind == "formula":
            out.append(display(what({layout(a): OPS[a.op].DOCUMENT for a in run})))
        elif kind == "weights":
            groups = [group for a in run for _, group in a.params]
            out.append(display(*[rf"{group[len(a.pre):]} &= {_bm(c, group)}" for a in run for _, group in a.params],
                               figs=weight_figs(c, *groups)))
        else:
            out.append({"text": text, "sub": sub, "note": note}[kind](what, **words_of(run)))
    return out


def words_of(run) -> dict:
    """The arguments a stage's prose may name: ``act``, the word of the activation the stage applies.

    >>> from symgpt.ops.base import Apply
    >>> words_of([Apply("linear", "Z"), Apply("gelu", "R")]), words_of([Apply("residual", "H1")])
    ({'act': {'t': 'word', 'v': 'act_gelu'}}, {})
    """
    act = [OPS[a.op].DOCUMENT["word"] for a in run if "word" in OPS[a.op].DOCUMENT]
    return {"act": word(act[0])} if act else {}


# ---------------------------------------------------------------- §0 set-up

def hyper_num(sym: str, meaning: str, v: int) -> dict:
    """A hyper-parameter as printed: a number that names its symbol and meaning (the page gives it a card).

    >>> hyper_num("V", "vocab_size", 5)
    {'t': 'num', 'v': '5', 'hyper': {'sym': 'V', 'word': 'vocab_size'}}
    """
    return {**num(v), "hyper": {"sym": sym, "word": meaning}}


def setup(c, figs):
    s = c.s
    figs["pipeline"] = diagrams.pipeline(c.toks, s.vocab[sampling.greedy(c.d).id], s.layers, s.heads,
                                        tied=s.tied, ids=list(s.input), plan=c.plan)
    hyper = [[math(sym), word(w), hyper_num(sym, w, v)] for sym, w, v in (
        ("V", "vocab_size", s.V), ("d", "d_model", s.d), ("h", "n_heads", s.heads), ("d_k", "d_head", c.dk),
        (r"d_{\mathrm{ff}}", "d_ff", s.d_ff), ("L", "n_layers", s.layers), ("T", "seq_len", c.T))]
    learn = set(learnable(c.d))
    prow = []
    for group in s.params:
        base = group.split(".")[-1]
        grp = c.d.graph.groups[group]
        size = len(grp.names)
        count = sum(1 for nm in grp.names if nm in learn)
        label = param_label(group)
        prow.append([math(label), math(shape_tex(grp.shape)), word(DESC.get(base, "use_" + base)),
                     num(count) if count == size else word("fixed")])
    total = param_count(c.d)
    steps = [sub("tteach.setup_what"),
             text("setup.intro", inp=tok(joined(c.toks)), target=tok(c.s.vocab[s.target])),
             text("tteach.setup_shape", layers=num(s.layers), heads=num(s.heads)),
             figure("pipeline", "tteach.pipeline_fig", inp=tok(joined(c.toks)), layers=num(s.layers)),
             sub("tteach.setup_hyper"),
             table("setup.hyper_cap", [word("symbol"), word("meaning"), word("value")], hyper, align="llr"),
             sub("tteach.setup_params"),
             text("setup.params", total=num(total, "params()")),
             table("setup.params_cap", [word("name"), word("shape"), word("use"), word("count")], prow,
                   args={"total": num(total, "params()")}, align="lllr")]
    if not s.training.learnable_ln:
        steps.append(note("setup.fixed_ln"))
    steps += [note(OPS[a.op].DOCUMENT["setup"]) for a in c.plan if "setup" in OPS[a.op].DOCUMENT]
    return {"id": "setup", "steps": [st for st in steps if st]}


def param_label(group: str) -> str:
    """LaTeX name of a parameter group; in a deeper model its layer, from 1, as a superscript.

    >>> param_label("W_Q"), param_label("l1.W_Q")
    ('W_Q', '{W_Q}^{[2]}')
    """
    layer, _, base = group.rpartition(".")
    tex = PARAM_TEX.get(base) or NAMES[base].tex or base
    return f"{{{tex}}}^{{[{int(layer[1:]) + 1}]}}" if layer else tex


def vocab(c):
    rows = [[num(i), tok(t)] for i, t in enumerate(c.s.vocab)]
    return {"id": "vocab", "steps": [
        text("vocab.intro", V=num(c.V)),
        table("vocab.cap", [word("id"), word("token")], rows, args={"V": num(c.V)}, align="rl"),
        note("vocab.real")]}


def tokenize(c):
    ids = list(c.s.input)
    lines = [rf"{mtext(t)} &\mapsto {i}" for t, i in zip(c.toks, ids)]
    onehot = [[c.posl(t)] + [num(1 if v == i else 0) for v in range(c.V)] for t, i in enumerate(ids)]
    head = [word("position")] + [{"t": "tokid", "v": str(v), "tok": tk} for v, tk in enumerate(c.s.vocab)]
    return {"id": "tokenize", "steps": [
        sub("tteach.tokenize_ids"),
        text("tokenize.intro"),
        display(*lines),
        display(r"\mathrm{tokens} = \left[" + r",\; ".join(map(str, ids)) + rf"\right] \in \mathbb{{Z}}^{{{c.T}}}"),
        sub("tteach.tokenize_onehot"),
        text("tokenize.onehot", V=num(c.V), Tt=tex(c.T), Vt=tex(c.V)),
        table("tokenize.cap", head, onehot, args={"T": num(c.T), "V": num(c.V)}),
        note("tokenize.lookup")]}


# ---------------------------------------------------------------- the layouts of the ops

def show_lookup(c, a, words, i, figs) -> list:
    """An embedding: the matrix, then the row each position looks up."""
    E, X = a.ins[0], a.out
    E_rows = lambda v: {"t": "tokid", "v": str(v), "tok": c.s.vocab[v]}
    Et = c.matrix_table("embed.E_cap", E, E_rows, (word("token"), lambda j: _colhead("dim", j)),
                        args={"V": num(c.V), "d": num(c.dm)}, weights=True)
    lines = []
    for t, i in enumerate(c.s.input):
        xs = [c.n.weight(f"{E}[{i},{j}]") for j in range(c.dm)]
        lines.append(rf"x_{{{t}}} &= E[{i}] = {vec(xs)} \quad ({mtext(c.toks[t])})")
    return [
        sub("tteach.embed_matrix"),
        text("embed.intro", d=num(c.dm)),
        Et,
        sub("tteach.embed_lookup"),
        display(rf"X = X_{{\mathrm{{oh}}}} \cdot E \in \mathbb{{R}}^{{{c.T} \times {c.dm}}}"),
        text("embed.pick"),
        display(*lines, figs=[(f"{E}[{i},{j}]", c.n.weight(f"{E}[{i},{j}]")) for i in c.s.input
                              for j in range(c.dm)]),
        c.pos_table("embed.X_cap", X)]


def show_learned(c, a, words, i, figs) -> list:
    """Learned positions: the table of the trained rows, then the row each position looks up."""
    W_pe = a.ins[0]
    rows = c.d.graph.groups[W_pe].shape[0]                    # n_ctx ≥ T: the rows past T are not used here
    table_ = c.matrix_table("learned.W_cap", W_pe, num, (word("position"), lambda j: _colhead("dim", j)),
                            args={"T": num(rows), "d": num(c.dm)}, weights=True)
    lines = [rf"\mathrm{{PE}}_{{{t}}} &= W_{{\mathrm{{pe}}}}[{t}] = "
             rf"{vec([c.n.weight(f'{W_pe}[{t},{j}]') for j in range(c.dm)])}" for t in range(c.T)]
    return [sub("learned.sub"), text("learned.intro"), table_,
            display(*lines, figs=[(f"{W_pe}[{t},{j}]", c.n.weight(f"{W_pe}[{t},{j}]")) for t in range(c.T)
                                  for j in range(c.dm)])]


def show_sinusoidal(c, a, words, i, figs) -> list:
    """Fixed positions: the formula (the op's), its frequencies, each position's vector with its closed form."""
    n, D, PE = c.n, OPS[a.op].DOCUMENT, a.out
    pe_lines = []
    for t in range(c.T):
        closed = [n.closed(f"{PE}[{t},{j}]") for j in range(c.dm)]
        vals = Vec(*[result(f"{PE}[{t},{j}]") for j in range(c.dm)])
        mid = vec([cl if cl else n.v(f"{PE}[{t},{j}]") for j, cl in enumerate(closed)]) if any(closed) else ""
        pe_lines.append(line(rf"\mathrm{{PE}}_{{{t}}}", None, vals, formula=mid))
    return [
        sub("tteach.pe_formula"),
        text("positional.intro"),
        display(D["formula"]),
        sub("tteach.pe_values", d=num(c.dm)),
        text("positional.base", base=tex(n.rational(a.opt("base"))), d=tex(c.dm)),
        display(*OPS[a.op].frequencies(a)),
        n.calc(*pe_lines)]


def show_sum(c, a, words, i, figs) -> list:
    """A residual sum: each row as the sum of its two inputs' rows (a lookup's entries printed as the weights
    they are), with the stage's formula and, where the stage asks, each row's closed form and the table."""
    n, w, h = c.n, words["sum"], words["row"] + c.mark(a)
    lines = []
    for t in range(c.T):
        terms = [Vec(*[c.operand(x, t, j) for j in range(c.dm)]) for x in a.ins]
        lines.append(line(rf"{h}_{{{t}}}", Add(*terms), Vec(*[result(f"{a.out}[{t},{j}]") for j in range(c.dm)])))
        closed = [n.closed(f"{a.out}[{t},{j}]") for j in range(c.dm)] if w.get("closed") else []
        if any(closed):
            lines.append(rf"&= {vec([cl if cl else n.v(f'{a.out}[{t},{j}]') for j, cl in enumerate(closed)])}")
    formula = w["formula"](c.stream(a, w["input"])) if callable(w["formula"]) else w["formula"]
    steps = lead(c, w["lead"], [a]) + [display(formula), n.calc(*lines)]
    if "cap" not in w:
        return steps
    cap, args = c.caption(w, a)
    return steps + [c.pos_table(cap, a.out, args=args)]


# ---------------------------------------------------------------- attention

def W(ref):
    """A weight as an operand: printed from its exact text."""
    return fig(ref, weight=True)


def dot_sum(xs, ws) -> str:
    """The reference ``x0*w0+x1*w1`` of a dot product (a result that is no single node).

    >>> dot_sum(["Q[1,0]"], ["K[0,0]"])
    'Q[1,0]*K[0,0]'
    """
    return "+".join(f"{x}*{w}" for x, w in zip(xs, ws))


def show_attention(c, a, words, i, figs) -> list:
    """Self-attention, walked through: the projections, the scores and their scale, the mask, the softmax of
    each worked row, the weights' table and picture, the weighted sum (and W_O), head by head."""
    n, s, d = c.n, c.s, c.d
    g = d.graph
    pre, l = a.pre, a.opt("block")
    steps = [text("tteach.attention_lead")]
    if s.layers > 1 or s.heads > 1:
        steps.append(note("tteach.attention_where"))
    steps += [sub("tteach.attention_proj"), text("attention.intro")]
    at = c.where(l)
    shown = [nm for nm in ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V") if a.param(nm)]   # the biases, if any
    steps.append(display(*[rf"{param_label(a.param(nm))} &= {_bm(c, a.param(nm))}" for nm in shown],
                         figs=weight_figs(c, *[a.param(nm) for nm in shown])))
    # in a deeper model every symbol names its layer: Q^{(2)} = H^{(1)} {W_Q}^{[2]} (H^{(l-1)}, the layer before)
    x = (r"\mathrm{LN}_1" + at) if a.ins[0] == pre + "LN1" else ("H" + (rf"^{{({l})}}" if at else ""))
    P = {nm: param_label(a.param(nm)) for nm in shown}
    plus = {M: rf" + {P['b_' + M]}" if a.param("b_" + M) else "" for M in "QKV"}
    steps += [sub("tteach.attention_qkv"),
              display(",\\quad ".join(rf"{M}{at} = {x} {P['W_' + M]}{plus[M]}" for M in "QKV"))]
    hin = a.ins[0]
    for M, low in (("Q", "q"), ("K", "k"), ("V", "v")):
        Wn = a.param("W_" + M)
        steps.append(minor("attention.elem", M=tex(M)))
        for t in c.rows:
            lines = []
            for j in range(c.d.graph.groups[f"{pre}{M}"].shape[-1]):     # K, V: d_kv columns
                closed = n.closed(f"{pre}{M}[{t},{j}]", max_ops=8, rationals=True)
                lines.append(line(rf"{low}_{{{t},{j}}}{at}",
                                  affine_dot([fig(f"{hin}[{t},{i}]") for i in range(c.dm)],
                                             [W(f"{Wn}[{i},{j}]") for i in range(c.dm)], a.param("b_" + M), j),
                                  f"{pre}{M}[{t},{j}]", tail=rf" \quad \left(= {closed}\right)" if closed else ""))
            steps.append(n.calc(*lines))
        steps.append(c.pos_table("attention.M_cap", pre + M, args={"M": tex(M + at)}))
    group = s.heads // (a.opt("kv_heads") or s.heads)        # grouped-query: head h reads K, V head h // group
    kvc = lambda j: (j // c.dk // group) * c.dk + j % c.dk    # the column of K and V that query column j reads
    # rotary positions: Q and K turned by their positions before the scores read them
    qn, kn = (pre + "Q_rot", pre + "K_rot") if a.opt("rope") else (pre + "Q", pre + "K")
    if a.opt("rope"):
        steps += [sub("rope.sub"), text("rope.intro", base=tex(n.tex_rational(a.opt("rope")))),
                  display(r"\tilde{x}_{t,i} = x_{t,i} \cos(t\theta_i) - x_{t,i+d_k/2} \sin(t\theta_i),\quad "
                          r"\tilde{x}_{t,i+d_k/2} = x_{t,i+d_k/2} \cos(t\theta_i) + x_{t,i} \sin(t\theta_i),\quad "
                          r"\theta_i = b^{-2i/d_k}"),
                  c.pos_table("rope.Q_cap", qn), c.pos_table("rope.K_cap", kn), note("rope.zero")]
    # scores
    rs = n.e(sympy.sqrt(c.dk), c.fine)
    root = n.const(c.dk)
    steps += [sub("attention.scores"),
              display(r"S = \frac{Q K^{\top}}{\sqrt{d_k}} \in \mathbb{R}^{" + f"{c.T} \\times {c.T}" + "}"),
              text("attention.scores_meaning")]
    for h in range(s.heads):
        cols = range(h * c.dk, (h + 1) * c.dk)
        if s.heads > 1:
            steps.append(minor("attention.head", h=num(h + 1)))
        dots, scaled, sup = [], [], c.where(l, h)
        for t in c.rows:
            for s_ in range(c.T):
                qs, ks = [f"{qn}[{t},{j}]" for j in cols], [f"{kn}[{s_},{kvc(j)}]" for j in cols]
                dv = dot_sum(qs, ks)
                dots.append(line(rf"q_{{{t}}}{sup} \cdot k_{{{s_}}}{sup}", Dot(map(fig, qs), map(fig, ks)), dv))
                scaled.append(line(rf"S_{{{t},{s_}}}{sup}", Div(fig(dv), Sqrt(root)),
                                   f"{pre}S[{c.head_idx(h, t, s_)}]"))
        steps += [text("attention.dots"), n.calc(*dots),
                  text("attention.scale", dk=tex(c.dk), root=tex(rs), root_tex=tex(rf"\sqrt{{{c.dk}}}")),
                  n.calc(*scaled)]
    steps.append(note("attention.why_scale"))
    # mask
    steps += [sub("attention.mask"), text("attention.mask_text")]
    for h in range(s.heads):
        rows = []
        for t in range(c.T):
            rows.append([c.posl(t)] + [n.cell(f"{pre}S[{c.head_idx(h, t, s_)}]") if s_ <= t
                                       else math(r"-\infty") for s_ in range(c.T)])
        steps.append(table(c.per_head("attention.mask_cap"),
                           [word("query")] + [_colhead("key_at", s_) for s_ in range(c.T)],
                           rows, args={"h": num(h + 1), "l": num((l or 0) + 1)}))
    # softmax
    steps += [sub("attention.softmax"),
              display(r"A_{t,s} = \frac{\exp(S'_{t,s})}{\sum_{r \le t} \exp(S'_{t,r})}")]
    for h in range(s.heads):
        sup = c.where(l, h)
        for t in c.rows:
            Ss = [f"{pre}S[{c.head_idx(h, t, s_)}]" for s_ in range(t + 1)]
            ex = [f"exp({S})" for S in Ss]
            den = f"{pre}A_den[{c.head_idx(h, t)}]"
            lines = [line(rf"\exp(S_{{{t},{s_}}}{sup})", Exp(fig(S)), e) for s_, (S, e) in enumerate(zip(Ss, ex))]
            if len(ex) > 1:  # a sum of one term is the term
                lines.append(line(r"\textstyle\sum", Add(*map(fig, ex)), den))
            lines += [line(rf"A_{{{t},{s_}}}{sup}", Div(fig(e), fig(den)), f"{pre}A[{c.head_idx(h, t, s_)}]")
                      for s_, e in enumerate(ex)]
            steps += [text("attention.row", t=c.posl(t)), n.calc(*lines)]
        last = c.T - 1
        shares = [(s_, n.e(100 * g.sym(f"{pre}A[{c.head_idx(h, last, s_)}]"), max(c.k - 2, 0))) for s_ in range(c.T)]
        steps.append(note("attention.share", t=c.posl(last),
                          shares={"t": "list", "v": [{"t": "share", "v": p, "tok": c.toks[s_], "pos": str(s_),
                                                      "ref": f"{pre}A[{c.head_idx(h, last, s_)}]"}
                                                     for s_, p in shares]}))
        rows = [[c.posl(t)] + [n.cell(f"{pre}A[{c.head_idx(h, t, s_)}]") for s_ in range(c.T)]
                for t in range(c.T)]
        steps.append(table(c.per_head("attention.A_cap"),
                           [word("query")] + [_colhead("weight_at", s_) for s_ in range(c.T)],
                           rows, args={"h": num(h + 1), "l": num((l or 0) + 1)}))
        name = "attention" if s.layers == 1 and s.heads == 1 else f"attention-{l + 1}-{h + 1}"  # from 1
        figs[name] = heatmap([f"{t}" for t in range(c.T)], c.toks,
                             [[n.v(f"{pre}A[{c.head_idx(h, t, s_)}]") for s_ in range(c.T)] for t in range(c.T)],
                             [[s_ > t for s_ in range(c.T)] for t in range(c.T)])
        steps.append(figure(name, "attention.fig" if s.heads == 1 else c.per_head("attention.fig"),
                            h=num(h + 1), l=num((l or 0) + 1)))
    # weighted sum: the heads' outputs o (Attn_heads when W_O follows, else Attn itself)
    has_wo = a.param("W_O") is not None
    o = pre + ("Attn_heads" if has_wo else "Attn")
    steps += [sub("attention.sum"), display(r"\mathrm{Attn} = A V")]
    for t in c.rows:
        if s.heads == 1:
            terms_ = [Mul(fig(f"{pre}A[{t},{s_}]"), Vec(*[fig(f"{pre}V[{s_},{kvc(j)}]") for j in range(c.dm)]))
                      for s_ in range(t + 1)]
            steps.append(n.calc(line(rf"\mathrm{{attn}}_{{{t}}}{at}", Add(*terms_),
                                     Vec(*[result(f"{o}[{t},{j}]") for j in range(c.dm)]))))
        else:
            lines = []
            for j in range(c.dm):
                h = j // c.dk
                lines.append(line(rf"\mathrm{{attn}}_{{{t},{j}}}{at}",
                                  Dot([fig(f"{pre}A[{h},{t},{s_}]") for s_ in range(t + 1)],
                                      [fig(f"{pre}V[{s_},{kvc(j)}]") for s_ in range(t + 1)]), f"{o}[{t},{j}]"))
            steps.append(n.calc(*lines))
    if has_wo:  # (T, d) · (d, d): the heads mixed by W_O
        steps.append(text("attention.wo"))
        for t in c.rows:
            steps.append(n.calc(*[line(rf"\mathrm{{attn}}^{{O}}_{{{t},{j}}}",
                                       affine_dot([fig(f"{o}[{t},{i}]") for i in range(c.dm)],
                                                  [W(f"{a.param('W_O')}[{i},{j}]") for i in range(c.dm)],
                                                  a.param("b_O"), j),
                                       f"{a.out}[{t},{j}]")
                                  for j in range(c.dm)]))
    steps.append(c.pos_table("attention.Attn_cap", a.out))
    steps.append(note("attention.recap"))
    return steps


def affine_dot(xs, ws, b, j):
    """x·w, and + b[j] when the map has a bias ``b``: a worked line's right-hand side.

    >>> [len(affine_dot([fig("a"), fig("b")], [W("w"), W("v")], b, 0)["args"]) for b in (None, "b_Q")]
    [2, 3]
    """
    if b is None:
        return Dot(xs, ws)
    return Add(*[Mul(x, w) for x, w in zip(xs, ws)], W(f"{b}[{j}]"))


def _bm(c, group):
    grp = c.d.graph.groups[group]
    if len(grp.shape) == 1:
        return bmatrix([[c.n.weight(f"{group}[{i}]") for i in range(grp.shape[0])]])
    return bmatrix([[c.n.weight(f"{group}[{i},{j}]") for j in range(grp.shape[1])] for i in range(grp.shape[0])])


def weight_figs(c, *groups) -> list:
    """(reference, printed) of every weight of the groups, printed from its exact text."""
    return [(nm, c.n.weight(nm)) for group in groups for nm in c.d.graph.groups[group].names]


# ---------------------------------------------------------------- a norm, an affine map, an activation

def show_norm(c, a, words, i, figs) -> list:
    """A norm: its definition and parameters (its op's words), each worked row's lines as its op states them,
    the table, and its op's remark when there is one."""
    n, op = c.n, OPS[a.op]
    D = op.DOCUMENT
    key, stated = D["params"]
    steps = [sub(D["heading"]), display(D["definition"]),
             text(key, **{name: c.stated(a, kind, what) for name, kind, what in stated})]
    row, at = c.layered(D["row"], a)
    for t in c.rows:
        steps += [text(row, t=c.posl(t), h=n.vec([f"{a.ins[0]}[{t},{j}]" for j in range(c.dm)], kind=tex), **at),
                  n.calc(*op.worked_row(a, t, words["row"], c.param_value, c.fine, c.mark(a)))]
    cap, args = c.caption(words["norm"], a)
    steps.append(c.pos_table(cap, a.out, args=args))
    remark = op.remark(a, c.T - 1, c.k)
    return steps + (c.remark(remark, c.T - 1) if remark else [])


def show_affine(c, a, words, i, figs) -> list:
    """The i-th affine map of a stage: at each worked row, each output as a dot product plus the bias."""
    n, w = c.n, words["affine"][i]
    X, Wg, b = a.ins[0], a.param("W"), a.param("b")
    width = c.d.graph.groups[X].shape[-1]
    lhs, (row, at) = w["lhs"] + c.mark(a), c.layered(w["row"], a)
    rows = Rows()
    for t in c.rows:
        lines = [line(rf"{lhs}_{{{t},{k}}}",
                      Add(*[Mul(fig(f"{X}[{t},{j}]"), W(f"{Wg}[{j},{k}]")) for j in range(width)],
                          *([W(f"{b}[{k}]")] if b else [])), f"{a.out}[{t},{k}]")
                 for k in range(a.shape[-1])]
        rows.append([text(row, t=c.posl(t), **at), n.calc(*lines)])
    block = [x for x in c.plan if x.pre == a.pre and x.opt("section") == a.opt("section")]
    return [sub(w["sub"], **words_of(block)), rows] + ([c.pos_table(w["cap"], a.out)] if "cap" in w else [])


def show_activation(c, a, words, i, figs) -> list:
    """An activation: at each worked row, a table of its inputs, the branch each sign takes (when its op
    decides by sign) and its outputs; then its op's rule."""
    n, D = c.n, OPS[a.op].DOCUMENT
    Z, decide = a.ins[0], D.get("decisions")
    cap, at = c.layered(D["table"], a)
    rows = Rows()
    for t in c.rows:
        cells = [[num(k), c.cellv(f"{Z}[{t},{k}]")] + ([word(decide[c.d.sign(f"{Z}[{t},{k}]")])] if decide else [])
                 + [n.cell(f"{a.out}[{t},{k}]")] for k in range(a.shape[-1])]
        head = [word("unit"), math("z")] + ([word("decision")] if decide else []) + [math(rf"{D['symbol']}(z)")]
        rows.append([table(cap, head, cells, args={"t": c.posl(t), **at}, align="rr" + "l" * bool(decide) + "r")])
    return [rows, note(D["rule"])]


def show_gated(c, a, words, i, figs) -> list:
    """A gated MLP's hidden units: at each worked row, a table of the gate z, the up projection u and
    r = SiLU(z)·u; then what it computes."""
    n, D = c.n, OPS[a.op].DOCUMENT
    Z, U = a.ins
    cap, at = c.layered(D["table"], a)
    rows = Rows()
    for t in c.rows:
        cells = [[num(k), c.cellv(f"{Z}[{t},{k}]"), c.cellv(f"{U}[{t},{k}]"), n.cell(f"{a.out}[{t},{k}]")]
                 for k in range(a.shape[-1])]
        head = [word("unit"), math("z"), math("u"), math(r"\mathrm{SiLU}(z)\, u")]
        rows.append([table(cap, head, cells, args={"t": c.posl(t), **at}, align="rrrr")])
    return [rows, note(D["rule"])]


# ---------------------------------------------------------------- head, softmax

def show_head(c, a, words, i, figs) -> list:
    """The output layer: each logit as the dot product of h_final with a column of the head."""
    n, s = c.n, c.s
    tied, Wg, logits = a.opt("tied"), a.param("W"), a.out
    lines = []
    for v in range(c.V):
        ws = [W(f"{Wg}[{v},{j}]" if tied else f"{Wg}[{j},{v}]") for j in range(c.dm)]
        lines.append(line(rf"\mathrm{{logit}}_{{{mtext(s.vocab[v])}}}",
                          Dot([fig(f"h_final[{j}]") for j in range(c.dm)], ws), f"{logits}[{v}]"))
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}, n.cell(f"{logits}[{v}]")] for v in range(c.V)]
    return [
        text("head.intro_tied" if tied else "head.intro_untied"),
        display(r"\mathrm{logits} = h_{\mathrm{final}} E^{\top} \in \mathbb{R}^{" + str(c.V) + "}" if tied
                else r"\mathrm{logits} = h_{\mathrm{final}} W_{\mathrm{out}} \in \mathbb{R}^{" + str(c.V) + "}"),
        text("head.h", h=n.vec([f"h_final[{j}]" for j in range(c.dm)], kind=tex)),
        n.calc(*lines),
        table("head.cap", [word("token"), word("logit")], rows),
        note("head.skipped")]


def show_softmax(c, a, words, i, figs) -> list:
    """The softmax of the logits: the exponentials, their sum, the probabilities and their picture."""
    n, s, g = c.n, c.s, c.d.graph
    ex = [f"exp(logits[{v}])" for v in range(c.V)]
    lines = [line(rf"e^{{\mathrm{{logit}}_{{{mtext(s.vocab[v])}}}}}", Exp(fig(f"logits[{v}]")), ex[v])
             for v in range(c.V)]
    Z = n.v("sum_exp")
    pk = max(c.k - 2, 0)
    rows = []
    for v in range(c.V):
        rows.append([{"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": "target" if v == s.target else ""},
                     n.cell(f"logits[{v}]"), n.cell(ex[v]), n.cell(f"p[{v}]"),
                     {"t": "pct", "v": n.e(100 * g.sym(f"p[{v}]"), pk), "ref": f"p[{v}]"}])
    best = sampling.greedy(c.d)
    figs["probs"] = bars(list(s.vocab), [n.v(f"p[{v}]") for v in range(c.V)], best.id, s.target)
    return [
        text("softmax.intro"),
        display(r"p_i = \frac{\exp(\mathrm{logit}_i)}{\sum_{j} \exp(\mathrm{logit}_j)}"),
        sub("softmax.num"), n.calc(*lines),
        sub("softmax.den"), n.calc(line("Z", Add(*map(fig, ex)), "sum_exp")),
        sub("softmax.norm"),
        table("softmax.cap", [word("token"), word("logit"), math(r"e^{\mathrm{logit}}"), math("p"), word("percent")],
              rows, args={"Z": tex(Z)}),
        sub("tteach.softmax_picture"),
        figure("probs", "softmax.fig", best=tok(best.token), target=tok(s.vocab[s.target]))]


LAYOUTS = {"lookup": show_lookup, "sinusoidal": show_sinusoidal, "learned": show_learned, "sum": show_sum,
           "attention": show_attention, "norm": show_norm, "affine": show_affine, "activation": show_activation,
           "gated": show_gated,
           "head": show_head, "softmax": show_softmax}
"""Each layout an op's document facet may name (``DOCUMENT["layout"]``): ``(c, a, words, i, figs)`` → the
steps (and :class:`Rows`) of one application, ``words`` its stage's (:data:`STAGES`), ``i`` which application
of this layout in the stage it is."""


# ---------------------------------------------------------------- sampling

def sample(c):
    n, s, d = c.n, c.s, c.d
    sp = s.sampling
    best = sampling.greedy(d)
    order, _ = sampling.ranking(d)
    steps = [text("sample.intro"), sub("sample.greedy"),
             n.calc(line(r"\arg\max_v p_v", None, result(f"p[{best.id}]"),
                         formula=rf"{best.id} \;\Rightarrow\; {mtext(best.token)},\quad p")),
             text("sample.greedy_right" if best.id == s.target else "sample.greedy_wrong",
                  best=tok(best.token), target=tok(s.vocab[s.target]))]
    if best.ties:
        steps.append(note("sample.ties"))
    # temperature
    shown = list(range(c.V)) if c.V <= 6 else sorted(set(order[:3]) | {s.target})
    rows = []
    for T in sp.temperatures:
        probs = sampling.temperature(d, T)
        label = math(r"T \to \infty") if T is sympy.oo else math(f"T = {n.rational(T)}")
        kind = ("temp_uniform" if T is sympy.oo
                else "temp_sharp" if T < 1 else "temp_same" if T == 1 else "temp_flat")
        tref = "inf" if T is sympy.oo else n.rational(T)
        ok = T is sympy.oo or "frac" not in tref
        rows.append([label] + [num(n.e(probs[v]), f"softmax_T({tref}, {v})" if ok else None) for v in shown]
                    + [word(kind)])
    steps += [sub("sample.temperature"),
              display(r"p_i^{(T)} = \frac{\exp(\mathrm{logit}_i / T)}{\sum_j \exp(\mathrm{logit}_j / T)}"),
              text("sample.temp_text"),
              table("sample.temp_cap", [word("temperature")] + [{"t": "ptok", "v": s.vocab[v]} for v in shown]
                    + [word("character")], rows, align="l" + "r" * len(shown) + "l")]
    # top-k
    tk = sampling.top_k(d, sp.top_k)
    kept = [{"t": "share", "v": n.e(100 * n.sym(f"p[{v}]"), max(c.k - 2, 0)), "tok": s.vocab[v], "pos": str(v),
             "ref": f"p[{v}]"} for v in tk.kept]
    renorm = tex(vec([n.e(tk.probs[v]) for v in tk.kept]),
                 [(f"topk({sp.top_k}, {v})", n.e(tk.probs[v])) for v in tk.kept])
    steps += [sub("tteach.sample_topkp"), minor("sample.topk", k=num(sp.top_k)),
              text("sample.topk_text", k=num(sp.top_k), kept={"t": "list", "v": kept}, renorm=renorm)]
    # top-p
    tp = sampling.top_p(d, sp.top_p)
    cum = [(order[i], n.e(tp.cumulative[i]), "+".join(f"p[{u}]" for u in order[:i + 1])) for i in range(len(order))]
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}, n.cell(f"p[{v}]"), num(cv, cref),
             word("kept" if v in tp.kept else "dropped")] for v, cv, cref in cum]
    steps += [minor("sample.topp", P=num(n.rational(sp.top_p))),
              text("sample.topp_text", P=num(n.rational(sp.top_p)), m=num(len(tp.kept))),
              table("sample.topp_cap", [word("token"), math("p"), word("cumulative"), word("kept_col")], rows,
                    args={"P": num(n.rational(sp.top_p))}, align="lrrl")]
    # seeded draw
    ch = sampling.draw(d, sp.uniform)
    acc, rows = sympy.S.Zero, []
    for v in range(c.V):
        lo = n.e(acc)
        acc = acc + n.sym(f"p[{v}]")
        rows.append([{"t": "tokid", "v": str(v), "tok": s.vocab[v]},
                     num(lo, "+".join(f"p[{u}]" for u in range(v)) or None),
                     num(n.e(acc), "+".join(f"p[{u}]" for u in range(v + 1))),
                     word("chosen" if v == ch.id else "blank")])
    steps += [sub("tteach.sample_to_token"),
              text("sample.draw_text", u=tex(n.rational(sp.uniform))),
              table("sample.draw_cap", [word("token"), word("from"), word("to"), word("drawn_col")], rows,
                    args={"u": num(n.rational(sp.uniform))}, align="lrrl"),
              display(rf"\mathrm{{vocab}}[{ch.id}] = {mtext(ch.token)}"),
              text("sample.append", text_=tok(joined([*c.toks, ch.token])))]
    if sp.n_continue:
        cont = sampling.continue_greedy(d, sp.n_continue)
        steps += [sub("sample.continue", m=num(sp.n_continue)),
                  text("sample.continue_text", m=num(sp.n_continue),
                       seq=tok(joined([*c.toks, *(x.token for x in cont)])),
                       new={"t": "toklist", "v": [x.token for x in cont]})]
    return {"id": "sample", "steps": steps}


# ---------------------------------------------------------------- training

def training(c, figs):
    n, s, d, g = c.n, c.s, c.d, c.d.graph
    t = s.target
    tt = s.vocab[t]
    dsteps = softmax_ce_steps(c.V, t)
    every = s.training.all_positions                 # the loss over every position (a language model's)
    steps = [text("train.intro"), sub("train.sample"),
             display(rf"\text{{input}} = {vec([mtext(x) for x in c.toks])},\quad "
                     rf"\text{{target}} = {mtext(tt)}\ (\mathrm{{id}} = {t})"),
             sub("train.loss"), _loss_line(c) if every else
             n.calc(line(r"\mathcal{L}", Neg(Ln(fig(f"p[{t}]"))), "loss", formula=rf"-\ln p_{{{mtext(tt)}}}")),
             text("train.loss_text_every", T=num(len(s.input))) if every else text("train.loss_text"),
             sub("train.pminusy"), text("train.pminusy_text", t=tex(t)),
             derivation_step(dsteps)]
    if every:
        steps.append(text("train.pminusy_every", T=num(len(s.input))))
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": "target" if v == t else ""},
             n.cell(f"p[{v}]"), num(1 if v == t else 0), n.cell(f"grad_logits[{v}]")] for v in range(c.V)]
    last = rf"(p_i - y_i) / {len(s.input)}" if every else r"p_i - y_i"
    steps += [table("train.grad_cap", [word("token"), math("p_i"), math("y_i"), math(last)], rows),
              note("train.grad_sign", target=tok(tt))]
    alone = s.tied and not every and not batch(s)    # the output path alone: document 000's one position, one example
    if alone:
        rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}]
                + [n.cell(f"grad_E_head[{v},{j}]") for j in range(c.dm)]
                for v in range(c.V)]
        steps += [sub("train.head"), text("train.head_text"),
                  display(r"\frac{\partial \mathcal{L}}{\partial E_i}\Big|_{\mathrm{head}} "
                          r"= (p_i - y_i)\, h_{\mathrm{final}}"),
                  table("train.head_cap", [word("token")] + [_colhead("dim", j) for j in range(c.dm)], rows)]
        lr = s.training.lr
        old = Vec(*[W(f"E[{t},{j}]") for j in range(c.dm)])
        gr = Vec(*[fig(f"grad_E_head[{t},{j}]") for j in range(c.dm)])
        new = [f"head_step.E[{t},{j}]" for j in range(c.dm)]
        lr_s = n.rational(lr)
        rise = f"head_step.logits[{t}]-logits[{t}]"
        steps += [sub("train.sgd"), text("train.sgd_text", lr=tex(lr_s), target=tok(tt)),
                  display(rf"E_{{{mtext(tt)}}} \leftarrow "
                          rf"E_{{{mtext(tt)}}} - \eta \frac{{\partial \mathcal{{L}}}}{{\partial E_{{{mtext(tt)}}}}}"),
                  n.calc(rf"E^{{\mathrm{{old}}}} &= {vec([n.weight(f'E[{t},{j}]') for j in range(c.dm)])}",
                         line(r"\nabla", None, Vec(*[result(f"grad_E_head[{t},{j}]") for j in range(c.dm)])),
                         line(r"E^{\mathrm{new}}", Sub(old, Mul(n.const(lr), gr)), Vec(*map(result, new)))),
                  sub("train.check"),
                  n.calc(line(rf"\mathrm{{logit}}^{{\mathrm{{new}}}}_{{{mtext(tt)}}}",
                              Dot([fig(f"h_final[{j}]") for j in range(c.dm)], map(fig, new)), f"head_step.logits[{t}]",
                              formula=r"h_{\mathrm{final}} \cdot E^{\mathrm{new}}"),
                         line(rf"\mathrm{{logit}}^{{\mathrm{{old}}}}_{{{mtext(tt)}}}", None, f"logits[{t}]")),
                  text("train.rise", rise=num(n.v(rise), rise))]
    # the chain the gradient runs back along, read off the graph's adjoints
    figs["backprop"] = diagrams.backprop_chain(d)
    steps += [sub("tteach.train_chain"), text("tteach.train_chain_text"),
              figure("backprop", "tteach.backprop_fig"), note("tteach.train_chain_note")]
    # full gradient
    steps += [sub("train.full"), text("train.full_text")]
    mean = "sgd[0]." if batch(s) else ""        # a mini-batch: the mean of its examples' gradients
    if mean:
        steps.append(text("train.batch", n=num(len(s.training.examples)), loss=n.cell("sgd[0].loss")))
    learn = set(learnable(d))
    for group in s.params:
        grp = g.groups[group]
        if not any(nm in learn for nm in grp.names):
            continue
        label = param_label(group)
        if len(grp.shape) == 2:
            rlab = ((lambda i: {"t": "tokid", "v": str(i), "tok": s.vocab[i]}) if grp.axes[0] == "v"
                    else (lambda i: num(i)))
            rows = [[rlab(i)] + [c.cellv(f"{mean}grad_{group}[{i},{j}]") for j in range(grp.shape[1])]
                    for i in range(grp.shape[0])]
            head = [word("row")] + [_colhead("col", j) for j in range(grp.shape[1])]
        else:
            rows = [[num(i), c.cellv(f"{mean}grad_{group}[{i}]")] for i in range(grp.shape[0])]
            head = [word("index"), math(r"\partial \mathcal{L} / \partial " + label)]
        steps.append(table("train.full_cap", head, rows, args={"P": tex(label)}))
    if alone:                                   # (the output path's table stands above only then)
        steps.append(note("train.tied_paths"))
    if c.dm == 2:
        steps.append(note("train.tiny_grads"))
    # full-gradient step
    tr_rows = [[math(rf"E_{{{mtext(tt)}}}"), math(vec([n.weight(f'E[{t},{j}]') for j in range(c.dm)])),
                n.vec([f"head_step.E[{t},{j}]" for j in range(c.dm)]) if alone else word("blank"),
                n.vec([f"sgd[1].E[{t},{j}]" for j in range(c.dm)])],
               [math(rf"\mathrm{{logit}}_{{{mtext(tt)}}}"), n.cell(f"logits[{t}]"),
                n.cell(f"head_step.logits[{t}]") if alone else word("blank"), n.cell(f"sgd[1].logits[{t}]")],
               [math(rf"p_{{{mtext(tt)}}}"), n.cell(f"p[{t}]"),
                n.cell(f"head_step.p[{t}]") if alone else word("blank"), n.cell(f"sgd[1].p[{t}]")],
               [math(r"\mathcal{L}"), n.cell("sgd[0].loss" if batch(s) else "loss"),
                n.cell("head_step.loss") if alone else word("blank"), n.cell("sgd[1].loss")]]
    if not alone:                      # no update along the output path alone: no column for it
        tr_rows = [r[:2] + r[3:] for r in tr_rows]
    steps += [sub("train.fullstep"),
              text("train.fullstep_text" if alone else "train.fullstep_text_full", lr=tex(n.rational(s.training.lr))),
              table("train.fullstep_cap", [word("quantity"), word("before")] + [word("head_only")] * alone +
                    [word("full_step")], tr_rows, align="lrrr" if alone else "lrr")]
    steps += loss_curve(c, figs)
    steps.append(note("train.loop"))
    return {"id": "train", "steps": steps}


def _loss_line(c):
    """The language-model loss, the mean over the positions of −ln p_t(next token):
    ``(−ln p₀ − ln p₁ − ln p₂) / 3``, each p_t a softmax of that position's logits (the last one's is ``p``)."""
    n, s = c.n, c.s
    T, V = len(s.input), s.V
    nexts = list(s.input[1:]) + [s.target]
    terms = []
    for at, y in enumerate(nexts):
        if at == T - 1:
            terms.append(Neg(Ln(fig(f"p[{y}]"))))
            continue
        z = f"logits_at{at}"
        denominator = " + ".join(f"exp({z}[{v}])" for v in range(V))
        terms.append(Neg(Ln(fig(f"exp({z}[{y}]) / ({denominator})"))))
    total = terms[0]
    for x in terms[1:]:
        total = Add(total, x)
    return n.calc(line(r"\mathcal{L}", Div(total, exact(str(T))), "loss",
                       formula=rf"-\frac{{1}}{{{T}}} \sum_t \ln p_t(x_{{t+1}})"))


def loss_curve(c, figs):
    """The loss table over the reported steps and its picture (when there are steps to show)."""
    n, s = c.n, c.s
    tr = s.training
    if tr.steps < 2:
        return []
    t = s.target
    rows = [[num(k), n.cell(f"sgd[{k - 1}].loss"), n.cell(f"sgd[{k - 1}].p[{t}]")]
            for k in tr.report if k >= 1]
    figs["loss"] = curve(list(range(1, tr.steps + 1)), [n.v(f"sgd[{k}].loss") for k in range(tr.steps)])
    return [sub("train.curve"), text("train.curve_text_batch" if batch(s) else "train.curve_text", steps=num(tr.steps)),
            table("train.curve_cap", [word("step"), math(r"\mathcal{L}"), math(rf"p_{{{mtext(s.vocab[t])}}}")], rows),
            figure("loss", "train.curve_fig")]


# ---------------------------------------------------------------- summary

def summary_row(c, key, run) -> list:
    """A stage in the summary: its output's symbol (a block's the last one's), shape and value at the last
    position (a vector output: all of it).

    >>> import symgpt
    >>> from symgpt.documents.blocks import Numbers
    >>> d = symgpt.load("tiny-transformer")
    >>> c = Ctx(d, Numbers(d, 3))
    >>> print(*[summary_row(c, key, run)[1]["v"] for key, run in stages(c.plan)])
    X H^{(0)} \\mathrm{Attn} \\mathrm{LN}_1 \\mathrm{FFN} \\mathrm{LN}_2 \\mathrm{logits} p
    """
    shown = STAGES.get(key, {}).get("summary", r"\mathrm{" + key + "}")
    if callable(shown):
        return shown(c, run)
    group, n = run[-1].out, c.n
    last = f"^{{({c.s.layers})}}" if layer_of(run[0], c.s.layers) else ""  # a deeper model's blocks: the last one
    shape = c.d.graph.groups[group].shape
    if len(shape) == 2:
        size = math(rf"{shape[0]} \times {shape[1]}")
        value = n.vec([f"{group}[{c.T - 1},{j}]" for j in range(shape[1])])
    else:
        refs = [f"{group}[{v}]" for v in range(shape[0])]
        size = math(str(shape[0]))
        value = math(r"\left[" + ", ".join(n.v(r) for r in refs) + r"\right]", [(r, n.v(r)) for r in refs])
    return [word(f"sec_{key}"), math(shown + last), size, value]


def probability_row(c) -> list:
    """The softmax in the summary: the target's probability."""
    s, n = c.s, c.n
    p = f"p[{s.target}]"
    return [word("sec_softmax"), math("p"), math(str(c.V)),
            math(rf"p_{{{mtext(s.vocab[s.target])}}} = {n.v(p)}", [(p, n.v(p))])]


def summary(c):
    n, s = c.n, c.s
    t = c.T - 1
    best = sampling.greedy(c.d)
    rows = [[word("sec_tokenize"), math(rf"\left[{', '.join(map(str, s.input))}\right]"), math(str(c.T)),
             math(str(s.input[t]))]]
    rows += [summary_row(c, key, run) for key, run in stages(c.plan) if run[0].opt("block") in (None, s.layers - 1)]
    if s.layers > 1:  # the last block's output is the H^{(L)} its caption names: the row says so
        last = max(i for i, (key, run) in enumerate(stages(c.plan)) if run[0].opt("block") == s.layers - 1)
        row = rows[1 + sum(1 for key, run in stages(c.plan)[:last] if run[0].opt("block") in (None, s.layers - 1))]
        row[1] = math(row[1]["v"] + rf" = H^{{({s.layers})}}")
    rows += [[word("sec_sample"), math(r"\arg\max"), math("1"), tok(best.token)],
             [word("sec_training"), math(r"\mathcal{L}"), math("1"), n.cell("loss")]]
    return {"id": "summary", "steps": [
        text("summary.intro"),
        table("summary.cap", [word("stage"), word("output"), word("shape"), word("at_last")], rows,
              args={"t": c.posl(t)}, align="llll"),
        sub("tteach.scale"), text("tteach.scale_text"), scale_table(c), note("summary.scale"),
        sub("tteach.next"), text("tteach.next_text"),
        sub("tteach.diy"), text("tteach.diy_text"),
        display(r"&\text{python -m symgpt.render }" + mtext(s.name)
                + r"\text{ -{}-format md,claims -{}-lang all -{}-out out}",
                r"&\text{python -m symgpt.verify }" + mtext(f"out/{s.name}.en.claims.toml")),
        text("tteach.diy_torch")]}


def scale_table(c):
    """Table 13-2: our model beside published ones, every count from the one formula :func:`scale.params`."""
    s = c.s
    ours = scale.of_spec(s)
    rows = [[math(mtext(s.name)), num(s.layers), num(s.heads), num(s.d), num(s.V), num(s.T),
             num(scale.grouped(scale.params(ours)), "params()"), word("scale_ours")]]
    for m in scale.published():
        rows.append([math(mtext(m["name"])), num(m["n_layer"]), num(m["n_head"]), num(scale.grouped(m["n_embd"])),
                     num(scale.grouped(m["vocab"])), num(scale.grouped(m["n_ctx"])),
                     num(scale.grouped(scale.params(scale.gpt2(m)))), tok(m["source"])])
    head = [word("name"), math("L"), math("h"), math("d"), math("V"), math(r"n_{\mathrm{ctx}}"), word("count"),
            word("sizes_from")]
    return table("tteach.scale_cap", head, rows, align="lrrrrrrl")
