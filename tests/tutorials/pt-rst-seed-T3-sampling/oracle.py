#!/usr/bin/env python3
"""Independent check of pt-rst-seed-T3-sampling: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py            # every KEY.md row: value, rounding, and where it is printed in DOC.rst
    python3 oracle.py --figures  # every quantity the tutorial prints, at 4 decimals (for writing it)

The model is read from SPEC.toml (tomllib). One post-LN block (the seed architecture):
H0 = E[ids] + PE with PE[t,2i] = sin(t/base^(2i/d)), PE[t,2i+1] = cos(same), t from 0;
Q, K, V = H0·W; S = Q·Kᵀ/√d_k; causal softmax A (row t over s ≤ t); Attn = A·V; H1 = H0 + Attn;
LN1 with the biased variance and ε; Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2; H2 = LN1 + F;
LN2; logits = LN2[T-1]·Eᵀ (tied head); p = softmax(logits); loss = -ln p[target].
Sampling: softmax_T(T, v) = exp(logit_v/T)/Σ exp(logit_k/T); topk(k, v) = p[v] / (sum of the k largest p)
when v is among them, else 0. Rounding is half away from zero on the 45-digit decimal of the value.
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


def num(x) -> mp.mpf:
    return mp.mpf(str(x))


def M(a):
    return [[num(v) for v in r] for r in a] if isinstance(a[0], list) else [num(v) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(x - m) / mp.sqrt(v + eps) for x in r] for r, m, v in zip(H, mu, var)]


def compute() -> dict[str, mp.mpf]:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    model, w, lay = spec["model"], spec["weights"], spec["layer"][0]
    vocab = model["vocab"]
    d, T = model["d"], len(spec["data"]["input"])
    assert model["heads"] == 1 and model["layers"] == 1 and model.get("tied", True)
    eps, base = num(model["ln_eps"]), num(model.get("pe_base", 10000))
    E = M(w["E"])
    WQ, WK, WV, W1, W2 = (M(lay[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "W_2"))
    b1, b2 = M(lay["b_1"]), M(lay["b_2"])
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])

    ang = lambda t, j: t / base ** (mp.mpf(j - j % 2) / d)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(d)] for t in range(T)]
    H0 = [[E[ids[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    Q, K, V = matmul(H0, WQ), matmul(H0, WK), matmul(H0, WV)
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1, eps)
    Z = [[z + b for z, b in zip(r, b1)] for r in matmul(LN1, W1)]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, b2)] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2, eps)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]

    out: dict[str, mp.mpf] = {}

    def put(name, M2):
        for i, r in enumerate(M2):
            if isinstance(r, list):
                for j, x in enumerate(r):
                    out[f"{name}[{i},{j}]"] = x
            else:
                out[f"{name}[{i}]"] = r

    for name, val in dict(E=E, PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1,
                          mu1=mu1, var1=var1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2,
                          LN2=LN2).items():
        put(name, val)
    put("h_final", h)
    for t in range(T):
        out[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(var1[t] + eps)
        out[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(var2[t] + eps)
        for s in range(t + 1):
            out[f"exp(S[{t},{s}])"] = mp.exp(S[t][s])
            out[f"S[{t},{s}]*sqrt(2)"] = S[t][s] * mp.sqrt(d)
    out["sum_exp"], out["loss"] = sum_exp, -mp.log(p[tgt])
    for v, tok in enumerate(vocab):
        out[f"logits[{tok}]"], out[f"p[{tok}]"], out[f"exp(logits[{tok}])"] = logits[v], p[v], mp.exp(logits[v])
    for Tq in spec.get("sampling", {}).get("temperatures", ["0.7"]):
        if str(Tq) == "inf":
            continue
        Tm = num(Tq)
        den = mp.fsum(mp.exp(z / Tm) for z in logits)
        out[f"sum_exp_T({Tq})"] = den
        for v, tok in enumerate(vocab):
            out[f"softmax_T({Tq}, {tok})"] = mp.exp(logits[v] / Tm) / den
            out[f"logits[{tok}]/{Tq}"] = logits[v] / Tm
            out[f"exp(logits[{tok}]/{Tq})"] = mp.exp(logits[v] / Tm)
    k = spec.get("sampling", {}).get("top_k", 3)
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    kept = order[:k]
    mass = mp.fsum(p[v] for v in kept)
    out[f"topk_mass({k})"] = mass
    for v, tok in enumerate(vocab):
        out[f"topk({k}, {tok})"] = p[v] / mass if v in kept else mp.mpf(0)
    out["greedy"] = mp.mpf(order[0])
    return out


# ---------------------------------------------------------------- the key

def number_of(printed: str) -> str:
    """The figure as a plain decimal with a point: '−0,2961' → '-0.2961'."""
    return printed.replace("\u2212", "-").replace("{,}", ",").replace(",", ".").rstrip("%").strip()


def variants(printed: str) -> set[str]:
    """How the printed figure may stand in the file: in prose/tables or inside LaTeX math."""
    base = printed.strip()
    out = {base, base.replace(",", "{,}")}
    for s in list(out):
        if s.startswith("-"):
            out.add("\u2212" + s[1:])
        if s.startswith("\u2212"):
            out.add("-" + s[1:])
    return out


def main() -> int:
    values = compute()
    if "--figures" in sys.argv:
        for k, v in values.items():
            print(f"{k:<28} {mp.nstr(v, 15):<22} {rnd(v, 4)}")
        return 0
    doc = (HERE / "DOC.rst").read_text(encoding="utf-8").splitlines()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(number_of(shown).split(".")[1]) if "." in number_of(shown) else 0
        right = rnd(v, places)
        on_line = 1 <= line <= len(doc) and any(s in doc[line - 1] for s in variants(printed))
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = (number_of(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and Decimal(number_of(printed)) != Decimal(right) and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            correct += 1
            ok = number_of(printed) == right and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print(f"{planted} planted, {correct} correct rows")
    if planted != 8 or correct != 10:
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
