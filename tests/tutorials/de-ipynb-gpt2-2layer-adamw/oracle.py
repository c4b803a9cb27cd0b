#!/usr/bin/env python3
"""Independent oracle for de-ipynb-gpt2-2layer-adamw: plain mpmath at 50 digits, no symgpt.

Model (GPT-2, two blocks, pre-LN), read from SPEC.toml beside this file, every number from its
decimal text:
  H0 = wte[ids] + wpe[0..2]
  per block b (prefix l0., l1.):
    LN1 = LayerNorm(H; gamma1, beta1, eps 1e-5)   (biased variance)
    Q, K, V = LN1 W_Q + b_Q, LN1 W_K + b_K, LN1 W_V + b_V          (c_attn, split in three)
    two heads of width 2 (head h: columns 2h, 2h+1); S[h,t,s] = q_t . k_s / sqrt(2);
    causal softmax A[h,t,s]; Attn_heads = A V per head, side by side
    Attn = Attn_heads W_O + b_O (attn.c_proj); H1 = H + Attn
    LN2 = LayerNorm(H1; gamma2, beta2); Z = LN2 W_1 + b_1 (c_fc);
    R = GELU_tanh(Z) = Z/2 (1 + tanh(sqrt(2/pi) (Z + 0.044715 Z^3))); F = R W_2 + b_2 (mlp.c_proj)
    H2 = H1 + F
  LN_f = LayerNorm(l1.H2; gamma_f, beta_f); h_final = LN_f[2]; logits = h_final E^T (tied head);
  p = softmax(logits); loss = -ln p[Milch].
Gradients by a small reverse-mode autodiff over mpmath numbers (checked against central
differences on a few entries). AdamW as torch.optim.AdamW (lr 1e-3, betas 0.9/0.95, eps 1e-8,
decoupled weight decay 0.1 on every trained parameter; the LayerNorm gains and shifts are not
trained), first step; then the forward pass again for the loss after the step.

    python oracle.py   # checks every figure DOC.ipynb prints (FIGURES below, with its line)
                       # and both tables of KEY.md: each row's quantity with its exact value,
                       # the "exact value" and "correct rounding" columns

Rounding is half away from zero, on a 45-digit decimal of the value; a figure printed with a
percent sign is the quantity x 100.
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

with open(HERE / "SPEC.toml", "rb") as fh:
    SPEC = tomllib.load(fh, parse_float=lambda s: mp.mpf(s))

VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
D, DFF, NH, NL = 4, 8, 2, 2
DK = D // NH
T = len(IDS)
LN_EPS = mp.mpf("1e-5")
AD = SPEC["training"]["adamw"]
LR, B1, B2, AEPS, WD = (mp.mpf(AD[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
GELU_C = mp.mpf("0.044715")
LN_NAMES = ("gamma1", "beta1", "gamma2", "beta2", "gamma_f", "beta_f")


def _mp(x):
    if isinstance(x, list):
        return [_mp(v) for v in x]
    return mp.mpf(x)


def initial_params():
    P = {"E": _mp(SPEC["weights"]["E"]), "W_pe": _mp(SPEC["weights"]["W_pe"]),
         "gamma_f": _mp(SPEC["weights"]["gamma_f"]), "beta_f": _mp(SPEC["weights"]["beta_f"])}
    for b, layer in enumerate(SPEC["layer"]):
        for k, v in layer.items():
            P[f"l{b}.{k}"] = _mp(v)
    return P


# ---------------------------------------------------------------- a tiny reverse-mode autodiff
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v
        self.parents = parents  # tuple of (Var, local derivative)
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = lift(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, -1),))


def lift(x):
    return x if isinstance(x, Var) else Var(mp.mpf(x))


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vtanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


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
        for p, local in node.parents:
            p.g += node.g * local


# ---------------------------------------------------------------- the model
def vsum(xs):
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    return acc


def layernorm(row, gamma, beta):
    n = len(row)
    mu = vsum(row) / n
    var = vsum([(x - mu) * (x - mu) for x in row]) / n
    sd = vsqrt(var + LN_EPS)
    return [gamma[j] * ((row[j] - mu) / sd) + beta[j] for j in range(n)], mu, var


def matmul_row(row, W, b=None):
    out = []
    for c in range(len(W[0])):
        acc = vsum([row[i] * W[i][c] for i in range(len(row))])
        out.append(acc + b[c] if b is not None else acc)
    return out


def gelu(z):
    k = mp.sqrt(2 / mp.pi)
    return mp.mpf("0.5") * z * (1 + vtanh(k * (z + GELU_C * z * z * z)))


def forward(P):
    """P: name -> nested lists of Var. Returns a dict of every node (nested lists of Var)."""
    N = {}
    N["H0"] = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    H = N["H0"]
    for b in range(NL):
        L = lambda k: P[f"l{b}.{k}"]  # noqa: E731
        ln1, mu1, var1 = zip(*[layernorm(H[t], L("gamma1"), L("beta1")) for t in range(T)])
        Q = [matmul_row(ln1[t], L("W_Q"), L("b_Q")) for t in range(T)]
        K = [matmul_row(ln1[t], L("W_K"), L("b_K")) for t in range(T)]
        V = [matmul_row(ln1[t], L("W_V"), L("b_V")) for t in range(T)]
        S = [[[None] * T for _ in range(T)] for _ in range(NH)]
        A = [[[Var(mp.mpf(0))] * T for _ in range(T)] for _ in range(NH)]
        heads = [[None] * D for _ in range(T)]
        for h in range(NH):
            cols = range(h * DK, (h + 1) * DK)
            for t in range(T):
                for s in range(T):
                    S[h][t][s] = vsum([Q[t][c] * K[s][c] for c in cols]) / mp.sqrt(DK)
                ex = [vexp(S[h][t][s]) for s in range(t + 1)]
                den = vsum(ex)
                for s in range(t + 1):
                    A[h][t][s] = ex[s] / den
                for c in cols:
                    heads[t][c] = vsum([A[h][t][s] * V[s][c] for s in range(t + 1)])
        Attn = [matmul_row(heads[t], L("W_O"), L("b_O")) for t in range(T)]
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        ln2, mu2, var2 = zip(*[layernorm(H1[t], L("gamma2"), L("beta2")) for t in range(T)])
        Z = [matmul_row(ln2[t], L("W_1"), L("b_1")) for t in range(T)]
        R = [[gelu(z) for z in Z[t]] for t in range(T)]
        F = [matmul_row(R[t], L("W_2"), L("b_2")) for t in range(T)]
        H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        for k, v in dict(mu1=list(mu1), var1=list(var1), LN1=list(ln1), Q=Q, K=K, V=V, S=S, A=A,
                         Attn_heads=heads, Attn=Attn, H1=H1, mu2=list(mu2), var2=list(var2),
                         LN2=list(ln2), Z=Z, R=R, F=F, H2=H2).items():
            N[f"l{b}.{k}"] = v
        H = H2
    lnf, muf, varf = zip(*[layernorm(H[t], P["gamma_f"], P["beta_f"]) for t in range(T)])
    N["mu_f"], N["var_f"], N["LN_f"] = list(muf), list(varf), list(lnf)
    hf = lnf[T - 1]
    N["h_final"] = list(hf)
    logits = [vsum([hf[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    N["logits"] = logits
    m = max(x.v for x in logits)
    ex = [vexp(x - m) for x in logits]
    den = vsum(ex)
    N["p"] = [e / den for e in ex]
    N["sum_exp"] = vsum([vexp(x) for x in logits])
    N["loss"] = -vlog(N["p"][TGT])
    return N


def to_var(x):
    return [to_var(v) for v in x] if isinstance(x, list) else Var(x)


def val(x):
    return [val(v) for v in x] if isinstance(x, list) else x.v


def grad(x):
    return [grad(v) for v in x] if isinstance(x, list) else x.g


def run(P):
    PV = {k: to_var(v) for k, v in P.items()}
    N = forward(PV)
    backward(N["loss"])
    vals = {k: val(v) for k, v in N.items()}
    grads = {k: grad(v) for k, v in PV.items()}
    node_grads = {k: grad(v) for k, v in N.items() if k in ("logits", "h_final")}
    return vals, grads, node_grads


def _map2(f, *xs):
    if isinstance(xs[0], list):
        return [_map2(f, *ys) for ys in zip(*xs)]
    return f(*xs)


def adamw_step(P, G):
    """torch.optim.AdamW, step 1, from zero moments."""
    out = {}
    for k, theta in P.items():
        if k.split(".")[-1] in LN_NAMES:
            out[k] = dict(new=theta)
            continue
        g = G[k]
        m = _map2(lambda x: (1 - B1) * x, g)
        v = _map2(lambda x: (1 - B2) * x * x, g)
        mhat = _map2(lambda x: x / (1 - B1), m)
        vhat = _map2(lambda x: x / (1 - B2), v)
        upd = _map2(lambda a, b: LR * a / (mp.sqrt(b) + AEPS), mhat, vhat)
        dec = _map2(lambda th: LR * WD * th, theta)
        new = _map2(lambda th, u: th * (1 - LR * WD) - u, theta, upd)
        out[k] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=new)
    return out


P0 = initial_params()
VALS, GRADS, NODE_GRADS = run(P0)
STEP = adamw_step(P0, GRADS)
P1 = {k: s["new"] for k, s in STEP.items()}
VALS1 = {k: val(v) for k, v in forward({k: to_var(v) for k, v in P1.items()}).items()}


def _fd_check():
    """Central differences at 50 digits against the autodiff on a few entries."""
    h = mp.mpf("1e-18")
    for name, idx in (("l0.W_Q", (1, 0)), ("l1.W_1", (0, 3)), ("E", (3, 0)), ("W_pe", (2, 3)),
                      ("l1.W_V", (2, 1))):
        def loss_at(delta):
            P = {k: [list(r) if isinstance(r, list) else r for r in v] for k, v in P0.items()}
            P[name][idx[0]][idx[1]] += delta
            return forward({k: to_var(v) for k, v in P.items()})["loss"].v
        fd = (loss_at(h) - loss_at(-h)) / (2 * h)
        an = GRADS[name][idx[0]][idx[1]]
        assert abs(fd - an) < mp.mpf("1e-25"), (name, idx, fd, an)


# ---------------------------------------------------------------- quantities by symgpt-style name
def _index(obj, idx):
    for i in idx:
        obj = obj[i]
    return obj


def _parse_idx(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        out.append(VOCAB.index(part) if part in VOCAB else int(part))
    return out


def qvalue(name: str):
    name = name.strip()
    if name.startswith("-"):
        return -qvalue(name[1:])
    m = re.fullmatch(r"1\s*-\s*(.+)", name)
    if m:
        return 1 - qvalue(m.group(1))
    m = re.fullmatch(r"sqrt\((.+?)\s*\+\s*ln_eps\)", name)
    if m:
        return mp.sqrt(qvalue(m.group(1)) + LN_EPS)
    settings = {"adamw.lr": LR, "adamw.beta1": B1, "adamw.beta2": B2, "adamw.eps": AEPS,
                "adamw.weight_decay": WD, "ln_eps": LN_EPS}
    if name in settings:
        return settings[name]
    m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[([\w.]+),([^\]]+)\]", name)
    if m:
        return _index(STEP[m.group(2)][m.group(1)], _parse_idx(m.group(3)))
    m = re.fullmatch(r"(adamw\[1\]\.)?([\w.]+?)(?:\[([^\]]+)\])?", name)
    if not m:
        raise KeyError(name)
    after, base, idx = bool(m.group(1)), m.group(2), _parse_idx(m.group(3)) if m.group(3) else []
    if base.startswith("grad_"):
        b = base[5:]
        assert not after
        src = GRADS[b] if b in GRADS else NODE_GRADS[b]
        return _index(src, idx)
    if base in P0:
        return _index(P1[base] if after else P0[base], idx)
    src = VALS1 if after else VALS
    return _index(src[base], idx)


# ---------------------------------------------------------------- rounding of a printed figure
def _dec(v):
    return Decimal(mp.nstr(v, 45, min_fixed=-mp.inf, max_fixed=mp.inf))


def correct_rounding(printed: str, v) -> str:
    """The correct rounding of v in the printed figure's own format."""
    s = printed.strip().replace("\u2212", "-").replace("\u202f", " ")
    pct = s.endswith("%")
    if pct:
        s = s[:-1].strip()
        v = v * 100
    comma = "," in s
    s = s.replace(",", ".")
    m = re.fullmatch(r"(-?\d+(?:\.(\d+))?)e([+-]\d+)", s)
    if m:
        nd = len(m.group(2) or "")
        exp = int(m.group(3))
        mant = _dec(v / mp.mpf(10) ** exp).quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP)
        out = f"{mant}e{m.group(3)}"
    else:
        nd = len(s.split(".")[1]) if "." in s else 0
        r = _dec(v).quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP)
        if r == 0:
            r = abs(r)
        out = f"{r}"
    if comma:
        out = out.replace(".", ",")
    if printed.strip().startswith("\u2212"):
        out = out.replace("-", "\u2212")
    elif "\u2212" in printed and out.startswith("-"):
        out = "\u2212" + out[1:]
    if pct:
        out = out + (" %" if printed.strip()[:-1].endswith(" ") else "%")
    return out


# ---------------------------------------------------------------- every figure of DOC.ipynb
# (line, printed, quantity): written by the author's build script from the notebook itself.
# FIGURES-BEGIN
FIGURES: list = [
    (78, '0,0300', 'l0.mu1[2]'),
    (78, '0,04595', 'l0.var1[2]'),
    (78, '0,2144', 'sqrt(l0.var1[2] + ln_eps)'),
    (82, '0,0300', 'l0.mu1[2]'),
    (82, '0,05', '-l0.beta1[3]'),
    (82, '0,2144', 'sqrt(l0.var1[2] + ln_eps)'),
    (82, '0,35', 'H0[2,3]'),
    (82, '1', 'l0.gamma1[3]'),
    (82, '1,4425', 'l0.LN1[2,3]'),
    (95, '0.1466', 'l0.A[0,2,2]'),
    (95, '0.3688', 'l0.A[0,2,0]'),
    (95, '0.4846', 'l0.A[0,2,1]'),
    (96, '0.2833', 'l0.A[1,2,2]'),
    (96, '0.3307', 'l0.A[1,2,1]'),
    (96, '0.3861', 'l0.A[1,2,0]'),
    (126, '3,86 %', 'l0.A[1,2,0]'),
    (126, '48,46 %', 'l0.A[0,2,1]'),
    (139, '0.0403', 'l0.mu2[2]'),
    (139, '0.0484', 'l0.var2[2]'),
    (178, '0.1487', 'l1.A[0,2,1]'),
    (178, '0.1683', 'l1.A[0,2,0]'),
    (178, '0.6829', 'l1.A[0,2,2]'),
    (179, '0.2229', 'l1.A[1,2,2]'),
    (179, '0.3821', 'l1.A[1,2,0]'),
    (179, '0.3950', 'l1.A[1,2,1]'),
    (199, '68,29 %', 'l1.A[0,2,2]'),
    (222, '-0.0549', 'h_final[2]'),
    (222, '-0.2585', 'h_final[0]'),
    (222, '-1.1265', 'h_final[1]'),
    (222, '1.5346', 'h_final[3]'),
    (223, '-0.3067', 'logits[4]'),
    (223, '-1.0005', 'logits[1]'),
    (223, '0.0755', 'logits[0]'),
    (223, '0.4648', 'logits[3]'),
    (223, '0.6424', 'logits[2]'),
    (224, '0.0648', 'p[1]'),
    (224, '0.1297', 'p[4]'),
    (224, '0.1900', 'p[0]'),
    (224, '0.2805', 'p[3]'),
    (224, '0.3350', 'p[2]'),
    (225, '1.2712', 'loss'),
    (252, '0,00851', 'l1.var1[2]'),
    (252, '0,0250', 'l1.mu1[2]'),
    (252, '0,0932', 'sqrt(l1.var1[2] + ln_eps)'),
    (253, '0,0674', 'var_f[2]'),
    (253, '0,2596', 'sqrt(var_f[2] + ln_eps)'),
    (253, '−0,0651', 'mu_f[2]'),
    (263, '0,1298', 'p[4]'),
    (263, '0,2805', 'p[3]'),
    (263, '0,3350', 'p[2]'),
    (265, '0,2805', 'p[3]'),
    (265, '1,2712', 'loss'),
    (277, '0,2805', 'p[3]'),
    (277, '0,7195', 'grad_logits[3]'),
    (292, '0.3162', 'grad_l0.W_Q[1,0]'),
    (293, '-0.0224', 'grad_l1.W_K[0,1]'),
    (294, '-0.0307', 'grad_l1.W_V[2,1]'),
    (295, '-0.0084', 'grad_l0.W_1[2,3]'),
    (296, '-0.0115', 'grad_l1.W_1[0,3]'),
    (297, '0.1860', 'grad_E[3,0]'),
    (298, '-0.1079', 'grad_W_pe[2,3]'),
    (324, '−0,0224', 'grad_l1.W_K[1,0]'),
    (326, '-0,0335', 'grad_E[4,0]'),
    (326, '-0,2585', 'h_final[0]'),
    (326, '0,1297', 'p[4]'),
    (336, '0,1', 'adamw.weight_decay'),
    (336, '0,9', 'adamw.beta1'),
    (336, '0,95', 'adamw.beta2'),
    (356, '-0.050995', 'adamw[1].l0.W_Q[1,0]'),
    (356, '0.031620', 'adamw[1].m[l0.W_Q,1,0]'),
    (356, '0.316196', 'adamw[1].mhat[l0.W_Q,1,0]'),
    (356, '4.9990e-03', 'adamw[1].v[l0.W_Q,1,0]'),
    (356, '9.9980e-02', 'adamw[1].vhat[l0.W_Q,1,0]'),
    (357, '-0.003073', 'adamw[1].m[l1.W_V,2,1]'),
    (357, '-0.030727', 'adamw[1].mhat[l1.W_V,2,1]'),
    (357, '-0.298970', 'adamw[1].l1.W_V[2,1]'),
    (357, '4.7207e-05', 'adamw[1].v[l1.W_V,2,1]'),
    (357, '9.4415e-04', 'adamw[1].vhat[l1.W_V,2,1]'),
    (358, '-0.001147', 'adamw[1].m[l1.W_1,0,3]'),
    (358, '-0.011471', 'adamw[1].mhat[l1.W_1,0,3]'),
    (358, '0.400960', 'adamw[1].l1.W_1[0,3]'),
    (358, '1.3157e-04', 'adamw[1].vhat[l1.W_1,0,3]'),
    (358, '6.5787e-06', 'adamw[1].v[l1.W_1,0,3]'),
    (359, '-0.400960', 'adamw[1].E[3,0]'),
    (359, '0.018598', 'adamw[1].m[E,3,0]'),
    (359, '0.185981', 'adamw[1].mhat[E,3,0]'),
    (359, '1.7294e-03', 'adamw[1].v[E,3,0]'),
    (359, '3.4589e-02', 'adamw[1].vhat[E,3,0]'),
    (360, '-0.010795', 'adamw[1].m[W_pe,2,3]'),
    (360, '-0.048995', 'adamw[1].W_pe[2,3]'),
    (360, '-0.107948', 'adamw[1].mhat[W_pe,2,3]'),
    (360, '1.1653e-02', 'adamw[1].vhat[W_pe,2,3]'),
    (360, '5.8264e-04', 'adamw[1].v[W_pe,2,3]'),
    (385, '-0,4', 'E[3,0]'),
    (385, '0,1860', 'grad_E[3,0]'),
    (387, '0,0017298', 'adamw[1].v[E,3,0]'),
    (387, '0,05', '1 - adamw.beta2'),
    (387, '0,1860', 'grad_E[3,0]'),
    (389, '-0,000040', 'adamw[1].decay[E,3,0]'),
    (389, '-0,000040', 'adamw[1].decay[E,3,0]'),
    (389, '-0,4', 'E[3,0]'),
    (389, '-0,400960', 'adamw[1].E[3,0]'),
    (389, '0,001', 'adamw[1].update[E,3,0]'),
    (404, '1.2232', 'adamw[1].loss'),
    (405, '0.2943', 'adamw[1].p[3]'),
    (431, '1,2232', 'adamw[1].loss'),
    (431, '1,2712', 'loss'),
]
# FIGURES-END


def doc_lines():
    return (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")


def key_rows(path):
    planted, correct, cur = [], [], None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("## Planted"):
            cur = planted
        elif line.startswith("## Correct"):
            cur = correct
        elif cur is not None and line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            cur.append(cells)
    return planted, correct


def bt(cell):
    return cell.strip().replace("`", "")


def on_line(printed, line):
    """the figure as printed; a LaTeX figure 0{,}2144 is given as 0,2144"""
    return printed in line or printed.replace(",", "{,}") in line


def quantities(cell):
    return [bt(q) for q in cell.split(" or ")]


def main():
    _fd_check()
    fails = []

    def check(ok, msg):
        print(("ok   " if ok else "FAIL ") + msg)
        if not ok:
            fails.append(msg)

    lines = doc_lines()
    json.loads("\n".join(lines))  # the notebook is valid JSON
    planted, correct = key_rows(HERE / "KEY.md")
    check(len(planted) == 8, f"{len(planted)} planted rows")
    check(len(correct) == 10, f"{len(correct)} correct rows")
    print("\n# planted errors")
    for printed, line, where, exact, corr, kind, qty in planted:
        pr, ln = bt(printed), int(line)
        for q in quantities(qty):
            v = qvalue(q)
            cr = correct_rounding(pr, v)
            ex = exact.rstrip("…").strip()
            shown = v * 100 if pr.endswith("%") else v  # a percentage's exact value is the quantity x 100
            vstr = mp.nstr(shown, 40, min_fixed=-mp.inf, max_fixed=mp.inf)
            ok_exact = vstr.startswith(ex) and len(ex.replace("-", "").replace(".", "").lstrip("0")) >= 10
            print(f"{q} = {vstr}")
            check(ok_exact, f"  exact value column {ex}")
            check(cr == bt(corr), f"  correct rounding {bt(corr)} (computed {cr})")
            check(pr != cr, f"  printed {pr} is wrong")
        check(on_line(pr, lines[ln - 1]), f"  printed {pr} on line {ln}")
    print("\n# correct figures")
    for printed, line, where, qty in correct:
        pr, ln = bt(printed), int(line)
        for q in quantities(qty):
            v = qvalue(q)
            cr = correct_rounding(pr, v)
            print(f"{q} = {mp.nstr(v, 40, min_fixed=-mp.inf, max_fixed=mp.inf)}")
            check(cr == pr, f"  {pr} is the correct rounding ({cr})")
        check(on_line(pr, lines[ln - 1]), f"  printed {pr} on line {ln}")
    if FIGURES:
        print("\n# every figure of the document")
        n_ok = 0
        planted_at = {(int(r[1]), bt(r[0])) for r in planted}
        seen = {(ln, pr) for ln, pr, _ in FIGURES}
        for r in planted + correct:
            check((int(r[1]), bt(r[0])) in seen, f"key row {bt(r[0])} (line {r[1]}) is one of the document's figures")
        for ln, pr, qty in FIGURES:
            v = qvalue(qty)
            cr = correct_rounding(pr, v)
            good = (cr == pr) != ((ln, pr) in planted_at)
            here = on_line(pr, lines[ln - 1])
            if good and here:
                n_ok += 1
            else:
                check(False, f"line {ln}: {pr} for {qty} (computed {cr}, on line: {here})")
        check(True, f"{n_ok} of {len(FIGURES)} figures agree (planted ones wrong, the rest correct)")
    print()
    if fails:
        raise SystemExit(f"{len(fails)} check(s) failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
