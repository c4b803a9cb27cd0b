"""``python -m symgpt.verify``: check every figure a document prints.

Each claim (see :mod:`symgpt.claims.claims`) is evaluated exactly and judged
*correct* when its exact value provably rounds to the printed figure, else
*wrong*, with the exact value, the correct rounding, the distance in units of
the last printed place and, for a wrong figure, its cause: *carried
rounding* when the document's own rounded intermediates explain it, else
*plain error*.

Exit status: 0 when every claim holds, 1 when any is wrong (or could not be
certified), 2 for bad input.

>>> vs = check_file(DERIVATIONS / "bigram.claims.toml")
>>> [(v.printed, v.verdict) for v in vs if v.ref == "loss"][:1]
[('1.0515', 'correct')]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from fractions import Fraction
from pathlib import Path

from flint import fmpq

from .claims.claims import ClaimsFile, Verdict, judge_all, read_claims, show
from .claims.refs import FUNCTIONS
from .cli import InputError, Parser, positive, run
from .core.limits import MAX_DIGITS, MAX_OPS, Limits
from .core.resources import version_line
from .core.safe import is_control, visible
from .derivation import DERIVATIONS, Derivation, find_spec
from .engine.names import MOMENTS
from .engine.spec import load_spec

_LOADED: dict = {}


def derivation_for(spec_path, limits: Limits | None = None) -> Derivation:
    """The derivation of a spec under ``limits``, loaded once per process.

    >>> derivation_for(DERIVATIONS / "bigram.toml", Limits(max_digits=50)).limits.max_digits
    50
    """
    limits = limits or Limits()
    path = Path(spec_path).resolve()
    if (path, limits) not in _LOADED:
        if not path.exists():
            raise InputError(f"{spec_path}: no such spec")
        _LOADED[path, limits] = Derivation(load_spec(path, limits), limits=limits)
    return _LOADED[path, limits]


def claims_path(arg) -> Path:
    """A claims file from a claims path, a spec path or a spec name.

    >>> claims_path("bigram").name
    'bigram.claims.toml'
    """
    if isinstance(arg, str) and not arg.strip():
        raise InputError(f"expected a spec name, a spec file or a claims file, got {arg!r}")
    p = Path(arg)
    if p.is_dir():
        raise InputError(f"{arg}: expected a spec or claims file, got a directory")
    if p.name.endswith(".claims.toml"):
        if not p.exists():
            raise InputError(f"{arg}: no such claims file")
        return p
    spec = find_spec(arg)
    found = spec.with_name(spec.stem + ".claims.toml")
    if not found.exists():
        raise InputError(f"{arg}: no claims file beside the spec (expected {found})")
    return found


def check_file(path, limits: Limits | None = None) -> list:
    """Verdicts on every claim of one claims file.

    >>> vs = check_file(DERIVATIONS / "tiny-transformer.claims.toml")
    >>> [v.verdict for v in vs if v.ref == "A[1,0]"][0]
    'correct'
    """
    cf = read_claims(path)
    return judge_all(cf, derivation_for(cf.spec, limits))


_ERRATA_KEYS = ("ref", "printed", "where", "exact", "correct", "verdict", "cause",
                "distance", "chain", "chain_value", "index")


def errata(d) -> list:
    """The wrong (or uncertifiable) figures of the claims file beside d's spec.

    Each a dict with keys ref, printed, where, exact, correct, verdict, cause,
    distance (printed − exact in units of the last printed place), chain,
    chain_value and index (the claim's number); [] when the spec has no
    claims file.

    >>> import symgpt
    >>> [(e["printed"], e["correct"], e["cause"]) for e in errata(symgpt.load("tiny-transformer"))][:2]
    [('18', '46', 'plain error'), ('38', '46', 'plain error')]
    """
    spec = Path(d.spec.path)
    path = spec.with_name(spec.stem + ".claims.toml")
    if not path.exists():
        return []
    verdicts = judge_all(read_claims(path), d)
    return [{k: getattr(v, k) for k in _ERRATA_KEYS} for v in verdicts if not v.ok]


# ---------------------------------------------------------------- output

def _example() -> Verdict:
    """A wrong verdict for the examples below."""
    return Verdict("f.claims.toml", 1, 3, "loss", "1.0516", "§1", None, "1.05147…", "1.0515",
                   "wrong", "plain error", "1.3")


def _width(s: str) -> int:
    """Terminal columns of ``s``: wide and full-width characters take 2, combining marks and format characters 0.

    >>> _width("m\u0302"), _width("你好"), _width("e\u0301x"), _width("a\u200bb")
    (1, 4, 2, 2)
    """
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pieces(s: str) -> list:
    """``s`` cut where a line may break: after a run of spaces, and between two wide (CJK) characters;
    never inside a figure or a name.

    >>> _pieces("q1,0 = 0.560×1.009 第一项")
    ['q1,0 ', '= ', '0.560×1.009 ', '第', '一', '项']
    """
    out, cur = [], ""
    for c in s:
        if cur and (cur[-1].isspace() and not c.isspace() or _width(cur[-1]) == 2 and _width(c) == 2):
            out.append(cur)
            cur = ""
        cur += c
    return out + [cur] if cur else out


def _wrap(s: str, n: int) -> list:
    """``s`` in lines of at most ``n`` terminal columns, broken only where :func:`_pieces` may break it.

    A piece wider than ``n`` (a long figure or name) stays whole on a line of its own; nothing is dropped.

    >>> _wrap("§4.1 AdamW table, step 2, m̂ of W[0,2]", 15)
    ['§4.1 AdamW', 'table, step 2,', 'm̂ of W[0,2]']
    >>> _wrap("§5.3 q0 · k1 = 1.050×0.644 + 0.560×1.009", 16)
    ['§5.3 q0 · k1 =', '1.050×0.644 +', '0.560×1.009']
    >>> _wrap("sum(p[0:3])*log(sum_exp)", 10)
    ['sum(p[0:3])*log(sum_exp)']
    """
    lines, line = [], ""
    for piece in _pieces(s):
        if line.strip() and _width((line + piece).rstrip()) > n:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _pad(s: str, n: int) -> str:
    return s + " " * (n - _width(s))


_COLOURS = {"correct": "32", "wrong": "31", "undecided": "33", "carried rounding": "33"}


def _paint(s: str, key: str, colour: bool) -> str:
    code = _COLOURS.get(key)
    return f"\x1b[{code}m{s}\x1b[0m" if colour and code else s


_COLUMNS = ("#", "where", "ref", "printed", "exact", "correct", "Δ ulp", "verdict", "cause")
_WRAP = {"where": 34, "ref": 34}        # columns wrapped to this many terminal columns at most
_NARROW = ("where", "ref", "cause")     # the columns that wrap further to fit the terminal
MIN_COLUMNS = 40
"""The narrowest terminal the table is laid out for (a narrower COLUMNS counts as this): at any width from here
on no figure or name is split across lines, as long as it fits on a line of its own."""


def _cells(v) -> list:
    """A verdict's cells, every one terminal-safe (control characters escaped)."""
    cause = v.cause or ""
    if v.chain_from and v.cause:
        cause += f" (chain of #{v.chain_from})"
    return [visible(c) for c in
            (str(v.index), v.where, v.ref, v.printed, v.exact, v.correct, v.distance, v.verdict, cause)]


def summary(path, verdicts) -> str:
    """One line: counts by verdict and, for wrong figures, by cause.

    >>> summary("f.claims.toml", [_example()])
    'f.claims.toml: 1 claims, 0 correct, 1 wrong (1 plain error)'
    """
    wrong = [v for v in verdicts if v.verdict == "wrong"]
    by_cause = {}
    for v in wrong:
        by_cause[v.cause] = by_cause.get(v.cause, 0) + 1
    causes = ", ".join(f"{n} {c}" for c, n in sorted(by_cause.items()))
    undecided = sum(v.verdict == "undecided" for v in verdicts)
    correct = sum(v.ok for v in verdicts)
    line = f"{visible(str(path))}: {len(verdicts)} claims, {correct} correct, {len(wrong)} wrong"
    if causes:
        line += f" ({causes})"
    if undecided:
        line += f", {undecided} undecided"
    return line


def _fit(rows: list, width: int | None) -> list | None:
    """Column widths for ``rows`` of cells within ``width`` terminal columns (None: no limit), the
    :data:`_NARROW` columns wrapped narrower, the widest first; None when even their longest pieces do not fit.

    >>> _fit([_cells(_example())], None)                      # 55 columns and 8 gaps of 2
    [1, 5, 4, 7, 8, 7, 5, 7, 11]
    >>> _fit([_cells(_example())], 66), _fit([_cells(_example())], 64)  # "plain error" wraps; "error" does not
    ([1, 5, 4, 7, 8, 7, 5, 7, 6], None)
    """
    least = [max(_width(x) for x in (h, *(p.rstrip() for r in rows for p in _pieces(r[i]))))
             for i, h in enumerate(_COLUMNS)]
    widths = [max(lo, min(max(_width(r[i]) for r in rows), _WRAP.get(h, width or 10 ** 9)))
              for i, (h, lo) in enumerate(zip(_COLUMNS, least))]
    widths = [max(w, _width(h)) for w, h in zip(widths, _COLUMNS)]
    while width is not None and sum(widths) + 2 * (len(widths) - 1) > width:
        slack = [(widths[i] - least[i], i) for i, h in enumerate(_COLUMNS) if h in _NARROW and widths[i] > least[i]]
        if not slack:
            return None
        widths[max(slack)[1]] -= 1
    return widths


def _records(rows: list, keys: list, width: int, colour: bool) -> list:
    """Each row as lines ``field  value``, the value wrapped at spaces: the table of a narrow terminal."""
    label = max(map(_width, _COLUMNS)) + 2
    out = []
    for r, key in zip(rows, keys):
        for h, c in zip(_COLUMNS, r):
            for j, line in enumerate(_wrap(c, width - label) if c else []):
                line = _paint(line, key, colour) if h == "verdict" else line
                out.append(_pad(h if j == 0 else "", label) + line)
        out.append("")
    return out


def format_table(results, show_all=False, colour=False, width: int | None = None) -> str:
    """A terminal table per file (wrong figures only unless ``show_all``), within ``width`` columns
    (None: no limit; see :data:`MIN_COLUMNS`); too narrow for the table, each claim as lines of field and value.

    >>> print(format_table([("f.claims.toml", [_example()])]).splitlines()[2])
    1  §1     loss  1.0516   1.05147…  1.0515   1.3    wrong    plain error
    >>> print("\\n".join(format_table([("f.claims.toml", [_example()])], width=40).splitlines()[:3]))
    #        1
    where    §1
    ref      loss
    """
    out = []
    for path, verdicts in results:
        rows = [_cells(v) for v in verdicts if show_all or not v.ok]
        keys = [v.verdict for v in verdicts if show_all or not v.ok]
        causes = [v.cause or "" for v in verdicts if show_all or not v.ok]
        widths = _fit(rows, None if width is None else max(width, MIN_COLUMNS)) if rows else None
        if rows and widths is None:
            out += _records(rows, keys, max(width, MIN_COLUMNS), colour)
        elif rows:
            rows = [[_wrap(c, w) for c, w in zip(r, widths)] for r in rows]
            out.append("  ".join(_pad(h, w) for h, w in zip(_COLUMNS, widths)).rstrip())
            out.append("  ".join("-" * w for w in widths))
            for r, key, cause in zip(rows, keys, causes):
                for j in range(max(map(len, r))):       # a wrapped cell continues on the next lines
                    cells = [_pad(c[j] if j < len(c) else "", w) for c, w in zip(r, widths)]
                    cells[7] = _paint(cells[7], key, colour) if j < len(r[7]) else cells[7]
                    cells[8] = _paint(cells[8], cause, colour) if j < len(r[8]) else cells[8]
                    out.append("  ".join(cells).rstrip())
            out.append("")
        line = summary(path, verdicts)
        out += [line] if width is None else _wrap(line, max(width, MIN_COLUMNS))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def terminal_width() -> int | None:
    """The width the table is laid out for: ``COLUMNS`` when set to a whole number, else the terminal's; None
    (no limit) when standard output is not a terminal."""
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else None
    except (OSError, ValueError):
        return None


def _md(s: str) -> str:
    s = visible(s)
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_") \
            .replace("<", "&lt;").replace(">", "&gt;")


def format_md(results, show_all=False) -> str:
    """A Markdown table per file (wrong figures only unless ``show_all``).

    >>> format_md([("f.claims.toml", [_example()])]).splitlines()[-1]
    '| 1 | §1 | loss | 1.0516 | 1.05147… | 1.0515 | 1.3 | wrong | plain error |'
    """
    out = []
    for path, verdicts in results:
        out.append(f"## {_md(Path(path).name)}\n")
        out.append(_md(summary(path, verdicts)) + "\n")
        rows = [_cells(v) for v in verdicts if show_all or not v.ok]
        if rows:
            out.append("| " + " | ".join(_md(h) for h in _COLUMNS) + " |")
            out.append("|" + "---|" * len(_COLUMNS))
            for r in rows:
                out.append("| " + " | ".join(_md(c) for c in r) + " |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"




def format_json(results) -> str:
    r"""Every claim as an object (ref, printed, where, exact, verdict, cause, …).

    Valid JSON whose text is terminal-safe: besides what ``json`` escapes, DEL,
    C1, U+2028/2029 and the bidi controls are written as ``\uXXXX`` escapes.

    >>> json.loads(format_json([("f", [_example()])]))[0]["cause"]
    'plain error'
    >>> out = format_json([("f", [Verdict("f", 1, 3, "loss", "1", "§\u202e\x7f", *["x"] * 6)])])
    >>> "\\u202e\\u007f" in out, json.loads(out)[0]["where"] == "§\u202e\x7f"
    (True, True)
    """
    text = json.dumps([v.as_dict() for _, vs in results for v in vs], ensure_ascii=False, indent=1) + "\n"
    return "".join(json.dumps(c)[1:-1] if is_control(c) and c >= "\x7f" else c for c in text)  # json escapes C0


# ---------------------------------------------------------------- --list

def _number(x) -> str:
    """An exact spec number as a reader writes it: 10000, 0.00001, 1/3."""
    q = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)
    return show(None, fmpq(q.numerator, q.denominator), 0).rstrip("…") if q.denominator > 1 else str(q)


def list_names(d) -> str:
    """Every name a spec defines, with its shape and meaning.

    >>> print(list_names(__import__("symgpt").load("bigram")).splitlines()[2])
      E[v,j]           3×2     token embedding matrix (V × d)
    """
    s = d.spec
    lines = [f"{s.path}: {s.kind}, tokens {', '.join(s.vocab)} (an index v is a token or 0..{s.V - 1})",
             "quantities (graph nodes):"]
    for ref, shape, meaning in d._registry.groups():
        dims = "×".join(map(str, shape)) if shape else "scalar"
        lines.append(f"  {ref:<16} {dims:<7} {meaning}")
    lines.append("sizes and constants:")
    for r in d._registry.sizes():
        if s.kind == "transformer" or r.name in ("d", "lr") or r.name.startswith("adamw."):
            lines.append(f"  {r.name:<16} {_number(r.expr):<7} {r.meaning}")
    steps = s.training.steps
    lines.append(f"training states (k = 0..{steps}; state k is the model after k updates):")
    lines.append(f"  {'sgd[k].NAME':<28} any quantity above after k updates (loss, p[v], a parameter, "
                 f"grad_PARAM[…] as the batch mean), lr, clip_coef")
    lines.append(f"  {'adamw[k].NAME':<28} the same names, for AdamW; and, for k ≥ 1 (PARAM,i,j = W,0,2):")
    for name, meaning in MOMENTS.items():
        lines.append(f"  {'adamw[k].' + name + '[PARAM,i,j]':<28} {meaning}")
    lines.append(f"  {'sgd_wrong_order[k].NAME':<28} loss, p[v], parameters: SGD updating E with a gradient "
                 f"taken after the other weights moved")
    if "grad_E_head" in d._skeleton.groups:
        lines.append(f"  {'head_step.E[v,j]':<28} the target's row E[t] − lr·grad_E_head[t] (other rows unchanged)")
        lines.append(f"  {'head_step.logits[v]':<28} h_final · head_step.E[v], h_final as it was")
        lines.append(f"  {'head_step.p[v]':<28} p after that update (a forward pass with the new row)")
        lines.append(f"  {'head_step.loss':<28} the loss after that update")
    elif "grad_W_out" in d._skeleton.groups:
        lines.append(f"  {'head_step.W_out[j,v]':<28} the untied head alone updated, W_out − lr·grad_W_out (the "
                     f"rest frozen)")
        lines.append(f"  {'head_step.logits[v]':<28} h_final · head_step.W_out[:,v], h_final as it was")
        lines.append(f"  {'head_step.p[v]':<28} p after that update")
        lines.append(f"  {'head_step.loss':<28} the loss after that update")
    if len(s.training.examples) > 1:
        n = len(s.training.examples)
        lines.append(f"  {'example[b].NAME':<28} any node of the model on training example b (0..{n - 1}; 0 is "
                     f"[data], the rest training.examples), at the spec's weights")
    lines.append("functions:")
    for f, (args, meaning) in FUNCTIONS.items():
        lines.append(f"  {f + '(' + args + ')':<28} {meaning}")
    lines.append("operators: + - * / ^ ( ); numbers are exact (0.1 is 1/10); "
                 "an index ':' makes a slice for sum, mean, var, max, min, dot")
    return "\n".join(map(visible, lines)) + "\n"


# ---------------------------------------------------------------- CLI

def parser(p: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The arguments of ``python -m symgpt.verify``, on a parser of its own or on ``p``
    (the ``verify`` sub-command of ``symgpt``, :mod:`symgpt.command`).

    >>> parser().parse_args(["bigram", "--all"]).paths
    ['bigram']
    """
    p = p or Parser(prog="python -m symgpt.verify")
    p.description = ("Check every figure a document prints against its exact value. "
                     "Each claim is judged correct when its exact value provably rounds "
                     "(half away from zero) to the printed figure, else wrong, with the cause: "
                     "'carried rounding' when the document's own rounded intermediates (the "
                     "claim's chain) give the printed figure, else 'plain error'.")
    p.epilog = ("Exit status: 0 every claim holds, 1 some claim is wrong or undecided, 2 bad input. "
                "Claims files: derivations/NAME.claims.toml (see symgpt/claims.py for the format).")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print the installed version of symgpt and exit")
    p.add_argument("paths", nargs="*", metavar="SPEC|CLAIMS",
                   help="a spec name (bigram), a spec file or a claims file; "
                        "default: every derivations/*.claims.toml")
    p.add_argument("--format", type=str.lower, choices=("table", "md", "json"), default="table",
                   help="terminal table (default), Markdown, or JSON (a list of every claim)")
    p.add_argument("--all", action="store_true",
                   help="table and md: list every claim, not only the wrong ones")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the table: auto = when stdout is a terminal and NO_COLOR is unset")
    p.add_argument("--list", metavar="SPEC", dest="list_spec",
                   help="print every name SPEC defines (shape and meaning) and exit")
    p.add_argument("--max-digits", type=positive("--max-digits"), default=MAX_DIGITS, metavar="N",
                   help=f"refuse a claim whose numbers would have more than N digits (default {MAX_DIGITS})")
    p.add_argument("--max-ops", type=positive("--max-ops"), default=MAX_OPS, metavar="N",
                   help=f"refuse a spec estimated to need more than N scalar operations (default {MAX_OPS})")
    return p


def _display(path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _colour(mode: str) -> bool:
    if mode != "auto":
        return mode == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def main(argv=None) -> int:
    """``python -m symgpt.verify [ARGS]``: judge the claims, print the verdicts; the exit status."""
    return execute(parser().parse_args(argv))


def execute(args: argparse.Namespace) -> int:
    """Verify as the parsed arguments ``args`` of :func:`parser` say; the exit status."""
    limits = Limits(max_ops=args.max_ops, max_digits=args.max_digits)
    if args.list_spec:
        sys.stdout.write(list_names(derivation_for(find_spec(args.list_spec), limits)))
        return 0
    paths = [claims_path(a) for a in args.paths] or sorted(DERIVATIONS.glob("*.claims.toml"))
    if not paths:
        raise InputError(f"no claims files in {DERIVATIONS}")
    files: list[ClaimsFile] = [read_claims(p) for p in paths]
    results = [(_display(cf.path), judge_all(cf, derivation_for(cf.spec, limits))) for cf in files]
    if args.format == "json":
        sys.stdout.write(format_json(results))
    elif args.format == "md":
        sys.stdout.write(format_md(results, args.all))
    else:
        sys.stdout.write(format_table(results, args.all, _colour(args.color), terminal_width()))
    return 0 if all(v.ok for _, vs in results for v in vs) else 1


if __name__ == "__main__":
    run(main)
