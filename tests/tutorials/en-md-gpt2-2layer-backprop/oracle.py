#!/usr/bin/env python3
"""Independent check of en-md-gpt2-2layer-backprop: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # every KEY.md row's quantity with its exact value, and a check of the
                          # key's "exact value" / "correct rounding" columns against it

Model (GPT-2 wiring, as SPEC.toml): V = 5 (the dog ran home fast), d = 4, one head, d_ff = 8,
two pre-LN blocks, learned positions, biases everywhere, GELU in tanh form, final LayerNorm,
tied head, input "the dog ran", target "home", ln_eps = 1e-5.

    H0 = E[ids] + W_pe
    per block:  LN1 = LN(H; gamma1, beta1);  Q, K, V = LN1·W + b;  S = Q·Kᵀ/√4;  A = causal softmax
                Attn_heads = A·V;  Attn = Attn_heads·W_O + b_O;  H1 = H + Attn
                LN2 = LN(H1; gamma2, beta2);  Z = LN2·W_1 + b_1;  R = GELU_tanh(Z);  F = R·W_2 + b_2
                H2 = H1 + F
    LN_f = LN(l1.H2; gamma_f, beta_f);  h_final = LN_f[2];  logits = h_final·Eᵀ;  p = softmax
    loss = -ln p[home]
Backward: grad_logits = p - y; grad_h_final = Eᵀ·grad_logits; through the LayerNorm
    ∂L/∂h = (g - mean(g) - x̂·mean(g·x̂)) / √(σ² + ε) with g = γ ⊙ ∂L/∂LN;
    grad_F = grad_H2 (residual); grad_W_2[k,j] = Σ_t R[t,k]·grad_F[t,j].
Names are symgpt's: layer 1 of the blog is l0, layer 2 is l1.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ------------------------------------------------------------------ weights (copied from SPEC.toml)

VOCAB = ["the", "dog", "ran", "home", "fast"]
IDS = [0, 1, 2]
TARGET = 3
EPS = mp.mpf("1e-5")

E = M([[0.2, -0.1, 0.3, 0.0], [-0.3, 0.4, 0.1, 0.2], [0.1, 0.3, -0.2, 0.5], [0.4, -0.2, 0.2, -0.1],
       [-0.1, 0.2, 0.4, -0.3]])
W_PE = M([[0.1, 0.0, -0.1, 0.2], [0.0, 0.1, 0.2, -0.1], [-0.1, 0.2, 0.0, 0.1]])
GAMMA_F = M([1.1, 0.9, 1.0, 1.2])
BETA_F = M([0.05, -0.05, 0.0, 0.1])

LAYERS = [
    dict(
        W_Q=M([[0.3, -0.1, 0.2, 0.0], [0.1, 0.4, -0.2, 0.1], [-0.2, 0.1, 0.3, 0.2], [0.0, 0.2, 0.1, -0.3]]),
        b_Q=M([0.0, 0.1, 0.0, -0.1]),
        W_K=M([[0.2, 0.1, 0.0, -0.1], [-0.1, 0.3, 0.2, 0.0], [0.3, 0.0, -0.2, 0.1], [0.1, -0.2, 0.1, 0.4]]),
        b_K=M([0.1, 0.0, 0.0, 0.0]),
        W_V=M([[0.4, 0.0, -0.1, 0.2], [0.1, -0.3, 0.2, 0.0], [0.0, 0.2, 0.3, -0.1], [-0.2, 0.1, 0.0, 0.3]]),
        b_V=M([0.0, 0.05, 0.0, -0.05]),
        W_O=M([[0.2, -0.1, 0.0, 0.1], [0.0, 0.3, -0.1, 0.2], [0.1, 0.0, 0.2, -0.2], [-0.1, 0.2, 0.1, 0.0]]),
        b_O=M([0.0, 0.0, 0.05, 0.0]),
        W_1=M([[0.3, -0.2, 0.1, 0.4, -0.1, 0.2, 0.0, -0.3], [-0.1, 0.2, 0.3, 0.0, 0.2, -0.4, 0.1, 0.1],
               [0.2, 0.1, -0.3, 0.1, 0.0, 0.3, -0.2, 0.2], [0.0, -0.3, 0.2, -0.2, 0.4, 0.1, 0.3, 0.0]]),
        b_1=M([0.0, 0.1, 0.0, -0.1, 0.0, 0.05, 0.0, 0.0]),
        W_2=M([[0.2, -0.1, 0.0, 0.1], [0.0, 0.2, -0.1, 0.0], [-0.1, 0.0, 0.3, 0.1], [0.1, 0.1, 0.0, -0.2],
               [0.0, -0.2, 0.1, 0.2], [0.3, 0.0, -0.1, 0.0], [-0.2, 0.1, 0.2, 0.0], [0.1, 0.0, 0.0, 0.1]]),
        b_2=M([0.0, 0.0, 0.0, 0.05]),
        gamma1=M([1.0, 1.1, 0.9, 1.0]), beta1=M([0.0, 0.1, 0.0, -0.1]),
        gamma2=M([0.9, 1.0, 1.1, 1.0]), beta2=M([0.1, 0.0, -0.1, 0.0]),
    ),
    dict(
        W_Q=M([[0.1, 0.3, 0.0, -0.2], [-0.2, 0.1, 0.4, 0.0], [0.3, 0.0, 0.1, 0.2], [0.0, -0.1, 0.2, 0.3]]),
        b_Q=M([0.05, 0.0, -0.05, 0.0]),
        W_K=M([[0.3, 0.0, 0.1, 0.2], [0.1, 0.2, -0.3, 0.0], [0.0, 0.4, 0.2, -0.1], [-0.2, 0.1, 0.0, 0.3]]),
        b_K=M([0.0, 0.0, 0.1, 0.0]),
        W_V=M([[0.2, 0.1, 0.0, -0.3], [0.0, 0.3, 0.1, 0.2], [-0.1, 0.0, 0.4, 0.1], [0.3, -0.2, 0.0, 0.1]]),
        b_V=M([0.05, 0.0, 0.0, 0.0]),
        W_O=M([[0.1, 0.2, 0.0, -0.1], [0.3, 0.0, 0.1, 0.0], [0.0, -0.2, 0.3, 0.1], [0.2, 0.1, 0.0, 0.2]]),
        b_O=M([0.0, 0.05, 0.0, 0.0]),
        W_1=M([[0.4, 0.1, -0.2, 0.0, 0.3, -0.1, 0.2, 0.1], [0.0, 0.3, 0.2, -0.1, 0.1, 0.2, -0.3, 0.0],
               [-0.2, 0.0, 0.1, 0.3, -0.1, 0.4, 0.0, 0.2], [0.1, -0.2, 0.0, 0.2, 0.0, 0.1, 0.3, -0.4]]),
        b_1=M([0.1, 0.0, -0.05, 0.0, 0.0, 0.1, 0.0, -0.1]),
        W_2=M([[0.3, 0.0, -0.1, 0.2], [-0.2, 0.1, 0.0, 0.1], [0.0, 0.2, 0.3, 0.0], [0.1, -0.1, 0.2, 0.0],
               [0.2, 0.0, 0.0, -0.3], [0.0, 0.3, -0.2, 0.1], [-0.1, 0.0, 0.1, 0.2], [0.1, 0.2, 0.0, -0.1]]),
        b_2=M([0.0, 0.05, 0.0, 0.0]),
        gamma1=M([1.0, 0.9, 1.1, 1.0]), beta1=M([0.05, 0.0, 0.0, -0.05]),
        gamma2=M([1.1, 1.0, 0.9, 1.0]), beta2=M([0.0, 0.05, -0.05, 0.0]),
    ),
]


# ------------------------------------------------------------------ the computation

def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def affine(X, W, b):
    return [[v + bb for v, bb in zip(r, b)] for r in matmul(X, W)]


def layernorm(H, gamma, beta):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    xhat = [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, xhat, [[gamma[j] * x[j] + beta[j] for j in range(d)] for x in xhat]


def gelu_tanh(z):
    c = mp.sqrt(2 / mp.pi)
    return z / 2 * (1 + mp.tanh(c * (z + mp.mpf("0.044715") * z ** 3)))


def block(H, w):
    T, d = len(H), len(H[0])
    mu1, var1, _, LN1 = layernorm(H, w["gamma1"], w["beta1"])
    Q, K, V = affine(LN1, w["W_Q"], w["b_Q"]), affine(LN1, w["W_K"], w["b_K"]), affine(LN1, w["W_V"], w["b_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn_heads = matmul(A, V)
    Attn = affine(Attn_heads, w["W_O"], w["b_O"])
    H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, _, LN2 = layernorm(H1, w["gamma2"], w["beta2"])
    Z = affine(LN2, w["W_1"], w["b_1"])
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = affine(R, w["W_2"], w["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    return dict(mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Attn_heads,
                Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2)


def ln_backward(g_out, gamma, xhat, var):
    d = len(g_out)
    g = [gamma[j] * g_out[j] for j in range(d)]
    mg = mp.fsum(g) / d
    mgx = mp.fsum(g[j] * xhat[j] for j in range(d)) / d
    return [(g[j] - mg - xhat[j] * mgx) / mp.sqrt(var + EPS) for j in range(d)]


def compute():
    T, d, V = len(IDS), 4, len(VOCAB)
    q = {}
    H0 = [[E[IDS[t]][j] + W_PE[t][j] for j in range(d)] for t in range(T)]
    q["H0"] = H0
    H = H0
    blocks = []
    for l, w in enumerate(LAYERS):
        b = block(H, w)
        blocks.append(b)
        for k, v in b.items():
            q[f"l{l}.{k}"] = v
        H = b["H2"]
    mu_f, var_f, xhat_f, LN_f = layernorm(H, GAMMA_F, BETA_F)
    q.update(mu_f=mu_f, var_f=var_f, LN_f=LN_f)
    h = LN_f[T - 1]
    q["h_final"] = h
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(V)]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    q.update(logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[TARGET]))
    # backward, only as far as block 2's MLP
    g_logits = [p[v] - (1 if v == TARGET else 0) for v in range(V)]
    g_h = [mp.fsum(g_logits[v] * E[v][j] for v in range(V)) for j in range(d)]
    g_H2 = [[mp.mpf(0)] * d for _ in range(T)]
    g_H2[T - 1] = ln_backward(g_h, GAMMA_F, xhat_f[T - 1], var_f[T - 1])
    g_F = [r[:] for r in g_H2]
    R = blocks[1]["R"]
    g_W2 = [[mp.fsum(R[t][k] * g_F[t][j] for t in range(T)) for j in range(d)] for k in range(8)]
    g_b2 = [mp.fsum(g_F[t][j] for t in range(T)) for j in range(d)]
    g_R = [[mp.fsum(LAYERS[1]["W_2"][k][j] * g_F[t][j] for j in range(d)) for k in range(8)] for t in range(T)]
    q.update({"grad_logits": g_logits, "grad_h_final": g_h, "grad_l1.H2": g_H2, "grad_l1.F": g_F,
              "grad_l1.W_2": g_W2, "grad_l1.b_2": g_b2, "grad_l1.R": g_R,
              "grad_gamma_f": [g_h[j] * xhat_f[T - 1][j] for j in range(d)], "grad_beta_f": g_h})
    return q


def lookup(q, name):
    """A symgpt-style name such as `l1.Z[2,5]`, `p[home]`, `loss`, `sqrt(var_f[2] + ln_eps)`."""
    name = name.replace(" ", "")
    m = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", name)
    if m:
        return mp.sqrt(lookup(q, m.group(1)) + EPS)
    m = re.fullmatch(r"(.+?)\[(.+)\]", name)
    if not m:
        return q[name]
    v = q[m.group(1)]
    for i in m.group(2).split(","):
        v = v[VOCAB.index(i) if i in VOCAB else int(i)]
    return v


# Every figure of a model quantity in DOC.md, in reading order: (printed, quantity, planted).
DOC_FIGURES = [
    ('-0.299', 'l0.H2[2,0]', False),
    ('0.460', 'l0.H2[2,1]', False),
    ('0.233', 'l0.H2[2,2]', False),
    ('0.808', 'l0.H2[2,3]', False),
    ('0.162', 'l1.var1[2]', False),
    ('-1.441', 'l1.LN1[2,0]', False),
    ('0.357', 'l1.LN1[2,1]', False),
    ('-0.185', 'l1.LN1[2,2]', False),
    ('1.212', 'l1.LN1[2,3]', False),
    ('0.502', 'l1.S[2,0]', True),
    ('-0.213', 'l1.S[2,1]', False),
    ('0.039', 'l1.S[2,2]', False),
    ('41.0%', 'l1.A[2,0]', False),
    ('25.8%', 'l1.A[2,1]', False),
    ('33.2%', 'l1.A[2,2]', False),
    ('-0.299', 'l0.H2[2,0]', False),
    ('-0.004', 'l1.Attn[2,0]', False),
    ('-0.303', 'l1.H1[2,0]', False),
    ('0.460', 'l0.H2[2,1]', False),
    ('0.113', 'l1.Attn[2,1]', False),
    ('0.573', 'l1.H1[2,1]', False),
    ('0.233', 'l0.H2[2,2]', False),
    ('-0.025', 'l1.Attn[2,2]', False),
    ('0.208', 'l1.H1[2,2]', True),
    ('0.808', 'l0.H2[2,3]', False),
    ('0.065', 'l1.Attn[2,3]', False),
    ('0.873', 'l1.H1[2,3]', False),
    ('0.192', 'l1.var2[2]', False),
    ('-1.607', 'l1.LN2[2,0]', False),
    ('0.587', 'l1.LN2[2,1]', False),
    ('-0.317', 'l1.LN2[2,2]', False),
    ('1.221', 'l1.LN2[2,3]', False),
    ('-0.357', 'l1.Z[2,0]', False),
    ('-0.129', 'l1.R[2,0]', False),
    ('-0.229', 'l1.Z[2,1]', False),
    ('-0.094', 'l1.R[2,1]', False),
    ('0.357', 'l1.Z[2,2]', False),
    ('0.228', 'l1.R[2,2]', False),
    ('0.090', 'l1.Z[2,3]', False),
    ('0.048', 'l1.R[2,3]', False),
    ('-0.329', 'l1.Z[2,4]', True),
    ('-0.136', 'l1.R[2,4]', False),
    ('0.373', 'l1.Z[2,5]', False),
    ('0.241', 'l1.R[2,5]', False),
    ('-0.131', 'l1.Z[2,6]', False),
    ('-0.059', 'l1.R[2,6]', False),
    ('-0.812', 'l1.Z[2,7]', False),
    ('-0.169', 'l1.R[2,7]', False),
    ('-0.053', 'l1.F[2,0]', False),
    ('0.120', 'l1.F[2,1]', False),
    ('0.037', 'l1.F[2,2]', False),
    ('0.035', 'l1.F[2,3]', False),
    ('0.23438', 'var_f[2]', False),
    ('0.48413', 'sqrt(var_f[2] + ln_eps)', False),
    ('-1.606', 'h_final[0]', False),
    ('0.546', 'h_final[1]', False),
    ('-0.264', 'h_final[2]', False),
    ('1.428', 'h_final[3]', False),
    ('-0.455', 'logits[the]', False),
    ('0.09671', 'p[the]', False),
    ('0.959', 'logits[dog]', False),
    ('0.39789', 'p[dog]', False),
    ('0.770', 'logits[ran]', False),
    ('0.32926', 'p[ran]', False),
    ('-0.947', 'logits[home]', False),
    ('0.05911', 'p[home]', False),
    ('-0.264', 'logits[fast]', False),
    ('0.11704', 'p[fast]', True),
    ('6.56062', 'sum_exp', False),
    ('2.82829', 'loss', False),
    ('0.09671', 'grad_logits[the]', False),
    ('0.39789', 'grad_logits[dog]', False),
    ('0.32926', 'grad_logits[ran]', False),
    ('-0.94089', 'grad_logits[home]', False),
    ('0.11703', 'grad_logits[fast]', False),
    ('-0.45516', 'grad_h_final[0]', False),
    ('0.45984', 'grad_h_final[1]', False),
    ('0.13841', 'grad_h_final[2]', True),
    ('0.30319', 'grad_h_final[3]', False),
    ('0.03473', 'grad_l1.H2[2,0]', False),
    ('0.28150', 'grad_l1.H2[2,1]', False),
    ('-0.15757', 'grad_l1.H2[2,2]', False),
    ('-0.08709', 'grad_l1.H2[2,3]', True),
    ('0.228', 'l1.R[2,2]', False),
    ('0.28150', 'grad_l1.F[2,1]', False),
    ('0.06418', 'grad_l1.W_2[2,1]', True),
    ('-0.02638', 'grad_l1.W_2[1,1]', False),
    ('0.01364', 'grad_l1.W_2[1,3]', True),
    ('0.06784', 'grad_l1.W_2[5,1]', False),
    ('-0.03823', 'grad_l1.W_2[5,3]', False),
]


def check_doc(q) -> int:
    """Each figure appears in DOC.md in this order; the unplanted ones are the correct rounding."""
    text = (HERE / "DOC.md").read_text(encoding="utf-8")
    pos, bad = 0, 0
    for printed, name, planted in DOC_FIGURES:
        at = text.find(printed, pos)
        if at < 0:
            print(f"  {printed} ({name}) NOT FOUND in DOC.md after offset {pos}")
            bad += 1
            continue
        pos = at + len(printed)
        v = lookup(q, name) * (100 if printed.endswith("%") else 1)
        places = len(printed.rstrip("%").split(".")[1])
        right = rnd(v, places) + ("%" if printed.endswith("%") else "")
        if (right == printed) == planted:
            print(f"  {printed} ({name}) rounds to {right}: {'planted but correct' if planted else 'WRONG'}")
            bad += 1
    n = sum(1 for *_, p in DOC_FIGURES if p)
    print(f"DOC.md: {len(DOC_FIGURES)} figures checked, {n} planted, {bad} problems")
    return bad


def main() -> int:
    q = compute()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = None
        for n in names:
            try:
                v, ref = lookup(q, n), n
                break
            except (KeyError, ValueError, IndexError):
                continue
        if v is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = v * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<24} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    n_planted = sum(1 for r in rows if len(r.strip().strip("|").split("|")) == 7)
    print(f"{len(rows)} key rows, {n_planted} planted")
    assert n_planted == 8, "the key must plant exactly 8 errors"
    assert not bad, f"{bad} key rows disagree with the oracle"
    print("all key rows agree with the oracle")
    assert check_doc(q) == 0, "DOC.md has a figure that is not what DOC_FIGURES says"
    print("every unplanted figure of DOC.md is the correct rounding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
