#!/usr/bin/env python3
"""Independent computation behind zh-ipynb-llama-topp's answer key: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every figure of DOC.ipynb recomputed from SPEC.toml's weights, then every KEY.md row

The model (SPEC.toml, model.arch = "llama"): one pre-norm block, no biases, untied head.
  x = E[ids];  xn = x / sqrt(mean(x^2) + eps) * gamma1                  (RMSNorm)
  q, k, v = xn W_Q, xn W_K, xn W_V; heads are column pairs (d_h = 2)
  RoPE (Hugging Face rotate_half): per head, (a, b) at position m -> (a cos mθ - b sin mθ, b cos mθ + a sin mθ),
        θ = rope_theta^(-0/d_h) = 1
  s[h,m,n] = q'_h[m]·k'_h[n] / sqrt(d_h); att = causal softmax; ctx = att v (heads side by side); o = ctx W_O
  h = x + o;  hn = RMSNorm(h, gamma2);  act = SiLU(hn W_1) * (hn W_3);  out = h + act W_2
  hf = RMSNorm(out[T-1], gamma_f);  logits = hf W_out;  p = softmax;  loss = -ln p[target]
Sampling: tokens sorted by p (ties to the lower id), cumulative sums; top-p keeps the shortest prefix with
mass >= P, renormalised; temperature T: softmax(logits / T); entropy -Σ p ln p (nats).
Rounding is half away from zero, on the 45-digit decimal of the value.
"""
from __future__ import annotations

import json
import re
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a] if isinstance(a[0], list) else [mp.mpf(str(v)) for v in a]


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def mm(A, B):
    return [[mp.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def vm(v, B):
    return [mp.fsum(v[k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))]


# ---------------------------------------------------------------- the model, from SPEC.toml

spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
m = spec["model"]
assert m["arch"] == "llama" and m["layers"] == 1 and m.get("tied") is False
vocab, d, H = m["vocab"], m["d"], m["heads"]
dh = d // H
eps = mp.mpf(str(m["ln_eps"]))
theta = mp.mpf(str(m.get("rope_theta", 10000)))
W = spec["weights"]
L0 = spec["layer"][0]
E, Wout, gf = M(W["E"]), M(W["W_out"]), M(W.get("gamma_f", [1] * d))
WQ, WK, WV, WO, W1, W3, W2 = (M(L0[k]) for k in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"))
g1, g2 = M(L0.get("gamma1", [1] * d)), M(L0.get("gamma2", [1] * d))
ids = [vocab.index(w) for w in spec["data"]["input"]]
tgt = vocab.index(spec["data"]["target"])
T = len(ids)
P = mp.mpf(str(spec["sampling"]["top_p"]))
TEMP = mp.mpf("1.5")
assert TEMP in [mp.mpf(str(t)) for t in spec["sampling"]["temperatures"]]


def rms(vec):
    return mp.sqrt(mp.fsum(x * x for x in vec) / len(vec) + eps)


X = [E[i][:] for i in ids]
ms1 = [mp.fsum(x * x for x in r) / d for r in X]
r1 = [rms(r) for r in X]
xn = [[X[t][j] / r1[t] * g1[j] for j in range(d)] for t in range(T)]
q, k, v = mm(xn, WQ), mm(xn, WK), mm(xn, WV)
half = dh // 2
inv = [1 / theta ** (mp.mpf(2 * i) / dh) for i in range(half)]
cs = [[mp.cos(t * inv[i % half]) for i in range(dh)] for t in range(T)]
sn = [[mp.sin(t * inv[i % half]) for i in range(dh)] for t in range(T)]


def rope(A):
    out = []
    for t in range(T):
        row = []
        for hh in range(H):
            a = A[t][hh * dh:(hh + 1) * dh]
            rot = [-a[i + half] for i in range(half)] + [a[i] for i in range(half)]
            row += [a[i] * cs[t][i] + rot[i] * sn[t][i] for i in range(dh)]
        out.append(row)
    return out


qr, kr = rope(q), rope(k)
S = [[[mp.fsum(qr[t][hh * dh + i] * kr[s][hh * dh + i] for i in range(dh)) / mp.sqrt(dh) for s in range(T)]
      for t in range(T)] for hh in range(H)]
A_den = [[mp.fsum(mp.exp(S[hh][t][s]) for s in range(t + 1)) for t in range(T)] for hh in range(H)]
att = [[[mp.exp(S[hh][t][s]) / A_den[hh][t] if s <= t else mp.mpf(0) for s in range(T)] for t in range(T)]
       for hh in range(H)]
ctx = [[mp.fsum(att[j // dh][t][s] * v[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
o = mm(ctx, WO)
h1 = [[X[t][j] + o[t][j] for j in range(d)] for t in range(T)]
hn = [h1[-1][j] / rms(h1[-1]) * g2[j] for j in range(d)]            # the FFN of the last position only
gate, up = vm(hn, W1), vm(hn, W3)
silu = [z / (1 + mp.exp(-z)) for z in gate]
act = [a * u for a, u in zip(silu, up)]
out = [h1[-1][j] + x for j, x in enumerate(vm(act, W2))]
hf = [out[j] / rms(out) * gf[j] for j in range(d)]
logits = vm(hf, Wout)
sum_exp = mp.fsum(mp.exp(z) for z in logits)
p = [mp.exp(z) / sum_exp for z in logits]
loss = -mp.log(p[tgt])
order = sorted(range(len(p)), key=lambda i: (-p[i], i))
cum = [mp.fsum(p[i] for i in order[:n + 1]) for n in range(len(order))]
n_keep = next(n + 1 for n in range(len(cum)) if cum[n] >= P)
kept = order[:n_keep]
Zp = mp.fsum(p[i] for i in kept)
topp = [p[i] / Zp if i in kept else mp.mpf(0) for i in range(len(p))]
eT = [mp.exp(z / TEMP) for z in logits]
pT = [x / mp.fsum(eT) for x in eT]
entropy = -mp.fsum(x * mp.log(x) for x in p)
V_ = {w: i for i, w in enumerate(vocab)}

# ---------------------------------------------------------------- values by symgpt reference
values = {
    "LN1[0,1]": xn[0][1], "K_rot[2,1]": kr[2][1], "S[0,2,0]": S[0][2][0], "A[1,2,2]": att[1][2][2],
    "R[2,1]": act[1], "loss": loss, "softmax_T(1.5, 喜欢)": pT[V_["喜欢"]], "topp(0.8, 鱼)": topp[V_["鱼"]],
    "sqrt(ms1[1] + ln_eps)": r1[1], "LN1[2,3]": xn[2][3], "Q_rot[2,0]": qr[2][0], "A_den[0,2]": A_den[0][2],
    "Z[2,0]": gate[0], "p[鱼]": p[V_["鱼"]], "logits[鱼]": logits[V_["鱼"]],
    "p[睡觉] + p[鱼] + p[吃]": p[V_["睡觉"]] + p[V_["鱼"]] + p[V_["吃"]], "topp(0.8, 睡觉)": topp[V_["睡觉"]],
    "softmax_T(1.5, 鱼)": pT[V_["鱼"]],
}

# ---------------------------------------------------------------- every figure of DOC.ipynb

flat = lambda A: [x for r in A for x in (flat(r) if isinstance(r, list) else [r])]  # noqa: E731
# the numbers of each code cell's outputs, in print order (cells by execution_count)
OUTPUTS = {
    2: [("stream", r1 + flat(xn) + [c[0] for c in cs] + [s[0] for s in sn] + flat(q) + flat(k) + flat(qr) + flat(kr)
                 + flat(v))],
    3: [("stream", flat(att) + flat(o) + flat(h1) + gate + up + act + out + hf + logits + p + [p[tgt]]),
        ("execute_result", [loss])],
    4: [("stream", [x for i, c in zip(order, cum) for x in (p[i], c)] + pT + [entropy]),
        ("execute_result", topp)],
}
e = lambda x: mp.exp(mp.mpf(x))  # noqa: E731  an exponential of a printed operand
# the markdown's model figures, line by line: (a snippet that finds the line, [(printed, value), ...] in order)
q20, q21, c2, s2 = mp.mpf("0.9427"), mp.mpf("0.0496"), mp.mpf("-0.4161"), mp.mpf("0.9093")
MD = [
    ("= \\\\tfrac{0.39}{4}", [("0.39", mp.fsum(x * x for x in X[0])), ("0.0975", ms1[0]), ("0.312252", r1[0])]),
    ("\\\\hat{x}_0 = x_0 /", [("0.312252", r1[0])] + [(None, x) for x in xn[0]]),
    ("位置 2、头 0 的查询", [("0.9427", q[2][0]), ("0.0496", q[2][1]), ("-0.4161", cs[2][0]), ("0.9093", sn[2][0])]),
    ("q'_{2,0} = ", [("0.3923", q20 * -c2), ("0.0451", q21 * s2), ("-0.4374", qr[2][0])]),
    ("s^{(0)}_{2,0} = ", [("-0.4374", qr[2][0]), ("0.8327", kr[0][0]), ("0.8365", qr[2][1]), ("-0.3523", kr[0][1]),
                          (None, S[0][2][0])]),
    ("三个位置都可见", [(None, S[0][2][s]) for s in range(3)]),
    ("e^{-0.4659} + ", [(None, S[0][2][s]) for s in range(3)] + [(None, mp.exp(S[0][2][s])) for s in range(3)]
     + [("2.8802", A_den[0][2])] + [(None, att[0][2][s]) for s in range(3)]),
    ("**验算**第 2 个隐藏单元", [("0.1529", gate[2]), ("0.2880", up[2])]),
    ("\\\\mathrm{SiLU}(0.1529) = ", [("1.8582", 1 + e("-0.1529")), ("0.0823", silu[2]), ("0.0237", act[2])]),
    ("第 1 个单元的 gate", [("0.2705", gate[1]), ("1.0744", up[1]), (None, act[1]), ("-0.3669", gate[3]),
                          ("-0.1502", silu[3])]),
    ("z_{\\\\text{鱼}} = ", [(f, x) for f, x in zip(("1.2588", "0.6898", "-1.0518", "0.9559"), hf)]
     + [("1.51056", mp.mpf("1.2588") * Wout[0][tgt]), ("0.34490", mp.mpf("0.6898") * Wout[1][tgt]),
        ("0.94662", mp.mpf("1.0518") * Wout[2][tgt]), ("0.28677", mp.mpf("0.9559") * Wout[3][tgt]),
        ("1.1956", logits[tgt])]),
    ("六个 $e^{z_j}$ 之和", [("12.6413", sum_exp)]),
    ("p(\\\\text{鱼}) = \\\\frac", [("3.3055", mp.exp(logits[tgt])), ("0.2615", p[tgt]), ("0.2615", p[tgt]), (None, loss)]),
    ("模型最看好的", [("0.2789", p[V_["睡觉"]])]),
    ("前两个词加起来", [("0.5404", cum[1]), ("0.8018", cum[2]), ("0.8018", Zp)]),
    *[(f"| {vocab[i]} | ", [(None, p[i]), ("0" if topp[i] == 0 else None, topp[i]), (None, pT[i])]) for i in order],
    ("截断之后", [("26.15%", p[tgt] * 100), (None, topp[tgt] * 100), ("34.79%", topp[V_["睡觉"]] * 100),
              ("1.5950", entropy), ("1.7918", mp.log(6))]),
    ("**小结**", [("0.2615", p[tgt]), ("1.3414", loss)]),
]


def key_rows():
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    return [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]


def check_doc(doc_lines: list[str], planted: set[tuple[int, str]]) -> int:
    """Every model figure the notebook prints: the correct rounding, or one of the key's planted errors."""
    bad = wrong = 0
    nb = json.loads("\n".join(doc_lines))
    # where each output's text starts in the file: its lines are the file's lines in order
    cursor = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for (kind, vals), outp in zip(OUTPUTS.get(cell["execution_count"], []), cell["outputs"]):
            assert outp["output_type"] == kind, (cell["execution_count"], kind)
            text = outp["text"] if kind == "stream" else outp["data"]["text/plain"]
            nums = []
            for piece in text:
                cursor = next(i for i in range(cursor, len(doc_lines)) if json.dumps(piece, ensure_ascii=False) in doc_lines[i])
                nums += [(cursor + 1, n) for n in re.findall(r"-?\d+\.\d+", piece)]
            assert len(nums) == len(vals), (cell["execution_count"], len(nums), len(vals))
            for (line, printed), val in zip(nums, vals):
                right = rnd(val, len(printed.split(".")[1]))
                if right != printed:
                    wrong += 1
                    ok = (line, printed) in planted
                    bad += not ok
                    print(f"  line {line:>3}: printed {printed:>8}, correct {right:>8}  {'planted' if ok else 'NOT IN THE KEY'}")
    for snippet, figs in MD:
        line = next(i for i, t in enumerate(doc_lines) if snippet in t)
        text, pos = doc_lines[line], 0
        for printed, val in figs:
            if printed is None:                   # take the next figure on the line
                mt = re.compile(r"-?\d+\.\d+%?").search(text, pos)
                printed = mt.group(0)
            at = text.find(printed, pos)
            assert at >= 0, (line + 1, printed)
            pos = at + len(printed)
            digits = printed.rstrip("%")
            right = rnd(val, len(digits.split(".")[1]) if "." in digits else 0) + ("%" if printed.endswith("%") else "")
            if right != printed:
                wrong += 1
                ok = (line + 1, printed) in planted
                bad += not ok
                print(f"  line {line + 1:>3}: printed {printed:>8}, correct {right:>8}  {'planted' if ok else 'NOT IN THE KEY'}")
    n_figs = sum(len(v) for c in OUTPUTS.values() for _, v in c) + sum(len(f) for _, f in MD)
    print(f"  {n_figs} model figures checked, {wrong} wrong, {bad} of them not planted")
    return bad


def main() -> int:
    doc_lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    rows = key_rows()
    planted = {(int(c[1]), c[0].strip("`")) for c in rows if len(c) == 7}
    print("DOC.ipynb, every model figure:")
    bad = check_doc(doc_lines, planted)
    print("KEY.md:")
    for cells in rows:
        printed, line = cells[0].strip("`"), int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in values), None)
        if ref is None:
            print(f"  {printed:>10}  (no oracle value for {cells[-1]})")
            bad += 1
            continue
        v = values[ref] * (100 if printed.endswith("%") else 1)
        on_line = 0 < line <= len(doc_lines) and printed in doc_lines[line - 1]
        shown = cells[4].strip("`") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:                            # a planted error: the key's columns must agree
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed and on_line
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed and on_line else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += note.isupper() or note.startswith("KEY")
        print(f"  {printed:>10}  line {line:>3}  {ref:<24} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    print("all key rows agree with the oracle" if not bad else f"{bad} key rows or figures disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
