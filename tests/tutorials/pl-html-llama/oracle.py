#!/usr/bin/env python3
"""Independent oracle for pl-html-llama: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # prints the forward pass and checks every KEY.md row against it

Model (read from SPEC.toml): a one-block Llama-style transformer, pre-norm.
  X = E[ids]; ms1 = mean(X²); LN1 = X / sqrt(ms1 + eps)                (RMSNorm, gamma = 1)
  Q, K, V = LN1·W_Q, LN1·W_K, LN1·W_V; heads of d_k = 2 side by side (head h: columns 2h, 2h+1)
  RoPE (Hugging Face rotate_half): in each head, pair (i, i + d_k/2) turned by t·theta_i,
       theta_i = rope_theta^(-2i/d_k); with d_k = 2 the only angle is t (radians)
  S[h,t,s] = Q_rot_h[t]·K_rot_h[s]/sqrt(d_k); causal softmax A; Attn = heads concatenated (no W_O)
  H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1, U = LN2·W_3, R = SiLU(Z)·U; F = R·W_2; H2 = H1 + F
  LN_f = RMSNorm(H2); h_final = LN_f[T-1]; logits = h_final·W_out; p = softmax; loss = -ln p[target]
  grad_logits = p - onehot(target)
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


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and Decimal(s) == 0 else s


def model():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    M = lambda a: [[mp.mpf(str(x)) for x in r] for r in a]
    w, lay, cfg = spec["weights"], spec["layer"][0], spec["model"]
    E, Wout = M(w["E"]), M(w["W_out"])
    WQ, WK, WV, W1, W3, W2 = (M(lay[k]) for k in ("W_Q", "W_K", "W_V", "W_1", "W_3", "W_2"))
    vocab = cfg["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps, base = mp.mpf(str(cfg["ln_eps"])), mp.mpf(str(cfg.get("rope_theta", 10000)))
    d, H, T, Vn = cfg["d"], cfg["heads"], len(ids), len(vocab)
    dk, dff = d // H, cfg["d_ff"]

    def mm(A, B):
        return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]

    def rmsnorm(Hm):
        ms = [mp.fsum(x * x for x in r) / len(r) for r in Hm]
        return ms, [[x / mp.sqrt(m + eps) for x in r] for r, m in zip(Hm, ms)]

    def rope(Mx):
        out = []
        for t, r in enumerate(Mx):
            o = list(r)
            for h in range(H):
                for i in range(dk // 2):
                    ang = t * base ** (-mp.mpf(2 * i) / dk)
                    a, b = r[h * dk + i], r[h * dk + i + dk // 2]
                    o[h * dk + i] = a * mp.cos(ang) - b * mp.sin(ang)
                    o[h * dk + i + dk // 2] = b * mp.cos(ang) + a * mp.sin(ang)
            out.append(o)
        return out

    X = [E[i][:] for i in ids]
    ms1, LN1 = rmsnorm(X)
    Q, K, V = mm(LN1, WQ), mm(LN1, WK), mm(LN1, WV)
    Qr, Kr = rope(Q), rope(K)
    S = [[[mp.fsum(Qr[t][h * dk + j] * Kr[s][h * dk + j] for j in range(dk)) / mp.sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(H)]
    Aden = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / Aden[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    Attn = [[mp.fsum(A[j // dk][t][s] * V[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rmsnorm(H1)
    Z, U = mm(LN2, W1), mm(LN2, W3)
    R = [[Z[t][k] / (1 + mp.exp(-Z[t][k])) * U[t][k] for k in range(dff)] for t in range(T)]
    F = mm(R, W2)
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rmsnorm(H2)
    hf = LN_f[-1]
    logits = [mp.fsum(hf[j] * Wout[j][v] for j in range(d)) for v in range(Vn)]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    loss = -mp.log(p[tgt])
    grad_logits = [p[v] - (1 if v == tgt else 0) for v in range(Vn)]
    nodes = dict(E=E, W_out=Wout, X=X, ms1=ms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=Aden, A=A,
                 Attn=Attn, H1=H1, ms2=ms2, LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, ms_f=ms_f, LN_f=LN_f, h_final=hf,
                 logits=logits, sum_exp=sum_exp, p=p, loss=loss, grad_logits=grad_logits)
    return nodes, vocab, eps


NODES, VOCAB, EPS = model()


def value(ref: str):
    """A key's quantity: a node entry (`S[1,2,1]`, `p[śpi]`) or a small expression over them."""
    def entry(m):
        x = NODES[m.group(1)]
        for ix in m.group(2).split(","):
            ix = ix.strip()
            x = x[int(ix) if ix.isdigit() else VOCAB.index(ix)]
        return f"mp.mpf('{mp.nstr(x, 60)}')"
    expr = re.sub(r"([A-Za-z_]\w*)\[([^\]]+)\]", entry, ref)
    expr = re.sub(r"\b(sum_exp|loss)\b", lambda m: f"mp.mpf('{mp.nstr(NODES[m.group(1)], 60)}')", expr)
    expr = expr.replace("ln_eps", f"mp.mpf('{EPS}')")
    return eval(expr, {"mp": mp, "sqrt": mp.sqrt, "exp": mp.exp, "cos": mp.cos, "sin": mp.sin, "log": mp.log})


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace(",", ".").rstrip("%")


def main() -> int:
    n = lambda v: mp.nstr(v, 12)
    print("forward pass (last position where only it matters):")
    for name in ("ms1", "LN1", "Q", "K", "V", "Q_rot", "K_rot"):
        x = NODES[name]
        print(f"  {name:6} " + ("; ".join(", ".join(n(v) for v in r) for r in x) if isinstance(x[0], list)
                                else ", ".join(n(v) for v in x)))
    for h in range(2):
        print(f"  head {h + 1}: S[2,:] = {[n(v) for v in NODES['S'][h][2]]}  "
              f"A[2,:] = {[n(v) for v in NODES['A'][h][2]]}")
    for name in ("Attn", "H1", "ms2", "LN2", "Z", "U", "R", "F", "H2", "ms_f"):
        x = NODES[name][2] if isinstance(NODES[name][0], list) else NODES[name][2]
        print(f"  {name:6}[2] " + (", ".join(n(v) for v in x) if isinstance(x, list) else n(x)))
    for name in ("h_final", "logits", "p", "grad_logits"):
        print(f"  {name:11} " + ", ".join(n(v) for v in NODES[name]))
    print(f"  sum_exp {n(NODES['sum_exp'])}  loss {n(NODES['loss'])}")

    doc = (HERE / "DOC.html").read_text(encoding="utf-8").split("\n")
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    print("key rows:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        refs = re.findall(r"`([^`]+)`", cells[-1])
        v = value(refs[0])
        others = [value(x) for x in refs[1:]]
        if any(abs(o - v) > mp.mpf("1e-40") for o in others):
            print(f"  {printed}: alternatives {refs} differ")
            bad += 1
        if printed.endswith("%"):
            v = v * 100
        on_line = printed in doc[line - 1] if 0 < line <= len(doc) else False
        if len(cells) == 7:
            shown = cells[4].strip("`")
            places = len(norm(shown).split(".")[1]) if "." in norm(shown) else 0
            right = rnd(v, places)
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (norm(shown) == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and norm(printed) != right and on_line)
            planted += 1
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            places = len(norm(printed).split(".")[1]) if "." in norm(printed) else 0
            right = rnd(v, places)
            ok = norm(printed) == right and on_line
            correct += 1
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>9}  line {line:>3} {'on line' if on_line else 'NOT ON LINE'}  {refs[0]:<24} "
              f"{n(v):<18} rounds to {right:<9} {note}")
    if planted != 8 or correct != 10:
        print(f"expected 8 planted and 10 correct rows, found {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
