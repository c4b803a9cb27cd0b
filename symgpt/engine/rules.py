"""Adjoint rules of each operation kind, derived once with SymPy on generic symbols.

Each operation of the model (softmax + cross-entropy, a causal softmax row with
its named denominator, a LayerNorm row with its named mean and variance, ReLU,
a matmul, attention scores and output) has its local adjoint rule derived here
by SymPy's ``diff`` of the forward definition (symgpt/layers.py) on generic
real symbols of a small size, re-folded onto per-element symbols, and proven
equal to the rule as the documents state it (:data:`STATED`).  A failed proof
is a :class:`RuleError`.  The per-element rules are then compiled with
:func:`symgpt.core.numeric.compile_expr` into closures of fmpq or arb numbers, which
the tensor engine calls per element; the matrix rules are checks only (the
engine multiplies arb_mat / fmpq_mat).  Each derivation runs once per process.

Adjoints follow the graph's reverse mode (:meth:`symgpt.core.graph.Graph.backward`):
a named intermediate (the mean mu, the variance var, the denominator den) has
its own adjoint, the sum over its consumers, while ``grad_x`` of a LayerNorm
input is the total derivative through mu, var and LN.

>>> from flint import fmpq
>>> softmax_xent().grad_z(fmpq(1, 4), fmpq(1), fmpq(2))   # (p − y)/n
-3/8
>>> layernorm_vanishes(2, sympy.Integer(0)), layernorm_vanishes(4, sympy.Rational(1, 100000))
(True, False)
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ..core.graph import ReLU, Step
from ..core.numeric import compile_expr

R = sympy.Rational


class RuleError(Exception):
    """A derived adjoint does not equal the stated rule (or the derivation could not be re-folded)."""


STATED = {
    # softmax + cross-entropy, one row's share of the mean over n rows
    "softmax_xent.grad_z": lambda p, y, n: (p - y) / n,
    # causal softmax row with a named denominator (e = exp(S_s))
    "softmax_den.grad_den_term": lambda gA, e, den: -gA * e / den**2,
    "softmax_den.grad_S": lambda gA, e, den, gden: gA * e / den + gden * e,
    # LayerNorm row: c = x_j − mu, s = √(var + ε), g = grad_LN_j, a = mean(g γ), b = mean(g γ c)
    "layernorm.grad_gamma_term": lambda g, c, s: g * c / s,
    "layernorm.grad_beta_term": lambda g: g,
    "layernorm.grad_var_term": lambda g, gamma, c, s: -g * gamma * c / (2 * s**3),
    "layernorm.grad_mu_term": lambda g, gamma, s: -g * gamma / s,
    "layernorm.grad_x": lambda g, gamma, c, s, a, b: (g * gamma - a) / s - c * b / s**3,
    # ReLU, with step = ReLU'(Z) decided (ReLU'(0) = 0)
    "relu.grad_Z": lambda gR, step: gR * step,
    # matrices (G is the adjoint of the product)
    "matmul.grad_X": lambda G, W: G * W.T,
    "matmul.grad_W": lambda X, G: X.T * G,
    "scores.grad_Q": lambda gS, K, d_k: gS * K / sympy.sqrt(d_k),
    "scores.grad_K": lambda gS, Q, d_k: gS.T * Q / sympy.sqrt(d_k),
    "attend.grad_A": lambda gO, V: gO * V.T,
    "attend.grad_V": lambda A, gO: A.T * gO,
}
"""The rules as the documents state them, one line per adjoint; each is proven equal to
SymPy's derivation, and its parameter order is the argument order of the numeric closure."""


@dataclass(eq=False)
class Rule:
    """One operation kind: forward definition, derived adjoints, what was proven, numeric closures.

    ``forward`` and ``derived`` map names to SymPy expressions over the generic
    symbols documented in ``symbols``; each per-element adjoint is also an
    attribute, a closure of fmpq/arb numbers compiled from ``derived``.

    >>> r = relu()
    >>> r.name, r.derived["grad_Z"], r.grad_Z(3, 1)
    ('relu', gR*step, 3)
    """
    name: str
    forward: dict
    symbols: dict
    derived: dict
    checked: str
    closures: dict = field(default_factory=dict)

    def __getattr__(self, attr):
        closures = self.__dict__.get("closures", {})
        if attr in closures:
            return closures[attr]
        raise AttributeError(f"rule {self.__dict__.get('name')!r} has no closure {attr!r}")


# ---------------------------------------------------------------- helpers


def _stated(rule: str, adjoint: str, syms: dict):
    """The stated rule ``rule.adjoint`` applied to the generic symbols named by its parameters."""
    fn = STATED[f"{rule}.{adjoint}"]
    return fn(*[syms[a] for a in inspect.signature(fn).parameters])


def _prove_equal(what: str, derived, stated) -> None:
    """Raise RuleError unless derived − stated is 0 (expand, then cancel, then simplify)."""
    diff = derived - stated
    if isinstance(diff, sympy.MatrixBase):
        bad = [e for e in diff if not _is_zero(e)]
        if bad:
            raise RuleError(f"{what}: the derived matrix {derived} is not the stated rule {stated}")
        return
    if not _is_zero(diff):
        raise RuleError(f"{what}: SymPy derives {derived}, the stated rule is {stated} "
                        f"(difference {sympy.simplify(diff)})")


def _is_zero(e) -> bool:
    e = sympy.expand(e)
    return e == 0 or sympy.cancel(e) == 0 or sympy.simplify(e) == 0


def _generic(what: str, per_index: list, renames: list, stated) -> sympy.Expr:
    """The one expression over the generic symbols that every index's derivation gives.

    ``per_index[j]`` is the derived adjoint for index j over indexed symbols;
    ``renames[j]`` maps them to the generic ones.  Each must equal the stated rule.
    """
    forms = [e.xreplace(r) for e, r in zip(per_index, renames)]
    for j, f in enumerate(forms):
        _prove_equal(f"{what} at index {j}", f, stated)
    return forms[0]


def _closure(name: str, expr, args: tuple):
    """f(*args) -> fmpq | arb, compiled from ``expr`` with symgpt.core.numeric.compile_expr."""
    extra = expr.free_symbols - set(args)
    if extra:
        raise RuleError(f"{name} = {expr} still depends on {sorted(map(str, extra))}, not only on {args}")
    f = compile_expr(expr, {a: i for i, a in enumerate(args)}, None)

    def rule(*values):
        return f(values)
    rule.__name__ = name
    rule.__doc__ = f"{name}({', '.join(map(str, args))}) = {expr}"
    rule.args, rule.expr = args, expr
    return rule


def _closures(rule: str, derived: dict, syms: dict) -> dict:
    out = {}
    for name, expr in derived.items():
        if f"{rule}.{name}" in STATED:
            params = tuple(syms[a] for a in inspect.signature(STATED[f"{rule}.{name}"]).parameters)
            out[name] = _closure(name, expr, params)
    return out


def _real(names: str):
    return sympy.symbols(names, real=True)


# ---------------------------------------------------------------- softmax + cross-entropy


N_LOGITS = 4


@functools.cache
def softmax_xent() -> Rule:
    """loss = mean over n rows of −z_target + ln Σ_k exp(z_k); grad_z(p, y, n) = (p − y)/n.

    Derived on 4 generic logits (the target as a one-hot y, so −z_target = −Σ y_k z_k),
    ``exp(z_j)`` re-folded as p_j · sum_exp.

    >>> from flint import fmpq
    >>> softmax_xent().grad_z(fmpq(1, 3), fmpq(0), fmpq(1))
    1/3
    """
    V = N_LOGITS
    z, y, p = _real(f"z0:{V}"), _real(f"y0:{V}"), _real(f"p0:{V}")
    n, sum_exp = sympy.symbols("n sum_exp", positive=True)
    g = {"p": sympy.Symbol("p", real=True), "y": sympy.Symbol("y", real=True), "n": n}
    se = sympy.Add(*[sympy.exp(zk) for zk in z])
    loss = (-sympy.Add(*[yk * zk for yk, zk in zip(y, z)]) + sympy.log(se)) / n
    per = []
    for j in range(V):
        d = sympy.diff(loss, z[j]).xreplace({se: sum_exp})
        per.append(d.xreplace({sympy.exp(z[j]): p[j] * sum_exp}))
    stated = _stated("softmax_xent", "grad_z", g)
    grad_z = _generic("softmax_xent.grad_z", per, [{p[j]: g["p"], y[j]: g["y"]} for j in range(V)], stated)
    # the literal −z_t form, p unfolded, for every target t and logit j
    for t in range(V):
        lit = (-z[t] + sympy.log(se)) / n
        for j in range(V):
            want = STATED["softmax_xent.grad_z"](sympy.exp(z[j]) / se, int(j == t), n)
            _prove_equal(f"softmax_xent.grad_z (target {t}, logit {j})", sympy.diff(lit, z[j]), want)
    derived = {"grad_z": grad_z}
    return Rule(
        name="softmax_xent",
        forward={"loss": loss, **{f"p[{j}]": sympy.exp(z[j]) / se for j in range(V)}},
        symbols={"z0..z3": "logits of one row", "y0..y3": "one-hot target of the row",
                 "n": "number of rows the loss averages", "sum_exp": "Σ_k exp(z_k)",
                 "p": "p_j = exp(z_j)/sum_exp", "y": "y_j (1 at the target)"},
        derived=derived,
        checked=(f"∂loss/∂z_j = (p_j − y_j)/n for every logit j of {V} generic logits (one-hot y as symbols, "
                 f"and −z_t + ln Σ exp for each target t), by diff, then expand"),
        closures=_closures("softmax_xent", derived, g),
    )


# ---------------------------------------------------------------- causal softmax row


N_POSITIONS = 4


@functools.cache
def softmax_den() -> Rule:
    """den = Σ_{s≤t} exp(S_s), A_s = exp(S_s)/den: grad_den_term and grad_S (e = exp(S_s)).

    >>> from flint import fmpq
    >>> r = softmax_den()
    >>> r.grad_den_term(fmpq(1), fmpq(2), fmpq(4)), r.grad_S(fmpq(1), fmpq(2), fmpq(4), fmpq(-1, 8))
    (-1/8, 1/4)
    """
    T = N_POSITIONS
    S, gA, e = _real(f"S0:{T}"), _real(f"gA0:{T}"), sympy.symbols(f"e0:{T}", positive=True)
    den, gden = sympy.Symbol("den", positive=True), sympy.Symbol("gden", real=True)
    g = {"gA": sympy.Symbol("gA", real=True), "e": sympy.Symbol("e", positive=True), "den": den, "gden": gden}
    den_def = sympy.Add(*[sympy.exp(Ss) for Ss in S])
    A = [sympy.exp(Ss) / den for Ss in S]  # den a named node: A depends on it, not on its definition
    fold = {sympy.exp(S[s]): e[s] for s in range(T)}
    ren = [{gA[s]: g["gA"], e[s]: g["e"]} for s in range(T)]
    term = [(gA[s] * sympy.diff(A[s], den)).xreplace(fold) for s in range(T)]
    grad_den_term = _generic("softmax_den.grad_den_term", term, ren, _stated("softmax_den", "grad_den_term", g))
    gS = [(sympy.Add(*[gA[r] * sympy.diff(A[r], S[s]) for r in range(T)])
           + gden * sympy.diff(den_def, S[s])).xreplace(fold) for s in range(T)]
    grad_S = _generic("softmax_den.grad_S", gS, ren, _stated("softmax_den", "grad_S", g))
    # the composite: reverse mode through den equals diff of Σ_r gA_r softmax_r(S)
    composite = sympy.Add(*[gA[r] * sympy.exp(S[r]) / den_def for r in range(T)])
    esum = sympy.Add(*e)
    at_e = {S[r]: sympy.log(e[r]) for r in range(T)}
    gden_total = sympy.Add(*[grad_den_term.xreplace({g["gA"]: gA[r], g["e"]: e[r], den: esum}) for r in range(T)])
    for s in range(T):
        total = sympy.diff(composite, S[s]).xreplace({den_def: esum}).xreplace(at_e)  # exp(S0)² is exp(2·S0)
        rev = grad_S.xreplace({g["gA"]: gA[s], g["e"]: e[s], den: esum, gden: gden_total})
        _prove_equal(f"softmax_den: total ∂/∂S_{s} through den", total, rev)
    derived = {"grad_den_term": grad_den_term, "grad_S": grad_S}
    return Rule(
        name="softmax_den",
        forward={"den": den_def, **{f"A[{s}]": A[s] for s in range(T)}},
        symbols={"S0..S3": "scores of the positions s ≤ t", "den": "Σ_{s≤t} exp(S_s) (a named node)",
                 "gA0..gA3": "grad_A[t,s]", "gden": "grad_den = Σ_s grad_den_term", "e": "exp(S_s)",
                 "gA": "grad_A[t,s]"},
        derived=derived,
        checked=(f"grad_den_term = −gA·e/den², grad_S = gA·e/den + gden·e at each of {T} generic positions, and "
                 f"with den and gden substituted they equal diff of Σ gA_r·softmax_r(S) (expand, cancel)"),
        closures=_closures("softmax_den", derived, g),
    )


# ---------------------------------------------------------------- LayerNorm row


LN_D = 4


@functools.cache
def layernorm() -> Rule:
    """mu = Σx/d, var = Σ(x − mu)²/d, LN_j = γ_j (x_j − mu)/√(var + ε) + β_j: every adjoint of a row.

    >>> from flint import fmpq
    >>> r = layernorm()
    >>> r.grad_gamma_term(fmpq(2), fmpq(1, 2), fmpq(1, 4)), r.grad_mu_term(fmpq(1), fmpq(3), fmpq(2))
    (4, -3/2)
    >>> r.grad_x(fmpq(1), fmpq(1), fmpq(1, 2), fmpq(1), fmpq(1, 4), fmpq(1, 2))
    1/2
    """
    d = LN_D
    x, gamma, beta, gLN = _real(f"x0:{d}"), _real(f"gamma0:{d}"), _real(f"beta0:{d}"), _real(f"g0:{d}")
    c = _real(f"c0:{d}")
    mu, var, gmu, gvar, a, b = _real("mu var gmu gvar a b")
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

    def generic(adjoint, per):
        return _generic(f"layernorm.{adjoint}", per, ren, _stated("layernorm", adjoint, G))

    grad_gamma_term = generic("grad_gamma_term", [folded(gLN[j] * sympy.diff(LN[j], gamma[j])) for j in range(d)])
    grad_beta_term = generic("grad_beta_term", [folded(gLN[j] * sympy.diff(LN[j], beta[j])) for j in range(d)])
    var_terms = [folded(gLN[j] * sympy.diff(LN[j], var)) for j in range(d)]
    grad_var_term = generic("grad_var_term", var_terms)
    mu_terms = [folded(gLN[j] * sympy.diff(LN[j], mu)) for j in range(d)]
    grad_mu_term = generic("grad_mu_term", mu_terms)
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
    for node, (total, mean, sym) in sums.items():
        ratio = sympy.cancel(total / mean)  # grad_node = ratio · mean
        if ratio.free_symbols & set(gLN):
            raise RuleError(f"layernorm: {node} = {total} is not a multiple of {mean}")
        means[node] = ratio * sym
    grad_x = generic("grad_x", [sympy.expand(e.xreplace(means)) for e in local])
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
        closures=_closures("layernorm", derived, G),
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


# ---------------------------------------------------------------- ReLU


@functools.cache
def relu() -> Rule:
    """R = ReLU(Z): grad_Z(gR, step) = gR · step, with step = ReLU'(Z) decided and ReLU'(0) = 0.

    >>> from flint import fmpq
    >>> relu().grad_Z(fmpq(5, 7), fmpq(0)), relu().grad_Z(fmpq(5, 7), fmpq(1))
    (0, 5/7)
    """
    Z, gR, step = _real("Z gR step")
    derived_Z = gR * sympy.diff(ReLU(Z), Z)
    if derived_Z != gR * Step(Z):
        raise RuleError(f"relu: SymPy differentiates ReLU(Z) to {derived_Z / gR}, not Step(Z)")
    for z, want in ((-1, 0), (0, 0), (R(1, 3), 1)):  # Step is ReLU' with ReLU'(0) = 0, as PyTorch
        if Step(z) != want or Step(z) != sympy.Heaviside(z, 0):
            raise RuleError(f"relu: Step({z}) = {Step(z)}, expected {want} (ReLU'(0) = 0)")
    G = {"gR": gR, "step": step}
    grad_Z = derived_Z.xreplace({Step(Z): step})
    _prove_equal("relu.grad_Z", grad_Z, _stated("relu", "grad_Z", G))
    derived = {"grad_Z": grad_Z}
    return Rule(
        name="relu", forward={"R": ReLU(Z)},
        symbols={"Z": "pre-activation", "gR": "grad_R", "step": "Step(Z) = ReLU'(Z) ∈ {0, 1}, decided"},
        derived=derived,
        checked="d ReLU(Z)/dZ = Step(Z) = Heaviside(Z, 0) at −1, 0, 1/3 (ReLU'(0) = 0); grad_Z = gR·step",
        closures=_closures("relu", derived, G),
    )


# ---------------------------------------------------------------- matrices (checks only)


def _matrix(name: str, rows: int, cols: int) -> sympy.ImmutableMatrix:
    return sympy.ImmutableMatrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i}{j}", real=True))


def _bilinear(rule: str, forward, inputs: dict, adjoint: str, extra: dict | None = None) -> tuple:
    """Adjoints of Y = forward(inputs) by diff of Σ G∘Y, each proven equal to the stated matrix rule.

    Returns (Y, derived): derived[grad_<input>] is the matrix of ∂(Σ G∘Y)/∂input[i, j].
    """
    Y = forward(**inputs)
    G = _matrix(adjoint, *Y.shape)
    L = sum((G[i, j] * Y[i, j] for i in range(Y.shape[0]) for j in range(Y.shape[1])), sympy.S.Zero)
    syms = {**inputs, adjoint: G, **(extra or {})}
    derived = {}
    for name, M in inputs.items():
        grad = sympy.ImmutableMatrix(*M.shape, lambda i, j: sympy.expand(sympy.diff(L, M[i, j])))
        _prove_equal(f"{rule}.grad_{name}", grad, _stated(rule, f"grad_{name}", syms))
        derived[f"grad_{name}"] = grad
    return Y, derived


@functools.cache
def matmul() -> Rule:
    """Y = X·W on a generic 2×3 · 3×2 product: grad_X = G·Wᵀ, grad_W = Xᵀ·G (checks only).

    >>> matmul().derived["grad_X"].shape, matmul().closures
    ((2, 3), {})
    """
    X, W = _matrix("X", 2, 3), _matrix("W", 3, 2)
    Y, derived = _bilinear("matmul", lambda X, W: X * W, {"X": X, "W": W}, "G")
    return Rule(name="matmul", forward={"Y": Y}, symbols={"X": "2×3", "W": "3×2", "G": "grad_Y, 2×2"},
                derived=derived, checked="grad_X = G·Wᵀ and grad_W = Xᵀ·G entrywise by diff of Σ G∘(X·W), "
                "on a generic 2×3 · 3×2 product")


@functools.cache
def scores() -> Rule:
    """S = Q Kᵀ/√d_k (every (t, s), before the mask): grad_Q = grad_S·K/√d_k, grad_K = grad_Sᵀ·Q/√d_k.

    >>> scores().derived["grad_K"].shape
    (3, 2)
    """
    T, d_k = 3, 2
    Q, K = _matrix("Q", T, d_k), _matrix("K", T, d_k)
    Y, derived = _bilinear("scores", lambda Q, K: Q * K.T / sympy.sqrt(d_k), {"Q": Q, "K": K}, "gS",
                           {"d_k": d_k})
    return Rule(name="scores", forward={"S": Y}, symbols={"Q": f"{T}×{d_k}", "K": f"{T}×{d_k}",
                                                          "gS": f"grad_S, {T}×{T}"},
                derived=derived, checked=f"grad_Q = grad_S·K/√d_k and grad_K = grad_Sᵀ·Q/√d_k entrywise by diff, "
                f"T = {T}, d_k = {d_k}")


@functools.cache
def attend() -> Rule:
    """O = A·V: grad_A = grad_O·Vᵀ, grad_V = Aᵀ·grad_O (A generic, so causal zeros included).

    >>> attend().derived["grad_V"].shape
    (3, 2)
    """
    T, d_v = 3, 2
    A, V = _matrix("A", T, T), _matrix("V", T, d_v)
    Y, derived = _bilinear("attend", lambda A, V: A * V, {"A": A, "V": V}, "gO")
    return Rule(name="attend", forward={"O": Y}, symbols={"A": f"{T}×{T}", "V": f"{T}×{d_v}",
                                                          "gO": f"grad_O, {T}×{d_v}"},
                derived=derived, checked=f"grad_A = grad_O·Vᵀ and grad_V = Aᵀ·grad_O entrywise by diff, "
                f"T = {T}, d_v = {d_v}")


def all_rules() -> list:
    """Every operation kind's rule, derived and checked (once per process).

    >>> [r.name for r in all_rules()]
    ['softmax_xent', 'softmax_den', 'layernorm', 'relu', 'matmul', 'scores', 'attend']
    """
    return [softmax_xent(), softmax_den(), layernorm(), relu(), matmul(), scores(), attend()]


# ---------------------------------------------------------------- a locally constant LayerNorm


def layernorm_vanishes(d: int, eps) -> bool:
    """True exactly when x ↦ LN(x) on rows of d has an identically zero Jacobian (generic γ).

    That is d = 1 with ε > 0 (LN is β) and d = 2 with ε = 0 (x̂ = ±1 is locally
    constant); then every gradient through the LayerNorm is exactly 0.  Decided
    by SymPy: for d ≤ 3 the Jacobian of x̂ = (x − mu)/√(var + ε) on generic real
    symbols, times s³, is a polynomial tested for 0; for larger d a rational
    point where ∂x̂_0/∂x_0 is exactly nonzero is exhibited.  d = 1 with ε = 0
    divides by zero.

    >>> layernorm_vanishes(1, sympy.Rational(1, 100000)), layernorm_vanishes(2, 0), layernorm_vanishes(3, 0)
    (True, True, False)
    >>> layernorm_vanishes(1, 0)
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
    x = _real(f"x0:{d}")
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
                raise RuleError(f"layernorm_vanishes(d={d}, ε={eps}): could not clear √(var + ε) from {J}")
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
