"""check's readings from round 51 of the held-out tutorials (issue 27), each on texts written here in more than one
notation or language:

* two tables of AdamW states, one per step, under the same step-less column names (m, v, m_hat, theta): each table
  is its own step's, so a sign turned in the first is adamw[1]'s and the second raises no alarm;
* a quantity with the step after it ('loss after step 2', 'loss setelah langkah 2', 'L (Schritt 2)') is the state
  after that step;
* aligned equations in a code block's output ('dW[0,1]   =   …' on each line) are each their own equation, not one
  column vector;
* a share in a table captioned or headed by its temperature ('Distribution at T = 1.5', a column 'p (T = 1,5)') is
  softmax_T at that temperature, not at the spec's first;
* p′ in a section on top-p or top-k is the renormalised share;
* a difference printed with its result's sign turned ('p − 1 = 0.2567 − 1 = 0.7433') is the node it defines, wrong by
  a sign flip;
* 'from … to' wrapped before the second figure, and 'the logit of *word*', read as on one line;
* one figure whose only agreement is a state after training that nothing names gives its name no reading;
* ∂L/∂β₂ is the gradient of the norm's shift, where grad_h_final holds the same values.

Every expected value is computed here with mpmath or by ``tests/oracle.py``, never by symgpt.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import mpmath as mp
import pytest

from symgpt.check import extract, find_spec, load, read
from symgpt.claims.match import Matcher

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_vocabulary import _results

VOCAB = ["sun", "rises", "sets", "moon", "glows"]
SPEC = """title = "A five-word bigram, two AdamW steps"
[model]
kind = "bigram"
vocab = ["sun", "rises", "sets", "moon", "glows"]
d = 3
[data]
input = ["moon"]
target = "glows"
[weights]
E = [[0.3, -0.2, 0.5], [-0.4, 0.1, 0.2], [0.2, 0.6, -0.3], [0.5, -0.1, 0.4], [-0.2, 0.3, 0.1]]
W = [[0.2, -0.5, 0.1, 0.4, -0.3], [0.6, 0.2, -0.4, 0.1, 0.3], [-0.1, 0.4, 0.3, -0.2, 0.5]]
[sampling]
temperatures = ["0.5", "1.5"]
top_k = 2
top_p = 0.8
[training]
lr = 0.5
steps = 2
[training.adamw]
lr = 0.01
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
weight_decay = 0.01
"""
X, Y = VOCAB.index("moon"), VOCAB.index("glows")


def r(x, places=4, comma=False) -> str:
    """x rounded half away from zero to ``places`` decimals (with a decimal comma where asked)."""
    s = str(Decimal(mp.nstr(x, 40, strip_zeros=False)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))
    return s.replace(".", ",") if comma else s


def sci(x, places=4) -> str:
    """x as Python's '{:.4e}' would print it, rounded half away from zero from its exact value."""
    e = int(mp.floor(mp.log10(abs(x))))
    m = r(x / mp.mpf(10) ** e, places)
    if abs(mp.mpf(m)) >= 10:
        e, m = e + 1, r(x / mp.mpf(10) ** (e + 1), places)
    return f"{m}e{'-' if e < 0 else '+'}{abs(e):02d}"


def forward(E, W):
    """z = E[moon]·W, p = softmax(z), L = −ln p[glows]; the gradients of L by hand (∂L/∂z = p − y)."""
    z = [mp.fsum(E[X][i] * W[i][j] for i in range(3)) for j in range(5)]
    e = [mp.exp(v) for v in z]
    p = [v / mp.fsum(e) for v in e]
    delta = [p[j] - (j == Y) for j in range(5)]
    gW = [[E[X][i] * delta[j] for j in range(5)] for i in range(3)]
    gE = [[mp.mpf(0)] * 3 for _ in range(5)]
    gE[X] = [mp.fsum(W[i][j] * delta[j] for j in range(5)) for i in range(3)]
    return dict(z=z, p=p, loss=-mp.log(p[Y]), delta=delta, gW=gW, gE=gE)


def weights():
    spec = oracle.loads_spec(SPEC)
    return oracle.mat(spec["weights"]["E"]), oracle.mat(spec["weights"]["W"])


def adamw_states(steps=2):
    """[{m, v, mhat, vhat, W, E, loss}] after each AdamW step (torch's decoupled decay), by hand."""
    lr, b1, b2, eps, lam = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8", "0.01"))
    E, W = weights()
    m = {"W": [[mp.mpf(0)] * 5 for _ in range(3)], "E": [[mp.mpf(0)] * 3 for _ in range(5)]}
    v = {"W": [[mp.mpf(0)] * 5 for _ in range(3)], "E": [[mp.mpf(0)] * 3 for _ in range(5)]}
    out = []
    for t in range(1, steps + 1):
        f = forward(E, W)
        state = {"m": {}, "v": {}, "mhat": {}, "vhat": {}}
        for name, P, G in (("W", W, f["gW"]), ("E", E, f["gE"])):
            for a in range(len(P)):
                for b in range(len(P[0])):
                    m[name][a][b] = b1 * m[name][a][b] + (1 - b1) * G[a][b]
                    v[name][a][b] = b2 * v[name][a][b] + (1 - b2) * G[a][b] ** 2
                    mh, vh = m[name][a][b] / (1 - b1 ** t), v[name][a][b] / (1 - b2 ** t)
                    for k, x in (("m", m[name][a][b]), ("v", v[name][a][b]), ("mhat", mh), ("vhat", vh)):
                        state[k][(name, a, b)] = x
                    P[a][b] = P[a][b] - lr * (mh / (mp.sqrt(vh) + eps) + lam * P[a][b])
        state["theta"] = {(n, a, b): (W if n == "W" else E)[a][b] for (n, a, b) in state["m"]}
        state["loss"] = forward(E, W)["loss"]
        out.append(state)
    return out


def sgd_states(steps=2, lr=mp.mpf("0.5")):
    """[forward after each SGD step] (lr 0.5 on every weight), by hand."""
    E, W = weights()
    out = []
    for _ in range(steps):
        f = forward(E, W)
        W = [[W[i][j] - lr * f["gW"][i][j] for j in range(5)] for i in range(3)]
        E = [[E[k][i] - lr * f["gE"][k][i] for i in range(3)] for k in range(5)]
        out.append(forward(E, W))
    return out


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    return write_spec(tmp_path_factory.mktemp("bigram"), SPEC)


def _wrong(got, figure):
    verdict, ref, cause = got[figure]
    assert verdict == "wrong", (figure, got[figure])
    return ref, cause


ENTRIES = [("W", 0, Y, "W[0,glows]"), ("W", 2, 1, "W[2,rises]"), ("E", X, 1, "E[moon,1]")]
TABLE_HEADS = {"en": ("## Two AdamW steps", "loss after step {k} = {L}"),
               "id": ("## Dua langkah AdamW", "loss setelah langkah {k} = {L}")}


@pytest.mark.parametrize("lang", sorted(TABLE_HEADS))
def test_tables_of_adamw_states_one_per_step(tmp_path, spec_path, lang):
    """Two printed tables with the columns m, v, m_hat, v_hat, theta, the first step's then the second's, W[2,rises]'s
    m printed with its sign turned in the first: adamw[1].m[W,2,1], a sign flip; no figure of the second table
    wrong (the column m had been read as the second step's in both tables: four false alarms)."""
    with mp.workdps(50):
        states = adamw_states()
    heading, loss_line = TABLE_HEADS[lang]
    flipped = r(-states[0]["m"][("W", 2, 1)], 6)
    assert flipped != r(states[0]["m"][("W", 2, 1)], 6)
    blocks = []
    for k, s in enumerate(states, 1):
        rows = []
        for name, a, b, label in ENTRIES:
            key = (name, a, b)
            m = flipped if (k, key) == (1, ("W", 2, 1)) else r(s["m"][key], 6)
            rows.append(f"{label:<12}{m:>12}{sci(s['v'][key]):>13}{r(s['mhat'][key], 6):>12}"
                        f"{sci(s['vhat'][key]):>13}{r(s['theta'][key], 6):>12}")
        blocks.append("```\n" + f"{'entry':<12}{'m':>12}{'v':>13}{'m_hat':>12}{'v_hat':>13}{'theta':>12}\n" +
                      "\n".join(rows) + "\n\n" + loss_line.format(k=k, L=r(s["loss"])) + "\n```")
    text = f"# AdamW\n\n{heading}\n\nm and v start at zero.\n\n" + "\n\nThe next step:\n\n".join(blocks) + "\n"
    results = _results(tmp_path, text, spec_path)
    assert [(x.number.text, x.ref, x.cause) for x in results if x.verdict == "wrong"] == \
        [(flipped, "adamw[1].m[W,2,1]", "sign flip")]
    got = _verdicts(results)
    assert got[r(states[1]["m"][("W", 2, 1)], 6)][:2] == ("matched", "adamw[2].m[W,2,1]")
    assert got[r(states[1]["loss"])][:2] == ("matched", "adamw[2].loss")


@pytest.mark.parametrize("line", ["loss after step 2 = {}", "loss setelah langkah 2 = {}", "L nach Schritt 2 = {}",
                                  "perte après l'étape 2 = {}", "The loss after step 2 is {}."])
def test_a_loss_after_step_k(tmp_path, spec_path, line):
    """'loss after step 2 = …' with its last digit off: adamw[2].loss, a last-digit slip (it was unmatched: the word
    before '=' is the step's number); printed right, matched to it."""
    with mp.workdps(50):
        states = adamw_states()
        loss = r(states[1]["loss"])
    slip = loss[:-1] + str((int(loss[-1]) + 1) % 10)
    text = (f"# Training\n\n## Two AdamW steps\n\nloss after step 1 = {r(states[0]['loss'])}\n\n"
            + line.format(slip) + "\n\nAgain, without the slip: " + line.format(loss) + "\n")
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert _wrong(got, slip) == ("adamw[2].loss", "last-digit slip")
    assert got[loss][:2] == ("matched", "adamw[2].loss")


@pytest.mark.parametrize("lang", ["en", "id"])
def test_aligned_equations_in_an_output_block_are_each_their_own(tmp_path, spec_path, lang):
    """Lines 'dW[0,1]   =   …' aligned in a block, the second printing W[1,0]'s gradient at [0,1]: grad_W[0,1], a
    transposed index (the lines had been read as one column vector, dW[0,0]'s entries 0, 1, 2, and the value won)."""
    with mp.workdps(50):
        gW = forward(*weights())["gW"]
    assert r(gW[0][1]) != r(gW[1][0])
    pairs = [((0, 0), gW[0][0]), ((0, 1), gW[1][0]), ((1, 3), gW[1][3]), ((2, 4), gW[2][4])]
    lines = "\n".join(f"dW[{i},{j}]   =   {r(x)}" for (i, j), x in pairs)
    words = "Gradients of W:" if lang == "en" else "Gradien terhadap W:"
    text = f"# Backward\n\n{words}\n\n```\n{lines}\n```\n"
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert _wrong(got, r(gW[1][0])) == ("grad_W[0,rises]", "transposed index")
    assert got[r(gW[1][3])][:2] == ("matched", "grad_W[1,moon]")


def _shares(T):
    """softmax(z / T) at the model's logits."""
    with mp.workdps(50):
        z = forward(*weights())["z"]
        e = [mp.exp(v / T) for v in z]
        return [v / mp.fsum(e) for v in e]


@pytest.mark.parametrize("form", ["md", "html"])
def test_a_share_in_a_table_of_its_temperature(tmp_path, spec_path, form):
    """A table captioned 'Distribution at T = 1.5' (its column 'p_j(1,5)' with a decimal comma) whose 'sets' row is
    one unit off: softmax_T(1.5, sets), a last-digit slip (it was unmatched: the spec's first temperature, 0.5, was
    looked up)."""
    q = _shares(mp.mpf("1.5"))
    slip = r(q[2] + mp.mpf("0.0001"), 4, comma=True)
    cells = [slip if j == 2 else r(x, 4, comma=True) for j, x in enumerate(q)]
    if form == "md":
        body = "\n".join(f"| {w} | {c} |" for w, c in zip(VOCAB, cells))
        table = f"Table 4. Distribution at T = 1,5\n\n| word | p_j(1,5) |\n|---|---|\n{body}\n"
        name = "doc.md"
    else:
        body = "".join(f"<tr><th scope=\"row\">{w}</th><td>{c}</td></tr>" for w, c in zip(VOCAB, cells))
        table = (f"<table><caption>Table 4. Distribution at T = 1.5</caption><thead><tr><th>word</th>"
                 f"<th><var>p</var><sub>j</sub>(1,5)</th></tr></thead><tbody>{body}</tbody></table>")
        name = "doc.html"
    text = f"# Temperature\n\nAt a higher temperature the distribution flattens.\n\n{table}\n"
    if form == "html":
        text = f"<html><body><h1>Temperature</h1><p>The distribution flattens.</p>{table}</body></html>\n"
    got = _verdicts(_results(tmp_path, text, spec_path, name=name))
    key = slip if slip in got else slip.replace(",", ".")
    assert _wrong(got, key) == ("softmax_T(1.5, sets)", "last-digit slip")
    assert not [k for k, v in got.items() if v[0] == "wrong" and k != key]


def _nucleus():
    """The top-p = 0.8 nucleus of p (largest first until the sum reaches 0.8): its tokens and their mass."""
    with mp.workdps(50):
        p = forward(*weights())["p"]
    kept, mass = [], mp.mpf(0)
    for j in sorted(range(5), key=lambda j: -p[j]):
        if mass >= mp.mpf("0.8"):
            break
        kept.append(j)
        mass += p[j]
    return p, kept, mass


@pytest.mark.parametrize("heading", ["### Top-p (nucleus) with P = 0.8", "### Top-p (Nukleus) mit P = 0,8"])
def test_a_primed_share_under_top_p(tmp_path, spec_path, heading):
    """'p′_{glows} = p / 0.8 = …' under a top-p heading, divided by P instead of the nucleus's mass: topp(0.8,
    glows), wrong (it was read as the arithmetic p[glows]/0.8 and its rounding)."""
    p, kept, mass = _nucleus()
    assert Y in kept
    with mp.workdps(50):
        bad = r(p[Y] / mp.mpf("0.8"))
        good = r(p[Y] / mass)
    assert bad != good
    text = (f"# Sampling\n\n{heading}\n\nThe nucleus keeps {len(kept)} words. After renormalising, "
            f"p′_{{glows}} = {r(p[Y])} / 0.8 = {bad}.\n")
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert got[bad][:2] == ("wrong", "topp(0.8, glows)")


@pytest.mark.parametrize("words", ["For the target: p_{glows} − 1 = {p} − 1 = {g}",
                                   "Για τον στόχο: p_{glows} − 1 = {p} − 1 = {g}"])
def test_a_difference_printed_with_its_sign_turned(tmp_path, spec_path, words):
    """p − 1 = 0.2567 − 1 = 0.7433: the node p − 1 defines, grad_z[glows], a sign flip (it was matched to the
    arithmetic 1 − p, its printed operands read backwards)."""
    with mp.workdps(50):
        p = forward(*weights())["p"]
    g = r(1 - p[Y])
    text = "# Gradients\n\n∂L/∂z = p − y.\n\n" + words.replace("{p}", r(p[Y])).replace("{g}", g) + "\n"
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert _wrong(got, g) == ("grad_z[glows]", "sign flip")


@pytest.mark.parametrize("text", [
    "After one SGD step on all weights the logit of *glows* jumps from {a} to\n{b}, and *glows* now has p = {p}.",
    "Na één SGD-stap springt de logit van *glows* van {a} naar\n{b}, en *glows* heeft nu p = {p}."])
def test_from_to_wrapped_and_the_logit_of_a_word(tmp_path, spec_path, text):
    """'the logit of *glows* … from A to' ⏎ 'B': B is sgd[1].logits[glows], here one unit off, a last-digit slip (it
    was unmatched: the pair broken by the line's end)."""
    with mp.workdps(50):
        before, after = forward(*weights()), sgd_states(1)[0]
    slip = r(after["z"][Y] + mp.mpf("0.0001"))
    body = text.format(a=r(before["z"][Y]), b=slip, p=r(after["p"][Y]))
    got = _verdicts(_results(tmp_path, "# Training\n\n## One SGD step\n\n" + body + "\n", spec_path))
    assert got[r(before["z"][Y])][:2] == ("matched", "z[glows]")
    assert _wrong(got, slip) == ("sgd[1].z[glows]", "last-digit slip")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One post-LN block at d = 4 (seed 21, T = 3) with an SGD step of rate 0.1."""
    toml = oracle.random_spec_toml(seed=21, V=5, d=4, heads=1, d_ff=8, layers=1, T=3) + "\n[training]\nlr = 0.1\n"
    path = write_spec(tmp_path_factory.mktemp("trained"), toml)
    spec = oracle.load_spec(str(path))
    return path, spec, oracle.transformer_grads(spec)


@pytest.mark.parametrize("lead", ["Then the attention's output at position 2:", "Sonra dikkat çıktısı, konum 2:"])
def test_one_figure_agreeing_only_with_a_state_after_a_step(tmp_path, trained, lead):
    """'o[2][1] = x' in the forward pass, whose x happens to be a weight after the SGD step a later section takes: o
    gets no reading from that one figure (it was read as the stepped weight, the tensor every other 'o' would then
    name)."""
    path, spec, g = trained
    with mp.workdps(50):
        moved = [(name, stepped) for name in ("W_Q", "W_K", "W_V", "W_1")
                 if r(stepped := oracle.mat(spec["layer"][0][name])[2][1] - mp.mpf("0.1") * g[f"grad_{name}"][2][1])
                 != r(oracle.mat(spec["layer"][0][name])[2][1])]
    name, stepped = moved[0]          # (a weight the step moves in the fourth decimal)
    x = r(stepped)
    assert x != r(g["Attn"][2][1])
    text = (f"# One forward pass and one SGD step\n\n## Attention\n\n{lead}\n\n    o[2][1] = {x}\n\n"
            f"## The step\n\nThen we take one SGD step (lr 0.1) on every weight.\n")
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    m = Matcher(load(find_spec(path)))
    numbers = extract(read(doc).text)
    m.match(numbers, read(doc).text)
    figure = next(n for n in numbers if n.text == x)
    assert figure.index not in m.labelled, m.labelled.get(figure.index)
    assert _verdicts(_results(tmp_path, text, path))[x][0] != "wrong"


@pytest.fixture(scope="module")
def post_ln(tmp_path_factory):
    """One post-LN block at d = 4 (seed 5, T = 3): h_final is the last row of LN2, so ∂L/∂β₂ = ∂L/∂h_final."""
    toml = oracle.random_spec_toml(seed=5, V=5, d=4, heads=1, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path_factory.mktemp("post"), toml)
    spec = oracle.load_spec(str(path))
    return path, spec, oracle.transformer_grads(spec)


@pytest.mark.parametrize("beta, gamma", [("∂L/∂β_2[j]", "∂L/∂γ_2[j]"), ("∂L/∂β2[j]", "∂L/∂γ2[j]")])
def test_the_gradient_of_a_norms_shift_beside_an_equal_one(tmp_path, post_ln, beta, gamma):
    """A table of ∂L/∂β₂ and ∂L/∂γ₂ by j: grad_beta2 (grad_h_final holds the same values and was taken)."""
    path, _, g = post_ln
    rows = "\n".join(f"    {j}  |  {r(g['grad_beta2'][j]):>9}  {r(g['grad_gamma2'][j]):>9}" for j in range(4))
    text = (f"# Backward\n\nGradients of the norm's parameters:\n\n    j  |  {beta}  {gamma}\n"
            f"   ------------------\n{rows}\n")
    got = _verdicts(_results(tmp_path, text, path, name="doc.txt"))
    assert got[r(g["grad_beta2"][0])][:2] == ("matched", "grad_beta2[0]")
    assert got[r(g["grad_gamma2"][1])][:2] == ("matched", "grad_gamma2[1]")


# ---------------------------------------------------------------- round 52

def _bordered(corner, rows, columns) -> str:
    """A plain-text pipe table with a top border, a rule under its header and a bottom border."""
    rule = "    |" + "|".join("-" * 9 for _ in range(len(columns) + 1)) + "|"
    head = f"    | {corner:<7} |" + "|".join(f" {c:<7} " for c in columns) + "|"
    body = [f"    | {label:<7} |" + "|".join(f" {c:>7} " for c in cells) + "|" for label, cells in rows]
    return "\n".join([rule, head, rule, *body, rule])


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_bordered_text_table_whose_rows_are_numbered_words(tmp_path, spec_path, lang):
    """A gradient table 'dU' with a top and a bottom border, its columns '1 sun', '2 rises', … (the words after their
    numbers) and rows i = 1 … 3, its last row one unit off in one cell: grad_W[2,·], a last-digit slip (the last row
    over the bottom border was taken for a header, its figures lost). Then 'U[1,2] : θ − 0.5·g = …' with the
    printed g: the step's W[0,rises] (U is W, as the table of its weights says, counted from 1)."""
    with mp.workdps(50):
        E, W = weights()
        gW = forward(E, W)["gW"]
        slip = r(gW[2][3] + mp.mpf("0.0001"))
        g = r(gW[0][1])
        after = r(W[0][1] - mp.mpf("0.5") * mp.mpf(g))
    columns = [f"{k + 1} {w}" for k, w in enumerate(VOCAB)]
    weights_table = _bordered("U", [(f"i = {i + 1}", [r(x, 1) for x in W[i]]) for i in range(3)], columns)
    grads = _bordered("dU", [(f"i = {i + 1}", [slip if (i, k) == (2, 3) else r(gW[i][k]) for k in range(5)])
                             for i in range(3)], columns)
    words = ("The weights U:", "The gradient of U:", "One SGD step (lr 0.5):") if lang == "en" else \
        ("الأوزان U:", "تدرّج U:", "خطوة SGD واحدة (eta = 0.5):")
    text = (f"1. Model\n\n{words[0]}\n\n{weights_table}\n\n2. Backward\n\n{words[1]}\n\n{grads}\n\n"
            f"3. Step\n\n{words[2]}\n\n    U[1,2] : {r(W[0][1], 1)} - 0.5*({g}) = {after}\n")
    got = _verdicts(_results(tmp_path, text, spec_path, name="doc.txt"))
    assert _wrong(got, slip) == ("grad_W[2,moon]", "last-digit slip")
    assert got[after][:2] in (("matched", "sgd[1].W[0,rises]"), ("wrong", "sgd[1].W[0,rises]")), got[after]


@pytest.fixture(scope="module")
def two_blocks(tmp_path_factory):
    """Two post-LN blocks at d = 4 (seed 7, T = 3)."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=1, d_ff=8, layers=2, T=3)
    path = write_spec(tmp_path_factory.mktemp("two"), toml)
    return path, oracle.transformer_forward(oracle.load_spec(str(path)))


ROWS = {"ko": ("위치", "유닛", "가중치 ", "### 3.3 FFN", "## 4. 2층"),
        "en": ("position", "unit", "weight ", "### 3.3 The FFN", "## 4. Block 2")}


@pytest.mark.parametrize("lang", sorted(ROWS))
def test_rows_of_a_blocks_symbol_over_numbered_columns(tmp_path, two_blocks, lang):
    """A row '가중치 α^{(2)}_{3,j}' over columns '위치 1' … '위치 3', one cell's digits swapped: l1.A[2,·], swapped
    digits; a row r^{(2)}_{3,k} over '유닛 k' is block 2's R; and r^{(1)}_{3,k} in prose, one unit off, block 1's R
    (r is R's lower case: the rows and the prose were unread)."""
    path, f = two_blocks
    position, unit, word, ffn, block2 = ROWS[lang]
    A2, R2, R1 = f["blocks"][1]["A"][2], f["blocks"][1]["R"][2], f["blocks"][0]["R"][2]
    live = [k for k in range(8) if R1[k] > mp.mpf("0.05")]
    assert len(live) >= 2
    swapped = next(j for j in range(3) if (s := r(A2[j]))[-1] != s[-2])
    cells = [r(A2[j]) for j in range(3)]
    cells[swapped] = cells[swapped][:-2] + cells[swapped][-1] + cells[swapped][-2]
    slip = r(R1[live[1]] + mp.mpf("0.0001"))
    units = " | ".join(r(x) if x > 0 else "0" for x in R2)
    text = (f"# Two blocks\n\n{ffn}\n\n$r^{{(1)}}_{{3,{live[0] + 1}}} = {r(R1[live[0]])}$, "
            f"$r^{{(1)}}_{{3,{live[1] + 1}}} = {slip}$.\n\n{block2}\n\n"
            f"| 2, {position} 3 | {position} 1 | {position} 2 | {position} 3 |\n|---|---:|---:|---:|\n"
            f"| {word}$\\alpha^{{(2)}}_{{3,j}}$ | {' | '.join(cells)} |\n\n"
            f"| 2, {position} 3 | " + " | ".join(f"{unit} {k + 1}" for k in range(8)) + " |\n|---|"
            + "---:|" * 8 + f"\n| $r^{{(2)}}_{{3,k}}$ | {units} |\n")
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, cells[swapped]) == (f"l1.A[2,{swapped}]", "swapped digits")
    assert _wrong(got, slip) == (f"l0.R[2,{live[1]}]", "last-digit slip")
    top = max(range(8), key=lambda k: R2[k])
    assert got[r(R2[top])][:2] == ("matched", f"l1.R[2,{top}]")


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_our_own_name_before_a_codes_name(tmp_path, post_ln, fmt):
    """'∂L/∂W_K[0,3] = dW_attn[0, 7] = x' with x W_K[3,0]'s gradient: grad_W_K[0,3], a transposed index (the code's
    name nearest the figure was read, and the value won)."""
    path, _, g = post_ln
    x = r(g["grad_W_K"][3][0])
    assert x != r(g["grad_W_K"][0][3])
    lines = (f"∂L/∂W_Q[1,2] = dW_attn[1, 2] = {r(g['grad_W_Q'][1][2])}\n"
             f"∂L/∂W_K[0,3] = dW_attn[0, 7] = {x}\n"
             f"∂L/∂W_V[2,0] = dW_attn[2, 8] = {r(g['grad_W_V'][2][0])}\n")
    text = "# Backward\n\n```\n" + lines + "```\n" if fmt == "md" else "Backward\n\n" + lines
    got = _verdicts(_results(tmp_path, text, path, name=f"doc.{fmt}"))
    assert _wrong(got, x) == ("grad_W_K[0,3]", "transposed index")


@pytest.mark.parametrize("words", ["For the input word {w} and dimension 3: ∂L/∂E_{{{w},3}} = p({w}) h_3 = {p} · {h} "
                                   "= {x}.",
                                   "För {w} och den sista dimensionen: $\\partial L/\\partial E_{{{w},3}} = P({w})"
                                   "\\,z_3 = "
                                   "{p} \\cdot {h} = {x}$."])
def test_an_embedding_gradient_with_its_input_path_left_out(tmp_path, post_ln, words):
    """∂L/∂E of an input word printed as the tied head's part alone, p(v)·h: grad_E[v,3], a forgotten term (the
    product's node, the head's part, had outweighed our own name)."""
    path, spec, g = post_ln
    ids = oracle.token_ids(spec, spec["data"]["input"])
    target = oracle.token_ids(spec, [spec["data"]["target"]])[0]
    v = next(i for i in ids if i != target)
    with mp.workdps(50):
        head = mp.mpf(r(g["p"][v])) * mp.mpf(r(g["h_final"][3]))
    assert r(head) != r(g["grad_E"][v][3])
    w = f"t{v}"
    text = "# Backward\n\n" + words.format(w=w, p=r(g["p"][v]), h=r(g["h_final"][3]), x=r(head)) + "\n"
    got = _verdicts(_results(tmp_path, text, path))
    assert _wrong(got, r(head)) == (f"grad_E[{w},3]", "forgotten term")


@pytest.mark.parametrize("lead", ["W[0,glows]: ", "Für W[0,glows]: "])
def test_a_lead_in_with_a_colon_names_the_entry_not_the_figure(tmp_path, spec_path, lead):
    """'W[0,glows]: g = …' and 'W[0,glows]: m = …' under an AdamW heading: the entry's gradient and first moment,
    both printed right (a colon is no '=': the entry is the lead-in, not the figure's name)."""
    with mp.workdps(50):
        g = forward(*weights())["gW"][0][Y]
        m1 = adamw_states(1)[0]["m"][("W", 0, Y)]
    text = f"# AdamW\n\n## One AdamW step\n\n{lead}g = {r(g)}\n\n{lead}m = {r(m1, 6)}\n"
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert got[r(g)][0] != "wrong", got[r(g)]
    assert got[r(m1, 6)][0] != "wrong", got[r(m1, 6)]


def test_a_loss_at_a_step_of_a_training_log_is_before_its_update(tmp_path, spec_path):
    """'loss at step 1 = …' in a log that prints the loss before each update: the loss the step starts from, not
    the state after step 1."""
    with mp.workdps(50):
        before, after = forward(*weights())["loss"], sgd_states(1)[0]["loss"]
    text = f"# Training\n\n## SGD\n\n```\nloss at step 1 = {r(before)}\nloss at step 2 = {r(after)}\n```\n"
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert got[r(before)][0] != "wrong", got[r(before)]


@pytest.mark.parametrize("line", [
    "For $W_{{0,glows}}$ the step is $\\eta\\,m_1/(\\sqrt{{v_1}} + \\epsilon) = {}$, and the decay comes on top.",
    "För W[0,glows] blir steget η·m₁/(√v₁ + ε) = {} och viktavklingningen dras av för sig.",
    "Pour W_{{0,glows}}, le pas vaut η·m₁/(√v₁ + ε) = {}."])
def test_an_update_without_bias_correction_is_the_entry_its_line_names(tmp_path, spec_path, line):
    """The first AdamW step without its bias correction, η·m₁/(√v₁ + ε), is the same figure for every entry whose
    gradient has one sign; the line names W[0,glows], while the m and v printed just before are W[2,glows]'s: it is
    adamw[1].update[W,0,4], no bias correction (it was taken for W[2,glows]'s, the entry printed last)."""
    lr, b1, b2, eps = (mp.mpf(s) for s in ("0.01", "0.9", "0.999", "1e-8"))
    with mp.workdps(50):
        gW = forward(*weights())["gW"]
        g0, g2 = gW[0][Y], gW[2][Y]
        assert g0 < 0 and g2 < 0                     # one sign: the slip prints alike for both
        slip = r(lr * (1 - b1) * g0 / (mp.sqrt((1 - b2) * g0 ** 2) + eps), 6)
        assert slip == r(lr * (1 - b1) * g2 / (mp.sqrt((1 - b2) * g2 ** 2) + eps), 6)
        m2, v2 = (1 - b1) * g2, (1 - b2) * g2 ** 2
    text = ("# One AdamW step\n\nThe moments start at zero. For W[2,glows]:\n\n"
            f"m_1 = 0.1 · g = {r(m2, 6)}, v_1 = 0.001 · g² = {sci(v2)}\n\n" + line.format(slip) + "\n")
    got = _verdicts(_results(tmp_path, text, spec_path))
    assert _wrong(got, slip) == (f"adamw[1].update[W,0,{Y}]", "no bias correction")
