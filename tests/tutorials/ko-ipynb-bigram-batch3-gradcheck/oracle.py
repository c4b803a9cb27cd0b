#!/usr/bin/env python3
"""Independent oracle for ko-ipynb-bigram-batch3-gradcheck: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model: bigram, vocab 나는 밥을 먹는다 학교에 간다 (ids 0..4), d = 2. Embedding C (the spec's E, 5x2),
output weights U (the spec's W, 2x5). A mini-batch of three pairs: 나는→밥을, 밥을→먹는다, 학교에→간다.
Per pair b: h = C[input], o = h·U, p = softmax(o), loss_b = -ln p[target]; batch loss J = mean of the three.
Batch gradients: dU = (1/3) Σ_b hᵀ(p - y), dC[input_b] += (1/3) U(p - y). Central difference of J with
h = 1e-4 on U[0,밥을], U[1,간다], C[학교에,0]. One SGD step with lr 0.3 on U and C together.
Rounding is half away from zero, on the 45-digit decimal of the value.

It prints (1) every figure of DOC.ipynb listed in FIGURES, checking that the figure stands on its line
and is the correct rounding (or, for the 8 planted ones, is not), and (2) every row of KEY.md with its
exact value, asserting the key's "exact value" and "correct rounding" columns.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
VOCAB = ["나는", "밥을", "먹는다", "학교에", "간다"]
ID = {w: i for i, w in enumerate(VOCAB)}
PAIRS = [(0, 1), (1, 2), (3, 4)]


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0" if n == 0 and s in ("0", "-0") else s


C0 = M([[0.4, -0.2], [-0.3, 0.5], [0.1, 0.3], [0.6, 0.2], [-0.2, -0.4]])
U0 = M([[0.2, -0.1, 0.3, 0.5, -0.4], [-0.3, 0.4, 0.1, -0.2, 0.6]])
LR = mp.mpf("0.3")
H = mp.mpf("1e-4")


def example(C, U, a, t):
    h = C[a][:]
    o = [h[0] * U[0][j] + h[1] * U[1][j] for j in range(5)]
    Z = mp.fsum(mp.exp(v) for v in o)
    p = [mp.exp(v) / Z for v in o]
    dz = [p[j] - (1 if j == t else 0) for j in range(5)]
    gx = [mp.fsum(U[i][j] * dz[j] for j in range(5)) for i in range(2)]
    return dict(h=h, o=o, Z=Z, p=p, loss=-mp.log(p[t]), dz=dz, gx=gx)


def batch(C, U):
    ex = [example(C, U, a, t) for a, t in PAIRS]
    J = mp.fsum(e["loss"] for e in ex) / 3
    dU = [[mp.fsum(e["h"][i] * e["dz"][j] for e in ex) / 3 for j in range(5)] for i in range(2)]
    dC = [[mp.mpf(0), mp.mpf(0)] for _ in range(5)]
    for e, (a, _) in zip(ex, PAIRS):
        for i in range(2):
            dC[a][i] += e["gx"][i] / 3
    return ex, J, dU, dC


def moved(name, i, j, delta):
    C, U = [r[:] for r in C0], [r[:] for r in U0]
    (C if name == "C" else U)[i][j] += delta
    return batch(C, U)[1]


def values():
    ex, J, dU, dC = batch(C0, U0)
    U1 = [[U0[i][j] - LR * dU[i][j] for j in range(5)] for i in range(2)]
    C1 = [[C0[v][i] - LR * dC[v][i] for i in range(2)] for v in range(5)]
    ex1, J1, _, _ = batch(C1, U1)
    val = {}
    for v in range(5):
        for i in range(2):
            val[f"E[{VOCAB[v]},{i}]"] = C0[v][i]
            val[f"W[{i},{VOCAB[v]}]"] = U0[i][v]
    for b, e in enumerate(ex):
        pre = "" if b == 0 else f"example[{b}]."
        for v in range(5):
            w = VOCAB[v]
            val[f"{pre}z[{w}]"] = e["o"][v]
            val[f"{pre}p[{w}]"] = e["p"][v]
            val[f"{pre}grad_z[{w}]"] = e["dz"][v]
            val[f"exp({pre}z[{w}])"] = mp.exp(e["o"][v])
        val[f"{pre}sum_exp"] = e["Z"]
        val[f"{pre}loss"] = e["loss"]
        for i in range(2):
            val[f"{pre}grad_x[{i}]"] = e["gx"][i]
    val["sgd[0].loss"] = J
    for i in range(2):
        for v in range(5):
            val[f"sgd[0].grad_W[{i},{VOCAB[v]}]"] = dU[i][v]
            val[f"sgd[1].W[{i},{VOCAB[v]}]"] = U1[i][v]
    for v in range(5):
        for i in range(2):
            val[f"sgd[0].grad_E[{VOCAB[v]},{i}]"] = dC[v][i]
            val[f"sgd[1].E[{VOCAB[v]},{i}]"] = C1[v][i]
    val["sgd[1].loss"] = J1
    val["sgd[1].p[밥을]"] = ex1[0]["p"][1]
    val["sgd[0].loss - sgd[1].loss"] = J - J1
    # the batch gradient check: no symgpt name (symgpt's loss_at/gradcheck are example 0's)
    for name, i, j, lab in (("U", 0, 1, "U[0,밥을]"), ("U", 1, 4, "U[1,간다]"), ("C", 3, 0, "C[학교에,0]")):
        jp, jm = moved(name, i, j, H), moved(name, i, j, -H)
        val[f"J_batch({lab}+h)"], val[f"J_batch({lab}-h)"] = jp, jm
        val[f"central_diff_batch({lab})"] = (jp - jm) / (2 * H)
    val["ln 5"] = mp.log(5)
    return val


# every figure of a model quantity in DOC.ipynb: (line of the JSON file, figure as printed, quantity, planted)
FIGURES = [
    # In[1]: the weights
    (50, "0.4", "E[나는,0]", 0), (50, "-0.2", "E[나는,1]", 0), (51, "-0.3", "E[밥을,0]", 0), (51, "0.5", "E[밥을,1]", 0),
    (52, "0.1", "E[먹는다,0]", 0), (52, "0.3", "E[먹는다,1]", 0), (53, "0.6", "E[학교에,0]", 0), (53, "0.2", "E[학교에,1]", 0),
    (54, "-0.2", "E[간다,0]", 0), (54, "-0.4", "E[간다,1]", 0),
    *[(56, f, f"W[0,{w}]", 0) for f, w in zip(["0.2", "-0.1", "0.3", "0.5", "-0.4"], VOCAB)],
    *[(57, f, f"W[1,{w}]", 0) for f, w in zip(["-0.3", "0.4", "0.1", "-0.2", "0.6"], VOCAB)],
    # Out[2]: logits
    *[(85, f, f"z[{w}]", 0) for f, w in zip(["0.14", "-0.12", "0.1", "0.24", "-0.28"], VOCAB)],
    *[(86, f, f"example[1].z[{w}]", 0) for f, w in zip(["-0.21", "0.23", "-0.04", "-0.25", "0.42"], VOCAB)],
    *[(87, f, f"example[2].z[{w}]", 0) for f, w in zip(["0.06", "0.02", "0.2", "0.26", "-0.12"], VOCAB)],
    (108, "0.4", "E[나는,0]", 0), (108, "-0.1", "W[0,밥을]", 0), (108, "-0.2", "E[나는,1]", 0), (108, "-0.12", "z[밥을]", 0),
    # Out[3]: probabilities
    *[(122, f, f"p[{w}]", 0) for f, w in zip(["0.2225", "0.1716", "0.2138", "0.2459", "0.1462"], VOCAB)],
    *[(123, f, f"example[1].p[{w}]", 0) for f, w in zip(["0.1521", "0.2361", "0.1802", "0.1461", "0.2855"], VOCAB)],
    *[(124, f, f"example[2].p[{w}]", 0) for f, w in zip(["0.1935", "0.1859", "0.2226", "0.2364", "0.1616"], VOCAB)],
    (146, "-0.04", "example[1].z[먹는다]", 0), (146, "0.9608", "exp(example[1].z[먹는다])", 0),
    (146, "0.42", "example[1].z[간다]", 0), (146, "1.5220", "exp(example[1].z[간다])", 0),
    (146, "0.23", "example[1].z[밥을]", 0), (146, "1.2586", "exp(example[1].z[밥을])", 0),
    (147, "5.3307", "example[1].sum_exp", 0),
    (149, "0.9608", "exp(example[1].z[먹는다])", 0), (149, "5.3307", "example[1].sum_exp", 0), (149, "0.1802", "example[1].p[먹는다]", 0),
    # Out[4]: losses
    (164, "0.1716", "p[밥을]", 0), (164, "1.7628", "loss", 0),
    (165, "0.1802", "example[1].p[먹는다]", 0), (165, "1.7135", "example[1].loss", 0),
    (166, "0.1616", "example[2].p[간다]", 0), (166, "1.8224", "example[2].loss", 0),
    (167, "1.7662", "sgd[0].loss", 0),
    (188, "0.1716", "p[밥을]", 0), (188, "1.7628", "loss", 0),
    (189, "0.1802", "example[1].p[먹는다]", 0), (189, "1.7153", "example[1].loss", 1),
    (190, "0.1616", "example[2].p[간다]", 0), (190, "1.8224", "example[2].loss", 0),
    (192, "0.1616", "example[2].p[간다]", 0), (192, "1.8226", "example[2].loss", 1),
    (193, "1.7628", "loss", 0), (193, "1.7135", "example[1].loss", 0), (193, "1.8224", "example[2].loss", 0),
    (193, "1.7662", "sgd[0].loss", 0), (193, "1.6094", "ln 5", 0),
    (203, "0.1802", "example[1].p[먹는다]", 0), (203, "-0.8198", "example[1].grad_z[먹는다]", 0),
    # Out[5]: dU
    *[(218, f, f"sgd[0].grad_W[0,{w}]", 0) for f, w in zip(["0.0532", "-0.0969", "0.155", "0.0654", "-0.1767"], VOCAB)],
    *[(219, f, f"sgd[0].grad_W[1,{w}]", 0) for f, w in zip(["0.0234", "0.107", "-0.136", "0.0237", "-0.0181"], VOCAB)],
    (242, "0.4", "E[나는,0]", 0), (242, "-0.8284", "grad_z[밥을]", 0), (242, "-0.3", "E[밥을,0]", 0),
    (242, "0.2361", "example[1].grad_z[밥을]", 0), (242, "0.6", "E[학교에,0]", 0), (242, "0.1859", "example[2].grad_z[밥을]", 0),
    (242, "-0.0969", "sgd[0].grad_W[0,밥을]", 0),
    (246, "-0.2", "E[나는,1]", 0), (246, "0.2138", "grad_z[먹는다]", 0), (246, "0.5", "E[밥을,1]", 0),
    (246, "0.1802", "example[1].p[먹는다]", 0), (246, "0.2", "E[학교에,1]", 0), (246, "0.2226", "example[2].grad_z[먹는다]", 0),
    (246, "0.0306", "sgd[0].grad_W[1,먹는다]", 1),
    # Out[6]: dC
    (258, "0.0853", "sgd[0].grad_E[나는,0]", 0), (258, "-0.1127", "sgd[0].grad_E[나는,1]", 0),
    (259, "-0.0934", "sgd[0].grad_E[밥을,0]", 0), (259, "0.0363", "sgd[0].grad_E[밥을,1]", 0),
    (260, "0.", "sgd[0].grad_E[먹는다,0]", 0), (260, "0.", "sgd[0].grad_E[먹는다,1]", 0),
    (261, "0.1801", "sgd[0].grad_E[학교에,0]", 0), (261, "-0.1706", "sgd[0].grad_E[학교에,1]", 0),
    (262, "0.", "sgd[0].grad_E[간다,0]", 0), (262, "0.", "sgd[0].grad_E[간다,1]", 0),
    (281, "0.2560", "grad_x[0]", 0), (281, "-0.3382", "grad_x[1]", 0),
    (281, "0.0853", "sgd[0].grad_E[나는,0]", 0), (281, "-0.1127", "sgd[0].grad_E[나는,1]", 0),
    (282, "0.5404", "sgd[0].grad_E[학교에,0]", 1),
    # Out[7]: the batch gradient check
    (311, "1.7662170760", "J_batch(U[0,밥을]+h)", 0), (311, "1.7662364527", "J_batch(U[0,밥을]-h)", 0),
    (311, "-0.096883", "central_diff_batch(U[0,밥을])", 0), (311, "-0.096883", "sgd[0].grad_W[0,밥을]", 0),
    (312, "1.7662249589", "J_batch(U[1,간다]+h)", 0), (312, "1.7662285697", "J_batch(U[1,간다]-h)", 0),
    (312, "-0.018054", "central_diff_batch(U[1,간다])", 0), (312, "-0.018054", "sgd[0].grad_W[1,간다]", 0),
    (313, "1.7662447780", "J_batch(C[학교에,0]+h)", 0), (313, "1.7662087507", "J_batch(C[학교에,0]-h)", 0),
    (313, "0.180136", "central_diff_batch(C[학교에,0])", 0), (313, "0.180136", "sgd[0].grad_E[학교에,0]", 0),
    (345, "0.0181", "sgd[0].grad_W[1,간다]", 1),
    # Out[8]: SGD
    (369, "-0.1000", "W[0,밥을]", 0), (369, "-0.0709", "sgd[1].W[0,밥을]", 0),
    (370, "0.2000", "W[0,나는]", 0), (370, "0.1841", "sgd[1].W[0,나는]", 0),
    (371, "0.6000", "W[1,간다]", 0), (371, "0.6054", "sgd[1].W[1,간다]", 0),
    (372, "-0.2000", "E[나는,1]", 0), (372, "-0.1662", "sgd[1].E[나는,1]", 0),
    (373, "0.6000", "E[학교에,0]", 0), (373, "0.5460", "sgd[1].E[학교에,0]", 0),
    (374, "1.7662", "sgd[0].loss", 0), (374, "1.7108", "sgd[1].loss", 0),
    (375, "0.1716", "p[밥을]", 0), (375, "0.1778", "sgd[1].p[밥을]", 0),
    (397, "0.2", "W[0,나는]", 0), (397, "0.0532", "sgd[0].grad_W[0,나는]", 0), (397, "0.1840", "sgd[1].W[0,나는]", 1),
    (401, "-0.1", "W[0,밥을]", 0), (401, "0.0234", "sgd[0].grad_W[0,밥을]", 1), (401, "-0.0709", "sgd[1].W[0,밥을]", 0),
    (402, "0.6", "W[1,간다]", 0), (402, "-0.0181", "sgd[0].grad_W[1,간다]", 0), (402, "0.6055", "sgd[1].W[1,간다]", 1),
    (403, "-0.2", "E[나는,1]", 0), (403, "-0.1127", "sgd[0].grad_E[나는,1]", 0), (403, "-0.1662", "sgd[1].E[나는,1]", 0),
    (404, "0.6", "E[학교에,0]", 0), (404, "0.1801", "sgd[0].grad_E[학교에,0]", 0), (404, "0.5460", "sgd[1].E[학교에,0]", 0),
    (406, "1.7662", "sgd[0].loss", 0), (406, "1.7108", "sgd[1].loss", 0), (406, "0.0555", "sgd[0].loss - sgd[1].loss", 0),
    (406, "0.1716", "p[밥을]", 0), (406, "0.1778", "sgd[1].p[밥을]", 0),
]


def places(fig: str) -> int:
    return len(fig.rstrip("%").split(".")[1]) if "." in fig else 0


def check_figures(val) -> int:
    lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    bad = 0
    for line, fig, ref, planted in FIGURES:
        text = lines[line - 1]
        found = re.search(r"(?<![\d.])" + re.escape(fig) + r"(?![\d])", text) is not None
        right = rnd(val[ref], places(fig))
        shown = "0" if fig == "0." else fig
        ok = found and ((right != shown) if planted else (right == shown))
        bad += not ok
        if not ok:
            print(f"  FIGURE PROBLEM line {line}: {fig!r} {ref} = {mp.nstr(val[ref], 15)} rounds to {right} (on line: {found})")
    n_planted = sum(p for *_, p in FIGURES)
    print(f"DOC.ipynb: {len(FIGURES)} figures checked ({n_planted} planted), {bad} problems")
    assert n_planted == 8
    return bad


def check_key(val) -> int:
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    bad, planted = 0, 0
    print("KEY.md:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in val), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        assert printed in lines[line - 1], f"{printed} not on line {line}"
        v = val[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        right = rnd(v, places(shown)) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    assert planted == 8, planted
    return bad


def main() -> int:
    val = values()
    bad = check_figures(val) + check_key(val)
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} disagreements")
    assert bad == 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
