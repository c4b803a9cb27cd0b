"""The PDF as a reader sees its pages: read back with pdfplumber from ``symgpt render --format pdf``.

- the precision chart of a 2-layer model (79 quantities along its x axis) sets its labels upright and apart:
  no two labels' boxes share a column of the page;
- the seed's Chinese errata break between the rows of a long fault (16 quantities, 12 places), so that no page of
  the errata but the last is left mostly blank.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import defaultdict

import pytest

import oracle
from conftest import ROOT

pdfplumber = pytest.importorskip("pdfplumber")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex is not installed")]


def render_pdf(spec, lang, out):
    """``symgpt render SPEC --format pdf --lang LANG`` into ``out``: the PDF's path."""
    done = subprocess.run([sys.executable, "-m", "symgpt", "render", str(spec), "--format", "pdf", "--lang", lang,
                           "--out", str(out), "--quiet"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr
    return out / f"{spec.stem}.{lang}.pdf"


SCRIPT_SHIFT = 3.5      # pt: how far a turned label's script baseline sits from its own (labels are ~14 pt apart)


def tick_labels(page) -> list:
    """The turned text of a page that hangs from one line (an x axis's labels, anchored at their ends), each
    label as (its text read upwards, x0, x1); the chars of a label share their baseline's x."""
    turned = sorted((c for c in page.chars if not c["upright"]), key=lambda c: c["matrix"][4])
    by_line: list = []                     # a label's sub- and superscripts sit on baselines a few pt from its own
    for c in turned:
        if by_line and c["matrix"][4] - by_line[-1][-1]["matrix"][4] <= SCRIPT_SHIFT:
            by_line[-1].append(c)
        else:
            by_line.append([c])
    tops = defaultdict(int)
    for chars in by_line:
        tops[round(min(c["top"] for c in chars))] += 1
    axis = max(tops, key=tops.get)                                   # where most labels end: under the axis
    return sorted((("".join(c["text"] for c in sorted(chars, key=lambda c: -c["top"])),
                    min(c["x0"] for c in chars), max(c["x1"] for c in chars))
                   for chars in by_line if abs(min(c["top"] for c in chars) - axis) <= 3),
                  key=lambda label: label[1])


def test_the_precision_charts_labels_of_a_two_layer_model_do_not_overlap(tmp_path):
    spec = tmp_path / "deep.toml"
    spec.write_text(oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=4, layers=2, T=3), encoding="utf-8")
    with pdfplumber.open(render_pdf(spec, "en", tmp_path)) as pdf:
        charts = [(p.page_number, labels) for p in pdf.pages if any(not c["upright"] for c in p.chars)
                  for labels in [tick_labels(p)] if any(re.sub(r"[()]", "", text) == "H0" for text, _, _ in labels)]
        assert len(charts) == 1, "one page with the precision chart, its axis starting at H0"
        for number, labels in charts:
            assert len(labels) >= 10 and all(text for text, _, _ in labels), (number, labels)
            turned = [c for c in pdf.pages[number - 1].chars if not c["upright"]]
            assert {c["matrix"][:4] for c in turned} == {(0.0, 1.0, -1.0, 0.0)}, "labels turned upright"
            for (a, _, right), (b, left, _) in zip(labels, labels[1:]):
                assert right <= left, f"page {number}: {a!r} and {b!r} overlap ({right:.1f} > {left:.1f} pt)"


def test_the_seeds_chinese_errata_fill_their_pages(tmp_path):
    """From the page of the heading 勘误 to the page of the legend after the table, every page but the last
    is written down to at least 3/4 of its height (the body's foot, not counting the page number)."""
    with pdfplumber.open(render_pdf(ROOT / "derivations" / "tiny-transformer.toml", "zh", tmp_path)) as pdf:
        texts = [p.extract_text() or "" for p in pdf.pages]
        first = next(i for i, t in enumerate(texts) if "勘误（ERRATA）" in t and "原文位置" in t)
        last = next(i for i in range(first, len(texts)) if "「应为」是把精确值" in texts[i])
        assert last > first, "the seed's errata take more than a page"
        for page in pdf.pages[first:last]:
            body = [c["bottom"] for c in page.chars if c["bottom"] < 0.9 * page.height]   # not the page number
            assert max(body) >= 0.75 * page.height, \
                f"page {page.page_number}: written only down to {max(body) / page.height:.0%} of its height"
