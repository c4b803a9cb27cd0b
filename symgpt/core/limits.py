"""Documented limits: what one run may cost before it is refused, up front.

A spec's cost is estimated from its sizes before any graph is built, and a
claim's size (digits of its numbers, growth of its powers) before it is
evaluated; what exceeds a limit raises :class:`symgpt.core.errors.LimitError` with
the estimate and the flag that raises the limit.  Defaults keep every run
under 30 s and 2 GB on a laptop.

>>> Limits().max_digits >= 100
True
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_OPS = 800_000          # estimated scalar operations of one spec (symgpt.engine.cost; benchmarks/bench_limits.py)
MAX_DIGITS = 1000          # digits of any number read, asked for, or grown by a claim
MAX_LINE = 10_000          # characters of one line of a document check reads (our widest page's is 2,519)
MAX_FILE_BYTES = 1 << 24   # a spec or claims file is read only up to this size (16 MiB; 200,000 weights: 1.2 MB)
TEX_TIMEOUT = 300          # seconds one latexmk run may take


@dataclass(frozen=True)
class Limits:
    """The limits of one run (the command's ``--max-ops``/``--max-digits``, or the REPL's)."""
    max_ops: int = MAX_OPS
    max_digits: int = MAX_DIGITS
