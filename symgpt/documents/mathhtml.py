"""Math typeset ahead of time: LaTeX → HTML with KaTeX, run once per document by node.

The HTML page carries no script that typesets: every formula is turned into
KaTeX's HTML (and MathML, for screen readers and copying) while the document
is rendered.  KaTeX 0.16.11 (MIT, the npm package ``katex``) is shipped in
``symgpt/vendor/katex/`` with its CSS and fonts, so rendering needs only
``node``; without it, ``--format html`` stops with one message naming what to
install, as ``pdf`` does without TeX.

All formulas of a document go to one node process (``typeset.cjs``) as JSON
and come back in order.  A printed figure inside a formula is marked with
KaTeX's ``\\htmlData{n=K}{…}`` (the one trusted HTML command), which
:mod:`symgpt.documents.html` turns into the figure's ``data-ref`` and ``data-exact``.

>>> typeset([(r"\\frac{1}{2}", False)])[0].startswith('<span class="katex">')
True
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from ..core.errors import InputError, OutputError

KATEX = Path(__file__).resolve().parent.parent / "vendor" / "katex"
NODE_PACKAGES = "nodejs"
TIMEOUT = 300.0  # seconds for one document's formulas (the seed's take well under one)


def node() -> str:
    """The path of ``node``; an InputError naming what to install when it is missing.

    >>> Path(node()).name
    'node'
    """
    path = shutil.which("node")
    if not path:
        raise InputError(f"--format html needs node (Node.js ≥ 18) to typeset the math with KaTeX ahead of time; "
                         f"on Debian or Ubuntu: apt-get install {NODE_PACKAGES}")
    return path


def typeset(items, what: str = "document") -> list[str]:
    """KaTeX's HTML of each ``(tex, display[, mathml])``, in order; one node process for all.

    MathML (for screen readers and copying) is added to displays and short inline formulas unless
    ``mathml`` is False (the proof cards, which repeat what the page says).

    A formula KaTeX cannot parse is an :class:`~symgpt.core.errors.OutputError` naming it
    (a formula of ours that fails is a bug: the message says which).
    """
    items = list(items)
    if not items:
        return []
    batch = json.dumps([{"tex": it[0], "display": bool(it[1]),
                         "mathml": (it[2] if len(it) > 2 else True) and (bool(it[1]) or len(it[0]) < 400)}
                        for it in items], ensure_ascii=False)
    try:
        r = subprocess.run([node(), str(KATEX / "typeset.cjs")], input=batch.encode("utf-8"), capture_output=True,
                           timeout=TIMEOUT, cwd=KATEX)
    except subprocess.TimeoutExpired:
        raise OutputError(f"{what}: KaTeX (node) still running after {TIMEOUT:g} s, stopped") from None
    if r.returncode != 0:
        said = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OutputError(f"{what}: node {KATEX / 'typeset.cjs'} failed: {said[-1] if said else r.returncode}")
    try:
        out = json.loads(r.stdout.decode("utf-8"))
    except ValueError:
        out = None
    if not isinstance(out, list) or len(out) != len(items) or not all(isinstance(o, dict) for o in out):
        raise OutputError(f"{what}: node {KATEX / 'typeset.cjs'} did not answer one result per formula "
                          f"({len(items)} sent)")
    for it, o in zip(items, out):
        if "error" in o:
            raise OutputError(f"{what}: KaTeX cannot typeset {it[0][:120]!r}: {o['error'][:200]}")
    return [o["html"] for o in out]
