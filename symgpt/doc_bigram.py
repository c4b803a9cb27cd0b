"""The bigram document (after source document 004), section by section.

>>> import symgpt
>>> from symgpt.blocks import Numbers
>>> d = symgpt.load("bigram")
>>> secs, figs = sections(d, Numbers(d, 4))
>>> [s["id"] for s in secs]
['bigram_setup', 'bigram_forward', 'bigram_pminusy', 'bigram_outer', 'bigram_gradcheck', 'bigram_sgd', 'bigram_adamw']
"""
from __future__ import annotations

from . import sampling
from .blocks import derivation_step, display, figure, math, mtext, note, num, sub, table, tex, text, tok, vec, word
from .derive import bigram_gradients, softmax_ce_steps
from .doc_transformer import W, _bm, weight_figs
from .figures import bars, line as curve
from .names import split
from .numeric import round_decimals, round_significant
from .steps import Dot, Group, Mul, Sub, Vec, exact, fig, line, result
from .train import gradcheck, gradcheck_table, param_count


def sections(d, n):
    """All sections and the figures' data of a bigram document."""
    figs = {}
    return [setup(d, n), forward(d, n, figs), pminusy(d, n), outer(d, n), check(d, n),
            sgd(d, n, figs), adamw(d, n)], figs


def _tokid(s, v, mark=""):
    return {"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": mark}


def setup(d, n):
    s = d.spec
    inp, tgt = s.vocab[s.input[-1]], s.vocab[s.target]
    rows = [[num(i), tok(t)] for i, t in enumerate(s.vocab)]
    return {"id": "bigram_setup", "steps": [
        text("bigram_setup.intro", count=num(param_count(d), "params()"), V=num(s.V)),
        table("bigram_setup.vocab_cap", [word("id"), word("token")], rows, align="rl"),
        text("bigram_setup.data", inp=tok(inp), target=tok(tgt)),
        display(rf"E = {_bm(_C(d, n), 'E')} \quad ({s.V} \times {s.d}),\qquad W = {_bm(_C(d, n), 'W')} \quad ({s.d} \times {s.V})",
                figs=weight_figs(_C(d, n), "E", "W")),
        text("bigram_setup.count", count=num(param_count(d), "params()"), d=num(s.d)),
        note("bigram_setup.gpt")]}


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
        sub("bigram_outer.W"),
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
        sub("bigram_outer.x"),
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
        rows.append([math(_param_tex(d, ref)),
                     num(_certain(round_decimals(c.numeric, k6), ref), numeric),
                     num(_certain(round_decimals(c.analytic, k6), ref), f"grad_{d.node(ref)}"),
                     num(_certain(round_significant(c.difference, 3), ref), f"{numeric}-grad_{d.node(ref)}")])
    steps = [text("bigram_gradcheck.intro"),
             display(r"\frac{\mathcal{L}(\theta + h) - \mathcal{L}(\theta - h)}{2h} \approx \frac{\partial \mathcal{L}}{\partial \theta}"),
             text("bigram_gradcheck.h", h=tex(n.tex_rational(h)), k=num(k6))]
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
        raise ValueError(f"gradient check of {ref}: the rounding is not certified at 200 bits")
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
    g_x = Vec(*[fig(f"grad_E[{i},{j}]") for j in range(s.d)])
    p1 = [n.v(f"sgd[1].p[{v}]") for v in range(s.V)]
    steps = [text("bigram_sgd.intro", lr=tex(lr)),
             display(r"\theta \leftarrow \theta - \eta\, g"),
             n.calc(line(rf"W_{{0{t}}}^{{\mathrm{{new}}}}", Sub(W(wname), Mul(n.const(tr.lr), fig(f"grad_{wname}"))),
                         f"sgd[1].{wname}"),
                    line(rf"E[{i}]^{{\mathrm{{new}}}}", Sub(e_old, Mul(n.const(tr.lr), g_x)),
                         Vec(*[result(f"sgd[1].E[{i},{j}]") for j in range(s.d)]))),
             text("bigram_sgd.after", count=num(param_count(d), "params()")),
             display(rf"p = {vec(p1)},\qquad \mathcal{{L}} = {n.v('loss')} \to {n.v('sgd[1].loss')}",
                     figs=[(f"sgd[1].p[{v}]", p1[v]) for v in range(s.V)]
                     + [("loss", n.v("loss")), ("sgd[1].loss", n.v("sgd[1].loss"))]),
             text("bigram_sgd.gain", target=tok(s.vocab[t]), p0=n.cell(f"p[{t}]"), p1=n.cell(f"sgd[1].p[{t}]"),
                  drop=n.cell("loss-sgd[1].loss"))]
    if tr.steps >= 2:
        rows = [[num(k), n.cell(f"sgd[{k - 1}].loss"), n.cell(f"sgd[{k - 1}].p[{t}]")]
                for k in tr.report if k >= 1]
        figs["loss"] = curve(list(range(1, tr.steps + 1)), [n.v(f"sgd[{k}].loss") for k in range(tr.steps)])
        steps += [text("bigram_sgd.repeat", steps=num(tr.steps)),
                  table("train.curve_cap", [word("step"), math(r"\mathcal{L}"), math(rf"p_{{{mtext(s.vocab[t])}}}")], rows),
                  figure("loss", "train.curve_fig"),
                  note("bigram_sgd.order")]
    return {"id": "bigram_sgd", "steps": steps}


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
        [word("adam_m"), math(rf"m = (1 - \beta_1)\, g = {R(1 - a.beta1)} \times g"), num(val(f"m[{key}]"), f"adamw[1].m[{key}]")],
        [word("adam_v"), math(rf"v = (1 - \beta_2)\, g^2 = {R(1 - a.beta2)} \times g^2"), num(val(f"v[{key}]"), f"adamw[1].v[{key}]")],
        [word("adam_hat"), math(r"\hat m = m / (1 - \beta_1),\ \hat v = v / (1 - \beta_2)"),
         math(rf"\hat m = {val(f'mhat[{key}]')},\ \hat v = {val(f'vhat[{key}]')}",
              [(f"adamw[1].mhat[{key}]", val(f"mhat[{key}]")), (f"adamw[1].vhat[{key}]", val(f"vhat[{key}]"))])],
        [word("adam_step"), math(r"\eta\, \hat m / (\sqrt{\hat v} + \epsilon)"), num(val(f"update[{key}]"), f"adamw[1].update[{key}]")],
        [word("adam_decay"), math(r"\eta \lambda \theta"), num(val(f"decay[{key}]"), f"adamw[1].decay[{key}]")],
        [word("adam_new"), math(r"\theta - \eta\lambda\theta - \eta\, \hat m / (\sqrt{\hat v} + \epsilon)"),
         math(rf"{n.weight(name)} \to {tr.value(1, name, decimals=n.k + 3)}",
              [(f"adamw[1].{name}", tr.value(1, name, decimals=n.k + 3))])],
    ]
    sgd_step = n.v(f"adamw.lr*grad_{name}", n.k + 3)
    return {"id": "bigram_adamw", "steps": [
        text("bigram_adamw.intro"),
        text("bigram_adamw.hyper", b1=tex(R(a.beta1)), b2=tex(R(a.beta2)), lr=tex(n.tex_rational(a.lr)),
             eps=tex(n.tex_rational(a.eps)), wd=tex(R(a.weight_decay)), p=tex(_param_tex(d, ref)),
             theta=tex(n.weight(name)), g=tex(n.v(f"grad_{name}", n.k))),
        table("bigram_adamw.cap", [word("quantity"), word("formula"), word("value")], rows,
              args={"p": tex(_param_tex(d, ref))}, align="lll"),
        text("bigram_adamw.sign", sgd=num(sgd_step, f"adamw.lr*grad_{name}"), adam=num(val(f"update[{key}]"), f"adamw[1].update[{key}]")),
        note("bigram_adamw.decoupled")]}
