#!/usr/bin/env python3
"""Independent oracle for en-md-gpt2-2layer-adamw: plain mpmath at 50 digits, never symgpt.

    python3 oracle.py          # every KEY.md row: its quantity's value, the rounding, the line of DOC.md

Model (GPT-2 / minGPT block, read from SPEC.toml): x = wte[idx] + wpe[pos]; per block
  a = ln_1(x); q, k, v = a·W + b (c_attn); per head h (d_k = d / heads columns)
  att[h] = causal softmax(q_h k_hᵀ / √d_k); y = att·v merged; c_proj: y·W_O + b_O;
  x = x + c_proj;  b = ln_2(x); mlp = gelu_tanh(b·W_1 + b_1)·W_2 + b_2; x = x + mlp;
then ln_f, logits = ln_f(x)[T-1]·wteᵀ (tied head), p = softmax, loss = -ln p[target].
LayerNorm: biased variance, eps from the spec, γ = 1, β = 0 (not trained).
The gradient comes from a small reverse-mode autodiff on mpf scalars (checked below against
central differences); AdamW is torch.optim.AdamW (decoupled decay, bias corrections) on every
parameter (wte, wpe, every W and b), lr, betas, eps and weight decay from [training.adamw].
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def D(x):
    return mp.mpf(str(x))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ------------------------------------------------------------------ reverse-mode autodiff on mpf

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v
        self.parents = parents
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = lift(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, -1),))


def lift(x):
    return x if isinstance(x, Var) else Var(mp.mpf(x))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vtanh(a):
    t = mp.tanh(a.v)
    return Var(t, ((a, 1 - t * t),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
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
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, w in n.parents:
            p.g += n.g * w


# ------------------------------------------------------------------ the model

M = SPEC["model"]
VOCAB = M["vocab"]
d, H, DFF, L = M["d"], M["heads"], M["d_ff"], M["layers"]
DK = d // H
EPS = D(M["ln_eps"])
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
GELU_C = mp.sqrt(2 / mp.pi)
GELU_A = D("0.044715")
LAYER_KEYS = ["W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"]


def initial_params():
    P = {"E": [[D(x) for x in r] for r in SPEC["weights"]["E"]],
         "W_pe": [[D(x) for x in r] for r in SPEC["weights"]["W_pe"]]}
    for l, lay in enumerate(SPEC["layer"]):
        for k in LAYER_KEYS:
            a = lay[k]
            P[f"l{l}.{k}"] = [[D(x) for x in r] for r in a] if isinstance(a[0], list) else [D(x) for x in a]
    return P


def wrap(P):
    return {k: ([[Var(x) for x in r] for r in a] if isinstance(a[0], list) else [Var(x) for x in a])
            for k, a in P.items()}


def layernorm(X):
    mu = [vsum(r) / d for r in X]
    var = [vsum((x - m) * (x - m) for x in r) / d for r, m in zip(X, mu)]
    den = [vsqrt(v + EPS) for v in var]
    return mu, var, den, [[(x - m) / s for x in r] for r, m, s in zip(X, mu, den)]


def linear(X, W, b):
    return [[vsum(X[t][i] * W[i][j] for i in range(len(W))) + b[j] for j in range(len(W[0]))] for t in range(len(X))]


def gelu(x):
    return 0.5 * x * (1 + vtanh(GELU_C * (x + GELU_A * x * x * x)))


def forward(Pv):
    """All intermediates as Var, keyed by symgpt-style names (without indices)."""
    f = {}
    X = [Pv["E"][i][:] for i in IDS]
    f["X"] = X
    x = [[X[t][j] + Pv["W_pe"][t][j] for j in range(d)] for t in range(T)]
    f["H0"] = x
    for l in range(L):
        p = lambda k: Pv[f"l{l}.{k}"]
        mu, var, den, a = layernorm(x)
        Q, K, V = linear(a, p("W_Q"), p("b_Q")), linear(a, p("W_K"), p("b_K")), linear(a, p("W_V"), p("b_V"))
        S = [[[None] * T for _ in range(T)] for _ in range(H)]
        A = [[[Var(mp.mpf(0))] * T for _ in range(T)] for _ in range(H)]
        Aden = [[None] * T for _ in range(H)]
        for h in range(H):
            cols = range(h * DK, (h + 1) * DK)
            for t in range(T):
                for s in range(t + 1):
                    S[h][t][s] = vsum(Q[t][c] * K[s][c] for c in cols) / mp.sqrt(DK)
                ex = [vexp(S[h][t][s]) for s in range(t + 1)]
                Aden[h][t] = vsum(ex)
                for s in range(t + 1):
                    A[h][t][s] = ex[s] / Aden[h][t]
        Y = [[vsum(A[j // DK][t][s] * V[s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
        Attn = linear(Y, p("W_O"), p("b_O"))
        H1 = [[x[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, den2, b = layernorm(H1)
        Z = linear(b, p("W_1"), p("b_1"))
        R = [[gelu(z) for z in r] for r in Z]
        F = linear(R, p("W_2"), p("b_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        for k, v in dict(mu1=mu, var1=var, sd1=den, LN1=a, Q=Q, K=K, V=V, S=S, A_den=Aden, A=A,
                         Attn_heads=Y, Attn=Attn, H1=H1, mu2=mu2, var2=var2, sd2=den2, LN2=b, Z=Z, R=R,
                         F=F, H2=H2).items():
            f[f"l{l}.{k}"] = v
        x = H2
    mu_f, var_f, sd_f, lnf = layernorm(x)
    f.update(mu_f=mu_f, var_f=var_f, sd_f=sd_f, LN_f=lnf)
    hf = lnf[T - 1]
    logits = [vsum(hf[j] * Pv["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TGT])
    f.update(h_final=hf, logits=logits, exp_logits=ex, sum_exp=se, p=p, loss=loss)
    return f


def values(obj):
    if isinstance(obj, Var):
        return obj.v
    if obj is None or isinstance(obj, mp.mpf):
        return obj
    return [values(o) for o in obj]


def run(P):
    Pv = wrap(P)
    f = forward(Pv)
    backward(f["loss"])
    grads = {k: values([[x.g for x in r] for r in a] if isinstance(a[0], list) else [x.g for x in a])
             for k, a in Pv.items()}
    return {k: values(v) for k, v in f.items()}, grads


def loss_only(P):
    return forward(wrap(P))["loss"].v


def adamw(P0, steps):
    cfg = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (D(cfg[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    states = []
    P = P0
    m, v = {}, {}
    fwd, g = run(P)
    states.append(dict(params=P, fwd=fwd, grad=g))
    for t in range(1, steps + 1):
        newP, st = {}, {}
        for k, a in P.items():
            def upd(th, gi, key):
                mk = b1 * m.get(key, 0) + (1 - b1) * gi
                vk = b2 * v.get(key, 0) + (1 - b2) * gi * gi
                m[key], v[key] = mk, vk
                mh, vh = mk / (1 - b1 ** t), vk / (1 - b2 ** t)
                u = lr * mh / (mp.sqrt(vh) + eps)
                dec = lr * wd * th
                new = th - dec - u
                st[key] = dict(g=gi, m=mk, v=vk, mhat=mh, vhat=vh, update=u, decay=dec, new=new, old=th)
                return new
            if isinstance(a[0], list):
                newP[k] = [[upd(a[i][j], g[k][i][j], (k, i, j)) for j in range(len(a[0]))] for i in range(len(a))]
            else:
                newP[k] = [upd(a[i], g[k][i], (k, i)) for i in range(len(a))]
        P = newP
        fwd, g = run(P)
        states.append(dict(params=P, fwd=fwd, grad=g, opt=st))
    return states


# ------------------------------------------------------------------ names → values

def tok(s):
    return VOCAB.index(s) if s in VOCAB else int(s)


STATES = adamw(initial_params(), SPEC["training"].get("steps", 2))
F0, G0 = STATES[0]["fwd"], STATES[0]["grad"]


def lookup(ref: str):
    """A symgpt-style reference → its value (mpf)."""
    ref = ref.strip().replace(" ", "")
    m = re.fullmatch(r"adamw\[(\d+)\]\.(.+)", ref)
    if m:
        k, rest = int(m.group(1)), m.group(2)
        st = STATES[k]
        m2 = re.fullmatch(r"(m|v|mhat|vhat|update|decay)\[([^,\]]+(?:\.[^,\]]+)?),(.+)\]", rest)
        if m2:
            kind, P, idx = m2.groups()
            key = (P,) + tuple(tok(i) if P == "E" and n == 0 else int(i) for n, i in enumerate(idx.split(",")))
            return st["opt"][key][kind]
        return lookup_state(st, rest)
    return lookup_state(STATES[0], ref)


def lookup_state(st, ref):
    m = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", ref)
    if m:
        return mp.sqrt(lookup_state(st, m.group(1)) + EPS)
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(lookup_state(st, m.group(1)))
    if ref in ("loss", "sum_exp"):
        return st["fwd"][ref]
    m = re.fullmatch(r"(grad_)?([A-Za-z_0-9.]+)\[(.+)\]", ref)
    grad, name, idx = m.groups()
    idx = idx.split(",")
    if grad:
        a = st["grad"][name]
        ii = [tok(idx[0]) if name == "E" else int(idx[0])] + [int(i) for i in idx[1:]]
    elif name in st["params"]:
        a = st["params"][name]
        ii = [tok(idx[0]) if name == "E" else int(idx[0])] + [int(i) for i in idx[1:]]
    else:
        a = st["fwd"][name]
        ii = [tok(i) if name in ("p", "logits") else int(i) for i in idx]
    for i in ii:
        a = a[i]
    return a


# ------------------------------------------------------------------ self-checks of the gradient

def gradcheck():
    P = initial_params()
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for name, idx in (("E", (5, 1)), ("E", (2, 0)), ("W_pe", (1, 2)), ("l0.W_Q", (1, 3)), ("l0.b_K", (0,)),
                      ("l0.W_1", (2, 5)), ("l1.W_2", (4, 2)), ("l1.b_V", (3,)), ("l1.W_O", (0, 1))):
        def at(delta):
            Q = {k: ([r[:] for r in a] if isinstance(a[0], list) else a[:]) for k, a in P.items()}
            if len(idx) == 2:
                Q[name][idx[0]][idx[1]] += delta
            else:
                Q[name][idx[0]] += delta
            return loss_only(Q)
        num = (at(h) - at(-h)) / (2 * h)
        a = G0[name]
        for i in idx:
            a = a[i]
        worst = max(worst, abs(num - a))
    assert worst < mp.mpf("1e-25"), worst
    return worst


# ------------------------------------------------------------------ the key

def main() -> int:
    gc = gradcheck()
    print(f"gradient check against central differences: worst difference {mp.nstr(gc, 3)}")
    doc = next(HERE.glob("DOC.*"))
    lines = doc.read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = 0
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        vals = {}
        for n in names:
            try:
                vals[n] = lookup(n)
            except Exception as e:  # noqa: BLE001
                print(f"  cannot evaluate {n}: {e!r}")
        if not vals:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        ref, v = next(iter(vals.items()))
        if len(vals) > 1:   # alternatives must be the same value
            for n2, v2 in vals.items():
                if abs(v2 - v) > mp.mpf("1e-40"):
                    print(f"  ALTERNATIVES DIFFER: {ref} {n2}")
                    bad += 1
        v = v * (100 if printed.endswith("%") else 1)
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if planted:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            ok = right == printed and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        if not on_line:
            note += f" (NOT ON LINE {line})"
        bad += not ok
        print(f"  {printed:>12}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if n_planted != 8 or n_correct != 10:
        print(f"expected 8 planted and 10 correct rows, got {n_planted} and {n_correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
