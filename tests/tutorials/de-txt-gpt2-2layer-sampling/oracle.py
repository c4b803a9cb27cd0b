#!/usr/bin/env python3
"""Independent oracle for de-txt-gpt2-2layer-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # checks every figure of DOC.txt and both tables of KEY.md

Model (SPEC.toml beside this file): GPT-2 wiring, 2 layers, 1 head, d = 4, d_ff = 8, V = 6, T = 3.
H0 = E[ids] + W_pe[t]; per layer (pre-LN):
  LN1 = LN(H; gamma1, beta1); Q, K, V = LN1·W + b; S = Q·Kᵀ/√d_k, causal softmax A;
  Attn = (A·V)·W_O + b_O; H1 = H + Attn; LN2 = LN(H1; gamma2, beta2);
  Z = LN2·W_1 + b_1; R = GELU_tanh(Z) = Z/2·(1 + tanh(√(2/π)(Z + 0.044715 Z³))); F = R·W_2 + b_2; H2 = H1 + F.
LN_f = LN(H2; gamma_f, beta_f); h_final = LN_f[T-1]; logits = h_final·Eᵀ (tied); p = softmax; loss = −ln p[target];
grad_logits = p − y.  LayerNorm: biased variance, eps inside the root.
Sampling: softmax_T(T, v) = softmax(logits/T); topk(k, v): the k most probable renormalised;
topp(P, v): the shortest prefix of the descending ranking whose mass is ≥ P, renormalised.
Rounding is half away from zero on a 45-digit decimal of the value.
"""
from __future__ import annotations

import re
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

def layernorm(h, g, b, eps):
    d = len(h)
    mu = mp.fsum(h) / d
    var = mp.fsum((x - mu) ** 2 for x in h) / d
    s = mp.sqrt(var + eps)
    return mu, var, [g[j] * (h[j] - mu) / s + b[j] for j in range(d)]

def gelu_tanh(z):
    c = mp.mpf("0.044715")
    return z / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (z + c * z ** 3)))

def run(spec_path):
    S = tomllib.loads(Path(spec_path).read_text(encoding="utf-8"))
    m = S["model"]; vocab = m["vocab"]; d = m["d"]; eps = mp.mpf(str(m["ln_eps"]))
    ids = [vocab.index(t) for t in S["data"]["input"]]; tgt = vocab.index(S["data"]["target"])
    T = len(ids); V = len(vocab)
    W = S["weights"]; E = M(W["E"]); Wpe = M(W["W_pe"])
    out = {}
    H = [[E[ids[t]][j] + Wpe[t][j] for j in range(d)] for t in range(T)]
    for t in range(T):
        for j in range(d): out[f"H0[{t},{j}]"] = H[t][j]
    dk = d // m["heads"]
    for l, L in enumerate(S["layer"]):
        P = {k: M(v) for k, v in L.items()}
        pre = f"l{l}."
        LN1 = []
        for t in range(T):
            mu, var, y = layernorm(H[t], P["gamma1"], P["beta1"], eps)
            out[pre + f"mu1[{t}]"] = mu; out[pre + f"var1[{t}]"] = var
            for j in range(d): out[pre + f"LN1[{t},{j}]"] = y[j]
            LN1.append(y)
        def proj(Wm, b):
            R = matmul(LN1, Wm)
            return [[R[t][j] + b[j] for j in range(d)] for t in range(T)]
        Q, K, Vv = proj(P["W_Q"], P["b_Q"]), proj(P["W_K"], P["b_K"]), proj(P["W_V"], P["b_V"])
        for nm, X in (("Q", Q), ("K", K), ("V", Vv)):
            for t in range(T):
                for j in range(d): out[pre + f"{nm}[{t},{j}]"] = X[t][j]
        A = [[mp.mpf(0)] * T for _ in range(T)]
        for t in range(T):
            sc = [mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(dk) for s in range(T)]
            for s in range(T): out[pre + f"S[{t},{s}]"] = sc[s]
            den = mp.fsum(mp.exp(sc[s]) for s in range(t + 1))
            out[pre + f"A_den[{t}]"] = den
            for s in range(T):
                A[t][s] = mp.exp(sc[s]) / den if s <= t else mp.mpf(0)
                out[pre + f"A[{t},{s}]"] = A[t][s]
        AH = matmul(A, Vv)
        AO = matmul(AH, P["W_O"])
        AO = [[AO[t][j] + P["b_O"][j] for j in range(d)] for t in range(T)]
        H1 = [[H[t][j] + AO[t][j] for j in range(d)] for t in range(T)]
        for t in range(T):
            for j in range(d):
                out[pre + f"Attn_heads[{t},{j}]"] = AH[t][j]; out[pre + f"Attn[{t},{j}]"] = AO[t][j]
                out[pre + f"H1[{t},{j}]"] = H1[t][j]
        LN2 = []
        for t in range(T):
            mu, var, y = layernorm(H1[t], P["gamma2"], P["beta2"], eps)
            out[pre + f"mu2[{t}]"] = mu; out[pre + f"var2[{t}]"] = var
            for j in range(d): out[pre + f"LN2[{t},{j}]"] = y[j]
            LN2.append(y)
        Z = matmul(LN2, P["W_1"]); dff = len(P["b_1"])
        Z = [[Z[t][k] + P["b_1"][k] for k in range(dff)] for t in range(T)]
        R = [[gelu_tanh(Z[t][k]) for k in range(dff)] for t in range(T)]
        F = matmul(R, P["W_2"]); F = [[F[t][j] + P["b_2"][j] for j in range(d)] for t in range(T)]
        H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        for t in range(T):
            for k in range(dff):
                out[pre + f"Z[{t},{k}]"] = Z[t][k]; out[pre + f"R[{t},{k}]"] = R[t][k]
            for j in range(d):
                out[pre + f"F[{t},{j}]"] = F[t][j]; out[pre + f"H2[{t},{j}]"] = H2[t][j]
        H = H2
    gf, bf = M(W["gamma_f"]), M(W["beta_f"])
    for t in range(T):
        mu, var, y = layernorm(H[t], gf, bf, eps)
        out[f"mu_f[{t}]"] = mu; out[f"var_f[{t}]"] = var
        for j in range(d): out[f"LN_f[{t},{j}]"] = y[j]
    hf = [out[f"LN_f[{T-1},{j}]"] for j in range(d)]
    for j in range(d): out[f"h_final[{j}]"] = hf[j]
    logits = [mp.fsum(hf[j] * E[v][j] for j in range(d)) for v in range(V)]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    out["sum_exp"] = se; out["loss"] = -mp.log(p[tgt])
    for v, tok in enumerate(vocab):
        out[f"logits[{tok}]"] = logits[v]; out[f"exp(logits[{tok}])"] = mp.exp(logits[v])
        out[f"p[{tok}]"] = p[v]; out[f"grad_logits[{tok}]"] = p[v] - (1 if v == tgt else 0)
    smp = S.get("sampling", {})
    for Tt in smp.get("temperatures", []):
        Tm = mp.mpf(str(Tt)); ez = [mp.exp(z / Tm) for z in logits]; s = mp.fsum(ez)
        for v, tok in enumerate(vocab): out[f"softmax_T({Tt}, {tok})"] = ez[v] / s
    order = sorted(range(V), key=lambda v: (-p[v], v))
    k = smp.get("top_k", 3); keep = order[:k]; s = mp.fsum(p[v] for v in keep)
    for v, tok in enumerate(vocab): out[f"topk({k}, {tok})"] = p[v] / s if v in keep else mp.mpf(0)
    P_ = mp.mpf(str(smp.get("top_p", 0.9))); acc = mp.mpf(0); keep = []
    for v in order:
        keep.append(v); acc += p[v]
        if acc >= P_: break
    s = mp.fsum(p[v] for v in keep)
    for v, tok in enumerate(vocab): out[f"topp({smp.get('top_p', 0.9)}, {tok})"] = p[v] / s if v in keep else mp.mpf(0)
    out["_order"] = [vocab[v] for v in order]; out["_vocab"] = vocab
    return out


# ---------------------------------------------------------------- figures and key

def rnd(v, n: int) -> Decimal:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP)


def parse_fig(text: str):
    """A printed German figure → (Decimal, decimals, is_percent)."""
    t = text.strip().replace("\u2212", "-").replace("\u00a0", " ")
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace(",", ".")
    dec = len(t.split(".")[1]) if "." in t else 0
    return Decimal(t), dec, pct


def de(x: Decimal, pct: bool) -> str:
    s = f"{x}".replace(".", ",").replace("-", "\u2212")
    return s + " %" if pct else s


R = run(HERE / "SPEC.toml")


def value(ref: str):
    """A quantity name of the oracle's table, or a sum of them joined by ' + '."""
    ref = ref.strip()
    if ref == "sqrt(2/pi)":
        return mp.sqrt(2 / mp.pi)
    if ref == "0.044715":
        return mp.mpf("0.044715")
    parts = [p.strip() for p in ref.split(" + ")]
    return mp.fsum(R[p] for p in parts)


DOC = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()

# Every figure DOC.txt prints: (line, printed, quantity); a planted one marked True.
FIGS = [
    (42, "0,48", "H0[2,0]", False), (42, "−0,01", "H0[2,1]", False),
    (42, "0,80", "H0[2,2]", False), (42, "0,11", "H0[2,3]", False),
    (53, "0,345", "l0.mu1[2]", False), (53, "0,1016", "l0.var1[2]", False),
    (57, "0,4435", "l0.LN1[2,0]", False), (57, "−1,0022", "l0.LN1[2,1]", False),
    (57, "1,5939", "l0.LN1[2,2]", True), (57, "−0,7271", "l0.LN1[2,3]", False),
    (69, "0,8491", "l0.S[2,0]", False), (69, "0,3477", "l0.A[2,0]", False),
    (70, "0,7600", "l0.S[2,1]", False), (70, "0,3180", "l0.A[2,1]", False),
    (71, "0,8098", "l0.S[2,2]", False), (71, "0,3343", "l0.A[2,2]", False),
    (83, "0,044715", "0.044715", False), (84, "0,7979", "sqrt(2/pi)", False),
    (90, "−0,0762", "l0.R[2,0]", False), (91, "0,0249", "l0.R[2,1]", False),
    (92, "0,2341", "l0.R[2,2]", False), (93, "−0,0477", "l0.R[2,3]", False),
    (94, "−0,1402", "l0.R[2,4]", False), (95, "0,0789", "l0.R[2,5]", False),
    (96, "0,1140", "l0.R[2,6]", False), (97, "−0,1528", "l0.R[2,7]", False),
    (101, "0,0573", "l0.F[2,0]", False), (101, "−0,0689", "l0.F[2,1]", False),
    (101, "−0,0048", "l0.F[2,2]", False), (101, "0,0181", "l0.F[2,3]", False),
    (113, "1,0985", "l1.LN1[2,0]", False), (113, "−0,8226", "l1.LN1[2,1]", False),
    (113, "−1,1657", "l1.LN1[2,2]", False), (113, "0,7322", "l1.LN1[2,3]", False),
    (117, "0,3340", "l1.A[2,0]", False), (117, "0,3338", "l1.A[2,1]", True),
    (117, "0,3323", "l1.A[2,2]", False),
    (124, "0,1022", "l1.F[2,0]", True), (124, "−0,0854", "l1.F[2,1]", False),
    (124, "0,1515", "l1.F[2,2]", False), (124, "0,1787", "l1.F[2,3]", False),
    (132, "2,2172", "h_final[0]", False), (132, "−1,4536", "h_final[1]", False),
    (132, "−0,8422", "h_final[2]", False), (132, "0,4869", "h_final[3]", False),
    (139, "−1,3034", "logits[<s>]", False), (139, "0,0115", "p[<s>]", False),
    (140, "1,8601", "logits[der]", False), (140, "0,2715", "p[der]", False),
    (141, "2,4408", "logits[Hund]", False), (141, "0,4853", "p[Hund]", False),
    (142, "0,1531", "logits[bellt]", False), (142, "0,0493", "p[bellt]", False),
    (143, "0,6346", "logits[laut]", False), (143, "0,0797", "p[laut]", False),
    (144, "0,8873", "logits[Katze]", False), (144, "0,1026", "p[Katze]", False),
    (146, "23,6592", "sum_exp", False),
    (150, "0,0797", "p[laut]", False), (150, "2,5295", "loss", True),
    (169, "0,0029", "softmax_T(0.7, <s>)", False), (169, "0,0313", "softmax_T(1.5, <s>)", False),
    (170, "0,2622", "softmax_T(0.7, der)", False), (170, "0,2578", "softmax_T(1.5, der)", False),
    (171, "0,6011", "softmax_T(0.7, Hund)", False), (171, "0,3797", "softmax_T(1.5, Hund)", False),
    (172, "0,0229", "softmax_T(0.7, bellt)", False), (172, "0,0826", "softmax_T(1.5, bellt)", False),
    (173, "0,0455", "softmax_T(0.7, laut)", False), (173, "0,1139", "softmax_T(1.5, laut)", False),
    (174, "0,0653", "softmax_T(0.7, Katze)", False), (174, "0,1139", "softmax_T(1.5, Katze)", True),
    (176, "6,01 %", "softmax_T(0.7, Hund)", True),
    (184, "0,8595", "p[Hund] + p[der] + p[Katze]", False),
    (186, "0,4853", "p[Hund]", False), (186, "0,8595", "p[Hund] + p[der] + p[Katze]", False),
    (186, "0,5646", "topk(3, Hund)", True),
    (187, "0,3159", "topk(3, der)", False), (188, "0,1194", "topk(3, Katze)", False),
    (201, "0,5167", "topp(0.9, Hund)", False), (202, "0,2891", "topp(0.9, der)", False),
    (203, "0,1093", "topp(0.9, Katze)", False), (204, "0,0849", "topp(0.9, laut)", False),
    (213, "0,0115", "grad_logits[<s>]", False), (213, "0,2715", "grad_logits[der]", False),
    (213, "0,4853", "grad_logits[Hund]", False), (213, "0,0493", "grad_logits[bellt]", False),
    (213, "0,0797", "grad_logits[laut]", True), (213, "0,1026", "grad_logits[Katze]", False),
]
# settings, not model quantities: the temperatures and P, checked for being printed as they are
SETTINGS = [(167, "0,7"), (167, "1,5"), (176, "0,7"), (177, "1,5"), (192, "0,9"), (196, "0,9")]


def on_line(line: int, printed: str) -> bool:
    text = DOC[line - 1]
    return re.search(r"(?<![\d,])" + re.escape(printed) + r"(?![\d,]*\d)", text) is not None


def correct_rounding(v, printed: str) -> str:
    _, dec, pct = parse_fig(printed)
    return de(rnd(v * 100 if pct else v, dec), pct)


def check_figs() -> int:
    bad, planted = 0, 0
    for line, printed, ref, is_planted in FIGS:
        v = value(ref)
        want = correct_rounding(v, printed)
        ok_line = on_line(line, printed)
        right = want == printed
        if not ok_line or right == is_planted:
            bad += 1
            print(f"FIG FAIL line {line}: {printed} ({ref}) correct {want} planted={is_planted} on_line={ok_line}")
        planted += is_planted
    for line, printed in SETTINGS:
        if not on_line(line, printed):
            bad += 1
            print(f"SETTING FAIL line {line}: {printed}")
    # every decimal figure of the document is accounted for
    listed = {(l, p) for l, p, _, _ in FIGS} | set(SETTINGS)
    for k, text in enumerate(DOC, 1):
        for m in re.finditer(r"[−-]?\d+,\d+(?: %)?", text):
            if (k, m.group()) not in listed and (k, m.group().rstrip(" %")) not in listed:
                bad += 1
                print(f"UNLISTED figure line {k}: {m.group()}")
    print(f"{len(FIGS)} figures of model quantities checked, {planted} planted, {bad} problems")
    return bad


def key_tables():
    text = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    tables, heading, i = [], "", 0
    while i < len(text):
        if text[i].startswith("#"):
            heading = text[i].strip("# ").strip()
        if text[i].startswith("|") and i + 1 < len(text) and text[i + 1].startswith("| ---"):
            head = [c.strip().lower() for c in text[i].strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(text) and text[i].startswith("|"):
                rows.append([c.strip() for c in text[i].strip().strip("|").split("|")])
                i += 1
            tables.append((heading, head, rows))
            continue
        i += 1
    return tables


def unq(c: str) -> str:
    return c.strip().strip("`")


def check_key() -> int:
    bad = 0
    tables = key_tables()
    planted = next(t for t in tables if "planted" in t[0].lower())
    correct = next(t for t in tables if "correct" in t[0].lower())
    h = {n: k for k, n in enumerate(planted[1])}
    print("\n## Planted errors")
    for row in planted[2]:
        printed, line = unq(row[h["printed"]]), int(row[h["line"]])
        refs = re.findall(r"`([^`]+)`", row[h["quantity"]])
        vals = [value(r) for r in refs]
        v = vals[0]
        exact = row[h["exact value"]].rstrip("…").replace("\u2212", "-")
        corr = unq(row[h["correct rounding"]])
        want = correct_rounding(v, printed)
        _, _, pct = parse_fig(printed)
        shown = v * 100 if pct else v
        n_dig = len(exact.replace("-", "").replace(".", "").lstrip("0"))
        ok_exact = abs(mp.mpf(exact) - shown) <= mp.mpf(10) ** (-(len(exact.split(".")[1]))) if "." in exact else False
        ok = (all(abs(x - v) < mp.mpf(10) ** -40 for x in vals) and on_line(line, printed)
              and corr == want and printed != want and ok_exact and n_dig >= 8)
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} line {line:>3} {printed:>8}  {refs[0]:<24} = {mp.nstr(shown, 20)}"
              f"  key exact {exact}  correct {want} (key {corr})")
    h = {n: k for k, n in enumerate(correct[1])}
    print("\n## Correct figures")
    for row in correct[2]:
        printed, line = unq(row[h["printed"]]), int(row[h["line"]])
        refs = re.findall(r"`([^`]+)`", row[h["quantity"]])
        vals = [value(r) for r in refs]
        want = correct_rounding(vals[0], printed)
        ok = want == printed and on_line(line, printed) and all(abs(x - vals[0]) < mp.mpf(10) ** -40 for x in vals)
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} line {line:>3} {printed:>8}  {refs[0]:<24} = {mp.nstr(vals[0], 20)}")
    print(f"\n{len(planted[2])} planted rows, {len(correct[2])} correct rows, {bad} problems")
    if len(planted[2]) != 8 or len(correct[2]) != 10:
        bad += 1
        print("FAIL: the key must have 8 planted errors and 10 correct figures")
    return bad


if __name__ == "__main__":
    problems = check_figs() + check_key()
    assert problems == 0, f"{problems} problems"
    print("all checks passed")
