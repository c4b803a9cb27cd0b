"""The ops' names facet (symgpt.ops.NAMES): each op says how its quantities are called, and the consumers read it.

The meanings, axes and TeX the facets hold are the graph's own (for the seed's models); every plan application's
output is named by its own op; the spec reader, training, the documents' TeX, the HTML's Chinese meanings and the
claims' aliases and candidates take what they know of a quantity from there.
"""
from __future__ import annotations

import re

import pytest

import symgpt
from symgpt.claims.candidates import candidates
from symgpt.claims.context import ALIASES, EXP_OF, PRIMES
from symgpt.documents.display import group_tex
from symgpt.documents.html import meanings
from symgpt.engine.arch import Arch
from symgpt.engine.names import SIZES, UNTRAINED, base, learnable
from symgpt.engine.spec import SpecError, load_spec
from symgpt.ops import NAMES, OPS
from symgpt.training.train import NO_DECAY

import specs

SEEDS = ("tiny-transformer", "bigram")


def _layers_spec(tmp_path, **sizes):
    path = tmp_path / "deep.toml"
    path.write_text(specs.spec_toml(**sizes), encoding="utf-8")
    return path


def _own_groups(d):
    """The graph's groups that are not adjoints: (group, its name without a layer prefix)."""
    return [(g, base(g.name)) for g in d._skeleton.groups.values() if not g.name.startswith("grad_")]


@pytest.mark.parametrize("name", SEEDS)
def test_the_seed_models_groups_are_named_by_their_ops_as_the_graph_has_them(name):
    """Every group of the seed's models has its op's Name: the same English meaning and axes, and a Chinese one."""
    d = symgpt.load(name)
    for g, key in _own_groups(d):
        n = NAMES[key]
        assert (n.en, n.axes) == (g.meaning, g.axes), g.name
        assert n.zh, g.name


def test_deeper_models_groups_keep_their_names_and_axes(tmp_path):
    """Two blocks of two heads with W_O: every block's groups have their op's Name and axes (a head axis first);
    the meanings are the seed's but where W_O changes what Attn is."""
    d = symgpt.load(_layers_spec(tmp_path, V=6, d=4, heads=2, d_ff=4, layers=2, T=3))
    prefixed = {g.name for g, _ in _own_groups(d) if g.name.startswith("l1.")}
    assert {"l1.S", "l1.mu2", "l1.LN2", "l1.W_O", "l1.Attn_heads"} <= prefixed
    for g, key in _own_groups(d):
        n = NAMES[key]
        assert n.axes == tuple(a for a in g.axes if a != "h"), g.name
        assert n.en == g.meaning or (key, g.meaning) == ("Attn", "attention output after W_O"), g.name


def test_every_application_of_a_plan_is_named_by_its_own_op():
    """The group an application defines is one its op's facet names (Q, K, V are attention's own projections)
    and the parameters it reads are named as parameters."""
    for arch in (Arch(kind="transformer", V=6, d=4, heads=2, d_ff=4, layers=2, W_O=True),
                 Arch(kind="transformer", V=6, d=2, heads=1, d_ff=4, layers=1, tied=False),
                 Arch(kind="bigram", V=3, d=2)):
        for a in arch.plan(3):
            assert base(a.out) in OPS[a.op].NAMES, (a.op, a.out)
            for _, group in a.params:      # a parameter is some op's (the tied head reads the embedding's E)
                assert NAMES[base(group)].kind == "param", group


def test_a_parameters_meaning_and_axes_are_its_ops_params():
    for m in OPS.values():
        for key, p in m.PARAMS.items():
            assert (NAMES[key].en, NAMES[key].axes, NAMES[key].kind) == (p.meaning, p.axes, "param")
        assert all(NAMES[k].kind != "param" for k in m.NAMES if k not in m.PARAMS)


def test_training_reads_which_parameters_are_trained_and_decayed():
    """The norm's γ, β are trained only with training.learnable_ln; the embedding, the biases and γ, β never decay."""
    assert set(UNTRAINED) == {"gamma1", "beta1", "gamma2", "beta2", "gamma_f", "beta_f"}   # a pre-norm's final γ, β too
    assert set(NO_DECAY) == {"E", "b_1", "b_2", "gamma1", "beta1", "gamma2", "beta2", "gamma_f", "beta_f",
                             "b_Q", "b_K", "b_V", "b_O", "b_3"}   # every bias, as nanoGPT's groups
    d = symgpt.load("tiny-transformer")
    trained = {n.partition("[")[0] for n in learnable(d.spec)}
    assert trained == set(d.spec.params) - set(UNTRAINED)


def test_the_ops_hyper_parameters_are_sizes_of_the_registry():
    assert list(SIZES) == ["d", "d_ff", "heads", "layers", "ln_eps", "pe_base"]
    assert SIZES["ln_eps"] == (NAMES["ln_eps"].en, "ln_eps") and NAMES["pe_base"].kind == "size"
    R = symgpt.load("tiny-transformer")._registry
    assert R.ref("ln_eps").meaning == NAMES["ln_eps"].en and R.ref("pe_base").expr == 10000


def test_the_spec_reads_each_parameters_shape_and_default_from_its_op(tmp_path):
    """Shapes are the ops' dims over (V, d, d_ff, d_kv: K and V's columns, d without grouped-query attention); a
    block may leave out γ (1), β (0) and W_O (none)."""
    s = load_spec(_layers_spec(tmp_path, V=6, d=4, heads=2, d_ff=3, layers=2, T=3))
    sizes = {"V": 6, "d": 4, "d_ff": 3, "d_kv": 4}
    for group, values in s.params.items():
        shape = (len(values), len(values[0])) if isinstance(values[0], list) else (len(values),)
        assert shape == tuple(sizes[x] for x in NAMES[base(group)].dims), group
    text = (tmp_path / "deep.toml").read_text(encoding="utf-8")
    bare = re.sub(r"^(gamma1|beta1|gamma2|beta2|W_O) = .*\n", "", text, flags=re.M)
    (tmp_path / "bare.toml").write_text(bare, encoding="utf-8")
    b = load_spec(tmp_path / "bare.toml")
    assert b.params["l1.gamma2"] == [1] * 4 and b.params["l0.beta1"] == [0] * 4 and "l0.W_O" not in b.params
    assert list(b.params) == [k for k in s.params if not k.endswith("W_O")]


def test_a_norm_of_rows_of_one_entry_needs_a_positive_eps(tmp_path):
    """The op's own refusal, with the spec reader's file and key (the bigram, which has no norm, is free of it)."""
    text = specs.spec_toml(V=4, d=1, heads=1, d_ff=2, layers=3, T=2)
    path = tmp_path / "one.toml"
    path.write_text(text, encoding="utf-8")
    assert load_spec(path).d == 1                       # ε = 1e-5: fine
    path.write_text(text.replace("ln_eps = 1e-5", "ln_eps = 0"), encoding="utf-8")
    with pytest.raises(SpecError) as e:
        load_spec(path)
    assert str(e.value) == (f"{path}: model.ln_eps: expected ε > 0 with d = 1 (a row of one entry has variance 0, "
                            "so LayerNorm would divide 0 by √0), got 0")
    bigram = tmp_path / "bigram1.toml"
    bigram.write_text('[model]\nkind = "bigram"\nvocab = ["a", "b"]\nd = 1\n[data]\ninput = ["a"]\n'
                      'target = "b"\n[weights]\nE = [[0.5], [0.25]]\nW = [[0.5, -0.5]]\n', encoding="utf-8")
    assert load_spec(bigram).d == 1


def test_the_documents_tex_of_a_name_is_its_ops():
    assert group_tex("l1.var2") == "{" + NAMES["var2"].tex + "}^{[2]}"
    assert group_tex("grad_E_head") == r"\partial_{" + NAMES["E_head"].tex + r"} \mathcal{L}"
    assert group_tex("W_Q") == "W_{Q}" and not NAMES["W_Q"].tex       # no TeX of its own: the generic rule


def test_the_pages_chinese_meanings_are_the_ops():
    zh = meanings("zh")
    assert all(zh.get(n.en, n.en) == n.zh for n in NAMES.values() if n.zh)
    assert meanings("en") == {} and "gradient" in zh


def test_the_claims_aliases_are_the_ops():
    """A quantity's, its gradient's and its functions' aliases, exp's groups and the residual marks h', h''."""
    for key, n in NAMES.items():
        assert ALIASES.get(key, ()) == n.aliases and ALIASES.get("grad_" + key, ()) == n.grad
        assert all(ALIASES[f"{f}({key})"] == words for f, words in n.of)
    assert set(EXP_OF) == {"S", "z", "logits"} and PRIMES["LN2"] == PRIMES["H2"] == 2 and "H0" not in PRIMES


def _functions_of(cands) -> dict:
    out: dict = {}
    for c in cands:
        m = re.fullmatch(r"(exp|sqrt|log)\((l\d\.)?(\w+)\)", c.group)
        if m and not m[3].startswith(("grad_", "adamw")):
            out.setdefault(c.group, set()).add(c.idx)
    return out


def _every_block_gets_its_functions(d):
    found = _functions_of(candidates(d))
    for l in range(d.spec.layers):
        p = f"l{l}."
        S, var = d._skeleton.groups[p + "S"], d._skeleton.groups[p + "var1"]
        assert len(found[f"exp({p}S)"]) >= S.shape[0] * S.shape[1] * S.shape[2] - 1
        assert len(found[f"sqrt({p}var1)"]) == len(found[f"sqrt({p}var2)"]) == var.shape[0]
    assert not any(k.startswith(("exp(grad", "sqrt(grad")) for k in found)
    assert {"exp(logits)", "log(p)"} <= set(found) and "exp(S)" not in found


def test_every_block_gets_the_functions_of_its_quantities(tmp_path):
    """exp of the scores and √ of the variances are candidates for l0.S, l1.S … too (once only S had them)."""
    _every_block_gets_its_functions(symgpt.load(_layers_spec(tmp_path, V=6, d=4, heads=2, d_ff=4, layers=2, T=3)))


@pytest.mark.slow
def test_every_block_of_a_ladder_spec_gets_the_functions_of_its_quantities():
    _every_block_gets_its_functions(symgpt.load("benchmarks/specs/ladder-d8-T8-L2-h2.toml"))
