"""The transformer document's teaching material, labels and languages (issue 10, parts 2–3).

Each test compares with something typed by hand from the source document 000,
an independent computation (the oracle's forward pass, the forward graph's
own dependencies, published parameter counts), or an observable of the
rendered text.
"""
from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from symgpt.documents import diagrams
from symgpt.engine import scale
from symgpt.engine.spec import SpecError, load_spec
from symgpt.render import render_all
from symgpt.training.train import param_count

import oracle
from conftest import loaded
from test_render_cases import ROOT, SEEDS, deep_spec_path, document, rendered

CLAIMS = ROOT / "derivations" / "tiny-transformer.claims.toml"


def text_of(case, name):
    return next(t for p, t in rendered(case).items() if p.name == name)


def subs_md(text):
    """{section number: [sub numbers]} from the Markdown headings."""
    out: dict = {}
    sec = None
    for ln in text.splitlines():
        m = re.match(r"## §(\d+) ", ln)
        if m:
            sec = m.group(1)
            out[sec] = []
        m = re.match(r"### (\d+)\.(\d+) ", ln)
        if m:
            assert m.group(1) == sec, ln
            out[sec].append(f"{m.group(1)}.{m.group(2)}")
    return out


# ---------------------------------------------------------------- 1. numbers as the source's

# The sub-sections of document 000, typed from the source: § → how many n.k it has.
SOURCE_SUBS = {"0": 3, "2": 2, "3": 2, "4": 3, "5": 6, "6": 2, "7": 4, "8": 2, "10": 4, "11": 4, "12": 7, "13": 3}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sub_sections_are_numbered_as_the_source(lang):
    subs = subs_md(text_of("tiny-transformer", f"tiny-transformer.{lang}.md"))
    for sec, k in SOURCE_SUBS.items():
        assert subs[sec][:k] == [f"{sec}.{i}" for i in range(1, k + 1)], (sec, subs[sec])
    # our extras come after the source's: the seeded draw's continuation, the full gradient, …
    assert len(subs["11"]) >= 5 and len(subs["12"]) >= 9 and len(subs["13"]) == 3


def test_the_source_subsections_hold_what_the_source_puts_there():
    text = text_of("tiny-transformer", "tiny-transformer.en.md")
    part = lambda a, b: text.split(f"### {a} ", 1)[1].split(f"### {b} ", 1)[0]
    assert "](tiny-transformer-pipeline.svg)" in part("0.1", "0.2")
    assert "**Table 0-1 · Hyperparameters**" in part("0.2", "0.3")
    qkv = part("5.2", "5.3")  # Q, K and V as minor headings below 5.2
    assert [ln for ln in qkv.splitlines() if ln.startswith("#### ")] == \
        ["#### Computing $Q$ element by element", "#### Computing $K$ element by element",
         "#### Computing $V$ element by element"]
    assert "$-\\infty$" in part("5.4", "5.5")
    assert "](tiny-transformer-probs.svg)" in part("10.4", "## §11")
    topkp = part("11.3", "11.4")
    assert "#### Top-k (k = 3)" in topkp and "#### Top-p (P = 0.5)" in topkp
    assert "](tiny-transformer-backprop.svg)" in part("12.7", "12.8")
    assert "**Table 13-2 · " in part("13.1", "13.2")


def _cited_marks():
    with open(CLAIMS, "rb") as f:
        claims = tomllib.load(f)
    wheres = [c["where"] for c in claims["claim"]]
    return sorted({w.split(" ", 1)[0][1:] for w in wheres if w.startswith("§")},
                  key=lambda m: tuple(map(int, m.split("."))))


def test_every_section_the_claims_file_cites_is_a_heading_in_both_languages():
    marks = _cited_marks()
    assert "5.2" in marks and "12.6" in marks and "13.1" in marks  # the seed's errata cite these
    for lang in ("zh", "en"):
        md = text_of("tiny-transformer", f"tiny-transformer.{lang}.md")
        tex = text_of("tiny-transformer", f"tiny-transformer.{lang}.tex")
        for m in marks:
            if "." in m:
                assert re.search(rf"^### {re.escape(m)} ", md, re.M), (lang, m)
                assert f"\\subsection*{{{m}\\quad " in tex, (lang, m)
            else:
                assert re.search(rf"^## §{m} ", md, re.M), (lang, m)


def test_errata_rows_link_to_the_sub_section_they_cite():
    doc = document("tiny-transformer")  # built with its errata, shared
    md = text_of("tiny-transformer", "tiny-transformer.en.md")
    linked = 0
    for row in doc["errata"]:
        cited = [p.split(" ", 1)[0][1:] for p in row["places"]["zh"] if p.startswith("§")]
        if not cited:
            assert row["link"] is None  # the source's header and contents have no § of ours
            continue
        assert row["link"]["num"] == cited[0], (row["places"]["zh"], row["link"])
        assert f'<a id="sec-{row["link"]["anchor"]}"></a>' in md
        linked += 1
    assert linked >= 10


# ---------------------------------------------------------------- 2. teaching material

def test_backprop_chain_follows_the_sources_hand_drawn_chain():
    """§12.7 of document 000: L → logits → h_final → FFN input → attention output → A, V → Q, K, V → H⁽⁰⁾ → E."""
    rows, side, _ = diagrams.chain_rows(loaded("tiny-transformer"))
    hand = [{"loss"}, {"logits"}, {"h_final"}, {"LN1"}, {"Attn"}, {"A", "V"}, {"Q", "K"}, {"H0"}, {"E"}]
    where = []
    for want in hand:
        i = next(i for i, r in enumerate(rows) if want <= set(r))
        where.append(i)
    assert where == sorted(where) and len(set(where)) == len(where), (rows, where)
    assert rows[0] == ["loss"] and rows[-1] == ["E"]
    # the source's side branches: ∂/∂W_1, W_2, b_1, b_2 at the FFN and ∂/∂W_Q, W_K, W_V at Q, K, V
    assert {p for _, p in side} == {"W_1", "b_1", "W_2", "b_2", "W_Q", "W_K", "W_V"}
    assert dict((p, g) for g, p in side)["W_Q"] == "Q"


def test_backprop_chain_of_two_layers_runs_through_both_blocks_in_order():
    d = loaded(str(deep_spec_path()))
    rows, side, edges = diagrams.chain_rows(d)
    flat = [g for r in rows for g in r]
    for name in ("LN2", "F", "LN1", "Attn", "Q"):
        assert flat.index(f"l1.{name}") < flat.index(f"l0.{name}")  # layer 2 is undone first
    assert flat.index("l0.H0" if "l0.H0" in flat else "H0") > flat.index("l0.Q")
    assert {p for _, p in side} >= {"l0.W_Q", "l1.W_Q", "l0.W_1", "l1.b_2"}
    # every arrow goes against a forward dependency: b is among the inputs that a was built from
    g = d.graph
    for a, targets in edges.items():
        if a == "loss":
            continue
        below = {g.nodes[n].group for nm in g.groups[a].names for n in g.ancestors(nm)}
        assert set(targets) <= below, (a, targets)
    fig = diagrams.backprop_chain(d)
    labels = [b["svg"] for b in fig["boxes"]]
    assert "LN1⁽²⁾" in labels and "LN1⁽¹⁾" in labels and not any("⁽⁰⁾" in x for x in labels)


def test_pipeline_is_drawn_from_the_spec_sizes_and_ends_in_the_argmax_token():
    path = deep_spec_path()
    spec = oracle.load_spec(path)
    r = oracle.transformer_forward(spec, dps=40)
    best = max(range(len(r["p"])), key=lambda v: r["p"][v])
    fig = document("deep")["figures"]["pipeline"]
    assert [f["svg"] for f in fig["frames"]] == ["[1]", "[2]"]  # the PDF says layer 1/2 in its language
    assert sum(b.get("svg", "") == "Attn = [head₁, …, head₂]" for b in fig["boxes"]) == 2  # no W_O in this spec
    assert "W_O" not in diagrams.svg(fig)
    assert not re.search(r"\b(attention|layer|tokenize|heads)\b", diagrams.svg(fig))  # one SVG for every language
    assert fig["boxes"][0]["tok"] == " ".join(spec["data"]["input"])  # English-like tokens, spaced
    ids = [spec["model"]["vocab"].index(t) for t in spec["data"]["input"]]
    assert fig["boxes"][1]["svg"] == f"ids = {ids}"
    assert fig["boxes"][-1]["tok"] == spec["model"]["vocab"][best]
    svg = diagrams.svg(diagrams.pipeline(["<&>", "\"'"], "</svg>", 1, 1))
    root = ET.fromstring(svg)  # well-formed XML whatever the tokens
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "<&>\"'" in texts and "</svg>" in texts


# Hugging Face parameter counts of the released GPT-2 checkpoints (model.num_parameters()).
HF_COUNTS = {"GPT-2 small": 124_439_808, "GPT-2 medium": 354_823_168, "GPT-2 large": 774_030_080,
             "GPT-2 XL": 1_557_611_200}


def test_one_params_formula_reproduces_published_counts():
    models = {m["name"]: m for m in scale.published()}
    for name, count in HF_COUNTS.items():
        assert scale.params(scale.gpt2(models[name])) == count, name
    gpt3 = scale.params(scale.gpt2(models["GPT-3 175B"]))
    assert abs(gpt3 - 175e9) / 175e9 < 0.01  # Brown et al. 2020: 175.0B
    assert all(m["source"] for m in models.values())


def test_params_formula_counts_our_models_like_a_hand_count_of_their_matrices():
    for path in (SEEDS[0], deep_spec_path()):
        spec = load_spec(path)
        hand = 0
        for name, value in spec.params.items():
            if re.search(r"(gamma|beta)\d$", name) and not spec.training.learnable_ln:
                continue  # LayerNorm γ, β kept fixed: not trained
            hand += sum(len(r) for r in value) if isinstance(value[0], list) else len(value)
        assert scale.params(scale.of_spec(spec)) == hand == param_count(loaded(path)), path
    assert scale.params(scale.of_spec(load_spec(SEEDS[0]))) == 6 * 2 + 3 * 2 * 2 + 2 * 4 + 4 + 4 * 2 + 2


def test_scale_table_prints_the_formulas_counts():
    text = text_of("tiny-transformer", "tiny-transformer.en.md")
    table = text.split("**Table 13-2 · ", 1)[1].split("\n\n", 2)[1]
    assert "124,439,808" in table and "1,557,611,200" in table and "12,288" in table
    assert re.search(r"\| 46 \|", table)


# ---------------------------------------------------------------- 3. labels and languages

def test_a_two_layer_two_head_document_counts_layers_and_heads_from_one():
    for lang, layer, head in (("en", "(layer {})", "Head {}"), ("zh", "（第 {} 层）", "第 {} 个头")):
        text = text_of("deep", f"deep.{lang}.md")
        tex = text_of("deep", f"deep.{lang}.tex")
        headings = [ln for ln in text.splitlines() if ln.startswith("#")]
        assert any(layer.format(1) in h for h in headings) and any(layer.format(2) in h for h in headings)
        assert not any(layer.format(0) in h for h in headings)
        assert f"#### {head.format(1)}" in text and f"#### {head.format(2)}" in text
        assert f"#### {head.format(0)}" not in text
        for body in (text, tex):
            assert "^{[l0]}" not in body and "^{[0]}" not in body  # parameter labels: layers from 1
            assert "{W_Q}^{[1]}" in body and "{W_Q}^{[2]}" in body
            assert "只有一层" not in body and "one-layer" not in body
        assert "deep-attention-2-2.svg" in text and "deep-attention-0-" not in text
        assert re.search(r"\(layer [12], head 2\)|（第 [12] 层，第 2 个头）", text)  # captions name layer and head


def test_titles_per_language(tmp_path):
    assert text_of("tiny-transformer", "tiny-transformer.en.md").startswith("# From 我爱 to 你\n")
    assert text_of("tiny-transformer", "tiny-transformer.zh.md").startswith("# 从「我爱」到「你」\n")
    assert "\\title{From 我爱 to 你}" in text_of("tiny-transformer", "tiny-transformer.en.tex")
    seed = SEEDS[1].read_text(encoding="utf-8")
    base = re.sub(r"^title = .*\ntitle_en = .*\n", "", seed, flags=re.M)
    cases = {'title = {zh = "甲", en = "A"}\n': ("甲", "A"), 'title = "甲"\ntitle_en = "A"\n': ("甲", "A"),
             'title = "甲"\n': ("甲", "甲")}
    for i, (head, (zh, en)) in enumerate(cases.items()):
        p = tmp_path / f"t{i}.toml"
        p.write_text(head + base, encoding="utf-8")
        assert load_spec(p).titles == {"zh": zh, "en": en}, head
    # the titles reach the documents (one render: the three spellings give the same titles)
    files = render_all([tmp_path / "t0.toml"], ("md",), ("zh", "en"))
    assert files[Path("t0.zh.md")].startswith("# 甲\n") and files[Path("t0.en.md")].startswith("# A\n")
    assert files[Path("t0.en.md")] != files[Path("t0.zh.md")]
    for head, says in (('title = {zh = "甲", en = "A"}\ntitle_en = "B"\n', "title_en: give the English title once"),
                       ('title = {zh = "甲", fr = "A"}\n', "title.fr: unknown key"),
                       ('title = {en = 3}\n', "title.en: expected a string")):
        p = tmp_path / "bad.toml"
        p.write_text(head + base, encoding="utf-8")
        with pytest.raises(SpecError, match=re.escape(says)):
            load_spec(p)


def test_tokens_in_running_text_are_quoted():
    en = text_of("tiny-transformer", "tiny-transformer.en.md")
    zh = text_of("tiny-transformer", "tiny-transformer.zh.md")
    assert "We give the model ‘我爱’ and ask it" in en and "hope for is ‘你’." in en
    assert "我们把 「我爱」 交给模型" in zh or "我们把「我爱」交给模型" in zh
    assert "Greedy picks ‘爱’" in en


def test_no_errata_section_without_a_claims_file():
    for name, t in rendered("deep").items():
        if name.suffix in (".md", ".tex"):
            assert "ERRATA" not in t and "勘误" not in t, name
    assert "## ERRATA" in text_of("tiny-transformer", "tiny-transformer.en.md")
    assert "## 勘误（ERRATA）" in text_of("tiny-transformer", "tiny-transformer.zh.md")
