"""The explorable pages: how big they are and how fast a browser opens them, against a baseline.

For each seed page (derivations/rendered/NAME.LANG.html, rendered afresh here):
- its size in bytes (target: under 2 MB with fonts), and what makes it up;
- the time Debian's chromium, headless, takes to load it from a file:// URL (navigation start to the
  load event; median of several reloads in one browser), against a *baseline measured in the same run*:
  the same document's Markdown in a bare HTML page (<pre>), the cheapest page of the same words;
- the time to render it (python -m symgpt.render --format html), against rendering the Markdown.

Run: python benchmarks/bench_html.py [--reloads N]   (needs node, chromium and npm ci --prefix tests/node)
The machine is shared and noisy: compare ratios, not milliseconds, between machines.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from symgpt.render import render_all  # noqa: E402

SPECS = ("tiny-transformer", "bigram")


def load_times(page: Path, reloads: int) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.json"
        plan.write_text(json.dumps({"reloads": reloads, "only_load": True}))
        r = subprocess.run(["node", str(ROOT / "tests/node/browser.mjs"), str(page), str(plan)],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise SystemExit(r.stderr[-2000:])
        report = json.loads(r.stdout)
        if report["errors"] or report["console"]:
            raise SystemExit(f"{page}: {report['errors']} {report['console']}")
        return report["reloads"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reloads", type=int, default=7)
    a = ap.parse_args(argv)
    out = Path(tempfile.mkdtemp(prefix="bench-html-"))
    rows, ok = [], True
    for name in SPECS:
        spec = ROOT / "derivations" / f"{name}.toml"
        t0 = time.perf_counter()
        md = render_all([spec], formats=("md",), langs=("en",))
        t_md = time.perf_counter() - t0
        t0 = time.perf_counter()
        pages = render_all([spec], formats=("html",), langs=("en",))
        t_html = time.perf_counter() - t0
        for rel, text in pages.items():
            (out / rel).write_text(text, encoding="utf-8")
        page = out / f"{name}.en.html"
        base = out / f"{name}.baseline.html"
        base.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>baseline</title></head><body><pre>"
                        + html.escape(md[Path(f"{name}.en.md")]) + "</pre></body></html>", encoding="utf-8")
        size = page.stat().st_size
        text = page.read_text(encoding="utf-8")
        fonts = sum(len(m) for m in re.findall(r"data:font/woff2;base64,[A-Za-z0-9+/=]+", text))
        cards = len(re.search(r'id="cards-gz">([^<]*)<', text)[1])
        ours = statistics.median(load_times(page, a.reloads))
        baseline = statistics.median(load_times(base, a.reloads))
        rows.append((name, size, fonts, cards, ours, baseline, t_html, t_md))
        ok &= size < 2_000_000 and ours < 1000
    print(f"{'page':<22}{'bytes':>11}{'fonts':>9}{'cards':>9}{'open ms':>9}{'base ms':>9}{'ratio':>7}"
          f"{'render s':>10}{'md s':>7}{'ratio':>7}")
    for name, size, fonts, cards, ours, baseline, t_html, t_md in rows:
        print(f"{name + '.en.html':<22}{size:>11,}{fonts:>9,}{cards:>9,}{ours:>9.0f}{baseline:>9.0f}"
              f"{ours / baseline:>7.1f}{t_html:>10.2f}{t_md:>7.2f}{t_html / t_md:>7.1f}")
    print(f"\n[{'PASS' if ok else 'FAIL'}] every seed page under 2 MB (fonts and cards inline) and open "
          f"(load event, median of {a.reloads}) in under 1 s in headless chromium")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
