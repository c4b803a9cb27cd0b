"""``python -m symgpt.render``: derivations → documents in Markdown, LaTeX and PDF.

Python builds the document as plain data (:mod:`symgpt.documents.document`); Jinja
templates in ``templates/`` lay it out, with the words of each language in
``templates/lang/<lang>.toml``.  Everything is rendered in memory first and
then written atomically, so bad input leaves nothing half-written, and the
same input always gives the same bytes.

Files, for a spec NAME: ``NAME.<lang>.md``, ``NAME.<lang>.tex``,
``NAME.<lang>.pdf``, the explorable page ``NAME.<lang>.html`` (:mod:`symgpt.documents.html`),
the pictures the Markdown shows, ``NAME-<figure>.svg``,
and the document's own claims ``NAME.<lang>.claims.toml`` (every figure it
prints with its reference, and for a worked line its printed arithmetic as
``chain``), which ``python -m symgpt.verify`` checks.

>>> files = render_all(["derivations/bigram.toml"], formats=("md",), langs=("en",))
>>> sorted(p.name for p in files)
['bigram-loss.svg', 'bigram-precision.svg', 'bigram-probs.svg', 'bigram.en.md']
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from .claims.errata import for_document
from .cli import InputError, OutputError, Parser, Progress, check_out, flush_stdout, run, run_child, staged
from .core.ahead import cores, forks
from .core.limits import MAX_DIGITS, MAX_OPS, TEX_TIMEOUT, Limits
from .core.numeric import UndecidableError, one_thread
from .core.resources import TEMPLATES, version_line  # noqa: F401 (TEMPLATES: the tests read it here)
from .derivation import DERIVATIONS, Derivation, find_spec
from .documents import html, mathhtml
from .documents import precision as doc_precision
from .documents.blocks import is_control
from .documents.document import DEFAULT_DIGITS, build, printed_figures
from .documents.figures import svg
from .documents.formats import LANGS, LaTeX, Markdown, environment, load_lang, md_escape, render_doc, tex_escape  # noqa: F401
from .engine import cost
from .engine.spec import load_spec, number

FORMATS = ("md", "tex", "pdf", "claims", "html")
TEX_PACKAGES = "texlive-xetex texlive-lang-chinese texlive-pictures texlive-latex-extra latexmk"


# ---------------------------------------------------------------- the document's own claims

def _toml_str(s: str) -> str:
    """A TOML basic string.

    Every control character is an escape (DEL, C1 and bidi controls too), so the
    file is valid TOML and safe to show.

    >>> _toml_str('p[<pad>] "x"'), _toml_str("a\\x1b\\x7f\\u202e")
    ('"p[<pad>] \\\\"x\\\\""', '"a\\\\u001b\\\\u007f\\\\u202e"')
    """
    body = json.dumps(s, ensure_ascii=False)
    return "".join((f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}") if is_control(c) else c
                   for c in body)


def where(doc: dict, f: dict, L: dict) -> str:
    """Where a figure is printed, in the document's language: §, section title, table/line.

    >>> L = load_lang("en")
    >>> where({"sections": [{"n": 2, "id": "embed"}]}, {"sec": 0, "place": ("table", "2-1", 3, 2)}, L)
    '§2 Embedding: ids to vectors, table 2-1, row 3, column 2'
    """
    sec = doc["sections"][f["sec"]]
    title = L[sec["id"]]["title"].replace("$", "")
    place = f["place"]
    w = L["words"]
    if place[0] == "table":
        at = w["where_table"] % {"n": place[1], "row": place[2], "col": place[3]}
    elif place[0] == "display":
        at = w["where_display"] % {"k": place[1], "line": place[2]}
    else:
        at = w["where_text"] % {"k": place[1]}
    return f"§{sec['n']} {title}{w['where_sep']}{at}"


def _claim_figure(printed: str) -> str:
    """A printed figure in the claims' notation (``3.1e-7`` written out as decimals).

    >>> _claim_figure("3.1e-7"), _claim_figure("-0.25")
    ('0.00000031', '-0.25')
    """
    m = re.fullmatch(r"(-?)(\d)(?:\.(\d+))?e-(\d+)", printed)
    if not m:
        return printed
    digits = m[2] + (m[3] or "")
    return f"{m[1]}0.{'0' * (int(m[4]) - 1)}{digits}"


def claims_toml(doc: dict, lang: str, spec: str) -> str:
    """The document's own claims file: one claim per printed figure.

    ``spec`` is written as given (a path relative to where the file goes, or absolute).
    """
    L = load_lang(lang)
    out = [f"# The figures of {doc['name']}.{lang} (symgpt's own document), for python -m symgpt.verify.",
           "# A worked line's result carries its printed arithmetic as chain; relation \"=\" says it checks by hand.",
           "", f"spec = {_toml_str(spec)}", ""]
    for f in printed_figures(doc["sections"]):
        out += ["[[claim]]", f"ref = {_toml_str(f['ref'])}", f"printed = {_toml_str(_claim_figure(f['printed']))}",
                f"where = {_toml_str(where(doc, f, L))}"]
        if "chain" in f:
            out += [f"chain = {_toml_str(f['chain'])}", f"relation = {_toml_str(f['relation'])}"]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- PDF

def tex_tools() -> str:
    """Path of latexmk, after checking xelatex is there too; InputError naming what to install."""
    latexmk, xelatex = shutil.which("latexmk"), shutil.which("xelatex")
    if not latexmk or not xelatex:
        missing = " and ".join(n for n, p in (("latexmk", latexmk), ("xelatex", xelatex)) if not p)
        raise InputError(f"--format pdf needs {missing} (TeX Live with ctex and pgfplots); "
                         f"on Debian or Ubuntu: apt-get install {TEX_PACKAGES}")
    return latexmk


def compile_pdf(tex: str, name: str = "doc", timeout: float = TEX_TIMEOUT) -> bytes:
    """xelatex (through latexmk) in a scratch directory; the PDF's bytes.

    latexmk runs in a process group of its own, killed when it runs longer
    than ``timeout`` seconds or the run is stopped; the scratch directory is
    removed whatever happens.  A failure is one :class:`OutputError` naming the
    document and the first error line of its log.  SOURCE_DATE_EPOCH fixes the
    dates xdvipdfmx would stamp, so a PDF is the same from run to run.  The
    scratch file is always ``doc.tex`` (a spec's file name never reaches TeX);
    ``name`` is the document's name in messages.
    """
    latexmk = tex_tools()
    with tempfile.TemporaryDirectory(prefix="symgpt-tex-") as tmp:
        (Path(tmp) / "doc.tex").write_text(tex, encoding="utf-8")
        env = dict(os.environ, SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1")
        r = run_child([latexmk, "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "-quiet", "doc.tex"],
                      cwd=tmp, env=env, timeout=timeout, what=f"{name}.tex: latexmk", flag="--tex-timeout")
        pdf = Path(tmp) / "doc.pdf"
        if r.returncode != 0 or not pdf.exists():
            raise OutputError(f"{name}.tex: xelatex failed: {tex_error(Path(tmp) / 'doc.log', r)}")
        return pdf.read_bytes()


def tex_error(log: Path, r) -> str:
    """The first error line of a TeX log (``! …``), else the last line latexmk said.

    >>> import tempfile, subprocess
    >>> p = Path(tempfile.mkdtemp()) / "x.log"
    >>> _ = p.write_text("This is XeTeX\\n! Undefined control sequence.\\nl.3 \\\\foo\\n")
    >>> tex_error(p, subprocess.CompletedProcess([], 1, "", ""))
    '! Undefined control sequence.'
    """
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    for ln in text.splitlines():
        if ln.startswith("! "):
            return ln.strip()
    said = [ln.strip() for ln in (r.stdout or "").splitlines() if ln.strip()]
    return said[-1] if said else f"latexmk exited with status {r.returncode} and no error line in the log"


# ---------------------------------------------------------------- the command

def render_spec(path, formats=("md", "tex"), langs=("zh",), digits=None, uniform=None, out_dir=None,
                limits: Limits | None = None, tex_timeout: float = TEX_TIMEOUT,
                progress: Progress | None = None, ahead: bool = False) -> dict:
    """{relative output path: str or bytes} for one spec (``uniform`` overrides its u).

    ``ahead``: the precision section is computed in a forked process beside the rest of the document
    (:func:`symgpt.documents.precision.start`), when there is a processor to spare.

    A claims file names its spec relative to ``out_dir`` when given, else by absolute path.
    ``progress`` counts :func:`steps`: the derivation, then each document as it is made.
    """
    step = progress.step if progress is not None else (lambda what: None)
    step(f"{output_name(path)}: derivation")
    spec = load_spec(path, limits)
    if uniform is not None:
        spec = dataclasses.replace(spec, sampling=dataclasses.replace(spec.sampling, uniform=uniform))
    cost.check(spec, limits)  # a document needs every part: refused up front, before anything is made
    d = Derivation(spec, limits=limits)
    if ahead:
        doc_precision.start(d, DEFAULT_DIGITS[spec.kind] if digits is None else digits)
    doc = build(d, digits, for_document(d))
    out: dict = {}
    name = doc["name"]
    if "md" in formats:
        for fig, data in sorted(doc["figures"].items()):
            out[Path(data["file"])] = svg(data)
    spec_ref = str(Path(path).resolve())
    if out_dir is not None:
        spec_ref = os.path.relpath(spec_ref, Path(out_dir).resolve()).replace(os.sep, "/")
    page = None  # the HTML pages' cards and controls, shared by the languages
    for lang in langs:
        if "claims" in formats:
            step(f"{name}.{lang}.claims.toml")
            out[Path(f"{name}.{lang}.claims.toml")] = claims_toml(doc, lang, spec_ref)
        if "md" in formats:
            step(f"{name}.{lang}.md")
            out[Path(f"{name}.{lang}.md")] = render_doc(doc, "md", lang)
        if "html" in formats:
            step(f"{name}.{lang}.html")
            if page is None:  # the page's own document: lines and tables whole (it scrolls, it does not break)
                page_doc = build(d, digits, doc["errata"], fit=False)
                page = html.page_data(page_doc, d)
            out[Path(f"{name}.{lang}.html")] = html.render_page(page_doc, d, lang, page, langs)
        if "tex" in formats or "pdf" in formats:
            tex = render_doc(doc, "tex", lang)
            if "tex" in formats:
                step(f"{name}.{lang}.tex")
                out[Path(f"{name}.{lang}.tex")] = tex
            if "pdf" in formats:
                step(f"{name}.{lang}.pdf")
                out[Path(f"{name}.{lang}.pdf")] = compile_pdf(tex, f"{name}.{lang}", tex_timeout)
    return out


def steps(specs, formats, langs) -> int:
    """How many progress steps a run has: per spec its derivation and one per document.

    >>> steps(["a.toml", "b.toml"], ("md", "pdf"), ("zh", "en"))
    10
    """
    return len(specs) * (1 + len(formats) * len(langs))


def render_all(specs, formats=("md", "tex"), langs=("zh",), digits=None, uniform=None, out_dir=None,
               limits: Limits | None = None, tex_timeout: float = TEX_TIMEOUT,
               progress: Progress | None = None, jobs: int = 1) -> dict:
    """{relative output path: text or bytes} for the given spec paths, in memory.

    Two specs whose files share a name (their outputs would overwrite each
    other) are refused before any work.  ``jobs`` > 1 renders up to that many
    specs at once, each in a forked process (:func:`_in_parallel`); the files
    are the same bytes either way.
    """
    check_names(specs)
    if "pdf" in formats:
        tex_tools()
    if "html" in formats:
        mathhtml.node()
    args = (formats, langs, digits, uniform, out_dir, limits, tex_timeout)
    ahead = jobs > 1
    out: dict = {}
    if jobs > 1 and len(specs) > 1 and forks():
        for path, files in _in_parallel(specs, args, min(jobs, len(specs)), ahead):
            if progress is not None:   # a worker's steps, counted when its spec is done
                name = output_name(path)
                docs = [f"{name}.{g}.{f}" for g in langs for f in ("claims", "md", "html", "tex", "pdf")
                        if f in formats]
                for what in [f"{name}: derivation", *docs]:   # named and ordered as render_spec names them
                    progress.step(what)
            out.update(files)
        return out
    for path in specs:
        out.update(_one(path, args, progress, ahead))
    return out


def _one(path, args, progress=None, ahead=False) -> dict:
    try:
        return render_spec(path, *args, progress, ahead)
    except UndecidableError as e:       # a tie SymPy could not settle: the error names the spec too
        raise e if str(path) in str(e) else UndecidableError(f"{path}: {e}") from None


def _worker() -> None:
    """A worker leaves SIGINT to the parent (which stops the run and ends the workers) and dies on SIGTERM."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _rendered(path, args, ahead):
    """One worker's spec: ("ok", files), ("error", the pickled exception) or, for an exception that does not
    survive pickling, ("lost", (is it an InputError, its type's name, its message, the worker's traceback))."""
    import pickle
    import traceback
    try:
        return "ok", _one(path, args, None, ahead)
    except Exception as e:  # noqa: BLE001 (sent back to the parent, which raises it there)
        try:
            data = pickle.dumps(e)
            pickle.loads(data)
            return "error", data
        except Exception:
            return "lost", (isinstance(e, InputError), type(e).__name__, str(e), traceback.format_exc())


def _raised(kind: str, got):
    """The exception a worker's report stands for, to raise here."""
    import pickle
    if kind == "error":
        return pickle.loads(got)
    bad_input, name, message, trace = got
    if bad_input:                       # an InputError's message is the user's error line, as in one process
        return InputError(message)
    return RuntimeError(f"{name}: {message} (in a worker rendering a spec; its traceback:\n{trace})")


def _in_parallel(specs, args, jobs: int, ahead: bool):
    """(spec, files) of every spec in order, rendered by ``jobs`` forked workers; the first spec (in order)
    that failed raises its error in this process, so a run reports what a run one spec after another would.
    On an error or a signal the workers are ended at once, the specs not yet rendered are dropped."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    with one_thread():
        pool = ctx.Pool(jobs, initializer=_worker)
    try:
        pending = [pool.apply_async(_rendered, (path, args, ahead)) for path in specs]
        for path, job in zip(specs, pending):
            kind, got = job.get()
            if kind != "ok":
                raise _raised(kind, got)
            yield path, got
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def output_name(path) -> str:
    """The name a spec's output files start with: its file name without ``.toml``.

    >>> output_name("derivations/bigram.toml")
    'bigram'
    """
    return Path(path).name.removesuffix(".toml")


def check_names(specs) -> None:
    """Refuse two different spec files whose outputs would share names.

    >>> check_names(["a/x.toml", "b/x.toml"])
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: a/x.toml and b/x.toml: both would write x.*; rename one of the spec files
    """
    seen: dict = {}
    for p in specs:
        first = seen.setdefault(output_name(p), p)
        if Path(first).resolve() != Path(p).resolve():
            raise InputError(f"{first} and {p}: both would write {output_name(p)}.*; "
                             f"rename one of the spec files")


def default_specs(folder: Path | None = None) -> list:
    """Every spec in ``derivations/`` (claims files excluded); none is an error, not an empty run.

    >>> [p.name for p in default_specs()]
    ['bigram.toml', 'tiny-transformer.toml']
    >>> default_specs(Path("/nonexistent"))
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: no specs in /nonexistent (a broken install? reinstall symgpt, or name a spec file)
    """
    folder = DERIVATIONS if folder is None else folder
    specs = sorted(p for p in folder.glob("*.toml") if not p.name.endswith(".claims.toml"))
    if not specs:
        raise InputError(f"no specs in {folder} (a broken install? reinstall symgpt, or name a spec file)")
    return specs


def parser(ap: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The arguments of ``python -m symgpt.render``, on a parser of its own or on ``ap``
    (the ``render`` sub-command of ``symgpt``, :mod:`symgpt.command`).

    >>> parser().parse_args(["bigram", "--lang", "en"]).specs
    ['bigram']
    """
    ap = ap or Parser(prog="python -m symgpt.render")
    ap.description = ("Render the derivation documents of specs: every number certified, "
                      "Markdown (with SVG pictures), LaTeX and PDF, in Chinese or English.")
    ap.epilog = ("Files written for a spec NAME: NAME.<lang>.md, NAME.<lang>.tex, NAME.<lang>.pdf, "
                 "NAME.<lang>.html, NAME.<lang>.claims.toml and the pictures (with Markdown) NAME-precision.svg, "
                 "NAME-probs.svg, NAME-loss.svg "
                 "(bigram), NAME-pipeline.svg, NAME-backprop.svg and NAME-attention.svg (transformer; with "
                 "several layers or heads one per layer L and head H, NAME-attention-L-H.svg, from 1). "
                 "The same input gives the same bytes; files are written into a staging folder and moved "
                 "into --out only after everything rendered and was written. Bad input or an output fault "
                 "(--out unusable, a full disk, a failing or slow latexmk, a closed stdout): one 'error: ...' "
                 "line on stderr, exit status 2, nothing written. SIGINT/SIGTERM: exit 130/143, nothing "
                 "written, latexmk stopped.")
    ap.add_argument("--version", action="version", version=version_line(),
                    help="print the installed version of symgpt and exit")
    ap.add_argument("specs", nargs="*", metavar="SPEC",
                    help="spec files, or names of specs in derivations/ (default: every spec there)")
    ap.add_argument("--format", default="md,tex", metavar="md|tex|pdf|claims|html|all",
                    help="output formats, comma-separated; 'all' is md,tex,pdf,claims,html (default: md,tex). "
                         "html writes NAME.<lang>.html, one self-contained page whose every figure opens its "
                         "proof (needs node: KaTeX typesets the math while rendering); "
                         "pdf runs latexmk -xelatex (TeX Live with ctex, Fandol fonts and pgfplots); "
                         "claims writes NAME.<lang>.claims.toml, every figure the document prints, "
                         "for python -m symgpt.verify")
    ap.add_argument("--lang", default="zh", metavar="zh|en|all",
                    help="language of the prose, comma-separated or 'all' (default: zh)")
    ap.add_argument("--digits", type=int, default=None, metavar="N",
                    help="decimals of the main figures, 1 to 30 (default: the source document's, "
                         "3 for the transformer and 4 for the bigram; finer figures get more)")
    ap.add_argument("--uniform", default=None, metavar="U",
                    help="the uniform number u in [0, 1) of the seeded draw, read exactly from its "
                         "text (default: sampling.uniform of each spec)")
    ap.add_argument("--out", default="out", metavar="DIR",
                    help="output directory (default: out/); files are written into a hidden staging folder "
                         "(inside it, or beside it when it is new) and moved in only when every one was written")
    ap.add_argument("--max-ops", default=str(MAX_OPS), metavar="N",
                    help=f"refuse a spec whose estimated scalar operations exceed N (default: {MAX_OPS})")
    ap.add_argument("--max-digits", default=str(MAX_DIGITS), metavar="N",
                    help=f"refuse numbers of more than N digits (default: {MAX_DIGITS})")
    ap.add_argument("--tex-timeout", default=str(TEX_TIMEOUT), metavar="SECONDS",
                    help=f"stop a latexmk run after SECONDS (default: {TEX_TIMEOUT})")
    ap.add_argument("--jobs", default=None, metavar="N",
                    help="use up to N processes: specs rendered at once, and a document's precision section beside "
                         "the rest of it (default: the processors this process may use; 1: one after another, "
                         "in this process); the files are the same bytes")
    ap.add_argument("--quiet", action="store_true",
                    help="no progress lines on stderr (they are shown only when stderr is a terminal: "
                         "'[2/8] NAME.en.pdf …', one per spec's derivation and per document)")
    return ap


def _choices(value, allowed, flag):
    value = value.lower()   # --format MD is md
    items = list(allowed) if value == "all" else [x.strip() for x in value.split(",") if x.strip()]
    bad = [x for x in items if x not in allowed]
    if bad or not items:
        raise InputError(f"{flag}: expected one of {', '.join(allowed)} or all, got {value!r}")
    return tuple(x for x in allowed if x in items)


def whole(text: str, flag: str, low: int, high: int) -> int:
    """A whole-number flag in [low, high]; else one InputError naming the flag.

    >>> whole("2_000", "--max-ops", 1, 10**15)
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: --max-ops: expected a whole number from 1 to 10^15, got '2_000'
    """
    span = f"from {low} to {_power(high)}"
    if not re.fullmatch(r"[0-9]{1,20}", text.strip()):
        raise InputError(f"{flag}: expected a whole number {span}, got {text!r}")
    n = int(text)
    if not low <= n <= high:
        raise InputError(f"{flag}: expected a whole number {span}, got {n}")
    return n


def _power(n: int) -> str:
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k and k > 3 else str(n)


def seconds(text: str, flag: str, high: float = 86400) -> float:
    """A positive number of seconds up to ``high`` (a day); else one InputError naming the flag.

    >>> seconds("2", "--tex-timeout"), seconds("0.5", "--tex-timeout")
    (2.0, 0.5)
    """
    ok = re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6})?", text.strip())
    t = float(text) if ok else math.nan
    if not 0 < t <= high:
        raise InputError(f"{flag}: expected seconds, a number above 0 and at most {high:g}, got {text!r}")
    return t


def main(argv=None) -> int:
    """``python -m symgpt.render [ARGS]``: render, print the files written; the exit status."""
    return execute(parser().parse_args(argv))


def execute(a: argparse.Namespace) -> int:
    """Render as the parsed arguments ``a`` of :func:`parser` say; the exit status."""
    formats = _choices(a.format, FORMATS, "--format")
    langs = _choices(a.lang, LANGS, "--lang")
    if a.digits is not None and not 1 <= a.digits <= 30:
        raise InputError(f"--digits: expected a number of decimals from 1 to 30, got {a.digits} "
                         f"(at 0 every probability and the loss would print as a whole number)")
    limits = Limits(max_ops=whole(a.max_ops, "--max-ops", 1, 10 ** 15),
                    max_digits=whole(a.max_digits, "--max-digits", 1, 10 ** 6))
    tex_timeout = seconds(a.tex_timeout, "--tex-timeout")
    uniform = None
    if a.uniform is not None:
        uniform = number(a.uniform, "command line", "--uniform")
        if not 0 <= uniform < 1:
            raise InputError(f"--uniform: expected a number in [0, 1), got {a.uniform}")
    specs = [find_spec(s) for s in a.specs] or default_specs()
    once: dict = {}
    for p in specs:  # a spec named twice renders once
        once.setdefault(Path(p).resolve(), p)
    specs = list(once.values())
    check_names(specs)
    out = check_out(a.out)
    progress = Progress(steps(specs, formats, langs), sys.stderr, quiet=a.quiet)
    jobs = whole(a.jobs, "--jobs", 1, 256) if a.jobs is not None else cores()
    files = render_all(specs, formats, langs, a.digits, uniform, out, limits, tex_timeout, progress, jobs)
    with staged(out) as stage:
        for rel in sorted(files):
            print(stage.write(rel, files[rel]))
        flush_stdout()  # a closed or full stdout stops the run before anything moves into place
    return 0


if __name__ == "__main__":
    run(main)
