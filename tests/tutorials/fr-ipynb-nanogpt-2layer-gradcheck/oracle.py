#!/usr/bin/env python3
"""Independent computation behind KEY.md: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key

Model (SPEC.toml beside this file, read with tomllib; every number taken from its decimal text):
a nanoGPT-like GPT-2, 2 pre-LN blocks, 1 head, d = 4, d_ff = 8, V = 5, T = 3, tied head, learned
positions, biases on every projection, exact-erf GELU, LayerNorm with biased variance and eps 1e-5.

    H0 = E[ids] + W_pe
    per block:  a = LN1(H);  Q, K, V = a·W + b;  S = Q·Kᵀ/√4 (causal);  A = softmax(S)
                Attn = (A·V)·W_O + b_O;  H1 = H + Attn;  c = LN2(H1)
                Z = c·W_1 + b_1;  R = GELU(Z) = Z·Φ(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f(H2) -> h_final = last row;  logits = h_final·Eᵀ;  p = softmax;  loss = -ln p[la]

Gradients by a hand-written reverse pass (checked against mpmath's own numerical derivative
mp.diff at 50 digits); the gradient check is (L(θ+h) − L(θ−h))/(2h) with h = 1e-5 exactly.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
EPS = mp.mpf("1e-5")
H_FD = mp.mpf("1e-5")


def num(x):
    return mp.mpf(str(x))


def conv(a):
    return [conv(r) for r in a] if isinstance(a, list) else num(a)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def rnd_sig(v, n: int) -> str:
    """n significant digits, as 'm.mme-XX' (Python's %.{n-1}e layout)."""
    e = int(mp.floor(mp.log10(abs(v))))
    m = Decimal(mp.nstr(v / mp.mpf(10) ** e, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    m = m.quantize(Decimal(1).scaleb(-(n - 1)), rounding=ROUND_HALF_UP)
    if abs(m) >= 10:
        e += 1
        m = (m / 10).quantize(Decimal(1).scaleb(-(n - 1)), rounding=ROUND_HALF_UP)
    return f"{m:.{n - 1}f}e{'-' if e < 0 else '+'}{abs(e):02d}"


# ---------------------------------------------------------------- the spec's weights

def load_params():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    w = spec["weights"]
    P = {"E": conv(w["E"]), "W_pe": conv(w["W_pe"]), "gamma_f": conv(w["gamma_f"]), "beta_f": conv(w["beta_f"])}
    for l, layer in enumerate(spec["layer"]):
        for k, v in layer.items():
            P[f"l{l}.{k}"] = conv(v)
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return vocab, P, ids, tgt


# ---------------------------------------------------------------- linear algebra on lists

def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addrow(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def T_(A):
    return [list(c) for c in zip(*A)]


def gelu(z):
    return z * (1 + mp.erf(z / mp.sqrt(2))) / 2


def dgelu(z):
    return (1 + mp.erf(z / mp.sqrt(2))) / 2 + z * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)


def layernorm(H, g, b):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    xhat = [[(r[j] - m) / mp.sqrt(v + EPS) for j in range(d)] for r, m, v in zip(H, mu, var)]
    out = [[g[j] * xh[j] + b[j] for j in range(d)] for xh in xhat]
    return dict(mu=mu, var=var, xhat=xhat, out=out)


def layernorm_back(cache, g, dout):
    d = len(g)
    dxs, dg, db = [], [mp.mpf(0)] * d, [mp.mpf(0)] * d
    for xh, v, dy in zip(cache["xhat"], cache["var"], dout):
        dg = [dg[j] + dy[j] * xh[j] for j in range(d)]
        db = [db[j] + dy[j] for j in range(d)]
        dxh = [dy[j] * g[j] for j in range(d)]
        m1 = mp.fsum(dxh) / d
        m2 = mp.fsum(a * b for a, b in zip(dxh, xh)) / d
        dxs.append([(dxh[j] - m1 - xh[j] * m2) / mp.sqrt(v + EPS) for j in range(d)])
    return dxs, dg, db


# ---------------------------------------------------------------- forward

def forward(P, ids, tgt):
    T, d = len(ids), len(P["E"][0])
    f = {}
    H = [[P["E"][ids[t]][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    f["H0"] = H
    for l in range(2):
        p = lambda n: P[f"l{l}.{n}"]
        c1 = layernorm(H, p("gamma1"), p("beta1"))
        a = c1["out"]
        Q, K, V = (addrow(mm(a, p(f"W_{n}")), p(f"b_{n}")) for n in "QKV")
        S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
        den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
        A = [[mp.exp(S[t][s]) / den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        O = mm(A, V)
        Attn = addrow(mm(O, p("W_O")), p("b_O"))
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        c2 = layernorm(H1, p("gamma2"), p("beta2"))
        Z = addrow(mm(c2["out"], p("W_1")), p("b_1"))
        R = [[gelu(z) for z in r] for r in Z]
        F = addrow(mm(R, p("W_2")), p("b_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        f[l] = dict(Hin=H, c1=c1, LN1=a, Q=Q, K=K, V=V, S=S, A_den=den, A=A, O=O, Attn=Attn, H1=H1, c2=c2,
                    LN2=c2["out"], mu1=c1["mu"], var1=c1["var"], mu2=c2["mu"], var2=c2["var"],
                    Z=Z, R=R, F=F, H2=H2)
        H = H2
    cf = layernorm(H, P["gamma_f"], P["beta_f"])
    hf = cf["out"][-1]
    logits = [mp.fsum(hf[j] * P["E"][v][j] for j in range(d)) for v in range(len(P["E"]))]
    se = mp.fsum(mp.exp(z) for z in logits)
    pr = [mp.exp(z) / se for z in logits]
    f.update(cf=cf, LN_f=cf["out"], mu_f=cf["mu"], var_f=cf["var"], h_final=hf, logits=logits, sum_exp=se, p=pr,
             loss=-mp.log(pr[tgt]))
    return f


def loss_of(P, ids, tgt):
    return forward(P, ids, tgt)["loss"]


# ---------------------------------------------------------------- reverse pass

def backward(P, ids, tgt, f):
    T, d, Vn = len(ids), len(P["E"][0]), len(P["E"])
    zero = lambda a: [zero(x) for x in a] if isinstance(a, list) else mp.mpf(0)
    G = {k: zero(v) for k, v in P.items()}
    glog = [f["p"][v] - (1 if v == tgt else 0) for v in range(Vn)]
    hf = f["h_final"]
    for v in range(Vn):
        for j in range(d):
            G["E"][v][j] += glog[v] * hf[j]
    dhf = [mp.fsum(glog[v] * P["E"][v][j] for v in range(Vn)) for j in range(d)]
    dLNf = [[mp.mpf(0)] * d for _ in range(T)]
    dLNf[-1] = dhf
    dH, G["gamma_f"], G["beta_f"] = layernorm_back(f["cf"], P["gamma_f"], dLNf)
    extra = {"grad_logits": glog, "grad_h_final": dhf}
    for l in (1, 0):
        c = f[l]
        p = lambda n: P[f"l{l}.{n}"]
        # H2 = H1 + F
        dF = dH
        G[f"l{l}.b_2"] = [mp.fsum(dF[t][j] for t in range(T)) for j in range(d)]
        G[f"l{l}.W_2"] = mm(T_(c["R"]), dF)
        dR = mm(dF, T_(p("W_2")))
        dZ = [[dR[t][k] * dgelu(c["Z"][t][k]) for k in range(len(dR[0]))] for t in range(T)]
        G[f"l{l}.b_1"] = [mp.fsum(dZ[t][k] for t in range(T)) for k in range(len(dZ[0]))]
        G[f"l{l}.W_1"] = mm(T_(c["LN2"]), dZ)
        dc2 = mm(dZ, T_(p("W_1")))
        dx1, G[f"l{l}.gamma2"], G[f"l{l}.beta2"] = layernorm_back(c["c2"], p("gamma2"), dc2)
        dH1 = [[dH[t][j] + dx1[t][j] for j in range(d)] for t in range(T)]
        # H1 = H + Attn, Attn = O·W_O + b_O
        dAttn = dH1
        G[f"l{l}.b_O"] = [mp.fsum(dAttn[t][j] for t in range(T)) for j in range(d)]
        G[f"l{l}.W_O"] = mm(T_(c["O"]), dAttn)
        dO = mm(dAttn, T_(p("W_O")))
        dA = mm(dO, T_(c["V"]))
        dV = mm(T_(c["A"]), dO)
        dS = [[c["A"][t][s] * (dA[t][s] - mp.fsum(c["A"][t][r] * dA[t][r] for r in range(t + 1))) if s <= t
               else mp.mpf(0) for s in range(T)] for t in range(T)]
        sq = mp.sqrt(d)
        dQ = [[mp.fsum(dS[t][s] * c["K"][s][j] for s in range(T)) / sq for j in range(d)] for t in range(T)]
        dK = [[mp.fsum(dS[t][s] * c["Q"][t][j] for t in range(T)) / sq for j in range(d)] for s in range(T)]
        da = [[mp.mpf(0)] * d for _ in range(T)]
        for n, dX in (("Q", dQ), ("K", dK), ("V", dV)):
            G[f"l{l}.b_{n}"] = [mp.fsum(dX[t][j] for t in range(T)) for j in range(d)]
            G[f"l{l}.W_{n}"] = mm(T_(c["LN1"]), dX)
            dd = mm(dX, T_(p(f"W_{n}")))
            da = [[da[t][j] + dd[t][j] for j in range(d)] for t in range(T)]
        dx0, G[f"l{l}.gamma1"], G[f"l{l}.beta1"] = layernorm_back(c["c1"], p("gamma1"), da)
        dH = [[dH1[t][j] + dx0[t][j] for j in range(d)] for t in range(T)]
    for t in range(T):
        for j in range(d):
            G["W_pe"][t][j] += dH[t][j]
            G["E"][ids[t]][j] += dH[t][j]
    return G, extra


# ---------------------------------------------------------------- names

def split_ref(ref, vocab):
    m = re.fullmatch(r"([A-Za-z_0-9.]+)\[([^\]]+)\]", ref)
    name, idx = m.group(1), [s.strip() for s in m.group(2).split(",")]
    return name, [vocab.index(i) if i in vocab else int(i) for i in idx]


def get(P, name, idx):
    x = P[name]
    for i in idx:
        x = x[i]
    return x


def moved(P, name, idx, delta):
    Q = copy.deepcopy(P)
    x = Q[name]
    for i in idx[:-1]:
        x = x[i]
    x[idx[-1]] += delta
    return Q


GRADCHECK = ["l0.W_Q[1,2]", "l0.b_1[3]", "l1.W_2[5,1]", "gamma_f[2]", "E[chat,0]"]


def values():
    vocab, P, ids, tgt = load_params()
    f = forward(P, ids, tgt)
    G, extra = backward(P, ids, tgt, f)
    out = {}
    # the parameters themselves (the worked line of y[2,0] prints four entries of l1.W_O) and their count
    for name, x in P.items():
        if isinstance(x[0], list):
            for i, r in enumerate(x):
                for j, y in enumerate(r):
                    out[f"{name}[{i},{j}]"] = y
        else:
            for i, y in enumerate(x):
                out[f"{name}[{i}]"] = y
    out["params()"] = mp.mpf(sum(len(x) * (len(x[0]) if isinstance(x[0], list) else 1) for x in P.values()))
    # forward quantities (every entry)
    for key in ("H0", "LN_f"):
        for t, r in enumerate(f[key]):
            for j, x in enumerate(r):
                out[f"{key}[{t},{j}]"] = x
    for key in ("mu_f", "var_f"):
        for t, x in enumerate(f[key]):
            out[f"{key}[{t}]"] = x
    for l in range(2):
        for key in ("LN1", "Q", "K", "V", "S", "A", "Attn", "H1", "LN2", "Z", "R", "F", "H2"):
            for t, r in enumerate(f[l][key]):
                for j, x in enumerate(r):
                    out[f"l{l}.{key}[{t},{j}]"] = x
        for t, r in enumerate(f[l]["O"]):
            for j, x in enumerate(r):
                out[f"l{l}.Attn_heads[{t},{j}]"] = x
        for key in ("mu1", "var1", "mu2", "var2", "A_den"):
            for t, x in enumerate(f[l][key]):
                out[f"l{l}.{key}[{t}]"] = x
    for j in range(4):
        out[f"h_final[{j}]"] = f["h_final"][j]
        out[f"grad_h_final[{j}]"] = extra["grad_h_final"][j]
    for v, tok in enumerate(vocab):
        out[f"logits[{tok}]"] = f["logits"][v]
        out[f"p[{tok}]"] = f["p"][v]
        out[f"grad_logits[{tok}]"] = extra["grad_logits"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(f["logits"][v])
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    # gradient check
    for ref in GRADCHECK:
        name, idx = split_ref(ref, vocab)
        Lp = loss_of(moved(P, name, idx, H_FD), ids, tgt)
        Lm = loss_of(moved(P, name, idx, -H_FD), ids, tgt)
        ana = get(G, name, idx)
        numc = (Lp - Lm) / (2 * H_FD)
        out[f"loss_at({ref}, 1e-5)"] = Lp
        out[f"loss_at({ref}, -1e-5)"] = Lm
        out[f"gradcheck({ref}, 1e-5)"] = numc
        out[f"grad_{ref}"] = ana
        out[f"relerr({ref})"] = abs(numc - ana) / max(abs(numc), abs(ana))
        # the reverse pass against mpmath's own derivative
        d_num = mp.diff(lambda x: loss_of(moved(P, name, idx, x - get(P, name, idx)), ids, tgt), get(P, name, idx))
        assert abs(d_num - ana) < mp.mpf("1e-30"), (ref, d_num, ana)
    return vocab, out


# ---------------------------------------------------------------- every figure of DOC.ipynb

# (line of DOC.ipynb as stored, figure as printed on it, quantity, planted?)  Every figure of a model
# quantity in the notebook; main() checks each unplanted one is the correct rounding of its value.
P_ = True
FIGURES = [
    (31, "384", "params()", False), (55, "384", "params()", False),
    (151, "-0.37", "H0[2,0]", False), (151, "0.1", "H0[2,1]", False), (151, "-0.15", "H0[2,2]", False),
    (151, "-0.16", "H0[2,3]", False),
    (173, "-0{,}145", "l0.mu1[2]", False), (173, "0{,}027725", "l0.var1[2]", False),
    (193, "0.0289", "l0.S[0,0]", False), (193, "-0.0654", "l0.S[0,1]", False), (193, "-0.0991", "l0.S[0,2]", False),
    (194, "0.1068", "l0.S[1,0]", False), (194, "-0.0344", "l0.S[1,1]", False), (194, "-0.103", "l0.S[1,2]", False),
    (195, "-0.0991", "l0.S[2,0]", P_), (195, "0.0665", "l0.S[2,1]", False), (195, "-0.0155", "l0.S[2,2]", False),
    (212, "32,6 %", "l0.A[2,0]", False), (212, "0,351 %", "l0.A[2,1]", P_), (212, "32,3 %", "l0.A[2,2]", False),
    (214, "0,2941", "l0.Z[2,3]", False), (214, "0,1811", "l0.R[2,3]", False),
    (232, "-0.4354", "l0.H2[2,0]", False), (232, "0.0618", "l0.H2[2,1]", False), (232, "-0.3855", "l0.H2[2,2]", False),
    (232, "-0.2356", "l0.H2[2,3]", False),
    (251, "0,0375", "l1.var1[2]", False),
    (253, "0{,}4073", "l1.A[2,0]", False), (253, "0{,}3348", "l1.A[2,1]", False), (253, "0{,}2579", "l1.A[2,2]", False),
    (257, "0,4521", "l1.Attn_heads[2,0]", False), (257, "0,25", "l1.W_O[0,0]", False),
    (257, "−0,0977", "l1.Attn_heads[2,1]", False), (257, "−0,38", "l1.W_O[1,0]", False),
    (257, "−0,1138", "l1.Attn_heads[2,2]", False), (257, "−0,25", "l1.W_O[2,0]", False),
    (257, "0,0197", "l1.Attn_heads[2,3]", False), (257, "−0,34", "l1.W_O[3,0]", False),
    (257, "0,1719", "l1.Attn[2,0]", P_),
    (271, "-0.4681", "l1.H2[2,0]", False), (271, "-0.1154", "l1.H2[2,1]", False), (271, "-0.0267", "l1.H2[2,2]", False),
    (271, "-0.0362", "l1.H2[2,3]", False),
    (290, "−0,1616", "mu_f[2]", False), (290, "0,0433", "var_f[2]", P_),
    (302, "-1.6819", "h_final[0]", False), (302, "0.3175", "h_final[1]", False), (302, "0.8331", "h_final[2]", False),
    (302, "0.5789", "h_final[3]", False),
    (331, "-0.4098", "logits[le]", False), (331, "-0.8185", "logits[chat]", False), (331, "0.5844", "logits[mange]", False),
    (331, "-0.118", "logits[la]", False), (331, "-0.8089", "logits[souris]", False),
    (353, "0.1586", "p[le]", P_), (353, "0.1042", "p[chat]", False), (353, "0.4238", "p[mange]", False),
    (353, "0.21", "p[la]", False), (353, "0.1052", "p[souris]", False),
    (354, "1.5608", "loss", False),
    (370, "0,2100", "p[la]", False), (370, "1,5608", "loss", False),
    (372, "0,7900", "grad_logits[la]", P_),
    (498, "1,5608502491", "loss_at(l1.W_2[5,1], 1e-5)", False), (498, "1,5608486645", "loss_at(l1.W_2[5,1], -1e-5)", False),
    (498, "0,079230", "gradcheck(l1.W_2[5,1], 1e-5)", P_),
]
# the gradient-check table (lines 460-464): columns L(θ+h), L(θ-h), numérique, analytique, err. rel.
for _line, _ref in zip(range(460, 465), GRADCHECK):
    for _k, _q in enumerate((f"loss_at({_ref}, 1e-5)", f"loss_at({_ref}, -1e-5)", f"gradcheck({_ref}, 1e-5)",
                             f"grad_{_ref}", f"relerr({_ref})")):
        FIGURES.append((_line, _k, _q, (_line, _k) == (464, 1)))     # wte[chat,0], L(θ-h): last-digit slip


def audit_doc(vals) -> int:
    """Every figure of DOC.ipynb: it is on its line, and, unless planted, the correct rounding of its quantity."""
    doc = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    bad, n_planted, n = 0, 0, 0
    for line, printed, ref, planted in FIGURES:
        text = doc[line - 1]
        if isinstance(printed, int):                          # a cell of the gradient-check table
            printed = text.strip().strip(",").strip('"').replace("\\n", "").split()[1 + printed]
        n += 1
        if printed not in text:
            print(f"  line {line}: {printed!r} NOT ON ITS LINE")
            bad += 1
            continue
        v = vals[ref]
        if "e-" in printed:
            right = rnd_sig(v, len(printed.split("e")[0].replace(".", "").lstrip("-")))
        else:
            right = shown(v, printed.replace("{,}", ",").replace("\u2212", "-"))
        same = right.replace(" ", "") == printed.replace("{,}", ",").replace("\u2212", "-").replace(" ", "")
        if planted:
            n_planted += 1
            if same:
                print(f"  line {line}: planted {printed!r} is in fact correct for {ref}")
                bad += 1
        elif not same:
            print(f"  line {line}: {printed!r} for {ref} is NOT the correct rounding ({right})")
            bad += 1
    print(f"DOC.ipynb: {n} figures of model quantities audited, {n_planted} planted, {bad} problems")
    return bad


# ---------------------------------------------------------------- the key

def key_rows():
    rows = []
    section = None
    for line in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line
        if line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            rows.append((section, cells))
    return rows


def to_mpf(text: str):
    t = text.strip("`").replace("\u2212", "-").replace(" ", "").replace("\u202f", "").rstrip("%").replace(",", ".")
    return mp.mpf(t)


def places(text: str) -> int:
    t = text.strip("`").replace(" ", "").rstrip("%").replace(",", ".")
    return len(t.split(".")[1]) if "." in t else 0


def shown(v, like: str) -> str:
    """v rounded the way `like` is printed (decimal point or comma, percent or not)."""
    t = like.strip("`")
    pct = t.rstrip().endswith("%")
    s = rnd(v * (100 if pct else 1), places(t))
    if "," in t:
        s = s.replace(".", ",")
    if pct:
        s += " %" if t.replace("\u202f", " ").endswith(" %") else "%"
    return s


def main() -> int:
    vocab, vals = values()
    bad = 0
    rows = key_rows()
    planted = [c for s, c in rows if "Planted" in s]
    correct = [c for s, c in rows if "Correct" in s]
    print(f"{len(planted)} planted rows, {len(correct)} correct rows")
    for kind, cells in [("planted", c) for c in planted] + [("correct", c) for c in correct]:
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>14}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref]
        pct = printed.rstrip().endswith("%")
        if kind == "planted":
            exact_col, right_col = cells[3].rstrip("…"), cells[4].strip("`")
            right = shown(v, right_col)
            exact = mp.mpf(exact_col)
            ok = (right == right_col and abs(exact - v * (100 if pct else 1)) <= mp.mpf("1e-10") * abs(v * (100 if pct else 1))
                  and right.replace(" ", "") != printed.replace(" ", ""))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = shown(v, printed)
            note = "correct" if right == printed else f"NOT THE CORRECT ROUNDING ({right})"
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>14}  {ref:<36} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    assert len(planted) == 8, "the key must list exactly 8 planted errors"
    assert len(correct) == 10, "the key must list 10 correct figures"
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    bad += audit_doc(vals)
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
