#!/usr/bin/env python3
"""Independent check of KEY.md for es-ipynb-nanogpt-adamw: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every KEY.md row: the quantity's value, its rounding, the printed text on its line

The model is nanoGPT's block as written in model.py (bias=True, one layer): x = wte[idx] + wpe[pos];
h = ln_1(x); q, k, v = c_attn(h) split into 2 heads of size 2; att = softmax(mask(q kᵀ/√2)); y = att v,
heads put back side by side; y = c_proj(y); x = x + y; x = x + c_proj(GELU(c_fc(ln_2(x)))) with the exact
erf GELU; logits = ln_f(x)[-1] · wteᵀ (tied); loss = cross-entropy of the target.  Every LayerNorm uses the
biased variance and eps = 1e-5 inside the root.  The gradient comes from a small reverse-mode autodiff over
mpmath numbers (below).  One torch.optim.AdamW step over every parameter (LayerNorm weights and biases too,
decoupled decay on all of them): m = (1-β1) g, v = (1-β2) g², m̂ = m/(1-β1), v̂ = v/(1-β2),
θ' = θ(1 - ηλ) - η m̂/(√v̂ + ε); then the loss of the updated model.

Weights are read from SPEC.toml's decimal text (mpf(str(x))).  Rounding is half away from zero.
Names follow symgpt's reference names (H0, LN1, Q, K, V, A[h,t,s], Attn, H1, LN2, Z, R, LN_f, logits, p, ...).
"""
from __future__ import annotations

import json
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ a tiny reverse-mode autodiff

class N:
    """A scalar node: value, gradient, and (parent, local derivative) pairs."""

    __slots__ = ("v", "g", "ps")

    def __init__(self, v, ps=()):
        self.v = mp.mpf(v)
        self.g = mp.mpf(0)
        self.ps = ps

    def __add__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __neg__(self):
        return N(-self.v, ((self, -1),))

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


def nexp(a):
    e = mp.exp(a.v)
    return N(e, ((a, e),))


def nlog(a):
    return N(mp.log(a.v), ((a, 1 / a.v),))


def nsqrt(a):
    r = mp.sqrt(a.v)
    return N(r, ((a, 1 / (2 * r)),))


def ngelu(a):
    """Exact GELU: x Φ(x) = x/2 (1 + erf(x/√2)); derivative Φ(x) + x φ(x)."""
    x = a.v
    Phi = (1 + mp.erf(x / mp.sqrt(2))) / 2
    phi = mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)
    return N(x * Phi, ((a, Phi + x * phi),))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
        for p, _ in n.ps:
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.ps:
            p.g += n.g * d


# ------------------------------------------------------------------ the model

PARAMS_1 = ["W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2",
            "gamma1", "beta1", "gamma2", "beta2"]


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m = spec["model"]
    vocab, d = m["vocab"], m["d"]
    w, lay = spec["weights"], spec["layer"][0]

    def conv(a):
        return [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))

    P = {"E": conv(w["E"]), "W_pe": conv(w["W_pe"])}
    for k in PARAMS_1:
        if k in lay:
            P[k] = conv(lay[k])
    for k, one in (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0)):
        P.setdefault(k, [mp.mpf(one)] * d)
    P["gamma_f"] = conv(w.get("gamma_f", [1] * d))
    P["beta_f"] = conv(w.get("beta_f", [0] * d))
    cfg = dict(vocab=vocab, d=d, heads=m["heads"], d_ff=m["d_ff"], eps=mp.mpf(str(m["ln_eps"])),
               ids=[vocab.index(t) for t in spec["data"]["input"]], tgt=vocab.index(spec["data"]["target"]),
               adamw={k: mp.mpf(str(v)) for k, v in spec["training"]["adamw"].items()})
    return cfg, P


def as_nodes(a):
    return [as_nodes(x) for x in a] if isinstance(a, list) else N(a)


def layernorm(rows, gamma, beta, eps):
    d = len(rows[0])
    mus, vars_, outs = [], [], []
    for r in rows:
        mu = nsum(r) / d
        var = nsum([(x - mu) * (x - mu) for x in r]) / d
        den = nsqrt(var + eps)
        outs.append([(r[j] - mu) / den * gamma[j] + beta[j] for j in range(d)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def linear(rows, W, b):
    return [[nsum([r[i] * W[i][j] for i in range(len(W))]) + b[j] for j in range(len(W[0]))] for r in rows]


def forward(cfg, P):
    """P: name -> nested lists of N.  Returns name -> nested lists of N (every named quantity)."""
    d, H, eps, ids = cfg["d"], cfg["heads"], cfg["eps"], cfg["ids"]
    T, dk = len(ids), d // H
    q = {}
    q["X"] = [[P["E"][i][j] for j in range(d)] for i in ids]
    q["PE"] = [[P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    q["H0"] = [[q["X"][t][j] + q["PE"][t][j] for j in range(d)] for t in range(T)]
    q["mu1"], q["var1"], q["LN1"] = layernorm(q["H0"], P["gamma1"], P["beta1"], eps)
    q["Q"] = linear(q["LN1"], P["W_Q"], P["b_Q"])
    q["K"] = linear(q["LN1"], P["W_K"], P["b_K"])
    q["V"] = linear(q["LN1"], P["W_V"], P["b_V"])
    sc = 1 / mp.sqrt(dk)
    S, Aden, A = [], [], []
    heads_out = [[None] * d for _ in range(T)]
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[nsum([q["Q"][t][j] * q["K"][s][j] for j in cols]) * sc for s in range(T)] for t in range(T)]
        Dh, Ah = [], []
        for t in range(T):
            ex = [nexp(Sh[t][s]) for s in range(t + 1)]
            den = nsum(ex)
            Dh.append(den)
            Ah.append([ex[s] / den for s in range(t + 1)] + [N(0) for _ in range(t + 1, T)])
        for t in range(T):
            for j in cols:
                heads_out[t][j] = nsum([Ah[t][s] * q["V"][s][j] for s in range(t + 1)])
        S.append(Sh)
        Aden.append(Dh)
        A.append(Ah)
    q["S"], q["A_den"], q["A"], q["Attn_heads"] = S, Aden, A, heads_out
    q["Attn"] = linear(heads_out, P["W_O"], P["b_O"])
    q["H1"] = [[q["H0"][t][j] + q["Attn"][t][j] for j in range(d)] for t in range(T)]
    q["mu2"], q["var2"], q["LN2"] = layernorm(q["H1"], P["gamma2"], P["beta2"], eps)
    q["Z"] = linear(q["LN2"], P["W_1"], P["b_1"])
    q["R"] = [[ngelu(z) for z in r] for r in q["Z"]]
    q["F"] = linear(q["R"], P["W_2"], P["b_2"])
    q["H2"] = [[q["H1"][t][j] + q["F"][t][j] for j in range(d)] for t in range(T)]
    q["mu_f"], q["var_f"], q["LN_f"] = layernorm(q["H2"], P["gamma_f"], P["beta_f"], eps)
    q["h_final"] = q["LN_f"][T - 1]
    q["logits"] = [nsum([q["h_final"][j] * P["E"][v][j] for j in range(d)]) for v in range(len(P["E"]))]
    ex = [nexp(z) for z in q["logits"]]
    q["sum_exp"] = nsum(ex)
    q["p"] = [e / q["sum_exp"] for e in ex]
    q["loss"] = -nlog(q["p"][cfg["tgt"]])
    return q


def run(cfg, P):
    Pn = {k: as_nodes(v) for k, v in P.items()}
    q = forward(cfg, Pn)
    backward(q["loss"])
    return Pn, q


def vals(x):
    return [vals(y) for y in x] if isinstance(x, list) else x.v


def grads(x):
    return [grads(y) for y in x] if isinstance(x, list) else x.g


def flat(name, arr, out, vocab, tok_axis=None, prefix=""):
    """out['name[i,j]'] = value, with token names on the axis tok_axis (and the ids too)."""
    def walk(a, idx):
        if isinstance(a, list):
            for i, y in enumerate(a):
                walk(y, idx + [i])
            return
        out[f"{prefix}{name}[{','.join(map(str, idx))}]"] = a
        if tok_axis is not None:
            j = list(idx)
            j[tok_axis] = vocab[idx[tok_axis]]
            out[f"{prefix}{name}[{','.join(map(str, j))}]"] = a
    if isinstance(arr, list):
        walk(arr, [])
    else:
        out[f"{prefix}{name}"] = arr


TOKEN_AXIS = {"E": 0, "logits": 0, "p": 0}


def compute():
    cfg, P = load_spec()
    vocab = cfg["vocab"]
    Pn, q = run(cfg, P)
    out = {}
    for k, v in q.items():
        flat(k, vals(v), out, vocab, TOKEN_AXIS.get(k))
    for k, v in P.items():
        flat(k, v, out, vocab, TOKEN_AXIS.get(k))
        flat("grad_" + k, grads(Pn[k]), out, vocab, TOKEN_AXIS.get(k))
    for k in ("H0", "LN1", "Q", "K", "V", "Attn", "H1", "LN2", "Z", "R", "LN_f", "logits", "p"):
        flat("grad_" + k, grads(q[k]), out, vocab, TOKEN_AXIS.get(k))

    # one AdamW step (torch.optim.AdamW, step 1), every parameter
    a = cfg["adamw"]
    lr, b1, b2, eps, wd = a["lr"], a["beta1"], a["beta2"], a["eps"], a["weight_decay"]
    new = {}
    for k, th in P.items():
        g = grads(Pn[k])

        def step(th, g, idx):
            if isinstance(th, list):
                return [step(t, gg, idx + [i]) for i, (t, gg) in enumerate(zip(th, g))]
            m, v = (1 - b1) * g, (1 - b2) * g * g
            mhat, vhat = m / (1 - b1), v / (1 - b2)
            upd = lr * mhat / (mp.sqrt(vhat) + eps)
            res = th * (1 - lr * wd) - upd
            for nm, x in (("m", m), ("v", v), ("mhat", mhat), ("vhat", vhat), ("update", upd),
                          ("decay", lr * wd * th)):
                ix = list(idx)
                out[f"adamw[1].{nm}[{','.join([k] + list(map(str, ix)))}]"] = x
                if k == "E":
                    ix[0] = vocab[ix[0]]
                    out[f"adamw[1].{nm}[{','.join([k] + list(map(str, ix)))}]"] = x
            return res
        new[k] = step(th, g, [])
        flat(k, new[k], out, vocab, TOKEN_AXIS.get(k), prefix="adamw[1].")
    _, q1 = run(cfg, new)
    for k in ("loss", "p", "logits"):
        flat(k, vals(q1[k]), out, vocab, TOKEN_AXIS.get(k), prefix="adamw[1].")
    for k in list(out):
        if not k.startswith("adamw["):
            out.setdefault("adamw[0]." + k, out[k])
    out["ln_eps"] = cfg["eps"]
    out["sqrt(var1[2] + ln_eps)"] = mp.sqrt(out["var1[2]"] + cfg["eps"])
    return out


# ------------------------------------------------------------------ the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm_minus(s: str) -> str:
    return s.replace("−", "-")


def rounding_of(v, shown: str) -> str:
    """Round v the way `shown` is written: fixed decimals, a percentage, or e-notation."""
    s = norm_minus(shown).replace(" ", "")
    if s.endswith("%"):
        body = s[:-1]
        places = len(body.split(".")[1]) if "." in body else 0
        return rnd(v * 100, places) + "%"
    m = re.fullmatch(r"(-?\d+(?:\.(\d+))?)e([+-]\d+)", s)
    if m:
        e = int(m.group(3))
        places = len(m.group(2) or "")
        mant = rnd(v / mp.mpf(10) ** e, places)
        return f"{mant}e{m.group(3)}"
    places = len(s.split(".")[1]) if "." in s else 0
    return rnd(v, places)


def main() -> int:
    values = compute()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8")
    json.loads(doc)                                   # a valid notebook file
    lines = doc.splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
        if not (1 <= line <= len(lines)) or printed not in lines[line - 1]:
            problems.append(f"printed text not on line {line}")
        if ref is not None:
            v = values[ref]
            if len(cells) == 7:                       # planted: exact value, correct rounding, differs
                planted += 1
                shown = cells[4].strip("`")
                right = rounding_of(v, shown)
                exact = mp.mpf(norm_minus(cells[3]).rstrip("…%"))
                scale = 100 if shown.endswith("%") else 1
                if right != norm_minus(shown).replace(" ", ""):
                    problems.append(f"correct rounding is {right}, key says {shown}")
                if abs(exact - v * scale) > mp.mpf("1e-10") * max(abs(v * scale), mp.mpf("1e-12")):
                    problems.append(f"exact value is {mp.nstr(v * scale, 15)}")
                if rounding_of(v, printed) == norm_minus(printed).replace(" ", ""):
                    problems.append("the planted figure is the correct rounding")
            else:
                correct += 1
                right = rounding_of(v, printed)
                if right != norm_minus(printed).replace(" ", ""):
                    problems.append(f"not the correct rounding ({right})")
            print(f"  {printed:>12}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} "
                  f"{'PLANTED' if len(cells) == 7 else 'correct'}  {'; '.join(problems) or 'ok'}")
        else:
            print(f"  {printed:>12}  line {line:>3}  {'; '.join(problems)}")
        bad += bool(problems)
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print(f"all {len(rows)} key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
