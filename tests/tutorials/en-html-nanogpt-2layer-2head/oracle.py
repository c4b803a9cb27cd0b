#!/usr/bin/env python3
"""Independent mpmath computation behind KEY.md for DOC.html (no symgpt).

    python3 oracle.py      # every KEY.md row: its quantity's value, its rounding, and the line check

Model (nanoGPT's GPT with bias=True, read from SPEC.toml): pre-LN blocks, learned positions,
two heads of width 2, exact-erf GELU, final LayerNorm, tied head; LayerNorm gains 1 and shifts 0
(the spec gives none), eps = model.ln_eps, biased variance.

    H0 = E[ids] + W_pe[t]
    per layer:  a = LN(H);  Q, K, V = a W + b;  S[h,t,s] = q_h(t)·k_h(s)/√2 (before the mask);
                A = causal softmax of S;  Attn_heads[t, cols of h] = Σ_s A[h,t,s] v_h(s);
                Attn = Attn_heads W_O + b_O;  H1 = H + Attn;  m = LN(H1);  Z = m W_1 + b_1;
                R = Z·Φ(Z);  F = R W_2 + b_2;  H2 = H1 + F
    LN_f = LN(last H2);  logits[v] = LN_f[T-1]·E[v];  p = softmax;  loss = −ln p[target]

Gradients: central differences of the loss at 50 digits with h = 1e-18 (error ~1e-34), on every
trainable parameter (E, W_pe, each layer's W_Q, b_Q, W_K, b_K, W_V, b_V, W_O, b_O, W_1, b_1, W_2,
b_2; the LayerNorm gains and shifts are not trained). One SGD step θ − lr·g, then a new forward
pass gives the loss after the step. The logits' gradient p − y is computed in closed form.
Rounding: half away from zero on a 45-digit decimal of the value.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
TOK = {w: i for i, w in enumerate(VOCAB)}
IDS = [TOK[w] for w in SPEC["data"]["input"]]
TGT = TOK[SPEC["data"]["target"]]
D, NH, DFF = SPEC["model"]["d"], SPEC["model"]["heads"], SPEC["model"]["d_ff"]
DK = D // NH
EPS = mp.mpf(str(SPEC["model"]["ln_eps"]))
LR = mp.mpf(str(SPEC["training"]["lr"]))
T = len(IDS)


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


PARAMS0 = {"E": M(SPEC["weights"]["E"]), "W_pe": M(SPEC["weights"]["W_pe"])}
for li, L in enumerate(SPEC["layer"]):
    for k in ("W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"):
        PARAMS0[f"l{li}.{k}"] = M(L[k])
NL = len(SPEC["layer"])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def affine(rows, W, b):
    return [[mp.fsum(r[i] * W[i][j] for i in range(len(W))) + b[j] for j in range(len(W[0]))] for r in rows]


def layernorm(H):
    mu = [mp.fsum(r) / len(r) for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / len(r) for r, m in zip(H, mu)]
    out = [[(x - m) / mp.sqrt(v + EPS) for x in r] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu(z):
    return z * (1 + mp.erf(z / mp.sqrt(2))) / 2


def forward(P):
    f = {}
    X = [P["E"][i][:] for i in IDS]
    H = [[X[t][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    f["H0"] = H
    for l in range(NL):
        g = lambda k: P[f"l{l}.{k}"]
        mu1, var1, a = layernorm(H)
        Q, K, V = affine(a, g("W_Q"), g("b_Q")), affine(a, g("W_K"), g("b_K")), affine(a, g("W_V"), g("b_V"))
        S = [[[mp.fsum(Q[t][h * DK + c] * K[s][h * DK + c] for c in range(DK)) / mp.sqrt(DK) for s in range(T)]
              for t in range(T)] for h in range(NH)]
        den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(NH)]
        A = [[[mp.exp(S[h][t][s]) / den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
             for h in range(NH)]
        Y = [[mp.fsum(A[j // DK][t][s] * V[s][j] for s in range(T)) for j in range(D)] for t in range(T)]
        Attn = affine(Y, g("W_O"), g("b_O"))
        H1 = [[H[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
        mu2, var2, m = layernorm(H1)
        Z = affine(m, g("W_1"), g("b_1"))
        R = [[gelu(z) for z in r] for r in Z]
        F = affine(R, g("W_2"), g("b_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
        f.update({f"l{l}.{k}": v for k, v in dict(mu1=mu1, var1=var1, LN1=a, Q=Q, K=K, V=V, S=S, A_den=den, A=A,
                                                  Attn_heads=Y, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=m,
                                                  Z=Z, R=R, F=F, H2=H2).items()})
        H = H2
    mu_f, var_f, lnf = layernorm(H)
    hf = lnf[T - 1]
    logits = [mp.fsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    f.update(mu_f=mu_f, var_f=var_f, LN_f=lnf, h_final=hf, logits=logits, sum_exp=se, p=p, loss=-mp.log(p[TGT]))
    return f


def entries(P):
    for name, val in P.items():
        if isinstance(val[0], list):
            for i in range(len(val)):
                for j in range(len(val[0])):
                    yield name, (i, j)
        else:
            for i in range(len(val)):
                yield name, (i,)


def moved(P, name, idx, delta):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


def gradient(P):
    h = mp.mpf("1e-18")
    G = {k: ([[mp.mpf(0)] * len(v[0]) for _ in v] if isinstance(v[0], list) else [mp.mpf(0)] * len(v))
         for k, v in P.items()}
    for name, idx in entries(P):
        g = (forward(moved(P, name, idx, h))["loss"] - forward(moved(P, name, idx, -h))["loss"]) / (2 * h)
        if len(idx) == 2:
            G[name][idx[0]][idx[1]] = g
        else:
            G[name][idx[0]] = g
    return G


def sgd_step(P, G):
    return {k: ([[P[k][i][j] - LR * G[k][i][j] for j in range(len(P[k][0]))] for i in range(len(P[k]))]
                if isinstance(P[k][0], list) else [P[k][i] - LR * G[k][i] for i in range(len(P[k]))]) for k in P}


def values():
    """Every quantity the key names, by symgpt's reference names."""
    f = forward(PARAMS0)
    G = gradient(PARAMS0)
    P1 = sgd_step(PARAMS0, G)
    f1 = forward(P1)
    v: dict[str, object] = {}
    tok = lambda i: VOCAB[i]
    for t in range(T):
        for j in range(D):
            v[f"H0[{t},{j}]"] = f["H0"][t][j]
            v[f"PE[{t},{j}]"] = PARAMS0["W_pe"][t][j]
    for l in range(NL):
        for t in range(T):
            for k in ("mu1", "var1", "mu2", "var2"):
                v[f"l{l}.{k}[{t}]"] = f[f"l{l}.{k}"][t]
            for j in range(D):
                for k in ("LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "F", "H2"):
                    v[f"l{l}.{k}[{t},{j}]"] = f[f"l{l}.{k}"][t][j]
            for k in range(DFF):
                v[f"l{l}.Z[{t},{k}]"] = f[f"l{l}.Z"][t][k]
                v[f"l{l}.R[{t},{k}]"] = f[f"l{l}.R"][t][k]
            for h in range(NH):
                v[f"l{l}.A_den[{h},{t}]"] = f[f"l{l}.A_den"][h][t]
                for s in range(T):
                    v[f"l{l}.S[{h},{t},{s}]"] = f[f"l{l}.S"][h][t][s]
                    v[f"l{l}.A[{h},{t},{s}]"] = f[f"l{l}.A"][h][t][s]
                    v[f"l{l}.S[{h},{t},{s}]*sqrt(2)"] = f[f"l{l}.S"][h][t][s] * mp.sqrt(2)
    for t in range(T):
        v[f"mu_f[{t}]"], v[f"var_f[{t}]"] = f["mu_f"][t], f["var_f"][t]
        for j in range(D):
            v[f"LN_f[{t},{j}]"] = f["LN_f"][t][j]
    for j in range(D):
        v[f"h_final[{j}]"] = f["h_final"][j]
    for i, w in enumerate(VOCAB):
        v[f"logits[{w}]"], v[f"p[{w}]"] = f["logits"][i], f["p"][i]
        v[f"exp(logits[{w}])"] = mp.exp(f["logits"][i])
        v[f"grad_logits[{w}]"] = f["p"][i] - (1 if i == TGT else 0)
        v[f"sgd[1].p[{w}]"] = f1["p"][i]
    v["sum_exp"], v["loss"], v["sgd[1].loss"] = f["sum_exp"], f["loss"], f1["loss"]
    v["log(5)"] = mp.log(len(VOCAB))
    # the page's side figures: LayerNorm denominators and squared deviations, Φ of a GELU input,
    # the head part of the tied embedding's gradient, a central difference with h = 1e-4
    for l in range(NL):
        for t in range(T):
            for k in ("1", "2"):
                v[f"sqrt(l{l}.var{k}[{t}] + ln_eps)"] = mp.sqrt(f[f"l{l}.var{k}"][t] + EPS)
                v[f"l{l}.var{k}[{t}] + ln_eps"] = f[f"l{l}.var{k}"][t] + EPS
            for j in range(D):
                v[f"(l{l}.H1[{t},{j}] - l{l}.mu2[{t}])^2"] = (f[f"l{l}.H1"][t][j] - f[f"l{l}.mu2"][t]) ** 2
                v[f"(l{l}.H0[{t},{j}] - l{l}.mu1[{t}])^2"] = ((f["H0"] if l == 0 else f[f"l{l - 1}.H2"])[t][j]
                                                           - f[f"l{l}.mu1"][t]) ** 2
            for k in range(DFF):
                v[f"(1 + erf(l{l}.Z[{t},{k}]/sqrt(2)))/2"] = (1 + mp.erf(f[f"l{l}.Z"][t][k] / mp.sqrt(2))) / 2
            for h in range(NH):
                for s in range(T):
                    v[f"exp(l{l}.S[{h},{t},{s}])"] = mp.exp(f[f"l{l}.S"][h][t][s])
    for i, w in enumerate(VOCAB):
        for j in range(D):
            v[f"grad_E_head[{w},{j}]"] = (f["p"][i] - (1 if i == TGT else 0)) * f["h_final"][j]
    for t in range(T):
        for j in range(D):
            v[f"grad_X[{t},{j}]"] = G["W_pe"][t][j]          # W_pe[t] feeds position t only
    hh = mp.mpf("1e-4")
    lp = forward(moved(PARAMS0, "l1.b_2", (2,), hh))["loss"]
    lm = forward(moved(PARAMS0, "l1.b_2", (2,), -hh))["loss"]
    v["loss_at(l1.b_2[2], 0.0001)"], v["loss_at(l1.b_2[2], -0.0001)"] = lp, lm
    v["gradcheck(l1.b_2[2], 0.0001)"] = (lp - lm) / (2 * hh)
    for name, idx in entries(PARAMS0):
        if name == "E":
            key = f"E[{tok(idx[0])},{idx[1]}]"
        else:
            key = f"{name}[{','.join(map(str, idx))}]"
        g = G[name][idx[0]][idx[1]] if len(idx) == 2 else G[name][idx[0]]
        new = P1[name][idx[0]][idx[1]] if len(idx) == 2 else P1[name][idx[0]]
        v["grad_" + key] = g
        v["sgd[1]." + key] = new
    return v


def main() -> int:
    vals = values()
    if "--dump" in sys.argv:
        for k, x in vals.items():
            print(f"{k}\t{mp.nstr(x, 20)}")
        return 0
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  no oracle value for {cells[-1]}")
            bad += 1
            continue
        val = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(val, places) + ("%" if shown.endswith("%") else "")
        # the printed figure, with the HTML's &minus; or a Unicode minus read as "-"
        text = doc[line - 1].replace("&minus;", "-").replace("\u2212", "-")
        on_line = printed in text
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - val) <= mp.mpf("1e-10") * abs(val) and right != printed
                  and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(val, 15):<22} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
