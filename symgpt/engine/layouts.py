"""A checkpoint's own tensors, by its state_dict names and in its layouts, assembled from the spec's parameters.

A spec imported from a checkpoint says whose names its weights had (``weights.names = "nanogpt" | "gpt2" |
"llama"``).  :func:`layout` lists each source tensor as the spec's parameters laid side by side:

* nanoGPT and minGPT keep ``nn.Linear`` weights as (out, in), so W_Q is stored transposed, and ``c_attn`` is
  Q, K and V stacked along its first axis;
* GPT-2's ``Conv1D`` keeps (in, out): W_Q as it is, and ``c_attn`` is Q, K and V side by side along its second;
* Llama's ``q_proj`` … ``down_proj`` are ``nn.Linear``\\ s, one parameter each (gate W_1, up W_3, down W_2);
* a tied head is the embedding itself: ``lm_head.weight`` is E, its gradient E's whole gradient.

:func:`assemble` builds one source tensor from arrays of the spec's parameters (their values or their gradients);
the importers (:mod:`symgpt.engine.checkpoints`) read the same layouts the other way, and the tests check that
the two agree on every tensor of real checkpoints.

>>> from symgpt.engine.spec import load_spec
>>> [s.key for s in layout(load_spec("derivations/tiny-transformer.toml"), "none")]
Traceback (most recent call last):
...
ValueError: expected one of nanogpt, gpt2, llama, got 'none'
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FAMILIES = ("nanogpt", "gpt2", "llama")
"""The checkpoints whose names a spec may take (``weights.names``)."""

NEEDS = {"llama": {"norm": ("pre",), "norm_kind": ("rmsnorm",), "activation": ("swiglu",), "positions": ("rope",)},
         "gpt2": {"norm": ("pre",), "norm_kind": ("layernorm",), "activation": ("gelu", "gelu_tanh", "relu", "silu"),
                  "positions": ("learned",)},
         "nanogpt": {"norm": ("pre",), "norm_kind": ("layernorm",), "activation": ("gelu", "gelu_tanh"),
                     "positions": ("learned",)}}
"""The [model] values each family's blocks can have."""


@dataclass(frozen=True)
class Source:
    """One tensor of a checkpoint: ``key`` (its state_dict name) is the spec's ``parts`` joined along ``axis``, each
    stored transposed when ``transposed``.

    >>> s = Source("c_attn.weight", ("W_Q", "W_K"), transposed=True)
    >>> assemble(s, {"W_Q": np.array([[1, 2]]), "W_K": np.array([[3, 4]])}).tolist()
    [[1], [2], [3], [4]]
    """
    key: str
    parts: tuple
    transposed: bool = False
    axis: int = 0


def assemble(source: Source, arrays: dict) -> np.ndarray:
    """The source tensor from the spec's parameter arrays (values or gradients, any dtype)."""
    parts = [np.asarray(arrays[p]).T if source.transposed else np.asarray(arrays[p]) for p in source.parts]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=source.axis)


def layout(spec, family: str, sizes: bool = True) -> list[Source]:
    """Every tensor of a ``family`` checkpoint (:data:`FAMILIES`) of the spec's architecture, in the
    checkpoint's order; ValueError (saying what differs) when the spec is not such a model (``sizes=False``:
    its names and layouts whatever the MLP's width, as code that widens nanoGPT's MLP names its tensors)."""
    if family not in FAMILIES:
        raise ValueError(f"expected one of {', '.join(FAMILIES)}, got {family!r}")
    if spec.kind != "transformer":
        raise ValueError(f"a {family} checkpoint is a transformer, this spec is a {spec.kind}")
    for key, want in NEEDS[family].items():
        got = getattr(spec, key)
        if got not in want:
            raise ValueError(f"a {family} checkpoint has model.{key} = {' or '.join(map(repr, want))}, "
                             f"this spec {got!r}")
    bias = spec.layer_prefix(0) + "b_Q" in spec.params
    if family == "nanogpt" and spec.d_ff != 4 * spec.d and sizes:
        raise ValueError(f"a nanogpt checkpoint has model.d_ff = 4·d = {4 * spec.d}, this spec {spec.d_ff}")
    if family == "gpt2" and not bias:
        raise ValueError("a gpt2 checkpoint has every projection's bias (model.bias = true)")
    out = _llama(spec) if family == "llama" else _gpt(spec, conv1d=family == "gpt2", bias=bias)
    missing = sorted({p for s in out for p in s.parts} - set(spec.params))
    unused = sorted(set(spec.params) - {p for s in out for p in s.parts})
    if missing or unused:
        what = (f"lacks {', '.join(missing)}" if missing else "") + ("; " if missing and unused else "") + \
            (f"has {', '.join(unused)}, which it has not" if unused else "")
        raise ValueError(f"a {family} checkpoint of this size {what}")
    return out


def _gpt(spec, conv1d: bool, bias: bool) -> list[Source]:
    """nanoGPT's and GPT-2's names: transformer.wte, wpe, h.{l}.ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc,
    mlp.c_proj, ln_f, lm_head; nn.Linear (out, in) for nanoGPT, Conv1D (in, out) for GPT-2."""
    t = not conv1d
    out = [Source("transformer.wte.weight", ("E",)), Source("transformer.wpe.weight", ("W_pe",))]
    for l in range(spec.layers):
        h, p = f"transformer.h.{l}.", spec.layer_prefix(l)
        out += [Source(h + "ln_1.weight", (p + "gamma1",))] + ([Source(h + "ln_1.bias", (p + "beta1",))] if bias
                                                               else [])
        out += [Source(h + "attn.c_attn.weight", (p + "W_Q", p + "W_K", p + "W_V"), t, 0 if t else 1)]
        out += [Source(h + "attn.c_attn.bias", (p + "b_Q", p + "b_K", p + "b_V"))] if bias else []
        out += [Source(h + "attn.c_proj.weight", (p + "W_O",), t)]
        out += [Source(h + "attn.c_proj.bias", (p + "b_O",))] if bias else []
        out += [Source(h + "ln_2.weight", (p + "gamma2",))] + ([Source(h + "ln_2.bias", (p + "beta2",))] if bias
                                                               else [])
        out += [Source(h + "mlp.c_fc.weight", (p + "W_1",), t)] + ([Source(h + "mlp.c_fc.bias", (p + "b_1",))]
                                                                   if bias else [])
        out += [Source(h + "mlp.c_proj.weight", (p + "W_2",), t)] + ([Source(h + "mlp.c_proj.bias", (p + "b_2",))]
                                                                     if bias else [])
    out += [Source("transformer.ln_f.weight", ("gamma_f",))] + ([Source("transformer.ln_f.bias", ("beta_f",))]
                                                                if bias else [])
    out += [Source("lm_head.weight", ("E",))] if spec.tied else [Source("lm_head.weight", ("W_out",), True)]
    return out


def _llama(spec) -> list[Source]:
    """Llama's names: model.embed_tokens, model.layers.{l}.self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj,
    input_layernorm, post_attention_layernorm, model.norm, lm_head; every projection an nn.Linear (out, in)."""
    out = [Source("model.embed_tokens.weight", ("E",))]
    for l in range(spec.layers):
        h, p = f"model.layers.{l}.", spec.layer_prefix(l)
        out += [Source(h + f"self_attn.{x}_proj.weight", (p + w,), True)
                for x, w in (("q", "W_Q"), ("k", "W_K"), ("v", "W_V"), ("o", "W_O"))]
        out += [Source(h + f"mlp.{x}_proj.weight", (p + w,), True)
                for x, w in (("gate", "W_1"), ("up", "W_3"), ("down", "W_2"))]
        out += [Source(h + "input_layernorm.weight", (p + "gamma1",)),
                Source(h + "post_attention_layernorm.weight", (p + "gamma2",))]
    out += [Source("model.norm.weight", ("gamma_f",))]
    out += [Source("lm_head.weight", ("E",))] if spec.tied else [Source("lm_head.weight", ("W_out",), True)]
    return out
