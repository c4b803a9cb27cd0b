"""The float64 ball product (symgpt.core.fball) against the plain float64 product and python-flint's arb_mat,
measured in one run: the first step of issue 29's float64 tier.

    python benchmarks/bench_fball.py [--n 256] [--repeat 5]

Prints, for an n × n product of random matrices (best of ``repeat``): numpy float64, the ball product (exact
inputs, and balls with radii), arb_mat at 53 bits (one size smaller when n > 128: it is slow), their ratios to
numpy, and the ball product's worst relative radius (how many digits it certifies).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from flint import arb_mat

from symgpt.core.fball import Ball


def best(f, repeat):
    t = float("inf")
    for _ in range(repeat):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((a.n, a.n)), rng.standard_normal((a.n, a.n))
    R = np.full_like(A, 1e-14)
    base = best(lambda: A @ B, a.repeat)
    exact = best(lambda: Ball.exact(A) @ Ball.exact(B), a.repeat)
    balls = best(lambda: Ball(A, R) @ Ball(B, R), a.repeat)
    c = Ball.exact(A) @ Ball.exact(B)
    rel = -np.log10(c.r / np.abs(c.m))
    na = min(a.n, 128)
    MA, MB = arb_mat(A[:na, :na].tolist()), arb_mat(B[:na, :na].tolist())
    t_arb = best(lambda: MA * MB, max(1, a.repeat // 2))
    base_na = best(lambda: A[:na, :na] @ B[:na, :na], a.repeat)
    print(f"n = {a.n}: numpy float64 {base * 1e3:8.3f} ms")
    print(f"  ball product, exact inputs  {exact * 1e3:8.3f} ms  {exact / base:6.1f}× numpy")
    print(f"  ball product, balls in      {balls * 1e3:8.3f} ms  {balls / base:6.1f}× numpy")
    print(f"  arb_mat at n = {na}          {t_arb * 1e3:8.3f} ms  {t_arb / base_na:6.1f}× numpy at that size")
    print(f"  digits the ball certifies per entry (−log10 of the relative radius): median {np.median(rel):.1f}, "
          f"worst {np.min(rel):.1f} (an entry near 0, its sum cancelling)")


if __name__ == "__main__":
    main()
