#!/usr/bin/env python3
"""Independent oracle for en-html-nanogpt-2head: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # computes every figure of DOC.html from SPEC.toml's weights and checks KEY.md

Model (nanoGPT's Block, one layer, bias=True, nn.GELU() with the exact erf, tied head):
  x = wte[idx] + wpe[pos]
  a = ln_1(x);  q, k, v = split(a @ W_Q + b_Q, a @ W_K + b_K, a @ W_V + b_V), 2 heads of size 2
  att[h] = causal softmax(q_h k_hᵀ / √2);  y = att @ v, heads concatenated;  x = x + (y @ W_O + b_O)
  x = x + (gelu(ln_2(x) @ W_1 + b_1) @ W_2 + b_2);  h = ln_f(x)[T-1];  logits = h @ wteᵀ
  loss = -ln softmax(logits)[target].  LayerNorm: biased variance, eps = 1e-5, γ = 1, β = 0.
Gradients by a small reverse-mode autodiff on mpf scalars (written here, checked against central
differences at h = 1e-20). AdamW is torch.optim.AdamW's first step: θ ← θ(1 − lr·λ) − lr·m̂/(√v̂ + ε),
weight decay on every trained parameter (the LayerNorm gains and shifts are not trained).
Rounding is half away from zero, on the 45-digit decimal of the value.
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
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s


# ------------------------------------------------------------------ a tiny reverse-mode autodiff

class N:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents  # tuples (node, local derivative)
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return N(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return N(-self.v, ((self, -1),))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def nexp(x):
    e = mp.exp(x.v)
    return N(e, ((x, e),))


def nlog(x):
    return N(mp.log(x.v), ((x, 1 / x.v),))


def nsqrt(x):
    r = mp.sqrt(x.v)
    return N(r, ((x, 1 / (2 * r)),))


def ngelu(x):
    z = x.v
    Phi = (1 + mp.erf(z / mp.sqrt(2))) / 2
    phi = mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
    return N(z * Phi, ((x, Phi + z * phi),))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
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
    for n in order:
        n.g = mp.mpf(0)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, dl in n.parents:
            p.g += n.g * dl


# ------------------------------------------------------------------ the model

PARAMS = ["E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"]


def load_spec(path=HERE / "SPEC.toml"):
    spec = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    mpf = lambda x: mp.mpf(str(x))
    P = {}
    w = dict(spec["weights"])
    w.update(spec["layer"][0])
    for k in PARAMS:
        a = w[k]
        P[k] = [[mpf(x) for x in r] for r in a] if isinstance(a[0], list) else [mpf(x) for x in a]
    return spec, P


def layernorm(rows, eps):
    d = len(rows[0])
    mu = [nsum(r) / d for r in rows]
    var = [nsum([(x - m) * (x - m) for x in r]) / d for r, m in zip(rows, mu)]
    out = [[(x - m) / nsqrt(s + eps) for x in r] for r, m, s in zip(rows, mu, var)]
    return mu, var, out


def lin(rows, W, b):
    return [[nsum([r[i] * W[i][j] for i in range(len(W))]) + b[j] for j in range(len(W[0]))] for r in rows]


def forward(spec, Pv):
    """Pv: parameter values (mpf); returns (dict of N nodes, dict of parameter N nodes)."""
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(c) for c in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    H = spec["model"]["heads"]
    d = spec["model"]["d"]
    dk = d // H
    T = len(ids)
    P = {k: ([[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v]) for k, v in Pv.items()}
    X = [[P["E"][i][j] for j in range(d)] for i in ids]
    PE = [[P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, eps)
    Q, K, V = lin(LN1, P["W_Q"], P["b_Q"]), lin(LN1, P["W_K"], P["b_K"]), lin(LN1, P["W_V"], P["b_V"])
    sq = mp.sqrt(dk)
    S = [[[nsum([Q[t][h * dk + j] * K[s][h * dk + j] for j in range(dk)]) / sq for s in range(T)]
          for t in range(T)] for h in range(H)]
    Aden = [[nsum([nexp(S[h][t][s]) for s in range(t + 1)]) for t in range(T)] for h in range(H)]
    A = [[[nexp(S[h][t][s]) / Aden[h][t] if s <= t else N(0) for s in range(T)] for t in range(T)] for h in range(H)]
    Yh = [[nsum([A[j // dk][t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    Attn = lin(Yh, P["W_O"], P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, eps)
    Z = lin(LN2, P["W_1"], P["b_1"])
    R = [[ngelu(z) for z in r] for r in Z]
    F = lin(R, P["W_2"], P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    muf, varf, LNf = layernorm(H2, eps)
    hf = LNf[T - 1]
    logits = [nsum([hf[j] * P["E"][v][j] for j in range(d)]) for v in range(len(vocab))]
    sexp = nsum([nexp(z) for z in logits])
    p = [nexp(z) / sexp for z in logits]
    loss = -nlog(p[tgt])
    nodes = dict(X=X, PE=PE, H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=Aden, A=A,
                 Attn_heads=Yh, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2,
                 mu_f=muf, var_f=varf, LN_f=LNf, h_final=hf, logits=logits, sum_exp=sexp, p=p, loss=loss)
    return nodes, P


def flatten(name, x, idx=()):
    if isinstance(x, N):
        yield name + ("[" + ",".join(str(i) for i in idx) + "]" if idx else ""), x
    else:
        for i, y in enumerate(x):
            yield from flatten(name, y, idx + (i,))


def values(spec, Pv, with_grads=True):
    nodes, P = forward(spec, Pv)
    if with_grads:
        backward(nodes["loss"])
    out = {}
    for k, v in list(nodes.items()) + list(P.items()):
        for nm, n in flatten(k, v):
            out[nm] = n.v
            if with_grads:
                out["grad_" + nm] = n.g
    return out


def adamw_step(spec, Pv, vals):
    cfg = spec["training"]["adamw"]
    lr, b1, b2 = (mp.mpf(str(cfg[k])) for k in ("lr", "beta1", "beta2"))
    eps, wd = mp.mpf(str(cfg["eps"])), mp.mpf(str(cfg["weight_decay"]))
    st, newP = {}, {}
    for k, a in Pv.items():
        def one(th, idx):
            g = vals["grad_" + k + "[" + ",".join(map(str, idx)) + "]"]
            m, v = (1 - b1) * g, (1 - b2) * g * g
            mh, vh = m / (1 - b1), v / (1 - b2)
            upd = lr * mh / (mp.sqrt(vh) + eps)
            dec = lr * wd * th
            new = th * (1 - lr * wd) - upd
            key = ",".join([k] + [str(i) for i in idx])
            st[f"adamw[1].m[{key}]"], st[f"adamw[1].v[{key}]"] = m, v
            st[f"adamw[1].mhat[{key}]"], st[f"adamw[1].vhat[{key}]"] = mh, vh
            st[f"adamw[1].update[{key}]"], st[f"adamw[1].decay[{key}]"] = upd, dec
            st[f"adamw[1].{k}[" + ",".join(map(str, idx)) + "]"] = new
            return new
        if isinstance(a[0], list):
            newP[k] = [[one(a[i][j], (i, j)) for j in range(len(a[0]))] for i in range(len(a))]
        else:
            newP[k] = [one(a[i], (i,)) for i in range(len(a))]
    after = values(spec, newP, with_grads=False)
    for nm, v in after.items():
        st["adamw[1]." + nm] = v
    return st


def compute():
    spec, Pv = load_spec()
    vals = values(spec, Pv)
    vals.update(adamw_step(spec, Pv, vals))
    vocab = spec["model"]["vocab"]
    # names with a token written as a letter (ids stay valid too): p[a], logits[b], E[a,1] ...
    extra = {}
    for nm, v in vals.items():
        m = re.fullmatch(r"(.*?)(p|logits|grad_logits|E|grad_E|m\[E,|v\[E,|mhat\[E,|vhat\[E,|update\[E,|decay\[E,)"
                         r"\[?(\d+)(.*)", nm)
        if m and m.group(2) in ("p", "logits", "grad_logits") and vocab[int(m.group(3))] != " ":
            extra[f"{m.group(1)}{m.group(2)}[{vocab[int(m.group(3))]}{m.group(4)}"] = v
    vals.update(extra)
    return spec, Pv, vals


def gradcheck(spec, Pv, vals, entries, h=mp.mpf("1e-20")):
    worst = mp.mpf(0)
    for k, idx in entries:
        def at(delta):
            P2 = {a: ([r[:] for r in b] if isinstance(b[0], list) else b[:]) for a, b in Pv.items()}
            if len(idx) == 2:
                P2[k][idx[0]][idx[1]] += delta
            else:
                P2[k][idx[0]] += delta
            return values(spec, P2, with_grads=False)["loss"]
        num = (at(h) - at(-h)) / (2 * h)
        worst = max(worst, abs(num - vals["grad_" + k + "[" + ",".join(map(str, idx)) + "]"]))
    return worst


# ------------------------------------------------------------------ the key

def figure_value(ref, vals):
    return vals.get(ref.replace(" ", ""))


def main() -> int:
    spec, Pv, vals = compute()
    gc = gradcheck(spec, Pv, vals, [("E", (0, 0)), ("W_O", (2, 1)), ("b_1", (3,)), ("W_pe", (1, 2)),
                                    ("W_Q", (0, 3)), ("W_K", (1, 0)), ("b_V", (2,))])
    print(f"gradient check against central differences (h = 1e-20): worst |difference| = {mp.nstr(gc, 3)}")
    bad = int(gc > mp.mpf("1e-25"))
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if figure_value(n, vals) is not None), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>12}  (no oracle value for {cells[-1]})  KEY ROW UNKNOWN")
            bad += 1
            continue
        v = figure_value(ref, vals) * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = shown.rstrip("%").replace("−", "-")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places)
        if len(cells) == 7:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (body == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != printed.rstrip("%").replace("−", "-") and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            ok = right == printed.rstrip("%").replace("−", "-") and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>12}  l.{line:<4} {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if (n_planted, n_correct) != (8, 10):
        print(f"expected 8 planted and 10 correct rows, found {n_planted} and {n_correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
