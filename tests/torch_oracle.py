"""The same two models in PyTorch float64 with autograd, plus a training loop
with SGD / AdamW, gradient clipping, nanoGPT's lr schedule and nanoGPT's
parameter groups. Spec dicts may hold Fractions, ints, floats or numeric
strings: everything goes through float(). Nothing here imports symgpt.
"""
import math

import torch

DT = torch.float64


def _t(x):
    return torch.tensor([[float(a) for a in r] for r in x] if isinstance(x[0], list)
                        else [float(a) for a in x], dtype=DT)


def _ids(spec, tokens):
    vocab = spec["model"]["vocab"]
    return [vocab.index(t) if isinstance(t, str) else int(t) for t in tokens]


def _ln(h, g, b, eps):
    mu = h.mean(-1, keepdim=True)
    var = ((h - mu) ** 2).mean(-1, keepdim=True)
    return g * (h - mu) / torch.sqrt(var + eps) + b


# ---------------------------------------------------------------- transformer

def transformer_params(spec, learnable_ln=False):
    """Leaf tensors: E (+ W_out if untied), per layer W_Q ... b_2 (+ W_O if given,
    + gamma/beta if learnable_ln). Bare names for one layer, l{i}.name for several."""
    m, w = spec["model"], spec["weights"]
    d = int(m["d"])
    P = {"E": _t(w["E"])}
    if not m.get("tied", True):
        P["W_out"] = _t(w["W_out"])
    layers = spec["layer"]
    for i, layer in enumerate(layers):
        pre = "" if len(layers) == 1 else f"l{i}."
        names = ["W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2"]
        names += [n for n in ["W_O"] if n in layer]
        if learnable_ln:
            names += ["gamma1", "beta1", "gamma2", "beta2"]
        for n in names:
            if n in layer:
                P[pre + n] = _t(layer[n])
            else:
                P[pre + n] = torch.ones(d, dtype=DT) if n.startswith("gamma") \
                    else torch.zeros(d, dtype=DT)
    for v in P.values():
        v.requires_grad_(True)
    return P


def transformer_loss(spec, P, tokens=None, out=None):
    """Loss of the spec's transformer with parameters P (dict of tensors).
    If `out` is a dict it receives H0, blocks (A, LN1, LN2 per layer), h_final,
    logits, p."""
    m = spec["model"]
    d, heads = int(m["d"]), int(m.get("heads", 1))
    dk = d // heads
    eps = float(m.get("ln_eps", 1e-5))
    base = float(m.get("pe_base", 10000))
    ids = _ids(spec, spec["data"]["input"] if tokens is None else tokens)
    T = len(ids)
    PE = torch.tensor([[math.sin(t / base ** (2 * (j // 2) / d)) if j % 2 == 0 else
                        math.cos(t / base ** (2 * (j // 2) / d)) for j in range(d)]
                       for t in range(T)], dtype=DT)
    H = P["E"][ids] + PE
    blocks = []
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    layers = spec["layer"]
    for i, layer in enumerate(layers):
        pre = "" if len(layers) == 1 else f"l{i}."

        def get(n, default):
            if pre + n in P:
                return P[pre + n]
            return _t(layer[n]) if n in layer else default

        ones, zeros = torch.ones(d, dtype=DT), torch.zeros(d, dtype=DT)
        Q, K, V = H @ P[pre + "W_Q"], H @ P[pre + "W_K"], H @ P[pre + "W_V"]
        Qh = Q.view(T, heads, dk).transpose(0, 1)
        Kh = K.view(T, heads, dk).transpose(0, 1)
        Vh = V.view(T, heads, dk).transpose(0, 1)
        S = Qh @ Kh.transpose(1, 2) / math.sqrt(dk)
        A = torch.softmax(S.masked_fill(mask, float("-inf")), dim=-1)
        Attn = (A @ Vh).transpose(0, 1).reshape(T, d)
        W_O = get("W_O", None)
        if W_O is not None:
            Attn = Attn @ W_O
        LN1 = _ln(H + Attn, get("gamma1", ones), get("beta1", zeros), eps)
        F = torch.relu(LN1 @ P[pre + "W_1"] + P[pre + "b_1"]) @ P[pre + "W_2"] + P[pre + "b_2"]
        H = _ln(LN1 + F, get("gamma2", ones), get("beta2", zeros), eps)
        blocks.append({"A": A, "LN1": LN1, "LN2": H})
    h_final = H[T - 1]
    logits = P["E"] @ h_final if "W_out" not in P else h_final @ P["W_out"]
    if out is not None:
        out.update(H0=P["E"][ids] + PE, blocks=blocks, h_final=h_final, logits=logits,
                   p=torch.softmax(logits, dim=-1))
    tgt = _ids(spec, [spec["data"]["target"]])[0]
    return -torch.log_softmax(logits, dim=-1)[tgt]


def transformer_torch(spec_dict, learnable_ln=False):
    P = transformer_params(spec_dict, learnable_ln)
    return transformer_loss(spec_dict, P), P


# ---------------------------------------------------------------- bigram

def bigram_params(spec):
    P = {"E": _t(spec["weights"]["E"]), "W": _t(spec["weights"]["W"])}
    for v in P.values():
        v.requires_grad_(True)
    return P


def bigram_loss(spec, P):
    x = P["E"][_ids(spec, spec["data"]["input"])[-1]]
    z = x @ P["W"]
    return -torch.log_softmax(z, dim=-1)[_ids(spec, [spec["data"]["target"]])[0]]


def bigram_torch(spec_dict):
    P = bigram_params(spec_dict)
    return bigram_loss(spec_dict, P), P


# ---------------------------------------------------------------- training

def get_lr(it, lr, warmup, max_steps, min_lr):
    """nanoGPT's get_lr (it is 0-based). Without max_steps: warm-up then constant."""
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    if max_steps is None:
        return lr
    if it > max_steps:
        return min_lr
    if max_steps <= warmup:
        return min_lr
    decay_ratio = (it - warmup) / (max_steps - warmup)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (lr - min_lr)


def torch_train(spec_dict, kind, optimizer, steps, lr, betas=(0.9, 0.999), eps=1e-8,
                weight_decay=0.0, clip=None, warmup=0, max_steps=None, min_lr=0.0,
                decay_groups=False, learnable_ln=None):
    """Run `steps` updates; return records 0..steps.

    Record k = state after k updates: {"loss": loss at the state before update k
    (record 0: the initial loss), "params": name -> nested lists, "lr": lr used by
    update k, "grad_norm": total 2-norm of the gradient before clipping}.
    clip: torch.nn.utils.clip_grad_norm_ (scales by clip / (norm + 1e-6) when norm > clip).
    optimizer: "sgd" or "adamw". decay_groups: weight decay only on params with
    dim >= 2 other than E (no decay on biases, LayerNorm and embeddings).
    learnable_ln (transformer): default [training].learnable_ln of the spec.
    """
    if kind == "bigram":
        P = bigram_params(spec_dict)
        loss_fn = lambda: bigram_loss(spec_dict, P)
    else:
        if learnable_ln is None:
            learnable_ln = bool(spec_dict.get("training", {}).get("learnable_ln", False))
        P = transformer_params(spec_dict, learnable_ln)
        loss_fn = lambda: transformer_loss(spec_dict, P)
    params = list(P.values())
    if decay_groups:
        decay = [p for n, p in P.items() if p.dim() >= 2 and n.split(".")[-1] != "E"]
        no_decay = [p for n, p in P.items() if not (p.dim() >= 2 and n.split(".")[-1] != "E")]
        groups = [{"params": decay, "weight_decay": weight_decay},
                  {"params": no_decay, "weight_decay": 0.0}]
    else:
        groups = [{"params": params, "weight_decay": weight_decay}]
    if optimizer.lower() == "sgd":
        opt = torch.optim.SGD(groups, lr=lr)
    elif optimizer.lower() == "adamw":
        opt = torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps)
    else:
        raise ValueError(optimizer)

    def snapshot():
        return {n: p.detach().tolist() for n, p in P.items()}

    with torch.no_grad():
        loss0 = float(loss_fn())
    records = [{"loss": loss0, "params": snapshot(), "lr": None, "grad_norm": None}]
    for it in range(steps):
        lr_it = get_lr(it, lr, warmup, max_steps, min_lr) if (warmup or max_steps is not None) else lr
        for g in opt.param_groups:
            g["lr"] = lr_it
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        norm = float(torch.sqrt(sum((p.grad ** 2).sum() for p in params)))
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        records.append({"loss": loss.item(), "params": snapshot(), "lr": lr_it,
                        "grad_norm": norm})
    return records


def _max_diff(a, b):
    """max |a - b| over nested lists of mpf (or numbers) vs a tensor / nested lists."""
    if isinstance(b, torch.Tensor):
        b = b.detach().tolist()
    if isinstance(a, (list, tuple)):
        return max(_max_diff(x, y) for x, y in zip(a, b))
    return abs(float(a) - float(b))


def compare_forward(spec, learnable_ln=True):
    """max |torch - mpmath| over H0, each block's A, LN1, LN2, h_final, logits, p, loss."""
    import oracle
    m = oracle.transformer_forward(spec)
    P = transformer_params(spec, learnable_ln)
    out = {}
    loss = transformer_loss(spec, P, out=out)
    err = max(_max_diff(m[k], out[k]) for k in ("H0", "h_final", "logits", "p"))
    for mb, tb in zip(m["blocks"], out["blocks"]):
        A = mb["A"] if int(spec["model"].get("heads", 1)) > 1 else [mb["A"]]
        err = max(err, _max_diff(A, tb["A"]), _max_diff(mb["LN1"], tb["LN1"]),
                  _max_diff(mb["LN2"], tb["LN2"]))
    return max(err, _max_diff(m["loss"], loss.item())), m["loss"], loss.item()


if __name__ == "__main__":
    import os
    import sys
    import tempfile

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from mpmath import mp

    import oracle

    root = os.path.join(here, "..", "derivations")
    tt = oracle.load_spec(os.path.join(root, "tiny-transformer.toml"))
    bg = oracle.load_spec(os.path.join(root, "bigram.toml"))

    err, ml, tl = compare_forward(tt, learnable_ln=False)
    print(f"tiny-transformer loss  torch {tl:.17g}  mpmath {mp.nstr(ml, 21)}  forward max|diff| {err:.1e}")
    lb, Pb = bigram_torch(bg)
    mb = oracle.bigram_forward(bg)
    print(f"bigram loss            torch {lb.item():.17g}  mpmath {mp.nstr(mb['loss'], 21)}  "
          f"|diff| {_max_diff(mb['loss'], lb.item()):.1e}")

    lb.backward()
    g = oracle.bigram_grads(bg)
    err = max(_max_diff(g["grad_W"], Pb["W"].grad), _max_diff(g["grad_E"], Pb["E"].grad))
    print(f"bigram autograd vs analytic grads  max |diff| {err:.1e}")

    with tempfile.TemporaryDirectory() as tmp:
        for seed, tied, W_O in [(1, True, False), (2, False, True)]:
            path = os.path.join(tmp, f"random{seed}.toml")
            with open(path, "w") as f:
                f.write(oracle.random_spec_toml(seed, tied=tied, W_O=W_O))
            sp = oracle.load_spec(path)
            err, ml, tl = compare_forward(sp)
            print(f"random 2-layer 2-head d=4 V=8 T=4 (tied={tied}, W_O={W_O}) loss {tl:.17g}  "
                  f"forward max|diff| {err:.1e}")
            l, P = transformer_torch(sp, learnable_ln=True)
            l.backward()
            for path_, name, idx in [(("layer", 0, "W_Q", 1, 2), "l0.W_Q", (1, 2)),
                                     (("layer", 1, "gamma1", 3), "l1.gamma1", (3,)),
                                     (("weights", "E", int(P["E"].grad.abs().sum(1).argmax()), 0),
                                      "E", None)]:
                idx = idx or path_[-2:]
                fd = oracle.central_difference(
                    lambda s: oracle.transformer_forward(s, dps=50)["loss"], sp, path_, "1e-12", 50)
                print(f"   d loss/d {name}{list(idx)}: central difference {mp.nstr(fd, 15)}"
                      f"  autograd {P[name].grad[idx].item():.15g}")

    rec = torch_train(bg, "bigram", "sgd", 20, 0.5)
    print("bigram SGD lr=0.5 losses at steps 1,2,5,10,20:",
          [round(rec[k]["loss"], 4) for k in (1, 2, 5, 10, 20)])
    rec = torch_train(bg, "bigram", "adamw", 1, 1e-3, weight_decay=0.1)
    print("bigram AdamW one step W[0][2]: 0.1 ->", f"{rec[1]['params']['W'][0][2]:.7f}")
    rec = torch_train(tt, "transformer", "sgd", 1, 0.1)
    print("tiny-transformer SGD lr=0.1 one step E[你]:", [round(x, 4) for x in rec[1]["params"]["E"][4]])
    rec = torch_train(tt, "transformer", "adamw", 10, 1e-2, weight_decay=0.1, clip=1.0,
                      warmup=2, max_steps=8, min_lr=1e-3, decay_groups=True, learnable_ln=True)
    print("tiny-transformer AdamW+clip+schedule+groups: lrs", [round(r["lr"], 5) for r in rec[1:]],
          "loss", round(rec[1]["loss"], 6), "->", round(rec[-1]["loss"], 6))
