#!/usr/bin/env python3
"""Independent oracle for nl-ipynb-gpt2-2layer: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # computes the model from SPEC.toml and checks every row of KEY.md against DOC.ipynb

Model (GPT-2 wiring, as SPEC.toml's model.arch = "gpt2"): H0 = E[ids] + W_pe[t]; per block l (pre-norm)
LN1 = LN(H) (biased variance, eps, no gain/shift), Q/K/V = LN1·W + b, S = Q·Kᵀ/√4, causal softmax A,
Attn = (A·V)·W_O + b_O, H1 = H + Attn, LN2 = LN(H1), Z = LN2·W_1 + b_1, R = GELU_tanh(Z), F = R·W_2 + b_2,
H2 = H1 + F; LN_f of the last block's H2, logits = LN_f[T-1]·Eᵀ (tied), p = softmax, loss = -ln p[target].
Gradient by a small reverse-mode autodiff over mpf scalars; SGD θ - lr·g on E, W_pe and every block
matrix and bias (LayerNorms have no learnable parameters here). Sampling: softmax(logits/T); top-k keeps
the k largest and renormalises. Rounding is half away from zero on the exact value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- reverse-mode autodiff on mpf scalars

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v, self.parents, self.g = mp.mpf(v), parents, mp.mpf(0)

    @staticmethod
    def lift(o):
        return o if isinstance(o, Var) else Var(o)

    def __add__(self, o):
        o = Var.lift(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __sub__(self, o):
        return self + (-Var.lift(o))

    def __rsub__(self, o):
        return Var.lift(o) - self

    def __mul__(self, o):
        o = Var.lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = Var.lift(o)
        return self * Var(1 / o.v, ((o, -1 / o.v ** 2),))


def v_exp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def v_log(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def v_sqrt(x):
    r = mp.sqrt(x.v)
    return Var(r, ((x, 1 / (2 * r)),))


def v_tanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


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
        stack.extend((p, False) for p, _ in n.parents)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, w in n.parents:
            p.g += n.g * w


MP_OPS = dict(exp=mp.exp, log=mp.log, sqrt=mp.sqrt, tanh=mp.tanh)
VAR_OPS = dict(exp=v_exp, log=v_log, sqrt=v_sqrt, tanh=v_tanh)


# ---------------------------------------------------------------- the model

def total(xs):
    s = xs[0]
    for x in xs[1:]:
        s = s + x
    return s


def dot(a, b):
    return total([x * y for x, y in zip(a, b)])


def vecmat(x, W, b):
    return [dot(x, [W[i][j] for i in range(len(W))]) + b[j] for j in range(len(W[0]))]


def layernorm(row, eps, ops):
    d = len(row)
    mu = total(row) * (mp.mpf(1) / d)
    var = total([(x - mu) * (x - mu) for x in row]) * (mp.mpf(1) / d)
    den = ops["sqrt"](var + eps)
    return mu, var, [(x - mu) / den for x in row]


def gelu_tanh(z, ops):
    c = mp.sqrt(2 / mp.pi)
    return mp.mpf("0.5") * z * (1 + ops["tanh"](c * (z + mp.mpf("0.044715") * z * z * z)))


def forward(P, ids, tgt, eps, ops):
    T, d = len(ids), len(P["E"][0])
    dk = d  # one head
    f = {"X": [P["E"][i][:] for i in ids], "PE": [P["W_pe"][t][:] for t in range(T)]}
    H = [[f["X"][t][j] + f["PE"][t][j] for j in range(d)] for t in range(T)]
    f["H0"] = H
    for l, L in enumerate(P["layers"]):
        pre = f"l{l}."
        ln = [layernorm(r, eps, ops) for r in H]
        f[pre + "mu1"], f[pre + "var1"], f[pre + "LN1"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
        X = f[pre + "LN1"]
        Q, K, V = ([vecmat(r, L["W_" + c], L["b_" + c]) for r in X] for c in "QKV")
        f[pre + "Q"], f[pre + "K"], f[pre + "V"] = Q, K, V
        S = [[dot(Q[t], K[s]) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
        A, den = [], []
        for t in range(T):
            ex = [ops["exp"](S[t][s]) for s in range(t + 1)]
            den.append(total(ex))
            A.append([e / den[-1] for e in ex] + [mp.mpf(0)] * (T - t - 1))
        f[pre + "S"], f[pre + "A_den"], f[pre + "A"] = S, den, A
        AH = [[total([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
        Attn = [vecmat(r, L["W_O"], L["b_O"]) for r in AH]
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        f[pre + "Attn_heads"], f[pre + "Attn"], f[pre + "H1"] = AH, Attn, H1
        ln = [layernorm(r, eps, ops) for r in H1]
        f[pre + "mu2"], f[pre + "var2"], f[pre + "LN2"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
        Z = [vecmat(r, L["W_1"], L["b_1"]) for r in f[pre + "LN2"]]
        R = [[gelu_tanh(z, ops) for z in r] for r in Z]
        F = [vecmat(r, L["W_2"], L["b_2"]) for r in R]
        H = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        f[pre + "Z"], f[pre + "R"], f[pre + "F"], f[pre + "H2"] = Z, R, F, H
    ln = [layernorm(r, eps, ops) for r in H]
    f["mu_f"], f["var_f"], f["LN_f"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
    f["h_final"] = f["LN_f"][-1]
    f["logits"] = [dot(f["h_final"], P["E"][v]) for v in range(len(P["E"]))]
    ex = [ops["exp"](z) for z in f["logits"]]
    f["sum_exp"] = total(ex)
    f["p"] = [e / f["sum_exp"] for e in ex]
    f["loss"] = -ops["log"](f["p"][tgt])
    return f


TRAINED = ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "W_1", "b_1", "W_2", "b_2")


def tree(fn, *ts):
    if isinstance(ts[0], dict):
        return {k: tree(fn, *(t[k] for t in ts)) for k in ts[0]}
    if isinstance(ts[0], list):
        return [tree(fn, *xs) for xs in zip(*ts)]
    return fn(*ts)


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=str)
    M = lambda a: tree(lambda x: mp.mpf(str(x)), a)  # noqa: E731  (decimal text, read exactly to 50 digits)
    w = spec["weights"]
    P = {"E": M(w["E"]), "W_pe": M(w["W_pe"]), "layers": [{k: M(L[k]) for k in TRAINED} for L in spec["layer"]]}
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    return spec, P, vocab, ids, vocab.index(spec["data"]["target"]), mp.mpf(str(spec["model"]["ln_eps"]))


def gradient(P, ids, tgt, eps):
    VP = tree(Var, P)
    backward(forward(VP, ids, tgt, eps, VAR_OPS)["loss"])
    return tree(lambda v: v.g, VP)


def named(f, vocab, prefix=""):
    """Flatten a forward dict into symgpt-style names: l0.Q[2,0], p[op], loss, ..."""
    out = {}
    for k, val in f.items():
        if not isinstance(val, list):
            out[prefix + k] = val
            continue
        tok = k in ("logits", "p")
        for i, x in enumerate(val):
            if isinstance(x, list):
                for j, y in enumerate(x):
                    out[f"{prefix}{k}[{i},{j}]"] = y
            else:
                out[f"{prefix}{k}[{vocab[i] if tok else i}]"] = x
    return out


def params_named(P, vocab, prefix=""):
    out = {}
    for name in ("E", "W_pe"):
        for i, r in enumerate(P[name]):
            for j, x in enumerate(r):
                out[f"{prefix}{name}[{vocab[i] if name == 'E' else i},{j}]"] = x
    for l, L in enumerate(P["layers"]):
        for name, val in L.items():
            if isinstance(val[0], list):
                for i, r in enumerate(val):
                    for j, x in enumerate(r):
                        out[f"{prefix}l{l}.{name}[{i},{j}]"] = x
            else:
                for i, x in enumerate(val):
                    out[f"{prefix}l{l}.{name}[{i}]"] = x
    return out


def compute():
    spec, P, vocab, ids, tgt, eps = load()
    f = forward(P, ids, tgt, eps, MP_OPS)
    vals = named(f, vocab)
    G = gradient(P, ids, tgt, eps)
    for k, v in params_named(G, vocab).items():  # grad_E[op,2], grad_l1.b_2[0], ...
        vals["grad_" + k] = v
    for v in range(len(vocab)):
        vals[f"grad_logits[{vocab[v]}]"] = f["p"][v] - (1 if v == tgt else 0)
    lr = mp.mpf(str(spec["training"]["lr"]))
    P1 = tree(lambda a, g: a - lr * g, P, G)
    f1 = forward(P1, ids, tgt, eps, MP_OPS)
    vals.update(named(f1, vocab, "sgd[1]."))
    vals.update(params_named(P1, vocab, "sgd[1]."))
    for T in spec["sampling"]["temperatures"]:
        ex = [mp.exp(z / mp.mpf(str(T))) for z in f["logits"]]
        for v in range(len(vocab)):
            vals[f"softmax_T({T}, {vocab[v]})"] = ex[v] / total(ex)
    k = spec["sampling"]["top_k"]
    keep = sorted(range(len(vocab)), key=lambda v: (-f["p"][v], v))[:k]
    for v in range(len(vocab)):
        vals[f"topk({k}, {vocab[v]})"] = f["p"][v] / total([f["p"][u] for u in keep]) if v in keep else mp.mpf(0)
    # hand-worked by-products the tutorial prints
    vals["exp(l0.S[2,0])"], vals["exp(l0.S[2,1])"], vals["exp(l0.S[2,2])"] = (mp.exp(s) for s in f["l0.S"][2])
    vals["sqrt(l0.var1[2] + ln_eps)"] = mp.sqrt(f["l0.var1"][2] + eps)
    for v in range(len(vocab)):
        vals[f"exp(logits[{vocab[v]}])"] = mp.exp(f["logits"][v])
    vals["ln(sum_exp)"] = mp.log(f["sum_exp"])
    for j in range(len(P["E"][0])):
        vals[f"l1.H2[2,{j}] - mu_f[2]"] = f["l1.H2"][2][j] - f["mu_f"][2]
    return vals


# ---------------------------------------------------------------- checking KEY.md against DOC.ipynb

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse(printed: str):
    """'-0.5550', '−0.5550', '3,69%' -> (Decimal text with a point, places, is_percent, uses_comma)"""
    s = printed.replace("\u2212", "-")
    pct = s.endswith("%")
    s = s.rstrip("%")
    comma = "," in s
    s = s.replace(",", ".")
    places = len(s.split(".")[1]) if "." in s else 0
    return s, places, pct, comma


def main() -> int:
    vals = compute()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    bad = 0
    for r in key:
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        msgs = []
        if ref is None:
            print(f"  {printed:>10}  no oracle value for {cells[-1]}")
            bad += 1
            continue
        s, places, pct, comma = parse(printed)
        v = vals[ref] * (100 if pct else 1)
        right = rnd(v, places)
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            msgs.append(f"NOT ON LINE {line}")
        if len(cells) == 7:  # planted error
            shown, sp, _, _ = parse(cells[4].strip("`"))
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            if shown != rnd(v, sp):
                msgs.append(f"KEY'S CORRECT ROUNDING {cells[4]} IS NOT {rnd(v, sp)}")
            if abs(exact - v) > mp.mpf("1e-10") * max(abs(v), 1):
                msgs.append("KEY'S EXACT VALUE DISAGREES")
            if Decimal(right) == Decimal(s):
                msgs.append("PLANTED FIGURE IS ACTUALLY CORRECT")
            note = "planted, key agrees"
        else:
            if Decimal(right) != Decimal(s):
                msgs.append(f"NOT THE CORRECT ROUNDING ({right})")
            note = "correct"
        bad += bool(msgs)
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<9} "
              + ("; ".join(msgs) if msgs else note))
    planted = sum(1 for r in key if r.startswith("| `") and len(r.strip().strip("|").split("|")) == 7)
    print(f"{planted} planted rows")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
