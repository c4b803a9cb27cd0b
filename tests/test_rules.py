"""The adjoint rules of the ops (symgpt.ops: each op's STATED rows, proven by symgpt.core.prove) against
independent values.

References: central differences in mpmath of the forward definitions written
here (60 digits, h = 1e-20, compared to 1e-30), exact finite differences in
Fractions, hand closed forms, PyTorch's ReLU'(0), and the hand facts of when a
LayerNorm is locally constant.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb, ctx, fmpq
from hypothesis import given
from hypothesis import strategies as st

from symgpt import ops
from symgpt.core.prove import RuleError
from symgpt.ops import attention, layernorm, linear, relu, rope, softmax_xent

STATED = {k: v for m in (*ops.OPS.values(), rope) for k, v in getattr(m, "STATED", {}).items()}   # rope: attention's
"""Every op's stated rules, by ``rule.adjoint``."""


def _table(key: str) -> dict:
    """The op module's own table that states ``key``."""
    return next(m.STATED for m in (softmax_xent, attention, layernorm, relu, linear) if key in m.STATED)

DPS, H, TOL = 60, mpmath.mpf("1e-20"), mpmath.mpf("1e-30")
PREC = 256  # flint bits for the closures' balls

fractions = st.builds(Fraction, st.integers(-10**6, 10**6), st.integers(1, 10**4))


def rationals(rng, k, lo=-3, hi=3, den=7):
    """k random rationals in [lo, hi] with denominators up to den."""
    return [Fraction(rng.randint(lo * den, hi * den), rng.randint(1, den)) for _ in range(k)]


def fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def mp(x) -> mpmath.mpf:
    """An mpf of a Fraction, an fmpq or (the midpoint of) a tight arb ball."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, fmpq):
        return mpmath.mpf(int(x.p)) / int(x.q)
    assert x.rad() < arb("1e-50"), f"ball too wide: {x}"
    return mpmath.mpf(x.mid().str(70, radius=False))


def central(f, xs, i, h=H):
    """∂f/∂x_i at xs by a central difference (error ~ h² at DPS digits)."""
    up, dn = list(xs), list(xs)
    up[i] += h
    dn[i] -= h
    return (f(up) - f(dn)) / (2 * h)


def close(value, ref) -> bool:
    return abs(mp(value) - ref) <= TOL * max(1, abs(ref))


@pytest.fixture
def rederive(monkeypatch):
    """Each derivation run afresh (the caches cleared before and after, the proof store off: a table patched in
    memory is not a change of the sources it is keyed by), with monkeypatch."""
    monkeypatch.setenv("SYMGPT_CACHE", "off")
    cached = (softmax_xent.softmax_xent_rule, attention.softmax_den_rule, layernorm.layernorm_rule, relu.relu_rule,
              linear.matmul_rule, attention.scores_rule, attention.attend_rule)
    for f in cached:
        f.cache_clear()
    yield monkeypatch
    for f in cached:
        f.cache_clear()


# ---------------------------------------------------------------- softmax + cross-entropy


def test_softmax_xent_against_central_differences():
    rng = random.Random(1)
    n, V = 3, 5
    Z = [rationals(rng, V) for _ in range(n)]
    targets = [rng.randrange(V) for _ in range(n)]

    def loss(flat):  # mean over rows of −z_target + ln Σ exp z
        rows = [flat[r * V:(r + 1) * V] for r in range(n)]
        return sum(-z[t] + mpmath.log(sum(mpmath.exp(v) for v in z)) for z, t in zip(rows, targets)) / n

    rule = softmax_xent.softmax_xent_rule()
    with mpmath.workdps(DPS), ctx.workprec(PREC):
        flat = [mp(v) for z in Z for v in z]
        for r, (z, t) in enumerate(zip(Z, targets)):
            e = [arb(fq(v)).exp() for v in z]
            den = sum(e[1:], e[0])
            for j in range(V):
                got = rule.grad_z(e[j] / den, fmpq(int(j == t)), fmpq(n))
                assert close(got, central(loss, flat, r * V + j)), (r, j)


@given(fractions, st.sampled_from([0, 1]), st.integers(1, 50))
def test_softmax_xent_is_p_minus_y_exactly(p, y, n):
    got = softmax_xent.softmax_xent_rule().grad_z(fq(p), fmpq(y), fmpq(n))
    assert isinstance(got, fmpq) and got == fq((p - y) / n)


# ---------------------------------------------------------------- causal softmax row


def test_softmax_den_against_central_differences():
    rng = random.Random(2)
    T = 4
    S, gA = rationals(rng, T), rationals(rng, T)
    rule = attention.softmax_den_rule()

    def downstream(s):  # Σ_s gA_s A_s(S), the row's softmax through its denominator
        e = [mpmath.exp(v) for v in s]
        return sum(g * v for g, v in zip(gA_mp, e)) / sum(e)

    def with_den(s_and_den):  # den held as its own node: A_s = exp(S_s)/den
        *s, den = s_and_den
        return sum(g * mpmath.exp(v) for g, v in zip(gA_mp, s)) / den

    with mpmath.workdps(DPS), ctx.workprec(PREC):
        gA_mp, S_mp = [mp(g) for g in gA], [mp(v) for v in S]
        e = [arb(fq(v)).exp() for v in S]
        den = sum(e[1:], e[0])
        terms = [rule.grad_den_term(fq(g), es, den) for g, es in zip(gA, e)]
        gden = sum(terms[1:], terms[0])
        assert close(gden, central(with_den, S_mp + [mp(den)], T))
        for s in range(T):
            assert close(rule.grad_S(fq(gA[s]), e[s], den, gden), central(downstream, S_mp, s)), s


def test_softmax_den_exact_values():
    r = attention.softmax_den_rule()
    assert r.grad_den_term(fmpq(3), fmpq(2), fmpq(5)) == fmpq(-6, 25)
    assert r.grad_S(fmpq(3), fmpq(2), fmpq(5), fmpq(-6, 25)) == fmpq(6, 5) - fmpq(12, 25)


# ---------------------------------------------------------------- LayerNorm


def _layernorm_case(seed, d, eps):
    rng = random.Random(seed)
    return rationals(rng, d), rationals(rng, d), rationals(rng, d), rationals(rng, d), eps


def _ln(x, gamma, beta, eps, mu=None, var=None):
    """LN of a row in mpmath; mu and var from their definitions unless given (named nodes)."""
    d = len(x)
    mu = sum(x) / d if mu is None else mu
    var = sum((v - mu) ** 2 for v in x) / d if var is None else var
    return [gm * (v - mu) / mpmath.sqrt(var + eps) + bt for v, gm, bt in zip(x, gamma, beta)]


@pytest.mark.parametrize("d", [3, 5])
def test_layernorm_against_central_differences(d):
    x, gamma, beta, g, eps = _layernorm_case(d, d, Fraction(1, 100000))
    rule = layernorm.layernorm_rule()
    mu = sum(x) / d
    c = [v - mu for v in x]
    var = sum(v * v for v in c) / d
    a = sum(gj * gm for gj, gm in zip(g, gamma)) / d
    b = sum(gj * gm * cj for gj, gm, cj in zip(g, gamma, c)) / d
    with mpmath.workdps(DPS), ctx.workprec(PREC):
        X, Gm, B, Gd, E = ([mp(v) for v in vs] for vs in (x, gamma, beta, g, [eps]))
        E = E[0]
        s = arb(fq(var + eps)).sqrt()

        def L(xs):  # Σ_j g_j LN_j(x), mu and var from x: the total derivative
            return sum(gj * v for gj, v in zip(Gd, _ln(xs, Gm, B, E)))

        def L_gamma(gs):
            return sum(gj * v for gj, v in zip(Gd, _ln(X, gs, B, E)))

        def L_nodes(mv):  # mu and var held as named nodes
            return sum(gj * v for gj, v in zip(Gd, _ln(X, Gm, B, E, mu=mv[0], var=mv[1])))

        def var_def(m):  # var's definition, Σ(x − mu)²/d, as a function of the node mu
            return sum((v - m[0]) ** 2 for v in X) / d

        for j in range(d):
            got = rule.grad_x(fq(g[j]), fq(gamma[j]), fq(c[j]), s, fq(a), fq(b))
            assert close(got, central(L, X, j)), ("grad_x", j)
            assert close(rule.grad_gamma_term(fq(g[j]), fq(c[j]), s), central(L_gamma, Gm, j)), ("grad_gamma", j)
            assert rule.grad_beta_term(fq(g[j])) == fq(g[j])
        nodes = [mp(mu), mp(var)]
        var_terms = [rule.grad_var_term(fq(g[j]), fq(gamma[j]), fq(c[j]), s) for j in range(d)]
        mu_terms = [rule.grad_mu_term(fq(g[j]), fq(gamma[j]), s) for j in range(d)]
        assert close(sum(var_terms[1:], var_terms[0]), central(L_nodes, nodes, 1))
        assert close(sum(mu_terms[1:], mu_terms[0]), central(L_nodes, nodes, 0))
        assert abs(central(var_def, [mp(mu)], 0)) < TOL  # grad_mu's var path is 0


def test_layernorm_exact_when_the_root_is_rational():
    # x = (0, 0, 2, 2): mu = 1, var = 1, ε = 0, so s = 1 and every adjoint stays an exact fmpq
    x, gamma, g = ([Fraction(v) for v in vs] for vs in ((0, 0, 2, 2), ("1/2", 2, -1, 3), (1, "-2/3", 5, 1)))
    d, rule = 4, layernorm.layernorm_rule()
    c = [v - 1 for v in x]
    a = sum(gj * gm for gj, gm in zip(g, gamma)) / d
    b = sum(gj * gm * cj for gj, gm, cj in zip(g, gamma, c)) / d
    with mpmath.workdps(DPS):
        def L(xs):
            return sum(mp(gj) * v for gj, v in zip(g, _ln(xs, [mp(v) for v in gamma], [0] * d, 0)))
        for j in range(d):
            got = rule.grad_x(fq(g[j]), fq(gamma[j]), fq(c[j]), fmpq(1), fq(a), fq(b))
            assert isinstance(got, fmpq)
            assert close(got, central(L, [mp(v) for v in x], j))


def test_layernorm_d2_eps0_gives_exact_zeros():
    # d = 2, ε = 0: c = ±h, s = |h|, so grad_x = (gγ − a)/s − c·b/s³ is exactly 0 for every g, γ
    rule = layernorm.layernorm_rule()
    g, gamma, h = [fmpq(3), fmpq(-5, 2)], [fmpq(7), fmpq(1, 3)], fmpq(2, 9)
    c = [h, -h]
    a = (g[0] * gamma[0] + g[1] * gamma[1]) / 2
    b = (g[0] * gamma[0] * c[0] + g[1] * gamma[1] * c[1]) / 2
    assert [rule.grad_x(g[j], gamma[j], c[j], h, a, b) for j in range(2)] == [0, 0]


# ---------------------------------------------------------------- ReLU


def test_relu_rule_and_the_tie_rule_of_pytorch():
    torch = pytest.importorskip("torch")
    z = torch.tensor([-0.5, 0.0, 0.5], dtype=torch.float64, requires_grad=True)
    torch.relu(z).sum().backward()
    steps = [fmpq(int(v)) for v in z.grad.tolist()]  # PyTorch: ReLU'(0) = 0
    assert [relu.relu_rule().grad_Z(fmpq(7, 3), s) for s in steps] == [0, 0, fmpq(7, 3)]
    assert relu.relu_rule().grad_Z(arb(2), fmpq(1)) == 2
    from symgpt.ops.relu import Step
    assert [Step(sympy.Rational(v)) for v in ("-1/2", "0", "1/2")] == [0, 0, 1]


# ---------------------------------------------------------------- matrices


def _bilinear_check(rule, forward, inputs, adjoint_shape, seed):
    """Every derived grad_<input> entry against a central difference of Σ G∘forward(inputs)."""
    rng = random.Random(seed)
    G = [rationals(rng, adjoint_shape[1]) for _ in range(adjoint_shape[0])]
    derived_syms = {str(s): s for m in rule.derived.values() for s in m.free_symbols}
    values = {}
    for name, (r, c) in inputs.items():
        values[name] = [rationals(rng, c) for _ in range(r)]
    adj = next(iter({str(s)[:-2] for s in derived_syms} - set(inputs)))
    with mpmath.workdps(DPS):
        def L(vals):
            Y = forward(**vals)
            return sum(mp(G[i][j]) * Y[i][j] for i in range(len(Y)) for j in range(len(Y[0])))
        mvals = {k: [[mp(v) for v in row] for row in m] for k, m in values.items()}
        subs = {derived_syms[f"{adj}{i}{j}"]: sympy.Rational(str(G[i][j]))
                for i in range(adjoint_shape[0]) for j in range(adjoint_shape[1]) if f"{adj}{i}{j}" in derived_syms}
        for k, m in values.items():
            subs.update({derived_syms[f"{k}{i}{j}"]: sympy.Rational(str(m[i][j])) for i in range(len(m))
                         for j in range(len(m[0])) if f"{k}{i}{j}" in derived_syms})
        for name, (r, c) in inputs.items():
            grad = rule.derived[f"grad_{name}"]
            assert grad.shape == (r, c)
            for i in range(r):
                for j in range(c):
                    def along(t, name=name, i=i, j=j):
                        vals = {k: [row[:] for row in m] for k, m in mvals.items()}
                        vals[name][i][j] += t[0]
                        return L(vals)
                    want = central(along, [mpmath.mpf(0)], 0)
                    got = mpmath.mpf(str(sympy.N(grad[i, j].xreplace(subs), DPS)))
                    assert abs(got - want) <= TOL, (name, i, j)


def _matmul(A, B):
    return [[sum(A[i][r] * B[r][j] for r in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def test_matmul_rule():
    _bilinear_check(linear.matmul_rule(), lambda X, W: _matmul(X, W), {"X": (2, 3), "W": (3, 2)}, (2, 2), 5)


def test_scores_rule():
    def S(Q, K):
        Kt = [list(col) for col in zip(*K)]
        return [[v / mpmath.sqrt(2) for v in row] for row in _matmul(Q, Kt)]
    _bilinear_check(attention.scores_rule(), S, {"Q": (3, 2), "K": (3, 2)}, (3, 3), 6)


def test_attend_rule():
    _bilinear_check(attention.attend_rule(), lambda A, V: _matmul(A, V), {"A": (3, 3), "V": (3, 2)}, (3, 2), 7)


# ---------------------------------------------------------------- the rule records


def test_every_closure_is_compiled_from_its_derived_expression():
    api = {"softmax_xent": {"grad_z"}, "softmax_den": {"grad_den_term", "grad_S"},
           "layernorm": {"grad_gamma_term", "grad_var_term", "grad_mu_term", "grad_x"}, "relu": {"grad_Z"},
           "matmul": set(), "scores": set(), "attend": set(), "gelu": {"grad_Z"}, "gelu_tanh": {"grad_Z"},
           "silu": {"grad_Z"}, "rmsnorm": {"grad_gamma_term", "grad_ms_term", "grad_x"},
           "swiglu": {"grad_Z", "grad_U"}, "rope": {"grad_first", "grad_second"}}
    for r in ops.all_rules():
        assert r.name in api and r.forward and r.derived and r.checked and r.symbols
        assert api[r.name] <= set(r.closures)
        for name, f in r.closures.items():
            assert f.expr == r.derived[name]
            assert [str(a) for a in f.args] == list(STATED[f"{r.name}.{name}"].__code__.co_varnames[
                :STATED[f"{r.name}.{name}"].__code__.co_argcount])
    with pytest.raises(AttributeError):
        relu.relu_rule().grad_nothing


@pytest.mark.parametrize("key, wrong, derive", [
    ("softmax_xent.grad_z", lambda p, y, n: p - y, softmax_xent.softmax_xent_rule),
    ("softmax_den.grad_S", lambda gA, e, den, gden: gA * e / den, attention.softmax_den_rule),
    ("layernorm.grad_x", lambda g, gamma, c, s, a, b: (g * gamma - a) / s, layernorm.layernorm_rule),
    ("layernorm.grad_mu_term", lambda g, gamma, s: g * gamma / s, layernorm.layernorm_rule),
    ("relu.grad_Z", lambda gR, step: gR, relu.relu_rule),
    ("matmul.grad_X", lambda G, W: 2 * G * W.T, linear.matmul_rule),
    ("scores.grad_K", lambda gS, Q, d_k: gS * Q / sympy.sqrt(d_k), attention.scores_rule),
])
def test_a_wrong_rule_fails_its_check(rederive, key, wrong, derive):
    rederive.setitem(_table(key), key, wrong)
    with pytest.raises(RuleError, match=key.split(".")[0]):
        derive()


# ---------------------------------------------------------------- a locally constant LayerNorm

EPS = [sympy.Integer(0), sympy.Rational(1, 100000)]


def _hand_vanishes(d, eps):
    """LN is β at d = 1 (ε > 0) and x̂ = ±1 at d = 2 (ε = 0); nowhere else."""
    return bool((d == 1 and eps > 0) or (d == 2 and eps == 0))


@pytest.mark.parametrize("d", range(1, 7))
@pytest.mark.parametrize("eps", EPS)
def test_layernorm_vanishes_against_hand_facts(d, eps):
    if d == 1 and eps == 0:
        with pytest.raises(ValueError, match="d = 1 with ε = 0"):
            layernorm.vanishes(d, eps)
        return
    assert layernorm.vanishes(d, eps) is _hand_vanishes(d, eps)
    # and numerically: the largest Jacobian entry at a random rational row, by central differences
    rng = random.Random(d)
    x = rationals(rng, d)
    with mpmath.workdps(DPS):
        X = [mp(v) for v in x]
        biggest = max(abs(central(lambda xs: _ln(xs, [1] * d, [0] * d, mp(Fraction(str(eps))))[i], X, j))
                      for i in range(d) for j in range(d))
        assert (biggest < TOL) is _hand_vanishes(d, eps)


def test_layernorm_vanishes_large_d_and_its_inputs():
    assert layernorm.vanishes(64, sympy.Rational(1, 100000)) is False
    assert layernorm.vanishes(2, Fraction(0)) is True and layernorm.vanishes(1, 1) is True
    with pytest.raises(TypeError, match="exact rational"):
        layernorm.vanishes(2, 1e-5)
    with pytest.raises(ValueError, match="≥ 0"):
        layernorm.vanishes(3, sympy.Rational(-1, 10))
    with pytest.raises(ValueError, match="integer ≥ 1"):
        layernorm.vanishes(0, sympy.Integer(0))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_the_point_certificate_is_the_jacobian_entry(d):
    """layernorm._nonzero_at_a_point reads the sign of ∂x̂_0/∂x_0 = ((1 − 1/d)·s² − c_0²/d)/s³ off its
    numerator: that closed form is SymPy's diff of x̂_0 = (x_0 − mu)/√(var + ε) on generic symbols."""
    x = sympy.symbols(f"x0:{d}", real=True)
    eps = sympy.Symbol("eps", positive=True)
    mu = sympy.Add(*x) / d
    s2 = sympy.Add(*[(xi - mu) ** 2 for xi in x]) / d + eps
    derived = sympy.diff((x[0] - mu) / sympy.sqrt(s2), x[0])
    stated = ((1 - sympy.Rational(1, d)) * s2 - (x[0] - mu) ** 2 / d) / s2 ** sympy.Rational(3, 2)
    assert sympy.simplify(derived - stated) == 0
