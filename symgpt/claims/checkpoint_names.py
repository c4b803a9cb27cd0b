"""A checkpoint's state_dict names as a tutorial prints them, read as the spec's parameters.

A tutorial on GPT-2, nanoGPT or Llama names a weight the way PyTorch does: ``h.0.ln_1.weight[0]``,
``transformer.h.0.mlp.c_fc.weight[0, 2]``, ``model.layers.0.self_attn.q_proj.weight[3][1]``, ``wte.weight.grad[2, 0]``.
Each is a tensor of :func:`symgpt.engine.layouts.layout` for the family the spec can be: its parts, stored transposed
(an ``nn.Linear``'s out × in) or not (GPT-2's Conv1D), side by side along an axis (``c_attn`` is Q, K and V).  An
entry of it is one entry of one of the spec's parameters.

The family is the spec's ``weights.names`` when it says; else nanoGPT for a GPT block with the exact GELU and GPT-2's
for the tanh one (their names are the same, their layouts transposed), and Llama's for a Llama block.

>>> import symgpt
>>> names = CheckpointNames(symgpt.load("tiny-transformer").spec)   # the seed's block: no checkpoint has it
>>> names.entry("h.0.ln_1.weight", (0,)) is None
True
"""
from __future__ import annotations

import re

import numpy as np

from ..engine.layouts import layout

PREFIXES = ("transformer.", "model.", "_orig_mod.transformer.", "module.transformer.")
"""What a state_dict's keys may start with (GPT2LMHeadModel's, LlamaForCausalLM's, a compiled or wrapped model's)
that a tutorial leaves out."""

KEY = re.compile(r"(?P<name>[A-Za-z_][\w]*(?:\.[\w]+)+?)(?P<grad>\.grad)?\s*"
                 r"(?:\[\s*(?P<idx>\d+(?:\s*,\s*\d+)?)\s*\]|(?P<each>(?:\[\s*\d+\s*\]){1,2}))(?P<after>\.grad)?")
"""A checkpoint entry as code prints it: ``c_fc.weight[0, 2]``, ``wte.weight[2][0]``, ``wte.weight.grad[2, 0]``,
``wte.weight[2, 0].grad``."""


def family(spec) -> str | None:
    """The checkpoint family whose names a tutorial of ``spec`` most likely prints (None: none fits)."""
    said = getattr(spec, "checkpoint", "")
    for f in ([said] if said else []) + (["llama"] if getattr(spec, "norm_kind", "") == "rmsnorm" else
                                         ["nanogpt", "gpt2"] if spec.activation == "gelu" else ["gpt2", "nanogpt"]):
        try:
            layout(spec, f)
        except (ValueError, AttributeError):
            continue
        return f
    return None


class CheckpointNames:
    """The spec's parameters under a checkpoint's names (empty when no checkpoint has the spec's block)."""

    def __init__(self, spec):
        self.sources, self.shapes = {}, {}
        f = family(spec) if getattr(spec, "kind", "") == "transformer" else None
        if f is None:
            return
        self.shapes = {p: np.asarray(v, dtype=object).shape for p, v in spec.params.items()}
        for s in layout(spec, f):
            self.sources[s.key] = s
            for p in PREFIXES:
                if s.key.startswith(p):
                    self.sources.setdefault(s.key[len(p):], s)

    def __bool__(self) -> bool:
        return bool(self.sources)

    def entry(self, key: str, index: tuple):
        """(the spec's parameter, its index) of entry ``index`` of the checkpoint tensor ``key``; None when
        ``key`` is no tensor of the checkpoint or the index is out of its range.

        >>> import symgpt
        >>> spec = symgpt.load("tiny-transformer").spec
        >>> CheckpointNames(spec).entry("wte.weight", (2, 0)) is None
        True
        """
        s = self.sources.get(key)
        if s is None or not index:
            return None
        shapes = [self.shapes[p][::-1] if s.transposed else self.shapes[p] for p in s.parts]   # as stored
        if len(index) != len(shapes[0]):
            return None
        at = list(index)
        for part, shape in zip(s.parts, shapes):
            if len(shapes) > 1 and at[s.axis] >= shape[s.axis]:
                at[s.axis] -= shape[s.axis]          # past this part along the axis the parts are joined on
                continue
            if any(not 0 <= i < n for i, n in zip(at, shape)):
                return None
            return part, tuple(at[::-1] if s.transposed else at)
        return None

    def read(self, text: str) -> str | None:
        """``text`` (a whole label) as the spec's parameter entry, ``grad_`` before it for a ``.grad``: ``W_1[0,2]``,
        ``grad_E[2,0]``; None when it is no checkpoint entry of this spec."""
        m = KEY.fullmatch(text.strip().strip("`"))
        if m is None or not self.sources:
            return None
        idx = m["idx"] or ",".join(re.findall(r"\d+", m["each"] or ""))
        hit = self.entry(m["name"], tuple(int(i) for i in idx.split(",")))
        if hit is None:
            return None
        part, at = hit
        grad = "grad_" if m["grad"] or m["after"] else ""
        return f"{grad}{part}[{','.join(map(str, at))}]"
