"""check's readings from round 59 of the held-out tutorials (issue 27), each on texts written here in more than one
notation, language or format:

* a derivative whose denominator carries two braced groups (``\\frac{\\partial L}{\\partial S^{(2)}_{3,1}}``), and
  LaTeX's bracket sizes (``\\big(`` … ``\\big)``) inside a chain, whose result is then judged on its operands;
* a name that no figure confirms counts its indices from the origin that places them (``∂L/∂S_{3,1}`` at T = 3
  counts from 1, where the rest of the document counts from 0), and one entry printed again is one figure;
* a sampling table of the model after training steps (``sgd[3].softmax_T``) and its logits; steps headed in Thai
  and Persian ('ขั้นที่ 3', 'گام 3'), and an update whose entry is not printed;
* an AdamW table whose columns are entries in words ('W_Q, entry (1,2)') over rows θ0, g, m1, …, a PDF's rows set
  apart by blank lines, and a row label printed twice;
* keys and queries in more languages; ``(\\sigma^f)^2``; a table's index column and a column 'after' alone; 'is' in
  more languages and a Linear weight's entry named in prose; one gradient under the names of a sum.

Every expected value is computed here with PyTorch float64 (``tests/torch_oracle.py``) or mpmath, never by symgpt.
"""
from __future__ import annotations

import re

import mpmath as mp
import pytest

import oracle
import torch_oracle
from conftest import write_spec
from test_ball_sampling import THAI, _shares, _trained
from test_check_authors import _verdicts
from test_check_round55 import _flip, _torch_run, f4
from test_check_vocabulary import _results


def _backward(toml: str, tmp_path):
    """(the spec's path, every forward quantity, every forward quantity's gradient) from PyTorch float64."""
    return _torch_run(toml, tmp_path, of="quantities")


def f5(x) -> str:
    s = f"{float(x):.5f}"
    assert abs(abs(float(x)) * 1e5 % 1 - 0.5) > 0.01
    return s


TWO_HEADS = oracle.random_spec_toml(seed=68, V=5, d=4, heads=2, d_ff=8, layers=1, T=3)

BRACED = {
    "md": ("doc.md", "Ví dụ với đầu 2, khóa 1:\n\n$$\\frac{{\\partial L}}{{\\partial S^{{(2)}}_{{3,1}}}} = {g}$$\n"),
    "html": ("doc.html", "<html><body><p>For head 2 and key 1, "
                         "\\(\\dfrac{{\\partial L}}{{\\partial S^{{(2)}}_{{3,1}}}} = {g}\\).</p></body></html>"),
}


@pytest.mark.parametrize("style", sorted(BRACED))
def test_a_derivative_over_a_name_with_two_braced_groups(tmp_path, style):
    """∂L/∂S^{(2)}_{3,1} as a \\frac whose denominator has a superscript and a subscript in braces: head 2's score
    gradient at query 3, key 1 (from 1), so its sign flip is wrong as grad_S[1,2,0] (before: the \\frac was left
    unread, and the figure named nothing)."""
    path, _, g = _backward(TWO_HEADS, tmp_path)
    flipped = _flip(f5(g["S"][1, 2, 0]))
    name, text = BRACED[style]
    got = _verdicts(_results(tmp_path, text.format(g=flipped), path, name))
    assert got[flipped][:3] == ("wrong", "grad_S[1,2,0]", "sign flip"), got[flipped]


SIZED = {
    "big": "$$\\frac{{\\partial L}}{{\\partial S^{{(2)}}_{{3,1}}}} = {a} \\times \\big({b} - ({c})\\big) = {r}$$",
    "Bigl": "$$\\partial L/\\partial S^{{(2)}}_{{3,1}} = {a} \\cdot \\Bigl({b} - ({c})\\Bigr) = {r}$$",
    "left": "$$\\partial L/\\partial S^{{(2)}}_{{3,1}} = {a} \\times \\left({b} - ({c})\\right) = {r}$$",
}


@pytest.mark.parametrize("style", sorted(SIZED))
def test_a_chain_in_sized_brackets_is_judged_on_its_operands(tmp_path, style):
    """α(∂L/∂α − ḡ) written with \\big( … \\big): the result, rounded from the printed α, ∂L/∂α and ḡ, is carried
    rounding of grad_S, and both its printings, the chain and the restated entry, are read as grad_S[1,2,0] (before:
    \\big broke the chain, so the result was a plain slip, and three printings of one wrong entry named nothing)."""
    path, q, g = _backward(TWO_HEADS, tmp_path)
    a, b = round(float(q["A"][1, 2, 0]), 4), round(float(g["A"][1, 2, 0]), 5)
    c = round(float((q["A"][1, 2] * g["A"][1, 2]).sum()), 5)
    carried = f"{a * (b - c):.5f}"
    assert carried != f5(g["S"][1, 2, 0])           # the printed operands carry their rounding into the result
    line = SIZED[style].format(a=f4(q["A"][1, 2, 0]), b=f5(g["A"][1, 2, 0]), c=f5(c), r=carried)
    text = f"Head 2, key 1:\n\n{line}\n\nSo $\\partial L/\\partial S^{{(2)}}_{{3,1}} = {carried}$ again.\n"
    results = _results(tmp_path, text, path)
    wrong = [(r.verdict, r.ref, r.cause) for r in results if (r.number.printed or r.number.text) == carried]
    assert len(wrong) == 2 and wrong[0] == ("wrong", "grad_S[1,2,0]", "carried rounding"), wrong
    assert wrong[1][:2] == ("wrong", "grad_S[1,2,0]"), wrong      # (restated: no operands to carry from)


ORIGIN = {
    "en": "Row 2 of Q is ({q0}, {q1}, …): Q[2,0] = {q0}, Q[2,1] = {q1}, and K[1,1] = {k}.\n\n"
          "The score's gradient at the last query and the first key: ∂L/∂S_{{3,1}} = {g}.\n",
    "de": "Zeile 2 von Q: Q[2,0] = {q0}, Q[2,1] = {q1}; außerdem K[1,1] = {k}.\n\n"
          "Gradient des Scores (letzte Anfrage, erster Schlüssel): ∂L/∂S_{{3,1}} = {g}.\n",
}


@pytest.mark.parametrize("lang", sorted(ORIGIN))
def test_an_origin_that_cannot_place_a_name_is_not_forced_on_it(tmp_path, lang):
    """The document counts Q's and K's indices from 0 (their figures agree so), but ∂L/∂S_{3,1} at T = 3 cannot
    count from 0 (there is no position 3): it counts from 1, and its flipped figure is wrong as grad_S[2,0] (before:
    the document's origin was forced on it, no entry was found, and the figure named nothing)."""
    toml = oracle.random_spec_toml(seed=59, V=5, d=4, heads=1, d_ff=8, layers=1, T=3)
    path, q, g = _backward(toml, tmp_path)
    flipped = _flip(f5(g["S"][2, 0]))
    text = ORIGIN[lang].format(q0=f4(q["Q"][2, 0]), q1=f4(q["Q"][2, 1]), k=f4(q["K"][1, 1]), g=flipped)
    got = _verdicts(_results(tmp_path, text, path))
    assert got[flipped][:3] == ("wrong", "grad_S[2,0]", "sign flip"), got[flipped]
    assert got[f4(q["Q"][2, 1])][:2] == ("matched", "Q[2,1]")


TRAINED_TABLE = {
    "th": ("doc.html", "<h2>สุ่มคำจากโมเดลที่ฝึกแล้ว</h2>\n<p>ฝึกด้วย SGD สามขั้น อัตราการเรียนรู้ 0.5</p>\n"
                       "<table>\n<caption>การแจกแจงหลังขั้นที่ 3 ที่อุณหภูมิ T = 0.7"
                       "</caption>\n<tr><th>คำ</th><th>z</th><th>ความน่าจะเป็น p<sup>(T)</sup></th></tr>\n{rows}\n"
                       "</table>\n", "<tr><td>{t}</td><td>{z}</td><td>{p}</td></tr>"),
    "en": ("doc.md", "## Sampling from the trained model\n\nWe trained by SGD (learning rate 0.5). After step 3, at "
                     "temperature T = 0.7:\n\n"
                     "| token | z | p^(T) |\n|---|---|---|\n{rows}\n", "| {t} | {z} | {p} |"),
}


@pytest.mark.parametrize("lang", sorted(TRAINED_TABLE))
def test_a_table_sampled_after_training(tmp_path, lang):
    """A table of the logits and the shares at T = 0.7 after the third SGD step: each z is sgd[3].z, each share
    sgd[3].softmax_T(0.7, ·), and a slipped share is wrong as that (before: no candidate was of the trained model's
    sampling, nor of its logits after step 2, so the table was unmatched, and 'step 3' in Thai named no step)."""
    path, _, z = _trained(tmp_path)
    hot = _shares(z[3], 0.7)
    name, text, row = TRAINED_TABLE[lang]
    wrong = f4(hot[4] + 0.0003)
    rows = [row.format(t=t, z=f4(z[3][v]), p=wrong if v == 4 else f4(hot[v])) for v, t in enumerate(THAI)]
    got = _verdicts(_results(tmp_path, text.format(rows="\n".join(rows)), path, name))
    assert got[wrong][:2] == ("wrong", "sgd[3].softmax_T(0.7, บ้าน)"), got[wrong]
    assert got[f4(hot[2])][:2] == ("matched", "sgd[3].softmax_T(0.7, ปลา)"), got[f4(hot[2])]
    assert got[f4(z[3][0])][:2] == ("matched", "sgd[3].z[แมว]"), got[f4(z[3][0])]


STEP_HEADINGS = {
    "th": "# ฝึกด้วย SGD\n\n### ขั้นที่ 2\n\nW_{{0,ปลา}} ← {w1} − 0.5 × ({g1}) = {w2}\n\n"
          "หลังขั้นที่ 2 ได้ p_ปลา = {p2}\n\n### ขั้นที่ 3\n\nW_{{0,ปลา}} ← W_{{0,ปลา}} − 0.5 × ({g2}) = {w3}\n\n"
          "หลังขั้นที่ 3 ได้ p_ปลา = {p3}\n",
    "fa": "# آموزش با SGD\n\n## گام 2\n\nW_{{0,ปลา}} ← {w1} − 0.5 × ({g1}) = {w2}\n\n"
          "پس از گام 2، p_ปลา = {p2}\n\n## گام 3\n\nW_{{0,ปลา}} ← W_{{0,ปลา}} − 0.5 × ({g2}) = {w3}\n\n"
          "پس از گام 3، p_ปลา = {p3}\n",
}


@pytest.mark.parametrize("lang", sorted(STEP_HEADINGS))
def test_a_step_headed_in_thai_or_persian(tmp_path, lang):
    """'ขั้นที่ 3' and 'گام 3' head the third step's section: an update there is sgd[3]'s (a slipped one is wrong as
    sgd[3].W, not as sgd[1].W), and p after it is sgd[k].p (before: the heading named no step, so the update was
    judged against the first step, and p against the untrained model: false alarms)."""
    import numpy as np
    path, records, z = _trained(tmp_path)
    W = [np.array(r["params"]["W"]) for r in records]
    x = np.array(records[0]["params"]["E"])[THAI.index("กิน")]
    grads = [(W[k - 1][0, 2] - W[k][0, 2]) / 0.5 for k in (2, 3)]      # the step's own gradient, from torch's states
    assert abs(grads[0] - x[0] * (_shares(z[1])[2] - 1)) > 0   # (a real step: torch's states differ)
    slipped = f4(W[3][0, 2] + 0.0011)
    text = STEP_HEADINGS[lang].format(w1=f4(W[1][0, 2]), g1=f4(grads[0]), w2=f4(W[2][0, 2]),
                                      p2=f4(_shares(z[2])[2]), g2=f4(grads[1]), w3=slipped, p3=f4(_shares(z[3])[2]))
    got = _verdicts(_results(tmp_path, text, path))
    assert got[slipped][:2] == ("wrong", "sgd[3].W[0,ปลา]"), got[slipped]
    assert got[f4(_shares(z[2])[2])][:2] == ("matched", "sgd[2].p[ปลา]"), got[f4(_shares(z[2])[2])]
    assert got[f4(_shares(z[3])[2])][:2] == ("matched", "sgd[3].p[ปลา]"), got[f4(_shares(z[3])[2])]


ENTRY_COLUMNS = {
    # plain text as a PDF's text gives it: each row set apart by a blank line, the subscripts flattened (m1, θ0)
    "txt": ("doc.txt", "Table 4: the first AdamW step for two entries (six decimals).\n\n"
                       "                 W_Q, entry (1,2)      E, entry ({w},1)\n\n{rows}\n",
            "   {s:<12}  {a:>14}  {b:>18}\n", ("θ0", "g", "m1", "v1", "m̂1", "v̂1", "θ1")),
    "md": ("doc.md", "## The first AdamW step\n\n| | $W_Q$, entry (1,2) | $E$, Eintrag ({w},1) |\n|---|---:|---:|\n"
                     "{rows}\n", "| ${s}$ | {a} | {b} |",
           ("\\theta_0", "g", "m_1", "v_1", "\\hat m_1", "\\hat v_1", "\\theta_1")),
}


def _adamw_entries(tmp_path):
    """A one-block model (d 4) after one AdamW step (lr 0.01, λ 0.01), and two entries' states by hand (mpmath from
    PyTorch's gradients): (path, vocab, the input's token, each entry's θ0, g, m1, v1, m̂1, v̂1, θ1, and those as
    printed: six decimals, v and v̂ in powers of ten)."""
    from test_check_round57 import ADAMW
    toml = oracle.random_spec_toml(seed=5, V=6, d=4, heads=1, d_ff=8, layers=1, T=3) + ADAMW
    path, _, g = _torch_run(toml, tmp_path)
    spec = oracle.load_spec(str(path))
    vocab = spec["model"]["vocab"]
    w = vocab.index(spec["data"]["input"][0])
    cols = []
    for theta, grad in ((spec["layer"][0]["W_Q"][0][1], g["W_Q"][0][1]), (spec["weights"]["E"][w][0], g["E"][w][0])):
        with mp.workdps(50):
            gg, th = mp.mpf(float(grad)), mp.mpf(theta.numerator) / theta.denominator
            new = th - mp.mpf("0.01") * mp.mpf("0.01") * th - mp.mpf("0.01") * gg / (abs(gg) + mp.mpf("1e-8"))
            cols.append([th, gg, gg / 10, gg ** 2 / 1000, gg, gg ** 2, new])
    cells = [[f"{float(c[k]):.6f}" if k not in (3, 5) else f"{float(c[k]):.4e}" for c in cols] for k in range(7)]
    return path, vocab, w, cols, cells


def test_a_row_label_printed_twice_in_one_table_names_neither(tmp_path):
    """A PDF's text may lose a hat: rows m1, v1, m1, v̂1 under entry columns. The second m1 holds m̂'s values; which
    row is which the table does not say, so its cells are no m and are never called wrong as m (before the rule, the
    repeated row was read as m and its correct m̂ values were false alarms)."""
    path, vocab, w, _, cells = _adamw_entries(tmp_path)
    body = "".join(f"   {s:<8}  {a:>14}  {b:>18}\n\n" for s, (a, b) in
                   zip(("m1", "v1", "m1", "v̂1"), (cells[2], cells[3], cells[4], cells[5])))
    text = f"Table 5: the AdamW moments.\n\n            W_Q, entry (1,2)      E, entry ({vocab[w]},1)\n\n{body}"
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[cells[4][0]][0] != "wrong" and got[cells[4][1]][0] != "wrong", got
    assert got[cells[2][0]][:2] == ("matched", "adamw[1].m[W_Q,0,1]"), got[cells[2][0]]


@pytest.mark.parametrize("style", sorted(ENTRY_COLUMNS))
def test_an_adamw_table_whose_columns_are_entries(tmp_path, style):
    """Columns named by an entry in words ('W_Q, entry (1,2)', 'E, Eintrag (cat,1)') over rows θ0, g, m1, v1, m̂1,
    v̂1, θ1: each cell is that entry's state at the first AdamW step, so a new value with the decay left out is
    wrong as adamw[1].W_Q[0,1] (before: the headers named no entry, a PDF's rows set apart by blank lines lost
    their header after the first, and the figure was matched to whatever other quantity it equals)."""
    path, vocab, w, cols, cells = _adamw_entries(tmp_path)
    name, text, row, states = ENTRY_COLUMNS[style]
    for c in cols:
        assert abs(abs(float(c[6])) * 1e6 % 1 - 0.5) > 0.01 and abs(abs(float(c[1])) * 1e6 % 1 - 0.5) > 0.01
    decay_left_out = f"{float(cols[0][0] - (cols[0][0] - cols[0][6]) + mp.mpf('0.0001') * cols[0][0]):.6f}"
    assert decay_left_out != cells[6][0]
    cells[6][0] = decay_left_out
    body = "\n".join(row.format(s=s, a=a, b=b) for s, (a, b) in zip(states, cells))
    got = _verdicts(_results(tmp_path, text.format(w=vocab[w], rows=body), path, name))
    assert got[decay_left_out][:2] == ("wrong", "adamw[1].W_Q[0,1]"), got[decay_left_out]
    assert got[cells[6][1]][:2] == ("matched", f"adamw[1].E[{vocab[w]},0]"), got[cells[6][1]]
    assert got[cells[2][0]][:2] == ("matched", "adamw[1].m[W_Q,0,1]"), got[cells[2][0]]


KEY_WORDS = {
    "no": ("| spørring 3 | nøkkel 1 («{t0}») | nøkkel 2 («{t1}») | nøkkel 3 («{t2}») |", "vekt"),
    "fi": ("| kysely 3 | avain 1 ({t0}) | avain 2 ({t1}) | avain 3 ({t2}) |", "paino"),
    "cs": ("| dotaz 3 | klíč 1 ({t0}) | klíč 2 ({t1}) | klíč 3 ({t2}) |", "váha"),
}


@pytest.mark.parametrize("lang", sorted(KEY_WORDS))
def test_keys_and_queries_named_in_more_languages(tmp_path, lang):
    """A score table whose columns are keys and whose corner is the query in Norwegian, Finnish or Czech
    ('nøkkel 2', 'avain 2', 'klíč 2'): a row α_{3,j} gives A[2, j], so a slipped weight is wrong as A[2,2] (before:
    the columns named no key, and the row's cells were read by value alone)."""
    toml = oracle.random_spec_toml(seed=59, V=5, d=4, heads=1, d_ff=8, layers=1, T=3)
    path, q, _ = _backward(toml, tmp_path)
    spec = oracle.load_spec(str(path))
    header, word = KEY_WORDS[lang]
    t = spec["data"]["input"]
    A = q["A"][0] if q["A"].ndim == 3 else q["A"]
    slipped = f4(A[2, 2] + 0.0002)
    text = (f"### Oppmerksomhet\n\n{header.format(t0=t[0], t1=t[1], t2=t[2])}\n|---|---:|---:|---:|\n"
            f"| {word} $\\alpha_{{3,j}}$ | {f4(A[2, 0])} | {f4(A[2, 1])} | {slipped} |\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[slipped][:2] == ("wrong", "A[2,2]"), got[slipped]
    assert got[f4(A[2, 1])][:2] == ("matched", "A[2,1]"), got[f4(A[2, 1])]


FINAL_VARIANCE = {
    "paren": "$$\\mu^f = {mu}, \\qquad (\\sigma^f)^2 = {var}, \\qquad "
             "\\sqrt{{(\\sigma^f)^2 + \\varepsilon}} = {root}$$",
    "braced": "$$\\mu^{{f}} = {mu}, \\quad (\\sigma^{{f}})^{{2}} = {var}, \\quad "
              "\\sqrt{{(\\sigma^{{f}})^{{2}} + \\epsilon}} = {root}$$",
}


@pytest.mark.parametrize("style", sorted(FINAL_VARIANCE))
def test_the_final_norms_variance_written_with_a_superscript(tmp_path, style):
    """(σ^f)² is the final norm's variance σ_f², and √((σ^f)² + ε) its denominator: a root with two digits swapped is
    wrong as sqrt(var_f[2] + ln_eps) (before: (σ^f)² was read as no name, and the root was unmatched)."""
    import numpy as np
    toml = oracle.random_spec_toml(seed=59, V=5, d=4, heads=1, d_ff=8, layers=2, T=3, norm="pre", activation="gelu")
    path, q, _ = _backward(toml, tmp_path)
    x = q["l1.H2"][2]
    mu, var = x.mean(), ((x - x.mean()) ** 2).mean()
    root = f4(np.sqrt(var + 1e-5))
    swapped = root[:-2] + root[-1] + root[-2]
    assert swapped != root
    text = "## ln_f\n\n" + FINAL_VARIANCE[style].format(mu=f4(mu), var=f4(var), root=swapped) + "\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert got[swapped][:2] == ("wrong", "sqrt(var_f[2] + ln_eps)"), got[swapped]
    assert got[f4(var)][:2] == ("matched", "var_f[2]"), got[f4(var)]


INDEX_COLUMN = {
    "no": ("| parameter | komponent | før | etter |", "Så kjører vi ett SGD-steg med læringsrate 0,1."),
    "sv": ("| parameter | komponent | efter |", "Sedan tar vi ett SGD-steg med inlärningstakt 0,1."),
    "en": ("| tensor | index | after |", "Then one SGD step with learning rate 0.1."),
}


@pytest.mark.parametrize("lang", sorted(INDEX_COLUMN))
def test_a_table_of_entries_with_an_index_column(tmp_path, lang):
    """Rows named by a checkpoint's tensor with the entry's index in its own column ('komponent', 'index') and
    columns before and after the step ('før', 'etter'): the last column is sgd[1]'s entry, so a new value with the
    wrong sign of its update is wrong as sgd[1].l1.gamma2[3], though its tensor has another row (before: the index
    column was no index, and 'etter' alone named no state)."""
    import numpy as np
    toml = oracle.random_spec_toml(seed=61, V=5, d=4, heads=1, d_ff=8, layers=2, T=3, norm="pre", activation="gelu") \
        + "\n[training]\nlr = 0.1\nsteps = 1\nlearnable_ln = true\n"
    toml = re.sub(r"beta1 = \[[^\]]*\]", "beta1 = [0.0, 0.0, 0.0, 0.0]", toml, count=1)   # GPT-2's zero biases
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    records = torch_oracle.torch_train(spec, "transformer", "sgd", 1, 0.1)
    before, after = records[0]["params"], records[1]["params"]
    rows, expected = [], {}
    for module, ours, at in (("h.1.ln_2.weight", "l1.gamma2", 0), ("h.1.ln_2.weight", "l1.gamma2", 3),
                             ("h.0.ln_1.bias", "l0.beta1", 0)):
        old, new = np.array(before[ours])[at], np.array(after[ours])[at]
        wrong = f4(old + (old - new)) if (ours, at) == ("l1.gamma2", 3) else f4(new)
        expected[ours, at] = wrong
        rows.append(f"| `{module}` | {at + 1} | {f4(old)} | {wrong} |" if lang == "no" else
                    f"| `{module}` | {at + 1} | {wrong} |")
    header, lead = INDEX_COLUMN[lang]
    text = f"{lead}\n\n{header}\n|---|" + "---:|" * (header.count("|") - 2) + "\n" + "\n".join(rows) + "\n"
    if lang != "en":
        text = text.replace(".", ",").replace("`h,0,ln_1,bias`", "`h.0.ln_1.bias`") \
            .replace("`h,1,ln_2,weight`", "`h.1.ln_2.weight`")
    got = _verdicts(_results(tmp_path, text, path))
    show = (lambda x: x) if lang == "en" else (lambda x: x.replace(".", ","))
    w, r = show(expected["l1.gamma2", 3]), show(expected["l1.gamma2", 0])
    assert got[w][:2] == ("wrong", "sgd[1].l1.gamma2[3]"), got[w]
    assert got[r][:2] == ("matched", "sgd[1].l1.gamma2[0]"), got[r]
    assert got[show(expected["l0.beta1", 0])][:2] == ("matched", "sgd[1].l0.beta1[0]")


STORED_NAME = {
    "ro": "Elementul `k_proj.weight.grad[1, 0]` este ${g}$.\n",
    "en": "The entry `k_proj.weight.grad[1, 0]` is ${g}$.\n",
    "el": "Το στοιχείο `k_proj.weight.grad[1, 0]` είναι ${g}$.\n",
}


@pytest.mark.parametrize("lang", sorted(STORED_NAME))
def test_a_linear_weights_entry_named_in_prose(tmp_path, lang):
    """A Llama's ``k_proj.weight.grad[1, 0]`` in prose is stored as nn.Linear keeps it (out × in): grad_W_K[0,1].
    Printed with grad_W_K[1,0]'s value, it is wrong as grad_W_K[0,1], a transposed index, in English, Romanian
    ('este') and Greek ('είναι') (before: the name's entry was placed by its value, so the figure was 'matched', and
    'este' or 'είναι' left it unread)."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=2, d_ff=6, layers=1, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True, tied=False, W_O=True)
    path, _, g = _torch_run(toml, tmp_path)
    transposed = f4(g["W_K"][1][0])
    assert transposed != f4(g["W_K"][0][1])
    got = _verdicts(_results(tmp_path, "## Gradient\n\n" + STORED_NAME[lang].format(g=transposed), path))
    assert got[transposed][:3] == ("wrong", "grad_W_K[0,1]", "transposed index"), got[transposed]


def test_one_gradient_under_the_names_of_a_sum(tmp_path):
    """The gradient reaching position 3's input is one number for H0, X and the position table W_pe (a sum passes
    it on unchanged): a figure of it alone is matched, not 'ambiguous' between four names of one ball."""
    toml = oracle.random_spec_toml(seed=59, V=5, d=4, heads=1, d_ff=8, layers=1, T=3, norm="pre", activation="gelu",
                                   n_ctx=4)
    path, _, g = _backward(toml, tmp_path)
    v = f4(g["H0"][2][0])
    text = f"Backwards\n\n    lm_head share:        0.1234 × 0.5 = 0.0617\n    through the input path:          = {v}\n"
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[v][0] == "matched" and got[v][1] in ("grad_H0[2,0]", "grad_X[2,0]", "grad_W_pe[2,0]"), got[v]


def test_a_blank_line_still_ends_a_table_whose_rows_touch(tmp_path):
    """A table laid out with spaces whose rows follow one another ends at a blank line: a row of E's entries after it
    is no logit and no probability of that token (only a table whose rows are all set apart by blank lines, as a
    PDF's text gives them, goes on across one)."""
    import numpy as np
    path, records, z = _trained(tmp_path)
    p = _shares(z[0])
    E = np.array(records[0]["params"]["E"])
    w = THAI.index("นอน")
    text = ("Logits\n\n  token     logit      prob\n"
            + "".join(f"  {THAI[v]}     {f4(z[0][v])}     {f4(p[v])}\n" for v in (2, 3))
            + f"\nThe row of E for {THAI[w]}:\n\n  {THAI[w]}      {E[w][0]:.1f}      {E[w][1]:.1f}\n")
    got = _verdicts(_results(tmp_path, text, path, "doc.txt"))
    assert got[f"{E[w][0]:.1f}"][0] != "wrong" and got[f"{E[w][1]:.1f}"][0] != "wrong", got
    assert got[f4(p[3])][:2] == ("matched", "p[นอน]"), got[f4(p[3])]


TAU_TABLE = {
    "sw": ("Joto\n\n  neno        tau = 0.6    tau = 1.4\n{rows}\n\nKwa tau = 0.6 maneno mawili yanashika zaidi; kwa "
           "tau = 1.4 mgawanyo ni laini.\n", "  {t:<10}  {a:>8}     {b:>8}"),
    "en": ("Temperature\n\n  word        τ = 0.6      τ = 1.4\n{rows}\n\nAt τ = 0.6 two words hold most of it; at "
           "τ = 1.4 it is flatter.\n", "  {t:<10}  {a:>8}     {b:>8}"),
}


@pytest.mark.parametrize("lang", sorted(TAU_TABLE))
def test_a_temperature_written_tau(tmp_path, lang):
    """Columns 'tau = 0.6' and 'τ = 1.4' are shares at those temperatures, so a share copied from the next column is
    wrong as softmax_T(0.6, ·); and 'tau = 0.6' in prose is a temperature, no tensor (before: the columns were read
    by value, the copy matched the other temperature, and 'tau' was read as √(d/heads) since 1.4 rounds from it,
    then 0.6 was a false alarm)."""
    import numpy as np
    toml = oracle.random_spec_toml(seed=60, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, norm="pre", activation="gelu") \
        + '\n[sampling]\ntemperatures = ["0.6", "1.4"]\n'
    path, q, _ = _backward(toml, tmp_path)
    vocab = oracle.load_spec(str(path))["model"]["vocab"]
    z = q["logits"]
    cold, warm = _shares(np.array(z), 0.6), _shares(np.array(z), 1.4)
    text, row = TAU_TABLE[lang]
    copied = f4(warm[3])
    assert copied != f4(cold[3])
    rows = [row.format(t=t, a=copied if v == 3 else f4(cold[v]), b=f4(warm[v])) for v, t in enumerate(vocab)]
    results = _results(tmp_path, text.format(rows="\n".join(rows)), path, "doc.txt")
    wrong = [(r.ref, r.number.text) for r in results if r.verdict == "wrong"]
    assert wrong == [(f"softmax_T(0.6, {vocab[3]})", copied)], wrong


def test_a_cells_gradients_printed_under_the_weights_names(tmp_path):
    """A notebook cell that reads ``.grad`` and prints a dict keyed by the weights' names (``'c_attn.weight[0, 1]':
    -0.00742``) prints gradients: each value is matched to its entry's gradient, no false alarm as the weight
    (before: each was called a wrong weight)."""
    import numpy as np
    toml = oracle.random_spec_toml(seed=60, V=5, d=4, heads=1, d_ff=8, layers=2, T=3, norm="pre", activation="gelu")
    path, _, g = _torch_run(toml, tmp_path)
    order = np.argsort(-np.abs(g["l1.W_V"]), axis=None)      # its two largest entries (the others may be tiny)
    (vi, vo), (qi, qo) = np.unravel_index(order[0], (4, 4)), np.unravel_index(order[1], (4, 4))
    a, b = f4(g["l1.W_V"][vi][vo]), f4(g["l1.W_V"][qi][qo])      # (nanoGPT's c_attn is an nn.Linear: out × in,
    va, qa = f"[{8 + vo}, {vi}]", f"[{8 + qo}, {qi}]"              #  its rows q, k, v)
    text = ("## A few entries\n\n```python\ng = model.h[1].attn.c_attn.weight.grad    # (12, 4)\n"
            f"picked = {{\n    'h.1.attn.c_attn.weight{va}': g{va}.item(),\n"
            f"    'h.1.attn.c_attn.weight{qa}': g{qa}.item(),\n"
            "}\n# rounded to four places\n{k: round(v, 4) for k, v in picked.items()}\n```\n\n```\n"
            f"{{'h.1.attn.c_attn.weight{va}': {a},\n 'h.1.attn.c_attn.weight{qa}': {b}}}\n```\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[a][:2] == ("matched", f"grad_l1.W_V[{vi},{vo}]"), got[a]
    assert got[b][:2] == ("matched", f"grad_l1.W_V[{qi},{qo}]"), got[b]


def test_a_later_adamw_state_by_its_value(tmp_path):
    """'pas 2: …, (W_2)_{3,1} = x' under a section of two AdamW steps: an entry printed with no state that rounds
    from its value after the second step is that state (before: only the first AdamW step's state was looked for,
    and the entry was a false alarm as the untrained W_2)."""
    from test_check_round57 import ADAMW
    toml = (oracle.random_spec_toml(seed=5, V=6, d=4, heads=1, d_ff=8, layers=1, T=3) + ADAMW).replace(
        "steps = 1\n", "steps = 2\n", 1)
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    records = torch_oracle.torch_train(spec, "transformer", "adamw", 2, 0.01, weight_decay=0.01)
    one, two = (f"{records[k]['params']['W_2'][2][0]:.6f}" for k in (1, 2))
    w2 = spec["layer"][0]["W_2"]
    text = (f"## Pesos\n\nAl principi (W_{{2}})_{{1,2}} = {float(w2[0][1])} i "
            f"(W_{{2}})_{{2,3}} = {float(w2[1][2])}.\n\n"
            "## Dos passos d'AdamW\n\nAra entrenem amb AdamW, η = 0.01, λ = 0.01.\n\n"
            f"   pas 1:  (W_{{2}})_{{3,1}} = {one},\n\n"
            f"   pas 2:  (W_{{2}})_{{3,1}} = {two}.\n")
    got = {(r.number.printed or r.number.text).replace("−", "-"): (r.verdict, r.ref, r.cause)
           for r in _results(tmp_path, text, path)}
    shown = two
    assert got[shown][:2] == ("matched", "adamw[2].W_2[2,0]"), got[shown]
