#!/usr/bin/env python3
"""Independent oracle for fa-txt-nanogpt-gradcheck-sgd (plain mpmath, 50 digits, no symgpt).

    python oracle.py

Model (read from SPEC.toml by hand, copied below): a one-layer nanoGPT/GPT-2 block, pre-LN,
one head, d = 4, d_ff = 8, learned positions (wpe), biases everywhere, attention output
projection c_proj (W_O, b_O), GELU with the exact erf, final LayerNorm ln_f (gamma_f, beta_f),
tied head (logits = LN_f[T-1] · Eᵀ), cross-entropy at the last position only.

    H0 = E[ids] + W_pe;  LN1 = LN(H0);  Q, K, V = LN1·W + b;  S = Q Kᵀ/√4 (causal);  A = softmax
    Attn_heads = A V;  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn;  LN2 = LN(H1)
    Z = LN2·W_1 + b_1;  R = GELU(Z);  F = R·W_2 + b_2;  H2 = H1 + F;  LN_f = γ_f·norm(H2) + β_f
    logits = LN_f[2]·Eᵀ;  p = softmax;  loss = −ln p[target]

Gradients come from a small reverse-mode automatic differentiation over mpf scalars written
here. The gradient check is (L(θ+h) − L(θ−h))/(2h) with h = 1e-3. One SGD step, lr 0.2, moves
every weight except the LayerNorm γ, β (not trained), then the forward pass is run again.

Then every row of KEY.md is checked: its quantity's exact value must start with the key's
"exact value" digits, its correct rounding (half away from zero) must be the key's, and the
"printed" figure must stand on the key's line of DOC.txt.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

# ------------------------------------------------------------------ weights (as in SPEC.toml)
VOCAB = ["<s>", "من", "کتاب", "را", "خواندم", "نوشتم"]
TOK = {t: i for i, t in enumerate(VOCAB)}
INPUT = [1, 2, 3]
TARGET = 4
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.2")
H = mp.mpf("0.001")

W0 = {
    "E": [[0.1, -0.2, 0.0, 0.3], [0.5, 0.1, -0.3, 0.2], [-0.2, 0.4, 0.6, -0.1],
          [0.3, -0.5, 0.2, 0.4], [0.6, 0.2, -0.4, -0.3], [-0.4, 0.3, 0.1, 0.5]],
    "W_pe": [[0.05, -0.1, 0.2, 0.0], [-0.1, 0.15, 0.0, 0.1], [0.2, 0.0, -0.15, 0.05]],
    "W_Q": [[0.3, -0.2, 0.1, 0.4], [0.1, 0.5, -0.3, 0.2], [-0.4, 0.2, 0.3, 0.1], [0.2, 0.1, 0.4, -0.3]],
    "b_Q": [0.0, 0.1, 0.0, -0.1],
    "W_K": [[0.2, 0.3, -0.1, 0.0], [-0.3, 0.1, 0.4, 0.2], [0.1, -0.2, 0.2, 0.5], [0.4, 0.0, -0.2, 0.1]],
    "b_K": [0.05, 0.0, -0.05, 0.0],
    "W_V": [[0.5, 0.0, 0.2, -0.1], [0.1, 0.3, -0.2, 0.4], [-0.2, 0.4, 0.1, 0.0], [0.0, -0.1, 0.3, 0.2]],
    "b_V": [0.0, 0.05, 0.0, 0.1],
    "W_O": [[0.4, 0.1, 0.0, -0.2], [0.0, 0.3, 0.2, 0.1], [-0.1, 0.0, 0.5, 0.2], [0.2, -0.2, 0.1, 0.3]],
    "b_O": [0.02, 0.0, -0.02, 0.0],
    "W_1": [[0.2, -0.3, 0.5, 0.1, -0.2, 0.4, 0.0, 0.3],
            [0.4, 0.1, -0.2, 0.3, 0.5, -0.1, 0.2, 0.0],
            [-0.1, 0.2, 0.3, -0.4, 0.1, 0.2, 0.5, -0.2],
            [0.3, 0.0, -0.1, 0.2, -0.3, 0.1, 0.4, 0.5]],
    "b_1": [0.1, 0.0, -0.1, 0.05, 0.0, 0.1, -0.05, 0.0],
    "W_2": [[0.3, -0.1, 0.2, 0.0], [0.1, 0.4, -0.2, 0.1], [-0.2, 0.1, 0.3, 0.2], [0.0, 0.2, 0.1, -0.3],
            [0.2, -0.3, 0.0, 0.1], [0.1, 0.0, -0.1, 0.4], [-0.3, 0.2, 0.1, 0.0], [0.2, 0.1, 0.0, -0.2]],
    "b_2": [0.0, 0.02, 0.0, -0.02],
    "gamma1": [1, 1, 1, 1], "beta1": [0, 0, 0, 0],
    "gamma2": [1, 1, 1, 1], "beta2": [0, 0, 0, 0],
    "gamma_f": [1.1, 0.9, 1.0, 1.2], "beta_f": [0.0, 0.05, -0.05, 0.1],
}
FROZEN = {"gamma1", "beta1", "gamma2", "beta2", "gamma_f", "beta_f"}


def to_mpf(a):
    return [to_mpf(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))


# ------------------------------------------------------------------ tiny reverse-mode autodiff
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v
        self.parents = parents  # tuple of (Var, local derivative)
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

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))


def lift(x):
    return x if isinstance(x, Var) else Var(mp.mpf(x))


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vgelu(x):
    z = x.v
    cdf = (1 + mp.erf(z / mp.sqrt(2))) / 2
    pdf = mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
    return Var(z * cdf, ((x, cdf + z * pdf),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for par, _ in node.parents:
            if id(par) not in seen:
                stack.append((par, False))
    root.g = mp.mpf(1)
    for node in reversed(order):
        for par, local in node.parents:
            par.g += node.g * local


# ------------------------------------------------------------------ the model
def matvec(x, W, b):  # row vector x (len n) times W (n × m) plus b
    return [vsum([x[i] * W[i][j] for i in range(len(x))]) + b[j] for j in range(len(W[0]))]


def layernorm(h, gamma, beta):
    d = len(h)
    mu = vsum(h) / d
    var = vsum([(x - mu) * (x - mu) for x in h]) / d
    sd = vsqrt(var + EPS)
    return mu, var, sd, [gamma[j] * ((h[j] - mu) / sd) + beta[j] for j in range(d)]


def forward(P):
    """P: dict of name -> nested lists of Var. Returns a dict of every intermediate (Var)."""
    T, d = 3, 4
    o = {}
    o["H0"] = [[P["E"][INPUT[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln1 = [layernorm(o["H0"][t], P["gamma1"], P["beta1"]) for t in range(T)]
    o["mu1"] = [x[0] for x in ln1]
    o["var1"] = [x[1] for x in ln1]
    o["sd1"] = [x[2] for x in ln1]
    o["LN1"] = [x[3] for x in ln1]
    o["Q"] = [matvec(o["LN1"][t], P["W_Q"], P["b_Q"]) for t in range(T)]
    o["K"] = [matvec(o["LN1"][t], P["W_K"], P["b_K"]) for t in range(T)]
    o["V"] = [matvec(o["LN1"][t], P["W_V"], P["b_V"]) for t in range(T)]
    o["dot"] = [[vsum([o["Q"][t][j] * o["K"][s][j] for j in range(d)]) for s in range(T)] for t in range(T)]
    o["S"] = [[o["dot"][t][s] / 2 for s in range(T)] for t in range(T)]  # √d_k = √4 = 2
    o["expS"] = [[vexp(o["S"][t][s]) for s in range(t + 1)] for t in range(T)]
    o["A_den"] = [vsum(o["expS"][t]) for t in range(T)]
    o["A"] = [[o["expS"][t][s] / o["A_den"][t] if s <= t else lift(0) for s in range(T)] for t in range(T)]
    o["Attn_heads"] = [[vsum([o["A"][t][s] * o["V"][s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    o["Attn"] = [matvec(o["Attn_heads"][t], P["W_O"], P["b_O"]) for t in range(T)]
    o["H1"] = [[o["H0"][t][j] + o["Attn"][t][j] for j in range(d)] for t in range(T)]
    ln2 = [layernorm(o["H1"][t], P["gamma2"], P["beta2"]) for t in range(T)]
    o["mu2"] = [x[0] for x in ln2]
    o["var2"] = [x[1] for x in ln2]
    o["LN2"] = [x[3] for x in ln2]
    o["Z"] = [matvec(o["LN2"][t], P["W_1"], P["b_1"]) for t in range(T)]
    o["R"] = [[vgelu(z) for z in o["Z"][t]] for t in range(T)]
    o["F"] = [matvec(o["R"][t], P["W_2"], P["b_2"]) for t in range(T)]
    o["H2"] = [[o["H1"][t][j] + o["F"][t][j] for j in range(d)] for t in range(T)]
    lnf = [layernorm(o["H2"][t], P["gamma_f"], P["beta_f"]) for t in range(T)]
    o["mu_f"] = [x[0] for x in lnf]
    o["var_f"] = [x[1] for x in lnf]
    o["LN_f"] = [x[3] for x in lnf]
    hf = o["LN_f"][T - 1]
    o["h_final"] = hf
    o["logits"] = [vsum([hf[j] * P["E"][v][j] for j in range(d)]) for v in range(len(VOCAB))]
    o["exp_logits"] = [vexp(z) for z in o["logits"]]
    o["sum_exp"] = vsum(o["exp_logits"])
    o["p"] = [e / o["sum_exp"] for e in o["exp_logits"]]
    o["loss"] = -vlog(o["p"][TARGET])
    return o


def make_params(W):
    return {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v])
            for k, v in W.items()}


def values(a):
    if isinstance(a, Var):
        return a.v
    return [values(x) for x in a]


def grads(a):
    if isinstance(a, Var):
        return a.g
    return [grads(x) for x in a]


def run(W, with_grad=True):
    P = make_params(W)
    o = forward(P)
    if with_grad:
        backward(o["loss"])
    vals = {k: values(v) for k, v in o.items()}
    if with_grad:
        for k in ("Z", "logits", "h_final", "LN2", "H1", "H0"):
            vals["grad_" + k] = grads(o[k])
        vals["grad_X"] = vals["grad_H0"]
        vals["grad_E_head"] = [[vals["grad_logits"][v] * vals["h_final"][j] for j in range(4)]
                               for v in range(len(VOCAB))]
        for k, v in P.items():
            vals["grad_" + k] = grads(v)
    for k, v in W.items():
        vals[k] = v
    return vals


def loss_only(W):
    return forward(make_params(W))["loss"].v


def shifted(W, name, i, j, delta):
    W2 = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in W.items()}
    W2[name][i][j] = W2[name][i][j] + delta
    return W2


W = {k: to_mpf(v) for k, v in W0.items()}
base = run(W)

# the gradient check, h = 1e-3
GC = {}
for name, i, j in (("E", TOK["را"], 0), ("W_1", 1, 2)):
    lp = loss_only(shifted(W, name, i, j, H))
    lm = loss_only(shifted(W, name, i, j, -H))
    GC[(name, i, j)] = (lp, lm, (lp - lm) / (2 * H))

# one SGD step on every trained weight
W1 = {}
for k, v in W.items():
    if k in FROZEN:
        W1[k] = v
        continue
    g = base["grad_" + k]
    if isinstance(v[0], list):
        W1[k] = [[v[a][b] - LR * g[a][b] for b in range(len(v[0]))] for a in range(len(v))]
    else:
        W1[k] = [v[a] - LR * g[a] for a in range(len(v))]
after = run(W1, with_grad=False)


# ------------------------------------------------------------------ symgpt names -> values
def idx(s):
    s = s.strip()
    return TOK[s] if s in TOK else int(s)


def lookup(state, name, ix):
    v = state[name]
    for i in ix:
        v = v[i]
    return v


def value_of(q: str):
    q = q.strip().strip("`").strip()
    m = re.fullmatch(r"(gradcheck|loss_at)\((\w+)\[([^\]]+)\],\s*([-0-9.e]+)\)", q)
    if m:
        fn, name, ix, h = m.groups()
        i, j = (idx(x) for x in ix.split(","))
        lp, lm, quot = GC[(name, i, j)]
        if fn == "gradcheck":
            assert mp.mpf(h) == H
            return quot
        return lp if mp.mpf(h) == H else lm if mp.mpf(h) == -H else None
    if q.startswith("100*") or q.startswith("100 *"):
        return 100 * value_of(q.split("*", 1)[1])
    state = base
    if q.startswith("sgd[1]."):
        state, q = after, q[len("sgd[1]."):]
    elif q.startswith("sgd[0]."):
        q = q[len("sgd[0]."):]
    m = re.fullmatch(r"(\w+)(?:\[([^\]]+)\])?", q)
    if not m:
        raise ValueError(f"cannot read quantity {q!r}")
    name, ix = m.groups()
    ix = [idx(x) for x in ix.split(",")] if ix else []
    return lookup(state, name, ix)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def digits_of(s: str) -> str:
    return s.replace("−", "-").replace("…", "").replace("`", "").strip()


def table_rows(text: str, heading: str):
    part = text.split(heading, 1)[1]
    part = part.split("\n## ", 1)[0]
    rows = []
    for line in part.splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(cells)
    return rows[1:]  # drop the header


def main() -> int:
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    bad = 0

    def on_line(printed, line):
        nonlocal bad
        text = doc[int(line) - 1]
        if printed not in text:
            print(f"   !! {printed} is not on line {line}: {text!r}")
            bad += 1

    print("planted errors")
    for cells in table_rows(key, "## Planted errors"):
        printed, line, where, exact, correct, kind, quantity = cells
        printed = printed.strip("`")
        qs = [x.strip().strip("`") for x in quantity.split(" or ")]
        val = value_of(qs[0])
        corr = correct.strip("`").rstrip("%")
        n = len(corr.split(".")[1]) if "." in corr else 0
        r = rnd(val, n)
        ex = digits_of(exact)
        full = mp.nstr(val, 40, strip_zeros=False)
        ok_exact = full.startswith(ex) or mp.almosteq(val, mp.mpf(ex), rel_eps=mp.mpf(10) ** -(len(ex) - 4))
        ok_round = r == corr
        ok_wrong = printed.rstrip("%") != corr
        print(f"  {qs[0]:32s} = {mp.nstr(val, 20):>26s}  key {ex:>18s} -> {corr:>9s}  printed {printed:>9s}"
              f"  {'ok' if ok_exact and ok_round and ok_wrong else 'MISMATCH'}")
        if not (ok_exact and ok_round and ok_wrong):
            bad += 1
        for other in qs[1:]:
            if not mp.almosteq(value_of(other), val, rel_eps=mp.mpf(10) ** -40):
                print(f"   !! alternative {other} differs")
                bad += 1
        on_line(printed, line)

    print("correct figures")
    for cells in table_rows(key, "## Correct figures"):
        printed, line, where, quantity = cells
        printed = printed.strip("`")
        q = quantity.split(" or ")[0].strip().strip("`")
        val = value_of(q)
        pct = printed.endswith("%")
        num = printed.rstrip("%").replace("−", "-")
        if pct:
            val = 100 * val
        n = len(num.split(".")[1]) if "." in num else 0
        r = rnd(val, n)
        ok = r == num
        print(f"  {q:32s} = {mp.nstr(val, 20):>26s}  printed {printed:>9s}  {'ok' if ok else 'MISMATCH'}")
        if not ok:
            bad += 1
        on_line(printed, line)

    print("all rows agree" if not bad else f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for q in sys.argv[2:]:
            print(q, mp.nstr(value_of(q), 25))
        sys.exit(0)
    sys.exit(main())
