"""``symgpt import``: a real checkpoint as a spec, and the same in Python.

* ``symgpt import nanogpt CKPT.pt --input IDS --target ID [--gelu erf|tanh] [--meta meta.pkl --text TEXT]
  --out SPEC.toml``: a nanoGPT checkpoint (``model_args`` and the ``model`` state_dict; torch.compile's
  ``_orig_mod.`` prefix is stripped; a head not equal to ``wte`` is kept as W_out, as minGPT's);
* ``symgpt import hf DIR --input IDS --target ID --out SPEC.toml``: a Hugging Face ``GPT2LMHeadModel`` or
  ``LlamaForCausalLM`` folder
  (config.json with model.safetensors or pytorch_model.bin).

``IDS`` is a comma-separated list of token ids; with ``--meta`` (a nanoGPT ``meta.pkl``) ``--text`` gives the input
as characters and the vocabulary is the characters.  The spec names a weights file written beside it
(``weights.file = "SPEC.safetensors"``), never the numbers as decimals: each float loads as the exact binary
rational it is.  Both files appear together or not at all, and only once the spec loads.

In Python, :func:`nanogpt`, :func:`hf` and :func:`torch_module` (a transformers GPT-2 or Llama, or a nanoGPT
``GPT`` in memory) give the loaded :class:`symgpt.Derivation`.

>>> parser().parse_args(["hf", "gpt2-tiny", "--input", "1,2", "--target", "3", "--out", "g.toml"]).kind
'hf'
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from .cli import Parser, run
from .core.errors import InputError
from .derivation import Derivation, load
from .engine import checkpoints
from .engine.checkpoints import Checkpoint, CheckpointError
from .engine.spec import load_spec

__all__ = ["CheckpointError", "hf", "main", "nanogpt", "parser", "torch_module"]


def nanogpt(path, ids, target, *, gelu: str = "erf", meta=None, text: str | None = None, out=None) -> Derivation:
    """A nanoGPT checkpoint as a derivation (its spec and weights written to ``out``, or to a temporary folder)."""
    ck = checkpoints.nanogpt_file(path, gelu)
    if meta is not None:
        ck.vocab = _vocab(checkpoints.nanogpt_meta(meta), ck, meta)
    ids = _ids(ids, text, ck.vocab)
    return _loaded(ck, ids, target, out, Path(path).stem)


def hf(folder, ids, target, *, out=None) -> Derivation:
    """A Hugging Face GPT-2 or Llama folder as a derivation."""
    ck = checkpoints.hf_folder(folder)
    return _loaded(ck, _ids(ids, None, []), target, out, Path(folder).name)


def torch_module(model, ids, target, *, out=None, gelu: str = "erf") -> Derivation:
    """A model in memory as a derivation: a ``transformers`` GPT-2 (``config.model_type == "gpt2"``), or a nanoGPT
    ``GPT`` (a ``config`` with n_layer, n_head, n_embd, block_size, vocab_size and bias)."""
    try:
        state = checkpoints.arrays(dict(model.state_dict()), type(model).__name__)
    except AttributeError:
        raise CheckpointError(f"{type(model).__name__}: expected a torch module with a state_dict") from None
    config = getattr(model, "config", None)
    if getattr(config, "model_type", None) == "gpt2":
        ck = checkpoints.from_gpt2(state, config.to_dict(), type(model).__name__)
    elif getattr(config, "model_type", None) == "llama":
        ck = checkpoints.from_llama(state, config.to_dict(), type(model).__name__)
    elif config is not None and all(hasattr(config, k) for k in checkpoints.NANOGPT_ARGS):
        args = {k: getattr(config, k) for k in checkpoints.NANOGPT_ARGS + ("bias",) if hasattr(config, k)}
        head, wte = getattr(model, "lm_head", None), getattr(getattr(model, "transformer", None), "wte", None)
        tied = head is not None and wte is not None and head.weight is wte.weight   # one tensor, or two
        ck = checkpoints.from_nanogpt(state, args, gelu, type(model).__name__, tied=tied)
    else:
        raise CheckpointError(f"{type(model).__name__}: expected a transformers GPT-2 or a nanoGPT GPT (a config "
                              f"with {', '.join(checkpoints.NANOGPT_ARGS)})")
    return _loaded(ck, _ids(ids, None, []), target, out, type(model).__name__)


def _vocab(chars: list, ck: Checkpoint, meta) -> list:
    V = ck.model["vocab_size"]
    if len(chars) != V:
        raise CheckpointError(f"{meta}: itos has {len(chars)} characters, the model's vocabulary {V}")
    return chars


def _ids(ids, text, vocab) -> list:
    """Token ids from a list, a comma-separated string, or (with a vocabulary) a text of its tokens."""
    if text is not None:
        if not vocab:
            raise InputError("--text: needs --meta (the characters of the vocabulary)")
        pos = {t: i for i, t in enumerate(vocab)}
        unknown = sorted({c for c in text if c not in pos})
        if unknown or not text:
            raise InputError(f"--text: {'no text' if not text else 'characters not in the vocabulary: '}"
                             f"{''.join(unknown)!r}")
        return [pos[c] for c in text]
    if isinstance(ids, str):
        try:
            ids = [int(x) for x in ids.split(",") if x.strip()]
        except ValueError:
            raise InputError(f"--input: expected token ids such as 1,2,3, got {ids!r}") from None
    if not ids:
        raise InputError("--input: expected at least one token id")
    return [int(i) for i in ids]


def _loaded(ck: Checkpoint, ids, target, out, name: str) -> Derivation:
    path = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="symgpt-import-")) / f"{name}.toml"
    ck.write(path, ids, int(target), check=load_spec)
    return load(path)


# ---------------------------------------------------------------- the command

def parser(ap: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """``symgpt import nanogpt|hf``."""
    ap = ap or Parser(prog="symgpt import")
    ap.description = ("Write a spec for a real checkpoint: a nanoGPT ckpt.pt, or a Hugging Face GPT-2 or Llama folder. "
                      "The weights go to SPEC.safetensors beside the spec, read back as exact binary rationals.")
    ap.add_argument("kind", choices=("nanogpt", "hf"), help="nanogpt (a ckpt.pt) or hf (a model folder)")
    ap.add_argument("source", metavar="CKPT_OR_DIR", help="the checkpoint file (nanogpt) or the model folder (hf)")
    ap.add_argument("--input", metavar="IDS", help="the input token ids, comma-separated (1,2,3)")
    ap.add_argument("--text", help="with --meta: the input as characters")
    ap.add_argument("--meta", metavar="META.PKL", help="nanogpt: the dataset's meta.pkl (its characters)")
    ap.add_argument("--target", required=True, metavar="ID", help="the token id the model should predict")
    ap.add_argument("--gelu", choices=("erf", "tanh"), default="erf",
                    help="nanogpt: the GELU of the MLP: erf (nn.GELU(), nanoGPT's) or tanh (minGPT's NewGELU)")
    ap.add_argument("--out", required=True, metavar="SPEC.toml", help="the spec to write (and SPEC.safetensors)")
    return ap


def execute(a) -> int:
    try:
        target = int(a.target)
    except ValueError:
        raise InputError(f"--target: expected a token id, got {a.target!r}") from None
    if a.input is None and a.text is None:
        raise InputError("--input: expected token ids (or --text with --meta)")
    if a.kind == "nanogpt":
        ck = checkpoints.nanogpt_file(a.source, a.gelu)
        if a.meta:
            ck.vocab = _vocab(checkpoints.nanogpt_meta(a.meta), ck, a.meta)
        ids = _ids(a.input, a.text, ck.vocab)
    else:
        if a.meta or a.text:
            raise InputError("--meta and --text are for nanogpt checkpoints")
        ck = checkpoints.hf_folder(a.source)
        ids = _ids(a.input, None, [])
    path = ck.write(Path(a.out), ids, target, check=load_spec)
    print(f"{path}: {ck.model['layers']} layers, d = {ck.model['d']}, V = {ck.model['vocab_size']}; "
          f"weights in {path.with_suffix('.safetensors').name}")
    return 0


def main(argv=None) -> int:
    return execute(parser().parse_args(argv))


if __name__ == "__main__":
    run(main)
