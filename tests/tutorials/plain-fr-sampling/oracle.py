#!/usr/bin/env python3
"""Valeurs exactes derrière plain-fr-sampling/KEY.md (mpmath, 50 chiffres, sans symgpt).

    python oracle.py          # check every KEY.md row: exact value, correct rounding, the line of DOC.txt
    python oracle.py --dump   # every quantity the text was written from

The model of SPEC.toml: a bigram over six French words, d = 3, "chat" -> "dort".
    x = E[chat], z = x W, p = softmax(z), loss = -ln p[dort]
    grad_z = p - onehot(dort), grad_W = outer(x, grad_z), grad_x = W grad_z (= grad_E[chat])
    SGD with lr 0.5 on E and W together; sgd[k] is the model after k updates.
Sampling, as the spec defines it:
    softmax_T(T, v) = exp(z_v / T) / sum_k exp(z_k / T), and 1/V for T = inf
    topk(k, v): p renormalised over the k most probable words (0 outside)
    topp(P, v): p renormalised over the shortest prefix of the ranking whose mass is >= P
    the seeded draw: the first word, in id order, whose cumulative probability exceeds u = 0.42
    greedy decoding: argmax, then the argmax after that word, and so on
Rounding: half away from zero on the 45-digit decimal of the value; a percentage is the value x 100.
"""
from __future__ import annotations

import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent

MOTS = ["le", "chat", "dort", "mange", "la", "souris"]
ENTREE, CIBLE = MOTS.index("chat"), MOTS.index("dort")
E0 = [["0.2", "-0.1", "0.3"], ["0.4", "0.3", "-0.2"], ["-0.1", "0.5", "0.2"], ["0.3", "-0.4", "0.1"],
      ["0.0", "0.2", "-0.3"], ["-0.2", "0.1", "0.4"]]
W0 = [["0.3", "-0.2", "0.6", "0.1", "-0.4", "0.2"], ["0.1", "0.4", "0.5", "-0.3", "0.2", "-0.1"],
      ["-0.2", "0.3", "0.1", "0.4", "-0.1", "0.3"]]
LR, STEPS = mp.mpf("0.5"), 2
TEMPERATURES, TOP_K, TOP_P, U, CONTINUE = ["0.5", "1", "2"], 3, mp.mpf("0.6"), mp.mpf("0.42"), 3


def softmax(z):
    s = mp.fsum(mp.exp(a) for a in z)
    return [mp.exp(a) / s for a in z], s


def logits(E, W, word):
    return [mp.fsum(E[word][i] * W[i][j] for i in range(len(W))) for j in range(len(MOTS))]


def forward(E, W):
    z = logits(E, W, ENTREE)
    p, s = softmax(z)
    gz = [p[j] - (1 if j == CIBLE else 0) for j in range(len(MOTS))]
    gW = [[E[ENTREE][i] * gz[j] for j in range(len(MOTS))] for i in range(len(W))]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(len(MOTS))) for i in range(len(W))]
    return dict(z=z, p=p, sum_exp=s, loss=-mp.log(p[CIBLE]), grad_z=gz, grad_W=gW, grad_x=gx)


def ranking(p):
    """Word ids by decreasing probability (a tie would go to the lower id)."""
    return sorted(range(len(p)), key=lambda v: (-p[v], v))


def values() -> tuple[dict[str, mp.mpf], dict[str, object]]:
    E = [[mp.mpf(a) for a in r] for r in E0]
    W = [[mp.mpf(a) for a in r] for r in W0]
    out: dict[str, mp.mpf] = {}
    facts: dict[str, object] = {}
    f = forward(E, W)
    p, z = f["p"], f["z"]

    for k in range(STEPS + 1):
        prefix = f"sgd[{k}]." if k else ""
        out[prefix + "loss"] = f["loss"]
        out[prefix + "sum_exp"] = f["sum_exp"]
        for j, w in enumerate(MOTS):
            out[f"{prefix}z[{w}]"] = f["z"][j]
            out[f"{prefix}p[{w}]"] = f["p"][j]
            out[f"{prefix}grad_z[{w}]"] = f["grad_z"][j]
            out[f"exp({prefix}z[{w}])"] = mp.exp(f["z"][j])
            for i in range(3):
                out[f"{prefix}W[{i},{w}]"] = W[i][j]
                out[f"{prefix}grad_W[{i},{w}]"] = f["grad_W"][i][j]
                out[f"{prefix}E[{w},{i}]"] = E[j][i]
        for i in range(3):
            out[f"{prefix}grad_x[{i}]"] = f["grad_x"][i]
        # one SGD step on W and on the input's row of E
        if k < STEPS:
            W = [[W[i][j] - LR * f["grad_W"][i][j] for j in range(len(MOTS))] for i in range(3)]
            E = [r[:] for r in E]
            E[ENTREE] = [E[ENTREE][i] - LR * f["grad_x"][i] for i in range(3)]
            f = forward(E, W)

    # sampling from the untrained model
    for T in TEMPERATURES:
        pT, _ = softmax([a / mp.mpf(T) for a in z])
        for j, w in enumerate(MOTS):
            out[f"softmax_T({T}, {w})"] = pT[j]
    for w in MOTS:
        out[f"softmax_T(inf, {w})"] = mp.mpf(1) / len(MOTS)
    order = ranking(p)
    kept = order[:TOP_K]
    mass = mp.fsum(p[v] for v in kept)
    for j, w in enumerate(MOTS):
        out[f"topk({TOP_K}, {w})"] = p[j] / mass if j in kept else mp.mpf(0)
    prefix, acc = [], mp.mpf(0)
    for v in order:
        prefix.append(v)
        acc += p[v]
        if acc >= TOP_P:
            break
    for j, w in enumerate(MOTS):
        out[f"topp({TOP_P}, {w})"] = p[j] / acc if j in prefix else mp.mpf(0)
    out["p[le]+p[chat]"] = out["sum(p[le], p[chat])"] = p[0] + p[1]
    out["p[le]+p[chat]+p[dort]"] = p[0] + p[1] + p[2]
    out["p[dort]+p[le]"] = p[2] + p[0]
    out["p[dort]+p[le]+p[souris]"] = p[2] + p[0] + p[5]
    out["p[dort]+p[le]+p[souris]+p[chat]"] = p[2] + p[0] + p[5] + p[1]
    out["sum(p[le], p[chat], p[dort])"] = p[0] + p[1] + p[2]
    out[f"topk_mass({TOP_K})"] = mass
    out[f"topp_mass({TOP_P})"] = acc
    cumulative = mp.mpf(0)
    for v in range(len(MOTS)):
        cumulative += p[v]
        if cumulative > U:
            facts["draw"] = MOTS[v]
            break
    # greedy continuation with the untrained weights
    E = [[mp.mpf(a) for a in r] for r in E0]
    W = [[mp.mpf(a) for a in r] for r in W0]
    word, words = ENTREE, []
    for _ in range(CONTINUE):
        q, _ = softmax(logits(E, W, word))
        word = ranking(q)[0]
        words.append(MOTS[word])
    facts["greedy"] = " ".join(words)
    facts["top_k words"] = [MOTS[v] for v in kept]
    facts["top_p words"] = [MOTS[v] for v in prefix]
    return out, facts


# ---------------------------------------------------------------- the key

def arrondi(x: mp.mpf, n: int) -> str:
    d = Decimal(mp.nstr(x, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return str(d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP))


def nombre(s: str) -> str:
    return s.strip("`").replace("\u2212", "-").replace(" ", "").replace("\u202f", "").rstrip("%")


def places(s: str) -> int:
    s = nombre(s)
    return len(s.split(".")[1]) if "." in s else 0


def lignes_cle():
    partie = None
    for ligne in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines():
        if ligne.startswith("## "):
            partie = "planted" if "lanted" in ligne else "correct"
        elif ligne.startswith("| `"):
            yield partie, [c.strip() for c in re.split(r"(?<!\\)\|", ligne.strip().strip("|"))]


def main() -> int:
    q, facts = values()
    texte = (HERE / "DOC.txt").read_text(encoding="utf-8").splitlines()
    mauvais = 0
    for partie, cells in lignes_cle():
        printed, n = cells[0].strip("`"), int(cells[1])
        ref = next((r for r in re.findall(r"`([^`]+)`", cells[-1]) if r in q), None)
        notes = []
        if not (1 <= n <= len(texte) and printed in texte[n - 1]):
            notes.append(f"not on line {n}")
        if ref is None:
            print(f"  {printed:>10}  no value for {cells[-1]}")
            mauvais += 1
            continue
        x = q[ref] * (100 if printed.rstrip().endswith("%") else 1)
        if partie == "planted":
            juste = cells[4]
            if arrondi(x, places(juste)) != nombre(juste):
                notes.append(f"correct rounding is {arrondi(x, places(juste))}")
            if abs(mp.mpf(nombre(cells[3]).rstrip("…")) - x) > mp.mpf("1e-10") * max(abs(x), 1):
                notes.append("exact value differs")
            if arrondi(x, places(printed)) == nombre(printed):
                notes.append("the printed figure is right")
        elif arrondi(x, places(printed)) != nombre(printed):
            notes.append(f"not the correct rounding ({arrondi(x, places(printed))})")
        mauvais += bool(notes)
        ok = "planted, key agrees" if partie == "planted" else "correct"
        print(f"  {printed:>10}  {ref:<28} {mp.nstr(x, 15):<22} {'; '.join(notes).upper() if notes else ok}")
    # the words the text states (not figures, so not in the key, but they must be true)
    for label, want in (("draw", "dort"), ("greedy", "dort chat dort"), ("top_k words", ["dort", "le", "souris"])):
        good = facts[label] == want
        mauvais += not good
        print(f"  {label:>10}  {facts[label]!s:<28} {'as in the text' if good else 'DIFFERS FROM THE TEXT'}")
    print("every key row agrees with the oracle" if not mauvais else f"{mauvais} rows disagree")
    return 1 if mauvais else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        q, facts = values()
        for k, v in q.items():
            print(f"{k:<30} {mp.nstr(v, 20)}")
        for k, v in facts.items():
            print(f"{k:<30} {v}")
        sys.exit(0)
    sys.exit(main())
