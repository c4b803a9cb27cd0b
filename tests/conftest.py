"""Shared fixtures and reference helpers for the symgpt tests.

Every reference value here is computed independently of symgpt: exact
Fractions rounded with Python's ``decimal`` module, the pure-mpmath oracle in
``oracle.py`` and the float64 oracle in ``torch_oracle.py``.  Precision is
never set globally: comparisons run inside ``mpmath.workdps``.
"""
from __future__ import annotations

import decimal
import functools
import math
import os
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest
from hypothesis import settings

import oracle

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "derivations" / "tiny-transformer.toml"
BIGRAM = ROOT / "derivations" / "bigram.toml"
ORACLE_DPS = 60

# Hypothesis draws the same examples on every run ("fixed"), so the suite's time and verdict are
# reproducible on every machine and CI; HYPOTHESIS_PROFILE=explore draws new ones each run (a
# failure prints the example and its @reproduce_failure blob).
settings.register_profile("fixed", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

BLOCK_KEYS = ("Q", "K", "V", "S", "A", "Attn", "H1", "mu1", "var1", "LN1", "Z", "R", "F",
              "H2", "mu2", "var2", "LN2")


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def bigram_run():
    """test_check_readings' bigram, its three SGD steps and one AdamW step, by hand at 50 digits."""
    from test_check_readings import by_hand
    yield from by_hand()


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    """A one-layer, two-head transformer and its forward pass, by hand (test_check_readings.heads_spec)."""
    from test_check_readings import heads_spec
    return heads_spec(tmp_path_factory)


@pytest.fixture(autouse=True)
def _no_leaked_precision():
    """Run each test at the default 15 digits and fail if anything leaks a change.

    The block is a ``workdps``, so whatever a test does, the global precision
    is restored; the asserts catch code (symgpt's included) that sets
    ``mp.dps`` or flint's ``ctx.prec`` globally instead of in a context.
    """
    prec = flint.ctx.prec
    with mpmath.workdps(15):
        try:
            yield
            assert mpmath.mp.dps == 15, f"mpmath precision leaked: mp.dps = {mpmath.mp.dps}"
            assert flint.ctx.prec == prec, f"flint precision leaked: ctx.prec = {flint.ctx.prec}"
        finally:
            flint.ctx.prec = prec


@pytest.fixture(scope="session")
def seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def loaded(name):
    """symgpt.load(name) (a spec's name or path), once per session and spec file: the derivation
    every test of that spec shares (its values are computed once and cached inside it)."""
    from symgpt.derivation import find_spec
    return _loaded(Path(find_spec(str(name))).resolve())


@functools.lru_cache(maxsize=None)
def _loaded(path: Path):
    import symgpt
    return symgpt.load(str(path))


@pytest.fixture(scope="session")
def seed():
    return loaded("tiny-transformer")


@pytest.fixture(scope="session")
def seed_oracle():
    return oracle.transformer_forward(oracle.load_spec(SEED), dps=ORACLE_DPS)


@pytest.fixture(scope="session")
def bigram():
    return loaded("bigram")


@pytest.fixture(scope="session")
def bigram_oracle():
    return oracle.bigram_grads(oracle.load_spec(BIGRAM), dps=ORACLE_DPS)


# ---------------------------------------------------------------- specs

def write_spec(directory: Path, text: str, name: str = "spec.toml") -> Path:
    path = Path(directory) / name
    path.write_text(text, encoding="utf-8")
    return path


def derivation_of(path: Path, gradients: bool = True):
    from symgpt.derivation import Derivation
    from symgpt.engine.spec import load_spec
    return Derivation(load_spec(path), gradients=gradients)


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced; fails if ``old`` is not there exactly once."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in the spec"
    return text.replace(old, new)


# ---------------------------------------------------------------- exact rounding

def to_fraction(x) -> Fraction:
    """An mpf (or int/Fraction) as the exact Fraction it holds."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if not isinstance(x, mpmath.mpf):  # converting an mpf would round it to mp.prec
        with mpmath.workprec(max(mpmath.mp.prec, 4000)):
            x = mpmath.mpf(x)
    man, exp = x.man_exp  # |mantissa|: mpmath keeps the sign apart
    if man == 0:
        return Fraction(0)
    man, exp = int(man) * (-1 if x < 0 else 1), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _decimal_of(q: Fraction, places: int) -> decimal.Decimal:
    """q rounded half away from zero to ``places`` decimals, by the decimal module.

    The quotient is truncated (ROUND_DOWN) far beyond the last kept digit, so
    ROUND_HALF_UP on it gives the same result as on the exact fraction: a
    rounding boundary has ``places + 1`` decimals and the truncated quotient
    cannot jump over it.
    """
    need = (abs(q.numerator).bit_length() + q.denominator.bit_length()) * 31 // 100 + abs(places) + 30
    with decimal.localcontext() as c:
        c.prec = need
        c.rounding = decimal.ROUND_DOWN
        c.Emax, c.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
        x = decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator)
        return x.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)


def ref_round_decimals(q, k: int) -> str:
    """Reference for ``round_decimals``: fixed k decimals, half away from zero.

    A result that rounds to zero is written without a sign ("0.00").
    """
    s = format(_decimal_of(to_fraction(q), k), "f")
    if s.startswith("-") and set(s[1:]) <= {"0", "."}:
        s = s[1:]
    return s


def exponent10(q: Fraction) -> int:
    """e with 10^e <= |q| < 10^(e+1), by exact integer comparison."""
    q = abs(q)
    assert q != 0
    e = (q.numerator.bit_length() - q.denominator.bit_length()) * 301 // 1000
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    return e


def ref_round_significant(q, n: int) -> str:
    """Reference for ``round_significant``: n significant digits, half away from zero.

    Plain decimals when the rounded value's exponent e is in [-6, 21), else
    ``d.ddd…e±x`` (the convention symgpt documents).
    """
    q = to_fraction(q)
    if q == 0:
        return "0"
    e = exponent10(q)
    r = _decimal_of(q, n - 1 - e)
    if abs(r) >= decimal.Decimal(10) ** (e + 1):  # 9.99… rounded up to 10^(e+1)
        e += 1
        r = _decimal_of(q, n - 1 - e)
    if -6 <= e < 21:
        return format(r, "f")
    return format(r, f".{n - 1}e")


def boundary_distance(q, n: int) -> Fraction:
    """Distance from q to the nearest n-significant-digit rounding boundary."""
    q = abs(to_fraction(q))
    e = exponent10(q)
    unit = Fraction(10) ** (e - n + 1)
    frac = q / unit - math.floor(q / unit)
    return abs(frac - Fraction(1, 2)) * unit


def neighbours(s: str, n: int) -> set:
    """s and the strings one unit in the last place either side (same format)."""
    q = Fraction(decimal.Decimal(s))
    e = exponent10(q)
    unit = Fraction(10) ** (e - n + 1)
    return {s, ref_round_significant(q - unit, n), ref_round_significant(q + unit, n)}


def assert_significant(engine: str, exact, n: int, guard=Fraction(1, 10 ** 40)):
    """``engine`` is ``exact`` to n significant digits.

    Exact string equality, unless ``exact`` (an oracle value, itself only good
    to its own precision) is within ``guard`` of a rounding boundary: then one
    unit in the last place either way is accepted.
    """
    want = ref_round_significant(exact, n)
    if boundary_distance(exact, n) > guard:
        assert engine == want, f"got {engine}, the reference rounds to {want}"
    else:
        assert engine in neighbours(want, n), f"got {engine}, the reference is {want} (at a boundary)"


# ---------------------------------------------------------------- comparisons

def ball_mid(v) -> mpmath.mpf:
    """An fmpq, or the midpoint of an arb ball, as an mpf holding all its bits."""
    if isinstance(v, flint.fmpq):
        q = Fraction(int(v.p), int(v.q))
    else:
        man, exp = (int(t) for t in v.mid().man_exp())
        q = Fraction(man) * Fraction(2) ** exp
    with mpmath.workprec(max(q.numerator.bit_length(), q.denominator.bit_length(), 53) + 300):
        return mpmath.mpf(q.numerator) / q.denominator


def assert_close(got, want, digits: int, what: str = ""):
    """|got − want| ≤ 10^−digits · max(|want|, 10^−10) (zero only matches zero closely)."""
    with mpmath.workdps(2 * digits + 20):
        got, want = mpmath.mpf(got), mpmath.mpf(want)
        tol = mpmath.mpf(10) ** (-digits) * max(abs(want), mpmath.mpf(10) ** -10)
        err = abs(got - want)
        assert err <= tol, (f"{what}: got {mpmath.nstr(got, digits + 5)}, "
                            f"oracle {mpmath.nstr(want, digits + 5)}, |diff| = {mpmath.nstr(err, 3)}")


def flatten(name: str, value) -> dict:
    """Nested lists as {"name[i,j]": value}; a scalar keeps its bare name."""
    out = {}

    def rec(x, idx):
        if isinstance(x, (list, tuple)):
            for i, y in enumerate(x):
                rec(y, idx + (i,))
        else:
            out[f"{name}[{','.join(map(str, idx))}]" if idx else name] = x

    rec(value, ())
    return out


def oracle_quantities(res: dict, dps: int = ORACLE_DPS) -> dict:
    """Every quantity the oracle returns, under symgpt's names.

    Also two the oracle does not name, computed here from its values:
    A_den[t] = Σ_{s≤t} exp(S[t,s]) (per head) and sum_exp = Σ_v exp(logits[v]).
    """
    out = {}
    for k in ("X", "PE", "H0", "h_final", "logits", "p", "loss"):
        out.update(flatten(k, res[k]))
    blocks = res["blocks"]
    with mpmath.workdps(dps):
        for l, b in enumerate(blocks):
            pre = "" if len(blocks) == 1 else f"l{l}."
            for k in BLOCK_KEYS:
                out.update(flatten(pre + k, b[k]))
            S = b["S"]
            heads = [S] if not isinstance(S[0][0], list) else S
            T = len(heads[0])
            for h, Sh in enumerate(heads):
                for t in range(T):
                    idx = f"{h},{t}" if len(heads) > 1 else f"{t}"
                    out[f"{pre}A_den[{idx}]"] = mpmath.fsum(mpmath.exp(Sh[t][s]) for s in range(t + 1))
        out["sum_exp"] = mpmath.fsum(mpmath.exp(z) for z in res["logits"])
    return out

collect_ignore_glob = ["tutorials/*/oracle.py"]   # the tutorials' independent oracles: scripts, not test modules
