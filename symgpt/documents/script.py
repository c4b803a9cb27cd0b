"""A short, runnable pure-Python script that redoes a bigram document's numbers in floats.

The script is generated from the spec: the weights from their exact decimal
text (a rational that has none is written as a quotient, ``1/3``), the sizes,
the example, the learning rates and the parameters the document checks.  It
needs nothing but the standard library and prints one line per figure group,
``label value value …``, each value at the decimals the document prints, so a
test can run it and compare every number with the certified figures.

It does the forward pass, p − y, both gradients, the central differences, SGD
for the spec's steps (reporting the loss and the target's probability before
the reported updates), the first AdamW step of one parameter and the
wrong-update-order pitfall (W updated first, E's gradient then taken with the
new W).  The SGD loop, the pitfall and the AdamW step are left out when the
spec's training uses clipping, a schedule or extra examples, which the script
does not model (:func:`plain_training`); with extra examples the central
differences are left out too, since the document's check moves the batch's
mean loss.

>>> import symgpt
>>> text = script(symgpt.load("bigram"))
>>> 40 <= len(text.splitlines()) <= 70, max(map(len, text.splitlines())) <= 78
(True, True)
>>> text.splitlines()[2]
'E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4]]  # 3x2: a row per token'
"""
from __future__ import annotations

from decimal import Decimal

import sympy

from ..engine.names import split
from ..training.train import NO_DECAY
from .blocks import exact_decimal

WIDTH = 78  # characters of a script line (the PDF's code block holds about 85)


def literal(q) -> str:
    """A Python float literal of an exact rational: its decimal, or a quotient.

    >>> literal(sympy.Rational(-1, 5)), literal(sympy.Rational(1, 3)), literal(sympy.Integer(2))
    ('-0.2', '1/3', '2.0')
    >>> literal(sympy.Rational(1, 10 ** 8)), literal(sympy.Rational(123, 10 ** 14))
    ('1e-8', '1.23e-12')
    """
    q = sympy.Rational(q)
    s = exact_decimal(q)
    if s is None:
        return f"{q.p}/{q.q}"
    if len(s.lstrip("-")) > 8:  # 0.00000001 as 1e-8
        return format(Decimal(s), "e")
    return s if "." in s else s + ".0"


def text_literal(s: str) -> str:
    r"""A Python string literal of a token that is safe inside a code block of either format.

    Printable characters stay as they are (CJK too); a backslash, a quote, a
    backtick and anything unprintable become escapes, so the literal holds no
    ``\end{…}`` and no Markdown fence.

    >>> print(text_literal("鱼"), text_literal("<pad>"), text_literal("a'\\b`"), text_literal("\x1b"))
    '鱼' '<pad>' 'a\x27\x5cb\x60' '\x1b'
    """
    out = []
    for ch in s:
        if ch.isprintable() and ch not in "\\'`" and (ch.isascii() or ch.isalnum()):
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "'" + "".join(out) + "'"


def _wrap(head: str, items: list, tail: str = "") -> list:
    """``head[a, b, …]tail`` on one line, or broken after commas to fit :data:`WIDTH`.

    >>> _wrap("X = ", ["1", "2"], "  # two")
    ['X = [1, 2]  # two']
    >>> _wrap("X = ", ["1234567890"] * 12, "  # a comment too long to follow the last row of the list")[0]
    '# a comment too long to follow the last row of the list'
    >>> first, second = _wrap("X = ", ["1234567890"] * 9)
    >>> first
    'X = [1234567890, 1234567890, 1234567890, 1234567890, 1234567890, 1234567890,'
    >>> second
    '     1234567890, 1234567890, 1234567890]'
    """
    one = f"{head}[{', '.join(items)}]{tail}"
    if len(one) <= WIDTH:
        return [one]
    lines, cur, pad = [], head + "[", " " * (len(head) + 1)
    for i, it in enumerate(items):
        piece = it + ("," if i < len(items) - 1 else "]")
        if len(cur) + len(piece) + 1 > WIDTH and cur.strip() not in ("", head.strip() + "["):
            lines.append(cur.rstrip())
            cur = pad
        cur += piece + " "
    last = cur.rstrip()
    if len(last + tail) <= WIDTH:
        return lines + [last + tail]
    return ([tail.strip()] if tail else []) + lines + [last]  # the comment goes above a long list


def plain_training(spec) -> bool:
    """Training the script's plain SGD loop reproduces: one example, no clipping, no schedule.

    >>> import symgpt
    >>> plain_training(symgpt.load("bigram").spec)
    True
    """
    tr = spec.training
    return len(tr.examples) == 1 and tr.clip is None and tr.warmup == 0 and tr.decay_steps == 0


def checked(d) -> list:
    """(name, row, col) of the parameters whose central difference the script prints.

    >>> import symgpt
    >>> checked(symgpt.load("bigram"))
    [('W', 0, 2), ('E', 1, 1)]
    """
    out = []
    for ref in d.spec.training.gradcheck_params:
        group, (i, j) = split(d.node(ref))
        out.append((group, int(i), int(j)))
    return out


def adamw_param(d) -> tuple:
    """(name, row, col) of the parameter whose first AdamW step the document shows.

    >>> import symgpt
    >>> adamw_param(symgpt.load("bigram"))
    ('W', 0, 2)
    """
    s = d.spec
    ref = s.training.gradcheck_params[0] if s.training.gradcheck_params else f"W[0,{s.target}]"
    group, (i, j) = split(d.node(ref))
    return group, int(i), int(j)


def script(d, digits: int = 4) -> str:
    """The script's text for a bigram derivation (``digits``: the document's decimals)."""
    s = d.spec
    tr, a = s.training, s.training.adamw
    k, k6 = digits, digits + 2
    rows = lambda M: ["[" + ", ".join(literal(q) for q in r) + "]" for r in M]
    tok, tgt = s.input[-1], s.target
    name, ai, aj = adamw_param(d)
    wd = a.weight_decay if not (tr.decay_groups and name in NO_DECAY) else 0
    out = ["import math", ""]
    out += _wrap("E = ", rows(s.params["E"]), f"  # {s.V}x{s.d}: a row per token")
    out += _wrap("W = ", rows(s.params["W"]), f"  # {s.d}x{s.V}: output projection")
    out += _wrap("VOCAB = ", [text_literal(t) for t in s.vocab])
    out += [f"V, D, tok, tgt = {s.V}, {s.d}, {tok}, {tgt}  # input id, target id",
            f"LR, STEPS, H = {literal(tr.lr)}, {tr.steps}, {literal(tr.gradcheck_h)}",
            f"B1, B2, ETA, EPS, WD = {literal(a.beta1)}, {literal(a.beta2)}, {literal(a.lr)}, "
            f"{literal(a.eps)}, {literal(wd)}",
            "f = lambda k, xs: ' '.join(f'{v:.{k}f}' for v in xs)", "",
            "def forward(E, W):",
            "    x = E[tok]",
            "    z = [sum(x[i] * W[i][j] for i in range(D)) for j in range(V)]",
            "    Z = sum(math.exp(v) for v in z)",
            "    p = [math.exp(v) / Z for v in z]",
            "    return x, p, -math.log(p[tgt])", "",
            "def grads(x, p, W):",
            "    dz = [p[j] - (j == tgt) for j in range(V)]                 # p - y",
            "    dW = [[x[i] * dz[j] for j in range(V)] for i in range(D)]  # outer",
            "    dx = [sum(W[i][j] * dz[j] for j in range(V)) for i in range(D)]",
            "    return dz, dW, dx", "",
            "def sgd(E, W, steps, wrong_order=False):",
            "    E, W, seen = [r[:] for r in E], [r[:] for r in W], []",
            "    for _ in range(steps + 1):",
            "        x, p, L = forward(E, W)",
            "        seen.append((L, p[tgt]))",
            "        dz, dW, dx = grads(x, p, W)  # every gradient from the old W",
            "        W = [[W[i][j] - LR * dW[i][j] for j in range(V)] for i in range(D)]",
            "        if wrong_order:  # the pitfall: E's gradient from the new W",
            "            dx = grads(x, p, W)[2]",
            "        E[tok] = [E[tok][i] - LR * dx[i] for i in range(D)]",
            "    return seen", "",
            "x, p, L = forward(E, W)",
            "dz, dW, dx = grads(x, p, W)",
            "print('example', VOCAB[tok], '->', VOCAB[tgt])",
            f"print('p', f({k}, p)); print('loss', f({k}, [L])); print('p-y', f({k}, dz))",
            f"print('grad_W', *[f({k}, r) for r in dW], sep='\\n  ')",
            f"print('grad_x', f({k}, dx))",
            "for n, i, j in " + repr(checked(d) if len(tr.examples) == 1 else []) + ":",
            "    M = {'E': E, 'W': W}[n]",
            "    up, dn = [r[:] for r in M], [r[:] for r in M]",
            "    up[i][j] += H; dn[i][j] -= H",
            "    pair = (lambda m: (m, W)) if n == 'E' else (lambda m: (E, m))",
            "    L2 = [forward(*pair(m))[2] for m in (up, dn)]",
            "    g = dW[i][j] if n == 'W' else (dx[j] if i == tok else 0.0)",
            f"    print('gradcheck', n, i, j, f({k6}, [(L2[0] - L2[1]) / (2 * H), g]))"]
    if plain_training(s):
        out += ["for k, (L, pt) in enumerate(sgd(E, W, STEPS)):",
                f"    if k + 1 in {tuple(r for r in tr.report if r >= 1)!r}:",
                f"        print('step', k + 1, f({k}, [L, pt]))",
                f"print('wrong order, loss after one step', f({k}, [sgd(E, W, 1, True)[1][0]]))"]
        gexpr = "dW[%d][%d]" % (ai, aj) if name == "W" else (f"dx[{aj}]" if ai == tok else "0.0")
        out += [f"g, th = {gexpr}, {name}[{ai}][{aj}]  # AdamW, first step",
                "m, v = (1 - B1) * g, (1 - B2) * g * g",
                "step = ETA * (m / (1 - B1)) / (math.sqrt(v / (1 - B2)) + EPS)",
                "new = th - ETA * WD * th - step  # decoupled weight decay",
                f"print('adamw', f({k + 2}, [m]), f({k + 4}, [v]), f({k + 2}, [step]), f({k + 3}, [new]))"]
    return "\n".join(out) + "\n"
