"""Every worked line of a block names its layer on a page of several layers (the issue "name the head and the
layer on every line").

The convention is the one the attention lines already follow: a superscript ``(l)``, layers counted from 1 as the
headings count them; the block's output is ``H^{(l)}`` and the next block's first sum reads it; with one layer
no line carries a mark.  The expected strings below are written from that convention, not copied from a render.
"""
from __future__ import annotations

import re

import pytest

from symgpt.render import render_all

import oracle
from conftest import write_spec

T, D = 2, 4                 # every position is worked (T ≤ 2), and a row is wide enough to split per component

# the stages of a block whose lines this issue is about (anchors sec-<id>-<layer>), per norm placement
POST = ("residual1", "ffn", "residual2")
PRE = ("norm1", "add1", "norm2", "ffn", "add2")
PRE_GATED = ("norm1", "add1", "norm2", "ffn_gated", "add2")


def _page(tmp_path, lang="en", **kw) -> str:
    """The Markdown of a small random spec (``kw`` as :func:`oracle.random_spec_toml` takes them)."""
    path = write_spec(tmp_path, oracle.random_spec_toml(seed=11, V=4, d=D, heads=1, d_ff=3, T=T, **kw))
    return next(t for p, t in render_all([path], formats=("md",), langs=(lang,)).items() if p.suffix == ".md")


def _section(text: str, anchor: str) -> str:
    """The text of a section, from its anchor to the next section's heading."""
    start = text.index(f'<a id="sec-{anchor}"></a>')
    end = text.find("\n## ", text.index("## §", start))
    return text[start:end if end > 0 else None]


def _worked(sec: str) -> list:
    """The left-hand sides of the worked lines of a section: each display line with figures that computes
    something (a weight matrix shown, a definition or a formula is no worked line)."""
    out = []
    for block in re.findall(r"\$\$\n(.*?)\n\$\$", sec, re.S):
        for ln in block.splitlines():
            if ln.startswith(("&", r"\begin", r"\end")) or "=" not in ln or r"\begin{bmatrix}" in ln:
                continue
            lhs, _, rhs = ln.partition("&=") if "&=" in ln else ln.partition("=")
            if re.search(r"\d\.\d", rhs):                # figures, not a formula's W_1
                out.append(lhs.strip())
    return out


def _lhs_forms(l: int) -> list:
    """What a worked line of layer l may start with, from the convention: the residual rows h' and h''
    (a row, or one of its entries), the norm's statistics and output, the FFN's affine maps."""
    at = re.escape(f"^{{({l})}}")
    entry = r"_\{\d+(,\d+)?\}"
    return [rf"h'{at}{entry}", rf"h''{at}{entry}", rf"z{at}{entry}", rf"u{at}{entry}",
            rf"\\mathrm\{{ffn\}}{at}{entry}", rf"\\mu{at}", rf"\\left\(\\sigma{at}\\right\)\^2",
            rf"\\sqrt\{{\\left\(\\sigma{at}\\right\)\^2 \+ \\varepsilon\}}", rf"\\mathrm\{{ms\}}{at}",
            rf"\\sqrt\{{\\mathrm\{{ms\}}{at} \+ \\varepsilon\}}",
            rf"(\\left\()?\\mathrm\{{(LN|RMS)\}}{at}\(h'{{0,2}}_\{{\d+\}}\)(\\right\)_\{{\d+\}})?"]


def _assert_named(text: str, stages, layers: int = 2) -> None:
    for l in range(1, layers + 1):
        forms = [re.compile(f) for f in _lhs_forms(l)]
        for stage in stages:
            lines = _worked(_section(text, f"{stage}-{l}" if l > 1 else stage))
            assert lines, (stage, l)
            for lhs in lines:
                assert any(f.fullmatch(lhs) for f in forms), (stage, l, lhs)
                assert all(f"^{{({k})}}" not in lhs for k in range(1, layers + 1) if k != l), (stage, l, lhs)


@pytest.mark.slow
def test_post_norm_lines_name_their_layer(tmp_path):
    text = _page(tmp_path, layers=2)
    _assert_named(text, POST)
    # layer 2's first sum reads layer 1's output, which the caption of layer 1's last table names
    assert "H' = H^{(1)} + \\mathrm{Attn}" in _section(text, "residual1-2")
    assert "H' = H^{(0)} + \\mathrm{Attn}" in _section(text, "residual1")
    assert "the output of layer 1, $H^{(1)}$" in _section(text, "residual2")
    assert "the output of layer 2, $H^{(2)}$" in _section(text, "residual2-2")
    # the rows' lead-ins and the activation's tables name the layer too
    ffn = _section(text, "ffn-2")
    assert ffn.count("in layer 2:") == 2 * T and "in layer 1" not in ffn
    assert ffn.count("(layer 2, t=") == T
    assert _section(text, "residual1-2").count("in layer 2, $h = ") == T
    # headings: one pair of brackets
    assert re.search(r"^## §\d+ Residual connection and LayerNorm \(first, layer 2\)$", text, re.M)
    assert ") (layer" not in text


@pytest.mark.slow
def test_pre_norm_lines_name_their_layer(tmp_path):
    text = _page(tmp_path, layers=2, norm="pre", activation="gelu")
    _assert_named(text, PRE)
    assert "H' = H^{(1)} + \\mathrm{Attn}" in _section(text, "add1-2")
    assert "H' = H^{(0)} + \\mathrm{Attn}" in _section(text, "add1")
    assert "the output of layer 1, $H^{(1)}$" in _section(text, "add2")
    assert _section(text, "ffn-2").count("(layer 2, t=") == T
    final = _worked(_section(text, "final_norm"))       # after every block: no layer of its own
    assert final and not any("^{(" in lhs for lhs in final)
    assert re.search(r"^## §\d+ Residual connection \(second, layer 2\)$", text, re.M) and ") (layer" not in text


@pytest.mark.slow
def test_rmsnorm_and_a_gated_ffn_name_their_layer(tmp_path):
    text = _page(tmp_path, layers=2, norm="pre", norm_kind="rmsnorm", activation="swiglu", bias=False)
    _assert_named(text, PRE_GATED)
    assert _section(text, "ffn_gated-2").count("(layer 2, t=") == T


@pytest.mark.slow
def test_chinese_headings_and_lead_ins_name_the_layer(tmp_path):
    text = _page(tmp_path, lang="zh", layers=2)
    assert re.search(r"^## §\d+ 残差连接与 LayerNorm（第 2 层，第一次）$", text, re.M)
    assert "）（第" not in text
    ffn = _section(text, "ffn-2")
    assert ffn.count("，第 2 层：") == 2 * T and ffn.count("（第 2 层，t=") == T   # the maps' lead-ins, the tables
    assert "第二次残差与 LayerNorm 之后：第 1 层的输出 $H^{(1)}$" in _section(text, "residual2")


@pytest.mark.slow
def test_one_layer_carries_no_mark(tmp_path):
    text = _page(tmp_path, layers=1)
    for stage in POST:
        sec = _section(text, stage)
        lines = _worked(sec)
        assert lines and not any("^{(" in lhs for lhs in lines), (stage, lines)
        assert "in layer" not in sec and "(layer" not in sec, stage
    assert "H' = H^{(0)} + \\mathrm{Attn}" in _section(text, "residual1")
    assert not re.search(r"^## .*\(layer", text, re.M)


# ---------------------------------------------------------------- the attention's formula, captions and summary

def test_the_projection_formula_captions_and_summary_name_their_layer(tmp_path):
    page = _page(tmp_path, layers=2)
    # layer 2 reads layer 1's output H^{(1)} through its own weights {W}^{[2]} (the set-up table's names)
    two = _section(page, "attention-2")
    assert r"Q^{(2)} = H^{(1)} {W_Q}^{[2]},\quad K^{(2)} = H^{(1)} {W_K}^{[2]},\quad " \
           r"V^{(2)} = H^{(1)} {W_V}^{[2]}" in two
    assert r"{W_Q}^{[2]} &= \begin{bmatrix}" in two
    assert "The matrix $Q^{(2)}$" in two and "The matrix $V^{(2)}$" in two
    one = _section(page, "attention")
    assert r"Q^{(1)} = H^{(0)} {W_Q}^{[1]}" in one and "The matrix $K^{(1)}$" in one
    # the summary's last row of the last block is the H^{(2)} its section's caption names
    summary = _section(page, "summary")
    assert re.search(r"\| \$[^$|]*\^\{\(2\)\} = H\^\{\(2\)\}\$ \|", summary)


def test_one_layer_keeps_the_plain_formula(tmp_path):
    page = _page(tmp_path, layers=1)
    sec = _section(page, "attention")
    assert r"Q = H W_Q,\quad K = H W_K,\quad V = H W_V" in sec
    assert "The matrix $Q$" in sec and "= H^{(" not in _section(page, "summary")
