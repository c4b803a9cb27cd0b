"""python -m symgpt.render: the command, its files, its numbers and its words.

Numbers in the rendered documents are compared with the independent mpmath
oracle (tests/oracle.py), rounded by the reference rounding in conftest.py;
nothing here is pasted from symgpt's own output.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import mpmath
import pytest

from symgpt.render import LANGS, TEMPLATES, render_all
from symgpt.verify import check_file

import hostile
import oracle
import source_prints
from conftest import BIGRAM, SEED, ref_round_decimals
from test_render_cases import ROOT, SEEDS, document, rendered, weird_spec_path

RENDERED = ROOT / "derivations" / "rendered"


def run_cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "symgpt.render", *args], capture_output=True, text=True,
                          env=env, cwd=cwd or ROOT, timeout=600)


def table(text: str, caption: str) -> list:
    """Rows (lists of cell strings) of the Markdown table whose caption contains ``caption``."""
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith("**") and caption in ln:
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]])
            return rows[2:] if rows and set(rows[1][0]) <= set(":- ") else rows
    raise AssertionError(f"no table captioned {caption!r}")


def en(case: str) -> str:
    return next(t for p, t in rendered(case).items() if p.name.endswith(".en.md"))


# ---------------------------------------------------------------- numbers against the oracle

def test_transformer_probabilities_match_the_oracle():
    o = oracle.transformer_forward(oracle.load_spec(SEED), dps=50)
    rows = table(en("tiny-transformer"), "Probabilities of the next token")
    assert len(rows) == 6
    for v, row in enumerate(rows):
        assert row[1] == ref_round_decimals(o["logits"][v], 3)
        assert row[3] == ref_round_decimals(o["p"][v], 3)
    assert "2.467" in en("tiny-transformer")  # the loss, −ln p[你] = 2.4673…
    assert ref_round_decimals(o["loss"], 3) == "2.467"


def test_transformer_attention_and_layernorm_match_the_oracle():
    o = oracle.transformer_forward(oracle.load_spec(SEED), dps=50)
    A = table(en("tiny-transformer"), "Attention weights")
    assert [A[1][1], A[1][2]] == [ref_round_decimals(o["A"][1][s], 3) for s in range(2)]
    Q = table(en("tiny-transformer"), "The matrix $Q$")
    assert Q[1][1:] == [ref_round_decimals(x, 3) for x in o["Q"][1]]
    # the d = 2 LayerNorm: |δ|/√(δ² + ε), printed to 8 significant digits
    h = o["H1"][1]
    with mpmath.workdps(50):
        delta = abs(h[0] - h[1]) / 2
        ratio = delta / mpmath.sqrt(delta ** 2 + mpmath.mpf(1) / 100000)
    assert mpmath.nstr(ratio, 8) in en("tiny-transformer")


def test_bigram_gradients_gradcheck_and_training_match_the_oracle():
    spec = oracle.load_spec(BIGRAM)
    g = oracle.bigram_grads(spec, dps=50)
    text = en("bigram")
    assert ref_round_decimals(g["loss"], 4) in text
    for i in range(2):
        for j in range(3):
            assert ref_round_decimals(g["grad_W"][i][j], 4) in text
    rows = table(text, "Central difference against backpropagation")
    for row, path in zip(rows, [("weights", "W", 0, 2), ("weights", "E", 1, 1)]):
        numeric = oracle.central_difference(lambda s: oracle.bigram_forward(s, 50)["loss"], spec, path,
                                            "1e-5", 50)
        assert row[1] == ref_round_decimals(numeric, 6)
    # SGD, lr 0.5, 20 steps on the one example: the oracle's own loop
    losses = []
    s = spec
    with mpmath.workdps(50):
        for _ in range(20):
            r = oracle.bigram_grads(s, dps=50)
            losses.append(r["loss"])
            s = {**s, "weights": {**s["weights"]}}
            lr = mpmath.mpf(1) / 2
            s["weights"]["W"] = [[oracle.num(s["weights"]["W"][i][j]) - lr * r["grad_W"][i][j] for j in range(3)]
                                 for i in range(2)]
            E = [list(map(oracle.num, row)) for row in s["weights"]["E"]]
            E[1] = [E[1][k] - lr * r["grad_x"][k] for k in range(2)]
            s["weights"]["E"] = E
    rows = table(text, "Loss and target probability")
    for row in rows:
        k = int(row[0])
        assert row[1] == ref_round_decimals(losses[k - 1], 4), row


def test_digits_changes_the_precision():
    out = render_all([SEEDS[1]], formats=("md",), langs=("en",), digits=6)
    text = next(t for p, t in out.items() if p.suffix == ".md")
    o = oracle.bigram_forward(oracle.load_spec(BIGRAM), dps=50)
    assert "**Table 1-1" in text
    assert ref_round_decimals(o["loss"], 6) in text


# ---------------------------------------------------------------- the documents' content

def test_transformer_document_has_every_section_of_the_source():
    text = en("tiny-transformer")
    for heading in ("Set-up", "Vocabulary", "Tokenizer", "Embedding", "Positional encoding",
                    "Self-attention", "LayerNorm (first)", "Feed-forward", "LayerNorm (second)",
                    "Output layer", "Softmax", "Sampling", "Training", "Summary", "ERRATA"):
        assert re.search(r"^## .*" + re.escape(heading), text, re.M), heading
    assert "46 trainable scalars" in text  # the true count (the source prints 18 and 38)
    assert r"\sin{\left(1 \right)}" in text and r"\frac{7}{10} + \sin{\left(1 \right)}" in text
    assert r"\frac{21}{20}" in text  # q_{0,0} = 21/20 exactly
    for figure in ("tiny-transformer-probs.svg", "tiny-transformer-attention.svg"):
        assert f"]({figure})" in text


def test_bigram_document_follows_its_source():
    """Sections numbered as source 004: §0 … §6, with 2.1–2.3 and 3.1–3.2 as sub-sections."""
    text = en("bigram")
    for num, heading in (("§0", "The cast"), ("§1", "Forward pass"), ("§2", "Backpropagation"),
                         ("2.1", "p - y"), ("2.2", "outer product"), ("2.3", "numerically"), ("§3", "update"),
                         ("3.1", "SGD"), ("3.2", "AdamW"), ("§4", "Production extras"), ("4.4", "bfloat16"),
                         ("§5", "script"), ("§6", "Self-check"), ("", "ERRATA")):
        level = "##" if num.startswith("§") or not num else "###"
        assert re.search(rf"^{level} {re.escape(num)}.*" + re.escape(heading), text, re.M), (num, heading)
    assert "](bigram-loss.svg)" in text and "](bigram-probs.svg)" in text
    assert "```python\nimport math\n" in text  # §5's script as a code block
    assert re.search(r"^8\. ", text.split("## §6", 1)[1], re.M)  # §6's numbered questions


def test_errata_list_the_wrong_figures_and_are_left_out_without_claims():
    text = en("tiny-transformer")
    errata = text.split("## ERRATA", 1)[1]
    assert "18, 38 → **46**" in errata  # the source prints 18 and 38 parameters; there are 46
    assert "0.882" in errata  # Q[1,0] is 0.8826…, printed 0.882
    for name, t in rendered("weird").items():  # no claims file: no errata heading, no TOC line
        if name.suffix in (".md", ".tex"):
            assert "ERRATA" not in t and "没有附带原文数字清单" not in t, name


# ---------------------------------------------------------------- words

def _lang(lang):
    with open(TEMPLATES / "lang" / f"{lang}.toml", "rb") as f:
        return tomllib.load(f)


def _strings(L, prefix=""):
    for k, v in L.items():
        if isinstance(v, dict):
            yield from _strings(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def test_both_languages_say_the_same_things():
    zh, en_ = dict(_strings(_lang("zh"))), dict(_strings(_lang("en")))
    assert zh.keys() == en_.keys()
    for key in zh:
        ph = lambda s: sorted(re.findall(r"%\((\w+)\)s", s))
        assert ph(zh[key]) == ph(en_[key]), key


@pytest.mark.parametrize("lang", LANGS)
def test_prose_needs_no_escaping_in_either_format(lang):
    for key, s in _strings(_lang(lang)):
        assert s.count("$") % 2 == 0, key
        outside = re.sub(r"\$[^$]*\$", "", s)
        outside = re.sub(r"%\(\w+\)s", "", outside)
        bad = set(outside) & set("\\{}_^~#&%$*<>|`[]")
        assert not bad, f"{lang}: {key}: {sorted(bad)} outside math"


SOURCE_PRINTS = Path(__file__).parent / "data" / "source-sentences.txt"


def _source_prints() -> list:
    lines = SOURCE_PRINTS.read_text(encoding="utf-8").splitlines()
    return [ln.split() for ln in lines if ln and not ln.startswith("#")]


def test_prose_is_not_pasted_from_the_sources():
    """No sentence of the two source documents appears in our words or templates.

    The sources are not in the repository: tests/data/source-sentences.txt holds a fingerprint
    of each of their sentences (tests/source_prints.py), so this runs on any checkout.
    """
    prints = _source_prints()
    assert len(prints) > 200
    ours = "\n".join(v for lang in LANGS for _, v in _strings(_lang(lang)))
    ours += "\n".join(p.read_text(encoding="utf-8") for p in TEMPLATES.rglob("*.j2"))
    seen = source_prints.windows(ours)
    pasted = [fp for fp in prints if set(fp) <= seen]
    assert not pasted, f"{len(pasted)} source sentences appear in templates/ (fingerprints {pasted[:3]})"


def test_the_pasted_prose_check_can_fail():
    """Control: a source sentence of our own making, pasted into a template's text, is found."""
    sentence = "我们把这一句话原样抄进模板里看看能不能被找到"
    [fp] = source_prints.prints([f"前言。{sentence}。"])
    assert set(fp) <= source_prints.windows("模板开头\n" + sentence + "，然后继续")
    assert not set(fp) <= source_prints.windows("模板开头\n" + sentence[:-3] + "被发现，然后继续")


# ---------------------------------------------------------------- the command

def test_help_is_complete():
    o = hostile.render("--help")
    assert o.code == 0 and o.err == ""
    for flag in ("SPEC", "--format", "md|tex|pdf|claims|html|all", "claims.toml", "--lang", "zh|en", "--digits",
                 "--out", "latexmk"):
        assert flag in o.out


def test_smoke_the_real_command(tmp_path):
    """The one fast subprocess run of ``python -m symgpt.render`` (messages are checked in-process):
    exit 0, the written files listed on stdout, nothing on stderr (a pipe gets no progress)."""
    r = run_cli("bigram", "--format", "md", "--lang", "en", "--out", str(tmp_path / "out"))
    assert (r.returncode, r.stderr) == (0, "")
    names = ["bigram-loss.svg", "bigram-precision.svg", "bigram-probs.svg", "bigram.en.md"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == names
    assert r.stdout.split() == [str(tmp_path / "out" / n) for n in names]
    assert (tmp_path / "out" / "bigram.en.md").read_text(encoding="utf-8").startswith("# ")


@pytest.mark.slow
def test_default_run_of_the_real_command(tmp_path):
    """No arguments renders derivations/*, md + tex, zh, into ./out, and lists what it wrote."""
    r = run_cli(cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    for spec in ("tiny-transformer", "bigram"):
        assert f"{spec}.zh.md" in names and f"{spec}.zh.tex" in names
        assert f"{spec}.en.md" not in names
    assert "tiny-transformer-attention.svg" in names
    assert sorted(r.stdout.split()) == sorted(os.path.join("out", n) for n in names)


@pytest.mark.slow
def test_output_is_byte_identical_from_run_to_run(tmp_path):
    """Two processes with different hash seeds (so a subprocess each) write the same bytes."""
    outs = []
    for seed, name in (("1", "a"), ("2", "b")):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = run_cli("--lang", "all", "--out", str(tmp_path / name), env=env)
        assert r.returncode == 0, r.stderr
        outs.append({p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())})
    assert outs[0] == outs[1]
    assert len(outs[0]) >= 12


@pytest.mark.parametrize("args,says", [
    (["no-such-spec"], "no such derivation"),
    (["bigram", "--format", "docx"], "--format"),
    (["bigram", "--lang", "fr"], "--lang"),
    (["bigram", "--digits", "-1"], "--digits"),
    (["bigram", "--digits", "many"], "--digits"),
])
def test_bad_input_is_one_error_line_exit_2_and_nothing_written(tmp_path, args, says):
    hostile.assert_refused(hostile.render(*args, "--out", str(tmp_path / "out")), says)
    assert not (tmp_path / "out").exists()


def test_pdf_without_tex_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no latexmk, no xelatex on PATH
    line = hostile.assert_refused(hostile.render("bigram", "--format", "pdf", "--out", str(tmp_path / "out")),
                                  "xelatex", "apt-get install", "texlive-xetex")
    assert line.startswith("error: ")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- committed examples

REFRESH = ("python -m symgpt.render tiny-transformer bigram --format md,claims,html --lang all "
           "--out derivations/rendered")


def _spec_line(text: str, spec: str) -> str:
    """A claims file with its ``spec = …`` line (the only line that depends on --out) set to ``spec``."""
    lines = text.split("\n")
    [i] = [i for i, ln in enumerate(lines) if ln.startswith("spec = ")]
    lines[i] = f"spec = {spec}"
    return "\n".join(lines)


def test_committed_rendered_examples_are_fresh():
    """derivations/rendered/ holds the Markdown and self-claims of both seeds; re-render after changing anything.

    The fresh files are the session's shared render (test_render_cases.rendered, made with no --out);
    a claims file names its spec relative to --out, so that one line is compared on its own.
    """
    fresh = {p.name: t for case in ("tiny-transformer", "bigram") for p, t in rendered(case).items()
             if p.suffix in (".md", ".svg", ".toml")}
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in RENDERED.iterdir()
               if p.is_file() and p.suffix not in (".html", ".png")}  # the pages: tests/test_html.py (slow)
    assert set(fresh) == set(on_disk), f"regenerate: {REFRESH}"
    for name, text in on_disk.items():
        if name.endswith(".claims.toml"):
            spec = tomllib.loads(text)["spec"]
            assert spec == f"../{name.split('.')[0]}.toml", name  # relative to derivations/rendered/
            assert (RENDERED / spec).resolve() == (ROOT / "derivations" / f"{name.split('.')[0]}.toml").resolve()
            fresh[name] = _spec_line(fresh[name], f'"{spec}"')
    stale = [n for n, t in fresh.items() if on_disk[n] != t]
    assert not stale, f"stale: {stale}; regenerate with {REFRESH}"


def test_committed_examples_pass_verify():
    """Every figure and every worked equation of the committed documents holds (verify exits 0)."""
    files = sorted(RENDERED.glob("*.claims.toml"))
    assert len(files) == 4
    for f in files:
        verdicts = check_file(f)
        assert verdicts and all(v.ok for v in verdicts), [(v.where, v.printed, v.cause) for v in verdicts if not v.ok]


@pytest.mark.parametrize("case", ["bigram", pytest.param("tiny-transformer", marks=pytest.mark.slow)])
def test_the_shared_render_is_what_render_all_writes(case):
    """test_render_cases.rendered lays out a shared document with render's own functions;
    for each seed it is byte for byte what render_all returns (so the freshness check of the
    committed examples, which reads the shared render, checks what the command writes)."""
    spec = next(p for p in SEEDS if p.stem == case)
    assert rendered(case) == render_all([spec], formats=("md", "tex", "claims"), langs=("zh", "en"))


def test_weird_spec_renders_in_every_format_in_memory():
    files = rendered("weird")
    assert {p.suffix for p in files} == {".md", ".tex", ".svg", ".toml"}
    assert {p.name for p in files if p.suffix == ".toml"} == {"weird.zh.claims.toml", "weird.en.claims.toml"}
    assert weird_spec_path().exists()


def test_a_two_layer_two_head_spec_grows_its_tables():
    text = next(t for p, t in rendered("deep").items() if p.name == "deep.en.md")
    headings = [ln for ln in text.splitlines() if ln.startswith("## §")]
    assert sum("Self-attention (layer " in h for h in headings) == 2  # layers named from 1
    assert any(h.endswith("(layer 2)") for h in headings) and not any("(layer 0)" in h for h in headings)
    assert "#### Head 1" in text
    assert "deep-attention-1-1.svg" in text
    H0 = table(text, "Input of the first block")
    assert len(H0) == 3 and all(len(r) == 5 for r in H0)  # T = 3 rows, d = 4 columns


def test_an_untied_spec_with_an_output_projection_renders(tmp_path):
    """tied = false (W_out) and W_O: no head-only update exists, the rest of the document does."""
    path = tmp_path / "untied.toml"
    path.write_text(oracle.random_spec_toml(seed=3, V=5, d=2, heads=1, d_ff=3, layers=1, T=2,
                                            tied=False, W_O=True), encoding="utf-8")
    files = render_all([path], ("md", "tex"), ("en",))
    text = files[Path("untied.en.md")]
    r = oracle.transformer_forward(oracle.load_spec(path), dps=40)
    loss = ref_round_decimals(r["loss"], 3)
    assert f"| $\\mathcal{{L}}$ | {loss} |" in text


def test_sections_carry_anchors_and_the_document_maps_quantities_to_them():
    """doc["anchors"]: canonical name → the anchor of the first section printing it; links #sec-<anchor> resolve."""
    doc = document("tiny-transformer")
    a = doc["anchors"]
    assert a["E[4,0]"] == "embed" and a["Q[1,0]"] == "attention" and a["p[4]"] == "softmax"
    assert a["sgd[1].loss"] == "train" and "exp(S[1,0])" not in a
    # functions whose values a section prints: the parameter count (§0), the sampling tables
    assert a["params"] == "setup" and a["softmax_T"] == a["topk"] == "sample"
    text = en("tiny-transformer")
    for anchor in set(a.values()):
        assert f'<a id="sec-{anchor}"></a>' in text
    tex = next(t for p, t in rendered("tiny-transformer").items() if p.name.endswith(".en.tex"))
    assert r"\label{sec:attention}" in tex
    deep = document("deep")
    anchors = [s["anchor"] for s in deep["sections"]]
    assert len(anchors) == len(set(anchors)) and "attention-2" in anchors
