#!/usr/bin/env python3
"""Independent oracle for pl-tex-nanogpt-2layer-sampling: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # every KEY.md row: its exact value, its rounding, and that the printed
                               # text stands on the stated line of DOC.tex
    python3 oracle.py --all    # also every quantity the tutorial prints, 20 digits

The model, written out from nanoGPT's model.py (bias=True, one head, two blocks):
H0 = wte[ids] + wpe[0..T-1]; in each block x ← x + c_proj(attn(ln_1(x))); x ← x + mlp(ln_2(x)),
LayerNorm with the biased variance, eps = 1e-5, weight 1, bias 0; attention q, k, v = ln_1(x)·W + b,
scores q·k/√d (one head of size d = 4), causal softmax, (A·V)·W_O + b_O; MLP GELU(ln_2(x)·W_1 + b_1)·W_2 + b_2
with the exact erf GELU; then ln_f, logits = ln_f(x)[T-1]·wteᵀ, p = softmax, loss = −ln p[target].
Sampling: softmax(logits/τ); top-k keeps the k most probable words and renormalises; top-p keeps the shortest
prefix of the ranking with mass ≥ P and renormalises; the inverse-CDF draw returns the first word in id order
whose cumulative probability exceeds u.  Rounding is half away from zero, on a 45-digit decimal of the value.
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


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def gelu(x):
    return x / 2 * (1 + mp.erf(x / mp.sqrt(2)))


def forward(spec):
    m, w = spec["model"], spec["weights"]
    vocab, d, eps = m["vocab"], m["d"], num(m["ln_eps"])
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    E, Wpe = M(w["E"]), M(w["W_pe"])
    f = {"X": [E[i][:] for i in ids], "PE": [Wpe[t][:] for t in range(T)]}
    H = [[E[i][j] + Wpe[t][j] for j in range(d)] for t, i in enumerate(ids)]
    f["H0"] = H
    blocks = []
    for L in spec["layer"]:
        b = {}
        b["mu1"], b["var1"], b["LN1"] = layernorm(H, eps)
        for n in "QKV":
            b[n] = addrow(matmul(b["LN1"], M(L["W_" + n])), M(L["b_" + n]))
        b["S"] = [[mp.fsum(b["Q"][t][j] * b["K"][s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)]
                  for t in range(T)]
        b["A_den"] = [mp.fsum(mp.exp(b["S"][t][s]) for s in range(t + 1)) for t in range(T)]
        b["A"] = [[mp.exp(b["S"][t][s]) / b["A_den"][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        b["Attn_heads"] = matmul(b["A"], b["V"])
        b["Attn"] = addrow(matmul(b["Attn_heads"], M(L["W_O"])), M(L["b_O"]))
        b["H1"] = [[H[t][j] + b["Attn"][t][j] for j in range(d)] for t in range(T)]
        b["mu2"], b["var2"], b["LN2"] = layernorm(b["H1"], eps)
        b["Z"] = addrow(matmul(b["LN2"], M(L["W_1"])), M(L["b_1"]))
        b["R"] = [[gelu(z) for z in r] for r in b["Z"]]
        b["F"] = addrow(matmul(b["R"], M(L["W_2"])), M(L["b_2"]))
        b["H2"] = [[b["H1"][t][j] + b["F"][t][j] for j in range(d)] for t in range(T)]
        b["b_1"] = M(L["b_1"])
        blocks.append(b)
        H = b["H2"]
    f["blocks"] = blocks
    f["mu_f"], f["var_f"], f["LN_f"] = layernorm(H, eps)
    hf = f["LN_f"][-1]
    f["h_final"] = hf
    f["logits"] = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    f["sum_exp"] = mp.fsum(mp.exp(z) for z in f["logits"])
    f["p"] = [mp.exp(z) / f["sum_exp"] for z in f["logits"]]
    f["loss"] = -mp.log(f["p"][tgt])
    f.update(vocab=vocab, ids=ids, tgt=tgt, eps=eps, T=T, d=d)
    return f


def sampling(f, spec):
    s = spec["sampling"]
    z, p = f["logits"], f["p"]
    V = len(p)
    temp = {}
    for tau in s["temperatures"]:
        t = num(tau)
        ex = [mp.exp(v / t) for v in z]
        den = mp.fsum(ex)
        temp[t] = (ex, den, [e / den for e in ex])
    order = sorted(range(V), key=lambda v: (-p[v], v))
    k = s["top_k"]
    kept = order[:k]
    mass_k = mp.fsum(p[v] for v in kept)
    topk = [p[v] / mass_k if v in kept else mp.mpf(0) for v in range(V)]
    P = num(s["top_p"])
    nucleus, cum = [], mp.mpf(0)
    for v in order:
        nucleus.append(v)
        cum += p[v]
        if cum >= P:
            break
    mass_p = mp.fsum(p[v] for v in nucleus)
    topp = [p[v] / mass_p if v in nucleus else mp.mpf(0) for v in range(V)]
    u = num(s["uniform"])
    cdf = [mp.fsum(p[:v + 1]) for v in range(V)]
    drawn = next(v for v in range(V) if cdf[v] > u)
    return dict(temp=temp, order=order, k=k, kept=kept, mass_k=mass_k, topk=topk, P=P, nucleus=nucleus,
                mass_p=mass_p, topp=topp, u=u, cdf=cdf, drawn=drawn)


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    f = forward(spec)
    return spec, f, sampling(f, spec)


def tau_text(t) -> str:
    s = mp.nstr(t, 6)
    return s[:-2] if s.endswith(".0") else s


def values():
    """Every quantity the tutorial prints, by symgpt's reference names (0-based indices, words by name)."""
    spec, f, s = load()
    voc, out = f["vocab"], {}
    for name in ("X", "PE", "H0"):
        for t, r in enumerate(f[name]):
            for j, x in enumerate(r):
                out[f"{name}[{t},{j}]"] = x
    for l, b in enumerate(f["blocks"]):
        for name in ("LN1", "Q", "K", "V", "S", "A", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2"):
            for t, r in enumerate(b[name]):
                for j, x in enumerate(r):
                    out[f"l{l}.{name}[{t},{j}]"] = x
        for name in ("mu1", "var1", "mu2", "var2", "A_den"):
            for t, x in enumerate(b[name]):
                out[f"l{l}.{name}[{t}]"] = x
        for t in range(f["T"]):
            for u in range(t + 1):
                out[f"exp(l{l}.S[{t},{u}])"] = mp.exp(b["S"][t][u])
            out[f"l{l}.var1[{t}] + ln_eps"] = b["var1"][t] + f["eps"]
            out[f"sqrt(l{l}.var1[{t}] + ln_eps)"] = mp.sqrt(b["var1"][t] + f["eps"])
            out[f"sqrt(l{l}.var2[{t}] + ln_eps)"] = mp.sqrt(b["var2"][t] + f["eps"])
            # slips a hand calculation may make: the unbiased variance, a sum of products without its bias
            out[f"l{l}.var1[{t}]*4/3"] = b["var1"][t] * 4 / 3
            for k, z in enumerate(b["Z"][t]):
                out[f"l{l}.Z[{t},{k}] - l{l}.b_1[{k}]"] = z - b["b_1"][k]
    for name in ("mu_f", "var_f"):
        for t, x in enumerate(f[name]):
            out[f"{name}[{t}]"] = x
    for t, r in enumerate(f["LN_f"]):
        for j, x in enumerate(r):
            out[f"LN_f[{t},{j}]"] = x
    for j, x in enumerate(f["h_final"]):
        out[f"h_final[{j}]"] = x
    out["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(f["var_f"][2] + f["eps"])
    for v, tok in enumerate(voc):
        out[f"logits[{tok}]"] = f["logits"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(f["logits"][v])
        out[f"p[{tok}]"] = f["p"][v]
        for t, (ex, den, q) in s["temp"].items():
            out[f"softmax_T({tau_text(t)}, {tok})"] = q[v]
            out[f"logits[{tok}]/{tau_text(t)}"] = f["logits"][v] / t
        out[f"topk({s['k']}, {tok})"] = s["topk"][v]
        out[f"topp({tau_text(s['P'])}, {tok})"] = s["topp"][v]
    for t, (ex, den, q) in s["temp"].items():
        out[f"sum_exp_T({tau_text(t)})"] = den
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    out["-ln(0.0329)"] = -mp.log(mp.mpf("0.0329"))          # the loss from the printed, rounded p
    out["ln(6)"] = mp.log(6)
    # running totals in ranking order (top-p) and cumulative sums in id order (the inverse-CDF draw)
    for i in range(len(voc)):
        names = [voc[v] for v in s["order"][:i + 1]]
        out[" + ".join(f"p[{n}]" for n in names)] = mp.fsum(f["p"][v] for v in s["order"][:i + 1])
        out[" + ".join(f"p[{voc[v]}]" for v in range(i + 1))] = s["cdf"][i]
    out["argmax()"] = mp.mpf(s["order"][0])
    out["draw()"] = mp.mpf(s["drawn"])
    return out


def doc_line(text: str) -> str:
    r"""A line of DOC.tex as read: 0{,}5 is 0,5; \% is %."""
    return text.replace("{,}", ",").replace("\\,\\%", "%").replace("\\%", "%")


def as_dot(printed: str) -> str:
    return printed.replace(",", ".")


def check_key() -> int:
    vals = values()
    doc = (HERE / "DOC.tex").read_text(encoding="utf-8").split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
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
        print(f"  {printed:>10}  line {line:>3}  {ref:<34} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if (planted, correct) != (8, 10):
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--all" in sys.argv:
        for k, v in values().items():
            print(f"{k:<44} {mp.nstr(v, 20)}")
    sys.exit(check_key())
