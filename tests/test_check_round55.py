"""check's readings from rounds 55 and 56 of the held-out tutorials (issue 27), each on texts written here in more
than one notation or language:

* the final norm's gain and shift written with a superscript (``γ^f``, ``\\beta^{\\text{final}}``, ``γ^{(f)}``) are
  γ_f and β_f, also where a later line says ∂L/∂β^f_j = ∂L/∂y_j;
* a notebook's prints several to a line (``print(fmt(dW)); print(fmt(dE[xs]))``), each through a formatting helper,
  and rows picked by a variable that holds a list of ids (``xs = [0, 2]``, ``torch.tensor([3, 0])``);
* a summary's line led by its distribution (``- **top-k**: … gets 0.2756``) under a heading on another one, and a
  token's probability divided on its way to a share (``*a* gets 0.3723 / 0.8462 = 0.4400``);
* q̃ and k̃ as RoPE's turned queries and keys; a head's superscript kept through the row a vector taught
  (``o^{(2)}_1``); GPT-2's fused c_attn written as math (``∂L/∂W_{attn}[2,8]``);
* a gradient check's numerical column by its form (``beza/2h``), and 'finite differences' in more languages;
* a sentence wrapped at its '=' (``… ℓ_2 =`` ⏎ ``0,9447: …``);

and from round 56:

* a mini-batch's example named by a column (``z^{(2)}``, ``系列 2 の z``) or a row (``系列 2「…」``, ``exempel 2``);
* a tied model's output matrix by its name (``∂L/∂W_out[i, w]``, ``W_U``): Eᵀ, E's head part read transposed;
* positions counted from 0 with entries counted from 1 (``k̃_{2,1}``);
* a slice for a whole row (``α^{(1)}_{2,·}``, ``α^(1)[2, :]``), the vector's places filling it.

Every expected value is computed here with mpmath or PyTorch float64 (``tests/torch_oracle.py``), or is the spec's
own decimal text, never by symgpt.
"""
from __future__ import annotations

import random

import mpmath as mp
import pytest

import oracle
from conftest import write_spec
from test_check_authors import _verdicts
from test_check_vocabulary import _results


def _gpt2_with_final_norm(seed: int) -> tuple[str, list[str], list[str]]:
    """A one-block GPT-2 spec with a learnable final norm, and that norm's γ and β as the spec writes them."""
    rng = random.Random(seed)
    gamma = [f"{rng.randint(80, 120) / 100:.2f}" for _ in range(4)]
    beta = [f"{rng.randint(-30, 30) / 100:.2f}" for _ in range(4)]
    text = oracle.random_spec_toml(seed=seed, V=5, d=4, heads=1, d_ff=8, layers=1, T=3, W_O=True, bias=True,
                                   n_ctx=4)
    text = text.replace('kind = "transformer"', 'kind = "transformer"\narch = "gpt2"', 1)
    text = text.replace("\n[weights]\n", "\n[weights]\n" + f"gamma_f = [{', '.join(gamma)}]\n"
                        f"beta_f = [{', '.join(beta)}]\n", 1)
    return text, gamma, beta


FINAL_NORM = {
    "ko-md": "## 9. 최종 LayerNorm\n\n파라미터는 $\\boldsymbol{{\\gamma}}^f = ({g})$, "
             "$\\boldsymbol{{\\beta}}^f = ({b})$입니다.\n\n"
             "## 11. 역전파\n\n$$\\frac{{\\partial \\mathcal{{L}}}}{{\\partial \\beta^f_j}} = "
             "\\frac{{\\partial \\mathcal{{L}}}}{{\\partial y_j}}$$\n",
    "en-tex": "## Final norm\n\nIts gain is $\\gamma^{{\\text{{final}}}} = ({g})$ and its shift "
              "$\\beta^{{\\text{{final}}}} = ({b})$.\n",
    "de-plain": "## ln_f\n\nDie Parameter der letzten Norm lauten γ^{{(f)}} = [{g}] und β^{{(f)}} = [{b}].\n",
}


@pytest.mark.parametrize("style", sorted(FINAL_NORM))
def test_final_norm_named_by_a_superscript(tmp_path, style):
    """γ^f = (…), β^{final} = (…): the final norm's own parameters, every entry matched; a slipped shift is wrong as
    β_f's entry (before: β^f's vector was read as ∂L/∂y, the name after the later ∂L/∂β^f = ∂L/∂y)."""
    spec_text, gamma, beta = _gpt2_with_final_norm(seed=55)
    spec = write_spec(tmp_path, spec_text)
    slipped = list(beta)
    slipped[2] = f"{float(beta[2]) + 0.25:.2f}"          # a figure no entry of β_f has
    text = FINAL_NORM[style].format(g=", ".join(gamma), b=", ".join(slipped))
    results = _results(tmp_path, text, spec)
    got = {(r.number.line, r.number.col): r for r in results}
    lines = text.splitlines()
    for name, values in (("gamma_f", gamma), ("beta_f", slipped)):
        line_no = next(k for k, x in enumerate(lines, 1) if values[0] in x and values[-1] in x)
        col = 0
        for j, value in enumerate(values):
            col = lines[line_no - 1].index(value, col)
            r = got[(line_no, col)]
            col += len(value)
            assert r.ref == f"{name}[{j}]", (style, value, r.ref)
            expected = "wrong" if name == "beta_f" and j == 2 else "matched"
            assert r.verdict == expected, (style, value, r.verdict)
    assert not [r for r in results if r.verdict == "wrong" and r.ref not in ("beta_f[2]",)]


PICKED_ROWS = {
    "list": ('xs = [3, 0]          # moon, sun\n', "print(fmt(z)); print(fmt(E.grad[xs]))"),
    "tensor": ('rows = torch.tensor([3, 0])\n', "print(np.round(z, 4)); print(E.grad[rows].numpy().round(4))"),
    "ids": ('ids = [vocab.index("moon"), vocab.index("sun")]\n', "print(pretty(z))\nprint(np.round(E.grad[ids], 4))"),
}


@pytest.mark.parametrize("style", sorted(PICKED_ROWS))
def test_printed_rows_picked_by_a_variable(tmp_path, style):
    """``xs = [3, 0]`` … ``print(fmt(z)); print(fmt(E.grad[xs]))``: two prints on a line, each through a formatting
    helper, and the second shows E's gradient at rows 3 and 0, so its first row is moon's. A slipped entry of it is
    wrong as grad_E[moon, ·] (before: no print was named; then its rows were read as rows 0 and 1, and the correct
    figures as sun's and rises's gradient, zero, false alarms)."""
    from test_check_steps_and_shares import SPEC, forward, r, weights
    spec = write_spec(tmp_path, SPEC)
    f = forward(*weights())
    first, second = PICKED_ROWS[style]
    z = "[" + " ".join(r(x) for x in f["z"]) + "]"
    moon = [r(x) for x in f["gE"][3]]
    slip = moon[1][:-1] + str((int(moon[1][-1]) + 3) % 10)
    shown = f"[[{moon[0]} {slip} {moon[2]}]\n [0.0000 0.0000 0.0000]]"
    text = ("## Gradients\n\n```python\n" + first + "```\n\n```python\nloss.backward()\n" + second + "\n```\n```\n" +
            z + "\n" + shown + "\n```\n")
    results = _results(tmp_path, text, spec)
    wrong = [r_ for r_ in results if r_.verdict == "wrong"]
    assert [(w.number.text, w.ref.removeprefix("sgd[0].")) for w in wrong] == [(slip, "grad_E[moon,1]")], \
        [(w.number.text, w.ref, w.cause) for w in wrong]
    seen = _verdicts(results)
    assert all(seen[x][0] == "matched" for x in (moon[0], moon[2]) + tuple(z[1:-1].split())), seen


def _shares():
    """p, the top-2 renormalised shares and the top-p (0.8) ones of the five-word bigram, by hand."""
    from test_check_steps_and_shares import forward, weights
    p = forward(*weights())["p"]
    order = sorted(range(5), key=lambda j: -p[j])
    top2 = order[:2]
    k_mass = mp.fsum(p[j] for j in top2)
    kept, mass = [], mp.mpf(0)
    for j in order:
        if mass >= mp.mpf("0.8"):
            break
        kept.append(j)
        mass += p[j]
    return p, {j: p[j] / k_mass for j in top2}, k_mass, {j: p[j] / mass for j in kept}


SUMMARY = {
    "en": ("### Top-p (p = 0.8)\n\nThe nucleus keeps {n} words; *{w}* is drawn with {pw}.\n\n"
           "To sum up:\n\n- **top-k**: *{a}* and *{b}* are kept, and *{b}* gets {kb};\n"
           "- **top-p**: the nucleus has mass {mass}, and *{w}* gets {pw}.\n"),
    "no": ("### Top-p ($p = 0.8$)\n\nKjernen beholder {n} ord; *{w}* trekkes med {pw}.\n\n"
           "Oppsummert:\n\n- **top-k**: *{a}* og *{b}* beholdes, og *{b}* får {kb};\n"
           "- **top-p**: kjernen har masse {mass}, og *{w}* får {pw}.\n"),
}


@pytest.mark.parametrize("lang", sorted(SUMMARY))
def test_a_summary_line_led_by_its_distribution(tmp_path, lang):
    """A summary's bullets under the top-p heading, each led by the distribution it lists (``- **top-k**: … *b* gets
    …``): the top-k bullet's share is top-k's, here slipped, so wrong as topk(2, b) (it was read as b's top-p share,
    wrong with the wrong quantity, or a false alarm where the figure is right)."""
    from test_check_steps_and_shares import SPEC, VOCAB, r
    p, topk, k_mass, topp = _shares()
    a, b = sorted(topk, key=lambda j: -p[j])
    w = max(topp, key=lambda j: topp[j])
    slip = r(topk[b] + mp.mpf("0.0009"))
    text = "# Sampling\n\n" + SUMMARY[lang].format(n=len(topp), w=VOCAB[w], pw=r(topp[w]), a=VOCAB[a], b=VOCAB[b],
                                                    kb=slip, mass=r(mp.fsum(p[j] for j in topp)))
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[slip][:2] == ("wrong", f"topk(2, {VOCAB[b]})"), got[slip]
    assert got[r(topp[w])][:2] == ("matched", f"topp(0.8, {VOCAB[w]})")


OPERAND = {"en": "### Top-k (k = 2)\n\nAfter top-k, *{a}* is drawn with {ka} and *{b}* with {kb}.\n\n"
                 "The two kept words have mass {m}, so *{a}* gets {pa} / {m} = {ka} after renormalising.\n",
           "no": "### Top-k ($k = 2$)\n\nEtter top-k trekkes *{a}* med {ka} og *{b}* med {kb}.\n\nDe to ordene har til "
                 "sammen masse {m}, så *{a}* får ${pa} / {m} = {ka}$ etter renormaliseringen.\n"}


@pytest.mark.parametrize("lang", sorted(OPERAND))
def test_a_share_divided_is_an_operand(tmp_path, lang):
    """'*a* gets 0.3723 / 0.8462 = 0.4400' in a section whose shares are top-k's: the first figure is a's
    probability, divided, not a's top-k share (a false alarm before); the result is that share."""
    from test_check_steps_and_shares import SPEC, VOCAB, r
    p, topk, k_mass, _ = _shares()
    a, b = sorted(topk, key=lambda j: -p[j])
    text = "# Sampling\n\n" + OPERAND[lang].format(m=r(k_mass), a=VOCAB[a], pa=r(p[a]), ka=r(topk[a]), b=VOCAB[b],
                                                   kb=r(topk[b]))
    results = _results(tmp_path, text, write_spec(tmp_path, SPEC))
    got = _verdicts(results)
    assert got[r(p[a])][:2] == ("matched", f"p[{VOCAB[a]}]"), got[r(p[a])]
    assert got[r(topk[b])][:2] == ("matched", f"topk(2, {VOCAB[b]})")
    assert [x.number.text for x in results if x.verdict == "wrong"] == []


def _torch_run(spec_text: str, tmp_path, of: str = "params"):
    """(the spec's path, every quantity by symgpt's name, the gradients of the parameters, or with ``of =
    "quantities"`` of every quantity) from PyTorch float64."""
    import torch_oracle
    path = write_spec(tmp_path, spec_text)
    spec = oracle.load_spec(str(path))
    P = torch_oracle.transformer_params(spec)
    for t in P.values():
        t.requires_grad_(True)
    out = torch_oracle.transformer_forward(spec, P, keep=True)
    out["loss"].backward()
    held = P if of == "params" else {k: v for k, v in out.items() if getattr(v, "retains_grad", False)}
    return path, {k: v.detach().numpy() for k, v in out.items() if hasattr(v, "detach")}, \
        {k: t.grad.numpy() for k, t in held.items() if t.grad is not None}


def f4(x) -> str:
    """A float64 value to 4 decimals (the tests' figures stay away from a half: asserted)."""
    s = f"{float(x):.4f}"
    assert abs(abs(float(x)) * 1e4 % 1 - 0.5) > 0.01
    return "0.0000" if s == "-0.0000" else s


def _flip(s: str) -> str:
    return s[1:] if s.startswith("-") else "-" + s


ROTATED = {
    "md": "## RoPE\n\nFor the last position, $t = 2$:\n\n$$\\tilde q_{{2,0}} = {a}, \\qquad \\tilde q_{{2,1}} = {b}, "
          "\\qquad \\tilde k_{{2,0}} = {c}$$\n",
    "txt": "RoPE, last position (t = 2):\n\n    q̃_2 = ({a}, {b}, {q2}, {q3})\n    k̃_2 = ({c}, {k1})\n",
}


@pytest.mark.parametrize("style", sorted(ROTATED))
def test_a_tilde_names_the_rotated_query(tmp_path, style):
    """q̃ and k̃ in a RoPE model are Q and K turned by their positions (Q_rot, K_rot): a sign-flipped q̃_{2,0} is
    wrong as Q_rot[2,0] (before: q̃ named nothing with one figure agreeing, and the flip was unmatched)."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=2, d_ff=6, layers=1, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True)
    path, q, _ = _torch_run(toml, tmp_path)
    Q, K = q["Q_rot"], q["K_rot"]
    flipped = _flip(f4(Q[2, 0]))
    text = ROTATED[style].format(a=flipped, b=f4(Q[2, 1]), q2=f4(Q[2, 2]), q3=f4(Q[2, 3]), c=f4(K[2, 0]),
                                 k1=f4(K[2, 1]))
    got = _verdicts(_results(tmp_path, text, path, "doc.md" if style == "md" else "doc.txt"))
    assert got[flipped][:3] == ("wrong", "Q_rot[2,0]", "sign flip"), got[flipped]
    assert got[f4(Q[2, 1])][:2] == ("matched", "Q_rot[2,1]")


def _gpt2_two_heads(activation: str = "gelu_tanh") -> str:
    """GPT-2's block spelled out (pre-norm, tanh GELU, learned positions, biases, W_O), two heads; with the exact
    GELU it is nanoGPT's, whose checkpoint stores each weight transposed (nn.Linear's out × in)."""
    return oracle.random_spec_toml(seed=56, V=5, d=4, heads=2, d_ff=8, layers=1, T=3, W_O=True, bias=True, n_ctx=4,
                                   norm="pre", activation=activation)


HEAD_OUTPUT = {
    "hu": "## Fejek\n\nAz 1. fejé $\\mathbf{{o}}^{{(1)}} = ({a};\\ {b})$, a 2. fej első koordinátája "
          "$o^{{(2)}}_0 = {c}$, a második:\n\n$$o^{{(2)}}_1 = {d}$$\n",
    "en": "## Heads\n\nHead 1 gives $o^{{(1)}} = ({a}, {b})$; head 2 gives $o^{{(2)}}_0 = {c}$ and "
          "$o^{{(2)}}_1 = {d}$.\n",
}


@pytest.mark.parametrize("lang", sorted(HEAD_OUTPUT))
def test_a_head_output_entry_by_its_superscript(tmp_path, lang):
    """o^{(1)} = (…) at the last position, then o^{(2)}_1: head 2's second coordinate is column 3 of the heads'
    outputs side by side (Attn_heads[2,3]); a figure with another value is wrong there (before: the head's
    superscript was lost through the row the vector taught, and it was read as Attn_heads[2,1])."""
    path, q, _ = _torch_run(_gpt2_two_heads(), tmp_path)
    O = q["Attn_heads"]
    d = f4(O[2, 3] + 0.0371)
    text = HEAD_OUTPUT[lang].format(a=f4(O[2, 0]), b=f4(O[2, 1]), c=f4(O[2, 2]), d=d)
    got = _verdicts(_results(tmp_path, text, path))
    assert got[d][:2] == ("wrong", "Attn_heads[2,3]"), got[d]
    assert got[f4(O[2, 2])][:2] == ("matched", "Attn_heads[2,2]")


C_ATTN = {
    "md": "## Gradients\n\n- $\\partial \\mathcal{{L}} / \\partial W_{{\\text{{attn}}}}[0,1] = {a}$ (query)\n"
          "- $\\partial \\mathcal{{L}} / \\partial W_{{\\text{{attn}}}}[2,5] = {b}$ (key)\n"
          "- $\\partial \\mathcal{{L}} / \\partial W_{{\\text{{attn}}}}[2,8] = {c}$ (value)\n",
    "txt": "Gradients of the fused projection:\n\n    dL/dW_attn[0,1] = {a}\n    dL/dW_attn[2,5] = {b}\n"
           "    dL/dW_attn[2,8] = {c}\n",
}


@pytest.mark.parametrize("activation", ["gelu_tanh", "gelu"])
@pytest.mark.parametrize("style", sorted(C_ATTN))
def test_the_fused_attention_weight_written_as_math(tmp_path, style, activation):
    """W_{attn}[i, j], GPT-2's c_attn (d × 3d: Q, K and V side by side) written as math, and its gradient: column
    8 of d = 4 is W_V's column 0, so a sign-flipped ∂L/∂W_attn[2,8] is wrong as grad_W_V[2,0] (before: no such
    name, unmatched). As math, x·W_attn, also where the checkpoint (nanoGPT's) stores c_attn as 3d × d."""
    path, _, g = _torch_run(_gpt2_two_heads(activation), tmp_path)
    flipped = _flip(f4(g["W_V"][2, 0]))
    assert abs(g["W_V"][2, 0]) > 0.001
    text = C_ATTN[style].format(a=f4(g["W_Q"][0, 1]), b=f4(g["W_K"][2, 1]), c=flipped)
    got = _verdicts(_results(tmp_path, text, path, "doc.md" if style == "md" else "doc.txt"))
    assert got[flipped][:3] == ("wrong", "grad_W_V[2,0]", "sign flip"), got[flipped]
    assert got[f4(g["W_K"][2, 1])][:2] == ("matched", "grad_W_K[2,1]")


def _moved_losses(i: int, j: int, h: str):
    """L with W[i, j] moved by +h and by −h, and their central difference, by hand (mpmath)."""
    from test_check_steps_and_shares import forward, weights
    E, W = weights()
    out = []
    for sign in (1, -1):
        W2 = [row[:] for row in W]
        W2[i][j] += sign * mp.mpf(h)
        out.append(forward(E, W2)["loss"])
    return out[0], out[1], (out[0] - out[1]) / (2 * mp.mpf(h))


CHECK_TABLE = {
    "ms": ("Semakan beza terhingga pusat (h = 1e-4)", "pemberat", "autograd", "beza/2h"),
    "ca": ("Comprovació (τ = 10⁻⁴)", "paràmetre", "retropropagació", "dif./(2τ)"),
}


@pytest.mark.parametrize("lang", sorted(CHECK_TABLE))
def test_a_central_difference_column_by_its_form(tmp_path, lang):
    """A gradient check's table whose numerical column is headed by its form (``beza/2h``, ``dif./(2τ)``): that
    column is the check's quotient, the other the gradient, so a sign-flipped gradient beside a right quotient is
    wrong as the gradient (before: both columns named the gradient, and the line kept only the figure that rounds)."""
    from test_check_steps_and_shares import SPEC, forward, r, weights
    spec = SPEC.replace("steps = 2\n", "steps = 2\n"
                        'gradcheck = { h = 1e-4, params = ["W[1,sets]", "W[2,glows]", "W[0,rises]"] }\n')
    g = forward(*weights())["gW"]
    title, entry, autograd, numeric = CHECK_TABLE[lang]
    rows, flipped = [], None
    for i, j, name in ((1, 2, "W[1,sets]"), (2, 4, "W[2,glows]"), (0, 1, "W[0,rises]")):
        lp, lm, quotient = _moved_losses(i, j, "1e-4")
        grad = r(g[i][j], 6)
        if flipped is None:
            flipped = grad = grad[1:] if grad.startswith("-") else "-" + grad
        rows.append(f"| {name} | {grad} | {r(lp, 10)} | {r(lm, 10)} | {r(quotient, 6)} |")
    text = "\n".join([f"## {title}", "", f"| {entry} | {autograd} | L(θ+h) | L(θ−h) | {numeric} |",
                      "|---|---|---|---|---|", *rows, ""])
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, spec)))
    assert got[flipped][:3] == ("wrong", "grad_W[1,sets]", "sign flip"), got[flipped]


MOVED_IN_WORDS = {
    "ca": "## Comprovació\n\nAmb diferències finites, movent B_{{1,sets}} amunt i avall en 10⁻⁴, la pèrdua val "
          "{lp} i {lm}.\n",
    "ms": "## Semakan\n\nDengan beza terhingga, apabila W_{{1,sets}} dianjak naik dan turun sebanyak 1e-4, kehilangan "
          "menjadi {lp} dan {lm}.\n",
}


@pytest.mark.parametrize("lang", sorted(MOVED_IN_WORDS))
def test_moved_losses_in_a_text_on_finite_differences(tmp_path, lang):
    """A text that says 'finite differences' in Catalan or Malay speaks of the check's moved losses: each, to ten
    decimals, is the loss with the entry moved (before: such losses were candidates only in texts that said so in
    other languages, and these were unmatched)."""
    from test_check_steps_and_shares import SPEC, r
    spec = SPEC.replace("steps = 2\n", 'steps = 2\ngradcheck = { h = 1e-4, params = ["W[1,sets]"] }\n')
    lp, lm, _ = _moved_losses(1, 2, "1e-4")
    text = MOVED_IN_WORDS[lang].format(lp=r(lp, 10), lm=r(lm, 10))
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, spec)))
    assert got[r(lp, 10)][:2] == ("matched", "loss_at(W[1,sets], 1e-4)"), got[r(lp, 10)]
    assert got[r(lm, 10)][:2] == ("matched", "loss_at(W[1,sets], -1e-4)")


WRAPPED_AT_EQUALS = {
    "en": "## Two SGD steps\n\nAfter the first step the loss is L_1 = {l1}; after the second step it is L_2 =\n"
          "{l2}, lower again.\n",
    "ca": "## Dos passos de SGD\n\nDesprés del primer pas la pèrdua és ℓ_1 = {l1} i, després del segon, ℓ_2 =\n"
          "{l2}: ha baixat una altra vegada.\n",
}


@pytest.mark.parametrize("lang", sorted(WRAPPED_AT_EQUALS))
def test_a_sentence_wrapped_at_its_equals_sign(tmp_path, lang):
    """'… it is L_2 =' ⏎ '0.9447, lower again': the figure that starts the line is L_2's, the loss after two
    steps; a slipped one is wrong as sgd[2].loss (before: no name, unmatched)."""
    from test_check_steps_and_shares import SPEC, r, sgd_states
    states = sgd_states(2)
    slip = r(states[1]["loss"] + mp.mpf("0.0003"))
    text = WRAPPED_AT_EQUALS[lang].format(l1=r(states[0]["loss"]), l2=slip)
    got = _verdicts(_results(tmp_path, text, write_spec(tmp_path, SPEC)))
    assert got[slip][:2] == ("wrong", "sgd[2].loss"), got[slip]


EXAMPLE_COLUMNS = {
    "sup": "| token | $z^{{(1)}}$ | $z^{{(2)}}$ | $p^{{(1)}}$ | $p^{{(2)}}$ |\n|---|---|---|---|---|\n{rows}",
    "ja": "| トークン | 系列 1 の z | 系列 2 の z | 系列 1 の p | 系列 2 の p |\n|---|---|---|---|---|\n{rows}",
}


@pytest.mark.parametrize("style", sorted(EXAMPLE_COLUMNS))
def test_a_column_per_example_of_the_batch(tmp_path, style):
    """Columns per example of a mini-batch (``z^{(2)}``, ``系列 2 の z``): the second example's logit, here copied
    from the first example's cell beside it, is wrong as example[1].z (before: such a column was read as the
    spec's own z, and the copied figure matched it)."""
    from test_check_authors import BATCH
    from test_check_batches import _probs
    from test_check_readings import VOCAB, X
    from test_check_steps_and_shares import r
    z1, p1 = _probs(X)
    z2, p2 = _probs(VOCAB.index("рыбу"))
    k = next(j for j in range(5) if r(z1[j]) != r(z2[j]))
    rows = "".join(f"| {VOCAB[j]} | {r(z1[j])} | {r(z1[j]) if j == k else r(z2[j])} | {r(p1[j])} | {r(p2[j])} |\n"
                   for j in range(5))
    text = "## Logits\n\n" + EXAMPLE_COLUMNS[style].format(rows=rows)
    results = _results(tmp_path, text, write_spec(tmp_path, BATCH))
    wrong = [(x.number.text, x.ref) for x in results if x.verdict == "wrong"]
    assert wrong == [(r(z1[k]), f"example[1].z[{VOCAB[k]}]")], wrong
    assert all(x.verdict == "matched" for x in results if x.number.text == r(p2[k]))


EXAMPLE_ROWS = {
    "ja": ("| 系列 | p(кот) | p(рыбу) |\n|---|---|---|\n| 系列 1「{a}」 | {x1} | {y1} |\n"
           "| 系列 2「{b}」 | {x2} | {y2} |\n"),
    "sv": ("| exempel | p(кот) | p(рыбу) |\n|---|---|---|\n| exempel 1 ({a}) | {x1} | {y1} |\n"
           "| exempel 2 ({b}) | {x2} | {y2} |\n"),
}


@pytest.mark.parametrize("lang", sorted(EXAMPLE_ROWS))
def test_a_row_per_example_of_the_batch(tmp_path, lang):
    """Rows per example named in Japanese or Swedish (``系列 2「рыбу」``, ``exempel 2``): the second row is the second
    example's, so a slipped share there is wrong as example[1].p (before: a row of another example was read as
    nothing, and the slip went unmatched)."""
    from test_check_authors import BATCH
    from test_check_batches import _probs
    from test_check_readings import VOCAB, X
    from test_check_steps_and_shares import r
    _, p1 = _probs(X)
    _, p2 = _probs(VOCAB.index("рыбу"))
    i, j = VOCAB.index("кот"), VOCAB.index("рыбу")
    slip = r(p2[j] + mp.mpf("0.0020"))
    text = "## p\n\n" + EXAMPLE_ROWS[lang].format(a=VOCAB[X], b="рыбу", x1=r(p1[i]), y1=r(p1[j]), x2=r(p2[i]), y2=slip)
    results = _results(tmp_path, text, write_spec(tmp_path, BATCH))
    wrong = [(x.number.text, x.ref) for x in results if x.verdict == "wrong"]
    assert wrong == [(slip, "example[1].p[рыбу]")], wrong


OUTPUT_MATRIX = {
    "ru": "## 9. Градиент\n\nВыходная матрица W_out = Eᵀ, поэтому\n\n    ∂L/∂W_out[1, {w}] = {a}\n"
          "    ∂L/∂W_out[2, {w}] = {b}\n    ∂L/∂W_out[3, {w}] = {c}\n",
    "en": "## Gradient of the unembedding\n\nWith $W_U = E^\\top$ ($d \\times V$):\n\n"
          "- $\\partial L / \\partial W_U[1, {w}] = {a}$\n- $\\partial L / \\partial W_U[2, {w}] = {b}$\n"
          "- $\\partial L / \\partial W_U[3, {w}] = {c}$\n",
}


@pytest.mark.parametrize("lang", sorted(OUTPUT_MATRIX))
def test_a_tied_models_output_matrix_by_its_name(tmp_path, lang):
    """∂L/∂W_out[i, w] (W_U, rows counted from 1) of a tied model is E's head part read transposed, δ_w·h_i: a
    sign-flipped entry is wrong as grad_E_head[w, 1] (before: W_out named nothing, and the flip went unmatched or
    to another quantity of its size)."""
    toml = oracle.random_spec_toml(seed=12, V=5, d=4, heads=1, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path, toml)
    spec = oracle.load_spec(str(path))
    with mp.workdps(50):
        fw = oracle.transformer_forward(spec)
        y = oracle.token_ids(spec, [spec["data"]["target"]])[0]
        w = next(v for v in range(5) if v != y and v not in oracle.token_ids(spec, spec["data"]["input"]))
        g = [fw["p"][w] * fw["h_final"][i] for i in range(4)]       # δ_w = p_w for a word not the target
    from test_check_steps_and_shares import r
    flipped = _flip(r(g[1]))
    assert abs(g[1]) > mp.mpf("0.001") and r(abs(g[1])) not in (r(abs(g[0])), r(abs(g[2])))
    vocab = spec["model"]["vocab"]
    text = OUTPUT_MATRIX[lang].format(w=vocab[w], a=r(g[0]), b=flipped, c=r(g[2]))
    got = _verdicts(_results(tmp_path, text, path))
    assert got[flipped][:2] in (("wrong", f"grad_E_head[{vocab[w]},1]"), ("wrong", f"grad_E[{vocab[w]},1]")), \
        got[flipped]
    assert got[r(g[0])][0] == "matched"


MIXED_ORIGIN = {
    "zh": "## 旋转位置编码\n\n位置 2 的键（旋转 2 弧度）：\n\n    k̃_{{2,1}} = {a}，\n    k̃_{{2,2}} = {b}。\n",
    "en": "## RoPE\n\nThe key at position 2 (rotated by 2 radians), entries counted from 1:\n\n"
          "$$\\tilde k_{{2,1}} = {a}, \\qquad \\tilde k_{{2,2}} = {b}$$\n",
}


@pytest.mark.parametrize("lang", sorted(MIXED_ORIGIN))
def test_positions_from_zero_and_entries_from_one(tmp_path, lang):
    """k̃_{2,1}, k̃_{2,2}: position 2 counted from 0 and the entries from 1, as a text that counts positions as
    code does and entries as maths does; a sign-flipped second entry is wrong as K_rot[2,1] (before: only
    positions from 1 with entries from 0 were tried, and k̃ was read at the wrong origin, a false alarm)."""
    toml = oracle.random_spec_toml(seed=7, V=5, d=4, heads=2, d_ff=6, layers=1, T=3, activation="swiglu",
                                   norm="pre", norm_kind="rmsnorm", bias=False, rope=True)
    path, q, _ = _torch_run(toml, tmp_path)
    K = q["K_rot"]
    flipped = _flip(f4(K[2, 1]))
    text = MIXED_ORIGIN[lang].format(a=f4(K[2, 0]), b=flipped)
    got = _verdicts(_results(tmp_path, text, path, "doc.md"))
    assert got[flipped][:3] == ("wrong", "K_rot[2,1]", "sign flip"), got[flipped]
    assert got[f4(K[2, 0])][:2] == ("matched", "K_rot[2,0]")


SLICES = {
    "md": "## Attention\n\nHead 1, the query at position 2, over every key:\n\n"
          "$$\\alpha^{{(1)}}_{{2,\\cdot}} = ({a},\\ {b},\\ {c}).$$\n\n"
          "and for head 2, $\\alpha^{{(2)}}_{{2,\\cdot}} = ({d}, {e}, {f})$.\n",
    "txt": "Attention weights of the last query (the head as a superscript)\n\n    α^(1)[2, :] = [{a}, {b}, {c}]\n"
           "    α^(2)[2, :] = [{d}, {e}, {f}]\n",
}


@pytest.mark.parametrize("style", sorted(SLICES))
def test_a_slice_names_a_row(tmp_path, style):
    """α^{(1)}_{2,·}, α^(1)[2, :]: head 1's weights of query 2 over every key; its entries are the vector's
    places, so digits swapped in the first are wrong as A[0,2,0] (before: a slice was no index, the vector had
    no name, and the slip was unmatched)."""
    toml = oracle.random_spec_toml(seed=31, V=5, d=4, heads=2, d_ff=8, layers=1, T=3)
    path = write_spec(tmp_path, toml)
    with mp.workdps(50):
        A = oracle.transformer_forward(oracle.load_spec(str(path)))["blocks"][0]["A"]
    from test_check_steps_and_shares import r
    a1, a2 = A[0][2], A[1][2]
    first = r(a1[0])
    swapped = first[:-2] + first[-1] + first[-2]
    assert swapped != first and all(r(x) != swapped for x in (*a1, *a2))
    text = SLICES[style].format(a=swapped, b=r(a1[1]), c=r(a1[2]), d=r(a2[0]), e=r(a2[1]), f=r(a2[2]))
    got = _verdicts(_results(tmp_path, text, path, "doc.md" if style == "md" else "doc.txt"))
    assert got[swapped][:2] == ("wrong", "A[0,2,0]"), got[swapped]
    assert got[r(a2[1])][:2] == ("matched", "A[1,2,1]")


@pytest.mark.parametrize("text", [
    "| j | $W^{(1)}_{0,j}$ | $W^{(2)}_{0,j}$ | $z^{(2)}_j$ | $z^{(1)}_j$ |\n|---|---|---|---|---|\n"
    "| 0 | 0.1234 | 0.2345 | 0.3456 | 0.4567 |\n",
    "| j | W⁽¹⁾[0,j] | W⁽²⁾[0,j] | z⁽²⁾[j] | z⁽¹⁾[j] |\n|---|---|---|---|---|\n"
    "| 0 | 0.1234 | 0.2345 | 0.3456 | 0.4567 |\n"])
def test_a_superscript_on_a_parameter_is_a_step_on_an_activation_an_example(text):
    """In a bigram trained on a mini-batch, W^{(2)} is W after two steps (a parameter has no value per example),
    z^{(2)} the second example's logits and z^{(1)} the first's (the spec's own)."""
    from symgpt.claims.extract import extract
    from symgpt.claims.labels import labels
    figs = extract(text)
    out = labels(text, figs, ["a", "b", "c"], {"W", "E", "z"}, {"W", "E"}, ["a"], batch=True)
    got = {n.text: str(out[n.index]) for n in figs if n.index in out}
    assert got == {"0.1234": "sgd[1].W[0,0]", "0.2345": "sgd[2].W[0,0]", "0.3456": "example[1].z[0]",
                   "0.4567": "z[0]"}, got
