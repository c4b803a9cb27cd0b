#!/usr/bin/env python3
"""Independent check of the tutorial DOC.md: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # every KEY.md row: its quantity's value, its correct rounding, and
                               # that the printed text stands on the stated line of DOC.md
    python3 oracle.py --dump   # every quantity the oracle knows, at 4 decimals (for writing the text)

The model (read from SPEC.toml): one Llama-style block, pre-norm, no biases, untied head.
  X = E[ids]; RMSNorm: ms = mean(x²), scale = 1/sqrt(ms + eps), LN = scale·x (γ = 1)
  Q, K, V = LN1·W_Q, LN1·W_K, LN1·W_V; 2 heads of d_k = 2 (head h = columns 2h, 2h+1)
  RoPE (HF rotate_half, positions t = 0, 1, 2; θ = rope_theta^0 = 1 since d_k = 2):
      (x0, x1) -> (x0 cos t - x1 sin t, x1 cos t + x0 sin t), per head
  S[h,t,s] = q̃·k̃/√2, causal softmax A; Attn_heads = A·V (per head); Attn = Attn_heads·W_O
  H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1 (gate), U = LN2·W_3 (up), R = SiLU(Z)⊙U, F = R·W_2
  H2 = H1 + F; LN_f = RMSNorm(H2); h_final = LN_f[T-1]; logits = h_final·W_out; p = softmax
  loss = -ln p[target]; grad_logits = p - y; grad_W_out[j,v] = h_final[j]·grad_logits[v]
  SGD: W_out - lr·grad_W_out.
Rounding is half away from zero on the 45-digit decimal of the value.
The document writes decimal commas (0,25 or 0{,}25 in TeX), and numbers positions and vector
components from 1: KEY.md names the quantities in symgpt's 0-based references.
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


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, eps):
    ms = [mp.fsum(x * x for x in r) / len(r) for r in H]
    sc = [1 / mp.sqrt(m + eps) for m in ms]
    return ms, sc, [[x * s for x in r] for r, s in zip(H, sc)]


def rope(R, theta):
    dk = 2
    out = []
    for t, r in enumerate(R):
        row = []
        for h in range(len(r) // dk):
            a = t * mp.mpf(theta) ** (mp.mpf(-0) / dk)      # i = 0 only: θ_0 = theta^0 = 1
            x0, x1 = r[h * dk], r[h * dk + 1]
            row += [x0 * mp.cos(a) - x1 * mp.sin(a), x1 * mp.cos(a) + x0 * mp.sin(a)]
        out.append(row)
    return out


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    voc = m["vocab"]
    E, Wout = M(w["E"]), M(w["W_out"])
    WQ, WK, WV, WO, W1, W3, W2 = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"))
    eps = mp.mpf(str(m["ln_eps"]))
    lr = mp.mpf(str(spec["training"]["lr"]))
    ids = [voc.index(t) for t in spec["data"]["input"]]
    tgt = voc.index(spec["data"]["target"])
    T, d, H, dk = len(ids), m["d"], m["heads"], m["d"] // m["heads"]
    assert dk == 2 and m.get("arch") == "llama" and m.get("tied") is False

    X = [E[i][:] for i in ids]
    ms1, sc1, LN1 = rmsnorm(X, eps)
    Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
    Qr, Kr = rope(Q, m.get("rope_theta", 10000)), rope(K, m.get("rope_theta", 10000))
    S = [[[mp.fsum(Qr[t][h * dk + i] * Kr[s][h * dk + i] for i in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(H)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    Ah = [[mp.fsum(A[j // dk][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    At = matmul(Ah, WO)
    H1 = [[X[t][j] + At[t][j] for j in range(d)] for t in range(T)]
    ms2, sc2, LN2 = rmsnorm(H1, eps)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    sig = [[1 / (1 + mp.exp(-z)) for z in r] for r in Z]
    silu = [[z * s for z, s in zip(rz, rs)] for rz, rs in zip(Z, sig)]
    R = [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(silu, U)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    msf, scf, LNf = rmsnorm(H2, eps)
    h = LNf[T - 1]
    logits = [mp.fsum(h[j] * Wout[j][v] for j in range(d)) for v in range(len(voc))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    loss = -mp.log(p[tgt])
    gl = [p[v] - (1 if v == tgt else 0) for v in range(len(voc))]
    gW = [[h[j] * gl[v] for v in range(len(voc))] for j in range(d)]
    newW = [[Wout[j][v] - lr * gW[j][v] for v in range(len(voc))] for j in range(d)]

    val: dict[str, mp.mpf] = {}
    def put(name, arr):
        def rec(prefix, a):
            if isinstance(a, list):
                for i, x in enumerate(a):
                    rec(prefix + [i], x)
            else:
                val[f"{name}[{','.join(map(str, prefix))}]" if prefix else name] = a
        rec([], arr)
    for name, arr in (("X", X), ("ms1", ms1), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Q_rot", Qr),
                      ("K_rot", Kr), ("S", S), ("A_den", A_den), ("A", A), ("Attn_heads", Ah), ("Attn", At),
                      ("H1", H1), ("ms2", ms2), ("LN2", LN2), ("Z", Z), ("U", U), ("R", R), ("F", F),
                      ("H2", H2), ("ms_f", msf), ("LN_f", LNf), ("h_final", h), ("loss", loss),
                      ("sum_exp", se)):
        put(name, arr)
    for t in range(T):
        val[f"1/sqrt(ms1[{t}] + ln_eps)"] = sc1[t]
        val[f"1/sqrt(ms2[{t}] + ln_eps)"] = sc2[t]
        val[f"1/sqrt(ms_f[{t}] + ln_eps)"] = scf[t]
        for k in range(d):
            val[f"1/(1 + exp(-Z[{t},{k}]))"] = sig[t][k]
            val[f"Z[{t},{k}]/(1 + exp(-Z[{t},{k}]))"] = silu[t][k]
    for a in (1, 2):
        val[f"cos({a})"], val[f"sin({a})"] = mp.cos(a), mp.sin(a)
    for v, tok in enumerate(voc):
        val[f"logits[{tok}]"], val[f"p[{tok}]"], val[f"grad_logits[{tok}]"] = logits[v], p[v], gl[v]
        val[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        for j in range(d):
            val[f"W_out[{j},{tok}]"] = Wout[j][v]
            val[f"grad_W_out[{j},{tok}]"] = gW[j][v]
            val[f"sgd[1].W_out[{j},{tok}]"] = newW[j][v]
    for hh in range(H):
        for s in range(T):
            val[f"exp(S[{hh},{T - 1},{s}])"] = mp.exp(S[hh][T - 1][s])
    return val


def number(text: str) -> tuple[mp.mpf, int, bool]:
    """A printed German figure: decimal comma (or {,}), Unicode or ASCII minus, optional %."""
    t = text.replace("{,}", ",").replace("\u2212", "-").replace("\u202f", "").replace(" ", "").replace("\\,", "")
    pct = t.endswith("%")
    t = t.rstrip("%").replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return mp.mpf(t), places, pct


def main() -> int:
    val = model()
    if "--dump" in sys.argv:
        for k, v in val.items():
            print(f"{k:<32} {rnd(v, 4):>10}   {mp.nstr(v, 12)}")
        return 0
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in val), None)
        problems = []
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        for n in names:                                    # every alternative must be the same value
            if n in val and abs(val[n] - val[ref]) > mp.mpf("1e-40"):
                problems.append(f"alternative {n} differs")
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1].replace("{,}", ","):   # (0{,}25 as it reads)
            problems.append(f"text not on line {line}")
        shown_v, places, pct = number(printed)
        v = val[ref] * (100 if pct else 1)
        if len(cells) == 7:                                # planted: exact value and correct rounding columns
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            right_text = cells[4].strip("`")
            rv, rplaces, _ = number(right_text)
            right = rnd(v, rplaces)
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append("exact value column wrong")
            if mp.mpf(right) != rv:
                problems.append(f"correct-rounding column wrong (oracle {right})")
            if rnd(v, places) == rnd(shown_v, places):
                problems.append("the planted figure is in fact the correct rounding")
            note = "planted, key agrees"
        else:
            correct += 1
            right = rnd(v, places)
            if mp.mpf(right) != shown_v:
                problems.append(f"NOT THE CORRECT ROUNDING (oracle {right})")
            note = "correct"
        if problems:
            bad += 1
            note = "PROBLEM: " + "; ".join(problems)
        print(f"  {printed:>12}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    print(f"{planted} planted and {correct} correct rows; "
          + ("all key rows agree with the oracle and the document" if not bad else f"{bad} key rows disagree"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
