"""The explorable page in a real browser: Debian's chromium, headless, driven by puppeteer-core
(tests/node/browser.mjs) as a reader would use it, from a file:// URL.

For each seed and language: no console message of any kind, no page error, no request but the
page itself and its inline data: fonts; hovering a figure opens its card with the 30-digit value
(checked against the pure-mpmath oracle) and links; following a link jumps to, focuses and
highlights that figure; a slider shows another certified table (its new figure checked against
mpmath); the keyboard opens (Tab) and closes (Escape) a card; a screenshot is taken.

With CI=true, a missing chromium, node or npm package fails instead of skipping.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import mpmath
import pytest

from symgpt.render import render_all

from conftest import ref_round_decimals

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "tests" / "node"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
READY = bool(CHROMIUM and shutil.which("node") and (NODE_DIR / "node_modules" / "puppeteer-core").is_dir())

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not READY and not os.environ.get("CI"),
                                 reason="needs chromium (apt-get install chromium), node, npm ci --prefix tests/node")]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("pages")
    files = render_all([ROOT / "derivations/tiny-transformer.toml", ROOT / "derivations/bigram.toml"],
                       formats=("html",), langs=("zh", "en"))
    for rel, text in files.items():
        (out / rel).write_text(text, encoding="utf-8")
    return out


def drive(page: Path, plan: dict, tmp_path: Path) -> dict:
    assert READY, "chromium, node and tests/node/node_modules/puppeteer-core are needed (see .ci/run)"
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    r = subprocess.run(["node", str(NODE_DIR / "browser.mjs"), str(page), str(plan_file)], capture_output=True,
                       text=True, timeout=180, env={**os.environ, "CHROMIUM": CHROMIUM})
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout)
    assert not report["errors"], report["errors"]
    assert not report["console"], report["console"]  # not even a warning (a CSP violation would be one)
    assert all(u.startswith(("file:", "data:")) for u in report["requests"]), report["requests"]
    assert sum(u.startswith("file:") for u in report["requests"]) == 1
    return report


def _softmax_T(logits, T, v):
    with mpmath.workdps(60):
        e = [mpmath.exp(z / T) for z in logits]
        return e[v] / sum(e)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seed_page_in_chromium(pages, lang, tmp_path, seed_oracle):
    shot = tmp_path / f"seed.{lang}.png"
    report = drive(pages / f"tiny-transformer.{lang}.html", {
        "hover": "A[1,0]", "follow": "S[1,0]", "tabs": 6, "screenshot": str(shot),
        "slider": {"id": "slider-temperature", "index": 1, "ref": "softmax_T(0.5, 4)"}}, tmp_path)
    assert report["live"] > 700
    # the card of A[1,0]: the 30-digit value (the oracle's, rounded) and links to S[1,0] and on to Attn
    h = report["hover"]
    assert not h["hidden"] and h["key"] == "A[1,0]" and h["element"]["text"] == "0.454"
    A10 = seed_oracle["blocks"][0]["A"][1][0]
    with mpmath.workdps(60):
        want = mpmath.nstr(A10, 30, strip_zeros=False)
    assert h["exact"] == want == h["element"]["exact"]
    assert {"S[1,0]", "A_den[1]", "Attn[1,0]"} <= set(h["links"])
    # following S[1,0] lands on a printed S[1,0], focused and highlighted, its own card open
    f = report["follow"]
    assert f["key"] == "S[1,0]" and f["highlighted"] and f["popup"]["key"] == "S[1,0]"
    # the card says the source printed it wrong (0.777, carried) and what it should read
    assert "0.777" in f["popup"]["text"] and "0.778" in f["popup"]["text"]
    # temperature 0.5 (the slider's second stop): p(你) at T = 1/2, the oracle's softmax(z/T), 4 decimals
    s = report["slider"]
    assert s["output"] == "0.5"
    new = [x for x in s["after"] if x not in s["before"]]
    assert len(new) == 1
    assert new[0]["text"] == ref_round_decimals(_softmax_T(seed_oracle["logits"], mpmath.mpf(1) / 2, 4), 4)
    # keyboard: Tab reaches a live figure and opens its card; Escape closes it
    k = report["keyboard"]
    assert k["active"].split()[0] == "n" and not k["popup"]["hidden"] and k["popup"]["key"] == k["key"]
    assert k["closed"]
    assert shot.stat().st_size > 20_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bigram_page_in_chromium(pages, lang, tmp_path, bigram_oracle):
    report = drive(pages / f"bigram.{lang}.html", {
        "hover": "grad_z[2]", "follow": "p[2]", "tabs": 4,
        "slider": {"id": "slider-sgd", "index": 20, "ref": "sgd[20].loss"}}, tmp_path)
    h = report["hover"]
    # the backward pass is as explorable as the forward: grad_z[鱼] = p[鱼] − 1, linked to p[鱼]
    with mpmath.workdps(60):
        assert h["exact"] == mpmath.nstr(bigram_oracle["p"][2] - 1, 30, strip_zeros=False)
    assert "p[2]" in h["links"] and report["follow"]["key"] == "p[2]" and report["follow"]["highlighted"]
    # the training stepper's last SGD state shows its certified loss: 20 steps redone here in mpmath
    s = report["slider"]
    assert s["output"] == "k = 20" and len(s["after"]) == 1
    with mpmath.workdps(60):
        want = mpmath.nstr(_sgd_loss(ROOT / "derivations/bigram.toml", 20), 30, strip_zeros=False)
    assert s["after"][0]["exact"] == want


def _sgd_loss(path, steps):
    """The bigram's loss after ``steps`` SGD updates of all 12 parameters, in mpmath (oracle's gradients)."""
    import copy

    import oracle
    spec = oracle.load_spec(path)
    lr = mpmath.mpf(spec["training"]["lr"].numerator) / spec["training"]["lr"].denominator
    for _ in range(steps):
        g = oracle.bigram_grads(spec, dps=60)
        spec = copy.deepcopy(spec)
        for name, grad in (("E", g["grad_E"]), ("W", g["grad_W"])):
            spec["weights"][name] = [[oracle.num(w) - lr * gw for w, gw in zip(row, grow)]
                                     for row, grow in zip(spec["weights"][name], grad)]
    return oracle.bigram_forward(spec, dps=60)["loss"]
