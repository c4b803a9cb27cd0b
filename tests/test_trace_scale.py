"""Training traces at scale: 20 SGD and AdamW steps of a 2-layer, 2-head model, certified.

The trace's balls widen with every update, so it starts at a precision measured by a first,
cheap trace and works lower and lower along the states (symgpt.training.train.Trace.start); on a big
model it keeps parameters, gradients and moments only at checkpoints and recomputes the rest.
Every figure is checked against an independent trace: the hand-written mpmath forward and
reverse pass of tests/oracle.py (oracle.grads), with the SGD and AdamW updates written out here
(torch.optim's formulas) at 120 digits, where rounding cannot reach the 30 digits compared.
"""
from __future__ import annotations

import math
import os
import sys

import pytest
from flint import fmpq
from mpmath import mp

import symgpt
from symgpt.training import train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests")]

import oracle  # noqa: E402
from test_hand_mpmath import key_path  # noqa: E402

pytestmark = pytest.mark.slow
STEPS, DPS = 20, 120
TRAINING = f"""
[training]
lr = 0.3
steps = {STEPS}

[training.adamw]
lr = 0.01
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
weight_decay = 0.1
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    text = oracle.random_spec_toml(seed=11, V=10, d=8, heads=2, d_ff=16, layers=2, T=6, tied=True, W_O=True)
    path = tmp_path_factory.mktemp("trace") / "d8-L2-h2.toml"
    path.write_text(text + TRAINING, encoding="utf-8")
    return str(path)


def _slot(spec, name):
    *where, last = key_path(spec, name)
    node = spec
    for k in where:
        node = node[k]
    return node, last


def _set(spec, name, x):
    node, last = _slot(spec, name)
    node[last] = x


def _get(spec, name):
    node, last = _slot(spec, name)
    return node[last]


def hand_lr(lr0, it, warmup=0, decay_steps=0, min_lr=0):
    """nanoGPT's schedule at update ``it`` (0-based): linear warm-up, then cosine decay to min_lr."""
    if it < warmup:
        return lr0 * (it + 1) / (warmup + 1)
    if not decay_steps:
        return lr0
    if it > decay_steps:
        return min_lr
    ratio = mp.mpf(it - warmup) / (decay_steps - warmup)
    return min_lr + (1 + mp.cos(mp.pi * ratio)) / 2 * (lr0 - min_lr)


def hand_trace(path, optimizer, names):
    """[(loss, {name: θ}, {name: g}, {name: decay})] of states 0..STEPS, in mpmath at DPS digits
    (torch.optim's updates, the spec's schedule)."""
    spec = oracle.read(path)
    tr = spec["training"]
    out = []
    with mp.workdps(DPS):
        sched = {"warmup": int(tr.get("warmup", 0)), "decay_steps": int(tr.get("decay_steps", 0)),
                 "min_lr": oracle.num(tr.get("min_lr", 0))}     # at DPS digits, as every number here
        theta = {n: oracle.num(_get(spec, n)) for n in names}
        m = {n: mp.zero for n in names}
        v = {n: mp.zero for n in names}
        decay = {}
        for t in range(STEPS + 1):
            for n, x in theta.items():
                _set(spec, n, x)
            loss, g = oracle.grads(spec, DPS)
            out.append((loss, dict(theta), {n: g[n] for n in names}, decay))
            if optimizer == "sgd":
                lr = oracle.num(tr["lr"])
                theta = {n: x - lr * g[n] for n, x in theta.items()}
                continue
            a = tr["adamw"]
            lr, b1, b2, eps, wd = (oracle.num(a[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
            lr = hand_lr(lr, t, **sched)
            decay = {n: lr * wd * x for n, x in theta.items()}
            k = t + 1
            for n in names:
                m[n] = b1 * m[n] + (1 - b1) * g[n]
                v[n] = b2 * v[n] + (1 - b2) * g[n] ** 2
                mhat, vhat = m[n] / (1 - b1 ** k), v[n] / (1 - b2 ** k)
                theta[n] = theta[n] - lr * wd * theta[n] - lr * mhat / (mp.sqrt(vhat) + eps)
    return out


def close(text, want, digits=30):
    """The certified figure ``text`` (``digits`` significant) is the rounding of ``want``: within half a unit
    in its last place (and the hand trace's own rounding, far below)."""
    with mp.workdps(DPS):
        got = mp.mpf(text)
        unit = mp.mpf(10) ** (mp.floor(mp.log10(abs(want))) - digits + 1)
        return abs(got - want) <= unit / 2 + mp.mpf(10) ** (-DPS + 20)


@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_twenty_steps_agree_with_a_hand_trace(spec_path, optimizer):
    d = symgpt.load(spec_path)
    names = train.learnable(d)
    hand = hand_trace(spec_path, optimizer, names)
    t = d.trace(optimizer)
    for k in (1, 7, STEPS):
        loss, theta, g, _ = hand[k]
        assert close(d.value(f"{optimizer}[{k}].loss", digits=30), loss)
        for n in (names[0], names[len(names) // 2], names[-1]):
            assert close(d.value(f"{optimizer}[{k}].{n}", digits=30), theta[n]), (k, n)
            if g[n] != 0:
                assert close(d.value(f"{optimizer}[{k}].grad_{n}", digits=25), g[n], 25), (k, n)
    # the precision falls along the trace: the last state works with fewer bits than the first
    states = t.states(t.start(train.prec_for_digits(30) + train.GUARD))
    assert states[-1].prec < states[0].prec and not any(s.exhausted for s in states)


def test_checkpoints_recompute_the_same_states(spec_path, monkeypatch):
    """With room for one state only, every state but the checkpoints is recomputed when read: its
    parameters, gradients and AdamW quantities still agree with the hand trace."""
    monkeypatch.setattr(train, "KEEP_ENTRIES", 1)
    d = symgpt.load(spec_path)
    names = train.learnable(d)
    hand = hand_trace(spec_path, "adamw", names)
    t = d.trace("adamw")
    keep = t._keep_every()
    assert keep > STEPS  # only state 0 and the last keep their parameters
    n = names[len(names) // 3]
    for k in (3, 11):
        assert close(d.value(f"adamw[{k}].{n}", digits=30), hand[k][1][n])
        assert close(d.value(f"adamw[{k}].grad_{n}", digits=25), hand[k][2][n], 25)
    group, index = n[:-1].split("[")
    assert close(d.value(f"adamw[11].decay[{group},{index}]", digits=30), hand[11][3][n])
    start = t.start(train.prec_for_digits(30) + train.GUARD)
    states = t.states(start)
    assert [s.step for s in states if s.params is not None] == [0, STEPS]
    # the recomputed states are the balls the trace computed: the same midpoints and radii as a trace
    # that keeps every state
    monkeypatch.setattr(train, "KEEP_ENTRIES", 10 ** 9)
    kept = symgpt.load(spec_path).trace("adamw").states(start)
    for k in (5, 13):
        again = t.full(start, k)
        for x in (again.params, again.grads, again.m, again.v):
            assert x is not None
        for a, b in ((again.params, kept[k].params), (again.grads, kept[k].grads), (again.m, kept[k].m)):
            assert all(same_ball(a[n], b[n]) for n in names)


def same_ball(a, b) -> bool:
    """The same exact rational, or the same midpoint and radius."""
    if isinstance(a, fmpq) or isinstance(b, fmpq):
        return isinstance(a, fmpq) and isinstance(b, fmpq) and a == b
    return a.mid() == b.mid() and a.rad() == b.rad()


def test_a_scheduled_learning_rate_reads_decay_and_update_at_full_precision(spec_path, tmp_path):
    """With nanoGPT's cosine schedule the learning rate is a ball; AdamW's decay η·λ·θ and m̂ still
    certify 30 digits, against the hand trace with the same schedule."""
    path = tmp_path / "scheduled.toml"
    path.write_text(open(spec_path, encoding="utf-8").read().replace(
        "steps = 20\n", "steps = 20\nwarmup = 2\ndecay_steps = 10\nmin_lr = 1e-4\n"), encoding="utf-8")
    d = symgpt.load(str(path))
    names = train.learnable(d)
    hand = hand_trace(str(path), "adamw", names)
    n = names[-1]
    group, index = n[:-1].split("[")
    for k in (2, 5, 12):
        assert close(d.value(f"adamw[{k}].decay[{group},{index}]", digits=30), hand[k][3][n]), k
        assert close(d.value(f"adamw[{k}].{n}", digits=30), hand[k][1][n]), k


def test_a_start_too_low_recovers(spec_path):
    """A trace started with no margin runs out of bits before its end: the states past that read as
    unknown and the reading climbs to a precision that reaches them, with the same digits."""
    d = symgpt.load(spec_path)
    names = train.learnable(d)
    hand = hand_trace(spec_path, "sgd", names)
    t = d.trace("sgd")
    t._loss_per_step = (0, 0, True)        # as if updates lost nothing
    assert t.states(t.start(128))[-1].exhausted
    assert close(d.value(f"sgd[{STEPS}].loss", digits=30), hand[STEPS][0])


def test_accuracy_reads_the_widest_radius_against_the_largest_value():
    """Bits between max |mid| and max radius of each tensor, the least over tensors: by hand."""
    from flint import arb, fmpq
    a = {"W[0,0]": arb(1, 2.0 ** -40), "W[0,1]": arb(2.0 ** -30, 2.0 ** -50)}    # 2^0 against 2^-40
    b = {"E[0,0]": arb(8, 2.0 ** -20), "E[0,1]": fmpq(1, 3)}                      # 2^3 against 2^-20
    bits = train.accuracy(a, b)
    assert 22 <= bits <= 24 and math.isinf(train.accuracy({"W[0,0]": fmpq(1, 3)}))
