"""The bigram document (after source document 004), section by section.

>>> import symgpt
>>> from symgpt.documents.blocks import Numbers
>>> d = symgpt.load("bigram")
>>> secs, figs = sections(d, Numbers(d, 4))
>>> [s["id"] for s in secs]  # doctest: +NORMALIZE_WHITESPACE
['bigram_setup', 'bigram_forward', 'bigram_backprop', 'bigram_update', 'bigram_extras', 'bigram_script',
 'bigram_selfcheck', 'precision']

The sections follow the source's numbering: §2 holds 2.1 (p − y), 2.2 (the
outer product and the matrix product) and 2.3 (the gradient check); §3 holds
3.1 (SGD) and 3.2 (AdamW).

>>> [st["key"] for st in secs[2]["steps"] + secs[3]["steps"] if st["kind"] == "sub"]
['bigram_pminusy.title', 'bigram_outer.title', 'bigram_gradcheck.title', 'bigram_sgd.title', 'bigram_adamw.title']
"""
from __future__ import annotations

from ..core.numeric import UndecidableError, round_decimals, round_significant
from ..engine.derive import bigram_gradients, softmax_ce_steps
from ..engine.names import split
from ..floats import extras
from ..training import sampling
from ..training.train import gradcheck, gradcheck_table, param_count
from . import precision as doc_precision
from . import script
from .blocks import (
    Part,
    batch,
    code,
    derivation_step,
    display,
    figure,
    items,
    math,
    minor,
    mtext,
    note,
    num,
    sub,
    table,
    tex,
    text,
    tok,
    vec,
    word,
)
from .figures import bars
from .figures import line as curve
from .steps import Dot, Group, Mul, Sub, Vec, exact, fig, line, result
from .transformer import W, _bm, weight_figs

# GPT-2 small (124M), the published configuration (Radford et al. 2019; Hugging Face `gpt2` config.json:
# n_vocab 50257, n_embd 768), for §0's comparison of scale.
GPT2_SMALL = {"V": 50257, "d": 768, "millions": 124}


def sections(d, n):
    """All sections and the figures' data of a bigram document."""
    figs = {}
    return [setup(d, n), forward(d, n, figs), backprop(d, n), update(d, n, figs), extras_section(d, n),
            script_section(d, n), selfcheck(d, n), doc_precision.section(d, n, figs=figs)], figs


def outline(d, n) -> list:
    """The sections as :class:`~symgpt.documents.blocks.Part` (built at once: the document is small).

    >>> import symgpt
    >>> from symgpt.documents.blocks import Numbers
    >>> d = symgpt.load("bigram")
    >>> [p.id for p in outline(d, Numbers(d, 4))][:2]
    ['bigram_setup', 'bigram_forward']
    """
    return [Part(sec["id"], lambda figs, sec=sec: sec) for sec in sections(d, n)[0]]


def _within(key, part):
    """A section's steps as a numbered sub-section of another: its heading, then its steps."""
    return [sub(f"{key}.title")] + part["steps"]


def backprop(d, n):
    """§2: where backpropagation starts (2.1), how it reaches every parameter (2.2), the check (2.3)."""
    return {"id": "bigram_backprop", "steps": [text("bigram_backprop.intro", count=num(param_count(d), "params()"))]
            + _within("bigram_pminusy", pminusy(d, n)) + _within("bigram_outer", outer(d, n))
            + _within("bigram_gradcheck", check(d, n))}


def update(d, n, figs):
    """§3: the update, SGD (3.1) and AdamW (3.2)."""
    return {"id": "bigram_update", "steps": [text("bigram_update.intro")]
            + _within("bigram_sgd", sgd(d, n, figs)) + _within("bigram_adamw", adamw(d, n))}


def _tokid(s, v, mark=""):
    return {"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": mark}


def setup(d, n):
    s = d.spec
    inp, tgt = s.vocab[s.input[-1]], s.vocab[s.target]
    rows = [[num(i), tok(t)] for i, t in enumerate(s.vocab)]
    return {"id": "bigram_setup", "steps": [
        text("bigram_setup.intro", count=num(param_count(d), "params()"), V=num(s.V)),
        table("bigram_setup.vocab_cap", [word("id"), word("token")], rows, align="rl"),
        text("bigram_setup.data_batch", inp=tok(inp), target=tok(tgt), n=num(len(s.training.examples)))
        if batch(s) else text("bigram_setup.data", inp=tok(inp), target=tok(tgt)),
        display(rf"E &= {_bm(_C(d, n), 'E')} \quad ({s.V} \times {s.d})",
                rf"W &= {_bm(_C(d, n), 'W')} \quad ({s.d} \times {s.V})",
                figs=weight_figs(_C(d, n), "E", "W")),
        text("bigram_setup.count", count=num(param_count(d), "params()"), d=num(s.d)),
        note("bigram_setup.gpt"),
        text("bigram_setup.scale", V=num(s.V), d=num(s.d), count=num(param_count(d), "params()"),
             gV=num(GPT2_SMALL["V"]), gd=num(GPT2_SMALL["d"]), gcount=num(GPT2_SMALL["millions"])),
        note("bigram_setup.tying")]}


class _C:
    def __init__(self, d, n):
        self.d, self.n = d, n


def forward(d, n, figs):
    s = d.spec
    i, t = s.input[-1], s.target
    p = [n.v(f"p[{v}]") for v in range(s.V)]
    ez = n.vec([f"exp(z[{v}])" for v in range(s.V)])
    pv = n.vec([f"p[{v}]" for v in range(s.V)])
    rows = [
        [num(1), math(rf"x = E[{i}]"), n.vec([f"x[{j}]" for j in range(s.d)])],
        [num(2), math(r"z = x W"), n.vec([f"z[{v}]" for v in range(s.V)])],
        [num(3), math(r"p_j = e^{z_j} / \sum_k e^{z_k}"),
         math(rf"e^{{z}} = {ez['v']},\ Z = {n.v('sum_exp')},\ p = {pv['v']}",
              ez["figs"] + [("sum_exp", n.v("sum_exp"))] + pv["figs"])],
        [num(4), math(rf"p_{{{mtext(s.vocab[t])}}} = p_{{{t}}}"), n.cell(f"p[{t}]")],
        [num(5), math(r"\mathcal{L} = -\ln p_{" + str(t) + "}"), n.cell("loss")],
    ]
    lines = [line(rf"z_{{{v}}}", Dot([fig(f"x[{j}]") for j in range(s.d)], [W(f"W[{j},{v}]") for j in range(s.d)]),
                  f"z[{v}]") for v in range(s.V)]
    best = sampling.greedy(d)
    figs["probs"] = bars(list(s.vocab), p, best.id, t)
    return {"id": "bigram_forward", "steps": [
        text("bigram_forward.intro"),
        table("bigram_forward.cap", [word("step"), word("formula"), word("result")], rows, align="rll"),
        text("bigram_forward.expand"),
        n.calc(*lines),
        text("bigram_forward.loss", p=num(p[t], f"p[{t}]"), uniform=tex(rf"1/{s.V}"), loss=num(n.v("loss"), "loss")),
        text("bigram_forward.why_log"),
        figure("probs", "softmax.fig", best=tok(best.token), target=tok(s.vocab[t]))]}


def pminusy(d, n):
    s = d.spec
    t = s.target
    dsteps = softmax_ce_steps(s.V, t)
    py = Sub(Vec(*[fig(f"p[{v}]") for v in range(s.V)]), Vec(*[exact("1" if v == t else "0") for v in range(s.V)]))
    return {"id": "bigram_pminusy", "steps": [
        text("bigram_pminusy.intro"),
        derivation_step(dsteps),
        text("bigram_pminusy.values", target=tok(s.vocab[t])),
        n.calc(line(r"\frac{\partial \mathcal{L}}{\partial z}", py,
                    Vec(*[result(f"grad_z[{v}]") for v in range(s.V)]), formula="p - y")),
        note("bigram_pminusy.reading", target=tok(s.vocab[t]))]}


def outer(d, n):
    s = d.spec
    t, i = s.target, s.input[-1]
    _, _, ok = bigram_gradients(s.d, s.V, t)
    gW = [[n.v(f"grad_W[{a},{b}]") for b in range(s.V)] for a in range(s.d)]
    gx = Vec(*[result(f"grad_x[{j}]") for j in range(s.d)])
    others = [s.vocab[v] for v in range(s.V) if v != i]
    return {"id": "bigram_outer", "steps": [
        text("bigram_outer.intro"),
        minor("bigram_outer.W"),
        display(r"\frac{\partial \mathcal{L}}{\partial W} = x^{\top} (p - y),\qquad "
                r"\frac{\partial \mathcal{L}}{\partial W_{ij}} = x_i \,(p_j - y_j)"),
        display(r"\frac{\partial \mathcal{L}}{\partial W} = \begin{bmatrix} "
                + r" \\ ".join(" & ".join(r) for r in gW) + r" \end{bmatrix}",
                figs=[(f"grad_W[{a},{b}]", gW[a][b]) for a in range(s.d) for b in range(s.V)]),
        text("bigram_outer.one", ij=tex(f"W_{{0{t}}}")),
        n.calc(line(rf"\frac{{\partial \mathcal{{L}}}}{{\partial W_{{0{t}}}}}",
                    Mul(fig("x[0]"), Group(Sub(fig(f"p[{t}]"), exact("1")))), f"grad_W[0,{t}]",
                    formula=rf"x_0 \times (p_{t} - 1)")),
        note("bigram_outer.rows_cols"),
        minor("bigram_outer.x"),
        n.calc(line(r"\frac{\partial \mathcal{L}}{\partial x}", None, gx, formula="W (p - y)")),
        text("bigram_outer.sparse", row=tok(s.vocab[i]), others={"t": "toklist", "v": others}),
        note("bigram_outer.sympy" if ok else "bigram_outer.sympy_failed")]}


def check(d, n):
    s = d.spec
    h = s.training.gradcheck_h
    k6 = n.k + 2
    rows = []
    names = list(s.training.gradcheck_params)
    for ref in names:
        c = gradcheck(d, ref, h)
        numeric = f"gradcheck({d.node(ref)}, {n.rational(h)})"
        grad = f"{'sgd[0].' if len(s.training.examples) > 1 else ''}grad_{d.node(ref)}"   # (a mini-batch's mean)
        rows.append([math(_param_tex(d, ref)),
                     num(_certain(round_decimals(c.numeric, k6), ref), numeric),
                     num(_certain(round_decimals(c.analytic, k6), ref), grad),
                     num(_certain(round_significant(c.difference, 3), ref), f"{numeric}-{grad}")])
    steps = [text("bigram_gradcheck.intro"),
             display(r"\frac{\mathcal{L}(\theta + h) - \mathcal{L}(\theta - h)}{2h} "
                     r"\approx \frac{\partial \mathcal{L}}{\partial \theta}"),
             text("bigram_gradcheck.h", h=tex(n.tex_rational(h)), k=num(k6))]
    if len(s.training.examples) > 1:
        steps.append(note("bigram_gradcheck.batch"))
    if rows:
        steps.append(table("bigram_gradcheck.cap", [word("parameter"), word("numeric"), word("analytic"),
                                                    word("difference")], rows, align="lrrr"))
        first = names[0]
        err = []
        for e, r in zip(range(1, 13), gradcheck_table(d, first, exponents=range(1, 13))):
            err.append([math(f"10^{{-{e}}}"), num(_certain(round_significant(r["error_exact"], 3), first)),
                        num(_certain(round_significant(r["error_float64"], 3), first))])
        steps += [text("bigram_gradcheck.sweep", p=tex(_param_tex(d, first))),
                  table("bigram_gradcheck.sweep_cap", [math("h"), word("err_exact"), word("err_float64")], err,
                        args={"p": tex(_param_tex(d, first))})]
    steps.append(note("bigram_gradcheck.meaning"))
    return {"id": "bigram_gradcheck", "steps": steps}


def _certain(s, ref):
    """A rounding that must be certified at the gradient check's 200 bits."""
    if s is None:
        raise UndecidableError(f"training.gradcheck: the check of {ref} has a figure whose rounding is not certified "
                               f"at 200 bits; expected entries whose gradient is not a near-zero cancellation")
    return s


def _param_tex(d, ref):
    group, idx = split(d.node(ref))
    return f"{group}_{{{''.join(idx)}}}"


def sgd(d, n, figs):
    s = d.spec
    tr = s.training
    t, i = s.target, s.input[-1]
    lr = n.rational(tr.lr)
    wname = f"W[0,{t}]"
    e_old = Vec(*[W(f"E[{i},{j}]") for j in range(s.d)])
    g, loss0 = gradient_of(s), "sgd[0].loss" if batch(s) else "loss"
    g_x = Vec(*[fig(f"{g}E[{i},{j}]") for j in range(s.d)])
    p1 = [n.v(f"sgd[1].p[{v}]") for v in range(s.V)]
    steps = [text("bigram_sgd.intro", lr=tex(lr))]
    if batch(s):
        steps.append(text("bigram_sgd.batch", n=num(len(tr.examples)), loss=n.cell(loss0)))
    steps += [display(r"\theta \leftarrow \theta - \eta\, g"),
             n.calc(line(rf"W_{{0{t}}}^{{\mathrm{{new}}}}", Sub(W(wname), Mul(n.const(tr.lr), fig(f"{g}{wname}"))),
                         f"sgd[1].{wname}"),
                    line(rf"E[{i}]^{{\mathrm{{new}}}}", Sub(e_old, Mul(n.const(tr.lr), g_x)),
                         Vec(*[result(f"sgd[1].E[{i},{j}]") for j in range(s.d)]))),
             text("bigram_sgd.after", count=num(param_count(d), "params()")),
             display(rf"p = {vec(p1)},\qquad \mathcal{{L}} = {n.v(loss0)} \to {n.v('sgd[1].loss')}",
                     figs=[(f"sgd[1].p[{v}]", p1[v]) for v in range(s.V)]
                     + [(loss0, n.v(loss0)), ("sgd[1].loss", n.v("sgd[1].loss"))]),
             text("bigram_sgd.gain_batch" if batch(s) else "bigram_sgd.gain", target=tok(s.vocab[t]),
                  p0=n.cell(f"p[{t}]"), p1=n.cell(f"sgd[1].p[{t}]"), drop=n.cell(f"{loss0}-sgd[1].loss"))]
    if tr.steps >= 2:
        rows = [[num(k), n.cell(f"sgd[{k - 1}].loss"), n.cell(f"sgd[{k - 1}].p[{t}]")]
                for k in tr.report if k >= 1]
        figs["loss"] = curve(list(range(1, tr.steps + 1)), [n.v(f"sgd[{k}].loss") for k in range(tr.steps)])
        steps += [text("bigram_sgd.repeat_batch" if batch(s) else "bigram_sgd.repeat", steps=num(tr.steps)),
                  table("train.curve_cap",
                        [word("step"), math(r"\mathcal{L}"), math(rf"p_{{{mtext(s.vocab[t])}}}")], rows),
                  figure("loss", "train.curve_fig"),
                  note("bigram_sgd.overfit_batch" if batch(s) else "bigram_sgd.overfit"),
                  note("bigram_sgd.order")]
    return {"id": "bigram_sgd", "steps": steps}


def gradient_of(s) -> str:
    """The prefix of the gradient an update uses: the example's own (``grad_``), or the batch mean's
    (``sgd[0].grad_``) when the spec trains on several examples.

    >>> import symgpt
    >>> gradient_of(symgpt.load("bigram").spec)
    'grad_'
    """
    return "sgd[0].grad_" if batch(s) else "grad_"


def adamw(d, n):
    s = d.spec
    a = s.training.adamw
    t = s.target
    ref = s.training.gradcheck_params[0] if s.training.gradcheck_params else f"W[0,{t}]"
    name = d.node(ref)
    key = name.replace("[", ",", 1)[:-1]  # W[0,2] -> W,0,2 (the trace's naming)
    tr = d.trace("adamw")
    sig = n.k + 1
    val = lambda q: tr.value(1, q, digits=sig)
    R = n.rational
    rows = [
        [word("adam_m"), math(rf"m = (1 - \beta_1)\, g = {R(1 - a.beta1)} \times g"),
         num(val(f"m[{key}]"), f"adamw[1].m[{key}]")],
        [word("adam_v"), math(rf"v = (1 - \beta_2)\, g^2 = {R(1 - a.beta2)} \times g^2"),
         num(val(f"v[{key}]"), f"adamw[1].v[{key}]")],
        [word("adam_hat"), math(r"\hat m = m / (1 - \beta_1),\ \hat v = v / (1 - \beta_2)"),
         math(rf"\hat m = {val(f'mhat[{key}]')},\ \hat v = {val(f'vhat[{key}]')}",
              [(f"adamw[1].mhat[{key}]", val(f"mhat[{key}]")), (f"adamw[1].vhat[{key}]", val(f"vhat[{key}]"))])],
        [word("adam_step"), math(r"\eta\, \hat m / (\sqrt{\hat v} + \epsilon)"),
         num(val(f"update[{key}]"), f"adamw[1].update[{key}]")],
        [word("adam_decay"), math(r"\eta \lambda \theta"), num(val(f"decay[{key}]"), f"adamw[1].decay[{key}]")],
        [word("adam_new"), math(r"\theta - \eta\lambda\theta - \eta\, \hat m / (\sqrt{\hat v} + \epsilon)"),
         math(rf"{n.weight(name)} \to {tr.value(1, name, decimals=n.k + 3)}",
              [(f"adamw[1].{name}", tr.value(1, name, decimals=n.k + 3))])],
    ]
    g = gradient_of(s)
    sgd_step = n.v(f"adamw.lr*{g}{name}", n.k + 3)
    return {"id": "bigram_adamw", "steps": [
        text("bigram_adamw.intro"),
        text("bigram_adamw.hyper", b1=tex(R(a.beta1)), b2=tex(R(a.beta2)), lr=tex(n.tex_rational(a.lr)),
             eps=tex(n.tex_rational(a.eps)), wd=tex(R(a.weight_decay)), p=tex(_param_tex(d, ref)),
             theta=tex(n.weight(name)), g=tex(n.v(f"{g}{name}", n.k))),
        table("bigram_adamw.cap", [word("quantity"), word("formula"), word("value")], rows,
              args={"p": tex(_param_tex(d, ref))}, align="lll"),
        text("bigram_adamw.sign", sgd=num(sgd_step, f"adamw.lr*{g}{name}"),
             adam=num(val(f"update[{key}]"), f"adamw[1].update[{key}]")),
        note("bigram_adamw.decoupled")]}


# ---------------------------------------------------------------- §4 production extras

def _batch_rows(d):
    """The parameters the batch table shows: W, then the rows of E the batch's inputs use (at most 16)."""
    s = d.spec
    names = [f"W[{i},{j}]" for i in range(s.d) for j in range(s.V)]
    for v in sorted({inp[-1] for inp, _ in s.extras.batch}):
        names += [f"E[{v},{j}]" for j in range(s.d)]
    return names[:16], len(names)


def extras_section(d, n):
    """§4: a mini-batch, clipping, the learning-rate schedule and bfloat16, each computed."""
    s, ex = d.spec, d.spec.extras
    b = extras.Batch(d)
    k = n.k
    head = [word("parameter")] + [math(rf"g^{{({i + 1})}}") for i in range(len(ex.batch))] + [math(r"G")]
    own = [m is d for m in b.models]

    def cell(i, ref):  # example i's value; the spec's own example prints a claim
        return num(b.example(i, ref, k), ref) if own[i] else num(b.example(i, ref, k))
    rows = [[math(r"\mathcal{L}")] + [cell(i, "loss") for i in range(len(ex.batch))] + [num(b.mean("loss", k))]]
    names, total = _batch_rows(d)
    for name in names:
        rows.append([math(_param_tex(d, name))] + [cell(i, f"grad_{name}") for i in range(len(ex.batch))]
                    + [num(b.mean(f"grad_{name}", k))])
    steps = [text("bigram_extras.intro"),
             sub("bigram_extras.batch"),
             text("bigram_extras.batch_text", B=num(len(ex.batch))),
             table("bigram_extras.pairs_cap", [math("b"), math(r"x^{(b)}"), math(r"y^{(b)}")],
                   [[num(i + 1), tok(s.vocab[inp[-1]]), tok(s.vocab[tgt])] for i, (inp, tgt) in enumerate(ex.batch)],
                   align="rll"),
             text("bigram_extras.mean_text"),
             display(r"G = \frac{1}{B} \sum_{b=1}^{B} g^{(b)}"),
             table("bigram_extras.batch_cap", head, rows, align="l" + "r" * (len(head) - 1))]
    if total > len(names):
        steps.append(text("bigram_extras.batch_more", shown=num(len(names)), total=num(total)))
    steps.append(note("bigram_extras.batch_note"))
    c = n.rational(ex.clip)
    steps += [sub("bigram_extras.clip"),
              text("bigram_extras.clip_text", c=tex(c)),
              display(r"\|G\| = \sqrt{\textstyle\sum_\theta G_\theta^{2}} = " + b.norm(k)
                      + r",\qquad s = \operatorname{min}\left(1,\ \frac{" + c + r"}{\|G\| + 10^{-6}}\right)"
                      + (r" \approx " if b.clips() else " = ") + b.coef(k + 2))]
    if b.clips():
        top = names[:min(len(names), 6)]
        steps += [text("bigram_extras.clip_cut", coef=num(b.coef(k + 2))),
                  table("bigram_extras.clip_cap", [word("parameter"), math(r"G"), math(r"s\, G")],
                        [[math(_param_tex(d, nm)), num(b.mean(f"grad_{nm}", k)), num(b.clipped_grad(nm, k))]
                         for nm in top], align="lrr")]
    else:
        steps.append(text("bigram_extras.clip_none", norm=num(b.norm(k)), c=tex(c)))
    a = s.training.adamw
    last = ex.decay_steps + 1
    sched = [[num(it), num(extras.schedule_lr(d, it, 3))] for it in range(last + 1)]
    steps += [sub("bigram_extras.schedule"),
              text("bigram_extras.schedule_text", lr=tex(n.tex_rational(a.lr)), warmup=tex(str(ex.warmup)),
                   decay=tex(str(ex.decay_steps)), min_lr=tex(n.tex_rational(ex.min_lr))),
              display(r"\eta_t = \begin{cases} \eta\, \frac{t + 1}{w + 1} & t < w \\ "
                      r"\eta_{\mathrm{min}} + "
                      r"\frac{1}{2}\left(1 + \cos\left(180\text{°} \cdot \frac{t - w}{T - w}\right)\right)"
                      r"(\eta - \eta_{\mathrm{min}}) & w \le t \le T \\ \eta_{\mathrm{min}} & t > T \end{cases}"),
              table("bigram_extras.schedule_cap", [word("step"), math(r"\eta_t")], sched, align="rr")]
    steps += bf16_steps(d, n)
    steps.append(note("bigram_extras.same_chain"))
    return {"id": "bigram_extras", "steps": steps}


def bf16_steps(d, n):
    """4.4: the first step with every operation rounded to bfloat16, beside the exact values."""
    s = d.spec
    t, i = s.target, s.input[-1]
    try:
        r = extras.bf16_step(d)
    except OverflowError:
        return [sub("bigram_extras.bf16"), text("bigram_extras.bf16_text"), note("bigram_extras.bf16_overflow")]
    k = n.k
    shown = range(s.V) if s.V <= 4 else [t]
    quantities = ([(f"z_{{{v}}}", f"z[{v}]", r["z"][v]) for v in shown]
                  + [(f"p_{{{v}}}", f"p[{v}]", r["p"][v]) for v in shown]
                  + [(r"\mathcal{L}", "loss", r["loss"])]
                  + [(rf"(p - y)_{{{v}}}", f"grad_z[{v}]", r["grad_z"][v]) for v in shown]
                  + [(rf"\partial \mathcal{{L}} / \partial W_{{0{t}}}", f"grad_W[0,{t}]", r["grad_W"][0][t])]
                  + [(rf"\partial \mathcal{{L}} / \partial x_{{{j}}}", f"grad_x[{j}]", r["grad_x"][j])
                     for j in range(min(s.d, 4))]
                  + [(rf"W_{{0{t}}}^{{\mathrm{{new}}}}", f"sgd[1].W[0,{t}]", r["W_new"][0][t])]
                  + [(rf"E_{{{i}{j}}}^{{\mathrm{{new}}}}", f"sgd[1].E[{i},{j}]", r["E_row_new"][j])
                     for j in range(min(s.d, 4))])
    rows = [[math(sym), n.cell(ref, k + 2), num(extras.exact_decimals(v, k + 2)), num(extras.error(d, ref, v, 2))]
            for sym, ref, v in quantities]
    return [sub("bigram_extras.bf16"),
            text("bigram_extras.bf16_text"),
            table("bigram_extras.bf16_cap", [word("quantity"), word("exact"), math(r"\mathrm{bf16}"),
                                             math(r"\delta")], rows, align="lrrr"),
            note("bigram_extras.bf16_note", loss=n.cell("loss", k + 2),
                 bf=num(extras.exact_decimals(r["loss"], k + 2)))]


# ---------------------------------------------------------------- §5 the script

def script_section(d, n):
    """§5: the generated pure-Python script, and the update-order pitfall it shows."""
    s = d.spec
    steps = [text("bigram_script.intro"), code(script.script(d, n.k)), text("bigram_script.output")]
    if script.plain_training(s) and s.training.steps >= 1:
        steps.append(text("bigram_script.pitfall", right=n.cell("sgd[1].loss"),
                          wrong=n.cell("sgd_wrong_order[1].loss")))
    else:
        steps.append(note("bigram_script.not_plain"))
    steps.append(note("bigram_script.torch"))
    return {"id": "bigram_script", "steps": steps}


# ---------------------------------------------------------------- §6 self-check

def selfcheck(d, n):
    """§6: questions a reader can answer from the document's own figures."""
    s = d.spec
    t, i = s.target, s.input[-1]
    k = n.k
    others = [v for v in range(s.V) if v != i]
    zero = all(d.sign(f"grad_E[{v},{j}]") == 0 for v in others for j in range(s.d))
    zref = " + ".join(f"abs(grad_E[{v},{j}])" for v in others for j in range(s.d))
    ref = s.training.gradcheck_params[0] if s.training.gradcheck_params else f"W[0,{t}]"
    name = d.node(ref)
    key = name.replace("[", ",", 1)[:-1]
    upd = f"adamw[1].update[{key}]"
    entries = [text("bigram_selfcheck.pminusy"),
               text("bigram_selfcheck.signal", signal={"t": "list", "v": [n.cell(f"grad_z[{v}]") for v in range(s.V)]},
                    target=tok(s.vocab[t])),
               text("bigram_selfcheck.outer", t=tex(str(t)), x0=n.cell("x[0]"), pt1=n.cell(f"p[{t}] - 1"),
                    g=n.cell(f"grad_W[0,{t}]"))]
    if others and zero:
        entries.append(text("bigram_selfcheck.zero_rows", others={"t": "toklist", "v": [s.vocab[v] for v in others]},
                            zero=num("0", zref)))
    entries += [text("bigram_selfcheck.gradcheck"),
                text("bigram_selfcheck.cost", count=num(param_count(d), "params()"),
                     passes=num(2 * param_count(d), "2*params()")),
                text("bigram_selfcheck.adamw", p=tex(_param_tex(d, ref)),
                     ratio=num(n.v(f"abs({upd}) / adamw.lr", k + 4), f"abs({upd}) / adamw.lr"),
                     sgd=num(n.v(f"adamw.lr * abs(grad_{name})", k + 3), f"adamw.lr * abs(grad_{name})")),
                text("bigram_selfcheck.decay", share=num(n.v(f"adamw[1].decay[{key}] / {name}", k + 2),
                                                         f"adamw[1].decay[{key}] / {name}"))]
    return {"id": "bigram_selfcheck", "steps": [text("bigram_selfcheck.intro"), items(*entries),
                                                 note("bigram_selfcheck.outro")]}
