"""Independent high-precision reference for the derivation specs (pure mpmath).

Reads a spec TOML itself and computes, straight from the math at `dps` decimal
digits, the forward pass of the tiny transformer and of the bigram model and
their reverse mode written out by hand: `grads` gives the loss and ∂loss/∂θ of
every parameter θ under symgpt's names (the baseline of
benchmarks/bench_scale.py, run as a command by benchmarks/hand_mpmath.py).
Nothing here imports symgpt.  Precision is only ever set inside
`mpmath.mp.workdps(dps)` blocks.

transformer (post-LN, as symgpt.engine.models defines it)
    H0 = E[tokens] + PE,  PE[t,2i] = sin(t / base^(2i/d)),  PE[t,2i+1] = cos(same)
    per block: Q, K, V = H·W_Q, H·W_K, H·W_V;  per head h (d_k = d/heads columns)
    S[t,s] = Q_h[t]·K_h[s]/√d_k,  A[t,:t+1] = softmax(S[t,:t+1]) (causal),
    Attn_heads[t] = Σ_s A[t,s] V_h[s] (heads concatenated),  Attn = Attn_heads·W_O (or Attn_heads),
    H1 = H + Attn,  LN1 = LN(H1; γ1, β1),  Z = LN1·W_1 + b_1,  R = act(Z) (ReLU by default, ReLU'(0) = 0;
    model.activation: ACTIVATIONS),
    F = R·W_2 + b_2,  H2 = LN1 + F,  H ← LN2 = LN(H2; γ2, β2);
    LN(x)_j = γ_j (x_j − μ)/√(σ² + ε) + β_j with the biased σ²;
    logits = h_final·Eᵀ (tied) or h_final·W_out;  loss = −ln softmax(logits)[target]
    ([training] all_positions: the mean of that over every position, position t
    predicting tokens[t+1] and the last one the target).
bigram
    x = E[last token], z = x·W, loss = −ln softmax(z)[target].

Reverse mode, each rule by hand: softmax + cross-entropy gives p − y; softmax
rows gS = A ⊙ (gA − Σ A gA); LayerNorm gx = r (ĝ − mean ĝ − x̂ mean(ĝ x̂)) with
ĝ = γ ⊙ gy, x̂ = (x − μ) r, r = 1/√(σ² + ε); ReLU passes the gradient where Z > 0.

>>> loss, g = grads(os.path.join(ROOT, "derivations", "bigram.toml"), dps=30)
>>> mpmath.nstr(loss, 14), mpmath.nstr(g["W[0,2]"], 12), len(g)
('1.0514701356033', '-0.195172898657', 12)
"""
import copy
import os
import random
import tomllib
from fractions import Fraction

import mpmath
from mpmath import mp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Strings under these keys are names, never numbers.
NAME_KEYS = {"kind", "vocab", "input", "target", "title", "source", "params"}

# A block's parameters in symgpt's order; LayerNorm's γ = 1 and β = 0 where the spec omits them.
BLOCK_PARAMS = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2", "gamma1", "beta1", "gamma2", "beta2", "W_O")
LN_DEFAULTS = (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0))


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


def read(spec):
    """A spec dict (load_spec's, every number a Fraction) from a path or a dict.

    >>> read({"model": {"d": 2}})["model"]["d"]
    2
    """
    return load_spec(spec) if isinstance(spec, (str, os.PathLike)) else spec


# ---------------------------------------------------------------- helpers: dense algebra on lists of mpf

def num(q):
    """Fraction / int / mpf -> mpf at the current precision (a Fraction: exact division of its integers)."""
    if isinstance(q, Fraction):
        return mp.mpf(q.numerator) / q.denominator
    return mp.mpf(q)


def vec(v):
    return [num(x) for x in v]


def mat(m):
    return [vec(row) for row in m]


def transpose(A):
    return [list(c) for c in zip(*A)]


def matmul(A, B):
    """A·B  (n, m)·(m, k) → (n, k); each entry one exactly summed dot product, rounded once (mp.fdot)."""
    cols = transpose(B)
    return [[mp.fdot(a, c) for c in cols] for a in A]


def matmul_t(A, B):
    """A·Bᵀ  (n, m)·(k, m)ᵀ → (n, k)."""
    return [[mp.fdot(a, b) for b in B] for a in A]


def t_matmul(A, B):
    """Aᵀ·B  (m, n)ᵀ·(m, k) → (n, k): a weight's gradient from inputs A and output gradients B."""
    return matmul(transpose(A), B)


def vecmat(x, B):
    return matmul([x], B)[0]


def dot(x, y):
    return mp.fdot(x, y)


def add(A, B):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(A, B)]


def col_sums(A):
    return [mp.fsum(c) for c in zip(*A)]


def softmax(z):
    m = max(z)
    e = [mp.exp(v - m) for v in z]
    s = mp.fsum(e)
    return [v / s for v in e]


def layer_norm(h, gamma, beta, eps):
    """(LN(h), μ, σ²) of one row: γ (h − μ) r + β, r = 1/√(σ² + ε), with the biased σ²."""
    d = len(h)
    mu = mp.fsum(h) / d
    c = [x - mu for x in h]
    var = mp.fdot(c, c) / d
    r = 1 / mp.sqrt(var + eps)
    return [g * (x * r) + b for x, g, b in zip(c, gamma, beta)], mu, var


def layer_norm_rows(X, gamma, beta, eps):
    """LN of every row of X: (the rows, their means μ, their variances σ²)."""
    rows = [layer_norm(x, gamma, beta, eps) for x in X]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def layer_norm_backward(gY, gamma, X, mu, var, eps):
    """(gX, gγ, gβ) of LN on the rows X from gY: gx = r (ĝ − mean ĝ − x̂·mean(ĝ x̂)), ĝ = γ ⊙ gy,
    x̂ = (x − μ) r, r = 1/√(σ² + ε); gγ = Σ_rows gy ⊙ x̂, gβ = Σ_rows gy."""
    d = len(gamma)
    gX, Xh = [], []
    for gy, x, m, v in zip(gY, X, mu, var):
        r = 1 / mp.sqrt(v + eps)
        xh = [(a - m) * r for a in x]
        gh = [g * y for g, y in zip(gamma, gy)]
        m1, m2 = mp.fsum(gh) / d, mp.fdot(gh, xh) / d
        gX.append([r * (a - m1 - b * m2) for a, b in zip(gh, xh)])
        Xh.append(xh)
    g_gamma = [mp.fdot(c, x) for c, x in zip(zip(*gY), zip(*Xh))]
    return gX, g_gamma, col_sums(gY)


def token_ids(spec, tokens):
    vocab = spec["model"]["vocab"]
    return [vocab.index(t) if isinstance(t, str) else int(t) for t in tokens]


def positional_encoding(T, d, base):
    """PE (T x d): sin on even columns, cos on odd ones, of the angle t·base^(−2i/d) (column 2i or 2i + 1)."""
    PE = []
    for t in range(T):
        row = []
        for j in range(d):
            i = j // 2
            angle = t * (1 / mp.power(base, mp.mpf(2 * i) / d))
            row.append(mp.sin(angle) if j % 2 == 0 else mp.cos(angle))
        PE.append(row)
    return PE


# ---------------------------------------------------------------- transformer, forward

def layer_weights(layer, d):
    """One [[layer]]'s weights as mpf; LayerNorm γ = 1, β = 0 where the spec omits them."""
    P = {k: (mat(v) if isinstance(v[0], list) else vec(v)) for k, v in layer.items()}
    for k, default in LN_DEFAULTS:
        P.setdefault(k, [mp.mpf(default)] * d)
    return P


def _sigmoid(z):
    return 1 / (1 + mp.exp(-z))


def _tanh_inner(z):
    return mp.sqrt(2 / mp.pi) * (z + mp.mpf(44715) / 10**6 * z**3)


ACTIVATIONS = {
    # model.activation: (f, f′), written out by hand (ReLU′(0) = 0, as PyTorch)
    "relu": (lambda z: z if z > 0 else mp.zero, lambda z: mp.one if z > 0 else mp.zero),
    "gelu": (lambda z: z * mp.ncdf(z), lambda z: mp.ncdf(z) + z * mp.npdf(z)),
    "gelu_tanh": (lambda z: z / 2 * (1 + mp.tanh(_tanh_inner(z))),
                  lambda z: (1 + mp.tanh(_tanh_inner(z))) / 2 + z / 2 * mp.sech(_tanh_inner(z))**2
                  * mp.sqrt(2 / mp.pi) * (1 + 3 * mp.mpf(44715) / 10**6 * z**2)),
    "silu": (lambda z: z * _sigmoid(z), lambda z: _sigmoid(z) * (1 + z * (1 - _sigmoid(z)))),
}


def block_forward(H, P, heads, eps, act="relu"):
    """One post-LN block on H (T x d list of mpf) with weights P (layer_weights). Returns the per-block dict:
    Q, K, V, S and A (per head lists for several heads; A's row t is 0 past column t), Attn_heads (before W_O,
    only with W_O), Attn, H1, mu1, var1, LN1, Z, R, F, H2, mu2, var2, LN2."""
    T, d = len(H), len(H[0])
    dk = d // heads
    Q, K, V = matmul(H, P["W_Q"]), matmul(H, P["W_K"]), matmul(H, P["W_V"])
    scale = 1 / mp.sqrt(dk)
    S, A = [], []
    concat = [[] for _ in range(T)]
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        Qh = [[Q[t][c] for c in cols] for t in range(T)]
        Kh = [[K[s][c] for c in cols] for s in range(T)]
        Sh = [[mp.fdot(Qh[t], Kh[s]) * scale for s in range(T)] for t in range(T)]
        Ah = [softmax(Sh[t][: t + 1]) + [mp.zero] * (T - t - 1) for t in range(T)]
        for t in range(T):
            for c in cols:
                concat[t].append(mp.fdot(Ah[t][: t + 1], [V[s][c] for s in range(t + 1)]))
        S.append(Sh)
        A.append(Ah)
    out = dict(Q=Q, K=K, V=V, S=S[0] if heads == 1 else S, A=A[0] if heads == 1 else A)
    if "W_O" in P:
        out["Attn_heads"] = concat
    Attn = matmul(concat, P["W_O"]) if "W_O" in P else concat
    H1 = add(H, Attn)
    LN1, mu1, var1 = layer_norm_rows(H1, P["gamma1"], P["beta1"], eps)
    Z = [[z + b for z, b in zip(row, P["b_1"])] for row in matmul(LN1, P["W_1"])]
    R = [[ACTIVATIONS[act][0](z) for z in row] for row in Z]
    F = [[f + b for f, b in zip(row, P["b_2"])] for row in matmul(R, P["W_2"])]
    H2 = add(LN1, F)
    LN2, mu2, var2 = layer_norm_rows(H2, P["gamma2"], P["beta2"], eps)
    return dict(out, Attn=Attn, H1=H1, mu1=mu1, var1=var1, LN1=LN1, Z=Z, R=R, F=F, H2=H2, mu2=mu2,
                var2=var2, LN2=LN2)


def loss_terms(spec, ids):
    """(position, target id) of each cross-entropy term: the last position predicting data.target, or with
    [training] all_positions every position t predicting ids[t + 1] (the last one data.target); none
    without a data.target."""
    target = spec["data"].get("target")
    if target is None:
        return []
    y = token_ids(spec, [target])[0]
    if spec.get("training", {}).get("all_positions", False):
        return list(enumerate(list(ids[1:]) + [y]))
    return [(len(ids) - 1, y)]


def head_logits(h, E, W_out):
    """logits = h·Eᵀ (tied head: W_out is None) or h·W_out."""
    return [dot(h, e) for e in E] if W_out is None else vecmat(h, W_out)


def _transformer(spec, tokens):
    """transformer_forward's dict at the working precision, and the weights as mpf: (E, W_out, [P per block])."""
    m, w = spec["model"], spec["weights"]
    d, heads = int(m["d"]), int(m.get("heads", 1))
    eps = num(m.get("ln_eps", Fraction(1, 100000)))
    base = num(m.get("pe_base", Fraction(10000)))
    ids = token_ids(spec, spec["data"]["input"] if tokens is None else tokens)
    T = len(ids)
    E = mat(w["E"])
    W_out = None if m.get("tied", True) else mat(w["W_out"])
    Ps = [layer_weights(layer, d) for layer in spec["layer"]]
    X = [E[i] for i in ids]
    PE = positional_encoding(T, d, base)
    H0 = add(X, PE)
    H, blocks = H0, []
    for P in Ps:
        b = block_forward(H, P, heads, eps, m.get("activation", "relu"))
        b["H"] = H
        blocks.append(b)
        H = b["LN2"]
    terms = loss_terms(spec, ids)
    logits_at = {t: head_logits(H[t], E, W_out) for t in sorted({T - 1} | {t for t, _ in terms})}
    p_at = {t: softmax(z) for t, z in logits_at.items()}
    loss = mp.fsum(-mp.log(p_at[t][y]) for t, y in terms) / len(terms) if terms else None
    out = dict(X=X, PE=PE, H0=H0, blocks=blocks, h_final=H[T - 1], logits=logits_at[T - 1], p=p_at[T - 1],
               loss=loss, logits_at=logits_at, p_at=p_at)
    if len(blocks) == 1:
        out.update((k, v) for k, v in blocks[0].items() if k != "H")
    return out, (E, W_out, Ps)


def transformer_forward(spec, tokens=None, dps=60):
    """Forward pass at `dps` digits. `tokens`: token strings or ids (default data.input).

    For one layer the block's keys are also at top level; `blocks` always holds
    the per-layer dicts (each with its input `H`). `logits` and `p` are the last
    position's; `logits_at` and `p_at` map every position a loss term reads to
    its own. `loss` is the spec's (loss_terms: the mean over its terms of
    −ln p[target]); None when the spec has no data.target.
    """
    with mp.workdps(dps):
        return _transformer(spec, tokens)[0]


# ---------------------------------------------------------------- transformer, reverse mode

def head_backward(H, terms, p_at, E, W_out):
    """(∂loss/∂H at the last block's output, the head's part of grad_E (tied) or grad_W_out): each
    cross-entropy term (t, y) adds ∂loss/∂logits = (p − y)/n at position t, n the number of terms."""
    T, d, n = len(H), len(H[0]), len(terms)
    gH = [[mp.zero] * d for _ in range(T)]
    gW = [[mp.zero] * d for _ in E] if W_out is None else [[mp.zero] * len(W_out[0]) for _ in range(d)]
    for t, y in terms:
        h = H[t]
        gz = [(p - (1 if v == y else 0)) / n for v, p in enumerate(p_at[t])]
        if W_out is None:                                    # logits = h·Eᵀ
            for v, g in enumerate(gz):
                gW[v] = [a + g * x for a, x in zip(gW[v], h)]
            gH[t] = [a + mp.fdot(gz, col) for a, col in zip(gH[t], zip(*E))]
        else:                                                # logits = h·W_out
            for j in range(d):
                gW[j] = [a + h[j] * g for a, g in zip(gW[j], gz)]
            gH[t] = [a + mp.fdot(gz, r) for a, r in zip(gH[t], W_out)]
    return gH, gW


def attention_backward(gO, b, heads):
    """(gQ, gK, gV) from ∂loss/∂Attn_heads, per head and causal row t: gA[s] = gO_h[t]·V_h[s],
    gS = A ⊙ (gA − Σ_s A gA)/√d_k, gQ_h[t] = Σ_s gS[s] K_h[s], gK_h[s] += gS[s] Q_h[t], gV_h[s] += A[t,s] gO_h[t]."""
    Q, K, V = b["Q"], b["K"], b["V"]
    T, d = len(Q), len(Q[0])
    dk = d // heads
    scale = 1 / mp.sqrt(dk)
    A = [b["A"]] if heads == 1 else b["A"]
    gQ, gK, gV = ([[mp.zero] * d for _ in range(T)] for _ in range(3))
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        for t in range(T):
            a = A[h][t][: t + 1]
            go = [gO[t][j] for j in cols]
            gA = [mp.fdot(go, [V[s][j] for j in cols]) for s in range(t + 1)]
            mean = mp.fdot(a, gA)
            gS = [w * (g - mean) * scale for w, g in zip(a, gA)]
            for j, gj in zip(cols, go):
                gQ[t][j] = mp.fdot(gS, [K[s][j] for s in range(t + 1)])
                for s in range(t + 1):
                    gK[s][j] += gS[s] * Q[t][j]
                    gV[s][j] += a[s] * gj
    return gQ, gK, gV


def block_backward(gY, P, b, heads, eps, act="relu"):
    """∂loss/∂(block input H) and every block parameter's gradient {name: …}, from ∂loss/∂LN2 and the
    block's forward dict b."""
    G = {}
    gH2, G["gamma2"], G["beta2"] = layer_norm_backward(gY, P["gamma2"], b["H2"], b["mu2"], b["var2"], eps)
    gF = gH2                                                 # H2 = LN1 + F
    G["b_2"], G["W_2"] = col_sums(gF), t_matmul(b["R"], gF)
    gR = matmul_t(gF, P["W_2"])
    gZ = [[g * ACTIVATIONS[act][1](z) for g, z in zip(gr, zr)] for gr, zr in zip(gR, b["Z"])]
    G["b_1"], G["W_1"] = col_sums(gZ), t_matmul(b["LN1"], gZ)
    gLN1 = add(gH2, matmul_t(gZ, P["W_1"]))
    gH1, G["gamma1"], G["beta1"] = layer_norm_backward(gLN1, P["gamma1"], b["H1"], b["mu1"], b["var1"], eps)
    if "W_O" in P:                                           # Attn = Attn_heads·W_O
        G["W_O"] = t_matmul(b["Attn_heads"], gH1)
        gO = matmul_t(gH1, P["W_O"])
    else:
        gO = gH1
    gQ, gK, gV = attention_backward(gO, b, heads)
    H = b["H"]
    G["W_Q"], G["W_K"], G["W_V"] = t_matmul(H, gQ), t_matmul(H, gK), t_matmul(H, gV)
    gH = add(gH1, add(matmul_t(gQ, P["W_Q"]), add(matmul_t(gK, P["W_K"]), matmul_t(gV, P["W_V"]))))
    return gH, G


def layer_prefix(spec, i):
    """Names inside block i: bare for one layer, ``l0.`` … for several (symgpt's)."""
    return "" if len(spec["layer"]) == 1 else f"l{i}."


def transformer_grads(spec, dps=60):
    """transformer_forward's dict (data.input) with ∂loss/∂θ by hand: grad_E, grad_W_out (untied head) and
    grad_<prefix><name> for each block's parameters (BLOCK_PARAMS; W_O where given), nested lists of mpf."""
    with mp.workdps(dps):
        m = spec["model"]
        heads = int(m.get("heads", 1))
        eps = num(m.get("ln_eps", Fraction(1, 100000)))
        ids = token_ids(spec, spec["data"]["input"])
        f, (E, W_out, Ps) = _transformer(spec, None)
        gH, g_head = head_backward(f["blocks"][-1]["LN2"], loss_terms(spec, ids), f["p_at"], E, W_out)
        per_block = []
        for P, b in zip(reversed(Ps), reversed(f["blocks"])):
            gH, G = block_backward(gH, P, b, heads, eps, m.get("activation", "relu"))
            per_block.insert(0, G)
        gE = g_head if W_out is None else [[mp.zero] * len(E[0]) for _ in E]
        for v, g in zip(ids, gH):                            # H0 = E[tokens] + PE
            gE[v] = [a + b for a, b in zip(gE[v], g)]
        out = {"grad_E": gE}
        if W_out is not None:
            out["grad_W_out"] = g_head
        for i, G in enumerate(per_block):
            out.update((f"grad_{layer_prefix(spec, i)}{k}", G[k]) for k in BLOCK_PARAMS if k in G)
        return {**f, **out}


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


# ---------------------------------------------------------------- every parameter's gradient, by name

def param_names(spec):
    """The parameter groups in symgpt's order: E, W (bigram); E, W_out (untied), then each block's
    BLOCK_PARAMS (γ, β always; W_O where given), with its layer_prefix."""
    if spec["model"].get("kind") == "bigram":
        return ["E", "W"]
    names = ["E"] + ([] if spec["model"].get("tied", True) else ["W_out"])
    for i, layer in enumerate(spec["layer"]):
        names += [layer_prefix(spec, i) + k for k in BLOCK_PARAMS if k != "W_O" or k in layer]
    return names


def _flat(groups):
    """{"W_Q": [[…]]} → {"W_Q[0,1]": mpf}, the node names symgpt uses."""
    out = {}
    for name, v in groups.items():
        if isinstance(v[0], list):
            out.update({f"{name}[{i},{j}]": x for i, r in enumerate(v) for j, x in enumerate(r)})
        else:
            out.update({f"{name}[{i}]": x for i, x in enumerate(v)})
    return out


def grads(spec, dps=50):
    """(loss, {parameter node name: ∂loss/∂θ}) at ``dps`` digits of working precision.

    ``spec``: a path to a spec TOML or the dict load_spec reads.  Names are
    symgpt's: ``E[4,1]``, ``W_Q[0,1]`` (one layer), ``l1.W_1[2,3]`` (several),
    the LayerNorm gains and shifts included (γ = 1, β = 0 where the spec omits them).

    >>> loss, g = grads(os.path.join(ROOT, "derivations", "tiny-transformer.toml"), dps=24)
    >>> mpmath.nstr(loss, 24), len(g)
    ('2.46737302749765479995003', 54)
    """
    spec = read(spec)
    with mp.workdps(dps):
        r = (bigram_grads if spec["model"].get("kind") == "bigram" else transformer_grads)(spec, dps)
        return r["loss"], _flat({n: r["grad_" + n] for n in param_names(spec)})


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
                     tied=True, W_O=False, ln_params=True, activation=None, norm=None, n_ctx=None,
                     bias=None, norm_kind=None, rope=False, kv_heads=None):
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
             *([f'activation = "{activation}"'] if activation else []),
             *([f'norm = "{norm}"'] if norm else []),
             *(['positions = "learned"', f"n_ctx = {n_ctx}"] if n_ctx else []),
             *([f"bias = {'true' if bias else 'false'}"] if bias is not None else []),
             *([f'norm_kind = "{norm_kind}"'] if norm_kind else []),
             *(['positions = "rope"', "rope_theta = 10000"] if rope else []),
             *([f"kv_heads = {kv_heads}"] if kv_heads else []),
             "", "[data]", "input = [" + ", ".join(f'"{t}"' for t in inp) + "]",
             f'target = "{rng.choice(vocab)}"', "", "[weights]", f"E = {m(V, d)}"]
    if n_ctx:   # learned positions: a table of n_ctx ≥ T rows (drawn after the rest, so the rest is as before)
        pe_rng, rng = rng, random.Random(seed + 7919)
        lines.append(f"W_pe = {m(n_ctx, d)}")
        rng = pe_rng
    if not tied:
        lines.append(f"W_out = {m(d, V)}")
    for l in range(layers):
        dkv = d // heads * (kv_heads or heads)
        lines += ["", "[[layer]]", f"W_Q = {m(d, d)}", f"W_K = {m(d, dkv)}",
                  f"W_V = {m(d, dkv)}", f"W_1 = {m(d, d_ff)}", f"b_1 = {v(d_ff)}",
                  f"W_2 = {m(d_ff, d)}", f"b_2 = {v(d)}"]
        if bias is False:   # model.bias = false: no biases (b_1, b_2 drawn all the same, so the rest is as before)
            lines = [ln for ln in lines if not ln.startswith(("b_1 = ", "b_2 = "))]
        if W_O:
            lines.append(f"W_O = {m(d, d)}")
        if activation == "swiglu":   # the gated MLP's up projection (and its bias), from numbers of their own
            keep, rng = rng, random.Random(seed + 15485863 + l)
            lines += [f"W_3 = {m(d, d_ff)}"] + ([f"b_3 = {v(d_ff)}"] if bias is not False else [])
            rng = keep
        if bias:            # every projection's bias, from numbers of their own
            keep, rng = rng, random.Random(seed + 104729 + l)
            lines += [f"{b} = {v(d if b in ('b_Q', 'b_O') else dkv)}"
                      for b in ("b_Q", "b_K", "b_V") + (("b_O",) if W_O else ())]
            rng = keep
        if ln_params:
            lines += [f"gamma1 = {v(d)}", f"beta1 = {v(d)}",
                      f"gamma2 = {v(d)}", f"beta2 = {v(d)}"]
            if norm_kind == "rmsnorm" or bias is False:   # no shift: the β drawn all the same, then left out
                lines = [ln for ln in lines if not ln.startswith(("beta1 = ", "beta2 = "))]
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
