"""Precision forensics: what float64, float32, bfloat16 and float16 do to every named quantity, and where it starts.

``python -m symgpt.precision [SPEC …] [--formats float64,float32,bfloat16,float16] [--format table|md|json]``,
or in a notebook ``symgpt.precision.forensics(d, formats)``.

For each format the model's forward pass, every adjoint and the first SGD and AdamW updates are evaluated in real
IEEE arithmetic (:mod:`symgpt.floats.model`: numpy, PyTorch's CPU operation order).  Each entry is compared with
its exact value, certified to 2^−(the format's bits + ``MARGIN``): from the double-word ball tier
(:mod:`symgpt.floats.balls`, one pass at a few float passes' cost) wherever its ball is that narrow, else from the
certified tensor evaluator (:mod:`symgpt.engine.values`) at ``PREC`` bits for a quantity the engine names, else
recomputed from its inputs' exact values (``logp``, the updates).

* **error**: float − exact, in units in the last place of the format at the exact value (``ulps``) and relative;
  ``digits`` = −log10 |error/exact| (the correct significant digits; an exact match shows as the format's full
  count).  A *sign flip* is a float of the other sign (or zero) where the exact value is not zero; a *decision*
  flip is an argmax, a top-k set or an activation's on/off decision that differs from the exact one (each op
  names the tensors it decides on, :meth:`symgpt.floats.model.Pipeline.decide`).
* **birth**: a stage's *local* error is its float result minus the exact result of the same operation on the same
  float inputs (that one stage in double-word balls); the rest of its error is *inherited*.  To see where the loss
  and the gradients' error is born, each stage's local error (and each parameter's cast) is injected alone into
  the exact pipeline and carried to every later quantity: one rounding at a time, carried by difference formulas
  (:mod:`symgpt.floats.delta`: about 15 digits of each change, however small), not linearised; to first order
  this is Σ ∂loss/∂node · local with the exact adjoints, which the tests check.  The sum over the sources is
  the error the roundings explain one by one (:meth:`Forensics.spread`); what they do together beyond that is
  of second order.

>>> import symgpt
>>> f = forensics(symgpt.load("bigram"), ["bfloat16"], births=False)
>>> f.summary("bfloat16", "loss")["digits"] > 1
True
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import mpmath
import numpy as np
from flint import arb, ctx

from ..core.dwball import DWBall
from ..training.train import model_arg
from . import balls
from .delta import Delta, Deltas
from .model import FORMATS, Exact, Floats, Pipeline, check_formats, exact_params, fraction
from .model import run as evaluate

BIRTHS_UP_TO = 16384
"""The birth analysis runs by default when d·T·layers is at most this (the nanoGPT shape, d = 64, T = 64 with 4
layers, is 16,384: about half a minute for all four formats; ``benchmarks/bench_precision.py``)."""
PREC = 256
"""Bits of the arb evaluation a quantity's exact value comes from where the double-word tier's ball is too wide."""
MARGIN = 12
"""The exact values are certified to 2^−(format bits + MARGIN) of each entry, relative: an error in units in the
last place is then good to about three digits."""
DPS = 50
"""Digits of mpmath where a stage is beyond the ball tiers (a float64 reference's last resort)."""
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


def ulps_at(ref: DWBall, fmt: str) -> np.ndarray:
    """:func:`ulp` of each exact value hi + lo of a double-word ball, vectorised (float64; a power of two as hi
    with lo of the other sign, the whole ball below it, is one binade down).

    >>> float(ulps_at(DWBall([1.0, 1.0, 0.0], [0.0, -2.0 ** -60, 0.0]), "bfloat16")[1]) == 2.0 ** -8
    True
    """
    _, _, bits, emin = FORMATS[fmt]
    f, e = np.frexp(ref.hi)
    e = e - 1 - ((np.abs(f) == 0.5) & (ref.lo * ref.hi < 0) & (np.abs(ref.lo) > ref.r))   # (the whole ball below)
    e = np.where(ref.hi == 0, emin, np.maximum(e, emin))
    return np.ldexp(1.0, e - bits + 1)


def _dw_of(values) -> DWBall:
    """A double-word ball around each arb or exact rational (fmpq) of nested lists."""
    arr = np.asarray(values, dtype=object)
    with ctx.workprec(PREC):
        return DWBall.from_arb(np.vectorize(lambda v: v if isinstance(v, arb) else arb(v), otypes=[object])(arr)
                               if arr.size else arr)


def _adequate(b: DWBall, bits: int) -> np.ndarray:
    """Whether each entry's ball is within 2^−bits of its value, relative (an exact ball always is)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return (b.r == 0) | (np.isfinite(b.hi) & (b.r <= np.ldexp(np.abs(b.hi), -bits)))


class Forensics:
    """The per-format values, errors and births of one model (see the module docstring)."""

    def __init__(self, d, formats, births=True):
        self.d, self.formats = d, check_formats(formats)
        self.pipe = Pipeline(d.spec)
        self.params = exact_params(d.spec)
        self.refs = self._references()
        self.exact = {n: b.hi for n, b in self.refs.items()}
        self.floats = {f: _quiet(evaluate, self.pipe, Floats(f), self.params) for f in self.formats}
        self._local, self._summaries, self._carried, self._spread = {}, {}, {}, {}
        self.births = Births(self, self.formats) if births else {}

    # -- exact values --------------------------------------------------------------------------------------
    def _references(self) -> dict:
        """Every quantity's exact value as a double-word ball within 2^−(bits + MARGIN) of it: from the
        double-word tier (:func:`symgpt.floats.balls.values`) where its ball is that narrow; else a quantity the
        engine names from arb at PREC bits, any other recomputed from its inputs' references (in double words,
        and in mpmath if even that is too wide)."""
        bits = max(FORMATS[f][2] for f in self.formats) + MARGIN
        try:
            tier = _quiet(balls.values, self.d.spec, self.d._ev.sign, True, None, 2)
        except (balls.Unsupported, balls.Undecided, OverflowError, ZeroDivisionError, FloatingPointError):
            tier = {}
        refs = {n: tier[n] if n in tier and _adequate(tier[n], bits).all() else
                DWBall.of(np.array(v, dtype=object)) for n, v in self.params.items()}
        groups = self.d._net.groups
        for st in self.pipe.stages:
            b = tier.get(st.name)
            if b is None or not _adequate(b, bits).all():
                if st.name in groups and st.name != "PE":
                    b = _dw_of(self.d._ev.group(st.name, PREC))
                else:
                    b = self._recomputed(st, refs, bits)
            refs[st.name] = b
        return refs

    def _recomputed(self, st, refs: dict, bits: int) -> DWBall:
        """One stage from its inputs' exact references: in double-word balls, or where those are too wide or
        cannot run it, in mpmath."""
        try:
            with ctx.workprec(PREC):
                b = _quiet(st.fn, balls.DWBalls(), *(refs[i] for i in st.inputs))
            if isinstance(b, DWBall) and _adequate(b, bits).all():
                return b
        except (balls.Unsupported, balls.Undecided, TypeError, AttributeError):
            pass
        ex = Exact(MP)
        ins = [_mpfs(refs[i]) for i in st.inputs]
        out = np.asarray(_quiet(st.fn, ex, *ins), dtype=object)
        return DWBall.of(np.vectorize(fraction, otypes=[object])(out) if out.size else np.zeros(out.shape))

    def exact_mpf(self, name: str) -> np.ndarray:
        """A quantity's exact values as mpf (hi + lo of its reference, to about 32 digits; see :data:`MARGIN`)."""
        return _mpfs(self.refs[name])

    # -- errors ----------------------------------------------------------------------------------------------
    def errors(self, fmt: str, name: str) -> tuple:
        """(float values, float − exact, the same in units in the last place of ``fmt`` at the exact value, and
        relative to it), float64 arrays; ∞ where the float is not finite, a relative error of an exact 0 is ∞
        unless the float is 0 too."""
        ref = self.refs[name]
        v = np.asarray(self.floats[fmt][name], dtype=np.float64)
        with np.errstate(all="ignore"):
            err = (v - ref.hi) - ref.lo
            finite = np.isfinite(v)
            err = np.where(finite, err, np.inf)
            ulps = err / ulps_at(ref, fmt)
            rel = np.where(ref.hi != 0, np.abs(err) / np.abs(ref.hi), np.where(err == 0, 0.0, np.inf))
        return v, err, ulps, np.where(finite, rel, np.inf)

    def names(self) -> list:
        """Every quantity reported, parameters first, in evaluation order."""
        return list(self.params) + self.pipe.names

    def entries(self, fmt: str, name: str) -> list:
        """Per entry: (index, float value as a Python float, exact mpf, error in ulps, relative error)."""
        v, _, ulps, rel = self.errors(fmt, name)
        x = self.exact_mpf(name)
        return [(idx, float(v[idx]), x[idx], float(ulps[idx]) if np.isfinite(v[idx]) else mpmath.inf,
                 float(rel[idx]) if np.isfinite(rel[idx]) else mpmath.inf) for idx in np.ndindex(v.shape)]

    def summary(self, fmt: str, name: str) -> dict:
        """One quantity in one format: largest |ulps|, largest and median relative error, fewest correct digits,
        sign flips, decision flips."""
        if (fmt, name) not in self._summaries:
            self._summaries[fmt, name] = self._summary(fmt, name)
        return dict(self._summaries[fmt, name])

    def _summary(self, fmt: str, name: str) -> dict:
        v, _, ulps, rel = self.errors(fmt, name)
        x = self.refs[name].hi
        full = FORMATS[fmt][2] * math.log10(2)
        worst = float(rel.max()) if rel.size else 0.0
        digits = full if worst == 0 else (0.0 if worst == math.inf else max(0.0, min(full, -math.log10(worst))))
        flips = int(np.sum((x != 0) & ((v == 0) | ((v > 0) != (x > 0)))))     # (a NaN keeps no sign either)
        return {"ulps": float(np.abs(ulps).max()) if ulps.size else 0.0,
                "rel": worst, "median_rel": float(np.sort(rel.ravel())[rel.size // 2]) if rel.size else 0.0,
                "digits": digits, "sign_flips": flips, "decisions": self.decisions(fmt, name),
                "nonfinite": int(np.sum(~np.isfinite(v))), "size": int(v.size)}

    def decisions(self, fmt: str, name: str) -> list:
        """The decisions of ``name`` the format changes, as its op declared them (``pipe.decisions``): argmax and
        top-k (p and the logits), the argmax of each causal row (attention weights), each entry's on/off (an
        activation's input)."""
        kind, label = self.pipe.decisions.get(name, (None, ""))
        v = np.asarray(self.floats[fmt][name], dtype=np.float64)
        ref = self.refs[name]
        out = []
        if kind == "top":
            k = getattr(getattr(self.d.spec, "sampling", None), "top_k", min(3, v.size))
            order = np.lexsort((-ref.lo.ravel(), -ref.hi.ravel()))       # largest exact value first
            if int(np.argmax(v)) != order[0]:
                out.append(f"argmax {order[0]} → {int(np.argmax(v))}")
            if set(np.argsort(-v, kind="stable")[:k].tolist()) != set(order[:k].tolist()):
                out.append(f"top-{k} set")
        elif kind == "causal":
            T = v.shape[-1]
            fr, hr, lr = (a.reshape(-1, T) for a in (v, ref.hi, ref.lo))
            for r in range(len(fr)):
                t = r % T
                if t and int(np.argmax(fr[r, :t + 1])) != int(np.lexsort((-lr[r, :t + 1], -hr[r, :t + 1]))[0]):
                    out.append(f"argmax of row {r}")
        elif kind == "sign":
            n = int(np.sum((v > 0) != (ref.hi > 0)))
            if n:
                out.append(f"{n} {label} {'decision' if n == 1 else 'decisions'}")
        return out

    # -- where the error is born -------------------------------------------------------------------------------
    def local(self, fmt: str) -> dict:
        """Each stage's own rounding: float result − exact result on the same float inputs (float64 arrays);
        for a parameter, its cast.  None where an input is not finite."""
        if fmt not in self._local:
            self._local[fmt] = _quiet(self._local_errors, fmt)
        return self._local[fmt]

    def _local_errors(self, fmt: str) -> dict:
        """The exact result of each stage on the float inputs in double-word balls (one stage from exact floats:
        far narrower than the format's rounding), or in mpmath where the balls cannot run it or their ball is
        not that narrow.  A difference within the ball's radius is no rounding at all (0)."""
        fl = self.floats[fmt]
        out = {n: self.errors(fmt, n)[1] for n in self.params}
        ar = balls.DWBalls()
        bits = FORMATS[fmt][2] + MARGIN
        for st in self.pipe.stages:
            ins = [np.asarray(fl[i], dtype=np.float64) for i in st.inputs]
            res = np.asarray(fl[st.name], dtype=np.float64)
            if not all(np.all(np.isfinite(a)) for a in ins) or not np.all(np.isfinite(res)):
                out[st.name] = None
                continue
            try:
                with ctx.workprec(PREC):
                    b = st.fn(ar, *(DWBall(a) for a in ins))
                if isinstance(b, DWBall) and b.shape == res.shape and \
                        np.all((b.r == 0) | (b.r <= np.ldexp(np.maximum(np.abs(res), np.abs(b.hi)), -bits))):
                    loc = (res - b.hi) - b.lo
                    out[st.name] = np.where(np.abs(loc) <= b.r, 0.0, loc)
                    continue
            except (balls.Unsupported, balls.Undecided, TypeError, AttributeError):
                pass
            ex = Exact(MP)
            exact = np.asarray(st.fn(ex, *(ex.w(fl[i]) for i in st.inputs)), dtype=object)
            out[st.name] = np.asarray(ex.w(fl[st.name]) - exact, dtype=object).astype(np.float64)
        return out

    def carry(self, fmt: str, src: str) -> dict | None:
        """{quantity: Δ}: the local error of ``src`` alone (a stage's rounding, a parameter's cast) carried through
        the exact pipeline to every later quantity (float64 arrays, :mod:`symgpt.floats.delta`); {} when it
        made no error, None when it has none (an input was not finite)."""
        delta = self.local(fmt)[src]
        if delta is None or not np.any(delta != 0):
            return {} if delta is not None else None
        later = self._later[src]
        vals = dict(self._bases)
        vals[src] = Delta(vals[src].v, delta)
        ar = Deltas()
        with np.errstate(all="ignore"):
            for st in self.pipe.stages:
                if st.name in later:    # the change from the stage's own exact value: its base does not drift
                    vals[st.name] = Delta(self._bases[st.name].v, st.fn(ar, *(vals[i] for i in st.inputs)).d)
        return {n: vals[n].d for n in later | {src}}

    @functools.cached_property
    def _bases(self) -> dict:
        """Every quantity unperturbed (its exact value rounded), where a carried local error starts from."""
        return {n: Delta(b.hi) for n, b in self.refs.items()}

    @functools.cached_property
    def _later(self) -> dict:
        return _dependants(self.pipe)

    def carried(self, fmt: str) -> dict:
        """{source: {quantity: ‖Δ‖₂}} of every source of ``fmt`` (None for a source without a local error),
        and Σ|Δ| of each quantity over the sources (:meth:`spread`), computed once in one pass."""
        if fmt not in self._carried:
            norms, spread = {}, {}
            for src in self.local(fmt):
                b = self.carry(fmt, src)
                norms[src] = None if b is None else {n: float(np.sqrt(np.sum(v * v))) for n, v in b.items()}
                for n, v in (b or {}).items():
                    spread[n] = spread.get(n, 0.0) + np.abs(v)
            self._carried[fmt], self._spread[fmt] = norms, spread
        return self._carried[fmt]

    def born(self, fmt: str, target: str | list) -> list:
        """(source, share, Δ) of the error of ``target`` (a quantity, or several: their relative error norm),
        largest share first; share = |Δ_source| / Σ |Δ|."""
        targets = [target] if isinstance(target, str) else target
        refs = {t: float(np.sqrt(np.sum(self.refs[t].hi ** 2))) or 1.0 for t in targets}
        scores = {}
        for src, b in self.carried(fmt).items():
            s = sum(b[t] / refs[t] for t in targets if t in b) if b else 0.0
            if s:
                scores[src] = s
        total = sum(scores.values()) or 1
        return sorted(((k, v / total, v) for k, v in scores.items()), key=lambda r: -r[1])

    def spread(self, fmt: str, name: str) -> np.ndarray:
        """Σ over every source of |its local error carried to ``name``|, entry by entry (float64): the size of
        error the roundings of this format explain one at a time (their interactions left out)."""
        self.carried(fmt)
        return np.broadcast_to(self._spread[fmt].get(name, 0.0), np.shape(self.exact[name])).copy()

    def local_share(self, fmt: str, name: str) -> float | None:
        """‖local error‖ / (‖local‖ + ‖inherited‖) of one quantity: how much of its error it makes itself, the
        rest coming in with its inputs (a parameter's error is all its own cast; None for a quantity without a
        local error)."""
        loc = self.local(fmt).get(name)
        if loc is None:
            return None
        err = self.errors(fmt, name)[1]
        a = float(np.sqrt(np.sum(loc * loc)))
        b = float(np.sqrt(np.sum((err - loc) ** 2)))
        return a / (a + b) if a + b else 0.0

    # -- reports -------------------------------------------------------------------------------------------------
    def headline(self) -> list:
        """The document's quantities: loss, p[target], the largest and smallest |gradient| entries, first updates."""
        s, rows = self.d.spec, []
        rows.append(("loss", "loss", ()))
        rows.append((f"p[{s.vocab[s.target]}]", "p", (s.target,)))
        grads = []
        for g in self.pipe.grads:       # each gradient's largest and smallest nonzero |entry|
            a = np.abs(self.exact[g])
            if np.any(a != 0):
                grads.append((float(a.max()), g, np.unravel_index(int(np.argmax(a)), a.shape)))
                i = int(np.argmin(np.where(a != 0, a, np.inf)))
                grads.append((float(a.ravel()[i]), g, np.unravel_index(i, a.shape)))
        grads = [(v, g, tuple(int(i) for i in idx)) for v, g, idx in grads]
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
            vals = [f"{label}: exact {MP.nstr(self.exact_mpf(g)[idx], 12)}"]
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
    """{format: {source: {quantity: Δ}}}: each source's local error carried alone (:meth:`Forensics.carry`),
    computed when read and not kept (a model of real size has hundreds of sources, each reaching every later
    tensor); the norms :meth:`Forensics.born` needs are kept by :meth:`Forensics.carried`."""

    def __init__(self, f: Forensics, formats: list):
        self.f, self.formats = f, formats

    def __getitem__(self, fmt: str) -> Mapping:
        if fmt not in self.formats:
            raise KeyError(fmt)
        return _Sources(self.f, fmt)

    def __iter__(self):
        return iter(self.formats)

    def __len__(self) -> int:
        return len(self.formats)


class _Sources(Mapping):
    """{source: {quantity: Δ}} of one format, each carried when read."""

    def __init__(self, f: Forensics, fmt: str):
        self.f, self.fmt = f, fmt

    def __getitem__(self, src: str):
        if src not in self.f.local(self.fmt):
            raise KeyError(src)
        return self.f.carry(self.fmt, src)

    def __iter__(self):
        return iter(self.f.local(self.fmt))

    def __len__(self) -> int:
        return len(self.f.local(self.fmt))


def _mpfs(b: DWBall) -> np.ndarray:
    """hi + lo of each entry as an mpf (exact: two floats' sum at 50 digits is exact unless they are 2⁵⁰ apart
    in scale and more; then within 10⁻⁵⁰ relative)."""
    return np.vectorize(lambda h, lo: MP.mpf(float(h)) + MP.mpf(float(lo)), otypes=[object])(b.hi, b.lo) \
        if b.size else np.zeros(b.shape, dtype=object)


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
