#!/usr/bin/env python3
"""Independent oracle for en-txt-gpt2-heads-gradcheck: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row: quantity, value, rounding, line check
    python oracle.py --all    # also print every named quantity (symgpt's names, 0-based)

The model is read from SPEC.toml with tomllib: a one-block GPT-2 (pre-LayerNorm, two heads,
tanh GELU, learned positions, biases on every projection, final LayerNorm, tied head), the
cross-entropy at the last position.  Gradients come from a small reverse-mode differentiation
over mpmath scalars; the gradient check is the central difference (L(θ+h) − L(θ−h))/2h with
exact h = 1e-4; SGD updates every weight and bias (θ − lr·g) but not the LayerNorm gains and
shifts, training.steps times.  Rounding is half away from zero on the 45-digit decimal.
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
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- reverse-mode scalars

class N:
    __slots__ = ("v", "par", "g")

    def __init__(self, v, par=()):
        self.v, self.par, self.g = v, par, mp.mpf(0)

    def __add__(a, b):
        b = c(b)
        return N(a.v + b.v, ((a, 1), (b, 1)))
    __radd__ = __add__

    def __sub__(a, b):
        b = c(b)
        return N(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return c(b) - a

    def __mul__(a, b):
        b = c(b)
        return N(a.v * b.v, ((a, b.v), (b, a.v)))
    __rmul__ = __mul__

    def __truediv__(a, b):
        b = c(b)
        return N(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __neg__(a):
        return N(-a.v, ((a, -1),))


def c(x):
    return x if isinstance(x, N) else N(mp.mpf(x))


def exp(a):
    e = mp.exp(a.v)
    return N(e, ((a, e),))


def log(a):
    return N(mp.log(a.v), ((a, 1 / a.v),))


def sqrt(a):
    r = mp.sqrt(a.v)
    return N(r, ((a, 1 / (2 * r)),))


def tanh(a):
    t = mp.tanh(a.v)
    return N(t, ((a, 1 - t * t),))


def total(xs):
    xs = list(xs)
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        stack.extend((p, False) for p, _ in n.par if id(p) not in seen)
    for n in order:
        n.g = mp.mpf(0)
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.par:
            p.g += n.g * local


# ---------------------------------------------------------------- the model

def load():
    with open(HERE / "SPEC.toml", "rb") as fh:
        spec = tomllib.load(fh)
    conv = lambda a: [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))
    params = {"E": conv(spec["weights"]["E"]), "W_pe": conv(spec["weights"]["W_pe"])}
    params.update({k: conv(v) for k, v in spec["layer"][0].items()})
    return spec, params


TRAINED = ("E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2")


def forward(spec, params):
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    d, H = spec["model"]["d"], spec["model"]["heads"]
    dk, T, eps = d // H, len(ids), mp.mpf(str(spec["model"]["ln_eps"]))
    Pn = {k: [[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v]
          for k, v in params.items()}

    def layernorm(rows):
        mus, vs, outs = [], [], []
        for r in rows:
            mu = total(r) / d
            var = total((x - mu) * (x - mu) for x in r) / d
            s = sqrt(var + eps)
            mus.append(mu), vs.append(var), outs.append([(x - mu) / s for x in r])
        return mus, vs, outs

    def linear(rows, W, b):
        return [[total(r[i] * W[i][j] for i in range(len(r))) + b[j] for j in range(len(W[0]))] for r in rows]

    X = [[Pn["E"][ids[t]][j] + Pn["W_pe"][t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(X)
    Q, K, V = (linear(LN1, Pn[w], Pn[b]) for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")))
    S, A, A_den = [], [], []
    O = [[None] * d for _ in range(T)]
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[total(Q[t][j] * K[s][j] for j in cols) * (1 / mp.sqrt(dk)) for s in range(T)] for t in range(T)]
        Ah, dh = [], []
        for t in range(T):
            e = [exp(Sh[t][s]) for s in range(t + 1)]
            den = total(e)
            dh.append(den)
            Ah.append([x / den for x in e] + [N(0)] * (T - t - 1))
        for t in range(T):
            for j in cols:
                O[t][j] = total(Ah[t][s] * V[s][j] for s in range(t + 1))
        S.append(Sh), A.append(Ah), A_den.append(dh)
    Attn = linear(O, Pn["W_O"], Pn["b_O"])
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1)
    Z = linear(LN2, Pn["W_1"], Pn["b_1"])
    k0, cc = mp.sqrt(2 / mp.pi), mp.mpf("0.044715")
    R = [[0.5 * u * (1 + tanh(k0 * (u + cc * u * u * u))) for u in r] for r in Z]
    F = linear(R, Pn["W_2"], Pn["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2)
    h_final = LN_f[-1]
    logits = [total(h_final[j] * Pn["E"][v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = total(exp(z) for z in logits)
    p = [exp(z) / sum_exp for z in logits]
    loss = -log(p[vocab.index(spec["data"]["target"])])
    nodes = dict(X=X, H0=X, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A=A, A_den=A_den,
                 Attn_heads=O, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2,
                 mu_f=mu_f, var_f=var_f, LN_f=LN_f, h_final=h_final, logits=logits, p=p)
    return nodes, Pn, sum_exp, loss


def run(spec, params):
    nodes, Pn, sum_exp, loss = forward(spec, params)
    backward(loss)
    return nodes, Pn, sum_exp, loss


def loss_at(spec, params, name, idx, delta):
    moved = {k: [list(r) if isinstance(r, list) else r for r in v] for k, v in params.items()}
    tgt = moved[name]
    for i in idx[:-1]:
        tgt = tgt[i]
    tgt[idx[-1]] = tgt[idx[-1]] + delta
    return forward(spec, moved)[3].v


def flat(prefix, arr, names, out, fn):
    """Every entry of a nested list under symgpt-style names NAME[i,j,…] (and a token for a vocab axis)."""
    def walk(a, idx):
        if isinstance(a, list):
            for i, x in enumerate(a):
                walk(x, idx + [i])
        else:
            keys = [",".join(str(i) for i in idx)]
            if names:
                keys.append(",".join(names[k][i] if k in names else str(i) for k, i in enumerate(idx)))
            for k in keys:
                out[f"{prefix}[{k}]"] = fn(a)
    walk(arr, [])


def quantities():
    spec, params = load()
    vocab = spec["model"]["vocab"]
    tok_axes = {"E": {0: vocab}, "logits": {0: vocab}, "p": {0: vocab}}
    lr, steps = mp.mpf(str(spec["training"]["lr"])), spec["training"]["steps"]
    q = {}
    states, runs = [params], []
    for k in range(steps + 1):
        nodes, Pn, sum_exp, loss = run(spec, states[-1])
        runs.append((nodes, Pn, sum_exp, loss))
        pre = "" if k == 0 else f"sgd[{k}]."
        for name, arr in nodes.items():
            flat(pre + name, arr, tok_axes.get(name), q, lambda x: x.v)
            if k == 0:
                flat("grad_" + name, arr, tok_axes.get(name), q, lambda x: x.g)
        for name, arr in Pn.items():
            flat(pre + name, arr, tok_axes.get(name), q, lambda x: x.v)
            flat(pre + "grad_" + name, arr, tok_axes.get(name), q, lambda x: x.g)
        q[pre + "sum_exp"], q[pre + "loss"] = sum_exp.v, loss.v
        if k == 0:
            for v, z in enumerate(nodes["logits"]):
                q[f"exp(logits[{vocab[v]}])"] = q[f"exp(logits[{v}])"] = mp.exp(z.v)
        if k < steps:
            new = {}
            for name, arr in params.items():
                grads = [[x.g for x in r] for r in Pn[name]] if isinstance(arr[0], list) else [x.g for x in Pn[name]]
                cur = states[-1][name]
                if name not in TRAINED:
                    new[name] = cur
                elif isinstance(cur[0], list):
                    new[name] = [[a - lr * b for a, b in zip(r, gr)] for r, gr in zip(cur, grads)]
                else:
                    new[name] = [a - lr * b for a, b in zip(cur, grads)]
            states.append(new)
    # the gradient check of training.gradcheck
    gc = spec["training"]["gradcheck"]
    h = mp.mpf(str(gc["h"]))
    for ref in gc["params"]:
        name, idx = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref).groups()
        idx = [vocab.index(i.strip()) if i.strip() in vocab else int(i) for i in idx.split(",")]
        num = (loss_at(spec, params, name, idx, h) - loss_at(spec, params, name, idx, -h)) / (2 * h)
        hs = mp.nstr(h, 5)
        for label in {ref, f"{name}[{','.join(str(i) for i in idx)}]"}:
            for hl in {hs, "0.0001", "1e-4"}:
                q[f"gradcheck({label}, {hl})"] = num
                q[f"gradcheck({label},{hl})"] = num
    extras(spec, params, q)
    return q


def extras(spec, params, q):
    """The tutorial's other derived figures (not symgpt quantities, except loss_at): LayerNorm
    divisors, the backward pass's means, GELU' and its tanh, the softmax-backward sum, the
    gradient check's two losses for b_v[1] and its relative errors, percentages."""
    eps, T = mp.mpf(str(spec["model"]["ln_eps"])), len(spec["data"]["input"])
    d, dff = spec["model"]["d"], spec["model"]["d_ff"]
    for t in range(T):
        for v in ("var1", "var2", "var_f"):
            q[f"sqrt({v}[{t}] + ln_eps)"] = mp.sqrt(q[f"{v}[{t}]"] + eps)
    yf = [q[f"LN_f[{T - 1},{j}]"] for j in range(d)]
    dh = [q[f"grad_h_final[{j}]"] for j in range(d)]
    q["mean(grad_h_final)"] = mp.fsum(dh) / d
    q["mean(grad_h_final * h_final)"] = mp.fsum(a * b for a, b in zip(dh, yf)) / d
    y2 = [q[f"LN2[{T - 1},{j}]"] for j in range(d)]
    g2 = [q[f"grad_LN2[{T - 1},{j}]"] for j in range(d)]
    q["mean(grad_LN2[2,:])"] = mp.fsum(g2) / d
    q["mean(grad_LN2[2,:] * LN2[2,:])"] = mp.fsum(a * b for a, b in zip(g2, y2)) / d
    k0, cc = mp.sqrt(2 / mp.pi), mp.mpf("0.044715")
    q["sqrt(2/pi)"] = k0
    for k in range(dff):
        u = q[f"Z[{T - 1},{k}]"]
        inner = k0 * (u + cc * u ** 3)
        th = mp.tanh(inner)
        q[f"gelu_inner(Z[{T - 1},{k}])"], q[f"tanh(gelu_inner(Z[{T - 1},{k}]))"] = inner, th
        q[f"gelu'(Z[{T - 1},{k}])"] = 0.5 * (1 + th) + 0.5 * u * (1 - th * th) * k0 * (1 + 3 * cc * u * u)
        q[f"Z[{T - 1},{k}] - b_1[{k}]"] = u - q[f"b_1[{k}]"]
    for h in range(spec["model"]["heads"]):
        q[f"sum_s A*grad_A[{h},{T - 1},:]"] = mp.fsum(q[f"A[{h},{T - 1},{s}]"] * q[f"grad_A[{h},{T - 1},{s}]"]
                                                      for s in range(T))
        for s in range(T):
            q[f"exp(S[{h},{T - 1},{s}])"] = mp.exp(q[f"S[{h},{T - 1},{s}]"])
            q[f"100*A[{h},{T - 1},{s}]"] = 100 * q[f"A[{h},{T - 1},{s}]"]
    q["var_f[2] unbiased"] = q["var_f[2]"] * d / (d - 1)
    h = mp.mpf(str(spec["training"]["gradcheck"]["h"]))
    q["loss_at(b_V[0], 0.0001)"] = loss_at(spec, params, "b_V", [0], h)
    q["loss_at(b_V[0], -0.0001)"] = loss_at(spec, params, "b_V", [0], -h)
    for ref in spec["training"]["gradcheck"]["params"]:
        an, nu = q["grad_" + ref], q[f"gradcheck({ref}, 0.0001)"]
        q[f"relerr({ref})"] = abs(an - nu) / max(abs(an), abs(nu))
    for k in range(spec["training"]["steps"] + 1):
        pre = "" if k == 0 else f"sgd[{k}]."
        q[f"100*{pre}p[home]"] = 100 * q[pre + "p[home]"]


def main() -> int:
    values = quantities()
    if "--all" in sys.argv:
        for k, v in values.items():
            print(f"{k:<40} {mp.nstr(v, 20)}")
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [x.strip() for x in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values or n.replace(" ", "") in values), None)
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = values.get(ref, values.get(ref.replace(" ", "")))
        v = v * 100 if printed.endswith("%") else v
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = shown.rstrip("%")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
                  and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>14}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<20} rounds to {right:<14} {note}")
    planted = sum(1 for r in rows if len([x for x in r.strip().strip('|').split('|')]) == 7)
    print(f"{len(rows)} key rows ({planted} planted, {len(rows) - planted} correct)")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
