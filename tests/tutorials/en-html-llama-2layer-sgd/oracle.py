#!/usr/bin/env python3
"""Independent computation behind KEY.md of en-html-llama-2layer-sgd: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every quantity the key names, its value, and a check of every KEY.md row

Model (SPEC.toml, read with tomllib): a two-block Llama-style decoder, d = 4, 2 heads (d_k = 2), d_ff = 6,
T = 3, tied head, no biases.
  block input H (the embeddings X = E[ids] for block 1, the previous block's output after that);
  ms1[t] = mean_j H[t,j]^2,  LN1 = gamma1 * H / sqrt(ms1 + eps)               (RMSNorm)
  Q, K, V = LN1 W_Q, LN1 W_K, LN1 W_V;  RoPE on each head's pair (x0, x1) at position m = 0, 1, 2,
      angle m * theta^0 = m (d_k = 2):  x0' = x0 cos m - x1 sin m,  x1' = x1 cos m + x0 sin m
  S[h,t,s] = q'_t . k'_s / sqrt(2),  causal softmax A,  heads concatenated, times W_O;  H1 = H + Attn
  ms2, LN2 = RMSNorm(H1) with gamma2;  Z = LN2 W_1,  U = LN2 W_3,  R = SiLU(Z) * U,  F = R W_2;  H2 = H1 + F
  final RMSNorm with gamma_f at the last position -> h_final;  logits = h_final E^T;  p = softmax;
  loss = -ln p[target].
Gradients by a small reverse-mode differentiation over mpmath scalars written here; one SGD step
(lr 0.1) on every parameter (E, all projections, and every RMSNorm gain: training.learnable_ln = true),
then the forward pass again for the loss after the step.
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- a tiny reverse-mode autodiff

class Var:
    __slots__ = ("v", "parents", "g", "idx")
    tape: list = []

    def __init__(self, v, parents=()):
        self.v = v
        self.parents = parents          # tuples (parent Var, local derivative)
        self.g = mp.mpf(0)
        self.idx = len(Var.tape)
        Var.tape.append(self)

    @staticmethod
    def lift(x):
        return x if isinstance(x, Var) else Var(mp.mpf(x))

    def __add__(self, o):
        o = Var.lift(o)
        return Var(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = Var.lift(o)
        return Var(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return Var.lift(o) - self

    def __neg__(self):
        return Var(-self.v, ((self, -1),))

    def __mul__(self, o):
        o = Var.lift(o)
        return Var(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = Var.lift(o)
        return Var(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __rtruediv__(self, o):
        return Var.lift(o) / self


def vexp(x):
    e = mp.exp(x.v)
    return Var(e, ((x, e),))


def vlog(x):
    return Var(mp.log(x.v), ((x, 1 / x.v),))


def vsqrt(x):
    s = mp.sqrt(x.v)
    return Var(s, ((x, 1 / (2 * s)),))


def vsum(xs):
    xs = list(xs)
    return Var(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    for n in Var.tape:
        n.g = mp.mpf(0)
    out.g = mp.mpf(1)
    for n in reversed(Var.tape[: out.idx + 1]):
        if n.g != 0:
            for p, dv in n.parents:
                p.g += n.g * dv


def val(x):
    """values of a nested list of Vars"""
    return [val(y) for y in x] if isinstance(x, list) else x.v


# ---------------------------------------------------------------- the model

def rational(x):
    return mp.mpf(str(x))    # the TOML decimal text, to 50 digits


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m = spec["model"]
    d, dff, nh = m["d"], m["d_ff"], m["heads"]
    W = {"E": [[rational(x) for x in r] for r in spec["weights"]["E"]],
         "gamma_f": [mp.mpf(1)] * d}
    if "gamma_f" in spec["weights"]:
        W["gamma_f"] = [rational(x) for x in spec["weights"]["gamma_f"]]
    for li, L in enumerate(spec["layer"]):
        for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"):
            W[f"l{li}.{n}"] = [[rational(x) for x in r] for r in L[n]]
        for n in ("gamma1", "gamma2"):
            W[f"l{li}.{n}"] = [rational(x) for x in L[n]] if n in L else [mp.mpf(1)] * d
    vocab = m["vocab"]
    ids = [vocab.index(w) for w in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    cfg = dict(d=d, dff=dff, heads=nh, layers=len(spec["layer"]), eps=rational(m["ln_eps"]),
               theta=rational(m.get("rope_theta", 10000)), vocab=vocab, ids=ids, tgt=tgt,
               lr=rational(spec["training"]["lr"]))
    return cfg, W


def to_vars(W):
    def conv(x):
        return [conv(y) for y in x] if isinstance(x, list) else Var(x)
    return {k: conv(v) for k, v in W.items()}


def matmul(A, B):
    return [[vsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def rmsnorm(H, gamma, eps):
    d = len(H[0])
    ms = [vsum(x * x for x in r) / d for r in H]
    out = [[gamma[j] * r[j] / vsqrt(m + eps) for j in range(d)] for r, m in zip(H, ms)]
    return ms, out


def rope(M, nh, dk, theta):
    out = []
    for m, r in enumerate(M):
        row = []
        for h in range(nh):
            half = dk // 2
            base = h * dk
            pair = [None] * dk
            for i in range(half):
                ang = m * theta ** (-mp.mpf(2 * i) / dk)
                c, s = mp.cos(ang), mp.sin(ang)
                x0, x1 = r[base + i], r[base + i + half]
                pair[i] = x0 * c - x1 * s
                pair[i + half] = x1 * c + x0 * s
            row += pair
        out.append(row)
    return out


def forward(cfg, P):
    d, nh, eps = cfg["d"], cfg["heads"], cfg["eps"]
    dk = d // nh
    T = len(cfg["ids"])
    q = {}
    H = [[P["E"][i][j] * 1 for j in range(d)] for i in cfg["ids"]]     # X: a node of its own (the input path)
    q["X"] = H
    for li in range(cfg["layers"]):
        pre = f"l{li}."
        L = lambda n: P[pre + n]
        ms1, LN1 = rmsnorm(H, L("gamma1"), eps)
        Q, K, V = matmul(LN1, L("W_Q")), matmul(LN1, L("W_K")), matmul(LN1, L("W_V"))
        Qr, Kr = rope(Q, nh, dk, cfg["theta"]), rope(K, nh, dk, cfg["theta"])
        S, A, A_den = {}, {}, {}
        heads_out = [[None] * d for _ in range(T)]
        for h in range(nh):
            cols = range(h * dk, (h + 1) * dk)
            for t in range(T):
                for s in range(t + 1):
                    S[h, t, s] = vsum(Qr[t][j] * Kr[s][j] for j in cols) / mp.sqrt(dk)
                ex = [vexp(S[h, t, s]) for s in range(t + 1)]
                A_den[h, t] = vsum(ex)
                for s in range(t + 1):
                    A[h, t, s] = ex[s] / A_den[h, t]
                for j in cols:
                    heads_out[t][j] = vsum(A[h, t, s] * V[s][j] for s in range(t + 1))
        Attn = matmul(heads_out, L("W_O"))
        H1 = [[H[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
        ms2, LN2 = rmsnorm(H1, L("gamma2"), eps)
        Z, U = matmul(LN2, L("W_1")), matmul(LN2, L("W_3"))
        silu = [[z / (1 + vexp(-z)) for z in r] for r in Z]
        R = [[a * u for a, u in zip(ra, ru)] for ra, ru in zip(silu, U)]
        F = matmul(R, L("W_2"))
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        q.update({pre + "ms1": ms1, pre + "LN1": LN1, pre + "Q": Q, pre + "K": K, pre + "V": V,
                  pre + "Q_rot": Qr, pre + "K_rot": Kr, pre + "S": S, pre + "A": A, pre + "A_den": A_den,
                  pre + "Attn_heads": heads_out, pre + "Attn": Attn, pre + "H1": H1, pre + "ms2": ms2,
                  pre + "LN2": LN2, pre + "Z": Z, pre + "U": U, pre + "silu": silu, pre + "R": R,
                  pre + "F": F, pre + "H2": H2})
        H = H2
    ms_f, LN_f = rmsnorm(H, P["gamma_f"], eps)
    hf = LN_f[-1]
    logits = [vsum(hf[j] * P["E"][v][j] for j in range(d)) for v in range(len(cfg["vocab"]))]
    ex = [vexp(z) for z in logits]
    sum_exp = vsum(ex)
    p = [e / sum_exp for e in ex]
    loss = -vlog(p[cfg["tgt"]])
    q.update(ms_f=ms_f, LN_f=LN_f, h_final=hf, logits=logits, sum_exp=sum_exp, p=p, loss=loss)
    return q


def sgd_step(cfg, W):
    Var.tape = []
    P = to_vars(W)
    q = forward(cfg, P)
    backward(q["loss"])

    def grad(x):
        return [grad(y) for y in x] if isinstance(x, list) else x.g

    def step(w, x):
        return [step(a, b) for a, b in zip(w, x)] if isinstance(w, list) else w - cfg["lr"] * x.g
    G = {k: grad(v) for k, v in P.items()}
    new = {k: step(W[k], P[k]) for k in W}
    # gradients of a few interior nodes, read off the tape
    inner = {"grad_logits": [z.g for z in q["logits"]], "grad_h_final": [x.g for x in q["h_final"]],
             "grad_X": [[x.g for x in r] for r in q["X"]]}
    return q, G, new, inner


# ---------------------------------------------------------------- the values the key names

def values():
    cfg, W = load_spec()
    q, G, new, inner = sgd_step(cfg, W)
    vocab, d, T = cfg["vocab"], cfg["d"], len(cfg["ids"])
    out = {}

    def put(name, x, idx=()):
        if isinstance(x, dict):
            for k, v in x.items():
                put(name, v, idx + k)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                put(name, v, idx + (i,))
        else:
            v = x.v if isinstance(x, Var) else x
            out[f"{name}[{','.join(map(str, idx))}]" if idx else name] = v

    for k, v in q.items():
        put(k, v)
    for k, v in G.items():
        put("grad_" + k, v)
    for k, v in inner.items():
        put(k, v)
    for k, v in new.items():
        put("sgd[1]." + k, v)
    Var.tape = []
    after = forward(cfg, to_vars(new))
    out["sgd[1].loss"] = after["loss"].v
    put("sgd[1].p", after["p"])
    eps = cfg["eps"]
    for li in range(cfg["layers"]):
        for t in range(T):
            for n in ("ms1", "ms2"):
                out[f"sqrt(l{li}.{n}[{t}] + ln_eps)"] = mp.sqrt(out[f"l{li}.{n}[{t}]"] + eps)
            for h in range(cfg["heads"]):
                for s in range(t + 1):
                    out[f"exp(l{li}.S[{h},{t},{s}])"] = mp.exp(out[f"l{li}.S[{h},{t},{s}]"])
            for k in range(cfg["dff"]):
                out[f"silu(l{li}.Z[{t},{k}])"] = out[f"l{li}.silu[{t},{k}]"]
    for t in range(T):
        out[f"sqrt(ms_f[{t}] + ln_eps)"] = mp.sqrt(out[f"ms_f[{t}]"] + eps)
    for v in range(len(vocab)):
        out[f"exp(logits[{v}])"] = mp.exp(out[f"logits[{v}]"])
        # the head-path part of dL/dE: (p - y) h_final
        for j in range(d):
            out[f"grad_E_head[{v},{j}]"] = out[f"grad_logits[{v}]"] * out[f"h_final[{j}]"]
    # token names beside ids
    named = {}
    for k, v in out.items():
        for pat in ("p", "logits", "grad_logits", "exp(logits", "sgd[1].p"):
            m = re.fullmatch(re.escape(pat) + r"\[(\d)\](\)?)", k)
            if m:
                named[f"{pat}[{vocab[int(m.group(1))]}]{m.group(2)}"] = v
        m = re.fullmatch(r"((?:sgd\[1\]\.)?(?:grad_)?E(?:_head)?)\[(\d),(\d)\]", k)
        if m:
            named[f"{m.group(1)}[{vocab[int(m.group(2))]},{m.group(3)}]"] = v
    out.update(named)
    return cfg, out


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def main() -> int:
    cfg, vals = values()
    doc = next(p for p in sorted(HERE.glob("DOC.*")))
    lines = doc.read_text(encoding="utf-8").splitlines()
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        on_line = 1 <= line <= len(lines) and printed.replace("-", "−") in lines[line - 1].replace("-", "−")
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        shown = shown.replace("−", "-")
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        pr = printed.replace("−", "-")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            ok = (shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != pr
                  and rnd(v, len(pr.rstrip("%").split(".")[1]) if "." in pr else 0) != pr.rstrip("%"))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted += 1
        else:
            note = "correct" if right == pr else "NOT THE CORRECT ROUNDING"
            correct += 1
        if not on_line:
            note = f"NOT ON LINE {line}"
        bad += note.isupper() or note.startswith("NOT")
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<22} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"EXPECTED 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
