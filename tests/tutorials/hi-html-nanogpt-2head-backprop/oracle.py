#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial hi-html-nanogpt-2head-backprop (no symgpt import).

    python oracle.py     # every KEY.md row's quantity, its exact value, and a check of the key's columns

Model (SPEC.toml): nanoGPT-like GPT-2 block, pre-LN, 1 layer, 2 heads (d_k = 2), d = 4, d_ff = 8, exact-erf
GELU, learned positions, biases on every projection, attention output projection W_O (+ b_O), final LayerNorm
ln_f, tied head (logits = LN_f[T-1]·Eᵀ), loss = −ln p[target] at the last position. Everything is computed in
mpmath at 50 digits; gradients come from a small reverse-mode autodiff written here (checked against central
finite differences at the end of the run).
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

# ----------------------------------------------------------------------------------------- weights (SPEC.toml)
VOCAB = ["मैं", "घर", "जा", "रहा", "हूँ"]
INPUT = [0, 1, 2]
TARGET = 3
D, H, DK, DFF, EPS = 4, 2, 2, 8, mp.mpf("1e-5")

W = {
    "E": [[0.2, -0.1, 0.4, 0.0], [-0.3, 0.5, 0.1, 0.2], [0.1, 0.3, -0.2, 0.5], [0.4, 0.2, 0.3, -0.1],
          [-0.2, -0.4, 0.1, 0.3]],
    "W_pe": [[0.1, 0.0, -0.1, 0.2], [0.0, 0.2, 0.1, -0.1], [-0.1, 0.1, 0.2, 0.0]],
    "gamma_f": [1.0, 1.1, 0.9, 1.0], "beta_f": [0.0, 0.05, 0.0, -0.05],
    "gamma1": [1.0, 0.9, 1.1, 1.0], "beta1": [0.0, 0.1, -0.1, 0.0],
    "W_Q": [[0.3, -0.2, 0.1, 0.4], [0.1, 0.5, -0.3, 0.2], [-0.4, 0.2, 0.6, 0.1], [0.2, 0.1, 0.2, -0.5]],
    "b_Q": [0.05, 0.0, -0.05, 0.1],
    "W_K": [[0.2, 0.4, -0.1, 0.3], [-0.5, 0.1, 0.4, 0.2], [0.3, -0.2, 0.2, 0.6], [0.1, 0.3, -0.4, 0.1]],
    "b_K": [0.0, 0.1, 0.05, -0.05],
    "W_V": [[0.5, 0.1, -0.2, 0.3], [0.2, -0.4, 0.3, 0.1], [-0.1, 0.3, 0.5, -0.2], [0.4, 0.2, 0.1, 0.6]],
    "b_V": [0.1, -0.1, 0.0, 0.05],
    "W_O": [[0.6, -0.1, 0.2, 0.0], [0.1, 0.4, -0.3, 0.2], [-0.2, 0.3, 0.5, 0.1], [0.3, 0.0, 0.1, 0.4]],
    "b_O": [0.02, -0.03, 0.0, 0.01],
    "gamma2": [1.0, 1.0, 0.8, 1.2], "beta2": [0.1, 0.0, 0.0, -0.1],
    "W_1": [[0.3, -0.2, 0.5, 0.1, -0.4, 0.2, 0.6, -0.1], [0.1, 0.4, -0.3, 0.2, 0.5, -0.1, 0.0, 0.3],
            [-0.2, 0.1, 0.2, 0.6, 0.1, 0.3, -0.5, 0.4], [0.4, 0.3, -0.1, -0.2, 0.2, 0.5, 0.1, -0.3]],
    "b_1": [0.0, 0.1, -0.1, 0.05, 0.0, -0.05, 0.1, 0.0],
    "W_2": [[0.2, -0.1, 0.3, 0.0], [0.1, 0.3, -0.2, 0.2], [-0.3, 0.2, 0.1, 0.1], [0.4, 0.0, -0.1, 0.3],
            [0.0, 0.2, 0.4, -0.2], [0.1, -0.3, 0.2, 0.1], [0.3, 0.1, 0.0, -0.4], [-0.2, 0.4, 0.1, 0.2]],
    "b_2": [0.1, -0.1, -0.2, 0.2],
}


# ----------------------------------------------------------------------------------------- reverse-mode autodiff
class N:
    """A scalar node: value, parents with local derivatives, accumulated gradient."""
    __slots__ = ("v", "par", "g", "id")
    count = 0

    def __init__(self, v, par=()):
        self.v, self.par, self.g = mp.mpf(v), par, mp.mpf(0)
        N.count += 1
        self.id = N.count

    def __add__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v + o.v, ((self, 1), (o, 1)))

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v - o.v, ((self, 1), (o, -1)))

    def __rsub__(self, o):
        return N(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if isinstance(o, N) else N(o)
        return N(self.v / o.v, ((self, 1 / o.v), (o, -self.v / o.v ** 2)))

    def __neg__(self):
        return N(-self.v, ((self, -1),))


def nexp(x):
    e = mp.exp(x.v)
    return N(e, ((x, e),))


def nlog(x):
    return N(mp.log(x.v), ((x, 1 / x.v),))


def nsqrt(x):
    s = mp.sqrt(x.v)
    return N(s, ((x, 1 / (2 * s)),))


def ngelu(x):
    v = x.v
    cdf = (1 + mp.erf(v / mp.sqrt(2))) / 2
    pdf = mp.exp(-v * v / 2) / mp.sqrt(2 * mp.pi)
    return N(v * cdf, ((x, cdf + v * pdf),))


def nsum(xs):
    xs = list(xs)
    return N(mp.fsum(x.v for x in xs), tuple((x, 1) for x in xs))


def backward(out):
    order, seen = [], set()

    def visit(n):
        stack = [(n, False)]
        while stack:
            m, done = stack.pop()
            if done:
                order.append(m)
                continue
            if m.id in seen:
                continue
            seen.add(m.id)
            stack.append((m, True))
            for p, _ in m.par:
                if p.id not in seen:
                    stack.append((p, False))

    visit(out)
    out.g = mp.mpf(1)
    for n in reversed(order):
        for p, d in n.par:
            p.g += n.g * d


# ----------------------------------------------------------------------------------------- the model
def params(perturb=None):
    P = {}
    for k, v in W.items():
        if isinstance(v[0], list):
            P[k] = [[N(str(x)) for x in r] for r in v]
        else:
            P[k] = [N(str(x)) for x in v]
    if perturb:
        name, idx, h = perturb
        t = P[name]
        if len(idx) == 2:
            t[idx[0]][idx[1]] = N(t[idx[0]][idx[1]].v + h)
        else:
            t[idx[0]] = N(t[idx[0]].v + h)
    return P


def layernorm(rows, gamma, beta):
    mus, vars_, outs = [], [], []
    for r in rows:
        mu = nsum(r) / D
        var = nsum([(x - mu) * (x - mu) for x in r]) / D
        sd = nsqrt(var + EPS)
        outs.append([gamma[j] * ((r[j] - mu) / sd) + beta[j] for j in range(D)])
        mus.append(mu)
        vars_.append(var)
    return mus, vars_, outs


def linear(row, Wm, b):
    return [nsum([row[i] * Wm[i][c] for i in range(len(row))]) + b[c] for c in range(len(b))]


def forward(P):
    T = len(INPUT)
    f = {}
    f["X"] = [[P["E"][INPUT[t]][j] * 1 for j in range(D)] for t in range(T)]   # new nodes: grad_X is the lookup's part
    f["H0"] = [[f["X"][t][j] + P["W_pe"][t][j] for j in range(D)] for t in range(T)]
    f["mu1"], f["var1"], f["LN1"] = layernorm(f["H0"], P["gamma1"], P["beta1"])
    f["Q"] = [linear(r, P["W_Q"], P["b_Q"]) for r in f["LN1"]]
    f["K"] = [linear(r, P["W_K"], P["b_K"]) for r in f["LN1"]]
    f["V"] = [linear(r, P["W_V"], P["b_V"]) for r in f["LN1"]]
    rt = mp.sqrt(DK)
    S = [[[None] * T for _ in range(T)] for _ in range(H)]
    dots = [[[None] * T for _ in range(T)] for _ in range(H)]
    A = [[[None] * T for _ in range(T)] for _ in range(H)]
    A_den = [[None] * T for _ in range(H)]
    ex = [[[None] * T for _ in range(T)] for _ in range(H)]
    heads = [[None] * D for _ in range(T)]
    for h in range(H):
        cols = range(h * DK, (h + 1) * DK)
        for t in range(T):
            for s in range(T):
                dots[h][t][s] = nsum([f["Q"][t][c] * f["K"][s][c] for c in cols])
                S[h][t][s] = dots[h][t][s] / rt
            for s in range(t + 1):
                ex[h][t][s] = nexp(S[h][t][s])
            A_den[h][t] = nsum([ex[h][t][s] for s in range(t + 1)])
            for s in range(T):
                A[h][t][s] = ex[h][t][s] / A_den[h][t] if s <= t else N(0)
            for c in cols:
                heads[t][c] = nsum([A[h][t][s] * f["V"][s][c] for s in range(t + 1)])
    f.update(dots=dots, S=S, expS=ex, A_den=A_den, A=A, Attn_heads=heads)
    f["Attn"] = [linear(r, P["W_O"], P["b_O"]) for r in heads]
    f["H1"] = [[f["H0"][t][j] + f["Attn"][t][j] for j in range(D)] for t in range(T)]
    f["mu2"], f["var2"], f["LN2"] = layernorm(f["H1"], P["gamma2"], P["beta2"])
    f["Z"] = [linear(r, P["W_1"], P["b_1"]) for r in f["LN2"]]
    f["R"] = [[ngelu(z) for z in r] for r in f["Z"]]
    f["F"] = [linear(r, P["W_2"], P["b_2"]) for r in f["R"]]
    f["H2"] = [[f["H1"][t][j] + f["F"][t][j] for j in range(D)] for t in range(T)]
    f["mu_f"], f["var_f"], f["LN_f"] = layernorm(f["H2"], P["gamma_f"], P["beta_f"])
    hf = f["LN_f"][T - 1]
    f["h_final"] = hf
    f["logits"] = [nsum([hf[j] * P["E"][v][j] for j in range(D)]) for v in range(len(VOCAB))]
    f["exp_logits"] = [nexp(z) for z in f["logits"]]
    f["sum_exp"] = nsum(f["exp_logits"])
    f["p"] = [e / f["sum_exp"] for e in f["exp_logits"]]
    f["loss"] = -nlog(f["p"][TARGET])
    return f


def flatten(name, t, out, idx=()):
    if isinstance(t, N):
        out[name + ("[" + ",".join(map(str, idx)) + "]" if idx else "")] = t
    elif isinstance(t, list):
        for i, x in enumerate(t):
            if x is not None:
                flatten(name, x, out, idx + (i,))


def compute() -> dict:
    """{symgpt-style name: exact value} for every quantity the tutorial prints."""
    P = params()
    f = forward(P)
    backward(f["loss"])
    nodes = {}
    for k, v in f.items():
        flatten(k, v, nodes)
    vals = {k: n.v for k, n in nodes.items()}
    grads = {"grad_" + k: n.g for k, n in nodes.items()}
    pv, pg = {}, {}
    for k, v in P.items():
        flat = {}
        flatten(k, v, flat)
        pv.update({n: x.v for n, x in flat.items()})
        pg.update({"grad_" + n: x.g for n, x in flat.items()})
    out = {**pv, **vals, **grads, **pg}
    # token-named aliases for V-indexed quantities
    for i, tok in enumerate(VOCAB):
        for base in ("logits", "p", "grad_logits", "exp_logits"):
            out[f"{base}[{tok}]"] = out[f"{base}[{i}]"]
        for j in range(D):
            out[f"grad_E[{tok},{j}]"] = out[f"grad_E[{i},{j}]"]
            out[f"E[{tok},{j}]"] = out[f"E[{i},{j}]"]
            y = 1 if i == TARGET else 0
            out[f"grad_E_head[{i},{j}]"] = (out[f"p[{i}]"] - y) * out[f"h_final[{j}]"]
            out[f"grad_E_head[{tok},{j}]"] = out[f"grad_E_head[{i},{j}]"]
    # the checker's spellings of a few derived figures
    out["exp(logits[रहा])"] = out["exp_logits[3]"]
    for h in range(H):
        for s in range(3):
            out[f"exp(S[{h},2,{s}])"] = mp.exp(out[f"S[{h},2,{s}]"])
            out[f"S[{h},2,{s}]*sqrt(2)"] = out[f"dots[{h},2,{s}]"]
    for n, t in (("1", 2), ("2", 2), ("_f", 2)):
        for tt in range(3):
            out[f"sqrt(var{n}[{tt}] + ln_eps)"] = mp.sqrt(out[f"var{n}[{tt}]"] + EPS)
    return out


def gradcheck(vals) -> float:
    """Central finite differences on a few parameters (h = 1e-20) against the autodiff gradients."""
    h = mp.mpf("1e-20")
    worst = mp.mpf(0)
    for name, idx in (("E", (3, 2)), ("E", (2, 0)), ("W_Q", (2, 1)), ("W_K", (1, 3)), ("W_V", (3, 2)),
                      ("W_O", (3, 0)), ("W_1", (3, 6)), ("b_2", (0,)), ("W_pe", (2, 0)), ("b_Q", (2,))):
        lp = forward(params((name, idx, h)))["loss"].v
        lm = forward(params((name, idx, -h)))["loss"].v
        fd = (lp - lm) / (2 * h)
        key = f"grad_{name}[{','.join(map(str, idx))}]"
        worst = max(worst, abs(fd - vals[key]))
    return worst


# ----------------------------------------------------------------------------------------- every figure of DOC.html
# (line, printed, quantity); a quantity None would be a figure that is no model quantity (there is none left).
PLANTED = {(53, "0.7368"), (82, "0.0340"), (93, "0.4073"), (102, "0.0700"), (120, "1.9951"), (130, "0.8642"),
           (147, "−0.4898"), (154, "-0.2349")}


def doc_figures() -> list:
    F = []
    for t, line in ((0, 53), (1, 54), (2, 55)):
        F += [(line, None, f"LN1[{t},{j}]") for j in range(4)]
    for s_, line in ((0, 67), (1, 68), (2, 69)):
        for h in range(2):
            F += [(line, None, f"dots[{h},2,{s_}]"), (line, None, f"S[{h},2,{s_}]"), (line, None, f"A[{h},2,{s_}]")]
    F += [(80, None, f"Attn_heads[2,{j}]") for j in range(4)]
    F += [(82, None, f"Attn[2,{j}]") for j in range(4)] + [(82, None, f"H1[2,{j}]") for j in range(4)]
    F += [(93, None, f"R[2,{k}]") for k in range(8)]
    F += [(102, None, "var_f[2]")]
    F += [(104, None, f"h_final[{j}]") for j in range(4)]
    for v, line in zip(range(5), range(111, 116)):
        F += [(line, None, f"logits[{v}]"), (line, None, f"p[{v}]")]
    F += [(120, "0.136", "p[3]"), (120, None, "loss"), (130, None, "grad_logits[3]")]
    F += [(133, None, f"grad_h_final[{j}]") for j in range(4)]
    F += [(139, None, "grad_logits[3]"), (139, None, "h_final[2]"), (139, None, "grad_E[3,2]")]
    F += [(147, None, "Attn_heads[2,0]"), (147, None, "grad_Attn[2,0]"), (147, None, "grad_W_O[0,0]")]
    F += [(154, None, "grad_W_Q[0,0]"), (154, None, "grad_W_Q[0,1]"), (154, None, "grad_W_V[0,0]")]
    F += [(155, None, "grad_W_Q[1,0]"), (155, None, "grad_W_Q[1,1]"), (155, None, "grad_W_V[1,0]")]
    F += [(164, None, "grad_Attn_heads[2,0]"), (164, None, "V[0,0]"), (164, None, "grad_Attn_heads[2,1]"),
          (164, None, "V[0,1]"), (164, None, "grad_A[0,2,0]")]
    F += [(171, None, "var1[2]"), (171, None, "sqrt(var1[2] + ln_eps)")]
    return F


def check_doc(values) -> int:
    """Every decimal figure of DOC.html, in order on its line: the correct rounding unless planted."""
    lines = (HERE / "DOC.html").read_text(encoding="utf-8").splitlines()
    by_line = {}
    body = next(i for i, line in enumerate(lines, 1) if "<body>" in line)   # the <style> block is no text
    for i, line in enumerate(lines, 1):
        if i <= body:
            continue
        text = re.sub(r"<[^>]+>", " ", line)
        found = re.findall(r"[-−]?\d+\.\d+", text)
        if found:
            by_line[i] = found
    want = {}
    for line, _, q in doc_figures():
        want.setdefault(line, []).append(q)
    bad = 0
    if sorted(by_line) != sorted(want):
        print("  lines with figures differ:", sorted(set(by_line) ^ set(want)))
        bad += 1
    planted_seen = 0
    for line in sorted(want):
        printed = by_line.get(line, [])
        if len(printed) != len(want[line]):
            print(f"  line {line}: {len(printed)} figures printed, {len(want[line])} listed")
            bad += 1
            continue
        for text, q in zip(printed, want[line]):
            places = len(text.split(".")[1])
            right = rnd(values[q], places)
            ok = right == text.replace("−", "-")
            if (line, text) in PLANTED:
                planted_seen += 1
                if ok:
                    print(f"  line {line}: planted {text} is the correct rounding of {q}")
                    bad += 1
            elif not ok:
                print(f"  line {line}: {text} is not the correct rounding {right} of {q}")
                bad += 1
    if planted_seen != len(PLANTED):
        print(f"  {planted_seen} planted figures seen, {len(PLANTED)} listed")
        bad += 1
    n = sum(len(v) for v in by_line.values())
    print(f"DOC.html: {n} decimal figures, {len(PLANTED)} planted, " + ("the rest all correct" if not bad else f"{bad} PROBLEMS"))
    return bad


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def main() -> int:
    values = compute()
    worst = gradcheck(values)
    print(f"finite-difference check of 10 gradients: worst |fd - autodiff| = {mp.nstr(worst, 3)}")
    assert worst < mp.mpf("1e-25"), worst
    assert not check_doc(values), "DOC.html has figures that disagree with the oracle"
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")] if key.is_file() else []
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`").replace("\u2212", "-")   # the page writes some minus signs as U+2212
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = values[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref:<26} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print(f"{len(rows)} key rows; " + ("all agree with the oracle" if not bad else f"{bad} DISAGREE"))
    assert not bad, f"{bad} key rows disagree with the oracle"
    return 0


if __name__ == "__main__":
    sys.exit(main())
