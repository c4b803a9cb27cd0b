"""RMSNorm: ``RMS(h)_j = γ_j h_j / √(ms + ε)`` per row, ``ms = Σ_j h_j² / d`` (Llama's; no mean, no β).

The mean square ``ms{n}`` is a node of its own, so the documents show it and the reverse mode sums over its
consumers; ε sits inside the root, as torch's ``nn.RMSNorm`` and Hugging Face's ``LlamaRMSNorm`` have it.  The
norm's output keeps the plan's name (``LN1``, ``LN2``, ``LN_f``), as every norm's does.

>>> from flint import fmpq
>>> rmsnorm_rule().grad_gamma_term(fmpq(2), fmpq(1, 2), fmpq(1, 4))
4
"""
from __future__ import annotations

from fractions import Fraction

import sympy
from flint import fmpq

from ..core import numeric
from ..core.grid import tensor
from ..core.numeric import to_flint
from ..core.proofs import kept
from ..core.prove import Rule, closures, generic, prove_equal, real, stated
from ..core.tensor import ZERO, add, total
from ..core.worked import Add, Div, Mul, Pow, Sqrt, Vec, const, fig, line, result
from .base import Apply, accumulate
from .naming import Name

KIND = "rmsnorm"
ROLES = ("gamma",)
"""The parameters an application reads, by role: its gain (there is no shift)."""
MEANING = "RMSNorm of {x}"
"""What its output is, of the input ``x`` (a plan writes it)."""
PARAMS: dict = {}
"""Its gains are the norms' γ (gamma1, gamma2, gamma_f), which :mod:`symgpt.ops.layernorm` names."""

STATED = {
    # a row: x_j, s = √(ms + ε), g = grad_RMS_j, b = mean_j(g_j γ_j x_j)
    "rmsnorm.grad_gamma_term": lambda g, x, s: g * x / s,
    "rmsnorm.grad_ms_term": lambda g, gamma, x, s: -g * gamma * x / (2 * s**3),
    "rmsnorm.grad_x": lambda g, gamma, x, s, b: g * gamma / s - x * b / s**3,
}
"""The rules as the documents state them, proven equal to SymPy's derivation (:func:`rmsnorm_rule`)."""

D = 4
"""The row size the rules are derived on."""


def _ms(a: Apply) -> str:
    return f"{a.pre}ms{a.opt('n')}"


def _of(a: Apply) -> str:
    return a.ins[0][len(a.pre):] if a.ins[0].startswith(a.pre) else a.ins[0]


def define(g, a: Apply, T: dict):
    """ms and RMS of the input rows  (T,), (T, d)."""
    H, gamma, eps = T[a.ins[0]], T[a.param("gamma")], a.opt("eps")
    rows, d = a.shape
    ms = tensor(g, _ms(a), (rows,), f"mean square of {_of(a)} over j", ("t",),
                lambda i: sympy.Add(*[x ** 2 for x in H[i[0]]]) / d, [(H, lambda h: [h[:1]])], lambda i: d)
    row = lambda t: [(t[0], j) for j in range(d)]
    return tensor(g, a.out, a.shape, a.meaning, a.axes,
                  lambda i: gamma[i[1]] * H[i[0]][i[1]] / sympy.sqrt(ms[i[0]] + eps),
                  [(H, lambda h: [h]), (ms, row), (gamma, lambda j: [(t, j[0]) for t in range(rows)])], lambda i: 3)


def groups(a: Apply, net) -> None:
    net.group(_ms(a), a.shape[:1], f"mean square of {_of(a)} over j", ("t",))
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    Hn, gamma, ms = a.ins[0], a.param("gamma"), _ms(a)
    d, eps = a.shape[1], to_flint(a.opt("eps"))

    def run(v, ev):
        X, g = v[Hn], v[gamma]
        v[ms] = [total([numeric.power(x, fmpq(2)) for x in r]) / d for r in X]
        rs = [numeric.power(q + eps, fmpq(-1, 2)) for q in v[ms]]                        # 1/√(ms + ε)
        v[a.out] = [[g[j] * x * r for j, x in enumerate(row)] for row, r in zip(X, rs)]
    net.stage((ms, a.out), run)


def backward(a: Apply, net) -> None:
    """grad_ms, grad_H and grad_γ from grad_RMS (:func:`rmsnorm_rule`)."""
    Hn, gamma, ms = a.ins[0], a.param("gamma"), _ms(a)
    d, eps = a.shape[1], to_flint(a.opt("eps"))
    gms, gH, gg_ = net.grad_group(ms), "grad_" + Hn, "grad_" + gamma
    R = rmsnorm_rule()

    def run(v, ev):
        G, X, g = v["grad_" + a.out], v[Hn], v[gamma]
        out_ms, out_H, gg = [], [], [ZERO] * d
        for row, x, q in zip(G, X, v[ms]):
            s = numeric.sqrt(q + eps)
            out_ms.append(total([R.grad_ms_term(row[j], g[j], x[j], s) for j in range(d)]))
            b = total([row[j] * g[j] * x[j] for j in range(d)]) / d
            out_H.append([R.grad_x(row[j], g[j], x[j], s, b) for j in range(d)])
            gg = [gg[j] + R.grad_gamma_term(row[j], x[j], s) for j in range(d)]
        v[gms] = out_ms
        accumulate(v, gH, out_H, add)
        accumulate(v, gg_, gg, add)
    net.stage((gms, gH, gg_), run)


def rules() -> list:
    return [rmsnorm_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): the mean square of each row, then a scaled entry each."""
    rows, d = a.shape
    return rows + rows * d, rows * (2 * d + 1) + 5 * rows * d


@kept
def rmsnorm_rule() -> Rule:
    """ms = Σx²/d, RMS_j = γ_j x_j/√(ms + ε): every adjoint of a row, each proven.

    >>> from flint import fmpq
    >>> r = rmsnorm_rule()
    >>> r.grad_x(fmpq(1), fmpq(1), fmpq(1, 2), fmpq(1), fmpq(1, 4))
    7/8
    """
    x, gamma, gR = real(f"x0:{D}"), real(f"gamma0:{D}"), real(f"g0:{D}")
    ms, gms, b = real("ms gms b")
    eps = sympy.Symbol("epsilon", nonnegative=True)
    s = sympy.Symbol("s", positive=True)
    G = {"g": sympy.Symbol("g", real=True), "gamma": sympy.Symbol("gamma", real=True),
         "x": sympy.Symbol("x", real=True), "s": s, "b": b}
    ms_def = sympy.Add(*[xj ** 2 for xj in x]) / D
    RMS = [gamma[j] * x[j] / sympy.sqrt(ms + eps) for j in range(D)]
    fold = {ms: s**2 - eps}
    ren = [{gR[j]: G["g"], gamma[j]: G["gamma"], x[j]: G["x"]} for j in range(D)]
    folded = lambda e: sympy.expand(e.xreplace(fold))
    proven = lambda adj, per: generic(f"rmsnorm.{adj}", per, ren, stated(STATED, "rmsnorm", adj, G))
    grad_gamma_term = proven("grad_gamma_term", [folded(gR[j] * sympy.diff(RMS[j], gamma[j])) for j in range(D)])
    ms_terms = [folded(gR[j] * sympy.diff(RMS[j], ms)) for j in range(D)]
    grad_ms_term = proven("grad_ms_term", ms_terms)
    # grad_x_j = its own term + grad_ms · ∂ms/∂x_j, with grad_ms = Σ ms_terms = −D·b/(2 s³), b = mean(g γ x)
    whole = sympy.Add(*ms_terms)
    mean = sympy.Add(*[gR[k] * gamma[k] * x[k] for k in range(D)]) / D
    ratio = sympy.cancel(whole / mean)
    if ratio.free_symbols & set(gR):
        raise RuntimeError(f"rmsnorm: grad_ms = {whole} is not a multiple of mean(g γ x)")
    local = [folded(gR[j] * sympy.diff(RMS[j], x[j])) + (ratio * b) * sympy.diff(ms_def, x[j]) for j in range(D)]
    grad_x = proven("grad_x", [sympy.expand(e) for e in local])
    # the total derivative of Σ g_i RMS_i(x) through ms, with ms and b substituted back
    S = sympy.sqrt(ms_def + eps)
    F = sympy.Add(*[gR[i] * gamma[i] * x[i] for i in range(D)]) / S
    for j in range(D):
        rule = grad_x.xreplace({G["g"]: gR[j], G["gamma"]: gamma[j], G["x"]: x[j], s: S, b: mean})
        prove_equal(f"rmsnorm: total ∂/∂x_{j}", sympy.diff(F, x[j]), rule)
    derived = {"grad_gamma_term": grad_gamma_term, "grad_ms_term": grad_ms_term, "grad_x": grad_x}
    return Rule(name="rmsnorm", forward={"ms": ms_def, **{f"RMS[{j}]": RMS[j] for j in range(D)}},
                symbols={"x0..x3": "one row", "ms": "the mean square (a named node)", "epsilon": "ε ≥ 0",
                         "gamma0..gamma3": "γ", "g0..g3": "grad_RMS of the row", "s": "√(ms + ε) > 0",
                         "g": "grad_RMS_j", "gamma": "γ_j", "x": "x_j", "b": "mean_j(g_j γ_j x_j)"},
                derived=derived,
                checked=(f"on a generic row of d = {D}: each term by diff re-folded (s = √(ms + ε)) equals the stated "
                         f"rule, and grad_x equals the total derivative of Σ g_j RMS_j(x) through ms"),
                closures=closures(STATED, "rmsnorm", derived, G))


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# torch's RMSNorm as Hugging Face's LlamaRMSNorm writes it: in a float32 island whatever the model's dtype (the
# input cast to float32; variance = x.pow(2).mean(-1); x·rsqrt(variance + ε); cast back), then γ· in the format;
# its backward by autograd through those steps (γ·g in the format, the norm's adjoint in float32, cast back).


def _rstd(ar, x, eps):
    inv = ar.const(Fraction(1, x.shape[-1]))
    return ar.w(1) / ar.wsqrt(ar.rowsum(x * x) * inv + ar.const(Fraction(str(eps))))


def _unit(ar, x, eps):
    """x·rsqrt(mean(x²) + ε) in the float32 island, cast back to the format: what γ multiplies."""
    f32 = ar.island()
    x = f32.w(x)
    return ar.out(f32.out(x * _rstd(f32, x, eps)[:, None]))


def normalize(ar, x, gamma, eps):
    """γ · (x · rsqrt(mean(x²) + ε)) per row, the bracket in float32.

    >>> import numpy as np
    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> y = normalize(ar, ar.cast([[3, 4]]), ar.cast([1, 1]), 0)          # 3/√12.5 and 4/√12.5 in float32
    >>> r = np.float32(1) / np.sqrt(np.float32(12.5))
    >>> y.dtype, bool(y[0, 0] == np.float32(3) * r), bool(y[0, 1] == np.float32(4) * r)
    (dtype('float64'), True, True)
    """
    return ar.mul(gamma, _unit(ar, x, eps))


def normalize_grad(ar, x, g, gamma, eps):
    """∂L/∂x = r·g' − x·r³·mean(g' x) with g' = γ·g (in the format), the rest in float32."""
    f32 = ar.island()
    x, g = f32.w(x), f32.w(ar.mul(g, gamma))
    r = _rstd(f32, x, eps)
    inv = f32.const(Fraction(1, x.shape[-1]))
    b = f32.rowsum(g * x) * inv
    return ar.out(f32.out(r[:, None] * g - x * (r * r * r * b)[:, None]))


def gain_grad(ar, x, g, eps):
    """∂L/∂γ = Σ_t g·RMS-unit(x), each product in the format."""
    return ar.out(ar.rowsum(ar.w(ar.mul(g, _unit(ar, x, eps))).T))


def floats_forward(a: Apply, pipe) -> None:
    H, gamma, eps = a.ins[0], a.param("gamma"), a.opt("eps")
    pipe.add(a.out, [H, gamma], lambda ar, X, g: normalize(ar, X, g, eps))


def floats_backward(a: Apply, pipe) -> None:
    H, gamma, eps = a.ins[0], a.param("gamma"), a.opt("eps")
    G = pipe.grad(a.out)
    pipe.share(H, [H, G, gamma], lambda ar, X, G_, gm: normalize_grad(ar, X, G_, gm, eps))
    pipe.share(gamma, [H, G], lambda ar, X, G_: gain_grad(ar, X, G_, eps))


# ---------------------------------------------------------------- names and the document

ROOT = (("sqrt", ("sqrt", "√")),)
"""The root a worked row prints, √(ms) and the denominator √(ms + ε)."""

NAMES = {
    "ms1": Name("mean square of the first norm's input over j", "第一个归一化的输入沿 j 的均方", ("t",),
                r"\mathrm{ms}_1", ("ms", "mean square", "均方"), of=ROOT, helper=True),
    "ms2": Name("mean square of the second norm's input over j", "第二个归一化的输入沿 j 的均方", ("t",),
                r"\mathrm{ms}_2", ("ms", "mean square", "均方"), of=ROOT, helper=True),
    "ms_f": Name("mean square of the last block's output over j", "最后一个块的输出沿 j 的均方", ("t",),
                 r"\mathrm{ms}_f", ("ms", "mean square", "均方"), of=ROOT, helper=True),
}
"""How its statistics are called (:mod:`symgpt.ops.naming`)."""

DOCUMENT = {
    "layout": "norm",
    "heading": "rms.heading",
    "definition": r"\mathrm{RMS}(h)_j = \gamma_j \frac{h_j}{\sqrt{\mathrm{ms} + \varepsilon}},\quad "
                  r"\mathrm{ms} = \frac{1}{d}\sum_j h_j^2",
    "params": ("rms.params", (("gamma", "weights", "gamma"), ("eps", "exact", "eps"))),
    "row": "residual.row",
}
"""How a document shows it: its definition and parameters, each worked row's mean square, root and output."""


def worked_row(a: Apply, t: int, h: str, value, fine: int, at: str = "") -> list:
    r"""The worked lines of row t: ms (at ``fine`` decimals), √(ms + ε) and RMS(h_t) (γ = 1 left out); ``at``
    the superscript naming the layer (``^{(2)}``) on ms and RMS, or nothing.

    >>> a = Apply("rmsnorm", "LN1", ("H0",), (2, 2), (("gamma", "gamma1"),), "", opts=(("n", 1), ("eps", 0)))
    >>> [ln["res"].get("ref") for ln in worked_row(a, 1, "h", lambda name: 1, 4)]
    ['ms1[1]', 'sqrt(ms1[1]+ln_eps)', None]
    >>> [ln["lhs"] for ln in worked_row(a, 1, "h", lambda name: 1, 4, "^{(2)}")]
    ['\\mathrm{ms}^{(2)}', '\\sqrt{\\mathrm{ms}^{(2)} + \\varepsilon}', '\\mathrm{RMS}^{(2)}(h_{1})']
    """
    H, ms, d, gamma = a.ins[0], _ms(a), a.shape[1], a.param("gamma")
    m = f"{ms}[{t}]"
    sd = f"sqrt({m}+ln_eps)"
    x = lambda j: fig(f"{H}[{t},{j}]")
    scaled = lambda j: Div(x(j), fig(sd)) if value(f"{gamma}[{j}]") == 1 else \
        Mul(fig(f"{gamma}[{j}]", weight=True), Div(x(j), fig(sd)))
    return [line(rf"\mathrm{{ms}}{at}", Div(Add(*[Pow(x(j), 2) for j in range(d)]), const(d)), result(m, fine)),
            line(rf"\sqrt{{\mathrm{{ms}}{at} + \varepsilon}}", Sqrt(Add(fig(m), const(a.opt("eps")))), sd),
            line(rf"\mathrm{{RMS}}{at}({h}_{{{t}}})", Vec(*[scaled(j) for j in range(d)]),
                 Vec(*[result(f"{a.out}[{t},{j}]") for j in range(d)]))]


def refused(a: Apply):
    """(spec key, why) for ε = 0: a row of zeros would divide 0 by √0 (torch and Llama always add an ε > 0).

    >>> refused(Apply(KIND, "LN1", shape=(2, 2), opts=(("eps", 0),)))[0]
    'model.ln_eps'
    """
    if a.opt("eps") == 0:
        return "model.ln_eps", "expected ε > 0 for RMSNorm (a row of zeros would divide 0 by √0), got 0"
    return None


def remark(a: Apply, t: int, k: int):
    """No remark: an RMS norm of d = 2 is not locally constant."""
    return None


def inner(a: Apply) -> tuple:
    """The statistic inside it, which a picture of the gradient's route passes through."""
    return (_ms(a),)
