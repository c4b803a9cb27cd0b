#!/usr/bin/env python3
"""Independent oracle for ru-md-gpt2-heads-topk: plain mpmath at 50 digits, never imports symgpt.

    python3 oracle.py     # computes the model from SPEC.toml and checks every row of KEY.md against DOC.md

Model (GPT-2 wiring, SPEC.toml's model.arch = "gpt2"), one block, two heads of width d/2:
  H0 = E[ids] + W_pe[t]
  LN1 = (H0 - mu1) / sqrt(var1 + eps)           (biased variance; gamma = 1, beta = 0)
  Q, K, V = LN1·W + b
  S[h,t,s] = Q_h[t]·K_h[s] / sqrt(d/heads)      (head h = columns 2h, 2h+1), causal softmax -> A
  Attn_heads[t] = concat_h sum_s A[h,t,s] V_h[s];  Attn = Attn_heads·W_O + b_O
  H1 = H0 + Attn;  LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = GELU_tanh(Z);  F = R·W_2 + b_2
  H2 = H1 + F;  LN_f = LN(H2);  logits = LN_f[T-1]·Eᵀ (tied);  p = softmax;  loss = -ln p[target]
Sampling: softmax_T(T, v) = softmax(logits / T)[v]; topk(k, v) keeps the k largest p and renormalises.
Rounding is half away from zero, on a 45-digit decimal of the exact value.
"""
from __future__ import annotations

import re
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


def addbias(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu_tanh(z):
    c = mp.sqrt(2 / mp.pi)
    return z / 2 * (1 + mp.tanh(c * (z + mp.mpf("0.044715") * z ** 3)))


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    d, nh = spec["model"]["d"], spec["model"]["heads"]
    dk = d // nh
    eps = num(spec["model"]["ln_eps"])
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    w, L = spec["weights"], spec["layer"][0]
    E, Wpe = M(w["E"]), M(w["W_pe"])
    T = len(ids)

    X = [E[i][:] for i in ids]
    PE = [Wpe[t][:] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, eps)
    Q = addbias(matmul(LN1, M(L["W_Q"])), M(L["b_Q"]))
    K = addbias(matmul(LN1, M(L["W_K"])), M(L["b_K"]))
    V = addbias(matmul(LN1, M(L["W_V"])), M(L["b_V"]))
    S = [[[mp.fsum(Q[t][h * dk + c] * K[s][h * dk + c] for c in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(nh)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(nh)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(nh)]
    heads = [[0] * d for _ in range(T)]
    for h in range(nh):
        for t in range(T):
            for c in range(dk):
                heads[t][h * dk + c] = mp.fsum(A[h][t][s] * V[s][h * dk + c] for s in range(T))
    Attn = addbias(matmul(heads, M(L["W_O"])), M(L["b_O"]))
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, eps)
    Z = addbias(matmul(LN2, M(L["W_1"])), M(L["b_1"]))
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = addbias(matmul(R, M(L["W_2"])), M(L["b_2"]))
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, eps)
    hf = LN_f[T - 1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    loss = -mp.log(p[tgt])

    vals = {"loss": loss, "sum_exp": sum_exp, "ln_eps": eps, "d": mp.mpf(d), "heads": mp.mpf(nh)}
    for name, mat in (("X", X), ("PE", PE), ("H0", H0), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V),
                      ("Attn_heads", heads), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("Z", Z), ("R", R),
                      ("F", F), ("H2", H2), ("LN_f", LN_f)):
        for t, r in enumerate(mat):
            for j, x in enumerate(r):
                vals[f"{name}[{t},{j}]"] = x
    for name, vec in (("mu1", mu1), ("var1", var1), ("mu2", mu2), ("var2", var2), ("mu_f", mu_f),
                      ("var_f", var_f)):
        for t, x in enumerate(vec):
            vals[f"{name}[{t}]"] = x
    for h in range(nh):
        for t in range(T):
            vals[f"A_den[{h},{t}]"] = A_den[h][t]
            for s in range(T):
                vals[f"S[{h},{t},{s}]"] = S[h][t][s]
                vals[f"A[{h},{t},{s}]"] = A[h][t][s]
    for j, x in enumerate(hf):
        vals[f"h_final[{j}]"] = x
    for t in range(T):
        vals[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(var1[t] + eps)
        vals[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(var2[t] + eps)
        vals[f"sqrt(var_f[{t}] + ln_eps)"] = mp.sqrt(var_f[t] + eps)

    # sampling
    samp = spec.get("sampling", {})
    temps = [num(x) for x in samp.get("temperatures", ["0.5", "1", "2"]) if str(x) != "inf"]
    for tau in temps:
        zs = [z / tau for z in logits]
        S_T = mp.fsum(mp.exp(z) for z in zs)
        for v, word in enumerate(vocab):
            pt = mp.exp(zs[v]) / S_T
            vals[f"softmax_T({mp.nstr(tau, 10)}, {word})"] = pt
    k = samp.get("top_k", 3)
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))[:k]
    mass = mp.fsum(p[v] for v in order)
    top = {v: p[v] / mass for v in order}
    for v, word in enumerate(vocab):
        vals[f"topk({k}, {word})"] = top.get(v, mp.mpf(0))
    run = mp.mpf(0)
    names = []
    for v in order:
        run += top[v]
        names.append(f"topk({k}, {vocab[v]})")
        vals[" + ".join(names)] = run
    vals[" + ".join(f"p[{vocab[v]}]" for v in order)] = mass

    for v, word in enumerate(vocab):
        vals[f"logits[{word}]"] = logits[v]
        vals[f"p[{word}]"] = p[v]
        vals[f"exp(logits[{word}])"] = mp.exp(logits[v])
        for j in range(d):
            vals[f"E[{word},{j}]"] = E[v][j]
    return vals, vocab


def check_key(vals) -> int:
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = 0
    planted = correct = 0
    for r in key.splitlines():
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        msgs = []
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        text = doc[line - 1] if 0 < line <= len(doc) else ""
        if printed not in text:
            msgs.append(f"NOT ON LINE {line}")
        if len(cells) == 7:                      # planted: exact value, correct rounding, differs from printed
            planted += 1
            shown = cells[4].strip("`")
            places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
            right = rnd(v, places) + ("%" if shown.endswith("%") else "")
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            digits = len(cells[3].rstrip("…").replace("-", "").replace("−", "").replace(".", "").lstrip("0"))
            if abs(exact - v) > mp.mpf(10) ** (-(digits - 2)) * max(abs(v), mp.mpf(1e-30)):
                msgs.append("EXACT VALUE DISAGREES")
            if right != shown:
                msgs.append(f"CORRECT ROUNDING IS {right}")
            pplaces = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            if rnd(v, pplaces) + ("%" if printed.endswith("%") else "") == printed:
                msgs.append("PLANTED FIGURE IS ACTUALLY CORRECT")
            note = "; ".join(msgs) or "planted, key agrees"
        else:
            correct += 1
            places = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            right = rnd(v, places) + ("%" if printed.endswith("%") else "")
            if right != printed:
                msgs.append(f"NOT THE CORRECT ROUNDING ({right})")
            note = "; ".join(msgs) or "correct"
        bad += bool(msgs)
        print(f"  {printed:>10}  l.{line:<4} {ref:<40} {mp.nstr(v, 15):<22} {note}")
    if planted != 8 or correct != 10:
        print(f"  KEY HAS {planted} PLANTED AND {correct} CORRECT ROWS (want 8 and 10)")
        bad += 1
    return bad


def main() -> int:
    vals, _ = model()
    print("ru-md-gpt2-heads-topk:")
    bad = check_key(vals)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
