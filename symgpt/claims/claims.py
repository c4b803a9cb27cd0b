"""Claims: the figures a document prints, as expressions over named quantities.

A claims file (``derivations/NAME.claims.toml``) lists, for one spec, every
figure its source document prints::

    spec = "tiny-transformer.toml"

    [[claim]]
    ref = "A[1,0]"                     # what the figure is (the grammar below)
    printed = "0.454"                  # the string as printed, verbatim
    where = "§4.3 表 4-4 第 2 行"        # where it is printed
    chain = "2.175/4.789"              # optional: the document's own computation
    relation = "="                     # optional: the document prints chain = figure

``relation = "="`` says the document displays the chain as an equation
(``2.175 / 4.789 = 0.454``): the claim then also requires that the chain,
computed exactly from its printed operands, rounds to the printed figure, so
that a reader who redoes the arithmetic by hand gets the printed result.
``relation = "≈"`` says the document writes the relation with ≈; only the
figure itself is checked.

``ref`` and ``chain`` are references (the grammar is in :mod:`symgpt.claims.refs`).
A claim's verdict is certified: the figure is *correct* when the exact
value, enclosed at rising precision until its rounding is proven, rounds
(half away from zero) to the printed figure at the printed decimals.

>>> parse_printed("8.5%")
Printed(text='8.5%', kind='percent', value=Fraction(17, 2), decimals=1)
"""
from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from flint import ctx, fmpq

from ..core import files
from ..core.errors import InputError, LimitError, nearest
from ..core.limits import MAX_DIGITS
from ..core.numeric import (
    MAX_PREC,
    UndecidableError,
    bounds,
    certify,
    prec_for_digits,
    round_decimals,
    round_significant,
    sign_of,
)
from ..core.safe import visible
from .causes import diagnosis
from .refs import ExprError, _about, _clip, bind, numeral_digits, parse


class ClaimError(InputError):
    """A bad claims file or claim; the message names the file, the claim and the key
    (control characters in it shown escaped: it reaches a terminal)."""

    def __init__(self, message: str):
        super().__init__(visible(message))


class ClaimLimitError(ClaimError, LimitError):
    """A claim refused up front: its size exceeds ``--max-digits`` (file, claim, key, estimate)."""


# ---------------------------------------------------------------- the file

@dataclass(frozen=True)
class Claim:
    """One printed figure."""
    index: int          # 1-based position in the file
    line: int           # line of its [[claim]] header
    ref: str
    printed: str
    where: str
    chain: str | None = None
    relation: str | None = None   # "=" (the chain must close) | "≈" | None

    def label(self, path) -> str:
        return f"{path}: claim {self.index} (line {self.line})"

    def key(self, path, key: str) -> str:
        """The claim and one of its keys, with its text: ``f: claim 2 (line 7): ref 'A[1,0]'``."""
        return f"{self.label(path)}: {key} '{_clip(getattr(self, key))}'"


@dataclass(frozen=True)
class ClaimsFile:
    path: Path
    spec: Path
    claims: tuple


_KEYS = ("ref", "printed", "where", "chain", "relation")
_REQUIRED = ("ref", "printed", "where")
_TOP = ("spec", "claim")
_CLAIM_HEADER = re.compile(r"\s*\[\[\s*claim\s*\]\]\s*(#.*)?")


class _Float(str):
    """A TOML float kept as its text, so that it can be refused (figures are quoted)."""


def _unknown(where: str, key: str, known) -> ClaimError:
    """An unknown key, with the nearest known one as a suggestion."""
    near = nearest(key, known)
    hint = f"; did you mean {near!r}?" if near else ""
    return ClaimError(f"{where}: unknown key {key!r}{hint} (expected {', '.join(known)})")


def _kind(v) -> str:
    """How a TOML value reads in a message."""
    if isinstance(v, _Float) or (isinstance(v, int) and not isinstance(v, bool)):
        return f"the number {v}"
    if isinstance(v, bool):
        return f"{str(v).lower()}"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "a table"
    return f"a {type(v).__name__}"


def read_claims(path) -> ClaimsFile:
    """Read and validate a claims file; numbers stay text.

    Every key is checked (an unknown one gets a did-you-mean), every value's
    type, and ``spec`` must name a regular file (relative to the claims file).

    >>> from symgpt.derivation import DERIVATIONS
    >>> f = read_claims(DERIVATIONS / "bigram.claims.toml")
    >>> f.spec.name, f.claims[10].ref, f.claims[10].printed
    ('bigram.toml', 'E[猫,0]', '0.1')
    """
    path = Path(path)
    text = files.read_text(path, "claims")
    try:
        data = tomllib.loads(text, parse_float=_Float)
    except tomllib.TOMLDecodeError as e:
        raise ClaimError(f"{path}: not valid TOML: {e}") from None
    for key in data:
        if key not in _TOP:
            raise _unknown(str(path), key, _TOP)
    rows = data.get("claim", [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ClaimError(f"{path}: claim: expected [[claim]] tables, got {_kind(rows)}")
    lines = [i + 1 for i, s in enumerate(text.splitlines()) if _CLAIM_HEADER.fullmatch(s)]
    claims = [_claim(path, i, lines[i] if i < len(lines) else 0, row) for i, row in enumerate(rows)]
    return ClaimsFile(path, _spec_path(path, data), tuple(claims))


def _spec_path(path: Path, data: dict) -> Path:
    """The spec a claims file names: a string naming a regular file beside it."""
    name = data.get("spec")
    if name is None:
        raise ClaimError(f'{path}: missing spec = "NAME.toml" (the spec the claims are about)')
    if not isinstance(name, str) or isinstance(name, _Float):
        raise ClaimError(f'{path}: spec: expected a string such as "bigram.toml", got {_kind(name)}')
    spec = path.parent / name
    try:
        mode = os.stat(spec).st_mode
    except OSError:
        raise ClaimError(f"{path}: spec: no such spec file {name!r} (looked for {spec})") from None
    if not name or not stat.S_ISREG(mode):
        raise ClaimError(f"{path}: spec: expected a spec file, got {name!r}, which is not a regular file")
    return spec


def _claim(path: Path, i: int, line: int, row: dict) -> Claim:
    """One [[claim]] table, checked key by key."""
    where = f"{path}: claim {i + 1} (line {line})"
    for key in row:
        if key not in _KEYS:
            raise _unknown(where, key, _KEYS)
    for key in _REQUIRED:
        if key not in row:
            raise ClaimError(f"{where}: missing {key}")
    for key, v in row.items():
        if not isinstance(v, str) or isinstance(v, _Float):
            quote = f' (quote it: {key} = "{v}")' if isinstance(v, (int, _Float)) and not isinstance(v, bool) else ""
            raise ClaimError(f"{where}: {key}: expected a string, got {_kind(v)}{quote}")
    relation = row.get("relation")
    if relation is not None:
        if relation not in ("=", "≈"):
            raise ClaimError(f'{where}: relation: expected "=" or "≈", got {relation!r}')
        if "chain" not in row:
            raise ClaimError(f"{where}: relation needs a chain (the printed computation)")
    return Claim(i + 1, line, row["ref"], row["printed"], row["where"], row.get("chain"), relation)


# ---------------------------------------------------------------- printed figures

@dataclass(frozen=True)
class Printed:
    """A printed figure: its text, kind and value in printed units."""
    text: str
    kind: str          # decimal | integer | percent | fraction | power
    value: Fraction    # in printed units (8.5% → 17/2)
    decimals: int      # digits after the point (rounding place); 0 for integers

    @property
    def scale(self) -> int:
        return 100 if self.kind == "percent" else 1

    @property
    def exact_notation(self) -> bool:
        """1/3 and 10^{-3} state a value exactly; they have no rounding place."""
        return self.kind in ("fraction", "power")


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_DECIMAL = re.compile(r"[+-]?\d+(\.\d+)?")
SCIENTIFIC = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*(?:[eE]\s*([+-]?\d+)|(?:×|x|\*|·|\\times|\\cdot)\s*10\s*(?:"
                        r"\^\s*\{?\s*([+-]?\d+)\s*\}?|\*\*\s*\(?\s*([+-]?\d+)\s*\)?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))")


def parse_printed(text: str, max_digits: int = MAX_DIGITS) -> Printed:
    """The value and rounding place of a printed figure.

    Its size is read off the text before any conversion: a figure of more than
    ``max_digits`` digits (``10^{-999999999}``) raises LimitError.

    >>> parse_printed("-0.915").decimals, parse_printed("46").kind
    (3, 'integer')
    >>> parse_printed("10⁻⁵").value, parse_printed("1/3").kind
    (Fraction(1, 100000), 'fraction')
    >>> [(p.kind, p.decimals) for p in map(parse_printed, ("2.23×10⁻⁴", "3.6909e-05", "1e-5"))]
    [('decimal', 6), ('decimal', 9), ('decimal', 5)]
    >>> parse_printed("1e-999999999")
    Traceback (most recent call last):
    ...
    symgpt.core.errors.LimitError: printed figure '1e-999999999' has about 1e09 digits, above --max-digits 1000
    """
    n = _printed_digits(text)
    if n > max_digits:
        raise LimitError(f"printed figure '{_clip(text)}' has {_about(n)} digits, above --max-digits {max_digits}")
    s = text.strip().replace("−", "-")
    if s.endswith("%") and _DECIMAL.fullmatch(s[:-1].strip()):
        body = s[:-1].strip()
        return Printed(text, "percent", Fraction(body), _places(body))
    if _DECIMAL.fullmatch(s):
        return Printed(text, "decimal" if "." in s else "integer", Fraction(s), _places(s))
    m = SCIENTIFIC.fullmatch(s)
    if m:                                      # 2.23×10⁻⁴, 3.6909e-05: rounded at the mantissa's last place
        e = int(next(g for g in m.groups()[1:] if g is not None).translate(_SUPERSCRIPT))
        value, places = Fraction(m[1]) * Fraction(10) ** e, _places(m[1]) - e
        if places >= 0:                        # (5e-11 too: rounded at its 11th place, as a float prints it)
            return Printed(text, "decimal", value, places)
        return Printed(text, "power", value, 0)    # 2e+3: no place below the units
    m = re.fullmatch(r"([+-]?\d+)\s*/\s*(\d+)", s)
    if m and int(m[2]) != 0:
        return Printed(text, "fraction", Fraction(int(m[1]), int(m[2])), 0)
    m = re.fullmatch(r"10\s*(?:\^\s*\{?\s*([+-]?\d+)\s*\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))", s)
    if m:
        e = int(m[1] if m[1] is not None else m[2].translate(_SUPERSCRIPT))
        return Printed(text, "power", Fraction(10) ** e, 0)
    raise ExprError(f"printed figure {text!r} is not a number: expected 0.454, -0.915, 46, "
                    f"8.5%, 1/3, 10^{{-3}}, 2.23×10^{{-4}} or 3.69e-05")


def _printed_digits(text: str) -> float:
    """An upper bound of a printed figure's digits, from its text: its digits, and
    an exponent (``e-5``, ``10^{-5}``, ``10⁻⁵``) by its value.

    >>> _printed_digits("0.454"), _printed_digits("10^{-12}"), _printed_digits("10⁻⁵")
    (4, 14, 7)
    """
    t = re.sub(r"10\s*([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", r"10e\1", text).translate(_SUPERSCRIPT)
    t = t.replace("^", "e").replace("{", "").replace("}", "")
    return sum(numeral_digits(m) for m in re.findall(r"\d*\.?\d+(?:\s*[eE]\s*[+-]?\d+)?", t.replace(" ", "")))


def _places(s: str) -> int:
    return len(s.split(".")[1]) if "." in s else 0


# ---------------------------------------------------------------- verdicts

START_PREC = 128     # bits: enough for every seed figure at the first try


def start_prec(q, decimals: int = 0) -> int:
    """The first precision worth trying for q at ``decimals`` places: from its
    size estimate (a value near 10^m needs m more digits), so that a large value
    settles by precision alone, never through SymPy's exact fallback.

    >>> from symgpt.claims.refs import Quantity, Size
    >>> q = Quantity(lambda prec: fmpq(1)); start_prec(q), (setattr(q, "estimate", Size(mag=477)), start_prec(q, 4))[1]
    (128, 1708)
    """
    size = getattr(q, "estimate", None)
    mag = min(size.mag, MAX_PREC) if size is not None else 0
    return min(max(START_PREC, prec_for_digits(int(mag) + decimals + 20)), MAX_PREC)


@dataclass
class Verdict:
    """A claim, the exact value and whether the printed figure is its rounding."""
    file: str
    index: int
    line: int
    ref: str
    printed: str
    where: str
    chain: str | None
    exact: str            # the value, certified digits ('…' when cut)
    correct: str          # the correct rounding, written as the figure is
    verdict: str          # correct | wrong | undecided
    cause: str | None     # for a wrong figure: carried rounding | plain error
    distance: str         # (printed − exact) in units of the last printed place
    chain_value: str | None = None   # the chain rounded as the figure is
    kind: str = "decimal"
    prec: int = 0         # bits at which the verdict was certified
    chain_from: int | None = None    # the earlier claim whose chain a reprint inherits

    @property
    def ok(self) -> bool:
        return self.verdict == "correct"

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in
                ("file", "index", "line", "where", "ref", "printed", "exact", "correct",
                 "verdict", "cause", "distance", "chain", "chain_value", "chain_from", "kind", "prec")}


def _scaled(v, scale: int, prec: int):
    if scale == 1:
        return v
    with ctx.workprec(prec):
        return v * scale


def _frac(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def certify_rounding(q, printed: Printed, start: int = START_PREC):
    """(rounded string, ball, prec): the rounding of q at the figure's place, proven.

    Through :func:`symgpt.core.numeric.certify`: balls at rising precision, then
    q's exact rational (a tie) when SymPy finds one; past
    :data:`symgpt.core.numeric.MAX_PREC` bits UndecidableError (a value on a
    rounding boundary that is not an exact rational).

    >>> from symgpt.claims.refs import Quantity
    >>> certify_rounding(Quantity(lambda prec: fmpq(-183, 2000)), parse_printed("-0.091"))[0]
    '-0.092'
    """
    k = printed.decimals
    start = max(start, start_prec(q, k + 2))

    def fmt(v):  # a percent is v·100 at k decimals: v at k + 2 decimals, the point moved
        if printed.scale == 1:
            return round_decimals(v, k)
        r = round_decimals(v, k + 2)
        return None if r is None else round_decimals(fmpq(int(Fraction(r) * 10 ** (k + 2)), 10 ** k), k)
    c = certify(q.ball, fmt, what="the rounding", exact=getattr(q, "exact", None), start=start)
    return c.value, c.ball, c.prec


def _certify_equal(q, target: Fraction, start: int = START_PREC):
    """(equal?, ball, prec) for an exact-notation figure such as 1/3 or 10^{-3}."""
    t = fmpq(target.numerator, target.denominator)
    start = max(start, start_prec(q))

    def fmt(v):
        if isinstance(v, fmpq):
            return v == t
        return False if not v.contains(t) else None
    c = certify(q.ball, fmt, what="that an irrational enclosure equals a rational",
                exact=getattr(q, "exact", None), start=start)
    return c.value, c.ball, c.prec


def _sign(q) -> int:
    """The certified sign of a bound quantity (0 only when proven exactly 0)."""
    return certify(q.ball, sign_of, what="the sign", exact=getattr(q, "exact", None)).value


def _signed_zero_ok(q, r: str, printed: Printed) -> bool:
    """A figure that rounds to 0 but shows a sign (-0.000, +0.000) must have that sign:
    -0.000 is right for a value in (−0.0005, 0], wrong for +3.3e-6; an exact 0 may show either.

    >>> from symgpt.claims.refs import Quantity
    >>> _signed_zero_ok(Quantity(lambda prec: fmpq(33, 10 ** 7)), "0.000", parse_printed("-0.000"))
    False
    """
    sign = printed.text.strip().replace("−", "-")[:1]
    if Fraction(r) != 0 or sign not in "+-":
        return True
    s = _sign(q)
    return s <= 0 if sign == "-" else s >= 0


def _rounds_to(q, printed: Printed, start: int = START_PREC):
    """(does q round to the figure, its rounding as the figure writes it, ball, prec)."""
    r, v, prec = certify_rounding(q, printed, start)
    ok = Fraction(r) == printed.value and _signed_zero_ok(q, r, printed)
    shown = _write_like(r, printed)
    if Fraction(r) == 0 and printed.text.strip()[:1] in "+-−" and _sign(q) < 0:
        shown = "-" + shown.lstrip("+")
    return ok, shown, v, prec


def show(q, v, prec: int, digits: int = 20) -> str:
    """The value for a reader: exact decimals when they end, else ``digits`` certified.

    >>> from symgpt.claims.refs import Quantity
    >>> show(None, fmpq(1, 8), 0), show(None, fmpq(1, 3), 0, 5)
    ('0.125', '0.33333…')
    """
    if isinstance(v, fmpq):
        den = int(v.q)
        for f in (2, 5):
            while den % f == 0:
                den //= f
        if den == 1:
            k = 0
            while (_frac(v) * 10 ** k).denominator != 1:
                k += 1
            return round_decimals(v, k)
        return round_significant(v, digits) + "…"
    try:
        return certify(lambda p: q.ball(p) if q is not None and p != prec else v,
                       lambda w: round_significant(w, digits), what="the value",
                       start=prec, stop=4 * prec).value + "…"
    except UndecidableError:
        pass
    lo, hi = bounds(v)
    mag = max(abs(lo), abs(hi))
    if lo <= 0 <= hi:
        return f"0 ± {_outward(mag, 2, up=True)}"
    return f"[{_outward(lo, 17, up=False)}, {_outward(hi, 17, up=True)}]"


def _outward(q: Fraction, digits: int, up: bool) -> str:
    """q to ``digits`` significant digits, rounded outward (an enclosure stays one).

    >>> _outward(Fraction(1, 3), 3, up=True), _outward(Fraction(-1, 3), 3, up=False)
    ('0.334', '-0.334')
    """
    import decimal
    with decimal.localcontext() as c:
        c.prec = digits
        c.rounding = decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
        x = decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator)
    return format(x, "g")


def _write_like(r: str, printed: Printed) -> str:
    """A rounded string in the figure's style: '+' if it shows one, '%'."""
    if printed.text.strip().startswith("+") and not r.startswith("-") and Fraction(r) != 0:
        r = "+" + r
    return r + "%" if printed.kind == "percent" else r


def _distance(q, v, printed: Printed, prec: int) -> str:
    """(printed − exact) / 10^-k to 2 significant digits, certified when it can be."""
    t = fmpq(printed.value.numerator, printed.value.denominator)

    def dist_at(p):
        w = q.ball(p) if p != prec else v
        with ctx.workprec(p):
            return (t - _scaled(w, printed.scale, p)) * 10 ** printed.decimals

    def fmt(dist):
        return "0" if isinstance(dist, fmpq) and dist == 0 else round_significant(dist, 2)
    try:
        return certify(dist_at, fmt, what="the distance", start=prec, stop=4 * prec).value
    except UndecidableError:
        lo, hi = bounds(dist_at(4 * prec))
        return f"|Δ| < {_outward(max(abs(lo), abs(hi)), 1, up=True)}"


def judge(claim: Claim, q, chain_q=None, file: str = "", max_digits: int = MAX_DIGITS, spec=None,
          d=None) -> Verdict:
    """The certified verdict on one claim (``q`` its bound reference; ``spec`` names the formula slips its
    quantity invites, :func:`symgpt.claims.causes.slips`).

    >>> import symgpt
    >>> from symgpt.claims.refs import bind
    >>> d = symgpt.load("tiny-transformer")
    >>> c = Claim(1, 1, "params()", "38", "表 0-2", "12+4+4+4+12+10")
    >>> v = judge(c, bind(parse(c.ref), d), bind(parse(c.chain), d))
    >>> v.verdict, v.exact, v.correct, v.distance, v.cause
    ('wrong', '46', '46', '-8.0', 'plain error')
    """
    printed = parse_printed(claim.printed, max_digits)
    base = dict(file=file, index=claim.index, line=claim.line, ref=claim.ref,
                printed=claim.printed, where=claim.where, chain=claim.chain, kind=printed.kind)
    try:
        if printed.exact_notation:
            equal, v, prec = _certify_equal(q, printed.value)
            exact = show(q, v, prec)
            correct = f"{int(v.p)}/{int(v.q)}" if isinstance(v, fmpq) else exact
            if isinstance(v, fmpq) and v.q == 1:
                correct = str(int(v.p))
            verdict = Verdict(**base, exact=exact, correct=correct,
                              verdict="correct" if equal else "wrong", cause=None,
                              distance="0" if equal else show(None, _diff(printed, v, prec), prec, 2),
                              prec=prec)
        else:
            ok, r, v, prec = _rounds_to(q, printed)
            verdict = Verdict(**base, exact=show(q, v, prec), correct=r,
                              verdict="correct" if ok else "wrong", cause=None,
                              distance=_distance(q, v, printed, prec), prec=prec)
    except UndecidableError as e:
        return Verdict(**base, exact="?", correct="?", verdict="undecided", cause=str(e),
                       distance="?", prec=MAX_PREC)
    if verdict.verdict == "correct" and claim.relation == "=" and chain_q is not None:
        _check_closes(verdict, printed, chain_q)
        return verdict
    if verdict.verdict == "correct" and claim.relation == "≈" and chain_q is not None:
        _check_near(verdict, printed, chain_q)
        return verdict
    if verdict.verdict == "wrong":                # the one diagnosis check uses too
        chain_ok = chain_q is not None and _chain_gives(verdict, printed, chain_q)
        verdict.cause = "carried rounding" if printed.exact_notation and chain_ok else \
            diagnosis(q, printed.value, printed.kind, printed.decimals, claim.printed, chain_ok=chain_ok,
                      ref=claim.ref, spec=spec, d=d)
        if printed.exact_notation and not chain_ok:
            verdict.cause = "plain error"
    return verdict


def _check_closes(verdict: Verdict, printed: Printed, chain_q) -> None:
    """A correct figure shown as ``chain = figure``: the chain must round to it too.

    Otherwise the equation is false as printed (the reader's arithmetic gives
    another figure): the verdict becomes wrong, cause 'equation does not close'.
    """
    if not _chain_gives(verdict, printed, chain_q):
        verdict.verdict, verdict.cause = "wrong", "equation does not close"


def _check_near(verdict: Verdict, printed: Printed, chain_q) -> None:
    """A correct figure shown as ``chain ≈ figure``: ≈ covers rounding only, so the
    chain must round to within one last-place unit of it (else: 'approximation too far')."""
    if printed.exact_notation:
        return
    _chain_gives(verdict, printed, chain_q)
    near = verdict.chain_value is not None and \
        abs(Fraction(verdict.chain_value.rstrip("%")) - printed.value) <= Fraction(1, 10 ** printed.decimals)
    if not near:
        verdict.verdict, verdict.cause = "wrong", "approximation too far"


def _chain_gives(verdict: Verdict, printed: Printed, chain_q) -> bool:
    """True when the chain, computed exactly, gives the printed figure; records its value."""
    try:
        if printed.exact_notation:
            same, cv, _ = _certify_equal(chain_q, printed.value)
            verdict.chain_value = show(chain_q, cv, START_PREC)
        else:
            same, verdict.chain_value, _, _ = _rounds_to(chain_q, printed)
    except UndecidableError:
        return False
    return same


def _diff(printed: Printed, v, prec: int):
    with ctx.workprec(prec):
        return fmpq(printed.value.numerator, printed.value.denominator) - v


def _probed(q, what: str):
    """A bound quantity, enclosed once at the first precision a verdict uses (cached),
    so that a value that does not exist (log −2, a slice) is named with its key."""
    if q.vector:
        raise ExprError(f"{what} is one number; a slice ':' belongs inside sum, mean, var or dot")
    try:
        q.ball(START_PREC)
    except UndecidableError:   # a sign that needs more bits: the verdict's certifier goes on
        pass
    return q


def bind_claims(cf: ClaimsFile, d) -> list:
    """[(claim, quantity, chain quantity or None)], every claim checked first.

    A claim that does not parse or names nothing the spec defines raises
    :class:`ClaimError` naming the file and the claim.

    >>> import symgpt
    >>> cf = ClaimsFile(Path("x.claims.toml"), Path("bigram.toml"), (Claim(1, 4, "p[狗]", "0.1", "§1"),))
    >>> bind_claims(cf, symgpt.load("bigram"))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.claims.claims.ClaimError: x.claims.toml: claim 1 (line 4): ref 'p[狗]': p[狗]: index '狗' out of range;
        expected 0..2 or a token ('猫', '吃', '鱼')
    """
    out, bound = [], {}
    limits = d.limits

    def quantity(text):  # a reference printed again is bound (and enclosed) once
        if text not in bound:
            bound[text] = bind(parse(text, limits), d, limits)
        return bound[text]
    for c in cf.claims:
        key = "printed"
        try:
            parse_printed(c.printed, limits.max_digits)
            key = "ref"
            q = _probed(quantity(c.ref), "a claim")
            cq = None
            if c.chain is not None:
                key = "chain"
                cq = _probed(quantity(c.chain), "a chain")
        except (ExprError, ValueError, KeyError, ArithmeticError) as e:
            error = ClaimLimitError if isinstance(e, LimitError) else ClaimError
            raise error(f"{c.key(cf.path, key)}: {e}") from None
        out.append((c, q, cq))
    return out


def judge_all(cf: ClaimsFile, d) -> list:
    """Verdicts on every claim of a file, against the derivation ``d`` of its spec.

    A figure printed again without a chain (``0.882`` reused in a later
    product) inherits the chain of its last earlier printing with one: the
    document's own computation of that same figure.

    >>> import symgpt
    >>> cf = ClaimsFile(Path("x.claims.toml"), Path("bigram.toml"),
    ...                 (Claim(1, 1, "z[猫]", "0.14", "§1", "0.3*0.5+(-0.1)*0.1"), Claim(2, 6, "z[猫]", "0.14", "§2")))
    >>> [(v.verdict, v.cause, v.chain_from) for v in judge_all(cf, symgpt.load("bigram"))]
    [('wrong', 'carried rounding', None), ('wrong', 'carried rounding', 1)]
    """
    out, chains = [], {}
    for c, q, cq in bind_claims(cf, d):
        source = text = None
        if cq is not None:
            chains[(c.ref, c.printed)] = (c.index, c.chain, cq)
        elif (c.ref, c.printed) in chains:
            source, text, cq = chains[(c.ref, c.printed)]
        try:
            v = judge(c, q, cq, str(cf.path), d.limits.max_digits, d.spec, d)
            if source is not None:
                v.chain, v.chain_from = text, source
            out.append(v)
        except (ArithmeticError, ValueError, KeyError) as e:
            if isinstance(e, ClaimError):
                raise
            raise ClaimError(f"{c.key(cf.path, 'ref')}: cannot evaluate: {e}") from None
    return out
