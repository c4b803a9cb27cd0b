"""Wall time of rendering both seeds, against the engine's evaluation alone.

    python benchmarks/bench_render.py [--repeat N] [--no-pdf]

Measured in one run, each a best of N from fresh derivations:

- engine: load both seeds and evaluate every node of their graphs (forward and
  gradients) to certified decimals at the documents' precision, plus the
  training trace states the documents print;
- render md+tex: ``render_all`` of both seeds, Markdown and LaTeX, Chinese and
  English (document data, templates, SVG), in memory;
- render md+tex+claims: the same with the documents' own claims files;
- render pdf: the same with PDF (latexmk -xelatex), when TeX is installed;
- matrix: the specs of tests/test_pdf_fit.py (d up to 8, 2 layers, 2 heads,
  V up to 12, long tokens), rendered to LaTeX and PDF in their languages.

The first render in a process also compiles the templates (about 0.2 s);
the best of N does not.  The aim is under 2 s for Markdown and LaTeX together.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tests"))

from symgpt.derivation import load  # noqa: E402
from symgpt.render import LANGS, render_all, render_spec  # noqa: E402

import specs  # noqa: E402
from test_pdf_fit import MATRIX  # noqa: E402

SEEDS = [ROOT / "derivations" / "tiny-transformer.toml", ROOT / "derivations" / "bigram.toml"]
DIGITS = {"tiny-transformer": 3, "bigram": 4}


def engine_only():
    """Every graph node of both seeds to certified decimals, and the printed trace states."""
    for name, k in DIGITS.items():
        d = load(name)
        for node in d.graph.order:
            d.value(node, decimals=k)
        tr = d.spec.training
        for step in range(min(tr.steps, 20)):
            d.value(f"sgd[{step}].loss", decimals=k)


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pdf", action="store_true")
    a = ap.parse_args(argv)
    engine = best_of(engine_only, a.repeat)
    md_tex = best_of(lambda: render_all(SEEDS, formats=("md", "tex"), langs=LANGS), a.repeat)
    claims = best_of(lambda: render_all(SEEDS, formats=("md", "tex", "claims"), langs=LANGS), a.repeat)
    print(f"engine evaluation alone (both seeds):        {engine:6.2f} s")
    print(f"render md + tex, zh + en (both seeds):       {md_tex:6.2f} s   "
          f"ratio to engine {md_tex / engine:5.1f}x   {'under' if md_tex < 2 else 'OVER'} the 2 s aim")
    print(f"render md + tex + claims, zh + en:           {claims:6.2f} s")
    if not a.no_pdf and shutil.which("latexmk") and shutil.which("xelatex"):
        pdf = best_of(lambda: render_all(SEEDS, formats=("md", "tex", "pdf"), langs=LANGS), 1)
        print(f"render md + tex + pdf, zh + en (both seeds): {pdf:6.2f} s   ratio to engine {pdf / engine:5.1f}x")
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, (sizes, langs) in MATRIX.items():
                path = Path(tmp) / f"{name}.toml"
                path.write_text(specs.spec_toml(**sizes), encoding="utf-8")
                paths.append((path, langs))
            matrix = best_of(lambda: [render_spec(p, formats=("tex", "pdf"), langs=langs) for p, langs in paths], 1)
        print(f"render tex + pdf, test matrix ({sum(len(l) for _, l in paths)} documents): {matrix:6.2f} s   "
              f"ratio to engine {matrix / engine:5.1f}x")


if __name__ == "__main__":
    main()
