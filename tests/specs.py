"""Valid transformer specs from their sizes, for the layout tests (``import specs``).

Weights are one-decimal numbers drawn from a seeded generator (the same spec
for the same arguments), never 0, and the embedding rows are all different,
so that logits do not tie exactly.  ``long_tokens`` mixes in tokens that
fight the page: a 20-character token, one with underscores, ``50%`` and
``<pad>``; the input uses them, so they show in position labels and headings.

>>> text = spec_toml(V=6, d=4, heads=2, d_ff=4, layers=2, T=3, long_tokens=True, seed=1)
>>> import tomllib; t = tomllib.loads(text)
>>> len(t["model"]["vocab"]), len(t["layer"]), "W_O" in t["layer"][0], len(t["weights"]["E"][0])
(6, 2, True, 4)
>>> spec_toml(V=6, d=4, seed=1) == spec_toml(V=6, d=4, seed=1)
True
"""
from __future__ import annotations

import json
import random

LONG_TOKENS = ("abcdefghijklmnopqrst", "very_long_token_name", "<pad>", "50%")


def vocabulary(V: int, long_tokens: bool) -> list:
    """V distinct tokens: ``w0``, ``w1`` … with the long ones first when asked.

    >>> vocabulary(5, True)[:3], vocabulary(3, False)
    (['abcdefghijklmnopqrst', 'very_long_token_name', '<pad>'], ['w0', 'w1', 'w2'])
    """
    extra = list(LONG_TOKENS[:V]) if long_tokens else []
    return extra + [f"w{i}" for i in range(V - len(extra))]


def spec_toml(V=6, d=4, heads=1, d_ff=4, layers=1, T=3, long_tokens=False, seed=0, title=None) -> str:
    """The TOML text of a valid transformer spec with these sizes (``heads`` divides ``d``)."""
    assert d % heads == 0 and T + 1 <= V
    rng = random.Random(f"specs-{seed}-{V}-{d}-{heads}-{d_ff}-{layers}-{T}-{long_tokens}")

    def w():
        return f"{rng.choice((-1, 1)) * rng.randint(1, 9) / 10:.1f}"

    def vec(n):
        return "[" + ", ".join(w() for _ in range(n)) + "]"

    def mat(a, b, distinct=False):
        rows, seen = [], set()
        while len(rows) < a:
            r = vec(b)
            if distinct and r in seen:
                continue
            seen.add(r)
            rows.append(r)
        return "[" + ", ".join(rows) + "]"

    vocab = vocabulary(V, long_tokens)
    order = vocab[:]  # the input walks the vocabulary from a seeded start, the target follows it
    start = rng.randrange(V)
    picked = [order[(start + k) % V] for k in range(T + 1)]
    if long_tokens and LONG_TOKENS[0] not in picked[:T]:
        picked[0] = LONG_TOKENS[0]
    lines = [f"title = {json.dumps(title or f'Layout test V={V} d={d} heads={heads} layers={layers}')}",
             "", "[model]", 'kind = "transformer"', f"vocab = {json.dumps(vocab, ensure_ascii=False)}",
             f"d = {d}", f"heads = {heads}", f"d_ff = {d_ff}", f"layers = {layers}", "tied = true",
             "pe_base = 10000", "ln_eps = 1e-5", "", "[data]",
             f"input = {json.dumps(picked[:T], ensure_ascii=False)}",
             f"target = {json.dumps(picked[T], ensure_ascii=False)}", "", "[weights]",
             f"E = {mat(V, d, distinct=True)}"]
    for _ in range(layers):
        lines += ["", "[[layer]]", f"W_Q = {mat(d, d)}", f"W_K = {mat(d, d)}", f"W_V = {mat(d, d)}"]
        if heads > 1:
            lines.append(f"W_O = {mat(d, d)}")
        lines += [f"W_1 = {mat(d, d_ff)}", f"b_1 = {vec(d_ff)}", f"W_2 = {mat(d_ff, d)}", f"b_2 = {vec(d)}"]
    lines += ["", "[sampling]", "top_k = 3", "top_p = 0.5", "uniform = 0.3", "continue = 2",
              "", "[training]", "lr = 0.1", ""]
    return "\n".join(lines)


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a TOML basic string


def bigram_toml(V=12, d=8, long_tokens=True, seed=0, title=None) -> str:
    """The TOML text of a valid bigram spec with these sizes (gradient check, SGD and AdamW included).

    >>> "kind = \\"bigram\\"" in bigram_toml(4, 2, False)
    True
    """
    rng = random.Random(f"bigram-{seed}-{V}-{d}-{long_tokens}")

    def mat(a, b):
        return "[" + ", ".join("[" + ", ".join(f"{rng.choice((-1, 1)) * rng.randint(1, 9) / 10:.1f}"
                                                for _ in range(b)) + "]" for _ in range(a)) + "]"

    vocab = vocabulary(V, long_tokens)
    return (f"title = {_q(title or f'bigram V={V} d={d}')}\n\n[model]\nkind = \"bigram\"\n"
            f"vocab = [{', '.join(map(_q, vocab))}]\nd = {d}\n\n"
            f"[data]\ninput = [{_q(vocab[0])}]\ntarget = {_q(vocab[1])}\n\n"
            f"[weights]\nE = {mat(V, d)}\nW = {mat(d, V)}\n\n"
            "[training]\nlr = 0.5\nsteps = 5\nreport = [1, 5]\n"
            "gradcheck = { h = 1e-5, params = [\"W[0,1]\"] }\n")
