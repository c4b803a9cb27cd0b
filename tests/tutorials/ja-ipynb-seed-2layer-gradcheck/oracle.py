#!/usr/bin/env python3
"""Independent oracle for ja-ipynb-seed-2layer-gradcheck: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # every model figure of DOC.ipynb and every row of KEY.md against the exact values

The model is read from SPEC.toml (tomllib) and computed here from scratch: the seed architecture with
two blocks. H0 = E[ids] + PE, PE[t,2i] = sin(t/base^(2i/d)), PE[t,2i+1] = cos(same). Each block:
Q, K, V = H·W; S = Q·Kᵀ/√d (one head); causal softmax A; Attn = A·V; H1 = H + Attn; LN1 = LayerNorm
(biased variance, eps, γ = 1, β = 0); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F;
LN2 = LayerNorm(H2), the next block's input. logits = LN2[T-1]·Eᵀ (tied head), p = softmax, loss = −ln p[target].
Gradient check: L(θ ± h) with one parameter moved by exactly ±h (h = 1e-4 from the spec), the central
difference (L(θ+h) − L(θ−h))/2h, and the analytic ∂L/∂θ as the limit of the central difference (taken
at 100 digits with h = 1e-30 and 1e-32; the two must agree to 45 digits, and no ReLU may change sign).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def forward(move=None):
    """The whole forward pass; move = ((layer, name, i, j), delta) shifts one parameter by delta."""
    m, w = SPEC["model"], SPEC["weights"]
    vocab, d = m["vocab"], m["d"]
    eps, base = mp.mpf(str(m["ln_eps"])), mp.mpf(str(m["pe_base"]))
    E = M(w["E"])
    layers = [{k: M(v) for k, v in L.items()} for L in SPEC["layer"]]
    if move is not None:
        (li, name, i, j), delta = move
        layers[li][name][i][j] += delta
    ids = [vocab.index(t) for t in SPEC["data"]["input"]]
    tgt = vocab.index(SPEC["data"]["target"])
    T = len(ids)
    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)  # noqa: E731
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [E[i][:] for i in ids]
    H = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    out = dict(E=E, PE=PE, X=X, H0=H, layers=[], W=layers)
    for L in layers:
        Q, K, V = matmul(H, L["W_Q"]), matmul(H, L["W_K"]), matmul(H, L["W_V"])
        S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
        A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
        A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        Attn = matmul(A, V)
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        mu1, var1, LN1 = layernorm(H1, eps)
        Z = [[z + b for z, b in zip(r, L["b_1"])] for r in matmul(LN1, L["W_1"])]
        R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
        F = [[f + b for f, b in zip(r, L["b_2"])] for r in matmul(R, L["W_2"])]
        H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H2, eps)
        out["layers"].append(dict(Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                                  LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2))
        H = LN2
    logits = [mp.fsum(H[-1][j] * E[v][j] for j in range(d)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    out.update(h_final=H[-1], logits=logits, sum_exp=se, p=p, loss=-mp.log(p[tgt]), tgt=tgt, ids=ids, eps=eps)
    return out


def relu_signs(f):
    return [[[z > 0 for z in r] for r in L["Z"]] for L in f["layers"]]


def names(f):
    """symgpt-style reference names → exact values (the ones the notebook and the key use)."""
    vocab = SPEC["model"]["vocab"]
    v = {}

    def put(name, X):
        if isinstance(X[0], list):
            for i, r in enumerate(X):
                for j, x in enumerate(r):
                    v[f"{name}[{i},{j}]"] = x
        else:
            for i, x in enumerate(X):
                v[f"{name}[{i}]"] = x

    for n in ("PE", "X", "H0"):
        put(n, f[n])
    for li, L in enumerate(f["layers"]):
        for n, X in L.items():
            put(f"l{li}.{n}", X)
        for n in ("mu1", "var1", "mu2", "var2"):
            for t, x in enumerate(L[n]):
                v[f"sqrt(l{li}.{'var' + n[-1]}[{t}] + ln_eps)"] = mp.sqrt(L["var" + n[-1]][t] + f["eps"])
    put("h_final", f["h_final"])
    for i, tok in enumerate(vocab):
        for n in ("logits", "p"):
            v[f"{n}[{tok}]"] = v[f"{n}[{i}]"] = f[n][i]
        v[f"exp(logits[{tok}])"] = mp.exp(f["logits"][i])
    for li, L in enumerate(f["layers"]):
        for t in range(len(L["S"])):
            for s in range(len(L["S"])):
                v[f"exp(l{li}.S[{t},{s}])"] = mp.exp(L["S"][t][s])
    v["sum_exp"], v["loss"] = f["sum_exp"], f["loss"]
    return v


def gradcheck(f0):
    """loss_at(P, ±h), gradcheck(P, h) and grad_P for each parameter of training.gradcheck."""
    gc = SPEC["training"]["gradcheck"]
    h = mp.mpf(str(gc["h"]))
    hs = mp.nstr(h, 5)                                     # 0.0001
    out, signs0 = {}, relu_signs(f0)
    for ref in gc["params"]:
        mt = re.fullmatch(r"l(\d+)\.(\w+)\[(\d+),(\d+)\]", ref)
        li, name, i, j = int(mt[1]), mt[2], int(mt[3]), int(mt[4])
        fp, fm = forward(((li, name, i, j), h)), forward(((li, name, i, j), -h))
        assert relu_signs(fp) == signs0 == relu_signs(fm), f"a ReLU changes sign at ±h for {ref}"
        Lp, Lm = fp["loss"], fm["loss"]
        with mp.workdps(100):
            grads = []
            for e in (mp.mpf("1e-30"), mp.mpf("1e-32")):
                grads.append((forward(((li, name, i, j), e))["loss"] - forward(((li, name, i, j), -e))["loss"]) / (2 * e))
            assert abs(grads[0] - grads[1]) < mp.mpf("1e-45"), ref
            g = +grads[1]
        out[f"loss_at({ref}, {hs})"], out[f"loss_at({ref}, -{hs})"] = Lp, Lm
        num = (Lp - Lm) / (2 * h)
        out[f"gradcheck({ref}, {hs})"] = num
        out[f"grad_{ref}"] = g
        out[f"abs(gradcheck({ref}, {hs}) - grad_{ref}) / abs(grad_{ref})"] = abs(num - g) / abs(g)
    return out


F0 = forward()
VALUES = names(F0)
VALUES.update(gradcheck(F0))


# ---------------------------------------------------------------- DOC.ipynb, every model figure
V = VALUES
G = SPEC["training"]["gradcheck"]["params"]                  # l0.W_Q[3,2] (Wq1[3,2]), l0.W_1[2,3] (Wup1[2,3])
W = lambda li, n, *ix: F0["W"][li][n][ix[0]] if len(ix) == 1 else F0["W"][li][n][ix[0]][ix[1]]  # noqa: E731
Ev = lambda tok, j: F0["E"][SPEC["model"]["vocab"].index(tok)][j]  # noqa: E731
gc = lambda kind, ref: V[{"+": f"loss_at({ref}, 0.0001)", "-": f"loss_at({ref}, -0.0001)", "num": f"gradcheck({ref}, 0.0001)",  # noqa: E731
                          "ana": f"grad_{ref}", "rel": f"abs(gradcheck({ref}, 0.0001) - grad_{ref}) / abs(grad_{ref})"}[kind]]
row = lambda name, t, n=4: [V[f"{name}[{t},{j}]"] for j in range(n)]  # noqa: E731
mat = lambda name, T=3, n=4: [x for t in range(T) for x in row(name, t, n)]  # noqa: E731


def z_terms(li, t, k):
    return [x for j in range(4) for x in (V[f"l{li}.LN1[{t},{j}]"], W(li, "W_1", j, k))]


# the stdout of each code cell (by execution count): every figure in reading order
OUTPUTS = {
    1: mat("H0"),
    2: mat("l0.Q") + mat("l0.S", 3, 3) + mat("l0.A", 3, 3) + mat("l0.H1") + [V[f"l0.mu1[{t}]"] for t in range(3)]
       + [V[f"l0.var1[{t}]"] for t in range(3)] + mat("l0.LN1") + mat("l0.LN2"),
    3: mat("l1.S", 3, 3) + mat("l1.A", 3, 3) + mat("l1.H1") + [V[f"l1.mu1[{t}]"] for t in range(3)]
       + [V[f"l1.var1[{t}]"] for t in range(3)] + mat("l1.LN1") + row("l1.Z", 2, 8) + [V[f"h_final[{j}]"] for j in range(4)]
       + [V[f"logits[{v}]"] for v in range(6)] + [V[f"p[{v}]"] for v in range(6)] + [V["loss"]],
    4: [x for ref in G for x in (gc("+", ref), gc("-", ref), gc("num", ref), gc("ana", ref), gc("rel", ref))],
}
# the markdown: (a snippet that finds the line, [values of its decimal figures in order])
MD = [
    ("位置 1（は）では $PE_1", row("PE", 1)),
    ("$X_1 = (-0.3+", [x for j in range(4) for x in (Ev("は", j), V[f"PE[1,{j}]"])] + row("H0", 1)),
    ("$\\\\sin 2 = ", [V["PE[2,0]"], V["PE[2,1]"]]),
    ("のクエリ $q_2 = ", row("l0.Q", 2) + row("l0.K", 0)),
    ("$$S1_{2,0} = ", [x for j in range(4) for x in (V[f"l0.Q[2,{j}]"], V[f"l0.K[0,{j}]"])] + [2 * V["l0.S[2,0]"], V["l0.S[2,0]"]]),
    ("位置 2 の行は $S1_", row("l0.S", 2, 3) + [V[f"exp(l0.S[2,{s}])"] for s in range(3)] + [V["l0.A_den[2]"]] + row("l0.A", 2, 3)),
    ("「猫」は「私」に", [100 * x for x in row("l0.A", 2, 3)]),
    ("最後の次元の残差は", [V["H0[2,3]"]] + [x for s in range(3) for x in (V[f"l0.A[2,{s}]"], V[f"l0.V[{s},3]"])]
     + [V["H0[2,3]"], -V["l0.Attn[2,3]"], V["l0.H1[2,3]"]]),
    ("LayerNorm：位置 2 は", row("l0.H1", 2)),
    ("$\\\\mu = -0.0030$", [V["l0.mu1[2]"], V["l0.var1[2]"], V["l0.var1[2]"] + F0["eps"], V["sqrt(l0.var1[2] + ln_eps)"],
                           V["l0.H1[2,3]"], V["l0.mu1[2]"], V["sqrt(l0.var1[2] + ln_eps)"], V["l0.LN1[2,3]"]]),
    ("$Z1_{1,0} = ", z_terms(0, 1, 0) + [W(0, "b_1", 0), V["l0.Z[1,0]"]]),
    ("$$A2_{2,", [V[f"exp(l1.S[2,{s}])"] for s in range(3)] + [V["l1.A_den[2]"]] + row("l1.A", 2, 3)),
    ("第 2 層では自分自身（", [100 * V["l1.A[2,2]"]]),
    ("一つ目の LayerNorm（位置 2）", row("l1.H1", 2) + [V["l1.mu1[2]"], V["l1.var1[2]"]]),
    ("- $z_2 = ", z_terms(1, 2, 2) + [W(1, "b_1", 2), V["l1.Z[2,2]"]]),
    ("- $z_6 = ", z_terms(1, 2, 6) + [V["l1.Z[2,6]"]]),
    ("出力：$z_", [x for j in range(4) for x in (V[f"h_final[{j}]"], Ev("が", j))] + [V["logits[が]"]] + [Ev("が", j) for j in range(4)]),
    ("6 個の $e^{z}$ の合計は", [V["sum_exp"], V["exp(logits[が])"], V["sum_exp"], V["p[が]"], V["loss"]]),
    ("一番確率が高いのは「猫」", [V["p[猫]"], 100 * V["p[が]"]]),
    ("| `Wq1[3,2]` |", [gc(k, G[0]) for k in ("+", "-", "num", "ana", "rel")]),
    ("| `Wup1[2,3]` |", [gc(k, G[1]) for k in ("+", "-", "num", "ana", "rel")]),
    ("表の 8 桁の損失から", [gc("+", G[0]), gc("-", G[0]), gc("num", G[0])]),
    ("- 2 層を通った最終ベクトル", [V[f"h_final[{j}]"] for j in range(4)] + [V["loss"]]),
]
# each worked equation, computed exactly from its own printed operands, must round to its printed result
# (snippet, the printed operands → the printed result); the planted lines are judged by the key instead
P_ = mp.mpf
CHAINS = [
    ("$$S1_{2,0} = ", lambda f: (f[0] * f[1] + f[2] * f[3] + f[4] * f[5] + f[6] * f[7]), 8),
    ("$$S1_{2,0} = ", lambda f: f[8] / 2, 9),
    ("$X_1 = (-0.3+", lambda f: f[0] + f[1], 8),
    ("$X_1 = (-0.3+", lambda f: f[6] + f[7], 11),
    ("最後の次元の残差は", lambda f: -(f[1] * f[2] + f[3] * f[4] + f[5] * f[6]), 8),
    ("最後の次元の残差は", lambda f: f[7] - f[8], 9),
    ("$Z1_{1,0} = ", lambda f: sum(f[2 * j] * f[2 * j + 1] for j in range(4)) + f[8], 9),
    ("- $z_2 = ", lambda f: sum(f[2 * j] * f[2 * j + 1] for j in range(4)) + f[8], 9),
    ("- $z_6 = ", lambda f: sum(f[2 * j] * f[2 * j + 1] for j in range(4)), 8),
    ("出力：$z_", lambda f: sum(f[2 * j] * f[2 * j + 1] for j in range(4)), 8),
    ("6 個の $e^{z}$ の合計は", lambda f: f[1] / f[2], 3),
    ("位置 2 の行は $S1_", lambda f: f[3] + f[4] + f[5], 6),
    ("位置 2 の行は $S1_", lambda f: f[3] / f[6], 7),
    ("位置 2 の行は $S1_", lambda f: f[4] / f[6], 8),
    ("位置 2 の行は $S1_", lambda f: f[5] / f[6], 9),
    ("$$A2_{2,", lambda f: f[0] + f[1] + f[2], 3),
    ("$$A2_{2,", lambda f: f[0] / f[3], 4),
    ("$$A2_{2,", lambda f: f[1] / f[3], 5),
    ("$$A2_{2,", lambda f: f[2] / f[3], 6),
    ("$\\\\mu = -0.0030$", lambda f: mp.sqrt(f[2]), 3),
    ("$\\\\mu = -0.0030$", lambda f: (f[4] - f[5]) / f[6], 7),
    ("表の 8 桁の損失から", lambda f: (f[0] - f[1]) / P_("2e-4"), 2),
]

FIG_OUT = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")
FIG_MD = re.compile(r"-?\d+\.\d+%?|-?\d+e-\d+")


def right_rounding(v, printed: str) -> str:
    """The correct rounding of v in the printed figure's own format."""
    if "e" in printed:                                    # scientific, rounded at the mantissa's last place
        mant, ex = printed.split("e")
        places = len(mant.split(".")[1]) if "." in mant else 0
        m = rnd(v / mp.mpf(10) ** int(ex), places)
        return f"{m}e{ex}"
    if printed.endswith("%"):
        body = printed[:-1]
        return rnd(v, len(body.split(".")[1])) + "%"
    if printed.endswith("."):                             # numpy's "1." and "0."
        return rnd(v, 0) + "."
    return rnd(v, len(printed.split(".")[1]))


def check_doc(lines: list[str], planted: set[tuple[int, str]]) -> int:
    bad = wrong = count = 0

    def judge(lineno, printed, v):
        nonlocal bad, wrong, count
        count += 1
        right = right_rounding(v, printed)
        if right != printed:
            wrong += 1
            ok = (lineno, printed) in planted
            bad += not ok
            print(f"  line {lineno:>3}: printed {printed:>12}, correct {right:>12}  {'planted' if ok else 'NOT IN THE KEY'}")

    nb = json.loads("\n".join(lines))
    cursor = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        vals = OUTPUTS.get(cell["execution_count"], [])
        figs = []
        for out in cell["outputs"]:
            for piece in out["text"]:
                cursor = next(i for i in range(cursor, len(lines)) if json.dumps(piece, ensure_ascii=False) in lines[i])
                figs += [(cursor + 1, m) for m in FIG_OUT.findall(piece)]
        assert len(figs) == len(vals), (cell["execution_count"], len(figs), len(vals))
        for (lineno, printed), v in zip(figs, vals):
            judge(lineno, printed, v)
    for snippet, vals in MD:
        hits = [i for i, t in enumerate(lines) if snippet in t]
        assert len(hits) == 1, (snippet, hits)
        figs = FIG_MD.findall(lines[hits[0]])
        assert len(figs) == len(vals), (snippet, figs, len(vals))
        for printed, v in zip(figs, vals):
            judge(hits[0] + 1, printed, v)
    for snippet, fn, at in CHAINS:                        # worked equations close on their printed operands
        line = next(t for t in lines if snippet in t)
        figs = FIG_MD.findall(line)
        got = fn([mp.mpf(f) for f in figs])
        ok = right_rounding(got, figs[at]) == figs[at]
        bad += not ok
        if not ok:
            print(f"  EQUATION DOES NOT CLOSE: {snippet} … = {figs[at]} (its operands give {mp.nstr(got, 10)})")
    # prose counts: 13 of Z1's 24 entries are negative; 4 of z's 8 units are positive: units 2, 4, 6, 7
    assert sum(z < 0 for r in F0["layers"][0]["Z"] for z in r) == 13 and len(F0["layers"][0]["Z"]) * 8 == 24
    assert [k for k, z in enumerate(F0["layers"][1]["Z"][2]) if z > 0] == [2, 4, 6, 7]
    assert max(range(3), key=lambda s: V[f"l0.A[2,{s}]"]) == 1 and max(range(3), key=lambda s: V[f"l1.A[2,{s}]"]) == 2
    assert max(range(6), key=lambda v: V[f"p[{v}]"]) == SPEC["model"]["vocab"].index("猫")
    assert all(gc("rel", ref) < mp.mpf("1e-8") for ref in G)
    print(f"  {count} model figures checked, {wrong} differ from the correct rounding, {bad} of them not planted "
          f"(or an equation that does not close)")
    return bad


def key_rows():
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", r.strip().strip("|"))] for r in rows]


def main() -> int:
    lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    rows = key_rows()
    planted = {(int(c[1]), c[0].strip("`")) for c in rows if len(c) == 7}
    assert len(planted) == 8 and sum(len(c) == 4 for c in rows) == 10, "the key lists 8 planted and 10 correct figures"
    print(f"DOC.ipynb ({len(lines)} lines), every model figure:")
    bad = check_doc(lines, planted)
    print("KEY.md:")
    for cells in rows:
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in VALUES), None)
        if ref is None:
            print(f"  {printed:>12}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        v = VALUES[ref]
        on_line = 0 < line <= len(lines) and printed in lines[line - 1]
        if len(cells) == 7:                               # planted: the key's exact value and correct rounding
            shown = cells[4].strip("`")
            right = right_rounding(v * (100 if shown.endswith("%") else 1), shown)
            exact = mp.mpf(cells[3].rstrip("…").rstrip("%"))
            vv = v * (100 if cells[3].rstrip("…").endswith("%") or shown.endswith("%") else 1)
            ok = shown == right and abs(exact - vv) <= mp.mpf("1e-10") * abs(vv) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = right_rounding(v * (100 if printed.endswith("%") else 1), printed)
            note = "correct" if right == printed and on_line else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += note.isupper() or note.startswith("KEY")
        print(f"  {printed:>12}  line {line:>3}  {ref:<40} {mp.nstr(v, 15):<20} rounds to {right:<12} {note}")
    print("all key rows and figures agree with the oracle" if not bad else f"{bad} key rows or figures disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
