"""The derivation document as plain data: sections → steps, every number certified.

The pieces (values, step kinds, :class:`~symgpt.documents.blocks.Numbers`) are in
:mod:`symgpt.documents.blocks`; the sections of each model kind in
:mod:`symgpt.documents.transformer` and :mod:`symgpt.documents.bigram`.  Here they are put
together: table numbers, section anchors, the map from quantities to the
section that first prints them, and the list of every printed figure (the
document's own claims).

>>> import symgpt
>>> doc = build(symgpt.load("bigram"))
>>> [s["id"] for s in doc["sections"]][:3]
['bigram_setup', 'bigram_forward', 'bigram_backprop']
>>> doc["digits"], doc["sections"][1]["steps"][0]["kind"]
(4, 'text')
"""
from __future__ import annotations

from ..claims.refs import FUNCTIONS, tokenize
from . import bigram as doc_bigram
from . import steps as st
from . import transformer as doc_transformer
from .blocks import Numbers, fit_displays
from .expressions import expression

DEFAULT_DIGITS = {"transformer": 3, "bigram": 4}


# ---------------------------------------------------------------- the document

def number_tables(sections) -> None:
    """Number the sections §0, §1 …, their sub-headings ``n.1``, ``n.2`` … and tables ``n-1`` …; give anchors.

    The numbers follow the source documents, whose sections the builders
    reproduce in order.  A section's anchor is its id, with ``-2``, ``-3`` …
    when an id comes again (the blocks of a deeper model); a sub-heading's
    anchor is ``sec-n-k``.

    >>> secs = [{"id": "a", "steps": [{"kind": "sub"}, {"kind": "table"}, {"kind": "sub"}]}]
    >>> number_tables(secs); secs[0]["num"], [s.get("num", s.get("number")) for s in secs[0]["steps"]]
    ('0', ['0.1', '0-1', '0.2'])
    """
    seen: dict = {}
    for n, sec in enumerate(sections):
        sec["n"], sec["num"] = n, str(n)
        sec.setdefault("layer", None)  # a block's layer, from 1, in a model of several
        seen[sec["id"]] = seen.get(sec["id"], 0) + 1
        sec["anchor"] = sec["id"] + (f"-{seen[sec['id']]}" if seen[sec["id"]] > 1 else "")
        tables = subs = 0
        for step in sec["steps"]:
            if step["kind"] == "table":
                tables += 1
                step["number"] = f"{n}-{tables}"
            elif step["kind"] == "sub":
                subs += 1
                step["num"], step["anchor"] = f"{n}.{subs}", f"{n}-{subs}"


def build(d, digits: int | None = None, errata=None, fit: bool = True) -> dict:
    """The whole document of a derivation, at the seed's precision by default.

    ``errata`` are the source document's wrong figures (from
    :func:`symgpt.claims.errata.for_document`), or None when there is no claims file.
    ``fit=False`` leaves every display line and table whole (the HTML page, which scrolls a
    wide formula; a split matrix would no longer list its figures in order).

    >>> import symgpt
    >>> doc = build(symgpt.load("tiny-transformer"))
    >>> doc["kind"], doc["digits"], len(doc["sections"]) > 10
    ('transformer', 3, True)
    """
    s = d.spec
    digits = DEFAULT_DIGITS[s.kind] if digits is None else digits
    sections = doc_transformer.sections if s.kind == "transformer" else doc_bigram.sections
    secs, figures = sections(d, Numbers(d, digits))
    number_tables(secs)
    if fit:  # layout: no display line wider than the page (symgpt.documents.layout); a web page scrolls instead
        fit_displays(secs)
    anchors: dict = {}
    for f in printed_figures(secs):
        name = canonical(d, f["ref"])
        keys = [name] if name is not None else \
            [text for kind, text, _ in tokenize(f["ref"]) if kind == "name" and text in FUNCTIONS]
        for key in keys:  # a quantity, or a function (params, softmax_T, topk…) whose values are printed
            anchors.setdefault(key, secs[f["sec"]]["anchor"])
    for key, fig in figures.items():
        fig["file"] = f"{s.name}-{key}.svg"
    for row in errata or ():
        row["link"] = errata_link(secs, row["places"]["zh"])
        for f in row["figures"]:  # each quantity as the text writes it; None: as the claims file writes it
            f["reader"] = expression(d, f["ref"])
        row["where"] = {lang: [cited(secs, p) for p in ps] for lang, ps in row["places"].items()}
    return {
        "name": s.name, "title": dict(s.titles), "kind": s.kind, "digits": digits,
        "source": str(s.raw.get("source", "")),
        "vocab": list(s.vocab), "input": [s.vocab[i] for i in s.input], "target": s.vocab[s.target],
        "sections": secs, "figures": figures, "errata": errata, "anchors": anchors,
    }




def errata_link(sections, places) -> dict | None:
    """Where the right figures of an errata row are: the sub-section its first place cites.

    ``{"num": "5.2", "anchor": "5-2"}`` when the cited ``§5.2`` is one of our
    sub-headings, the section's own number and anchor when only ``§5`` is,
    else None (a place before §0, such as the source's header).

    >>> secs = [{"num": "0", "anchor": "setup", "steps": [{"kind": "sub", "num": "0.1", "anchor": "0-1"}]}]
    >>> errata_link(secs, ["§0.1 表 0-1"]), errata_link(secs, ["§0 x"]), errata_link(secs, ["页首"])
    ({'num': '0.1', 'anchor': '0-1'}, {'num': '0', 'anchor': 'setup'}, None)
    """
    marks = [p.split(" ", 1)[0][1:] for p in places if p.startswith("§")]
    for mark in marks:
        for sec in sections:
            for step in sec["steps"]:
                if step["kind"] == "sub" and step.get("num") == mark:
                    return {"num": mark, "anchor": step["anchor"]}
        for sec in sections:
            if sec["num"] == mark.split(".")[0]:
                return {"num": sec["num"], "anchor": sec["anchor"]}
    return None


def cited(sections, place: str) -> dict:
    """A place in the source split into its section mark and the rest, with our anchor for the mark.

    The sections follow the source's numbering, so the source's ``§5.2`` is
    our sub-section 5.2; the anchor is None when the place cites no § of ours.

    >>> secs = [{"num": "5", "anchor": "attention", "steps": [{"kind": "sub", "num": "5.2", "anchor": "5-2"}]}]
    >>> cited(secs, "§5.2 q = 1"), cited(secs, "§5 x")["anchor"], cited(secs, "Table 5-1")["anchor"]
    ({'mark': '§5.2', 'rest': 'q = 1', 'anchor': '5-2'}, 'attention', None)
    """
    mark, _, rest = place.partition(" ")
    link = errata_link(sections, [mark]) if mark.startswith("§") else None
    if link is None or link["num"] != mark[1:]:
        return {"mark": "", "rest": place, "anchor": None}
    return {"mark": mark, "rest": rest, "anchor": link["anchor"]}


def canonical(d, ref: str) -> str | None:
    """The canonical name of a reference that is one quantity (``p[你]`` → ``p[4]``), else None.

    Names are resolved by the one registry (:mod:`symgpt.engine.names`).

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> canonical(d, "E[你,1]"), canonical(d, "sgd[1].p[你]"), canonical(d, "exp(S[1,0])")
    ('E[4,1]', 'sgd[1].p[4]', None)
    """
    try:
        return d.ref(ref).name
    except ValueError:
        return None


def _value_figures(v):
    """(ref, printed) of a typed value that prints a quantity (lists walked)."""
    t = v.get("t")
    yield from v.get("figs", ())
    if t == "list":
        for x in v["v"]:
            yield from _value_figures(x)
    elif "ref" in v and t == "num":
        yield v["ref"], v["v"]
        if "exact" in v:
            yield v["ref"], v["exact"]
    elif "ref" in v and t in ("pct", "share"):
        yield v["ref"], v["v"] + "%"


def printed_figures(sections):
    """Every figure the document prints with its reference: the document's own claims.

    Each a dict ``sec`` (index), ``place`` (``("table", number, row, col)``,
    ``("display", k, line)`` or ``("text", k)``), ``ref``, ``printed`` and, for
    the result of a displayed computation, ``chain`` and ``relation``.

    >>> import symgpt
    >>> doc = build(symgpt.load("bigram"))
    >>> f = next(f for f in printed_figures(doc["sections"]) if f["ref"] == "z[0]" and "chain" in f)
    >>> f["printed"], f["chain"], f["relation"], f["place"]
    ('0.1300', '0.3000*0.5+(-0.1000)*0.2', '=', ('display', 1, 1))
    """
    for n, sec in enumerate(sections):
        displays = paragraphs = 0
        for step in sec["steps"]:
            kind = step["kind"]
            if kind == "math":
                displays += 1
                for ref, printed in step.get("figs", ()):
                    yield {"sec": n, "place": ("display", displays, 1), "ref": ref, "printed": printed}
                for i, ln in enumerate(step["lines"]):
                    if isinstance(ln, dict):
                        for c in st.claims(ln):
                            yield {"sec": n, "place": ("display", displays, i + 1), **c}
            elif kind == "table":
                for r, row in enumerate(step["rows"]):
                    for col, cell in enumerate(row):
                        for ref, printed in _value_figures(cell):
                            yield {"sec": n, "place": ("table", step["number"], r + 1, col + 1),
                                   "ref": ref, "printed": printed}
            elif kind in ("text", "note", "items"):
                for entry in step["entries"] if kind == "items" else [step]:  # each list item a paragraph
                    paragraphs += 1
                    for v in entry["args"].values():
                        for ref, printed in _value_figures(v):
                            yield {"sec": n, "place": ("text", paragraphs), "ref": ref, "printed": printed}
