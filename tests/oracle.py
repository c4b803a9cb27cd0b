"""Independent high-precision reference for the derivation specs (pure mpmath).

Reads a spec TOML itself and computes the forward pass of the tiny transformer
and of the bigram model straight from the math, at `dps` decimal digits.
Nothing here imports symgpt. Precision is only ever set inside
`mpmath.mp.workdps(dps)` blocks.
"""
import copy
import random
import tomllib
from fractions import Fraction

import mpmath
from mpmath import mp

# Strings under these keys are names, never numbers.
NAME_KEYS = {"kind", "vocab", "input", "target", "title", "source", "params"}


def _number(s):
    """TOML float text -> Fraction (exact decimal); inf/nan stay float."""
    try:
        return Fraction(s)
    except ValueError:
        return float(s)


def _convert(obj, key=None):
    if isinstance(obj, dict):
        return {k: _convert(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_convert(v, key) for v in obj]
    if isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        return Fraction(obj)
    if isinstance(obj, str) and key not in NAME_KEYS:
        try:
            return Fraction(obj.strip())
        except ValueError:
            return obj
    return obj


def load_spec(path):
    """Raw spec dict; every number (int, float, numeric string) is a Fraction."""
    with open(path, "rb") as f:
        return _convert(tomllib.load(f, parse_float=_number))


def loads_spec(text):
    return _convert(tomllib.loads(text, parse_float=_number))


# ---------------------------------------------------------------- helpers

def num(q):
    """Fraction / int / mpf -> mpf at the current precision."""
    if isinstance(q, Fraction):
        return mp.mpf(q.numerator) / q.denominator
    return mp.mpf(q)


def vec(v):
    return [num(x) for x in v]


def mat(m):
    return [vec(row) for row in m]


def matmul(A, B):
    return [[mp.fsum(a[k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))]
            for a in A]


def vecmat(x, B):
    return matmul([x], B)[0]


def dot(x, y):
    return mp.fsum(a * b for a, b in zip(x, y))


def softmax(z):
    m = max(z)
    e = [mp.exp(v - m) for v in z]
    s = mp.fsum(e)
    return [v / s for v in e]


def layer_norm(h, gamma, beta, eps):
    d = len(h)
    mu = mp.fsum(h) / d
    var = mp.fsum((x - mu) ** 2 for x in h) / d
    r = mp.sqrt(var + eps)
    return [g * (x - mu) / r + b for x, g, b in zip(h, gamma, beta)], mu, var


def token_ids(spec, tokens):
    vocab = spec["model"]["vocab"]
    return [vocab.index(t) if isinstance(t, str) else int(t) for t in tokens]


def positional_encoding(T, d, base):
    PE = []
    for t in range(T):
        row = []
        for j in range(d):
            i = j // 2
            angle = t / mp.power(base, mp.mpf(2 * i) / d)
            row.append(mp.sin(angle) if j % 2 == 0 else mp.cos(angle))
        PE.append(row)
    return PE


# ---------------------------------------------------------------- transformer

def block_forward(H, layer, heads, eps):
    """One post-LN block. H: T x d list of mpf. Returns the per-block dict."""
    T, d = len(H), len(H[0])
    dk = d // heads
    W_Q, W_K, W_V = mat(layer["W_Q"]), mat(layer["W_K"]), mat(layer["W_V"])
    W_1, b_1 = mat(layer["W_1"]), vec(layer["b_1"])
    W_2, b_2 = mat(layer["W_2"]), vec(layer["b_2"])
    ones, zeros = [mp.mpf(1)] * d, [mp.mpf(0)] * d
    gamma1 = vec(layer["gamma1"]) if "gamma1" in layer else ones
    beta1 = vec(layer["beta1"]) if "beta1" in layer else zeros
    gamma2 = vec(layer["gamma2"]) if "gamma2" in layer else ones
    beta2 = vec(layer["beta2"]) if "beta2" in layer else zeros

    Q, K, V = matmul(H, W_Q), matmul(H, W_K), matmul(H, W_V)
    scale = mp.sqrt(dk)
    S, A = [], []
    concat = [[] for _ in range(T)]
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        Sh = [[mp.fsum(Q[t][c] * K[s][c] for c in cols) / scale for s in range(T)]
              for t in range(T)]
        Ah = []
        for t in range(T):
            w = softmax(Sh[t][: t + 1])
            Ah.append(w + [mp.mpf(0)] * (T - t - 1))
            for c in cols:
                concat[t].append(mp.fsum(Ah[t][s] * V[s][c] for s in range(T)))
        S.append(Sh)
        A.append(Ah)
    Attn = matmul(concat, mat(layer["W_O"])) if "W_O" in layer else concat
    if heads == 1:
        S, A = S[0], A[0]

    H1 = [[a + b for a, b in zip(H[t], Attn[t])] for t in range(T)]
    LN1, mu1, var1 = zip(*[layer_norm(H1[t], gamma1, beta1, eps) for t in range(T)])
    LN1, mu1, var1 = list(LN1), list(mu1), list(var1)
    Z = [[z + b for z, b in zip(row, b_1)] for row in matmul(LN1, W_1)]
    R = [[z if z > 0 else mp.mpf(0) for z in row] for row in Z]
    F = [[f + b for f, b in zip(row, b_2)] for row in matmul(R, W_2)]
    H2 = [[a + b for a, b in zip(LN1[t], F[t])] for t in range(T)]
    LN2, mu2, var2 = zip(*[layer_norm(H2[t], gamma2, beta2, eps) for t in range(T)])
    return dict(Q=Q, K=K, V=V, S=S, A=A, Attn=Attn, H1=H1, mu1=mu1, var1=var1,
                LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=list(mu2), var2=list(var2),
                LN2=list(LN2))


def transformer_forward(spec, tokens=None, dps=60):
    """Forward pass at `dps` digits. `tokens`: token strings or ids (default data.input).

    For one layer the block's keys are also at top level; `blocks` always holds
    the per-layer dicts. `loss` is None when the spec has no data.target.
    """
    with mp.workdps(dps):
        m, w = spec["model"], spec["weights"]
        d, heads = int(m["d"]), int(m.get("heads", 1))
        eps = num(m.get("ln_eps", Fraction(1, 100000)))
        base = num(m.get("pe_base", Fraction(10000)))
        ids = token_ids(spec, spec["data"]["input"] if tokens is None else tokens)
        T = len(ids)
        E = mat(w["E"])
        X = [E[i] for i in ids]
        PE = positional_encoding(T, d, base)
        H0 = [[x + p for x, p in zip(X[t], PE[t])] for t in range(T)]
        H, blocks = H0, []
        for layer in spec["layer"]:
            b = block_forward(H, layer, heads, eps)
            b["H"] = H
            blocks.append(b)
            H = b["LN2"]
        h_final = H[T - 1]
        if m.get("tied", True):
            logits = [dot(h_final, E[v]) for v in range(len(E))]
        else:
            logits = vecmat(h_final, mat(w["W_out"]))
        p = softmax(logits)
        target = spec["data"].get("target")
        loss = -mp.log(p[token_ids(spec, [target])[0]]) if target is not None else None
        out = dict(X=X, PE=PE, H0=H0, blocks=blocks, h_final=h_final,
                   logits=logits, p=p, loss=loss)
        if len(blocks) == 1:
            for k, v in blocks[0].items():
                if k != "H":
                    out[k] = v
        return out


# ---------------------------------------------------------------- bigram

def bigram_forward(spec, dps=60):
    with mp.workdps(dps):
        E, W = mat(spec["weights"]["E"]), mat(spec["weights"]["W"])
        x = E[token_ids(spec, spec["data"]["input"])[-1]]
        z = vecmat(x, W)
        p = softmax(z)
        loss = -mp.log(p[token_ids(spec, [spec["data"]["target"]])[0]])
        return dict(x=x, z=z, p=p, loss=loss)


def bigram_grads(spec, dps=60):
    """Analytic gradients: grad_z = p - y, grad_W[i][j] = x_i (p_j - y_j),
    grad_x[i] = sum_j W[i][j] grad_z[j]; grad_E is grad_x on the input row."""
    with mp.workdps(dps):
        f = bigram_forward(spec, dps)
        W = mat(spec["weights"]["W"])
        tgt = token_ids(spec, [spec["data"]["target"]])[0]
        grad_z = [pj - (1 if j == tgt else 0) for j, pj in enumerate(f["p"])]
        grad_W = [[xi * g for g in grad_z] for xi in f["x"]]
        grad_x = [dot(W[i], grad_z) for i in range(len(W))]
        tok = token_ids(spec, spec["data"]["input"])[-1]
        grad_E = [grad_x if r == tok else [mp.mpf(0)] * len(grad_x)
                  for r in range(len(spec["weights"]["E"]))]
        return dict(grad_z=grad_z, grad_W=grad_W, grad_x=grad_x, grad_E=grad_E, **f)


# ---------------------------------------------------------------- finite differences

def _bumped(params, key_path, delta):
    p = copy.deepcopy(params)
    node = p
    for k in key_path[:-1]:
        node = node[k]
    node[key_path[-1]] = node[key_path[-1]] + delta
    return p


def central_difference(f, params_dict, key_path, h, dps=60):
    """(f(θ + h) - f(θ - h)) / 2h, θ the entry of params_dict at key_path.

    key_path: tuple/list like ("weights", "W", 0, 2) or a dotted string
    "weights.W.0.2". h: number or decimal string, used exactly as a Fraction.
    f(params) must return an mpf (e.g. lambda s: bigram_forward(s, dps)["loss"]).
    """
    if isinstance(key_path, str):
        key_path = [int(k) if k.isdigit() else k for k in key_path.split(".")]
    h = Fraction(repr(h)) if isinstance(h, float) else Fraction(h)
    with mp.workdps(dps):
        up = f(_bumped(params_dict, key_path, h))
        down = f(_bumped(params_dict, key_path, -h))
        return (up - down) / (2 * num(h))


# ---------------------------------------------------------------- random specs

def random_spec_toml(seed=0, V=8, d=4, heads=2, d_ff=8, layers=2, T=4,
                     tied=True, W_O=False, ln_params=True):
    """A random transformer spec (decimals with 1-2 digits) as TOML text."""
    rng = random.Random(seed)

    def r():
        return f"{rng.randint(-99, 99) / 100:.2f}" if rng.random() < 0.7 else \
            f"{rng.randint(-9, 9) / 10:.1f}"

    def v(n):
        return "[" + ", ".join(r() for _ in range(n)) + "]"

    def m(a, b):
        return "[" + ", ".join(v(b) for _ in range(a)) + "]"

    vocab = [f"t{i}" for i in range(V)]
    inp = [rng.choice(vocab) for _ in range(T)]
    lines = ["[model]", 'kind = "transformer"',
             "vocab = [" + ", ".join(f'"{t}"' for t in vocab) + "]",
             f"d = {d}", f"heads = {heads}", f"d_ff = {d_ff}", f"layers = {layers}",
             f"tied = {'true' if tied else 'false'}", "pe_base = 10000", "ln_eps = 1e-5",
             "", "[data]", "input = [" + ", ".join(f'"{t}"' for t in inp) + "]",
             f'target = "{rng.choice(vocab)}"', "", "[weights]", f"E = {m(V, d)}"]
    if not tied:
        lines.append(f"W_out = {m(d, V)}")
    for _ in range(layers):
        lines += ["", "[[layer]]", f"W_Q = {m(d, d)}", f"W_K = {m(d, d)}",
                  f"W_V = {m(d, d)}", f"W_1 = {m(d, d_ff)}", f"b_1 = {v(d_ff)}",
                  f"W_2 = {m(d_ff, d)}", f"b_2 = {v(d)}"]
        if W_O:
            lines.append(f"W_O = {m(d, d)}")
        if ln_params:
            lines += [f"gamma1 = {v(d)}", f"beta1 = {v(d)}",
                      f"gamma2 = {v(d)}", f"beta2 = {v(d)}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import os
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "derivations")
    tt = load_spec(os.path.join(root, "tiny-transformer.toml"))
    bg = load_spec(os.path.join(root, "bigram.toml"))
    with mp.workdps(25):
        r = transformer_forward(tt, dps=60)
        print("tiny-transformer loss =", mpmath.nstr(r["loss"], 22))
        print("  H0 =", [[mpmath.nstr(x, 6) for x in row] for row in r["H0"]])
        print("  A  =", [[mpmath.nstr(x, 6) for x in row] for row in r["A"]])
        print("  h_final =", [mpmath.nstr(x, 8) for x in r["h_final"]])
        print("  p =", [mpmath.nstr(x, 6) for x in r["p"]])
        b = bigram_grads(bg, dps=60)
        print("bigram z =", [mpmath.nstr(x, 10) for x in b["z"]],
              "loss =", mpmath.nstr(b["loss"], 12))
        print("  grad_z =", [mpmath.nstr(x, 6) for x in b["grad_z"]])
        print("  grad_x =", [mpmath.nstr(x, 6) for x in b["grad_x"]])
        for path in [("weights", "W", 0, 2), ("weights", "E", 1, 1)]:
            g = central_difference(lambda s: bigram_forward(s, 60)["loss"], bg, path,
                                   "1e-5", 60)
            print("  central difference", path, "=", mpmath.nstr(g, 12))
