#!/usr/bin/env python3
"""Independent check of the answer key of `fr-md-gpt2-T4-topp`: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row (quantity, value, correct rounding, printed text on its line),
                              # then an audit of every model figure of DOC.md
    python oracle.py --all    # also print every figure family of the tutorial at its precision

The model is read from SPEC.toml (tomllib): one GPT-2 block, pre-LN (gamma 1, beta 0, eps from the spec),
1 head, d = 4, d_ff = 8, learned positions W_pe, biases on every projection, W_O / b_O, tanh-GELU
(0.044715 as an exact decimal), a final LayerNorm ln_f, tied head, loss = -ln p(target) at the last position.

    H0 = E[ids] + W_pe;  LN1 = LN(H0)  (biased variance)
    Q, K, V = LN1·W + b;  S = Q·Kᵀ/√d;  A = causal softmax(S);  Attn_heads = A·V;  Attn = Attn_heads·W_O + b_O
    H1 = H0 + Attn;  LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = GELU_tanh(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = LN(H2);  h_final = LN_f[T-1];  logits = h_final·Eᵀ;  p = softmax(logits);  loss = -ln p[target]
    softmax_T(T, v) = softmax(logits / T)[v]
    topp(P, v): the shortest prefix of the ranking (ties to the lower id) whose mass is >= P, renormalised; 0 outside.

Rounding is half away from zero on the 45-digit decimal of the value.

The audit recomputes the figures of DOC.md line by line (each table cell, and in the worked lines every
figure in order of appearance) and lists the places where the document differs from the correct rounding;
they must be exactly the planted errors of KEY.md.
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
MINUS = "\u2212"


# ---------------------------------------------------------------- the model

def num(x) -> mp.mpf:
    return mp.mpf(str(x))


def vec(a):
    return [num(x) for x in a]


def mat(a):
    return [vec(r) for r in a]


def matmul(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def add_bias(A, b):
    return [[x + y for x, y in zip(row, b)] for row in A]


def layernorm(H, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    return mu, var, [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]


GELU_C = mp.mpf("0.044715")


def gelu_tanh(z):
    return z / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (z + GELU_C * z ** 3)))


def forward(spec):
    m, w, L = spec["model"], spec["weights"], spec["layer"][0]
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    eps = num(m["ln_eps"])
    E, Wpe = mat(w["E"]), mat(w["W_pe"])
    T, d = len(ids), m["d"]
    X = [E[i][:] for i in ids]
    PE = [Wpe[t][:] for t in range(T)]
    H0 = [[X[t][j] + PE[t][j] for j in range(d)] for t in range(T)]
    mu1, var1, LN1 = layernorm(H0, eps)
    W = {k: (mat(v) if isinstance(v[0], list) else vec(v)) for k, v in L.items()}
    Q = add_bias(matmul(LN1, W["W_Q"]), W["b_Q"])
    K = add_bias(matmul(LN1, W["W_K"]), W["b_K"])
    V = add_bias(matmul(LN1, W["W_V"]), W["b_V"])
    dk = d // m["heads"]
    S = [[mp.fsum(Q[t][j] * K[s][j] for j in range(d)) / mp.sqrt(dk) for s in range(T)] for t in range(T)]
    A_den = [mp.fsum(mp.exp(S[t][s]) for s in range(t + 1)) for t in range(T)]
    A = [[mp.exp(S[t][s]) / A_den[t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    Attn_heads = matmul(A, V)
    Attn = add_bias(matmul(Attn_heads, W["W_O"]), W["b_O"])
    H1 = [[H0[t][j] + Attn[t][j] for j in range(d)] for t in range(T)]
    mu2, var2, LN2 = layernorm(H1, eps)
    Z = add_bias(matmul(LN2, W["W_1"]), W["b_1"])
    R = [[gelu_tanh(z) for z in r] for r in Z]
    F = add_bias(matmul(R, W["W_2"]), W["b_2"])
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    mu_f, var_f, LN_f = layernorm(H2, eps)
    h = LN_f[-1]
    logits = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    sum_exp = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / sum_exp for z in logits]
    return dict(vocab=vocab, ids=ids, tgt=tgt, eps=eps, E=E, W=W, X=X, PE=PE, H0=H0, mu1=mu1, var1=var1, LN1=LN1,
                Q=Q, K=K, V=V, S=S, A_den=A_den, A=A, Attn_heads=Attn_heads, Attn=Attn, H1=H1, mu2=mu2, var2=var2,
                LN2=LN2, Z=Z, R=R, F=F, H2=H2, mu_f=mu_f, var_f=var_f, LN_f=LN_f, h_final=h, logits=logits,
                sum_exp=sum_exp, p=p, loss=-mp.log(p[tgt]))


def softmax_T(logits, T):
    e = [mp.exp(z / T) for z in logits]
    s = mp.fsum(e)
    return [x / s for x in e], e, s


def top_p(p, P):
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    keep, c, cum = [], mp.mpf(0), []
    for i in order:
        c += p[i]
        cum.append(c)
    for i, ci in zip(order, cum):
        keep.append(i)
        if ci >= P:
            break
    mass = mp.fsum(p[i] for i in keep)
    return order, cum, keep, [p[i] / mass if i in keep else mp.mpf(0) for i in range(len(p))]


def quantities(f):
    """Every named value the key may cite (symgpt's names, tokens by word)."""
    vocab = f["vocab"]
    out = {}
    for name in ("X", "PE", "H0", "LN1", "Q", "K", "V", "S", "A", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F",
                 "H2", "LN_f"):
        for i, row in enumerate(f[name]):
            for j, x in enumerate(row):
                out[f"{name}[{i},{j}]"] = x
    for name in ("mu1", "var1", "mu2", "var2", "mu_f", "var_f", "A_den", "h_final"):
        for i, x in enumerate(f[name]):
            out[f"{name}[{i}]"] = x
    for name in ("var1", "var2", "var_f"):
        for i, x in enumerate(f[name]):
            out[f"sqrt({name}[{i}] + ln_eps)"] = mp.sqrt(x + f["eps"])
    for v, tok in enumerate(vocab):
        out[f"logits[{tok}]"] = f["logits"][v]
        out[f"exp(logits[{tok}])"] = mp.exp(f["logits"][v])
        out[f"p[{tok}]"] = f["p"][v]
    pT, _, _ = softmax_T(f["logits"], mp.mpf("0.5"))
    _, _, _, tp = top_p(f["p"], mp.mpf("0.8"))
    for v, tok in enumerate(vocab):
        out[f"softmax_T(0.5, {tok})"] = pT[v]
        out[f"topp(0.8, {tok})"] = tp[v]
    out["sum_exp"], out["loss"] = f["sum_exp"], f["loss"]
    return out


# ---------------------------------------------------------------- rounding and the document's formats

def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and set(s[1:]) <= set("0.") else s


def fr(v, n=4) -> str:                 # prose and tables: 0,2388 and −0,2542
    return rnd(v, n).replace(".", ",").replace("-", MINUS)


def tx(v, n=4) -> str:                 # math: 0{,}2388 and -0{,}2542
    return rnd(v, n).replace(".", "{,}")


def txp(v, n=4) -> str:                # a negative factor in parentheses
    s = tx(v, n)
    return f"({s})" if s.startswith("-") else s


def tw(x) -> str:                      # a weight as the worked lines write it: 0{,}35, (-0{,}25)
    s = format(Decimal(str(x)).normalize(), "f").replace(".", "{,}")
    return f"({s})" if s.startswith("-") else s


def norm(text: str) -> str:            # a document's text as it reads: {,} -> , and the Unicode minus -> -
    return text.replace("{,}", ",").replace(MINUS, "-")


# ---------------------------------------------------------------- the audit of DOC.md

def expected_lines(f):
    """(marker, kind, expected): kind "row" compares the table cells exactly, kind "seq" looks for the
    figures in order of appearance on the line found by its marker (the first line that starts with it)."""
    vocab, W = f["vocab"], f["W"]
    H0, LN1, Q, K, V, S, A = f["H0"], f["LN1"], f["Q"], f["K"], f["V"], f["S"], f["A"]
    words = [vocab[i] for i in f["ids"]]
    t4 = 3
    dev = [x - f["mu1"][t4] for x in H0[t4]]
    sq = lambda v: mp.sqrt(v + f["eps"])
    pT, eT, sT = softmax_T(f["logits"], mp.mpf("0.5"))
    order, cum, keep, tp = top_p(f["p"], mp.mpf("0.8"))
    Lg = f["logits"]
    c = mp.sqrt(2 / mp.pi)
    a3 = f["Z"][t4][2]
    inner = a3 + GELU_C * a3 ** 3
    out = []
    # §1
    e2, p2 = f["X"][1], f["PE"][1]
    out.append((r"$$\mathbf{x}_2 =", "seq", [tw(x).strip("()") for x in e2] + [tw(x).strip("()") for x in p2]
                + [tx(x, 2) for x in H0[1]]))
    for t in range(4):
        out.append((f"| {t + 1} | {words[t]} | ", "row", [str(t + 1), words[t]] + [fr(x, 2) for x in H0[t]]))
    # §2
    out.append(("$$m_4 =", "seq", [tx(H0[t4][0], 2), tx(H0[t4][1], 2), tx(H0[t4][2], 2),
                                   "- " + tx(-H0[t4][3], 2), tx(f["mu1"][t4])]))
    out.append(("$$s_4^2 =", "seq", [txp(x) for x in dev] + [tx(f["var1"][t4]), tx(f["var1"][t4] + f["eps"], 5),
                                                             tx(sq(f["var1"][t4]))]))
    out.append((r"$$\hat{\mathbf{x}}_4 =", "seq", [tx(x) for x in dev] + [tx(sq(f["var1"][t4]))]
                + [tx(x) for x in LN1[t4]]))
    for t in range(4):
        out.append((f"| {t + 1} | {fr(f['mu1'][t])} |", "row",
                    [str(t + 1), fr(f["mu1"][t]), fr(f["var1"][t])] + [fr(x) for x in LN1[t]]))
    # §3
    out.append(("$$q_{4,1} =", "seq", [x for i in range(4) for x in (txp(LN1[t4][i]), tw(W["W_Q"][i][0]))]
                + [tw(W["b_Q"][0]), tx(Q[t4][0])]))
    for nm, M in (("q", Q), ("k", K), ("v", V)):
        for t in range(4):
            lab = rf"$\mathbf{{{nm}}}_{t + 1}$"
            out.append((f"| {lab} |", "row", [lab] + [fr(x) for x in M[t]]))
    # §4
    raw = mp.fsum(Q[t4][j] * K[0][j] for j in range(4))
    out.append(("$$c_{41} =", "seq", [x for j in range(4) for x in (txp(Q[t4][j]), txp(K[0][j]))]
                + [tx(raw), tx(S[t4][0])]))
    for t in range(4):
        out.append((f"| i = {t + 1} | {fr(S[t][0])}", "row",
                    [f"i = {t + 1}"] + [fr(S[t][s]) if s <= t else "−∞" for s in range(4)]))
    # §5
    ex = [mp.exp(s) for s in S[t4]]
    out.append(("$$e^{c_{41}} =", "seq", [tx(x) for x in ex]))
    out.append((r"$$\Sigma_4 =", "seq", [tx(x) for x in ex] + [tx(f["A_den"][t4])]))
    out.append((r"d'où $\omega_{41}", "seq", [tx(x) for x in A[t4]]))
    for t in range(4):
        out.append((f"| i = {t + 1} | {fr(A[t][0])}", "row",
                    [f"i = {t + 1}"] + [fr(A[t][s]) if s <= t else "0" for s in range(4)]))
    out.append(("Chaque ligne somme à 1.", "seq", ["1"] + [fr(100 * A[t4][s], 1) + " %" for s in range(3)]
                + [fr(100 * A[t4][3], 2) + " %"]))
    # §6
    AH, At = f["Attn_heads"][t4], f["Attn"][t4]
    out.append((r"$$\mathbf{y}_4 =", "seq", [tx(x) for x in A[t4]] + [tx(x) for x in AH]))
    out.append((r"$$\mathbf{o}_4 =", "seq", [x for i in range(4) for x in (txp(AH[i]), tw(W["W_O"][i][1]))]
                + [tw(W["b_O"][1]), tx(At[1])]))
    out.append((r"ce qui donne $\mathbf{o}_4", "seq", [tx(x) for x in At]))
    out.append((r"$$\mathbf{h}_4 =", "seq", [tx(x, 2) for x in H0[t4]] + [tx(x) for x in At]
                + [tx(x) for x in f["H1"][t4]]))
    # §7
    out.append(("$$m = " + tx(f["mu2"][t4]), "seq", [tx(f["mu2"][t4]), tx(f["var2"][t4]), tx(sq(f["var2"][t4]))]
                + [tx(x) for x in f["LN2"][t4]]))
    L2 = f["LN2"][t4]
    for k, lab in ((0, "$$a_1 ="), (2, "$$a_3 =")):
        seq = [x for i in range(4) for x in (txp(L2[i]), tw(W["W_1"][i][k]))]
        b = W["b_1"][k]
        seq += [("- " + tw(-b)) if b < 0 else ("+ " + tw(b))] if k == 0 else []   # a_3's line has no bias term
        out.append((lab, "seq", seq + [tx(f["Z"][t4][k])]))
    out.append(("Pour $a_3$ :", "seq", [tx(a3 ** 3), tx(inner), tx(c), tx(c * inner), tx(mp.tanh(c * inner)),
                                        tx(a3), tx(1 + mp.tanh(c * inner)), tx(f["R"][t4][2])]))
    for k in range(8):
        out.append((f"| {k + 1} | {fr(f['Z'][t4][k])}", "row", [str(k + 1), fr(f["Z"][t4][k]), fr(f["R"][t4][k])]))
    out.append((r"$$\mathbf{f} =", "seq", [tx(x) for x in f["F"][t4]] + [tx(x) for x in f["H2"][t4]]))
    # §8
    out.append(("$$m = " + tx(f["mu_f"][t4]), "seq", [tx(f["mu_f"][t4]), tx(f["var_f"][t4]), tx(sq(f["var_f"][t4]))]
                + [tx(x) for x in f["h_final"]]))
    un = vocab.index("un")
    out.append((r"$$o_{\text{un}} =", "seq", [x for j in range(4) for x in (txp(f["h_final"][j]), tw(f["E"][un][j]))]
                + [tx(Lg[un])]))
    out.append((r"$$\mathbf{o} =", "seq", [tx(x) for x in Lg]))
    # §9
    for v, tok in enumerate(vocab):
        out.append((f"| {tok} | {fr(Lg[v])} |", "row", [tok, fr(Lg[v]), fr(mp.exp(Lg[v])), fr(f["p"][v])]))
    out.append(("La somme des exponentielles", "seq", [fr(f["sum_exp"]), fr(100 * f["p"][3], 2) + " %",
                                                       fr(100 * f["p"][un], 2) + " %"]))
    out.append((r"$$\ell =", "seq", [tx(f["p"][un]), tx(f["loss"])]))
    out.append(("Pour situer ce chiffre", "seq", [fr(mp.log(6)), fr(f["loss"])]))
    # §10
    for v, tok in enumerate(vocab):
        out.append((f"| {tok} | {fr(2 * Lg[v])} |", "row", [tok, fr(2 * Lg[v]), fr(eT[v]), fr(pT[v])]))
    out.append(("Le dénominateur vaut cette fois", "seq", [fr(sT), fr(100 * f["p"][3], 2) + " %",
                                                           fr(100 * pT[3], 2) + " %", fr(pT[0]), fr(pT[1])]))
    # §11
    for r, v in enumerate(order):
        out.append((f"| {r + 1} | {vocab[v]} |", "row", [str(r + 1), vocab[v], fr(f["p"][v]), fr(cum[r]),
                                                        "oui" if v in keep else "non",
                                                        fr(tp[v]) if v in keep else "0"]))
    s0 = order[0]
    out.append(("Le cumul franchit", "seq", [fr(cum[len(keep) - 1]), fr(f["p"][s0]), fr(cum[len(keep) - 1]),
                                             fr(tp[s0])]))
    # the NumPy check (decimal points, NumPy drops trailing zeros)
    npf = lambda x: (rnd(x, 4).rstrip("0") if "." in rnd(x, 4) else rnd(x, 4))
    out.append(("T=1:", "seq", [npf(x) for x in f["p"]]))
    out.append(("T=0.5:", "seq", [npf(x) for x in pT]))
    out.append(("- Au bout du compte", "seq", [tx(f["p"][un]), fr(f["loss"]), fr(100 * pT[3], 1) + " %"]))
    return out


def find_in_order(line: str, items):
    """Each expected figure must appear after the previous one, not glued to other digits."""
    pos, missing = 0, []
    for it in items:
        pat = re.escape(it)
        lead = r"(?<![\d}])" if it[0] in "-(" else r"(?<![\d}\-])"
        m = re.compile(lead + pat + r"(?![\d{])").search(line, pos)
        if m is None:
            missing.append(it)
        else:
            pos = m.end()
    return missing


def audit(f, doc_lines):
    """Return the list of (line number, expected text, what the line has) where DOC.md differs."""
    diffs = []
    for marker, kind, exp in expected_lines(f):
        hits = [i for i, l in enumerate(doc_lines) if l.startswith(marker)]
        if not hits:
            diffs.append((0, marker, "LINE NOT FOUND"))
            continue
        i = hits[0]
        line = doc_lines[i]
        if kind == "row":
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(exp):
                diffs.append((i + 1, " | ".join(exp), line))
                continue
            for e, c in zip(exp, cells):
                if e != c:
                    diffs.append((i + 1, e, c))
        else:
            for e in find_in_order(line, exp):
                diffs.append((i + 1, e, "(not found in order)"))
    return diffs


# ---------------------------------------------------------------- main

def main() -> int:
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    f = forward(spec)
    values = quantities(f)
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").split("\n")
    bad = 0
    planted = []

    if "--all" in sys.argv:
        for k, v in values.items():
            print(f"  {k:<28} {mp.nstr(v, 15)}")

    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    print("KEY.md rows:")
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line_no = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        pct = printed.endswith("%")
        v = values[ref] * (100 if pct else 1)
        on_line = 0 < line_no <= len(doc) and norm(printed) in norm(doc[line_no - 1])
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        body = norm(shown).rstrip("%").strip()
        places = len(body.split(",")[1]) if "," in body else 0
        right = rnd(v, places)
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = (norm(shown).rstrip("%").strip().replace(",", ".") == right
                  and abs(exact - v) <= mp.mpf("1e-10") * abs(v)
                  and norm(printed).rstrip("%").strip().replace(",", ".") != right and on_line)
            note = "planted, key agrees" if ok else "KEY DISAGREES"
            planted.append((line_no, norm(printed)))
        else:
            ok = norm(printed).rstrip("%").strip().replace(",", ".") == right and on_line
            note = "correct" if ok else "NOT THE CORRECT ROUNDING (or not on its line)"
        bad += not ok
        print(f"  {printed:>10}  line {line_no:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")

    print("DOC.md audit (every model figure recomputed):")
    diffs = audit(f, doc)
    found = set()
    for ln, e, got in diffs:
        hit = next(((pl, pp) for pl, pp in planted if pl == ln), None)
        if hit is None:
            print(f"  line {ln}: expected {e!r}, document has {got!r}  UNEXPECTED")
            bad += 1
        else:
            found.add(hit)
            print(f"  line {ln}: expected {e!r}, document has the planted {hit[1]!r}")
    for pl, pp in planted:
        if (pl, pp) not in found:
            print(f"  planted {pp!r} on line {pl} was not seen by the audit  MISSING")
            bad += 1
    # the Python block of weights: every number, comments dropped, in the order E, P, W_Q, b_Q, ..., b_2
    start = doc.index("```python")
    block = doc[start + 1: doc.index("```", start + 1)]
    got = [Decimal(x) for l in block for x in re.findall(r"-?\d+\.\d+", l.split("#")[0])]
    L = spec["layer"][0]
    want = [Decimal(str(x)) for M in (spec["weights"]["E"], spec["weights"]["W_pe"]) for r in M for x in r]
    for k in ("W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "W_1", "b_1", "W_2", "b_2"):
        want += [Decimal(str(x)) for x in (sum(L[k], []) if isinstance(L[k][0], list) else L[k])]
    if got != want:
        print("  the Python block of weights differs from SPEC.toml  WEIGHTS DIFFER")
        bad += 1
    else:
        print(f"  the Python block's {len(got)} weights are SPEC.toml's")
    n_checked = sum(len(e) for _, _, e in expected_lines(f))
    print(f"  {n_checked} figures checked on {len(expected_lines(f))} lines")
    print("all key rows agree with the oracle" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
