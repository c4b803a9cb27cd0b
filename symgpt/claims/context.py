"""Context: what the text around a figure says about which quantity it is, and a score for each candidate.

The symbol just left of a figure (``q1,0 =``, ``p(你)``, ``exp(``), its place in a matrix or
vector literal, the table's caption, row and column (``t=1``, ``dim 0``, a token), a row's
temperature, the document's order (a matrix is printed entry after entry) and the
definitions an equation reads each add to a candidate's :func:`score`.

>>> from symgpt.claims.extract import extract
>>> c = context(extract("p(你) = 0.085")[0], ["<pad>", "<bos>", "我", "爱", "你", "他"])
>>> c.symbol, c.tokens
('p', (4,))
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ..ops import NAMES
from .candidates import Candidate
from .extract import accented
from .figure import operand as _operand


def _op_aliases() -> dict:
    """What tutorials write for each quantity an op names (:data:`symgpt.ops.NAMES`), for its gradient
    (``grad_W``) and for the functions of it they print (``exp(S)``, ``sqrt(var1)``).

    >>> _op_aliases()["exp(S)"], _op_aliases()["grad_z"][:2]
    (('exp',), ('∂l/∂z', '梯度'))
    """
    out = {}
    for name, n in NAMES.items():
        if n.aliases:
            out[name] = n.aliases
        if n.grad:
            out["grad_" + name] = n.grad
        out.update({f"{f}({name})": words for f, words in n.of})
        out.update({f"sqrt({name}+eps)": words for f, words in n.of if f == "sqrt"})   # a norm's denominator
    return out                                                       # √(σ² + ε), by the same words as √σ²


ALIASES = {   # symbols a tutorial writes for a node (lower case), beside the node's own name: the ops' quantities',
    **_op_aliases(),   # then the sizes, functions and training states the names registry defines
    "gradcheck": ("数值梯度", "numerical", "finite difference"),
    "d": ("d", "维度", "d_model"), "heads": ("h", "头"), "layers": ("l", "层"),
    "d_ff": ("d_ff", "ffn 隐藏"), "vocab_size()": ("v", "词表", "vocab"), "seq_len()": ("t", "长度", "序列"),
    "params()": ("参数", "param"), "id": ("id", "→", "=", "编号", "序号"), "softmax_T": ("温度", "temperature", "t ="),
    "topk": ("top-k", "topk"), "topp": ("top-p", "累计"), "cumulative p": ("累计", "cumulative", "top-p"),
    "lr": ("η", "lr", "学习率", "learning rate"),
    "adamw.lr": ("η", "lr"), "adamw.beta1": ("β1", "beta1", "β_1"), "adamw.beta2": ("β2", "beta2", "β_2"),
    "1 - adamw.beta1": ("1-β1", "1 - β1", "1−β1", "一阶矩", "first moment"),
    "1 - adamw.beta2": ("1-β2", "1 - β2", "1−β2", "二阶矩", "second moment"),
    "adamw.eps": ("ε", "eps"), "adamw.weight_decay": ("λ", "weight decay", "decay"),
    "head_step.E": ("new", "更新", "e你new"),
    "head_step.logits": ("新 logit", "new logit"), "d/heads": ("d_k", "d/h"), "sqrt(d/heads)": ("√", "sqrt"),
    "y": ("y", "y_i", "yi", "one-hot", "目标", "target", "label"), "onehot": ("one-hot", "x_oh", "onehot"),
    "sgd[1].p": ("更新后", "after"), "sgd[1].loss": ("更新后", "→"),
    "adamw[1].m": ("m", "一阶矩", "first moment", "exp_avg"),      # exp_avg(_sq): PyTorch's optimizer state
    "adamw[1].v": ("v", "二阶矩", "second moment", "exp_avg_sq"),
    "adamw[1].mhat": ("m̂", "偏差修正", "bias-corrected"), "sqrt(adamw[1].vhat)": ("√v̂", "sqrt(v̂)"),
    "adamw[1].vhat": ("v̂",), "adamw[1].update": ("步长", "update", "step", "自适应"),
    "sigmoid(Z)": ("σ", "sigmoid", "sigma"), "SiLU(Z)": ("silu", "swish", "silu(g)"),
    "adamw[1].decay": ("衰减", "decay"), "sgd.loss": ("l", "loss", "损失"), "sgd.p": ("p", "p("),
    "loss drop": ("drop", "fell", "falls", "decrease", "reduction", "下降", "降幅", "减少", "baisse", "Rückgang",
                  "sank", "caída", "calo", "queda", "снижение", "düşüş", "spadek", "daling", "giảm", "penurunan",
                  "minskning", "μείωση", "減少", "감소"),
}
EXP_OF = tuple(name for name, n in NAMES.items() if "exp" in dict(n.of))   # the groups whose exp tutorials print
PRIMES = {name: n.primes for name, n in NAMES.items() if n.primes}          # h' (1), h'' (2): H1, LN1 …'s residual


SYMBOLS = {a for names in ALIASES.values() for a in names if re.fullmatch(r"[\u0370-\u03ff]", a)}   # η, λ, μ, σ, ε
ENTRY = re.compile(r"(?<![A-Za-z\\])([A-Z])_\{?(\d)(\d)\}?(?!\d)")   # W_02, W_{02}: one entry of a matrix
SIZES = ("d", "d_ff", "heads", "layers", "vocab_size()", "seq_len()", "d/heads")
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
    argument_of: tuple = ()          # exp(0.400): the groups whose exp we know (EXP_OF: logits, z, S)
    row_of: bool = False             # E[1], E 的第 2 行: the row of the embedding, a token id
    id_of: int | None = None         # 我(2): the token whose id is printed in brackets after it
    slot: int | None = None          # (0.000, 0.000, 0.800, 0.000): the figure's place in a row vector
    entry: tuple = ()                # 对 W_{02}: the one matrix entry the paragraph or its table is about
    input_ids: bool = False          # [2, 3]: a list that spells the model's input sequence, ids
    shape: bool = False              # a factor of a shape: ℝ^(2×4), 2×2
    axis: int | None = None          # … its first (rows) or second (columns) factor, for an activation's shape
    primes: int = 0                  # h' (1) or h'' (2) on the line: the first or the second residual
    row: str = ""                    # the row's label as printed: 'W_Q', 'W_1, b_1'
    updated: bool = False            # E[1]: [0.3, -0.1] → [0.2832, -0.3560]: a list after an arrow, the new values
    one_minus: bool = False          # m/(1-0.9): the 0.9 of a bias correction, β


SYMBOL = re.compile(r"([A-Za-z∂/²√\u0302\u0303\u0304\u0370-\u03ff]+(?:_\{?[A-Za-z]+\}?)?)\s*(?:_\{?)?"
                    r"(\d+(?:\s*,\s*\d+)?|\(\S{1,6}?\))?"
                    r"\}?[\s'′&]*"
                    r"(?:\([^()]{0,8}\))?\s*(?:=|≈|→|:|：)\s*[\[(]?\s*$")


NUDGED = re.compile(r"(?<![\w\\√])(?!sqrt\b|exp\b|log\b|ln\b)[^\W\d]\w*'?\s*[(\[][^()\[\]=]*[+\-−±]\s*"
                    r"(?:h|ε|eps(?:ilon)?|\\(?:var)?epsilon|δ|Δ\w*|\d(?:\.\d+)?e-\d+|10\^?\{?[-−]\d+\}?|10⁻[⁰-⁹]+)\s*"
                    r"[)\]]\s*=?\s*$")
"""A name of a nudged model's value: ``L(W + h) =``, ``J(θ − ε)``, ``loss[w-1e-4]`` (a function's name before the
bracket: not ``√(σ² + ε) =``, a norm's divisor)."""


def context(n, vocab) -> Context:
    """The hints a figure's surroundings give (see :class:`Context`)."""
    before, line = n.before, n.line_text[:n.col]
    if n.column and "|" in line:       # a table cell's own text: '| k = 1 | 1.063 | 0.790 |' names no k
        before, line = before[before.rfind("|") + 1:], line[line.rfind("|") + 1:]
    left = _plain(before[-60:])[-40:]
    c = Context(text=" ".join((left, n.row, n.column, n.table)).lower(), far=(n.heading + " " + n.prose).lower(),
                row=n.row,
                column=n.column.lower() if len(n.column) < 30 else "",
                words=_symbols(n))
    m = SYMBOL.search(left.replace("$", "").replace("\\", "")) if not _operand(n) else None
    if not m and not re.search(r"[A-Za-z\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", left) and \
            "=" in line and not _operand(n) and "=" in re.split(r"[，；;]|,(?=\s*[^\d\s(+\-−])", line)[-1]:
        clause = re.split(r"[，；;]|,(?=\s*[^\d\s(+\-−])", line)[-1]
        lhs = clause[:clause.index("=")] + "=" if "=" in clause else ""   # the subject: A1,0 = 2.175/4.789 ≈ 0.454
        m = SYMBOL.search(lhs.replace("$", "").replace("\\", "")[-40:])
    if m and m[1] == "√" and m[2] and re.fullmatch(r"\([\d/.π]+\)", m[2]):
        m = None                      # √(2/π) = …: a number, no quantity's symbol
    if m and NUDGED.search(n.line_text[max(0, n.col - 60):n.col]):
        m = None                      # L(W + h) = 1.60421: the loss of a nudged model, a gradient check's
    if m:
        c.symbol = m[1].lower()
        if m[2] and m[2][0].isdigit():
            digits = re.findall(r"\d+", m[2])
            c.sym_idx = tuple(int(x) for x in (digits if len(digits) > 1 else
                                                (list(digits[0]) if len(digits[0]) == 2 else digits)))
    aligned = _aligned(n) if not m and _operand(n) else None
    if aligned:                       # x_0 × (p_2 - 1) = 0.3 × (-0.6506): the 0.3 is x₀
        c.symbol, c.sym_idx = aligned
    named = [i for i, t in enumerate(vocab) if re.search(re.escape(t) + r"\s*=\s*$", left)]
    if len(named) == 1:               # 猫=0, 吃=1: a token's id
        c.symbol, c.tokens = "id", (named[0],)
    if n.array:                       # an entry of a literal: E = [[…]], p = […], \begin{bmatrix}
        c.symbol, c.sym_idx = n.array.lower().replace("{", "").replace("}", ""), tuple(n.pos)
    elif len(n.pos) == 1:             # (爱 25.5%、他 20.9%、pad 17.1%) … (0.405, 0.332, 0.272): listed tokens in order
        c.tokens = _listed_token(n, vocab) or _vocab_slot(n, vocab) or ()
        c.slot = n.pos[0]
    if not c.symbol and n.subject:    # the row's formula cell defines it
        c.symbol, c.sym_idx = n.subject.lower(), tuple(n.pos) if len(n.pos) == 1 else ()
    m = re.match(r"\s*([A-Za-z][\w-]{2,})\s*=\s*[\d.]+\s*[:：]", n.line_text)
    if m and (not c.symbol or c.symbol in m[1].lower()):       # 'Top-k=3: …': the line's subject
        c.symbol = m[1].lower()
    words = " ".join((n.row, left[-12:], n.after[:3] if n.kind == "integer" else ""))   # '2 我': an id
    ids = [i for i, t in enumerate(vocab) if any(_mentions(words, w) for w in (t, *TOKEN_WORDS.get(t, ())))]
    c.tokens = c.tokens or tuple(ids)
    m = re.search(r"\bt\s*=\s*(\d)", n.row) or re.search(r"\bt\s*=\s*(\d)\b", n.table)
    c.t = int(m[1]) if m else n.position
    if not c.symbol and n.table and n.row and not n.column.count("|"):
        m = re.match(r"\s*([A-Za-z][A-Za-z_]*)(?!\s*=)", n.row)   # a glued row 'h注意力头数 (n_heads)1': its symbol
        if m and len(m[1]) <= 5 and not NUDGED.search(n.row):      # (not a row 'L(θ + h)': a nudged model's)
            c.symbol = m[1].lower()
    m = re.search(r"dim\s*(\d)", n.column) or re.search(r"第\s*(\d)\s*维", left)
    c.dim = int(m[1]) if m else None
    _glued_columns(n, c, vocab)
    c.shape = n.kind == "integer" and bool(re.search(r"(?:[×x]|\\times)\s*$", n.before)
                                           or re.match(r"\s*(?:[×x]|\\times)\s*(?:\d|$)", n.after))
    c.primes = 2 if re.search(r"h(?:''|″)", n.line_text) else 1 if re.search(r"h['′]", n.line_text) else 0
    weight = re.search(r"(?:\b[WEb](?:_\w+|_\{\w+\})?|\bW\w*)\s*(?:∈|\\in)[^,;，；]*$", n.line_text[:n.col])
    if c.shape and not weight:        # an activation T × d: rows are the positions, columns the width
        c.axis = 1 if re.search(r"(?:[×x]|\\times)\s*$", n.before) else 0
    if c.shape:                       # 'V × d = 6 × 2': each factor is the size its symbol names
        m = re.search(r"([A-Za-z_]+)\s*×\s*([A-Za-z_]+)\s*=\s*(\d+)\s*×\s*$", n.line_text[:n.col])
        m2 = re.search(r"([A-Za-z_]+)\s*×\s*([A-Za-z_]+)\s*=\s*$", n.line_text[:n.col])
        if m:
            c.symbol = m[2].lower()
        elif m2:
            c.symbol = m2[1].lower()
    entries = {(m[1], int(m[2]), int(m[3])) for m in ENTRY.finditer(n.line_text)} or \
        {(m[1], int(m[2]), int(m[3])) for m in ENTRY.finditer(n.prose + " " + n.about)}
    c.entry = entries.pop() if len(entries) == 1 else ()
    if n.kind == "integer":
        c.id_of = next((i for i, t in enumerate(vocab) for w in (t, *TOKEN_WORDS.get(t, ()))
                        if w and re.search(rf"(?<![A-Za-z]){re.escape(w)}\s*[(（]\s*$", n.before)), None)
    c.row_of = n.kind == "integer" and bool(re.search(r"(?:\bE|嵌入矩阵|嵌入表)\s*(?:\[\s*|的第\s*)$", n.before)
                                           and not re.match(r"\s*,", n.after))
    c.updated = bool(re.search(r"(?:→|\\to|⟶|->)\s*[\[(][^\[\]()]*$", n.line_text[:n.col]))
    c.one_minus = bool(re.search(r"\(\s*1\s*[-−]\s*$", n.line_text[:n.col]))
    if re.search(r"(?:exp|e\^)\s*[({]\s*$", n.before):
        c.argument_of = EXP_OF
    m = re.search(r"\bT\s*=\s*(\d+(?:\.\d+)?)|T\s*→\s*(∞)", n.row)
    if m:
        c.param = "inf" if m[2] else str(Fraction(m[1]))
    return c


OPERATOR = re.compile(r"\\times|\\cdot|[×*·/÷+\-−]")
FIGURE = re.compile(r"^\(?\s*[-−+]?\d+(?:\.\d+)?(?:\^\{?-?\d+\}?)?%?\s*\)?$")
OPERAND = re.compile(r"^\(?\s*([A-Za-z\u0370-\u03ff∂]+)(?:_\{?(\d+(?:,\d+)?)\}?)?\s*\)?$")


def _split(expr: str):
    """Top-level operands of an expression and the operators between them (parentheses kept whole);
    None when the brackets do not close.

    >>> _split("x_0 × (p_2 - 1)"), _split("0.3 × (-0.6506)")
    ((['x_0', '(p_2 - 1)'], ['×']), (['0.3', '(-0.6506)'], ['×']))
    """
    operands, ops, depth, start, i = [], [], 0, 0, 0
    expr = expr.replace("\\times", "×").replace("\\cdot", "×").replace("·", "×").replace("*", "×")
    expr = expr.replace("−", "-").replace("÷", "/")
    while i < len(expr):
        ch = expr[i]
        depth += (ch in "({[") - (ch in ")}]")
        if depth < 0:
            return None
        unary = ch in "+-" and not expr[start:i].strip()         # the sign of an operand, not an operator
        if depth == 0 and ch in "×/+-" and not unary and not expr[:i].rstrip().endswith(("^", "e", "{")):
            operands.append(expr[start:i].strip())
            ops.append(ch)
            start = i + 1
        i += 1
    operands.append(expr[start:].strip())
    return (operands, ops) if depth == 0 and all(operands) else None


def _aligned(n) -> tuple | None:
    """The symbol a figure stands for in ``<symbols> = <figures>`` of the same shape: in
    ``x_0 × (p_2 - 1) = 0.3 × (-0.6506)`` the 0.3 is x₀; in ``η λ θ = 10^{-3} × 0.1 × 0.1`` the
    first 0.1 is λ.  (symbol, indices) or None.

    >>> from symgpt.claims.extract import extract
    >>> [_aligned(x) for x in extract("∂L/∂W_02 = x_0 × (p_2 - 1) = 0.3 × (-0.6506) = -0.1952")]
    [None, ('x', (0,)), None, None]
    """
    def math(t):
        t = _plain(t.replace("$", " ")).replace("\\times", "×").replace("\\cdot", "×")
        return t.replace("\\left", "").replace("\\right", "").replace("\\", "")
    line, text = math(n.line_text), math(n.line_text[:n.col])
    at = len(text)
    end = line.find("=", at)
    parts = text.split("=")
    if len(parts) < 3 and not (len(parts) == 2 and re.search(r"[\t:：，,；;|]", parts[0])):
        return None
    lhs = re.split(r"[\t:：，,；;|]", parts[-2])[-1].strip()
    rhs = (parts[-1] + line[at:end if end >= 0 else len(line)]).strip()
    rhs = re.split(r"[\t，；;|✓]|\s{2,}", rhs)[0].strip()
    right, left = _split(rhs), _split(lhs)
    if right is None or left is None or len(right[0]) < 2:
        return None
    if len(left[0]) == 1 and re.fullmatch(r"(?:[\u0370-\u03ff]\s*){2,}", lhs):
        greek = re.findall(r"[\u0370-\u03ff]", lhs)                 # η λ θ: a product written by juxtaposition
        left = (greek, ["×"] * (len(greek) - 1))
    if left[1] != right[1]:
        return None
    before = _split(parts[-1] + "0") if not re.search(r"[\t，；;|✓]", parts[-1]) else None
    k = len(before[0]) - 1 if before else None
    if k is None or k >= len(right[0]) or not FIGURE.match(right[0][k]):
        return None
    m = OPERAND.match(left[0][k])
    if m is None:
        return None
    index = m[2] or ""                # p_2 → (2,), W_{02} → (0, 2), q_{1,0} → (1, 0)
    return m[1].lower(), tuple(int(x) for x in re.findall(r"\d+" if "," in index else r"\d", index))


PLAIN = ((re.compile(r"\\sqrt\{\\hat\s*(\w)\}"), "√\\1\u0302"), (re.compile(r"\\hat\s*\{?(\w)\}?"), "\\1\u0302"),
         (re.compile(r"\\(?:mathbf|mathrm|mathcal|mathit|text|boldsymbol|operatorname)\{([^{}]*)\}"), r"\1"),
         (re.compile(r"\\frac\{\\partial\s*(\w+)\}\{\\partial\s*(\w+)\}"), r"∂\1/∂\2"),
         (re.compile(r"\\(alpha|beta|gamma|delta|epsilon|varepsilon|eta|theta|lambda|mu|sigma)(?![A-Za-z])"),
          lambda m: GREEK[m[1]]), (re.compile(r"\{=\}"), "="))
GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η",
         "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ"}


def _plain(s: str) -> str:
    """LaTeX symbols as a reader sees them: \\hat m → m̂, \\sqrt{\\hat v} → √v̂, \\frac{\\partial L}{\\partial z} → ∂L/∂z.

    >>> _plain(r"$\\hat m = $"), _plain(r"\\sqrt{\\hat v} =")
    ('$m̂ = $', '√v̂ =')
    """
    s = accented(s)                  # \bar h: h̄, another vector than h
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


def _vocab_slot(n, vocab):
    """The token an entry of an unnamed bracketed list stands for when the list has one entry per token
    of the vocabulary (``[0.0,-0.1,-0.3,0.4,-0.7,0.2]`` beside 'LM Head'): (token id) or None.

    >>> from symgpt.claims.extract import extract
    >>> [_vocab_slot(x, ["a", "b", "c"]) for x in extract("logits [0.5, -0.1, 0.2] and [1, 2]")]
    [(0,), (1,), (2,), None, None]
    """
    line = n.line_text
    open_at = max(line.rfind("[", 0, n.col), line.rfind("(", 0, n.col))
    close_at = min((k for k in (line.find("]", n.col), line.find(")", n.col)) if k >= 0), default=-1)
    if open_at < 0 or close_at < 0 or re.search(r"[\w\]]$", line[:open_at]) and line[open_at] == "[":
        return None                    # E[1], W[0,2]: an index, not a list
    entries = re.findall(r"[-+−]?\d+(?:\.\d+)?%?", line[open_at:close_at])
    if len(entries) != len(vocab) or len(vocab) < 3 or n.pos[0] >= len(vocab):
        return None
    return (n.pos[0],)


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
    if c.symbol and c.sym_idx and c.symbol + "".join(map(str, c.sym_idx)) in names:
        s += 8                        # β_1 = 0.9: the symbol with its index is the name
    elif c.symbol and c.symbol in names:
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
    if len(c.factor) == 1:
        s += 6 if cand.key in c.factor else -3   # the equation's own product names it: outweighs the line's
        #                                          subject (attn1 = 0.454 × (1.310, …): 1.310 is V[0,0], not Attn)
    s += 0.5 * sum(1 for a in names if len(a) > 1 and a in c.far)
    s += 2 * sum(1 for a in names if len(a) > 1 and a in c.column)
    if "v" in cand.axes and c.tokens:
        s += 2 if cand.idx[cand.axes.index("v")] in c.tokens else -1
    if "t" in cand.axes and c.t is not None:
        s += 2 if cand.idx[cand.axes.index("t")] == c.t else -1
        if c.slot is not None and cand.axes[0] == "t" and len(cand.idx) == 2 and cand.idx[1] == c.slot:
            s += 1                    # at t=0, (0.000, 0.000, 0.800, 0.000)'s first figure is R[0,0]
    if c.param is not None and cand.param is not None:
        s += 3 if c.param == cand.param else -2
    if c.dim is not None and cand.axes and cand.axes[-1] in "jks":
        s += 2 if cand.idx[-1] == c.dim else -1
    named_else = c.symbol in SYMBOLS and c.symbol not in names     # η = 0.1 after a table of gradients
    for k, p in enumerate(reversed(prev[-4:] if not named_else else [])):
        if p is not None and p.group == cand.group:
            s += 1.0 if k else 1.5
            if k == 0 and _next(p, cand):
                s += 2.5
    if cand.derived:
        s += 1
    if c.shape:                       # ℝ^(2×4), 2×2, (3×2): sizes, not ids
        s += 2 if cand.group in SIZES else -2 if cand.group == "id" else 0
        if c.axis is not None and cand.ref == ("seq_len()", "d")[c.axis]:
            s += 2                    # … and more than the size printed just before it
    if c.primes and cand.group in PRIMES:
        s += 1 if PRIMES[cand.group] == c.primes else -1
    if c.entry and cand.idx[-2:] == c.entry[1:] and re.search(rf"(?<![\w.]){c.entry[0]}(?![\w(])", cand.ref):
        s += 2                        # W_{02} named in the paragraph: adamw[1].update[W,0,2], not [W,1,0]
    if counted(cand, c):
        s += 4                        # the row of W_Q in a table of parameters: its count, d·d
    if cand.group == "count" and c.shape:
        s -= 2                        # 2×4 is a shape, not its count
    if c.updated and "." in cand.group and any(p is not None and p.group == _base(cand) for p in prev[-4:]):
        s += 4                        # … → [0.2832, …] after E's entries: E after the step (over a reprint)
    if c.one_minus and cand.group in ("adamw.beta1", "adamw.beta2"):
        s += 3                        # m/(1 − 0.9): bias correction divides by 1 − β
    if c.input_ids and cand.group == "id":
        s += 4                        # '我爱' → [2, 3]: the input's token ids
    if c.id_of is not None and cand.group == "id" and cand.idx == (c.id_of,):
        s += 4                        # 我(2): that token's id
    if c.row_of and cand.group == "id":
        s += 3                        # E[1] is the row of token 1
    if c.argument_of and cand.group in c.argument_of:
        s += 2
    return s


def counted(cand: Candidate, c: Context) -> bool:
    """Is the candidate a parameter count (d*d) whose row names its parameters (W_Q; W_1, b_1)?  A count
    is a candidate only then: 10 in prose is no d_ff·d + d.

    >>> from symgpt.claims.extract import extract
    >>> cand = Candidate("d*d", "count", of="W_Q;W_K;W_V")
    >>> table = "| name | shape | count |\\n|---|---|---|\\n| W_K | d × d | 4 |\\n| b_1 | d_ff | 4 |"
    >>> [counted(cand, context(n, [])) for n in extract(table)]
    [True, False]
    """
    return cand.group == "count" and any(
        all(re.search(rf"(?<![A-Za-z0-9_]){re.escape(p)}", c.row) for p in alt.split(","))
        for alt in cand.of.split(";"))


def _next(p: Candidate, c: Candidate) -> bool:
    """c is the entry printed right after p (row-major order)."""
    if len(p.idx) != len(c.idx) or not p.idx:
        return False
    return list(c.idx) > list(p.idx) and sum(abs(a - b) for a, b in zip(c.idx, p.idx)) <= 2 and \
        c.idx[-1] in (p.idx[-1] + 1, 0)


# ---------------------------------------------------------------- matching


def spells_input(n, ids) -> bool:
    """The integer sits in a bracketed list that is exactly the model's input ids (``[2, 3]`` for 我爱).

    >>> from symgpt.claims.extract import extract
    >>> [spells_input(n, (2, 3)) for n in extract("tokens = [2, 3], d = 2")]
    [True, True, False]
    """
    if n.kind != "integer":
        return False
    for m in re.finditer(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]", n.line_text):
        if m.start() <= n.col < m.end():
            return tuple(int(x) for x in m[1].split(",")) == tuple(ids)
    return False
