"""The LM head: ``h_final`` is the last position of the last block, ``logits = h_final · Eᵀ`` (tied) or
``h_final · W_out``; with the loss over every position, ``logits_at{t} = H[t] · W`` as well.

A tied head's share of ∂L/∂E, ``(p − y)·h_final``, is a tensor of its own (``grad_E_head``), so that the documents
can show the part of E's gradient that flows through the head.
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy import Mul

from ..core.grid import node_sym, tensor
from ..core.tensor import add, mm, transpose, zeros
from .base import Apply, Param, accumulate
from .naming import Name, param

KIND = "head"
PARAMS = {"W_out": Param("untied LM head (d × V)", ("j", "v"))}


def _rows(a: Apply) -> tuple:
    """The other positions that predict a token: (name of their logits, position)."""
    return a.opt("rows", ())


def define(g, a: Apply, T_: dict):
    """h_final (d,), logits (V,) and the other positions' logits.

    >>> import symgpt
    >>> symgpt.load("tiny-transformer").definition("logits[你]")     # tied: row 你 of E · h_final (d = 2)
    E[你,0]*h_final[0] + E[你,1]*h_final[1]
    """
    H, Wn, tied = T_[a.ins[0]], a.param("W"), a.opt("tied")
    W = T_[Wn]
    T, d = len(H), len(H[0])
    V = a.shape[0]
    last = lambda t: lambda x: [x[1:]] if x[0] == t else []  # H[t, j] ↦ [(j,)], other rows ↦ []
    h = tensor(g, "h_final", (d,), "last position of the last block's LN2", ("j",),
               lambda i: H[T - 1][i[0]], [(H, last(T - 1))], lambda i: 1)  # (d,)
    if tied:
        head, head_uses = (lambda v, j: W[v][j]), (lambda e: [e[:1]])     # logits = h·Eᵀ; E[v, j] ↦ [(v,)]
    else:
        head, head_uses = (lambda v, j: W[j][v]), (lambda w: [w[1:]])     # W_out[j, v] ↦ [(v,)]
    every_v = lambda _: [(v,) for v in range(V)]
    out = tensor(g, a.out, a.shape, a.meaning, a.axes,
                 lambda i: sympy.Add(*[Mul(h[j], head(i[0], j)) for j in range(d)]),
                 [(h, every_v), (W, head_uses)], lambda i: 2 * d)
    for name, t in _rows(a):
        T_[name] = tensor(g, name, (V,), f"logits at position {t}", ("v",),
                          lambda i, t=t: sympy.Add(*[Mul(H[t][j], head(i[0], j)) for j in range(d)]),
                          [(H, lambda x, t=t: every_v(x) if x[0] == t else []), (W, head_uses)], lambda i: 2 * d)
    return out


def define_gradients(g, a: Apply) -> None:
    """A tied head's share of ∂L/∂E: grad_E_head[v,j] = grad_logits[v]·h_final[j]."""
    if a.opt("tied"):
        V, d = a.shape[0], a.opt("d")
        tensor(g, "grad_E_head", (V, d), "∂L/∂E through the tied head only: (p − y)·h_final",
               ("v", "j"), lambda i: node_sym("grad_" + a.out, i[:1]) * node_sym("h_final", i[1:]))


def groups(a: Apply, net) -> None:
    d = net.groups[a.ins[0]].shape[1]
    net.group("h_final", (d,), "last position of the last block's LN2", ("j",))
    net.group(a.out, a.shape, a.meaning, a.axes)
    for name, t in _rows(a):
        net.group(name, a.shape, f"logits at position {t}", ("v",))


def _W(v, a):
    return transpose(v[a.param("W")]) if a.opt("tied") else v[a.param("W")]        # (d, V)


def forward(a: Apply, net) -> None:
    Hn, rows = a.ins[0], _rows(a)

    def run(v, ev):
        Hm, W = v[Hn], _W(v, a)
        v["h_final"] = list(Hm[len(Hm) - 1])
        v[a.out] = mm([v["h_final"]], W)[0]
        for name, t in rows:
            v[name] = mm([Hm[t]], W)[0]
    net.stage(("h_final", a.out) + tuple(n for n, _ in rows), run)


def backward(a: Apply, net) -> None:
    """grad_h_final = grad_logits·Wᵀ; grad_H has it in the last row (and each other row's logits' share); the
    head's own weights get Σ_rows hᵀ·grad_z (Eᵀ's share of E's gradient when tied)."""
    Hn, rows, tied = a.ins[0], _rows(a), a.opt("tied")
    gh, gH, gW = net.grad_group("h_final"), "grad_" + Hn, "grad_" + a.param("W")
    shape = net.groups[Hn].shape

    def run(v, ev):
        W = _W(v, a)
        v[gh] = mm([v["grad_" + a.out]], transpose(W))[0]                     # grad_z·Wᵀ  (d,)
        G = zeros(shape)
        G[shape[0] - 1] = list(v[gh])
        for name, t in rows:
            G[t] = mm([v["grad_" + name]], transpose(W))[0]
        accumulate(v, gH, G, add)
        hs = [v["h_final"]] + [v[Hn][t] for _, t in rows]
        gzs = [v["grad_" + a.out]] + [v["grad_" + name] for name, _ in rows]
        Wg = mm(transpose(hs), gzs)                                            # (d, V)
        accumulate(v, gW, transpose(Wg) if tied else Wg, add)
        if tied:
            v["grad_E_head"] = [[g * hj for hj in v["h_final"]] for g in v["grad_" + a.out]]
    net.stage((gh, gH, gW) + (("grad_E_head",) if tied else ()), run)


def late_groups(a: Apply, net) -> None:
    """Registered after every parameter's gradient: the tied head's share of E's."""
    if a.opt("tied"):
        net.group("grad_E_head", (a.shape[0], a.opt("d")), "∂L/∂E through the tied head only: (p − y)·h_final",
                  ("v", "j"))


def rules() -> list:
    return []


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): h_final, then a dot product of d per logit of every predicting row."""
    d = a.opt("d")
    n = (1 + len(_rows(a))) * a.shape[0]
    return d + n, n * 2 * d


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

def _logits(ar, h, W, tied):
    """h·Eᵀ (tied: autograd sees Eᵀ, a transposed view) or h·W_out  (d,) → (V,)."""
    return ar.mm(h[None, :], W.T if tied else W)[0]


def floats_forward(a: Apply, pipe) -> None:
    """The other predicting rows' logits, h_final (the last row) and its logits."""
    Hn, Wn, tied = a.ins[0], a.param("W"), a.opt("tied")
    for name, t in _rows(a):
        pipe.add(name, [Hn, Wn], lambda ar, X, W, t=t: _logits(ar, X[t].copy(), W, tied))
    pipe.add("h_final", [Hn], lambda ar, X: X[-1].copy())
    pipe.add(a.out, ["h_final", Wn], lambda ar, h, W: _logits(ar, h, W, tied))


def floats_backward(a: Apply, pipe) -> None:
    """grad_h_final = grad_logits·Wᵀ; the head's weights get Σ_rows hᵀ·grad_z (tied: grad_E_head, the last row's
    share, and grad_E_early, the other rows' in one product); the block output's rows get their own."""
    Hn, Wn, tied = a.ins[0], a.param("W"), a.opt("tied")
    gz, early = pipe.grad(a.out), [pipe.grad(name) for name, _ in _rows(a)]
    back = (lambda ar, g, W: ar.mm(g[None, :], W if tied else W.T)[0])   # grad_z·Wᵀ  (d,)
    pipe.add("grad_h_final", [gz, Wn], back)

    def early_rows(ar, *v):         # Σ over the other rows of grad_z ⊗ H[t], one product  (V, d)
        *gs, X = v
        return ar.mm(np.stack(gs).T, X[:len(gs)])

    def every_row(ar, *v):          # the last len(gs) rows of H against their adjoints, one product  (d, V)
        *gs, X = v
        return ar.mm(X[len(X) - len(gs):].T, np.stack(gs))
    if tied:
        pipe.add("grad_E_head", [gz, "h_final"], lambda ar, g, h: ar.mm(g[:, None], h[None, :]))
        if early:
            pipe.add("grad_E_early", early + [Hn], early_rows)
        pipe.share(Wn, ["grad_E_head"] + (["grad_E_early"] if early else []),
                   lambda ar, g, *e: ar.add(g, e[0]) if e else g)
    else:
        pipe.share(Wn, early + [gz, Hn], every_row)
    ts = [t for _, t in _rows(a)]

    def rows(ar, gh, W, X, *gs):    # row T−1 from grad_h_final; the other rows from their own logits
        out = ar.zeros(X.shape)
        out[-1] = gh
        for t, g in zip(ts, gs):
            out[t] = back(ar, g, W)
        return out
    pipe.share(Hn, ["grad_h_final", Wn, Hn] + early, rows)


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "W_out": param("d", "V", tex=r"W_{\mathrm{out}}"),
    "h_final": Name("last position of the last block's LN2", "最后一块 LN2 在最后一个位置上的向量", ("j",),
                    r"h_{\mathrm{final}}"),
    "logits": Name("h_final · E[v] (tied head)", "h_final · E[v]（输出层与嵌入共享权重）", ("v",), r"\mathrm{logit}",
                   ("logit", "lm head"), ("∂l/∂logit", "梯度", "grad", "p - y", "p-y", "pi - yi"),
                   (("exp", ("exp", "e^z")),)),
    "E_head": Name(tex=r"E_{\mathrm{head}}", grad=("∂l/∂e", "梯度", "权重绑定", "weight tying", "tied")),
}
"""How its parameter and groups are called (:mod:`symgpt.ops.naming`); ``E_head`` is E as the tied head reads it,
whose gradient is the group ``grad_E_head``."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "head"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): each logit as a dot product with h_final."""
