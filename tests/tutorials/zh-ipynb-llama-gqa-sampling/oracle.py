#!/usr/bin/env python3
"""Independent check of DOC.ipynb and KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py      # every KEY.md row: its quantity's value, its rounding, and its place in DOC.ipynb

The model (read from SPEC.toml): one Llama decoder layer, pre-RMSNorm, RoPE (rotate_half), SwiGLU, no biases,
grouped-query attention with 2 query heads sharing 1 key/value head (head_dim = d / heads = 2), untied lm_head.

    X = E[ids];  LN1 = RMSNorm(X) * gamma1,  RMSNorm(h) = h / sqrt(mean(h^2) + eps)
    Q = LN1 W_Q (4 columns, head h = columns 2h, 2h+1),  K = LN1 W_K,  V = LN1 W_V (2 columns, shared)
    RoPE at position t: pair (i, i + dk/2) turned by t * theta^(-2i/dk)   (dk = 2: angle t radians)
    S[h,t,s] = q_rot[h,t] . k_rot[s] / sqrt(dk);  A = causal softmax;  Attn_heads[t, head h] = sum_s A V[s]
    Attn = Attn_heads W_O;  H1 = X + Attn;  LN2 = RMSNorm(H1) * gamma2
    Z = LN2 W_1 (gate), U = LN2 W_3 (up), R = SiLU(Z) * U, F = R W_2;  H2 = H1 + F
    LN_f = RMSNorm(H2) * gamma_f;  h_final = LN_f[T-1];  logits = h_final W_out;  p = softmax;  loss = -ln p[target]
    sampling: softmax_T(T, v) = softmax(logits / T)[v];  topk(k, v) = p[v] / (sum of the k largest p), 0 if dropped

Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    if isinstance(a, list) and a and isinstance(a[0], list):
        return [[mp.mpf(str(v)) for v in r] for r in a]
    if isinstance(a, list):
        return [mp.mpf(str(v)) for v in a]
    return mp.mpf(str(a))


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, gamma, eps):
    d = len(H[0])
    ms = [mp.fsum(x * x for x in r) / d for r in H]
    return ms, [[gamma[j] * r[j] / mp.sqrt(m + eps) for j in range(d)] for r, m in zip(H, ms)]


def rope(rows, dk, theta):
    """rotate_half convention on each head of width dk; rows is a T x (n*dk) matrix."""
    out = []
    for t, r in enumerate(rows):
        new = r[:]
        for h0 in range(0, len(r), dk):
            for i in range(dk // 2):
                ang = t * mp.mpf(theta) ** (-mp.mpf(2 * i) / dk)
                a, b = r[h0 + i], r[h0 + i + dk // 2]
                new[h0 + i] = a * mp.cos(ang) - b * mp.sin(ang)
                new[h0 + i + dk // 2] = b * mp.cos(ang) + a * mp.sin(ang)
        out.append(new)
    return out


def silu(z):
    return z / (1 + mp.exp(-z))


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    d, H, KVH, dff = m["d"], m["heads"], m["kv_heads"], m["d_ff"]
    dk = d // H
    eps, theta = M(m["ln_eps"]), m.get("rope_theta", 10000)
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    E, W_out = M(w["E"]), M(w["W_out"])
    WQ, WK, WV, WO, W1, W3, W2 = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"))
    one = [mp.mpf(1)] * d
    g1, g2 = M(L.get("gamma1", one)), M(L.get("gamma2", one))
    gf = M(w.get("gamma_f", one))

    X = [E[i][:] for i in ids]
    ms1, LN1 = rmsnorm(X, g1, eps)
    Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
    Qr, Kr = rope(Q, dk, theta), rope(K, dk, theta)
    group = H // KVH
    S = [[[None] * T for _ in range(T)] for _ in range(H)]
    A = [[[mp.mpf(0)] * T for _ in range(T)] for _ in range(H)]
    A_den = [[None] * T for _ in range(H)]
    Ah = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        kh = h // group
        for t in range(T):
            for s in range(T):
                S[h][t][s] = mp.fsum(Qr[t][h * dk + j] * Kr[s][kh * dk + j] for j in range(dk)) / mp.sqrt(dk)
            A_den[h][t] = mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1))
            for s in range(t + 1):
                A[h][t][s] = mp.exp(S[h][t][s]) / A_den[h][t]
            for j in range(dk):
                Ah[t][h * dk + j] = mp.fsum(A[h][t][s] * V[s][kh * dk + j] for s in range(t + 1))
    Attn = matmul(Ah, WO)
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1, g2, eps)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    R = [[silu(Z[t][k]) * U[t][k] for k in range(dff)] for t in range(T)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2, gf, eps)
    h_final = LN_f[-1]
    logits = [mp.fsum(h_final[j] * W_out[j][v] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    loss = -mp.log(p[tgt])

    q = {}  # symgpt-style names -> values

    for name, arr in dict(E=E, W_out=W_out, W_Q=WQ, W_K=WK, W_V=WV, W_O=WO, W_1=W1, W_3=W3, W_2=W2, X=X, ms1=ms1,
                          LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=A_den, A=A, Attn_heads=Ah, Attn=Attn,
                          H1=H1, ms2=ms2, LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, ms_f=ms_f, LN_f=LN_f,
                          h_final=h_final).items():
        q.update(_flat(name, arr))
    for v, tok in enumerate(vocab):
        q[f"logits[{tok}]"] = logits[v]
        q[f"p[{tok}]"] = p[v]
        q[f"exp(logits[{tok}])"] = mp.exp(logits[v])
    q["sum_exp"], q["loss"] = sum_exp, loss
    for t in range(T):
        q[f"sqrt(ms1[{t}] + ln_eps)"] = mp.sqrt(ms1[t] + eps)
        q[f"sqrt(ms2[{t}] + ln_eps)"] = mp.sqrt(ms2[t] + eps)
        q[f"sqrt(ms_f[{t}] + ln_eps)"] = mp.sqrt(ms_f[t] + eps)
        for k in range(dff):
            q[f"Z[{t},{k}]/(1+exp(-Z[{t},{k}]))"] = silu(Z[t][k])
    for t in range(1, T):
        q[f"cos({t})"], q[f"sin({t})"] = mp.cos(t), mp.sin(t)
    q["sqrt(2)"] = mp.sqrt(2)
    for h in range(H):
        for t in range(T):
            for s in range(t + 1):
                q[f"exp(S[{h},{t},{s}])"] = mp.exp(S[h][t][s])
    # sampling
    temps = [M(x) for x in spec.get("sampling", {}).get("temperatures", [0.5, 1, 2])]
    for Tm in temps + [mp.mpf(1)]:
        den = mp.fsum(mp.exp(z / Tm) for z in logits)
        for v, tok in enumerate(vocab):
            q[f"softmax_T({mp.nstr(Tm, 10)}, {tok})"] = mp.exp(logits[v] / Tm) / den
        q[f"sum(exp(logits/{mp.nstr(Tm, 10)}))"] = den
        for v, tok in enumerate(vocab):
            q[f"exp(logits[{tok}]/{mp.nstr(Tm, 10)})"] = mp.exp(logits[v] / Tm)
    k = spec.get("sampling", {}).get("top_k", 3)
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    kept = order[:k]
    mass = mp.fsum(p[v] for v in kept)
    q[f"topk_mass({k})"] = mass
    for v, tok in enumerate(vocab):
        q[f"topk({k}, {tok})"] = p[v] / mass if v in kept else mp.mpf(0)
    q["argmax()"] = mp.mpf(order[0])
    return dict(q=q, vocab=vocab, order=order, logits=logits, p=p, temps=temps, k=k, T=T, dff=dff, d=d, H=H,
                tgt=tgt, arrays=dict(X=X, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A=A, A_den=A_den,
                                      Attn_heads=Ah, Attn=Attn, H1=H1, ms1=ms1, ms2=ms2, ms_f=ms_f, LN2=LN2, Z=Z,
                                      U=U, R=R, F=F, H2=H2, LN_f=LN_f, h_final=h_final))


def _flat(name, arr, idx=()):
    if isinstance(arr, list):
        out = {}
        for i, x in enumerate(arr):
            out.update(_flat(name, x, idx + (i,)))
        return out
    return {f"{name}[{','.join(map(str, idx))}]" if idx else name: arr}


def alias(q, vocab):
    """Token names for the token-indexed parameters (E[v,j], W_out[j,v])."""
    out = dict(q)
    for key, val in q.items():
        m = re.fullmatch(r"E\[(\d+),(\d+)\]", key)
        if m:
            out[f"E[{vocab[int(m[1])]},{m[2]}]"] = val
        m = re.fullmatch(r"W_out\[(\d+),(\d+)\]", key)
        if m:
            out[f"W_out[{m[1]},{vocab[int(m[2])]}]"] = val
    return out


def doc_lines():
    return (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")


def audit(q, lines, planted):
    """Every 4-decimal figure and every 2-decimal percentage of DOC.ipynb that is not planted must be the
    correct rounding of some quantity computed here (the weights are printed exactly, with 1 decimal)."""
    four = {rnd(v, 4) for v in q.values()}
    pct = {rnd(v * 100, 2) + "%" for v in q.values()}
    bad = 0
    for i, line in enumerate(lines, 1):
        for mt in re.finditer(r"(?<![\d.])-?\d+\.\d{4}(?!\d)|(?<![\d.])\d+\.\d{2}%", line):
            text = mt.group()
            if (i, text) in planted:
                continue
            ok = text in pct if text.endswith("%") else text in four
            if not ok:
                bad += 1
                print(f"  AUDIT: line {i}: {text} is no quantity's rounding")
    return bad


def main() -> int:
    mdl = model()
    q = alias(mdl["q"], mdl["vocab"])
    json.loads((HERE / "DOC.ipynb").read_text(encoding="utf-8"))   # the notebook is valid JSON
    lines = doc_lines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    bad = n_planted = n_correct = 0
    for r in key:
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = q[ref] * (100 if pct else 1)
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if planted:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            digits = len(re.sub(r"[^0-9]", "", cells[3].rstrip("…").lstrip("-0.")))
            ok = (shown == right and abs(exact - v) <= mp.mpf(10) ** (-digits + 2) * max(abs(v), mp.mpf("1e-30"))
                  and right != printed and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            ok = right == printed and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        if not on_line:
            note += f" (text not on line {line})"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<34} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    planted_at = set()
    for r in key:
        c = [x.strip() for x in r.strip().strip("|").split("|")] if r.startswith("| `") else []
        if len(c) == 7:
            planted_at.add((int(c[1]), c[0].strip("`")))
    a = audit(q, lines, planted_at)
    print("audit: every other 4-decimal figure and percentage of DOC.ipynb is a correct rounding" if not a
          else f"audit: {a} figures are no quantity's rounding")
    bad += a
    print(f"{n_planted} planted, {n_correct} correct rows")
    if n_planted != 8 or n_correct != 10:
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
