#!/usr/bin/env python3
"""Independent oracle for ca-pdf-seed-T4-gradcheck-adamw2 (plain mpmath, 50 digits, no symgpt).

Model: one post-LN transformer block, one head, d = 2, d_ff = 4, tied head, ln_eps = 1e-5,
input "<s> el gat menja" (T = 4), target "peix". Forward, reverse-mode gradients (a small scalar
autodiff over mpf), a central finite-difference check (h = 1e-4) and two AdamW steps
(torch.optim.AdamW: lr 0.01, betas 0.9/0.999, eps 1e-8, decoupled weight decay 0.01 on every
parameter; LayerNorm γ, β fixed at 1, 0).

    python oracle.py     # prints every KEY.md row's quantity and checks the key's columns
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
F = lambda s: mp.mpf(str(s))

VOCAB = ["<s>", "el", "gat", "menja", "peix", "dorm"]
IDS = [0, 1, 2, 3]
TGT = 4
EPS_LN = F("1e-5")

INIT = {
    "E": [[0.1, -0.2], [0.4, 0.3], [-0.5, 0.6], [0.7, -0.1], [0.2, 0.8], [-0.3, -0.4]],
    "W_Q": [[0.5, -0.3], [0.2, 0.6]],
    "W_K": [[0.4, 0.1], [-0.2, 0.7]],
    "W_V": [[0.3, 0.8], [-0.6, 0.2]],
    "W_1": [[0.25, -0.4, 0.6, 0.15], [0.5, 0.3, -0.2, -0.35]],
    "b_1": [0.05, 0.1, -0.05, 0.2],
    "W_2": [[0.4, -0.3], [0.2, 0.5], [-0.6, 0.1], [0.3, 0.45]],
    "b_2": [0.02, -0.01],
}


# ------------------------------------------------------------------ scalar reverse-mode autodiff
class N:
    __slots__ = ("v", "par", "g")

    def __init__(self, v, par=()):
        self.v, self.par, self.g = v, par, mp.mpf(0)

    def __add__(a, b):
        b = b if isinstance(b, N) else N(F(b))
        return N(a.v + b.v, ((a, 1), (b, 1)))

    __radd__ = __add__

    def __sub__(a, b):
        b = b if isinstance(b, N) else N(F(b))
        return N(a.v - b.v, ((a, 1), (b, -1)))

    def __mul__(a, b):
        b = b if isinstance(b, N) else N(F(b))
        return N(a.v * b.v, ((a, b.v), (b, a.v)))

    __rmul__ = __mul__

    def __truediv__(a, b):
        b = b if isinstance(b, N) else N(F(b))
        return N(a.v / b.v, ((a, 1 / b.v), (b, -a.v / b.v ** 2)))


def nexp(a):
    e = mp.exp(a.v)
    return N(e, ((a, e),))


def nlog(a):
    return N(mp.log(a.v), ((a, 1 / a.v),))


def nsqrt(a):
    s = mp.sqrt(a.v)
    return N(s, ((a, 1 / (2 * s)),))


def nrelu(a):
    return N(a.v if a.v > 0 else mp.mpf(0), ((a, 1 if a.v > 0 else 0),))


def nsum(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for p, _ in n.par:
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, lg in n.par:
            p.g += n.g * lg


# ------------------------------------------------------------------ the model
def forward(P):
    """P: dict of parameter name -> nested lists of mpf. Returns (nodes dict, leaf dict)."""
    leaf = {k: ([[N(x) for x in r] for r in v] if isinstance(v[0], list) else [N(x) for x in v]) for k, v in P.items()}
    E, WQ, WK, WV = leaf["E"], leaf["W_Q"], leaf["W_K"], leaf["W_V"]
    W1, b1, W2, b2 = leaf["W_1"], leaf["b_1"], leaf["W_2"], leaf["b_2"]
    T, d = len(IDS), 2
    PE = [[mp.sin(t) if j == 0 else mp.cos(t) for j in range(d)] for t in range(T)]   # base^0 = 1 for d = 2
    H0 = [[E[IDS[t]][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mm = lambda X, W: [[nsum([X[t][i] * W[i][j] for i in range(len(W))]) for j in range(len(W[0]))] for t in range(len(X))]
    Q, K, V = mm(H0, WQ), mm(H0, WK), mm(H0, WV)
    rt = mp.sqrt(d)
    S = [[nsum([Q[t][j] * K[s][j] for j in range(d)]) / rt for s in range(T)] for t in range(T)]
    ex = [[nexp(S[t][s]) for s in range(t + 1)] for t in range(T)]
    den = [nsum(ex[t]) for t in range(T)]
    A = [[ex[t][s] / den[t] for s in range(t + 1)] for t in range(T)]
    Attn = [[nsum([A[t][s] * V[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]

    def ln(H):
        mu = [nsum(r) / d for r in H]
        var = [nsum([(x - m) * (x - m) for x in r]) / d for r, m in zip(H, mu)]
        sd = [nsqrt(v + EPS_LN) for v in var]
        return mu, var, sd, [[(r[j] - m) / s for j in range(d)] for r, m, s in zip(H, mu, sd)]

    mu1, var1, sd1, LN1 = ln(H1)
    Z = [[z + b for z, b in zip(r, b1)] for r in mm(LN1, W1)]
    R = [[nrelu(z) for z in r] for r in Z]
    Fo = [[f + b for f, b in zip(r, b2)] for r in mm(R, W2)]
    H2 = [[LN1[t][j] + Fo[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, sd2, LN2 = ln(H2)
    hf = LN2[T - 1]
    logits = [nsum([hf[j] * E[v][j] for j in range(d)]) for v in range(len(VOCAB))]
    exps = [nexp(z) for z in logits]
    Z_sum = nsum(exps)
    p = [e / Z_sum for e in exps]
    loss = N(mp.mpf(0)) - nlog(p[TGT])
    nodes = dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, A_den=den, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                 sd1=sd1, LN1=LN1, Z=Z, R=R, F=Fo, H2=H2, mu2=mu2, var2=var2, sd2=sd2, LN2=LN2, h_final=hf,
                 logits=logits, exps=exps, sum_exp=Z_sum, p=p, loss=loss)
    return nodes, leaf


def val(x):
    return x.v if isinstance(x, N) else x


def run(P):
    nodes, leaf = forward(P)
    backward(nodes["loss"])
    grads = {k: ([[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v]) for k, v in leaf.items()}
    return nodes, grads


def tok(s):
    return VOCAB.index(s) if s in VOCAB else int(s)


def entry(M, idx):
    for i in idx:
        M = M[i]
    return M


def set_entry(P, name, idx, delta):
    Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


P0 = {k: ([[F(x) for x in r] for r in v] if isinstance(v[0], list) else [F(x) for x in v]) for k, v in INIT.items()}


def adamw(P, steps, lr=F("0.01"), b1=F("0.9"), b2=F("0.999"), eps=F("1e-8"), wd=F("0.01")):
    """States [0..steps]: each (params, nodes, grads, moments-at-that-state)."""
    states = []
    m = {k: ([[mp.mpf(0)] * len(v[0]) for _ in v] if isinstance(v[0], list) else [mp.mpf(0)] * len(v)) for k, v in P.items()}
    s = {k: ([[mp.mpf(0)] * len(v[0]) for _ in v] if isinstance(v[0], list) else [mp.mpf(0)] * len(v)) for k, v in P.items()}
    cur = P
    nodes, grads = run(cur)
    states.append(dict(P=cur, nodes=nodes, grads=grads, mom={}))
    for t in range(1, steps + 1):
        new, mom = {}, {}
        for k, v in cur.items():
            two = isinstance(v[0], list)
            rows = v if two else [v]
            out = []
            for i, r in enumerate(rows):
                orow = []
                for j, th in enumerate(r):
                    g = grads[k][i][j] if two else grads[k][j]
                    mm_ = m[k][i][j] if two else m[k][j]
                    vv = s[k][i][j] if two else s[k][j]
                    mm_ = b1 * mm_ + (1 - b1) * g
                    vv = b2 * vv + (1 - b2) * g * g
                    if two:
                        m[k][i][j], s[k][i][j] = mm_, vv
                    else:
                        m[k][j], s[k][j] = mm_, vv
                    mh, vh = mm_ / (1 - b1 ** t), vv / (1 - b2 ** t)
                    upd = lr * mh / (mp.sqrt(vh) + eps)
                    nt = th * (1 - lr * wd) - upd
                    key = (k, i, j) if two else (k, j)
                    mom[key] = dict(m=mm_, v=vv, mhat=mh, vhat=vh, update=upd, decay=lr * wd * th, new=nt)
                    orow.append(nt)
                out.append(orow)
            new[k] = out if two else out[0]
        cur = new
        nodes, grads = run(cur)
        states.append(dict(P=cur, nodes=nodes, grads=grads, mom=mom))
    return states


def quantities():
    st = adamw(P0, 2)
    n, g = st[0]["nodes"], st[0]["grads"]
    q = {}
    T = 4
    for t in range(T):
        for j in range(2):
            q[f"PE[{t},{j}]"] = n["PE"][t][j]
            for nm in ("H0", "Q", "K", "V", "Attn", "H1", "LN1", "F", "H2", "LN2"):
                q[f"{nm}[{t},{j}]"] = val(n[nm][t][j])
        for nm in ("mu1", "var1", "mu2", "var2", "A_den"):
            q[f"{nm}[{t}]"] = val(n[nm][t])
        q[f"sqrt(var1[{t}] + ln_eps)"] = val(n["sd1"][t])
        q[f"sqrt(var2[{t}] + ln_eps)"] = val(n["sd2"][t])
        for s in range(T):
            q[f"S[{t},{s}]"] = val(n["S"][t][s])
            q[f"A[{t},{s}]"] = val(n["A"][t][s]) if s <= t else mp.mpf(0)
        for k in range(4):
            q[f"Z[{t},{k}]"] = val(n["Z"][t][k])
            q[f"R[{t},{k}]"] = val(n["R"][t][k])
    for t in range(T):  # unscaled dot products of the last query
        q[f"S[3,{t}]*sqrt(2)"] = val(n["S"][3][t]) * mp.sqrt(2)
    for j in range(2):
        q[f"h_final[{j}]"] = val(n["h_final"][j])
    for v, w in enumerate(VOCAB):
        q[f"logits[{w}]"] = val(n["logits"][v])
        q[f"exp(logits[{w}])"] = val(n["exps"][v])
        q[f"p[{w}]"] = val(n["p"][v])
        q[f"grad_logits[{w}]"] = val(n["p"][v]) - (1 if v == TGT else 0)
        for j in range(2):
            q[f"grad_E[{w},{j}]"] = g["E"][v][j]
            q[f"grad_E_head[{w},{j}]"] = (val(n["p"][v]) - (1 if v == TGT else 0)) * val(n["h_final"][j])
    q["sum_exp"] = val(n["sum_exp"])
    q["loss"] = val(n["loss"])
    for k in range(4):
        for j in range(2):
            q[f"grad_W_1[{j},{k}]"] = g["W_1"][j][k]
            q[f"grad_W_2[{k},{j}]"] = g["W_2"][k][j]
        q[f"grad_b_1[{k}]"] = g["b_1"][k]
    for j in range(2):
        q[f"grad_b_2[{j}]"] = g["b_2"][j]
    # gradient check, h = 1e-4
    h = F("1e-4")
    for name, idx, label in (("E", (4, 0), "E[peix,0]"), ("E", (3, 1), "E[menja,1]")):
        lp = val(forward(set_entry(P0, name, idx, h))[0]["loss"])
        lm = val(forward(set_entry(P0, name, idx, -h))[0]["loss"])
        q[f"loss_at({label}, 1e-4)"] = lp
        q[f"loss_at({label}, -1e-4)"] = lm
        q[f"gradcheck({label}, 1e-4)"] = (lp - lm) / (2 * h)
    # AdamW
    for k in (1, 2):
        mom = st[k]["mom"]
        for key, label in ((("E", 4, 0), "E,peix,0"), (("W_2", 2, 0), "W_2,2,0"), (("E", 3, 1), "E,menja,1")):
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{k}].{f}[{label}]"] = mom[key][f]
            pname, i, j = key
            q[f"adamw[{k}].{pname}[{label.split(',', 1)[1]}]"] = st[k]["P"][pname][i][j]
        q[f"adamw[{k}].loss"] = val(st[k]["nodes"]["loss"])
        q[f"adamw[{k}].p[peix]"] = val(st[k]["nodes"]["p"][TGT])
        q[f"adamw[{k}].grad_E[peix,0]"] = st[k]["grads"]["E"][4][0]
        q[f"adamw[{k}].grad_W_2[2,0]"] = st[k]["grads"]["W_2"][2][0]
        q[f"adamw[{k}].grad_E[menja,1]"] = st[k]["grads"]["E"][3][1]
    return q


# ------------------------------------------------------------------ key checking
def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm(s: str) -> str:
    """A figure as printed (Catalan: decimal comma, Unicode minus, maybe %) -> plain decimal text."""
    return s.replace("\u2212", "-").replace(",", ".").replace(" ", "").replace("\u00a0", "")


def main() -> int:
    q = quantities()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((nm for nm in names if nm in q), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.rstrip().endswith("%")
        v = q[ref] * (100 if pct else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        plain = norm(shown).rstrip("%")
        places = len(plain.split(".")[1]) if "." in plain else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(norm(cells[3]).rstrip("…").rstrip("%"))
            ok = (right == plain and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != norm(printed).rstrip("%"))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == plain else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>12}  {ref:<30} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print(f"all {len(rows)} key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--dump":
        for k, v in quantities().items():
            print(k, mp.nstr(v, 20))
    else:
        sys.exit(main())
