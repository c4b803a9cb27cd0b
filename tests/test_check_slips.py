"""Formula slips named as causes, by check and by verify alike (one diagnosis): a norm's variance divided by n − 1,
the target's logit gradient written p instead of p − 1, the loss with a common logarithm, AdamW's first update
without its bias correction; and a norm's mean and variance printed side by side taken as one norm's.

Every expected value is computed here with mpmath (the bigram of :mod:`test_check_readings`, its AdamW step
written out there; the two-head transformer of ``tests/oracle.py``), never by symgpt.
"""
from __future__ import annotations

import json
from fractions import Fraction
from types import SimpleNamespace as S

import mpmath as mp
import pytest

import symgpt
from symgpt import verify
from symgpt.check import check
from symgpt.claims.causes import LN10, slips

from conftest import SEED, write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, Y, by_hand
from test_verify import write_claims


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _causes(tmp_path, text, spec, name="doc.md"):
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return [(r.ref, r.cause) for r in check(doc, spec) if r.verdict == "wrong"]


def _verified(tmp_path, claims, spec, capsys):
    path = write_claims(tmp_path, claims, spec)
    code = verify.main([str(path), "--format", "json"])
    out = capsys.readouterr().out
    rows = json.loads(out)
    rows = rows if isinstance(rows, list) else rows.get("claims", rows.get("verdicts", []))
    return code, [(r["ref"], r["cause"]) for r in rows if r["verdict"] == "wrong"]


def test_ln10_is_ln_10():
    with mp.workdps(90):
        assert abs(mp.mpf(LN10.numerator) / LN10.denominator - mp.log(10)) < mp.mpf(10) ** -85


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_loss_with_a_common_logarithm_and_a_gradient_without_its_minus_y(tmp_path, run, lang):
    f = run["f0"]
    loss10 = r4(f["loss"] / mp.log(10))
    p = r4(f["p"][Y])
    words = {"en": ("The loss is L = −log p", "The gradient at the target logit is ∂L/∂z"),
             "zh": ("损失 L = −log p", "目标 logit 的梯度 ∂L/∂z")}[lang]
    text = (f"## Loss\n\n{words[0]}({VOCAB[Y]}) = {loss10}.\n\n## Backward\n\n"
            f"{words[1]}_{{{VOCAB[Y]}}} = p − y = {p}.\n")
    spec = write_spec(tmp_path, SPEC)
    assert _causes(tmp_path, text, spec) == [("loss", "log₁₀ for ln"), (f"grad_z[{VOCAB[Y]}]", "forgotten −y")]


@pytest.mark.parametrize("words", [("Mittelwert μ = {mu} und Varianz σ² = {var}", "de"),
                                   ("mean μ = {mu} and variance σ² = {var}", "en")])
def test_a_variance_divided_by_n_minus_1_beside_its_mean(tmp_path, two_heads, words):
    """LN1's last row: μ right, σ² the unbiased variance (÷ 3 for d = 4): var1[2], 'unbiased variance'."""
    path, f = two_heads
    with mp.workdps(50):
        row = f["H1"][2]
        mu = sum(row) / 4
        unbiased = sum((x - mu) ** 2 for x in row) / 3
        assert abs(f["mu1"][2] - mu) < mp.mpf(10) ** -12
    text = "## LayerNorm\n\nRow 3: " + words[0].format(mu=r4(mu), var=r4(unbiased)) + ".\n"
    assert _causes(tmp_path, text, path) == [("var1[2]", "unbiased variance")]


def test_verify_names_the_same_slips(tmp_path, run, capsys):
    """A claims file with the same slips, and AdamW's first update without its bias correction
    (lr·m/(√v + ε) with m = (1 − β₁)g, v = (1 − β₂)g²)."""
    f = run["f0"]
    g = f["gW"][0][2]
    lr, b1, b2, eps = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8")
    m, v = (1 - b1) * g, (1 - b2) * g * g
    raw = lr * m / (mp.sqrt(v) + eps)
    raw_s = mp.nstr(raw, 4, strip_zeros=False)
    assert Fraction(raw_s) != Fraction(mp.nstr(lr * mp.sign(g), 4))
    spec = write_spec(tmp_path, SPEC)
    claims = [("loss", r4(f["loss"] / mp.log(10))), (f"grad_z[{VOCAB[Y]}]", r4(f["p"][Y])),
              ("adamw[1].update[W,0,2]", raw_s), ("p[ест]", r4(f["p"][1]))]
    code, wrong = _verified(tmp_path, claims, spec, capsys)
    assert code == 1
    assert wrong == [("loss", "log₁₀ for ln"), (f"grad_z[{VOCAB[Y]}]", "forgotten −y"),
                     ("adamw[1].update[W,0,2]", "no bias correction")]


def test_no_forgotten_y_for_a_loss_over_every_position(tmp_path):
    """With a mean over every position the logit gradient is (p − y)/T: p written for it is no 'forgotten −y' of
    the last row's entry (the value p + 1 would give is not what such a slip prints)."""
    text = SEED.read_text(encoding="utf-8").replace("learnable_ln = false",
                                                    "learnable_ln = false\nall_positions = true")
    d = symgpt.load(str(write_spec(tmp_path, text, "all.toml")))
    assert d.spec.training.all_positions
    assert slips("grad_logits[你]", Fraction(-2, 5), d.spec) == {}


def test_a_root_below_floats_range_names_no_slip():
    """β₂ = 1 − 10⁻⁴⁰⁰: √(1 − β₂) underflows in float; no slip is named (no division by zero)."""

    spec = S(d=2, norm_kind="layernorm", training=S(adamw=S(beta1=Fraction(9, 10),
                                                            beta2=1 - Fraction(1, 10 ** 400))))
    assert slips("adamw[1].update[W,0,1]", Fraction(1, 100), spec) == {}
