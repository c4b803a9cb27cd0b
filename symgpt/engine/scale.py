"""How big a transformer is: one parameter formula for our model and for published ones.

:func:`params` counts the trainable scalars of a decoder-only transformer
from its sizes and the few ways architectures differ (learned positions,
biases, an output projection, learnable norms, a final norm, tied output
weights).  The same formula counts our spec's model (:func:`of_spec`)
and the published configurations of ``published_models.toml``
(:func:`published`), so the scale table compares like with like.

>>> params(of_spec(__import__("symgpt").load("tiny-transformer").spec))
46
>>> params(gpt2(published()[0]))
124439808
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "published_models.toml"


@dataclass(frozen=True)
class Arch:
    """The sizes of a decoder-only transformer and how it is built."""
    V: int                      # vocabulary
    d: int                      # model width
    layers: int
    heads: int
    d_ff: int                   # feed-forward width
    n_ctx: int = 0              # context length (counts only with learned positions)
    tied: bool = True           # the output layer reuses E
    learned_pos: bool = False   # a learned position table (n_ctx × d) instead of sines
    attn_bias: bool = False     # biases on Q, K, V (and on W_O when there is one)
    out_proj: bool = False      # W_O after the heads
    ffn_bias: bool = True       # b_1, b_2
    ln: bool = False            # the norms' γ, β learned (two norms per block)
    final_ln: bool = False      # a learned norm after the last block
    gated: bool = False         # a gated MLP (Llama's): a third matrix W_3 (d × d_ff) and its bias
    norm_shift: bool = True     # a norm has a shift β besides its gain γ (LayerNorm; RMSNorm has none)
    kv_heads: int = 0           # heads of K and V (0: as many as the query heads)


def params(a: Arch) -> int:
    """The number of trainable scalars.

    Per block: W_Q, W_K, W_V (3d²), W_O (d²), their biases, the two FFN
    matrices (2·d·d_ff) and biases, two norms' γ, β (4d); around the blocks:
    E (V·d), learned positions (n_ctx·d), a final norm (2d) and an
    untied output matrix (d·V).

    >>> params(Arch(V=6, d=2, layers=1, heads=1, d_ff=4))   # E 12 + W_Q,K,V 12 + FFN 8+4+8+2
    46
    >>> params(Arch(V=6, d=2, layers=1, heads=1, d_ff=4, tied=False)) - 46
    12
    """
    dkv = a.d // a.heads * (a.kv_heads or a.heads)              # K and V's columns (grouped-query attention)
    attn = a.d * a.d + 2 * a.d * dkv + ((a.d + 2 * dkv) if a.attn_bias else 0)
    if a.out_proj:
        attn += a.d * a.d + (a.d if a.attn_bias else 0)
    mats = 3 if a.gated else 2
    ffn = mats * a.d * a.d_ff + ((a.d_ff * (mats - 1) + a.d) if a.ffn_bias else 0)
    per_norm = (2 if a.norm_shift else 1) * a.d
    norms = 2 * per_norm if a.ln else 0
    outside = a.V * a.d + (a.n_ctx * a.d if a.learned_pos else 0) + (per_norm if a.final_ln else 0)
    return outside + a.layers * (attn + ffn + norms) + (0 if a.tied else a.d * a.V)


def of_spec(spec) -> Arch:
    """The architecture of a transformer spec, for counting its parameters.

    >>> import symgpt
    >>> of_spec(symgpt.load("tiny-transformer").spec).d_ff
    4
    """
    has_wo = any(layer.get("W_O") is not None for layer in spec.raw.get("layer", []))
    ln = spec.training.learnable_ln
    return Arch(V=spec.V, d=spec.d, layers=spec.layers, heads=spec.heads, d_ff=spec.d_ff,
                n_ctx=spec.n_ctx or spec.T, tied=spec.tied, out_proj=has_wo, ln=ln,
                learned_pos=spec.positions == "learned", final_ln=ln and spec.norm == "pre",
                attn_bias=spec.bias is True, ffn_bias=spec.bias is not False, gated=spec.activation == "swiglu",
                norm_shift=spec.norm_kind != "rmsnorm" and spec.bias is not False, kv_heads=spec.kv_heads)


def published(path: Path = DATA) -> list:
    """The published configurations, as written in the data file (with their sources).

    >>> [m["name"] for m in published()][-1], published()[-1]["n_embd"]
    ('GPT-3 175B', 12288)
    """
    with open(path, "rb") as f:
        return tomllib.load(f)["model"]


def gpt2(m: dict) -> Arch:
    """A GPT-2-style configuration: learned positions, biases, W_O, learned norms, d_ff = 4d, tied.

    >>> gpt2({"n_layer": 1, "n_head": 1, "n_embd": 2, "vocab": 3, "n_ctx": 4}).d_ff
    8
    """
    d = m["n_embd"]
    return Arch(V=m["vocab"], d=d, layers=m["n_layer"], heads=m["n_head"], d_ff=4 * d, n_ctx=m["n_ctx"],
                tied=True, learned_pos=True, attn_bias=True, out_proj=True, ffn_bias=True, ln=True,
                final_ln=True)


def grouped(n: int) -> str:
    """An integer with thousands separated by commas.

    >>> grouped(124439808), grouped(46)
    ('124,439,808', '46')
    """
    return f"{n:,}"
