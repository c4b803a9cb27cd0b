"""symgpt.training.first_step: the first update's formulas, evaluated with mpmath, against the engine's traces."""
from pathlib import Path

import mpmath
import pytest
import sympy

import symgpt
from symgpt.claims.candidates import candidates
from symgpt.claims.refs import evaluate
from symgpt.training.first_step import MOMENTS, rule, textbook
from symgpt.training.train import learnable


def _mp(x):
    """A value of the engine (fmpq or arb) as an mpmath number at the working precision."""
    if hasattr(x, "rad"):
        return mpmath.mpf(x.str(60, radius=False).replace(" ", ""))
    return mpmath.mpf(int(x.p)) / int(x.q)


SPECS = Path(__file__).resolve().parent.parent / "benchmarks" / "specs"


@pytest.mark.parametrize("spec", ["bigram", "tiny-transformer", str(SPECS / "ladder-d4-T4-L1.toml"),
                                  pytest.param(str(SPECS / "ladder-d8-T8-L2-h2.toml"), marks=pytest.mark.slow)])
def test_every_first_step_quantity_is_its_formula(spec):
    """Each sgd[1] / adamw[1] candidate, computed by mpmath from its formula over the step-0 values,
    equals the engine's trace (train.Trace, itself checked against torch) to 40 digits."""
    d = symgpt.load(spec)
    refs = [c.ref for c in candidates(d) if c.group.startswith(("sgd[1].", "adamw[1].", "sqrt(adamw[1]"))]
    refs = [r for r in refs if not r.startswith("sqrt(")]
    heads = [f"head_step.E[{t},{j}]" for t in d.spec.vocab for j in range(d.spec.d)] if spec == "tiny-transformer" \
        else []
    formulas = {ref: rule(d, ref) for ref in refs}
    trained = set(learnable(d))
    assert sum(f is not None for f in formulas.values()) == 8 * len(trained)   # θ twice, m, v, m̂, v̂, update, decay
    stride = max(1, len(formulas) // 400) | 1      # a large spec: every stride-th quantity (odd: all 8 kinds)
    formulas = dict(list(formulas.items())[::stride])
    with mpmath.workdps(60):
        for ref in heads:                # document 000's step on the target's row: the others stay
            f = rule(d, ref)
            values = {s: _mp(evaluate(str(s), d, 240)) for s in f.free_symbols}
            got = sympy.lambdify(list(values), f, "mpmath")(*values.values())
            assert abs(got - _mp(d.ball(ref, 240))) <= mpmath.mpf(10) ** -40, ref
            target = d.spec.vocab[d.spec.target] if isinstance(d.spec.target, int) else d.spec.target
            assert (len(f.free_symbols) == 3) == ref.startswith(f"head_step.E[{target},"), ref
        for ref, f in formulas.items():
            if f is None:                # a parameter the spec does not train (γ, β of LayerNorm): no rule
                inside = ref.partition("[1].")[2]
                group = inside.partition("[")[2].partition(",")[0] if inside.partition("[")[0] in MOMENTS else \
                    inside.partition("[")[0]
                assert not any(t.startswith(group + "[") for t in trained), ref
                continue
            values = {s: _mp(evaluate(str(s), d, 240)) for s in f.free_symbols}
            got = sympy.lambdify(list(values), f, "mpmath")(*values.values())
            want = _mp(evaluate(ref, d, 240))
            assert abs(got - want) <= mpmath.mpf(10) ** -40 * max(1, abs(want)), ref


def test_sgd_rule_by_hand():
    """W[0,2] = 0.1, grad_W[0,2] = x₀·(p₂ − 1), lr = 0.5: the seed's 0.1 − 0.5 × (−0.1952) ≈ 0.1976."""
    d = symgpt.load("bigram")
    f = rule(d, "sgd[1].W[0,鱼]")
    assert f == sympy.Symbol("W[0,2]") - sympy.Symbol("lr") * sympy.Symbol("grad_W[0,2]")
    assert abs(float(evaluate("sgd[1].W[0,鱼]", d)) - 0.1976) < 5e-5


def test_not_the_textbook_step(tmp_path):
    """Clipping changes the first update: no formula, rather than a wrong one."""
    text = (symgpt.derivation.find_spec("bigram").read_text(encoding="utf-8")
            .replace("[training]", "[training]\nclip = 0.05", 1))
    path = tmp_path / "clipped.toml"
    path.write_text(text, encoding="utf-8")
    d = symgpt.load(path)
    assert not textbook(d) and rule(d, "sgd[1].W[0,鱼]") is None
    assert rule(symgpt.load("bigram"), "sgd[2].W[0,鱼]") is None and rule(symgpt.load("bigram"), "loss") is None


def test_a_number_is_a_position_even_when_a_token_is_spelled_with_digits(tmp_path):
    # vocab ["2", "0", "1"]: W[0,2] is row 0, column 2 (the engine's reading), not column of token "2" (id 0).
    text = (symgpt.derivation.find_spec("bigram").read_text(encoding="utf-8")
            .replace('vocab = ["猫", "吃", "鱼"]', 'vocab = ["2", "0", "1"]')
            .replace('input = ["吃"]', 'input = ["0"]').replace('target = "鱼"', 'target = "1"'))
    path = tmp_path / "digits.toml"
    path.write_text(text, encoding="utf-8")
    d = symgpt.load(path)
    f = rule(d, "sgd[1].W[0,2]")
    assert f == sympy.Symbol("W[0,2]") - sympy.Symbol("lr") * sympy.Symbol("grad_W[0,2]")
    with mpmath.workdps(60):
        values = {x: _mp(evaluate(str(x), d, 240)) for x in f.free_symbols}
        got = sympy.lambdify(list(values), f, "mpmath")(*values.values())
        assert abs(got - _mp(evaluate("sgd[1].W[0,2]", d, 240))) < mpmath.mpf(10) ** -40
