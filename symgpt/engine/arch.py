"""An architecture is a config: its sizes and its wiring, from which the plan of op applications is built once.

The plan (a list of :class:`symgpt.ops.base.Apply`) is what every consumer iterates: the per-scalar graph
(:mod:`symgpt.engine.models`), the tensor engine (:mod:`symgpt.engine.net`), the cost (:mod:`symgpt.engine.cost`).
The seed's transformer (a norm after each residual sum, sinusoidal positions, its activation, a tied head) and the
bigram are two configs; a new norm, activation or position encoding is an op (:mod:`symgpt.ops`) and one entry in
:data:`NORMS`, :data:`ACTIVATIONS` or :data:`POSITIONS`.  Each application of the transformer's plan carries its
stage (the option ``section``: the embedding, the positions, then per block the attention, a residual sum with its
norm, the FFN, a residual sum with its norm; the head, the softmax) and its block (``block``, from 0; None outside
the blocks): the documents show a stage as one section (:func:`stages`, :mod:`symgpt.documents.transformer`), the
pipeline picture a block as one frame.

>>> a = Arch(kind="bigram", V=3, d=2)
>>> [(s.op, s.out) for s in a.plan(1, (1,), 2)]
[('embedding', 'x'), ('linear', 'z'), ('softmax_xent', 'loss')]
>>> [s.out for s in Arch(kind="transformer", V=6, d=2, heads=1, d_ff=4, layers=1).plan(2)][:5]
['X', 'PE', 'H0', 'Attn', 'H1']
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import sympy

from ..ops import OPS
from ..ops.base import Apply

KINDS = ("transformer", "bigram")
PLACEMENTS = ("post", "pre")
"""Where the norm stands in a block: after each residual sum (the seed's), or before each sub-block with a final
norm after the last block (GPT-2's, nanoGPT's and Llama's)."""
NORMS = {"layernorm": "layernorm", "rmsnorm": "rmsnorm"}
"""The norm kinds, each the op (:data:`symgpt.ops.OPS`) that computes it."""
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_tanh": "gelu_tanh", "silu": "silu", "swiglu": "swiglu"}
GATED = ("swiglu",)
"""The activations of a gated MLP: a gate x·W_1 and an up projection x·W_3 meet in the op, then ·W_2."""
"""The FFN's activations, each the op that computes it."""
POSITIONS = {"sinusoidal": "positions", "learned": "learned_positions", "rope": None, "none": None}
"""The position encodings, each the op that adds it to the embeddings (None: nothing is added; with "rope" the
attention turns Q and K, with "none" the causal mask alone tells positions apart)."""
"""The position encodings, each the op that computes it."""


PRESETS = {
    "seed": {"norm": "post", "norm_kind": "layernorm", "activation": "relu", "positions": "sinusoidal", "bias": None},
    "gpt2": {"norm": "pre", "norm_kind": "layernorm", "activation": "gelu_tanh", "positions": "learned", "bias": True},
    "llama": {"norm": "pre", "norm_kind": "rmsnorm", "activation": "swiglu", "positions": "rope", "bias": False},
}
"""``model.arch``: the wiring keys a family fills (each may still be given, and then wins): the seed's post-norm
block; GPT-2's pre-norm block with its tanh GELU, learned positions and biases (nanoGPT: ``activation = "gelu"``);
Llama's RMSNorm, gated SiLU MLP and rotary positions without biases."""


def prefix(layers: int, l: int) -> str:
    """Names inside block l: bare for one layer, ``l0.`` … for several.

    >>> prefix(1, 0), prefix(2, 1)
    ('', 'l1.')
    """
    return "" if layers == 1 else f"l{l}."


def stage(section: str, *applies, block=None) -> list:
    """Applications shown together: a stage of the architecture, which a document shows as its section ``section``
    (``block``: the number of the block it is in, from 0; None outside the blocks).

    >>> [(a.opt("section"), a.opt("block")) for a in stage("ffn", Apply("relu", "R", ("Z",)), block=0)]
    [('ffn', 0)]
    """
    return [replace(a, opts=a.opts + (("section", section), ("block", block))) for a in applies]


def stages(plan) -> list:
    """The plan in runs of one stage (the ``section`` and ``block`` its applications carry): ``[(section, [Apply…])]``.

    >>> [(key, [a.out for a in run]) for key, run in stages(Arch("transformer", 6, 2, 1, 4, 1).plan(2))][:3]
    [('embed', ['X']), ('positional', ['PE', 'H0']), ('attention', ['Attn'])]
    """
    out: list = []
    for a in plan:
        key = a.opt("section")
        if out and out[-1][0] == key and out[-1][1][-1].opt("block") == a.opt("block"):
            out[-1][1].append(a)
        else:
            out.append((key, [a]))
    return out


@dataclass(frozen=True)
class Arch:
    """The sizes of a model and how its blocks are wired."""
    kind: str                    # "transformer" | "bigram"
    V: int                       # vocabulary
    d: int                       # model width
    heads: int = 1
    d_ff: int = 0                # feed-forward width
    layers: int = 0
    tied: bool = True            # the LM head is Eᵀ (else W_out)
    W_O: bool = False            # an output projection after the heads
    all_positions: bool = False  # the loss is the mean over every position (the language-model loss)
    pe_base: sympy.Rational = sympy.Integer(10000)
    ln_eps: sympy.Rational = sympy.Integer(0)
    norm: str = "post"           # where the norm stands: after each residual sum, or "pre" each sub-block
    norm_kind: str = "layernorm"
    activation: str = "relu"
    positions: str = "sinusoidal"
    n_ctx: int = 0               # the positions a learned table holds (the spec's T)
    rope_theta: sympy.Rational = sympy.Integer(10000)   # RoPE's base θ
    kv_heads: int = 0            # heads of K and V (0: one per query head; fewer: grouped-query attention)
    bias: bool | None = None     # biases: None the seed's (the FFN's only), True every projection's, False none

    def __post_init__(self):
        for key, value, known in (("kind", self.kind, KINDS), ("norm", self.norm, PLACEMENTS),
                                  ("norm_kind", self.norm_kind, NORMS), ("activation", self.activation, ACTIVATIONS),
                                  ("positions", self.positions, POSITIONS)):
            if value not in known:
                raise ValueError(f"architecture: {key} = {value!r} is not one of {', '.join(known)}")

    @classmethod
    def of(cls, spec) -> "Arch":
        """The architecture of a spec.

        >>> import symgpt
        >>> Arch.of(symgpt.load("tiny-transformer").spec).d_ff
        4
        """
        return cls(kind=spec.kind, V=spec.V, d=spec.d, heads=spec.heads or 1, d_ff=spec.d_ff, layers=spec.layers,
                   tied=spec.tied, W_O=any(k.endswith("W_O") for k in spec.params),
                   all_positions=spec.training.all_positions, pe_base=spec.pe_base, ln_eps=spec.ln_eps,
                   activation=spec.activation, norm=spec.norm, positions=spec.positions,
                   n_ctx=spec.n_ctx or spec.T, bias=spec.bias, norm_kind=spec.norm_kind,
                   rope_theta=spec.rope_theta, kv_heads=spec.kv_heads if spec.kv_heads != spec.heads else 0)

    def params(self) -> dict:
        """{parameter name: shape}, in the order a spec lists them.

        >>> Arch(kind="bigram", V=3, d=2).params()
        {'E': (3, 2), 'W': (2, 3)}
        """
        V, d, f = self.V, self.d, self.d_ff
        if self.kind == "bigram":
            return {"E": (V, d), "W": (d, V)}
        out = {"E": (V, d)}
        if self.positions == "learned":
            out["W_pe"] = (self.n_ctx, d)
        if not self.tied:
            out["W_out"] = (d, V)
        for l in range(self.layers):
            p = prefix(self.layers, l)
            dkv = d // self.heads * (self.kv_heads or self.heads)
            block = {"W_Q": (d, d), "W_K": (d, dkv), "W_V": (d, dkv)}
            if self.W_O:
                block["W_O"] = (d, d)
            block.update({"W_1": (d, f), "b_1": (f,), "W_2": (f, d), "b_2": (d,)} if self.bias is not False else
                         {"W_1": (d, f), "W_2": (f, d)})
            if self.activation in GATED:
                block.update({"W_3": (d, f)} | ({"b_3": (f,)} if self.bias is not False else {}))
            block.update({f"{role}{n}": (d,) for n in (1, 2) for role in self.norm_roles()})
            if self.bias:
                block.update({b: (d,) for b in ("b_Q",) + (("b_O",) if self.W_O else ())})
                block.update({"b_K": (dkv,), "b_V": (dkv,)})
            out.update({p + k: s for k, s in block.items()})
        if self.norm == "pre":
            out.update({f"{role}_f": (d,) for role in self.norm_roles()})
        return out

    def plan(self, T: int, tokens=None, target=0) -> list:
        """The op applications of one example of T tokens (``tokens`` None: only the sizes matter)."""
        tokens = tuple(tokens) if tokens is not None else (0,) * T
        if self.kind == "bigram":
            return [Apply("embedding", "x", ("E",), (self.d,), meaning="embedding of the input token E[token]",
                          axes=("j",), opts=(("tokens", tokens),)),
                    Apply("linear", "z", ("x",), (self.V,), (("W", "W"),), meaning="logits x·W", axes=("v",)),
                    Apply("softmax_xent", "loss", ("z",), (), opts=(("rows", (("z", target),)), ("V", self.V)))]
        return self._embed(T, tokens) + [a for l in range(self.layers) for a in self._block(l, T)] \
            + self._head(T, tokens, target)

    def _embed(self, T, tokens) -> list:
        td, tj = (T, self.d), ("t", "j")
        pos = POSITIONS[self.positions]
        embed = stage("embed", Apply("embedding", "X", ("E",), td, meaning="token embeddings E[token]", axes=tj,
                                     opts=(("tokens", tokens),)))
        if pos is None:   # RoPE: nothing is added; the blocks read X and their attention turns Q and K
            return embed
        if self.positions == "learned":
            key, PE = "learned_positional", OPS[pos].plan_apply(T, self.d)
        else:
            key, PE = "positional", Apply(pos, "PE", (), td, meaning=OPS[pos].MEANING, axes=tj,
                                          opts=(("base", self.pe_base),))
        return embed + stage(key, PE, Apply("residual", "H0", ("X", "PE"), td, meaning="block input H0 = X + PE",
                                            axes=tj))

    def norm_roles(self) -> tuple:
        """The parameters a norm reads by role: its op's (γ, β for LayerNorm; γ for RMSNorm), without the shift β
        when the model has no biases (nanoGPT's ``bias=False`` takes LayerNorm's bias away too).

        >>> Arch("transformer", 3, 2).norm_roles(), Arch("transformer", 3, 2, bias=False).norm_roles()
        (('gamma', 'beta'), ('gamma',))
        """
        return tuple(r for r in OPS[NORMS[self.norm_kind]].ROLES if r != "beta" or self.bias is not False)

    def _input(self) -> str:
        """The first block's input: H0 = X + PE, or X itself with rotary positions."""
        return "X" if POSITIONS[self.positions] is None else "H0"

    def _out(self, l: int) -> str:
        """The output of block l (the block input of block l + 1): its norm after the sum (post), its sum (pre)."""
        return prefix(self.layers, l) + ("LN2" if self.norm == "post" else "H2")

    def _norm(self, T: int, p: str, n, x: str) -> Apply:
        """The norm ``{p}LN{n}`` of x with its γ, β (n: 1, 2 in a block, "_f" the final one)."""
        nk = NORMS[self.norm_kind]
        roles = tuple((role, f"{p}{role}{n}") for role in self.norm_roles())            # (gamma, beta) or (gamma,)
        return Apply(nk, f"{p}LN{n}", (x,), (T, self.d), roles, p,
                     OPS[nk].MEANING.format(x=x[len(p):] if x.startswith(p) else x), ("t", "j"),
                     (("n", n), ("eps", self.ln_eps)))

    def _block(self, l: int, T: int) -> list:
        """One block. Post-LN (the seed's): attention, a residual sum, a norm; the FFN, a residual sum, a norm.
        Pre-LN (GPT-2's): a norm, attention, a residual sum; a norm, the FFN, a residual sum."""
        p = prefix(self.layers, l)
        H = self._input() if l == 0 else self._out(l - 1)
        td, tf, tj, tk = (T, self.d), (T, self.d_ff), ("t", "j"), ("t", "k")
        attn = tuple((w, p + w) for w in ("W_Q", "W_K", "W_V") + (("W_O",) if self.W_O else ()))
        if self.bias:
            attn += tuple((b, p + b) for b in ("b_Q", "b_K", "b_V") + (("b_O",) if self.W_O else ()))
        ffn_b = (lambda b: ()) if self.bias is False else (lambda b: (("b", p + b),))
        act = ACTIVATIONS[self.activation]
        pre_ln = self.norm == "pre"
        into_attn, into_ffn = (p + "LN1", p + "LN2") if pre_ln else (H, p + "LN1")
        attention = Apply("attention", p + "Attn", (into_attn,), td, attn, p, "attention output", tj,
                          (("heads", self.heads),) + ((("rope", self.rope_theta),) if self.positions == "rope" else ())
                          + ((("kv_heads", self.kv_heads),) if self.kv_heads else ()))
        plus = "" if self.bias is False else " + b"
        gate = Apply("linear", p + "Z", (into_ffn,), tf, (("W", p + "W_1"),) + ffn_b("b_1"), p,
                     f"FFN pre-activation {into_ffn[len(p):]}·W_1{plus and plus + '_1'}", tk)
        down = Apply("linear", p + "F", (p + "R",), td, (("W", p + "W_2"),) + ffn_b("b_2"), p,
                     f"FFN output R·W_2{plus and plus + '_2'}", tj)
        if self.activation in GATED:   # Llama's MLP: down(silu(gate(x)) ⊙ up(x))
            up = Apply("linear", p + "U", (into_ffn,), tf, (("W", p + "W_3"),) + ffn_b("b_3"), p,
                       f"the gated MLP's up projection {into_ffn[len(p):]}·W_3{plus and plus + '_3'}", tk)
            ffn = (gate, up, Apply(act, p + "R", (p + "Z", p + "U"), tf, (), p, OPS[act].MEANING.format(x="Z"), tk),
                   down)
            ffn_key = "ffn_gated"
        else:
            ffn = (gate, Apply(act, p + "R", (p + "Z",), tf, (), p, OPS[act].MEANING.format(x="Z"), tk), down)
            ffn_key = "ffn"
        if pre_ln:
            return stage("norm1", self._norm(T, p, 1, H), block=l) \
                + stage("attention", attention, block=l) \
                + stage("add1", Apply("residual", p + "H1", (H, p + "Attn"), td, (), p, "first residual H + Attn",
                                      tj), block=l) \
                + stage("norm2", self._norm(T, p, 2, p + "H1"), block=l) \
                + stage(ffn_key, *ffn, block=l) \
                + stage("add2", Apply("residual", p + "H2", (p + "H1", p + "F"), td, (), p, "second residual H1 + F",
                                      tj), block=l)
        norm = lambda n, x: self._norm(T, p, n, x)
        return stage("attention", attention, block=l) \
            + stage("residual1", Apply("residual", p + "H1", (H, p + "Attn"), td, (), p, "first residual H + Attn", tj),
                    norm(1, p + "H1"), block=l) \
            + stage(ffn_key, *ffn, block=l) \
            + stage("residual2", Apply("residual", p + "H2", (p + "LN1", p + "F"), td, (), p, "second residual LN1 + F",
                                       tj), norm(2, p + "H2"), block=l)

    def _head(self, T: int, tokens, target) -> list:
        H = self._out(self.layers - 1) if self.layers else self._input()
        final = []
        if self.norm == "pre" and self.layers:
            final, H = stage("final_norm", self._norm(T, "", "_f", H)), "LN_f"
        ats = tuple((f"logits_at{t}", t) for t in range(T - 1)) if self.all_positions else ()
        rows = tuple((name, tokens[t + 1]) for name, t in ats) + (("logits", target),)
        meaning = "h_final · E[v] (tied head)" if self.tied else "h_final · W_out[:, v]"
        head = Apply("head", "logits", (H,), (self.V,), (("W", "E" if self.tied else "W_out"),), "", meaning, ("v",),
                     (("tied", self.tied), ("d", self.d), ("rows", ats)))
        return final + stage("head", head) \
            + stage("softmax", Apply("softmax_xent", "loss", tuple(n for n, _ in rows), (),
                                     opts=(("rows", rows), ("V", self.V))))
