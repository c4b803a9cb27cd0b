"""§5's generated script, run for real: every number it prints against the engine's certified figures.

The script computes in IEEE floats with its own code; the engine in exact
and ball arithmetic.  Each printed value must equal the engine's certified
rounding at the script's decimals (float error is some 10⁻¹¹ here, far below
half a unit of the 4th to 8th decimal).
"""
from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest

from symgpt.core.numeric import round_decimals
from symgpt.documents.script import script
from symgpt.training.train import gradcheck

from conftest import BIGRAM, derivation_of, write_spec

OTHER = """
title = "other"
[model]
kind = "bigram"
vocab = ["<pad>", "a'b", "x\\\\end{verbatim}", "```", "中"]
d = 3
[data]
input = ["```"]
target = "中"
[weights]
E = [[0.1, "1/3", -0.4], [0.25, -0.5, 0.7], [0.9, 0.05, -0.15], [-0.6, 0.35, "2/7"], [0.2, 0.2, -0.8]]
W = [[0.3, -0.2, 0.6, 0.1, -0.9], [0.45, 0.15, -0.35, 0.8, 0.05], ["-1/9", 0.4, 0.2, -0.7, 0.55]]
[training]
lr = 0.3
steps = 7
report = [1, 3, 7]
gradcheck = { h = 1e-4, params = ["W[2,4]", "E[```,0]", "E[<pad>,1]"] }
[training.adamw]
lr = 2e-3
weight_decay = 0.05
"""


def run(d) -> list[list[str]]:
    text = script(d)
    r = subprocess.run([sys.executable, "-I", "-c", text], capture_output=True, text=True, timeout=120,
                       encoding="utf-8")
    assert r.returncode == 0, r.stderr
    return [ln.split() for ln in r.stdout.splitlines()]


def same(printed: str, certified: str) -> bool:
    return Decimal(printed) == Decimal(certified) and len(printed.split(".")[1]) == len(certified.split(".")[1])


def check_output(d, lines):
    s = d.spec
    V, D, t = s.V, s.d, s.target
    val = lambda ref, k: d.value(ref, decimals=k)
    seen = {}
    rows = iter(lines)
    for ln in rows:
        label = ln[0]
        if label == "example":
            assert ln[1:] == [s.vocab[s.input[-1]], "->", s.vocab[t]]
        elif label in ("p", "p-y", "loss", "grad_x"):
            refs = {"p": [f"p[{v}]" for v in range(V)], "p-y": [f"grad_z[{v}]" for v in range(V)],
                    "loss": ["loss"], "grad_x": [f"grad_x[{j}]" for j in range(D)]}[label]
            assert len(ln) == len(refs) + 1
            for ref, x in zip(refs, ln[1:]):
                assert same(x, val(ref, 4)), (ref, x)
        elif label == "grad_W":
            for i in range(D):
                row = next(rows)
                for j, x in enumerate(row):
                    assert same(x, val(f"grad_W[{i},{j}]", 4)), (i, j, x)
        elif label == "gradcheck":
            name, i, j, numeric, analytic = ln[1:]
            ref = f"{name}[{i},{j}]"
            c = gradcheck(d, ref, s.training.gradcheck_h)
            assert same(numeric, round_decimals(c.numeric, 6)), (ref, numeric)
            assert same(analytic, val(f"grad_{ref}", 6)), (ref, analytic)
        elif label == "step":
            k = int(ln[1])
            assert same(ln[2], val(f"sgd[{k - 1}].loss", 4)) and same(ln[3], val(f"sgd[{k - 1}].p[{t}]", 4)), ln
        elif label == "wrong":
            assert same(ln[-1], val("sgd_wrong_order[1].loss", 4)), ln
        elif label == "adamw":
            ref = s.training.gradcheck_params[0] if s.training.gradcheck_params else f"W[0,{t}]"
            name = d.node(ref)
            key = name.replace("[", ",", 1)[:-1]
            m, v, step, new = ln[1:]
            assert same(m, val(f"adamw[1].m[{key}]", 6)) and same(v, val(f"adamw[1].v[{key}]", 8))
            assert same(step, val(f"adamw[1].update[{key}]", 6)) and same(new, val(f"adamw[1].{name}", 7))
        else:
            pytest.fail(f"unexpected line {ln}")
        seen[label] = seen.get(label, 0) + 1
    return seen


def test_the_seed_script_reproduces_the_document():
    d = derivation_of(BIGRAM)
    seen = check_output(d, run(d))
    assert seen == {"example": 1, "p": 1, "loss": 1, "p-y": 1, "grad_W": 1, "grad_x": 1, "gradcheck": 2,
                    "step": 5, "wrong": 1, "adamw": 1}


def test_the_seed_script_prints_the_sources_figures():
    """The figures document 004 prints, computed by the script (independent of the engine)."""
    out = {ln[0] + (ln[1] if ln[0] == "step" else ""): ln for ln in run(derivation_of(BIGRAM))}
    assert out["p"][1:] == ["0.3673", "0.2832", "0.3494"] and out["loss"][1:] == ["1.0515"]
    assert out["step2"][2:] == ["0.8894", "0.4109"] and out["step20"][2:] == ["0.0125", "0.9875"]
    assert out["wrong"][-1] == "0.8792"  # the update-order pitfall of the source


def test_another_spec_with_hostile_tokens(tmp_path):
    d = derivation_of(write_spec(tmp_path, OTHER))
    text = script(d)
    assert "\\end{" not in text and "```" not in text  # safe inside LaTeX verbatim and a Markdown fence
    assert max(len(ln) for ln in text.splitlines()) <= 78
    seen = check_output(d, run(d))
    assert seen["gradcheck"] == 3 and seen["step"] == 3


@pytest.mark.parametrize("extra", ["warmup = 2", "clip = 0.1", 'examples = [{ input = ["猫"], target = "吃" }]'])
def test_training_the_script_does_not_model_leaves_the_updates_out(tmp_path, extra):
    text = BIGRAM.read_text(encoding="utf-8").replace("[training]\n", f"[training]\n{extra}\n", 1)
    d = derivation_of(write_spec(tmp_path, text))
    seen = check_output(d, run(d))
    assert not {"step", "wrong", "adamw"} & set(seen)
    assert seen.get("gradcheck", 0) == (0 if "examples" in extra else 2)   # (a batch's check moves its mean loss)
