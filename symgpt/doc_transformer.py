"""The transformer document (after source document 000), section by section.

Each function returns one section: ``{"id", "steps"}``.  Sizes come from the
spec, so tables grow with V, d, d_ff, T, heads and layers; element-by-element
sums are written out for the *worked rows* (every position when T ≤ 2, else
the last one, the position that predicts).

>>> import symgpt
>>> from symgpt.document import Numbers
>>> d = symgpt.load("tiny-transformer")
>>> secs, figs = sections(d, Numbers(d, 3))
>>> [s["id"] for s in secs][:4]
['setup', 'vocab', 'tokenize', 'embed']
>>> sorted(figs)
['attention', 'probs']
"""
from __future__ import annotations

import sympy

from . import sampling
from .derive import softmax_ce_steps
from .document import (derivation_step, display, figure, math, mtext, note, num, paren, pos, sub, table, terms,
                       tex, text, tok, word)
from .figures import bars, heatmap, line
from .train import learnable, param_count

DESC = {"E": "use_E", "W_out": "use_W_out", "W_Q": "use_W_Q", "W_K": "use_W_K", "W_V": "use_W_V",
        "W_O": "use_W_O", "W_1": "use_W_1", "b_1": "use_b_1", "W_2": "use_W_2", "b_2": "use_b_2",
        "gamma1": "use_gamma", "beta1": "use_beta", "gamma2": "use_gamma", "beta2": "use_beta"}
PARAM_TEX = {"E": "E", "W_out": r"W_{\mathrm{out}}", "W_Q": "W_Q", "W_K": "W_K", "W_V": "W_V",
             "W_O": "W_O", "W_1": "W_1", "b_1": "b_1", "W_2": "W_2", "b_2": "b_2",
             "gamma1": r"\gamma^{(1)}", "beta1": r"\beta^{(1)}", "gamma2": r"\gamma^{(2)}",
             "beta2": r"\beta^{(2)}"}


def vec(xs) -> str:
    """LaTeX of a row vector of strings.

    >>> vec(["0.5", "1.8"])
    '\\\\left(0.5,\\\\; 1.8\\\\right)'
    """
    return r"\left(" + r",\; ".join(xs) + r"\right)"


def bmatrix(rows) -> str:
    """LaTeX bmatrix of rows of strings.

    >>> bmatrix([["1", "2"]])
    '\\\\begin{bmatrix} 1 & 2 \\\\end{bmatrix}'
    """
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def shape_tex(shape) -> str:
    """``(6, 2)`` → ``6 \\times 2``.

    >>> shape_tex((6, 2)), shape_tex((4,))
    ('6 \\\\times 2', '4')
    """
    return r" \times ".join(map(str, shape))


class Ctx:
    """What every section needs: the derivation, its numbers, its sizes."""

    def __init__(self, d, n):
        self.d, self.n, self.s = d, n, d.spec
        s = self.s
        self.T, self.dm, self.V = s.T, s.d, s.V
        self.dk = s.d // s.heads
        self.toks = [s.vocab[i] for i in s.input]
        self.rows = list(range(self.T)) if self.T <= 2 else [self.T - 1]
        self.k = n.k
        self.fine = n.k + 1

    def posl(self, t):
        return pos(t, self.toks[t])

    def head_idx(self, h, *idx):
        return ",".join(map(str, ((h,) if self.s.heads > 1 else ()) + idx))

    def matrix_table(self, key, group, row_labels, col_head, args=None, k=None, weights=False):
        """A table of a (rows × cols) group with labelled rows."""
        grp = self.d.graph.groups[group]
        nrows, ncols = grp.shape
        rows = []
        for i in range(nrows):
            f = (lambda j: self.n.weight(f"{group}[{i},{j}]")) if weights else \
                (lambda j: self.n.v(f"{group}[{i},{j}]", k))
            rows.append([row_labels(i)] + [num(f(j)) for j in range(ncols)])
        head = [col_head[0]] + [col_head[1](j) for j in range(ncols)]
        return table(key, head, rows, args)

    def cellv(self, ref):
        """A table cell: the value, and its significant digits when it rounds to zero."""
        tiny = self.n.tiny(ref)
        v = self.n.v(ref)
        return {"t": "num", "v": v, "exact": tiny} if tiny else num(v)

    def pos_table(self, key, group, colword="dim", args=None, k=None):
        return self.matrix_table(key, group, self.posl,
                                 (word("position"), lambda j: _colhead(colword, j)), args, k)


def _colhead(colword, j):
    return {"t": "word", "v": colword, "j": str(j)}


def sections(d, n):
    """All sections and the figures' data of a transformer document."""
    c = Ctx(d, n)
    figs = {}
    out = [setup(c), vocab(c), tokenize(c), embed(c), positional(c)]
    for l in range(c.s.layers):
        pre = c.s.layer_prefix(l)
        out += [attention(c, l, pre, figs), residual_ln(c, l, pre, 1), ffn(c, l, pre),
                residual_ln(c, l, pre, 2)]
    out += [head(c), softmax(c, figs), sample(c), training(c, figs), summary(c)]
    return out, figs


# ---------------------------------------------------------------- §0 set-up

def setup(c):
    s = c.s
    hyper = [[math("V"), word("vocab_size"), num(s.V)], [math("d"), word("d_model"), num(s.d)],
             [math("h"), word("n_heads"), num(s.heads)], [math("d_k"), word("d_head"), num(c.dk)],
             [math(r"d_{\mathrm{ff}}"), word("d_ff"), num(s.d_ff)], [math("L"), word("n_layers"), num(s.layers)],
             [math("T"), word("seq_len"), num(c.T)]]
    learn = set(learnable(c.d))
    prow = []
    for group in s.params:
        base = group.split(".")[-1]
        grp = c.d.graph.groups[group]
        size = len(grp.names)
        count = sum(1 for nm in grp.names if nm in learn)
        label = (f"{{{PARAM_TEX[base]}}}^{{[{group.split('.')[0]}]}}" if "." in group else PARAM_TEX[base])
        prow.append([math(label), math(shape_tex(grp.shape)), word(DESC[base]),
                     num(count) if count == size else word("fixed")])
    total = param_count(c.d)
    steps = [text("setup.intro", inp=tok("".join(c.toks)), target=tok(c.s.vocab[s.target])),
             table("setup.hyper_cap", [word("symbol"), word("meaning"), word("value")], hyper, align="llr"),
             text("setup.params", total=num(total)),
             table("setup.params_cap", [word("name"), word("shape"), word("use"), word("count")], prow,
                   args={"total": num(total)}, align="lllr")]
    if not s.training.learnable_ln:
        steps.append(note("setup.fixed_ln"))
    steps.append(note("setup.pe_fixed"))
    return {"id": "setup", "steps": [st for st in steps if st]}


def vocab(c):
    rows = [[num(i), tok(t)] for i, t in enumerate(c.s.vocab)]
    return {"id": "vocab", "steps": [
        text("vocab.intro", V=num(c.V)),
        table("vocab.cap", [word("id"), word("token")], rows, args={"V": num(c.V)}, align="rl"),
        note("vocab.real")]}


def tokenize(c):
    ids = list(c.s.input)
    lines = [rf"{mtext(t)} &\mapsto {i}" for t, i in zip(c.toks, ids)]
    onehot = [[c.posl(t)] + [num(1 if v == i else 0) for v in range(c.V)] for t, i in enumerate(ids)]
    head = [word("position")] + [{"t": "tokid", "v": str(v), "tok": tk} for v, tk in enumerate(c.s.vocab)]
    return {"id": "tokenize", "steps": [
        text("tokenize.intro"),
        display(*lines),
        display(r"\mathrm{tokens} = \left[" + r",\; ".join(map(str, ids)) + rf"\right] \in \mathbb{{Z}}^{{{c.T}}}"),
        text("tokenize.onehot", V=num(c.V), Tt=tex(c.T), Vt=tex(c.V)),
        table("tokenize.cap", head, onehot, args={"T": num(c.T), "V": num(c.V)}),
        note("tokenize.lookup")]}


def embed(c):
    E_rows = lambda v: {"t": "tokid", "v": str(v), "tok": c.s.vocab[v]}
    Et = c.matrix_table("embed.E_cap", "E", E_rows, (word("token"), lambda j: _colhead("dim", j)),
                        args={"V": num(c.V), "d": num(c.dm)}, weights=True)
    lines = []
    for t, i in enumerate(c.s.input):
        xs = [c.n.weight(f"E[{i},{j}]") for j in range(c.dm)]
        lines.append(rf"x_{{{t}}} &= E[{i}] = {vec(xs)} \quad ({mtext(c.toks[t])})")
    return {"id": "embed", "steps": [
        text("embed.intro", d=num(c.dm)),
        Et,
        display(rf"X = X_{{\mathrm{{oh}}}} \cdot E \in \mathbb{{R}}^{{{c.T} \times {c.dm}}}"),
        text("embed.pick"),
        display(*lines),
        c.pos_table("embed.X_cap", "X")]}


def positional(c):
    n, s = c.n, c.s
    general = (r"\mathrm{PE}(t, 2i) = \sin\left(\frac{t}{b^{2i/d}}\right),\quad "
               r"\mathrm{PE}(t, 2i+1) = \cos\left(\frac{t}{b^{2i/d}}\right)")
    dens = []
    for i in range(c.dm // 2 + c.dm % 2):
        q = s.pe_base ** sympy.Rational(2 * i, c.dm)
        dens.append(rf"i = {i}: &\quad b^{{{2 * i}/{c.dm}}} = {sympy.latex(q)}")
    pe_lines, h_lines = [], []
    for t in range(c.T):
        closed = [n.closed(f"PE[{t},{j}]") for j in range(c.dm)]
        vals = [n.v(f"PE[{t},{j}]") for j in range(c.dm)]
        mid = vec([cl if cl else v for cl, v in zip(closed, vals)])
        pe_lines.append(rf"\mathrm{{PE}}_{{{t}}} &= {mid} = {vec(vals)}" if any(closed)
                        else rf"\mathrm{{PE}}_{{{t}}} &= {vec(vals)}")
        xs = [n.weight(f"E[{s.input[t]},{j}]") for j in range(c.dm)]
        sums = [f"{x} {'+' if not p.startswith('-') else '-'} {p.lstrip('-')}" for x, p in zip(xs, vals)]
        hv = [n.v(f"H0[{t},{j}]") for j in range(c.dm)]
        hc = [n.closed(f"H0[{t},{j}]") for j in range(c.dm)]
        line_ = rf"h^{{(0)}}_{{{t}}} &= {vec(sums)} = {vec(hv)}"
        h_lines.append(line_)
        if any(hc):
            h_lines.append(rf"&= {vec([cl if cl else v for cl, v in zip(hc, hv)])}")
    return {"id": "positional", "steps": [
        text("positional.intro"),
        display(general),
        text("positional.base", base=tex(n.rational(s.pe_base)), d=tex(c.dm)),
        display(*dens),
        display(*pe_lines),
        text("positional.closed"),
        display(r"H^{(0)} = X + \mathrm{PE}"),
        display(*h_lines),
        c.pos_table("positional.H0_cap", "H0")]}


# ---------------------------------------------------------------- attention

def _dot_line(c, lhs, xs_names, ws, bias=None, k_out=None, result=None):
    """``lhs = x·w (+ b) = products (+ b) = result`` with certified numbers."""
    n = c.n
    xs = [n.v(x) for x in xs_names]
    fac = [rf"{paren(x)} \times {paren(w_s)}" for x, (w_s, _) in zip(xs, ws)]
    prods = [n.e(n.sym(x) * w, c.fine) for x, (_, w) in zip(xs_names, ws)]
    if bias is not None:
        fac.append(bias[0])
        prods.append(bias[0])
    return rf"{lhs} &= {terms(fac)} = {terms(prods)} = {result}"


def attention(c, l, pre, figs):
    n, s, d = c.n, c.s, c.d
    g = d.graph
    steps = [text("attention.intro")]
    if s.layers > 1:
        steps.insert(0, sub("block.layer", l=num(l)))
    steps.append(display(*[rf"{nm} &= {_bm(c, pre + nm)}" for nm in ("W_Q", "W_K", "W_V")]))
    steps.append(display(r"Q = H W_Q,\quad K = H W_K,\quad V = H W_V"))
    hin = "H0" if l == 0 else s.layer_prefix(l - 1) + "LN2"
    for M, low in (("Q", "q"), ("K", "k"), ("V", "v")):
        W = pre + "W_" + M
        steps.append(sub("attention.elem", M=tex(M)))
        for t in c.rows:
            lines = []
            for j in range(c.dm):
                ws = [(n.weight(f"{W}[{i},{j}]"), g.nodes[f"{W}[{i},{j}]"].value) for i in range(c.dm)]
                res = n.v(f"{pre}{M}[{t},{j}]")
                closed = n.closed(f"{pre}{M}[{t},{j}]", max_ops=8, rationals=True)
                lines.append(_dot_line(c, rf"{low}_{{{t},{j}}}", [f"{hin}[{t},{i}]" for i in range(c.dm)], ws,
                                       result=res + (rf" \quad \left(= {closed}\right)" if closed else "")))
            steps.append(display(*lines))
        steps.append(c.pos_table("attention.M_cap", pre + M, args={"M": tex(M)}))
    # scores
    rs = n.e(sympy.sqrt(c.dk), c.fine)
    steps += [sub("attention.scores"),
              display(r"S = \frac{Q K^{\top}}{\sqrt{d_k}} \in \mathbb{R}^{" + f"{c.T} \\times {c.T}" + "}"),
              text("attention.scores_meaning")]
    for h in range(s.heads):
        cols = range(h * c.dk, (h + 1) * c.dk)
        if s.heads > 1:
            steps.append(sub("attention.head", h=num(h)))
        dots, scaled = [], []
        for t in c.rows:
            for s_ in range(c.T):
                qk = sympy.Add(*[g.sym(f"{pre}Q[{t},{j}]") * g.sym(f"{pre}K[{s_},{j}]") for j in cols])
                fac = [rf"{n.v(f'{pre}Q[{t},{j}]')} \times {paren(n.v(f'{pre}K[{s_},{j}]'))}" for j in cols]
                prods = [n.e(g.sym(f"{pre}Q[{t},{j}]") * g.sym(f"{pre}K[{s_},{j}]")) for j in cols]
                dv = n.e(qk)
                dots.append(rf"q_{{{t}}} \cdot k_{{{s_}}} &= {terms(fac)} = {terms(prods)} = {dv}")
                scaled.append(rf"S_{{{t},{s_}}} &= {dv} / {rs} \approx {n.v(f'{pre}S[{c.head_idx(h, t, s_)}]')}")
        steps += [text("attention.dots"), display(*dots),
                  text("attention.scale", dk=tex(c.dk), root=tex(rs), root_tex=tex(rf"\sqrt{{{c.dk}}}")),
                  display(*scaled)]
    steps.append(note("attention.why_scale"))
    # mask
    steps += [sub("attention.mask"), text("attention.mask_text")]
    for h in range(s.heads):
        rows = []
        for t in range(c.T):
            rows.append([c.posl(t)] + [num(n.v(f"{pre}S[{c.head_idx(h, t, s_)}]")) if s_ <= t
                                       else math(r"-\infty") for s_ in range(c.T)])
        steps.append(table("attention.mask_cap", [word("query")] + [_colhead("key_at", s_) for s_ in range(c.T)],
                           rows, args={"h": num(h)}))
    # softmax
    steps += [sub("attention.softmax"),
              display(r"A_{t,s} = \frac{\exp(S'_{t,s})}{\sum_{r \le t} \exp(S'_{t,r})}")]
    for h in range(s.heads):
        for t in c.rows:
            ex = [(s_, n.e(sympy.exp(g.sym(f"{pre}S[{c.head_idx(h, t, s_)}]")))) for s_ in range(t + 1)]
            den = n.v(f"{pre}A_den[{c.head_idx(h, t)}]")
            lines = [rf"\exp(S_{{{t},{s_}}}) &= \exp({n.v(f'{pre}S[{c.head_idx(h, t, s_)}]')}) \approx {e}"
                     for s_, e in ex]
            lines.append(rf"\textstyle\sum &= {terms([e for _, e in ex])} = {den}")
            lines += [rf"A_{{{t},{s_}}} &= {e} / {den} \approx {n.v(f'{pre}A[{c.head_idx(h, t, s_)}]')}"
                      for s_, e in ex]
            steps += [text("attention.row", t=c.posl(t)), display(*lines)]
        last = c.T - 1
        shares = [(s_, n.e(100 * g.sym(f"{pre}A[{c.head_idx(h, last, s_)}]"), max(c.k - 2, 0))) for s_ in range(c.T)]
        steps.append(note("attention.share", t=c.posl(last),
                          shares={"t": "list", "v": [{"t": "share", "v": p, "tok": c.toks[s_], "pos": str(s_)}
                                                     for s_, p in shares]}))
        rows = [[c.posl(t)] + [num(n.v(f"{pre}A[{c.head_idx(h, t, s_)}]")) for s_ in range(c.T)]
                for t in range(c.T)]
        steps.append(table("attention.A_cap", [word("query")] + [_colhead("weight_at", s_) for s_ in range(c.T)],
                           rows, args={"h": num(h)}))
        name = "attention" if s.layers == 1 and s.heads == 1 else f"attention-{l}-{h}"
        figs[name] = heatmap([f"{t}" for t in range(c.T)], c.toks,
                             [[n.v(f"{pre}A[{c.head_idx(h, t, s_)}]") for s_ in range(c.T)] for t in range(c.T)],
                             [[s_ > t for s_ in range(c.T)] for t in range(c.T)])
        steps.append(figure(name, "attention.fig", h=num(h)))
    # weighted sum
    steps += [sub("attention.sum"), display(r"\mathrm{Attn} = A V")]
    for t in c.rows:
        if s.heads == 1:
            vis = range(t + 1)
            l1 = " + ".join(rf"{n.v(f'{pre}A[{t},{s_}]')} \times {vec([n.v(f'{pre}V[{s_},{j}]') for j in range(c.dm)])}"
                            for s_ in vis)
            l2 = " + ".join(vec([n.e(g.sym(f"{pre}A[{t},{s_}]") * g.sym(f"{pre}V[{s_},{j}]"))
                                 for j in range(c.dm)]) for s_ in vis)
            res = vec([n.v(f"{pre}Attn[{t},{j}]") for j in range(c.dm)])
            steps.append(display(rf"\mathrm{{attn}}_{{{t}}} &= {l1}", rf"&= {l2}" if t > 0 else "", rf"&= {res}"))
        else:
            lines = []
            for j in range(c.dm):
                h = j // c.dk
                fac = [rf"{n.v(f'{pre}A[{h},{t},{s_}]')} \times {paren(n.v(f'{pre}V[{s_},{j}]'))}" for s_ in range(t + 1)]
                lines.append(rf"\mathrm{{attn}}_{{{t},{j}}} &= {terms(fac)} = {n.v(f'{pre}Attn[{t},{j}]')}")
            steps.append(display(*lines))
    if s.raw.get("layer", [{}])[l].get("W_O") is not None:
        steps.append(text("attention.wo"))
    steps.append(c.pos_table("attention.Attn_cap", pre + "Attn"))
    steps.append(note("attention.recap"))
    return {"id": "attention", "steps": steps}


def _bm(c, group):
    grp = c.d.graph.groups[group]
    if len(grp.shape) == 1:
        return bmatrix([[c.n.weight(f"{group}[{i}]") for i in range(grp.shape[0])]])
    return bmatrix([[c.n.weight(f"{group}[{i},{j}]") for j in range(grp.shape[1])] for i in range(grp.shape[0])])


# ---------------------------------------------------------------- residual + LayerNorm

def residual_ln(c, l, pre, which):
    n, s, g = c.n, c.s, c.d.graph
    H = pre + f"H{which}"
    if which == 1:
        a = "H0" if l == 0 else s.layer_prefix(l - 1) + "LN2"
        b = pre + "Attn"
        formula = r"H' = H^{(0)} + \mathrm{Attn}"
    else:
        a, b = pre + "LN1", pre + "F"
        formula = r"H'' = \mathrm{LN}_1 + \mathrm{FFN}"
    hl = "h'" if which == 1 else "h''"
    lines = []
    for t in range(c.T):
        va = vec([n.v(f"{a}[{t},{j}]") for j in range(c.dm)])
        vb = vec([n.v(f"{b}[{t},{j}]") for j in range(c.dm)])
        vh = vec([n.v(f"{H}[{t},{j}]") for j in range(c.dm)])
        lines.append(rf"{hl}_{{{t}}} &= {va} + {vb} = {vh}")
    eps = s.ln_eps
    gam = [n.weight(f"{pre}gamma{which}[{j}]") for j in range(c.dm)]
    bet = [n.weight(f"{pre}beta{which}[{j}]") for j in range(c.dm)]
    steps = [text(f"residual.intro{which}"), display(formula), display(*lines),
             sub("residual.ln"),
             display(r"\mathrm{LN}(h)_j = \gamma_j \frac{h_j - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_j,\quad "
                     r"\mu = \frac{1}{d}\sum_j h_j,\quad \sigma^2 = \frac{1}{d}\sum_j (h_j - \mu)^2"),
             text("residual.params", gamma=tex(vec(gam)), beta=tex(vec(bet)),
                  eps=tex(n.tex_rational(eps)))]
    mu, var, LN = f"{pre}mu{which}", f"{pre}var{which}", f"{pre}LN{which}"
    for t in c.rows:
        hs = [n.v(f"{H}[{t},{j}]") for j in range(c.dm)]
        m = n.v(f"{mu}[{t}]")
        sq = [n.e((g.sym(f"{H}[{t},{j}]") - g.sym(f"{mu}[{t}]")) ** 2, c.fine) for j in range(c.dm)]
        sd = n.e(sympy.sqrt(g.sym(f"{var}[{t}]") + eps))
        dev = [rf"({h} - {m})^2" for h in hs]
        out = [n.v(f"{LN}[{t},{j}]") for j in range(c.dm)]
        lines = [rf"\mu &= ({terms(hs)}) / {c.dm} = {m}",
                 rf"\sigma^2 &= ({' + '.join(dev)}) / {c.dm} = ({' + '.join(sq)}) / {c.dm} = {n.v(f'{var}[{t}]', c.fine)}",
                 rf"\sqrt{{\sigma^2 + \varepsilon}} &= {sd}",
                 rf"\mathrm{{LN}}({hl}_{{{t}}}) &= {vec(out)}"]
        steps += [text("residual.row", t=c.posl(t), h=tex(vec(hs))), display(*lines)]
    steps.append(c.pos_table(f"residual.LN_cap{which}", LN))
    if c.dm == 2:
        t = c.T - 1
        delta = (g.sym(f"{H}[{t},0]") - g.sym(f"{H}[{t},1]")) / 2
        ratio = sympy.Abs(delta) / sympy.sqrt(delta ** 2 + eps)
        steps += [text("residual.d2"),
                  display(r"h - \mu = (\delta, -\delta),\quad \delta = \frac{h_0 - h_1}{2},\quad "
                          r"\sigma^2 = \delta^2,\quad \mathrm{LN}(h)_j = \gamma_j \frac{\pm|\delta|}{\sqrt{\delta^2 + \varepsilon}} + \beta_j"),
                  text("residual.d2_num", t=c.posl(t), delta=tex(n.e(sympy.Abs(delta), c.fine)),
                       ratio=num(n.e_sig(ratio, c.k + 5)), gap=num(n.e_sig(1 - ratio, 3)))]
    if which == 2 and l == s.layers - 1:
        steps.append(note("residual.final", t=c.posl(c.T - 1),
                          h=tex(vec([n.v(f"h_final[{j}]") for j in range(c.dm)]))))
    return {"id": f"residual{which}", "steps": steps}


# ---------------------------------------------------------------- FFN

def ffn(c, l, pre):
    n, s, g = c.n, c.s, c.d.graph
    dff = s.d_ff
    steps = [text("ffn.intro"),
             display(r"\mathrm{FFN}(h) = \mathrm{ReLU}(h W_1 + b_1)\, W_2 + b_2"),
             display(*[rf"{nm} &= {_bm(c, pre + nm)}" for nm in ("W_1", "b_1", "W_2", "b_2")]),
             sub("ffn.first")]
    for t in c.rows:
        lines, rows = [], []
        for k in range(dff):
            ws = [(n.weight(f"{pre}W_1[{j},{k}]"), g.nodes[f"{pre}W_1[{j},{k}]"].value) for j in range(c.dm)]
            b = n.weight(f"{pre}b_1[{k}]")
            zname = f"{pre}Z[{t},{k}]"
            lines.append(_dot_line(c, rf"z_{{{t},{k}}}", [f"{pre}LN1[{t},{j}]" for j in range(c.dm)], ws,
                                   bias=(b,), result=n.v(zname)))
            sign = c.d.sign(zname)
            tiny = n.tiny(zname)
            rows.append([num(k), num(n.v(zname)) if not tiny else {"t": "num", "v": n.v(zname), "exact": tiny},
                         word("relu_pos" if sign > 0 else ("relu_zero" if sign == 0 else "relu_neg")),
                         num(n.v(f"{pre}R[{t},{k}]"))])
        steps += [text("ffn.row", t=c.posl(t)), display(*lines),
                  table("ffn.relu_cap", [word("unit"), math("z"), word("decision"), math(r"\mathrm{ReLU}(z)")],
                        rows, args={"t": c.posl(t)}, align="rrlr")]
    steps.append(note("ffn.relu_rule"))
    steps.append(sub("ffn.second"))
    for t in c.rows:
        lines = []
        for j in range(c.dm):
            ws = [(n.weight(f"{pre}W_2[{k},{j}]"), g.nodes[f"{pre}W_2[{k},{j}]"].value) for k in range(dff)]
            lines.append(_dot_line(c, rf"\mathrm{{ffn}}_{{{t},{j}}}", [f"{pre}R[{t},{k}]" for k in range(dff)], ws,
                                   bias=(n.weight(f"{pre}b_2[{j}]"),), result=n.v(f"{pre}F[{t},{j}]")))
        steps += [text("ffn.row2", t=c.posl(t)), display(*lines)]
    steps.append(c.pos_table("ffn.F_cap", pre + "F"))
    return {"id": "ffn", "steps": steps}


# ---------------------------------------------------------------- head, softmax

def head(c):
    n, s, g = c.n, c.s, c.d.graph
    h = [n.v(f"h_final[{j}]") for j in range(c.dm)]
    lines = []
    for v in range(c.V):
        if s.tied:
            ws = [(n.weight(f"E[{v},{j}]"), g.nodes[f"E[{v},{j}]"].value) for j in range(c.dm)]
        else:
            ws = [(n.weight(f"W_out[{j},{v}]"), g.nodes[f"W_out[{j},{v}]"].value) for j in range(c.dm)]
        lines.append(_dot_line(c, rf"\mathrm{{logit}}_{{{mtext(s.vocab[v])}}}",
                               [f"h_final[{j}]" for j in range(c.dm)], ws, result=n.v(f"logits[{v}]")))
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}, num(n.v(f"logits[{v}]"))] for v in range(c.V)]
    return {"id": "head", "steps": [
        text("head.intro_tied" if s.tied else "head.intro_untied"),
        display(r"\mathrm{logits} = h_{\mathrm{final}} E^{\top} \in \mathbb{R}^{" + str(c.V) + "}" if s.tied
                else r"\mathrm{logits} = h_{\mathrm{final}} W_{\mathrm{out}} \in \mathbb{R}^{" + str(c.V) + "}"),
        text("head.h", h=tex(vec(h))),
        display(*lines),
        table("head.cap", [word("token"), word("logit")], rows),
        note("head.skipped")]}


def softmax(c, figs):
    n, s, g = c.n, c.s, c.d.graph
    ex = [n.e(sympy.exp(g.sym(f"logits[{v}]"))) for v in range(c.V)]
    lines = [rf"e^{{{n.v(f'logits[{v}]')}}} &= {ex[v]}" for v in range(c.V)]
    Z = n.v("sum_exp")
    pk = max(c.k - 2, 0)
    rows = []
    for v in range(c.V):
        rows.append([{"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": "target" if v == s.target else ""},
                     num(n.v(f"logits[{v}]")), num(ex[v]), num(n.v(f"p[{v}]")),
                     {"t": "pct", "v": n.e(100 * g.sym(f"p[{v}]"), pk)}])
    best = sampling.greedy(c.d)
    figs["probs"] = bars(list(s.vocab), [n.v(f"p[{v}]") for v in range(c.V)], best.id, s.target)
    return {"id": "softmax", "steps": [
        text("softmax.intro"),
        display(r"p_i = \frac{\exp(\mathrm{logit}_i)}{\sum_{j} \exp(\mathrm{logit}_j)}"),
        sub("softmax.num"), display(*lines),
        sub("softmax.den"), display(rf"Z = {terms(ex)} = {Z}"),
        sub("softmax.norm"),
        table("softmax.cap", [word("token"), word("logit"), math(r"e^{\mathrm{logit}}"), math("p"), word("percent")],
              rows, args={"Z": tex(Z)}),
        figure("probs", "softmax.fig", best=tok(best.token), target=tok(s.vocab[s.target]))]}


# ---------------------------------------------------------------- sampling

def sample(c):
    n, s, d = c.n, c.s, c.d
    sp = s.sampling
    best = sampling.greedy(d)
    order, _ = sampling.ranking(d)
    steps = [text("sample.intro"), sub("sample.greedy"),
             display(rf"\arg\max_v p_v = {best.id} \;\Rightarrow\; {mtext(best.token)},\quad p = {n.v(f'p[{best.id}]')}"),
             text("sample.greedy_right" if best.id == s.target else "sample.greedy_wrong",
                  best=tok(best.token), target=tok(s.vocab[s.target]))]
    if best.ties:
        steps.append(note("sample.ties"))
    # temperature
    shown = list(range(c.V)) if c.V <= 6 else sorted(set(order[:3]) | {s.target})
    rows = []
    for T in sp.temperatures:
        probs = sampling.temperature(d, T)
        label = math(r"T \to \infty") if T is sympy.oo else math(f"T = {n.rational(T)}")
        kind = "temp_uniform" if T is sympy.oo else ("temp_sharp" if T < 1 else ("temp_same" if T == 1 else "temp_flat"))
        rows.append([label] + [num(n.e(probs[v])) for v in shown] + [word(kind)])
    steps += [sub("sample.temperature"),
              display(r"p_i^{(T)} = \frac{\exp(\mathrm{logit}_i / T)}{\sum_j \exp(\mathrm{logit}_j / T)}"),
              text("sample.temp_text"),
              table("sample.temp_cap", [word("temperature")] + [{"t": "ptok", "v": s.vocab[v]} for v in shown]
                    + [word("character")], rows, align="l" + "r" * len(shown) + "l")]
    # top-k
    tk = sampling.top_k(d, sp.top_k)
    kept = [{"t": "share", "v": n.e(100 * n.sym(f"p[{v}]"), max(c.k - 2, 0)), "tok": s.vocab[v], "pos": str(v)}
            for v in tk.kept]
    renorm = vec([n.e(tk.probs[v]) for v in tk.kept])
    steps += [sub("sample.topk", k=num(sp.top_k)),
              text("sample.topk_text", k=num(sp.top_k), kept={"t": "list", "v": kept}, renorm=tex(renorm))]
    # top-p
    tp = sampling.top_p(d, sp.top_p)
    cum = [(order[i], n.e(tp.cumulative[i])) for i in range(len(order))]
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}, num(n.v(f"p[{v}]")), num(cv),
             word("kept" if v in tp.kept else "dropped")] for v, cv in cum]
    steps += [sub("sample.topp", P=num(n.rational(sp.top_p))),
              text("sample.topp_text", P=num(n.rational(sp.top_p)), m=num(len(tp.kept))),
              table("sample.topp_cap", [word("token"), math("p"), word("cumulative"), word("kept_col")], rows,
                    args={"P": num(n.rational(sp.top_p))}, align="lrrl")]
    # seeded draw
    ch = sampling.draw(d, sp.uniform)
    acc, rows = sympy.S.Zero, []
    for v in range(c.V):
        lo = n.e(acc)
        acc = acc + n.sym(f"p[{v}]")
        rows.append([{"t": "tokid", "v": str(v), "tok": s.vocab[v]}, num(lo), num(n.e(acc)),
                     word("chosen" if v == ch.id else "blank")])
    steps += [sub("sample.draw"),
              text("sample.draw_text", u=tex(n.rational(sp.uniform))),
              table("sample.draw_cap", [word("token"), word("from"), word("to"), word("drawn_col")], rows,
                    args={"u": num(n.rational(sp.uniform))}, align="lrrl"),
              display(rf"\mathrm{{vocab}}[{ch.id}] = {mtext(ch.token)}"),
              text("sample.append", text_=tok("".join(c.toks) + ch.token))]
    if sp.n_continue:
        cont = sampling.continue_greedy(d, sp.n_continue)
        steps += [sub("sample.continue", m=num(sp.n_continue)),
                  text("sample.continue_text", m=num(sp.n_continue),
                       seq=tok("".join(c.toks) + "".join(x.token for x in cont)),
                       new={"t": "toklist", "v": [x.token for x in cont]})]
    return {"id": "sample", "steps": steps}


# ---------------------------------------------------------------- training

def training(c, figs):
    n, s, d, g = c.n, c.s, c.d, c.d.graph
    t = s.target
    tt = s.vocab[t]
    dsteps = softmax_ce_steps(c.V, t)
    steps = [text("train.intro"), sub("train.sample"),
             display(rf"\text{{input}} = {vec([mtext(x) for x in c.toks])},\quad \text{{target}} = {mtext(tt)}\ (\mathrm{{id}} = {t})"),
             sub("train.loss"),
             display(rf"\mathcal{{L}} = -\ln p_{{{mtext(tt)}}} = -\ln {n.v(f'p[{t}]')} = {n.v('loss')}"),
             text("train.loss_text"),
             sub("train.pminusy"), text("train.pminusy_text", t=tex(t)),
             derivation_step(dsteps)]
    rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v], "mark": "target" if v == t else ""},
             num(n.v(f"p[{v}]")), num(1 if v == t else 0), num(n.v(f"grad_logits[{v}]"))] for v in range(c.V)]
    steps += [table("train.grad_cap", [word("token"), math("p_i"), math("y_i"), math(r"p_i - y_i")], rows),
              note("train.grad_sign", target=tok(tt))]
    if s.tied:
        rows = [[{"t": "tokid", "v": str(v), "tok": s.vocab[v]}] + [num(n.v(f"grad_E_head[{v},{j}]")) for j in range(c.dm)]
                for v in range(c.V)]
        steps += [sub("train.head"), text("train.head_text"),
                  display(r"\frac{\partial \mathcal{L}}{\partial E_i}\Big|_{\mathrm{head}} = (p_i - y_i)\, h_{\mathrm{final}}"),
                  table("train.head_cap", [word("token")] + [_colhead("dim", j) for j in range(c.dm)], rows)]
        lr = s.training.lr
        old = [n.weight(f"E[{t},{j}]") for j in range(c.dm)]
        gr = [n.v(f"grad_E_head[{t},{j}]") for j in range(c.dm)]
        new = [n.v(f"head_step.E[{t},{j}]") for j in range(c.dm)]
        lr_s = n.rational(lr)
        step_terms = [n.e(lr * g.sym(f"grad_E_head[{t},{j}]"), c.fine) for j in range(c.dm)]
        new_logit = n.v(f"head_step.logits[{t}]")
        old_logit = n.v(f"logits[{t}]")
        rise = n.e(d.head_step(f"logits[{t}]") - g.sym(f"logits[{t}]"))
        h = [n.v(f"h_final[{j}]") for j in range(c.dm)]
        prods = " + ".join(rf"{paren(a)} \times {paren(b)}" for a, b in zip(h, new))
        steps += [sub("train.sgd"), text("train.sgd_text", lr=tex(lr_s), target=tok(tt)),
                  display(rf"E_{{{mtext(tt)}}} \leftarrow E_{{{mtext(tt)}}} - \eta \frac{{\partial \mathcal{{L}}}}{{\partial E_{{{mtext(tt)}}}}}"),
                  display(rf"E^{{\mathrm{{old}}}} &= {vec(old)}",
                          rf"\nabla &= {vec(gr)}",
                          rf"E^{{\mathrm{{new}}}} &= {vec(old)} - {lr_s} \times {vec(gr)}",
                          rf"&= {vec([f'{a} {signed_neg(b)}' for a, b in zip(old, step_terms)])} = {vec(new)}"),
                  sub("train.check"),
                  display(rf"\mathrm{{logit}}^{{\mathrm{{new}}}}_{{{mtext(tt)}}} &= h_{{\mathrm{{final}}}} \cdot E^{{\mathrm{{new}}}} = {prods} = {new_logit}",
                          rf"\mathrm{{logit}}^{{\mathrm{{old}}}}_{{{mtext(tt)}}} &= {old_logit}"),
                  text("train.rise", rise=num(rise))]
    # full gradient
    steps += [sub("train.full"), text("train.full_text")]
    learn = set(learnable(d))
    for group in s.params:
        grp = g.groups[group]
        if not any(nm in learn for nm in grp.names):
            continue
        base = group.split(".")[-1]
        label = (f"{{{PARAM_TEX[base]}}}^{{[{group.split('.')[0]}]}}" if "." in group else PARAM_TEX[base])
        if len(grp.shape) == 2:
            rlab = (lambda i: {"t": "tokid", "v": str(i), "tok": s.vocab[i]}) if grp.axes[0] == "v" else (lambda i: num(i))
            rows = [[rlab(i)] + [c.cellv(f"grad_{group}[{i},{j}]") for j in range(grp.shape[1])]
                    for i in range(grp.shape[0])]
            head = [word("row")] + [_colhead("col", j) for j in range(grp.shape[1])]
        else:
            rows = [[num(i), c.cellv(f"grad_{group}[{i}]")] for i in range(grp.shape[0])]
            head = [word("index"), math(r"\partial \mathcal{L} / \partial " + label)]
        steps.append(table("train.full_cap", head, rows, args={"P": tex(label)}))
    if s.tied:
        steps.append(note("train.tied_paths"))
    if c.dm == 2:
        steps.append(note("train.tiny_grads"))
    # full-gradient step
    tr_rows = [[math(rf"E_{{{mtext(tt)}}}"), math(vec([n.weight(f'E[{t},{j}]') for j in range(c.dm)])),
                math(vec([n.v(f'head_step.E[{t},{j}]') for j in range(c.dm)])) if s.tied else word("blank"),
                math(vec([n.v(f'sgd[1].E[{t},{j}]') for j in range(c.dm)]))],
               [math(rf"\mathrm{{logit}}_{{{mtext(tt)}}}"), num(n.v(f"logits[{t}]")),
                num(n.v(f"head_step.logits[{t}]")) if s.tied else word("blank"), num(n.v(f"sgd[1].logits[{t}]"))],
               [math(rf"p_{{{mtext(tt)}}}"), num(n.v(f"p[{t}]")),
                num(n.v(f"head_step.p[{t}]")) if s.tied else word("blank"), num(n.v(f"sgd[1].p[{t}]"))],
               [math(r"\mathcal{L}"), num(n.v("loss")),
                num(n.v("head_step.loss")) if s.tied else word("blank"), num(n.v("sgd[1].loss"))]]
    steps += [sub("train.fullstep"), text("train.fullstep_text", lr=tex(n.rational(s.training.lr))),
              table("train.fullstep_cap", [word("quantity"), word("before"), word("head_only"), word("full_step")],
                    tr_rows, align="lrrr")]
    steps += loss_curve(c, figs)
    steps.append(note("train.loop"))
    return {"id": "train", "steps": steps}


def loss_curve(c, figs):
    """The loss table over the reported steps and its picture (when there are steps to show)."""
    n, s = c.n, c.s
    tr = s.training
    if tr.steps < 2:
        return []
    t = s.target
    rows = [[num(k), num(n.v(f"sgd[{k - 1}].loss")), num(n.v(f"sgd[{k - 1}].p[{t}]"))]
            for k in tr.report if k >= 1]
    figs["loss"] = line(list(range(1, tr.steps + 1)), [n.v(f"sgd[{k}].loss") for k in range(tr.steps)])
    return [sub("train.curve"), text("train.curve_text", steps=num(tr.steps)),
            table("train.curve_cap", [word("step"), math(r"\mathcal{L}"), math(rf"p_{{{mtext(s.vocab[t])}}}")], rows),
            figure("loss", "train.curve_fig")]


def signed_neg(b: str) -> str:
    """``a − b`` with the sign of b folded in.

    >>> signed_neg("-0.0915"), signed_neg("0.1")
    ('+ 0.0915', '- 0.1')
    """
    return f"+ {b[1:]}" if b.startswith("-") else f"- {b}"


# ---------------------------------------------------------------- summary

def summary(c):
    n, s = c.n, c.s
    t = c.T - 1
    lastp = f"{s.layer_prefix(s.layers - 1)}"
    row = lambda group: math(vec([n.v(f"{group}[{t},{j}]") for j in range(c.dm)]))
    shape = lambda a, b: math(rf"{a} \times {b}")
    best = sampling.greedy(c.d)
    rows = [
        [word("sec_tokenize"), math(rf"\left[{', '.join(map(str, s.input))}\right]"), math(str(c.T)), math(str(s.input[t]))],
        [word("sec_embed"), math("X"), shape(c.T, c.dm), row("X")],
        [word("sec_positional"), math(r"H^{(0)}"), shape(c.T, c.dm), row("H0")],
        [word("sec_attention"), math(r"\mathrm{Attn}"), shape(c.T, c.dm), row(f"{lastp}Attn")],
        [word("sec_residual1"), math(r"\mathrm{LN}_1"), shape(c.T, c.dm), row(f"{lastp}LN1")],
        [word("sec_ffn"), math(r"\mathrm{FFN}"), shape(c.T, c.dm), row(f"{lastp}F")],
        [word("sec_residual2"), math(r"\mathrm{LN}_2"), shape(c.T, c.dm), row(f"{lastp}LN2")],
        [word("sec_head"), math(r"\mathrm{logits}"), math(str(c.V)),
         math(r"\left[" + ", ".join(n.v(f"logits[{v}]") for v in range(c.V)) + r"\right]")],
        [word("sec_softmax"), math("p"), math(str(c.V)), math(rf"p_{{{mtext(s.vocab[s.target])}}} = {n.v(f'p[{s.target}]')}")],
        [word("sec_sample"), math(r"\arg\max"), math("1"), tok(best.token)],
        [word("sec_training"), math(r"\mathcal{L}"), math("1"), num(n.v("loss"))],
    ]
    return {"id": "summary", "steps": [
        text("summary.intro"),
        table("summary.cap", [word("stage"), word("output"), word("shape"), word("at_last")], rows,
              args={"t": c.posl(t)}, align="llll"),
        note("summary.scale")]}
