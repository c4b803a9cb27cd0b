#!/usr/bin/env python3
"""Independent computation behind KEY.md for DOC.html: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py      # every quantity named in KEY.md, its value, and a check of each key row:
                           # the exact value, the correct rounding (half away from zero) and that the
                           # printed text stands on the stated line of DOC.html

Model (read from SPEC.toml): a two-layer post-LN transformer, one head, d = 2, ReLU FFN, sinusoidal
positions PE[t,2i] = sin(t/base^(2i/d)), PE[t,2i+1] = cos(same), tied head. Per layer l:
Q, K, V = X·W; S = Q·Kᵀ/√d; causal softmax A; Attn = A·V; H1 = X + Attn; LN1 (biased variance, eps);
Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2, which is the next layer's X.
logits = LN2[T-1]·Eᵀ of the last layer, p = softmax, loss = -ln p[target]. The gradient is by a small
reverse-mode differentiation of the same scalar graph; one SGD step θ - lr·g on every parameter
(E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2 of both layers; LayerNorm has no parameters here), then the
forward pass again for the new loss.
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


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents
        self.g = mp.mpf(0)

    def __add__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return Var(b) - a

    def __mul__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __neg__(a):
        return Var(-a.v, ((a, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def relu(a):
    assert a.v != 0, "ReLU tie"
    return Var(a.v if a.v > 0 else 0, ((a, 1 if a.v > 0 else 0),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for p, _ in n.parents:
            stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, w in n.parents:
            p.g += n.g * w


def val(x):
    return x.v if isinstance(x, Var) else [val(y) for y in x] if isinstance(x, list) else x


def grad(x):
    return x.g if isinstance(x, Var) else [grad(y) for y in x]


# ---------------------------------------------------------------- the model

def mpf(x):
    return mp.mpf(str(x))


def params_from_spec(spec):
    P = {"E": [[mpf(x) for x in r] for r in spec["weights"]["E"]]}
    for l, L in enumerate(spec["layer"]):
        for k in ("W_Q", "W_K", "W_V", "W_1", "W_2"):
            P[f"l{l}.{k}"] = [[mpf(x) for x in r] for r in L[k]]
        for k in ("b_1", "b_2"):
            P[f"l{l}.{k}"] = [mpf(x) for x in L[k]]
    return P


def as_vars(P):
    return {k: [[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v]
            for k, v in P.items()}


def mm(A, B):
    return [[vsum([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    d = len(H[0])
    mus, vs, outs = [], [], []
    for r in H:
        mu = vsum(r) / d
        var = vsum([(x - mu) * (x - mu) for x in r]) / d
        sd = vsqrt(var + eps)
        mus.append(mu)
        vs.append(var)
        outs.append([(x - mu) / sd for x in r])
    return mus, vs, outs


def forward(spec, P):
    m = spec["model"]
    vocab, d, eps = m["vocab"], m["d"], mpf(m["ln_eps"])
    base = mpf(m.get("pe_base", 10000))
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [[P["E"][ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    rec = {"PE": PE, "H0": X}
    for l in range(m["layers"]):
        p = f"l{l}."
        Q, K, V = mm(X, P[p + "W_Q"]), mm(X, P[p + "W_K"]), mm(X, P[p + "W_V"])
        S = [[vsum([Q[t][j] * K[s][j] for j in range(d)]) / mp.sqrt(d) for s in range(T)] for t in range(T)]
        den = [vsum([vexp(S[t][s]) for s in range(t + 1)]) for t in range(T)]
        A = [[vexp(S[t][s]) / den[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        Attn = mm(A, V)
        H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        mu1, var1, LN1 = layernorm(H1, eps)
        Z = [[z + b for z, b in zip(r, P[p + "b_1"])] for r in mm(LN1, P[p + "W_1"])]
        R = [[relu(z) for z in r] for r in Z]
        F = [[f + b for f, b in zip(r, P[p + "b_2"])] for r in mm(R, P[p + "W_2"])]
        H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H2, eps)
        for k, v in dict(X=X, Q=Q, K=K, V=V, S=S, A_den=den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                         LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2).items():
            rec[p + k] = v
        X = LN2
    h = X[-1]
    logits = [vsum([h[j] * P["E"][v][j] for j in range(d)]) for v in range(len(vocab))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    prob = [e / se for e in ex]
    rec.update(h_final=h, logits=logits, exp_logits=ex, sum_exp=se, p=prob, loss=-vlog(prob[tgt]))
    return rec


def run(spec):
    P0 = params_from_spec(spec)
    PV = as_vars(P0)
    rec = forward(spec, PV)
    backward(rec["loss"])
    G = {k: grad(v) for k, v in PV.items()}
    lr = mpf(spec["training"]["lr"])
    P1 = {k: [[x - lr * g for x, g in zip(r, gr)] for r, gr in zip(v, G[k])] if isinstance(v[0], list)
          else [x - lr * g for x, g in zip(v, G[k])] for k, v in P0.items()}
    rec1 = forward(spec, as_vars(P1))
    return P0, rec, G, P1, rec1


# ---------------------------------------------------------------- named quantities (symgpt's names)

def quantities():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    P0, rec, G, P1, rec1 = run(spec)
    Q = {}

    def put(name, arr, tok_index=False):
        arr = val(arr)
        if isinstance(arr, list):
            for i, r in enumerate(arr):
                ii = vocab[i] if tok_index else i
                if isinstance(r, list):
                    for j, x in enumerate(r):
                        Q[f"{name}[{ii},{j}]"] = x
                else:
                    Q[f"{name}[{ii}]"] = r
        else:
            Q[name] = arr

    for k, v in rec.items():
        if k in ("logits", "exp_logits", "p"):
            put(k, v, tok_index=True)
        else:
            put(k, v)
    for k, v in G.items():
        put("grad_" + k, v, tok_index=(k == "E"))
        put("sgd[1]." + k, P1[k], tok_index=(k == "E"))
    Q["loss"] = val(rec["loss"])
    Q["sgd[1].loss"] = val(rec1["loss"])
    put("sgd[1].p", rec1["p"], tok_index=True)
    tgt = vocab.index(spec["data"]["target"])
    for v, tok in enumerate(vocab):                      # dL/dlogits = p - y
        Q[f"grad_logits[{tok}]"] = val(rec["p"][v]) - (1 if v == tgt else 0)
    # the backward quantities the document works through by hand, from the definitions
    e = P0["E"]
    T = len(spec["data"]["input"])
    gh = [mp.fsum(Q[f"grad_logits[{tok}]"] * e[v][j] for v, tok in enumerate(vocab)) for j in range(2)]
    for j in range(2):
        Q[f"grad_h_final[{j}]"] = gh[j]
        Q[f"grad_l1.LN2[{T - 1},{j}]"] = gh[j]
    # through a d = 2 LayerNorm: dL/dH2_j = ±(g_0 - g_1)/2 · eps / (var + eps)^(3/2)
    eps, var = mpf(spec["model"]["ln_eps"]), Q[f"l1.var2[{T - 1}]"]
    dH2 = [(gh[0] - gh[1]) / 2 * eps / (var + eps) ** mp.mpf(1.5), -(gh[0] - gh[1]) / 2 * eps / (var + eps) ** mp.mpf(1.5)]
    # the graph's gradient of H2 (= that of F) must agree with the closed form
    for j in range(2):
        Q[f"grad_l1.H2[{T - 1},{j}]"] = dH2[j]
        Q[f"grad_l1.F[{T - 1},{j}]"] = dH2[j]
        for k in range(4):   # only the last position of the last layer reaches the loss
            g_closed = Q[f"l1.R[{T - 1},{k}]"] * dH2[j]
            assert abs(g_closed - Q[f"grad_l1.W_2[{k},{j}]"]) <= mp.mpf("1e-40"), (k, j)
    # the sanity of the autodiff: a central difference on one weight of each kind
    for name, i, j in (("l1.W_2", 1, 0), ("E", 3, 0), ("l0.W_Q", 0, 1)):
        h = mp.mpf("1e-20")
        Pp, Pm = params_from_spec(spec), params_from_spec(spec)
        Pp[name][i][j] += h
        Pm[name][i][j] -= h
        fd = (forward(spec, as_vars(Pp))["loss"].v - forward(spec, as_vars(Pm))["loss"].v) / (2 * h)
        gi = G[name][i][j]
        assert abs(fd - gi) <= mp.mpf("1e-25") + mp.mpf("1e-12") * abs(gi), (name, i, j, fd, gi)
    Q["ln_eps"] = eps
    Q["lr"] = mpf(spec["training"]["lr"])
    # the side figures the document prints on the way
    d = spec["model"]["d"]
    Q["sqrt(d)"] = mp.sqrt(d)
    Q["1/V"] = mp.mpf(1) / len(vocab)
    for l in range(len(spec["layer"])):
        for s in range(T):
            Q[f"exp(l{l}.S[{T - 1},{s}])"] = mp.exp(Q[f"l{l}.S[{T - 1},{s}]"])
        for n in ("var1", "var2"):
            Q[f"sqrt(l{l}.{n}[{T - 1}] + ln_eps)"] = mp.sqrt(Q[f"l{l}.{n}[{T - 1}]"] + eps)
    Q[f"(l1.var2[{T - 1}] + ln_eps)^1.5"] = (var + eps) ** mp.mpf(1.5)
    Q["(grad_h_final[0] - grad_h_final[1])/2"] = (gh[0] - gh[1]) / 2
    Q["loss - sgd[1].loss"] = Q["loss"] - Q["sgd[1].loss"]
    Q["n_params"] = mp.mpf(sum(len(v) * (len(v[0]) if isinstance(v[0], list) else 1) for v in P0.values()))
    return Q


# ---------------------------------------------------------------- the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace(",", "")


def main() -> int:
    values = quantities()
    doc_lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        problems = []
        if not (1 <= line <= len(doc_lines)) or printed not in doc_lines[line - 1]:
            problems.append(f"not on line {line}")
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        for n in names:                      # every alternative must name the same value
            if n in values and abs(values[n] - values[ref]) > mp.mpf("1e-30"):
                problems.append(f"alternative {n} differs")
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        shown = norm(shown)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            if shown != right:
                problems.append(f"correct rounding is {right}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append("exact value column disagrees")
            if right == norm(printed):
                problems.append("the planted figure is not wrong")
            note = "planted, key agrees"
        else:
            correct += 1
            if right != norm(printed):
                problems.append(f"NOT THE CORRECT ROUNDING ({right})")
            note = "correct"
        if problems:
            bad += 1
            note = "KEY DISAGREES: " + "; ".join(problems)
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
