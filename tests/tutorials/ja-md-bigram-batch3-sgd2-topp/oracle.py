#!/usr/bin/env python3
"""Independent oracle for ja-md-bigram-batch3-sgd2-topp: plain mpmath at 50 digits, no symgpt.

    python oracle.py

Model (SPEC.toml): a bigram, vocab 猫 犬 魚 食べる 走る (ids 0..4), d = 2; x = E[token], z = x·W,
p = softmax(z), loss = -ln p[target]. Mini-batch of three pairs: 猫 → 食べる ([data], example 0),
犬 → 走る (example 1), 食べる → 魚 (example 2). The batch loss is the mean of the three losses and the
gradient the mean of the three gradients; SGD with lr 0.5 updates W and E together from that mean,
twice. After step 2 the first pair's input 猫 is fed again: its distribution p, top-p with P = 0.8
(the shortest prefix of the ranking whose mass is >= P, renormalised) and the greedy choice.

The program
  * computes every quantity DOC.md prints (FIGURES below: line, printed text, symgpt name),
    checks that the printed text stands on that line of DOC.md, and that each figure is the correct
    rounding (half away from zero) of its value unless it is one of the planted errors;
  * reads KEY.md and checks each row: the printed text on its line, the "exact value" and
    "correct rounding" columns of the planted rows, and the correct rows' figures.
Percent figures are the quantity x 100.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["猫", "犬", "魚", "食べる", "走る"]
TOK = {w: i for i, w in enumerate(VOCAB)}
E0 = [["0.6", "-0.2"], ["-0.3", "0.5"], ["0.2", "0.4"], ["0.1", "-0.5"], ["-0.4", "0.3"]]
W0 = [["0.3", "-0.1", "0.2", "0.4", "-0.2"], ["-0.2", "0.5", "0.1", "-0.3", "0.4"]]
BATCH = [(TOK["猫"], TOK["食べる"]), (TOK["犬"], TOK["走る"]), (TOK["食べる"], TOK["魚"])]
LR = mp.mpf("0.5")
P_TOP = mp.mpf("0.8")
V, D = 5, 2


def mat(a):
    return [[mp.mpf(v) for v in r] for r in a]


def forward(E, W, tok, tgt):
    x = list(E[tok])
    z = [mp.fsum(x[k] * W[k][j] for k in range(D)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[k] * gz[j] for j in range(V)] for k in range(D)]
    gx = [mp.fsum(W[k][j] * gz[j] for j in range(V)) for k in range(D)]
    gE = [[gx[k] if v == tok else mp.mpf(0) for k in range(D)] for v in range(V)]
    return dict(x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz, grad_W=gW, grad_x=gx, grad_E=gE)


def state(E, W):
    """The batch at parameters E, W: each example's pass, the mean loss and the mean gradients."""
    ex = [forward(E, W, t, y) for t, y in BATCH]
    B = len(ex)
    mean_loss = mp.fsum(e["loss"] for e in ex) / B
    gW = [[mp.fsum(e["grad_W"][k][j] for e in ex) / B for j in range(V)] for k in range(D)]
    gE = [[mp.fsum(e["grad_E"][v][k] for e in ex) / B for k in range(D)] for v in range(V)]
    return dict(E=E, W=W, ex=ex, loss=mean_loss, grad_W=gW, grad_E=gE)


def train():
    s = [state(mat(E0), mat(W0))]
    for _ in range(2):
        c = s[-1]
        W = [[c["W"][k][j] - LR * c["grad_W"][k][j] for j in range(V)] for k in range(D)]
        E = [[c["E"][v][k] - LR * c["grad_E"][v][k] for k in range(D)] for v in range(V)]
        s.append(state(E, W))
    return s


def top_p(p, P):
    order = sorted(range(V), key=lambda j: (-p[j], j))
    kept, mass = [], mp.mpf(0)
    for j in order:
        kept.append(j)
        mass += p[j]
        if mass >= P:
            break
    return {j: (p[j] / mass if j in kept else mp.mpf(0)) for j in range(V)}, kept, mass


def values():
    s = train()
    val = {}
    # parameters and settings
    for v in range(V):
        for k in range(D):
            val[f"E[{VOCAB[v]},{k}]"] = mp.mpf(E0[v][k])
    for k in range(D):
        for j in range(V):
            val[f"W[{k},{VOCAB[j]}]"] = mp.mpf(W0[k][j])
    val["lr"] = LR
    val["top_p"] = P_TOP
    # each example at the initial weights (example[0] is unprefixed)
    for b, e in enumerate(s[0]["ex"]):
        pre = "" if b == 0 else f"example[{b}]."
        for k in range(D):
            val[f"{pre}x[{k}]"] = e["x"][k]
            val[f"{pre}grad_x[{k}]"] = e["grad_x"][k]
        for j in range(V):
            w = VOCAB[j]
            val[f"{pre}z[{w}]"] = e["z"][j]
            val[f"{pre}p[{w}]"] = e["p"][j]
            val[f"{pre}grad_z[{w}]"] = e["grad_z"][j]
            for k in range(D):
                val[f"{pre}grad_W[{k},{w}]"] = e["grad_W"][k][j]
        val[f"{pre}sum_exp"] = e["sum_exp"]
        val[f"{pre}loss"] = e["loss"]
    # training states: batch-mean loss and gradients, parameters, the first example's pass
    for n, c in enumerate(s):
        pre = f"sgd[{n}]."
        val[pre + "loss"] = c["loss"]
        e = c["ex"][0]
        val[pre + "sum_exp"] = e["sum_exp"]
        for j in range(V):
            w = VOCAB[j]
            val[f"{pre}z[{w}]"] = e["z"][j]
            val[f"{pre}p[{w}]"] = e["p"][j]
            for k in range(D):
                val[f"{pre}W[{k},{w}]"] = c["W"][k][j]
                val[f"{pre}grad_W[{k},{w}]"] = c["grad_W"][k][j]
        for v in range(V):
            for k in range(D):
                val[f"{pre}E[{VOCAB[v]},{k}]"] = c["E"][v][k]
                val[f"{pre}grad_E[{VOCAB[v]},{k}]"] = c["grad_E"][v][k]
    # sampling after step 2, input 猫
    p2 = s[2]["ex"][0]["p"]
    tp, kept, mass = top_p(p2, P_TOP)
    assert [VOCAB[j] for j in kept] == ["食べる", "猫", "魚", "犬"], kept
    for j in range(V):
        val[f"sgd[2].topp(0.8, {VOCAB[j]})"] = tp[j]
    greedy = max(range(V), key=lambda j: (p2[j], -j))
    assert VOCAB[greedy] == "食べる"
    ranked = ["食べる", "猫", "魚", "犬", "走る"]
    for i in range(2, 6):
        ref = " + ".join(f"sgd[2].p[{w}]" for w in ranked[:i])
        val[ref] = mp.fsum(p2[TOK[w]] for w in ranked[:i])
    assert abs(mass - val["sgd[2].p[食べる] + sgd[2].p[猫] + sgd[2].p[魚] + sgd[2].p[犬]"]) < mp.mpf(10) ** -45
    return val


CUM2 = "sgd[2].p[食べる] + sgd[2].p[猫]"
CUM3 = CUM2 + " + sgd[2].p[魚]"
CUM4 = CUM3 + " + sgd[2].p[犬]"
CUM5 = CUM4 + " + sgd[2].p[走る]"

# (line of DOC.md, figure as printed, quantity); PLANTED marks the eight planted errors
PLANTED = {(67, "4.8924"), (74, "0.1940"), (109, "-0.4686"), (114, "-0.0278"), (126, "0.0766"),
           (158, "0.5592"), (194, "0.3362"), (201, "0.2952%")}
FIGURES = [
    # §1 the weights
    *[(31 + v, f, f"E[{VOCAB[v]},{k}]") for v in range(V) for k, f in enumerate(E0[v])],
    *[(41 + k, f, f"W[{k},{VOCAB[j]}]") for k in range(D) for j, f in enumerate(W0[k])],
    (6, "0.5", "lr"),
    # §2 forward pass
    (53, "0.6", "x[0]"), (53, "0.4", "W[0,食べる]"), (53, "-0.2", "x[1]"), (53, "-0.3", "W[1,食べる]"),
    (53, "0.30", "z[食べる]"),
    (59, "0.22", "z[猫]"), (59, "-0.16", "z[犬]"), (59, "0.10", "z[魚]"), (59, "0.30", "z[食べる]"),
    (59, "-0.20", "z[走る]"),
    (60, "-0.19", "example[1].z[猫]"), (60, "0.28", "example[1].z[犬]"), (60, "-0.01", "example[1].z[魚]"),
    (60, "-0.27", "example[1].z[食べる]"), (60, "0.26", "example[1].z[走る]"),
    (61, "0.13", "example[2].z[猫]"), (61, "-0.26", "example[2].z[犬]"), (61, "-0.03", "example[2].z[魚]"),
    (61, "0.19", "example[2].z[食べる]"), (61, "-0.22", "example[2].z[走る]"),
    (65, "5.3720", "sum_exp"), (66, "5.2004", "example[1].sum_exp"), (67, "4.8924", "example[2].sum_exp"),
    (73, "0.2320", "p[猫]"), (73, "0.1586", "p[犬]"), (73, "0.2057", "p[魚]"), (73, "0.2513", "p[食べる]"),
    (73, "0.1524", "p[走る]"),
    (74, "0.1590", "example[1].p[猫]"), (74, "0.2544", "example[1].p[犬]"), (74, "0.1940", "example[1].p[魚]"),
    (74, "0.1468", "example[1].p[食べる]"), (74, "0.2494", "example[1].p[走る]"),
    (75, "0.2328", "example[2].p[猫]"), (75, "0.1576", "example[2].p[犬]"), (75, "0.1984", "example[2].p[魚]"),
    (75, "0.2472", "example[2].p[食べる]"), (75, "0.1640", "example[2].p[走る]"),
    (79, "1.3812", "loss"), (79, "1.3887", "example[1].loss"), (79, "1.6176", "example[2].loss"),
    (83, "1.4625", "sgd[0].loss"),
    # §3 gradients
    (93, "-0.7487", "grad_z[食べる]"), (94, "-0.7506", "example[1].grad_z[走る]"),
    (95, "-0.8016", "example[2].grad_z[魚]"),
    (104, "-0.4492", "grad_W[0,食べる]"), (105, "-0.0440", "example[1].grad_W[0,食べる]"),
    (106, "0.0247", "example[2].grad_W[0,食べる]"),
    (109, "-0.4686", "sgd[0].grad_W[0,食べる]"),
    (114, "0.0382", "sgd[0].grad_W[0,猫]"), (114, "-0.0278", "sgd[0].grad_W[0,犬]"),
    (114, "-0.0046", "sgd[0].grad_W[0,魚]"), (114, "-0.1562", "sgd[0].grad_W[0,食べる]"),
    (115, "-0.0278", "sgd[0].grad_W[1,猫]"), (115, "0.0056", "sgd[0].grad_W[1,犬]"),
    (115, "0.1516", "sgd[0].grad_W[1,魚]"), (115, "0.0332", "sgd[0].grad_W[1,食べる]"),
    (125, "-0.0784", "sgd[0].grad_E[猫,0]"), (125, "0.1130", "sgd[0].grad_E[猫,1]"),
    (126, "0.0897", "sgd[0].grad_E[犬,0]"), (126, "0.0766", "sgd[0].grad_E[犬,1]"),
    # §4 SGD step 1
    (130, "0.5", "lr"),
    (134, "0.4", "W[0,食べる]"), (134, "0.5", "lr"), (134, "-0.1562", "sgd[0].grad_W[0,食べる]"),
    (134, "0.4781", "sgd[1].W[0,食べる]"),
    (136, "0.1", "W[1,魚]"), (136, "0.5", "lr"), (136, "0.1516", "sgd[0].grad_W[1,魚]"),
    (136, "0.0242", "sgd[1].W[1,魚]"),
    (142, "0.6392", "sgd[1].E[猫,0]"), (142, "-0.2565", "sgd[1].E[猫,1]"),
    (143, "-0.3449", "sgd[1].E[犬,0]"), (143, "0.5383", "sgd[1].E[犬,1]"),
    # §5 SGD step 2
    (152, "-0.1621", "sgd[1].grad_W[0,食べる]"), (153, "0.1444", "sgd[1].grad_W[1,魚]"),
    (154, "-0.0976", "sgd[1].grad_E[猫,0]"), (154, "0.1115", "sgd[1].grad_E[猫,1]"),
    (158, "0.4781", "sgd[1].W[0,食べる]"), (158, "0.5", "lr"), (158, "-0.1621", "sgd[1].grad_W[0,食べる]"),
    (158, "0.5592", "sgd[2].W[0,食べる]"),
    (160, "-0.0480", "sgd[2].W[1,魚]"),
    (162, "0.5", "lr"), (162, "0.6880", "sgd[2].E[猫,0]"), (162, "-0.3123", "sgd[2].E[猫,1]"),
    (168, "1.4625", "sgd[0].loss"), (169, "1.3995", "sgd[1].loss"), (170, "1.3295", "sgd[2].loss"),
    # §6 sampling after step 2
    (174, "0.8", "top_p"),
    (182, "0.2952", "sgd[2].p[食べる]"), (182, "0.2952", "sgd[2].p[食べる]"),
    (183, "0.2282", "sgd[2].p[猫]"), (183, "0.5233", CUM2),
    (184, "0.2111", "sgd[2].p[魚]"), (184, "0.7345", CUM3),
    (185, "0.1436", "sgd[2].p[犬]"), (185, "0.8781", CUM4),
    (186, "0.1219", "sgd[2].p[走る]"), (186, "1.0000", CUM5),
    (188, "73.45%", CUM3),
    (189, "0.8", "top_p"), (189, "0.8781", CUM4), (189, "0.8", "top_p"),
    (190, "12.19%", "sgd[2].p[走る]"),
    (194, "0.2952", "sgd[2].p[食べる]"), (194, "0.8781", CUM4), (194, "0.3362", "sgd[2].topp(0.8, 食べる)"),
    (195, "0.2598", "sgd[2].topp(0.8, 猫)"), (196, "0.2405", "sgd[2].topp(0.8, 魚)"),
    (197, "0.1636", "sgd[2].topp(0.8, 犬)"), (198, "0", "sgd[2].topp(0.8, 走る)"),
    (201, "0.2952%", "sgd[2].p[食べる]"),
]


def rnd(v, n: int) -> str:
    """Round half away from zero to n decimals (on the 45-digit decimal of v)."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    s = f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"
    return s[1:] if s.startswith("-") and Decimal(s) == 0 else s


def places(text: str) -> int:
    t = text.rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def correct_text(v, shown: str) -> str:
    pct = shown.endswith("%")
    return rnd(v * 100 if pct else v, places(shown)) + ("%" if pct else "")


def on_line(lines, n: int, printed: str) -> bool:
    """The printed figure stands on line n (as a whole figure, not inside a longer one)."""
    pat = r"(?<![\d.])" + re.escape(printed) + r"(?![\d])"
    return n <= len(lines) and re.search(pat, lines[n - 1]) is not None


def main() -> int:
    val = values()
    doc = (HERE / "DOC.md").read_text(encoding="utf-8").splitlines()
    bad = 0

    print("DOC.md figures:")
    planted_seen = set()
    for line, printed, ref in FIGURES:
        if not on_line(doc, line, printed):
            print(f"  line {line}: {printed!r} NOT ON THAT LINE")
            bad += 1
            continue
        right = correct_text(val[ref], printed)
        if (line, printed) in PLANTED:
            planted_seen.add((line, printed))
            ok = right != printed
            note = f"planted (correct {right})" if ok else "PLANTED BUT CORRECT"
        else:
            ok = right == printed
            note = "correct" if ok else f"WRONG (correct {right})"
        bad += not ok
    assert planted_seen == PLANTED, PLANTED - planted_seen
    model_figs = [f for f in FIGURES if f[2] not in ("lr", "top_p") and not re.fullmatch(r"[EW]\[.*\]", f[2])]
    print(f"  {len(FIGURES)} figures checked ({len(model_figs)} computed model figures, "
          f"{len({f[2] for f in model_figs})} distinct quantities), {len(PLANTED)} planted")

    print("KEY.md rows:")
    key = (HERE / "KEY.md").read_text(encoding="utf-8").splitlines()
    rows = [r for r in key if r.startswith("| `")]
    n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in val), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = val[ref] * (100 if printed.endswith("%") else 1)
        where_ok = on_line(doc, line, printed)
        if len(cells) == 7:
            n_planted += 1
            shown = cells[4].strip("`")
            right = correct_text(val[ref], shown)
            exact = mp.mpf(cells[3].rstrip("…"))
            digits = len(re.sub(r"[^0-9]", "", cells[3].rstrip("…")).lstrip("0"))
            ok = (shown == right and right != printed and where_ok and (line, printed) in PLANTED
                  and abs(exact - v) <= mp.mpf(10) ** (-digits + 2) * max(abs(v), 1))
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            n_correct += 1
            right = correct_text(val[ref], printed)
            ok = right == printed and where_ok
            note = "correct" if ok else "NOT THE CORRECT ROUNDING OR NOT ON ITS LINE"
        bad += not ok
        print(f"  {printed:>10}  line {line:>3}  {ref:<28} {mp.nstr(v, 15):<20} rounds to {right:<9} {note}")
    if n_planted != 8 or n_correct != 10:
        print(f"  KEY has {n_planted} planted and {n_correct} correct rows (want 8 and 10)")
        bad += 1
    print("all figures and key rows agree with the oracle" if not bad else f"{bad} problems")
    assert bad == 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
