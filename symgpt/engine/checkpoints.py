"""Real checkpoints as specs: a nanoGPT ``ckpt.pt``, a Hugging Face GPT-2 folder, or a module in memory.

Each reader gives a :class:`Checkpoint`: the ``[model]`` keys of the architecture and every parameter as a numpy
float array under the spec's own names (``E``, ``W_pe``, ``l0.W_Q`` …, ``gamma_f``).  :meth:`Checkpoint.write` puts
a spec beside a safetensors weights file (``weights.file``): the floats are never printed as decimals, so the spec
loads them as the exact binary rationals they are.

Layouts, read from the models' own code (nanoGPT's ``model.py``, transformers' ``modeling_gpt2.py``):

* nanoGPT and minGPT store ``nn.Linear`` weights as (out, in): ``y = x Wᵀ + b``, so W_Q is ``c_attn.weight[:d]ᵀ``;
  GPT-2's ``Conv1D`` stores (in, out): ``y = x W + b``, so W_Q is ``c_attn.weight[:, :d]``.
* ``c_attn`` holds Q, K and V side by side; ``c_proj`` of the attention is W_O; the MLP is ``c_fc`` (W_1, d × 4d),
  its GELU, ``c_proj`` (W_2); ``ln_1``, ``ln_2`` are the block's pre-norms (γ1, β1, γ2, β2), ``ln_f`` the final.
* the head is tied as the config says (``tie_word_embeddings``) or, in a nanoGPT checkpoint, when ``lm_head.weight``
  and ``wte.weight`` are one stored tensor (minGPT's are two); a state_dict alone, with neither, ties it when the
  two are equal entry for entry.

Unpickling runs code: ``.pt`` and ``.bin`` files are read with ``torch.load(weights_only=True)``, and a nanoGPT
``meta.pkl`` with an unpickler that builds only dicts, lists, strings and numbers.  safetensors is the safe format.

>>> import numpy as np
>>> sd = {"transformer.wte.weight": np.ones((3, 2)), "transformer.wpe.weight": np.zeros((4, 2)),
...       "transformer.ln_f.weight": np.ones(2), "lm_head.weight": np.ones((3, 2))}
>>> c = from_nanogpt(sd, {"n_layer": 0, "n_head": 1, "n_embd": 2, "block_size": 4, "bias": False, "vocab_size": 3})
>>> c.model["positions"], c.model["tied"], sorted(c.tensors)
('learned', True, ['E', 'W_pe', 'gamma_f'])
"""
from __future__ import annotations

import functools
import io
import json
import os
import pickle
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import tensorfile
from ..core.errors import InputError
from ..core.files import read_bytes, read_text

MAX_CHECKPOINT_BYTES = 1 << 31
"""A checkpoint file is read only up to this size (2 GiB)."""


class CheckpointError(InputError):
    """A file that is not a checkpoint this reader knows, or one whose contents disagree with its config."""


def readable(kind: str):
    """A reader whose malformed input (a value of the wrong type in a config or a checkpoint) is one
    CheckpointError naming the source, not a traceback."""
    def wrap(read):
        @functools.wraps(read)
        def reader(src, *args, **kw):
            try:
                return read(src, *args, **kw)
            except InputError:
                raise
            except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as e:
                raise CheckpointError(f"{src}: not a {kind} symgpt can read ({type(e).__name__}: "
                                      f"{str(e).splitlines()[0][:160] if str(e) else ''})") from None
        return reader
    return wrap


@dataclass
class Checkpoint:
    """An architecture (``[model]`` keys), its parameters under the spec's names, and where they came from."""
    model: dict
    tensors: dict
    source: str
    vocab: list = field(default_factory=list)
    learnable_ln: bool = True
    names: str = ""   # whose state_dict names the tensors had (symgpt.engine.layouts.FAMILIES)

    def spec_toml(self, ids, target, weights_name: str, title: str = "") -> str:
        """The spec's TOML text: [model], [data], [weights] naming the weights file, [training] (the norms train)."""
        ids = [int(i) for i in ids]
        V = self.model["vocab_size"]
        for key, i in [("--input", i) for i in ids] + [("--target", int(target))]:
            if not 0 <= i < V:
                raise CheckpointError(f"{key}: token id {i} is outside the vocabulary 0..{V - 1}")
        n_ctx = self.model.get("n_ctx")
        if n_ctx is not None and len(ids) > n_ctx:
            raise CheckpointError(f"--input: {len(ids)} tokens, but the model's position table has {n_ctx} rows "
                                  f"(its block size)")
        vocab = self.vocab or [f"t{i}" for i in range(V)]
        m = {k: v for k, v in self.model.items() if k != "vocab_size"}
        lines = [f"title = {_toml(title or 'Imported from ' + self.source)}",
                 f"source = {_toml(self.source)}", "", "[model]", 'kind = "transformer"',
                 "vocab = [" + ", ".join(_toml(t) for t in vocab) + "]"]
        lines += [f"{k} = {_toml(v)}" for k, v in m.items()]
        lines += ["", "[data]", "input = [" + ", ".join(_toml(vocab[i]) for i in ids) + "]",
                  f"target = {_toml(vocab[int(target)])}", "", "[weights]", f"file = {_toml(weights_name)}"]
        lines += [f"names = {_toml(self.names)}"] if self.names else []
        lines += ["", "[training]", f"learnable_ln = {_toml(self.learnable_ln)}"]
        return "\n".join(lines) + "\n"

    def write(self, spec_path, ids, target, title: str = "", check=None) -> Path:
        """Write ``SPEC.toml`` and ``SPEC.safetensors`` beside it, both or neither: into a temporary folder beside
        them first, where ``check(spec path)`` may read them (the spec loads), then moved into place."""
        spec_path = Path(spec_path)
        if spec_path.suffix != ".toml":
            raise CheckpointError(f"{spec_path}: --out: expected a file name ending in .toml")
        folder = spec_path.parent
        if not folder.is_dir():
            raise CheckpointError(f"{spec_path}: --out: the folder {folder} does not exist")
        weights = spec_path.with_suffix(".safetensors")
        for p in (spec_path, weights):   # both moves must succeed: a folder in the way is refused before either
            if p.exists() and not p.is_file():
                raise CheckpointError(f"{p}: --out: there is a folder or another non-file of that name")
        text = self.spec_toml(ids, target, weights.name, title)
        try:
            with tempfile.TemporaryDirectory(dir=folder, prefix=".symgpt-import-") as tmp:
                t_weights, t_spec = Path(tmp) / weights.name, Path(tmp) / spec_path.name
                tensorfile.write(t_weights, self.tensors, {"source": self.source})
                t_spec.write_text(text, encoding="utf-8")
                if check is not None:
                    try:
                        check(t_spec)
                    except InputError as e:   # name the file the user asked for, not the temporary one
                        raise type(e)(str(e).replace(str(t_spec), str(spec_path))) from None
                os.replace(t_weights, weights)
                os.replace(t_spec, spec_path)
        except OSError as e:
            raise CheckpointError(f"{spec_path}: cannot write: {(e.strerror or str(e)).lower()}") from None
        return spec_path


def _toml(v) -> str:
    """A TOML value: a string (escaped), a boolean or an integer."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):   # JSON's escapes are TOML's; DEL (and C1 controls) must be escaped too
        text = json.dumps(v, ensure_ascii=False)
        return "".join(c if not 0x7f <= ord(c) <= 0x9f else f"\\u{ord(c):04x}" for c in text)
    raise TypeError(v)


# ---------------------------------------------------------------- reading files safely

def torch_file(path) -> dict:
    """A ``.pt`` / ``.bin`` file through ``torch.load(weights_only=True)`` (no code runs), as a dict."""
    path = Path(path)
    data = read_bytes(path, "checkpoint", MAX_CHECKPOINT_BYTES)
    try:
        import torch
    except ImportError:
        raise CheckpointError(f"{path}: reading a PyTorch file needs torch: pip install 'symgpt[import]' "
                              f"(or save the weights as .safetensors, which needs nothing)") from None
    try:
        obj = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001  (any unpickling failure: one clear line)
        raise CheckpointError(f"{path}: not a PyTorch checkpoint torch can load safely "
                              f"({type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''})") from None
    if not isinstance(obj, dict):
        raise CheckpointError(f"{path}: expected a dict (a checkpoint or a state_dict), got a {type(obj).__name__}")
    return obj


def arrays(state: dict, path) -> dict:
    """{name: float64 numpy array} of a state_dict (torch tensors or numpy arrays); other entries are refused."""
    out = {}
    for name, t in state.items():
        if not isinstance(name, str):
            raise CheckpointError(f"{path}: a state_dict key is not a string: {name!r}")
        if hasattr(t, "detach"):
            if not t.is_floating_point():
                continue                                   # a buffer such as a mask
            t = t.detach().cpu().double().numpy()
        elif not isinstance(t, np.ndarray):
            raise CheckpointError(f"{path}: {name}: expected a tensor, got a {type(t).__name__}")
        out[name] = np.asarray(t, dtype=np.float64)
        bad = ~np.isfinite(out[name])
        if bad.any():
            at = [int(i) for i in np.argwhere(bad)[0]]
            raise CheckpointError(f"{path}: {name}{at}: the weight is {out[name][tuple(at)]}; weights must be finite")
    return out


class _Plain(pickle.Unpickler):
    """Builds only plain data (dict, list, str, int, float): a ``meta.pkl`` that asks for anything else is refused."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"it asks for {module}.{name}")


def nanogpt_meta(path) -> list:
    """The characters of a nanoGPT ``meta.pkl`` (``itos``), read without running code."""
    path = Path(path)
    try:
        meta = _Plain(io.BytesIO(read_bytes(path, "meta"))).load()
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001  (any failure of a hostile pickle: one clear line)
        raise CheckpointError(f"{path}: not a nanoGPT meta.pkl of plain data ({type(e).__name__}: {e})") from None
    itos = meta.get("itos") if isinstance(meta, dict) else None
    if not isinstance(itos, dict) or not all(isinstance(k, int) and isinstance(v, str) for k, v in itos.items()) \
            or sorted(itos) != list(range(len(itos))):
        raise CheckpointError(f"{path}: expected a dict with 'itos' (ids 0 … V−1 → characters)")
    return [itos[i] for i in range(len(itos))]


# ---------------------------------------------------------------- nanoGPT (and minGPT's names)

NANOGPT_ARGS = ("n_layer", "n_head", "n_embd", "block_size", "vocab_size")


@readable("nanoGPT checkpoint")
def nanogpt_file(path, gelu: str = "erf") -> Checkpoint:
    """A nanoGPT checkpoint (``torch.save`` of ``{'model': state_dict, 'model_args': {...}, …}``)."""
    ck = torch_file(path)
    if "model_args" not in ck or "model" not in ck:
        raise CheckpointError(f"{path}: not a nanoGPT checkpoint: expected the keys 'model' and 'model_args', "
                              f"got {sorted(map(str, ck))[:8]}")
    if not isinstance(ck["model"], dict) or not isinstance(ck["model_args"], dict) \
            or not all(isinstance(k, str) for k in ck["model"]):
        raise CheckpointError(f"{path}: not a nanoGPT checkpoint: 'model' must be a state_dict (a dict of named "
                              f"tensors) and 'model_args' a dict")
    state = {k.removeprefix("_orig_mod."): v for k, v in ck["model"].items()}   # torch.compile's prefix
    head, wte = state.get("lm_head.weight"), state.get("transformer.wte.weight")
    shared = head is not None and wte is not None and hasattr(head, "data_ptr") and head.data_ptr() == wte.data_ptr()
    return from_nanogpt(arrays(state, path), ck["model_args"], gelu, source=str(path), tied=shared)


def from_nanogpt(sd: dict, args: dict, gelu: str = "erf", source: str = "nanoGPT",
                 tied: bool | None = None) -> Checkpoint:
    """A nanoGPT ``GPT``'s state_dict (numpy arrays) and its ``model_args`` as a Checkpoint.  ``tied``: whether the
    head is the embedding's own tensor (torch.save keeps the sharing; minGPT does not share); None: whether the two
    are equal entry for entry."""
    missing = [k for k in NANOGPT_ARGS if not isinstance(args.get(k), int)]
    if missing:
        raise CheckpointError(f"{source}: model_args: expected integers {', '.join(missing)}")
    L, H, d, n_ctx, V = (args[k] for k in NANOGPT_ARGS)
    bias = bool(args.get("bias", True))
    take = _Taker(sd, source, "transformer.")
    out = {"E": take("wte.weight", (V, d)), "W_pe": take("wpe.weight", (n_ctx, d))}
    for l in range(L):
        h = f"h.{l}."
        p = "" if L == 1 else f"l{l}."
        qkv = take(h + "attn.c_attn.weight", (3 * d, d))                     # nn.Linear: (out, in)
        out.update({p + "W_Q": qkv[:d].T, p + "W_K": qkv[d:2 * d].T, p + "W_V": qkv[2 * d:].T,
                    p + "W_O": take(h + "attn.c_proj.weight", (d, d)).T,
                    p + "W_1": take(h + "mlp.c_fc.weight", (4 * d, d)).T,
                    p + "W_2": take(h + "mlp.c_proj.weight", (d, 4 * d)).T,
                    p + "gamma1": take(h + "ln_1.weight", (d,)), p + "gamma2": take(h + "ln_2.weight", (d,))})
        if bias:
            b = take(h + "attn.c_attn.bias", (3 * d,))
            out.update({p + "b_Q": b[:d], p + "b_K": b[d:2 * d], p + "b_V": b[2 * d:],
                        p + "b_O": take(h + "attn.c_proj.bias", (d,)), p + "b_1": take(h + "mlp.c_fc.bias", (4 * d,)),
                        p + "b_2": take(h + "mlp.c_proj.bias", (d,)),
                        p + "beta1": take(h + "ln_1.bias", (d,)), p + "beta2": take(h + "ln_2.bias", (d,))})
    out["gamma_f"] = take("ln_f.weight", (d,))
    if bias:
        out["beta_f"] = take("ln_f.bias", (d,))
    tied = _tied(take, out, "lm_head.weight", (V, d), transpose=True, tied=tied)
    take.done()
    if gelu not in ("erf", "tanh"):
        raise CheckpointError(f"{source}: --gelu: expected erf or tanh, got {gelu!r}")
    model = {"vocab_size": V, "d": d, "heads": H, "d_ff": 4 * d, "layers": L, "tied": tied, "ln_eps": "1e-5",
             "norm": "pre", "activation": "gelu" if gelu == "erf" else "gelu_tanh", "positions": "learned",
             "n_ctx": n_ctx, "bias": bias}
    return Checkpoint(_model(model), out, source, names="nanogpt")


def _model(m: dict) -> dict:
    """The [model] keys in the order a spec writes them (ln_eps as its decimal text)."""
    return {k: (v if k not in ("ln_eps", "rope_theta") else str(v)) for k, v in m.items()}


class _Taker:
    """Takes each tensor of a state_dict once, by name (with an optional prefix), checking its shape; ``done``
    refuses what no parameter took (a checkpoint of another architecture)."""

    IGNORED = (".attn.bias", ".attn.masked_bias")   # causal-mask buffers of older GPT-2 and nanoGPT checkpoints

    def __init__(self, sd: dict, source: str, prefix: str = ""):
        self.sd, self.source, self.prefix, self.used = sd, source, prefix, set()

    def __call__(self, name: str, shape: tuple, required: bool = True):
        key = self.prefix + name if self.prefix + name in self.sd else name
        if key not in self.sd:
            if not required:
                return None
            raise CheckpointError(f"{self.source}: missing the tensor {self.prefix + name}")
        a = self.sd[key]
        if tuple(a.shape) != tuple(shape):
            raise CheckpointError(f"{self.source}: {key}: shape {tuple(a.shape)} disagrees with the config, "
                                  f"which needs {tuple(shape)}")
        self.used.add(key)
        return a

    def done(self):
        rest = sorted(k for k in self.sd if k not in self.used and not k.endswith(self.IGNORED))
        if rest:
            raise CheckpointError(f"{self.source}: tensors no parameter of this architecture takes: "
                                  f"{', '.join(rest[:6])}{' …' if len(rest) > 6 else ''}")


def _tied(take, out: dict, name: str, shape: tuple, transpose: bool, tied: bool | None = None) -> bool:
    """Whether the head is the embedding: as ``tied`` says (the config's ``tie_word_embeddings``, or the tensors'
    sharing), else when there is no head tensor or it equals E entry for entry.  An untied head is W_out, even
    when its entries equal E's (then the two still train apart); a tied head that differs from E is an error."""
    head = take(name, shape, required=False)
    if tied is None:
        tied = head is None or np.array_equal(head, out["E"])
    if tied:
        if head is not None and not np.array_equal(head, out["E"]):
            raise CheckpointError(f"{take.source}: {name} is tied to the embedding by the config, but its entries "
                                  f"differ from it")
        return True
    if head is None:
        raise CheckpointError(f"{take.source}: missing the tensor {name} of an untied head")
    out["W_out"] = head.T if transpose else head
    return False


# ---------------------------------------------------------------- Hugging Face

@readable("Hugging Face model folder")
def hf_folder(folder) -> Checkpoint:
    """A Hugging Face model folder: config.json and model.safetensors (or pytorch_model.bin)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: expected a Hugging Face model folder (config.json and its weights)")
    try:
        config = json.loads(read_text(folder / "config.json", "config"))
    except ValueError as e:
        raise CheckpointError(f"{folder / 'config.json'}: not JSON ({e})") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{folder / 'config.json'}: expected a JSON object")
    if (folder / "model.safetensors").is_file():
        src = folder / "model.safetensors"
        sd = {k: np.asarray(v, dtype=np.float64) for k, v in tensorfile.read(src).items()}
        sd = arrays(sd, src)
    elif (folder / "pytorch_model.bin").is_file():
        src = folder / "pytorch_model.bin"
        sd = arrays(torch_file(src), src)
    else:
        raise CheckpointError(f"{folder}: no model.safetensors or pytorch_model.bin beside config.json "
                              f"(sharded checkpoints are not read)")
    kind = config.get("model_type")
    if kind == "gpt2":
        return from_gpt2(sd, config, str(src))
    if kind == "llama":
        return from_llama(sd, config, str(src))
    raise CheckpointError(f"{folder / 'config.json'}: model_type {kind!r} is not one symgpt reads (gpt2, llama)")


GPT2_UNSUPPORTED = {"scale_attn_by_inverse_layer_idx": True, "reorder_and_upcast_attn": True,
                    "scale_attn_weights": False, "add_cross_attention": True}
GPT2_ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu",
                    "silu": "silu"}


def from_gpt2(sd: dict, config: dict, source: str = "GPT-2") -> Checkpoint:
    """A ``GPT2LMHeadModel``'s state_dict (Conv1D weights stored (in, out)) and its config.json."""
    for key, bad in GPT2_UNSUPPORTED.items():
        if config.get(key, not bad) == bad:
            raise CheckpointError(f"{source}: config {key} = {json.dumps(bad)} is an option symgpt does not compute")
    act = GPT2_ACTIVATIONS.get(config.get("activation_function", "gelu_new"))
    if act is None:
        raise CheckpointError(f"{source}: config activation_function {config.get('activation_function')!r} is not "
                              f"one of {', '.join(GPT2_ACTIVATIONS)}")
    try:
        L, H, d, n_ctx, V = (int(config[k]) for k in ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size"))
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{source}: config.json lacks an integer {e}") from None
    f = int(config.get("n_inner") or 4 * d)
    eps = config.get("layer_norm_epsilon", 1e-5)
    take = _Taker(sd, source, "transformer.")
    out = {"E": take("wte.weight", (V, d)), "W_pe": take("wpe.weight", (n_ctx, d))}
    for l in range(L):
        h, p = f"h.{l}.", "" if L == 1 else f"l{l}."
        qkv, b = take(h + "attn.c_attn.weight", (d, 3 * d)), take(h + "attn.c_attn.bias", (3 * d,))   # Conv1D
        out.update({p + "W_Q": qkv[:, :d], p + "W_K": qkv[:, d:2 * d], p + "W_V": qkv[:, 2 * d:],
                    p + "b_Q": b[:d], p + "b_K": b[d:2 * d], p + "b_V": b[2 * d:],
                    p + "W_O": take(h + "attn.c_proj.weight", (d, d)), p + "b_O": take(h + "attn.c_proj.bias", (d,)),
                    p + "W_1": take(h + "mlp.c_fc.weight", (d, f)), p + "b_1": take(h + "mlp.c_fc.bias", (f,)),
                    p + "W_2": take(h + "mlp.c_proj.weight", (f, d)), p + "b_2": take(h + "mlp.c_proj.bias", (d,)),
                    p + "gamma1": take(h + "ln_1.weight", (d,)), p + "beta1": take(h + "ln_1.bias", (d,)),
                    p + "gamma2": take(h + "ln_2.weight", (d,)), p + "beta2": take(h + "ln_2.bias", (d,))})
    out["gamma_f"], out["beta_f"] = take("ln_f.weight", (d,)), take("ln_f.bias", (d,))
    tie = config.get("tie_word_embeddings", True)
    tied = _tied(take, out, "lm_head.weight", (V, d), transpose=True, tied=bool(tie))
    take.done()
    model = {"vocab_size": V, "d": d, "heads": H, "d_ff": f, "layers": L, "tied": tied, "ln_eps": _decimal(eps),
             "norm": "pre", "activation": act, "positions": "learned", "n_ctx": n_ctx, "bias": True}
    return Checkpoint(_model(model), out, source, names="gpt2")


def from_llama(sd: dict, config: dict, source: str = "Llama") -> Checkpoint:
    """A ``LlamaForCausalLM``'s state_dict (``nn.Linear`` weights (out, in); Q and K already in the rotate_half
    layout, as Hugging Face's conversion leaves them) and its config.json."""
    try:
        L, H, d, f, V = (int(config[k]) for k in ("num_hidden_layers", "num_attention_heads", "hidden_size",
                                                   "intermediate_size", "vocab_size"))
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{source}: config.json lacks an integer {e}") from None
    kv = int(config.get("num_key_value_heads") or H)
    unsupported = [(H % kv != 0, f"num_key_value_heads = {kv}, which does not divide {H} heads"),
                   (int(config.get("head_dim") or d // H) * H != d, f"head_dim = {config.get('head_dim')} with "
                                                                    f"heads·head_dim ≠ hidden_size"),
                   (config.get("hidden_act", "silu") != "silu", f"hidden_act = {config.get('hidden_act')!r}"),
                   (bool(config.get("attention_bias")), "attention_bias = true"),
                   (bool(config.get("mlp_bias")), "mlp_bias = true"),
                   (int(config.get("pretraining_tp") or 1) != 1, "pretraining_tp ≠ 1")]
    rope = config.get("rope_parameters") or {}
    scaling = config.get("rope_scaling") or {}
    kind = rope.get("rope_type", scaling.get("rope_type", scaling.get("type", "default")))
    unsupported.append((kind != "default", f"rope_type = {kind!r} (only the default rotary embedding)"))
    for bad, what in unsupported:
        if bad:
            raise CheckpointError(f"{source}: config {what} is an option symgpt does not compute")
    theta = rope.get("rope_theta", config.get("rope_theta", 10000.0))
    take = _Taker(sd, source, "model.")
    out = {"E": take("embed_tokens.weight", (V, d))}
    for l in range(L):
        h, p = f"layers.{l}.", "" if L == 1 else f"l{l}."
        out.update({p + "W_Q": take(h + "self_attn.q_proj.weight", (d, d)).T,
                    p + "W_K": take(h + "self_attn.k_proj.weight", (d // H * kv, d)).T,    # kv heads (GQA)
                    p + "W_V": take(h + "self_attn.v_proj.weight", (d // H * kv, d)).T,
                    p + "W_O": take(h + "self_attn.o_proj.weight", (d, d)).T,
                    p + "W_1": take(h + "mlp.gate_proj.weight", (f, d)).T,
                    p + "W_3": take(h + "mlp.up_proj.weight", (f, d)).T,
                    p + "W_2": take(h + "mlp.down_proj.weight", (d, f)).T,
                    p + "gamma1": take(h + "input_layernorm.weight", (d,)),
                    p + "gamma2": take(h + "post_attention_layernorm.weight", (d,))})
    out["gamma_f"] = take("norm.weight", (d,))
    tie = config.get("tie_word_embeddings", False)
    tied = _tied(take, out, "lm_head.weight", (V, d), transpose=True, tied=bool(tie))
    take.done()
    model = {"vocab_size": V, "d": d, "heads": H, "d_ff": f, "layers": L, "tied": tied,
             "ln_eps": _decimal(config.get("rms_norm_eps", 1e-6)), "norm": "pre", "norm_kind": "rmsnorm",
             "activation": "swiglu", "positions": "rope", "rope_theta": _decimal(theta), "bias": False}
    if kv != H:
        model["kv_heads"] = kv
    return Checkpoint(_model(model), out, source, names="llama")


def _decimal(x) -> str:
    """A config's float as the shortest decimal that reads back to it (1e-05 → "1e-05"): ε as the config wrote it."""
    return repr(float(x))
