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

import dataclasses
import re

import numpy as np

from ..engine.layouts import layout

PREFIXES = ("transformer.", "model.", "_orig_mod.transformer.", "module.transformer.")
"""What a state_dict's keys may start with (GPT2LMHeadModel's, LlamaForCausalLM's, a compiled or wrapped model's)
that a tutorial leaves out."""

KEY = re.compile(r"(?P<name>[A-Za-z_][\w]*(?:\.[\w]+)*?)(?P<grad>\.grad)?\s*"
                 r"(?:\[\s*(?P<idx>[^\[\],\s]+(?:\s*,\s*[^\[\],\s]+)?)\s*\]|(?P<each>(?:\[\s*[^\[\]\s]+\s*\]){1,2}))"
                 r"(?P<after>\.grad)?")
"""A checkpoint entry as code prints it: ``c_fc.weight[0, 2]``, ``wte.weight[2][0]``, ``wte.weight.grad[2, 0]``,
``wte.weight[2, 0].grad``, ``wte[in, 0]`` (a row by its token)."""
MATH_NAME = re.compile(r"^((?:∂\S*/∂)?[Wb])[_^]\{?(?:c_)?(attn|fc|proj)\}?(?:_\{([^{}]+)\}|\[([^\[\]]+)\])$")
"""A GPT-2 module's weight written as math: ``W_{attn}[2,8]``, ``W^{attn}_{2,8}``, ``∂L/∂W_{fc}[3,0]``."""
MATH_GRADIENT = re.compile(r"^(?:∂\s*(?:L|ℒ|J|ℓ)\s*/\s*∂|dL/d|∇_?)")
"""The derivative before a checkpoint entry written as math: ``∂L/∂W_attn[2,8]``."""
LAYER_BRACKET = re.compile(r"\[(\d+)\]\.")
"""A block's index as Python indexes the module list: ``h[0].mlp`` is ``h.0.mlp``."""


def family(spec) -> str | None:
    """The checkpoint family whose names a tutorial of ``spec`` most likely prints (None: none fits)."""
    said = getattr(spec, "checkpoint", "")
    for f in ([said] if said else []) + (["llama"] if getattr(spec, "norm_kind", "") == "rmsnorm" else
                                         ["nanogpt", "gpt2"] if spec.activation == "gelu" else ["gpt2", "nanogpt"]):
        try:
            layout(spec, f, sizes=False)      # (a tutorial's nanoGPT may widen its MLP: its names stay nanoGPT's)
        except (ValueError, AttributeError):
            continue
        return f
    return None


class CheckpointNames:
    """The spec's parameters under a checkpoint's names (empty when no checkpoint has the spec's block)."""

    def __init__(self, spec):
        self.sources, self.shapes, self.shared = {}, {}, {}
        f = family(spec) if getattr(spec, "kind", "") == "transformer" else None
        if f is None:
            return
        self.shapes = {p: np.asarray(v, dtype=object).shape for p, v in spec.params.items()}
        short: dict = {}
        for s in layout(spec, f, sizes=False):
            self.sources[s.key] = s
            for p in PREFIXES:
                if s.key.startswith(p):
                    self.sources.setdefault(s.key[len(p):], s)
            parts = s.key.split(".")
            for k in range(1, len(parts)):             # c_fc.bias, mlp.c_fc.bias: a key's tail, in a one-block
                if not parts[k].isdigit():             # model or where one key ends so
                    short.setdefault(".".join(parts[k:]), set()).add(s.key)
            if s.key.endswith(".weight"):
                short.setdefault(s.key.removesuffix(".weight"), set()).add(s.key)           # mlp.c_fc for its weight
        by_key = {s.key: s for s in layout(spec, f, sizes=False)}
        for tail, keys in short.items():
            if len(keys) == 1 and "." in tail:       # (not a bare 'wte': an author's own name too, from 1 maybe)
                self.sources.setdefault(tail, by_key[next(iter(keys))])
            elif len(keys) > 1:
                self.shared[tail] = [by_key[k] for k in sorted(keys)]   # c_proj.weight: attn's or mlp's
        for tail in [t for t in self.sources if re.fullmatch(r"c_\w+\.(?:weight|bias)", t)]:
            module, _, kind = tail.partition(".")             # W_attn, b_fc: a module's weight and bias as math
            s = self.sources[tail]                            # writes them, as x·W multiplies (d × 3d for
            math = dataclasses.replace(s, transposed=False, axis=1) if s.transposed and kind == "weight" else s
            self.sources.setdefault(f"{'W' if kind == 'weight' else 'b'}_{module.removeprefix('c_')}", math)
            #                                                   W_attn, whichever way the checkpoint stores it)

    def nearest(self, name: str, lines: list, line: int) -> str | None:
        """The whole key a tail two keys share (``c_proj.weight.grad``) stands for at ``line``: the last one of its
        keys the text wrote in full on or before that line (``model.h[0].attn.c_proj.weight``), with the tail's
        ``.grad``; None when the text wrote none of them, or ``name`` is no such tail.

        >>> import symgpt
        >>> names = CheckpointNames(symgpt.load("tests/tutorials/en-nbhtml-gpt2-gradcheck/SPEC.toml").spec)
        >>> names.nearest("c_proj.weight.grad", ["print(model.h[0].attn.c_proj.weight.grad)", "so c_proj.weight"], 2)
        'h.0.attn.c_proj.weight.grad'
        """
        key = name.removesuffix(".grad")
        if key not in self.shared:
            return None
        whole = re.compile(rf"[A-Za-z_][\w.\[\]]*\.{re.escape(key)}(?![\w\[])")
        for text in reversed(lines[:line]):
            for m in reversed(list(whole.finditer(LAYER_BRACKET.sub(r".\1.", text)))):
                parts = m[0].split(".")            # (model.h.0.attn.c_proj.weight: a variable's name first)
                for full in (".".join(parts[i:]) for i in range(len(parts) - len(key.split(".")))):
                    if full in self.sources and self.sources[full] in self.shared[key]:
                        return full + name[len(key):]
        return None

    def as_stored(self, name: str) -> bool:
        """Whether every tensor of the checkpoint ``name`` may be (a key, or a tail two keys share: c_proj.weight,
        its ``.grad`` aside) is stored as the spec's parameter is, not transposed (GPT-2's Conv1D): a tutorial that
        prints its entries prints them so, and a figure at ``[1, 2]`` with the ``[2, 1]`` entry's value is wrong.

        >>> import symgpt
        >>> names = CheckpointNames(symgpt.load("tests/tutorials/en-nbhtml-gpt2-gradcheck/SPEC.toml").spec)
        >>> names.as_stored("c_proj.weight.grad"), names.as_stored("h.0.mlp.c_fc.weight"), names.as_stored("W")
        (True, True, False)
        """
        key = name.removesuffix(".grad")
        tensors = [self.sources[key]] if key in self.sources else self.shared.get(key, [])
        return bool(tensors) and not any(s.transposed for s in tensors)

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

    def read(self, text: str, tokens=()) -> str | None:
        """``text`` (a whole label) as the spec's parameter entry, ``grad_`` before it for a ``.grad``: ``W_1[0,2]``,
        ``grad_E[2,0]``; None when it is no checkpoint entry of this spec. ``tokens``: the vocabulary, whose
        tokens index a row of the embedding (``wte[in, 0]``).

        >>> import symgpt
        >>> spec = symgpt.load("tests/tutorials/en-nbhtml-gpt2-gradcheck/SPEC.toml").spec
        >>> names = CheckpointNames(spec)
        >>> names.read("h[0].mlp.c_fc.bias[3]"), names.read("c_fc.bias[3]")
        ('b_1[3]', 'b_1[3]')
        >>> names.read("wte.weight[cat, 0]", ["a", "cat"]), names.read("wte[cat, 0]", ["a", "cat"])
        ('E[1,0]', None)
        """
        text = MATH_NAME.sub(lambda w: f"{w[1]}_{w[2]}[{w[3] or w[4]}]", text.strip().strip("`"), count=1)
        text, grad = MATH_GRADIENT.subn("", text, count=1)
        m = KEY.fullmatch(LAYER_BRACKET.sub(r".\1.", text))
        if m is None or not self.sources or m["name"] not in self.sources:
            return None
        idx = m["idx"] or ",".join(re.findall(r"\[\s*([^\[\]\s]+)\s*\]", m["each"] or ""))
        at = [int(i) if i.isdigit() else tokens.index(i) if i in tokens else None
              for i in (x.strip() for x in idx.split(","))]
        if None in at:
            return None
        hit = self.entry(m["name"], tuple(at))
        if hit is None:
            return None
        part, at = hit
        grad = "grad_" if m["grad"] or m["after"] or grad else ""
        return f"{grad}{part}[{','.join(map(str, at))}]"
