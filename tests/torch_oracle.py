"""The transformer and the bigram in PyTorch in any dtype (float64 by default), with autograd; a training loop
with SGD / AdamW, gradient clipping, nanoGPT's lr schedule and nanoGPT's parameter groups; and, for the
precision forensics, every intermediate kept with its gradient and the first SGD / AdamW update.

Written as a practitioner writes them (``@``, ``torch.softmax``, ``F.layer_norm``, ``torch.log_softmax``,
``F.cross_entropy``, autograd, ``torch.optim.SGD`` / ``AdamW``), independent of symgpt: nothing here imports
it.  Spec dicts (oracle.load_spec's) may hold Fractions, ints, floats or numeric strings: every number goes
through float64 on its way to the dtype.  Names are symgpt's: ``E``, ``W_Q`` (one layer), ``l1.W_1``
(several), ``LN2``, ``grad_W_Q``, ``adamw[1].W_Q`` …
"""
import math
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F

DT = torch.float64
BLOCK_WEIGHTS = ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2")
LN_PARAMS = ("gamma1", "beta1", "gamma2", "beta2")
# what the spec format takes where [training] or [training.adamw] leaves a key out
TRAINING = {"lr": "0.1", "learnable_ln": False, "clip": None, "warmup": 0}
ADAMW = {"lr": "1e-3", "beta1": "0.9", "beta2": "0.999", "eps": "1e-8", "weight_decay": "0.1"}


def _t(x, dtype=DT):
    """Numbers (nested lists or an array) → a tensor of ``dtype``, through float64."""
    return torch.tensor(np.asarray(x, dtype=np.float64)).to(dtype)


def _ids(spec, tokens):
    vocab = spec["model"]["vocab"]
    return [vocab.index(t) if isinstance(t, str) else int(t) for t in tokens]


def _leaves(values, dtype):
    """{name: numbers} → {name: a leaf tensor of ``dtype`` that requires its gradient}."""
    return {n: _t(v, dtype).requires_grad_(True) for n, v in values.items()}


def _keeper(out, keep):
    """k(name, t): out[name] = t, and with ``keep`` t keeps its gradient after backward; returns t."""
    def k(name, t):
        if keep and t.requires_grad:
            t.retain_grad()
        out[name] = t
        return t
    return k


def positional_encoding(T, d, base):
    """PE (T, d) in float64: sin on even columns, cos on odd ones, of the angle t / base^(2i/d)."""
    return np.array([[math.sin(t / base ** (2 * (j // 2) / d)) if j % 2 == 0 else
                      math.cos(t / base ** (2 * (j // 2) / d)) for j in range(d)] for t in range(T)])


# ---------------------------------------------------------------- parameters

def layer_prefix(spec, i):
    """Names inside block i: bare for one layer, ``l0.`` … for several."""
    return "" if len(spec["layer"]) == 1 else f"l{i}."


def spec_params(spec):
    """Every parameter's numbers by name: E, W (bigram); E, W_out (untied), then per layer W_Q … b_2,
    W_O (if given) and gamma1, beta1, gamma2, beta2 (1 and 0 where the spec omits them)."""
    m, w = spec["model"], spec["weights"]
    if m.get("kind") == "bigram":
        return {"E": w["E"], "W": w["W"]}
    d = int(m["d"])
    P = {"E": w["E"]}
    if m.get("positions") == "learned":
        P["W_pe"] = w["W_pe"]
    if not m.get("tied", True):
        P["W_out"] = w["W_out"]
    for i, layer in enumerate(spec["layer"]):
        pre = layer_prefix(spec, i)
        P.update((pre + n, layer[n]) for n in BLOCK_WEIGHTS + ("W_O", "b_Q", "b_K", "b_V", "b_O", "W_3", "b_3")
                 if n in layer)
        P.update((pre + n, layer.get(n, [1 if n.startswith("gamma") else 0] * d)) for n in LN_PARAMS
                 if _shift(m) or n.startswith("gamma"))
    if m.get("norm") == "pre":   # the final norm's γ, β
        P.update((n, w.get(n, [1 if n.startswith("gamma") else 0] * d)) for n in ("gamma_f", "beta_f")
                 if _shift(m) or n.startswith("gamma"))
    return P


def _shift(m) -> bool:
    """The norms have a shift β: LayerNorm in a model with biases (nanoGPT's bias=False has none)."""
    return m.get("norm_kind") != "rmsnorm" and m.get("bias") is not False


def _is_ln(name):
    return name.rpartition(".")[2] in LN_PARAMS + ("gamma_f", "beta_f")


def transformer_params(spec, learnable_ln=False, dtype=DT):
    """Leaf tensors: E (+ W_out if untied), per layer W_Q ... b_2 (+ W_O if given,
    + gamma/beta if learnable_ln). Bare names for one layer, l{i}.name for several."""
    return _leaves({n: v for n, v in spec_params(spec).items() if learnable_ln or not _is_ln(n)}, dtype)


def bigram_params(spec, dtype=DT):
    return _leaves(spec_params(spec), dtype)


def symgpt_trained(spec):
    """The parameters the spec trains: every one, but LayerNorm's γ and β only when they are learnable."""
    learnable = spec.get("training", {}).get("learnable_ln", False)
    return [n for n in spec_params(spec) if learnable or not _is_ln(n)]


# ---------------------------------------------------------------- transformer

ACTIVATIONS = {  # model.activation, as PyTorch computes it
    "relu": torch.relu,
    "gelu": F.gelu,                                           # exact erf: nn.GELU(), nanoGPT
    "gelu_tanh": lambda z: F.gelu(z, approximate="tanh"),     # GPT-2's gelu_new
    "silu": F.silu,
}


def rotary(x, heads, base):
    """Hugging Face Llama's rotary embedding in float64: per head, x·cos + rotate_half(x)·sin, with
    inv_freq = 1/base^(2i/d_k) and the frequencies laid out twice (cat(freqs, freqs))."""
    T, d = x.shape
    hd = d // heads
    inv = 1.0 / (float(base) ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    out = []
    for h in range(heads):
        xh = x[:, h * hd:(h + 1) * hd]
        half = torch.cat((-xh[:, hd // 2:], xh[:, :hd // 2]), dim=-1)
        out.append(xh * cos + half * sin)
    return torch.cat(out, dim=1)


def _block(H, P, layer, pre, heads, eps, mask, k, act="relu", norm="post", kind="layernorm", rope=None, kv=None):
    """One block on H (T, d), post-LN (the seed's) or pre-LN (nanoGPT's: x + attn(ln_1(x)), then
    x + mlp(ln_2(x))); every intermediate goes through k(pre + name, tensor)."""
    d = H.shape[1]
    dk = d // heads

    def ln(n):  # LayerNorm's γ or β: the parameter, else the spec's constant (1 or 0 where it omits it)
        return P[pre + n] if pre + n in P else _t(layer.get(n, [1 if n.startswith("gamma") else 0] * d), H.dtype)

    def norm_of(x, n):  # model.norm_kind: F.layer_norm, or F.rms_norm (no β)
        if kind == "rmsnorm":
            return F.rms_norm(x, (d,), ln(f"gamma{n}"), eps)
        return F.layer_norm(x, (d,), ln(f"gamma{n}"), ln(f"beta{n}"), eps)

    X = k(pre + "LN1", norm_of(H, 1)) if norm == "pre" else H
    lin = lambda X, W, b: X @ P[pre + W] + (P[pre + b] if pre + b in P else 0)   # nn.Linear, its bias if any
    Q, K, V = (k(pre + m, lin(X, "W_" + m, "b_" + m)) for m in ("Q", "K", "V"))
    if rope is not None:
        Q, K = k(pre + "Q_rot", rotary(Q, heads, rope)), k(pre + "K_rot", rotary(K, kv or heads, rope))
    cols = [slice(h * dk, (h + 1) * dk) for h in range(heads)]
    group = heads // (kv or heads)       # grouped-query attention: head h reads K, V head h // group (repeat_kv)
    kvc = [slice((h // group) * dk, (h // group + 1) * dk) for h in range(heads)]
    S = k(pre + "S", torch.stack([Q[:, c] @ K[:, kc].T / math.sqrt(dk) for c, kc in zip(cols, kvc)])
          if heads > 1 else Q @ K.T / math.sqrt(dk))
    A = k(pre + "A", torch.softmax(S.masked_fill(mask, float("-inf")), dim=-1))
    Ah = A if heads > 1 else A[None]
    O = torch.cat([Ah[h] @ V[:, kvc[h]] for h in range(heads)], dim=1)
    if pre + "W_O" in P:
        O = lin(k(pre + "Attn_heads", O), "W_O", "b_O")
    H1 = k(pre + "H1", H + k(pre + "Attn", O))
    def mlp(x):   # W_2·act(x W_1 + b_1); swiglu: W_2·(silu(x W_1) ⊙ x W_3), Llama's down(silu(gate) * up)
        Z = k(pre + "Z", lin(x, "W_1", "b_1"))
        if act == "swiglu":
            R = k(pre + "R", F.silu(Z) * k(pre + "U", lin(x, "W_3", "b_3")))
        else:
            R = k(pre + "R", ACTIVATIONS[act](Z))
        return k(pre + "F", lin(R, "W_2", "b_2"))

    if norm == "pre":
        return k(pre + "H2", H1 + mlp(k(pre + "LN2", norm_of(H1, 2))))
    LN1 = k(pre + "LN1", norm_of(H1, 1))
    H2 = k(pre + "H2", LN1 + mlp(LN1))
    return k(pre + "LN2", norm_of(H2, 2))


def _head(spec, P, H, ids, k):
    """h_final, logits (the last position's; all_positions: logits_at{t} of the others too), p, logp and the
    loss: −log softmax(logits)[target], or all_positions' F.cross_entropy of the (T, V) logits, each position
    predicting the next token (the last one the target)."""
    T = len(ids)
    W = P["W_out"] if "W_out" in P else P["E"].T
    target = _ids(spec, [spec["data"]["target"]])[0]
    h = k("h_final", H[T - 1])
    if spec.get("training", {}).get("all_positions", False):
        L = H @ W
        for t in range(T - 1):
            k(f"logits_at{t}", L[t])
        logits = k("logits", L[T - 1])
        logp = torch.log_softmax(logits, dim=-1)
        loss = F.cross_entropy(L, torch.tensor(ids[1:] + [target]))
    else:
        logits = k("logits", (h[None, :] @ W)[0])
        logp = torch.log_softmax(logits, dim=-1)
        loss = -logp[target]
    return dict(p=torch.softmax(logits, dim=-1), logp=logp, loss=loss)


def transformer_forward(spec, P, tokens=None, PE=None, keep=False):
    """Every quantity of the spec's transformer under parameters P (their dtype), by symgpt's names: H0; per
    block (layer_prefix) Q, K, V, S, A ((heads, T, T), or (T, T) for one head), Attn_heads (before W_O, if
    any), Attn, H1, LN1, Z, R, F, H2, LN2; then _head's. LayerNorm γ, β not in P are the spec's constants.
    tokens: token strings or ids (default data.input). PE: float64 numbers of the positional encoding
    (default: positional_encoding). keep: every intermediate keeps its gradient (retain_grad)."""
    m = spec["model"]
    d, heads = int(m["d"]), int(m.get("heads", 1))
    eps = float(m.get("ln_eps", 1e-5))
    ids = _ids(spec, spec["data"]["input"] if tokens is None else tokens)
    T = len(ids)
    if PE is None:
        PE = positional_encoding(T, d, float(m.get("pe_base", 10000)))
    out = {}
    k = _keeper(out, keep)
    if m.get("positions") == "learned":    # GPT-2's wpe: the table's first T rows
        PE = P["W_pe"][:T] if "W_pe" in P else _t(spec["weights"]["W_pe"], P["E"].dtype)[:T]
    if m.get("positions") in ("rope", "none"):      # nothing added (rope: the attention turns Q and K)
        H = k("X", P["E"][ids])
    else:
        H = k("H0", P["E"][ids] + (PE if torch.is_tensor(PE) else _t(PE, P["E"].dtype)))
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    for i, layer in enumerate(spec["layer"]):
        H = _block(H, P, layer, layer_prefix(spec, i), heads, eps, mask, k, m.get("activation", "relu"),
                   m.get("norm", "post"), m.get("norm_kind", "layernorm"),
                   m.get("rope_theta", 10000) if m.get("positions") == "rope" else None,
                   int(m["kv_heads"]) if "kv_heads" in m else None)
    if m.get("norm") == "pre":   # the final norm, ln_f
        w = spec["weights"]
        g = P["gamma_f"] if "gamma_f" in P else _t(w.get("gamma_f", [1] * d), H.dtype)
        b = P["beta_f"] if "beta_f" in P else _t(w.get("beta_f", [0] * d), H.dtype)
        H = k("LN_f", F.rms_norm(H, (d,), g, eps) if m.get("norm_kind") == "rmsnorm" else
              F.layer_norm(H, (d,), g, b, eps))
    out.update(_head(spec, P, H, ids, k))
    return out


def transformer_loss(spec, P, tokens=None, out=None):
    """Loss of the spec's transformer with parameters P (dict of tensors).
    If `out` is a dict it receives every quantity of transformer_forward by name (H0, A, LN2, logits, p, …)."""
    f = transformer_forward(spec, P, tokens)
    if out is not None:
        out.update(f)
    return f["loss"]


def transformer_torch(spec_dict, learnable_ln=False, dtype=DT):
    P = transformer_params(spec_dict, learnable_ln, dtype)
    return transformer_loss(spec_dict, P), P


# ---------------------------------------------------------------- bigram

def bigram_forward(spec, P, keep=False):
    """x = E[last input token], z = x·W (a (1, d)·(d, V) product), p, logp, loss = −log softmax(z)[target]."""
    out = {}
    k = _keeper(out, keep)
    x = k("x", P["E"][_ids(spec, spec["data"]["input"])[-1]])
    z = k("z", (x[None, :] @ P["W"])[0])
    logp = torch.log_softmax(z, dim=-1)
    out.update(p=torch.softmax(z, dim=-1), logp=logp, loss=-logp[_ids(spec, [spec["data"]["target"]])[0]])
    return out


def bigram_loss(spec, P):
    return bigram_forward(spec, P)["loss"]


def bigram_torch(spec_dict, dtype=DT):
    P = bigram_params(spec_dict, dtype)
    return bigram_loss(spec_dict, P), P


# ---------------------------------------------------------------- precision forensics: one dtype, every value

def transformer(spec, params: dict, PE, dt) -> dict:
    """first_update of a transformer spec in dtype ``dt``. ``params``: name -> float64 array of the dtype's values
    (LayerNorm γ, β included); ``PE`` the same of the positional encoding."""
    P = _leaves(params, dt)
    return first_update(spec, P, transformer_forward(spec, P, PE=PE, keep=True))


def bigram(spec, params: dict, dt) -> dict:
    """first_update of a bigram spec in dtype ``dt`` (``params`` as for transformer)."""
    P = _leaves(params, dt)
    return first_update(spec, P, bigram_forward(spec, P, keep=True))


def _training(spec):
    """([training], [training.adamw]) with the spec format's values where they leave a key out."""
    tr = {**TRAINING, **spec.get("training", {})}
    return tr, {**ADAMW, **tr.get("adamw", {})}


def first_update(spec, P, f) -> dict:
    """Backward from f's loss, then the first SGD and AdamW update of every parameter from those gradients
    (one optimizer per parameter; with training.clip, clip_grad_norm_ over the trained parameters together,
    as the trace clips them). Returns every tensor of f and, where autograd kept it, its gradient grad_<name>,
    the parameters and theirs, and sgd[1].<name>, adamw[1].<name>: numpy float64 arrays by symgpt's names."""
    f["loss"].backward()
    out = {}
    for n, t in list(f.items()) + list(P.items()):
        out[n] = t
        if (t.is_leaf or t.retains_grad) and t.grad is not None:
            out["grad_" + n] = t.grad
    tr, aw = _training(spec)
    first = {"sgd": first_rate(spec, tr["lr"]), "adamw": first_rate(spec, aw["lr"])}  # a warm-up's first share
    trained = set(symgpt_trained(spec))
    for name, opt in (("sgd", lambda ps: torch.optim.SGD(ps, lr=first["sgd"], foreach=False)),
                      ("adamw", lambda ps: torch.optim.AdamW(
                          ps, lr=first["adamw"], betas=(float(aw["beta1"]), float(aw["beta2"])),
                          eps=float(aw["eps"]), weight_decay=float(aw["weight_decay"]), foreach=False))):
        qs = {}
        for n, t in P.items():
            q = t.detach().clone().requires_grad_(True)
            q.grad = t.grad.clone()
            qs[n] = q
        if tr["clip"] is not None:
            torch.nn.utils.clip_grad_norm_([q for n, q in qs.items() if n in trained], float(tr["clip"]),
                                           foreach=False)
        for n, q in qs.items():
            opt([q]).step()
            out[f"{name}[1].{n}"] = q
    return {n: t.detach().to(torch.float64).numpy().copy() for n, t in out.items()}


def first_rate(spec, lr) -> float:
    """The schedule's rate at update 0 (nanoGPT's warm-up: lr·1/(warmup + 1); the cosine starts at lr)."""
    lr = Fraction(str(lr))
    warmup = int(spec.get("training", {}).get("warmup", 0))
    return float(lr / (warmup + 1) if warmup else lr)


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
                decay_groups=False, learnable_ln=None, dtype=DT):
    """Run `steps` updates in `dtype`; return records 0..steps.

    Record k = state after k updates: {"loss": loss at the state before update k
    (record 0: the initial loss), "params": name -> nested lists, "lr": lr used by
    update k, "grad_norm": total 2-norm of the gradient before clipping}.
    clip: torch.nn.utils.clip_grad_norm_ (scales by clip / (norm + 1e-6) when norm > clip).
    optimizer: "sgd" or "adamw". decay_groups: weight decay only on params with
    dim >= 2 other than E (no decay on biases, LayerNorm and embeddings).
    learnable_ln (transformer): default [training].learnable_ln of the spec.
    """
    if kind == "bigram":
        P = bigram_params(spec_dict, dtype)
        loss_fn = lambda: bigram_loss(spec_dict, P)
    else:
        if learnable_ln is None:
            learnable_ln = bool(spec_dict.get("training", {}).get("learnable_ln", False))
        P = transformer_params(spec_dict, learnable_ln, dtype)
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


# ---------------------------------------------------------------- against the mpmath oracle

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
    f = transformer_forward(spec, transformer_params(spec, learnable_ln))
    err = max(_max_diff(m[k], f[k]) for k in ("H0", "h_final", "logits", "p"))
    for i, mb in enumerate(m["blocks"]):
        err = max(err, *(_max_diff(mb[k], f[layer_prefix(spec, i) + k]) for k in ("A", "LN1", "LN2")))
    return max(err, _max_diff(m["loss"], f["loss"].item())), m["loss"], f["loss"].item()


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


def assert_gradients_match(d, spec, rel=1e-9, floor=1e-14, loss_rel=1e-12):
    """A derivation's loss and every parameter's gradient against this oracle in float64 (the norms' γ, β
    learnable): |symgpt − torch| ≤ max(rel·|torch|, floor) entry by entry.  Returns the parameters (their
    ``.grad`` filled) and the number of entries compared."""
    loss, params = transformer_torch(spec, learnable_ln=True)
    assert abs(float(d.mpf("loss", 30)) - loss.item()) <= loss_rel * abs(loss.item())
    loss.backward()
    n = 0
    for name, t in params.items():
        g = t.grad.detach().numpy()
        for idx in np.ndindex(g.shape):
            node = f"grad_{name}[{','.join(map(str, idx))}]"
            got, want = float(d.mpf(node, 30)), float(g[idx])
            assert abs(got - want) <= max(rel * abs(want), floor), f"{node}: symgpt {got!r}, torch {want!r}"
            n += 1
    return params, n
