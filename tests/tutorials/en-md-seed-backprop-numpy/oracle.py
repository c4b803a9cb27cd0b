#!/usr/bin/env python3
"""Independent check of DOC.md and KEY.md: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py

Reads the weights from SPEC.toml and computes the post-LN block of the tutorial:
  PE[t] = (sin t, cos t) (d = 2, so one frequency), X = E[ids] + PE,
  Q, K, V = X·W_Q, X·W_K, X·W_V; scores = Q·Kᵀ/√2 with the causal mask; att = softmax by rows;
  out = att·V; h1 = X + out; ln1 = LN(h1) (biased variance, eps from the spec, γ = 1, β = 0);
  f_pre = ln1·W1 + b1; f = ReLU(f_pre)·W2 + b2; h2 = ln1 + f; ln2 = LN(h2);
  logits = ln2[T-1]·Eᵀ (tied head); probs = softmax; loss = -ln probs[target].
The backward pass is written out by hand (the same steps as the tutorial) and checked entry by entry
against a central difference at h = 1e-20. One SGD step (lr from the spec) on every parameter
(E, W_Q, W_K, W_V, W1, b1, W2, b2), then the forward pass again gives the new loss.

Then every row of KEY.md is checked: the quantity's exact value, the "exact value" and "correct rounding"
columns (half away from zero), that a planted figure differs from the correct rounding, and that the
printed text occurs on the stated line of DOC.md.
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
ZERO = mp.mpf(0)


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    """v rounded half away from zero to n decimals (on its 45-digit decimal)."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def T_(A):
    return [list(r) for r in zip(*A)]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    sd = [mp.sqrt(v + eps) for v in var]
    return mu, var, sd, [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(H, mu, sd)]


def layernorm_back(dY, Y, sd):
    """dx = (dy - mean(dy) - y·mean(dy·y)) / sd, row by row (γ = 1)."""
    out = []
    for dy, y, s in zip(dY, Y, sd):
        d = len(dy)
        m1 = mp.fsum(dy) / d
        m2 = mp.fsum(a * b for a, b in zip(dy, y)) / d
        out.append([(dy[j] - m1 - y[j] * m2) / s for j in range(d)])
    return out


def forward(P, ids, tgt, eps):
    E = P["E"]
    T, d = len(ids), len(E[0])
    PE = [[mp.sin(t) if j % 2 == 0 else mp.cos(t) for j in range(d)] for t in range(T)]   # base^0 = 1 at d = 2
    X = [[E[ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(X, P["W_Q"]), matmul(X, P["W_K"]), matmul(X, P["W_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else ZERO for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, sd1, LN1 = layernorm(H1, eps)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else ZERO for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, sd2, LN2 = layernorm(H2, eps)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, X=X, H0=X, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                sd1=sd1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, sd2=sd2, LN2=LN2, h_final=h,
                logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[tgt]))


def backward(P, f, ids, tgt):
    E = P["E"]
    V_, d, T = len(E), len(E[0]), len(ids)
    g = {}
    g["logits"] = [f["p"][v] - (1 if v == tgt else 0) for v in range(V_)]
    g["E_head"] = [[g["logits"][v] * f["h_final"][j] for j in range(d)] for v in range(V_)]
    g["h_final"] = [mp.fsum(g["logits"][v] * E[v][j] for v in range(V_)) for j in range(d)]
    dLN2 = [[ZERO] * d for _ in range(T - 1)] + [g["h_final"]]
    g["LN2"] = dLN2
    g["H2"] = layernorm_back(dLN2, f["LN2"], f["sd2"])
    g["F"] = g["H2"]
    g["W_2"] = matmul(T_(f["R"]), g["F"])
    g["b_2"] = [mp.fsum(g["F"][t][j] for t in range(T)) for j in range(d)]
    g["R"] = matmul(g["F"], T_(P["W_2"]))
    g["Z"] = [[g["R"][t][k] if f["Z"][t][k] > 0 else ZERO for k in range(len(g["R"][0]))] for t in range(T)]
    g["W_1"] = matmul(T_(f["LN1"]), g["Z"])
    g["b_1"] = [mp.fsum(g["Z"][t][k] for t in range(T)) for k in range(len(g["Z"][0]))]
    zw = matmul(g["Z"], T_(P["W_1"]))
    g["LN1"] = [[g["H2"][t][j] + zw[t][j] for j in range(d)] for t in range(T)]
    g["H1"] = layernorm_back(g["LN1"], f["LN1"], f["sd1"])
    g["Attn"] = g["H1"]
    g["V"] = matmul(T_(f["A"]), g["Attn"])
    dA = matmul(g["Attn"], T_(f["V"]))
    g["A"] = [[dA[t][s] if s <= t else ZERO for s in range(T)] for t in range(T)]
    g["S"] = []
    for t in range(T):
        c = mp.fsum(f["A"][t][s] * g["A"][t][s] for s in range(t + 1))
        g["S"].append([f["A"][t][s] * (g["A"][t][s] - c) if s <= t else ZERO for s in range(T)])
    r2 = mp.sqrt(d)
    g["Q"] = [[x / r2 for x in r] for r in matmul(g["S"], f["K"])]
    g["K"] = [[x / r2 for x in r] for r in matmul(T_(g["S"]), f["Q"])]
    Xt = T_(f["X"])
    g["W_Q"], g["W_K"], g["W_V"] = matmul(Xt, g["Q"]), matmul(Xt, g["K"]), matmul(Xt, g["V"])
    a, b, c = matmul(g["Q"], T_(P["W_Q"])), matmul(g["K"], T_(P["W_K"])), matmul(g["V"], T_(P["W_V"]))
    g["H0"] = [[g["H1"][t][j] + a[t][j] + b[t][j] + c[t][j] for j in range(d)] for t in range(T)]
    g["X"] = g["H0"]
    gE = [r[:] for r in g["E_head"]]
    for t, v in enumerate(ids):
        for j in range(d):
            gE[v][j] += g["H0"][t][j]
    g["E"] = gE
    return g


PARAMS = ("E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")


def entries(x):
    if isinstance(x[0], list):
        return [(i, j) for i in range(len(x)) for j in range(len(x[0]))]
    return [(i,) for i in range(len(x))]


def get(x, ix):
    return x[ix[0]][ix[1]] if len(ix) == 2 else x[ix[0]]


def with_entry(P, name, ix, delta):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(ix) == 2:
        Q[name][ix[0]][ix[1]] += delta
    else:
        Q[name][ix[0]] += delta
    return Q


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    lr = mp.mpf(str(spec["training"]["lr"]))
    L = spec["layer"][0]
    P = {"E": M(spec["weights"]["E"])} | {k: M(L[k]) for k in PARAMS[1:]}
    f = forward(P, ids, tgt, eps)
    g = backward(P, f, ids, tgt)
    # the hand-written backward against central differences (h = 1e-20, error ~ h² at 50 digits)
    h = mp.mpf("1e-20")
    worst = ZERO
    for name in PARAMS:
        for ix in entries(P[name]):
            num = (forward(with_entry(P, name, ix, h), ids, tgt, eps)["loss"]
                   - forward(with_entry(P, name, ix, -h), ids, tgt, eps)["loss"]) / (2 * h)
            worst = max(worst, abs(num - get(g[name], ix)))
    assert worst < mp.mpf("1e-25"), f"backward disagrees with finite differences: {worst}"
    P1 = {k: [[P[k][i][j] - lr * g[k][i][j] for j in range(len(P[k][0]))] for i in range(len(P[k]))]
          if isinstance(P[k][0], list) else [P[k][i] - lr * g[k][i] for i in range(len(P[k]))] for k in PARAMS}
    f1 = forward(P1, ids, tgt, eps)
    return dict(vocab=vocab, ids=ids, tgt=tgt, eps=eps, lr=lr, P=P, f=f, g=g, P1=P1, f1=f1, fd_worst=worst)


def values(m):
    """Every quantity by its symgpt reference name (tokens by word)."""
    vocab, f, g, P1, f1 = m["vocab"], m["f"], m["g"], m["P1"], m["f1"]
    out = {}

    def put(prefix, name, x, tok_rows=False, tok_cols=False):
        for ix in entries(x):
            parts = [vocab[ix[0]] if tok_rows else str(ix[0])]
            if len(ix) == 2:
                parts.append(vocab[ix[1]] if tok_cols else str(ix[1]))
            out[f"{prefix}{name}[{','.join(parts)}]"] = get(x, ix)

    for n in ("PE", "X", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        put("", n, f[n])
    for n in ("A_den", "mu1", "var1", "mu2", "var2", "h_final"):
        put("", n, f[n])
    put("", "logits", f["logits"], tok_rows=True)
    put("", "p", f["p"], tok_rows=True)
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    for t in range(len(f["var1"])):
        out[f"sqrt(var1[{t}] + ln_eps)"] = f["sd1"][t]
        out[f"sqrt(var2[{t}] + ln_eps)"] = f["sd2"][t]
    put("grad_", "logits", g["logits"], tok_rows=True)
    put("grad_", "E_head", g["E_head"], tok_rows=True)
    put("grad_", "E", g["E"], tok_rows=True)
    for n in ("h_final", "b_1", "b_2"):
        put("grad_", n, g[n])
    for n in ("LN2", "H2", "F", "W_2", "R", "Z", "W_1", "LN1", "H1", "Attn", "V", "A", "S", "Q", "K",
              "W_Q", "W_K", "W_V", "H0", "X"):
        put("grad_", n, g[n])
    for k in PARAMS:
        put("sgd[1].", k, P1[k], tok_rows=(k == "E"))
    put("sgd[1].", "p", f1["p"], tok_rows=True)
    put("sgd[1].", "logits", f1["logits"], tok_rows=True)
    out["sgd[1].loss"] = f1["loss"]
    return out


def check_key(vals) -> int:
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = planted = correct = 0
    for r in key.splitlines():
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        for n in names:               # every alternative must be the same number
            if n in vals and abs(vals[n] - vals[ref]) > mp.mpf("1e-40"):
                problems.append(f"alternative {n} differs")
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            problems.append(f"text not on line {line}")
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        if len(cells) == 7:
            shown = cells[4].strip("`")
            places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
            right = rnd(v, places) + ("%" if shown.endswith("%") else "")
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            if shown != right:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact value is {mp.nstr(v, 15)}")
            pplaces = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            pright = rnd(v, pplaces) + ("%" if printed.endswith("%") else "")
            if printed.replace("−", "-") in (right, pright):
                problems.append("planted figure is not wrong")
            planted += 1
        else:
            places = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            right = rnd(v, places) + ("%" if printed.endswith("%") else "")
            if right != printed.replace("−", "-"):
                problems.append(f"not the correct rounding ({right})")
            correct += 1
        bad += bool(problems)
        note = "; ".join(problems).upper() if problems else ("planted, key agrees" if len(cells) == 7 else "correct")
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} {note}")
    if planted != 8 or correct != 10:
        print(f"  KEY HAS {planted} PLANTED AND {correct} CORRECT ROWS (want 8 and 10)")
        bad += 1
    return bad


def main() -> int:
    m = model()
    vals = values(m)
    print(f"backward vs central differences: worst |diff| = {mp.nstr(m['fd_worst'], 3)}")
    print(f"loss = {mp.nstr(vals['loss'], 20)}, after one SGD step (lr {m['lr']}) = {mp.nstr(vals['sgd[1].loss'], 20)}")
    bad = check_key(vals)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
