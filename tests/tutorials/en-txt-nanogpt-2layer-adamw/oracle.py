#!/usr/bin/env python3
"""Independent mpmath oracle for en-txt-nanogpt-2layer-adamw (no symgpt).

    python3 oracle.py     # computes every figure of DOC.txt's model from SPEC.toml and checks KEY.md

Model (nanoGPT block, as SPEC.toml says): x0[t] = E[tok_t] + W_pe[t]; per layer
    a = LN(x) ; q,k,v = a W + b ; S = q k^T / sqrt(4) ; causal softmax ; y = (att v) W_O + b_O
    h = x + y ; a2 = LN(h) ; z = a2 W_1 + b_1 ; g = 0.5 z (1 + erf(z/sqrt 2)) ; f = g W_2 + b_2 ; x' = h + f
then lnf = LN(x2[last]), logits = lnf E^T, p = softmax, loss = -ln p[target].
LN: biased variance, eps = ln_eps, gamma = 1, beta = 0 (not trained).
Gradients: a small scalar reverse-mode differentiator on mpmath numbers (checked against mp.diff).
AdamW: torch.optim.AdamW, first step, decoupled decay on every trained parameter (everything but LN).
Rounding: half away from zero on the 45-digit decimal.
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
    return "0." + "0" * n if s.lstrip("-") == "0." + "0" * n and n > 0 else s


# ------------------------------------------------------------ reverse-mode scalars
class Var:
    __slots__ = ("val", "parents", "grad")

    def __init__(self, val, parents=()):
        self.val = val if isinstance(val, mp.mpf) else mp.mpf(val)
        self.parents = parents
        self.grad = mp.mpf(0)

    def __add__(self, o):
        o = lift(o)
        return Var(self.val + o.val, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return Var(self.val - o.val, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return Var(self.val * o.val, ((self, o.val), (o, self.val)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.val / o.val, ((self, 1 / o.val), (o, -self.val / o.val ** 2)))

    def __neg__(self):
        return Var(-self.val, ((self, -1),))


def lift(x):
    return x if isinstance(x, Var) else Var(mp.mpf(x))


def vexp(x):
    e = mp.exp(x.val)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.val), ((x, 1 / x.val),))


def vsqrt(x):
    r = mp.sqrt(x.val)
    return Var(r, ((x, 1 / (2 * r)),))


def verf(x):
    return Var(mp.erf(x.val), ((x, 2 / mp.sqrt(mp.pi) * mp.exp(-x.val ** 2)),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.val for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
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
    out.grad = mp.mpf(1)
    for node in reversed(order):
        for p, lg in node.parents:
            p.grad += node.grad * lg


# ------------------------------------------------------------ the model
def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    conv = lambda a: [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))
    w = spec["weights"]
    params = {"E": conv(w["E"]), "W_pe": conv(w["W_pe"])}
    for l, layer in enumerate(spec["layer"]):
        for k, v in layer.items():
            params[f"l{l}.{k}"] = conv(v)
    return spec, params



def forward(spec, P, track=False):
    """P: dict name -> nested lists of mpf (or Var when track). Returns dict of named values (Var or mpf)."""
    m = spec["model"]
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    d, T, L = m["d"], len(ids), m["layers"]
    eps = mp.mpf(str(m["ln_eps"]))
    exp_, log_, sqrt_, erf_ = (vexp, vlog, vsqrt, verf) if track else (mp.exp, mp.log, mp.sqrt, mp.erf)
    sum_ = vsum if track else (lambda xs: mp.fsum(list(xs)))
    out = {}

    def put(name, M):
        out[name] = M

    def LN(rows, pre):
        mus, vars_, outs = [], [], []
        for r in rows:
            mu = sum_(r) / d
            var = sum_([(x - mu) * (x - mu) for x in r]) / d
            sd = sqrt_(var + eps)
            mus.append(mu), vars_.append(var), outs.append([(x - mu) / sd for x in r])
        return mus, vars_, outs

    def mm(A, B, b=None):
        return [[sum_([A[i][k] * B[k][j] for k in range(len(B))]) + (b[j] if b is not None else 0)
                 for j in range(len(B[0]))] for i in range(len(A))]

    X = [[P["E"][ids[t]][j] for j in range(d)] for t in range(T)]
    H = [[X[t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    put("H0", H)
    for l in range(L):
        p = f"l{l}."
        mu1, var1, A1 = LN(H, p)
        put(p + "mu1", mu1), put(p + "var1", var1), put(p + "LN1", A1)
        Q = mm(A1, P[p + "W_Q"], P[p + "b_Q"])
        K = mm(A1, P[p + "W_K"], P[p + "b_K"])
        V = mm(A1, P[p + "W_V"], P[p + "b_V"])
        put(p + "Q", Q), put(p + "K", K), put(p + "V", V)
        S = [[sum_([Q[t][j] * K[s][j] for j in range(d)]) / 2 for s in range(T)] for t in range(T)]
        put(p + "S", S)
        den = [sum_([exp_(S[t][s]) for s in range(t + 1)]) for t in range(T)]
        A = [[exp_(S[t][s]) / den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        put(p + "A_den", den), put(p + "A", A)
        Ah = [[sum_([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
        put(p + "Attn_heads", Ah)
        Y = mm(Ah, P[p + "W_O"], P[p + "b_O"])
        put(p + "Attn", Y)
        H1 = [[H[t][j] + Y[t][j] for j in range(d)] for t in range(T)]
        put(p + "H1", H1)
        mu2, var2, A2 = LN(H1, p)
        put(p + "mu2", mu2), put(p + "var2", var2), put(p + "LN2", A2)
        Z = mm(A2, P[p + "W_1"], P[p + "b_1"])
        R = [[z * (1 + erf_(z / mp.sqrt(2))) / 2 for z in r] for r in Z]
        F = mm(R, P[p + "W_2"], P[p + "b_2"])
        put(p + "Z", Z), put(p + "R", R), put(p + "F", F)
        H = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        put(p + "H2", H)
    muf, varf, LNf = LN(H, "f")
    put("mu_f", muf), put("var_f", varf), put("LN_f", LNf)
    h = LNf[T - 1]
    logits = [sum_([h[j] * P["E"][v][j] for j in range(d)]) for v in range(len(vocab))]
    se = sum_([exp_(z) for z in logits])
    probs = [exp_(z) / se for z in logits]
    loss = -log_(probs[tgt])
    put("logits", logits), put("sum_exp", se), put("p", probs), put("loss", loss)
    return out


def val(x):
    if isinstance(x, list):
        return [val(y) for y in x]
    return x.val if isinstance(x, Var) else x


def grads(spec, params):
    Pv = {k: [[Var(x) for x in r] if isinstance(r, list) else Var(r) for r in M] for k, M in params.items()}
    f = forward(spec, Pv, track=True)
    backward(f["loss"])
    G = {k: [[x.grad for x in r] if isinstance(r, list) else r.grad for r in M] for k, M in Pv.items()}
    # node gradients for a few intermediate tensors
    nodeg = {}
    for name in ("logits", "l0.Z", "l0.LN2", "LN_f"):
        nodeg["grad_" + name] = [[x.grad for x in r] if isinstance(r, list) else r.grad for r in f[name]]
    return {k: val(v) for k, v in f.items()}, G, nodeg


def adamw_step(spec, params, G):
    a = spec["training"]["adamw"]
    lr, b1, b2, eps, wd = (mp.mpf(str(a[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    new, st = {}, {}
    for k, M in params.items():
        trained = not re.search(r"(gamma|beta)", k)

        def one(th, g, idx):
            if not trained:
                return th
            m = (1 - b1) * g
            v = (1 - b2) * g * g
            mh, vh = m / (1 - b1), v / (1 - b2)
            upd = lr * mh / (mp.sqrt(vh) + eps)
            dec = lr * wd * th
            st[(k,) + idx] = dict(m=m, v=v, mhat=mh, vhat=vh, update=upd, decay=dec, new=th - dec - upd)
            return th - dec - upd

        new[k] = [[one(th, g, (i, j)) for j, (th, g) in enumerate(zip(r, gr))] if isinstance(r, list)
                  else one(r, gr, (i,)) for i, (r, gr) in enumerate(zip(M, G[k]))]
    return new, st


def compute():
    spec, params = load_spec()
    vocab = spec["model"]["vocab"]
    f, G, nodeg = grads(spec, params)
    # cross-check two gradients with mp.diff
    for name, i, j in (("l0.W_Q", 1, 2), ("l0.W_1", 2, 5)):
        def L(x, name=name, i=i, j=j):
            P2 = {k: [list(r) if isinstance(r, list) else r for r in M] for k, M in params.items()}
            P2[name][i][j] = x
            return forward(spec, P2)["loss"]
        nd = mp.diff(L, params[name][i][j])
        assert abs(nd - G[name][i][j]) < mp.mpf("1e-30"), (name, nd, G[name][i][j])
    new, st = adamw_step(spec, params, G)
    after = forward(spec, new)
    tok = lambda v: vocab[v]
    vals = {}

    def add(prefix, M, tokdim=None):
        if isinstance(M, list):
            for i, r in enumerate(M):
                if isinstance(r, list):
                    for j, x in enumerate(r):
                        vals[f"{prefix}[{i},{j}]"] = x
                else:
                    vals[f"{prefix}[{tok(i) if tokdim else i}]"] = r
        else:
            vals[prefix] = M

    for k, M in f.items():
        add(k, M, tokdim=k in ("logits", "p"))
    for k, M in G.items():
        add("grad_" + k, M)
    for k, M in nodeg.items():
        add(k, M, tokdim=k == "grad_logits")
    for (k, *idx), d in st.items():
        ix = ",".join(str(x) for x in idx)
        for q, x in d.items():
            if q == "new":
                vals[f"adamw[1].{k}[{ix}]"] = x
            else:
                vals[f"adamw[1].{q}[{k},{ix}]"] = x
    vals["adamw[1].loss"] = after["loss"]
    tgt = spec["data"]["target"]
    vals[f"adamw[1].p[{tgt}]"] = after["p"][vocab.index(tgt)]
    # token-named aliases for E rows
    for key in list(vals):
        m_ = re.match(r"^(.*\b(?:E|grad_E))\[(\d+),(\d+)\]$", key)
        if m_:
            vals[f"{m_.group(1)}[{vocab[int(m_.group(2))]},{m_.group(3)}]"] = vals[key]
        m_ = re.match(r"^(adamw\[1\]\.\w+)\[E,(\d+),(\d+)\]$", key)
        if m_:
            vals[f"{m_.group(1)}[E,{vocab[int(m_.group(2))]},{m_.group(3)}]"] = vals[key]
    # the post's side figures: exp of the logits, erf inside GELU, a sum of squares, the loss drop
    for v in vocab:
        vals[f"exp(logits[{v}])"] = mp.exp(vals[f"logits[{v}]"])
    for k in range(spec["model"]["d_ff"]):
        vals[f"erf(l1.Z[2,{k}]/sqrt(2))"] = mp.erf(vals[f"l1.Z[2,{k}]"] / mp.sqrt(2))
    vals["4*l0.var1[0]"] = 4 * vals["l0.var1[0]"]
    vals["loss - adamw[1].loss"] = vals["loss"] - vals["adamw[1].loss"]
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    for l in range(2):
        for t in range(3):
            for n in ("var1", "var2"):
                vals[f"sqrt(l{l}.{n}[{t}] + ln_eps)"] = mp.sqrt(vals[f"l{l}.{n}[{t}]"] + eps)
    return vals


def main() -> int:
    vals = compute()
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(k, mp.nstr(v, 20))
        return 0
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = shown.rstrip("%")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
                  and printed.rstrip("%") != rnd(v, len(printed.rstrip('%').split('.')[1])))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note = "NOT ON LINE " + str(line)
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>12}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    n_planted = sum(1 for r in rows if len([c for c in r.strip().strip('|').split('|')]) == 7)
    if n_planted != 8:
        print(f"expected 8 planted rows, found {n_planted}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
