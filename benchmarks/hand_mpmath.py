"""Hand-written mpmath forward and reverse mode of symgpt's two models: the baseline of bench_scale.

    python benchmarks/hand_mpmath.py [SPEC.toml] [--dps N]

A thin command over tests/oracle.py, the test suite's independent pure-mpmath
reference (it imports nothing from symgpt): ``grads`` reads the spec TOML (every
number an exact Fraction from its text) and computes the loss and ∂loss/∂θ for
every parameter θ, forward and reverse mode written out by hand at ``dps``
decimal digits of working precision (the formulas are in oracle's docstring).
Here: the command, and the counts the benchmark reports (param_count, forward_macs).

>>> loss, g = grads(os.path.join(ROOT, "derivations", "bigram.toml"), dps=30)
>>> mpmath.nstr(loss, 14), mpmath.nstr(g["W[0,2]"], 12), len(g)
('1.0514701356033', '-0.195172898657', 12)
"""
from __future__ import annotations

import os
import sys

import mpmath

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from oracle import grads, read  # noqa: E402  (the pure-mpmath model: reader, forward and reverse mode)

__all__ = ["grads", "forward_macs", "param_count", "read"]


def param_count(spec) -> int:
    """Parameters symgpt differentiates: every weight, LayerNorm γ and β included.

    >>> param_count(read(os.path.join(ROOT, "derivations", "tiny-transformer.toml")))
    54
    """
    spec = read(spec)
    m = spec["model"]
    V, d = len(m["vocab"]), int(m["d"])
    if m["kind"] == "bigram":
        return 2 * V * d
    d_ff = int(m["d_ff"])
    per = 3 * d * d + 2 * d * d_ff + d_ff + d + 4 * d
    return V * d + (0 if m.get("tied", True) else d * V) + sum(
        per + (d * d if "W_O" in layer else 0) for layer in spec["layer"])


def forward_macs(spec) -> int:
    """Multiply-adds of the forward pass: the operation count the benchmark's slopes use.

    Per block 3Td² (Q, K, V) + T(T+1)d (causal scores and A·V: Σ_t (t+1) d_k per head,
    twice) + Td² with W_O + 2T·d·d_ff (FFN); the head n·V·d for its n rows.  Softmax,
    LayerNorm and the positional encoding are O(T·d) and left out.

    >>> forward_macs(read(os.path.join(ROOT, "derivations", "tiny-transformer.toml")))
    80
    """
    spec = read(spec)
    m = spec["model"]
    V, d = len(m["vocab"]), int(m["d"])
    if m["kind"] == "bigram":
        return V * d
    T, d_ff = len(spec["data"]["input"]), int(m["d_ff"])
    n = T if spec.get("training", {}).get("all_positions", False) else 1
    per = 3 * T * d * d + T * (T + 1) * d + 2 * T * d * d_ff
    return sum(per + (T * d * d if "W_O" in layer else 0) for layer in spec["layer"]) + n * V * d


def main(argv=None):
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default=os.path.join(ROOT, "derivations", "tiny-transformer.toml"))
    ap.add_argument("--dps", type=int, default=50)
    a = ap.parse_args(argv)
    t = time.perf_counter()
    loss, g = grads(a.spec, a.dps)
    dt = time.perf_counter() - t
    print(f"loss = {mpmath.nstr(loss, a.dps)}   ({len(g)} gradients in {dt:.3f} s)")
    for k, v in list(g.items())[:8]:
        print(f"  d loss / d {k} = {mpmath.nstr(v, a.dps)}")


if __name__ == "__main__":
    main()
