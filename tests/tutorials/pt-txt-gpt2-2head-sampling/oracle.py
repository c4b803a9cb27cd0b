#!/usr/bin/env python3
"""Independent check of DOC.txt / KEY.md (pt-txt-gpt2-2head-sampling): plain mpmath at 50 digits, no symgpt.

    python3 oracle.py          # every KEY.md row: value, correct rounding, and the printed text on its line
    python3 oracle.py --dump   # every quantity the tutorial prints, for writing the document

Model (read from SPEC.toml): one GPT-2 block, pre-LayerNorm, two heads (d_k = 2), learned positions,
biases on every projection, GELU in tanh form, final LayerNorm ln_f, tied head.
    H0 = E[ids] + W_pe;  LN1 = LN(H0);  Q, K, V = LN1·W + b;  S[h,t,s] = Q_h[t]·K_h[s]/√2, causal softmax A;
    Attn_heads = A·V (heads side by side);  Attn = Attn_heads·W_O + b_O;  H1 = H0 + Attn;  LN2 = LN(H1);
    Z = LN2·W_1 + b_1;  R = gelu_tanh(Z);  F = R·W_2 + b_2;  H2 = H1 + F;  LN_f = LN(H2)·γ_f + β_f;
    logits = LN_f[T-1]·Eᵀ;  p = softmax;  loss = −ln p[target];
    softmax_T(T, v) = softmax(logits/T);  topk(k, v) = p renormalised over the k most probable.
LayerNorm: biased variance, eps from the spec. Rounding is half away from zero on a 45-digit decimal.
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


def addb(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def layernorm(H, eps, g, b):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[g[j] * (r[j] - m) / mp.sqrt(v + eps) + b[j] for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu_tanh(z):
    return z / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (z + mp.mpf("0.044715") * z ** 3)))


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab, d, H = m["vocab"], m["d"], m["heads"]
    dk = d // H
    eps = mp.mpf(str(m["ln_eps"]))
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)
    E, Wpe = M(w["E"]), M(w["W_pe"])
    one, zero = [mp.mpf(1)] * d, [mp.mpf(0)] * d
    g1, b1n = M(L.get("gamma1", one)), M(L.get("beta1", zero))
    g2, b2n = M(L.get("gamma2", one)), M(L.get("beta2", zero))
    gf, bf = M(w.get("gamma_f", one)), M(w.get("beta_f", zero))
    X = [E[i][:] for i in ids]
    PE = [Wpe[t][:] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, eps, g1, b1n)
    Q = addb(matmul(LN1, M(L["W_Q"])), M(L["b_Q"]))
    K = addb(matmul(LN1, M(L["W_K"])), M(L["b_K"]))
    V = addb(matmul(LN1, M(L["W_V"])), M(L["b_V"]))
    S = [[[mp.fsum(Q[t][h * dk + j] * K[s][h * dk + j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(H)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    AH = [[mp.fsum(A[j // dk][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    Attn = addb(matmul(AH, M(L["W_O"])), M(L["b_O"]))
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, eps, g2, b2n)
    Z = addb(matmul(LN2, M(L["W_1"])), M(L["b_1"]))
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = addb(matmul(R, M(L["W_2"])), M(L["b_2"]))
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    muf, varf, LNf = layernorm(H2, eps, gf, bf)
    hf = LNf[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    q = dict(vocab=vocab, ids=ids, tgt=tgt, X=X, PE=PE, H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S,
             A_den=A_den, A=A, Attn_heads=AH, Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2,
             mu_f=muf, var_f=varf, LN_f=LNf, h_final=hf, logits=logits, sum_exp=sum_exp, p=p,
             loss=-mp.log(p[tgt]), eps=eps)
    # sampling
    for Tm in (mp.mpf("0.5"), mp.mpf(2)):
        se = mp.fsum(mp.exp(z / Tm) for z in logits)
        q[f"softmax_T({mp.nstr(Tm, 3)})"] = [mp.exp(z / Tm) / se for z in logits]
        q[f"sum_exp_T({mp.nstr(Tm, 3)})"] = se
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    q["order"] = order
    top = order[:2]
    mass = mp.fsum(p[v] for v in top)
    q["top2_mass"] = mass
    q["topk2"] = [p[v] / mass if v in top else mp.mpf(0) for v in range(len(vocab))]
    q["argmax"] = order[0]
    return q


def values(q):
    """The reference names of KEY.md (symgpt's names) → exact values."""
    vocab = q["vocab"]
    out = {}
    for name in ("X", "PE", "H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2",
                 "LN_f"):
        for t, r in enumerate(q[name]):
            for j, x in enumerate(r):
                out[f"{name}[{t},{j}]"] = x
    for name in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f"):
        for t, x in enumerate(q[name]):
            out[f"{name}[{t}]"] = x
            if name.startswith("var"):
                out[f"sqrt({name}[{t}] + ln_eps)"] = mp.sqrt(x + q["eps"])
    for h in range(2):
        for t in range(4):
            out[f"A_den[{h},{t}]"] = q["A_den"][h][t]
            for s in range(4):
                out[f"S[{h},{t},{s}]"] = q["S"][h][t][s]
                out[f"A[{h},{t},{s}]"] = q["A"][h][t][s]
                out[f"exp(S[{h},{t},{s}])"] = mp.exp(q["S"][h][t][s])
    for j, x in enumerate(q["h_final"]):
        out[f"h_final[{j}]"] = x
    for v, tok in enumerate(vocab):
        out[f"logits[{tok}]"] = q["logits"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(q["logits"][v])
        out[f"p[{tok}]"] = q["p"][v]
        out[f"softmax_T(0.5, {tok})"] = q["softmax_T(0.5)"][v]
        out[f"softmax_T(2, {tok})"] = q["softmax_T(2.0)"][v]
        out[f"topk(2, {tok})"] = q["topk2"][v]
    out["sum_exp"] = q["sum_exp"]
    out["loss"] = q["loss"]
    return out


def intermediates(q, spec):
    """The other figures the post prints: weights, constants and the steps of its worked lines."""
    pool = {}
    w, L = spec["weights"], spec["layer"][0]
    for name, t in list(w.items()) + list(L.items()):
        for i, r in enumerate(t):
            for j, x in enumerate(r if isinstance(r, list) else [r]):
                pool[f"{name}[{i},{j}]"] = mp.mpf(str(x))
    pool["ln_eps"] = q["eps"]
    pool["0.044715"] = mp.mpf("0.044715")
    pool["sqrt(2/pi)"] = mp.sqrt(2 / mp.pi)
    pool["1/6"] = mp.mpf(1) / 6
    for t in range(4):
        pool[f"sum(H0-mu1)^2[{t}]"] = q["var1"][t] * 4
        pool[f"var1+eps[{t}]"] = q["var1"][t] + q["eps"]
        for j in range(4):
            pool[f"H0-mu1[{t},{j}]"] = q["H0"][t][j] - q["mu1"][t]
            pool[f"H1-mu2[{t},{j}]"] = q["H1"][t][j] - q["mu2"][t]
    pool["H0 sum[3]"] = mp.fsum(q["H0"][3])
    z = q["Z"][3][7]                                    # the worked GELU of z_8
    u = z + mp.mpf("0.044715") * z ** 3
    pool.update({"z8^3": z ** 3, "0.044715 z8^3": mp.mpf("0.044715") * z ** 3, "z8 + 0.044715 z8^3": u,
                 "sqrt(2/pi) u": mp.sqrt(2 / mp.pi) * u, "tanh(sqrt(2/pi) u)": mp.tanh(mp.sqrt(2 / mp.pi) * u),
                 "1 + tanh": 1 + mp.tanh(mp.sqrt(2 / mp.pi) * u)})
    for v in range(len(q["vocab"])):
        pool[f"logits[{v}]/0.5"] = q["logits"][v] * 2
        pool[f"exp(logits[{v}]/0.5)"] = mp.exp(q["logits"][v] * 2)
    pool["sum exp(logits/0.5)"] = q["sum_exp_T(0.5)"]
    pool["sum exp(logits/2)"] = q["sum_exp_T(2.0)"]
    pool["p[o] + p[leite]"] = q["top2_mass"]
    return pool


def audit(doc, pool, planted):
    """Every decimal figure of DOC.txt (indices in brackets skipped) must be a correct rounding of some value
    of the pool, or one of the key's planted errors."""
    bad = 0
    cache = {}
    for n, line in enumerate(doc, 1):
        scan = re.sub(r"\[[^\]]*\]", lambda m: " " * len(m.group(0)), line)
        for m in re.finditer(r"−?\d+,\d+(?:\s?%)?", scan):
            txt = m.group(0)
            if (n, txt) in planted or (n, txt.replace(" %", "")) in planted:
                continue
            pct = txt.endswith("%")
            s = txt.rstrip("%").strip().replace("−", "-").replace(",", ".")
            places = len(s.split(".")[1])
            key = (places, pct)
            if key not in cache:
                cache[key] = {rnd(v * (100 if pct else 1), places) for v in pool.values()}
            if s not in cache[key]:
                print(f"  line {n}: {txt} is the correct rounding of none of the oracle's values")
                bad += 1
    return bad


def dump(q, vals):
    for k, v in vals.items():
        print(f"{k:<28} {mp.nstr(v, 12)}")
    print("order", [q["vocab"][v] for v in q["order"]], "top2 mass", mp.nstr(q["top2_mass"], 12))
    print("sum_exp_T(0.5)", mp.nstr(q["sum_exp_T(0.5)"], 12), "sum_exp_T(2)", mp.nstr(q["sum_exp_T(2.0)"], 12))


def main() -> int:
    q = model()
    vals = values(q)
    if "--dump" in sys.argv:
        dump(q, vals)
        return 0
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            problems.append(f"printed text not on line {line}")
        if ref is not None:
            pct = printed.endswith("%")
            v = vals[ref] * (100 if pct else 1)
            shown = cells[4].strip("`") if len(cells) == 7 else printed
            num = shown.rstrip("%").strip().replace("−", "-").replace(",", ".")
            places = len(num.split(".")[1]) if "." in num else 0
            right = rnd(v, places)
            pnum = printed.rstrip("%").strip().replace("−", "-").replace(",", ".")
            if len(cells) == 7:
                planted += 1
                exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
                if num != right:
                    problems.append(f"correct-rounding column {shown} but the value rounds to {right}")
                if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                    problems.append(f"exact-value column {cells[3]} but the value is {mp.nstr(v, 15)}")
                if rnd(v, len(pnum.split('.')[1]) if '.' in pnum else 0) == pnum:
                    problems.append("the planted figure is in fact the correct rounding")
                note = "planted, key agrees"
            else:
                correct += 1
                if pnum != right:
                    problems.append(f"not the correct rounding (value rounds to {right})")
                note = "correct"
            print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<9} "
                  f"{'; '.join(problems) if problems else note}")
        else:
            print(f"  {printed:>10}  line {line:>3}  {'; '.join(problems)}")
        bad += bool(problems)
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    pool = dict(vals)
    pool.update(intermediates(q, spec))
    planted_at = set()
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        if len(cells) == 7:
            planted_at.add((int(cells[1]), cells[0].strip("`")))
    n_bad = audit(doc, pool, planted_at)
    print(f"every other decimal figure of DOC.txt is a correct rounding ({n_bad} exceptions)")
    bad += n_bad
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print(f"all {len(rows)} key rows agree with the oracle and DOC.txt" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
