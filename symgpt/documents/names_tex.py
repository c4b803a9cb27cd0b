"""The documents' names in LaTeX: a group's symbol (its layer from 1 as a superscript) and a node's, a
vocabulary index written as its token. Shared by the worked lines (:mod:`symgpt.documents.display`) and the
precision section's tables (:mod:`symgpt.documents.precision`).

>>> group_tex("l0.W_Q")
'{W_{Q}}^{[1]}'
"""
from __future__ import annotations

from ..ops import NAMES
from .blocks import mtext

# LaTeX of the quantity names the documents use, as each op names them (symgpt.ops.NAMES); others print by the
# rule of group_tex (W_Q → W_{Q}, a longer name as \mathrm{name})
TEX = {name: n.tex for name, n in NAMES.items() if n.tex}



def group_tex(group: str) -> str:
    r"""LaTeX of a group name: the documents' symbol, a layer (from 1) as a superscript.

    >>> group_tex("A"), group_tex("W_Q"), group_tex("l1.LN2"), group_tex("grad_W"), group_tex("clip_x")
    ('A', 'W_{Q}', '{\\mathrm{LN}_2}^{[2]}', '\\partial_{W} \\mathcal{L}', '\\mathrm{clip\\_x}')
    """
    if group.startswith("grad_"):
        return rf"\partial_{{{group_tex(group[len('grad_'):])}}} \mathcal{{L}}"
    layer, _, name = group.rpartition(".")
    if name in TEX:
        out = TEX[name]
    elif name.isalpha() and len(name) == 1:
        out = name
    elif "_" in name and name.count("_") == 1 and all(p.isalnum() for p in name.split("_")) and len(name) <= 5:
        head, tail = name.split("_")
        out = f"{head}_{{{tail}}}"
    else:
        out = r"\mathrm{" + name.replace("_", r"\_") + "}"
    return f"{{{out}}}^{{[{int(layer[1:]) + 1}]}}" if layer else out


def name_tex(d, name: str) -> str:
    r"""LaTeX of a node name: ``A[1,0]`` → ``A_{1,0}``, a token index as the token.

    A gradient ``grad_X[i]`` is ∂L/∂X_i.

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> name_tex(d, "A[1,0]"), name_tex(d, "p[4]"), name_tex(d, "loss")
    ('A_{1,0}', 'p_{\\text{你}}', '\\mathcal{L}')
    >>> print(name_tex(d, "grad_logits[4]"))
    \frac{\partial \mathcal{L}}{\partial \mathrm{logit}_{\text{你}}}
    """
    node = d._skeleton.nodes[d.node(name)]
    group = node.group
    if group.startswith("grad_") and group[len("grad_"):] in d._skeleton.groups:
        inner = d.node(name)[len("grad_"):]
        return rf"\frac{{\partial \mathcal{{L}}}}{{\partial {name_tex(d, inner)}}}"
    g = group_tex(group)
    if not node.index:
        return g
    axes = d._skeleton.groups[group].axes
    idx = ",".join(_index_tex(d, i, a) for i, a in zip(node.index, axes))
    return f"{{{g}}}_{{{idx}}}" if ("_" in g or "^" in g or "'" in g) else f"{g}_{{{idx}}}"


def _index_tex(d, i: int, axis: str) -> str:
    tok = d.spec.vocab[i] if axis == "v" else None
    return mtext(tok) if tok is not None and not tok.isdigit() else str(i)
