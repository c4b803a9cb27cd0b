#!/usr/bin/env python3
"""Independent oracle for pt-pdf-llama-gqa-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value, checked against the key

Model (Llama, one block, as SPEC.toml describes it): X = E[ids];
RMSNorm(h) = gamma * h / sqrt(mean(h^2) + eps) (gamma = 1, eps = 1e-5);
LN1 = RMSNorm(X); Q = LN1 W_Q, K = LN1 W_K, V = LN1 W_V (x @ W, W stored in x out);
RoPE in the rotate_half convention, d_k = 2 so theta_0 = 1: a pair (a, b) at position t becomes
(a cos t - b sin t, b cos t + a sin t); 4 query heads, 2 key/value heads, head h reads kv head h // 2;
S = q~ . k~ / sqrt(2), causal softmax A, Attn_heads = A V, Attn = Attn_heads W_O, H1 = X + Attn;
LN2 = RMSNorm(H1); Z = LN2 W_1 (gate), U = LN2 W_3 (up), R = SiLU(Z) * U, F = R W_2 (down);
H2 = H1 + F; LN_f = RMSNorm(H2); h_final = LN_f[T-1]; logits = h_final W_out; p = softmax;
loss = -ln p[target].  Gradients by a small reverse-mode autodiff on mpf scalars (checked by central
differences); one SGD step theta - lr * g on every parameter except the RMSNorm gains; loss after it.
Rounding is half away from zero on the 45-digit decimal of the value.
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


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class N:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = v if isinstance(v, mp.mpf) else mp.mpf(v)
        self.parents = parents
        self.g = mp.mpf(0)

    def __add__(self, o):
        o = lift(o)
        return N(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return N(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return N(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return N(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return N(-self.v, ((self, -1),))


def lift(x):
    return x if isinstance(x, N) else N(mp.mpf(x))


def exp(x):
    e = mp.exp(x.v)
    return N(e, ((x, e),))


def log(x):
    return N(mp.log(x.v), ((x, 1 / x.v),))


def sqrt(x):
    s = mp.sqrt(x.v)
    return N(s, ((x, 1 / (2 * s)),))


def sigmoid_v(v):
    return 1 / (1 + mp.exp(-v))


def silu(x):
    s = sigmoid_v(x.v)
    return N(x.v * s, ((x, s * (1 + x.v * (1 - s))),))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(root):
    order, seen = [], set()
    stack = [(root, False)]
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
    root.g = mp.mpf(1)
    for n in reversed(order):
        for p, local in n.parents:
            p.g += n.g * local


# ---------------------------------------------------------------- the model

SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
IDS = [VOCAB.index(w) for w in SPEC["data"]["input"]]
TARGET = VOCAB.index(SPEC["data"]["target"])
EPS = mp.mpf("1e-5")
LR = mp.mpf("0.1")
HEADS, KV_HEADS, DK = 4, 2, 2
PARAMS = ["E", "W_out", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"]


def exact(x):
    return mp.mpf(str(x))            # the TOML decimal text, read exactly (0.45 -> 45/100 at 50 digits)


def initial_weights():
    W = {"E": SPEC["weights"]["E"], "W_out": SPEC["weights"]["W_out"]}
    W.update({k: SPEC["layer"][0][k] for k in PARAMS[2:]})
    return {k: [[exact(x) for x in row] for row in m] for k, m in W.items()}


def matmul(A, B):
    return [[nsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H):
    ms = [nsum(x * x for x in row) / len(row) for row in H]
    den = [sqrt(m + EPS) for m in ms]
    return ms, den, [[x / r for x in row] for row, r in zip(H, den)]


def rope(M, ncols):
    out = []
    for t, row in enumerate(M):
        c, s = mp.cos(t), mp.sin(t)
        new = []
        for h in range(ncols // DK):
            a, b = row[DK * h], row[DK * h + 1]
            new += [a * c - b * s, b * c + a * s]
        out.append(new)
    return out


def forward(Wv):
    P = {k: [[N(x) for x in row] for row in m] for k, m in Wv.items()}
    T = len(IDS)
    X = [P["E"][i][:] for i in IDS]
    ms1, rms1, LN1 = rmsnorm(X)
    Q, K, V = matmul(LN1, P["W_Q"]), matmul(LN1, P["W_K"]), matmul(LN1, P["W_V"])
    Qr, Kr = rope(Q, 8), rope(K, 4)
    S = [[[None] * T for _ in range(T)] for _ in range(HEADS)]
    A = [[[mp.mpf(0)] * T for _ in range(T)] for _ in range(HEADS)]
    A_den = [[None] * T for _ in range(HEADS)]
    AH = [[None] * 8 for _ in range(T)]
    for h in range(HEADS):
        g = h // (HEADS // KV_HEADS)
        for t in range(T):
            for s_ in range(T):
                S[h][t][s_] = nsum(Qr[t][DK * h + i] * Kr[s_][DK * g + i] for i in range(DK)) / mp.sqrt(DK)
            ex = [exp(S[h][t][s_]) for s_ in range(t + 1)]
            A_den[h][t] = nsum(ex)
            A[h][t] = [e / A_den[h][t] for e in ex] + [N(0)] * (T - t - 1)
            for i in range(DK):
                AH[t][DK * h + i] = nsum(A[h][t][s_] * V[s_][DK * g + i] for s_ in range(t + 1))
    Attn = matmul(AH, P["W_O"])
    H1 = [[X[t][j] + Attn[t][j] for j in range(8)] for t in range(T)]
    ms2, rms2, LN2 = rmsnorm(H1)
    Z, U = matmul(LN2, P["W_1"]), matmul(LN2, P["W_3"])
    SZ = [[silu(z) for z in row] for row in Z]
    R = [[a * u for a, u in zip(ra, ru)] for ra, ru in zip(SZ, U)]
    F = matmul(R, P["W_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(8)] for t in range(T)]
    msf, rmsf, LNf = rmsnorm(H2)
    hf = LNf[T - 1]
    logits = [nsum(hf[j] * P["W_out"][j][v] for j in range(8)) for v in range(len(VOCAB))]
    ez = [exp(z) for z in logits]
    sum_exp = nsum(ez)
    p = [e / sum_exp for e in ez]
    loss = -log(p[TARGET])
    return dict(P=P, X=X, ms1=ms1, rms1=rms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=A_den, A=A,
                Attn_heads=AH, Attn=Attn, H1=H1, ms2=ms2, rms2=rms2, LN2=LN2, Z=Z, U=U, SiLU=SZ, R=R, F=F, H2=H2,
                ms_f=msf, rms_f=rmsf, LN_f=LNf, h_final=hf, logits=logits, exp_logits=ez, sum_exp=sum_exp, p=p,
                loss=loss)


def values():
    W0 = initial_weights()
    f = forward(W0)
    backward(f["loss"])
    grads = {k: [[n.g for n in row] for row in f["P"][k]] for k in PARAMS}
    W1 = {k: [[w - LR * g for w, g in zip(rw, rg)] for rw, rg in zip(W0[k], grads[k])] for k in PARAMS}
    f1 = forward(W1)

    val = lambda n: n.v if isinstance(n, N) else n
    tok = lambda v: VOCAB[v]
    out = {}
    # forward quantities (2-d nodes by [t,j]; S, A by [h,t,s]); last position t = 2
    for name in ("X", "LN1", "Q", "K", "V", "Q_rot", "K_rot", "Attn_heads", "Attn", "H1", "LN2", "Z", "U", "R", "F",
                 "H2", "LN_f"):
        for t, row in enumerate(f[name]):
            for j, n in enumerate(row):
                out[f"{name}[{t},{j}]"] = val(n)
    for t in range(3):
        for s in ("ms1", "ms2", "ms_f"):
            out[f"{s}[{t}]"] = val(f[s][t])
        out[f"sqrt(ms1[{t}] + ln_eps)"] = val(f["rms1"][t])
        out[f"sqrt(ms2[{t}] + ln_eps)"] = val(f["rms2"][t])
        out[f"sqrt(ms_f[{t}] + ln_eps)"] = val(f["rms_f"][t])
        for k in range(6):
            out[f"silu(Z[{t},{k}])"] = val(f["SiLU"][t][k])
    for h in range(HEADS):
        for t in range(3):
            out[f"A_den[{h},{t}]"] = val(f["A_den"][h][t])
            for s in range(3):
                out[f"S[{h},{t},{s}]"] = val(f["S"][h][t][s])
                out[f"A[{h},{t},{s}]"] = val(f["A"][h][t][s])
    for j in range(8):
        out[f"h_final[{j}]"] = val(f["h_final"][j])
    for v in range(len(VOCAB)):
        out[f"logits[{tok(v)}]"] = val(f["logits"][v])
        out[f"exp(logits[{tok(v)}])"] = val(f["exp_logits"][v])
        out[f"p[{tok(v)}]"] = val(f["p"][v])
        out[f"grad_logits[{tok(v)}]"] = out[f"p[{tok(v)}]"] - (1 if v == TARGET else 0)
        out[f"sgd[1].p[{tok(v)}]"] = val(f1["p"][v])
        out[f"sgd[1].logits[{tok(v)}]"] = val(f1["logits"][v])
    out["sum_exp"] = val(f["sum_exp"])
    out["loss"] = val(f["loss"])
    out["sgd[1].loss"] = val(f1["loss"])
    for k in PARAMS:
        for i, row in enumerate(grads[k]):
            for j, g in enumerate(row):
                ii = tok(i) if k == "E" else i
                jj = tok(j) if k == "W_out" else j
                out[f"{k}[{ii},{jj}]"] = W0[k][i][j]
                out[f"grad_{k}[{ii},{jj}]"] = g
                out[f"sgd[1].{k}[{ii},{jj}]"] = W1[k][i][j]
    return out, W0, grads


def gradcheck(W0, grads, entries, h=mp.mpf("1e-20")):
    """Central differences at 50 digits: the autodiff gradient to about 1e-35."""
    for k, i, j in entries:
        plus = {n: [r[:] for r in m] for n, m in W0.items()}
        minus = {n: [r[:] for r in m] for n, m in W0.items()}
        plus[k][i][j] += h
        minus[k][i][j] -= h
        fd = (forward(plus)["loss"].v - forward(minus)["loss"].v) / (2 * h)
        assert abs(fd - grads[k][i][j]) < mp.mpf("1e-30"), (k, i, j, fd, grads[k][i][j])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def norm_printed(s: str) -> str:
    """A figure as the PDF prints it (Unicode minus, decimal comma) to a plain decimal."""
    return s.replace("−", "-").replace(",", ".").replace(" ", "")


def main() -> int:
    vals, W0, grads = values()
    gradcheck(W0, grads, [("E", 2, 0), ("W_Q", 0, 4), ("W_K", 2, 3), ("W_2", 3, 2), ("W_O", 5, 6), ("W_out", 0, 3)])
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = vals[ref] * (100 if pct else 1)
        shown = norm_printed(cells[4].strip("`") if len(cells) == 7 else printed).rstrip("%")
        places = len(shown.split(".")[1]) if "." in shown else 0
        right = rnd(v, places)
        if len(cells) == 7:                                  # planted: the key's columns must agree
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and right != norm_printed(printed).rstrip("%"))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == norm_printed(printed).rstrip("%") else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    assert bad == 0, f"{bad} key rows disagree with the oracle"
    print(f"all {len(rows)} key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
