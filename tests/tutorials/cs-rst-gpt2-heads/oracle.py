#!/usr/bin/env python3
"""Independent oracle for cs-rst-gpt2-heads: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # every KEY.md row: value, rounding, and that the printed text is on its DOC line

Model (read from SPEC.toml): one GPT-2 block, pre-LN. x0[t] = E[id_t] + W_pe[t];
a = LN(x0) (biased variance, eps); q, k, v = a·W + b; head h uses columns 2h, 2h+1;
S_h = q_h k_hᵀ/√2 with the causal mask; A_h = softmax rows; o = concat_h(A_h v_h);
att = o·W_O + b_O; x1 = x0 + att; m = LN(x1); u = m·W_1 + b_1; g = GELU_tanh(u);
f = g·W_2 + b_2; x2 = x1 + f; hf = LN(x2[last]); logits = hf·Eᵀ (tied); p = softmax;
loss = −ln p[target]. Gradients by hand-written backprop (checked against mp.diff):
dz = p − y; dE[target] = dz[target]·hf (the target is not in the prompt); dhf = Eᵀ·dz;
LN backward; FFN backward; d b_O = dx1[last]. One SGD step (lr from the spec) on E[target].
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def M(a):
    return [M(r) for r in a] if isinstance(a, list) else mp.mpf(a)


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def ln_row(x, eps):
    d = len(x)
    mu = mp.fsum(x) / d
    var = mp.fsum((v - mu) ** 2 for v in x) / d
    s = mp.sqrt(var + eps)
    return mu, var, s, [(v - mu) / s for v in x]


def ln_back(n, s, gn):
    d = len(n)
    mg = mp.fsum(gn) / d
    mgn = mp.fsum(a * b for a, b in zip(gn, n)) / d
    return [(gn[j] - mg - n[j] * mgn) / s for j in range(d)]


C = mp.sqrt(2 / mp.pi)
K3 = mp.mpf("0.044715")


def gelu(u):
    return u / 2 * (1 + mp.tanh(C * (u + K3 * u ** 3)))


def dgelu(u):
    th = mp.tanh(C * (u + K3 * u ** 3))
    return (1 + th) / 2 + u / 2 * (1 - th ** 2) * C * (1 + 3 * K3 * u ** 2)


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=str)
    w, L = spec["weights"], spec["layer"][0]
    P = {k: M(v) for k, v in w.items()}
    P.update({k: M(v) for k, v in L.items()})
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return spec, P, vocab, ids, tgt, mp.mpf(str(spec["model"]["ln_eps"])), mp.mpf(spec["training"]["lr"])


def forward(P, ids, tgt, eps, bO=None):
    d, T, H = 4, len(ids), 2
    dk = d // H
    bO = P["b_O"] if bO is None else bO
    x0 = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln1 = [ln_row(r, eps) for r in x0]
    a = [r[3] for r in ln1]
    q = addb(matmul(a, P["W_Q"]), P["b_Q"])
    k = addb(matmul(a, P["W_K"]), P["b_K"])
    v = addb(matmul(a, P["W_V"]), P["b_V"])
    S, A, den, dots = {}, {}, {}, {}
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            for s in range(T):
                dots[h, t, s] = mp.fsum(q[t][c] * k[s][c] for c in cols)
                S[h, t, s] = dots[h, t, s] / mp.sqrt(dk)
            den[h, t] = mp.fsum(mp.exp(S[h, t, s]) for s in range(t + 1))
            for s in range(T):
                A[h, t, s] = mp.exp(S[h, t, s]) / den[h, t] if s <= t else mp.mpf(0)
    o = [[mp.fsum(A[c // dk, t, s] * v[s][c] for s in range(T)) for c in range(d)] for t in range(T)]
    att = addb(matmul(o, P["W_O"]), bO)
    x1 = [[x0[t][j] + att[t][j] for j in range(d)] for t in range(T)]
    ln2 = [ln_row(r, eps) for r in x1]
    m = [r[3] for r in ln2]
    u = addb(matmul(m, P["W_1"]), P["b_1"])
    g = [[gelu(z) for z in r] for r in u]
    f = addb(matmul(g, P["W_2"]), P["b_2"])
    x2 = [[x1[t][j] + f[t][j] for j in range(d)] for t in range(T)]
    lnf = [ln_row(r, eps) for r in x2]
    hf = lnf[-1][3]
    z = [mp.fsum(hf[j] * P["E"][w][j] for j in range(d)) for w in range(len(P["E"]))]
    se = mp.fsum(mp.exp(x) for x in z)
    p = [mp.exp(x) / se for x in z]
    return dict(x0=x0, ln1=ln1, a=a, q=q, k=k, v=v, dots=dots, S=S, A=A, den=den, o=o, att=att, x1=x1,
                ln2=ln2, m=m, u=u, g=g, f=f, x2=x2, lnf=lnf, hf=hf, z=z, sum_exp=se, p=p, loss=-mp.log(p[tgt]))


def backward(P, F, tgt):
    V, d = len(P["E"]), 4
    dz = [F["p"][w] - (1 if w == tgt else 0) for w in range(V)]
    dE_t = [dz[tgt] * F["hf"][j] for j in range(d)]
    dhf = [mp.fsum(dz[w] * P["E"][w][j] for w in range(V)) for j in range(d)]
    _, _, sf, nf = F["lnf"][-1]
    dx2 = ln_back(nf, sf, dhf)
    dg = [mp.fsum(dx2[j] * P["W_2"][kk][j] for j in range(d)) for kk in range(8)]
    du = [dg[kk] * dgelu(F["u"][-1][kk]) for kk in range(8)]
    dm = [mp.fsum(du[kk] * P["W_1"][j][kk] for kk in range(8)) for j in range(d)]
    _, _, s2, n2 = F["ln2"][-1]
    dx1 = [dx2[j] + ln_back(n2, s2, dm)[j] for j in range(d)]
    return dict(dz=dz, dE_t=dE_t, dhf=dhf, dx2=dx2, dg=dg, du=du, dbO=dx1)


def quantities():
    spec, P, vocab, ids, tgt, eps, lr = load()
    F = forward(P, ids, tgt, eps)
    B = backward(P, F, tgt)
    # self-check of the hand-written backprop: numerical derivative of the loss in b_O
    for j in range(4):
        def L(e, j=j):
            b = list(P["b_O"]); b[j] = b[j] + e
            return forward(P, ids, tgt, eps, b)["loss"]
        assert abs(mp.diff(L, 0) - B["dbO"][j]) < mp.mpf("1e-25"), j
    tok = vocab[tgt]
    Q = {}
    for t in range(3):
        mu, var, s, n = F["ln1"][t]
        Q[f"mu1[{t}]"], Q[f"var1[{t}]"], Q[f"sqrt(var1[{t}] + ln_eps)"] = mu, var, s
        mu, var, s, n2 = F["ln2"][t]
        Q[f"mu2[{t}]"], Q[f"var2[{t}]"], Q[f"sqrt(var2[{t}] + ln_eps)"] = mu, var, s
        for j in range(4):
            Q[f"H0[{t},{j}]"] = F["x0"][t][j]
            Q[f"LN1[{t},{j}]"] = F["a"][t][j]
            Q[f"Q[{t},{j}]"], Q[f"K[{t},{j}]"], Q[f"V[{t},{j}]"] = F["q"][t][j], F["k"][t][j], F["v"][t][j]
            Q[f"Attn_heads[{t},{j}]"] = F["o"][t][j]
            Q[f"Attn[{t},{j}]"] = F["att"][t][j]
            Q[f"H1[{t},{j}]"] = F["x1"][t][j]
            Q[f"LN2[{t},{j}]"] = F["m"][t][j]
            Q[f"F[{t},{j}]"] = F["f"][t][j]
            Q[f"H2[{t},{j}]"] = F["x2"][t][j]
        for kk in range(8):
            Q[f"Z[{t},{kk}]"], Q[f"R[{t},{kk}]"] = F["u"][t][kk], F["g"][t][kk]
    mu, var, s, n = F["lnf"][-1]
    Q["mu_f[2]"], Q["var_f[2]"], Q["sqrt(var_f[2] + ln_eps)"] = mu, var, s
    for (h, t, s_), val in F["S"].items():
        Q[f"S[{h},{t},{s_}]"] = val
        Q[f"S[{h},{t},{s_}]*sqrt(2)"] = F["dots"][h, t, s_]
        Q[f"exp(S[{h},{t},{s_}])"] = mp.exp(val)
        Q[f"A[{h},{t},{s_}]"] = F["A"][h, t, s_]
    for (h, t), val in F["den"].items():
        Q[f"A_den[{h},{t}]"] = val
    for j in range(4):
        Q[f"h_final[{j}]"] = F["hf"][j]
        Q[f"grad_h_final[{j}]"] = B["dhf"][j]
        Q[f"grad_H2[2,{j}]"] = B["dx2"][j]
        Q[f"grad_b_O[{j}]"] = B["dbO"][j]
        Q[f"grad_E[{tok},{j}]"] = B["dE_t"][j]
        Q[f"sgd[1].E[{tok},{j}]"] = P["E"][tgt][j] - lr * B["dE_t"][j]
    for w, name in enumerate(vocab):
        Q[f"logits[{name}]"] = F["z"][w]
        Q[f"exp(logits[{name}])"] = mp.exp(F["z"][w])
        Q[f"p[{name}]"] = F["p"][w]
        Q[f"grad_logits[{name}]"] = B["dz"][w]
    Q["sum_exp"], Q["loss"] = F["sum_exp"], F["loss"]
    return Q


def main() -> int:
    values = quantities()
    doc = (HERE / "DOC.rst").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        text = doc[line - 1].replace("{,}", ",") if 1 <= line <= len(doc) else ""
        on_line = printed in text                       # LaTeX's 0{,}25 is read as 0,25
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        pct = shown.endswith("%")
        v = values[ref] * (100 if pct else 1)
        body = shown.rstrip("%").rstrip().replace("−", "-").replace(",", ".")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places)
        if "," in shown:                                # Czech decimal comma
            right = right.replace(".", ",")
        if "−" in shown:
            right = right.replace("-", "−")
        if pct:
            right += " %" if shown.rstrip("%").endswith(" ") else "%"
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-").replace(",", "."))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            ok = right == printed and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
            correct += 1
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if (planted, correct) != (8, 10):
        print(f"expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
