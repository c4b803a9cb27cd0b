#!/usr/bin/env python3
"""Independent oracle for vi-html-nanogpt-2layer-sgd (plain mpmath, 50 digits; does not import symgpt).

Model: nanoGPT-like GPT-2, 2 pre-LN blocks, 1 head, d = 4, d_ff = 8, learned positions, biases on every
projection, W_O, exact-erf GELU, final LayerNorm, tied head (logits = LN_f[T-1]·Eᵀ), V = 5, T = 3,
input "tôi thích học", target "máy", LayerNorm eps 1e-5 (biased variance).
Training: loss = -ln p[máy]; gradients by a small reverse-mode autodiff over mpf scalars; one SGD step
theta - 0.05·g on every parameter (E, W_pe, all block weights and biases, every LayerNorm γ, β, γ_f, β_f).

    python oracle.py     # prints every KEY.md row's quantity with its exact value and checks the key;
                         # then checks that every other figure of DOC.html is its quantity's correct rounding
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
VOCAB = ["tôi", "thích", "học", "máy", "bay"]
IDS, TARGET, EPS, LR, TEMP = [0, 1, 2], 3, mp.mpf("1e-5"), mp.mpf("0.05"), mp.mpf("0.8")


# ---------------------------------------------------------------- a tiny reverse-mode autodiff on mpf
class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v, self.parents, self.g = mp.mpf(v), parents, mp.mpf(0)

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


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vgelu(x):   # x·Φ(x), exact erf (torch nn.GELU())
    phi = (1 + mp.erf(x.v / mp.sqrt(2))) / 2
    dens = mp.exp(-x.v ** 2 / 2) / mp.sqrt(2 * mp.pi)
    return Var(x.v * phi, ((x, phi + x.v * dens),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
def load_params():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    w = spec["weights"]
    conv = lambda a: [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))
    P = {"E": conv(w["E"]), "W_pe": conv(w["W_pe"]), "gamma_f": conv(w["gamma_f"]), "beta_f": conv(w["beta_f"])}
    for l, layer in enumerate(spec["layer"]):
        for k, v in layer.items():
            P[f"l{l}.{k}"] = conv(v)
    return P


def wrap(P):
    f = lambda a: [f(x) for x in a] if isinstance(a, list) else Var(a)
    return {k: f(v) for k, v in P.items()}


def mm(X, W, b=None):
    return [[vsum(X[t][i] * W[i][j] for i in range(len(W))) + (b[j] if b else 0) for j in range(len(W[0]))]
            for t in range(len(X))]


def layernorm(H, g, b):
    d = len(H[0])
    mus, vars_, out = [], [], []
    for row in H:
        mu = vsum(row) / d
        var = vsum((x - mu) * (x - mu) for x in row) / d
        s = vsqrt(var + EPS)
        mus.append(mu), vars_.append(var)
        out.append([g[j] * ((row[j] - mu) / s) + b[j] for j in range(d)])
    return mus, vars_, out


def forward(P):
    """Every node, as Var, in a dict keyed by symgpt-style names."""
    N = {}
    T, d = len(IDS), 4
    H = [[P["E"][IDS[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    N["H0"] = H
    for l in range(2):
        p = f"l{l}."
        mu1, var1, LN1 = layernorm(H, P[p + "gamma1"], P[p + "beta1"])
        Q, K, V = (mm(LN1, P[p + w], P[p + b]) for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")))
        S = [[vsum(Q[t][j] * K[s][j] for j in range(d)) / 2 for s in range(T)] for t in range(T)]   # /√4
        ex = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [vsum(r) for r in ex]
        A = [[ex[t][s] / den[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        heads = [[vsum(A[t][s] * V[s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
        Attn = mm(heads, P[p + "W_O"], P[p + "b_O"])
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H1, P[p + "gamma2"], P[p + "beta2"])
        Z = mm(LN2, P[p + "W_1"], P[p + "b_1"])
        R = [[vgelu(z) for z in r] for r in Z]
        F = mm(R, P[p + "W_2"], P[p + "b_2"])
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        N.update({p + "mu1": mu1, p + "var1": var1, p + "LN1": LN1, p + "Q": Q, p + "K": K, p + "V": V,
                  p + "S": S, p + "A_den": den, p + "A": A, p + "Attn_heads": heads, p + "Attn": Attn,
                  p + "H1": H1, p + "mu2": mu2, p + "var2": var2, p + "LN2": LN2, p + "Z": Z, p + "R": R,
                  p + "F": F, p + "H2": H2})
        H = H2
    mu_f, var_f, LNf = layernorm(H, P["gamma_f"], P["beta_f"])
    h = LNf[-1]
    logits = [vsum(h[j] * P["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    exps = [vexp(z) for z in logits]
    se = vsum(exps)
    p = [e / se for e in exps]
    loss = -vlog(p[TARGET])
    N.update({"mu_f": mu_f, "var_f": var_f, "LN_f": LNf, "h_final": h, "logits": logits, "sum_exp": se,
              "p": p, "loss": loss})
    return N


def val(x):
    return [val(y) for y in x] if isinstance(x, list) else x.v


def grad(x):
    return [grad(y) for y in x] if isinstance(x, list) else x.g


def compute():
    P0 = load_params()
    W = wrap(P0)
    N = forward(W)
    backward(N["loss"])
    vals = {k: val(v) for k, v in N.items()}
    grads = {k: grad(v) for k, v in W.items()}
    step = lambda a, g: [step(x, y) for x, y in zip(a, g)] if isinstance(a, list) else a - LR * g
    P1 = {k: step(P0[k], grads[k]) for k in P0}
    N1 = {k: val(v) for k, v in forward(wrap(P1)).items()}
    return P0, vals, grads, P1, N1


# ---------------------------------------------------------------- names → values
def values():
    P0, N, G, P1, N1 = compute()
    out = {}

    def put(prefix, name, arr):
        if isinstance(arr, list):
            if isinstance(arr[0], list):
                for i, r in enumerate(arr):
                    for j, x in enumerate(r):
                        out[f"{prefix}{name}[{i},{j}]"] = x
            else:
                for i, x in enumerate(arr):
                    out[f"{prefix}{name}[{i}]"] = x
        else:
            out[f"{prefix}{name}"] = arr

    for k, v in P0.items():
        put("", k, v)
    for k, v in N.items():
        put("", k, v)
    for k, v in G.items():
        put("grad_", k, v)
    for k, v in P1.items():
        put("sgd[1].", k, v)
    for k, v in N1.items():
        put("sgd[1].", k, v)
    for name in list(out):          # token-indexed aliases: p[máy], logits[học], E[máy,1], sgd[1].p[máy] ...
        m = re.fullmatch(r"(.*?)(p|logits|E|grad_E)\[(\d)(.*)\]", name)
        if m and not m.group(1).endswith("W_"):
            out[f"{m.group(1)}{m.group(2)}[{VOCAB[int(m.group(3))]}{m.group(4)}]"] = out[name]
    lg = N["logits"]
    for v in range(5):
        out[f"exp(logits[{v}])"] = out[f"exp(logits[{VOCAB[v]}])"] = mp.exp(lg[v])
        den = mp.fsum(mp.exp(z / TEMP) for z in lg)
        out[f"softmax_T(0.8, {VOCAB[v]})"] = mp.exp(lg[v] / TEMP) / den
        out[f"logits[{VOCAB[v]}]/0.8"] = lg[v] / TEMP
        out[f"grad_logits[{VOCAB[v]}]"] = N["p"][v] - (1 if v == TARGET else 0)
    for pre, key in (("l0.", "var1"), ("l0.", "var2"), ("l1.", "var1"), ("l1.", "var2"), ("", "var_f")):
        for t in range(3):
            out[f"sqrt({pre}{key}[{t}] + ln_eps)"] = mp.sqrt(N[pre + key][t] + EPS)
    out["lr"], out["temperature"] = LR, TEMP
    return out


# Every figure of DOC.html that is not planted: (line, as printed, quantity). Checked by main().
DOC_FIGURES = [
    (26, '0,05', 'lr'),
    (34, '0,0729', 'l0.var1[2]'),
    (34, '0,1375', 'l0.mu1[2]'),
    (34, '0,2701', 'sqrt(l0.var1[2] + ln_eps)'),
    (35, '0,809', 'l0.LN1[2,3]'),
    (35, '1,120', 'l0.LN1[2,0]'),
    (35, '−0,503', 'l0.LN1[2,1]'),
    (35, '−1,283', 'l0.LN1[2,2]'),
    (42, '1,000', 'l0.A[0,0]'),
    (43, '0,233', 'l0.A[1,1]'),
    (43, '0,767', 'l0.A[1,0]'),
    (44, '0,267', 'l0.A[2,2]'),
    (44, '0,381', 'l0.A[2,0]'),
    (49, '0,1463', 'l0.var2[2]'),
    (49, '0,254', 'l0.mu2[2]'),
    (53, '−0,060', 'l0.R[2,0]'),
    (53, '−0,135', 'l0.Z[2,0]'),
    (54, '−0,161', 'l0.R[2,1]'),
    (54, '−0,562', 'l0.Z[2,1]'),
    (55, '−0,168', 'l0.R[2,2]'),
    (55, '−0,665', 'l0.Z[2,2]'),
    (56, '−0,151', 'l0.R[2,3]'),
    (56, '−0,475', 'l0.Z[2,3]'),
    (57, '−0,163', 'l0.R[2,4]'),
    (57, '−0,579', 'l0.Z[2,4]'),
    (58, '0,141', 'l0.R[2,5]'),
    (58, '0,237', 'l0.Z[2,5]'),
    (59, '−0,170', 'l0.R[2,6]'),
    (59, '−0,786', 'l0.Z[2,6]'),
    (60, '0,216', 'l0.R[2,7]'),
    (60, '0,341', 'l0.Z[2,7]'),
    (65, '0,261', 'l1.mu1[2]'),
    (67, '0,164', 'l1.S[2,1]'),
    (67, '0,611', 'l1.S[2,0]'),
    (68, '0,197', 'l1.A[2,2]'),
    (68, '0,313', 'l1.A[2,1]'),
    (68, '0,489', 'l1.A[2,0]'),
    (69, '0,403', 'l1.F[2,2]'),
    (69, '0,533', 'l1.mu2[2]'),
    (69, '0,5454', 'l1.var2[2]'),
    (69, '0,557', 'l1.F[2,1]'),
    (69, '0,570', 'l1.F[2,3]'),
    (69, '−0,193', 'l1.F[2,0]'),
    (73, '0,4458', 'var_f[2]'),
    (73, '0,6677', 'sqrt(var_f[2] + ln_eps)'),
    (74, '0,6677', 'sqrt(var_f[2] + ln_eps)'),
    (74, '0,867', 'mu_f[2]'),
    (74, '0,923', 'l1.H2[2,0]'),
    (74, '1,07', 'gamma_f[0]'),
    (75, '1,464', 'LN_f[2,3]'),
    (75, '−0,195', 'LN_f[2,2]'),
    (75, '−1,417', 'LN_f[2,1]'),
    (80, '0,0932', 'p[0]'),
    (80, '−0,364', 'logits[0]'),
    (81, '0,084', 'logits[1]'),
    (81, '0,1458', 'p[1]'),
    (82, '0,3272', 'p[2]'),
    (82, '0,893', 'logits[2]'),
    (83, '0,149', 'logits[3]'),
    (83, '0,1556', 'p[3]'),
    (84, '0,2781', 'p[4]'),
    (84, '0,730', 'logits[4]'),
    (86, '0,695', 'exp(logits[0])'),
    (86, '1,088', 'exp(logits[1])'),
    (86, '1,161', 'exp(logits[3])'),
    (86, '2,075', 'exp(logits[4])'),
    (86, '2,441', 'exp(logits[2])'),
    (88, '1,8603', 'loss'),
    (90, '0,8', 'temperature'),
    (91, '0,8', 'temperature'),
    (93, '0,8', 'temperature'),
    (95, '0,075', 'softmax_T(0.8, tôi)'),
    (95, '0,131', 'softmax_T(0.8, thích)'),
    (95, '0,293', 'softmax_T(0.8, bay)'),
    (95, '0,359', 'softmax_T(0.8, học)'),
    (95, '0,8', 'temperature'),
    (99, '0,1556', 'p[máy]'),
    (99, '−0,8444', 'grad_logits[máy]'),
    (100, '0,05', 'lr'),
    (102, '0,05', 'lr'),
    (102, '0,052', 'sgd[1].E[máy,3]'),
    (102, '0,152', 'sgd[1].E[máy,2]'),
    (102, '−0,220', 'sgd[1].E[máy,1]'),
    (102, '−0,447', 'sgd[1].E[máy,0]'),
    (103, '0,05', 'lr'),
    (103, '0,509', 'grad_beta_f[0]'),
    (103, '−0,02', 'beta_f[0]'),
    (105, '1,0634', 'sgd[1].loss'),
    (106, '15,6 %', 'p[máy]'),
]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def plain(s: str) -> str:
    """A figure as the document prints it (decimal comma, Unicode minus) → plain ASCII decimal."""
    return s.replace("\u2212", "-").replace(",", ".").replace("\u00a0", "").replace(" ", "")


def main() -> int:
    vals = values()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    bad = 0
    for r in key.splitlines():
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        if printed not in doc[line - 1]:
            print(f"  {printed:>10}  NOT FOUND ON LINE {line}")
            bad += 1
            continue
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = vals[ref] * (100 if pct else 1)
        shown = plain(cells[4].strip("`")) if len(cells) == 7 else plain(printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if pct else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != plain(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == plain(printed) else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    # every other figure of the document: the correct rounding of its quantity, and no figure left unlisted
    planted = {(int(c[1]), c[0].strip("`")) for c in
               ([x.strip() for x in r.strip().strip("|").split("|")] for r in key.splitlines() if r.startswith("| `"))
               if len(c) == 7}
    listed = set()
    for line, printed, ref in DOC_FIGURES:
        assert printed in doc[line - 1], (line, printed)
        pct = printed.endswith("%")
        p = plain(printed)
        places = len(p.rstrip("%").split(".")[1])
        right = rnd(vals[ref] * (100 if pct else 1), places) + ("%" if pct else "")
        if right != p or (line, printed) in planted:
            print(f"  {printed:>10}  line {line:>3}  {ref:<28} DOCUMENT FIGURE IS NOT THE CORRECT ROUNDING ({right})")
            bad += 1
        listed.add((line, printed))
    import html as _html
    for n, text in enumerate(doc, 1):
        visible = _html.unescape(re.sub(r"<[^>]+>", " ", text)) if "<body>" not in text else ""
        for m in re.finditer(r"[\u2212-]?\d+,\d+(?: %)?", visible):
            fig = m.group(0)
            if (n, fig) not in listed and (n, fig) not in planted and (n, fig.removesuffix(" %")) not in listed:
                print(f"  {fig:>10}  line {n:>3}  UNLISTED FIGURE")
                bad += 1
    print(f"{len(DOC_FIGURES)} other document figures checked, {len(planted)} planted")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert not bad, f"{bad} key rows disagree"
    return 0


if __name__ == "__main__":
    sys.exit(main())
