"""Time ``python -m symgpt.verify`` on every seed claim, after start-up.

    python benchmarks/bench_verify.py [--repeat N] [--budget SECONDS]

Start-up (importing symgpt, SymPy, flint) is timed apart.  Each repetition
then loads the derivations afresh and

* verify: reads every derivations/*.claims.toml and gives every certified
  verdict (chains, distances and exact strings included);
* values: loads afresh again and only encloses each claim's value once at
  the verdicts' first precision (the floor any checker pays).

It prints the best and the median of each and their ratio, and exits 1 when
the best verify time exceeds the budget (2 s by default).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

t0 = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from symgpt import verify  # noqa: E402
from symgpt.claims.claims import START_PREC, bind_claims, judge_all, read_claims  # noqa: E402
from symgpt.derivation import DERIVATIONS  # noqa: E402

STARTUP = time.perf_counter() - t0


def run_verify(paths) -> tuple[float, int, int]:
    verify._LOADED.clear()
    t = time.perf_counter()
    n = wrong = 0
    for p in paths:
        cf = read_claims(p)
        vs = judge_all(cf, verify.derivation_for(cf.spec))
        n += len(vs)
        wrong += sum(not v.ok for v in vs)
    return time.perf_counter() - t, n, wrong


def run_values(paths) -> float:
    verify._LOADED.clear()
    t = time.perf_counter()
    for p in paths:
        cf = read_claims(p)
        for _, q, _ in bind_claims(cf, verify.derivation_for(cf.spec)):
            q.ball(START_PREC)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds allowed for verify (best run)")
    args = ap.parse_args()
    paths = sorted(DERIVATIONS.glob("*.claims.toml"))
    ver, val = [], []
    for _ in range(args.repeat):
        t, n, wrong = run_verify(paths)
        ver.append(t)
        val.append(run_values(paths))
    best, best_val = min(ver), min(val)
    print(f"claims files      {len(paths)} ({n} claims, {wrong} wrong or undecided)")
    print(f"start-up          {STARTUP:.3f} s (imports)")
    print(f"load + verify     best {best:.3f} s, median {statistics.median(ver):.3f} s")
    print(f"load + values     best {best_val:.3f} s, median {statistics.median(val):.3f} s")
    print(f"ratio             {best / best_val:.2f}× (verify / values alone)")
    ok = best < args.budget
    print(f"budget            {args.budget:.1f} s: {'ok' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
