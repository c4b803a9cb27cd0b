"""What opens when a reader asks a printed figure where it comes from: its proof card.

For every quantity the page prints (and every one a card links to), a card
holds: the name and meaning; the display lines of :class:`symgpt.documents.display.Quantity`
(definition, the worked line with the printed operands substituted, closed
form when small, the value); the value to 30 certified significant digits;
the source document's own arithmetic for it when its claims give a chain
(and the figure that arithmetic would give); the errata entry when the
source printed it wrong; and the names it is computed from (its definition's
inputs) and computed into (the nodes whose definitions read it).  A gradient's
card is its adjoint's: ``grad_logits[你] = p[你] − 1`` and, among the names
it reads, the consumers whose adjoint terms it sums.

A reference that is not one quantity (``exp(S[1,0])``, ``softmax_T(0.5, 你)``)
gets a card with its expression, its value and the names it reads.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> c = card(d, "grad_W[0,2]", consumers(d))
>>> c["name"], c["inputs"], c["value"][:12]
('grad_W[0,鱼]', ['x[0]', 'grad_z[2]'], '-0.195172898')
"""
from __future__ import annotations

from ..claims.claims import certify_rounding, judge_all, parse_printed, read_claims
from ..claims.errata import claims_path
from ..claims.refs import FUNCTIONS, bind, parse, tokenize
from ..engine.names import RefError
from ..floats.extras import significant
from .display import SMALL_OPS, Quantity, aligned
from .document import canonical

DIGITS = 30


class _Card(Quantity):
    """A quantity as its card shows it: a closed form is tried only up to the size a card prints."""

    count_ops = SMALL_OPS


def consumers(d) -> dict:
    """{node: [nodes whose definitions read it]}, in graph order.

    >>> import symgpt
    >>> consumers(symgpt.load("bigram"))["z[2]"]  # p[鱼] = exp(z[鱼])/Σ; the loss reads z[鱼] itself
    ['sum_exp', 'p[2]', 'loss']
    """
    g = d.definitions
    out: dict = {}
    for name, node in g.nodes.items():
        if node.expr is None:
            continue
        for s in sorted(node.expr.free_symbols, key=lambda s: s.name):
            if s.name in g.nodes:
                out.setdefault(s.name, []).append(name)
    return {k: sorted(set(v), key=_order(g)) for k, v in out.items()}


def _order(g):
    index = {name: i for i, name in enumerate(g.nodes)}
    return lambda name: index.get(name, len(index))


def value30(d, ref: str) -> str:
    """A reference's value to 30 certified significant digits (a name or any claims expression).

    >>> import symgpt
    >>> value30(symgpt.load("tiny-transformer"), "exp(S[1,0])")[:10]   # e^0.778070…
    '2.17726625'
    """
    try:
        return d.value(ref, digits=DIGITS)
    except (RefError, ValueError):
        return significant(bind(parse(ref, d.limits), d, d.limits).ball, DIGITS, ref)


def card(d, ref: str, uses: dict, source=None) -> dict:
    """The proof card of one reference (see the module); ``uses`` from :func:`consumers`,
    ``source`` from :func:`source_chains`."""
    name = canonical(d, ref)
    if name is None:  # an expression of names
        reads = [canonical(d, t) for kind, t, _ in tokenize(ref) if kind == "name" and t not in FUNCTIONS]
        fn = [FUNCTIONS[t][1] for kind, t, _ in tokenize(ref) if kind == "name" and t in FUNCTIONS]
        return {"key": ref, "name": ref, "meaning": "; ".join(fn), "lines": None, "value": value30(d, ref),
                "inputs": list(dict.fromkeys(r for r in reads if r)), "consumers": [],
                "source": (source or {}).get(ref, [])}
    q = _Card(d, name, digits=DIGITS)
    node = d.definitions.nodes.get(name) if q.node is not None else None
    inputs = sorted({s.name for s in node.expr.free_symbols if s.name in d.definitions.nodes},
                    key=_order(d.definitions)) if node is not None and node.expr is not None else []
    return {"key": name, "name": q.name, "meaning": q.ref.meaning, "lines": aligned(q.lines()),
            "value": q.value(), "inputs": inputs, "consumers": uses.get(name, []) if node is not None else [],
            "source": (source or {}).get(name, [])}


def source_chains(d) -> dict:
    """{quantity: [{printed, chain, chain_value, verdict}]}: the source document's worked figures,
    from its claims file (a spec without one: empty).  The same arithmetic printed twice (as 0.454 and
    as 45.4 %) is one entry, its figures joined.

    >>> import symgpt
    >>> source_chains(symgpt.load("tiny-transformer"))["A[1,0]"]
    [{'printed': '0.454, 45.4%', 'chain': '2.175/4.789', 'verdict': 'correct', 'chain_value': '0.454'}]
    """
    path = claims_path(d.spec)
    if not path.exists():
        return {}
    out: dict = {}
    for v in judge_all(read_claims(path), d):
        if v.chain is None:
            continue
        key = canonical(d, v.ref) or v.ref
        seen = out.setdefault(key, [])
        same = next((s for s in seen if s["chain"] == v.chain), None)
        if same is not None:  # the same arithmetic printed again, elsewhere or as a percentage: shown once
            if v.printed not in same["printed"].split(", "):
                same["printed"] += ", " + v.printed
            if v.verdict == "wrong":
                same["verdict"] = "wrong"
            continue
        seen.append({"printed": v.printed, "chain": v.chain, "verdict": v.verdict,
                     "chain_value": v.chain_value or chain_figure(d, v.chain, v.printed)})
    return out


def chain_figure(d, chain: str, printed: str) -> str | None:
    """The source's own arithmetic ``chain``, done exactly, rounded as ``printed`` is (None when undecidable).

    >>> import symgpt
    >>> chain_figure(symgpt.load("tiny-transformer"), "2.175/4.789", "0.454")
    '0.454'
    """
    try:
        r = certify_rounding(bind(parse(chain, d.limits), d, d.limits), parse_printed(printed))[0]
    except (ValueError, ArithmeticError):
        return None
    return r + "%" if printed.endswith("%") and not r.endswith("%") else r
