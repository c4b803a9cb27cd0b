#!/usr/bin/env python3
"""Independent oracle for the en-pdf-seed-backprop-gradcheck handout: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py            # check every KEY.md row: exact value, rounding, and the text on DOC.pdf's line
    python3 oracle.py --dump     # print every quantity the handout is written from

Model (weights parsed from SPEC.toml): the "seed" block -- one post-LN transformer layer, one head,
d = 2, d_ff = 4, ReLU FFN, sinusoidal positions PE[t,2i] = sin(t / base^(2i/d)), PE[t,2i+1] = cos(same)
with t counted from 0, tied output head, LayerNorm with biased variance and eps from the spec.

Forward:  H0 = E[ids] + PE;  Q, K, V = H0 W;  S = Q K^T / sqrt(d);  causal softmax A;  Attn = A V;
          H1 = H0 + Attn;  LN1;  Z = LN1 W_1 + b_1;  R = ReLU(Z);  F = R W_2 + b_2;  H2 = LN1 + F;  LN2;
          h = LN2[T-1];  logits = h E^T;  p = softmax;  loss = -ln p[target].
Backward (written out by hand, last position only, since the loss reads only position T-1):
          dlogits = p - y;  dh = dlogits E;  LayerNorm backward dx = (dy - mean(dy) - y mean(dy*y)) / s;
          dW_2 = R^T dH2;  dR = W_2 dH2;  dZ = dR [Z > 0];  dLN1 = dH2 + W_1 dZ;  dH1 = LN-backward;
          dA[s] = dAttn . V[s];  dS = A (dA - sum A dA);  dQ = sum_s dS[s] K[s] / sqrt(d);  dW_Q = H0[T-1]^T dQ.
          Both gradients are cross-checked against central differences at h = 1e-20 (error ~ 1e-40).
Gradient check: loss_at(P, +-h) = the loss with one parameter entry moved by +-h (exact h = 1e-4),
          gradcheck(P, h) = (loss_at(P, h) - loss_at(P, -h)) / (2h).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
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
DFF = SPEC["model"]["d_ff"]
EPS = mp.mpf(str(SPEC["model"]["ln_eps"]))
BASE = mp.mpf(str(SPEC["model"].get("pe_base", 10000)))
IDS = [VOCAB.index(t) for t in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T = len(IDS)
GC = SPEC["training"]["gradcheck"]
H_GC = mp.mpf(str(GC["h"]))
PARAMS0 = {"E": M(SPEC["weights"]["E"])}
PARAMS0.update({k: M(v) for k, v in SPEC["layer"][0].items()})


def layernorm(H):
    mu = [mp.fsum(r) / D for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / D for r, m in zip(H, mu)]
    out = [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(D)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def ln_backward(y, s, dy):
    """y = (x - mu)/s for one row; dx = (dy - mean(dy) - y * mean(dy * y)) / s."""
    m1 = mp.fsum(dy) / D
    m2 = mp.fsum(a * b for a, b in zip(dy, y)) / D
    return [(dy[j] - m1 - y[j] * m2) / s for j in range(D)]


def forward(P):
    E = P["E"]
    ang = lambda t, j: t / BASE ** (mp.mpf(j - j % 2) / D)
    PE = [[mp.sin(ang(t, j)) if j % 2 == 0 else mp.cos(ang(t, j)) for j in range(D)] for t in range(T)]
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(D)] for t in range(T)]
    Q, K, V = matmul(H0, P["W_Q"]), matmul(H0, P["W_K"]), matmul(H0, P["W_V"])
    raw = [[mp.fsum(Q[t][j] * K[s][j] for j in range(D)) for s in range(T)] for t in range(T)]
    S = [[raw[t][s] / mp.sqrt(D) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn = matmul(A, V)
    H1 = [[H0[t][j] + Attn[t][j] for j in range(D)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H1)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[max(z, mp.mpf(0)) for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    H2 = [[LN1[t][j] + F[t][j] for j in range(D)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H2)
    h = LN2[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(D)) for v in range(len(E))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(PE=PE, H0=H0, Q=Q, K=K, V=V, raw=raw, S=S, A_den=A_den, A=A, Attn=Attn, H1=H1, mu1=mu1,
                var1=var1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2, var2=var2, LN2=LN2, h=h, logits=logits,
                sum_exp=sum_exp, p=p, loss=-mp.log(p[TGT]))


def backward(P, f):
    t = T - 1
    E = P["E"]
    g_logits = [f["p"][v] - (1 if v == TGT else 0) for v in range(len(E))]
    g_h = [mp.fsum(g_logits[v] * E[v][j] for v in range(len(E))) for j in range(D)]
    s2 = mp.sqrt(f["var2"][t] + EPS)
    g_H2 = ln_backward(f["LN2"][t], s2, g_h)
    g_W2 = [[f["R"][t][k] * g_H2[j] for j in range(D)] for k in range(DFF)]
    g_R = [mp.fsum(P["W_2"][k][j] * g_H2[j] for j in range(D)) for k in range(DFF)]
    g_Z = [g_R[k] if f["Z"][t][k] > 0 else mp.mpf(0) for k in range(DFF)]
    g_W1 = [[f["LN1"][t][j] * g_Z[k] for k in range(DFF)] for j in range(D)]
    g_LN1 = [g_H2[j] + mp.fsum(P["W_1"][j][k] * g_Z[k] for k in range(DFF)) for j in range(D)]
    s1 = mp.sqrt(f["var1"][t] + EPS)
    g_H1 = ln_backward(f["LN1"][t], s1, g_LN1)
    g_A = [mp.fsum(g_H1[j] * f["V"][s][j] for j in range(D)) for s in range(T)]
    dot = mp.fsum(f["A"][t][s] * g_A[s] for s in range(T))
    g_S = [f["A"][t][s] * (g_A[s] - dot) for s in range(T)]
    g_Q = [mp.fsum(g_S[s] * f["K"][s][j] for s in range(T)) / mp.sqrt(D) for j in range(D)]
    g_WQ = [[f["H0"][t][i] * g_Q[j] for j in range(D)] for i in range(D)]
    return dict(logits=g_logits, h=g_h, H2=g_H2, W_2=g_W2, R=g_R, Z=g_Z, W_1=g_W1, LN1=g_LN1, H1=g_H1,
                A=g_A, S=g_S, Q=g_Q, W_Q=g_WQ)


def parse_param(ref):
    m = re.fullmatch(r"(\w+)\[(\w+),(\d+)\]", ref.replace(" ", ""))
    name, i, j = m.group(1), m.group(2), int(m.group(3))
    i = VOCAB.index(i) if i in VOCAB else int(i)
    return name, i, j


def loss_at(ref, delta):
    name, i, j = parse_param(ref)
    P = copy.deepcopy(PARAMS0)
    P[name][i][j] += delta
    return forward(P)["loss"]


def quantities():
    P = PARAMS0
    f = forward(P)
    g = backward(P, f)
    # cross-check the hand-written backward pass by central differences at h = 1e-20
    tiny = mp.mpf("1e-20")
    for name, grad in (("W_Q", g["W_Q"]), ("W_2", g["W_2"])):
        for i in range(len(grad)):
            for j in range(len(grad[0])):
                fd = (loss_at(f"{name}[{i},{j}]", tiny) - loss_at(f"{name}[{i},{j}]", -tiny)) / (2 * tiny)
                assert abs(fd - grad[i][j]) < mp.mpf("1e-30"), (name, i, j, fd, grad[i][j])
    q = {}
    tok = lambda v: VOCAB[v]
    for name in ("PE", "H0", "Q", "K", "V", "S", "A", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t in range(T):
            for j in range(len(f[name][t])):
                q[f"{name}[{t},{j}]"] = f[name][t][j]
    for t in range(T):
        for s in range(T):
            q[f"S[{t},{s}]*sqrt(2)"] = f["raw"][t][s]
            q[f"exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
        for name in ("A_den", "mu1", "var1", "mu2", "var2"):
            q[f"{name}[{t}]"] = f[name][t]
        q[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + EPS)
        q[f"sqrt(var2[{t}] + ln_eps)"] = mp.sqrt(f["var2"][t] + EPS)
    for j in range(D):
        q[f"h_final[{j}]"] = f["h"][j]
        q[f"grad_h_final[{j}]"] = g["h"][j]
        q[f"grad_H2[2,{j}]"] = g["H2"][j]
        q[f"grad_LN1[2,{j}]"] = g["LN1"][j]
        q[f"grad_H1[2,{j}]"] = g["H1"][j]
        q[f"grad_Q[2,{j}]"] = g["Q"][j]
        for i in range(D):
            q[f"grad_W_Q[{i},{j}]"] = g["W_Q"][i][j]
        for k in range(DFF):
            q[f"grad_W_2[{k},{j}]"] = g["W_2"][k][j]
            q[f"grad_W_1[{j},{k}]"] = g["W_1"][j][k]
    for k in range(DFF):
        q[f"grad_R[2,{k}]"] = g["R"][k]
        q[f"grad_Z[2,{k}]"] = g["Z"][k]
    for s in range(T):
        q[f"grad_A[2,{s}]"] = g["A"][s]
        q[f"grad_S[2,{s}]"] = g["S"][s]
    for v in range(len(VOCAB)):
        q[f"logits[{tok(v)}]"] = f["logits"][v]
        q[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
        q[f"p[{tok(v)}]"] = f["p"][v]
        q[f"grad_logits[{tok(v)}]"] = g["logits"][v]
    q["sum_exp"] = f["sum_exp"]
    q["loss"] = f["loss"]
    q["ln_eps"] = EPS
    # the handout's own intermediate figures (LayerNorm and softmax backward, the check's difference)
    hf, gh = f["h"], g["h"]
    q["mean(grad_h_final)"] = mp.fsum(gh) / D
    q["mean(grad_h_final*h_final)"] = mp.fsum(a * b for a, b in zip(gh, hf)) / D
    q["mean(grad_LN1[2,:])"] = mp.fsum(g["LN1"]) / D
    q["mean(grad_LN1[2,:]*LN1[2,:])"] = mp.fsum(a * b for a, b in zip(g["LN1"], f["LN1"][T - 1])) / D
    q["sum(A[2,:]*grad_A[2,:])"] = mp.fsum(f["A"][T - 1][s] * g["A"][s] for s in range(T))
    q["sqrt(2)"] = mp.sqrt(2)
    q["ln(2)"] = mp.log(2)
    for ref in GC["params"]:
        hs = mp.nstr(H_GC, 5)
        hs = "0.0001" if H_GC == mp.mpf("1e-4") else hs
        plus, minus = loss_at(ref, H_GC), loss_at(ref, -H_GC)
        q[f"loss_at({ref}, {hs})"] = plus
        q[f"loss_at({ref}, -{hs})"] = minus
        q[f"gradcheck({ref}, {hs})"] = (plus - minus) / (2 * H_GC)
        name, i, j = parse_param(ref)
        q[f"grad_{ref}"] = g[name][i][j]
        q[ref] = PARAMS0[name][i][j]
        q[f"abs(gradcheck({ref}, {hs}) - grad_{ref})"] = abs(q[f"gradcheck({ref}, {hs})"] - g[name][i][j])
    return q


def pdf_lines():
    pdf = HERE / "DOC.pdf"
    txt = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return [ln.replace("\u2212", "-") for ln in txt.split("\n")]


def norm(s: str) -> str:
    return s.replace("\u2212", "-")


def check_key(q) -> int:
    lines = pdf_lines()
    bad = 0
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    n_planted = n_correct = 0
    for row in key.splitlines():
        if not row.startswith("| `"):
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        printed = norm(cells[0].strip("`"))
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        notes = []
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = q[ref] * (100 if pct else 1)
        planted = len(cells) == 7
        shown = norm(cells[4].strip("`")) if planted else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if pct else "")
        if planted:
            n_planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            if shown != right:
                notes.append(f"KEY'S CORRECT ROUNDING {shown} != {right}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                notes.append(f"KEY'S EXACT VALUE {cells[3]} != {mp.nstr(v, 15)}")
            if right == printed:
                notes.append("PLANTED FIGURE IS THE CORRECT ROUNDING")
            digits = cells[3].rstrip("…").lstrip("-").replace(".", "").lstrip("0")
            if not cells[3].endswith("…") or len(digits) < 12:
                notes.append("EXACT VALUE NEEDS 12 SIGNIFICANT DIGITS AND AN ELLIPSIS")
        else:
            n_correct += 1
            if right != printed:
                notes.append(f"NOT THE CORRECT ROUNDING ({right})")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if not re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", text):
            notes.append(f"NOT ON LINE {line}: {text.strip()[:70]!r}")
        bad += bool(notes)
        tag = "planted" if planted else "correct"
        print(f"  {printed:>14}  line {line:>3}  {ref:<32} {mp.nstr(v, 15):<22} rounds to {right:<14} {tag}"
              + ("  " + "; ".join(notes) if notes else ""))
    if n_planted != 8:
        print(f"  KEY HAS {n_planted} PLANTED ROWS, NOT 8")
        bad += 1
    if n_correct != 10:
        print(f"  KEY HAS {n_correct} CORRECT ROWS, NOT 10")
        bad += 1
    n = len(lines) - (1 if lines and lines[-1].strip("\f") == "" else 0)
    print(f"  DOC.pdf: {n} lines of pdftotext -layout (a tutorial of 150 to 300 lines)")
    if not 150 <= n <= 300:
        bad += 1
    return bad


def main() -> int:
    q = quantities()
    if "--dump" in sys.argv:
        for k, v in q.items():
            print(f"{k:<36} {mp.nstr(v, 20)}")
        return 0
    bad = check_key(q)
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
