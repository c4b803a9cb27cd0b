#!/usr/bin/env python3
"""Independent check of the tutorial en-txt-llama-gqa-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row: its quantity's value, the key's "exact value" and
                         # "correct rounding" columns, and that the printed text stands on the stated
                         # line of DOC.txt

The model, read from SPEC.toml: one Llama block (pre-RMSNorm, RoPE, SwiGLU, no biases, no o_proj),
d = 4, two query heads of size 2 sharing one key/value head (grouped-query attention), d_ff = 6,
T = 4, an untied LM head, the loss of the last position.

  X = E[ids];  ms1[t] = mean_j X[t,j]^2;  LN1 = gamma1 * X / sqrt(ms1 + eps)     (RMSNorm)
  Q = LN1 W_Q (heads side by side), K = LN1 W_K, V = LN1 W_V
  RoPE (Hugging Face rotate_half): a head of size 2 has one frequency, theta = base^0 = 1, so
      rot(x, t) = (x0 cos t - x1 sin t, x1 cos t + x0 sin t)
  S[h,t,s] = Q_rot[t, head h] . K_rot[s] / sqrt(2);  A = causal softmax;  Attn[t, head h] = sum_s A V[s]
  H1 = X + Attn;  ms2, LN2 = RMSNorm(H1);  Z = LN2 W_1 (gate), U = LN2 W_3 (up), R = silu(Z) * U,
  F = R W_2 (down);  H2 = H1 + F;  ms_f, LN_f = RMSNorm(H2);  h_final = LN_f[T-1]
  logits = h_final W_out;  p = softmax;  loss = -ln p[target]
  softmax_T(T, v) = softmax(logits / T)[v];  topp(P, v) = p[v] renormalised over the shortest prefix of
  the ranking by p whose mass is >= P (0 outside it).
Rounding is half away from zero, on the 45-digit decimal of the value.
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


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def compute(spec: dict) -> dict:
    m, w, lay = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    d, heads, kvh = m["d"], m["heads"], m["kv_heads"]
    dk = d // heads
    assert dk == 2, "this oracle writes RoPE for heads of size 2"
    eps = mp.mpf(str(m["ln_eps"]))
    E, Wout = M(w["E"]), M(w["W_out"])
    WQ, WK, WV, W1, W3, W2 = (M(lay[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "W_3", "W_2"))
    ones = [mp.mpf(1)] * d
    g1 = M(lay["gamma1"]) if "gamma1" in lay else ones
    g2 = M(lay["gamma2"]) if "gamma2" in lay else ones
    gf = M(w["gamma_f"]) if "gamma_f" in w else ones
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    T = len(ids)

    def rms(H, g):
        ms = [mp.fsum(x * x for x in r) / d for r in H]
        return ms, [[g[j] * r[j] / mp.sqrt(s + eps) for j in range(d)] for r, s in zip(H, ms)]

    def rot(row, t):
        out = []
        for h in range(len(row) // 2):
            a, b = row[2 * h], row[2 * h + 1]
            out += [a * mp.cos(t) - b * mp.sin(t), b * mp.cos(t) + a * mp.sin(t)]
        return out

    X = [E[i][:] for i in ids]
    ms1, LN1 = rms(X, g1)
    Q, K, V = matmul(LN1, WQ), matmul(LN1, WK), matmul(LN1, WV)
    Q_rot = [rot(Q[t], t) for t in range(T)]
    K_rot = [rot(K[t], t) for t in range(T)]
    group = heads // kvh
    S = [[[mp.fsum(Q_rot[t][h * dk + j] * K_rot[s][(h // group) * dk + j] for j in range(dk)) / mp.sqrt(dk)
           for s in range(T)] for t in range(T)] for h in range(heads)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(heads)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(heads)]
    Attn = [[mp.fsum(A[h][t][s] * V[s][(h // group) * dk + j] for s in range(T)) for h in range(heads)
             for j in range(dk)] for t in range(T)]
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rms(H1, g2)
    Z, U = matmul(LN2, W1), matmul(LN2, W3)
    SILU = [[z / (1 + mp.exp(-z)) for z in r] for r in Z]
    R = [[s * u for s, u in zip(rs, ru)] for rs, ru in zip(SILU, U)]
    F = matmul(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rms(H2, gf)
    h_final = LN_f[-1]
    logits = [mp.fsum(h_final[j] * Wout[j][v] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]

    vals = {}

    def put(name, arr):
        def walk(a, idx):
            if isinstance(a, list):
                for i, x in enumerate(a):
                    walk(x, idx + [i])
            else:
                vals[f"{name}[{','.join(map(str, idx))}]" if idx else name] = a
        walk(arr, [])

    for name, arr in dict(X=X, ms1=ms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Q_rot, K_rot=K_rot, S=S, A_den=A_den, A=A,
                          Attn=Attn, H1=H1, ms2=ms2, LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, ms_f=ms_f, LN_f=LN_f,
                          h_final=h_final, logits=logits, p=p, sum_exp=sum_exp, loss=-mp.log(p[tgt]),
                          E=E, W_out=Wout, W_Q=WQ, W_K=WK, W_V=WV, W_1=W1, W_3=W3, W_2=W2).items():
        put(name, arr)
    vals["ln_eps"] = eps
    samp = spec.get("sampling", {})
    temps = [mp.mpf(str(t)) for t in samp.get("temperatures", [])]
    soft_T = {}
    for Tm in temps:
        ex = [mp.exp(z / Tm) for z in logits]
        s = mp.fsum(ex)
        soft_T[mp.nstr(Tm, 10)] = [x / s for x in ex]
    P = mp.mpf(str(samp.get("top_p", "0.9")))
    order = sorted(range(len(vocab)), key=lambda v: (-p[v], v))
    kept, c = [], mp.mpf(0)
    for v in order:
        kept.append(v)
        c += p[v]
        if c >= P:
            break
    mass = mp.fsum(p[v] for v in kept)
    topp = [p[v] / mass if v in kept else mp.mpf(0) for v in range(len(vocab))]
    return dict(vals=vals, vocab=vocab, soft_T=soft_T, top_p=P, topp=topp, order=order, kept=kept)


def evaluate(expr: str, r: dict):
    """A quantity name or a small expression over names (sqrt, exp, log, cos, sin, softmax_T, topp)."""
    vocab = r["vocab"]

    def tok(s):
        s = s.strip()
        return int(s) if s.isdigit() else vocab.index(s)

    def look(name, idx):
        parts = [x.strip() for x in idx.split(",")]
        if name == "p" or name == "logits":
            parts = [str(tok(parts[0]))]
        if name in ("E",):
            parts[0] = str(tok(parts[0]))
        if name == "W_out":
            parts[1] = str(tok(parts[1]))
        return r["vals"][f"{name}[{','.join(parts)}]"]

    def softmax_T(Tm, v):
        return r["soft_T"][mp.nstr(mp.mpf(str(Tm)), 10)][tok(v)]

    def topp(P, v):
        assert mp.mpf(str(P)) == r["top_p"]
        return r["topp"][tok(v)]

    held = []                                            # names and token arguments, kept out of the
                                                         # number rewriting below

    def hold(text):
        held.append(text)
        return f"_H{len(held) - 1}_"

    e = re.sub(r"(softmax_T|topp)\(\s*([0-9.]+)\s*,\s*(\w+)\s*\)",
               lambda mt: hold(f"{mt.group(1)}('{mt.group(2)}', '{mt.group(3)}')"), expr)
    e = re.sub(r"\b([A-Za-z_][A-Za-z_0-9]*)\[([^\]]*)\]",
               lambda mt: hold(f"look({mt.group(1)!r}, {mt.group(2)!r})"), e)
    e = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)(?![\w])", r"mpf('\1')", e)
    e = re.sub(r"_H(\d+)_", lambda mt: held[int(mt.group(1))], e)
    ns = dict(look=look, softmax_T=softmax_T, topp=topp, sqrt=mp.sqrt, exp=mp.exp, log=mp.log, cos=mp.cos,
              sin=mp.sin, log10=mp.log10, mpf=mp.mpf)
    ns.update({k: v for k, v in r["vals"].items() if "[" not in k})
    return eval(e, {"__builtins__": {}}, ns)


def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def round_like(v, shown: str) -> str:
    """v rounded (half away from zero) in the format of the printed figure `shown`."""
    s = shown.replace("\u2212", "-")
    mt = re.fullmatch(r"(-?\d+(?:\.(\d+))?)e([+-]\d+)", s)
    if mt:                                                   # scientific: round at the mantissa's last place
        places, ex = len(mt.group(2) or ""), int(mt.group(3))
        mant = rnd(v / mp.mpf(10) ** ex, places)
        return f"{mant}e{mt.group(3)}"
    pct = s.endswith("%")
    body = s.rstrip("%")
    places = len(body.split(".")[1]) if "." in body else 0
    return rnd(v * (100 if pct else 1), places) + ("%" if pct else "")


def main() -> int:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    r = compute(spec)
    doc = next(HERE.glob("DOC.*"))
    lines = doc.read_text(encoding="utf-8").splitlines()
    rows = [x for x in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if x.startswith("| `")]
    bad = planted = correct = 0
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        v = evaluate(names[0], r)
        for alt in names[1:]:                               # alternatives must be the same number
            if abs(evaluate(alt, r) - v) > mp.mpf("1e-40"):
                print(f"  {printed}: alternative {alt} differs from {names[0]}")
                bad += 1
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if len(cells) == 7:                                 # planted: printed | line | where | exact | right | kind | q
            shown = cells[4].strip("`")
            right = round_like(v, shown)
            exact_txt = cells[3].rstrip("…").replace("\u2212", "-")
            vv = v * (100 if shown.endswith("%") else 1)
            exact_ok = abs(mp.mpf(exact_txt) - vv) <= mp.mpf("1e-10") * max(abs(vv), mp.mpf("1e-30"))
            differs = round_like(v, printed) != printed
            ok = shown == right and exact_ok and differs and on_line
            planted += 1
            note = "planted, key agrees" if ok else (
                f"KEY DISAGREES (right={right}, exact_ok={exact_ok}, differs={differs}, on_line={on_line})")
        else:
            right = round_like(v, printed)
            ok = right == printed and on_line
            correct += 1
            note = "correct" if ok else f"NOT CORRECT (rounds to {right}, on_line={on_line})"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {names[0]:<34} {mp.nstr(v, 15):<22} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
