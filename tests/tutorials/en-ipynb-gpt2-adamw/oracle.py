#!/usr/bin/env python3
"""Independent oracle for en-ipynb-gpt2-adamw: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every KEY.md row: its quantity's exact value, its rounding, and that the
                            # printed text stands on the stated line of DOC.ipynb

The model is read from SPEC.toml (tomllib): one GPT-2 block (pre-LayerNorm, GELU in tanh form,
learned positions, biases on every projection, tied head, final LayerNorm ln_f), two heads.

    H0 = E[ids] + W_pe;  LN1 = LN(H0);  Q|K|V = LN1·W + b;  S_h = Q_h K_hᵀ/√d_k, causal softmax A_h
    Attn_heads = A·V (heads side by side);  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn
    LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = gelu_tanh(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = LN(H2);  logits = LN_f[T-1]·Eᵀ;  p = softmax;  loss = -ln p[target]

Gradients come from a small reverse-mode automatic differentiation over mpmath scalars (every
parameter, LayerNorm gains and shifts included). One AdamW step as torch.optim.AdamW (decoupled
decay on every parameter): m = (1-β1)g, v = (1-β2)g², m̂ = m/(1-β1), v̂ = v/(1-β2),
θ ← θ(1-ηλ) - η m̂/(√v̂ + ε); then the forward pass again for the loss after the step.
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


# ---------------------------------------------------------------- scalar reverse-mode AD

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.parents = parents          # ((Var, local derivative), ...)
        self.g = mp.mpf(0)

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


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vtanh(a):
    t = mp.tanh(a.v)
    return Var(t, ((a, 1 - t * t),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
    out.g = mp.mpf(1)
    for node in reversed(order):
        for p, d in node.parents:
            p.g += node.g * d


# ---------------------------------------------------------------- the spec

def load_spec(path=HERE / "SPEC.toml"):
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    m = spec["model"]
    d, dff = m["d"], m["d_ff"]
    w, layer = spec["weights"], spec["layer"][0]
    num = lambda x: mp.mpf(str(x))
    mat = lambda a: [[num(x) for x in r] for r in a]
    vec = lambda a: [num(x) for x in a]
    P = {"E": mat(w["E"]), "W_pe": mat(w["W_pe"])}
    for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"):
        P[k] = mat(layer[k])
    for k in ("b_Q", "b_K", "b_V", "b_O", "b_1", "b_2"):
        P[k] = vec(layer[k])
    for k, dflt in (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0)):
        P[k] = vec(layer.get(k, [dflt] * d))
    P["gamma_f"] = vec(w.get("gamma_f", [1] * d))
    P["beta_f"] = vec(w.get("beta_f", [0] * d))
    vocab = m["vocab"]
    cfg = dict(vocab=vocab, d=d, d_ff=dff, heads=m["heads"], eps=num(m["ln_eps"]),
               ids=[vocab.index(t) for t in spec["data"]["input"]], target=vocab.index(spec["data"]["target"]),
               adamw={k: num(v) for k, v in spec["training"]["adamw"].items()})
    return P, cfg


# ---------------------------------------------------------------- the forward pass

C_GELU = mp.sqrt(2 / mp.pi)
K_GELU = mp.mpf("0.044715")


def layernorm(rows, gamma, beta, eps):
    d = len(rows[0])
    mus, vars_, outs = [], [], []
    for r in rows:
        mu = vsum(r) / d
        var = vsum([(x - mu) * (x - mu) for x in r]) / d
        den = vsqrt(var + eps)
        outs.append([gamma[j] * ((r[j] - mu) / den) + beta[j] for j in range(d)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def affine(rows, W, b):
    return [[vsum([r[i] * W[i][j] for i in range(len(W))]) + b[j] for j in range(len(W[0]))] for r in rows]


def forward(P, cfg):
    """P: name -> nested lists of Var. Returns every intermediate (Var trees)."""
    ids, d, H, eps = cfg["ids"], cfg["d"], cfg["heads"], cfg["eps"]
    T, dk = len(ids), d // H
    X = [[P["E"][ids[t]][j] for j in range(d)] for t in range(T)]
    PE = [[P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, P["gamma1"], P["beta1"], eps)
    Q, K, V = affine(LN1, P["W_Q"], P["b_Q"]), affine(LN1, P["W_K"], P["b_K"]), affine(LN1, P["W_V"], P["b_V"])
    sq = mp.sqrt(dk)
    S = [[[vsum([Q[t][h * dk + c] * K[s][h * dk + c] for c in range(dk)]) / sq for s in range(T)]
          for t in range(T)] for h in range(H)]
    E_S = [[[vexp(S[h][t][s]) if s <= t else None for s in range(T)] for t in range(T)] for h in range(H)]
    A_den = [[vsum([E_S[h][t][s] for s in range(t + 1)]) for t in range(T)] for h in range(H)]
    A = [[[E_S[h][t][s] / A_den[h][t] if s <= t else Var(0) for s in range(T)] for t in range(T)] for h in range(H)]
    Attn_heads = [[vsum([A[j // dk][t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    Attn = affine(Attn_heads, P["W_O"], P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, P["gamma2"], P["beta2"], eps)
    Z = affine(LN2, P["W_1"], P["b_1"])
    R = [[0.5 * z * (1 + vtanh(C_GELU * (z + K_GELU * z * z * z))) for z in r] for r in Z]
    F = affine(R, P["W_2"], P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, P["gamma_f"], P["beta_f"], eps)
    hf = LN_f[-1]
    logits = [vsum([hf[j] * P["E"][v][j] for j in range(d)]) for v in range(len(P["E"]))]
    exps = [vexp(z) for z in logits]
    sum_exp = vsum(exps)
    p = [e / sum_exp for e in exps]
    loss = -vlog(p[cfg["target"]])
    return dict(X=X, PE=PE, H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A,
                Attn_heads=Attn_heads, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2,
                mu_f=mu_f, var_f=var_f, LN_f=LN_f, h_final=hf, logits=logits, sum_exp=sum_exp, p=p, loss=loss)


def tree_map(f, x):
    return [tree_map(f, y) for y in x] if isinstance(x, list) else f(x)


def run(Pnum, cfg):
    """Forward and backward from numeric parameters: (values, grads), both name -> nested mpf lists."""
    P = {k: tree_map(Var, v) for k, v in Pnum.items()}
    out = forward(P, cfg)
    backward(out["loss"])
    vals = {k: tree_map(lambda x: x.v, v) for k, v in out.items()}
    grads = {k: tree_map(lambda x: x.g, v) for k, v in P.items()}
    return vals, grads


def adamw_step(Pnum, grads, hp):
    lr, b1, b2, eps, wd = hp["lr"], hp["beta1"], hp["beta2"], hp["eps"], hp["weight_decay"]
    new, state = {}, {}

    def one(key, th, g):
        m, v = (1 - b1) * g, (1 - b2) * g * g
        mhat, vhat = m / (1 - b1), v / (1 - b2)
        upd = lr * mhat / (mp.sqrt(vhat) + eps)
        state[key] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=lr * wd * th)
        return th * (1 - lr * wd) - upd

    for name, val in Pnum.items():
        if isinstance(val[0], list):
            new[name] = [[one((name, i, j), val[i][j], grads[name][i][j]) for j in range(len(val[0]))]
                         for i in range(len(val))]
        else:
            new[name] = [one((name, i), val[i], grads[name][i]) for i in range(len(val))]
    return new, state


# ---------------------------------------------------------------- every quantity by its symgpt name

def compute():
    Pnum, cfg = load_spec()
    vals, grads = run(Pnum, cfg)
    new, state = adamw_step(Pnum, grads, cfg["adamw"])
    vals1, _ = run(new, cfg)
    vocab = cfg["vocab"]
    Q = {}

    def put(prefix, name, x, idx=()):
        if isinstance(x, list):
            for i, y in enumerate(x):
                put(prefix, name, y, idx + (i,))
        else:
            Q[prefix + name + ("[" + ",".join(map(str, idx)) + "]" if idx else "")] = x

    for k, v in vals.items():
        put("", k, v)
    for k, v in Pnum.items():
        put("", k, v)
    for k, v in grads.items():
        put("", "grad_" + k, v)
    for k, v in new.items():
        put("adamw[1].", k, v)
    put("adamw[1].", "loss", vals1["loss"])
    put("adamw[1].", "p", vals1["p"])
    for key, st in state.items():
        for field, x in st.items():
            Q[f"adamw[1].{field}[{','.join(map(str, key))}]"] = x
    # the side figures of the hand checks: exponentials, the LayerNorm's root, GELU's inner steps
    eps = cfg["eps"]
    for t in range(len(cfg["ids"])):
        Q[f"sqrt(var1[{t}]+ln_eps)"] = mp.sqrt(vals["var1"][t] + eps)
        for h in range(cfg["heads"]):
            for s_ in range(t + 1):
                Q[f"exp(S[{h},{t},{s_}])"] = mp.exp(vals["S"][h][t][s_])
        for k_ in range(cfg["d_ff"]):
            z = vals["Z"][t][k_]
            Q[f"gelu_inner(Z[{t},{k_}])"] = z + K_GELU * z ** 3
            Q[f"tanh(gelu_arg(Z[{t},{k_}]))"] = mp.tanh(C_GELU * (z + K_GELU * z ** 3))
    for v_ in range(len(vocab)):
        Q[f"exp(logits[{v_}])"] = mp.exp(vals["logits"][v_])
    Q["sqrt(2/pi)"] = C_GELU
    return Q, vocab


def normalise(ref: str, vocab) -> str:
    """Tokens written by name -> their ids (`grad_E[in,0]` -> `grad_E[3,0]`); spaces dropped."""
    ref = ref.replace(" ", "").replace("−", "-")

    def sub(m):
        parts = m.group(1).split(",")
        return "[" + ",".join(str(vocab.index(x)) if x in vocab else x for x in parts) + "]"

    return re.sub(r"\[([^\]]*)\]", sub, ref)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def as_decimal(printed: str):
    """(value text, places, scale) of a printed figure: percent, 1.2345e-05, plain decimal."""
    s = printed.replace("−", "-")
    if s.endswith("%"):
        body = s[:-1]
        return body, (len(body.split(".")[1]) if "." in body else 0), 100, "%"
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)e([+-]\d+)", s)
    if m:
        mant, ex = m.group(1), int(m.group(2))
        return s, (len(mant.split(".")[1]) if "." in mant else 0) - ex, 1, "e"
    return s, (len(s.split(".")[1]) if "." in s else 0), 1, ""


def rounding_of(v, printed_like: str) -> str:
    """The correct rounding of v in the printed figure's own format."""
    body, places, scale, kind = as_decimal(printed_like)
    v = v * scale
    if kind == "e":
        ex = int(printed_like.split("e")[1])
        mant_places = places + ex
        mant = rnd(v / mp.mpf(10) ** ex, mant_places)
        return f"{mant}e{printed_like.split('e')[1]}"
    return rnd(v, places) + kind


def main() -> int:
    Q, vocab = compute()
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = 0
    print(f"loss {mp.nstr(Q['loss'], 20)}   loss after one AdamW step {mp.nstr(Q['adamw[1].loss'], 20)}")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if normalise(n, vocab) in Q), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
            v = None
        else:
            v = Q[normalise(ref, vocab)]
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            problems.append(f"`{printed}` is not on line {line}")
        if v is not None:
            if len(cells) == 7:                       # a planted error
                shown = cells[4].strip("`")
                right = rounding_of(v, shown)
                exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
                scale = 100 if shown.endswith("%") else 1
                if right != shown:
                    problems.append(f"correct rounding is {right}, key says {shown}")
                if abs(exact - v * scale) > mp.mpf("1e-10") * abs(v * scale):
                    problems.append(f"exact value is {mp.nstr(v * scale, 15)}, key says {cells[3]}")
                if rounding_of(v, printed) == printed:
                    problems.append("the planted figure is in fact the correct rounding")
                note = "planted, key agrees"
            else:
                right = rounding_of(v, printed)
                if right != printed:
                    problems.append(f"NOT THE CORRECT ROUNDING (it is {right})")
                note = "correct"
        if problems:
            bad += 1
            note = "PROBLEM: " + "; ".join(problems)
        vs = mp.nstr(v, 15) if v is not None else "-"
        print(f"  {printed:>12}  line {line:>3}  {(ref or cells[-1]):<28} {vs:<22} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
