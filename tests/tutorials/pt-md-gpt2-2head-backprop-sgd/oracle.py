#!/usr/bin/env python3
"""Independent oracle for pt-md-gpt2-2head-backprop-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value; asserts the key agrees

The model (GPT-2 wiring, one block, two heads, tied head), written out from scratch:
  H0 = E[ids] + W_pe;  LN1 = LN(H0) (γ = 1, β = 0, biased variance, ε = 1e-5)
  Q, K, V = LN1·W + b;  per head h (columns 2h, 2h+1): S[h,t,s] = q·k/√2, causal softmax A[h,t,s]
  Attn_heads = A·V (heads side by side);  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn
  LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = ½Z(1 + tanh(√(2/π)(Z + 0.044715 Z³)));  F = R·W_2 + b_2
  H2 = H1 + F;  LN_f = LN(H2);  h_final = LN_f[3];  logits = h_final·Eᵀ;  p = softmax;  loss = −ln p[livro]
Gradients by a small reverse-mode tape over scalars (every node keeps ∂loss/∂node).
One SGD step θ ← θ − 0.1·∂loss/∂θ on every parameter except the LayerNorm γ, β (kept fixed), then a
new forward pass. Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a scalar reverse-mode tape

class Var:
    __slots__ = ("v", "parents", "grad")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.parents = parents
        self.grad = mp.mpf(0)

    def __add__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v - b.v, ((a, 1), (b, -1)))

    def __rsub__(a, b):
        return Var(b) - a

    def __mul__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __neg__(a):
        return Var(-a.v, ((a, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    r = mp.sqrt(a.v)
    return Var(r, ((a, 1 / (2 * r)),))


def vtanh(a):
    t = mp.tanh(a.v)
    return Var(t, ((a, 1 - t * t),))


def vsum(xs):
    xs = list(xs)
    out = xs[0]
    for x in xs[1:]:
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
        for p, local in n.parents:
            p.grad += n.grad * local


# ---------------------------------------------------------------- the model

VOCAB = ["a", "menina", "lê", "um", "livro"]
IDS = [0, 1, 2, 3]
TARGET = 4
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
NH, DK = 2, 2

W0 = {
    "E": [[0.2, -0.1, 0.3, 0.0], [-0.3, 0.4, 0.1, 0.2], [0.1, 0.3, -0.4, 0.2], [0.4, -0.2, 0.0, 0.1],
          [-0.1, 0.2, 0.3, -0.3]],
    "W_pe": [[0.1, 0.0, -0.1, 0.05], [0.0, 0.1, 0.05, -0.1], [-0.05, 0.0, 0.1, 0.1], [0.1, -0.1, 0.0, 0.05]],
    "W_Q": [[0.5, -0.3, 0.2, 0.4], [0.1, 0.6, -0.4, 0.2], [-0.2, 0.3, 0.5, -0.1], [0.4, 0.0, 0.3, 0.6]],
    "W_K": [[0.3, 0.2, -0.5, 0.1], [-0.4, 0.5, 0.2, 0.3], [0.2, -0.1, 0.4, -0.3], [0.1, 0.4, 0.0, 0.5]],
    "W_V": [[0.2, -0.1, 0.4, 0.3], [0.5, 0.2, -0.2, 0.1], [-0.3, 0.4, 0.1, 0.2], [0.1, -0.2, 0.3, -0.4]],
    "W_O": [[0.4, 0.1, -0.2, 0.0], [-0.1, 0.3, 0.2, 0.1], [0.2, 0.0, 0.5, -0.3], [0.0, -0.2, 0.1, 0.4]],
    "b_Q": [0.1, 0.0, -0.1, 0.05],
    "b_K": [0.0, 0.1, 0.0, -0.05],
    "b_V": [0.05, 0.0, 0.1, 0.0],
    "b_O": [0.0, 0.05, 0.0, -0.05],
    "W_1": [[0.2, -0.1, 0.3, 0.0, -0.2, 0.1, 0.4, -0.3], [0.1, 0.3, -0.2, 0.2, 0.0, -0.4, 0.1, 0.2],
            [-0.3, 0.2, 0.1, -0.1, 0.3, 0.2, 0.0, 0.1], [0.0, -0.2, 0.2, 0.4, 0.1, 0.0, -0.1, 0.3]],
    "b_1": [0.0, 0.1, 0.0, -0.1, 0.05, 0.0, 0.0, 0.05],
    "W_2": [[0.1, -0.2, 0.0, 0.3], [0.2, 0.1, -0.1, 0.0], [-0.1, 0.0, 0.2, 0.1], [0.0, 0.3, 0.1, -0.2],
            [0.3, -0.1, 0.0, 0.1], [0.0, 0.2, -0.3, 0.0], [-0.2, 0.0, 0.1, 0.2], [0.1, 0.1, 0.0, -0.1]],
    "b_2": [0.0, 0.0, 0.05, 0.0],
}


def exact(a):
    """Weights read from their decimal text, exactly as written."""
    return [exact(r) for r in a] if isinstance(a, list) else mp.mpf(str(a))


def wrap(a):
    return [wrap(r) for r in a] if isinstance(a, list) else Var(a)


def linear(X, W, b):
    return [[vsum(x[i] * W[i][j] for i in range(len(W))) + b[j] for j in range(len(W[0]))] for x in X]


def layernorm(H):
    d = len(H[0])
    mu, var, out = [], [], []
    for h in H:
        m = vsum(h) / d
        v = vsum((x - m) * (x - m) for x in h) / d
        s = vsqrt(v + EPS)
        mu.append(m), var.append(v), out.append([(x - m) / s for x in h])
    return mu, var, out


def gelu_tanh(z):
    c = mp.sqrt(2 / mp.pi)
    return 0.5 * z * (1 + vtanh(c * (z + mp.mpf("0.044715") * z * z * z)))


def forward(W):
    P = {k: wrap(v) for k, v in W.items()}
    T, d = len(IDS), 4
    X = [P["E"][i] for i in IDS]
    H0 = [[X[t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0)
    Q, K, V = linear(LN1, P["W_Q"], P["b_Q"]), linear(LN1, P["W_K"], P["b_K"]), linear(LN1, P["W_V"], P["b_V"])
    rt = mp.sqrt(DK)
    S = [[[vsum(Q[t][h * DK + i] * K[s][h * DK + i] for i in range(DK)) / rt for s in range(T)] for t in range(T)]
         for h in range(NH)]
    A_den, A = [], []
    for h in range(NH):
        dens, rows = [], []
        for t in range(T):
            ex = [vexp(S[h][t][s]) for s in range(t + 1)]
            den = vsum(ex)
            dens.append(den)
            rows.append([ex[s] / den for s in range(t + 1)])
        A_den.append(dens), A.append(rows)
    Attn_heads = [[vsum(A[j // DK][t][s] * V[s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
    Attn = linear(Attn_heads, P["W_O"], P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1)
    Z = linear(LN2, P["W_1"], P["b_1"])
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = linear(R, P["W_2"], P["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2)
    h_final = LN_f[T - 1]
    logits = [vsum(h_final[j] * P["E"][v][j] for j in range(d)) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    p = [e / sum_exp for e in ex]
    loss = -vlog(p[TARGET])
    backward(loss)
    return dict(locals())


def flat(name, a, out, idx=()):
    if isinstance(a, list):
        for i, r in enumerate(a):
            flat(name, r, out, idx + (i,))
    else:
        key = f"{name}[{','.join(map(str, idx))}]" if idx else name
        out[key] = a.v
        out[f"grad_{key}"] = a.grad


NODES = ["E", "W_pe", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "W_1", "b_1", "W_2", "b_2",
         "H0", "mu1", "var1", "LN1", "Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1", "mu2", "var2",
         "LN2", "Z", "R", "F", "H2", "mu_f", "var_f", "LN_f", "h_final", "logits", "sum_exp", "p", "loss"]


def values(W):
    f = forward(W)
    out = {}
    for n in NODES:
        flat(n, f["P"][n] if n in W else f[n], out)
    return f, out


def all_values():
    W = {k: exact(v) for k, v in W0.items()}
    f0, v0 = values(W)
    # one SGD step on every trained parameter (the LayerNorm γ = 1, β = 0 are fixed, not parameters here)
    W1 = {}
    for k in W:
        P = f0["P"][k]
        W1[k] = [[x.v - LR * x.grad for x in r] for r in P] if isinstance(P[0], list) else [x.v - LR * x.grad for x in P]
    f1, v1 = values(W1)
    out = dict(v0)
    out.update({f"sgd[1].{k}": x for k, x in v1.items() if not k.startswith("grad_")})
    tok = {str(i): t for i, t in enumerate(VOCAB)}
    # token spellings of the vocabulary-indexed names
    for k in list(out):
        m = re.fullmatch(r"((?:sgd\[1\]\.)?(?:grad_)?(?:p|logits|E))\[(\d)(.*)\]", k)
        if m:
            out[f"{m.group(1)}[{tok[m.group(2)]}{m.group(3)}]"] = out[k]
    for k in range(len(VOCAB)):
        out[f"exp(logits[{k}])"] = mp.exp(out[f"logits[{k}]"])
    out["sqrt(var_f[3] + ln_eps)"] = mp.sqrt(out["var_f[3]"] + EPS)
    out["sum(A[1,3,:]*grad_A[1,3,:])"] = mp.fsum(out[f"A[1,3,{k}]"] * out[f"grad_A[1,3,{k}]"] for k in range(4))
    out["lr"] = LR
    return out


# ---------------------------------------------------------------- every model figure of DOC.md

# (line, figure as printed, quantity); the planted ones are the KEY's, every other must be the correct rounding
DOC_FIGURES = [
    (43, "1{,}432", "LN1[3,0]"), (43, "-1{,}345", "LN1[3,1]"), (43, "-0{,}304", "LN1[3,2]"), (43, "0{,}217", "LN1[3,3]"),
    (52, "1,131", "S[0,3,0]"), (52, "−0,996", "S[0,3,1]"), (52, "−1,307", "S[0,3,2]"), (52, "0,703", "S[0,3,3]"),
    (53, "−0,565", "S[1,3,0]"), (53, "0,530", "S[1,3,1]"), (53, "0,228", "S[1,3,2]"), (53, "−0,539", "S[1,3,3]"),
    (64, "1,000", "A[0,0,0]"),
    (65, "0,155", "A[0,1,0]"), (65, "0,845", "A[0,1,1]"),
    (66, "0,549", "A[0,2,0]"), (66, "0,210", "A[0,2,1]"), (66, "0,250", "A[0,2,2]"),
    (67, "0,538", "A[0,3,0]"), (67, "0,064", "A[0,3,1]"), (67, "0,047", "A[0,3,2]"), (67, "0,351", "A[0,3,3]"),
    (73, "1,000", "A[1,0,0]"),
    (74, "0,779", "A[1,1,0]"), (74, "0,221", "A[1,1,1]"),
    (75, "0,256", "A[1,2,0]"), (75, "0,127", "A[1,2,1]"), (75, "0,617", "A[1,2,2]"),
    (76, "0,138", "A[1,3,0]"), (76, "0,414", "A[1,3,1]"), (76, "0,306", "A[1,3,2]"), (76, "0,142", "A[1,3,3]"),
    (79, "41,4%", "A[1,3,1]"),
    (87, "0,192", "H2[3,0]"), (87, "0,023", "mu_f[3]"), (87, "0,205", "sqrt(var_f[3] + ln_eps)"), (87, "0,824", "h_final[0]"),
    (97, "0,304", "logits[0]"), (97, "0,258", "p[0]"), (98, "−0,725", "logits[1]"), (98, "0,092", "p[1]"),
    (99, "−0,202", "logits[2]"), (99, "0,156", "p[2]"), (100, "0,735", "logits[3]"), (100, "0,397", "p[3]"),
    (101, "−0,681", "logits[4]"), (101, "0,096", "p[4]"),
    (105, "1,356", "exp(logits[0])"), (105, "0,485", "exp(logits[1])"), (105, "0,817", "exp(logits[2])"),
    (105, "2,086", "exp(logits[3])"), (105, "0,506", "exp(logits[4])"), (105, "5,250", "sum_exp"),
    (108, "9,6%", "p[4]"), (110, "2,339", "loss"),
    (117, "-0{,}904", "grad_logits[4]"),
    (133, "0,289", "grad_h_final[0]"), (133, "0,277", "grad_H2[3,0]"), (133, "0,112", "grad_Attn[3,0]"),
    (134, "−0,202", "grad_h_final[1]"), (134, "0,510", "grad_H2[3,1]"), (134, "0,255", "grad_Attn[3,1]"),
    (135, "−0,247", "grad_h_final[2]"), (135, "−1,371", "grad_H2[3,2]"), (135, "−1,371", "grad_Attn[3,2]"),
    (136, "0,360", "grad_h_final[3]"), (136, "0,584", "grad_H2[3,3]"), (136, "0,530", "grad_Attn[3,3]"),
    (148, "−0,437", "grad_A[1,3,0]"), (148, "0,423", "grad_A[1,3,1]"), (148, "−0,025", "grad_A[1,3,2]"),
    (148, "0,561", "grad_A[1,3,3]"),
    (149, "−0,0642", "grad_S[1,3,0]"), (149, "0,1638", "grad_S[1,3,1]"), (149, "−0,0161", "grad_S[1,3,2]"),
    (149, "−0,0835", "grad_S[1,3,3]"),
    (152, "0{,}1384", "A[1,3,0]"), (152, "-0{,}4368", "grad_A[1,3,0]"), (152, "0{,}0273", "sum(A[1,3,:]*grad_A[1,3,:])"),
    (152, "-0{,}0642", "grad_S[1,3,0]"),
    (161, "1{,}432", "LN1[3,0]"), (161, "0{,}222", "grad_Q[3,2]"), (161, "0{,}3179", "grad_W_Q[0,2]"),
    (167, "0,3179", "grad_W_Q[0,2]"), (167, "0,0640", "grad_W_Q[0,3]"),
    (168, "−0,2987", "grad_W_Q[1,2]"), (168, "−0,0601", "grad_W_Q[1,3]"),
    (169, "−0,0674", "grad_W_Q[2,2]"), (169, "0,0482", "grad_W_Q[2,3]"),
    (170, "0,0482", "grad_W_Q[3,2]"), (170, "0,0097", "grad_W_Q[3,3]"),
    (174, "0,1", "lr"), (176, "0,2", "W_Q[0,2]"), (176, "0,1", "lr"), (176, "0,3179", "grad_W_Q[0,2]"),
    (176, "0,1682", "sgd[1].W_Q[0,2]"),
    (182, "0.1682", "sgd[1].W_Q[0,2]"), (182, "-0.3702", "sgd[1].W_Q[1,2]"), (182, "0.5067", "sgd[1].W_Q[2,2]"),
    (182, "0.2952", "sgd[1].W_Q[3,2]"),
    (187, "9,6%", "p[4]"), (187, "0,284%", "sgd[1].p[4]"), (187, "2,339", "loss"), (187, "1,258", "sgd[1].loss"),
]
PLANTED = {(66, "A[0,2,1]"), (87, "h_final[0]"), (105, "sum_exp"), (135, "grad_Attn[3,2]"), (148, "grad_A[1,3,3]"),
           (169, "grad_W_Q[2,3]"), (182, "sgd[1].W_Q[1,2]"), (187, "sgd[1].p[4]")}


# the document's own arithmetic on its printed (rounded) operands: (line, expression, printed result)
CHAINS = [
    (87, "(0.192 - 0.023) / 0.205", "0,824"),                      # planted: carried rounding
    (105, "1.356 + 0.485 + 0.817 + 2.086 + 0.506", "5,250"),      # planted: carried rounding
    (152, "0.1384 * (-0.4368 - 0.0273)", "-0{,}0642"),
    (161, "1.432 * 0.222", "0{,}3179"),
    (176, "0.2 - 0.1 * 0.3179", "0,1682"),
]


def check_chains() -> int:
    """Each worked line computed exactly (decimal operands as fractions), rounded at its printed places."""
    bad = 0
    for line, expr, printed in CHAINS:
        exact_expr = re.sub(r"\d+\.\d+", lambda m: f"Fraction('{m.group(0)}')", expr)
        v = eval(exact_expr, {"Fraction": Fraction, "__builtins__": {}})
        plain = norm_printed(printed)
        right = rnd(mp.mpf(v.numerator) / v.denominator, len(plain.split(".")[1]))
        ok = right == plain
        bad += not ok
        print(f"  line {line}: {expr} = {float(v):.6f} -> {right} ({'closes' if ok else 'DOES NOT CLOSE'})")
    return bad


def audit_doc(vals) -> int:
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = 0
    for line, printed, ref in DOC_FIGURES:
        assert printed in lines[line - 1], f"line {line}: {printed!r} not in {lines[line - 1]!r}"
        pct = printed.endswith("%")
        v = vals[ref] * (100 if pct else 1)
        plain = norm_printed(printed).rstrip("%")
        places = len(plain.split(".")[1]) if "." in plain else 0
        right = rnd(v, places)
        is_right = right == plain
        if (line, ref) in PLANTED:
            bad += is_right
            if is_right:
                print(f"  line {line}: planted {printed} ({ref}) is in fact correct")
        elif not is_right:
            bad += 1
            print(f"  line {line}: {printed} ({ref}) should be {right}")
    print(f"DOC.md: {len(DOC_FIGURES)} model figures checked, {len(PLANTED)} planted, {bad} problems")
    return bad


# ---------------------------------------------------------------- the key

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm_printed(s: str) -> str:
    """A figure as printed in the document (decimal comma, Unicode minus, {,}) as a plain decimal."""
    return s.replace("{,}", ".").replace(",", ".").replace("−", "-").replace("\u2212", "-")


def main() -> int:
    vals = all_values()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad, n_planted, n_correct = 0, 0, 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        assert ref is not None, f"no oracle value for {cells[-1]}"
        pct = printed.endswith("%")
        v = vals[ref] * (100 if pct else 1)
        if len(cells) == 7:                         # a planted error
            n_planted += 1
            shown = norm_printed(cells[4].strip("`"))
        else:
            n_correct += 1
            shown = norm_printed(printed)
        places = len(shown.rstrip("%").strip().split(".")[1]) if "." in shown else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact_col = mp.mpf(norm_printed(cells[3]).rstrip("…").rstrip("%").strip())
            ok = (shown.rstrip("%").strip() == right and abs(exact_col - v) <= mp.mpf("1e-10") * abs(v)
                  and right != norm_printed(printed).rstrip("%").strip())
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == shown.rstrip("%").strip()
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>12}  {ref:<24} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    print(f"{n_planted} planted, {n_correct} correct rows")
    assert n_planted == 8, n_planted
    assert n_correct == 10, n_correct
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print("all key rows agree with the oracle")
    lines = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        assert cells[0].strip("`") in lines[int(cells[1]) - 1], f"KEY row {cells[0]} not on DOC.md line {cells[1]}"
    print("every KEY row's figure is on its line of DOC.md")
    assert check_chains() == 0, "a worked line of DOC.md does not give its printed result"
    assert audit_doc(vals) == 0, "DOC.md has a figure that is neither correct nor planted"
    print("every other figure of DOC.md is the correct rounding")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
