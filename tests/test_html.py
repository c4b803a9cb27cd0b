"""The explorable page (``--format html``), read back as a file: every live figure's reference,
value and printed text, the proof cards, the controls' tables, errata in place, size, offline.

Independent values: the pure-mpmath oracle (tests/oracle.py) for forward quantities and
the temperature tables; hand-derived definitions (A = exp(S)/A_den, ∂L/∂logit = p − y);
the source's own claims file for the errata; ``verify`` (exact, separate from the printer)
for every printed figure.  The page in a real browser: tests/test_html_browser.py.
"""
from __future__ import annotations

import base64
import json
import re
import shutil
import tomllib
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import mpmath
import pytest

import symgpt
from symgpt.claims.claims import judge_all, read_claims
from symgpt.claims.errata import for_document
from symgpt.claims.refs import bind, parse
from symgpt.documents.document import build, printed_figures
from symgpt.render import _claim_figure, render_all

import hostile
import oracle
from conftest import ref_round_decimals

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None and not __import__("os").environ.get("CI"), reason="needs node")


class Live(HTMLParser):
    """Every element with class n (a live figure): its attributes, its text, inside <main> or not."""

    VOID = {"meta", "br", "input", "img", "hr", "link", "col", "area", "base", "wbr", "source"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.figs, self.stack, self.main = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        a = dict(attrs)
        if tag == "main":
            self.main += 1
        live = None
        if "n" in (a.get("class") or "").split() and "data-ref" in a:
            live = len(self.figs)
            self.figs.append({**a, "text": "", "in_main": self.main > 0})
        if "katex-mathml" in (a.get("class") or "").split():
            live = "mathml"  # what a screen reader gets: not the text a reader sees
        self.stack.append((tag, live))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "main":
            self.main -= 1

    def handle_data(self, data):
        if any(live == "mathml" for _, live in self.stack):
            return
        for _, live in self.stack:
            if live is not None:
                self.figs[live]["text"] += data


def live_figures(text: str) -> list:
    p = Live()
    p.feed(unpacked(text))
    return p.figs


def unpacked(text: str) -> str:
    """The page as its script leaves it: each control's hidden panel put back from the zlib-packed list."""
    m = re.search(r'<script type="text/plain" id="panels-gz">([^<]*)</script>', text)
    if m is None:
        return text
    panels = json.loads(zlib.decompress(base64.b64decode(m[1])).decode("utf-8"))
    return re.sub(r'<div class="packed" data-p="(\d+)" hidden></div>', lambda k: panels[int(k[1])], text)


def cards(text: str) -> str:
    m = re.search(r'<script type="text/plain" id="cards-gz">([^<]*)</script>', text)
    return zlib.decompress(base64.b64decode(m[1])).decode("utf-8")


@pytest.fixture(scope="module")
def bigram_pages():
    return {p.name: t for p, t in render_all([ROOT / "derivations/bigram.toml"], formats=("html",),
                                              langs=("zh", "en")).items()}


@pytest.fixture(scope="module")
def seed_pages():
    return {p.name: t for p, t in render_all([ROOT / "derivations/tiny-transformer.toml"], formats=("html",),
                                              langs=("zh", "en")).items()}


def _numeric(s: str) -> mpmath.mpf:
    return mpmath.mpf(s.replace("%", ""))


def check_page(name: str, text: str, d, max_bytes: int = 2_000_000) -> list:
    """The checks every page must pass; the live figures."""
    figs = live_figures(text)
    assert figs, name
    # every data-ref is a reference the name resolver (symgpt's claims grammar) accepts
    for ref in {f["data-ref"] for f in figs}:
        bind(parse(ref, d.limits), d, d.limits)
    # every data-exact is the engine's certified value, 30 significant digits
    for ref, exact in {(f["data-ref"], f["data-exact"]) for f in figs}:
        digits = re.sub(r"e.*|[-.]", "", exact).lstrip("0")
        assert len(digits.rstrip("0")) <= 30 and (len(digits) == 30 or exact == "0" or "/" in exact), (ref, exact)
        try:
            d.ref(ref)
        except ValueError:
            continue  # an expression: its value is checked against mpmath where its family is
        assert d.value(ref, digits=30) == exact, ref
    # the printed text of each figure is what data-printed says (a sign may stand outside, as an operator)
    for f in figs:
        shown = f["text"].replace("−", "-").replace("\u200b", "").replace(" ", "").strip()
        shown = re.sub(r"×10(-?\d+)$", r"e\1", shown)  # 3.1×10⁻⁷ as KaTeX writes it: 3.1×10-7
        printed = re.sub(r"e([+-])0*(\d)", lambda m: "e" + m[1].replace("+", "") + m[2], f["data-printed"])
        assert shown in (printed, printed.lstrip("-")), (f["data-ref"], shown, printed)
    # every figure the document prints is live in <main>, with its reference and its printed text
    doc = build(d, None, for_document(d), fit=False)  # the page's own: it scrolls a wide line, never splits it
    want = Counter((g["ref"], g["printed"]) for g in printed_figures(doc["sections"]))
    have = Counter((f["data-ref"], f["data-printed"]) for f in figs if f["in_main"])
    missing = want - have
    assert not missing, f"{name}: {sum(missing.values())} printed figures not live, e.g. {list(missing)[:5]}"
    # no network: a CSP that allows nothing outside the file, no external URL anywhere
    assert "default-src 'none'" in text
    assert not re.search(r'(src|href)="(https?:)?//', text), name
    assert "<link" not in text and "@import" not in text
    assert len(text.encode("utf-8")) < max_bytes, f"{name}: {len(text.encode()) / 1e6:.2f} MB"
    return figs


def test_bigram_pages(bigram_pages, bigram, bigram_oracle):
    assert sorted(bigram_pages) == ["bigram.en.html", "bigram.zh.html"]
    for name, text in bigram_pages.items():
        figs = check_page(name, text, bigram)
        exact = {f["data-ref"]: f["data-exact"] for f in figs}
        # forward values against the independent mpmath forward pass (to 28 digits)
        with mpmath.workdps(60):
            for v in range(3):
                assert abs(_numeric(exact[f"p[{v}]"]) - bigram_oracle["p"][v]) < mpmath.mpf(10) ** -28
            assert abs(_numeric(exact["loss"]) - bigram_oracle["loss"]) < mpmath.mpf(10) ** -28
        assert 'lang="zh-Hans"' in text if name.endswith(".zh.html") else 'lang="en"' in text


def test_every_live_figure_passes_verify(bigram_pages, bigram, tmp_path):
    """Each (reference, printed figure) pair on the page, as a claim, is a correct rounding (verify)."""
    figs = live_figures(bigram_pages["bigram.en.html"])
    pairs = sorted({(f["data-ref"], f["data-printed"]) for f in figs})
    body = ["spec = " + json.dumps(str(ROOT / "derivations/bigram.toml")), ""]
    for ref, printed in pairs:
        body += ["[[claim]]", f"ref = {json.dumps(ref, ensure_ascii=False)}",
                 f"printed = {json.dumps(_claim_figure(printed))}", 'where = "page"', ""]
    path = tmp_path / "page.claims.toml"
    path.write_text("\n".join(body), encoding="utf-8")
    verdicts = judge_all(read_claims(path), bigram)
    wrong = [(v.ref, v.printed, v.correct) for v in verdicts if not v.ok]
    assert len(verdicts) == len(pairs) and not wrong, wrong[:5]


def test_cards_of_the_backward_pass(bigram_pages):
    """A gradient's card is its adjoint: grad_z[鱼] = p[鱼] − 1 (by hand: ∂(−ln p_y)/∂z_y), read from p[2]."""
    text = cards(bigram_pages["bigram.en.html"])
    card = re.search(r'<div class="card" data-key="grad_z\[2\]">(.*?)</div>\s*(?=<div class="card"|$)', text, re.S)[1]
    assert 'data-go="p[2]"' in card
    shown = re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", card)).replace("\u200b", "")
    assert "∂z鱼∂L=p鱼−1=" in shown, shown[:200]  # the typeset adjoint (KaTeX lays out a denominator first)
    # the page's live grad_z[2] carries the card's key, and p[2]'s card lists grad_z[2] among its consumers
    p_card = re.search(r'<div class="card" data-key="p\[2\]">(.*?)</div>\s*(?=<div class="card"|$)', text, re.S)[1]
    assert 'data-go="grad_z[2]"' in p_card


def test_temperature_tables_against_mpmath(bigram_pages, bigram_oracle):
    """Every softmax_T table on the page: its figures are the rounded mpmath softmax(z/T)."""
    figs = [f for f in live_figures(bigram_pages["bigram.en.html"]) if f["data-ref"].startswith("softmax_T(")]
    assert figs
    for f in figs:
        T, v = re.fullmatch(r"softmax_T\(([^,]+), (\d+)\)", f["data-ref"]).groups()
        with mpmath.workdps(60):
            z = bigram_oracle["z"]
            if T == "inf":
                q = mpmath.mpf(1) / len(z)
            else:
                t = mpmath.mpf(oracle._number(T).numerator) / oracle._number(T).denominator
                e = [mpmath.exp(x / t) for x in z]
                q = e[int(v)] / sum(e)
            places = len(f["data-printed"].split(".")[1])
            assert ref_round_decimals(q, places) == f["data-printed"], (f["data-ref"], f["data-printed"])


def test_errata_in_place(seed_pages_quick):
    """The source's wrong S[1,0] = 0.777 (its claims file) is marked where our 0.778 stands."""
    text = seed_pages_quick
    figs = live_figures(text)
    marked = [f for f in figs if "err" in f.get("class", "").split()]
    claims = tomllib.loads((ROOT / "derivations/tiny-transformer.claims.toml").read_text(encoding="utf-8"))
    printed_s10 = {c["printed"] for c in claims["claim"] if c["ref"] == "S[1,0]"}
    s10 = [f for f in marked if f["data-key"] == "S[1,0]"]
    assert s10 and json.loads(s10[0]["data-err"])["printed"] in printed_s10
    assert json.loads(s10[0]["data-err"])["correct"].startswith("0.778")
    # a figure the source printed right is not marked (A[1,0] = 0.454 is right in the source)
    assert not any(f["data-key"] == "A[1,0]" for f in marked)


def test_errata_name_quantities_as_the_text_does(seed_pages_quick):
    """The errata table's quantities: typeset by KaTeX in the text's notation, a function the claims call as its
    section writes it, the parameter count in words; never a code name such as H0[1,0]·W_Q[0,0] or params()."""
    section = seed_pages_quick.split('<section id="errata">')[1].split("</section>")[0]
    cells = re.findall(r'<td class="l">(.*?)</td>', section, re.S)[1::3]          # where, figures, cause
    assert len(cells) == 15 and all('class="katex"' in c for c in cells[1:]) and "<code>" not in section
    assert cells[0].startswith("number of trainable scalars: ") and cells[1].startswith('<span class="katex">')
    text = re.sub(r"<[^>]+>", "", "".join(cells))
    assert not re.search(r"\[|_", text), re.findall(r".{20}[\[_].{20}", text)[:3]


@pytest.fixture(scope="module")
def seed_pages_quick():
    """The transformer's English page alone (the quick suite's one transformer render)."""
    return render_all([ROOT / "derivations/tiny-transformer.toml"], formats=("html",), langs=("en",))[
        Path("tiny-transformer.en.html")]


def test_seed_page(seed_pages_quick, seed, seed_oracle):
    figs = check_page("tiny-transformer.en.html", seed_pages_quick, seed)
    exact = {f["data-ref"]: f["data-exact"] for f in figs}
    with mpmath.workdps(60):
        A = seed_oracle["A"] if "A" in seed_oracle else seed_oracle["blocks"][0]["A"]
        assert abs(_numeric(exact["A[1,0]"]) - A[1][0]) < mpmath.mpf(10) ** -28
        assert exact["A[1,0]"].startswith("0.45415990442673488876766451298")
    card = re.search(r'<div class="card" data-key="A\[1,0\]">(.*?)</div>\s*(?=<div class="card"|$)',
                     cards(seed_pages_quick), re.S)[1]
    # by hand: A[1,0] = exp(S[1,0]) / Σ_s exp(S[1,s]); computed from S[1,0] and the denominator, into Attn[1,·]
    assert 'data-go="S[1,0]"' in card and 'data-go="A_den[1]"' in card and 'data-go="Attn[1,0]"' in card
    assert "0.454159904426734888767664512980" in card
    # the expressions' values against the oracle: exp(S[1,0]); topk and topp renormalised from the oracle's p
    p = seed_oracle["p"]
    with mpmath.workdps(60):
        S = seed_oracle["S"] if "S" in seed_oracle else seed_oracle["blocks"][0]["S"]
        assert abs(_numeric(exact["exp(S[1,0])"]) - mpmath.exp(S[1][0])) < mpmath.mpf(10) ** -27
        order = sorted(range(len(p)), key=lambda v: -p[v])
        checked = 0
        for ref, value in exact.items():
            m = re.fullmatch(r"(topk|topp)\(([\d.]+), (\d+)\)", ref)
            if not m:
                continue
            if m[1] == "topk":
                kept = order[:int(m[2])]
            else:
                P, mass, kept = mpmath.mpf(m[2]), 0, []
                for v in order:
                    if mass >= P:
                        break
                    kept.append(v)
                    mass += p[v]
            v = int(m[3])
            want = p[v] / sum(p[i] for i in kept) if v in kept else mpmath.mpf(0)
            assert abs(_numeric(value) - want) < mpmath.mpf(10) ** -27, ref
            checked += 1
        assert checked >= 50


def test_node_missing_is_one_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no node on it
    line = hostile.assert_refused(hostile.render("bigram", "--format", "html", "--out", str(tmp_path / "out")),
                                  "--format html needs node", "apt-get install nodejs")
    assert line.startswith("error: ")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_both_seeds_both_languages(seed_pages, bigram_pages, seed):
    for name, text in seed_pages.items():
        check_page(name, text, seed)
    again = render_all([ROOT / "derivations/bigram.toml"], formats=("html",), langs=("zh", "en"))
    assert {p.name: t for p, t in again.items()} == bigram_pages  # the same bytes every run


@pytest.mark.slow
def test_committed_pages_are_fresh(seed_pages, bigram_pages):
    """derivations/rendered/ holds both seeds' pages in both languages, as symgpt renders them now."""
    rendered = ROOT / "derivations" / "rendered"
    for name, text in {**seed_pages, **bigram_pages}.items():
        assert (rendered / name).read_text(encoding="utf-8") == text, \
            f"stale {name}: python -m symgpt.render tiny-transformer bigram --format md,claims,html --lang all " \
            f"--out derivations/rendered"


@pytest.mark.slow
@pytest.mark.parametrize("case", ["weird", "deep"])
def test_hostile_tokens_and_a_deeper_model(case):
    """Tokens that fight the formats (<pad>, $x$, &, {}, a backslash-n) and a 2-layer, 2-head, d = 4 model:
    every check of a seed page holds, and no token reaches the page as markup."""
    from test_render_cases import deep_spec_path, weird_spec_path
    path = weird_spec_path() if case == "weird" else deep_spec_path()
    d = symgpt.load(str(path))
    [(rel, text)] = render_all([path], formats=("html",), langs=("en",)).items()
    check_page(rel.name, text, d, max_bytes=2_000_000 if case == "weird" else 4_000_000)  # 2 MB: the seeds' target
    if case == "weird":
        assert "<pad>" not in text and "&lt;pad&gt;" in text
        body = text[text.index("<body"):]
        # the packed cards, the packed panels and the page's own script, nothing from a token
        assert re.findall(r"<script[^>]*>", body) == [
            '<script type="text/plain" id="cards-gz">', '<script type="text/plain" id="panels-gz">', "<script>"]


def test_a_hostile_drawn_token_stays_text(tmp_path):
    """A token that is markup (drawn by the seeded u, so it stands in labels too) reaches the page as text,
    and the page's policy runs its own script only (a hash, no 'unsafe-inline': no handler attribute runs)."""
    evil = '"><img src=x onerror=alert(1)>'
    text = (ROOT / "derivations/bigram.toml").read_text(encoding="utf-8")
    text = text.replace('vocab = ["猫", "吃", "鱼"]', f"vocab = [{json.dumps(evil)}, \"吃\", \"鱼\"]")
    text = re.sub(r"(?m)^uniform = .*$", "uniform = 0.01", text)
    assert evil in text
    path = tmp_path / "evil.toml"
    path.write_text(text, encoding="utf-8")
    page = render_all([path], formats=("html",), langs=("en",))[Path("evil.en.html")]
    assert "<img" not in page and "&lt;img" in page
    assert "'unsafe-inline'" not in page.split("script-src")[1].split('"')[0]
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/]+=*'", page)
    assert re.search(r'aria-label="[^"]*&quot;&gt;&lt;img', page)  # the draw's label, escaped


def test_katex_and_node_faults_are_one_error(tmp_path, monkeypatch):
    from symgpt.cli import OutputError
    from symgpt.documents.mathhtml import typeset
    with pytest.raises(OutputError, match=r"KaTeX cannot typeset '\\\\frac\{'"):
        typeset([(r"\frac{", False)], "x.html")
    fake = tmp_path / "node"
    fake.write_text("#!/bin/sh\necho not json\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    with pytest.raises(OutputError, match="did not answer one result per formula"):
        typeset([("x", False)], "x.html")
