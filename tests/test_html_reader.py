"""The explorable page as a reader meets it, in a real browser (Debian's chromium, headless, through
puppeteer-core: tests/node/layout.mjs), at 1280×800 and 700×900, for the seed and for a 2-layer, 2-head,
d = 4 spec, both rendered by the command as a user renders them.

- a card opened on a figure at the viewport's bottom edge stays inside the viewport, above its figure;
- a card links only to quantities the page prints (the others it names as plain text);
- every block that cuts off what is wider than its box scrolls to its end and shows a cue (a shadow);
- no table or figure caption takes more than two lines at 1280×800;
- every worked line of a head names its layer and head (superscript (l, h), from 1), in the Markdown and the page;
  symgpt check still finds no wrong figure in that document; a card of a 0-based code name says which layer
  and head it is; the pipeline draws W_O only when there is one;
- top-k stops at every k; the source's arithmetic shows once; the hyper-parameters are live;
- the SGD slider's table: reader names, a group per tensor and layer, the change from the state before
  (each checked against the two states' own 30-digit values);
- the pages' sizes.
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import mpmath
import pytest

import oracle
from test_html_browser import CHROMIUM, NODE_DIR, READY

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not READY and not os.environ.get("CI"),
                                 reason="needs chromium (apt-get install chromium), node, npm ci --prefix tests/node")]

# 2 layers of 2 heads, d = 4 (tests/test_render_cases.py's deep spec): worked lines up to twice the column's width
TWO_LAYERS = dict(seed=3, V=5, d=4, heads=2, d_ff=4, layers=2, T=3)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("layout")
    spec = out / "two.toml"
    spec.write_text(oracle.random_spec_toml(**TWO_LAYERS), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symgpt", "render", str(ROOT / "derivations/tiny-transformer.toml"),
                        str(spec), "--format", "html,md", "--lang", "en", "--out", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    return {"seed": out / "tiny-transformer.en.html", "two": out / "two.en.html"}


def cards(page: Path) -> dict:
    """{key: card HTML} as the page's script unpacks them (zlib, base64)."""
    text = page.read_text(encoding="utf-8")
    packed = re.search(r'<script type="text/plain" id="cards-gz">(.*?)</script>', text, re.S)[1]
    html = zlib.decompress(base64.b64decode(packed)).decode("utf-8")
    return dict(re.findall(r'<div class="card" data-key="([^"]*)">(.*?)</div>\n', html, re.S))


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r'<span class="katex-html".*?</span>(?=\s*<)', "", html)))


@pytest.fixture(scope="module")
def layout(pages):
    assert READY, "chromium, node and tests/node/node_modules/puppeteer-core are needed (see .ci/run)"
    out = {}
    for name, page in pages.items():
        r = subprocess.run(["node", str(NODE_DIR / "layout.mjs"), str(page)], capture_output=True, text=True,
                           timeout=600, env={**os.environ, "CHROMIUM": CHROMIUM})
        assert r.returncode == 0, r.stderr[-2000:]
        report = json.loads(r.stdout)
        assert not report["errors"], report["errors"]
        out[name] = {(v["width"], v["height"]): v for v in report["views"]}
    return out


def inside(box, vw, vh) -> bool:
    return box["left"] >= 0 and box["top"] >= 0 and box["right"] <= vw and box["bottom"] <= vh


@pytest.mark.parametrize("name", ["seed", "two"])
@pytest.mark.parametrize("view", [(1280, 800), (700, 900)])
def test_a_card_at_the_bottom_edge_opens_above_its_figure_inside_the_viewport(layout, name, view):
    cards = layout[name][view]["cards"]
    assert len(cards) == 14 and sum(c["anchor"]["bottom"] >= c["vh"] - 30 for c in cards) >= 10
    for c in cards:
        assert c["open"], c
        assert inside(c["card"], c["vw"], c["vh"]), c
        a, card = c["anchor"], c["card"]
        assert card["bottom"] <= a["top"] + 0.5 or card["top"] >= a["bottom"] - 0.5, c  # never over its figure
        if a["bottom"] >= c["vh"] - 30:  # a figure at the bottom edge: its card above it
            assert card["bottom"] <= a["top"] + 0.5, c
        assert c["card"]["left"] <= max(a["left"], 8) + 0.5 or c["card"]["right"] >= c["vw"] - 8.5, c


@pytest.mark.parametrize("name", ["seed", "two"])
def test_a_card_links_only_to_quantities_the_page_prints(pages, layout, name):
    # a link to a quantity never printed would open a card beside nothing: the card names it as plain text
    assert all(layout[name][view]["unprinted"] is None for view in layout[name])
    text = pages[name].read_text(encoding="utf-8")
    packed = re.search(r'<script type="text/plain" id="panels-gz">(.*?)</script>', text, re.S)[1]
    shown = text + "".join(json.loads(zlib.decompress(base64.b64decode(packed)).decode("utf-8")))
    printed = set(re.findall(r'class="n[^"]*"[^>]*? data-key="([^"]*)"', shown))
    links = {k for html in cards(pages[name]).values() for k in re.findall(r'data-go="([^"]*)"', html)}
    assert len(links) > 50 and links <= printed, sorted(links - printed)[:5]
    assert any('class="nogo"' in html for html in cards(pages[name]).values())


def test_wide_worked_lines_scroll_to_their_end_and_show_it(layout):
    wide = layout["two"][(1280, 800)]["wide"]
    displays = [w for w in wide if "display" in w["cls"].split()]
    assert len(displays) >= 5 and max(w["scrollWidth"] for w in displays) > 1.5 * 864
    for w in wide:  # nothing is cut off: whatever does not fit scrolls, all the way, and says so
        assert w["overflowX"] in ("auto", "scroll") and w["reachesEnd"] and w["cue"], w


@pytest.mark.parametrize("name", ["seed", "two"])
def test_captions_take_at_most_two_lines(layout, name):
    caps = layout[name][(1280, 800)]["captions"]
    assert len(caps) > 10
    assert max(c["lines"] for c in caps) <= 2, [c for c in caps if c["lines"] > 2]


def test_every_worked_line_of_a_head_names_its_layer_and_head(pages):
    md = pages["two"].with_suffix("").with_suffix(".en.md").read_text(encoding="utf-8")
    t = TWO_LAYERS["T"] - 1  # the worked row
    # its softmax in each of the 4 (layer, head) pairs, each under its own name, counted from 1
    for lh in ("1,1", "1,2", "2,1", "2,2"):
        sup = r"\^\{\(" + lh + r"\)\}"
        assert re.search(rf"^A_\{{{t},0\}}{sup} &=", md, re.M), lh
        assert re.search(rf"^S_\{{{t},0\}}{sup} &=", md, re.M) and re.search(rf"^\\exp\(S_\{{{t},0\}}{sup}\)", md, re.M)
        assert re.search(rf"^q_\{{{t}\}}{sup} \\cdot k_\{{0\}}{sup} &=", md, re.M)
    assert not re.search(r"^(A|S)_\{\d,\d\} &=", md, re.M)  # no line of a head without its place
    assert re.search(rf"^q_\{{{t},0\}}\^\{{\(2\)\}} &=", md, re.M)  # a layer's own quantity: its layer
    assert "Attention weights of layer 2, head 1" in md and "a superscript $(l)$ is layer $l$" in md
    page = pages["two"].read_text(encoding="utf-8")
    assert f"A_{{{t},0}}^{{(2,2)}}" in page  # the page's formulas (their TeX annotation) say the same


def test_the_named_lines_check_clean(pages, tmp_path):
    # symgpt check reads our own 2-layer document with its (l, h) superscripts and finds no wrong figure
    # (before the superscripts: 0 wrong too, but 589 figures ambiguous between heads and layers; now 484)
    md = pages["two"].with_suffix("").with_suffix(".en.md")
    spec = pages["two"].parent / "two.toml"
    r = subprocess.run([sys.executable, "-m", "symgpt", "check", str(md), "--spec", str(spec), "--format", "json"],
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]  # 0: no wrong figure
    figures = json.loads(r.stdout)["figures"]
    assert [f for f in figures if f["verdict"] == "wrong"] == []
    assert sum(f["verdict"] == "matched" for f in figures) > 0.7 * len(figures) > 2000


def test_a_card_says_which_layer_and_head_a_code_name_is(pages):
    c = text_of(cards(pages["two"])["l1.A[1,1,0]"])
    assert "l1. is layer 2" in c and "1 is head 2" in c, c
    assert "l0. is layer 1" in text_of(cards(pages["two"])["l0.W_Q[0,0]"])
    assert not any("c-place" in h for h in cards(pages["seed"]).values())  # one layer, one head: nothing to say


def test_the_pipeline_draws_W_O_only_when_the_spec_has_one(pages):
    svg = re.search(r"<figure><svg.*?</svg>", pages["two"].read_text(encoding="utf-8"), re.S)[0]
    assert "[head₁, …, head₂]" in svg and "W_O" not in svg


def test_english_tokens_are_spaced(pages):
    md = pages["two"].with_suffix("").with_suffix(".en.md").read_text(encoding="utf-8")
    toks = re.search(r'input = \[(.*?)\]', oracle.random_spec_toml(**TWO_LAYERS))[1].replace('"', "").split(", ")
    assert "‘" + " ".join(toks) + "’" in md


def test_top_k_stops_at_every_k(layout):
    V = 6  # the seed's vocabulary: <pad> <bos> 我 爱 你 他
    assert layout["seed"][(1280, 800)]["topk"] == "|".join(str(k) for k in range(1, V + 1))
    assert layout["two"][(1280, 800)]["topk"] == "|".join(str(k) for k in range(1, TWO_LAYERS["V"] + 1))


def test_the_sources_arithmetic_shows_once(pages):
    c = cards(pages["seed"])["A[1,0]"]
    assert c.count('class="c-source"') == 1 and "2.175/4.789" in c and "0.454, 45.4%" in c


@pytest.mark.parametrize("name", ["seed", "two"])
def test_hyper_parameters_are_live(layout, name):
    h = layout[name][(1280, 800)]["hyper"]
    assert h["key"] == "hyper:V" and h["open"] and "vocabulary size" in h["card"] and "hyper-parameter" in h["card"]
    assert h["text"] == ("6" if name == "seed" else "5")


@pytest.mark.parametrize("name", ["seed", "two"])
def test_the_training_table_names_groups_and_changes(layout, name):
    t = layout[name][(1280, 800)]["training"]
    assert t["head"][2].startswith("Change")
    rows = {r["name"]: r for r in t["rows"]}
    assert not any(n.startswith(("sgd", "l0.", "l1.")) or re.search(r"p\[", n) for n in rows), list(rows)[:8]
    if name == "two":
        assert "W_Q (layer 2)" in t["groups"] and "W_Q (layer 1)" in t["groups"]
    for r in t["rows"]:  # each change is named as the state's figure minus the one before
        old = r["value"]["ref"].replace("sgd[1].", "sgd[0].", 1)
        assert r["change"]["ref"] == f"{r['value']['ref']} - {old}"
    # … and is that difference: both states' 30-digit values read off the page (k = 0, then k = 1)
    zero = {r["name"]: r["value"]["exact"] for r in t["rows0"]}
    assert set(zero) == set(rows) and all(r["change"] is None for r in t["rows0"])
    with mpmath.workdps(50):
        for n, v0 in zero.items():
            v0, v1, dv = (mpmath.mpf(x) for x in (v0, rows[n]["value"]["exact"], rows[n]["change"]["exact"]))
            assert abs(dv - (v1 - v0)) <= mpmath.mpf(10) ** -27 * max(1, abs(v1)), n


# What a reader downloads.  Before issue 28 the seed's English page weighed 1.34 MB and a 2-layer, 2-head,
# d = 4 page (V = 8, T = 4) 3.35 MB.  Now a card links only to quantities the page prints (the cards of the
# others were a third of the 2-layer page's cards), and the controls' hidden tables travel zlib-packed like the
# cards (their new change column included).  Measured when this test was written: the seed 1.36 MB (its errata
# and precision sections had grown by 0.1 MB meanwhile), this 2-layer page (V = 5, T = 3) 2.48 MB.  Bounds: the
# seed under 1.4 MB, the 2-layer page under 2.6 MB and under twice the seed's (its worked lines and cards are
# about twice as many).
@pytest.mark.parametrize("name, bound", [("seed", 1_400_000), ("two", 2_600_000)])
def test_page_size(pages, name, bound):
    size = pages[name].stat().st_size
    assert size < bound, f"{name}: {size / 1e6:.2f} MB"
    if name == "two":
        assert size < 2 * pages["seed"].stat().st_size
