"""What makes the precision forensics fast enough for a model of real size, each against an independent value:
the perturbation arithmetic (symgpt.floats.delta) against mpmath's f(x + d) − f(x) at 160 digits; the vectorised
casts and fused multiply-adds against exact Fractions; the births against the same perturbation carried through
the pipeline in mpmath."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgpt
from symgpt.floats.delta import Delta, Deltas
from symgpt.floats.model import FORMATS, Exact, Floats, exact_params, fused, round_to, rounded_quotients, run
from symgpt.precision import forensics

from conftest import ROOT

LADDER = ROOT / "benchmarks" / "specs" / "ladder-d8-T8-L2-h2.toml"
MP = mpmath.mp.clone()
MP.dps = 160


def _change(fn, v, d):
    """f(v + d) − f(v) in mpmath at 160 digits (a change of 10⁻⁸⁰ of the value keeps 80), both points exact (v
    and d are floats)."""
    a, b = MP.mpf(v), MP.mpf(v) + MP.mpf(d)
    return fn(b) - fn(a)


def _close(got, want, rel):
    return abs(MP.mpf(float(got)) - want) <= rel * abs(want) + MP.mpf(10) ** -300


# ---------------------------------------------------------------- the perturbation arithmetic

FUNCTIONS = {"exp": (MP.exp, -30, 30), "log": (MP.log, 0.01, 50), "sqrt": (MP.sqrt, 0.001, 100),
             "tanh": (MP.tanh, -25, 25), "erf": (MP.erf, -4, 4), "sin": (MP.sin, -7, 7), "cos": (MP.cos, -7, 7)}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@settings(max_examples=60, deadline=None)
@given(u=st.floats(0, 1), scale=st.integers(-40, -1), sign=st.sampled_from([1, -1]))
def test_each_function_carries_its_change(name, u, scale, sign):
    """A change of any size, from 10⁻⁴⁰ to 10⁻¹ of the value, keeps about 13 digits (no f(v + d) − f(v) in floats,
    which would keep none of a change below 10⁻¹⁶)."""
    fn, lo, hi = FUNCTIONS[name]
    v = lo + u * (hi - lo)
    d = sign * abs(v) * 10.0 ** scale if v else 10.0 ** scale
    if name in ("log", "sqrt") and v + d <= 0:
        return
    got = Delta([v], [d]).apply(name).d[0]
    want = _change(fn, v, d)
    assert _close(got, want, MP.mpf(10) ** -12), (v, d, got, want)


@settings(max_examples=100, deadline=None)
@given(a=st.floats(-100, 100), b=st.floats(-100, 100).filter(lambda x: abs(x) > 1e-3),
       da=st.floats(-1e-3, 1e-3), db=st.floats(-1e-6, 1e-6))
def test_arithmetic_carries_its_change(a, b, da, db):
    x, y = Delta([a], [da]), Delta([b], [db])
    with MP.workdps(800):        # a + d exactly for a change down to float64's smallest subnormal
        A, B, DA, DB = (MP.mpf(t) for t in (a, b, da, db))
        for got, want in (((x + y).d[0], DA + DB), ((x - y).d[0], DA - DB),
                          ((x * y).d[0], (A + DA) * (B + DB) - A * B),
                          ((x / y).d[0], (A + DA) / (B + DB) - A / B)):
            if want:     # (a quotient's change keeps about 13 digits: d_a − (a/b)·d_b may cancel)
                assert _close(got, want, MP.mpf(10) ** -12), (a, b, da, db)


def test_matrix_product_and_sum_carry_their_change():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(5, 7)), rng.normal(size=(7, 3))
    dA, dB = rng.normal(size=(5, 7)) * 1e-25, rng.normal(size=(7, 3)) * 1e-9
    got = (Delta(A, dA) @ Delta(B, dB)).d
    Am, Bm = (np.vectorize(MP.mpf, otypes=[object])(x) for x in (A, B))
    dAm, dBm = (np.vectorize(MP.mpf, otypes=[object])(x) for x in (dA, dB))
    want = (Am + dAm).dot(Bm + dBm) - Am.dot(Bm)
    for g, w in zip(got.ravel(), want.ravel()):
        assert _close(g, w, MP.mpf(10) ** -12)
    s = Delta(A, dA).sum(axis=0).d
    for g, w in zip(s, dAm.sum(axis=0)):
        assert _close(g, w, MP.mpf(10) ** -13)


def test_a_masked_score_has_no_change_and_a_flipped_relu_is_carried():
    ar = Deltas()
    x = Delta([-np.inf, 0.5], [0.0, 1e-20])
    e = ar.wexp(x - x.shift())
    assert e.v.tolist() == [0.0, 1.0] and e.d[0] == 0 and e.d[1] == pytest.approx(1e-20, rel=1e-14)
    z = Delta([1e-9, -1.0, 2.0], [-2e-9, 0.0, 1e-30])   # the first entry crosses 0: ReLU turns it off
    r = np.where(z > 0, z, ar.const(0))
    assert r.v.tolist() == [1e-9, 0.0, 2.0] and r.d.tolist() == [-1e-9, 0.0, 1e-30]   # ReLU(−1e−9) − ReLU(1e−9)
    g = np.where(z > 0, ar.const(5), ar.const(0))        # the adjoint's mask: 5 becomes 0 where it flips
    assert g.v.tolist() == [5.0, 0.0, 5.0] and g.d.tolist() == [-5.0, 0.0, 0.0]
    c = np.minimum(Delta([1.0, 2.0], [0.5, 1e-20]), ar.const(Fraction(6, 5)))    # a clip coefficient's clamp
    assert c.v.tolist() == [1.0, 1.2] and c.d.tolist() == pytest.approx([0.2, 0.0], abs=1e-15)
    q = Delta([1.0], [1e-170]) / Delta([1e-160], [1e-176])  # b·(b + d_b) would underflow
    want = (MP.mpf(1) + MP.mpf(1e-170)) / (MP.mpf(1e-160) + MP.mpf(1e-176)) - MP.mpf(1) / MP.mpf(1e-160)
    assert _close(q.d[0], want, MP.mpf(10) ** -13)


# ---------------------------------------------------------------- the vectorised roundings

@pytest.mark.parametrize("fmt", list(FORMATS))
def test_quotients_round_as_exact_fractions_do(fmt):
    """p/q to each format, against the exact rational rounding (round_to, in Fractions): random quotients,
    exact ties of every format, values past the format's range and below its subnormals."""
    rng = np.random.default_rng(8)
    p = rng.integers(-2 ** 52, 2 ** 52, 6000) >> rng.integers(0, 50, 6000)
    q = rng.integers(1, 10 ** 15, 6000) >> rng.integers(0, 45, 6000)
    q = np.maximum(q, 1)
    bits = FORMATS[fmt][2]
    k = rng.integers(1, 2 ** 20, 2000)                      # (2k + 1)/2^e: an exact tie for a format of fewer bits
    ties_p, ties_q = 2 * k + 1, 2 ** rng.integers(0, 40, 2000)
    big = (2 * rng.integers(2 ** (bits - 1), 2 ** bits, 500) + 1)      # ties of this format itself
    P = np.concatenate([p, ties_p, big, [1, -1, 7, 2 ** 52 - 1]]).astype(np.int64)
    Q = np.concatenate([q, ties_q, np.full(500, 2 ** 30), [2 ** 52, 3 * 2 ** 40, 1, 1]]).astype(np.int64)
    got = rounded_quotients(P.astype(np.float64), Q.astype(np.float64), fmt)
    with np.errstate(over="ignore"):
        for a, b, g in zip(P.tolist(), Q.tolist(), got):
            assert g == round_to(Fraction(a, b), fmt), (fmt, a, b)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_cast_of_any_exact_number_as_fractions_round_it(fmt):
    """Floats.cast on decimals, huge numerators (the Fraction path) and ints, nested."""
    vals = [[Fraction("0.1"), Fraction("-0.3"), Fraction(3, 7)], [Fraction(2 ** 60 + 1, 3), 5, Fraction(-1, 10 ** 9)]]
    with np.errstate(over="ignore"):                      # 2⁶⁰/3 is past float16's largest: ∞, as it should be
        got = Floats(fmt).cast(vals).astype(np.float64)
    for row, grow in zip(vals, got):
        for v, g in zip(row, grow):
            assert g == round_to(Fraction(v), fmt)


@pytest.mark.parametrize("wide", ["float64", "float32"])
def test_fused_multiply_add_rounds_once(wide):
    """a·b + c rounded once, against exact Fractions: random, cancelling (c = −fl(a·b)), and the ranges the
    float64 emulation leaves to Fractions (then marked not done)."""
    rng = np.random.default_rng(2)
    dt = np.float64 if wide == "float64" else np.float32
    n = 4000
    a = (rng.uniform(-4, 4, n) * 2.0 ** rng.integers(-40, 40, n)).astype(dt).astype(np.float64)
    b = (rng.uniform(-4, 4, n) * 2.0 ** rng.integers(-40, 40, n)).astype(dt).astype(np.float64)
    c = np.where(np.arange(n) % 3 == 0, -(a * b).astype(dt).astype(np.float64),
                 (rng.uniform(-4, 4, n) * 2.0 ** rng.integers(-80, 80, n)).astype(dt).astype(np.float64))
    out, ok = fused(a, b, c, wide)
    assert ok.all()
    for x, y, z, o in zip(a, b, c, out):
        assert o == round_to(Fraction(x) * Fraction(y) + Fraction(z), wide), (x, y, z)
    got = Floats(wide).fma(np.array([2.0 ** -600]), np.array([2.0 ** -500]), np.array([1.0]))
    assert float(got[0]) == 1.0
    if wide == "float64":
        assert not fused(np.array([2.0 ** -600]), np.array([2.0 ** -500]), np.array([1.0]), wide)[1][0]


# ---------------------------------------------------------------- local errors and ulps against mpmath

@pytest.mark.parametrize("spec,fmt", [("tiny-transformer", "float64"), ("tiny-transformer", "bfloat16"),
                                      (str(ROOT / "benchmarks/specs/tiny-transformer-ln-eps0.toml"), "float32"),
                                      (str(LADDER), "float16")])
def test_local_errors_are_the_roundings_mpmath_finds(spec, fmt):
    """Each stage's local error (float result − the exact result of that stage on the same float inputs) against
    the stage run in mpmath at 60 digits: equal to 10⁻⁶ of the rounding, and exactly 0 where the float is exact."""
    f = forensics(symgpt.load(spec), [fmt], births=False)
    ctx = mpmath.mp.clone()
    ctx.dps = 60
    ex = Exact(ctx)
    fl, loc = f.floats[fmt], f.local(fmt)
    for stage in f.pipe.stages:
        if loc[stage.name] is None:
            continue
        with np.errstate(all="ignore"):
            exact = np.asarray(stage.fn(ex, *(ex.w(fl[i]) for i in stage.inputs)), dtype=object)
        want = np.asarray(ex.w(fl[stage.name]) - exact, dtype=object)
        for g, w in zip(np.ravel(loc[stage.name]), want.ravel()):
            if w == 0:
                assert g == 0, stage.name
            else:
                assert abs(ctx.mpf(float(g)) - w) <= ctx.mpf("1e-6") * abs(w), (stage.name, g, w)


def test_an_exact_one_is_measured_in_its_own_ulps():
    """ε = 0 on d = 2: LayerNorm's outputs are exactly ±1; float32's −0.99999988 is 2⁻²³ from −1, one ulp of 1
    (2⁻²³), not two: the reference's low word inside its radius says nothing of the binade."""
    f = forensics(symgpt.load(str(ROOT / "benchmarks/specs/tiny-transformer-ln-eps0.toml")), ["float32"],
                  births=False)
    v = np.asarray(f.floats["float32"]["h_final"], dtype=np.float64)
    ulps = [abs(Fraction(float(x)) - Fraction(int(np.sign(x)))) / Fraction(1, 2 ** 23) for x in v]
    assert float(max(ulps)) == f.summary("float32", "h_final")["ulps"]


# ---------------------------------------------------------------- births against an mpmath carry

def _mpmath_carry(f, fmt, src):
    """The local error of ``src`` carried through the pipeline in mpmath (object arrays, 60 digits), from the
    mpmath pipeline's own exact values: a second implementation of Forensics.carry."""
    ctx = mpmath.mp.clone()
    ctx.dps = 60
    ex = Exact(ctx)
    with np.errstate(all="ignore"):
        ref = run(f.pipe, ex, exact_params(f.d.spec))
    vals = dict(ref)
    delta = np.vectorize(lambda x: ctx.mpf(float(x)), otypes=[object])(f.local(fmt)[src])
    vals[src] = ref[src] + (delta if np.ndim(delta) else delta[()])
    on = src in f.params                                  # a parameter's cast reaches every stage after it
    for stage in f.pipe.stages:
        if on:
            vals[stage.name] = stage.fn(ex, *(vals[i] for i in stage.inputs))
        on = on or stage.name == src
    names = ("loss", "grad_E", "grad_l0.W_Q", "sgd[1].E") if "l0.Q" in vals else ("loss", "grad_E", "grad_W_V",
                                                                                 "clip_coef", "sgd[1].W_1")
    return {n: np.asarray(vals[n] - ref[n], dtype=object) for n in names}


def _flipping(tmp_path) -> str:
    """The seed with b_1[0] = −0.09999: the last position's first FFN unit sits near 0, and bfloat16's
    roundings flip its ReLU; with training.clip the first updates clamp a coefficient (np.minimum)."""
    text = (ROOT / "derivations" / "tiny-transformer.toml").read_text(encoding="utf-8")
    assert "b_1 = [0.1," in text
    p = tmp_path / "flip.toml"
    p.write_text(text.replace("b_1 = [0.1,", "b_1 = [-0.09999,").replace(
        "learnable_ln = false", "learnable_ln = false\nclip = 0.5"), encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("fmt,src", [("bfloat16", "l0.LN1"), ("float32", "l1.A"), ("float64", "l0.Q"),
                                     ("float16", "E"), ("bfloat16", "b_1")])
def test_births_are_the_carry_in_mpmath(fmt, src, tmp_path):
    """Not linearised: a bfloat16 rounding of a LayerNorm carried to the loss and the gradients agrees with
    mpmath's carry to 10⁻⁸ of the largest change (float64's roundings, 10⁻¹⁶ of the values, too); so does a
    rounding of b_1 that flips a ReLU, through a clipped first update."""
    f = forensics(symgpt.load(str(LADDER) if src != "b_1" else _flipping(tmp_path)), [fmt], births=True)
    ours, want = f.carry(fmt, src), _mpmath_carry(f, fmt, src)
    for n, w in want.items():
        scale = max(abs(x) for x in w.ravel())
        assert scale > 0, n
        for g, x in zip(np.ravel(ours[n]), w.ravel()):
            assert abs(MP.mpf(float(g)) - x) <= MP.mpf("1e-8") * scale, (n, g, x)


@pytest.mark.slow
def test_births_of_a_four_layer_model_explain_its_float32_loss():
    """d 16, T 16, two layers, two heads: every source's birth in float32, summed, is the loss's actual error to
    first order, and the shares of :meth:`Forensics.born` add up to 1."""
    f = forensics(symgpt.load(str(ROOT / "benchmarks" / "specs" / "ladder-d16-T16-L2-h2.toml")), ["float32"])
    total = sum(float(b["loss"]) for b in f.births["float32"].values() if b and "loss" in b)
    err = float(f.errors("float32", "loss")[1])
    assert err != 0 and abs(total - err) <= 1e-3 * abs(err)
    shares = f.born("float32", "loss")
    assert math.isclose(sum(s for _, s, _ in shares), 1.0, rel_tol=1e-12)
    assert set(dict((s, 0) for s, *_ in shares)) <= set(f.names())
