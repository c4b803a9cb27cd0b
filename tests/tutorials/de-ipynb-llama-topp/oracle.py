#!/usr/bin/env python3
"""Independent computation behind KEY.md of `de-ipynb-llama-topp`: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py     # every KEY.md row: its quantity's value, the correct rounding, and the line check

Model (SPEC.toml, read with tomllib): one Llama block, d = 4, two heads of d_k = 2, d_ff = 6, T = 3,
tied embedding, no biases, every RMSNorm gain 1.
  X = E[ids];  ms1[t] = mean_j X[t,j]^2;  LN1 = X / sqrt(ms1 + eps)
  Q, K, V = LN1·W_Q, LN1·W_K, LN1·W_V; head h owns columns 2h, 2h+1
  RoPE (rotate_half, d_k = 2, theta = 1): a' = a cos t - b sin t,  b' = b cos t + a sin t
  S[h,t,s] = q_rot[h,t]·k_rot[h,s] / sqrt(2); causal softmax A; Attn_heads = A·V (heads side by side)
  Attn = Attn_heads·W_O;  H1 = X + Attn;  ms2, LN2 = RMSNorm(H1)
  Z = LN2·W_1 (gate), U = LN2·W_3 (up), R = SiLU(Z)·U, F = R·W_2 (down), H2 = H1 + F
  ms_f, LN_f = RMSNorm(H2); h_final = LN_f[T-1]; logits = h_final·E^T; p = softmax; loss = -ln p[target]
Sampling: softmax_T(T, v) = softmax(logits / T); topk(k, v), topp(P, v): p renormalised over the k most
probable tokens / over the shortest prefix of the ranking whose mass is >= P.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def mpf(v):
    return mp.mpf(str(v))


def M(a):
    return [[mpf(v) for v in r] for r in a] if isinstance(a[0], list) else [mpf(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, eps):
    ms = [mp.fsum(x * x for x in r) / len(r) for r in H]
    return ms, [[x / mp.sqrt(m + eps) for x in r] for r, m in zip(H, ms)]


def softmax(z):
    s = mp.fsum(mp.exp(x) for x in z)
    return [mp.exp(x) / s for x in z]


def compute() -> dict:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d, H, eps = spec["model"]["d"], spec["model"]["heads"], mpf(spec["model"]["ln_eps"])
    dk = d // H
    E = M(spec["weights"]["E"])
    L = spec["layer"][0]
    WQ, WK, WV, WO, W1, W2, W3 = (M(L[n]) for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_3"))
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T, V, dff = len(ids), len(vocab), len(W1[0])
    theta = mpf(spec["model"].get("rope_theta", 10000))

    X = [E[i][:] for i in ids]
    ms1, LN1 = rmsnorm(X, eps)
    Q, K, Vv = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)

    def rope(Mx):
        out = [r[:] for r in Mx]
        for t in range(T):
            for h in range(H):
                for i in range(dk // 2):
                    ang = t * theta ** (-mp.mpf(2 * i) / dk)
                    a, b = Mx[t][h * dk + i], Mx[t][h * dk + i + dk // 2]
                    out[t][h * dk + i] = a * mp.cos(ang) - b * mp.sin(ang)
                    out[t][h * dk + i + dk // 2] = b * mp.cos(ang) + a * mp.sin(ang)
        return out

    Qr, Kr = rope(Q), rope(K)
    S = [[[mp.fsum(Qr[t][h * dk + j] * Kr[s][h * dk + j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(H)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    AH = [[mp.fsum(A[j // dk][t][s] * Vv[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    Attn = matmul(AH, WO)
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1, eps)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    silu = [[z / (1 + mp.exp(-z)) for z in r] for r in Z]
    R = [[silu[t][k] * U[t][k] for k in range(dff)] for t in range(T)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2, eps)
    hf = LN_f[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(V)]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    loss = -mp.log(p[tgt])

    val: dict[str, mp.mpf] = {"loss": loss, "sum_exp": sum_exp, "ln_eps": eps}
    for t in range(T):
        val[f"ms1[{t}]"], val[f"ms2[{t}]"], val[f"ms_f[{t}]"] = ms1[t], ms2[t], ms_f[t]
        val[f"sqrt(ms1[{t}] + ln_eps)"] = mp.sqrt(ms1[t] + eps)
        val[f"sqrt(ms2[{t}] + ln_eps)"] = mp.sqrt(ms2[t] + eps)
        val[f"sqrt(ms_f[{t}] + ln_eps)"] = mp.sqrt(ms_f[t] + eps)
        val[f"cos({t})"], val[f"sin({t})"] = mp.cos(t), mp.sin(t)
        for j in range(d):
            for name, Mx in (("X", X), ("LN1", LN1), ("Q", Q), ("K", K), ("V", Vv), ("Q_rot", Qr), ("K_rot", Kr),
                             ("Attn_heads", AH), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("H2", H2),
                             ("F", F), ("LN_f", LN_f)):
                val[f"{name}[{t},{j}]"] = Mx[t][j]
        for k in range(dff):
            val[f"Z[{t},{k}]"], val[f"U[{t},{k}]"], val[f"R[{t},{k}]"] = Z[t][k], U[t][k], R[t][k]
            val[f"Z[{t},{k}]/(1+exp(-Z[{t},{k}]))"] = silu[t][k]
            val[f"R[{t},{k}]/U[{t},{k}]"] = silu[t][k]
        for h in range(H):
            val[f"A_den[{h},{t}]"] = A_den[h][t]
            for s in range(T):
                val[f"S[{h},{t},{s}]"] = S[h][t][s]
                val[f"A[{h},{t},{s}]"] = A[h][t][s]
                val[f"exp(S[{h},{t},{s}])"] = mp.exp(S[h][t][s])
    for j in range(d):
        val[f"h_final[{j}]"] = hf[j]
    # sampling
    temps = [mpf(x) for x in spec.get("sampling", {}).get("temperatures", [0.5, 1, 2])]
    kk = spec.get("sampling", {}).get("top_k", 3)
    P = mpf(spec.get("sampling", {}).get("top_p", 0.9))
    order = sorted(range(V), key=lambda v: (-p[v], v))
    keep_k = order[:kk]
    keep_p, acc = [], mp.mpf(0)
    for v in order:
        keep_p.append(v)
        acc += p[v]
        if acc >= P:
            break
    mass_k = mp.fsum(p[v] for v in keep_k)
    mass_p = mp.fsum(p[v] for v in keep_p)
    for v, w in enumerate(vocab):
        for key in (w, str(v)):
            val[f"logits[{key}]"], val[f"p[{key}]"], val[f"exp(logits[{key}])"] = logits[v], p[v], mp.exp(logits[v])
            for Tm in temps:
                val[f"softmax_T({mp.nstr(Tm, 10)}, {key})"] = softmax([z / Tm for z in logits])[v]
                val[f"exp(logits[{key}]/{mp.nstr(Tm, 10)})"] = mp.exp(logits[v] / Tm)
            val[f"topk({kk}, {key})"] = p[v] / mass_k if v in keep_k else mp.mpf(0)
            val[f"topp({mp.nstr(P, 10)}, {key})"] = p[v] / mass_p if v in keep_p else mp.mpf(0)
    for Tm in temps:
        val[f"sum(exp(logits/{mp.nstr(Tm, 10)}))"] = mp.fsum(mp.exp(z / Tm) for z in logits)
    val["mass_topk"], val["mass_topp"] = mass_k, mass_p
    val["_order"], val["_keep_k"], val["_keep_p"], val["_vocab"] = order, keep_k, keep_p, vocab
    val["_cum"] = [mp.fsum(p[v] for v in order[:i + 1]) for i in range(V)]
    return val


def doc_lines() -> list[str]:
    docs = [f for f in HERE.glob("DOC.*")]
    return docs[0].read_text(encoding="utf-8").splitlines() if docs else []


def num(text: str) -> tuple[mp.mpf, int, bool]:
    """A printed figure (decimal comma or point, Unicode minus, optional %) as value, places, percent."""
    t = text.replace("−", "-").replace("{,}", ",").replace(" ", "").replace("\u202f", "")
    pct = t.endswith("%")
    t = t.rstrip("%").replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return mp.mpf(t), places, pct


def main() -> int:
    values = compute()
    lines = doc_lines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        line = int(cells[1])
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pv, pplaces, pct = num(printed)
        v = values[ref] * (100 if pct else 1)
        if len(cells) == 7:                       # planted: "correct rounding" column gives the places
            shown = cells[4].strip("`")
            _, places, _ = num(shown)
            right = rnd(v, places)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (num(shown)[0] == mp.mpf(right) and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and mp.mpf(rnd(v, pplaces)) != pv and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            right = rnd(v, pplaces)
            ok = mp.mpf(right) == pv and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
            correct += 1
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}{'' if on_line else ' (NOT ON LINE)'}  {ref:<28} "
              f"{mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"KEY has {planted} planted and {correct} correct rows (want 8 and 10)")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
