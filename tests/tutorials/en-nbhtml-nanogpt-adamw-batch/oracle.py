#!/usr/bin/env python3
"""Independent computation behind KEY.md: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py        # every KEY.md row: the quantity's value, its correct rounding, the
                             # key's columns, and that the printed text stands on the stated line

The model is nanoGPT's GPT with one Block, as in its model.py (bias=True, dropout 0):
    x   = wte[idx] + wpe[pos]                      (E, W_pe)
    a   = ln_1(x)                                  (LayerNorm: biased variance, eps 1e-5, gamma1/beta1)
    q,k,v = a @ W_Q + b_Q, ...                     (c_attn, split in 2 heads of 2 dims)
    att = causal softmax(q_h k_hᵀ / √2);  y = att @ v_h, heads side by side
    x   = x + (y @ W_O + b_O)                      (attn.c_proj)
    x   = x + (GELU(ln_2(x) @ W_1 + b_1) @ W_2 + b_2)    (mlp.c_fc, exact erf GELU, mlp.c_proj)
    logits = ln_f(x)[-1] @ wteᵀ                    (tied lm_head, last position only)
    loss = -ln softmax(logits)[target]
The mini-batch holds two windows; its loss is the mean of the two losses and .grad the mean of the
two gradients (reverse mode below, on mpf scalars). One torch.optim.AdamW step (decoupled decay on
every parameter, LayerNorm's weight and bias included), then the batch's mean loss again.
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


# ---------------------------------------------------------------- a tiny reverse-mode autodiff on mpf

class Var:
    __slots__ = ("val", "parents", "grad")

    def __init__(self, val, parents=()):
        self.val = mp.mpf(val)
        self.parents = parents          # tuple of (Var, local derivative)
        self.grad = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val + o.val, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val - o.val, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __neg__(self):
        return Var(-self.val, ((self, -1),))

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val * o.val, ((self, o.val), (o, self.val)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val / o.val, ((self, 1 / o.val), (o, -self.val / o.val ** 2)))


def vexp(x):
    e = mp.exp(x.val)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.val), ((x, 1 / x.val),))


def vsqrt(x):
    r = mp.sqrt(x.val)
    return Var(r, ((x, 1 / (2 * r)),))


def vgelu(x):
    """x·Φ(x) with the exact erf (nn.GELU())."""
    phi = (1 + mp.erf(x.val / mp.sqrt(2))) / 2
    dens = mp.exp(-x.val ** 2 / 2) / mp.sqrt(2 * mp.pi)
    return Var(x.val * phi, ((x, phi + x.val * dens),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.val for x in xs), tuple((x, 1) for x in xs))


def backward(root, leaves):
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
    for n in order:
        n.grad = mp.mpf(0)
    for leaf in leaves:
        leaf.grad = mp.mpf(0)
    root.grad = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.grad += n.grad * local


# ---------------------------------------------------------------- the model

PARAMS = ["E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2",
          "gamma1", "beta1", "gamma2", "beta2", "gamma_f", "beta_f"]


def load_spec():
    with open(HERE / "SPEC.toml", "rb") as f:
        spec = tomllib.load(f)
    d = spec["model"]["d"]
    raw = dict(spec["weights"])
    raw.update(spec["layer"][0])
    for g, b in (("gamma1", "beta1"), ("gamma2", "beta2"), ("gamma_f", "beta_f")):
        raw.setdefault(g, [1] * d)
        raw.setdefault(b, [0] * d)
    exact = lambda v: mp.mpf(str(v))
    W = {n: ([[exact(v) for v in r] for r in raw[n]] if isinstance(raw[n][0], list) else [exact(v) for v in raw[n]])
         for n in PARAMS}
    return spec, W


def leafify(W):
    return {n: ([[Var(v) for v in r] for r in P] if isinstance(P[0], list) else [Var(v) for v in P])
            for n, P in W.items()}


def leaves_of(P):
    out = []
    for n in PARAMS:
        t = P[n]
        out += [v for r in t for v in r] if isinstance(t[0], list) else list(t)
    return out


def linear(X, Wm, b):
    return [[vsum(X[t][i] * Wm[i][j] for i in range(len(Wm))) + b[j] for j in range(len(Wm[0]))] for t in range(len(X))]


def layernorm(X, g, b, eps):
    out, mus, vars_ = [], [], []
    for r in X:
        n = len(r)
        mu = vsum(r) / n
        var = vsum((x - mu) * (x - mu) for x in r) / n
        den = vsqrt(var + eps)
        out.append([(r[j] - mu) / den * g[j] + b[j] for j in range(n)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, out


def forward(P, ids, tgt, heads, eps):
    T, d = len(ids), len(P["E"][0])
    dk = d // heads
    X = [[P["E"][i][j] for j in range(d)] for i in ids]
    H0 = [[X[t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, P["gamma1"], P["beta1"], eps)
    Q, K, V = (linear(LN1, P["W_" + n], P["b_" + n]) for n in "QKV")
    S, A, A_den = [], [], []
    Y = [[None] * d for _ in range(T)]
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[vsum(Q[t][j] * K[s][j] for j in cols) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
        ex = [[vexp(Sh[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [vsum(r) for r in ex]
        Ah = [[ex[t][s] / den[t] for s in range(t + 1)] for t in range(T)]
        for t in range(T):
            for j in cols:
                Y[t][j] = vsum(Ah[t][s] * V[s][j] for s in range(t + 1))
        S.append(Sh)
        A.append(Ah)
        A_den.append(den)
    Attn = linear(Y, P["W_O"], P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, P["gamma2"], P["beta2"], eps)
    Z = linear(LN2, P["W_1"], P["b_1"])
    R = [[vgelu(z) for z in r] for r in Z]
    F = linear(R, P["W_2"], P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, P["gamma_f"], P["beta_f"], eps)
    hf = LN_f[-1]
    logits = [vsum(hf[j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    p = [e / sum_exp for e in ex]
    loss = vlog(sum_exp) - logits[tgt]
    return dict(X=X, PE=P["W_pe"][:T], H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A=A, A_den=A_den,
                Attn_heads=Y, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=mu_f,
                var_f=var_f, LN_f=LN_f, h_final=hf, logits=logits, sum_exp=sum_exp, p=p, loss=loss)


def val(x):
    """Values of a (nested) Var structure."""
    if isinstance(x, Var):
        return x.val
    if isinstance(x, list):
        return [val(y) for y in x]
    return x


def compute():
    spec, W = load_spec()
    m, tr = spec["model"], spec["training"]
    vocab = m["vocab"]
    eps = mp.mpf(str(m["ln_eps"]))
    ex = [(spec["data"]["input"], spec["data"]["target"])] + [(e["input"], e["target"]) for e in tr["examples"]]
    ex = [([vocab.index(w) for w in inp], vocab.index(tgt)) for inp, tgt in ex]

    P = leafify(W)
    runs = [forward(P, ids, tgt, m["heads"], eps) for ids, tgt in ex]
    batch = vsum(r["loss"] for r in runs) / len(runs)
    leaves = leaves_of(P)

    # the first example's own gradient (symgpt's grad_*), then the batch mean (sgd[0].grad_*)
    backward(runs[0]["loss"], leaves)
    g_first = {n: val_grad(P[n]) for n in PARAMS}
    g_first_logits = [x.grad for x in runs[0]["logits"]]
    backward(batch, leaves)
    g_mean = {n: val_grad(P[n]) for n in PARAMS}

    # one torch.optim.AdamW step from zero moments
    aw = spec["training"]["adamw"]
    lr, b1, b2 = (mp.mpf(str(aw[k])) for k in ("lr", "beta1", "beta2"))
    aeps, wd = mp.mpf(str(aw["eps"])), mp.mpf(str(aw["weight_decay"]))
    adam = {}

    def step(theta, g):
        mm, vv = (1 - b1) * g, (1 - b2) * g * g
        mh, vh = mm / (1 - b1), vv / (1 - b2)
        upd = lr * mh / (mp.sqrt(vh) + aeps)
        return dict(m=mm, v=vv, mhat=mh, vhat=vh, update=upd, decay=lr * wd * theta,
                    new=theta * (1 - lr * wd) - upd)

    W1 = {}
    for n in PARAMS:
        if isinstance(W[n][0], list):
            rows = []
            for i, r in enumerate(W[n]):
                rows.append([])
                for j, th in enumerate(r):
                    adam[(n, i, j)] = s = step(th, g_mean[n][i][j])
                    rows[-1].append(s["new"])
            W1[n] = rows
        else:
            W1[n] = []
            for i, th in enumerate(W[n]):
                adam[(n, i)] = s = step(th, g_mean[n][i])
                W1[n].append(s["new"])
    P1 = leafify(W1)
    runs1 = [forward(P1, ids, tgt, m["heads"], eps) for ids, tgt in ex]
    return dict(spec=spec, vocab=vocab, W=W, runs=[{k: val(v) for k, v in r.items()} for r in runs],
                batch=batch.val, g_first=g_first, g_first_logits=g_first_logits, g_mean=g_mean, adam=adam,
                W1=W1, runs1=[{k: val(v) for k, v in r.items()} for r in runs1],
                batch1=mp.fsum(r["loss"].val for r in runs1) / len(runs1))


def val_grad(t):
    return [[v.grad for v in r] for r in t] if isinstance(t[0], list) else [v.grad for v in t]


# ---------------------------------------------------------------- rounding and the key

def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def quantities(c):
    """Every quantity KEY.md names, by symgpt's reference names."""
    vocab, r0 = c["vocab"], c["runs"][0]
    q = {}

    def put(name, arr, fmt):
        def rec(a, idx):
            if isinstance(a, list):
                for i, x in enumerate(a):
                    rec(x, idx + [i])
            else:
                q[fmt(idx)] = a
        rec(arr, [])

    for k in ("X", "H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2", "LN_f"):
        put(k, r0[k], lambda i, k=k: f"{k}[{i[0]},{i[1]}]")
    for k in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f"):
        put(k, r0[k], lambda i, k=k: f"{k}[{i[0]}]")
    for h in range(2):
        for t in range(3):
            q[f"A_den[{h},{t}]"] = r0["A_den"][h][t]
            for s in range(3):
                q[f"S[{h},{t},{s}]"] = r0["S"][h][t][s]
                if s <= t:
                    q[f"A[{h},{t},{s}]"] = r0["A"][h][t][s]
    for v, w in enumerate(vocab):
        q[f"logits[{w}]"], q[f"p[{w}]"] = r0["logits"][v], r0["p"][v]
        q[f"grad_logits[{w}]"] = c["g_first_logits"][v]
    put("h_final", r0["h_final"], lambda i: f"h_final[{i[0]}]")
    q["sum_exp"], q["loss"] = r0["sum_exp"], r0["loss"]
    q["2*sgd[0].loss - loss"] = 2 * c["batch"] - r0["loss"]        # the second window's own loss
    q["sgd[0].loss"] = c["batch"]
    q["adamw[0].loss"] = c["batch"]
    q["adamw[1].loss"] = c["batch1"]
    for n in ("E", "W_1", "b_1", "W_Q", "W_O", "gamma1", "b_2", "W_pe"):
        nm = lambda i, n=n: (f"{n}[{vocab[i[0]]},{i[1]}]" if n == "E" else f"{n}[{','.join(map(str, i))}]")
        put(None, c["g_mean"][n], lambda i, nm=nm: "sgd[0].grad_" + nm(i))
        put(None, c["g_first"][n], lambda i, nm=nm: "grad_" + nm(i))
        put(None, c["W"][n], nm)
        put(None, c["W1"][n], lambda i, nm=nm: "adamw[1]." + nm(i))
        for key, s in c["adam"].items():
            if key[0] == n:
                idx = list(key[1:])
                for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                    q[f"adamw[1].{f}[{n},{','.join(vocab[x] if (n == 'E' and a == 0) else str(x) for a, x in enumerate(idx))}]"] = s[f]
    return q


def main() -> int:
    c = compute()
    q = quantities(c)
    doc = next(HERE.glob("DOC.*"))
    lines = doc.read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [x.strip() for x in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref] * (100 if printed.endswith("%") else 1)
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if planted:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note += "; NOT ON ITS LINE"
        bad += note not in ("planted, key agrees", "correct")
        print(f"  {printed:>10}  line {line:<4} {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    n_planted = sum(1 for r in rows if len(r.strip().strip('|').split('|')) == 7)
    print(f"{len(rows)} key rows, {n_planted} planted")
    print("all key rows agree with the oracle and the document" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
