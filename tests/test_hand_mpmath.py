"""The hand-written mpmath reverse mode of tests/oracle.py (oracle.grads, run by
benchmarks/hand_mpmath.py as the benchmark's baseline) against independent references.

Its gradients are checked against PyTorch float64 autograd (tests/torch_oracle.py)
to 1e-12 of the largest gradient, and against mpmath central differences of the
oracle's forward pass to 20 digits, for the seed, the bigram and a random
2-layer 2-head spec (untied head, W_O, LayerNorm gains); the all-positions loss
against the same references, using that causal attention makes position t's
logits those of the prefix tokens[:t+1] (a last-position loss).  The parameter
names are symgpt's; the benchmark's counts (param_count) are checked too.
"""
from __future__ import annotations

import copy
import os
import sys
from fractions import Fraction

import pytest
from mpmath import mp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests")]

import hand_mpmath  # noqa: E402

import oracle  # noqa: E402
import torch_oracle  # noqa: E402

SEED = os.path.join(ROOT, "derivations", "tiny-transformer.toml")
BIGRAM = os.path.join(ROOT, "derivations", "bigram.toml")
DPS = 50


def random_spec(tmp_path, all_positions=False):
    text = oracle.random_spec_toml(seed=7, V=8, d=4, heads=2, d_ff=8, layers=2, T=4, tied=False, W_O=True)
    if all_positions:
        text += "\n[training]\nall_positions = true\n"
    path = tmp_path / "random.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def torch_grads(spec):
    """{node name: float} from PyTorch float64 autograd (LayerNorm γ, β learnable)."""
    if spec["model"]["kind"] == "bigram":
        loss, P = torch_oracle.bigram_torch(spec)
    else:
        loss, P = torch_oracle.transformer_torch(spec, learnable_ln=True)
    loss.backward()
    return loss.item(), flat({k: p.grad.tolist() for k, p in P.items()})


flat = oracle._flat  # {"W_Q": [[…]]} → {"W_Q[0,1]": x}: naming only, no arithmetic


def key_path(spec, name):
    """Node name → the spec dict's path for oracle.central_difference: l1.W_1[2,3] → layer 1, W_1, 2, 3."""
    group, idx = name[:-1].split("[")
    idx = [int(i) for i in idx.split(",")]
    layer, _, base = group.rpartition(".")
    if base in ("E", "W", "W_out"):
        return ("weights", base, *idx)
    return ("layer", int(layer[1:]) if layer else 0, base, *idx)


def check_torch(spec, rel=1e-12):
    loss, g = oracle.grads(spec, DPS)
    t_loss, t = torch_grads(spec)
    assert g.keys() == t.keys()
    scale = max(abs(float(v)) for v in g.values())
    assert abs(float(loss) - t_loss) <= rel * abs(t_loss)
    worst = max(abs(float(g[k]) - t[k]) for k in g)
    assert worst <= rel * scale, (worst, scale)


def check_central(spec_path, names, forward, digits=20):
    """The hand gradient against (f(θ + h) − f(θ − h))/2h at 90 digits, h = 1e-20 (error ~h²), relative
    to the gradient itself (the seed's attention gradients are ~1e-11: LayerNorm with d = 2)."""
    spec = oracle.load_spec(spec_path)
    _, g = oracle.grads(spec, DPS)
    with mp.workdps(DPS):
        for name in names:
            fd = oracle.central_difference(forward, spec, key_path(spec, name), "1e-20", 90)
            assert abs(fd - g[name]) <= mp.mpf(10) ** -digits * abs(g[name]) + mp.mpf(10) ** -40, (name, fd, g[name])


def seed_forward(s):
    return oracle.transformer_forward(s, dps=90)["loss"]


def last_position(s, tokens, target):
    """A copy of the spec whose loss is the last position's: input ``tokens``, target ``target``."""
    p = copy.deepcopy(s)
    p["data"]["input"], p["data"]["target"] = tokens, target
    p.setdefault("training", {})["all_positions"] = False
    return p


def all_positions_forward(s):
    """Mean cross-entropy over positions: position t's logits are those of the prefix tokens[:t+1]."""
    inp = list(s["data"]["input"])
    nxt = inp[1:] + [s["data"]["target"]]
    total = 0
    for t, y in enumerate(nxt):
        p = last_position(s, inp[:t + 1], y)
        total += oracle.transformer_forward(p, dps=90)["loss"]
    return total / len(nxt)


def test_names_are_symgpts(tmp_path):
    from symgpt.engine.names import param_names
    from symgpt.engine.spec import load_spec
    for path in (SEED, BIGRAM, random_spec(tmp_path)):
        _, g = oracle.grads(path, 20)
        assert list(g) == param_names(load_spec(path))
        assert len(g) == hand_mpmath.param_count(path)


def test_seed_against_torch():
    check_torch(oracle.load_spec(SEED))


def test_seed_loss_and_gradient_against_torch():
    check_torch(oracle.load_spec(SEED))


def test_seed_against_central_differences():
    check_central(SEED, ["E[2,0]", "E[4,1]", "W_Q[0,1]", "W_V[1,0]", "W_1[1,2]", "b_1[3]", "W_2[2,1]"],
                  seed_forward)


def test_bigram_against_torch_and_analytic():
    spec = oracle.load_spec(BIGRAM)
    check_torch(spec)
    loss, g = oracle.grads(spec, DPS)
    # by hand: x = E[吃] = (3/10, −1/10), z = x·W, L = −z_鱼 + ln Σ e^z, ∂L/∂W_ij = x_i (p_j − y_j),
    with mp.workdps(60):
        x, W = [mp.mpf(3) / 10, mp.mpf(-1) / 10], [[mp.mpf(5) / 10, mp.mpf(-3) / 10, mp.mpf(1) / 10],
                                                     [mp.mpf(2) / 10, mp.mpf(4) / 10, mp.mpf(-5) / 10]]
        z = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]       # ∂L/∂E[吃]_i = Σ_j W_ij (p_j − y_j)
        Z = sum(mp.exp(zj) for zj in z)
        py = [mp.exp(zj) / Z - (j == 2) for j, zj in enumerate(z)]
        hand = {"W": [[x[i] * py[j] for j in range(3)] for i in range(2)],
                "E": [[0, 0], [sum(W[i][j] * py[j] for j in range(3)) for i in range(2)], [0, 0]]}
        assert abs(loss - (-z[2] + mp.log(Z))) < mp.mpf(10) ** -48
        assert all(abs(g[k] - v) < mp.mpf(10) ** -48 for k, v in flat(hand).items())
    check_central(BIGRAM, ["W[0,2]", "E[1,1]"], lambda s: oracle.bigram_forward(s, 90)["loss"])


def test_random_two_layers_two_heads_against_torch(tmp_path):
    check_torch(oracle.load_spec(random_spec(tmp_path)))


def test_random_two_layers_two_heads_against_central_differences(tmp_path):
    check_central(random_spec(tmp_path), ["E[3,1]", "W_out[2,5]", "l0.W_Q[1,2]", "l0.W_O[3,0]", "l0.gamma1[2]",
                                          "l1.W_K[0,3]", "l1.beta2[1]", "l1.b_1[5]"], seed_forward)


def test_all_positions_against_prefix_references(tmp_path):
    path = random_spec(tmp_path, all_positions=True)
    spec = oracle.load_spec(path)
    loss, g = oracle.grads(spec, DPS)
    with mp.workdps(DPS):
        assert abs(loss - all_positions_forward(spec)) < mp.mpf(10) ** -45
    check_central(path, ["E[0,2]", "l0.W_V[2,1]", "l1.W_2[4,3]"], all_positions_forward)
    P = torch_oracle.transformer_params(spec, learnable_ln=True)
    inp, nxt = list(spec["data"]["input"]), list(spec["data"]["input"][1:]) + [spec["data"]["target"]]
    total = 0
    for t, y in enumerate(nxt):
        total = total + torch_oracle.transformer_loss(last_position(spec, inp[:t + 1], y), P) / len(nxt)
    total.backward()
    t = flat({k: p.grad.tolist() for k, p in P.items()})
    scale = max(abs(float(v)) for v in g.values())
    assert max(abs(float(g[k]) - t[k]) for k in g) <= 1e-12 * scale


@pytest.mark.parametrize("ln_eps", ["0", "1e-5"])
def test_exact_decimals_and_ln_eps(ln_eps):
    """A Fraction stays exact on its way in: 0.3 is 3/10, not the double nearest to it."""
    spec = oracle.load_spec(SEED)
    spec["model"]["ln_eps"] = Fraction(ln_eps)
    with mp.workdps(60):
        assert oracle.num(Fraction("0.3")) == mp.mpf(3) / 10
    loss, g = oracle.grads(spec, DPS)
    # d = 2 with ε = 0: LayerNorm maps each row to (±1, ∓1)·γ + β, so nothing before LN2 moves the loss
    if ln_eps == "0":
        assert all(abs(g[k]) < mp.mpf(10) ** -40 for k in ("W_Q[0,1]", "W_1[1,2]", "b_2[0]", "gamma1[0]"))
        assert abs(g["gamma2[0]"]) > 1e-3


def test_a_ladder_spec_against_torch():
    """The benchmark's d = 8, T = 8, 2-layer, 2-head rung: a longer causal mask than the others."""
    check_torch(oracle.load_spec(os.path.join(ROOT, "benchmarks", "specs", "ladder-d8-T8-L2-h2.toml")))


def _generator():
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "specs"))
    import generate
    return generate


def test_committed_ladder_specs_are_the_generated_ones():
    g = _generator()
    for s in g.LADDER:
        with open(os.path.join(ROOT, "benchmarks", "specs", f"{s.name}.toml"), encoding="utf-8") as f:
            assert f.read() == g.spec_text(s), s.name
        assert hand_mpmath.param_count(oracle.loads_spec(g.spec_text(s))) == s.params


@pytest.mark.slow
def test_committed_nanogpt_specs_load_in_symgpt():
    """The nanoGPT shape is what the generator writes and loads; its training variant (written on demand) too."""
    import tempfile
    from pathlib import Path

    from symgpt.engine.names import param_names
    from symgpt.engine.spec import load_spec
    g = _generator()
    for s in (g.NANOGPT, g.NANOGPT_TRAIN):
        path = os.path.join(ROOT, "benchmarks", "specs", f"{s.name}.toml")
        if s is g.NANOGPT_TRAIN:
            path = str(g.write(s, Path(tempfile.mkdtemp())))
        with open(path, encoding="utf-8") as f:
            assert f.read() == g.spec_text(s)
        spec = load_spec(path)
        assert len(param_names(spec)) == s.params == 186_688
        assert spec.training.steps == s.steps
