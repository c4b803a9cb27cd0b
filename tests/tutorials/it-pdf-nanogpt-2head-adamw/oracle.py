#!/usr/bin/env python3
"""Independent oracle for it-pdf-nanogpt-2head-adamw ("la volpe mangia" -> "uva") (plain mpmath, mp.dps = 50; no symgpt).

    python oracle.py     # every quantity of the document, then every KEY.md row checked against it

Model (nanoGPT-style GPT-2, one block, pre-LN, 2 heads, d = 4, d_k = 2, d_ff = 8, tied head):
  H0 = E[ids] + W_pe[0:T]
  LN1 = LayerNorm(H0) (biased variance, eps = 1e-5, gamma 1, beta 0)
  Q, K, V = LN1·W + b;  S[h,t,s] = q_h(t)·k_h(s)/sqrt(2);  A = causal softmax of S
  Attn_heads[t] = sum_s A[h,t,s] v_h(s) (heads side by side);  Attn = Attn_heads·W_O + b_O
  H1 = H0 + Attn;  LN2 = LayerNorm(H1);  Z = LN2·W_1 + b_1;  R = GELU(Z) = Z·Phi(Z) (exact erf)
  F = R·W_2 + b_2;  H2 = H1 + F;  LN_f = LayerNorm(H2);  h_final = LN_f[T-1]
  logits = h_final·Eᵀ;  p = softmax;  loss = -ln p[target]
Gradients: central differences at 130 digits with h = 1e-40 (error far below 1e-50).
AdamW (torch.optim.AdamW, step 1, decoupled decay on every trained parameter; LayerNorm gains and
shifts are not trained): m = (1-b1)g, v = (1-b2)g², mhat = m/(1-b1), vhat = v/(1-b2),
update = lr·mhat/(sqrt(vhat)+eps), decay = lr·wd·θ, θ' = θ - decay - update.
Rounding is half away from zero on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["la", "volpe", "mangia", "uva", "pane"]
IDS = [0, 1, 2]
TARGET = 3
D, H, DK, DFF, T = 4, 2, 2, 8, 3
LN_EPS = "1e-5"
LR, B1, B2, EPS, WD = "0.001", "0.9", "0.999", "1e-8", "0.1"

RAW = {
    "E": [[0.01, 0.41, -0.06, 0.22], [0.56, 0.6, -0.13, -0.51], [0.2, 0.35, 0.39, 0.01],
          [0.52, 0.15, -0.12, 0.24], [0.58, -0.24, 0.29, 0.24]],
    "W_pe": [[-0.11, -0.03, 0.28, 0.15], [-0.25, -0.29, 0.2, 0.07], [0.26, 0.1, 0.13, 0.23]],
    "W_Q": [[-0.46, 0.4, 0.16, -0.55], [0.61, 0.67, 0.38, 0.37], [-0.65, 0.35, 0.25, -0.48],
            [-0.35, -0.43, -0.16, 0.31]],
    "b_Q": [0.09, 0.05, 0.1, -0.01],
    "W_K": [[0.65, 0.04, 0.44, -0.39], [-0.41, -0.43, -0.09, -0.09], [0.13, -0.49, 0.05, -0.47],
            [0.58, 0.14, -0.15, 0.18]],
    "b_K": [0.08, 0.04, 0.05, 0.04],
    "W_V": [[0.04, -0.05, -0.56, -0.49], [0.07, 0.2, 0.23, 0.57], [0.52, -0.06, 0.02, -0.05],
            [0.15, 0.03, 0.45, 0.16]],
    "b_V": [-0.07, 0.08, -0.06, -0.07],
    "W_O": [[-0.3, 0.34, -0.12, 0.24], [-0.06, 0.01, 0.23, -0.39], [0.02, 0.09, -0.23, -0.28],
            [0.07, 0.43, 0.34, -0.48]],
    "b_O": [0.07, 0.06, -0.09, 0.05],
    "W_1": [[-0.32, -0.12, 0.24, 0.48, -0.1, 0.02, -0.4, -0.12],
            [0.04, 0.45, -0.27, 0.07, -0.02, 0.25, -0.43, 0.42],
            [-0.32, -0.02, 0.41, 0.01, 0.42, 0.1, 0.45, -0.34],
            [0.43, -0.29, 0.43, 0.07, 0.0, 0.29, -0.13, -0.12]],
    "b_1": [0.02, 0.0, -0.02, -0.07, 0.05, 0.07, 0.01, 0.04],
    "W_2": [[-0.4, -0.11, 0.0, -0.02], [0.27, -0.38, 0.06, 0.36], [0.02, 0.43, 0.39, -0.2],
            [0.22, -0.2, -0.18, 0.13], [-0.16, -0.39, -0.23, -0.43], [-0.25, 0.38, -0.12, 0.15],
            [-0.18, 0.18, -0.05, -0.14], [0.24, 0.45, 0.3, -0.25]],
    "b_2": [0.07, -0.09, -0.01, 0.07],
}
TRAINED = list(RAW)  # every weight above; LayerNorm gains/shifts (1 and 0) are not trained


def conv(a):
    return [conv(x) for x in a] if isinstance(a, list) else mp.mpf(str(a))


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addrow(A, b):
    return [[A[i][j] + b[j] for j in range(len(b))] for i in range(len(A))]


def layernorm(Hm):
    mus, vs, out = [], [], []
    for row in Hm:
        mu = mp.fsum(row) / len(row)
        var = mp.fsum((x - mu) ** 2 for x in row) / len(row)
        s = mp.sqrt(var + mp.mpf(LN_EPS))
        mus.append(mu), vs.append(var), out.append([(x - mu) / s for x in row])
    return mus, vs, out


def gelu(z):
    return z * (1 + mp.erf(z / mp.sqrt(2))) / 2


def forward(P):
    r = {}
    r["X"] = [P["E"][i][:] for i in IDS]
    r["PE"] = [P["W_pe"][t][:] for t in range(T)]
    r["H0"] = [[r["X"][t][j] + r["PE"][t][j] for j in range(D)] for t in range(T)]
    r["mu1"], r["var1"], r["LN1"] = layernorm(r["H0"])
    for n in "QKV":
        r[n] = addrow(mm(r["LN1"], P["W_" + n]), P["b_" + n])
    S = [[[None] * T for _ in range(T)] for _ in range(H)]
    A = [[[mp.mpf(0)] * T for _ in range(T)] for _ in range(H)]
    Aden = [[None] * T for _ in range(H)]
    for h in range(H):
        c = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(T):
                S[h][t][s] = mp.fsum(r["Q"][t][j] * r["K"][s][j] for j in c) / mp.sqrt(DK)
            Aden[h][t] = mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1))
            for s in range(t + 1):
                A[h][t][s] = mp.exp(S[h][t][s]) / Aden[h][t]
    r["S"], r["A"], r["A_den"] = S, A, Aden
    r["Attn_heads"] = [[mp.fsum(A[j // DK][t][s] * r["V"][s][j] for s in range(T)) for j in range(D)] for t in range(T)]
    r["Attn"] = addrow(mm(r["Attn_heads"], P["W_O"]), P["b_O"])
    r["H1"] = [[r["H0"][t][j] + r["Attn"][t][j] for j in range(D)] for t in range(T)]
    r["mu2"], r["var2"], r["LN2"] = layernorm(r["H1"])
    r["Z"] = addrow(mm(r["LN2"], P["W_1"]), P["b_1"])
    r["R"] = [[gelu(z) for z in row] for row in r["Z"]]
    r["F"] = addrow(mm(r["R"], P["W_2"]), P["b_2"])
    r["H2"] = [[r["H1"][t][j] + r["F"][t][j] for j in range(D)] for t in range(T)]
    r["mu_f"], r["var_f"], r["LN_f"] = layernorm(r["H2"])
    hf = r["LN_f"][T - 1]
    r["h_final"] = hf
    r["logits"] = [mp.fsum(hf[j] * P["E"][v][j] for j in range(D)) for v in range(len(VOCAB))]
    r["sum_exp"] = mp.fsum(mp.exp(z) for z in r["logits"])
    r["p"] = [mp.exp(z) / r["sum_exp"] for z in r["logits"]]
    r["loss"] = -mp.log(r["p"][TARGET])
    return r


def entries(P):
    for name in TRAINED:
        M = P[name]
        if isinstance(M[0], list):
            for i in range(len(M)):
                for j in range(len(M[0])):
                    yield name, (i, j)
        else:
            for i in range(len(M)):
                yield name, (i,)


def get(P, name, idx):
    return P[name][idx[0]][idx[1]] if len(idx) == 2 else P[name][idx[0]]


def put(P, name, idx, val):
    if len(idx) == 2:
        P[name][idx[0]][idx[1]] = val
    else:
        P[name][idx[0]] = val


def gradient(P):
    g = {}
    with mp.workdps(130):
        base = {k: conv(v) for k, v in RAW.items()}
        h = mp.mpf("1e-40")
        for name, idx in entries(base):
            th = get(base, name, idx)
            put(base, name, idx, th + h)
            lp = forward(base)["loss"]
            put(base, name, idx, th - h)
            lm = forward(base)["loss"]
            put(base, name, idx, th)
            d = (lp - lm) / (2 * h)
            g[(name, idx)] = d if abs(d) > mp.mpf("1e-60") else mp.mpf(0)
    return {k: +v for k, v in g.items()}


def adamw(P, g):
    lr, b1, b2, eps, wd = (mp.mpf(x) for x in (LR, B1, B2, EPS, WD))
    new = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
    st = {}
    for name, idx in entries(P):
        gi, th = g[(name, idx)], get(P, name, idx)
        m, v = (1 - b1) * gi, (1 - b2) * gi * gi
        mhat, vhat = m / (1 - b1), v / (1 - b2)
        upd = lr * mhat / (mp.sqrt(vhat) + eps)
        dec = lr * wd * th
        st[(name, idx)] = dict(g=gi, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=th - dec - upd)
        put(new, name, idx, th - dec - upd)
    return st, new


def tok(s):
    return str(VOCAB.index(s)) if s in VOCAB else s


P0 = {k: conv(v) for k, v in RAW.items()}
F0 = forward(P0)
G = gradient(P0)
ST, P1 = adamw(P0, G)
F1 = forward(P1)


def value(q: str):
    """The value of a symgpt-style name (the subset this document uses)."""
    q = q.strip()
    m = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update|decay)\[(\w+),([^\]]+)\]", q)
    if m:
        idx = tuple(int(tok(x.strip())) for x in m.group(3).split(","))
        return ST[(m.group(2), idx)][m.group(1)]
    m = re.fullmatch(r"adamw\[1\]\.(\w+)(?:\[([^\]]+)\])?", q)
    if m:
        if m.group(1) in RAW:
            idx = tuple(int(tok(x.strip())) for x in m.group(2).split(","))
            return get(P1, m.group(1), idx)
        return lookup(F1, P1, m.group(1), m.group(2))
    m = re.fullmatch(r"grad_(\w+)\[([^\]]+)\]", q)
    if m and m.group(1) in RAW:
        idx = tuple(int(tok(x.strip())) for x in m.group(2).split(","))
        return G[(m.group(1), idx)]
    m = re.fullmatch(r"(\w+)(?:\[([^\]]+)\])?", q)
    if m:
        return lookup(F0, P0, m.group(1), m.group(2))
    m = re.fullmatch(r"sqrt\((\w+)\[(\d)\] \+ ln_eps\)", q)
    if m:
        return mp.sqrt(F0[m.group(1)][int(m.group(2))] + mp.mpf(LN_EPS))
    raise KeyError(q)


def lookup(Fw, Pw, name, ix):
    obj = Pw[name] if name in Pw else Fw[name]
    if ix:
        for x in ix.split(","):
            obj = obj[int(tok(x.strip()))]
    return obj


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def clean(s: str) -> str:
    return s.strip().strip("`").replace("\u2212", "-").replace(",", "").strip()


# Every quantity the document prints (symgpt names), shown by `python oracle.py`.
DOC_QUANTITIES = (
    [f"H0[{t},{j}]" for t in range(3) for j in range(4)]
    + ["mu1[2]", "var1[2]", "sqrt(var1[2] + ln_eps)"] + [f"LN1[2,{j}]" for j in range(4)]
    + [f"Q[2,{j}]" for j in range(4)]
    + [f"S[{h},{t},{s}]" for h in range(2) for t in range(3) for s in range(t + 1)]
    + [f"A[{h},{t},{s}]" for h in range(2) for t in range(3) for s in range(t + 1)]
    + [f"Attn_heads[2,{j}]" for j in range(4)] + [f"Attn[2,{j}]" for j in range(4)]
    + [f"H1[2,{j}]" for j in range(4)] + ["mu2[2]", "var2[2]"]
    + [f"Z[2,{k}]" for k in range(8)] + [f"R[2,{k}]" for k in range(8)]
    + [f"F[2,{j}]" for j in range(4)] + [f"H2[2,{j}]" for j in range(4)]
    + ["mu_f[2]", "var_f[2]"] + [f"h_final[{j}]" for j in range(4)]
    + [f"logits[{w}]" for w in VOCAB] + ["sum_exp"] + [f"p[{w}]" for w in VOCAB] + ["loss"]
    + [f"adamw[1].{k}[{e}]" for e in ("W_Q,0,1", "W_1,1,6", "E,uva,1")
       for k in ("m", "v", "mhat", "vhat", "update", "decay")]
    + ["grad_W_Q[0,1]", "grad_W_1[1,6]", "grad_E[uva,1]",
       "adamw[1].W_Q[0,1]", "adamw[1].W_1[1,6]", "adamw[1].E[uva,1]", "adamw[1].loss", "adamw[1].p[uva]"]
)


def check_key() -> int:
    text = (HERE / "KEY.md").read_text(encoding="utf-8")
    bad = 0
    section = None
    for line in text.splitlines():
        if line.startswith("## "):
            section = "planted" if "Planted" in line else "correct"
            continue
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        printed = clean(cells[0])
        qcell = cells[-1]
        q = re.findall(r"`([^`]+)`", qcell)[0]
        v = value(q)
        pct = printed.endswith("%")
        vv = v * 100 if pct else v
        if section == "planted":
            exact, correct = cells[3], clean(cells[4])
            cnum = correct.rstrip("%")
            n = len(cnum.split(".")[1]) if "." in cnum else 0
            want = rnd(vv, n)
            ex = exact.replace("…", "").replace("\u2212", "-").strip()
            digits = mp.nstr(vv, 40, strip_zeros=False, min_fixed=-60, max_fixed=60)
            if exact.endswith("…"):
                ok_exact = digits.startswith(ex) or mp.nstr(vv, 30, min_fixed=-60, max_fixed=60).startswith(ex)
            else:
                ok_exact = abs(mp.mpf(ex) - vv) < mp.mpf("1e-45")  # a terminating exact value
            ok_round = (want == cnum)
            pn = printed.rstrip("%")
            np_ = len(pn.split(".")[1]) if "." in pn else 0
            differs = rnd(vv, np_) != pn
            status = "ok" if (ok_exact and ok_round and differs) else "MISMATCH"
            print(f"[planted] {q:34s} exact={mp.nstr(vv, 15)}  key exact={exact} round={correct} (want {want})"
                  f" printed={cells[0]}  {status}")
            if status != "ok":
                bad += 1
        else:
            pn = printed.rstrip("%")
            n = len(pn.split(".")[1]) if "." in pn else 0
            want = rnd(vv, n)
            status = "ok" if want == pn else f"MISMATCH (want {want})"
            print(f"[correct] {q:34s} exact={mp.nstr(vv, 15)}  printed={cells[0]}  {status}")
            if status != "ok":
                bad += 1
    return bad


if __name__ == "__main__":
    for q in DOC_QUANTITIES:
        print(f"{q:30s} {mp.nstr(value(q), 20)}")
    print()
    if (HERE / "KEY.md").exists():
        bad = check_key()
        assert bad == 0, f"{bad} KEY rows disagree with the oracle"
        print("KEY.md agrees with the oracle")
