#!/usr/bin/env python3
"""Independent oracle for de-txt-seed-backprop-adamw (plain mpmath at 50 digits, no symgpt).

    python3 oracle.py     # prints every KEY.md row's quantity with its value, checks the key's columns
                          # against it and checks that the printed text stands on the stated line of DOC.txt

Model (the seed block): H0 = E[ids] + PE, PE[t] = (sin t, cos t) for d = 2; Q, K, V = H0·W;
S = Q·Kᵀ/√2, causal softmax A; Attn = A·V; H1 = H0 + Attn; LN1 (biased variance, eps 0.1);
Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2; logits = LN2[T-1]·Eᵀ;
p = softmax; loss = -ln p[target].  Backward pass written out by hand (chain rule) and checked
against mpmath's numerical differentiation; AdamW as torch.optim.AdamW (decoupled decay on every
parameter), one step on all parameters, then the new loss.
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


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
TOK = {w: i for i, w in enumerate(VOCAB)}
IDS = [TOK[w] for w in spec["data"]["input"]]
TGT = TOK[spec["data"]["target"]]
EPS = mp.mpf(str(spec["model"]["ln_eps"]))
BASE = mp.mpf(str(spec["model"]["pe_base"]))
L0 = spec["layer"][0]
PARAMS0 = {"E": M(spec["weights"]["E"]), **{k: M(L0[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")}}
AW = spec["training"]["adamw"]
LR, B1, B2, AEPS, WD = (mp.mpf(str(AW[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
T, D, DFF = len(IDS), spec["model"]["d"], spec["model"]["d_ff"]


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def ln_row(x):
    mu = mp.fsum(x) / len(x)
    var = mp.fsum((a - mu) ** 2 for a in x) / len(x)
    s = mp.sqrt(var + EPS)
    return mu, var, s, [(a - mu) / s for a in x]


def ln_back(xhat, s, g):
    n = len(g)
    mg = mp.fsum(g) / n
    mgx = mp.fsum(a * b for a, b in zip(g, xhat)) / n
    return [(g[i] - mg - xhat[i] * mgx) / s for i in range(n)]


def forward(P):
    E = P["E"]
    PE = [[mp.sin(t / BASE ** (mp.mpf(j - j % 2) / D)) if j % 2 == 0 else mp.cos(t / BASE ** (mp.mpf(j - j % 2) / D))
           for j in range(D)] for t in range(T)]
    X = [[E[IDS[t]][j] for j in range(D)] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(D)] for t in range(T)]
    Q, K, V = mm(H0, P["W_Q"]), mm(H0, P["W_K"]), mm(H0, P["W_V"])
    Sraw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(D)) for s in range(T)] for t in range(T)]
    S = [[Sraw[t][s] / mp.sqrt(D) for s in range(T)] for t in range(T)]
    Aden = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / Aden[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = mm(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    l1 = [ln_row(r) for r in H1]
    LN1 = [r[3] for r in l1]
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in mm(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in mm(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    l2 = [ln_row(r) for r in H2]
    LN2 = [r[3] for r in l2]
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(D)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    return dict(PE=PE, X=X, H0=H0, Q=Q, K=K, V=V, Sraw=Sraw, S=S, A_den=Aden, A=A, Attn=Attn, H1=H1,
                mu1=[r[0] for r in l1], var1=[r[1] for r in l1], s1=[r[2] for r in l1], LN1=LN1, Z=Z, R=R, F=F,
                H2=H2, mu2=[r[0] for r in l2], var2=[r[1] for r in l2], s2=[r[2] for r in l2], LN2=LN2, h=h,
                logits=logits, sum_exp=se, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    E, t = P["E"], T - 1
    gz = [f["p"][v] - (1 if v == TGT else 0) for v in range(len(E))]
    gh = [mp.fsum(gz[v] * E[v][j] for v in range(len(E))) for j in range(D)]
    gH2 = ln_back(f["LN2"][t], f["s2"][t], gh)
    gF = gH2[:]
    gW2 = [[f["R"][t][k] * gF[j] for j in range(D)] for k in range(DFF)]
    gb2 = gF[:]
    gR = [mp.fsum(P["W_2"][k][j] * gF[j] for j in range(D)) for k in range(DFF)]
    gZ = [gR[k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(DFF)]
    gW1 = [[f["LN1"][t][j] * gZ[k] for k in range(DFF)] for j in range(D)]
    gb1 = gZ[:]
    gLN1 = [gH2[j] + mp.fsum(P["W_1"][j][k] * gZ[k] for k in range(DFF)) for j in range(D)]
    gH1 = ln_back(f["LN1"][t], f["s1"][t], gLN1)
    gAttn = gH1[:]
    A, V, K, Q, H0 = f["A"], f["V"], f["K"], f["Q"], f["H0"]
    gV = [[A[t][s] * gAttn[j] for j in range(D)] for s in range(T)]
    gA = [mp.fsum(gAttn[j] * V[s][j] for j in range(D)) for s in range(T)]
    avg = mp.fsum(A[t][r] * gA[r] for r in range(T))
    gS = [A[t][s] * (gA[s] - avg) for s in range(T)]
    gQ = [mp.fsum(gS[s] * K[s][j] for s in range(T)) / mp.sqrt(D) for j in range(D)]
    gK = [[gS[s] * Q[t][j] / mp.sqrt(D) for j in range(D)] for s in range(T)]
    gWQ = [[H0[t][i] * gQ[j] for j in range(D)] for i in range(D)]
    gWK = [[mp.fsum(H0[s][i] * gK[s][j] for s in range(T)) for j in range(D)] for i in range(D)]
    gWV = [[mp.fsum(H0[s][i] * gV[s][j] for s in range(T)) for j in range(D)] for i in range(D)]
    gH0 = []
    for s in range(T):
        row = []
        for i in range(D):
            acc = mp.fsum(gV[s][j] * P["W_V"][i][j] + gK[s][j] * P["W_K"][i][j] for j in range(D))
            if s == t:
                acc += gH1[i] + mp.fsum(gQ[j] * P["W_Q"][i][j] for j in range(D))
            row.append(acc)
        gH0.append(row)
    gE = [[gz[v] * f["h"][j] for j in range(D)] for v in range(len(E))]
    for s in range(T):
        for j in range(D):
            gE[IDS[s]][j] += gH0[s][j]
    grads = {"E": gE, "W_Q": gWQ, "W_K": gWK, "W_V": gWV, "W_1": gW1, "b_1": gb1, "W_2": gW2, "b_2": gb2}
    extra = dict(grad_logits=gz, grad_h=gh, grad_H2=gH2, grad_R=gR, grad_Z=gZ, grad_LN1=gLN1, grad_H1=gH1,
                 grad_A=gA, grad_S=gS, grad_Q=gQ, grad_Attn=gAttn)
    return grads, extra


def entries(P):
    for name, val in P.items():
        if isinstance(val[0], list):
            for i in range(len(val)):
                for j in range(len(val[0])):
                    yield name, (i, j)
        else:
            for i in range(len(val)):
                yield name, (i,)


def get(P, name, idx):
    return P[name][idx[0]][idx[1]] if len(idx) == 2 else P[name][idx[0]]


def with_param(P, name, idx, x):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] = x
    else:
        Q[name][idx[0]] = x
    return Q


def numeric_check(P, grads):
    """every hand-written gradient entry against mpmath's numerical derivative of the loss"""
    worst = mp.mpf(0)
    for name, idx in entries(P):
        x0 = get(P, name, idx)
        num = mp.diff(lambda x: forward(with_param(P, name, idx, x))["loss"], x0)
        worst = max(worst, abs(num - get(grads, name, idx)))
    return worst


def adamw_step(P, grads):
    st, newP = {}, {}
    for name, idx in entries(P):
        th, g = get(P, name, idx), get(grads, name, idx)
        m, v = (1 - B1) * g, (1 - B2) * g * g
        mhat, vhat = m / (1 - B1), v / (1 - B2)
        upd = LR * mhat / (mp.sqrt(vhat) + AEPS)
        st[(name, idx)] = dict(theta=th, g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=LR * WD * th,
                               new=th * (1 - LR * WD) - upd)
    for name, val in P.items():
        if isinstance(val[0], list):
            newP[name] = [[st[(name, (i, j))]["new"] for j in range(len(val[0]))] for i in range(len(val))]
        else:
            newP[name] = [st[(name, (i,))]["new"] for i in range(len(val))]
    return st, newP


F0 = forward(PARAMS0)
G0, X0 = backward(PARAMS0, F0)
ST, P1 = adamw_step(PARAMS0, G0)
F1 = forward(P1)


def tok_or_int(s):
    s = s.strip()
    return TOK[s] if s in TOK else int(s)


def value_of(ref: str):
    """the value of a symgpt-style reference used in KEY.md"""
    m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[(\w+),([^\]]+)\]", ref)
    if m:
        idx = tuple(tok_or_int(x) for x in m.group(3).split(","))
        return ST[(m.group(2), idx)][{"m": "m", "v": "v", "mhat": "mhat", "vhat": "vhat", "update": "update",
                                      "decay": "decay"}[m.group(1)]]
    m = re.fullmatch(r"adamw\[1\]\.loss", ref)
    if m:
        return F1["loss"]
    m = re.fullmatch(r"adamw\[1\]\.(\w+)\[([^\]]+)\]", ref)
    if m:
        idx = tuple(tok_or_int(x) for x in m.group(2).split(","))
        return get(P1, m.group(1), idx)
    m = re.fullmatch(r"sqrt\((var[12])\[(\d)\] \+ ln_eps\)", ref)
    if m:
        return mp.sqrt(F0[m.group(1)][int(m.group(2))] + EPS)
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref)
    if m:
        name, idx = m.group(1), tuple(tok_or_int(x) for x in m.group(2).split(","))
        if name.startswith("grad_"):
            base = name[5:]
            if base in G0:
                return get(G0, base, idx)
            if base == "h_final":
                return X0["grad_h"][idx[0]]
            if base == "LN2" and idx[0] == T - 1:
                return X0["grad_h"][idx[1]]
            if base in ("H2", "F") and idx[0] == T - 1:
                return X0["grad_H2"][idx[1]]
            if "grad_" + base in X0 and len(idx) == 1:
                return X0["grad_" + base][idx[0]]
            raise KeyError(ref)
        if name in PARAMS0:
            return get(PARAMS0, name, idx)
        if name == "h_final":
            return F0["h"][idx[0]]
        v = F0[name]
        return v[idx[0]][idx[1]] if len(idx) == 2 else v[idx[0]]
    if ref in F0:
        return F0[ref]
    raise KeyError(ref)


def de(x: str) -> str:
    """a plain decimal as the protocol prints it: decimal comma, Unicode minus"""
    return x.replace(".", ",").replace("-", "\u2212")


def main() -> int:
    bad = 0
    worst = numeric_check(PARAMS0, G0)
    print(f"hand-written backward pass vs numerical derivative: max |difference| = {mp.nstr(worst, 3)}")
    if worst > mp.mpf("1e-30"):
        bad += 1
        print("  BACKWARD PASS DISAGREES")
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    n_planted = sum(1 for r in rows if len(r.strip().strip("|").split("|")) == 7)
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ok_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        vals = []
        for n in names:
            try:
                vals.append((n, value_of(n)))
            except (KeyError, IndexError):
                pass
        if not vals:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        ref, v = vals[0]
        # every alternative named must be the same number
        if any(abs(w - v) > mp.mpf("1e-40") for _, w in vals[1:]):
            print(f"  {printed:>12}  ALTERNATIVES DIFFER: {vals}")
            bad += 1
        pct = printed.endswith("%")
        v = v * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = shown.rstrip("%").strip().replace("\u2212", "-")
        places = len(body.split(",")[1]) if "," in body else (len(body.split(".")[1]) if "." in body else 0)
        right = de(rnd(v, places)) + (" %" if pct else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else f"KEY DISAGREES (correct {right})"
        else:
            ok = right == printed
            note = "correct" if ok else f"NOT THE CORRECT ROUNDING (correct {right})"
        if not ok_line:
            note += f"; NOT FOUND ON LINE {line}"
            ok = False
        bad += not ok
        print(f"  {printed:>12}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} {note}")
    print(f"{len(rows)} key rows, {n_planted} planted")
    if n_planted != 8 or len(rows) != 18:
        bad += 1
        print("  KEY SHOULD HAVE 8 PLANTED AND 10 CORRECT ROWS")
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
