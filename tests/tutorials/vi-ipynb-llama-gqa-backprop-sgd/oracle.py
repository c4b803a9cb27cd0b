#!/usr/bin/env python3
"""Independent oracle for vi-ipynb-llama-gqa-backprop-sgd: plain mpmath at 50 digits, no symgpt, no torch.

It reads SPEC.toml with tomllib (every weight read back from its decimal text, so 0.13 is exactly 13/100)
and recomputes the notebook's model from scratch:

  X = E[tôi thích ăn]; LN1 = X / sqrt(mean(X^2) + eps)            (RMSNorm, gain 1, eps = 1e-6)
  Q = LN1 W_Q (2 query heads of width 2), K = LN1 W_K, V = LN1 W_V (one shared key/value head)
  RoPE, d_k = 2, theta_0 = 1: position t (from 0) turns (a, b) into (a cos t - b sin t, b cos t + a sin t)
  S[h,t,s] = Q_rot_h[t] . K_rot[s] / sqrt(2); A = causal softmax; Attn_heads = A V (heads side by side)
  H1 = X + Attn_heads W_O; LN2 = RMSNorm(H1); Z = LN2 W_1 (gate), U = LN2 W_3 (up)
  R = SiLU(Z) * U; F = R W_2; H2 = H1 + F; h_final = RMSNorm(H2)[2]
  logits = h_final W_out; p = softmax; loss = -ln p[phở]

Gradients come from a small tape-based reverse mode over mpmath numbers, checked below against central
differences (h = 1e-20) on a dozen parameter entries. The SGD step is theta - 0.1 * grad on every parameter,
followed by a fresh forward pass.

    python oracle.py    # checks every figure of DOC.ipynb listed in FIGURES and CHAINS, then both tables
                        # of KEY.md: exact value, correct rounding, line and printed text of every row

Rounding is half away from zero on a 45-digit decimal expansion; a percentage is the quantity x 100.
"""
from __future__ import annotations

import copy
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def num(x):
    """A TOML number as the exact decimal it was written as."""
    return mp.mpf(repr(x)) if isinstance(x, float) else mp.mpf(str(x))


VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
D = SPEC["model"]["d"]
NH = SPEC["model"]["heads"]
DK = D // NH
DFF = SPEC["model"]["d_ff"]
EPS = num(SPEC["model"]["ln_eps"])
LR = num(SPEC["training"]["lr"])
assert SPEC["model"]["kv_heads"] == 1 and DK == 2 and SPEC["model"]["arch"] == "llama"

PARAMS0 = {"E": SPEC["weights"]["E"], "W_out": SPEC["weights"]["W_out"]}
for _n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"):
    PARAMS0[_n] = SPEC["layer"][0][_n]
PARAMS0 = {k: [[num(x) for x in row] for row in m] for k, m in PARAMS0.items()}


# ---------------------------------------------------------------- reverse mode on a tape
class Tape:
    def __init__(self):
        self.nodes = []          # each: [value, [(parent index, local derivative)], grad]


class N:
    """A scalar on the tape."""
    __slots__ = ("tape", "i")

    def __init__(self, tape, val, parents=()):
        self.tape, self.i = tape, len(tape.nodes)
        tape.nodes.append([mp.mpf(val), [(p.i, w) for p, w in parents], mp.mpf(0)])

    @property
    def v(self):
        return self.tape.nodes[self.i][0]

    @property
    def g(self):
        return self.tape.nodes[self.i][2]

    def _c(self, o):
        return o if isinstance(o, N) else N(self.tape, o)

    def __add__(self, o):
        o = self._c(o)
        return N(self.tape, self.v + o.v, [(self, 1), (o, 1)])

    __radd__ = __add__

    def __sub__(self, o):
        o = self._c(o)
        return N(self.tape, self.v - o.v, [(self, 1), (o, -1)])

    def __rsub__(self, o):
        return self._c(o) - self

    def __mul__(self, o):
        o = self._c(o)
        return N(self.tape, self.v * o.v, [(self, o.v), (o, self.v)])

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = self._c(o)
        return N(self.tape, self.v / o.v, [(self, 1 / o.v), (o, -self.v / o.v ** 2)])

    def __neg__(self):
        return N(self.tape, -self.v, [(self, -1)])


def exp_(x):
    e = mp.exp(x.v)
    return N(x.tape, e, [(x, e)])


def sqrt_(x):
    r = mp.sqrt(x.v)
    return N(x.tape, r, [(x, 1 / (2 * r))])


def log_(x):
    return N(x.tape, mp.log(x.v), [(x, 1 / x.v)])


def backprop(tape, out):
    nodes = tape.nodes
    nodes[out.i][2] = mp.mpf(1)
    for val, parents, g in reversed(nodes):      # the tape is in topological order
        if g:
            for j, w in parents:
                nodes[j][2] += w * g


def total(xs):
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    return acc


def mm(A, B):
    return [[total([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))]
            for i in range(len(A))]


def rms(rows):
    ms, out = [], []
    for r in rows:
        m = total([x * x for x in r]) / len(r)
        s = sqrt_(m + EPS)
        ms.append(m)
        out.append([x / s for x in r])
    return ms, out


def turn(a, b, t):
    c, s = mp.cos(t), mp.sin(t)
    return a * c - b * s, b * c + a * s


def forward(P):
    tape = Tape()
    W = {k: [[N(tape, x) for x in row] for row in m] for k, m in P.items()}
    n = {}
    n["X"] = X = [W["E"][i][:] for i in IDS]
    n["ms1"], n["LN1"] = rms(X)
    n["Q"], n["K"], n["V"] = (mm(n["LN1"], W[k]) for k in ("W_Q", "W_K", "W_V"))
    n["Q_rot"] = [[c for h in range(NH) for c in turn(n["Q"][t][2 * h], n["Q"][t][2 * h + 1], t)]
                  for t in range(T)]
    n["K_rot"] = [list(turn(n["K"][t][0], n["K"][t][1], t)) for t in range(T)]
    S, A, Aden = [], [], []
    heads = [[None] * D for _ in range(T)]
    for h in range(NH):
        Sh, Ah, Dh = [], [], []
        for t in range(T):
            row = [(n["Q_rot"][t][2 * h] * n["K_rot"][s][0] + n["Q_rot"][t][2 * h + 1] * n["K_rot"][s][1])
                   / mp.sqrt(DK) for s in range(T)]
            ex = [exp_(row[s]) for s in range(t + 1)]
            den = total(ex)
            arow = [e / den for e in ex] + [N(tape, 0) for _ in range(T - t - 1)]
            for j in range(DK):
                heads[t][DK * h + j] = total([arow[s] * n["V"][s][j] for s in range(t + 1)])
            Sh.append(row), Ah.append(arow), Dh.append(den)
        S.append(Sh), A.append(Ah), Aden.append(Dh)
    n["S"], n["A"], n["A_den"], n["Attn_heads"] = S, A, Aden, heads
    n["Attn"] = mm(heads, W["W_O"])
    n["H1"] = [[X[t][j] + n["Attn"][t][j] for j in range(D)] for t in range(T)]
    n["ms2"], n["LN2"] = rms(n["H1"])
    n["Z"] = mm(n["LN2"], W["W_1"])
    n["U"] = mm(n["LN2"], W["W_3"])
    n["R"] = [[n["Z"][t][k] / (1 + exp_(-n["Z"][t][k])) * n["U"][t][k] for k in range(DFF)] for t in range(T)]
    n["F"] = mm(n["R"], W["W_2"])
    n["H2"] = [[n["H1"][t][j] + n["F"][t][j] for j in range(D)] for t in range(T)]
    n["ms_f"], n["LN_f"] = rms(n["H2"])
    n["h_final"] = n["LN_f"][T - 1]
    n["logits"] = mm([n["h_final"]], W["W_out"])[0]
    ex = [exp_(l) for l in n["logits"]]
    n["sum_exp"] = total(ex)
    n["p"] = [e / n["sum_exp"] for e in ex]
    n["loss"] = -log_(n["p"][TGT])
    return tape, n, W


def unwrap(x, attr):
    if isinstance(x, N):
        return getattr(x, attr)
    return [unwrap(y, attr) for y in x]


def evaluate(P):
    """Values of every node and parameter, and d loss / d every node and parameter (prefix grad_)."""
    tape, n, W = forward(P)
    backprop(tape, n["loss"])
    vals = {}
    for k, x in list(n.items()) + list(W.items()):
        vals[k] = unwrap(x, "v")
        vals["grad_" + k] = unwrap(x, "g")
    return vals


def loss_only(P):
    return forward(P)[1]["loss"].v


V0 = evaluate(PARAMS0)
P1 = {k: [[x - LR * V0["grad_" + k][i][j] for j, x in enumerate(row)] for i, row in enumerate(m)]
      for k, m in PARAMS0.items()}
V1 = evaluate(P1)
V1.update({k: m for k, m in P1.items()})

# ---------------------------------------------------------------- the reverse pass against central differences
H = mp.mpf("1e-20")
for _k, _i, _j in [("W_Q", 0, 1), ("W_Q", 3, 2), ("W_K", 1, 0), ("W_K", 0, 1), ("W_K", 2, 0), ("W_V", 1, 0),
                   ("W_1", 1, 3), ("W_3", 1, 3), ("W_2", 0, 2), ("E", 2, 2), ("E", 0, 0), ("W_out", 2, 3),
                   ("W_O", 1, 3)]:
    _p, _m = copy.deepcopy(PARAMS0), copy.deepcopy(PARAMS0)
    _p[_k][_i][_j] += H
    _m[_k][_i][_j] -= H
    _fd = (loss_only(_p) - loss_only(_m)) / (2 * H)
    assert abs(_fd - V0["grad_" + _k][_i][_j]) < mp.mpf("1e-30"), (_k, _i, _j, _fd)
assert all(V0["grad_E"][v][j] == 0 for v in range(len(VOCAB)) if v not in IDS for j in range(D))
assert abs(sum(V0["p"]) - 1) < mp.mpf("1e-45")
assert abs(V0["grad_logits"][TGT] - (V0["p"][TGT] - 1)) < mp.mpf("1e-45")


# ---------------------------------------------------------------- quantities by symgpt's names
def _idx(s):
    s = s.strip()
    return VOCAB.index(s) if s in VOCAB else int(s)


def lookup(prefix, name, idx):
    src = V1 if prefix else V0
    x = src[name]
    for t in (idx.split(",") if idx else []):
        x = x[_idx(t)]
    return x


NAME = re.compile(r"(sgd\[1\]\.)?([A-Za-z_][A-Za-z_0-9]*)(?:\[([^\]]*)\])?")
FUNCS = {"exp": mp.exp, "sqrt": mp.sqrt, "ln": mp.log, "cos": mp.cos, "sin": mp.sin}
CONSTS = {"ln_eps": EPS, "lr": LR}


def value(expr):
    env = dict(FUNCS)
    env.update(CONSTS)
    counter = [0]

    def sub(mt):
        prefix, name, idx = mt.groups()
        if not prefix and idx is None and (name in FUNCS or name in CONSTS):
            return name
        counter[0] += 1
        key = f"_q{counter[0]}"
        env[key] = lookup(prefix, name, idx)
        return key

    py = NAME.sub(sub, expr)
    py = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)", r"mpf('\1')", py)
    env["mpf"] = mp.mpf
    return eval(py, {"__builtins__": {}}, env)


def rnd(v, n):
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rounding_like(printed, v):
    """v rounded at the precision of `printed` (a trailing % means v is a fraction shown x 100)."""
    p = printed.strip()
    if p.endswith("%"):
        body = p[:-1]
        return rnd(100 * v, len(body.split(".")[1]) if "." in body else 0) + "%"
    return rnd(v, len(p.split(".")[1]) if "." in p else 0)


def chain_value(expr):
    """An equation of the notebook, evaluated exactly from its printed decimals."""
    py = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)", r"mpf('\1')", expr)
    return eval(py, {"__builtins__": {}}, {"mpf": mp.mpf, **FUNCS})


# ---------------------------------------------------------------- every figure of a model quantity in DOC.ipynb
# (line of the JSON file as stored, figure as printed, quantity in symgpt's names, planted?)
FIGURES = [
    (119, '0.38', 'X[2,0]', False),
    (119, '-0.32', 'X[2,1]', False),
    (119, '0.41', 'X[2,2]', False),
    (119, '-0.57', 'X[2,3]', False),
    (121, '0.1444', 'X[2,0]*X[2,0]', False),
    (121, '0.1024', 'X[2,1]*X[2,1]', False),
    (121, '0.1681', 'X[2,2]*X[2,2]', False),
    (121, '0.3249', 'X[2,3]*X[2,3]', False),
    (121, '0.7398', '4*ms1[2]', False),
    (121, '0.18495', 'ms1[2]', False),
    (122, '0.18495', 'ms1[2]', False),
    (122, '0.43006', 'sqrt(ms1[2] + ln_eps)', False),
    (123, '0.8836', 'LN1[2,0]', False),
    (123, '-0.7441', 'LN1[2,1]', False),
    (123, '0.9354', 'LN1[2,2]', True),
    (123, '-1.3254', 'LN1[2,3]', False),
    (138, '0.8836', 'LN1[2,0]', False),
    (138, '-0.7441', 'LN1[2,1]', False),
    (138, '0.9534', 'LN1[2,2]', False),
    (138, '-1.3254', 'LN1[2,3]', False),
    (167, '0.8836', 'LN1[2,0]', False),
    (167, '-0.7441', 'LN1[2,1]', False),
    (167, '0.9534', 'LN1[2,2]', False),
    (167, '-1.3254', 'LN1[2,3]', False),
    (167, '-0.0960', 'Q[2,0]', False),
    (180, '-0.0960', 'Q[2,0]', False),
    (180, '-0.2828', 'Q[2,1]', False),
    (180, '-0.1249', 'Q[2,2]', False),
    (180, '-0.4751', 'Q[2,3]', False),
    (182, '0.3345', 'V[0,0]', False),
    (182, '0.1319', 'V[0,1]', False),
    (183, '1.0570', 'V[1,0]', False),
    (183, '-0.3074', 'V[1,1]', False),
    (184, '-0.3490', 'V[2,0]', False),
    (184, '0.0002', 'V[2,1]', False),
    (207, '-0.4161', 'cos(2)', False),
    (207, '0.9093', 'sin(2)', False),
    (207, '-0.1249', 'Q[2,2]', False),
    (207, '-0.4751', 'Q[2,3]', False),
    (209, '-0.1249', 'Q[2,2]', False),
    (209, '-0.4161', 'cos(2)', False),
    (209, '-0.4751', 'Q[2,3]', False),
    (209, '0.9093', 'sin(2)', False),
    (209, '0.4840', 'Q_rot[2,2]', True),
    (211, '0.2971', 'Q_rot[2,0]', False),
    (211, '0.0303', 'Q_rot[2,1]', False),
    (211, '0.0842', 'Q_rot[2,3]', False),
    (224, '0.0959', 'K_rot[0,0]', False),
    (224, '0.0802', 'K_rot[0,1]', False),
    (225, '0.6649', 'K_rot[1,0]', False),
    (225, '-0.2585', 'K_rot[1,1]', False),
    (226, '-0.9120', 'K_rot[2,0]', False),
    (226, '-0.2680', 'K_rot[2,1]', False),
    (255, '0.2971', 'Q_rot[2,0]', False),
    (255, '-0.9120', 'K_rot[2,0]', False),
    (255, '0.0303', 'Q_rot[2,1]', False),
    (255, '-0.2680', 'K_rot[2,1]', False),
    (255, '-0.1973', 'S[0,2,2]', False),
    (261, '0.0219', 'S[0,2,0]', False),
    (261, '0.1341', 'S[0,2,1]', False),
    (261, '-0.1973', 'S[0,2,2]', False),
    (262, '0.0376', 'S[1,2,0]', False),
    (262, '0.3000', 'S[1,2,1]', True),
    (262, '-0.3280', 'S[1,2,2]', False),
    (277, '0.3422', 'A[0,2,0]', False),
    (277, '0.3829', 'A[0,2,1]', False),
    (277, '0.2749', 'A[0,2,2]', False),
    (278, '0.3467', 'A[1,2,0]', False),
    (278, '0.4128', 'A[1,2,1]', False),
    (278, '0.2405', 'A[1,2,2]', False),
    (295, '38.29', '100*A[0,2,1]', False),
    (295, '41.28', '100*A[1,2,1]', False),
    (311, '0.3422', 'A[0,2,0]', False),
    (311, '0.3345', 'V[0,0]', False),
    (311, '0.3829', 'A[0,2,1]', False),
    (311, '1.0570', 'V[1,0]', False),
    (311, '0.2749', 'A[0,2,2]', False),
    (311, '-0.3490', 'V[2,0]', False),
    (311, '0.4233', 'Attn_heads[2,0]', False),
    (326, '0.4233', 'Attn_heads[2,0]', False),
    (326, '-0.0725', 'Attn_heads[2,1]', False),
    (326, '0.4684', 'Attn_heads[2,2]', False),
    (326, '-0.0811', 'Attn_heads[2,3]', False),
    (374, '-0.5678', 'Z[2,0]', False),
    (374, '-1.4657', 'U[2,0]', False),
    (374, '0.3011', 'R[2,0]', False),
    (375, '0.1435', 'Z[2,1]', False),
    (375, '-0.7300', 'U[2,1]', False),
    (375, '-0.0561', 'R[2,1]', False),
    (376, '0.1384', 'Z[2,2]', False),
    (376, '0.2795', 'U[2,2]', False),
    (376, '0.0207', 'R[2,2]', False),
    (377, '-0.6297', 'Z[2,3]', False),
    (377, '-0.9649', 'U[2,3]', False),
    (377, '0.2112', 'R[2,3]', False),
    (378, '-0.9585', 'Z[2,4]', False),
    (378, '0.8792', 'U[2,4]', False),
    (378, '-0.2336', 'R[2,4]', False),
    (379, '0.3105', 'Z[2,5]', False),
    (379, '0.0520', 'U[2,5]', False),
    (379, '0.0093', 'R[2,5]', False),
    (380, '0.6322', 'Z[2,6]', False),
    (380, '0.6322', 'U[2,6]', True),
    (380, '-0.0062', 'R[2,6]', False),
    (381, '0.1312', 'Z[2,7]', False),
    (381, '0.6277', 'U[2,7]', False),
    (381, '0.0439', 'R[2,7]', False),
    (383, '-0.5678', 'Z[2,0]', False),
    (383, '0.5678', '-Z[2,0]', False),
    (383, '-0.2054', 'Z[2,0] / (1 + exp(-Z[2,0]))', False),
    (383, '-0.2054', 'Z[2,0] / (1 + exp(-Z[2,0]))', False),
    (383, '-1.4657', 'U[2,0]', False),
    (383, '0.3011', 'R[2,0]', False),
    (408, '-0.1886', 'h_final[0]', False),
    (408, '-1.1932', 'h_final[1]', False),
    (408, '1.2249', 'h_final[2]', False),
    (408, '-1.0199', 'h_final[3]', False),
    (410, '1.7651', 'loss', False),
    (432, '-0.3890', 'logits[tôi]', False),
    (432, '0.0974', 'p[tôi]', False),
    (433, '-0.3262', 'logits[thích]', False),
    (433, '0.1037', 'p[thích]', False),
    (434, '-1.5919', 'logits[ăn]', False),
    (434, '0.0293', 'p[ăn]', False),
    (435, '0.1747', 'logits[phở]', False),
    (435, '0.1712', 'p[phở]', False),
    (436, '1.3041', 'logits[uống]', False),
    (436, '0.5296', 'p[uống]', False),
    (437, '-0.7364', 'logits[trà]', False),
    (437, '0.0688', 'p[trà]', False),
    (439, '6.9569', 'sum_exp', False),
    (439, '52.96', '100*p[uống]', False),
    (439, '1.71', '100*p[phở]', True),
    (441, '0.171175', 'p[phở]', False),
    (441, '1.7651', 'loss', False),
    (455, '0.1712', 'p[phở]', False),
    (455, '0.8288', 'grad_logits[phở]', True),
    (459, '1.2249', 'h_final[2]', False),
    (459, '-0.8288', 'grad_logits[phở]', False),
    (459, '-1.0152', 'grad_W_out[2,phở]', False),
    (478, '0.0974', 'grad_logits[tôi]', False),
    (478, '0.1037', 'grad_logits[thích]', False),
    (478, '0.0293', 'grad_logits[ăn]', False),
    (478, '-0.8288', 'grad_logits[phở]', False),
    (478, '0.5296', 'grad_logits[uống]', False),
    (478, '0.0688', 'grad_logits[trà]', False),
    (480, '-0.2901', 'grad_H2[2,0]', False),
    (480, '0.2239', 'grad_H2[2,1]', False),
    (480, '1.0884', 'grad_H2[2,2]', False),
    (480, '1.0988', 'grad_H2[2,3]', False),
    (503, '0.3011', 'R[2,0]', False),
    (503, '1.0884', 'grad_H2[2,2]', False),
    (503, '0.3277', 'grad_W_2[0,2]', False),
    (513, '-0.2901', 'grad_H2[2,0]', False),
    (513, '0.2239', 'grad_H2[2,1]', False),
    (513, '1.0884', 'grad_H2[2,2]', False),
    (513, '1.0988', 'grad_H2[2,3]', False),
    (513, '1.1133', 'grad_R[2,3]', False),
    (514, '1.1133', 'grad_R[2,3]', False),
    (514, '-0.2189', 'Z[2,3] / (1 + exp(-Z[2,3]))', False),
    (514, '-0.2437', 'grad_U[2,3]', False),
    (515, '-0.2200', 'grad_Z[2,3]', False),
    (515, '0.3476', '1/(1 + exp(-Z[2,3]))', False),
    (530, '-0.0002', 'grad_W_3[0,3]', False),
    (530, '0.3572', 'grad_W_3[1,3]', False),
    (530, '-0.1515', 'grad_W_3[2,3]', False),
    (530, '0.2950', 'grad_W_3[3,3]', False),
    (562, '0.0045', 'grad_W_K[0,0]', False),
    (562, '0.0094', 'grad_W_K[0,1]', False),
    (563, '0.0091', 'grad_W_K[1,0]', False),
    (563, '0.0028', 'grad_W_K[1,1]', False),
    (564, '0.0142', 'grad_W_K[2,0]', False),
    (564, '0.0086', 'grad_W_K[2,1]', False),
    (565, '-0.0131', 'grad_W_K[3,0]', False),
    (565, '-0.0051', 'grad_W_K[3,1]', False),
    (582, '0.076892', 'grad_W_Q[0,1]', False),
    (583, '0.009364', 'grad_W_K[1,0]', True),
    (584, '0.008636', 'grad_W_K[2,1]', False),
    (585, '0.048689', 'grad_W_V[1,0]', False),
    (586, '0.791506', 'grad_E[ăn,2]', False),
    (587, '-0.212639', 'grad_E[tôi,0]', False),
    (601, '-1.015219', 'grad_W_out[2,phở]', False),
    (601, '-0.298478', 'sgd[1].W_out[2,phở]', False),
    (607, '0.41', 'W_K[2,0]', False),
    (607, '0.014163', 'grad_W_K[2,0]', False),
    (607, '0.408584', 'sgd[1].W_K[2,0]', False),
    (608, '0.37', 'W_V[1,0]', False),
    (608, '0.048689', 'grad_W_V[1,0]', False),
    (608, '0.374869', 'sgd[1].W_V[1,0]', True),
    (609, '0.46', 'W_1[1,3]', False),
    (609, '0.322403', 'grad_W_1[1,3]', False),
    (609, '0.427760', 'sgd[1].W_1[1,3]', False),
    (610, '0.42', 'W_2[0,2]', False),
    (610, '0.327672', 'grad_W_2[0,2]', False),
    (610, '0.387233', 'sgd[1].W_2[0,2]', False),
    (611, '0.41', 'E[ăn,2]', False),
    (611, '0.791506', 'grad_E[ăn,2]', False),
    (611, '0.330849', 'sgd[1].E[ăn,2]', False),
    (626, '1.0127', 'sgd[1].loss', False),
    (627, '0.3632', 'sgd[1].p[phở]', False),
    (659, '1.7651', 'loss', False),
    (659, '1.0127', 'sgd[1].loss', False),
    (659, '17.12', '100*p[phở]', False),
    (659, '36.32', '100*sgd[1].p[phở]', False),
]

# The arithmetic the notebook writes out (operands as printed): (line, expression, printed result, gives it?).
# Every chain reproduces its printed result from its printed operands, except the planted sign flip
# (0.1712 - 1 printed as 0.8288) and the planted wrong-signed SGD update (0.37 + 0.1 x g); the planted
# carried rounding at line 209 does reproduce its (wrong) printed figure: that is the error.
CHAINS = [
    (121, "0.1444 + 0.1024 + 0.1681 + 0.3249", "0.7398", True),
    (121, "0.7398/4", "0.18495", True),
    (122, "sqrt(0.18495 + 1e-6)", "0.43006", True),
    (167, "0.8836*0.50 + (-0.7441)*(-0.21) + 0.9534*(-0.45) + (-1.3254)*0.20", "-0.0960", True),
    (209, "(-0.1249)*(-0.4161) - (-0.4751)*(0.9093)", "0.4840", True),
    (255, "(0.2971*(-0.9120) + 0.0303*(-0.2680))/sqrt(2)", "-0.1973", True),
    (311, "0.3422*0.3345 + 0.3829*1.0570 + 0.2749*(-0.3490)", "0.4233", True),
    (383, "-0.5678/(1 + exp(0.5678))", "-0.2054", True),
    (383, "(-0.2054)*(-1.4657)", "0.3011", True),
    (441, "-ln(0.171175)", "1.7651", True),
    (455, "0.1712 - 1", "0.8288", False),
    (459, "1.2249*(-0.8288)", "-1.0152", True),
    (503, "0.3011*1.0884", "0.3277", True),
    (513, "(-0.02)*(-0.2901) + (-0.23)*(0.2239) + 0.55*1.0884 + 0.51*1.0988", "1.1133", True),
    (514, "1.1133*(-0.2189)", "-0.2437", True),
    (601, "-0.40 - 0.1*(-1.015219)", "-0.298478", True),
    (607, "0.41 - 0.1*0.014163", "0.408584", True),
    (608, "0.37 - 0.1*0.048689", "0.374869", False),
    (609, "0.46 - 0.1*0.322403", "0.427760", True),
    (610, "0.42 - 0.1*0.327672", "0.387233", True),
    (611, "0.41 - 0.1*0.791506", "0.330849", True),
]


def key_tables(path):
    planted, correct, part = [], [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## Planted"):
            part = planted
        elif line.startswith("## Correct"):
            part = correct
        elif part is not None and line.startswith("| `"):
            part.append([c.strip() for c in line.strip().strip("|").split("|")])
    return planted, correct


def ticks(cell):
    return re.findall(r"`([^`]+)`", cell)


def main():
    # lines of the notebook's JSON as stored (a LaTeX backslash is stored doubled)
    doc = [l.replace("\\\\", "\\") for l in (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()]
    fails = []

    def check(ok, msg):
        if not ok:
            fails.append(msg)
            print("  FAIL:", msg)

    for line, printed, q, planted in FIGURES:
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        r = rounding_like(printed, value(q))
        check((r != printed) if planted else (r == printed),
              f"line {line}: {printed} for {q}, correct rounding {r}, planted={planted}")
    for line, expr, printed, gives in CHAINS:
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        got = rounding_like(printed, chain_value(expr))
        check((got == printed) == gives, f"line {line}: {expr} gives {got}, printed {printed}")
    planted_figs = {(l, p, q) for l, p, q, pl in FIGURES if pl}
    print(f"DOC.ipynb: {len(FIGURES)} figures checked ({len(planted_figs)} planted), {len(CHAINS)} chains")

    planted, correct = key_tables(HERE / "KEY.md")
    check(len(planted) == 8, f"{len(planted)} planted rows in KEY.md")
    check(len(correct) == 10, f"{len(correct)} correct rows in KEY.md")
    print("\n## Planted errors")
    for printed, line, where, exact, rounding, kind, quantity in planted:
        printed, rounding, line, q = ticks(printed)[0], ticks(rounding)[0], int(line), ticks(quantity)[0]
        v = value(q)
        shown = 100 * v if printed.endswith("%") else v
        print(f"  line {line:4d}  {printed:>10}  {q:<22} = {mp.nstr(shown, 30)}   correct {rounding}")
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        full = mp.nstr(shown, 45, min_fixed=-60, max_fixed=60)
        check(full.startswith(exact.rstrip("…")), f"exact value {exact} of {q} disagrees with {full}")
        check(rounding_like(rounding, v) == rounding, f"{rounding} is not the rounding of {q}")
        check(rounding_like(printed, v) != printed, f"planted {printed} is in fact the rounding of {q}")
        check((line, printed.rstrip("%"), q if not printed.endswith("%") else f"100*{q}") in planted_figs,
              f"planted row {line} {printed} {q} is not a planted figure")
    print("\n## Correct figures (a sample)")
    for printed, line, where, quantity in correct:
        printed, line, q = ticks(printed)[0], int(line), ticks(quantity)[0]
        v = value(q)
        print(f"  line {line:4d}  {printed:>10}  {q:<30} = {mp.nstr(v, 30)}")
        check(printed in doc[line - 1], f"line {line} does not print {printed!r}")
        check(rounding_like(printed, v) == printed, f"{printed} is not the rounding of {q}")
    print(f"\nloss {mp.nstr(V0['loss'], 30)}   after one SGD step {mp.nstr(V1['loss'], 30)}")
    if fails:
        print(f"{len(fails)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
