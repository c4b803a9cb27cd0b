"""Calibration of ``limits.MAX_OPS``: specs near the limit render in time.

    python benchmarks/bench_limits.py [--fraction F] [--shapes wide,long,...]

For each shape (wide d, long T, many layers, big V, many steps, long
continuation) the script grows one size of the tiny-transformer seed until
:func:`symgpt.engine.cost.estimate` reaches ``F × MAX_OPS`` (default F = 0.95), then
renders the spec (Markdown and LaTeX, English, in memory) in a fresh process
and prints the estimate, wall time, peak RSS and their ratios to the seed.
The limit is right when every shape stays under 30 s and 2 GB on the
reference machine (2 cores).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from symgpt import cost  # noqa: E402
from symgpt.core.limits import MAX_OPS  # noqa: E402
from symgpt.engine.spec import load_spec  # noqa: E402

SEED = ROOT / "derivations" / "tiny-transformer.toml"


def weight(i: int, j: int, k: int = 0) -> str:
    """A deterministic pseudo-random weight in [-0.5, 0.5] with four decimals
    (seeded per entry, so rows differ by no constant vector and no logit
    difference is exactly 0)."""
    return f"{random.Random(f'{i},{j},{k}').randint(-5000, 5000) / 10000:.4f}"


def matrix(rows: int, cols: int, k: int) -> str:
    return "[" + ", ".join("[" + ", ".join(weight(i, j, k) for j in range(cols)) + "]"
                           for i in range(rows)) + "]"


def vector(n: int, k: int, value=None) -> str:
    return "[" + ", ".join(value if value else weight(i, 1, k) for i in range(n)) + "]"


def spec_text(d=3, T=2, V=6, layers=1, d_ff=4, steps=1, cont=3, heads=1) -> str:
    """A transformer spec of the given sizes (the seed's other settings)."""
    vocab = ", ".join(f'"t{v}"' for v in range(V))
    inp = ", ".join(f'"t{(2 + t) % V}"' for t in range(T))
    out = ['title = "bench"', "[model]", 'kind = "transformer"', f"vocab = [{vocab}]", f"d = {d}",
           f"heads = {heads}", f"d_ff = {d_ff}", f"layers = {layers}", "tied = true", "ln_eps = 1e-5",
           "[data]", f"input = [{inp}]", f'target = "t{4 % V}"', "[weights]", f"E = {matrix(V, d, 1)}"]
    for l in range(layers):
        out += ["[[layer]]", f"W_Q = {matrix(d, d, 2 + l)}", f"W_K = {matrix(d, d, 3 + l)}",
                f"W_V = {matrix(d, d, 4 + l)}", f"W_1 = {matrix(d, d_ff, 5 + l)}",
                f"b_1 = {vector(d_ff, 0, '0.1')}", f"W_2 = {matrix(d_ff, d, 6 + l)}",
                f"b_2 = {vector(d, 0, '0.0')}"]
    out += ["[sampling]", f"continue = {cont}", "[training]", "lr = 0.1", f"steps = {steps}",
            "report = [1]"]
    return "\n".join(out) + "\n"


SHAPES = {  # shape: (size grown, the seed's other sizes)
    "wide": ("d", {}),
    "long": ("T", {}),
    "deep": ("layers", {}),
    "vocab": ("V", {}),
    "steps": ("steps", {}),
    "continue": ("cont", {}),
}
START = {"d": 3, "T": 2, "layers": 1, "V": 6, "steps": 1, "cont": 3}


def near_limit(key: str, fraction: float, folder: Path) -> tuple[dict, int]:
    """The largest value of ``key`` whose estimate stays under fraction × MAX_OPS."""
    best, size = None, START[key]
    while True:
        sizes = {key: size}
        if key == "d":
            sizes["d_ff"] = 2 * size
        path = folder / f"{key}-{size}.toml"
        path.write_text(spec_text(**sizes), encoding="utf-8")
        ops = cost.estimate(load_spec(path)).ops
        if ops > fraction * MAX_OPS:
            return best
        best = (sizes, ops, path)
        size = size + max(1, size // 4)


CHILD = """
import json, resource, sys, time
from symgpt.render import render_all
t = time.perf_counter()
render_all([sys.argv[1]], formats=("md", "tex"), langs=("en",))
print(json.dumps({"s": time.perf_counter() - t,
                  "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(path: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, str(path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        return {"s": float("nan"), "mb": float("nan"), "error": r.stderr.strip().splitlines()[-1]}
    return json.loads(r.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fraction", type=float, default=0.95)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        seed_ops = cost.estimate(load_spec(SEED)).ops
        seed = measure(SEED)
        print(f"limit MAX_OPS = {MAX_OPS:.3g}; seed: {seed_ops:.3g} ops, {seed['s']:.2f} s, {seed['mb']:.0f} MB")
        print(f"{'shape':9} {'sizes':28} {'ops':>9} {'time s':>7} {'RSS MB':>7} {'ops/seed':>9} "
              f"{'t/seed':>7} {'RSS/seed':>8}")
        for shape in a.shapes.split(","):
            key, _ = SHAPES[shape]
            found = near_limit(key, a.fraction, folder)
            if found is None:
                print(f"{shape:9} (the smallest step is above the limit)")
                continue
            sizes, ops, path = found
            m = measure(path)
            print(f"{shape:9} {json.dumps(sizes):28} {ops:9.3g} {m['s']:7.2f} {m['mb']:7.0f} "
                  f"{ops / seed_ops:9.1f} {m['s'] / seed['s']:7.1f} {m['mb'] / seed['mb']:8.1f}"
                  + (f"  {m['error']}" if "error" in m else ""))


if __name__ == "__main__":
    main()
