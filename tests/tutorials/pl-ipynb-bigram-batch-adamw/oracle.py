#!/usr/bin/env python3
"""Independent oracle for the held-out tutorial pl-ipynb-bigram-batch-adamw (no symgpt).

    python3 oracle.py      # every KEY.md row: value, correct rounding, and the printed text on its DOC line

Model (read from SPEC.toml with tomllib): a bigram, x = C[input] (symgpt's E), logits s = x·U
(symgpt's W, 3 × 5), p = softmax(s), loss = -ln p[target].  The mini-batch is [data] plus the
[[training.examples]]: the batch loss is the mean of the examples' losses and every gradient the
mean of theirs.  symgpt's names: `loss`, `p[v]`, `z[v]`, `grad_W[...]` are the FIRST example's
alone; `sgd[0].loss`, `sgd[0].grad_W[...]`, `sgd[0].grad_E[...]` the batch means; `adamw[k].X` the
model after k AdamW updates (torch.optim.AdamW, decoupled decay, here λ = 0), with `adamw[k].m`,
`v`, `mhat`, `vhat`, `update` of step k and `adamw[k].grad_W` the batch-mean gradient AT state k.
Rounding is half away from zero on a 45-digit decimal of the value; mpmath at 50 digits.
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


def rnd(v, n: int) -> str:
    """v rounded half away from zero to n decimals, as a plain decimal string."""
    d = Decimal(mp.nstr(v, 45, strip_zeros=False, min_fixed=-60, max_fixed=60))
    return f"{d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP):.{n}f}"


def load_spec():
    spec = tomllib.loads((HERE / "SPEC.toml").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    E = [[mp.mpf(str(v)) for v in row] for row in spec["weights"]["E"]]
    W = [[mp.mpf(str(v)) for v in row] for row in spec["weights"]["W"]]
    batch = [(vocab.index(spec["data"]["input"][0]), vocab.index(spec["data"]["target"]))]
    batch += [(vocab.index(e["input"][0]), vocab.index(e["target"])) for e in spec["training"].get("examples", [])]
    aw = spec["training"]["adamw"]
    hyper = {k: mp.mpf(str(aw[k])) for k in ("lr", "beta1", "beta2", "eps", "weight_decay")}
    return vocab, E, W, batch, hyper, int(spec["training"]["steps"])


def forward(E, W, tok, tgt):
    d, V = len(W), len(W[0])
    x = E[tok][:]
    z = [mp.fsum(x[i] * W[i][j] for i in range(d)) for j in range(V)]
    S = mp.fsum(mp.exp(v) for v in z)
    p = [mp.exp(v) / S for v in z]
    gz = [p[j] - (1 if j == tgt else 0) for j in range(V)]
    gW = [[x[i] * gz[j] for j in range(V)] for i in range(d)]
    gx = [mp.fsum(W[i][j] * gz[j] for j in range(V)) for i in range(d)]
    return dict(x=x, z=z, exp=[mp.exp(v) for v in z], sum_exp=S, p=p, loss=-mp.log(p[tgt]), grad_z=gz,
                grad_W=gW, grad_x=gx)


def batch_state(E, W, batch):
    """Forward pass of every example, the batch-mean loss and the batch-mean gradients."""
    n, d, V = len(batch), len(W), len(W[0])
    ex = [forward(E, W, a, t) for a, t in batch]
    gW = [[mp.fsum(f["grad_W"][i][j] for f in ex) / n for j in range(V)] for i in range(d)]
    gE = [[mp.mpf(0)] * d for _ in range(len(E))]
    for (a, _), f in zip(batch, ex):
        for i in range(d):
            gE[a][i] += f["grad_x"][i] / n
    return dict(E=E, W=W, ex=ex, loss=mp.fsum(f["loss"] for f in ex) / n, grad_W=gW, grad_E=gE)


def adamw(E, W, batch, h, steps):
    """torch.optim.AdamW on (W, E): states[k] is the model after k updates, with step k's moments."""
    lr, b1, b2, eps, wd = h["lr"], h["beta1"], h["beta2"], h["eps"], h["weight_decay"]
    states = [batch_state(E, W, batch)]
    m = {"W": [[mp.mpf(0)] * len(W[0]) for _ in W], "E": [[mp.mpf(0)] * len(E[0]) for _ in E]}
    v = {"W": [[mp.mpf(0)] * len(W[0]) for _ in W], "E": [[mp.mpf(0)] * len(E[0]) for _ in E]}
    for t in range(1, steps + 1):
        s = states[-1]
        new, mom = {}, {}
        for P in ("W", "E"):
            th, g = s[P], s["grad_" + P]
            rows = []
            for i in range(len(th)):
                row = []
                for j in range(len(th[0])):
                    m[P][i][j] = b1 * m[P][i][j] + (1 - b1) * g[i][j]
                    v[P][i][j] = b2 * v[P][i][j] + (1 - b2) * g[i][j] ** 2
                    mh = m[P][i][j] / (1 - b1 ** t)
                    vh = v[P][i][j] / (1 - b2 ** t)
                    upd = lr * mh / (mp.sqrt(vh) + eps)
                    mom[(P, i, j)] = dict(m=m[P][i][j], v=v[P][i][j], mhat=mh, vhat=vh, update=upd,
                                          m_nobias=m[P][i][j], v_nobias=v[P][i][j])
                    row.append(th[i][j] * (1 - lr * wd) - upd)
                rows.append(row)
            new[P] = rows
        st = batch_state(new["E"], new["W"], batch)
        st["mom"] = mom
        states.append(st)
    return states


def values() -> dict:
    """Every quantity the tutorial prints, by symgpt's reference names (plus a few helpers)."""
    vocab, E, W, batch, h, steps = load_spec()
    ix = {w: k for k, w in enumerate(vocab)}
    st = adamw(E, W, batch, h, steps)
    f1, f2 = st[0]["ex"][0], st[0]["ex"][1]
    out: dict = {}
    for w, k in ix.items():
        out[f"z[{w}]"], out[f"p[{w}]"], out[f"exp(z[{w}])"] = f1["z"][k], f1["p"][k], mp.exp(f1["z"][k])
        out[f"grad_z[{w}]"] = f1["grad_z"][k]
        out[f"ex2.z[{w}]"], out[f"ex2.p[{w}]"], out[f"ex2.exp(z[{w}])"] = f2["z"][k], f2["p"][k], mp.exp(f2["z"][k])
        for i in range(len(W)):
            out[f"grad_W[{i},{w}]"] = f1["grad_W"][i][k]
            out[f"ex2.grad_W[{i},{w}]"] = f2["grad_W"][i][k]
    for i in range(len(W)):
        out[f"grad_x[{i}]"] = f1["grad_x"][i]
    out["sum_exp"], out["loss"] = f1["sum_exp"], f1["loss"]
    out["ex2.sum_exp"], out["ex2.loss"] = f2["sum_exp"], f2["loss"]
    for k, s in enumerate(st):
        pre = f"adamw[{k}]."
        out[pre + "loss"] = s["loss"]
        for w, c in ix.items():
            out[pre + f"p[{w}]"] = s["ex"][0]["p"][c]
            for i in range(len(W)):
                out[pre + f"W[{i},{w}]"] = s["W"][i][c]
                out[pre + f"grad_W[{i},{w}]"] = s["grad_W"][i][c]
                out[pre + f"E[{w},{i}]"] = s["E"][c][i]
                out[pre + f"grad_E[{w},{i}]"] = s["grad_E"][c][i]
                if k:
                    for q in ("m", "v", "mhat", "vhat", "update"):
                        out[pre + f"{q}[W,{i},{w}]"] = s["mom"][("W", i, c)][q]
                        out[pre + f"{q}[E,{w},{i}]"] = s["mom"][("E", c, i)][q]
    # the batch-mean model before any update is also sgd[0]
    for key in list(out):
        if key.startswith("adamw[0]."):
            out["sgd[0]." + key[len("adamw[0]."):]] = out[key]
    return out


# ---------------------------------------------------------------- checking KEY.md against the oracle

def _num(text: str):
    t = text.replace("\u2212", "-").replace("{,}", ",").replace(",", ".").rstrip("%").strip()
    return mp.mpf(t)


def _places(text: str) -> int:
    t = text.replace("{,}", ",").replace(",", ".").rstrip("%").strip()
    return len(t.split(".")[1]) if "." in t else 0


def _norm_line(s: str) -> str:
    return s.replace("{,}", ",").replace("\u2212", "-").replace("\u2013", "-")


def main() -> int:
    vals = values()
    doc_lines = (HERE / "DOC.ipynb").read_text(encoding="utf-8").split("\n")
    json.loads("\n".join(doc_lines))                      # the notebook is valid JSON
    rows = [r for r in (HERE / "KEY.md").read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    bad = n_planted = n_correct = 0
    for r in rows:
        cells = [c.strip() for c in r.strip().strip("|").split("|")]
        printed = cells[0].strip("`")
        line = int(cells[1])
        names = re.findall(r"`([^`]+)`", cells[-1])
        ref = next((n for n in names if n in vals), None)
        problems = []
        if ref is None:
            print(f"  {printed:>10}  no oracle value for {cells[-1]}")
            bad += 1
            continue
        v = vals[ref] * (100 if printed.endswith("%") else 1)
        if not 1 <= line <= len(doc_lines) or _norm_line(printed) not in _norm_line(doc_lines[line - 1]):
            problems.append(f"printed text not on line {line}")
        if len(cells) == 7:                               # planted: exact value, correct rounding, differs
            n_planted += 1
            shown = cells[4].strip("`")
            right = rnd(v, _places(shown))
            exact = mp.mpf(cells[3].rstrip("…").replace("\u2212", "-"))
            if rnd(_num(shown), _places(shown)) != right:
                problems.append(f"correct rounding is {right}, key says {shown}")
            if abs(exact - v) > mp.mpf("1e-10") * abs(v):
                problems.append(f"exact value is {mp.nstr(v, 15)}, key says {cells[3]}")
            if rnd(v, _places(printed)) == rnd(_num(printed), _places(printed)):
                problems.append("the planted figure is the correct rounding")
            note = "planted, key agrees"
        else:
            n_correct += 1
            right = rnd(v, _places(printed))
            if rnd(_num(printed), _places(printed)) != right:
                problems.append(f"not the correct rounding (that is {right})")
            note = "correct"
        if problems:
            bad += 1
            note = "KEY DISAGREES: " + "; ".join(problems)
        print(f"  line {line:>3}  {printed:>10}  {ref:<28} {mp.nstr(v, 15):<22} {note}")
    ok = not bad and n_planted == 8 and n_correct == 10
    print(f"{n_planted} planted, {n_correct} correct rows: " +
          ("all key rows agree with the oracle" if ok else f"{bad} key rows disagree"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
