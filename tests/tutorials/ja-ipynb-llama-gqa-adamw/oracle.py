#!/usr/bin/env python3
"""Independent oracle for ja-ipynb-llama-gqa-adamw: plain mpmath at 50 digits, no symgpt.

Model (Llama, one layer, pre-norm): X = E[ids]; LN1 = RMSNorm(X) (gain 1, eps 1e-5, no mean, no shift);
Q = LN1 W_Q, K = LN1 W_K, V = LN1 W_V (2 query heads of width 2, one shared kv head);
RoPE with theta = 1 for the single pair of a head (d_k = 2): position t turns (x0, x1) by t radians,
(x0 cos t - x1 sin t, x1 cos t + x0 sin t); S[h,t,s] = q~_t^(h) . k~_s / sqrt(2), causal softmax A;
Attn_heads = A V per head, side by side; Attn = Attn_heads W_O; H1 = X + Attn; LN2 = RMSNorm(H1);
Z = LN2 W_1 (gate), U = LN2 W_3 (up), R = SiLU(Z) * U, F = R W_2; H2 = H1 + F; LN_f = RMSNorm(H2);
h_final = LN_f[T-1]; logits = h_final W_out; p = softmax; loss = -ln p[target].
Gradients by a small reverse-mode autodiff over mpmath numbers (checked against central differences);
AdamW as torch.optim.AdamW (decoupled decay on every parameter, first step), then the forward pass again.

    python oracle.py     # checks every figure DOC.ipynb prints (FIGURES, CHAINS below) and both tables of
                         # KEY.md: each row's quantity with its exact value, "exact value" and "correct rounding"

Rounding is half away from zero, on the 45-digit decimal of the value; percentages are the quantity x 100.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["私", "は", "猫", "が", "好き"]
IDS = [0, 1, 2]
TGT = 3
EPS = mp.mpf("1e-5")
LR, B1, B2, AEPS, WD = mp.mpf("0.01"), mp.mpf("0.9"), mp.mpf("0.95"), mp.mpf("1e-8"), mp.mpf("0.1")


def M(rows):
    return [[mp.mpf(str(v)) for v in r] for r in rows]


PARAMS0 = {
    "E": M([[0.2, 0.5, 0.4, 0.0], [0.5, 0.5, 0.5, -0.5], [-0.1, 0.1, -0.2, -0.1], [0.1, 0.3, 0.1, -0.4],
            [0.2, 0.4, -0.3, 0.0]]),
    "W_Q": M([[-0.2, 0.4, -0.5, 0.0], [0.4, -0.1, -0.4, 0.3], [0.5, 0.5, 0.5, -0.1], [0.3, 0.5, 0.1, 0.5]]),
    "W_K": M([[0.1, -0.4], [0.0, 0.1], [-0.2, 0.2], [-0.1, 0.5]]),
    "W_V": M([[-0.3, 0.2], [-0.5, -0.4], [0.0, 0.0], [0.0, 0.0]]),
    "W_O": M([[0.4, 0.0, -0.1, 0.5], [0.4, -0.2, -0.3, -0.3], [-0.4, 0.0, 0.1, 0.2], [0.4, 0.5, 0.0, 0.1]]),
    "W_1": M([[-0.5, -0.3, 0.5, 0.5, -0.5, 0.0], [0.0, 0.2, -0.4, 0.0, -0.1, -0.3],
              [0.3, 0.2, -0.4, 0.3, 0.0, -0.3], [0.2, 0.0, 0.0, -0.2, 0.5, -0.4]]),
    "W_3": M([[0.5, -0.3, 0.3, 0.5, -0.4, 0.4], [-0.5, -0.1, 0.0, 0.3, -0.4, -0.5],
              [-0.2, 0.5, -0.2, 0.0, -0.5, 0.4], [0.5, -0.2, 0.4, -0.1, -0.2, -0.2]]),
    "W_2": M([[-0.4, 0.5, -0.4, -0.1], [0.1, 0.0, -0.4, 0.5], [0.4, 0.4, -0.4, -0.1],
              [-0.1, -0.2, -0.5, 0.3], [0.3, -0.4, -0.4, -0.1], [0.5, 0.4, -0.4, 0.5]]),
    "W_out": M([[-0.2, -0.3, 0.5, -0.5, -0.5], [0.3, -0.3, 0.1, -0.2, -0.3], [-0.1, 0.0, -0.4, -0.5, 0.5],
                [0.2, -0.2, 0.0, 0.5, 0.2]]),
}


# ------------------------------------------------------------ a tiny reverse-mode autodiff
class Var:
    __slots__ = ("val", "parents", "grad")

    def __init__(self, val, parents=()):
        self.val, self.parents, self.grad = mp.mpf(val), parents, mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val + o.val, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val - o.val, ((self, 1), (o, -1)))

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
        return Var(-self.val, ((self, -1),))


def vexp(x):
    e = mp.exp(x.val)
    return Var(e, ((x, e),))


def vsqrt(x):
    s = mp.sqrt(x.val)
    return Var(s, ((x, 1 / (2 * s)),))


def vlog(x):
    return Var(mp.log(x.val), ((x, 1 / x.val),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


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
    out.grad = mp.mpf(1)
    for node in reversed(order):
        for p, w in node.parents:
            p.grad += w * node.grad


# ------------------------------------------------------------ the model
def matmul(A, B):
    return [[vsum([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(rows):
    ms, out = [], []
    for r in rows:
        m = vsum([x * x for x in r]) / len(r)
        s = vsqrt(m + EPS)
        ms.append(m)
        out.append([x / s for x in r])
    return ms, out


def rot(x0, x1, t):
    c, s = mp.cos(t), mp.sin(t)
    return x0 * c - x1 * s, x1 * c + x0 * s


def forward(P):
    """P: name -> matrix of mpf. Returns (dict of node matrices/values as Var, dict of parameter Vars)."""
    W = {k: [[Var(x) for x in r] for r in v] for k, v in P.items()}
    T = len(IDS)
    n = {}
    X = [W["E"][i][:] for i in IDS]
    n["X"] = X
    n["ms1"], n["LN1"] = rmsnorm(X)
    n["Q"], n["K"], n["V"] = (matmul(n["LN1"], W[w]) for w in ("W_Q", "W_K", "W_V"))
    Qr, Kr = [], []
    for t in range(T):
        row = []
        for h in range(2):
            row.extend(rot(n["Q"][t][2 * h], n["Q"][t][2 * h + 1], t))
        Qr.append(list(row))
        Kr.append(list(rot(n["K"][t][0], n["K"][t][1], t)))
    n["Q_rot"], n["K_rot"] = Qr, Kr
    S, A, Aden = [], [], []
    heads = [[None] * 4 for _ in range(T)]
    for h in range(2):
        Sh, Ah, Dh = [], [], []
        for t in range(T):
            srow = [(Qr[t][2 * h] * Kr[s][0] + Qr[t][2 * h + 1] * Kr[s][1]) / mp.sqrt(2) for s in range(T)]
            ex = [vexp(srow[s]) for s in range(t + 1)]
            den = vsum(ex)
            arow = [ex[s] / den for s in range(t + 1)] + [Var(0)] * (T - t - 1)
            Sh.append(srow), Ah.append(arow), Dh.append(den)
            for j in range(2):
                heads[t][2 * h + j] = vsum([arow[s] * n["V"][s][j] for s in range(t + 1)])
        S.append(Sh), A.append(Ah), Aden.append(Dh)
    n["S"], n["A"], n["A_den"], n["Attn_heads"] = S, A, Aden, heads
    n["Attn"] = matmul(heads, W["W_O"])
    n["H1"] = [[X[t][j] + n["Attn"][t][j] for j in range(4)] for t in range(T)]
    n["ms2"], n["LN2"] = rmsnorm(n["H1"])
    n["Z"] = matmul(n["LN2"], W["W_1"])
    n["U"] = matmul(n["LN2"], W["W_3"])
    n["R"] = [[n["Z"][t][k] / (1 + vexp(-n["Z"][t][k])) * n["U"][t][k] for k in range(6)] for t in range(T)]
    n["F"] = matmul(n["R"], W["W_2"])
    n["H2"] = [[n["H1"][t][j] + n["F"][t][j] for j in range(4)] for t in range(T)]
    n["ms_f"], n["LN_f"] = rmsnorm(n["H2"])
    n["h_final"] = n["LN_f"][T - 1]
    n["logits"] = matmul([n["h_final"]], W["W_out"])[0]
    ex = [vexp(z) for z in n["logits"]]
    n["sum_exp"] = vsum(ex)
    n["p"] = [e / n["sum_exp"] for e in ex]
    n["loss"] = -vlog(n["p"][TGT])
    return n, W


def values(x):
    if isinstance(x, Var):
        return x.val
    return [values(y) for y in x]


def adamw_step(P, G):
    st = {}
    newP = {}
    for k, mat in P.items():
        rows = []
        for i, r in enumerate(mat):
            row = []
            for j, th in enumerate(r):
                g = G[k][i][j]
                m, v = (1 - B1) * g, (1 - B2) * g * g
                mhat, vhat = m / (1 - B1), v / (1 - B2)
                upd = LR * mhat / (mp.sqrt(vhat) + AEPS)
                dec = LR * WD * th
                new = th - dec - upd
                st[(k, i, j)] = dict(g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=new)
                row.append(new)
            rows.append(row)
        newP[k] = rows
    return st, newP




def run_full(P):
    """Values of every node, and the gradient of the loss with respect to every node and parameter."""
    n, W = forward(P)
    backward(n["loss"])
    vals = {k: values(v) for k, v in n.items()}
    for k, v in n.items():
        vals["grad_" + k] = grads_of(v)
    for k, v in W.items():
        vals[k] = values(v)
        vals["grad_" + k] = grads_of(v)
    return vals


def grads_of(x):
    if isinstance(x, Var):
        return x.grad
    return [grads_of(y) for y in x]


V0 = run_full(PARAMS0)
G0 = {k: V0["grad_" + k] for k in PARAMS0}
ADAM, P1 = adamw_step(PARAMS0, G0)
V1 = run_full(P1)


# ------------------------------------------------------------ self-checks of the oracle itself
def _fd(k, i, j, h=mp.mpf("1e-20")):
    import copy
    Pp, Pm = copy.deepcopy(PARAMS0), copy.deepcopy(PARAMS0)
    Pp[k][i][j] += h
    Pm[k][i][j] -= h
    return (forward(Pp)[0]["loss"].val - forward(Pm)[0]["loss"].val) / (2 * h)


for _k, _i, _j in [("W_out", 0, 3), ("W_Q", 1, 3), ("W_Q", 3, 1), ("E", 2, 1), ("W_K", 2, 1), ("W_3", 1, 4)]:
    assert abs(_fd(_k, _i, _j) - G0[_k][_i][_j]) < mp.mpf("1e-25"), (_k, _i, _j)
assert abs(sum(V0["p"]) - 1) < mp.mpf("1e-45")
assert abs(V0["grad_logits"][TGT] - (V0["p"][TGT] - 1)) < mp.mpf("1e-45")


# ------------------------------------------------------------ names (symgpt's spelling) -> values
def _tok(s):
    s = s.strip().strip("'\"")
    return VOCAB.index(s) if s in VOCAB else int(s)


def lookup(prefix, name, idx):
    """One entry of a node, a parameter or an AdamW state, by symgpt's name (tokens may stand for ids)."""
    idx = [_tok(x) if k or name not in ("m", "v", "mhat", "vhat", "update", "decay") else x.strip()
           for k, x in enumerate(idx.split(","))] if idx else []
    if prefix:                                   # adamw[1].…: the state after the first AdamW step
        if name in ("m", "v", "mhat", "vhat", "update", "decay"):
            return ADAM[(idx[0], idx[1], idx[2])][name]
        src = {**V1, **P1}
    else:
        src = V0
    x = src[name]
    for t in idx:
        x = x[t]
    return x


NAME = re.compile(r"(adamw\[1\]\.)?([A-Za-z_][A-Za-z_0-9]*)(?:\[([^\]]*)\])?")
CONST = {"ln_eps": EPS, "sqrt": mp.sqrt, "exp": mp.exp, "ln": mp.log, "cos": mp.cos, "sin": mp.sin}


def value(expr):
    env, k = {}, [0]

    def sub(mt):
        if mt.group(2) in CONST and not mt.group(1):
            return mt.group(0)
        k[0] += 1
        key = f"_v{k[0]}"
        env[key] = lookup(mt.group(1), mt.group(2), mt.group(3))
        return key

    py = NAME.sub(sub, expr)
    return eval(py, {"__builtins__": {}}, {**CONST, **env})


# ------------------------------------------------------------ rounding of a printed figure
def rnd(v, n):
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


SCI = re.compile(r"^(-?\d+\.\d+)\s*\\times\s*10\^\{(-?\d+)\}$")


def correct_rounding(printed, v):
    """The figure v rounds to, written at the precision and in the form of `printed`."""
    p = printed.strip()
    if p.endswith("%"):
        body = p[:-1]
        n = len(body.split(".")[1]) if "." in body else 0
        return rnd(100 * v, n) + "%"
    m = SCI.match(p)
    if m:
        n, e = len(m.group(1).split(".")[1]), int(m.group(2))
        return rf"{rnd(v / mp.mpf(10) ** e, n)} \times 10^{{{e}}}"
    n = len(p.split(".")[1]) if "." in p else 0
    r = rnd(v, n)
    if p.endswith(".") and n == 0:
        r += "."
    return r




# ------------------------------------------------------------ every figure of a model quantity in DOC.ipynb
# (line of the JSON file, figure as printed, quantity in symgpt's names, planted?)
FIGURES = [
    (34, "160", "n_params", False),
    (73, "0.0175", "ms1[2]", False),
    (74, "0.0175", "ms1[2]", False),
    (74, "0.13233", "sqrt(ms1[2] + ln_eps)", False),
    (75, "0.13233", "sqrt(ms1[2] + ln_eps)", False),
    (75, "-0.7557", "LN1[2,0]", False),
    (75, "0.7557", "LN1[2,1]", False),
    (75, "-1.5141", "LN1[2,2]", True),
    (75, "-0.7557", "LN1[2,3]", False),
    (118, "-0.529", "Q[2,0]", False),
    (118, "-1.5114", "Q[2,1]", False),
    (118, "-0.7557", "Q[2,2]", False),
    (118, "0.", "Q[2,3]", False),
    (142, "-0.4161", "cos(2)", False),
    (142, "0.9093", "sin(2)", False),
    (144, "-0.5290", "Q[2,0]", False),
    (144, "-1.5114", "Q[2,1]", False),
    (144, "1.5944", "Q_rot[2,0]", True),
    (146, "0.1480", "Q_rot[2,1]", False),
    (146, "0", "Q[2,3]", False),
    (146, "0.3145", "Q_rot[2,2]", False),
    (146, "-0.6872", "Q_rot[2,3]", False),
    (160, "0.1491", "K_rot[2,0]", False),
    (160, "0.4007", "K_rot[2,1]", False),
    (189, "-0.1861", "S[0,2,0]", False),
    (189, "0.5353", "S[0,2,1]", False),
    (189, "0.2100", "S[0,2,2]", False),
    (190, "-0.1122", "S[1,2,0]", False),
    (190, "0.3815", "S[1,2,1]", True),
    (190, "-0.1615", "S[1,2,2]", False),
    (204, "0.2201", "A[0,2,0]", False),
    (204, "0.4528", "A[0,2,1]", False),
    (204, "0.3271", "A[0,2,2]", False),
    (205, "0.2926", "A[1,2,0]", False),
    (205, "0.4288", "A[1,2,1]", False),
    (205, "0.2786", "A[1,2,2]", False),
    (232, "45.3%", "A[0,2,1]", False),
    (232, "3.7719", "A_den[0,2]", False),
    (233, "2.79%", "A[1,2,2]", True),
    (245, "-0.6151", "Attn_heads[2,0]", False),
    (245, "-0.3439", "Attn_heads[2,1]", False),
    (246, "-0.6556", "Attn_heads[2,2]", False),
    (246, "-0.3517", "Attn_heads[2,3]", False),
    (272, "0.7326", "Z[2,5]", False),
    (272, "-0.2905", "U[2,5]", False),
    (272, "0.4948", "Z[2,5] / (1 + exp(-Z[2,5]))", False),
    (272, "-0.1437", "R[2,5]", False),
    (286, "-0.3374", "H2[2,0]", False),
    (286, "-0.0491", "H2[2,1]", False),
    (286, "-0.0925", "H2[2,2]", False),
    (286, "-0.4743", "H2[2,3]", False),
    (322, "-1.141", "h_final[0]", False),
    (322, "-0.166", "h_final[1]", False),
    (322, "-0.3129", "h_final[2]", False),
    (322, "-1.6038", "h_final[3]", False),
    (323, "1.7783", "loss", False),
    (343, "-0.1111", "logits[私]", False),
    (343, "0.1576", "p[私]", False),
    (344, "0.7128", "logits[は]", False),
    (344, "0.3593", "p[は]", False),
    (345, "-0.4619", "logits[猫]", False),
    (345, "0.1110", "p[猫]", False),
    (346, "-0.0418", "logits[が]", False),
    (346, "0.1689", "p[が]", False),
    (347, "0.1432", "logits[好き]", True),
    (347, "0.2032", "p[好き]", False),
    (349, "5.6776", "sum_exp", False),
    (349, "0.1689", "p[が]", False),
    (351, "0.16892", "p[が]", False),
    (351, "1.7783", "loss", False),
    (363, "0.1689", "p[が]", False),
    (363, "0.8311", "grad_logits[が]", True),
    (366, "-1.14097", "h_final[0]", False),
    (366, "-0.83108", "grad_logits[が]", False),
    (366, "0.9482", "grad_W_out[0,が]", False),
    (381, "0.948234", "grad_W_out[0,が]", False),
    (382, "0.001073", "grad_W_Q[1,3]", False),
    (383, "0.996446", "grad_E[猫,1]", False),
    (440, "0.948234", "grad_W_out[0,が]", False),
    (441, "0.948234", "grad_W_out[0,が]", False),
    (441, "0.094823", "adamw[1].m[W_out,0,が]", False),
    (442, "0.948234", "grad_W_out[0,が]", False),
    (442, "0.044957", "adamw[1].v[W_out,0,が]", False),
    (443, "0.948234", "adamw[1].mhat[W_out,0,が]", False),
    (443, "0.899148", "adamw[1].vhat[W_out,0,が]", False),
    (444, "0.948234", "adamw[1].mhat[W_out,0,が]", False),
    (444, "0.899148", "adamw[1].vhat[W_out,0,が]", False),
    (444, "0.010000", "adamw[1].update[W_out,0,が]", False),
    (445, "-0.000500", "adamw[1].decay[W_out,0,が]", False),
    (446, "-0.000500", "adamw[1].decay[W_out,0,が]", False),
    (446, "0.010000", "adamw[1].update[W_out,0,が]", False),
    (446, "-0.509500", "adamw[1].W_out[0,が]", False),
    (452, "-0.002937", "grad_W_Q[1,3]", True),
    (452, "0.000107", "adamw[1].m[W_Q,1,3]", False),
    (452, r"5.757 \times 10^{-8}", "adamw[1].v[W_Q,1,3]", False),
    (452, "0.001073", "adamw[1].mhat[W_Q,1,3]", False),
    (452, r"1.151 \times 10^{-6}", "adamw[1].vhat[W_Q,1,3]", False),
    (452, "0.010000", "adamw[1].update[W_Q,1,3]", False),
    (452, "0.000300", "adamw[1].decay[W_Q,1,3]", False),
    (453, "0.996446", "grad_E[猫,1]", False),
    (453, "0.099645", "adamw[1].m[E,猫,1]", False),
    (453, "0.049645", "adamw[1].v[E,猫,1]", False),
    (453, "0.996446", "adamw[1].mhat[E,猫,1]", False),
    (453, "0.992904", "adamw[1].vhat[E,猫,1]", False),
    (453, "0.004472", "adamw[1].update[E,猫,1]", True),
    (453, "0.000100", "adamw[1].decay[E,猫,1]", False),
    (456, "0.00999991", "adamw[1].update[W_Q,1,3]", False),
    (469, "-0.509500", "adamw[1].W_out[0,が]", False),
    (470, "0.289700", "adamw[1].W_Q[1,3]", False),
    (471, "0.089900", "adamw[1].E[猫,1]", False),
    (472, "1.7783", "loss", False),
    (472, "1.4199", "adamw[1].loss", False),
    (473, "0.1689", "p[が]", False),
    (473, "0.2417", "adamw[1].p[が]", False),
]

# The arithmetic the document writes out with "=" (operands as printed): each must give the printed result,
# except the planted carried rounding, whose chain gives the wrong figure it prints.
CHAINS = [
    (74, "sqrt(0.0175 + 1e-5)", "0.13233"),
    (75, "-0.1 / 0.13233", "-0.7557"),
    (75, "0.1 / 0.13233", "0.7557"),
    (144, "(-0.5290)*(-0.4161) - (-1.5114)*(0.9093)", "1.5944"),   # carried rounding
    (272, "0.4948 * (-0.2905)", "-0.1437"),
    (351, "-ln(0.16892)", "1.7783"),
    (366, "(-1.14097) * (-0.83108)", "0.9482"),
    (441, "0.1 * 0.948234", "0.094823"),
    (442, "0.05 * 0.948234**2", "0.044957"),
    (444, "0.01 * 0.948234 / (sqrt(0.899148) + 1e-8)", "0.010000"),
    (445, "0.01 * 0.1 * (-0.5)", "-0.000500"),
    (446, "-0.5 - (-0.000500) - 0.010000", "-0.509500"),
]


def chain_value(expr):
    """A written-out computation, evaluated exactly from its printed decimals."""
    py = re.sub(r"\d+\.\d+|\d+e-\d+|\d+", lambda m: f"mp.mpf('{m.group(0)}')", expr)
    return eval(py, {"__builtins__": {}}, {"mp": mp, "sqrt": mp.sqrt, "ln": mp.log})


def n_params():
    return sum(len(m) * len(m[0]) for m in PARAMS0.values())


def qvalue(q):
    return mp.mpf(n_params()) if q == "n_params" else value(q)


def key_rows(path):
    """The two tables of KEY.md as lists of cells."""
    planted, correct, part = [], [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## Planted"):
            part = planted
        elif line.startswith("## Correct"):
            part = correct
        elif part is not None and line.startswith("| `"):
            part.append([c.strip() for c in line.strip().strip("|").split("|")])
    return planted, correct


def bt(cell):
    return re.findall(r"`([^`]+)`", cell)


def main():
    # the lines of the JSON file as stored; a backslash of the LaTeX is stored doubled
    doc = [l.replace("\\\\", "\\") for l in (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()]
    fails = 0

    def check(ok, msg):
        nonlocal fails
        if not ok:
            fails += 1
            print("  FAIL:", msg)

    # 1. every figure of the document
    for line, printed, q, planted in FIGURES:
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        r = correct_rounding(printed, qvalue(q))
        check((r != printed) if planted else (r == printed),
              f"line {line}: {printed} for {q} (correct rounding {r}, planted={planted})")
    for line, expr, printed in CHAINS:
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        check(correct_rounding(printed, chain_value(expr)) == printed,
              f"line {line}: chain {expr} does not give {printed}")
    planted_rows = [(l, p, q) for l, p, q, pl in FIGURES if pl]
    print(f"DOC.ipynb: {len(FIGURES)} figures of model quantities checked, {len(planted_rows)} planted, "
          f"{len(CHAINS)} written-out chains")

    # 2. the answer key
    planted, correct = key_rows(HERE / "KEY.md")
    check(len(planted) == 8, f"{len(planted)} planted rows, expected 8")
    check(len(correct) == 10, f"{len(correct)} correct rows, expected 10")
    print("\n## Planted errors")
    for printed, line, where, exact, rounding, kind, quantity in planted:
        printed, rounding, line = bt(printed)[0], bt(rounding)[0], int(line)
        qs = bt(quantity)
        v = qvalue(qs[0])
        for other in qs[1:]:
            check(abs(qvalue(other) - v) < mp.mpf("1e-40"), f"{other} differs from {qs[0]}")
        shown = 100 * v if printed.endswith("%") else v
        print(f"  line {line:4d}  {printed:>10}  {qs[0]:<28} = {mp.nstr(shown, 30)}   correct {rounding}")
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        digits = exact.rstrip("…").replace("−", "-")
        full = mp.nstr(shown, 45, min_fixed=-60, max_fixed=60)
        check(full.startswith(digits) if exact.endswith("…") else mp.mpf(digits) == shown,
              f"exact value {exact} of {qs[0]} disagrees with {full}")
        check(correct_rounding(rounding, v) == rounding, f"{rounding} is not the rounding of {qs[0]}")
        check(correct_rounding(printed, v) != printed, f"planted {printed} is in fact correct")
        check((line, printed, qs[0]) in planted_rows, f"planted row {line} {printed} not among the figures")
    print("\n## Correct figures (a sample)")
    for printed, line, where, quantity in correct:
        printed, line = bt(printed)[0], int(line)
        qs = bt(quantity)
        v = qvalue(qs[0])
        print(f"  line {line:4d}  {printed:>10}  {qs[0]:<28} = {mp.nstr(v, 30)}")
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        check(correct_rounding(printed, v) == printed, f"{printed} is not the rounding of {qs[0]}")
    print("\nloss", mp.nstr(V0["loss"], 30), " after one AdamW step", mp.nstr(V1["loss"], 30))
    assert fails == 0, f"{fails} check(s) failed"
    print("all checks passed")


if __name__ == "__main__":
    main()
