#!/usr/bin/env python3
"""Independent computation behind KEY.md of `id-md-gpt2-2layer`: plain mpmath at 50 digits, no symgpt.

    python oracle.py        # every KEY.md row: its quantity's value, the correct rounding, and whether
                            # the key's columns and the document's line agree

Model (read from SPEC.toml beside this file, every number taken exactly from its decimal text):
GPT-2 style, pre-LN, two blocks, one head, tied head.
    H0 = E[ids] + W_pe
    per block:  LN1 = LN(H)  (biased variance, eps; gamma 1, beta 0)
                Q, K, V = LN1·W + b;  S = Q·Kᵀ/√d_k;  causal softmax A;  Attn_heads = A·V
                Attn = Attn_heads·W_O + b_O;  H1 = H + Attn
                LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = GELU_tanh(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = LN(H2 of the last block);  h_final = LN_f[T-1];  logits = h_final·Eᵀ;  p = softmax;  loss = -ln p[target]
    grad_logits = p - y;  grad_E_head[v] = (p_v - y_v)·h_final
    head_step: E[target] - lr·grad_E_head[target]; the target is not in the prompt, so only its logit moves.
GELU_tanh(z) = z/2·(1 + tanh(√(2/π)·(z + 0.044715·z³))), 0.044715 the exact decimal.
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


def num(x) -> mp.mpf:
    return mp.mpf(str(x))          # TOML floats are parsed as their text (parse_float=str)


def M(a):
    return [[num(x) for x in r] for r in a] if isinstance(a[0], list) else [num(x) for x in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return "0." + "0" * n if s == "-0." + "0" * n else s


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def addrow(A, b):
    return [[x + y for x, y in zip(r, b)] for r in A]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(x - m) / mp.sqrt(v + eps) for x in r] for r, m, v in zip(H, mu, var)]


C_GELU = mp.mpf("0.044715")


def gelu_tanh(z):
    return z / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (z + C_GELU * z ** 3)))


def load_spec(path: Path = HERE / "SPEC.toml") -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"), parse_float=str)


def forward(spec: dict, E=None) -> dict:
    W, m = spec["weights"], spec["model"]
    eps = num(m["ln_eps"])
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    E = E if E is not None else M(W["E"])
    P = M(W["W_pe"])
    T, d, nh = len(ids), m["d"], m["heads"]
    assert nh == 1
    H = [[E[ids[t]][j] + P[t][j] for j in range(d)] for t in range(T)]
    out = {"vocab": vocab, "ids": ids, "tgt": tgt, "eps": eps, "E": E, "W_pe": P,
           "X": [E[i][:] for i in ids], "H0": H, "layers": []}
    for L in spec["layer"]:
        g = {k: M(v) for k, v in L.items()}
        mu1, var1, LN1 = layernorm(H, eps)
        Q = addrow(matmul(LN1, g["W_Q"]), g["b_Q"])
        K = addrow(matmul(LN1, g["W_K"]), g["b_K"])
        V = addrow(matmul(LN1, g["W_V"]), g["b_V"])
        S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(d) for s in range(T)] for t in range(T)]
        den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
        A = [[mp.exp(S[t][s]) / den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
        O = matmul(A, V)
        Att = addrow(matmul(O, g["W_O"]), g["b_O"])
        H1 = [[H[t][j] + Att[t][j] for j in range(d)] for t in range(T)]
        mu2, var2, LN2 = layernorm(H1, eps)
        Z = addrow(matmul(LN2, g["W_1"]), g["b_1"])
        R = [[gelu_tanh(z) for z in r] for r in Z]
        F = addrow(matmul(R, g["W_2"]), g["b_2"])
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        out["layers"].append(dict(w=g, mu1=mu1, var1=var1, LN1=LN1, Q=Q, K=K, V=V, S=S, A_den=den, A=A,
                                  Attn_heads=O, Attn=Att, H1=H1, mu2=mu2, var2=var2, LN2=LN2, Z=Z, R=R, F=F,
                                  H2=H2))
        H = H2
    mu_f, var_f, LN_f = layernorm(H, eps)
    h = LN_f[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(E))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    out.update(mu_f=mu_f, var_f=var_f, LN_f=LN_f, h_final=h, logits=logits, sum_exp=se, p=p,
               loss=-mp.log(p[tgt]))
    y = [mp.mpf(1 if v == tgt else 0) for v in range(len(E))]
    out["grad_logits"] = [p[v] - y[v] for v in range(len(E))]
    out["grad_E_head"] = [[out["grad_logits"][v] * h[j] for j in range(d)] for v in range(len(E))]
    return out


def head_step(spec: dict, f: dict) -> dict:
    """E[target] - lr·grad_E_head[target], then a full forward pass with the new row."""
    lr = num(spec["training"]["lr"])
    tgt, d = f["tgt"], len(f["h_final"])
    assert tgt not in f["ids"], "the target must not be in the prompt for this tutorial"
    E2 = [r[:] for r in f["E"]]
    E2[tgt] = [f["E"][tgt][j] - lr * f["grad_E_head"][tgt][j] for j in range(d)]
    g = forward(spec, E=E2)
    # the prompt's forward pass does not read E[target], so h_final is unchanged
    assert all(abs(a - b) < mp.mpf(10) ** -45 for a, b in zip(g["h_final"], f["h_final"]))
    return dict(E=E2, logits=g["logits"], p=g["p"], loss=g["loss"], sum_exp=g["sum_exp"])


def refs(spec: dict) -> dict:
    """symgpt reference name -> exact value (tokens by their string)."""
    f = forward(spec)
    hs = head_step(spec, f)
    vocab = f["vocab"]
    out: dict[str, mp.mpf] = {}

    def put(name, X, tok_axis=None):
        if isinstance(X, list) and X and isinstance(X[0], list):
            for i, r in enumerate(X):
                for j, x in enumerate(r):
                    out[f"{name}[{vocab[i] if tok_axis == 0 else i},{vocab[j] if tok_axis == 1 else j}]"] = x
        elif isinstance(X, list):
            for i, x in enumerate(X):
                out[f"{name}[{vocab[i] if tok_axis == 0 else i}]"] = x
        else:
            out[name] = X

    put("E", f["E"], 0)
    put("W_pe", f["W_pe"])
    put("PE", f["W_pe"])
    put("X", f["X"])
    put("H0", f["H0"])
    for l, L in enumerate(f["layers"]):
        for k in ("mu1", "var1", "LN1", "Q", "K", "V", "S", "A_den", "A", "Attn_heads", "Attn", "H1", "mu2",
                  "var2", "LN2", "Z", "R", "F", "H2"):
            put(f"l{l}.{k}", L[k])
    for k in ("mu_f", "var_f", "LN_f", "h_final", "sum_exp", "loss"):
        put(k, f[k])
    for k in ("logits", "p", "grad_logits"):
        put(k, f[k], 0)
    put("grad_E_head", f["grad_E_head"], 0)
    put("grad_E", f["grad_E_head"], 0)            # E[target] is read by the head only (target not in prompt)
    put("head_step.E", hs["E"], 0)
    put("head_step.logits", hs["logits"], 0)
    put("head_step.p", hs["p"], 0)
    put("head_step.loss", hs["loss"])
    put("head_step.sum_exp", hs["sum_exp"])
    # the document's other intermediate figures
    eps = f["eps"]
    for l, L in enumerate(f["layers"]):
        for t in range(len(f["ids"])):
            out[f"sqrt(l{l}.var1[{t}] + ln_eps)"] = mp.sqrt(L["var1"][t] + eps)
            out[f"sqrt(l{l}.var2[{t}] + ln_eps)"] = mp.sqrt(L["var2"][t] + eps)
            for s in range(t + 1):
                out[f"exp(l{l}.S[{t},{s}])"] = mp.exp(L["S"][t][s])
            for k in range(len(L["Z"][t])):
                z = L["Z"][t][k]
                arg = mp.sqrt(2 / mp.pi) * (z + C_GELU * z ** 3)
                out[f"gelu_arg(l{l}.Z[{t},{k}])"] = arg
                out[f"tanh(gelu_arg(l{l}.Z[{t},{k}]))"] = mp.tanh(arg)
                out[f"1 + tanh(gelu_arg(l{l}.Z[{t},{k}]))"] = 1 + mp.tanh(arg)
    T = len(f["ids"])
    out["4*var_f[2]"] = 4 * f["var_f"][T - 1]                    # the sum of squared deviations
    out["sqrt(var_f[2] + ln_eps)"] = mp.sqrt(f["var_f"][T - 1] + eps)
    for v, z in enumerate(f["logits"]):
        out[f"exp(logits[{vocab[v]}])"] = mp.exp(z)
        out[f"100*p[{vocab[v]}]"] = 100 * f["p"][v]
    tgt = vocab[f["tgt"]]
    out["dot(h_final, h_final)"] = mp.fsum(x * x for x in f["h_final"])
    out[f"1 - p[{tgt}]"] = 1 - f["p"][f["tgt"]]
    out[f"head_step.logits[{tgt}] - logits[{tgt}]"] = hs["logits"][f["tgt"]] - f["logits"][f["tgt"]]
    out[f"exp(head_step.logits[{tgt}])"] = mp.exp(hs["logits"][f["tgt"]])
    return out


def main() -> int:
    spec = load_spec()
    values = refs(spec)
    doc = next(HERE.glob("DOC.*"))
    lines = doc.read_text(encoding="utf-8").splitlines()
    key = (HERE / "KEY.md").read_text(encoding="utf-8")
    rows = [r for r in key.splitlines() if r.startswith("| `")]
    bad = 0
    planted = correct = 0
    print(f"id-md-gpt2-2layer: {doc.name}, {len(lines)} lines")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        # every alternative the key names must be the same value
        for n in names:
            if n in values and abs(values[n] - values[ref]) > mp.mpf(10) ** -40:
                print(f"  {printed:>10}  ALTERNATIVES DIFFER: {ref} vs {n}")
                bad += 1
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        on_line = 1 <= line <= len(lines) and printed in lines[line - 1]
        if len(cells) == 7:
            planted += 1
            exact = mp.mpf(cells[3].rstrip("…"))
            pp = len(printed.rstrip("%").split(".")[1]) if "." in printed else 0
            differs = rnd(v, pp) + ("%" if printed.endswith("%") else "") != printed
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and differs
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            correct += 1
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        if not on_line:
            note += ", NOT ON ITS LINE"
        bad += any(w.isupper() and len(w) > 2 for w in note.split())
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    if planted != 8 or correct != 10:
        print(f"EXPECTED 8 planted and 10 correct rows, got {planted} and {correct}")
        bad += 1
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
