#!/usr/bin/env python3
"""Independent oracle for pt-html-nanogpt-backprop-sgd: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py

1. reads SPEC.toml (tomllib) and runs the model: one nanoGPT block (pre-LayerNorm, exact-erf GELU,
   learned positions, biases on every projection, W_O, final LayerNorm ln_f, head tied to E),
   two heads of size 2, causal softmax of q·k/sqrt(2), loss = -ln p[target] at the last position;
2. the gradient of the loss w.r.t. every node and parameter by a small reverse-mode autodiff (a tape
   over mpf written below), checked against central differences (h = 1e-15) on several parameters;
3. one SGD step theta - lr * grad on every parameter, LayerNorm gamma/beta included
   (training.learnable_ln = true), then the forward pass again;
4. every row of KEY.md: its quantity's exact value, its correct rounding (half away from zero) and
   its printed text on its line of DOC.html; planted rows must not round-match, correct rows must;
5. every decimal figure in the <body> of DOC.html must be the correct rounding of some computed value
   (or 100 x one, for percentages) unless it is one of the key's planted figures.
Exit status 1 on any disagreement.
"""
from __future__ import annotations

import html
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ----------------------------------------------------------------------------- tape autodiff

class N:
    """A scalar node: value, and (parent, local derivative) pairs."""
    __slots__ = ("v", "ps", "g", "k")
    counter = 0

    def __init__(self, v, ps=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.ps = ps
        self.g = mp.mpf(0)
        N.counter += 1
        self.k = N.counter          # creation order = a topological order

    def __add__(self, o):
        if not isinstance(o, N):
            return N(self.v + o, ((self, 1),))
        return N(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        if not isinstance(o, N):
            return N(self.v - o, ((self, 1),))
        return N(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return N(o - self.v, ((self, -1),))

    def __neg__(self):
        return N(-self.v, ((self, -1),))

    def __mul__(self, o):
        if not isinstance(o, N):
            return N(self.v * o, ((self, o),))
        return N(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        if not isinstance(o, N):
            return N(self.v / o, ((self, 1 / mp.mpf(o)),))
        return N(self.v / o.v, ((self, 1 / o.v), (o, -self.v / (o.v * o.v))))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def nexp(x):
    e = mp.exp(x.v)
    return N(e, ((x, e),))


def nlog(x):
    return N(mp.log(x.v), ((x, 1 / x.v),))


def nsqrt(x):
    s = mp.sqrt(x.v)
    return N(s, ((x, 1 / (2 * s)),))


def ngelu(x):
    """nn.GELU(): x * Phi(x) with the exact erf."""
    Phi = (1 + mp.erf(x.v / mp.sqrt(2))) / 2
    dens = mp.exp(-x.v * x.v / 2) / mp.sqrt(2 * mp.pi)
    return N(x.v * Phi, ((x, Phi + x.v * dens),))


def backprop(out):
    nodes, stack, seen = [], [out], {id(out)}
    while stack:
        n = stack.pop()
        nodes.append(n)
        for p, _ in n.ps:
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    nodes.sort(key=lambda n: -n.k)          # children before parents
    out.g = mp.mpf(1)
    for n in nodes:
        for p, loc in n.ps:
            p.g += n.g * loc


# ----------------------------------------------------------------------------- the model

def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m = spec["model"]
    vocab = m["vocab"]

    def conv(a):
        return [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))

    w = {k: conv(v) for k, v in spec["weights"].items()}
    w.update({k: conv(v) for k, v in spec["layer"][0].items()})
    d = m["d"]
    for g, b in (("gamma1", "beta1"), ("gamma2", "beta2"), ("gamma_f", "beta_f")):
        w.setdefault(g, [mp.mpf(1)] * d)
        w.setdefault(b, [mp.mpf(0)] * d)
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, vocab, w, ids, tgt


def wrap(w):
    return {k: ([[N(x) for x in r] for r in a] if isinstance(a[0], list) else [N(x) for x in a]) for k, a in w.items()}


def lnorm(h, g, b, eps):
    d = len(h)
    mu = nsum(h) / d
    c = [x - mu for x in h]
    var = nsum(x * x for x in c) / d
    sd = nsqrt(var + eps)
    xh = [x / sd for x in c]
    return mu, var, sd, [xh[j] * g[j] + b[j] for j in range(d)]


def lin(x, W, b):
    return [nsum(x[i] * W[i][j] for i in range(len(x))) + b[j] for j in range(len(W[0]))]


def forward(P, ids, tgt, eps, heads):
    T, d = len(ids), len(P["E"][0])
    dk = d // heads
    o = {}
    x = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    l1 = [lnorm(x[t], P["gamma1"], P["beta1"], eps) for t in range(T)]
    n1 = [l[3] for l in l1]
    Q = [lin(n1[t], P["W_Q"], P["b_Q"]) for t in range(T)]
    K = [lin(n1[t], P["W_K"], P["b_K"]) for t in range(T)]
    V = [lin(n1[t], P["W_V"], P["b_V"]) for t in range(T)]
    sc = 1 / mp.sqrt(dk)
    S, A, den, c = {}, {}, {}, [[None] * d for _ in range(T)]
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            for s in range(T):
                S[h, t, s] = nsum(Q[t][j] * K[s][j] for j in cols) * sc
            ex = [nexp(S[h, t, s]) for s in range(t + 1)]
            den[h, t] = nsum(ex)
            for s in range(t + 1):
                A[h, t, s] = ex[s] / den[h, t]
            for j in cols:
                c[t][j] = nsum(A[h, t, s] * V[s][j] for s in range(t + 1))
    att = [lin(c[t], P["W_O"], P["b_O"]) for t in range(T)]
    r = [[x[t][j] + att[t][j] for j in range(d)] for t in range(T)]
    l2 = [lnorm(r[t], P["gamma2"], P["beta2"], eps) for t in range(T)]
    m = [l[3] for l in l2]
    z = [lin(m[t], P["W_1"], P["b_1"]) for t in range(T)]
    g = [[ngelu(v) for v in z[t]] for t in range(T)]
    f = [lin(g[t], P["W_2"], P["b_2"]) for t in range(T)]
    y = [[r[t][j] + f[t][j] for j in range(d)] for t in range(T)]
    lf = [lnorm(y[t], P["gamma_f"], P["beta_f"], eps) for t in range(T)]
    hf = lf[T - 1][3]
    logits = [nsum(hf[j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    ex = [nexp(v) for v in logits]
    Z = nsum(ex)
    p = [e / Z for e in ex]
    L = -nlog(p[tgt])
    o.update(H0=x, l1=l1, LN1=n1, Q=Q, K=K, V=V, S=S, A=A, A_den=den, Attn_heads=c, Attn=att, H1=r, l2=l2,
             LN2=m, Z=z, R=g, F=f, H2=y, lf=lf, h_final=hf, logits=logits, exp=ex, sum_exp=Z, p=p, loss=L)
    return o


def vals(a):
    return a.v if isinstance(a, N) else [vals(x) for x in a]


def grads(a):
    return a.g if isinstance(a, N) else [grads(x) for x in a]


def put(V, name, a):
    def rec(idx, x):
        if isinstance(x, list):
            for i, e in enumerate(x):
                rec(idx + [i], e)
        else:
            V[name + (f"[{','.join(map(str, idx))}]" if idx else "")] = x
    rec([], a)


def compute():
    spec, vocab, w, ids, tgt = load()
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    lr = mp.mpf(str(spec["training"]["lr"]))
    heads = spec["model"]["heads"]
    T, d = len(ids), spec["model"]["d"]
    P = wrap(w)
    o = forward(P, ids, tgt, eps, heads)
    backprop(o["loss"])
    V = {}
    for k in w:
        put(V, k, w[k])
        put(V, "grad_" + k, grads(P[k]))
    for k in ("H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2",
              "h_final", "logits", "p"):
        put(V, k, vals(o[k]))
        put(V, "grad_" + k, grads(o[k]))
    for (h, t, s), n in o["S"].items():
        V[f"S[{h},{t},{s}]"] = n.v
    for h in range(heads):
        for t in range(T):
            V[f"A_den[{h},{t}]"] = o["A_den"][h, t].v
            for s in range(T):
                V[f"A[{h},{t},{s}]"] = o["A"][h, t, s].v if s <= t else mp.mpf(0)
    for name, key in (("mu1", "l1"), ("mu2", "l2"), ("mu_f", "lf")):
        put(V, name, [l[0].v for l in o[key]])
    for name, key in (("var1", "l1"), ("var2", "l2"), ("var_f", "lf")):
        put(V, name, [l[1].v for l in o[key]])
    put(V, "LN_f", [[x.v for x in l[3]] for l in o["lf"]])
    V["sum_exp"] = o["sum_exp"].v
    V["loss"] = o["loss"].v
    for v in range(len(vocab)):
        V[f"exp(logits[{v}])"] = o["exp"][v].v
    # SGD on every parameter (LayerNorm gamma/beta included), then forward again
    w1 = {}
    for k in w:
        gk = grads(P[k])
        if isinstance(w[k][0], list):
            w1[k] = [[w[k][i][j] - lr * gk[i][j] for j in range(len(w[k][0]))] for i in range(len(w[k]))]
        else:
            w1[k] = [w[k][i] - lr * gk[i] for i in range(len(w[k]))]
        put(V, "sgd[1]." + k, w1[k])
    o1 = forward(wrap(w1), ids, tgt, eps, heads)
    V["sgd[1].loss"] = o1["loss"].v
    put(V, "sgd[1].p", vals(o1["p"]))
    put(V, "sgd[1].logits", vals(o1["logits"]))
    # helpers the page prints that are no graph node
    V["lr"] = lr
    V["ln_eps"] = eps
    for t in range(T):
        V[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(V[f"var1[{t}]"] + eps)
    V["sqrt(var2[2] + ln_eps)"] = mp.sqrt(V["var2[2]"] + eps)
    V["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(V["var_f[2]"] + eps)
    V["loss - sgd[1].loss"] = V["loss"] - V["sgd[1].loss"]
    V["log(6)"] = mp.log(6)
    V["sqrt(2)"] = mp.sqrt(2)
    for j in range(d):                      # the deviations x - mu printed in the variance of position 3
        V[f"H0[2,{j}] - mu1[2]"] = V[f"H0[2,{j}]"] - V["mu1[2]"]
    for h in range(heads):
        for s in range(T):
            V[f"exp(S[{h},2,{s}])"] = mp.exp(V[f"S[{h},2,{s}]"])
    for t in range(T):
        for s in range(t + 1):
            V[f"S[0,{t},{s}]*sqrt(2)"] = V[f"S[0,{t},{s}]"] * mp.sqrt(2)
    # token names for vocabulary indices
    for key in list(V):
        m_ = re.fullmatch(r"((?:sgd\[1\]\.)?(?:grad_)?(?:p|logits|E))\[(\d+)(,\d+)?\]", key)
        if m_:
            V[f"{m_.group(1)}[{vocab[int(m_.group(2))]}{m_.group(3) or ''}]"] = V[key]
        m_ = re.fullmatch(r"exp\(logits\[(\d+)\]\)", key)
        if m_:
            V[f"exp(logits[{vocab[int(m_.group(1))]}])"] = V[key]
    return spec, vocab, w, ids, tgt, eps, heads, V


def central_differences(w, ids, tgt, eps, heads, V):
    h = mp.mpf("1e-15")
    worst = mp.mpf(0)
    probes = (("W_Q", 0, 1), ("W_Q", 3, 2), ("E", 3, 0), ("E", 1, 2), ("gamma_f", 1, None), ("W_K", 2, 3),
              ("W_1", 1, 10), ("b_O", 2, None), ("W_pe", 2, 1), ("gamma1", 0, None), ("W_V", 0, 3))
    for k, i, j in probes:
        def L(delta):
            w2 = {kk: ([r[:] for r in a] if isinstance(a[0], list) else a[:]) for kk, a in w.items()}
            if j is None:
                w2[k][i] += delta
            else:
                w2[k][i][j] += delta
            return forward(wrap(w2), ids, tgt, eps, heads)["loss"].v
        fd = (L(h) - L(-h)) / (2 * h)
        name = f"grad_{k}[{i}]" if j is None else f"grad_{k}[{i},{j}]"
        dev = abs(fd - V[name])
        print(f"  {name:<18} reverse {mp.nstr(V[name], 20):<26} central diff {mp.nstr(fd, 20):<26} |diff| {mp.nstr(dev, 3)}")
        worst = max(worst, dev)
    return worst


# ----------------------------------------------------------------------------- the document and key

def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse(printed: str):
    """'−0,1234' / '14,41 %' / '-0.1234' -> (canonical '-0.1234', places, is_percent)."""
    t = printed.replace("−", "-").replace("\u2009", " ").replace("\u00a0", " ").strip()
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return t, places, pct


def doc_lines():
    return (HERE / "DOC.html").read_text(encoding="utf-8").split("\n")


def visible(line: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", line))


def figures_text(line: str) -> str:
    """The visible text without index subscripts (n<sub>3,1</sub>) and bracketed indices (W[2,3])."""
    line = re.sub(r"<sub>[\d,]+</sub>", " ", line)
    line = re.sub(r"\[(?:[^\]\s]*,)?\d+\]", " ", line)
    return visible(line)


def check_key(V, lines):
    bad = planted = correct = 0
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted_at = set()
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in V), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        text, places, pct = parse(printed)
        v = V[ref] * (100 if pct else 1)
        on_line = 0 < line <= len(lines) and printed in visible(lines[line - 1])
        if len(cells) == 7:
            planted += 1
            planted_at.add((line, printed))
            shown, sp, _ = parse(cells[4].strip("`"))
            right = rnd(v, sp)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * max(abs(v), 1) and rnd(v, places) != text and on_line
            note = "planted; key agrees" if ok else "KEY DISAGREES"
        else:
            correct += 1
            right = rnd(v, places)
            ok = right == text and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note += f" / NOT ON LINE {line}"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 18):<24} rounds to {right:<9} {note}")
    if planted != 8 or correct != 10:
        print(f"  expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    return bad, planted_at


FIG = re.compile(r"(?<![\w.,])[−-]?\d+[.,]\d+(?:\s?%)?")


def check_doc(V, lines, planted_at):
    """Every decimal figure of the page's body: some computed value's correct rounding, or planted."""
    values = list(V.values())
    cache, stray, n = {}, 0, 0
    in_body = False
    for i, raw in enumerate(lines, 1):
        if "<body" in raw:
            in_body = True
        if not in_body:
            continue
        line = figures_text(raw)
        for m_ in FIG.finditer(line):
            fig = m_.group().strip()
            n += 1
            if (i, fig) in planted_at:
                continue
            text, places, pct = parse(fig)
            key = (text, places, pct)
            if key not in cache:
                cache[key] = any(rnd(v * (100 if pct else 1), places) == text for v in values)
            if not cache[key]:
                stray += 1
                print(f"  line {i}: {fig} is no computed value: {line.strip()[:90]!r}")
    print(f"  {n} decimal figures in DOC.html, {len(planted_at)} planted, {stray} unexplained")
    return stray


def main() -> int:
    spec, vocab, w, ids, tgt, eps, heads, V = compute()
    print("reverse pass vs central differences:")
    worst = central_differences(w, ids, tgt, eps, heads, V)
    bad = int(worst > mp.mpf("1e-25"))
    lines = doc_lines()
    print("KEY.md rows:")
    b, planted_at = check_key(V, lines)
    bad += b
    print("DOC.html figures:")
    bad += check_doc(V, lines, planted_at)
    print("all checks pass" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
