"""English tokens in the PDF: spaced apart, and quoted with Latin quotes (no CJK spacing around them).

A spec whose tokens are English words (the, cat, sat) is rendered to PDF by the command; pdftotext reads
the words back with their boxes.  ‘the’ must read as one word in its own right (``‘the cat’``, not
``‘thecat’``), and a quote must be as narrow as a Latin quote: ``‘the`` no wider than ``the`` plus half an
em (xeCJK's full-width quote and its glue would add about an em on each side).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import oracle

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("xelatex") and shutil.which("pdftotext")),
                                 reason="needs xelatex and pdftotext (see .ci/run)")]
EM = 12.0  # the document's body size, zihao=-4, in pt


def test_english_tokens_are_spaced_and_quoted_in_latin(tmp_path):
    text = oracle.random_spec_toml(seed=8, V=3, d=2, heads=1, d_ff=2, layers=1, T=2)
    for a, b in (('"t0"', '"the"'), ('"t1"', '"cat"'), ('"t2"', '"sat"')):
        text = text.replace(a, b)
    assert 'input = ["the", "cat"]' in text
    (tmp_path / "words.toml").write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symgpt", "render", str(tmp_path / "words.toml"), "--format", "pdf",
                        "--lang", "en", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    plain = subprocess.run(["pdftotext", str(tmp_path / "words.en.pdf"), "-"], capture_output=True, text=True).stdout
    assert "‘the cat’" in plain and "thecat" not in plain
    subprocess.run(["pdftotext", "-bbox", str(tmp_path / "words.en.pdf"), str(tmp_path / "box.html")], check=True)
    boxes = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                       (tmp_path / "box.html").read_text(encoding="utf-8"))
    width = lambda w: [float(b[2]) - float(b[0]) for b in boxes if b[4] == w and float(b[3]) - float(b[1]) > 11]
    the, quoted = width("the"), width("‘the")
    assert the and quoted, "no body-size ‘the in the PDF"
    assert max(quoted) - min(the) < EM / 2, (quoted, the)
