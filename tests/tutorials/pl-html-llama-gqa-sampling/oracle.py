#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial pl-html-llama-gqa-sampling (plain mpmath, 50 digits, no symgpt).

    python oracle.py        # every KEY.md row's quantity with its exact value, checked against the key

Model (read from SPEC.toml beside this file with tomllib, every number taken exactly from its text):
one Llama block, pre-norm. X = E[ids]; RMSNorm(h) = γ·h/√(mean(h²) + ε); Q = LN1·W_Q, K = LN1·W_K,
V = LN1·W_V (one kv head shared by both query heads, d_k = 2); RoPE in the rotate_half convention:
within a head, pair (i, i + d_k/2) turned by t·θ_i, θ_i = base^(−2i/d_k) (d_k = 2: θ_0 = 1, angle = t);
S = q̃·k̃/√d_k, causal softmax A; Attn_heads = A·V (heads side by side); Attn = Attn_heads·W_O;
H1 = X + Attn; LN2 = RMSNorm(H1; γ2); Z = LN2·W_1, U = LN2·W_3, R = SiLU(Z)⊙U, F = R·W_2; H2 = H1 + F;
LN_f = RMSNorm(H2; γ_f); h_final = LN_f[T−1]; logits = h_final·W_out; p = softmax; loss = −ln p[target].
Sampling: softmax(logits/T); top-k keeps the k largest p and renormalises; top-p keeps the shortest
prefix of the descending ranking whose mass is ≥ P and renormalises.
Rounding is half away from zero on the 45-digit decimal of the value.
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


def num(x):
    return mp.mpf(str(x))


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, g, eps):
    d = len(H[0])
    ms = [mp.fsum(x * x for x in r) / d for r in H]
    out = [[g[j] * r[j] / mp.sqrt(m + eps) for j in range(d)] for r, m in zip(H, ms)]
    return ms, out


def silu(z):
    return z / (1 + mp.exp(-z))


def softmax(z):
    e = [mp.exp(v) for v in z]
    s = mp.fsum(e)
    return [v / s for v in e]


def compute(spec_path=HERE / "SPEC.toml"):
    spec = tomllib.loads(Path(spec_path).read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    d, H, KVH = m["d"], m["heads"], m["kv_heads"]
    dk = d // H
    eps = num(m["ln_eps"])
    base = num(m.get("rope_theta", 10000))
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    E, Wout, gf = M(w["E"]), M(w["W_out"]), M(w["gamma_f"])
    WQ, WK, WV, WO = M(L["W_Q"]), M(L["W_K"]), M(L["W_V"]), M(L["W_O"])
    W1, W2, W3 = M(L["W_1"]), M(L["W_2"]), M(L["W_3"])
    g1, g2 = M(L["gamma1"]), M(L["gamma2"])

    X = [E[i][:] for i in ids]
    ms1, LN1 = rmsnorm(X, g1, eps)
    Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
    half = dk // 2
    theta = [base ** (-mp.mpf(2 * i) / dk) for i in range(half)]

    def rope(row, t, nheads):
        out = row[:]
        for h in range(nheads):
            o = h * dk
            for i in range(half):
                a, b = row[o + i], row[o + i + half]
                c, s = mp.cos(t * theta[i]), mp.sin(t * theta[i])
                out[o + i] = a * c - b * s
                out[o + i + half] = b * c + a * s
        return out

    Qr = [rope(Q[t], t, H) for t in range(T)]
    Kr = [rope(K[t], t, KVH) for t in range(T)]
    grp = H // KVH
    S, A, A_den = {}, {}, {}
    Attn_heads = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        kv = h // grp
        for t in range(T):
            row = [mp.fsum(Qr[t][h * dk + j] * Kr[s][kv * dk + j] for j in range(dk)) / mp.sqrt(dk)
                   for s in range(T)]
            for s in range(T):
                S[h, t, s] = row[s]
            den = mp.fsum(mp.exp(row[s]) for s in range(t + 1))
            A_den[h, t] = den
            for s in range(T):
                A[h, t, s] = mp.exp(row[s]) / den if s <= t else mp.mpf(0)
            for j in range(dk):
                Attn_heads[t][h * dk + j] = mp.fsum(A[h, t, s] * V[s][kv * dk + j] for s in range(t + 1))
    Attn = matmul(Attn_heads, WO)
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1, g2, eps)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    R = [[silu(z) * u for z, u in zip(rz, ru)] for rz, ru in zip(Z, U)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2, gf, eps)
    hf = LN_f[-1]
    logits = [mp.fsum(hf[j] * Wout[j][v] for j in range(d)) for v in range(len(vocab))]
    ex = [mp.exp(z) for z in logits]
    sum_exp = mp.fsum(ex)
    p = [e / sum_exp for e in ex]
    loss = -mp.log(p[tgt])

    q = {}  # name -> value, symgpt's names

    def put2(name, Mx):
        for i, r in enumerate(Mx):
            for j, v in enumerate(r):
                q[f"{name}[{i},{j}]"] = v

    for name, Mx in (("X", X), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Q_rot", Qr), ("K_rot", Kr),
                     ("Attn_heads", Attn_heads), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("Z", Z), ("U", U),
                     ("R", R), ("F", F), ("H2", H2), ("LN_f", LN_f)):
        put2(name, Mx)
    for t in range(T):
        q[f"ms1[{t}]"], q[f"ms2[{t}]"], q[f"ms_f[{t}]"] = ms1[t], ms2[t], ms_f[t]
        q[f"sqrt(ms1[{t}]+ln_eps)"] = mp.sqrt(ms1[t] + eps)
        q[f"sqrt(ms2[{t}]+ln_eps)"] = mp.sqrt(ms2[t] + eps)
        q[f"sqrt(ms_f[{t}]+ln_eps)"] = mp.sqrt(ms_f[t] + eps)
        q[f"cos({t})"], q[f"sin({t})"] = mp.cos(t * theta[0]), mp.sin(t * theta[0])
    for (h, t, s), v in S.items():
        q[f"S[{h},{t},{s}]"] = v
        q[f"exp(S[{h},{t},{s}])"] = mp.exp(v)
        q[f"A[{h},{t},{s}]"] = A[h, t, s]
    for (h, t), v in A_den.items():
        q[f"A_den[{h},{t}]"] = v
    for j in range(d):
        q[f"h_final[{j}]"] = hf[j]
    for v in range(len(vocab)):
        q[f"logits[{v}]"] = logits[v]
        q[f"exp(logits[{v}])"] = ex[v]
        q[f"p[{v}]"] = p[v]
    q["sum_exp"], q["loss"] = sum_exp, loss

    samp = spec.get("sampling", {})
    for Tt in samp.get("temperatures", []):
        Tv = num(Tt)
        pt = softmax([z / Tv for z in logits])
        for v in range(len(vocab)):
            q[f"softmax_T({Tt}, {v})"] = q[f"softmax_T({Tt}, {vocab[v]})"] = pt[v]
        q[f"sum_exp_T({Tt})"] = mp.fsum(mp.exp(z / Tv) for z in logits)
        for v in range(len(vocab)):
            q[f"exp(logits[{v}]/{Tt})"] = mp.exp(logits[v] / Tv)
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    k = samp.get("top_k", 3)
    keep = order[:k]
    mass = mp.fsum(p[v] for v in keep)
    q[f"topk_mass({k})"] = mass
    for v in range(len(vocab)):
        q[f"topk({k}, {v})"] = q[f"topk({k}, {vocab[v]})"] = p[v] / mass if v in keep else mp.mpf(0)
    P = num(samp.get("top_p", 0.9))
    cum, keep = mp.mpf(0), []
    for v in order:
        keep.append(v)
        cum += p[v]
        if cum >= P:
            break
    Pt = samp.get("top_p", 0.9)
    q[f"topp_mass({Pt})"] = cum
    for v in range(len(vocab)):
        q[f"topp({Pt}, {v})"] = q[f"topp({Pt}, {vocab[v]})"] = p[v] / cum if v in keep else mp.mpf(0)
    run = mp.mpf(0)
    for i, v in enumerate(order):
        run += p[v]
        q["+".join(f"p[{u}]" for u in order[:i + 1])] = run
    return q, vocab, order


def main() -> int:
    q, vocab, order = compute()
    if "--dump" in sys.argv:
        for k, v in q.items():
            print(f"{k:<28} {mp.nstr(v, 12)}")
        return 0
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    doc_lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        if not (1 <= line <= len(doc_lines) and printed in doc_lines[line - 1]):
            print(f"  {printed:>10}  NOT FOUND ON LINE {line} of DOC.html")
            bad += 1
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.rstrip().endswith("%")
        v = q[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = shown.replace("\u2212", "-").rstrip("%").strip()
        places = len(body.split(",")[1]) if "," in body else (len(body.split(".")[1]) if "." in body else 0)
        right = rnd(v, places).replace(".", ",")
        shown_num = body
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace(",", ".").replace("\u2212", "-"))
            ok = shown_num == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and \
                printed.replace("\u2212", "-").rstrip("%").strip() != right
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if printed.replace("\u2212", "-").rstrip("%").strip() == right else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<26} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert not bad, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
