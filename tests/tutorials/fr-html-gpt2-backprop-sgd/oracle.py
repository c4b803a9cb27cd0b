#!/usr/bin/env python3
"""Independent oracle for fr-html-gpt2-backprop-sgd: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py           # every KEY.md row: value, rounding, line of DOC.html; exit 1 on a disagreement
    python3 oracle.py --all     # also print every quantity this program computes

The model is read from SPEC.toml (tomllib): one GPT-2 block, pre-LayerNorm, one head,
learned positions, a bias on every projection, GELU in its tanh form, final LayerNorm ln_f,
LM head tied to the embedding E. The last position predicts the target.

    H0 = E[ids] + W_pe                     LN1 = LN(H0)       (biased variance, eps; gamma 1, beta 0)
    Q, K, V = LN1·W + b                    S = Q·Kᵀ/√d        A = causal softmax(S)
    Attn_heads = A·V   Attn = Attn_heads·W_O + b_O            H1 = H0 + Attn
    LN2 = LN(H1)   Z = LN2·W_1 + b_1   R = gelu_tanh(Z)   F = R·W_2 + b_2   H2 = H1 + F
    LN_f = LN(H2)  logits = LN_f[T-1]·Eᵀ  p = softmax  loss = −ln p[target]

Gradients come from a small reverse-mode differentiation over mpmath scalars written here
(checked against central differences at 50 digits for a few parameters), then one SGD step
θ − lr·g on every parameter except the LayerNorm gains and shifts (kept fixed), and the forward
pass again. Rounding is half away from zero on the 45-digit decimal of the value.
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


# ---------------------------------------------------------------- reverse-mode scalars

class N:
    """A scalar node: value, adjoint, and (parent, local derivative) pairs."""
    __slots__ = ("v", "g", "par")

    def __init__(self, v, par=()):
        self.v, self.g, self.par = mp.mpf(v), mp.mpf(0), par

    def __add__(a, b):
        b = b if isinstance(b, N) else N(b)
        return N(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = b if isinstance(b, N) else N(b)
        return N(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return N(b) - a

    def __mul__(a, b):
        b = b if isinstance(b, N) else N(b)
        return N(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, N) else N(b)
        return N(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __neg__(a):
        return N(-a.v, ((a, -1),))


def nexp(a):
    e = mp.exp(a.v)
    return N(e, ((a, e),))


def nlog(a):
    return N(mp.log(a.v), ((a, 1 / a.v),))


def nsqrt(a):
    s = mp.sqrt(a.v)
    return N(s, ((a, 1 / (2 * s)),))


def ntanh(a):
    t = mp.tanh(a.v)
    return N(t, ((a, 1 - t * t),))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
        for p, _ in n.par:
            if id(p) not in seen:
                stack.append((p, False))
    for n in order:
        n.g = mp.mpf(0)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.par:
            p.g += n.g * d


# ---------------------------------------------------------------- the model

def num(x):
    return mp.mpf(str(x))


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, lay = spec["model"], spec["weights"], spec["layer"][0]
    params = {"E": w["E"], "W_pe": w["W_pe"]}
    for k in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "W_1", "b_1", "W_2", "b_2"):
        params[k] = lay[k]
    conv = lambda a: [[num(x) for x in r] for r in a] if isinstance(a[0], list) else [num(x) for x in a]
    params = {k: conv(v) for k, v in params.items()}
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, vocab, ids, tgt, params, num(m["ln_eps"]), num(spec["training"]["lr"])


GELU_C = mp.sqrt(2 / mp.pi)
GELU_A = mp.mpf("0.044715")


def gelu(z):
    return 0.5 * z * (1 + ntanh(GELU_C * (z + GELU_A * z * z * z)))


def layernorm(row, eps):
    d = len(row)
    mu = nsum(row) / d
    var = nsum([(x - mu) * (x - mu) for x in row]) / d
    den = nsqrt(var + eps)
    return mu, var, [(x - mu) / den for x in row]


def forward(P, ids, tgt, eps):
    """P: name -> nested lists of N. Returns a dict of named nodes (lists of N)."""
    d, T = len(P["E"][0]), len(ids)
    mat = lambda A, B: [[nsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))]
                        for i in range(len(A))]
    addb = lambda A, b: [[x + bb for x, bb in zip(r, b)] for r in A]
    o = {}
    o["X"] = [P["E"][i] for i in ids]
    o["H0"] = [[o["X"][t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm(r, eps) for r in o["H0"]]
    o["mu1"], o["var1"], o["LN1"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
    o["Q"] = addb(mat(o["LN1"], P["W_Q"]), P["b_Q"])
    o["K"] = addb(mat(o["LN1"], P["W_K"]), P["b_K"])
    o["V"] = addb(mat(o["LN1"], P["W_V"]), P["b_V"])
    sq = mp.sqrt(d)  # one head: d_k = d
    o["S"] = [[nsum(o["Q"][t][j] * o["K"][s][j] for j in range(d)) / sq for s in range(T)] for t in range(T)]
    ex = [[nexp(o["S"][t][s]) for s in range(t + 1)] for t in range(T)]
    o["A_den"] = [nsum(ex[t]) for t in range(T)]
    o["A"] = [[ex[t][s] / o["A_den"][t] if s <= t else N(0) for s in range(T)] for t in range(T)]
    o["Attn_heads"] = [[nsum(o["A"][t][s] * o["V"][s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
    o["Attn"] = addb(mat(o["Attn_heads"], P["W_O"]), P["b_O"])
    o["H1"] = [[o["H0"][t][j] + o["Attn"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm(r, eps) for r in o["H1"]]
    o["mu2"], o["var2"], o["LN2"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
    o["Z"] = addb(mat(o["LN2"], P["W_1"]), P["b_1"])
    o["R"] = [[gelu(z) for z in r] for r in o["Z"]]
    o["F"] = addb(mat(o["R"], P["W_2"]), P["b_2"])
    o["H2"] = [[o["H1"][t][j] + o["F"][t][j] for j in range(d)] for t in range(T)]
    ln = [layernorm(r, eps) for r in o["H2"]]
    o["mu_f"], o["var_f"], o["LN_f"] = [x[0] for x in ln], [x[1] for x in ln], [x[2] for x in ln]
    o["h_final"] = o["LN_f"][T - 1]
    o["logits"] = [nsum(o["h_final"][j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    o["exp_logits"] = [nexp(z) for z in o["logits"]]
    o["sum_exp"] = nsum(o["exp_logits"])
    o["p"] = [e / o["sum_exp"] for e in o["exp_logits"]]
    o["loss"] = -nlog(o["p"][tgt])
    return o


def nodes(P):
    return {k: [[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v] for k, v in P.items()}


def value(x):
    if isinstance(x, N):
        return x.v
    return [value(y) for y in x]


def grads(x):
    if isinstance(x, N):
        return x.g
    return [grads(y) for y in x]


def run(Pv, ids, tgt, eps):
    """Forward and backward from plain mpf parameters: (values, gradients of params and of nodes)."""
    P = nodes(Pv)
    o = forward(P, ids, tgt, eps)
    backward(o["loss"])
    vals = {k: value(v) for k, v in o.items()}
    gnodes = {k: grads(v) for k, v in o.items() if k not in ("loss",)}
    gparams = {k: grads(v) for k, v in P.items()}
    return vals, gnodes, gparams


def loss_only(Pv, ids, tgt, eps):
    return forward(nodes(Pv), ids, tgt, eps)["loss"].v


def compute():
    spec, vocab, ids, tgt, Pv, eps, lr = load_spec()
    vals, gn, gp = run(Pv, ids, tgt, eps)
    # gradient check of the reverse mode: central differences at 50 digits
    h = mp.mpf("1e-18")
    for name, i, j in (("E", tgt, 0), ("E", ids[0], 2), ("W_1", 1, 2), ("b_2", 1, None), ("W_Q", 0, 3),
                       ("W_pe", 1, 1), ("W_O", 2, 0)):
        def moved(delta):
            Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in Pv.items()}
            if j is None:
                Q[name][i] += delta
            else:
                Q[name][i][j] += delta
            return loss_only(Q, ids, tgt, eps)
        fd = (moved(h) - moved(-h)) / (2 * h)
        an = gp[name][i] if j is None else gp[name][i][j]
        assert abs(fd - an) < mp.mpf("1e-25"), (name, i, j, fd, an)
    # one SGD step on every parameter (LayerNorm gains/shifts are not parameters here: fixed at 1, 0)
    P1 = {}
    for k, v in Pv.items():
        g = gp[k]
        P1[k] = [[x - lr * gg for x, gg in zip(r, gr)] for r, gr in zip(v, g)] if isinstance(v[0], list) \
            else [x - lr * gg for x, gg in zip(v, g)]
    vals1 = forward(nodes(P1), ids, tgt, eps)
    return dict(vocab=vocab, ids=ids, tgt=tgt, P=Pv, eps=eps, lr=lr, vals=vals, gn=gn, gp=gp, P1=P1,
                vals1={k: value(v) for k, v in vals1.items()})


# ---------------------------------------------------------------- names -> values

def table(c):
    """Every quantity of the tutorial under symgpt's reference names (tokens by their strings)."""
    vocab, out = c["vocab"], {}
    tok = lambda v: vocab[v]

    def put(prefix, name, arr, tokrows=False):
        if not isinstance(arr, list):
            out[prefix + name] = arr
        elif not isinstance(arr[0], list):
            for i, x in enumerate(arr):
                out[f"{prefix}{name}[{tok(i) if tokrows else i}]"] = x
        else:
            for i, r in enumerate(arr):
                for j, x in enumerate(r):
                    out[f"{prefix}{name}[{tok(i) if tokrows else i},{j}]"] = x

    for k, v in c["P"].items():
        put("", k, v, tokrows=(k == "E"))
    for k, v in c["vals"].items():
        if k in ("exp_logits",):
            for i, x in enumerate(v):
                out[f"exp(logits[{tok(i)}])"] = x
            continue
        put("", k, v, tokrows=k in ("logits", "p"))
    for k, v in c["gn"].items():
        if k in ("exp_logits", "sum_exp", "X"):
            continue
        put("grad_", k, v, tokrows=k in ("logits", "p"))
    for k, v in c["gp"].items():
        put("grad_", k, v, tokrows=(k == "E"))
    for k, v in c["P1"].items():
        put("sgd[1].", k, v, tokrows=(k == "E"))
    out["sgd[1].loss"] = c["vals1"]["loss"]
    for i, x in enumerate(c["vals1"]["p"]):
        out[f"sgd[1].p[{tok(i)}]"] = x
    # the head path of the tied embedding's gradient, (p - y) h_final
    gl, hf = c["gn"]["logits"], c["vals"]["h_final"]
    for v in range(len(vocab)):
        for j in range(len(hf)):
            out[f"grad_E_head[{tok(v)},{j}]"] = gl[v] * hf[j]
    # a few derived expressions the document prints
    out["sqrt(var1[2] + ln_eps)"] = mp.sqrt(c["vals"]["var1"][2] + c["eps"])
    out["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(c["vals"]["var_f"][2] + c["eps"])
    out["lr"] = c["lr"]
    # the document's side computations: exponentials of row 3 of the scores, GELU's inner argument
    # and its derivative (by the closed formula, checked against the reverse mode), the two means
    # of the LayerNorm backward step, ln 5, the percentages
    for s in range(3):
        out[f"exp(S[2,{s}])"] = mp.exp(c["vals"]["S"][2][s])
    for k, u in enumerate(c["vals"]["Z"][2]):
        a = GELU_C * (u + GELU_A * u ** 3)
        th = mp.tanh(a)
        out[f"gelu_arg[{k}]"] = a
        out[f"1+tanh(gelu_arg[{k}])"] = 1 + th
        dg = (1 + th) / 2 + u * (1 - th * th) * GELU_C * (1 + 3 * GELU_A * u * u) / 2
        out[f"gelu_prime(Z[2,{k}])"] = dg
        assert abs(dg * c["gn"]["R"][2][k] - c["gn"]["Z"][2][k]) < mp.mpf("1e-40")
    gz, z = c["gn"]["h_final"], c["vals"]["h_final"]
    out["mean(grad_h_final)"] = mp.fsum(gz) / len(gz)
    out["mean(grad_h_final*h_final)"] = mp.fsum(a * b for a, b in zip(gz, z)) / len(gz)
    out["log(5)"] = mp.log(5)
    out["100*p[du]"] = 100 * c["vals"]["p"][c["tgt"]]
    out["100*sgd[1].p[du]"] = 100 * c["vals1"]["p"][c["tgt"]]
    return out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- the key

def norm_text(s: str) -> str:
    """A figure as the reader sees it: {,} is a decimal comma, − is a minus, nbsp is a space."""
    return (s.replace("{,}", ",").replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
            .replace("\\,", " ").replace("\\%", "%"))


def to_dec(s: str) -> str:
    return norm_text(s).replace(" ", "").replace(",", ".")


def main() -> int:
    c = compute()
    values = table(c)
    if "--all" in sys.argv:
        for k, v in values.items():
            print(f"{k:<28} {mp.nstr(v, 20)}")
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad, planted, correct = 0, 0, 0
    for r in rows:
        cells = [x.strip() for x in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        sd = to_dec(shown).rstrip("%")
        places = len(sd.split(".")[1]) if "." in sd else 0
        right = rnd(v, places)
        on_line = 1 <= line <= len(doc) and norm_text(printed) in norm_text(doc[line - 1])
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace(",", "."))
            ok = (sd == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and to_dec(printed).rstrip("%") != right and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            correct += 1
            ok = to_dec(printed).rstrip("%") == right and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        if not on_line:
            note += f" (not found on line {line})"
        bad += not ok
        print(f"  {printed:>10}  l.{line:<4} {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
