"""Every LaTeX output compiles with xelatex: no error, no missing character.

CI installs TeX from Debian's packages (.ci/run); without xelatex these
tests are skipped locally, never in CI (CI=true makes a missing TeX fail).
The compiles are marked slow (``pytest -m "not slow"`` leaves them out).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from symgpt.render import LANGS, tex_escape

from test_render_cases import CASES, WEIRD_TOKENS, rendered

HAVE_TEX = bool(shutil.which("xelatex") and shutil.which("latexmk"))
needs_tex = pytest.mark.skipif(not HAVE_TEX and not os.environ.get("CI"),
                               reason="xelatex/latexmk not installed (CI installs them)")


def tex_files():
    """(case, file name) of every LaTeX output, named without rendering (collection stays fast)."""
    for case in CASES:
        for lang in LANGS:
            yield pytest.param(case, f"{case}.{lang}.tex", id=f"{case}.{lang}.tex")


def compile_tex(tmp_path, name, text):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    r = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", name],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    log = (tmp_path / name).with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    return r.returncode, log, (tmp_path / name).with_suffix(".pdf")


@pytest.mark.slow
@needs_tex
@pytest.mark.parametrize("case,name", list(tex_files()))
def test_latex_compiles_without_errors_or_missing_characters(tmp_path, case, name):
    [text] = [t for p, t in rendered(case).items() if p.name == name]
    code, log, pdf = compile_tex(tmp_path, name, text)
    errors = [ln for ln in log.splitlines() if ln.startswith("!")]
    assert code == 0 and not errors, errors[:5] or log[-1500:]
    missing = [ln for ln in log.splitlines() if "Missing character" in ln]
    assert not missing, missing[:5]
    assert "Undefined control sequence" not in log
    assert pdf.exists() and pdf.stat().st_size > 10_000
    if case == "weird" and shutil.which("pdftotext"):
        words = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                               text=True, check=True).stdout
        for tok in WEIRD_TOKENS:
            assert re.search(r"(^|\s)" + re.escape(tok) + r"(\s|$)", words), f"{tok!r} not shown literally"


def test_latex_uses_ctexart_with_fandol_and_no_unescaped_tokens():
    for case in CASES:
        for p, text in rendered(case).items():
            if p.suffix != ".tex":
                continue
            assert text.startswith("\\documentclass[UTF8,fontset=fandol")
            assert "{ctexart}" in text.split("\n")[0]
            assert "\\VAR{" not in text and "\\BLOCK{" not in text
    weird = "\n".join(t for p, t in rendered("weird").items() if p.suffix == ".tex")
    assert "a_b" not in weird.replace("\\_", "")  # every underscore of a token is escaped
    assert " 50%" not in weird and "$x$" not in weird


@pytest.mark.parametrize("raw,escaped", [
    ("<pad>", r"\textless{}pad\textgreater{}"), ("a_b", r"a\_b"), ("50%", r"50\%"), ("$x$", r"\$x\$"),
    ("\\n", r"\textbackslash{}n"), ("\x1b[1m", r"\textbackslash{}x1b[1m"), ("\u202e", r"\textbackslash{}u202e"),
    ("&", r"\&"), ("#", r"\#"), ("{}", r"\{\}"), ("^~", r"\textasciicircum{}\textasciitilde{}"),
])
def test_tex_escape(raw, escaped):
    assert tex_escape(raw) == escaped


@pytest.mark.slow
@needs_tex
def test_pdf_through_the_command_is_the_same_twice(tmp_path):
    from symgpt.render import main
    for out in ("a", "b"):
        assert main(["bigram", "--format", "pdf", "--lang", "en", "--out", str(tmp_path / out)]) == 0
    a, b = (tmp_path / x / "bigram.en.pdf" for x in ("a", "b"))
    assert a.read_bytes()[:5] == b"%PDF-"
    assert a.read_bytes() == b.read_bytes()
