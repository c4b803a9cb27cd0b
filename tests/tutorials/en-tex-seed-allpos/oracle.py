#!/usr/bin/env python3
"""Independent computation behind KEY.md: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py      # every KEY.md row: its quantity's value, the rounding check, the line check

Model (read from SPEC.toml): one post-LN block, one head, ReLU FFN, sinusoidal positions, tied head.
H0 = E[ids] + PE with PE[t,0] = sin(t), PE[t,1] = cos(t) (d = 2, t from 0); Q, K, V = H0·W;
S = Q·Kᵀ/√2, causal softmax A; Attn = A·V; H1 = H0 + Attn; LN1 (biased variance, eps, γ1, β1);
Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2 (γ2, β2);
logits at every position t: LN2[t]·Eᵀ; p_t = softmax; L_t = −ln p_t[y_t] with y = input[1:] + [target];
loss = mean of L_t (training.all_positions = true); grad of logits_t = (p_t − y_t)/3.
Gradients of every parameter: central differences at 100 digits (h = 1e-30), i.e. ~40 correct digits.
One SGD step (lr from the spec) on every trainable parameter (γ, β are not trained), then the loss again.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d = spec["model"]["d"]
    num = lambda x: mp.mpf(str(x))
    L = spec["layer"][0]
    P = {"E": [[num(x) for x in r] for r in spec["weights"]["E"]]}
    for k in ("W_Q", "W_K", "W_V", "W_1", "W_2"):
        P[k] = [[num(x) for x in r] for r in L[k]]
    for k in ("b_1", "b_2"):
        P[k] = [num(x) for x in L[k]]
    ln = {k: [num(x) for x in L.get(k, [1 if k.startswith("gamma") else 0] * d)]
          for k in ("gamma1", "beta1", "gamma2", "beta2")}
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgts = ids[1:] + [vocab.index(spec["data"]["target"])]
    assert spec["training"]["all_positions"] is True
    return spec, vocab, P, ln, ids, tgts, num(spec["model"]["ln_eps"]), num(spec["training"]["lr"]), \
        num(spec["model"].get("pe_base", 10000))


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps, g, b):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[g[j] * (r[j] - m) / mp.sqrt(v + eps) + b[j] for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def forward(P, ln, ids, tgts, eps, base):
    E = P["E"]
    T, d, Vn = len(ids), len(E[0]), len(E)
    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [E[i][:] for i in ids]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = mm(H0, P["W_Q"]), mm(H0, P["W_K"]), mm(H0, P["W_V"])
    raw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    S = [[raw[t][s] / mp.sqrt(d) for s in range(T)] for t in range(T)]
    ex = [[mp.exp(S[t][s]) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(ex[t][s] for s in range(t + 1)) for t in range(T)]
    A = [[ex[t][s] / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = mm(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1, eps, ln["gamma1"], ln["beta1"])
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in mm(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in mm(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2, eps, ln["gamma2"], ln["beta2"])
    logits = [[mp.fsum(LN2[t][j] * E[v][j] for j in range(d)) for v in range(Vn)] for t in range(T)]
    sum_exp = [mp.fsum(mp.exp(z) for z in row) for row in logits]
    p = [[mp.exp(z) / s for z in row] for row, s in zip(logits, sum_exp)]
    Lt = [-mp.log(p[t][tgts[t]]) for t in range(T)]
    loss = mp.fsum(Lt) / T
    gz = [[(p[t][v] - (1 if v == tgts[t] else 0)) / T for v in range(Vn)] for t in range(T)]
    return dict(PE=PE, X=X, H0=H0, Q=Q, K=K, V=V, raw=raw, S=S, ex=ex, A_den=A_den, A=A, Attn=Attn, H1=H1,
                mu1=mu1, var1=var1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2,
                logits=logits, sum_exp=sum_exp, p=p, Lt=Lt, loss=loss, gz=gz)


def gradient(P, ln, ids, tgts, eps, base):
    """∂loss/∂θ for every trainable parameter, by central differences at 100 digits"""
    h = mp.mpf("1e-30")
    G = {}
    with mp.workdps(100):
        def diff(get, put):
            old = get()
            put(old + h)
            lp = forward(P, ln, ids, tgts, eps, base)["loss"]
            put(old - h)
            lm = forward(P, ln, ids, tgts, eps, base)["loss"]
            put(old)
            return (lp - lm) / (2 * h)
        for name, W in P.items():
            if isinstance(W[0], list):
                G[name] = [[diff(lambda: W[i][j], lambda x: W[i].__setitem__(j, x)) for j in range(len(W[0]))]
                           for i in range(len(W))]
            else:
                G[name] = [diff(lambda: W[i], lambda x: W.__setitem__(i, x)) for i in range(len(W))]
    return G


def sgd_step(P, G, lr):
    out = {}
    for name, W in P.items():
        if isinstance(W[0], list):
            out[name] = [[W[i][j] - lr * G[name][i][j] for j in range(len(W[0]))] for i in range(len(W))]
        else:
            out[name] = [W[i] - lr * G[name][i] for i in range(len(W))]
    return out


def softmax_expr(pos, vocab, v):
    name = f"logits_at{pos}" if pos < 2 else "logits"
    den = " + ".join(f"exp({name}[{w}])" for w in vocab)
    return f"exp({name}[{v}]) / ({den})"


def loss_expr(pos, vocab, v):
    name = f"logits_at{pos}" if pos < 2 else "logits"
    den = " + ".join(f"exp({name}[{w}])" for w in vocab)
    return f"log({den}) - {name}[{v}]"


def compute():
    spec, vocab, P, ln, ids, tgts, eps, lr, base = load()
    f = forward(P, ln, ids, tgts, eps, base)
    G = gradient(P, ln, ids, tgts, eps, base)
    P1 = sgd_step(P, G, lr)
    f1 = forward(P1, ln, ids, tgts, eps, base)
    T, d = len(ids), len(P["E"][0])
    vals = {}
    for name in ("PE", "X", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t, row in enumerate(f[name]):
            for j, x in enumerate(row):
                vals[f"{name}[{t},{j}]"] = x
    for t in range(T):
        for s in range(T):
            vals[f"S[{t},{s}]*sqrt(2)"] = f["raw"][t][s]
            vals[f"exp(S[{t},{s}])"] = f["ex"][t][s]
    for name in ("A_den", "mu1", "var1", "mu2", "var2"):
        for t, x in enumerate(f[name]):
            vals[f"{name}[{t}]"] = x
    for t in range(T):
        vals[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + eps)
        vals[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(f["var2"][t] + eps)
        lname = f"logits_at{t}" if t < T - 1 else "logits"
        for v, w in enumerate(vocab):
            vals[f"{lname}[{w}]"] = f["logits"][t][v]
            vals[f"exp({lname}[{w}])"] = mp.exp(f["logits"][t][v])
            vals[f"grad_{lname}[{w}]"] = f["gz"][t][v]
            vals[softmax_expr(t, vocab, w) if t < T - 1 else f"p[{w}]"] = f["p"][t][v]
        y = vocab[tgts[t]]
        vals[loss_expr(t, vocab, y) if t < T - 1 else "log(sum_exp) - logits[" + y + "]"] = f["Lt"][t]
        if t < T - 1:
            vals[" + ".join(f"exp({lname}[{w}])" for w in vocab)] = f["sum_exp"][t]
    vals["sum_exp"] = f["sum_exp"][T - 1]
    vals["loss"] = f["loss"]
    for v, w in enumerate(vocab):
        for j in range(d):
            vals[f"grad_E[{w},{j}]"] = G["E"][v][j]
            vals[f"sgd[1].E[{w},{j}]"] = P1["E"][v][j]
    vals["sgd[1].loss"] = f1["loss"]
    vals["loss - sgd[1].loss"] = f["loss"] - f1["loss"]
    return dict(spec=spec, vocab=vocab, P=P, ln=ln, ids=ids, tgts=tgts, eps=eps, lr=lr, f=f, G=G, P1=P1, f1=f1,
                vals=vals)


def facts(c):
    """prose facts the document states, asserted"""
    G, f, vocab, ids = c["G"], c["f"], c["vocab"], c["ids"]
    # every parameter other than E has a gradient below 1e-6 in magnitude
    for name, W in G.items():
        if name == "E":
            continue
        for x in (W if not isinstance(W[0], list) else [y for r in W for y in r]):
            assert abs(x) < mp.mpf("1e-6"), (name, x)
    # the path through the block adds less than 1e-7 to an input token's embedding gradient
    T = len(ids)
    for v, w in enumerate(vocab):
        for j in range(2):
            head = mp.fsum(f["gz"][t][v] * f["LN2"][t][j] for t in range(T))
            extra = G["E"][v][j] - head
            if v in ids:
                assert abs(extra) < mp.mpf("1e-7"), (w, j, extra)
            else:
                assert abs(extra) < mp.mpf("1e-30"), (w, j, extra)
    # ReLU inputs far from 0; each gradient row sums to 0
    assert all(abs(z) > mp.mpf("0.01") for r in f["Z"] for z in r)
    assert all(abs(mp.fsum(r)) < mp.mpf("1e-40") for r in f["gz"])


def main() -> int:
    c = compute()
    facts(c)
    vals = c["vals"]
    doc = (HERE / "DOC.tex").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [x.strip() for x in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        if printed not in doc[line - 1] and printed.replace("%", "\\%") not in doc[line - 1]:   # LaTeX writes \%
            problems.append(f"not on line {line}")
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                problems.append(f"correct rounding is {right}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append("exact value column")
            if printed.replace("−", "-") == right or rnd(v, len(printed.rstrip('%').split('.')[1]) if '.' in printed else 0) + ('%' if printed.endswith('%') else '') == printed:
                problems.append("the planted figure is not wrong")
            note = "planted, key agrees"
        else:
            if right != printed:
                problems.append(f"NOT THE CORRECT ROUNDING ({right})")
            note = "correct"
        if problems:
            note = "PROBLEM: " + "; ".join(problems)
            bad += 1
        print(f"  {printed:>10}  line {line:>3}  {ref[:40]:<40} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    n_planted = sum(1 for r in rows if len(r.strip().strip('|').split('|')) == 7)
    if n_planted != 8:
        print(f"expected 8 planted rows, found {n_planted}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
