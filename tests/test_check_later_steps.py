"""check: readings round 43 of the held-out tutorials showed (issue 27): a later optimizer step worked by hand, in a
plain-text note's layout (each on a text written here):

* a table drawn with box characters (``│ θ │ 0.1 │``, ``├───┼───┤``) is a table;
* its corner states the step (``第 2 步``, ``Step 2``), a row per state (θ, g, m, v, m̂, v̂, the update, the decay,
  θ′) and a column per entry, written with the author's own letter for the output matrix (``U[0,рыбу]``);
* a section titled by its step (``六、第 2 步（t = 2）`` over a rule, a Chinese numbered title) whose forward pass is
  worked again: its Σ exp(s) is the sum after that step;
* ``衰减 = 0.1 × 0.1 × θ = …`` under a lead-in naming the entry: the step's decay, and ``U[0,рыбу] ← … = …`` after
  lines of m̂ and v̂ is AdamW's entry after the section's step.

The AdamW steps are computed here with mpmath from the spec's weights (``test_check_readings.forward``), never by
symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts, _wrong
from test_check_readings import SPEC, VOCAB, X, Y, forward
from test_check_vocabulary import _results

LR, B1, B2, EPS, LAM = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))


@pytest.fixture(scope="module")
def steps():
    """Three AdamW steps on every parameter (W and E's input row), by hand at 50 digits: per step k, for W[0,2]
    and W[1,4], the states (θ before, g, m, v, m̂, v̂, update, decay, θ after), and the sum of exp(z) after it."""
    with mp.workdps(50):
        spec = oracle.loads_spec(SPEC)
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
        m = {k: mp.mpf(0) for k in [("W", i, j) for i in range(2) for j in range(5)] + [("E", i) for i in range(2)]}
        v = dict(m)
        out = []
        for k in range(1, 4):
            f = forward(E, W)
            grads = {("W", i, j): f["gW"][i][j] for i in range(2) for j in range(5)} | \
                {("E", i): f["gx"][i] for i in range(2)}
            states = {}
            for key, g in grads.items():
                theta = W[key[1]][key[2]] if key[0] == "W" else E[X][key[1]]
                m[key] = B1 * m[key] + (1 - B1) * g
                v[key] = B2 * v[key] + (1 - B2) * g * g
                mhat, vhat = m[key] / (1 - B1 ** k), v[key] / (1 - B2 ** k)
                update, decay = LR * mhat / (mp.sqrt(vhat) + EPS), LR * LAM * theta
                states[key] = dict(theta=theta, g=g, m=m[key], v=v[key], mhat=mhat, vhat=vhat, update=update,
                                   decay=decay, new=theta - decay - update)
            for key, s in states.items():
                if key[0] == "W":
                    W[key[1]][key[2]] = s["new"]
                else:
                    E[X][key[1]] = s["new"]
            after = forward(E, W)
            out.append(dict(states=states, sum_exp=sum(mp.exp(x) for x in after["z"]), p=after["p"],
                            loss=after["loss"]))
        yield out


def _f(x, places=6) -> str:
    return mp.nstr(x, places, strip_zeros=False, min_fixed=-10, max_fixed=10) if abs(x) >= 1 else \
        f"{float(mp.nstr(x, 12)):.{places}f}"


ROWS = (("θ", "theta"), ("g", "g"), ("m", "m"), ("v̂", "vhat"), ("m̂", "mhat"), ("更新量", "update"),
        ("衰减", "decay"), ("θ′", "new"))


@pytest.mark.parametrize("corner", ["第 2 步", "第2步", "Step 2", "Schritt 2", "2 단계"])
def test_a_box_drawn_table_of_the_second_step(tmp_path, steps, corner):
    """│ 第 2 步 │ U[0,рыбу] │ U[1,спит] │ rows θ … θ′: every cell step 2's; its m̂ off is adamw[2].mhat, wrong."""
    s = steps[1]["states"]
    cols = [("U[0,рыбу]", s[("W", 0, 2)]), ("U[1,спит]", s[("W", 1, 4)])]
    cells = {(r, c): _f(st[key]) for r, key in ROWS for c, st in cols}
    slipped = _f(cols[0][1]["mhat"] + mp.mpf("0.01"))
    cells[("m̂", "U[0,рыбу]")] = slipped
    width = 14
    rule = lambda a, b, c: a + "─" * 10 + b + ("─" * width + b) * (len(cols) - 1) + "─" * width + c   # noqa: E731
    lines = [rule("┌", "┬", "┐"), f"│ {corner:<8} │" + "│".join(f"{c:>{width - 1}} " for c, _ in cols) + "│",
             rule("├", "┼", "┤")]
    for r, _ in ROWS:
        lines.append(f"│ {r:<8} │" + "│".join(f"{cells[(r, c)]:>{width - 1}} " for c, _ in cols) + "│")
    lines.append(rule("└", "┴", "┘"))
    text = "AdamW, two steps by hand.\n\n" + "\n".join(lines) + "\n"
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")
    got = _verdicts(results)
    assert got[slipped][:2] == ("wrong", f"adamw[2].mhat[W,0,{VOCAB[2]}]") or \
        got[slipped][:2] == ("wrong", "adamw[2].mhat[W,0,2]")
    assert [w for w in _wrong(results) if w[1] != slipped] == []
    assert got[cells[("θ′", "U[1,спит]")]][:2] == ("matched", f"adamw[2].W[1,{VOCAB[4]}]")


def test_a_section_titled_by_its_step_works_the_forward_pass_again(tmp_path, steps):
    """六、第 2 步（t = 2） over a rule, then Σ exp(s) = …: the sum after the second step, not the first model's."""
    total = _f(steps[1]["sum_exp"], 4)
    text = (f"五、AdamW\n--------\n\n用 AdamW 训练。\n\n六、第 2 步（t = 2）\n-------------------\n\n"
            f"第 2 步之后再做一遍前向：\n\n    Σ exp(s) = {total}\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt"))
    assert got[total][:2] == ("matched", "adamw[2].sum_exp")


def test_a_decay_and_an_update_line_under_a_step_section(tmp_path, steps):
    """七、第 3 步: under 'U[0,рыбу] line by line', 衰减 = … is adamw[3].decay; U[0,рыбу] ← θ − decay − update
    with the update's sign turned is adamw[3].W, wrong."""
    s = steps[2]["states"][("W", 0, 2)]
    theta, decay, update = _f(s["theta"]), _f(s["decay"]), _f(s["update"])
    turned = _f(s["theta"] - s["decay"] + s["update"])
    text = (f"七、第 3 步（t = 3）\n-------------------\n\n这回把 U[0,рыбу] 的更新一行一行写出来：\n\n"
            f"    m̂  = {_f(s['mhat'])}\n    v̂  = {_f(s['vhat'])}\n"
            f"    衰减 = 0.01 × 0.01 × {theta} = {decay}\n"
            f"    U[0,рыбу] ← {theta} − {decay} + {update} = {turned}\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt")
    at = {(r.number.line, r.number.printed or r.number.text): (r.verdict, r.ref) for r in results}
    assert at[(8, decay)] == ("matched", "adamw[3].decay[W,0,2]")          # (its line's, not the next line's operand)
    assert at[(9, turned)] == ("wrong", f"adamw[3].W[0,{VOCAB[2]}]")


@pytest.mark.parametrize("steps_at", [("Step 1", "Step 2", "Step 3"), ("1 단계", "2 단계", "3 단계"),
                                      ("第 1 步", "第 2 步", "第 3 步"), ("Schritt 1", "Schritt 2", "Schritt 3"),
                                      ("चरण 1", "चरण 2", "चरण 3")])
def test_a_table_with_a_column_per_step(tmp_path, steps, steps_at):
    """| | Step 1 | Step 2 | Step 3 | over rows loss and p(пьёт): each cell that row's quantity after its column's
    steps; step 3's p written as step 2's (a copied neighbour) is adamw[3].p, wrong, not step 2's p matched."""
    loss = [_f(s["loss"], 4) for s in steps]
    p = [_f(s["p"][Y], 4) for s in steps]
    copied = p[1]
    assert copied != _f(steps[2]["p"][Y], 4)
    head = "| | " + " | ".join(steps_at) + " |"
    text = ("Three AdamW steps; the loss and the target's probability after each.\n\n" + head +
            "\n|---|---:|---:|---:|\n" f"| loss | {' | '.join(loss)} |\n| p(пьёт) | {p[0]} | {p[1]} | {copied} |\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md")
    at = {(r.number.line, r.number.cell): (r.verdict, r.ref) for r in results}
    assert [at[(5, k)] for k in range(3)] == [("matched", f"adamw[{k}].loss") for k in (1, 2, 3)]
    assert at[(6, 2)][:2] == ("wrong", f"adamw[3].p[{VOCAB[Y]}]")
    assert at[(6, 1)] == ("matched", f"adamw[2].p[{VOCAB[Y]}]")
