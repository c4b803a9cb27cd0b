"""Sampling from the model after training steps (``sgd[k].softmax_T``, ``sgd[k].topk``, ``sgd[k].topp``): each share
against numpy softmaxes of PyTorch's trained logits, and each cut of logits known as balls against the cut made at
points inside the balls (float64)."""
from __future__ import annotations

import pytest

import oracle
import torch_oracle
from conftest import write_spec

THAI = ("แมว", "กิน", "ปลา", "นอน", "บ้าน")
TRAINED_BIGRAM = """title = "bigram"
[model]
kind = "bigram"
vocab = ["แมว", "กิน", "ปลา", "นอน", "บ้าน"]
d = 2
[data]
input = ["กิน"]
target = "ปลา"
[weights]
E = [[0.3, -0.2], [0.4, 0.4], [-0.1, 0.6], [0.2, 0.1], [-0.4, -0.3]]
W = [[0.1, -0.2, 0.3, 0.0, -0.1], [0.4, 0.2, -0.3, 0.1, 0.0]]
[sampling]
temperatures = ["0.7", "1"]
top_k = 3
top_p = 0.9
[training]
lr = 0.5
steps = 3
"""


def _trained(tmp_path):
    """(the spec's path, each SGD state's logits 0..3) from PyTorch float64 (``torch_oracle.torch_train``)."""
    import numpy as np
    path = write_spec(tmp_path, TRAINED_BIGRAM)
    records = torch_oracle.torch_train(oracle.load_spec(str(path)), "bigram", "sgd", 3, 0.5)
    z = [np.array(r["params"]["E"])[THAI.index("กิน")] @ np.array(r["params"]["W"]) for r in records]
    return path, records, z


def _shares(z, T=1.0):
    import numpy as np
    e = np.exp((z - z.max()) / T)
    return e / e.sum()


def test_sampling_from_the_trained_model_by_name(tmp_path):
    """``sgd[k].softmax_T(T, tok)``, ``sgd[k].topk(k, tok)`` and ``sgd[k].topp(P, tok)`` sample the model after k
    SGD steps: each agrees with a softmax of PyTorch's trained logits (numpy, here), a dropped token's share is
    exactly 0, and a state the run does not reach is one clear error (before: the names were refused)."""
    import numpy as np
    from flint import fmpq

    from symgpt.derivation import load
    from symgpt.refs import ExprError, evaluate
    path, _, z = _trained(tmp_path)
    d = load(path)
    for k in (1, 3):
        hot = _shares(z[k], 0.7)
        for v, t in enumerate(THAI):
            assert abs(float(evaluate(f"sgd[{k}].softmax_T(0.7, {t})", d, 128).mid()) - hot[v]) < 1e-12
        p, order = _shares(z[k]), np.argsort(-z[k])
        kept = order[:3]
        for v, t in enumerate(THAI):
            got = evaluate(f"sgd[{k}].topk(3, {t})", d, 128)
            assert got == fmpq(0) if v not in kept else abs(float(got.mid()) - p[v] / p[kept].sum()) < 1e-12
        mass = np.cumsum(p[order])
        nucleus = order[:int(np.searchsorted(mass, 0.9)) + 1]
        for v, t in enumerate(THAI):
            got = evaluate(f"sgd[{k}].topp(0.9, {t})", d, 128)
            assert got == fmpq(0) if v not in nucleus else abs(float(got.mid()) - p[v] / p[nucleus].sum()) < 1e-12
    assert evaluate("sgd[2].softmax_T(inf, ปลา)", d) == fmpq(1, 5)
    with pytest.raises(ExprError, match="steps 0..3"):
        evaluate("sgd[4].topk(3, ปลา)", d)
    with pytest.raises(ExprError, match="temperature must be > 0"):
        evaluate("sgd[1].softmax_T(0, ปลา)", d)


def _float_cut(z, P=None, k=None):
    """The shares after a top-k or top-p cut of logits z, in float64 (numpy), the ranking by value."""
    import numpy as np
    p = _shares(np.array(z))
    order = np.argsort(-p, kind="stable")
    n = k if k is not None else int(np.searchsorted(np.cumsum(p[order]), P)) + 1
    kept = order[:min(n, len(p))]
    return [p[v] / p[kept].sum() if v in kept else 0.0 for v in range(len(p))]


def test_a_cut_of_balls_is_true_at_every_point_inside_them():
    """top_k and top_p of logits known as balls: where they give a value, the cut made at any logits inside the balls
    (numpy, 40 points each) gives a share inside that value's ball; where a point could cut otherwise, they refuse
    (UndecidableError), never answer. Near-ties are drawn on purpose (a ball around a cut's edge)."""
    import numpy as np
    from flint import arb

    from symgpt.core.numeric import UndecidableError
    from symgpt.training import ball_sampling
    rng = np.random.default_rng(59)
    answered = refused = 0
    for case in range(400):
        if case % 2:            # a few tokens, two of them nearly tied
            V = int(rng.integers(3, 7))
            mid = rng.normal(0, 1, V)
            mid[1] = mid[0] + rng.normal(0, 0.05)
            rad = 10.0 ** rng.uniform(-6, -1, V)
        else:                   # a wide ball on the runner-up over a long flat tail: P near the leader's share
            V = int(rng.integers(10, 31))
            mid = np.concatenate(([0.0, rng.normal(-0.05, 0.05)], -rng.uniform(1.5, 2.0, V - 2)))
            rad = np.concatenate(([1e-9, rng.uniform(0.05, 0.2)], np.full(V - 2, 1e-9)))
        z = [arb(float(m), float(r)) for m, r in zip(mid, rad)]
        top = _shares(mid)[0]
        P = f"{rng.uniform(0.05, 0.95) if case % 2 else top * rng.uniform(0.8, 1.05):.3f}"
        k, v = int(rng.integers(1, V + 1)), int(rng.integers(0, 2 if case % 2 == 0 else V))
        for cut, kw in ((ball_sampling.top_p, {"P": float(P)}), (ball_sampling.top_k, {"k": k})):
            try:
                got = cut(z, P if cut is ball_sampling.top_p else k, v)
            except UndecidableError:
                refused += 1
                continue
            answered += 1
            lo, hi = (float(got), float(got)) if not isinstance(got, arb) else \
                (float(got.lower()), float(got.upper()))
            for _ in range(40):
                point = mid + rad * rng.uniform(-1, 1, V)
                share = _float_cut(point, **kw)[v]
                assert lo - 1e-12 <= share <= hi + 1e-12, (cut.__name__, mid, rad, P, k, v, got, share)
    assert answered > 300 and refused > 20        # (both branches were exercised)
