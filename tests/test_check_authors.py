"""check: forms the fifth round of held-out tutorials showed (issue 27), each on a text written here, in more than one
language or format where the reading has words:

* a sum of products that leaves out the bias its quantity's definition adds (``f_{3,1} = … = 0.5750``): wrong as
  that entry, its cause a forgotten term, where the name is learned from the entry beside it;
* a block's tensor with its layer as the first subscript (``q_{1,3,2}``);
* a mini-batch's spec: the mean loss and the mean gradient are what 'the loss' and ``W.grad`` print, and a sum
  not divided by the batch's size is that slip;
* two matrices set side by side in one table, an empty column between them;
* Φ(z), GELU's factor, and ``erf``, ``tanh`` in the claims language;
* a token of white space shown as ␣; ``lr=0.01`` in ``AdamW(…)`` where SGD's rate is another;
* a checkpoint's names (``h.0.ln_1.weight[1]``, ``transformer.h.0.attn.c_attn.weight[2, 9]``,
  ``model.layers.0.self_attn.q_proj.weight[3, 1]``);
* a gradient check's table whose rows are entries of a vector and of a matrix; a header cell over two columns;
* a running total said after a token ('加上“喝”以后累积到 …'); a heading's word before ``e^{x} = …``;
* 'a loss of …', 'une perte de …', 'ein Verlust von …'.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

from decimal import Decimal

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_layouts import r4
from test_check_readings import SPEC, VOCAB, X, Y, by_hand
from test_check_vocabulary import _results


@pytest.fixture(scope="module")
def run():
    yield from by_hand()


def _verdicts(results) -> dict:
    """figure as printed → (verdict, quantity, cause)."""
    return {(r.number.printed or r.number.text): (r.verdict, r.ref, r.cause) for r in results}


def _wrong(results) -> list:
    return [(r.ref, r.number.printed or r.number.text, r.cause) for r in results if r.verdict == "wrong"]


def _block(factory, name: str, **kw):
    toml = oracle.random_spec_toml(V=5, **kw)
    path = write_spec(factory.mktemp(name), toml)
    return path, oracle.load_spec(str(path)), oracle.transformer_forward(oracle.load_spec(str(path)))


@pytest.fixture(scope="module")
def narrow(tmp_path_factory):
    """A post-LN block at d = 2 (seed 3, T = 3, one head, d_ff = 4): path, spec, forward."""
    return _block(tmp_path_factory, "narrow", seed=3, d=2, heads=1, d_ff=4, layers=1, T=3)


@pytest.fixture(scope="module")
def layered(tmp_path_factory):
    """Two post-LN blocks at d = 2 (seed 7, T = 2)."""
    return _block(tmp_path_factory, "layered", seed=7, d=2, heads=1, d_ff=4, layers=2, T=2)


def _f(x) -> mp.mpf:
    """A spec's weight (a Fraction) at the working precision."""
    return mp.mpf(x.numerator) / x.denominator


def _d(x) -> str:
    """A spec's weight as its decimal text."""
    return str(Decimal(x.numerator) / Decimal(x.denominator))


def _chain(xs, ws) -> str:
    term = lambda x, w: f"{r4(x)} × {mp.nstr(w, 6)}" if w >= 0 else f"{r4(x)} × ({mp.nstr(w, 6)})"   # noqa: E731
    return " + ".join(term(x, w) for x, w in zip(xs, ws))


@pytest.mark.parametrize("name, fmt", [("f", "doc.md"), ("FFN", "doc.txt")])
def test_a_sum_of_products_without_its_bias_is_a_forgotten_term(tmp_path, narrow, name, fmt):
    """f_{3,1} = Σ r·w = …, the bias left out, beside f_{3,2} with it: F[2,0] is wrong, a forgotten term."""
    path, spec, fw = narrow
    W2, b2 = spec["layer"][0]["W_2"], spec["layer"][0]["b_2"]
    R, F = fw["R"][2], fw["F"][2]
    w0 = [_f(W2[k][0]) for k in range(4)]
    w1 = [_f(W2[k][1]) for k in range(4)]
    without = r4(F[0] - _f(b2[0]))
    assert without != r4(F[0])
    text = (f"The FFN's output at position 3:\n\n"
            f"    {name}_{{3,1}} = {_chain(R, w0)} = {without}\n"
            f"    {name}_{{3,2}} = {_chain(R, w1)} + ({_d(b2[1])}) = {r4(F[1])}\n")
    got = _verdicts(_results(tmp_path, text, path, fmt))
    assert got[without] == ("wrong", "F[2,0]", "forgotten term")
    assert got[r4(F[1])][:2] == ("matched", "F[2,1]")


def test_a_layer_as_the_first_subscript(tmp_path, layered):
    """q_{l,t,j}, all counted from 1, in a model of two blocks: the layer first, then the position and column."""
    path, _, fw = layered
    Q0, Q1 = fw["blocks"][0]["Q"], fw["blocks"][1]["Q"]
    bad = r4(Q1[1][0] + mp.mpf("0.0003"))
    text = "\n".join([f"$q_{{1,{t + 1},{j + 1}}} = {r4(Q0[t][j])}$" for t in range(2) for j in range(2)] +
                     [f"$q_{{2,1,{j + 1}}} = {r4(Q1[0][j])}$" for j in range(2)] +
                     [f"$q_{{2,2,1}} = {bad}$", f"$q_{{2,2,2}} = {r4(Q1[1][1])}$"]) + "\n"
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("l1.Q[1,0]", bad)]
    assert _verdicts(results)[r4(Q0[1][0])][:2] == ("matched", "l0.Q[1,0]")


BATCH = SPEC.replace("[sampling]", """[[training.examples]]
input = ["рыбу"]
target = "спит"

[[training.examples]]
input = ["ест"]
target = "рыбу"

[sampling]""", 1)


def _batch_by_hand():
    """The mini-batch's mean loss and mean gradient of W, by hand (the three examples of BATCH)."""
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    losses, gW = [], [[mp.mpf(0)] * 5 for _ in range(2)]
    for x, y in ((X, Y), (VOCAB.index("рыбу"), VOCAB.index("спит")), (VOCAB.index("ест"), VOCAB.index("рыбу"))):
        z = [sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)]
        e = [mp.exp(v) for v in z]
        p = [v / sum(e) for v in e]
        losses.append(-mp.log(p[y]))
        for i in range(2):
            for j in range(5):
                gW[i][j] += E[x][i] * (p[j] - (j == y)) / 3
    return sum(losses) / 3, gW


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_mini_batchs_mean_loss_and_gradient(tmp_path, lang):
    """A spec of three examples: 'the loss' and W.grad print the batch's means; a sum not divided by 3 is a slip."""
    with mp.workdps(50):
        loss, gW = _batch_by_hand()
    path = write_spec(tmp_path, BATCH)
    total = r4(gW[1][2] * 3)
    words = {"en": ("Over the batch, the mean loss is", "By hand"),
             "de": ("Der mittlere Verlust ist", "Von Hand")}[lang]
    text = (f"{words[0]} {r4(loss)}.\n\n```\n>>> W.grad\ntensor([[{', '.join(r4(g) for g in gW[0])}],\n"
            f"        [{', '.join(r4(g) for g in gW[1])}]])\n```\n\n"
            f"{words[1]}: `W.grad[1, рыбу] = {total}`\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert got[r4(loss)][:2] == ("matched", "sgd[0].loss")
    assert got[r4(gW[0][3])][:2] == ("matched", "sgd[0].grad_W[0,пьёт]")
    assert got[total] == ("wrong", "sgd[0].grad_W[1,рыбу]", "sum for mean")


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_two_matrices_side_by_side_in_one_table(tmp_path, narrow, fmt):
    """E's rows and the positions' rows in one table, an empty column between: each cell its own matrix's."""
    path, spec, fw = narrow
    E, PE = spec["weights"]["E"], fw["PE"]
    rows = [[f"t{v}", _d(E[v][0]), _d(E[v][1]), "", *([f"pos {v}", r4(PE[v][0]), r4(PE[v][1])] if v < 3 else
                                                        ["", "", ""])] for v in range(5)]
    head = ["E", "0", "1", "", "PE", "0", "1"]
    if fmt == "md":
        text = "\n".join(["| " + " | ".join(r) + " |" for r in [head, ["---"] * 7, *rows]]) + "\n"
    else:
        cell = lambda c, tag="td": f"<{tag}>{c}</{tag}>"   # noqa: E731
        text = "<!doctype html><table>\n<tr>" + "".join(cell(c, "th") for c in head) + "</tr>\n" + \
            "\n".join("<tr>" + "".join(cell(c) for c in r) + "</tr>" for r in rows) + "\n</table>\n"
    results = _results(tmp_path, text, path, f"doc.{fmt}")
    assert _wrong(results) == []
    at = {(r.number.line, r.number.printed or r.number.text): r for r in results}
    pe = next(r for (line, printed), r in at.items() if printed == r4(PE[1][1]))
    assert pe.ref in ("PE[1,1]", None) and pe.verdict != "wrong"


def test_phi_gelus_factor_and_erf_tanh_in_the_claims_language(tmp_path):
    """Φ(z) = (1 + erf(z/√2))/2 beside GELU(z) = z·Φ(z); erf and tanh as functions of a ref."""
    toml = oracle.random_spec_toml(seed=11, V=5, d=2, heads=1, d_ff=4, layers=1, T=2, activation="gelu")
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    with mp.workdps(50):
        fw = oracle.transformer_forward(spec)
        z = fw["Z"][1][2]
        phi = (1 + mp.erf(z / mp.sqrt(2))) / 2
    text = (f"For unit 3 of the last row, $\\Phi({r4(z)}) = {r4(phi)}$, so "
            f"$\\mathrm{{GELU}}({r4(z)}) = {r4(z)} \\times {r4(phi)} \\approx {r4(z * phi)}$.\n")
    results = _results(tmp_path, text, path)
    first = next(r for r in results if r.number.text == r4(phi))          # Φ's value (then an operand)
    assert (first.verdict, first.ref) == ("matched", "(1+erf((Z[1,2])/sqrt(2)))/2")
    gelu = results[-1]
    assert gelu.number.text == r4(z * phi) and gelu.verdict != "wrong" and "R[1,2]" in gelu.candidates
    import symgpt
    d = symgpt.load(path)
    with mp.workdps(40):
        assert d.value("erf(1/2)", digits=30) == mp.nstr(mp.erf(mp.mpf(1) / 2), 30)
        assert d.value("tanh(Z[1,2])", digits=20) == mp.nstr(mp.tanh(z), 20)


SPACE = SPEC.replace('vocab = ["кот", "ест", "рыбу", "пьёт", "спит"]', 'vocab = [" ", "ест", "рыбу", "пьёт", "спит"]') \
    .replace('input = ["кот"]', 'input = [" "]')


def test_a_space_token_shown_as_an_open_box(tmp_path):
    """The token ' ' written ␣ (ℓ_{␣}, p(␣)): its logit and its probability, named by its id."""
    spec = oracle.loads_spec(SPEC)
    with mp.workdps(50):
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
        z = [sum(E[X][i] * W[i][j] for i in range(2)) for j in range(5)]
        p = [mp.exp(v) / sum(mp.exp(u) for u in z) for v in z]
    path = write_spec(tmp_path, SPACE)
    text = f"The logit of the space is $\\ell_{{␣}} = {r4(z[0])}$ and then p(␣) = {r4(p[0])}.\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert got[r4(z[0])][:2] == ("matched", "z[0]")
    assert got[r4(p[0])][:2] == ("matched", "p[0]")


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_adamws_rate_in_code_where_sgds_is_another(tmp_path, fmt):
    """`AdamW(lr=0.01, …)` in a spec whose SGD rate is 0.5: AdamW's rate, one figure (not 0.0 and 1)."""
    path = write_spec(tmp_path, SPEC)
    text = "The optimizer is torch.optim.AdamW(lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01).\n"
    results = _results(tmp_path, text, path, fmt)
    assert _wrong(results) == []
    first = next(r for r in results if (r.number.printed or r.number.text) == "0.01")
    assert (first.verdict, first.ref) == ("matched", "adamw.lr")


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    toml = oracle.random_spec_toml(seed=13, V=5, d=4, heads=2, d_ff=8, layers=1, T=2, norm="pre",
                                   activation="gelu_tanh", n_ctx=3, bias=True, W_O=True)
    path = write_spec(tmp_path_factory.mktemp("gpt2"), toml)
    return path, oracle.load_spec(str(path))


def test_a_gpt2_checkpoints_names(tmp_path, gpt2):
    """GPT-2's state_dict names (Conv1D, in × out; c_attn is Q, K and V side by side): each the spec's entry."""
    path, spec = gpt2
    L = spec["layer"][0]
    slip = _d(L["W_V"][2][1] + type(L["W_V"][2][1])(7, 100))
    text = "\n".join([f"- `h.0.ln_1.weight[1]` = {_d(L['gamma1'][1])}",
                      f"- `transformer.wte.weight[2, 0]` = {_d(spec['weights']['E'][2][0])}",
                      f"- `h.0.mlp.c_fc.weight[0, 5]` = {_d(L['W_1'][0][5])}",
                      f"- `h.0.attn.c_attn.weight[1, 5]` = {_d(L['W_K'][1][1])}",
                      f"- `transformer.h.0.attn.c_attn.weight[2, 9]` = {slip}"]) + "\n"
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("W_V[2,1]", slip)]


def test_a_llama_checkpoints_names_are_transposed(tmp_path):
    """Llama's nn.Linear keeps out × in: q_proj.weight[3, 1] is W_Q[1,3], gate_proj.weight[5, 0] W_1[0,5]."""
    toml = oracle.random_spec_toml(seed=17, V=5, d=4, heads=2, d_ff=6, layers=1, T=2, norm="pre",
                                   norm_kind="rmsnorm", activation="swiglu", rope=True, bias=False, W_O=True)
    toml = toml.replace("[model]", '[model]\narch = "llama"', 1)
    path = write_spec(tmp_path, toml)
    L = oracle.load_spec(str(path))["layer"][0]
    slip = _d(L["W_1"][0][5] - type(L["W_1"][0][5])(2, 100))
    text = (f"model.layers.0.self_attn.q_proj.weight[3, 1] = {_d(L['W_Q'][1][3])}\n"
            f"layers.0.mlp.gate_proj.weight[5, 0] = {slip}\n")
    results = _results(tmp_path, text, path, "doc.txt")
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("W_1[0,5]", slip)]
    assert _verdicts(results)[_d(L["W_Q"][1][3])][:2] == ("matched", "W_Q[1,3]")


GRADCHECK = """
[training]
lr = 0.1
learnable_ln = true
gradcheck = {h = 1e-4, params = ["gamma1[0]", "W_1[0,2]"]}
"""


def _loss_at(spec, moves) -> mp.mpf:
    """The loss with the given weights moved ((layer key, index, δ)), by tests/oracle.py."""
    import copy
    s = copy.deepcopy(spec)
    for key, idx, delta in moves:
        t = s["layer"][0][key]
        if len(idx) == 1:
            t[idx[0]] = _f(t[idx[0]]) + delta
        else:
            t[idx[0]][idx[1]] = _f(t[idx[0]][idx[1]]) + delta
    return oracle.transformer_forward(s)["loss"]


@pytest.mark.parametrize("layout", ["pipe", "code"])
def test_a_gradient_check_over_a_vector_and_a_matrix(tmp_path, narrow, layout):
    """A check's rows gamma1[0] (a vector's) and W_1[0,2] (a matrix's) under 'numeric', a relative error beside:
    the vector's row read as well as the matrix's; a header cell over two columns names no second figure."""
    path0, spec, _ = narrow
    path = write_spec(tmp_path, path0.read_text(encoding="utf-8") + GRADCHECK)
    h = mp.mpf("1e-4")
    with mp.workdps(50):
        num = {k: (_loss_at(spec, [(k, i, h)]) - _loss_at(spec, [(k, i, -h)])) / (2 * h)
               for k, i in (("gamma1", (0,)), ("W_1", (0, 2)))}
    g0, w = r4(num["gamma1"], 10), r4(num["W_1"], 10)
    bad = g0[:-2] + g0[-1] + g0[-2] if g0[-1] != g0[-2] else g0[:-1] + str((int(g0[-1]) + 4) % 10)   # swapped
    if layout == "pipe":
        text = ("| parameter | numeric | rel. error |\n| --- | --- | --- |\n"
                f"| gamma1[0] | {bad} | 5e-08 |\n| W_1[0,2] | {w} | 7e-08 |\n")
    else:
        text = ("```\nparameter        numeric rel. error\n"
                f"gamma1[0]   {bad:>13}      5e-08\nW_1[0,2]    {w:>13}      7e-08\n```\n")
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("gradcheck(gamma1[0], 1e-4)", bad)]


@pytest.mark.parametrize("sentence", ["加上“{t}”以后累积到 {v}，超过了 0.5。",
                                      "Adding “{t}”, the cumulative share reaches {v}."])
def test_a_running_total_said_after_a_token(tmp_path, run, sentence):
    """'加上“t”以后累积到 0.8688': the first two shares' sum, not t's share."""
    p = run["f0"]["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    v = r4(p[order[0]] + p[order[1]])
    path = write_spec(tmp_path, SPEC)
    text = f"top-p：先排序。{VOCAB[order[0]]} {r4(p[order[0]])}。\n\n" + \
        sentence.format(t=VOCAB[order[1]], v=v) + "\n"
    results = _results(tmp_path, text, path)
    assert _wrong(results) == []
    assert _verdicts(results)[v][0] == "matched"


@pytest.mark.parametrize("word", ["softmax：", "the softmax:"])
def test_a_word_before_e_to_a_power_names_no_figure(tmp_path, narrow, word):
    """'位置 2 的 softmax：e^{−0.3005} = 0.7405': e to that score, not the word's quantity."""
    path, _, fw = narrow
    s = fw["S"][1][0]
    text = f"位置 2 的 {word} $e^{{{r4(s)}}} = {r4(mp.exp(s))}$\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert got[r4(mp.exp(s))][:2] == ("matched", "exp(S[1,0])")


@pytest.mark.parametrize("sentence", ["After the step we reach a loss of {}.", "On obtient une perte de {}.",
                                      "Man erhält einen Verlust von {}."])
def test_a_loss_of_a_figure(tmp_path, run, sentence):
    """'a loss of 1.5…', 'une perte de …', 'ein Verlust von …': the loss, wrong by its last digit."""
    loss = r4(run["f0"]["loss"])
    slip = loss[:-1] + str((int(loss[-1]) + 2) % 10)
    path = write_spec(tmp_path, SPEC)
    got = _verdicts(_results(tmp_path, sentence.format(slip) + "\n", path))
    assert got[slip][:2] == ("wrong", "loss")


# ---------------------------------------------------------------- round 35

def _batch_adamw(steps=2):
    """The mini-batch of BATCH trained by AdamW (lr 0.01, β 0.9/0.999, ε 1e-8, decay 0.01, every weight), by hand:
    [(mean loss, p of the first example)] for the states 0 … steps, and of the second example its p."""
    spec = oracle.loads_spec(BATCH)
    E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
    pairs = ((X, Y), (VOCAB.index("рыбу"), VOCAB.index("спит")), (VOCAB.index("ест"), VOCAB.index("рыбу")))
    lr, b1, b2, eps, lam = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))
    mE, vE = [[mp.mpf(0)] * 2 for _ in range(5)], [[mp.mpf(0)] * 2 for _ in range(5)]
    mW, vW = [[mp.mpf(0)] * 5 for _ in range(2)], [[mp.mpf(0)] * 5 for _ in range(2)]
    out = []
    for k in range(steps + 1):
        gE, gW, losses, ps = [[mp.mpf(0)] * 2 for _ in range(5)], [[mp.mpf(0)] * 5 for _ in range(2)], [], []
        for x, y in pairs:
            z = [sum(E[x][i] * W[i][j] for i in range(2)) for j in range(5)]
            e = [mp.exp(v) for v in z]
            p = [v / sum(e) for v in e]
            losses.append(-mp.log(p[y]))
            ps.append(p)
            for j in range(5):
                g = (p[j] - (j == y)) / 3
                for i in range(2):
                    gW[i][j] += E[x][i] * g
                    gE[x][i] += W[i][j] * g
        out.append((sum(losses) / 3, ps[0], ps[1]))
        if k == steps:
            break
        t = k + 1
        for P, G, M, Vv in ((E, gE, mE, vE), (W, gW, mW, vW)):
            for r in range(len(P)):
                for c in range(len(P[0])):
                    M[r][c] = b1 * M[r][c] + (1 - b1) * G[r][c]
                    Vv[r][c] = b2 * Vv[r][c] + (1 - b2) * G[r][c] ** 2
                    mhat, vhat = M[r][c] / (1 - b1 ** t), Vv[r][c] / (1 - b2 ** t)
                    P[r][c] = P[r][c] - lr * lam * P[r][c] - lr * mhat / (mp.sqrt(vhat) + eps)
    return out


@pytest.mark.parametrize("corner, example", [("AdamW 步数", "样本 2 的"), ("AdamW step", "example 2:")])
def test_a_batch_tables_steps_its_mean_loss_and_another_example(tmp_path, corner, example):
    """Rows of AdamW steps under J̄ (the batch's mean loss, the first row its start), a column of the first example's
    p and one of the second's: the second's is no quantity of the spec; a slip in row 1 is adamw[1].loss's."""
    path = write_spec(tmp_path, BATCH)
    with mp.workdps(50):
        states = _batch_adamw()
    bad = r4(states[1][0] + mp.mpf("0.0009"))
    rows = [f"| {k} | {bad if k == 1 else r4(loss)} | {r4(p[Y])} | {r4(q[VOCAB.index('спит')])} |"
            for k, (loss, p, q) in enumerate(states)]
    text = (f"## AdamW\n\n| {corner} | $\\bar J$ | $\\hat y_{{пьёт}}$ | {example} $\\hat y_{{спит}}$ |\n"
            "| --- | --- | --- | --- |\n" + "\n".join(rows) +
            f"\n\nIn two steps the mean loss falls from {r4(states[0][0])} to {r4(states[2][0])}.\n")
    results = _results(tmp_path, text, path)
    assert [(ref, printed) for ref, printed, _ in _wrong(results)] == [("adamw[1].loss", bad)]
    got = {(r.number.line, r.number.text): r for r in results}
    assert got[(5, r4(states[0][0]))].ref == "sgd[0].loss"
    assert got[(7, r4(states[2][0]))].ref == "adamw[2].loss"
    assert got[(9, r4(states[2][0]))].ref == "adamw[2].loss"           # 'from … to …' in two steps


@pytest.mark.parametrize("fmt", ["doc.md", "doc.txt"])
def test_a_relation_word_that_is_also_a_token(tmp_path, fmt):
    """'which sum to 3.2847', 'from 1.38 to 1.27' where 'to' is a token of the vocabulary: no share of 'to'."""
    toml = SPEC.replace('vocab = ["кот", "ест", "рыбу", "пьёт", "спит"]',
                        'vocab = ["кот", "ест", "to", "пьёт", "спит"]')
    path = write_spec(tmp_path, toml)
    spec = oracle.loads_spec(toml)
    with mp.workdps(50):
        E, W = oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])
        e = [mp.exp(sum(E[X][i] * W[i][j] for i in range(2))) for j in range(5)]
    text = f"The exponentials are {r4(e[0])} and {r4(e[1])} and more, which sum to {r4(sum(e))}.\n"
    results = _results(tmp_path, text, path, fmt)
    assert _wrong(results) == []
    assert _verdicts(results)[r4(sum(e))][:2] == ("matched", "sum_exp")


def test_a_character_vocabularys_letter_in_a_formula(tmp_path):
    """'central differences with h = 1e-5' where 'h' is a token of a character-level vocabulary: a symbol."""
    toml = SPEC.replace('vocab = ["кот", "ест", "рыбу", "пьёт", "спит"]', 'vocab = [" ", "e", "h", "l", "o"]') \
        .replace('input = ["кот"]', 'input = [" "]').replace('target = "пьёт"', 'target = "l"')
    path = write_spec(tmp_path, toml)
    text = "The numeric gradient uses central differences with h = 1e-5, as before.\n\nh = 1e-5\n"
    assert _wrong(_results(tmp_path, text, path, "doc.txt")) == []


@pytest.mark.parametrize("row", ["W_fc[0,2]", "c_fc[0,2]"])
def test_a_gradient_check_row_in_nanogpts_names(tmp_path, narrow, row):
    """A check's row 'W_fc[0,2]' (nanoGPT's c_fc) is W_1[0,2]; a slip in its numeric column is that check's."""
    path0, spec, _ = narrow
    path = write_spec(tmp_path, path0.read_text(encoding="utf-8") + GRADCHECK)
    h = mp.mpf("1e-4")
    with mp.workdps(50):
        num = (_loss_at(spec, [("W_1", (0, 2), h)]) - _loss_at(spec, [("W_1", (0, 2), -h)])) / (2 * h)
    w = r4(num, 10)
    bad = w[:-1] + str((int(w[-1]) + 5) % 10)
    text = f"| parameter | numeric |\n| --- | --- |\n| {row} | {bad} |\n| gamma1[0] | 0.5 |\n"
    results = _results(tmp_path, text, path)
    assert ("gradcheck(W_1[0,2], 1e-4)", bad) in [(ref, printed) for ref, printed, _ in _wrong(results)]


def test_rows_from_zero_before_each_step_keep_their_states(tmp_path, run):
    """A table of rows 0, 1, 2 under 'the weights before each step' (the states after 0, 1, 2 steps): row k is the
    state after k steps, matched; only 'at the start of step k' counts its rows from the first step."""
    path = write_spec(tmp_path, SPEC)
    Ws = [W for _, W in run["states"][:3]]
    text = ("## SGD\n\nTable: the weights before each step\n\n"
            "| step | $W_{0,пьёт}$ | $W_{1,ест}$ |\n| --- | --- | --- |\n" +
            "\n".join(f"| {k} | {r4(W[0][3])} | {r4(W[1][1])} |" for k, W in enumerate(Ws)) + "\n")
    results = _results(tmp_path, text, path)
    assert _wrong(results) == []
    assert _verdicts(results)[r4(Ws[2][0][3])][:2] == ("matched", "sgd[2].W[0,пьёт]")
