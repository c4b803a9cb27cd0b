"""Hostile specs: every bad key, type, range or oversized number ends in one clear error.

Each case is a small edit of a seed spec (derivations/*.toml); ``load_spec``
must raise SpecError (bad input) or LimitError (a number beyond the digit
limit) with one line naming the file, the key and what was expected, quickly.
A handful go through ``render`` in-process: exit 2, one ``error:`` line, no
output folder.  A hypothesis fuzz test puts random TOML values at random key
paths of the bigram seed: the outcome is a Spec or a clear error, never
another exception.
"""
from __future__ import annotations

import time
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgpt.core.errors import LimitError
from symgpt.core.limits import Limits
from symgpt.engine.spec import KEYS, Spec, SpecError, load_spec

import hostile
from conftest import BIGRAM, SEED, replace_once, write_spec

B, T = BIGRAM.read_text(encoding="utf-8"), SEED.read_text(encoding="utf-8")
GC = 'gradcheck = { h = 1e-5, params = ["W[0,2]", "E[1,1]"] }'
TEMPS = 'temperatures = ["0.5", "1", "2", "inf"]'
ADAMW = "[training.adamw]"


def _example(text: str) -> tuple:
    """An extra [[training.examples]] table (or other [training] lines) before [training.adamw]."""
    return ADAMW, f"{text}\n\n{ADAMW}"


# name -> (seed text, old, new, the error class, the key the message names, what it expects)
CASES = {
    # unknown keys, with a suggestion
    "unknown_model_key": (T, "ln_eps = 1e-5", "ln_esp = 1e-5", SpecError, "model.ln_esp",
                          "unknown key; did you mean ln_eps?"),
    "unknown_top_key": (B, "source = ", 'titel = "x"\nsource = ', SpecError, "titel", "did you mean title?"),
    "misspelt_model_table": (B, "[model]", "[modle]", SpecError, "modle", "did you mean model?"),
    "unknown_data_key": (B, 'target = "鱼"', 'targets = "鱼"', SpecError, "data.targets",
                         "did you mean target?"),
    "unknown_weights_key_case": (B, "W = [[", "w = [[", SpecError, "weights.w", "did you mean W?"),
    "unknown_layer_key": (T, "W_Q = [[0.3", "Wq = [[0.3", SpecError, "layer[0].Wq", "did you mean W_Q?"),
    "unknown_sampling_key": (B, "top_k = 2", "topk = 2", SpecError, "sampling.topk", "did you mean top_k?"),
    "unknown_training_key": (B, "steps = 20", "step = 20", SpecError, "training.step", "did you mean steps?"),
    "unknown_adamw_key": (B, "beta1 = 0.9", "beta_1 = 0.9", SpecError, "training.adamw.beta_1",
                          "did you mean beta1?"),
    "unknown_gradcheck_key": (B, "{ h = 1e-5,", "{ step = 1e-5,", SpecError, "training.gradcheck.step",
                              "unknown key"),
    "unknown_example_key": (B, *_example('[[training.examples]]\ninputs = ["猫"]\ntarget = "吃"'), SpecError,
                            "training.examples[0].inputs", "did you mean input?"),
    # keys of the other model kind
    "heads_in_bigram": (B, "d = 2", "d = 2\nheads = 1", SpecError, "model.heads", "only a transformer"),
    "ln_eps_in_bigram": (B, "d = 2", "d = 2\nln_eps = 1e-5", SpecError, "model.ln_eps", "only a transformer"),
    "W_in_transformer": (T, "[[layer]]", "W = [[0.1]]\n\n[[layer]]", SpecError, "weights.W", "only a bigram"),
    "W_out_when_tied": (T, "[[layer]]", "W_out = [[0.1]]\n\n[[layer]]", SpecError, "weights.W_out",
                        "model.tied is true"),
    "layer_in_bigram": (B, "[sampling]", "[[layer]]\nW_Q = [[1]]\n\n[sampling]", SpecError, "layer",
                        "only a transformer"),
    # shapes and types
    "temperatures_int": (B, TEMPS, "temperatures = 2", SpecError, "sampling.temperatures",
                         'expected a list of temperatures such as [0.5, 1, "inf"]'),
    "temperatures_empty": (B, TEMPS, "temperatures = []", SpecError, "sampling.temperatures",
                           "expected a list of temperatures"),
    "temperature_negative": (B, TEMPS, 'temperatures = ["0.5", -1]', SpecError, "sampling.temperatures[1]",
                             "> 0"),
    "temperature_nan": (B, TEMPS, "temperatures = [nan]", SpecError, "sampling.temperatures[0]", 'or "inf"'),
    "report_int": (B, "report = [1, 2, 5, 10, 20]", "report = 3", SpecError, "training.report",
                   "expected a list of step numbers"),
    "report_beyond_steps": (B, "report = [1, 2, 5, 10, 20]", "report = [1, 21]", SpecError,
                            "training.report[1]", "0..20"),
    "report_string": (B, "report = [1, 2, 5, 10, 20]", 'report = ["1"]', SpecError, "training.report[0]",
                      "expected an integer"),
    "examples_int": (B, *_example("examples = 1"), SpecError, "training.examples",
                     "expected a list of {input, target} tables"),
    "example_not_table": (B, *_example("examples = [1]"), SpecError, "training.examples[0]",
                          "{input, target} table"),
    "example_input_string": (B, *_example('examples = [{input = "猫", target = "吃"}]'), SpecError,
                             "training.examples[0].input", "list of tokens"),
    "example_unknown_target": (B, *_example('examples = [{input = ["猫"], target = "狗"}]'), SpecError,
                               "training.examples[0].target", "unknown token"),
    "example_missing_target": (B, *_example('examples = [{input = ["猫"]}]'), SpecError,
                               "training.examples[0].target", "missing"),
    "data_input_string": (B, 'input = ["吃"]', 'input = "吃"', SpecError, "data.input", "list of tokens"),
    "vocab_int_token": (B, 'vocab = ["猫", "吃", "鱼"]', 'vocab = ["猫", "吃", 3]', SpecError, "model.vocab[2]",
                        "token string"),
    "vocab_one_token": (B, 'vocab = ["猫", "吃", "鱼"]', 'vocab = ["吃"]', SpecError, "model.vocab",
                        "at least 2 tokens"),
    "model_not_table": (B, '[model]\nkind = "bigram"\nvocab = ["猫", "吃", "鱼"]\nd = 2\n', "model = 3\n",
                        SpecError, "model", "expected a table"),
    "kind_rnn": (B, 'kind = "bigram"', 'kind = "rnn"', SpecError, "model.kind", '"transformer" or "bigram"'),
    "layers_mismatch": (T, "layers = 1", "layers = 2", SpecError, "layer", "expected 2 [[layer]] tables"),
    # training.gradcheck.params: entries of this spec's parameters
    "gc_unknown_param": (B, '"E[1,1]"', '"V[1,1]"', SpecError, "training.gradcheck.params[1]",
                         "unknown parameter"),
    "gc_did_you_mean": (B, '"W[0,2]"', '"Wx[0,2]"', SpecError, "training.gradcheck.params[0]",
                        "did you mean W?"),
    "gc_index_out_of_range": (B, '"E[1,1]"', '"E[1,5]"', SpecError, "training.gradcheck.params[1]", "0..1"),
    "gc_wrong_arity": (B, '"E[1,1]"', '"E[1]"', SpecError, "training.gradcheck.params[1]", "2 indices"),
    "gc_token_on_width_axis": (B, '"E[1,1]"', '"E[1,吃]"', SpecError, "training.gradcheck.params[1]",
                               "out of range"),
    "gc_not_an_entry": (B, '"E[1,1]"', '"E[1,1"', SpecError, "training.gradcheck.params[1]",
                        "parameter entry such as W[0,2]"),
    "gc_params_string": (B, 'params = ["W[0,2]", "E[1,1]"]', 'params = "W[0,2]"', SpecError,
                         "training.gradcheck.params", "list of parameter entries"),
    "gc_params_int_entry": (B, 'params = ["W[0,2]", "E[1,1]"]', "params = [3]", SpecError,
                            "training.gradcheck.params[0]", "parameter entry"),
    "gc_other_layer": (T, "learnable_ln = false", 'learnable_ln = false\ngradcheck = { params = ["l1.W_1[0,3]"] }',
                       SpecError, "training.gradcheck.params[0]", "did you mean W_1?"),
    "gc_h_zero": (B, "{ h = 1e-5,", "{ h = 0,", SpecError, "training.gradcheck.h", "> 0"),
    "gc_not_table": (B, GC, "gradcheck = 3", SpecError, "training.gradcheck", "expected a table"),
    # strings, booleans, TOML floats where they do not belong
    "title_int": (B, 'title = "三个词的词表，十二个参数"', "title = 3", SpecError, "title", "expected a string"),
    "source_list": (B, 'source = "004_22821fb5315e141e.txt"', 'source = ["x"]', SpecError, "source",
                    "expected a string"),
    "lr_inf": (B, "lr = 0.5", "lr = inf", SpecError, "training.lr", "finite"),
    "lr_nan": (B, "lr = 0.5", "lr = -nan", SpecError, "training.lr", "finite"),
    "lr_bool": (B, "lr = 0.5", "lr = true", SpecError, "training.lr", "expected a number, got true"),
    "lr_date": (B, "lr = 0.5", "lr = 1979-05-27", SpecError, "training.lr", "got a date"),
    "lr_escape_sequence": (B, "lr = 0.5", r'lr = "\u001b[31m\u2028"', SpecError, "training.lr",
                           r'got "\x1b[31m\u2028"'),
    "d_bool": (B, "d = 2", "d = true", SpecError, "model.d", "expected an integer ≥ 1, got true"),
    "one_wide_layernorm_without_eps": (T, "d = 2\nheads = 1\nd_ff = 4\nlayers = 1\ntied = true          "
                                          "# the LM head is Eᵀ (weight tying)\npe_base = 10000\nln_eps = 1e-5",
                                       "d = 1\nheads = 1\nd_ff = 4\nlayers = 1\ntied = true\npe_base = 10000"
                                       "\nln_eps = 0", SpecError, "model.ln_eps", "expected ε > 0 with d = 1"),
    "d_string": (B, "d = 2", 'd = "2"', SpecError, "model.d", "expected an integer"),
    "steps_float": (B, "steps = 20", "steps = 2.5", SpecError, "training.steps", "expected an integer"),
    "weight_division_by_zero": (B, "E = [[0.1,", 'E = [["1/0",', SpecError, "weights.E[0,0]",
                                "division by zero"),
    "nested_too_deep": (B, "lr = 0.5", "lr = " + "[" * 1000 + "]" * 1000, SpecError, "not valid TOML",
                        "nested too deeply"),
    # numbers beyond the digit limit: refused before any arithmetic
    "lr_huge_exponent": (B, "lr = 0.5", "lr = 1e999999999", LimitError, "training.lr",
                         "exponent beyond ±1000 (the digit limit); raise it with --max-digits"),
    "eps_tiny_exponent": (B, "eps = 1e-8", "eps = 1e-999999999", LimitError, "training.adamw.eps",
                          "raise it with --max-digits"),
    "exponent_of_5000_digits": (B, "lr = 0.5", "lr = 1e" + "9" * 5000, LimitError, "training.lr",
                                "exponent beyond ±1000"),
    "weight_5000_digits": (B, "E = [[0.1,", "E = [[0." + "1" * 5000 + ",", LimitError, "weights.E[0,0]",
                           "has 5001 digits, above the limit of 1000; raise it with --max-digits"),
    "int_literal_10_to_5000": (B, "W = [[0.5,", "W = [[1" + "0" * 5000 + ",", LimitError, "weights.W[0,0]",
                               "has 5001 digits, above the limit of 1000"),
    "steps_2001_digits": (B, "steps = 20", "steps = 1" + "0" * 2000, LimitError, "training.steps",
                          "has 2001 digits"),
    "steps_huge_hex": (B, "steps = 20", "steps = 0x" + "f" * 5000, LimitError, "training.steps",
                       "--max-digits"),
    "string_weight_huge_exponent": (B, "E = [[0.1,", 'E = [["1e5000",', LimitError, "weights.E[0,0]",
                                    "exponent beyond ±1000"),
    "fraction_huge_denominator": (B, "E = [[0.1,", 'E = [["1/1e-99999",', LimitError, "weights.E[0,0]",
                                  "exponent"),
    "temperature_huge_exponent": (B, TEMPS, 'temperatures = ["1e99999"]', LimitError,
                                  "sampling.temperatures[0]", "--max-digits"),
    # ranges
    "top_k_zero": (B, "top_k = 2", "top_k = 0", SpecError, "sampling.top_k", "≥ 1"),
    "top_k_over_V": (B, "top_k = 2", "top_k = 4", SpecError, "sampling.top_k", "at most V = 3"),
    "top_p_zero": (B, "top_p = 0.5", "top_p = 0", SpecError, "sampling.top_p", "> 0"),
    "uniform_one": (B, "uniform = 0.5", "uniform = 1", SpecError, "sampling.uniform", "[0, 1)"),
    "continue_negative": (B, "continue = 2", "continue = -1", SpecError, "sampling.continue", "≥ 0"),
    "beta2_one": (B, "beta2 = 0.999", "beta2 = 1", SpecError, "training.adamw.beta2", "[0, 1)"),
    "clip_zero": (B, "steps = 20", "steps = 20\nclip = 0", SpecError, "training.clip", "> 0"),
    "pe_base_zero": (T, "pe_base = 10000", "pe_base = 0", SpecError, "model.pe_base", "> 0"),
}

# a few of them again through `render` in-process
THROUGH_RENDER = ("unknown_model_key", "W_out_when_tied", "temperatures_int", "report_int", "examples_int",
                  "gc_unknown_param", "lr_huge_exponent", "int_literal_10_to_5000", "lr_inf", "title_int",
                  "layer_in_bigram")


def _spec(tmp_path: Path, case: str) -> Path:
    seed, old, new = CASES[case][:3]
    return write_spec(tmp_path, replace_once(seed, old, new), f"hostile-{case.replace('_', '-')}.toml")


def _no_control_characters(msg: str):
    assert all(ch == "\t" or ch >= " " and ch != "\x7f" for ch in msg), f"control character in {msg!r}"


def test_seeds_load():
    """Control: the untouched seeds load, so each refusal below is its edit's."""
    assert load_spec(BIGRAM).kind == "bigram" and load_spec(SEED).kind == "transformer"


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_spec_refused(tmp_path, case):
    _, _, _, error, key, expect = CASES[case]
    path = _spec(tmp_path, case)
    start = time.perf_counter()
    msg = hostile.raises_clear(error, lambda: load_spec(path), path.name, key, expect)
    assert time.perf_counter() - start < 1.0, "refused, but slowly"
    assert msg.startswith(f"{path}: "), msg
    _no_control_characters(msg)


@pytest.mark.parametrize("case", THROUGH_RENDER)
def test_hostile_spec_refused_by_render(tmp_path, case):
    path = _spec(tmp_path, case)
    out = tmp_path / "out"
    before = sorted(tmp_path.rglob("*"))
    o = hostile.render(str(path), "--out", str(out))
    hostile.assert_refused(o, path.name, CASES[case][4])
    assert not out.exists()
    assert sorted(tmp_path.rglob("*")) == before


def test_the_bigram_keys_all_known():
    """Control for the fuzz test: each key of the seeds is in the table of allowed keys."""
    tree = tomllib.loads(B)
    assert set(tree) <= set(KEYS[""])
    for table in ("model", "data", "weights", "sampling", "training"):
        assert set(tree[table]) <= set(KEYS[table]), table


def test_underscored_integer_and_zero_eps_stay_valid(tmp_path):
    """Valid TOML the hardening must not refuse: 1_000 is 1000; ln_eps = 0 is allowed."""
    s = load_spec(write_spec(tmp_path, replace_once(B, "steps = 20", "steps = 1_000")))
    assert s.training.steps == 1000
    assert load_spec(write_spec(tmp_path, replace_once(T, "ln_eps = 1e-5", "ln_eps = 0"))).ln_eps == 0


def test_a_raised_digit_limit_reads_the_long_number_exactly(tmp_path):
    """The limit is the only obstacle: raised, a 5,000-digit weight is read exactly from its text."""
    digits = "1" * 5000
    path = write_spec(tmp_path, replace_once(B, "E = [[0.1,", f'E = [["0.{digits}",'))
    got = load_spec(path, Limits(max_digits=6000)).params["E"][0][0]
    assert Fraction(int(got.p), int(got.q)) == Fraction(int("1" * 4000) * 10 ** 1000 + int("1" * 1000),
                                                        10 ** 5000)


# ---------------------------------------------------------------- fuzz: random values at random keys

class Raw(str):
    """A TOML literal written as is (numbers, inf, nan, huge integers)."""


def _string(s: str) -> str:
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml(v) -> str:
    """A value as TOML: tables inline, strings escaped (tomllib has no writer)."""
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_string(k)} = {toml(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def document(tree: dict) -> str:
    return "".join(f"{_string(k)} = {toml(v)}\n" for k, v in tree.items())


def test_serialiser_round_trip():
    tree = tomllib.loads(B, parse_float=Raw)
    assert tomllib.loads(document(tree)) == tomllib.loads(B)


def _paths(tree, prefix=()):
    """Every key path of the tree (tables, lists and leaves)."""
    out = []
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for k, v in items:
        out.append(prefix + (k,))
        out += _paths(v, prefix + (k,))
    return out


SEED_TREE = tomllib.loads(B, parse_float=Raw)
PATHS = _paths(SEED_TREE)
def _at(tree, path):
    for k in path:
        tree = tree[k]
    return tree


TABLE_PATHS = [()] + [p for p in PATHS if isinstance(_at(SEED_TREE, p), dict)]
KEY_NAMES = sorted({k for keys in KEYS.values() for k in keys})

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_decimal = st.builds(lambda sign, whole, frac, exp: f"{sign}{whole}" + (f".{frac}" if frac else "")
                     + (f"e{exp}" if exp is not None else ""),
                     st.sampled_from(["", "-", "+"]), st.integers(0, 10 ** 20),
                     st.text("0123456789", min_size=1, max_size=8) | st.none(),
                     st.integers(-10 ** 12, 10 ** 12) | st.integers(-30, 30) | st.none())
_scalars = st.one_of(
    st.integers(-10 ** 30, 10 ** 30),
    st.integers(0, 3),
    st.builds(lambda n, sign: Raw(sign + "9" * n), st.integers(900, 6000), st.sampled_from(["", "-"])),
    st.builds(lambda n: Raw("0x" + "f" * n), st.integers(200, 4000)),
    _decimal.map(Raw),
    _decimal,
    st.sampled_from([Raw("inf"), Raw("-inf"), Raw("nan"), Raw("1979-05-27"), "inf", "1/0", "1/3",
                     "1e999999999", "W[0,2]", "E[9,9]", "吃", "鱼", "\x1b[31m"]),
    st.booleans(),
    _text,
)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.sampled_from(KEY_NAMES) | _text, inner, max_size=3), max_leaves=8)


@st.composite
def _edits(draw):
    """The seed's tree with one value replaced, or one key (known name or random) added."""
    tree = tomllib.loads(B, parse_float=Raw)
    value = draw(_values)
    if draw(st.integers(0, 3)):
        path = draw(st.sampled_from(PATHS))
        _at(tree, path[:-1])[path[-1]] = value
    else:  # a new key: mostly one the table allows (absent from the seed, or its default)
        where = draw(st.sampled_from(TABLE_PATHS))
        allowed = KEYS.get(".".join(map(str, where)), KEY_NAMES)
        _at(tree, where)[draw(st.sampled_from(allowed) | st.sampled_from(KEY_NAMES) | _text)] = value
    return document(tree)


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_edits())
def test_fuzzed_spec_values_load_or_refuse_clearly(fuzz_dir, text):
    path = write_spec(fuzz_dir, text, "fuzz.toml")
    try:
        spec = load_spec(path)
    except (SpecError, LimitError) as e:
        msg = str(e)
        assert "\n" not in msg and "fuzz.toml" in msg, msg
        _no_control_characters(msg)
    else:
        assert isinstance(spec, Spec)
