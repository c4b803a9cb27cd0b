#!/usr/bin/env python3
"""Independent oracle for zh-pdf-nanogpt-gradcheck-adamw: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py       # every KEY.md row: exact value, correct rounding, printed text on its line
                            # of `pdftotext -layout DOC.pdf -`; then every decimal of the PDF is checked
                            # to be the correct rounding of some value computed here (or a planted one)

Model (nanoGPT block, SPEC.toml): x_t = E[tok_t] + W_pe[t]; a = LN1(x); q, k, v = a·W + b (heads side by
side, d_k = 2); s = q·k/√2, causal softmax per head; o = heads·W_O + b_O; r = x + o; m = LN2(r);
u = m·W_1 + b_1; g = GELU(u) = u·Φ(u) with the exact erf; f = g·W_2 + b_2; y = r + f; ĥ = ln_f(y);
logits z = E·ĥ[T−1] (tied head); p = softmax(z); L = −ln p[target]. LayerNorm uses the biased variance
and eps = 1e-5. Gradients by a small reverse-mode autodiff over mpmath scalars (written here).
Gradient check: (L(θ+h) − L(θ−h))/2h with h = 1e-4. AdamW: torch.optim.AdamW's first step with decoupled
decay on every trained parameter (LayerNorm γ, β stay fixed, as training.learnable_ln is false).
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


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.parents = parents          # ((Var, local derivative), ...)
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return Var(-self.v, ((self, -1),))


def vexp(a):
    e = mp.exp(a.v)
    return Var(e, ((a, e),))


def vlog(a):
    return Var(mp.log(a.v), ((a, 1 / a.v),))


def vsqrt(a):
    s = mp.sqrt(a.v)
    return Var(s, ((a, 1 / (2 * s)),))


def vgelu(a):
    x = a.v
    phi = (1 + mp.erf(x / mp.sqrt(2))) / 2
    dens = mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)
    return Var(x * phi, ((a, phi + x * dens),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()
    stack = [(out, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for p, _ in n.parents:
            if id(p) not in seen:
                stack.append((p, False))
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.parents:
            p.g += n.g * d


# ---------------------------------------------------------------- the model

def load_spec():
    with open(HERE / "SPEC.toml", "rb") as f:
        spec = tomllib.load(f)
    return spec


def mpf_tree(a):
    if isinstance(a, list):
        return [mpf_tree(x) for x in a]
    return mp.mpf(str(a))


def params_of(spec):
    w = spec["weights"]
    layer = spec["layer"][0]
    P = {"E": w["E"], "W_pe": w["W_pe"], "gamma_f": w["gamma_f"], "beta_f": w["beta_f"]}
    for k in ("gamma1", "beta1", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O",
              "gamma2", "beta2", "W_1", "b_1", "W_2", "b_2"):
        P[k] = layer[k]
    return {k: mpf_tree(v) for k, v in P.items()}


def as_vars(P):
    def conv(a):
        return [conv(x) for x in a] if isinstance(a, list) else Var(a)
    return {k: conv(v) for k, v in P.items()}


def layernorm(row, gamma, beta, eps):
    d = len(row)
    mu = vsum(row) / d
    var = vsum([(x - mu) * (x - mu) for x in row]) / d
    sd = vsqrt(var + eps)
    xhat = [(x - mu) / sd for x in row]
    return mu, var, xhat, [xh * g + b for xh, g, b in zip(xhat, gamma, beta)]


def affine(row, W, b):
    return [vsum([row[i] * W[i][j] for i in range(len(row))]) + b[j] for j in range(len(W[0]))]


def forward(P, spec):
    """P: dict of Var trees. Returns a dict of every intermediate (Var)."""
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    T, d, H = len(ids), spec["model"]["d"], spec["model"]["heads"]
    dk = d // H
    X = [P["E"][i] for i in ids]
    H0 = [[X[t][j] + P["W_pe"][t][j] for j in range(d)] for t in range(T)]
    ln1 = [layernorm(H0[t], P["gamma1"], P["beta1"], eps) for t in range(T)]
    LN1 = [r[3] for r in ln1]
    Q = [affine(LN1[t], P["W_Q"], P["b_Q"]) for t in range(T)]
    K = [affine(LN1[t], P["W_K"], P["b_K"]) for t in range(T)]
    V = [affine(LN1[t], P["W_V"], P["b_V"]) for t in range(T)]
    S, A, Aden, EXP = [], [], [], []
    heads = [[None] * d for _ in range(T)]
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[vsum([Q[t][j] * K[s][j] for j in cols]) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
        Eh = [[vexp(Sh[t][s]) if s <= t else None for s in range(T)] for t in range(T)]
        Dh = [vsum([Eh[t][s] for s in range(t + 1)]) for t in range(T)]
        Ah = [[Eh[t][s] / Dh[t] if s <= t else Var(0) for s in range(T)] for t in range(T)]
        for t in range(T):
            for j in cols:
                heads[t][j] = vsum([Ah[t][s] * V[s][j] for s in range(t + 1)])
        S.append(Sh), A.append(Ah), Aden.append(Dh), EXP.append(Eh)
    Attn = [affine(heads[t], P["W_O"], P["b_O"]) for t in range(T)]
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ln2 = [layernorm(H1[t], P["gamma2"], P["beta2"], eps) for t in range(T)]
    LN2 = [r[3] for r in ln2]
    Z = [affine(LN2[t], P["W_1"], P["b_1"]) for t in range(T)]
    R = [[vgelu(z) for z in Z[t]] for t in range(T)]
    F = [affine(R[t], P["W_2"], P["b_2"]) for t in range(T)]
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    lnf = [layernorm(H2[t], P["gamma_f"], P["beta_f"], eps) for t in range(T)]
    LNf = [r[3] for r in lnf]
    hf = LNf[T - 1]
    logits = [vsum([hf[j] * P["E"][v][j] for j in range(d)]) for v in range(len(vocab))]
    ez = [vexp(z) for z in logits]
    se = vsum(ez)
    p = [e / se for e in ez]
    loss = -vlog(p[tgt])
    return dict(ids=ids, tgt=tgt, X=X, H0=H0, mu1=[r[0] for r in ln1], var1=[r[1] for r in ln1],
                xhat1=[r[2] for r in ln1], LN1=LN1, Q=Q, K=K, V=V, S=S, EXP=EXP, A_den=Aden, A=A,
                Attn_heads=heads, Attn=Attn, H1=H1, mu2=[r[0] for r in ln2], var2=[r[1] for r in ln2],
                xhat2=[r[2] for r in ln2], LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=[r[0] for r in lnf],
                var_f=[r[1] for r in lnf], xhat_f=[r[2] for r in lnf], LN_f=LNf, h_final=hf, logits=logits,
                exp_logits=ez, sum_exp=se, p=p, loss=loss)


TRAINED = ("E", "W_pe", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2")


def loss_of(P, spec):
    return forward(as_vars(P), spec)["loss"].v


def with_entry(P, name, idx, delta):
    Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
    if len(idx) == 2:
        Q[name][idx[0]][idx[1]] = Q[name][idx[0]][idx[1]] + delta
    else:
        Q[name][idx[0]] = Q[name][idx[0]] + delta
    return Q


def unvar(a):
    return [unvar(x) for x in a] if isinstance(a, list) else (a.v if isinstance(a, Var) else a)


def grads(PV):
    def g(a):
        return [g(x) for x in a] if isinstance(a, list) else a.g
    return {k: g(v) for k, v in PV.items()}


def entries(a, prefix=()):
    if isinstance(a, list):
        for i, x in enumerate(a):
            yield from entries(x, prefix + (i,))
    else:
        yield prefix, a


# ---------------------------------------------------------------- every value the handout prints

def compute():
    spec = load_spec()
    vocab = spec["model"]["vocab"]
    P = params_of(spec)
    PV = as_vars(P)
    f = forward(PV, spec)
    backward(f["loss"])
    G = grads(PV)
    vals: dict[str, mp.mpf] = {}

    def put(name, a, tokens_at=()):
        for idx, x in entries(a):
            x = x.v if isinstance(x, Var) else x
            if x is None:
                continue
            vals[f"{name}[{','.join(map(str, idx))}]" if idx else name] = x
            if tokens_at:
                alt = [vocab[i] if k in tokens_at else str(i) for k, i in enumerate(idx)]
                vals[f"{name}[{','.join(alt)}]"] = x

    for k, v in P.items():
        put(k, v, (0,) if k == "E" else ())
        put("grad_" + k, G[k], (0,) if k == "E" else ())
    for k in ("X", "H0", "mu1", "var1", "LN1", "Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1",
              "mu2", "var2", "LN2", "Z", "R", "F", "H2", "mu_f", "var_f", "LN_f", "h_final"):
        put(k, unvar(f[k]))
    put("logits", unvar(f["logits"]), (0,))
    put("p", unvar(f["p"]), (0,))
    vals["sum_exp"] = f["sum_exp"].v
    vals["loss"] = f["loss"].v
    # grad of logits = p − y, and of h_final
    y = [1 if v == f["tgt"] else 0 for v in range(len(vocab))]
    put("grad_logits", [f["p"][v].v - y[v] for v in range(len(vocab))], (0,))
    put("grad_h_final", [f["h_final"][j].g for j in range(spec["model"]["d"])])
    for k in ("H0", "LN1", "Q", "K", "V", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2", "LN_f"):
        put("grad_" + k, [[x.g for x in r] for r in f[k]])
    put("grad_X", [[x.g for x in r] for r in f["H0"]])          # X and PE enter H0 with weight 1
    tgt = f["tgt"]
    put("grad_E_head", [[(f["p"][v].v - (1 if v == tgt else 0)) * f["h_final"][j].v for j in range(4)]
                        for v in range(len(vocab))], (0,))
    # extras (aux): figures the worked lines print that are not graph nodes
    aux: dict[str, mp.mpf] = {}
    T = len(f["ids"])
    for h in range(2):
        for t in range(T):
            for s in range(t + 1):
                aux[f"exp(S[{h},{t},{s}])"] = f["EXP"][h][t][s].v
                aux[f"S*sqrt2[{h},{t},{s}]"] = f["S"][h][t][s].v * mp.sqrt(2)
    for v in range(len(vocab)):
        aux[f"exp(logits[{vocab[v]}])"] = f["exp_logits"][v].v
    for t in range(T):
        aux[f"sqrt(var1[{t}]+eps)"] = mp.sqrt(f["var1"][t].v + mp.mpf("1e-5"))
    aux["sqrt(var2[2]+eps)"] = mp.sqrt(f["var2"][2].v + mp.mpf("1e-5"))
    aux["sqrt(var_f[2]+eps)"] = mp.sqrt(f["var_f"][2].v + mp.mpf("1e-5"))
    for k in range(8):
        z = f["Z"][2][k].v
        phi = (1 + mp.erf(z / mp.sqrt(2))) / 2
        dens = mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
        aux[f"Phi(Z[2,{k}])"] = phi
        aux[f"phi(Z[2,{k}])"] = dens
        aux[f"GELU'(Z[2,{k}])"] = phi + z * dens
    for t in range(T):
        for j in range(4):
            aux[f"H0-mu1[{t},{j}]"] = f["H0"][t][j].v - f["mu1"][t].v
    for j in range(4):
        aux[f"H1-mu2[2,{j}]"] = f["H1"][2][j].v - f["mu2"][2].v
        aux[f"H2-mu_f[2,{j}]"] = f["H2"][2][j].v - f["mu_f"][2].v
    for j in range(4):
        aux[f"xhat_f[2,{j}]"] = f["xhat_f"][2][j].v
        aux[f"xhat2[2,{j}]"] = f["xhat2"][2][j].v
        aux[f"xhat1[2,{j}]"] = f["xhat1"][2][j].v
    # the gradient check
    gc = spec["training"]["gradcheck"]
    h = mp.mpf(str(gc["h"]))
    hs = "0.0001"
    for pname in gc["params"]:
        m = re.fullmatch(r"(\w+)\[(.+)\]", pname)
        name, idx = m.group(1), [vocab.index(i) if i in vocab else int(i) for i in m.group(2).split(",")]
        lp = loss_of(with_entry(P, name, idx, h), spec)
        lm = loss_of(with_entry(P, name, idx, -h), spec)
        num = (lp - lm) / (2 * h)
        ana = G[name][idx[0]][idx[1]] if len(idx) == 2 else G[name][idx[0]]
        vals[f"loss_at({pname}, {hs})"] = lp
        vals[f"loss_at({pname}, -{hs})"] = lm
        vals[f"gradcheck({pname}, {hs})"] = num
        aux[f"absdiff {pname}"] = abs(num - ana)
        aux[f"reldiff {pname}"] = abs(num - ana) / max(abs(num), abs(ana))
        aux[f"L+ - L- {pname}"] = lp - lm
    # one AdamW step
    aw = spec["training"]["adamw"]
    lr, b1, b2, eps, wd = (mp.mpf(str(aw[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    newP = {}
    for k, v in P.items():
        if k not in TRAINED:
            newP[k] = v
            continue
        flat = []
        for idx, th in entries(v):
            g = G[k]
            for i in idx:
                g = g[i]
            if abs(g) < mp.mpf("1e-40"):     # b_K: a softmax row ignores a shift, its gradient is exactly 0
                g = mp.mpf(0)
            m1 = (1 - b1) * g
            v1 = (1 - b2) * g * g
            mh, vh = m1 / (1 - b1), v1 / (1 - b2)
            upd = lr * mh / (mp.sqrt(vh) + eps)
            new = th - lr * wd * th - upd
            key = f"{k},{','.join(map(str, idx))}"
            tkey = f"{k},{vocab[idx[0]]},{idx[1]}" if k == "E" else None
            for kk in filter(None, (key, tkey)):
                vals[f"adamw[1].m[{kk}]"] = m1
                vals[f"adamw[1].v[{kk}]"] = v1
                vals[f"adamw[1].mhat[{kk}]"] = mh
                vals[f"adamw[1].vhat[{kk}]"] = vh
                vals[f"adamw[1].update[{kk}]"] = upd
                vals[f"adamw[1].decay[{kk}]"] = lr * wd * th
            name = f"adamw[1].{k}[{','.join(map(str, idx))}]"
            vals[name] = new
            if k == "E":
                vals[f"adamw[1].E[{vocab[idx[0]]},{idx[1]}]"] = new
            aux[f"(1-lr*wd)*theta {key}"] = th - lr * wd * th
            flat.append((idx, new))
        newP[k] = [[None] * len(v[0]) for _ in v] if isinstance(v[0], list) else [None] * len(v)
        for idx, new in flat:
            if len(idx) == 2:
                newP[k][idx[0]][idx[1]] = new
            else:
                newP[k][idx[0]] = new
    f1 = forward(as_vars(newP), spec)
    vals["adamw[1].loss"] = f1["loss"].v
    vals["adamw[1].p[茶]"] = f1["p"][f["tgt"]].v
    aux["loss drop"] = f["loss"].v - f1["loss"].v
    aux["1-lr*wd"] = 1 - lr * wd
    for key in ("lr", "beta1", "beta2", "weight_decay"):
        aux["adamw." + key] = mp.mpf(str(aw[key]))
    aux["sum p"] = mp.fsum(x.v for x in f["p"])
    for pname in gc["params"]:                       # the mantissas of the relative errors as printed
        r = aux[f"reldiff {pname}"]
        aux[f"reldiff mantissa {pname}"] = r / mp.mpf(10) ** mp.floor(mp.log10(r))
    return vals, aux, f


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace(" ", "").strip("`")


def doc_lines() -> list[str]:
    out = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], check=True,
                         capture_output=True, text=True).stdout
    return out.split("\n")            # lines as `sed -n Np` counts them


def key_rows():
    rows = []
    for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if r.startswith("| `"):
            rows.append([c.strip() for c in r.strip().strip("|").split("|")])
    return rows


def mechanisms(vals, aux) -> list[str]:
    """each planted figure is reproduced by the mistake KEY.md names"""
    pr = lambda k, n=4: mp.mpf(rnd(vals[k], n))
    checks = {
        # unbiased variance of x_2: sum of squared deviations / 3
        "0.1073": rnd(mp.fsum((vals[f"H0[1,{j}]"] - vals["mu1[1]"]) ** 2 for j in range(4)) / 3, 4) == "0.1073",
        # forgotten bias b_Q[0] in q^(1)_{3,1}
        "0.5795": rnd(mp.fsum(vals[f"LN1[2,{j}]"] * vals[f"W_Q[{j},0]"] for j in range(4)), 4) == "0.5795",
        # digits swapped: 0.5817 -> 0.5871
        "0.5871": rnd(vals["A[1,1,0]"], 4) == "0.5817",
        # g_8 copied from its neighbour g_7
        "-0.0771": rnd(vals["R[2,6]"], 4) == "-0.0771",
        # percent slip: p(茶) x 10 with a % sign
        "1.20%": rnd(vals["p[茶]"] * 10, 2) == "1.20",
        # carried rounding: (L+ - L-)/2h from the printed 8-decimal losses
        "0.78520000": rnd((pr("loss_at(E[喝,1], 0.0001)", 8) - pr("loss_at(E[喝,1], -0.0001)", 8))
                          / mp.mpf("0.0002"), 8) == "0.78520000",
        # wrong sign of the AdamW step: θ0 − ηλθ0 + Δθ
        "0.209800": rnd(vals["W_2[5,3]"] * (1 - aux["adamw.lr"] * aux["adamw.weight_decay"])
                        + vals["adamw[1].update[W_2,5,3]"], 6) == "0.209800",
        # bias correction left out: η·m1/(√v1 + ε)
        "-0.004472": rnd(aux["adamw.lr"] * vals["adamw[1].m[E,茶,0]"]
                         / (mp.sqrt(vals["adamw[1].v[E,茶,0]"]) + mp.mpf("1e-8")), 6) == "-0.004472",
    }
    return [k for k, ok in checks.items() if not ok]


def main() -> int:
    vals, aux, _ = compute()
    lines = doc_lines()
    print(f"DOC.pdf: {len(lines)} lines of pdftotext -layout")
    bad = 0
    planted_at = set()
    rows = key_rows()
    n_planted = sum(len(c) == 7 for c in rows)
    n_correct = sum(len(c) == 4 for c in rows)
    if (n_planted, n_correct) != (8, 10):
        print(f"  KEY.md has {n_planted} planted and {n_correct} correct rows (want 8 and 10)")
        bad += 1
    for cells in rows:
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((x for x in names if x in vals), None)
        if ref is None:
            print(f"  {printed:>12}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(norm(shown).rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and norm(printed) in norm(lines[line - 1])
        if len(cells) == 7:
            exact = mp.mpf(norm(cells[3]).rstrip("…"))
            ok = (norm(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != norm(printed))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted_at.add((line, norm(printed)))
        else:
            note = "correct" if right == norm(printed) else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note += "; NOT ON ITS LINE"
        bad += "NOT" in note or "DISAGREES" in note
        print(f"  {printed:>12}  line {line:>3}  {ref:<34} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    for printed in mechanisms(vals, aux):
        print(f"  planted {printed}: its mistake does not reproduce it")
        bad += 1
    # every decimal figure of the PDF is the correct rounding of some value computed here, or planted
    pool_vals = [x for x in list(vals.values()) + list(aux.values()) if x is not None]
    pools = {}

    def pool(k):
        if k not in pools:
            pools[k] = {rnd(x, k) for x in pool_vals} | {rnd(100 * x, k) for x in pool_vals}
        return pools[k]

    stray = 0
    for i, text in enumerate(lines, 1):
        for tok in re.findall(r"[\u2212-]?\d+\.\d+%?", text):
            t = norm(tok)
            if (i, t) in planted_at:
                continue
            k = len(t.rstrip("%").split(".")[1])
            if t.rstrip("%") in pool(k):
                continue
            print(f"  line {i}: {tok} is no oracle value's rounding")
            stray += 1
    print("every decimal figure of DOC.pdf is an oracle value's correct rounding or a planted one"
          if not stray else f"{stray} figures of DOC.pdf unexplained")
    bad += stray
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__" and "--dump" not in sys.argv:
    sys.exit(main())

if __name__ == "__main__" and "--dump" in sys.argv:
    vals, aux, _ = compute()
    for k, v in list(vals.items()) + list(aux.items()):
        print(f"{k:40s} {mp.nstr(v, 20)}")
    sys.exit(0)
