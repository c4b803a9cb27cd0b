#!/usr/bin/env python3
"""Independent computation behind KEY.md for zh-pdf-gpt2-2layer (plain mpmath, 50 digits, no symgpt).

    python3 oracle.py           # every KEY.md row: value, correct rounding, and its place in DOC.pdf
    python3 oracle.py --dump    # every value the oracle knows, by name

Model (read from SPEC.toml): two GPT-2 blocks, pre-LayerNorm, one head (d_k = d = 2), learned positions
W_pe, biases on every projection, GELU in its tanh form, a final LayerNorm ln_f and the head tied to E.

    H0 = E[ids] + W_pe[t]
    per layer:  LN1 = LN(H; gamma1, beta1)          (biased variance, eps)
                Q, K, V = LN1 W + b;  S = Q K^T / sqrt(d_k);  A = causal softmax(S)
                Attn_heads = A V;  Attn = Attn_heads W_O + b_O;  H1 = H + Attn
                LN2 = LN(H1; gamma2, beta2);  Z = LN2 W_1 + b_1;  R = gelu_tanh(Z);  F = R W_2 + b_2
                H2 = H1 + F
    LN_f = LN(H2; gamma_f, beta_f);  h_final = LN_f[T-1];  logits = h_final E^T;  p = softmax;  loss = -ln p[target]

Gradients by reverse-mode differentiation over mpmath scalars (a small tape below). One SGD step with
lr from the spec updates every parameter except the LayerNorm gains and shifts (the spec's default
training.learnable_ln = false), then the forward pass is run again.
Rounding is half away from zero on the 45-digit decimal of the value.
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


# ------------------------------------------------------------------ a tiny reverse-mode tape

class Var:
    __slots__ = ("v", "par", "g")

    def __init__(self, v, par=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.par = par
        self.g = mp.mpf(0)

    @staticmethod
    def _c(o):
        return o if isinstance(o, Var) else Var(o)

    def __add__(self, o):
        o = Var._c(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __sub__(self, o):
        o = Var._c(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var._c(o) - self

    def __mul__(self, o):
        o = Var._c(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = Var._c(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))


def v_exp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def v_log(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def v_sqrt(x):
    r = mp.sqrt(x.v)
    return Var(r, ((x, 1 / (2 * r)),))


def v_tanh(x):
    t = mp.tanh(x.v)
    return Var(t, ((x, 1 - t * t),))


def backward(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for p, _ in node.par:
            if id(p) not in seen:
                stack.append((p, False))
    root.g = mp.mpf(1)
    for node in reversed(order):
        for p, local in node.par:
            p.g += node.g * local


SQRT_2_PI = mp.sqrt(2 / mp.pi)
GELU_C = mp.mpf("0.044715")


def gelu_tanh(z):
    return mp.mpf("0.5") * z * (1 + v_tanh(SQRT_2_PI * (z + GELU_C * z * z * z)))


# ------------------------------------------------------------------ the model

def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    num = lambda a: ([[mp.mpf(str(x)) for x in r] for r in a] if isinstance(a[0], list)
                     else [mp.mpf(str(x)) for x in a])
    w = spec["weights"]
    params = {"E": num(w["E"]), "W_pe": num(w["W_pe"]), "gamma_f": num(w["gamma_f"]), "beta_f": num(w["beta_f"])}
    for l, layer in enumerate(spec["layer"]):
        for k, v in layer.items():
            params[f"l{l}.{k}"] = num(v)
    vocab = spec["model"]["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    return spec, params, vocab, ids, vocab.index(spec["data"]["target"])


def forward(spec, params, ids, tgt):
    d, layers = spec["model"]["d"], spec["model"]["layers"]
    d_k = d // spec["model"]["heads"]
    eps = mp.mpf(str(spec["model"]["ln_eps"]))
    T = len(ids)
    W = {k: ([[Var(x) for x in r] for r in v] if isinstance(v[0], list) else [Var(x) for x in v])
         for k, v in params.items()}
    zero = lambda: Var(0)

    def affine(X, M, b):
        return [[sum((X[t][i] * M[i][j] for i in range(len(M))), zero()) + b[j] for j in range(len(M[0]))]
                for t in range(len(X))]

    def layernorm(H, g, b):
        mu = [sum(H[t], zero()) / d for t in range(T)]
        var = [sum(((H[t][j] - mu[t]) * (H[t][j] - mu[t]) for j in range(d)), zero()) / d for t in range(T)]
        sd = [v_sqrt(var[t] + eps) for t in range(T)]
        xhat = [[(H[t][j] - mu[t]) / sd[t] for j in range(d)] for t in range(T)]
        return mu, var, sd, xhat, [[g[j] * xhat[t][j] + b[j] for j in range(d)] for t in range(T)]

    out = {"_W": W}
    H = [[W["E"][ids[t]][j] + W["W_pe"][t][j] for j in range(d)] for t in range(T)]
    out["H0"] = H
    for l in range(layers):
        p = f"l{l}."
        mu1, var1, sd1, xh1, LN1 = layernorm(H, W[p + "gamma1"], W[p + "beta1"])
        Q = affine(LN1, W[p + "W_Q"], W[p + "b_Q"])
        K = affine(LN1, W[p + "W_K"], W[p + "b_K"])
        V = affine(LN1, W[p + "W_V"], W[p + "b_V"])
        dot = [[sum((Q[t][j] * K[s][j] for j in range(d)), zero()) for s in range(T)] for t in range(T)]
        S = [[dot[t][s] / mp.sqrt(d_k) for s in range(T)] for t in range(T)]
        ex = [[v_exp(S[t][s]) for s in range(t + 1)] for t in range(T)]
        den = [sum(ex[t], zero()) for t in range(T)]
        A = [[ex[t][s] / den[t] if s <= t else zero() for s in range(T)] for t in range(T)]
        AH = [[sum((A[t][s] * V[s][j] for s in range(t + 1)), zero()) for j in range(d)] for t in range(T)]
        Attn = affine(AH, W[p + "W_O"], W[p + "b_O"])
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, sd2, xh2, LN2 = layernorm(H1, W[p + "gamma2"], W[p + "beta2"])
        Z = affine(LN2, W[p + "W_1"], W[p + "b_1"])
        R = [[gelu_tanh(z) for z in r] for r in Z]
        F = affine(R, W[p + "W_2"], W[p + "b_2"])
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        out.update({p + "mu1": mu1, p + "var1": var1, p + "sd1": sd1, p + "xhat1": xh1, p + "LN1": LN1,
                    p + "Q": Q, p + "K": K, p + "V": V, p + "dot": dot, p + "S": S, p + "expS": ex,
                    p + "A_den": den, p + "A": A, p + "Attn_heads": AH, p + "Attn": Attn, p + "H1": H1,
                    p + "mu2": mu2, p + "var2": var2, p + "sd2": sd2, p + "xhat2": xh2, p + "LN2": LN2,
                    p + "Z": Z, p + "R": R, p + "F": F, p + "H2": H2})
        H = H2
    mu_f, var_f, sd_f, xh_f, LN_f = layernorm(H, W["gamma_f"], W["beta_f"])
    h = LN_f[T - 1]
    logits = [sum((h[j] * W["E"][v][j] for j in range(d)), zero()) for v in range(len(W["E"]))]
    ez = [v_exp(z) for z in logits]
    se = sum(ez, zero())
    p = [e / se for e in ez]
    loss = -v_log(p[tgt])
    out.update(mu_f=mu_f, var_f=var_f, sd_f=sd_f, xhat_f=xh_f, LN_f=LN_f, h_final=h, logits=logits,
               exp_logits=ez, sum_exp=se, p=p, loss=loss)
    return out


def trainable(name):
    return not any(k in name for k in ("gamma", "beta"))


def compute():
    spec, params, vocab, ids, tgt = load()
    f0 = forward(spec, params, ids, tgt)
    backward(f0["loss"])
    grads = {k: ([[x.g for x in r] for r in v] if isinstance(v[0], list) else [x.g for x in v])
             for k, v in f0["_W"].items()}
    lr = mp.mpf(str(spec["training"]["lr"]))
    new = {}
    for k, v in params.items():
        if not trainable(k):
            new[k] = v
        elif isinstance(v[0], list):
            new[k] = [[v[i][j] - lr * grads[k][i][j] for j in range(len(v[0]))] for i in range(len(v))]
        else:
            new[k] = [v[i] - lr * grads[k][i] for i in range(len(v))]
    f1 = forward(spec, new, ids, tgt)

    # ---- names as in symgpt's reference language (tokens by their string)
    vals, aux = {}, {}
    plain = lambda x: x.v if isinstance(x, Var) else x

    def put(prefix, name, x, idx=(), tok_axis=None, into=vals):
        if isinstance(x, list):
            for i, y in enumerate(x):
                key = vocab[i] if tok_axis == len(idx) else str(i)
                put(prefix, name, y, idx + (key,), tok_axis, into)
        else:
            into[prefix + name + (f"[{','.join(idx)}]" if idx else "")] = plain(x)

    for pre, f in (("", f0), ("sgd[1].", f1)):
        for k, x in f.items():
            if k == "_W":
                continue
            tok = 0 if k in ("logits", "exp_logits", "p") else None
            into = aux if k.split(".")[-1] in ("sd1", "sd2", "sd_f", "xhat1", "xhat2", "xhat_f", "dot", "expS",
                                               "exp_logits") else vals
            put(pre, k, x, tok_axis=tok, into=into)
    for k, v in params.items():
        put("", k, v, tok_axis=0 if k == "E" else None)
        put("sgd[1].", k, new[k], tok_axis=0 if k == "E" else None)
        put("grad_", k, grads[k], tok_axis=0 if k == "E" else None)
    for k in ("logits", "h_final"):
        put("grad_", k, [x.g for x in f0[k]], tok_axis=0 if k == "logits" else None)
    for k in ("LN_f", "l1.H2", "l0.H2", "H0"):
        put("grad_", k, [[x.g for x in r] for r in f0[k]])

    # ---- the handout's other figures: intermediate steps it prints
    L0, L1 = "l0.", "l1."
    Z0 = f0[L0 + "Z"][1][0].v
    inner = Z0 + GELU_C * Z0 ** 3
    aux.update({
        "gelu: u1 + 0.044715 u1^3": inner,
        "gelu: sqrt(2/pi)(...)": SQRT_2_PI * inner,
        "gelu: tanh(...)": mp.tanh(SQRT_2_PI * inner),
        "sqrt(2)": mp.sqrt(2), "sqrt(2/pi)": SQRT_2_PI,
        "x - mu (ln_f, t=2, j=1)": f0[L1 + "H2"][1][0].v - f0["mu_f"][1].v,
        "x - mu (ln_f, t=2, j=2)": f0[L1 + "H2"][1][1].v - f0["mu_f"][1].v,
        "loss - sgd[1].loss": f0["loss"].v - f1["loss"].v,
        "2*var_f[1] (unbiased)": 2 * f0["var_f"][1].v,
        "100 p[风]": 100 * f0["p"][1].v,
    })
    ex = {"vals": vals, "aux": aux, "params": params, "f0": f0, "f1": f1, "grads": grads, "new": new}
    return vals, ex


# ------------------------------------------------------------------ rounding and the document

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def norm(s: str) -> str:
    return s.replace("\u2212", "-").strip()


def doc_lines():
    out = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], capture_output=True, check=True)
    lines = out.stdout.decode("utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def key_rows():
    rows = []
    for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if r.startswith("| `"):
            rows.append([c.strip() for c in r.strip().strip("|").split("|")])
    return rows


def D(x):
    return Decimal(mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))


def mechanisms(vals, ex):
    """Each planted figure is what its mistake gives; returns the ones that do not reproduce."""
    P, f0, grads = ex["params"], ex["f0"], ex["grads"]
    r4 = lambda x: D(x).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    q4 = lambda x: str(r4(x))
    bad = []
    # forgotten bias: q_{2,1} without b_Q[0], from the printed LN_1 row
    ln = f0["l0.LN1"][1]
    if q4(r4(ln[0].v) * D(P["l0.W_Q"][0][0]) + r4(ln[1].v) * D(P["l0.W_Q"][1][0])) != "-0.3200":
        bad.append("-0.3200")
    # transposed: s_{12} written at s_{21}
    if rnd(vals["l0.S[0,1]"], 4) != "-0.3573":
        bad.append("-0.3573")
    # carried rounding: m_{2,1} from the printed g (4 decimals) and W_2
    m = sum(r4(f0["l0.R"][1][k].v) * D(P["l0.W_2"][k][0]) for k in range(8)) + D(P["l0.b_2"][0])
    if q4(m) != "-0.0082" or m != Decimal("-0.00815"):
        bad.append("-0.0082")
    # last-digit slip on a_{2,2} of layer 2
    if rnd(vals["l1.Attn[1,1]"], 4) != "0.0380":
        bad.append("0.0381")
    # digits swapped in alpha_{21} of layer 2: 0.4969 -> 0.4996
    if rnd(vals["l1.A[1,0]"], 4) != "0.4969":
        bad.append("0.4996")
    # ln_f variance without the /2 (the unbiased variance for d = 2)
    if rnd(2 * vals["var_f[1]"], 4) != "2.1183":
        bad.append("2.1183")
    # percent slip: p[吹] x 10 instead of x 100
    if rnd(10 * vals["p[吹]"], 3) != "1.491":
        bad.append("1.491%")
    # wrong sign of the update of e_{风,1}: theta + lr g
    if rnd(P["E"][1][0] + mp.mpf("0.1") * grads["E"][1][0], 4) != "-0.1376":
        bad.append("-0.1376")
    return bad


def dump():
    vals, ex = compute()
    for k, v in list(vals.items()) + [("aux: " + k, v) for k, v in ex["aux"].items()]:
        print(f"{k:<34} {mp.nstr(v, 20)}")


def main() -> int:
    vals, ex = compute()
    lines = doc_lines()
    print(f"DOC.pdf: {len(lines)} lines of pdftotext -layout")
    bad = 0
    planted_at = set()
    for cells in key_rows():
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = norm(cells[4].strip("`")) if len(cells) == 7 else norm(printed)
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and norm(printed) in norm(lines[line - 1])
        if len(cells) == 7:
            exact = mp.mpf(norm(cells[3]).rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != norm(printed)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted_at.add((line, norm(printed)))
        else:
            note = "correct" if right == norm(printed) else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note += "; NOT ON ITS LINE"
        bad += ("DISAGREES" in note) or ("NOT" in note)
        print(f"  {printed:>10}  line {line:>3}  {ref:<22} {mp.nstr(v, 15):<22} rounds to {right:<9} {note}")
    for printed in mechanisms(vals, ex):
        print(f"  planted {printed}: its mistake does not reproduce it")
        bad += 1
    # every figure with 4 decimals in the document is some value's correct rounding, unless planted
    pool = {rnd(x, 4) for x in list(vals.values()) + list(ex["aux"].values())}
    # pdftotext sets a square's raised 2 on the base's line: "0.2752" on line 71 is 0.275² (x − μ of
    # LN_1 at t = 1, layer 1), not a four-decimal figure
    f0 = ex["f0"]
    squared = {(71, rnd(f0["H0"][0][0].v - f0["l0.mu1"][0].v, 3) + "2")}
    stray, up_to_sign = 0, []
    for i, text in enumerate(lines, 1):
        for tok in re.findall(r"[\u2212-]?\d+\.\d{4}(?!\d)%?", text):
            t = norm(tok)
            if (i, t) in planted_at or t.endswith("%") or (i, t) in squared:
                continue
            if t in pool:
                continue
            if t.lstrip("-") in pool or "-" + t in pool:
                up_to_sign.append(f"{i}:{tok}")
                continue
            print(f"  line {i}: {tok} is no oracle value's rounding")
            stray += 1
    if up_to_sign:
        print("  matching up to sign (a term after a written minus): " + ", ".join(up_to_sign))
    print("every 4-decimal figure of DOC.pdf is an oracle value's correct rounding or a planted one"
          if not stray else f"{stray} figures of DOC.pdf unexplained")
    bad += stray
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        dump()
        sys.exit(0)
    sys.exit(main())
