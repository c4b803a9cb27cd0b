#!/usr/bin/env python3
"""Independent oracle for es-pdf-gpt2-2head-adamw (plain mpmath at 50 digits; no symgpt).

    python oracle.py     # every KEY.md row: its quantity, the exact value, and asserts that the
                         # key's "exact value" / "correct rounding" columns (planted rows) or the
                         # printed figure (correct rows) agree with it

Model: GPT-2 (pre-LN), 1 layer, 2 heads (d_k = 2), d = 4, d_ff = 8, V = 5, T = 3, learned positions,
biases everywhere, GELU in tanh form (0.044715 exact), ln_eps = 1e-5, tied head (logits = h·Eᵀ),
loss = −ln p[target] at the last position.  Gradients by a small reverse-mode autodiff on mpf
scalars.  One AdamW step as torch.optim.AdamW (decoupled weight decay on every trained tensor;
LayerNorm γ, β are frozen): θ ← θ(1 − ηλ) − η·m̂/(√v̂ + ε).
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = mp.mpf(v)
        self.parents = parents          # tuple of (Var, local derivative)
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


def vtanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
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
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.parents:
            p.g += n.g * d


# ---------------------------------------------------------------- the spec's weights

VOCAB = ["el", "gato", "come", "pan", "agua"]
IDS, TGT = [0, 1, 2], 3
D, H, DFF = 4, 2, 8
DK = D // H
EPS_LN = mp.mpf("1e-5")

W0 = {
    "E": [[0.3, -0.2, 0.1, 0.4], [-0.1, 0.5, 0.2, -0.3], [0.4, 0.1, -0.5, 0.2], [0.2, 0.3, 0.4, -0.1],
          [-0.4, 0.2, -0.1, 0.3]],
    "W_pe": [[0.1, 0.0, -0.1, 0.05], [0.0, 0.1, 0.05, -0.1], [-0.05, 0.1, 0.0, 0.1]],
    "W_Q": [[0.5, -0.3, 0.2, 0.1], [0.1, 0.4, -0.2, 0.3], [-0.2, 0.1, 0.6, -0.4], [0.3, 0.2, 0.1, 0.5]],
    "b_Q": [0.0, 0.1, 0.0, -0.1],
    "W_K": [[0.4, 0.2, -0.1, 0.3], [-0.3, 0.5, 0.2, 0.1], [0.2, -0.1, 0.4, 0.2], [0.1, 0.3, -0.3, 0.4]],
    "b_K": [0.0, 0.0, 0.1, 0.0],
    "W_V": [[0.3, 0.1, -0.2, 0.4], [0.2, -0.4, 0.3, 0.1], [-0.1, 0.3, 0.5, -0.2], [0.4, 0.2, 0.1, 0.3]],
    "b_V": [0.1, 0.0, 0.0, -0.1],
    "W_O": [[0.5, 0.1, -0.2, 0.3], [-0.1, 0.4, 0.2, 0.1], [0.2, -0.3, 0.6, 0.0], [0.1, 0.2, -0.1, 0.5]],
    "b_O": [0.0, 0.05, 0.0, -0.05],
    "W_1": [[0.3, -0.2, 0.5, 0.1, -0.4, 0.2, 0.6, -0.1], [0.2, 0.4, -0.3, 0.5, 0.1, -0.2, 0.3, 0.4],
            [-0.5, 0.1, 0.2, -0.3, 0.6, 0.4, -0.1, 0.2], [0.4, 0.3, 0.1, 0.2, -0.2, 0.5, 0.2, -0.3]],
    "b_1": [0.1, 0.0, -0.1, 0.05, 0.0, 0.1, -0.05, 0.0],
    "W_2": [[0.2, -0.1, 0.3, 0.1], [-0.3, 0.2, 0.1, 0.4], [0.1, 0.5, -0.2, 0.2], [0.4, -0.2, 0.1, -0.3],
            [-0.1, 0.3, 0.4, 0.2], [0.2, 0.1, -0.4, 0.3], [0.3, -0.3, 0.2, 0.1], [-0.2, 0.4, 0.1, -0.1]],
    "b_2": [0.0, 0.05, -0.05, 0.0],
}
FROZEN = {"gamma1": [1] * D, "beta1": [0] * D, "gamma2": [1] * D, "beta2": [0] * D,
          "gamma_f": [1] * D, "beta_f": [0] * D}

LR, B1, B2, EPS, WD = (mp.mpf(s) for s in ("0.02", "0.9", "0.999", "1e-8", "0.01"))


def exact(x):
    return mp.mpf(str(x))


def to_vars(t):
    return [to_vars(r) for r in t] if isinstance(t, list) else Var(exact(t) if not isinstance(t, mp.mpf) else t)


def vals(t):
    return [vals(r) for r in t] if isinstance(t, list) else t.v


def grads(t):
    return [grads(r) for r in t] if isinstance(t, list) else (t.g if t is not None else mp.mpf(0))


# ---------------------------------------------------------------- the forward pass

def layernorm(rows, gamma, beta):
    mus, vars_, outs = [], [], []
    for r in rows:
        mu = vsum(r) / D
        var = vsum([(x - mu) * (x - mu) for x in r]) / D
        s = vsqrt(var + EPS_LN)
        outs.append([(r[j] - mu) / s * exact(gamma[j]) + exact(beta[j]) for j in range(D)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def linear(rows, W, b):
    return [[vsum([r[i] * W[i][j] for i in range(len(W))]) + b[j] for j in range(len(W[0]))] for r in rows]


C_GELU = mp.sqrt(2 / mp.pi)


def gelu_tanh(z):
    return 0.5 * z * (1 + vtanh(C_GELU * (z + mp.mpf("0.044715") * z * z * z)))


def forward(P):
    T = len(IDS)
    f = {}
    f["H0"] = H0 = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    f["mu1"], f["var1"], f["LN1"] = layernorm(H0, FROZEN["gamma1"], FROZEN["beta1"])
    LN1 = f["LN1"]
    f["Q"] = Q = linear(LN1, P["W_Q"], P["b_Q"])
    f["K"] = K = linear(LN1, P["W_K"], P["b_K"])
    f["V"] = V = linear(LN1, P["W_V"], P["b_V"])
    S = [[[None] * T for _ in range(T)] for _ in range(H)]
    A = [[[None] * T for _ in range(T)] for _ in range(H)]
    A_den = [[None] * T for _ in range(H)]
    heads = [[None] * D for _ in range(T)]
    for h in range(H):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(T):                          # scores before the mask, every s
                S[h][t][s] = vsum([Q[t][j] * K[s][j] for j in cols]) / mp.sqrt(DK)
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            A_den[h][t] = vsum(ex)
            for s in range(T):
                A[h][t][s] = ex[s] / A_den[h][t] if s <= t else Var(0)
            for j in cols:
                heads[t][j] = vsum([A[h][t][s] * V[s][j] for s in range(t + 1)])
    f["S"], f["A"], f["A_den"], f["Attn_heads"] = S, A, A_den, heads
    f["Attn"] = Attn = linear(heads, P["W_O"], P["b_O"])
    f["H1"] = H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    f["mu2"], f["var2"], f["LN2"] = layernorm(H1, FROZEN["gamma2"], FROZEN["beta2"])
    f["Z"] = Z = linear(f["LN2"], P["W_1"], P["b_1"])
    f["R"] = R = [[gelu_tanh(z) for z in r] for r in Z]
    f["F"] = F = linear(R, P["W_2"], P["b_2"])
    f["H2"] = H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    f["mu_f"], f["var_f"], f["LN_f"] = layernorm(H2, FROZEN["gamma_f"], FROZEN["beta_f"])
    f["h_final"] = hf = f["LN_f"][T - 1]
    f["logits"] = logits = [vsum([hf[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    f["sum_exp"] = se = vsum(ex)
    f["p"] = [e / se for e in ex]
    f["loss"] = -vlog(f["p"][TGT])
    return f


def run(weights):
    P = {k: to_vars(v) for k, v in weights.items()}
    f = forward(P)
    backward(f["loss"])
    out = {k: vals(v) if isinstance(v, list) else v.v for k, v in f.items()}
    gr = {"grad_" + k: grads(v) for k, v in P.items()}
    for k, v in f.items():                          # ∂loss/∂ of every forward node too
        gr.setdefault("grad_" + k, grads(v) if isinstance(v, list) else v.g)
    return P, out, gr


def adamw_step(P, gr):
    """One torch.optim.AdamW step on every trained tensor; returns (new weights, per-entry record)."""
    new, rec = {}, {}

    def step(name, idx, th, g):
        m = (1 - B1) * g
        v = (1 - B2) * g * g
        mhat = m / (1 - B1)
        vhat = v / (1 - B2)
        upd = LR * mhat / (mp.sqrt(vhat) + EPS)
        nv = th * (1 - LR * WD) - upd
        rec[(name,) + idx] = dict(g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=LR * WD * th, new=nv)
        return nv

    for name, t in P.items():
        g = gr["grad_" + name]
        if isinstance(t[0], list):
            new[name] = [[step(name, (i, j), t[i][j].v, g[i][j]) for j in range(len(t[0]))] for i in range(len(t))]
        else:
            new[name] = [step(name, (i,), t[i].v, g[i]) for i in range(len(t))]
    return new, rec


P0, F0, G0 = run(W0)
W1_, REC = adamw_step(P0, G0)
_, F1, _ = run(W1_)


# ---------------------------------------------------------------- the quantities, by symgpt's names

TOK = {w: i for i, w in enumerate(VOCAB)}


def lookup(name: str):
    """Value of a symgpt-style reference such as `LN1[2,0]`, `A[1,2,1]`, `adamw[1].m[W_1,2,3]`."""
    m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[(\w+),([^\]]+)\]", name)
    if m:
        idx = tuple(TOK.get(x.strip(), None) if not x.strip().lstrip("-").isdigit() else int(x) for x in m[3].split(","))
        return REC[(m[2],) + idx][m[1]]
    m = re.fullmatch(r"adamw\[1\]\.(\w+)\[([^\]]+)\]", name)
    if m:                                            # a weight after the step, or a forward quantity of it
        idx = [TOK[x.strip()] if x.strip() in TOK else int(x) for x in m[2].split(",")]
        v = W1_[m[1]] if m[1] in W1_ else F1[m[1]]
        for i in idx:
            v = v[i]
        return v
    if name == "adamw[1].loss":
        return F1["loss"]
    m = re.fullmatch(r"sqrt\((\w+)\[(\d+)\] \+ ln_eps\)", name)
    if m:
        return mp.sqrt(F0[m[1]][int(m[2])] + EPS_LN)
    m = re.fullmatch(r"(\w+)(?:\[([^\]]+)\])?", name)
    base, idx = m[1], m[2]
    src = G0 if base.startswith("grad_") else F0
    v = src[base]
    if idx:
        for x in idx.split(","):
            x = x.strip()
            v = v[TOK[x] if x in TOK else int(x)]
    return v


# ---------------------------------------------------------------- rounding and the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    q = d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP)
    return f"{q:.{n}f}"


def parse_printed(s: str):
    """A printed figure of the document -> (value as Decimal, decimal places, is-percent, power of ten)."""
    s = s.replace("\u2212", "-").replace(" ", "").replace("\u00a0", "")
    pct = s.endswith("%")
    s = s.rstrip("%")
    power = 0
    m = re.fullmatch(r"(.+?)[·x×]10\^?\{?(−|-)?(\d+)\}?", s)
    if m:
        s, power = m[1], (-1 if m[2] else 1) * int(m[3])
    s = s.replace(",", ".")
    places = len(s.split(".")[1]) if "." in s else 0
    return Decimal(s), places, pct, power


def correct_text(v, printed: str) -> str:
    """The correct rounding of v written at the precision and in the form of `printed`."""
    _, places, pct, power = parse_printed(printed)
    x = v * (100 if pct else 1) / mp.mpf(10) ** power
    r = rnd(x, places)
    return r


def main() -> int:
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = 0
    text = None                                      # the PDF's lines, when poppler-utils is installed
    if shutil.which("pdftotext") and (HERE / "DOC.pdf").is_file():
        text = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout.split("\n")   # lines as sed counts them (a form feed is no line break)
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = lookup(names[0])
        if text is not None:                         # the figure stands on its line as printed
            line = int(cells[1])
            assert printed in text[line - 1], f"{printed!r} is not on line {line}: {text[line - 1]!r}"
        for other in names[1:]:                      # alternatives joined by "or" must agree
            assert abs(lookup(other) - v) < mp.mpf("1e-40"), (other, names[0])
        _, _, pct, power = parse_printed(printed)
        scaled = v * (100 if pct else 1)
        if len(cells) == 7:                          # planted: exact value and correct rounding columns
            shown = cells[4].strip("`")
            right = correct_text(v, shown)
            shown_val, _, _, _ = parse_printed(shown)
            exact_col = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok_exact = abs(exact_col - scaled) <= mp.mpf("1e-10") * abs(scaled) or abs(exact_col - scaled) < mp.mpf("1e-15")
            ok_round = Decimal(right) == shown_val
            ok_wrong = correct_text(v, printed) != str(parse_printed(printed)[0])
            ok = ok_exact and ok_round and ok_wrong
            note = "planted, key agrees" if ok else f"KEY DISAGREES (exact {ok_exact}, rounding {ok_round}, wrong {ok_wrong})"
        else:
            right = correct_text(v, printed)
            ok = Decimal(right) == parse_printed(printed)[0]
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>14}  {names[0]:<26} {mp.nstr(scaled, 20):<26} rounds to {right:<12} {note}")
    assert len([r for r in rows if len(r.strip().strip('|').split('|')) == 7]) == 8, "the key must plant exactly 8 errors"
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
