#!/usr/bin/env python3
"""Independent oracle for zh-md-seed-T3-sgd: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py           # check every KEY.md row against the values computed here
    python3 oracle.py --dump    # print every quantity computed here

Model (read from SPEC.toml): one post-LN block, one head, ReLU FFN, sinusoidal PE, tied head.
H0 = E[ids] + PE (PE[t,2i] = sin(t/base^(2i/d)), PE[t,2i+1] = cos(same)); Q, K, V = H0·W;
S = Q·Kᵀ/√d_k, causal softmax A; Attn = A·V; H1 = H0 + Attn; LN1 (biased variance, eps);
Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2; logits = LN2[T-1]·Eᵀ;
p = softmax; loss = -ln p[target].  Backward by hand (checked against central finite
differences at 50 digits); one SGD step θ ← θ − lr·g on every parameter (LayerNorm has no
trainable γ, β), then a second forward pass gives the loss after the step.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
DOC = HERE / "DOC.md"


def M(a):
    """Exact-from-text conversion of a TOML number (or nested list of them)."""
    if isinstance(a, list):
        return [M(x) for x in a]
    return mp.mpf(str(a))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0." + "0" * n if s.lstrip("-") == "0." + "0" * n and n else s


VOCAB = SPEC["model"]["vocab"]
TOK = {w: i for i, w in enumerate(VOCAB)}
IDS = [TOK[w] for w in SPEC["data"]["input"]]
TGT = TOK[SPEC["data"]["target"]]
EPS = M(SPEC["model"]["ln_eps"])
BASE = M(SPEC["model"]["pe_base"])
LR = M(SPEC["training"]["lr"])
LAY = SPEC["layer"][0]
P0 = {"E": M(SPEC["weights"]["E"])}
for k in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"):
    P0[k] = M(LAY[k])


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def T_(A):
    return [list(r) for r in zip(*A)]


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    sd = [mp.sqrt(v + EPS) for v in var]
    return mu, var, sd, [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(H, mu, sd)]


def ln_back(dY, Y, sd):
    d = len(Y[0])
    out = []
    for dy, y, s in zip(dY, Y, sd):
        m1 = mp.fsum(dy) / d
        m2 = mp.fsum(a * b for a, b in zip(dy, y)) / d
        out.append([(dy[j] - m1 - y[j] * m2) / s for j in range(d)])
    return out


def forward(P):
    E = P["E"]
    T, d = len(IDS), len(E[0])
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [E[i][:] for i in IDS]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    raw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    S = [[raw[t][s] / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, sd1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, sd2, LN2 = layernorm(H2)
    hf = LN2[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, X=X, H0=H0, Q=Q, K=K, V=V, raw=raw, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1,
                mu1=mu1, var1=var1, sd1=sd1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, sd2=sd2,
                LN2=LN2, h_final=hf, logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    E = P["E"]
    T, d, Vn = len(IDS), len(E[0]), len(E)
    gz = [f["p"][v] - (1 if v == TGT else 0) for v in range(Vn)]
    g_head = [[gz[v] * f["h_final"][j] for j in range(d)] for v in range(Vn)]
    gLN2 = [[mp.mpf(0)] * d for _ in range(T)]
    gLN2[-1] = [mp.fsum(gz[v] * E[v][j] for v in range(Vn)) for j in range(d)]
    gH2 = ln_back(gLN2, f["LN2"], f["sd2"])
    gF = gH2
    gW2 = matmul(T_(f["R"]), gF)
    gb2 = [mp.fsum(gF[t][j] for t in range(T)) for j in range(d)]
    gR = matmul(gF, T_(P["W_2"]))
    gZ = [[gR[t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(len(gR[0]))] for t in range(T)]
    gW1 = matmul(T_(f["LN1"]), gZ)
    gb1 = [mp.fsum(gZ[t][k] for t in range(T)) for k in range(len(gZ[0]))]
    gLN1 = [[gH2[t][j] + x for j, x in enumerate(r)] for t, r in enumerate(matmul(gZ, T_(P["W_1"])))]
    gH1 = ln_back(gLN1, f["LN1"], f["sd1"])
    gAttn = gH1
    gA = [[x if s <= t else mp.mpf(0) for s, x in enumerate(r)] for t, r in enumerate(matmul(gAttn, T_(f["V"])))]
    gV = matmul(T_(f["A"]), gAttn)
    gS = []
    for t in range(T):
        dot = mp.fsum(f["A"][t][s] * gA[t][s] for s in range(T))
        gS.append([f["A"][t][s] * (gA[t][s] - dot) for s in range(T)])
    rt = mp.sqrt(d)
    gQ = [[x / rt for x in r] for r in matmul(gS, f["K"])]
    gK = [[x / rt for x in r] for r in matmul(T_(gS), f["Q"])]
    gWQ, gWK, gWV = matmul(T_(f["H0"]), gQ), matmul(T_(f["H0"]), gK), matmul(T_(f["H0"]), gV)
    a, b, c = matmul(gQ, T_(P["W_Q"])), matmul(gK, T_(P["W_K"])), matmul(gV, T_(P["W_V"]))
    gH0 = [[gH1[t][j] + a[t][j] + b[t][j] + c[t][j] for j in range(d)] for t in range(T)]
    gE = [r[:] for r in g_head]
    for t, i in enumerate(IDS):
        for j in range(d):
            gE[i][j] += gH0[t][j]
    g = {"E": gE, "W_Q": gWQ, "W_K": gWK, "W_V": gWV, "W_1": gW1, "b_1": gb1, "W_2": gW2, "b_2": gb2}
    return g, dict(grad_logits=gz, grad_E_head=g_head, grad_H0=gH0, grad_LN2=gLN2, grad_H2=gH2, grad_Z=gZ)


def entries(x, idx=()):
    if isinstance(x, list):
        for i, y in enumerate(x):
            yield from entries(y, idx + (i,))
    else:
        yield idx, x


def setp(P, name, idx, val):
    Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
    if len(idx) == 1:
        Q[name][idx[0]] = val
    else:
        Q[name][idx[0]][idx[1]] = val
    return Q


def fd_check(P, g):
    """Central differences at 50 digits on every parameter: must match the hand backward to 1e-25."""
    h = mp.mpf("1e-16")
    worst = mp.mpf(0)
    for name, arr in P.items():
        for idx, v in entries(arr):
            lp = forward(setp(P, name, idx, v + h))["loss"]
            lm = forward(setp(P, name, idx, v - h))["loss"]
            gi = g[name]
            for i in idx:
                gi = gi[i]
            worst = max(worst, abs((lp - lm) / (2 * h) - gi))
    assert worst < mp.mpf("1e-25"), f"finite differences disagree: {worst}"
    return worst


def sgd_step(P, g):
    out = {}
    for name, arr in P.items():
        if isinstance(arr[0], list):
            out[name] = [[arr[i][j] - LR * g[name][i][j] for j in range(len(arr[0]))] for i in range(len(arr))]
        else:
            out[name] = [arr[i] - LR * g[name][i] for i in range(len(arr))]
    return out


def tokname(i):
    return VOCAB[i]


def values():
    f = forward(P0)
    g, gb = backward(P0, f)
    P1 = sgd_step(P0, g)
    f1 = forward(P1)
    out = {}
    T, d = len(IDS), 2
    for key in ("PE", "X", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for (i, j), v in entries(f[key]):
            out[f"{key}[{i},{j}]"] = v
    for (i, j), v in entries(f["raw"]):
        out[f"S[{i},{j}]*sqrt(d)"] = v
    for key in ("A_den", "mu1", "var1", "mu2", "var2"):
        for (i,), v in entries(f[key]):
            out[f"{key}[{i}]"] = v
    for t in range(T):
        out[f"sqrt(var1[{t}] + ln_eps)"] = f["sd1"][t]
        out[f"sqrt(var2[{t}] + ln_eps)"] = f["sd2"][t]
        for s in range(t + 1):
            out[f"exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
    for v in range(len(VOCAB)):
        w = tokname(v)
        out[f"logits[{w}]"] = f["logits"][v]
        out[f"exp(logits[{w}])"] = mp.exp(f["logits"][v])
        out[f"p[{w}]"] = f["p"][v]
        out[f"grad_logits[{w}]"] = gb["grad_logits"][v]
        out[f"sgd[1].p[{w}]"] = f1["p"][v]
        for j in range(d):
            out[f"E[{w},{j}]"] = P0["E"][v][j]
            out[f"grad_E[{w},{j}]"] = g["E"][v][j]
            out[f"grad_E_head[{w},{j}]"] = gb["grad_E_head"][v][j]
            out[f"sgd[1].E[{w},{j}]"] = P1["E"][v][j]
    for j in range(d):
        out[f"h_final[{j}]"] = f["h_final"][j]
        for t in range(T):
            out[f"grad_H0[{t},{j}]"] = gb["grad_H0"][t][j]
    out["sum_exp"] = f["sum_exp"]
    out["loss"] = f["loss"]
    out["sgd[1].loss"] = f1["loss"]
    out["sgd[1].sum_exp"] = f1["sum_exp"]
    out["(loss - sgd[1].loss)/loss"] = (f["loss"] - f1["loss"]) / f["loss"]
    for name in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"):
        for idx, v in entries(g[name]):
            out[f"grad_{name}[{','.join(map(str, idx))}]"] = v
        for idx, v in entries(P1[name]):
            out[f"sgd[1].{name}[{','.join(map(str, idx))}]"] = v
    return out, f, g, P1, f1


def check_key(vals) -> int:
    bad = 0
    lines = DOC.read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if not (1 <= line <= len(lines)) or printed not in lines[line - 1]:
            problems.append(f"text not on line {line}")
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                problems.append(f"correct rounding is {right}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append("exact value column wrong")
            pp = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            if rnd(v, pp) + ("%" if printed.endswith("%") else "") == printed:
                problems.append("planted figure is the correct rounding at its own precision")
            note = "planted, key agrees"
        else:
            n_correct += 1
            if right != printed:
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            note = "BAD: " + "; ".join(problems)
            bad += 1
        print(f"  {printed:>10}  l.{line:<4} {ref:<24} {mp.nstr(v, 15):<22} rounds to {right:<9} {note}")
    if n_planted != 8 or n_correct != 10:
        print(f"  BAD: {n_planted} planted and {n_correct} correct rows (want 8 and 10)")
        bad += 1
    return bad


def main() -> int:
    vals, f, g, P1, f1 = values()
    worst = fd_check(P0, g)
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(f"{k:<28} {mp.nstr(v, 20)}")
        print(f"finite-difference check: worst |fd - backward| = {mp.nstr(worst, 3)}")
        return 0
    print(f"backward matches central finite differences on all parameters (worst {mp.nstr(worst, 3)})")
    bad = check_key(vals)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
