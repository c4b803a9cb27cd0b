"""Precision forensics: what float64, float32, bfloat16 and float16 do to every named quantity, and where it starts.

``python -m symgpt.precision [SPEC …] [--formats float64,float32,bfloat16,float16] [--format table|md|json]``,
or in a notebook ``symgpt.precision.forensics(d, formats)``.

For each format the model's forward pass, every adjoint and the first SGD and AdamW updates are evaluated in real
IEEE arithmetic (:mod:`symgpt.floats.model`: numpy, ml_dtypes' bfloat16, PyTorch's CPU operation order).  Each
entry is compared with its exact value: the certified tensor evaluator (:mod:`symgpt.engine.values`) at ``PREC`` bits
for every quantity the engine names, and the same pipeline in mpmath for the rest (``logp`` and the updates).

* **error**: float − exact, in units in the last place of the format at the exact value (``ulps``) and relative;
  ``digits`` = −log10 |error/exact| (the correct significant digits; an exact match shows as the format's full
  count).  A *sign flip* is a float of the other sign (or zero) where the exact value is not zero; a *decision*
  flip is an argmax, a top-k set or an activation's on/off decision that differs from the exact one (each op
  names the tensors it decides on, :meth:`symgpt.floats.model.Pipeline.decide`).
* **birth**: a stage's *local* error is its float result minus the exact result of the same operation on the same
  float inputs; the rest of its error is *inherited*.  To see where the loss and the gradients' error is born,
  each stage's local error (and each parameter's cast) is injected alone into the exact pipeline and carried to
  every later quantity: one rounding at a time, propagated exactly (in mpmath), not linearised; to first order
  this is Σ ∂loss/∂node · local with the exact adjoints, which the tests check.  The sum over the sources is
  the error the roundings explain one by one (:meth:`Forensics.spread`); what they do together beyond that is
  of second order.

>>> import symgpt
>>> f = forensics(symgpt.load("bigram"), ["bfloat16"], births=False)
>>> f.summary("bfloat16", "loss")["digits"] > 1
True
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import mpmath
import numpy as np

from ..training.train import model_arg
from .model import FORMATS, Exact, Floats, Pipeline, check_formats, exact_params
from .model import run as evaluate

BIRTHS_UP_TO = 64
"""The birth analysis runs by default when d·T·layers is at most this (the seed: 4, under a second; d = 8,
T = 8 with 2 layers is 128 and takes half a minute)."""
PREC = 256
"""Bits of the certified evaluation the errors are measured against."""
DPS = 50
"""Digits of the mpmath pipeline (local errors and their propagation)."""
MP = mpmath.mp.clone()
MP.dps = DPS


def ulp(x, fmt: str):
    """The spacing of ``fmt``'s floats at |x| (subnormal spacing below the smallest normal).

    >>> ulp(1, "bfloat16"), ulp(1, "float32") == 2.0 ** -23, ulp(0, "float16") == 2.0 ** -24
    (mpf('0.0078125'), True, True)
    """
    _, _, bits, emin = FORMATS[fmt]
    x = MP.mpf(x)
    e = emin if x == 0 else max(MP.frexp(x)[1] - 1, emin)  # 2^e ≤ |x| < 2^(e+1)
    return MP.ldexp(MP.mpf(1), e - bits + 1)


def _mpf(x):
    """An fmpq or arb (its midpoint) as an mpmath number."""
    if hasattr(x, "mid"):
        m, e = x.mid().man_exp()
        return MP.mpf(int(m)) * MP.mpf(2) ** int(e)
    return MP.mpf(int(x.p)) / int(x.q)


class Forensics:
    """The per-format values, errors and births of one model (see the module docstring)."""

    def __init__(self, d, formats, births=True):
        self.d, self.formats = d, check_formats(formats)
        self.pipe = Pipeline(d.spec)
        self.params = exact_params(d.spec)
        self.exact = self._exact_values()
        self.floats = {f: _quiet(evaluate, self.pipe, Floats(f), self.params) for f in self.formats}
        self._local, self._summaries, self._carried = {}, {}, {}
        self.births = Births(self, self.formats) if births else {}

    # -- exact values --------------------------------------------------------------------------------------
    def _exact_values(self) -> dict:
        """Every stage exactly: the engine's certified values where it names the group, mpmath otherwise."""
        ex = Exact(MP)
        self.reference = evaluate(self.pipe, ex, self.params)   # the same pipeline in mpmath
        out = {n: ex.w(v) for n, v in self.params.items()}
        groups = self.d._net.groups
        for st in self.pipe.stages:
            if st.name in groups and st.name != "PE":
                out[st.name] = np.vectorize(_mpf, otypes=[object])(
                    np.array(self.d._ev.group(st.name, PREC), dtype=object))
            elif st.name == "PE":
                out[st.name] = self.reference[st.name]
            else:  # from the certified values of its inputs (an exactly zero gradient gives an exact update)
                with np.errstate(all="ignore"):
                    out[st.name] = np.asarray(st.fn(ex, *[out[i] for i in st.inputs]), dtype=object)
        return out

    # -- errors ----------------------------------------------------------------------------------------------
    def names(self) -> list:
        """Every quantity reported, parameters first, in evaluation order."""
        return list(self.params) + self.pipe.names

    def entries(self, fmt: str, name: str) -> list:
        """Per entry: (index, float value as a Python float, exact mpf, error in ulps, relative error)."""
        v = np.asarray(self.floats[fmt][name], dtype=np.float64)
        x = np.asarray(self.exact[name], dtype=object)
        out = []
        for idx in np.ndindex(v.shape):
            f, e = float(v[idx]), x[idx]
            if not math.isfinite(f):
                out.append((idx, f, e, mpmath.inf, mpmath.inf))
                continue
            err = MP.mpf(f) - e
            rel = abs(err) / abs(e) if e else (MP.mpf(0) if not err else mpmath.inf)
            out.append((idx, f, e, err / ulp(e, fmt), rel))
        return out

    def summary(self, fmt: str, name: str) -> dict:
        """One quantity in one format: largest |ulps|, largest and median relative error, fewest correct digits,
        sign flips, decision flips."""
        if (fmt, name) not in self._summaries:
            self._summaries[fmt, name] = self._summary(fmt, name)
        return dict(self._summaries[fmt, name])

    def _summary(self, fmt: str, name: str) -> dict:
        es = self.entries(fmt, name)
        full = FORMATS[fmt][2] * math.log10(2)
        rels = [r for *_, r in es]
        worst = max(rels, default=MP.mpf(0))
        digits = full if worst == 0 else (0.0 if worst == mpmath.inf else
                                          max(0.0, min(full, -float(MP.log10(worst)))))
        flips = sum(1 for _, f, e, *_ in es if e and (f == 0 or (f > 0) != (e > 0)))
        return {"ulps": float(max((abs(u) for _, _, _, u, _ in es), default=0)),
                "rel": float(worst), "median_rel": float(sorted(rels)[len(rels) // 2]) if rels else 0.0,
                "digits": digits, "sign_flips": flips, "decisions": self.decisions(fmt, name),
                "nonfinite": sum(1 for _, f, *_ in es if not math.isfinite(f)), "size": len(es)}

    def decisions(self, fmt: str, name: str) -> list:
        """The decisions of ``name`` the format changes, as its op declared them (``pipe.decisions``): argmax and
        top-k (p and the logits), the argmax of each causal row (attention weights), each entry's on/off (an
        activation's input)."""
        kind, label = self.pipe.decisions.get(name, (None, ""))
        v, x = np.asarray(self.floats[fmt][name], dtype=np.float64), np.asarray(self.exact[name], dtype=object)
        out = []
        if kind == "top":
            k = getattr(getattr(self.d.spec, "sampling", None), "top_k", min(3, v.size))
            order = sorted(range(v.size), key=lambda i: -x[i])
            if int(np.argmax(v)) != order[0]:
                out.append(f"argmax {order[0]} → {int(np.argmax(v))}")
            if set(np.argsort(-v, kind="stable")[:k].tolist()) != set(order[:k]):
                out.append(f"top-{k} set")
        elif kind == "causal":
            rows = v.reshape(-1, v.shape[-1]), x.reshape(-1, x.shape[-1])
            T = v.shape[-1]
            for r, (fr, xr) in enumerate(zip(*rows)):
                t = r % T
                xs = list(xr[:t + 1])
                if t and int(np.argmax(fr[:t + 1])) != xs.index(max(xs)):
                    out.append(f"argmax of row {r}")
        elif kind == "sign":
            n = sum(1 for idx in np.ndindex(v.shape) if (v[idx] > 0) != (x[idx] > 0))
            if n:
                out.append(f"{n} {label} {'decision' if n == 1 else 'decisions'}")
        return out

    # -- where the error is born -------------------------------------------------------------------------------
    def local(self, fmt: str) -> dict:
        """Each stage's own rounding: float result − exact result on the same float inputs (mpf arrays);
        for a parameter, its cast.  None where an input is not finite."""
        if fmt not in self._local:
            self._local[fmt] = _quiet(self._local_errors, fmt)
        return self._local[fmt]

    def _local_errors(self, fmt: str) -> dict:
        ex, fl = Exact(MP), self.floats[fmt]
        out = {n: ex.w(fl[n]) - self.exact[n] for n in self.params}
        for st in self.pipe.stages:
            ins = [fl[i] for i in st.inputs]
            if not all(np.all(np.isfinite(np.asarray(a, dtype=np.float64))) for a in ins) or \
                    not np.all(np.isfinite(np.asarray(fl[st.name], dtype=np.float64))):
                out[st.name] = None
                continue
            out[st.name] = ex.w(fl[st.name]) - st.fn(ex, *(ex.w(a) for a in ins))
        return out

    def carried(self, fmt: str, within: frozenset | None = None) -> dict:
        """The births of ``fmt`` (see :class:`Births`), computed once; ``within``: only the sources and stages of
        that set of names (closed under inputs), which :meth:`born` asks for the loss and the gradients."""
        if (fmt, None) in self._carried:
            return self._carried[fmt, None]
        if (fmt, within) not in self._carried:
            self._carried[fmt, within] = _quiet(self._births, fmt, within)
        return self._carried[fmt, within]

    def _births(self, fmt: str, within: frozenset | None) -> dict:
        """{source: {quantity: Δ}}: each source's local error carried alone through the exact pipeline."""
        ex, loc = Exact(MP), self.local(fmt)
        deps = _dependants(self.pipe)
        births = {}
        for src, delta in loc.items():
            if within is not None and src not in within:
                continue
            if delta is None or not any(v != 0 for v in np.ravel(delta)):
                births[src] = {} if delta is not None else None
                continue
            vals = dict(self.reference)
            vals.update({n: ex.w(v) for n, v in self.params.items() if n not in vals})
            vals[src] = self.reference[src] + delta
            later = deps[src] if within is None else deps[src] & within
            for st in self.pipe.stages:
                if st.name in later:
                    vals[st.name] = st.fn(ex, *(vals[i] for i in st.inputs))
            births[src] = {n: vals[n] - self.reference[n] for n in later | {src}}
        return births

    def born(self, fmt: str, target: str | list) -> list:
        """(source, share, Δ) of the error of ``target`` (a quantity, or several: their relative error norm),
        largest share first; share = |Δ_source| / Σ |Δ|."""
        targets = [target] if isinstance(target, str) else target
        needed = _inputs_of(self.pipe, ["loss", *self.pipe.grads])   # the first updates are not carried for these
        scores = {}
        for src, b in self.carried(fmt, needed if set(targets) <= needed else None).items():
            if not b:
                continue
            s = MP.mpf(0)
            for t in targets:
                if t in b:
                    ref = math.sqrt(sum(float(v) ** 2 for v in np.ravel(self.exact[t]))) or 1.0
                    s += MP.sqrt(sum(abs(v) ** 2 for v in np.ravel(b[t]))) / ref
            if s:
                scores[src] = s
        total = sum(scores.values()) or 1
        return sorted(((k, float(v / total), float(v)) for k, v in scores.items()), key=lambda r: -r[1])

    def spread(self, fmt: str, name: str) -> np.ndarray:
        """Σ over every source of |its local error carried to ``name``|, entry by entry (mpf array): the size of
        error the roundings of this format explain one at a time (their interactions left out)."""
        out = np.zeros(np.shape(self.exact[name]), dtype=object) + MP.mpf(0)
        for b in self.births[fmt].values():
            if b and name in b:
                out = out + np.vectorize(abs, otypes=[object])(b[name])
        return np.asarray(out, dtype=object)

    def local_share(self, fmt: str, name: str) -> float | None:
        """‖local error‖ / (‖local‖ + ‖inherited‖) of one quantity: how much of its error it makes itself, the
        rest coming in with its inputs (a parameter's error is all its own cast; None for a quantity without a
        local error)."""
        loc = self.local(fmt).get(name)
        if loc is None:
            return None
        err = Exact(MP).w(self.floats[fmt][name]) - self.exact[name]
        a = float(MP.sqrt(sum(abs(v) ** 2 for v in np.ravel(loc))))
        b = float(MP.sqrt(sum(abs(v) ** 2 for v in np.ravel(err - loc))))
        return a / (a + b) if a + b else 0.0

    # -- reports -------------------------------------------------------------------------------------------------
    def headline(self) -> list:
        """The document's quantities: loss, p[target], the largest and smallest |gradient| entries, first updates."""
        s, rows = self.d.spec, []
        rows.append(("loss", "loss", ()))
        rows.append((f"p[{s.vocab[s.target]}]", "p", (s.target,)))
        grads = [(abs(e), g, idx) for g in self.pipe.grads for idx, e in np.ndenumerate(self.exact[g]) if e != 0]
        if grads:
            big, small = max(grads, key=lambda r: r[0]), min(grads, key=lambda r: r[0])
            rows.append((_node(big[1], big[2]), big[1], big[2]))
            rows.append((_node(small[1], small[2]), small[1], small[2]))
            for opt in ("sgd[1].", "adamw[1].") if self.pipe.trained else ():
                g = small[1][len("grad_"):]
                if opt + g in self.exact:
                    rows.append((_node(opt + g, small[2]), opt + g, small[2]))
        return rows

    def param_digits(self) -> dict:
        """{grad group: {format: fewest correct digits over its nonzero entries}} (the documents' saturated-norm
        story)."""
        return {g: {f: self.summary(f, g)["digits"] for f in self.formats} for g in self.pipe.grads}

    def to_json(self) -> dict:
        out = {"spec": self.d.spec.name, "formats": self.formats, "notes": self.pipe.notes, "quantities": {}}
        for n in self.names():
            out["quantities"][n] = {f: dict(self.summary(f, n), own_share=self.local_share(f, n), values=[
                {"index": list(idx), "float": fv, "exact": MP.nstr(e, 20), "ulps": float(u), "rel": float(r)}
                for idx, fv, e, u, r in self.entries(f, n)]) for f in self.formats}
        if self.births:
            out["born"] = {f: {"loss": self.born(f, "loss")[:8], "gradients": self.born(f, self.pipe.grads)[:8]}
                           for f in self.formats}
        return _strict(out)

    def table(self, markdown=False, entries=False) -> str:
        """The per-tensor table (digits, largest |ulps|, flips), the headline values and where the error is born;
        with ``entries``, every entry's value and error in every format."""
        fm = self.formats
        lines = [f"# {self.d.spec.name}: precision forensics ({', '.join(fm)})", ""]
        head = ["quantity"] + [f"{f} digits / max ulps / own" for f in fm] + ["flips"]
        rows = []
        for n in self.names():
            ss = {f: self.summary(f, n) for f in fm}
            flips = "; ".join(f"{f}: " + ", ".join(
                ([f"{s['sign_flips']} sign"] if s["sign_flips"] else []) + s["decisions"] +
                ([f"{s['nonfinite']} inf/nan"] if s["nonfinite"] else [])) for f, s in ss.items()
                if s["sign_flips"] or s["decisions"] or s["nonfinite"])
            rows.append([n] + [f"{s['digits']:.1f} / {_ulps(s['ulps'])} / {_share(self.local_share(f, n))}"
                               for f, s in ss.items()] + [flips])
        lines += _grid(head, rows, markdown)
        lines += ["", "headline values:"]
        for label, g, idx in self.headline():
            vals = [f"{label}: exact {MP.nstr(self.exact[g][idx], 12)}"]
            for f in fm:
                fv = float(np.asarray(self.floats[f][g], dtype=np.float64)[idx])
                vals.append(f"{f} {fv!r}")  # the float itself (the shortest decimal that names it)
            lines.append("  " + ", ".join(vals))
        if self.births:
            for f in fm:
                for what, t in (("loss", "loss"), ("gradients", self.pipe.grads)):
                    top = self.born(f, t)[:4]
                    lines.append(f"{f}: {what} error born at " + (", ".join(
                        f"{n} {100 * s:.0f}%" for n, s, _ in top) or "nowhere (no error)"))
        lines += [f"note: {n}" for n in self.pipe.notes]
        if entries:
            lines += ["", "every entry (float − exact in units in the last place, and relative):"]
            head = ["node", "exact"] + [f"{f} value / ulps / rel" for f in fm]
            rows = []
            for n in self.names():
                per = [self.entries(f, n) for f in fm]
                for k, (idx, _, e, _, _) in enumerate(per[0]):
                    rows.append([_node(n, idx), MP.nstr(e, 17)] + [
                        f"{fe[k][1]!r} / {_ulps(abs(float(fe[k][3])))} / {float(fe[k][4]):.1e}" for fe in per])
            lines += _grid(head, rows, markdown)
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        """A notebook shows the Markdown table."""
        return self.table(markdown=True)


def _share(x) -> str:
    """A quantity's own share of its error, in per cent ("-" for a parameter's cast or no error at all).

    >>> _share(0.25), _share(None)
    ('25%', '-')
    """
    return "-" if x is None else f"{100 * x:.0f}%"


def _strict(x):
    """JSON without NaN or Infinity: a float that is not finite becomes the string "nan", "inf" or "-inf".

    >>> _strict({"a": [float("nan"), (1.5, float("-inf"))]})
    {'a': ['nan', [1.5, '-inf']]}
    """
    if isinstance(x, dict):
        return {k: _strict(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_strict(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _grid(head, rows, markdown) -> list:
    if markdown:
        return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
               ["| " + " | ".join(r) + " |" for r in rows]
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    return ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in [head] + rows]


def _ulps(u: float) -> str:
    return "inf" if not math.isfinite(u) else (f"{u:.3g}" if u < 1e6 else f"{u:.1e}")


def _node(group: str, idx: tuple) -> str:
    return f"{group}[{','.join(map(str, idx))}]" if idx else group


def _quiet(f, *a):
    with np.errstate(all="ignore"):
        return f(*a)


class Births(Mapping):
    """{format: {source: {quantity: Δ}}}, each format's births carried through the whole pipeline when first read
    (:meth:`Forensics.born` of the loss and the gradients carries them only as far as those)."""

    def __init__(self, f: Forensics, formats: list):
        self.f, self.formats = f, formats

    def __getitem__(self, fmt: str) -> dict:
        if fmt not in self.formats:
            raise KeyError(fmt)
        return self.f.carried(fmt)

    def __iter__(self):
        return iter(self.formats)

    def __len__(self) -> int:
        return len(self.formats)


def _inputs_of(pipe: Pipeline, names) -> frozenset:
    """The names and every stage or parameter they are computed from.

    >>> import symgpt
    >>> sorted(_inputs_of(Pipeline(symgpt.load("bigram").spec), ["z"]))   # z = x·W, x the input's row of E
    ['E', 'W', 'x', 'z']
    """
    inputs = {st.name: st.inputs for st in pipe.stages}
    out, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in out:
            out.add(n)
            todo.extend(inputs.get(n, ()))
    return frozenset(out)


def _dependants(pipe: Pipeline) -> dict:
    """{name: every later stage that reads it, directly or not}."""
    later = {n: set() for n in list(pipe.params) + pipe.names}
    for st in reversed(pipe.stages):
        for i in st.inputs:
            later[i] |= {st.name} | later[st.name]
    return later


def forensics(d, formats=None, births=True) -> Forensics:
    """Evaluate a loaded derivation in each format (default: all four) and compare with the exact values.

    >>> import symgpt
    >>> f = forensics(symgpt.load("tiny-transformer"), ["float32"])
    >>> f.born("float32", "loss")[0][0] in f.names()
    True
    """
    model_arg(d)
    return _quiet(Forensics, d, list(FORMATS) if formats is None else formats, births)
