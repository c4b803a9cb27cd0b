#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial sw-md-bigram-sgd3 (plain mpmath, 50 digits, no symgpt).

Model: bigram, vocab (mama, anapika, chakula, kitamu, leo), d = 2, input 'anapika', target 'chakula'.
x = E[anapika], z = x·W, p = softmax(z), loss = -ln p[chakula], grad_z = p - y,
grad_W = outer(x, grad_z), grad_x = W·grad_z (lands on E's anapika row only).
SGD, lr 0.5, three steps on W and E together; sgd[k] is the model after k updates.

    python oracle.py          # checks every row of KEY.md against the exact values
    python oracle.py --dump   # prints every quantity (for writing the document)
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["mama", "anapika", "chakula", "kitamu", "leo"]
D = 2
TOK = VOCAB.index("anapika")
TGT = VOCAB.index("chakula")
LR = mp.mpf("0.5")
STEPS = 3

E0 = [["0.3", "-0.1"], ["0.5", "-0.4"], ["-0.2", "0.6"], ["0.1", "0.35"], ["-0.45", "0.2"]]
W0 = [["0.2", "-0.3", "-0.1", "0.6", "-0.1"], ["0.4", "0.2", "-0.5", "0.3", "0.25"]]


def mat(a):
    return [[mp.mpf(v) for v in row] for row in a]


def forward_backward(E, W):
    V = len(VOCAB)
    x = list(E[TOK])
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    ez = [mp.exp(v) for v in z]
    S = mp.fsum(ez)
    p = [e / S for e in ez]
    loss = -mp.log(p[TGT])
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(D)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, expz=ez, sum_exp=S, p=p, loss=loss,
                grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def trace():
    states = [forward_backward(mat(E0), mat(W0))]
    for _ in range(STEPS):
        s = states[-1]
        W = [[s["W"][i][j] - LR * s["grad_W"][i][j] for j in range(len(VOCAB))] for i in range(D)]
        E = [[s["E"][v][i] - LR * s["grad_E"][v][i] for i in range(D)] for v in range(len(VOCAB))]
        states.append(forward_backward(E, W))
    return states


STATES = trace()


def idx(tok: str) -> int:
    tok = tok.strip()
    return int(tok) if tok.isdigit() else VOCAB.index(tok)


def value(name: str):
    """Value of a symgpt-style name: [sgd[k].]NAME[i,j] or exp(z[v])."""
    name = name.strip().strip("`")
    k = 0
    m = re.match(r"sgd\[(\d+)\]\.(.*)$", name)
    if m:
        k, name = int(m.group(1)), m.group(2)
    s = STATES[k]
    m = re.match(r"exp\(z\[(.+)\]\)$", name)
    if m:
        return s["expz"][idx(m.group(1))]
    m = re.match(r"([A-Za-z_]+)(?:\[(.+)\])?$", name)
    base, ind = m.group(1), m.group(2)
    t = s[base]
    if ind is None:
        return t
    parts = [q.strip() for q in ind.split(",")]
    if base in ("W", "grad_W"):        # [j, token]
        return t[int(parts[0])][idx(parts[1])]
    if base in ("E", "grad_E"):        # [token, j]
        return t[idx(parts[0])][int(parts[1])]
    if base in ("x", "grad_x"):
        return t[int(parts[0])]
    return t[idx(parts[0])]            # z, p, grad_z, expz


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def decimals(text: str) -> int:
    t = text.strip().strip("`").replace("−", "-").rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def dump():
    for k, s in enumerate(STATES):
        pre = f"sgd[{k}]." if k else ""
        print(f"--- {pre or 'initial'}")
        print("x", [rnd(v, 6) for v in s["x"]])
        print("z", [rnd(v, 6) for v in s["z"]])
        print("exp(z)", [rnd(v, 6) for v in s["expz"]], "sum_exp", rnd(s["sum_exp"], 6))
        print("p", [rnd(v, 6) for v in s["p"]], "loss", rnd(s["loss"], 6))
        print("grad_z", [rnd(v, 6) for v in s["grad_z"]])
        print("grad_W", [[rnd(v, 6) for v in r] for r in s["grad_W"]])
        print("grad_x", [rnd(v, 6) for v in s["grad_x"]])
        print("W", [[rnd(v, 6) for v in r] for r in s["W"]])
        print("E", [[rnd(v, 6) for v in r] for r in s["E"]])
        print("argmax", VOCAB[max(range(len(VOCAB)), key=lambda j: s["p"][j])])


def table_rows(text: str, heading: str):
    sec = text.split(heading, 1)[1]
    sec = re.split(r"\n## ", sec, maxsplit=1)[0]
    rows = []
    for line in sec.splitlines():
        if line.startswith("|") and not line.startswith("| ---") and not line.startswith("| printed"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append(cells)
    return rows


def check_key():
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    doc_lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = 0
    planted = table_rows(key, "## Planted errors")
    assert len(planted) == 8, f"expected 8 planted errors, found {len(planted)}"
    print("## Planted errors")
    for printed, line, where, exact, correct, kind, quantity in planted:
        q = quantity.split(" or ")[0].strip().strip("`")
        v = value(q)
        pr = printed.strip("`")
        corr = correct.strip("`")
        ex = exact.rstrip("…").replace("−", "-")
        ok_exact = abs(v - mp.mpf(ex)) <= mp.mpf(10) ** (-decimals(ex))
        ok_round = rnd(100 * v if corr.endswith("%") else v, decimals(corr)) + ("%" if corr.endswith("%") else "") == corr
        in_line = pr in doc_lines[int(line) - 1]
        wrong = pr.replace("−", "-") != corr
        flag = "ok" if (ok_exact and ok_round and in_line and wrong) else "FAIL"
        bad += flag != "ok"
        print(f"{flag:4} {q:26} exact {mp.nstr(v, 15):>18}  printed {pr:>8} line {line:>3}  correct {corr:>8}"
              f"  exact-col {'ok' if ok_exact else 'BAD'}  rounding-col {'ok' if ok_round else 'BAD'}"
              f"  in-line {in_line}  differs {wrong}")
    print("## Correct figures")
    correct_rows = table_rows(key, "## Correct figures")
    assert len(correct_rows) == 10, f"expected 10 correct figures, found {len(correct_rows)}"
    for printed, line, where, quantity in correct_rows:
        q = quantity.split(" or ")[0].strip().strip("`")
        v = value(q)
        pr = printed.strip("`")
        n = decimals(pr)
        pct = pr.endswith("%")
        ok = rnd(100 * v if pct else v, n) + ("%" if pct else "") == pr.replace("−", "-")
        in_line = pr in doc_lines[int(line) - 1]
        flag = "ok" if (ok and in_line) else "FAIL"
        bad += flag != "ok"
        print(f"{flag:4} {q:26} exact {mp.nstr(v, 15):>18}  printed {pr:>8} line {line:>3}  in-line {in_line}")
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print("all key rows agree with the oracle")


# Every figure of a model quantity in DOC.md: (line, printed, quantity). Planted ones are in KEY.md.
V5 = ["mama", "anapika", "chakula", "kitamu", "leo"]
AUDIT = (
    [(29 + v, t, f"E[{V5[v]},{j}]") for v in range(5) for j, t in enumerate(
        [["0.3", "-0.1"], ["0.5", "-0.4"], ["-0.2", "0.6"], ["0.1", "0.35"], ["-0.45", "0.2"]][v])]
    + [(40 + i, t, f"W[{i},{V5[j]}]") for i in range(2) for j, t in enumerate(
        [["0.2", "-0.3", "-0.1", "0.6", "-0.1"], ["0.4", "0.2", "-0.5", "0.3", "0.25"]][i])]
    + [(47, "0.5", "x[0]"), (47, "-0.4", "x[1]"),
       (52, "0.5", "x[0]"), (52, "-0.1", "W[0,chakula]"), (52, "-0.4", "x[1]"), (52, "-0.5", "W[1,chakula]"),
       (52, "0.15", "z[chakula]")]
    + [(61 + v, t, q) for v in range(5) for t, q in zip(
        [["-0.06", "0.9418", "0.1900"], ["-0.23", "0.7954", "0.1603"], ["0.15", "1.1618", "0.2344"],
         ["0.18", "1.1972", "0.2416"], ["-0.15", "0.8607", "0.1737"]][v],
        [f"z[{V5[v]}]", f"exp(z[{V5[v]}])", f"p[{V5[v]}]"])]
    + [(67, "4.9561", "sum_exp"), (73, "1.4506", "loss"), (78, "0.2416", "p[kitamu]"), (78, "0.2344", "p[chakula]")]
    + [(86, t, f"grad_z[{V5[j]}]") for j, t in enumerate(["0.1900", "0.1603", "-0.7656", "0.2416", "0.1737"])]
    + [(97 + i, t, f"grad_W[{i},{V5[j]}]") for i in range(2) for j, t in enumerate(
        [["0.0950", "-0.0760", "-0.3828", "0.1208", "0.0868"], ["-0.0760", "-0.0641", "-0.0938", "-0.0966", "-0.0695"]][i])]
    + [(101, "0.5", "x[0]"), (101, "-0.7656", "grad_z[chakula]"), (101, "-0.3828", "grad_W[0,chakula]")]
    + [(110 + v, t, f"grad_E[{V5[v]},{j}]") for v in range(5) for j, t in enumerate(
        [["0", "0"], ["0.1940", "0.6067"], ["0", "0"], ["0", "0"], ["0", "0"]][v])]
    + [(118, t, q) for t, q in [("0.4", "W[1,mama]"), ("0.1900", "grad_z[mama]"), ("0.2", "W[1,anapika]"),
                                ("0.1603", "grad_z[anapika]"), ("-0.5", "W[1,chakula]"), ("-0.7656", "grad_z[chakula]"),
                                ("0.3", "W[1,kitamu]"), ("0.2416", "grad_z[kitamu]"), ("0.25", "W[1,leo]"),
                                ("0.1737", "grad_z[leo]"), ("0.6068", "grad_x[1]")]]
    + [(129, "-0.1", "W[0,chakula]"), (129, "-0.3828", "grad_W[0,chakula]"), (129, "0.0914", "sgd[1].W[0,chakula]"),
       (130, "-0.5", "W[1,chakula]"), (130, "0.3062", "grad_W[1,chakula]"), (130, "-0.6531", "sgd[1].W[1,chakula]"),
       (131, "0.25", "W[1,leo]"), (131, "-0.0695", "grad_W[1,leo]"), (131, "0.2848", "sgd[1].W[1,leo]"),
       (133, "0.4030", "sgd[1].E[anapika,0]"), (133, "-0.7034", "sgd[1].E[anapika,1]"),
       (135, "0.3345", "sgd[1].p[chakula]"), (136, "0.1981", "sgd[1].p[kitamu]")]
    + [(146 + k, t, f"sgd[{k}].{q}" if k else q) for k in range(4)
       for t, q in zip([["1.4506", "0.2344"], ["1.0950", "0.3345"], ["0.6920", "0.5006"], ["0.3394", "0.7122"]][k],
                       ["loss", "p[chakula]"])]
    + [(155, "0.3265", "sgd[3].W[0,chakula]"), (156, "1.1443", "sgd[3].W[1,chakula]"),
       (157, "0.4499", "sgd[3].E[anapika,0]"), (158, "-1.3477", "sgd[3].E[anapika,1]"),
       (165, "23.44%", "p[chakula]"), (166, "0.7122%", "sgd[3].p[chakula]"),
       (166, "1.4506", "loss"), (166, "0.3394", "sgd[3].loss")]
)


def audit_doc():
    """Every figure of DOC.md: in its line, and the correct rounding unless it is a planted error."""
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    planted = {(int(r[1]), r[0].strip("`")) for r in table_rows(key, "## Planted errors")}
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad, seen = 0, set()
    for line, printed, q in AUDIT:
        assert printed in lines[line - 1], (line, printed)
        pct = printed.endswith("%")
        v = value(q)
        ok = rnd(100 * v if pct else v, decimals(printed)) + ("%" if pct else "") == printed
        if (line, printed) in planted:
            seen.add((line, printed))
            assert not ok, (line, printed, q)
        elif not ok:
            bad += 1
            print(f"FAIL line {line}: {printed} is not {q} = {mp.nstr(v, 12)}")
    assert seen == planted, planted - seen
    assert bad == 0
    print(f"audit: {len(AUDIT)} figures of DOC.md, {len(planted)} planted, the rest correctly rounded")


if __name__ == "__main__":
    if "--dump" in sys.argv:
        dump()
    else:
        check_key()
        audit_doc()
