"""Why a wrong figure is wrong: one diagnosis for ``symgpt verify`` and ``symgpt check``.

The cause is the first of these that explains the printed digits (``k`` places, the exact value known):

* **carried rounding**: the figure's own chain, computed exactly from the rounded figures the document
  printed before, rounds to it;
* **round-half-even**: the value is exactly halfway, and rounding the tie to the even digit gives it;
* **truncation**: the value cut (not rounded) at the printed place gives it;
* **float artefact**: it carries float64's error (``0.30000000000000004``);
* **transposed index**: it is the value of the same quantity with its indices swapped;
* **percent slip**: a fraction printed with a % sign (``λ = 0.1`` as ``0.1%``);
* **unbiased variance**, **forgotten −y**, **log₁₀ for ln**, **no bias correction**, **forgotten 1/√d_k**,
  **forgotten term**, **sum for mean**, **update with the wrong sign**, **sign of a term**: a
  formula slip the quantity invites (a norm's variance divided by n − 1, the target's logit gradient p instead
  of p − 1, the loss with a common logarithm, AdamW's first update without its bias correction, an attention
  score q·k not divided by √d_k, a sum of
  products without the bias its definition adds, a mini-batch's loss or gradient summed over its examples and not
  divided by their number, a first step's weight moved uphill, θ + η·g; a sum with one term's sign turned, found
  by check from its chain) gives it (:func:`slips`, :func:`left_out`);
* **sign flip**: the right digits with the wrong sign;
* **last-digit slip**: only the last printed digit differs;
* **swapped digits**: two neighbouring digits trade places (``6.5251`` for ``6.5521``);
* **scale slip**: the decimal point moved (``0.0851`` printed as ``0.851``);
* **plain error**: none of these.

>>> from fractions import Fraction
>>> cause_of(Fraction("0.4539"), Fraction("0.45398"), 4, chain_ok=False)
'truncation'
>>> cause_of(Fraction("0.124"), Fraction("0.1245"), 3, chain_ok=False, tie_even="0.124")
'round-half-even'
>>> cause_of(Fraction("0.001"), Fraction("0.1"), 3, chain_ok=False, percent=Fraction("0.1"))
'percent slip'
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from flint import fmpq

SLIPS = ("unbiased variance", "forgotten −y", "log₁₀ for ln", "no bias correction", "forgotten 1/√d_k",
         "forgotten term", "sum for mean", "update with the wrong sign", "sign of a term")
CAUSES = ("carried rounding", "truncation", "round-half-even", "float artefact", "transposed index", "percent slip",
          *SLIPS, "sign flip", "last-digit slip", "swapped digits", "scale slip", "plain error")


def _trunc(x: Fraction, k: int) -> Fraction:
    s = 1 if x >= 0 else -1
    return s * Fraction(int(abs(x) * 10 ** k), 10 ** k)


def left_out(d, ref: str, exact: Fraction) -> tuple:
    """The values a sum of products would have without one of the weights its definition adds alone (a
    bias): ``F[0,0] = R[0,0]·W_2[0,0] + … + b_2[0]`` gives ``(b_2[0],)``'s value.  Empty for any other
    quantity (a ref that is not a node of ``d``'s graph, a definition that is no sum).

    >>> import symgpt
    >>> d = symgpt.load("tiny-transformer")
    >>> left_out(d, "Z[0,0]", Fraction(1, 2)), left_out(d, "p[你]", Fraction(1, 2))
    ((Fraction(2, 5),), ())
    """
    return tuple(exact - w for w in lone_weights(d, ref))


def lone_weights(d, ref: str) -> tuple:
    """The nonzero weights the definition of ``ref`` adds alone to a sum of products (a bias), exactly; empty
    for a ref that is no node of ``d``'s graph or whose definition is no such sum.

    >>> import symgpt
    >>> lone_weights(symgpt.load("tiny-transformer"), "Z[0,0]")
    (Fraction(1, 10),)
    """
    import sympy
    try:
        e = d.definition(ref)
    except Exception:  # noqa: BLE001 - no node of the graph: no term to leave out
        return ()
    if not isinstance(e, sympy.Add) or not any(isinstance(t, sympy.Mul) for t in e.args):
        return ()
    weights = []
    for t in e.args:
        if t.is_Symbol:
            try:
                b = d.ball(t.name, 64)
            except Exception:  # noqa: BLE001 - a name ball cannot read: not a weight
                continue
            if isinstance(b, fmpq) and b != 0:
                weights.append(Fraction(int(b.p), int(b.q)))
    return tuple(weights)


def slips(ref: str, exact: Fraction, spec) -> dict:
    """{cause: the value that formula slip gives} for the slips the quantity ``ref`` invites (see the module):
    a LayerNorm variance × n/(n − 1) (n = d), a negative logit gradient + 1 (the target's, p − 1 written p), the
    loss ÷ ln 10, AdamW's first update × (1 − β₁)/√(1 − β₂) (m and v not divided by 1 − βᵗ), a first step's
    new weight θ + η·g (the update's sign turned).

    >>> from types import SimpleNamespace as S
    >>> spec = S(d=4, norm_kind="layernorm", training=S(adamw=S(beta1=Fraction(9, 10), beta2=Fraction(999, 1000))))
    >>> slips("l0.var2[2]", Fraction(3, 10), spec), slips("grad_logits[3]", Fraction(-7, 10), spec)
    ({'unbiased variance': Fraction(2, 5)}, {'forgotten −y': Fraction(3, 10)})
    >>> round(float(slips("loss", Fraction(1), spec)["log₁₀ for ln"]), 6), slips("p[0]", Fraction(1, 2), spec)
    (0.434294, {})
    >>> slips("sgd[1].W[0,b]", Fraction(1, 10), S(params={"W": [[0, 0.2]]}, vocab=("a", "b"), training=S()))
    {'update with the wrong sign': Fraction(3, 10)}
    >>> float(slips("l0.S[1,2,0]", Fraction(1, 2), S(kind="transformer", d=8, heads=2))["forgotten 1/√d_k"])
    1.0
    """
    out = {}
    d = getattr(spec, "d", 0)
    root = SPREAD_ROOT.fullmatch(ref)
    if SPREAD.fullmatch(ref) and d > 1:
        out["unbiased variance"] = exact * d / (d - 1)            # σ² or the mean square over d − 1
    elif root and d > 1 and exact > 0:
        eps = Fraction(str(getattr(spec, "ln_eps", 0))) if root.group(1) else 0
        out["unbiased variance"] = _sqrt((exact * exact - eps) * d / (d - 1) + eps)   # √(σ²·d/(d − 1) + ε)
    elif re.fullmatch(r"(?:sgd\[\d+\]\.)?grad_(?:logits|z)\[[^\]]+\]", ref) and -1 < exact < 0 and \
            not getattr(getattr(spec, "training", None), "all_positions", False) and \
            len(getattr(getattr(spec, "training", None), "examples", ()) or ()) <= 1:
        #     (a loss of one row: with a mean over rows the gradient is (p − y)/n)
        out["forgotten −y"] = exact + 1
    elif (lost := _head_target(ref, spec)) is not None:
        out["forgotten −y"] = exact + lost          # a bigram's ∂L/∂x = W(p − y) written W·p: + W[j, target]
    elif re.fullmatch(r"(?:l\d+\.)?S\[[^\]]+\]", ref) and getattr(spec, "kind", "") == "transformer" and \
            d > getattr(spec, "heads", d):
        out["forgotten 1/√d_k"] = exact * _sqrt(Fraction(d, spec.heads))     # q·k, its scaling left out
    elif re.fullmatch(r"(?:(?:sgd|adamw)\[\d+\]\.)?loss", ref):
        out["log₁₀ for ln"] = exact / LN10
    elif re.fullmatch(r"adamw\[1\]\.update\[[^\]]+\]", ref) and getattr(spec, "training", None) is not None:
        a = spec.training.adamw
        b1, b2 = Fraction(str(a.beta1)), Fraction(str(a.beta2))
        root = _sqrt(1 - b2)
        if root:
            out["no bias correction"] = exact * (1 - b1) / root
    step = re.fullmatch(r"(sgd|adamw)\[1\]\.([\w.]+)\[([^\]]+)\]", ref)
    theta = _start(spec, step[2], step[3]) if step else None
    if theta is not None:               # θ + η·g for θ − η·g: the step taken uphill (AdamW's after its decay)
        a = getattr(spec.training, "adamw", None) if step[1] == "adamw" else None
        kept = 1 - Fraction(str(a.lr)) * Fraction(str(a.weight_decay)) if a is not None else 1
        out["update with the wrong sign"] = 2 * theta * kept - exact
    if re.fullmatch(r"sgd\[0\]\.(?:loss|grad_\w+\[[^\]]+\])", ref) and \
            len(getattr(getattr(spec, "training", None), "examples", ()) or ()) > 1:
        out["sum for mean"] = exact * len(spec.training.examples)      # Σ over the batch, the ÷ n forgotten
    return out


def _head_target(ref: str, spec) -> Fraction | None:
    """What a bigram's gradient of the input's embedding or of the head gains when p − y is written p: the
    target's column of the head (∂L/∂x_j = Σ_v W[j,v](p_v − y_v)), or the input's embedding in the target's
    column (∂L/∂W[j,t] = x_j(p_t − 1)); None for any other quantity or model.

    >>> from types import SimpleNamespace as S
    >>> spec = S(kind="bigram", vocab=("a", "b"), input=(0,), target=1, params={"E": [[1, 2], [3, 4]],
    ...          "W": [["0.5", "0.25"], ["-1", "0.75"]]}, training=S(examples=()))
    >>> _head_target("grad_E[a,1]", spec), _head_target("grad_x[0]", spec), _head_target("grad_W[1,b]", spec)
    (Fraction(3, 4), Fraction(1, 4), Fraction(2, 1))
    >>> _head_target("grad_E[b,1]", spec), _head_target("grad_W[1,a]", spec)
    (None, None)
    """
    if getattr(spec, "kind", None) != "bigram" or not isinstance(getattr(spec, "target", None), int) or \
            len(getattr(getattr(spec, "training", None), "examples", ()) or ()) > 1:
        return None
    tokens = list(getattr(spec, "vocab", ()))
    word, target = tokens[spec.input[-1]], tokens[spec.target]
    m = re.fullmatch(r"grad_(?:E\[([^\],]+),(\d+)\]|x\[(\d+)\]|W\[(\d+),([^\]]+)\])", ref)
    if m is None or m[1] is not None and m[1] != word or m[5] is not None and m[5] != target:
        return None
    if m[4] is not None:
        return _start(spec, "E", f"{word},{m[4]}")
    return _start(spec, "W", f"{m[2] or m[3]},{target}")


def _start(spec, name: str, index: str) -> Fraction | None:
    """A parameter's entry before training, as written in the spec (None: no parameter, an index of tokens)."""
    v = getattr(spec, "params", {}).get(name)
    tokens = list(getattr(spec, "vocab", ()))
    try:
        for i in index.split(","):
            v = v[int(i) if i.strip().isdigit() else tokens.index(i.strip())]
        return Fraction(str(v))
    except (TypeError, ValueError, IndexError, KeyError):
        return None


SPREAD = re.compile(r"(?:l\d+\.)?(?:var|ms)(?:\d+|_f)\[\d+\]")
"""A norm's variance or mean square: a sum of squares over d, which hand computations divide by d − 1."""
SPREAD_ROOT = re.compile(r"sqrt\((?:l\d+\.)?(?:var|ms)(?:\d+|_f)\[\d+\]( \+ ln_eps)?\)")
"""Its root, with or without ε: the norm's denominator."""


LN10 = Fraction("2.302585092994045684017991454684364207601101488628772976033327900967572609677352480235997")
"""ln 10 to 60 digits (a formula slip's value only names a cause: it prints no digit)."""


def _sqrt(x: Fraction) -> Fraction:
    """√x to about 60 digits, as a Fraction (Newton's method from the float root)."""
    r = Fraction(math.sqrt(x))
    if not r:
        return r                    # (below float's range: no slip is named)
    for _ in range(4):
        r = (r + x / r) / 2
    return r


def cause_of(printed: Fraction, exact: Fraction, k: int, *, chain_ok: bool, tie_even: str | None = None,
             transposed: bool = False, sig: int = 0, percent: Fraction | None = None,
             slipped: dict | None = None) -> str:
    """The first cause (see the module) that explains a wrong figure printed at k decimals.

    ``tie_even``: the half-even rounding when the exact value is a tie; ``sig``: the figure's
    significant digits (a float artefact has many); ``percent``: a figure printed with a % sign, its number
    (0.1 for ``0.1%``; ``printed`` is then 0.001 and ``k`` counts the places of 0.001).

    >>> cause_of(Fraction("0.30000000000000004"), Fraction("0.3"), 17, chain_ok=False, sig=17)
    'float artefact'
    >>> cause_of(Fraction("0.456"), Fraction("0.45416"), 3, chain_ok=False)
    'last-digit slip'
    >>> cause_of(Fraction("0.460"), Fraction("0.45416"), 3, chain_ok=False)
    'plain error'
    >>> cause_of(Fraction("0.851"), Fraction("0.08512"), 3, chain_ok=False)
    'scale slip'
    >>> cause_of(Fraction("0.00004"), Fraction(0), 5, chain_ok=False)          # all of it wrong, no slip of a digit
    'plain error'
    """
    ulp = Fraction(1, 10 ** k)
    correct = _rounded(exact, k)
    for cause, values in (slipped or {}).items():    # a formula slip before its carried rounding: 1.2886 / 3
        for value in values if isinstance(values, tuple) else (values,):
            if printed == _rounded(value, k) and not (printed == -correct and printed != 0):
                return cause          # p for p − 1, ÷ (n − 1), log₁₀, no bias correction, a bias left out
    if chain_ok:
        return "carried rounding"
    if tie_even is not None and Fraction(tie_even) == printed:
        return "round-half-even"     # before truncation: a tie cut down is the even rounding too
    if _trunc(exact, k) == printed:
        return "truncation"
    if sig >= 12 and exact != 0 and abs(printed - exact) <= abs(exact) * Fraction(1, 2 ** 48):
        return "float artefact"
    if transposed:
        return "transposed index"
    if percent is not None and percent == _rounded(exact, k - 2):
        return "percent slip"
    if printed == -correct and printed != 0:
        return "sign flip"
    if printed != correct and exact != 0 and abs(printed - correct) < 10 * ulp and \
            len(_digits(correct, k).lstrip("-")) > 1 and _digits(printed, k)[:-1] == _digits(correct, k)[:-1]:
        #  (7 for 6 is no slip of a longer figure; 0.00004 for 0.00000 is all the figure says, no slip of it)
        return "last-digit slip"
    if any(printed == _rounded(exact * Fraction(10) ** e, k) for e in (-2, -1, 1, 2)):
        return "scale slip"         # the decimal point moved: 0.851 for 0.0851
    if _swapped(_digits(printed, k), _digits(correct, k)):
        return "swapped digits"     # 6.5251 for 6.5521
    return "plain error"


def _swapped(printed: str, correct: str) -> bool:
    """Whether two digit strings differ only by two neighbouring, different digits traded.

    >>> _swapped("65251", "65521"), _swapped("65251", "65251"), _swapped("65251", "65215"), _swapped("123", "213")
    (True, False, True, True)
    >>> _swapped("0010", "0102")
    False
    """
    if len(printed) != len(correct):
        return False
    diff = [i for i, (a, b) in enumerate(zip(printed, correct)) if a != b]
    lead = min(len(x) - len(x.lstrip("-0")) for x in (printed, correct))
    if diff and diff[0] < lead:
        return False                 # (a zero before the first digit moved: the point moved, 0.10 for 0.0102)
    return len(diff) == 2 and diff[1] == diff[0] + 1 and printed[diff[0]] == correct[diff[1]] and \
        printed[diff[1]] == correct[diff[0]]


def _rounded(x: Fraction, k: int) -> Fraction:
    """x rounded half away from zero at k decimals."""
    return Fraction(int(abs(x) * 10 ** k + Fraction(1, 2)), 10 ** k) * (1 if x >= 0 else -1)


def _digits(x: Fraction, k: int) -> str:
    return f"{'-' if x < 0 else ''}{int(abs(x) * 10 ** k):0{k + 1}d}"




def exact_value(q, prec: int = 256) -> Fraction:
    """q's value as a Fraction: exact when q is rational, else its enclosure's midpoint at ``prec`` bits."""
    b = q.ball(prec)
    if isinstance(b, fmpq):
        return Fraction(int(b.p), int(b.q))
    m = b.mid().man_exp()
    return Fraction(int(m[0])) * Fraction(2) ** int(m[1])


def _ball_bounds(b) -> tuple:
    m, r = b.mid().man_exp(), b.rad().man_exp()
    mid, rad = Fraction(int(m[0])) * Fraction(2) ** int(m[1]), Fraction(int(r[0])) * Fraction(2) ** int(r[1])
    return mid - rad, mid + rad


def tie_even(q, k: int) -> str | None:
    """The half-even rounding of q at k decimals when q is exactly halfway (else None).

    >>> from symgpt.claims.refs import Quantity
    >>> half = Quantity(lambda prec: fmpq(1245, 10000))
    >>> half.exact = lambda: fmpq(1245, 10000)
    >>> tie_even(half, 3), tie_even(Quantity(lambda prec: fmpq(-1, 2 * 10 ** 20)), 20)
    ('0.124', None)
    """
    b = q.ball(256)
    if not isinstance(b, fmpq):
        lo, hi = (v * 10 ** k - Fraction(1, 2) for v in _ball_bounds(b))
        if math.floor(hi) < math.ceil(lo) or hi - lo > 1:
            return None      # no point halfway inside the enclosure: no tie; or too wide to tell (10^477):
    #                          SymPy's exact value is asked for only when a tie is within the enclosure's reach
    try:
        ex = q.exact()
    except Exception:  # noqa: BLE001 - SymPy finds no exact value
        return None
    if ex is None:
        return None
    x = Fraction(int(ex.p), int(ex.q)) * 10 ** k
    if (x * 2).denominator != 1 or x.denominator == 1:
        return None
    lo = x - Fraction(1, 2)
    even = lo if int(lo) % 2 == 0 else lo + 1
    if k == 0:
        return str(int(even))
    digits = f"{abs(int(even)):0{k + 1}d}"                  # exactly, at any k (a float would keep 17 digits)
    return f"{'-' if even < 0 else ''}{digits[:-k]}.{digits[-k:]}"


def diagnosis(q, value: Fraction, kind: str, decimals: int, text: str = "", *, chain_ok: bool,
              transposed: bool = False, ref: str = "", spec=None, d=None) -> str:
    """The cause of a wrong figure printed as ``text`` (its value in printed units, its kind and places) for
    the quantity q: :func:`cause_of` with the exact value, the tie and the percent sign worked out (``d``, the
    derivation ``ref`` names a node of: the terms its definition adds, which a hand sum may leave out).

    >>> from symgpt.claims.refs import Quantity
    >>> q = Quantity(lambda prec: fmpq(1, 10))
    >>> diagnosis(q, Fraction("0.1"), "percent", 1, "0.1%", chain_ok=False)
    'percent slip'
    """
    percent = kind == "percent"
    k = decimals + (2 if percent else 0)
    exact = exact_value(q)
    slipped = slips(ref, exact, spec if spec is not None else getattr(d, "spec", None)) \
        if spec is not None or d is not None else {}
    if d is not None and ref and (out := left_out(d, ref, exact)):
        slipped["forgotten term"] = out
    return cause_of(value / (100 if percent else 1), exact, k, chain_ok=chain_ok, tie_even=tie_even(q, k),
                    transposed=transposed, sig=len(text.strip("-+−%").replace(".", "").lstrip("0")),
                    percent=value if percent else None, slipped=slipped)
