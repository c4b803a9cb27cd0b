"""Misused REPL arguments end in one clear error naming the argument, never an internal one.

Every public function a notebook calls (``symgpt.load``, the ``Derivation``
methods, ``Trace``, ``symgpt.training.sampling``, ``symgpt.training.train``'s checks) is called
with values of the wrong type (drawn by hypothesis) and out-of-range values;
each must raise ``symgpt.InputError`` (a ``ValueError``) whose one-line
message names the argument and says what was expected — not a ``TypeError``,
``KeyError``, ``IndexError`` or ``AttributeError`` from inside.
"""
from __future__ import annotations

import functools

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symgpt
from symgpt.training import sampling, train

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NOT_INT = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=4),
                    st.lists(st.integers(), max_size=2), st.complex_numbers(), st.binary(max_size=3))
NOT_STR = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.lists(st.text(max_size=2), max_size=2), st.binary(max_size=3),
                    st.dictionaries(st.text(max_size=1), st.integers(), max_size=1), st.just("   "))
NOT_EXACT = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.lists(st.integers(), max_size=2),
                      st.complex_numbers(), st.binary(max_size=3), st.text(alphabet="xyz!", min_size=1, max_size=3))


@functools.cache
def bigram():
    return symgpt.load("bigram")


@functools.cache
def transformer():
    return symgpt.load("tiny-transformer")


def clear(call, arg: str, expected: bool = True):
    """``call()`` raises one InputError whose single line names ``arg`` (and says what was expected)."""
    with pytest.raises(Exception) as info:
        call()
    e = info.value
    assert isinstance(e, symgpt.InputError), f"{type(e).__name__}: {e}"
    msg = str(e)
    assert "\n" not in msg and arg in msg and ("expected" in msg or not expected), msg
    return msg


# ---------------------------------------------------------------- load and the Derivation

@SETTINGS
@given(NOT_STR.filter(lambda x: not isinstance(x, str)))
def test_load_wants_a_name_or_a_path(x):
    clear(lambda: symgpt.load(x), "name_or_path")


@SETTINGS
@given(st.one_of(st.integers(), st.text(max_size=3), st.dictionaries(st.text(max_size=1), st.integers(), max_size=1)))
def test_load_wants_limits(x):
    clear(lambda: symgpt.load("bigram", limits=x), "limits")


@SETTINGS
@given(NOT_STR)
def test_a_quantity_name_must_be_a_string(x):
    d = bigram()
    for call in (d.value, d.definition, d.closed_form, d.sign, d.mpf, d.show, d.__getitem__, d.node, d.pretty,
                 lambda r: d.ball(r, 64), d.ref, d.head_step):
        clear(lambda call=call: call(x), "ref")


@SETTINGS
@given(NOT_INT)
def test_counts_must_be_whole_numbers(x):
    d = bigram()
    clear(lambda: d.value("loss", digits=x) if x is not None else d.value("loss", digits=0), "digits")
    clear(lambda: d.value("loss", decimals=x) if x is not None else d.value("loss", decimals=-1), "decimals")
    clear(lambda: d.mpf("loss", x), "dps")
    clear(lambda: d.ball("loss", x), "prec")
    clear(lambda: d.closed_form("loss", max_ops=x), "max_ops")
    clear(lambda: d.show("loss", digits=x), "digits")


def test_out_of_range_counts_and_both_roundings():
    d = bigram()
    clear(lambda: d.value("loss", digits=0), "digits")
    clear(lambda: d.value("loss", decimals=-1), "decimals")
    clear(lambda: d.value("loss", digits=3, decimals=3), "digits, decimals")
    clear(lambda: d.mpf("loss", 0), "dps")
    clear(lambda: d.ball("loss", 1), "prec")
    clear(lambda: d.closed_form("loss", max_ops=0), "max_ops")
    clear(lambda: d.show("loss", digits=101), "digits")
    with pytest.raises(symgpt.LimitError, match="dps"):
        d.mpf("loss", 10 ** 6)


def test_unknown_names_and_indices_say_so():
    d = bigram()
    assert "unknown quantity" in clear(lambda: d.value("nosuch"), "nosuch", expected=False)
    assert "out of range" in clear(lambda: d["p[7]"], "p[7]")
    assert "out of range" in clear(lambda: d.show("p[狗]"), "狗")


@SETTINGS
@given(st.one_of(NOT_STR, st.text(max_size=6).filter(lambda s: s not in ("sgd", "adamw", "sgd_wrong_order"))))
def test_trace_wants_an_optimizer(x):
    clear(lambda: bigram().trace(x), "optimizer")


# ---------------------------------------------------------------- Trace

def test_swapped_trace_arguments_are_named():
    """The issue's case: Trace.value("loss", 3) names k, the step range, the value got and the swap."""
    t = transformer().trace("sgd")
    msg = clear(lambda: t.value("loss", 3), "k")
    assert "0..1" in msg and "'loss'" in msg and "swapped" in msg and "ref" in msg


TRACES = ["sgd", "adamw", "sgd_wrong_order"]   # every trace a notebook reads


@pytest.mark.parametrize("opt", TRACES)
@SETTINGS
@given(x=NOT_INT)
def test_trace_step_must_be_a_step_number(opt, x):
    t = bigram().trace(opt)
    for call in (lambda: t.value(x, "loss"), lambda: t.ball(x, "loss", 64)):
        clear(call, "k")
    if opt != "sgd_wrong_order":
        clear(lambda: t.relu_ties(x), "k")


@pytest.mark.parametrize("opt", TRACES)
@pytest.mark.parametrize("k", [-1, 21, 10 ** 9])
def test_trace_step_out_of_range(opt, k):
    t = bigram().trace(opt)
    assert "0..20" in clear(lambda: t.value(k, "loss"), "k")
    assert "0..20" in clear(lambda: t.ball(k, "loss", 64), "k")


@pytest.mark.parametrize("opt", TRACES)
@SETTINGS
@given(x=NOT_STR)
def test_trace_ref_must_be_a_name(opt, x):
    t = bigram().trace(opt)
    clear(lambda: t.value(0, x), "ref")
    clear(lambda: t.ball(0, x, 64), "ref")


@pytest.mark.parametrize("opt", TRACES)
@SETTINGS
@given(x=NOT_INT)
def test_trace_counts(opt, x):
    t = bigram().trace(opt)
    clear(lambda: t.value(0, "loss", digits=x) if x is not None else t.value(0, "loss", digits=0), "digits")
    clear(lambda: t.value(0, "loss", decimals=x) if x is not None else t.value(0, "loss", decimals=-1),
          "decimals")
    clear(lambda: t.ball(0, "loss", x), "prec")
    if opt == "sgd":
        clear(lambda: train.Trace(bigram(), "sgd", x if x is not None else -1), "steps")


@pytest.mark.parametrize("opt", TRACES)
def test_trace_readings_within_the_limits(opt):
    """Precision and digits above the documented limits are refused up front (they used to run on)."""
    t = bigram().trace(opt)
    clear(lambda: t.ball(1, "loss", 10 ** 9), "prec", expected=False)
    with pytest.raises(symgpt.LimitError, match="above the limit"):
        t.ball(1, "loss", 10 ** 9)
    with pytest.raises(symgpt.LimitError, match="digits: 1000000 digits asked"):
        t.value(1, "loss", digits=10 ** 6)
    clear(lambda: t.value(1, "loss", digits=3, decimals=3), "digits, decimals")


def test_swapped_derivation_value_arguments_are_named():
    msg = clear(lambda: bigram().value(3, "loss"), "ref")
    assert "swapped" in msg and "got 3" in msg


def test_trace_wants_a_model():
    clear(lambda: train.Trace("bigram"), "d")
    clear(lambda: bigram().trace("sgd").value(0, "loss", digits=3, decimals=3), "digits, decimals")


# ---------------------------------------------------------------- sampling

@SETTINGS
@given(NOT_STR)
def test_sampling_wants_a_model(x):
    for call in (lambda: sampling.greedy(x), lambda: sampling.ranking(x), lambda: sampling.temperature(x, 1),
                 lambda: sampling.top_k(x, 1), lambda: sampling.top_p(x, "0.5"), lambda: sampling.draw(x, "0.5"),
                 lambda: sampling.continue_greedy(x, 1)):
        clear(call, "d")


@SETTINGS
@given(NOT_EXACT)
def test_sampling_numbers_are_exact(x):
    d = bigram()
    clear(lambda: sampling.temperature(d, x), "T")
    clear(lambda: sampling.top_p(d, x), "P")
    clear(lambda: sampling.draw(d, x), "u")


@pytest.mark.parametrize("call,arg", [
    (lambda d: sampling.temperature(d, 0), "T"),
    (lambda d: sampling.temperature(d, "-1"), "T"),
    (lambda d: sampling.top_p(d, 0), "P"),
    (lambda d: sampling.top_p(d, "1.5"), "P"),
    (lambda d: sampling.top_p(d, sympy.oo), "P"),
    (lambda d: sampling.draw(d, 1), "u"),
    (lambda d: sampling.draw(d, "-0.1"), "u"),
    (lambda d: sampling.draw(d, sympy.oo), "u"),
    (lambda d: sampling.top_k(d, 0), "k"),
    (lambda d: sampling.top_k(d, 4), "k"),
    (lambda d: sampling.top_k(d, 1.0), "k"),
    (lambda d: sampling.continue_greedy(d, -1), "n"),
    (lambda d: sampling.continue_greedy(d, "2"), "n"),
    (lambda d: sampling.draw(d, "0.5", probs=[sympy.Rational(1, 2)]), "probs"),
    (lambda d: sampling.draw(d, "0.5", probs="abc"), "probs"),
    (lambda d: sampling.draw(d, "0.5", probs=[0.5, 0.25, 0.25]), "probs"),
])
def test_sampling_out_of_range(call, arg):
    clear(lambda: call(bigram()), arg)


def test_draw_takes_top_k_probabilities():
    """top_k(...).probs (a dict by id) is accepted: the kept token is drawn (an observable)."""
    d = bigram()
    kept = sampling.top_k(d, 1)
    assert sampling.draw(d, "0.5", probs=kept.probs).id == kept.kept[0]


# ---------------------------------------------------------------- train

@SETTINGS
@given(NOT_STR)
def test_gradcheck_wants_a_parameter_name(x):
    clear(lambda: train.gradcheck(bigram(), x, "1e-5"), "ref")
    clear(lambda: train.gradcheck_table(bigram(), x, [3]), "ref")


@SETTINGS
@given(NOT_EXACT)
def test_gradcheck_step_is_exact(x):
    clear(lambda: train.gradcheck(bigram(), "W[0,2]", x), "h")


@pytest.mark.parametrize("call,arg", [
    (lambda d: train.gradcheck(d, "W[0,2]", 0), "h"),
    (lambda d: train.gradcheck(d, "W[0,2]", "-1e-5"), "h"),
    (lambda d: train.gradcheck(d, "W[0,2]", "1e-5", prec=1), "prec"),
    (lambda d: train.gradcheck(d, "W[0,2]", "1e-5", prec="200"), "prec"),
    (lambda d: train.gradcheck(d, "z[0]", "1e-5"), "z[0]"),
    (lambda d: train.gradcheck(d, "W[5,0]", "1e-5"), "W[5,0]"),
    (lambda d: train.gradcheck("bigram", "W[0,2]", "1e-5"), "d"),
    (lambda d: train.gradcheck_table(d, "W[0,2]", 5), "exponents"),
    (lambda d: train.gradcheck_table(d, "W[0,2]", [0]), "exponents"),
    (lambda d: train.gradcheck_table(d, "W[0,2]", [1.5]), "exponents"),
    (lambda d: train.first_step_exact(d, lr=0.1), "lr"),
    (lambda d: train.first_step_exact(d, lr="0"), "lr"),
    (lambda d: train.first_step_exact(d, grad=3), "grad"),
    (lambda d: train.first_step_exact(d, grad="grad_E_head"), "grad"),
    (lambda d: train.param_count("bigram"), "d"),
])
def test_train_out_of_range(call, arg):
    clear(lambda: call(bigram()), arg)
