"""The REPL speaks the claims' language: every ref a claims file or a page's ``data-ref`` holds is a ref of
``d.value``, ``d.closed_form`` and ``d.definition``; a closed form too big to build is refused with its
estimated size before any work, fast; a misnamed quantity says what it most likely meant.

Expected values are worked out here by hand (the bigram: x = E[吃] = (0.3, −0.1), z = x·W =
(0.13, −0.13, 0.08)) and computed with mpmath, independently of the engine.
"""
from __future__ import annotations

import functools
import json
import pydoc
import subprocess
import sys
import time
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy

import symgpt

sys.path.insert(0, str(Path(__file__).parent))
import specs  # noqa: E402
from test_repl_errors import bigram, transformer  # noqa: E402  (the seeds, loaded once)


def logits():
    """The bigram's logits z = x·W, by hand, at mpmath's current precision."""
    return [mpmath.mpf(13) / 100, -mpmath.mpf(13) / 100, mpmath.mpf(8) / 100]

SECONDS = 30   # README: every REPL call answers or refuses within 30 s


def softmax(z, T=1):
    e = [mpmath.exp(x / T) for x in z]
    return [x / sum(e) for x in e]


def close(text: str, want, places: int = 20) -> None:
    assert abs(mpmath.mpf(text) - want) < mpmath.mpf(10) ** -places, (text, want)


@pytest.mark.parametrize("ref, want", [
    ("exp(z[2])", lambda: mpmath.exp(logits()[2])),
    ("p[猫] + p[吃]", lambda: softmax(logits())[0] + softmax(logits())[1]),
    ("softmax_T(0.5, 鱼)", lambda: softmax(logits(), mpmath.mpf(1) / 2)[2]),
    ("softmax_T(2, 猫)", lambda: softmax(logits(), 2)[0]),
    ("-log(p[鱼])", lambda: -mpmath.log(softmax(logits())[2])),
    ("sum(W[0,:]) * lr", lambda: (mpmath.mpf(5) - 3 + 1) / 10 / 2),
    ("p['鱼']", lambda: softmax(logits())[2]),
    ('p["鱼"]', lambda: softmax(logits())[2]),
    ("E['吃', 1]", lambda: -mpmath.mpf(1) / 10),
])
def test_value_takes_any_claims_expression(ref, want):
    with mpmath.workdps(60):
        close(bigram().value(ref, digits=30), want())


def test_the_issues_expressions_on_the_seed():
    d = transformer()
    assert d.value("A[1,0]+A[1,1]", decimals=40) == "1." + "0" * 40     # a softmax row sums to 1
    assert d.value("exp(logits[2])", digits=20) == d.value("exp(1)^logits[2]", digits=20)
    # softmax_T(T, tok) is exp(z_tok/T)/Σ exp(z_k/T): computed here from the certified logits
    with mpmath.workdps(40):
        z = [mpmath.mpf(d.value(f"logits[{k}]", digits=35)) for k in range(6)]
        close(d.value("softmax_T(0.5, 4)", digits=25), softmax(z, mpmath.mpf(1) / 2)[4])
        close(d.value("softmax_T(0.5, 你)", digits=25), softmax(z, mpmath.mpf(1) / 2)[4])


def test_closed_form_and_definition_of_an_expression():
    b = bigram()
    assert b.closed_form("z[鱼] + 1") == sympy.Rational(27, 25)       # 0.3·0.1 + (−0.1)(−0.5) + 1
    assert b.closed_form("lr * 2") == 1
    e = b.definition("exp(z[鱼]) / sum_exp")
    assert {s.name for s in e.free_symbols} == {"z[鱼]", "sum_exp"}


def test_help_of_value_says_what_a_ref_may_be():
    text = pydoc.render_doc(transformer().value, renderer=pydoc.plaintext)
    for example in ("A[1,0] + A[1,1]", "exp(logits[2])", "softmax_T(0.5, 你)", "p['你']", "l0.", "sgd[1].loss"):
        assert example in text, example


def test_a_slice_alone_is_refused_by_name():
    with pytest.raises(symgpt.InputError, match=r"Q\[0,:\].*sum"):
        transformer().value("Q[0,:]")


def test_an_expression_that_does_not_parse_says_where():
    with pytest.raises(symgpt.InputError, match="unknown function 'foo'; known: abs"):
        bigram().value("foo(2)")
    with pytest.raises(symgpt.InputError, match="unclosed"):
        bigram().value("p[2")


# ---------------------------------------------------------------- closed forms: answer or refuse, fast

@pytest.mark.parametrize("ref", ["loss", "p[你]", "sum_exp", "grad_W_Q[0,0]", "exp(logits[2])"])
def test_a_closed_form_too_big_is_refused_before_the_work(ref):
    d = symgpt.load("tiny-transformer")    # a fresh one: the graph is built inside the time
    t = time.monotonic()
    with pytest.raises(symgpt.LimitError) as info:
        d.closed_form(ref)
    assert time.monotonic() - t < 10
    msg = str(info.value)
    assert msg.startswith(f"closed_form({ref!r}): written out it has ") and "estimated before building" in msg
    assert "grad_A_den" not in msg and "definition(" in msg and "value(" in msg


def test_the_estimate_is_a_number():
    with pytest.raises(symgpt.LimitError, match=r"about 226,091 operations|about \d[\d,]+ operations"):
        transformer().closed_form("h_final[0]")


def test_a_zero_weight_drops_its_product():
    # logits[0] = h_final·E[<pad>] and the <pad> row of E is 0: the closed form is 0, at once
    t = time.monotonic()
    assert transformer().closed_form("logits[0]") == 0
    assert time.monotonic() - t < 10


@pytest.mark.parametrize("ref", ["R[1,0]", "grad_V[0,0]", "A[1,0]", "Z[0,0]", "LN1[1,0]"])
def test_an_answered_closed_form_prints_within_the_readme_bound(ref):
    d = transformer()
    t = time.monotonic()
    text = str(d.closed_form(ref))
    assert time.monotonic() - t < SECONDS and text
    if ref == "A[1,0]":   # the closed form, evaluated by SymPy itself, is the certified value
        assert abs(sympy.sympify(text).evalf(30) - sympy.Float(d.value(ref, digits=25), 30)) < 1e-22


def test_the_readme_states_the_bound():
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"answers or refuses within {SECONDS} s" in readme


def test_a_small_max_ops_is_an_input_error_naming_the_ref():
    with pytest.raises(symgpt.LimitError) as info:
        transformer().closed_form("A[1,0]", max_ops=5)
    assert str(info.value).startswith("closed_form('A[1,0]'): more than 5 operations")


# ---------------------------------------------------------------- names: what did you mean

@functools.cache
def two_layers():
    import tempfile
    p = Path(tempfile.mkdtemp()) / "two.toml"
    p.write_text(specs.spec_toml(V=6, d=4, heads=2, layers=2, T=3), encoding="utf-8")
    return symgpt.load(p)


def test_a_block_quantity_without_its_prefix_names_the_prefixes():
    with pytest.raises(symgpt.InputError) as info:
        two_layers().value("A[0,1,0]")
    msg = str(info.value)
    assert "l0.A[0,1,0] (layer 1) or l1.A[0,1,0] (layer 2)" in msg and "count blocks from 0" in msg
    assert "headings from 1" in msg and "\n" not in msg


def test_an_unknown_token_lists_the_tokens():
    with pytest.raises(symgpt.InputError) as info:
        transformer().value("E[dog,0]")
    msg = str(info.value)
    assert "'dog'" in msg and all(repr(t) in msg for t in ("<pad>", "<bos>", "我", "爱", "你", "他"))


@pytest.mark.parametrize("ref, near", [("Z[0]", "z"), ("learning_rate", "lr"), ("attn[1,0]", "Attn")])
def test_an_unknown_quantity_says_what_it_most_likely_meant(ref, near):
    d = bigram() if ref != "attn[1,0]" else transformer()
    with pytest.raises(symgpt.InputError, match=rf"did you mean {near}\?"):
        d.value(ref)


# ---------------------------------------------------------------- the README's symgpt.precision.forensics(d)

def test_forensics_after_a_plain_import_symgpt():
    code = ("import json, symgpt\n"
            "d = symgpt.load('bigram')\n"
            "f = symgpt.precision.forensics(d, ['float64'], births=False)\n"
            "print(json.dumps(f.to_json()['quantities']['loss']['float64']['values'][0]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    # the bigram's loss in float64 by numpy, as a float64 program computes it
    x = np.array([0.3, -0.1])
    W = np.array([[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]])
    z = x @ W
    loss = -(z[2] - np.log(np.exp(z).sum()))
    assert abs(got["float"] - loss) <= 4 * np.spacing(loss)
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(got["exact"][:20]) - mpmath.mpf(bigram().value("loss", digits=25))) < 1e-17


def test_dir_shows_the_api_not_the_engine():
    public = {n for n in dir(transformer()) if not n.startswith("_")}
    assert not public & {"ev", "net", "registry", "skeleton"}
    assert {"value", "closed_form", "definition", "names", "gradient", "trace", "mpf", "ball", "sign", "show",
            "spec", "node", "ref", "head_step"} <= public


def test_showing_an_expression_points_at_value():
    with pytest.raises(symgpt.InputError, match=r"d.value\('A\[1,0\] \+ A\[1,1\]'\) evaluates"):
        transformer()["A[1,0] + A[1,1]"]
