"""Which quantity a printed figure is: candidates, a cheap prefilter, certified rounding, context.

Every quantity a tutorial of one spec may print is a *candidate*: each entry of
every graph node, the sizes, token ids, exp of a logit, the sampling tables,
the training states.  Each is enclosed once at :data:`PREFILTER_BITS` bits; a
figure keeps the candidates whose enclosure meets its rounding cell
(``0.454`` → [0.4535, 0.4545]), and only those are certified
(:func:`symgpt.claims.certify_rounding`).  A figure that is the result of
arithmetic on earlier figures (``1.050×0.820 = 0.861``) also gets the same
arithmetic over their quantities as a candidate (``Q[0,0]*K[0,0]``).

Among the certified candidates the context decides (:func:`score`): the
symbol to the figure's left (``q1,0 =``, ``p(你)``, ``exp(``), the table's
caption, row and column (``t=1``, ``dim 0``, a token), and the document's
order (a matrix is printed entry after entry).

>>> import symgpt
>>> from symgpt.extract import extract
>>> m = Matcher(symgpt.load("tiny-transformer"))
>>> [(r.verdict, r.ref) for r in m.match(extract("A1,0 = 2.175 / 4.789 ≈ 0.454"))][-1]
('matched', 'A[1,0]')
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, fmpq

from .claims import Printed, certify_rounding
from .numeric import UndecidableError
from .refs import ExprError, bind, parse

PREFILTER_BITS = 64
SURE = 3.0              # a match this well named can carry an equation's arithmetic (see _match)
STRONG_NAMING = 8.0     # a context score that names one quantity beyond doubt (symbol and indices, or
                        # caption, row and column)
STRONG_GAP = 4.0        # … and by this much more than a quantity that rounds to the figure and is named too
TOKEN_AXES = ("v",)


@dataclass
class Candidate:
    """A quantity a figure may be."""
    ref: str
    group: str                # the name it belongs to: 'A', 'exp(logits)', 'sgd[1].p', 'id'
    idx: tuple = ()           # its indices as integers (a token as its id)
    axes: str = ""            # the axes' letters: 'ts', 'vj'
    q: object = None          # the bound quantity
    ball: object = None       # enclosure at PREFILTER_BITS
    derived: bool = False     # arithmetic over other figures' quantities
    param: str | None = None  # a function's parameter: the temperature of softmax_T(0.5, 爱)

    def __post_init__(self):
        self.span = _float_span(self.ball)
        self.key = f"{self.group}[{','.join(map(str, self.idx))}]" if self.idx else self.group

    def meets(self, lo: Fraction, hi: Fraction) -> bool:
        """Can the value lie in [lo, hi]? (from the prefilter enclosure, widened to floats outward)"""
        if self.span is None:
            return True
        return not (self.span[1] < _down(lo) or self.span[0] > _up(hi))


def _down(x: Fraction) -> float:
    f = float(x)
    return f - abs(f) * 1e-12 - 1e-300


def _up(x: Fraction) -> float:
    f = float(x)
    return f + abs(f) * 1e-12 + 1e-300


def _float_span(b):
    """[lo, hi] of an enclosure as floats rounded outward (a little wider: a prefilter only)."""
    if b is None:
        return None
    if not isinstance(b, fmpq) and not b.is_finite():
        return (float("-inf"), float("inf"))
    lo, hi = _bounds(b)
    return _down(lo), _up(hi)


def _bounds(b):
    """[lo, hi] of an enclosure, exactly, as Fractions.

    >>> _bounds(fmpq(1, 3))
    (Fraction(1, 3), Fraction(1, 3))
    """
    if isinstance(b, fmpq):
        v = Fraction(int(b.p), int(b.q))
        return v, v
    m, r = b.mid().man_exp(), b.rad().man_exp()
    mid = Fraction(int(m[0])) * Fraction(2) ** int(m[1])
    rad = Fraction(int(r[0])) * Fraction(2) ** int(r[1])
    return mid - rad, mid + rad


@dataclass
class Result:
    """The verdict on one figure."""
    number: object                       # the extract.Number
    verdict: str                         # matched | ambiguous | unmatched | wrong
    ref: str | None = None               # the quantity (the most likely one for a wrong figure)
    candidates: list = field(default_factory=list)   # refs, best first
    score: float = 0.0
    correct: str | None = None           # for a wrong figure: the correct rounding
    exact: str | None = None             # the value, certified digits
    cause: str | None = None             # for a wrong figure (symgpt.diagnose)
    distance: str | None = None          # (printed − exact) in last-place units
    chain_value: str | None = None


# ---------------------------------------------------------------- candidates

ALIASES = {   # symbols a tutorial writes for a node (lower case), beside the node's own name
    "Q": ("q", "query"), "K": ("k", "key"), "V": ("v", "value"), "S": ("s", "score", "分数"),
    "A": ("a", "权重", "attention weight"), "Attn": ("attn", "注意力输出", "attention output"),
    "H0": ("h", "h(0)", "h⁽⁰⁾", "pe"), "H1": ("h'", "h′", "残差", "第一次", "first"),
    "H2": ("h''", "h″", "第二次", "second"), "LN1": ("ln", "h_ln1", "第一次", "first"),
    "LN2": ("ln", "hfinal", "h_final", "第二次", "second", "最终"), "mu1": ("μ", "mu", "mean", "第一次", "first"),
    "mu2": ("μ", "mu", "mean", "第二次", "second"), "var1": ("σ²", "var", "第一次", "first"),
    "var2": ("σ²", "var", "第二次", "second"),
    "Z": ("z",), "R": ("relu",), "F": ("ffn",), "logits": ("logit",), "z": ("z", "logit", "打分"),
    "p": ("p", "prob", "概率", "百分比", "%"), "loss": ("loss", "l", "损失"), "E": ("e", "嵌入", "embedding"),
    "PE": ("pe", "位置编码", "sin", "cos"), "X": ("x", "嵌入"), "x": ("x", "查行"),
    "sum_exp": ("z", "分母", "sum", "和"), "A_den": ("分母", "denominator"),
    "grad_logits": ("∂l/∂logit", "梯度", "grad", "p - y", "p-y", "pi - yi"),
    "grad_z": ("∂l/∂z", "梯度", "grad", "p-y", "p - y", "信号"),
    "grad_W": ("∂l/∂w", "解析梯度", "analytic"),
    "gradcheck": ("数值梯度", "numerical", "finite difference"), "grad_x": ("∂l/∂x",), "grad_E": ("∂l/∂e", "梯度"),
    "grad_E_head": ("∂l/∂e", "梯度"), "exp(logits)": ("exp", "e^z"), "exp(z)": ("exp", "e^z", "e^{z"),
    "exp(S)": ("exp",), "sqrt(var1)": ("σ", "sqrt", "√"), "sqrt(var2)": ("σ", "sqrt", "√"),
    "log(p)": ("ln", "log"), "d": ("d", "维度", "d_model"), "heads": ("h", "头"), "layers": ("l", "层"),
    "d_ff": ("d_ff", "ffn 隐藏"), "vocab_size()": ("v", "词表", "vocab"), "seq_len()": ("t", "长度", "序列"),
    "params()": ("参数", "param"), "id": ("id", "→", "="), "softmax_T": ("温度", "temperature", "t ="),
    "topk": ("top-k", "topk"), "topp": ("top-p", "累计"), "cumulative p": ("累计", "cumulative", "top-p"),
    "lr": ("η", "lr", "学习率", "learning rate"),
    "adamw.lr": ("η", "lr"), "adamw.beta1": ("β1", "beta1", "β_1"), "adamw.beta2": ("β2", "beta2", "β_2"),
    "adamw.eps": ("ε", "eps"), "adamw.weight_decay": ("λ", "weight decay", "decay"),
    "ln_eps": ("ε", "eps"), "pe_base": ("10000", "base"), "head_step.E": ("new", "更新", "e你new"),
    "head_step.logits": ("新 logit", "new logit"), "d/heads": ("d_k", "d/h"), "sqrt(d/heads)": ("√", "sqrt"),
    "y": ("y", "y_i", "yi", "one-hot", "目标", "target", "label"), "onehot": ("one-hot", "x_oh", "onehot"),
    "sgd[1].p": ("更新后", "after"), "sgd[1].loss": ("更新后", "→"),
    "adamw[1].m": ("m", "一阶矩", "first moment"), "adamw[1].v": ("v", "二阶矩", "second moment"),
    "adamw[1].mhat": ("m̂", "偏差修正", "bias-corrected"), "sqrt(adamw[1].vhat)": ("√v̂", "sqrt(v̂)"),
    "adamw[1].vhat": ("v̂",), "adamw[1].update": ("步长", "update", "step", "自适应"),
    "adamw[1].decay": ("衰减", "decay"), "sgd.loss": ("l", "loss", "损失"), "sgd.p": ("p", "p(")
}


def _entries(shape):
    return itertools.product(*(range(n) for n in shape)) if shape else [()]


def candidates(d) -> list:
    """Every quantity a tutorial of ``d``'s spec is likely to print, enclosed once.

    >>> import symgpt
    >>> cs = candidates(symgpt.load("bigram"))
    >>> [c.ref for c in cs if c.group == "p"]
    ['p[猫]', 'p[吃]', 'p[鱼]']
    """
    s, out, seen = d.spec, [], set()
    vocab = list(s.vocab)

    def add(ref, group, idx=(), axes=""):
        if ref in seen:
            return
        seen.add(ref)
        try:
            q = bind(parse(ref, d.limits), d, d.limits)
            ball = q.ball(PREFILTER_BITS)
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return
        if getattr(q, "vector", False) or not isinstance(ball, fmpq) and not ball.is_finite():
            return
        out.append(Candidate(ref, group, tuple(idx), axes, q, ball))

    def ref_of(name, axes, idx):
        if not idx:
            return name
        return f"{name}[{','.join(vocab[i] if a in TOKEN_AXES else str(i) for a, i in zip(axes, idx))}]"
    groups = list(d.registry.groups())
    for pattern, shape, _ in groups:
        name, _, axes = pattern.partition("[")
        axes = axes.rstrip("]").replace(",", "")
        for idx in _entries(shape):
            add(ref_of(name, axes, idx), name, idx, axes)
    for r in d.registry.sizes():
        add(r.name, r.name)
    for f in ("vocab_size()", "seq_len()", "params()", "argmax()"):
        add(f, f)
    if s.kind == "transformer":
        add("d/heads", "d/heads")
        add("sqrt(d/heads)", "sqrt(d/heads)")
    for i, t in enumerate(vocab):
        add(f"id({t})", "id", (i,), "v")
    logits = next((g for g in ("logits", "z") if f"grad_{g}" in {p.partition("[")[0] for p, _, _ in groups}), None)
    for i, t in enumerate(vocab):
        if logits:                        # the one-hot target y = p − ∂L/∂logits: 0 or 1 by its definition
            add(f"p[{t}] - grad_{logits}[{t}]", "y", (i,), "v")
            if out and out[-1].group == "y":
                out[-1].ball = fmpq(int(t == _target(s)))
                out[-1].__post_init__()
        for pos in range(s.T):
            add(f"onehot({pos}, {t})", "onehot", (pos, i), "tv")
    shapes = {p.partition("[")[0]: (shape, p.partition("[")[2].rstrip("]").replace(",", "")) for p, shape, _ in groups}
    for f, names in (("exp", ("logits", "z", "S")), ("sqrt", ("var1", "var2")), ("log", ("p",))):
        for name in names:
            if name in shapes:
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    add(f"{f}({ref_of(name, axes, idx)})", f"{f}({name})", idx, axes)
    sm = s.sampling
    for T in sm.temperatures:
        if T == 1:
            continue                      # softmax_T(1, t) is p[t]
        tt = "inf" if str(T) == "oo" else str(T)
        for i, t in enumerate(vocab):
            add(f"softmax_T({tt}, {t})", "softmax_T", (i,), "v")
            if out and out[-1].ref == f"softmax_T({tt}, {t})":
                out[-1].param = tt if tt == "inf" else str(Fraction(str(T)))
    for i, t in enumerate(vocab):
        add(f"topk({sm.top_k}, {t})", "topk", (i,), "v")
        add(f"topp({sm.top_p}, {t})", "topp", (i,), "v")
    _cumulative(d, add)
    _training(d, add, shapes, ref_of)
    return out


def _target(s) -> str:
    """The spec's target token."""
    return s.target if isinstance(s.target, str) else s.vocab[s.target]


def _cumulative(d, add):
    """p sorted from the largest, summed: the running totals a top-p paragraph prints."""
    try:
        ps = sorted(((d.ball(f"p[{t}]", PREFILTER_BITS).mid(), t) for t in d.spec.vocab), reverse=True)
    except Exception:   # noqa: BLE001 - a spec without p
        return
    for order in (ps, [(0, t) for t in d.spec.vocab]):      # by probability (top-p), by id (the draw's CDF)
        terms = []
        for _, t in order[:-1]:
            terms.append(f"p[{t}]")
            if len(terms) > 1:
                add(" + ".join(terms), "cumulative p", (len(terms),), "n")


def _training(d, add, shapes, ref_of):
    tr = d.spec.training
    params = [p for p in d.spec.params if p in shapes]
    steps = range(1, tr.steps + 1)                 # state 0 is the model itself: loss, p
    for k in steps:
        add(f"sgd[{k}].loss", "sgd.loss", (k,), "k")
        for name in ("p",):
            if name in shapes:
                shape, axes = shapes[name]
                for idx in _entries(shape):
                    add(f"sgd[{k}].{ref_of(name, axes, idx)}", f"sgd.{name}", (k, *idx), "k" + axes)
        add(f"sgd_wrong_order[{k}].loss", "sgd_wrong_order.loss", (k,), "k")
    add("loss - sgd[1].loss", "loss drop")
    for name in params:
        shape, axes = shapes[name]
        for idx in _entries(shape):
            entry = ref_of(name, axes, idx)
            add(f"sgd[1].{entry}", f"sgd[1].{name}", idx, axes)
            add(f"adamw[1].{entry}", f"adamw[1].{name}", idx, axes)
            inner = ",".join([name] + [str(i) for i in idx])
            for m in ("m", "v", "mhat", "vhat", "update", "decay"):
                add(f"adamw[1].{m}[{inner}]", f"adamw[1].{m}", idx, axes)
            add(f"sqrt(adamw[1].vhat[{inner}])", "sqrt(adamw[1].vhat)", idx, axes)
            add(f"lr*grad_{entry}", f"lr*grad_{name}", idx, axes)
    for p in tr.gradcheck_params:
        add(f"gradcheck({p}, {_num(tr.gradcheck_h)})", "gradcheck")
    if "grad_E_head" in shapes:
        shape, axes = shapes["E"]
        t = d.spec.vocab.index(d.spec.target) if isinstance(d.spec.target, str) else d.spec.target
        for j in range(shape[1]):
            add(f"head_step.{ref_of('E', axes, (t, j))}", "head_step.E", (t, j), axes)
        for name in ("logits", "p"):
            shape, axes = shapes[name]
            for idx in _entries(shape):
                add(f"head_step.{ref_of(name, axes, idx)}", f"head_step.{name}", idx, axes)
        add("head_step.loss", "head_step.loss")
        add("head_step.logits[%s] - logits[%s]" % ((d.spec.vocab[t],) * 2), "head_step.rise")


def _num(x) -> str:
    f = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(str(x))
    if f.denominator == 1:
        return str(f.numerator)
    e = 0
    while f.denominator != 1 and e < 30:
        f *= 10
        e += 1
    return f"{f.numerator}e-{e}"


# ---------------------------------------------------------------- context

TOKEN_WORDS = {"<pad>": ("pad",), "<bos>": ("bos",)}


@dataclass
class Context:
    """What the text around a figure says about it."""
    symbol: str = ""          # the symbol just left of it: 'q', 'p', 'exp'
    sym_idx: tuple = ()       # that symbol's indices: q1,0 → (1, 0)
    tokens: tuple = ()        # token ids named in the row label or just left of it
    t: int | None = None      # t=1 in the row label
    dim: int | None = None    # dim 0 in the column
    text: str = ""            # lower-cased nearby text (left of it, row, column, caption)
    column: str = ""          # lower-cased column header
    far: str = ""             # heading
    words: frozenset = frozenset()   # identifiers standing alone in the caption, row and column (Q, W_Q)
    inputs: frozenset = frozenset()  # the quantities the line's equation is computed from (Q[0,0] → H0[0,0], …)
    factor: frozenset = frozenset()  # the factors of the definition's terms this figure can be, by value
    param: str | None = None         # a temperature named by the row (T = 0.5)
    argument_of: tuple = ()          # exp(0.400): the groups whose exp we know (logits, z, S)


SYMBOL = re.compile(r"([A-Za-z∂/σμ²√\u0302]+(?:_\{?[A-Za-z]+\}?)?)\s*(?:_\{?)?(\d+(?:\s*,\s*\d+)?|\(\S{1,6}?\))?"
                    r"\}?[\s'′&]*"
                    r"(?:\([^()]{0,8}\))?\s*(?:=|≈|→|:|：)\s*[\[(]?\s*$")


def context(n, vocab) -> Context:
    """The hints a figure's surroundings give (see :class:`Context`)."""
    left = _plain(n.before[-60:])[-40:]
    c = Context(text=" ".join((left, n.row, n.column, n.table)).lower(), far=n.heading.lower(),
                column=n.column.lower() if len(n.column) < 30 else "",
                words=_symbols(n))
    from .diagnose import _operand
    m = SYMBOL.search(left.replace("$", "").replace("\\", "")) if not _operand(n) else None
    if not m and not re.search(r"[A-Za-z\u4e00-\u9fff]", left) and "=" in n.line_text[:n.col] and not _operand(n) and \
            "=" in re.split(r"[，；;]|,(?=\s*[^\d\s(+\-−])", n.line_text[:n.col])[-1]:
        clause = re.split(r"[，；;]|,(?=\s*[^\d\s(+\-−])", n.line_text[:n.col])[-1]
        lhs = clause[:clause.index("=")] + "=" if "=" in clause else ""   # the subject: A1,0 = 2.175/4.789 ≈ 0.454
        m = SYMBOL.search(lhs.replace("$", "").replace("\\", "")[-40:])
    if m:
        c.symbol = m[1].lower()
        if m[2] and m[2][0].isdigit():
            digits = re.findall(r"\d+", m[2])
            c.sym_idx = tuple(int(x) for x in (digits if len(digits) > 1 else
                                                (list(digits[0]) if len(digits[0]) == 2 else digits)))
    m = re.search(r"(\S+?)\s*=\s*$", left)
    if m and m[1] in vocab:           # 猫=0, 吃=1: a token's id
        c.symbol, c.tokens = "id", (vocab.index(m[1]),)
    if n.array:                       # an entry of a literal: E = [[…]], p = […], \begin{bmatrix}
        c.symbol, c.sym_idx = n.array.lower().replace("{", "").replace("}", ""), tuple(n.pos)
    elif len(n.pos) == 1:             # (爱 25.5%、他 20.9%、pad 17.1%) … (0.405, 0.332, 0.272): listed tokens in order
        c.tokens = _listed_token(n, vocab) or ()
    m = re.match(r"\s*([A-Za-z][\w-]{2,})\s*=\s*[\d.]+\s*[:：]", n.line_text)
    if m and (not c.symbol or c.symbol in m[1].lower()):       # 'Top-k=3: …': the line's subject
        c.symbol = m[1].lower()
    words = " ".join((n.row, left[-12:]))
    ids = [i for i, t in enumerate(vocab) if any(_mentions(words, w) for w in (t, *TOKEN_WORDS.get(t, ())))]
    c.tokens = c.tokens or tuple(ids)
    m = re.search(r"\bt\s*=\s*(\d)", n.row) or re.search(r"\bt\s*=\s*(\d)\b", n.table)
    c.t = int(m[1]) if m else n.position
    if not c.symbol and n.table and n.row and not n.column.count("|"):
        m = re.match(r"\s*([A-Za-z][A-Za-z_]*)(?!\s*=)", n.row)   # a glued row 'h注意力头数 (n_heads)1': its symbol
        if m and len(m[1]) <= 5:
            c.symbol = m[1].lower()
    m = re.search(r"dim\s*(\d)", n.column) or re.search(r"第\s*(\d)\s*维", left)
    c.dim = int(m[1]) if m else None
    _glued_columns(n, c, vocab)
    if re.search(r"(?:exp|e\^)\s*[({]\s*$", n.before):
        c.argument_of = ("logits", "z", "S")
    m = re.search(r"\bT\s*=\s*(\d+(?:\.\d+)?)|T\s*→\s*(∞)", n.row)
    if m:
        c.param = "inf" if m[2] else str(Fraction(m[1]))
    return c


PLAIN = ((re.compile(r"\\sqrt\{\\hat\s*(\w)\}"), "√\\1\u0302"), (re.compile(r"\\hat\s*\{?(\w)\}?"), "\\1\u0302"),
         (re.compile(r"\\(?:mathbf|mathrm|mathcal|mathit|text|boldsymbol|operatorname)\{([^{}]*)\}"), r"\1"),
         (re.compile(r"\\frac\{\\partial\s*(\w+)\}\{\\partial\s*(\w+)\}"), r"∂\1/∂\2"))


def _plain(s: str) -> str:
    """LaTeX symbols as a reader sees them: \\hat m → m̂, \\sqrt{\\hat v} → √v̂, \\frac{\\partial L}{\\partial z} → ∂L/∂z.

    >>> _plain(r"$\\hat m = $"), _plain(r"\\sqrt{\\hat v} =")
    ('$m̂ = $', '√v̂ =')
    """
    for rx, by in PLAIN:
        s = rx.sub(by, s)
    return s


def _mentions(text: str, token: str) -> bool:
    """Does the text name the token, not merely contain it inside a word ('我们' is no 我)?

    >>> _mentions("t=0 (我)", "我"), _mentions("我们这里", "我"), _mentions("pad0.171", "pad")
    (True, False, True)
    """
    for m in re.finditer(re.escape(token), text):
        after = text[m.end():m.end() + 1]
        if not (len(token) == 1 and re.match(r"[\u4e00-\u9fff]", after)):
            return True
    return False


def _near(n) -> tuple:
    from .diagnose import near_window
    return near_window(n)


def _listed_token(n, vocab):
    """The token an entry of an unnamed tuple stands for, when the line names as many tokens before the
    tuple as it has entries: (token id) or None."""
    line = n.line_text
    open_at = line.rfind("(", 0, n.col)
    close_at = line.find(")", n.col)
    if open_at < 0 or close_at < 0:
        return None
    width = len(re.findall(r"[-+−]?\d+(?:\.\d+)?%?", line[open_at:close_at]))
    words = [(line.find(w, 0, open_at), i) for i, t in enumerate(vocab) for w in (t, *TOKEN_WORDS.get(t, ()))
             if w and line.find(w, 0, open_at) >= 0]
    order = [i for _, i in sorted(words)]
    if len(order) != width or n.pos[0] >= width:
        return None
    return (order[n.pos[0]],)


def _glued_columns(n, c: Context, vocab) -> None:
    """A header glued into one string ('位置q dim 0q dim 1', '温度 Tp(爱)p(你)p(他)', '看 t=0看 t=1'): when
    it names as many dims, tokens or positions as the row has figures, the figure's cell picks one."""
    if n.cell < 0 or not n.column or len(n.column) > 60:
        return
    dims = [int(x) for x in re.findall(r"dim\s*(\d)", n.column)]
    ts = [int(x) for x in re.findall(r"t\s*=\s*(\d)", n.column)]
    toks = [i for _, i in sorted((n.column.find(w), i) for i, t in enumerate(vocab)
                                  for w in (t, *TOKEN_WORDS.get(t, ())) if w and w in n.column)]
    width = n.width
    if len(dims) == width:
        c.dim = dims[n.cell]
    elif len(ts) == width:
        c.dim = ts[n.cell]
    elif len(toks) == width:
        c.tokens = (toks[n.cell],)


def _symbols(n) -> frozenset:
    """Identifiers that label a figure's table: a caption or header that is a symbol (``W_Q``,
    ``b_1 ∈ ℝ⁴``) or the math in it (``The matrix $Q$`` → Q); not the words of a sentence."""
    parts = [n.table] if re.fullmatch(r"[A-Za-z][A-Za-z0-9_{}^]*(?:\s*∈.*)?", n.table) else []
    parts += [n.row, n.column] if max(len(n.row), len(n.column)) <= 12 else []
    parts += re.findall(r"\$([^$]{1,30})\$", " ".join((n.table, n.row, n.column)))
    return frozenset(w for part in parts for w in re.findall(r"(?<![A-Za-z0-9_\\])[A-Za-z]\w*", part))


def _pinned(cand: Candidate, c: Context) -> bool:
    """Does the context name this very entry: its name, and each of its indices?"""
    names = _names(cand)
    if not (c.symbol in names or cand.group in c.words or any(len(a) > 1 and a in c.column for a in names)):
        return False
    if cand.param is not None and c.param != cand.param:
        return False
    if c.sym_idx and c.symbol in _names(cand):
        return c.sym_idx == cand.idx
    for axis, i in zip(cand.axes, cand.idx):
        if axis == "t" and c.t == i or axis == "v" and c.tokens == (i,):
            continue
        if axis == cand.axes[-1] and axis in "jk" and c.dim == i:
            continue
        return False
    return True


def _base(cand: Candidate) -> str:
    """The name a candidate's group has without its training state or function: sgd[1].p → p."""
    return re.sub(r"^\w+\(|\)$", "", cand.group.split(".")[-1])


def _names(cand: Candidate) -> set:
    """What a tutorial may call a candidate's quantity: its group's name and aliases, lower case."""
    names = {cand.group.lower(), cand.group.lower().replace("_", "")} | set(ALIASES.get(cand.group, ()))
    base = cand.group.split(".")[-1].split("(")[-1].rstrip(")")
    return names | (set(ALIASES.get(base, ())) if "(" not in cand.group and "." not in cand.group else set())


def score(cand: Candidate, c: Context, prev: list) -> float:
    """How well the context names a candidate (higher is better); ``prev`` the earlier matches."""
    s = 0.0
    names = _names(cand)
    if c.symbol and c.symbol in names:
        s += 4
        if c.sym_idx:
            s += 4 if c.sym_idx == cand.idx[-len(c.sym_idx):] else -2
    elif c.symbol and any(len(a) > 1 and a in c.symbol for a in names):
        s += 2
    s += 1.5 * sum(1 for a in names if len(a) > 1 and a in c.text)
    if cand.group in c.words:
        s += 4
    if cand.key in c.inputs:
        s += 3
    if len(c.factor) == 1 and cand.key in c.factor:
        s += 3
    s += 0.5 * sum(1 for a in names if len(a) > 1 and a in c.far)
    s += 2 * sum(1 for a in names if len(a) > 1 and a in c.column)
    if "v" in cand.axes and c.tokens:
        s += 2 if cand.idx[cand.axes.index("v")] in c.tokens else -1
    if "t" in cand.axes and c.t is not None:
        s += 2 if cand.idx[cand.axes.index("t")] == c.t else -1
    if c.param is not None and cand.param is not None:
        s += 3 if c.param == cand.param else -2
    if c.dim is not None and cand.axes and cand.axes[-1] in "jks":
        s += 2 if cand.idx[-1] == c.dim else -1
    for k, p in enumerate(reversed(prev[-4:])):
        if p is not None and p.group == cand.group:
            s += 1.0 if k else 1.5
            if k == 0 and _next(p, cand):
                s += 2.5
    if cand.derived:
        s += 1
    if c.argument_of and cand.group in c.argument_of:
        s += 2
    return s


def _next(p: Candidate, c: Candidate) -> bool:
    """c is the entry printed right after p (row-major order)."""
    if len(p.idx) != len(c.idx) or not p.idx:
        return False
    return list(c.idx) > list(p.idx) and sum(abs(a - b) for a, b in zip(c.idx, p.idx)) <= 2 and \
        c.idx[-1] in (p.idx[-1] + 1, 0)


# ---------------------------------------------------------------- matching

def cell(n) -> tuple:
    """The rounding cell [lo, hi] of a figure, in the value's units.

    >>> from symgpt.extract import extract
    >>> cell(extract("0.454")[0]), cell(extract("8.5%")[0])
    ((Fraction(907, 2000), Fraction(909, 2000)), (Fraction(169, 2000), Fraction(171, 2000)))
    """
    scale = 100 if n.kind == "percent" else 1
    if n.kind in ("power", "fraction"):
        return n.value / scale, n.value / scale
    half = Fraction(1, 2 * 10 ** n.decimals)
    return (n.value - half) / scale, (n.value + half) / scale


def printed(n) -> Printed:
    return Printed(n.text, n.kind, n.value, n.decimals)


def rounds_to(cand: Candidate, n) -> bool:
    """Certified: does the candidate's exact value round to the printed figure?"""
    lo, hi = cell(n)
    if not cand.meets(lo, hi):
        return False
    try:
        if n.kind in ("power", "fraction"):
            v = cand.q.ball(256)
            t = fmpq(n.value.numerator, n.value.denominator)
            if isinstance(v, fmpq):
                return v == t
            ex = cand.q.exact()
            return ex is not None and ex == t
        r, _, _ = certify_rounding(cand.q, printed(n))
    except (UndecidableError, ArithmeticError, ValueError):
        return False
    if Fraction(r) != n.value:
        return False
    return not (n.text.lstrip()[:1] in "-−" and n.value == 0 and _bounds(cand.ball)[0] > 0)


class Matcher:
    """Matches a document's figures to one derivation's quantities."""

    def __init__(self, d):
        self.d = d
        self.cands = candidates(d)
        self.vocab = list(d.spec.vocab)
        self._alias: dict = {}

    def derived(self, n, found: dict):
        """The figure's chain with each operand replaced by its matched quantity (or None)."""
        if not n.chain or not n.operands:
            return None
        refs = [found.get(i) for i in n.operands]
        if any(r is None for r in refs):
            return None
        chain, out, pos = n.chain, [], 0
        for i, r in zip(n.operands, refs):
            text = found["_text"][i].lstrip("+")
            k = chain.find(text, pos)
            if k < 0:
                return None
            out.append(chain[pos:k])
            out.append(r.ref if re.fullmatch(r"[\w.\[\],<>\u4e00-\u9fff]+|\w+\(.*\)", r.ref) else f"({r.ref})")
            pos = k + len(text)
        ref = "".join(out) + chain[pos:]
        try:
            q = bind(parse(ref, self.d.limits), self.d, self.d.limits)
            ball = q.ball(PREFILTER_BITS)
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return None
        if not isinstance(ball, fmpq) and not ball.is_finite():
            return None
        return Candidate(ref, "chain", (), "", q, ball, derived=True)

    def match(self, numbers) -> list:
        """A :class:`Result` for every figure, in order.

        Two passes: the first finds what each equation computes (``q0,0 = 0.500 × 0.3 + … = 1.050``
        is ``Q[0,0]``); the second prefers, for the figures of that line, the quantities its definition
        reads (``H0[0,0]``, ``W_Q[0,0]``, …).
        """
        first = self._match(numbers, {})
        return self._match(numbers, self._inputs(first))

    def _named(self, n, ctx, prev, ranked):
        """(score, candidate) when the context names one quantity near the figure far more strongly
        (by STRONG_NAMING, and STRONG_GAP above the best candidate that rounds to it), else None."""
        from .diagnose import _operand, near_window
        if n.kind not in ("decimal", "percent") or _operand(n) or not (n.chain or n.array or n.table):
            return None
        lo, hi = near_window(n)
        scored = sorted(((score(c, ctx, prev), i, c) for i, c in enumerate(self.cands) if c.meets(lo, hi)),
                        key=lambda t: (-t[0], t[1]))
        if not scored or scored[0][0] < STRONG_NAMING or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return None
        top = scored[0][2]
        if not _pinned(top, ctx) or _integral(top.ball) or rounds_to(top, n):
            return None
        if ranked and scored[0][0] < ranked[0][0] + STRONG_GAP and _pinned(ranked[0][2], ctx):
            return None                 # a quantity that rounds to it is named about as well
        if any(_base(r[2]) == _base(top) for r in ranked):
            return None                 # p printed after an update is sgd[1].p: the same symbol, another state
        return scored[0][0], top

    def _node(self, c: Candidate) -> str:
        """The node a candidate names, through definitions that are a single other node
        (X[0,0] := E[2,0], h_final[0] := LN2[1,0]); its own key otherwise."""
        if c.key not in self._alias:
            key = c.key
            try:
                e = self.d.definition(c.ref) if not c.derived and "(" not in c.ref else None
                if e is not None and e.is_Symbol:
                    key = str(e)
            except Exception:  # noqa: BLE001 - not a graph node: itself
                pass
            self._alias[c.key] = key
        return self._alias[c.key]

    def _transposed(self, ctx, best: Candidate):
        """The candidate the context names by symbol and both indices (``W[1,0]``, when ``best`` is its
        transpose ``W[0,1]`` and it does not itself round to the figure), else None."""
        if len(ctx.sym_idx) != 2 or best.idx != ctx.sym_idx[::-1] or best.idx == ctx.sym_idx:
            return None
        named = [c for c in self.cands if c.group == best.group and c.idx == ctx.sym_idx]
        if len(named) != 1 or ctx.symbol not in _names(best):
            return None
        return named[0]

    def _inputs(self, results) -> dict:
        """line → the quantities the definitions of its equations' results read (canonical keys), and
        figure index → the key of the factor it is, where a printed product ``a × b`` matches one term
        of the definition by value (``0.500 × 0.3`` in ``q0,0 = …`` is ``H0[0,0]·W_Q[0,0]``)."""
        import sympy
        graph = {p.partition("[")[0] for p, _, _ in self.d.registry.groups()}
        by_key = {c.key: c for c in self.cands}
        out: dict = {}
        for r in results:
            if r.verdict not in ("matched", "wrong") or not r.ref or not r.number.chain:
                continue
            c = next((c for c in self.cands if c.ref == r.ref), None)
            if c is None or c.group not in graph:
                continue
            try:
                definition = self.d.definition(c.ref)
            except Exception:  # noqa: BLE001 - a node without a definition (a parameter)
                continue
            keys = {str(x) for x in definition.free_symbols}
            out.setdefault(r.number.line, set()).update(keys)        # not the subject: it is no operand of itself
            line = [x.number for x in results if x.number.line == r.number.line]
            terms = [(t, [str(f) for f in sympy.Mul.make_args(t) if f.is_Symbol])
                     for t in sympy.Add.make_args(sympy.expand(definition))]
            for a, b in zip(line, line[1:]):
                if re.fullmatch(r"\s*(?:[×*·]|\\times)\s*\(?\s*", a.after):       # a × b: one term's two factors
                    for _, fs in terms:
                        if len(fs) == 2 and all(k in by_key for k in fs):
                            for x, y in (fs, fs[::-1]):
                                if by_key[x].meets(*cell(a)) and by_key[y].meets(*cell(b)):
                                    out.setdefault(("factor", a.index), set()).add(x)
                                    out.setdefault(("factor", b.index), set()).add(y)
            for b in line:                                                      # … + 0.1 is b_1[k]
                if re.search(r"\+\s*$", b.before) and not re.match(r"\s*(?:[×*/·]|\\times)", b.after):
                    for t, fs in terms:
                        if t.is_Symbol and str(t) in by_key and by_key[str(t)].meets(*cell(b)):
                            out.setdefault(("factor", b.index), set()).add(str(t))
        return {k: frozenset(v) for k, v in out.items()}

    def _match(self, numbers, inputs: dict) -> list:
        from .diagnose import diagnose
        found: dict = {"_text": {n.index: n.text for n in numbers}}
        prev: list = []
        printed_as: dict = {}     # a figure's text → the quantity it was matched to (a reprint is the same)
        sure_of: set = set()      # figures matched with a context that names their quantity
        wrong_as: dict = {}       # a wrong figure's text → its Result
        out = []
        for n in numbers:
            lo, hi = cell(n)
            pool = [c for c in self.cands if c.meets(lo, hi)]
            line_inputs = inputs.get(n.line, frozenset())
            factor = inputs.get(("factor", n.index), frozenset())
            if n.kind == "integer":      # a count or an id; a rounded value only as a factor the equation reads
                pool = [c for c in pool if _integral(c.ball) or c.key in factor]
            hits = [c for c in pool if rounds_to(c, n)]
            dc = self.derived(n, found)
            confirmed: set = set()
            if dc is not None and rounds_to(dc, n):
                confirmed = {c.ref for c in hits if c.group not in self.d.spec.params and _same_value(c, dc)}
                hits = hits + [dc]
            ctx = context(n, self.vocab)
            ctx.inputs = line_inputs
            ctx.factor = factor
            again = printed_as.get(n.text) if len(n.text.strip("-+−%").replace(".", "").lstrip("0")) >= 3 else None
            ranked = sorted(((score(c, ctx, prev) + (3 if again is not None and c.ref == again else 0)
                              + (2 if c.ref in confirmed else 0), i, c)
                             for i, c in enumerate(hits)), key=lambda t: (-t[0], t[1]))
            sure = all(i in sure_of for i in n.operands)     # every operand named by its context
            if dc is not None and dc not in hits and n.chain and sure and (not ranked or ranked[0][0] < 2) \
                    and dc.meets(*_near(n)):
                ranked = []                  # 0.840 × 0.2 = 0.1680: its own arithmetic outweighs a coincidence
            swapped = self._transposed(ctx, ranked[0][2]) if ranked else None
            named = None if swapped is not None or (dc is not None and dc in hits) else \
                self._named(n, ctx, prev, ranked)
            if named is not None:           # 1.0 in Q's table at t=0, dim 0: Q[0,0] = 1.05, not a 1
                from .diagnose import _chain_rounds, wrong
                chain_ok, chain_value = _chain_rounds(self, n)
                res = wrong(n, named[1], [named[1].ref] + [r[2].ref for r in ranked[:2]], named[0],
                            chain_ok=chain_ok, chain_value=chain_value)
                wrong_as.setdefault(n.text, res)
                found[n.index] = named[1]
                prev.append(named[1])
                out.append(res)
                continue
            if swapped is not None:         # W[0,1] printed where the context names W[1,0]
                from .diagnose import wrong
                res = wrong(n, swapped, [r[2].ref for r in ranked[:3]], ranked[0][0], transposed=True)
                wrong_as.setdefault(n.text, res)
                found[n.index] = swapped
                prev.append(swapped)
                out.append(res)
                continue
            if ranked:
                best = ranked[0]
                tied = [r for r in ranked if r[0] == best[0]]
                if len({self._node(r[2]) for r in tied}) == 1:
                    tied = tied[:1]             # X[1,0] and E[爱,0]: one node under two names
                res = Result(n, "matched" if len(tied) == 1 else "ambiguous", best[2].ref,
                             [r[2].ref for r in ranked[:6]], best[0])
                found[n.index] = best[2]
                prev.append(best[2])
                if res.verdict == "matched":
                    printed_as[n.text] = best[2].ref
                    if best[0] >= SURE:
                        sure_of.add(n.index)
                out.append(res)
                continue
            res = diagnose(self, n, ctx, prev, dc, sure)
            if res.verdict != "wrong" and n.text in wrong_as:
                res = _reprint(wrong_as[n.text], n)
            if res.verdict == "wrong":
                wrong_as.setdefault(n.text, res)
            if res.verdict == "wrong" and res.ref:
                c = next((c for c in self.cands if c.ref == res.ref), dc)
                found[n.index] = c
                prev.append(c)
            else:
                prev.append(None)
            out.append(res)
        return out


def _reprint(first: Result, n) -> Result:
    """A wrong figure printed again: the same quantity, the same cause (its chain is the first printing's)."""
    import dataclasses
    return dataclasses.replace(first, number=n)


def _integral(b) -> bool:
    """An exact integer enclosure (a count, a size, an id)."""
    if isinstance(b, fmpq):
        return b.q == 1
    return b.is_exact() and b.is_integer()


def _same_value(a: Candidate, b: Candidate) -> bool:
    """Equal enclosures at 128 bits to within 2^-100 (a node and the arithmetic that defines it)."""
    try:
        x, y = a.q.ball(128), b.q.ball(128)
        diff = arb(x) - arb(y) if not isinstance(x, fmpq) or not isinstance(y, fmpq) else x - y
        if isinstance(diff, fmpq):
            return diff == 0
        return abs(diff) < arb(2) ** -100
    except (ArithmeticError, ValueError, TypeError):
        return False
