"""Nothing leaves the page: the seeds and a covering set of specs, compiled by xelatex, have no overfull box.

The judge is TeX itself: each document is rendered to LaTeX, compiled once
with xelatex in a temporary directory (box widths do not depend on the
second pass), and its log is read.  Any ``Overfull \\hbox`` wider than 1 pt,
and any ``Overfull \\vbox``, fails the test with its log message and the
LaTeX source lines it names.

The matrix covers (not multiplies out) the sizes that stretch a page:
d up to 8, 2 layers, 2 heads, V up to 12, d_ff 12 (a matrix of 12 columns),
and long tokens (20 characters, underscores, ``%``, ``<pad>``), each in both
languages somewhere, and a bigram of V = 12, d = 8 with long tokens: 11 compiles in all.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from symgpt.render import render_spec

import specs

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {"tiny-transformer": ROOT / "derivations" / "tiny-transformer.toml",
         "bigram": ROOT / "derivations" / "bigram.toml"}
MATRIX = {  # name: (spec sizes, languages)
    "wide": (dict(V=12, d=8, heads=2, d_ff=8, layers=2, T=3, long_tokens=True, seed=1), ("zh", "en")),
    "deep": (dict(V=6, d=4, heads=2, d_ff=8, layers=2, T=4, long_tokens=True, seed=2), ("zh", "en")),
    "broad": (dict(V=12, d=6, heads=1, d_ff=12, layers=1, T=2, long_tokens=False, seed=3), ("zh", "en")),
    "bigram-wide": (dict(kind="bigram", V=12, d=8, long_tokens=True, seed=4), ("en",)),
}
CASES = [(name, lang) for name in SEEDS for lang in ("zh", "en")] + \
        [(name, lang) for name, (_, langs) in MATRIX.items() for lang in langs]
TOLERANCE_PT = 1.0

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex is not installed")]


def overfull(log: str, tex_lines: list) -> list:
    r"""The overfull boxes of a TeX log that matter, each with the LaTeX source lines it names.

    >>> log = "Overfull \\hbox (0.5pt too wide) in paragraph at lines 1--1\n" \
    ...       "Overfull \\hbox (12.0pt too wide) detected at line 2\n" \
    ...       "Overfull \\vbox (3.0pt too high) has occurred while \\output is active\n"
    >>> [(b["pt"], b["kind"], b["lines"]) for b in overfull(log, ["a", "b", "c"])]
    [(12.0, 'hbox', (2, 2)), (3.0, 'vbox', None)]
    """
    out = []
    for m in re.finditer(r"Overfull \\(hbox|vbox) \(([\d.]+)pt too (?:wide|high)\)([^\n]*)", log):
        kind, pt, rest = m[1], float(m[2]), m[3]
        if kind == "hbox" and pt <= TOLERANCE_PT:
            continue
        at = re.search(r"lines? (\d+)(?:--(\d+))?", rest)
        lines = (int(at[1]), int(at[2] or at[1])) if at else None
        src = "\n".join(tex_lines[lines[0] - 1:lines[1]])[:400] if lines else ""
        out.append({"kind": kind, "pt": pt, "message": m[0], "lines": lines, "source": src})
    return out


def spec_path(name, tmp_path) -> Path:
    if name in SEEDS:
        return SEEDS[name]
    p = tmp_path / f"{name}.toml"
    sizes = dict(MATRIX[name][0])
    make = specs.bigram_toml if sizes.pop("kind", "transformer") == "bigram" else specs.spec_toml
    p.write_text(make(**sizes, title=f"Layout test {name}"), encoding="utf-8")
    return p


@pytest.mark.parametrize("name,lang", CASES)
def test_no_overfull_box(tmp_path, name, lang):
    out = render_spec(spec_path(name, tmp_path), formats=("tex",), langs=(lang,))
    (rel, tex), = out.items()
    src = tmp_path / rel.name
    src.write_text(tex, encoding="utf-8")
    r = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", src.name],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600)
    log = src.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    errors = [ln for ln in log.splitlines() if ln.startswith("!")]
    assert r.returncode == 0 and not errors, errors[:5] or log[-1500:]
    boxes = overfull(log, tex.splitlines())
    assert not boxes, f"{len(boxes)} overfull boxes in {rel}:\n" + "\n\n".join(
        f"{b['message']}\n{b['source']}" for b in boxes[:8])
