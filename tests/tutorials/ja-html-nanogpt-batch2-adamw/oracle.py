"""Independent oracle for ja-html-nanogpt-batch2-adamw (does not import symgpt).

A nanoGPT-like GPT-2 block (pre-LayerNorm, learned positions, exact-erf GELU,
biases everywhere, tied head), 1 layer, 1 head, d = 4, d_ff = 8, V = 5, T = 2,
loss at the last position, mini-batch of two sequences, one torch-style AdamW
step (lr 0.01, betas 0.9/0.999, eps 1e-8, weight decay 0.1 on every parameter,
LayerNorm gains and shifts trained too).  Gradients by a small reverse-mode
automatic differentiation over mpmath numbers at 50 digits.
"""
import os
from decimal import ROUND_HALF_UP, Decimal

from mpmath import erf, exp, log, mp, mpf, sqrt

mp.dps = 50

# ---------------------------------------------------------------- autodiff
class Var:
    __slots__ = ("v", "g", "parents")

    def __init__(self, v, parents=()):
        self.v = mpf(v)
        self.g = mpf(0)
        self.parents = parents  # tuple of (Var, local derivative)

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
    e = exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vgelu(a):
    # x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2  (nn.GELU(), exact erf)
    x = a.v
    Phi = (1 + erf(x / sqrt(2))) / 2
    phi = exp(-x * x / 2) / sqrt(2 * mp.pi)
    return Var(x * Phi, ((a, Phi + x * phi),))


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
    out.g = mpf(1)
    for node in reversed(order):
        for p, dl in node.parents:
            p.g += node.g * dl


def vsum(xs):
    s = xs[0]
    for x in xs[1:]:
        s = s + x
    return s

# ---------------------------------------------------------------- the model
VOCAB = ["猫", "犬", "が", "鳴く", "走る"]
ID = {w: i for i, w in enumerate(VOCAB)}
d, dff, T = 4, 8, 2
LN_EPS = mpf("1e-5")
M = lambda rows: [[mpf(str(x)) for x in r] for r in rows]
Vv = lambda r: [mpf(str(x)) for x in r]

INIT = {
    "E": M([[0.3, -0.2, 0.1, 0.4], [-0.1, 0.3, 0.4, -0.2], [0.2, 0.1, -0.3, 0.1],
            [0.4, -0.1, 0.2, -0.3], [-0.2, 0.4, -0.1, 0.2]]),
    "W_pe": M([[0.1, 0.0, -0.1, 0.2], [0.0, 0.2, 0.1, -0.1]]),
    "W_Q": M([[0.2, -0.1, 0.3, 0.0], [0.1, 0.4, -0.2, 0.1], [-0.3, 0.2, 0.1, 0.2], [0.0, 0.1, 0.2, -0.4]]),
    "b_Q": Vv([0.0, 0.1, 0.0, -0.1]),
    "W_K": M([[0.3, 0.1, 0.0, -0.2], [-0.1, 0.2, 0.3, 0.1], [0.2, -0.3, 0.1, 0.0], [0.1, 0.0, -0.2, 0.3]]),
    "b_K": Vv([0.1, 0.0, 0.0, 0.0]),
    "W_V": M([[0.4, 0.0, -0.1, 0.2], [0.1, 0.3, 0.0, -0.2], [0.0, -0.2, 0.4, 0.1], [-0.3, 0.1, 0.2, 0.3]]),
    "b_V": Vv([0.0, 0.0, 0.1, 0.0]),
    "W_O": M([[0.3, -0.1, 0.0, 0.2], [0.0, 0.2, 0.1, -0.1], [0.1, 0.0, 0.3, 0.0], [-0.2, 0.1, 0.0, 0.4]]),
    "b_O": Vv([0.0, 0.05, 0.0, -0.05]),
    "W_1": M([[0.2, -0.3, 0.1, 0.4, 0.0, -0.1, 0.3, 0.2],
              [-0.1, 0.2, 0.3, -0.2, 0.4, 0.1, 0.0, -0.3],
              [0.3, 0.1, -0.2, 0.0, 0.2, 0.4, -0.1, 0.1],
              [0.0, 0.4, 0.2, 0.1, -0.3, 0.2, 0.1, 0.0]]),
    "b_1": Vv([0.1, 0.0, -0.1, 0.0, 0.05, 0.0, 0.0, -0.05]),
    "W_2": M([[0.2, 0.0, -0.1, 0.1], [-0.1, 0.3, 0.0, 0.2], [0.0, 0.1, 0.2, -0.2], [0.3, -0.2, 0.1, 0.0],
              [0.1, 0.0, 0.3, 0.1], [-0.2, 0.1, 0.0, 0.3], [0.0, -0.1, 0.2, 0.1], [0.1, 0.2, -0.1, 0.0]]),
    "b_2": Vv([0, 0, 0, 0]),
    "gamma1": Vv([1, 1, 1, 1]), "beta1": Vv([0, 0, 0, 0]),
    "gamma2": Vv([1, 1, 1, 1]), "beta2": Vv([0, 0, 0, 0]),
    "gamma_f": Vv([1, 1, 1, 1]), "beta_f": Vv([0, 0, 0, 0]),
}

BATCH = [(["猫", "が"], "鳴く"), (["犬", "が"], "走る")]


def to_vars(params):
    out = {}
    for k, val in params.items():
        if isinstance(val[0], list):
            out[k] = [[Var(x) for x in r] for r in val]
        else:
            out[k] = [Var(x) for x in val]
    return out


def layernorm(x, g, b):
    n = len(x)
    mu = vsum(x) / n
    c = [xi - mu for xi in x]
    var = vsum([ci * ci for ci in c]) / n
    s = vsqrt(var + LN_EPS)
    return [c[j] / s * g[j] + b[j] for j in range(n)], mu, var


def linear(x, W, b):
    return [vsum([x[i] * W[i][k] for i in range(len(x))]) + b[k] for k in range(len(W[0]))]


def forward(P, tokens, target):
    """P: dict of Var params. Returns dict of named intermediate Vars."""
    r = {}
    ids = [ID[t] for t in tokens]
    H0 = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    LN1 = []
    for t in range(T):
        y, mu, var = layernorm(H0[t], P["gamma1"], P["beta1"])
        LN1.append(y)
        r[f"mu1[{t}]"], r[f"var1[{t}]"] = mu, var
    Q = [linear(LN1[t], P["W_Q"], P["b_Q"]) for t in range(T)]
    K = [linear(LN1[t], P["W_K"], P["b_K"]) for t in range(T)]
    Vm = [linear(LN1[t], P["W_V"], P["b_V"]) for t in range(T)]
    A = []
    for t in range(T):
        S = [vsum([Q[t][j] * K[s][j] for j in range(d)]) / 2 for s in range(t + 1)]  # /sqrt(4)
        for s in range(t + 1):
            r[f"S[{t},{s}]"] = S[s]
        es = [vexp(x) for x in S]
        den = vsum(es)
        A.append([e / den for e in es])
        for s in range(t + 1):
            r[f"A[{t},{s}]"] = A[t][s]
    heads = [[vsum([A[t][s] * Vm[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    Attn = [linear(heads[t], P["W_O"], P["b_O"]) for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    H2 = []
    for t in range(T):
        y, _, _ = layernorm(H1[t], P["gamma2"], P["beta2"])
        Z = linear(y, P["W_1"], P["b_1"])
        R = [vgelu(z) for z in Z]
        F = linear(R, P["W_2"], P["b_2"])
        H2.append([H1[t][j] + F[j] for j in range(d)])
    hf, _, _ = layernorm(H2[T - 1], P["gamma_f"], P["beta_f"])
    logits = [vsum([hf[j] * P["E"][v][j] for j in range(d)]) for v in range(len(VOCAB))]
    es = [vexp(z) for z in logits]
    se = vsum(es)
    p = [e / se for e in es]
    loss = -vlog(p[ID[target]])
    for t in range(T):
        for j in range(d):
            r[f"H0[{t},{j}]"] = H0[t][j]
    for j in range(d):
        r[f"h_final[{j}]"] = hf[j]
    for v in range(len(VOCAB)):
        r[f"logits[{VOCAB[v]}]"] = logits[v]
        r[f"exp_logits[{VOCAB[v]}]"] = es[v]
        r[f"p[{VOCAB[v]}]"] = p[v]
    r["sum_exp"] = se
    r["loss"] = loss
    return r


def loss_and_grads(params, tokens, target):
    P = to_vars(params)
    r = forward(P, tokens, target)
    backward(r["loss"])
    grads = {}
    for k, val in P.items():
        if isinstance(val[0], list):
            grads[k] = [[x.g for x in row] for row in val]
        else:
            grads[k] = [x.g for x in val]
    vals = {k: x.v for k, x in r.items()}
    return vals, grads


def batch(params):
    outs = [loss_and_grads(params, toks, tgt) for toks, tgt in BATCH]
    mean_loss = (outs[0][0]["loss"] + outs[1][0]["loss"]) / 2
    mean_g = {}
    for k in params:
        a, b = outs[0][1][k], outs[1][1][k]
        if isinstance(a[0], list):
            mean_g[k] = [[(x + y) / 2 for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
        else:
            mean_g[k] = [(x + y) / 2 for x, y in zip(a, b)]
    return outs, mean_loss, mean_g


LR, B1, B2, EPS, WD = mpf("0.01"), mpf("0.9"), mpf("0.999"), mpf("1e-8"), mpf("0.1")


def adamw_step(params, g):
    """torch.optim.AdamW, first step (m0 = v0 = 0, t = 1), decoupled decay."""
    new, st = {}, {}
    def one(theta, gi):
        m = (1 - B1) * gi
        v = (1 - B2) * gi * gi
        mhat = m / (1 - B1)
        vhat = v / (1 - B2)
        dec = LR * WD * theta
        upd = LR * mhat / (sqrt(vhat) + EPS)
        return theta - dec - upd, dict(m=m, v=v, mhat=mhat, vhat=vhat, decay=dec, update=upd)
    for k, val in params.items():
        if isinstance(val[0], list):
            res = [[one(val[i][j], g[k][i][j]) for j in range(len(val[0]))] for i in range(len(val))]
            new[k] = [[x[0] for x in row] for row in res]
            for i, row in enumerate(res):
                for j, x in enumerate(row):
                    st[(k, i, j)] = x[1]
        else:
            res = [one(val[i], g[k][i]) for i in range(len(val))]
            new[k] = [x[0] for x in res]
            for i, x in enumerate(res):
                st[(k, i)] = x[1]
    return new, st


outs, MEAN_LOSS, MEAN_G = batch(INIT)
NEW, ST = adamw_step(INIT, MEAN_G)
_, MEAN_LOSS_AFTER, _ = batch(NEW)


# ---------------------------------------------------------------- named quantities
def tok_index(name):
    return name if name in ID else VOCAB[int(name)]


Q = {}
for b, prefix in ((0, ""), (1, "example[1].")):
    vals, grads = outs[b]
    for k, x in vals.items():
        Q[prefix + k] = x
    for k, g in grads.items():
        if isinstance(g[0], list):
            for i, row in enumerate(g):
                for j, x in enumerate(row):
                    ii = VOCAB[i] if k == "E" else str(i)
                    Q[f"{prefix}grad_{k}[{ii},{j}]"] = x
        else:
            for i, x in enumerate(g):
                Q[f"{prefix}grad_{k}[{i}]"] = x
for j in range(d):
    Q[f"LN_f[1,{j}]"] = Q[f"h_final[{j}]"]
Q["sgd[0].loss"] = Q["adamw[0].loss"] = MEAN_LOSS
Q["adamw[1].loss"] = MEAN_LOSS_AFTER
for k, g in MEAN_G.items():
    if isinstance(g[0], list):
        for i, row in enumerate(g):
            for j, x in enumerate(row):
                ii = VOCAB[i] if k == "E" else str(i)
                Q[f"sgd[0].grad_{k}[{ii},{j}]"] = Q[f"adamw[0].grad_{k}[{ii},{j}]"] = x
                Q[f"adamw[1].{k}[{ii},{j}]"] = NEW[k][i][j]
                Q[f"{k}[{ii},{j}]"] = INIT[k][i][j]
                for n, val in ST[(k, i, j)].items():
                    Q[f"adamw[1].{n}[{k},{ii},{j}]"] = val
Q["adamw.lr"], Q["adamw.beta1"], Q["adamw.beta2"], Q["adamw.eps"], Q["adamw.weight_decay"] = LR, B1, B2, EPS, WD
Q["1-adamw.beta1"], Q["1-adamw.beta2"], Q["1-lr*wd"] = 1 - B1, 1 - B2, 1 - LR * WD


def q(name):
    """Value of a quantity name; '-NAME' negates, 'NAME*100' scales."""
    scale = 1
    if name.endswith("*100"):
        name, scale = name[:-4], 100
    sign = 1
    if name.startswith("-"):
        name, sign = name[1:], -1
    return sign * scale * Q[name]


def round_half_away(x, places):
    dx = Decimal(mp.nstr(x, 45, min_fixed=-60, max_fixed=60))
    return dx.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def norm(s):
    return s.replace("−", "-").replace("`", "").strip()


def parse_fig(printed):
    """'0.2470' / '1.76%' / '5.246e-4' -> (Decimal mantissa, places, power of ten, percent)."""
    s = norm(printed)
    pct = s.endswith("%")
    s = s.rstrip("%")
    exp10 = 0
    if "e" in s:
        s, e = s.split("e")
        exp10 = int(e)
    places = len(s.split(".")[1]) if "." in s else 0
    return Decimal(s), places, exp10, pct


def rounds_to(printed, x):
    m, places, exp10, pct = parse_fig(printed)
    if pct:
        x = x * 100
    x = x / mpf(10) ** exp10
    return round_half_away(x, places) == m


HERE = os.path.dirname(os.path.abspath(__file__))
DOC = open(os.path.join(HERE, "DOC.html"), encoding="utf-8").read().split("\n")

# Every figure of a model quantity (or setting) the document prints, line by line.
# (line, printed as in the line, quantity, planted?)   scientific figures as "m e-k".
FIGS = [
    (48, "0.2", "E[が,0]"), (48, "0.1", "E[が,1]"), (48, "−0.3", "E[が,2]"), (48, "0.1", "E[が,3]"),
    (48, "0.4", "E[鳴く,0]"), (48, "−0.1", "E[鳴く,1]"), (48, "0.2", "E[鳴く,2]"), (48, "−0.3", "E[鳴く,3]"),
    (56, "0.5595", "A[1,0]"), (56, "0.4405", "A[1,1]"),
    (57, "0.4629", "example[1].A[1,0]"), (57, "0.5371", "example[1].A[1,1]"),
    (61, "0.2122", "h_final[0]"), (61, "1.5487", "h_final[1]"), (61, "−0.8308", "h_final[2]", True),
    (61, "−0.9300", "h_final[3]"),
    (63, "0.2122", "h_final[0]"), (63, "0.4", "E[鳴く,0]"), (63, "1.5487", "h_final[1]"), (63, "−0.1", "E[鳴く,1]"),
    (63, "−0.8309", "h_final[2]"), (63, "0.2", "E[鳴く,2]"), (63, "−0.9300", "h_final[3]"), (63, "−0.3", "E[鳴く,3]"),
    (63, "0.0428", "logits[鳴く]"),
    (64, "5.9164", "sum_exp"), (64, "6.1953", "example[1].sum_exp"),
]
for line, w in zip(range(68, 73), VOCAB):
    zs = {"犬": ("0.2971", "0.2971", True)}
    FIGS.append((line, None, f"logits[{w}]"))
    FIGS.append((line, None, f"example[1].logits[{w}]", w == "犬"))
    FIGS.append((line, None, f"p[{w}]", w == "が"))
    FIGS.append((line, None, f"example[1].p[{w}]"))
TABLE4 = {  # printed cells of 表 4, row by row: z1, z2, p1, p2
    68: ["−0.7012", "−0.3193", "0.0838", "0.1173"],
    69: ["0.2971", "0.2971", "0.2275", "0.1883"],
    70: ["0.3536", "0.2798", "0.2470", "0.2135"],
    71: ["0.0428", "0.8036", "0.1764", "0.3605"],
    72: ["0.4741", "−0.2934", "0.2716", "0.1204"],
}
_fixed = []
_k = {}
for f in FIGS:
    if f[1] is None:
        cells = TABLE4[f[0]]
        i = _k.get(f[0], 0)
        _k[f[0]] = i + 1
        f = (f[0], cells[i], f[2]) + f[3:]
    _fixed.append(f)
FIGS = _fixed
FIGS += [
    (74, "1.76%", "p[鳴く]", True),
    (79, "0.1764", "p[鳴く]"), (79, "1.7349", "loss"),
    (80, "0.1204", "example[1].p[走る]"), (80, "2.1172", "example[1].loss"),
    (84, "1.7349", "loss"), (84, "2.1172", "example[1].loss"), (84, "1.9261", "sgd[0].loss", True),
    (91, "−2.7742", "grad_E[が,0]"), (91, "1.3256", "example[1].grad_E[が,0]"), (91, "−0.7243", "sgd[0].grad_E[が,0]"),
    (92, "−1.2755", "grad_E[鳴く,1]"), (92, "0.1840", "example[1].grad_E[鳴く,1]"),
    (92, "−1.0915", "sgd[0].grad_E[鳴く,1]", True),
    (93, "0.5187", "grad_W_1[1,1]"), (93, "0.0330", "example[1].grad_W_1[1,1]", True),
    (93, "0.2428", "sgd[0].grad_W_1[1,1]"),
    (94, "−0.0863", "grad_W_1[0,3]"), (94, "0.3680", "example[1].grad_W_1[0,3]"), (94, "0.1408", "sgd[0].grad_W_1[0,3]"),
    (99, "0.01", "adamw.lr"), (99, "0.9", "adamw.beta1"), (99, "0.999", "adamw.beta2"), (99, "0.1", "adamw.weight_decay"),
    (102, "0.2", "E[が,0]"),
    (104, "0.1", "1-adamw.beta1"), (104, "−0.724280", "sgd[0].grad_E[が,0]"), (104, "−0.072428", "adamw[1].m[E,が,0]"),
    (105, "0.001", "1-adamw.beta2"), (105, "−0.724280", "sgd[0].grad_E[が,0]"), (105, "5.246e-4", "adamw[1].v[E,が,0]"),
    (106, "−0.072428", "adamw[1].m[E,が,0]"), (106, "0.1", "1-adamw.beta1"), (106, "−0.724280", "adamw[1].mhat[E,が,0]"),
    (106, "0.001", "1-adamw.beta2"), (106, "0.524581", "adamw[1].vhat[E,が,0]"),
    (107, "−0.010000", "adamw[1].update[E,が,0]"),
    (108, "0.01", "adamw.lr"), (108, "0.1", "adamw.weight_decay"), (108, "0.2", "E[が,0]"), (108, "0.000200", "adamw[1].decay[E,が,0]"),
    (109, "0.2", "E[が,0]"), (109, "0.000200", "adamw[1].decay[E,が,0]"), (109, "−0.010000", "adamw[1].update[E,が,0]"),
    (109, "0.209800", "adamw[1].E[が,0]"),
    (111, "−0.72", "sgd[0].grad_E[が,0]"), (111, "0.14", "sgd[0].grad_W_1[0,3]"), (111, "0.01", "adamw.lr"),
    (115, "−0.054577", "adamw[1].m[E,鳴く,1]"), (115, "2.979e-4", "adamw[1].v[E,鳴く,1]"),
    (115, "−0.545774", "adamw[1].mhat[E,鳴く,1]"), (115, "0.297870", "adamw[1].vhat[E,鳴く,1]"),
    (116, "0.024283", "adamw[1].m[W_1,1,1]"), (116, "5.897e-5", "adamw[1].v[W_1,1,1]"),
    (116, "0.242832", "adamw[1].mhat[W_1,1,1]"), (116, "0.058967", "adamw[1].vhat[W_1,1,1]"),
    (117, "0.014083", "adamw[1].m[W_1,0,3]"), (117, "1.983e-5", "adamw[1].v[W_1,0,3]"),
    (117, "0.140830", "adamw[1].mhat[W_1,0,3]"), (117, "0.019833", "adamw[1].vhat[W_1,0,3]"),
    (119, "0.999", "1-lr*wd"),
    (121, "−0.1", "E[鳴く,1]"), (121, "0.999", "1-lr*wd"), (121, "0.010000", "-adamw[1].update[E,鳴く,1]"),
    (121, "−0.089900", "adamw[1].E[鳴く,1]"),
    (122, "0.2", "W_1[1,1]"), (122, "0.999", "1-lr*wd"), (122, "0.010000", "adamw[1].update[W_1,1,1]"),
    (122, "0.189800", "adamw[1].W_1[1,1]"),
    (123, "0.4", "W_1[0,3]"), (123, "0.010000", "adamw[1].update[W_1,0,3]"), (123, "0.390000", "adamw[1].W_1[0,3]", True),
    (131, "1.9260", "sgd[0].loss"), (131, "1.6935", "adamw[1].loss"),
    (133, "0.01", "adamw.lr"), (133, "0.01", "adamw.lr"),
]


def in_line(line, printed):
    text = DOC[line - 1]
    if "e" in printed and "." in printed:  # scientific: "5.246e-4" is printed "5.246 × 10<sup>-4</sup>"
        m, e = printed.split("e")
        return f"{m} × 10<sup>{e}</sup>" in text
    return printed in text


def main():
    bad = 0
    planted_doc = set()
    model_figs = 0
    for f in FIGS:
        line, printed, name = f[:3]
        planted = len(f) > 3 and f[3]
        assert in_line(line, printed), (line, printed)
        ok = rounds_to(printed, q(name))
        if planted:
            planted_doc.add((line, printed))
            if ok:
                print("PLANTED FIGURE ROUNDS CORRECTLY:", f); bad += 1
        elif not ok:
            print("WRONG UNPLANTED FIGURE:", f, mp.nstr(q(name), 15)); bad += 1
        if not name.startswith(("adamw.", "1-")):
            model_figs += 1
    print(f"document: {len(FIGS)} figures checked ({model_figs} of model quantities), "
          f"{len(planted_doc)} planted")

    # ---- the key
    key = open(os.path.join(HERE, "KEY.md"), encoding="utf-8").read().split("\n")
    section, planted_rows, correct_rows = None, [], []
    for row in key:
        if row.startswith("## "):
            section = row
            continue
        if not row.startswith("| `"):
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        (planted_rows if "Planted" in section else correct_rows).append(cells)
    assert len(planted_rows) == 8, len(planted_rows)
    assert len(correct_rows) == 10, len(correct_rows)
    print("\n## Planted errors")
    for printed, line, where, exact, correct, kind, quantity in planted_rows:
        printed = printed.strip("`")
        line = int(line)
        names = [n.strip().strip("`") for n in quantity.split(" or ")]
        x = q(names[0])
        for n in names[1:]:
            assert abs(q(n) - x) < mpf(10) ** -40, (n, names[0])
        assert in_line(line, printed), (line, printed)
        assert (line, printed) in planted_doc, ("not planted in FIGS", line, printed)
        pct = printed.endswith("%")
        xv = x * 100 if pct else x
        ex = exact.replace("…", "").replace("(%)", "").strip()
        places = len(ex.split(".")[1])
        assert abs(Decimal(mp.nstr(xv, 45, min_fixed=-60, max_fixed=60)) - Decimal(ex)) < Decimal(1).scaleb(-places), \
            ("exact value column", quantity, exact, xv)
        corr = correct.strip("`")
        assert rounds_to(corr, x), ("correct rounding column", quantity, corr, xv)
        assert parse_fig(corr)[1:] == parse_fig(printed)[1:], ("precision differs", printed, corr)
        assert not rounds_to(printed, x), ("planted figure is right", printed)
        print(f"  line {line:>3}  {printed:>10}  {names[0]:<28} = {mp.nstr(xv, 20)}  -> {corr}")
    print("\n## Correct figures")
    for printed, line, where, quantity in correct_rows:
        printed = printed.strip("`")
        line = int(line)
        names = [n.strip().strip("`") for n in quantity.split(" or ")]
        x = q(names[0])
        assert in_line(line, printed), (line, printed)
        assert rounds_to(printed, x), ("correct figure wrong", printed, quantity, x)
        print(f"  line {line:>3}  {printed:>10}  {names[0]:<28} = {mp.nstr(x, 20)}")
    assert bad == 0, f"{bad} problems"
    print("\nall assertions passed")


if __name__ == "__main__":
    main()
