#!/usr/bin/env python3
"""Independent check of DOC.ipynb and KEY.md: plain mpmath at 50 digits, no symgpt, no torch.

    python oracle.py

Model (read from SPEC.toml; tiny_llama_weights.json, the file the notebook loads, must hold the same
numbers): a two-layer Llama, pre-norm, RMSNorm g * x / sqrt(mean(x^2) + eps) (eps = 1e-6), two heads
of width 2 with RoPE in Hugging Face's rotate_half convention (one frequency, theta^0 = 1: position t
turns (q0, q1) by t radians), causal softmax of q.k / sqrt(2), output projection W_O, SwiGLU
(SiLU(x W_1) * x W_3) W_2, final RMSNorm, untied head W_out, cross-entropy of the last position.

Gradients are complex-step derivatives, Im L(theta + i*1e-40) / 1e-40 (error of order 1e-80, no
cancellation); the gradient check is (L(theta + h) - L(theta - h)) / 2h with h = 1e-5 exactly.

The script (1) recomputes every figure the notebook prints, with the quantity it stands for, and
asserts that each one not planted is the correct rounding (half away from zero) of its exact value and
that each planted one is not; (2) reads KEY.md and asserts its "exact value" and "correct rounding"
columns (planted rows) and its printed figures (correct rows) against the same values.
"""
from __future__ import annotations

import json
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
H_FD = mp.mpf("1e-5")
H_CS = mp.mpf("1e-40")


# ------------------------------------------------------------------ the model

def num(x):
    return mp.mpf(str(x))


def load():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    m, w = spec["model"], spec["weights"]
    assert (m["arch"], m["d"], m["heads"], m["kv_heads"], m["d_ff"], m["layers"], m["tied"]) == \
        ("llama", 4, 2, 2, 6, 2, False)
    P = {"E": [[num(v) for v in r] for r in w["E"]], "W_out": [[num(v) for v in r] for r in w["W_out"]],
         "gamma_f": [num(v) for v in w["gamma_f"]], "layers": []}
    for L in spec["layer"]:
        P["layers"].append({k: ([[num(v) for v in r] for r in L[k]] if isinstance(L[k][0], list)
                                else [num(v) for v in L[k]]) for k in L})
    # the notebook's weight file must hold the same numbers
    J = json.loads((HERE / "tiny_llama_weights.json").read_text(encoding="utf-8"))
    same = lambda a, b: json.dumps(a) == json.dumps(b)
    assert J["vocab"] == m["vocab"]
    assert same(J["embed_tokens"], w["E"]) and same(J["lm_head"], w["W_out"]) and same(J["norm"], w["gamma_f"])
    pairs = {"q_proj": "W_Q", "k_proj": "W_K", "v_proj": "W_V", "o_proj": "W_O", "gate_proj": "W_1",
             "up_proj": "W_3", "down_proj": "W_2", "input_layernorm": "gamma1", "post_attention_layernorm": "gamma2"}
    for jl, sl in zip(J["layers"], spec["layer"]):
        for a, b in pairs.items():
            assert same(jl[a], sl[b]), (a, b)
    vocab = m["vocab"]
    ids = [vocab.index(t) for t in spec["data"]["input"]]
    return P, vocab, ids, vocab.index(spec["data"]["target"]), num(m["ln_eps"])


def matmul(X, W):
    return [[mp.fsum(X[t][i] * W[i][j] for i in range(len(W))) for j in range(len(W[0]))] for t in range(len(X))]


def rmsnorm(X, g, eps):
    out, ms = [], []
    for row in X:
        m = mp.fsum(x * x for x in row) / len(row)
        r = mp.sqrt(m + eps)
        ms.append(m)
        out.append([g[j] * row[j] / r for j in range(len(row))])
    return out, ms


def rope(M, heads):
    T, d = len(M), len(M[0])
    dk = d // heads
    R = [r[:] for r in M]
    for t in range(T):
        for h in range(heads):
            for i in range(dk // 2):
                ang = t * mp.mpf(10000) ** (-mp.mpf(2 * i) / dk)
                a, b = h * dk + i, h * dk + i + dk // 2
                R[t][a] = M[t][a] * mp.cos(ang) - M[t][b] * mp.sin(ang)
                R[t][b] = M[t][b] * mp.cos(ang) + M[t][a] * mp.sin(ang)
    return R


def forward(P, ids, tgt, eps, heads=2):
    x = [P["E"][i][:] for i in ids]
    T, d = len(x), len(x[0])
    dk = d // heads
    out = {"X": x}
    for l, L in enumerate(P["layers"]):
        n1, ms1 = rmsnorm(x, L["gamma1"], eps)
        Q, K, V = matmul(n1, L["W_Q"]), matmul(n1, L["W_K"]), matmul(n1, L["W_V"])
        Qr, Kr = rope(Q, heads), rope(K, heads)
        S = [[[None] * T for _ in range(T)] for _ in range(heads)]
        A = [[[mp.mpf(0)] * T for _ in range(T)] for _ in range(heads)]
        cat = [[mp.mpf(0)] * d for _ in range(T)]
        for h in range(heads):
            cols = range(h * dk, (h + 1) * dk)
            for t in range(T):
                for r in range(t + 1):
                    S[h][t][r] = mp.fsum(Qr[t][c] * Kr[r][c] for c in cols) / mp.sqrt(dk)
                den = mp.fsum(mp.exp(S[h][t][r]) for r in range(t + 1))
                for r in range(t + 1):
                    A[h][t][r] = mp.exp(S[h][t][r]) / den
                for c in cols:
                    cat[t][c] = mp.fsum(A[h][t][r] * V[r][c] for r in range(t + 1))
        attn = matmul(cat, L["W_O"])
        h1 = [[x[t][j] + attn[t][j] for j in range(d)] for t in range(T)]
        n2, _ = rmsnorm(h1, L["gamma2"], eps)
        Z, U = matmul(n2, L["W_1"]), matmul(n2, L["W_3"])
        R = [[Z[t][k] / (1 + mp.exp(-Z[t][k])) * U[t][k] for k in range(len(Z[0]))] for t in range(T)]
        F = matmul(R, L["W_2"])
        x = [[h1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
        out[f"l{l}"] = {"ms1": ms1, "LN1": n1, "Q_rot": Qr, "K_rot": Kr, "S": S, "A": A}
    nf, _ = rmsnorm(x, P["gamma_f"], eps)
    hf = nf[-1]
    logits = [mp.fsum(hf[j] * P["W_out"][j][v] for j in range(d)) for v in range(len(P["W_out"][0]))]
    se = mp.fsum(mp.exp(z) for z in logits)
    p = [mp.exp(z) / se for z in logits]
    out.update(h_final=hf, logits=logits, sum_exp=se, p=p, loss=-mp.log(p[tgt]))
    return out


# ------------------------------------------------------------------ named quantities (symgpt's spelling)

P, VOCAB, IDS, TGT, EPS = load()
BASE = forward(P, IDS, TGT, EPS)


def param_cell(name):
    """'E[ran,1]', 'l0.W_Q[0,1]', 'l1.W_2[1,3]' -> (matrix, i, j)."""
    m = re.fullmatch(r"(?:l(\d)\.)?(\w+)\[(\w+),(\d+)\]", name.replace(" ", ""))
    layer, mat, i, j = m.groups()
    i = VOCAB.index(i) if i in VOCAB else int(i)
    M = P["layers"][int(layer)][mat] if layer is not None else P[mat]
    return M, i, int(j)


def loss_at(name, delta):
    M, i, j = param_cell(name)
    old = M[i][j]
    M[i][j] = old + delta
    try:
        return forward(P, IDS, TGT, EPS)["loss"]
    finally:
        M[i][j] = old


def grad(name):
    return mp.im(loss_at(name, mp.mpc(0, H_CS))) / H_CS


def gradcheck(name):
    return (loss_at(name, H_FD) - loss_at(name, -H_FD)) / (2 * H_FD)


def node(name):
    """A plain node name: 'l0.LN1[2,2]', 'l0.A[0,2,0]', 'p[home]', 'h_final[1]', 'loss', 'l0.ms1[2]'."""
    if name.startswith("grad_"):
        return grad(name[5:])
    m = re.fullmatch(r"(?:(l\d)\.)?(\w+)(?:\[([^\]]*)\])?", name.replace(" ", ""))
    layer, key, idx = m.groups()
    if layer:
        obj = BASE[layer][key] if key in BASE[layer] else P["layers"][int(layer[1:])][key]
    else:
        obj = BASE[key] if key in BASE else P[key]
    for k in (idx.split(",") if idx else []):
        obj = obj[VOCAB.index(k) if k in VOCAB else int(k)]
    return obj


def value(ref):
    """A key's quantity: a node, gradcheck(P, 1e-5), loss_at(P, ±1e-5), sqrt(l0.ms1[2] + ln_eps),
    exp(logits[v]), abs(gradcheck(P, 1e-5) - grad_P)/abs(grad_P)."""
    ref = ref.replace(" ", "")
    m = re.fullmatch(r"gradcheck\((.+),1e-5\)", ref)
    if m:
        return gradcheck(m.group(1))
    m = re.fullmatch(r"loss_at\((.+),(-?)1e-5\)", ref)
    if m:
        return loss_at(m.group(1), -H_FD if m.group(2) else H_FD)
    m = re.fullmatch(r"sqrt\((.+)\+ln_eps\)", ref)
    if m:
        return mp.sqrt(node(m.group(1)) + EPS)
    m = re.fullmatch(r"exp\((.+)\)", ref)
    if m:
        return mp.exp(node(m.group(1)))
    m = re.fullmatch(r"abs\(gradcheck\((.+),1e-5\)-grad_(.+)\)/abs\(grad_(.+)\)", ref)
    if m:
        g = grad(m.group(2))
        return abs(gradcheck(m.group(1)) - g) / abs(g)
    return node(ref)


# ------------------------------------------------------------------ rounding

def rnd(v, places: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):.{places}f}"


def as_printed(v, printed: str) -> str:
    """The correct rounding of v in the printed figure's format (fixed, x.xe-yy, or a percentage)."""
    m = re.fullmatch(r"(-?\d)\.(\d+)e([+-]\d+)", printed)
    if m:
        places = len(m.group(2))
        e = int(mp.floor(mp.log10(abs(v))))
        mant = rnd(v / mp.mpf(10) ** e, places)
        if abs(Decimal(mant)) >= 10:             # 9.96 -> 10.0: renormalise
            e += 1
            mant = rnd(v / mp.mpf(10) ** e, places)
        return f"{mant}e{e:+03d}"
    pct = printed.endswith("%")
    body = printed.rstrip("%")
    places = len(body.split(".")[1]) if "." in body else 0
    return rnd(v * (100 if pct else 1), places) + ("%" if pct else "")


# ------------------------------------------------------------------ every figure the notebook prints

REL = "abs(gradcheck({0}, 1e-5) - grad_{0})/abs(grad_{0})"
CHECKS = ["E[ran,1]", "E[the,1]", "l0.W_Q[0,1]", "l1.W_2[1,3]"]   # the notebook's four entries, in order

FIGURES = [  # (line of DOC.ipynb, printed, quantity, planted?)
    (203, "0.1875", "l0.ms1[2]", False),
    (203, "0.4330", "sqrt(l0.ms1[2] + ln_eps)", False),
    (205, "0.7", "X[2,0]", False),
    (205, "1.6166", "l0.LN1[2,0]", False),
    (205, "0.9", "l0.gamma1[2]", False),
    (205, "-0.3", "X[2,2]", False),
    (205, "-0.6236", "l0.LN1[2,2]", True),
    *[(220, s, f"l0.LN1[2,{j}]", False) for j, s in enumerate(["1.6166", "0.2540", "-0.6235", "0.9238"])],
    (236, "-0.4685", "l0.Q_rot[2,0]", False),
    (236, "2.7774", "l0.Q_rot[2,1]", False),
    (236, "-0.9962", "l0.K_rot[1,0]", False),
    (236, "-1.5515", "l0.K_rot[1,1]", False),
    (238, "-0.4685", "l0.Q_rot[2,0]", False),
    (238, "-0.9962", "l0.K_rot[1,0]", False),
    (238, "2.7774", "l0.Q_rot[2,1]", False),
    (238, "-1.5515", "l0.K_rot[1,1]", False),
    (238, "0.3300", "l0.S[0,2,1]", True),
    (242, "0.5726", "l0.A[0,2,0]", True),
    (242, "0.0567", "l0.A[0,2,1]", False),
    (242, "0.3671", "l0.A[0,2,2]", False),
    *[(257, s, f"l0.A[0,2,{r}]", False) for r, s in enumerate(["0.5762", "0.0567", "0.3671"])],
    *[(258, s, f"l0.A[1,2,{r}]", False) for r, s in enumerate(["0.2638", "0.2850", "0.4512"])],
    *[(291, s, f"l1.LN1[2,{j}]", False) for j, s in enumerate(["1.2409", "0.3052", "-1.6067", "0.2112"])],
    *[(292, s, f"l1.A[0,2,{r}]", False) for r, s in enumerate(["0.3460", "0.2501", "0.4039"])],
    *[(293, s, f"l1.A[1,2,{r}]", False) for r, s in enumerate(["0.4031", "0.3368", "0.2601"])],
    (312, "-1.6067", "l1.LN1[2,2]", False),
    (312, "0.40%", "l1.A[1,2,0]", True),
    *[(329, s, f"h_final[{j}]", False) for j, s in enumerate(["0.3606", "1.2928", "0.3359", "1.5707"])],
    *[(330, s, f"logits[{v}]", False) for v, s in zip(["the", "dog", "ran", "home", "fast", "cat"],
                                                      ["0.1435", "0.8860", "0.5047", "0.6727", "0.0149", "-0.3287"])],
    *[(331, s, f"p[{v}]", False) for v, s in zip(["the", "dog", "ran", "home", "fast", "cat"],
                                                 ["0.1293", "0.2716", "0.1855", "0.2194", "0.1137", "0.0806"])],
    (332, "1.516734", "loss", False),
    (354, "1.9596", "exp(logits[home])", False),
    (354, "8.9306", "sum_exp", False),
    (354, "0.2195", "p[home]", True),
    (354, "1.5167", "loss", False),
    (373, "4.09431458", "grad_E[ran,1]", False),
    (374, "4.45284883", "grad_E[the,1]", False),
    (375, "-0.40506253", "grad_l0.W_Q[0,1]", False),
    (376, "-3.49288005", "grad_l1.W_2[1,3]", False),
    (414, "1.516775218446", "loss_at(E[ran,1], 1e-5)", False),
    (414, "1.516693332154", "loss_at(E[ran,1], -1e-5)", False),
    (415, "4.09431459", "gradcheck(E[ran,1], 1e-5)", False),
    (415, "1.9e-09", REL.format("E[ran,1]"), False),
    (417, "1.516778817974", "loss_at(E[the,1], 1e-5)", False),
    (417, "1.516689761019", "loss_at(E[the,1], -1e-5)", False),
    (418, "4.45284772", "gradcheck(E[the,1], 1e-5)", False),
    (418, "2.5e-07", REL.format("E[the,1]"), False),
    (420, "1.516730230606", "loss_at(l0.W_Q[0,1], 1e-5)", False),
    (420, "1.516738331851", "loss_at(l0.W_Q[0,1], -1e-5)", False),
    (421, "-0.40506227", "gradcheck(l0.W_Q[0,1], 1e-5)", False),
    (421, "6.3e-07", REL.format("l0.W_Q[0,1]"), False),
    (423, "1.516699345040", "loss_at(l1.W_2[1,3], 1e-5)", False),
    (423, "1.516769202641", "loss_at(l1.W_2[1,3], -1e-5)", False),
    (424, "-3.49288006", "gradcheck(l1.W_2[1,3], 1e-5)", False),
    (424, "8.6e-10", REL.format("l1.W_2[1,3]"), False),
    (456, "4.094315", "grad_E[ran,1]", False),
    (456, "4.094315", "gradcheck(E[ran,1], 1e-5)", False),
    (457, "4.452849", "grad_E[the,1]", False),
    (457, "4.452848", "gradcheck(E[the,1], 1e-5)", False),
    (458, "-0.016532", "grad_l0.W_Q[0,1]", True),
    (458, "-0.405062", "gradcheck(l0.W_Q[0,1], 1e-5)", False),
    (459, "-3.492880", "grad_l1.W_2[1,3]", False),
    (459, "3.492880", "gradcheck(l1.W_2[1,3], 1e-5)", True),
    (463, "1.516730230606", "loss_at(l0.W_Q[0,1], 1e-5)", False),
    (463, "1.516738331851", "loss_at(l0.W_Q[0,1], -1e-5)", False),
    (463, "-0.40506225", "gradcheck(l0.W_Q[0,1], 1e-5)", True),
]


def check_figures(doc_lines) -> int:
    bad = 0
    for line, printed, ref, planted in FIGURES:
        text = doc_lines[line - 1]
        if not re.search(r"(?<![\d.])" + re.escape(printed) + r"(?![\d])", text.replace("\\u2212", "-")):
            print(f"  line {line}: {printed} NOT FOUND in {text.strip()[:80]}")
            bad += 1
            continue
        right = as_printed(value(ref), printed)
        ok = (right != printed) if planted else (right == printed)
        bad += not ok
        if planted or not ok:
            print(f"  line {line:>3}  {printed:>15}  {ref:<44} correct {right:<15} "
                  f"{('planted' if ok else 'PLANTED BUT CORRECT') if planted else 'NOT THE CORRECT ROUNDING'}")
    # the planted errors' own arithmetic: each one is what its slip gives
    r = mp.mpf("0.4330")
    assert rnd(mp.mpf("0.9") * mp.mpf("-0.3") / r, 4) == "-0.6236"                      # carried rounding
    assert rnd(mp.mpf("-0.4685") * mp.mpf("-0.9962") / mp.sqrt(2), 4) == "0.3300"         # forgotten term
    q = (mp.mpf("1.516730230606") - mp.mpf("1.516738331851")) / (2 * H_FD)
    assert abs(q - mp.mpf("-0.40506225")) < mp.mpf("1e-40")                            # carried rounding
    assert rnd(value("grad_l0.W_Q[1,0]"), 6) == "-0.016532"                              # transposed entry
    assert rnd(value("l1.A[1,2,0]"), 2) == "0.40"                                        # percent slip
    # the other settings and counts the text states
    count = 6 * 4 + 2 * (4 * 16 + 3 * 24 + 2 * 4) + 4 + 4 * 6
    assert count == 340 and "340 parameters" in doc_lines[173]
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    assert EPS == mp.mpf("1e-6") and "10^{-6}" in doc_lines[53] and "10^{-6}" in doc_lines[202]
    assert mp.mpf(str(spec["training"]["gradcheck"]["h"])) == H_FD and "eps = 1e-5" in "".join(doc_lines[420:450])
    assert "tensor([[0, 1, 2]]) tensor([3])" in doc_lines[24] and IDS == [0, 1, 2] and TGT == 3
    return bad


def check_key() -> int:
    bad = 0
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        refs = re.findall(r"`([^`]+)`", cells[-1])
        v = value(refs[0])
        for other in refs[1:]:                          # alternatives must be the same number
            assert abs(value(other) - v) <= mp.mpf("1e-40") * (1 + abs(v)), other
        if len(cells) == 7:                             # planted: the key's exact value and rounding
            shown = cells[4].strip("`")
            right = as_printed(v, shown)
            scale = 100 if shown.endswith("%") else 1
            exact = mp.mpf(cells[3].rstrip("…"))
            ok = shown == right and abs(exact - v * scale) <= mp.mpf("1e-10") * abs(v * scale) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            right = as_printed(v, printed)
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>15}  {refs[0]:<34} {mp.nstr(v, 15):<22} rounds to {right:<12} {note}")
    return bad


def main() -> int:
    doc_lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").splitlines()
    print("every figure of DOC.ipynb:")
    bad = check_figures(doc_lines)
    print(f"  {len(FIGURES)} figures, {sum(f[3] for f in FIGURES)} planted")
    print("KEY.md:")
    bad += check_key()
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} DISAGREEMENTS")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
