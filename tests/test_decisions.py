"""Sign decisions and exact tests end in bounded time: a proof, or one clear UndecidableError.

The specs here were found by drawing ``small_specs()`` (tests/test_transformer.py) and
tests/test_gradients.py's random specs: before, one exact zero that SymPy could not
prove in one time box was tried again at every precision and in every expansion of
every later decision (more than ten minutes for one loss).  References: the pure-mpmath
oracle (tests/oracle.py), PyTorch float64, and ties argued by hand.
"""
from __future__ import annotations

import signal
import time
from fractions import Fraction

import pytest
import sympy

from symgpt.core import numeric
from symgpt.core.numeric import UndecidableError, bounded
from symgpt.ops.relu import ReLU
from symgpt.training import train

import hostile
import oracle
from conftest import ORACLE_DPS, assert_significant, derivation_of, write_spec

# d = 2, no LayerNorm parameters: LN1[t] = (c, −c) exactly, and column 0 of the first
# W_1 is (−1.1, −1.1) with b_1[0] = 0, so l0.Z[t,0] = −1.1·(c − c) = 0 at every t.
# l0.Z[2,0] sits 20 nodes after the mu1[2] it needs: the expansions by position
# (1, 4, 16, 64 nodes back) never meet mu1[2] inside 2,000 operations, and SymPy's
# simplify of the full closed form (4,144 operations) runs past its 2 s.
TIE_FAR_BACK = """\
[model]
kind = "transformer"
vocab = ["w0", "w1", "w2", "w3"]
d = 2
heads = 1
d_ff = 4
layers = 2
tied = true
ln_eps = 1e-5

[data]
input = ["w2", "w0", "w1"]
target = "w3"

[weights]
E = [[0.5, -1.1], [0.4, 0.8], [-1.1, -0.3], [0.8, -1.1]]

[[layer]]
W_Q = [[-1.0, 1.1], [0.5, -0.2]]
W_K = [[-0.3, -0.7], [-0.2, -0.2]]
W_V = [[-0.5, -0.7], [0.5, 0.5]]
W_1 = [[-1.1, 1.2, 0.7, 0.7], [-1.1, -0.4, -0.4, -0.1]]
b_1 = [0.0, -0.1, 1.1, -0.1]
W_2 = [[-0.5, -0.3], [1.0, -0.2], [0.9, -1.2], [0.5, -0.3]]
b_2 = [0.0, 0.0]

[[layer]]
W_Q = [[0.1, -1.0], [-1.1, 0.8]]
W_K = [[-1.2, -0.9], [0.0, -1.0]]
W_V = [[-1.2, 0.0], [-1.1, -0.4]]
W_1 = [[-0.9, 0.0, -0.5, 0.4], [-0.5, -0.3, 0.3, -0.8]]
b_1 = [0.4, 0.8, 0.5, 0.2]
W_2 = [[-1.1, -0.3], [-0.3, 0.3], [-0.1, -0.5], [0.9, 0.7]]
b_2 = [0.2, -1.2]
"""


def test_a_tie_far_back_in_the_order_is_proven_and_the_loss_agrees(tmp_path):
    d = derivation_of(write_spec(tmp_path, TIE_FAR_BACK), gradients=False)
    res = oracle.transformer_forward(oracle.loads_spec(TIE_FAR_BACK), dps=ORACLE_DPS)
    assert_significant(d.value("loss", digits=25), res["loss"], 25, guard=Fraction(1, 10 ** 45))
    assert {"l0.Z[0,0]", "l0.Z[1,0]", "l0.Z[2,0]"} <= d._ev.ties   # the zeros argued above
    assert d.value("l0.Z[2,0]") == "0"


def test_a_trace_and_a_gradient_check_prove_the_ties_of_the_spec_weights(tmp_path):
    """One layer of TIE_FAR_BACK: Z[t,0] = 0 exactly at every position (the argument above), so R[:,0] = 0,
    and ∂L/∂W_2[0,j] = Σ_t R[t,0]·∂L/∂F[t,j] = 0 by hand.  A trace's state 0 and a gradient check run
    with the spec's exact weights, so they prove those ties with SymPy as the derivation does."""
    text = TIE_FAR_BACK.replace("layers = 2", "layers = 1").split("[[layer]]")
    text = "[[layer]]".join(text[:2]) + "\n[training]\nlr = 0.1\nsteps = 1\n"
    d = derivation_of(write_spec(tmp_path, text))
    t = train.Trace(d, "sgd", 1)
    res = oracle.transformer_forward(oracle.loads_spec(text), dps=ORACLE_DPS)
    assert_significant(t.value(0, "loss", digits=20), res["loss"], 20, guard=Fraction(1, 10 ** 40))
    assert t.relu_ties(0) == ["Z[0,0]", "Z[1,0]", "Z[2,0]"]
    c = train.gradcheck(d, "W_2[0,0]", "1e-6")
    assert c.analytic == 0 and c.numeric.contains(0) and c.numeric.rad() < 1e-40
    # an expression over node symbols holding ReLU of a tie decides it on the spot (no stray Undecided)
    fresh = derivation_of(write_spec(tmp_path, text, "again.toml"))
    assert fresh._ev.expr_ball(ReLU(sympy.Symbol("Z[1,0]", real=True)) + 1, 128) == 1


def _counting(monkeypatch):
    """Count SymPy's zero tests (numeric._is_zero calls)."""
    calls = []
    real = numeric._is_zero

    def counted(expr, quick=None):
        calls.append(expr)
        return real(expr, quick)
    monkeypatch.setattr(numeric, "_is_zero", counted)
    return calls


@pytest.mark.slow
def test_an_unproven_tie_ends_in_one_error_naming_it_and_is_not_tried_again(tmp_path, monkeypatch):
    """Without the expansions by depth SymPy cannot prove l0.Z[2,0] = 0 in its budget: the loss
    is refused in one error naming the loss and that sign (some 4 s), and asking again costs no
    SymPy test at all (it used to redo them at every precision: more than ten minutes)."""
    cuts = numeric.Evaluator._cuts
    monkeypatch.setattr(numeric.Evaluator, "_cuts", lambda self, expr, depths=False: cuts(self, expr))
    calls = _counting(monkeypatch)
    d = derivation_of(write_spec(tmp_path, TIE_FAR_BACK), gradients=False)
    with pytest.raises(UndecidableError) as e:
        d.value("loss", digits=25)
    msg = str(e.value)
    assert "\n" not in msg and "rounding of loss" in msg and "sign of l0.Z[2,0]" in msg
    assert "numeric.SYMPY_SECONDS" in msg and e.value.cause.startswith("cannot decide the sign of l0.Z[2,0]")
    assert "l0.Z[2,0]" in d._ev.failed and {"l0.Z[0,0]", "l0.Z[1,0]"} <= d._ev.ties
    tried = len(calls)
    with pytest.raises(UndecidableError, match=r"sign of l0\.Z\[2,0\]"):
        d.value("loss", digits=25)
    with pytest.raises(UndecidableError, match=r"sign of l0\.Z\[2,0\]"):
        d.sign("l0.Z[2,0]")
    assert len(calls) == tried
    # the command: one line naming the spec file, the quantity and the sign; nothing written
    spec = write_spec(tmp_path, TIE_FAR_BACK)
    o = hostile.render(str(spec), "--format", "md", "--out", str(tmp_path / "out"))
    assert o.code == 2 and o.out == "" and not (tmp_path / "out").exists()
    line = o.err.strip()
    assert "\n" not in line and line.startswith(f"error: {spec}: ") and "sign of l0.Z[2,0]" in line, o.err


# V = 2 and tied, with E[0,0] = E[1,0] = −0.2: ∂loss/∂h_final[0] = Σ_v (p_v − y_v)·E[v,0]
# = −0.2·(p_0 + p_1 − 1) = 0, so grad_beta2[0] = Σ_t ∂loss/∂LN2[t,0] = 0 and
# grad_gamma2[0] = Σ_t ∂loss/∂LN2[t,0]·n̂[t,0] = 0 exactly (oracle.random_spec_toml(seed=346073,
# V=2, d=2, heads=2, d_ff=3, layers=1, T=3, tied=True)).  The proof needs p_0 + p_1 = 1, six
# definitions deep and hundreds of nodes back in the order.
ZERO_GRADIENT = oracle.random_spec_toml(seed=346073, V=2, d=2, heads=2, d_ff=3, layers=1, T=3, tied=True)


@pytest.mark.slow
def test_zero_layernorm_gradients_are_proven(tmp_path, monkeypatch):
    """Some 8 s: two exact zeros found by the gradient property test, proven (they were undecidable).

    SymPy's proofs take about 1 s of a 1.5 s box here; on a machine twice as slow they would
    run out of time.  The test is about what can be proven, not how fast: it gives the
    time boxes four times their default (a user raises them the same way).
    """
    monkeypatch.setattr(numeric, "SYMPY_SECONDS", 4 * numeric.SYMPY_SECONDS)
    monkeypatch.setattr(numeric, "DEPTH_SECONDS", 4 * numeric.DEPTH_SECONDS)
    spec = oracle.loads_spec(ZERO_GRADIENT)
    assert spec["weights"]["E"][0][0] == spec["weights"]["E"][1][0] == Fraction(-1, 5)
    d = derivation_of(write_spec(tmp_path, ZERO_GRADIENT))
    assert d.value("grad_beta2[0]") == "0" and d.sign("grad_beta2[0]") == 0
    assert d.value("grad_gamma2[0]") == "0" and d.sign("grad_gamma2[0]") == 0
    torch_oracle = pytest.importorskip("torch_oracle")
    loss, params = torch_oracle.transformer_torch(spec, learnable_ln=True)
    loss.backward()
    for name in ("beta2", "gamma2"):
        want = params[name].grad.tolist()
        assert abs(want[0]) < 1e-15                       # float64 sees (nearly) 0 too
        got = float(d.mpf(f"grad_{name}[1]", 30))         # the other entry is not 0
        assert abs(got - want[1]) <= 1e-9 * abs(want[1]) and want[1] != 0


# ---------------------------------------------------------------- the time box

def _stubborn():
    """A loop that swallows every Exception, as some library code does."""
    while True:
        try:
            time.sleep(0.01)
        except Exception:  # noqa: BLE001
            pass


def test_a_swallowing_test_still_runs_out_of_time():
    t = time.monotonic()
    assert bounded(_stubborn, 0.05) is None
    assert time.monotonic() - t < 5


def test_the_default_budget_is_read_when_the_test_runs(monkeypatch):
    """numeric.SYMPY_SECONDS, which the errors name, is the budget of a later call when a user sets it."""
    monkeypatch.setattr(numeric, "SYMPY_SECONDS", 0.05)
    t = time.monotonic()
    assert bounded(_stubborn) is None and time.monotonic() - t < 5
    monkeypatch.setattr(numeric, "SYMPY_SECONDS", 1.0)
    assert bounded(lambda: time.sleep(0.15) or "done") == "done"


def test_an_inner_box_gets_its_whole_budget_and_the_outer_clock_stops_meanwhile():
    def inner():
        return bounded(lambda: time.sleep(0.15) or "inner done", 0.5)

    def outer():  # 0.3 s of inner tests inside a 0.2 s box: its own time is nearly 0
        return [inner(), inner(), bounded(_stubborn, 0.05)]
    assert bounded(outer, 0.2) == ["inner done", "inner done", None]


def test_an_outer_box_ends_its_own_test_and_leaves_no_timer():
    handler = signal.getsignal(signal.SIGALRM)

    def outer():
        bounded(lambda: 1, 1.0)
        _stubborn()
    assert bounded(outer, 0.1) is None
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert numeric._BOXES == []


def test_an_interrupted_test_leaves_no_precision_behind():
    """An alarm can land inside a workprec's exit, before it puts the precision back
    (CI once saw mp.dps = 1 after a lean gradient): the box restores both contexts."""
    import mpmath
    from flint import ctx

    def interrupted():
        mpmath.mp.prec, ctx.prec = 5, 7   # as a workprec cut short would leave them
        _stubborn()
    before = mpmath.mp.prec, ctx.prec
    assert bounded(interrupted, 0.05) is None
    assert (mpmath.mp.prec, ctx.prec) == before
