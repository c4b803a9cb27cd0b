"""Read and validate a derivation spec (TOML) into exact numbers.

Every number is read from its decimal text: ``0.3`` is ``3/10``, ``1e-5`` is
``1/100000``, the string ``"1/3"`` is ``1/3``.  Nothing goes through ``float``,
``eval`` or ``sympify``.  Bad input raises one :class:`SpecError` that names
the file, the key and what was expected.

>>> from symgpt.spec import number
>>> number("0.3", "f.toml", "lr")
3/10
>>> number("1e-5", "f.toml", "ln_eps")
1/100000
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import sympy

from .errors import InputError
from .limits import Limits

_DECIMAL = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"
_NUMBER = re.compile(rf"{_DECIMAL}(/{_DECIMAL})?")


class SpecError(InputError):
    """Bad input: one message naming the file, the key and the expectation."""


class _FloatText(str):
    """A TOML float kept as its text, so it can become an exact Rational."""


def number(value, file, key) -> sympy.Rational:
    """An exact Rational from a TOML value's text; never through float.

    >>> number(7, "f.toml", "d")
    7
    >>> number("__import__('os')", "f.toml", "lr")
    Traceback (most recent call last):
    ...
    symgpt.spec.SpecError: f.toml: lr: expected a number such as 0.3, -2, 1e-5 or "1/3", got "__import__('os')"
    """
    if isinstance(value, bool):
        raise SpecError(f"{file}: {key}: expected a number, got {str(value).lower()}")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, _FloatText):  # TOML allows 0.000_01
        value = _FloatText(value.replace("_", ""))
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip()
        num, _, den = text.partition("/")
        try:
            q = Fraction(num) / Fraction(den or 1)
        except ZeroDivisionError:
            raise SpecError(f'{file}: {key}: expected a number, got "{text}" (division by zero)') from None
        return sympy.Rational(q.numerator, q.denominator)
    shown = value if isinstance(value, str) else type(value).__name__
    raise SpecError(
        f'{file}: {key}: expected a number such as 0.3, -2, 1e-5 or "1/3", got "{shown}"')


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f, parse_float=_FloatText)
    except FileNotFoundError:
        raise SpecError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise SpecError(f"{path}: not valid TOML: the file is not UTF-8") from None


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

    @property
    def V(self) -> int:
        return len(self.vocab)

    @property
    def T(self) -> int:
        return len(self.input)

    def layer_prefix(self, l: int) -> str:
        """Names inside block l: bare for one layer, ``l0.`` … for several."""
        return "" if self.layers == 1 else f"l{l}."


class _Reader:
    """Walks the TOML tree, keeping the file name for every error."""

    def __init__(self, path: Path, raw: dict):
        self.file, self.raw = path, raw

    def get(self, table: dict, key: str, where: str, default=...):
        if key in table:
            return table[key]
        if default is ...:
            raise SpecError(f"{self.file}: {where}{key}: missing (required)")
        return default

    def table(self, table, key, where, required=True) -> dict:
        t = self.get(table, key, where, ... if required else {})
        if not isinstance(t, dict):
            raise SpecError(f"{self.file}: {where}{key}: expected a table")
        return t

    def integer(self, table, key, where, default=..., low=1) -> int:
        v = self.get(table, key, where, default)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise SpecError(f"{self.file}: {where}{key}: expected an integer ≥ {low}, got {v!r}")
        return v

    def num(self, table, key, where, default=..., low=None, strict=False):
        v = self.get(table, key, where, default)
        if isinstance(v, sympy.Basic):
            return v
        q = number(v, self.file, where + key)
        if low is not None and (q < low or (strict and q == low)):
            op = ">" if strict else "≥"
            raise SpecError(f"{self.file}: {where}{key}: expected a number {op} {low}, got {v}")
        return q

    def boolean(self, table, key, where, default=...) -> bool:
        v = self.get(table, key, where, default)
        if not isinstance(v, bool):
            raise SpecError(f"{self.file}: {where}{key}: expected true or false, got {v!r}")
        return v

    def token(self, vocab, tok, key):
        if not isinstance(tok, str) or tok not in vocab:
            raise SpecError(f"{self.file}: {key}: unknown token {tok!r}; the vocabulary is {list(vocab)}")
        return vocab.index(tok)

    def tensor(self, table, key, where, shape):
        """A vector (len n) or matrix (rows × cols) of exact numbers."""
        v = self.get(table, key, where)
        name = where + key
        want = "×".join(map(str, shape))
        if len(shape) == 1:
            if not isinstance(v, list) or len(v) != shape[0] or any(isinstance(x, list) for x in v):
                raise SpecError(f"{self.file}: {name}: expected a vector of {shape[0]} numbers, got {_shape(v)}")
            return [number(x, self.file, f"{name}[{i}]") for i, x in enumerate(v)]
        if (not isinstance(v, list) or len(v) != shape[0]
                or any(not isinstance(r, list) or len(r) != shape[1] for r in v)):
            raise SpecError(f"{self.file}: {name}: expected a {want} matrix, got {_shape(v)}")
        return [[number(x, self.file, f"{name}[{i},{j}]") for j, x in enumerate(r)]
                for i, r in enumerate(v)]


def _shape(v) -> str:
    if not isinstance(v, list):
        return repr(v)
    if v and all(isinstance(r, list) for r in v):
        widths = sorted({len(r) for r in v})
        return f"{len(v)}×{'/'.join(map(str, widths))}"
    return f"a list of {len(v)}"


def load_spec(path, limits: Limits | None = None) -> Spec:
    """Read and validate the spec at ``path``.

    >>> s = load_spec("derivations/bigram.toml")
    >>> s.kind, s.vocab, s.params["E"][1]
    ('bigram', ('猫', '吃', '鱼'), [3/10, -1/10])
    """
    path = Path(path)
    raw = _read_toml(path)
    r = _Reader(path, raw)
    m = r.table(raw, "model", "")
    kind = r.get(m, "kind", "model.")
    if kind not in ("transformer", "bigram"):
        raise SpecError(f'{path}: model.kind: expected "transformer" or "bigram", got {kind!r}')
    vocab = r.get(m, "vocab", "model.")
    if not isinstance(vocab, list) or not vocab or not all(isinstance(t, str) and t for t in vocab):
        raise SpecError(f"{path}: model.vocab: expected a non-empty list of non-empty token strings")
    for i, t in enumerate(vocab):
        if t in vocab[:i]:
            raise SpecError(f"{path}: model.vocab: token {t!r} appears twice (ids {vocab.index(t)} and {i})")
    vocab = tuple(vocab)
    V = len(vocab)
    d = r.integer(m, "d", "model.")
    is_tf = kind == "transformer"
    heads = r.integer(m, "heads", "model.") if is_tf else 1
    if d % heads:
        raise SpecError(f"{path}: model.heads: expected a divisor of d = {d}, got {heads}")
    d_ff = r.integer(m, "d_ff", "model.") if is_tf else 0
    layers = r.integer(m, "layers", "model.") if is_tf else 0
    tied = r.boolean(m, "tied", "model.", True) if is_tf else False
    pe_base = r.num(m, "pe_base", "model.", 10000, low=0, strict=True) if is_tf else sympy.Integer(10000)
    ln_eps = r.num(m, "ln_eps", "model.", low=0) if is_tf else sympy.Integer(0)

    data = r.table(raw, "data", "")
    inp = r.get(data, "input", "data.")
    if not isinstance(inp, list) or not inp:
        raise SpecError(f"{path}: data.input: expected a non-empty list of tokens, got {inp!r}")
    ids = tuple(r.token(vocab, t, f"data.input[{i}]") for i, t in enumerate(inp))
    target = r.token(vocab, r.get(data, "target", "data."), "data.target")

    w = r.table(raw, "weights", "")
    params: dict = {}
    if is_tf:
        params["E"] = r.tensor(w, "E", "weights.", (V, d))
        if not tied:
            params["W_out"] = r.tensor(w, "W_out", "weights.", (d, V))
        blocks = r.get(raw, "layer", "")
        if not isinstance(blocks, list) or len(blocks) != layers:
            got = len(blocks) if isinstance(blocks, list) else "no list"
            raise SpecError(f"{path}: layer: expected {layers} [[layer]] tables (model.layers), got {got}")
        shapes = {"W_Q": (d, d), "W_K": (d, d), "W_V": (d, d), "W_1": (d, d_ff), "b_1": (d_ff,),
                  "W_2": (d_ff, d), "b_2": (d,)}
        for l, b in enumerate(blocks):
            where = f"layer[{l}]."
            pre = "" if layers == 1 else f"l{l}."
            for key, shape in shapes.items():
                params[pre + key] = r.tensor(b, key, where, shape)
            for key, default in (("gamma1", 1), ("beta1", 0), ("gamma2", 1), ("beta2", 0)):
                params[pre + key] = (r.tensor(b, key, where, (d,)) if key in b
                                     else [sympy.Integer(default)] * d)
            if "W_O" in b:
                params[pre + "W_O"] = r.tensor(b, "W_O", where, (d, d))
    else:
        params["E"] = r.tensor(w, "E", "weights.", (V, d))
        params["W"] = r.tensor(w, "W", "weights.", (d, V))

    s = r.table(raw, "sampling", "", required=False)
    temps = []
    for i, t in enumerate(r.get(s, "temperatures", "sampling.", ["0.5", "1", "2", "inf"])):
        if isinstance(t, str) and t.strip() in ("inf", "∞"):
            temps.append(sympy.oo)
        else:
            temps.append(_positive(r, t, f"sampling.temperatures[{i}]"))
    top_k = r.integer(s, "top_k", "sampling.", min(3, V))
    if top_k > V:
        raise SpecError(f"{path}: sampling.top_k: expected at most V = {V}, got {top_k}")
    top_p = r.num(s, "top_p", "sampling.", "0.9", low=0, strict=True)
    if top_p > 1:
        raise SpecError(f"{path}: sampling.top_p: expected a number in (0, 1], got {top_p}")
    u = r.num(s, "uniform", "sampling.", "0.5", low=0)
    if u >= 1:
        raise SpecError(f"{path}: sampling.uniform: expected a number in [0, 1), got {u}")
    sampling = Sampling(tuple(temps), top_k, top_p, u, r.integer(s, "continue", "sampling.", 3, low=0))

    tr = r.table(raw, "training", "", required=False)
    a = r.table(tr, "adamw", "training.", required=False)
    adamw = AdamW(r.num(a, "lr", "training.adamw.", "1e-3", low=0),
                  r.num(a, "beta1", "training.adamw.", "0.9", low=0),
                  r.num(a, "beta2", "training.adamw.", "0.999", low=0),
                  r.num(a, "eps", "training.adamw.", "1e-8", low=0),
                  r.num(a, "weight_decay", "training.adamw.", "0.1", low=0))
    for key in ("beta1", "beta2"):
        if getattr(adamw, key) >= 1:
            raise SpecError(f"{path}: training.adamw.{key}: expected a number in [0, 1)")
    gc = r.table(tr, "gradcheck", "training.", required=False)
    gc_params = r.get(gc, "params", "training.gradcheck.", [])
    if not isinstance(gc_params, list) or not all(isinstance(x, str) for x in gc_params):
        raise SpecError(f"{path}: training.gradcheck.params: expected a list of parameter names")
    clip = r.get(tr, "clip", "training.", None)
    examples = [(ids, target)]
    for i, ex in enumerate(r.get(tr, "examples", "training.", [])):
        key = f"training.examples[{i}]"
        if not isinstance(ex, dict) or not isinstance(ex.get("input"), list) or not ex["input"]:
            raise SpecError(f"{path}: {key}.input: expected a non-empty list of tokens")
        if is_tf and len(ex["input"]) != len(ids):
            raise SpecError(f"{path}: {key}.input: expected {len(ids)} tokens like data.input")
        examples.append((tuple(r.token(vocab, t, f"{key}.input[{j}]") for j, t in enumerate(ex["input"])),
                         r.token(vocab, r.get(ex, "target", key + "."), f"{key}.target")))
    steps = r.integer(tr, "steps", "training.", 1)
    training = Training(
        lr=r.num(tr, "lr", "training.", "0.1", low=0),
        steps=steps,
        report=tuple(r.get(tr, "report", "training.", [1])),
        learnable_ln=r.boolean(tr, "learnable_ln", "training.", False),
        adamw=adamw,
        clip=None if clip is None else r.num(tr, "clip", "training.", low=0, strict=True),
        warmup=r.integer(tr, "warmup", "training.", 0, low=0),
        decay_steps=r.integer(tr, "decay_steps", "training.", 0, low=0),
        min_lr=r.num(tr, "min_lr", "training.", 0, low=0),
        decay_groups=r.boolean(tr, "decay_groups", "training.", False),
        all_positions=r.boolean(tr, "all_positions", "training.", False),
        gradcheck_h=r.num(gc, "h", "training.gradcheck.", "1e-5", low=0, strict=True),
        gradcheck_params=tuple(gc_params),
        examples=tuple(examples),
    )
    if training.decay_steps and training.decay_steps <= training.warmup:
        raise SpecError(f"{path}: training.decay_steps: expected more than warmup = {training.warmup} "
                        f"(or 0 for no decay), got {training.decay_steps}")
    for k in training.report:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= steps:
            raise SpecError(f"{path}: training.report: expected step numbers in 0..{steps}, got {k!r}")

    title = raw.get("title", path.stem)
    if not isinstance(title, str):
        raise SpecError(f"{path}: title: expected a string")
    name = path.name.removesuffix(".toml")
    return Spec(path, name, title, kind, vocab, d, heads, d_ff, layers, tied, pe_base, ln_eps,
                ids, target, params, sampling, training, raw)


def _positive(r: _Reader, value, key):
    q = number(value, r.file, key)
    if q <= 0:
        raise SpecError(f"{r.file}: {key}: expected a number > 0 or \"inf\", got {value}")
    return q
