#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial hu-md-gpt2-2head-adamw (no symgpt import).

    python oracle.py

Model (read from SPEC.toml with tomllib, every decimal taken exactly from its text): GPT-2, one
pre-LN block, d = 4, two heads of size 2, d_ff = 8, learned positions, biases everywhere, GELU in
tanh form (0.044715 exact), tied output head, LayerNorm with biased variance and eps = 1e-5, loss
= -ln p[target] at the last position. Gradients by a small reverse-mode autodiff over mpmath
scalars (50 digits). AdamW as torch.optim.AdamW, first step: decoupled decay on every trainable
parameter (E, W_pe, W_Q/K/V, b_Q/K/V, W_O, b_O, W_1, b_1, W_2, b_2; LayerNorm gamma/beta frozen).

It prints every KEY.md row's quantity with its exact value and checks the key's "exact value"
and "correct rounding" columns; it also checks every model figure of DOC.md (FIGS below): the
printed text is on its line, and it is the correct rounding (half away from zero) of its
quantity unless it is one of the planted errors. Exits 1 on any disagreement.
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


# ---------------------------------------------------------------- scalar reverse-mode autodiff

class Var:
    __slots__ = ("val", "parents", "grad")

    def __init__(self, val, parents=()):
        self.val = mp.mpf(val)
        self.parents = parents
        self.grad = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val + o.val, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val - o.val, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __neg__(self):
        return Var(-self.val, ((self, -1),))

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val * o.val, ((self, o.val), (o, self.val)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val / o.val, ((self, 1 / o.val), (o, -self.val / o.val ** 2)))


def vexp(a):
    e = mp.exp(a.val)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.val), ((a, 1 / a.val),))


def vsqrt(a):
    s = mp.sqrt(a.val)
    return Var(s, ((a, 1 / (2 * s)),))


def vtanh(a):
    t = mp.tanh(a.val)
    return Var(t, ((a, 1 - t * t),))


def vsum(xs):
    out = Var(0)
    for x in xs:
        out = out + x
    return out


def backward(out):
    order, seen, stack = [], set(), [(out, False)]
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
    out.grad = mp.mpf(1)
    for n in reversed(order):
        for p, w in n.parents:
            p.grad += n.grad * w


# ---------------------------------------------------------------- the model

SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
D, NH, DH, T = 4, 2, 2, len(IDS)
EPS = mp.mpf("1e-5")
TRAIN = ["E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"]


def exact(a):
    return [[mp.mpf(str(x)) for x in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(x)) for x in a]


WEIGHTS = {k: exact(v) for k, v in SPEC["weights"].items()}
WEIGHTS.update({k: exact(v) for k, v in SPEC["layer"][0].items()})
GELU_C = mp.sqrt(2 / mp.pi)


def layernorm(h, g, b):
    mu = vsum(h) / D
    var = vsum((x - mu) * (x - mu) for x in h) / D
    s = vsqrt(var + EPS)
    return [g[j] * ((h[j] - mu) / s) + b[j] for j in range(D)], mu, var


def linear(x, M, b):
    return [vsum(x[i] * M[i][j] for i in range(len(x))) + b[j] for j in range(len(M[0]))]


def gelu(z):
    return Var(mp.mpf("0.5")) * z * (1 + vtanh(GELU_C * (z + mp.mpf("0.044715") * z * z * z)))


def forward(W):
    P = {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v]) for k, v in W.items()}
    q = {}
    H0 = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    LN1, q["mu1"], q["var1"] = [], [], []
    for t in range(T):
        o, mu, var = layernorm(H0[t], P["gamma1"], P["beta1"])
        LN1.append(o); q["mu1"].append(mu); q["var1"].append(var)
    Q = [linear(LN1[t], P["W_Q"], P["b_Q"]) for t in range(T)]
    K = [linear(LN1[t], P["W_K"], P["b_K"]) for t in range(T)]
    V = [linear(LN1[t], P["W_V"], P["b_V"]) for t in range(T)]
    S = [[[None] * T for _ in range(T)] for _ in range(NH)]
    A = [[[None] * T for _ in range(T)] for _ in range(NH)]
    AH = [[None] * D for _ in range(T)]
    for h in range(NH):
        for t in range(T):
            for s in range(t + 1):
                S[h][t][s] = vsum(Q[t][DH * h + i] * K[s][DH * h + i] for i in range(DH)) / Var(mp.sqrt(DH))
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(ex)
            for s in range(t + 1):
                A[h][t][s] = ex[s] / den
            for i in range(DH):
                AH[t][DH * h + i] = vsum(A[h][t][s] * V[s][DH * h + i] for s in range(t + 1))
    Attn = [linear(AH[t], P["W_O"], P["b_O"]) for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    LN2, q["mu2"], q["var2"] = [], [], []
    for t in range(T):
        o, mu, var = layernorm(H1[t], P["gamma2"], P["beta2"])
        LN2.append(o); q["mu2"].append(mu); q["var2"].append(var)
    Z = [linear(LN2[t], P["W_1"], P["b_1"]) for t in range(T)]
    R = [[gelu(z) for z in Z[t]] for t in range(T)]
    F = [linear(R[t], P["W_2"], P["b_2"]) for t in range(T)]
    H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    LNf, q["mu_f"], q["var_f"] = [], [], []
    for t in range(T):
        o, mu, var = layernorm(H2[t], P["gamma_f"], P["beta_f"])
        LNf.append(o); q["mu_f"].append(mu); q["var_f"].append(var)
    hf = LNf[T - 1]
    logits = [vsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TGT])
    backward(loss)
    q.update(H0=H0, LN1=LN1, Q=Q, K=K, V=V, S=S, A=A, Attn_heads=AH, Attn=Attn, H1=H1, LN2=LN2, Z=Z, R=R,
             F=F, H2=H2, LN_f=LNf, h_final=hf, logits=logits, sum_exp=se, p=p, loss=loss)

    def val(o):
        if o is None:
            return None
        return o.val if isinstance(o, Var) else [val(x) for x in o]

    out = {k: val(v) for k, v in q.items()}
    out["grad_logits"] = [z.grad for z in logits]
    for k, v in P.items():
        out["grad_" + k] = [[x.grad for x in r] for r in v] if isinstance(v[0], list) else [x.grad for x in v]
    out.update({k: v for k, v in W.items()})
    return out


def adamw_step(W, s, lr, b1, b2, eps, wd):
    new, st = {}, {}
    for k, P in W.items():
        if k not in TRAIN:
            new[k] = P
            continue
        G = s["grad_" + k]

        def one(th, g, key):
            m, v = (1 - b1) * g, (1 - b2) * g * g
            mhat, vhat = m / (1 - b1), v / (1 - b2)
            upd = lr * mhat / (mp.sqrt(vhat) + eps)
            dec = lr * wd * th
            st[key] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec)
            return th - dec - upd

        if isinstance(P[0], list):
            new[k] = [[one(P[i][j], G[i][j], (k, i, j)) for j in range(len(P[0]))] for i in range(len(P))]
        else:
            new[k] = [one(P[i], G[i], (k, i)) for i in range(len(P))]
    return new, st


S0 = forward(WEIGHTS)
AD = [mp.mpf(x) for x in ("0.01", "0.9", "0.999", "1e-8", "0.1")]
W1, ADAM = adamw_step(WEIGHTS, S0, *AD)
S1 = forward(W1)


# ---------------------------------------------------------------- names (symgpt's spelling)

def index(tok):
    tok = tok.strip()
    return VOCAB.index(tok) if tok in VOCAB else int(tok)


def value(ref: str):
    ref = ref.replace(" ", "")
    m = re.fullmatch(r"sqrt\((\w+)\[(\d+)\]\+ln_eps\)", ref)
    if m:
        return mp.sqrt(value(f"{m[1]}[{m[2]}]") + EPS)
    m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[(\w+),([^\]]+)\]", ref)
    if m:
        key = (m[2],) + tuple(index(i) for i in m[3].split(","))
        return ADAM[key][m[1]]
    state = S0
    if ref.startswith("adamw[1]."):
        state, ref = S1, ref[len("adamw[1]."):]
    m = re.fullmatch(r"(\w+)(?:\[([^\]]+)\])?", ref)
    v = state[m[1]]
    for i in (m[2].split(",") if m[2] else []):
        v = v[index(i)]
    return v


def rnd(v, places: int) -> str:
    if abs(v) < mp.mpf("1e-40"):             # an exact zero (b_K's gradient, mu1[2]) up to mpmath's noise
        v = mp.mpf(0)
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):.{places}f}"
    return s[1:] if s.startswith("-") and set(s[1:]) <= set("0.") else s


def norm(text: str) -> str:
    """A printed figure as a plain decimal string: Hungarian comma, LaTeX {,}, Unicode minus."""
    return text.replace("{,}", ".").replace(",", ".").replace("\u2212", "-").rstrip("%")


def correct(printed: str, v, scale=1) -> str:
    """The correct rounding of v in the printed figure's own format (places, comma, minus, %)."""
    p = norm(printed)
    places = len(p.split(".")[1]) if "." in p else 0
    if printed.endswith("%"):
        v = v * 100
    r = rnd(v / scale, places)
    if "{,}" in printed:
        r = r.replace(".", "{,}")
    elif "," in printed or places == 0:
        r = r.replace(".", ",")
    if "\u2212" in printed:
        r = r.replace("-", "\u2212")
    return r + ("%" if printed.endswith("%") else "")


# ---------------------------------------------------------------- every model figure of DOC.md
# (line, printed, quantity[, scale]); PLANTED are the key's planted errors (line, printed).

FIGS = [
    (43, "0,3", "E[tejet,0]"), (43, "-0,1", "E[tejet,1]"), (43, "0,2", "E[tejet,2]"), (43, "-0,4", "E[tejet,3]"),
    (44, "-0,1", "W_pe[2,0]"), (44, "0,05", "W_pe[2,1]"), (44, "0", "W_pe[2,2]"), (44, "0,05", "W_pe[2,3]"),
    (46, "0,2", "H0[2,0]"), (46, "-0,05", "H0[2,1]"), (46, "0,2", "H0[2,2]"), (46, "-0,35", "H0[2,3]"),
    (52, "0,9", "gamma1[1]"), (52, "1,1", "gamma1[2]"), (52, "0,1", "beta1[1]"), (52, "-0,1", "beta1[3]"),
    (56, "0,0750", "mu1[0]"), (56, "0,028125", "var1[0]"), (56, "0,1677", "sqrt(var1[0] + ln_eps)"),
    (57, "0,1250", "mu1[1]"), (57, "0,055625", "var1[1]"), (57, "0,2395", "sqrt(var1[1] + ln_eps)"),
    (58, "0", "mu1[2]"), (58, "0,051250", "var1[2]"), (58, "0,2264", "sqrt(var1[2] + ln_eps)"),
    (61, "0,2", "H0[2,0]"), (61, "0,2264", "sqrt(var1[2] + ln_eps)"), (61, "0,8834", "LN1[2,0]"),
    (63, "0,8834", "LN1[2,0]"), (63, "-0,0988", "LN1[2,1]"), (63, "0,9717", "LN1[2,2]"), (63, "-1,6459", "LN1[2,3]"),
    (74, "-0,4627", "Q[2,0]"), (74, "-0,5226", "Q[2,1]"), (74, "-0,3461", "Q[2,2]"), (74, "0,6897", "Q[2,3]"),
    (77, "-0,3141", "K[0,2]"), (77, "0,6404", "K[0,3]"),
    (79, "-0,3461", "Q[2,2]"), (79, "-0,3141", "K[0,2]"), (79, "0,6897", "Q[2,3]"), (79, "0,6404", "K[0,3]"),
    (79, "0,3892", "S[1,2,0]"),
    (85, "0,0468", "S[0,2,0]"), (85, "\u22120,1548", "S[0,2,1]"), (85, "0,0401", "S[0,2,2]"),
    (86, "0,3558", "A[0,2,0]"), (86, "0,2908", "A[0,2,1]"), (86, "0,3534", "A[0,2,2]"),
    (87, "0,3892", "S[1,2,0]"), (87, "\u22120,1342", "S[1,2,1]"), (87, "0,0111", "S[1,2,2]"),
    (88, "0,4390", "A[1,2,0]"), (88, "0,2601", "A[1,2,1]"), (88, "0,3008", "A[1,2,2]"),
    (90, "35,6%", "A[0,2,0]"), (90, "29,1%", "A[0,2,1]"), (90, "35,3%", "A[0,2,2]"),
    (91, "0,439%", "A[1,2,0]"), (91, "26,0%", "A[1,2,1]"),
    (94, "0,2621", "Attn_heads[2,0]"), (94, "-0,1294", "Attn_heads[2,1]"), (94, "0,2465", "Attn_heads[2,2]"),
    (97, "0,4390", "A[1,2,0]"), (97, "0,0547", "V[0,3]"), (97, "0,2601", "A[1,2,1]"), (97, "-0,9715", "V[1,3]"),
    (97, "0,3008", "A[1,2,2]"), (97, "-0,0607", "V[2,3]"), (97, "-0,2469", "Attn_heads[2,3]"),
    (101, "-0,0739", "Attn[2,0]"), (101, "-0,0533", "Attn[2,1]"), (101, "0,0451", "Attn[2,2]"), (101, "0,1483", "Attn[2,3]"),
    (103, "0,1261", "H1[2,0]"), (103, "-0,1033", "H1[2,1]"), (103, "0,2451", "H1[2,2]"), (103, "-0,1817", "H1[2,3]"),
    (107, "1", "gamma2[0]"), (107, "0", "beta2[0]"), (107, "0,0215", "mu2[2]"), (107, "0,0294", "var2[2]"),
    (109, "0,6094", "LN2[2,0]"), (109, "-0,7277", "LN2[2,1]"), (109, "1,3023", "LN2[2,2]"), (109, "-1,1840", "LN2[2,3]"),
] + [
    (116 + k, g, f"Z[2,{k}]") for k, g in enumerate(
        ["\u22120,8152", "\u22120,0372", "0,2218", "\u22121,0607", "\u22120,1143", "0,8138", "0,1877", "\u22120,1319"])
] + [
    (116 + k, r, f"R[2,{k}]") for k, r in enumerate(
        ["\u22120,1692", "\u22120,0180", "0,1304", "\u22120,1534", "\u22120,0520", "0,6446", "0,1078", "\u22120,0590"])
] + [
    (128, "-0{,}1980", "F[2,0]"), (128, "0{,}1014", "F[2,1]"), (128, "0{,}1288", "F[2,2]"), (128, "0{,}2118", "F[2,3]"),
    (128, "-0{,}0719", "H2[2,0]"), (128, "-0{,}0020", "H2[2,1]"), (128, "0{,}3739", "H2[2,2]"), (128, "0{,}0301", "H2[2,3]"),
    (132, "0,0826", "mu_f[2]"), (132, "0,0297", "var_f[2]"),
    (134, "-0,8965", "h_final[0]"), (134, "-0,4907", "h_final[1]"), (134, "1,6916", "h_final[2]"), (134, "-0,3043", "h_final[3]"),
    (137, "4,9356", "sum_exp"),
    (141, "0,5160", "logits[a]"), (141, "0,3394", "p[a]"),
    (142, "\u22120,9760", "logits[macska]"), (142, "0,0763", "p[macska]"),
    (143, "0,0795", "logits[kutya]"), (143, "0,2194", "p[kutya]"),
    (144, "0,2402", "logits[tejet]"), (144, "0,2576", "p[tejet]"),
    (145, "\u22120,6360", "logits[iszik]"), (145, "0,1073", "p[iszik]"),
    (149, "0,107256", "p[iszik]"), (149, "2,2325", "loss"),
    (155, "0,3394", "grad_logits[a]"), (155, "0,0763", "grad_logits[macska]"), (155, "0,2194", "grad_logits[kutya]"),
    (155, "0,2576", "grad_logits[tejet]"), (155, "-0,8927", "grad_logits[iszik]"),
    (160, "-0,0689", "grad_W_Q[0,1]"), (161, "-0,0874", "grad_W_K[2,1]"),
    (162, "-0,0764", "grad_W_V[2,0]"), (163, "-0,1775", "grad_W_V[3,3]"),
    (170, "0,3803", "grad_E[tejet,0]"), (170, "\u22120,9793", "grad_E[tejet,1]"), (170, "1,1828", "grad_E[tejet,2]"),
    (170, "\u22120,5838", "grad_E[tejet,3]"),
    (171, "\u22120,0782", "grad_E[macska,0]"), (171, "\u22120,1794", "grad_E[macska,1]"), (171, "0,1053", "grad_E[macska,2]"),
    (171, "\u22120,9793", "grad_E[macska,3]"),
    (174, "-0,8927", "grad_logits[iszik]"), (174, "1,6916", "h_final[2]"), (174, "-1,5101", "grad_E[iszik,2]"),
    (189, "-0,1", "E[iszik,2]"), (189, "-1,510148", "grad_E[iszik,2]"),
    (191, "-0,151015", "adamw[1].m[E,iszik,2]"),
    (192, "2,2805", "adamw[1].v[E,iszik,2]", mp.mpf("1e-3")),
    (193, "-1,510148", "adamw[1].mhat[E,iszik,2]"), (193, "2,280548", "adamw[1].vhat[E,iszik,2]"),
    (194, "-0,010000", "adamw[1].update[E,iszik,2]"),
    (195, "-0,000100", "adamw[1].decay[E,iszik,2]"),
    (196, "-0,1", "E[iszik,2]"), (196, "0,000100", "-adamw[1].decay[E,iszik,2]"),
    (196, "0,010000", "-adamw[1].update[E,iszik,2]"), (196, "-0,089900", "adamw[1].E[iszik,2]"),
    (203, "\u22120,068891", "grad_W_Q[0,1]"), (203, "\u22120,031623", "adamw[1].update[W_Q,0,1]"),
    (203, "\u22120,189800", "adamw[1].W_Q[0,1]"),
    (204, "\u22120,852851", "grad_W_pe[2,1]"), (204, "\u22120,010000", "adamw[1].update[W_pe,2,1]"),
    (204, "0,059950", "adamw[1].W_pe[2,1]"),
    (207, "0,1", "b_K[0]"), (208, "0,099900", "adamw[1].b_K[0]"),
    (210, "0,1073", "p[iszik]"), (210, "0,1745", "adamw[1].p[iszik]"),
    (211, "2,2325", "loss"), (211, "1,7457", "adamw[1].loss"), (211, "0,4055", "adamw[1].p[kutya]"),
]

PLANTED = {(57, "0,2395"), (91, "0,439%"), (97, "-0,2469"), (101, "0,1483"), (121, "0,6446"),
           (162, "-0,0764"), (171, "\u22120,9793"), (203, "\u22120,031623")}


def fig_value(ref):
    return -value(ref[1:]) if ref.startswith("-") else value(ref)


def check_doc() -> int:
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = planted_seen = 0
    for row in FIGS:
        line, printed, ref = row[:3]
        scale = row[3] if len(row) > 3 else 1
        text = lines[line - 1]
        if not re.search(r"(?<![\d,])" + re.escape(printed) + r"(?![\d])", text):
            print(f"  line {line}: {printed!r} NOT ON THE LINE: {text}")
            bad += 1
            continue
        right = correct(printed, fig_value(ref), scale)
        if (line, printed) in PLANTED:
            planted_seen += 1
            if right == printed:
                print(f"  line {line}: planted {printed} is the correct rounding of {ref}!")
                bad += 1
        elif right != printed:
            print(f"  line {line}: {printed} is not the correct rounding of {ref}: {right}")
            bad += 1
    if planted_seen != len(PLANTED):
        print(f"  only {planted_seen} of {len(PLANTED)} planted figures are in FIGS")
        bad += 1
    print(f"DOC.md: {len(FIGS)} model figures checked, {len(PLANTED)} planted, "
          + ("all others correctly rounded" if not bad else f"{bad} problems"))
    return bad


def check_key() -> int:
    bad = 0
    text = (HERE / "KEY.md").read_text(encoding="utf-8")
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in text.splitlines() if r.startswith("| `")]
    planted_rows = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = names[0]
        v = fig_value(ref)
        scale = next((row[3] for row in FIGS if row[0] == line and row[1] == printed and len(row) > 3), 1)
        on_line = printed in lines[line - 1]
        if len(cells) == 7:                                   # a planted error
            planted_rows += 1
            shown = cells[4].strip("`")
            ex = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            vv = v * 100 if shown.endswith("%") else v
            right = correct(shown, v, scale)
            ok = (on_line and shown == right and right != printed and (line, printed) in PLANTED
                  and abs(ex - vv) <= mp.mpf("1e-10") * abs(vv))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = correct(printed, v, scale)
            ok = on_line and right == printed and (line, printed) not in PLANTED
            note = "correct" if ok else "NOT THE CORRECT ROUNDING / NOT ON LINE"
        bad += not ok
        shown_v = v * 100 if printed.endswith("%") else v
        print(f"  {printed:>12}  line {line:>3}  {ref:<30} {mp.nstr(shown_v, 15):<22} rounds to {right:<12} {note}")
    if planted_rows != 8:
        print(f"  KEY has {planted_rows} planted rows, not 8")
        bad += 1
    return bad


def main() -> int:
    print(f"loss = {mp.nstr(S0['loss'], 30)}, after one AdamW step {mp.nstr(S1['loss'], 30)}")
    bad = check_doc()
    print("KEY.md:")
    bad += check_key()
    print("all key rows agree with the oracle" if not bad else f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
