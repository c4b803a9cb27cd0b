#!/usr/bin/env python3
"""Independent oracle for el-html-bigram-sampling-gradcheck (plain mpmath, 50 digits, no symgpt).

    python oracle.py

Model (SPEC.toml): bigram, V = 6 (η γάτα τρώει ψάρι πίνει γάλα), d = 3, input γάτα, target τρώει.
x = E[γάτα], z = x·W, p = softmax(z), loss = -ln p[τρώει]; temperature p_T = softmax(z/T);
top-k renormalises p over the k most probable tokens, top-p over the smallest prefix (sorted by p,
descending) whose mass reaches P; grad_z = p - y, grad_W = outer(x, p - y), grad_x = W·(p - y) (the
row E[γάτα] of grad_E); central difference (L(θ+h) - L(θ-h)) / 2h; one SGD step θ - lr·g (lr 0.5)
on W and E together.

It computes every model figure DOC.html prints, checks that each one sits on its line of DOC.html and
that every figure not planted is the correct rounding (half away from zero) of its exact value, then
prints every KEY.md row's quantity with its exact value and asserts the key's "exact value" and
"correct rounding" columns agree with it.
"""
from __future__ import annotations

import copy
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["η", "γάτα", "τρώει", "ψάρι", "πίνει", "γάλα"]
ID = {t: i for i, t in enumerate(VOCAB)}
TOK, TGT = ID["γάτα"], ID["τρώει"]


def M(rows):
    return [[mp.mpf(str(v)) for v in r] for r in rows]


E0 = M([[0.1, -0.3, 0.2], [0.4, 0.2, -0.5], [-0.2, 0.5, 0.3], [0.3, 0.1, -0.1], [-0.4, 0.2, 0.6], [0.2, -0.1, 0.4]])
W0 = M([[0.3, -0.1, 0.6, 0.2, -0.4, 0.1], [-0.2, 0.4, 0.5, -0.3, 0.1, 0.2], [0.1, 0.3, -0.4, 0.5, 0.2, -0.6]])
D, V = 3, 6


def forward(E, W):
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(D)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(D)]
    return dict(x=x, z=z, S=S, p=p, loss=-mp.log(p[TGT]), gz=gz, gW=gW, gx=gx)


def loss_with(param, i, j, delta):
    E, W = copy.deepcopy(E0), copy.deepcopy(W0)
    (E if param == "E" else W)[i][j] += delta
    return forward(E, W)["loss"]


def softmax_T(z, T):
    S = mp.fsum(mp.exp(v / T) for v in z)
    return [mp.exp(v / T) / S for v in z]


def topk(p, k):
    keep = sorted(range(V), key=lambda j: -p[j])[:k]
    mass = mp.fsum(p[j] for j in keep)
    return [p[j] / mass if j in keep else mp.mpf(0) for j in range(V)], mass


def topp(p, P):
    order = sorted(range(V), key=lambda j: -p[j])
    keep, c = [], mp.mpf(0)
    for j in order:
        keep.append(j)
        c += p[j]
        if c >= P:
            break
    return [p[j] / c if j in keep else mp.mpf(0) for j in range(V)], c


def quantities() -> dict[str, mp.mpf]:
    f = forward(E0, W0)
    q: dict[str, mp.mpf] = {}
    for i in range(D):
        for j, t in enumerate(VOCAB):
            q[f"W[{i},{t}]"] = W0[i][j]
            q[f"grad_W[{i},{t}]"] = f["gW"][i][j]
        q[f"x[{i}]"] = f["x"][i]
        q[f"grad_x[{i}]"] = f["gx"][i]
        q[f"grad_E[γάτα,{i}]"] = f["gx"][i]
    for j, t in enumerate(VOCAB):
        q[f"z[{t}]"] = f["z"][j]
        q[f"exp(z[{t}])"] = mp.exp(f["z"][j])
        q[f"p[{t}]"] = f["p"][j]
        q[f"grad_z[{t}]"] = f["gz"][j]
        q[f"W[2,{t}]*grad_z[{t}]"] = W0[2][j] * f["gz"][j]
    q["sum_exp"], q["loss"] = f["S"], f["loss"]
    for T in ("0.7", "1.5"):
        for j, t in enumerate(VOCAB):
            q[f"softmax_T({T}, {t})"] = softmax_T(f["z"], mp.mpf(T))[j]
    pk, mass3 = topk(f["p"], 3)
    pp, massp = topp(f["p"], mp.mpf("0.8"))
    for j, t in enumerate(VOCAB):
        q[f"topk(3, {t})"], q[f"topp(0.8, {t})"] = pk[j], pp[j]
    q["p[τρώει] + p[γάλα] + p[η]"] = mass3
    q["p[τρώει] + p[γάλα]"] = f["p"][ID["τρώει"]] + f["p"][ID["γάλα"]]
    q["p[τρώει] + p[γάλα] + p[η] + p[γάτα]"] = mass3 + f["p"][ID["γάτα"]]
    q["p[τρώει] + p[γάλα] + p[η] + p[γάτα] + p[ψάρι]"] = massp
    h = mp.mpf("1e-4")
    for name, (P, i, j) in {"W[0,τρώει]": ("W", 0, 2), "W[2,γάλα]": ("W", 2, 5), "E[γάτα,2]": ("E", 1, 2)}.items():
        up, dn = loss_with(P, i, j, h), loss_with(P, i, j, -h)
        q[f"loss_at({name}, 1e-4)"], q[f"loss_at({name}, -1e-4)"] = up, dn
        q[f"gradcheck({name}, 1e-4)"] = (up - dn) / (2 * h)
    # one SGD step, lr 0.5, on W and on E's input row (every other row of grad_E is 0)
    lr = mp.mpf("0.5")
    W1 = [[W0[i][j] - lr * f["gW"][i][j] for j in range(V)] for i in range(D)]
    E1 = copy.deepcopy(E0)
    E1[TOK] = [E0[TOK][i] - lr * f["gx"][i] for i in range(D)]
    g = forward(E1, W1)
    q["sgd[1].W[0,τρώει]"] = W1[0][ID["τρώει"]]
    q["sgd[1].p[τρώει]"] = g["p"][TGT]
    q["sgd[1].loss"] = g["loss"]
    return q


# Every model figure DOC.html prints: (line, printed, quantity). Hyper-parameters (T, k, P, h, lr),
# ids, sizes and prose thresholds are not listed.
_W_ROWS = {52: 0, 53: 1, 54: 2}
DOC_FIGURES: list[tuple[int, str, str]] = [
    (45, "0,4", "x[0]"), (45, "0,2", "x[1]"), (45, "−0,5", "x[2]"),
    *[(ln, fig, f"W[{i},{t}]") for ln, i in _W_ROWS.items()
      for t, fig in zip(VOCAB, [["0,3", "−0,1", "0,6", "0,2", "−0,4", "0,1"],
                                ["−0,2", "0,4", "0,5", "−0,3", "0,1", "0,2"],
                                ["0,1", "0,3", "−0,4", "0,5", "0,2", "−0,6"]][i])],
    (63, "0,4", "x[0]"), (63, "0,6", "W[0,τρώει]"), (63, "0,2", "x[1]"), (63, "0,5", "W[1,τρώει]"),
    (63, "−0,5", "x[2]"), (63, "−0,4", "W[2,τρώει]"), (63, "0,54", "z[τρώει]"),
    *[(72 + j, fig, f"{name}[{t}]") for j, (t, row) in enumerate(zip(VOCAB, [
        ("0,03", "1,0305", "0,1541"), ("−0,11", "0,8958", "0,1340"), ("0,54", "1,7160", "0,2567"),
        ("−0,23", "0,7945", "0,1188"), ("−0,24", "0,7866", "0,1177"), ("0,38", "1,4632", "0,2187")]))
      for fig, name in zip(row, ("z", "EXP", "p"))],
    (80, "6,6857", "sum_exp"),
    (83, "0,2567", "p[τρώει]"), (83, "1,3598", "loss"),
    *[(98, fig, f"softmax_T(0.7, {t})") for t, fig in
      zip(VOCAB, ["0,1447", "0,1185", "0,2999", "0,0998", "0,0984", "0,2386"])],
    *[(107 + j, fig, f"softmax_T(1.5, {t})") for j, (t, fig) in
      enumerate(zip(VOCAB, ["0,1599", "0,1457", "0,2246", "0,1344", "0,1335", "0,2019"]))],
    (119, "0,6295", "p[τρώει] + p[γάλα] + p[η]"),
    (121, "0,2567", "p[τρώει]"), (121, "0,6295", "p[τρώει] + p[γάλα] + p[η]"), (121, "0,4078", "topk(3, τρώει)"),
    (122, "0,3474", "topk(3, γάλα)"), (123, "0,2448", "topk(3, η)"),
    (129, "0,2567", "p[τρώει]"), (129, "0,4754", "p[τρώει] + p[γάλα]"),
    (129, "0,6295", "p[τρώει] + p[γάλα] + p[η]"), (129, "0,7635", "p[τρώει] + p[γάλα] + p[η] + p[γάτα]"),
    (129, "0,8823", "p[τρώει] + p[γάλα] + p[η] + p[γάτα] + p[ψάρι]"),
    (132, "0,2567", "p[τρώει]"), (132, "0,3209", "topp(0.8, τρώει)"),
    (140, "0,2567", "p[τρώει]"), (140, "0,7433", "grad_z[τρώει]"),
    (149, "0,0617", "grad_W[0,η]"), (149, "0,0308", "grad_W[0,γάτα]"), (149, "−0,2973", "grad_W[0,τρώει]"),
    (150, "0,0308", "grad_W[1,η]"), (150, "0,0268", "grad_W[1,γάτα]"), (150, "−0,1487", "grad_W[1,τρώει]"),
    (151, "−0,0771", "grad_W[2,η]"), (151, "−0,0670", "grad_W[2,γάτα]"), (151, "0,3717", "grad_W[2,τρώει]"),
    (156, "−0,4146", "grad_E[γάτα,0]"), (157, "−0,3290", "grad_E[γάτα,1]"),
    *[(158, fig, f"W[2,{t}]*grad_z[{t}]") for t, fig in
      zip(VOCAB, ["0,0154", "0,0402", "0,2973", "0,0594", "0,0235"])],
    (158, "0,4359", "grad_E[γάτα,2]"),
    (167, "1,35994740", "loss_at(W[0,τρώει], 1e-4)"), (168, "1,36000687", "loss_at(W[0,τρώει], -1e-4)"),
    (170, "-0.297333", "gradcheck(W[0,τρώει], 1e-4)"), (170, "-0.297333", "grad_W[0,τρώει]"),
    (171, "-0.109358", "gradcheck(W[2,γάλα], 1e-4)"), (171, "-0.109358", "grad_W[2,γάλα]"),
    (172, "0.304665", "gradcheck(E[γάτα,2], 1e-4)"), (172, "0.304665", "grad_E[γάτα,2]"),
    (180, "0,6", "W[0,τρώει]"), (180, "−0,2973", "grad_W[0,τρώει]"), (180, "0,7487", "sgd[1].W[0,τρώει]"),
    (184, "37,14%", "sgd[1].p[τρώει]"), (185, "0,9905", "sgd[1].loss"),
]
DOC_FIGURES = [(ln, fig, q.replace("EXP[", "exp(z[").replace("]", "])") if q.startswith("EXP[") else q)
               for ln, fig, q in DOC_FIGURES]


def number(printed: str) -> tuple[Decimal, int, bool]:
    """(value, decimals, is_percent) of a figure written with a decimal comma or point."""
    t = printed.strip().replace("\u2212", "-").replace(",", ".")
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
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = 0

    planted = []
    for row in key.splitlines():
        if not row.startswith("| `"):
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref]
        on_line = printed in doc[line - 1]
        if len(cells) == 7:                                   # planted error
            planted.append((line, printed))
            shown = cells[4].strip("`")
            ok_round, right = check_figure(shown, v)
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = ok_round and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and not check_figure(printed, v)[0] and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok, right = check_figure(printed, v)
            ok = ok and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>12}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right!s:<10} {note}")

    # every figure of the document: on its line; correct unless planted; planted ones wrong
    n_fig = 0
    for line, printed, ref in DOC_FIGURES:
        n_fig += 1
        if printed not in doc[line - 1]:
            print(f"  DOC: {printed} not on line {line}")
            bad += 1
        ok, right = check_figure(printed, q[ref])
        is_planted = (line, printed) in planted and ref in key
        if ok == is_planted:
            print(f"  DOC: line {line} {printed} ({ref}) rounds to {right}: {'planted but correct' if is_planted else 'WRONG'}")
            bad += 1
    assert len(planted) == 8, f"{len(planted)} planted rows"
    print(f"{n_fig} document figures checked, {len(planted)} planted")
    print("all key rows and document figures agree with the oracle" if not bad else f"{bad} disagreements")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
