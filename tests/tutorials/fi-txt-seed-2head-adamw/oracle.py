"""Independent oracle for fi-txt-seed-2head-adamw (does not import symgpt).

Recomputes, with mpmath at 50 digits, every model quantity that DOC.txt prints: the forward
pass of a one-block post-LN transformer (two heads, W_O, ReLU, sinusoidal positions, tied
head), the loss, the full gradient (a small reverse-mode autodiff on mpf scalars) and two
torch-style AdamW steps (decoupled weight decay) with the loss after each.

`python oracle.py` prints every KEY.md row's quantity with its exact value and asserts that the
key's "exact value" and "correct rounding" columns (and, for the sample of correct figures,
the printed figure itself) agree with it.  `python oracle.py --dump` prints every named value.
"""
import os
import re
import sys

from mpmath import cos, exp, log, mp, mpf, sin, sqrt

mp.dps = 50

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- the model (SPEC.toml)
VOCAB = ["<s>", "minä", "juon", "kuumaa", "kahvia", "teetä"]
INPUT = [0, 1, 2, 3]
TARGET = 4
D, HEADS, DFF, T = 4, 2, 8, 4
DK = D // HEADS
LN_EPS = mpf("1e-5")
PE_BASE = mpf(10000)


def M(rows):
    return [[mpf(str(x)) for x in r] for r in rows]


P0 = {
    "E": M([
        [0.1, 0.2, -0.1, 0.0],
        [0.4, -0.3, 0.2, 0.1],
        [-0.2, 0.5, 0.1, -0.3],
        [0.3, 0.1, -0.4, 0.2],
        [0.2, -0.1, 0.3, 0.3],
        [-0.3, 0.2, 0.4, -0.1],
    ]),
    "W_Q": M([[0.3, -0.2, 0.4, 0.1], [0.1, 0.5, -0.2, 0.3], [-0.4, 0.2, 0.3, 0.2], [0.2, 0.1, -0.1, 0.5]]),
    "W_K": M([[0.2, 0.4, -0.3, 0.1], [-0.1, 0.3, 0.2, 0.4], [0.5, -0.2, 0.1, 0.3], [0.3, 0.1, 0.4, -0.2]]),
    "W_V": M([[0.4, 0.1, -0.2, 0.3], [-0.3, 0.2, 0.5, 0.1], [0.1, -0.4, 0.2, 0.2], [0.2, 0.3, 0.1, -0.5]]),
    "W_O": M([[0.5, -0.1, 0.2, 0.1], [0.1, 0.4, -0.2, 0.3], [-0.2, 0.3, 0.4, 0.1], [0.3, 0.1, 0.1, 0.6]]),
    "W_1": M([
        [0.2, -0.3, 0.4, 0.1, -0.2, 0.3, 0.15, -0.4],
        [0.3, 0.2, -0.1, 0.4, 0.1, -0.3, 0.2, 0.25],
        [-0.1, 0.4, 0.2, -0.3, 0.5, 0.1, -0.2, 0.3],
        [0.4, 0.1, 0.3, 0.2, -0.1, 0.2, 0.35, -0.2],
    ]),
    "b_1": M([[0.05, -0.1, 0.0, 0.1, 0.05, -0.05, 0.1, 0.0]]),
    "W_2": M([
        [0.3, -0.2, 0.1, 0.2],
        [-0.1, 0.4, 0.2, -0.3],
        [0.2, 0.1, -0.3, 0.4],
        [0.4, -0.1, 0.2, 0.1],
        [-0.2, 0.3, 0.4, -0.1],
        [0.1, 0.2, -0.2, 0.3],
        [0.3, -0.3, 0.1, 0.2],
        [-0.1, 0.2, 0.3, -0.2],
    ]),
    "b_2": M([[0.0, 0.05, -0.05, 0.1]]),
}
VECTORS = ("b_1", "b_2")  # stored as 1-row matrices

ADAM = dict(lr=mpf("0.01"), b1=mpf("0.9"), b2=mpf("0.999"), eps=mpf("1e-8"), wd=mpf("0.01"))


# ---------------------------------------------------------------- a tiny reverse-mode autodiff
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v
        self.parents = parents
        self.g = mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(mpf(o))
        return Var(self.v + o.v, ((self, mpf(1)), (o, mpf(1))))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(mpf(o))
        return Var(self.v - o.v, ((self, mpf(1)), (o, mpf(-1))))

    def __rsub__(self, o):
        return Var(mpf(o)) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(mpf(o))
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(mpf(o))
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, mpf(-1)),))


def vexp(a):
    e = exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vrelu(a):
    if a.v > 0:
        return Var(a.v, ((a, mpf(1)),))
    return Var(mpf(0), ((a, mpf(0)),))


def vsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
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
    root.g = mpf(1)
    for node in reversed(order):
        for p, local in node.parents:
            p.g += node.g * local


# ---------------------------------------------------------------- forward pass
def pe(t, j):
    i = j // 2
    ang = mpf(t) / PE_BASE ** (mpf(2 * i) / D)
    return sin(ang) if j % 2 == 0 else cos(ang)


def layernorm(row):
    mu = vsum(row) / D
    var = vsum([(x - mu) * (x - mu) for x in row]) / D
    den = vsqrt(var + LN_EPS)
    return [(x - mu) / den for x in row], mu, var, den


def forward(params):
    """params: name -> matrix of mpf. Returns (vals, leaves) with vals name -> value."""
    L = {k: [[Var(x) for x in r] for r in m] for k, m in params.items()}
    E, WQ, WK, WV, WO = L["E"], L["W_Q"], L["W_K"], L["W_V"], L["W_O"]
    W1, b1, W2, b2 = L["W_1"], L["b_1"][0], L["W_2"], L["b_2"][0]
    vals = {}
    X = [[E[tok][j] + 0 for j in range(D)] for tok in INPUT]
    H0 = [[X[t][j] + pe(t, j) for j in range(D)] for t in range(T)]

    def matmul(A, B):
        n, m = len(B), len(B[0])
        return [[vsum([a[i] * B[i][c] for i in range(n)]) for c in range(m)] for a in A]

    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    scale = sqrt(mpf(DK))
    S, A, Aden = {}, {}, {}
    Attn_heads = [[None] * D for _ in range(T)]
    for h in range(HEADS):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(T):
                S[h, t, s] = vsum([Q[t][c] * K[s][c] for c in cols]) / scale
            ex = [vexp(S[h, t, s]) for s in range(t + 1)]
            den = vsum(ex)
            Aden[h, t] = den
            for s in range(T):
                A[h, t, s] = ex[s] / den if s <= t else Var(mpf(0))
            for c in cols:
                Attn_heads[t][c] = vsum([A[h, t, s] * V[s][c] for s in range(t + 1)])
    Attn = matmul(Attn_heads, WO)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    LN1, mu1, var1 = [], [], []
    for t in range(T):
        out, mu, var, _ = layernorm(H1[t])
        LN1.append(out); mu1.append(mu); var1.append(var)
    Z = [[vsum([LN1[t][i] * W1[i][k] for i in range(D)]) + b1[k] for k in range(DFF)] for t in range(T)]
    R = [[vrelu(z) for z in row] for row in Z]
    F = [[vsum([R[t][k] * W2[k][j] for k in range(DFF)]) + b2[j] for j in range(D)] for t in range(T)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    LN2, mu2, var2 = [], [], []
    for t in range(T):
        out, mu, var, _ = layernorm(H2[t])
        LN2.append(out); mu2.append(mu); var2.append(var)
    hf = LN2[T - 1]
    logits = [vsum([hf[j] * E[v][j] for j in range(D)]) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    p = [e / sum_exp for e in ex]
    loss = -vlog(p[TARGET])
    backward(loss)

    def put2(name, Mx):
        for i, r in enumerate(Mx):
            for j, x in enumerate(r):
                vals["%s[%d,%d]" % (name, i, j)] = x.v
                vals["grad_%s[%d,%d]" % (name, i, j)] = x.g

    for name in ("X", "H0", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        put2(name, locals()[name])
    for t in range(T):
        for j in range(D):
            vals["PE[%d,%d]" % (t, j)] = pe(t, j)
        vals["mu1[%d]" % t], vals["var1[%d]" % t] = mu1[t].v, var1[t].v
        vals["mu2[%d]" % t], vals["var2[%d]" % t] = mu2[t].v, var2[t].v
    for (h, t, s), x in S.items():
        vals["S[%d,%d,%d]" % (h, t, s)] = x.v
    for (h, t, s), x in A.items():
        vals["A[%d,%d,%d]" % (h, t, s)] = x.v
    for (h, t), x in Aden.items():
        vals["A_den[%d,%d]" % (h, t)] = x.v
    for j in range(D):
        vals["h_final[%d]" % j] = hf[j].v
        vals["grad_h_final[%d]" % j] = hf[j].g
    for v in range(len(VOCAB)):
        vals["logits[%d]" % v] = logits[v].v
        vals["grad_logits[%d]" % v] = logits[v].g
        vals["p[%d]" % v] = p[v].v
    vals["sum_exp"] = sum_exp.v
    vals["loss"] = loss.v
    grads = {}
    for name, m in L.items():
        grads[name] = [[x.g for x in r] for r in m]
        for i, r in enumerate(m):
            for j, x in enumerate(r):
                if name in VECTORS:
                    vals["%s[%d]" % (name, j)] = x.v
                    vals["grad_%s[%d]" % (name, j)] = x.g
                else:
                    vals["%s[%d,%d]" % (name, i, j)] = x.v
                    vals["grad_%s[%d,%d]" % (name, i, j)] = x.g
    return vals, grads


def pname(name, i, j):
    return "%s,%d" % (name, j) if name in VECTORS else "%s,%d,%d" % (name, i, j)


def adamw_run(steps=2):
    """torch.optim.AdamW: θ ← θ(1 − ηλ); m, v; θ ← θ − η m̂ / (√v̂ + ε). Every parameter decays."""
    a = ADAM
    params = {k: [r[:] for r in m] for k, m in P0.items()}
    m = {k: [[mpf(0)] * len(r) for r in mm] for k, mm in P0.items()}
    v = {k: [[mpf(0)] * len(r) for r in mm] for k, mm in P0.items()}
    out = {}
    vals, grads = forward(params)
    for key, x in vals.items():
        out[key] = x
        out["adamw[0]." + key] = x
    for step in range(1, steps + 1):
        bc1 = 1 - a["b1"] ** step
        bc2 = 1 - a["b2"] ** step
        for name in params:
            for i, r in enumerate(params[name]):
                for j, th in enumerate(r):
                    g = grads[name][i][j]
                    m[name][i][j] = a["b1"] * m[name][i][j] + (1 - a["b1"]) * g
                    v[name][i][j] = a["b2"] * v[name][i][j] + (1 - a["b2"]) * g * g
                    mh = m[name][i][j] / bc1
                    vh = v[name][i][j] / bc2
                    upd = a["lr"] * mh / (sqrt(vh) + a["eps"])
                    dec = a["lr"] * a["wd"] * th
                    new = th - dec - upd
                    pn = pname(name, i, j)
                    pre = "adamw[%d]." % step
                    out[pre + "m[%s]" % pn] = m[name][i][j]
                    out[pre + "v[%s]" % pn] = v[name][i][j]
                    out[pre + "mhat[%s]" % pn] = mh
                    out[pre + "vhat[%s]" % pn] = vh
                    out[pre + "update[%s]" % pn] = upd
                    out[pre + "decay[%s]" % pn] = dec
                    params[name][i][j] = new
        vals, grads = forward(params)
        for key, x in vals.items():
            out["adamw[%d].%s" % (step, key)] = x
    return out


# ---------------------------------------------------------------- names and rounding
TOK = {w: i for i, w in enumerate(VOCAB)}


def canon(ref):
    """Normalise a symgpt name: tokens to ids, no spaces."""
    ref = ref.strip().replace(" ", "")

    def sub(mo):
        parts = mo.group(1).split(",")
        parts = [str(TOK[p]) if p in TOK else p for p in parts]
        return "[" + ",".join(parts) + "]"

    return re.sub(r"\[([^\]]*)\]", sub, ref)


def evaluate(ref, vals):
    """A name, or one of the few expressions the key uses."""
    ref = ref.strip()
    mo = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", ref.replace(" ", ""))
    if mo:
        return sqrt(vals[canon(mo.group(1))] + LN_EPS)
    return vals[canon(ref)]


def round_half_away(x, decimals):
    q = mpf(10) ** decimals
    y = abs(x) * q
    n = int(mp.floor(y + mpf("0.5")))
    s = str(n).rjust(decimals + 1, "0")
    body = s[:-decimals] + "," + s[-decimals:] if decimals > 0 else s
    return ("-" if x < 0 and n != 0 else "") + body


def sci_round(x, sig):
    """'1,234e-05' style: sig significant digits, half away from zero."""
    if x == 0:
        return "0"
    e = int(mp.floor(mp.log10(abs(x))))
    mant = x / mpf(10) ** e
    r = round_half_away(mant, sig - 1)
    if r.lstrip("-").startswith("10"):
        e += 1
        r = round_half_away(x / mpf(10) ** e, sig - 1)
    return "%se%+03d" % (r, e)


def figure_of(printed):
    """Decimal text of a printed figure (comma or point; %, ×10^k, e-notation) -> (kind, decimals, scale)."""
    s = printed.strip().replace("\u2212", "-").replace(" ", "")
    pct = s.endswith("%")
    s = s.rstrip("%")
    mo = re.fullmatch(r"(-?\d+)(?:[,.](\d+))?(?:e([+-]\d+)|·10\^([+-]?\d+)|×10\^([+-]?\d+))?", s)
    assert mo, printed
    dec = len(mo.group(2) or "")
    exp10 = mo.group(3) or mo.group(4) or mo.group(5)
    return pct, dec, (int(exp10) if exp10 else None)


def rounds_to(x, printed):
    pct, dec, e = figure_of(printed)
    if pct:
        x = x * 100
    s = printed.strip().replace("\u2212", "-").replace(" ", "").rstrip("%").replace(".", ",")
    if e is not None:
        mant = x / mpf(10) ** e
        want = re.split(r"e|·|×", s)[0]
        return round_half_away(mant, dec) == want
    return round_half_away(x, dec) == s


def cells(line):
    parts = [c.strip() for c in line.strip().strip("|").split("|")]
    return parts


def ticks(cell):
    return re.findall(r"`([^`]*)`", cell)


def main():
    vals = adamw_run(2)
    if "--dump" in sys.argv:
        for k in sorted(vals):
            if k.startswith("adamw[0]."):
                continue
            print(k, mp.nstr(vals[k], 20))
        return
    key = open(os.path.join(HERE, "KEY.md"), encoding="utf-8").read().splitlines()
    doc = open(os.path.join(HERE, "DOC.txt"), encoding="utf-8").read().splitlines()
    section = None
    planted = correct = 0
    for line in key:
        if line.startswith("## Planted"):
            section = "planted"
            continue
        if line.startswith("## Correct"):
            section = "correct"
            continue
        if not line.startswith("| `"):
            continue
        c = cells(line)
        printed = ticks(c[0])[0]
        lineno = int(c[1])
        assert printed in doc[lineno - 1], (printed, lineno, doc[lineno - 1])
        refs = ticks(c[-1])
        value = evaluate(refs[0], vals)
        for other in refs[1:]:
            assert abs(evaluate(other, vals) - value) < mpf(10) ** -40, (refs, other)
        if section == "planted":
            exact, rounding = c[3], ticks(c[4])[0]
            pct, _, _ = figure_of(rounding)
            shown = value * 100 if pct else value
            digits = exact.rstrip("…").strip()
            full = mp.nstr(shown, 45, strip_zeros=False)
            # the key's exact value: the leading digits of the exact value (truncated, not rounded)
            mant_key = digits.lstrip("-").replace(".", "").lstrip("0")
            mant_val = mp.nstr(abs(shown), 45, strip_zeros=False).replace(".", "").lstrip("0")
            assert (digits.startswith("-") == (shown < 0)) and mant_val.startswith(mant_key), (refs[0], digits, full)
            assert rounds_to(value, rounding), (refs[0], rounding, full)
            assert not rounds_to(value, printed), ("planted figure is not wrong", refs[0], printed)
            planted += 1
            print("planted  %-34s %-12s exact %s  correct %s" % (refs[0], printed, mp.nstr(shown, 15), rounding))
        else:
            assert rounds_to(value, printed), (refs[0], printed, mp.nstr(value, 20))
            correct += 1
            print("correct  %-34s %-12s exact %s" % (refs[0], printed, mp.nstr(value, 15)))
    assert planted == 8 and correct == 10, (planted, correct)
    print("OK: 8 planted errors and 10 correct figures agree with the exact values")


if __name__ == "__main__":
    main()
