"""LayerNorm: ``LN(h)_j = γ_j (h_j − μ)/√(σ² + ε) + β_j`` per row, with the biased σ², and its named statistics.

The mean ``mu{n}`` and the variance ``var{n}`` are nodes of their own, so that the documents show them and the
reverse mode sums over their consumers; ``grad_x`` of the input is the total derivative through mu, var and LN.
When the row map is locally constant (d = 1; d = 2 with ε = 0: x̂ = ±1) every gradient through it is exactly 0
(:func:`vanishes`).

>>> from flint import fmpq
>>> layernorm_rule().grad_gamma_term(fmpq(2), fmpq(1, 2), fmpq(1, 4))
4
>>> vanishes(2, sympy.Integer(0)), vanishes(4, sympy.Rational(1, 100000))
(True, False)
"""
from __future__ import annotations

import functools
from fractions import Fraction

import sympy
from flint import fmpq

from ..core import numeric
from ..core.grid import node_sym, tensor
from ..core.numeric import to_flint
from ..core.proofs import kept
from ..core.prove import Rule, RuleError, closures, generic, real, stated
from ..core.tensor import ONE, ZERO, add, total
from ..core.worked import Add, Div, Group, Mul, Pow, Sqrt, Sub, Vec, const, fig, line, result
from .base import Apply, Param, accumulate
from .naming import Name, param

KIND = "layernorm"
ROLES = ("gamma", "beta")
"""The parameters an application reads, by role: its gain and its shift."""
MEANING = "LayerNorm of {x}"
"""What its output is, of the input ``x`` (a plan writes it)."""
PARAMS = {
    "gamma1": Param("LayerNorm 1 gain γ (d)", ("j",)),
    "beta1": Param("LayerNorm 1 shift β (d)", ("j",)),
    "gamma2": Param("LayerNorm 2 gain γ (d)", ("j",)),
    "beta2": Param("LayerNorm 2 shift β (d)", ("j",)),
    "gamma_f": Param("final LayerNorm gain γ (d)", ("j",)),
    "beta_f": Param("final LayerNorm shift β (d)", ("j",)),
}
GROUPS = tuple(PARAMS)
"""Its parameters' names (without a layer prefix): not trained unless ``training.learnable_ln``, no decay."""

STATED = {
    # LayerNorm row: c = x_j − mu, s = √(var + ε), g = grad_LN_j, a = mean(g γ), b = mean(g γ c)
    "layernorm.grad_gamma_term": lambda g, c, s: g * c / s,
    "layernorm.grad_beta_term": lambda g: g,
    "layernorm.grad_var_term": lambda g, gamma, c, s: -g * gamma * c / (2 * s**3),
    "layernorm.grad_mu_term": lambda g, gamma, s: -g * gamma / s,
    "layernorm.grad_x": lambda g, gamma, c, s, a, b: (g * gamma - a) / s - c * b / s**3,
}
"""The rules as the documents state them, proven equal to SymPy's derivation (:func:`layernorm_rule`)."""

LN_D = 4
"""The row size the rules are derived on."""


def _names(a: Apply) -> tuple:
    n = a.opt("n")
    return f"{a.pre}mu{n}", f"{a.pre}var{n}"


def _of(a: Apply) -> str:
    """The name of its input without the layer prefix (H1, H2; H0 or H2 before a pre-LN block's attention)."""
    return a.ins[0][len(a.pre):] if a.ins[0].startswith(a.pre) else a.ins[0]


def define(g, a: Apply, T: dict):
    """mu, var and LN of the input rows  (T,), (T,), (T, d)."""
    H, gamma, eps, x = T[a.ins[0]], T[a.param("gamma")], a.opt("eps"), _of(a)
    beta = T[a.param("beta")] if a.param("beta") else None      # a model without biases: no shift
    rows, d = a.shape
    nmu, nvar = _names(a)
    mu = tensor(g, nmu, (rows,), f"mean of {x} over j", ("t",),
                lambda i: sympy.Add(*H[i[0]]) / d, [(H, lambda h: [h[:1]])], lambda i: d)
    var = tensor(g, nvar, (rows,), f"variance σ² of {x} over j (biased)", ("t",),
                 lambda i: sympy.Add(*[(x - mu[i[0]]) ** 2 for x in H[i[0]]]) / d,
                 [(H, lambda h: [h[:1]]), (mu, lambda t: [t])], lambda i: d + 1)
    row = lambda t: [(t[0], j) for j in range(d)]
    column = lambda j: [(t, j[0]) for t in range(rows)]
    return tensor(g, a.out, a.shape, a.meaning, a.axes,
                  lambda i: gamma[i[1]] * (H[i[0]][i[1]] - mu[i[0]]) / sympy.sqrt(var[i[0]] + eps)
                  + (beta[i[1]] if beta is not None else 0),
                  [(H, lambda h: [h]), (mu, row), (var, row), (gamma, column)] + ([(beta, column)] if beta else []),
                  lambda i: 5 if beta is not None else 4)


def groups(a: Apply, net) -> None:
    nmu, nvar = _names(a)
    net.group(nmu, a.shape[:1], f"mean of {_of(a)} over j", ("t",))
    net.group(nvar, a.shape[:1], f"variance σ² of {_of(a)} over j (biased)", ("t",))
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    """mu, var and LN per row (biased variance); x̂ is kept for the backward."""
    Hn, gamma, beta = a.ins[0], a.param("gamma"), a.param("beta")
    mu, var = _names(a)
    d = a.shape[1]
    eps = to_flint(a.opt("eps"))
    flat = vanishes(d, a.opt("eps"))

    def run(v, ev):
        X, g = v[Hn], v[gamma]
        b = v[beta] if beta else [ZERO] * d
        v[mu] = [total(r) / d for r in X]
        v[var] = [total([numeric.power(x - m, fmpq(2)) for x in r]) / d for r, m in zip(X, v[mu])]
        if flat:  # x̂ is constant: 0 for d = 1, ±1 for d = 2 with ε = 0 (by the sign of x_0 − x_1)
            xh = [normalized_flat(ev, Hn, t, d) for t in range(len(X))]
        else:
            rs = [numeric.power(q + eps, fmpq(-1, 2)) for q in v[var]]       # 1/√(σ² + ε)
            xh = [[(x - m) * r for x in row] for row, m, r in zip(X, v[mu], rs)]
        v[a.out] = [[g[j] * x + b[j] for j, x in enumerate(row)] for row in xh]
        v["_xhat_" + a.out] = xh
    net.stage((mu, var, a.out), run)


def backward(a: Apply, net) -> None:
    """grad_var, grad_mu, grad_H, grad_γ, grad_β from grad_LN (:func:`layernorm_rule`)."""
    Hn, gamma, beta = a.ins[0], a.param("gamma"), a.param("beta")
    mu, var = _names(a)
    d = a.shape[1]
    gvar, gmu = net.grad_group(var), net.grad_group(mu)
    gH, gg_, gb_ = "grad_" + Hn, "grad_" + gamma, ("grad_" + beta if beta else None)
    eps = to_flint(a.opt("eps"))
    R = layernorm_rule()
    flat = vanishes(d, a.opt("eps"))     # LN locally constant: ∂LN/∂H ≡ 0, exactly
    dq = fmpq(d)

    def run(v, ev):
        G, X, g = v["grad_" + a.out], v[Hn], v[gamma]
        out_var, out_mu, out_H = [], [], []
        gg, gb = [ZERO] * d, [ZERO] * d
        for row, x, m, q, xh in zip(G, X, v[mu], v[var], v["_xhat_" + a.out]):
            sd = numeric.sqrt(q + eps)                                          # s = √(σ² + ε)
            c = [xj - m for xj in x]
            out_var.append(total([R.grad_var_term(row[j], g[j], c[j], sd) for j in range(d)]))
            out_mu.append(total([R.grad_mu_term(row[j], g[j], sd) for j in range(d)]))
            if flat:
                out_H.append([ZERO] * d)
            else:
                ga = total([row[j] * g[j] for j in range(d)]) / dq
                gc = total([row[j] * g[j] * c[j] for j in range(d)]) / dq
                out_H.append([R.grad_x(row[j], g[j], c[j], sd, ga, gc) for j in range(d)])
            for j in range(d):
                cj, sj = (xh[j], ONE) if flat else (c[j], sd)  # c/s = x̂, exact when LN is flat
                gg[j] = gg[j] + R.grad_gamma_term(row[j], cj, sj)
                gb[j] = gb[j] + row[j]
        v[gvar], v[gmu] = out_var, out_mu
        accumulate(v, gH, out_H, add)
        accumulate(v, gg_, gg, add)
        if gb_:
            accumulate(v, gb_, gb, add)
    net.stage((gvar, gmu, gH, gg_) + ((gb_,) if gb_ else ()), run)


def normalized_flat(ev, H: str, t: int, d: int) -> list:
    """x̂ of row t of a LayerNorm that is locally constant: [0] for d = 1; for d = 2 with ε = 0,
    (σ, −σ) with σ the sign of H[t,0] − H[t,1], decided rigorously (equal entries: σ² = 0, no LayerNorm)."""
    if d == 1:
        return [ZERO]
    x0, x1 = sympy.Symbol(f"{H}[{t},0]", real=True), sympy.Symbol(f"{H}[{t},1]", real=True)
    sg = ev.expr_decision(x0 - x1)
    if sg == 0:
        raise ZeroDivisionError(f"LayerNorm of {H}[{t},:] with ε = 0: its two entries are equal, so σ² = 0")
    return [fmpq(sg), fmpq(-sg)]


def rules() -> list:
    return [layernorm_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): the row statistics, then a scaled and shifted entry each."""
    rows, d = a.shape
    return 2 * rows + rows * d, rows * (5 * d + 2) + 8 * rows * d


# ---------------------------------------------------------------- the rule, proven


LN_D = 4


@kept
def layernorm_rule() -> Rule:
    """mu = Σx/d, var = Σ(x − mu)²/d, LN_j = γ_j (x_j − mu)/√(var + ε) + β_j: every adjoint of a row.

    >>> from flint import fmpq
    >>> r = layernorm_rule()
    >>> r.grad_gamma_term(fmpq(2), fmpq(1, 2), fmpq(1, 4)), r.grad_mu_term(fmpq(1), fmpq(3), fmpq(2))
    (4, -3/2)
    >>> r.grad_x(fmpq(1), fmpq(1), fmpq(1, 2), fmpq(1), fmpq(1, 4), fmpq(1, 2))
    1/2
    """
    d = LN_D
    x, gamma, beta, gLN = real(f"x0:{d}"), real(f"gamma0:{d}"), real(f"beta0:{d}"), real(f"g0:{d}")
    c = real(f"c0:{d}")
    mu, var, gmu, gvar, a, b = real("mu var gmu gvar a b")
    eps = sympy.Symbol("epsilon", nonnegative=True)
    s = sympy.Symbol("s", positive=True)
    G = {"g": sympy.Symbol("g", real=True), "gamma": sympy.Symbol("gamma", real=True),
         "c": sympy.Symbol("c", real=True), "s": s, "a": a, "b": b}
    mu_def = sympy.Add(*x) / d
    var_def = sympy.Add(*[(xj - mu) ** 2 for xj in x]) / d  # mu a named node
    LN = [gamma[j] * (x[j] - mu) / sympy.sqrt(var + eps) + beta[j] for j in range(d)]
    fold = {**{x[j]: c[j] + mu for j in range(d)}, var: s**2 - eps}  # c_j = x_j − mu, s = √(var + ε)
    ren = [{gLN[j]: G["g"], gamma[j]: G["gamma"], c[j]: G["c"]} for j in range(d)]

    def folded(e):
        return sympy.expand(e.xreplace(fold))

    def proven(adjoint, per):
        return generic(f"layernorm.{adjoint}", per, ren, stated(STATED, "layernorm", adjoint, G))

    grad_gamma_term = proven("grad_gamma_term", [folded(gLN[j] * sympy.diff(LN[j], gamma[j])) for j in range(d)])
    grad_beta_term = proven("grad_beta_term", [folded(gLN[j] * sympy.diff(LN[j], beta[j])) for j in range(d)])
    var_terms = [folded(gLN[j] * sympy.diff(LN[j], var)) for j in range(d)]
    grad_var_term = proven("grad_var_term", var_terms)
    mu_terms = [folded(gLN[j] * sympy.diff(LN[j], mu)) for j in range(d)]
    grad_mu_term = proven("grad_mu_term", mu_terms)
    # grad_mu's var path, gvar · ∂var/∂mu = gvar · Σ_j −2(x_j − mu)/d, is exactly 0 once mu is Σx/d
    var_path = sympy.diff(var_def, mu)
    if sympy.expand(var_path.xreplace({mu: mu_def})) != 0:
        raise RuleError(f"layernorm: the var path of grad_mu, ∂var/∂mu = {var_path}, is not 0 at mu = Σx/d")
    # grad_x_j = Σ over x_j's consumers (LN_j, mu, var), then grad_mu, grad_var re-folded by the means a, b
    local = [folded(gLN[j] * sympy.diff(LN[j], x[j]) + gmu * sympy.diff(mu_def, x[j])
                    + gvar * sympy.diff(var_def, x[j])) for j in range(d)]
    sums = {gmu: (sympy.Add(*mu_terms), sympy.Add(*[gLN[k] * gamma[k] for k in range(d)]) / d, a),
            gvar: (sympy.Add(*var_terms), sympy.Add(*[gLN[k] * gamma[k] * c[k] for k in range(d)]) / d, b)}
    means = {}
    for node, (whole, mean, sym) in sums.items():
        ratio = sympy.cancel(whole / mean)  # grad_node = ratio · mean
        if ratio.free_symbols & set(gLN):
            raise RuleError(f"layernorm: {node} = {whole} is not a multiple of {mean}")
        means[node] = ratio * sym
    grad_x = proven("grad_x", [sympy.expand(e.xreplace(means)) for e in local])
    _check_total_grad_x(d, x, gamma, gLN, eps, mu_def, var_def, mu, var, G, grad_x)
    derived = {"grad_gamma_term": grad_gamma_term, "grad_beta_term": grad_beta_term,
               "grad_var_term": grad_var_term, "grad_mu_term": grad_mu_term, "grad_x": grad_x}
    return Rule(
        name="layernorm",
        forward={"mu": mu_def, "var": var_def, **{f"LN[{j}]": LN[j] for j in range(d)}},
        symbols={"x0..x3": "one row of the input", "mu": "the mean (a named node)",
                 "var": "the biased variance (a named node)", "epsilon": "ε ≥ 0",
                 "gamma0..gamma3, beta0..beta3": "γ, β", "g0..g3": "grad_LN of the row",
                 "gmu, gvar": "grad_mu, grad_var", "c": "x_j − mu", "s": "√(var + ε) > 0",
                 "g": "grad_LN_j", "gamma": "γ_j", "a": "mean_j(g_j γ_j)", "b": "mean_j(g_j γ_j c_j)"},
        derived=derived,
        checked=(f"on a generic row of d = {d}: each term by diff re-folded (c = x − mu, s = √(var + ε)) equals "
                 f"the stated rule; ∂var/∂mu = Σ−2(x_j − mu)/d is 0 at mu = Σx/d; grad_x equals the total "
                 f"derivative of Σ g_j LN_j(x) through mu and var (expand)"),
        closures=closures(STATED, "layernorm", derived, G),
    )


def _check_total_grad_x(d, x, gamma, gLN, eps, mu_def, var_def, mu, var, G, grad_x) -> None:
    """grad_x equals diff of Σ_i g_i LN_i(x) with mu and var substituted (the composite row)."""
    V = sympy.expand(var_def.xreplace({mu: mu_def})) + eps
    S = sympy.Symbol("S", positive=True)
    F = sympy.Add(*[gLN[i] * gamma[i] * (x[i] - mu_def) for i in range(d)]) / sympy.sqrt(V)
    c = [x[j] - mu_def for j in range(d)]
    a = sympy.Add(*[gLN[k] * gamma[k] for k in range(d)]) / d
    b = sympy.Add(*[gLN[k] * gamma[k] * c[k] for k in range(d)]) / d
    for j in range(d):
        total = sympy.diff(F, x[j]).xreplace({V: S**2})
        rule = grad_x.xreplace({G["g"]: gLN[j], G["gamma"]: gamma[j], G["c"]: c[j], G["s"]: S,
                                G["a"]: a, G["b"]: b})
        poly = sympy.expand(sympy.expand((total - rule) * S**3).subs(S**2, V))
        if poly != 0:
            raise RuleError(f"layernorm.grad_x at index {j} is not the total derivative through mu and var: "
                            f"s³·(total − rule) = {poly}")


# ---------------------------------------------------------------- a locally constant row


def vanishes(d: int, eps) -> bool:
    """True exactly when x ↦ LN(x) on rows of d has an identically zero Jacobian (generic γ).

    That is d = 1 with ε > 0 (LN is β) and d = 2 with ε = 0 (x̂ = ±1 is locally
    constant); then every gradient through the LayerNorm is exactly 0.  Decided
    by SymPy: for d ≤ 3 the Jacobian of x̂ = (x − mu)/√(var + ε) on generic real
    symbols, times s³, is a polynomial tested for 0; for larger d a rational
    point where ∂x̂_0/∂x_0 is exactly nonzero is exhibited.  d = 1 with ε = 0
    divides by zero.

    >>> vanishes(1, sympy.Rational(1, 100000)), vanishes(2, 0), vanishes(3, 0)
    (True, True, False)
    >>> vanishes(1, 0)
    Traceback (most recent call last):
    ...
    ValueError: LayerNorm of a row of d = 1 with ε = 0 divides 0 by √0: its variance is always 0
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"LayerNorm row size d must be an integer ≥ 1, not {d!r}")
    if isinstance(eps, float) or not isinstance(eps, (int, Fraction, sympy.Rational)):
        raise TypeError(f"ε must be an exact rational (sympy.Rational, Fraction or int), not {eps!r}")
    eps = sympy.Rational(eps)
    if eps < 0:
        raise ValueError(f"LayerNorm ε must be ≥ 0, not {eps}")
    if d == 1 and eps == 0:
        raise ValueError("LayerNorm of a row of d = 1 with ε = 0 divides 0 by √0: its variance is always 0")
    return _vanishes(d, eps)


@functools.cache
def _vanishes(d: int, eps: sympy.Rational) -> bool:
    # a rational point where the Jacobian is nonzero settles "no" cheaply (the usual case, any d);
    # only where it may vanish (d = 1; d = 2 with ε = 0) the whole Jacobian is proven 0 on symbols
    if d > 3 or not (d == 1 or (d == 2 and eps == 0)):
        try:
            return not _nonzero_at_a_point(d, eps)
        except RuleError:
            if d > 3:
                raise
    return _jacobian_is_zero(d, eps)


def _jacobian_is_zero(d: int, eps) -> bool:
    """Every s³·∂x̂_i/∂x_j, with s² = var + ε put back, expands to the zero polynomial."""
    x = real(f"x0:{d}")
    mu = sympy.Add(*x) / d
    V = sympy.Add(*[(xi - mu) ** 2 for xi in x]) / d + eps
    S = sympy.Symbol("S", positive=True)
    zero = True
    for i in range(d):
        xhat = (x[i] - mu) / sympy.sqrt(V)
        for j in range(d):
            J = sympy.diff(xhat, x[j])
            if J == 0:
                continue
            poly = sympy.expand(sympy.expand(J.xreplace({V: S**2}) * S**3).subs(S**2, V))
            if poly.has(S) or any(not p.exp.is_Integer for p in poly.atoms(sympy.Pow)):
                raise RuleError(f"vanishes(d={d}, ε={eps}): could not clear √(var + ε) from {J}")
            zero = zero and poly == 0
    return zero


def _nonzero_at_a_point(d: int, eps) -> bool:
    """True when ∂x̂_0/∂x_0 is exactly nonzero at a rational row ((0, 1, …, d−1), else (0, 1, 4, …)).

    With c = x − mu and s² = var + ε, ∂x̂_0/∂x_0 = ((1 − 1/d)·s² − c_0²/d)/s³ (the quotient
    rule, ∂s/∂x_0 = c_0/(d·s); tests/test_rules.py checks it against SymPy's diff), so its
    sign is that of a rational numerator: exact, in Fractions, O(d).
    """
    e = Fraction(int(sympy.Rational(eps).p), int(sympy.Rational(eps).q))
    for p in ([Fraction(k) for k in range(d)], [Fraction(k * k) for k in range(d)]):
        mu = sum(p) / d
        var = sum((x - mu) ** 2 for x in p) / d
        if var + e == 0:
            continue
        if (1 - Fraction(1, d)) * (var + e) - (p[0] - mu) ** 2 / d != 0:
            return True


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# torch's CPU LayerNorm: the row statistics by a vectorised Welford (RowwiseMoments), x̂·γ + β with the last
# multiply-add fused, in the working type and rounded once.  The backward is torch's form a·g·γ + b·x + c with
# a = rstd, from the statistics the forward saved: those are kept in the tensor's own format (bfloat16 or float16
# for a 16-bit input) unless the pipeline is asked to keep them in the working type (``saved="working"``).

LANES = {"float64": 4}
"""Lanes of torch's vectorised Welford per format, as measured (8 for float32 and the 16-bit formats' float32)."""


def moments(ar, x, eps):
    """(mean, rstd) of each row of x (working type): torch's RowwiseMoments (Welford per vector lane, the lanes
    then merged), and rstd = 1/√(var + ε).  One chunk of lanes (d ≤ 16 vectors); beyond that torch cascades the
    chunks.

    >>> from fractions import Fraction
    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> [v.tolist() for v in moments(ar, ar.w(ar.cast([[1, 3]])), ar.const(Fraction(0)))]
    [[2.0], [1.0]]
    """
    N, V = x.shape[-1], LANES.get(ar.name, 8)
    if ar.exact:  # the definition, two passes: a flat row's statistics stay exact, no lane order to follow
        mean = ar.rowsum(x) / N
        c = x - mean[:, None]
        return mean, ar.w(1) / ar.wsqrt(ar.rowsum(c * c) / N + eps)
    n, w = N // V, ar.w
    m1, m2 = ar.wzeros(x.shape[:-1] + (V,)), ar.wzeros(x.shape[:-1] + (V,))
    for j in range(n):                                   # lane-wise Welford, × 1/(j+1)
        xv = x[..., j * V:(j + 1) * V]
        delta = xv - m1
        m1 = m1 + delta * w(1 / w(j + 1))
        m2 = m2 + delta * (xv - m1)
    c0, a1, a2 = 0, ar.wzeros(x.shape[:-1]), ar.wzeros(x.shape[:-1])
    for i in range(n * V, N):                            # the tail, scalar Welford
        delta = x[..., i] - a1
        c0 += 1
        a1 = a1 + delta / w(c0)
        a2 = a2 + delta * (x[..., i] - a1)
    for lane in range(V if n else 0):                    # AddMoments of each lane (two multiply-adds fused)
        c = w(n) / w(c0 + n)
        delta = m1[..., lane] - a1
        a1 = ar.fma(c, delta, a1)
        a2 = a2 + ar.fma(delta * delta * c, w(c0), m2[..., lane])
        c0 += n
    return a1, w(1) / ar.wsqrt(a2 / w(N) + eps)


def _saved(ar, x, eps, saved):
    """(mean, rstd) as the forward saves them for the backward: in the tensor's own format, or (``saved`` =
    "working") as computed."""
    m = moments(ar, x, ar.const(Fraction(str(eps))))
    return m if saved == "working" else tuple(ar.keep(v) for v in m)


def normalize(ar, x, gamma, beta, eps):
    """(x − mean)·rstd·γ + β per row, the last multiply-add fused; rstd = 1/√(var + ε) (biased variance).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("bfloat16")
    >>> normalize(ar, ar.cast([[1, 3]]), ar.cast([1, 1]), ar.cast([0, 0]), 0).tolist()
    [[-1.0, 1.0]]
    """
    x = ar.w(x)
    mean, rstd = moments(ar, x, ar.const(Fraction(str(eps))))
    return ar.out(ar.fma((x - mean[:, None]) * rstd[:, None], ar.w(gamma), ar.w(beta)))


def normalize_grad(ar, x, g, gamma, eps, saved="format"):
    """∂L/∂x in torch's CPU form: a·g·γ + b·x + c with a = rstd, b = (Σgγ·mean − Σgxγ)·a³/N,
    c = −b·mean − Σgγ·a/N (fused multiply-adds where torch's compiler fuses).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float64")
    >>> normalize_grad(ar, ar.cast([[1, 3]]), ar.cast([[1, 1]]), ar.cast([1, 1]), 0).tolist()   # LN is flat here
    [[0.0, 0.0]]
    """
    x, g, gamma = ar.w(x), ar.w(g), ar.w(gamma)
    inv = ar.const(Fraction(1, x.shape[-1]))
    mean, a = _saved(ar, x, eps, saved)
    ds, db = ar.rowsum(g * x * gamma), ar.rowsum(g * gamma)
    b = ar.fma(db, mean, -ds) * a * a * a * inv
    c = ar.fma(-b, mean, -(db * a * inv))
    return ar.out(ar.fma(b[:, None], x, a[:, None] * g * gamma) + c[:, None])


def gain_grad(ar, x, g, eps, saved="format"):
    """∂L/∂γ = Σ_t g·(a·x − a·mean) with a = rstd, accumulated row by row in torch's per-thread buffer, which
    has the tensor's own format.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> gain_grad(ar, ar.cast([[1, 3], [0, 2]]), ar.cast([[1, 2], [1, 1]]), 0).tolist()
    [-2.0, 3.0]
    """
    x, g = ar.w(x), ar.w(g)
    mean, a = _saved(ar, x, eps, saved)
    xh = ar.fma(a[:, None], x, (-a * mean)[:, None])
    acc = ar.keep(g[0] * xh[0])
    for t in range(1, x.shape[0]):
        acc = ar.keep(ar.fma(g[t], xh[t], acc))
    return ar.out(acc)


def shift_grad(ar, g):
    """∂L/∂β = Σ_t g, accumulated row by row in the same buffer.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("bfloat16")
    >>> shift_grad(ar, ar.cast([[1, 2], [3, 4]])).tolist()
    [4.0, 6.0]
    """
    g = ar.w(g)
    acc = ar.keep(g[0])
    for t in range(1, g.shape[0]):
        acc = ar.keep(acc + g[t])
    return ar.out(acc)


def floats_forward(a: Apply, pipe) -> None:
    H, gamma, beta, eps = a.ins[0], a.param("gamma"), a.param("beta"), a.opt("eps")
    if beta:
        pipe.add(a.out, [H, gamma, beta], lambda ar, X, g, b: normalize(ar, X, g, b, eps))
    else:   # F.layer_norm with bias None: the product alone
        pipe.add(a.out, [H, gamma], lambda ar, X, g: normalize(ar, X, g, ar.zeros(g.shape), eps))


def floats_backward(a: Apply, pipe) -> None:
    """grad_H, grad_γ, grad_β, from the statistics the forward saved (``pipe.saved``)."""
    H, gamma, beta, eps, saved = a.ins[0], a.param("gamma"), a.param("beta"), a.opt("eps"), pipe.saved
    G = pipe.grad(a.out)
    pipe.share(H, [H, G, gamma], lambda ar, X, G_, gm: normalize_grad(ar, X, G_, gm, eps, saved))
    pipe.share(gamma, [H, G], lambda ar, X, G_: gain_grad(ar, X, G_, eps, saved))
    if beta:
        pipe.share(beta, [H, G], lambda ar, X, G_: shift_grad(ar, G_))


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {
    "gamma1": param("d", zh="第一个 LayerNorm 的缩放 γ（d）", tex=r"\gamma^{(1)}", trained=False, decays=False, fill=1),
    "beta1": param("d", zh="第一个 LayerNorm 的平移 β（d）", tex=r"\beta^{(1)}", trained=False, decays=False, fill=0),
    "gamma2": param("d", zh="第二个 LayerNorm 的缩放 γ（d）", tex=r"\gamma^{(2)}", trained=False, decays=False, fill=1),
    "beta2": param("d", zh="第二个 LayerNorm 的平移 β（d）", tex=r"\beta^{(2)}", trained=False, decays=False, fill=0),
    "mu1": Name("mean of H1 over j", "H1 沿 j 的均值", ("t",), r"\mu_1", ("μ", "mu", "mean", "第一次", "first"),
                helper=True, primes=1),
    "var1": Name("variance σ² of H1 over j (biased)", "H1 沿 j 的方差 σ²（有偏，除以 n）", ("t",), r"\sigma^2_1",
                 ("σ²", "var", "第一次", "first"), of=(("sqrt", ("σ", "sqrt", "√")),), helper=True, primes=1),
    "LN1": Name("LayerNorm of H1", "H1 的 LayerNorm", ("t", "j"), r"\mathrm{LN}_1", ("ln", "h_ln1", "第一次", "first"),
                primes=1),
    "mu2": Name("mean of H2 over j", "H2 沿 j 的均值", ("t",), r"\mu_2", ("μ", "mu", "mean", "第二次", "second"),
                helper=True, primes=2),
    "var2": Name("variance σ² of H2 over j (biased)", "H2 沿 j 的方差 σ²（有偏，除以 n）", ("t",), r"\sigma^2_2",
                 ("σ²", "var", "第二次", "second"), of=(("sqrt", ("σ", "sqrt", "√")),), helper=True, primes=2),
    "LN2": Name("LayerNorm of H2", "H2 的 LayerNorm", ("t", "j"), r"\mathrm{LN}_2",
                ("ln", "hfinal", "h_final", "第二次", "second", "最终"), primes=2),
    "gamma_f": param("d", zh="最终 LayerNorm 的缩放 γ（d）", tex=r"\gamma^{(f)}", trained=False, decays=False, fill=1),
    "beta_f": param("d", zh="最终 LayerNorm 的平移 β（d）", tex=r"\beta^{(f)}", trained=False, decays=False, fill=0),
    "mu_f": Name("mean of the last block's output over j", "最后一个块的输出沿 j 的均值", ("t",), r"\mu_f",
                 ("μ", "mu", "mean", "final", "最终"), helper=True),
    "var_f": Name("variance σ² of the last block's output over j (biased)", "最后一个块的输出沿 j 的方差 σ²（有偏）",
                  ("t",), r"\sigma^2_f", ("σ²", "var", "final", "最终"), of=(("sqrt", ("σ", "sqrt", "√")),),
                  helper=True),
    "LN_f": Name("final LayerNorm (ln_f)", "最终的 LayerNorm（ln_f）", ("t", "j"), r"\mathrm{LN}_f",
                 ("ln_f", "ln", "hfinal", "h_final", "final", "最终")),
    "ln_eps": Name("LayerNorm ε", kind="size", aliases=("ε", "eps")),
}
"""How its parameters, statistics, outputs and ε (the spec's ``model.ln_eps``) are called (:mod:`symgpt.ops.naming`):
γ and β are trained only with ``training.learnable_ln`` and never decayed; a spec may leave them out (γ = 1, β = 0)."""


def refused(a: Apply):
    """(spec key, why) when the spec's sizes make this norm impossible, else None: a row of one entry has variance 0.

    >>> refused(Apply(KIND, "LN1", shape=(2, 1), opts=(("eps", 0),)))[0]
    'model.ln_eps'
    >>> refused(Apply(KIND, "LN1", shape=(2, 1), opts=(("eps", sympy.Rational(1, 10)),))) is None
    True
    """
    if a.shape[1] == 1 and a.opt("eps") == 0:
        return "model.ln_eps", ("expected ε > 0 with d = 1 (a row of one entry has variance 0, "
                                "so LayerNorm would divide 0 by √0), got 0")
    return None


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {
    "layout": "norm",
    "heading": "residual.ln",
    "definition": r"\mathrm{LN}(h)_j = \gamma_j \frac{h_j - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_j,\quad "
                  r"\mu = \frac{1}{d}\sum_j h_j,\quad \sigma^2 = \frac{1}{d}\sum_j (h_j - \mu)^2",
    "params": ("residual.params", (("gamma", "weights", "gamma"), ("beta", "weights", "beta"),
                                   ("eps", "exact", "eps"))),  # its sentence: γ, β (by role) and ε (an option)
    "row": "residual.row",                                       # the lead of one row's lines
}
"""How a document shows it (:mod:`symgpt.documents.transformer`): its definition and parameters, the
statistics and the output of each worked row (:func:`worked_row`), and for d = 2 why it rounds to ±1
(:func:`remark`)."""


def worked_row(a: Apply, t: int, h: str, value, fine: int, at: str = "") -> list:
    r"""The worked lines of row t: μ, σ² (at ``fine`` decimals), √(σ² + ε) and LN(h_t); ``h`` is the row's
    letter, ``value(name)`` a parameter's exact value (γ = 1 and β = 0 are left out of the lines), ``at`` the
    superscript naming the layer (``^{(2)}``) on μ, σ and LN, or nothing.

    >>> a = Apply("layernorm", "LN1", ("H1",), (2, 2), (("gamma", "gamma1"), ("beta", "beta1")), "",
    ...           opts=(("n", 1), ("eps", sympy.Integer(0))))
    >>> [ln["res"].get("ref") for ln in worked_row(a, 1, "h'", lambda name: 1 if "gamma" in name else 0, 4)]
    ['mu1[1]', 'var1[1]', 'sqrt(var1[1]+ln_eps)', None]
    >>> [ln["lhs"] for ln in worked_row(a, 1, "h'", lambda name: 1, 4, "^{(2)}")]  # doctest: +NORMALIZE_WHITESPACE
    ['\\mu^{(2)}', '\\left(\\sigma^{(2)}\\right)^2', '\\sqrt{\\left(\\sigma^{(2)}\\right)^2 + \\varepsilon}',
     "\\mathrm{LN}^{(2)}(h'_{1})"]
    """
    H, (mu, var), d = a.ins[0], _names(a), a.shape[1]
    gamma, beta = a.param("gamma"), a.param("beta")
    m, v = f"{mu}[{t}]", f"{var}[{t}]"
    sd = f"sqrt({v}+ln_eps)"
    x = lambda j: fig(f"{H}[{t},{j}]")
    size, eps = const(d), const(a.opt("eps"))
    dev = [Pow(Group(Sub(x(j), fig(m))), 2) for j in range(d)]
    out = [_affine(value, f"{gamma}[{j}]", Div(Group(Sub(x(j), fig(m))), fig(sd)), f"{beta}[{j}]") for j in range(d)]
    var_tex = rf"\left(\sigma{at}\right)^2" if at else r"\sigma^2"      # σ of layer 2, squared
    return [line(rf"\mu{at}", Div(Group(Add(*[x(j) for j in range(d)])), size), m),
            line(var_tex, Div(Group(Add(*dev)), size), result(v, fine)),
            line(rf"\sqrt{{{var_tex} + \varepsilon}}", Sqrt(Add(fig(v), eps)), sd),
            line(rf"\mathrm{{LN}}{at}({h}_{{{t}}})", Vec(*out), Vec(*[result(f"{a.out}[{t},{j}]") for j in range(d)]))]


def _affine(value, gamma: str, x, beta: str):
    """γ × x + β as a worked-line tree, leaving out γ = 1 and β = 0."""
    out = x if value(gamma) == 1 else Mul(fig(gamma, weight=True), x)
    return out if beta.startswith("None[") or value(beta) == 0 else Add(out, fig(beta, weight=True))


def remark(a: Apply, t: int, k: int) -> dict | None:
    r"""With d = 2, why row t comes out as ±1 (at k decimals): the display, and the sentence's figures as
    (name, kind, expression over node symbols, reference, ("decimals" | "significant", n)); None otherwise.

    >>> a = Apply("layernorm", "LN1", ("H1",), (2, 2), opts=(("n", 1), ("eps", sympy.Integer(0))))
    >>> [x[0] for x in remark(a, 1, 3)["args"]], remark(a, 1, 3)["args"][1][3]
    (['delta', 'ratio', 'gap'], 'abs((H1[1,0]-H1[1,1])/2)/sqrt(((H1[1,0]-H1[1,1])/2)^2+ln_eps)')
    """
    if a.shape[1] != 2:
        return None
    H, eps = a.ins[0], a.opt("eps")
    delta = (node_sym(H, (t, 0)) - node_sym(H, (t, 1))) / 2
    ratio = sympy.Abs(delta) / sympy.sqrt(delta ** 2 + eps)
    dref = f"abs(({H}[{t},0]-{H}[{t},1])/2)"
    rref = f"{dref}/sqrt((({H}[{t},0]-{H}[{t},1])/2)^2+ln_eps)"
    return {"text": "residual.d2", "then": "residual.d2_num",
            "display": r"h - \mu = (\delta, -\delta),\quad \delta = \frac{h_0 - h_1}{2},\quad "
                       r"\sigma^2 = \delta^2,\quad "
                       r"\mathrm{LN}(h)_j = \gamma_j \frac{\pm|\delta|}{\sqrt{\delta^2 + \varepsilon}} + \beta_j",
            "args": (("delta", "tex", sympy.Abs(delta), dref, ("decimals", k + 1)),
                     ("ratio", "num", ratio, rref, ("significant", k + 5)),
                     ("gap", "num", 1 - ratio, f"1-{rref}", ("significant", 3)))}


def inner(a: Apply) -> tuple:
    """The statistics inside it, which a picture of the gradient's route passes through.

    >>> inner(Apply("layernorm", "l0.LN2", ("l0.H2",), (2, 2), pre="l0.", opts=(("n", 2),)))
    ('l0.mu2', 'l0.var2')
    """
    return _names(a)
