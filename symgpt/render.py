"""``python -m symgpt.render``: derivations → Jinja templates → files.

With no arguments every spec in ``derivations/`` is rendered into ``out/``.
Python builds plain data (strings only, every number certified); the
templates lay it out.  Everything is rendered in memory first and then
written atomically, so bad input leaves nothing half-written.

>>> files = render_all(["derivations/bigram.toml"], digits=4)
>>> sorted(files)[0].name
'bigram.md'
"""
from __future__ import annotations

import argparse
from pathlib import Path

import jinja2
import sympy

from .cli import InputError, run, write_atomic
from .derivation import DERIVATIONS, Derivation, find_spec
from .spec import load_spec

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
SHORT = 12  # closed forms with at most this many operations are shown


def md_escape(text) -> str:
    """User text (a token like ``<pad>`` or ``a_b``) made literal in Markdown.

    >>> md_escape("<pad>"), md_escape("a_b*")
    ('&lt;pad&gt;', 'a\\\\_b\\\\*')
    """
    out = []
    for ch in str(text):
        if ch in "\\`*_[]#|$~":
            out.append("\\" + ch)
        elif ch in "<>&":
            out.append({"<": "&lt;", ">": "&gt;", "&": "&amp;"}[ch])
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append(ch)
    return "".join(out)


def markdown_env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             autoescape=False)
    env.filters["md"] = md_escape
    return env


def report(d: Derivation, digits: int) -> dict:
    """Plain data for the forward report: every forward quantity, certified."""
    groups = []
    for grp in d.graph.groups.values():
        if grp.name.startswith("grad_"):
            continue
        rows = []
        for name in grp.names:
            closed = None
            try:
                closed = sympy.latex(d.closed_form(name, max_ops=SHORT))
            except ValueError:
                pass
            value = d.value(name, decimals=digits)
            small = None
            if value.lstrip("-").strip("0.") == "" and d.sign(name) != 0:
                small = d.value(name, digits=5)
            rows.append({"name": d.pretty(name), "value": value, "small": small, "closed": closed})
        groups.append({"name": grp.name, "meaning": grp.meaning,
                       "shape": "×".join(map(str, grp.shape)) or "scalar", "rows": rows})
    s = d.spec
    return {"title": s.title, "name": s.name, "kind": s.kind, "vocab": list(s.vocab),
            "input": [s.vocab[i] for i in s.input], "target": s.vocab[s.target],
            "sizes": {"V": s.V, "d": s.d, "heads": s.heads, "d_ff": s.d_ff, "layers": s.layers, "T": s.T},
            "digits": digits, "groups": groups}


def render_all(specs, digits: int = 4) -> dict:
    """{output path (relative): text} for the given spec paths."""
    env = markdown_env()
    out = {}
    for path in specs:
        d = Derivation(load_spec(path))
        out[Path(f"{d.spec.name}.md")] = env.get_template("report.md.j2").render(r=report(d, digits))
    return out


def default_specs() -> list:
    return sorted(p for p in DERIVATIONS.glob("*.toml") if not p.name.endswith(".claims.toml"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m symgpt.render",
                                 description="Render derivation documents from specs.")
    ap.add_argument("specs", nargs="*", metavar="SPEC",
                    help="spec files or names in derivations/ (default: every spec there)")
    ap.add_argument("--out", default="out", help="output directory (default: out/)")
    ap.add_argument("--digits", type=int, default=4, help="decimals printed for each value (default 4)")
    a = ap.parse_args(argv)
    if a.digits < 0 or a.digits > 1000:
        raise InputError(f"--digits: expected 0..1000, got {a.digits}")
    specs = [find_spec(s) for s in a.specs] or default_specs()
    files = render_all(specs, a.digits)
    for rel, text in files.items():
        write_atomic(Path(a.out) / rel, text)
        print(Path(a.out) / rel)
    return 0


if __name__ == "__main__":
    run(main)
