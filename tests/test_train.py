"""Optimizers and traces against torch.optim (float64) and the seeds' own figures.

State k of a trace is the model after k updates.  The document 004 loss table's
"step k" row is the loss *before* the k-th update, i.e. ``sgd[k-1].loss``.
"""
from __future__ import annotations

import math
import os

import mpmath
import pytest
import sympy

from symgpt.core.numeric import UndecidableError, round_decimals, round_significant
from symgpt.engine.derive import bigram_gradients, softmax_ce_steps
from symgpt.engine.names import RefError
from symgpt.training.train import Trace, gradcheck, gradcheck_table, param_count

import oracle
from conftest import BIGRAM, SEED, assert_close, derivation_of, loaded, write_spec

if os.environ.get("CI") == "true":
    import torch  # noqa: F401
else:
    torch = pytest.importorskip("torch")
import torch_oracle  # noqa: E402

# ---------------------------------------------------------------- document 004

def test_doc004_backward_at_printed_decimals(bigram):
    """p − y, ∂L/∂W = xᵀ(p − y), ∂L/∂x = W(p − y) as printed in §2."""
    assert [bigram.value(f"grad_z[{v}]", decimals=4) for v in range(3)] == ["0.3673", "0.2832", "-0.6506"]
    dW = [[bigram.value(f"grad_W[{i},{j}]", decimals=4) for j in range(3)] for i in range(2)]
    assert dW == [["0.1102", "0.0850", "-0.1952"], ["-0.0367", "-0.0283", "0.0651"]]
    assert [bigram.value(f"grad_x[{j}]", decimals=4) for j in range(2)] == ["0.0336", "0.5121"]
    assert [bigram.value(f"grad_E[吃,{j}]", decimals=4) for j in range(2)] == ["0.0336", "0.5121"]


def test_doc004_gradient_check(bigram):
    h = sympy.Rational(1, 10 ** 5)
    for ref, printed in (("W[0,2]", "-0.195173"), ("E[吃,1]", "0.512051")):
        c = gradcheck(bigram, ref, h)
        assert round_decimals(c.numeric, 6) == printed
        assert round_decimals(c.analytic, 6) == printed


def test_gradcheck_of_an_entry_the_loss_never_reads(tmp_path):
    """A row of E that no input gathers: L(θ + h) and L(θ − h) are one number, so the quotient is exactly 0, and
    a document that checks such an entry renders it as 0 (it stopped with 'not certified at 200 bits' before: the
    two losses' balls overlap, their difference holds 0 and no sign is certain)."""
    from symgpt.render import main as render_main
    spec = oracle.load_spec(BIGRAM)
    unread = next(v for v in range(len(spec["model"]["vocab"])) if spec["model"]["vocab"][v] not in
                  spec["data"]["input"])
    text = open(BIGRAM, encoding="utf-8").read().replace(
        'params = ["W[0,2]", "E[1,1]"]', f'params = ["W[0,2]", "E[{unread},0]"]')
    assert f"E[{unread},0]" in text
    path = write_spec(tmp_path, text)
    d = loaded(str(path))
    h = sympy.Rational(1, 10 ** 5)
    c = gradcheck(d, f"E[{unread},0]", h)
    assert round_significant(c.numeric, 3) == "0" and round_significant(c.difference, 3) == "0"
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    x = spec["model"]["vocab"].index(spec["data"]["input"][-1])
    y = spec["model"]["vocab"].index(spec["data"]["target"])

    def loss(E):      # float64, by hand: only the input's row is read
        z = [sum(float(E[x][i]) * float(W[i][j]) for i in range(len(W))) for j in range(len(W[0]))]
        return math.log(sum(math.exp(v) for v in z)) - z[y]
    moved = [[float(v) for v in row] for row in E]
    moved[unread][0] += 1e-5
    assert loss(moved) == loss(E)
    out = tmp_path / "out"
    assert render_main([str(path), "--format", "md", "--lang", "en", "--out", str(out)]) in (0, None)
    doc = next(out.glob("*.en.md")).read_text(encoding="utf-8")
    assert any(row.startswith(f"| $E_{{{unread}0}}$") and row.rstrip(" |").endswith("| 0")
               for row in doc.splitlines()), [r for r in doc.splitlines() if r.startswith("| $E_")]


def test_gradcheck_of_a_mini_batch_checks_its_mean_loss(tmp_path):
    """With training.examples, the gradient check moves one entry and takes the batch's mean loss, as training
    does: loss_at is that mean, and the quotient agrees with the batch's mean gradient (sgd[0].grad_W), not the
    spec's own example's.  By hand in mpmath at 50 digits."""
    from symgpt.training.train import loss_at

    from test_check_authors import BATCH
    from test_check_readings import VOCAB, X, Y
    assert "steps = 3\n" in BATCH and "gradcheck" not in BATCH
    check = 'gradcheck = { h = 1e-4, params = ["W[1,2]"] }\n'
    path = write_spec(tmp_path, BATCH.replace("steps = 3\n", "steps = 3\n" + check, 1))
    d = loaded(str(path))
    spec = oracle.load_spec(str(path))
    pairs = ((X, Y), (VOCAB.index("рыбу"), VOCAB.index("спит")), (VOCAB.index("ест"), VOCAB.index("рыбу")))
    with mpmath.workdps(50):
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
        h = mpmath.mpf(1) / 10 ** 4

        def mean_loss(w12):
            total = 0
            for x, y in pairs:
                z = [sum(E[x][i] * (w12 if (i, j) == (1, 2) else W[i][j]) for i in range(2)) for j in range(5)]
                total += mpmath.log(sum(mpmath.exp(v) for v in z)) - z[y]
            return total / 3
        plus, minus = mean_loss(W[1][2] + h), mean_loss(W[1][2] - h)
        quotient = (plus - minus) / (2 * h)
        mean_grad = mpmath.diff(mean_loss, W[1][2])
        c = gradcheck(d, "W[1,2]", sympy.Rational(1, 10 ** 4))
        assert abs(mpmath.mpf(round_decimals(loss_at(d, "W[1,2]", sympy.Rational(1, 10 ** 4)), 30)) - plus) < 1e-29
        assert abs(mpmath.mpf(round_decimals(c.numeric, 30)) - quotient) < 1e-29
        assert abs(mpmath.mpf(round_decimals(c.analytic, 30)) - mean_grad) < 1e-25
    assert round_decimals(c.analytic, 12) == d.value("sgd[0].grad_W[1,2]", decimals=12)
    assert round_decimals(c.analytic, 12) != d.value("grad_W[1,2]", decimals=12)     # (not the first example's)


def test_gradcheck_error_is_second_order_then_round_off(bigram):
    """Exact arithmetic: error ∝ h² (truncation only); float64: round-off ~ 1e-16/h."""
    rows = gradcheck_table(bigram, "W[0,2]", exponents=range(1, 11))
    exact = [float(mpmath.mpf(r["error_exact"].mid().str(30, radius=False))) for r in rows]
    for a, b in zip(exact, exact[1:]):
        assert 90 < a / b < 110  # h → h/10 divides the error by 100
    f64 = [abs(float(r["error_float64"].mid().str(30, radius=False))) for r in rows]
    assert f64[-1] > 1e3 * abs(exact[-1])  # at h = 1e-10 round-off dominates


def test_doc004_sgd_table(bigram):
    t = bigram.trace("sgd")
    table = {1: ("1.0515", "0.3494"), 2: ("0.8894", "0.4109"), 5: ("0.2890", "0.7490"),
             10: ("0.0450", "0.9560"), 20: ("0.0125", "0.9875")}
    for step, (L, p) in table.items():
        assert t.value(step - 1, "loss", decimals=4) == L
        assert t.value(step - 1, "p[鱼]", decimals=4) == p
    assert t.value(1, "W[0,2]", decimals=4) == "0.1976"
    assert [t.value(1, f"E[吃,{j}]", decimals=4) for j in range(2)] == ["0.2832", "-0.3560"]
    assert [t.value(1, f"p[{v}]", decimals=4) for v in range(3)] == ["0.3373", "0.2517", "0.4109"]


def test_doc004_sgd_matches_the_documents_own_script():
    """Document 004's 40-line script, run here in float64 (its own verification)."""
    E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]]
    W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]
    tok, tgt, lr = 1, 2, 0.5

    def forward():
        x = E[tok]
        z = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]
        Z = sum(math.exp(v) for v in z)
        p = [math.exp(v) / Z for v in z]
        return x, p, -math.log(p[tgt])

    t = loaded("bigram").trace("sgd")
    for step in range(1, 21):
        x, p, L = forward()
        assert abs(float(t.value(step - 1, "loss", digits=20)) - L) < 1e-13
        dz = [p[j] - (j == tgt) for j in range(3)]
        dW = [[x[i] * dz[j] for j in range(3)] for i in range(2)]
        dx = [sum(W[i][j] * dz[j] for j in range(3)) for i in range(2)]
        for i in range(2):
            for j in range(3):
                W[i][j] -= lr * dW[i][j]
        E[tok] = [E[tok][i] - lr * dx[i] for i in range(2)]


def test_doc004_adamw_first_step(bigram):
    """§3.2 at its printed decimals, and m̂ exactly: the printed −0.195170 is a rounding slip."""
    a = bigram.trace("adamw")
    assert a.value(1, "m[W,0,2]", decimals=6) == "-0.019517"
    assert a.value(1, "v[W,0,2]", decimals=8) == "0.00003809"
    assert a.value(1, "update[W,0,2]", decimals=6) == "-0.001000"
    assert a.value(1, "decay[W,0,2]", decimals=7) == "0.0000100"
    assert a.value(1, "W[0,2]", decimals=7) == "0.1009900"
    g = bigram.value("grad_W[0,2]", digits=30)
    assert a.value(1, "mhat[W,0,2]", digits=30) == g  # m̂ = g exactly after one step
    # independent float64 AdamW (the update rule written out)
    gf = float(g)
    m, v = 0.1 * gf, 0.001 * gf * gf
    mhat, vhat = m / (1 - 0.9), v / (1 - 0.999)
    new = 0.1 - 1e-3 * 0.1 * 0.1 - 1e-3 * mhat / (math.sqrt(vhat) + 1e-8)
    assert abs(float(a.value(1, "W[0,2]", digits=20)) - new) < 1e-15


# ---------------------------------------------------------------- document 000

def test_doc000_head_step_and_new_logit(seed, seed_oracle):
    """E[你] ← E[你] − 0.1·(p − y)·h_final, then h_final·E_new[你] (§12.5–12.6)."""
    p, h = seed_oracle["p"], seed_oracle["h_final"]
    with mpmath.workdps(60):
        new = [mpmath.mpf(e) - mpmath.mpf("0.1") * (p[4] - 1) * h[j] for j, e in enumerate(("0.2", "0.9"))]
        logit = h[0] * new[0] + h[1] * new[1]
        for j in range(2):
            assert_close(seed.mpf(f"head_step.E[你,{j}]", 40), new[j], 35)
        assert_close(seed.mpf("head_step.logits[你]", 40), logit, 35)
    assert seed.value("head_step.logits[你]", decimals=3) == "-0.517"  # as printed
    assert seed.value("head_step.E[你,0]", decimals=3) == "0.292"
    assert seed.value("head_step.E[你,1]", decimals=3) == "0.808"    # printed 0.809: double rounding


def test_doc000_full_gradient_step_matches_torch(seed):
    spec = oracle.load_spec(SEED)
    rec = torch_oracle.torch_train(spec, "transformer", "sgd", 2, 0.1)
    assert param_count(seed) == 46
    t = seed.trace("sgd")
    assert_close(t.value(1, "loss", digits=25), rec[2]["loss"], 12, "loss after one step")
    for name, rows in rec[1]["params"].items():
        for i, row in enumerate(rows if isinstance(rows[0], list) else [rows]):
            for j, x in enumerate(row):
                ref = f"{name}[{i},{j}]" if isinstance(rows[0], list) else f"{name}[{j}]"
                assert abs(float(t.value(1, ref, digits=20)) - x) < 1e-14, ref


# ---------------------------------------------------------------- optimizers vs torch.optim

SETTINGS = """
[training]
lr = 0.3
steps = 20
report = [1, 20]
clip = 0.5
warmup = 3
decay_steps = 15
min_lr = 0.01
decay_groups = true

[training.adamw]
lr = 0.05
beta1 = 0.8
beta2 = 0.95
eps = 1e-6
weight_decay = 0.2
"""


def _with_settings(path, tmp_path, name):
    text = path.read_text(encoding="utf-8")
    head = text[:text.index("[training]")] if "[training]" in text else text
    return write_spec(tmp_path, head + SETTINGS, name)


def _compare(t, rec, steps):
    for k in range(1, steps + 1):
        assert abs(float(t.value(k - 1, "loss", digits=20)) - rec[k]["loss"]) < 1e-12, k
        for name, rows in rec[k]["params"].items():
            flat = ([(f"{name}[{i},{j}]", x) for i, r in enumerate(rows) for j, x in enumerate(r)]
                    if isinstance(rows[0], list) else [(f"{name}[{j}]", x) for j, x in enumerate(rows)])
            for ref, x in flat:
                got = float(t.value(k, ref, digits=20))
                assert abs(got - x) <= 1e-12 * max(1, abs(x)), (k, ref, got, x)


@pytest.mark.parametrize("opt", ["sgd", "adamw"])
@pytest.mark.parametrize("which", ["bigram", "transformer"])
def test_traces_match_torch_optim_with_clipping_and_schedule(opt, which, tmp_path):
    path = _with_settings(BIGRAM if which == "bigram" else SEED, tmp_path, f"{which}.toml")
    d = derivation_of(path)
    spec = oracle.load_spec(path)
    lr = 0.3 if opt == "sgd" else 0.05
    kw = dict(betas=(0.8, 0.95), eps=1e-6, weight_decay=0.2) if opt == "adamw" else {}
    rec = torch_oracle.torch_train(spec, which, opt, 20, lr, clip=0.5, warmup=3, max_steps=15,
                                   min_lr=0.01, decay_groups=True, **kw)
    t = Trace(d, opt, 20)
    # clipping really acts: the first gradient's norm exceeds 0.5 here
    assert rec[1]["grad_norm"] > 0.5
    _compare(t, rec, 20)


def test_minibatch_averages_gradients(tmp_path):
    """Two examples: the step uses the mean gradient (checked against torch on each)."""
    text = BIGRAM.read_text(encoding="utf-8").replace(
        "[training.adamw]", '[[training.examples]]\ninput = ["猫"]\ntarget = "吃"\n\n[training.adamw]')
    path = write_spec(tmp_path, text)
    d = derivation_of(path)
    spec = oracle.load_spec(path)
    grads = []
    for inp, tgt in ((["吃"], "鱼"), (["猫"], "吃")):
        s = dict(spec, data={"input": inp, "target": tgt})
        loss, P = torch_oracle.bigram_torch(s)
        loss.backward()
        grads.append(P)
    t = Trace(d, "sgd", 1)
    for i in range(3):
        for j in range(2):
            want = 0.1 * 0 + float(spec["weights"]["E"][i][j]) - 0.5 * 0.5 * (
                float(grads[0]["E"].grad[i, j]) + float(grads[1]["E"].grad[i, j]))
            assert abs(float(t.value(1, f"E[{i},{j}]", digits=20)) - want) < 1e-14


def test_trace_builds_each_further_example_with_the_given_builder(tmp_path):
    """A trace takes a model builder, not a Derivation: it is called once per extra example,
    and the mean loss of state 0 is the mean of the two examples' losses (float64 here)."""
    from symgpt.engine.net import Net
    text = BIGRAM.read_text(encoding="utf-8").replace(
        "[training.adamw]", '[[training.examples]]\ninput = ["猫"]\ntarget = "吃"\n\n[training.adamw]')
    d = derivation_of(write_spec(tmp_path, text))
    calls = []

    def build(tokens, target):
        calls.append((tuple(tokens), target))
        return Net(d.spec, tokens, target)
    t = Trace(d, "sgd", 1, build=build)
    assert calls == [((0,), 1)]                              # 猫 → 吃, ids 0 and 1
    E, W = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]], [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]

    def loss(i, y):
        z = [E[i][0] * W[0][v] + E[i][1] * W[1][v] for v in range(3)]
        return -z[y] + math.log(sum(math.exp(x) for x in z))
    assert abs(float(t.value(0, "loss", digits=20)) - (loss(1, 2) + loss(0, 1)) / 2) < 1e-14


def test_language_model_loss_over_every_position(tmp_path):
    """all_positions: mean of −ln p over each position's next token, against torch float64
    (cross-entropy of the tied head on every position's LN2) and the mpmath oracle's LN2."""
    text = SEED.read_text(encoding="utf-8").replace(
        "learnable_ln = false", "learnable_ln = false\nall_positions = true")
    d = derivation_of(write_spec(tmp_path, text))
    spec = oracle.load_spec(SEED)
    targets = (3, 4)  # 我 → 爱, 爱 → 你
    P = torch_oracle.transformer_params(spec)
    out = {}
    torch_oracle.transformer_loss(spec, P, out=out)
    with torch.no_grad():
        logits = out["LN2"] @ P["E"].T                         # (T, V): every position, tied head
        torch_loss = float(torch.nn.functional.cross_entropy(logits, torch.tensor(targets)))
    assert abs(float(d.mpf("loss", 30)) - torch_loss) < 1e-14
    # recompute logits at every position from the oracle's LN2 (tied head)
    r = oracle.transformer_forward(spec, dps=50)
    with mpmath.workdps(50):
        E = [[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in spec["weights"]["E"]]
        losses = []
        for t, y in enumerate(targets):
            z = [sum(r["blocks"][0]["LN2"][t][j] * E[v][j] for j in range(2)) for v in range(6)]
            losses.append(-z[y] + mpmath.log(sum(mpmath.exp(x) for x in z)))
        assert_close(d.mpf("loss", 40), (losses[0] + losses[1]) / 2, 35)
    # not the last position's loss alone: the mean really takes both
    assert abs(float(d.mpf("loss", 30)) - float(losses[1])) > 1e-3


def test_trace_reports_relu_ties(tmp_path):
    """The trace says when ReLU'(0) = 0 was used (here at the initial weights)."""
    text = SEED.read_text(encoding="utf-8")
    text = text.replace("W_1 = [[0.3, 0.1, -0.2, 0.4], [0.2, -0.3, 0.5, 0.1]]",
                        "W_1 = [[0.3, 0.1, -0.2, 0.4], [0.3, -0.3, 0.5, 0.1]]")
    text = text.replace("b_1 = [0.1, 0.1, 0.1, 0.1]", "b_1 = [0, 0.1, 0.1, 0.1]")
    d = derivation_of(write_spec(tmp_path, text))
    t = Trace(d, "sgd", 2)
    # d = 2, γ = 1, β = 0: LN1[t,0] + LN1[t,1] = 0 exactly, so with W_1[0,0] = W_1[1,0]
    # and b_1[0] = 0 both positions' Z[t,0] are exactly 0
    assert t.relu_ties(0) == ["Z[0,0]", "Z[1,0]"]
    # ReLU'(0) = 0 leaves W_1[·,0] and b_1[0] unchanged, so Z[·,0] stays exactly 0; a trace
    # holds balls, which cannot prove that: it says so rather than guessing a branch
    with pytest.raises(UndecidableError):
        t.relu_ties(1)
    assert symgpt_load_seed_ties() == []
    # a later state the balls no longer reach at the trace's precision is not "no ties" either
    with pytest.raises(UndecidableError):
        Trace(d, "sgd", 10).relu_ties(5)


def test_a_moment_or_a_learning_rate_before_any_update_is_a_clear_error():
    t = Trace(loaded("bigram"), "adamw", 2)
    for ref in ("mhat[W,0,2]", "update[W,0,2]", "decay[W,0,2]", "m[W,0,2]", "lr", "clip_coef"):
        with pytest.raises(RefError, match="after an update"):
            t.value(0, ref)


def test_a_clipping_threshold_a_hair_above_the_norm_is_decided_with_more_bits(tmp_path):
    """clip = ‖g₀‖ + 10⁻⁶ + 10⁻⁹⁰: the coefficient c/(‖g‖ + 10⁻⁶) is 1 + about 10⁻⁹⁰, so no clipping;
    at the cheap precision the trace starts with the coefficient's ball contains 1, and the
    reading climbs until it does not.  ‖g₀‖ at 120 digits from the oracle's closed form of the
    bigram's gradient (x ⊗ (p − y) and W·(p − y)); the loss after one step against torch float64."""
    spec = oracle.load_spec(BIGRAM)
    with mpmath.workdps(120):
        g = oracle.bigram_grads(spec, dps=120)
        norm = mpmath.sqrt(sum(x ** 2 for row in g["grad_E"] + g["grad_W"] for x in row))
        clip = mpmath.nstr(norm + mpmath.mpf(10) ** -6 + mpmath.mpf(10) ** -90, 110, strip_zeros=False)
    text = BIGRAM.read_text(encoding="utf-8").replace("[training]\n", f"[training]\nclip = \"{clip}\"\n", 1)
    d = derivation_of(write_spec(tmp_path, text))
    want = torch_oracle.torch_train(oracle.load_spec(BIGRAM), "bigram", "sgd", 3, 0.5)[2]["loss"]  # after 1
    assert abs(float(d.value("sgd[1].loss", digits=12)) - want) < 1e-12


def symgpt_load_seed_ties():
    return Trace(loaded("tiny-transformer"), "sgd", 1).relu_ties(0)


# ---------------------------------------------------------------- symbolic derivations

def _by_name(expr, values: dict):
    """``expr`` with each free symbol replaced by ``values[its name]`` (every name must be known)."""
    unknown = {s.name for s in expr.free_symbols} - set(values)
    assert not unknown, f"symbols the test does not know: {unknown}"
    return expr.xreplace({s: values[s.name] for s in expr.free_symbols})


def _zero(e, point: dict) -> bool:
    """e == 0, proven by SymPy's simplify and seen at a random rational point to 50 digits."""
    return sympy.simplify(e) == 0 and abs(sympy.N(e.xreplace(point), 50)) < sympy.Float("1e-45")


@pytest.mark.parametrize("V,t", [(3, 2), (6, 4)])
def test_softmax_cross_entropy_steps_are_reproved_here(V, t):
    """Each step of softmax_ce_steps, re-proved in the test (its ``checked`` flag is not read):
    the first two equal L = −ln(e^{z_t} / Σ_k e^{z_k}), built here from symbols; the last three,
    with j, t, z_j, p_j = e^{z_j}/Σ, y_j = [j = t] and Σ filled in for every concrete j, equal
    SymPy's diff of that L by z_j."""
    import random
    rng = random.Random(V * 100 + t)
    z = sympy.symbols(f"z_0:{V}", real=True)
    Z = sympy.Add(*[sympy.exp(x) for x in z])
    L = -sympy.log(sympy.exp(z[t]) / Z)
    point = {x: sympy.Rational(rng.randint(-99, 99), rng.randint(1, 99)) for x in z}
    steps = softmax_ce_steps(V, t)
    assert [s.rule for s in steps] == ["definition", "log of a quotient", "differentiate", "fold p_j", "one-hot y"]
    named = {x.name: x for x in z}
    for s in steps[:2]:
        assert s.lhs == r"\mathcal{L}"
        assert _zero(_by_name(s.expr, named) - L, point), s.rule
    for s in steps[2:]:
        assert s.lhs == r"\frac{\partial \mathcal{L}}{\partial z_j}"
        for j in range(V):
            values = {**named, "j": j, "t": t, "z_j": z[j], "p_j": sympy.exp(z[j]) / Z, "y_j": int(j == t),
                      r"\sum_k e^{z_k}": Z}
            assert _zero(_by_name(s.expr, values) - sympy.diff(L, z[j]), point), (s.rule, j)
    assert steps[-1].latex in ("p_{j} - y_{j}", "- y_{j} + p_{j}")


def test_a_wrong_step_fails_the_reproof():
    """Control: the re-proofs above can fail (a flipped δ, a missing one-hot y are caught)."""
    z = sympy.symbols("z_0:3", real=True)
    Z = sympy.Add(*[sympy.exp(x) for x in z])
    L = -sympy.log(sympy.exp(z[2]) / Z)
    wrong = 1 + sympy.exp(z[2]) / Z  # +δ instead of −δ at j = t = 2
    assert not _zero(wrong - sympy.diff(L, z[2]), {x: sympy.Rational(1, 3) for x in z})
    # and the bigram check: x_i·p_k without the one-hot y is not ∂L/∂W[i,t]
    x, W = sympy.symbols("x_0:2", real=True), sympy.symbols("W_0:3", real=True)
    zz = [x[0] * w for w in W]
    LL = -zz[2] + sympy.log(sympy.Add(*[sympy.exp(v) for v in zz]))
    p2 = sympy.exp(zz[2]) / sympy.Add(*[sympy.exp(v) for v in zz])
    assert sympy.simplify(sympy.diff(LL, W[2]) - x[0] * p2) != 0


@pytest.mark.parametrize("d,V,t", [(2, 3, 2), (3, 4, 0)])
def test_bigram_matrix_gradients_against_sympy_diff(d, V, t):
    """∂L/∂W and ∂L/∂x of bigram_gradients (its ``ok`` flag is not read) against SymPy's diff of
    L = −z_t + ln Σ_k e^{z_k}, z = x·W, built here from symbols; p_k unfolded to e^{z_k}/Σ."""
    dW, dx, _ = bigram_gradients(d, V, t)
    x = sympy.symbols(f"x_0:{d}", real=True)
    W = [[sympy.Symbol(f"W_{i}{k}", real=True) for k in range(V)] for i in range(d)]
    z = [sympy.Add(*[x[i] * W[i][k] for i in range(d)]) for k in range(V)]
    Z = sympy.Add(*[sympy.exp(zk) for zk in z])
    L = -z[t] + sympy.log(Z)
    values = {s.name: s for s in x} | {W[i][k].name: W[i][k] for i in range(d) for k in range(V)}
    values |= {f"p_{k}": sympy.exp(z[k]) / Z for k in range(V)}
    assert dW.shape == (d, V) and dx.shape == (1, d)
    for i in range(d):
        for k in range(V):
            assert sympy.simplify(sympy.diff(L, W[i][k]) - _by_name(dW[i, k], values)) == 0, (i, k)
        assert sympy.simplify(sympy.diff(L, x[i]) - _by_name(dx[0, i], values)) == 0, i


def test_bigram_matrix_gradients_agree_with_oracle(bigram_oracle):
    dW, dx, _ = bigram_gradients(2, 3, 2)
    spec = oracle.load_spec(BIGRAM)
    r = oracle.bigram_forward(spec, dps=50)
    x, p = r["x"], r["p"]
    W = spec["weights"]["W"]
    sub = {sympy.Symbol(f"x_{i}", real=True): sympy.Float(str(x[i]), 40) for i in range(2)}
    sub.update({sympy.Symbol(f"p_{k}", positive=True): sympy.Float(str(p[k]), 40) for k in range(3)})
    sub.update({sympy.Symbol(f"W_{i}{k}", real=True): sympy.Rational(W[i][k].numerator, W[i][k].denominator)
                for i in range(2) for k in range(3)})
    for i in range(2):
        for k in range(3):
            assert abs(float(dW[i, k].xreplace(sub)) - float(bigram_oracle["grad_W"][i][k])) < 1e-14
        assert abs(float(dx[i].xreplace(sub)) - float(bigram_oracle["grad_x"][i])) < 1e-14


def test_doc000_head_step_new_loss_against_oracle(seed, seed_oracle):
    """The loss after the head-only update of row 你: an oracle forward pass with that row."""
    import copy

    from conftest import to_fraction
    p, h = seed_oracle["p"], seed_oracle["h_final"]
    spec = copy.deepcopy(oracle.load_spec(SEED))
    with mpmath.workdps(80):
        new = [mpmath.mpf(e) - mpmath.mpf("0.1") * (p[4] - 1) * h[j] for j, e in enumerate(("0.2", "0.9"))]
        spec["weights"]["E"][4] = [to_fraction(x) for x in new]
        r = oracle.transformer_forward(spec, dps=70)
        assert_close(seed.mpf("head_step.loss", 50), r["loss"], 45)
        assert_close(seed.mpf("head_step.p[你]", 50), r["p"][4], 45)
    # the full-gradient step lowers the loss more than the head-only one (both below the start)
    L0, Lh, Ls = (float(seed.value(x, digits=12)) for x in ("loss", "head_step.loss", "sgd[1].loss"))
    assert Ls < Lh < L0


def test_trace_reads_any_node_at_a_state(seed):
    """sgd[1].logits, sgd[1].A: a torch forward pass with torch.optim's updated weights."""
    spec = oracle.load_spec(SEED)
    rec = torch_oracle.torch_train(spec, "transformer", "sgd", 1, 0.1)
    P = torch_oracle.transformer_params(spec)
    with torch.no_grad():
        for name, value in rec[1]["params"].items():
            P[name].copy_(torch.tensor(value, dtype=torch.float64))
    out = {}
    torch_oracle.transformer_loss(spec, P, out=out)
    t = seed.trace("sgd")
    for v in range(6):
        assert abs(float(t.value(1, f"logits[{v}]", digits=20)) - float(out["logits"][v].detach())) < 1e-14
    A = out["A"].detach()  # (T, T): one head
    assert abs(float(t.value(1, "A[1,0]", digits=20)) - float(A[1][0])) < 1e-14


def test_gradcheck_table_float64_column_is_ieee_float64(bigram):
    """The round-off column against a plain float64 bigram written here, the same formula
    L = −z_t + ln Σ e^{z_k} a float64 program (PyTorch's autograd test, say) evaluates."""
    from conftest import ref_round_significant, to_fraction
    E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]]
    W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]
    x = E[1]                                               # input 吃, target 鱼 = 2

    def loss(w02):
        Wm = [W[0][:2] + [w02], W[1]]
        z = [x[0] * Wm[0][v] + x[1] * Wm[1][v] for v in range(3)]
        return -z[2] + math.log(math.exp(z[0]) + math.exp(z[1]) + math.exp(z[2]))
    with mpmath.workdps(60):                               # ∂L/∂W[0,2] = x0·(p2 − 1), exactly
        xs = [mpmath.mpf(3) / 10, mpmath.mpf(-1) / 10]
        Ws = [[mpmath.mpf(5) / 10, mpmath.mpf(-3) / 10, mpmath.mpf(1) / 10],
              [mpmath.mpf(2) / 10, mpmath.mpf(4) / 10, mpmath.mpf(-5) / 10]]
        zs = [xs[0] * Ws[0][v] + xs[1] * Ws[1][v] for v in range(3)]
        grad = xs[0] * (mpmath.exp(zs[2]) / mpmath.fsum(mpmath.exp(z) for z in zs) - 1)
        rows = gradcheck_table(bigram, "W[0,2]")
        for e, row in zip(range(1, 13), rows):
            h = float(f"1e-{e}")
            fd = (loss(0.1 + h) - loss(0.1 - h)) / (2 * h)
            want = ref_round_significant(to_fraction(mpmath.mpf(fd) - grad), 3)
            assert round_significant(row["error_float64"], 3) == want, e
    assert round_significant(rows[5]["error_float64"], 3) == "-7.41e-11"   # h = 1e-6 (issue 8)
