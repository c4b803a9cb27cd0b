#!/usr/bin/env python3
"""Independent oracle for he-md-nanogpt-sampling-grads: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity, the exact value, and a check of the key's columns

Model (SPEC.toml, read with tomllib; every number taken from its decimal text): one nanoGPT block
(pre-LN, exact-erf GELU, learned positions, biases on every projection, attention c_proj W_O, final
LayerNorm ln_f, tied head), V = 6, d = 4, 2 heads (d_k = 2), d_ff = 8, T = 4, eps = 1e-5.

    H0 = E[ids] + W_pe;  LN1 = LN(H0; gamma1, beta1)  (biased variance)
    Q, K, V = LN1 W + b;  S[h,t,s] = q_t^h . k_s^h / sqrt(2);  A = causal softmax
    Attn_heads[t] = sum_s A[h,t,s] V[s] (heads side by side);  Attn = Attn_heads W_O + b_O
    H1 = H0 + Attn;  LN2 = LN(H1; gamma2, beta2);  Z = LN2 W_1 + b_1;  R = Z Phi(Z)
    F = R W_2 + b_2;  H2 = H1 + F;  LN_f = LN(H2; gamma_f, beta_f);  h_final = LN_f[3]
    logits = h_final E^T;  p = softmax;  loss = -ln p[target]
    softmax_T(T, v) = softmax(logits / T)[v];  topk(3, v) = p[v] / (sum of the 3 largest p)

Gradients are computed twice and compared: by a hand-written backward pass (p - y, the tied head,
the ln_f backward formula, R^T dF) and by central finite differences of the whole forward pass at
50 digits (h = 1e-20, so about 30 digits agree). Rounding is half away from zero on the 45-digit
decimal of the value.
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
    return mp.mpf(str(x))


def arr(a):
    return [arr(r) for r in a] if isinstance(a, list) else num(a)


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    P = {k: arr(v) for k, v in spec["weights"].items()}
    P.update({k: arr(v) for k, v in spec["layer"][0].items()})
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    return P, vocab, ids, tgt, num(spec["model"]["ln_eps"])


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addb(M, b):
    return [[x + y for x, y in zip(r, b)] for r in M]


def layernorm(H, g, b, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    out = [[g[j] * (r[j] - m) / mp.sqrt(v + eps) + b[j] for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, out


def gelu(z):
    return z * (1 + mp.erf(z / mp.sqrt(2))) / 2


def forward(P, ids, tgt, eps, dH0=None, dH2=None):
    """The whole forward pass; dH0 / dH2 (optional) are added to H0 / H2, for finite differences."""
    T, d, nh = len(ids), 4, 2
    dk = d // nh
    E = P["E"]
    H0 = [[E[ids[t]][j] + P["W_pe"][t][j] + (dH0[t][j] if dH0 else 0) for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, P["gamma1"], P["beta1"], eps)
    Q = addb(matmul(LN1, P["W_Q"]), P["b_Q"])
    K = addb(matmul(LN1, P["W_K"]), P["b_K"])
    V = addb(matmul(LN1, P["W_V"]), P["b_V"])
    S = [[[mp.fsum(Q[t][h * dk + i] * K[s][h * dk + i] for i in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(nh)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(nh)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(nh)]
    Ah = [[mp.fsum(A[j // dk][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    Attn = addb(matmul(Ah, P["W_O"]), P["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, P["gamma2"], P["beta2"], eps)
    Z = addb(matmul(LN2, P["W_1"]), P["b_1"])
    R = [[gelu(z) for z in r] for r in Z]
    F = addb(matmul(R, P["W_2"]), P["b_2"])
    H2 = [[H1[t][j] + F[t][j] + (dH2[t][j] if dH2 else 0) for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, P["gamma_f"], P["beta_f"], eps)
    hf = LN_f[-1]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    return dict(H0=H0, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Ah,
                Attn=Attn, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=mu_f, var_f=var_f,
                LN_f=LN_f, h_final=hf, logits=logits, sum_exp=se, p=p, loss=-mp.log(p[tgt]))


def quantities():
    P, vocab, ids, tgt, eps = load_spec()
    f = forward(P, ids, tgt, eps)
    V, d, T = len(vocab), 4, len(ids)
    q: dict[str, mp.mpf] = {}

    def put(name, val, toks=()):
        """Every entry of a nested list, e.g. S[1,3,0]; an axis in toks is indexed by token."""
        def walk(v, idx):
            if isinstance(v, list):
                for i, x in enumerate(v):
                    walk(x, idx + [vocab[i] if len(idx) in toks else str(i)])
            else:
                q[f"{name}[{','.join(idx)}]" if idx else name] = v
        walk(val, [])

    for k in ("H0", "mu1", "var1", "LN1", "Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1", "mu2",
              "var2", "LN2", "Z", "R", "F", "H2", "mu_f", "var_f", "LN_f", "h_final"):
        put(k, f[k])
    put("logits", f["logits"], (0,))
    put("p", f["p"], (0,))
    q["sum_exp"], q["loss"] = f["sum_exp"], f["loss"]
    put("E", P["E"], (0,))
    put("W_pe", P["W_pe"])
    for v in range(V):
        q[f"exp(logits[{vocab[v]}])"] = mp.exp(f["logits"][v])
    for h in range(2):
        for t in range(T):
            q[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(f["var1"][t] + eps)
    q["sqrt(var_f[3] + ln_eps)"] = mp.sqrt(f["var_f"][3] + eps)

    # sampling
    for Tm in ("0.8",):
        z = [x / num(Tm) for x in f["logits"]]
        s = mp.fsum(mp.exp(x) for x in z)
        for v in range(V):
            q[f"softmax_T({Tm}, {vocab[v]})"] = mp.exp(z[v]) / s
            q[f"logits[{vocab[v]}] / {Tm}"] = z[v]
    order = sorted(range(V), key=lambda v: -f["p"][v])
    top = order[:3]
    mass = mp.fsum(f["p"][v] for v in top)
    q["p[עם] + p[חמאה] + p[גבינה]"] = mass
    assert sorted(top) == sorted(vocab.index(w) for w in ("עם", "חמאה", "גבינה"))
    for v in top:
        q[f"topk(3, {vocab[v]})"] = f["p"][v] / mass

    # hand-written backward pass for the quantities the post differentiates
    y = [mp.mpf(1 if v == tgt else 0) for v in range(V)]
    gl = [f["p"][v] - y[v] for v in range(V)]
    put("grad_logits", gl, (0,))
    g_head = [[gl[v] * f["h_final"][j] for j in range(d)] for v in range(V)]
    put("grad_E_head", g_head, (0,))
    ghf = [mp.fsum(gl[v] * P["E"][v][j] for v in range(V)) for j in range(d)]
    put("grad_h_final", ghf)
    # ln_f backward at the last position: dx = (gy*gamma - mean(gy*gamma) - xhat*mean(gy*gamma*xhat)) / sigma
    x = f["H2"][3]
    sig = mp.sqrt(f["var_f"][3] + eps)
    xhat = [(x[j] - f["mu_f"][3]) / sig for j in range(d)]
    g = [ghf[j] * P["gamma_f"][j] for j in range(d)]
    mg = mp.fsum(g) / d
    mgx = mp.fsum(g[j] * xhat[j] for j in range(d)) / d
    gH2_3 = [(g[j] - mg - xhat[j] * mgx) / sig for j in range(d)]
    for j in range(d):
        q[f"grad_H2[3,{j}]"] = gH2_3[j]
        q[f"grad_F[3,{j}]"] = gH2_3[j]
    for k in range(8):
        for j in range(d):
            q[f"grad_W_2[{k},{j}]"] = f["R"][3][k] * gH2_3[j]   # only the last position reaches the loss

    # finite differences (independent of the backward formulas above)
    h = mp.mpf("1e-20")

    def loss_with(**kw):
        return forward(P, ids, tgt, eps, **kw)["loss"]

    def fd_param(name, i, j):
        P2 = {k: v for k, v in P.items()}
        M = [r[:] for r in P[name]]
        M[i][j] = P[name][i][j] + h
        P2[name] = M
        up = forward(P2, ids, tgt, eps)["loss"]
        M[i][j] = P[name][i][j] - h
        dn = forward(P2, ids, tgt, eps)["loss"]
        return (up - dn) / (2 * h)

    def fd_node(kw, t, j):
        Dp = [[mp.mpf(0)] * d for _ in range(T)]
        Dp[t][j] = h
        Dm = [[mp.mpf(0)] * d for _ in range(T)]
        Dm[t][j] = -h
        return (loss_with(**{kw: Dp}) - loss_with(**{kw: Dm})) / (2 * h)

    for j in range(d):
        q[f"grad_H0[3,{j}]"] = fd_node("dH0", 3, j)
        q[f"grad_X[3,{j}]"] = q[f"grad_H0[3,{j}]"]
        q[f"grad_W_pe[3,{j}]"] = q[f"grad_H0[3,{j}]"]
        assert abs(fd_node("dH2", 3, j) - gH2_3[j]) < mp.mpf("1e-25"), "ln_f backward disagrees with FD"
    for w in ("הילד", "עם", "חמאה", "גבינה"):
        v = vocab.index(w)
        for j in range(d):
            g_fd = fd_param("E", v, j)
            q[f"grad_E[{w},{j}]"] = g_fd
            # the tied head's part plus, for an input token, the gradient of its input row
            expect = g_head[v][j] + (q[f"grad_H0[{ids.index(v)},{j}]"] if v in ids and ids.index(v) == 3 else 0)
            if v not in ids or ids.index(v) == 3:
                assert abs(g_fd - expect) < mp.mpf("1e-25"), ("grad_E", w, j)
    for j in range(d):
        q[f"grad_H0[0,{j}]"] = fd_node("dH0", 0, j)
        assert abs(q[f"grad_E[הילד,{j}]"] - g_head[0][j] - q[f"grad_H0[0,{j}]"]) < mp.mpf("1e-25")
    for k, j in ((5, 0), (5, 1), (0, 1)):
        assert abs(fd_param("W_2", k, j) - q[f"grad_W_2[{k},{j}]"]) < mp.mpf("1e-25"), ("W_2", k, j)
    for v in range(V):
        # p - y against a finite difference of the loss in the logit (softmax + cross-entropy only)
        z = f["logits"]
        lse = lambda zz: mp.log(mp.fsum(mp.exp(a) for a in zz)) - zz[tgt]
        zp = z[:]; zp[v] += h
        zm = z[:]; zm[v] -= h
        assert abs((lse(zp) - lse(zm)) / (2 * h) - gl[v]) < mp.mpf("1e-25")
    assert abs(lse(z) - f["loss"]) < mp.mpf("1e-40")
    return q


def check_key(q) -> int:
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        refs = [n for n in names if n in q]
        if not refs:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        ref = refs[0]
        line = int(cells[1])
        if printed not in doc[line - 1]:
            print(f"  {printed:>10}  NOT ON LINE {line} of DOC.md")
            bad += 1
        pct = printed.endswith("%") or (len(cells) == 7 and cells[4].strip("`").endswith("%"))
        v = q[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            digits = len(re.sub(r"[^0-9]", "", cells[3].rstrip("…")).lstrip("0"))
            ok = (shown == right and abs(exact - v) <= mp.mpf(10) ** (-(digits - 1)) * abs(v)
                  and right != printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            ok = right == printed
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        bad += not ok
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return bad


def main() -> int:
    q = quantities()
    print("he-md-nanogpt-sampling-grads:")
    bad = check_key(q)
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
