"""The reference grammar, printed figures and claim values, against independent references.

Every expected value comes from hand arithmetic (Fractions), the pure-mpmath
oracle (tests/oracle.py) or Python's decimal module, never from symgpt itself.
"""
from __future__ import annotations

import re
import tomllib
from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import fmpq

from symgpt.claims.claims import Claim, ClaimError, judge, judge_all, parse_printed, read_claims
from symgpt.claims.refs import ExprError, bind, evaluate, parse
from symgpt.core.numeric import to_mpf

import oracle
from conftest import (
    BIGRAM,
    ORACLE_DPS,
    SEED,
    assert_close,
    ball_mid,
    derivation_of,
    ref_round_decimals,
    ref_round_significant,
    to_fraction,
    write_spec,
)

PREC = 200


def value(d, text):
    """A reference's enclosure read as an mpf (60 digits)."""
    with mpmath.workdps(60):
        return to_mpf(evaluate(text, d, PREC))


def exact(d, text) -> Fraction:
    v = evaluate(text, d, PREC)
    assert hasattr(v, "q"), f"{text} is not exact: {v}"
    return Fraction(int(v.p), int(v.q))


# ---------------------------------------------------------------- parser

@pytest.mark.parametrize("text, want", [
    ("1+2*3^2", Fraction(19)),
    ("-2^2", Fraction(-4)),
    ("(1-3)/4", Fraction(-1, 2)),
    ("2^-1", Fraction(1, 2)),
    ("0.1+0.2", Fraction(3, 10)),           # exact decimals, not floats
    ("1e-5*3", Fraction(3, 100000)),
    ("2 × 3 ÷ 4 − 1", Fraction(1, 2)),
    ("12+4+4+4+12+10", Fraction(46)),
    ("10000^(0/2)", Fraction(1)),
    ("sqrt(1.6384)", Fraction(128, 100)),     # an exact root stays exact
    ("sum(1, 2, 3) + mean(2, 4) + var(1, 3)", Fraction(6 + 3 + 1)),
])
def test_numbers_are_exact(seed, text, want):
    assert exact(seed, text) == want


def test_parse_tree_shapes():
    assert parse("exp(S[1,0]) / A_den[1]") == (
        "div", ("call", "exp", (("name", "S[1,0]"),)), ("name", "A_den[1]"))
    assert parse("sgd[5].loss") == ("name", "sgd[5].loss")
    assert parse("head_step.E[你,0] - E[你,0]")[1] == ("name", "head_step.E[你,0]")
    assert parse("l0.Q[1,0]") == ("name", "l0.Q[1,0]")
    assert parse("p[<pad>]*2")[1] == ("name", "p[<pad>]")
    assert parse("adamw[1].m[W,0,2]") == ("name", "adamw[1].m[W,0,2]")
    assert parse("softmax_T(inf, 鱼)") == ("call", "softmax_T", (("inf",), ("word", "鱼")))
    assert parse("topk(3, <pad>)")[2][1] == ("word", "<pad>")


@pytest.mark.parametrize("text, fragment", [
    ("__import__('os').system('x')", "unexpected character"),
    ("__import__(os)", "unknown function '__import__'"),
    ("os.system(1)", "unknown function 'os.system'"),
    ("eval(1)", "unknown function 'eval'"),
    ("a; b", "unexpected character ';'"),
    ("lambda: 1", "unexpected character ':'"),
    ("1 +", "unexpected end"),
    ("exp(1", "expected ')'"),
    ("p[你", "unclosed '['"),
    ("x y", "expected end of expression"),
    ("", "empty expression"),
    ("(" * 300 + "1" + ")" * 300, "nested too deeply"),
])
def test_parse_errors(text, fragment):
    with pytest.raises(ExprError, match=None) as e:
        parse(text)
    assert fragment in str(e.value)


# ---------------------------------------------------------------- printed figures

@pytest.mark.parametrize("text, kind, value, decimals", [
    ("0.454", "decimal", Fraction(454, 1000), 3),
    ("-0.915", "decimal", Fraction(-915, 1000), 3),
    ("+0.171", "decimal", Fraction(171, 1000), 3),
    ("-0.000", "decimal", Fraction(0), 3),
    ("46", "integer", Fraction(46), 0),
    ("8.5%", "percent", Fraction(85, 10), 1),
    ("0.1%", "percent", Fraction(1, 10), 1),
    ("1/3", "fraction", Fraction(1, 3), 0),
    ("10⁻⁵", "power", Fraction(1, 100000), 0),
    ("10^{-3}", "power", Fraction(1, 1000), 0),
    ("0.00003809", "decimal", Fraction(3809, 10 ** 8), 8),
    ("1e-3", "decimal", Fraction(1, 1000), 3),                   # rounded at its third place (ε = 1e-3 too)
    ("2.23×10⁻⁴", "decimal", Fraction(223, 10 ** 6), 6),          # rounded at the mantissa's last place
    ("2.23 \\times 10^{-4}", "decimal", Fraction(223, 10 ** 6), 6),
    ("5e-11", "decimal", Fraction(5, 10 ** 11), 11),
    ("1.48e-10", "decimal", Fraction(148, 10 ** 12), 12),
    ("-3.6909e-05", "decimal", Fraction(-36909, 10 ** 9), 9),
])
def test_parse_printed(text, kind, value, decimals):
    p = parse_printed(text)
    assert (p.kind, p.value, p.decimals) == (kind, value, decimals)


@pytest.mark.parametrize("text", ["abc", "0.4.5", "1,5", "", "≈0.5", "1e-3.5", "2.5×10^"])
def test_parse_printed_rejects(text):
    with pytest.raises(ExprError):
        parse_printed(text)


# ---------------------------------------------------------------- values against the oracle

def test_graph_names_against_oracle(seed, seed_oracle):
    o = seed_oracle
    assert_close(value(seed, "A[1,0]"), o["A"][1][0], 40, "A[1,0]")
    assert_close(value(seed, "p[你]"), o["p"][4], 40, "p[你]")
    assert exact(seed, "E[你,1]") == Fraction(9, 10)
    assert_close(value(seed, "exp(S[1,0]) / A_den[1]"), o["A"][1][0], 40, "softmax row")
    with mpmath.workdps(ORACLE_DPS):
        assert_close(value(seed, "sum_exp"), mpmath.fsum(mpmath.exp(z) for z in o["logits"]), 40)
        assert_close(value(seed, "-log(p[你])"), o["loss"], 40, "loss")
        assert_close(value(seed, "(H1[0,0]-mu1[0])^2"), (o["H1"][0][0] - o["mu1"][0]) ** 2, 40)


def test_slices_and_reductions(seed, seed_oracle):
    o = seed_oracle
    with mpmath.workdps(ORACLE_DPS):
        assert_close(value(seed, "var(H1[1,:])"), o["var1"][1], 40, "var")
        assert_close(value(seed, "mean(H1[1,:])"), o["mu1"][1], 40, "mean")
        assert_close(value(seed, "dot(Q[1,:], K[0,:]) / sqrt(d/heads)"), o["S"][1][0], 40, "dot")
        assert_close(value(seed, "sum(p[:])"), 1, 40, "sum of p")
        assert_close(value(seed, "max(p[:])"), max(o["p"]), 40, "max")
        assert_close(value(seed, "min(logits[:])"), min(o["logits"]), 40, "min")


def test_sampling_functions(seed, seed_oracle):
    z = seed_oracle["logits"]
    with mpmath.workdps(ORACLE_DPS):
        for T in (Fraction(1, 2), Fraction(2)):
            t = mpmath.mpf(T.numerator) / T.denominator
            want = oracle.softmax([x / t for x in z])
            for v, tok in enumerate(["<pad>", "<bos>", "我", "爱", "你", "他"]):
                assert_close(value(seed, f"softmax_T({T.numerator}/{T.denominator}, {tok})"), want[v], 40)
        p = seed_oracle["p"]
        top3 = sorted(range(6), key=lambda v: -p[v])[:3]
        mass = mpmath.fsum(p[v] for v in top3)
        for v, tok in enumerate(["<pad>", "<bos>", "我", "爱", "你", "他"]):
            want = p[v] / mass if v in top3 else 0
            assert_close(value(seed, f"topk(3, {tok})"), want, 40, f"topk {tok}")
        # top-p = 0.5: 爱 + 他 = 0.463 < 0.5, so three tokens are kept
        assert_close(value(seed, "topp(0.5, 爱)"), p[3] / mass, 40, "topp")
    assert exact(seed, "softmax_T(inf, 你)") == Fraction(1, 6)
    assert exact(seed, "topp(0.5, 你)") == 0


def test_counts(seed, bigram):
    spec = oracle.load_spec(SEED)
    w, layer = spec["weights"], spec["layer"][0]
    by_hand = sum(len(r) for r in w["E"]) + sum(
        len(layer[k]) * (len(layer[k][0]) if isinstance(layer[k][0], list) else 1)
        for k in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"))
    assert by_hand == 46
    assert exact(seed, "params()") == by_hand
    assert exact(bigram, "params()") == 12
    assert exact(seed, "vocab_size()") == 6 and exact(seed, "seq_len()") == 2
    assert exact(seed, "id(<pad>)") == 0 and exact(seed, "id(你)") == 4
    assert [exact(seed, f"onehot({t}, {tok})") for t in (0, 1) for tok in ("我", "爱")] == [1, 0, 0, 1]
    assert exact(seed, "argmax()") == 3                    # 爱, p = 0.255
    assert exact(seed, "d*d_ff + d_ff") == 12
    assert exact(seed, "ln_eps") == Fraction(1, 100000) and exact(seed, "pe_base") == 10000
    adamw = oracle.load_spec(BIGRAM)["training"]["adamw"]
    for name in ("lr", "beta1", "beta2", "eps", "weight_decay"):
        assert exact(bigram, f"adamw.{name}") == adamw[name]
    assert exact(bigram, "lr") == Fraction(1, 2)


def test_gradcheck_against_oracle(bigram):
    spec = oracle.load_spec(BIGRAM)
    want = oracle.central_difference(lambda s: oracle.bigram_forward(s, 60)["loss"], spec,
                                     ("weights", "W", 0, 2), "1e-5")
    assert_close(value(bigram, "gradcheck(W[0,2], 1e-5)"), want, 30, "gradcheck")


def _bigram_steps(wrong_order: bool, steps: int):
    """The document's own SGD loop, in mpmath at 60 digits (losses before each update)."""
    spec = oracle.load_spec(BIGRAM)
    with mpmath.workdps(60):
        E = oracle.mat(spec["weights"]["E"])
        W = oracle.mat(spec["weights"]["W"])
        tok, tgt, lr = 1, 2, mpmath.mpf(1) / 2
        losses = []
        for _ in range(steps + 1):
            x = E[tok]
            z = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]
            p = oracle.softmax(z)
            losses.append(-mpmath.log(p[tgt]))
            dz = [p[j] - (1 if j == tgt else 0) for j in range(3)]
            dW = [[x[i] * dz[j] for j in range(3)] for i in range(2)]
            if not wrong_order:
                dx = [sum(W[i][j] * dz[j] for j in range(3)) for i in range(2)]
            W = [[W[i][j] - lr * dW[i][j] for j in range(3)] for i in range(2)]
            if wrong_order:
                dx = [sum(W[i][j] * dz[j] for j in range(3)) for i in range(2)]
            E = [row[:] for row in E]
            E[tok] = [E[tok][i] - lr * dx[i] for i in range(2)]
        return losses


def test_training_states_against_mpmath_loop(bigram):
    right, wrong = _bigram_steps(False, 3), _bigram_steps(True, 3)
    for k in range(4):
        assert_close(value(bigram, f"sgd[{k}].loss"), right[k], 30, f"sgd[{k}]")
        assert_close(value(bigram, f"sgd_wrong_order[{k}].loss"), wrong[k], 30, f"wrong order [{k}]")
    assert ref_round_decimals(oracle_fraction(wrong[1]), 4) == "0.8792"   # the document's figure


def oracle_fraction(x) -> Fraction:
    from conftest import to_fraction
    return to_fraction(x)


def test_adamw_first_step(bigram, bigram_oracle):
    g = bigram_oracle["grad_W"][0][2]
    with mpmath.workdps(60):
        assert_close(value(bigram, "adamw[1].m[W,0,2]"), g / 10, 40, "m")
        assert_close(value(bigram, "adamw[1].v[W,0,2]"), g * g / 1000, 40, "v")
        assert_close(value(bigram, "adamw[1].mhat[W,0,2]"), g, 40, "mhat")
    assert exact(bigram, "adamw[1].decay[W,0,2]") == Fraction(1, 1000) * Fraction(1, 10) * Fraction(1, 10)


def test_head_step(seed, seed_oracle):
    o = seed_oracle
    with mpmath.workdps(60):
        g = (o["p"][4] - 1) * o["h_final"][0]
        assert_close(value(seed, "head_step.E[你,0]"), mpmath.mpf(2) / 10 - g / 10, 40)


# ---------------------------------------------------------------- binding errors

@pytest.mark.parametrize("text, fragment", [
    ("Foo[1]", "unknown quantity 'Foo'"),
    ("W[5,0]", "index '5' out of range"),
    ("W[1]", "takes 2 indices"),
    ("p[狗]", "index '狗' out of range"),
    ("id(狗)", "'狗' is not a token"),
    ("sgd[99].loss", "steps 0..20"),
    ("adamw[1].m[x,0]", "expected m[PARAM,i,j]"),
    ("sgd[1].m[W,0,2]", "AdamW quantity"),
    ("sgd[1].Foo[0]", "unknown quantity 'Foo'"),
    ("p[:] + 1", "slice"),
    ("dot(p[:], x[:])", "lengths 3 and 2 differ"),
    ("exp(1, 2)", "takes 1 argument"),
    ("softmax_T(0, 鱼)", "temperature must be > 0"),
    ("topk(9, 鱼)", "k must be 1..3"),
    ("gradcheck(z[0], 1e-5)", "not a parameter"),
    ("鱼", "is a token, not a quantity"),
    ("inf", "only a temperature"),
])
def test_binding_errors(bigram, text, fragment):
    with pytest.raises(ExprError) as e:
        bind(parse(text), bigram)
    assert fragment in str(e.value)


# ---------------------------------------------------------------- claims files

def test_read_claims_seed_files():
    for name in ("tiny-transformer", "bigram"):
        path = SEED.parent / f"{name}.claims.toml"
        tables = tomllib.loads(path.read_text(encoding="utf-8"))["claim"]  # the [[claim]] tables, by tomllib
        cf = read_claims(path)
        assert len(tables) > 100 and len(cf.claims) == len(tables)
        assert [(c.ref, c.printed, c.where) for c in cf.claims] == \
            [(t["ref"], t["printed"], t["where"]) for t in tables]
        assert cf.spec.name == f"{name}.toml"
        assert all(isinstance(c.printed, str) for c in cf.claims)


@pytest.mark.parametrize("body, fragment", [
    ('[[claim]]\nref = "loss"\nprinted = 1.0515\nwhere = "x"\n', 'claim 1 (line 2): printed: expected a string'),
    ('[[claim]]\nref = "loss"\nwhere = "x"\n', "missing printed"),
    ('[[claim]]\nref = "loss"\nprinted = "1"\nwhere = "x"\nvalue = "2"\n', "claim 1 (line 2): unknown key 'value'"),
    ('[[claim]\n', "not valid TOML"),
])
def test_read_claims_errors(tmp_path, body, fragment):
    path = tmp_path / "x.claims.toml"
    path.write_text(f'spec = "{BIGRAM.as_posix()}"\n' + body, encoding="utf-8")
    with pytest.raises(ClaimError) as e:
        read_claims(path)
    assert str(path) in str(e.value) and fragment in str(e.value)


def test_read_claims_needs_spec(tmp_path):
    path = tmp_path / "x.claims.toml"
    path.write_text('[[claim]]\nref = "loss"\nprinted = "1"\nwhere = "x"\n', encoding="utf-8")
    with pytest.raises(ClaimError, match="missing spec"):
        read_claims(path)


# ---------------------------------------------------------------- judge

def _judge(d, ref, printed, chain=None):
    c = Claim(1, 1, ref, printed, "test", chain)
    return judge(c, bind(parse(ref), d), bind(parse(chain), d) if chain else None)


def test_judge_decimal_percent_count(seed, seed_oracle):
    a10 = oracle_fraction(seed_oracle["A"][1][0])
    assert ref_round_decimals(a10, 3) == "0.454"
    assert _judge(seed, "A[1,0]", "0.454").verdict == "correct"
    v = _judge(seed, "A[1,0]", "0.455")
    assert (v.verdict, v.correct, v.cause) == ("wrong", "0.454", "last-digit slip")    # 0.455 for 0.45416
    # distance (printed − exact)/0.001, checked by the decimal module
    assert v.distance == ref_round_significant((Fraction(455, 1000) - a10) * 1000, 2)
    p4 = oracle_fraction(seed_oracle["p"][4])
    assert ref_round_decimals(p4 * 100, 1) == "8.5"
    assert _judge(seed, "p[你]", "8.5%").verdict == "correct"
    assert _judge(seed, "p[你]", "8.4%").correct == "8.5%"
    assert _judge(seed, "params()", "46").verdict == "correct"
    w = _judge(seed, "params()", "38", "12+4+4+4+12+10")
    assert (w.verdict, w.exact, w.distance, w.cause, w.chain_value) == ("wrong", "46", "-8.0", "plain error", "46")


def test_judge_sign_and_zero(seed):
    assert _judge(seed, "grad_logits[你]", "-0.915").verdict == "correct"
    assert _judge(seed, "grad_logits[你]", "0.915").verdict == "wrong"
    assert _judge(seed, "grad_logits[爱]", "+0.255").correct == "+0.255"
    assert _judge(seed, "A[0,1]", "-0.000").verdict == "correct"       # -0.000 is 0


def test_judge_carried_rounding(seed):
    # Q[1,0] is 0.88259…; the document adds its own rounded 0.4623 + 0.4200 = 0.8823 → 0.882
    v = _judge(seed, "Q[1,0]", "0.882", "0.4623+0.4200")
    assert (v.verdict, v.correct, v.cause, v.chain_value) == ("wrong", "0.883", "carried rounding", "0.882")


def test_judge_exact_notation(seed, bigram):
    assert _judge(bigram, "softmax_T(inf, 鱼)", "1/3").verdict == "correct"
    assert _judge(bigram, "softmax_T(inf, 鱼)", "1/4").verdict == "wrong"
    assert _judge(seed, "ln_eps", "10⁻⁵").verdict == "correct"
    assert _judge(seed, "ln_eps", "10^{-4}").verdict == "wrong"
    assert _judge(seed, "p[你]", "1/3").verdict == "wrong"               # an irrational is never 1/3


def test_trace_names_any_quantity(bigram):
    """sgd[1].z[0]: the logits after one update, against the document's own float64 loop."""
    import math
    E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]]
    W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]
    x = E[1]
    z = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]
    Z = sum(math.exp(v) for v in z)
    dz = [math.exp(v) / Z - (j == 2) for j, v in enumerate(z)]
    dx = [sum(W[i][j] * dz[j] for j in range(3)) for i in range(2)]
    W = [[W[i][j] - 0.5 * x[i] * dz[j] for j in range(3)] for i in range(2)]
    x = [x[i] - 0.5 * dx[i] for i in range(2)]
    for j in range(3):
        want = x[0] * W[0][j] + x[1] * W[1][j]
        assert abs(float(value(bigram, f"sgd[1].z[{j}]")) - want) < 1e-14


def test_relation_equals_requires_the_printed_chain_to_close(bigram):
    """relation = "=": the figure must also be what the printed operands give by hand."""
    def rel(ref, printed, chain, relation):
        c = Claim(1, 1, ref, printed, "test", chain, relation)
        return judge(c, bind(parse(ref), bigram), bind(parse(chain), bigram))
    # 0.3 × 0.5 = 0.15 exactly; 0.3 × 0.52 = 0.156 rounds to 0.16 by hand, not 0.15
    assert rel("0.3*0.5", "0.15", "0.3*0.5", "=").verdict == "correct"
    v = rel("0.3*0.5", "0.15", "0.3*0.52", "=")
    assert (v.verdict, v.cause, v.chain_value) == ("wrong", "equation does not close", "0.16")
    # with ≈ the chain may land one last-place unit away (0.156 → 0.16), no further (0.18)
    assert rel("0.3*0.5", "0.15", "0.3*0.52", "≈").verdict == "correct"
    v = rel("0.3*0.5", "0.15", "0.3*0.6", "≈")
    assert (v.verdict, v.cause, v.chain_value) == ("wrong", "approximation too far", "0.18")


@pytest.mark.parametrize("body, fragment", [
    ('ref = "loss"\nprinted = "1.0515"\nwhere = "x"\nrelation = "<"\nchain = "1"', 'relation: expected "=" or "≈"'),
    ('ref = "loss"\nprinted = "1.0515"\nwhere = "x"\nrelation = "="', "relation needs a chain"),
])
def test_relation_errors(tmp_path, body, fragment):
    p = tmp_path / "x.claims.toml"
    p.write_text(f'spec = "{BIGRAM}"\n\n[[claim]]\n{body}\n', encoding="utf-8")
    with pytest.raises(ClaimError, match=fragment):
        read_claims(p)


# ---------------------------------------------------------------- one evaluator

def test_arithmetic_claim_goes_through_the_engine_evaluator(seed):
    """A[1,0] + A[1,1] − 0.9995: attention rows sum to exactly 1, so the value is
    1 − 0.9995 = 1/2000, a tie at 3 decimals that rounds half away from zero to 0.001.
    No ball settles on a tie: the engine's exact-rational fallback decides it."""
    exact = Fraction(1) - Fraction("0.9995")
    want = ref_round_decimals(exact, 3)
    assert want == "0.001"
    q = bind(parse("A[1,0] + A[1,1] - 0.9995"), seed)
    assert q.expr is not None and q.exact() == fmpq(exact.numerator, exact.denominator)
    v = _judge(seed, "A[1,0] + A[1,1] - 0.9995", "0.001")
    assert (v.verdict, v.correct, v.exact) == ("correct", want, "0.0005")
    assert _judge(seed, "A[1,0] + A[1,1] - 0.9995", "0.000").verdict == "wrong"


def test_states_stay_closures_through_the_same_certifier(bigram):
    q = bind(parse("loss - sgd[1].loss"), bigram)
    assert q.expr is None
    with mpmath.workdps(40):
        want = ref_round_decimals(to_fraction(mpmath.mpf(bigram.value("loss", digits=30))
                                              - mpmath.mpf(bigram.value("sgd[1].loss", digits=30))), 4)
    assert _judge(bigram, "loss - sgd[1].loss", want).verdict == "correct"


# ---------------------------------------------------------------- nesting depth

@pytest.mark.parametrize("text", [
    "-" * 1500 + "1",
    "+" * 1500 + "1",
    "-(" * 300 + "1" + ")" * 300,
    "2^" * 300 + "2",
    "+".join(["1"] * 500),
    "*".join(["1"] * 500),
])
def test_deep_nesting_is_a_clear_error_not_a_recursion_error(text):
    with pytest.raises(ExprError, match="nested too deeply"):
        parse(text)


def test_moderate_nesting_still_evaluates(bigram):
    assert evaluate("-" * 41 + "2", bigram) == -2
    assert evaluate("+".join(["1"] * 60), bigram) == 60
    assert evaluate("(" * 30 + "3" + ")" * 30, bigram) == 3


def test_deep_claim_is_reported_as_bad_input(tmp_path):
    p = tmp_path / "x.claims.toml"
    p.write_text(f'spec = "{BIGRAM.as_posix()}"\n\n[[claim]]\nref = "{"-" * 1500}1"\n'
                 f'printed = "1"\nwhere = "x"\n', encoding="utf-8")
    cf = read_claims(p)
    import symgpt
    with pytest.raises(ClaimError, match="nested too deeply"):
        judge_all(cf, symgpt.load("bigram"))


# ---------------------------------------------------------------- signed zeros

@pytest.mark.parametrize("ref, printed, verdict", [
    ("0.0000033", "-0.000", "wrong"),        # +3.3e-6 is not below zero
    ("0.0000033", "−0.000", "wrong"),
    ("0.0000033", "0.000", "correct"),
    ("0.0000033", "+0.000", "correct"),
    ("-0.0000033", "-0.000", "correct"),     # rounds to 0 from below
    ("-0.0000033", "+0.000", "wrong"),
    ("-0.0000033", "0.000", "correct"),      # no sign shown, none claimed
    ("sin(1)^2 + cos(1)^2 - 1 + 0.0000033", "-0.000", "wrong"),   # balls, not a rational
    ("sin(1)^2 + cos(1)^2 - 1", "-0.000", "correct"),             # exactly 0 (SymPy proves it)
    ("sin(1)^2 + cos(1)^2 - 1", "+0.000", "correct"),
])
def test_a_printed_zero_keeps_its_sign(bigram, ref, printed, verdict):
    v = _judge(bigram, ref, printed)
    assert v.verdict == verdict
    if verdict == "wrong":
        assert v.correct == ("-0.000" if ref.startswith("-") else "0.000")


def test_an_exact_zero_may_show_either_sign(seed):
    # A[0,1] is masked: exactly 0
    assert _judge(seed, "A[0,1]", "-0.000").verdict == "correct"
    assert _judge(seed, "A[0,1]", "0.000").verdict == "correct"
    assert _judge(seed, "A[0,1]", "+0.000").verdict == "correct"


# ---------------------------------------------------------------- one vocabulary

def test_split_and_join_are_inverse():
    from symgpt.engine.names import RefError, join, split
    assert split("W[0,2]") == ("W", ("0", "2")) and join("W", (0, 2)) == "W[0,2]"
    assert split("l1.LN2[3,0]") == ("l1.LN2", ("3", "0"))
    assert split("p[<pad>]") == ("p", ("<pad>",))
    assert split("loss") == ("loss", ()) and join("loss", ()) == "loss"
    with pytest.raises(RefError):
        split("adamw[1].m[W,0,2]")


def test_the_registry_resolves_every_kind_of_name(bigram):
    R = bigram._registry
    r = R.ref("p[鱼]")
    assert (r.name, r.pretty, r.kind, r.group, r.index, r.shape) == ("p[2]", "p[鱼]", "node", "p", (2,), (3,))
    assert R.ref("p[2]") == r and str(r.expr) == "p[2]"
    g = R.ref("grad_W[0,鱼]")
    assert (g.name, g.kind, g.shape) == ("grad_W[0,2]", "node", (2, 3))
    # sizes and hyper-parameters: the spec's own text (d = 2, lr = 0.5, adamw eps = 1e-8, β2 = 0.999)
    assert [R.ref(n).expr for n in ("d", "lr", "adamw.eps", "adamw.beta2")] == \
        [2, sympy.Rational(1, 2), sympy.Rational(1, 10 ** 8), sympy.Rational(999, 1000)]
    assert R.ref("adamw.lr").kind == "size"
    s = R.ref("sgd[3].p[鱼]")
    assert (s.name, s.pretty, s.kind, s.opt, s.step, s.part) == ("sgd[3].p[2]", "sgd[3].p[鱼]", "state", "sgd", 3, "p")
    for m in ("m", "v", "mhat", "vhat", "update", "decay"):
        a = R.ref(f"adamw[2].{m}[W,0,鱼]")
        assert (a.name, a.node, a.part, a.group) == (f"adamw[2].{m}[W,0,2]", "W[0,2]", "moment", m)
    assert R.ref("adamw[1].lr").part == "lr" and R.ref("sgd[1].clip_coef").part == "clip_coef"
    assert R.ref("sgd[1].grad_W[0,2]").part == "grad" and R.ref("sgd[1].grad_z[0]").part == "node"
    assert R.ref("sgd_wrong_order[1].W[0,2]").part == "param"
    assert [n for n in R.sizes() if n.name == "lr"][0].expr == sympy.Rational(1, 2)
    # the Ref's ball is the Derivation's: m after one AdamW step is (1 − β1)·g = g/10
    with mpmath.workdps(40):
        m = ball_mid(R.ref("adamw[1].m[W,0,2]").ball(200))
        grad = ball_mid(R.ref("grad_W[0,2]").ball(200))
        assert abs(m - grad / 10) < mpmath.mpf(10) ** -35


@pytest.mark.parametrize("text, fragment", [
    ("sgd_wrong_order[1].z[0]", "sgd_wrong_order[k] has loss"),
    ("adamw[0].m[W,0,2]", "after an update"),
    ("adamw[1].m[W]", "expected m[PARAM,i,j]"),
    ("head_step.E[0,0]", "tied transformer head"),
])
def test_the_registry_says_what_is_wrong(bigram, text, fragment):
    from symgpt.engine.names import RefError
    with pytest.raises(RefError, match=re.escape(fragment)):
        bigram._registry.ref(text)


def test_layer_prefixes_and_head_step(seed, tmp_path):
    R = seed._registry
    h = R.ref("head_step.E[你,0]")
    assert (h.name, h.pretty, h.kind) == ("head_step.E[4,0]", "head_step.E[你,0]", "head_step")
    assert h.expr == seed.head_step("E[4,0]")
    assert R.ref("head_step.loss").expr is None
    import oracle
    d = derivation_of(write_spec(tmp_path, oracle.random_spec_toml(seed=1, V=5, d=4, heads=2, d_ff=4,
                                                                    layers=2, T=3)))
    q = d._registry.ref("l1.Q[2,3]")
    assert (q.group, q.index, q.shape) == ("l1.Q", (2, 3), (3, 4))
    assert d._registry.ref("sgd[1].l0.W_Q[0,1]").part == "param"


def test_a_whole_number_index_is_an_id_even_when_a_token_is_a_numeral(tmp_path):
    """vocab ["2", "吃", "0"]: p[0] is the first token's probability, by a float64 softmax written here."""
    import math

    import symgpt
    text = BIGRAM.read_text(encoding="utf-8").replace('["猫", "吃", "鱼"]', '["2", "吃", "0"]')
    text = text.replace('target = "鱼"', 'target = "0"')
    p = tmp_path / "numerals.toml"
    p.write_text(text, encoding="utf-8")
    d = symgpt.load(p)
    x, W = [0.3, -0.1], [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]   # E[吃] and W of the bigram seed
    z = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]
    probs = [math.exp(v) / sum(math.exp(u) for u in z) for v in z]
    assert d.node("p[0]") == "p[0]" and d.pretty("p[0]") == "p[0]" and d.node("p[吃]") == "p[1]"
    assert abs(float(d.value("p[0]", digits=15)) - probs[0]) < 1e-14
