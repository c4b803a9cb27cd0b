"""The proof store: a rule read back from disk is the rule SymPy proves, and an untrusted file is never read.

The reference is worked out by hand: softmax cross-entropy's ∂loss/∂z_j = (p_j − y_j)/n, and LayerNorm's
∂/∂γ_j of g_j·γ_j·c_j/s + β_j, which is g_j·c_j/s.
"""
import os
import pickle
from fractions import Fraction

import pytest
import sympy
from flint import fmpq

from symgpt.core import proofs
from symgpt.ops.layernorm import layernorm_rule
from symgpt.ops.softmax_xent import softmax_xent_rule


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMGPT_CACHE", str(tmp_path))
    for fn in (softmax_xent_rule, layernorm_rule):
        fn.cache_clear()
    yield tmp_path / "proofs"      # the proofs' folder under the cache's root
    for fn in (softmax_xent_rule, layernorm_rule):
        fn.cache_clear()


def _by_hand(rule):
    p, y, n = (sympy.Symbol(s, real=True) for s in "pyn")
    return sympy.simplify(rule.derived["grad_z"].subs({sympy.Symbol("n", positive=True): n})
                          - (p - y) / n) == 0


def test_a_rule_read_back_is_the_rule_proven(store):
    first = softmax_xent_rule()
    files = list(store.glob("*.pickle"))
    assert [f.name.split(".")[3] for f in files] == ["softmax_xent_rule"]
    softmax_xent_rule.cache_clear()
    again = softmax_xent_rule()
    assert again is not first and again.checked == first.checked
    assert _by_hand(again)
    for p, y, n in ((Fraction(1, 3), 0, 1), (Fraction(5, 7), 1, 3), (Fraction(-2, 9), 1, 2)):
        assert again.grad_z(fmpq(p.numerator, p.denominator), fmpq(y), fmpq(n)) == \
            fmpq((p - y).numerator, (p - y).denominator) / n
    layernorm_rule()
    layernorm_rule.cache_clear()
    ln = layernorm_rule()
    g, c, s = fmpq(3, 2), fmpq(-1, 4), fmpq(5)
    assert ln.grad_gamma_term(g, c, s) == g * c / s


def test_an_untrusted_or_torn_file_is_proven_again(store):
    softmax_xent_rule()
    [path] = store.glob("*.pickle")
    forged = ("forged", {}, {}, {}, "never proven", {})
    path.write_bytes(pickle.dumps(forged))
    os.chmod(path, 0o666)                       # anyone may write it: not read
    softmax_xent_rule.cache_clear()
    assert softmax_xent_rule().name == "softmax_xent"
    path.write_bytes(b"\x80\x04 torn")
    os.chmod(path, 0o600)
    softmax_xent_rule.cache_clear()
    assert _by_hand(softmax_xent_rule())


def test_the_store_can_be_turned_off(store, monkeypatch):
    monkeypatch.setenv("SYMGPT_CACHE", "off")
    assert _by_hand(softmax_xent_rule())
    assert not store.exists()


def test_a_rule_from_changed_sources_replaces_the_old_file(store, monkeypatch):
    softmax_xent_rule()
    [old] = store.glob("*.pickle")
    monkeypatch.setattr(proofs, "sources", lambda: "f" * 64)
    monkeypatch.setattr(proofs, "_hash_sources", lambda: "f" * 64)
    softmax_xent_rule.cache_clear()
    softmax_xent_rule()
    [new] = store.glob("*.pickle")
    assert new != old


def test_nothing_is_kept_when_the_files_changed_after_the_import(store, monkeypatch):
    """A process that imported the ops, whose files were then edited, proves with the code it runs: its proof
    is not stored under the hash of files it does not run."""
    monkeypatch.setattr(proofs, "_hash_sources", lambda: "e" * 64)     # the files on disk now
    softmax_xent_rule.cache_clear()
    assert _by_hand(softmax_xent_rule())
    assert not list(store.glob("*.pickle"))


def test_a_rule_whose_closure_is_more_than_its_expression_is_not_kept(store):
    """GELU's adjoint is exact at Z = 0 (½·gR) by a wrapper around its compiled expression; a rule read back
    would be compiled from the expression alone, so such a rule is proven in every process, never stored."""
    from symgpt.ops.gelu import gelu_rule
    gelu_rule.cache_clear()
    assert gelu_rule().grad_Z(fmpq(1), fmpq(0)) == fmpq(1, 2)
    assert not [f for f in store.glob("*.pickle") if "gelu" in f.name]
    gelu_rule.cache_clear()
    assert gelu_rule().grad_Z(fmpq(1), fmpq(0)) == fmpq(1, 2)
    gelu_rule.cache_clear()
