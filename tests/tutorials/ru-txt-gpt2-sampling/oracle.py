#!/usr/bin/env python3
"""Independent check of the answer key of `ru-txt-gpt2-sampling`: plain mpmath at 50 digits, no symgpt.

    python oracle.py          # every KEY.md row: quantity, value, correct rounding, printed text on its line
    python oracle.py --all    # also every figure family the tutorial prints, at the tutorial's precision

The model is read from SPEC.toml (tomllib): one GPT-2 block, pre-LN, 1 head, d = 2, d_ff = 4, learned
positions, biases on every projection, tanh-GELU (0.044715 as an exact decimal), a final LayerNorm ln_f
with gamma_f / beta_f, tied head, loss = -ln p(target) at the last position.

    H0 = E[ids] + W_pe;  LN1 = LN(H0)·γ1 + β1 (biased variance, eps)
    Q, K, V = LN1·W + b;  S = Q·Kᵀ/√d;  A = causal softmax(S);  Attn_heads = A·V;  Attn = Attn_heads·W_O + b_O
    H1 = H0 + Attn;  LN2 = LN(H1);  Z = LN2·W_1 + b_1;  R = GELU_tanh(Z);  F = R·W_2 + b_2;  H2 = H1 + F
    LN_f = LN(H2)·γ_f + β_f;  h_final = LN_f[T-1];  logits = h_final·Eᵀ;  p = softmax(logits)
    softmax_T(T, v) = softmax(logits / T);  topk(k, v): the k most probable, renormalised;
    topp(P, v): the shortest prefix of the ranking (ties to the lower id) whose mass is >= P, renormalised.

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


def layernorm(H, gamma, beta, eps):
    d = len(H[0])
    mu = [mp.fsum(r) / d for r in H]
    var = [mp.fsum((x - m) ** 2 for x in r) / d for r, m in zip(H, mu)]
    n = [[(r[j] - m) / mp.sqrt(v + eps) for j in range(d)] for r, m, v in zip(H, mu, var)]
    return mu, var, n, [[gamma[j] * row[j] + beta[j] for j in range(d)] for row in n]


GELU_C = mp.mpf("0.044715")


def gelu_arg(z):
    return mp.sqrt(2 / mp.pi) * (z + GELU_C * z ** 3)


def gelu(z):
    return z / 2 * (1 + mp.tanh(gelu_arg(z)))


def softmax(zs):
    e = [mp.exp(z) for z in zs]
    s = mp.fsum(e)
    return [x / s for x in e], e, s


def model(spec_path: Path):
    spec = tomllib.loads(spec_path.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    eps = num(spec["model"]["ln_eps"])
    w, lay = spec["weights"], spec["layer"][0]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    tgt = vocab.index(spec["data"]["target"])
    E, Wpe = mat(w["E"]), mat(w["W_pe"])
    T, d = len(ids), len(E[0])
    ones, zeros = [mp.mpf(1)] * d, [mp.mpf(0)] * d
    g1, b1n = vec(lay.get("gamma1", ones)), vec(lay.get("beta1", zeros))
    g2, b2n = vec(lay.get("gamma2", ones)), vec(lay.get("beta2", zeros))
    gf, bf = vec(w.get("gamma_f", ones)), vec(w.get("beta_f", zeros))

    q = {}
    q["H0"] = [[E[ids[t]][j] + Wpe[t][j] for j in range(d)] for t in range(T)]
    q["mu1"], q["var1"], _, q["LN1"] = layernorm(q["H0"], g1, b1n, eps)
    for name in "QKV":
        q[name] = add_bias(matmul(q["LN1"], mat(lay[f"W_{name}"])), vec(lay[f"b_{name}"]))
    q["dot"] = [[mp.fsum(q["Q"][t][j] * q["K"][s][j] for j in range(d)) for s in range(T)] for t in range(T)]
    q["S"] = [[q["dot"][t][s] / mp.sqrt(d) for s in range(T)] for t in range(T)]
    q["A_den"] = [mp.fsum(mp.exp(q["S"][t][s]) for s in range(t + 1)) for t in range(T)]
    q["A"] = [[mp.exp(q["S"][t][s]) / q["A_den"][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
    q["Attn_heads"] = matmul(q["A"], q["V"])
    q["Attn"] = add_bias(matmul(q["Attn_heads"], mat(lay["W_O"])), vec(lay["b_O"]))
    q["H1"] = [[q["H0"][t][j] + q["Attn"][t][j] for j in range(d)] for t in range(T)]
    q["mu2"], q["var2"], _, q["LN2"] = layernorm(q["H1"], g2, b2n, eps)
    q["Z"] = add_bias(matmul(q["LN2"], mat(lay["W_1"])), vec(lay["b_1"]))
    q["R"] = [[gelu(z) for z in r] for r in q["Z"]]
    q["F"] = add_bias(matmul(q["R"], mat(lay["W_2"])), vec(lay["b_2"]))
    q["H2"] = [[q["H1"][t][j] + q["F"][t][j] for j in range(d)] for t in range(T)]
    q["mu_f"], q["var_f"], q["n_f"], q["LN_f"] = layernorm(q["H2"], gf, bf, eps)
    h = q["LN_f"][-1]
    q["h_final"] = h
    q["logits"] = [mp.fsum(h[j] * E[v][j] for j in range(d)) for v in range(len(vocab))]
    q["p"], q["exp_logits"], q["sum_exp"] = softmax(q["logits"])
    q["loss"] = -mp.log(q["p"][tgt])

    smp = spec["sampling"]
    q["softmax_T"] = {}
    for Tt in smp["temperatures"]:
        Tm = num(Tt)
        q["softmax_T"][str(Tt)] = softmax([z / Tm for z in q["logits"]])
    order = sorted(range(len(vocab)), key=lambda v: (-q["p"][v], v))
    k = int(smp["top_k"])
    keep = order[:k]
    mass = mp.fsum(q["p"][v] for v in keep)
    q["topk_mass"] = mass
    q["topk"] = {k: [q["p"][v] / mass if v in keep else mp.mpf(0) for v in range(len(vocab))]}
    P = num(smp["top_p"])
    kept, cum, cums = [], mp.mpf(0), []
    for v in order:
        cum += q["p"][v]
        cums.append(cum)
    for i, v in enumerate(order):
        kept.append(v)
        if cums[i] >= P:
            break
    mass_p = mp.fsum(q["p"][v] for v in kept)
    q["topp"] = {str(smp["top_p"]): [q["p"][v] / mass_p if v in kept else mp.mpf(0) for v in range(len(vocab))]}
    q["order"], q["cum"], q["topp_kept"] = order, cums, kept
    return spec, vocab, eps, q


def rnd(v, n: int) -> str:
    dd = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{dd.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def values(vocab, eps, q):
    """Every quantity name the key uses, symgpt's reference names, as exact values."""
    V = {}
    for name in ("H0", "LN1", "Q", "K", "V", "S", "A", "Attn_heads", "Attn", "H1", "LN2", "Z", "R", "F", "H2", "LN_f"):
        for t, row in enumerate(q[name]):
            for j, x in enumerate(row):
                V[f"{name}[{t},{j}]"] = x
    for name in ("mu1", "var1", "A_den", "mu2", "var2", "mu_f", "var_f"):
        for t, x in enumerate(q[name]):
            V[f"{name}[{t}]"] = x
    for j, x in enumerate(q["h_final"]):
        V[f"h_final[{j}]"] = x
    for v, word in enumerate(vocab):
        V[f"logits[{word}]"] = q["logits"][v]
        V[f"p[{word}]"] = q["p"][v]
        for Tt, (pt, _, _) in q["softmax_T"].items():
            V[f"softmax_T({Tt}, {word})"] = pt[v]
        for k, pk in q["topk"].items():
            V[f"topk({k}, {word})"] = pk[v]
        for P, pp in q["topp"].items():
            V[f"topp({P}, {word})"] = pp[v]
    V["sum_exp"] = q["sum_exp"]
    V["loss"] = q["loss"]
    for t in range(len(q["var1"])):
        V[f"sqrt(var1[{t}] + ln_eps)"] = mp.sqrt(q["var1"][t] + eps)
    return V


def parse_printed(s: str):
    """'−0,845' / '0.8542' / '4,21 %' -> (Decimal text, places, is_percent)."""
    pct = s.endswith("%")
    t = s.rstrip("%").strip().replace("−", "-").replace(",", ".")
    places = len(t.split(".")[1]) if "." in t else 0
    return t, places, pct


def show(v, places, pct, like: str) -> str:
    """The correct rounding written in the style of `like` (decimal comma, Unicode minus, ' %')."""
    r = rnd(v * 100 if pct else v, places)
    if "," in like or "−" in like:
        r = r.replace(".", ",").replace("-", "−")
    if pct:
        r += " %" if like.endswith(" %") else "%"
    return r


def all_figures(vocab, eps, q):
    """The tutorial's figure families at its precision (for reading beside DOC.txt)."""
    f = lambda x, n=3: rnd(x, n)
    print("  H0:", [[f(x, 2) for x in r] for r in q["H0"]])
    print("  mu1, var1:", [f(x, 3) for x in q["mu1"]], [f(x, 6) for x in q["var1"]])
    print("  sqrt(var1+eps):", f(mp.sqrt(q["var1"][0] + eps), 5), f(mp.sqrt(q["var1"][2] + eps), 6))
    print("  LN1:", [[f(x, 4) for x in r] for r in q["LN1"]])
    for n in ("Q", "K", "V"):
        print(f"  {n}:", [[f(x) for x in r] for r in q[n]])
    print("  q3·k_s:", [f(x) for x in q["dot"][2]])
    print("  S:", [[f(x) for x in r] for r in q["S"]])
    print("  exp(S[2,s]):", [f(mp.exp(x)) for x in q["S"][2]], "A_den[2]:", f(q["A_den"][2]))
    print("  A:", [[f(x) for x in r] for r in q["A"]])
    print("  Attn_heads[2], Attn[2], H1:", [f(x) for x in q["Attn_heads"][2]], [f(x) for x in q["Attn"][2]],
          [[f(x) for x in r] for r in q["H1"]])
    print("  H1[2] (4 d.), mu2[2], var2[2], LN2[2]:", [f(x, 4) for x in q["H1"][2]], f(q["mu2"][2], 4),
          f(q["var2"][2], 4), [f(x, 4) for x in q["LN2"][2]])
    print("  Z[2]:", [f(x) for x in q["Z"][2]], [f(x, 4) for x in q["Z"][2]])
    print("  GELU arg, tanh, R[2]:", [f(gelu_arg(z), 4) for z in q["Z"][2]],
          [f(mp.tanh(gelu_arg(z)), 4) for z in q["Z"][2]], [f(x, 4) for x in q["R"][2]])
    print("  F[2], H2[2]:", [f(x, 4) for x in q["F"][2]], [f(x, 4) for x in q["H2"][2]])
    print("  mu_f[2], var_f[2], sqrt, n_f[2], h_final:", f(q["mu_f"][2], 4), f(q["var_f"][2], 4),
          f(mp.sqrt(q["var_f"][2] + eps), 4), [f(x, 4) for x in q["n_f"][2]], [f(x) for x in q["h_final"]])
    print("  logits, exp, p:", [f(x) for x in q["logits"]], [f(x) for x in q["exp_logits"]],
          [f(x) for x in q["p"]], "sum_exp", f(q["sum_exp"]))
    for Tt, (pt, et, st) in q["softmax_T"].items():
        print(f"  T={Tt}: logits/T", [f(z / num(Tt)) for z in q["logits"]], "exp", [f(x) for x in et],
              "sum", f(st), "p_T", [f(x) for x in pt])
    print("  top-k:", f(q["topk_mass"]), {k: [f(x) for x in v] for k, v in q["topk"].items()})
    print("  ranking:", [vocab[v] for v in q["order"]], "cumulative", [f(x) for x in q["cum"]],
          "kept", [vocab[v] for v in q["topp_kept"]])
    print("  top-p:", {P: [f(x) for x in v] for P, v in q["topp"].items()})
    print("  loss:", f(q["loss"], 4), " 1/p(target):", f(mp.exp(q["loss"]), 2), " ln 5:", f(mp.log(5), 4))


def main() -> int:
    spec, vocab, eps, q = model(HERE / "SPEC.toml")
    V = values(vocab, eps, q)
    doc = (HERE / "DOC.txt").read_text(encoding="utf-8").split("\n")
    if "--all" in sys.argv:
        all_figures(vocab, eps, q)
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = planted = correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in V), None)
        problems = []
        if ref is None:
            problems.append(f"no oracle value for {cells[-1]}")
            v = None
        else:
            v = V[ref]
        if not (1 <= line <= len(doc)) or printed not in doc[line - 1]:
            problems.append(f"printed text not on line {line}")
        _, places, pct = parse_printed(printed)
        if v is not None and len(cells) == 7:  # planted: printed | line | where | exact | correct | kind | quantity
            planted += 1
            shown = cells[4].strip("`")
            _, cplaces, cpct = parse_printed(shown)
            right = show(v, cplaces, cpct, shown)
            exact = mp.mpf(cells[3].rstrip("…").replace("−", "-"))
            vv = v * 100 if cpct else v
            if right != shown:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - vv) > mp.mpf("1e-10") * abs(vv):
                problems.append(f"exact value is {mp.nstr(vv, 15)}, key says {cells[3]}")
            if right == printed or show(v, places, pct, printed) == printed:
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees" if not problems else "KEY DISAGREES: " + "; ".join(problems)
        elif v is not None:
            correct += 1
            right = show(v, places, pct, printed)
            if right != printed:
                problems.append(f"correct rounding is {right}")
            note = "correct" if not problems else "NOT CORRECT: " + "; ".join(problems)
        else:
            note = "KEY ROW UNCHECKED: " + "; ".join(problems)
        bad += bool(problems)
        vs = mp.nstr(v, 15) if v is not None else "-"
        print(f"  {printed:>10}  l.{line:<4} {str(ref):<26} {vs:<20} {note}")
    print(f"{planted} planted, {correct} correct rows")
    if planted != 8 or correct != 10:
        bad += 1
        print("expected 8 planted and 10 correct rows")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
