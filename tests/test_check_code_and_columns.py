"""check: readings round 42 of the held-out tutorials showed (issue 27), each on a text written here, in more than one
format or notation where the reading has words:

* a token's share in brackets right after the word (``*пьёт* (3.79%)``), but not a bracket listing two;
* a printed dict of shares under a call that draws with ``top_k=3``, or on a line led by ``top-k``: the top-k's
  renormalised shares, whatever the section printed before; a dict's quoted keys are tokens; a keyword
  ``temperature=0.5`` is a setting, no tensor's entry;
* a column vector a PDF lays out one entry a line, named by a fraction set over the lines around its middle
  entry (``∂J`` ⏎ ``= ⎢…⎥`` ⏎ ``∂z``): a gradient by its form, so its target entry printed as p is a forgotten −y;
* a name in code, then a clause set off by commas, then 'is' (```W.grad[1, 2]`, the weight …, is 0.0405``).

Every expected value is computed here with mpmath (``test_check_readings.by_hand``), never by symgpt.
"""
from __future__ import annotations

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts, _wrong
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, Y, by_hand
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _pct(x) -> str:
    return mp.nstr(100 * x, 4, strip_zeros=False) + "%"


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_a_share_in_brackets_after_its_word(tmp_path, run, fmt):
    """'*пьёт* (3.28%)' for 32.8 %: p[пьёт], a scale slip; '(a% and b%)' after two words names neither."""
    p = run["f0"]["p"]
    word = f"*{VOCAB[Y]}*" if fmt == "md" else f"«{VOCAB[Y]}»"
    slipped = mp.nstr(p[Y], 3) + "%"                      # 0.328 printed as a percent: 0.328%
    text = (f"Greedy decoding picks {word} ({slipped}), while «{VOCAB[1]}» and «{VOCAB[2]}» "
            f"({_pct(p[1])} and {_pct(p[2])}) trail.\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), f"doc.{fmt}"))
    assert got[slipped][:2] == ("wrong", f"p[{VOCAB[Y]}]")
    assert got[_pct(p[1])][0] != "wrong" and got[_pct(p[2])][0] != "wrong"


def _top3(p) -> dict:
    keep = sorted(range(5), key=lambda j: -p[j])[:3]
    total = sum(p[j] for j in keep)
    return {VOCAB[j]: p[j] / total for j in keep}


@pytest.mark.parametrize("lead", ["code", "line"])
def test_a_printed_dict_of_top_k_shares(tmp_path, run, lead):
    """{'пьёт': …} under `probs(z, top_k=3)` (or a line led 'top-k') after a dict at T = 0.5: top-k's shares."""
    p = run["f0"]["p"]
    with mp.workdps(50):
        z = run["f0"]["z"]
        cold = [mp.exp(v / mp.mpf("0.5")) for v in z]
        cold = {VOCAB[j]: cold[j] / sum(cold) for j in range(5)}
    top = _top3(p)
    first, *rest = top
    shown = {first: r4(top[first])[:-2] + r4(top[first])[-1] + r4(top[first])[-2], **{w: r4(top[w]) for w in rest}}
    if shown[first] == r4(top[first]):
        pytest.skip("the swapped digits print alike")
    cold_line = "{" + ", ".join(f"'{w}': {r4(v)}" for w, v in cold.items()) + "}"
    top_line = "{" + ", ".join(f"'{w}': {v}" for w, v in shown.items()) + "}"
    if lead == "code":          # each cell's print and its output, as a notebook shows them
        text = (f"## Sampling\n\n```python\np_T = probs(z, temperature=0.5)\nprint(p_T)\n```\n\n```text\n{cold_line}\n"
                f"```\n\n```python\np_k = probs(z, top_k=3)\nprint(p_k)\n```\n\n```text\n{top_line}\n```\n")
    else:                       # one cell printing both, the second line led by what it shows
        text = (f"## Sampling\n\n```python\nprint(probs(z, 0.5))\nprint('top-k', probs(z, k))\n```\n\n"
                f"```text\n{cold_line}\ntop-k {top_line}\n```\n")
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.md")
    got = _verdicts(results)
    assert got[shown[first]][:2] == ("wrong", f"topk(3, {first})")
    assert [r for r in _wrong(results) if r[1] != shown[first]] == []


def test_a_column_vector_named_by_a_stacked_fraction(tmp_path, run):
    """∂J over ∂z around '= ⎢…⎥', one entry a line (a PDF's text): the gradient's; its target entry as p, −y
    forgotten."""
    p = run["f0"]["p"]
    g = [r4(p[j] - (1 if j == Y else 0)) for j in range(5)]
    g[Y] = r4(p[Y])
    pad = " " * 40
    rows = [f"{pad}  {g[0]}", f"{pad}⎢      ⎥", f"{pad}  {g[1]}", f"{pad[:-6]}∂J    ⎢      ⎥",
            f"{pad[:-4]}= ⎢{g[2]}⎥ .", f"{pad[:-6]}∂z    ⎢      ⎥", f"{pad}⎣{g[3]}⎦", f"{pad}  {g[4]}"]
    text = "The gradient at the logits:\n\n" + "\n".join(rows) + "\n\nOnly the target's entry is negative.\n"
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), "doc.txt"))
    assert got[g[Y]] == ("wrong", f"grad_z[{VOCAB[Y]}]", "forgotten −y")
    assert all(got[g[j]][0] == "matched" for j in range(5) if j != Y)


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_a_name_then_a_clause_set_off_by_commas(tmp_path, run, fmt):
    """'`W.grad[1, 2]`, the weight from the second dimension to рыбу, is …': grad_W[1,рыбу]; another entry's
    value there is wrong as grad_W[1,рыбу], not matched as the entry it equals."""
    gW = run["f0"]["gW"]
    name = "`W.grad[1, 2]`" if fmt == "md" else "$\\partial L/\\partial W_{1,2}$"
    text = (f"For instance {name}, the weight from the second dimension to {VOCAB[2]}, is {r4(gW[1][2])}.\n\n"
            f"And {name.replace('2]', '4]').replace('2}', '4}')}, the one to {VOCAB[4]}, is {r4(gW[0][4])}.\n")
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), f"doc.{fmt}"))
    assert got[r4(gW[1][2])][:2] == ("matched", f"grad_W[1,{VOCAB[2]}]")
    assert got[r4(gW[0][4])][:2] == ("wrong", f"grad_W[1,{VOCAB[4]}]")


@pytest.mark.parametrize("fmt", ["md", "txt", "rst"])
def test_a_sum_of_vectors_continued_on_the_next_line(tmp_path, run, fmt):
    """z = 0.6 (W's row 0) ⏎ − 0.3 (W's row 1) = (…): the literal after the continued sum is z's; an entry off is
    z's, wrong."""
    from test_check_readings import X
    spec = oracle.loads_spec(SPEC)
    E, W = spec["weights"]["E"], spec["weights"]["W"]
    z = run["f0"]["z"]
    shown = [r4(v) for v in z]
    shown[4] = r4(z[4] + mp.mpf("0.01"))
    row = lambda i: "(" + ", ".join(str(w) for w in W[i]) + ")"      # noqa: E731
    x0, x1 = E[X]
    assert x1 < 0
    text = (f"The logits are the rows of W weighted by x:\n\n    z = {x0} {row(0)}\n      − {-x1} {row(1)} = "
            f"({', '.join(shown)})\n")
    if fmt == "rst":                    # a Sphinx page's aligned display, decimal commas, the sum going on below
        comma = lambda t: t.replace(".", "{,}").replace(", ", r";\ ")     # noqa: E731
        text = (f"Logits\n======\n\n.. math::\n\n   \\mathbf{{z}} &= {comma(str(x0))}\\,{comma(row(0))}\\\\\n"
                f"                 - {comma(str(-x1))}\\,{comma(row(1))} = ({comma(', '.join(shown))})\n")
        shown = [t.replace(".", ",") for t in shown]
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC), f"doc.{fmt}"))
    assert got[shown[4]][:2] == ("wrong", f"z[{VOCAB[4]}]")
    assert got[shown[0]][:2] == ("matched", f"z[{VOCAB[0]}]")
