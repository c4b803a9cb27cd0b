"""The transformer against the pure-mpmath oracle (60 digits) and hand closed forms."""
from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sympy import Rational, sin, sqrt

import oracle
from conftest import (
    ORACLE_DPS,
    assert_close,
    assert_significant,
    derivation_of,
    oracle_quantities,
    ref_round_significant,
    replace_once,
    write_spec,
)


def check_all_quantities(d, res, digits=30):
    """Every quantity the oracle knows, to ``digits`` digits via ``d.mpf(name, 40)``."""
    want = oracle_quantities(res)
    assert len(want) > 20
    for name, value in want.items():
        assert_close(d.mpf(name, 40), value, digits, name)
    return want


# ---------------------------------------------------------------- the seed

def test_seed_loss_35_digits(seed_oracle):
    import symgpt
    got = symgpt.load("tiny-transformer").value("loss", digits=35)
    assert len(got.replace(".", "")) == 35
    assert_significant(got, seed_oracle["loss"], 35)


def test_seed_loss_other_precisions(seed, seed_oracle):
    for n in (1, 5, 12, 20, 45):
        assert_significant(seed.value("loss", digits=n), seed_oracle["loss"], n)


@pytest.mark.parametrize("group", ["logits", "p"])
def test_seed_head_to_30_digits(seed, seed_oracle, group):
    for v, want in enumerate(seed_oracle[group]):
        assert_close(seed.mpf(f"{group}[{v}]", 40), want, 30, f"{group}[{v}]")


def test_mpf_honours_dps(seed, seed_oracle):
    # at the default mp.dps = 15, d.mpf(name, 40) is still good to 40 digits
    # (a regression test: it used to be rounded to the ambient 15 digits)
    assert mpmath.mp.dps == 15
    assert_close(seed.mpf("logits[1]", 40), seed_oracle["logits"][1], 38, "logits[1]")
    assert_close(seed.mpf("Q[0,0]", 40), "1.05", 38, "Q[0,0]")  # exactly 21/20
    with mpmath.workdps(60):
        assert_close(seed.mpf("loss", 55), seed_oracle["loss"], 53, "loss")


def test_seed_token_names(seed, seed_oracle):
    # p[你] is p[4]: the vocabulary order of the spec
    assert_close(seed.mpf("p[你]", 40), seed_oracle["p"][4], 30, "p[你]")
    assert_close(seed.mpf("logits[<pad>]", 40), seed_oracle["logits"][0], 30, "logits[<pad>]")


def test_seed_attention_weights(seed, seed_oracle):
    A = seed_oracle["A"]
    T = len(A)
    assert T == 2
    for t in range(T):
        for s in range(T):
            assert_close(seed.mpf(f"A[{t},{s}]", 40), A[t][s], 30, f"A[{t},{s}]")
    # the causal mask: exactly zero above the diagonal
    assert seed.closed_form("A[0,1]") == 0
    assert seed.value("A[0,1]") == "0"
    # each row sums to one
    with mpmath.workdps(50):
        assert abs(seed.mpf("A[1,0]", 40) + seed.mpf("A[1,1]", 40) - 1) < mpmath.mpf(10) ** -35


def test_seed_every_oracle_quantity(seed, seed_oracle):
    names = check_all_quantities(seed, seed_oracle)
    for k in ("Q[1,1]", "K[1,0]", "V[0,1]", "S[1,0]", "H1[1,1]", "LN1[1,0]", "Z[1,3]", "R[0,2]",
              "F[1,1]", "H2[0,0]", "LN2[1,1]", "mu1[1]", "var2[0]", "A_den[1]", "h_final[1]", "sum_exp"):
        assert k in names


def test_seed_closed_forms(seed):
    assert seed.closed_form("PE[1,0]") == sin(1)
    assert seed.closed_form("PE[1,1]") == sympy.cos(1)
    assert seed.closed_form("PE[0,0]") == 0 and seed.closed_form("PE[0,1]") == 1
    assert seed.closed_form("H0[1,0]") == Rational(7, 10) + sin(1)
    assert seed.closed_form("H0[1,1]") == Rational(3, 10) + sympy.cos(1)
    # H0[0] = E[我] + PE[0] = (0.5, 1.8); Q[0,0] = 0.5·0.3 + 1.8·0.5
    assert seed.closed_form("H0[0,0]") == Rational(1, 2)
    assert seed.closed_form("H0[0,1]") == Rational(9, 5)
    assert seed.closed_form("Q[0,0]") == Rational(21, 20)


def test_seed_first_position_by_hand(seed):
    # t = 0 attends only to itself: A[0,0] = 1 and Attn[0] = V[0] = H0[0]·W_V
    # = (0.5·0.1 + 1.8·0.7, 0.5·0.5 + 1.8·0.3) = (1.31, 0.79); H1[0] = (1.81, 2.59)
    assert seed.closed_form("A[0,0]") == 1
    assert seed.closed_form("Attn[0,0]") == Rational(131, 100)
    assert seed.closed_form("H1[0,0]") == Rational(181, 100)
    assert seed.closed_form("H1[0,1]") == Rational(259, 100)
    assert seed.closed_form("mu1[0]") == Rational(11, 5)
    assert seed.closed_form("var1[0]") == Rational(1521, 10000)


def _ln00(eps):
    # LN1[0,0] = (1.81 − 2.2)/sqrt(0.1521 + ε) = −0.39/sqrt(0.1521 + ε)
    return -Rational(39, 100) / sqrt(Rational(1521, 10000) + eps)


def test_seed_relu_input_decided_positive(seed):
    # Z[0,0] = LN1[0,0]·0.3 + LN1[0,1]·0.2 + 0.1 with LN1[0] = (−a, a),
    # a = 0.39/sqrt(0.1521 + 1e-5), so Z[0,0] = 0.1·(1 − a).
    # a < 1 because 0.39² = 0.1521 < 0.1521 + 1e-5: Z[0,0] > 0 (≈ 3.29e-6).
    eps = Rational(1, 100000)
    assert Rational(39, 100) ** 2 < Rational(1521, 10000) + eps
    hand = Rational(1, 10) * (1 + _ln00(eps))
    assert sympy.simplify(seed.closed_form("Z[0,0]") - hand) == 0
    assert seed.sign("Z[0,0]") == 1
    assert seed.sign("R[0,0]") == 1
    assert "Z[0,0]" not in seed._ev.ties
    with mpmath.workdps(60):
        z = mpmath.mpf(1) / 10 * (1 - mpmath.mpf("0.39") / mpmath.sqrt(mpmath.mpf("0.15211")))
        assert mpmath.mpf("3.28e-6") < z < mpmath.mpf("3.30e-6")
        assert seed.value("Z[0,0]", digits=20) == ref_round_significant(z, 20)
        assert seed.value("R[0,0]", digits=20) == ref_round_significant(z, 20)


def test_seed_layernorm_with_eps_is_not_minus_one(seed):
    with mpmath.workdps(60):
        want = -mpmath.mpf("0.39") / mpmath.sqrt(mpmath.mpf("0.1521") + mpmath.mpf("1e-5"))
        assert seed.value("LN1[0,0]", digits=20) == ref_round_significant(want, 20)
        assert seed.value("LN1[0,1]", digits=20) == ref_round_significant(-want, 20)
    assert seed.value("LN1[0,0]", digits=20) != "-1"
    assert sympy.simplify(seed.closed_form("LN1[0,0]") - _ln00(Rational(1, 100000))) == 0


# ---------------------------------------------------------------- ε = 0: an exact ReLU tie

@pytest.fixture(scope="module")
def eps0(tmp_path_factory, seed_text):
    text = replace_once(seed_text, "ln_eps = 1e-5", "ln_eps = 0")
    path = write_spec(tmp_path_factory.mktemp("eps0"), text, "eps0.toml")
    return path, derivation_of(path, gradients=False)  # forward values only: no backward graph


def test_eps0_layernorm_is_exactly_minus_one(eps0):
    _, d = eps0
    assert d.spec.ln_eps == 0
    assert d.closed_form("LN1[0,0]") == -1
    assert d.closed_form("LN1[0,1]") == 1


def test_eps0_relu_tie_is_zero(eps0):
    _, d = eps0
    assert d.sign("Z[0,0]") == 0
    assert "Z[0,0]" in d._ev.ties
    assert d.closed_form("Z[0,0]") == 0
    # the documented rule ReLU(0) = 0 (and not SymPy's Heaviside(0) = 1/2 anywhere)
    assert d.value("R[0,0]") == "0"
    assert d.closed_form("R[0,0]") == 0
    assert d.sign("R[0,0]") == 0


def test_eps0_agrees_with_oracle(eps0):
    path, d = eps0
    res = oracle.transformer_forward(oracle.load_spec(path), dps=ORACLE_DPS)
    assert_significant(d.value("loss", digits=30), res["loss"], 30)
    check_all_quantities(d, res)


# ---------------------------------------------------------------- other specs

def test_three_token_input(tmp_path, seed_text):
    text = replace_once(seed_text, 'input = ["我", "爱"]', 'input = ["<bos>", "我", "爱"]')
    path = write_spec(tmp_path, text)
    d = derivation_of(path, gradients=False)  # forward values only: no backward graph
    assert d.spec.T == 3
    res = oracle.transformer_forward(oracle.load_spec(path), dps=ORACLE_DPS)
    assert_significant(d.value("loss", digits=30), res["loss"], 30)
    names = check_all_quantities(d, res)
    assert "A[2,1]" in names and "PE[2,0]" in names
    assert d.closed_form("A[1,2]") == 0
    # PE[2] = (sin 2, cos 2)
    assert d.closed_form("PE[2,0]") == sin(2)


@pytest.mark.parametrize("seed_no,kwargs", [
    (0, {}),
    (7, {}),
    (3, {"tied": False, "W_O": True}),
])
def test_random_multilayer_multihead(tmp_path, seed_no, kwargs):
    text = oracle.random_spec_toml(seed=seed_no, V=8, d=4, heads=2, layers=2, T=4, **kwargs)
    path = write_spec(tmp_path, text)
    d = derivation_of(path, gradients=False)  # forward values only: no backward graph
    s = d.spec
    assert (s.V, s.d, s.heads, s.layers, s.T) == (8, 4, 2, 2, 4)
    res = oracle.transformer_forward(oracle.load_spec(path), dps=ORACLE_DPS)
    assert_significant(d.value("loss", digits=30), res["loss"], 30)
    for v in range(8):
        assert_close(d.mpf(f"logits[{v}]", 40), res["logits"][v], 30, f"logits[{v}]")
        assert_close(d.mpf(f"p[{v}]", 40), res["p"][v], 30, f"p[{v}]")
    n_attn = 0
    for l, block in enumerate(res["blocks"]):
        for h in range(2):
            for t in range(4):
                for u in range(4):
                    name = f"l{l}.A[{h},{t},{u}]"
                    assert_close(d.mpf(name, 40), block["A"][h][t][u], 30, name)
                    n_attn += 1
    assert n_attn == 2 * 2 * 4 * 4
    check_all_quantities(d, res)


# ---------------------------------------------------------------- property: random small specs

def _dec(i: int) -> str:
    """A one-decimal number's text: 7 → "0.7", -12 → "-1.2"."""
    sign = "-" if i < 0 else ""
    return f"{sign}{abs(i) // 10}.{abs(i) % 10}"


@st.composite
def small_specs(draw):
    V = draw(st.integers(2, 5))
    d = draw(st.sampled_from([2, 4]))
    heads = draw(st.sampled_from([h for h in (1, 2, 4) if d % h == 0]))
    d_ff = draw(st.integers(1, 4))
    layers = draw(st.integers(1, 2))
    T = draw(st.integers(1, 3))
    tied = draw(st.booleans())
    w = st.integers(-12, 12).map(_dec)

    def vec(n):
        return "[" + ", ".join(draw(w) for _ in range(n)) + "]"

    def mat(a, b):
        return "[" + ", ".join(vec(b) for _ in range(a)) + "]"

    vocab = [f"w{i}" for i in range(V)]
    inp = [vocab[draw(st.integers(0, V - 1))] for _ in range(T)]
    lines = ["[model]", 'kind = "transformer"', "vocab = [" + ", ".join(f'"{t}"' for t in vocab) + "]",
             f"d = {d}", f"heads = {heads}", f"d_ff = {d_ff}", f"layers = {layers}",
             f"tied = {'true' if tied else 'false'}", "ln_eps = 1e-5", "",
             "[data]", "input = [" + ", ".join(f'"{t}"' for t in inp) + "]",
             f'target = "{vocab[draw(st.integers(0, V - 1))]}"', "", "[weights]", f"E = {mat(V, d)}"]
    if not tied:
        lines.append(f"W_out = {mat(d, V)}")
    for _ in range(layers):
        lines += ["", "[[layer]]", f"W_Q = {mat(d, d)}", f"W_K = {mat(d, d)}", f"W_V = {mat(d, d)}",
                  f"W_1 = {mat(d, d_ff)}", f"b_1 = {vec(d_ff)}", f"W_2 = {mat(d_ff, d)}", f"b_2 = {vec(d)}"]
        if draw(st.booleans()):
            lines += [f"gamma1 = {vec(d)}", f"beta1 = {vec(d)}", f"gamma2 = {vec(d)}", f"beta2 = {vec(d)}"]
    return "\n".join(lines) + "\n"


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_specs())
def test_random_small_specs_loss_agrees_with_oracle(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_spec(Path(tmp), text)
        d = derivation_of(path, gradients=False)
        res = oracle.transformer_forward(oracle.loads_spec(text), dps=ORACLE_DPS)
        assert_significant(d.value("loss", digits=25), res["loss"], 25, guard=Fraction(1, 10 ** 45))


EQUAL_ENTRIES = """
[model]
kind = "transformer"
vocab = ["w0", "w1", "w2", "w3", "w4"]
d = 2
heads = 2
d_ff = 2
layers = 2
tied = true
ln_eps = 1e-5

[data]
input = ["w3"]
target = "w0"

[weights]
E = [[1.1, 0.7], [-0.8, -0.3], [-0.7, -0.4], [0.6, -0.7], [-1.0, -1.2]]

[[layer]]
W_Q = [[-0.2, -0.3], [0.7, 0.1]]
W_K = [[-0.1, 0.4], [0.4, -0.4]]
W_V = [[-0.2, 0.5], [-0.3, -0.7]]
W_1 = [[0.2, 0.9], [-0.6, 0.1]]
b_1 = [-1.1, 0.7]
W_2 = [[0.9, -0.6], [-1.2, 1.2]]
b_2 = [0.8, -0.3]

[[layer]]
W_Q = [[0.7, -1.1], [0.1, 0.6]]
W_K = [[-0.9, 1.1], [-0.5, 0.0]]
W_V = [[0.0, 0.0], [0.0, 0.0]]
W_1 = [[0.0, 0.0], [0.0, 0.0]]
b_1 = [0.0, 0.0]
W_2 = [[0.0, 0.0], [0.0, 0.0]]
b_2 = [0.0, 0.0]
"""


def test_equal_entries_variance_zero_and_dead_block(tmp_path):
    """Found by hypothesis: H1[0] = (0.39, 0.39) makes var1 exactly 0 (a ball centred on 0,
    whose square python-flint's ** turns into NaN), and a second block of zeros is a ReLU tie."""
    path = write_spec(tmp_path, EQUAL_ENTRIES)
    d = derivation_of(path, gradients=False)  # forward values only: no backward graph
    r = oracle.transformer_forward(oracle.load_spec(path), dps=ORACLE_DPS)
    assert_close(d.mpf("loss", 40), r["loss"], 35)
    assert d.value("l0.var1[0]", digits=5) == "0"        # proven exactly 0
    assert d.value("l0.mu1[0]", decimals=2) == "0.39"    # (0.6 - 0.21 = 0.39, 0.3 + 0.09 = 0.39)
    assert d._ev.ties == {"l1.Z[0,0]", "l1.Z[0,1]"}
