#!/usr/bin/env python3
"""Independent oracle for th-html-bigram-sgd3-sampling: plain mpmath at 50 digits, no symgpt.

    python oracle.py     # every KEY.md row's quantity with its exact value; asserts the key agrees

Model (SPEC.toml): a bigram over V = 5 Thai words (แมว กิน ปลา นอน บ้าน), d = 2, one training
pair กิน → ปลา.  x = E[กิน], z = x·W, p = softmax(z), loss = −ln p[ปลา], grad_z = p − y,
grad_W = outer(x, p − y), grad_x = W·(p − y) (only E's row กิน receives it).  Three SGD steps,
lr 0.5, on W and E together; sgd[k] is the model after k updates.  Sampling from sgd[3]:
temperature T = 0.7 (softmax of z/T), top-k with k = 3 of that distribution renormalised, and
the cumulative distribution in id order for a draw with u = 0.42 (the first token whose
cumulative probability exceeds u).  Rounding: half away from zero on a 45-digit decimal.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

VOCAB = ["แมว", "กิน", "ปลา", "นอน", "บ้าน"]
TOK, TGT = 1, 2
LR = mp.mpf("0.5")
TEMP = mp.mpf("0.7")
TOP_K = 3
U = mp.mpf("0.42")


def M(a):
    return [[mp.mpf(str(v)) for v in r] for r in a]


E0 = M([[0.3, -0.2], [0.6, 0.4], [-0.1, 0.5], [0.2, 0.1], [-0.4, 0.3]])
W0 = M([[0.5, -0.3, 0.2, 0.1, -0.2], [-0.1, 0.4, 0.3, -0.5, 0.2]])


def rnd(v, n: int) -> str:
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def forward(E, W):
    V, d = len(E), len(E[0])
    x = E[TOK][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == TGT else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    gE = [[gx[i] if v == TOK else mp.mpf(0) for i in range(d)] for v in range(V)]
    return dict(E=E, W=W, x=x, z=z, sum_exp=S, p=p, loss=-mp.log(p[TGT]), grad_z=gz, grad_W=gW,
                grad_x=gx, grad_E=gE)


def train(steps=3):
    states = [forward(E0, W0)]
    for _ in range(steps):
        s = states[-1]
        W = [[s["W"][i][j] - LR * s["grad_W"][i][j] for j in range(5)] for i in range(2)]
        E = [[s["E"][v][i] - LR * s["grad_E"][v][i] for i in range(2)] for v in range(5)]
        states.append(forward(E, W))
    return states


def quantities():
    st = train(3)
    q = {}
    for k, s in enumerate(st):
        pre = "" if k == 0 else f"sgd[{k}]."
        for name in ("loss", "sum_exp"):
            q[pre + name] = s[name]
            if k:
                q[f"sgd[{k}].{name}"] = s[name]
        for j, v in enumerate(VOCAB):
            for name in ("z", "p", "grad_z"):
                q[f"{pre}{name}[{v}]"] = s[name][j]
            q[f"exp({pre}z[{v}])"] = mp.exp(s["z"][j])
            for i in range(2):
                q[f"{pre}W[{i},{v}]"] = s["W"][i][j]
                q[f"{pre}grad_W[{i},{v}]"] = s["grad_W"][i][j]
                q[f"{pre}E[{v},{i}]"] = s["E"][j][i]
                q[f"{pre}grad_E[{v},{i}]"] = s["grad_E"][j][i]
        for i in range(2):
            q[f"{pre}x[{i}]"] = s["x"][i]
            q[f"{pre}grad_x[{i}]"] = s["grad_x"][i]
    # sampling from the model after three steps
    z3 = st[3]["z"]
    et = [mp.exp(v / TEMP) for v in z3]
    St = mp.fsum(et)
    pT = [e / St for e in et]
    order = sorted(range(5), key=lambda j: (-pT[j], j))
    keep = sorted(order[:TOP_K])
    Sk = mp.fsum(et[j] for j in keep)
    pk = [et[j] / Sk if j in keep else mp.mpf(0) for j in range(5)]
    den5 = " + ".join(f"exp(sgd[3].z[{v}]/0.7)" for v in VOCAB)
    denk = " + ".join(f"exp(sgd[3].z[{VOCAB[j]}]/0.7)" for j in keep)
    q["T"] = TEMP
    q[den5] = St
    cum = mp.mpf(0)
    cums = []
    for j, v in enumerate(VOCAB):
        q[f"sgd[3].z[{v}]/0.7"] = z3[j] / TEMP
        q[f"exp(sgd[3].z[{v}]/0.7)"] = et[j]
        q[f"exp(sgd[3].z[{v}]/0.7) / ({den5})"] = pT[j]
        if j in keep:
            q[f"exp(sgd[3].z[{v}]/0.7) / ({denk})"] = pk[j]
        cum += pk[j]
        cums.append(cum)
    # cumulative sums in id order over the kept tokens
    run = []
    for j in keep:
        run.append(f"exp(sgd[3].z[{VOCAB[j]}]/0.7)")
        q[f"({' + '.join(run)}) / ({denk})"] = mp.fsum(pk[i] for i in keep if i <= j)
    q[f"({denk}) / ({den5})"] = Sk / St            # the mass top-k keeps
    drawn = next(j for j in range(5) if cums[j] > U)
    return q, dict(keep=[VOCAB[j] for j in keep], drawn=VOCAB[drawn], den5=den5, denk=denk)


def main() -> int:
    q, info = quantities()
    print(f"top-{TOP_K} keeps {info['keep']}; draw with u = {U} gives {info['drawn']}")
    key = HERE / "KEY.md"
    rows = [r for r in key.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`").replace("\u2212", "-")
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in q), None)
        if ref is None:
            print(f"  {printed:>10}  NO ORACLE VALUE for {cells[-1]}")
            bad += 1
            continue
        v = q[ref] * (100 if printed.endswith("%") else 1)
        shown = cells[4].strip("`").replace("\u2212", "-") if len(cells) == 7 else printed
        places = len(shown.rstrip("%").split(".")[1]) if "." in shown else 0
        right = rnd(v, places) + ("%" if shown.endswith("%") else "")
        if len(cells) == 7:
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            ok = shown == right and abs(exact - v) <= mp.mpf("1e-10") * abs(v) and right != printed
            note = "planted, key agrees" if ok else "KEY DISAGREES"
        else:
            note = "correct" if right == printed else "NOT THE CORRECT ROUNDING"
        bad += note.isupper()
        print(f"  {printed:>10}  {ref[:60]:<60} {mp.nstr(v, 15):<20} rounds to {right:<10} {note}")
    assert len([r for r in rows if len(r.strip().strip('|').split('|')) == 7]) == 8, "expected 8 planted rows"
    assert not bad, f"{bad} key rows disagree with the oracle"
    print("all key rows agree with the oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
