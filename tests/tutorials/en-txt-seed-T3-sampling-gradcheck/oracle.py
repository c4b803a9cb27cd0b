#!/usr/bin/env python3
"""Independent check of DOC.txt and KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model (SPEC.toml): the seed's one-block post-LN transformer, one head, d = 4, d_ff = 8, V = 6, T = 3,
ln_eps 1e-5, ReLU, sinusoidal positions PE[t,2i] = sin(t/10000^(2i/d)), PE[t,2i+1] = cos(same),
tied head. H0 = E[ids] + PE; Q, K, V = H0 W; S = Q K^T / sqrt(d_k); causal softmax A; Attn = A V;
H1 = H0 + Attn; LN1; Z = LN1 W_1 + b_1; R = ReLU(Z); F = R W_2 + b_2; H2 = LN1 + F; LN2;
logits = LN2[T-1] E^T; p = softmax; loss = -ln p[seas].
Gradients: mpmath's numerical derivative mp.diff of the 50-digit loss (cross-checked below against a
central difference with step 1e-20). Gradient check: (L(theta+h) - L(theta-h)) / 2h with h = 1e-3.
Rounding is half away from zero on the 45-digit decimal of the value.

It prints every figure of DOC.txt (FIGURES below: line, text, quantity) with its exact value and
checks that (a) the text is on that line, (b) every figure not planted is the correct rounding and
(c) every KEY.md row agrees: "exact value" and "correct rounding" columns, and a planted figure is wrong.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["ships", "sail", "across", "seas", "rivers", "slowly"]
IDS = [0, 1, 2]          # ships sail across
TGT = 3                  # seas
EPS = mp.mpf("1e-5")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS = dict(
    E=M([[0.2, -0.1, 0.4, 0.3], [-0.3, 0.5, 0.1, -0.2], [0.1, 0.3, -0.4, 0.2],
         [0.5, -0.2, 0.3, 0.1], [-0.1, 0.4, 0.2, -0.5], [0.3, 0.1, -0.2, 0.4]]),
    W_Q=M([[0.2, -0.1, 0.3, 0.05], [0.4, 0.1, -0.2, 0.3], [-0.3, 0.2, 0.1, 0.4], [0.1, 0.5, -0.1, -0.2]]),
    W_K=M([[0.3, 0.2, -0.1, 0.1], [-0.2, 0.4, 0.3, 0.05], [0.1, -0.3, 0.2, 0.4], [0.25, 0.1, 0.4, -0.3]]),
    W_V=M([[0.5, -0.2, 0.1, 0.3], [0.1, 0.3, -0.4, 0.2], [-0.2, 0.1, 0.6, -0.1], [0.3, 0.4, 0.2, 0.15]]),
    W_1=M([[0.3, -0.2, 0.1, 0.4, -0.35, 0.2, 0.15, -0.1], [-0.1, 0.4, 0.25, -0.3, 0.2, 0.1, -0.4, 0.3],
           [0.2, 0.1, -0.3, 0.15, 0.4, -0.2, 0.3, 0.05], [0.4, -0.3, 0.2, 0.1, -0.1, 0.35, 0.2, -0.25]]),
    b_1=M([0.05, -0.1, 0.1, 0.0, 0.02, -0.05, 0.1, 0.0]),
    W_2=M([[0.2, -0.1, 0.3, 0.1], [-0.3, 0.2, 0.1, 0.4], [0.1, 0.3, -0.2, -0.1], [0.4, -0.2, 0.1, 0.2],
           [-0.1, 0.1, 0.4, -0.3], [0.3, 0.2, -0.1, 0.1], [0.1, -0.4, 0.2, 0.3], [-0.2, 0.1, 0.3, 0.2]]),
    b_2=M([0.01, -0.02, 0.0, 0.03]),
)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]


def forward(P):
    E, T, d = P["E"], len(IDS), len(P["E"][0])
    ang = lambda t, j: t / mp.mpf(10000) ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    logits = [mp.fsum(LN2[-1][j] * E[v][j] for j in range(d)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, logits=logits, sum_exp=sum_exp,
                p=p, loss=-mp.log(p[TGT]))


def loss_moved(name, idx, delta):
    P = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in PARAMS.items()}
    if len(idx) == 2:
        P[name][idx[0]][idx[1]] += delta
    else:
        P[name][idx[0]] += delta
    return forward(P)["loss"]


def grad(name, idx):
    g = mp.diff(lambda x: loss_moved(name, idx, x), 0)
    tiny = mp.mpf("1e-20")
    cd = (loss_moved(name, idx, tiny) - loss_moved(name, idx, -tiny)) / (2 * tiny)
    assert abs(g - cd) < mp.mpf("1e-25"), (name, idx, g, cd)
    return g


def softmax_T(logits, T):
    e = [mp.exp(z / T) for z in logits]
    s = mp.fsum(e)
    return [x / s for x in e], e, s


def compute() -> dict:
    f = forward(PARAMS)
    tok = {w: i for i, w in enumerate(VOCAB)}
    v: dict = {}
    for j in range(4):
        v[f"H0[2,{j}]"] = f["H0"][2][j]
        v[f"LN1[2,{j}]"] = f["LN1"][2][j]
        v[f"LN2[2,{j}]"] = f["LN2"][2][j]
        v[f"W_1[{j},6]"] = PARAMS["W_1"][j][6]
        v[f"E[seas,{j}]"] = PARAMS["E"][3][j]
    for t in range(3):
        for s in range(3):
            v[f"S[{t},{s}]"] = f["S"][t][s]
        v[f"exp(S[2,{t}])"] = mp.exp(f["S"][2][t])
        v[f"A[2,{t}]"] = f["A"][2][t]
    v["A_den[2]"] = f["A_den"][2]
    v["Z[2,6]"] = f["Z"][2][6]
    v["sum_exp"] = f["sum_exp"]
    p05, e05, s05 = softmax_T(f["logits"], mp.mpf("0.5"))
    p2, _, _ = softmax_T(f["logits"], mp.mpf(2))
    for w, i in tok.items():
        v[f"logits[{w}]"] = f["logits"][i]
        v[f"p[{w}]"] = f["p"][i]
        v[f"softmax_T(0.5, {w})"] = p05[i]
        v[f"softmax_T(2, {w})"] = p2[i]
    v["exp(logits[slowly]/0.5)"] = e05[5]
    v["sum(exp(logits[:]/0.5))"] = s05
    top = sorted(range(6), key=lambda i: -f["p"][i])[:2]
    assert [VOCAB[i] for i in top] == ["slowly", "across"]
    mass = f["p"][5] + f["p"][2]
    v["p[slowly] + p[across]"] = mass
    v["topk(2, slowly)"] = f["p"][5] / mass
    v["topk(2, across)"] = f["p"][2] / mass
    v["loss"] = f["loss"]
    v["grad_logits[seas]"] = f["p"][TGT] - 1
    h = mp.mpf("1e-3")
    for name, key, idx in (("W_Q", "W_Q[0,0]", (0, 0)), ("W_1", "W_1[2,6]", (2, 6)), ("E", "E[across,1]", (2, 1))):
        lp, lm = loss_moved(name, idx, h), loss_moved(name, idx, -h)
        v[key] = PARAMS[name][idx[0]][idx[1]]
        v[f"loss_at({key}, 1e-3)"] = lp
        v[f"loss_at({key}, -1e-3)"] = lm
        v[f"gradcheck({key}, 1e-3)"] = (lp - lm) / (2 * h)
        v[f"grad_{key}"] = grad(name, idx)
    # the gradient at the logits agrees with the numerical derivative of the loss w.r.t. the logit
    return v


# Every figure of a model quantity that DOC.txt prints: (line, text as printed, quantity, planted).
# A planted figure's correct rounding is taken at the precision of the KEY's "correct rounding" column.
FIGURES = [
    (66, '1.009', 'H0[2,0]', False),
    (66, '-0.116', 'H0[2,1]', False),
    (66, '-0.380', 'H0[2,2]', False),
    (66, '1.200', 'H0[2,3]', False),
    (76, '0.110', 'S[0,0]', False),
    (76, '0.191', 'S[0,1]', False),
    (76, '0.211', 'S[0,2]', False),
    (77, '0.100', 'S[1,0]', False),
    (77, '0.138', 'S[1,1]', False),
    (77, '0.198', 'S[1,2]', False),
    (78, '0.211', 'S[2,0]', True),
    (78, '0.217', 'S[2,1]', False),
    (78, '0.296', 'S[2,2]', False),
    (84, '1.264', 'exp(S[2,0])', False),
    (84, '1.224', 'exp(S[2,1])', True),
    (84, '1.344', 'exp(S[2,2])', False),
    (85, '3.850', 'A_den[2]', False),
    (86, '0.328', 'A[2,0]', False),
    (86, '0.323', 'A[2,1]', False),
    (86, '0.349', 'A[2,2]', False),
    (97, '0.975', 'LN1[2,0]', False),
    (97, '0.15', 'W_1[0,6]', False),
    (97, '-0.546', 'LN1[2,1]', False),
    (97, '-0.4', 'W_1[1,6]', False),
    (97, '-1.368', 'LN1[2,2]', False),
    (97, '0.3', 'W_1[2,6]', False),
    (97, '0.939', 'LN1[2,3]', False),
    (97, '0.2', 'W_1[3,6]', False),
    (98, '0.142', 'Z[2,6]', True),
    (110, '1.119', 'LN2[2,0]', False),
    (110, '0.5', 'E[seas,0]', False),
    (110, '-0.595', 'LN2[2,1]', False),
    (110, '-0.2', 'E[seas,1]', False),
    (110, '-1.324', 'LN2[2,2]', False),
    (110, '0.3', 'E[seas,2]', False),
    (110, '0.800', 'LN2[2,3]', False),
    (110, '0.1', 'E[seas,3]', False),
    (111, '0.361', 'logits[seas]', False),
    (118, '-0.006', 'logits[ships]', False),
    (118, '0.1340', 'p[ships]', False),
    (119, '-0.926', 'logits[sail]', False),
    (119, '0.0534', 'p[sail]', False),
    (120, '0.623', 'logits[across]', False),
    (120, '0.2514', 'p[across]', False),
    (121, '0.361', 'logits[seas]', False),
    (121, '0.1935', 'p[seas]', False),
    (122, '-1.016', 'logits[rivers]', True),
    (122, '0.0489', 'p[rivers]', False),
    (123, '0.861', 'logits[slowly]', False),
    (123, '0.3189', 'p[slowly]', False),
    (126, '7.418', 'sum_exp', False),
    (143, '0.861', 'logits[slowly]', False),
    (144, '5.597', 'exp(logits[slowly]/0.5)', False),
    (144, '12.410', 'sum(exp(logits[:]/0.5))', False),
    (144, '0.4510', 'softmax_T(0.5, slowly)', False),
    (151, '0.0796', 'softmax_T(0.5, ships)', False),
    (151, '0.1575', 'softmax_T(2, ships)', False),
    (152, '0.0127', 'softmax_T(0.5, sail)', False),
    (152, '0.0994', 'softmax_T(2, sail)', False),
    (153, '0.2802', 'softmax_T(0.5, across)', False),
    (153, '0.2157', 'softmax_T(2, across)', False),
    (154, '0.1660', 'softmax_T(0.5, seas)', False),
    (154, '0.1660', 'softmax_T(2, seas)', True),
    (155, '0.0106', 'softmax_T(0.5, rivers)', False),
    (155, '0.0951', 'softmax_T(2, rivers)', False),
    (156, '0.4510', 'softmax_T(0.5, slowly)', False),
    (156, '0.2430', 'softmax_T(2, slowly)', False),
    (160, '31.9%', 'p[slowly]', False),
    (160, '0.451%', 'softmax_T(0.5, slowly)', True),
    (161, '24.3%', 'softmax_T(2, slowly)', False),
    (166, '0.5703', 'p[slowly] + p[across]', False),
    (167, '0.5592', 'topk(2, slowly)', False),
    (167, '0.4408', 'topk(2, across)', False),
    (177, '0.1935', 'p[seas]', False),
    (177, '1.6425', 'loss', True),
    (182, '0.1935', 'p[seas]', False),
    (182, '0.8065', 'grad_logits[seas]', True),
    (203, '1.642637402', 'loss_at(W_Q[0,0], 1e-3)', False),
    (203, '1.642674178', 'loss_at(W_Q[0,0], -1e-3)', False),
    (203, '-0.018388', 'gradcheck(W_Q[0,0], 1e-3)', False),
    (203, '-0.018388', 'grad_W_Q[0,0]', False),
    (204, '1.642861704', 'loss_at(W_1[2,6], 1e-3)', False),
    (204, '1.642449942', 'loss_at(W_1[2,6], -1e-3)', False),
    (204, '0.205881', 'gradcheck(W_1[2,6], 1e-3)', False),
    (204, '0.205881', 'grad_W_1[2,6]', False),
    (205, '1.643172185', 'loss_at(E[across,1], 1e-3)', False),
    (205, '1.642140386', 'loss_at(E[across,1], -1e-3)', False),
    (205, '0.515900', 'gradcheck(E[across,1], 1e-3)', False),
    (205, '0.515900', 'grad_E[across,1]', False),
]


def places(text: str) -> int:
    t = text.rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def main() -> int:
    v = compute()
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    bad = 0
    print(f"DOC.txt: {len(FIGURES)} figures of model quantities")
    for line, text, ref, planted in FIGURES:
        val = v[ref] * (100 if text.endswith("%") else 1)
        right = rnd(val, places(text)) + ("%" if text.endswith("%") else "")
        on_line = re.search(r"(?<![\d.])" + re.escape(text) + r"(?![\d])", doc[line - 1]) is not None
        ok = on_line and ((right != text) if planted else (right == text))
        bad += not ok
        state = "planted" if planted else "correct"
        print(f"  {line:>4} {text:>14}  {ref:<34} {mp.nstr(val, 15):<22} {right:<14} "
              f"{state + (' ok' if ok else ' FAILED' + ('' if on_line else ' (not on that line)'))}")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    nplanted = ncorrect = 0
    print("KEY.md:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in v), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        val = v[ref] * (100 if printed.endswith("%") else 1)
        on_line = re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", doc[line - 1]) is not None
        if len(cells) == 7:
            nplanted += 1
            shown = cells[4].strip("`")
            right = rnd(val, places(shown)) + ("%" if shown.endswith("%") else "")
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (on_line and shown == right and right != printed
                  and abs(exact - val) <= mp.mpf("1e-10") * abs(val)
                  and (line, printed, ref, True) in FIGURES)
        else:
            ncorrect += 1
            right = rnd(val, places(printed)) + ("%" if printed.endswith("%") else "")
            ok = on_line and right == printed and (line, printed, ref, False) in FIGURES
        bad += not ok
        print(f"  {printed:>12}  line {line:<4} {ref:<34} {mp.nstr(val, 15):<22} {right:<12} "
              f"{'ok' if ok else 'KEY DISAGREES'}")
    if nplanted != 8 or ncorrect != 10:
        print(f"KEY has {nplanted} planted rows and {ncorrect} correct rows (want 8 and 10)")
        bad += 1
    if sum(1 for f in FIGURES if f[3]) != 8:
        print("FIGURES does not hold exactly 8 planted figures")
        bad += 1
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} disagreements")
    assert not bad, f"{bad} disagreements"
    return 0


if __name__ == "__main__":
    sys.exit(main())
