"""Real scale (issue 26): a nanoGPT checkpoint's certified loss and full gradient against torch float64, one run.

    python benchmarks/bench_checkpoints.py [--config cpu|shakespeare|all] [--digits 30] [--timeout S]

Each config is nanoGPT's (pre-norm blocks, exact GELU, learned positions, biases, a tied head) with weights from a
seeded init as nanoGPT draws them (normal(0, 0.02); the residual projections c_proj scaled by 1/√(2·n_layer); the
biases 0, the norms' γ 1 and β 0), imported through :func:`symgpt.engine.checkpoints.from_nanogpt` into a spec and
its safetensors weights file, with T = block_size input tokens:

- ``cpu``: the nanoGPT README's CPU config (n_layer 4, n_head 4, n_embd 128, block_size 64, vocab 65), target < 60 s;
- ``shakespeare``: nanoGPT's Shakespeare character config (n_layer 6, n_head 6, n_embd 384, block_size 256,
  vocab 65, about 10.7 M parameters), target < 10 min and < 8 GB.

symgpt runs in a subprocess (killed past ``--timeout``): ``load_spec``, ``Derivation``, ``value("loss", digits)`` and
``gradient(digits)``, its peak memory the child's ``ru_maxrss``; torch float64's forward and backward of the same
model (tests/torch_oracle.py) run in this process, and the ratio of the two is printed beside the agreement of the
loss and of a few gradient entries.
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

CONFIGS = {"cpu": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65),
           "shakespeare": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, vocab_size=65)}
TARGETS = {"cpu": (60, None), "shakespeare": (600, 8.0)}


def nanogpt_state(args: dict, seed: int = 1337) -> dict:
    """A nanoGPT GPT's state_dict as nanoGPT's _init_weights draws it (numpy, float32 as torch keeps it)."""
    rng = np.random.default_rng(seed)
    L, d, n, V = args["n_layer"], args["n_embd"], args["block_size"], args["vocab_size"]
    normal = lambda *shape, std=0.02: rng.normal(0.0, std, shape).astype(np.float32)
    proj = 0.02 / math.sqrt(2 * L)
    sd = {"transformer.wte.weight": normal(V, d), "transformer.wpe.weight": normal(n, d),
          "transformer.ln_f.weight": np.ones(d, np.float32), "transformer.ln_f.bias": np.zeros(d, np.float32)}
    for l in range(L):
        h = f"transformer.h.{l}."
        sd.update({h + "ln_1.weight": np.ones(d, np.float32), h + "ln_1.bias": np.zeros(d, np.float32),
                   h + "attn.c_attn.weight": normal(3 * d, d), h + "attn.c_attn.bias": np.zeros(3 * d, np.float32),
                   h + "attn.c_proj.weight": normal(d, d, std=proj), h + "attn.c_proj.bias": np.zeros(d, np.float32),
                   h + "ln_2.weight": np.ones(d, np.float32), h + "ln_2.bias": np.zeros(d, np.float32),
                   h + "mlp.c_fc.weight": normal(4 * d, d), h + "mlp.c_fc.bias": np.zeros(4 * d, np.float32),
                   h + "mlp.c_proj.weight": normal(d, 4 * d, std=proj), h + "mlp.c_proj.bias": np.zeros(d, np.float32)})
    sd["lm_head.weight"] = sd["transformer.wte.weight"]
    return {k: v.astype(np.float64) for k, v in sd.items()}


CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from symgpt.core.limits import Limits
from symgpt.derivation import Derivation
from symgpt.engine.spec import load_spec
t0 = time.perf_counter()
limits = Limits(max_ops=10**13)
spec = load_spec({spec!r}, limits)
d = Derivation(spec, limits=limits)
t1 = time.perf_counter()
loss = d.value("loss", digits={digits})
t2 = time.perf_counter()
g = d.gradient({digits})
t3 = time.perf_counter()
probe = {{k: g[k] for k in {probe!r}}}
print(json.dumps(dict(load=t1 - t0, loss_s=t2 - t1, grad_s=t3 - t2, loss=loss, probe=probe, n=len(g),
                      rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)))
"""


def run(name: str, digits: int, timeout: float) -> dict:
    from symgpt.engine.checkpoints import from_nanogpt
    args = CONFIGS[name] | {"bias": True}
    ck = from_nanogpt(nanogpt_state(args), args, source=f"nanoGPT {name} (seeded init)")
    rng = np.random.default_rng(7)
    ids = [int(i) for i in rng.integers(0, args["vocab_size"], args["block_size"])]
    folder = Path(tempfile.mkdtemp(prefix="symgpt-bench-"))
    spec = ck.write(folder / f"{name}.toml", ids, int(rng.integers(0, args["vocab_size"])))
    params = sum(a.size for a in ck.tensors.values())
    probe = ["E[3,5]", "l0.W_Q[1,2]" if args["n_layer"] > 1 else "W_Q[1,2]", "gamma_f[0]"]
    # torch float64 in this process, on the same spec
    import oracle
    import torch_oracle
    sd = oracle.loads_spec(spec.read_text(encoding="utf-8").replace('file = "', '# file = "'))
    layers = args["n_layer"]
    for key, a in ck.tensors.items():   # the weights file's tensors, as the oracle's spec dict holds them
        group, _, base = key.rpartition(".")
        if not group and layers == 1 and key not in ("E", "W_pe", "gamma_f", "beta_f", "W_out"):
            group = "l0"
        if group:
            sd.setdefault("layer", [{} for _ in range(layers)])[int(group[1:])][base] = a.tolist()
        else:
            sd["weights"][key] = a.tolist()
    t = time.perf_counter()
    loss_t, P = torch_oracle.transformer_torch(sd, learnable_ln=True)
    loss_t.backward()
    torch_s = time.perf_counter() - t
    child = CHILD.format(root=str(ROOT), spec=str(spec), digits=digits, probe=probe)
    t = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(config=name, params=params, torch_s=torch_s, symgpt="timeout", wall=timeout)
    wall = time.perf_counter() - t
    if r.returncode:
        return dict(config=name, params=params, torch_s=torch_s, symgpt="failed", err=r.stderr[-800:])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    want = {"E[3,5]": P["E"].grad[3, 5].item(), "gamma_f[0]": P["gamma_f"].grad[0].item()}
    agree = max(abs(float(out["probe"][k]) - w) / max(abs(w), 1e-300) for k, w in want.items())
    return dict(config=name, params=params, T=len(ids), torch_s=torch_s, wall=wall, **out,
                loss_rel=abs(float(out["loss"]) - loss_t.item()) / loss_t.item(), probe_rel=agree,
                ratio=(out["load"] + out["loss_s"] + out["grad_s"]) / torch_s)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="cpu", choices=(*CONFIGS, "all"))
    ap.add_argument("--digits", type=int, default=30)
    ap.add_argument("--timeout", type=float, default=1800)
    a = ap.parse_args(argv)
    for name in CONFIGS if a.config == "all" else [a.config]:
        r = run(name, a.digits, a.timeout)
        secs, gb = TARGETS[name]
        print(json.dumps(r, default=str))
        if isinstance(r.get("symgpt"), str):
            print(f"{name}: symgpt {r['symgpt']} ({r.get('wall', '')} s); torch float64 {r['torch_s']:.3f} s")
            continue
        total = r["load"] + r["loss_s"] + r["grad_s"]
        print(f"{name}: {r['params']:,} parameters, T = {r['T']}: symgpt load {r['load']:.1f} s + loss "
              f"{r['loss_s']:.1f} s + gradient {r['grad_s']:.1f} s = {total:.1f} s at {a.digits} digits, "
              f"{r['rss_gb']:.2f} GB "
              f"(target < {secs} s{f', < {gb} GB' if gb else ''}); torch float64 {r['torch_s']:.3f} s; "
              f"ratio {r['ratio']:.0f}×; loss agrees to {r['loss_rel']:.1e}, gradient probes to {r['probe_rel']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
