"""Scale: symgpt end to end against hand-written mpmath and PyTorch float64, in one run (issue 12).

    python benchmarks/bench_scale.py [--max-size N] [--repeat R] [--timeout S] [--json PATH]
                                     [--no-ladder] [--nanogpt [--nanogpt-hand]] [--ln-eps0] [--train] [--largest]

The ladder (the seed, then benchmarks/specs/ladder-*.toml up to d = 32, T = 16, L = 2;
``--max-size N`` stops after the N-th size, seed included) is measured size by size,
each time the median of R repeats (default 3; 1 once a run takes over 10 s):

- hand mpmath: benchmarks/hand_mpmath.py, forward + reverse at 50 digits, from reading the spec file;
- torch: PyTorch float64 forward + backward (tests/torch_oracle.py, tensors built beforehand);
- symgpt end to end, in a fresh subprocess each repeat (imports excluded; a run under 2 s is
  run R more times in its process, warm as hand mpmath's median is, and their median taken; the
  first run is kept too):
  ``load_spec(path)``, ``Derivation(spec)``, ``value("loss", digits=50)``, ``gradient(50)``
  with the default ``Limits()`` as a user has them, its peak memory the child's ``ru_maxrss``.

Columns: ops = multiply-adds of the forward pass (:func:`hand_mpmath.forward_macs`:
3Td² + T(T+1)d + 2T·d·d_ff per block, V·d for the head), params, the three times,
ratio = symgpt / hand (target ≤ 2), and agreement: the fewest correct digits over every
gradient of symgpt's 50-digit strings against hand mpmath at 70 digits, and of torch
float64 against symgpt (their median beside it).  Then the least-squares slope of
log time against log ops over the sizes with at least 10,000 ops (below, fixed costs
flatten it), for symgpt (target ≤ 1.05, and every size must finish) and for hand mpmath.
A size that times out (``--timeout``, default 120 s) ends the ladder.

``--nanogpt``: benchmarks/specs/nanogpt.toml (d = 64, T = 64, 4 layers, 4 heads, V = 65,
d_ff = 256, 186,688 parameters) end to end at 50 digits (targets < 60 s, < 2 GB) and at
1000 digits (target < 10 min); ``--nanogpt-hand`` also times hand mpmath on it.
``--ln-eps0``: the seed with ln_eps = 0, every gradient asked for at 50 digits; how many
are certified "0" against how many hand mpmath finds to be 0 (below 1e-40); target: all
of them, well under 1 s.  ``--train``: 20 SGD and 20 AdamW steps of
the nanoGPT shape with [training] steps = 20 (generate.NANOGPT_TRAIN, written on demand),
``value("sgd[20].loss", digits=30)`` (and adamw),
against torch float64's trace; target < 10 min in all, the matrix products on every core
(SYMGPT_THREADS; everything else runs on one core, as hand mpmath does).  ``--largest``: the ladder and
then larger ladder-like sizes (benchmarks/specs/generate.py BEYOND) until one takes
over 60 s.  Every symgpt item runs in a subprocess killed past its time limit ("timeout")
or past ``--max-mem`` GB of address space ("memory"), so the benchmark never hangs.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "benchmarks" / "specs"
SEED = ROOT / "derivations" / "tiny-transformer.toml"
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "specs"), str(ROOT / "tests")]

DIGITS = 50
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # torch without numpy says so once
REF_DPS = 70          # hand mpmath as the reference for symgpt's digits (untimed)
TRAIN_THREADS = os.cpu_count() or 1  # a trace's matrix products on every core (the rest: one, as hand mpmath)
RAISED_OPS = 10 ** 8  # --max-ops for what the default refuses: 1000-digit passes of the nanoGPT shape, its traces
WARM_BELOW = 2.0      # s: a first end-to-end run shorter than this is repeated in its process and the repeat timed
FIT_OPS = 10_000      # the slopes are fitted over sizes with at least this many forward multiply-adds


# ---------------------------------------------------------------- the child: one symgpt measurement

def _emit(**record):
    print(json.dumps(record), flush=True)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(job: dict):
    """Run one symgpt job (imports first, untimed) and print JSON lines; the last has ``done``."""
    if job.get("max_mem_gb"):
        cap = int(job["max_mem_gb"] * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from symgpt import ops
    from symgpt.core.limits import Limits
    from symgpt.core.numeric import UndecidableError
    from symgpt.derivation import Derivation
    from symgpt.engine.names import param_names
    from symgpt.engine.spec import load_spec

    limits = Limits(max_ops=job.get("max_ops", Limits().max_ops), max_digits=max(1000, job.get("digits", DIGITS)))
    kind, path, n = job["kind"], job["spec"], job.get("digits", DIGITS)
    t0 = time.perf_counter()
    ops.all_rules()  # each operation's adjoint derived and proven by SymPy: once per process, like an import
    ops.OPS["layernorm"].vanishes(load_spec(path, limits).d, 0) if kind != "train" else None
    rules_s = time.perf_counter() - t0
    _emit(phase="rules", rules_s=rules_s)
    t0 = time.perf_counter()
    spec = load_spec(path, limits)
    t_load = time.perf_counter() - t0
    d = Derivation(spec, limits=limits)
    t_build = time.perf_counter() - t0
    _emit(phase="built", load_s=t_load, build_s=t_build, peak_mb=_peak_mb())
    if kind == "e2e":
        loss = d.value("loss", digits=n)
        t_loss = time.perf_counter() - t0
        g = d.gradient(n)
        total = first = time.perf_counter() - t0
        runs = []
        for _ in range(job.get("repeat", 3) if first < WARM_BELOW else 0):  # as hand mpmath's median: again
            t0 = time.perf_counter()                                         # in the same process, from the file
            spec = load_spec(path, limits)
            t_load = time.perf_counter() - t0
            d = Derivation(spec, limits=limits)
            t_build = time.perf_counter() - t0
            loss = d.value("loss", digits=n)
            t_loss = time.perf_counter() - t0
            g = d.gradient(n)
            runs.append(time.perf_counter() - t0)
        total = statistics.median(runs) if runs else first
        _emit(done=True, load_s=t_load, build_s=t_build, loss_s=t_loss, total_s=total, first_s=first, loss=loss,
              rules_s=rules_s, grads=g if job.get("grads") else None, peak_mb=_peak_mb())
    elif kind == "ln_eps0":
        counts = {"zero": 0, "nonzero": 0, "undecidable": 0, "error": 0}
        zeros = []
        for name in param_names(spec):
            try:
                v = d.value("grad_" + name, digits=n)
                key = "zero" if v.lstrip("-") in ("0", "0.0") or set(v.lstrip("-")) <= set("0.") else "nonzero"
                if key == "zero":
                    zeros.append(name)
            except UndecidableError:
                key = "undecidable"
            except Exception as e:  # noqa: BLE001 — reported, never hidden
                key = "error"
                _emit(phase="error", name=name, error=f"{type(e).__name__}: {e}"[:300])
            counts[key] += 1
            _emit(phase="grad", name=name, result=key, s=time.perf_counter() - t0)
        _emit(done=True, total_s=time.perf_counter() - t0, counts=counts, zeros=zeros, peak_mb=_peak_mb())
    elif kind == "train":
        opt, steps = job["optimizer"], spec.training.steps
        d.trace(opt)
        loss = d.value(f"{opt}[{steps}].loss", digits=n)
        _emit(done=True, total_s=time.perf_counter() - t0, loss=loss, steps=steps, peak_mb=_peak_mb())
    else:
        raise ValueError(kind)


def _vm_hwm_mb(pid: int):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_child(job: dict, timeout: float) -> dict:
    """The child's last record, or {"status": "timeout" | "memory" | "error", …} with what it printed."""
    env = {**os.environ, "SYMGPT_THREADS": str(job.get("threads", 1))}  # one core, as hand mpmath, unless said
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(job)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    status, hwm = "ok", None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        hwm = _vm_hwm_mb(proc.pid)
        proc.kill()
        out, err = proc.communicate()
        status = "timeout"
    records = []
    for line in out.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    last = records[-1] if records else {}
    if status == "ok" and not last.get("done"):
        status = "memory" if "MemoryError" in err else "error"
    res = dict(last) if status == "ok" else {"peak_mb": hwm or last.get("peak_mb")}
    res.update(status=status, records=records, stderr=err[-2000:] if status != "ok" else "")
    return res


# ---------------------------------------------------------------- the baselines, in this process

def timed(f, repeat: int):
    """(median seconds, last result) of ``repeat`` calls; one call when the first takes over 10 s.

    >>> timed(lambda: 42, 3)[1]
    42
    """
    times, out = [], None
    for i in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
        if times[0] > 10:
            break
    return statistics.median(times), out


def torch_run(spec: dict):
    """A callable doing PyTorch float64 forward + backward (parameters built once), and the
    gradients {node name: float} it gives."""
    import torch

    import torch_oracle
    torch.set_num_threads(1)  # two shared cores: one thread is both faster and steadier here
    P = torch_oracle.transformer_params(spec, learnable_ln=True)

    def run():  # (T, d) tensors, forward + backward
        for p in P.values():
            p.grad = None
        torch_oracle.transformer_loss(spec, P).backward()
        return P
    return run, lambda: {k: x for name, p in P.items() for k, x in _flat(name, p.grad.tolist()).items()}


def _flat(name, v):
    if isinstance(v[0], list):
        return {f"{name}[{i},{j}]": x for i, r in enumerate(v) for j, x in enumerate(r)}
    return {f"{name}[{i}]": x for i, x in enumerate(v)}


def correct_digits(x, ref, cap: float):
    """−log10 |x − ref|/|ref|, capped; ``cap`` when equal (exact zeros included), 0 when ref = 0 ≠ x.

    >>> round(correct_digits("0.333333", "0.3333333333333333", 17), 3), correct_digits("0", 0, 50)
    (6.0, 50)
    """
    from mpmath import mp
    with mp.workdps(REF_DPS + 10):
        x, ref = mp.mpf(x), mp.mpf(ref)
        if x == ref:
            return cap
        if ref == 0:
            return 0.0
        return max(0.0, min(cap, float(-mp.log10(abs(x - ref) / abs(ref)))))


def slope(xs, ys):
    """Least-squares slope of log y against log x (None for fewer than two points).

    >>> round(slope([10, 100, 1000], [2, 20, 200]), 6), slope([5], [1])
    (1.0, None)
    """
    if len(xs) < 2:
        return None
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx if sxx else None


def verdict(ok) -> str:
    """PASS, FAIL, or n/a when nothing was measured.

    >>> verdict(True), verdict(False), verdict(None)
    ('PASS', 'FAIL', 'n/a ')
    """
    return "n/a " if ok is None else ("PASS" if ok else "FAIL")


# ---------------------------------------------------------------- the ladder

def ladder_paths() -> list[tuple[str, Path]]:
    import generate
    return [("seed", SEED)] + [(s.name.removeprefix("ladder-"), SPECS / f"{s.name}.toml") for s in generate.LADDER]


def symgpt_e2e(path: Path, repeat: int, timeout: float, max_mem: float, digits=DIGITS):
    """Median end-to-end seconds over fresh subprocesses, the first run's gradients, the peak memory."""
    runs = []
    for i in range(repeat):
        r = run_child({"kind": "e2e", "spec": str(path), "digits": digits, "grads": i == 0,
                       "max_mem_gb": max_mem, "repeat": repeat}, timeout)
        if r["status"] != "ok":
            return r
        runs.append(r)
        if r["total_s"] > 10:
            break
    first = runs[0]
    return {"status": "ok", "total_s": statistics.median(r["total_s"] for r in runs),
            "build_s": statistics.median(r["build_s"] for r in runs), "grads": first["grads"],
            "rules_s": statistics.median(r["rules_s"] for r in runs),
            "first_s": statistics.median(r["first_s"] for r in runs),
            "loss": first["loss"], "peak_mb": max(r["peak_mb"] for r in runs), "repeats": len(runs)}


def measure_size(label: str, path: Path, a) -> dict:
    import hand_mpmath
    spec = hand_mpmath.read(str(path))
    row = {"size": label, "spec": str(path.relative_to(ROOT)), "ops": hand_mpmath.forward_macs(spec),
           "params": hand_mpmath.param_count(spec)}
    row["hand_s"], _ = timed(lambda: hand_mpmath.grads(str(path), DIGITS), a.repeat)  # end to end: from the file
    run, grads_of = torch_run(spec)
    run()  # warm-up: torch's first autograd call pays its own start-up
    row["torch_s"], _ = timed(run, max(a.repeat, 5))
    t_grads = grads_of()
    s = symgpt_e2e(path, a.repeat, a.timeout or 120, a.max_mem)
    row["symgpt"] = s["status"]
    row["peak_mb"] = s.get("peak_mb")
    if s["status"] != "ok":
        row["symgpt_s"] = None
        return row
    row["symgpt_s"], row["build_s"], row["rules_s"] = s["total_s"], s["build_s"], s["rules_s"]
    row["first_s"] = s["first_s"]
    row["ratio"] = row["symgpt_s"] / row["hand_s"]
    _, ref = hand_mpmath.grads(spec, REF_DPS)
    sym = s["grads"]
    hd = [correct_digits(sym[k], ref[k], DIGITS) for k in ref]
    td = [correct_digits(repr(t_grads[k]), sym[k], 17) for k in ref]
    row.update(digits_sym=min(hd), digits_torch=min(td), digits_torch_median=statistics.median(td),
               torch_no_digit=sum(x < 1 for x in td))
    return row


def fmt(x, spec="8.3f", none="—"):
    return format(x, spec) if x is not None else none


def print_ladder(rows, a):
    print(f"{'size':<16}{'ops':>10}{'params':>8}{'hand s':>9}{'torch ms':>10}{'symgpt s':>10}{'peak MB':>9}"
          f"{'sym/hand':>9}{'digits sym':>11}{'torch min/med':>14}")
    for r in rows:
        sym = fmt(r.get("symgpt_s"), "10.3f", f"{r['symgpt']:>10}")
        tdig = (f"{r['digits_torch']:>7.1f}/{r['digits_torch_median']:<5.1f}" if "digits_torch" in r else "—")
        print(f"{r['size']:<16}{r['ops']:>10,}{r['params']:>8,}{r['hand_s']:>9.3f}{1e3 * r['torch_s']:>10.2f}"
              f"{sym:>10}{fmt(r.get('peak_mb'), '9.0f'):>9}{fmt(r.get('ratio'), '9.1f'):>9}"
              f"{fmt(r.get('digits_sym'), '11.1f'):>11}{tdig:>14}")
    done = [r for r in rows if r.get("symgpt_s")]
    n_all = a.n_ladder
    complete = len(done) == n_all
    big = [r for r in done if r["ops"] >= FIT_OPS]
    s_sym = slope([r["ops"] for r in big], [r["symgpt_s"] for r in big])
    s_all = slope([r["ops"] for r in done], [r["symgpt_s"] for r in done])
    s_hand = slope([r["ops"] for r in rows if r["ops"] >= FIT_OPS], [r["hand_s"] for r in rows if r["ops"] >= FIT_OPS])
    ratios_ok = bool(done) and all(r["ratio"] <= 2 for r in done) and complete
    print(f"\n[{verdict(ratios_ok)}] symgpt / hand mpmath ≤ 2 at every size from the seed to d = 32, T = 16, "
          f"L = 2: {len(done)} of {n_all} sizes finished, worst ratio "
          f"{fmt(max((r['ratio'] for r in done), default=None), '.1f')}")
    fit = None if s_sym is None or len(big) < 2 else (s_sym <= 1.05 and complete)
    print(f"[{verdict(fit)}] log-log slope of symgpt time against ops ≤ 1.05 (sizes with ≥ {FIT_OPS:,} ops, where "
          f"fixed costs no longer hide it): {fmt(s_sym, '.2f')} over {len(big)} sizes"
          + ("" if complete else " (not every size finished: FAIL)")
          + f"; over every finished size {fmt(s_all, '.2f')}; hand mpmath {fmt(s_hand, '.2f')}")
    agree = [r["digits_sym"] for r in done]
    print(f"[{verdict(bool(agree) and min(agree) >= DIGITS - 1)}] symgpt agrees with hand mpmath (at {REF_DPS} "
          f"digits) to ≥ {DIGITS - 1} digits on every gradient: fewest {fmt(min(agree, default=None), '.1f')}")
    if done:
        print(f"       torch float64 against symgpt: fewest correct digits "
              f"{min(r['digits_torch'] for r in done):.1f}, entries with no correct digit "
              f"{sum(r['torch_no_digit'] for r in done)}")
    return {"slope_symgpt": s_sym, "slope_symgpt_all": s_all, "slope_hand": s_hand}


def ladder(a, out):
    sizes = ladder_paths()
    if a.max_size:
        sizes = sizes[:a.max_size]
    a.n_ladder = len(ladder_paths()) if not a.max_size else len(sizes)
    rows = []
    print(f"ladder: hand mpmath and torch medians of {a.repeat}, symgpt end to end in fresh subprocesses "
          f"(timeout {a.timeout or 120:.0f} s each; imports and the once-per-process derivation of the "
          f"adjoint rules by SymPy, symgpt.ops.all_rules, excluded and shown apart)", flush=True)
    for label, path in sizes:
        r = measure_size(label, path, a)
        rows.append(r)
        print(f"  {label}: hand {r['hand_s']:.3f} s, torch {1e3 * r['torch_s']:.2f} ms, symgpt "
              f"{fmt(r.get('symgpt_s'), '.3f', r['symgpt'])} s (first in its process "
              f"{fmt(r.get('first_s'), '.3f')} s; rules, once per process: {fmt(r.get('rules_s'), '.2f')} s)",
              flush=True)
        if r["symgpt"] != "ok":
            print(f"  (symgpt {r['symgpt']} at {label}: the larger sizes are not run)")
            break
    print()
    out["ladder"] = rows
    out.update(print_ladder(rows, a))
    return rows


# ---------------------------------------------------------------- the other measurements

def nanogpt(a, out):
    path = SPECS / "nanogpt.toml"
    res = {}
    for digits, limit, target in ((50, a.timeout or 120, 60), (1000, a.timeout or 900, 600)):
        r = run_child({"kind": "e2e", "spec": str(path), "digits": digits, "max_mem_gb": a.max_mem,
                       **({"max_ops": RAISED_OPS} if digits > DIGITS else {})}, limit)
        res[digits] = r
        t = r.get("total_s")
        built = next((x for x in r["records"] if x.get("phase") == "built"), None)
        mem_ok = None if r.get("peak_mb") is None else r["peak_mb"] < 2048
        ok = r["status"] == "ok" and t < target and (digits != 50 or mem_ok)
        what = f"{t:.1f} s" if r["status"] == "ok" else f"{r['status']} after {limit:.0f} s"
        print(f"[{verdict(ok)}] nanoGPT shape (186,688 parameters), loss and every gradient at {digits} digits: "
              f"{what}, peak {fmt(r.get('peak_mb'), '.0f')} MB (target < {target} s"
              + (", < 2048 MB)" if digits == 50 else ")")
              + (f"; load + graph {built['build_s']:.1f} s" if built else "; the graph was not built"), flush=True)
        if r["status"] == "error":
            print("       " + r["stderr"].strip().splitlines()[-1] if r["stderr"].strip() else "")
        if r["status"] != "ok":
            break  # 1000 digits cannot finish where 50 did not
    out["nanogpt"] = {k: {x: v for x, v in r.items() if x not in ("records", "grads")} for k, r in res.items()}
    if a.nanogpt_hand:
        import hand_mpmath
        spec = hand_mpmath.read(str(path))  # parsed beforehand, as on the ladder
        t = time.perf_counter()
        hand_mpmath.grads(spec, DIGITS)
        t = time.perf_counter() - t
        r50 = res[50].get("total_s")
        print(f"       hand mpmath, forward + reverse at {DIGITS} digits: {t:.1f} s"
              + (f" (symgpt / hand = {r50 / t:.1f}; target ≤ 2)" if r50 else ""))
        out["nanogpt"]["hand_s"] = t


def ln_eps0(a, out):
    import hand_mpmath
    from mpmath import mp
    path = SPECS / "tiny-transformer-ln-eps0.toml"
    _, ref = hand_mpmath.grads(str(path), REF_DPS)
    expected = sorted(k for k, v in ref.items() if abs(v) < mp.mpf(10) ** -40)
    limit = a.timeout or 60
    r = run_child({"kind": "ln_eps0", "spec": str(path), "digits": DIGITS, "max_mem_gb": a.max_mem}, limit)
    grads = [x for x in r["records"] if x.get("phase") == "grad"]
    zeros = sorted(x["name"] for x in grads if x["result"] == "zero")
    undecided = [x["name"] for x in grads if x["result"] == "undecidable"]
    t = r.get("total_s")
    ok = r["status"] == "ok" and zeros == expected and not undecided and t < 1
    what = f"{t:.2f} s" if r["status"] == "ok" else f"{r['status']} after {limit:.0f} s"
    print(f"[{verdict(ok)}] seed with ln_eps = 0: every gradient at {DIGITS} digits in {what} (target well under 1 s);"
          f" certified \"0\": {len(zeros)} of the {len(expected)} exactly-zero ones (hand mpmath below 1e-40),"
          f" undecidable {len(undecided)}, answered {len(grads)} of {len(ref)}")
    wrong = sorted(set(zeros) - set(expected))
    if wrong:
        print(f"       certified 0 but not 0 by hand mpmath: {', '.join(wrong[:10])}")
    out["ln_eps0"] = {"status": r["status"], "total_s": t, "answered": len(grads), "zeros": len(zeros),
                      "expected_zeros": len(expected), "undecidable": len(undecided)}


def train(a, out):
    import generate
    import hand_mpmath
    import torch

    import torch_oracle
    path = generate.write(generate.NANOGPT_TRAIN, Path(tempfile.mkdtemp(prefix="bench-scale-")))
    spec = hand_mpmath.read(str(path))
    steps = int(spec["training"]["steps"])
    tr = spec["training"]
    aw = tr["adamw"]
    torch.set_num_threads(1)
    total, res = 0.0, {}
    for opt in ("sgd", "adamw"):
        t = time.perf_counter()
        if opt == "sgd":
            rec = torch_oracle.torch_train(spec, "transformer", "sgd", steps + 1, float(tr["lr"]))
        else:
            rec = torch_oracle.torch_train(spec, "transformer", "adamw", steps + 1, float(aw["lr"]),
                                           betas=(float(aw["beta1"]), float(aw["beta2"])), eps=float(aw["eps"]),
                                           weight_decay=float(aw["weight_decay"]))
        t_torch = time.perf_counter() - t
        torch_loss = rec[steps + 1]["loss"]  # the loss at the state after `steps` updates
        limit = a.timeout or 900
        r = run_child({"kind": "train", "spec": str(path), "optimizer": opt, "digits": 30, "max_ops": 10 ** 9,
                       "max_mem_gb": a.max_mem, "threads": TRAIN_THREADS}, limit)
        res[opt] = {"status": r["status"], "total_s": r.get("total_s"), "loss": r.get("loss"),
                    "torch_loss": torch_loss, "torch_s": t_torch, "peak_mb": r.get("peak_mb")}
        if r["status"] == "ok":
            total += r["total_s"]
            dig = correct_digits(repr(torch_loss), r["loss"], 17)
            print(f"       {opt}[{steps}].loss = {r['loss']} in {r['total_s']:.1f} s, peak {r['peak_mb']:.0f} MB "
                  f"(torch float64 {torch_loss!r}: {dig:.1f} correct digits; its trace {t_torch:.1f} s)", flush=True)
        else:
            total = math.inf
            print(f"       {opt}[{steps}].loss: {r['status']} after {limit:.0f} s (torch float64 {torch_loss!r} "
                  f"in {t_torch:.1f} s, a snapshot of every parameter per step included)", flush=True)
    ok = total < 600
    print(f"[{verdict(ok)}] {steps} SGD and {steps} AdamW steps of the nanoGPT shape, certified final losses: "
          f"{'did not finish' if math.isinf(total) else f'{total:.1f} s'} (target < 600 s; matrix products on "
          f"{TRAIN_THREADS} thread{'s' if TRAIN_THREADS > 1 else ''})")
    out["train"] = res


def largest(a, out, ladder_rows):
    import generate
    limit = 60
    done = {r["size"]: r for r in ladder_rows or []}
    best, tmp = None, tempfile.mkdtemp(prefix="bench-scale-")
    sizes = ladder_paths() + [(s.name.removeprefix("beyond-"), generate.write(s, Path(tmp))) for s in generate.BEYOND]
    for label, path in sizes:
        prior = done.get(label)
        if prior is not None and prior.get("symgpt_s") is not None:
            t, status = prior["symgpt_s"], "ok"
        else:
            # --max-ops raised: the question here is time, not the default budget
            r = run_child({"kind": "e2e", "spec": str(path), "digits": DIGITS, "max_mem_gb": a.max_mem,
                           "max_ops": RAISED_OPS}, limit)
            t, status = r.get("total_s"), r["status"]
        if status != "ok" or t >= limit:
            why = f"{t:.1f} s" if status == "ok" else f"{status}: {r.get('stderr', '').strip().splitlines()[-1:] or ''}"
            print(f"       {label}: {why} — past 60 s or refused", flush=True)
            break
        import hand_mpmath
        best = (label, t, hand_mpmath.param_count(str(path)), hand_mpmath.forward_macs(str(path)))
        print(f"       {label}: {t:.1f} s", flush=True)
    if best:
        print(f"largest ladder-like model within 60 s end to end at {DIGITS} digits: {best[0]} "
              f"({best[2]:,} parameters, {best[3]:,} forward multiply-adds) in {best[1]:.1f} s")
    out["largest"] = best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-size", type=int, default=0, help="stop the ladder after this many sizes (seed = 1)")
    ap.add_argument("--repeat", type=int, default=3, help="repeats per measurement (median; default 3)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per symgpt item (default: 120 per ladder size and for nanoGPT at 50 digits, "
                         "900 at 1000 digits and per training trace, 60 for --ln-eps0)")
    ap.add_argument("--max-mem", type=float, default=8.0, help="GB of address space per symgpt child (default 8)")
    ap.add_argument("--no-ladder", action="store_true", help="skip the ladder table")
    ap.add_argument("--nanogpt", action="store_true", help="the nanoGPT shape at 50 and 1000 digits")
    ap.add_argument("--nanogpt-hand", action="store_true",
                    help="with --nanogpt: also time hand mpmath on the nanoGPT shape (about a minute)")
    ap.add_argument("--ln-eps0", action="store_true", help="the seed with ln_eps = 0: exact zeros")
    ap.add_argument("--train", action="store_true", help="20 SGD and 20 AdamW steps of the nanoGPT shape")
    ap.add_argument("--largest", action="store_true", help="the largest ladder-like model within 60 s")
    ap.add_argument("--json", type=Path, help="also write every measurement to this JSON file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return child(json.loads(a.child))
    print(f"bench_scale: {time.strftime('%Y-%m-%d %H:%M:%S')}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, {DIGITS} digits\n", flush=True)
    out, rows = {}, None
    if not a.no_ladder:
        rows = ladder(a, out)
        print()
    if a.ln_eps0:
        ln_eps0(a, out)
    if a.nanogpt:
        nanogpt(a, out)
    if a.train:
        train(a, out)
    if a.largest:
        largest(a, out, rows)
    if a.json:
        a.json.write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
