#!/usr/bin/env python3
"""Independent oracle for nl-txt-gpt2-2layer-adamw (plain mpmath, 50 digits, no symgpt).

The model is read from SPEC.toml beside this file (every number from its decimal text):
a two-block GPT-2, pre-LayerNorm, one head (d_k = 4), d = 4, d_ff = 8, learned positions,
biases on every projection, the attention output projection W_O, GELU in its tanh form
(constant 0.044715), a final LayerNorm ln_f (gamma_f, beta_f) and a head tied to E.

    x      = E[ids] + W_pe[0..T-1]                                   (H0)
    block b = 0, 1  (symgpt prefix l0., l1.)
      u    = LN(x; gamma1, beta1)      biased variance, eps 1e-5      (mu1, var1, LN1)
      Q,K,V= u W_Q + b_Q, u W_K + b_K, u W_V + b_V
      S    = Q K^T / sqrt(4); A = causal softmax(S)                   (S, A)
      Attn = (A V) W_O + b_O; H1 = x + Attn
      v    = LN(H1; gamma2, beta2)                                    (mu2, var2, LN2)
      Z    = v W_1 + b_1; R = gelu_tanh(Z); F = R W_2 + b_2; H2 = H1 + F
    LN_f = LN(l1.H2; gamma_f, beta_f); h_final = LN_f[T-1]
    logits = h_final E^T; p = softmax(logits); loss = -ln p[target]

Gradients by a small tape-based reverse mode over mpmath numbers, checked against central
differences. AdamW = torch.optim.AdamW, one step from zero moments (lr, betas, eps, decoupled
weight decay from [training.adamw]); every parameter is trained and decayed, the LayerNorm gains
and shifts included (training.learnable_ln = true). Then a forward pass at the new weights.

    python oracle.py    # checks KEY.md (both tables) and every figure of DOC.txt (FIGURES)

A quantity is written as symgpt names it (l1.W_2[2,1], grad_gamma_f[0], adamw[1].m[l1.W_2,2,1],
adamw[1].loss, ...) or as an arithmetic expression of such names (sqrt(var_f[2] + ln_eps),
1 - adamw.beta2, ...). Rounding: half away from zero; a figure with % is the quantity x 100.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=mp.mpf)

VOCAB = SPEC["model"]["vocab"]
D, DFF, NL = SPEC["model"]["d"], SPEC["model"]["d_ff"], SPEC["model"]["layers"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TARGET = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
EPS_LN = mp.mpf(str(SPEC["model"]["ln_eps"]))
ADAM = {k: mp.mpf(v) for k, v in SPEC["training"]["adamw"].items()}
C_GELU = mp.mpf("0.044715")


def as_mp(x):
    return [as_mp(y) for y in x] if isinstance(x, list) else mp.mpf(x)


def spec_params():
    w = SPEC["weights"]
    P = {k: as_mp(w[k]) for k in ("E", "W_pe", "gamma_f", "beta_f")}
    for b, layer in enumerate(SPEC["layer"]):
        for k, v in layer.items():
            P[f"l{b}.{k}"] = as_mp(v)
        for k, init in (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0)):
            P.setdefault(f"l{b}.{k}", [mp.mpf(init)] * D)
    return P


# ------------------------------------------------------------------ reverse mode on a tape
class Tape:
    def __init__(self):
        self.val, self.edges = [], []

    def leaf(self, v):
        self.val.append(mp.mpf(v))
        self.edges.append(())
        return len(self.val) - 1

    def op(self, v, edges):
        self.val.append(v)
        self.edges.append(tuple(edges))
        return len(self.val) - 1

    # elementary operations on node ids
    def add(self, a, b):
        return self.op(self.val[a] + self.val[b], ((a, 1), (b, 1)))

    def sub(self, a, b):
        return self.op(self.val[a] - self.val[b], ((a, 1), (b, -1)))

    def mul(self, a, b):
        return self.op(self.val[a] * self.val[b], ((a, self.val[b]), (b, self.val[a])))

    def div(self, a, b):
        x, y = self.val[a], self.val[b]
        return self.op(x / y, ((a, 1 / y), (b, -x / (y * y))))

    def scale(self, a, c):
        return self.op(self.val[a] * c, ((a, c),))

    def shift(self, a, c):
        return self.op(self.val[a] + c, ((a, 1),))

    def total(self, xs):
        return self.op(mp.fsum(self.val[x] for x in xs), tuple((x, 1) for x in xs))

    def dot(self, xs, ys):
        v = mp.fsum(self.val[x] * self.val[y] for x, y in zip(xs, ys))
        e = [(x, self.val[y]) for x, y in zip(xs, ys)] + [(y, self.val[x]) for x, y in zip(xs, ys)]
        return self.op(v, e)

    def exp(self, a):
        e = mp.exp(self.val[a])
        return self.op(e, ((a, e),))

    def log(self, a):
        return self.op(mp.log(self.val[a]), ((a, 1 / self.val[a]),))

    def sqrt(self, a):
        s = mp.sqrt(self.val[a])
        return self.op(s, ((a, 1 / (2 * s)),))

    def gelu(self, a):
        z = self.val[a]
        k = mp.sqrt(2 / mp.pi)
        u = k * (z + C_GELU * z ** 3)
        th = mp.tanh(u)
        v = z / 2 * (1 + th)
        dv = (1 + th) / 2 + z / 2 * (1 - th * th) * k * (1 + 3 * C_GELU * z * z)
        return self.op(v, ((a, dv),))

    def backward(self, out):
        g = [mp.mpf(0)] * len(self.val)
        g[out] = mp.mpf(1)
        for i in range(out, -1, -1):
            if g[i]:
                for j, local in self.edges[i]:
                    g[j] += g[i] * local
        return g


def tmap(f, x):
    return [tmap(f, y) for y in x] if isinstance(x, list) else f(x)


def model(P):
    """One forward pass at parameters P (name -> nested lists of mpf), recorded on a tape.
    Returns (tape, parameter node ids, named node ids)."""
    tp = Tape()
    W = {k: tmap(tp.leaf, v) for k, v in P.items()}
    N = {}

    def lnorm(row, g, b):
        mu = tp.scale(tp.total(row), mp.mpf(1) / D)
        cen = [tp.sub(x, mu) for x in row]
        var = tp.scale(tp.dot(cen, cen), mp.mpf(1) / D)
        sd = tp.sqrt(tp.shift(var, EPS_LN))
        return [tp.add(tp.mul(g[j], tp.div(cen[j], sd)), b[j]) for j in range(D)], mu, var

    def affine(row, M, bias):
        return [tp.add(tp.dot(row, [M[i][c] for i in range(len(row))]), bias[c]) for c in range(len(M[0]))]

    x = [[tp.add(W["E"][IDS[t]][j], W["W_pe"][t][j]) for j in range(D)] for t in range(T)]
    N["H0"] = x
    for b in range(NL):
        p = lambda k: W[f"l{b}.{k}"]  # noqa: E731
        ln1 = [lnorm(x[t], p("gamma1"), p("beta1")) for t in range(T)]
        u = [r[0] for r in ln1]
        Q = [affine(u[t], p("W_Q"), p("b_Q")) for t in range(T)]
        K = [affine(u[t], p("W_K"), p("b_K")) for t in range(T)]
        V = [affine(u[t], p("W_V"), p("b_V")) for t in range(T)]
        S = [[tp.scale(tp.dot(Q[t], K[s]), 1 / mp.sqrt(D)) for s in range(T)] for t in range(T)]
        A, AV, DEN = [], [], []
        for t in range(T):
            ex = [tp.exp(S[t][s]) for s in range(t + 1)]
            den = tp.total(ex)
            DEN.append(den)
            row = [tp.div(e, den) for e in ex]
            AV.append([tp.dot(row, [V[s][c] for s in range(t + 1)]) for c in range(D)])
            A.append(row + [tp.leaf(0)] * (T - t - 1))
        Attn = [affine(AV[t], p("W_O"), p("b_O")) for t in range(T)]
        H1 = [[tp.add(x[t][j], Attn[t][j]) for j in range(D)] for t in range(T)]
        ln2 = [lnorm(H1[t], p("gamma2"), p("beta2")) for t in range(T)]
        v = [r[0] for r in ln2]
        Z = [affine(v[t], p("W_1"), p("b_1")) for t in range(T)]
        R = [[tp.gelu(z) for z in Z[t]] for t in range(T)]
        F = [affine(R[t], p("W_2"), p("b_2")) for t in range(T)]
        H2 = [[tp.add(H1[t][j], F[t][j]) for j in range(D)] for t in range(T)]
        named = dict(mu1=[r[1] for r in ln1], var1=[r[2] for r in ln1], LN1=u, Q=Q, K=K, V=V, S=S,
                     A_den=DEN, A=A, Attn_heads=AV, Attn=Attn, H1=H1, mu2=[r[1] for r in ln2],
                     var2=[r[2] for r in ln2], LN2=v, Z=Z, R=R, F=F, H2=H2)
        for k, val in named.items():
            N[f"l{b}.{k}"] = val
        x = H2
    lnf = [lnorm(x[t], W["gamma_f"], W["beta_f"]) for t in range(T)]
    N["LN_f"] = [r[0] for r in lnf]
    N["mu_f"] = [r[1] for r in lnf]
    N["var_f"] = [r[2] for r in lnf]
    hf = N["LN_f"][T - 1]
    N["h_final"] = hf
    logits = [tp.dot(hf, W["E"][v]) for v in range(len(VOCAB))]
    N["logits"] = logits
    top = max(tp.val[z] for z in logits)
    ex = [tp.exp(tp.shift(z, -top)) for z in logits]
    den = tp.total(ex)
    N["p"] = [tp.div(e, den) for e in ex]
    N["sum_exp"] = tp.op(mp.fsum(mp.exp(tp.val[z]) for z in logits), ())
    N["loss"] = tp.scale(tp.log(N["p"][TARGET]), -1)
    return tp, W, N


def evaluate(P):
    tp, W, N = model(P)
    g = tp.backward(N["loss"])
    vals = {k: tmap(lambda i: tp.val[i], v) for k, v in N.items()}
    grads = {k: tmap(lambda i: g[i], v) for k, v in list(W.items()) + list(N.items())}
    return vals, grads


def zip_map(f, *xs):
    if isinstance(xs[0], list):
        return [zip_map(f, *ys) for ys in zip(*xs)]
    return f(*xs)


def adamw_first_step(P, G):
    lr, b1, b2, eps, wd = (ADAM[k] for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    st = {}
    for k in P:
        m = tmap(lambda g: (1 - b1) * g, G[k])
        v = tmap(lambda g: (1 - b2) * g * g, G[k])
        mhat = tmap(lambda x: x / (1 - b1), m)
        vhat = tmap(lambda x: x / (1 - b2), v)
        update = zip_map(lambda a, c: lr * a / (mp.sqrt(c) + eps), mhat, vhat)
        decay = tmap(lambda th: lr * wd * th, P[k])
        new = zip_map(lambda th, u: th - lr * wd * th - u, P[k], update)
        st[k] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=update, decay=decay, new=new)
    return st


P0 = spec_params()
VAL0, GRAD0 = evaluate(P0)
ST = adamw_first_step(P0, GRAD0)
P1 = {k: s["new"] for k, s in ST.items()}
VAL1, _ = evaluate(P1)


def central_differences():
    """The tape's gradient against (L(θ + h) − L(θ − h)) / 2h at 50 digits."""
    h = mp.mpf("1e-18")
    entries = [("gamma_f", (0,)), ("beta_f", (2,)), ("l1.W_2", (2, 1)), ("l1.W_2", (5, 3)),
               ("l1.W_1", (1, 4)), ("l0.W_Q", (2, 3)), ("E", (4, 1)), ("W_pe", (1, 2)),
               ("l0.gamma2", (3,)), ("l1.b_O", (1,))]
    worst = mp.mpf(0)
    for name, idx in entries:
        def loss_at(delta):
            P = {k: tmap(lambda x: x, v) for k, v in P0.items()}
            ref = P[name]
            for i in idx[:-1]:
                ref = ref[i]
            ref[idx[-1]] += delta
            tp, _, N = model(P)
            return tp.val[N["loss"]]
        fd = (loss_at(h) - loss_at(-h)) / (2 * h)
        an = pick(GRAD0[name], idx)
        worst = max(worst, abs(fd - an))
        if abs(fd - an) > mp.mpf("1e-25"):
            raise SystemExit(f"gradient check failed for {name}{list(idx)}: {fd} vs {an}")
    return worst


# ------------------------------------------------------------------ quantities by name
def pick(obj, idx):
    for i in idx:
        obj = obj[i]
    return obj


def indices(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        out.append(VOCAB.index(part) if part in VOCAB else int(part))
    return out


SETTINGS = {"ln_eps": EPS_LN, **{f"adamw.{k}": v for k, v in ADAM.items()}}
NAME = re.compile(r"(adamw\[1\]\.)?([A-Za-z_][\w.]*)(?:\[([^\[\]]*)\])?")


def lookup(tok: str):
    if tok in SETTINGS:
        return SETTINGS[tok]
    m = NAME.fullmatch(tok)
    if not m:
        raise KeyError(tok)
    after, base = m.group(1), m.group(2)
    if after and base in ("m", "v", "mhat", "vhat", "update", "decay"):
        parts = [s.strip() for s in m.group(3).split(",")]
        return pick(ST[parts[0]][base], indices(",".join(parts[1:])))
    idx = indices(m.group(3)) if m.group(3) else []
    if base.startswith("grad_"):
        if after:
            raise KeyError(tok)
        return pick(GRAD0[base[5:]], idx)
    if base in P0:
        return pick(P1[base] if after else P0[base], idx)
    return pick((VAL1 if after else VAL0)[base], idx)


TOKEN = re.compile(r"(?:adamw\[1\]\.)?[A-Za-z_][\w.]*(?:\[[^\[\]]*\])?")


def qvalue(expr: str):
    """A symgpt name, or an arithmetic expression of names (+ - * / sqrt exp ln)."""
    env, k = {"sqrt": mp.sqrt, "exp": mp.exp, "ln": mp.log}, 0

    def sub(m):
        nonlocal k
        tok = m.group(0)
        if tok in ("sqrt", "exp", "ln"):
            return tok
        key = f"_q{k}"
        k += 1
        env[key] = lookup(tok)
        return key

    code = TOKEN.sub(sub, expr.replace("\u2212", "-"))
    code = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)", r"mpf('\1')", code)
    env["mpf"] = mp.mpf
    return eval(code, {"__builtins__": {}}, env)  # noqa: S307 (our own expressions only)


# ------------------------------------------------------------------ rounding of a printed figure
def correct_rounding(printed: str, value) -> str:
    s = printed.strip().replace("\u2212", "-")
    pct = s.endswith("%")
    if pct:
        s = s[:-1].rstrip()
        value = value * 100
    m = re.fullmatch(r"-?\d+(?:\.(\d+))?(?:e([+-]\d+))?", s)
    if not m:
        raise ValueError(printed)
    nd = len(m.group(1) or "")
    exp = int(m.group(2)) if m.group(2) else 0
    dec = Decimal(mp.nstr(value / mp.mpf(10) ** exp, 45, min_fixed=-mp.inf, max_fixed=mp.inf))
    r = dec.quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP)
    if r == 0:
        r = abs(r)
    out = f"{r}" + (f"e{m.group(2)}" if m.group(2) else "")
    if printed.strip().startswith("\u2212") or ("\u2212" in printed and out.startswith("-")):
        out = out.replace("-", "\u2212", 1)
    if pct:
        out += " %" if printed.strip()[:-1].endswith(" ") else "%"
    return out


# ------------------------------------------------------------------ every figure of DOC.txt
# (line, printed, quantity)
# FIGURES-BEGIN
FIGURES: list = [
    (59, '0.14', 'H0[2,0]'),
    (59, '0.72', 'H0[2,1]'),
    (59, '0.55', 'H0[2,2]'),
    (59, '0.59', 'H0[2,3]'),
    (72, '0.14', 'H0[2,0]'),
    (72, '0.72', 'H0[2,1]'),
    (72, '0.55', 'H0[2,2]'),
    (72, '0.59', 'H0[2,3]'),
    (72, '0.5000', 'l0.mu1[2]'),
    (73, '0.1886', '4 * l0.var1[2]'),
    (73, '0.04715', 'l0.var1[2]'),
    (74, '0.04715', 'l0.var1[2]'),
    (74, '0.217164', 'sqrt(l0.var1[2] + ln_eps)'),
    (78, '-1.6577', 'l0.LN1[2,0]'),
    (78, '1.0311', 'l0.LN1[2,1]'),
    (78, '0.2302', 'l0.LN1[2,2]'),
    (78, '0.4144', 'l0.LN1[2,3]'),
    (87, '-0.0244', 'l0.S[2,0]'),
    (87, '-0.3067', 'l0.S[2,1]'),
    (87, '-0.2702', 'l0.S[2,2]'),
    (91, '-0.0244', 'l0.S[2,0]'),
    (91, '0.9759', 'exp(l0.S[2,0])'),
    (91, '2.4750', 'exp(l0.S[2,0]) + exp(l0.S[2,1]) + exp(l0.S[2,2])'),
    (91, '0.3943', 'l0.A[2,0]'),
    (97, '1.0000', 'l0.A[0,0]'),
    (98, '0.6252', 'l0.A[1,0]'),
    (98, '0.3748', 'l0.A[1,1]'),
    (99, '0.3943', 'l0.A[2,0]'),
    (99, '0.3748', 'l0.A[2,1]'),
    (99, '0.3084', 'l0.A[2,2]'),
    (106, '0.1193', 'l0.H1[2,0]'),
    (106, '0.6207', 'l0.H1[2,1]'),
    (106, '0.7630', 'l0.H1[2,2]'),
    (106, '0.4487', 'l0.H1[2,3]'),
    (111, '0.4879', 'l0.mu2[2]'),
    (111, '0.0577', 'l0.var2[2]'),
    (121, '-0.1544', 'l0.H2[0,0]'),
    (121, '-1.3859', 'l0.H2[0,1]'),
    (121, '0.6362', 'l0.H2[0,2]'),
    (121, '0.6356', 'l0.H2[0,3]'),
    (122, '-0.9589', 'l0.H2[1,0]'),
    (122, '0.3462', 'l0.H2[1,1]'),
    (122, '-0.2181', 'l0.H2[1,2]'),
    (122, '-1.1294', 'l0.H2[1,3]'),
    (123, '-0.3869', 'l0.H2[2,0]'),
    (123, '0.2218', 'l0.H2[2,1]'),
    (123, '0.3152', 'l0.H2[2,2]'),
    (123, '-0.1175', 'l0.H2[2,3]'),
    (134, '0.0081', 'l1.mu1[2]'),
    (134, '0.0779', 'l1.var1[2]'),
    (134, '0.2792', 'sqrt(l1.var1[2] + ln_eps)'),
    (138, '0.1427', 'l1.A[2,0]'),
    (138, '0.4778', 'l1.A[2,1]'),
    (138, '0.3795', 'l1.A[2,2]'),
    (140, '47.78%', 'l1.A[2,1]'),
    (141, '14.27%', 'l1.A[2,0]'),
    (146, '0.1469', 'l1.mu2[2]'),
    (146, '0.1096', 'l1.var2[2]'),
    (148, '0.04', 'l1.b_1[3]'),
    (150, '-1.0331', 'l1.LN2[2,0]'),
    (150, '0.16', 'l1.W_1[0,3]'),
    (150, '0.4143', 'l1.LN2[2,1]'),
    (150, '0.53', 'l1.W_1[1,3]'),
    (150, '1.4428', 'l1.LN2[2,2]'),
    (150, '-0.09', 'l1.W_1[2,3]'),
    (150, '-0.8240', 'l1.LN2[2,3]'),
    (150, '-0.42', 'l1.W_1[3,3]'),
    (151, '0.2705', 'l1.Z[2,3]'),
    (157, '-0.0432', 'l1.R[2,0]'),
    (157, '0.4928', 'l1.R[2,1]'),
    (157, '-0.1307', 'l1.R[2,2]'),
    (157, '0.1931', 'l1.R[2,3]'),
    (157, '-0.1657', 'l1.R[2,4]'),
    (157, '-0.1600', 'l1.R[2,5]'),
    (157, '0.7422', 'l1.R[2,6]'),
    (157, '0.5701', 'l1.R[2,7]'),
    (159, '0.7422', 'l1.R[2,6]'),
    (162, '0.4482', 'l1.F[2,0]'),
    (162, '0.4863', 'l1.F[2,1]'),
    (162, '0.4648', 'l1.F[2,2]'),
    (162, '-0.1057', 'l1.F[2,3]'),
    (169, '0.2530', 'l1.H2[2,0]'),
    (169, '0.7703', 'l1.H2[2,1]'),
    (169, '1.0893', 'l1.H2[2,2]'),
    (169, '-0.2316', 'l1.H2[2,3]'),
    (177, '0.4703', 'mu_f[2]'),
    (178, '0.3377', 'var_f[2]'),
    (182, '-0.4317', '(LN_f[2,0] - beta_f[0]) / gamma_f[0]'),
    (182, '0.5962', '(LN_f[2,1] - beta_f[1]) / gamma_f[1]'),
    (182, '1.2301', '(LN_f[2,2] - beta_f[2]) / gamma_f[2]'),
    (182, '-1.3946', '(LN_f[2,3] - beta_f[3]) / gamma_f[3]'),
    (183, '-0.2913', 'LN_f[2,0]'),
    (183, '0.5960', 'LN_f[2,1]'),
    (183, '1.1355', 'LN_f[2,2]'),
    (183, '-1.5483', 'LN_f[2,3]'),
    (189, '0.1160', 'logits[0]'),
    (189, '0.0883', 'p[0]'),
    (190, '0.5785', 'logits[1]'),
    (190, '0.1402', 'p[1]'),
    (191, '1.8652', 'logits[2]'),
    (191, '0.5076', 'p[2]'),
    (192, '-0.0103', 'logits[3]'),
    (192, '0.0778', 'p[3]'),
    (193, '-1.4093', 'logits[4]'),
    (193, '0.0192', 'p[4]'),
    (194, '0.7529', 'logits[5]'),
    (194, '0.1669', 'p[5]'),
    (196, '12.7206', 'sum_exp'),
    (198, '50.76%', 'p[meisje]'),
    (199, '1.92%', 'p[een]'),
    (201, '0.0192', 'p[een]'),
    (201, '3.9528', 'loss'),
    (214, '0.0883', 'grad_logits[0]'),
    (214, '0.1402', 'grad_logits[1]'),
    (214, '0.5076', 'grad_logits[2]'),
    (214, '0.0778', 'grad_logits[3]'),
    (214, '0.0192', 'grad_logits[4]'),
    (214, '0.1669', 'grad_logits[5]'),
    (221, '-0.0989', 'grad_h_final[0]'),
    (221, '0.7642', 'grad_h_final[1]'),
    (221, '0.9146', 'grad_h_final[2]'),
    (221, '-0.6603', 'grad_h_final[3]'),
    (230, '0.0427', 'grad_gamma_f[0]'),
    (230, '0.4556', 'grad_gamma_f[1]'),
    (230, '1.1251', 'grad_gamma_f[2]'),
    (230, '0.9209', 'grad_gamma_f[3]'),
    (232, '0.9146', 'grad_h_final[2]'),
    (232, '1.2301', '(LN_f[2,2] - beta_f[2]) / gamma_f[2]'),
    (232, '1.1251', 'grad_gamma_f[2]'),
    (240, '-0.0667', 'grad_l1.H2[2,0]'),
    (240, '0.3724', 'grad_l1.H2[2,1]'),
    (240, '-0.2579', 'grad_l1.H2[2,2]'),
    (240, '-0.0477', 'grad_l1.H2[2,3]'),
    (246, '-0.1307', 'l1.R[2,2]'),
    (246, '0.3724', 'grad_l1.F[2,1]'),
    (246, '-0.0486', 'grad_l1.W_2[2,1]'),
    (247, '-0.1600', 'l1.R[2,5]'),
    (247, '-0.0477', 'grad_l1.F[2,3]'),
    (247, '0.0076', 'grad_l1.W_2[5,3]'),
    (251, '-0.1678', 'grad_l1.R[2,1]'),
    (252, '-0.1607', 'grad_l1.Z[2,1]'),
    (253, '-1.0331', 'l1.LN2[2,0]'),
    (253, '-0.1607', 'grad_l1.Z[2,1]'),
    (253, '0.1660', 'grad_l1.W_1[0,1]'),
    (271, '0.112506', 'adamw[1].m[gamma_f,2]'),
    (271, '1.2658e-03', 'adamw[1].v[gamma_f,2]'),
    (271, '0.010000', 'adamw[1].update[gamma_f,2]'),
    (271, '0.969020', 'adamw[1].gamma_f[2]'),
    (272, '0.076424', 'adamw[1].m[beta_f,1]'),
    (272, '5.8406e-04', 'adamw[1].v[beta_f,1]'),
    (272, '0.010000', 'adamw[1].update[beta_f,1]'),
    (272, '-0.039970', 'adamw[1].beta_f[1]'),
    (273, '-0.004865', 'adamw[1].m[l1.W_2,2,1]'),
    (273, '2.3667e-06', 'adamw[1].v[l1.W_2,2,1]'),
    (273, '-0.010000', 'adamw[1].update[l1.W_2,2,1]'),
    (273, '-0.529460', 'adamw[1].l1.W_2[2,1]'),
    (274, '0.016599', 'adamw[1].m[l1.W_1,0,1]'),
    (274, '2.7552e-05', 'adamw[1].v[l1.W_1,0,1]'),
    (274, '0.010000', 'adamw[1].update[l1.W_1,0,1]'),
    (274, '-0.439570', 'adamw[1].l1.W_1[0,1]'),
    (282, '-0.048649', 'grad_l1.W_2[2,1]'),
    (282, '-0.0048649', 'adamw[1].m[l1.W_2,2,1]'),
    (283, '-0.048649', 'grad_l1.W_2[2,1]'),
    (283, '0.0000023667', 'adamw[1].v[l1.W_2,2,1]'),
    (284, '0.0023667', 'adamw[1].vhat[l1.W_2,2,1]'),
    (285, '-0.048649', 'adamw[1].mhat[l1.W_2,2,1]'),
    (285, '0.048649', 'sqrt(adamw[1].vhat[l1.W_2,2,1])'),
    (285, '-0.010000', 'adamw[1].update[l1.W_2,2,1]'),
    (286, '-0.00054', 'adamw[1].decay[l1.W_2,2,1]'),
    (287, '-0.00054', 'adamw[1].decay[l1.W_2,2,1]'),
    (287, '-0.010000', 'adamw[1].update[l1.W_2,2,1]'),
    (287, '-0.529460', 'adamw[1].l1.W_2[2,1]'),
    (291, '0.00098', 'adamw[1].decay[gamma_f,2]'),
    (291, '0.112506', 'adamw[1].m[gamma_f,2]'),
    (291, '0.00126576', 'adamw[1].v[gamma_f,2]'),
    (292, '0.947397', 'adamw[1].gamma_f[2]'),
    (296, '3.6299', 'adamw[1].loss'),
    (296, '3.9525', 'loss'),
    (296, '0.0265', 'adamw[1].p[een]'),
]
# FIGURES-END


def key_tables():
    planted, correct, cur = [], [], None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## Planted"):
            cur = planted
        elif line.startswith("## Correct"):
            cur = correct
        elif cur is not None and line.startswith("| `"):
            cur.append([c.strip() for c in line.split("|")[1:-1]])
    return planted, correct


def unq(c):
    return c.strip().strip("`")


def alternatives(cell):
    return [unq(q) for q in cell.split(" or ")]


def full(v):
    return mp.nstr(v, 40, min_fixed=-mp.inf, max_fixed=mp.inf)


def main():
    worst = central_differences()
    print(f"ok   reverse mode = central differences on 10 entries (largest gap {mp.nstr(worst, 3)})")
    fails = []

    def check(ok, msg):
        print(("ok   " if ok else "FAIL ") + msg)
        if not ok:
            fails.append(msg)

    lines = (HERE / "DOC.txt").read_text(encoding="utf-8").split("\n")
    planted, correct = key_tables()
    check(len(planted) == 8, f"{len(planted)} planted rows")
    check(len(correct) == 10, f"{len(correct)} correct rows")
    print("\n# planted errors")
    for printed, line, where, exact, corr, kind, qty in planted:
        pr, ln = unq(printed), int(line)
        for q in alternatives(qty):
            v = qvalue(q)
            shown = v * 100 if pr.endswith("%") else v
            ex = exact.rstrip("…").strip()
            print(f"{q} = {full(shown)}")
            digits = len(ex.replace("-", "").replace(".", "").lstrip("0"))
            check(full(shown).startswith(ex) and digits >= 10, f"  exact value column {ex}")
            cr = correct_rounding(pr, v)
            check(cr == unq(corr), f"  correct rounding {unq(corr)} (computed {cr})")
            check(cr != pr, f"  printed {pr} is not the correct rounding")
        check(pr in lines[ln - 1], f"  printed {pr} on line {ln}")
    print("\n# correct figures")
    for printed, line, where, qty in correct:
        pr, ln = unq(printed), int(line)
        for q in alternatives(qty):
            v = qvalue(q)
            cr = correct_rounding(pr, v)
            print(f"{q} = {full(v)}")
            check(cr == pr, f"  {pr} is the correct rounding ({cr})")
        check(pr in lines[ln - 1], f"  printed {pr} on line {ln}")
    if FIGURES:
        print("\n# every figure of DOC.txt")
        planted_at = {(int(r[1]), unq(r[0])) for r in planted}
        listed = {(ln, pr) for ln, pr, _ in FIGURES}
        for r in planted + correct:
            check((int(r[1]), unq(r[0])) in listed, f"key row {unq(r[0])} (line {r[1]}) is in FIGURES")
        good = 0
        for ln, pr, q in FIGURES:
            cr = correct_rounding(pr, qvalue(q))
            right = (cr == pr) != ((ln, pr) in planted_at)
            here = pr in lines[ln - 1]
            if right and here:
                good += 1
            else:
                check(False, f"line {ln}: {pr} for {q} (correct {cr}, on the line: {here})")
        check(True, f"{good} of {len(FIGURES)} figures as intended (planted wrong, the rest right)")
    print()
    if fails:
        print(f"{len(fails)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
