#!/usr/bin/env python3
"""Independent oracle for hi-pdf-gpt2-2layer-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model (read from SPEC.toml beside this file, every number parsed from its decimal text):
GPT-2 wiring, 2 blocks, 1 head, d = 4, d_ff = 8, T = 3, tied head, ln_eps = 1e-5.
H0[t] = E[ids[t]] + W_pe[t]; per block (pre-norm): LN1 = LayerNorm(H; gamma1, beta1) with the biased
variance; Q, K, V = LN1·W + b; S = Q·K^T/sqrt(4); causal softmax A; Attn_heads = A·V;
Attn = Attn_heads·W_O + b_O; H1 = H + Attn; LN2 = LayerNorm(H1; gamma2, beta2); Z = LN2·W_1 + b_1;
R = GELU_tanh(Z) = Z/2·(1 + tanh(sqrt(2/pi)·(Z + 0.044715·Z^3))); F = R·W_2 + b_2; H2 = H1 + F.
Final LayerNorm (gamma_f, beta_f) on the last position -> h_final; logits = h_final·E^T; p = softmax;
loss = -ln p[target]. Gradients by a small reverse-mode autodiff over mpf scalars (written here);
one SGD step theta - 0.1·g on every parameter (LayerNorm gains and shifts too), then the forward
pass again.

It prints every KEY.md row's quantity with its exact value and checks the key's "exact value" and
"correct rounding" columns; it also checks every model figure the document prints (list FIGURES):
the unplanted ones are the correct rounding (half away from zero) at their printed precision, the
planted ones are not, and each planted one is what its stated mistake gives. When pdftotext is
installed, each figure is also looked for on its line of `pdftotext -layout DOC.pdf -`.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
class Var:
    __slots__ = ("v", "parents", "g")
    def __init__(self, v, parents=()):
        self.v = mp.mpf(v); self.parents = parents; self.g = mp.mpf(0)
    def __add__(s, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(s.v + o.v, ((s, 1), (o, 1)))
    __radd__ = __add__
    def __sub__(s, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(s.v - o.v, ((s, 1), (o, -1)))
    def __rsub__(s, o):
        return Var(o) - s
    def __mul__(s, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(s.v * o.v, ((s, o.v), (o, s.v)))
    __rmul__ = __mul__
    def __truediv__(s, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(s.v / o.v, ((s, 1 / o.v), (o, -s.v / o.v ** 2)))
    def __neg__(s):
        return Var(-s.v, ((s, -1),))

def vexp(x): e = mp.exp(x.v); return Var(e, ((x, e),))
def vlog(x): return Var(mp.log(x.v), ((x, 1 / x.v),))
def vsqrt(x): r = mp.sqrt(x.v); return Var(r, ((x, 1 / (2 * r)),))
def vtanh(x): t = mp.tanh(x.v); return Var(t, ((x, 1 - t * t),))
def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))

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
        seen.add(id(n)); stack.append((n, True))
        for p, _ in n.parents:
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, lg in n.parents:
            p.g += n.g * lg

C_GELU = mp.sqrt(2 / mp.pi)
K_GELU = mp.mpf("0.044715")
def gelu(z):
    return 0.5 * z * (1 + vtanh(C_GELU * (z + K_GELU * z * z * z)))

def layernorm(h, gamma, beta, eps):
    d = len(h)
    mu = vsum(h) / d
    var = vsum([(x - mu) * (x - mu) for x in h]) / d
    s = vsqrt(var + eps)
    return mu, var, s, [gamma[j] * ((h[j] - mu) / s) + beta[j] for j in range(d)]

def load_spec(path):
    return tomllib.loads(Path(path).read_text(encoding="utf-8"), parse_float=str)

def params_from(spec):
    W = spec["weights"]
    def mk(a):
        if isinstance(a[0], list):
            return [[Var(mp.mpf(x)) for x in r] for r in a]
        return [Var(mp.mpf(x)) for x in a]
    P = {"E": mk(W["E"]), "W_pe": mk(W["W_pe"]), "gamma_f": mk(W["gamma_f"]), "beta_f": mk(W["beta_f"])}
    for l, L in enumerate(spec["layer"]):
        for k, v in L.items():
            P[f"l{l}.{k}"] = mk(v)
    return P

def matvec(x, Wm):  # x (d_in) · W (d_in × d_out)
    return [vsum([x[i] * Wm[i][j] for i in range(len(x))]) for j in range(len(Wm[0]))]

def forward(P, spec):
    m = spec["model"]; eps = mp.mpf(m["ln_eps"]); vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]; tgt = vocab.index(spec["data"]["target"])
    T, d, nl = len(ids), m["d"], m["layers"]
    Q = {}
    H = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    Q["H0"] = H
    for l in range(nl):
        p = lambda n: P[f"l{l}.{n}"]
        mus, vars_, LN1 = [], [], []
        for t in range(T):
            mu, var, s, y = layernorm(H[t], p("gamma1"), p("beta1"), eps); mus.append(mu); vars_.append(var); LN1.append(y)
        q = [[a + b for a, b in zip(matvec(LN1[t], p("W_Q")), p("b_Q"))] for t in range(T)]
        k = [[a + b for a, b in zip(matvec(LN1[t], p("W_K")), p("b_K"))] for t in range(T)]
        v = [[a + b for a, b in zip(matvec(LN1[t], p("W_V")), p("b_V"))] for t in range(T)]
        S = [[vsum([q[t][j] * k[s][j] for j in range(d)]) / mp.sqrt(d) for s in range(t + 1)] for t in range(T)]
        A, den = [], []
        for t in range(T):
            ex = [vexp(x) for x in S[t]]; D = vsum(ex); den.append(D); A.append([e / D for e in ex])
        O = [[vsum([A[t][s] * v[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
        At = [[a + b for a, b in zip(matvec(O[t], p("W_O")), p("b_O"))] for t in range(T)]
        H1 = [[H[t][j] + At[t][j] for j in range(d)] for t in range(T)]
        mus2, vars2, LN2 = [], [], []
        for t in range(T):
            mu, var, s, y = layernorm(H1[t], p("gamma2"), p("beta2"), eps); mus2.append(mu); vars2.append(var); LN2.append(y)
        Z = [[a + b for a, b in zip(matvec(LN2[t], p("W_1")), p("b_1"))] for t in range(T)]
        R = [[gelu(z) for z in Z[t]] for t in range(T)]
        F = [[a + b for a, b in zip(matvec(R[t], p("W_2")), p("b_2"))] for t in range(T)]
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        for n, val in dict(mu1=mus, var1=vars_, LN1=LN1, Q=q, K=k, V=v, S=S, A_den=den, A=A, Attn_heads=O,
                           Attn=At, H1=H1, mu2=mus2, var2=vars2, LN2=LN2, Z=Z, R=R, F=F, H2=H2).items():
            Q[f"l{l}.{n}"] = val
        H = H2
    muf, varf, sf, hf = layernorm(H[T - 1], P["gamma_f"], P["beta_f"], eps)
    Q["mu_f2"], Q["var_f2"], Q["sf2"], Q["h_final"] = muf, varf, sf, hf
    logits = [vsum([hf[j] * P["E"][w][j] for j in range(d)]) for w in range(len(vocab))]
    ex = [vexp(z) for z in logits]; se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[tgt])
    Q.update(logits=logits, exp=ex, sum_exp=se, p=p, loss=loss)
    return Q

def train_step(spec, lr):
    P = params_from(spec)
    Q = forward(P, spec)
    backward(Q["loss"])
    P2 = {}
    for n, a in P.items():
        if isinstance(a[0], list):
            P2[n] = [[Var(x.v - lr * x.g) for x in r] for r in a]
        else:
            P2[n] = [Var(x.v - lr * x.g) for x in a]
    Q2 = forward(P2, spec)
    return P, Q, P2, Q2


# ---------------------------------------------------------------- values under symgpt's names

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0" + s[2:] if s.startswith("-0") and set(s[2:]) <= set("0.") else s   # no "-0.000"


def values() -> dict:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=str)
    vocab = spec["model"]["vocab"]
    lr = mp.mpf(spec["training"]["lr"])
    P, Q, P2, Q2 = train_step(spec, lr)
    v = {"lr": lr}
    for name in ("E", "l1.W_O"):
        for i, row in enumerate(P[name]):
            for j, x in enumerate(row):
                key = f"{name}[{vocab[i] if name == 'E' else i},{j}]"
                v[key], v["grad_" + key], v["sgd[1]." + key] = x.v, x.g, P2[name][i][j].v
    for j, x in enumerate(P["gamma_f"]):
        v[f"gamma_f[{j}]"], v[f"grad_gamma_f[{j}]"], v[f"sgd[1].gamma_f[{j}]"] = x.v, x.g, P2["gamma_f"][j].v
    for l in (0, 1):
        for t in range(3):
            v[f"l{l}.mu1[{t}]"], v[f"l{l}.var1[{t}]"] = Q[f"l{l}.mu1"][t].v, Q[f"l{l}.var1"][t].v
            for s in range(t + 1):
                v[f"l{l}.A[{t},{s}]"] = Q[f"l{l}.A"][t][s].v
        for k in range(8):
            v[f"l{l}.Z[2,{k}]"], v[f"l{l}.R[2,{k}]"] = Q[f"l{l}.Z"][2][k].v, Q[f"l{l}.R"][2][k].v
            v[f"l{l}.b_1[{k}]"] = P[f"l{l}.b_1"][k].v
    v["mu_f[2]"], v["var_f[2]"] = Q["mu_f2"].v, Q["var_f2"].v
    hf = [x.v for x in Q["h_final"]]
    for j in range(4):
        v[f"h_final[{j}]"] = hf[j]
        v[f"grad_X[2,{j}]"] = Q["H0"][2][j].g                       # = grad_H0[2,j]: ja's input row
        v[f"grad_E_head[ja,{j}]"] = Q["p"][vocab.index("ja")].v * hf[j]   # (p - y)·h_final, y[ja] = 0
    for w, tok in enumerate(vocab):
        v[f"logits[{tok}]"], v[f"p[{tok}]"] = Q["logits"][w].v, Q["p"][w].v
        v[f"grad_logits[{tok}]"] = Q["logits"][w].g
        v[f"sgd[1].p[{tok}]"] = Q2["p"][w].v
    v["sum_exp"], v["loss"], v["sgd[1].loss"] = Q["sum_exp"].v, Q["loss"].v, Q2["loss"].v
    return v


# ---------------------------------------------------------------- every model figure of DOC.pdf
# (line of `pdftotext -layout DOC.pdf -`, figure as printed there, quantity); PLANTED maps a planted
# figure to a check that its stated mistake produces it.

FIGURES = [
    (44, "0.1125", "l0.mu1[0]"), (44, "0.2179", "l0.var1[0]"),
    (45, "0.0275", "l0.mu1[1]"), (45, "0.3314", "l0.var1[1]"),
    (46, "0.2225", "l0.mu1[2]"), (46, "0.0261", "l0.var1[2]"),
    (62, "1.000", "l0.A[0,0]"), (63, "0.392", "l0.A[1,0]"), (63, "0.608", "l0.A[1,1]"),
    (64, "0.307", "l0.A[2,0]"), (64, "0.193", "l0.A[2,1]"), (64, "0.437", "l0.A[2,2]"),
    (80, "−0.114", "l0.R[2,0]"), (80, "0.498", "l0.R[2,1]"), (80, "−0.170", "l0.R[2,2]"),
    (80, "0.614", "l0.R[2,3]"), (80, "0.736", "l0.R[2,4]"), (80, "−0.131", "l0.R[2,5]"),
    (80, "−0.148", "l0.R[2,6]"), (80, "0.577", "l0.R[2,7]"),
    (91, "0.2974", "l1.mu1[0]"), (91, "0.9123", "l1.var1[0]"),
    (92, "0.1365", "l1.mu1[1]"), (92, "0.2357", "l1.var1[1]"),
    (93, "0.2618", "l1.mu1[2]"), (93, "0.2049", "l1.var1[2]"),
    (100, "1.000", "l1.A[0,0]"), (101, "0.500", "l1.A[1,0]"), (101, "0.500", "l1.A[1,1]"),
    (102, "0.430", "l1.A[2,0]"), (102, "0.191", "l1.A[2,1]"), (102, "0.378", "l1.A[2,2]"),
    (109, "0.952", "l1.Z[2,5]"),
    (112, "0.356", "l1.R[2,0]"), (112, "0.400", "l1.R[2,1]"), (112, "0.251", "l1.R[2,2]"),
    (112, "−0.108", "l1.R[2,3]"), (113, "−0.097", "l1.R[2,4]"), (113, "0.887", "l1.R[2,5]"),
    (113, "−0.090", "l1.R[2,6]"), (113, "−0.131", "l1.R[2,7]"),
    (125, "0.4386", "var_f[2]"),
    (130, "0.441", "h_final[0]"), (130, "−0.813", "h_final[1]"), (130, "1.357", "h_final[2]"),
    (130, "−1.013", "h_final[3]"),
    (139, "0.550", "logits[main]"), (139, "0.210", "p[main]"),
    (140, "−1.797", "logits[ghar]"), (140, "0.020", "p[ghar]"),
    (141, "0.705", "logits[ja]"), (141, "0.245", "p[ja]"),
    (142, "0.107", "logits[raha]"), (142, "0.135", "p[raha]"),
    (143, "1.169", "logits[hoon]"), (143, "0.390", "p[hoon]"),
    (146, "8.254", "sum_exp"),
    (149, "0.135", "p[raha]"), (149, "2.002", "loss"),
    (158, "0.210", "grad_logits[main]"), (158, "0.020", "grad_logits[ghar]"), (158, "0.245", "grad_logits[ja]"),
    (158, "−0.865", "grad_logits[raha]"), (158, "0.390", "grad_logits[hoon]"),
    (174, "0.211", "grad_gamma_f[0]"), (174, "0.235", "grad_gamma_f[1]"), (174, "0.669", "grad_gamma_f[2]"),
    (174, "0.805", "grad_gamma_f[3]"),
    (187, "−0.137", "grad_l1.W_O[0,0]"), (187, "−0.506", "grad_l1.W_O[0,1]"),
    (188, "−0.506", "grad_l1.W_O[1,0]"), (188, "0.239", "grad_l1.W_O[1,1]"),
    (197, "0.108", "grad_E_head[ja,0]"), (197, "2.498", "grad_X[2,0]"), (197, "2.606", "grad_E[ja,0]"),
    (200, "−0.199", "grad_E_head[ja,1]"), (200, "−1.810", "grad_X[2,1]"), (200, "−2.009", "grad_E[ja,1]"),
    (208, "0.1", "lr"),
    (210, "0.56", "l1.W_O[1,0]"), (210, "0.1", "lr"), (210, "−0.506", "grad_l1.W_O[1,0]"),
    (210, "0.6106", "sgd[1].l1.W_O[1,0]"),
    (211, "0.89", "gamma_f[3]"), (211, "0.1", "lr"), (211, "0.805", "grad_gamma_f[3]"),
    (211, "0.8095", "sgd[1].gamma_f[3]"),
    (212, "0.22", "E[ja,1]"), (212, "0.1", "lr"), (212, "−2.009", "grad_E[ja,1]"),
    (212, "0.4209", "sgd[1].E[ja,1]"),
    (215, "0.399", "sgd[1].p[raha]"), (215, "0.918", "sgd[1].loss"),
]


def planted_checks(v: dict) -> dict:
    """(line, printed) of each planted figure -> (kind, does the stated mistake give the printed figure?)."""
    return {
        (64, "0.307"): ("digits swapped", rnd(v["l0.A[2,0]"], 3) == "0.370"),
        (91, "0.9123"): ("last-digit slip", rnd(v["l1.var1[0]"], 4) == "0.9122"),
        (109, "0.952"): ("forgotten term: the bias b_1 of unit 6",
                         rnd(v["l1.Z[2,5]"] - v["l1.b_1[5]"], 3) == "0.952"),
        (125, "0.4386"): ("wrong formula: variance over d - 1", rnd(v["var_f[2]"] * 4 / 3, 4) == "0.4386"),
        (149, "2.002"): ("carried rounding: -ln 0.135", rnd(-mp.log(mp.mpf("0.135")), 3) == "2.002"),
        (174, "0.669"): ("sign flip", rnd(-v["grad_gamma_f[2]"], 3) == "0.669"),
        (187, "−0.506"): ("transposed entry: the value of [2,1]", rnd(v["grad_l1.W_O[1,0]"], 3) == "-0.506"),
        (197, "2.606"): ("carried rounding: 0.108 + 2.498",
                         rnd(mp.mpf("0.108") + mp.mpf("2.498"), 3) == "2.606"
                         and rnd(v["grad_E_head[ja,0]"], 3) == "0.108" and rnd(v["grad_X[2,0]"], 3) == "2.498"),
    }


def pdf_lines():
    pdf = HERE / "DOC.pdf"
    if not (pdf.is_file() and shutil.which("pdftotext")):
        return None
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, check=True).stdout
    return out.decode("utf-8").split("\n")


def main() -> int:
    v = values()
    bad = 0
    plain = lambda s: s.replace("−", "-")

    # 1. every figure of the document
    planted = planted_checks(v)
    lines = pdf_lines()
    for line, printed, ref in FIGURES:
        places = len(printed.split(".")[1])
        right = rnd(v[ref], places)
        if (line, printed) in planted:
            kind, ok = planted[(line, printed)]
            ok = ok and right != plain(printed)
        else:
            ok = right == plain(printed)
        if lines is not None and not re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", lines[line - 1]):
            print(f"  line {line}: {printed} not found in: {lines[line - 1]!r}")
            ok = False
        if not ok:
            bad += 1
            print(f"  FIGURE WRONG: line {line} {printed} {ref} = {mp.nstr(v[ref], 15)} (rounds to {right})")
    found = {(l, p) for l, p, _ in FIGURES}
    bad += sum(1 for k in planted if k not in found)
    print(f"{len(FIGURES)} figures of the document checked ({len(planted)} planted), "
          f"{'against DOC.pdf' if lines is not None else 'without pdftotext'}")

    # 2. the key
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    n_planted = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in v), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        val = v[ref]
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            places = len(shown.split(".")[1]) if "." in shown else 0
            right = rnd(val, places)
            exact = mp.mpf(plain(cells[3]).rstrip("…"))
            ok = (plain(shown) == right and abs(exact - val) <= mp.mpf("1e-10") * abs(val)
                  and right != plain(printed) and (line, printed) in planted)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            places = len(printed.split(".")[1]) if "." in printed else 0
            right = rnd(val, places)
            ok = right == plain(printed) and (line, printed) in found and (line, printed) not in planted
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>8}  line {line:>3}  {ref:<22} {mp.nstr(val, 30):<36} rounds to {right:<8} {note}")
    if n_planted != 8:
        print(f"KEY has {n_planted} planted rows, not 8")
        bad += 1
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} disagreements")
    assert not bad, f"{bad} disagreements"
    return 0


if __name__ == "__main__":
    sys.exit(main())
