#!/usr/bin/env python3
"""Independent check of DOC.md / KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Reads the weights from SPEC.toml (tomllib), runs the two-layer post-LN block by hand
(H0 = E[ids] + PE with PE[t] = (sin t, cos t) for d = 2; per layer Q, K, V = H·W; S = Q·Kᵀ/√d;
causal softmax A; Attn = A·V; H1 = H + Attn; LN1 (biased variance, ε = ln_eps); Z = LN1·W_1 + b_1;
R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F; LN2, which is the next layer's input), the tied head
(logits = LN2[T-1]·Eᵀ), softmax and cross-entropy, the full gradient by a small reverse-mode graph over
mpf scalars, and one AdamW step as torch.optim.AdamW (decoupled weight decay on every parameter):
m = (1-β₁)g, v = (1-β₂)g², m̂ = m/(1-β₁), v̂ = v/(1-β₂), θ₁ = θ(1-ηλ) - η m̂/(√v̂+ε); then the
forward pass again for the loss after the step.

It prints every KEY.md row's quantity with its value and checks: the key's exact value and correct
rounding (half away from zero), that a planted figure really differs from the correct rounding,
that a correct figure is the correct rounding, and that the printed text stands on the stated
line of DOC.md.
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


# ---------------------------------------------------------------- a scalar reverse-mode graph

class N:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v, self.parents, self.g = v, parents, mp.mpf(0)

    @staticmethod
    def of(b):
        return b if isinstance(b, N) else N(mp.mpf(b))

    def __add__(a, b):
        b = N.of(b)
        return N(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = N.of(b)
        return N(a.v - b.v, ((a, 1), (b, -1)))

    def __neg__(a):
        return N(-a.v, ((a, -1),))

    def __mul__(a, b):
        b = N.of(b)
        return N(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = N.of(b)
        return N(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))


def nexp(a):
    e = mp.exp(a.v)
    return N(e, ((a, e),))


def nlog(a):
    return N(mp.log(a.v), ((a, 1 / a.v),))


def nsqrt(a):
    s = mp.sqrt(a.v)
    return N(s, ((a, 1 / (2 * s)),))


def relu(a):
    return N(a.v, ((a, 1),)) if a.v > 0 else N(mp.mpf(0), ((a, 0),))


def total(xs):
    s = xs[0]
    for x in xs[1:]:
        s = s + x
    return s


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


# ---------------------------------------------------------------- the model

def num(x):
    return mp.mpf(str(x))


def tens(a):
    return [tens(r) for r in a] if isinstance(a, list) else num(a)


VOCAB = SPEC["model"]["vocab"]
D = SPEC["model"]["d"]
EPS = num(SPEC["model"]["ln_eps"])
BASE = num(SPEC["model"].get("pe_base", 10000))
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
LAYER_KEYS = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")


def params0():
    P = {"E": tens(SPEC["weights"]["E"])}
    for l, L in enumerate(SPEC["layer"]):
        for k in LAYER_KEYS:
            P[f"l{l}.{k}"] = tens(L[k])
    return P


def as_nodes(P):
    return {k: [[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v] for k, v in P.items()}


def mm(A, B):
    return [[total([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    mu, var, out = [], [], []
    for r in H:
        m = total(r) / len(r)
        v = total([(x - m) * (x - m) for x in r]) / len(r)
        s = nsqrt(v + EPS)
        mu.append(m), var.append(v), out.append([(x - m) / s for x in r])
    return mu, var, out


def forward(P):
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / D)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(D)] for t in range(T)]
    H = [[P["E"][IDS[t]][j] + PE[t][j] for j in range(D)] for t in range(T)]
    f = {"PE": PE, "H0": H}
    for l in range(len(SPEC["layer"])):
        w = lambda k: P[f"l{l}.{k}"]
        Q, K, V = mm(H, w("W_Q")), mm(H, w("W_K")), mm(H, w("W_V"))
        S = [[total([Q[t][j] * K[s][j] for j in range(D)]) / mp.sqrt(D) for s in range(T)] for t in range(T)]
        den = [total([nexp(S[t][s]) for s in range(t + 1)]) for t in range(T)]
        A = [[nexp(S[t][s]) / den[t] for s in range(t + 1)] for t in range(T)]
        Attn = [[total([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        mu1, var1, LN1 = layernorm(H1)
        Z = [[z + b for z, b in zip(r, w("b_1"))] for r in mm(LN1, w("W_1"))]
        R = [[relu(z) for z in r] for r in Z]
        F = [[x + b for x, b in zip(r, w("b_2"))] for r in mm(R, w("W_2"))]
        H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H2)
        for k, v in dict(Q=Q, K=K, V=V, S=S, A_den=den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1, LN1=LN1,
                         Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2).items():
            f[f"l{l}.{k}"] = v
        H = LN2
    h = H[T - 1]
    logits = [total([h[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    se = total([nexp(z) for z in logits])
    p = [nexp(z) / se for z in logits]
    f.update(h_final=h, logits=logits, sum_exp=se, p=p, loss=-nlog(p[TGT]))
    return f


def val(x):
    return x.v if isinstance(x, N) else x


def flatten(prefix, x, out, idx=()):
    if isinstance(x, list):
        for i, y in enumerate(x):
            flatten(prefix, y, out, idx + (i,))
    else:
        out[f"{prefix}[{','.join(map(str, idx))}]" if idx else prefix] = val(x)


def adamw_step(P, G):
    aw = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (num(aw[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    state, new = {}, {}
    for name, th in P.items():
        def one(theta, g, idx):
            m, v = (1 - b1) * g, (1 - b2) * g * g
            mhat, vhat = m / (1 - b1), v / (1 - b2)
            upd = lr * mhat / (mp.sqrt(vhat) + eps)
            decay = lr * wd * theta
            state[(name, idx)] = dict(g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=decay,
                                      new=theta - decay - upd)
            return theta - decay - upd
        if isinstance(th[0], list):
            new[name] = [[one(th[i][j], G[name][i][j], (i, j)) for j in range(len(th[0]))] for i in range(len(th))]
        else:
            new[name] = [one(th[i], G[name][i], (i,)) for i in range(len(th))]
    return state, new


def values():
    P = params0()
    nodes = as_nodes(P)
    f = forward(nodes)
    backward(f["loss"])
    G = {k: [[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v] for k, v in nodes.items()}
    out = {}
    for k, v in f.items():
        flatten(k, v, out)
    for v in range(len(VOCAB)):       # token names for the head quantities
        for k in ("logits", "p"):
            out[f"{k}[{VOCAB[v]}]"] = out[f"{k}[{v}]"]
        out[f"grad_logits[{VOCAB[v]}]"] = f["p"][v].v - (1 if v == TGT else 0)
        out[f"exp(logits[{VOCAB[v]}])"] = mp.exp(out[f"logits[{v}]"])
        for j in range(D):
            out[f"grad_E[{VOCAB[v]},{j}]"] = G["E"][v][j]
            out[f"grad_E_head[{VOCAB[v]},{j}]"] = (f["p"][v].v - (1 if v == TGT else 0)) * f["h_final"][j].v
    for l in range(len(SPEC["layer"])):
        for t in range(T):
            out[f"sqrt(l{l}.var1[{t}] + ln_eps)"] = mp.sqrt(out[f"l{l}.var1[{t}]"] + EPS)
            out[f"sqrt(l{l}.var2[{t}] + ln_eps)"] = mp.sqrt(out[f"l{l}.var2[{t}]"] + EPS)
            for s in range(t + 1):
                out[f"exp(l{l}.S[{t},{s}])"] = mp.exp(out[f"l{l}.S[{t},{s}]"])
    state, new = adamw_step(P, G)
    for (name, idx), st in state.items():
        if name == "E":
            idx_s = f"{VOCAB[idx[0]]},{idx[1]}"
        else:
            idx_s = ",".join(map(str, idx))
        for k in ("m", "v", "mhat", "vhat", "update", "decay"):
            out[f"adamw[1].{k}[{name},{idx_s}]"] = st[k]
        out[f"adamw[1].{name}[{idx_s}]"] = st["new"]
        out[f"grad_{name}[{idx_s}]"] = st["g"]
    f1 = forward(as_nodes(new))
    out["adamw[1].loss"] = f1["loss"].v
    for v in range(len(VOCAB)):
        out[f"adamw[1].p[{VOCAB[v]}]"] = f1["p"][v].v
    return out


# ---------------------------------------------------------------- formatting and the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse_printed(s: str):
    """'−0,8636' / '%13,64' / '7,4576·10⁻⁴' -> (scale, decimals, sci exponent) and a canonical '.' string."""
    s = s.replace("−", "-").replace("{,}", ",").replace(",", ".")
    pct = s.startswith("%") or s.endswith("%")
    s = s.strip("%")
    exp10 = 0
    m = re.fullmatch(r"(-?[0-9.]+)\s*(?:·|\\cdot|×|\\times)\s*10\^?\{?([-−⁻]?[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)\}?", s)
    if m:
        sup = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
        s, exp10 = m.group(1), int(m.group(2).translate(sup).replace("−", "-"))
    places = len(s.split(".")[1]) if "." in s else 0
    return pct, exp10, places, s


def main() -> int:
    vals = values()
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if printed not in doc[line - 1].replace("{,}", ","):     # a math figure 0{,}8000 reads 0,8000
            problems.append(f"not on line {line}")
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct, exp10, places, canon = parse_printed(printed)
        v = vals[ref] * (100 if pct else 1) / mp.mpf(10) ** exp10
        if len(cells) == 7:                       # planted: exact value and correct rounding columns
            shown = cells[4].strip("`")
            spct, sexp, splaces, scanon = parse_printed(shown)
            sv = vals[ref] * (100 if spct else 1) / mp.mpf(10) ** sexp
            right = rnd(sv, splaces)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-").replace(",", "."))
            if right != scanon:
                problems.append(f"key's correct rounding {shown} but oracle gives {right}")
            if abs(exact - sv) > mp.mpf("1e-10") * abs(sv):      # a percent row's exact value is p × 100
                problems.append(f"key's exact value {cells[3]} but oracle gives {mp.nstr(sv, 15)}")
            if rnd(v, places) == canon:
                problems.append("the planted figure is in fact the correct rounding")
            kind = "planted"
        else:
            right = rnd(v, places)
            if right != canon:
                problems.append(f"not the correct rounding (oracle: {right})")
            kind = "correct"
        bad += bool(problems)
        print(f"  {printed:>14}  line {line:>3}  {ref:<32} {mp.nstr(vals[ref], 15):<22} {kind:<8} "
              + ("; ".join(problems) if problems else "ok"))
    n_planted = sum(len([c for c in r.strip().strip('|').split('|')]) == 7 for r in rows)
    if n_planted != 8:
        print(f"expected 8 planted rows, found {n_planted}")
        bad += 1
    print("all key rows agree with the oracle and DOC.md" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
