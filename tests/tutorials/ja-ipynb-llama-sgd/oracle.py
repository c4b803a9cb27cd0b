#!/usr/bin/env python3
"""Independent oracle for ja-ipynb-llama-sgd (plain mpmath at 50 digits; never imports symgpt).

    python3 oracle.py        # every KEY.md row: its quantity's value, the key's columns, its line of DOC.ipynb

The model is read from SPEC.toml: one Llama block (pre-RMSNorm, RoPE in Hugging Face's rotate_half
layout, two heads of width 2, SwiGLU, no biases, tied head), input 私 は 猫, target が.

    x = E[ids];  rms_t = sqrt(mean_j x_tj^2 + eps);  xn = gamma1 * x / rms
    q, k, v = xn W_Q, xn W_K, xn W_V  (head h: columns 2h, 2h+1)
    RoPE: angle t * theta^0 = t (d_k = 2): rot = (a cos - b sin, b cos + a sin)
    att_h = causal softmax(q_rot_h k_rot_h^T / sqrt(2));  o = att v (heads side by side);  h = x + o W_O
    hn = gamma2 * h / rms(h);  gate = hn W_1;  up = hn W_3;  act = silu(gate) * up;  h2 = h + act W_2
    hf = gamma_f * h2 / rms(h2);  logits = hf[T-1] E^T;  loss = -ln softmax(logits)[target]

Gradients come from a small reverse-mode differentiation over mpf scalars (checked against p - y,
against the closed form of dL/dgamma_f and against a central difference); SGD updates every
parameter (the norm weights too, as torch.optim.SGD over model.parameters() does).
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ a tiny reverse-mode autodiff

class Val:
    __slots__ = ("x", "g", "parents")

    def __init__(self, x, parents=()):
        self.x = mp.mpf(x)
        self.g = mp.mpf(0)
        self.parents = parents            # tuples (parent Val, local derivative)

    def __add__(self, o):
        if isinstance(o, Val):
            return Val(self.x + o.x, ((self, 1), (o, 1)))
        return Val(self.x + o, ((self, 1),))

    __radd__ = __add__

    def __neg__(self):
        return Val(-self.x, ((self, -1),))

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Val):
            return Val(self.x * o.x, ((self, o.x), (o, self.x)))
        o = mp.mpf(o)
        return Val(self.x * o, ((self, o),))

    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Val):
            return self * o.inv()
        return self * (1 / mp.mpf(o))

    def inv(self):
        return Val(1 / self.x, ((self, -1 / self.x ** 2),))


def vexp(a):
    e = mp.exp(a.x)
    return Val(e, ((a, e),))


def vlog(a):
    return Val(mp.log(a.x), ((a, 1 / a.x),))


def vsqrt(a):
    r = mp.sqrt(a.x)
    return Val(r, ((a, 1 / (2 * r)),))


def vsilu(a):
    s = 1 / (1 + mp.exp(-a.x))
    return Val(a.x * s, ((a, s * (1 + a.x * (1 - s))),))


def vsum(xs):
    out = Val(mp.fsum(v.x for v in xs), tuple((v, 1) for v in xs))
    return out


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
    while stack:                                   # iterative topological sort
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for p, _ in node.parents:
            if id(p) not in seen:
                stack.append((p, False))
    for n in order:
        n.g = mp.mpf(0)
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.g += n.g * local


# ------------------------------------------------------------------ the model

def num(v):
    return mp.mpf(str(v))


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m = spec["model"]
    L = spec["layer"][0]
    d = m["d"]
    P = {
        "E": [[num(v) for v in r] for r in spec["weights"]["E"]],
        **{k: [[num(v) for v in r] for r in L[k]] for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2")},
        "gamma1": [num(v) for v in L.get("gamma1", [1] * d)],
        "gamma2": [num(v) for v in L.get("gamma2", [1] * d)],
        "gamma_f": [num(v) for v in spec["weights"].get("gamma_f", [1] * d)],
    }
    vocab = m["vocab"]
    cfg = dict(vocab=vocab, ids=[vocab.index(w) for w in spec["data"]["input"]],
               tgt=vocab.index(spec["data"]["target"]), d=d, heads=m["heads"], d_ff=m["d_ff"],
               eps=num(m["ln_eps"]), theta=num(m.get("rope_theta", 10000)),
               lr=num(spec["training"]["lr"]), steps=spec["training"]["steps"])
    assert m["arch"] == "llama" and m.get("tied", True) and m["layers"] == 1
    return cfg, P


def wrap(P):
    return {k: ([[Val(x) for x in r] for r in v] if isinstance(v[0], list) else [Val(x) for x in v])
            for k, v in P.items()}


def mm(A, B):
    return [[vsum([A[i][k] * B[k][j] for k in range(len(B))]) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, gamma, eps):
    d = len(H[0])
    ms = [vsum([x * x for x in r]) / d for r in H]
    rms = [vsqrt(m + eps) for m in ms]
    return ms, rms, [[gamma[j] * (r[j] / s) for j in range(d)] for r, s in zip(H, rms)]


def forward(cfg, W):
    d, nh = cfg["d"], cfg["heads"]
    dk = d // nh
    ids, T = cfg["ids"], len(cfg["ids"])
    x = [W["E"][i][:] for i in ids]
    ms1, rms1, xn = rmsnorm(x, W["gamma1"], cfg["eps"])
    q, k, v = mm(xn, W["W_Q"]), mm(xn, W["W_K"]), mm(xn, W["W_V"])
    half = dk // 2
    ang = [[t * cfg["theta"] ** (-mp.mpf(2 * i) / dk) for i in range(half)] for t in range(T)]
    cos = [[mp.cos(a) for a in r] for r in ang]
    sin = [[mp.sin(a) for a in r] for r in ang]

    def rope(M):
        out = []
        for t in range(T):
            row = []
            for h in range(nh):
                a = M[t][h * dk:(h + 1) * dk]
                lo, hi = a[:half], a[half:]
                row += [lo[i] * cos[t][i] - hi[i] * sin[t][i] for i in range(half)]
                row += [hi[i] * cos[t][i] + lo[i] * sin[t][i] for i in range(half)]
            out.append(row)
        return out

    q_rot, k_rot = rope(q), rope(k)
    scale = mp.sqrt(dk)
    S, att, den = [], [], []
    for h in range(nh):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[vsum([q_rot[t][j] * k_rot[s][j] for j in cols]) / scale for s in range(T)] for t in range(T)]
        eh = [[vexp(Sh[t][s]) for s in range(t + 1)] for t in range(T)]
        dh = [vsum(r) for r in eh]
        S.append(Sh)
        den.append(dh)
        att.append([[eh[t][s] / dh[t] if s <= t else Val(0) for s in range(T)] for t in range(T)])
    o = [[vsum([att[j // dk][t][s] * v[s][j] for s in range(t + 1)]) for j in range(d)] for t in range(T)]
    attn = mm(o, W["W_O"])
    h1 = [[x[t][j] + attn[t][j] for j in range(d)] for t in range(T)]
    ms2, rms2, hn = rmsnorm(h1, W["gamma2"], cfg["eps"])
    gate, up = mm(hn, W["W_1"]), mm(hn, W["W_3"])
    silu = [[vsilu(z) for z in r] for r in gate]
    act = [[a * u for a, u in zip(ra, ru)] for ra, ru in zip(silu, up)]
    down = mm(act, W["W_2"])
    h2 = [[h1[t][j] + down[t][j] for j in range(d)] for t in range(T)]
    msf, rmsf, hf = rmsnorm(h2, W["gamma_f"], cfg["eps"])
    logits = [vsum([hf[-1][j] * W["E"][u][j] for j in range(d)]) for u in range(len(W["E"]))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    probs = [e / sum_exp for e in ex]
    loss = vlog(sum_exp) - logits[cfg["tgt"]]
    return dict(x=x, ms1=ms1, rms1=rms1, xn=xn, q=q, k=k, v=v, cos=cos, sin=sin, q_rot=q_rot, k_rot=k_rot,
                S=S, den=den, att=att, o=o, attn=attn, h=h1, ms2=ms2, rms2=rms2, hn=hn, gate=gate, up=up,
                silu=silu, act=act, down=down, h2=h2, msf=msf, rmsf=rmsf, hf=hf, logits=logits, exp=ex,
                sum_exp=sum_exp, probs=probs, loss=loss)


def X(t):
    """mpf values of a nested structure of Val."""
    if isinstance(t, Val):
        return t.x
    if isinstance(t, list):
        return [X(u) for u in t]
    return t


def G(t):
    if isinstance(t, Val):
        return t.g
    return [G(u) for u in t]


def run():
    cfg, P = load_spec()
    states = []                                   # (forward values, gradients, parameters) per state
    for step in range(cfg["steps"] + 1):
        W = wrap(P)
        f = forward(cfg, W)
        backward(f["loss"])
        grads = {k: G(v) for k, v in W.items()}
        fv = {k: X(v) for k, v in f.items()}
        fv["logits_grad"] = [G(z) for z in f["logits"]]
        states.append((fv, grads, P))
        if step < cfg["steps"]:
            P = {k: ([[a - cfg["lr"] * g for a, g in zip(ra, rg)] for ra, rg in zip(P[k], grads[k])]
                     if isinstance(P[k][0], list) else [a - cfg["lr"] * g for a, g in zip(P[k], grads[k])])
                 for k in P}
    return cfg, states


def self_checks(cfg, states):
    f, g, P = states[0]
    tgt = cfg["tgt"]
    for u, (p, gz) in enumerate(zip(f["probs"], f["logits_grad"])):   # dL/dlogits = p - onehot
        assert abs(gz - (p - (1 if u == tgt else 0))) < mp.mpf(10) ** -45
    gh = [mp.fsum(f["logits_grad"][u] * P["E"][u][j] for u in range(len(P["E"]))) for j in range(cfg["d"])]
    for j in range(cfg["d"]):                     # dL/dgamma_f[j] = (h2/rms_f)[T-1, j] * sum_v g_v E[v, j]
        closed = f["h2"][-1][j] / f["rmsf"][-1] * gh[j]
        assert abs(closed - g["gamma_f"][j]) < mp.mpf(10) ** -45
    # a central difference on two parameters
    hstep = mp.mpf(10) ** -20
    for name, i, j in (("E", 2, 0), ("W_Q", 1, 3)):
        vals = []
        for sgn in (1, -1):
            Q = {k: [r[:] if isinstance(r, list) else r for r in v] for k, v in P.items()}
            Q[name][i][j] += sgn * hstep
            vals.append(forward(cfg, wrap(Q))["loss"].x)
        fd = (vals[0] - vals[1]) / (2 * hstep)
        assert abs(fd - g[name][i][j]) < mp.mpf(10) ** -30, (name, fd, g[name][i][j])


def values():
    """Every figure the tutorial prints, by the symgpt name the key uses."""
    cfg, states = run()
    self_checks(cfg, states)
    V = cfg["vocab"]
    f, g, P = states[0]
    out = {}
    T, d = 3, cfg["d"]
    for t in range(T):
        out[f"ms1[{t}]"] = f["ms1"][t]
        out[f"sqrt(ms1[{t}] + ln_eps)"] = f["rms1"][t]
        out[f"sqrt(ms2[{t}] + ln_eps)"] = f["rms2"][t]
        out[f"ms2[{t}]"] = f["ms2"][t]
        out[f"sqrt(ms_f[{t}] + ln_eps)"] = f["rmsf"][t]
        out[f"ms_f[{t}]"] = f["msf"][t]
        out[f"cos({t})"] = f["cos"][t][0]
        out[f"sin({t})"] = f["sin"][t][0]
        for j in range(d):
            for nm, key in (("LN1", "xn"), ("Q", "q"), ("K", "k"), ("V", "v"), ("Q_rot", "q_rot"),
                            ("K_rot", "k_rot"), ("Attn_heads", "o"), ("Attn", "attn"), ("H1", "h"),
                            ("LN2", "hn"), ("F", "down"), ("H2", "h2"), ("LN_f", "hf"), ("X", "x")):
                out[f"{nm}[{t},{j}]"] = f[key][t][j]
        for k in range(cfg["d_ff"]):
            out[f"Z[{t},{k}]"] = f["gate"][t][k]
            out[f"U[{t},{k}]"] = f["up"][t][k]
            out[f"R[{t},{k}]"] = f["act"][t][k]
            out[f"Z[{t},{k}]/(1+exp(-Z[{t},{k}]))"] = f["silu"][t][k]
        for h in range(cfg["heads"]):
            out[f"A_den[{h},{t}]"] = f["den"][h][t]
            for s in range(T):
                out[f"S[{h},{t},{s}]"] = f["S"][h][t][s]
                out[f"A[{h},{t},{s}]"] = f["att"][h][t][s]
                out[f"S[{h},{t},{s}]*sqrt(2)"] = f["S"][h][t][s] * mp.sqrt(2)
                out[f"exp(S[{h},{t},{s}])"] = mp.exp(f["S"][h][t][s])
    for j in range(d):
        out[f"h_final[{j}]"] = f["hf"][-1][j]
        out[f"grad_gamma_f[{j}]"] = g["gamma_f"][j]
        out[f"grad_h_final[{j}]"] = mp.fsum(f["logits_grad"][u] * P["E"][u][j] for u in range(len(V)))
    for u, w in enumerate(V):
        out[f"logits[{w}]"] = f["logits"][u]
        out[f"exp(logits[{w}])"] = f["exp"][u]
        out[f"p[{w}]"] = f["probs"][u]
        out[f"grad_logits[{w}]"] = f["logits_grad"][u]
    out["sum_exp"] = f["sum_exp"]
    out["loss"] = f["loss"]
    for k, (fk, gk, Pk) in enumerate(states):
        out[f"sgd[{k}].loss"] = fk["loss"]
        out[f"sgd[{k}].p[{V[cfg['tgt']]}]"] = fk["probs"][cfg["tgt"]]
        for u, w in enumerate(V):
            for j in range(d):
                out[f"sgd[{k}].E[{w},{j}]"] = Pk["E"][u][j]
                out[f"sgd[{k}].grad_E[{w},{j}]"] = gk["E"][u][j]
        for j in range(d):
            out[f"sgd[{k}].gamma_f[{j}]"] = Pk["gamma_f"][j]
    for u, w in enumerate(V):
        for j in range(d):
            out[f"grad_E[{w},{j}]"] = g["E"][u][j]
    return cfg, states, out


def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0." + "0" * n if n and s == "-0." + "0" * n else ("0" if s == "-0" else s)


def norm_text(s: str) -> str:
    return s.replace("\u2212", "-")


def main() -> int:
    _, _, vals = values()
    doc_lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    json.loads("\n".join(doc_lines))              # the notebook is valid JSON
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad, planted, correct = 0, 0, 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if not (1 <= line <= len(doc_lines)) or printed not in doc_lines[line - 1]:
            problems.append(f"'{printed}' not on line {line}")
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        shown_n = norm_text(shown)
        places = len(shown_n.rstrip("%").split(".")[1]) if "." in shown_n else 0
        right = rnd(v, places) + ("%" if shown_n.endswith("%") else "")
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(norm_text(cells[3]).rstrip("…"))
            if shown_n != right:
                problems.append(f"correct rounding should be {right}")
            if abs(exact - v) > mp.mpf("1e-10") * max(abs(v), mp.mpf("1e-30")):
                problems.append(f"exact value should be {mp.nstr(v, 15)}")
            if right == norm_text(printed):
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees"
        else:
            correct += 1
            if right != norm_text(printed):
                problems.append(f"not the correct rounding ({right})")
            note = "correct"
        if problems:
            bad += 1
            note = "KEY DISAGREES: " + "; ".join(problems)
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print(f"{planted} planted rows, {correct} correct rows")
    ok = not bad and planted == 8 and correct == 10
    print("all key rows agree with the oracle" if ok else f"{bad} key rows disagree")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
