r"""How an op's quantities are called: one :class:`Name` per group, parameter or hyper-parameter it makes or reads.

Each op module's names facet holds ``NAMES`` ({name without a layer prefix: Name}); :data:`symgpt.ops.NAMES`
merges them, a parameter's English meaning and axes taken from the op's ``PARAMS``.  A Name says what the
quantity means in English and in Chinese, its axis letters, its symbol in TeX, what tutorials write for it (and
for its gradient, and for the functions of it they print), and for a parameter its shape in sizes, whether it is
trained by default, whether AdamW decays it and what a spec may leave out.  The consumers (the names registry, the
spec reader, training, the documents' TeX, the diagrams, the claims' aliases and candidates) iterate the table and
never name an op.

>>> n = Name("mean of H1 over j", "H1 沿 j 的均值", ("t",), r"\mu_1", ("μ", "mu"), helper=True)
>>> n.meaning("zh"), n.meaning("en"), n.meaning("fr"), n.trained
('H1 沿 j 的均值', 'mean of H1 over j', '', True)
>>> param("d", zh="偏置", fill=0).kind, param("d").dims
('param', ('d',))
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Name:
    """How one quantity is called, everywhere (see the module's docstring)."""
    en: str = ""              # its meaning in English, as the graph's group has it (a parameter's: from PARAMS)
    zh: str = ""              # the same in Chinese ("": the pages show the English)
    axes: tuple = ()          # its axis letters (a parameter's: from PARAMS)
    tex: str = ""             # its symbol in TeX ("": the documents' generic rule, W_Q → W_{Q})
    aliases: tuple = ()       # what tutorials write for it (lower case), beside its own name
    grad: tuple = ()          # … for its gradient grad_<name>
    of: tuple = ()            # (function, aliases) pairs: functions of its entries a tutorial prints, exp(S[1,0])
    helper: bool = False      # a statistic inside its op (a mean, a variance, a softmax's sum): not a stage
    primes: int = 0           # h' (1) or h'' (2): the residual sum of the block it belongs to, as tutorials mark it
    kind: str = "group"       # "group" (a tensor of the graph), "param" (a weight), "size" (a [model] hyper-parameter)
    dims: tuple = ()          # a parameter's shape as size names: ("d", "d_ff")
    trained: bool = True      # a parameter: updated by default (False: only with training.learnable_ln)
    decays: bool = True       # a parameter: AdamW decays it under training.decay_groups
    fill: int | None = None   # a parameter a spec may leave out: then every entry is this
    optional: bool = False    # a parameter a spec may leave out: then the model has none

    def meaning(self, lang: str) -> str:
        """Its meaning in ``lang`` ("" when there is none in that language)."""
        return {"en": self.en, "zh": self.zh}.get(lang, "")


def param(*dims: str, **kw) -> Name:
    """The Name of a parameter of shape ``dims`` (its meaning and axes come from its op's ``PARAMS``).

    >>> param("d", "d_ff", zh="权重").dims
    ('d', 'd_ff')
    """
    return Name(kind="param", dims=dims, **kw)


def merged(name: str, n: Name, params: dict) -> Name:
    """A facet's Name completed from its op's ``PARAMS``: a parameter's English meaning and axes.

    >>> from symgpt.ops.base import Param
    >>> merged("b", param("d"), {"b": Param("a bias (d)", ("j",))}).en
    'a bias (d)'
    """
    p = params.get(name)
    if p is None:
        return n
    return replace(n, en=n.en or p.meaning, axes=n.axes or p.axes, kind="param")


def shape(n: Name, sizes: dict) -> tuple:
    """A parameter's shape from the model's sizes.

    >>> shape(param("d", "d_ff"), {"d": 2, "d_ff": 4})
    (2, 4)
    """
    return tuple(sizes[s] for s in n.dims)
