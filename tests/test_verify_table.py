"""verify's terminal table: East Asian width, combining marks, and wrapped (never cut) where and ref cells."""
import json
import os
import re
import subprocess
import sys

import pytest

from symgpt.claims.claims import Verdict
from symgpt.verify import format_table

from conftest import ROOT

# Display widths worked out by hand for the characters used below: CJK ideographs and the corner
# brackets 「」 take two columns, the combining circumflex (U+0302) none, ASCII and the curly quotes “”
# (East Asian "ambiguous", narrow outside CJK locales, as wcwidth counts them) one.
WIDE = set("表偏差修正行数值观察按参现收的税「」")
ZERO = {"\u0302"}


def columns(s: str) -> int:
    return sum(0 if c in ZERO else 2 if c in WIDE else 1 for c in s)


def verdict(i, where, ref):
    return Verdict("f.claims.toml", i, 3, ref, "0.1952", where, None, "0.19517…", "0.1952",
                   "wrong", "plain error", "1.0")


WHERES = ["§3.2 AdamW 表 偏差修正 行 数值 m\u0302",
          "§3.2 观察 2 「按参数现值收 0.1% 的“税”」 and a long English tail that goes on and on past any column",
          "§1"]
REFS = ["adamw[1].mhat[W,0,2]", "sqrt(adamw[1].vhat[W,0,2]) + adamw[1].decay[W,0,2] / W[0,2] * lr", "loss"]


def test_rows_align_and_wrapped_cells_keep_every_character():
    table = format_table([("f.claims.toml", [verdict(i + 1, w, r) for i, (w, r) in enumerate(zip(WHERES, REFS))])])
    lines = table.splitlines()
    head = lines[0]
    at = columns(head[:head.index("printed")])             # display column where "printed" starts
    body = lines[2:lines.index("")]
    assert len(body) > len(WHERES)                          # the long cells did wrap
    first_lines = [ln for ln in body if ln[:1].isdigit()]
    assert len(first_lines) == len(WHERES)
    for ln in first_lines:                                  # the printed figure starts under its heading
        assert ln.index("0.1952") >= 0
        assert columns(ln[:ln.index("0.1952")]) == at, ln
    for ln in body:
        assert columns(ln) <= columns(head) + 40
    # each wrapped cell, its lines read down its column and joined, is the whole string (nothing cut)
    where_at = columns(head[:head.index("where")])
    ref_at, printed_at = columns(head[:head.index("ref")]), at
    rows, row = [], None
    for ln in body:
        if ln[:1].isdigit():
            row = [[], []]
            rows.append(row)
        row[0].append(at_columns(ln, where_at, ref_at - 2).strip())
        row[1].append(at_columns(ln, ref_at, printed_at - 2).strip())
    for (where_lines, ref_lines), where, ref in zip(rows, WHERES, REFS):
        assert " ".join(x for x in where_lines if x).replace(" ", "") == where.replace(" ", "")
        assert "".join(ref_lines).replace(" ", "") == ref.replace(" ", "")
    assert "…" not in "".join(ln for ln in body if "0.19517…" not in ln)


def at_columns(line: str, a: int, b: int) -> str:
    """The characters of ``line`` that start at display columns a ≤ col < b (a combining mark
    goes with the character before it)."""
    out, col, took = "", 0, False
    for c in line:
        took = took if c in ZERO else a <= col < b
        if took:
            out += c
        col += columns(c)
    return out


def test_wrapped_cells_stay_inside_their_columns():
    table = format_table([("f.claims.toml", [verdict(1, WHERES[1], REFS[1]), verdict(2, WHERES[0], REFS[0])])])
    lines = table.splitlines()
    head = lines[0]
    for left, right in (("where", "ref"), ("ref", "printed")):
        gap_end = columns(head[:head.index(right)])      # the two spaces before a heading separate the columns
        for ln in lines[2:lines.index("")]:
            assert at_columns(ln, gap_end - 2, gap_end).strip() == "", (left, ln)
    assert columns(head[:head.index("ref")]) - columns(head[:head.index("where")]) <= 34 + 2


def _runs(word: str) -> list:
    """The stretches of a word between wide (CJK) characters: a line may break between two of those."""
    import unicodedata
    return [r for r in re.split(r"[" + "".join(sorted({c for c in word if unicodedata.east_asian_width(c) in "WF"}))
                                + "]+", word) if r] if any(unicodedata.east_asian_width(c) in "WF" for c in word) \
        else [word]


@pytest.mark.parametrize("columns", [40, 57, 80, 116, 117, 150, 240])
def test_symgpt_verify_never_splits_a_figure_or_a_name_at_any_width(columns):
    """Through the command, COLUMNS=N: every line fits N terminal columns (as wcwidth counts them) unless it is
    one word wider than that (the file's path at 40), and every
    word (text between spaces) of every wrong claim's cells, as --format json gives them, stands whole on one
    line of that claim's rows; the seed's claims include `0.560×1.009` and `((2.541-2.149)/0.392,`."""
    wcwidth = pytest.importorskip("wcwidth")
    env = dict(os.environ, COLUMNS=str(columns))
    run = lambda *a: subprocess.run([sys.executable, "-m", "symgpt", "verify", "tiny-transformer", *a],
                                    capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    table, claims = run(), json.loads(run("--format", "json").stdout)
    assert table.returncode == 1 and table.stderr == ""
    lines = table.stdout.splitlines()
    wide = [ln for ln in lines if wcwidth.wcswidth(ln) > columns]
    assert all(len(ln.split()) == 1 for ln in wide), wide   # only a word wider than the line itself is wider
    lines = lines[:next(i for i, ln in enumerate(lines) if ln.startswith("derivations/"))]  # before the summary
    starts = {}                                              # claim number → index of its first line
    for i, ln in enumerate(lines):
        m = re.match(r"#\s+(\d+)$", ln) or re.match(r"(\d+)\s", ln)
        if m:
            starts[int(m[1])] = i
    wrong = [c for c in claims if c["verdict"] != "correct"]
    assert wrong and set(starts) == {c["index"] for c in wrong}
    ends = sorted(starts.values()) + [len(lines)]
    for c in wrong:
        at = starts[c["index"]]
        block = lines[at:ends[ends.index(at) + 1]]
        words = [w for ln in block for w in ln.split()]
        for key in ("where", "ref", "printed", "exact", "correct", "cause"):
            for word in (c[key] or "").split():
                for run_ in _runs(word):
                    assert any(run_ in w for w in words), (columns, c["index"], key, run_, block)
