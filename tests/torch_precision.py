"""The transformer and the bigram in PyTorch in any dtype, every intermediate kept with its gradient.

Written as a practitioner writes them (``@``, ``torch.softmax``, ``F.layer_norm``, ``torch.log_softmax``,
autograd, ``torch.optim.SGD`` / ``AdamW``), independent of symgpt: it takes the parameters as floats of the
dtype (float64 numbers that the dtype holds exactly) and the positional encoding the same way, and returns
numpy float64 arrays by the names symgpt uses.
"""
import math
import re
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F


def _t(x, dt):
    return torch.tensor(np.asarray(x, dtype=np.float64)).to(dt)


def transformer(spec, params: dict, PE, dt) -> dict:
    """Forward, backward and the first SGD/AdamW update of a transformer spec (a symgpt Spec, read for sizes,
    tokens and hyper-parameters).  ``params``: name -> float64 array of the dtype's values."""
    out = {}
    P = {n: _t(v, dt).requires_grad_(True) for n, v in params.items()}
    ids, T, d, heads = list(spec.input), len(spec.input), spec.d, spec.heads
    dk = d // heads
    eps = float(spec.ln_eps)
    keep = {}

    def k(name, t):
        t.retain_grad()
        keep[name] = t
        return t

    H = k("H0", P["E"][ids] + _t(PE, dt))
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    for l in range(spec.layers):
        pre = spec.layer_prefix(l)
        Q, K, V = (k(pre + m, H @ P[pre + "W_" + m]) for m in ("Q", "K", "V"))
        S = k(pre + "S", torch.stack([Q[:, h * dk:(h + 1) * dk] @ K[:, h * dk:(h + 1) * dk].T / math.sqrt(dk)
                                      for h in range(heads)]) if heads > 1 else
              Q @ K.T / math.sqrt(dk))
        A = k(pre + "A", torch.softmax(S.masked_fill(mask, float("-inf")), dim=-1))
        Ah = A if heads > 1 else A[None]
        O = torch.cat([Ah[h] @ V[:, h * dk:(h + 1) * dk] for h in range(heads)], dim=1)
        if pre + "W_O" in P:
            O = k(pre + "Attn_heads", O) @ P[pre + "W_O"]
        H1 = k(pre + "H1", H + k(pre + "Attn", O))
        LN1 = k(pre + "LN1", F.layer_norm(H1, (d,), P[pre + "gamma1"], P[pre + "beta1"], eps))
        Z = k(pre + "Z", LN1 @ P[pre + "W_1"] + P[pre + "b_1"])
        R = k(pre + "R", torch.relu(Z))
        H2 = k(pre + "H2", LN1 + k(pre + "F", R @ P[pre + "W_2"] + P[pre + "b_2"]))
        H = k(pre + "LN2", F.layer_norm(H2, (d,), P[pre + "gamma2"], P[pre + "beta2"], eps))
    W = P["E"].T if spec.tied else P["W_out"]
    if spec.training.all_positions:  # every position predicts the next token: one (T, V) product, the mean loss
        k("h_final", H[T - 1])
        L2 = H @ W
        for t in range(T - 1):
            k(f"logits_at{t}", L2[t])
        logits = k("logits", L2[T - 1])
        ys = torch.tensor(ids[1:] + [spec.target])
        return _head(spec, P, keep, logits, out, lambda: F.cross_entropy(L2, ys))
    h = k("h_final", H[T - 1])
    logits = k("logits", (h[None, :] @ W)[0])
    return _head(spec, P, keep, logits, out)


def bigram(spec, params: dict, dt) -> dict:
    P = {n: _t(v, dt).requires_grad_(True) for n, v in params.items()}
    keep = {}
    x = P["E"][spec.input[-1]]
    x.retain_grad()
    keep["x"] = x
    z = (x[None, :] @ P["W"])[0]
    z.retain_grad()
    keep["z"] = z
    return _head(spec, P, keep, z, {})


def _head(spec, P, keep, logits, out, mean_loss=None):
    logp = torch.log_softmax(logits, dim=-1)
    loss = -logp[spec.target] if mean_loss is None else mean_loss()
    loss.backward()
    with torch.no_grad():
        out["p"] = torch.softmax(logits, dim=-1)
    out["logp"], out["loss"] = logp, loss
    for n, t in keep.items():
        out[n] = t
        if t.grad is not None:
            out["grad_" + n] = t.grad
    for n, t in P.items():
        out[n] = t
        out["grad_" + n] = t.grad
    tr = spec.training
    first = {"sgd": first_rate(spec, tr.lr), "adamw": first_rate(spec, tr.adamw.lr)}  # a warm-up's first share
    for name, opt in (("sgd", lambda ps: torch.optim.SGD(ps, lr=first["sgd"], foreach=False)),
                      ("adamw", lambda ps: torch.optim.AdamW(
                          ps, lr=first["adamw"], betas=(float(tr.adamw.beta1), float(tr.adamw.beta2)),
                          eps=float(tr.adamw.eps), weight_decay=float(tr.adamw.weight_decay), foreach=False))):
        qs = {}
        for n, t in P.items():
            q = t.detach().clone().requires_grad_(True)
            q.grad = t.grad.clone()
            qs[n] = q
        if tr.clip is not None:  # over the trained parameters' gradients together, as the trace clips them
            trained = {n.partition("[")[0] for n in symgpt_trained(spec)}
            torch.nn.utils.clip_grad_norm_([q for n, q in qs.items() if n in trained], float(tr.clip),
                                           foreach=False)
        for n, q in qs.items():
            o = opt([q])
            o.step()
            out[f"{name}[1].{n}"] = q
    return {n: t.detach().to(torch.float64).numpy().copy() for n, t in out.items()}


def first_rate(spec, lr) -> float:
    """The schedule's rate at update 0 (nanoGPT's warm-up: lr·1/(warmup + 1); the cosine starts at lr)."""
    lr = Fraction(str(lr))
    return float(lr / (spec.training.warmup + 1) if spec.training.warmup else lr)


def symgpt_trained(spec) -> list:
    """The parameters the spec trains: every one, but LayerNorm's γ and β only when they are learnable."""
    return [n for n in spec.params if spec.training.learnable_ln or not re.search(r"(gamma|beta)\d$", n)]
