#!/usr/bin/env python3
"""Independent oracle for sw-txt-gpt2-2head-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row's quantity with its exact value, checked against the key
    python oracle.py --dump   # every quantity the document prints, with roundings

GPT-2 block (pre-LN), one layer, two heads (d_k = 2), tied head:
H0 = E[ids] + W_pe; LN1 = LN(H0; gamma1, beta1); Q, K, V = LN1·W + b; per head h (columns 2h, 2h+1)
S[h,t,s] = q·k/√2, causal softmax A; Attn_heads = A·V (heads side by side); Attn = Attn_heads·W_O + b_O;
H1 = H0 + Attn; LN2 = LN(H1; gamma2, beta2); Z = LN2·W_1 + b_1; R = gelu_tanh(Z); F = R·W_2 + b_2;
H2 = H1 + F; LN_f = LN(H2; gamma_f, beta_f); logits = LN_f[T-1]·Eᵀ; p = softmax; loss = -ln p[target].
LayerNorm with biased variance and eps = 1e-5. Sampling: p at temperature T, top-k renormalised,
top-p cumulative sums in ranking order, inverse-CDF cumulative sums in id order.
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def num(x):
    return mp.mpf(str(x))


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matvec(x, W):  # row vector x times matrix W
    return [mp.fsum(x[i] * W[i][j] for i in range(len(x))) for j in range(len(W[0]))]


def layernorm(h, g, b, eps):
    n = len(h)
    mu = mp.fsum(h) / n
    var = mp.fsum((x - mu) ** 2 for x in h) / n
    sd = mp.sqrt(var + eps)
    return mu, var, [g[j] * (h[j] - mu) / sd + b[j] for j in range(n)]


def gelu_tanh(z):
    c = mp.sqrt(2 / mp.pi)
    return z / 2 * (1 + mp.tanh(c * (z + mp.mpf("0.044715") * z ** 3)))


def compute():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d, H = spec["model"]["d"], spec["model"]["heads"]
    dk = d // H
    eps = num(spec["model"]["ln_eps"])
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    w = spec["weights"]
    L = spec["layer"][0]
    E, Wpe = M(w["E"]), M(w["W_pe"])
    gf, bf = M(w["gamma_f"]), M(w["beta_f"])
    P = {k: M(v) for k, v in L.items()}
    q = {}
    H0 = [[E[ids[t]][j] + Wpe[t][j] for j in range(d)] for t in range(T)]
    LN1 = []
    for t in range(T):
        mu, var, y = layernorm(H0[t], P["gamma1"], P["beta1"], eps)
        q[f"mu1[{t}]"], q[f"var1[{t}]"] = mu, var
        LN1.append(y)
    Q = [[a + b for a, b in zip(matvec(LN1[t], P["W_Q"]), P["b_Q"])] for t in range(T)]
    K = [[a + b for a, b in zip(matvec(LN1[t], P["W_K"]), P["b_K"])] for t in range(T)]
    V = [[a + b for a, b in zip(matvec(LN1[t], P["W_V"]), P["b_V"])] for t in range(T)]
    heads_out = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            S = [mp.fsum(Q[t][c] * K[s][c] for c in cols) / mp.sqrt(dk) for s in range(T)]
            ex = [mp.exp(S[s]) for s in range(t + 1)]
            den = mp.fsum(ex)
            A = [e / den for e in ex] + [mp.mpf(0)] * (T - t - 1)
            for s in range(T):
                q[f"S[{h},{t},{s}]"] = S[s]
                q[f"A[{h},{t},{s}]"] = A[s]
            q[f"A_den[{h},{t}]"] = den
            for c in cols:
                heads_out[t][c] = mp.fsum(A[s] * V[s][c] for s in range(T))
    Attn = [[a + b for a, b in zip(matvec(heads_out[t], P["W_O"]), P["b_O"])] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    LN2 = []
    for t in range(T):
        mu, var, y = layernorm(H1[t], P["gamma2"], P["beta2"], eps)
        q[f"mu2[{t}]"], q[f"var2[{t}]"] = mu, var
        LN2.append(y)
    Z = [[a + b for a, b in zip(matvec(LN2[t], P["W_1"]), P["b_1"])] for t in range(T)]
    R = [[gelu_tanh(z) for z in Z[t]] for t in range(T)]
    F = [[a + b for a, b in zip(matvec(R[t], P["W_2"]), P["b_2"])] for t in range(T)]
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    LNf = []
    for t in range(T):
        mu, var, y = layernorm(H2[t], gf, bf, eps)
        q[f"mu_f[{t}]"], q[f"var_f[{t}]"] = mu, var
        LNf.append(y)
    hf = LNf[T - 1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    for name, arr in (("H0", H0), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Attn_heads", heads_out),
                      ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("Z", Z), ("R", R), ("F", F), ("H2", H2),
                      ("LN_f", LNf)):
        for t in range(T):
            for j in range(len(arr[t])):
                q[f"{name}[{t},{j}]"] = arr[t][j]
    for j in range(d):
        q[f"h_final[{j}]"] = hf[j]
    for v, tok in enumerate(vocab):
        q[f"logits[{tok}]"] = logits[v]
        q[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        q[f"p[{tok}]"] = p[v]
    q["sum_exp"] = se
    q["loss"] = -mp.log(p[tgt])
    # sampling
    samp = spec["sampling"]
    for Tt in samp["temperatures"]:
        tv = num(Tt)
        ex = [mp.exp(z / tv) for z in logits]
        s = mp.fsum(ex)
        for v, tok in enumerate(vocab):
            q[f"softmax_T({Tt}, {tok})"] = ex[v] / s
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    k = samp["top_k"]
    mass = mp.fsum(p[v] for v in order[:k])
    for v in order[:k]:
        q[f"topk({k}, {vocab[v]})"] = p[v] / mass
    acc = []
    for i in range(len(order)):
        acc.append(order[i])
        q[" + ".join(f"p[{vocab[v]}]" for v in acc)] = mp.fsum(p[v] for v in acc)
    topp = num(samp["top_p"])
    n_keep = next(i + 1 for i in range(len(order)) if mp.fsum(p[v] for v in order[: i + 1]) >= topp)
    pm = mp.fsum(p[v] for v in order[:n_keep])
    for v in order[:n_keep]:
        q[f"topp({samp['top_p']}, {vocab[v]})"] = p[v] / pm
    for i in range(1, len(vocab) + 1):  # cumulative in id order
        q[" + ".join(f"p[{vocab[v]}]" for v in range(i))] = mp.fsum(p[v] for v in range(i))
    u = num(samp["uniform"])
    cum = mp.mpf(0)
    for v in range(len(vocab)):
        cum += p[v]
        if cum > u:
            drawn = vocab[v]
            break
    info = dict(vocab=vocab, order=[vocab[v] for v in order], n_keep=n_keep, drawn=drawn,
                greedy=vocab[order[0]])
    return q, info


def key_rows():
    rows = []
    text = (HERE / "KEY.md").read_text(encoding="utf-8")
    sec = None
    for line in text.splitlines():
        if line.startswith("## "):
            sec = line
            continue
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((sec, cells))
    return rows


def strip_ticks(s):
    return s.strip().strip("`")


def main():
    q, info = compute()
    if "--dump" in sys.argv:
        for k, v in q.items():
            print(f"{k:40s} {mp.nstr(v, 15):>22s}  {rnd(v, 3)}  {rnd(v, 4)}")
        print(info)
        return
    fails = 0
    n = 0
    for sec, cells in key_rows():
        planted = "Planted" in sec
        qty = strip_ticks(cells[-1])
        # alternatives "`a` or `b`": take the first
        qty = strip_ticks(qty.split("` or `")[0])
        if qty not in q:
            print("UNKNOWN QUANTITY", qty)
            fails += 1
            continue
        val = q[qty]
        printed = strip_ticks(cells[0])
        n += 1
        if planted:
            exact_txt = cells[3].rstrip("…").strip()
            correct = strip_ticks(cells[4])
            pct = correct.endswith("%")
            v = val * 100 if pct else val
            digits = len(correct.rstrip("%").split(".")[1]) if "." in correct else 0
            want = rnd(v, digits) + ("%" if pct else "")
            ok_round = want == correct
            ok_exact = mp.nstr(v, 40, strip_zeros=False).startswith(exact_txt) or \
                abs(v - mp.mpf(exact_txt)) < mp.mpf(10) ** (-(len(exact_txt.split(".")[1]) - 1))
            pv = printed.rstrip("%")
            ok_wrong = rnd(v, len(pv.split(".")[1]) if "." in pv else 0) != pv
            status = "ok" if (ok_round and ok_exact and ok_wrong) else "FAIL"
            if status != "ok":
                fails += 1
            print(f"[planted] {qty:32s} {mp.nstr(v, 20):>26s}  correct {want:>9s} (key {correct}), printed {printed}: {status}")
        else:
            pct = printed.endswith("%")
            v = val * 100 if pct else val
            pv = printed.rstrip("%")
            digits = len(pv.split(".")[1]) if "." in pv else 0
            want = rnd(v, digits)
            status = "ok" if want == pv else "FAIL"
            if status != "ok":
                fails += 1
            print(f"[correct] {qty:32s} {mp.nstr(v, 20):>26s}  rounds to {want:>9s}, printed {printed}: {status}")
    print(f"{n} rows checked, {fails} failures")
    assert fails == 0, f"{fails} key rows disagree with the oracle"
    assert info["greedy"] == "leo" and info["drawn"] == "anapika" and info["n_keep"] == 4, info


if __name__ == "__main__":
    main()
