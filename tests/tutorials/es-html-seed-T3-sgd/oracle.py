#!/usr/bin/env python3
"""Independent mpmath oracle for es-html-seed-T3-sgd (DOC.html, KEY.md, SPEC.toml).

    python3 oracle.py

Reads the weights from SPEC.toml (tomllib; every number taken from its decimal text), computes the
seed transformer at 50 digits without symgpt, and checks every row of KEY.md: the exact value, the
correct rounding (half away from zero) and that the printed text occurs on the stated line of DOC.html.

Model (post-LN, one layer, one head, ReLU FFN, sinusoidal positions, tied head):
  PE[t,0] = sin(t), PE[t,1] = cos(t) (d = 2, base^0 = 1);  H0 = E[ids] + PE
  Q, K, V = H0 W_Q, H0 W_K, H0 W_V;  S = Q K^T / sqrt(2), causal softmax A;  Attn = A V
  H1 = H0 + Attn;  LN1 (biased variance, eps);  Z = LN1 W_1 + b_1;  R = ReLU(Z);  F = R W_2 + b_2
  H2 = LN1 + F;  LN2;  h = LN2[T-1];  logits = h E^T;  p = softmax;  loss = -ln p[target]
Head path only: grad_E_head[v] = (p_v - y_v) h.  One SGD step (lr) on three rows (leche, bebe, <s>):
  E'[v] = E[v] - lr grad_E_head[v];  new logits h E'^T with h held fixed;  new p from them.
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
    return mp.mpf(str(x)) if not isinstance(x, str) else mp.mpf(x)


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    tok = {w: i for i, w in enumerate(vocab)}
    ids = [tok[w] for w in spec["data"]["input"]]
    tgt = tok[spec["data"]["target"]]
    eps = num(spec["model"]["ln_eps"])
    base = num(spec["model"].get("pe_base", 10000))
    lr = num(spec["training"]["lr"])
    E = M(spec["weights"]["E"])
    L = spec["layer"][0]
    WQ, WK, WV, W1, W2 = (M(L[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "W_2"))
    b1, b2 = M(L["b_1"]), M(L["b_2"])
    T, d, V = len(ids), len(E[0]), len(E)

    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    X = [E[i][:] for i in ids]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, Vv = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    raw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    S = [[raw[t][s] / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, Vv)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1, eps)
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2, eps)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(V)]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    y = [mp.mpf(1 if v == tgt else 0) for v in range(V)]
    gl = [p[v] - y[v] for v in range(V)]
    gEh = [[gl[v] * h[j] for j in range(d)] for v in range(V)]
    rows = [tok["leche"], tok["bebe"], tok["<s>"]]
    E1 = [r[:] for r in E]
    for v in rows:
        E1[v] = [E[v][j] - lr * gEh[v][j] for j in range(d)]
    logits1 = [mp.fsum(h[j] * E1[v][j] for j in range(d)) for v in range(V)]
    sum_exp1 = mp.fsum(mp.exp(z) for z in logits1)
    p1 = [mp.exp(z) / sum_exp1 for z in logits1]
    # symgpt's head_step: only the target's row moved, every other logit as it was
    lo = logits[:]
    lo[tgt] = logits1[tgt]
    p_head = mp.exp(lo[tgt]) / mp.fsum(mp.exp(z) for z in lo)
    return dict(vocab=vocab, tok=tok, p_head=p_head, PE=PE, X=X, H0=H0, Q=Q, K=K, V=Vv, raw=raw, S=S, A_den=A_den, A=A,
                Attn=Attn, H1=H1, mu1=mu1, var1=var1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2,
                LN2=LN2, h=h, logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[tgt]), grad_logits=gl,
                grad_E_head=gEh, E1=E1, logits1=logits1, sum_exp1=sum_exp1, p1=p1, loss1=-mp.log(p1[tgt]),
                lr=lr, eps=eps, E=E, WQ=WQ, WK=WK, WV=WV, W1=W1, b1=b1, W2=W2, b2=b2)


# ---------------------------------------------------------------- the key's quantities

def key_values(m):
    t = m["tok"]
    L, S_ = t["leche"], t["<s>"]
    return {
        "K[1,1]": m["K"][1][1], "S[2,0]": m["S"][2][0], "A[2,2]": m["A"][2][2], "var1[1]": m["var1"][1],
        "Z[2,3]": m["Z"][2][3], "loss": m["loss"], "grad_logits[<s>]": m["grad_logits"][S_], "p[<s>]": m["p"][S_],
        "head_step.E[leche,0]": m["E1"][L][0],
        "H0[2,0]": m["H0"][2][0], "Q[2,0]": m["Q"][2][0], "A_den[2]": m["A_den"][2], "H1[2,0]": m["H1"][2][0],
        "mu1[1]": m["mu1"][1], "h_final[0]": m["h"][0], "LN2[2,0]": m["LN2"][2][0], "sum_exp": m["sum_exp"],
        "grad_E_head[leche,0]": m["grad_E_head"][L][0], "head_step.logits[leche]": m["logits1"][L],
        "head_step.p[leche]": m["p_head"],
    }


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace("%", "").strip()


def places_of(s: str) -> int:
    s = norm(s)
    return len(s.split(".")[1]) if "." in s else 0


def key_rows():
    rows = []
    for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if r.startswith("| `"):
            cells = [c.strip() for c in r.strip().strip("|").split("|")]
            rows.append(cells)
    return rows


# ---------------------------------------------------------------- every decimal figure of the page explained

def flatten(x):
    if isinstance(x, list):
        for y in x:
            yield from flatten(y)
    elif isinstance(x, mp.mpf):
        yield x


def candidates(m):
    c = []
    for k, v in m.items():
        if k not in ("vocab", "tok"):
            c += list(flatten(v))
    T = len(m["S"])
    c += [mp.exp(m["S"][t][s]) for t in range(T) for s in range(t + 1)]
    c += [mp.exp(z) for z in m["logits"]] + [mp.exp(z) for z in m["logits1"]]
    c += [100 * a for a in flatten(m["A"])]
    c += [x - mu for r, mu in zip(m["H1"], m["mu1"]) for x in r]
    c += [x - mu for r, mu in zip(m["H2"], m["mu2"]) for x in r]
    c += [mp.sqrt(v + m["eps"]) for v in m["var1"]] + [mp.sqrt(v + m["eps"]) for v in m["var2"]]
    c += [m["h"][0] ** 2 + m["h"][1] ** 2, mp.sqrt(2)]
    c += [a - b for a, b in zip(m["logits1"], m["logits"])] + [b - a for a, b in zip(m["logits1"], m["logits"])]
    return c


def audit_doc(m, planted) -> int:
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    cand = candidates(m)
    body = next(i for i, l in enumerate(lines) if l.startswith("<body>"))
    bad = n = 0
    for i, line in enumerate(lines[body:], start=body + 1):
        for tokn in re.findall(r"[\u2212-]?\d+\.\d+", line):
            n += 1
            tk = norm(tokn)
            if (i, tk) in planted or (i, tk.lstrip("-")) in planted:
                continue
            p = places_of(tk)
            if not any(rnd(v, p) == tk for v in cand):
                bad += 1
                print(f"  line {i}: {tokn} explained by no quantity of the oracle")
    print(f"DOC.html: {n} decimal figures read, {n - bad} explained (weights, settings or the oracle's values)")
    return bad


def main() -> int:
    m = model()
    vals = key_values(m)
    doc = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    bad = 0
    planted = set()
    for cells in key_rows():
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((x for x in names if x in vals), None)
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        on_line = 1 <= line <= len(doc) and printed in doc[line - 1]
        if len(cells) == 7:
            shown = norm(cells[4].strip("`"))
            right = rnd(v, places_of(shown))
            exact = mp.mpf(cells[3].rstrip("…"))
            differs = rnd(v, places_of(printed)) != norm(printed)
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and differs and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted.add((line, norm(printed)))
        else:
            right = rnd(v, places_of(printed))
            ok = right == norm(printed) and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    bad += audit_doc(m, planted)
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
