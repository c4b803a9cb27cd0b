"""The model as tensor operations: every named quantity of :mod:`symgpt.engine.models`, one tensor at a time.

:class:`Net` plans the forward pass and the reverse pass of a spec on one
example as a list of stages; each stage fills one or more named groups
(``H0``, ``l0.S``, ``grad_W_Q``, …) with the same names, shapes and meanings
as the SymPy graph of :func:`symgpt.engine.models.differentiated`, so a quantity
means the same whichever path computes it.  Matrix products run in
python-flint (:mod:`symgpt.core.tensor`); the adjoint of each operation kind is
the rule :mod:`symgpt.engine.rules` derives with SymPy on generic symbols, applied
per element.  No SymPy expression is built per scalar: the graph is built
only when someone asks for a closed form (:class:`symgpt.derivation.Derivation`).

>>> from symgpt.engine.spec import load_spec
>>> net = Net(load_spec("derivations/bigram.toml"))
>>> net.groups["grad_W"].shape, [st.outputs for st in net.stages][0]
((2, 3), ('x', 'z'))
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy
from flint import fmpq

from ..core import graph, numeric
from ..core.numeric import to_flint
from ..core.tensor import ONE, ZERO, add, col_sums, mm, scale, total, transpose, zeros
from . import rules

MEANING = {
    "E": ("token embedding matrix (V × d)", ("v", "j")),
    "W": ("output projection (d × V)", ("j", "v")),
    "W_out": ("untied LM head (d × V)", ("j", "v")),
    "W_Q": ("query projection (d × d)", ("i", "j")),
    "W_K": ("key projection (d × d)", ("i", "j")),
    "W_V": ("value projection (d × d)", ("i", "j")),
    "W_O": ("attention output projection (d × d)", ("i", "j")),
    "W_1": ("FFN first layer (d × d_ff)", ("j", "k")),
    "b_1": ("FFN first bias (d_ff)", ("k",)),
    "W_2": ("FFN second layer (d_ff × d)", ("k", "j")),
    "b_2": ("FFN second bias (d)", ("j",)),
    "gamma1": ("LayerNorm 1 gain γ (d)", ("j",)),
    "beta1": ("LayerNorm 1 shift β (d)", ("j",)),
    "gamma2": ("LayerNorm 2 gain γ (d)", ("j",)),
    "beta2": ("LayerNorm 2 shift β (d)", ("j",)),
}
"""Meaning and axis letters of every parameter group (without its layer prefix)."""


class Group(graph.Group):
    """A named tensor (:class:`symgpt.core.graph.Group`) whose node names are made when first asked for."""

    def __init__(self, name, shape, meaning, axes):
        super().__init__(name, tuple(shape), meaning, tuple(axes), None)

    @property
    def names(self) -> list:
        """Every node name of the tensor, row by row (``H0[0,0]``, ``H0[0,1]``, …)."""
        if self._names is None:
            idx = [()]
            for n in self.shape:
                idx = [i + (k,) for i in idx for k in range(n)]
            self._names = [f"{self.name}[{','.join(map(str, i))}]" if i else self.name for i in idx]
        return self._names

    @names.setter
    def names(self, value) -> None:
        self._names = value


@dataclass
class Stage:
    """One step of the computation: fills ``outputs`` (group names) from earlier groups."""
    outputs: tuple
    run: object  # run(v: dict, ev) -> None; ev decides ReLU signs


def _base(group: str) -> str:
    return group.rpartition(".")[2]


def _q(x) -> fmpq:
    return to_flint(x) if not isinstance(x, fmpq) else x


class Net:
    """The forward and reverse computation of ``spec`` on one example, per tensor.

    ``groups`` are the named tensors in definition order (forward, then the
    adjoints ``grad_…``); ``stages`` compute them in that order.
    """

    def __init__(self, spec, tokens=None, target=None, gradients=True):
        self.spec = spec
        self.tokens = tuple(spec.input if tokens is None else tokens)
        self.target = spec.target if target is None else target
        self.gradients = gradients
        self.groups: dict[str, Group] = {}
        self.stages: list[Stage] = []
        self.params = list(spec.params)
        self._exact_params: dict | None = None
        for name in self.params:
            meaning, axes = MEANING[_base(name)]
            vals = spec.params[name]
            shape = (len(vals), len(vals[0])) if vals and isinstance(vals[0], list) else (len(vals),)
            self.group(name, shape, meaning, axes)
        if spec.kind == "transformer":
            self._transformer()
        else:
            self._bigram()

    # -- planning ---------------------------------------------------------------
    def group(self, name, shape, meaning, axes) -> None:
        self.groups[name] = Group(name, tuple(shape), meaning, tuple(axes))

    def stage(self, outputs, run) -> None:
        self.stages.append(Stage(tuple(outputs), run))

    def grad_group(self, name: str, meaning: str | None = None) -> str:
        g = self.groups[name]
        self.group("grad_" + name, g.shape, meaning or f"∂loss/∂{name}", g.axes)
        return "grad_" + name

    def leaf_values(self, leaves: dict | None) -> dict:
        """The parameters as tensors of fmpq (the spec's values) or of the given leaves (by node name).

        The spec's values are converted once per model (stages only read them)."""
        if self._exact_params is None:
            self._exact_params = {
                name: [[_q(x) for x in row] for row in vals] if vals and isinstance(vals[0], list)
                else [_q(x) for x in vals] for name, vals in self.spec.params.items()}
        if not leaves:
            return dict(self._exact_params)
        v = {}
        for name, X in self._exact_params.items():
            if X and isinstance(X[0], list):
                v[name] = [[leaves.get(f"{name}[{i},{j}]", x) for j, x in enumerate(row)] for i, row in enumerate(X)]
            else:
                v[name] = [leaves.get(f"{name}[{i}]", x) for i, x in enumerate(X)]
        return v

    # -- the bigram ---------------------------------------------------------------
    def _bigram(self):
        s, tok = self.spec, self.tokens[-1]
        self.group("x", (s.d,), "embedding of the input token E[token]", ("j",))
        self.group("z", (s.V,), "logits x·W", ("v",))

        def forward(v, ev):
            v["x"] = list(v["E"][tok])                      # (d,)
            v["z"] = mm([v["x"]], v["W"])[0]                # (V,)
        self.stage(("x", "z"), forward)
        self._softmax_loss("z", [("z", self.target)])
        if not self.gradients:
            return
        self.group("grad_loss", (), "∂loss/∂loss", ())
        gz, gx = self.grad_group("z"), self.grad_group("x")
        gE, gW = self.grad_group("E"), self.grad_group("W")

        def backward(v, ev):
            v["grad_loss"] = ONE
            v[gz] = self._xent_grads(v, [("z", self.target)])[0]
            v[gx] = mm([v[gz]], transpose(v["W"]))[0]       # x·W: ∂/∂x = grad_z·Wᵀ
            v[gW] = mm(transpose([v["x"]]), [v[gz]])        # ∂/∂W = xᵀ·grad_z
            E = zeros(self.groups["E"].shape)
            E[tok] = list(v[gx])
            v[gE] = E
        self.stage(("grad_loss", gz, gx, gE, gW), backward)

    # -- the transformer -------------------------------------------------------------
    def _transformer(self):
        s = self.spec
        T, d, V = len(self.tokens), s.d, s.V
        self.group("X", (T, d), "token embeddings E[token]", ("t", "j"))
        self.group("PE", (T, d), "sinusoidal positional encoding", ("t", "j"))
        self.group("H0", (T, d), "block input H0 = X + PE", ("t", "j"))

        def embed(v, ev):
            v["X"] = [list(v["E"][tok]) for tok in self.tokens]
            v["PE"] = positional(T, d, s.pe_base)
            v["H0"] = add(v["X"], v["PE"])
        self.stage(("X", "PE", "H0"), embed)
        H = "H0"
        for l in range(s.layers):
            H = self._block(s.layer_prefix(l), H)
        self.last = H
        self.group("h_final", (d,), "last position of the last block's LN2", ("j",))
        tied = s.tied
        self.group("logits", (V,), "h_final · E[v] (tied head)" if tied else "h_final · W_out[:, v]", ("v",))
        rows = [("logits", self.target)]
        ats = []
        if s.training.all_positions:
            targets = list(self.tokens[1:])
            for t in range(T - 1):
                self.group(f"logits_at{t}", (V,), f"logits at position {t}", ("v",))
                ats.append((f"logits_at{t}", targets[t], t))
            rows = [(name, tgt) for name, tgt, _ in ats] + rows

        def head(v, ev):
            Hm = v[H]
            v["h_final"] = list(Hm[T - 1])
            W = transpose(v["E"]) if tied else v["W_out"]             # (d, V)
            v["logits"] = mm([v["h_final"]], W)[0]
            for name, _, t in ats:
                v[name] = mm([Hm[t]], W)[0]
        self.stage(("h_final", "logits") + tuple(a[0] for a in ats), head)
        self._softmax_loss("logits", rows)
        if self.gradients:
            self._transformer_backward(H, rows, ats)

    def _block(self, pre: str, H: str) -> str:
        """One post-LN block on the named input ``H``; returns the name of its output LN2."""
        s = self.spec
        T, d, heads = len(self.tokens), s.d, s.heads
        dk = d // heads
        names = {k: pre + k for k in ("Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1", "mu1", "var1",
                                      "LN1", "Z", "R", "F", "H2", "mu2", "var2", "LN2", "W_O")}
        n = names
        has_WO = n["W_O"] in self.spec.params
        self.group(n["Q"], (T, d), "queries H·W_Q", ("t", "j"))
        self.group(n["K"], (T, d), "keys H·W_K", ("t", "j"))
        self.group(n["V"], (T, d), "values H·W_V", ("t", "j"))
        S_shape, S_axes = ((heads, T, T), ("h", "t", "s")) if heads > 1 else ((T, T), ("t", "s"))
        self.group(n["S"], S_shape, "scaled scores Q_h K_hᵀ/√d_k, before the mask", S_axes)
        self.group(n["A_den"], S_shape[:-1], "softmax denominator Σ_{s≤t} exp(S[t,s])", S_axes[:-1])
        self.group(n["A"], S_shape, "attention weights (causal softmax of S)", S_axes)
        O = n["Attn_heads"] if has_WO else n["Attn"]
        self.group(O, (T, d), "attention output: Σ_s A[t,s] V[s], heads concatenated", ("t", "j"))
        if has_WO:
            self.group(n["Attn"], (T, d), "attention output after W_O", ("t", "j"))
        def attention(v, ev):
            rsqrt = numeric.power(fmpq(dk), fmpq(-1, 2))                        # at the working precision
            X = v[H]
            Q, K, Vm = mm(X, v[pre + "W_Q"]), mm(X, v[pre + "W_K"]), mm(X, v[pre + "W_V"])  # (T, d)
            v[n["Q"]], v[n["K"]], v[n["V"]] = Q, K, Vm
            S, den, A, ES = [], [], [], []
            O_cols = [None] * d
            for h in range(heads):
                cols = range(h * dk, (h + 1) * dk)
                Qh = [[r[c] for c in cols] for r in Q]                          # (T, dk)
                Kh = [[r[c] for c in cols] for r in K]
                Sh = scale(mm(Qh, transpose(Kh)), rsqrt)                         # (T, T)
                Eh = [[numeric.exp(Sh[t][u]) for u in range(t + 1)] for t in range(T)]  # exp(S) for s ≤ t
                dh = [total(row) for row in Eh]                                   # (T,)
                Ah = [[(ONE if t == 0 else Eh[t][u] / dh[t]) if u <= t else ZERO for u in range(T)]
                      for t in range(T)]
                Vh = [[r[c] for c in cols] for r in Vm]
                Oh = mm(Ah, Vh)                                                  # (T, dk)
                for i, c in enumerate(cols):
                    O_cols[c] = [Oh[t][i] for t in range(T)]
                S.append(Sh), den.append(dh), A.append(Ah), ES.append(Eh)
            one = heads == 1
            v[n["S"]], v[n["A_den"]], v[n["A"]] = (S[0], den[0], A[0]) if one else (S, den, A)
            v[pre + "_heads"] = (S, den, A, ES)
            v[O] = transpose(O_cols)
            if has_WO:
                v[n["Attn"]] = mm(v[O], v[n["W_O"]])
        self.stage((n["Q"], n["K"], n["V"], n["S"], n["A_den"], n["A"], O) + ((n["Attn"],) if has_WO else ()),
                   attention)
        self.group(n["H1"], (T, d), "first residual H + Attn", ("t", "j"))
        self.stage((n["H1"],), lambda v, ev: v.__setitem__(n["H1"], add(v[H], v[n["Attn"]])))
        LN1 = self._layernorm(pre, 1, n["H1"])
        self.group(n["Z"], (T, s.d_ff), "FFN pre-activation LN1·W_1 + b_1", ("t", "k"))
        self.stage((n["Z"],), lambda v, ev: v.__setitem__(
            n["Z"], [add(r, v[pre + "b_1"]) for r in mm(v[LN1], v[pre + "W_1"])]))
        self.group(n["R"], (T, s.d_ff), "ReLU(Z); ReLU(0) = 0", ("t", "k"))

        def relu(v, ev):
            Z = v[n["Z"]]
            v[n["R"]] = [[ev.relu(f"{n['Z']}[{t},{k}]", z) for k, z in enumerate(row)] for t, row in enumerate(Z)]
        self.stage((n["R"],), relu)
        self.group(n["F"], (T, d), "FFN output R·W_2 + b_2", ("t", "j"))
        self.stage((n["F"],), lambda v, ev: v.__setitem__(
            n["F"], [add(r, v[pre + "b_2"]) for r in mm(v[n["R"]], v[pre + "W_2"])]))
        self.group(n["H2"], (T, d), "second residual LN1 + F", ("t", "j"))
        self.stage((n["H2"],), lambda v, ev: v.__setitem__(n["H2"], add(v[LN1], v[n["F"]])))
        return self._layernorm(pre, 2, n["H2"])

    def _layernorm(self, pre: str, k: int, H: str) -> str:
        """mu, var and LN of the named input (per row, biased variance); returns LN's name."""
        s = self.spec
        T, d = len(self.tokens), s.d
        mu, var, LN = f"{pre}mu{k}", f"{pre}var{k}", f"{pre}LN{k}"
        self.group(mu, (T,), f"mean of H{k} over j", ("t",))
        self.group(var, (T,), f"variance σ² of H{k} over j (biased)", ("t",))
        self.group(LN, (T, d), f"LayerNorm of H{k}", ("t", "j"))
        eps = to_flint(s.ln_eps)
        gamma, beta = f"{pre}gamma{k}", f"{pre}beta{k}"

        flat = rules.layernorm_vanishes(d, s.ln_eps)

        def run(v, ev):
            X, g, b = v[H], v[gamma], v[beta]
            v[mu] = [total(r) / d for r in X]
            v[var] = [total([numeric.power(x - m, fmpq(2)) for x in r]) / d for r, m in zip(X, v[mu])]
            if flat:  # x̂ is constant: 0 for d = 1, ±1 for d = 2 with ε = 0 (by the sign of x_0 − x_1)
                xh = [normalized_flat(ev, H, t, d) for t in range(len(X))]
            else:
                rs = [numeric.power(q + eps, fmpq(-1, 2)) for q in v[var]]       # 1/√(σ² + ε)
                xh = [[(x - m) * r for x in row] for row, m, r in zip(X, v[mu], rs)]
            v[LN] = [[g[j] * x + b[j] for j, x in enumerate(row)] for row in xh]
            v["_xhat_" + LN] = xh
        self.stage((mu, var, LN), run)
        return LN

    # -- loss -------------------------------------------------------------------------
    def _softmax_loss(self, logits: str, rows: list):
        V = self.spec.V
        self.group("sum_exp", (), "Σ_k exp(logits[k])", ())
        self.group("p", (V,), "next-token probabilities softmax(logits)", ("v",))
        self.group("loss", (), "cross-entropy −ln p[target]" if len(rows) == 1
                   else "mean cross-entropy over every position (language-model loss)", ())

        def run(v, ev):
            e = [numeric.exp(z) for z in v[logits]]
            v["sum_exp"] = total(e)
            v["p"] = [x / v["sum_exp"] for x in e]
            ce = ZERO
            for name, t in rows:
                z = v[name]
                ce = ce + (-z[t] + numeric.log(total([numeric.exp(x) for x in z])))
            v["loss"] = ce / len(rows) if len(rows) > 1 else ce
        self.stage(("sum_exp", "p", "loss"), run)

    def _xent_grads(self, v, rows) -> list:
        """∂loss/∂z for every row: the softmax-cross-entropy rule p − y (over the number of rows)."""
        rule, n = rules.softmax_xent().grad_z, fmpq(len(rows))
        out = []
        for name, t in rows:
            z = v[name]
            if name == "logits" or name == "z":
                p = v["p"]
            else:
                e = [numeric.exp(x) for x in z]
                se = total(e)
                p = [x / se for x in e]
            out.append([rule(pv, ONE if j == t else ZERO, n) for j, pv in enumerate(p)])
        return out

    def _transformer_backward(self, H: str, rows: list, ats: list):
        s = self.spec
        T, d, V = len(self.tokens), s.d, s.V
        tied = s.tied
        self.group("grad_loss", (), "∂loss/∂loss", ())
        g_rows = [self.grad_group(name) for name, _ in rows]
        gh = self.grad_group("h_final")

        def head(v, ev):
            v["grad_loss"] = ONE
            for gname, gz in zip(g_rows, self._xent_grads(v, rows)):
                v[gname] = gz
            W = transpose(v["E"]) if tied else v["W_out"]                      # (d, V)
            v[gh] = mm([v["grad_logits"]], transpose(W))[0]                    # grad_z·Wᵀ  (d,)
            gH = zeros((T, d))
            gH[T - 1] = list(v[gh])
            for name, _, t in ats:
                gH[t] = mm([v["grad_" + name]], transpose(W))[0]
            v["grad_" + H] = gH
            # the head's own weights: Σ_rows hᵀ·grad_z
            hs = [v["h_final"]] + [v[H][t] for _, _, t in ats]
            gzs = [v["grad_logits"]] + [v["grad_" + name] for name, _, _ in ats]
            Wg = mm(transpose(hs), gzs)                                        # (d, V)
            v["_head_grad"] = transpose(Wg) if tied else Wg
            if tied:
                v["grad_E_head"] = [[gv * hj for hj in v["h_final"]] for gv in v["grad_logits"]]
        outs = ["grad_loss"] + g_rows + [gh]
        self.grad_group(H)
        outs.append("grad_" + H)
        self.stage(tuple(outs), head)
        for l in reversed(range(s.layers)):
            self._block_backward(s.layer_prefix(l), "H0" if l == 0 else s.layer_prefix(l - 1) + "LN2")
        gX, gPE, gH0 = self.grad_group("X"), self.grad_group("PE"), "grad_H0"
        for name in reversed(self.params):
            self.grad_group(name)
        if tied:
            self.group("grad_E_head", (V, d), "∂L/∂E through the tied head only: (p − y)·h_final", ("v", "j"))

        def embed(v, ev):
            v[gX] = v[gH0]
            v[gPE] = v[gH0]
            gE = [list(r) for r in v["_head_grad"]] if tied else zeros((V, d))
            for t, tok in enumerate(self.tokens):
                gE[tok] = add(gE[tok], v[gH0][t])
            v["grad_E"] = gE
            if not tied:
                v["grad_W_out"] = v["_head_grad"]
        self.stage((gX, gPE, "grad_E") + (("grad_E_head",) if tied else ("grad_W_out",)), embed)

    def _block_backward(self, pre: str, H: str):
        s = self.spec
        T, d, heads = len(self.tokens), s.d, s.heads
        dk = d // heads
        has_WO = pre + "W_O" in s.params
        LN1 = self._layernorm_backward(pre, 2, pre + "H2")   # grad_H2 from grad_LN2
        gF = self.grad_group(pre + "F")
        gR, gZ = self.grad_group(pre + "R"), self.grad_group(pre + "Z")
        gLN1 = self.grad_group(pre + "LN1")
        relu_rule = rules.relu().grad_Z

        def ffn(v, ev):
            G = v["grad_" + pre + "H2"]                                          # (T, d)
            v[gF] = G
            v[gR] = mm(G, transpose(v[pre + "W_2"]))                               # (T, d_ff)
            v["grad_" + pre + "W_2"] = mm(transpose(v[pre + "R"]), G)
            v["grad_" + pre + "b_2"] = col_sums(G)
            Z = v[pre + "Z"]
            v[gZ] = [[relu_rule(g, ev.step(f"{pre}Z[{t},{k}]", Z[t][k])) for k, g in enumerate(row)]
                     for t, row in enumerate(v[gR])]
            v["grad_" + pre + "W_1"] = mm(transpose(v[LN1]), v[gZ])
            v["grad_" + pre + "b_1"] = col_sums(v[gZ])
            v[gLN1] = add(G, mm(v[gZ], transpose(v[pre + "W_1"])))              # residual + FFN path
        self.stage((gF, gR, gZ, gLN1) + tuple("grad_" + pre + w for w in ("W_2", "b_2", "W_1", "b_1")), ffn)
        self._layernorm_backward(pre, 1, pre + "H1")
        gAttn = self.grad_group(pre + "Attn")
        O = pre + ("Attn_heads" if has_WO else "Attn")
        outs = [gAttn]
        if has_WO:
            outs.append(self.grad_group(O))
        gA, gV = self.grad_group(pre + "A"), self.grad_group(pre + "V")
        # with one position A = 1 is constant: S, A_den, Q and K reach no loss, and the graph has no adjoint group
        # for them (their gradients here are exact zeros, kept for W_Q, W_K and H)
        gden, gS, gK, gQ = (self.grad_group(pre + g) if T > 1 else "grad_" + pre + g for g in ("A_den", "S", "K", "Q"))
        gH = "grad_" + H
        if gH not in self.groups:
            self.grad_group(H)
        den_rule = rules.softmax_den()

        def attention(v, ev):
            rsqrt = numeric.power(fmpq(dk), fmpq(-1, 2))
            v[gAttn] = v["grad_" + pre + "H1"]
            if has_WO:
                v["grad_" + O] = mm(v[gAttn], transpose(v[pre + "W_O"]))
                v["grad_" + pre + "W_O"] = mm(transpose(v[O]), v[gAttn])
            GO = v["grad_" + O]                                                    # (T, d)
            S, den, A, ES = v[pre + "_heads"]
            Q, K, Vm = v[pre + "Q"], v[pre + "K"], v[pre + "V"]
            gQc, gKc, gVc = [None] * d, [None] * d, [None] * d
            gAs, gdens, gSs = [], [], []
            for h in range(heads):
                cols = range(h * dk, (h + 1) * dk)
                GOh = [[r[c] for c in cols] for r in GO]                            # (T, dk)
                Vh = [[r[c] for c in cols] for r in Vm]
                gAh = mm(GOh, transpose(Vh))                                        # (T, T)
                gVh = mm(transpose(A[h]), GOh)                                      # (T, dk)
                gdh, gSh = [ZERO] * T, [[ZERO] * T for _ in range(T)]
                for t in range(1, T):                                               # row 0: A = 1, constant
                    e, dn = ES[h][t], den[h][t]
                    gd = total([den_rule.grad_den_term(gAh[t][u], e[u], dn) for u in range(t + 1)])
                    gdh[t] = gd
                    gSh[t][:t + 1] = [den_rule.grad_S(gAh[t][u], e[u], dn, gd) for u in range(t + 1)]
                Qh = [[r[c] for c in cols] for r in Q]
                Kh = [[r[c] for c in cols] for r in K]
                gQh = scale(mm(gSh, Kh), rsqrt)                                     # ∂S/∂Q = K/√d_k
                gKh = scale(mm(transpose(gSh), Qh), rsqrt)
                for i, c in enumerate(cols):
                    gQc[c] = [r[i] for r in gQh]
                    gKc[c] = [r[i] for r in gKh]
                    gVc[c] = [r[i] for r in gVh]
                gAs.append(gAh), gdens.append(gdh), gSs.append(gSh)
            one = heads == 1
            v[gA], v[gden], v[gS] = (gAs[0], gdens[0], gSs[0]) if one else (gAs, gdens, gSs)
            v[gQ], v[gK], v[gV] = transpose(gQc), transpose(gKc), transpose(gVc)
            X = v[H]
            XT = transpose(X)
            v["grad_" + pre + "W_Q"] = mm(XT, v[gQ])
            v["grad_" + pre + "W_K"] = mm(XT, v[gK])
            v["grad_" + pre + "W_V"] = mm(XT, v[gV])
            through = add(add(mm(v[gQ], transpose(v[pre + "W_Q"])), mm(v[gK], transpose(v[pre + "W_K"]))),
                          mm(v[gV], transpose(v[pre + "W_V"])))
            v[gH] = add(v["grad_" + pre + "H1"], through)                           # residual + Q, K, V paths
        outs += ["grad_" + pre + w for w in ("W_Q", "W_K", "W_V")] + (["grad_" + pre + "W_O"] if has_WO else [])
        self.stage(tuple(outs) + (gA, gV, gH) + ((gden, gS, gK, gQ) if T > 1 else ()), attention)

    def _layernorm_backward(self, pre: str, k: int, H: str) -> str:
        """grad_mu, grad_var, grad_H, grad_γ, grad_β from grad_LN (rules.layernorm); returns LN1's name."""
        s = self.spec
        d = s.d
        LN, mu, var = f"{pre}LN{k}", f"{pre}mu{k}", f"{pre}var{k}"
        gamma, beta = f"{pre}gamma{k}", f"{pre}beta{k}"
        if "grad_" + LN not in self.groups:
            self.grad_group(LN)
        gvar, gmu, gH = self.grad_group(var), self.grad_group(mu), self.grad_group(H)
        eps = to_flint(s.ln_eps)
        R = rules.layernorm()
        flat = rules.layernorm_vanishes(d, s.ln_eps)     # LN locally constant: ∂LN/∂H ≡ 0, exactly
        dq = fmpq(d)

        def run(v, ev):
            G, X, g = v["grad_" + LN], v[H], v[gamma]
            out_var, out_mu, out_H = [], [], []
            gg, gb = [ZERO] * d, [ZERO] * d
            for row, x, m, q, xh in zip(G, X, v[mu], v[var], v["_xhat_" + LN]):
                sd = numeric.sqrt(q + eps)                                          # s = √(σ² + ε)
                c = [xj - m for xj in x]
                out_var.append(total([R.grad_var_term(row[j], g[j], c[j], sd) for j in range(d)]))
                out_mu.append(total([R.grad_mu_term(row[j], g[j], sd) for j in range(d)]))
                if flat:
                    out_H.append([ZERO] * d)
                else:
                    a = total([row[j] * g[j] for j in range(d)]) / dq
                    b = total([row[j] * g[j] * c[j] for j in range(d)]) / dq
                    out_H.append([R.grad_x(row[j], g[j], c[j], sd, a, b) for j in range(d)])
                for j in range(d):
                    cj, sj = (xh[j], ONE) if flat else (c[j], sd)  # c/s = x̂, exact when LN is flat
                    gg[j] = gg[j] + R.grad_gamma_term(row[j], cj, sj)
                    gb[j] = gb[j] + row[j]
            v[gvar], v[gmu], v[gH] = out_var, out_mu, out_H
            v["grad_" + gamma], v["grad_" + beta] = gg, gb
        self.stage((gvar, gmu, gH, "grad_" + gamma, "grad_" + beta), run)
        return f"{pre}LN1"




def normalized_flat(ev, H: str, t: int, d: int) -> list:
    """x̂ of row t of a LayerNorm that is locally constant: [0] for d = 1; for d = 2 with ε = 0,
    (σ, −σ) with σ the sign of H[t,0] − H[t,1], decided rigorously (equal entries: σ² = 0, no LayerNorm)."""
    if d == 1:
        return [ZERO]
    x0, x1 = sympy.Symbol(f"{H}[{t},0]", real=True), sympy.Symbol(f"{H}[{t},1]", real=True)
    sg = ev.expr_decision(x0 - x1)
    if sg == 0:
        raise ZeroDivisionError(f"LayerNorm of {H}[{t},:] with ε = 0: its two entries are equal, so σ² = 0")
    return [fmpq(sg), fmpq(-sg)]


def positional(T: int, d: int, base) -> list:
    """PE[t][2i] = sin(t / base^(2i/d)), PE[t][2i+1] = cos(same), exact where rational (row 0 is 0, 1, …).

    >>> positional(2, 2, 10000)[0], positional(2, 2, 10000)[1][0].contains(__import__("flint").arb(1).sin())
    ([0, 1], True)
    """
    base = to_flint(base) if not isinstance(base, (fmpq, int)) else fmpq(base)
    out = []
    for t in range(T):
        row = []
        for j in range(d):
            angle = fmpq(t) / numeric.power(base, fmpq(2 * (j // 2), d)) if t else ZERO
            row.append(numeric.sin(angle) if j % 2 == 0 else numeric.cos(angle))
        out.append(row)
    return out
