#!/usr/bin/env python3
"""The independent computation behind KEY.md for ko-html-gpt2-adamw: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every KEY.md row: its quantity's value, its rounding, its line in DOC.html

Model (SPEC.toml): one GPT-2 block (pre-LayerNorm, GELU in tanh form, learned positions, a bias on every
projection, attention output projection W_O, tied head, final LayerNorm ln_f), one head, d = 4, d_ff = 8,
T = 4 ("나는 너를 정말 많이" -> "사랑해"), LayerNorm eps 1e-5 with the biased variance.

    H0 = E[ids] + W_pe;  LN1 = LN(H0; gamma1, beta1);  Q, K, V = LN1 W + b
    S = Q K^T / sqrt(d);  A = causal softmax(S);  Attn = (A V) W_O + b_O;  H1 = H0 + Attn
    LN2 = LN(H1; gamma2, beta2);  Z = LN2 W_1 + b_1;  R = gelu_tanh(Z);  F = R W_2 + b_2;  H2 = H1 + F
    h = LN(H2[T-1]; gamma_f, beta_f);  logits = h E^T;  p = softmax;  loss = -ln p[target]

The gradient of every parameter is computed by a hand-written reverse pass and checked against central
differences (h = 1e-20) of the forward pass; then one AdamW step as torch.optim.AdamW (decoupled weight decay
on every parameter, LayerNorm gains and shifts included) and the loss after it.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import html
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
DOC = HERE / "DOC.html"


def num(x):
    return mp.mpf(str(x))


def conv(a):
    return [conv(r) for r in a] if isinstance(a, list) else num(a)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- model set-up

VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TGT = VOCAB.index(SPEC["data"]["target"])
T, D, DFF, NV = len(IDS), SPEC["model"]["d"], SPEC["model"]["d_ff"], len(VOCAB)
EPS = num(SPEC["model"]["ln_eps"])
LAYER = SPEC["layer"][0]
PARAM_NAMES = ["E", "W_pe", "gamma_f", "beta_f", "gamma1", "beta1", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V",
               "W_O", "b_O", "gamma2", "beta2", "W_1", "b_1", "W_2", "b_2"]


def initial_params():
    P = {}
    for n in PARAM_NAMES:
        src = SPEC["weights"] if n in SPEC["weights"] else LAYER
        P[n] = conv(src[n])
    return P


def zeros(*shape):
    return [mp.mpf(0)] * shape[0] if len(shape) == 1 else [[mp.mpf(0)] * shape[1] for _ in range(shape[0])]


def vecmat(x, W):
    return [mp.fsum(x[i] * W[i][j] for i in range(len(x))) for j in range(len(W[0]))]


def matvec_T(W, g):          # W g^T : row i is sum_j W[i][j] g[j]
    return [mp.fsum(W[i][j] * g[j] for j in range(len(g))) for i in range(len(W))]


C_GELU = mp.sqrt(2 / mp.pi)
K_GELU = mp.mpf("0.044715")


def gelu(x):
    return x / 2 * (1 + mp.tanh(C_GELU * (x + K_GELU * x ** 3)))


def dgelu(x):
    t = mp.tanh(C_GELU * (x + K_GELU * x ** 3))
    return (1 + t) / 2 + x / 2 * (1 - t * t) * C_GELU * (1 + 3 * K_GELU * x * x)


def ln_fwd(h, g, b):
    mu = mp.fsum(h) / len(h)
    var = mp.fsum((x - mu) ** 2 for x in h) / len(h)
    sd = mp.sqrt(var + EPS)
    xh = [(x - mu) / sd for x in h]
    return mu, var, sd, xh, [g[j] * xh[j] + b[j] for j in range(len(h))]


def ln_bwd(gy, xh, sd, g):
    gx = [gy[j] * g[j] for j in range(len(gy))]
    n = len(gy)
    m1 = mp.fsum(gx) / n
    m2 = mp.fsum(gx[j] * xh[j] for j in range(n)) / n
    return [(gx[j] - m1 - xh[j] * m2) / sd for j in range(n)], [gy[j] * xh[j] for j in range(n)], list(gy)


def forward(P):
    f = {}
    f["X"] = [list(P["E"][i]) for i in IDS]
    f["PE"] = [list(P["W_pe"][t]) for t in range(T)]
    f["H0"] = [[f["X"][t][j] + f["PE"][t][j] for j in range(D)] for t in range(T)]
    ln1 = [ln_fwd(f["H0"][t], P["gamma1"], P["beta1"]) for t in range(T)]
    f["mu1"], f["var1"], f["sd1"], f["xh1"], f["LN1"] = (list(c) for c in zip(*ln1))
    for n in "QKV":
        f[n] = [[a + b for a, b in zip(vecmat(f["LN1"][t], P["W_" + n]), P["b_" + n])] for t in range(T)]
    f["S"] = [[mp.fsum(f["Q"][t][j] * f["K"][s][j] for j in range(D)) / mp.sqrt(D) for s in range(T)]
              for t in range(T)]
    f["A_den"] = [mp.fsum(mp.exp(f["S"][t][s]) for s in range(t + 1)) for t in range(T)]
    f["A"] = [[mp.exp(f["S"][t][s]) / f["A_den"][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    f["Attn_heads"] = [[mp.fsum(f["A"][t][s] * f["V"][s][j] for s in range(T)) for j in range(D)] for t in range(T)]
    f["Attn"] = [[a + b for a, b in zip(vecmat(f["Attn_heads"][t], P["W_O"]), P["b_O"])] for t in range(T)]
    f["H1"] = [[f["H0"][t][j] + f["Attn"][t][j] for j in range(D)] for t in range(T)]
    ln2 = [ln_fwd(f["H1"][t], P["gamma2"], P["beta2"]) for t in range(T)]
    f["mu2"], f["var2"], f["sd2"], f["xh2"], f["LN2"] = (list(c) for c in zip(*ln2))
    f["Z"] = [[a + b for a, b in zip(vecmat(f["LN2"][t], P["W_1"]), P["b_1"])] for t in range(T)]
    f["R"] = [[gelu(z) for z in f["Z"][t]] for t in range(T)]
    f["F"] = [[a + b for a, b in zip(vecmat(f["R"][t], P["W_2"]), P["b_2"])] for t in range(T)]
    f["H2"] = [[f["H1"][t][j] + f["F"][t][j] for j in range(D)] for t in range(T)]
    lnf = [ln_fwd(f["H2"][t], P["gamma_f"], P["beta_f"]) for t in range(T)]
    f["mu_f"], f["var_f"], f["sd_f"], f["xh_f"], f["LN_f"] = (list(c) for c in zip(*lnf))
    f["h_final"] = f["LN_f"][T - 1]
    f["logits"] = [mp.fsum(f["h_final"][j] * P["E"][v][j] for j in range(D)) for v in range(NV)]
    f["sum_exp"] = mp.fsum(mp.exp(z) for z in f["logits"])
    f["p"] = [mp.exp(z) / f["sum_exp"] for z in f["logits"]]
    f["loss"] = -mp.log(f["p"][TGT])
    return f


def backward(P, f):
    """Hand-written reverse pass; returns the node gradients and every parameter's gradient."""
    g, G = {}, {n: zeros(*((len(P[n]), len(P[n][0])) if isinstance(P[n][0], list) else (len(P[n]),)))
                for n in PARAM_NAMES}
    g["logits"] = [f["p"][v] - (1 if v == TGT else 0) for v in range(NV)]
    g["h_final"] = [mp.fsum(g["logits"][v] * P["E"][v][j] for v in range(NV)) for j in range(D)]
    for v in range(NV):
        for j in range(D):
            G["E"][v][j] += g["logits"][v] * f["h_final"][j]
    gH2 = zeros(T, D)
    gH2[T - 1], G["gamma_f"], G["beta_f"] = ln_bwd(g["h_final"], f["xh_f"][T - 1], f["sd_f"][T - 1], P["gamma_f"])
    g["H2"] = gH2
    gF = gH2
    G["b_2"] = [mp.fsum(gF[t][j] for t in range(T)) for j in range(D)]
    G["W_2"] = [[mp.fsum(f["R"][t][k] * gF[t][j] for t in range(T)) for j in range(D)] for k in range(DFF)]
    gR = [matvec_T(P["W_2"], gF[t]) for t in range(T)]
    gZ = [[gR[t][k] * dgelu(f["Z"][t][k]) for k in range(DFF)] for t in range(T)]
    g["Z"] = gZ
    G["b_1"] = [mp.fsum(gZ[t][k] for t in range(T)) for k in range(DFF)]
    G["W_1"] = [[mp.fsum(f["LN2"][t][j] * gZ[t][k] for t in range(T)) for k in range(DFF)] for j in range(D)]
    gLN2 = [matvec_T(P["W_1"], gZ[t]) for t in range(T)]
    gH1 = [list(gH2[t]) for t in range(T)]
    G["gamma2"], G["beta2"] = zeros(D), zeros(D)
    for t in range(T):
        dx, dg, db = ln_bwd(gLN2[t], f["xh2"][t], f["sd2"][t], P["gamma2"])
        gH1[t] = [gH1[t][j] + dx[j] for j in range(D)]
        G["gamma2"] = [a + b for a, b in zip(G["gamma2"], dg)]
        G["beta2"] = [a + b for a, b in zip(G["beta2"], db)]
    gAttn = gH1
    G["b_O"] = [mp.fsum(gAttn[t][j] for t in range(T)) for j in range(D)]
    G["W_O"] = [[mp.fsum(f["Attn_heads"][t][i] * gAttn[t][j] for t in range(T)) for j in range(D)] for i in range(D)]
    gAH = [matvec_T(P["W_O"], gAttn[t]) for t in range(T)]
    gA = [[mp.fsum(gAH[t][j] * f["V"][s][j] for j in range(D)) for s in range(T)] for t in range(T)]
    gV = [[mp.fsum(f["A"][t][s] * gAH[t][j] for t in range(T)) for j in range(D)] for s in range(T)]
    gS = [[f["A"][t][s] * (gA[t][s] - mp.fsum(f["A"][t][u] * gA[t][u] for u in range(T))) for s in range(T)]
          for t in range(T)]
    sq = mp.sqrt(D)
    gQ = [[mp.fsum(gS[t][s] * f["K"][s][j] for s in range(T)) / sq for j in range(D)] for t in range(T)]
    gK = [[mp.fsum(gS[t][s] * f["Q"][t][j] for t in range(T)) / sq for j in range(D)] for s in range(T)]
    gLN1 = zeros(T, D)
    for n, gn in (("Q", gQ), ("K", gK), ("V", gV)):
        G["b_" + n] = [mp.fsum(gn[t][j] for t in range(T)) for j in range(D)]
        G["W_" + n] = [[mp.fsum(f["LN1"][t][i] * gn[t][j] for t in range(T)) for j in range(D)] for i in range(D)]
        for t in range(T):
            gLN1[t] = [a + b for a, b in zip(gLN1[t], matvec_T(P["W_" + n], gn[t]))]
    gH0 = [list(gH1[t]) for t in range(T)]
    G["gamma1"], G["beta1"] = zeros(D), zeros(D)
    for t in range(T):
        dx, dg, db = ln_bwd(gLN1[t], f["xh1"][t], f["sd1"][t], P["gamma1"])
        gH0[t] = [gH0[t][j] + dx[j] for j in range(D)]
        G["gamma1"] = [a + b for a, b in zip(G["gamma1"], dg)]
        G["beta1"] = [a + b for a, b in zip(G["beta1"], db)]
    for t in range(T):
        G["W_pe"][t] = list(gH0[t])
        for j in range(D):
            G["E"][IDS[t]][j] += gH0[t][j]
    # the key bias only shifts a whole row of scores, which softmax ignores: its gradient is exactly 0
    # (the sums above leave rounding noise of about 1e-53 at 50 digits; AdamW must see the exact 0)
    assert all(abs(x) < mp.mpf("1e-40") for x in G["b_K"]), G["b_K"]
    G["b_K"] = zeros(D)
    return g, G


def entries(P, n):
    if isinstance(P[n][0], list):
        return [(i, j) for i in range(len(P[n])) for j in range(len(P[n][0]))]
    return [(i,) for i in range(len(P[n]))]


def get(P, n, ix):
    return P[n][ix[0]][ix[1]] if len(ix) == 2 else P[n][ix[0]]


def put(P, n, ix, val):
    if len(ix) == 2:
        P[n][ix[0]][ix[1]] = val
    else:
        P[n][ix[0]] = val


def copy(P):
    return {n: [list(r) if isinstance(r, list) else r for r in P[n]] for n in P}


def check_gradient(P, G):
    """Central differences of the forward pass for every parameter entry (h = 1e-20, error ~1e-30)."""
    h, worst = mp.mpf("1e-20"), mp.mpf(0)
    for n in PARAM_NAMES:
        for ix in entries(P, n):
            Pp, Pm = copy(P), copy(P)
            put(Pp, n, ix, get(P, n, ix) + h)
            put(Pm, n, ix, get(P, n, ix) - h)
            fd = (forward(Pp)["loss"] - forward(Pm)["loss"]) / (2 * h)
            worst = max(worst, abs(fd - get(G, n, ix)))
    assert worst < mp.mpf("1e-25"), f"reverse pass disagrees with central differences by {worst}"
    return worst


def adamw_step(P, G):
    a = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (num(a[k]) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    new, st = copy(P), {}
    for n in PARAM_NAMES:
        for ix in entries(P, n):
            th, gr = get(P, n, ix), get(G, n, ix)
            m, v = (1 - b1) * gr, (1 - b2) * gr * gr
            mhat, vhat = m / (1 - b1), v / (1 - b2)
            upd = lr * mhat / (mp.sqrt(vhat) + eps)
            dec = lr * wd * th
            put(new, n, ix, th - dec - upd)
            st[(n, ix)] = dict(m=m, v=v, mhat=mhat, vhat=vhat, update=upd, decay=dec, new=th - dec - upd)
    return new, st


# ---------------------------------------------------------------- every quantity, by symgpt's reference names

def tok(v):
    return VOCAB[v] if isinstance(v, int) else v


def compute():
    P = initial_params()
    f = forward(P)
    g, G = backward(P, f)
    worst = check_gradient(P, G)
    P1, st = adamw_step(P, G)
    f1 = forward(P1)
    val = {}

    def add(name, arr, tokrow=False, tokcol=False):
        if not isinstance(arr, list):
            val[name] = arr
            return
        for i, r in enumerate(arr):
            if isinstance(r, list):
                for j, x in enumerate(r):
                    val[f"{name}[{tok(i) if tokrow else i},{j}]"] = x
            else:
                val[f"{name}[{tok(i) if tokcol else i}]"] = r

    for n in PARAM_NAMES:
        add(n, P[n], tokrow=(n == "E"))
        add("grad_" + n, G[n], tokrow=(n == "E"))
        add("adamw[1]." + n, P1[n], tokrow=(n == "E"))
    for n in ("X", "PE", "H0", "mu1", "var1", "LN1", "Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1",
              "mu2", "var2", "LN2", "Z", "R", "F", "H2", "mu_f", "var_f", "LN_f", "h_final", "sum_exp", "loss"):
        add(n, f[n])
    add("logits", f["logits"], tokcol=True)
    add("p", f["p"], tokcol=True)
    add("grad_logits", g["logits"], tokcol=True)
    add("grad_h_final", g["h_final"])
    add("adamw[1].loss", f1["loss"])
    add("adamw[1].p", f1["p"], tokcol=True)
    add("adamw[1].logits", f1["logits"], tokcol=True)
    for (n, ix), s in st.items():
        key = ",".join([n] + [tok(ix[0]) if n == "E" else str(ix[0])] + [str(i) for i in ix[1:]])
        for q in ("m", "v", "mhat", "vhat", "update", "decay"):
            val[f"adamw[1].{q}[{key}]"] = s[q]
    # a few expressions the tutorial prints
    for v in range(NV):
        val[f"exp(logits[{tok(v)}])"] = mp.exp(f["logits"][v])
    for t in range(T):
        for s in range(t + 1):
            val[f"exp(S[{t},{s}])"] = mp.exp(f["S"][t][s])
        val[f"sqrt(var1[{t}] + ln_eps)"] = f["sd1"][t]
        val[f"sqrt(var2[{t}] + ln_eps)"] = f["sd2"][t]
        val[f"sqrt(var_f[{t}] + ln_eps)"] = f["sd_f"][t]
        for j in range(D):
            val[f"(H2[{t},{j}] - mu_f[{t}])/sqrt(var_f[{t}] + ln_eps)"] = f["xh_f"][t][j]
            val[f"(H1[{t},{j}] - mu2[{t}])/sqrt(var2[{t}] + ln_eps)"] = f["xh2"][t][j]
        for s in range(T):
            val[f"S[{t},{s}]*sqrt(d)"] = f["S"][t][s] * mp.sqrt(D)
        for k in range(DFF):            # the GELU's inner argument and its tanh, as the page works u_8 out
            z = f["Z"][t][k]
            val[f"sqrt(2/pi)*(Z[{t},{k}] + 0.044715*Z[{t},{k}]^3)"] = C_GELU * (z + K_GELU * z ** 3)
            val[f"tanh(sqrt(2/pi)*(Z[{t},{k}] + 0.044715*Z[{t},{k}]^3))"] = mp.tanh(C_GELU * (z + K_GELU * z ** 3))
    val["d"], val["d_ff"], val["T"] = mp.mpf(D), mp.mpf(DFF), mp.mpf(T)
    return dict(P=P, f=f, g=g, G=G, P1=P1, st=st, f1=f1, val=val, worst=worst)


# ---------------------------------------------------------------- the key

def plain(s: str) -> str:
    return s.replace("−", "-").replace("\u2009", "")


def main() -> int:
    R = compute()
    values = R["val"]
    print(f"reverse pass = central differences within {mp.nstr(R['worst'], 3)} on every parameter entry")
    print(f"loss = {mp.nstr(values['loss'], 20)}, after one AdamW step {mp.nstr(values['adamw[1].loss'], 20)}")
    doc_lines = DOC.read_text(encoding="utf-8").splitlines() if DOC.is_file() else []
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        on_line = 0 < line <= len(doc_lines) and printed in html.unescape(doc_lines[line - 1])
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        shown = plain(cells[4].strip("`") if len(cells) == 7 else printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:                            # a planted error: the key's columns must agree
            exact = mp.mpf(plain(cells[3]).rstrip("…").rstrip("%"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != plain(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            note = "correct" if right == plain(printed) else "NOT THE CORRECT ROUNDING"
            correct += 1
        if not on_line:
            note = f"NOT ON LINE {line}"
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>12}  l.{line:<4} {ref:<34} {mp.nstr(v, 15):<22} rounds to {right:<11} {note}")
    if planted != 8 or correct != 10:
        print(f"KEY HAS {planted} PLANTED AND {correct} CORRECT ROWS (expected 8 and 10)")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
