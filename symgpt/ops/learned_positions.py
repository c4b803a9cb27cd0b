"""Learned positions: ``PE[t] = W_pe[t]``, a row of a trained table per position (GPT-2's and nanoGPT's ``wpe``).

It is a lookup like the token embedding, by the position instead of the token, so its facets are the
embedding's (:mod:`symgpt.ops.embedding`) applied to the positions 0 … T−1; what is its own is its parameter, its
words and how a document shows it.  A spec gives the table's n_ctx rows (``model.n_ctx``, at least T).

>>> from symgpt.core.graph import Graph
>>> from symgpt.core.grid import param
>>> g = Graph()
>>> W = param(g, "W_pe", [[1, 2], [3, 4]], "W_pe", ("t", "j"))
>>> _ = define(g, plan_apply(2, 2), {"W_pe": W})
>>> g.definition("PE[1,0]")
W_pe[1,0]
"""
from __future__ import annotations

from . import embedding
from .base import Apply, Param
from .naming import param

KIND = "learned_positions"
PARAMS = {"W_pe": Param("learned position embeddings (n_ctx × d)", ("t", "j"))}
MEANING = "learned position embeddings W_pe[t]"
"""What its output is (a plan writes it)."""


def plan_apply(T: int, d: int, out: str = "PE") -> Apply:
    """The application for T positions: a lookup of W_pe's rows 0 … T−1.

    >>> plan_apply(3, 2).opt("tokens")
    (0, 1, 2)
    """
    return Apply(KIND, out, ("W_pe",), (T, d), meaning=MEANING, axes=("t", "j"), opts=(("tokens", tuple(range(T))),))


define, groups, forward, backward = embedding.define, embedding.groups, embedding.forward, embedding.backward
floats_forward, floats_backward, cost, rules = (embedding.floats_forward, embedding.floats_backward,
                                                embedding.cost, embedding.rules)
"""The embedding's facets: the lookup, and its adjoint that adds each position's gradient row to its row."""


NAMES = {
    "W_pe": param("n_ctx", "d", zh="可学习的位置嵌入（n_ctx × d）", tex=r"W_{\mathrm{pe}}",
                  aliases=("wpe", "pe", "position", "位置"), grad=("∂l/∂wpe",)),
}
"""How its parameter is called (:mod:`symgpt.ops.naming`): trained and decayed like any matrix (nanoGPT's
groups decay every parameter of two or more dimensions)."""


DOCUMENT = {"layout": "learned", "setup": "setup.pe_learned"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): the table of W_pe's rows, then each position's
row; the set-up says that the positions are learned."""
