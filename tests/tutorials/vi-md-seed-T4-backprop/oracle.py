#!/usr/bin/env python3
"""Independent oracle for vi-md-seed-T4-backprop (mpmath, 50 digits; never imports symgpt).

    python3 oracle.py     # computes every figure from SPEC.toml's weights and checks KEY.md against it

Model (the seed architecture): H0 = E[ids] + PE with PE[t,0] = sin t, PE[t,1] = cos t (d = 2,
t from 0); Q, K, V = H0·W; scores Q·Kᵀ/√2 with a causal softmax; H1 = H0 + A·V; LayerNorm
(biased variance, eps); FFN ReLU(LN1·W_1 + b_1)·W_2 + b_2; H2 = LN1 + F; LayerNorm; tied head
logits = LN2[last]·Eᵀ; loss = −ln p[target]. Gradients by a small scalar reverse-mode autodiff
written here (ReLU'(0) = 0), cross-checked against central differences; SGD θ ← θ − lr·g on
every parameter (E, W_Q, W_K, W_V, W_1, b_1, W_2, b_2), then a second forward pass.
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


# ------------------------------------------------------------------ a tiny scalar autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents          # tuple of (Var, local derivative)
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vrelu(a):
    return Var(a.v if a.v > 0 else 0, ((a, 1 if a.v > 0 else 0),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
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
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.parents:
            p.g += n.g * d


# ------------------------------------------------------------------ the model

def load_spec():
    with open(HERE / "SPEC.toml", "rb") as f:
        spec = tomllib.load(f)
    num = lambda x: mp.mpf(str(x))
    conv = lambda a: [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]
    lay = spec["layer"][0]
    P = {"E": conv(spec["weights"]["E"])}
    for k in ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"):
        P[k] = conv(lay[k])
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, vocab, ids, tgt, P, num(spec["model"]["ln_eps"]), num(spec["training"]["lr"])


def forward(P, ids, tgt, eps):
    """Every intermediate as Var (scalars) or nested lists of Var; parameters as Var leaves."""
    W = {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v]) for k, v in P.items()}
    T, d, dff, V = len(ids), 2, 4, len(P["E"])
    PE = [[mp.sin(t), mp.cos(t)] for t in range(T)]
    H0 = [[W["E"][ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mm = lambda X, M: [[vsum([X[t][i] * M[i][j] for i in range(len(M))]) for j in range(len(M[0]))] for t in range(len(X))]
    Q, K, Vv = mm(H0, W["W_Q"]), mm(H0, W["W_K"]), mm(H0, W["W_V"])
    sq = mp.sqrt(d)
    raw = [[vsum([Q[t][j] * K[s][j] for j in range(d)]) for s in range(T)] for t in range(T)]
    S = [[raw[t][s] * (1 / sq) for s in range(T)] for t in range(T)]
    ex = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
    A_den = [vsum(ex[t]) for t in range(T)]
    A = [[ex[t][s] / A_den[t] for s in range(t + 1)] for t in range(T)]
    Attn = [[vsum([A[t][s] * Vv[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]

    def ln(H):
        mu = [vsum(r) * mp.mpf(1) / d for r in H]
        var = [vsum([(x - m) * (x - m) for x in r]) * (mp.mpf(1) / d) for r, m in zip(H, mu)]
        sd = [vsqrt(v + eps) for v in var]
        return mu, var, sd, [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(H, mu, sd)]

    mu1, var1, sd1, LN1 = ln(H1)
    Z = [[vsum([LN1[t][j] * W["W_1"][j][k] for j in range(d)]) + W["b_1"][k] for k in range(dff)] for t in range(T)]
    R = [[vrelu(z) for z in r] for r in Z]
    F = [[vsum([R[t][k] * W["W_2"][k][j] for k in range(dff)]) + W["b_2"][j] for j in range(d)] for t in range(T)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, sd2, LN2 = ln(H2)
    h = LN2[-1]
    logits = [vsum([h[j] * W["E"][v][j] for j in range(d)]) for v in range(V)]
    exl = [vexp(z) for z in logits]
    sum_exp = vsum(exl)
    p = [e / sum_exp for e in exl]
    loss = -vlog(p[tgt])
    return dict(W=W, PE=PE, H0=H0, Q=Q, K=K, V=Vv, raw=raw, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1,
                var1=var1, sd1=sd1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, sd2=sd2, LN2=LN2,
                h_final=h, logits=logits, sum_exp=sum_exp, p=p, loss=loss)


def val(x):
    if isinstance(x, list):
        return [val(y) for y in x]
    return x.v if isinstance(x, Var) else mp.mpf(x)


def grad(x):
    if isinstance(x, list):
        return [grad(y) for y in x]
    return x.g


def run():
    spec, vocab, ids, tgt, P, eps, lr = load_spec()
    f = forward(P, ids, tgt, eps)
    backward(f["loss"])
    G = {k: grad(f["W"][k]) for k in P}
    # a central-difference cross-check of a few parameter gradients
    for k, idx in (("W_V", (0, 1)), ("W_2", (2, 0)), ("W_Q", (1, 0)), ("E", (tgt, 1)), ("b_1", (1,))):
        h = mp.mpf("1e-20")

        def L(delta):
            Q = {kk: [r[:] if isinstance(r, list) else r for r in vv] for kk, vv in P.items()}
            if len(idx) == 2:
                Q[k][idx[0]][idx[1]] += delta
            else:
                Q[k][idx[0]] += delta
            return forward(Q, ids, tgt, eps)["loss"].v
        num = (L(h) - L(-h)) / (2 * h)
        an = G[k][idx[0]][idx[1]] if len(idx) == 2 else G[k][idx[0]]
        assert abs(num - an) < mp.mpf("1e-30"), (k, idx, num, an)
    # one SGD step on every parameter
    P1 = {}
    for k, v in P.items():
        if isinstance(v[0], list):
            P1[k] = [[v[i][j] - lr * G[k][i][j] for j in range(len(v[0]))] for i in range(len(v))]
        else:
            P1[k] = [v[i] - lr * G[k][i] for i in range(len(v))]
    f1 = forward(P1, ids, tgt, eps)

    vals: dict[str, mp.mpf] = {}
    tok = lambda v: vocab[v]
    T = len(ids)
    for name in ("PE", "H0", "Q", "K", "V", "S", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t, r in enumerate(val(f[name])):
            for j, x in enumerate(r):
                vals[f"{name}[{t},{j}]"] = x
    for t, r in enumerate(val(f["A"])):
        for s, x in enumerate(r):
            vals[f"A[{t},{s}]"] = x
    for name in ("A_den", "mu1", "var1", "mu2", "var2"):
        for t, x in enumerate(val(f[name])):
            vals[f"{name}[{t}]"] = x
    for t, x in enumerate(val(f["raw"][T - 1])):
        vals[f"S[{T-1},{t}]*sqrt(2)"] = x
    for t, x in enumerate(val(f["sd1"])):
        vals[f"sqrt(var1[{t}] + ln_eps)"] = x
    for t, x in enumerate(val(f["sd2"])):
        vals[f"sqrt(var2[{t}] + ln_eps)"] = x
    for j, x in enumerate(val(f["h_final"])):
        vals[f"h_final[{j}]"] = x
        vals[f"grad_h_final[{j}]"] = f["h_final"][j].g
        vals[f"grad_LN2[{T-1},{j}]"] = f["h_final"][j].g
    for v in range(len(vocab)):
        vals[f"logits[{tok(v)}]"] = f["logits"][v].v
        vals[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v].v)
        vals[f"p[{tok(v)}]"] = f["p"][v].v
        vals[f"grad_logits[{tok(v)}]"] = f["logits"][v].g
        vals[f"sgd[1].p[{tok(v)}]"] = f1["p"][v].v
        vals[f"sgd[1].logits[{tok(v)}]"] = f1["logits"][v].v
    vals["sum_exp"] = f["sum_exp"].v
    vals["loss"] = f["loss"].v
    vals["sgd[1].loss"] = f1["loss"].v
    vals["sgd[1].sum_exp"] = f1["sum_exp"].v
    for name in ("H2", "F", "LN1", "H1", "Attn", "V", "Z", "R"):
        for j, x in enumerate(grad(f[name][T - 1])):
            vals[f"grad_{name}[{T-1},{j}]"] = x
    for t in range(T):
        for j in range(2):
            vals[f"grad_V[{t},{j}]"] = f["V"][t][j].g
    for t in range(T):
        vals[f"grad_mu2[{t}]"] = f["mu2"][t].g
        vals[f"grad_var2[{t}]"] = f["var2"][t].g
    for k in P:
        g = G[k]
        names = (lambda i: tok(i)) if k == "E" else str
        if isinstance(g[0], list):
            for i, r in enumerate(g):
                for j, x in enumerate(r):
                    vals[f"grad_{k}[{names(i)},{j}]"] = x
                    vals[f"{k}[{names(i)},{j}]"] = P[k][i][j]
                    vals[f"sgd[1].{k}[{names(i)},{j}]"] = P1[k][i][j]
        else:
            for i, x in enumerate(g):
                vals[f"grad_{k}[{i}]"] = x
                vals[f"{k}[{i}]"] = P[k][i]
                vals[f"sgd[1].{k}[{i}]"] = P1[k][i]
    # the post's own intermediate figures (LayerNorm's d = 2 derivative factor, the weighted sums of §9.5, …)
    eps = mp.mpf(spec_eps())
    s1, s2 = vals["sqrt(var1[3] + ln_eps)"], vals["sqrt(var2[3] + ln_eps)"]
    vals["sqrt(var2[3] + ln_eps)^3"] = s2 ** 3
    vals["ln_eps/(2*sqrt(var2[3] + ln_eps)^3)"] = eps / (2 * s2 ** 3)
    vals["sqrt(var1[3] + ln_eps)^3"] = s1 ** 3
    vals["ln_eps/(2*sqrt(var1[3] + ln_eps)^3)"] = eps / (2 * s1 ** 3)
    vals["grad_h_final[0] - grad_h_final[1]"] = vals["grad_h_final[0]"] - vals["grad_h_final[1]"]
    for i in range(2):
        vals[f"sum_s A[3,s]*H0[s,{i}]"] = mp.fsum(vals[f"A[3,{s}]"] * vals[f"H0[{s},{i}]"] for s in range(T))
    for s in range(T):
        vals[f"exp(S[3,{s}])"] = mp.exp(vals[f"S[3,{s}]"])
    vals["loss - sgd[1].loss"] = vals["loss"] - vals["sgd[1].loss"]
    return vals


def spec_eps():
    with open(HERE / "SPEC.toml", "rb") as f:
        return str(tomllib.load(f)["model"]["ln_eps"])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s


# ------------------------------------------------------------------ the key

SCI = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(?:\\cdot|\\times|·|×)\s*10\^\{?(-?\d+)\}?$")


def parse(s: str):
    """A figure as the document prints it → (kind, places, exponent, normalised text).

    Decimal comma (0,4164 or 0{,}4164), Unicode minus, a percent sign, or a mantissa × 10^n."""
    t = s.replace("{,}", ".").replace(",", ".").replace("−", "-").replace("\\%", "%").replace("$", "").strip()
    m = SCI.match(t)
    if m:
        mant = m.group(1)
        places = len(mant.split(".")[1]) if "." in mant else 0
        return "sci", places, int(m.group(2)), f"{mant}e{int(m.group(2))}"
    kind = "pct" if t.endswith("%") else "dec"
    body = t.rstrip("%")
    places = len(body.split(".")[1]) if "." in body else 0
    return kind, places, 0, body + ("%" if kind == "pct" else "")


def round_like(v, form) -> str:
    """v rounded (half away from zero) in the same form as a parsed figure, as normalised text."""
    kind, places, exp, _ = form
    if kind == "sci":
        return f"{rnd(v / mp.mpf(10) ** exp, places)}e{exp}"
    if kind == "pct":
        return rnd(v * 100, places) + "%"
    return rnd(v, places)


def main() -> int:
    vals = run()
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(f"{k:<28} {mp.nstr(v, 20)}")
        return 0
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad, planted, correct = 0, 0, 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1].replace("{,}", ","):
            problems.append(f"'{printed}' not on line {line}")
        v = vals[ref] if ref is not None else None
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
        for other in names:
            if v is not None and other != ref and other in vals and abs(vals[other] - v) > mp.mpf("1e-40"):
                problems.append(f"alternative {other} differs from {ref}")
        form = parse(printed)
        if len(cells) == 7:
            planted += 1
            kind = "planted"
            if v is not None:
                shown = parse(cells[4].strip("`"))
                if round_like(v, shown) != shown[3]:
                    problems.append(f"correct rounding column {shown[3]} != {round_like(v, shown)}")
                exact = mp.mpf(cells[3].replace("−", "-").rstrip("…"))
                vv = v * 100 if form[0] == "pct" else v
                if abs(exact - vv) > mp.mpf("1e-10") * abs(vv):
                    problems.append(f"exact value column {cells[3]} != {mp.nstr(vv, 15)}")
                if round_like(v, form) == form[3]:
                    problems.append("the planted figure is in fact the correct rounding")
        else:
            correct += 1
            kind = "correct"
            if v is not None and round_like(v, form) != form[3]:
                problems.append(f"not the correct rounding ({round_like(v, form)})")
        bad += bool(problems)
        status = "OK" if not problems else "FAIL: " + "; ".join(problems)
        shown_v = mp.nstr(v, 15) if v is not None else ""
        print(f"  {kind:<8} {printed:>26}  line {line:>3}  {str(ref):<22} {shown_v:<22} {status}")
    if planted != 8 or correct != 10:
        print(f"FAIL: the key has {planted} planted rows and {correct} correct rows (want 8 and 10)")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
