"""Notebook display: reprs, Markdown and LaTeX of a derivation, a quantity and a trace.

References: the pure-mpmath oracle (tests/oracle.py, 60 digits) for every value
shown; an SGD step recomputed here from the oracle's gradients for a trace's
loss; the spec files read with tomllib for the sizes; markdown-it-py (the
dollarmath plugin) for the Markdown; KaTeX and MathJax 3 (tests/node/mathcheck.mjs)
for every formula; and, for every worked line, a small LaTeX reader here that
computes the printed substitution from its printed figures (exact Fractions, or
mpmath at 80 digits with exp, ln and square roots) and checks that it rounds to
the printed result when the line says ``=`` (within one last-place unit for ``≈``).
"""
from __future__ import annotations

import functools
import json
import re
import subprocess
import tomllib
from fractions import Fraction

import mpmath
import pytest

import symgpt

import oracle
from conftest import BIGRAM, ORACLE_DPS, SEED, assert_significant, ref_round_decimals
from test_claims import _bigram_steps
from test_markdown import math_spans, md
from test_mathjax import INSTALL, SCRIPT, _missing
from test_render_cases import deep_spec_path

DIGITS = 12


@functools.cache
@functools.cache
def loaded(name):
    """One derivation per name for the whole module (loading and its document sections are the cost)."""
    return symgpt.load(deep_spec_path() if name == "deep" else name)


@functools.cache
def truth(name) -> dict:
    """{node name: 60-digit mpf} from the oracle, for the quantities it computes."""
    if name == "bigram":
        spec = oracle.load_spec(BIGRAM)
        g = oracle.bigram_grads(spec, dps=ORACLE_DPS)
        out = {"loss": g["loss"]}
        for key in ("x", "z", "p", "grad_z", "grad_x"):
            out.update({f"{key}[{i}]": v for i, v in enumerate(g[key])})
        out.update({f"grad_W[{i},{j}]": v for i, row in enumerate(g["grad_W"]) for j, v in enumerate(row)})
        return out
    if name == "deep":
        return deep_truth()
    spec = oracle.load_spec(SEED)
    f = oracle.transformer_forward(spec, dps=ORACLE_DPS)
    target = spec["model"]["vocab"].index(spec["data"]["target"])
    out = {"loss": f["loss"]}
    for key in ("Q", "K", "V", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2", "X", "PE", "H0"):
        out.update({f"{key}[{t},{j}]": v for t, row in enumerate(f[key]) for j, v in enumerate(row)
                    if not (key == "A" and j > t)})
    for key in ("logits", "p", "h_final"):
        out.update({f"{key}[{i}]": v for i, v in enumerate(f[key])})
    with mpmath.workdps(ORACLE_DPS):
        out.update({f"grad_logits[{v}]": p - (1 if v == target else 0) for v, p in enumerate(f["p"])})
    return out


def deep_truth() -> dict:
    """The 2-layer 2-head case (tests/test_render_cases.py): each layer's tables, A per head [h, t, s]."""
    spec = oracle.load_spec(loaded("deep").spec.path)
    f = oracle.transformer_forward(spec, dps=ORACLE_DPS)
    out = {"loss": f["loss"]}
    for key in ("logits", "p", "h_final"):
        out.update({f"{key}[{i}]": v for i, v in enumerate(f[key])})
    for n, b in enumerate(f["blocks"]):
        for key in ("Q", "K", "V", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
            out.update({f"l{n}.{key}[{t},{j}]": v for t, row in enumerate(b[key]) for j, v in enumerate(row)})
        for key in ("mu1", "var1", "mu2", "var2"):
            out.update({f"l{n}.{key}[{t}]": v for t, v in enumerate(b[key])})
        out.update({f"l{n}.A[{h},{t},{s}]": v for h, rows in enumerate(b["A"]) for t, row in enumerate(rows)
                    for s, v in enumerate(row) if s <= t})
    return out


# ---------------------------------------------------------------- values agree with the oracle

@pytest.mark.parametrize("name", ["bigram", "tiny-transformer"])
def test_every_quantity_value_shown_is_the_oracles(name):
    d = loaded(name)
    for ref, want in truth(name).items():
        q = d[ref]
        if want == 0:  # an exact zero (a ReLU of a negative input) prints as 0
            assert q.value() == "0" and q.lines()[-1].endswith("= 0"), q.lines()[-1]
            continue
        assert_significant(q.value(), want, DIGITS)
        last = re.sub(r"^(=|\\approx) ", "", q.lines()[-1].split("&", 1)[1])
        assert_significant(_printed(last), want, DIGITS)
        assert q.value() in repr(q) and q.value() in q._repr_markdown_()


def test_the_derivation_table_shows_oracle_values():
    d = loaded("tiny-transformer")
    text = d._repr_markdown_()
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([^`]+)` \| [^|]+ \| (\S+) \|$", text, re.MULTILINE)}
    want = truth("tiny-transformer")
    assert set(rows) == {"A[1,0]", "p[你]", "grad_logits[你]", "loss"}
    for pretty, shown in rows.items():
        assert_significant(shown, want[d.node(pretty)], DIGITS)
        assert shown in d._repr_latex_()


def test_reprs_name_the_sizes_read_from_the_spec():
    raw = tomllib.loads(SEED.read_text(encoding="utf-8"))
    m, layers = raw["model"], raw["layer"]
    d = loaded("tiny-transformer")
    count = sum(functools.reduce(lambda a, b: a * b, shape, 1) for _, shape, _ in d.names())
    assert repr(d) == (f"<Derivation tiny-transformer: transformer V={len(m['vocab'])} d={m['d']} "
                       f"heads={m['heads']} d_ff={m['d_ff']} layers={len(layers)} "
                       f"T={len(raw['data']['input'])}, {count} quantities>")
    raw = tomllib.loads(BIGRAM.read_text(encoding="utf-8"))
    assert repr(loaded("bigram")).startswith(f"<Derivation bigram: bigram V={len(raw['model']['vocab'])} "
                                             f"d={raw['model']['d']} T={len(raw['data']['input'])}, ")


def test_a_trace_shows_the_losses_of_sgd_recomputed_here():
    """sgd[1].loss of the bigram: one step W ← W − η∇W, E ← E − η∇E from the oracle's gradients."""
    spec = oracle.load_spec(BIGRAM)
    lr = spec["training"]["lr"]
    g = oracle.bigram_grads(spec, dps=ORACLE_DPS)
    with mpmath.workdps(ORACLE_DPS):
        stepped = dict(spec, weights={
            "E": [[mpmath.mpf(e.numerator) / e.denominator - mpmath.mpf(lr.numerator) / lr.denominator * ge
                   for e, ge in zip(row, grow)] for row, grow in zip(spec["weights"]["E"], g["grad_E"])],
            "W": [[mpmath.mpf(w.numerator) / w.denominator - mpmath.mpf(lr.numerator) / lr.denominator * gw
                   for w, gw in zip(row, grow)] for row, grow in zip(spec["weights"]["W"], g["grad_W"])]})
        after = oracle.bigram_forward(stepped, dps=ORACLE_DPS)["loss"]
    t = loaded("bigram").trace("sgd")
    table = dict(t.loss_table())
    raw = tomllib.loads(BIGRAM.read_text(encoding="utf-8"))["training"]
    assert sorted(table) == t.shown_steps() == [0] + raw["report"]     # the spec's report, not spread steps
    assert_significant(table[0], g["loss"], 10)
    assert_significant(table[1], after, 10)
    text, tex = t._repr_markdown_(), t._repr_latex_()
    assert f"| `sgd[1].loss` | {table[1]} |" in text and f"1 & {table[1]}" in tex
    assert '`sgd.value(k, "p[0]", digits=20)` (with `sgd = d.trace("sgd")`)' in text   # the hint's variable is defined
    steps = spec["training"]["steps"]
    assert repr(t) == f"<Trace sgd of bigram: {steps} steps (states sgd[0]..sgd[{steps}]), 12 parameters, lr 0.5>"


def test_mpf_prints_its_certified_digits_at_the_requested_precision():
    d = loaded("tiny-transformer")
    want = truth("tiny-transformer")["loss"]
    for dps in (5, 30, 50):
        x = d.mpf("loss", dps)
        assert str(x) == d.value("loss", digits=dps) and repr(x) == f"mpf('{x}')"
        assert_significant(str(x), want, dps)
        with mpmath.workdps(60):
            assert abs(mpmath.mpf(x) - want) < mpmath.mpf(10) ** -(dps + 1)  # the number itself is that good
    assert mpmath.mp.dps == 15 and len(str(d.mpf("loss", 30) * 1).replace(".", "")) == 30


def test_mpf_prints_an_exact_tie_half_away_from_zero(tmp_path):
    """0.125 (a weight, exact in binary) at 2 digits is 0.13, as d.value and the documents round."""
    spec = tmp_path / "tiny.toml"
    spec.write_text(BIGRAM.read_text(encoding="utf-8").replace("E = [[0.1, 0.2]", "E = [[0.125, 0.2]"),
                    encoding="utf-8")
    d = symgpt.load(spec)
    assert str(d.mpf("E[0,0]", 2)) == "0.13" == ref_round_decimals(Fraction(1, 8), 2)
    assert str(d.mpf("E[0,0]", 3)) == "0.125" and str(d.mpf("E[0,1]", 4)) == "0.2000"


# ---------------------------------------------------------------- worked lines are true by hand

_TOKEN = re.compile(r"\s*(\\left\(|\\right\)|\\times|\\sqrt|\\exp|\\ln|\\frac|\d+(?:\.\d+)?|[-+/()^{}])")


class Reader:
    """Reads the printed arithmetic of a worked line (the LaTeX the steps write) to its value."""

    def __init__(self, text: str):
        self.toks, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            assert m, f"cannot read {text[pos:pos + 30]!r} in {text!r}"
            self.toks.append(m[1])
            pos = m.end()
        self.i = 0
        self.exact = True

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def braced(self):
        """A ``{…}`` group's value."""
        self.take("{")
        v = self.sum()
        self.take("}")
        return v

    def take(self, want=None):
        t = self.peek()
        assert want is None or t == want, (want, t, self.toks)
        self.i += 1
        return t

    def value(self):
        v = self.sum()
        assert self.peek() is None, self.toks[self.i:]
        return v

    def sum(self):
        v = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()
            v = _op(op, v, self.product())
        return v

    def product(self):
        v = self.unary()
        while self.peek() in (r"\times", "/"):
            op = self.take()
            v = _op(op, v, self.unary())
        return v

    def unary(self):
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        v = self.atom()
        if self.peek() == "^":
            self.take()
            self.take("{")
            n = self.sum()
            self.take("}")
            v = v ** int(n)
        return v

    def atom(self):
        t = self.take()
        if t in ("(", r"\left("):
            v = self.sum()
            self.take(")" if t == "(" else r"\right)")
            return v
        if t == r"\frac":
            a, b = self.braced(), self.braced()
            return a / b
        if t in (r"\sqrt", r"\exp", r"\ln"):
            self.exact = False
            if t == r"\sqrt":
                v = self.braced()
            elif t == r"\exp":
                v = self.atom()
            else:
                v = self.power()
            return {r"\sqrt": mpmath.sqrt, r"\exp": mpmath.exp, r"\ln": mpmath.log}[t](_mp(v))
        assert re.fullmatch(r"\d+(\.\d+)?", t), (t, self.toks)
        return Fraction(t)


def _op(op, a, b):
    """a op b: exact when both are Fractions, else in mpmath."""
    if not (isinstance(a, Fraction) and isinstance(b, Fraction)):
        a, b = _mp(a), _mp(b)
    return {"+": a + b, "-": a - b, r"\times": a * b}[op] if op != "/" else a / b


def _mp(v):
    return mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else v


def _printed(s: str) -> str:
    """A printed result in LaTeX back to its decimal text (``1.2 \\times 10^{-7}`` → ``1.2e-7``)."""
    m = re.fullmatch(r"(-?[\d.]+) \\times 10\^\{(-?\d+)\}", s.strip())
    return f"{m[1]}e{m[2]}" if m else s.strip()


def split_line(latex: str):
    """(substitution, relation, printed result) of a worked line ``lhs &= [formula =] sub rel result``."""
    body = latex.split("&=", 1)[1].split(r" \quad", 1)[0]
    if r" \approx " in body:
        left, res = body.rsplit(r" \approx ", 1)
        rel = "≈"
    else:
        left, res = body.rsplit(" = ", 1)
        rel = "="
    return left.rsplit(" = ", 1)[-1], rel, _printed(res)


def check_by_hand(latex: str):
    sub, rel, res = split_line(latex)
    r = Reader(sub)
    with mpmath.workdps(80):
        v = r.value()
        places = len(res.split(".")[1]) if "." in res else 0
        assert "e" not in res, res
        if rel == "=":
            if r.exact:
                assert ref_round_decimals(v, places) == res, latex
            else:  # 80 digits; a value within 10^-70 of a rounding boundary would need more (none here)
                assert ref_round_decimals(_mp(v), places) == res, latex
        else:
            assert abs(_mp(v) - mpmath.mpf(res)) <= mpmath.mpf(10) ** -places * (1 + mpmath.mpf(10) ** -60), latex
    return rel


@pytest.mark.parametrize("name", ["bigram", pytest.param("tiny-transformer", marks=pytest.mark.slow),
                                  pytest.param("deep", marks=pytest.mark.slow)])
def test_every_worked_line_is_true_by_hand(name):
    """Each worked line's arithmetic checks by hand, its result is the oracle's rounding, and every
    displayed line names the quantity shown (the document's line keeps its own figures)."""
    d = loaded(name)
    rels, seen = [], 0
    for node in d.graph.order:
        q = d.show(node)
        w = q.worked()
        if w is None:
            continue
        seen += 1
        latex = symgpt.documents.steps.latex(w[1])
        assert latex in q._repr_latex_()
        own = symgpt.documents.display.name_tex(d, node)
        assert all(ln.split(" &", 1)[0] == own for ln in q.lines()), (own, q.lines())
        if w[1]["sub"] is not None:  # else one operand named, its figure the result (R = ReLU(Z) = Z = …)
            rels.append(check_by_hand(latex))
        want = truth(name).get(node)
        if want is not None:  # the printed result is the true value's rounding
            res = split_line(latex)[2]
            places = len(res.split(".")[1]) if "." in res else 0
            assert res == ref_round_decimals(want, places), (latex, mpmath.nstr(want, 30))
    assert seen > len(d.graph.order) // 3 and "=" in rels


@pytest.mark.slow  # a sweep over every shown quantity: the full run checks it
def test_a_quantity_of_a_deep_model_is_named_as_itself_in_its_worked_line():
    """l1.A[1,2,1] (layer 2, head 1, row 2, column 1) and l1.var2[2]: the document's lines
    (its A_{2,1}, \\sigma^2) carry the quantity's own name, with the layer and the head."""
    d = loaded("deep")
    for node, lhs in (("l1.A[1,2,1]", "{{A}^{[2]}}_{1,2,1}"), ("l1.var2[2]", "{{\\sigma^2_2}^{[2]}}_{2}")):
        lines = d[node].lines()
        assert len(lines) >= 2 and all(ln.startswith(lhs + " &") for ln in lines), lines
        assert d[node].worked()[0] is not None  # the document's own line


def test_the_reader_is_a_real_judge():
    """A line whose printed arithmetic misses its result fails the check."""
    check_by_hand(r"x &= 0.3 \times 0.1 + (-0.5) \times (-0.1) = 0.0800")
    with pytest.raises(AssertionError):
        check_by_hand(r"x &= 0.3 \times 0.1 + (-0.5) \times (-0.1) = 0.0810")
    with pytest.raises(AssertionError):
        check_by_hand(r"x &= \exp\left(0.4\right) / 5.855 = 0.256")


def test_a_small_result_gets_decimals_enough_for_three_digits():
    """R[0,0] ≈ 3.29e-6: its line prints 0.00000329 (the oracle's rounding), not 0.000."""
    d = loaded("tiny-transformer")
    latex = symgpt.documents.steps.latex(d["R[0,0]"].worked()[1])
    assert split_line(latex)[2] == ref_round_decimals(truth("tiny-transformer")["R[0,0]"], 8)


# ---------------------------------------------------------------- Markdown parses, math renders

def everything() -> dict:
    """{label: (markdown, latex)} of the reprs: both derivations, a few quantities of each, both traces."""
    out = {}
    for name in ("bigram", "tiny-transformer"):
        d = loaded(name)
        out[name] = (d._repr_markdown_(), d._repr_latex_())
        for t in ("sgd", "adamw"):
            tr = d.trace(t)
            out[f"{name}/{t}"] = (tr._repr_markdown_(), tr._repr_latex_())
        for node in d.graph.order[:: 7 if name != "bigram" else 1] + ["loss", "sgd[1].loss", "lr", "d"]:
            q = d.show(node)
            out[f"{name}/{node}"] = (q._repr_markdown_(), q._repr_latex_())
    out["tiny-transformer/head_step.p[你]"] = (loaded("tiny-transformer")["head_step.p[你]"]._repr_markdown_(),
                                              loaded("tiny-transformer")["head_step.p[你]"]._repr_latex_())
    ticks = symgpt.load(ticks_spec())  # tokens a`, x``y, | in code spans, table cells and \text
    out["ticks"] = (ticks._repr_markdown_(), ticks._repr_latex_())
    for node in ticks.graph.order:
        out[f"ticks/{node}"] = (ticks.show(node)._repr_markdown_(), ticks.show(node)._repr_latex_())
    deep = loaded("deep")  # two layers, two heads: the document's lines renamed
    for node in deep.graph.order[::23] + ["l1.A[1,2,1]", "l1.var2[2]"]:
        out[f"deep/{node}"] = (deep.show(node)._repr_markdown_(), deep.show(node)._repr_latex_())
    return out


@functools.cache
def shown() -> dict:
    return everything()


@pytest.mark.slow  # a sweep over every shown quantity: the full run checks it
def test_markdown_parses_with_its_math_found():
    for label, (text, latex) in shown().items():
        assert latex.startswith("$$") and latex.endswith("$$") and latex.count("$$") == 2, label
        spans = math_spans(text)
        if "/" in label and not label.endswith("sgd") and not label.endswith("adamw"):
            assert any(kind == "math_block" for kind, _ in spans), label
        leftover = [t.content for t in md.parseInline(text)[0].children or [] if t.type == "text" and "$" in t.content]
        assert not leftover, (label, leftover)


@pytest.mark.slow  # a sweep over every shown quantity: the full run checks it
def test_every_formula_renders_in_katex_and_mathjax():
    missing = _missing()
    if missing:
        import os
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the real math renderers: {missing}: run {INSTALL}", pytrace=False)
        pytest.skip(f"{missing}: run {INSTALL}")
    spans = set()
    for text, latex in shown().values():
        spans.add((latex[2:-2], True))
        spans |= {(tex, kind == "math_block") for kind, tex in math_spans(text)}
    spans = sorted(spans)
    r = subprocess.run(["node", str(SCRIPT)], input=json.dumps([{"tex": t, "display": d} for t, d in spans]),
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    results = json.loads(r.stdout)
    bad = [(t[:120], engine, err) for (t, _), res in zip(spans, results) for engine, err in res.items() if err]
    assert not bad, f"{len(bad)} of {len(spans)} spans fail, first: {bad[:5]}"
    assert len(spans) > 50


def test_the_math_check_is_a_real_judge():
    """mathcheck.mjs rejects a formula the display could get wrong (a Chinese token outside \\text)."""
    if _missing():
        pytest.skip(_missing())
    r = subprocess.run(["node", str(SCRIPT)], input=json.dumps([{"tex": "p_{你}", "display": True},
                                                                 {"tex": r"p_{\text{你}}", "display": True}]),
                       capture_output=True, text=True, timeout=120, check=False)
    bad, good = json.loads(r.stdout)
    assert bad["katex"] and not good["katex"] and not good["mathjax"]


def test_a_ball_prints_only_digits_inside_itself():
    """d.ball's arb prints [midpoint +/- radius]; the true loss lies within the printed radius."""
    want = truth("tiny-transformer")["loss"]
    for prec in (64, 200):
        m = re.fullmatch(r"\[(\S+) \+/- (\S+)\]", str(loaded("tiny-transformer").ball("loss", prec)))
        with mpmath.workdps(ORACLE_DPS):
            assert abs(mpmath.mpf(m[1]) - want) <= mpmath.mpf(m[2])


def test_an_mpf_whose_rounding_cannot_be_certified_prints_its_enclosure(monkeypatch):
    """A value SymPy cannot prove zero has no certified rounding: the number still comes back,
    and it prints the ball (every digit of which is true), never a guessed digit."""
    d = symgpt.load("bigram")

    def undecidable(ref, digits=None, decimals=None):
        raise symgpt.core.numeric.UndecidableError(f"cannot certify the rounding of {ref}")
    x = d.mpf("loss", 20)
    monkeypatch.setattr(d, "value", undecidable)
    shown = str(x)
    assert shown.startswith("[") and "+/-" in shown
    mid, rad = shown.strip("[]").split(" +/- ")
    with mpmath.workdps(ORACLE_DPS):                        # the oracle's loss lies inside the printed ball
        assert abs(mpmath.mpf(mid) - truth("bigram")["loss"]) <= mpmath.mpf(rad)


def test_the_wrong_order_trace_shows_its_certified_losses_and_checks_its_arguments():
    """sgd_wrong_order displays like the other traces; its table agrees with the document's own
    loop run in mpmath (tests/test_claims.py), and a misused step is one clear error."""
    t = symgpt.load("bigram").trace("sgd_wrong_order")
    steps = tomllib.loads(symgpt.load("bigram").spec.path.read_text())["training"]["steps"]
    assert repr(t) == (f"<Trace sgd_wrong_order of bigram: {steps} steps (states sgd_wrong_order[0].."
                       f"sgd_wrong_order[{steps}]), 12 parameters, lr 0.5>")
    want = _bigram_steps(True, steps)
    table = dict(t.loss_table())
    assert set(table) == set(t.shown_steps()) and 0 in table and steps in table
    for k, shown in table.items():
        assert_significant(shown, want[k], 10)
    md, tex = t._repr_markdown_(), t._repr_latex_()
    assert f"| `sgd_wrong_order[1].loss` | {table[1]} |" in md and r"\text{(sgd\_wrong\_order)}" in tex
    with pytest.raises(symgpt.InputError, match=r"k: expected a step number 0\.\.20 .*arguments swapped"):
        t.value("loss", 1)
    with pytest.raises(symgpt.InputError, match=r"k: expected a step number 0\.\.20"):
        t.ball(21, "loss", 64)


# ---------------------------------------------------------------- tokens that fight Markdown

TICKS = ("a`", "x``y", "|")


@functools.cache
def ticks_spec():
    """The bigram with the vocabulary a`, x``y, | (input x``y, target |)."""
    import tempfile
    from pathlib import Path
    text = BIGRAM.read_text(encoding="utf-8")
    for old, new in (('vocab = ["猫", "吃", "鱼"]', 'vocab = ["a`", "x``y", "|"]'),
                     ('input = ["吃"]', 'input = ["x``y"]'), ('target = "鱼"', 'target = "|"')):
        assert old in text
        text = text.replace(old, new)
    p = Path(tempfile.mkdtemp(prefix="symgpt-ticks-")) / "ticks.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _inline_children(text):
    """(code spans' contents, table rows as lists of cell texts) of Markdown parsed by markdown-it-py."""
    toks = md.parse(text)
    codes, rows, row = [], [], None
    for t in toks:
        if t.type == "tr_open":
            row = []
        elif t.type == "tr_close":
            rows.append(row)
            row = None
        elif t.type == "inline":
            codes += [c.content for c in t.children or [] if c.type == "code_inline"]
            if row is not None:
                row.append("".join(c.content for c in t.children or []))
    return codes, rows


def test_tokens_with_backticks_and_bars_keep_their_code_spans_and_table_cells():
    d = symgpt.load(ticks_spec())
    spec = oracle.load_spec(ticks_spec())
    g = oracle.bigram_grads(spec, dps=ORACLE_DPS)
    want = {"z[|]": g["z"][2], "p[|]": g["p"][2], "grad_z[|]": g["grad_z"][2], "loss": g["loss"]}
    codes, rows = _inline_children(d._repr_markdown_())
    assert codes[:3] == ["ticks", "x``y", "|"], codes          # name, input, target: each its own span
    assert rows[0] == ["name", "meaning", "value (12 certified digits)"]
    body = {r[0]: r for r in rows[1:]}
    assert set(body) == set(want), rows
    for name, row in body.items():
        assert len(row) == 3, row
        assert_significant(row[2], want[name], DIGITS)
    assert "d['z[|]']" in codes
    for name in ("z[a`]", "z[x``y]", "p[|]"):
        codes, _ = _inline_children(d[name]._repr_markdown_())
        assert codes[0] == name and f"d.value({name!r}, digits=50)" in codes, codes


# ---------------------------------------------------------------- no line says the same thing twice

@pytest.mark.slow  # a sweep over every shown quantity: the full run checks it
def test_no_line_repeats_what_the_line_before_says():
    """grad_logits[你] = p_你 − 1 shows its formula once; PE[0,0] = sin 0 = 0 one line; a ReLU of
    a negative input one 0; R[0,0] = ReLU(Z) names Z instead of printing its figure twice; sizes
    and lr exact, as the spec writes them."""
    d = loaded("tiny-transformer")
    lines = d["grad_logits[你]"].lines()
    assert [ln.split("&", 1)[1] for ln in lines].count(r"= p_{\text{你}} - 1") == 0, lines
    assert sum(r"p_{\text{你}} - 1" in ln for ln in lines) == 1, lines
    assert d["PE[0,0]"].lines() == [r"\mathrm{PE}_{0,0} &= 0"]
    negative = [k for k, v in truth("tiny-transformer").items() if k.startswith("Z[") and v < 0]
    assert negative
    for z in negative:
        r = "R" + z[1:]
        lines = d[r].lines()
        assert lines[-1].endswith("&= 0") and sum(ln.endswith("&= 0") for ln in lines) == 1, lines
    worked = symgpt.documents.steps.latex(d["R[0,0]"].worked()[1])
    assert not re.search(r"= (\S+) = \1$", worked) and r"= Z_{0,0} = " in worked, worked
    raw = tomllib.loads(SEED.read_text(encoding="utf-8"))
    assert d["d"].lines() == [rf"\text{{d}} &= {raw['model']['d']}"]
    assert repr(d["d"]).startswith(f"<Quantity d = {raw['model']['d']} (")
    assert d["lr"].lines() == [rf"\text{{lr}} &= {raw['training']['lr']}"]
    assert loaded("bigram")["lr"].lines() == [r"\text{lr} &= 0.5"]  # derivations/bigram.toml: lr = 0.5
    for name in ("bigram", "tiny-transformer"):
        for node in loaded(name).graph.order:
            rhs = [ln.split("&", 1)[1] for ln in loaded(name).show(node).lines()]
            assert all(a != b for a, b in zip(rhs, rhs[1:])), (node, rhs)
            assert not any(re.search(r"= (-?[\d.]+) = \1$", r) for r in rhs), (node, rhs)


def _first_lines(d) -> dict:
    """{node: (section number, line)}: the first worked line of each node in the whole document, read here
    from every section built at once (the way a reader meets them)."""
    from symgpt.documents import bigram, transformer
    from symgpt.documents.blocks import Numbers
    from symgpt.documents.steps import components, width
    build = transformer.sections if d.spec.kind == "transformer" else bigram.sections
    found: dict = {}
    for n, sec in enumerate(build(d, Numbers(d, 3 if d.spec.kind == "transformer" else 4))[0]):
        for step in sec["steps"]:
            for ln in step.get("lines", ()) if step["kind"] == "math" else ():
                if not isinstance(ln, dict) or ln["sub"] is None:
                    continue
                for one in (components(ln) if width(ln["res"]) > 1 else [ln]):
                    try:
                        name = d.node(one["res"]["ref"])
                    except (ValueError, KeyError):
                        continue
                    found.setdefault(name, (str(n), one))
    return found


@pytest.mark.parametrize("name", ["bigram", "tiny-transformer", pytest.param("deep", marks=pytest.mark.slow)])
def test_a_quantitys_worked_line_found_in_its_section_alone_is_the_documents_first(name):
    """worked_line builds only the sections that may show the node's group (a stage of the plan shows what its
    applications make); for every node it finds what the whole document shows first, in the same section."""
    from symgpt.documents.display import worked_line
    d = loaded(name)
    first = _first_lines(d)
    assert len(first) > 5
    for node in d._skeleton.nodes:
        assert worked_line(d, node) == first.get(node), node


def test_a_decided_function_shows_its_branch_in_the_line_from_the_definition():
    """R[0,0] = ReLU(Z[0,0]) with Z[0,0] > 0: the line names the branch taken, whose figure is the result."""
    from symgpt.documents.display import definition_line
    d = loaded("tiny-transformer")
    assert symgpt.documents.steps.latex(definition_line(d, "R[0,0]", 8)) == \
        r"R_{0,0} &= \operatorname{ReLU}\left(Z_{0,0}\right) = Z_{0,0} = 0.00000329"
