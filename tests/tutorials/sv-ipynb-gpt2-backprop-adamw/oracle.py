#!/usr/bin/env python3
"""Independent oracle for sv-ipynb-gpt2-backprop-adamw: plain mpmath at 50 digits, no symgpt.

Model (GPT-2, one block, pre-LN): H0 = E[ids] + W_pe; LN1 = LayerNorm(H0; gamma1, beta1, eps 1e-5);
Q, K, V = LN1 W + b (c_attn, split in three); two heads of width 2 (head h: columns 2h, 2h+1);
S[h,t,s] = q_t^(h) . k_s^(h) / sqrt(2), causal softmax A; Attn_heads = A V per head, side by side;
Attn = Attn_heads W_O + b_O (c_proj); H1 = H0 + Attn; LN2 = LayerNorm(H1); Z = LN2 W_1 + b_1;
R = GELU_tanh(Z) = Z/2 (1 + tanh(sqrt(2/pi)(Z + 0.044715 Z^3))); F = R W_2 + b_2; H2 = H1 + F;
LN_f = LayerNorm(H2; gamma_f, beta_f); h_final = LN_f[2]; logits = h_final E^T (tied); p = softmax;
loss = -ln p[kaffe]. Gradients by a small reverse-mode autodiff over mpmath numbers (checked against
central differences on a few entries); AdamW as torch.optim.AdamW (lr 0.01, betas 0.9/0.95, eps 1e-8,
decoupled weight decay 0.1 on every trained parameter; LayerNorm gains and shifts are fixed), first step,
then the forward pass again.

    python oracle.py   # checks every figure DOC.ipynb prints (FIGURES below, each with its line)
                       # and both tables of KEY.md: each row's quantity with its exact value,
                       # the "exact value" and "correct rounding" columns

Rounding is half away from zero, on a 45-digit decimal of the value; percentages are the quantity x 100.
"""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["jag", "dricker", "varmt", "kaffe", "te"]
IDS = [0, 1, 2]
TGT = 3
D, DFF, NH, DK, T = 4, 8, 2, 2, 3
LN_EPS = mp.mpf("1e-5")
LR, B1, B2, AEPS, WD = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.95"), mp.mpf("1e-8"), mp.mpf("0.1")


def M(rows):
    return [[mp.mpf(str(v)) for v in r] for r in rows]


def Vv(row):
    return [mp.mpf(str(v)) for v in row]


PARAMS0 = {
    "E": M([[0.3, -0.2, 0.1, 0.4], [-0.1, 0.5, 0.2, -0.3], [0.2, 0.1, -0.4, 0.3], [0.4, 0.2, 0.3, -0.1],
            [-0.2, 0.3, 0.1, 0.2]]),
    "W_pe": M([[0.1, 0.0, -0.1, 0.05], [0.0, 0.1, 0.05, -0.1], [-0.05, 0.1, 0.0, 0.1]]),
    "W_Q": M([[0.4, -0.2, 0.1, 0.3], [0.2, 0.3, -0.3, 0.1], [-0.1, 0.2, 0.4, -0.2], [0.3, 0.1, 0.2, 0.4]]),
    "b_Q": Vv([0.0, 0.05, -0.05, 0.0]),
    "W_K": M([[0.3, 0.1, -0.2, 0.2], [-0.2, 0.4, 0.1, 0.3], [0.1, -0.1, 0.3, 0.0], [0.2, 0.3, 0.0, -0.3]]),
    "b_K": Vv([0.05, 0.0, 0.0, 0.05]),
    "W_V": M([[0.2, -0.3, 0.4, 0.1], [0.1, 0.2, -0.1, 0.3], [-0.3, 0.1, 0.2, 0.2], [0.4, 0.0, 0.1, -0.2]]),
    "b_V": Vv([0.0, 0.0, 0.05, -0.05]),
    "W_O": M([[0.3, 0.1, -0.2, 0.0], [-0.1, 0.4, 0.1, 0.2], [0.2, -0.1, 0.3, 0.1], [0.0, 0.2, -0.1, 0.4]]),
    "b_O": Vv([0.05, 0.0, 0.0, -0.05]),
    "W_1": M([[0.2, -0.3, 0.1, 0.4, -0.2, 0.3, 0.0, 0.1], [0.1, 0.2, -0.4, 0.0, 0.3, -0.1, 0.2, -0.2],
              [-0.3, 0.1, 0.2, -0.1, 0.1, 0.2, 0.4, 0.0], [0.0, 0.3, 0.1, 0.2, -0.3, 0.0, -0.1, 0.3]]),
    "b_1": Vv([0.0, 0.05, 0.0, -0.05, 0.0, 0.1, 0.0, 0.0]),
    "W_2": M([[0.1, -0.2, 0.3, 0.0], [0.2, 0.1, 0.0, -0.3], [0.0, 0.3, -0.1, 0.2], [-0.2, 0.0, 0.2, 0.1],
              [0.3, 0.1, 0.0, -0.1], [0.0, -0.1, 0.2, 0.3], [0.1, 0.2, -0.2, 0.0], [-0.1, 0.0, 0.1, 0.2]]),
    "b_2": Vv([0.0, 0.05, 0.0, 0.0]),
}
FIXED = {
    "gamma1": Vv([1.0, 0.9, 1.1, 1.0]), "beta1": Vv([0.0, 0.05, 0.0, -0.05]),
    "gamma2": Vv([1.1, 1.0, 0.9, 1.0]), "beta2": Vv([0.05, 0.0, -0.05, 0.0]),
    "gamma_f": Vv([1.0, 1.1, 0.9, 1.0]), "beta_f": Vv([0.0, 0.05, 0.0, -0.05]),
}


# ------------------------------------------------------------ a tiny reverse-mode autodiff
class Var:
    __slots__ = ("val", "parents", "grad")

    def __init__(self, val, parents=()):
        self.val, self.parents, self.grad = mp.mpf(val), parents, mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val + o.val, ((self, mp.mpf(1)), (o, mp.mpf(1))))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val - o.val, ((self, mp.mpf(1)), (o, mp.mpf(-1))))

    def __rsub__(self, o):
        return Var(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val * o.val, ((self, o.val), (o, self.val)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val / o.val, ((self, 1 / o.val), (o, -self.val / o.val ** 2)))

    def __neg__(self):
        return Var(-self.val, ((self, mp.mpf(-1)),))


def vexp(x):
    e = mp.exp(x.val)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.val), ((x, 1 / x.val),))


def vsqrt(x):
    r = mp.sqrt(x.val)
    return Var(r, ((x, 1 / (2 * r)),))


def vtanh(x):
    t = mp.tanh(x.val)
    return Var(t, ((x, 1 - t * t),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
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
    for n in order:
        n.grad = mp.mpf(0)
    out.grad = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.grad += n.grad * local


# ------------------------------------------------------------ the model
def layernorm(rows, g, b):
    mus, vars_, outs = [], [], []
    for h in rows:
        mu = vsum(h) / D
        var = vsum([(x - mu) * (x - mu) for x in h]) / D
        sd = vsqrt(var + LN_EPS)
        outs.append([g[j] * ((h[j] - mu) / sd) + b[j] for j in range(D)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def linear(rows, W, b):
    n_in, n_out = len(W), len(W[0])
    return [[vsum([r[i] * W[i][j] for i in range(n_in)]) + b[j] for j in range(n_out)] for r in rows]


def gelu_tanh(z):
    c = mp.sqrt(2 / mp.pi)
    return Var(mp.mpf("0.5")) * z * (1 + vtanh(c * (z + mp.mpf("0.044715") * z * z * z)))


def forward(P):
    """P: dict of Var-valued parameters. Returns a dict of named node lists."""
    n = {}
    X = [[P["E"][i][j] + 0 for j in range(D)] for i in IDS]  # own nodes: grad_X is the input path alone
    PE = [[P["W_pe"][t][j] + 0 for j in range(D)] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(D)] for t in range(T)]
    n["X"], n["PE"], n["H0"] = X, PE, H0
    n["mu1"], n["var1"], n["LN1"] = layernorm(H0, FIXED["gamma1"], FIXED["beta1"])
    LN1 = n["LN1"]
    Q = linear(LN1, P["W_Q"], P["b_Q"])
    K = linear(LN1, P["W_K"], P["b_K"])
    V = linear(LN1, P["W_V"], P["b_V"])
    n["Q"], n["K"], n["V"] = Q, K, V
    sq = mp.sqrt(DK)
    S = [[[None] * T for _ in range(T)] for _ in range(NH)]
    A = [[[Var(0)] * T for _ in range(T)] for _ in range(NH)]
    Aden = [[None] * T for _ in range(NH)]
    AH = [[None] * D for _ in range(T)]
    for h in range(NH):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(t + 1):
                S[h][t][s] = vsum([Q[t][c] * K[s][c] for c in cols]) / sq
            es = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(es)
            Aden[h][t] = den
            for s in range(t + 1):
                A[h][t][s] = es[s] / den
            for c in cols:
                AH[t][c] = vsum([A[h][t][s] * V[s][c] for s in range(t + 1)])
    n["S"], n["A"], n["A_den"], n["Attn_heads"] = S, A, Aden, AH
    Attn = linear(AH, P["W_O"], P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    n["Attn"], n["H1"] = Attn, H1
    n["mu2"], n["var2"], n["LN2"] = layernorm(H1, FIXED["gamma2"], FIXED["beta2"])
    Z = linear(n["LN2"], P["W_1"], P["b_1"])
    R = [[gelu_tanh(z) for z in row] for row in Z]
    F = linear(R, P["W_2"], P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    n["Z"], n["R"], n["F"], n["H2"] = Z, R, F, H2
    n["mu_f"], n["var_f"], n["LN_f"] = layernorm(H2, FIXED["gamma_f"], FIXED["beta_f"])
    hf = n["LN_f"][T - 1]
    n["h_final"] = hf
    logits = [vsum([hf[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    es = [vexp(z) for z in logits]
    se = vsum(es)
    p = [e / se for e in es]
    loss = -vlog(p[TGT])
    n["logits"], n["exp_logits"], n["sum_exp"], n["p"], n["loss"] = logits, es, se, p, loss
    return n


def to_vars(P):
    return {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v])
            for k, v in P.items()}


def vals(x):
    if isinstance(x, Var):
        return x.val
    if x is None:
        return None
    return [vals(y) for y in x]


def grads(x):
    if isinstance(x, Var):
        return x.grad
    if x is None:
        return None
    return [grads(y) for y in x]


def run(P):
    PV = to_vars(P)
    nodes = forward(PV)
    backward(nodes["loss"])
    return PV, nodes


def adamw_step(P, G):
    out = {}
    for k in P:
        def one(theta, g):
            m = (1 - B1) * g
            v = (1 - B2) * g * g
            mhat = m / (1 - B1)
            vhat = v / (1 - B2)
            upd = LR * mhat / (mp.sqrt(vhat) + AEPS)
            dec = LR * WD * theta
            return dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=theta - dec - upd)
        if isinstance(P[k][0], list):
            out[k] = [[one(P[k][i][j], G[k][i][j]) for j in range(len(P[k][0]))] for i in range(len(P[k]))]
        else:
            out[k] = [one(P[k][i], G[k][i]) for i in range(len(P[k]))]
    return out


# ------------------------------------------------------------ named quantities (symgpt's names)
Q_ = {}


def _put(name, arr, idx=()):
    if arr is None:
        return
    if isinstance(arr, list):
        for i, a in enumerate(arr):
            _put(name, a, idx + (i,))
    else:
        Q_[f"{name}[{','.join(map(str, idx))}]" if idx else name] = arr


PV, NODES = run(PARAMS0)
for k, v in NODES.items():
    if k in ("exp_logits",):
        continue
    _put(k, vals(v))
    if k not in ("sum_exp", "p"):
        _put("grad_" + k, grads(v))
for k, v in PV.items():
    _put(k, vals(v))
    _put("grad_" + k, grads(v))
for k, v in FIXED.items():
    _put(k, v)
for v in range(5):
    Q_[f"exp(logits[{v}])"] = NODES["exp_logits"][v].val
# the tied head's share of dL/dE: (p - y) h_final
for v in range(5):
    for j in range(D):
        Q_[f"grad_E_head[{v},{j}]"] = (NODES["p"][v].val - (1 if v == TGT else 0)) * NODES["h_final"][j].val
for t in range(T):
    Q_[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(NODES["var1"][t].val + LN_EPS)
    Q_[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(NODES["var2"][t].val + LN_EPS)
    Q_[f"sqrt(var_f[{t}] + ln_eps)"] = mp.sqrt(NODES["var_f"][t].val + LN_EPS)

G0 = {k: grads(v) for k, v in PV.items()}
STEP = adamw_step(PARAMS0, G0)
P1 = {}
for k, st in STEP.items():
    if isinstance(st[0], list):
        P1[k] = [[c["new"] for c in r] for r in st]
        for i, r in enumerate(st):
            for j, c in enumerate(r):
                for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                    Q_[f"adamw[1].{f}[{k},{i},{j}]"] = c[f]
                Q_[f"adamw[1].{k}[{i},{j}]"] = c["new"]
    else:
        P1[k] = [c["new"] for c in st]
        for i, c in enumerate(st):
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                Q_[f"adamw[1].{f}[{k},{i}]"] = c[f]
            Q_[f"adamw[1].{k}[{i}]"] = c["new"]
_, NODES1 = run(P1)
Q_["adamw[1].loss"] = NODES1["loss"].val
for v in range(5):
    Q_[f"adamw[1].p[{v}]"] = NODES1["p"][v].val
    Q_[f"adamw[1].logits[{v}]"] = NODES1["logits"][v].val
for k in ("ln_eps",):
    Q_[k] = LN_EPS
Q_["adamw.lr"], Q_["adamw.beta1"], Q_["adamw.beta2"], Q_["adamw.eps"], Q_["adamw.weight_decay"] = LR, B1, B2, AEPS, WD


def _fd_check():
    """Central differences on a few entries, to trust the autodiff."""
    h = mp.mpf("1e-18")
    for k, i, j in (("W_Q", 2, 0), ("W_K", 1, 2), ("W_V", 2, 0), ("W_O", 0, 1), ("E", 2, 3), ("W_pe", 0, 2)):
        Pp = {kk: [list(r) if isinstance(r, list) else r for r in vv] for kk, vv in PARAMS0.items()}
        Pm = {kk: [list(r) if isinstance(r, list) else r for r in vv] for kk, vv in PARAMS0.items()}
        Pp[k][i][j] += h
        Pm[k][i][j] -= h
        lp = forward(to_vars(Pp))["loss"].val
        lm = forward(to_vars(Pm))["loss"].val
        fd = (lp - lm) / (2 * h)
        assert abs(fd - G0[k][i][j]) < mp.mpf("1e-25"), (k, i, j, fd, G0[k][i][j])


def _norm(name):
    name = name.strip().strip("`").replace(" ", "").replace("−", "-")
    for tid, tok in enumerate(VOCAB):
        name = re.sub(rf"(?<=[\[,]){tok}(?=[\],])", str(tid), name)
    name = name.replace("+ln_eps", "+ln_eps")
    return name


QN = {_norm(k): v for k, v in Q_.items()}


def qvalue(name):
    """A quantity by symgpt's name (a token may stand for its id); 'a or b' takes the first."""
    alts = [a.strip() for a in name.split(" or ")]
    vs = [QN[_norm(a)] for a in alts]
    for v in vs[1:]:
        assert abs(v - vs[0]) < mp.mpf("1e-40"), ("alternatives differ", name)
    return vs[0]


# ------------------------------------------------------------ rounding
def dec(v, places=45):
    return Decimal(mp.nstr(v, places + 5, strip_zeros=False, min_fixed=-mp.inf, max_fixed=mp.inf))


def rnd(v, n):
    """v rounded half away from zero to n decimals, as a string."""
    d = Decimal(mp.nstr(v, 60, min_fixed=-mp.inf, max_fixed=mp.inf))
    q = Decimal(1).scaleb(-n)
    r = d.quantize(q, rounding=ROUND_HALF_UP)
    s = f"{r:.{n}f}"
    if s.startswith("-") and Decimal(s) == 0:
        s = s[1:]
    return s


def correct_rounding(printed, v):
    """The correct rounding of v in the format of the printed figure (decimals, %, scientific)."""
    p = printed.strip("`").replace(" ", "")
    pct = p.endswith("%")
    core = p.rstrip("%")
    if pct:
        v = v * 100
    m = re.fullmatch(r"(-?\d+(?:\.(\d+))?)e([-+]\d+)", core)
    if m:
        e = int(m.group(3))
        n = len(m.group(2) or "")
        mant = rnd(v / mp.mpf(10) ** e, n)
        return f"{mant}e{m.group(3)}" + ("%" if pct else "")
    n = len(core.split(".")[1]) if "." in core else 0
    return rnd(v, n) + ("%" if pct else "")


# ------------------------------------------------------------ the document's figures
# every decimal figure of DOC.ipynb with the quantity it stands for (the weights in code cell 1 included);
# the planted errors of KEY.md must be wrong, every other figure the correct rounding of its quantity
FIGURES = [  # (line of DOC.ipynb, printed, quantity), generated from the document
    (61, '0.3', 'E[0,0]'),
    (61, '-0.2', 'E[0,1]'),
    (61, '0.1', 'E[0,2]'),
    (61, '0.4', 'E[0,3]'),
    (62, '-0.1', 'E[1,0]'),
    (62, '0.5', 'E[1,1]'),
    (62, '0.2', 'E[1,2]'),
    (62, '-0.3', 'E[1,3]'),
    (63, '0.2', 'E[2,0]'),
    (63, '0.1', 'E[2,1]'),
    (63, '-0.4', 'E[2,2]'),
    (63, '0.3', 'E[2,3]'),
    (64, '0.4', 'E[3,0]'),
    (64, '0.2', 'E[3,1]'),
    (64, '0.3', 'E[3,2]'),
    (64, '-0.1', 'E[3,3]'),
    (65, '-0.2', 'E[4,0]'),
    (65, '0.3', 'E[4,1]'),
    (65, '0.1', 'E[4,2]'),
    (65, '0.2', 'E[4,3]'),
    (66, '0.1', 'W_pe[0,0]'),
    (66, '0.0', 'W_pe[0,1]'),
    (66, '-0.1', 'W_pe[0,2]'),
    (66, '0.05', 'W_pe[0,3]'),
    (67, '0.0', 'W_pe[1,0]'),
    (67, '0.1', 'W_pe[1,1]'),
    (67, '0.05', 'W_pe[1,2]'),
    (67, '-0.1', 'W_pe[1,3]'),
    (68, '-0.05', 'W_pe[2,0]'),
    (68, '0.1', 'W_pe[2,1]'),
    (68, '0.0', 'W_pe[2,2]'),
    (68, '0.1', 'W_pe[2,3]'),
    (69, '1.0', 'gamma1[0]'),
    (69, '0.9', 'gamma1[1]'),
    (69, '1.1', 'gamma1[2]'),
    (69, '1.0', 'gamma1[3]'),
    (69, '0.0', 'beta1[0]'),
    (69, '0.05', 'beta1[1]'),
    (69, '0.0', 'beta1[2]'),
    (69, '-0.05', 'beta1[3]'),
    (72, '0.4', 'W_Q[0,0]'),
    (72, '-0.2', 'W_Q[0,1]'),
    (72, '0.1', 'W_Q[0,2]'),
    (72, '0.3', 'W_Q[0,3]'),
    (72, '0.3', 'W_K[0,0]'),
    (72, '0.1', 'W_K[0,1]'),
    (72, '-0.2', 'W_K[0,2]'),
    (72, '0.2', 'W_K[0,3]'),
    (72, '0.2', 'W_V[0,0]'),
    (72, '-0.3', 'W_V[0,1]'),
    (72, '0.4', 'W_V[0,2]'),
    (72, '0.1', 'W_V[0,3]'),
    (73, '0.2', 'W_Q[1,0]'),
    (73, '0.3', 'W_Q[1,1]'),
    (73, '-0.3', 'W_Q[1,2]'),
    (73, '0.1', 'W_Q[1,3]'),
    (73, '-0.2', 'W_K[1,0]'),
    (73, '0.4', 'W_K[1,1]'),
    (73, '0.1', 'W_K[1,2]'),
    (73, '0.3', 'W_K[1,3]'),
    (73, '0.1', 'W_V[1,0]'),
    (73, '0.2', 'W_V[1,1]'),
    (73, '-0.1', 'W_V[1,2]'),
    (73, '0.3', 'W_V[1,3]'),
    (74, '-0.1', 'W_Q[2,0]'),
    (74, '0.2', 'W_Q[2,1]'),
    (74, '0.4', 'W_Q[2,2]'),
    (74, '-0.2', 'W_Q[2,3]'),
    (74, '0.1', 'W_K[2,0]'),
    (74, '-0.1', 'W_K[2,1]'),
    (74, '0.3', 'W_K[2,2]'),
    (74, '0.0', 'W_K[2,3]'),
    (74, '-0.3', 'W_V[2,0]'),
    (74, '0.1', 'W_V[2,1]'),
    (74, '0.2', 'W_V[2,2]'),
    (74, '0.2', 'W_V[2,3]'),
    (75, '0.3', 'W_Q[3,0]'),
    (75, '0.1', 'W_Q[3,1]'),
    (75, '0.2', 'W_Q[3,2]'),
    (75, '0.4', 'W_Q[3,3]'),
    (75, '0.2', 'W_K[3,0]'),
    (75, '0.3', 'W_K[3,1]'),
    (75, '0.0', 'W_K[3,2]'),
    (75, '-0.3', 'W_K[3,3]'),
    (75, '0.4', 'W_V[3,0]'),
    (75, '0.0', 'W_V[3,1]'),
    (75, '0.1', 'W_V[3,2]'),
    (75, '-0.2', 'W_V[3,3]'),
    (76, '0.0', 'b_Q[0]'),
    (76, '0.05', 'b_Q[1]'),
    (76, '-0.05', 'b_Q[2]'),
    (76, '0.0', 'b_Q[3]'),
    (76, '0.05', 'b_K[0]'),
    (76, '0.0', 'b_K[1]'),
    (76, '0.0', 'b_K[2]'),
    (76, '0.05', 'b_K[3]'),
    (76, '0.0', 'b_V[0]'),
    (76, '0.0', 'b_V[1]'),
    (76, '0.05', 'b_V[2]'),
    (76, '-0.05', 'b_V[3]'),
    (78, '0.3', 'W_O[0,0]'),
    (78, '0.1', 'W_O[0,1]'),
    (78, '-0.2', 'W_O[0,2]'),
    (78, '0.0', 'W_O[0,3]'),
    (79, '-0.1', 'W_O[1,0]'),
    (79, '0.4', 'W_O[1,1]'),
    (79, '0.1', 'W_O[1,2]'),
    (79, '0.2', 'W_O[1,3]'),
    (80, '0.2', 'W_O[2,0]'),
    (80, '-0.1', 'W_O[2,1]'),
    (80, '0.3', 'W_O[2,2]'),
    (80, '0.1', 'W_O[2,3]'),
    (81, '0.0', 'W_O[3,0]'),
    (81, '0.2', 'W_O[3,1]'),
    (81, '-0.1', 'W_O[3,2]'),
    (81, '0.4', 'W_O[3,3]'),
    (82, '0.05', 'b_O[0]'),
    (82, '0.0', 'b_O[1]'),
    (82, '0.0', 'b_O[2]'),
    (82, '-0.05', 'b_O[3]'),
    (83, '1.1', 'gamma2[0]'),
    (83, '1.0', 'gamma2[1]'),
    (83, '0.9', 'gamma2[2]'),
    (83, '1.0', 'gamma2[3]'),
    (83, '0.05', 'beta2[0]'),
    (83, '0.0', 'beta2[1]'),
    (83, '-0.05', 'beta2[2]'),
    (83, '0.0', 'beta2[3]'),
    (84, '0.2', 'W_1[0,0]'),
    (84, '-0.3', 'W_1[0,1]'),
    (84, '0.1', 'W_1[0,2]'),
    (84, '0.4', 'W_1[0,3]'),
    (84, '-0.2', 'W_1[0,4]'),
    (84, '0.3', 'W_1[0,5]'),
    (84, '0.0', 'W_1[0,6]'),
    (84, '0.1', 'W_1[0,7]'),
    (85, '0.1', 'W_1[1,0]'),
    (85, '0.2', 'W_1[1,1]'),
    (85, '-0.4', 'W_1[1,2]'),
    (85, '0.0', 'W_1[1,3]'),
    (85, '0.3', 'W_1[1,4]'),
    (85, '-0.1', 'W_1[1,5]'),
    (85, '0.2', 'W_1[1,6]'),
    (85, '-0.2', 'W_1[1,7]'),
    (86, '-0.3', 'W_1[2,0]'),
    (86, '0.1', 'W_1[2,1]'),
    (86, '0.2', 'W_1[2,2]'),
    (86, '-0.1', 'W_1[2,3]'),
    (86, '0.1', 'W_1[2,4]'),
    (86, '0.2', 'W_1[2,5]'),
    (86, '0.4', 'W_1[2,6]'),
    (86, '0.0', 'W_1[2,7]'),
    (87, '0.0', 'W_1[3,0]'),
    (87, '0.3', 'W_1[3,1]'),
    (87, '0.1', 'W_1[3,2]'),
    (87, '0.2', 'W_1[3,3]'),
    (87, '-0.3', 'W_1[3,4]'),
    (87, '0.0', 'W_1[3,5]'),
    (87, '-0.1', 'W_1[3,6]'),
    (87, '0.3', 'W_1[3,7]'),
    (88, '0.0', 'b_1[0]'),
    (88, '0.05', 'b_1[1]'),
    (88, '0.0', 'b_1[2]'),
    (88, '-0.05', 'b_1[3]'),
    (88, '0.0', 'b_1[4]'),
    (88, '0.1', 'b_1[5]'),
    (88, '0.0', 'b_1[6]'),
    (88, '0.0', 'b_1[7]'),
    (89, '0.1', 'W_2[0,0]'),
    (89, '-0.2', 'W_2[0,1]'),
    (89, '0.3', 'W_2[0,2]'),
    (89, '0.0', 'W_2[0,3]'),
    (90, '0.2', 'W_2[1,0]'),
    (90, '0.1', 'W_2[1,1]'),
    (90, '0.0', 'W_2[1,2]'),
    (90, '-0.3', 'W_2[1,3]'),
    (91, '0.0', 'W_2[2,0]'),
    (91, '0.3', 'W_2[2,1]'),
    (91, '-0.1', 'W_2[2,2]'),
    (91, '0.2', 'W_2[2,3]'),
    (92, '-0.2', 'W_2[3,0]'),
    (92, '0.0', 'W_2[3,1]'),
    (92, '0.2', 'W_2[3,2]'),
    (92, '0.1', 'W_2[3,3]'),
    (93, '0.3', 'W_2[4,0]'),
    (93, '0.1', 'W_2[4,1]'),
    (93, '0.0', 'W_2[4,2]'),
    (93, '-0.1', 'W_2[4,3]'),
    (94, '0.0', 'W_2[5,0]'),
    (94, '-0.1', 'W_2[5,1]'),
    (94, '0.2', 'W_2[5,2]'),
    (94, '0.3', 'W_2[5,3]'),
    (95, '0.1', 'W_2[6,0]'),
    (95, '0.2', 'W_2[6,1]'),
    (95, '-0.2', 'W_2[6,2]'),
    (95, '0.0', 'W_2[6,3]'),
    (96, '-0.1', 'W_2[7,0]'),
    (96, '0.0', 'W_2[7,1]'),
    (96, '0.1', 'W_2[7,2]'),
    (96, '0.2', 'W_2[7,3]'),
    (97, '0.0', 'b_2[0]'),
    (97, '0.05', 'b_2[1]'),
    (97, '0.0', 'b_2[2]'),
    (97, '0.0', 'b_2[3]'),
    (98, '1.0', 'gamma_f[0]'),
    (98, '1.1', 'gamma_f[1]'),
    (98, '0.9', 'gamma_f[2]'),
    (98, '1.0', 'gamma_f[3]'),
    (98, '0.0', 'beta_f[0]'),
    (98, '0.05', 'beta_f[1]'),
    (98, '0.0', 'beta_f[2]'),
    (98, '-0.05', 'beta_f[3]'),
    (115, '0.0875', 'mu1[2]'),
    (115, '0.0880', 'var1[2]'),
    (115, '0.2966', 'sqrt(var1[2] + ln_eps)'),
    (115, '1.1', 'gamma1[2]'),
    (117, '1.1', 'gamma1[2]'),
    (117, '-0.4000', 'H0[2,2]'),
    (117, '0.0875', 'mu1[2]'),
    (117, '0.2966', 'sqrt(var1[2] + ln_eps)'),
    (117, '-1.8080', 'LN1[2,2]'),
    (130, '0.2107', 'LN1[2,0]'),
    (130, '0.3914', 'LN1[2,1]'),
    (130, '-1.8079', 'LN1[2,2]'),
    (130, '1.0036', 'LN1[2,3]'),
    (168, '0.4404', 'A[0,2,0]'),
    (168, '0.2483', 'A[0,2,1]'),
    (168, '0.3113', 'A[0,2,2]'),
    (169, '0.2766', 'A[1,2,0]'),
    (169, '0.3752', 'A[1,2,1]'),
    (169, '0.3481', 'A[1,2,2]'),
    (193, '44.0 %', 'A[0,2,0]'),
    (206, '0.4464', 'Attn_heads[2,0]'),
    (206, '-0.1841', 'Attn_heads[2,1]'),
    (206, '-0.0436', 'Attn_heads[2,2]'),
    (206, '-0.0980', 'Attn_heads[2,3]'),
    (239, '0.5223', 'R[2,0]'),
    (239, '-0.0695', 'R[2,1]'),
    (239, '-0.1055', 'R[2,2]'),
    (239, '0.4458', 'R[2,3]'),
    (239, '-0.1468', 'R[2,4]'),
    (239, '0.0229', 'R[2,5]'),
    (239, '-0.1670', 'R[2,6]'),
    (239, '0.1314', 'R[2,7]'),
    (260, '-0.6397', 'Z[2,6]'),
    (260, '-0.1670', 'R[2,6]'),
    (260, '0.0974', 'mu_f[2]'),
    (260, '0.0456', 'var_f[2]'),
    (262, '0.5689', 'h_final[0]'),
    (262, '-0.3882', 'h_final[1]'),
    (262, '-1.2678', 'h_final[2]'),
    (262, '1.1880', 'h_final[3]'),
    (275, '0.5967', 'logits[0]'),
    (275, '-0.8609', 'logits[1]'),
    (275, '0.9385', 'logits[2]'),
    (275, '-0.3492', 'logits[3]'),
    (275, '-0.1194', 'logits[4]'),
    (276, '0.2843', 'p[0]'),
    (276, '0.0662', 'p[1]'),
    (276, '0.4002', 'p[2]'),
    (276, '0.1104', 'p[3]'),
    (276, '0.1389', 'p[4]'),
    (277, '2.2036', 'loss'),
    (297, '11.0 %', 'p[3]'),
    (299, '0.1104', 'p[3]'),
    (299, '2.2036', 'loss'),
    (305, '0.1104', 'p[3]'),
    (305, '0.8896', 'grad_logits[3]'),
    (320, '-0.6885', 'grad_H1[2,0]'),
    (320, '-0.4589', 'grad_H1[2,1]'),
    (320, '0.3224', 'grad_H1[2,2]'),
    (320, '0.8250', 'grad_H1[2,3]'),
    (357, '0.4464', 'Attn_heads[2,0]'),
    (357, '-0.4589', 'grad_H1[2,1]'),
    (357, '-0.2049', 'grad_W_O[0,1]'),
    (374, '0.1151', 'grad_W_Q[2,0]'),
    (375, '-0.1071', 'grad_W_K[0,3]'),
    (376, '0.2324', 'grad_W_V[2,0]'),
    (406, '-0.0637', 'grad_Q[2,0]'),
    (408, '-1.8079', 'LN1[2,2]'),
    (408, '-0.0637', 'grad_Q[2,0]'),
    (408, '0.1152', 'grad_W_Q[2,0]'),
    (412, '0.4002', 'p[2]'),
    (412, '1.1880', 'h_final[3]'),
    (412, '0.4754', 'grad_E[2,3]'),
    (425, '-0.5105', 'grad_E[2,0]'),
    (425, '-0.5692', 'grad_E[2,1]'),
    (425, '-0.1806', 'grad_E[2,2]'),
    (425, '1.3007', 'grad_E[2,3]'),
    (443, '0.01', 'adamw.lr'),
    (443, '0.9', 'adamw.beta1'),
    (443, '0.95', 'adamw.beta2'),
    (443, '0.1', 'adamw.weight_decay'),
    (459, '0.115077', 'grad_W_Q[2,0]'),
    (459, '0.011508', 'adamw[1].m[W_Q,2,0]'),
    (459, '0.000662', 'adamw[1].v[W_Q,2,0]'),
    (459, '0.115077', 'adamw[1].mhat[W_Q,2,0]'),
    (459, '0.013243', 'adamw[1].vhat[W_Q,2,0]'),
    (459, '-0.000100', 'adamw[1].decay[W_Q,2,0]'),
    (459, '-0.109900', 'adamw[1].W_Q[2,0]'),
    (460, '-0.107051', 'grad_W_K[3,0]'),
    (460, '-0.010705', 'adamw[1].m[W_K,3,0]'),
    (460, '0.000573', 'adamw[1].v[W_K,3,0]'),
    (460, '-0.107051', 'adamw[1].mhat[W_K,3,0]'),
    (460, '0.011460', 'adamw[1].vhat[W_K,3,0]'),
    (460, '0.000200', 'adamw[1].decay[W_K,3,0]'),
    (460, '0.209800', 'adamw[1].W_K[3,0]'),
    (461, '-0.204886', 'grad_W_O[0,1]'),
    (461, '-0.020489', 'adamw[1].m[W_O,0,1]'),
    (461, '0.002099', 'adamw[1].v[W_O,0,1]'),
    (461, '-0.204886', 'adamw[1].mhat[W_O,0,1]'),
    (461, '0.041978', 'adamw[1].vhat[W_O,0,1]'),
    (461, '0.000100', 'adamw[1].decay[W_O,0,1]'),
    (461, '0.109900', 'adamw[1].W_O[0,1]'),
    (462, '1.300734', 'grad_E[2,3]'),
    (462, '0.130073', 'adamw[1].m[E,2,3]'),
    (462, '0.084595', 'adamw[1].v[E,2,3]'),
    (462, '1.300734', 'adamw[1].mhat[E,2,3]'),
    (462, '1.691910', 'adamw[1].vhat[E,2,3]'),
    (462, '0.000300', 'adamw[1].decay[E,2,3]'),
    (462, '0.289700', 'adamw[1].E[2,3]'),
    (467, '0.01', 'adamw.lr'),
    (467, '0.9', 'adamw.beta1'),
    (467, '0.95', 'adamw.beta2'),
    (467, '0.1', 'adamw.weight_decay'),
    (495, '0.004472', 'adamw[1].update[W_Q,2,0]'),
    (495, '-0.000100', 'adamw[1].decay[W_Q,2,0]'),
    (510, '1.8895', 'adamw[1].loss'),
    (511, '0.1511', 'adamw[1].p[3]'),
]


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
        v = qvalue(bt(qty))
        cr = correct_rounding(pr, v)
        ex = exact.rstrip("…").strip()
        vstr = mp.nstr(v, 40, min_fixed=-mp.inf, max_fixed=mp.inf)
        ok_exact = vstr.startswith(ex) and len(ex.replace("-", "").replace(".", "").lstrip("0")) >= 10
        print(f"{bt(qty)} = {vstr}")
        check(ok_exact, f"  exact value column {ex}")
        check(cr == bt(corr), f"  correct rounding {bt(corr)} (computed {cr})")
        check(pr != cr, f"  printed {pr} is wrong")
        check(pr in lines[ln - 1], f"  printed {pr} on line {ln}")
    print("\n# correct figures")
    for printed, line, where, qty in correct:
        pr, ln = bt(printed), int(line)
        v = qvalue(bt(qty))
        cr = correct_rounding(pr, v)
        print(f"{bt(qty)} = {mp.nstr(v, 40, min_fixed=-mp.inf, max_fixed=mp.inf)}")
        check(cr == pr, f"  {pr} is the correct rounding ({cr})")
        check(pr in lines[ln - 1], f"  printed {pr} on line {ln}")
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
            good = (cr == pr.replace(" ", "")) != ((ln, pr) in planted_at)
            here = pr in lines[ln - 1]
            if good and here:
                n_ok += 1
            else:
                check(False, f"line {ln}: {pr} for {qty} (computed {cr}, on line: {here})")
        check(True, f"{n_ok} figures agree (planted ones wrong, the rest correct)")
    print()
    if fails:
        raise SystemExit(f"{len(fails)} check(s) failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
