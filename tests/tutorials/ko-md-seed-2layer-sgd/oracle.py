#!/usr/bin/env python3
"""Independent oracle for ko-md-seed-2layer-sgd (plain mpmath, 50 digits, no symgpt).

Model (seed architecture): two post-LN blocks, one head, d = 4, d_ff = 8, ReLU, sinusoidal positions,
tied LM head, ln_eps = 1e-5, LayerNorm gamma = 1 and beta = 0 (not trained).
  H0 = E[ids] + PE,  PE[t,2i] = sin(t / 10000^(2i/d)), PE[t,2i+1] = cos(same)
  per block: Q, K, V = H W; S = Q K^T / sqrt(d); causal softmax A; Attn = A V; H1 = H + Attn;
             LN1 (biased variance); Z = LN1 W_1 + b_1; R = ReLU(Z); F = R W_2 + b_2; H2 = LN1 + F; LN2
  logits = LN2_last[T-1] . E^T, p = softmax, loss = -ln p[target] (last position only).
Gradients by a small reverse-mode autodiff over mpf scalars; one SGD step (lr 0.1) on E and every
block's W_Q, W_K, W_V, W_1, b_1, W_2, b_2; then a second forward pass.

    python oracle.py     # prints every KEY.md row's quantity and value, checks the key's columns
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ tiny reverse-mode autodiff
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents      # tuple of (Var, local derivative)
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


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vrelu(x):
    assert x.v != 0, "ReLU tie"
    return Var(x.v if x.v > 0 else 0, ((x, 1 if x.v > 0 else 0),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
        for p, _ in n.parents:
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.parents:
            p.g += n.g * d


# ------------------------------------------------------------------ the spec (copied by hand from SPEC.toml)
VOCAB = ["나는", "오늘", "밥을", "먹었다", "학교에", "갔다"]
IDS = [0, 1, 4]
TGT = 5
D, DFF, T = 4, 8, 3
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")

E0 = [[0.2, -0.1, 0.3, 0.1], [-0.3, 0.4, 0.1, 0.2], [0.1, 0.2, -0.4, 0.3],
      [0.4, -0.2, 0.2, -0.3], [-0.1, 0.3, 0.2, -0.2], [0.3, 0.1, -0.2, 0.4]]
LAYERS0 = [
    dict(
        W_Q=[[-0.05, 0.1, -0.25, -0.3], [0.3, -0.5, 0.25, -0.35], [0.6, 0.3, -0.5, 0.2], [0.5, 0.1, -0.3, 0.6]],
        W_K=[[-0.3, 0.15, 0.5, 0.2], [-0.15, 0.25, -0.35, -0.1], [0.5, 0.35, -0.3, -0.2], [0.3, -0.3, -0.2, 0.6]],
        W_V=[[0.2, 0.6, 0.6, -0.35], [0.1, 0.15, -0.4, 0.5], [0.65, 0.3, -0.3, -0.35], [0.1, 0.1, -0.25, -0.5]],
        W_1=[[0.6, -0.2, 0.1, 0.1, -0.3, -0.15, -0.5, -0.3], [-0.1, 0.2, 0.4, -0.5, 0.5, -0.1, -0.4, -0.4],
             [-0.2, -0.4, -0.1, 0.5, -0.1, -0.1, -0.3, 0.1], [-0.15, 0.35, -0.35, 0.4, -0.1, 0.6, -0.1, -0.4]],
        b_1=[0.0, -0.1, 0.1, 0.0, 0.1, 0.1, 0.0, 0.0],
        W_2=[[-0.45, 0.2, -0.3, 0.1], [0.2, 0.3, -0.4, 0.3], [0.2, 0.6, 0.2, -0.1], [0.4, -0.4, 0.4, 0.2],
             [0.6, -0.3, 0.4, -0.1], [-0.5, -0.3, 0.3, -0.3], [0.2, 0.6, 0.3, -0.1], [-0.4, 0.1, -0.5, 0.2]],
        b_2=[0.05, 0.0, 0.0, -0.1],
    ),
    dict(
        W_Q=[[-0.1, 0.15, -0.4, 0.2], [-0.5, -0.2, 0.5, -0.2], [0.5, 0.5, -0.45, 0.4], [0.55, 0.6, 0.4, 0.1]],
        W_K=[[0.6, 0.2, -0.5, -0.1], [0.4, -0.45, 0.4, 0.4], [-0.1, 0.5, 0.55, -0.2], [-0.3, 0.1, 0.4, -0.35]],
        W_V=[[0.2, 0.2, 0.25, -0.3], [0.2, -0.05, 0.1, 0.1], [0.35, -0.5, -0.5, 0.6], [-0.5, -0.4, 0.2, -0.5]],
        W_1=[[-0.4, 0.6, 0.4, -0.4, 0.4, 0.15, -0.5, 0.65], [0.1, 0.5, 0.5, -0.2, -0.15, -0.15, 0.15, -0.2],
             [-0.4, 0.3, -0.3, 0.6, 0.3, -0.3, -0.4, -0.1], [0.3, 0.3, 0.2, -0.1, 0.6, 0.4, 0.6, 0.3]],
        b_1=[0.1, 0.0, 0.2, 0.2, 0.0, -0.1, 0.2, 0.1],
        W_2=[[-0.3, -0.4, 0.4, 0.4], [0.15, -0.2, -0.2, -0.25], [0.1, 0.6, 0.5, 0.05], [-0.5, 0.2, -0.2, 0.6],
             [0.5, -0.15, -0.05, -0.45], [-0.4, 0.6, 0.5, -0.35], [-0.1, 0.6, 0.1, -0.3], [-0.55, 0.5, 0.5, 0.6]],
        b_2=[-0.1, 0.05, 0.05, 0.05],
    ),
]
PARAMS = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")


def exact(a):
    """Decimal literals read exactly (via their text)."""
    return [exact(r) for r in a] if isinstance(a, list) else mp.mpf(str(a))


def to_vars(a):
    return [to_vars(r) for r in a] if isinstance(a, list) else Var(a)


def vals(a):
    return [vals(r) for r in a] if isinstance(a, list) else a.v


def grads(a):
    return [grads(r) for r in a] if isinstance(a, list) else a.g


def mm(A, B):
    return [[vsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    mu, var, out = [], [], []
    for row in H:
        m = vsum(row) / len(row)
        v = vsum((x - m) * (x - m) for x in row) / len(row)
        s = vsqrt(v + EPS)
        mu.append(m), var.append(v), out.append([(x - m) / s for x in row])
    return mu, var, out


def forward(E, layers):
    """E, layers: Var tensors. Returns a dict of every node (Var tensors)."""
    f = {}
    PE = [[mp.sin(t / mp.mpf(10000) ** (mp.mpf(j - j % 2) / D)) if j % 2 == 0 else
           mp.cos(t / mp.mpf(10000) ** (mp.mpf(j - j % 2) / D)) for j in range(D)] for t in range(T)]
    f["PE"] = [[Var(x) for x in r] for r in PE]
    H = [[E[IDS[t]][j] + f["PE"][t][j] for j in range(D)] for t in range(T)]
    f["H0"] = H
    for l, P in enumerate(layers):
        Q, K, V = mm(H, P["W_Q"]), mm(H, P["W_K"]), mm(H, P["W_V"])
        S = [[vsum(Q[t][j] * K[s][j] for j in range(D)) / mp.sqrt(D) for s in range(T)] for t in range(T)]
        ex = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [vsum(r) for r in ex]
        A = [[ex[t][s] / den[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        Attn = [[vsum(A[t][s] * V[s][j] for s in range(t + 1)) for j in range(D)] for t in range(T)]
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        mu1, var1, LN1 = layernorm(H1)
        Z = [[z + b for z, b in zip(r, P["b_1"])] for r in mm(LN1, P["W_1"])]
        R = [[vrelu(z) for z in r] for r in Z]
        F = [[x + b for x, b in zip(r, P["b_2"])] for r in mm(R, P["W_2"])]
        H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H2)
        for k, v in dict(Q=Q, K=K, V=V, S=S, A_den=den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1, LN1=LN1,
                         Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2).items():
            f[f"l{l}.{k}"] = v
        H = LN2
    h = H[T - 1]
    logits = [vsum(h[j] * E[v][j] for j in range(D)) for v in range(len(E))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TGT])
    f.update(h_final=h, logits=logits, sum_exp=se, p=p, loss=loss)
    return f


def run(E_vals, layer_vals):
    E = to_vars(E_vals)
    layers = [{k: to_vars(P[k]) for k in PARAMS} for P in layer_vals]
    f = forward(E, layers)
    backward(f["loss"])
    out = {}
    for k, v in f.items():
        out[k] = vals(v)
        out["grad_" + k] = grads(v)
    out["E"], out["grad_E"] = vals(E), grads(E)
    for l, P in enumerate(layers):
        for k in PARAMS:
            out[f"l{l}.{k}"], out[f"grad_l{l}.{k}"] = vals(P[k]), grads(P[k])
    return out


def step(s):
    def upd(a, g):
        return [upd(x, y) for x, y in zip(a, g)] if isinstance(a, list) else a - LR * g
    E = upd(s["E"], s["grad_E"])
    layers = [{k: upd(s[f"l{l}.{k}"], s[f"grad_l{l}.{k}"]) for k in PARAMS} for l in range(2)]
    return E, layers


S0 = run(exact(E0), [{k: exact(P[k]) for k in PARAMS} for P in LAYERS0])
S1 = run(*step(S0))

TOK = {w: i for i, w in enumerate(VOCAB)}


def lookup(name: str):
    """A symgpt-style name -> its exact value (sgd[k]. prefix, token or numeric indices)."""
    st = S0
    m = re.match(r"sgd\[(\d)\]\.(.*)", name)
    if m:
        st = {"0": S0, "1": S1}[m.group(1)]
        name = m.group(2)
    m = re.fullmatch(r"(.+?)(?:\[([^\]]*)\])?", name)
    base, idx = m.group(1), m.group(2)
    v = st[base]
    if idx:
        for i in idx.split(","):
            i = i.strip()
            v = v[TOK[i] if i in TOK else int(i)]
    return v


# ------------------------------------------------------------------ every correct figure of DOC.md
# (line, quantity, decimals): each must appear at that line as the correct rounding. The 8 planted
# figures are not here; KEY.md lists them and main() checks them against the exact values.
DOC_FIGURES = [
    (41, "l0.S[2,0]", 4),
    (41, "l0.S[2,1]", 4),
    (41, "l0.S[2,2]", 4),
    (42, "l0.A[2,0]", 4),
    (42, "l0.A[2,1]", 4),
    (42, "l0.A[2,2]", 4),
    (46, "exp(l0.S[2,0])", 4),
    (46, "exp(l0.S[2,1])", 4),
    (46, "exp(l0.S[2,2])", 4),
    (54, "l0.H1[2,0]", 4),
    (54, "l0.H1[2,1]", 4),
    (54, "l0.H1[2,2]", 4),
    (54, "l0.H1[2,3]", 4),
    (58, "l0.H1[2,0]", 4),
    (58, "l0.H1[2,1]", 4),
    (58, "-l0.H1[2,2]", 4),
    (58, "l0.H1[2,3]", 4),
    (58, "l0.mu1[2]", 4),
    (60, "l0.var1[2]", 4),
    (67, "l0.R[2,0]", 4),
    (73, "l0.H2[2,0]", 4),
    (73, "l0.H2[2,1]", 4),
    (73, "l0.H2[2,2]", 4),
    (73, "l0.H2[2,3]", 4),
    (75, "l0.mu2[2]", 4),
    (86, "l1.S[2,0]", 4),
    (86, "l1.S[2,1]", 4),
    (86, "l1.S[2,2]", 4),
    (87, "l1.A[2,0]", 4),
    (87, "l1.A[2,1]", 4),
    (95, "l1.R[2,0]", 0),
    (95, "l1.R[2,1]", 4),
    (95, "l1.R[2,2]", 4),
    (95, "l1.R[2,3]", 0),
    (95, "l1.R[2,4]", 0),
    (95, "l1.R[2,5]", 0),
    (95, "l1.R[2,6]", 0),
    (95, "l1.R[2,7]", 4),
    (101, "l1.H1[2,0]", 4),
    (101, "l1.H1[2,1]", 4),
    (101, "l1.H1[2,2]", 4),
    (101, "l1.H1[2,3]", 4),
    (102, "l1.H2[2,0]", 4),
    (102, "l1.H2[2,1]", 4),
    (102, "l1.H2[2,2]", 4),
    (102, "l1.H2[2,3]", 4),
    (106, "l1.mu1[2]", 4),
    (106, "l1.var1[2]", 4),
    (107, "l1.mu2[2]", 4),
    (107, "l1.var2[2]", 4),
    (117, "logits[나는]", 4),
    (117, "logits[오늘]", 4),
    (117, "logits[밥을]", 4),
    (117, "logits[먹었다]", 4),
    (117, "logits[학교에]", 4),
    (117, "logits[갔다]", 4),
    (118, "p[나는]", 4),
    (118, "p[오늘]", 4),
    (118, "p[밥을]", 4),
    (118, "p[먹었다]", 4),
    (118, "p[학교에]", 4),
    (118, "p[갔다]", 4),
    (122, "p[갔다]", 4),
    (141, "grad_l1.b_2[0]", 4),
    (141, "grad_l1.W_2[1,0]", 4),
    (141, "grad_l1.W_2[2,0]", 4),
    (142, "grad_l1.b_2[1]", 4),
    (142, "grad_l1.W_2[1,1]", 4),
    (142, "grad_l1.W_2[2,1]", 4),
    (143, "grad_l1.b_2[2]", 4),
    (143, "grad_l1.W_2[2,2]", 4),
    (144, "grad_l1.b_2[3]", 4),
    (144, "grad_l1.W_2[1,3]", 4),
    (144, "grad_l1.W_2[2,3]", 4),
    (153, "grad_l1.W_2[1,3]", 4),
    (155, "sgd[1].l1.W_2[2,2]", 4),
    (157, "sgd[1].p[갔다]", 4),
    (157, "sgd[1].loss", 4),
    (153, "l1.W_2[1,3]", 2),      # the old weight -0.25 in the SGD equation
    (153, "lr", 1),               # 0.1
    (155, "l1.W_2[2,2]", 1),      # the old weight 0.5
]


def value(ref: str):
    """lookup() plus a leading minus sign, exp(...) and the settings used in DOC.md."""
    if ref.startswith("-"):
        return -value(ref[1:])
    m = re.fullmatch(r"exp\((.*)\)", ref)
    if m:
        return mp.exp(value(m.group(1)))
    if ref == "lr":
        return LR
    return lookup(ref)


def check_doc() -> int:
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    bad = 0
    for line, ref, n in DOC_FIGURES:
        s = rnd(value(ref), n)
        if s.startswith("-") and set(s) <= set("-0."):
            s = s[1:]
        txt = lines[line - 1]
        found = re.search(r"(?<![\d.])" + re.escape(s) + r"(?![\d])", txt) is not None
        if not found and s.startswith("-"):      # a subtracted operand written as "- 0.0599"
            found = re.search(r"-\s*" + re.escape(s[1:]) + r"(?![\d])", txt) is not None
        bad += not found
        if not found:
            print(f"  DOC line {line}: {ref} = {s} NOT FOUND")
    print(f"{len(DOC_FIGURES)} correct figures of DOC.md checked;", "all present" if not bad else f"{bad} MISSING")
    return bad


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def main() -> int:
    bad_doc = check_doc()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = None
        for n in names:
            try:
                v, ref = value(n), n
                break
            except (KeyError, IndexError, ValueError, TypeError):
                continue
        if v is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        on_line = printed in (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")[int(cells[1]) - 1]
        if not on_line:
            print(f"  {printed:>10}  NOT ON LINE {cells[1]} of DOC.md")
            bad += 1
        v = v * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            ex = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(ex - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<24} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    print(f"{len(rows)} key rows;", "all agree with the oracle" if not bad else f"{bad} DISAGREE")
    assert not bad, f"{bad} key rows disagree with the oracle"
    assert not bad_doc, f"{bad_doc} figures of DOC.md are not the correct rounding"
    return 0


if __name__ == "__main__":
    sys.exit(main())
