#!/usr/bin/env python3
"""Independent oracle for id-ipynb-seed-T3-adamw2: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row: its quantity, exact value, and a check of the key's columns
    python oracle.py --all    # also every quantity the notebook prints, with its value

Model (SPEC.toml): one post-LN block, one head, d = 4, d_ff = 8, V = 6, T = 3, ReLU, sinusoidal
positions (base 10000), tied head, ln_eps 1e-5, LayerNorm gamma = 1, beta = 0 (not trained).
Input "saya suka makan", target "nasi"; the loss is -ln p[nasi] at the last position.
Backward pass written out by hand (chain rule, no autodiff), checked here against central
differences on a few entries. AdamW as torch.optim.AdamW (lr 0.01, betas 0.9/0.999, eps 1e-8,
decoupled weight decay 0.01 on every trainable parameter: E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2).
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

VOCAB = ["<s>", "saya", "suka", "makan", "nasi", "ikan"]
IDS = [1, 2, 3]
TGT = 4
EPS_LN = mp.mpf("1e-5")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS0 = {
    "E": M([[0.1, -0.1, 0.0, 0.2], [0.5, 0.2, -0.3, 0.1], [-0.2, 0.4, 0.3, -0.1],
            [0.3, -0.4, 0.25, 0.5], [0.6, 0.1, -0.2, 0.35], [-0.1, 0.3, 0.4, -0.3]]),
    "W_Q": M([[0.4, -0.2, 0.1, 0.3], [0.2, 0.5, -0.3, 0.1], [-0.1, 0.3, 0.6, -0.2], [0.3, 0.1, 0.2, 0.4]]),
    "W_K": M([[0.3, 0.1, -0.2, 0.5], [-0.4, 0.2, 0.3, 0.1], [0.2, -0.1, 0.4, 0.3], [0.1, 0.6, 0.2, -0.3]]),
    "W_V": M([[0.5, -0.3, 0.2, 0.1], [0.1, 0.4, -0.2, 0.3], [-0.3, 0.2, 0.5, 0.2], [0.2, 0.1, 0.3, -0.4]]),
    "W_1": M([[0.3, -0.2, 0.4, 0.1, -0.5, 0.2, 0.15, -0.1],
              [-0.1, 0.4, 0.2, -0.3, 0.1, 0.5, -0.2, 0.3],
              [0.2, 0.1, -0.4, 0.5, 0.3, -0.1, 0.25, 0.2],
              [0.4, 0.3, 0.1, -0.2, 0.2, 0.1, -0.3, -0.4]]),
    "b_1": M([0.1, -0.05, 0.0, 0.1, 0.05, -0.1, 0.2, 0.0]),
    "W_2": M([[0.2, -0.1, 0.3, 0.1], [-0.3, 0.2, 0.1, 0.4], [0.1, 0.3, -0.2, 0.2], [0.4, -0.2, 0.1, -0.1],
              [-0.1, 0.1, 0.4, 0.3], [0.2, 0.4, -0.3, 0.1], [0.3, -0.3, 0.2, -0.2], [-0.2, 0.1, 0.1, 0.3]]),
    "b_2": M([0.05, 0.0, -0.05, 0.1]),
}


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- small linear algebra

def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def T_(A):
    return [list(r) for r in zip(*A)]


def ln_fwd(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    s = [mp.sqrt(v + EPS_LN) for v in var]
    return mu, var, s, [[(r[j] - m) / sd for j in range(d)] for r, m, sd in zip(H, mu, s)]


def ln_bwd(dY, Xhat, s):
    # gamma = 1: dx = (dy - mean(dy) - xhat * mean(dy * xhat)) / s, row by row
    out = []
    for dy, xh, sd in zip(dY, Xhat, s):
        d = len(dy)
        m1 = mp.fsum(dy) / d
        m2 = mp.fsum(a * b for a, b in zip(dy, xh)) / d
        out.append([(dy[j] - m1 - xh[j] * m2) / sd for j in range(d)])
    return out


# ---------------------------------------------------------------- forward and backward

def forward(P):
    E = P["E"]
    T, d = len(IDS), len(E[0])
    ang = lambda t, j: mp.mpf(t) / mp.mpf(10000) ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    dots = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    S = [[x / mp.sqrt(d) for x in r] for r in dots]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, s1, LN1 = ln_fwd(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, s2, LN2 = ln_fwd(H2)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, dots=dots, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1,
                var1=var1, s1=s1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, s2=s2, LN2=LN2, h=h,
                logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    E = P["E"]
    T, d, dff, Vn = len(IDS), len(E[0]), len(P["b_1"]), len(E)
    zero = lambda r, c: [[mp.mpf(0)] * c for _ in range(r)]
    dlog = [f["p"][v] - (1 if v == TGT else 0) for v in range(Vn)]
    gE_head = [[dlog[v] * f["h"][j] for j in range(d)] for v in range(Vn)]
    dh = [mp.fsum(dlog[v] * E[v][j] for v in range(Vn)) for j in range(d)]
    dLN2 = zero(T, d)
    dLN2[-1] = dh
    dH2 = ln_bwd(dLN2, f["LN2"], f["s2"])
    dF = dH2
    gW2 = matmul(T_(f["R"]), dF)
    gb2 = [mp.fsum(dF[t][j] for t in range(T)) for j in range(d)]
    dR = matmul(dF, T_(P["W_2"]))
    dZ = [[dR[t][k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(dff)] for t in range(T)]
    gW1 = matmul(T_(f["LN1"]), dZ)
    gb1 = [mp.fsum(dZ[t][k] for t in range(T)) for k in range(dff)]
    dZW = matmul(dZ, T_(P["W_1"]))
    dLN1 = [[dH2[t][j] + dZW[t][j] for j in range(d)] for t in range(T)]
    dH1 = ln_bwd(dLN1, f["LN1"], f["s1"])
    dAttn = dH1
    A, Vm, Q, K = f["A"], f["V"], f["Q"], f["K"]
    dA = matmul(dAttn, T_(Vm))
    dV = matmul(T_(A), dAttn)
    dS = zero(T, T)
    for t in range(T):
        inner = mp.fsum(A[t][r] * dA[t][r] for r in range(t + 1))
        for s in range(t + 1):
            dS[t][s] = A[t][s] * (dA[t][s] - inner)
    sc = 1 / mp.sqrt(d)
    dQ = [[x * sc for x in r] for r in matmul(dS, K)]
    dK = [[x * sc for x in r] for r in matmul(T_(dS), Q)]
    H0t = T_(f["H0"])
    gWQ, gWK, gWV = matmul(H0t, dQ), matmul(H0t, dK), matmul(H0t, dV)
    a1, a2, a3 = matmul(dQ, T_(P["W_Q"])), matmul(dK, T_(P["W_K"])), matmul(dV, T_(P["W_V"]))
    dH0 = [[dH1[t][j] + a1[t][j] + a2[t][j] + a3[t][j] for j in range(d)] for t in range(T)]
    gE = [r[:] for r in gE_head]
    for t in range(T):
        for j in range(d):
            gE[IDS[t]][j] += dH0[t][j]
    grads = {"E": gE, "W_Q": gWQ, "W_K": gWK, "W_V": gWV, "W_1": gW1, "b_1": gb1, "W_2": gW2, "b_2": gb2}
    return grads, dict(dlogits=dlog, gE_head=gE_head)


def entries(P):
    for name, X in P.items():
        if isinstance(X[0], list):
            for i in range(len(X)):
                for j in range(len(X[0])):
                    yield name, (i, j)
        else:
            for i in range(len(X)):
                yield name, (i,)


def get(X, idx):
    return X[idx[0]][idx[1]] if len(idx) == 2 else X[idx[0]]


def put(X, idx, v):
    if len(idx) == 2:
        X[idx[0]][idx[1]] = v
    else:
        X[idx[0]] = v


def copy(P):
    return {k: ([r[:] for r in X] if isinstance(X[0], list) else X[:]) for k, X in P.items()}


def adamw(P0, steps, lr, b1, b2, eps, wd):
    """torch.optim.AdamW on every parameter; returns the states and per-step moment records."""
    P = copy(P0)
    m = {(n, i): mp.mpf(0) for n, i in entries(P)}
    v = dict(m)
    states, recs = [P], []
    for k in range(1, steps + 1):
        f = forward(P)
        g, _ = backward(P, f)
        Pn = copy(P)
        rec = {}
        for n, idx in entries(P):
            gi, th = get(g[n], idx), get(P[n], idx)
            m[(n, idx)] = b1 * m[(n, idx)] + (1 - b1) * gi
            v[(n, idx)] = b2 * v[(n, idx)] + (1 - b2) * gi * gi
            mhat = m[(n, idx)] / (1 - b1 ** k)
            vhat = v[(n, idx)] / (1 - b2 ** k)
            upd = lr * mhat / (mp.sqrt(vhat) + eps)
            put(Pn[n], idx, th * (1 - lr * wd) - upd)
            rec[(n, idx)] = dict(g=gi, m=m[(n, idx)], v=v[(n, idx)], mhat=mhat, vhat=vhat, update=upd,
                                 decay=lr * wd * th, new=get(Pn[n], idx))
        P = Pn
        states.append(P)
        recs.append(rec)
    return states, recs


# ---------------------------------------------------------------- the notebook's quantities

def quantities():
    P = PARAMS0
    f = forward(P)
    g, extra = backward(P, f)
    # a check of the hand-written backward pass against central differences (h = 1e-20 at 50 digits)
    h = mp.mpf("1e-20")
    for n, idx in [("W_Q", (0, 0)), ("W_Q", (3, 0)), ("W_K", (1, 2)), ("W_V", (2, 1)), ("W_1", (0, 2)),
                   ("b_1", (6,)), ("W_2", (3, 2)), ("b_2", (1,)), ("E", (4, 1)), ("E", (3, 1)), ("E", (1, 0))]:
        Pp, Pm = copy(P), copy(P)
        put(Pp[n], idx, get(P[n], idx) + h)
        put(Pm[n], idx, get(P[n], idx) - h)
        fd = (forward(Pp)["loss"] - forward(Pm)["loss"]) / (2 * h)
        assert abs(fd - get(g[n], idx)) < mp.mpf("1e-30"), (n, idx, fd, get(g[n], idx))

    q = {}
    tok = lambda v: VOCAB[v]
    for t in range(3):
        for j in range(4):
            for name in ("PE", "H0", "Q", "K", "V", "Attn", "H1", "LN1", "F", "H2", "LN2"):
                q[f"{name}[{t},{j}]"] = f[name][t][j]
        for s in range(3):
            q[f"S[{t},{s}]"] = f["S"][t][s]
            q[f"A[{t},{s}]"] = f["A"][t][s]
            q[f"dot(Q[{t},:],K[{s},:])"] = f["dots"][t][s]
        for k in range(8):
            q[f"Z[{t},{k}]"] = f["Z"][t][k]
            q[f"R[{t},{k}]"] = f["R"][t][k]
        for name in ("mu1", "var1", "mu2", "var2", "A_den"):
            q[f"{name}[{t}]"] = f[name][t]
        q[f"sqrt(var1[{t}] + ln_eps)"] = f["s1"][t]
        q[f"sqrt(var2[{t}] + ln_eps)"] = f["s2"][t]
    for j in range(4):
        q[f"h_final[{j}]"] = f["h"][j]
    for v in range(6):
        q[f"logits[{tok(v)}]"] = f["logits"][v]
        q[f"p[{tok(v)}]"] = f["p"][v]
        q[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
        q[f"grad_logits[{tok(v)}]"] = extra["dlogits"][v]
        for j in range(4):
            q[f"grad_E[{tok(v)},{j}]"] = g["E"][v][j]
            q[f"grad_E_head[{tok(v)},{j}]"] = extra["gE_head"][v][j]
    q["sum_exp"] = f["sum_exp"]
    q["loss"] = f["loss"]
    for n in ("W_Q", "W_K", "W_V", "W_1", "W_2"):
        for i in range(len(g[n])):
            for j in range(len(g[n][0])):
                q[f"grad_{n}[{i},{j}]"] = g[n][i][j]

    lr, b1, b2, eps, wd = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.999"), mp.mpf("1e-8"), mp.mpf("0.01")
    states, recs = adamw(P, 2, lr, b1, b2, eps, wd)
    for k, rec in enumerate(recs, start=1):
        for (n, idx), r in rec.items():
            ix = ",".join(tok(idx[0]) if n == "E" and c == 0 else str(i) for c, i in enumerate(idx))
            for key in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{k}].{key}[{n},{ix}]"] = r[key]
            q[f"adamw[{k}].{n}[{ix}]"] = r["new"]
            q[f"adamw[{k - 1}].grad_{n}[{ix}]"] = r["g"]
    for k, P_k in enumerate(states):
        fk = forward(P_k)
        q[f"adamw[{k}].loss"] = fk["loss"]
        for v in range(6):
            q[f"adamw[{k}].p[{tok(v)}]"] = fk["p"][v]
    return q


def main() -> int:
    values = quantities()
    bad = 0
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        mant = shown.rstrip("%")
        sci = re.fullmatch(r"(-?\d+(?:\.\d+)?)e([+-]\d+)", mant)
        if sci:                                    # a figure in scientific notation: rounded at its mantissa
            places = len(sci.group(1).split(".")[1]) if "." in sci.group(1) else 0
            ex = int(sci.group(2))
            right = f"{rnd(v / mp.mpf(10) ** ex, places)}e{sci.group(2)}"
        else:
            places = len(mant.split(".")[1]) if "." in mant else 0
            right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>12}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    if "--all" in sys.argv:
        for name, v in values.items():
            print(f"{name:<36} {mp.nstr(v, 20)}")
    assert n_planted == 8 and n_correct == 10, (n_planted, n_correct)
    assert not bad, f"{bad} key rows disagree with the oracle"
    print(f"all {len(rows)} key rows agree with the oracle ({n_planted} planted, {n_correct} correct)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
