"""Read and validate a derivation spec (TOML) into exact numbers.

Every number is read from its decimal text: ``0.3`` is ``3/10``, ``1e-5`` is
``1/100000``, the string ``"1/3"`` is ``1/3``.  Nothing goes through ``float``,
``eval`` or ``sympify``.  Bad input raises one :class:`SpecError` that names
the file, the key and what was expected; a number too long to read within the
digit limit raises :class:`LimitError` before any arithmetic on it.  Every key
is checked against :data:`KEYS`; an unknown one is refused with a suggestion.

>>> from symgpt.engine.spec import number
>>> number("0.3", "f.toml", "lr")
3/10
>>> number("1e-5", "f.toml", "ln_eps")
1/100000
"""
from __future__ import annotations

import math
import re
import sys
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import sympy

from ..core import tensorfile
from ..core.errors import InputError, LimitError, nearest
from ..core.files import read_text
from ..core.limits import MAX_DIGITS, Limits
from ..core.safe import clip
from ..ops import NAMES, facet
from ..ops.naming import shape as param_shape
from . import layouts
from .arch import ACTIVATIONS, GATED, NORMS, PLACEMENTS, POSITIONS, PRESETS, Arch
from .names import RefError, split

# Every key a spec may have, table by table ("layer[]" is each [[layer]], "training.examples[]"
# each extra example).  The one table of allowed keys: the reader refuses anything else.
KEYS = {
    "": ("title", "title_en", "source", "model", "data", "weights", "layer", "sampling", "training", "extras"),
    "model": ("kind", "vocab", "d", "heads", "d_ff", "layers", "tied", "pe_base", "ln_eps", "activation", "norm",
              "positions", "n_ctx", "bias", "norm_kind", "rope_theta", "arch", "kv_heads"),
    "data": ("input", "target"),
    "weights": ("file", "names", "E", "W", "W_out", "W_pe", "gamma_f", "beta_f"),
    "layer[]": ("W_Q", "W_K", "W_V", "W_1", "b_1", "W_2", "b_2", "gamma1", "beta1", "gamma2", "beta2", "W_O",
                "b_Q", "b_K", "b_V", "b_O", "W_3", "b_3"),
    "sampling": ("temperatures", "top_k", "top_p", "uniform", "continue"),
    "training": ("lr", "steps", "report", "learnable_ln", "adamw", "clip", "warmup", "decay_steps", "min_lr",
                 "decay_groups", "all_positions", "examples", "gradcheck"),
    "training.adamw": ("lr", "beta1", "beta2", "eps", "weight_decay"),
    "training.gradcheck": ("h", "params"),
    "training.examples[]": ("input", "target"),
    "title": ("zh", "en"),
    "extras": ("batch", "clip", "warmup", "decay_steps", "min_lr"),
}

# Keys only one model kind has: the other kind refuses them, saying why.
ONLY = {
    "model.heads": "transformer", "model.d_ff": "transformer", "model.layers": "transformer",
    "model.tied": "transformer", "model.pe_base": "transformer", "model.ln_eps": "transformer",
    "model.activation": "transformer", "model.norm": "transformer", "model.positions": "transformer",
    "model.n_ctx": "transformer", "model.bias": "transformer", "model.norm_kind": "transformer",
    "model.rope_theta": "transformer", "model.arch": "transformer", "model.kv_heads": "transformer",
    "weights.W_pe": "transformer",
    "weights.gamma_f": "transformer", "weights.beta_f": "transformer",
    "weights.W_out": "transformer", "layer": "transformer",
    "weights.W": "bigram", "extras": "bigram",
}

# The vocabulary axis of each parameter whose index may be a token (E[吃,1], W[0,鱼]): its axis v.
_VOCAB_AXIS = {name: n.axes.index("v") for name, n in NAMES.items() if n.kind == "param" and "v" in n.axes}

_DECIMAL = re.compile(r"(?P<sign>[+-]?)(?:(?P<whole>\d+)(?:\.(?P<frac>\d*))?|\.(?P<frac2>\d+))"
                      r"(?:[eE](?P<exp>[+-]?\d+))?", re.ASCII)
_SHOWN = 40  # characters of an input value quoted in a message


class SpecError(InputError):
    """Bad input: one message naming the file, the key and the expectation."""


class _FloatText(str):
    """A TOML float kept as its text, so it can become an exact Rational."""


def clean(text: str, limit: int | None = _SHOWN) -> str:
    """Input text made safe for a one-line message: control and format characters
    (and line separators) escaped, at most ``limit`` characters.

    >>> clean("a\\x1b[31mb\\nc")
    'a\\\\x1b[31mb\\\\nc'
    >>> clean("x" * 50)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    """
    return clip(text, limit)


def show(value) -> str:
    """A TOML value as a message shows it: short, one line, quoted if a string.

    >>> show(True), show("1/0"), show([1, 2]), show({"a": 1}), show(10**50)
    ('true', '"1/0"', 'a list of 2', 'a table', 'an integer of 51 digits')
    >>> show([]), show(_FloatText("1.5e3"))
    ('an empty list', '1.5e3')
    """
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        n = _int_digits(value)
        return str(value) if n <= 20 else f"an integer of {'about ' if n > 4000 else ''}{n} digits"
    if isinstance(value, _FloatText):
        return clean(value)
    if isinstance(value, str):
        return f'"{clean(value)}"'
    if isinstance(value, list):
        return f"a list of {len(value)}" if value else "an empty list"
    if isinstance(value, dict):
        return "a table" if value else "an empty table"
    return f"a {type(value).__name__}"  # TOML dates and times


def _int_digits(n: int) -> int:
    """Decimal digits of |n|: exact up to 4000 digits, else from the bit length (±1)."""
    bits = abs(n).bit_length()
    if bits <= 13000:
        return len(str(abs(n)))
    return int(bits * math.log10(2)) + 1


def _int(digits: str) -> int:
    """The integer of a digit string of any length (Python refuses str → int above 4300 digits)."""
    if len(digits) <= 4000:
        return int(digits or "0")
    half = len(digits) // 2
    return _int(digits[:half]) * 10 ** (len(digits) - half) + _int(digits[half:])


def _too_many(file, key, what: str, n: int, max_digits: int):
    return LimitError(f"{file}: {key}: {what} has {n} digits, above the limit of {max_digits}; "
                      f"raise it with --max-digits")


def _decimal(text: str, file, key, max_digits: int) -> Fraction:
    """The exact value of a decimal text (matched by _DECIMAL), its size checked first."""
    m = _DECIMAL.fullmatch(text)
    whole, frac = m["whole"] or "", m["frac"] or m["frac2"] or ""
    if len(whole) + len(frac) > max_digits:
        raise _too_many(file, key, clean(text, 20), len(whole) + len(frac), max_digits)
    e = m["exp"] or "0"
    magnitude = e.lstrip("+-").lstrip("0")
    if len(magnitude) > len(str(max_digits)) or int(magnitude or "0") > max_digits:
        raise LimitError(f"{file}: {key}: {clean(text, 20)} has an exponent beyond ±{max_digits} "
                         f"(the digit limit); raise it with --max-digits")
    scale = int(e) - len(frac)
    n = _int(whole + frac) * (-1 if m["sign"] == "-" else 1)
    return Fraction(n * 10 ** scale) if scale >= 0 else Fraction(n, 10 ** -scale)


def number(value, file, key, max_digits: int = MAX_DIGITS) -> sympy.Rational:
    """An exact Rational from a TOML value's text; never through float.

    A text of more than ``max_digits`` digits, or an exponent beyond ±``max_digits``,
    is refused before any arithmetic (LimitError).

    >>> number(7, "f.toml", "d")
    7
    >>> number("-2.5e-3/3", "f.toml", "lr")
    -1/1200
    >>> number("__import__('os')", "f.toml", "lr")
    Traceback (most recent call last):
    ...
    symgpt.engine.spec.SpecError: f.toml: lr: expected a number such as 0.3, -2, 1e-5 or "1/3", got "__import__('os')"
    >>> number(_FloatText("1e999999999"), "f.toml", "training.lr")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: f.toml: training.lr: 1e999999999 has an exponent beyond ±1000 (the digit limit);
        raise it with --max-digits
    """
    if isinstance(value, bool):
        raise SpecError(f"{file}: {key}: expected a number, got {show(value)}")
    if isinstance(value, Fraction):   # a float of a weights file, read as the binary rational it is
        n = max(_int_digits(value.numerator), _int_digits(value.denominator))
        if n > max_digits:
            raise _too_many(file, key, "the number", n, max_digits)
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int):
        n = _int_digits(value)
        if n > max_digits:
            raise _too_many(file, key, "the integer", n, max_digits)
        return sympy.Integer(value)
    if isinstance(value, _FloatText):  # TOML allows 0.000_01, inf and nan
        text = value.replace("_", "")
        if text.lstrip("+-") in ("inf", "nan"):
            raise SpecError(f"{file}: {key}: expected a finite number, got {text}")
        value = _FloatText(text)
    if isinstance(value, str):
        num, slash, den = value.strip().partition("/")
        if _DECIMAL.fullmatch(num) and (not slash or _DECIMAL.fullmatch(den)):
            r = _decimal(num, file, key, max_digits)
            if slash:
                q = _decimal(den, file, key, max_digits)
                if q == 0:
                    raise SpecError(f'{file}: {key}: expected a number, got "{clean(value)}" (division by zero)')
                r = r / q
            return sympy.Rational(r.numerator, r.denominator)
    raise SpecError(f'{file}: {key}: expected a number such as 0.3, -2, 1e-5 or "1/3", got {show(value)}')


def _read_toml(path: Path, max_digits: int) -> dict:
    """The TOML tree of the spec file, floats kept as their text."""
    try:
        text = read_text(path, "spec")
    except SpecError:
        raise
    except InputError as e:
        raise SpecError(str(e)) from None
    try:
        return tomllib.loads(text, parse_float=_FloatText)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{clean(str(path), None)}: not valid TOML: {clean(str(e), None)}") from None
    except RecursionError:
        raise SpecError(f"{clean(str(path), None)}: not valid TOML: arrays or tables nested too deeply") from None
    except ValueError as e:  # an integer literal beyond Python's str → int limit
        raise _huge_literal(path, text, max_digits, e) from None


def _huge_literal(path: Path, text: str, max_digits: int, error: ValueError) -> InputError:
    """The error for an integer literal too long for tomllib: found by parsing again
    with every long digit run replaced by a marker, so the message names its key."""
    limit = sys.get_int_max_str_digits() or 4300
    runs = [m for m in re.finditer(r"[0-9][0-9_]*", text) if len(m[0].replace("_", "")) > limit]
    path = clean(str(path), None)
    if not runs:
        return SpecError(f"{path}: not valid TOML: {clean(str(error), None)}")
    marker = 7355608 * 10 ** 12
    copy, at = [], 0
    for i, m in enumerate(runs):
        copy += [text[at:m.start()], str(marker + i)]
        at = m.end()
    try:
        tree = tomllib.loads("".join(copy) + text[at:], parse_float=_FloatText)
    except (ValueError, RecursionError):
        tree = {}
    found = [(abs(v) - marker, key) for key, v in _leaves(tree)
             if isinstance(v, int) and not isinstance(v, bool) and 0 <= abs(v) - marker < len(runs)]
    i, key = min(found) if found else (0, f"line {text.count(chr(10), 0, runs[0].start()) + 1}")
    n = len(runs[i][0].replace("_", ""))
    if n > max_digits:
        return _too_many(path, key, "the integer", n, max_digits)
    return SpecError(f"{path}: {key}: an integer literal of {n} digits is beyond Python's limit of {limit}; "
                     f'write it as a string, "123…"')


def _leaves(tree):
    """(key, value) of every non-table value of a TOML tree, keys written like ``weights.E[0,1]``.

    >>> list(_leaves({"weights": {"E": [[1, 2]]}, "layer": [{"b": [3]}]}))
    [('weights.E[0,0]', 1), ('weights.E[0,1]', 2), ('layer[0].b[0]', 3)]
    """
    stack = [("", (), tree)]
    while stack:
        prefix, idx, v = stack.pop()
        key = prefix + (f"[{','.join(map(str, idx))}]" if idx else "")
        if isinstance(v, dict):
            stack += [(f"{key}.{k}" if key else str(k), (), x) for k, x in reversed(v.items())]
        elif isinstance(v, list):
            stack += [(prefix, idx + (i,), x) for i, x in reversed(list(enumerate(v)))]
        else:
            yield clean(key, None), v


@dataclass(frozen=True)
class Sampling:
    temperatures: tuple  # Rationals, or sympy.oo for the T → ∞ limit
    top_k: int
    top_p: sympy.Rational
    uniform: sympy.Rational
    n_continue: int


@dataclass(frozen=True)
class AdamW:
    lr: sympy.Rational
    beta1: sympy.Rational
    beta2: sympy.Rational
    eps: sympy.Rational
    weight_decay: sympy.Rational


@dataclass(frozen=True)
class Training:
    lr: sympy.Rational
    steps: int
    report: tuple
    learnable_ln: bool
    adamw: AdamW
    clip: sympy.Rational | None
    warmup: int
    decay_steps: int
    min_lr: sympy.Rational
    decay_groups: bool
    all_positions: bool
    gradcheck_h: sympy.Rational
    gradcheck_params: tuple
    examples: tuple  # ((input ids), target id) pairs; the first is [data]


@dataclass(frozen=True)
class Extras:
    """The bigram document's production extras (§4): a mini-batch, a clipping threshold and a
    warm-up + cosine schedule of AdamW's learning rate.  Illustrations only: the spec's own
    training ([training]) does not use them."""
    batch: tuple  # ((input id,), target id) pairs; the first is [data] unless given
    clip: sympy.Rational
    warmup: int
    decay_steps: int
    min_lr: sympy.Rational


MAX_SCHEDULE = 40  # extras.decay_steps: the schedule is printed as a table, one row a step


@dataclass(frozen=True)
class Spec:
    """A validated derivation: sizes, tokens and exact weights."""
    path: Path
    name: str
    title: str
    kind: str  # "transformer" | "bigram"
    vocab: tuple
    d: int
    heads: int
    d_ff: int
    layers: int
    tied: bool
    pe_base: sympy.Rational
    ln_eps: sympy.Rational
    input: tuple  # token ids
    target: int
    params: dict  # name -> list of rows (matrix) or list (vector) of Rationals
    sampling: Sampling
    training: Training
    raw: dict = field(repr=False, default_factory=dict)
    titles: dict = field(default_factory=dict)  # the title per language: {"zh": …, "en": …}
    extras: Extras | None = None  # a bigram's [extras], with defaults when the table is absent
    activation: str = "relu"  # the FFN's activation (symgpt.engine.arch.ACTIVATIONS)
    norm: str = "post"        # where the norms stand (symgpt.engine.arch.PLACEMENTS)
    positions: str = "sinusoidal"  # the position encoding (symgpt.engine.arch.POSITIONS)
    n_ctx: int = 0                 # the positions a model can see (a learned table's rows; default T)
    bias: bool | None = None       # model.bias: None the FFN's biases only, True every projection's, False none
    norm_kind: str = "layernorm"   # the norms' op (symgpt.engine.arch.NORMS)
    rope_theta: sympy.Rational = sympy.Integer(10000)   # RoPE's base (model.positions = "rope")
    kv_heads: int = 0              # heads of K and V (grouped-query attention; 0: as many as the query heads)
    checkpoint: str = ""           # weights.names: the checkpoint whose tensor names it has (symgpt.engine.layouts)

    @property
    def V(self) -> int:
        return len(self.vocab)

    @property
    def T(self) -> int:
        return len(self.input)

    def layer_prefix(self, l: int) -> str:
        """Names inside block l: bare for one layer, ``l0.`` … for several."""
        return "" if self.layers == 1 else f"l{l}."


def _join(prefix: str, key) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def _did_you_mean(word: str, options) -> str:
    """``; did you mean X?`` for a near miss (any case), else the list of what is allowed.

    >>> _did_you_mean("ln_esp", KEYS["model"]), _did_you_mean("w", ["E", "W"])
    ('; did you mean ln_eps?', '; did you mean W?')
    """
    options = list(options)
    near = nearest(word, options)
    if near is not None:
        return f"; did you mean {near}?"
    return f"; expected one of {_listing(options)}"


def _listing(items, n: int = 12) -> str:
    """At most n items, cleaned, then how many there are."""
    items = list(items)
    shown = ", ".join(clean(str(x), 20) for x in items[:n])
    return shown + (f", … ({len(items)} in all)" if len(items) > n else "")


def _shape(v) -> str:
    if not isinstance(v, list):
        return show(v)
    if v and all(isinstance(r, list) for r in v):
        widths = sorted({len(r) for r in v})
        return f"{len(v)}×{'/'.join(map(str, widths[:6]))}"
    return f"a list of {len(v)}"


def _mismatch(v, cols: int) -> str:
    """What a matrix that is not rows × cols is: its shape when its rows agree, else the first row that does
    not have ``cols`` numbers.

    >>> _mismatch([[1, 2], [3]], 2), _mismatch([[1, 2, 3], [4, 5, 6]], 2)
    ('2 rows whose row 1 has 1 number, not 2 (rows count from 0)', '2×3')
    """
    if not isinstance(v, list) or not v or any(not isinstance(r, list) for r in v) or len({len(r) for r in v}) == 1:
        return _shape(v)
    i, r = next((i, r) for i, r in enumerate(v) if len(r) != cols)   # rows disagree: one is not cols long
    return (f"{len(v)} rows whose row {i} has {len(r)} number{'' if len(r) == 1 else 's'}, not {cols} "
            "(rows count from 0)")


class _Reader:
    """Walks the TOML tree, keeping the file name and the limits for every error."""

    def __init__(self, path: Path, limits: Limits):
        self.file, self.path, self.limits = clean(str(path), None), Path(path), limits
        self.from_file: list = []  # (layer, key) of each [[layer]] tensor a weights file put in

    def fail(self, key: str, what: str) -> SpecError:
        return SpecError(f"{self.file}: {key}: {what}")

    def keys(self, table: dict, where: str, kind: str | None = None, tied: bool = False):
        """Refuse a key not in KEYS (with a suggestion), or, once ``kind`` is known, one
        of the other kind (and ``weights.W_out`` of a tied model), saying why."""
        name = re.sub(r"\[\d+\]$", "[]", where)
        allowed = KEYS[name]
        for k in table:
            full, generic = _join(where, k), _join(name, k)
            if k not in allowed:
                mine = [a for a in allowed if kind is None or ONLY.get(_join(name, a), kind) == kind]
                bare = re.fullmatch(r"[A-Za-z0-9_-]{1,40}", k)
                raise self.fail(_join(where, k if bare else show(k)), "unknown key" + _did_you_mean(k, mine))
            if kind is not None and ONLY.get(generic, kind) != kind:
                raise self.fail(full, f'only a {ONLY[generic]} has this key, and model.kind is "{kind}"')
            if generic == "weights.W_out" and tied:
                raise self.fail(full, "model.tied is true, so the LM head is Eᵀ; "
                                      "set model.tied = false to give W_out")

    def get(self, table: dict, key: str, where: str, default=...):
        if key in table:
            return table[key]
        if default is ...:
            raise self.fail(_join(where, key), "missing (required)")
        return default

    def table(self, table, key, where, required=True) -> dict:
        t = self.get(table, key, where, ... if required else {})
        if not isinstance(t, dict):
            raise self.fail(_join(where, key), f"expected a table, got {show(t)}")
        return t

    def integer(self, table, key, where, default=..., low=1) -> int:
        v = self.get(table, key, where, default)
        return self.whole(v, _join(where, key), low)

    def whole(self, v, key, low=1, high=None) -> int:
        """An integer in [low, high], its size checked before it is compared."""
        want = f"an integer ≥ {low}" if high is None else f"an integer in {low}..{high}"
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(key, f"expected {want}, got {show(v)}")
        number(v, self.file, key, self.limits.max_digits)  # the digit limit
        if v < low or (high is not None and v > high):
            raise self.fail(key, f"expected {want}, got {show(v)}")
        return v

    def num(self, table, key, where, default=..., low=None, strict=False):
        v = self.get(table, key, where, default)
        q = number(v, self.file, _join(where, key), self.limits.max_digits)
        if low is not None and (q < low or (strict and q == low)):
            op = ">" if strict else "≥"
            raise self.fail(_join(where, key), f"expected a number {op} {low}, got {show(v)}")
        return q

    def boolean(self, table, key, where, default=...) -> bool:
        v = self.get(table, key, where, default)
        if not isinstance(v, bool):
            raise self.fail(_join(where, key), f"expected true or false, got {show(v)}")
        return v

    def string(self, table, key, default) -> str:
        v = table.get(key, default)
        if not isinstance(v, str):
            raise self.fail(key, f"expected a string, got {show(v)}")
        return v

    def choice(self, table, key, where, known, default) -> str:
        """One of the names ``known`` (a string), or ``default`` when the key is absent."""
        v = self.get(table, key, where, default)
        if not isinstance(v, str) or v not in known:
            raise self.fail(_join(where, key), f"expected one of {', '.join(map(repr, known))}, got {show(v)}")
        return v

    def token(self, ids: dict, tok, key) -> int:
        if not isinstance(tok, str):
            raise self.fail(key, f"expected a token of the vocabulary ({_listing(ids)}), got {show(tok)}")
        if tok not in ids:
            raise self.fail(key, f"unknown token {show(tok)}; the vocabulary is {_listing(ids)}")
        return ids[tok]

    def tokens(self, ids: dict, v, key, length=None) -> tuple:
        """A non-empty list of tokens (of ``length`` tokens when given) as ids."""
        if not isinstance(v, list) or not v:
            raise self.fail(key, f"expected a non-empty list of tokens, got {show(v)}")
        if length is not None and len(v) != length:
            raise self.fail(key, f"expected {length} tokens like data.input, got {len(v)}")
        return tuple(self.token(ids, t, f"{key}[{i}]") for i, t in enumerate(v))

    def tensor(self, table, key, where, shape):
        """A vector (len n) or matrix (rows × cols) of exact numbers."""
        v = self.get(table, key, where)
        name = _join(where, key)
        digits = self.limits.max_digits
        if len(shape) == 1:
            if not isinstance(v, list) or len(v) != shape[0] or any(isinstance(x, list) for x in v):
                raise self.fail(name, f"expected a vector of {shape[0]} numbers, got {_shape(v)}")
            return [number(x, self.file, f"{name}[{i}]", digits) for i, x in enumerate(v)]
        if (not isinstance(v, list) or len(v) != shape[0]
                or any(not isinstance(r, list) or len(r) != shape[1] for r in v)):
            raise self.fail(name, f"expected a {shape[0]}×{shape[1]} matrix, got {_mismatch(v, shape[1])}")
        return [[number(x, self.file, f"{name}[{i},{j}]", digits) for j, x in enumerate(r)]
                for i, r in enumerate(v)]

    def param_ref(self, text, key, params: dict, vocab: dict) -> str:
        """A parameter entry such as ``W[0,2]``, ``E[吃,1]`` or ``l1.W_1[0,3]`` of this spec."""
        want = "expected a parameter entry such as W[0,2]"
        if not isinstance(text, str):
            raise self.fail(key, f"{want}, got {show(text)}")
        try:
            group, idx = split(text)
        except RefError:
            raise self.fail(key, f"{want}, got {show(text)}") from None
        if group not in params:
            raise self.fail(key, f"unknown parameter {show(group)}" + _did_you_mean(group, params))
        values = params[group]
        shape = (len(values), len(values[0])) if isinstance(values[0], list) else (len(values),)
        if len(idx) != len(shape):
            raise self.fail(key, f"{group} takes {len(shape)} indices, got {len(idx)} in {show(text)}")
        for axis, (x, n) in enumerate(zip(idx, shape)):
            token_ok = _VOCAB_AXIS.get(group.rsplit(".", 1)[-1]) == axis and x in vocab
            if not (x.isascii() and x.isdigit() and len(x) < 20 and int(x) < n) and not token_ok:
                also = " or a token" if _VOCAB_AXIS.get(group.rsplit(".", 1)[-1]) == axis else ""
                raise self.fail(key, f"index {show(x)} of {group} out of range; expected 0..{n - 1}{also}")
        return text


def load_spec(path, limits: Limits | None = None) -> Spec:
    """Read and validate the spec at ``path``.

    >>> s = load_spec("derivations/bigram.toml")
    >>> s.kind, s.vocab, s.params["E"][1]
    ('bigram', ('猫', '吃', '鱼'), [3/10, -1/10])
    """
    path = Path(path)
    limits = limits or Limits()
    raw = _read_toml(path, limits.max_digits)
    r = _Reader(path, limits)
    r.keys(raw, "")
    m = r.table(raw, "model", "")
    r.keys(m, "model")
    kind = r.get(m, "kind", "model")
    if kind not in ("transformer", "bigram"):
        raise r.fail("model.kind", f'expected "transformer" or "bigram", got {show(kind)}')
    r.keys(raw, "", kind)
    r.keys(m, "model", kind)
    vocab, ids = _vocab(r, r.get(m, "vocab", "model"))
    V = len(vocab)
    d = r.integer(m, "d", "model")
    is_tf = kind == "transformer"
    heads = r.integer(m, "heads", "model") if is_tf else 1
    if d % heads:
        raise r.fail("model.heads", f"expected a divisor of d = {d}, got {heads}")
    kv_heads = r.integer(m, "kv_heads", "model", heads) if is_tf else 1
    if heads % kv_heads:
        raise r.fail("model.kv_heads", f"expected a divisor of heads = {heads} (each K, V head serves as many query "
                                       f"heads), got {kv_heads}")
    d_ff = r.integer(m, "d_ff", "model") if is_tf else 0
    layers = r.integer(m, "layers", "model") if is_tf else 0
    tied = r.boolean(m, "tied", "model", True) if is_tf else False
    pe_base = r.num(m, "pe_base", "model", 10000, low=0, strict=True) if is_tf else sympy.Integer(10000)
    ln_eps = r.num(m, "ln_eps", "model", low=0) if is_tf else sympy.Integer(0)
    preset = PRESETS[r.choice(m, "arch", "model", tuple(PRESETS), "seed") if is_tf else "seed"]
    activation = r.choice(m, "activation", "model", tuple(ACTIVATIONS), preset["activation"]) if is_tf else "relu"
    norm = r.choice(m, "norm", "model", PLACEMENTS, preset["norm"]) if is_tf else "post"
    positions = r.choice(m, "positions", "model", tuple(POSITIONS), preset["positions"]) if is_tf else "sinusoidal"
    bias = (r.boolean(m, "bias", "model") if "bias" in m else preset["bias"]) if is_tf else None
    rope_theta = r.num(m, "rope_theta", "model", 10000, low=1, strict=True) if is_tf else sympy.Integer(10000)
    if "rope_theta" in m and positions != "rope":
        raise r.fail("model.rope_theta", 'a rotary base needs model.positions = "rope"')
    if positions == "rope" and (d // heads) % 2:
        raise r.fail("model.positions", f"rotary positions pair a head's columns: d/heads = {d // heads} must be even")
    norm_kind = r.choice(m, "norm_kind", "model", tuple(NORMS), preset["norm_kind"]) if is_tf else "layernorm"
    _refused(r, Arch(kind=kind, V=V, d=d, heads=heads, d_ff=d_ff, layers=min(layers, 1), tied=tied,
                     pe_base=pe_base, ln_eps=ln_eps, activation=activation, norm=norm, norm_kind=norm_kind))

    data = r.table(raw, "data", "")
    r.keys(data, "data", kind)
    inp = r.tokens(ids, r.get(data, "input", "data"), "data.input")
    target = r.token(ids, r.get(data, "target", "data"), "data.target")

    w = r.table(raw, "weights", "")
    r.keys(w, "weights", kind, tied)
    names = w.get("names", "")
    if names not in ("",) + layouts.FAMILIES:
        raise r.fail("weights.names", f"expected the checkpoint whose tensor names the weights have "
                                      f"({', '.join(layouts.FAMILIES)}), got {show(names)}")
    w = {k: v for k, v in w.items() if k != "names"}
    if "file" in w:
        w = _weights_file(r, raw, w, kind, tied, layers)
    if "n_ctx" in m and positions != "learned":
        raise r.fail("model.n_ctx", 'a table of positions needs model.positions = "learned"')
    n_ctx = r.integer(m, "n_ctx", "model", len(inp)) if is_tf else len(inp)
    if n_ctx < len(inp):
        raise r.fail("model.n_ctx", f"expected at least the input's {len(inp)} positions, got {n_ctx}")
    sizes = {"V": V, "d": d, "d_ff": d_ff, "n_ctx": n_ctx, "d_kv": d // heads * kv_heads}
    params = {"E": r.tensor(w, "E", "weights", param_shape(NAMES["E"], sizes))}
    if is_tf:
        if not tied:
            params["W_out"] = r.tensor(w, "W_out", "weights", param_shape(NAMES["W_out"], sizes))
        params.update(_blocks(r, raw, kind, layers, sizes, bias, norm_kind, activation in GATED))
        if positions == "learned":
            params["W_pe"] = r.tensor(w, "W_pe", "weights", param_shape(NAMES["W_pe"], sizes))
        elif "W_pe" in w:
            raise r.fail("weights.W_pe", 'learned positions need model.positions = "learned"')
        if norm == "pre":
            _no_shift(r, w, "weights", norm_kind, ("beta_f",), bias)
            params.update(_optional(r, w, "weights", ("gamma_f", "beta_f")[:len(_roles(norm_kind, bias))], sizes))
        else:
            for key in ("gamma_f", "beta_f"):
                if key in w:
                    raise r.fail(f"weights.{key}", 'a final norm is only in a pre-norm model (model.norm = "pre")')
    else:
        params["W"] = r.tensor(w, "W", "weights", param_shape(NAMES["W"], sizes))

    sampling = _sampling(r, r.table(raw, "sampling", "", required=False), kind, V)
    training = _training(r, r.table(raw, "training", "", required=False), kind, ids, inp, target,
                         params, is_tf)
    extras = None if is_tf else _extras(r, r.table(raw, "extras", "", required=False), kind, ids, inp, target,
                                        training)
    titles = _titles(r, raw, path.stem)
    r.string(raw, "source", "")
    for layer, key in r.from_file:   # read into params: the raw tree need not hold a second copy of every weight
        raw["layer"][layer][key] = FROM_FILE
    name = path.name.removesuffix(".toml")
    spec = Spec(path, name, titles["zh"], kind, vocab, d, heads, d_ff, layers, tied, pe_base, ln_eps,
                inp, target, params, sampling, training, raw, titles, extras, activation, norm, positions, n_ctx,
                bias, norm_kind, rope_theta, kv_heads, names)
    if names:
        try:
            layouts.layout(spec, names)
        except ValueError as e:
            raise r.fail("weights.names", str(e)) from None
    return spec


def _titles(r: _Reader, raw: dict, stem: str) -> dict:
    """The title per language from ``title`` (a string, or a table ``zh``/``en``) and ``title_en``.

    A language without its own title takes the other's; with neither, the file's stem.

    >>> r = _Reader(Path("f.toml"), Limits())
    >>> _titles(r, {"title": "我爱你", "title_en": "I love you"}, "f")
    {'zh': '我爱你', 'en': 'I love you'}
    >>> _titles(r, {"title": {"en": "Hello"}}, "f"), _titles(r, {}, "f")
    ({'zh': 'Hello', 'en': 'Hello'}, {'zh': 'f', 'en': 'f'})
    >>> _titles(r, {"title": {"en": "a"}, "title_en": "b"}, "f")
    Traceback (most recent call last):
    ...
    symgpt.engine.spec.SpecError: f.toml: title_en: give the English title once: title.en or title_en, not both
    """
    t = raw.get("title", {})
    if isinstance(t, dict):
        r.keys(t, "title")
        titles = {lang: t[lang] for lang in ("zh", "en") if lang in t}
        for lang, v in titles.items():
            if not isinstance(v, str):
                raise r.fail(f"title.{lang}", f"expected a string, got {show(v)}")
    else:
        titles = {"zh": r.string(raw, "title", stem)}
    if "title_en" in raw:
        if "en" in titles:
            raise r.fail("title_en", "give the English title once: title.en or title_en, not both")
        titles["en"] = r.string(raw, "title_en", stem)
    first = titles.get("zh", titles.get("en", stem))
    return {"zh": titles.get("zh", first), "en": titles.get("en", first)}


def _vocab(r: _Reader, vocab) -> tuple:
    """The vocabulary and its token → id map; at least two tokens, each a distinct non-empty string."""
    if not isinstance(vocab, list) or not vocab:
        raise r.fail("model.vocab", f"expected a non-empty list of non-empty token strings, got {show(vocab)}")
    if len(vocab) == 1:
        raise r.fail("model.vocab", f"expected at least 2 tokens, got only {show(vocab[0])}: with one, p = softmax(z) "
                                    f"is 1 and the loss 0 whatever the weights, so there is nothing to predict")
    ids: dict = {}
    for i, t in enumerate(vocab):
        if not isinstance(t, str) or not t:
            raise r.fail(f"model.vocab[{i}]", f"expected a non-empty token string, got {show(t)}")
        if t in ids:
            raise r.fail("model.vocab", f"token {show(t)} appears twice (ids {ids[t]} and {i})")
        ids[t] = i
    return tuple(vocab), ids


def _refused(r: _Reader, arch: Arch) -> None:
    """What an op of the model refuses of its sizes (a norm of rows of one entry with ε = 0), one block's
    applications standing for every block's."""
    for a in arch.plan(1):
        why = facet(a.op, "refused")(a)
        if why is not None:
            raise r.fail(*why)


ATTENTION_BIASES = ("b_Q", "b_K", "b_V", "b_O")
FFN_BIASES = ("b_1", "b_2")


def _roles(norm_kind: str, bias=None) -> tuple:
    """The parameters of one norm by role: (gamma, beta) for LayerNorm, (gamma,) for RMSNorm or without biases."""
    return Arch("transformer", 1, 1, norm_kind=norm_kind, bias=bias).norm_roles()


def _no_shift(r: _Reader, table: dict, where: str, norm_kind: str, keys, bias=None) -> None:
    """A norm without a shift (RMSNorm; any norm of a model without biases) refuses its β keys."""
    if "beta" not in _roles(norm_kind, bias):
        why = "model.bias = false: the norms have no shift β either" if bias is False else \
            f'model.norm_kind = "{norm_kind}" has no shift β'
        for key in keys:
            if key in table:
                raise r.fail(f"{where}.{key}", f"{why}; leave it out")


def _blocks(r: _Reader, raw, kind, layers, sizes: dict, bias: bool | None = None, norm_kind="layernorm",
            gated: bool = False) -> dict:
    """The parameters of every [[layer]], named ``W_Q`` … (one layer) or ``l0.W_Q`` …, in the order of
    :data:`KEYS`; each one's shape, and whether a spec may leave it out, are its op's (:data:`symgpt.ops.NAMES`)."""
    blocks = r.get(raw, "layer", "")
    if not isinstance(blocks, list) or len(blocks) != layers:
        got = f"{len(blocks)}" if isinstance(blocks, list) else show(blocks)
        raise r.fail("layer", f"expected {layers} [[layer]] tables (model.layers), got {got}")
    params = {}
    for l, b in enumerate(blocks):
        where = f"layer[{l}]"
        if not isinstance(b, dict):
            raise r.fail(where, f"expected a [[layer]] table, got {show(b)}")
        r.keys(b, where, kind)
        pre = "" if layers == 1 else f"l{l}."
        _biases(r, b, where, bias)
        _no_shift(r, b, where, norm_kind, ("beta1", "beta2"), bias)
        keys = [k for k in KEYS["layer[]"] if bias or k not in ATTENTION_BIASES]
        keys = [k for k in keys if "beta" in _roles(norm_kind, bias) or not k.startswith("beta")]
        for key in ("W_3", "b_3"):   # the up projection of a gated MLP
            if not gated and key in b:
                raise r.fail(f"{where}.{key}", 'an up projection belongs to a gated MLP (model.activation = "swiglu")')
            if gated and (key == "W_3" or bias is not False) and key not in b:
                raise r.fail(f"{where}.{key}", 'missing (required): model.activation = "swiglu" has an up projection')
        if bias is False and "b_3" in b:
            raise r.fail(f"{where}.b_3", "model.bias = false: the model has no biases; leave it out")
        keys = [k for k in keys if (gated and (k != "b_3" or bias is not False)) or k not in ("W_3", "b_3")]
        keys = [k for k in keys if bias is not False or k not in FFN_BIASES]
        params.update({pre + k: v for k, v in _optional(r, b, where, keys, sizes).items()})
    return params


def _biases(r: _Reader, b: dict, where: str, bias: bool | None) -> None:
    """The biases a [[layer]] must or must not give under ``model.bias``: none (false); every projection's, W_O's
    with W_O (true); the FFN's only (left out, the seed's)."""
    for key in ATTENTION_BIASES + FFN_BIASES:
        if bias is False and key in b:
            raise r.fail(f"{where}.{key}", "model.bias = false: the model has no biases; leave it out")
        if bias is None and key in ATTENTION_BIASES and key in b:
            raise r.fail(f"{where}.{key}", "biases on the attention projections need model.bias = true")
        needed = key != "b_O" or "W_O" in b
        if bias and needed and key not in b:
            raise r.fail(f"{where}.{key}", "missing (required): model.bias = true gives every projection a bias")
        if key == "b_O" and key in b and "W_O" not in b:
            raise r.fail(f"{where}.b_O", "an output bias needs the output projection W_O")


FROM_FILE = "(weights.file)"
"""What ``spec.raw`` holds in place of a [[layer]] tensor read from the weights file (its values are in ``params``)."""


def _weights_file(r: _Reader, raw: dict, w: dict, kind: str, tied: bool, layers: int) -> dict:
    """The [weights] table with the tensors of ``weights.file`` (a safetensors file beside the spec) put in, by the
    spec's own names: ``E``, ``W_pe`` … go to [weights], ``W_Q`` (one layer) or ``l0.W_Q`` … to the [[layer]]s,
    which the spec may then leave out.  Each float is the exact binary rational it is.  A name the spec does not
    have, or a tensor given twice, is an error naming the file and the tensor."""
    name = w["file"]
    if not isinstance(name, str) or not name or "\x00" in name:
        raise r.fail("weights.file", f"expected the name of a .safetensors file beside the spec, got {show(name)}")
    path = r.path.parent / name
    try:
        tensors = tensorfile.read(path)
    except InputError as e:
        raise r.fail("weights.file", str(e)) from None
    w = {k: v for k, v in w.items() if k != "file"}
    blocks = r.get(raw, "layer", "", None)
    if blocks is None and layers:
        blocks = raw["layer"] = [{} for _ in range(layers)]
    if layers and (not isinstance(blocks, list) or len(blocks) != layers):
        got = f"{len(blocks)}" if isinstance(blocks, list) else show(blocks)
        raise r.fail("layer", f"expected {layers} [[layer]] tables (model.layers), or none with a weights file, "
                              f"got {got}")
    for key, a in tensors.items():
        group, _, base = key.rpartition(".")
        if not group and key in KEYS["weights"] and key != "file":
            table, where = w, "weights"
        else:
            layer = 0 if not group and layers == 1 else int(group[1:]) if re.fullmatch(r"l\d{1,6}", group) else None
            if layer is None or layer >= layers or base not in KEYS["layer[]"] or not isinstance(blocks, list) \
                    or not isinstance(blocks[layer], dict):
                raise r.fail("weights.file", f"{path}: tensor {key!r} is no parameter of this spec (names are the "
                                             f"spec's: E, W_pe, W_Q for one layer, l0.W_Q … for several)")
            table, where, key = blocks[layer], f"layer[{layer}]", base
            r.from_file.append((layer, key))
        if key in table:
            raise r.fail(f"{where}.{key}", f"given twice: in the spec and in {path}")
        try:
            table[key] = tensorfile.exact(a)
        except ValueError as e:
            raise r.fail("weights.file", f"{path}: tensor {key!r}: {e}; weights must be finite") from None
    r.keys(w, "weights", kind, tied)
    return w


def _optional(r: _Reader, table: dict, where: str, keys, sizes: dict) -> dict:
    """The parameters ``keys`` of a table, each one's shape from its op (:data:`symgpt.ops.NAMES`); one the op
    lets a spec leave out is its default (γ = 1, β = 0) or absent."""
    params = {}
    for key in keys:
        n = NAMES[key]
        if key in table or (n.fill is None and not n.optional):
            params[key] = r.tensor(table, key, where, param_shape(n, sizes))
        elif n.fill is not None:      # left out: every entry is the op's default (γ = 1, β = 0)
            params[key] = _filled(param_shape(n, sizes), sympy.Integer(n.fill))
    return params


def _filled(shape: tuple, value) -> list:
    """A vector or a matrix of ``shape`` whose every entry is ``value``.

    >>> _filled((2,), 1), _filled((1, 2), 0)
    ([1, 1], [[0, 0]])
    """
    return [value] * shape[0] if len(shape) == 1 else [[value] * shape[1] for _ in range(shape[0])]


def _sampling(r: _Reader, s: dict, kind, V: int) -> Sampling:
    r.keys(s, "sampling", kind)
    temps = r.get(s, "temperatures", "sampling", ["0.5", "1", "2", "inf"])
    if not isinstance(temps, list) or not temps:
        raise r.fail("sampling.temperatures",
                     f'expected a list of temperatures such as [0.5, 1, "inf"], got {show(temps)}')
    temps = tuple(_temperature(r, t, f"sampling.temperatures[{i}]") for i, t in enumerate(temps))
    top_k = r.integer(s, "top_k", "sampling", min(3, V))
    if top_k > V:
        raise r.fail("sampling.top_k", f"expected at most V = {V}, got {top_k}")
    top_p = r.num(s, "top_p", "sampling", "0.9", low=0, strict=True)
    if top_p > 1:
        raise r.fail("sampling.top_p", f"expected a number in (0, 1], got {show(s['top_p'])}")
    u = r.num(s, "uniform", "sampling", "0.5", low=0)
    if u >= 1:
        raise r.fail("sampling.uniform", f"expected a number in [0, 1), got {show(s['uniform'])}")
    return Sampling(temps, top_k, top_p, u, r.integer(s, "continue", "sampling", 3, low=0))


def _temperature(r: _Reader, t, key):
    """A temperature > 0, or ``"inf"`` (also TOML's inf) for the T → ∞ limit."""
    if isinstance(t, str) and t.strip() in ("inf", "+inf", "∞"):
        return sympy.oo
    if isinstance(t, _FloatText) and t.lstrip("+-") in ("inf", "nan"):  # -inf, nan
        raise r.fail(key, f'expected a number > 0 or "inf", got {show(t)}')
    q = number(t, r.file, key, r.limits.max_digits)
    if q <= 0:
        raise r.fail(key, f'expected a number > 0 or "inf", got {show(t)}')
    return q


def _training(r: _Reader, tr: dict, kind, ids, inp, target, params, is_tf) -> Training:
    r.keys(tr, "training", kind)
    a = r.table(tr, "adamw", "training", required=False)
    r.keys(a, "training.adamw", kind)
    adamw = AdamW(*(r.num(a, key, "training.adamw", default, low=0) for key, default in
                    (("lr", "1e-3"), ("beta1", "0.9"), ("beta2", "0.999"), ("eps", "1e-8"),
                     ("weight_decay", "0.1"))))
    for key in ("beta1", "beta2"):
        if getattr(adamw, key) >= 1:
            raise r.fail(f"training.adamw.{key}", f"expected a number in [0, 1), got {show(a[key])}")
    gc = r.table(tr, "gradcheck", "training", required=False)
    r.keys(gc, "training.gradcheck", kind)
    gc_params = r.get(gc, "params", "training.gradcheck", [])
    if not isinstance(gc_params, list):
        raise r.fail("training.gradcheck.params",
                     f'expected a list of parameter entries such as ["W[0,2]"], got {show(gc_params)}')
    gc_params = tuple(r.param_ref(x, f"training.gradcheck.params[{i}]", params, ids)
                      for i, x in enumerate(gc_params))
    clip = r.get(tr, "clip", "training", None)
    steps = r.integer(tr, "steps", "training", 1)
    training = Training(
        lr=r.num(tr, "lr", "training", "0.1", low=0),
        steps=steps,
        report=_report(r, r.get(tr, "report", "training", [1]), steps),
        learnable_ln=r.boolean(tr, "learnable_ln", "training", False),
        adamw=adamw,
        clip=None if clip is None else r.num(tr, "clip", "training", low=0, strict=True),
        warmup=r.integer(tr, "warmup", "training", 0, low=0),
        decay_steps=r.integer(tr, "decay_steps", "training", 0, low=0),
        min_lr=r.num(tr, "min_lr", "training", 0, low=0),
        decay_groups=r.boolean(tr, "decay_groups", "training", False),
        all_positions=r.boolean(tr, "all_positions", "training", False),
        gradcheck_h=r.num(gc, "h", "training.gradcheck", "1e-5", low=0, strict=True),
        gradcheck_params=gc_params,
        examples=((inp, target),) + _examples(r, r.get(tr, "examples", "training", []), kind, ids,
                                              len(inp) if is_tf else None),
    )
    if training.decay_steps and training.decay_steps <= training.warmup:
        raise r.fail("training.decay_steps", f"expected more than warmup = {training.warmup} "
                                             f"(or 0 for no decay), got {training.decay_steps}")
    return training


def _report(r: _Reader, report, steps: int) -> tuple:
    if not isinstance(report, list):
        raise r.fail("training.report", f"expected a list of step numbers such as [1, 2, 5], got {show(report)}")
    return tuple(r.whole(k, f"training.report[{i}]", 0, steps) for i, k in enumerate(report))


def _examples(r: _Reader, examples, kind, ids, length) -> tuple:
    """The extra ``{input, target}`` examples as (input ids, target id) pairs."""
    if not isinstance(examples, list):
        raise r.fail("training.examples", f"expected a list of {{input, target}} tables, got {show(examples)}")
    out = []
    for i, ex in enumerate(examples):
        key = f"training.examples[{i}]"
        if not isinstance(ex, dict):
            raise r.fail(key, f"expected an {{input, target}} table, got {show(ex)}")
        r.keys(ex, key, kind)
        out.append((r.tokens(ids, r.get(ex, "input", key), f"{key}.input", length),
                    r.token(ids, r.get(ex, "target", key), f"{key}.target")))
    return tuple(out)


def _extras(r: _Reader, ex: dict, kind, ids, inp, target, training: Training) -> Extras:
    """A bigram's ``[extras]``.  Defaults: the batch is [data] and a second example whose
    target is [data]'s input and whose input is the first other token of the vocabulary
    (猫 → 吃 for the seed), clip 1, warm-up 2 steps, cosine decay to step 10, min_lr a tenth
    of AdamW's lr.

    >>> s = load_spec("derivations/bigram.toml")
    >>> s.extras.batch, s.extras.clip, s.extras.warmup, s.extras.decay_steps
    ((((1,), 2), ((0,), 1)), 1, 2, 10)
    """
    r.keys(ex, "extras", kind)
    x = inp[-1]
    other = [t for t, i in ids.items() if i != x][:1]
    default = [[_name(ids, x), _name(ids, target)]] + [[t, _name(ids, x)] for t in other]
    batch = r.get(ex, "batch", "extras", default)
    if not isinstance(batch, list) or not 1 <= len(batch) <= 6:
        raise r.fail("extras.batch", f'expected a list of 1 to 6 [input, target] pairs such as '
                                     f'[["吃", "鱼"], ["猫", "吃"]], got {show(batch)}')
    pairs = []
    for i, pair in enumerate(batch):
        key = f"extras.batch[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise r.fail(key, f"expected an [input, target] pair of tokens, got {show(pair)}")
        pairs.append(((r.token(ids, pair[0], f"{key}[0]"),), r.token(ids, pair[1], f"{key}[1]")))
    warmup = r.integer(ex, "warmup", "extras", 2, low=0)
    decay = r.integer(ex, "decay_steps", "extras", max(10, warmup + 1), low=1)
    if decay <= warmup or decay > MAX_SCHEDULE:
        raise r.fail("extras.decay_steps", f"expected an integer in {warmup + 1}..{MAX_SCHEDULE} (more than "
                                           f"extras.warmup = {warmup}), got {decay}")
    return Extras(tuple(pairs), r.num(ex, "clip", "extras", 1, low=0, strict=True), warmup, decay,
                  r.num(ex, "min_lr", "extras", str(training.adamw.lr / 10), low=0))


def _name(ids: dict, i: int) -> str:
    return next(t for t, j in ids.items() if j == i)
