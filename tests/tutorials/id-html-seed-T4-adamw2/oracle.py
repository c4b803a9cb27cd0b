#!/usr/bin/env python3
"""Independent oracle for id-html-seed-T4-adamw2 (plain mpmath at 50 digits; no symgpt).

Reads SPEC.toml (tomllib, every number kept as its decimal text), runs the seed's one-layer
post-LN transformer (sinusoidal positions, one head, ReLU FFN, tied head, LayerNorm gamma = 1,
beta = 0 and not trained), takes the reverse pass with a small tape of scalar operations,
checks that reverse pass against central differences, then takes two AdamW steps
(torch.optim.AdamW: decoupled weight decay on every trained parameter).

    python oracle.py          # every KEY.md row: quantity, exact value, verdict; exit 1 on mismatch
    python oracle.py --dump   # every quantity the oracle knows
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
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"), parse_float=mp.mpf)


def num(x):
    return x if isinstance(x, mp.mpf) else mp.mpf(x)


MODEL, DATA, LAYER = SPEC["model"], SPEC["data"], SPEC["layer"][0]
VOCAB = MODEL["vocab"]
D, DFF = MODEL["d"], MODEL["d_ff"]
BASE = num(MODEL["pe_base"])
LN_EPS = num(MODEL["ln_eps"])
INPUT = [VOCAB.index(w) for w in DATA["input"]]
TARGET = VOCAB.index(DATA["target"])
T = len(INPUT)
ADAM = {k: num(v) for k, v in SPEC["training"]["adamw"].items()}
PARAMS = ["E", "W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"]


def init_params():
    src = dict(SPEC["weights"], **LAYER)
    out = {}
    for name in PARAMS:
        v = src[name]
        out[name] = [[num(x) for x in r] for r in v] if isinstance(v[0], list) else [num(x) for x in v]
    return out


# ------------------------------------------------------------------ a tape of scalar operations
class Tape:
    def __init__(self):
        self.vals, self.parents = [], []

    def leaf(self, v):
        self.vals.append(v)
        self.parents.append(())
        return len(self.vals) - 1

    def op(self, v, parents):
        self.vals.append(v)
        self.parents.append(tuple(parents))
        return len(self.vals) - 1

    def add(self, *xs):
        return self.op(sum((self.vals[x] for x in xs), mp.mpf(0)), [(x, 1) for x in xs])

    def sub(self, a, b):
        return self.op(self.vals[a] - self.vals[b], [(a, 1), (b, -1)])

    def mul(self, a, b):
        return self.op(self.vals[a] * self.vals[b], [(a, self.vals[b]), (b, self.vals[a])])

    def scale(self, a, c):
        return self.op(self.vals[a] * c, [(a, c)])

    def div(self, a, b):
        va, vb = self.vals[a], self.vals[b]
        return self.op(va / vb, [(a, 1 / vb), (b, -va / vb ** 2)])

    def exp(self, a):
        e = mp.exp(self.vals[a])
        return self.op(e, [(a, e)])

    def log(self, a):
        return self.op(mp.log(self.vals[a]), [(a, 1 / self.vals[a])])

    def sqrt(self, a):
        s = mp.sqrt(self.vals[a])
        return self.op(s, [(a, 1 / (2 * s))])

    def relu(self, a):
        v = self.vals[a]
        return self.op(v if v > 0 else mp.mpf(0), [(a, 1 if v > 0 else 0)])

    def dot(self, xs, ys):
        return self.add(*[self.mul(x, y) for x, y in zip(xs, ys)])

    def grad(self, root):
        g = [mp.mpf(0)] * len(self.vals)
        g[root] = mp.mpf(1)
        for i in range(root, -1, -1):
            if g[i]:
                for p, local in self.parents[i]:
                    g[p] += g[i] * local
        return g


def pe(t, j):
    i2 = j - j % 2
    ang = mp.mpf(t) / BASE ** (mp.mpf(i2) / D)
    return mp.sin(ang) if j % 2 == 0 else mp.cos(ang)


def forward(P):
    tp = Tape()
    L = {k: ([[tp.leaf(x) for x in r] for r in v] if isinstance(v[0], list) else [tp.leaf(x) for x in v])
         for k, v in P.items()}
    col = lambda M, j: [r[j] for r in M]
    PE = [[tp.leaf(pe(t, j)) for j in range(D)] for t in range(T)]
    H0 = [[tp.add(L["E"][INPUT[t]][j], PE[t][j]) for j in range(D)] for t in range(T)]
    proj = lambda X, W: [[tp.dot(x, col(W, j)) for j in range(len(W[0]))] for x in X]
    Q, K, V = proj(H0, L["W_Q"]), proj(H0, L["W_K"]), proj(H0, L["W_V"])
    inv = 1 / mp.sqrt(D)
    S = [[tp.scale(tp.dot(Q[t], K[s]), inv) for s in range(T)] for t in range(T)]
    ES = [[tp.exp(S[t][s]) for s in range(t + 1)] for t in range(T)]
    Aden = [tp.add(*ES[t]) for t in range(T)]
    A = [[tp.div(ES[t][s], Aden[t]) for s in range(t + 1)] for t in range(T)]
    Attn = [[tp.dot(A[t], [V[s][j] for s in range(t + 1)]) for j in range(D)] for t in range(T)]
    H1 = [[tp.add(H0[t][j], Attn[t][j]) for j in range(D)] for t in range(T)]

    def layernorm(H):
        mu, var, sd, out = [], [], [], []
        for row in H:
            m = tp.scale(tp.add(*row), mp.mpf(1) / D)
            cen = [tp.sub(x, m) for x in row]
            v = tp.scale(tp.add(*[tp.mul(c, c) for c in cen]), mp.mpf(1) / D)
            s = tp.sqrt(tp.op(tp.vals[v] + LN_EPS, [(v, 1)]))
            mu.append(m), var.append(v), sd.append(s)
            out.append([tp.div(c, s) for c in cen])
        return mu, var, sd, out

    mu1, var1, sd1, LN1 = layernorm(H1)
    Z = [[tp.add(z, b) for z, b in zip(r, L["b_1"])] for r in proj(LN1, L["W_1"])]
    R = [[tp.relu(z) for z in r] for r in Z]
    Fo = [[tp.add(f, b) for f, b in zip(r, L["b_2"])] for r in proj(R, L["W_2"])]
    H2 = [[tp.add(LN1[t][j], Fo[t][j]) for j in range(D)] for t in range(T)]
    mu2, var2, sd2, LN2 = layernorm(H2)
    h = LN2[T - 1]
    logits = [tp.dot(h, L["E"][w]) for w in range(len(VOCAB))]
    ex = [tp.exp(z) for z in logits]
    tot = tp.add(*ex)
    p = [tp.div(e, tot) for e in ex]
    loss = tp.scale(tp.log(p[TARGET]), -1)
    nodes = dict(PE=PE, H0=H0, Q=Q, K=K, V=V, S=S, ES=ES, A_den=Aden, A=A, Attn=Attn, H1=H1, mu1=mu1,
                 var1=var1, sd1=sd1, LN1=LN1, Z=Z, R=R, F=Fo, H2=H2, mu2=mu2, var2=var2, sd2=sd2, LN2=LN2,
                 h_final=h, logits=logits, exps=ex, sum_exp=tot, p=p, loss=loss)
    return tp, nodes, L


def shape_map(f, X):
    return [f(x) for x in X] if not isinstance(X[0], list) else [[f(x) for x in r] for r in X]


def evaluate(P):
    tp, nodes, L = forward(P)
    g = tp.grad(nodes["loss"])
    V = lambda x: shape_map(lambda i: tp.vals[i], x) if isinstance(x, list) else tp.vals[x]
    G = lambda x: shape_map(lambda i: g[i], x) if isinstance(x, list) else g[x]
    vals = {k: V(v) for k, v in nodes.items()}
    grads = {k: G(v) for k, v in L.items()}
    ngrads = {k: G(v) for k, v in nodes.items() if k not in ("PE", "ES", "S", "A")}
    relu_in = [x for r in vals["Z"] for x in r]
    return vals, grads, ngrads, min(abs(x) for x in relu_in)


def loss_of(P):
    tp, nodes, _ = forward(P)
    return tp.vals[nodes["loss"]]


def perturbed(P, name, idx, delta):
    Q = {k: ([r[:] for r in v] if isinstance(v[0], list) else v[:]) for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] += delta
    else:
        Q[name][idx[0]] += delta
    return Q


def get(M, idx):
    for i in idx:
        M = M[i]
    return M


def adamw_trace(P, steps):
    lr, b1, b2, eps, wd = ADAM["lr"], ADAM["beta1"], ADAM["beta2"], ADAM["eps"], ADAM["weight_decay"]
    zeros = lambda v: shape_map(lambda _: mp.mpf(0), v)
    m = {k: zeros(v) for k, v in P.items()}
    s = {k: zeros(v) for k, v in P.items()}
    vals, grads, _, gap = evaluate(P)
    states = [dict(P=P, vals=vals, grads=grads, mom={}, gap=gap)]
    cur = P
    for t in range(1, steps + 1):
        new, mom = {}, {}
        for k, v in cur.items():
            flat = [(i, j) for i in range(len(v)) for j in range(len(v[0]))] if isinstance(v[0], list) \
                else [(i,) for i in range(len(v))]
            nv = [r[:] for r in v] if isinstance(v[0], list) else v[:]
            for idx in flat:
                th, gr = get(cur[k], idx), get(grads[k], idx)
                mm = b1 * get(m[k], idx) + (1 - b1) * gr
                vv = b2 * get(s[k], idx) + (1 - b2) * gr * gr
                mh, vh = mm / (1 - b1 ** t), vv / (1 - b2 ** t)
                upd = lr * mh / (mp.sqrt(vh) + eps)
                dec = lr * wd * th
                nt = th - dec - upd
                for store, val in ((m[k], mm), (s[k], vv), (nv, nt)):
                    if len(idx) == 2:
                        store[idx[0]][idx[1]] = val
                    else:
                        store[idx[0]] = val
                mom[(k,) + idx] = dict(m=mm, v=vv, mhat=mh, vhat=vh, update=upd, decay=dec, g=gr)
            new[k] = nv
        cur = new
        vals, grads, _, gap = evaluate(cur)
        states.append(dict(P=cur, vals=vals, grads=grads, mom=mom, gap=gap))
    return states


def idxname(k, idx):
    return f"{k}[{','.join(str(i) for i in idx)}]"


def quantities():
    P0 = init_params()
    st = adamw_trace(P0, 2)
    vals, grads = st[0]["vals"], st[0]["grads"]
    _, _, ngrads, _ = evaluate(P0)
    q = {}
    for k in PARAMS:
        v = P0[k]
        for idx in ([(i, j) for i in range(len(v)) for j in range(len(v[0]))] if isinstance(v[0], list)
                    else [(i,) for i in range(len(v))]):
            q[idxname(k, idx)] = get(v, idx)
            q[idxname("grad_" + k, idx)] = get(grads[k], idx)
    for name in ("PE", "H0", "Q", "K", "V", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t, row in enumerate(vals[name]):
            for j, x in enumerate(row):
                q[f"{name}[{t},{j}]"] = x
    for name in ("H0", "Q", "K", "V", "Attn", "H1", "LN1", "Z", "R", "F", "H2", "LN2"):
        for t, row in enumerate(ngrads[name]):
            for j, x in enumerate(row):
                q[f"grad_{name}[{t},{j}]"] = x
    for t in range(T):
        for nm in ("A_den", "mu1", "var1", "mu2", "var2"):
            q[f"{nm}[{t}]"] = vals[nm][t]
        q[f"sqrt(var1[{t}] + ln_eps)"] = vals["sd1"][t]
        q[f"sqrt(var2[{t}] + ln_eps)"] = vals["sd2"][t]
        for s in range(T):
            q[f"S[{t},{s}]"] = vals["S"][t][s]
            q[f"A[{t},{s}]"] = vals["A"][t][s] if s <= t else mp.mpf(0)
            if s <= t:
                q[f"exp(S[{t},{s}])"] = vals["ES"][t][s]
                q[f"S[{t},{s}]*2"] = vals["S"][t][s] * 2     # the unscaled dot product q_t . k_s (sqrt(d) = 2)
    for j in range(D):
        q[f"h_final[{j}]"] = vals["h_final"][j]
        q[f"grad_h_final[{j}]"] = ngrads["h_final"][j]
    for w, name in enumerate(VOCAB):
        q[f"logits[{name}]"] = vals["logits"][w]
        q[f"exp(logits[{name}])"] = vals["exps"][w]
        q[f"p[{name}]"] = vals["p"][w]
        q[f"grad_logits[{name}]"] = ngrads["logits"][w]
        for j in range(D):
            q[f"E[{name},{j}]"] = P0["E"][w][j]
            q[f"grad_E[{name},{j}]"] = grads["E"][w][j]
            q[f"grad_E_head[{name},{j}]"] = ngrads["logits"][w] * vals["h_final"][j]
    q["sum_exp"] = vals["sum_exp"]
    q["loss"] = vals["loss"]
    for k in (1, 2):
        s = st[k]
        for key, mo in s["mom"].items():
            pname, idx = key[0], key[1:]
            if pname == "E":
                idx = (VOCAB[idx[0]],) + idx[1:]
            lab = ",".join(str(i) for i in (pname,) + idx)
            for f in ("m", "v", "mhat", "vhat", "update", "decay"):
                q[f"adamw[{k}].{f}[{lab}]"] = mo[f]
            q[f"adamw[{k}].{pname}[{','.join(str(i) for i in idx)}]"] = get(s["P"][pname], key[1:])
            q[f"adamw[{k}].grad_{pname}[{','.join(str(i) for i in idx)}]"] = get(s["grads"][pname], key[1:])
        q[f"adamw[{k}].loss"] = s["vals"]["loss"]
        for w, name in enumerate(VOCAB):
            q[f"adamw[{k}].p[{name}]"] = s["vals"]["p"][w]
    q["adamw[0].loss"] = st[0]["vals"]["loss"]
    return q, st


def check_gradients():
    """The reverse pass against central differences, every parameter entry of the initial model
    and of the state after the first AdamW step, at h = 1e-15 (the truncation error is ~1e-30)."""
    P0 = init_params()
    st = adamw_trace(P0, 1)
    h = mp.mpf("1e-15")
    worst = mp.mpf(0)
    for s in st:
        assert s["gap"] > mp.mpf("1e-6"), "a ReLU input is too near 0 for a difference check"
        P, grads = s["P"], s["grads"]
        for k in PARAMS:
            v = P[k]
            for idx in ([(i, j) for i in range(len(v)) for j in range(len(v[0]))] if isinstance(v[0], list)
                        else [(i,) for i in range(len(v))]):
                cd = (loss_of(perturbed(P, k, idx, h)) - loss_of(perturbed(P, k, idx, -h))) / (2 * h)
                worst = max(worst, abs(cd - get(grads[k], idx)))
    assert worst < mp.mpf("1e-20"), f"reverse pass disagrees with central differences by {worst}"
    return worst


# ------------------------------------------------------------------ key checking
def rnd(v, n):
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-80, max_fixed=80))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def plain(s):
    """A figure as the page prints it (decimal comma, Unicode minus, maybe a % sign) -> decimal text."""
    return s.replace("\u2212", "-").replace("\u00a0", "").replace(" ", "").replace(",", ".")


def main():
    worst = check_gradients()
    print(f"reverse pass vs central differences: largest difference {mp.nstr(worst, 3)}")
    q, _ = quantities()
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = plain(cells[0].strip("`"))
        refs = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((x for x in refs if x in q), None)
        if ref is None:
            print(f"  {printed:>12}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = q[ref] * (100 if pct else 1)
        shown = plain(cells[4].strip("`")) if len(cells) == 7 else printed
        body = shown.rstrip("%")
        places = len(body.split(".")[1]) if "." in body else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(plain(cells[3]).rstrip("…").rstrip("%"))
            ok = right == body and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed.rstrip("%")
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == body else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {cells[0].strip('`'):>12}  {ref:<32} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if bad:
        print(f"{bad} key rows disagree with the oracle")
        return 1
    print(f"all {len(rows)} key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--dump"]:
        for k, v in quantities()[0].items():
            print(k, mp.nstr(v, 20))
    else:
        sys.exit(main())
