"""``python -m symgpt.check DOCUMENT --spec SPEC``: check a tutorial's figures with no claims file.

Every figure of the document (plain text, Markdown, HTML or PDF) is extracted
with its context (:mod:`symgpt.claims.extract`), matched to the quantities of SPEC
whose certified value rounds to it (:mod:`symgpt.claims.match`), and a figure that
rounds from none of them but whose arithmetic or context names one is judged
wrong, with its cause (:mod:`symgpt.claims.diagnose`).  Verdicts:

* **matched**: one quantity, named by the context, rounds to the figure;
* **ambiguous**: several round to it and the context does not tell them apart;
* **unmatched**: none rounds to it and none is named (prose: a year, a count);
* **wrong**: the quantity its context or arithmetic names does not round to it.

``--write-claims FILE`` writes the matched and wrong figures as a claims file
(:mod:`symgpt.claims.claims`) that ``python -m symgpt.verify FILE`` reads.

>>> import tempfile, pathlib
>>> doc = pathlib.Path(tempfile.mkdtemp()) / "t.md"
>>> _ = doc.write_text("p(鱼) = 0.3494, loss L = 1.0515\\n", encoding="utf-8")
>>> main([str(doc), "--spec", "bigram", "--all"])  # doctest: +ELLIPSIS
line  printed  verdict  quantity  detail
1     0.3494   matched  p[鱼]
1     1.0515   matched  loss
<BLANKLINE>
/.../t.md: 2 figures: 2 matched, 0 ambiguous, 0 unmatched, 0 wrong
0
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .claims.extract import extract, shown
from .claims.match import Matcher
from .claims.readers import MARKDOWN_SUFFIXES, STYLED, read
from .claims.sources import figure_line, file_lines, run_lines, within_elements
from .cli import InputError, OutputError, Parser, positive, run, terminal_safe, write_whole
from .core.errors import LimitError
from .core.limits import MAX_DIGITS, MAX_OPS, Limits
from .core.resources import version_line
from .derivation import find_spec, load

VERDICTS = ("matched", "ambiguous", "unmatched", "wrong")
MAX_FIGURES = 6000            # figures of one document (our d = 4 document has 3,036; a source document 821)


def parser(p: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The arguments of ``python -m symgpt.check`` (and ``symgpt check``).

    >>> parser().parse_args(["doc.md", "--spec", "bigram"]).format
    'table'
    """
    p = p or Parser(prog="python -m symgpt.check")
    p.description = ("Check every figure of a tutorial against a spec's exact values, with no claims file: "
                     "each figure is matched to the quantities whose certified value rounds to it, ranked by "
                     "its context; a figure its context or arithmetic ties to a quantity that does not round "
                     "to it is wrong, with the likely cause.")
    p.epilog = ("Exit status: 0 no wrong figure, 1 some figure is wrong, 2 bad input. "
                "DOCUMENT may be text, Markdown, HTML or PDF (PDF needs pdftotext from poppler-utils).")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print the installed version of symgpt and exit")
    p.add_argument("document", metavar="DOCUMENT", help="the tutorial: .txt, .md, .html, .ipynb, .pdf, .tex or .rst")
    p.add_argument("--spec", required=True, metavar="SPEC",
                   help="the model the tutorial computes: a spec name (bigram) or a spec file")
    p.add_argument("--format", type=str.lower, choices=("table", "md", "json"), default="table",
                   help="terminal table (default), Markdown, or JSON (every figure)")
    p.add_argument("--all", action="store_true", help="table and md: list every figure, not only the doubtful")
    p.add_argument("--write-claims", metavar="FILE",
                   help="also write the matched and wrong figures as a claims file for symgpt verify")
    p.add_argument("--max-ops", type=positive("--max-ops"), default=MAX_OPS, metavar="N",
                   help=f"refuse a spec estimated to need more than N scalar operations (default {MAX_OPS})")
    p.add_argument("--max-figures", type=positive("--max-figures"), default=MAX_FIGURES, metavar="N",
                   help=f"refuse a document of more than N figures (default {MAX_FIGURES:,}; about "
                        f"{SECONDS_PER_FIGURE} s each at most)")
    p.add_argument("--max-digits", type=positive("--max-digits"), default=MAX_DIGITS, metavar="N",
                   help=f"refuse a figure of more than N digits (default {MAX_DIGITS})")
    return p


# ---------------------------------------------------------------- output

def as_dict(r) -> dict:
    n = r.number
    return {"line": n.source or n.line, "printed": n.printed or n.text, "verdict": r.verdict, "ref": r.ref,
            "candidates": r.candidates, "where": n.where, "chain": n.chain, "relation": n.relation,
            "correct": r.correct, "exact": r.exact, "cause": r.cause, "distance": r.distance,
            "chain_value": r.chain_value}


def _row(r) -> list:
    what = r.ref or ""
    if r.verdict == "ambiguous":
        what = " | ".join(r.candidates[:3])
    elif r.verdict == "unmatched" and r.candidates:
        what = "near: " + ", ".join(r.candidates[:2])
    detail = ""
    if r.verdict == "wrong":
        detail = f"correct {r.correct}, exact {r.exact}, Δ {r.distance} ulp, {r.cause}"
        if r.chain_value:
            detail += f" (chain gives {r.chain_value})"
    return [str(r.number.source or r.number.line), r.number.printed or r.number.text, r.verdict, what, detail]


def _summary(path, results) -> str:
    counts = {v: sum(r.verdict == v for r in results) for v in VERDICTS}
    return f"{path}: {len(results)} figures: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)


def format_table(path, results, every: bool) -> str:
    rows = [["line", "printed", "verdict", "quantity", "detail"]]
    rows += [_row(r) for r in results if every or r.verdict != "matched"]
    widths = [max(len(terminal_safe(row[i])) for row in rows) for i in range(4)]
    lines = ["  ".join(terminal_safe(c).ljust(w) for c, w in zip(row[:4], widths)) + "  " + terminal_safe(row[4])
             for row in rows]
    return "\n".join(s.rstrip() for s in lines) + "\n\n" + _summary(path, results) + "\n"


def format_md(path, results, every: bool) -> str:
    def esc(s):
        return terminal_safe(s).replace("|", "\\|")
    out = [f"## {esc(str(path))}", "", "| line | printed | verdict | quantity | detail |",
           "| ---: | ---: | :--- | :--- | :--- |"]
    out += ["| " + " | ".join(esc(c) for c in _row(r)) + " |" for r in results if every or r.verdict != "matched"]
    return "\n".join(out) + "\n\n" + _summary(path, results) + "\n"


# ---------------------------------------------------------------- claims

def _toml(s: str) -> str:
    """A TOML basic string (json's escapes are TOML's)."""
    return json.dumps(s, ensure_ascii=False)


def claims_text(results, spec_path: Path, claims_path: Path, source: str) -> str:
    """A claims file of the matched and wrong figures (``where`` from their context).

    >>> from symgpt.claims.extract import extract
    >>> import symgpt
    >>> rs = Matcher(symgpt.load("bigram")).match(extract("loss L = 1.0515"))
    >>> print(claims_text(rs, Path("derivations/bigram.toml"), Path("derivations/x.claims.toml"), "t.md"))
    ... # doctest: +NORMALIZE_WHITESPACE
    # Claims found by python -m symgpt.check in t.md: review them, then keep them as a regression check.
    spec = "bigram.toml"
    <BLANKLINE>
    [[claim]]
    ref = "loss"
    printed = "1.0515"
    where = "line 1 「loss L = 1.0515」"
    """
    rel = os.path.relpath(Path(spec_path).resolve(), Path(claims_path).resolve().parent)
    out = [f"# Claims found by python -m symgpt.check in {source.replace(chr(10), ' ')}: review them, then keep "
           f"them as a regression check.", f"spec = {_toml(rel)}"]
    for r in results:
        if r.verdict not in ("matched", "wrong") or not r.ref:
            continue
        n = r.number
        out += ["", "[[claim]]", f"ref = {_toml(r.ref)}", f"printed = {_toml(n.text)}", f"where = {_toml(n.where)}"]
        if n.chain:
            out.append(f"chain = {_toml(n.chain)}")
            if n.relation:
                out.append(f"relation = {_toml(n.relation)}")
    return "\n".join(out) + "\n"


def claims_target(path) -> Path:
    """``--write-claims`` checked before any work: a ``.claims.toml`` file name in an existing folder.

    >>> claims_target("/nonexistent/x.claims.toml")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.OutputError: --write-claims /nonexistent/x.claims.toml: no such directory /nonexistent
    """
    path = Path(path)
    if not path.name.endswith(".claims.toml"):
        raise InputError(f"--write-claims {path}: expected a file name ending in .claims.toml")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"--write-claims {path}: no such directory {folder}")
    if path.exists() and not path.is_file():
        raise OutputError(f"--write-claims {path}: expected a file, got a directory or special file")
    if not os.access(folder, os.W_OK | os.X_OK) or path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"--write-claims {path}: cannot write in {folder} (permission denied)")
    return path


def write_claims(path, text: str) -> None:
    """Write a claims file whole or not at all (a temporary file beside it, renamed; removed on failure),
    with the permissions the umask gives a new file."""
    write_whole(claims_target(path), lambda tmp: tmp.write_text(text, encoding="utf-8"), "--write-claims")


# ---------------------------------------------------------------- main

def check(document, spec, limits: Limits | None = None, max_figures: int = MAX_FIGURES) -> list:
    """The verdicts on every figure of a document, against a spec.

    >>> import tempfile, pathlib
    >>> doc = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = doc.write_text("A1,0 = 2.175 / 4.789 ≈ 0.455\\n", encoding="utf-8")
    >>> r = check(doc, "tiny-transformer")[-1]
    >>> r.verdict, r.ref, r.correct, r.cause
    ('wrong', 'A[1,0]', '0.454', 'last-digit slip')
    """
    if Path(document).suffix.lower() in MARKDOWN_SUFFIXES and Path(document).is_file():
        _runs(Path(document).read_bytes().decode("utf-8", "replace"), document, max_figures)   # before parsing it
    doc = read(document)
    text = doc.text
    _runs(text, document, max_figures)
    try:
        numbers = extract(text)
    except LimitError as e:
        of = "" if Path(document).suffix.lower() in (".txt", ".md", ".markdown", "") else " of its text"
        raise LimitError(f"DOCUMENT {document}: {str(e).replace(' has ', of + ' has ', 1)}") from None
    estimate(numbers, document, max_figures)
    d = spec if hasattr(spec, "spec") else load(find_spec(spec), limits)
    results = Matcher(d).match(numbers, text)
    raw = Path(document).read_text(encoding="utf-8", errors="replace").translate(STYLED) if doc.kind == "ipynb" \
        else ""                        # (the text's styled letters folded, as the reader folded them)
    at = file_lines(doc, raw, document)
    for n in numbers:                  # reported at the file's own line: an HTML page's source, a notebook's JSON
        n.source = at[n.line - 1] if n.line - 1 < len(at) else None
    if runs := run_lines(doc, document):     # a PDF: each figure at pdftotext's line of its own digits
        lines, left = doc.text.split("\n"), {}
        for n in numbers:
            own = figure_line(runs, lines[n.line - 1], n.line, n, left.setdefault(n.line, []))
            left[n.line].append(n)
            n.source = own or n.source
    if doc.kind in ("html", "rst"):    # an element's figures (a list-table row's cells) on their own source lines
        within_elements(numbers, Path(document).read_text(encoding="utf-8", errors="replace"))
    for n in numbers:                  # as its reader sees it set: 0{,}4665 is 0,4665, \SI{2.21}{\percent} 2.21 %
        n.printed = n.printed and shown(n.printed)
    return results


def _runs(text: str, document, max_figures: int) -> None:
    """Refuse a text with more runs of digits than :data:`RUNS_PER_FIGURE` × the figures allowed (before
    extraction and, for Markdown, before parsing, which cost time too)."""
    runs = len(DIGITS.findall(text))
    if runs > RUNS_PER_FIGURE * max_figures:
        raise LimitError(f"DOCUMENT {document}: {runs:,} runs of digits, more than {RUNS_PER_FIGURE} × the limit "
                         f"of {max_figures:,} figures (--max-figures); matching costs up to {SECONDS_PER_FIGURE} s "
                         f"a figure")


SECONDS_PER_FIGURE = 0.05     # the slowest matching measured, per figure (a 20-column table of random
#                               decimals; benchmarks/bench_check.py: 5 ms on the source documents)
RUNS_PER_FIGURE = 4           # runs of digits a document may have per figure allowed (ids, indices, dates)
DIGITS = re.compile(r"\d+")


def estimate(numbers, document, max_figures: int = MAX_FIGURES) -> None:
    """Refuse, before matching, a document with more figures than ``max_figures``, with the cost estimate.

    >>> from symgpt.claims.extract import extract
    >>> try:
    ...     estimate(extract("0.5 " * 30), "doc.md", 20)
    ... except LimitError as e:
    ...     print(e)
    DOCUMENT doc.md: 30 figures, about 2 s to match at up to 0.05 s each; the limit is 20 figures (--max-figures)
    """
    if len(numbers) > max_figures:
        seconds = len(numbers) * SECONDS_PER_FIGURE
        raise LimitError(f"DOCUMENT {document}: {len(numbers):,} figures, about {max(1, round(seconds)):,} s to match "
                         f"at up to {SECONDS_PER_FIGURE} s each; the limit is {max_figures:,} figures (--max-figures)")


def main(argv=None) -> int:
    """``python -m symgpt.check [ARGS]``; the exit status."""
    return execute(parser().parse_args(argv))


def execute(args: argparse.Namespace) -> int:
    limits = Limits(max_ops=args.max_ops, max_digits=args.max_digits)
    if args.write_claims:
        claims_target(args.write_claims)       # a bad target is named before any work or output
    spec_path = find_spec(args.spec)
    results = check(args.document, spec_path, limits, args.max_figures)
    if args.format == "json":
        sys.stdout.write(json.dumps({"document": str(args.document), "spec": str(spec_path),
                                     "figures": [as_dict(r) for r in results]}, ensure_ascii=False, indent=1) + "\n")
    elif args.format == "md":
        sys.stdout.write(format_md(args.document, results, args.all))
    else:
        sys.stdout.write(format_table(args.document, results, args.all))
    if args.write_claims:
        write_claims(args.write_claims, claims_text(results, spec_path, Path(args.write_claims), str(args.document)))
    return 1 if any(r.verdict == "wrong" for r in results) else 0


if __name__ == "__main__":
    run(main)
