#!/usr/bin/env python3
"""Independent oracle for ko-rst-llama-2layer-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity's value, the key's columns, the printed text on its line

Model (read from SPEC.toml with tomllib): a two-block Llama, d = 4, one head (d_k = 4), d_ff = 8, tied head,
no biases, every RMSNorm gain 1.
  x_t = E[token_t]; RMSNorm n(h) = h / sqrt(mean(h^2) + eps);
  per block: Q, K, V = n(h)·W_Q, W_K, W_V (row vector times matrix);
  RoPE (Hugging Face rotate_half, d_k = 4, theta_i = base^(-2i/4), i = 0, 1; pairs (0, 2) and (1, 3)):
    q~[i]   = q[i] cos(t theta_i) - q[i+2] sin(t theta_i)
    q~[i+2] = q[i+2] cos(t theta_i) + q[i] sin(t theta_i)
  S[t,s] = q~_t·k~_s / sqrt(4); causal softmax A; attn = (A V)·W_O; H1 = h + attn;
  SwiGLU: Z = n(H1)·W_1, U = n(H1)·W_3, R = SiLU(Z)*U, F = R·W_2; H2 = H1 + F;
  final: h_final = n(H2 of the last block)[T-1]; logits = h_final·E^T; p = softmax; loss = -ln p[target];
  softmax_T(T, w) = softmax(logits/T); topk(k, w), topp(P, w): p renormalised over the kept tokens
  (top-p keeps the shortest prefix of the ranking whose mass is >= P).
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
    return [[num(v) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, eps):
    ms = [mp.fsum(x * x for x in r) / len(r) for r in H]
    return ms, [[x / mp.sqrt(m + eps) for x in r] for r, m in zip(H, ms)]


def silu(z):
    return z / (1 + mp.exp(-z))


def model(spec_path=None):
    spec = tomllib.loads(Path(spec_path or HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d, T = spec["model"]["d"], len(spec["data"]["input"])
    assert spec["model"].get("heads", 1) == 1
    dk, half = d, d // 2
    eps = num(spec["model"]["ln_eps"])
    base = num(spec["model"].get("rope_theta", 10000))
    E = M(spec["weights"]["E"])
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    vals = {}
    put = vals.__setitem__

    def rope(Mx):
        out = [r[:] for r in Mx]
        for t in range(T):
            for i in range(dk):
                ang = t * base ** (-mp.mpf(2 * (i % half)) / dk)
                rot = -Mx[t][i + half] if i < half else Mx[t][i - half]
                out[t][i] = Mx[t][i] * mp.cos(ang) + rot * mp.sin(ang)
        return out

    X = [E[i][:] for i in ids]
    h = X
    for t in range(T):
        for j in range(d):
            put(f"X[{t},{j}]", X[t][j])
    for li, L in enumerate(spec["layer"]):
        P = f"l{li}."
        WQ, WK, WV, W1, W3, W2 = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "W_3", "W_2"))
        WO = M(L["W_O"]) if "W_O" in L else None
        ms1, LN1 = rmsnorm(h, eps)
        Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
        Qr, Kr = rope(Q), rope(K)
        S = [[mp.fsum(Qr[t][j] * Kr[s][j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
        A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
        A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        Ah = [[mp.fsum(A[t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
        Attn = matmul(Ah, WO) if WO else Ah
        H1 = [[h[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        ms2, LN2 = rmsnorm(H1, eps)
        Z, U = matmul(LN2, W1), matmul(LN2, W3)
        R = [[silu(z) * u for z, u in zip(rz, ru)] for rz, ru in zip(Z, U)]
        F = matmul(R, W2)
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        for t in range(T):
            put(P + f"ms1[{t}]", ms1[t]); put(P + f"ms2[{t}]", ms2[t])
            put(f"sqrt({P}ms1[{t}] + ln_eps)", mp.sqrt(ms1[t] + eps))
            put(f"sqrt({P}ms2[{t}] + ln_eps)", mp.sqrt(ms2[t] + eps))
            put(f"sqrt({P}ms1[{t}])", mp.sqrt(ms1[t]))
            put(f"A_den_{li}[{t}]", A_den[t]); put(P + f"A_den[{t}]", A_den[t])
            for j in range(d):
                for n_, Mx in (("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Q_rot", Qr), ("K_rot", Kr),
                               ("Attn_heads", Ah), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("F", F),
                               ("H2", H2)):
                    put(P + f"{n_}[{t},{j}]", Mx[t][j])
            for k in range(len(Z[0])):
                put(P + f"Z[{t},{k}]", Z[t][k]); put(P + f"U[{t},{k}]", U[t][k]); put(P + f"R[{t},{k}]", R[t][k])
            for s in range(T):
                put(P + f"S[{t},{s}]", S[t][s]); put(P + f"A[{t},{s}]", A[t][s])
                put(f"exp({P}S[{t},{s}])", mp.exp(S[t][s]))
        h = H2
    msf, LNf = rmsnorm(h, eps)
    hf = LNf[-1]
    for t in range(T):
        put(f"ms_f[{t}]", msf[t]); put(f"sqrt(ms_f[{t}] + ln_eps)", mp.sqrt(msf[t] + eps))
        for j in range(d):
            put(f"LN_f[{t},{j}]", LNf[t][j])
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    put("loss", -mp.log(p[tgt])); put("sum_exp", sum_exp); put("ln_eps", eps)
    for j in range(d):
        put(f"h_final[{j}]", hf[j])
    for v, w in enumerate(vocab):
        put(f"logits[{w}]", logits[v]); put(f"p[{w}]", p[v]); put(f"exp(logits[{w}])", mp.exp(logits[v]))
    # sampling
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    smp = spec["sampling"]
    for Tt in smp["temperatures"]:
        Tm = num(Tt)
        st = mp.fsum(mp.exp(z / Tm) for z in logits)
        put(f"sum(exp(logits/{Tt}))", st)
        for v, w in enumerate(vocab):
            put(f"logits[{w}]/{Tt}", logits[v] / Tm)
            put(f"exp(logits[{w}]/{Tt})", mp.exp(logits[v] / Tm))
            put(f"softmax_T({Tt}, {w})", mp.exp(logits[v] / Tm) / st)
    k = smp["top_k"]
    keep = order[:k]
    mk = mp.fsum(p[v] for v in keep)
    put(" + ".join(f"p[{vocab[v]}]" for v in keep), mk)
    for v, w in enumerate(vocab):
        put(f"topk({k}, {w})", p[v] / mk if v in keep else mp.mpf(0))
    Pp = num(smp["top_p"])
    cum, kept = mp.mpf(0), []
    for v in order:
        kept.append(v); cum += p[v]
        put(" + ".join(f"p[{vocab[u]}]" for u in kept), cum)
        if cum >= Pp:
            break
    for v, w in enumerate(vocab):
        put(f"topp({smp['top_p']}, {w})", p[v] / cum if v in kept else mp.mpf(0))
    return vocab, order, vals


def places(s: str) -> int:
    s = s.replace("{,}", ",").rstrip("%").strip()
    return len(re.split(r"[.,]", s)[1]) if re.search(r"[.,]", s) else 0


def to_mpf(s: str):
    return mp.mpf(s.replace("−", "-").rstrip("%").rstrip("…").strip())


def main() -> int:
    vocab, order, vals = model()
    doc = (HERE / "DOC.rst").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = rows = 0
    print("ranking:", ", ".join(f"{vocab[v]} {mp.nstr(vals['p[' + vocab[v] + ']'], 8)}" for v in order))
    for r in key.splitlines():
        if not r.startswith("| `"):
            continue
        rows += 1
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        right = rnd(v, places(shown))
        if planted:
            exact = to_mpf(cells[3])
            ok = (to_mpf(shown) == mp.mpf(right) and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and to_mpf(printed) != mp.mpf(rnd(v, places(printed))) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = to_mpf(printed) == mp.mpf(right) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    planted_rows = sum(1 for r in key.splitlines() if r.startswith("| `") and r.count("|") == 8)
    if planted_rows != 8:
        print(f"expected 8 planted rows, found {planted_rows}")
        bad += 1
    print(f"all {rows} key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
