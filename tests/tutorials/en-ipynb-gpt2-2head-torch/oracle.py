#!/usr/bin/env python3
"""Independent oracle for en-ipynb-gpt2-2head-torch: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # every KEY.md row: its quantity's value, its rounding, and its place in DOC.ipynb

The model is one GPT-2 block (pre-LayerNorm, gelu_new, learned positions wpe, biases everywhere,
2 heads of width 2, tied head, final LayerNorm ln_f), read from SPEC.toml with tomllib:

    H0 = wte[ids] + wpe;  LN1 = ln_1(H0);  [Q|K|V] = LN1·W + b;  S_h = Q_h K_hᵀ/√2 (causal);  A_h = softmax
    Attn_heads = [A_1 V_1 | A_2 V_2];  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn;  LN2 = ln_2(H1)
    Z = LN2·W_1 + b_1;  R = ½Z(1 + tanh(√(2/π)(Z + 0.044715 Z³)));  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = ln_f(H2);  h_final = LN_f[T-1];  logits = h_final·Eᵀ;  p = softmax;  loss = −ln p[target]

Gradients come from a small reverse-mode differentiator on mpmath scalars written here (every
local derivative by hand); one SGD step θ ← θ − lr·g updates every parameter, the LayerNorms'
γ and β included (torch.optim.SGD(model.parameters())), and the forward pass is run again.
Rounding is half away from zero, on the 45-digit decimal of the value. Besides the key's rows,
main() checks every number the notebook's code cells print (133 of them) against its quantity.
"""
from __future__ import annotations

import json
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a scalar reverse-mode differentiator

class Var:
    __slots__ = ("v", "g", "parents")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.g = mp.mpf(0)
        self.parents = parents          # ((node, ∂self/∂node), ...)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, -1),))


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vtanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


def vsqrt(x):
    r = mp.sqrt(x.v)
    return Var(r, ((x, 1 / (2 * r)),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
    while stack:                                   # iterative topological sort
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
        for p, local in n.parents:
            p.g += n.g * local


# ---------------------------------------------------------------- the model

def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    d = m["d"]
    P = {"E": w["E"], "W_pe": w["W_pe"]}
    for k in ("W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"):
        P[k] = L[k]
    for k in ("gamma1", "gamma2", "gamma_f"):
        P[k] = L.get(k, w.get(k, [1] * d))
    for k in ("beta1", "beta2", "beta_f"):
        P[k] = L.get(k, w.get(k, [0] * d))
    # every weight exactly from its decimal text
    conv = lambda a: [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))
    P = {k: conv(v) for k, v in P.items()}
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, vocab, ids, tgt, P, mp.mpf(str(m["ln_eps"])), m["heads"], mp.mpf(str(spec["training"]["lr"]))


def leafify(P):
    return {k: [leafify_row(r) for r in v] if isinstance(v[0], list) else leafify_row(v) for k, v in P.items()}


def leafify_row(r):
    return [Var(x) for x in r]


def layernorm(h, g, b, eps):
    d = len(h)
    mu = vsum(h) / d
    var = vsum([(x - mu) * (x - mu) for x in h]) / d
    r = vsqrt(var + eps)
    return mu, var, [g[j] * ((h[j] - mu) / r) + b[j] for j in range(d)]


def linear(x, W, b):
    return [vsum([x[i] * W[i][j] for i in range(len(x))]) + b[j] for j in range(len(W[0]))]


def forward(P, ids, tgt, eps, nh):
    T, d = len(ids), len(P["E"][0])
    dk = d // nh
    c = mp.sqrt(2 / mp.pi)
    n = {}
    n["H0"] = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln1 = [layernorm(r, P["gamma1"], P["beta1"], eps) for r in n["H0"]]
    n["mu1"], n["var1"], n["LN1"] = [x[0] for x in ln1], [x[1] for x in ln1], [x[2] for x in ln1]
    n["Q"] = [linear(r, P["W_Q"], P["b_Q"]) for r in n["LN1"]]
    n["K"] = [linear(r, P["W_K"], P["b_K"]) for r in n["LN1"]]
    n["V"] = [linear(r, P["W_V"], P["b_V"]) for r in n["LN1"]]
    S = [[[None] * T for _ in range(T)] for _ in range(nh)]
    A = [[[Var(0)] * T for _ in range(T)] for _ in range(nh)]
    den = [[None] * T for _ in range(nh)]
    heads = [[None] * d for _ in range(T)]
    for h in range(nh):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            for s in range(T):
                S[h][t][s] = vsum([n["Q"][t][j] * n["K"][s][j] for j in cols]) / mp.sqrt(dk)
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den[h][t] = vsum(ex)
            for s in range(t + 1):
                A[h][t][s] = ex[s] / den[h][t]
            for j in cols:
                heads[t][j] = vsum([A[h][t][s] * n["V"][s][j] for s in range(t + 1)])
    n["S"], n["A"], n["A_den"], n["Attn_heads"] = S, A, den, heads
    n["Attn"] = [linear(r, P["W_O"], P["b_O"]) for r in heads]
    n["H1"] = [[n["H0"][t][j] + n["Attn"][t][j] for j in range(d)] for t in range(T)]
    ln2 = [layernorm(r, P["gamma2"], P["beta2"], eps) for r in n["H1"]]
    n["mu2"], n["var2"], n["LN2"] = [x[0] for x in ln2], [x[1] for x in ln2], [x[2] for x in ln2]
    n["Z"] = [linear(r, P["W_1"], P["b_1"]) for r in n["LN2"]]
    k3 = mp.mpf("0.044715")
    n["R"] = [[z * (vtanh((z + z * z * z * k3) * c) + 1) * mp.mpf("0.5") for z in r] for r in n["Z"]]
    n["F"] = [linear(r, P["W_2"], P["b_2"]) for r in n["R"]]
    n["H2"] = [[n["H1"][t][j] + n["F"][t][j] for j in range(d)] for t in range(T)]
    lnf = [layernorm(r, P["gamma_f"], P["beta_f"], eps) for r in n["H2"]]
    n["mu_f"], n["var_f"], n["LN_f"] = [x[0] for x in lnf], [x[1] for x in lnf], [x[2] for x in lnf]
    n["h_final"] = n["LN_f"][T - 1]
    n["logits"] = [vsum([n["h_final"][j] * P["E"][v][j] for j in range(d)]) for v in range(len(P["E"]))]
    ex = [vexp(z) for z in n["logits"]]
    n["sum_exp"] = vsum(ex)
    n["p"] = [e / n["sum_exp"] for e in ex]
    n["loss"] = -vlog(n["p"][tgt])
    return n


def flat(prefix, x, out, idx=()):
    if isinstance(x, list):
        for i, e in enumerate(x):
            flat(prefix, e, out, idx + (i,))
    else:
        out[prefix + ("[" + ",".join(map(str, idx)) + "]" if idx else "")] = x


def compute():
    spec, vocab, ids, tgt, P0, eps, nh, lr = load_spec()
    P = leafify(P0)
    n = forward(P, ids, tgt, eps, nh)
    backward(n["loss"])
    vals = {}
    for k, x in n.items():
        flat(k, x, vals)
    vals = {k: v.v for k, v in vals.items() if v is not None}
    for k in ("Attn", "H1", "logits", "h_final", "LN_f", "H2", "Attn_heads"):
        g = {}
        flat("grad_" + k, n[k], g)
        vals.update({kk: vv.g for kk, vv in g.items()})
    for k, x in P.items():
        g, v = {}, {}
        flat("grad_" + k, x, g)
        flat(k, x, v)
        vals.update({kk: vv.g for kk, vv in g.items()})
        vals.update({kk: vv.v for kk, vv in v.items()})
    # one SGD step on every parameter
    new = {k: [[e.v - lr * e.g for e in r] for r in x] if isinstance(x[0], list) else [e.v - lr * e.g for e in x]
           for k, x in P.items()}
    n1 = forward(leafify(new), ids, tgt, eps, nh)
    for k, x in new.items():
        f = {}
        flat("sgd[1]." + k, x, f)
        vals.update(f)
    f = {}
    for k in ("logits", "p"):
        flat("sgd[1]." + k, n1[k], f)
    vals.update({kk: vv.v for kk, vv in f.items()})
    vals["sgd[1].loss"] = n1["loss"].v
    vals["ln_eps"] = eps
    vals["sqrt(var1[2] + ln_eps)"] = mp.sqrt(vals["var1[2]"] + eps)
    vals["var1_unbiased[2]"] = vals["var1[2]"] * 4 / 3
    # the other figures the hand checks print: exp of the scores, ln Σe^z, the pieces of gelu_new
    for s in range(3):
        vals[f"exp(S[0,2,{s}])"] = mp.exp(vals[f"S[0,2,{s}]"])
    vals["log(sum_exp)"] = mp.log(vals["sum_exp"])
    z = vals["Z[2,1]"]
    vals["sqrt(2/pi)"] = mp.sqrt(2 / mp.pi)
    vals["Z[2,1] + 0.044715*Z[2,1]**3"] = u = z + mp.mpf("0.044715") * z ** 3
    vals["tanh(sqrt(2/pi)*u)"] = mp.tanh(mp.sqrt(2 / mp.pi) * u)
    vals["sqrt(2/pi)*u"] = mp.sqrt(2 / mp.pi) * u
    # a token may stand for its id in the first index of E, p, logits and their gradients
    for k in list(vals):
        m = re.match(r"^((?:sgd\[1\]\.)?(?:grad_)?(?:E|p|logits))\[(\d+)(.*)\]$", k)
        if m:
            vals[f"{m.group(1)}[{vocab[int(m.group(2))]}{m.group(3)}]"] = vals[k]
    return vals, vocab


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def doc_lines():
    return (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")


OUTPUT_REFS = [  # every number the code cells print, in order, and its quantity
    *[f"LN1[{t},{j}]" for t in range(3) for j in range(4)],
    *[f"A[{h},{t},{s}]" for h in range(2) for t in range(3) for s in range(3)],
    *[f"Attn_heads[2,{j}]" for j in range(4)], *[f"Attn[2,{j}]" for j in range(4)],
    *[f"R[2,{k}]" for k in range(8)], *[f"h_final[{j}]" for j in range(4)],
    *[f"logits[{v}]" for v in range(5)], *[f"p[{v}]" for v in range(5)], "loss",
    *[f"grad_logits[{v}]" for v in range(5)], *[f"grad_gamma_f[{j}]" for j in range(4)],
    *[f"grad_Attn[{t},{j}]" for t in range(3) for j in range(4)],
    *[f"grad_W_O[{i},{j}]" for i in range(4) for j in range(4)],
    *[f"grad_E[{v},{j}]" for v in range(5) for j in range(4)],
    *[f"sgd[1].gamma_f[{j}]" for j in range(4)], *[f"sgd[1].E[3,{j}]" for j in range(4)],
    "loss", "sgd[1].loss", *[f"sgd[1].p[{v}]" for v in range(5)],
]


def printed_outputs(lines):
    """(line, figure) of every number in the code cells' outputs, in order."""
    nb = json.loads("\n".join(lines))
    found, at = [], 0
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            for text in o.get("text", o.get("data", {}).get("text/plain", [])):
                at = next(i for i in range(at, len(lines)) if json.dumps(text, ensure_ascii=False) in lines[i])
                text = re.sub(r"grad_fn=<\w+>|dtype=torch\.float64|Parameter containing:", "", text)
                found += [(at + 1, f) for f in re.findall(r"-?\d+\.\d+", text)]
    return found


def main() -> int:
    vals, vocab = compute()
    lines = doc_lines()
    json.loads("\n".join(lines))                     # DOC.ipynb must be valid JSON
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((nm for nm in names if nm in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and printed.replace("%", "") in lines[line - 1]
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed and on_line else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    # every figure the code cells print is the correct rounding of its quantity, but the planted ones
    planted_at = {(int(c[1]), c[0].strip("`")) for c in
                  ([x.strip() for x in r.strip().strip("|").split("|")] for r in rows) if len(c) == 7}
    figs = printed_outputs(lines)
    assert len(figs) == len(OUTPUT_REFS), (len(figs), len(OUTPUT_REFS))
    off = 0
    for (line, f), ref in zip(figs, OUTPUT_REFS):
        right = rnd(vals[ref], len(f.split(".")[1]))
        right = right.lstrip("-") if right.lstrip("-") == f.lstrip("-") and not right.strip("-0.") else right
        if right != f and (line, f) not in planted_at:
            print(f"  OUTPUT line {line}: {f} is not the rounding of {ref} ({right})")
            off += 1
    print(f"{len(figs)} printed tensor figures checked, {off} wrong outside the planted ones")
    bad += off
    planted = sum(1 for r in rows if len(r.strip().strip('|').split('|')) == 7)
    print(f"{planted} planted rows, {len(rows) - planted} correct rows")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
