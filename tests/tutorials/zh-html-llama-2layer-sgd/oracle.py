#!/usr/bin/env python3
"""Independent oracle for zh-html-llama-2layer-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key

Model (Llama, pre-norm): X = E[ids]; per block l: N = RMS(H) (γ = 1, ε = 1e-6, h / √(mean(h²) + ε));
Q, K, V = N·W_Q, N·W_K, N·W_V; RoPE in Hugging Face's rotate_half convention (two heads of width 2:
each head's pair (0, 1) turned by the angle t·1 rad, t counted from 0); S[h,t,s] = q̃·k̃ / √2;
causal softmax A; heads = A·V (side by side); Attn = heads·W_O; H1 = H + Attn; N2 = RMS(H1);
Z = N2·W_1 (gate), U = N2·W_3 (up), R = SiLU(Z) ⊙ U, F = R·W_2 (down); H2 = H1 + F.
Final RMS of the last block's H2 at the last position, logits = h_final·W_out, softmax,
loss = −ln p[茶].  Gradients by a small reverse-mode automatic differentiation over mpf scalars
written here; one SGD step θ − 0.05·g on E, W_out and every block matrix (the RMSNorm gains stay 1).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import sys
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
    __slots__ = ("val", "grad", "parents")

    def __init__(self, val, parents=()):
        self.val = val if isinstance(val, mp.mpf) else mp.mpf(val)
        self.grad = mp.mpf(0)
        self.parents = parents          # tuple of (Var, local derivative)

    def __add__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val + o.val, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __neg__(self):
        return Var(-self.val, ((self, -1),))

    def __sub__(self, o):
        return self + (-(o if isinstance(o, Var) else Var(o)))

    def __rsub__(self, o):
        return Var(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val * o.val, ((self, o.val), (o, self.val)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, Var) else Var(o)
        return Var(self.val / o.val, ((self, 1 / o.val), (o, -self.val / o.val ** 2)))


def vexp(a: Var) -> Var:
    e = mp.exp(a.val)
    return Var(e, ((a, e),))


def vlog(a: Var) -> Var:
    return Var(mp.log(a.val), ((a, 1 / a.val),))


def vsqrt(a: Var) -> Var:
    r = mp.sqrt(a.val)
    return Var(r, ((a, 1 / (2 * r)),))


def backward(out: Var) -> None:
    order, seen = [], set()
    stack = [(out, False)]
    while stack:
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
    out.grad = mp.mpf(1)
    for node in reversed(order):
        for p, local in node.parents:
            p.grad += node.grad * local


# ---------------------------------------------------------------- the spec's weights

VOCAB = ["我们", "喜欢", "喝", "茶", "咖啡"]
IDS = [0, 1, 2]
TARGET = 3
EPS = mp.mpf("1e-6")
LR = mp.mpf("0.05")

W0 = {
    "E": [[0.45, -0.21, 0.32, 0.13], [-0.18, 0.52, 0.24, -0.35], [0.27, 0.14, -0.43, 0.36],
          [0.11, -0.38, 0.22, 0.47], [-0.34, 0.26, 0.15, -0.12]],
    "W_out": [[0.32, -0.25, 0.14, 0.41, -0.12], [-0.16, 0.38, 0.23, -0.31, 0.27],
              [0.21, 0.12, -0.36, 0.25, 0.44], [0.43, -0.14, 0.18, 0.35, -0.22]],
    "l0.W_Q": [[0.31, -0.14, 0.22, 0.15], [0.12, 0.35, -0.21, 0.24], [-0.25, 0.18, 0.33, 0.11], [0.16, 0.23, -0.12, 0.34]],
    "l0.W_K": [[0.24, 0.13, -0.32, 0.21], [-0.15, 0.28, 0.14, 0.36], [0.33, -0.22, 0.26, 0.12], [0.11, 0.34, 0.17, -0.25]],
    "l0.W_V": [[0.42, -0.13, 0.21, 0.16], [0.14, 0.31, -0.24, 0.22], [-0.23, 0.15, 0.36, 0.12], [0.26, 0.21, 0.13, -0.34]],
    "l0.W_O": [[0.35, 0.12, -0.21, 0.14], [-0.13, 0.28, 0.16, 0.23], [0.22, -0.17, 0.31, 0.12], [0.15, 0.24, 0.13, -0.26]],
    "l0.W_1": [[0.23, -0.31, 0.14, 0.42, -0.15, 0.26], [0.34, 0.12, -0.22, 0.15, 0.31, -0.13],
               [-0.12, 0.25, 0.33, -0.24, 0.16, 0.41], [0.21, 0.36, 0.13, 0.22, -0.27, 0.14]],
    "l0.W_3": [[0.15, 0.22, -0.34, 0.13, 0.27, 0.31], [-0.26, 0.14, 0.21, 0.35, -0.12, 0.23],
               [0.32, -0.15, 0.12, 0.24, 0.41, -0.22], [0.13, 0.33, 0.25, -0.16, 0.22, 0.14]],
    "l0.W_2": [[0.24, -0.13, 0.32, 0.15], [0.16, 0.27, -0.14, 0.33], [-0.21, 0.34, 0.12, 0.26],
               [0.35, 0.11, 0.23, -0.18], [0.13, -0.25, 0.36, 0.21], [0.27, 0.22, -0.16, 0.12]],
    "l1.W_Q": [[0.22, 0.31, -0.13, 0.25], [-0.17, 0.24, 0.32, 0.14], [0.35, -0.12, 0.21, 0.16], [0.13, 0.26, 0.15, -0.33]],
    "l1.W_K": [[0.33, -0.16, 0.24, 0.12], [0.21, 0.32, -0.15, 0.27], [-0.14, 0.23, 0.31, 0.18], [0.26, 0.11, -0.22, 0.34]],
    "l1.W_V": [[0.16, 0.34, -0.12, 0.23], [0.31, -0.21, 0.25, 0.14], [0.13, 0.22, 0.36, -0.17], [-0.24, 0.15, 0.11, 0.32]],
    "l1.W_O": [[0.27, -0.15, 0.13, 0.32], [0.14, 0.36, -0.23, 0.11], [-0.18, 0.21, 0.34, 0.25], [0.33, 0.12, 0.16, -0.21]],
    "l1.W_1": [[0.31, 0.14, -0.25, 0.22, 0.36, -0.12], [-0.13, 0.27, 0.34, 0.16, -0.21, 0.25],
               [0.24, -0.32, 0.15, 0.38, 0.12, 0.21], [0.16, 0.23, 0.31, -0.14, 0.25, 0.33]],
    "l1.W_3": [[0.26, -0.14, 0.33, 0.12, 0.21, 0.17], [0.13, 0.35, -0.16, 0.24, 0.31, -0.22],
               [-0.21, 0.16, 0.25, 0.34, -0.13, 0.28], [0.34, 0.22, 0.14, -0.27, 0.15, 0.12]],
    "l1.W_2": [[0.21, 0.33, -0.14, 0.16], [-0.24, 0.15, 0.27, 0.32], [0.32, -0.11, 0.23, 0.14],
               [0.15, 0.26, 0.35, -0.22], [0.28, -0.17, 0.12, 0.31], [-0.13, 0.24, 0.16, 0.25]],
}
W0 = {k: [[mp.mpf(str(x)) for x in row] for row in m] for k, m in W0.items()}


# ---------------------------------------------------------------- forward pass

def vm(a, B):
    """A row vector (list of Var) times a matrix of Var."""
    return [_dot(a, [B[i][j] for i in range(len(B))]) for j in range(len(B[0]))]


def _dot(xs, ys):
    acc = xs[0] * ys[0]
    for x, y in zip(xs[1:], ys[1:]):
        acc = acc + x * y
    return acc


def rms(h):
    ms = _dot(h, h) / len(h)
    den = vsqrt(ms + EPS)
    return ms, den, [x / den for x in h]


def silu(z):
    return z / (1 + vexp(-z))


def forward(P):
    """P: parameter name -> matrix of Var. Returns every intermediate (Var) in a dict."""
    T, d, dk = len(IDS), 4, 2
    out = {}
    H = [[P["E"][i][j] for j in range(d)] for i in IDS]
    out["X"] = H
    for l in (0, 1):
        pre = f"l{l}."
        ms1, den1, N = zip(*[rms(h) for h in H])
        Q = [vm(n, P[pre + "W_Q"]) for n in N]
        K = [vm(n, P[pre + "W_K"]) for n in N]
        Vv = [vm(n, P[pre + "W_V"]) for n in N]

        def rope(rowv, t):
            c, s = mp.cos(t), mp.sin(t)
            r = []
            for h in range(2):
                a, b = rowv[dk * h], rowv[dk * h + 1]
                r += [a * c - b * s, b * c + a * s]
            return r

        Qr = [rope(Q[t], t) for t in range(T)]
        Kr = [rope(K[t], t) for t in range(T)]
        S = [[[_dot(Qr[t][dk * h:dk * h + dk], Kr[s][dk * h:dk * h + dk]) / mp.sqrt(dk) for s in range(T)]
              for t in range(T)] for h in range(2)]
        A, Aden = [], []
        for h in range(2):
            Ah, Dh = [], []
            for t in range(T):
                ex = [vexp(S[h][t][s]) for s in range(t + 1)]
                den = ex[0]
                for e in ex[1:]:
                    den = den + e
                Dh.append(den)
                Ah.append([e / den for e in ex] + [Var(0)] * (T - t - 1))
            A.append(Ah)
            Aden.append(Dh)
        heads = [[_dot([A[j // dk][t][s] for s in range(t + 1)], [Vv[s][j] for s in range(t + 1)]) for j in range(d)]
                 for t in range(T)]
        Attn = [vm(r, P[pre + "W_O"]) for r in heads]
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        ms2, den2, N2 = zip(*[rms(h) for h in H1])
        Z = [vm(n, P[pre + "W_1"]) for n in N2]
        U = [vm(n, P[pre + "W_3"]) for n in N2]
        SZ = [[silu(z) for z in row] for row in Z]
        R = [[SZ[t][k] * U[t][k] for k in range(6)] for t in range(T)]
        F = [vm(r, P[pre + "W_2"]) for r in R]
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        out.update({pre + "ms1": list(ms1), pre + "rms1": list(den1), pre + "LN1": list(N), pre + "Q": Q,
                    pre + "K": K, pre + "V": Vv, pre + "Q_rot": Qr, pre + "K_rot": Kr, pre + "S": S,
                    pre + "A_den": Aden, pre + "A": A, pre + "Attn_heads": heads, pre + "Attn": Attn,
                    pre + "H1": H1, pre + "ms2": list(ms2), pre + "rms2": list(den2), pre + "LN2": list(N2),
                    pre + "Z": Z, pre + "U": U, pre + "SiLU": SZ, pre + "R": R, pre + "F": F, pre + "H2": H2})
        H = H2
    msf, denf, hf = rms(H[T - 1])
    logits = vm(hf, P["W_out"])
    ex = [vexp(z) for z in logits]
    se = ex[0]
    for e in ex[1:]:
        se = se + e
    p = [e / se for e in ex]
    loss = -vlog(p[TARGET])
    out.update(ms_f=msf, rms_f=denf, h_final=hf, logits=logits, exp_logits=ex, sum_exp=se, p=p, loss=loss)
    return out


def run(weights):
    P = {k: [[Var(x) for x in row] for row in m] for k, m in weights.items()}
    f = forward(P)
    backward(f["loss"])
    grads = {k: [[v.grad for v in row] for row in m] for k, m in P.items()}
    return f, grads, P


def val(x):
    return x.val if isinstance(x, Var) else x


# ---------------------------------------------------------------- every quantity the document prints

def quantities():
    f, g, P = run(W0)
    new = {k: [[W0[k][i][j] - LR * g[k][i][j] for j in range(len(W0[k][0]))] for i in range(len(W0[k]))] for k in W0}
    f1, _, _ = run(new)
    q = {}

    def put(name, arr, prefix=""):
        def rec(a, idx):
            if isinstance(a, (list, tuple)):
                for i, x in enumerate(a):
                    rec(x, idx + [i])
            else:
                q[prefix + name + ("[" + ",".join(map(str, idx)) + "]" if idx else "")] = val(a)
        rec(arr, [])

    for k in ("X",):
        put(k, f[k])
    for l in (0, 1):
        pre = f"l{l}."
        for k in ("ms1", "LN1", "Q", "K", "V", "Q_rot", "K_rot", "S", "A_den", "A", "Attn_heads", "Attn", "H1",
                  "ms2", "LN2", "Z", "U", "R", "F", "H2"):
            put(pre + k, f[pre + k])
        for k in ("rms1", "rms2", "SiLU"):
            put(pre + k, f[pre + k])
    put("ms_f[2]", f["ms_f"])
    put("h_final", f["h_final"])
    for j in range(4):
        q[f"LN_f[2,{j}]"] = f["h_final"][j].val
    for v, tok in enumerate(VOCAB):
        q[f"logits[{tok}]"] = f["logits"][v].val
        q[f"exp(logits[{tok}])"] = f["exp_logits"][v].val
        q[f"p[{tok}]"] = f["p"][v].val
        q[f"grad_logits[{tok}]"] = f["logits"][v].grad
        q[f"sgd[1].p[{tok}]"] = f1["p"][v].val
        q[f"sgd[1].logits[{tok}]"] = f1["logits"][v].val
    q["sum_exp"] = f["sum_exp"].val
    q["loss"] = f["loss"].val
    q["sgd[1].loss"] = f1["loss"].val
    q["lr"] = LR
    q["ln_eps"] = EPS
    for k, m in W0.items():
        for i, row in enumerate(m):
            for j, x in enumerate(row):
                jj = VOCAB[j] if k == "W_out" else j
                ii = VOCAB[i] if k == "E" else i
                q[f"{k}[{ii},{jj}]"] = x
                q[f"grad_{k}[{ii},{jj}]"] = g[k][i][j]
                q[f"sgd[1].{k}[{ii},{jj}]"] = new[k][i][j]
    # a few of the hidden states the text also names, as expressions
    for l in (0, 1):
        q[f"sqrt(l{l}.ms1[2] + ln_eps)"] = f[f"l{l}.rms1"][2].val
    q["sqrt(ms_f[2] + ln_eps)"] = f["rms_f"].val
    return q


# ---------------------------------------------------------------- the key

DOC_FIGURES = [  # every correct figure of a model quantity in DOC.html, as printed, with its quantity
    ('0.2450', 'p[茶]'),
    ('1.4063', 'loss'),
    ('−0.965', 'grad_W_out[3,茶]'),
    ('0.428', 'l1.A[0,2,1]'),
    ('0.8464', 'l0.LN1[2,0]'),
    ('−1.3480', 'l0.LN1[2,2]'),
    ('1.1286', 'l0.LN1[2,3]'),
    ('0.10175', 'l0.ms1[2]'),
    ('0.3190', 'sqrt(l0.ms1[2] + ln_eps)'),
    ('−0.2844', 'l0.S[0,2,0]'),
    ('−0.1401', 'l0.S[0,2,1]'),
    ('−0.0744', 'l0.S[0,2,2]'),
    ('0.295', 'l0.A[0,2,0]'),
    ('0.341', 'l0.A[0,2,1]'),
    ('0.364', 'l0.A[0,2,2]'),
    ('−0.0014', 'l0.S[1,2,0]'),
    ('−0.2626', 'l0.S[1,2,1]'),
    ('0.0908', 'l0.S[1,2,2]'),
    ('0.349', 'l0.A[1,2,0]'),
    ('0.269', 'l0.A[1,2,1]'),
    ('0.383', 'l0.A[1,2,2]'),
    ('38.3%', 'l0.A[1,2,2]'),
    ('−0.1114', 'l0.R[2,0]'),
    ('−0.0586', 'l0.R[2,1]'),
    ('0.0095', 'l0.R[2,2]'),
    ('−0.0898', 'l0.R[2,3]'),
    ('−0.0012', 'l0.R[2,4]'),
    ('−0.0408', 'l0.R[2,5]'),
    ('0.9073', 'l1.LN1[2,0]'),
    ('0.5361', 'l1.LN1[2,1]'),
    ('−1.2916', 'l1.LN1[2,2]'),
    ('1.1050', 'l1.LN1[2,3]'),
    ('−0.0837', 'l1.S[0,2,0]'),
    ('0.2573', 'l1.S[0,2,1]'),
    ('−0.2143', 'l1.S[0,2,2]'),
    ('0.305', 'l1.A[0,2,0]'),
    ('0.267', 'l1.A[0,2,2]'),
    ('0.0016', 'l1.S[1,2,1]'),
    ('−0.0570', 'l1.S[1,2,2]'),
    ('0.372', 'l1.A[1,2,0]'),
    ('0.323', 'l1.A[1,2,1]'),
    ('0.305', 'l1.A[1,2,2]'),
    ('0.1368', 'l1.R[2,0]'),
    ('0.0950', 'l1.R[2,1]'),
    ('0.0151', 'l1.R[2,2]'),
    ('0.0268', 'l1.R[2,3]'),
    ('−0.0058', 'l1.R[2,5]'),
    ('1.2105', 'h_final[0]'),
    ('0.5871', 'h_final[1]'),
    ('−0.7460', 'h_final[2]'),
    ('1.2780', 'h_final[3]'),
    ('0.6863', 'logits[我们]'),
    ('0.2739', 'p[我们]'),
    ('−0.3480', 'logits[喜欢]'),
    ('0.0973', 'p[喜欢]'),
    ('0.8031', 'logits[喝]'),
    ('0.3078', 'p[喝]'),
    ('0.5751', 'logits[茶]'),
    ('−0.5962', 'logits[咖啡]'),
    ('0.0760', 'p[咖啡]'),
    ('7.2533', 'sum_exp'),
    ('0.2739', 'grad_logits[我们]'),
    ('0.0973', 'grad_logits[喜欢]'),
    ('0.3078', 'grad_logits[喝]'),
    ('0.0760', 'grad_logits[咖啡]'),
    ('−0.914', 'grad_W_out[0,茶]'),
    ('0.1688', 'grad_l1.W_O[3,1]'),
    ('−0.0544', 'grad_l1.W_2[0,0]'),
    ('0.1499', 'grad_l1.W_2[4,1]'),
    ('31.9%', 'sgd[1].p[茶]'),
    ('0.3194', 'sgd[1].p[茶]'),
    ('1.1412', 'sgd[1].loss'),
    ('0.27', 'X[2,0]'),
    ('0.14', 'X[2,1]'),
    ('−0.43', 'X[2,2]'),
    ('0.36', 'X[2,3]'),
    ('0.35', 'W_out[3,茶]'),
    ('0.05', 'lr'),
]


def check_document(values) -> int:
    """Every correct figure of DOC.html is the rounding, half away from zero, of its quantity."""
    bad = 0
    for printed, ref in DOC_FIGURES:
        p = printed.replace("\u2212", "-")
        v = values[ref] * (100 if p.endswith("%") else 1)
        places = len(p.rstrip("%").split(".")[1]) if "." in p else 0
        right = rnd(v, places) + ("%" if p.endswith("%") else "")
        if right != p:
            bad += 1
            print(f"  DOCUMENT FIGURE {printed} is not the rounding of {ref} = {mp.nstr(v, 15)}")
    print(f"document: {len(DOC_FIGURES)} correct figures checked, {bad} wrong")
    return bad


def main() -> int:
    values = quantities()
    doc_bad = check_document(values)
    assert doc_bad == 0, f"{doc_bad} document figures are not correct roundings"
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`").replace("\u2212", "-")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%") or (len(cells) == 7 and cells[4].strip("`").endswith("%"))
        v = values[ref] * (100 if pct else 1)
        shown = cells[4].strip("`").replace("\u2212", "-") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").rstrip("%").replace("\u2212", "-"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    assert rows, "no KEY.md rows"
    assert bad == 0, f"{bad} key rows disagree"
    return 0


if __name__ == "__main__":
    sys.exit(main())
