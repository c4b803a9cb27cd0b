"""The specs of the scale benchmark (benchmarks/bench_scale.py), written from a fixed seed.

    python benchmarks/specs/generate.py [--check]

Writes, next to this file: the size ladder from the seed up to d = 32, T = 16,
L = 2 (``ladder-…``), the character-level nanoGPT shape (``nanogpt.toml``: d = 64,
T = 64, 4 layers, 4 heads, V = 65 — nanoGPT's Shakespeare characters, the newline
shown as ¶ — d_ff = 256, 186,688 parameters) and the seed with ln_eps = 0
(``tiny-transformer-ln-eps0.toml``).  ``--check`` writes nothing and fails when a
committed file differs from what the generator writes.  The nanoGPT shape's variant
with [training] steps = 20 for the SGD and AdamW traces (``NANOGPT_TRAIN``, the same
weights: another megabyte) is written on demand by ``bench_scale.py --train``, as the
sizes past the ladder (``BEYOND``) are by ``--largest``.

Weights are uniform on a grid k/100, |k| ≤ 100·a with a = 0.8/√d rounded to two
decimals (0.1 at d = 64: softmaxes far from saturation), written as short decimal
texts from the integer k (``-0.07``, ``0.1``, ``0``) — never through float formatting.
There is no W_O (nanoGPT's c_proj, 16,384 parameters more): the heads are concatenated,
as symgpt's attention does without W_O.

>>> decimal(-7), decimal(10), decimal(0), decimal(125, 3)
('-0.07', '0.1', '0', '0.125')
>>> from fractions import Fraction
>>> all(Fraction(decimal(k)) == Fraction(k, 100) for k in range(-300, 301))
True
"""
from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = HERE.parent.parent / "derivations" / "tiny-transformer.toml"

# nanoGPT's shakespeare_char vocabulary (65 characters), the newline written ¶
SHAKESPEARE = "¶ !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
TEXT = "First Citizen:¶Before we proceed any further, hear me speak.¶¶All:¶Speak, speak."


def decimal(k: int, places: int = 2) -> str:
    """The exact decimal text of k / 10^places, trailing zeros dropped."""
    sign, k = ("-" if k < 0 else ""), abs(k)
    whole, frac = divmod(k, 10 ** places)
    frac = str(frac).rjust(places, "0").rstrip("0")
    return "0" if k == 0 else f"{sign}{whole}" + (f".{frac}" if frac else "")


@dataclass(frozen=True)
class Size:
    """One transformer of the benchmark: its sizes, and what the file is called."""
    name: str
    d: int
    T: int
    layers: int
    heads: int = 1
    V: int = 16
    d_ff: int | None = None      # default 4d, nanoGPT's proportion
    steps: int = 1
    vocab: str | None = None     # one character per token (the nanoGPT shape)

    @property
    def ff(self) -> int:
        return self.d_ff or 4 * self.d

    @property
    def params(self) -> int:
        """Every parameter symgpt differentiates (LayerNorm γ, β included)."""
        d = self.d
        return self.V * d + self.layers * (3 * d * d + 2 * d * self.ff + self.ff + d + 4 * d)


LADDER = [
    Size("ladder-d4-T4-L1", d=4, T=4, layers=1),
    Size("ladder-d8-T8-L2-h2", d=8, T=8, layers=2, heads=2),
    Size("ladder-d16-T8-L2-h2", d=16, T=8, layers=2, heads=2, V=32),
    Size("ladder-d16-T16-L2-h2", d=16, T=16, layers=2, heads=2, V=32),
    Size("ladder-d32-T8-L2-h2", d=32, T=8, layers=2, heads=2, V=32),
    Size("ladder-d32-T16-L2-h2", d=32, T=16, layers=2, heads=2, V=32),
]
"""The size ladder after the seed (derivations/tiny-transformer.toml), smallest first."""

NANOGPT = Size("nanogpt", d=64, T=64, layers=4, heads=4, V=65, d_ff=256, vocab=SHAKESPEARE)
NANOGPT_TRAIN = Size("nanogpt-train", d=64, T=64, layers=4, heads=4, V=65, d_ff=256, steps=20, vocab=SHAKESPEARE)

BEYOND = [
    Size("beyond-d32-T32-L2-h2", d=32, T=32, layers=2, heads=2, V=65),
    Size("beyond-d48-T32-L3-h3", d=48, T=32, layers=3, heads=3, V=65),
    Size("beyond-d64-T32-L4-h4", d=64, T=32, layers=4, heads=4, V=65),
    NANOGPT,
    Size("beyond-d96-T64-L4-h4", d=96, T=64, layers=4, heads=4, V=65),
    Size("beyond-d128-T64-L4-h4", d=128, T=64, layers=4, heads=4, V=65),
    Size("beyond-d128-T128-L6-h4", d=128, T=128, layers=6, heads=4, V=65),
]
"""Ladder-like sizes past the ladder, for ``bench_scale.py --largest`` (written on demand, not committed)."""


def spec_text(s: Size, seed: int = 12) -> str:
    """The TOML text of the spec of size ``s`` (the same text for the same size and seed).

    >>> import tomllib
    >>> t = tomllib.loads(spec_text(LADDER[0]))
    >>> t["model"]["d"], len(t["layer"]), len(t["data"]["input"])
    (4, 1, 4)
    >>> spec_text(LADDER[0]).splitlines()[21]
    '[0.07,-0.12,-0.23,-0.12],'
    """
    rng = random.Random(f"bench-scale-{seed}-{s.name}")
    amp = round(80 / math.sqrt(s.d))                         # a = 0.8/√d, in hundredths

    def vec(n):
        return "[" + ",".join(decimal(rng.randint(-amp, amp)) for _ in range(n)) + "]"    # "," alone: 1 MiB

    def mat(a, b):
        return "[\n" + ",\n".join(vec(b) for _ in range(a)) + ",\n]"

    if s.vocab:
        vocab, chars = list(s.vocab), list(TEXT)
        inp, target = chars[:s.T], chars[s.T]
        assert len(vocab) == s.V and set(chars[:s.T + 1]) <= set(vocab)
    else:
        vocab = [f"t{i}" for i in range(s.V)]
        inp, target = [rng.choice(vocab) for _ in range(s.T)], rng.choice(vocab)
    q = lambda x: json.dumps(x, ensure_ascii=False)          # a TOML basic string / array of them
    lines = [f"# {s.name}: generated by benchmarks/specs/generate.py — do not edit by hand.",
             f"# {s.params:,} parameters; weights uniform on k/100, |k| <= {amp}.",
             f"title = {q(s.name)}", "", "[model]", 'kind = "transformer"', f"vocab = {q(vocab)}",
             f"d = {s.d}", f"heads = {s.heads}", f"d_ff = {s.ff}", f"layers = {s.layers}", "tied = true",
             "pe_base = 10000", "ln_eps = 1e-5", "", "[data]", f"input = {q(inp)}", f"target = {q(target)}",
             "", "[weights]", f"E = {mat(s.V, s.d)}"]
    for _ in range(s.layers):
        lines += ["", "[[layer]]", f"W_Q = {mat(s.d, s.d)}", f"W_K = {mat(s.d, s.d)}", f"W_V = {mat(s.d, s.d)}",
                  f"W_1 = {mat(s.d, s.ff)}", f"b_1 = {vec(s.ff)}", f"W_2 = {mat(s.ff, s.d)}", f"b_2 = {vec(s.d)}"]
    lines += ["", "[sampling]", "continue = 0", "", "[training]", "lr = 0.1", f"steps = {s.steps}"]
    if s.steps > 1:
        lines += [f"report = {[k for k in (1, 2, 5, 10, 20) if k <= s.steps]}", "",
                  "[training.adamw]", "lr = 1e-3", "beta1 = 0.9", "beta2 = 0.999", "eps = 1e-8",
                  "weight_decay = 0.1"]
    return "\n".join(lines) + "\n"


def ln_eps0_text() -> str:
    """The seed with ln_eps = 0: with d = 2 LayerNorm is then locally constant.

    >>> "ln_eps = 0\\n" in ln_eps0_text()
    True
    """
    text = SEED.read_text(encoding="utf-8")
    assert text.count("ln_eps = 1e-5") == 1
    return ("# The seed (derivations/tiny-transformer.toml) with ln_eps = 0: generated by "
            "benchmarks/specs/generate.py.\n" + text.replace("ln_eps = 1e-5", "ln_eps = 0"))


def write(size: Size, folder: Path) -> Path:
    """Write the spec of ``size`` into ``folder``; its path."""
    path = folder / f"{size.name}.toml"
    path.write_text(spec_text(size), encoding="utf-8")
    return path


def committed() -> dict[str, str]:
    """File name → text of every spec this folder holds."""
    out = {f"{s.name}.toml": spec_text(s) for s in [*LADDER, NANOGPT]}
    out["tiny-transformer-ln-eps0.toml"] = ln_eps0_text()
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stale = []
    for name, text in committed().items():
        path = HERE / name
        assert len(text.encode()) < 1 << 24, f"{name}: {len(text.encode()):,} bytes, past symgpt's 16 MiB file limit"
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{path.relative_to(HERE.parent.parent)}: {len(text.encode()):,} bytes")
    if stale:
        print("stale (run python benchmarks/specs/generate.py):", ", ".join(stale))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
