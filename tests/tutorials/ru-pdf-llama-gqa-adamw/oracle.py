#!/usr/bin/env python3
"""Independent check of the ru-pdf-llama-gqa-adamw tutorial: plain mpmath at 50 digits, no symgpt.

    python3 oracle.py           # every KEY.md row: its quantity's value, the key's exact value and
                                # correct rounding, that the printed text is on the stated line of
                                # `pdftotext -layout DOC.pdf -`; then every decimal figure of the PDF
                                # must be the rounding of some oracle value (planted rows excepted)
    python3 oracle.py --dump    # the named quantities to 10 digits

The model, read from SPEC.toml: one Llama block (pre-norm, no biases, RMSNorm γ = 1), grouped-query
attention with 2 query heads (d_k = 2) sharing 1 key/value head, tied head.
  X = E[ids];  RMSNorm(h) = h/√(mean(h²) + ε)  (ms = mean(h²));  LN1 = RMSNorm(X)
  Q = LN1·W_Q (heads side by side), K = LN1·W_K, V = LN1·W_V (one kv head of 2 columns)
  RoPE, rotate_half pairing inside each head: (a, b) at position t (from 0) → (a cos tθ − b sin tθ,
  b cos tθ + a sin tθ), θ = base^(−2i/d_k) = 1 here
  S[h,t,s] = Q_rot_h[t]·K_rot[s]/√d_k, causal softmax A; Attn_heads[t] = [A_0 V, A_1 V]; Attn = ·W_O
  H1 = X + Attn; LN2 = RMSNorm(H1); Z = LN2·W_1 (gate), U = LN2·W_3 (up), R = SiLU(Z) ⊙ U, F = R·W_2
  H2 = H1 + F; LN_f = RMSNorm(H2); h_final = LN_f[T−1]; logits = h_final·Eᵀ; p = softmax; loss = −ln p[target]
  grad_logits = p − onehot(target).
The parameter gradients (for AdamW) are central differences, h = 1e-25, at 90 digits (error ≈ 1e-50).
AdamW as torch.optim.AdamW, first step from zero moments, decoupled decay λ (0 here), on every
parameter of E, W_Q, W_K, W_V, W_O, W_1, W_3, W_2 (the RMSNorm gains are not trained).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import copy
import re
import subprocess
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
VOCAB = SPEC["model"]["vocab"]
PARAMS = ("E", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and not s.strip("-0.") else s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def params():
    layer = SPEC["layer"][0]
    P = {"E": M(SPEC["weights"]["E"])}
    for n in PARAMS[1:]:
        P[n] = M(layer[n])
    return P


def forward(P):
    m = SPEC["model"]
    eps, base = mp.mpf(str(m["ln_eps"])), mp.mpf(str(m["rope_theta"]))
    ids = [VOCAB.index(w) for w in SPEC["data"]["input"]]
    tgt = VOCAB.index(SPEC["data"]["target"])
    d, H, KVH = m["d"], m["heads"], m["kv_heads"]
    dk, T, grp = d // H, len(ids), H // KVH
    E = P["E"]
    X = [E[i][:] for i in ids]

    def rms(Hm):
        ms = [mp.fsum(x * x for x in r) / d for r in Hm]
        return ms, [[x / mp.sqrt(s + eps) for x in r] for r, s in zip(Hm, ms)]

    def rope(row, t):
        out, half = row[:], dk // 2
        for h0 in range(0, len(row), dk):
            for i in range(half):
                th = t * base ** (-mp.mpf(2 * i) / dk)
                a, b = row[h0 + i], row[h0 + i + half]
                out[h0 + i] = a * mp.cos(th) - b * mp.sin(th)
                out[h0 + i + half] = b * mp.cos(th) + a * mp.sin(th)
        return out

    ms1, LN1 = rms(X)
    Q, K, V = matmul(LN1, P["W_Q"]), matmul(LN1, P["W_K"]), matmul(LN1, P["W_V"])
    Qr, Kr = [rope(Q[t], t) for t in range(T)], [rope(K[t], t) for t in range(T)]
    S = [[[mp.fsum(Qr[t][h * dk + j] * Kr[s][(h // grp) * dk + j] for j in range(dk)) / mp.sqrt(dk)
           for s in range(T)] for t in range(T)] for h in range(H)]
    A_den = [[mp.fsum(mp.exp(S[h][t][s]) for s in range(t + 1)) for t in range(T)] for h in range(H)]
    A = [[[mp.exp(S[h][t][s]) / A_den[h][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
         for h in range(H)]
    AH = [[mp.fsum(A[h][t][s] * V[s][(h // grp) * dk + j] for s in range(T)) for h in range(H) for j in range(dk)]
          for t in range(T)]
    Attn = matmul(AH, P["W_O"])
    H1 = [[X[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    ms2, LN2 = rms(H1)
    Z, U = matmul(LN2, P["W_1"]), matmul(LN2, P["W_3"])
    sig = [[1 / (1 + mp.exp(-z)) for z in r] for r in Z]
    silu = [[z * s for z, s in zip(rz, rs)] for rz, rs in zip(Z, sig)]
    R = [[a * u for a, u in zip(r1, r2)] for r1, r2 in zip(silu, U)]
    F = matmul(R, P["W_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    ms_f, LN_f = rms(H2)
    h = LN_f[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(VOCAB))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(X=X, ms1=ms1, LN1=LN1, Q=Q, K=K, V=V, Q_rot=Qr, K_rot=Kr, S=S, A_den=A_den, A=A,
                Attn_heads=AH, Attn=Attn, H1=H1, ms2=ms2, LN2=LN2, Z=Z, U=U, sigmoid=sig, silu=silu, R=R, F=F,
                H2=H2, ms_f=ms_f, LN_f=LN_f, h_final=h, logits=logits, sum_exp=sum_exp, p=p, loss=-mp.log(p[tgt]),
                grad_logits=[p[v] - (1 if v == tgt else 0) for v in range(len(VOCAB))])


def gradients(P, h=mp.mpf("1e-25")):
    G = {}
    with mp.workdps(90):
        for n in PARAMS:
            W = P[n]
            G[n] = [[mp.mpf(0)] * len(W[0]) for _ in W]
            for i in range(len(W)):
                for j in range(len(W[0])):
                    x0 = W[i][j]
                    W[i][j] = x0 + h
                    up = forward(P)["loss"]
                    W[i][j] = x0 - h
                    down = forward(P)["loss"]
                    W[i][j] = x0
                    G[n][i][j] = (up - down) / (2 * h)
    return G


def adamw_step(P, G):
    c = SPEC["training"]["adamw"]
    lr, b1, b2, eps, wd = (mp.mpf(str(c[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay"))
    st, P1 = {}, copy.deepcopy(P)
    for n in PARAMS:
        for i in range(len(P[n])):
            for j in range(len(P[n][0])):
                g, th = G[n][i][j], P[n][i][j]
                m, v = (1 - b1) * g, (1 - b2) * g * g
                mhat, vhat = m / (1 - b1), v / (1 - b2)
                upd = lr * mhat / (mp.sqrt(vhat) + eps)
                P1[n][i][j] = th * (1 - lr * wd) - upd
                st[(n, i, j)] = dict(g=g, m=m, v=v, mhat=mhat, vhat=vhat, update=upd, new=P1[n][i][j])
    return st, forward(P1)


def idx(s: str) -> int:
    s = s.strip()
    return VOCAB.index(s) if s in VOCAB else int(s)


def build():
    P = params()
    f = forward(P)
    G = gradients(P)
    st, f1 = adamw_step(P, G)
    eps = mp.mpf(str(SPEC["model"]["ln_eps"]))

    def value(ref: str):
        ref = ref.strip()
        if ref == "loss":
            return f["loss"]
        if ref == "sum_exp":
            return f["sum_exp"]
        if ref == "adamw[1].loss":
            return f1["loss"]
        mm = re.fullmatch(r"sqrt\((ms1|ms2|ms_f)\[(\d)\] \+ ln_eps\)", ref)
        if mm:
            return mp.sqrt(f[mm.group(1)][int(mm.group(2))] + eps)
        mm = re.fullmatch(r"adamw\[1\]\.(m|v|mhat|vhat|update)\[(\w+),([^,\]]+),([^\]]+)\]", ref)
        if mm:
            return st[(mm.group(2), idx(mm.group(3)), idx(mm.group(4)))][mm.group(1)]
        mm = re.fullmatch(r"adamw\[1\]\.p\[([^\]]+)\]", ref)
        if mm:
            return f1["p"][idx(mm.group(1))]
        mm = re.fullmatch(r"adamw\[1\]\.(E|W_\w+)\[([^,\]]+),([^\]]+)\]", ref)
        if mm:
            return st[(mm.group(1), idx(mm.group(2)), idx(mm.group(3)))]["new"]
        mm = re.fullmatch(r"grad_(E|W_\w+)\[([^,\]]+),([^\]]+)\]", ref)
        if mm:
            return G[mm.group(1)][idx(mm.group(2))][idx(mm.group(3))]
        mm = re.fullmatch(r"(\w+)\[([^\]]+)\]", ref)
        if mm and mm.group(1) in f:
            v = f[mm.group(1)]
            for k in mm.group(2).split(","):
                v = v[idx(k)]
            return v
        raise KeyError(ref)

    return P, f, G, st, f1, value


def doc_lines() -> list[str]:
    out = subprocess.run(["pdftotext", "-layout", str(HERE / "DOC.pdf"), "-"], check=True, capture_output=True,
                         text=True).stdout
    # lines as `cat -n` / `sed -n Np` count them: split at newlines only (a form feed starts no line)
    return out.split("\n")


def norm(s: str) -> str:
    return s.replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")


def plain(s: str) -> str:
    """A printed figure in the oracle's spelling: ASCII minus, decimal point."""
    return norm(s).replace(",", ".")


def to_num(s: str):
    s = norm(s).replace(" ", "").rstrip("%").replace(",", ".")
    return mp.mpf(s)


def places(s: str) -> int:
    s = norm(s).rstrip("%").strip()
    return len(s.split(",")[1]) if "," in s else 0


def candidates(P, f, st, f1):
    """Every value a figure of the document may legitimately round: the forward pass, the weights and
    the AdamW quantities, exponentials, cos/sin of the RoPE angles, square roots, percentages."""
    out = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        else:
            out.append(v)

    for k, v in f.items():
        walk(v)
    for k in PARAMS:
        walk(P[k])
    eps = mp.mpf(str(SPEC["model"]["ln_eps"]))
    for k in ("ms1", "ms2", "ms_f"):
        walk([mp.sqrt(x + eps) for x in f[k]])
    walk([mp.exp(z) for z in f["logits"]])
    walk([[[mp.exp(x) for x in r] for r in h] for h in f["S"]])
    walk([mp.cos(mp.mpf(t)) for t in (1, 2)] + [mp.sin(mp.mpf(t)) for t in (1, 2)])
    walk([[[100 * x for x in r] for r in h] for h in f["A"]])
    for d in st.values():
        walk(list(d.values()) + [abs(d["g"])])
    walk(f1["p"])
    out += [f1["loss"], f["loss"] - f1["loss"], mp.mpf("0.54"), mp.mpf("0.00001")]
    c = SPEC["training"]["adamw"]
    out += [mp.mpf(str(c[k])) for k in ("lr", "beta1", "beta2")]
    return out


def main() -> int:
    P, f, G, st, f1, value = build()
    if "--dump" in sys.argv:
        def walk(k, v, ind=""):
            if isinstance(v, list):
                for i, x in enumerate(v):
                    walk(k, x, f"{ind}[{i}]")
            else:
                print(f"{k}{ind} = {mp.nstr(v, 10)}")

        for k, v in f.items():
            walk(k, v)
        print("adamw[1].loss =", mp.nstr(f1["loss"], 12))
        return 0
    lines = doc_lines()
    print(f"DOC.pdf: {len(lines)} lines of pdftotext -layout")
    bad, n_rows, planted_at = 0, 0, set()
    for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if not r.startswith("| `"):
            continue
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        try:
            ref = names[0]
            v = value(ref)
        except (KeyError, IndexError, ValueError):
            print(f"  {printed:>10}  line {line:>3}  no oracle value for {cells[-1]}  KEY ROW UNKNOWN")
            bad += 1
            continue
        n_rows += 1
        pct = printed.endswith("%")
        v100 = v * 100 if pct else v
        on_line = 1 <= line <= len(lines) and norm(printed) in norm(lines[line - 1])
        if len(cells) == 7:                                    # planted: exact value and correct rounding
            shown = cells[4].strip("`")
            right = rnd(v100, places(shown)) + (" %" if pct else "")
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = (plain(shown) == right and abs(exact - v100) <= mp.mpf("1e-10") * abs(v100)
                  and plain(printed) != rnd(v100, places(printed)) + (" %" if pct else ""))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted_at.add((line, norm(printed)))
        else:
            right = rnd(v100, places(printed)) + (" %" if pct else "")
            ok = right == plain(printed)
            note = "correct" if ok else "NOT THE CORRECT ROUNDING"
        if not on_line:
            ok, note = False, note + ", NOT ON THAT LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v100, 15):<22} rounds to {right:<10} {note}")
    # every decimal figure of the document is the rounding of some oracle value, unless planted
    cands = candidates(P, f, st, f1)

    def explained(tok: str) -> bool:
        n, x = places(tok), to_num(tok)
        return any(rnd(c, n) == rnd(x, n) for c in cands)

    unexplained = 0
    for i, text in enumerate(lines, 1):
        for mt in re.finditer(r"[\u2212-]?\d+,\d+(?: %)?", text):
            before = text[mt.start() - 1] if mt.start() else " "
            if mt.group(0)[0].isdigit() and (before.isalnum() or before in ",."):
                continue                                       # an index such as q3,1, not a figure
            tok = norm(mt.group(0))
            if (i, tok) in planted_at:
                continue
            if not explained(tok) and not (tok.endswith("2") and explained(tok[:-1])):
                # (a square written as a superscript comes out glued to its base: 0,4320² as "0,43202")
                print(f"  line {i}: {mt.group(0)} is no oracle value's rounding")
                unexplained += 1
    figs = sum(len(re.findall(r"[\u2212-]?\d+,\d+", t)) for t in lines)
    print(f"{figs} decimal figures in the PDF; {unexplained} unexplained outside the planted rows")
    bad += unexplained
    if bad:
        print(f"FAILED: {bad} problems")
        return 1
    print(f"all {n_rows} key rows agree with the oracle and every other figure is a correct rounding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
