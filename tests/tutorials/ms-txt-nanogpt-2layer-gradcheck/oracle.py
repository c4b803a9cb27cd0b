#!/usr/bin/env python3
"""Independent mpmath oracle (50 digits, no symgpt) for ms-txt-nanogpt-2layer-gradcheck.

Model (nanoGPT-style GPT-2 block, pre-LayerNorm, tied head), read from SPEC.toml with tomllib:
    x0 = wte[ids] + wpe[0..T-1]
    per block:  a = ln_1(x);  q, k, v = a W_Q + b_Q, a W_K + b_K, a W_V + b_V
                S[t,s] = q_t . k_s / sqrt(d),  causal softmax -> A
                y = (A v) W_O + b_O;  x = x + y
                m = ln_2(x);  F = GELU(m W_1 + b_1) W_2 + b_2   (exact-erf GELU, nn.GELU())
                x = x + F
    h = ln_f(x)[T-1];  logits = h . wte[v];  p = softmax;  loss = -ln p[target]
LayerNorm: gamma (h - mu)/sqrt(var + eps) + beta, biased variance, eps = 1e-5.
Gradients by a small reverse-mode autodiff over mpmath scalars (checked here against central
differences with a tiny step); SGD: every parameter (LayerNorm gains and shifts too) moves by -lr * grad.

    python oracle.py     # prints every KEY.md quantity with its exact value and asserts the key's columns
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ a tiny reverse-mode autodiff
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

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / (o.v * o.v))))

    def __rtruediv__(self, o):
        return lift(o) / self


def lift(x):
    return x if isinstance(x, Var) else Var(mp.mpf(x))


def EXP(x):
    if isinstance(x, Var):
        e = mp.exp(x.v)
        return Var(e, ((x, e),))
    return mp.exp(x)


def LOG(x):
    if isinstance(x, Var):
        return Var(mp.log(x.v), ((x, 1 / x.v),))
    return mp.log(x)


def SQRT(x):
    if isinstance(x, Var):
        s = mp.sqrt(x.v)
        return Var(s, ((x, 1 / (2 * s)),))
    return mp.sqrt(x)


def GELU(x):
    """x * Phi(x) with the exact erf."""
    def f(z):
        return z * (1 + mp.erf(z / mp.sqrt(2))) / 2
    if isinstance(x, Var):
        z = x.v
        d = (1 + mp.erf(z / mp.sqrt(2))) / 2 + z * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
        return Var(f(z), ((x, d),))
    return f(x)


def SUM(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


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
    for n in order:
        n.g = mp.mpf(0)
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, dl in n.parents:
            p.g += n.g * dl


# ------------------------------------------------------------------ the spec
spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = spec["model"]["vocab"]
ID = {w: i for i, w in enumerate(VOCAB)}
D, DFF = spec["model"]["d"], spec["model"]["d_ff"]
EPS = mp.mpf(str(spec["model"]["ln_eps"]))
IDS = [ID[w] for w in spec["data"]["input"]]
TGT = ID[spec["data"]["target"]]
T = len(IDS)
LR = mp.mpf(str(spec["training"]["lr"]))


def M(a):
    if isinstance(a[0], list):
        return [[mp.mpf(str(v)) for v in r] for r in a]
    return [mp.mpf(str(v)) for v in a]


W = spec["weights"]
P0 = {"E": M(W["E"]), "W_pe": M(W["W_pe"]), "gamma_f": M(W["gamma_f"]), "beta_f": M(W["beta_f"])}
for l, layer in enumerate(spec["layer"]):
    for k, v in layer.items():
        P0[f"l{l}.{k}"] = M(v)
NL = len(spec["layer"])


def layernorm(x, g, b):
    mu = SUM(x) / len(x)
    var = SUM([(xi - mu) * (xi - mu) for xi in x]) / len(x)
    s = SQRT(var + EPS)
    return [g[j] * (x[j] - mu) / s + b[j] for j in range(len(x))], mu, var, s


def matvec(x, Wm, b):  # x (n) @ W (n x m) + b
    return [SUM([x[i] * Wm[i][j] for i in range(len(x))]) + b[j] for j in range(len(Wm[0]))]


def forward(P):
    """Every intermediate quantity, keyed by symgpt-like names (blocks l0, l1)."""
    out = {}
    x = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    out["H0"] = x
    for l in range(NL):
        g = lambda n: P[f"l{l}.{n}"]
        ln1 = [layernorm(x[t], g("gamma1"), g("beta1")) for t in range(T)]
        a = [r[0] for r in ln1]
        out[f"l{l}.mu1"] = [r[1] for r in ln1]
        out[f"l{l}.var1"] = [r[2] for r in ln1]
        out[f"l{l}.LN1"] = a
        q = [matvec(a[t], g("W_Q"), g("b_Q")) for t in range(T)]
        k = [matvec(a[t], g("W_K"), g("b_K")) for t in range(T)]
        v = [matvec(a[t], g("W_V"), g("b_V")) for t in range(T)]
        out[f"l{l}.Q"], out[f"l{l}.K"], out[f"l{l}.V"] = q, k, v
        S = [[SUM([q[t][j] * k[s][j] for j in range(D)]) / mp.sqrt(D) for s in range(T)] for t in range(T)]
        A, Aden = [], []
        for t in range(T):
            es = [EXP(S[t][s]) for s in range(t + 1)]
            den = SUM(es)
            Aden.append(den)
            A.append([es[s] / den for s in range(t + 1)] + [mp.mpf(0)] * (T - t - 1))
        out[f"l{l}.S"], out[f"l{l}.A"], out[f"l{l}.A_den"] = S, A, Aden
        heads = [[SUM([A[t][s] * v[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
        y = [matvec(heads[t], g("W_O"), g("b_O")) for t in range(T)]
        out[f"l{l}.Attn_heads"], out[f"l{l}.Attn"] = heads, y
        x = [[x[t][j] + y[t][j] for j in range(D)] for t in range(T)]
        out[f"l{l}.H1"] = x
        ln2 = [layernorm(x[t], g("gamma2"), g("beta2")) for t in range(T)]
        m = [r[0] for r in ln2]
        out[f"l{l}.mu2"] = [r[1] for r in ln2]
        out[f"l{l}.var2"] = [r[2] for r in ln2]
        out[f"l{l}.LN2"] = m
        Z = [matvec(m[t], g("W_1"), g("b_1")) for t in range(T)]
        R = [[GELU(z) for z in Z[t]] for t in range(T)]
        F = [matvec(R[t], g("W_2"), g("b_2")) for t in range(T)]
        out[f"l{l}.Z"], out[f"l{l}.R"], out[f"l{l}.F"] = Z, R, F
        x = [[x[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        out[f"l{l}.H2"] = x
    lnf = [layernorm(x[t], P["gamma_f"], P["beta_f"]) for t in range(T)]
    out["mu_f"] = [r[1] for r in lnf]
    out["var_f"] = [r[2] for r in lnf]
    out["LN_f"] = [r[0] for r in lnf]
    h = out["LN_f"][T - 1]
    out["h_final"] = h
    logits = [SUM([h[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    ex = [EXP(z) for z in logits]
    se = SUM(ex)
    out["logits"], out["sum_exp"] = logits, se
    out["p"] = [e / se for e in ex]
    out["loss"] = -LOG(out["p"][TGT])
    return out


def val(x):
    if isinstance(x, Var):
        return x.v
    if isinstance(x, list):
        return [val(y) for y in x]
    return x


def wrap(P):
    def w(a):
        return [w(b) for b in a] if isinstance(a, list) else Var(a)
    return {k: w(v) for k, v in P.items()}


def grads(P):
    PV = wrap(P)
    out = forward(PV)
    backward(out["loss"])

    def g(a):
        return [g(b) for b in a] if isinstance(a, list) else a.g
    return {k: g(v) for k, v in PV.items()}, {k: val(v) for k, v in out.items()}


def perturbed(P, name, idx, delta):
    Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return forward(Q)["loss"]


G, F0 = grads(P0)
P1 = {}
for k, v in P0.items():
    P1[k] = ([[v[i][j] - LR * G[k][i][j] for j in range(len(v[0]))] for i in range(len(v))]
             if isinstance(v[0], list) else [v[i] - LR * G[k][i] for i in range(len(v))])
F1 = forward(P1)
H = mp.mpf("1e-4")

# sanity: autodiff against a central difference with a tiny step
for name, idx in (("E", (3, 0)), ("l0.W_Q", (1, 0)), ("l1.W_1", (0, 3)), ("l0.gamma1", (2,))):
    eps = mp.mpf("1e-20")
    fd = (perturbed(P0, name, idx, eps) - perturbed(P0, name, idx, -eps)) / (2 * eps)
    g = G[name][idx[0]][idx[1]] if len(idx) == 2 else G[name][idx[0]]
    assert abs(fd - g) < mp.mpf("1e-30"), (name, idx, fd, g)


# ------------------------------------------------------------------ evaluating key quantities
def tok(s):
    s = s.strip()
    return ID[s] if s in ID else int(s)


def lookup(ref: str):
    ref = ref.strip()
    m = re.fullmatch(r"sgd\[1\]\.(.+)", ref)
    if m:
        inner = m.group(1)
        if inner == "loss":
            return F1["loss"]
        return lookup_in(inner, P1, F1, None)
    m = re.fullmatch(r"gradcheck\((.+)\[(.+)\],\s*([0-9.e-]+)\)", ref)
    if m:
        name, idx, h = m.group(1), tuple(tok(i) for i in m.group(2).split(",")), mp.mpf(m.group(3))
        return (perturbed(P0, name, idx, h) - perturbed(P0, name, idx, -h)) / (2 * h)
    m = re.fullmatch(r"loss_at\((.+)\[(.+)\],\s*(-?[0-9.e-]+)\)", ref)
    if m:
        name, idx, h = m.group(1), tuple(tok(i) for i in m.group(2).split(",")), mp.mpf(m.group(3))
        return perturbed(P0, name, idx, h)
    m = re.fullmatch(r"sqrt\((.+) \+ ln_eps\)", ref)
    if m:
        return mp.sqrt(lookup(m.group(1)) + EPS)
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(lookup(m.group(1)))
    m = re.fullmatch(r"(.+) - 1", ref)
    if m:
        return lookup(m.group(1)) - 1
    return lookup_in(ref, P0, F0, G)


def lookup_in(ref, P, Fw, Gr):
    if ref == "lr":
        return LR
    if ref in ("loss", "sum_exp"):
        return Fw[ref]
    m = re.fullmatch(r"(grad_)?([A-Za-z0-9_.]+)\[(.+)\]", ref)
    assert m, ref
    grad, name, idx = m.group(1), m.group(2), [tok(i) for i in m.group(3).split(",")]
    if grad:
        if name == "logits":
            return Fw["p"][idx[0]] - (1 if idx[0] == TGT else 0)
        src = Gr[name]
    else:
        src = Fw[name] if name in Fw else P[name]
    for i in idx:
        src = src[i]
    return src


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def parse_key():
    rows = []
    section = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = "planted" if "Planted" in line else "correct"
            continue
        if not line.startswith("| ") or line.startswith("| ---") or line.startswith("| printed"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((section, cells))
    return rows


def quantity(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# Every figure DOC.txt prints, line by line in order: (line, printed, quantity); the quantity of each
# planted figure is the one the key names (its printed value is checked against the key there).
FIGURES = [
    (49, "0.0", "H0[2,0]"), (49, "0.2", "H0[2,1]"), (49, "-0.4", "H0[2,2]"), (49, "0.4", "H0[2,3]"),
    (58, "0.0500", "l0.mu1[2]"), (59, "0.0875", "l0.var1[2]"), (60, "0.2958", "sqrt(l0.var1[2] + ln_eps)"),
    (62, "-0.1690", "l0.LN1[2,0]"), (62, "0.5578", "l0.LN1[2,1]"), (62, "-1.2691", "l0.LN1[2,2]"),
    (62, "1.1831", "l0.LN1[2,3]"),
    (76, "0.1043", "l0.S[2,0]"), (76, "0.3696", "l0.A[2,0]"),
    (77, "-0.0581", "l0.S[2,1]"), (77, "0.3142", "l0.A[2,1]"),
    (78, "-0.0519", "l0.S[2,2]"), (78, "0.3162", "l0.A[2,2]"),
    (89, "0.2710", "l0.F[2,0]"), (89, "-0.0885", "l0.F[2,1]"), (89, "-0.0966", "l0.F[2,2]"), (89, "0.1456", "l0.F[2,3]"),
    (93, "0.2246", "l0.H2[2,0]"), (93, "0.1497", "l0.H2[2,1]"), (93, "-0.4313", "l0.H2[2,2]"), (93, "0.5791", "l0.H2[2,3]"),
    (102, "0.1305", "l1.mu1[2]"), (102, "0.1351", "l1.var1[2]"),
    (104, "0.2594", "l1.LN1[2,0]"), (104, "0.0529", "l1.LN1[2,1]"), (104, "-1.5491", "l1.LN1[2,2]"),
    (104, "1.2368", "l1.LN1[2,3]"),
    (112, "31.8%", "l1.A[2,0]"), (112, "35.7%", "l1.A[2,1]"), (112, "32.5%", "l1.A[2,2]"),
    (117, "0.3465", "l1.H2[2,0]"), (117, "-0.0135", "l1.H2[2,1]"), (117, "-0.3057", "l1.H2[2,2]"),
    (117, "0.7437", "l1.H2[2,3]"),
    (125, "0.1928", "mu_f[2]"), (125, "0.1545", "var_f[2]"),
    (127, "0.3911", "h_final[0]"), (127, "-0.3721", "h_final[1]"), (127, "-1.3947", "h_final[2]"), (127, "1.3014", "h_final[3]"),
    (135, "0.5728", "logits[saya]"), (135, "0.2658", "p[saya]"),
    (136, "-0.8945", "logits[suka]"), (136, "0.0613", "p[suka]"),
    (137, "0.9893", "logits[makan]"), (137, "0.4031", "p[makan]"),
    (138, "0.2327", "logits[nasi]"), (138, "0.1892", "p[nasi]"),
    (139, "-0.6196", "logits[ikan]"), (139, "0.0807", "p[ikan]"),
    (142, "6.6717", "sum_exp"),
    (146, "0.1892", "p[nasi]"), (146, "1.6650", "loss"),
    (148, "40.3%", "p[makan]"), (149, "0.189%", "p[nasi]"),
    (157, "-0.8108", "grad_logits[nasi]"),
    (162, "-0.8108", "grad_logits[nasi]"), (162, "0.3911", "h_final[0]"), (162, "-0.3171", "grad_E[nasi,0]"),
    (184, "1.6651875820", "loss"),
    (189, "-0.317086", "grad_E[nasi,0]"), (189, "1.6651558735", "loss_at(E[nasi,0], 0.0001)"),
    (189, "1.6652192907", "loss_at(E[nasi,0], -0.0001)"), (189, "-0.317086", "gradcheck(E[nasi,0], 0.0001)"),
    (190, "-0.138263", "grad_E[saya,1]"), (190, "1.6651737556", "loss_at(E[saya,1], 0.0001)"),
    (190, "1.6652014082", "loss_at(E[saya,1], -0.0001)"), (190, "-0.138263", "gradcheck(E[saya,1], 0.0001)"),
    (191, "0.004521", "grad_l0.W_Q[1,0]"), (191, "1.6651897203", "loss_at(l0.W_Q[1,0], 0.0001)"),
    (191, "1.6651854437", "loss_at(l0.W_Q[1,0], -0.0001)"), (191, "0.021383", "gradcheck(l0.W_Q[1,0], 0.0001)"),
    (192, "0.080584", "grad_l1.W_1[0,3]"), (192, "1.6651956405", "loss_at(l1.W_1[0,3], 0.0001)"),
    (192, "1.6651795236", "loss_at(l1.W_1[0,3], -0.0001)"), (192, "0.080585", "gradcheck(l1.W_1[0,3], 0.0001)"),
    (199, "0.2", "lr"),
    (205, "0.5", "E[nasi,0]"), (205, "0.2", "lr"), (205, "-0.317086", "grad_E[nasi,0]"),
    (205, "0.5634", "sgd[1].E[nasi,0]"),
    (206, "-0.2", "E[saya,1]"), (206, "0.2", "lr"), (206, "-0.138263", "grad_E[saya,1]"),
    (206, "-0.2277", "sgd[1].E[saya,1]"),
    (208, "0.1", "l0.W_Q[1,0]"), (208, "0.0957", "sgd[1].l0.W_Q[1,0]"),
    (209, "0.0", "l1.W_1[0,3]"), (209, "-0.0161", "sgd[1].l1.W_1[0,3]"),
    (212, "0.7303", "sgd[1].loss"),
    (213, "48.2%", "sgd[1].p[nasi]"),
]


def rounded(v, printed: str) -> str:
    pct = printed.endswith("%")
    body = printed.rstrip("%")
    dec = len(body.split(".")[1]) if "." in body else 0
    return rnd(v * (100 if pct else 1), dec) + ("%" if pct else "")


def check_document(planted: set[tuple[int, str]]):
    """Every decimal figure of DOC.txt is listed above, and every one not planted is the correct rounding."""
    lines = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    found = [(i + 1, m) for i, line in enumerate(lines) for m in re.findall(r"-?\d+\.\d+%?", line)]
    assert found == [(ln, pr) for ln, pr, _ in FIGURES], "FIGURES does not list DOC.txt's figures in order"
    n_ok = 0
    for ln, pr, ref in FIGURES:
        want = rounded(lookup(ref), pr)
        if (ln, pr) in planted:
            assert want != pr, (ln, pr, ref)
        else:
            assert want == pr, (ln, pr, ref, want)
            n_ok += 1
    print(f"DOC.txt: {len(FIGURES)} figures, {n_ok} correct roundings, {len(planted)} planted")


def main():
    n_planted = n_correct = 0
    lines = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    planted = set()
    for section, cells in parse_key():
        if section == "planted":
            printed, line, where, exact, correct, kind, qty = cells
            refs = quantity(qty)
            v = lookup(refs[0])
            for r in refs[1:]:
                assert abs(lookup(r) - v) < mp.mpf("1e-40"), (r, refs[0])
            corr = correct.strip("`")
            dec = len(corr.split(".")[1].rstrip("%")) if "." in corr else 0
            scale = 100 if corr.endswith("%") else 1
            ex_digits = exact.rstrip("…").strip()
            exact_str = mp.nstr(v * scale, 40, strip_zeros=False, min_fixed=-60, max_fixed=60)
            assert exact_str.startswith(ex_digits) or mp.nstr(v * scale, 40).startswith(ex_digits), \
                (refs[0], ex_digits, exact_str)
            want = rnd(v * scale, dec) + ("%" if corr.endswith("%") else "")
            assert want == corr, (refs[0], want, corr)
            pr = printed.strip("`")
            assert pr != corr, (refs[0], pr)
            assert re.search(r"(?<![\d.])" + re.escape(pr) + r"(?![\d])", lines[int(line) - 1]), (line, pr)
            assert (int(line), pr, refs[0]) in FIGURES, (line, pr, refs[0])
            planted.add((int(line), pr))
            print(f"PLANTED {refs[0]:32s} = {mp.nstr(v * scale, 20)}  correct {corr}  printed {pr}  (line {line})")
            n_planted += 1
        else:
            printed, line, where, qty = cells
            refs = quantity(qty)
            v = lookup(refs[0])
            for r in refs[1:]:
                assert abs(lookup(r) - v) < mp.mpf("1e-40"), (r, refs[0])
            pr = printed.strip("`")
            assert re.search(r"(?<![\d.])" + re.escape(pr) + r"(?![\d])", lines[int(line) - 1]), (line, pr)
            scale = 100 if pr.endswith("%") else 1
            dec = len(pr.rstrip("%").split(".")[1]) if "." in pr else 0
            want = rnd(v * scale, dec) + ("%" if pr.endswith("%") else "")
            assert want == pr, (refs[0], want, pr)
            print(f"CORRECT {refs[0]:32s} = {mp.nstr(v * scale, 20)}  printed {pr}  (line {line})")
            n_correct += 1
    assert n_planted == 8 and n_correct == 10, (n_planted, n_correct)
    check_document(planted)
    print(f"ok: {n_planted} planted, {n_correct} correct figures agree with the exact values")


if __name__ == "__main__":
    main()
