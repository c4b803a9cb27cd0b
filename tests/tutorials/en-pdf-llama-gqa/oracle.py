#!/usr/bin/env python3
"""Independent check of the en-pdf-llama-gqa tutorial: plain mpmath at 50 digits, no symgpt.

    python oracle.py           # every KEY.md row: its quantity's value, the key's exact value and
                               # correct rounding, and that the printed text is on the stated line
    python oracle.py --dump    # every quantity of the forward pass, to 8 decimals

The model (read from SPEC.toml): one Llama-style block, pre-norm, no biases.
  X = E[ids];  RMSNorm(h) = γ·h/√(mean(h²) + ε) with γ = 1 (ms = mean(h²))
  LN1 = RMSNorm(X);  Q = LN1·W_Q (2 heads of d_k = 2, side by side), K = LN1·W_K, V = LN1·W_V (1 kv head)
  RoPE (Hugging Face rotate_half): pair (i, i + d_k/2) turned by t·θ_i, θ_i = base^(−2i/d_k); here θ_0 = 1
  S[h,t,s] = Q_rot_h[t]·K_rot[s]/√d_k; causal softmax A; Attn_heads[t] = [A_1 V, A_2 V]
  Attn = Attn_heads·W_O; H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1 (gate), U = LN2·W_3 (up)
  R = SiLU(Z) ⊙ U; F = R·W_2; H2 = H1 + F; LN_f = RMSNorm(H2); logits = LN_f[T−1]·W_out
  p = softmax(logits); loss = −ln p[target]; grad_logits = p − onehot(target).
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import subprocess
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
    d = len(H[0])
    ms = [mp.fsum(x * x for x in r) / d for r in H]
    return ms, [[x / mp.sqrt(m + eps) for x in r] for r, m in zip(H, ms)]


def rope(X, t, dk, base):
    """Turn every head block of dk columns of row X (position t), rotate_half pairing."""
    out = X[:]
    half = dk // 2
    for h0 in range(0, len(X), dk):
        for i in range(half):
            th = t * mp.mpf(base) ** (-mp.mpf(2 * i) / dk)
            a, b = X[h0 + i], X[h0 + i + half]
            out[h0 + i] = a * mp.cos(th) - b * mp.sin(th)
            out[h0 + i + half] = b * mp.cos(th) + a * mp.sin(th)
    return out


def compute():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    d, H, KV = m["d"], m["heads"], m["kv_heads"]
    dk = d // H
    eps = mp.mpf(str(m["ln_eps"]))
    base = m.get("rope_theta", 10000)
    E, Wout = M(w["E"]), M(w["W_out"])
    WQ, WK, WV, WO = M(L["W_Q"]), M(L["W_K"]), M(L["W_V"]), M(L["W_O"])
    W1, W3, W2 = M(L["W_1"]), M(L["W_3"]), M(L["W_2"])
    T = len(ids)
    X = [E[i][:] for i in ids]
    ms1, LN1 = rmsnorm(X, eps)
    Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
    Q_rot = [rope(Q[t], t, dk, base) for t in range(T)]
    K_rot = [rope(K[t], t, dk, base) for t in range(T)]
    grp = H // KV
    S, A, A_den = {}, {}, {}
    Attn_heads = [[mp.mpf(0)] * d for _ in range(T)]
    for h in range(H):
        g = h // grp
        for t in range(T):
            for s in range(T):
                S[h, t, s] = mp.fsum(Q_rot[t][h * dk + j] * K_rot[s][g * dk + j] for j in range(dk)) / mp.sqrt(dk)
            A_den[h, t] = mp.fsum(mp.exp(S[h, t, s]) for s in range(t + 1))
            for s in range(T):
                A[h, t, s] = mp.exp(S[h, t, s]) / A_den[h, t] if s <= t else mp.mpf(0)
            for j in range(dk):
                Attn_heads[t][h * dk + j] = mp.fsum(A[h, t, s] * V[s][g * dk + j] for s in range(T))
    Attn = matmul(Attn_heads, WO)
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1, eps)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    silu = lambda z: z / (1 + mp.exp(-z))
    R = [[silu(z) * u for z, u in zip(zr, ur)] for zr, ur in zip(Z, U)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2, eps)
    hf = LN_f[-1]
    logits = [mp.fsum(hf[j] * Wout[j][v] for j in range(d)) for v in range(len(vocab))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    loss = -mp.log(p[tgt])
    gl = [p[v] - (1 if v == tgt else 0) for v in range(len(vocab))]

    q = {"ln_eps": eps, "sum_exp": se, "loss": loss}
    tok = lambda v: vocab[v]
    for name, arr in (("X", X), ("LN1", LN1), ("Q", Q), ("K", K), ("V", V), ("Q_rot", Q_rot), ("K_rot", K_rot),
                      ("Attn_heads", Attn_heads), ("Attn", Attn), ("H1", H1), ("LN2", LN2), ("Z", Z), ("U", U),
                      ("R", R), ("F", F), ("H2", H2), ("LN_f", LN_f)):
        for t, r in enumerate(arr):
            for j, x in enumerate(r):
                q[f"{name}[{t},{j}]"] = x
    for name, arr in (("ms1", ms1), ("ms2", ms2), ("ms_f", ms_f)):
        for t, x in enumerate(arr):
            q[f"{name}[{t}]"] = x
    for (h, t, s), x in S.items():
        q[f"S[{h},{t},{s}]"] = x
        q[f"A[{h},{t},{s}]"] = A[h, t, s]
    for (h, t), x in A_den.items():
        q[f"A_den[{h},{t}]"] = x
    for j, x in enumerate(hf):
        q[f"h_final[{j}]"] = x
    for v in range(len(vocab)):
        q[f"logits[{tok(v)}]"] = logits[v]
        q[f"exp(logits[{tok(v)}])"] = mp.exp(logits[v])
        q[f"p[{tok(v)}]"] = p[v]
        q[f"grad_logits[{tok(v)}]"] = gl[v]
    for t in range(T):
        q[f"sqrt(ms1[{t}] + ln_eps)"] = mp.sqrt(ms1[t] + eps)
        q[f"sqrt(ms2[{t}] + ln_eps)"] = mp.sqrt(ms2[t] + eps)
        q[f"sqrt(ms_f[{t}] + ln_eps)"] = mp.sqrt(ms_f[t] + eps)
        for k in range(len(Z[0])):
            q[f"Z[{t},{k}]/(1 + exp(-Z[{t},{k}]))"] = silu(Z[t][k])
        for s in range(T):
            for h in range(H):
                q[f"exp(S[{h},{t},{s}])"] = mp.exp(S[h, t, s])
                q[f"S[{h},{t},{s}]*sqrt(2)"] = S[h, t, s] * mp.sqrt(dk)
    for t in range(T):
        q[f"cos({t})"], q[f"sin({t})"] = mp.cos(t), mp.sin(t)
        q[f"1/sqrt(ms1[{t}] + ln_eps)"] = 1 / mp.sqrt(ms1[t] + eps)
        for k in range(len(Z[0])):
            q[f"1/(1 + exp(-Z[{t},{k}]))"] = 1 / (1 + mp.exp(-Z[t][k]))
            q[f"-Z[{t},{k}]"] = -Z[t][k]     # the exponent in σ(g) = 1/(1 + e^(−g))
    q["sqrt(2)"] = mp.sqrt(2)
    return q


def check_every_figure(q):
    """Every decimal of DOC.pdf with 4 decimals, and every percentage, must be the correct rounding of some
    quantity above (a weight, written with one decimal, is read from SPEC.toml and not checked here), except the
    planted figures of KEY.md at their lines."""
    key = (HERE / "KEY.md").read_text(encoding="utf-8").split("## Correct")[0]
    planted = {(int(cells(ln)[1]), unquote(cells(ln)[0])) for ln in key.split("\n") if ln.startswith("| `")}
    rounded4 = {rnd(v, 4) for v in q.values()}
    pct = {rnd(v * 100, n) for v in q.values() for n in (1, 2)}
    bad = seen = 0
    for i, line in enumerate(pdf_lines(), 1):
        for m in re.finditer(r"[−-]?\d+\.\d+%?", line):
            text = m.group(0)
            num = text.replace("−", "-")
            if (i, text) in planted:
                continue
            if num.endswith("%"):
                ok = num[:-1] in pct
            elif len(num.split(".")[1]) == 4:
                ok = num in rounded4
            else:
                continue
            seen += 1
            if not ok:
                bad += 1
                print(f"FAIL line {i}: {text} is the rounding of no computed quantity")
    print(f"{seen} four-decimal figures and percentages of DOC.pdf checked, {bad} unexplained")
    return bad


def value(q, ref):
    ref = ref.strip()
    if ref in q:
        return q[ref]
    raise KeyError(ref)


# ---------------------------------------------------------------- the key

def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def unquote(s):
    s = s.strip()
    return s[1:-1] if s.startswith("`") and s.endswith("`") else s


def pdf_lines():
    out = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], capture_output=True, text=True,
                         check=True).stdout
    return out.split("\n")


def decimals_of(text):
    t = text.replace("−", "-").replace("%", "")
    return len(t.split(".")[1]) if "." in t else 0


def check_key(q):
    key = (HERE / "KEY.md").read_text(encoding="utf-8").split("\n")
    lines = pdf_lines()
    fails = rows = 0
    section = None
    for ln in key:
        if ln.startswith("## "):
            section = ln[3:].strip()
            continue
        if not ln.startswith("| `"):
            continue
        c = cells(ln)
        printed, line_no = unquote(c[0]), int(c[1])
        quantity = unquote(c[-1]).split("` or `")[0]
        v = value(q, quantity)
        n = decimals_of(printed)
        pct = printed.endswith("%")
        shown = v * 100 if pct else v
        ok_line = printed in lines[line_no - 1]
        correct = rnd(shown, n)
        problems = []
        if not ok_line:
            problems.append(f"printed text not on line {line_no}: {lines[line_no - 1]!r}")
        if section.startswith("Planted"):
            exact_col, round_col = c[3], unquote(c[4])
            ex = exact_col.rstrip("…").replace("−", "-")
            shown_ex = [mp.nstr(x, 40, strip_zeros=False, min_fixed=-60, max_fixed=60) for x in (v, v * 100)]
            if not any(x.startswith(ex) for x in shown_ex):
                problems.append(f"exact value column {exact_col} ≠ {mp.nstr(v, 15)}")
            # the correct rounding column: at the printed precision (percentages as a fraction ×100)
            rc = round_col.replace("−", "-")
            rn = decimals_of(rc)
            want = rnd(v * 100 if rc.endswith("%") else v, rn) + ("%" if rc.endswith("%") else "")
            if rc != want:
                problems.append(f"correct rounding column {round_col} ≠ {want}")
            p_norm = printed.replace("−", "-").rstrip("%")
            if p_norm == correct:
                problems.append(f"planted figure {printed} is the correct rounding")
        else:
            p_norm = printed.replace("−", "-").rstrip("%")
            if p_norm != correct:
                problems.append(f"correct figure {printed} ≠ rounding {correct}")
        rows += 1
        status = "ok" if not problems else "FAIL"
        print(f"{status:4} {section[:7]:7} line {line_no:3} {printed:>10}  {quantity:28} = {mp.nstr(v, 15)}")
        for pr in problems:
            print("     ", pr)
        fails += bool(problems)
    return rows, fails


def main():
    q = compute()
    if "--dump" in sys.argv:
        for k, v in q.items():
            print(f"{k:34} {mp.nstr(v, 12, min_fixed=-30, max_fixed=30)}")
        return
    rows, fails = check_key(q)
    fails += check_every_figure(q)
    planted = sum(1 for ln in (HERE / "KEY.md").read_text(encoding="utf-8").split("## Correct")[0].split("\n")
                  if ln.startswith("| `"))
    if planted != 8:
        print(f"FAIL: {planted} planted rows, expected 8")
        fails += 1
    print(f"{rows} key rows checked, {fails} failing" + ("" if fails else ": all ok"))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
