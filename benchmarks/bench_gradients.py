"""Cost of the full gradient against the forward pass, at 50 digits.

    python benchmarks/bench_gradients.py [--naive-timeout SECONDS]

For each spec (both seeds and a larger one: d = 8, T = 8, 2 heads, 2 layers,
V = 16) it prints, measured in one run: graph build time, forward evaluation,
forward + full gradient, and their ratio (the cheap-gradient principle says a
small constant).  Baseline in the same run: the pure-mpmath forward pass of
tests/oracle.py at 50 digits.  Then the seed's loss built naively as one SymPy
expression: its tree size, and its evalf(50) time-boxed in a subprocess.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp_proc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import sympy

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from symgpt.core.numeric import Evaluator, prec_for_digits  # noqa: E402
from symgpt.derivation import Derivation  # noqa: E402
from symgpt.engine.spec import load_spec  # noqa: E402

import oracle  # noqa: E402  (the independent mpmath implementation, as baseline)

DIGITS = 50


def large_spec(path: Path, V=16, d=8, heads=2, d_ff=16, layers=2, T=8, seed=1) -> Path:
    rng = random.Random(seed)
    r = lambda: f"{rng.randint(-9, 9) / 10:.1f}"
    vec = lambda n: "[" + ", ".join(r() for _ in range(n)) + "]"
    mat = lambda a, b: "[" + ", ".join(vec(b) for _ in range(a)) + "]"
    vocab = [f"t{i}" for i in range(V)]
    lines = ["[model]", 'kind = "transformer"', f"vocab = {vocab!r}".replace("'", '"'),
             f"d = {d}", f"heads = {heads}", f"d_ff = {d_ff}", f"layers = {layers}", "ln_eps = 1e-5",
             "[data]", f"input = {[rng.choice(vocab) for _ in range(T)]!r}".replace("'", '"'),
             f'target = "{rng.choice(vocab)}"', "[weights]", f"E = {mat(V, d)}"]
    for _ in range(layers):
        lines += ["[[layer]]", f"W_Q = {mat(d, d)}", f"W_K = {mat(d, d)}", f"W_V = {mat(d, d)}",
                  f"W_1 = {mat(d, d_ff)}", f"b_1 = {vec(d_ff)}", f"W_2 = {mat(d_ff, d)}", f"b_2 = {vec(d)}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def best(f, repeat=7):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def evaluate_all(graph, prec):
    ev = Evaluator(graph)
    ev._sync()            # compile once; the timing below is evaluation only
    ev.values(prec)       # decide ReLU signs once, as the build would
    signs = dict(ev.signs)

    def run():
        ev.cache.clear()
        ev.signs = dict(signs)
        ev.values(prec)
    return run


def measure(spec_path: Path):
    spec = load_spec(spec_path)
    t = time.perf_counter()
    fwd = Derivation(spec, gradients=False)
    t_fwd_build = time.perf_counter() - t
    t = time.perf_counter()
    full = Derivation(spec)
    t_full_build = time.perf_counter() - t
    prec = prec_for_digits(DIGITS)
    f_min, _ = best(evaluate_all(fwd.graph, prec))
    g_min, _ = best(evaluate_all(full.graph, prec))
    raw = oracle.load_spec(spec_path)
    base = (lambda: oracle.transformer_forward(raw, dps=DIGITS)) if spec.kind == "transformer" \
        else (lambda: oracle.bigram_forward(raw, dps=DIGITS))
    b_min, _ = best(base)
    return {"spec": spec_path.stem, "nodes_fwd": len(fwd.graph.order), "nodes_all": len(full.graph.order),
            "build_fwd_s": t_fwd_build, "build_all_s": t_full_build,
            "forward_ms": 1e3 * f_min, "forward_grad_ms": 1e3 * g_min, "ratio": g_min / f_min,
            "mpmath_forward_ms": 1e3 * b_min, "forward_vs_mpmath": f_min / b_min}


def tree_size(expr) -> int:
    """Nodes of the expression as a tree (shared subtrees counted each time)."""
    memo = {}

    def size(e):
        k = id(e)
        if k not in memo:
            memo[k] = 1 + sum(size(a) for a in e.args)
        return memo[k]
    return size(expr)


def _evalf(expr, q):
    t = time.perf_counter()
    expr.evalf(DIGITS)
    q.put(time.perf_counter() - t)


def naive(spec_path: Path, timeout: float):
    d = Derivation(load_spec(spec_path), gradients=False)
    d._ev.values(64)  # decide the ReLU signs
    t = time.perf_counter()
    with sympy.evaluate(False):  # substitute only: no canonicalisation of huge trees
        expr = d.graph.closed_form("loss", decide=d._ev.decide, max_ops=None)
    t_build = time.perf_counter() - t
    n = tree_size(expr)
    q = mp_proc.get_context("fork").Queue()
    p = mp_proc.get_context("fork").Process(target=_evalf, args=(expr, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return n, t_build, None
    return n, t_build, q.get()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--naive-timeout", type=float, default=120.0,
                    help="seconds allowed for the naive one-expression evalf(50) (default 120)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        specs = [ROOT / "derivations" / "tiny-transformer.toml", ROOT / "derivations" / "bigram.toml",
                 large_spec(Path(tmp) / "large-d8-T8.toml")]
        print(f"{'spec':<18}{'nodes fwd/all':>15}{'build fwd/all s':>17}{'fwd ms':>9}{'fwd+grad ms':>13}"
              f"{'ratio':>7}{'mpmath fwd ms':>15}{'fwd/mpmath':>11}")
        for s in specs:
            r = measure(s)
            print(f"{r['spec']:<18}{r['nodes_fwd']:>7}/{r['nodes_all']:<7}"
                  f"{r['build_fwd_s']:>8.3f}/{r['build_all_s']:<8.3f}{r['forward_ms']:>9.3f}"
                  f"{r['forward_grad_ms']:>13.3f}{r['ratio']:>7.2f}{r['mpmath_forward_ms']:>15.3f}"
                  f"{r['forward_vs_mpmath']:>11.2f}")
    n, t_build, t_eval = naive(ROOT / "derivations" / "tiny-transformer.toml", a.naive_timeout)
    shown = f"{t_eval:.1f} s" if t_eval is not None else f"> {a.naive_timeout:.0f} s (time-boxed, killed)"
    print(f"\nnaive one-expression loss of tiny-transformer: {n:,} tree nodes, "
          f"built in {t_build:.2f} s, evalf({DIGITS}): {shown}")


if __name__ == "__main__":
    main()
