"""``python -m symgpt.precision`` and ``symgpt precision``: precision forensics from the command line.

The forensics themselves are :mod:`symgpt.floats.forensics`; this module re-exports them, so
``symgpt.precision.forensics(d, formats)`` works in a notebook.

>>> parser().parse_args(["bigram", "--formats", "float16"]).formats
'float16'
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from .cli import Parser, run
from .core.errors import InputError
from .derivation import find_spec
from .documents.precision import svg
from .floats.forensics import BIRTHS_UP_TO, DPS, MP, PREC, Forensics, forensics, ulp
from .floats.model import check_formats
from .verify import derivation_for

__all__ = ["BIRTHS_UP_TO", "DPS", "MP", "PREC", "Forensics", "execute", "forensics", "main", "parser", "ulp"]

FORMAT_NAMES = ("float64", "float32", "bfloat16", "float16")


def parser(ap: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The command line; ``ap`` is a sub-command's parser to fill (``symgpt precision``)."""
    ap = ap or Parser(prog="python -m symgpt.precision",
                      description="Evaluate a model in float64, float32, bfloat16 and float16 with real IEEE "
                                  "arithmetic, compare every quantity with its exact value, and show where the "
                                  "error starts.")
    ap.add_argument("specs", nargs="*", metavar="SPEC", help="shipped names or spec files (default: both seeds)")
    ap.add_argument("--formats", default=",".join(FORMAT_NAMES),
                    help=f"comma-separated formats among {', '.join(FORMAT_NAMES)} (default: all four)")
    ap.add_argument("--format", dest="output", default="table", type=str.lower, choices=("table", "md", "json"),
                    help="output: an aligned table, Markdown or JSON")
    ap.add_argument("--entries", action="store_true",
                    help="with table or md: also every entry's value, its error in ulps and relative, per format")
    ap.add_argument("--svg", metavar="DIR", help="also write DIR/NAME-precision.svg: correct digits of every "
                                                 "tensor along the pipeline, one line per format")
    births = ap.add_mutually_exclusive_group()
    births.add_argument("--births", action="store_true",
                        help=f"the birth analysis even for a big model (by default only when d·T·layers ≤ "
                             f"{BIRTHS_UP_TO:,}, the nanoGPT shape: it carries each rounding alone through the "
                             "whole model, about a minute there for all four formats, and more beyond)")
    births.add_argument("--no-births", action="store_true", help="skip the birth analysis")
    return ap



def execute(a) -> int:
    """Run ``python -m symgpt.precision`` / ``symgpt precision`` with parsed arguments (:func:`parser`)."""
    formats = check_formats([f.strip() for f in a.formats.split(",") if f.strip()])
    specs = a.specs or ["tiny-transformer", "bigram"]
    results = []
    for s in specs:
        d = derivation_for(find_spec(s))
        small = d.spec.d * len(d.spec.input) * max(d.spec.layers, 1) <= BIRTHS_UP_TO
        results.append(forensics(d, formats, births=not a.no_births and (a.births or small)))
        if not a.no_births and not (a.births or small):
            results[-1].pipe.notes.append(f"no birth analysis for a model with d·T·layers > {BIRTHS_UP_TO} "
                                          "(--births asks for it; it can take long)")
    if a.svg:
        _write_svgs(results, a.svg)
    if a.output == "json":
        sys.stdout.write(json.dumps([r.to_json() for r in results], ensure_ascii=False, indent=1, allow_nan=False,
                                    default=_jsonable) + "\n")
    else:
        sys.stdout.write("\n".join(r.table(markdown=a.output == "md", entries=a.entries) for r in results))
    return 0


def _write_svgs(results, out) -> None:
    """Each model's chart as OUT/NAME-precision.svg (the folder made if missing); every picture is drawn before
    any file is written, and each file appears whole (written beside, then renamed)."""
    pictures = {f"{r.d.spec.name}-precision.svg": svg(r) for r in results}
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
        for name, text in pictures.items():
            tmp = Path(out) / f".{name}.part"
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, Path(out) / name)
    except OSError as e:
        raise InputError(f"--svg {out}: cannot write the picture: {e.strerror or e}") from None


def _jsonable(x):
    if isinstance(x, tuple):
        return list(x)
    return float(x) if math.isfinite(float(x)) else str(float(x))


def main(argv=None) -> int:
    """``python -m symgpt.precision ARGS``; its exit status."""
    return execute(parser().parse_args(argv))


if __name__ == "__main__":
    run(main)
