#!/usr/bin/env python3
"""Independent oracle for th-ipynb-bigram-sampling-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row: its quantity, exact value, and a check of the key's columns;
                              # then every model figure of DOC.ipynb (DOC_FIGURES) against its exact value

Model (SPEC.toml): a bigram, V = 6 (แมว กิน ปลา หมา นอน นม), d = 3, input แมว, target กิน.
x = E[แมว], z = x·W, p = softmax(z), loss = -ln p[กิน]; temperature softmax(z/T) at T = 0.5, 2;
top-k (k = 2) and top-p (P = 0.9, the shortest prefix of the ranking whose mass is >= P), both
renormalised; grad_z = p - y, grad_W = outer(x, p - y), grad_x = W·(p - y) (= grad_E[แมว,:]);
one SGD step (lr 0.2) on W and on E's input row, then the forward pass again.
Rounding is half away from zero, on a 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["แมว", "กิน", "ปลา", "หมา", "นอน", "นม"]
ID = {t: i for i, t in enumerate(VOCAB)}
V, D, TOK, TGT = 6, 3, 0, 1


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E0 = M([[0.8, -0.5, 0.6], [-0.1, 0.4, 0.2], [0.3, 0.1, -0.4],
        [0.2, -0.3, 0.1], [-0.4, 0.2, 0.5], [0.1, 0.6, -0.2]])
W0 = M([[0.45, 0.9, 0.3, -0.2, -0.85, 0.15],
        [-0.3, -0.4, 0.6, 0.2, 0.5, -0.8],
        [0.25, 0.7, 0.55, -0.75, 0.1, 0.35]])
LR = mp.mpf("0.2")


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, S=S, p=p, loss=-mp.log(p[TGT]), gz=gz, gW=gW, gx=gx)


def softmax_T(z, T):
    S = mp.fsum(mp.exp(v / T) for v in z)
    return [mp.exp(v / T) / S for v in z], S


def ranking(p):
    return sorted(range(V), key=lambda j: (-p[j], j))


def topk(p, k):
    keep = ranking(p)[:k]
    mass = mp.fsum(p[j] for j in keep)
    return [p[j] / mass if j in keep else mp.mpf(0) for j in range(V)], mass


def topp(p, P):
    keep, c = [], mp.mpf(0)
    for j in ranking(p):
        keep.append(j)
        c += p[j]
        if c >= P:
            break
    return [p[j] / c if j in keep else mp.mpf(0) for j in range(V)], c


def quantities() -> dict[str, mp.mpf]:
    f = forward(E0, W0)
    q: dict[str, mp.mpf] = {}
    for v, t in enumerate(VOCAB):
        for i in range(D):
            q[f"E[{t},{i}]"] = E0[v][i]
    for i in range(D):
        q[f"x[{i}]"] = f["x"][i]
        q[f"grad_x[{i}]"] = f["gx"][i]
        q[f"grad_E[แมว,{i}]"] = f["gx"][i]
        for j, t in enumerate(VOCAB):
            q[f"W[{i},{t}]"] = W0[i][j]
            q[f"grad_W[{i},{t}]"] = f["gW"][i][j]
            q[f"x[{i}]*W[{i},{t}]"] = f["x"][i] * W0[i][j]
            q[f"W[{i},{t}]*grad_z[{t}]"] = W0[i][j] * f["gz"][j]
            q[f"-W[{i},{t}]*grad_z[{t}]"] = -W0[i][j] * f["gz"][j]
    for j, t in enumerate(VOCAB):
        q[f"z[{t}]"] = f["z"][j]
        q[f"exp(z[{t}])"] = mp.exp(f["z"][j])
        q[f"p[{t}]"] = f["p"][j]
        q[f"grad_z[{t}]"] = f["gz"][j]
    q["sum_exp"], q["loss"] = f["S"], f["loss"]
    q["1 - p[กิน]"] = 1 - f["p"][TGT]
    # greedy: the most probable word, and its share
    best = ranking(f["p"])[0]
    assert VOCAB[best] == "กิน"
    # temperature
    for T in ("0.5", "2"):
        pT, ST = softmax_T(f["z"], mp.mpf(T))
        for j, t in enumerate(VOCAB):
            q[f"softmax_T({T}, {t})"] = pT[j]
        q[f"sum(exp(z[:]/{T}))"] = ST
    q["z[กิน]/0.5"] = f["z"][TGT] / mp.mpf("0.5")
    q["exp(z[กิน]/0.5)"] = mp.exp(f["z"][TGT] / mp.mpf("0.5"))
    # top-k and top-p
    pk, mk = topk(f["p"], 2)
    pp, mpp = topp(f["p"], mp.mpf("0.9"))
    for j, t in enumerate(VOCAB):
        q[f"topk(2, {t})"], q[f"topp(0.9, {t})"] = pk[j], pp[j]
    order = ranking(f["p"])
    assert [VOCAB[j] for j in order] == ["กิน", "นม", "แมว", "ปลา", "หมา", "นอน"]
    run = mp.mpf(0)
    names = []
    for j in order:
        run += f["p"][j]
        names.append(f"p[{VOCAB[j]}]")
        q[" + ".join(names)] = run
    assert mk == q["p[กิน] + p[นม]"] and mpp == q["p[กิน] + p[นม] + p[แมว] + p[ปลา]"]
    # one SGD step on W and on E's input row (every other row of grad_E is 0)
    W1 = [[W0[i][j] - LR * f["gW"][i][j] for j in range(V)] for i in range(D)]
    E1 = [r[:] for r in E0]
    E1[TOK] = [E0[TOK][i] - LR * f["gx"][i] for i in range(D)]
    g = forward(E1, W1)
    for i in range(D):
        q[f"sgd[1].E[แมว,{i}]"] = E1[TOK][i]
        for j, t in enumerate(VOCAB):
            q[f"sgd[1].W[{i},{t}]"] = W1[i][j]
    for j, t in enumerate(VOCAB):
        q[f"sgd[1].z[{t}]"] = g["z"][j]
        q[f"sgd[1].p[{t}]"] = g["p"][j]
    q["sgd[1].loss"] = g["loss"]
    q["loss - sgd[1].loss"] = f["loss"] - g["loss"]
    return q


# Every model figure DOC.ipynb prints: (line of the JSON file, printed, quantity). Written by the
# generator that built the notebook; the weights in the code cell that defines E and W, shapes,
# hyper-parameters (T, k, P, lr) and ids are not listed. A quantity ending in "%" is printed as a
# percentage (value × 100).
# BEGIN DOC_FIGURES
DOC_FIGURES: list[tuple[int, str, str]] = [
    (70, '0.72', 'x[0]*W[0,กิน]'),
    (70, '0.20', 'x[1]*W[1,กิน]'),
    (70, '0.42', 'x[2]*W[2,กิน]'),
    (70, '1.34', 'z[กิน]'),
    (83, '0.8', 'x[0]'),
    (83, '-0.5', 'x[1]'),
    (83, '0.6', 'x[2]'),
    (89, '0.66', 'z[แมว]'),
    (89, '1.34', 'z[กิน]'),
    (89, '0.27', 'z[ปลา]'),
    (89, '-0.71', 'z[หมา]'),
    (89, '-0.87', 'z[นอน]'),
    (89, '0.73', 'z[นม]'),
    (126, '10.0495', 'sum_exp'),
    (127, '0.1925', 'p[แมว]'),
    (128, '0.3800', 'p[กิน]'),
    (129, '0.1304', 'p[ปลา]'),
    (130, '0.0489', 'p[หมา]'),
    (131, '0.0417', 'p[นอน]'),
    (132, '0.2065', 'p[นม]'),
    (164, '0.3800', 'p[กิน]'),
    (178, '3.80%', 'p[กิน]'),
    (206, '0.1511', 'softmax_T(0.5, แมว)'),
    (206, '0.1911', 'softmax_T(2, แมว)'),
    (207, '0.5889', 'softmax_T(0.5, กิน)'),
    (207, '0.2685', 'softmax_T(2, กิน)'),
    (208, '0.0693', 'softmax_T(0.5, ปลา)'),
    (208, '0.1572', 'softmax_T(2, ปลา)'),
    (209, '0.0098', 'softmax_T(0.5, หมา)'),
    (209, '0.0963', 'softmax_T(2, หมา)'),
    (210, '0.0071', 'softmax_T(0.5, นอน)'),
    (210, '0.0889', 'softmax_T(2, นอน)'),
    (211, '0.1739', 'softmax_T(0.5, นม)'),
    (211, '0.1997', 'softmax_T(2, นม)'),
    (241, '0.3800', 'p[กิน]'),
    (241, '0.2065', 'p[นม]'),
    (241, '0.5865', 'p[กิน] + p[นม]'),
    (241, '0.3800', 'p[กิน]'),
    (241, '0.5865', 'p[กิน] + p[นม]'),
    (241, '0.6479', 'topk(2, กิน)'),
    (253, '0.6479', 'topk(2, กิน)'),
    (253, '0.3521', 'topk(2, นม)'),
    (290, '0.9094', 'p[กิน] + p[นม] + p[แมว] + p[ปลา]'),
    (296, '0.2117', 'topp(0.9, แมว)'),
    (296, '0.4179', 'topp(0.9, กิน)'),
    (296, '0.1433', 'topp(0.9, ปลา)'),
    (296, '0.2271', 'topp(0.9, นม)'),
    (325, '0.9094', 'p[กิน] + p[นม] + p[แมว] + p[ปลา]'),
    (325, '0.1304', 'p[ปลา]'),
    (325, '0.1434', 'topp(0.9, ปลา)'),
    (337, '0.3800', 'p[กิน]'),
    (337, '0.9676', 'loss'),
    (350, '0.9675', 'loss'),
    (370, '0.3800', 'p[กิน]'),
    (370, '0.6200', 'grad_z[กิน]'),
    (382, '0.1925', 'grad_z[แมว]'),
    (382, '-0.62', 'grad_z[กิน]'),
    (382, '0.1304', 'grad_z[ปลา]'),
    (382, '0.0489', 'grad_z[หมา]'),
    (382, '0.0417', 'grad_z[นอน]'),
    (382, '0.2065', 'grad_z[นม]'),
    (415, '0.154', 'grad_W[0,แมว]'),
    (415, '-0.496', 'grad_W[0,กิน]'),
    (415, '0.1155', 'grad_W[0,ปลา]'),
    (415, '0.0391', 'grad_W[0,หมา]'),
    (415, '0.0334', 'grad_W[0,นอน]'),
    (415, '0.1652', 'grad_W[0,นม]'),
    (416, '-0.0963', 'grad_W[1,แมว]'),
    (416, '0.31', 'grad_W[1,กิน]'),
    (416, '-0.0652', 'grad_W[1,ปลา]'),
    (416, '-0.0245', 'grad_W[1,หมา]'),
    (416, '-0.0208', 'grad_W[1,นอน]'),
    (416, '-0.1032', 'grad_W[1,นม]'),
    (417, '0.1155', 'grad_W[2,แมว]'),
    (417, '-0.372', 'grad_W[2,กิน]'),
    (417, '0.0782', 'grad_W[2,ปลา]'),
    (417, '0.0294', 'grad_W[2,หมา]'),
    (417, '0.025', 'grad_W[2,นอน]'),
    (417, '0.1239', 'grad_W[2,นม]'),
    (437, '0.8', 'x[0]'),
    (437, '-0.6200', 'grad_z[กิน]'),
    (437, '-0.4960', 'grad_W[0,กิน]'),
    (451, '-0.4465', 'grad_x[0]'),
    (451, '0.1339', 'grad_x[1]'),
    (451, '-0.2744', 'grad_x[2]'),
    (471, '0.0866', 'W[0,แมว]*grad_z[แมว]'),
    (471, '0.5580', '-W[0,กิน]*grad_z[กิน]'),
    (471, '0.0391', 'W[0,ปลา]*grad_z[ปลา]'),
    (471, '0.0098', '-W[0,หมา]*grad_z[หมา]'),
    (471, '0.0354', '-W[0,นอน]*grad_z[นอน]'),
    (471, '-0.4775', 'grad_E[แมว,0]'),
    (489, '0.9', 'W[0,กิน]'),
    (489, '-0.4960', 'grad_W[0,กิน]'),
    (489, '0.9992', 'sgd[1].W[0,กิน]'),
    (490, '-0.4', 'W[1,กิน]'),
    (490, '0.3100', 'grad_W[1,กิน]'),
    (490, '-0.4620', 'sgd[1].W[1,กิน]'),
    (491, '0.35', 'W[2,นม]'),
    (491, '0.1239', 'grad_W[2,นม]'),
    (491, '0.3252', 'sgd[1].W[2,นม]'),
    (504, '0.8893', 'sgd[1].E[แมว,0]'),
    (504, '-0.5268', 'sgd[1].E[แมว,1]'),
    (504, '0.6549', 'sgd[1].E[แมว,2]'),
    (510, '0.6693', 'sgd[1].z[แมว]'),
    (510, '1.6391', 'sgd[1].z[กิน]'),
    (510, '0.2753', 'sgd[1].z[ปลา]'),
    (510, '-0.7878', 'sgd[1].z[หมา]'),
    (510, '-0.9652', 'sgd[1].z[นอน]'),
    (510, '0.7275', 'sgd[1].z[นม]'),
    (538, '0.4548', 'sgd[1].p[กิน]'),
    (539, '0.7880', 'sgd[1].loss'),
    (557, '38.00%', 'p[กิน]'),
    (557, '45.48%', 'sgd[1].p[กิน]'),
    (557, '0.9675', 'loss'),
    (557, '0.7881', 'sgd[1].loss'),
]
# END DOC_FIGURES


def number(printed: str) -> tuple[Decimal, int, bool]:
    """(value, decimals, is_percent) of a printed figure."""
    t = printed.strip().replace("\u2212", "-")
    pct = t.endswith("%")
    t = t.rstrip("%")
    return Decimal(t), (len(t.split(".")[1]) if "." in t else 0), pct


def rnd(v, n: int) -> Decimal:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP)


def check_figure(printed: str, v) -> tuple[bool, Decimal]:
    val, n, pct = number(printed)
    r = rnd(v * (100 if pct else 1), n)
    return r == val, r


def main() -> int:
    q = quantities()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = 0

    planted = []
    print("KEY.md rows:")
    for row in key.splitlines():
        if not row.startswith("| `"):
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref]
        on_line = printed in doc[line - 1]
        if len(cells) == 7:                                   # planted error
            planted.append((line, printed))
            shown = cells[4].strip("`")
            ok_round, right = check_figure(shown, v)
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            scale = 100 if shown.endswith("%") else 1
            ok = (ok_round and abs(exact - v * scale) <= mp.mpf("1e-10") * abs(v * scale)
                  and not check_figure(printed, v)[0] and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok, right = check_figure(printed, v)
            ok = ok and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        val = v * (100 if printed.endswith("%") else 1)
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(val, 15):<22} rounds to {right!s:<9} {note}")

    # every figure of the document: on its line; correct unless planted; planted ones wrong
    n_fig = 0
    for line, printed, ref in DOC_FIGURES:
        n_fig += 1
        if printed not in doc[line - 1]:
            print(f"  DOC: {printed} not on line {line}")
            bad += 1
        ok, right = check_figure(printed, q[ref])
        is_planted = (line, printed) in planted
        if ok == is_planted:
            print(f"  DOC: line {line} {printed} ({ref}) rounds to {right}: "
                  f"{'planted but correct' if is_planted else 'WRONG'}")
            bad += 1
    for line, printed in planted:
        if not any(ln == line and pr == printed for ln, pr, _ in DOC_FIGURES):
            print(f"  planted {printed} at line {line} is not among DOC_FIGURES")
            bad += 1
    print(f"{n_fig} document figures checked, {len(planted)} planted")
    print("all key rows and document figures agree with the oracle" if not bad else f"{bad} disagreements")
    assert len(planted) == 8, f"{len(planted)} planted rows"
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
