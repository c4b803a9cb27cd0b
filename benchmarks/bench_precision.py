"""Cost of the precision forensics against the exact evaluation it is measured against, in one run.

    python benchmarks/bench_precision.py [--repeat R] [--births-up-to D]

For each spec (both seeds, the ladder's d = 4 and d = 8 models and the nanoGPT shape: d 64, T 64, 4 layers, 4 heads,
186,688 parameters) it times, each the best of R runs from a fresh load (one run for the nanoGPT shape):

* exact: every named tensor (forward and adjoints) at 256 bits by the certified tensor engine, the reference the
  forensics compares with (the baseline);
* ieee: the four formats' IEEE runs alone (numpy, ml_dtypes), every stage in each format;
* floats: the whole forensics without births: the exact reference (so at least 1× by construction), the four
  formats' runs and every tensor's comparison with its exact values;
* births: the same plus every rounding carried alone through the exact pipeline (:mod:`symgpt.floats.delta`) and
  the report's births of the loss and the gradients in every format (models up to d = D);

and prints each as a ratio to the exact evaluation of the same spec, measured in the same process.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import symgpt  # noqa: E402
from symgpt.floats.model import FORMATS, Floats, Pipeline, exact_params, run  # noqa: E402
from symgpt.precision import PREC, forensics  # noqa: E402

SPECS = ["bigram", "tiny-transformer", str(ROOT / "benchmarks/specs/ladder-d4-T4-L1.toml"),
         str(ROOT / "benchmarks/specs/ladder-d8-T8-L2-h2.toml"), str(ROOT / "benchmarks/specs/nanogpt.toml")]
BIG = 16                       # above this d, each measurement runs once


def exact(spec):
    d = symgpt.load(spec)
    for name in d._net.groups:
        if name not in d._net.params:
            d._ev.group(name, PREC)
    return d


def ieee(spec):
    d = symgpt.load(spec)
    pipe, params = Pipeline(d.spec), exact_params(d.spec)
    t = time.perf_counter()
    for fmt in FORMATS:
        run(pipe, Floats(fmt), params)
    return time.perf_counter() - t


def floats(spec):
    f = forensics(symgpt.load(spec), births=False)
    for fmt in f.formats:
        for name in f.names():
            f.summary(fmt, name)
    return f


def births(spec):
    f = forensics(symgpt.load(spec), births=True)
    for fmt in f.formats:
        f.born(fmt, "loss"), f.born(fmt, f.pipe.grads)
    return f


def best(fn, spec, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(spec)
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--births-up-to", type=int, default=64, help="largest d whose birth analysis is timed")
    a = ap.parse_args(argv)
    print(f"{'spec':<22}{'exact s':>9}{'ieee s':>9}{'×exact':>8}{'floats s':>10}{'×exact':>8}{'births s':>10}"
          f"{'×exact':>8}")
    for spec in SPECS:
        d = symgpt.load(spec).spec.d
        r = 1 if d > BIG else a.repeat
        t0 = best(exact, spec, r)
        ti = min(ieee(spec) for _ in range(r))  # the runs alone, without the load
        t1 = best(floats, spec, r)
        line = f"{Path(spec).stem:<22}{t0:>9.3f}{ti:>9.3f}{ti / t0:>8.1f}{t1:>10.3f}{t1 / t0:>8.1f}"
        if d <= a.births_up_to:
            t2 = best(births, spec, 1 if d > 4 else a.repeat)
            line += f"{t2:>10.3f}{t2 / t0:>8.1f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
