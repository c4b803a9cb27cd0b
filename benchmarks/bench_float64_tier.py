"""The float64 and double-word ball tiers against PyTorch float64 autograd, measured in one run (issue 29).

    python benchmarks/bench_float64_tier.py [--d 256] [--T 256] [--layers 4] [--heads 4] [--V 65] [--d-ff 512]
                                            [--digits 10] [--repeat 3]

Writes a spec of the seed's block at the given sizes (benchmarks/specs/generate.py: weights k/100, ReLU,
post-norm LayerNorm, sinusoidal positions; the defaults are issue 29's model of real size, 1.86 M parameters)
to a temporary folder, then times, each the best of ``repeat``:

- torch: PyTorch float64 forward + backward (tests/torch_oracle.py, one thread, tensors built beforehand);
- balls: the float64 tier's whole pass (:func:`symgpt.floats.balls.values`: forward, every adjoint, in
  float64 midpoint–radius balls), after load;
- certify: the gradient's decimal strings to ``digits`` digits from those balls
  (:func:`symgpt.core.fball.significant`), the same strings ``gradient(digits)`` returns where a ball
  certifies them;
- the same two for the double-word tier (:class:`symgpt.floats.balls.DWBalls`: midpoints of about 106 bits);

and reports their ratios to torch, and how many gradient entries (and the loss) the float64 tier certifies to
``digits`` digits (the rest would go to arb).  Also the load time (spec to balls of the parameters).

``--exact`` (for sizes arb computes in seconds) also takes every gradient entry to 40 digits from the arb tier
and reports, per parameter and tier, how far the balls' midpoints really are from the exact values, how wide
the radii are (the radius's overestimate of the true error, which is what keeps deep models from certifying),
and how many balls miss the exact value (a soundness check: it must be 0).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "specs"), str(ROOT / "tests")]


def best(f, repeat):
    t, out = float("inf"), None
    for _ in range(repeat):
        s = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - s)
    return t, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for k, v in (("d", 256), ("T", 256), ("layers", 4), ("heads", 4), ("V", 65), ("d-ff", 512), ("digits", 10),
                 ("repeat", 3)):
        ap.add_argument(f"--{k}", type=int, default=v)
    ap.add_argument("--exact", action="store_true", help="compare the midpoints and radii with arb's exact gradient")
    a = ap.parse_args(argv)

    import generate
    import torch

    from symgpt.engine.spec import load_spec
    from symgpt.floats import balls

    import oracle
    import torch_oracle

    size = generate.Size(f"tier-d{a.d}-T{a.T}-L{a.layers}", d=a.d, T=a.T, layers=a.layers, heads=a.heads, V=a.V,
                         d_ff=a.d_ff)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{size.name}.toml"
        path.write_text(generate.spec_text(size), encoding="utf-8")
        t0 = time.perf_counter()
        spec = load_spec(path)
        params = balls.parameters(spec)
        load = time.perf_counter() - t0
        raw = oracle.load_spec(path)
        exact = _exact_gradient(path) if a.exact else None

    torch.set_num_threads(1)
    P = torch_oracle.transformer_params(raw, learnable_ln=True)

    def run_torch():
        for p in P.values():
            p.grad = None
        torch_oracle.transformer_loss(raw, P).backward()
    t_torch, _ = best(run_torch, a.repeat)
    print(f"{size.name}: {size.params:,} parameters, {a.digits} digits; load {load:.1f} s")
    print(f"  {'torch float64 forward + backward':<35}{t_torch * 1e3:9.1f} ms")
    for words, tier in ((1, "float64"), (2, "double-word")):
        _tier(spec, words, params if words == 1 else balls.parameters(spec, 2), t_torch, a, exact, tier)


def _tier(spec, words, params, t_torch, a, exact, tier):
    """One ball tier: its time against torch's, what it certifies, and (``--exact``) how its balls compare with
    arb's exact gradient (which each ball must contain)."""
    from symgpt.core import dwball, fball
    from symgpt.floats import balls

    open_signs = []

    def decide(node):       # for the timing only: where a ball cannot decide a ReLU sign, arb would decide it
        open_signs.append(node)
        return 1
    t_balls, v = best(lambda: balls.values(spec, decide=decide, updates=False, params=params, words=words),
                      a.repeat)
    undecided = len(open_signs) // a.repeat
    significant = fball.significant if words == 1 else dwball.significant
    grads = [k for k in v if k.startswith("grad_") and k[5:] in spec.params]

    def certify():
        return {k: significant(v[k], a.digits) for k in grads}
    t_cert, strings = best(certify, a.repeat)
    total = sum(len(s) for s in strings.values())
    done = sum(x is not None for s in strings.values() for x in s) if not undecided else 0
    loss = significant(v["loss"], a.digits)[0] if not undecided else None
    bits = np.concatenate([v[k].bits().ravel() for k in grads])
    print(f"  {tier + ' tier, balls':<35}{t_balls * 1e3:9.1f} ms   {t_balls / t_torch:6.1f}× torch")
    print(f"  {tier + ' tier, balls + certify':<35}{(t_balls + t_cert) * 1e3:9.1f} ms   "
          f"{(t_balls + t_cert) / t_torch:6.1f}× torch")
    print(f"    ReLU signs the balls cannot decide: {undecided}" + (" (arb would decide them: nothing below is "
                                                                  "counted as certified)" if undecided else ""))
    print(f"    loss to {a.digits} digits: {loss}")
    print(f"    gradient entries certified to {a.digits} digits: {done:,} of {total:,} ({100 * done / total:.1f} %); "
          f"relative bits of the balls: median {np.median(bits):.1f}, 10th percentile {np.percentile(bits, 10):.1f}")
    if exact is None:
        return
    import mpmath
    print(f"    against arb's exact gradient ({EXACT_DIGITS} digits), relative to |exact|, medians of nonzero "
          "entries; 'outside': entries whose ball misses the exact value (must be 0):")
    print(f"    {'parameter':<12}{'true error':>12}{'radius':>12}{'radius / error':>16}{'outside':>9}")
    for name, values in exact.items():
        b = v.get("grad_" + name)
        if b is None:
            continue
        mids = [mpmath.mpf(float(h)) + mpmath.mpf(float(lo)) for h, lo in
                zip(b.m.ravel() if words == 1 else b.hi.ravel(), np.zeros(b.size) if words == 1 else b.lo.ravel())]
        err, rad, out = [], [], 0
        for x, mid, r in zip(values, mids, b.r.ravel()):
            e = abs(mid - x)
            if e > mpmath.mpf(float(r)) + abs(x) * mpmath.mpf(10) ** (2 - EXACT_DIGITS):
                out += 1
            if x != 0:
                err.append(float(e / abs(x)))
                rad.append(float(r) / float(abs(x)))
        err, rad = np.array(err), np.array(rad)
        print(f"    {name:<12}{np.median(err):12.1e}{np.median(rad):12.1e}"
              f"{np.median(rad / np.maximum(err, 2.0 ** -120)):16.1e}{out:9d}")


EXACT_DIGITS = 40


def _exact_gradient(path) -> dict:
    """Every parameter's gradient from the arb tier, 40 significant digits, as {name: [mpf in order]}."""
    import mpmath

    import symgpt
    mpmath.mp.dps = EXACT_DIGITS + 10
    grads = symgpt.load(str(path)).gradient(EXACT_DIGITS, tier="arb")
    out: dict = {}
    for key, text in grads.items():
        out.setdefault(key.partition("[")[0], []).append(mpmath.mpf(text))
    return out


if __name__ == "__main__":
    main()
