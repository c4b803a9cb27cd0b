"""Errata: the source document's wrong figures, grouped by root fault.

The claims side computes them; :func:`for_document` hands them to
:func:`symgpt.documents.document.build`, so the document layer never calls back into
``verify``.

A *fault* is one row of the errata.  Wrong figures belong to the same fault
when

* they print the same quantity (``Q[1,0] = 0.882`` four times is one fault;
  ``params()`` printed 18 once and 38 twice is one fault);
* they are entries of one vector quantity printed wrong in the same section
  (the T = 0.5 row of a temperature table: ``softmax_T(0.5, 爱)``,
  ``softmax_T(0.5, 你)``, …);
* one *carries* the other: its chain (the source's own computation) uses the
  other's wrong printed figure, and the chain reproduces its printed figure,
  so it is wrong only because of what it carried (``S[1,0] = 1.099/1.4142 =
  0.777`` carries the wrong ``1.099``).

Faults are the connected groups of these links.  A figure of a fault that
carries none of the others is a *root*; the fault's cause is its roots'.

A cause is recomputed here from the verdict's chain, whatever ``claims``
said: *carried rounding* only when the chain, computed exactly from its
printed operands, rounds to the printed figure; otherwise *plain error*.

The correct figure is printed with as many more decimals as it takes to be a
figure that says something: not zero when the value is not, and never the
printed figure (0.1 % whose value is 0.0123 % reads 0.01 %, not 0.0 %).

>>> import symgpt
>>> rows = for_document(symgpt.load("bigram"))
>>> [(f["quantity"], f["printed"], f["correct"]) for r in rows for f in r["figures"]][-1]
('adamw[1].decay[W,0,2] / W[0,2]', ['0.1%'], '0.01%')
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from flint import fmpq

from ..core.numeric import UndecidableError
from .claims import START_PREC, certify_rounding, judge_all, parse_printed, read_claims, show
from .refs import ExprError, Quantity, bind, parse, tokenize
from .where import translate

LANGS = ("zh", "en")
CARRIED, PLAIN, NOT_CLOSED = "carried rounding", "plain error", "equation does not close"
EXTRA_PLACES = 12    # the correct figure gets at most this many decimals more than printed
EXACT_DIGITS = 10    # significant digits of the exact value shown
VECTOR_CALLS = ("softmax_T", "topk", "topp")   # f(parameter, token): one vector per parameter


def claims_path(spec) -> Path:
    """``derivations/NAME.claims.toml`` beside a spec.

    >>> import symgpt
    >>> claims_path(symgpt.load("bigram").spec).name
    'bigram.claims.toml'
    """
    return Path(spec.path).with_name(f"{spec.name}.claims.toml")


def for_document(d):
    """The errata rows of the spec's claims file, or None without one (see :func:`errata`).

    >>> import symgpt
    >>> len(for_document(symgpt.load("bigram")))
    3
    """
    path = claims_path(d.spec)
    if not path.exists():
        return None
    return errata(read_claims(path), d)


# ---------------------------------------------------------------- one wrong figure

@dataclass
class Wrong:
    """One wrong printed figure (one claim), with what grouping needs."""
    index: int
    ref: str
    printed: object          # claims.Printed
    where: str
    section: str
    key: str                 # the quantity: its canonical node name, or its ref
    node: str | None         # the canonical node name when the ref names a graph node
    family: tuple | None     # (vector quantity, section), for entries of one vector
    q: Quantity
    cause: str
    chain: str | None        # its own chain (not an inherited one)
    carries: list = field(default_factory=list)   # indices of wrong figures its chain uses


def cause_of(verdict, printed, chain_q) -> str:
    """``carried rounding`` when the chain reproduces the printed figure, else ``plain error``.

    ``chain_q`` is the verdict's chain (its own or the one it inherits),
    bound; a chain that rounds to another figure, or none, is a plain error.

    >>> from types import SimpleNamespace
    >>> v = SimpleNamespace(cause="carried rounding")   # what claims said
    >>> near = Quantity(lambda prec: fmpq(4623, 10000))
    >>> far = Quantity(lambda prec: fmpq(4700, 10000))
    >>> cause_of(v, parse_printed("0.46"), near), cause_of(v, parse_printed("0.46"), far)
    ('carried rounding', 'plain error')
    """
    if verdict.cause == NOT_CLOSED:
        return NOT_CLOSED
    if chain_q is None:
        return PLAIN
    return CARRIED if reproduces(chain_q, printed) else PLAIN


def reproduces(q, printed) -> bool:
    """Does ``q`` (a chain) give the printed figure: its certified rounding, or equal for 1/3?

    >>> reproduces(Quantity(lambda prec: fmpq(1, 3)), parse_printed("0.333"))
    True
    >>> reproduces(Quantity(lambda prec: fmpq(1, 3)), parse_printed("1/3"))
    True
    """
    try:
        if printed.exact_notation:
            v = q.ball(START_PREC)
            return isinstance(v, fmpq) and v == fmpq(printed.value.numerator, printed.value.denominator)
        return Fraction(certify_rounding(q, printed)[0]) == printed.value
    except (UndecidableError, ArithmeticError):
        return False


def correct_figure(q, printed, others=(), differ=True) -> str:
    """The exact value rounded at the printed place, or finer until it differs and says something.

    Finer when the rounding at the printed place is zero while the value is
    not, or equals a printed figure (``others`` are further printed values);
    never finer when ``differ`` is false (a right figure in an equation that
    does not close).  Every digit is certified.

    >>> correct_figure(Quantity(lambda prec: fmpq(123, 1000000)), parse_printed("0.1%"))
    '0.01%'
    >>> correct_figure(Quantity(lambda prec: fmpq(8826, 10000)), parse_printed("0.882"))
    '0.883'
    >>> correct_figure(Quantity(lambda prec: fmpq(46)), parse_printed("38"))
    '46'
    """
    if printed.exact_notation:
        v = q.ball(START_PREC)
        return f"{int(v.p)}/{int(v.q)}" if isinstance(v, fmpq) and v.q != 1 else show(q, v, START_PREC, EXACT_DIGITS)
    printed_values = {printed.value, *others}
    first = None
    for k in range(printed.decimals, printed.decimals + EXTRA_PLACES + 1):
        try:
            r = certify_rounding(q, dataclasses.replace(printed, decimals=k))[0]
        except UndecidableError:
            break
        first = first or r
        if not differ or (Fraction(r) != 0 and Fraction(r) not in printed_values):
            return _styled(r, printed)
    return _styled(first, printed) if first is not None else "?"


def _styled(r: str, printed) -> str:
    """A rounded figure written as the printed one is: a shown '+', a '%'."""
    if printed.text.strip().startswith("+") and not r.startswith("-") and Fraction(r) != 0:
        r = "+" + r
    return r + "%" if printed.kind == "percent" else r


def exact_text(q, printed) -> str:
    """The exact value in the printed units (×100 for a percent), to EXACT_DIGITS digits.

    >>> exact_text(Quantity(lambda prec: fmpq(1, 10000)), parse_printed("0.1%"))
    '0.01%'
    """
    if printed.kind == "percent":
        scaled = Quantity(lambda prec: q.ball(prec) * 100)
        return show(scaled, scaled.ball(START_PREC), START_PREC, EXACT_DIGITS) + "%"
    return show(q, q.ball(START_PREC), START_PREC, EXACT_DIGITS)


# ---------------------------------------------------------------- grouping

def errata(cf, d) -> list:
    """The errata rows of a claims file, one per root fault, in the order of the source.

    Each row: ``n``; ``figures``, one per quantity, each with ``quantity``,
    ``ref``, ``node`` (its canonical name, or None), ``printed`` (the
    figures as printed), ``correct``, ``exact``, ``cause``, ``carries`` (the
    quantities of the row whose wrong figures its chain uses) and ``count``
    (how often it is printed wrong); ``places`` ({lang: [where, …]}, merged
    and shortened); ``cause`` and ``causes`` (of the roots); ``nodes`` (names
    to link to, best first); ``claims`` (claim numbers).

    >>> import symgpt
    >>> from symgpt.derivation import DERIVATIONS
    >>> d = symgpt.load("tiny-transformer")
    >>> row = errata(read_claims(DERIVATIONS / "tiny-transformer.claims.toml"), d)[0]
    >>> row["figures"][0]["printed"], row["figures"][0]["correct"], row["cause"], row["places"]["en"][0]
    (['18', '38'], '46', 'plain error', 'outline, item 1 “all 18 parameters”')
    """
    vocab = tuple(d.spec.vocab)
    wrong = [_wrong(v, d) for v in judge_all(cf, d) if v.verdict == "wrong"]
    for w in wrong:
        w.carries = _carried(w, wrong) if w.cause == CARRIED else []
    return [_row(n, g, d, vocab) for n, g in enumerate(group(wrong), 1)]


def _wrong(v, d) -> Wrong:
    printed = parse_printed(v.printed, d.limits.max_digits)
    q = bind(parse(v.ref, d.limits), d)
    chain_q = bind(parse(v.chain, d.limits), d) if v.chain else None
    own = None if v.chain_from is not None else v.chain
    node = _node(v.ref, d)
    return Wrong(v.index, v.ref, printed, v.where, _section(v.where), node or " ".join(v.ref.split()), node,
                 _family(node, v.ref, v.where, d), q, cause_of(v, printed, chain_q), own)


def _section(where: str) -> str:
    """The leading section mark of a where-string (``§5.3``), or its first word."""
    return where.split(" ", 1)[0]


def _node(ref: str, d) -> str | None:
    """The canonical name of the one quantity a ref names (``p[你]`` → ``p[4]``,
    ``head_step.E[你,1]`` → ``head_step.E[4,1]``), else None (an expression, a size)."""
    tree = parse(ref, d.limits)
    if tree[0] == "name":
        try:
            r = d.ref(tree[1])
        except ValueError:
            return None
        return r.name if r.kind != "size" else None
    return None


def _family(node, ref: str, where: str, d):
    """(vector quantity, section) for an entry of a vector (``S[1,0]`` → S), else None."""
    if node is not None:
        return ("node", d.ref(node).group, _section(where))
    tree = parse(ref, d.limits)
    if tree[0] == "call" and tree[1] in VECTOR_CALLS:
        return ("call", tree[1], repr(tree[2][:-1]), _section(where))
    return None


def _literals(chain: str) -> list:
    """The numbers a chain writes, as written (without sign)."""
    try:
        return [t[1] for t in tokenize(chain) if t[0] == "num"]
    except ExprError:
        return []


def _carried(w: Wrong, wrong: list) -> list:
    """The earlier wrong figures whose printed text ``w``'s own chain uses."""
    if not w.chain:
        return []
    used = set(_literals(w.chain))
    return [o.index for o in wrong
            if o.index < w.index and o.printed.kind == "decimal" and o.printed.text.strip().lstrip("+-−") in used]


def group(wrong: list) -> list:
    """Connected groups of wrong figures: same quantity, one vector in a section, or carried.

    >>> P = parse_printed
    >>> w = [Wrong(1, "a", P("0.1"), "§1", "§1", "a", None, None, None, PLAIN, None),
    ...      Wrong(2, "b", P("0.2"), "§2", "§2", "b", None, None, None, CARRIED, "0.1*2", [1]),
    ...      Wrong(3, "a", P("0.1"), "§3", "§3", "a", None, None, None, PLAIN, None),
    ...      Wrong(4, "c", P("0.4"), "§3", "§3", "c", None, None, None, PLAIN, None)]
    >>> [[x.index for x in g] for g in group(w)]
    [[1, 2, 3], [4]]
    """
    parent = {w.index: w.index for w in wrong}

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i, j):
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first = {}
    for w in wrong:
        for k in (("q", w.key), ("f", w.family) if w.family else None):
            if k is not None:
                join(w.index, first.setdefault(k, w.index))
        for i in w.carries:
            join(w.index, i)
    groups: dict = {}
    for w in wrong:
        groups.setdefault(find(w.index), []).append(w)
    return [groups[k] for k in sorted(groups)]


# ---------------------------------------------------------------- one row

def _row(n: int, members: list, d, vocab) -> dict:
    by_key: dict = {}
    for w in members:
        by_key.setdefault(w.key, []).append(w)
    key_of = {w.index: w.key for w in members}
    figures = []
    for key, ws in by_key.items():
        texts = list(dict.fromkeys(w.printed.text for w in ws))
        finest = max((w.printed for w in ws), key=lambda p: p.decimals)
        carries = list(dict.fromkeys(key_of[i] for w in ws for i in w.carries if key_of.get(i) not in (None, key)))
        causes = list(dict.fromkeys(w.cause for w in ws))
        figures.append({
            "quantity": pretty(ws[0].ref), "ref": ws[0].ref, "node": ws[0].node,
            "printed": texts, "correct": correct_figure(ws[0].q, finest, {w.printed.value for w in ws},
                                      differ=any(w.cause != NOT_CLOSED for w in ws)),
            "exact": exact_text(ws[0].q, finest), "cause": causes[0], "causes": causes,
            "carries": [pretty(by_key[c][0].ref) for c in carries], "count": len(ws),
        })
    roots = [f for f in figures if not f["carries"]] or figures
    causes = _ordered_causes(c for f in roots for c in f["causes"])
    return {
        "n": n,
        "figures": figures,
        "places": {lang: places([w.where for w in members], lang, vocab) for lang in LANGS},
        "cause": causes[0], "causes": causes,
        "nodes": _link_names(members, d),
        "claims": [w.index for w in members],
        "count": len(members),
    }


def _ordered_causes(causes) -> list:
    seen = list(dict.fromkeys(causes))
    return sorted(seen, key=lambda c: (c != PLAIN, c != NOT_CLOSED))


def pretty(ref: str) -> str:
    """A ref for a reader: ``*`` written as ``·``, spaces evened.

    >>> pretty("Q[1,0]*K[0,0] + Q[1,1]*K[0,1]")
    'Q[1,0]·K[0,0] + Q[1,1]·K[0,1]'
    """
    return " ".join(ref.replace("*", "·").split())


def _link_names(members: list, d) -> list:
    """Names whose section shows the right numbers, best first.

    The quantities that are graph nodes (canonical names), then the names
    inside the other refs, then their vector names and functions.
    """
    direct, inner, broad = [], [], []
    for w in members:
        if w.node is not None:
            direct.append(w.node)
        for kind, text, _ in tokenize(w.ref):
            if kind != "name":
                continue
            try:
                node = d.node(text)
                inner.append(node)
                broad.append(d.graph.nodes[node].group)
            except (ValueError, KeyError):
                broad.append(text)
    return list(dict.fromkeys(direct + inner + broad))


# ---------------------------------------------------------------- places

def places(wheres: list, lang: str, vocab=()) -> list:
    """Every place a fault is printed, merged and shortened, in ``lang``.

    Repeats go; a place that only adds words to the end of another place
    goes; places that differ in one word only are merged (``p(爱)/p(你)``);
    a section mark repeated from the place before is dropped.

    >>> places(["§5.2 q = 1 结果", "§5.2 q = 1 第一项积", "§5.2 表 5-1 t=1 行", "§5.3 x"], "en")
    ['§5.2 q = 1 result/first product', 'Table 5-1 t=1 row', '§5.3 x']
    >>> places(["§11.2 表 11-1 T = 0.5 行 p(爱) 列", "§11.2 表 11-1 T = 0.5 行 p(你) 列"], "en", ["爱", "你"])
    ['§11.2 Table 11-1 T = 0.5 row p(「爱」)/p(「你」) column']
    """
    ws = list(dict.fromkeys(wheres))
    ws = [w for w in ws if not any(w.startswith(p + " ") for p in ws)]
    groups: list = []          # [[words of each member], position where they differ or None]
    for w in ws:
        words = w.split(" ")
        for g in groups:
            first = g[0][0]
            diff = [i for i, (a, b) in enumerate(zip(first, words)) if a != b] if len(first) == len(words) else []
            if len(diff) == 1 and g[1] in (None, diff[0]):
                g[0].append(words)
                g[1] = diff[0]
                break
        else:
            groups.append([[words], None])
    out = [_merge([translate(" ".join(m), lang, vocab) for m in g[0]]) for g in groups]
    shown, last = [], None
    for p in out:
        head, _, rest = p.partition(" ")
        shown.append(rest if head == last and head.startswith("§") and rest else p)
        last = head
    return shown


def _merge(texts: list) -> str:
    """'a b c', 'a d c' → 'a b/d c': common leading and trailing words once, the rest joined by '/'."""
    if len(texts) == 1:
        return texts[0]
    split = [t.split(" ") for t in texts]
    n = min(len(s) for s in split)
    k = 0
    while k < n - 1 and len({s[k] for s in split}) == 1:
        k += 1
    j = 0
    while j < n - k - 1 and len({s[-1 - j] for s in split}) == 1:
        j += 1
    middles = "/".join(" ".join(s[k:len(s) - j]) for s in split)
    return " ".join(split[0][:k] + [middles] + (split[0][len(split[0]) - j:] if j else []))
