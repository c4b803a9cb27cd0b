"""Errata grouped by root fault: grouping, the cause rule, the precision to differ,
English where-strings, the seeds' row counts and the rendered section.

Every expectation is worked out here independently: the planted claims file
is built so that its faults are known by construction, the figures are
rounded by hand from exact Fractions, and the seeds' groups are recomputed
from the claims' own verdicts by a separate, plain union of links.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import mpmath
import pytest
from flint import fmpq

import symgpt
from symgpt.claims.claims import judge_all, parse_printed, read_claims
from symgpt.claims.errata import cause_of, correct_figure, errata, for_document
from symgpt.claims.refs import Quantity
from symgpt.claims.where import translate
from symgpt.documents.document import build
from symgpt.render import render_doc

from conftest import loaded
from test_render_cases import document

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = ROOT / "derivations"
SEEDS = ("tiny-transformer", "bigram")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def exact(v: Fraction) -> Quantity:
    return Quantity(lambda prec: fmpq(v.numerator, v.denominator))


def no_cjk_but_tokens(text: str, vocab) -> bool:
    for tok in vocab:  # a token quoted in English text, or in a formula (W_{0,\text{鱼}})
        text = text.replace(f"「{tok}」", "").replace(f"\\text{{{tok}}}", "")
    return not CJK.search(text)


# ---------------------------------------------------------------- a planted claims file
#
# The bigram's weights: W[0,0] = 0.5, W[0,2] = 0.1; the input token 吃 has
# x = E[吃] = (0.3, -0.1), so z[猫] = 0.3·0.5 + (-0.1)·0.2 = 0.13 exactly.
# Faults, by construction (claim numbers in brackets):
#   A  z[猫] printed 0.14, 0.14 and 0.15 in three sections          [2, 3, 4]
#   B  7·W[0,0]/3 = 7/6 = 1.1667 printed 1.19 from the correct 0.17·7 (a carried
#      rounding root) [5], printed again [6], and 7/6 + 1 printed 2.19 from 1.19 + 1,
#      which carries it [7]
#   C  7/6 + 2 printed 3.30 though its chain 1.19 + 2 gives 3.19: a plain error of
#      its own, although its chain uses B's wrong figure                  [8]
#   D  p[猫] and p[吃] printed wrong in one section: one vector, one fault [9, 10]
#   E  p[鱼] printed wrong in another section                             [11]
#   F  W[0,2]/1000 = 0.01 % printed 0.1 %                                [12]
#   G  W[0,2]·123/100000 = 0.0123 % printed 0.1 %                        [13]
#   H  -W[0,2]/30000 = -0.00000333… printed 0.001                        [14]
#   I  W[0,0]/3 printed 0.17, right, but shown as "0.16 = 0.17": the equation does
#      not close; the figure itself stays 0.17                            [15]
# Claim 1 (W[0,0]/3 = 0.1667 printed 0.17) is correct and is no erratum.

PLANTED = '''spec = "bigram.toml"

[[claim]]
ref = "W[0,0]/3"
printed = "0.17"
where = "§1 表 1-1 第 0 行"

[[claim]]
ref = "z[猫]"
printed = "0.14"
where = "§1 正文"

[[claim]]
ref = "z[猫]"
printed = "0.14"
where = "§2 表 2-1 猫 行"

[[claim]]
ref = "z[猫]"
printed = "0.15"
where = "§3 公式"

[[claim]]
ref = "7*W[0,0]/3"
printed = "1.19"
where = "§4 第 1 行 结果"
chain = "0.17*7"

[[claim]]
ref = "7*W[0,0]/3"
printed = "1.19"
where = "§5 表头"

[[claim]]
ref = "7*W[0,0]/3 + 1"
printed = "2.19"
where = "§5 第 2 行 结果"
chain = "1.19 + 1"

[[claim]]
ref = "7*W[0,0]/3 + 2"
printed = "3.30"
where = "§5 第 3 行 结果"
chain = "1.19 + 2"

[[claim]]
ref = "p[猫]"
printed = "0.50"
where = "§6 表 6-1 猫 列"

[[claim]]
ref = "p[吃]"
printed = "0.10"
where = "§6 表 6-1 吃 列"

[[claim]]
ref = "p[鱼]"
printed = "0.90"
where = "§7 正文"

[[claim]]
ref = "W[0,2]/1000"
printed = "0.1%"
where = "§8 观察 1"

[[claim]]
ref = "W[0,2]*123/100000"
printed = "0.1%"
where = "§8 观察 2"

[[claim]]
ref = "-W[0,2]/30000"
printed = "0.001"
where = "§8 观察 3"

[[claim]]
ref = "W[0,0]/3"
printed = "0.17"
where = "§9 第 1 行"
chain = "0.16"
relation = "="
'''

EXPECTED_GROUPS = [[2, 3, 4], [5, 6, 7], [8], [9, 10], [11], [12], [13], [14], [15]]


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("planted")
    shutil.copy(DERIVATIONS / "bigram.toml", tmp / "bigram.toml")
    path = tmp / "bigram.claims.toml"
    path.write_text(PLANTED, encoding="utf-8")
    d = symgpt.load(tmp / "bigram.toml")
    return d, errata(read_claims(path), d)


def test_the_probabilities_planted_wrong_are_wrong():
    # independent: softmax of z = (0.13, -0.13, 0.08) in mpmath
    with mpmath.workdps(30):
        z = [mpmath.mpf(13) / 100, -mpmath.mpf(13) / 100, mpmath.mpf(8) / 100]
        s = sum(mpmath.exp(v) for v in z)
        p = [mpmath.exp(v) / s for v in z]
    assert [round(float(v), 2) for v in p] == [0.37, 0.28, 0.35]  # not 0.50, 0.10, 0.90


def test_planted_faults_group_as_built(planted):
    d, rows = planted
    assert [r["claims"] for r in rows] == EXPECTED_GROUPS
    assert [r["n"] for r in rows] == list(range(1, len(EXPECTED_GROUPS) + 1))
    a = rows[0]
    assert len(a["figures"]) == 1 and a["figures"][0]["printed"] == ["0.14", "0.15"]
    assert a["figures"][0]["correct"] == "0.13" and a["causes"] == ["plain error"]
    assert a["places"]["zh"] == ["§1 正文", "§2 表 2-1 猫 行", "§3 公式"]


def test_a_carried_figure_joins_its_root_and_says_so(planted):
    _, rows = planted
    b = rows[1]
    root, carried = b["figures"]
    assert root["quantity"] == "7·W[0,0]/3" and root["count"] == 2 and root["carries"] == []
    assert root["correct"] == "1.17"  # 7/6 = 1.1666…
    assert carried["carries"] == ["7·W[0,0]/3"] and carried["correct"] == "2.17"  # 13/6
    assert b["causes"] == ["carried rounding"]  # the root's: 0.17·7 = 1.19 as printed
    c = rows[2]
    # 1.19 + 2 = 3.19, not the printed 3.30: a plain error, its own fault
    assert c["figures"][0]["carries"] == [] and c["causes"] == ["plain error"]
    assert c["figures"][0]["correct"] == "3.17"


def test_entries_of_one_vector_group_by_section(planted):
    _, rows = planted
    assert [f["ref"] for f in rows[3]["figures"]] == ["p[猫]", "p[吃]"]
    assert [f["ref"] for f in rows[4]["figures"]] == ["p[鱼]"]
    assert rows[3]["nodes"][:2] == ["p[0]", "p[1]"]  # canonical names, for the link


def test_an_equation_that_does_not_close_keeps_its_right_figure(planted):
    _, rows = planted
    i = rows[-1]
    assert i["claims"] == [15] and i["causes"] == ["equation does not close"]
    assert i["figures"][0]["printed"] == ["0.17"] and i["figures"][0]["correct"] == "0.17"


def test_correct_figure_has_the_precision_to_differ(planted):
    _, rows = planted
    correct = {r["claims"][0]: r["figures"][0]["correct"] for r in rows}
    # 0.1/1000 = 0.0001 = 0.01 %: at one decimal 0.0 %, so two decimals
    assert correct[12] == "0.01%"
    # 0.1·123/100000 = 0.000123 = 0.0123 %: 0.0 % → 0.01 %
    assert correct[13] == "0.01%"
    # -0.1/30000 = -0.0000033…: 0.000 at three decimals, first digit at six
    assert correct[14] == "-0.000003"
    assert [r["figures"][0]["exact"] for r in rows if r["claims"][0] == 12] == ["0.01%"]


@pytest.mark.parametrize("value,printed,want", [
    (Fraction(123, 1000000), "0.1%", "0.01%"),      # 0.0123 %, the brief's example
    (Fraction(1, 300), "0.1%", "0.3%"),             # 0.333 %: one decimal says it
    (Fraction(8826, 10000), "0.882", "0.883"),
    (Fraction(-4, 1000000), "0.00", "-0.000004"),
    (Fraction(46), "38", "46"),
    (Fraction(15, 1000), "+0.02", "+0.015"),        # 0.015 rounds (half away) to 0.02 = printed: finer
])
def test_precision_to_differ_by_hand(value, printed, want):
    assert correct_figure(exact(value), parse_printed(printed)) == want


# ---------------------------------------------------------------- the cause rule

def test_carried_rounding_only_when_the_chain_reproduces_the_figure():
    said = SimpleNamespace(cause="carried rounding")  # what the claims side said
    printed = parse_printed("0.882")
    assert cause_of(said, printed, exact(Fraction("0.4623") + Fraction("0.4200"))) == "carried rounding"
    # an inherited chain two last-place units away: a plain error whatever was said
    assert cause_of(said, printed, exact(Fraction("0.884"))) == "plain error"
    assert cause_of(said, printed, None) == "plain error"
    assert cause_of(SimpleNamespace(cause="plain error"), printed, exact(Fraction("0.8823"))) == "carried rounding"


def test_seed_causes_agree_with_the_chains():
    for name in SEEDS:
        d = loaded(name)
        vs = [v for v in judge_all(read_claims(DERIVATIONS / f"{name}.claims.toml"), d) if v.verdict == "wrong"]
        by_index = {v.index: v for v in vs}
        for r in for_document(d):
            for i in r["claims"]:
                v = by_index[i]
                # the chain's rounding, as claims printed it, against the figure
                reproduces = (v.chain_value is not None
                              and Fraction(v.chain_value.rstrip("%")) == Fraction(v.printed.rstrip("%")))
                fig = next(f for f in r["figures"] if f["ref"] == v.ref)
                assert ("carried rounding" in fig["causes"]) >= reproduces


# ---------------------------------------------------------------- the seeds

def independent_groups(name):
    """The seed's faults recomputed from the claims' verdicts with a plain union of links."""
    d = loaded(name)
    vs = [v for v in judge_all(read_claims(DERIVATIONS / f"{name}.claims.toml"), d) if v.verdict == "wrong"]
    comp = {v.index: {v.index} for v in vs}

    def link(a, b):
        merged = comp[a] | comp[b]
        for i in merged:
            comp[i] = merged

    def node(ref):
        try:
            return d.node(ref)
        except ValueError:
            return None

    first = {}
    for v in vs:
        n = node(v.ref)
        keys = [("q", n or v.ref.replace(" ", ""))]
        if n:
            keys.append(("vec", re.match(r"[^\[]+", n).group(), v.where.split()[0]))
        m = re.fullmatch(r"(softmax_T|topk|topp)\((.*),\s*[^,]+\)", v.ref)
        if m:
            keys.append(("vec", m[1] + m[2], v.where.split()[0]))
        for k in keys:
            link(v.index, first.setdefault(k, v.index))
        reproduces = v.chain_value is not None and v.chain_value == v.printed
        if v.chain and v.chain_from is None and reproduces:
            numbers = set(re.findall(r"\d+\.\d+", v.chain))
            for o in vs:
                if o.index < v.index and "%" not in o.printed and o.printed.lstrip("-+") in numbers:
                    link(v.index, o.index)
    return sorted({min(c): sorted(c) for c in comp.values()}.values())


@pytest.mark.parametrize("name", SEEDS)
def test_seed_rows_are_the_faults_of_the_claims_file(name):
    rows = for_document(loaded(name))
    groups = independent_groups(name)
    assert [r["claims"] for r in rows] == groups
    wrong = [i for g in groups for i in g]
    assert len(wrong) == len(set(wrong)) == sum(r["count"] for r in rows)


def test_transformer_errata_fit_in_twenty_rows():
    rows = for_document(loaded("tiny-transformer"))
    assert len(rows) <= 20 < sum(r["count"] for r in rows)
    cf = read_claims(DERIVATIONS / "tiny-transformer.claims.toml")
    q10 = [c.index for c in cf.claims if c.ref == "Q[1,0]" and c.printed == "0.882"]
    assert len(q10) == 4 and sum(set(q10) <= set(r["claims"]) for r in rows) == 1
    params = next(r for r in rows if r["figures"][0]["ref"] == "params()")
    assert params["figures"][0]["printed"] == ["18", "38"] and params["figures"][0]["correct"] == "46"


# ---------------------------------------------------------------- English where-strings

@pytest.mark.parametrize("zh,en", [
    ("§4.3 表 4-4 第 2 行", "§4.3 Table 4-4 row 2"),
    ("§11.2 表 11-1 T = 0.5 行 p(爱) 列", "§11.2 Table 11-1 T = 0.5 row p(「爱」) column"),
    ("§5.2 q1,0 = 1.541 × 0.3 + 0.840 × 0.5 第一项积", "§5.2 q1,0 = 1.541 × 0.3 + 0.840 × 0.5 first product"),
    ("§5.5 含义 「45.4% 注意力看「我」」", "§5.5 meaning “45.4% of the attention goes to 「我」”"),
    ("§0.3 表 0-2 W_Q 行 形状 2×2 (第一个 2)", "§0.3 Table 0-2 W_Q row shape 2×2 (first 2)"),
    ("§6 自检清单 第 2 题", "§6 self-check list question 2"),
])
def test_where_strings_translate(zh, en):
    assert translate(zh, "en", ["我", "爱", "你"]) == en
    assert translate(zh, "zh") == zh


@pytest.mark.parametrize("name", SEEDS)
def test_every_where_string_of_a_seed_reads_in_english(name):
    d = loaded(name)
    vocab = d.spec.vocab
    for c in read_claims(DERIVATIONS / f"{name}.claims.toml").claims:
        en = translate(c.where, "en", vocab)
        assert no_cjk_but_tokens(en, vocab), (c.where, en)
        assert "…" not in en.replace("(t=2, …)", ""), (c.where, en)  # every word covered
    where = {c.index: c.where for c in read_claims(DERIVATIONS / f"{name}.claims.toml").claims}
    for r in for_document(d):
        assert all(no_cjk_but_tokens(p, vocab) for p in r["places"]["en"])
        # every section a fault shows in is named once, in both languages
        sections = {where[i].split()[0] for i in r["claims"]}
        heads = {lang: {p.split()[0] for p in r["places"][lang]} for lang in ("zh", "en")}
        assert heads["zh"] >= sections
        assert {h for h in heads["en"] if h.startswith("§")} == {h for h in sections if h.startswith("§")}


# ---------------------------------------------------------------- the rendered section

@pytest.fixture(scope="module")
def bigram_doc():
    return document("bigram")  # built once per session with its errata, shared read-only


def errata_part(text: str, fmt: str) -> str:
    mark = "## ERRATA" if fmt == "md" else r"\section*{ERRATA}"
    return text.split(mark, 1)[1]


def _unlinked(errata):
    """The errata rows with no cited § of ours (as for a source whose sections we do not follow)."""
    return [dict(e, link=None, where={lang: [dict(w, anchor=None, mark="", rest=(w["mark"] + " " + w["rest"]).strip())
                                             for w in ws] for lang, ws in e["where"].items()})
            for e in errata]


def test_markdown_errata_without_anchors(bigram_doc):
    doc = {k: v for k, v in bigram_doc.items() if k != "anchors"}
    doc["errata"] = _unlinked(doc["errata"])
    md = errata_part(render_doc(doc, "md", "en"), "md")
    assert "| # | Where in the source |" in md and "#sec-" not in md
    assert "0.1% → **0.01%**" in md  # the weight decay: 0.01 % per step
    assert "-0.195170 → **-0.195173**" in md
    assert "“a “tax” of 0.1% on the parameter's current value”" in md
    assert no_cjk_but_tokens(md, bigram_doc["vocab"])
    rows = [ln for ln in md.splitlines() if re.match(r"\| \d+ \|", ln)]
    assert len(rows) == 3 and all(ln.count(" | ") == 3 for ln in rows)


def test_errata_places_link_to_the_sub_sections_they_cite(bigram_doc):
    """The source's §3.2 is our sub-section 3.2 (AdamW): each cited place links to its heading."""
    md = render_doc(bigram_doc, "md", "en")
    (adamw,) = [st for sec in bigram_doc["sections"] for st in sec["steps"]
                if st["kind"] == "sub" and st["num"] == "3.2"]
    assert f'<a id="sec-{adamw["anchor"]}"></a>' in md.split("## ERRATA")[0]
    rows = [ln for ln in errata_part(md, "md").splitlines() if re.match(r"\| \d+ \|", ln)]
    assert len(rows) == 3 and all(f"| [§3.2](#sec-{adamw['anchor']})" in r for r in rows[:2])


def test_markdown_and_latex_errata_link_to_our_sections(bigram_doc):
    """Without a cited § of ours, the link goes to the section that prints the quantity."""
    sec = bigram_doc["sections"][-1]
    doc = dict(bigram_doc, anchors={"W[0,2]": sec["id"]}, errata=_unlinked(bigram_doc["errata"]))
    md = errata_part(render_doc(doc, "md", "en"), "md")
    assert f"[§{sec['n']}](#sec-{sec['id']})" in md  # the weight-decay row names W[0,2]
    zh = render_doc(doc, "md", "zh").split("## 勘误", 1)[1]
    assert f"(#sec-{sec['id']})" in zh and "0.1% → **0.01%**" in zh
    tex = render_doc(doc, "tex", "en").split(r"\section*{ERRATA}", 1)[1]
    assert rf"\pageref{{sec:{sec['id']}}}" in tex and r"\S" + str(sec["n"]) in tex
    assert r"0.1\% $\to$ \textbf{0.01\%}" in tex


needs_tex = pytest.mark.skipif(not shutil.which("xelatex"), reason="xelatex not installed")


@pytest.mark.slow
@needs_tex
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_latex_errata_fit_the_text_width(tmp_path, lang):
    d = symgpt.load("tiny-transformer")
    tex = render_doc(build(d, None, for_document(d)), "tex", lang)
    head, body = tex.split(r"\begin{document}", 1)
    title = r"\section*{ERRATA}" if lang == "en" else r"\section*{勘误"
    part = title + body.split(title, 1)[1]
    (tmp_path / "e.tex").write_text(head + "\\begin{document}\n" + part, encoding="utf-8")
    r = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "e.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    log = (tmp_path / "e.log").read_text(encoding="utf-8", errors="replace")
    assert r.returncode == 0, log[-1500:]
    assert "Overfull \\hbox" not in log and "Missing character" not in log
