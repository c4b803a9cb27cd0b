#!/usr/bin/env python3
"""Independent check of DOC.pdf (de-pdf-nanogpt-backprop-sgd): plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # every KEY.md row: value, correct rounding, and the printed text on its PDF line;
                          # then every decimal figure of DOC.pdf (pdftotext -layout) must be the correct
                          # rounding of some computed value unless it is a planted one

The model is nanoGPT's block (GPT-2 wiring, exact-erf GELU) with one layer and one head:
x_t = E[w_t] + W_pe[t]; n = LN(x); Q, K, V = n W + b; S = Q K^T / sqrt(d), causal softmax P;
a = P V; u = a W_O + b_O; r = x + u; m = LN(r); z = m W_1 + b_1; g = GELU(z); f = g W_2 + b_2;
y = r + f; nf = LN_f(y); o = nf[T-1] E^T; p = softmax(o); L = -ln p[target].
LayerNorm: biased variance, eps = 1e-5, gamma = 1, beta = 0 (the spec gives none).
Gradients by a small reverse-mode automatic differentiation over mpf written below;
SGD: theta - lr * grad on every parameter (E, W_pe, W_Q, b_Q, ..., b_2), then the forward pass again.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "grad")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents          # tuple of (Var, local derivative)
        self.grad = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vgelu(x):                                   # x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2
    Phi = (1 + mp.erf(x.v / mp.sqrt(2))) / 2
    phi = mp.exp(-x.v ** 2 / 2) / mp.sqrt(2 * mp.pi)
    return Var(x.v * Phi, ((x, Phi + x.v * phi),))


def backward(out):
    order, seen = [], set()

    def visit(n):                               # iterative DFS (the graph is a few thousand nodes deep at most)
        stack = [(n, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for p, _ in node.parents:
                if id(p) not in seen:
                    stack.append((p, False))
    visit(out)
    out.grad = mp.mpf(1)
    for node in reversed(order):
        for p, local in node.parents:
            p.grad += node.grad * local


# ---------------------------------------------------------------- the model

PARAMS = ["E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"]


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    conv = lambda a: [conv(r) for r in a] if isinstance(a, list) else mp.mpf(str(a))
    w = {k: conv(v) for k, v in spec["weights"].items()}
    w.update({k: conv(v) for k, v in spec["layer"][0].items()})
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, vocab, w, ids, tgt


def as_vars(w):
    return {k: [[Var(x) for x in r] for r in w[k]] if isinstance(w[k][0], list) else [Var(x) for x in w[k]]
            for k in PARAMS}


def layernorm(h, eps):
    d = len(h)
    mu = vsum(h) / d
    c = [x - mu for x in h]
    var = vsum(x * x for x in c) / d
    s = vsqrt(var + eps)
    return mu, var, s, [x / s for x in c]


def vecmat(x, W, b=None):
    out = [vsum(x[i] * W[i][j] for i in range(len(x))) for j in range(len(W[0]))]
    return [o + bb for o, bb in zip(out, b)] if b is not None else out


def forward(P, ids, tgt, eps):
    """P: parameters as Var. Returns a dict of every node (Var or lists of Var)."""
    T, d = len(ids), len(P["E"][0])
    x = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln1 = [layernorm(x[t], eps) for t in range(T)]
    n = [l[3] for l in ln1]
    Q = [vecmat(n[t], P["W_Q"], P["b_Q"]) for t in range(T)]
    K = [vecmat(n[t], P["W_K"], P["b_K"]) for t in range(T)]
    V = [vecmat(n[t], P["W_V"], P["b_V"]) for t in range(T)]
    sq = mp.sqrt(d)
    S = [[vsum(Q[t][j] * K[s][j] for j in range(d)) / sq for s in range(T)] for t in range(T)]
    ex = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
    den = [vsum(ex[t]) for t in range(T)]
    A = [[ex[t][s] / den[t] for s in range(t + 1)] for t in range(T)]
    a = [[vsum(A[t][s] * V[s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
    u = [vecmat(a[t], P["W_O"], P["b_O"]) for t in range(T)]
    r = [[x[t][j] + u[t][j] for j in range(d)] for t in range(T)]
    ln2 = [layernorm(r[t], eps) for t in range(T)]
    m = [l[3] for l in ln2]
    z = [vecmat(m[t], P["W_1"], P["b_1"]) for t in range(T)]
    g = [[vgelu(v) for v in z[t]] for t in range(T)]
    f = [vecmat(g[t], P["W_2"], P["b_2"]) for t in range(T)]
    y = [[r[t][j] + f[t][j] for j in range(d)] for t in range(T)]
    lnf = [layernorm(y[t], eps) for t in range(T)]
    nf = [l[3] for l in lnf]
    h = nf[T - 1]
    o = [vsum(h[j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    eo = [vexp(v) for v in o]
    Z = vsum(eo)
    p = [e / Z for e in eo]
    L = -vlog(p[tgt])
    return dict(x=x, ln1=ln1, n=n, Q=Q, K=K, V=V, S=S, ex=ex, den=den, A=A, a=a, u=u, r=r, ln2=ln2, m=m,
                z=z, g=g, f=f, y=y, lnf=lnf, nf=nf, h=h, o=o, eo=eo, Z=Z, p=p, L=L)


def run(w, ids, tgt, eps):
    P = as_vars(w)
    F = forward(P, ids, tgt, eps)
    backward(F["L"])
    return P, F


def val(x):
    if isinstance(x, Var):
        return x.v
    return [val(e) for e in x]


def grad(x):
    if isinstance(x, Var):
        return x.grad
    return [grad(e) for e in x]


# ---------------------------------------------------------------- every figure

def compute():
    spec, vocab, w, ids, tgt = load_spec()
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    lr = mp.mpf(str(spec["training"]["lr"]))
    P, F = run(w, ids, tgt, eps)
    T = len(ids)
    V = {}                                          # symgpt reference name -> exact value

    def put(name, arr, idx_names=None):
        def rec(prefix, a):
            if isinstance(a, list):
                for i, e in enumerate(a):
                    rec(prefix + [i], e)
            else:
                V[name + ("[" + ",".join(map(str, prefix)) + "]" if prefix else "")] = a
        rec([], arr)

    for k in PARAMS:
        put(k, w[k])
        put("grad_" + k, grad(P[k]))
    put("H0", val(F["x"]))
    put("mu1", [val(l[0]) for l in F["ln1"]]); put("var1", [val(l[1]) for l in F["ln1"]])
    put("LN1", val(F["n"])); put("Q", val(F["Q"])); put("K", val(F["K"])); put("V", val(F["V"]))
    put("S", val(F["S"])); put("A_den", val(F["den"]))
    put("A", [[val(F["A"][t][s]) if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)])
    put("Attn_heads", val(F["a"])); put("Attn", val(F["u"])); put("H1", val(F["r"]))
    put("mu2", [val(l[0]) for l in F["ln2"]]); put("var2", [val(l[1]) for l in F["ln2"]])
    put("LN2", val(F["m"])); put("Z", val(F["z"])); put("R", val(F["g"])); put("F", val(F["f"]))
    put("H2", val(F["y"]))
    put("mu_f", [val(l[0]) for l in F["lnf"]]); put("var_f", [val(l[1]) for l in F["lnf"]])
    put("LN_f", val(F["nf"])); put("h_final", val(F["h"])); put("logits", val(F["o"]))
    put("sum_exp", val(F["Z"])); put("p", val(F["p"])); V["loss"] = F["L"].v
    put("exp(logits)", val(F["eo"]))
    put("grad_logits", grad(F["o"])); put("grad_h_final", grad(F["h"]))
    put("grad_H2", grad(F["y"])); put("grad_F", grad(F["f"])); put("grad_R", grad(F["g"]))
    put("grad_Z", grad(F["z"])); put("grad_LN2", grad(F["m"])); put("grad_H1", grad(F["r"]))
    put("grad_Attn", grad(F["u"])); put("grad_Attn_heads", grad(F["a"]))
    # token names for the vocabulary index
    for key in list(V):
        for pre in ("p[", "logits[", "grad_logits[", "exp(logits)["):
            if key.startswith(pre):
                i = int(key[len(pre):].rstrip("]").split(",")[0])
                V[pre + vocab[i] + "]"] = V[key]
        for pre in ("E[", "grad_E["):
            if key.startswith(pre):
                i, j = key[len(pre):].rstrip("]").split(",")
                V[f"{pre}{vocab[int(i)]},{j}]"] = V[key]
    # one SGD step on every parameter, then the forward pass again
    w1 = {}
    for k in PARAMS:
        gk = grad(P[k])
        w1[k] = [[w[k][i][j] - lr * gk[i][j] for j in range(len(w[k][0]))] for i in range(len(w[k]))] \
            if isinstance(w[k][0], list) else [w[k][i] - lr * gk[i] for i in range(len(w[k]))]
        put("sgd[1]." + k, w1[k])
    for key in list(V):
        if key.startswith("sgd[1].E["):
            i, j = key[len("sgd[1].E["):].rstrip("]").split(",")
            V[f"sgd[1].E[{vocab[int(i)]},{j}]"] = V[key]
    P1, F1 = run(w1, ids, tgt, eps)
    V["sgd[1].loss"] = F1["L"].v
    put("sgd[1].p", val(F1["p"]))
    V["sgd[1].p[" + vocab[tgt] + "]"] = F1["p"][tgt].v
    # helpers the text prints that are no graph node
    Tl = T - 1
    for s_ in range(T):
        V[f"exp(S[{Tl},{s_}])"] = mp.exp(V[f"S[{Tl},{s_}]"])
    for k in range(len(w["b_1"])):
        zk = V[f"Z[{Tl},{k}]"]
        V[f"Phi(Z[{Tl},{k}])"] = (1 + mp.erf(zk / mp.sqrt(2))) / 2
        V[f"gelu'(Z[{Tl},{k}])"] = V[f"Phi(Z[{Tl},{k}])"] + zk * mp.exp(-zk ** 2 / 2) / mp.sqrt(2 * mp.pi)
    d = len(w["E"][0])
    gh = [V[f"grad_h_final[{j}]"] for j in range(d)]
    hf = [V[f"h_final[{j}]"] for j in range(d)]
    V["mean(grad_h_final)"] = mp.fsum(gh) / d
    V["mean(grad_h_final*h_final)"] = mp.fsum(a * b for a, b in zip(gh, hf)) / d
    gm = [V[f"grad_LN2[{Tl},{j}]"] for j in range(d)]
    mm = [V[f"LN2[{Tl},{j}]"] for j in range(d)]
    V["mean(grad_LN2[2])"] = mp.fsum(gm) / d
    V["mean(grad_LN2[2]*LN2[2])"] = mp.fsum(a * b for a, b in zip(gm, mm)) / d
    for j in range(d):
        V[f"grad_H1[{Tl},{j}] - grad_H2[{Tl},{j}]"] = V[f"grad_H1[{Tl},{j}]"] - V[f"grad_H2[{Tl},{j}]"]
    V["100*p[Mäuse]"] = 100 * V["p[Mäuse]"]
    for j in range(d):                              # the deviations x - mu in the printed sigma^2 chain
        V[f"H0[{Tl},{j}] - mu1[{Tl}]"] = V[f"H0[{Tl},{j}]"] - V[f"mu1[{Tl}]"]
    V["ln_eps"] = eps
    V["ln(5)"] = mp.log(5)
    V["loss - sgd[1].loss"] = V["loss"] - V["sgd[1].loss"]
    V["sqrt(var1[2] + ln_eps)"] = mp.sqrt(V["var1[2]"] + eps)
    V["sqrt(var2[2] + ln_eps)"] = mp.sqrt(V["var2[2]"] + eps)
    V["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(V["var_f[2]"] + eps)
    return spec, vocab, w, V, F, P, eps, lr


def finite_difference_check(w, ids, tgt, eps, V):
    """Central differences at h = 1e-20 for a few parameters: agreement to ~1e-30."""
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for k, i, j in (("W_O", 0, 1), ("b_O", 2, None), ("E", 3, 0), ("W_1", 2, 5), ("W_Q", 1, 3), ("W_pe", 2, 1)):
        def loss_at(delta):
            w2 = {kk: ([r[:] for r in vv] if isinstance(vv[0], list) else vv[:]) for kk, vv in w.items()}
            if j is None:
                w2[k][i] += delta
            else:
                w2[k][i][j] += delta
            return forward(as_vars(w2), ids, tgt, eps)["L"].v
        fd = (loss_at(h) - loss_at(-h)) / (2 * h)
        name = f"grad_{k}[{i}]" if j is None else f"grad_{k}[{i},{j}]"
        worst = max(worst, abs(fd - V[name]))
    return worst


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse_printed(s: str):
    """'0,4164' / '−0,4164' / '21,4 %' / '-0{,}4164' -> (Decimal text with '.', places, is_percent)."""
    t = s.replace("{,}", ",").replace("−", "-").replace("\u2009", " ").strip()
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return t, places, pct


def pdf_lines():
    pdf = HERE / "DOC.pdf"
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\n")


def main() -> int:
    spec, vocab, w, V, F, P, eps, lr = compute()
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    fd = finite_difference_check(w, ids, tgt, eps, V)
    print(f"autodiff vs central differences (h = 1e-20): max deviation {mp.nstr(fd, 3)}")
    bad = int(fd > mp.mpf("1e-25"))
    lines = pdf_lines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in V), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        text, places, pct = parse_printed(printed)
        v = V[ref] * (100 if pct else 1)
        on_line = 0 < line <= len(lines) and printed.replace("{,}", ",") in lines[line - 1].replace("{,}", ",")
        if len(cells) == 7:                                         # planted
            shown, sp, spct = parse_printed(cells[4].strip("`"))
            right = rnd(v, sp)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * max(abs(v), 1)
                  and rnd(v, places) != text and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            right = rnd(v, places)
            ok = right == text and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
            correct += 1
        if not on_line:
            note += f" (line {line} reads: {lines[line - 1] if 0 < line <= len(lines) else '-'!r})"
        bad += not ok
        print(f"  {printed:>12}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<22} rounds to {right:<9} {note}")
    print(f"{planted} planted, {correct} correct rows")
    # every decimal figure of the PDF: the correct rounding of some computed value, or a planted figure
    planted_at = {(int(c[1]), c[0].strip("`")) for c in
                  ([x.strip() for x in r.strip().strip("|").split("|")] for r in rows) if len(c) == 7}
    values = list(V.values()) + [100 * v for v in V.values()]
    seen, stray, nfig = {}, 0, 0
    for i, line in enumerate(lines, 1):
        for m_ in re.finditer(r"(?<![A-Za-z\d,])[−-]?\d+,\d+", line):
            nfig += 1
            text, places, _ = parse_printed(m_.group())
            if (i, m_.group()) in planted_at or (i, m_.group() + " %") in planted_at:
                continue
            if (text, places) not in seen:
                seen[(text, places)] = any(rnd(v, places) == text for v in values)
            if not seen[(text, places)]:
                stray += 1
                print(f"  line {i}: {m_.group()} is no computed value: {line.strip()[:80]!r}")
    print(f"{nfig} decimal figures in DOC.pdf, {stray} unexplained")
    bad += stray
    if planted != 8 or correct != 10:
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
