#!/usr/bin/env python3
"""Independent oracle for es-html-nanogpt-T4-topk: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every quantity named in KEY.md, its exact value, and a check of the key's
                         # "exact value" / "correct rounding" columns and of the printed text's line in DOC.html

The model is nanoGPT's Block with one layer and one head (pre-LN, biases, learned positions, exact-erf
GELU, final LayerNorm, LM head tied to wte), read from SPEC.toml:

    x   = wte[idx] + wpe[:T]                         (H0)
    ln1 = LN(x)                                      (LN1; mean mu1, biased variance var1, eps 1e-5)
    q, k, v = ln1 W_Q + b_Q, ln1 W_K + b_K, ln1 W_V + b_V
    att = softmax(mask(q kᵀ / √d))                   (S before the mask, A after the softmax)
    y   = (att v) W_O + b_O                          (Attn_heads, Attn)
    x2  = x + y                                      (H1)
    h   = LN(x2) W_1 + b_1, GELU(h) = h Φ(h)         (LN2, Z, R)
    x3  = x2 + GELU(h) W_2 + b_2                     (F, H2)
    lnf = LN(x3)[T-1]                                (h_final)
    logits = lnf · wteᵀ, probs = softmax, loss = -ln probs[target]
    softmax_T(T, v) = softmax(logits / T)[v];  topk(k, v) = probs[v] / Σ_{top k} probs

Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import html
import re
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
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(A, b):
    return [[a + c for a, c in zip(r, b)] for r in A]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def gelu(z):
    return z * (1 + mp.erf(z / mp.sqrt(2))) / 2


def softmax(z):
    s = mp.fsum(mp.exp(v) for v in z)
    return [mp.exp(v) / s for v in z], s


def compute():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = num(spec["model"]["ln_eps"])
    E, Wpe = M(spec["weights"]["E"]), M(spec["weights"]["W_pe"])
    L = spec["layer"][0]
    WQ, WK, WV, WO, W1, W2 = (M(L[n]) for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"))
    bQ, bK, bV, bO, b1, b2 = (M(L[n]) for n in ("b_Q", "b_K", "b_V", "b_O", "b_1", "b_2"))
    T, d = len(ids), len(E[0])
    X = [E[i][:] for i in ids]
    PE = [Wpe[t][:] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, eps)
    Q, K, V = addb(matmul(LN1, WQ), bQ), addb(matmul(LN1, WK), bK), addb(matmul(LN1, WV), bV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn_heads = matmul(A, V)
    Attn = addb(matmul(Attn_heads, WO), bO)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, eps)
    Z = addb(matmul(LN2, W1), b1)
    R = [[gelu(z) for z in r] for r in Z]
    F = addb(matmul(R, W2), b2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, eps)
    h_final = LN_f[-1]
    logits = [mp.fsum(h_final[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    p, sum_exp = softmax(logits)
    loss = -mp.log(p[tgt])
    out = dict(vocab=vocab, ids=ids, tgt=tgt, eps=eps, E=E, W_pe=Wpe, W_Q=WQ, W_K=WK, W_V=WV, W_O=WO, W_1=W1,
               W_2=W2, b_Q=bQ, b_K=bK, b_V=bV, b_O=bO, b_1=b1, b_2=b2, X=X, PE=PE, H0=H0, mu1=mu1, var1=var1,
               LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Attn_heads, Attn=Attn, H1=H1, mu2=mu2,
               var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=mu_f, var_f=var_f, LN_f=LN_f, h_final=h_final,
               logits=logits, sum_exp=sum_exp, p=p, loss=loss)
    # sampling
    temps = {}
    for Tm in (mp.mpf("0.8"),):
        pt, st = softmax([z / Tm for z in logits])
        temps[Tm] = (pt, st)
    out["pT08"], out["sumT08"] = temps[mp.mpf("0.8")]
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    top = order[:2]
    mass = mp.fsum(p[v] for v in top)
    out["top2"], out["top2_mass"] = top, mass
    out["topk2"] = [p[v] / mass if v in top else mp.mpf(0) for v in range(len(vocab))]
    out["argmax"] = order[0]
    return out


def values(o):
    """Every quantity by its symgpt reference name (the names KEY.md uses)."""
    vocab = o["vocab"]
    vals = {}
    for name in ("X", "PE", "H0", "LN1", "Q", "K", "V", "S", "A", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F",
                 "H2", "LN_f", "E", "W_pe", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"):
        for i, r in enumerate(o[name]):
            for j, v in enumerate(r):
                vals[f"{name}[{i},{j}]"] = v
    for name in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f", "A_den", "h_final", "b_Q", "b_K", "b_V", "b_O",
                 "b_1", "b_2"):
        for i, v in enumerate(o[name]):
            vals[f"{name}[{i}]"] = v
    for v, w in enumerate(vocab):
        vals[f"logits[{w}]"] = o["logits"][v]
        vals[f"p[{w}]"] = o["p"][v]
        vals[f"exp(logits[{w}])"] = mp.exp(o["logits"][v])
        vals[f"softmax_T(0.8, {w})"] = o["pT08"][v]
        vals[f"topk(2, {w})"] = o["topk2"][v]
    for t in range(4):
        vals[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(o["var1"][t] + o["eps"])
        vals[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(o["var2"][t] + o["eps"])
        vals[f"sqrt(var_f[{t}] + ln_eps)"] = mp.sqrt(o["var_f"][t] + o["eps"])
        for s in range(4):
            vals[f"exp(S[{t},{s}])"] = mp.exp(o["S"][t][s])
    vals["sum_exp"], vals["loss"] = o["sum_exp"], o["loss"]
    # the other figures the notebook prints (no reference name of their own)
    T8 = mp.mpf("0.8")
    for v, w in enumerate(vocab):
        vals[f"logits[{w}]/0.8"] = o["logits"][v] / T8
    vals["sum(exp(logits/0.8))"] = o["sumT08"]
    vals["p[y] + p[pescado]"] = o["top2_mass"]
    vals["dot(Q[3,:], K[0,:])"] = o["S"][3][0] * 2
    vals["Z[3,0]/sqrt(2)"] = o["Z"][3][0] / mp.sqrt(2)
    vals["erf(Z[3,0]/sqrt(2))"] = mp.erf(o["Z"][3][0] / mp.sqrt(2))
    vals["ln 6"] = mp.log(6)
    vals["argmax()"] = o["argmax"]
    return vals


def main() -> int:
    o = compute()
    vals = values(o)
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = vals[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if pct else "")
        text = html.unescape(doc[line - 1]) if 0 < line <= len(doc) else ""
        on_line = printed in text
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            ok = right == printed and on_line
            note = "correct" if ok else ("NOT THE CORRECT ROUNDING" if on_line else "NOT ON ITS LINE")
            correct += 1
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
