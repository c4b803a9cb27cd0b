#!/usr/bin/env python3
"""Independent check of DOC.html / KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key,
                         # then every figure of DOC.html listed in FIGURES, checked against its quantity

Model (SPEC.toml): a Llama-style decoder, 2 layers, 1 head, d = 4, d_ff = 6, V = 5, T = 3, no biases,
untied output matrix W_out (d × V), RMSNorm  γ·h/√(mean(h²) + ε) with ε = 1e-5, before attention, before
the MLP and at the end; RoPE (θ = 10000, Hugging Face rotate_half: pairs (0, 2) at frequency 1 and
(1, 3) at frequency 0.01); scores q̃·k̃/√4, causal softmax; Attn = (A·V)·W_O; SwiGLU MLP
(SiLU(x·W_1) ⊙ x·W_3)·W_2; logits = RMSNorm_f(h)[last]·W_out; loss = −ln p[target] at the last position.
Gradients by a small reverse-mode autodiff on mpf scalars; SGD θ ← θ − 0.1·g on every matrix (E, W_out,
W_Q, W_K, W_V, W_O, W_1, W_2, W_3 of both layers); the RMSNorm gains stay fixed (not trained).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["küçük", "kedi", "süt", "içer", "uyur"]
IDS = [0, 1, 2]
TARGET = 3
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
ROPE_BASE = mp.mpf(10000)


# ---------------------------------------------------------------- weights (as in SPEC.toml)

def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def initial_weights():
    P = {}
    P["E"] = M([[-0.4, -0.6, -0.13, 0.4], [0.7, -0.3, -0.7, 0.1], [-0.1, 0.22, -0.6, -0.3],
                [0.5, -0.5, 0.4, -0.5], [-0.52, 0.3, -0.7, 0.2]])
    P["W_out"] = M([[0.1, 0.1, 0.1, -0.3, -0.1], [0.2, 0.17, -0.5, 0.1, -0.3],
                    [-0.02, -0.52, -0.5, -0.7, -0.6], [-0.5, 0.1, 0.2, -0.3, 0.5]])
    P["gamma_f"] = M([1.0, 0.9, 1.1, 1.0])
    P["l0.W_Q"] = M([[0.7, -0.5, 0.2, -0.1], [-0.49, 0.4, -0.5, -0.2], [-0.18, -0.58, 0.6, 0.16], [-0.06, -0.58, 0.1, 0.4]])
    P["l0.W_K"] = M([[0.1, 0.4, 0.3, 0.7], [-0.5, 0.18, 0.4, 0.56], [0.07, -0.5, 0.1, -0.1], [-0.1, 0.4, 0.1, -0.2]])
    P["l0.W_V"] = M([[0.7, 0.5, -0.2, -0.24], [-0.1, 0.1, -0.6, 0.23], [-0.7, -0.5, 0.3, 0.1], [0.1, -0.2, -0.7, 0.03]])
    P["l0.W_O"] = M([[0.05, -0.46, -0.4, 0.1], [0.4, -0.4, -0.1, -0.15], [-0.55, 0.2, 0.4, -0.6], [0.3, 0.4, 0.2, 0.1]])
    P["l0.W_1"] = M([[-0.18, 0.1, 0.4, 0.01, -0.32, -0.7], [-0.4, -0.49, 0.69, 0.3, 0.3, 0.5],
                     [-0.1, 0.69, -0.6, 0.6, -0.5, -0.3], [0.24, -0.2, 0.57, 0.6, 0.6, 0.6]])
    P["l0.W_3"] = M([[0.1, -0.25, -0.5, -0.6, 0.1, -0.5], [-0.5, 0.7, -0.1, -0.2, -0.3, 0.22],
                     [-0.64, -0.5, 0.3, 0.6, 0.29, -0.7], [-0.1, 0.27, 0.12, -0.5, 0.6, -0.6]])
    P["l0.W_2"] = M([[0.3, -0.5, -0.2, -0.17], [-0.3, 0.7, 0.1, 0.3], [-0.5, -0.2, -0.2, -0.1],
                     [0.1, 0.15, -0.05, -0.1], [0.3, 0.19, 0.51, -0.5], [0.4, -0.4, -0.7, -0.4]])
    P["l0.gamma1"] = M([1.0, 1.1, 0.9, 1.0])
    P["l0.gamma2"] = M([0.9, 1.0, 1.0, 1.2])
    P["l1.W_Q"] = M([[-0.53, 0.62, -0.03, 0.5], [-0.34, -0.2, 0.57, -0.4], [-0.1, 0.7, -0.1, 0.2], [0.17, -0.1, 0.42, 0.4]])
    P["l1.W_K"] = M([[-0.64, 0.2, -0.09, 0.5], [-0.62, 0.4, 0.23, 0.3], [-0.42, -0.3, 0.09, 0.7], [-0.2, 0.3, 0.14, -0.3]])
    P["l1.W_V"] = M([[0.1, -0.3, 0.4, -0.6], [0.4, -0.54, 0.1, 0.56], [-0.2, 0.4, -0.39, -0.6], [-0.08, 0.2, 0.59, 0.2]])
    P["l1.W_O"] = M([[-0.53, -0.6, -0.2, -0.5], [0.2, 0.03, -0.6, 0.6], [-0.4, 0.1, 0.5, 0.2], [0.3, 0.7, -0.2, 0.1]])
    P["l1.W_1"] = M([[0.05, 0.21, 0.6, 0.2, 0.22, -0.7], [-0.4, 0.4, -0.6, -0.3, -0.5, -0.5],
                     [0.3, 0.5, -0.12, -0.1, 0.3, 0.3], [0.1, 0.1, -0.07, 0.2, -0.3, -0.47]])
    P["l1.W_3"] = M([[-0.3, -0.5, 0.4, 0.4, 0.3, -0.2], [0.4, -0.5, -0.19, -0.49, -0.66, -0.7],
                     [-0.42, -0.6, 0.2, 0.52, -0.1, -0.16], [-0.44, 0.22, 0.6, 0.3, -0.3, -0.57]])
    P["l1.W_2"] = M([[-0.1, -0.45, 0.6, 0.2], [-0.5, -0.22, 0.56, 0.6], [-0.7, -0.2, 0.08, -0.16],
                     [-0.6, 0.1, -0.6, -0.52], [-0.3, -0.2, 0.35, 0.1], [0.6, 0.1, -0.35, -0.2]])
    P["l1.gamma1"] = M([1.1, 1.0, 0.8, 1.0])
    P["l1.gamma2"] = M([1.0, 0.9, 1.0, 1.1])
    return P


TRAINED = ["E", "W_out"] + [f"l{l}.{n}" for l in (0, 1) for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2")]


# ---------------------------------------------------------------- a small reverse-mode autodiff on mpf

class Var:
    __slots__ = ("v", "g", "parents")

    def __init__(self, v, parents=()):
        self.v, self.g, self.parents = mp.mpf(v), mp.mpf(0), parents

    def __add__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __neg__(a):
        return Var(-a.v, ((a, -1),))

    def __sub__(a, b):
        return a + (-(b if isinstance(b, Var) else Var(b)))

    def __mul__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, Var) else Var(b)
        return Var(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))

    def __rtruediv__(a, b):
        return Var(b) / a


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


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
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.g += n.g * local


# ---------------------------------------------------------------- the model

def val(x):
    return [[e.v for e in r] for r in x] if isinstance(x[0], list) else [e.v for e in x]


def matmul(A, B):
    return [[vsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, gamma):
    d = len(H[0])
    ms = [vsum(x * x for x in r) / d for r in H]
    rms = [vsqrt(m + EPS) for m in ms]
    return ms, rms, [[gamma[j] * H[t][j] / rms[t] for j in range(d)] for t in range(len(H))]


def rope(X):
    T, dk = len(X), len(X[0])
    half = dk // 2
    freq = [ROPE_BASE ** (-mp.mpf(2 * i) / dk) for i in range(half)]
    out = []
    for t in range(T):
        c = [mp.cos(t * freq[j % half]) for j in range(dk)]
        s = [mp.sin(t * freq[j % half]) for j in range(dk)]
        rot = [-X[t][j + half] if j < half else X[t][j - half] for j in range(dk)]
        out.append([X[t][j] * c[j] + rot[j] * s[j] for j in range(dk)])
    return out


def forward(Pv):
    """Pv: the weights as mpf numbers. Returns (every node's value by name, the Var params, the loss Var)."""
    P = {k: ([[Var(x) for x in r] for r in w] if isinstance(w[0], list) else [Var(x) for x in w]) for k, w in Pv.items()}
    N = {}
    H = [P["E"][i][:] for i in IDS]
    N["X"] = H
    T, d = len(IDS), 4
    for l in (0, 1):
        g = lambda n: P[f"l{l}.{n}"]
        ms1, rms1, LN1 = rmsnorm(H, g("gamma1"))
        Q, K, Vv = matmul(LN1, g("W_Q")), matmul(LN1, g("W_K")), matmul(LN1, g("W_V"))
        Qr, Kr = rope(Q), rope(K)
        S = [[vsum(Qr[t][j] * Kr[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
        eS = [[vexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [vsum(r) for r in eS]
        A = [[eS[t][s] / den[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        AH = [[vsum(A[t][s] * Vv[s][j] for s in range(t + 1)) for j in range(d)] for t in range(T)]
        Attn = matmul(AH, g("W_O"))
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        ms2, rms2, LN2 = rmsnorm(H1, g("gamma2"))
        Z, U = matmul(LN2, g("W_1")), matmul(LN2, g("W_3"))
        SIG = [[1 / (1 + vexp(-z)) for z in r] for r in Z]
        SILU = [[z * s for z, s in zip(rz, rs)] for rz, rs in zip(Z, SIG)]
        R = [[a * u for a, u in zip(ra, ru)] for ra, ru in zip(SILU, U)]
        F = matmul(R, g("W_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        for name, x in (("ms1", ms1), ("rms1", rms1), ("LN1", LN1), ("Q", Q), ("K", K), ("V", Vv), ("Q_rot", Qr),
                        ("K_rot", Kr), ("S", S), ("A_den", den), ("A", A), ("Attn_heads", AH), ("Attn", Attn),
                        ("H1", H1), ("ms2", ms2), ("rms2", rms2), ("LN2", LN2), ("Z", Z), ("U", U), ("sigmoid", SIG),
                        ("silu", SILU), ("R", R), ("F", F), ("H2", H2)):
            N[f"l{l}.{name}"] = x
        H = H2
    ms_f, rms_f, LN_f = rmsnorm(H, P["gamma_f"])
    h = LN_f[-1]
    logits = [vsum(h[j] * P["W_out"][j][v] for j in range(d)) for v in range(len(VOCAB))]
    ex = [vexp(z) for z in logits]
    se = vsum(ex)
    p = [e / se for e in ex]
    loss = -vlog(p[TARGET])
    N.update(ms_f=ms_f, rms_f=rms_f, LN_f=LN_f, h_final=h, logits=logits, exp_logits=ex, sum_exp=se, p=p, loss=loss)
    return N, P, loss


def state(Pv):
    """Every quantity of one model state: node values, parameter values and the gradients."""
    N, P, loss = forward(Pv)
    backward(loss)
    q = {}
    grad = lambda x: x.g if isinstance(x, Var) else ([[e.g for e in r] for r in x] if isinstance(x[0], list) else [e.g for e in x])
    for k, x in list(N.items()) + list(P.items()):
        q[k] = x.v if isinstance(x, Var) else val(x)
        q["grad_" + k] = grad(x)
    return q


def sgd(P, grads):
    out = dict(P)
    for k in TRAINED:
        out[k] = [[w - LR * g for w, g in zip(rw, rg)] for rw, rg in zip(P[k], grads[k])]
    return out


def trace():
    P0 = initial_weights()
    s0 = state(P0)
    P1 = sgd(P0, {k: s0["grad_" + k] for k in TRAINED})
    s1 = state(P1)
    P2 = sgd(P1, {k: s1["grad_" + k] for k in TRAINED})
    s2 = state(P2)
    return [s0, s1, s2]


# ---------------------------------------------------------------- looking up a symgpt-style name

TOK = {t: i for i, t in enumerate(VOCAB)}


def lookup(states, ref: str):
    """'sgd[2].l0.W_Q[0,1]', 'grad_E[süt,1]', 'l1.A[2,0]', 'loss', 'sqrt(l0.ms1[2] + ln_eps)', 'exp(logits[içer])'."""
    ref = ref.replace(" ", "")
    m = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", ref)
    if m:
        return mp.sqrt(lookup(states, m.group(1)) + EPS)
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(lookup(states, m.group(1)))
    m = re.fullmatch(r"sgd\[(\d)\]\.(.+)", ref)
    k = 0
    if m:
        k, ref = int(m.group(1)), m.group(2)
    m = re.fullmatch(r"([A-Za-z_0-9.]+?)(?:\[([^\]]+)\])?", ref)
    name, idx = m.group(1), m.group(2)
    x = states[k][name]
    if idx:
        for i in idx.split(","):
            x = x[TOK[i] if i in TOK else int(i)]
    return x


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def as_number(printed: str) -> tuple[str, bool]:
    """'−0,2805' → '-0.2805'; '%41,3' → ('41.3', True)."""
    pct = "%" in printed
    s = printed.replace("%", "").replace("−", "-").replace(",", ".").strip()
    return s, pct


# ---------------------------------------------------------------- every figure of DOC.html (line, printed, quantity)
# A planted figure is marked True; the others must be the correct rounding of their quantity.
# (filled in below the model so that the list can be read beside the document)

FIGURES: list[tuple[int, str, str, bool]] = []


def check_key(states) -> int:
    bad = 0
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    print("KEY.md:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = names[0]
        v = lookup(states, ref)
        num, pct = as_number(cells[4].strip("`") if len(cells) == 7 else printed)
        v = v * 100 if pct else v
        places = len(num.split(".")[1]) if "." in num else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            pnum, _ = as_number(printed)
            ok = right == num and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and pnum != right
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == num else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
        assert note in ("planted, key agrees", "correct"), r
    return bad


def check_doc(states) -> int:
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    bad = 0
    for line, printed, ref, planted in FIGURES:
        assert printed in lines[line - 1], f"line {line}: {printed!r} not in {lines[line - 1]!r}"
        num, pct = as_number(printed)
        v = lookup(states, ref) * (100 if pct else 1)
        places = len(num.split(".")[1]) if "." in num else 0
        right = rnd(v, places)
        if planted != (right != num):
            bad += 1
            print(f"  DOC line {line}: {printed} for {ref} = {mp.nstr(v, 15)} (rounds to {right}), planted={planted}")
    n_planted = sum(f[3] for f in FIGURES)
    print(f"DOC.html: {len(FIGURES)} figures of model quantities checked, {n_planted} planted, {bad} disagree")
    return bad


def main() -> int:
    states = trace()
    bad = check_key(states)
    bad += check_doc(states)
    print("all key rows and document figures agree with the oracle" if not bad else f"{bad} disagreements")
    assert bad == 0
    return 0


# FIGURES_BEGIN
FIGURES.extend([
    (44, '0,1271', 'l0.ms1[2]', False),
    (45, '0,3565', 'sqrt(l0.ms1[2] + ln_eps)', False),
    (49, '−0,1', 'E[süt,0]', False),
    (49, '−0,2805', 'l0.LN1[2,0]', False),
    (50, '0,22', 'E[süt,1]', False),
    (50, '0,6788', 'l0.LN1[2,1]', False),
    (51, '−0,6', 'E[süt,2]', False),
    (51, '−1,5146', 'l0.LN1[2,2]', False),
    (52, '−0,3', 'E[süt,3]', False),
    (52, '−0,8415', 'l0.LN1[2,3]', False),
    (60, '1,3481', 'l0.Q_rot[2,0]', False),
    (60, '1,7917', 'l0.Q_rot[2,1]', False),
    (60, '0,3906', 'l0.Q_rot[2,2]', False),
    (60, '−0,6509', 'l0.Q_rot[2,3]', False),
    (65, '0,9940', 'l0.S[2,0]', True),
    (65, '0,9264', 'l0.S[2,1]', False),
    (65, '0,2837', 'l0.S[2,2]', False),
    (66, '0,3330', 'l0.A[2,0]', False),
    (66, '0,4317', 'l0.A[2,1]', True),
    (66, '0,2299', 'l0.A[2,2]', False),
    (73, '0,3673', 'l0.Z[2,0]', False),
    (73, '0,2170', 'l0.silu[2,0]', False),
    (73, '1,6100', 'l0.U[2,0]', False),
    (73, '0,2170', 'l0.silu[2,0]', False),
    (73, '1,6100', 'l0.U[2,0]', False),
    (73, '0,3494', 'l0.R[2,0]', True),
    (77, '0,0866', 'l0.F[2,0]', False),
    (77, '-0,1038', 'l0.F[2,1]', False),
    (77, '-0,0028', 'l0.F[2,2]', False),
    (77, '0,0275', 'l0.F[2,3]', False),
    (87, '0,4278', 'l1.ms1[2]', True),
    (88, '0,6542', 'sqrt(l1.ms1[2] + ln_eps)', False),
    (91, '0,3156', 'l1.LN1[2,0]', False),
    (91, '−0,9608', 'l1.LN1[2,1]', False),
    (91, '−1,3559', 'l1.LN1[2,2]', False),
    (91, '−0,3492', 'l1.LN1[2,3]', False),
    (97, '%39,71', 'l1.A[2,0]', False),
    (98, '%28,65', 'l1.A[2,1]', False),
    (99, '%31,64', 'l1.A[2,2]', False),
    (104, '0,1612', 'l1.F[2,0]', False),
    (104, '0,0672', 'l1.F[2,1]', False),
    (104, '−0,0920', 'l1.F[2,2]', False),
    (104, '−0,1011', 'l1.F[2,3]', False),
    (108, '0,7648', 'h_final[0]', False),
    (108, '−0,3515', 'h_final[1]', False),
    (108, '−1,9866', 'h_final[2]', False),
    (108, '−0,0252', 'h_final[3]', False),
    (109, '13,8223', 'sum_exp', False),
    (113, '0,0585', 'logits[küçük]', False),
    (113, '0,0767', 'p[küçük]', False),
    (114, '1,0472', 'logits[kedi]', False),
    (114, '0,2062', 'p[kedi]', False),
    (115, '1,2405', 'logits[süt]', False),
    (115, '0,2501', 'p[süt]', False),
    (116, '1,1336', 'logits[içer]', False),
    (116, '0,2248', 'p[içer]', False),
    (117, '1,2083', 'logits[uyur]', False),
    (117, '0,2422', 'p[uyur]', False),
    (119, '%0,22', 'p[içer]', True),
    (120, '1,4927', 'loss', False),
    (123, '0,2248', 'grad_logits[içer]', True),
    (126, '0,3596', 'grad_l1.F[2,0]', False),
    (126, '−0,2745', 'grad_l1.F[2,1]', False),
    (126, '0,2045', 'grad_l1.F[2,2]', False),
    (126, '0,5093', 'grad_l1.F[2,3]', False),
    (131, '-0,1016', 'grad_l1.W_2[1,0]', False),
    (131, '0,0776', 'grad_l1.W_2[1,1]', False),
    (131, '-0,0067', 'grad_l1.W_2[1,2]', True),
    (131, '-0,1440', 'grad_l1.W_2[1,3]', False),
    (132, '-0,0461', 'grad_l1.W_2[3,0]', False),
    (132, '0,0352', 'grad_l1.W_2[3,1]', False),
    (132, '-0,0262', 'grad_l1.W_2[3,2]', False),
    (132, '-0,0653', 'grad_l1.W_2[3,3]', False),
    (136, '0,4063', 'grad_E[süt,0]', False),
    (136, '−0,1962', 'grad_E[süt,1]', False),
    (136, '−0,0186', 'grad_E[süt,2]', False),
    (136, '0,7537', 'grad_E[süt,3]', False),
    (140, '0,1306', 'grad_l0.W_Q[2,0]', True),
    (141, '−0,2747', 'grad_l0.W_Q[2,3]', False),
    (146, '0,7969', 'sgd[1].loss', False),
    (146, '0,5693', 'sgd[2].loss', False),
    (150, '0,2396', 'sgd[1].E[süt,1]', False),
    (150, '0,2663', 'sgd[2].E[süt,1]', False),
    (151, '0,6144', 'sgd[1].l1.W_2[1,3]', False),
    (151, '0,6177', 'sgd[2].l1.W_2[1,3]', False),
    (152, '0,1875', 'sgd[1].l0.W_Q[2,3]', False),
    (152, '0,2201', 'sgd[2].l0.W_Q[2,3]', False),
    (154, '0,22', 'E[süt,1]', False),
    (154, '−0,1962', 'grad_E[süt,1]', False),
    (154, '0,2396', 'sgd[1].E[süt,1]', False),
])
# FIGURES_END

if __name__ == "__main__":
    main()
