#!/usr/bin/env python3
"""Independent oracle for the en-pdf-seed-adamw tutorial: plain mpmath at 50 digits, no symgpt.

    python oracle.py            # check every KEY.md row against the exact values and DOC.pdf's text
    python oracle.py --dump     # print every quantity (the figures the handout is written from)

Model (read from SPEC.toml): one post-LN transformer block, one head, d = 2, d_ff = 4, ReLU FFN,
sinusoidal positions PE[t,2i] = sin(t / base^(2i/d)), PE[t,2i+1] = cos(same), t from 0; tied head.
H0 = E[ids] + PE; Q, K, V = H0·W; S = Q·Kᵀ/√d; causal softmax A; Attn = A·V; H1 = H0 + Attn;
LN1 (biased variance, eps, γ = 1, β = 0); Z = LN1·W_1 + b_1; R = ReLU(Z); F = R·W_2 + b_2;
H2 = LN1 + F; LN2; logits = LN2[T-1]·Eᵀ; p = softmax; loss = -ln p[target].
∂loss/∂W_2 by a hand-written reverse pass, cross-checked by central differences (h = 1e-20).
AdamW as torch.optim.AdamW, first step: m = (1-β1)g, v = (1-β2)g², mhat = m/(1-β1), vhat = v/(1-β2),
update = lr·mhat/(√vhat + eps), decay = lr·λ·θ, θ1 = θ - decay - update.
Rounding is half away from zero, on the 45-digit decimal of the value.
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


VOCAB = SPEC["model"]["vocab"]
D = SPEC["model"]["d"]
EPS = mp.mpf(str(SPEC["model"]["ln_eps"]))
BASE = mp.mpf(str(SPEC["model"].get("pe_base", 10000)))
IDS = [VOCAB.index(t) for t in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
E0 = M(SPEC["weights"]["E"])
LAYER = {k: M(v) for k, v in SPEC["layer"][0].items()}
ADAM = {k: mp.mpf(str(v)) for k, v in SPEC["training"]["adamw"].items()}


def layernorm(H):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]


def forward(W2):
    E, L = E0, LAYER
    T = len(IDS)
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / D)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(D)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(D)] for t in range(T)]
    Q, K, V = matmul(H0, L["W_Q"]), matmul(H0, L["W_K"]), matmul(H0, L["W_V"])
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(D)) / mp.sqrt(D) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, L["b_1"])] for r in matmul(LN1, L["W_1"])]
    R = [[z if z > 0 else mp.mpf(0) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, L["b_2"])] for r in matmul(R, W2)]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    logits = [mp.fsum(LN2[-1][j] * E[v][j] for j in range(D)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, logits=logits, sum_exp=sum_exp,
                p=p, loss=-mp.log(p[TGT]))


def backward_W2(f):
    """∂loss/∂W_2 by hand: logits -> LN2 (last row) -> H2 -> F -> W_2."""
    E = E0
    gz = [f["p"][v] - (1 if v == TGT else 0) for v in range(len(E))]
    g_ln2 = [mp.fsum(gz[v] * E[v][j] for v in range(len(E))) for j in range(D)]
    x, s = f["LN2"][-1], mp.sqrt(f["var2"][-1] + EPS)
    mean_g = mp.fsum(g_ln2) / D
    mean_gx = mp.fsum(g * xx for g, xx in zip(g_ln2, x)) / D
    g_h2 = [(g_ln2[j] - mean_g - x[j] * mean_gx) / s for j in range(D)]
    g_W2 = [[f["R"][-1][k] * g_h2[j] for j in range(D)] for k in range(len(f["R"][0]))]
    return dict(grad_logits=gz, grad_LN2=g_ln2, grad_H2=g_h2, grad_W_2=g_W2, s2=s)


def central_diff_W2(k, j, h=mp.mpf("1e-20")):
    W2p = [r[:] for r in LAYER["W_2"]]
    W2m = [r[:] for r in LAYER["W_2"]]
    W2p[k][j] += h
    W2m[k][j] -= h
    return (forward(W2p)["loss"] - forward(W2m)["loss"]) / (2 * h)


def adamw_first(theta, g):
    lr, b1, b2, eps, wd = ADAM["lr"], ADAM["beta1"], ADAM["beta2"], ADAM["eps"], ADAM["weight_decay"]
    m, v = (1 - b1) * g, (1 - b2) * g * g
    mhat, vhat = m / (1 - b1), v / (1 - b2)
    upd = lr * mhat / (mp.sqrt(vhat) + eps)
    dec = lr * wd * theta
    return dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=theta - dec - upd)


def values():
    f = forward(LAYER["W_2"])
    b = backward_W2(f)
    for k in range(4):
        for j in range(D):
            cd = central_diff_W2(k, j)
            assert abs(cd - b["grad_W_2"][k][j]) < mp.mpf("1e-30"), (k, j, cd, b["grad_W_2"][k][j])
    out = {}
    T = len(IDS)
    for name in ("PE", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t in range(T):
            for j in range(len(f[name][t])):
                out[f"{name}[{t},{j}]"] = f[name][t][j]
    for name in ("mu1", "var1", "mu2", "var2", "A_den"):
        for t in range(T):
            out[f"{name}[{t}]"] = f[name][t]
    for v, tok in enumerate(VOCAB):
        out[f"logits[{tok}]"] = f["logits"][v]
        out[f"p[{tok}]"] = f["p"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(f["logits"][v])
        out[f"grad_logits[{tok}]"] = b["grad_logits"][v]
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    for t in range(T):
        out[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + EPS)
        out[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(f["var2"][t] + EPS)
    for j in range(D):
        out[f"grad_LN2[2,{j}]"] = b["grad_LN2"][j]
        out[f"grad_H2[2,{j}]"] = b["grad_H2"][j]
        out[f"grad_F[2,{j}]"] = b["grad_H2"][j]
    for k in range(4):
        for j in range(D):
            g = b["grad_W_2"][k][j]
            out[f"grad_W_2[{k},{j}]"] = g
            st = adamw_first(LAYER["W_2"][k][j], g)
            for key in ("m", "v", "mhat", "vhat", "update", "decay"):
                out[f"adamw[1].{key}[W_2,{k},{j}]"] = st[key]
            out[f"adamw[1].W_2[{k},{j}]"] = st["new"]
    return out


def pdf_lines() -> list[str]:
    pdf = HERE / "DOC.pdf"
    if not pdf.is_file():
        return []
    txt = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return txt.split("\n")


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace("\u2013", "-")


def main() -> int:
    vals = values()
    if "--dump" in sys.argv:
        for k, v in vals.items():
            print(f"{k:<32} {mp.nstr(v, 20)}")
        return 0
    lines = pdf_lines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = n_planted = n_correct = 0
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
        planted = len(cells) == 7
        shown = cells[4].strip("`") if planted else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        notes = []
        if planted:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                notes.append(f"KEY'S CORRECT ROUNDING {shown} != {right}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                notes.append("KEY'S EXACT VALUE DISAGREES")
            pl = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            if rnd(v, pl) == norm(printed).rstrip("%") or right == norm(printed):
                notes.append("PLANTED FIGURE IS ACTUALLY CORRECT")
        else:
            n_correct += 1
            if right != norm(printed):
                notes.append(f"NOT THE CORRECT ROUNDING ({right})")
        if not lines:
            notes.append("NO DOC.pdf")
        elif not (1 <= line <= len(lines)) or norm(printed) not in norm(lines[line - 1]):
            notes.append(f"NOT ON LINE {line}")
        bad += bool(notes)
        print(f"  {printed:>10}  line {line:>3}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<10} "
              + ("; ".join(notes) if notes else ("planted, key agrees" if planted else "correct")))
    ok = not bad and n_planted == 8 and n_correct == 10
    print(f"{n_planted} planted, {n_correct} correct rows: " + ("all key rows agree with the oracle and DOC.pdf"
                                                                   if ok else f"{bad} rows disagree"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
