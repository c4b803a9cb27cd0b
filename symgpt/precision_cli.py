"""The arguments of ``python -m symgpt.precision`` and ``symgpt precision`` (no numpy until the command runs).

>>> parser().parse_args(["bigram", "--formats", "float16"]).formats
'float16'
"""
from __future__ import annotations

import argparse

FORMAT_NAMES = ("float64", "float32", "bfloat16", "float16")


def parser(ap: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The command line; ``ap`` is a sub-command's parser to fill (``symgpt precision``)."""
    from .cli import Parser
    ap = ap or Parser(prog="python -m symgpt.precision",
                      description="Evaluate a model in float64, float32, bfloat16 and float16 with real IEEE "
                                  "arithmetic, compare every quantity with its exact value, and show where the "
                                  "error starts.")
    ap.add_argument("specs", nargs="*", metavar="SPEC", help="shipped names or spec files (default: both seeds)")
    ap.add_argument("--formats", default=",".join(FORMAT_NAMES),
                    help=f"comma-separated formats among {', '.join(FORMAT_NAMES)} (default: all four)")
    ap.add_argument("--format", dest="output", default="table", choices=("table", "md", "json"),
                    help="output: an aligned table, Markdown or JSON")
    ap.add_argument("--entries", action="store_true",
                    help="with table or md: also every entry's value, its error in ulps and relative, per format")
    ap.add_argument("--svg", metavar="DIR", help="also write DIR/NAME-precision.svg: correct digits of every "
                                                 "tensor along the pipeline, one line per format")
    births = ap.add_mutually_exclusive_group()
    births.add_argument("--births", action="store_true",
                        help="the birth analysis even for a big model (by default only when d·T·layers ≤ 64: it "
                             "carries each rounding alone through the whole model, which takes long beyond that)")
    births.add_argument("--no-births", action="store_true", help="skip the birth analysis")
    return ap


def execute(a: argparse.Namespace) -> int:
    """``symgpt precision``: import the forensics (numpy, ml_dtypes) only now."""
    from .precision import execute as run_forensics
    return run_forensics(a)
