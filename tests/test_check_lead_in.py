"""check reads an AdamW step worked by hand: a lead-in names the entry (``For W[1, sat]``), the lines below it
print its moments, step and new value without indices, and 'the loss falls from A to B' names the loss after
the step.

The tutorials are written here in English, German and Chinese on a bigram of our own; every figure is
rounded from an mpmath computation in this file (the oracle's forward pass and gradients, and AdamW's first
step written out below), never from symgpt.
"""
from __future__ import annotations

import copy
from decimal import ROUND_HALF_EVEN, Decimal

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec

SPEC = """title = "lead-in test"

[model]
kind = "bigram"
vocab = ["the", "cat", "sat", "on", "mat"]
d = 3

[data]
input = ["cat"]
target = "sat"

[weights]
E = [[0.2, -0.1, 0.3], [0.4, 0.25, -0.35], [-0.3, 0.1, 0.2], [0.15, -0.2, 0.05], [-0.1, 0.3, -0.25]]
W = [[0.1, -0.2, 0.3, 0.05, -0.15], [0.2, 0.1, -0.3, 0.25, 0.0], [-0.1, 0.35, 0.15, -0.2, 0.1]]

[training]
lr = 0.1
steps = 1

[training.adamw]
lr = 0.02
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
weight_decay = 0.05
"""
SAT = 2          # the id of 'sat': the column of W the hand step works on
ROW = 1


def fmt(x, places: int) -> str:
    s = str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_EVEN))
    return s.replace("-", "−")


def sci(x) -> str:
    """x as 'a.bc×10⁻ⁿ' with three significant digits."""
    e = int(mp.floor(mp.log10(abs(x))))
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{fmt(x / mp.mpf(10) ** e, 2)}×10{str(e).translate(sup)}"


def adamw(theta, grad) -> dict:
    """AdamW's first step on one entry, with SPEC's settings (β 0.9/0.999, ε 1e-8, η 0.02, λ 0.05), written out:
    g, m, v, m̂, v̂, the update, the decay and the new value (call inside ``mp.workdps``)."""
    b1, b2, eps, lr, lam = (mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8"), mp.mpf("0.02"), mp.mpf("0.05"))
    m, v = (1 - b1) * grad, (1 - b2) * grad ** 2
    mhat, vhat = m / (1 - b1), v / (1 - b2)
    update, decay = lr * mhat / (mp.sqrt(vhat) + eps), lr * lam * theta
    return dict(theta=theta, g=grad, m=m, v=v, mhat=mhat, vhat=vhat, update=update, decay=decay,
                new=theta - decay - update)


@pytest.fixture(scope="module")
def step(tmp_path_factory):
    """The spec's path and AdamW's first step on W[1, sat], from mpmath: g, m, v, m̂, v̂, the update, the decay,
    the new value, and the loss before and after the step (every parameter stepped)."""
    path = write_spec(tmp_path_factory.mktemp("lead"), SPEC)
    spec = oracle.load_spec(path)
    with mp.workdps(40):
        g = oracle.bigram_grads(spec, dps=40)
        W, E = oracle.mat(spec["weights"]["W"]), oracle.mat(spec["weights"]["E"])
        after = copy.deepcopy(spec)
        after["weights"]["W"] = [[adamw(W[i][j], g["grad_W"][i][j])["new"] for j in range(5)] for i in range(3)]
        after["weights"]["E"] = [[adamw(E[i][j], g["grad_E"][i][j])["new"] for j in range(3)] for i in range(5)]
        s = adamw(W[ROW][SAT], g["grad_W"][ROW][SAT])
        s.update(theta=W[ROW][SAT], loss=g["loss"], loss1=oracle.bigram_forward(after, dps=40)["loss"])
        return path, s


def tutorial(lang: str, s: dict, wrong_v: str, wrong_new: str, wrong_loss: str) -> str:
    g, th = fmt(s["g"], 6), fmt(s["theta"], 2)
    lines = {
        "en": ["## 3. One AdamW step by hand", "", f"By hand for `W[1, sat]`, whose gradient is g = {g}:", "",
               f"* m = 0.1 × ({g}) = {fmt(s['m'], 7)}",
               f"* v = 0.001 × ({g})² = {wrong_v}",
               f"* m̂ = m / 0.1 = {fmt(s['mhat'], 6)}",
               f"* step η · m̂ / (√v̂ + ε) = {fmt(s['update'], 9)}",
               f"* decay η · λ · θ = 0.02 × 0.05 × {th} = {fmt(s['decay'], 6)}",
               f"* new: {th} − {fmt(s['decay'], 6)} − ({fmt(s['update'], 9)}) = {wrong_new}", "",
               f"After the step the loss falls from {fmt(s['loss'], 6)} to {wrong_loss}."],
        "de": ["## 3. Ein AdamW-Schritt von Hand", "", f"Von Hand für `W[1, sat]` mit g = {g}:", "",
               f"- m = 0.1 × ({g}) = {fmt(s['m'], 7)}",
               f"- v = 0.001 × ({g})² = {wrong_v}",
               f"- m̂ = m / 0.1 = {fmt(s['mhat'], 6)}",
               f"- Schritt η · m̂ / (√v̂ + ε) = {fmt(s['update'], 9)}",
               f"- Zerfall η · λ · θ = 0.02 × 0.05 × {th} = {fmt(s['decay'], 6)}",
               f"- neuer Wert {th} − {fmt(s['decay'], 6)} − ({fmt(s['update'], 9)}) = {wrong_new}", "",
               f"Der Verlust fällt von {fmt(s['loss'], 6)} auf {wrong_loss}."],
        "zh": ["## 3. 手算一步 AdamW", "", f"对 `W[1, sat]`，它的梯度 g = {g}：", "",
               f"1. m = 0.1 × ({g}) = {fmt(s['m'], 7)}",
               f"2. v = 0.001 × ({g})² = {wrong_v}",
               f"3. m̂ = m / 0.1 = {fmt(s['mhat'], 6)}",
               f"4. 步长 η · m̂ / (√v̂ + ε) = {fmt(s['update'], 9)}",
               f"5. 衰减 η · λ · θ = 0.02 × 0.05 × {th} = {fmt(s['decay'], 6)}",
               f"6. 新的值 {th} − {fmt(s['decay'], 6)} − ({fmt(s['update'], 9)}) = {wrong_new}", "",
               f"这一步之后，损失从 {fmt(s['loss'], 6)} 降到 {wrong_loss}。"],
    }[lang]
    return "\n".join(lines) + "\n"


def verdicts(tmp_path, path, text: str) -> dict:
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    return {r.number.text: r for r in check(doc, path)}


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_a_lead_in_names_the_entry_of_the_lines_below_it(tmp_path, step, lang):
    """m, m̂, the step and the decay printed right are that entry's AdamW states; v slipped by a factor of ten,
    a new value that forgets the decay, and a wrong loss after the step are wrong, each as its own quantity."""
    path, s = step
    wrong_v = sci(s["v"] / 10)                                      # a scale slip: 10⁻⁵ for 10⁻⁴
    wrong_new = fmt(s["theta"] - s["update"], 6)                    # the decay forgotten
    wrong_loss = fmt(s["loss1"] + mp.mpf("0.0003"), 6)
    assert fmt(s["new"], 6) != wrong_new and fmt(s["loss1"], 6) != wrong_loss
    r = verdicts(tmp_path, path, tutorial(lang, s, wrong_v, wrong_new, wrong_loss))
    entry = f"W,{ROW},{SAT}"
    for name, places in (("m", 7), ("mhat", 6), ("update", 9), ("decay", 6)):
        got = r[fmt(s[name], places)]
        assert (got.verdict, got.ref) == ("matched", f"adamw[1].{name}[{entry}]"), (name, got)
    for printed, ref in ((wrong_v, f"adamw[1].v[{entry}]"), (wrong_new, "adamw[1].W[1,sat]"),
                         (wrong_loss, "adamw[1].loss")):
        assert (r[printed].verdict, r[printed].ref) == ("wrong", ref), (printed, r[printed])
    assert r[wrong_v].correct == sci(s["v"]).split("×")[0].replace(".", "") or "scale" in r[wrong_v].cause


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_right_figures_under_a_lead_in_are_all_matched(tmp_path, step, lang):
    """The same walk-through printed right: nothing is wrong, and the loss after the step is AdamW's."""
    path, s = step
    r = verdicts(tmp_path, path, tutorial(lang, s, sci(s["v"]), fmt(s["new"], 6), fmt(s["loss1"], 6)))
    assert not [x for x in r.values() if x.verdict == "wrong"]
    assert r[fmt(s["loss1"], 6)].ref == "adamw[1].loss"
    assert r[fmt(s["new"], 6)].ref == "adamw[1].W[1,sat]"


@pytest.mark.parametrize("state,name", [("exp_avg", "m"), ("exp_avg_sq", "v")])
def test_a_printed_optimizer_state_is_that_moment(tmp_path, step, state, name):
    """A notebook cell ending in opt.state[W]["exp_avg"] (a comment after it) prints W's first moment entry by
    entry: every entry is adamw[1].m of W, even where it equals lr · g (here 0.1 · g for both)."""
    path, s = step
    spec = oracle.load_spec(path)
    with mp.workdps(40):
        g = oracle.bigram_grads(spec, dps=40)["grad_W"]
        M = [[(mp.mpf("0.1") * x if name == "m" else mp.mpf("0.001") * x ** 2) for x in row] for row in g]
    rows = ",\n        ".join("[" + ", ".join(f"{float(x):.6e}" if name == "v" else fmt(x, 6).replace("−", "-")
                                               for x in row) + "]" for row in M)
    code = f'opt.step()\nopt.state[W]["{state}"]      # {name}'
    text = f"## AdamW\n\n```python\n{code}\n```\n```\ntensor([{rows}])\n```\n"
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    got = {x.number.text: x for x in check(doc, path)}
    first = f"{float(M[ROW][SAT]):.6e}" if name == "v" else fmt(M[ROW][SAT], 6).replace("−", "-")
    assert (got[first].verdict, got[first].ref) == ("matched", f"adamw[1].{name}[W,{ROW},{SAT}]")
