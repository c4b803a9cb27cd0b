"""Causal multi-head self-attention with its softmax: Q, K, V, the scores S, their row sums A_den, the weights A.

``S[h,t,s] = Q_h[t]·K_h[s]/√d_k`` for every (t, s), before the mask; ``A[h,t,s] = exp(S[h,t,s]) / A_den[h,t]``
for s ≤ t and 0 for s > t; the output is ``Σ_s A[t,s] V[s]`` with the heads concatenated, then ``·W_O`` when the
model has it.  With one head the head index is left out of the names (``S[1,0]``).

>>> from flint import fmpq
>>> softmax_den_rule().grad_den_term(fmpq(1), fmpq(2), fmpq(4))
-1/8
"""
from __future__ import annotations

import numpy as np
import sympy
from flint import fmpq
from sympy import Mul

from ..core import numeric
from ..core.grid import node_sym, tensor
from ..core.proofs import kept
from ..core.prove import Rule, bilinear, closures, generic, matrix, prove_equal, real, stated
from ..core.tensor import ONE, ZERO, add, col_sums, mm, scale, total, transpose
from . import linear, rope
from .base import Apply, Param, accumulate, plus
from .naming import Name, param
from .softmax_xent import softmax

KIND = "attention"
PARAMS = {
    "W_Q": Param("query projection (d × d)", ("i", "j")),
    "W_K": Param("key projection (d × d)", ("i", "j")),
    "W_V": Param("value projection (d × d)", ("i", "j")),
    "W_O": Param("attention output projection (d × d)", ("i", "j")),
    "b_Q": Param("query bias (d)", ("j",)),
    "b_K": Param("key bias (d)", ("j",)),
    "b_V": Param("value bias (d)", ("j",)),
    "b_O": Param("attention output bias (d)", ("j",)),
}

STATED = {
    # causal softmax row with a named denominator (e = exp(S_s))
    "softmax_den.grad_den_term": lambda gA, e, den: -gA * e / den**2,
    "softmax_den.grad_S": lambda gA, e, den, gden: gA * e / den + gden * e,
    # the scores and the weighted sum (G is the adjoint of the product)
    "scores.grad_Q": lambda gS, K, d_k: gS * K / sympy.sqrt(d_k),
    "scores.grad_K": lambda gS, Q, d_k: gS.T * Q / sympy.sqrt(d_k),
    "attend.grad_A": lambda gO, V: gO * V.T,
    "attend.grad_V": lambda A, gO: A.T * gO,
}
"""The rules as the documents state them, proven equal to SymPy's derivation (the ``*_rule`` functions)."""

N_POSITIONS = 4
"""The causal softmax row size its rule is derived on."""


class _Names:
    """The names one application makes: Q, K, V, S, A_den, A, the concatenated heads and the output."""

    def __init__(self, a: Apply):
        pre = a.pre
        self.Q, self.K, self.V, self.S, self.den, self.A = (pre + n for n in ("Q", "K", "V", "S", "A_den", "A"))
        self.WO = a.param("W_O")
        self.O = pre + "Attn_heads" if self.WO else a.out
        self.out = a.out
        self.heads = a.opt("heads")
        T, d = a.shape
        self.T, self.d, self.dk = T, d, d // self.heads
        one = self.heads == 1
        self.hs = (lambda h, t, s: (t, s)) if one else (lambda h, t, s: (h, t, s))
        self.hd = (lambda h, t: (t,)) if one else (lambda h, t: (h, t))
        self.hts = (lambda i: (0, *i)) if one else (lambda i: i)   # an index of S, A (A_den) as (h, t, s) ((h, t))
        self.rope = a.opt("rope")                                   # the rotary base, or None
        self.kv = a.opt("kv_heads") or self.heads                   # heads of K and V (grouped-query attention)
        self.group = self.heads // self.kv                          # query heads sharing one K, V head
        self.dkv = self.kv * self.dk                                # columns of K and V
        self.Qs, self.Ks = (pre + "Q_rot", pre + "K_rot") if self.rope else (self.Q, self.K)   # what S reads
        self.S_shape = (T, T) if one else (self.heads, T, T)
        self.S_axes = ("t", "s") if one else ("h", "t", "s")

    def kvcol(self, c: int) -> int:
        """The column of K and V that query column c reads: its head's share of its K, V head.

        >>> n = _Names(Apply("attention", "Attn", ("H",), (1, 8), opts=(("heads", 4), ("kv_heads", 2))))
        >>> [n.kvcol(c) for c in range(8)]
        [0, 1, 0, 1, 2, 3, 2, 3]
        """
        h, j = divmod(c, self.dk)
        return (h // self.group) * self.dk + j

    def readers(self, c: int) -> list:
        """The query columns that read column c of K and V."""
        kh, j = divmod(c, self.dk)
        return [h * self.dk + j for h in range(kh * self.group, (kh + 1) * self.group)]

    def projection(self, a: Apply, name: str, role: str, meaning: str) -> Apply:
        """The linear map ``name = H·W (+ b)`` of the weight playing ``role`` (W_Q …) and its bias (b_Q …)."""
        b = a.param("b_" + role[2:])
        return Apply("linear", name, a.ins, a.shape, (("W", a.param(role)),) + ((("b", b),) if b else ()), a.pre,
                     meaning, ("t", "j"))


MEANINGS = {"S": "scaled scores Q_h K_hᵀ/√d_k, before the mask",
            "A_den": "softmax denominator Σ_{s≤t} exp(S[t,s])",
            "A": "attention weights (causal softmax of S)",
            "O": "attention output: Σ_s A[t,s] V[s], heads concatenated",
            "Q_rot": "queries turned by their positions (RoPE)",
            "K_rot": "keys turned by their positions (RoPE)"}


def define(g, a: Apply, T_: dict):
    """Q, K, V, S, A_den, A and the output  (T, d); the full graph keeps per head S, then each row's A_den and A."""
    n = _Names(a)
    T, dk, hs, hd, hts = n.T, n.dk, n.hs, n.hd, n.hts
    syms = dict(T_)
    for name, role, meaning in ((n.Q, "W_Q", "queries H·W_Q"), (n.K, "W_K", "keys H·W_K"),
                                (n.V, "W_V", "values H·W_V")):
        syms[name] = linear.define(g, n.projection(a, name, role, meaning), syms)
    if n.rope:   # the queries and keys turned by their positions (rope.py), before the scores
        syms[n.Qs] = rope.define(g, n.Qs, syms[n.Q], T, dk, n.rope, MEANINGS["Q_rot"])
        syms[n.Ks] = rope.define(g, n.Ks, syms[n.K], T, dk, n.rope, MEANINGS["K_rot"])
    Q, K, V = syms[n.Qs], syms[n.Ks], syms[n.V]
    rsqrt = 1 / sympy.sqrt(dk)

    def score(i):      # S[h,t,s] = Σ_{c in head h} Q[t,c] K[s,c] / √d_k
        h, t, s = hts(i)
        return sympy.Add(*[Mul(Q[t][c], K[s][n.kvcol(c)]) for c in range(h * dk, (h + 1) * dk)]) * rsqrt

    def den(i):        # A_den[h,t] = Σ_{s≤t} exp(S[h,t,s])
        h, t = hts(i)
        return sympy.Add(*[sympy.exp(node_sym(n.S, hs(h, t, s))) for s in range(t + 1)])

    def weight(i):     # row 0 sees one position: its softmax is exactly 1 (and stays exact)
        h, t, s = hts(i)
        if s > t:
            return sympy.S.Zero
        return sympy.S.One if t == 0 else sympy.exp(node_sym(n.S, hs(h, t, s))) / node_sym(n.den, hd(h, t))

    # the consumers: Q[t,c] is read by S[h(c),t,s] for every s, K[s,c] by S[h(c),t,s] for every t;
    # S[h,t,s] by A_den[h,t] and A[h,t,s] when s ≤ t (A's row 0 is 1), A_den[h,t] by A[h,t,s≤t] (t > 0)
    score_uses = [(Q, lambda q: [hs(q[1] // dk, q[0], s) for s in range(T)]),
                  (K, lambda k: [hs(c // dk, t, k[0]) for c in n.readers(k[1]) for t in range(T)])]
    den_uses = [(n.S, lambda i: [hd(*hts(i)[:2])] if hts(i)[2] <= hts(i)[1] else [])]
    weight_uses = [(n.S, lambda i: [i] if 0 < hts(i)[1] and hts(i)[2] <= hts(i)[1] else []),
                   (n.den, lambda i: [hs(*hts(i), s) for s in range(hts(i)[1] + 1)] if hts(i)[1] > 0 else [])]
    if g.lazy:
        tensor(g, n.S, n.S_shape, MEANINGS["S"], n.S_axes, score, score_uses, lambda i: 2 * dk)
        tensor(g, n.den, n.S_shape[:-1], MEANINGS["A_den"], n.S_axes[:-1], den, den_uses, lambda i: hts(i)[1] + 1)
        tensor(g, n.A, n.S_shape, MEANINGS["A"], n.S_axes, weight, weight_uses,
               lambda i: 2 if 0 < hts(i)[1] and hts(i)[2] <= hts(i)[1] else 0)
    else:  # the full graph keeps its order: per head, S, then each row's A_den and A
        g.group(n.S, n.S_shape, MEANINGS["S"], n.S_axes)
        g.group(n.den, n.S_shape[:-1], MEANINGS["A_den"], n.S_axes[:-1])
        g.group(n.A, n.S_shape, MEANINGS["A"], n.S_axes)
        for h in range(n.heads):
            for t in range(T):
                for s in range(T):
                    g.define(_name(n.S, hs(h, t, s)), n.S, hs(h, t, s), score(hs(h, t, s)))
            for t in range(T):
                g.define(_name(n.den, hd(h, t)), n.den, hd(h, t), den(hd(h, t)))
                for s in range(T):
                    g.define(_name(n.A, hs(h, t, s)), n.A, hs(h, t, s), weight(hs(h, t, s)))
    O = tensor(g, n.O, (T, n.d), MEANINGS["O"], ("t", "j"),
               lambda i: sympy.Add(*[Mul(node_sym(n.A, hs(i[1] // dk, i[0], s)), V[s][n.kvcol(i[1])])
                                     for s in range(T)]),
               [(n.A, lambda x: [(hts(x)[1], j) for j in range(hts(x)[0] * dk, (hts(x)[0] + 1) * dk)]),  # head h's
                (V, lambda x: [(t, c) for c in n.readers(x[1]) for t in range(T)])], lambda i: 2 * T)  # columns
    if n.WO is not None:
        syms[n.O] = O
        O = linear.define(g, n.projection(Apply(KIND, n.out, (n.O,), a.shape, a.params, a.pre), n.out, "W_O",
                                          "attention output after W_O"), syms)
    return O


def _name(group, idx):
    return f"{group}[{','.join(map(str, idx))}]" if idx else group


def groups(a: Apply, net) -> None:
    n = _Names(a)
    T, d = n.T, n.d
    net.group(n.Q, (T, d), "queries H·W_Q", ("t", "j"))
    net.group(n.K, (T, n.dkv), "keys H·W_K", ("t", "j"))
    net.group(n.V, (T, n.dkv), "values H·W_V", ("t", "j"))
    if n.rope:
        net.group(n.Qs, (T, d), MEANINGS["Q_rot"], ("t", "j"))
        net.group(n.Ks, (T, n.dkv), MEANINGS["K_rot"], ("t", "j"))
    net.group(n.S, n.S_shape, MEANINGS["S"], n.S_axes)
    net.group(n.den, n.S_shape[:-1], MEANINGS["A_den"], n.S_axes[:-1])
    net.group(n.A, n.S_shape, MEANINGS["A"], n.S_axes)
    net.group(n.O, (T, d), MEANINGS["O"], ("t", "j"))
    if n.WO:
        net.group(n.out, (T, d), "attention output after W_O", ("t", "j"))


def forward(a: Apply, net) -> None:
    n = _Names(a)
    Hn, heads, T, d, dk = a.ins[0], n.heads, n.T, n.d, n.dk
    WQ, WK, WV = a.param("W_Q"), a.param("W_K"), a.param("W_V")
    bQ, bK, bV, bO = (a.param(b) for b in ("b_Q", "b_K", "b_V", "b_O"))

    def run(v, ev):
        rsqrt = numeric.power(fmpq(dk), fmpq(-1, 2))                        # at the working precision
        X = v[Hn]
        Q, K, Vm = (biased(v, mm(X, v[W]), b) for W, b in ((WQ, bQ), (WK, bK), (WV, bV)))   # (T, d)
        v[n.Q], v[n.K], v[n.V] = Q, K, Vm
        if n.rope:
            Q, K = v[n.Qs], v[n.Ks] = rope.rotate(Q, dk, n.rope), rope.rotate(K, dk, n.rope)
        S, den, A, ES = [], [], [], []
        O_cols = [None] * d
        for h in range(heads):
            cols = range(h * dk, (h + 1) * dk)
            Qh = [[r[c] for c in cols] for r in Q]                          # (T, dk)
            Kh = [[r[n.kvcol(c)] for c in cols] for r in K]                 # its K, V head's columns
            Sh = scale(mm(Qh, transpose(Kh)), rsqrt)                         # (T, T)
            Eh = [[numeric.exp(Sh[t][u]) for u in range(t + 1)] for t in range(T)]  # exp(S) for s ≤ t
            dh = [total(row) for row in Eh]                                   # (T,)
            Ah = [[(ONE if t == 0 else Eh[t][u] / dh[t]) if u <= t else ZERO for u in range(T)] for t in range(T)]
            Vh = [[r[n.kvcol(c)] for c in cols] for r in Vm]
            Oh = mm(Ah, Vh)                                                  # (T, dk)
            for i, c in enumerate(cols):
                O_cols[c] = [Oh[t][i] for t in range(T)]
            S.append(Sh), den.append(dh), A.append(Ah), ES.append(Eh)
        one = heads == 1
        v[n.S], v[n.den], v[n.A] = (S[0], den[0], A[0]) if one else (S, den, A)
        v[a.pre + "_heads"] = (S, den, A, ES)
        v[n.O] = transpose(O_cols)
        if n.WO:
            v[n.out] = biased(v, mm(v[n.O], v[n.WO]), bO)
    net.stage((n.Q, n.K, n.V) + ((n.Qs, n.Ks) if n.rope else ()) + (n.S, n.den, n.A, n.O)
              + ((n.out,) if n.WO else ()), run)


def backward(a: Apply, net) -> None:
    """Through W_O, the weighted sum, the causal softmax (A_den a node of its own), the scores and Q, K, V."""
    n = _Names(a)
    Hn, heads, T, d, dk = a.ins[0], n.heads, n.T, n.d, n.dk
    pre = a.pre
    WQ, WK, WV = a.param("W_Q"), a.param("W_K"), a.param("W_V")
    gOut = "grad_" + n.out
    outs = []
    if n.WO:
        outs.append(net.grad_group(n.O))
    gA, gV = net.grad_group(n.A), net.grad_group(n.V)
    # with one position A = 1 is constant: S, A_den, Q and K reach no loss, and the graph has no adjoint group
    # for them (their gradients here are exact zeros, kept for W_Q, W_K and H)
    gden, gS, gK, gQ = (net.grad_group(x) if T > 1 else "grad_" + x for x in (n.den, n.S, n.K, n.Q))
    gKs, gQs = (net.grad_group(x) if T > 1 else "grad_" + x for x in (n.Ks, n.Qs)) if n.rope else (gK, gQ)
    gH = "grad_" + Hn
    gWQ, gWK, gWV = "grad_" + WQ, "grad_" + WK, "grad_" + WV
    gWO = "grad_" + n.WO if n.WO else None
    biases = {r: a.param("b_" + r) for r in ("Q", "K", "V", "O") if a.param("b_" + r)}
    gb = {r: "grad_" + b for r, b in biases.items()}
    den_rule = softmax_den_rule()

    def run(v, ev):
        rsqrt = numeric.power(fmpq(dk), fmpq(-1, 2))
        if n.WO:
            v["grad_" + n.O] = mm(v[gOut], transpose(v[n.WO]))
            accumulate(v, gWO, mm(transpose(v[n.O]), v[gOut]), add)
            if "O" in gb:
                accumulate(v, gb["O"], col_sums(v[gOut]), add)
        GO = v["grad_" + n.O]                                                  # (T, d)
        S, den, A, ES = v[pre + "_heads"]
        Q, K, Vm = v[n.Qs], v[n.Ks], v[n.V]                                    # what the scores read
        gQc, gKc, gVc = [None] * d, [None] * n.dkv, [None] * n.dkv       # K, V: summed over a group's heads
        gAs, gdens, gSs = [], [], []
        for h in range(heads):
            cols = range(h * dk, (h + 1) * dk)
            GOh = [[r[c] for c in cols] for r in GO]                            # (T, dk)
            Vh = [[r[n.kvcol(c)] for c in cols] for r in Vm]
            gAh = mm(GOh, transpose(Vh))                                        # (T, T)
            gVh = mm(transpose(A[h]), GOh)                                      # (T, dk)
            gdh, gSh = [ZERO] * T, [[ZERO] * T for _ in range(T)]
            for t in range(1, T):                                               # row 0: A = 1, constant
                e, dn = ES[h][t], den[h][t]
                gd = total([den_rule.grad_den_term(gAh[t][u], e[u], dn) for u in range(t + 1)])
                gdh[t] = gd
                gSh[t][:t + 1] = [den_rule.grad_S(gAh[t][u], e[u], dn, gd) for u in range(t + 1)]
            Qh = [[r[c] for c in cols] for r in Q]
            Kh = [[r[n.kvcol(c)] for c in cols] for r in K]
            gQh = scale(mm(gSh, Kh), rsqrt)                                     # ∂S/∂Q = K/√d_k
            gKh = scale(mm(transpose(gSh), Qh), rsqrt)
            for i, c in enumerate(cols):
                gQc[c] = [r[i] for r in gQh]
                kc = n.kvcol(c)
                gk, gv = [r[i] for r in gKh], [r[i] for r in gVh]
                gKc[kc] = gk if gKc[kc] is None else add(gKc[kc], gk)
                gVc[kc] = gv if gVc[kc] is None else add(gVc[kc], gv)
            gAs.append(gAh), gdens.append(gdh), gSs.append(gSh)
        one = heads == 1
        v[gA], v[gden], v[gS] = (gAs[0], gdens[0], gSs[0]) if one else (gAs, gdens, gSs)
        v[gQs], v[gKs], v[gV] = transpose(gQc), transpose(gKc), transpose(gVc)
        if n.rope:   # through the rotation: its transpose (rope.rope_rule)
            v[gQ], v[gK] = rope.unrotate(v[gQs], dk, n.rope), rope.unrotate(v[gKs], dk, n.rope)
        XT = transpose(v[Hn])
        accumulate(v, gWQ, mm(XT, v[gQ]), add)
        accumulate(v, gWK, mm(XT, v[gK]), add)
        accumulate(v, gWV, mm(XT, v[gV]), add)
        for r, g in (("Q", gQ), ("V", gV)) + ((("K", gK),) if n.rope else ()):
            if r in gb:
                accumulate(v, gb[r], col_sums(v[g]), add)
        if "K" in gb and not n.rope:   # Σ_t grad_K[t] = Σ_t Q[t]·(Σ_s grad_S[t,s])/√d_k = 0: each row sums to 0
            accumulate(v, gb["K"], [ZERO] * n.dkv, add)   # (softmax_den_rule); turned keys break the shift, not so
        through = add(add(mm(v[gQ], transpose(v[WQ])), mm(v[gK], transpose(v[WK]))), mm(v[gV], transpose(v[WV])))
        accumulate(v, gH, through, add)                                         # the Q, K, V paths
    net.stage(tuple(outs) + (gWQ, gWK, gWV) + ((gWO,) if gWO else ()) + tuple(gb.values()) + (gA, gV, gH)
              + ((gden, gS, gK, gQ) if T > 1 else ()) + ((gKs, gQs) if n.rope and T > 1 else ()), run)


def biased(v: dict, X, b):
    """X with the bias vector ``v[b]`` added to each row (X itself when there is no bias)."""
    return X if b is None else [add(row, v[b]) for row in X]


def rules() -> list:
    return [softmax_den_rule(), scores_rule(), attend_rule(), rope.rope_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): Q, K, V; the scores, row sums and weights of every head; the weighted sum; W_O."""
    n = _Names(a)
    T, d, h, dk = n.T, n.d, n.heads, n.dk
    bias = a.param("b_Q") is not None
    parts = [(3 * T * d, 2 * d + bias), (h * T * T, 2 * dk + 1), (h * T, 2 * T + 2), (h * T * T, 3), (T * d, 2 * T)]
    if n.WO:
        parts.append((T * d, 2 * d + (a.param("b_O") is not None)))
    if n.rope:
        parts.append((2 * T * d, 4))
    return sum(k for k, _ in parts), sum(k * e for k, e in parts)


# ---------------------------------------------------------------- the rules, proven


N_POSITIONS = 4


@kept
def softmax_den_rule() -> Rule:
    """den = Σ_{s≤t} exp(S_s), A_s = exp(S_s)/den: grad_den_term and grad_S (e = exp(S_s)).

    >>> from flint import fmpq
    >>> r = softmax_den_rule()
    >>> r.grad_den_term(fmpq(1), fmpq(2), fmpq(4)), r.grad_S(fmpq(1), fmpq(2), fmpq(4), fmpq(-1, 8))
    (-1/8, 1/4)
    """
    T = N_POSITIONS
    S, gA, e = real(f"S0:{T}"), real(f"gA0:{T}"), sympy.symbols(f"e0:{T}", positive=True)
    den, gden = sympy.Symbol("den", positive=True), sympy.Symbol("gden", real=True)
    g = {"gA": sympy.Symbol("gA", real=True), "e": sympy.Symbol("e", positive=True), "den": den, "gden": gden}
    den_def = sympy.Add(*[sympy.exp(Ss) for Ss in S])
    A = [sympy.exp(Ss) / den for Ss in S]  # den a named node: A depends on it, not on its definition
    fold = {sympy.exp(S[s]): e[s] for s in range(T)}
    ren = [{gA[s]: g["gA"], e[s]: g["e"]} for s in range(T)]
    term = [(gA[s] * sympy.diff(A[s], den)).xreplace(fold) for s in range(T)]
    grad_den_term = generic("softmax_den.grad_den_term", term, ren, stated(STATED, "softmax_den", "grad_den_term", g))
    gS = [(sympy.Add(*[gA[r] * sympy.diff(A[r], S[s]) for r in range(T)])
           + gden * sympy.diff(den_def, S[s])).xreplace(fold) for s in range(T)]
    grad_S = generic("softmax_den.grad_S", gS, ren, stated(STATED, "softmax_den", "grad_S", g))
    # the composite: reverse mode through den equals diff of Σ_r gA_r softmax_r(S)
    composite = sympy.Add(*[gA[r] * sympy.exp(S[r]) / den_def for r in range(T)])
    esum = sympy.Add(*e)
    at_e = {S[r]: sympy.log(e[r]) for r in range(T)}
    gden_total = sympy.Add(*[grad_den_term.xreplace({g["gA"]: gA[r], g["e"]: e[r], den: esum}) for r in range(T)])
    revs = []
    for s in range(T):
        total = sympy.diff(composite, S[s]).xreplace({den_def: esum}).xreplace(at_e)  # exp(S0)² is exp(2·S0)
        rev = grad_S.xreplace({g["gA"]: gA[s], g["e"]: e[s], den: esum, gden: gden_total})
        prove_equal(f"softmax_den: total ∂/∂S_{s} through den", total, rev)
        revs.append(rev)
    # a row's score gradients sum to 0 (the softmax is unchanged by adding one number to a row's scores): so
    # a bias on the keys, which adds q_t·b_K to every score of row t, has the gradient 0 exactly
    prove_equal("softmax_den: Σ_s grad_S[t,s] of a row", sympy.Add(*revs), sympy.S.Zero)
    derived = {"grad_den_term": grad_den_term, "grad_S": grad_S}
    return Rule(
        name="softmax_den",
        forward={"den": den_def, **{f"A[{s}]": A[s] for s in range(T)}},
        symbols={"S0..S3": "scores of the positions s ≤ t", "den": "Σ_{s≤t} exp(S_s) (a named node)",
                 "gA0..gA3": "grad_A[t,s]", "gden": "grad_den = Σ_s grad_den_term", "e": "exp(S_s)",
                 "gA": "grad_A[t,s]"},
        derived=derived,
        checked=(f"grad_den_term = −gA·e/den², grad_S = gA·e/den + gden·e at each of {T} generic positions, and "
                 f"with den and gden substituted they equal diff of Σ gA_r·softmax_r(S) (expand, cancel); "
                 f"their sum over the row is 0"),
        closures=closures(STATED, "softmax_den", derived, g),
    )



@kept
def scores_rule() -> Rule:
    """S = Q Kᵀ/√d_k (every (t, s), before the mask): grad_Q = grad_S·K/√d_k, grad_K = grad_Sᵀ·Q/√d_k.

    >>> scores_rule().derived["grad_K"].shape
    (3, 2)
    """
    T, d_k = 3, 2
    Q, K = matrix("Q", T, d_k), matrix("K", T, d_k)
    Y, derived = bilinear(STATED, "scores", lambda Q, K: Q * K.T / sympy.sqrt(d_k), {"Q": Q, "K": K}, "gS",
                           {"d_k": d_k})
    return Rule(name="scores", forward={"S": Y}, symbols={"Q": f"{T}×{d_k}", "K": f"{T}×{d_k}",
                                                          "gS": f"grad_S, {T}×{T}"},
                derived=derived, checked=f"grad_Q = grad_S·K/√d_k and grad_K = grad_Sᵀ·Q/√d_k entrywise by diff, "
                f"T = {T}, d_k = {d_k}")


@kept
def attend_rule() -> Rule:
    """O = A·V: grad_A = grad_O·Vᵀ, grad_V = Aᵀ·grad_O (A generic, so causal zeros included).

    >>> attend_rule().derived["grad_V"].shape
    (3, 2)
    """
    T, d_v = 3, 2
    A, V = matrix("A", T, T), matrix("V", T, d_v)
    Y, derived = bilinear(STATED, "attend", lambda A, V: A * V, {"A": A, "V": V}, "gO")
    return Rule(name="attend", forward={"O": Y}, symbols={"A": f"{T}×{T}", "V": f"{T}×{d_v}",
                                                          "gO": f"grad_O, {T}×{d_v}"},
                derived=derived, checked=f"grad_A = grad_O·Vᵀ and grad_V = Aᵀ·grad_O entrywise by diff, "
                f"T = {T}, d_v = {d_v}")


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# torch's ``Q_h @ K_h.T / math.sqrt(d_k)`` (√d_k a Python float), the causal softmax (softmax_xent's, the masked
# entries −∞) and ``A_h @ V_h`` per head, the heads concatenated; autograd's adjoints per head, the softmax's
# A ⊙ (g − Σ g·A) in the working type and rounded once.


def softmax_grad(ar, a, g):
    """The softmax's adjoint, row by row: A ⊙ (g − Σ_s g·A).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> softmax_grad(ar, ar.cast([[1, 0]]), ar.cast([[2, 5]])).tolist()   # a row that is one-hot passes nothing
    [[0.0, 0.0]]
    """
    a, g = ar.w(a), ar.w(g)
    return ar.out(a * (g - ar.rowsum(g * a)[..., None]))


def _float_heads(a: Apply) -> tuple:
    """(names, column slice of each head, the causal mask (T, T): True above the diagonal)."""
    n = _Names(a)
    cols = [slice(h * n.dk, (h + 1) * n.dk) for h in range(n.heads)]
    return n, cols, np.triu(np.ones((n.T, n.T), dtype=bool), 1)


def _kv(n, h: int) -> slice:
    """The columns of K and V that query head h reads (its group's K, V head)."""
    kh = h // n.group
    return slice(kh * n.dk, (kh + 1) * n.dk)


def _by_kv(ar, n, parts: list):
    """Per query head (T, d_k) arrays put into K, V's columns, the heads of one group summed in head order (the
    adjoint of repeat_kv)."""
    out = [None] * n.kv
    for h, p in enumerate(parts):
        kh = h // n.group
        out[kh] = p if out[kh] is None else ar.add(out[kh], p)
    return np.concatenate(out, axis=1)


def floats_forward(a: Apply, pipe) -> None:
    """Q, K, V; the scores S (heads, T, T) or (T, T); the weights A; the heads' outputs; ·W_O."""
    n, cols, mask = _float_heads(a)
    H, heads, dk = a.ins[0], n.heads, n.dk
    for name, role in ((n.Q, "W_Q"), (n.K, "W_K"), (n.V, "W_V")):
        _affine(pipe, name, H, a.param(role), a.param("b_" + role[2:]))
    if n.rope:
        for rot, x in ((n.Qs, n.Q), (n.Ks, n.K)):
            pipe.add(rot, [x], lambda ar, X: rope.float_rotate(ar, X, dk, n.rope))

    def scores(ar, Q, K):                        # Q_h K_hᵀ / √d_k
        root = ar.const(ar.host_sqrt(ar.host(dk)))
        S = [ar.div(ar.mm(Q[:, c], K[:, _kv(n, h)].T), root) for h, c in enumerate(cols)]
        return S[0] if heads == 1 else np.stack(S)
    pipe.add(n.S, [n.Qs, n.Ks], scores)
    pipe.add(n.A, [n.S], lambda ar, S: softmax(ar, S, np.broadcast_to(mask, S.shape)))
    pipe.decide(n.A, "causal")

    def attend(ar, A, V):                        # (T, d): Σ_s A[t,s] V[s], heads side by side
        A = A if heads > 1 else A[None]
        return np.concatenate([ar.mm(A[h], V[:, _kv(n, h)]) for h in range(heads)], axis=1)
    pipe.add(n.O, [n.A, n.V], attend)
    if n.WO:
        _affine(pipe, n.out, n.O, n.WO, a.param("b_O"))


def _affine(pipe, name, X, W, b):
    """name = X·W (+ b), as torch's linear layer: the product, then the bias added row by row."""
    if b:
        pipe.add(name, [X, W, b], lambda ar, X_, W_, b_: ar.add(ar.mm(X_, W_), b_))
    else:
        pipe.add(name, [X, W], lambda ar, X_, W_: ar.mm(X_, W_))


def floats_backward(a: Apply, pipe) -> None:
    """Through W_O, the weighted sum, the causal softmax and the scores to Q, K, V, their weights and the input
    (autograd's order there: the V, K and Q paths added to the input's other shares one by one)."""
    n, cols, mask = _float_heads(a)
    H, heads, dk = a.ins[0], n.heads, n.dk
    G = pipe.grad(a.out)
    bias_grad = lambda ar, G_: ar.out(ar.rowsum(ar.w(G_).T))      # Σ over the rows, as linear's
    if n.WO:
        pipe.share(n.WO, [n.O, G], lambda ar, X, G_: ar.mm(X.T, G_))
        if a.param("b_O"):
            pipe.share(a.param("b_O"), [G], bias_grad)
        GO = "grad_" + n.O
        pipe.add(GO, [G, n.WO], lambda ar, G_, W: ar.mm(G_, W.T))
    else:
        GO = G
    gA, gV, gS, gQ, gK = ("grad_" + x for x in (n.A, n.V, n.S, n.Q, n.K))
    hd = (lambda X, h: X) if heads == 1 else (lambda X, h: X[h])

    def per_head(f):
        def run(ar, *v):
            out = [f(ar, h, *v) for h in range(heads)]
            return out[0] if heads == 1 else np.stack(out)
        return run
    pipe.add(gA, [GO, n.V], per_head(lambda ar, h, G_, V: ar.mm(G_[:, cols[h]], V[:, _kv(n, h)].T)))
    pipe.add(gV, [n.A, GO], lambda ar, A, G_: _by_kv(ar, n, [ar.mm(hd(A, h).T, G_[:, c]) for h, c in enumerate(cols)]))
    pipe.add(gS, [n.A, gA], per_head(lambda ar, h, A, G_: np.where(mask, ar.zeros(),
                                                                   softmax_grad(ar, hd(A, h), hd(G_, h)))))

    def qk(which):
        def run(ar, GS, Q, K):
            root = ar.const(ar.host_sqrt(ar.host(dk)))
            out = []
            for h, c in enumerate(cols):
                G_ = ar.div(hd(GS, h), root)
                out.append(ar.mm(G_, K[:, _kv(n, h)]) if which == "Q" else ar.mm(G_.T, Q[:, c]))
            return np.concatenate(out, axis=1) if which == "Q" else _by_kv(ar, n, out)
        return run
    if n.rope:   # the scores' adjoints are the rotated Q's and K's; the rotation's transpose brings them back
        gQs, gKs = "grad_" + n.Qs, "grad_" + n.Ks
        pipe.add(gQs, [gS, n.Qs, n.Ks], qk("Q"))
        pipe.add(gKs, [gS, n.Qs, n.Ks], qk("K"))
        pipe.add(gQ, [gQs], lambda ar, G_: rope.float_rotate(ar, G_, dk, n.rope, -1))
        pipe.add(gK, [gKs], lambda ar, G_: rope.float_rotate(ar, G_, dk, n.rope, -1))
    else:
        pipe.add(gQ, [gS, n.Q, n.K], qk("Q"))
        pipe.add(gK, [gS, n.Q, n.K], qk("K"))
    W = [a.param(r) for r in ("W_Q", "W_K", "W_V")]
    for g, Wn, r in zip((gQ, gK, gV), W, "QKV"):
        pipe.share(Wn, [H, g], lambda ar, X, G_: ar.mm(X.T, G_))
        if a.param("b_" + r):
            pipe.share(a.param("b_" + r), [g], bias_grad)

    def through(ar, acc, GQ, GK, GV, WQ, WK, WV):
        for G_, W_ in ((GV, WV), (GK, WK), (GQ, WQ)):
            acc = plus(ar, acc, ar.mm(G_, W_.T))
        return acc
    pipe.fold(H, [gQ, gK, gV] + W, through)


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

_O_ZH = "注意力输出：Σ_s A[t,s] V[s]，各头拼接"
NAMES = {
    "W_Q": param("d", "d", zh="查询投影矩阵（d × d）"),
    "W_K": param("d", "d_kv", zh="键投影矩阵（d × d）"),     # d_kv = d but with grouped-query attention
    "W_V": param("d", "d_kv", zh="值投影矩阵（d × d）"),
    "W_O": param("d", "d", optional=True),
    "b_Q": param("d", zh="查询偏置（d）", optional=True, decays=False),
    "b_K": param("d_kv", zh="键偏置（d）", optional=True, decays=False),
    "b_V": param("d_kv", zh="值偏置（d）", optional=True, decays=False),
    "b_O": param("d", zh="注意力输出偏置（d）", optional=True, decays=False),
    "Q": Name("queries H·W_Q", "查询 H·W_Q", ("t", "j"), aliases=("q", "query")),
    "K": Name("keys H·W_K", "键 H·W_K", ("t", "j"), aliases=("k", "key")),
    "V": Name("values H·W_V", "值 H·W_V", ("t", "j"), aliases=("v", "value")),
    "S": Name(MEANINGS["S"], "缩放后的注意力分数 Q_h K_hᵀ/√d_k（加掩码之前）", ("t", "s"),
              aliases=("s", "score", "分数"), of=(("exp", ("exp",)),)),
    "A_den": Name(MEANINGS["A_den"], "softmax 的分母 Σ_{s≤t} exp(S[t,s])", ("t",), r"A_{\Sigma}",
                  ("分母", "denominator"), helper=True),
    "A": Name(MEANINGS["A"], "注意力权重（对 S 做因果 softmax）", ("t", "s"),
              aliases=("a", "权重", "attention weight")),
    "Attn_heads": Name(MEANINGS["O"], _O_ZH, ("t", "j"), r"\mathrm{Attn}_{\mathrm{heads}}"),
    "Attn": Name(MEANINGS["O"], _O_ZH, ("t", "j"), r"\mathrm{Attn}", ("attn", "o", "注意力输出", "attention output")),
    "Q_rot": Name(MEANINGS["Q_rot"], "按位置旋转后的查询（RoPE）", ("t", "j"), r"\tilde{Q}", ("q_rot", "rope")),
    "K_rot": Name(MEANINGS["K_rot"], "按位置旋转后的键（RoPE）", ("t", "j"), r"\tilde{K}", ("k_rot", "rope")),
}
"""How its parameters and groups are called (:mod:`symgpt.ops.naming`); S, A_den and A have one head's axes (several
heads put ``h`` first).  A model without W_O has none; with it ``Attn`` is the output after W_O."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {"layout": "attention"}
"""How a document shows it (:mod:`symgpt.documents.transformer`): Q, K and V, the scores, the mask, the
softmax of each row and the weighted sum, head by head."""


def inner(a: Apply) -> tuple:
    """The statistics inside it (each row's softmax denominator), which a picture of the gradient's route
    passes through.

    >>> inner(Apply("attention", "l1.Attn", ("l0.LN2",), (2, 4), pre="l1.", opts=(("heads", 2),)))
    ('l1.A_den',)
    """
    return (_Names(a).den,)
