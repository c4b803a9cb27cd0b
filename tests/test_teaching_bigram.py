"""The bigram document's teaching material (issue 10): sections as the source numbers them,
§4's production extras against independent computations, §6's self-check facts.

References: the pure-mpmath oracle (tests/oracle.py) for each example's forward and
backward pass, mpmath's cos and π for the schedule, PyTorch bfloat16 (tests/test_lowprec.py)
for the bf16 first step.
"""
from __future__ import annotations

import copy
import re
import tomllib
from fractions import Fraction

import mpmath
import pytest

from symgpt.core.errors import InputError
from symgpt.documents.document import build
from symgpt.engine.spec import load_spec

import oracle
from conftest import BIGRAM, ROOT, derivation_of, ref_round_decimals, ref_round_significant, write_spec
from test_render_cases import document, rendered

RENDERED = ROOT / "derivations" / "rendered"
mp = mpmath.mp


# ---------------------------------------------------------------- section numbers

def headings(md: str) -> set:
    """The section numbers a Markdown document has headings for: '0', '2', '2.1' …"""
    return set(re.findall(r"^## §(\d+) ", md, re.M)) | set(re.findall(r"^### (\d+\.\d+) ", md, re.M))


def test_every_section_the_claims_file_cites_exists_in_both_languages():
    claims = tomllib.loads((ROOT / "derivations" / "bigram.claims.toml").read_text(encoding="utf-8"))
    cited = {m for c in claims["claim"] for m in re.findall(r"§(\d+(?:\.\d+)?)", c["where"])}
    assert {"0", "1", "2.1", "2.2", "2.3", "3.1", "3.2", "4", "5", "6"} <= cited
    for lang in ("zh", "en"):
        md = (RENDERED / f"bigram.{lang}.md").read_text(encoding="utf-8")
        assert cited <= headings(md), (lang, sorted(cited - headings(md)))


def test_fresh_render_has_the_sources_sections():
    files = rendered("bigram")  # the session's shared render of the bigram
    assert sum(p.suffix == ".md" for p in files) == 2
    for p, text in files.items():
        if p.suffix == ".md":
            assert {"0", "1", "2", "2.1", "2.2", "2.3", "3", "3.1", "3.2", "4", "4.1", "4.2", "4.3", "4.4", "5",
                    "6"} <= headings(text), p


# ---------------------------------------------------------------- §4 against the oracle

@pytest.fixture(scope="module")
def doc():
    return document("bigram")  # built once per session (with its errata), shared read-only


def table(doc, key):
    return next(st for sec in doc["sections"] for st in sec["steps"] if st["kind"] == "table" and st["key"] == key)


def example(spec, inp, tgt):
    s = copy.deepcopy(spec)
    s["data"] = {"input": [inp], "target": tgt}
    return oracle.bigram_grads(s, dps=50)


def mean_gradient(spec, batch):
    """Mean loss and gradient over the batch, by the oracle, keyed like the engine's parameters."""
    with mp.workdps(50):
        out = {}
        for inp, tgt in batch:
            g = example(spec, inp, tgt)
            vals = {"loss": g["loss"]}
            vals.update({f"W[{i},{j}]": g["grad_W"][i][j] for i in range(len(g["grad_W"]))
                         for j in range(len(g["grad_W"][0]))})
            vals.update({f"E[{v},{j}]": g["grad_E"][v][j] for v in range(len(g["grad_E"]))
                         for j in range(len(g["grad_E"][0]))})
            for k, x in vals.items():
                out[k] = out.get(k, 0) + x / len(batch)
        return out


def test_batch_table_is_the_mean_of_the_examples(doc):
    spec = oracle.load_spec(BIGRAM)
    batch = [("吃", "鱼"), ("猫", "吃")]  # the default batch: [data], then the first other token → the input
    assert [[c["v"] for c in r[1:]] for r in table(doc, "bigram_extras.pairs_cap")["rows"]] == [list(b) for b in batch]
    t = table(doc, "bigram_extras.batch_cap")
    singles = [mean_gradient(spec, [pair]) for pair in batch]
    mean = mean_gradient(spec, batch)
    names = ["loss"] + [f"W[{i},{j}]" for i in range(2) for j in range(3)] + [f"E[{v},{j}]" for v in (0, 1)
                                                                             for j in range(2)]
    assert len(t["rows"]) == len(names)
    for name, row in zip(names, t["rows"]):
        got = [c["v"] for c in row[1:]]
        want = [ref_round_decimals(s[name], 4) for s in singles] + [ref_round_decimals(mean[name], 4)]
        assert got == want, name
    assert t["rows"][3][-1]["v"] == "-0.0826"  # ½(x₀(p₂ − 1) + 0.1 · p(鱼 | 猫)), by hand ≈ ½(−0.1952 + 0.0299)


def norm(g):
    return mpmath.sqrt(sum(v ** 2 for k, v in g.items() if k != "loss"))


def test_seed_gradient_is_below_the_clip_so_the_coefficient_is_one(doc):
    spec = oracle.load_spec(BIGRAM)
    with mp.workdps(50):
        n = norm(mean_gradient(spec, [("吃", "鱼"), ("猫", "吃")]))
    assert n < 1
    sec = next(s for s in doc["sections"] if s["id"] == "bigram_extras")
    clip = next(st for st in sec["steps"] if st["kind"] == "math" and "operatorname{min}" in st["lines"][0])
    assert f"= {ref_round_decimals(n, 4)}," in clip["lines"][0] and clip["lines"][0].endswith("= 1")


def test_a_tight_clip_scales_every_entry_by_one_coefficient(tmp_path):
    text = BIGRAM.read_text(encoding="utf-8").replace("clip = 1.0", "clip = 0.1")
    doc = build(derivation_of(write_spec(tmp_path, text, "bigram.toml")))
    spec = oracle.loads_spec(text)
    with mp.workdps(50):
        g = mean_gradient(spec, [("吃", "鱼"), ("猫", "吃")])
        coef = mpmath.mpf("0.1") / (norm(g) + mpmath.mpf("1e-6"))  # torch clip_grad_norm_
        t = table(doc, "bigram_extras.clip_cap")
        names = [f"W[{i},{j}]" for i in range(2) for j in range(3)]
        for name, row in zip(names, t["rows"]):
            assert [row[1]["v"], row[2]["v"]] == [ref_round_decimals(g[name], 4), ref_round_decimals(g[name] * coef, 4)]
    said = next(st for sec in doc["sections"] for st in sec["steps"] if st.get("key") == "bigram_extras.clip_cut")
    assert said["args"]["coef"]["v"] == ref_round_decimals(coef, 6)


def test_schedule_table_is_warm_up_then_cosine():
    t = table(document("bigram"), "bigram_extras.schedule_cap")
    lr, lo, w, T = mpmath.mpf("0.001"), mpmath.mpf("0.0001"), 2, 10
    with mp.workdps(40):
        for row in t["rows"]:
            step = int(row[0]["v"])
            if step < w:
                want = lr * (step + 1) / (w + 1)
            elif step <= T:
                want = lo + (1 + mpmath.cos(mpmath.pi * (step - w) / (T - w))) / 2 * (lr - lo)
            else:
                want = lo
            assert row[1]["v"] == ref_round_significant(want, 3), step
    assert [r[0]["v"] for r in t["rows"]] == [str(k) for k in range(12)]


def test_bf16_table_against_torch_and_the_oracle(doc):
    torch_step = pytest.importorskip("test_lowprec")._torch_step
    spec = oracle.load_spec(BIGRAM)
    r = torch_step([[float(v) for v in row] for row in spec["weights"]["E"]],
                   [[float(v) for v in row] for row in spec["weights"]["W"]], 1, 2, 0.5)
    g = oracle.bigram_grads(spec, dps=50)
    with mp.workdps(50):
        new_W02 = mpmath.mpf("0.1") - mpmath.mpf("0.5") * g["grad_W"][0][2]
        new_E = [mpmath.mpf(e) - mpmath.mpf("0.5") * gx for e, gx in zip(("0.3", "-0.1"), g["grad_x"])]
        want = ([(g["z"][v], r["z"][v]) for v in range(3)] + [(g["p"][v], r["p"][v]) for v in range(3)]
                + [(g["loss"], r["loss"])] + [(g["grad_z"][v], r["grad_z"][v]) for v in range(3)]
                + [(g["grad_W"][0][2], r["grad_W"][0][2])] + [(g["grad_x"][j], r["grad_x"][j]) for j in range(2)]
                + [(new_W02, r["W_new"][0][2])] + [(new_E[j], r["E_row_new"][j]) for j in range(2)])
        t = table(doc, "bigram_extras.bf16_cap")
        assert len(t["rows"]) == len(want)
        for row, (exact, low) in zip(t["rows"], want):
            assert row[1]["v"] == ref_round_decimals(exact, 6)
            assert row[2]["v"] == ref_round_decimals(low, 6)
            assert row[3]["v"] == ref_round_significant(mpmath.mpf(low.numerator) / low.denominator - exact, 2)
    assert t["rows"][6][2]["v"] == "1.046875"  # the bf16 loss, an exact dyadic number: 1 + 3/64


# ---------------------------------------------------------------- §6

def test_self_check_facts(doc):
    sec = next(s for s in doc["sections"] if s["id"] == "bigram_selfcheck")
    entries = {e["key"].split(".")[1]: e["args"] for st in sec["steps"] if st["kind"] == "items"
               for e in st["entries"]}
    assert len(entries) == 8
    g = oracle.bigram_grads(oracle.load_spec(BIGRAM), dps=50)
    assert all(v == 0 for r in (0, 2) for v in g["grad_E"][r])  # the rows of 猫 and 鱼
    assert entries["zero_rows"]["others"]["v"] == ["猫", "鱼"] and entries["zero_rows"]["zero"]["v"] == "0"
    assert entries["cost"]["passes"]["v"] == "24" and entries["cost"]["count"]["v"] == "12"
    with mp.workdps(50):
        a = abs(g["grad_W"][0][2])
        assert entries["adamw"]["ratio"]["v"] == ref_round_decimals(a / (a + mpmath.mpf("1e-8")), 8)
        assert entries["adamw"]["sgd"]["v"] == ref_round_decimals(a / 1000, 7)
    assert entries["decay"]["share"]["v"] == "0.000100"  # η·λ = 10⁻³ · 0.1 of θ per step


# ---------------------------------------------------------------- [extras] in the spec

@pytest.mark.parametrize("extras,message", [
    ("bach = []", "extras.bach: unknown key; did you mean batch?"),
    ('batch = [["吃"]]', "extras.batch[0]: expected an [input, target] pair of tokens, got a list of 1"),
    ('batch = [["吃", "狗"]]', 'extras.batch[0][1]: unknown token "狗"'),
    ("batch = []", "extras.batch: expected a list of 1 to 6 [input, target] pairs"),
    ("warmup = 5\ndecay_steps = 5", "extras.decay_steps: expected an integer in 6..40"),
    ("clip = 0", "extras.clip: expected a number > 0, got 0"),
])
def test_extras_are_validated_in_the_house_style(tmp_path, extras, message):
    text = BIGRAM.read_text(encoding="utf-8").split("[extras]")[0] + "[extras]\n" + extras + "\n"
    with pytest.raises(InputError) as e:
        load_spec(write_spec(tmp_path, text))
    assert message in str(e.value)


def test_a_transformer_refuses_extras(tmp_path):
    text = (ROOT / "derivations" / "tiny-transformer.toml").read_text(encoding="utf-8") + "\n[extras]\nclip = 1\n"
    with pytest.raises(InputError, match='extras: only a bigram has this key, and model.kind is "transformer"'):
        load_spec(write_spec(tmp_path, text))


def test_an_explicit_batch(tmp_path):
    text = BIGRAM.read_text(encoding="utf-8") + 'batch = [["鱼", "猫"], ["吃", "鱼"], ["猫", "猫"]]\n'
    doc = build(derivation_of(write_spec(tmp_path, text, "bigram.toml")))
    spec = oracle.load_spec(BIGRAM)
    mean = mean_gradient(spec, [("鱼", "猫"), ("吃", "鱼"), ("猫", "猫")])
    rows = table(doc, "bigram_extras.batch_cap")["rows"]
    assert rows[0][-1]["v"] == ref_round_decimals(mean["loss"], 4)
    assert [r[-1]["v"] for r in rows[1:7]] == [ref_round_decimals(mean[f"W[{i},{j}]"], 4) for i in range(2)
                                              for j in range(3)]
    assert len(rows) == 1 + 6 + 6  # W, then the rows of E of all three inputs


def test_extras_default_when_absent(tmp_path):
    text = BIGRAM.read_text(encoding="utf-8").split("[extras]")[0]
    s = load_spec(write_spec(tmp_path, text))
    assert s.extras.batch == (((1,), 2), ((0,), 1)) and s.extras.clip == 1
    assert (s.extras.warmup, s.extras.decay_steps, s.extras.min_lr) == (2, 10, Fraction(1, 10000))


def test_logits_beyond_bf16_get_a_note_instead_of_a_table(tmp_path):
    text = BIGRAM.read_text(encoding="utf-8").replace("W = [[0.5, -0.3, 0.1], [0.2, 0.4, -0.5]]",
                                                      "W = [[300, -0.3, 0.1], [0.2, 0.4, -0.5]]")
    text = text.replace('params = ["W[0,2]", "E[1,1]"]', "params = []")  # (§2.3's 200-bit check is not for such logits)
    doc = build(derivation_of(write_spec(tmp_path, text, "bigram.toml")))
    sec = next(s for s in doc["sections"] if s["id"] == "bigram_extras")
    keys = [st.get("key") for st in sec["steps"]]
    assert "bigram_extras.bf16_overflow" in keys and "bigram_extras.bf16_cap" not in keys
    z0 = mpmath.mpf("0.3") * 300 - mpmath.mpf("0.1") * mpmath.mpf("0.2")  # 89.98
    assert mpmath.exp(z0) > mpmath.mpf(2) ** 128  # past bfloat16's largest number, (2 − 2⁻⁷)·2¹²⁷
