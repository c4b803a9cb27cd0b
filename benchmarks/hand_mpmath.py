"""Hand-written mpmath forward and reverse mode of symgpt's two models: the baseline of bench_scale.

    python benchmarks/hand_mpmath.py [SPEC.toml] [--dps N]

An independent program: it reads the spec TOML with tests/oracle.py's small
reader (every number an exact Fraction from its text) and imports nothing from
symgpt.  It computes the loss and ∂loss/∂θ for every parameter θ, written out
by hand at ``dps`` decimal digits of working precision, as a careful person
would write a high-precision reference:

transformer (post-LN, as symgpt.engine.models defines it)
    H0 = E[tokens] + PE,  PE[t,2i] = sin(t / base^(2i/d)),  PE[t,2i+1] = cos(same)
    per block: Q, K, V = H·W_Q, H·W_K, H·W_V;  per head h (d_k = d/heads columns)
    S[t,s] = Q_h[t]·K_h[s]/√d_k,  A[t,:t+1] = softmax(S[t,:t+1]) (causal),
    O[t] = Σ_s A[t,s] V_h[s] (heads concatenated),  Attn = O·W_O (or O),
    LN1 = LN(H + Attn; γ1, β1),  Z = LN1·W_1 + b_1,  R = ReLU(Z) (ReLU'(0) = 0),
    F = R·W_2 + b_2,  H ← LN(LN1 + F; γ2, β2);
    LN(x)_j = γ_j (x_j − μ)/√(σ² + ε) + β_j with the biased σ²;
    logits = h_final·Eᵀ (tied) or h_final·W_out;  loss = −ln softmax(logits)[target]
    ([training] all_positions: the mean of that over every position, position t
    predicting tokens[t+1] and the last one the target).
bigram
    x = E[last token], z = x·W, loss = −ln softmax(z)[target].

Reverse mode, each rule by hand: softmax + cross-entropy gives p − y; softmax
rows gS = A ⊙ (gA − Σ A gA); LayerNorm gx = r (ĝ − mean ĝ − x̂ mean(ĝ x̂)) with
ĝ = γ ⊙ gy, x̂ = (x − μ) r, r = 1/√(σ² + ε); ReLU passes the gradient where Z > 0.

>>> import os
>>> loss, g = grads(os.path.join(ROOT, "derivations", "bigram.toml"), dps=30)
>>> mpmath.nstr(loss, 14), mpmath.nstr(g["W[0,2]"], 12), len(g)
('1.0514701356033', '-0.195172898657', 12)
"""
from __future__ import annotations

import os
import sys
from fractions import Fraction

import mpmath
from mpmath import mp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import oracle  # noqa: E402  (the spec reader only: TOML → Fractions)

__all__ = ["grads", "forward_macs", "param_count", "read"]


def read(spec):
    """A spec dict (oracle's reader, every number a Fraction) from a path or a dict.

    >>> read({"model": {"d": 2}})["model"]["d"]
    2
    """
    return oracle.load_spec(spec) if isinstance(spec, (str, os.PathLike)) else spec


# ---------------------------------------------------------------- small dense algebra on lists of mpf

def num(q):
    """Fraction → mpf at the working precision (exact division of the integers)."""
    return mp.mpf(q.numerator) / q.denominator if isinstance(q, Fraction) else mp.mpf(q)


def vec(v):
    return [num(x) for x in v]


def mat(m):
    return [vec(r) for r in m]


def transpose(A):
    return [list(c) for c in zip(*A)]


def matmul(A, B):
    """A·B  (n, m)·(m, k) → (n, k); each entry one exactly-summed dot product."""
    cols = transpose(B)
    return [[mp.fdot(a, c) for c in cols] for a in A]


def matmul_t(A, B):
    """A·Bᵀ  (n, m)·(k, m)ᵀ → (n, k)."""
    return [[mp.fdot(a, b) for b in B] for a in A]


def t_matmul(A, B):
    """Aᵀ·B  (m, n)ᵀ·(m, k) → (n, k): a weight's gradient from inputs A and output gradients B."""
    return matmul(transpose(A), B)


def add(A, B):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(A, B)]


def col_sums(A):
    return [mp.fsum(c) for c in zip(*A)]


def softmax(z):
    m = max(z)
    e = [mp.exp(v - m) for v in z]
    s = mp.fsum(e)
    return [v / s for v in e]


def ids(spec, tokens):
    vocab = spec["model"]["vocab"]
    return [vocab.index(t) if isinstance(t, str) else int(t) for t in tokens]


def positional(T, d, base):
    """PE  (T, d): sin on even columns, cos on odd ones, angle t / base^(2i/d)."""
    inv = [1 / mp.power(base, mp.mpf(2 * (j // 2)) / d) for j in range(d)]
    return [[(mp.sin if j % 2 == 0 else mp.cos)(t * inv[j]) for j in range(d)] for t in range(T)]


# ---------------------------------------------------------------- LayerNorm, forward and back

def ln_forward(X, gamma, beta, eps):
    """Rows of LN(X); with x̂ and r = 1/√(σ² + ε) per row for the reverse pass."""
    d = len(X[0])
    Y, Xh, R = [], [], []
    for x in X:
        mu = mp.fsum(x) / d
        c = [v - mu for v in x]
        r = 1 / mp.sqrt(mp.fdot(c, c) / d + eps)
        xh = [v * r for v in c]
        Y.append([g * v + b for g, v, b in zip(gamma, xh, beta)])
        Xh.append(xh)
        R.append(r)
    return Y, (Xh, R)


def ln_backward(gY, gamma, cache):
    """(gX, gγ, gβ) from gY: gx = r (ĝ − mean ĝ − x̂·mean(ĝ x̂)), ĝ = γ ⊙ gy."""
    Xh, R = cache
    d = len(gamma)
    gX = []
    for gy, xh, r in zip(gY, Xh, R):
        gh = [g * y for g, y in zip(gamma, gy)]
        m1, m2 = mp.fsum(gh) / d, mp.fdot(gh, xh) / d
        gX.append([r * (a - m1 - x * m2) for a, x in zip(gh, xh)])
    g_gamma = [mp.fdot(c, x) for c, x in zip(zip(*gY), zip(*Xh))]
    return gX, g_gamma, col_sums(gY)


# ---------------------------------------------------------------- the transformer

def _layer(layer, d):
    """One [[layer]]'s weights as mpf; LayerNorm γ = 1, β = 0 where the spec omits them."""
    P = {k: (mat(v) if isinstance(v[0], list) else vec(v)) for k, v in layer.items()}
    for k, default in (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0)):
        P.setdefault(k, [mp.mpf(default)] * d)
    return P


def block_forward(H, P, heads, eps):
    """One post-LN block on H (T, d); returns its output and what the reverse pass needs."""
    T, d = len(H), len(H[0])
    dk = d // heads
    scale = 1 / mp.sqrt(dk)
    Q, K, V = matmul(H, P["W_Q"]), matmul(H, P["W_K"]), matmul(H, P["W_V"])
    O = [[None] * d for _ in range(T)]
    A = []                                                   # A[h][t]: the t + 1 weights of row t
    for h in range(heads):
        cols = range(h * dk, (h + 1) * dk)
        Qh = [[Q[t][c] for c in cols] for t in range(T)]
        Kh = [[K[s][c] for c in cols] for s in range(T)]
        Ah = [softmax([mp.fdot(Qh[t], Kh[s]) * scale for s in range(t + 1)]) for t in range(T)]
        for t in range(T):
            for c in cols:
                O[t][c] = mp.fdot(Ah[t], [V[s][c] for s in range(t + 1)])
        A.append(Ah)
    Attn = matmul(O, P["W_O"]) if "W_O" in P else O
    LN1, c1 = ln_forward(add(H, Attn), P["gamma1"], P["beta1"], eps)
    Z = [[z + b for z, b in zip(r, P["b_1"])] for r in matmul(LN1, P["W_1"])]
    R = [[z if z > 0 else mp.zero for z in r] for r in Z]
    F = [[f + b for f, b in zip(r, P["b_2"])] for r in matmul(R, P["W_2"])]
    LN2, c2 = ln_forward(add(LN1, F), P["gamma2"], P["beta2"], eps)
    return LN2, dict(H=H, Q=Q, K=K, V=V, A=A, O=O, LN1=LN1, c1=c1, Z=Z, R=R, c2=c2)


def block_backward(gY, P, c, heads):
    """∂loss/∂(block input) and every block parameter's gradient, from ∂loss/∂(block output)."""
    H, T, d = c["H"], len(c["H"]), len(c["H"][0])
    dk = d // heads
    scale = 1 / mp.sqrt(dk)
    G = {}
    gH2, G["gamma2"], G["beta2"] = ln_backward(gY, P["gamma2"], c["c2"])
    gF = gH2                                                 # H2 = LN1 + F
    G["b_2"] = col_sums(gF)
    G["W_2"] = t_matmul(c["R"], gF)
    gR = matmul_t(gF, P["W_2"])
    gZ = [[g if z > 0 else mp.zero for g, z in zip(gr, zr)] for gr, zr in zip(gR, c["Z"])]
    G["b_1"] = col_sums(gZ)
    G["W_1"] = t_matmul(c["LN1"], gZ)
    gLN1 = add(gH2, matmul_t(gZ, P["W_1"]))
    gH1, G["gamma1"], G["beta1"] = ln_backward(gLN1, P["gamma1"], c["c1"])
    if "W_O" in P:                                           # Attn = O·W_O
        G["W_O"] = t_matmul(c["O"], gH1)
        gO = matmul_t(gH1, P["W_O"])
    else:
        gO = gH1
    Q, K, V = c["Q"], c["K"], c["V"]
    gQ = [[mp.zero] * d for _ in range(T)]
    gK = [[mp.zero] * d for _ in range(T)]
    gV = [[mp.zero] * d for _ in range(T)]
    for h in range(heads):
        cols = list(range(h * dk, (h + 1) * dk))
        for t in range(T):
            a = c["A"][h][t]                                 # (t + 1,)
            go = [gO[t][j] for j in cols]
            gA = [mp.fdot(go, [V[s][j] for j in cols]) for s in range(t + 1)]
            dot = mp.fdot(a, gA)
            gS = [w * (g - dot) * scale for w, g in zip(a, gA)]
            for j, gj in zip(cols, go):
                gQ[t][j] = mp.fdot(gS, [K[s][j] for s in range(t + 1)])
                for s in range(t + 1):
                    gK[s][j] += gS[s] * Q[t][j]
                    gV[s][j] += a[s] * gj
    G["W_Q"], G["W_K"], G["W_V"] = t_matmul(H, gQ), t_matmul(H, gK), t_matmul(H, gV)
    gH = add(gH1, add(matmul_t(gQ, P["W_Q"]), add(matmul_t(gK, P["W_K"]), matmul_t(gV, P["W_V"]))))
    return gH, G


def head_rows(spec, tokens, target):
    """(position, target id) of each cross-entropy term: the last position, or every one."""
    T = len(tokens)
    if spec.get("training", {}).get("all_positions", False):
        nxt = list(tokens[1:]) + [target]
        return list(enumerate(nxt))
    return [(T - 1, target)]


def transformer_grads(spec):
    """(loss, {group: gradient as nested lists}) at the current working precision."""
    m, w = spec["model"], spec["weights"]
    d, heads = int(m["d"]), int(m.get("heads", 1))
    eps = num(m.get("ln_eps", Fraction(1, 100000)))
    base = num(m.get("pe_base", Fraction(10000)))
    tokens = ids(spec, spec["data"]["input"])
    target = ids(spec, [spec["data"]["target"]])[0]
    T = len(tokens)
    tied = m.get("tied", True)
    E = mat(w["E"])                                          # (V, d)
    W_out = None if tied else mat(w["W_out"])               # (d, V)
    Ps = [_layer(layer, d) for layer in spec["layer"]]
    PE = positional(T, d, base)
    H = [[x + p for x, p in zip(E[v], pe)] for v, pe in zip(tokens, PE)]
    caches = []
    for P in Ps:
        H, c = block_forward(H, P, heads, eps)
        caches.append(c)
    rows = head_rows(spec, tokens, target)
    n = len(rows)
    loss = mp.zero
    gE = [[mp.zero] * d for _ in E]
    gW_out = None if tied else [[mp.zero] * len(W_out[0]) for _ in range(d)]
    gH = [[mp.zero] * d for _ in range(T)]
    for t, y in rows:
        h = H[t]
        z = [mp.fdot(h, e) for e in E] if tied else [mp.fdot(h, col) for col in transpose(W_out)]
        mz = max(z)
        lse = mz + mp.log(mp.fsum(mp.exp(v - mz) for v in z))
        loss += (lse - z[y]) / n
        gz = [(p - (1 if v == y else 0)) / n for v, p in enumerate(softmax(z))]   # (p − y)/n
        if tied:
            for v, g in enumerate(gz):
                gE[v] = [a + g * x for a, x in zip(gE[v], h)]
            gH[t] = [a + b for a, b in zip(gH[t], [mp.fdot(gz, col) for col in zip(*E)])]
        else:
            for j in range(d):
                gW_out[j] = [a + h[j] * g for a, g in zip(gW_out[j], gz)]
            gH[t] = [a + mp.fdot(gz, r) for a, r in zip(gH[t], W_out)]
    layers = []
    for P, c in zip(reversed(Ps), reversed(caches)):
        gH, G = block_backward(gH, P, c, heads)
        layers.append(G)
    for v, g in zip(tokens, gH):                             # H0 = E[tokens] + PE
        gE[v] = [a + b for a, b in zip(gE[v], g)]
    out = {"E": gE}
    if not tied:
        out["W_out"] = gW_out
    pre = (lambda i: "") if len(Ps) == 1 else (lambda i: f"l{i}.")
    order = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2", "gamma1", "beta1", "gamma2", "beta2", "W_O")
    for i, G in enumerate(reversed(layers)):
        out.update({pre(i) + k: G[k] for k in order if k in G})
    return loss, out


def bigram_grads(spec):
    """(loss, {"E": …, "W": …}): z = x·W, gz = p − y, gW = x ⊗ gz, gE[token] = W·gz."""
    E, W = mat(spec["weights"]["E"]), mat(spec["weights"]["W"])
    tok = ids(spec, spec["data"]["input"])[-1]
    y = ids(spec, [spec["data"]["target"]])[0]
    x = E[tok]
    z = [mp.fdot(x, col) for col in transpose(W)]
    mz = max(z)
    loss = mz + mp.log(mp.fsum(mp.exp(v - mz) for v in z)) - z[y]
    gz = [p - (1 if v == y else 0) for v, p in enumerate(softmax(z))]
    gE = [[mp.zero] * len(x) for _ in E]
    gE[tok] = [mp.fdot(r, gz) for r in W]
    return loss, {"E": gE, "W": [[a * g for g in gz] for a in x]}


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

    ``spec``: a path to a spec TOML or the dict oracle.load_spec reads.  Names
    are symgpt's: ``E[4,1]``, ``W_Q[0,1]`` (one layer), ``l1.W_1[2,3]`` (several),
    the LayerNorm gains and shifts included (γ = 1, β = 0 where the spec omits them).

    >>> loss, g = grads(os.path.join(ROOT, "derivations", "tiny-transformer.toml"), dps=24)
    >>> mpmath.nstr(loss, 24), len(g)
    ('2.46737302749765479995003', 54)
    """
    spec = read(spec)
    with mp.workdps(dps):
        kind = spec["model"]["kind"]
        loss, groups = (transformer_grads if kind == "transformer" else bigram_grads)(spec)
        return loss, _flat(groups)


def param_count(spec) -> int:
    """Parameters symgpt differentiates: every weight, LayerNorm γ and β included.

    >>> param_count(oracle.load_spec(os.path.join(ROOT, "derivations", "tiny-transformer.toml")))
    54
    """
    spec = read(spec)
    m = spec["model"]
    V, d = len(m["vocab"]), int(m["d"])
    if m["kind"] == "bigram":
        return 2 * V * d
    d_ff = int(m["d_ff"])
    per = 3 * d * d + 2 * d * d_ff + d_ff + d + 4 * d
    return V * d + (0 if m.get("tied", True) else d * V) + sum(
        per + (d * d if "W_O" in layer else 0) for layer in spec["layer"])


def forward_macs(spec) -> int:
    """Multiply-adds of the forward pass: the operation count the benchmark's slopes use.

    Per block 3Td² (Q, K, V) + T(T+1)d (causal scores and A·V: Σ_t (t+1) d_k per head,
    twice) + Td² with W_O + 2T·d·d_ff (FFN); the head n·V·d for its n rows.  Softmax,
    LayerNorm and the positional encoding are O(T·d) and left out.

    >>> forward_macs(oracle.load_spec(os.path.join(ROOT, "derivations", "tiny-transformer.toml")))
    80
    """
    spec = read(spec)
    m = spec["model"]
    V, d = len(m["vocab"]), int(m["d"])
    if m["kind"] == "bigram":
        return V * d
    T, d_ff = len(spec["data"]["input"]), int(m["d_ff"])
    n = T if spec.get("training", {}).get("all_positions", False) else 1
    per = 3 * T * d * d + T * (T + 1) * d + 2 * T * d * d_ff
    return sum(per + (T * d * d if "W_O" in layer else 0) for layer in spec["layer"]) + n * V * d


def main(argv=None):
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default=os.path.join(ROOT, "derivations", "tiny-transformer.toml"))
    ap.add_argument("--dps", type=int, default=50)
    a = ap.parse_args(argv)
    t = time.perf_counter()
    loss, g = grads(a.spec, a.dps)
    dt = time.perf_counter() - t
    print(f"loss = {mpmath.nstr(loss, a.dps)}   ({len(g)} gradients in {dt:.3f} s)")
    for k, v in list(g.items())[:8]:
        print(f"  d loss / d {k} = {mpmath.nstr(v, a.dps)}")


if __name__ == "__main__":
    main()
