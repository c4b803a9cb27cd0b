"""The documents' last section: the same numbers in float64, float32, bfloat16 and float16 (:mod:`symgpt.precision`).

Exact values are certified figures of the document (claims); a float is an exact rational, printed exactly when a
short decimal is its value and with ≈ otherwise; digit counts and shares are exact statements about those floats.
The error along the pipeline is a table (correct digits per tensor and format) and the same as a picture
(:func:`symgpt.documents.precision.picture`).

>>> import symgpt
>>> from symgpt.documents.blocks import Numbers
>>> d = symgpt.load("bigram")
>>> sec = section(d, Numbers(d, 4))
>>> sec["id"], [s["kind"] for s in sec["steps"]][:3]
('precision', ['text', 'table', 'table'])
"""
from __future__ import annotations

import math as pymath
import re
import weakref
from fractions import Fraction

import numpy as np

from ..core.ahead import Ahead, available
from ..floats.forensics import BIRTHS_UP_TO, forensics
from ..floats.model import Floats, Pipeline, run
from . import figures
from .blocks import Numbers, code, figure, math, num, table, tex, text, tok, word
from .names_tex import group_tex, name_tex

SIG = 5
"""Significant digits of a float printed with ≈."""
YMAX = 16
"""The top of the chart's digit axis."""
FORMAT_DIGITS = {"float64": 15, "float32": 7, "bfloat16": 2, "float16": 3}
"""The decimal digits each format carries (floor of bits·log10 2): a count at the cap means every digit is right."""


def tex_float(x: float, sig: int = SIG) -> str:
    """A float as LaTeX: its exact value when ``sig`` + 2 digits hold it, else ≈ its rounding to ``sig`` digits.

    >>> tex_float(2.46875), tex_float(0.1), tex_float(1.03467e-11), tex_float(float("nan"))
    ('2.46875', '\\\\approx 0.1', '\\\\approx 1.0347 \\\\times 10^{-11}', '\\\\mathrm{NaN}')
    """
    if pymath.isnan(x):
        return r"\mathrm{NaN}"
    if pymath.isinf(x):
        return ("-" if x < 0 else "") + r"\infty"
    exact = next((f"{x:.{k}g}" for k in range(1, sig + 3) if Fraction(f"{x:.{k}g}") == Fraction(x)), None)
    s = exact or f"{x:.{sig}g}"
    mant, _, exp = s.partition("e")
    body = mant + (rf" \times 10^{{{int(exp)}}}" if exp else "")
    return body if exact else r"\approx " + body


def digits(f, fmt: str, name: str) -> int:
    """Fewest correct significant digits over a tensor's entries, at most the format's own count."""
    return max(0, min(FORMAT_DIGITS[fmt], int(pymath.floor(f.summary(fmt, name)["digits"] + 1e-9))))


def pipeline_rows(f) -> list:
    """The tensors of the error table, in evaluation order: activations, adjoints, parameter gradients, and the
    first updates of the parameter with the smallest gradient."""
    skip = {"X", "PE", "logp", "grad_E_head"}
    names = [n for n in f.pipe.names if n not in skip and "[1]." not in n]
    small = f.headline()[3][1][len("grad_"):] if len(f.headline()) > 3 else None
    return names + [f"{opt}[1].{small}" for opt in ("sgd", "adamw") if f"{opt}[1].{small}" in f.exact]


_AHEAD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""{derivation: {decimals: Ahead}}: sections being computed beside the rest of their document (:func:`start`)."""


def start(d, k: int) -> None:
    """Begin the section of ``d`` at ``k`` decimals in a forked process (:class:`symgpt.core.ahead.Ahead`),
    for :func:`section` to take when the document reaches it; without a second processor, nothing.

    >>> import symgpt
    >>> from symgpt.documents.blocks import Numbers
    >>> d = symgpt.load("bigram"); start(d, 4)
    >>> section(d, Numbers(d, 4), figs={})["id"]
    'precision'
    """
    if available():
        _AHEAD.setdefault(d, {})[k] = Ahead(_whole, d, k)


def _whole(d, k: int) -> tuple:
    figs: dict = {}
    return section(d, Numbers(d, k), figs=figs), figs


def section(d, n, formats=None, figs=None) -> dict:
    """The section: headline values per format, correct digits along the pipeline, where the error is born,
    and (a transformer with d = 2) what a saturated LayerNorm does to the gradients.  A section begun by
    :func:`start` is taken from its process (the same section: it is this function, run there)."""
    ahead = _AHEAD.get(d, {}).pop(n.k, None) if formats is None and figs is not None else None
    got = ahead.result() if ahead is not None else None
    if got is not None:
        steps, made = got
        figs.update(made)
        return steps
    f = forensics(d, formats, births=d.spec.d * len(d.spec.input) * max(d.spec.layers, 1) <= BIRTHS_UP_TO)
    fm = f.formats
    rows = []
    for label, group, idx in f.headline():
        ref = group + (f"[{','.join(map(str, idx))}]" if idx else "")
        vals = [float(f.floats[fmt][group][idx]) if idx else float(f.floats[fmt][group]) for fmt in fm]
        rows.append([reader(d, ref), num(n.sig(ref, 8), ref)] + [math(tex_float(v)) for v in vals])
    wide, narrow = [i for i, x in enumerate(fm) if FORMAT_DIGITS[x] > 3], [i for i, x in enumerate(fm)
                                                                          if FORMAT_DIGITS[x] <= 3]
    dig = [[reader(d, name)] + [num(str(digits(f, fmt, name))) for fmt in fm] for name in pipeline_rows(f)]
    born = []
    for fmt in fm if f.births else ():
        tops = [", ".join(rf"{_reader_tex(d, src)}\ {int(100 * share)}\,\%" for src, share, _ in f.born(fmt, what)[:2])
                for what in ("loss", f.pipe.grads)]                   # each source by its symbol, as the text writes it
        born.append([tok(fmt)] + [math(t) if t else tok("—") for t in tops])
    steps = [
        text("precision.intro"),
        table("precision.values_cap", [word("quantity"), word("exact")] + [tok(fm[i]) for i in wide],
              [r[:2] + [r[2 + i] for i in wide] for r in rows], align="ll" + "r" * len(wide)),
    ]
    if narrow:  # the 16-bit formats in a table of their own, so that neither is wider than the page
        steps.append(table("precision.values16_cap", [word("quantity")] + [tok(fm[i]) for i in narrow],
                           [r[:1] + [r[2 + i] for i in narrow] for r in rows], align="l" + "r" * len(narrow)))
    steps += [
        text("precision.digits_intro", **{k: num(str(v)) for k, v in FORMAT_DIGITS.items() if k in fm}
             | {k: num("0") for k in ("float64", "float32", "bfloat16", "float16") if k not in fm}),
        table("precision.digits_cap", [word("quantity")] + [tok(x) for x in fm], dig, align="l" + "r" * len(fm)),
    ]
    if figs is not None:  # the same digits as a picture along the pipeline (NAME-precision.svg, and in the PDF)
        figs["precision"] = picture(f)
        steps.append(figure("precision", "precision.fig"))
    if f.births:
        steps += [text("precision.born_intro"),
                  table("precision.born_cap", [word("blank"), math(r"\mathcal{L}"), math(r"\nabla_\theta \mathcal{L}")],
                        born, align="lll")]
    else:
        steps.append(text("precision.born_skipped"))
    steps += _decisions(f)
    if d.spec.kind == "transformer" and d.spec.d == 2 and set(FORMAT_DIGITS) <= set(fm):
        steps += _layernorm(d, n, f)
    steps += [text("precision.run"), code(f"python -m symgpt.precision {d.spec.name}", "sh")]
    return {"id": "precision", "steps": steps}


_STATE = re.compile(r"(sgd|adamw)\[(\d+)\]\.(.+)")
OPTIMIZER = {"sgd": "SGD", "adamw": "AdamW"}
"""The optimizers' names as the text writes them."""


def reader(d, ref: str) -> dict:
    r"""A quantity or tensor of the tables as the text writes it: a token index as the token, a gradient as
    ∂𝓛/∂x, a layer (from 1) as a superscript, a state's quantity with its update in words.

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> print(reader(d, "p[4]")["v"], "|", reader(d, "grad_E[4,0]")["v"], "|", reader(d, "grad_W_Q")["v"])
    p_{\text{你}} | \partial \mathcal{L} / \partial E_{\text{你},0} | \partial_{W_{Q}} \mathcal{L}
    >>> print(reader(d, "head_step.E[你,1]")["v"])             # after the update of the target's row alone
    {E_{\text{你},1}}^{\mathrm{new}}
    >>> said = reader(d, "sgd[1].W_Q[1,0]")
    >>> said["v"][0][0], said["v"][0][1]["q"]["v"]
    ('precision.after_sgd', '{W_{Q}}_{1,0}')
    """
    m = _STATE.fullmatch(ref)
    if m:
        q = {"q": tex(_reader_tex(d, m[3]))}
        said = (f"precision.after_{m[1]}", q) if m[2] == "1" else (f"precision.after_{m[1]}_k", q | {"k": num(m[2])})
        return {"t": "said", "v": [said], "sep": "precision.flips_sep"}
    return math(_reader_tex(d, ref))


def _reader_tex(d, ref: str) -> str:
    if ref.startswith("head_step."):                        # after the update of the target's row: E^new
        return rf"{{{_reader_tex(d, ref[len('head_step.'):])}}}^{{\mathrm{{new}}}}"
    if "[" not in ref:                                      # a whole tensor: its symbol
        return group_tex(ref)
    if ref.startswith("grad_"):
        return rf"\partial \mathcal{{L}} / \partial {name_tex(d, ref[len('grad_'):])}"
    return name_tex(d, ref)


def _decisions(f) -> list:
    """Sentences on the signs and decisions a format changes, and AdamW steps that are not numbers at all."""
    out = []
    for fmt in f.formats:
        fl, ex = f.floats[fmt], f.exact
        flips = sum(f.summary(fmt, name)["sign_flips"] for name in f.pipe.names if "[1]." not in name)
        kinds = f.pipe.decisions  # what each op decides on: {tensor: (kind, label)}
        switched = sum(int(np.sum((np.asarray(fl[z], dtype=np.float64) > 0) != (ex[z] > 0)))
                       for z in f.pipe.names if kinds.get(z, ("",))[0] == "sign")
        changed = [name for name in f.pipe.names if kinds.get(name, ("",))[0] in ("top", "causal")
                   and f.decisions(fmt, name)]
        steps = {name.partition(".")[2]: np.asarray(fl[name], dtype=np.float64) for name in f.pipe.names
                 if name.startswith("adamw[1].")}
        nan = [n_ for n_, v in steps.items() if np.isnan(v).any()]
        inf = [n_ for n_, v in steps.items() if np.isinf(v).any()]
        parts = ([("precision.flips_sign", {"n": num(str(flips))})] if flips else []) \
            + ([("precision.flips_switched", {"n": num(str(switched))})] if switched else []) \
            + ([("precision.flips_argmax", {"names": _names(changed)})] if changed else []) \
            + ([("precision.flips_nan", {"names": _names(nan)})] if nan else []) \
            + ([("precision.flips_inf", {"names": _names(inf)})] if inf else [])
        if parts:  # only what did happen, joined into one sentence ("said", symgpt.render.Format.value)
            what = {"t": "said", "v": parts, "sep": "precision.flips_sep"}
            out.append(text("precision.flips", fmt=tok(fmt), what=what))
    return out


def _names(names) -> dict:
    r"""Tensors as one math value, each by its symbol as the tables write it (or a dash).

    >>> print(_names(["W_Q", "l1.b_1"])["v"], "|", _names([])["v"])
    W_{Q}, {b_{1}}^{[2]} | -
    """
    return math(", ".join(group_tex(x) for x in names) if names else "-")


def _layernorm(d, n, f) -> list:
    """d = 2: the saturated LayerNorm, the digits of the smallest gradients, and what PyTorch's 16-bit saved
    statistics do (against the same run with them kept in float32)."""
    if not _saturated(d, f):  # the story below is about saturated rows (γ = 1, β = 0, |LN| ≈ 1): else say nothing
        return []
    grad = f"grad_{d.spec.layer_prefix(d.spec.layers - 1)}H2"
    with np.errstate(all="ignore"):
        kept = run(Pipeline(d.spec, saved="working"), Floats("bfloat16"), f.params)[grad]
    exact = np.array([float(x) for x in f.exact[grad].ravel()])
    big = float(np.max(np.abs(exact)))
    if big == 0:  # LayerNorm with ε = 0 on d = 2: its gradient is exactly 0, nothing to compare a float run with
        return []
    ratio = float(np.max(np.abs(np.asarray(f.floats["bfloat16"][grad], dtype=np.float64)))) / big
    off = float(np.max(np.abs(np.asarray(kept, dtype=np.float64).ravel() - exact))) / big
    _, g, idx = f.headline()[3]
    gref = f"{g}[{','.join(map(str, idx))}]"
    ln = f"{d.spec.layer_prefix(0)}LN1[{len(d.spec.input) - 1},0]"
    ratio_text = f"{ratio:.2g}" if ratio < 10 else str(int(round(ratio)))  # a ratio of two floats, "about"
    return [text("precision.layernorm", ln=num(n.sig(ln, 6), ln), g=num(n.sig(gref, 3), gref),
                 name=math(_reader_tex(d, gref)),
                 d32=num(str(digits(f, "float32", g))), l32=num(str(digits(f, "float32", "loss"))),
                 d64=num(str(digits(f, "float64", g))), dbf=num(str(digits(f, "bfloat16", g))),
                 dh=num(str(digits(f, "float16", g))), ratio=num(ratio_text),
                 pct={"t": "pct", "v": str(max(1, pymath.ceil(100 * off)))})]


def _saturated(d, f) -> bool:
    """Every LayerNorm is the plain normalisation (γ = 1, β = 0) and every output of it is within 1 % of ±1."""
    for l in range(d.spec.layers):
        pre = d.spec.layer_prefix(l)
        for k in ("1", "2"):
            gamma, beta = f.exact.get(f"{pre}gamma{k}"), f.exact.get(f"{pre}beta{k}")
            ln = f.exact.get(f"{pre}LN{k}")
            if gamma is None or ln is None or any(g != 1 for g in np.ravel(gamma)) or \
                    any(b != 0 for b in np.ravel(beta)) or any(abs(x) < 0.99 for x in np.ravel(ln)):
                return False
    return True


# ---------------------------------------------------------------------------------------------- the chart

def picture(f, names=None) -> dict:
    """The chart as figure data (:func:`symgpt.documents.figures.lines`): x the tensors in evaluation order (``names``,
    default the document's rows), y the fewest correct significant digits over each tensor's entries, one
    line per format."""
    names = names or pipeline_rows(f)
    return figures.lines([label(x) for x in names], {fmt: [digits(f, fmt, x) for x in names] for fmt in f.formats},
                         YMAX, "−log₁₀|δ/x|", math=True)


def label(name: str) -> str:
    r"""A tensor of the chart as its axis label, short enough to stand turned beside the others: its symbol as the
    digits table writes it, a state's with its optimizer as a superscript (the table's "after one SGD step").

    >>> print(label("grad_W_Q"), "|", label("adamw[1].l1.W_Q"))
    \partial_{W_{Q}} \mathcal{L} | {{W_{Q}}^{[2]}}^{\,\mathrm{AdamW}}
    """
    m = _STATE.fullmatch(name)
    if m:
        return "{" + group_tex(m[3]) + r"}^{\,\mathrm{" + OPTIMIZER[m[1]] + "}}"
    return group_tex(name)


def svg(f, names=None) -> str:
    """The chart of a :class:`symgpt.floats.forensics.Forensics` as SVG (``python -m symgpt.precision SPEC --svg DIR``
    writes ``DIR/NAME-precision.svg``; the axis titles are symbols, never words).

    >>> import symgpt
    >>> s = svg(forensics(symgpt.load("bigram"), ["float32", "bfloat16"], births=False))
    >>> s.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), s.count("<polyline")
    (True, 2)
    """
    return figures.svg(picture(f, names))
