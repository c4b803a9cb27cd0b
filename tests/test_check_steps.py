"""check reads a training step laid out in tables and literals the way other authors write it: rows that are
parameters' entries (``W_{0,sat}``) under columns that name a state at a step (``θ^{(0)}``, ``g_{1}``,
``m_{1}``, ``v̂_{1}``, ``Δ``, ``θ^{(1)}``); a second table after a blank line with columns of its own; a
parameter's literal after the step (``E^{(1)}_{cat} = (…)``); the forward pass repeated after the step
(``s^{(1)}_j``, ``q^{(1)}_j``) under a heading that no longer names the optimizer; and two literals on one
line (``b_1 = (…) and b_2 = (…)``).

Every figure is rounded here from mpmath: tests/oracle.py's forward pass and gradients, and AdamW's first
step written out below (as in test_check_lead_in.py), never from symgpt.
"""
from __future__ import annotations

import copy

import mpmath as mp
import pytest

from symgpt.check import check

import oracle
from conftest import write_spec
from test_check_lead_in import SPEC, adamw, fmt

VOCAB = ["the", "cat", "sat", "on", "mat"]
SEED = oracle.ROOT + "/derivations/tiny-transformer.toml"
WORDS = {   # the columns' words and the headings, in two languages
    "en": dict(h5="## 5. One AdamW step", h6="## 6. Did the loss go down?", entry="entry", intro="The first step:"),
    "es": dict(h5="## 5. Un paso de AdamW", h6="## 6. ¿Bajó la pérdida?", entry="peso", intro="El primer paso:"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The spec's path, AdamW's first step on every entry of W and E (each a dict of g, m, v, m̂, v̂, the
    update, the decay and the new value: test_check_lead_in.adamw), and the forward pass after it (z, p, loss)."""
    path = write_spec(tmp_path_factory.mktemp("steps"), SPEC)
    spec = oracle.load_spec(path)
    with mp.workdps(40):
        g = oracle.bigram_grads(spec, dps=40)
        W, E = oracle.mat(spec["weights"]["W"]), oracle.mat(spec["weights"]["E"])
        sW = [[adamw(W[i][j], g["grad_W"][i][j]) for j in range(5)] for i in range(3)]
        sE = [[adamw(E[i][j], g["grad_E"][i][j]) for j in range(3)] for i in range(5)]
        after = copy.deepcopy(spec)
        after["weights"]["W"] = [[s["new"] for s in row] for row in sW]
        after["weights"]["E"] = [[s["new"] for s in row] for row in sE]
        return path, sW, sE, oracle.bigram_forward(after, dps=40)


def _check(tmp_path, path, text):
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    return check(doc, path)


def _row(name, s, cols, override=None):
    cells = [fmt(s[c], 6) if c != "theta" else fmt(s[c], 2) for c in cols]
    for k, v in (override or {}).items():
        cells[cols.index(k)] = v
    return f"| {name} | " + " | ".join(cells) + " |"


@pytest.mark.parametrize("lang", list(WORDS))
def test_a_table_of_entries_under_step_columns(tmp_path, run, lang):
    """θ^{(0)}, g_{1}, m_{1}, v̂_{1}, θ^{(1)} over rows W_{0,sat}, W_{1,sat}, E_{cat,2}: each cell is its entry's
    state; a gradient copied from the next row is wrong as this row's gradient, not matched to the other."""
    path, sW, sE, _ = run
    w = WORDS[lang]
    cols = ["theta", "g", "m", "vhat", "new"]
    copied = fmt(sW[1][2]["g"], 6)
    assert copied != fmt(sW[0][2]["g"], 6)
    text = "\n".join([w["h5"], "", w["intro"], "",
                      "| θ | θ^{(0)} | g_{1} | m_{1} | v̂_{1} | θ^{(1)} |", "| --- | --- | --- | --- | --- | --- |",
                      _row("W_{0,sat}", sW[0][2], cols, {"g": copied}),
                      _row("W_{1,sat}", sW[1][2], cols),
                      _row("E_{cat,2}", sE[1][2], cols), ""])
    rs = {(r.number.line, r.number.text): r for r in _check(tmp_path, path, text)}
    wrong = [(r.ref, r.number.text) for r in rs.values() if r.verdict == "wrong"]
    assert wrong == [("grad_W[0,sat]", copied)]
    refs = {k[1]: r.ref for k, r in rs.items() if k[0] == 8 and r.verdict == "matched"}
    assert refs[fmt(sW[1][2]["m"], 6)] == "adamw[1].m[W,1,2]"
    assert refs[fmt(sW[1][2]["new"], 6)] == "adamw[1].W[1,sat]"
    assert refs[fmt(sW[1][2]["vhat"], 6)] == "adamw[1].vhat[W,1,2]"


def test_a_second_table_after_a_blank_line_has_its_own_columns(tmp_path, run):
    """The step's table after the moments' table: Δ printed without bias correction is wrong as the update."""
    path, sW, _, _ = run
    s = sW[1][2]
    no_correction = fmt(mp.mpf("0.02") * s["m"] / (mp.sqrt(s["v"]) + mp.mpf("1e-8")), 6)
    assert no_correction != fmt(s["update"], 6)
    text = "\n".join(["## 5. One AdamW step", "",
                      "| θ | g_{1} | m_{1} |", "| --- | --- | --- |",
                      _row("W_{1,sat}", s, ["g", "m"]), "",
                      "| θ | ηλθ^{(0)} | Δ | θ^{(1)} |", "| --- | --- | --- | --- |",
                      _row("W_{0,sat}", sW[0][2], ["decay", "update", "new"]),
                      _row("W_{1,sat}", s, ["decay", "update", "new"], {"update": no_correction}), ""])
    wrong = [(r.ref, r.number.text) for r in _check(tmp_path, path, text) if r.verdict == "wrong"]
    assert wrong == [("adamw[1].update[W,1,2]", no_correction)]


def test_a_literal_and_a_repeated_forward_pass_after_the_step(tmp_path, run):
    """``E^{(1)}_{cat} = (…)`` is E's row after the step; the table under the next heading, ``s^{(1)}_j`` and
    ``q^{(1)}_j``, is the forward pass after it (AdamW's: the step the text spoke of last); a truncated q is
    wrong as that state's p."""
    path, _, sE, f1 = run
    row = ", ".join(fmt(s["new"], 6) for s in sE[1])
    k = 3
    q = [fmt(x, 4) for x in f1["p"]]
    truncated = str(mp.nstr(f1["p"][k], 10))[:6]
    assert truncated != q[k]
    q[k] = truncated
    lines = ["## 5. One AdamW step", "", f"The embedding of cat is now E^{{(1)}}_{{cat}} = ({row}).", "",
             "## 6. Did the loss go down?", "", "The forward pass again, with θ^{(1)}:", "",
             "| j | s^{(1)}_{j} | q^{(1)}_{j} |", "| --- | --- | --- |"]
    lines += [f"| {t} | {fmt(f1['z'][j], 4)} | {q[j]} |" for j, t in enumerate(VOCAB)]
    rs = _check(tmp_path, path, "\n".join(lines) + "\n")
    assert [(r.ref, r.number.text) for r in rs if r.verdict == "wrong"] == [(f"adamw[1].p[{VOCAB[k]}]", truncated)]
    refs = [r.ref for r in rs if r.verdict == "matched"]
    assert [f"adamw[1].E[cat,{j}]" for j in range(3)] == refs[:3]
    assert f"adamw[1].z[{VOCAB[0]}]" in refs and f"adamw[1].p[{VOCAB[0]}]" in refs


def test_two_literals_on_one_line_are_each_their_own(tmp_path):
    """``b_1 = (…) and b_2 = (…)``: the second literal's entries are b_2's (a wrong one is wrong as b_2's)."""
    spec = oracle.load_spec(SEED)
    b1 = [str(float(x)) for x in spec["layer"][0]["b_1"]]      # short decimals: exact as floats print them
    b2 = [str(float(x)) for x in spec["layer"][0]["b_2"]]
    wrong = str(mp.mpf(b2[1]) + mp.mpf("0.25"))
    text = (f"The biases are b_1 = ({', '.join(b1)}) and b_2 = ({b2[0]}, {wrong}).\n")
    rs = _check(tmp_path, SEED, text)
    assert [(r.ref, r.number.text) for r in rs if r.verdict == "wrong"] == [("b_2[1]", wrong)]
