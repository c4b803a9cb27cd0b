"""The page's controls, as exact tables computed ahead of time.

A slider does not compute: it shows one of several tables rendered with the
page, each a certified figure per token with its reference, so every number a
reader can reach is as checked as the document's own.

- temperature: ``softmax_T(T, v)`` for the spec's ``sampling.temperatures`` and
  a grid around them (T = ∞ included when the spec has it);
- top-k: ``topk(k, v)`` for every k from 1 to V (:func:`k_grid`; a large V on a 1-2-5 grid);
  top-p: ``topp(P, v)`` for the spec's P and P = 0.1 … 0.9 (P = 1 keeps every token: it is p);
- for each table, the seeded draw: the cumulative bar in token-id order, u on
  it, and the token drawn (decided by exact signs, :func:`symgpt.training.sampling.draw`);
- training: the loss, p[target] and every parameter of each SGD and AdamW state, by tensor, with its change.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> [p["label"] for p in sampling_panels(d, 4)["temperature"]][:3]
['0.25', '0.5', '0.75']
"""
from __future__ import annotations

import re
from fractions import Fraction

import sympy

from ..engine.names import param_names
from ..training import sampling
from .steps import Printer, _terminating

TEMPERATURES = ("1/4", "1/2", "3/4", "1", "3/2", "2", "3", "5")
TOP_P = tuple(f"{i}/10" for i in range(1, 10))  # not 1: Σ p = 1 exactly, which balls cannot decide


def _decimal(q) -> str:
    """An exact rational as the shortest decimal it is (the grid's are all terminating), else p/q.

    >>> _decimal(sympy.Rational(3, 4)), _decimal(sympy.Rational(1, 3)), _decimal(sympy.oo)
    ('0.75', '1/3', 'inf')
    """
    if q is sympy.oo:
        return "inf"
    f = Fraction(int(q.p), int(q.q))
    return _terminating(f) or f"{f.numerator}/{f.denominator}"


def grid(spec_values, extra) -> list:
    """The spec's values and ``extra`` (rational texts), exact, sorted, once each (∞ last).

    >>> grid([sympy.Rational(1, 2), sympy.oo], ["1", "1/2"])
    [1/2, 1, oo]
    """
    vals = set(spec_values) | {sympy.Rational(x) for x in extra}
    return sorted(vals, key=lambda v: (v is sympy.oo, v if v is not sympy.oo else 0))


EVERY_K = 64  # up to this vocabulary the top-k slider stops at every k; past it, on a 1-2-5 grid


def k_grid(V: int, k: int) -> list:
    """The top-k slider's stops: every k from 1 to V; past V = EVERY_K, 1, 2, 3, 5, 10, 20, 50 … below V,
    the spec's k and V itself.

    >>> k_grid(6, 3), k_grid(100, 7)
    ([1, 2, 3, 4, 5, 6], [1, 2, 3, 5, 7, 10, 20, 50, 100])
    """
    if V <= EVERY_K:
        return list(range(1, V + 1))
    stops = {1, 2, 3, k, V}
    step = 5
    while step < V:
        stops.add(step)
        step = step * 5 // 2 if str(step).startswith("2") else step * 2  # 5, 10, 20, 50, 100 …
    return sorted(x for x in stops if x <= V)


def _panel(d, pr: Printer, label: str, ref_of, probs, u) -> dict:
    """One table: a figure per token, and the draw of u from it."""
    V = d.spec.V
    figs = [(ref_of(v), pr.figure(ref_of(v), pr.k)) for v in range(V)]
    choice = sampling.draw(d, u, probs)
    return {"label": label, "figures": figs, "drawn": choice.id, "token": choice.token,
            "widths": [float(Fraction(f)) for _, f in figs]}


def sampling_panels(d, decimals: int) -> dict:
    """{temperature | top_k | top_p: [panel]} and the spec's own choice of each (``default``)."""
    s = d.spec.sampling
    pr = Printer(d, decimals)
    u = s.uniform
    out: dict = {"uniform": _decimal(u), "u_position": float(Fraction(int(u.p), int(u.q))), "default": {}}
    temps = grid(s.temperatures, TEMPERATURES)
    out["temperature"] = [
        _panel(d, pr, _decimal(T), lambda v, T=T: f"softmax_T({_decimal(T)}, {v})", sampling.temperature(d, T), u)
        for T in temps]
    out["default"]["temperature"] = temps.index(sympy.Integer(1)) if sympy.Integer(1) in temps else 0
    ks = k_grid(d.spec.V, s.top_k)
    out["top_k"] = [_panel(d, pr, str(k), lambda v, k=k: f"topk({k}, {v})", sampling.top_k(d, k).probs, u)
                    for k in ks]
    out["default"]["top_k"] = ks.index(s.top_k)
    ps = [P for P in grid([s.top_p], TOP_P) if P < 1]  # P = 1 keeps every token: the plain p, shown above
    out["top_p"] = [_panel(d, pr, _decimal(P), lambda v, P=P: f"topp({_decimal(P)}, {v})",
                           sampling.top_p(d, P).probs, u) for P in ps]
    out["default"]["top_p"] = ps.index(s.top_p) if s.top_p in ps else len(ps) - 1
    return out


def training_states(d, decimals: int) -> dict:
    """{sgd | adamw: [state]}: each state k's loss, p[target] and parameters as certified figures, a group
    per tensor (its layer from 1), each figure with its change from state k − 1 (``sgd[k].X - sgd[k-1].X``).

    >>> import symgpt
    >>> s = training_states(symgpt.load("bigram"), 3)["sgd"][1]
    >>> [(g["tensor"], len(g["rows"])) for g in s["groups"]], s["groups"][0]["rows"][0]["change"]
    ([('', 2), ('E', 6), ('W', 6)], 'sgd[1].loss - sgd[0].loss')
    """
    pr = Printer(d, decimals)
    groups = [("", ["loss", f"p[{d.spec.target}]"], decimals + 1)]
    for name in param_names(d.spec):
        tensor = name.split("[")[0]
        if groups[-1][0] != tensor:
            groups.append((tensor, [], decimals + 3))
        groups[-1][1].append(name)
    out = {}
    for opt in ("sgd", "adamw"):
        states = []
        for k in range(d.spec.training.steps + 1):
            gs = []
            for tensor, names, places in groups:
                rows = []
                for nm in names:
                    ref = f"{opt}[{k}].{nm}"
                    change = f"{ref} - {opt}[{k - 1}].{nm}" if k else None
                    rows.append({"ref": ref, "fig": pr.figure(ref, places), "name": nm,
                                 "change": change, "dfig": pr.figure(change, places) if change else None})
                layer = re.match(r"l(\d+)\.", tensor)
                gs.append({"tensor": re.sub(r"^l\d+\.", "", tensor), "layer": int(layer[1]) + 1 if layer else None,
                           "rows": rows})
            states.append({"k": k, "groups": gs})
        out[opt] = states
    return out
