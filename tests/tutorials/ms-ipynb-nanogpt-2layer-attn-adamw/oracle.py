#!/usr/bin/env python3
"""Independent check of the answer key: plain mpmath at 50 digits, no symgpt, no torch.

    python oracle.py      # every KEY.md row's quantity with its exact value, checked against the key,
                          # then every figure of the notebook listed in FIGURES below

Model (nanoGPT-like GPT-2, SPEC.toml beside this file): pre-LN blocks, learned positions, a bias on
every projection, one head, exact-erf GELU, tied head, LayerNorm with biased variance and eps 1e-5.
    H0 = E[ids] + W_pe
    per block l:  a = LN(H; gamma1, beta1);  Q, K, V = a·W + b;  S = Q·Kᵀ/√d;  A = causal softmax(S)
                  Attn_heads = A·V;  Attn = Attn_heads·W_O + b_O;  H1 = H + Attn
                  c = LN(H1; gamma2, beta2);  Z = c·W_1 + b_1;  R = GELU(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    h_final = LN_f(H2)[T-1];  logits = h_final·Eᵀ;  p = softmax;  loss = -ln p[target]
Gradients by a small reverse-mode autodiff over mpf scalars (every parameter, every node).
AdamW: torch.optim.AdamW's first step, decoupled weight decay on every parameter:
    m = (1-β1)g, v = (1-β2)g², m̂ = m/(1-β1), v̂ = v/(1-β2), θ ← θ(1 - lr·λ) - lr·m̂/(√v̂ + ε).
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


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Val:
    __slots__ = ("v", "g", "parents")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.g = mp.mpf(0)
        self.parents = parents          # tuples (node, local derivative)

    def __add__(self, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Val(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Val) else Val(o)
        return Val(self.v / o.v, ((self, 1 / o.v), (o, -self.v / (o.v * o.v))))

    def __neg__(self):
        return Val(-self.v, ((self, -1),))


def vexp(x):
    e = mp.exp(x.v)
    return Val(e, ((x, e),))


def vlog(x):
    return Val(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Val(s, ((x, 1 / (2 * s)),))


def vgelu(x):
    z = x.v
    Phi = (1 + mp.erf(z / mp.sqrt(2))) / 2
    phi = mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
    return Val(z * Phi, ((x, Phi + z * phi),))


def vsum(xs):
    out = Val(mp.mpf(0))
    for x in xs:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
    while stack:                                    # iterative topological sort
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
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.parents:
            p.g += n.g * d


# ---------------------------------------------------------------- the model

SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
D, DFF = SPEC["model"]["d"], SPEC["model"]["d_ff"]
EPS = mp.mpf("1e-5")
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
DOC_LINES = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()


def num(x):
    return mp.mpf(repr(x))                           # the decimal as written (at most 2 decimals)


def initial_params():
    """symgpt-style names: E, W_pe, gamma_f, beta_f, l0.W_Q, … with matrices as x·W multiplies them."""
    w = SPEC["weights"]
    P = {"E": w["E"], "W_pe": w["W_pe"], "gamma_f": w["gamma_f"], "beta_f": w["beta_f"]}
    for l, layer in enumerate(SPEC["layer"]):
        for k, v in layer.items():
            P[f"l{l}.{k}"] = v
    conv = lambda a: [conv(r) for r in a] if isinstance(a, list) else num(a)
    return {k: conv(v) for k, v in P.items()}


def shape_of(a):
    return (len(a), len(a[0])) if isinstance(a[0], list) else (len(a),)


def to_vals(P):
    out = {}
    for k, a in P.items():
        out[k] = [[Val(x) for x in r] for r in a] if isinstance(a[0], list) else [Val(x) for x in a]
    return out


def linear(rows, W, b):
    return [[vsum(r[i] * W[i][j] for i in range(len(W))) + b[j] for j in range(len(W[0]))] for r in rows]


def layernorm(rows, g, b):
    mus, vars_, outs = [], [], []
    for h in rows:
        mu = vsum(h) / len(h)
        var = vsum((x - mu) * (x - mu) for x in h) / len(h)
        den = vsqrt(var + EPS)
        outs.append([g[j] * ((h[j] - mu) / den) + b[j] for j in range(len(h))])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def forward(P):
    """P: dict of Val tensors. Returns a dict of every node (Val tensors)."""
    n = {}
    H = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    n["H0"] = H
    for l in range(len(SPEC["layer"])):
        pre = f"l{l}."
        mu1, var1, a = layernorm(H, P[pre + "gamma1"], P[pre + "beta1"])
        Q = linear(a, P[pre + "W_Q"], P[pre + "b_Q"])
        K = linear(a, P[pre + "W_K"], P[pre + "b_K"])
        V = linear(a, P[pre + "W_V"], P[pre + "b_V"])
        sq = mp.sqrt(D)                                # one head: d_k = d
        S = [[vsum(Q[t][j] * K[s][j] for j in range(D)) / sq for s in range(T)] for t in range(T)]
        A, A_den = [], []
        for t in range(T):
            ex = [vexp(S[t][s]) for s in range(t + 1)]
            den = vsum(ex)
            A.append([ex[s] / den if s <= t else Val(0) for s in range(T)])
            A_den.append(den)
        AH = [[vsum(A[t][s] * V[s][j] for s in range(t + 1)) for j in range(D)] for t in range(T)]
        Attn = linear(AH, P[pre + "W_O"], P[pre + "b_O"])
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        mu2, var2, c = layernorm(H1, P[pre + "gamma2"], P[pre + "beta2"])
        Z = linear(c, P[pre + "W_1"], P[pre + "b_1"])
        R = [[vgelu(z) for z in r] for r in Z]
        F = linear(R, P[pre + "W_2"], P[pre + "b_2"])
        H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        for k, v in dict(mu1=mu1, var1=var1, LN1=a, Q=Q, K=K, V=V, S=S, A=A, A_den=A_den, Attn_heads=AH,
                         Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=c, Z=Z, R=R, F=F, H2=H2).items():
            n[pre + k] = v
        H = H2
    mu_f, var_f, LNf = layernorm(H, P["gamma_f"], P["beta_f"])
    n.update(mu_f=mu_f, var_f=var_f, LN_f=LNf)
    h = LNf[T - 1]
    n["h_final"] = h
    logits = [vsum(h[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    n.update(logits=logits, sum_exp=se, p=[e / se for e in ex])
    n["loss"] = -vlog(n["p"][TGT])
    return n


def run(Pnum):
    P = to_vals(Pnum)
    n = forward(P)
    backward(n["loss"])
    return P, n


def values_of(a):
    return [[x.v for x in r] for r in a] if isinstance(a[0], list) else [x.v for x in a]


def grads_of(a):
    return [[x.g for x in r] for r in a] if isinstance(a[0], list) else [x.g for x in a]


def adamw_step(Pnum, P, lr, b1, b2, eps, wd):
    st, new = {}, {}
    for k, a in Pnum.items():
        G = grads_of(P[k])
        two = isinstance(a[0], list)
        rows = a if two else [a]
        grows = G if two else [G]
        out = []
        for i, r in enumerate(rows):
            orow = []
            for j, th in enumerate(r):
                g = grows[i][j]
                if abs(g) < mp.mpf("1e-40"):            # a key bias: exactly 0 in theory, noise here
                    g = mp.mpf(0)
                m, v = (1 - b1) * g, (1 - b2) * g * g
                mhat, vhat = m / (1 - b1), v / (1 - b2)
                upd = lr * mhat / (mp.sqrt(vhat) + eps)
                nv = th * (1 - lr * wd) - upd
                idx = (i, j) if two else (j,)
                st[(k,) + idx] = dict(g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=lr * wd * th, new=nv)
                orow.append(nv)
            out.append(orow)
        new[k] = out if two else out[0]
    return st, new


# ---------------------------------------------------------------- named quantities

def tok(s):
    """a token name or id inside an index."""
    s = s.strip()
    return VOCAB.index(s) if s in VOCAB else int(s)


def build():
    P0 = initial_params()
    P, n = run(P0)
    aw = SPEC["training"]["adamw"]
    st, P1 = adamw_step(P0, P, *(mp.mpf(repr(aw[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay")))
    _, n1 = run(P1)

    def get(name):
        if name == "sum_r l1.A[2,r]*grad_l1.A[2,r]":
            return mp.fsum(n["l1.A"][2][r].v * n["l1.A"][2][r].g for r in range(T))
        name = name.replace(" ", "")
        m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[([^,\]]+),([^\]]+)\]", name)
        if m:
            idx = tuple(tok(x) for x in m.group(3).split(","))
            return st[(m.group(2),) + idx][m.group(1)]
        if name.startswith("adamw[1]."):
            rest = name[len("adamw[1]."):]
            mm = re.fullmatch(r"([\w.]+)\[([^\]]+)\]", rest)
            if mm and mm.group(1) in P1:
                idx = tuple(tok(x) for x in mm.group(2).split(","))
                a = P1[mm.group(1)]
                return a[idx[0]][idx[1]] if len(idx) == 2 else a[idx[0]]
            return scalar_or_entry(n1, rest, grads=False)
        m = re.fullmatch(r"exp\((.+)\)", name)
        if m:
            return mp.exp(get(m.group(1)))
        m = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", name)
        if m:
            return mp.sqrt(get(m.group(1)) + EPS)
        if name.startswith("grad_"):
            rest = name[5:]
            mm = re.fullmatch(r"([\w.]+)(?:\[([^\]]+)\])?", rest)
            base = mm.group(1)
            src = P[base] if base in P else n[base]
            if mm.group(2) is None:
                return src.g
            idx = tuple(tok(x) for x in mm.group(2).split(","))
            return (src[idx[0]][idx[1]] if len(idx) == 2 else src[idx[0]]).g
        mm = re.fullmatch(r"([\w.]+)\[([^\]]+)\]", name)
        if mm and mm.group(1) in P0:
            idx = tuple(tok(x) for x in mm.group(2).split(","))
            a = P0[mm.group(1)]
            return a[idx[0]][idx[1]] if len(idx) == 2 else a[idx[0]]
        return scalar_or_entry(n, name, grads=False)

    return get


def scalar_or_entry(nodes, name, grads):
    mm = re.fullmatch(r"([\w.]+)(?:\[([^\]]+)\])?", name)
    src = nodes[mm.group(1)]
    if mm.group(2) is None:
        return src.v
    idx = tuple(tok(x) for x in mm.group(2).split(","))
    return (src[idx[0]][idx[1]] if len(idx) == 2 else src[idx[0]]).v


# ---------------------------------------------------------------- every figure of the notebook
# (line of DOC.ipynb, printed text, quantity) for every model figure that is not planted (the planted
# ones are KEY.md's); a percentage is the quantity × 100, "5.5096e-08" is rounded on its mantissa.
# "sum_r l1.A[2,r]*grad_l1.A[2,r]" is the softmax Jacobian's sum in the notebook's hand check.
FIGURES: list[tuple[int, str, str]] = [
    (202, "-0.3725", "l0.mu1[2]"),
    (215, "1.6866", "l0.LN1[2,0]"), (215, "-0.3471", "l0.LN1[2,1]"),
    (215, "-0.5101", "l0.LN1[2,2]"), (215, "-0.8284", "l0.LN1[2,3]"),
    (216, "0.7719", "l0.A[2,0]"), (216, "0.1201", "l0.A[2,1]"), (216, "0.1081", "l0.A[2,2]"),
    (247, "0.9903", "l1.LN1[2,0]"), (247, "-0.3306", "l1.LN1[2,1]"),
    (247, "0.9695", "l1.LN1[2,2]"), (247, "-1.2654", "l1.LN1[2,3]"),
    (248, "0.4869", "l1.A[2,0]"), (248, "0.4966", "l1.A[2,1]"), (248, "0.0165", "l1.A[2,2]"),
    (262, "1.65%", "l1.A[2,2]"),
    (276, "0.9595", "l1.F[2,0]"), (276, "0.3545", "l1.F[2,1]"), (276, "-0.1661", "l1.F[2,2]"), (276, "0.1418", "l1.F[2,3]"),
    (305, "1.2682", "h_final[0]"), (305, "-1.5361", "h_final[1]"), (305, "0.7928", "h_final[2]"), (305, "-0.7392", "h_final[3]"),
    (334, "0.9318", "logits[saya]"), (334, "0.2257", "logits[suka]"), (334, "0.9308", "logits[makan]"),
    (334, "-1.2184", "logits[nasi]"), (334, "-1.3271", "logits[ikan]"),
    (365, "0.3685", "p[saya]"), (365, "0.1819", "p[suka]"), (365, "0.3682", "p[makan]"),
    (365, "0.0429", "p[nasi]"), (365, "0.0385", "p[ikan]"),
    (366, "0.04291966547237859", "p[nasi]"),
    (367, "3.1484", "loss"),
    (383, "0.0429", "p[nasi]"),
    (387, "0.0429", "p[nasi]"),
    (399, "0.3685", "grad_logits[saya]"), (399, "0.1819", "grad_logits[suka]"), (399, "0.3682", "grad_logits[makan]"),
    (399, "-0.9571", "grad_logits[nasi]"), (399, "0.0385", "grad_logits[ikan]"),
    (434, "0.1674", "grad_l1.A[2,0]"), (434, "0.3064", "grad_l1.A[2,1]"), (434, "-0.0717", "grad_l1.A[2,2]"),
    (435, "-0.0317", "grad_l1.S[2,0]"), (435, "0.0367", "grad_l1.S[2,1]"), (435, "-0.0050", "grad_l1.S[2,2]"),
    (449, "0.2325", "sum_r l1.A[2,r]*grad_l1.A[2,r]"),
    (451, "0.4869", "l1.A[2,0]"), (451, "0.1674", "grad_l1.A[2,0]"),
    (451, "0.2325", "sum_r l1.A[2,r]*grad_l1.A[2,r]"), (451, "-0.0317", "grad_l1.S[2,0]"),
    (452, "0.0165", "l1.A[2,2]"), (452, "-0.0717", "grad_l1.A[2,2]"),
    (468, "-0.00742", "grad_l1.W_Q[1,0]"), (469, "0.02861", "grad_l1.W_V[3,1]"),
    (470, "0.08362", "grad_l1.W_O[0,2]"), (471, "0.17099", "grad_l1.W_O[3,1]"),
    (509, "-0.006602", "grad_l0.W_Q[2,1]"),
    (533, "-0.000742", "adamw[1].m[l1.W_Q,1,0]"), (533, "5.5096e-08", "adamw[1].v[l1.W_Q,1,0]"),
    (533, "5.5096e-05", "adamw[1].vhat[l1.W_Q,1,0]"), (533, "-0.010000", "adamw[1].update[l1.W_Q,1,0]"),
    (534, "0.008362", "adamw[1].m[l1.W_O,0,2]"), (534, "6.9921e-06", "adamw[1].v[l1.W_O,0,2]"),
    (534, "0.083619", "adamw[1].mhat[l1.W_O,0,2]"), (534, "6.9921e-03", "adamw[1].vhat[l1.W_O,0,2]"),
    (534, "0.010000", "adamw[1].update[l1.W_O,0,2]"),
    (535, "-0.121380", "adamw[1].m[E,nasi,0]"), (535, "1.4733e-03", "adamw[1].v[E,nasi,0]"),
    (535, "1.4733e+00", "adamw[1].vhat[E,nasi,0]"), (535, "-0.010000", "adamw[1].update[E,nasi,0]"),
    (537, "0.11", "l1.W_O[0,2]"), (537, "0.010000", "adamw[1].update[l1.W_O,0,2]"),
    (537, "0.099890", "adamw[1].l1.W_O[0,2]"),
    (550, "-0.599390", "adamw[1].l1.W_Q[1,0]"), (551, "0.099890", "adamw[1].l1.W_O[0,2]"),
    (552, "-0.399590", "adamw[1].E[nasi,0]"),
    (586, "1.9582", "adamw[1].loss"),
]


def check_rows(get):
    bad = 0
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        assert printed in DOC_LINES[int(cells[1]) - 1], (printed, cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = get(names[0])
        for other in names[1:]:
            assert abs(get(other) - v) <= mp.mpf("1e-40") * (1 + abs(v)), (names, other)
        v = v * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed.replace("−", "-")
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed.replace("−", "-") else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>12}  {names[0]:<30} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    assert planted == 8, planted
    return bad


def rounded(v, printed: str) -> str:
    """v at printed's precision (decimals, or the mantissa's in 1.2345e-03), half away from zero."""
    if "e" in printed:
        mant, ex = printed.split("e")
        places = len(mant.split(".")[1])
        e = int(ex)
        return f"{rnd(v / mp.mpf(10) ** e, places)}e{'-' if e < 0 else '+'}{abs(e):02d}"
    places = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
    return rnd(v, places) + ("%" if printed.endswith("%") else "")


def check_figures(get):
    bad = 0
    lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    for line, printed, name in FIGURES:
        if printed not in lines[line - 1]:
            bad += 1
            print(f"  FIGURE {printed} is not on line {line}")
            continue
        v = get(name) * (100 if printed.endswith("%") else 1)
        right = rounded(v, printed)
        if right != printed:
            bad += 1
            print(f"  FIGURE {printed} ({name}, line {line}) should be {right}  [{mp.nstr(v, 15)}]")
    print(f"  {len(FIGURES)} other notebook figures checked, {bad} wrong")
    return bad


def main() -> int:
    get = build()
    print("KEY.md rows:")
    bad = check_rows(get)
    bad += check_figures(get)
    print("all key rows agree with the oracle" if not bad else f"{bad} rows disagree")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
