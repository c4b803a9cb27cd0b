"""``symgpt grad SPEC --digits N --out FILE.json|FILE.safetensors [--by spec|checkpoint]``: the certified loss and
full gradient of a spec, written to a file.

Each tensor is one entry: by the checkpoint's own state_dict names and layouts when the spec was imported from one
(``weights.names``; :meth:`symgpt.Derivation.gradient` with ``by="checkpoint"``), else by the spec's parameter
names (``E``, ``l0.W_Q`` …).

* ``.json``: ``{"spec", "digits", "by", "loss", "gradient": {name: nested lists of decimal strings}}``; every
  digit is certified.  An entry no ball could round and SymPy could not prove 0 is its enclosure, ``[+/- r]``.
* ``.safetensors``: each tensor in float64, the decimal read as the nearest float64 (an enclosure of 0 as 0.0);
  the metadata holds the spec, the digits, ``by`` and the loss as its decimal.

The file appears whole or not at all (written beside it first, then moved into place).

>>> parser().parse_args(["bigram", "--out", "g.json"]).digits
30
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from .cli import Parser, run, write_whole
from .core import tensorfile
from .core.errors import InputError
from .core.limits import MAX_DIGITS
from .derivation import find_spec, load

SUFFIXES = (".json", ".safetensors")


def parser(ap: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The arguments of ``symgpt grad``."""
    ap = ap or Parser(prog="symgpt grad")
    ap.description = ("Write the certified loss and every parameter's gradient of a spec to a file: JSON (decimal "
                      "strings) or safetensors (float64), by the checkpoint's names when the spec was imported.")
    ap.add_argument("spec", metavar="SPEC", help="a spec file, or the name of a shipped spec")
    ap.add_argument("--digits", type=int, default=30, help="significant digits of every entry, 1 to 1000 (default 30)")
    ap.add_argument("--out", required=True, metavar="FILE", help="FILE.json or FILE.safetensors")
    ap.add_argument("--by", choices=("spec", "checkpoint"),
                    help="tensor names: the checkpoint's (the default for an imported spec) or the spec's")
    return ap


def tensors(d, digits: int, by: str) -> dict:
    """{name: nested lists of decimal strings}: every gradient tensor of the derivation ``d``.

    >>> import symgpt
    >>> g = tensors(symgpt.load("bigram"), 3, "spec")
    >>> [len(g["E"]), len(g["E"][0])], g["W"][0][2]            # E is V × d; ∂L/∂W[0,鱼] = x₀·(p − 1)
    ([3, 2], '-0.195')
    """
    if by == "checkpoint":
        return d.gradient(digits, by="checkpoint")
    return {group: a.tolist() for group, a in d.shaped(d.gradient(digits)).items()}


def _float(x: str) -> float:
    """A certified decimal as the nearest float64; an enclosure of 0 (``[+/- r]``) as 0.0."""
    return 0.0 if x.startswith("[") else float(x)


def execute(a) -> int:
    if not 1 <= a.digits <= MAX_DIGITS:
        raise InputError(f"--digits: expected a number of significant digits from 1 to {MAX_DIGITS}, got {a.digits}")
    out = Path(a.out)
    if out.suffix not in SUFFIXES:
        raise InputError(f"{out}: --out: expected a file name ending in {' or '.join(SUFFIXES)}")
    if not out.parent.is_dir():
        raise InputError(f"{out}: --out: the folder {out.parent} does not exist")
    if out.exists() and not out.is_file():
        raise InputError(f"{out}: --out: there is a folder or another non-file of that name")
    d = load(find_spec(a.spec))
    by = a.by or ("checkpoint" if d.spec.checkpoint else "spec")
    grads = tensors(d, a.digits, by)
    loss = d.value("loss", digits=a.digits)
    if out.suffix == ".json":
        doc = {"spec": str(d.spec.path), "digits": a.digits, "by": by, "loss": loss, "gradient": grads}
        fill = lambda tmp: tmp.write_text(json.dumps(doc, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        arrays = {k: np.vectorize(_float, otypes=[np.float64])(np.array(v, dtype=object)) for k, v in grads.items()}
        meta = {"spec": str(d.spec.path), "digits": str(a.digits), "by": by, "loss": loss}
        fill = lambda tmp: tensorfile.write(tmp, arrays, meta)
    write_whole(out, fill, "--out")
    n = sum(np.size(v) for v in grads.values())
    print(f"{out}: loss {loss}; {len(grads)} tensors, {n} entries, {a.digits} digits, by {by} names")
    return 0


def main(argv=None) -> int:
    return execute(parser().parse_args(argv))


if __name__ == "__main__":
    run(main)
