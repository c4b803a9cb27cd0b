"""Shared cases for the rendering tests: the two seeds and a spec of hostile tokens.

Each case is rendered once per test session (in memory) and shared by
test_render.py, test_markdown.py, test_latex.py, test_figures.py, test_self_claims.py and others.
"""
from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [ROOT / "derivations" / "tiny-transformer.toml", ROOT / "derivations" / "bigram.toml"]

# Every token here breaks Markdown, LaTeX or both when pasted in raw.
WEIRD_TOKENS = ["<pad>", "a_b", "50%", "$x$", "\\n", "&", "#", "{}"]

WEIRD_SPEC = r'''title = "Tokens that fight the formats: <pad> a_b 50% $x$ & # {}"

[model]
kind = "transformer"
vocab = ["<pad>", "a_b", "50%", "$x$", '\n', "&", "#", "{}"]
d = 2
heads = 1
d_ff = 3
layers = 1
tied = true
pe_base = 10000
ln_eps = 1e-5

[data]
input = ["a_b", "$x$", "&"]
target = '\n'

[weights]
# rows chosen so that no two logits tie exactly
E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4], [0.5, 0.2], [0.2, 0.5], [-0.4, 0.1], [0.1, -0.4], [0.6, 0.5]]

[[layer]]
W_Q = [[0.3, 0.4], [0.5, 0.2]]
W_K = [[0.2, 0.6], [0.4, 0.1]]
W_V = [[0.1, 0.5], [0.7, 0.3]]
W_1 = [[0.3, 0.1, -0.2], [0.2, -0.3, 0.5]]
b_1 = [0.1, 0.1, 0.1]
W_2 = [[0.3, 0.5], [0.4, -0.2], [-0.1, 0.6]]
b_2 = [0.0, 0.1]

[sampling]
top_k = 3
top_p = 0.6
uniform = 0.3
continue = 2

[training]
lr = 0.1
steps = 3
report = [1, 2, 3]
'''


@functools.lru_cache(maxsize=None)
def weird_spec_path() -> Path:
    import tempfile
    d = Path(tempfile.mkdtemp(prefix="symgpt-weird-"))
    p = d / "weird.toml"
    p.write_text(WEIRD_SPEC, encoding="utf-8")
    assert "\\n" in WEIRD_SPEC and "\n" not in WEIRD_TOKENS
    return p


@functools.lru_cache(maxsize=None)
def deep_spec_path() -> Path:
    """Two layers, two heads, d = 4, T = 3: tables grow, sums are worked for the last row."""
    import tempfile

    import oracle
    p = Path(tempfile.mkdtemp(prefix="symgpt-deep-")) / "deep.toml"
    p.write_text(oracle.random_spec_toml(seed=3, V=5, d=4, heads=2, d_ff=4, layers=2, T=3), encoding="utf-8")
    return p


def spec_path(case: str) -> Path:
    return {"tiny-transformer": SEEDS[0], "bigram": SEEDS[1], "weird": weird_spec_path(),
            "deep": deep_spec_path()}[case]


@functools.lru_cache(maxsize=None)
def document(case: str) -> dict:
    """The document object (symgpt.documents.document.build, with its errata) of a case, built once per session.

    Shared read-only by the tests that look at a document's data, and laid out by :func:`rendered`.
    """
    from symgpt.claims.errata import for_document
    from symgpt.documents.document import build

    from conftest import loaded
    d = loaded(str(spec_path(case)))
    return build(d, None, for_document(d))


@functools.lru_cache(maxsize=None)
def rendered(case: str) -> dict:
    """{relative path: text} of Markdown, LaTeX, SVG and self-claims (spec named by its absolute
    path) for a case, both languages, as ``render_all([path], ("md", "tex", "claims"), ("zh", "en"))``
    writes them: laid out by symgpt.render's own functions from the shared :func:`document`, so a
    case is built once per session (test_render.py checks this equals render_all for the bigram)."""
    from symgpt.documents.figures import svg
    from symgpt.render import claims_toml, render_doc
    doc, name = document(case), spec_path(case).name.removesuffix(".toml")
    out = {Path(data["file"]): svg(data) for _, data in sorted(doc["figures"].items())}
    for lang in ("zh", "en"):
        out[Path(f"{name}.{lang}.claims.toml")] = claims_toml(doc, lang, str(spec_path(case).resolve()))
        out[Path(f"{name}.{lang}.md")] = render_doc(doc, "md", lang)
        out[Path(f"{name}.{lang}.tex")] = render_doc(doc, "tex", lang)
    return out


CASES = ["tiny-transformer", "bigram", "weird", "deep"]
