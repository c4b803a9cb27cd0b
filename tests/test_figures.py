"""The pictures say what their captions say, the same in SVG (Markdown) and TikZ (PDF).

Each picture is read back from the rendered files: the SVG parsed with
xml.etree, the LaTeX source of the same document with regular expressions.
Which bar is the argmax and which the target comes from the mpmath oracle's
probabilities and the spec, never from symgpt; colours are judged by their
hue (red, green, blue, as the caption promises) and must be the same hex in
both formats.  Ticks are checked against the 1-2-5 rule and against the data
they must cover; a masked attention weight must read 0 (its score is −∞, its
weight exactly 0), checked against the oracle's weights.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import mpmath
import pytest

from symgpt.documents.figures import line, svg

import oracle
from test_render_cases import CASES, SEEDS, WEIRD_SPEC, deep_spec_path, rendered

NS = "{http://www.w3.org/2000/svg}"


def spec_of(case) -> dict:
    path = {"tiny-transformer": SEEDS[0], "bigram": SEEDS[1], "deep": deep_spec_path()}.get(case)
    return oracle.loads_spec(WEIRD_SPEC) if path is None else oracle.load_spec(path)


def oracle_p(case) -> list:
    spec = spec_of(case)
    f = oracle.bigram_forward(spec) if spec["model"].get("kind", spec.get("kind")) == "bigram" \
        else oracle.transformer_forward(spec)
    return f["p"]


def is_bigram(case) -> bool:
    spec = spec_of(case)
    return spec.get("kind") == "bigram" or spec["model"].get("kind") == "bigram"


def files(case, suffix) -> dict:
    return {p.name: t for p, t in rendered(case).items() if p.name.endswith(suffix)}


def hue(hex6: str) -> str:
    """Which of red, green, blue dominates a colour (independent of the palette's exact shades)."""
    r, g, b = (int(hex6[i:i + 2], 16) for i in (0, 2, 4))
    return max((r, "red"), (g, "green"), (b, "blue"))[1]


def svg_bars(text) -> dict:
    """{bar index: fill hex} of a probability chart."""
    root = ET.fromstring(text)
    return {int(el.get("data-i")): el.get("fill").lstrip("#").upper()
            for el in root.iter(NS + "rect") if el.get("class") == "bar"}


def tex_bars(tex) -> dict:
    """{bar index: fill hex} of the probability chart of a LaTeX document."""
    colours = dict(re.findall(r"\\definecolor\{([\w-]+)\}\{HTML\}\{([0-9A-F]{6})\}", tex))
    bars = re.findall(r"\\addplot\[bar shift=0pt, fill=([\w-]+),[^\]]*\] coordinates \{\((\d+),", tex)
    assert bars, "no bar found in the LaTeX source"
    return {int(i): colours[name] for name, i in bars}


def texts(root, cls) -> list:
    return [el.text for el in root.iter(NS + "text") if el.get("class") == cls]


def is_125_sequence(values) -> Fraction:
    """The common step of equally spaced ticks, checked to be 1, 2 or 5 × 10^k; else AssertionError."""
    qs = [Fraction(v) for v in values]
    steps = {b - a for a, b in zip(qs, qs[1:])}
    assert len(steps) == 1, f"ticks not equally spaced: {values}"
    step = steps.pop()
    while step >= 10:
        step /= 10
    while step < 1:
        step *= 10
    assert step in (1, 2, 5), f"tick step is not 1, 2 or 5 × 10^k: {values}"
    return qs[1] - qs[0]


# ---------------------------------------------------------------- the probability chart

@pytest.mark.parametrize("case", CASES)
def test_bar_colours_follow_argmax_and_target_in_both_formats(case):
    p = oracle_p(case)
    spec = spec_of(case)
    best = max(range(len(p)), key=lambda i: p[i])
    target = oracle.token_ids(spec, [spec["data"]["target"]])[0]
    [svg_text] = files(case, "-probs.svg").values()
    in_svg = svg_bars(svg_text)
    assert sorted(in_svg) == list(range(len(p)))
    want = {i: "red" if i == best else "green" if i == target else "blue" for i in range(len(p))}
    assert {i: hue(h) for i, h in in_svg.items()} == want
    for name, tex in files(case, ".tex").items():
        assert tex_bars(tex) == in_svg, f"{name}: the PDF's bar colours differ from the SVG's"


@pytest.mark.parametrize("case", CASES)
def test_bar_chart_ticks_are_125_and_cover_the_probabilities(case):
    p = oracle_p(case)
    [svg_text] = files(case, "-probs.svg").values()
    root = ET.fromstring(svg_text)
    yt = texts(root, "ytick")
    assert len(yt) >= 4
    is_125_sequence(yt)
    assert Fraction(yt[0]) == 0 and Fraction(yt[-1]) >= Fraction(str(max(p)))
    assert Fraction(yt[-2]) < Fraction(str(max(p)))  # no empty tick interval above the tallest bar
    assert texts(root, "xtitle") and texts(root, "ytitle")
    for name, tex in files(case, ".tex").items():
        axis = re.search(r"\\begin\{axis\}\[ybar,(.*?)\]\n", tex, re.S)[1]
        assert re.search(r"ytick=\{([^}]*)\}", axis)[1].split(",") == yt, name
        assert "xlabel=" in axis and "ylabel=" in axis


# ---------------------------------------------------------------- the attention heat map

def heat_svgs(case) -> dict:
    return {n: t for n, t in files(case, ".svg").items() if "-attention" in n}


@pytest.mark.parametrize("case", ["tiny-transformer", "weird", "deep"])
def test_masked_weights_read_zero_and_both_axes_are_labelled_alike(case):
    svgs = heat_svgs(case)
    assert svgs
    for name, text in svgs.items():
        root = ET.fromstring(text)
        assert "∞" not in text and "inf" not in text.lower()
        cells = {(int(el.get("data-i")), int(el.get("data-j"))): el.text
                 for el in root.iter(NS + "text") if el.get("class") == "cell"}
        T = int(len(cells) ** 0.5)
        assert T * T == len(cells)
        for (i, j), shown in cells.items():
            if j > i:  # a key after the query: masked, weight exactly 0
                assert shown == "0", (name, i, j, shown)
        rows, cols = texts(root, "row"), texts(root, "col")
        assert rows == cols and len(rows) == T
        assert all(re.fullmatch(rf"t={k} .+", lab) for k, lab in enumerate(rows))
        assert float(root.get("width")) >= 360
        sizes = [float(el.get("font-size")) for el in root.iter(NS + "text")]
        assert min(sizes) >= 12


def test_heat_map_values_are_the_oracle_weights():
    """One layer, one head: the seed's cells are the oracle's A to three decimals, masked cells 0."""
    A = oracle.transformer_forward(spec_of("tiny-transformer"))["A"]
    root = ET.fromstring(heat_svgs("tiny-transformer")["tiny-transformer-attention.svg"])
    for el in root.iter(NS + "text"):
        if el.get("class") == "cell":
            i, j = int(el.get("data-i")), int(el.get("data-j"))
            assert mpmath.almosteq(A[i][j], mpmath.mpf(el.text), abs_eps=mpmath.mpf("0.0005"))
            if j > i:
                assert A[i][j] == 0


@pytest.mark.parametrize("case", ["tiny-transformer", "deep"])
def test_the_pdf_heat_map_shows_the_same_labels_and_zeros(case):
    for name, tex in files(case, ".tex").items():
        pictures = re.findall(r"\\begin\{tikzpicture\}\[x=[\d.]+cm,y=-1cm\](.*?)\\end\{tikzpicture\}", tex, re.S)
        assert pictures, name
        for pic in pictures:
            assert "infty" not in pic
            node = r"\\node\[[^\]]*\] at \((\d+),(\d+)\) \{([^}]*)\}"
            cells = {(int(i), int(j)): v for j, i, v in re.findall(node, pic)}
            assert cells and all(v == "0" for (i, j), v in cells.items() if j > i)
            cols = re.findall(r"\\node at \(\d+, -0\.85\) \{([^}]*)\}", pic)
            rows = re.findall(r"\\node\[anchor=east\] at \(-0\.55, \d+\) \{([^}]*)\}", pic)
            assert cols == rows and len(rows) ** 2 == len(cells)


# ---------------------------------------------------------------- the loss chart

def loss_svg(case="bigram"):
    return ET.fromstring(files(case, "-loss.svg")[f"{case}-loss.svg"])


def test_loss_chart_ticks_axis_titles_and_every_point_inside():
    root = loss_svg()
    yt, xt = texts(root, "ytick"), texts(root, "xtick")
    assert len(yt) >= 4 and len(xt) >= 3
    is_125_sequence(yt)
    is_125_sequence(xt)
    assert texts(root, "xtitle") and texts(root, "ytitle")
    # the tick lines' y positions bound every point of the curve
    tick_y = sorted(float(el.get("y1")) for el in root.iter(NS + "line") if el.get("stroke") == "#e5e7eb")
    points = [float(el.get("cy")) for el in root.iter(NS + "circle")]
    assert len(points) >= 2 and tick_y[0] <= min(points) and max(points) <= tick_y[-1]
    for tex in files("bigram", ".tex").values():
        axis = re.search(r"\\begin\{axis\}\[width=0\.85\\textwidth,(.*?)\]\n", tex, re.S)[1]
        assert re.search(r"ytick=\{([^}]*)\}", axis)[1].split(",") == yt
        assert "xlabel=" in axis and "ylabel=" in axis


@pytest.mark.parametrize("ys", [["2.4512", "2.4377", "2.4101", "2.3980"], ["0.0031", "0.0029", "0.0028"],
                                ["1.0515", "0.8894", "0.0125"], ["-0.5", "0.25"], ["3", "3"]])
def test_loss_range_is_fitted_to_the_data(ys):
    """Hand-made data: the y range holds every point, is not much wider than the data, and
    does not start at 0 when the data is far from 0."""
    fig = line(list(range(1, len(ys) + 1)), ys)
    lo, hi = min(map(Fraction, ys)), max(map(Fraction, ys))
    ymin, ymax = Fraction(fig["ymin"]), Fraction(fig["ymax"])
    assert ymin <= lo and hi <= ymax
    step = is_125_sequence(fig["yticks"])
    assert 4 <= len(fig["yticks"]) <= 7
    assert Fraction(fig["yticks"][0]) == ymin and Fraction(fig["yticks"][-1]) == ymax
    if hi > lo:  # margin each side: the 5 % pad and at most one tick interval of rounding
        assert lo - ymin <= (hi - lo) / 20 + step and ymax - hi <= (hi - lo) / 20 + step
        assert ymax - ymin <= 3 * (hi - lo)
    else:  # constant data: a window of ±5 % around it, rounded to ticks
        assert ymax - ymin <= abs(hi) / 5
    if lo > 2 * (hi - lo) > 0:
        assert ymin > 0
    if lo >= 0:
        assert ymin >= 0
    root = ET.fromstring(svg(fig))
    assert texts(root, "ytick") == fig["yticks"]


@pytest.mark.parametrize("case", ["bigram", "tiny-transformer"])
def test_the_precision_picture_draws_the_digits_table(case):
    """NAME-precision.svg: one line per format, one point per row of the document's digits table, at its height
    (y = digits / 16 of the plot), and the TikZ picture of the PDF plots the same coordinates."""
    md = files(case, ".en.md")[f"{case}.en.md"]
    part = md.split("Correct significant digits of every tensor, in evaluation order**", 1)[1].split("\n\n")[1]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in part.splitlines()[2:]]
    table = {k: [int(r[1 + k]) for r in rows] for k in range(4)}  # float64, float32, bfloat16, float16
    root = ET.fromstring(files(case, "-precision.svg")[f"{case}-precision.svg"])
    lines = [el for el in root.iter(NS + "polyline")]
    assert len(lines) == 4
    for k, el in enumerate(lines):
        ys = [float(p.split(",")[1]) for p in el.get("points").split()]
        assert len(ys) == len(rows)
        assert [round((36 + 240 - y) / 240 * 16, 6) for y in ys] == table[k]  # top 36, plot height 240, 0..16
    tex = files(case, ".en.tex")[f"{case}.en.tex"]
    plots = re.findall(r"\\addplot\[symgpt-series\d[^\]]*\] coordinates \{([^}]*)\}", tex)
    assert [[int(y) for y in re.findall(r"\(\d+,(\d+)\)", p)] for p in plots] == [table[k] for k in range(4)]
