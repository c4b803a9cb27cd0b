"""Independent exact oracle for hu-html-llama-2layer-backprop-sgd.

A two-layer, one-head Llama (pre-norm RMSNorm, RoPE in Hugging Face's rotate_half
convention, SwiGLU MLP, untied lm_head, no biases), d = 4, d_ff = 6, V = 5, T = 3,
input "a kis kutya" -> target "ugat", then one SGD step (lr 0.05; the RMSNorm gains
are not trained). Everything is computed with mpmath at 50 digits; gradients by a small
reverse-mode automatic differentiation over mpf scalars written here. symgpt is not
imported.

`python oracle.py` prints every KEY.md row's quantity with its exact value and asserts that
the key's "exact value" and "correct rounding" columns agree with it.
"""
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from mpmath import cos, exp, log, mp, mpf, sin, sqrt

mp.dps = 50

HERE = Path(__file__).resolve().parent

VOCAB = ["a", "kis", "kutya", "ugat", "alszik"]
INPUT = ["a", "kis", "kutya"]
TARGET = "ugat"
D, DFF, T, V = 4, 6, 3, 5
EPS = mpf("1e-6")
BASE = mpf(10000)
LR = mpf("0.05")


def M(rows):
    return [[mpf(str(x)) for x in r] for r in rows]


def vec(xs):
    return [mpf(str(x)) for x in xs]


PARAMS0 = {
    "E": M([[0.5, -0.2, 0.1, 0.3], [0.1, 0.4, -0.3, 0.2], [-0.2, 0.3, 0.6, 0.1],
            [0.3, 0.1, -0.1, 0.5], [0.2, -0.4, 0.3, -0.1]]),
    "W_out": M([[0.3, -0.2, 0.1, 0.4, -0.1], [0.1, 0.5, -0.3, 0.2, 0.2],
                [-0.2, 0.1, 0.4, 0.3, -0.3], [0.2, 0.3, -0.1, -0.2, 0.5]]),
    "gamma_f": vec([1.0, 0.9, 1.1, 1.0]),
    "l0.gamma1": vec([1.0, 1.1, 0.9, 1.0]),
    "l0.gamma2": vec([0.9, 1.0, 1.0, 1.1]),
    "l0.W_Q": M([[0.3, -0.1, 0.2, 0.1], [0.2, 0.4, -0.1, 0.3], [-0.1, 0.2, 0.5, 0.2], [0.1, -0.3, 0.2, 0.4]]),
    "l0.W_K": M([[0.2, 0.1, -0.2, 0.3], [0.4, -0.1, 0.3, 0.1], [0.1, 0.3, 0.2, -0.2], [-0.3, 0.2, 0.1, 0.2]]),
    "l0.W_V": M([[0.4, 0.1, -0.1, 0.2], [-0.2, 0.3, 0.2, 0.1], [0.1, -0.2, 0.4, 0.3], [0.3, 0.2, 0.1, -0.3]]),
    "l0.W_O": M([[0.2, 0.1, 0.0, -0.1], [0.1, 0.3, -0.2, 0.1], [-0.1, 0.2, 0.3, 0.2], [0.3, -0.1, 0.1, 0.2]]),
    "l0.W_1": M([[0.3, -0.2, 0.1, 0.4, -0.1, 0.2], [0.1, 0.3, -0.4, 0.2, 0.2, -0.1],
                 [-0.2, 0.1, 0.3, -0.1, 0.4, 0.3], [0.2, 0.4, 0.1, 0.3, -0.3, 0.1]]),
    "l0.W_3": M([[0.2, 0.1, -0.3, 0.1, 0.3, 0.2], [-0.1, 0.2, 0.2, 0.4, -0.2, 0.1],
                 [0.3, -0.1, 0.1, 0.2, 0.1, -0.2], [0.4, 0.3, 0.2, -0.1, 0.2, 0.4]]),
    "l0.W_2": M([[0.2, -0.1, 0.1, 0.3], [0.1, 0.2, -0.2, 0.1], [-0.3, 0.1, 0.2, 0.2],
                 [0.2, 0.3, 0.1, -0.1], [0.1, -0.2, 0.3, 0.2], [0.3, 0.1, -0.1, 0.2]]),
    "l1.gamma1": vec([1.1, 1.0, 0.9, 1.0]),
    "l1.gamma2": vec([1.0, 0.9, 1.1, 1.0]),
    "l1.W_Q": M([[0.2, 0.3, -0.1, 0.1], [-0.1, 0.2, 0.4, 0.2], [0.3, 0.1, 0.2, -0.2], [0.1, -0.2, 0.3, 0.4]]),
    "l1.W_K": M([[0.3, -0.2, 0.1, 0.2], [0.1, 0.4, 0.2, -0.1], [0.2, 0.1, -0.3, 0.3], [-0.1, 0.3, 0.2, 0.1]]),
    "l1.W_V": M([[0.1, 0.3, 0.2, -0.2], [0.4, -0.1, 0.1, 0.3], [-0.2, 0.2, 0.3, 0.1], [0.2, 0.1, -0.1, 0.4]]),
    "l1.W_O": M([[0.3, -0.1, 0.2, 0.1], [0.1, 0.2, 0.1, -0.2], [0.2, 0.1, -0.1, 0.3], [-0.1, 0.3, 0.2, 0.1]]),
    "l1.W_1": M([[0.2, 0.4, -0.1, 0.3, 0.1, -0.2], [-0.3, 0.1, 0.2, 0.1, 0.4, 0.3],
                 [0.1, 0.2, 0.3, -0.2, 0.2, 0.1], [0.4, -0.1, 0.1, 0.2, -0.2, 0.3]]),
    "l1.W_3": M([[0.4, 0.3, 0.2, -0.1, 0.2, 0.4], [0.3, -0.2, 0.1, 0.2, 0.1, 0.2],
                 [0.2, 0.1, -0.2, 0.3, 0.4, -0.1], [-0.1, 0.2, 0.3, -0.2, -0.3, 0.2]]),
    "l1.W_2": M([[0.3, 0.1, -0.2, 0.2], [0.2, -0.1, 0.3, 0.1], [0.1, 0.3, 0.1, -0.2],
                 [-0.2, 0.2, 0.2, 0.3], [0.1, 0.2, -0.1, 0.1], [0.2, -0.3, 0.1, 0.2]]),
}
TRAINED = ["E", "W_out"] + [f"l{l}.{w}" for l in (0, 1)
                            for w in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_3")]


# ---------------------------------------------------------------- reverse-mode autodiff
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mpf) else mpf(v)
        self.parents = parents  # tuple of (Var, local derivative)
        self.g = mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, mpf(1)), (o, mpf(1))))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, mpf(1)), (o, mpf(-1))))

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
        return Var(-self.v, ((self, mpf(-1)),))


def vexp(x):
    e = exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vsilu(x):
    sg = 1 / (1 + exp(-x.v))
    return Var(x.v * sg, ((x, sg * (1 + x.v * (1 - sg))),))


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
    out.g = mpf(1)
    for n in reversed(order):
        for p, dl in n.parents:
            p.g += n.g * dl


def vsum(xs):
    s = xs[0]
    for x in xs[1:]:
        s = s + x
    return s


def matmul(X, W):
    return [[vsum([X[t][i] * W[i][j] for i in range(len(W))]) for j in range(len(W[0]))]
            for t in range(len(X))]


def rmsnorm(X, g):
    ms = [vsum([x * x for x in row]) / len(row) for row in X]
    out = [[g[j] * (X[t][j] / vsqrt(ms[t] + EPS)) for j in range(len(X[t]))] for t in range(len(X))]
    return ms, out


def rope(X):
    half = D // 2
    thetas = [BASE ** (-mpf(2 * i) / D) for i in range(half)]
    out = []
    for t, row in enumerate(X):
        r = [None] * D
        for i in range(half):
            c, s = cos(t * thetas[i]), sin(t * thetas[i])
            r[i] = row[i] * c - row[i + half] * s
            r[i + half] = row[i + half] * c + row[i] * s
        out.append(r)
    return out


def forward(params):
    """Return a dict of Var nodes (and Var parameters) for the whole model."""
    P = {}
    for k, val in params.items():
        if isinstance(val[0], list):
            P[k] = [[Var(x) for x in row] for row in val]
        else:
            P[k] = [Var(x) for x in val]
    n = {"params": P}
    ids = [VOCAB.index(w) for w in INPUT]
    H = [P["E"][i] for i in ids]
    n["X"] = H
    for l in (0, 1):
        p = lambda w: P[f"l{l}.{w}"]
        ms1, LN1 = rmsnorm(H, p("gamma1"))
        Q, K, Vv = matmul(LN1, p("W_Q")), matmul(LN1, p("W_K")), matmul(LN1, p("W_V"))
        Qr, Kr = rope(Q), rope(K)
        scale = 1 / sqrt(mpf(D))
        S = [[vsum([Qr[t][j] * Kr[s][j] for j in range(D)]) * scale for s in range(T)] for t in range(T)]
        A, Aden = [], []
        for t in range(T):
            es = [vexp(S[t][s]) for s in range(t + 1)]
            den = vsum(es)
            Aden.append(den)
            A.append([es[s] / den for s in range(t + 1)] + [Var(0)] * (T - t - 1))
        heads = [[vsum([A[t][s] * Vv[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
        Attn = matmul(heads, p("W_O"))
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        ms2, LN2 = rmsnorm(H1, p("gamma2"))
        Z, U = matmul(LN2, p("W_1")), matmul(LN2, p("W_3"))
        R = [[vsilu(Z[t][k]) * U[t][k] for k in range(DFF)] for t in range(T)]
        F = matmul(R, p("W_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        for name, val in dict(ms1=ms1, LN1=LN1, Q=Q, K=K, V=Vv, Q_rot=Qr, K_rot=Kr, S=S, A=A,
                              A_den=Aden, Attn_heads=heads, Attn=Attn, H1=H1, ms2=ms2, LN2=LN2,
                              Z=Z, U=U, R=R, F=F, H2=H2).items():
            n[f"l{l}.{name}"] = val
        H = H2
    msf, LNf = rmsnorm(H, P["gamma_f"])
    n["ms_f"], n["LN_f"] = msf, LNf
    hf = LNf[T - 1]
    n["h_final"] = hf
    logits = [vsum([hf[j] * P["W_out"][j][v] for j in range(D)]) for v in range(V)]
    es = [vexp(z) for z in logits]
    se = vsum(es)
    p = [e / se for e in es]
    loss = -vlog(p[VOCAB.index(TARGET)])
    n.update(logits=logits, exp_logits=es, sum_exp=se, p=p, loss=loss)
    return n


def run(params):
    n = forward(params)
    backward(n["loss"])
    return n


def val(x):
    return x.v


def grad(x):
    return x.g


# ---------------------------------------------------------------- the model, before and after
N0 = run(PARAMS0)


def sgd_params():
    new = {}
    for k, v in PARAMS0.items():
        if k in TRAINED:
            G = N0["params"][k]
            new[k] = [[v[i][j] - LR * G[i][j].g for j in range(len(v[0]))] for i in range(len(v))]
        else:
            new[k] = [x for x in v]
    return new


P1 = sgd_params()
N1 = forward(P1)

TOK = {w: i for i, w in enumerate(VOCAB)}


def idx(s):
    s = s.strip()
    return TOK[s] if s in TOK else int(s)


def q(name):
    """Exact value (mpf) of a symgpt-style quantity name used in the key."""
    name = name.strip().strip("`")
    m = re.fullmatch(r"sgd\[1\]\.(.+)", name)
    if m:
        inner = m.group(1)
        m2 = re.fullmatch(r"([A-Za-z_0-9.]+)\[([^\]]+)\]", inner)
        if m2 and m2.group(1) in P1:
            ii = [idx(x) for x in m2.group(2).split(",")]
            v = P1[m2.group(1)]
            return v[ii[0]][ii[1]] if len(ii) == 2 else v[ii[0]]
        return _node(N1, inner, grads=False)
    return _node(N0, name, grads=True)


def _node(n, name, grads):
    m = re.fullmatch(r"sqrt\((.+) \+ ln_eps\)", name)
    if m:
        return sqrt(_node(n, m.group(1), grads) + EPS)
    if name in ("loss", "sum_exp"):
        return n[name].v
    m = re.fullmatch(r"(grad_)?([A-Za-z_0-9.]+)(?:\[([^\]]+)\])?", name)
    g, base, ix = m.group(1), m.group(2), m.group(3)
    ii = [idx(x) for x in ix.split(",")] if ix else []
    obj = n["params"][base] if base in n["params"] else n[base]
    for i in ii:
        obj = obj[i]
    return obj.g if g else obj.v


def rnd(x, places):
    """Round half away from zero to `places` decimals, as a string with a dot."""
    d = Decimal(mp.nstr(x, 45, strip_zeros=False, min_fixed=-50, max_fixed=50))
    return str(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


# ---------------------------------------------------------------- checking KEY.md
def parse_key():
    rows = []
    planted = True
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## Correct"):
            planted = False
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((planted, cells))
    return rows


def main():
    doc_lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    n_planted = n_ok = 0
    for planted, cells in parse_key():
        printed = cells[0].strip("`")
        line = int(cells[1])
        assert printed in doc_lines[line - 1], f"{printed!r} not on line {line}"
        if planted:
            exact_s, correct, qname = cells[3], cells[4].strip("`"), cells[6]
            qnames = [x.strip().strip("`") for x in qname.split(" or ")]
            x = q(qnames[0])
            for other in qnames[1:]:
                assert abs(q(other) - x) < mpf("1e-40"), (qnames, other)
            scale = 100 if correct.endswith("%") else 1
            xs = x * scale
            # exact value column: its digits (before the ellipsis) must be a prefix of the exact value
            shown = exact_s.replace("…", "").replace(",", ".")
            places = len(shown.split(".")[1]) if "." in shown else 0
            trunc = mp.nstr(xs, 45, strip_zeros=False, min_fixed=-50, max_fixed=50)
            sign = "-" if xs < 0 else ""
            body = trunc.lstrip("-")
            ip, fp = body.split(".")
            assert shown == sign + ip + "." + fp[:places], (qname, shown, trunc)
            c = correct.rstrip("%").replace(",", ".").replace("−", "-")
            cp = len(c.split(".")[1]) if "." in c else 0
            assert rnd(xs, cp) == c, (qname, rnd(xs, cp), c)
            pr = printed.rstrip("%").replace(",", ".").replace("−", "-")
            assert pr != c, f"planted {printed} equals its correct rounding"
            n_planted += 1
            print(f"PLANTED {qname:28s} = {mp.nstr(xs, 20)}  correct {c:>10s}  printed {printed}")
        else:
            qname = cells[3]
            x = q(qname.strip("`").split(" or ")[0].strip().strip("`"))
            pr = printed.replace(",", ".").replace("−", "-")
            scale = 100 if pr.endswith("%") else 1
            pr = pr.rstrip("%")
            cp = len(pr.split(".")[1]) if "." in pr else 0
            assert rnd(x * scale, cp) == pr, (qname, rnd(x * scale, cp), pr)
            n_ok += 1
            print(f"CORRECT {qname:28s} = {mp.nstr(x * scale, 20)}  printed {printed}")
    assert n_planted == 8, n_planted
    assert n_ok == 10, n_ok
    print(f"OK: {n_planted} planted errors and {n_ok} correct figures agree with the exact values")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for nm in sys.argv[2:]:
            print(nm, mp.nstr(q(nm), 20))
    else:
        main()
