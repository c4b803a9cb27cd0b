"""Diagrams as data: the pipeline of a forward pass and the chain of a backward pass.

A diagram is a plain dict of boxes and arrows on a grid of abstract units
(x to the right, y downwards), so the SVG here and the TikZ of
``templates/tex/diagram.tex.j2`` draw the same picture from the same numbers.
A box's label is ``svg`` (plain text, XML-escaped when drawn) and ``tex``
(trusted LaTeX, math mode), or ``tok`` (a token: user text, escaped by each
format's own filter).

The backward chain is read off the graph itself (:func:`chain_rows`): which
adjoint nodes feed which, grouped by quantity name, so a deeper model draws
a longer chain without being told.

>>> import symgpt
>>> d = symgpt.load("tiny-transformer")
>>> fig = pipeline(["我", "爱"], "你", layers=1, heads=1)
>>> fig["kind"], fig["boxes"][0]["tok"], fig["boxes"][-1]["tok"]
('diagram', '我爱', '你')
>>> svg(fig).startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from xml.sax.saxutils import escape

from ..core.safe import visible
from ..engine import models
from ..engine.arch import Arch, stages
from ..ops import OPS, facet
from ..training.train import learnable
from .tokens import joined

UNIT = 40          # SVG pixels per unit
BOX_H = Fraction(7, 10)
GAP = Fraction(1, 2)
FONT = "font-family=\"Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif\""
MAX_REPEATED = 3   # layers drawn one by one up to this many; beyond, one block marked × L


def _box(i, label_svg=None, label_tex=None, token=None, kind="stage", x=Fraction(1, 2), w=9) -> dict:
    y = (BOX_H + GAP) * i
    b = {"x": str(x), "y": str(y), "w": str(w), "h": str(BOX_H), "kind": kind,
         "cx": str(Fraction(x) + Fraction(w) / 2), "cy": str(y + BOX_H / 2)}
    if token is not None:
        b["tok"] = token
    else:
        b["svg"], b["tex"] = label_svg, label_tex
    return b


def _arrow(a: dict, b: dict) -> dict:
    """An arrow from the bottom middle of box a to the top middle of box b."""
    ax, bx = Fraction(a["x"]) + Fraction(a["w"]) / 2, Fraction(b["x"]) + Fraction(b["w"]) / 2
    return {"points": [[str(ax), str(Fraction(a["y"]) + Fraction(a["h"]))], [str(bx), b["y"]]]}


def _attention(run) -> tuple:
    heads = run[0].opt("heads")
    if run[0].opt("rope"):   # the scores read the queries and keys turned by their positions
        return ("Attn = softmax(Q̃K̃ᵀ/√dₖ) V, RoPE",
                r"\mathrm{Attn} = \mathrm{softmax}(\tilde{Q} \tilde{K}^{\top} / \sqrt{d_k})\, V")
    if heads == 1:
        return "Attn = softmax(QKᵀ/√dₖ) V", r"\mathrm{Attn} = \mathrm{softmax}(Q K^{\top} / \sqrt{d_k})\, V"
    wo = run[0].param("W_O") is not None   # the heads side by side, mixed by W_O only when the spec has one
    return (f"Attn = [head₁, …, head{_sub(heads)}]" + (" W_O" if wo else ""),
            rf"\mathrm{{Attn}} = [\mathrm{{head}}_1, \dots, \mathrm{{head}}_{{{heads}}}]" + (r"\, W_O" if wo else ""))


def _ffn(run) -> tuple:
    act = next(OPS[a.op].DOCUMENT for a in run if OPS[a.op].DOCUMENT["layout"] == "activation")
    return (f"FFN = {act['name']}(h W₁ + b₁) W₂ + b₂", rf"\mathrm{{FFN}} = {act['symbol']}(h W_1 + b_1) W_2 + b_2")


PICTURES = {
    "embed": lambda run: ("X = E[ids]", r"X = E[\mathrm{ids}]"),
    "positional": lambda run: ("H⁽⁰⁾ = X + PE", r"H^{(0)} = X + \mathrm{PE}"),
    "learned_positional": lambda run: ("H⁽⁰⁾ = X + W_pe[t]", r"H^{(0)} = X + W_{\mathrm{pe}}[t]"),
    "attention": _attention,
    "residual1": lambda run: ("H' = H + Attn → LN₁", r"H' = H + \mathrm{Attn} \to \mathrm{LN}_1"),
    "norm1": lambda run: ("LN₁(H)", r"\mathrm{LN}_1(H)"),
    "add1": lambda run: ("H' = H + Attn", r"H' = H + \mathrm{Attn}"),
    "norm2": lambda run: ("LN₂(H')", r"\mathrm{LN}_2(H')"),
    "add2": lambda run: ("H'' = H' + FFN", r"H'' = H' + \mathrm{FFN}"),
    "final_norm": lambda run: ("LN_f(H'')", r"\mathrm{LN}_f(H'')"),
    "ffn": _ffn,
    "ffn_gated": lambda run: ("FFN = (SiLU(h W₁) ⊙ h W₃) W₂", r"\mathrm{FFN} = (\mathrm{SiLU}(h W_1) \odot h W_3) W_2"),
    "residual2": lambda run: ("H'' = LN₁ + FFN → LN₂", r"H'' = \mathrm{LN}_1 + \mathrm{FFN} \to \mathrm{LN}_2"),
    "head": lambda run: (("logits = h Eᵀ", r"\mathrm{logits} = h E^{\top}") if run[0].opt("tied") else
                         ("logits = h W_out", r"\mathrm{logits} = h W_{\mathrm{out}}")),
    "softmax": lambda run: ("p = softmax(logits)", r"p = \mathrm{softmax}(\mathrm{logits})"),
}
"""The box of each stage of the plan (:func:`symgpt.engine.arch.stages`): its SVG text and its LaTeX, from its
applications (the heads, the tied head, the activation's name from its op's document facet)."""


def pipeline(tokens, predicted: str, layers: int, heads: int, tied: bool = True, ids=None, plan=None) -> dict:
    """The forward pass as a column of stages: tokens in, the predicted token out.

    One box per stage of the ``plan`` (the model's; by default the seed's wiring with these sizes),
    labelled as :data:`PICTURES` says.  Each block is drawn once per layer up to :data:`MAX_REPEATED` layers,
    else once inside a frame marked ``× L``.

    The labels are formulas and names of quantities, so one SVG serves every
    language; the PDF's frames say "layer" in the document's language.

    >>> f = pipeline(["a"], "b", layers=2, heads=2, ids=[0])
    >>> [b["svg"] for b in f["boxes"] if b.get("svg", "").startswith("Attn")]
    ['Attn = [head₁, …, head₂]', 'Attn = [head₁, …, head₂]']
    >>> wo = Arch(kind="transformer", V=1, d=2, heads=2, d_ff=1, layers=1, W_O=True).plan(1)
    >>> [b["svg"] for b in pipeline(["a"], "b", 1, 2, plan=wo)["boxes"] if b.get("svg", "").startswith("Attn")]
    ['Attn = [head₁, …, head₂] W_O']
    >>> [fr["svg"] for fr in f["frames"]], pipeline(["a"], "b", 5, 1)["frames"][0]["svg"], f["boxes"][1]["svg"]
    (['[1]', '[2]'], '× 5', 'ids = [0]')
    """
    if plan is None:
        plan = Arch(kind="transformer", V=1, d=heads, heads=heads, d_ff=1, layers=layers, tied=tied).plan(1)
    ids_svg = "ids = [" + ", ".join(map(str, ids)) + "]" if ids is not None else "ids"
    boxes = [_box(0, token=joined(tokens), kind="token"),
             _box(1, ids_svg, r"\mathrm{" + ids_svg.replace("ids", "ids}", 1))]
    frames = []
    shown = layers if layers <= MAX_REPEATED else 1
    for block, run in itertools.groupby(stages(plan), key=lambda stage: stage[1][0].opt("block")):
        if block is not None and block >= shown:
            continue
        first = len(boxes)
        for key, apps in run:
            boxes.append(_box(len(boxes), *PICTURES[key](apps)))
        if block is None:
            continue
        top = Fraction(boxes[first]["y"]) - Fraction(1, 5)
        bottom = Fraction(boxes[-1]["y"]) + BOX_H + Fraction(1, 5)
        label = (f"[{block + 1}]", rf"[{block + 1}]") if layers <= MAX_REPEATED else \
            (f"× {layers}", rf"\times {layers}")
        frames.append({"x": "0", "y": str(top), "w": "10", "h": str(bottom - top),
                       "svg": label[0], "tex": label[1], "layer": str(block + 1) if layers <= MAX_REPEATED else ""})
    n = len(boxes)
    boxes += [_box(n, "argmax p", r"\arg\max\, p"), _box(n + 1, token=predicted, kind="token")]
    arrows = [_arrow(a, b) for a, b in zip(boxes, boxes[1:])]
    return _frame_data(boxes, arrows, frames)


def _sub(n: int) -> str:
    """``n`` in subscript digits (for SVG text).

    >>> _sub(12)
    '₁₂'
    """
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _frame_data(boxes, arrows, frames, side=()) -> dict:
    width = max([Fraction(b["x"]) + Fraction(b["w"]) for b in boxes]
                + [Fraction(fr["x"]) + Fraction(fr["w"]) + 2 for fr in frames])
    height = max(Fraction(b["y"]) + Fraction(b["h"]) for b in boxes)
    return {"kind": "diagram", "boxes": boxes, "arrows": arrows, "frames": frames, "side": list(side),
            "width": str(width), "height": str(height)}


# ---------------------------------------------------------------- the backward chain

def flow(graph, prefix: str = "grad_") -> dict:
    """Which quantity's adjoint feeds which: {group: set of groups its gradient reaches}.

    Read from the adjoint nodes' own inputs: ``grad_H0[t,j]`` uses
    ``grad_Q[…]``, so the gradient flows Q → H0.  The loss feeds the adjoints
    that use no other adjoint (softmax and cross-entropy fused: ``p - y``).

    >>> import symgpt
    >>> f = flow(symgpt.load("tiny-transformer").graph)
    >>> sorted(f["loss"]), sorted(f["S"])
    (['logits'], ['K', 'Q'])
    """
    out: dict = {}
    for name in graph.order:
        node = graph.nodes[name]
        if not name.startswith(prefix) or node.group == prefix + "loss":
            continue
        target = node.group[len(prefix):]
        feeds = [graph.nodes[i].group[len(prefix):] for i in node.inputs if i.startswith(prefix)]
        if not feeds and node.expr is not None and node.expr != 0:
            feeds = ["loss"]
        for src in feeds:
            if src != target:
                out.setdefault(src, set()).add(target)
    return out


def chain_rows(d) -> tuple:
    """The backward chain as rows, from the loss down to E, and the parameters beside them.

    Quantities are grouped by name (every entry of Q is one ``Q``); the
    statistics inside an op (its ``inner`` groups: a norm's μ and σ², the softmax sums) are
    passed through; quantities no parameter influences (the fixed positional
    encoding) and parameters that are not trained are left out.  A quantity's
    row is its longest distance from the loss, so every arrow points down.
    Returns ``(rows, side, edges)``: rows of group names, (group, parameter)
    pairs for the parameters whose gradient leaves the chain at that group,
    and the arrows {group: groups its gradient reaches}.

    >>> import symgpt
    >>> rows, side, edges = chain_rows(symgpt.load("tiny-transformer"))
    >>> rows[:4], rows[-1], ("Q", "W_Q") in side
    ([['loss'], ['logits'], ['h_final'], ['LN2']], ['E'], True)
    """
    g, spec = d.graph, d.spec
    learn = {g.nodes[n].group for n in learnable(d)}
    params = set(spec.params)
    f = flow(g)
    inner = {grp for a in models.plan(spec) for grp in facet(a.op, "inner")(a)}
    # pass the ops' inner statistics through: a → statistic → b becomes a → b
    def reach(grp, seen=()):
        out = set()
        for t in f.get(grp, ()):
            if t in inner and t not in seen:
                out |= reach(t, seen + (t,))
            elif t not in inner:
                out.add(t)
        return out
    chain_params = {"E", "W_out"}
    moved = {a: reach(a) for a in list(f) if a not in inner}
    # keep what a trained parameter influences (the positional encoding does not)
    touched: set = set()   # nodes some trained parameter flows into, in one forward sweep
    for name in g.order:
        node = g.nodes[name]
        if node.group in learn or any(i in touched for i in node.inputs):
            touched.add(name)
    influenced = {g.nodes[n].group for n in touched} | {"loss"}
    side, edges = [], {}
    for a, targets in moved.items():
        if a not in influenced:
            continue
        for b in targets:
            if b in params and b not in chain_params:
                if b in learn:
                    side.append((a, b))
            elif b in influenced or b in chain_params:
                edges.setdefault(a, set()).add(b)
    depth = {"loss": 0}
    order = [n for n in ["loss"] + [gr for gr in g.groups] if n in edges or n in chain_params or n == "loss"]
    changed = True
    while changed:  # longest path over a DAG: relax until stable (a few passes)
        changed = False
        for a in order:
            if a not in depth:
                continue
            for b in edges.get(a, ()):
                if depth.get(b, -1) < depth[a] + 1:
                    depth[b] = depth[a] + 1
                    changed = True
    rows: list = [[] for _ in range(max(depth.values()) + 1)]
    for grp in g.groups:
        if grp in depth and grp != "loss":
            rows[depth[grp]].append(grp)
    rows[0] = ["loss"]
    return [r for r in rows if r], sorted(set(side), key=lambda p: (depth.get(p[0], 0), p[1])), edges


def label(group: str) -> tuple:
    """(SVG text, LaTeX math) of a quantity's name; a block's layer, from 1, as a superscript.

    >>> label("loss")[0], label("l1.Q")
    ('L', ('Q⁽²⁾', '\\\\mathtt{Q}^{(2)}'))
    """
    layer, _, name = group.rpartition(".")
    if name == "loss":
        return "L", r"\mathcal{L}"
    svg_, tex_ = name, r"\mathtt{" + name.replace("_", r"\_") + "}"
    if layer:
        k = str(int(layer[1:]) + 1)
        svg_ += "⁽" + k.translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")) + "⁾"
        tex_ += "^{(" + k + ")}"
    return svg_, tex_


def backprop_chain(d) -> dict:
    """The backward chain of a derivation as a diagram (see :func:`chain_rows`).

    Boxes in rows, an arrow for every adjoint that feeds another; an arrow
    that skips rows (a residual connection, the tied output layer) runs down
    a lane on the right.  The trained parameters each row hands a gradient
    to are listed beside it.

    >>> import symgpt
    >>> fig = backprop_chain(symgpt.load("tiny-transformer"))
    >>> fig["boxes"][0]["svg"], fig["boxes"][-1]["svg"], fig["side"][0]["svg"]
    ('L', 'E', '∂ W_2, b_2')
    """
    rows, side, edges = chain_rows(d)
    row_of = {grp: i for i, row in enumerate(rows) for grp in row}
    skips = lambda grp: any(row_of.get(b, 0) > row_of[grp] + 1 for b in edges.get(grp, ()))
    rows = [sorted(row, key=skips) for row in rows]  # a box whose arrow takes a lane goes right
    w, step = Fraction(12, 5), Fraction(3)
    width = max(len(r) for r in rows) * step
    at: dict = {}
    boxes = []
    for i, row in enumerate(rows):
        left = (width - len(row) * step) / 2 + (step - w) / 2
        for k, grp in enumerate(row):
            s_, t_ = label(grp)
            b = _box(i, s_, t_, kind="quantity", x=left + k * step, w=w)
            at[grp] = (i, b)
            boxes.append(b)
    arrows, lane = [], width + Fraction(1, 5)
    for a in [grp for row in rows for grp in row]:
        for b in sorted(edges.get(a, ()), key=lambda x: (at[x][0] if x in at else 0, x)):
            if b not in at:
                continue
            (ia, ba), (ib, bb) = at[a], at[b]
            if ib == ia + 1:
                arrows.append(_arrow(ba, bb))
                continue
            lane += Fraction(1, 4)
            ya = Fraction(ba["y"]) + BOX_H / 2
            yb = Fraction(bb["y"]) + BOX_H / 2
            xa, xb = Fraction(ba["x"]) + Fraction(ba["w"]), Fraction(bb["x"]) + Fraction(bb["w"])
            arrows.append({"points": [[str(xa), str(ya)], [str(lane), str(ya)], [str(lane), str(yb)],
                                      [str(xb), str(yb)]]})
    notes = []
    by_row: dict = {}
    for grp, prm in side:
        by_row.setdefault(at[grp][0], []).append(prm)
    right = lane + Fraction(1, 2)
    for i, prms in by_row.items():
        b = next(bx for r, bx in at.values() if r == i)
        names = [label(p) for p in prms]
        notes.append({"x": str(right), "y": str(Fraction(b["y"]) + BOX_H / 2),
                      "svg": "∂ " + ", ".join(n[0] for n in names),
                      "tex": r"\partial\, " + r",\ ".join(n[1] for n in names)})
    fig = _frame_data(boxes, arrows, [], notes)
    longest = max([len(n["svg"]) for n in notes] + [0])
    fig["width"] = str(max(Fraction(fig["width"]), right + Fraction(longest, 5) + 1))
    return fig


# ---------------------------------------------------------------- SVG

def _f(x) -> str:
    return f"{float(Fraction(x) * UNIT):.2f}"


def xml_text(s) -> str:
    r"""Any text as XML character data (control characters shown, then ``& < > " '`` as entities).

    >>> xml_text('<a & "b">')
    '&lt;a &amp; &quot;b&quot;&gt;'
    """
    return escape(visible(s), {'"': "&quot;", "'": "&apos;"})


def svg(fig: dict) -> str:
    """A diagram as a standalone SVG document (UTF-8 text, deterministic).

    >>> out = svg(_frame_data([_box(0, "a<b", "a<b")], [], []))
    >>> out.startswith("<svg"), "a&lt;b" in out, "a<b" in out
    (True, True, False)
    """
    pad = Fraction(3, 10)
    W, H = Fraction(fig["width"]) + 2 * pad, Fraction(fig["height"]) + 2 * pad
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(W)}" height="{_f(H)}" '
           f'viewBox="0 0 {_f(W)} {_f(H)}">',
           f'<rect width="{_f(W)}" height="{_f(H)}" fill="white"/>',
           '<defs><marker id="tip" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>',
           f'<g transform="translate({_f(pad)},{_f(pad)})">']
    for fr in fig["frames"]:
        out.append(f'<rect x="{_f(fr["x"])}" y="{_f(fr["y"])}" width="{_f(fr["w"])}" height="{_f(fr["h"])}" '
                   f'rx="6" fill="none" stroke="#999" stroke-dasharray="5,3"/>')
        out.append(f'<text x="{_f(Fraction(fr["x"]) + Fraction(fr["w"]) + Fraction(1, 10))}" '
                   f'y="{_f(Fraction(fr["y"]) + Fraction(3, 10))}" '
                   f'font-size="11" fill="#666" {FONT}>{xml_text(fr["svg"])}</text>')
    for a in fig["arrows"]:
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in a["points"])
        out.append(f'<polyline points="{pts}" fill="none" stroke="#444" stroke-width="1.2" marker-end="url(#tip)"/>')
    for b in fig["boxes"]:
        fill = "#fde68a" if b["kind"] == "token" else ("#dbeafe" if b["kind"] == "quantity" else "#f1f5f9")
        cx, cy = Fraction(b["x"]) + Fraction(b["w"]) / 2, Fraction(b["y"]) + Fraction(b["h"]) / 2
        out.append(f'<rect x="{_f(b["x"])}" y="{_f(b["y"])}" width="{_f(b["w"])}" height="{_f(b["h"])}" '
                   f'rx="5" fill="{fill}" stroke="#334155"/>')
        out.append(f'<text x="{_f(cx)}" y="{_f(cy + Fraction(3, 20))}" text-anchor="middle" font-size="14" '
                   f'{FONT}>{xml_text(b["tok"] if "tok" in b else b["svg"])}</text>')
    for n in fig["side"]:
        out.append(f'<text x="{_f(n["x"])}" y="{_f(Fraction(n["y"]) + Fraction(3, 20))}" font-size="13" '
                   f'fill="#b91c1c" {FONT}>{xml_text(n["svg"])}</text>')
    out.append("</g>\n</svg>\n")
    return "\n".join(out)
