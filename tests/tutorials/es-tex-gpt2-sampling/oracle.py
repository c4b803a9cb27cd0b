#!/usr/bin/env python3
"""Independent oracle for es-tex-gpt2-sampling: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # every KEY.md row: its value, rounding, and that the printed text
                               # stands on the stated line of DOC.tex
    python3 oracle.py --all    # also every quantity and intermediate figure of the tutorial

Model (GPT-2 block, one layer, two heads, tied head), written out from the usual definitions:
X = E[ids], PE = W_pe[0..T-1], H0 = X + PE; LN1 = LayerNorm(H0) (biased variance, eps);
Q, K, V = LN1·W + b (head h owns columns 2h, 2h+1); S_h = Q_h K_hᵀ/√d_k; causal softmax A_h;
heads = A_h V_h side by side; Attn = heads·W_O + b_O; H1 = H0 + Attn; LN2 = LayerNorm(H1);
Z = LN2·W_1 + b_1; R = gelu_tanh(Z); F = R·W_2 + b_2; H2 = H1 + F; LN_f = LayerNorm(H2);
logits = LN_f[T-1]·Eᵀ; p = softmax; loss = −ln p[target].
Sampling: softmax(logits/τ); top-k keeps the k most probable tokens and renormalises; top-p keeps
the shortest prefix of the ranking with mass ≥ P and renormalises; greedy = argmax.
Rounding is half away from zero, on the 45-digit decimal of the value.
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


def num(v):
    return mp.mpf(str(v))


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0." + "0" * n if n and s == "-0." + "0" * n else s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addrow(A, b):
    return [[a + c for a, c in zip(r, b)] for r in A]


def layernorm(H, gamma, beta, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[gamma[j] * (r[j] - m) / mp.sqrt(v + eps) + beta[j] for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu_tanh(x):
    c = mp.sqrt(2 / mp.pi)
    return x / 2 * (1 + mp.tanh(c * (x + mp.mpf("0.044715") * x ** 3)))


def model(spec):
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    d, H = m["d"], m["heads"]
    dk = d // H
    eps = num(m["ln_eps"])
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    E, Wpe = M(w["E"]), M(w["W_pe"])
    one, zero = [mp.mpf(1)] * d, [mp.mpf(0)] * d
    g1, be1 = M(L.get("gamma1", one)), M(L.get("beta1", zero))
    g2, be2 = M(L.get("gamma2", one)), M(L.get("beta2", zero))
    gf, bef = M(w.get("gamma_f", one)), M(w.get("beta_f", zero))
    X = [E[i][:] for i in ids]
    PE = [Wpe[t][:] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, g1, be1, eps)
    Q = addrow(matmul(LN1, M(L["W_Q"])), M(L["b_Q"]))
    K = addrow(matmul(LN1, M(L["W_K"])), M(L["b_K"]))
    V = addrow(matmul(LN1, M(L["W_V"])), M(L["b_V"]))
    S, A, A_den = [], [], []
    heads = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[mp.fsum(Q[t][j] * K[s][j] for j in cols) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
        den = [mp.fsum(mp.exp(Sh[t][s]) for s in range(t + 1)) for t in range(T)]
        Ah = [[mp.exp(Sh[t][s]) / den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        for t in range(T):
            for j in cols:
                heads[t][j] = mp.fsum(Ah[t][s] * V[s][j] for s in range(T))
        S.append(Sh)
        A.append(Ah)
        A_den.append(den)
    Attn = addrow(matmul(heads, M(L["W_O"])), M(L["b_O"]))
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, g2, be2, eps)
    Z = addrow(matmul(LN2, M(L["W_1"])), M(L["b_1"]))
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = addrow(matmul(R, M(L["W_2"])), M(L["b_2"]))
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    muf, varf, LNf = layernorm(H2, gf, bef, eps)
    hf = LNf[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(vocab=vocab, ids=ids, tgt=tgt, X=X, PE=PE, H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V,
                S=S, A_den=A_den, A=A, Attn_heads=heads, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R,
                F=F, H2=H2, mu_f=muf, var_f=varf, LN_f=LNf, h_final=hf, logits=logits, sum_exp=sum_exp, p=p,
                loss=-mp.log(p[tgt]), eps=eps)


def sampling(f, spec):
    s = spec.get("sampling", {})
    z, p, V = f["logits"], f["p"], len(f["p"])
    temp = {}
    for tau in s.get("temperatures", [0.5, 1, 2]):
        tau = num(tau)
        den = mp.fsum(mp.exp(v / tau) for v in z)
        temp[tau] = ([mp.exp(v / tau) for v in z], den, [mp.exp(v / tau) / den for v in z])
    order = sorted(range(V), key=lambda v: (-p[v], v))
    k = s.get("top_k", 3)
    kept = order[:k]
    mass_k = mp.fsum(p[v] for v in kept)
    topk = [p[v] / mass_k if v in kept else mp.mpf(0) for v in range(V)]
    P = num(s.get("top_p", 0.9))
    cum, nucleus = mp.mpf(0), []
    for v in order:
        nucleus.append(v)
        cum += p[v]
        if cum >= P:
            break
    mass_p = mp.fsum(p[v] for v in nucleus)
    topp = [p[v] / mass_p if v in nucleus else mp.mpf(0) for v in range(V)]
    return dict(temp=temp, order=order, k=k, kept=kept, mass_k=mass_k, topk=topk, P=P, nucleus=nucleus,
                mass_p=mass_p, topp=topp, greedy=order[0])


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    f = model(spec)
    return spec, f, sampling(f, spec)


def values():
    """Every quantity the key may name, by symgpt's reference names (0-based indices, tokens by name)."""
    spec, f, s = load()
    voc, out = f["vocab"], {}
    for name in ("X", "PE", "H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2",
                 "LN_f"):
        for t, r in enumerate(f[name]):
            for j, x in enumerate(r):
                out[f"{name}[{t},{j}]"] = x
    for name in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f", "h_final"):
        for t, x in enumerate(f[name]):
            out[f"{name}[{t}]"] = x
    for h in range(len(f["S"])):
        for t in range(len(f["S"][h])):
            out[f"A_den[{h},{t}]"] = f["A_den"][h][t]
            for u in range(len(f["S"][h])):
                out[f"S[{h},{t},{u}]"] = f["S"][h][t][u]
                out[f"A[{h},{t},{u}]"] = f["A"][h][t][u]
        t = len(f["S"][h]) - 1
        out[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + f["eps"])
    for v, tok in enumerate(voc):
        out[f"logits[{tok}]"] = f["logits"][v]
        out[f"p[{tok}]"] = f["p"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(f["logits"][v])
        for tau, (num_, den, q) in s["temp"].items():
            ts = mp.nstr(tau, 5)
            ts = ts[:-2] if ts.endswith(".0") else ts
            out[f"softmax_T({ts}, {tok})"] = q[v]
        out[f"topk({s['k']}, {tok})"] = s["topk"][v]
        out[f"topp({mp.nstr(s['P'], 5)}, {tok})"] = s["topp"][v]
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    out["argmax()"] = mp.mpf(s["greedy"])
    # the intermediate figures the tutorial prints on the way
    T = len(f["S"][0])
    for h in range(len(f["S"])):
        for u in range(T):
            out[f"exp(S[{h},{T - 1},{u}])"] = mp.exp(f["S"][h][T - 1][u])
    out[f"S[0,{T - 1},0]*sqrt(2)"] = f["S"][0][T - 1][0] * mp.sqrt(2)
    for name, var in (("var2", "var2"), ("var_f", "var_f")):
        out[f"sqrt({name}[{T - 1}] + ln_eps)"] = mp.sqrt(f[var][T - 1] + f["eps"])
    for j in range(len(f["H1"][0])):
        out[f"H1[{T - 1},{j}] - mu2[{T - 1}]"] = f["H1"][T - 1][j] - f["mu2"][T - 1]
    out[f"var(H1[{T - 1},:]) * 4/3"] = f["var2"][T - 1] * 4 / 3          # the unbiased variance
    for k, z in enumerate(f["Z"][T - 1]):
        u = mp.sqrt(2 / mp.pi) * (z + mp.mpf("0.044715") * z ** 3)
        out[f"gelu_u(Z[{T - 1},{k}])"], out[f"tanh(gelu_u(Z[{T - 1},{k}]))"] = u, mp.tanh(u)
    for tau, (num_, den, q) in s["temp"].items():
        ts = mp.nstr(tau, 5)
        out[f"sum_exp_T({ts[:-2] if ts.endswith('.0') else ts})"] = den
        for v, tok in enumerate(voc):
            out[f"exp(logits[{tok}]/{ts[:-2] if ts.endswith('.0') else ts})"] = num_[v]
    out["topk_mass"], out["topp_mass"] = s["mass_k"], s["mass_p"]
    for i, v in enumerate(s["order"]):
        out[f"cumulative_p[{i + 1}] ({voc[v]})"] = mp.fsum(f["p"][u] for u in s["order"][:i + 1])
    out["ln(6)"], out["sqrt(2/pi)"], out["sqrt(2)"] = mp.log(6), mp.sqrt(2 / mp.pi), mp.sqrt(2)
    return out


def doc_line(text: str) -> str:
    r"""A line of DOC.tex as read: 0{,}5 is 0,5; a thin space and \% before a percent sign dropped."""
    return text.replace("{,}", ",").replace("\\,\\%", "%").replace("\\%", "%")


def as_dot(printed: str) -> str:
    return printed.replace(",", ".")


def check_key() -> int:
    vals = values()
    doc = (HERE / "DOC.tex").read_text(encoding="utf-8").split("\n")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = as_dot(cells[4].strip("`") if len(cells) == 7 else printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(doc) and printed in doc_line(doc[line - 1])
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != as_dot(printed)
                  and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            ok = right == as_dot(printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
            correct += 1
        if not on_line:
            note += f" (text not on line {line})"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if (planted, correct) != (8, 10):
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--all" in sys.argv:                        # every figure the tutorial can print, 20 digits
        for k, v in values().items():
            print(f"{k:<36} {mp.nstr(v, 20)}")
    sys.exit(check_key())
