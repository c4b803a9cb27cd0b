"""Where a figure stands says what it is: a label read from the document's structure.

A figure's *label* is the name and the indices its place gives it, read before its value is looked at:

* the left side of its equation: ``A[2,1] = 0.3901``, ``p(sat) = 0.2772``, ``W_{0,球} ← … = 0.4157``,
  ``α₃₁ = 32.9%``, ``\\frac{\\partial L}{\\partial z_{球}} = -0.7835``;
* its place in a vector or matrix literal and the literal's name: ``dW = [[…], […]]``, a notebook's
  ``array([…])`` under the code cell ``dW``, ``Q = \\begin{pmatrix} … \\end{pmatrix}``;
* its table: the row's and the column's labels (``第 1 行``, ``t=1``, a token, ``step 3``) and the
  column's name (``loss``, ``p(sat)``), or the table itself as one matrix.

Labels are written as the author writes them; :mod:`symgpt.claims.notation` learns what each name means.

>>> from symgpt.claims.extract import extract
>>> text = "A[2,1] = 0.3901 and p(sat) = 0.2772"
>>> [str(x) for x in labels(text, extract(text), ["the", "sat"]).values()]
['A[2,1]', 'p[tok1]']
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass

from .aliases import DATA_ALIASES, MOMENTS, PROSE, STEP_WORDS
from .context import NUDGED
from .extract import HEADING, accented, decimal_comma, normal_line, spanned
from .figure import FORMATS

# ---------------------------------------------------------------- one label


@dataclass(frozen=True)
class Label:
    """A name and its indices as the document writes them (ints, ('tok', id) for a token, ('pos', k) for a
    position a token's header numbers, ``il (4)``, ('at', k) for the k-th place in a literal, which counts from 0
    whatever origin the text's own indices have)."""
    name: str
    index: tuple = ()
    of: str = ""          # the parameter a per-parameter table row is about (AdamW's m of W_{1,跑})
    state: str = ""       # a training state a table's column names: 'sgd[1]', 'adamw[1]' ('' the model)
    inner: int | None = None   # exp(−0.12) ≈ 0.8781: the figure (its index) whose quantity this is a function of
    ref: str = ""         # a quantity the place names outright: softmax_T(0.5, le) for the row 'T = 0.5'
    section: str = ""     # the heading (or slide) it stands under: a name means one tensor within a section
    fn: str = ""          # √(σ² + ε) = 0.5735: a function of the named quantity ('sqrt', 'sqrt+eps', 'exp', 'log')
    head: int | None = None   # the attention head its caption, line or section names ('head 2', 第 2 个头), as written
    sup: tuple = ()       # the numbers of a superscript on its name, as written: Q^{(1)} (a head or a layer), a^{(0,1)}

    def __str__(self) -> str:
        keys = [(f"tok{i[1]}" if i[0] == "tok" else str(i[1])) if isinstance(i, tuple) else str(i)
                for i in self.index]
        inner = ",".join(([self.of] if self.of else []) + keys)
        name = f"{self.state}.{self.name}" if self.state else self.name
        return f"{name}[{inner}]" if inner else name


# ---------------------------------------------------------------- text to plain symbols

GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
         "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
         "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
         "Delta": "Δ", "Sigma": "Σ", "Phi": "Φ", "Omega": "Ω"}
"""LaTeX's Greek letters as a reader sees them (``\\delta_v`` is δ_v)."""
LATEX = [(r"\\mathcal\{L\}|\\mathcal\s*L(?![A-Za-z])", "L"), (r"\\hat\{y\}|\\hat y\b", "ŷ"),
         (r"\\hat\s*\{([mv])\}|\\hat\s+([mv])(?![A-Za-z])", lambda m: (m[1] or m[2]) + "\u0302"),  # m̂, v̂: Adam's
         (r"\\text\{([^{}]*)\}|\\mathrm\{([^{}]*)\}|\\operatorname\{([^{}]*)\}|\\mathbf\{([^{}]*)\}|"
          r"\\boldsymbol\{([^{}]*)\}|\\hat\{([^{}]*)\}", None),
         (r"\\[dt]?frac\{\\partial\s*([^{}]*)\}\{\\partial\s*([^{}]*(?:\{[^{}]*\}[^{}]*)?)\}", r"∂\1/∂\2"),
         (r"\\[dt]?frac\s*(\d)\s*(\d)", r"(\1/\2)"),                    # \tfrac14: (1/4)
         (r"\\(?:sum|prod)(?:_\{[^{}]*\}|_\w)?(?:\^\{[^{}]*\}|\^\w)?", "Σ"),   # \sum_{j=1}^{4}: no clause
         (r"\\leftarrow|\\gets", "←"), (r"\\partial\s*", "∂"), (r"\\nabla\s*", "∇"),
         (r"\\left(?![a-z])|\\right(?![a-z])|\\,|\\;|\\!|\\quad", ""),
         (r"\\times", "×"), (r"\\cdot", "·"), (r"\\approx", "≈"),
         (r"\\to\b|\\rightarrow", "→"), (r"\\alpha", "α"), (r"\\mu", "μ"), (r"\\sigma", "σ"),
         (r"\\theta", "θ"), (r"\\eta", "η"), (r"\\lambda", "λ"), (r"\\epsilon|\\varepsilon", "ε"),
         (r"\\beta", "β"), (r"\\ln\b", "ln"), (r"\\log\b", "log"), (r"\\exp\b", "exp"), (r"\\sqrt", "√"),
         (r"\^\{2\}|\^2(?![\d.])", "²"), (r"\\ell(?![A-Za-z])", "ℓ"),
         (r"\\(" + "|".join(GREEK) + r")(?![A-Za-z])", lambda m: GREEK[m[1]])]
FULL_WIDTH = str.maketrans("＝，：（）［］；－＋×𝓛ℒ𝐿", "=,:()[];-+×LLL")     # (a script ℒ is the loss's L)
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def run_of(text: str) -> str:
    """The optimizer a heading or paragraph speaks of: 'adamw' if it names Adam, else 'sgd'.

    >>> run_of("5. AdamW step"), run_of("SGD")
    ('adamw', 'sgd')
    """
    return "adamw" if re.search(r"adam", text, re.I) else "sgd"


def plain(s: str) -> str:
    """A formula's text as plain symbols: LaTeX commands read, $ and full-width forms gone.

    >>> plain(r"$\\frac{\\partial L}{\\partial W_{1,\\text{球}}}$ ＝")
    '∂L/∂W_{1,球} ='
    >>> plain(r"\\(\\partial\\mathcal{L}/\\partial z_v\\)")
    '∂L/∂z_v'
    >>> plain(r"\\sigma^{2} = \\tfrac14\\sum_{j=1}^{4}(h_{3,j} - 0.3668)^{2} =")
    'σ² = (1/4)Σ(h_{3,j} - 0.3668)² ='
    >>> plain(r"$\\partial L / \\partial z_{\\text{ang}}$")
    '∂L/∂z_{ang}'
    """
    s = unicodedata.normalize("NFC", s)      # y + U+0302 (a PDF's ŷ) is the ŷ a tutorial types
    s = accented(s.translate(FULL_WIDTH)).replace("$", "").replace("−", "-").replace("&", "").replace("`", "")
    s = re.sub(r"\\[()\[\]]", "", s)          # MathJax's \( … \) and \[ … \]: delimiters, like $
    s = BOLD_ACCENT.sub(lambda m: unicodedata.normalize("NFC", m[2] + ACCENT_MARKS[m[1]]), s)
    for rx, to in LATEX:
        s = re.sub(rx, (lambda m: next(g for g in m.groups() if g is not None)) if to is None else to, s)
    s = SPACED_QUOTIENT.sub(r"\1/", s)       # ∂L / ∂z_{ang}: one symbol, ∂L/∂z
    return s.replace("\\", "")


SPACED_QUOTIENT = re.compile(r"((?:∂|\bd)[LℒJ])\s+/\s+(?=(?:∂|d)\w)")
r"""A derivative written with spaces round its bar (``\partial L / \partial z``)."""


BOLD_ACCENT = re.compile(r"\\(hat|tilde|bar)\s*\{\s*\\(?:mathbf|boldsymbol|bm|vec|mathrm)\s*\{\s*([A-Za-z])\s*\}\s*\}")
"""An accent over a bold letter (``\\hat{\\boldsymbol{h}}``): the accented letter, ĥ (not h, not ``hat{h}``)."""
ACCENT_MARKS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304"}


# ---------------------------------------------------------------- a name and its indices

NAME = r"(?:∂L/∂|dL/d|∇_?)?[A-Za-z\u0370-\u03ffℓ∂ŷ][\w.'′\u0302\u0303\u0304]*"
INDEX = r"(?:\[[^\[\]]{1,24}\](?:\[[^\[\]]{1,24}\])?|_\{[^{}]{1,24}\}|_[0-9A-Za-z\u4e00-\u9fff]|[₀-₉]+|\([^()]{1,16}\))"
LHS = re.compile(rf"({NAME})\s*({INDEX})?\s*(?:\^\{{?\([\d,\s]*\)\}}?)?['′]*$")
#     (a superscript of numbers is a layer, head or step the notation reads; p^{(τ,3)} is another quantity)
IS = r"\bis\b|\bbecomes\b|\bequals\b|\bvaut\b|\best\b|\bist\b|\bbeträgt\b|\bes\b|\bvale\b|变为|为|是|" \
     r"\bwordt\b|\bwynosi\b|\bdiventa\b|\bfica\b|\bqueda\b|становится|\bравн[оа]\b|\bolur\b|\bmenjadi\b"
"""The words that say a name's value follows (English, French, German, Spanish, Chinese)."""
RELATION = re.compile(rf"(?:=|≈|←|:(?!=)|\bto\b|{IS})\s*$")
CLAUSE = re.compile(r"[;；。]|[,，、](?=\s*[^\d\s(+\-−.])|"
                    r"\b(?:and|und|et|и|và|ve|oraz|och|og|dan|و)\b|\bwhile\b|(?<!\S)(?:এবং|ও|और|तथा|اور|மற்றும்)(?!\S)|"
                    r"\b(?:y|e|i|en|és|ja|și|και|та|і|na)\b(?=\s+\$?\\?[^\W\d][\w{}\\^']*\s*\$?\s*=)|"
                    r"(?<=[\d)\]])\.\s+(?=[^\W\d_])")
#                     (a sentence's end after a figure, '… = 0.4598. Từ đó n_{2,1} = …', ends the clause too;
#                      'and' in more languages only before a name's equation: 'm_1 = … y v_1 = …', not 'y = 1')
SIGNED_NEXT = re.compile(r"\s+[-−+]\d")
"""A signed entry after spaces, with no space after its sign (NumPy's ``[ 0.0990  -0.1419 ]``, ``[-0.99 +0.99]``
with ``sign='+'``): no subtraction, no addition."""
OPERAND_NEXT = re.compile(r"[)\]]?\(|\s*+[)\]]?+\s*+\$*+\s*+(?:[×*/÷^·+=≈]|\\times|\\cdot|\\div|[-−]\s*[\d(])")
#              what follows an operand, not an equation's result: 0.05 in '… = 0.05 + 0.18', (−0.1)(0.2)
FUNCTION_OF = re.compile(r"(?:√|e\^|(?:sqrt|exp|\bln|\blog)(?![A-Za-z]))\s*(?:\([^()=]*\)|\{[^{}=]*\}|[^\s=]+)\s*$")
NEW = re.compile(r"\bnew\b|_new\b|(?<=[\]\w])new\b|\^\{?new\}?|\bupdated\b|新的?|更新后的?|nouve(?:au|lle)|"
                 r"\bneue?[rs]?\b", re.I)
BULLET = re.compile(r"^(?:[*•·▪‣+-]|\d{1,2}[.)])\s+")
ENTRY_MENTION = re.compile(r"(?<![\w\\])[A-Za-z][A-Za-z0-9_]{0,8}(?:\s*\[[^\[\]\n]{1,24}\](?:\s*\[[^\[\]\n]{1,24}\])?"
                           r"|_\{[^{}\n]{1,24}\}|[₀-₉]{2,}|\([^()\n]{1,16}\)(?:_\{[^{}\n]{1,8}\}|_\w|[₀-₉]+))(?![\w(])")
#                            W[0, bellt], W_{0,bellt}, W₃₄, E(猫)₃: an entry of a parameter
FROM_TO_WORDS = (("von", "auf|zu"), ("from", "to"), ("de", "à|a|para"), ("da", "a"), ("de la", "la"),
                 ("fra", "til"), ("från", "till"), ("van", "naar|tot"), ("z", "na|do"), ("с", "до|на"),
                 ("dari", "menjadi|ke"), ("từ", "lên|xuống|thành"), ("από", "σε|στο"), ("من", "إلى"))
"""Each language's own 'from' and 'to' (Czech 'z 0,36 a 0,28' is 'of 0,36 and 0,28': no pair)."""
FROM_TO = re.compile("|".join(rf"(?<!\w){f}\s*(\S+?)\s*%?\s*(?:{t})(?!\w)\s*$" for f, t in FROM_TO_WORDS) +
                     r"|从\s*(\S+?)\s*%?\s*(?:降到|升到|降至|升至|变为|变成|到)\s*$"
                     r"|(\S+?)\s*%?\s*(?:から|より)\s*$", re.I)     # 'from A to B' ('fra 21,48 % til …', 'de 0,5 a …')
SCALED_DOT = re.compile(r"(?<![A-Za-z])q_?\{?(\d+)\}?\s*[·⋅]\s*k_?\{?(\d+)\}?\s*/\s*√\s*[{(]?\s*"
                        r"(?:\d+(?:\.\d+)?|d_?\{?k\}?)\s*[})]?\s*$")   # q_t · k_s / √d_k: the score of t on s
DEFINITION = re.compile(r"(?<![\w\\/∂])([^\W\d_pyzLxWE])(?:_\{?[a-z]\}?)?\s*=\s*([^=]+?)\s*(?:=|$)")
LOGIT_GRADIENT = re.compile(r"(?:ŷ|p|π|q|\\hat\{y\}|softmax\([^()]*\))(?:_\{?[a-z]\}?)?\s*-\s*(?:y|t|onehot|one-hot)"
                            r"(?:_\{?[a-z]\}?)?")          # ŷ_j − y_j: the gradient of the logits
OPTIMIZER_STATE = re.compile(r"state\[\s*(\w+)\s*\]\s*\[\s*['\"](exp_avg(?:_sq)?)['\"]\s*\]")   # PyTorch's Adam
SOFTMAX_GRADIENT = re.compile(r"(?:[δΔ]\w*=)?(?:p|π|ŷ|probs?)(?:_\{?\w+\}?|\[\w+\])?-(?:y|onehot|one_hot)"
                              r"(?:_\{?\w+\}?|\[\w+\])?")
"""A header that writes the gradient at the logits as its formula: ``p − y``, ``p_v − y_v``, ``δ = p − y``."""
LETTER_INDEX = re.compile(r"(?:_\{?[a-z]\}?|\[[a-z]\])(?=[)}]?$)")   # z_{j}, p[j], exp(z[j]), e^{s_{j}}: an index
LETTER_LAST = re.compile(r"_\{([^\W\d]\w*),\s*[a-z]\}(?=[)}]?$)")    # γ_{f,j}: γ_f, its index j over the columns
VALUE_WORDS = {"wert", "value", "valeur", "值", "weight", "gewicht"}     # 'neuer Wert …', 'new value …'
LEAD_LINES = 12          # a lead-in names the entry of the lines below it, back to the heading and this far
WORDS = {"the", "a", "an", "of", "and", "so", "then", "thus", "here", "now", "that", "which", "its", "it",
         "we", "get", "gives", "give", "is", "are", "be", "becomes", "to", "with", "for", "in", "on", "at"}


def _keys(inner: str, vocab) -> tuple | None:
    """Indices as written: '2,1' → (2, 1); '0, 球' → (0, tok); '3→1' → (3, 1); '31' → (3, 1)."""
    inner = re.sub(r"vocab\.index\(\s*['\"]([^'\"]+)['\"]\s*\)", r"\1", inner)
    inner = inner.strip().strip("[](){}_")
    inner = inner.replace("][", ",").replace("→", ",").replace("->", ",")
    parts = [p.strip().strip("'\"") for p in inner.split(",")]
    if len(parts) == 1 and re.fullmatch(r"\d\d", parts[0]):
        parts = list(parts[0])
    out = []
    for p in parts:
        if re.fullmatch(r"\d{1,4}", p):
            out.append(int(p))
        elif p in vocab:
            out.append(("tok", vocab.index(p)))
        else:
            return None
    return tuple(out)


def named(head: str, vocab, heading: str = "") -> Label | None:
    """:func:`parse_label` of a left-hand side that may say it is the value after a training step
    (``E[1]new``, ``W_new``, ``新的 W``, ``W ←``): then its state is ``sgd[1]`` (``adamw[1]`` under a
    heading about AdamW).

    >>> str(named("E[1]new", ["a", "b"])), str(named("W_new", [])), str(named("W", []))
    ('sgd[1].E[1]', 'sgd[1].W', 'W')
    >>> v = Words(["a", "b"], {"E", "A", "Q"}, {"E"})       # a transformer: Q^{(1)} is of layer 1
    >>> str(named("E^{(1)}_{b,0}", v, "5. AdamW")), str(named("E⁽⁰⁾_{b}", v)), str(named("Q^{(1)}_{0}", v))
    ('adamw[1].E[tok1,0]', 'E[tok1]', 'Q[0]')
    >>> str(named("z^{(1)}_{b}", Words(["a", "b"], {"E", "W", "z"}, {"E", "W"})))    # a bigram: z after a step
    'sgd[1].z[tok1]'
    >>> str(named("J''", [])), str(named(r"\\mathcal{L}'", [], "AdamW"))
    ('sgd[2].loss', 'adamw[1].loss')
    >>> bigram = Words(["a", "b"], {"E", "W", "z"}, {"E", "W"})
    >>> str(named("W^{(1)}", bigram)), str(named("W⁽²⁾", bigram))
    ('sgd[1].W', 'sgd[2].W')
    >>> str(named("e''_1", bigram)), str(named("q'_{b}", bigram)), str(named("h'_1", v))
    ('sgd[2].e[1]', 'sgd[1].q[tok1]', "h'[1]")
    """
    optimizer = run_of(heading)
    step = STEP_SUPERSCRIPT.search(plain(head))
    if step and (step["name"] in getattr(vocab, "params", ()) or getattr(vocab, "stepped", False)):
        #                                                          E^{(1)}_{gato}: E after the first step
        k = int(step["k"] or "⁰¹²³".index(step["s"]))
        lab = parse_label(step["name"] + (step["rest"] or ""), vocab)    # W^{(1)} alone: no index after it
        return lab if lab is None or k == 0 else Label(lab.name, lab.index, lab.of, f"{optimizer}[{k}]")
    primed = parse_label(head, vocab) if re.search(r"['′″‴]", head) else None
    if primed is not None and primed.state.startswith("sgd["):       # L', J'', a bigram's e''_1: after steps
        return Label(primed.name, primed.index, primed.of, primed.state.replace("sgd", optimizer))
    new = NEW.search(plain(head))
    lab = parse_label(NEW.sub("", plain(head)) if new else head, vocab)
    if lab is None or not new:
        return lab
    return Label(lab.name, lab.index, lab.of, f"{optimizer}[1]")


PRIMED_LOSS = re.compile(r"(?<![\w\\])(L|J|ℒ|\\mathcal\{L\})\s*(['′]{1,3}|″|‴)$")
"""The loss written with primes, one per training step."""
PRIMED = re.compile(r"(?P<name>[^\W\d_]\w*?)(?P<primes>['′]{1,3}|″|‴)(?P<rest>_\{[^{}]*\}|_\w+|\[[^\]]*\]|\([^()]*\))?")
"""A name with primes, one per training step (read so in a model without layers: a bigram's ``e''_1``)."""


def _primes(marks: str) -> int:
    """The steps a run of primes counts: ``''`` and ``″`` are two."""
    return sum({"″": 2, "‴": 3}.get(c, 1) for c in marks)


STEP_SUPERSCRIPT = re.compile(r"(?<![\w\\])(?P<name>[^\W\d_]\w*?)(?:\^\{?\((?P<k>\d)\)\}?|⁽(?P<s>[⁰¹²³])⁾)"
                              r"(?P<rest>_\{[^{}]*\}|_\w+|\[[^\]]*\]|\([^()]*\))?\s*$")
"""A parameter's name with the step in a superscript (``E^{(1)}``, ``W⁽⁰⁾``): in a model whose parameters are
not per layer (a layer's own are ``l0.W_Q``) it can only be the step; an activation's is its layer."""


WHERE = r"(?:\^\{?[(\[]\d+(?:,\d+)?[)\]]\}?|⁽[⁰¹²³⁴⁵⁶⁷⁸⁹]+⁾)"   # ^{(2)}, ^{(1,2)}, ^{[1,2]}, ⁽²⁾: layer (and head)


def unmarked(s: str, vocab=()) -> str:
    """A left side without the superscripts saying which layer (and head) it stands in: its name and indices
    name the quantity, its section says which layer (:mod:`symgpt.claims.notation`).  A parameter of the
    vocabulary's keeps its superscript: the step it is at (:data:`STEP_SUPERSCRIPT`).

    >>> unmarked("h'^{(2)}_{0,1}"), unmarked("(σ^{(2)})²"), unmarked("μ^{(2)}"), unmarked("h_{0,0}^{′(2)}")
    ("h'_{0,1}", 'σ²', 'μ', 'h_{0,0}^{′}')
    >>> unmarked("E^{(1)}_{el,0}", Words([], {"E"}, {"E"}))
    'E^{(1)}_{el,0}'
    """
    s = re.sub(rf"\(([^()\s]+?){WHERE}\)²", r"\1²", s)                  # (σ^{(2)})²: σ of layer 2, squared
    s = re.sub(r"\^\{(['′]+)\(\d+(?:,\d+)?\)\}", r"^{\1}", s)        # h^{′(2)}: h' of layer 2
    params, stepped = getattr(vocab, "params", ()), getattr(vocab, "stepped", False)
    return re.sub(rf"(?<![\w\\])([^\W\d_]\w*?)?({WHERE})",
                  lambda m: m[0] if m[1] in params or m[1] and stepped else (m[1] or ""), s)


def parse_label(lhs: str, vocab) -> Label | None:
    """The label a left-hand side writes, or None.

    >>> v = ["猫", "吃", "鱼"]
    >>> [str(parse_label(s, v)) for s in ("A[2,1]", "p(鱼)", "W_{0,吃}", "α31", "∂L/∂z_{鱼}", "the loss", "σ_3²")]
    ['A[2,1]', 'p[tok2]', 'W[0,tok1]', 'α[3,1]', '∂L/∂z[tok2]', 'loss', 'σ²[3]']
    >>> [str(parse_label(s, v)) for s in ("∇_{x}J", "∂J/∂W_{1,吃}", "L(θ + h)", "J(w − ε)")]
    ['∂L/∂x', '∂L/∂W[1,tok1]', 'None', 'None']
    >>> w = Words(v, {"W_2", "b_1"})
    >>> [str(parse_label(s, w)) for s in ("W₂", "W_{2}", "b₁", "x₂")]
    ['W_2', 'W_2', 'b_1', 'x[2]']
    """
    s = BULLET.sub("", unmarked(plain(lhs)).strip().rstrip("=≈←:").strip())      # '* m = …': a list item's name
    if NUDGED.match(s):
        return None              # L(θ + h): a nudged model's loss (a gradient check's), not the loss
    primed = re.match(r"(∂\s*(?:[LJEC]|ℒ|𝓛|𝒥))(['′″]+)(\s*/\s*∂.+)", s)
    if primed:                   # ∂L'/∂W_{1,b}: the gradient after a step, at the model the step made
        lab = parse_label(primed[1] + primed[3], vocab)
        k = _primes(primed[2])
        return lab if lab is None or lab.state else Label(lab.name, lab.index, lab.of, f"sgd[{k}]")
    primed = PRIMED_LOSS.search(s)
    if primed and primed.start() == len(re.match(r"(?:.*\s)?", s)[0]):   # (…) L' and J'': the loss after steps
        return Label("loss", (), "", f"sgd[{_primes(primed[2])}]")
    primed = PRIMED.fullmatch(s) if getattr(vocab, "stepped", False) and s not in NEW_VALUE else None
    #                                   (θ' is the entry a lead-in names, after the step: read where it stands)
    if primed:                   # a bigram's e''_1, q': after two steps, one (it has no layers a prime could mark)
        lab = parse_label(primed["name"] + (primed["rest"] or ""), vocab)
        k = _primes(primed["primes"])
        return lab if lab is None or lab.state else Label(lab.name, lab.index, lab.of, f"sgd[{k}]")
    s = re.sub(r"^(.+?)(_\{?\d+(?:,\d+)*\}?)²$", r"\1²\2", s)                         # σ_3²: σ² of row 3
    s = re.sub(r"^\(\s*(?:∇_?\{?([^{}\s∇()]+?)\}?\s*(?:[LJEC]|ℒ|𝓛|𝒥|loss)?|∂L/∂([^()\s]+))\s*\)(?=_|\[)",
               lambda m: "∂L/∂" + (m[1] or m[2]), s)                          # (∇_e ℒ)_1, (∂L/∂x)_2: its entry
    s = re.sub(r"^∇_?\{?([^{}\s∇]+?)\}?\s*(?:[LJEC]|ℒ|𝓛|𝒥|loss)?$", r"∂L/∂\1", s)   # ∇_W ℒ, ∇_{x}J: ∂L/∂W
    s = re.sub(r"^∂\s*(?:[JEC]|ℒ|𝓛|𝒥)\s*/\s*∂", "∂L/∂", s)                       # ∂J/∂W: the loss is J here
    s = re.sub(r"(?:(?<=[^\W\d_])|(?<=\)))[₀-₉]+(?=['′]*$|[²\s])", lambda m: "_{" + m[0].translate(SUBSCRIPTS) + "}", s)
    s = s.translate(SUBSCRIPTS) if re.search(r"[₀-₉]", s) else s      # W₃₄ is W_{34}: row 3, column 4
    if (flat := re.sub(r"_\{(\d+)\}$", r"_\1", s)) in getattr(vocab, "names", ()):
        s = flat                                                       # W₂, W_{2}: the model's W_2, as W_2 is
    s = re.sub(r"(?<=[^\W\d_])\(([^()]{1,16})\)_\{?([^{}]{1,8}?)\}?$", r"[\1,\2]", s)    # E(猫)_3: E[猫,3]
    s = re.sub(r"^\(([^\W\d]\w*)\)(?=_|\[)", r"\1", s)                             # (W_out)_{3,3}: W_out's
    m = LHS.search(s)
    words = re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", " ", s[:m.start()]) if m else ""   # cross-entropy: no minus
    if not m or re.search(r"[-+×*/·=<>⊙∘]", re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", words)):
        return None                            # p - y = …: an expression, not one name
    name, index = m[1], m[2] or ""
    if not index:                              # α31, mu1 stay whole unless they end in two digits after a Greek
        g = re.fullmatch(r"([\u0370-\u03ff])(\d\d?)", name)
        if g:
            name, index = g[1], g[2]
    split = re.fullmatch(r"(.+?)_\{?(\d+(?:,\d+)*)\}?", name) if not index else None
    if split and name not in getattr(vocab, "names", ()):
        name, index = split[1], "[" + split[2] + "]"          # z_2, x_0: an entry; W_1, b_2, d_k: names
    if name in vocab and not index:
        return Label("token", (("tok", vocab.index(name)),))     # dort : 0.2252: the token's entry of the section's
    if name in WORDS and "," not in index or len(name) > 24:     # distribution ('a' is a name only with two
        return None                                              # indices: a_{3,2}, an attention weight)
    keys = _keys(index, vocab) if index else ()
    if keys is None:
        return None
    return Label(name, keys)


FUNCTIONS = {"exp", "log", "ln", "sqrt", "softmax", "frac", "cdot", "times", "sum", "max", "min", "mathrm",
             "text", "dfrac", "approx", "left", "right", "big", "Big"}


def _arithmetic(chain: str, vocab=()) -> bool:
    """Only figures, operators, functions, short names and the vocabulary's tokens as indices (``p'(تشرب)``): an
    equation's chain, not a sentence.

    >>> _arithmetic("x'1 × (p'(تشرب) − 1)", ["تشرب"]), _arithmetic("0.5 × 2", []), _arithmetic("我们得到 0.5", [])
    (True, True, False)
    >>> _arithmetic("x_1 (ŷ_{içerim} − y_{içerim}) = 0.3 × 0.1463", ["içerim"])      # a token as a subscript
    True
    """
    words = sorted((w for w in vocab if isinstance(w, str) and len(w) > 1), key=len, reverse=True)
    if words:
        chain = re.sub(r"[(\[,{]\s*(?:" + "|".join(map(re.escape, words)) + r")\s*(?=[)\],}])", "(", chain)
    return not re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", chain) and \
        all(w in FUNCTIONS for w in re.findall(r"[^\W\d_]{3,}", chain) if not re.fullmatch(r"[\u0370-\u03ff]+", w))


FUNCTION_LABEL = re.compile(r"(√|e\^|(?:sqrt|exp|ln|log)(?![A-Za-z]))\s*[({]?\s*(.+?)\s*"
                            r"(?:\+\s*(ε|eps|epsilon))?\s*[)}]?\s*$")


def _function_label(head: str, vocab) -> Label | None:
    """``√(σ² + ε)``, ``exp(z_2)``, ``√d_k``: the function and the name it is of.

    >>> lab = _function_label("√(σ²+ε)", [])
    >>> lab.name, lab.fn, str(_function_label("exp(z_2)", []))
    ('σ²', 'sqrt+eps', 'z[2]')
    """
    m = FUNCTION_LABEL.search(head)
    lab = parse_label(m[2], vocab) if m else None
    if lab is None:
        return None
    fn = {"√": "sqrt", "e^": "exp", "ln": "log"}.get(m[1], m[1])
    return dataclasses.replace(lab, fn=fn + ("+eps" if m[3] else ""))


CONTINUES = re.compile(r"\s*+\$*+\s*+&?+\s*+(?:\\q?quad\s*+)*+(?:[-+−=≈]|\\approx)")   # (possessive: linear)


def _continued(n, lines: list, vocab) -> Label | None:
    """The result of an equation wrapped over lines (``k_{3,2} &= … \\\\`` then ``&\\qquad + … = -0.345``):
    the left side of the line it continues, up to three lines above."""
    if n.kind == "integer" or not CONTINUES.match(n.line_text) or \
            not re.search(r"[=≈]\s*\$*\s*$", n.line_text[:n.col]):
        return None
    rest = n.line_text[n.col + len(n.text):]
    if OPERAND_NEXT.match(rest):
        return None
    for k in range(n.line - 2, max(-1, n.line - 5), -1):
        above = lines[k]
        if not above.strip():
            return None
        if not CONTINUES.match(above):
            head = re.split(r"=|≈|\\approx", plain(above))[0]
            lab = named(head, vocab, n.heading) if re.search(r"[=≈]|\\approx", above) else None
            return dataclasses.replace(lab, sup=_superscript(head)) if lab is not None else None
            #      (e^{(2)}_{31} = \frac{…} ⏎ = … = −0.5152: head 2's, as the line it continues says)
    return None


def _clause(left: str) -> str:
    """The last clause of a line's text, commas inside brackets kept: ``x, W_{0,球} ← `` → ``W_{0,球} ← ``."""
    depth = 0
    for i in range(len(left) - 1, -1, -1):
        ch = left[i]
        depth += ch in ")]}"
        depth -= ch in "([{"
        if depth <= 0 and CLAUSE.match(left, i) and (depth == 0 or ch in ";；。"):
            return left[i + len(CLAUSE.match(left, i)[0]):]
        if depth < 0:
            return left[i + 1:]          # inside an open bracket: the clause starts after it
    return left


def _lhs_of(n, vocab, start: int = 0, lines: list | None = None) -> Label | None:
    """The label of a figure that closes its clause's equation: the clause's left-hand side.

    ``start`` is where the previous figure of the line ends: ``p(<s>) = 0.160    p(we) = 0.322`` names
    0.322 by the text after 0.160; ``L = -ln 0.2165 = 1.5302`` names 1.5302 by the clause's head.
    With the document's ``lines``, a step's words (``Schritt …``, ``neuer Wert …``) name the state of the
    entry a lead-in names (:func:`_of_entry`).
    """
    if n.kind == "integer":
        return None                            # a count, an id, a size: read by the matcher's own rules
    left = n.line_text[:n.col]
    rest = n.line_text[n.col + len(n.text):]
    if OPERAND_NEXT.match(rest):
        return None                            # an operand: 0.05 in … = 0.05 + 0.18 + 0.06
    if not RELATION.search(plain(left[-12:]).rstrip(" [(")) and not re.search(r"[=≈]\s*[\[(]?\s*$", left):
        word = re.search(r"(?<![\w-])([^\W\d_]{3,})\s*$", left[start:])
        step = next((w for w in re.findall(r"[^\W\d_]+", left[start:])[-3:] if w.lower() in STEP_WORDS), None)
        if step and lines is not None:        # 'Zerfall 4.0e-05', 'der Schritt wäre dann …' under a lead-in
            return _of_entry(Label(STEP_WORDS[step.lower()]), n, lines, vocab, strict=True)
        return Label(word[1]) if word and word[1].lower() in PROSE else None     # 'its variance 1.053'
    lhs = re.search(r"([^=≈:,;]*)[=≈]\s*$", plain(left))
    tail = CONSTANT_TAIL.search(lhs[1].rstrip()) if lhs else None
    if tail and not re.search(r"[-+−×*/·÷^)\]\d]\s*$", lhs[1][:tail.start()]) and \
            (const := _constant(tail[0])) is not None:      # (not q·k / √2 = …: the constant is one operand)
        return Label("const", ref=const)       # '… 균등 분포였다면 ln 5 ≈ 1.6094', '√(2/π) = 0.7979': the number
    qk = SCALED_DOT.search(lhs[1]) if lhs else None
    if qk:
        return Label("S", (int(qk[1]), int(qk[2])))           # q_2 · k_1 / √2 = …: the score S[2,1]
    opened = left.rfind("$")
    inline = left[opened + 1:] if left.count("$") % 2 == 1 and "$$" not in left and "=" in left[:opened] else left
    #        (inside $…$ after another equation: '$m_1 = … = −0.0024$ na $v_1 = … = 5.75·10⁻⁷$' names v_1)
    for first, clause in ((True, unmarked(_clause(plain(left[start:])), vocab)),
                          (False, unmarked(_joined(_clause(plain(inline))), vocab))):
        parts = re.split(rf"(=|≈|←|:(?!=)|{IS})", clause)
        j = len(parts) - 3
        while first and j >= 3 and EXPRESSION.search(parts[j]) and not FUNCTION_OF.search(plain(parts[j])):
            j -= 2                         # '… is ∂L/∂z_t = p − y = 0.19': the name before the formula
        for k in ({j, 0} if first and j >= 0 else {0}):
            if (last := _trailing_symbol(parts[k])) is not None and named(parts[k], vocab, n.heading) is None \
                    and named(last, vocab, n.heading) is not None:
                parts[k] = last            # '… je tedy gradient ∂L/∂z_{mléko} = …': the symbol after the words
        head = parts[0]
        if first and j >= 2 and POWER_OF_NAME.fullmatch(plain(parts[j])):
            return None                    # '… ≈ 1,048: z^3 ≈ 1,1505': a power of z, not the z named before
        if first and j >= 2 and parts[j].strip() and re.search(NAME_LETTER, parts[j]) \
                and named(parts[j], vocab, n.heading) is not None and \
                not re.match(r"\s*[-−]\s*(?:ln|log)(?![A-Za-z])", plain(parts[j])) and \
                not (FUNCTION_OF.search(plain(parts[j])) and (_function_label(plain(parts[j]), vocab) is None or
                                                             re.match(r"\s*[-−]", plain(parts[j])))):
            head = parts[j]                # 'the variance is σ² = 0.412': the name nearest the figure
            #                  (not 'L = −ln ŷ_3 = …' nor 'L = − ln P(milk) = …': a formula, or a function negated)
            said = _gradient_said_as_p(parts[j - 2], named(head, vocab, n.heading))
            if said is not None:
                return said
        if first and len(parts) == 3 and re.fullmatch(r"\s*[-−+×*/·]\s*[^\s()=]+\s*", head):
            continue                   # '1 − ŷ_{3} = …' after the figure 1: its operand, the clause names it
        if not first and not _arithmetic("".join(parts[2:]), vocab):
            return None                # d = 3 时…是 10000^{2/3} ≈ 464.16: the head's equation ended before
        if len(parts) >= 5 and (const := _constant(parts[-3])) is not None:
            return Label("const", ref=const)   # 'uniform, L = ln 5 = 1.6094': the number ln 5, not this model's L
        if head.strip() and re.search(NAME_LETTER, head):
            if FUNCTION_OF.search(plain(head)):
                return _function_label(plain(head), vocab)   # √d_k, exp(z): a function of the name
            lab = formula_label(named(head, vocab, n.heading), parts[2:-1:2] if head is parts[0] else [], vocab)
            if lab is None and lines is not None and (lead := _leading_words(head, n.heading)) is not None:
                lab = _of_entry(lead, n, lines, vocab, strict=True)
            if lab is not None and len(parts) > 1 and parts[1] == "←" and not lab.state:
                lab = Label(lab.name, lab.index, state=f"{run_of(n.heading)}[1]")   # W ← W − η·g: after the step
            return lab
    return None


def _joined(clause: str) -> str:
    """The last of equations a conjunction joins in one clause (``m̂ = … = −0.386 e v̂ = 0.000149 / 0.001 =``
    → ``v̂ = 0.000149 / 0.001 =``): a figure closes the equation it stands in.

    >>> _joined("m = 0.1 / 0.1 = 1 e v = 0.2 / 0.1 ="), _joined("x = a and b =")
    ('v = 0.2 / 0.1 =', 'x = a and b =')
    """
    parts = re.split(rf"(?<=\d)(?:{AND.pattern})(?=[^\W\d][\w\u0302\u0303\u0304'′]{{0,12}}\s*[=≈])", clause)
    return parts[-1] if len(parts) > 1 and re.search(r"[=≈]", parts[0]) else clause


POWER_OF_NAME = re.compile(r"\s*(?!σ)[^\W\d_][\w{},]*?(?:\^\{?[2-9]\}?|[²³⁴])\s*")
"""A name raised to a power (``z^3``, ``x²``): a function of the name, not the name (σ² is the variance).

>>> [bool(POWER_OF_NAME.fullmatch(s)) for s in (" z^3 ", " x² ", " σ² ", " z_{3} ")]
[True, True, False, False]
"""
LOGITS_GRADIENT_NAME = re.compile(r"\s*(?:d|grad_|∂L/∂|dL/d|∂ℒ/∂|∂\\mathcal\{?L\}?/∂)(?:logits?|z|ℓ)\s*"
                            r"|\s*(?:logits?|z)\.grad\s*")
"""The whole gradient of the logits, spelled without an entry: ``dlogits``, ``∂L/∂z``, ``logits.grad``."""


WORD_LETTER = r"[^\W\d_₀-₉⁰-⁹]"
"""A letter of a word: not a digit, nor a sub- or superscript digit (``h₁`` is a symbol, not a word)."""
NOT_PROSE = FUNCTIONS | {"ln", "log", "exp", "sin", "cos", "tanh", "relu", "gelu"}
"""Words before a symbol that make it a function's argument, not the name a sentence ends on."""


def _trailing_symbol(part: str) -> str | None:
    """A symbol that ends words before an equals sign (``tedy gradient ∂L/∂z_{mléko}`` → ``∂L/∂z_{mléko}``): the
    last run without spaces outside braces, when words stand before it and it holds a letter of a name (None else).

    >>> _trailing_symbol(" tedy gradient ∂L/∂z_{mléko} "), _trailing_symbol(" σ² "), _trailing_symbol("the x_{a b}")
    ('∂L/∂z_{mléko}', None, 'x_{a b}')
    >>> _trailing_symbol("−ln p_{a}"), _trailing_symbol("softmax z"), _trailing_symbol("h₁ W_2 ")   # no prose
    (None, None, None)
    """
    depth, k = 0, len(part.rstrip())
    for i in range(k - 1, -1, -1):
        ch = part[i]
        depth += ch in "})]"
        depth -= ch in "{(["
        if ch.isspace() and depth == 0:
            last, before = part[i + 1:k], part[:i]
            words = re.findall(rf"{WORD_LETTER}{{2,}}", before)
            prose = words and not re.search(r"[-−+×/·=^\\]", before) and words[-1].lower() not in NOT_PROSE
            return last if prose and re.search(NAME_LETTER, last) else None
    return None


def _gradient_said_as_p(outer: str, inner) -> Label | None:
    """The logits' gradient an equation says is a token's probability (``dlogits = p(nasi) = 0.2269``): the
    chain claims the gradient's entry for that token, which is p only away from the target (forgot −y there).

    >>> str(_gradient_said_as_p("dlogits ", Label("p", (("tok", 3),))))
    'grad_logits[tok3]'
    >>> _gradient_said_as_p("L ", Label("p", (("tok", 3),))), _gradient_said_as_p("dlogits", Label("p", ()))
    (None, None)
    """
    outer = (plain(outer).split() or [""])[-1]      # ('Für das Ziel t gilt dlogits = …': its last word)
    if inner is None or inner.name not in ("p", "ŷ", "probs") or not inner.index or inner.state \
            or not LOGITS_GRADIENT_NAME.fullmatch(outer):
        return None
    return Label("grad_logits", inner.index)


def _subscripted(s: str) -> str:
    """Unicode subscript digits after a letter as an underscore's: ``W₁`` is ``W_1``.

    >>> _subscripted("z = x · W₁ + b₁")
    'z = x · W_1 + b_1'
    """
    return re.sub(r"(?<=[A-Za-z])([₀-₉]+)", lambda m: "_" + m[1].translate(SUBSCRIPTS), s)


def formula_label(lab: Label | None, formulas, vocab) -> Label | None:
    """The label of a name a formula defines: the formula's parameters make one tensor, and that tensor is the
    name's, whatever the name's letter means elsewhere.  ``z = u W_1 + b_1 = (…)`` is the FFN's Z (W_1 and
    b_1 make it), not the logits the letter z names alone; ``h = x W_Q`` is Q.  A name that already is that
    tensor, a formula with no parameter or with parameters of several tensors, keeps ``lab``.

    >>> v = Words([], {"Z", "W_1", "b_1", "logits", "E"}, {"W_1", "b_1", "E"}, made_by={"W_1": "Z", "b_1": "Z"})
    >>> str(formula_label(Label("z", (2,)), [" u W_1 + b_1 "], v)), str(formula_label(Label("z"), [" u·W "], v))
    ('Z[2]', 'z')
    >>> str(formula_label(Label("z"), [" h E^T "], v)), str(formula_label(Label("z"), [], v))
    ('z', 'z')
    """
    made_by = getattr(vocab, "made_by", None)
    if lab is None or not made_by or lab.state or lab.of:
        return lab
    made = set()
    for formula in formulas:
        if not EXPRESSION.search(plain(formula)) and not re.search(r"[A-Za-z]\s+[A-Za-z]", plain(formula)):
            continue                   # a name, not a formula (o₂ in 'position: o₂ = …')
        flat = _subscripted(plain(formula)).replace("{", "").replace("}", "")
        for word in re.findall(r"[A-Za-z]\w*(?:_\{\w+\}|_\w+)?", flat):
            if word in made_by:
                made.add(made_by[word])
            elif word in getattr(vocab, "params", ()):
                return lab             # a parameter that makes several tensors (a tied E): the formula says no one
    if len(made) != 1:
        return lab
    out = made.pop()
    return lab if lab.name.rpartition(".")[2] == out else Label(out, lab.index, section=lab.section, head=lab.head,
                                                                 sup=lab.sup)


EXPRESSION = re.compile(r"[\w)}]\s*[-−+×*/·÷]\s*[\w(√]")
"""Two operands and an operator between them (``p − y``, ``x·W``): a formula, not a name."""
PI = re.compile(r"\s*(?:((?:√|sqrt)\s*\(?\s*2\s*/\s*)(?:π|pi)\s*\)?|π|pi)\s*")
CONSTANT = re.compile(r"\s*(ln|log|√|sqrt|exp|e\s*\^)?\s*[({]?\s*(\d{1,3})\s*[)}]?\s*(?:/\s*(\d{1,3})\s*)?")
"""Arithmetic on small whole numbers (``ln 5``, ``√2``, ``1/5``): a decimal operand is a model's quantity."""


CONSTANT_TAIL = re.compile(r"(?:(?<=\s)|^)(?:(?:ln|log|√|sqrt|exp)\s*[({]?\s*\d{1,3}\s*[)}]?|\d{1,3}\s*/\s*\d{1,3}|"
                           r"(?:√|sqrt)\s*\(\s*2\s*/\s*(?:π|pi)\s*\))\s*$")
"""A constant closing a sentence's text before ``≈``: ``… then ln 5``, ``√(2/π)``."""


NAME_LETTER = r"[A-Za-z\u00c0-\u024f\u0370-\u03ffℓ∂∇]"
"""A letter a symbol may start with: Latin (ŷ, é too), Greek, ∂ and ∇ (not a word of Chinese or Russian prose)."""


def _constant(expr: str) -> str | None:
    """The claims expression of arithmetic on printed numbers alone (``ln 5``, ``√2``, ``1/5``), or None.

    >>> _constant(" ln 5 "), _constant("√2"), _constant("1/5"), _constant("5"), _constant("ln p")
    ('log(5)', 'sqrt(2)', '1/5', None, None)
    >>> _constant("√(2/π)"), _constant("π")
    ('sqrt(2/pi())', 'pi()')
    """
    m = PI.fullmatch(plain(expr))
    if m:                           # √(2/π) of GELU's tanh form, π itself
        return "sqrt(2/pi())" if m[1] else "pi()"
    m = CONSTANT.fullmatch(plain(expr))
    if not m or (m[1] is None) == (m[3] is None):
        return None                 # a bare number is an operand, not a computation; f(a)/b is left alone
    if m[3] is not None:
        return f"{m[2]}/{m[3]}"
    fn = {"ln": "log", "√": "sqrt"}.get(m[1], "exp" if m[1].startswith("e") else m[1])
    return f"{fn}({m[2]})"


def _leading_words(head: str, heading: str) -> Label | None:
    """The name a left-hand side's first words give when the rest is a formula: ``Schritt η · m̂ / (√v̂ + ε)``
    is the update, ``neuer Wert 0.4 − 0.01`` the new value (of the entry a lead-in names, :func:`_of_entry`).

    The rest holds no other word (``new W, the loss after the first update is …`` is a sentence, no step).

    >>> heads = ("Schritt η · m̂ / (√v̂ + ε) ", "neuer Wert 0.4 - 0.1", "x + y", "new W, the loss after the update")
    >>> [str(_leading_words(h, "")) for h in heads]
    ['update', 'sgd[1].new', 'None', 'None']
    """
    text = plain(head).split("=")[0]
    words = re.findall(r"[^\W\d_]+", text)[:2]
    rest = text.split(words[1] if len(words) > 1 and words[1].lower() in VALUE_WORDS else words[0], 1)[-1] \
        if words else ""
    if re.search(r"[A-Za-z]{3,}|[\u4e00-\u9fff]|[,;，；]", rest):
        return None
    if words and words[0].lower() in STEP_WORDS:
        return Label(STEP_WORDS[words[0].lower()])
    if words and NEW.fullmatch(words[0]):
        return Label("new", state=f"{run_of(heading)}[1]")
    return None


def _lead_in(n, lines: list, vocab) -> Label | None:
    """The parameter entry the text before a figure is about, written as code writes it (``W[0, bellt]``): the
    last one its line names before it, else the nearest above it, back to the heading (:data:`LEAD_LINES`).

    >>> from symgpt.claims.extract import extract
    >>> text = "Von Hand für `W[0, b]` mit g = −0.4:\\n\\n* m = 0.1 × (−0.4) = −0.04"
    >>> str(_lead_in(extract(text)[-1], text.split("\\n"), Words(["a", "b"], {"W"}, {"W"})))
    'W[0,tok1]'
    >>> text = "对 $W_{\\\\text{out}}[1,\\\\text{b}]$（初值 $-0.4$）：\\n  \\\\theta_1 &= -0.4 - 0.001 = -0.401"
    >>> str(_lead_in(extract(text)[-1], text.split("\\n"), Words(["a", "b"], {"W_out"}, {"W_out"})))
    'W_out[1,tok1]'
    """
    listed = BULLET.match(n.line_text.strip()) or len(n.line_text.strip()) <= 80 or \
        re.match(r"[^=]{1,24}=", n.line_text.strip())     # an item or an equation (θ₁ &= θ₀ − …), not a paragraph
    above = [lines[k] for k in range(n.line - 2, max(-1, n.line - 2 - LEAD_LINES), -1)] if listed else []
    for k, text in enumerate([n.line_text[:n.col], *above]):
        if k and HEADING.match(text) and not re.search(r"[=:：]", text):
            return None            # (a numbered item '3. m̂ = m / 0.1 = …' is no heading)
        tag = k and TAG.match(text)
        if "\\" in text:           # LaTeX's W_{\text{out}}[1,\text{狗}]: W_out[1,狗]
            text = re.sub(r"_\{(\w+)\}(?=\s*\[)", r"_\1", plain(text)).replace("](", "] (")
        found = [lab for m in ENTRY_MENTION.finditer(text)
                 if (lab := _param_case(parse_label(m[0].replace(" ", ""), vocab), vocab)) is not None and lab.index
                 and lab.name in vocab.params]
        if found:
            return found[-1]
        if tag or k and LEAD_END.search(text) and any(parse_label(m[0].replace(" ", ""), vocab) is not None
                                                      for m in ENTRY_MENTION.finditer(text)):
            return None            # '[E(x)_j]' or 'the coordinate e_{3} (θ = 0.3):' above, a block of its own:
            #                        an entry not read, not the block before
    return None


def _param_case(lab, vocab):
    """A parameter's entry written in lower case (``w_{1,τρώει}``, ``e_{γάτα,1}``) as the parameter's: W's, E's,
    when the name is no parameter as written and its capital is one."""
    if lab is None or lab.name in vocab.params or lab.name.upper() not in vocab.params:
        return lab
    return dataclasses.replace(lab, name=lab.name.upper())


TAG = re.compile(r"\s*[\[【][^\]】\n]{1,24}[\]】]")
LEAD_END = re.compile(r"[:：]\s*\$*\s*$")
"""A lead-in's end: a line that closes on a colon, 'The weight W_{1,fly} (θ = −0.3):'."""
"""A block's tag at the start of its line, ``[W₃₄]  θ = 0.4``: the lines below it are about that entry."""


MOMENT_AT_STEP = re.compile(r"(m|v|m̂|v̂|m_hat|v_hat|mhat|vhat)_?\{?([0-9]|[₀-₉])\}?")
"""A moment's name with its step (``m1``, ``v_1``, ``m̂₁``): AdamW's state at that step."""
SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")

THETA = {"θ", "theta", "w"}
THETA_FIRST = re.compile(r"\s*(?:θ|theta|w)(?![A-Za-z\u00c0-\u024f\u0370-\u03ff])")
"""A parameter's value written by its step under an entry's lead-in (``θ₀ = 0,4``, ``θ₁ = 0,389960``)."""
GRADIENT_NAMES = {"g", "g_t", "grad"}
"""An entry's gradient written without indices under its lead-in (``g = −0,4018``, ``g₁``)."""
NEW_VALUE = {"θ'", "θ′", "θ_new", "w'", "w′", "w_new"}
"""The names of a parameter's value after the step, written without indices under an entry's lead-in."""


def _of_entry(lab: Label, n, lines: list, vocab, strict: bool = False) -> Label | None:
    """An optimizer state or the new value written without indices (``m = …``, ``Schritt …``, ``neu: …``)
    under a lead-in that names a parameter's entry: that entry's state (``adamw[1].m[W,0,2]``, the new
    ``W[0,bellt]``); else the label as it is (None when ``strict``: a step's words name nothing alone)."""
    unnamed = None if strict else lab
    if strict:                     # a step's words: the update, the decay or the new value
        state = lab.name if lab.name in ("update", "decay") else None
    else:                          # a moment's name, never one already stated after a step
        stepped = MOMENT_AT_STEP.fullmatch(lab.name) if not lab.state and not lab.index else None
        if lab.name in MOMENTS and not lab.state and len(lab.index) == 1 and isinstance(lab.index[0], int) and \
                1 <= lab.index[0] <= 9 and _lead_in(n, lines, vocab) is not None:   # m_1 under a lead-in: step 1
            #                                                 (m_0 = 0: the moment before any step, no state here)
            stepped = MOMENT_AT_STEP.fullmatch(f"{lab.name}{lab.index[0]}")
            lab = Label(lab.name, fn=lab.fn)
        k = int(stepped[2].translate(SUBSCRIPT_DIGITS)) if stepped else 0
        if stepped and stepped[1] in MOMENTS and k >= 1:                    # m1, v_1, m̂₁: the moment at step 1
            lab = Label(stepped[1], state=f"adamw[{k}]", fn=lab.fn)      # (√v₁ stays a root)
        state = None if lab.state and not stepped else MOMENTS.get(lab.name)
        if state is None and not lab.state and not lab.index and lab.name.lower() in STEP_WORDS:
            state = STEP_WORDS[lab.name.lower()]           # 'ενημέρωση: −0,010000' under the lead-in: its update
        if lab.name in NEW_VALUE and not lab.state:        # θ' under the lead-in: the entry after the step
            lab = Label("new", state=f"{run_of(n.heading + ' ' + n.prose)}[1]")
        elif lab.name in THETA and not lab.state and len(lab.index) == 1 and isinstance(lab.index[0], int) and \
                0 <= lab.index[0] <= 9 and THETA_FIRST.match(plain(_clause(n.line_text[:n.col]))):
            #                                              θ₀, θ₁ under the lead-in: the entry before, after step 1
            #                                              (not 'ηλ θ_{0} = 0,00005', a product)
            k = lab.index[0]
            lab = Label("new", state=f"{run_of(n.heading + ' ' + n.prose)}[{k}]" if k else "")
        elif lab.name in GRADIENT_NAMES and not lab.state and lab.index in ((), (1,)):
            lab = Label("gradient")                        # g (g₁) under the lead-in: the entry's gradient
    if lab.index or lab.of or lab.ref or (state is None and lab.name not in ("new", "gradient")):
        return unnamed
    entry = _lead_in(n, lines, vocab)
    if entry is None:
        return unnamed
    if lab.name == "new":
        return Label(entry.name, entry.index, state=lab.state)
    if lab.name == "gradient":
        return Label(f"grad_{entry.name}", entry.index)
    step = lab.state or "adamw[1]"
    return Label(f"{step}.{state}", entry.index, of=entry.name, fn=lab.fn)   # W₃₄'s m: its origin learned
    #                                                              with the rest (and √v̂ is a function of v̂)


def _restated(n, prev) -> Label | None:
    """A percentage that restates the figure just before it on its line (``ỹ = 0,3467, cioè il 34,67%``,
    ``0.3467 (34.67 %)``): the same quantity, whatever token or word stands between them."""
    if prev is None or prev.line != n.line or n.kind != "percent" or prev.kind != "decimal" or \
            n.value != prev.value * 100 or len(n.line_text[prev.col + len(prev.text):n.col]) > 24:
        return None
    return Label("same", inner=prev.index)


def _after_step(n, prev) -> Label | None:
    """``Der Verlust fällt von 1.7446 auf 1.7301``, ``from 0.1747 to 0.1772``, ``21.36% から 27.47% に``: the
    second figure is the first's quantity after the training step (the figure before it on its line)."""
    m = FROM_TO.search(n.line_text[:n.col])
    said = next((g for g in m.groups() if g is not None), None) if m is not None else None
    if prev is None or prev.line != n.line or said is None or \
            said.replace(",", ".").rstrip("%") != prev.text.rstrip("%"):
        return None
    return Label("after", inner=prev.index)


# ---------------------------------------------------------------- literals: [ … ], array(…), pmatrix

ARROW = re.compile(r"(?:→|\\to|->|⟶|\\rightarrow|\\longrightarrow)\s*\$?\s*$")
OPERATOR_AFTER = re.compile(r"\s*\)?\s*(?:[×*/÷^·+\-−@]|\\times|\\cdot)")
MATRIX_BEGIN = re.compile(r"\\begin\{(?:[pbvBV]?matrix|array)\}(?:\{[^{}]*\})?")    # (an array's column spec)
MATRIX_END = re.compile(r"\\end\{(?:[pbvBV]?matrix|array)\}")


def _rows(pick, pos: list) -> list | None:
    """A printed tensor's place as the whole tensor's: its first index through what the print picked
    (``[[0, 1, 6]]``: row 2 is row 6; ``[2:]``: row 0 is row 2); None beyond the pick.

    >>> _rows([0, 1, 6], [2, 3]), _rows(2, [0, 1]), _rows(None, [1]), _rows([0, 6], [2, 0])
    ([6, 3], [2, 1], [1], None)
    """
    if pick is None:
        return pos
    if isinstance(pick, int):
        return [pos[0] + pick, *pos[1:]]
    return [pick[pos[0]], *pos[1:]] if pos[0] < len(pick) else None


class _Frame:
    """An open bracket: a level of a literal (its element count), or a call/index (transparent)."""
    def __init__(self, kind: str, name=None, levels: int = 1, transparent: bool = False):
        self.kind, self.name, self.transparent = kind, name, transparent     # name: a Label or None
        self.counts = [0] * levels
        self.wide = 0          # a matrix environment's widest row (its last column index)
        self.end = None        # where its last entry on the line ends (NumPy sets entries apart by spaces)
        self.rows = False      # whether a row [ … ] closed in it since its last comma
        self.pick = None       # the rows a printed expression picked (W.grad[[0, 1, 6]])


CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])*")


def _output_name(cell: list) -> str:
    """The name of what a code block shows below it: the one thing it prints, else its last line's expression
    (a notebook's result); '' when it prints several things (each print's output has no name of its own).

    >>> _output_name(["loss.backward()", "print(g.weight.grad[:4])  # dW"]), _output_name(["x = f()", "x.grad"])
    ('g.weight.grad[:4]', 'x.grad')
    >>> _output_name(["print(a)", "print(b)"]), _output_name(["print(f'{p:.4f}')"])
    ('', '')
    """
    code = [re.sub(r"\s+#.*$", "", x.strip()) for x in cell if x.strip() and not x.strip().startswith("#")]
    #        ('opt.state[W]["exp_avg"]   # m': its comment off)
    prints = [m[1].strip() for x in code if (m := re.fullmatch(r"print\((.*)\)", x))]
    if prints:
        return prints[0] if len(prints) == 1 and (CODE_NAME.fullmatch(prints[0]) or PICKED.fullmatch(prints[0])) \
            else ""
    return code[-1] if code and (CODE_NAME.fullmatch(code[-1]) or PICKED.fullmatch(code[-1])) else ""


def _printed_names(cell: list) -> list:
    """The names of what a code block's prints show, in order, when every print is of one expression
    (``print(W_O.grad)``, ``print(W_2.grad[[0, 1, 2, 6]])``): a tensor its output prints (``tensor(``) takes
    the next one.

    >>> _printed_names(["loss.backward()", "print(E.grad[0])", "print(W_2.grad[[0, 1, 2, 6]])"])
    ['E.grad[0]', 'W_2.grad[[0, 1, 2, 6]]']
    >>> _printed_names(["print(a)", "print(f'{p:.4f}')"])
    []
    """
    code = [re.sub(r"\s+#.*$", "", x.strip()) for x in cell if x.strip() and not x.strip().startswith("#")]
    prints = [m[1].strip() for x in code if (m := re.fullmatch(r"print\((.*)\)", x))]
    return prints if len(prints) > 1 and all(CODE_NAME.fullmatch(x) or PICKED.fullmatch(x) for x in prints) else []


PICKED = re.compile(r"([A-Za-z_]\w*(?:\.\w+)*)(?:\[\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*\]|"
                    r"\[\s*(\d*)\s*:\s*\d*\s*\])?")
"""A printed expression with the rows it picks: ``W.grad[[0, 1, 2, 6]]`` (those rows), ``W.grad[2:5]`` (from 2)."""


TOKEN_ID = re.compile(r"""\w+\.(?:index|get)\(\s*(['"])(.+?)\1\s*\)|\w+\[\s*(['"])(.+?)\3\s*\]|"""
                      r"(?<![\w.])(\d+)(?![\w.])")
"""A token's id in code: ``vocab.index("come")``, ``stoi['cat']``, ``3``."""


def _token_variables(cell: list, vocab) -> dict:
    """The code variables a cell sets to a token's id: ``entrada, alvo = vocab.index("come"), stoi["peixe"]``
    → {'entrada': 'come', 'alvo': 'peixe'}, so ``E.grad[entrada]`` is come's row.

    >>> code = ['entrada, alvo = vocab.index("come"), vocab.index("peixe")', "ix = 2"]
    >>> _token_variables(code, ["a", "come", "peixe"])
    {'entrada': 'come', 'alvo': 'peixe', 'ix': 'peixe'}
    """
    out = {}
    for line in cell:
        m = re.fullmatch(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*(.+?)\s*(?:#.*)?", line)
        if not m:
            continue
        names, ids = [x.strip() for x in m[1].split(",")], list(TOKEN_ID.finditer(m[2]))
        if len(ids) != len(names) or TOKEN_ID.sub("", m[2]).strip(" ,()") != "":
            continue
        for name, t in zip(names, ids):
            token = t[2] or t[4] or (vocab[int(t[5])] if t[5] and int(t[5]) < len(vocab) else None)
            if token in vocab:
                out[name] = token
    return out


def _with_tokens(code_name: str, variables: dict) -> str:
    """``E.grad[entrada]`` with the token its variable holds: ``E.grad[come]``.

    >>> _with_tokens("E.grad[entrada]", {"entrada": "come"}), _with_tokens("W[i, j]", {})
    ('E.grad[come]', 'W[i, j]')
    """
    return re.sub(r"\[([^\[\]]*)\]", lambda b: "[" + re.sub(
        r"[A-Za-z_]\w*", lambda w: variables.get(w[0], w[0]), b[1]) + "]", code_name) if variables else code_name


def _tensors_below(lines: list, no: int) -> int:
    """How many tensors (``tensor(``) the output below a code block's closing fence (line ``no``) prints, up to
    the next fence."""
    count = 0
    for line in lines[no:]:
        if line.lstrip().startswith("```"):
            break
        count += len(re.findall(r"(?<![\w.])tensor\(", line))
    return count


def _picked(code_name: str) -> tuple:
    """(the expression without its row pick, the rows an output's rows are, or None): ``W_2.grad[[0, 2, 6]]`` →
    ('W_2.grad', [0, 2, 6]); ``W.grad[2:]`` → ('W.grad', 2) (rows from 2 on).

    >>> _picked("W_2.grad[[0, 1, 2, 6]]"), _picked("W.grad[2:5]"), _picked("W.grad[:4]"), _picked("W[1]")
    (('W_2.grad', [0, 1, 2, 6]), ('W.grad', 2), ('W.grad', 0), ('W[1]', None))
    """
    m = PICKED.fullmatch(code_name or "")
    if not m or m[2] is None and m[3] is None:
        return code_name, None
    return m[1], [int(x) for x in m[2].split(",")] if m[2] is not None else int(m[3] or 0)


NAME_ALONE = re.compile(r"[^\W\d][\w.']*(?:\^\{[^{}]*\})?(?:_\{?\w+\}?)?(?:\^\{[^{}]*\})?")
"""A name with its scripts and nothing else: ``k_1``, ``\\tilde q``, ``W^{(2)}``."""


def _stacked_fraction(lines: list, no: int, col: int) -> str | None:
    """The name a display sets as a fraction over the lines above and below an equals sign that begins line
    ``no`` (1-based; ``col`` where its literal opens), as a PDF's text lays it out: ``∂L`` ⏎ ``= (…)`` ⏎ ``∂z`` →
    ``∂L/∂z =``; None when the line holds more than '=' before the literal, or the lines around are no fraction.

    >>> _stacked_fraction(["      ∂L", "       = (0,2; 0,8)", "      ∂z"], 2, 9)
    '∂L/∂z ='
    >>> _stacked_fraction(["a", "= (1)"], 2, 2) is None                        # no line below
    True
    >>> _stacked_fraction(["   ∂L", "x = (0,2)", "   ∂z"], 2, 4) is None          # a name before the '='
    True
    >>> _stacked_fraction(["∂L", "           = (0,2)", "          ∂z"], 2, 13) is None   # not one above the other
    True
    """
    if not re.fullmatch(r"\s*=\s*", lines[no - 1][:col]) or no < 2 or no >= len(lines):
        return None
    eq = lines[no - 1].index("=")
    top, bottom = lines[no - 2], lines[no]
    parts = [(len(x) - len(x.lstrip()), x.strip()) for x in (top, bottom)]
    if any(not t or len(t) > 12 or re.search(r"\d[.,]\d", t) or start + len(t) > eq + 1 for start, t in parts):
        return None
    (a, num), (b, den) = parts
    if a > b + len(den) or b > a + len(num):
        return None                      # (not one above the other)
    return f"{num}/{den} ="


def _literal_name(before: str, code_name: str, vocab, heading: str = "") -> Label | None:
    """The label a literal's own line gives it (``dW = [[``, ``E[1]new = (``), or a notebook cell's.

    >>> v = Words([], {"b_1", "b_2"}, {"b_1", "b_2"})
    >>> str(_literal_name("b_1 = (0.1, 0.2) et b_2 = ", "", v)), str(_literal_name("f = r W + b_2 = ", "", v))
    ('b_2', 'f')
    >>> str(_literal_name("q_3 = (0.6, −0.6), k_1 = ", "", v)), str(_literal_name("A = softmax(S) V = ", "", v))
    ('k[1]', 'A')
    >>> str(_literal_name(r"$\\tilde q = (−0,16;\\ 1,22)$ και $\\tilde k = ", "", v))     # Greek 'and'; k̃
    'k̃'
    >>> str(_literal_name("By hand for the last position: o₂ = 0.3·v₀ + 0.7·v₁ = ", "", v))
    'o[2]'
    >>> str(_literal_name("ln_f.γ = (1,05; 0,95) ve ln_f.β = ", "", v)), str(_literal_name("b_1 = np.array(", "X", v))
    ('ln_f.β', 'b_1')
    >>> str(_literal_name(r"$E = \\begin{bmatrix} 0.1 \\end{bmatrix} \\quad (3\\times 2) \\qquad b_1 = ", "", v))
    'b_1'
    >>> str(_literal_name("Ufunguo ni rahisi kwa sababu $h_1 = (0.6, 1.2)$: $k_1 = ", "", v))
    'k[1]'
    """
    if (code := re.search(r"([A-Za-z_][\w.]*)\s*=\s*(?:\w+\.)*(?:array|tensor)\(\s*$", before)):
        return named(code[1], vocab, heading)      # W_Q = np.array([[…]]) in the code itself: W_Q
    if re.search(r"(?:array|tensor)\(\s*$", before):
        state = OPTIMIZER_STATE.search(code_name or "")
        if state:                      # opt.state[W]["exp_avg"]: the first moment of W, entry by entry
            return Label("m" if state[2] == "exp_avg" else "v", of=state[1])
        return named(code_name, vocab) if code_name else None
    if not re.search(r"(?:=|≈|:|：|＝|←)\s*$", plain(before)):
        return None
    parts = re.split(r"=|≈|:|←", _clause(plain(before)))
    beside = re.search(r"(?:[(\[][^()\[\]]*\d[^()\[\]]*[)\]]|end\{[pbvBV]?matrix\})\s*"
                       r"(?:[,;，；]|\b(?:and|et|und|y|e|ve|en|i|oraz|и|và|dan|og|"
                       r"och|a)\b|和|与|及|और|[^\W\d_]{2,4}(?=\s))?\s*"       # (and in any language: και, та, és)
                       r"([^\W\d][\w.\u0300-\u036f]*(?:\^\{[^{}]*\})?(?:_\{?\w+\}?)?(?:\^\{[^{}]*\})?"
                       r"(?:\[[^\[\]]{1,16}\])?)\s*$",      # (`E[zit] = …` after `E[kat] = […]` en: E[zit])
                       re.sub(r"(?<![A-Za-z])\\?q?quad(?![A-Za-z])|\\[,;:! ]", " ", parts[-2])) \
        if len(parts) >= 3 else None      # b_1 = (…) et b_2 = (…): the second literal is b_2's (\qquad too)
    if beside:
        return named(beside[1], vocab, heading)
    last = parts[-2].strip().strip("$").strip() if len(parts) >= 3 else ""
    if last and re.search(r"[)\]]\s*\$?\s*$", parts[-3]) and NAME_ALONE.fullmatch(last) and \
            (lab := named(last, vocab, heading)) is not None:
        return lab                     # 'h_1 = (0.6, 1.2): k_1 = (…)': the name after the last literal, k_1
    head = parts[0]
    for part in parts[1:-1]:           # 'By hand for the last position: o₂ = 0.33·v₀ + … = (…)': o₂, not position
        if re.search(r"\d|[+×*/·]", part) or not re.fullmatch(r"\s*\S+\s*", part):
            break
        if re.search(r"\s\S", head.strip()) and named(part, vocab, heading) is not None:
            head = part
    lab = named(head, vocab, heading)
    if lab is None and (fn := _function_label(head.strip(), vocab)) is not None and fn.fn in ("exp", "log"):
        return fn                      # exp(z) = (0.9015, 1.1077, …): exp of z's entries, in order
    return formula_label(lab, parts[1:-1], vocab)


STACKED_ROW = re.compile(r"\s*(?:(?P<name>[^\W\d][\w.']*(?:_\{[^{}]*\}|_\w+)?)\s*[=:]\s*)?[\[⎡⎢⎣│|]\[?"
                         r"(?P<body>[^\[\]⎡⎤⎢⎥⎣⎦│|=]+)\]?[\]⎤⎥⎦│|]\s*(?P<label>[^\s\d.,+\-−]\S{0,15})?\s*$")
"""A row of a matrix drawn in text, one row per line, named on one of its rows (``k = [ 0.1  -0.5 ]  dog``)."""
PROMPT = re.compile(r"\s*(?:>>>|In\s*\[\d*\]:)\s*(?:print\()?\s*([A-Za-z_][\w.]*(?:\[[^\]]*\])*)\)?\s*$")
"""An interpreter's prompt whose output follows: ``>>> dlogits``, ``In [3]: print(p)``."""
PROMPT_START = re.compile(r"\s*(?:>>>|In\s*\[\d*\]:)")
PROMPT_LAST = re.compile(r"^(\s*(?:>>>|In\s*\[\d*\]:)).*;\s*(?=[A-Za-z_][\w.]*(?:\[[^\]]*\])*\s*$)")
"""A prompt's statements before the expression it shows: ``>>> probs = logits.softmax(-1); probs``."""


def _stacked(lines: list, numbers: list, vocab) -> dict:
    """figure index → (name, (row, column)) for a matrix drawn one row per line in brackets, its name written
    before one of its rows (the middle one, as a hand-drawn ``v = [ … ]`` stands), each row the same count of
    figures; row labels after the rows (``dog``) are left to the places.

    >>> from symgpt.claims.extract import extract
    >>> text = "      [ 0.1  0.2 ]  <s>\\n  v = [ 0.3  -0.4 ]  b\\n      [ 0.5  0.6 ]  c"
    >>> sorted((str(lab), pos) for lab, pos in _stacked(text.split("\\n"), extract(text), []).values())[:4:3]
    [('v', (0, 0)), ('v', (1, 1))]
    >>> text = "ms = [0.5514 0.0957]\\nh = [ 1.4713  0.2682 -0.0345 ]"      # two vectors, each its own name
    >>> sorted((str(lab), pos) for lab, pos in _stacked(text.split("\\n"), extract(text), []).values())[:3]
    [('h', (0,)), ('h', (1,)), ('h', (2,))]
    >>> sorted((str(lab), pos) for lab, pos in _stacked(text.split("\\n"), extract(text), []).values())[3:]
    [('ms', (0,)), ('ms', (1,))]
    >>> text = ">>> dlogits\\n[ 0.4628   0.0648  -0.8888 ]"
    >>> sorted((str(lab), pos) for lab, pos in _stacked(text.split("\\n"), extract(text), []).values())
    [('dlogits', (0,)), ('dlogits', (1,)), ('dlogits', (2,))]
    """
    at: dict = {}
    for n in numbers:
        if n.kind != "integer" or n.text.lstrip("-−").isdigit():
            at.setdefault(n.line, []).append(n)
    out: dict = {}
    run: list = []
    for no, line in enumerate([*lines, ""], 1):
        m = STACKED_ROW.fullmatch(line) if no <= len(lines) else None
        figs = [n for n in at.get(no, []) if m and m.start("body") <= n.col < m.end("body")]
        ok = bool(m and figs and re.fullmatch(r"[\s\d.,+\-−eE]*", m["body"].replace("−", "-")))
        if ok and (not run or len(figs) == len(run[-1][1])):
            run.append((m, figs))
            continue
        names = [r["name"] for r, _ in run if r["name"]]
        first = no - len(run)                        # the run's first line, counted from 1
        prompt = PROMPT.fullmatch(lines[first - 2]) if run and not names and first >= 2 else None
        names += [prompt[1]] if prompt else []
        if run and len(names) == 1 and (len(run) >= 2 or prompt or len(run[0][1]) >= 2 and
                                        not re.search(r",", run[0][0]["body"])) and \
                (head := named(names[0], vocab)) is not None:
            for i, (_, row) in enumerate(run):
                for j, n in enumerate(row):
                    out[n.index] = (head, (i, j) if len(run) > 1 else (j,))
        run = [(m, figs)] if ok else []             # (this line's figures: the next run's first row)
    return out


BRACKET_PIECES = re.compile(r"[\uf8e0-\uf8ff⎛⎜⎝⎞⎟⎠⎡⎢⎣⎤⎥⎦]")
"""The pieces a PDF draws a tall bracket with (the Symbol font's private glyphs, or Unicode's)."""
DEBRIS = re.compile(r"[\s()\[\]{}|.,;_^0-9]*")
"""A line between a PDF matrix's rows that holds no figure: its bracket pieces, a superscript's debris."""
EMPTY_CELL = re.compile(r"[-−]?∞|[—–-]|[-−]?\\infty")


def _cells(text: str, col0: int = 0) -> list | None:
    """The cells of a row printed without brackets, as (column, text), or None when it holds a word: figures,
    −∞ and — (masked entries); bracket pieces and a closing full stop dropped."""
    cells = [(col0 + m.start(), m[0]) for m in re.finditer(r"\S+", BRACKET_PIECES.sub(" ", text))]
    while cells and cells[-1][1] in (".", ",", ")", "]"):
        cells.pop()
    while cells and cells[0][1] in ("(", "["):
        cells.pop(0)
    ok = all(EMPTY_CELL.fullmatch(t) or re.fullmatch(r"[-−]?\d+(?:[.,]\d+)?[.,]?", t) for _, t in cells)
    return cells if cells and ok else None


def _bare_matrix(lines: list, numbers: list, vocab) -> dict:
    """figure index → (name, (row, column)) for a matrix a PDF lays out as rows of figures with no brackets the
    text keeps, its name on the middle row (``(e_{ij}) =  0,3460   0,3244   −∞  .`` between the rows above and
    below it, bracket pieces on the lines between): each row the same count of cells, masked ones counted.
    Two matrices set side by side (``K = ( … ),  V = ( … ).``) share their rows: each row's cells are split as
    the named row's are, in order.

    >>> from symgpt.claims.extract import extract
    >>> text = "        0.196   −∞\\n\\uf8ec   \\uf8f7\\n  S =  0.346   0.324 .\\n        -0.092   0.010"
    >>> sorted((str(lab), pos) for lab, pos in _bare_matrix(text.split("\\n"), extract(text), []).values())
    [('S', (0, 0)), ('S', (1, 0)), ('S', (1, 1)), ('S', (2, 0)), ('S', (2, 1))]
    >>> text = "    0.1   0.2        0.5   0.6\\nK =  0.3   0.4 ,  V^{(1)} =  0.7   0.8 ."
    >>> sorted((str(lab), pos) for lab, pos in _bare_matrix(text.split("\\n"), extract(text), []).values())[-3:]
    [('V', (0, 1)), ('V', (1, 0)), ('V', (1, 1))]
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, []).append(n)
    out: dict = {}
    for no, line in enumerate(lines, 1):
        parts = _named_rows(line) if at.get(no) else []
        if not parts or any(len(cells) < 2 for _, cells in parts):
            continue
        counts = [len(cells) for _, cells in parts]
        rows = {no: [c for _, cells in parts for c in cells]}
        for step in (-1, 1):
            k = no + step
            while 1 <= k <= len(lines) and lines[k - 1] != "":
                cells = _cells(lines[k - 1])
                if cells is not None and at.get(k):
                    rows[k] = cells
                elif not DEBRIS.fullmatch(BRACKET_PIECES.sub(" ", lines[k - 1])):
                    break
                k += step
        if len(rows) < 2 or {len(c) for c in rows.values()} != {sum(counts)}:
            continue
        for m, (before, _) in enumerate(parts):
            before = re.sub(r"(?<![^\s,;])\(([^()]*)\)\s*=$", r"\1 =", before.rstrip())   # (e_{ij}) = …: e's
            before = re.sub(r"_\{?[a-z]{1,2}\}?(?=\s*=$)", "", before)            # (its running indices off)
            head = _literal_name(before, "", vocab)
            if head is None:
                continue
            if (sup := _superscript(plain(before))):
                head = dataclasses.replace(head, sup=sup)
            lo = sum(counts[:m])
            for i, k in enumerate(sorted(rows)):
                for n in at[k]:
                    j = next((j for j, (c, t) in enumerate(rows[k]) if c <= n.col < c + len(t)), None)
                    if j is not None and lo <= j < lo + counts[m] and n.kind in ("decimal", "integer", "percent"):
                        out[n.index] = (head, (i, j - lo))
    return out


NEXT_NAME = re.compile(r"\s*[)\]]?\s*[,;.]?\s*[^\s=]{1,24}(?:\s+[^\s=]{1,24})?\s*")
"""What stands between one matrix's last cell and the next one's '=': a closing mark and a short name."""


def _named_rows(line: str) -> list:
    """A matrix's named row as (the text before its cells, ending in '=', its cells) for each matrix set on the
    line (``K = ( 0.1  0.2 ),  V = ( 0.3  0.4 ).``: two); [] when a '=' is followed by anything but cells and a
    closing mark before the next name.

    >>> [len(cells) for _, cells in _named_rows("K = ( 0.1  0.2 ),  V^{(1)} = ( 0.3  0.4 ).")]
    [2, 2]
    >>> _named_rows("K = 0.3 0.4 and then some words = 0.1 0.2"), len(_named_rows("S =  ( 0.346   0.324 )"))
    ([], 1)
    """
    out, start = [], 0
    eqs = [m.end() for m in re.finditer("=", line)]
    for a, b in zip(eqs, [*eqs[1:], len(line) + 1]):
        seg = line[a:b - 1] if b <= len(line) else line[a:]
        tokens = list(re.finditer(r"\S+", BRACKET_PIECES.sub(" ", seg)))
        first = 1 if tokens and tokens[0][0] in ("(", "[") else 0      # S = ( 0.346  0.324 ): its brackets
        k = first
        while k < len(tokens) and _cells(tokens[k][0]) is not None:
            k += 1
        if k == first:
            continue                   # 'S = QKᵀ/√d = …': a name's formula, no cells yet
        cells = [(a + t.start(), t[0]) for t in tokens[first:k]]
        rest = seg[tokens[k].start():] if k < len(tokens) else ""
        if b <= len(line) and not NEXT_NAME.fullmatch(rest):
            return []                  # (between two matrices: a closing mark and the next one's name only)
        if b > len(line) and not re.fullmatch(r"[\s.,;)\]]*", BRACKET_PIECES.sub(" ", rest)):
            return []
        out.append((line[start:a], cells))
        start = a + (tokens[k - 1].end() if k else 0)
    return out


def _literals(lines: list, numbers: list, vocab) -> dict:
    """figure index → (the literal's name, the figure's position in it) for figures inside a vector or
    matrix literal: ``[a, b]``, ``[[a, b], [c, d]]`` over several lines, ``array([…])`` (named by the
    expression its notebook cell ends with), ``\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}``.

    >>> from symgpt.claims.extract import extract
    >>> text = "```\\ndW\\n```\\n```\\narray([[ 0.1,  0.2],\\n       [ 0.3, -0.4]])\\n```"
    >>> sorted((str(lab), pos) for lab, pos in _literals(text.split("\\n"), extract(text), []).values())
    [('dW', (0, 0)), ('dW', (0, 1)), ('dW', (1, 0)), ('dW', (1, 1))]
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, {})[n.col] = n
    seen: dict = {}            # figure index → (root frame, [(frame, count at the figure)])
    stack: list = []
    code_name, fence, cell = "", False, []
    queue: list = []           # the names of a cell's several prints, for its output's tensors in order
    variables: dict = {}       # code variables that hold a token's id (entrada = vocab.index("come"))
    pick = None                # the rows the named output shows (W.grad[[0, 1, 6]]: its rows 0, 1, 6)
    suspended = None           # a literal still open when another is written beside it on its line
    for no, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            if fence:
                variables.update(_token_variables(cell, vocab))
                code_name, queue = _output_name(cell), _printed_names(cell)
                code_name, queue = _with_tokens(code_name, variables), [_with_tokens(x, variables) for x in queue]
                code_name, pick = _picked(code_name)
                if len(queue) != _tensors_below(lines, no):
                    queue = []                 # a print that shows no tensor (print(step)): no name is sure
            cell, fence, stack = [], not fence, []
            continue
        prompt = PROMPT.fullmatch(PROMPT_LAST.sub(r"\1", line)) if not fence or not stack else None
        if prompt:                     # '>>> model.wpe.weight.grad': the value below is that expression's,
            code_name, pick = _picked(prompt[1])      # in a transcript's own fence too
        elif fence and not stack and PROMPT_START.match(line):
            code_name, pick = "", None                # '>>> loss.backward()': what follows is no one's
        if fence and not stack:
            cell.append(line)
        if not line.strip():
            stack, suspended = [], None
            continue
        figs, i, named_root = at.get(no, {}), 0, None
        heading = next(iter(figs.values())).heading if figs else ""
        while i < len(line):
            if i in figs:
                n = figs[i]
                levels = [f for f in stack if not f.transparent]
                top = stack[-1] if stack and stack[-1].kind in "[(" and not stack[-1].transparent else None
                if top is not None and top.end is not None and not line[top.end:i].strip():
                    top.counts[0] += 1           # [ -0.16  0.24  0.37 ]: entries set apart by spaces alone
                if top is not None:
                    top.end = i + len(n.text)
                if levels and not stack[-1].transparent:
                    seen[n.index] = (levels[0], [(f, tuple(f.counts)) for f in levels])
                i += max(1, len(n.text))
                continue
            m = MATRIX_BEGIN.match(line, i)
            if m:
                root = not any(not f.transparent for f in stack)
                before = line[:i]
                if not before.strip() and no > 1 and re.search(r"[=≈]\s*$", plain(lines[no - 2])):
                    before = lines[no - 2]       # \frac{∂ℒ}{∂ℓ} = ⏎ \begin{bmatrix}: the name ends the line above
                name = _literal_name(before, code_name, vocab, heading) if root else None
                if name is not None and (sup := _superscript(plain(before))):
                    name = dataclasses.replace(name, sup=sup)      # S^{(1)} = ⏎ \begin{bmatrix}: head 1's
                stack.append(_Frame("M", name, 2))
                i = m.end()
                continue
            m = MATRIX_END.match(line, i)
            if m and stack and stack[-1].kind == "M":
                stack.pop()
                i = m.end()
                continue
            ch = line[i]
            if ch in "[()]" and (line[i - 1:i] == "\\" and line[i - 2:i] != "\\\\" or
                                 re.search(r"\\(?:left|right|big|Big|bigg|Bigg)$", line[:i])):
                i += 1                 # \[ … \] and \( … \): LaTeX's math delimiters, no literal (nor \left[)
                continue
            if ch in "[(":
                call = re.search(r"(?<![\\\w])[A-Za-z_\u4e00-\u9fff][\w.]*$", line[:i])   # not \to [
                if call and call[0].strip() in ("array", "tensor", "np.array", "torch.tensor") and ch == "(":
                    if queue and not fence and not stack:
                        code_name, pick = _picked(queue.pop(0))      # the next print's tensor
                    stack.append(_Frame("(", transparent=True))
                elif call or (ch == "(" and re.search(r"(?:exp|ln|log|sqrt|√)\s*$", line[:i])):
                    stack.append(_Frame(ch, transparent=True))       # exp(…), p(sat), W[0, 1]
                elif ch == "(" and re.search(r"=|[^\W\d_]{3,}", line[i + 1:line.find(")", i) % (len(line) + 1)]):
                    stack.append(_Frame(ch, transparent=True))       # (z = −1.2785, where silu' = 0): prose
                else:
                    root = not any(not f.transparent for f in stack)
                    side = SIDE.search(line[:i]) if not root and ch == "[" and suspended is None else None
                    if side:           # W_1 = [[…],    b_1 = […]: b_1 is a literal of its own, W_1 goes on below
                        suspended, stack, root = stack, [], True
                    name = (named(side[1], vocab, heading) if side else
                            _literal_name(line[:i], code_name, vocab, heading)) \
                        if root else None
                    frac = _stacked_fraction(lines, no, i) if root and name is None else None
                    if frac is not None:       # ∂L ⏎ = (…) ⏎ ∂z: a PDF's fraction
                        name = _literal_name(frac, code_name, vocab, heading)
                    elif root and name is None and no >= 2 and re.match(r"\s*=", line) and lines[no - 2].strip():
                        name = _literal_name(lines[no - 2].rstrip() + " " + line[:i].lstrip(), code_name, vocab,
                                             heading)    # f = ReLU(z) W_2 + b_2 ⏎ = … = (0.625, 0.120): f
                    if root and name is None and named_root is not None and ARROW.search(line[:i]):
                        name = Label(named_root.name, named_root.index, named_root.of, "sgd[1]")  # E[1]: […] → […]
                    if root and name is not None:
                        named_root = name
                    if not root and stack[-1].kind == "[" and ch == "[" and stack[-1].rows:
                        stack[-1].counts[0] += 1    # [[0.1 0.2] [0.3 0.4]]: NumPy's rows, no comma between
                    stack.append(_Frame(ch, name))
                    stack[-1].pick = pick if root and name is not None and not side and \
                        re.search(r"(?:array|tensor)\(\s*$", line[:i]) else None    # (the cell's output)
            elif ch in ")]" and stack and stack[-1].kind in "([":
                done = stack.pop()
                if stack and stack[-1].kind == "[" and not done.transparent:
                    stack[-1].rows = True
                if not done.transparent and not any(not f.transparent for f in stack) and \
                        OPERATOR_AFTER.match(line, i + 1):
                    done.name = None           # (0.3, −0.1) − 0.5 × (…): an operand, not what the line defines
            elif (ch in ",|∣" or ch == ";" and line[i - 1:i] != "\\") and stack and not stack[-1].transparent and \
                    (ch not in "|∣" or stack[-1].kind in "(["):
                #      (0,1101; 0,3398) with decimal commas; not LaTeX's space \;  ( a, b | c, d ): two heads' halves
                stack[-1].counts[0] += 1
                stack[-1].end, stack[-1].rows = None, False
            elif ch == "&" and stack and stack[-1].kind == "M":
                stack[-1].counts[1] += 1
                stack[-1].wide = max(stack[-1].wide, stack[-1].counts[1])
            elif line.startswith("\\\\", i) and stack and stack[-1].kind == "M":
                stack[-1].counts = [stack[-1].counts[0] + 1, 0]
                i += 2
                continue
            i += 1
        if suspended is not None and not any(not f.transparent for f in stack):
            stack, suspended = suspended, None     # the literal beside is closed: the first one goes on
    out = {}
    for k, (root, frames) in seen.items():
        pos: list = []
        for f, counts in frames:
            if f.kind == "(" and f.counts[0] == 0:
                continue                 # (−0.2): brackets around one number, not a vector
            if f.kind == "M" and (f.counts[0] == 0 or f.wide == 0):
                counts = counts[1:] if f.counts[0] == 0 else counts[:1]   # one row or one column: a vector
            pos += list(counts)
        if pos and (frames[0][0].counts != [0] or frames[0][0].kind == "M" or len(pos) > 1):
            pos = _rows(root.pick, pos)
            if pos:
                out[k] = (root.name or Label(f"literal@{id(root)}"), tuple(pos))
    return out


SIDE = re.compile(r"[\])],?\s{2,}([A-Za-z_\u0370-\u03ff][\w']*)\s*(?:=|:)\s*$")
"""A literal's name written beside another literal still open on its line: ``…0.6],      b_1 = ``."""


# ---------------------------------------------------------------- tables

KEY = re.compile(r"(?:第\s*(\d+)\s*(?:行|列|个|维|位)|(\d+)\s*(?:行目|列目|番目|번째(?:\s*\S{1,4})?)|"
                 r"(?:row|col(?:umn)?|query|key|pos(?:ition)?|t|s|i|j|k|dim|step|"
                 r"head|token|位置|步|ligne|colonne|Zeile|Spalte|étape|Schritt|위치|행|열|단계|posição|linha|coluna|"
                 r"vị trí|hàng|cột|posizione|riga|colonna|posición|fila|wiersz|kolumna|pozycja|satır|sütun|pozisyon|"
                 r"rij|kolom|positie|baris|posisi|पंक्ति|स्तंभ|"
                 r"строка|столбец|позиция|шаг|"
                 r"쿼리|키|クエリ|キー|查询|键|requête|clé|Anfrage|Schlüssel|consulta|clave|chiave|chave|запрос|ключ|"
                 r"sorgu|anahtar|zapytanie|klucz|truy vấn|khóa|vraag|sleutel|kueri|kunci)\s*[=:]?\s*(\d+)|(\d+))",
                 re.I)
QUERY_AXIS = re.compile(r"query|queries|쿼리|クエリ|查询|requête|Anfrage|consulta|interrogazione|запрос|sorgu|"
                        r"zapytanie|"
                        r"truy vấn|vraag|kueri|fråga", re.I)
KEY_AXIS = re.compile(r"keys?\b|키|キー|键|clé|Schlüssel|clave|chiave|chave|ключ|anahtar|klucz|khóa|sleutel|kunci|"
                      r"nyckel", re.I)
"""A row's or column's word for the queries' or the keys' axis of a score table (rows of keys are transposed)."""
INITIAL = re.compile(r"初始|initial|before|original|untrained|step\s*0|start|avant|vorher|Ausgangs|inicial|iniziale|"
                     r"исходн|начальн|初期|처음", re.I)
STEPPED = re.compile(r"(adam\w*)|\b(sgd)\b|一步后|after|更新后|new|après|nach", re.I)
STEP_COUNT = re.compile(r"\b(\d{1,3})\s*(?:(?:SGD|AdamW?|GD)[- ]?)?(?:steps?|Schritt\w*|шаг\w*|pass[oi]|étapes?|pasos?|"
                        r"updates?|Updates?|iterations?)|(?:step|Schritt|шаг|passo|étape|paso)\s*(\d{1,3})\b|"
                        r"(\d{1,3})\s*(?:ステップ|步|스텝)", re.I)
"""A count of training steps: ``2 SGD-Schritten``, ``after 3 steps``, ``step 2``, ``2 ステップ``."""


AXIS = re.compile(r"(?:query|key|queries|keys|row|rows|col(?:umn)?s?|pos(?:ition)?s?|tokens?|[a-z]|"
                  r"[a-z]\s*[\\/→↓]\s*[a-z]|位置|查询|键|行|列|Zeile|Spalte|ligne|colonne|Anfrage|requête|쿼리|키|"
                  r"クエリ|キー|clé|consulta|clave|chiave|запрос|ключ)", re.I)
"""A table's corner cell that names the rows' axis (or both axes), not the matrix."""
CAPTION_SYMBOL = re.compile(r"(?<![\w\\])([A-Za-z\u0370-\u03ff](?:_\{?\w+\}?)?)\s*"
                            r"(?:\[[a-z]\]\s*\[[a-z]\]|\[[a-z],\s*[a-z]\]|_\{[a-z],?[a-z]\})")
"""A caption's symbol written with letter indices: ``w[t][s]``, ``A[t, s]``, ``α_{ts}``."""
TEMPERATURE_AXIS = re.compile(r"T|τ|[Tt]emp(?:erature)?|[Tt]empérature|Temperatur|[Tt]emperatura|温度")
TEMPERATURE_ROW = re.compile(r"(?:T|τ|[Tt]emp(?:erature)?|[Tt]empérature|Temperatur|温度)\s*=\s*"
                             r"(?:\d+(?:\.\d+)?|∞|inf|oo)")
"""(Case matters here: a row 't = 1' is a position, 'T = 1' a temperature.)"""
TEMPERATURE = re.compile(r"(?:T|τ|temp(?:erature)?|température|温度)\s*=\s*(\d+(?:\.\d+)?|∞|inf|oo)", re.I)


QUOTES = "'\"«»“”„‘’「」『』‹› \u00a0"
"""The marks a token may be quoted in, in any language (and the spaces inside French guillemets)."""


def _key(cell: str, vocab) -> tuple | None:
    """A row's or column's label as one index: '第 1 行' → (1,), 't=2' → (2,), a token → (tok,), else None.

    >>> v = ["le", "好き"]
    >>> _key("「好き」", v), _key("« le »", v), _key("t=2", v), _key("le (1)", v), _key("le (la)", v)
    ((('tok', 1),), (('tok', 0),), (2,), (('pos', 1),), (('tok', 0),))
    >>> _key("query t=2", v), _key("key s = 0", v)
    ((2,), (0,))
    """
    s = plain(cell).strip().strip("*`").strip()
    if s in vocab:
        return (("tok", vocab.index(s)),)
    if (q := s.strip(QUOTES)) in vocab:           # 「好き」, « le », “the”: a token in its quotes
        return (("tok", vocab.index(q)),)
    bare = re.sub(r"\s*[(（][^()（）]{1,24}[)）]$", "", s)
    if bare != s and (q := bare.strip(QUOTES)) in vocab:    # 'il (4)': a token and its place, the place
        place = re.search(r"[(（]\s*(\d{1,3})\s*[)）]$", s)
        return (("pos", int(place[1])),) if place else (("tok", vocab.index(q)),)
    m = KEY.fullmatch(s) or KEY.fullmatch(bare) or \
        KEY.fullmatch(re.sub(r"^[^\W\d_]{3,}\s+(?=[a-z]\s*=\s*\d)", "", s))   # 't = 1 (sun)', 'query t=2'
    if m:
        return (int(next(g for g in m.groups() if g is not None)),)
    return None


def _token(key) -> bool:
    """Whether a row's or column's key is a token (``('tok', id)``), not a number or a numbered place."""
    return isinstance(key, tuple) and key[0] == "tok"


def _state(cell: str) -> str | None:
    """The training state a header names: '' (the model as it starts), 'sgd[1]', 'adamw[1]', and after a
    count of steps that count (``nach 2 SGD-Schritten``: 'sgd[2]'); None if none.

    >>> _state("nach 2 SGD-Schritten"), _state("after 1 AdamW step"), _state("Ausgangsmodell"), _state("W")
    ('sgd[2]', 'adamw[1]', '', None)
    """
    s = plain(cell)
    if INITIAL.search(s):
        return ""
    m = STEPPED.search(s)
    if not m:
        return None
    k = STEP_COUNT.search(s)
    k = int(next(g for g in k.groups() if g is not None)) if k else 1
    return f"{run_of(s)}[{k}]" if k else ""


def _table_header(lines: list, no: int) -> tuple:
    """(the first line of the pipe table line ``no`` sits in, its header cells), or (0, [])."""
    if not lines[no - 1].lstrip().startswith("|"):
        return 0, []
    top = no
    while top > 1 and (lines[top - 2].lstrip().startswith("|") or GRID_RULE.fullmatch(lines[top - 2])):
        top -= 1                                  # (+---+---+ between a grid table's header and its rows)
    while GRID_RULE.fullmatch(lines[top - 1]):
        top += 1
    cells = [c.strip() for c in lines[top - 1].strip().strip("|").split("|")]
    return top, cells


def _stacked_header(lines: list, top: int, no: int) -> bool:
    """Whether a pipe table whose first line is ``top`` has a second row of labels before line ``no`` (``| head 1
    | | | head 2 |`` over ``| t | s=1 | s=2 | …``): its first row's spans then name no columns of their own."""
    return any(not re.search(r"\d[.,]\d", lines[k]) and not set(lines[k].strip()) <= set("|-: ")
               for k in range(top, no - 1))


GRID_RULE = re.compile(r"\s*\+[-=+:]+\+\s*")
"""A grid table's rule: ``+---+---------+``."""


MIXED_INDEX = re.compile(r"(.+?)_\{?[A-Za-z]\s*,\s*(\d+)\}?")
"""A column header indexed by the rows' running letter and a number (``∂L/∂E_{v,1}``, ``W_{i,2}``)."""


def _cell_label(row: str, col: str, corner: str, top: int, vocab, caption: str = "") -> Label | None:
    """A table cell's label from its row's and column's labels and the table's subject: its corner, else (a
    corner that names the rows' axis, 'query', 't \\ s') the symbol its caption gives it (``w[t][s]``)."""
    if FORMATS.search(" ".join((row, col, corner))):
        return None                                 # a float32 or bfloat16 value: that format's, not a slip
    if corner and TEMPERATURE_AXIS.fullmatch(plain(corner).strip().strip("*`")) and \
            re.fullmatch(r"\d+(?:\.\d+)?|∞|inf", plain(row).strip()):
        row = f"T = {plain(row).strip()}"         # a column of temperatures under the corner 'T': row 0.5 is T = 0.5
    rk, ck = _key(row, vocab), _key(col, vocab)
    if rk is not None and ck is not None and KEY_AXIS.match(plain(row).strip()) and \
            QUERY_AXIS.match(plain(col).strip()):
        rk, ck = ck, rk                             # rows of keys, columns of queries: the scores transposed
    if (step := _step_row(rk, col, corner, caption, vocab, row)) is not None:
        return step
    if TEMPERATURE_ROW.fullmatch(plain(row).strip()):
        rk = None                                   # 'T = 1' is a temperature, not row 1
    if TEMPERATURE_ROW.fullmatch(plain(col).strip()):
        ck = None                                   # … nor column 2
    seq = getattr(vocab, "sequence", ())
    if ck is not None and _token(ck[0]) and HEAD_MARK.fullmatch(plain(row).strip().strip("*`")) and \
            seq.count(vocab[ck[0][1]]) == 1:       # a row per head, a column per input token: the last query's weights
        return Label("A", (("at", len(seq) - 1), ("at", seq.index(vocab[ck[0][1]]))))
    if rk is not None and ck is not None:           # a matrix: the corner names it, else the table itself
        axis = not corner or AXIS.fullmatch(plain(corner).strip()) or HEAD_MARK.fullmatch(plain(corner).strip())
        lab = parse_label(plain(corner).replace(" ", ""), vocab) if not axis else None
        if lab is None and (m := CAPTION_SYMBOL.search(plain(caption))):
            lab = parse_label(m[1], vocab)
        name = lab.name if lab is not None and not lab.index else f"table@{top}"
        return Label(name, rk + ck)
    for by, across in ((row, ck), (col, rk)):     # a row per temperature and a column per token, or transposed
        t = TEMPERATURE.fullmatch(plain(by).strip())
        if t and across is not None and _token(across[0]):
            value = "inf" if t[1] in ("∞", "inf", "oo") else t[1]
            token = vocab[across[0][1]]
            return Label("softmax_T", across,
                         ref=f"p[{token}]" if value in ("1", "1.0") else f"softmax_T({value}, {token})")
    rstate = _state(row) if rk is None and ck is None else None
    if rstate is not None and (q := _header_label(col, vocab, letters=False)) is not None and not q.state:
        return Label(q.name, q.index, state=rstate)  # a row per training state, a quantity per column: J, π_bellt
    named = _header_label(col, vocab) if not re.search(r"[,;，]", col) else None   # 'ŷ_{j}' over rows j: ŷ
    mixed = MIXED_INDEX.fullmatch(plain(col).replace(" ", "")) if named is None and rk is not None else None
    if mixed and (over := _header_label(mixed[1], vocab)) is not None and not over.index:
        return Label(over.name, rk + (int(mixed[2]),))   # ∂L/∂E_{v,1} over rows v: that row's entry 1 (as written)
    if rk is not None:                              # a column of one quantity, a row per index (or step)
        return dataclasses.replace(named, index=rk + named.index) if named is not None else \
            Label(f"column@{top}:" + plain(col).strip(), rk)     # 'head 2, a': its own table's column
    row_label, over = _header_label(row, vocab, letters=False), _header_label(row, vocab)
    if over is not None and (row_label is None or not row_label.index and row_label.name not in vocab.names):
        row_label = over                            # ∂L/∂z_v over token columns: ∂L/∂z, indexed by the columns
    word = plain(row).strip().strip("*`")
    if corner and ck is not None and word.isalpha() and len(word) > 2 and word not in vocab.names and \
            (subject := _header_label(corner, vocab)) is not None and not subject.index and \
            ("∂" in subject.name or subject.name in vocab.names):
        row_label = subject                         # '∂ℒ/∂z_v' in the corner, a row 'value': the corner's quantity
    state = _state(col)
    if ck is not None and row_label is not None and not row_label.index and state is None:
        return dataclasses.replace(row_label, index=ck)    # a row of one quantity, a column per index: dL/dlogit
    if row_label is not None and state is not None:   # a quantity per row, a training state per column
        return Label(row_label.name, row_label.index, state=state)
    if ck is not None and len(ck) == 1 and isinstance(ck[0], tuple) and row_label is not None and \
            len(row_label.index) == 1 and isinstance(row_label.index[0], int) and row_label.name not in vocab:
        return Label(row_label.name, ck + row_label.index)    # row q₁ under a token's column: q at that token, q's 1
    if row_label is not None and row_label.index and (named is None or not named.index):
        name = named.name if named is not None else "column:" + plain(col).strip()
        return Label(name, row_label.index, of=row_label.name)        # AdamW's update of W_{1,跑}
    return None


STEP_CORNER = re.compile(r"k|n|#|steps?|iter(?:ation)?s?|epochs?|шаг|Schritt|étape|paso|passo|스텝|단계|ステップ|步数?",
                         re.I)
"""A table's corner over rows that count training steps (``| k | ℒ | W₁₄ |``)."""


def _step_row(rk, col: str, corner: str, caption: str, vocab, row: str = "") -> Label | None:
    """A cell of a table with a row per training step and a column per parameter entry (``W₁₄`` over rows
    k = 0, 1, 2 or rows ``step 2``): that entry after k steps (of AdamW when the caption says so, else SGD).

    >>> v = Words(["a", "b"], {"W"}, {"W"})
    >>> str(_step_row((2,), "W₁₄", "k", "", v)), str(_step_row((0,), "W_{0,b}", "step", "", v))
    ('sgd[2].W[1,4]', 'W[0,tok1]')
    >>> str(_step_row((1,), "W_{3,b}", "", "", v, "Schritt 1"))
    'sgd[1].W[3,tok1]'

    """
    if rk is None or len(rk) != 1 or not isinstance(rk[0], int) or not (
            STEP_CORNER.fullmatch(plain(corner).strip()) or re.fullmatch(rf"(?:{STEP_CORNER.pattern})\s*=?\s*\d+",
                                                                       plain(row).strip(), re.I)):
        return None
    entry = parse_label(plain(col).replace(" ", ""), vocab)
    if entry is None or not entry.index or entry.name not in getattr(vocab, "params", ()) or entry.state:
        return None
    k = rk[0]
    run = run_of(caption)
    return Label(entry.name, entry.index, state=f"{run}[{k}]" if k else "")


def _header_label(cell: str, vocab, letters: bool = True) -> Label | None:
    """The quantity a row or column header names (its index letters off: 'ŷ_{j}' is ŷ), or a function of it
    ('e^logit', 'exp(z)', '√σ²').

    >>> str(_header_label("e^logit", [])), _header_label("e^logit", []).fn, str(_header_label("ŷ_{j}", []))
    ('logit', 'exp', 'ŷ')
    >>> str(_header_label(r"\\partial\\mathcal{L}/\\partial\\gamma_{f,j}", []))
    '∂L/∂γ_f'
    >>> str(_header_label("∂L/∂z_{w} = p − y", []))
    '∂L/∂z'
    """
    s = plain(cell).replace(" ", "").strip("|│")     # (a text table's rule beside its header)
    if SOFTMAX_GRADIENT.fullmatch(s):
        return parse_label("∂L/∂z", vocab)        # p − y: the loss's gradient at the softmax's input
    if s.count("=") == 1 and (lhs := s.partition("=")[0]) and \
            (SOFTMAX_GRADIENT.fullmatch(s.partition("=")[2]) or not re.search(r"\d", s)):
        return _header_label(lhs, vocab, letters)    # '∂L/∂z_{w} = p − y': the name its formula defines
    s = LETTER_LAST.sub(r"_\1", LETTER_INDEX.sub("", s)) if letters else s
    if FUNCTION_LABEL.fullmatch(s) and re.match(r"(?:√|sqrt|exp|e\^|ln|log)", s):
        return _function_label(s, vocab)
    return parse_label(s, vocab)


def _place_in_cell(n, line_figures: list, header: list = ()) -> tuple:
    """(the figure's place among its pipe-table cell's figures, how many figures the cell holds): a cell that
    prints a vector (``| 1 | 0,3300    0,4500 |``) gives each entry its component.

    >>> from symgpt.claims.extract import extract
    >>> figs = extract("| 2 | 0.9087    0.1317 | 0.3885 |")
    >>> [_place_in_cell(f, figs) for f in figs]
    [(0, 1), (0, 2), (1, 2), (0, 1)]
    >>> figs = extract("| 2 | 0.6070 | 0.6070 | -0.0655 |")
    >>> [_place_in_cell(f, figs, ["", "q", "", "k"]) for f in figs]
    [(0, 1), (0, 2), (1, 2), (0, 1)]
    """
    text = n.line_text
    lo = text.rfind("|", 0, n.col) + 1
    hi = text.find("|", n.col)
    hi = len(text) if hi < 0 else hi
    bars = [i for i, ch in enumerate(text) if ch == "|"]
    lead = 1 if text.lstrip().startswith("|") else 0
    first = min((sum(b < m.col for b in bars) - lead for m in line_figures if m.kind != "integer"), default=0)
    if header and first == 1:        # a header over several columns (| | q | | k | |): its cells are one
        k = sum(b < n.col for b in bars) - lead
        j, end = spanned(header, k), k + 1
        while j >= 1 and end < len(header) and not header[end].strip():
            end += 1
        if j >= 1 and (j < k or end > k + 1) and j + lead - 1 >= 0 and end + lead - 1 < len(bars):
            lo, hi = bars[j + lead - 1] + 1, bars[end + lead - 1]
    inside = [m for m in line_figures if lo <= m.col < hi and m.kind in ("decimal", "percent", "integer", "power")]
    return sum(m.col < n.col for m in inside), len(inside)


def _table_label(n, lines: list, vocab, optimizer: str = "") -> Label | None:
    """A pipe table's cell: its row label, its column header, the header's corner cell (``optimizer``: the one
    the text spoke of last, which a step's superscript is of)."""
    if n.kind != "integer" and not n.column and n.width == 1 and n.row and n.line_text.lstrip().startswith("|"):
        lab = _header_label(n.row, vocab, letters=False)   # | ∂L/∂E_{seviyorum,1} | −0,6646 |: a row names its figure
        return lab if lab is not None and lab.index and not _prose_word(lab, vocab) else None
    if n.kind == "integer" or not n.column:
        return None
    top, header = _table_header(lines, n.line)
    if not top or header and n.column.strip() == header[0]:
        return None
    corner, about = (header[0] if header else ""), f"{n.heading} {optimizer}"
    lab = _stepped_cell(n.row, n.column, corner, about, vocab) or \
        _cell_label(n.row, n.column, corner, top, vocab, n.table)
    if lab is not None and (head := _head_cell(n.line_text, header)) is not None:
        lab = dataclasses.replace(lab, head=head)    # | 2 (gato) | 2 | 0,0159 |: the row's own head column says 2
    step = STEP_SUPERSCRIPT.search(plain(n.column).replace(" ", "").split("_")[0] + " ") \
        if lab is not None and getattr(vocab, "stepped", False) and not lab.state and not lab.ref else None
    if step and (k := int(step["k"] or "⁰¹²³".index(step["s"]))):    # s^{(1)}_{j} of a bigram: after step 1
        lab = dataclasses.replace(lab, state=f"{run_of(about)}[{k}]")
    return lab


def _head_cell(row: str, header: list) -> int | None:
    """The head a table row names in a column headed by the word for a head alone (``| posición | cabeza | … |``
    over ``| 2 (gato) | 2 | … |``: head 2), as written; None without such a column.

    >>> _head_cell("| 2 (gato) | 2 | 0,0159 |", ["posición", "cabeza", "q̃₁"]), _head_cell("| 1 | 0.5 |", ["t", "q"])
    (2, None)
    """
    at = next((j for j, h in enumerate(header) if HEAD_WORD.fullmatch(plain(h).strip().strip("*`"))), None)
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if at is None or at >= len(cells) or not re.fullmatch(r"\d{1,2}", cells[at]):
        return None
    return int(cells[at])


STEP_MARK = re.compile(r"^(?P<sym>.+?)(?:_\{?(?P<a>\d)\}?|(?P<a2>[₀₁₂₃])|\^\{?\((?P<b>\d)\)\}?|⁽(?P<c>[⁰¹²³])⁾)$")
"""A column header with a step number: ``g_{1}``, ``m̂_1``, ``m₁``, ``θ^{(0)}``, ``θ⁽¹⁾``."""
STEP_ROLES = {"Δ": "update", "Δθ": "update", "-Δ": "update", "ηλθ": "decay", "η·λ·θ": "decay", "ηλw": "decay",
              "λθ": "decay"}
"""Column symbols for AdamW's step of an entry (the update η·m̂/(√v̂ + ε)) and its decay (η·λ·θ)."""
GRADIENT_SYMBOLS = frozenset(("g", "grad", "gradient", "∇", "∇θ", "∇_θL", "∂L/∂θ", "dθ", "gradiente", "Gradient",
                              "梯度"))


def _stepped_cell(row: str, col: str, corner: str, heading: str, vocab) -> Label | None:
    """A cell of a table whose rows are parameters' entries (``W_{0,come}``) and whose column names a state at
    a step (``θ^{(0)}``, ``g_{1}``, ``m_{1}``, ``v̂_{1}``, ``θ^{(1)}``): that entry's value before the first step
    (step 0), its gradient, its AdamW moments at the step, or its value after the step (AdamW's under a
    heading about Adam, else SGD's).

    >>> v = Words(["a", "b"], {"W"}, {"W"})
    >>> [str(_stepped_cell("W_{0,b}", c, "θ", "5. AdamW", v)) for c in ("θ^{(0)}", "g_{1}", "m̂_{1}", "θ^{(1)}")]
    ['W[0,tok1]', 'grad_W[0,tok1]', 'm̂[W,0,tok1]', 'adamw[1].W[0,tok1]']
    >>> _stepped_cell("W_{0,b}", "m̂_{1}", "θ", "", v).ref, _stepped_cell("t = 1", "g_{1}", "", "", v)
    ('adamw[1].mhat[W,0,1]', None)
    >>> [_stepped_cell("W_{0,b}", c, "θ", "AdamW", v).ref for c in ("Δ", "ηλθ^{(0)}")]
    ['adamw[1].update[W,0,1]', 'adamw[1].decay[W,0,1]']
    """
    entry = parse_label(plain(row).replace(" ", ""), vocab)
    if entry is None or not entry.index or entry.name not in vocab.params or entry.state or entry.of:
        return None
    keys = ",".join(str(i[1] if isinstance(i, tuple) else i) for i in entry.index)
    head = re.sub(r"\^\{?\(0\)\}?|⁽⁰⁾", "", plain(col).replace(" ", ""))    # ηλθ^{(0)}: of the weight before
    role = STEP_ROLES.get(head) or STEP_WORDS.get(head.lower())
    if role and run_of(heading) == "adamw":              # Δ, ηλθ: AdamW's update and decay of the entry
        return Label(head, entry.index, of=entry.name, ref=f"adamw[1].{role}[{entry.name},{keys}]")
    m = STEP_MARK.match(plain(col).replace(" ", ""))
    if m is None:
        return None
    k = int(m["a"] or m["b"] or ("₀₁₂₃".index(m["a2"]) if m["a2"] else "⁰¹²³".index(m["c"] or "⁰")))
    sym = m["sym"]
    if sym in MOMENTS and k >= 1:
        return Label(sym, entry.index, of=entry.name, ref=f"adamw[{k}].{MOMENTS[sym]}[{entry.name},{keys}]")
        #            (the row's indices kept: a table counting from 1 shifts the ref, Notation.resolve)
    if sym in GRADIENT_SYMBOLS and k <= 1:
        return Label(f"grad_{entry.name}", entry.index)
    if sym in ("θ", "w", "W", "p", "param", entry.name) or sym == plain(corner).strip():
        if k == 0:
            return Label(entry.name, entry.index)
        return Label(entry.name, entry.index, state=f"{run_of(heading)}[{k}]")
    return None


CELL = re.compile(r"\S+(?: \S+)*")


def _cells_at(line: str) -> list:
    """A text table line's cells as (start, end, text): runs separated by two spaces or more, a tab, or a
    rule ``|`` between cells (``W[0,a]  |  0.0219 | 4.80e-07 |``), kept in place.

    >>> [t for *_, t in _cells_at("  p  |  m1 | v1 | Δ")], [t for *_, t in _cells_at("rank  word   p")]
    (['p', 'm1', 'v1', 'Δ'], ['rank', 'word', 'p'])
    """
    if line.count("|") + line.count("│") >= 2 and not line.lstrip().startswith(("|", "│")):
        line = re.sub(r"\s*[|│]\s*", lambda m: " " * len(m[0]) if len(m[0]) >= 2 else " ", line)
    return [(m.start(), m.end(), m[0]) for m in CELL.finditer(line.replace("\t", "  "))]


RULE_LINE = re.compile(r"\s*[-=_+─━═]{2,}(?:\s+[-=_+─━═]{2,})*\s*")
"""A rule drawn with dashes under or over a table laid out with spaces."""


def _text_tables(lines: list, numbers: list, vocab=()) -> dict:
    """figure index → (row label, column header, corner, header line) in tables laid out with spaces:
    a header line of labels over rows whose cells line up under them.  A header cell may be a formula over
    a figure (``p / 0.7074``); a row whose first cell is a rank is keyed by its token cell (``1  私  0.2506``).

    >>> from symgpt.claims.extract import extract
    >>> text = "      pos    sin    cos\\n       0    0.000  1.000\\n       1    0.841  0.540"
    >>> sorted(_text_tables(text.split("\\n"), extract(text)).values())[-1]
    ('1', 'sin', 'pos', 1)
    >>> text = "rank  word   p       p / 0.70\\n 1    cat    0.40    0.5714\\n 2    dog    0.30    0.4286"
    >>> sorted(_text_tables(text.split("\\n"), extract(text), ["cat", "dog"]).values())[-1]
    ('dog', 'p / 0.70', 'rank', 1)
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, []).append(n)
    out: dict = {}
    header, top, matrix = None, 0, ""
    for no, line in enumerate(lines, 1):
        cells = _cells_at(line)
        figs = at.get(no, [])
        matrix = matrix if header is not None else ""     # a matrix named on its first row: the rows below too
        if header is not None and top == no - 1 and RULE_LINE.fullmatch(line):
            top = no                                  # ----  -----  ------ under the header: the header stays
            continue
        has_figure = [any(a <= n.col < b for n in figs if n.kind != "integer") for a, b, _ in cells]
        formula = [FORMULA_CELL.fullmatch(t) is not None for *_, t in cells]   # 'p / 0.7074': a label too
        if header is not None and top == no - 1 and cells and not any(has_figure) and \
                (scripts := _scripts(header, cells)) is not None:
            header, top = scripts, no                 # the header's subscripts on a line of their own (a PDF)
            continue
        mark = [bool(INDEX_CELL.fullmatch(t.strip()) or TEMPERATURE_ROW.fullmatch(t.strip())) for *_, t in cells]
        marks = all(m or k == 0 and not re.search(r"\d", t) for k, (m, (*_, t)) in enumerate(zip(mark, cells))) \
            and sum(mark) >= 2          # j=0  j=1  j=2, or 'word  T = 0,5  T = 1  T = 2': a header too
        if len(cells) >= 2 and not any(f and not g and not m for f, g, m in zip(has_figure, formula, mark)) and \
                sum(formula) < len(cells) - 1 and not line.lstrip().startswith(("|", "#")) and \
                (marks or not re.search(r"[=≈:：]", line)) and not RULE_LINE.fullmatch(line):
            header, top = cells, no                  # labels only: a header, if rows follow
            continue
        if header is None or len(cells) < 2 or not any(has_figure):
            if not line.strip() and top == no - 1:
                continue                              # a rule under the header (booktabs in a PDF): a blank line
            header = None if not line.strip() or len(cells) < 2 else header
            continue
        corner = header[0][2] if len(header) == len(cells) and header[0][2].strip() not in vocab else ""
        first = min((n.col for n in figs if n.kind != "integer" and cells[0][0] < n.col < cells[0][1]), default=None)
        glued = first is not None and re.search(r"[\[(|]\s*$", line[:first])   # '∇_W ℒ = i=1 [ 0.1240   0.0745'
        if glued:
            said = line[cells[0][0]:first].rstrip(" [(|")
            name, _, key = said.rpartition(" = ") if " = " in said else (matrix, "", said)
            matrix, corner = name.strip(), name.strip()
        merged = any(GLUED_CELL.fullmatch(t.strip()) for *_, t in cells)
        #        (two figures one space apart, '0,3046 -0,7228', are one cell: the order of cells counts no column)
        for n in figs:
            if n.kind == "integer" or n.col < cells[0][1] and not glued:
                continue                              # the row's label itself
            k = next((i for i, (a, b, _) in enumerate(cells) if a <= n.col < b), None)
            if k is not None and len(cells) in (len(header), len(header) + 1) and not merged:   # by order:
                k -= len(cells) - len(header)                 # pdftotext keeps it, not the columns (ŷ_{j} is wide)
                if k < 0:
                    continue
                col = header[k]
            else:
                col = min(header, key=lambda h, a=n.col, b=n.col + len(n.text): (
                    max(0, h[0] - b, a - h[1]), max(a, h[0]) - min(b, h[1]), abs(a + b - h[0] - h[1])))
                #     (the header nearest it; of those touching it the one it overlaps most, then the one whose
                #      middle is nearest: '-1,0955' right-aligned under 'jõi' starts where 'kass' ended)
            if col is header[0] and corner and not glued or k is not None and \
                    FUNCTION_BEFORE.search(line[cells[k][0]:n.col]) and re.search(r"[=≈]", line[n.col:cells[k][1]]):
                continue      # (the argument in a cell 'exp(0,4000) = 1,4918': its function's, not its column's)
            out[n.index] = (key.strip() if glued else _row_key(cells, figs, vocab, header[0][2]), col[2], corner, top)
    return out


def _scripts(header: list, cells: list) -> list | None:
    """A header whose cells' subscripts a PDF set on the line below, right after them (``W  W`` over
    ``1,fly  3,fly``), joined as ``W_{1,fly}``; None when a cell of the line is not such a script.

    >>> _scripts([(0, 1, "L"), (6, 7, "W"), (16, 17, "W")], [(8, 13, "1,fly"), (18, 23, "3,fly")])
    [(0, 1, 'L'), (6, 13, 'W_{1,fly}'), (16, 23, 'W_{3,fly}')]
    """
    if not all(re.fullmatch(r"[\w,]{1,10}", t) for *_, t in cells):
        return None
    out = list(header)
    at = [next((k for k, (_, end, _) in enumerate(out) if 0 <= a - end <= 2), None) for a, _, _ in cells]
    if not all(re.search(r"[\d,]", t) for *_, t in cells) and len(cells) > 1:
        return None                             # (a second header row of words, not one word's script)
    moved = None in at or any(x <= a < y for a, _, _ in cells for x, y, _ in header)
    if moved:
        bare = [k for k, (*_, t) in enumerate(header) if re.fullmatch(r"[^\W\d_]", plain(t))]
        if len(bare) < len(cells):
            return None
        at = bare[len(bare) - len(cells):]      # (the scripts' own columns lost: the last bare letters, in order)
    for k, (_, b, text) in zip(at, cells):
        out[k] = (out[k][0], out[k][1] if moved else max(b, out[k][1]), f"{out[k][2]}_{{{text}}}")
    return out


GLUED_CELL = re.compile(r"[-+−]?\d[\d.,]*(?: [-+−]?\d[\d.,]*)+")
"""A cell of figures one space apart (``0,3046 -0,7228``): columns a single space parts, not one cell."""
INDEX_CELL = re.compile(r"[A-Za-z]{1,3}\s*=\s*\d{1,3}")
"""A header cell that is an index's value: ``j=0``, ``t = 2``."""
FORMULA_CELL = re.compile(r"[A-Za-z\u0370-\u03ff][\w']*\s*[/÷×·]\s*\d+(?:\.\d+)?")
"""A column header that divides or scales a quantity by a figure: ``p / 0.7074``, ``z ÷ 0.7``."""


def _row_key(cells: list, figs: list, vocab, corner: str = "") -> str:
    """A text table row's label: its first cell, or, when that is a rank or a mark and a later cell before the
    figures is a token, the token (a ranking lists tokens in order of their probability); not under a corner
    that names positions (``t  token  rms``: row t, its token shown beside it)."""
    first = cells[0][2]
    if first.strip() in vocab or not vocab or re.fullmatch(r"t|s|pos(?:ition)?|i|位置|Position|posição|позиция",
                                                          plain(corner).strip(), re.I):
        return first
    start = min((n.col for n in figs if n.kind != "integer"), default=len(cells[-1][2]) + cells[-1][1])
    tokens = [t for a, _, t in cells[1:] if a < start and t.strip().strip("「」\"'`") in vocab]
    if len(tokens) == 1 and re.fullmatch(r"[-–—#.*]|\d+\.?|[(（]?\d+[)）]?", first.strip()):
        return tokens[0].strip().strip("「」\"'`")
    return first


FUNCTION_BEFORE = re.compile(r"(?:\\?exp\s*\(|e\s*\^\s*[{(]?|√\s*\(?|\\?sqrt\s*[({]|\\?ln\s*\(?|\\?log\s*\(?|"
                             r"(?:GELU|gelu|ReLU|relu|SiLU|silu|swish|Swish)\s*\(|\\mathrm\{(?:GELU|ReLU|SiLU)\}\s*\()\s*$")
FUNCTION_NAME = {"e": "exp", "exp": "exp", "√": "sqrt", "sqrt": "sqrt", "ln": "log", "log": "log",
                 **{a: "act" for a in ("GELU", "gelu", "ReLU", "relu", "SiLU", "silu", "swish", "Swish")}}
"""A function a figure is the value of, by its name: ``act`` is the FFN's activation of an entry of Z."""


ATTENTION = re.compile(r"attention|attend|\bheads?\b|\bscores?\b|α|注意力|Aufmerksamkeit|\bKopf|tête|atenção|"
                       r"attenzione|atención|\btesta\b|внимани|어텐션|주의|アテンション|ヘッド|注意|chú ý|\bđầu\b|"
                       r"\buwag|głowic|\bdikkat|\bkafa|aandacht|\bkop\b|ध्यान|हेड|perhatian|\bkepala\b|\bувага|\bуваги|"
                       r"uppmärksamhet|opmærksomhed|oppmerksomhet|\bhuvud|الانتباه|انتباه|\bرأس|\bhuomio|\bpään?\b|"
                       r"figyelem|pozornost|προσοχή|\baten[tţț]i",
                       re.I)


def _token_share(n, vocab, start: int) -> Label | None:
    """A percentage beside one token in its clause: ``„laut“ mit 18.73 %``, ``34.2 % on the``: that token's
    share (the section's distribution learns which: p, a top-k's or a temperature's)."""
    rest = n.line_text[n.col + len(n.text):]
    after = AND.split(re.split(r"[,;.!?)\]]|[，；。、]", rest)[0])[0][:40]    # ('57,4% và «sữa» …': sữa's own)
    before = re.split(r"[,;!?(\[]|[，；。、]|(?<!\w)\d", n.line_text[start:n.col])[-1]
    m = APPOSITIVE.search(n.line_text[start:n.col]) or QUOTED_BEFORE.search(n.line_text[start:n.col])
    set_off = vocab.index(m[1]) if m and m[1] in vocab and len(re.findall(r"[^\W\d_]+", m[2])) <= 4 else None
    #         ('la palabra correcta, come, recibe apenas un …', '… soprattutto «sole», a cui va il 5,247 %')
    for text, side in ((after, "after"), (before, "before")):
        if side == "before" and start:     # '4.838% para “gato” e 24.96%': gato is the figure before's
            text = AND.split(text)[-1]
        words = [t for t in vocab if re.search(rf"(?<![\w]){re.escape(t)}(?![\w])", text)]
        quoted = [t for t in words if _quoted(text, t)]
        if len(words) > 1 and len(quoted) == 1:
            words = quoted                 # '25.5% فقط إلى «الولد»': the quoted token, not the word إلى ('to')
        plain_word = set_off is not None and words and not _quoted(text, words[0])
        if len(words) == 1 and _beside(text, words[0], side) and not plain_word:
            return Label("token", (("tok", vocab.index(words[0])),))
        if words and set_off is None:
            return None                    # (an unquoted token that is also a word, 'il', yields to a quoted one)
    return Label("token", (("tok", set_off),)) if set_off is not None else None


def _parallel(n, line_figs, out: dict, token: Label) -> Label | None:
    """A token's figure in a clause set beside one that names its symbol for another token: the same symbol
    for this one (``"gato" tem z_gato = 0,08 e "." tem 0,03``: z of '.').

    >>> from symgpt.claims.extract import extract
    >>> a, b = extract('"gato" tem z_gato = 0.08 e "." tem 0.03.')
    >>> str(_parallel(b, [a, b], {a.index: Label("z", (("tok", 0),))}, Label("token", (("tok", 3),))))
    'z[tok3]'
    """
    sentence = re.split(r"[.!?](?:\s|$)|。", n.line_text[:n.col])[-1]
    earlier = [m for m in line_figs if m.col < n.col and m.index in out and
               n.line_text.rfind(sentence) <= m.col]
    lab = out[earlier[-1].index] if earlier else None
    if lab is None or len(lab.index) != 1 or not (isinstance(lab.index[0], tuple) and lab.index[0][0] == "tok") or \
            lab.index == token.index or lab.name == "token" or lab.of or lab.state or lab.fn:
        return None
    return dataclasses.replace(lab, index=token.index)


def _quoted(text: str, token: str) -> bool:
    return re.search(rf"{OPEN}\s?{re.escape(token)}\s?{CLOSE}", text) is not None


OPEN, CLOSE = "[«\"“„'‘「『`*]", "[»\"”“'’」』`*]"        # (and Markdown's emphasis, *Hund*)
"""The marks a token is quoted in: « », “ ”, „ “, 「 」, ` `, ' '."""


def _prose_word(lab: Label, vocab) -> bool:
    """Whether a label is only a word of the prose before an equation ('chuẩn hóa: 0,2797 / 0,9 = …'), no
    name the model, its aliases or the prose words know: a quoted token before it may still say whose share
    it is."""
    return not (lab.index or lab.of or lab.state or lab.ref or lab.inner is not None) and \
        re.fullmatch(r"[^\W\d_]{3,}", lab.name) is not None and lab.name not in getattr(vocab, "names", ()) and \
        lab.name.lower() not in PROSE and not any(lab.name in a for a in DATA_ALIASES.values())


def _quoted_token(text: str, vocab) -> str | None:
    """The token quoted last in a text's last clause, with no figure after it (the text before a chain of
    arithmetic: '… Ví dụ “em” sau khi chuẩn hóa: '), else None."""
    clause = re.split(r"[;!?。；]|\.\s|\d", text)[-1]
    found = [(m.start(), t) for t in vocab for m in re.finditer(rf"{OPEN}\s?{re.escape(t)}\s?{CLOSE}", clause)]
    return max(found)[1] if found else None


def _quoted_before(n, vocab) -> bool:
    """Whether a token in quotes stands just before a decimal (``"I" with 0.2621``): a decimal is a token's share
    only so, where a percentage needs no quotes."""
    before = re.split(r"[,;!?(\[]|[，；。、]|(?<!\w)\d", n.line_text[:n.col])[-1]
    of = re.search(rf"(?<![^\W\d_])([^\W\d_]+)\s+(?:of|de|von|del|di|du|des|della|do|da)\s*{OPEN}", before)
    if of and of[1].lower() not in SHARE_WORDS:
        return False                   # 'rms of "the" was only 0.2739': another quantity of the token's position
    return any(re.search(rf"{OPEN}\s?{re.escape(t)}\s?{CLOSE}[^=:：^{{}}()\[\]<>≈]*$", before)
               for t in vocab)         # (not '“bebe”: e^{−0.3864}': a formula of its own follows the token)


SHARE_WORDS = {"probability", "prob", "chance", "share", "weight", "probabilité", "poids", "part", "wahrscheinlichkeit",
               "gewicht", "anteil", "probabilidad", "probabilidade", "peso", "probabilità", "quota"}
"""The words a token's share is named by ('the probability of "cat" is 0.41'), not another quantity of it."""


QUOTED_BEFORE = re.compile(r"[«\"“„'‘「]\s?([^\s«»\"“”„'‘’「」]+)\s?[»\"”“'’」]\s*[,，]([^,，;.!?«»\"“”]*)$")
"""A quoted token closing the clause before a figure's own (``«sole», a cui va il 5,247 %``)."""
APPOSITIVE = re.compile(r"[,，]\s*[`\"“«„']?([^\s,，`\"”»“']+)[`\"”»“']?\s*[,，]([^,，;.!?]*)$")
"""A token set off by commas just before a figure's clause: ``the right word, come, gets only 0.1679 %``."""


AND = re.compile(r"\s(?:and|und|et|e|y|i|и|і|та|và|ve|och|og|dan|oraz|en|és|ja|și|και|و|และ|그리고|및|"
                 r"এবং|ও|और|तथा|اور)\s|[、，]")
#    (Catalan, Polish and Czech i (not a: 'to' in Romance); Dutch en; Hungarian és; Finnish ja; Romanian și;
#     Greek και; Ukrainian і, та; Arabic and Persian و; Thai และ; Bengali এবং, ও; Hindi और, तथा; Urdu اور)
"""'and' between two shares on a line: what stands before it is the first share's."""
CHANCE = {"chance", "chances", "probability", "probabilidade", "probabilidad", "probabilità", "probabilité",
          "wahrscheinlichkeit", "kans", "szansa", "şans", "olasılık", "peluang", "вероятность", "вероятностью",
          "xác", "suất", "概率", "可能性", "確率", "확률", "share", "weight", "peso", "poids", "gewicht"}
"""Nouns of a share between a figure and its token: '2,28 % de chance para peixe', '5 % probability for the'."""
LINKING = {"on", "for", "to", "of", "with", "gets", "has", "is", "at", "auf", "für", "mit", "bekommt", "hat", "ist",
           "only", "just", "still", "nur", "noch", "lediglich", "bloß", "seulement", "encore", "solo", "sólo", "apenas",
           "ainda", "ancora", "appena", "всего", "лишь", "только", "cho", "được", "chỉ",
           "pour", "sur", "à", "avec", "a", "obtient", "est", "de", "the", "der", "die", "das", "le", "la", "les",
           "在", "于", "给", "对", "是", "为", "占", "得到", "获得", "分到", "的", "落在", "放在",
           "op", "naar", "voor", "aan", "krijgt", "heeft", "slechts", "nog", "maar", "het", "een",
           "na", "dla", "do", "otrzymuje", "dostaje", "ma", "tylko", "jeszcze", "için", "ise", "sadece", "yalnızca",
           "alır", "untuk", "pada", "ke", "mendapat", "hanya", "para", "en", "al", "per", "su", "recibe", "riceve",
           "recebe", "на", "для", "получает", "को", "पर", "के", "लिए", "मिलता", "सिर्फ़", "केवल",
           "på", "till", "til", "för", "får", "med", "av", "bara", "endast", "kun", "ger", "gir",
           "sobre", "hacia", "على", "إلى", "لـ", "ل", "نحو", "فقط", "تحصل", "يحصل"}
"""Words that may stand between a token and its share: '34 % on the', '„laut“ mit 18.73 %', 'sat gets 12 %'."""


def _beside(text: str, token: str, side: str) -> bool:
    """Whether only linking words (:data:`LINKING`) stand between the figure and the token: 'the uniform 20 %'
    is no share of the token 'the'."""
    k = list(re.finditer(rf"(?<![\w]){re.escape(token)}(?![\w])", text))
    between = text[k[-1].end():] if side == "before" else text[:k[0].start()]
    words = re.findall(r"[^\W\d_]+", between)
    quoted = _quoted(text, token)
    chance = sum(w.lower() in CHANCE for w in words)
    return all(w.lower() in LINKING or w.lower() in CHANCE for w in words) and len(words) <= 2 + chance or \
        quoted and len(words) <= 4
    #      (a token in quotes is named as one: «спит» приходится уже 3,38 %)


def _definitions(lines: list) -> dict:
    """The document's own symbols for the model's gradients, learned from its definitions: ``δ_j = ŷ_j − y_j``
    is the gradient of the logits, ``g = ∂L/∂x`` that of x: {symbol: the name we read}. A symbol defined twice
    in two ways is left alone.

    >>> _definitions(["记 δ_{j} = ŷ_{j} − y_{j}，", "g_i = ∂L/∂x_i, and p = 0.3"])
    {'δ': '∂L/∂z', 'g': '∂L/∂x'}
    >>> _definitions([r"$\\boldsymbol{\\delta} = \\partial\\mathcal{L}/\\partial\\boldsymbol{\\ell} = \\pi - y$"])
    {'δ': '∂L/∂z'}
    """
    out: dict = {}
    for line in lines:
        for clause in re.split(r"[,，;；:：]", plain(line)):
            m = DEFINITION.search(clause)
            if not m:
                continue
            sides = [m[2].strip(), *(x.strip() for x in clause[m.end(2):].split("=")[1:])]   # δ = ∂L/∂ℓ = π − y
            grad = next(("∂L/∂z" for x in sides if LOGIT_GRADIENT.fullmatch(x)), None) or \
                next((f"∂L/∂{g[1]}" for x in sides if (g := re.fullmatch(r"∂L/∂([^\W\d_]\w*?)(?:_\{?[a-z,]+\}?)?", x))),
                     None)
            if grad is not None:
                out[m[1]] = grad if out.get(m[1], grad) == grad else None
    return {k: v for k, v in out.items() if v is not None}


def _attention_share(n, vocab, start: int, above: str = "", below: str = "") -> Label | None:
    """A percentage beside one token of the input in a paragraph on attention (``34.2 % on the``): the weight
    the query puts on that token's position (the position its line or section speaks of, else the last); the
    query's own share when the words after it say 'itself' (``24.96% para ela mesma``); and where a token
    before it gives the share to a token after it (``« mange » consacre 47,32 % de son attention à « le »``,
    the sentence going on below), the first token's query's weight on the second's key."""
    seq = vocab.sequence
    wrapped = (above.rstrip().splitlines() or [""])[-1] + " " if above.strip() else ""   # (På rad ⏎ $2$ tittar …)
    sentence = re.split(r"[.!?](?:\s|$)|。", wrapped + n.line_text[:n.col])[-1]
    #          (位置 0 … 。看最后一行：… 20.4%: not 0)
    said = _row_mark(sentence, anywhere=True) if n.position is None else None
    said = _row_mark(above, anywhere=True) if said is None and n.position is None else said
    t = n.position if n.position is not None else said     # (位置 2 から見ると、… on the line above)
    t = t if t is not None and seq and t < len(seq) else ("at", t - 1) if t == len(seq) else ("at", len(seq) - 1)
    #   (position T can only count from 1: the last; a lower one's origin is learned)
    #   (a position as the text writes it, its origin learned; the last place, and a key's, from 0)
    after = re.split(r"[,;.!?)\]]|[，；。、]", n.line_text[n.col + len(n.text):] + " " + below)[0][:40]
    if seq and SELF.search(after):
        query = _querying(wrapped + n.line_text[:n.col], seq) if said is None and n.position is None else None
        t = ("at", seq.index(query)) if query is not None else t    # ('*der* schaut zu 100 % auf sich selbst')
        return Label("A", (t, t))
    k = _row_mark(after, anywhere=True) if said is not None and n.position is None else None
    if k is not None and seq:            # 'Paikka 3 … 4,932 % painolla paikkaan 2': query 3's weight on key 2,
        return Label("A", (t, ("at", k - 1) if said == len(seq) else k))     # both counted as the sentence counts
    lab = _token_share(n, vocab, start)
    if lab is None or not seq:
        return None
    word = vocab[lab.index[0][1]]
    given = GIVEN_TO.match(n.line_text[n.col + len(n.text):] + " " + below) or \
        GIVEN_NEXT.match(n.line_text[n.col + len(n.text):] + " " + below)
    if given and given[1] in seq and seq.count(given[1]) == 1:
        query = word if word in seq and seq.count(word) == 1 and re.search(
            rf"{OPEN}\s?{re.escape(word)}\s?{CLOSE}[^\d{OPEN[1:-1]}]*$", n.line_text[start:n.col]) else \
            _querying(n.line_text[:n.col], seq)
        if query is not None:
            return Label("A", (("at", seq.index(query)), ("at", seq.index(given[1]))))     # query, then key
    if word not in seq:
        return lab                   # no key of the input: the token's own share ('home a mere 21.2 %')
    if seq.count(word) != 1:
        return None                  # a token that stands twice in the input names no one position
    opening = re.match(rf"\s*(?:[^\W\d_]{{1,6}}\s+)?{OPEN}\s?([^\s{OPEN[1:-1]}{CLOSE[1:-1]}]+)\s?{CLOSE}\s*,",
                       sentence) if said is None and n.position is None else None
    query = opening[1] if opening and opening[1] in seq else None     # (only a sentence opening on it: 'At “t4”,')
    if query is not None and query != word and seq.count(query) == 1:
        t = ("at", seq.index(query))     # 'En «gato», la cabeza 1 mira un 56,3 % hacia «el»': gato's query
    return Label("A", (t, ("at", seq.index(word))))


def _querying(left: str, seq) -> str | None:
    """The token whose attention a sentence hands out, before a share given to another: the last token marked
    in the sentence so far that is not itself given a share (``「吃」作查询：头 0 把 20.4% 的注意力给「小猫」、`` →
    吃 for the share after), once in the input.

    >>> _querying("看最后一行（「吃」作查询）：头 0 把 20.4% 的注意力给「小猫」、", ["小猫", "爱", "吃"])
    '吃'
    >>> _querying("« mange » donne 30 % à « le » et ", ["le", "chat", "mange"]), _querying("then ", ["a"])
    ('mange', None)
    >>> _querying('("bea") e egal: 0.3056 pe "<s>", 0.3414 pe "pisica" și ', ["<s>", "pisica", "bea"])
    'bea'
    """
    sentence = re.split(r"[.!?](?:\s|$)|[。；;！？]", left)[-1]
    for m in reversed(list(re.finditer(rf"{OPEN}\s?([^\s{OPEN[1:-1]}{CLOSE[1:-1]}]+)\s?{CLOSE}", sentence))):
        if re.search(rf"{GIVEN_WORDS}\s*$", sentence[:m.start()], re.I) or \
                re.search(r"\d\s*%?\s*(?:[^\W\d_]{1,4}\s+)?$", sentence[:m.start()]):
            continue                     # 给「小猫」, à « le », '0.3414 pe "pisica"': a key given a share
        return m[1] if m[1] in seq and seq.count(m[1]) == 1 else None
    return None


GIVEN_WORDS = r"(?:\b(?:to|à|au|auf|an|a|al|ao|na|на|к|do|naar|aan|ke|için|para|per|pour|für|pe)|に|へ|给|에)"
"""What stands before the token a share of attention is given to."""
GIVEN_TO = re.compile(rf"[^.;!?。,，\d«»\"“”„「」]{{0,40}}?(?:attention|attenzione|atención|atenção|Aufmerksamkeit|"
                      rf"внимания|aandacht|uwagi|dikkat(?:ini)?|注意力?)\s*(?:\w+\s+){{0,2}}?"
                      rf"(?:to|à|au|auf|an|a|al|ao|na|на|к|do|naar|aan|ke|に|へ|给|에|için|para|per|pour|für)\s+"
                      rf"{OPEN}\s?([^\s«»\"“”„'‘’「」`]+)\s?{CLOSE}", re.I)
"""The token a share of attention is given to, after the figure, in the same clause: ``… de son attention à « le »``,
``… of its attention to “the”`` (not '…, compared to “t1”')."""
GIVEN_NEXT = re.compile(rf"\s*%?\s*{GIVEN_WORDS}\s+{OPEN}\s?([^\s«»\"“”„'‘’「」`*]+)\s?{CLOSE}", re.I)
"""The token a share is given to, just after it: ``*Hund* verteilt sich mit 68,27 % auf *der*``."""
SELF = re.compile(r"\b(?:itself|ela mesma|ele mesmo|sí mism[oa]|sé stess[oa]|per sé|sich selbst|lui-même|elle-même|"
                  r"себя|самого себя|chính nó|chính mình|(?:samo\s+)?siebie|kendi(?:si|sine|sinde|ni)|zichzelf|"
                  r"dirinya(?:\s+sendiri)?|sig själv|seg selv|sig selv|स्वयं|खुद|itse\w*|önmag\w*|sebe|"
                  r"τον εαυτό της|τον εαυτό του|εαυτ\w+|el însuși|ea însăși|însuși|însăși|sebe samu|samego siebie)\b|"
                  r"자기\s*자신|自己|自身", re.I)
"""The words that say a query's share goes to its own position."""


def _function_of(n, prev) -> Label | None:
    """``exp(−0.12) ≈ 0.8781``, ``e^{0.10} = 1.1052``, ``√0.18869 ≈ 0.434``: the function of the figure
    just before, which closes the equation."""
    if prev is None or prev.line != n.line or not re.fullmatch(r"\s*[)}]?\s*\$?\s*&?\s*(?:=|≈|\\approx)\s*&?\s*\$?\s*",
                                                                 n.line_text[prev.col + len(prev.text):n.col]):
        return None                          # (e^{0.39} &= 1.4769 in LaTeX's align too)
    m = FUNCTION_BEFORE.search(n.line_text[:prev.col])
    if not m or not re.search(r"(?:^|[=≈:;,&]|\\approx|\$)\s*[-−]?\s*\\?$", n.line_text[:m.start()]):
        return None                          # 1.130 / √2 = 0.799: the chain's result, not √2's
    if ARITHMETIC_NEXT.match(n.line_text, n.col + len(n.text)):
        return None                          # SiLU(0.8259) = 0.8259 / (1 + e^−0.8259): an operand, not SiLU's value
    word = re.match(r"\\?(?:mathrm\{)?(exp|e|√|sqrt|ln|log|GELU|gelu|ReLU|relu|SiLU|silu|swish|Swish)", m[0].strip())
    minus = re.search(r"[-−]\s*$", n.line_text[:m.start()])          # −ln 0.2165: the loss of that p
    return Label(("-" if minus else "") + FUNCTION_NAME[word[1]], inner=prev.index) if word else None


ARITHMETIC_NEXT = re.compile(r"\s*\$?\s*(?:[×*/÷·+]|\\times|\\cdot|\\div|[-−]\s+[\d(])")
"""What follows a figure that is the first operand of arithmetic (``0.8259 / (…)``, ``0.5 × …``, ``0.3 − 0.1``)."""


FUNCTION_HEAD = re.compile(r"\s*(?:[*•·\-]\s+)?(?:\$\s*)?\\?(?:mathrm\{|operatorname\{)?(exp|ln|log|sqrt|√|GELU|gelu|"
                           r"ReLU|relu|"
                           r"SiLU|silu|swish|Swish)\}?\s*\(\s*")
"""A line that opens on a function of a figure: ``* GELU(−0.7231) = 0.5 × … = −0.1698``."""


def _function_head(n, line_figs) -> Label | None:
    """The figure that closes a line opened by a function of a figure (``GELU(−0.7231) = … = −0.1698``):
    that function of the figure inside, however long the formula between.

    >>> from symgpt.claims.extract import extract
    >>> figs = extract("* GELU(−0.7231) = 0.5 × (−0.7231) × 1.4696 = −0.1698")
    >>> lab = _function_head(figs[-1], figs)
    >>> lab.name, figs[lab.inner].text
    ('act', '−0.7231')
    """
    m = FUNCTION_HEAD.match(n.line_text)
    inner = next((x for x in line_figs if m and x.col == m.end()), None)
    if inner is None or inner is n or n.kind not in ("decimal", "percent") or \
            not re.match(r"\s*\)\s*\$?\s*(?:=|≈|\\approx)", n.line_text[inner.col + len(inner.text):]) or \
            not re.fullmatch(r"\s*\$?\s*[.,;。]?\s*(?:\(\d+\))?\s*", n.line_text[n.col + len(n.text):]):
        return None
    between = n.line_text[inner.col + len(inner.text):n.col]
    if re.search(r"\S\s{3,}\S", between) or re.search(rf"{re.escape(m[1])}\s*\(", between):
        return None          # 'exp(0.351) = 1.420     exp(0.107) = 1.113': equations side by side, not one
    return Label(FUNCTION_NAME.get(m[1], m[1]), inner=inner.index)


class Words(list):
    """The vocabulary, with the model's own names beside it (``W_1`` is a name, ``x_1`` an entry)."""

    def __init__(self, vocab, names=(), params=(), sequence=(), made_by=None, reads=None):
        super().__init__(vocab)
        self.names, self.params, self.sequence = frozenset(names), frozenset(params), tuple(sequence)
        self.made_by = dict(made_by or {})      # a parameter's name → the one tensor it makes (W_1 → Z)
        self.reads = dict(reads or {})          # a weight's name → the one tensor it multiplies (W_1 → LN1)
        self.names |= {n.rpartition(".")[2] for n in self.names}    # l0.b_1's name is b_1 (whole, not b of 1)
        # a model without blocks (a bigram): a superscript on any name can only be a training step
        self.stepped = bool(self.names) and not any(n == "A" or n.endswith(".A") for n in self.names)


def labels(text: str, numbers: list, vocab, names=(), params=(), sequence=(), made_by=None, reads=None) -> dict:
    """figure index → its :class:`Label`, for the figures whose place names them (``names``: the model's
    own names, which keep an underscore and digits whole; ``params`` those of its parameters; ``sequence``
    the input's tokens; ``made_by``: each parameter's name → the one tensor its op makes, so that a formula
    names its result, :func:`formula_label`; ``reads``: each weight's name → the tensor it multiplies, so that
    a formula names its operand, :func:`_operand_names`)."""
    comma = decimal_comma(text)
    lines = [normal_line(x, comma) for x in re.split(r"\r\n|\r|\n", text)]
    vocab = Words(vocab, names, params, sequence, made_by, reads)
    out: dict = {}
    stacked = _stacked(lines, numbers, vocab)
    for k, (head, pos) in (_bare_matrix(lines, numbers, vocab) | _literals(lines, numbers, vocab) | stacked).items():
        n = numbers[k]
        after = n.line_text[n.col + len(n.text):]
        if k not in stacked and OPERAND_NEXT.match(after) and not SIGNED_NEXT.match(after) or \
                re.search(r"[\w)]\s*(?:[+\-−×*/·]|\\times|\\cdot)\s*\(?\s*$", n.line_text[:n.col]):
            continue                   # [0.25, 0.2136 − 1, …], (0.2 − 0.4161, …): an operand, not the entry
        out[k] = Label(head.name, head.index + tuple(("at", i) for i in pos), head.of, head.state, sup=head.sup,
                       fn=head.fn)     # exp(z) = (…): exp of each entry
    text_cells = _text_tables(lines, numbers, vocab)
    optimizer, last_named = [], ""           # the optimizer the text spoke of last, line by line
    for line in lines:
        said = re.findall(r"adam|\bsgd\b", line, re.I)
        last_named = said[-1].lower() if said else last_named
        optimizer.append(last_named)
    on_line: dict = {}
    for n in numbers:
        on_line.setdefault(n.line, []).append(n)
    for n in numbers:
        if n.index in text_cells and n.index not in out:
            lab = _cell_label(*text_cells[n.index], vocab)
            if lab is not None:
                out[n.index] = lab
        anonymous = n.index in out and out[n.index].name.startswith("literal@") and n.column
        if n.index not in out or anonymous:    # (a vector in a table's cell: the cell's labels name it)
            lab = _table_label(n, lines, vocab, optimizer[n.line - 1] if n.line - 1 < len(optimizer) else "")
            if lab is not None:
                top, header = _table_header(lines, n.line)
                k, count = _place_in_cell(n, on_line[n.line], [] if _stacked_header(lines, top, n.line) else header)
                out[n.index] = lab if count < 2 else dataclasses.replace(lab, index=lab.index + (("at", k),))
    ends: dict = {}
    last = None
    sections = _sections(lines, numbers)
    by_line: dict = {}
    for n in numbers:
        by_line.setdefault(n.line, []).append(n)
    for n in numbers:
        lab = _lhs_of(n, vocab, ends.get(n.line, 0), lines) if n.index not in out else None
        if lab is None and n.index not in out:
            lab = _continued(n, lines, vocab)
        if lab is not None:
            lab = _of_entry(lab, n, lines, vocab)
        if lab is None and n.index not in out:
            lab = _after_step(n, last) or _restated(n, last)
        if lab is not None and not lab.index and lab.name != "token":
            row = _row_mark(n.line_text[:n.col]) or _row_mark(sections.get(n.index, ""), anywhere=True)
            lab = dataclasses.replace(lab, index=(row,)) if row is not None else lab   # 第 2 行：σ²＝…
        if lab is None and n.index not in out:
            lab = _function_of(n, last) or _function_head(n, by_line.get(n.line, ()))
        if (lab is None or lab.name in ("probability", "prob") and not lab.index or _prose_word(lab, vocab)) and \
                n.index not in out and n.kind in ("percent", "decimal"):
            share = _attention_share if ATTENTION.search(n.line_text + " " + sections.get(n.index, "")) else \
                _token_share                 # in an attention paragraph: the weight on that token's position
            said = n.kind == "percent" or _quoted_before(n, vocab)
            above = (_paragraph_above(lines, n.line), lines[n.line] if n.line < len(lines) else "") \
                if share is _attention_share else ()
            mine = share(n, vocab, ends.get(n.line, 0), *above) if said else None
            if mine is None and n.chain and n.operands and n.kind == "decimal":   # '“em” …: 0,2797 / 0,9 = 0,3108'
                first = n.operands[0] if not isinstance(n.operands[0], int) else numbers[n.operands[0]]
                token = _quoted_token(first.line_text[:first.col], vocab) if first.line == n.line else None
                mine = Label("token", (("tok", vocab.index(token)),)) if token is not None else None
            if mine is not None and mine.name == "token" and n.kind == "decimal":
                mine = _parallel(n, by_line.get(n.line, ()), out, mine) or mine
            lab = mine or lab                # ('"I" with 0.2621', '"tea" … with probability 0.6225%': the token's)
        last = n
        if not (n.kind == "integer" and re.match(r"\s*(?:→|->|,|\)|\]|\})", n.line_text[n.col + len(n.text):])):
            ends[n.line] = n.col + len(n.text)     # (not an index inside a name: s(3→3) = …'s 3s)
        if lab is not None:
            out[n.index] = lab
    out.update(_echoes(numbers, out))
    heads, sups = {}, {}
    for n in numbers:
        lab = out.get(n.index)
        if lab is not None:
            header = _table_header(lines, n.line)[1] if n.column else []
            marks = (n.line_text[:n.col], _sentence(lines, n), _paragraph_above(lines, n.line), n.table,
                     header[0] if header else "", sections.get(n.index, ""))
            heads[n.index] = next((h for k, t in enumerate(marks) if (h := _head_mark(t, k > 1)) is not None), None)
            #   (its line, its sentence wrapped from above: the last head named before it; its paragraph above,
            #    its caption, its table's corner 'head 0', its section: one head only, or none)
            own = _lhs_superscript(n.line_text[:n.col]) if any(isinstance(k, tuple) and k[0] == "at"
                                                                for k in lab.index) else None
            sups[n.index] = own if own is not None else \
                next((m for t in (n.line_text[:n.col], n.column, header[0] if header else "")
                      if (m := _superscript(t))), ())      # (its table's corner: s^{[1,2]})
    for n in numbers:                  # a list of tokens' values under 'dL/dz_v = p_v − y_v': the gradient's
        lab = out.get(n.index)
        token = lab.index if lab is not None and lab.name == "token" and not lab.state else \
            _token_colon(n, vocab) if lab is None else None
        if token and n.kind == "decimal" and "=" not in n.line_text and _under_gradient(lines, n.line):
            out[n.index] = Label("∂L/∂z", token)
    defined = _definitions(lines)      # δ_j = ŷ_j − y_j: δ is the logits' gradient in this document
    operand = _operand_names(lines, numbers, vocab)     # z = x · W₁ + b₁: x is what W₁ multiplies, here
    out = {k: dataclasses.replace(lab, name=operand[sections.get(k, ""), lab.name])
           if (sections.get(k, ""), lab.name) in operand and not lab.state and not lab.of else lab
           for k, lab in out.items()}
    out = {k: dataclasses.replace(lab, name="ms", fn="sqrt+eps") if lab.name.lower() == "rms" and not lab.fn else lab
           for k, lab in out.items()}  # rms: √(mean of squares + ε), RMSNorm's divisor
    return {k: dataclasses.replace(lab, name=defined.get(lab.name, lab.name), section=sections.get(k, ""),
                                   head=lab.head if lab.head is not None else heads.get(k), sup=sups.get(k) or lab.sup)
            for k, lab in out.items() if numbers[k].kind != "integer" or lab.inner is not None}


ECHO_LINES = 3     # a figure printed again as an operand names what it was named this many lines above


def _echoes(numbers: list, out: dict) -> dict:
    """Operands with no name of their own that repeat, digit for digit, a figure named a few lines above
    (``√v₁ ≈ 0,003148`` ⏎ ``Δ = 0,01 × 0,0099557 / 0,003148``): that figure's label.  Only figures of three
    significant digits or more, in the same section.

    >>> from symgpt.claims.extract import extract
    >>> ns = extract("v = 0.003148\\nstep = 0.01 × 0.0099557 / 0.003148 = 0.0316")
    >>> {ns[k].text: str(lab) for k, lab in _echoes(ns, {0: Label("v")}).items()}
    {'0.003148': 'v'}
    """
    def operand(n) -> bool:
        return bool(OPERAND_NEXT.match(n.line_text[n.col + len(n.text):]) or
                    re.search(r"(?:[×*/÷·+\-−]|\\times|\\cdot)\s*\(?\s*$", n.line_text[:n.col]))

    seen: dict = {}
    found = {}
    for n in numbers:
        lab = out.get(n.index)
        if lab is not None:
            if not operand(n):                        # (a result or a value stated, not a term of arithmetic)
                seen[n.text] = (n, lab)
            continue
        if n.kind != "decimal" or n.significant < 3 or n.text not in seen or not operand(n):
            continue
        m, lab = seen[n.text]
        if 0 < n.line - m.line <= ECHO_LINES and m.section == n.section and lab.inner is None:
            found[n.index] = lab
    return found


PRODUCT = re.compile(r"(?<![\w∂/\\^])([^\W\d_][\w']{0,3}?)\s*[·×*@]?\s*([A-Za-z]\w*)(?!\w)")
"""A name and the weight it multiplies, in a formula's plain text: ``x · W_1``, ``h W_Q``, ``uW_1``."""


def _operand_names(lines: list, numbers: list, vocab) -> dict:
    """{(a section's title, a name): the tensor it is}, for a name a formula multiplies with a weight
    (``z = x · W₁ + b₁``: x is the tensor the model multiplies W_1 with, within that section), when one formula
    line of the section says so and no other line says otherwise.

    >>> from symgpt.claims.extract import extract
    >>> text = "## FFN\\n\\nx = (1.0, -1.0)\\nz = x · W₁ + b₁ = (0.8, -0.8)"
    >>> v = Words([], {"Z", "LN1", "W_1", "b_1"}, {"W_1", "b_1"}, reads={"W_1": "LN1"})
    >>> _operand_names(text.splitlines(), extract(text), v)
    {('FFN', 'x'): 'LN1'}
    """
    reads = getattr(vocab, "reads", None)
    if not reads:
        return {}
    heading = {n.line: n.heading for n in numbers}
    out: dict = {}
    for no, line in enumerate(lines, 1):
        if no not in heading or "=" not in line:
            continue
        s = _subscripted(plain(line))
        for m in PRODUCT.finditer(s.replace("{", "").replace("}", "")):
            name, weight = m[1], m[2]
            if weight in reads and name not in vocab.params and name not in reads and name.lower() not in WORDS:
                key = (heading[no], name)
                out[key] = reads[weight] if out.get(key, reads[weight]) == reads[weight] else None
    return {k: v for k, v in out.items() if v is not None}


def _token_colon(n, vocab) -> tuple | None:
    """The token a figure follows with a colon (``ест: 0.1650``, « le » : 0,12), as an index; else None.

    >>> from symgpt.claims.extract import extract
    >>> [_token_colon(f, ["кот", "ест"]) for f in extract("кот: 0.2747   ест: 0.1650   x: 0.5")]
    [(('tok', 0),), (('tok', 1),), None]
    """
    m = re.search(r"(\S+)\s*[:：]\s*$", n.line_text[:n.col])
    word = m[1].strip(QUOTES) if m else None
    return (("tok", vocab.index(word)),) if word in vocab else None


def _under_gradient(lines: list, no: int) -> bool:
    """Whether the line above a list of tokens' values (a blank line between them or not) writes the logits'
    gradient, ``dL/dz_v = p_v − y_v``: then the list is that gradient, token by token, not the probabilities.

    >>> _under_gradient(["  dL/dz_v = p_v - y_v,  y = one-hot", "", "  a: 0.12   b: -0.88"], 3)
    True
    >>> _under_gradient(["The probabilities:", "  a: 0.12   b: 0.88"], 2)
    False
    """
    for k in range(no - 2, max(-1, no - 4), -1):
        if lines[k].strip():
            return LOGIT_GRADIENT.search(plain(lines[k]).replace(" ", "")) is not None
    return False


HEAD_WORDS = r"head|Kopf|tête|cabeça|cabeza|testa|голова|헤드|đầu|głowica|głowa|kafa|kop|kepala|हेड|huvud(?:et)?|" \
    r"hode|hoved|رأس|الرأس|κεφαλή|κεφαλής|hlava|hlavy|fej|feje|pää|pään|capul|ראש"
HEAD_WORD = re.compile(rf"(?:{HEAD_WORDS}|头|ヘッド)", re.I)
"""The word for an attention head alone: a table column of heads."""
HEAD_MARK = re.compile(rf"\b(?:{HEAD_WORDS})\s*\$?\s*\(?(\d+)\)?|"     # (huvud $(1)$: in brackets)
                       rf"\b(?:{HEAD_WORDS})\s+(?-i:([A-H]))\b|"       # hoved A, head B: heads by letter, from A
                       r"第\s*(\d+)\s*个头|"
                       r"(?:头|ヘッド)\s*(\d+)", re.I)


def _paragraph_above(lines: list, no: int, most: int = 3) -> str:
    """The lines of a figure's paragraph above its own (up to ``most``, back to a blank line): a sentence that
    names the head on the line before the figure ('nella testa 1 … il\\n13,43 % a «il»')."""
    out = []
    for k in range(no - 2, max(-1, no - 2 - most), -1):
        if not lines[k].strip() or lines[k].lstrip().startswith(("#", "|")):
            break
        out.append(lines[k])
    return " ".join(reversed(out))


SUPERSCRIPT = re.compile(r"[^\W\d_][\w']*\}?(?:_(?:\{[^{}]*\}|\w))?"
                         r"(?:\^\{?[(\[](\d+)(?:,\s*(\d+))?[)\]]\}?|⁽([⁰¹²³⁴⁵⁶⁷⁸⁹]+)⁾)")
#                                     (\mathbf{q}^{[2]}: the brace of a bold name before its superscript;
#                                      \tilde{q}_1^{(2)}: a subscript before it)


def _lhs_superscript(text: str) -> tuple | None:
    """The superscript of the name a literal is equated to, the last name before an '=' that is not a bracketed
    formula (``attn_3 = [o^{[1]}; o^{[2]}] = (`` has none: attn's; ``o_3^{[2]} = (`` has (2,)); None when no
    '=' stands before it.

    >>> _lhs_superscript("attn_3 = [o_3^{[1]}; o_3^{[2]}] = ("), _lhs_superscript("x, o_3^{[2]} = (−0.1; ")
    ((), (2,))
    """
    parts = plain(text).split("=")
    for part in reversed(parts[:-1]):
        tail = part.rstrip()
        if re.search(r"[\])]\s*$", tail) and not re.search(r"\^\{?[\[(][^{}]*[\])]\}?$", tail):
            continue                   # '[o^{[1]}; o^{[2]}] =': a formula between the name and its value
        return _superscript(tail[-40:] + " =")
    return None


def _superscript(text: str) -> tuple:
    """The numbers of the last superscript on a name in a text (``Q^{(1)}_2 = (``: (1,); ``a^{(2,0)}``: (2, 0);
    ``o⁽⁰⁾₂,₀``: (0,)), which :mod:`symgpt.claims.notation` reads as a head or a layer; () if none.

    >>> _superscript("Q^{(1)}_2 = ("), _superscript("a^{(2, 0)}_{1,0} ="), _superscript("o⁽¹⁾₂,₀ = ")
    ((1,), (2, 0), (1,))
    >>> _superscript(r"$s^{[1,2]}$"), _superscript(r"\\mathbf{q}^{[2]}_3 = (")
    ((1, 2), (2,))
    >>> _superscript("x² = "), _superscript(r"$\\tilde{q}_1^{(2)}$"), _superscript("k_{j}^{(1)} = ")
    ((), (2,), (1,))
    """
    m = ([None] + list(SUPERSCRIPT.finditer((text or "")[-80:])))[-1]     # (the name next to the figure)
    if m is None:
        return ()
    if m[3]:
        return (int(m[3].translate(SUPERSCRIPTS)),)
    return tuple(int(g) for g in m.groups()[:2] if g is not None)


def _sentence(lines: list, n, most: int = 3) -> str:
    """The sentence a figure stands in, up to the figure, begun up to ``most`` lines above when it wraps
    (``La tête 2 fait … « chat » ⏎ et 8,74 % pour « boit »``).

    >>> from symgpt.claims.extract import extract
    >>> text = "Head 1 gives 30 %. Head 2 gives 9.8 % to a,\\n5 % to b\\nand 8.74 % to c."
    >>> _sentence(text.split("\\n"), extract(text)[3])
    'Head 2 gives 9.8 % to a, 5 % to b and '
    """
    text = n.line_text[:n.col]
    for k in range(n.line - 2, max(-1, n.line - 2 - most), -1):
        if re.search(r"[.!?。](?:\s|$)", text):
            break
        above = lines[k]
        if not above.strip() or re.search(r"[.!?。:：]\s*$", above) or above.lstrip().startswith(("|", "#", "```")):
            break
        text = above.strip() + " " + text
    return re.split(r"[.!?。](?:\s|$)", text)[-1]


def _head_mark(text: str, one: bool = False) -> int | None:
    """The last attention head a text names (``head 2``, ``第 2 个头``), as written; None if none, and with
    ``one`` (a paragraph, a caption, a title) None too where it names two heads ('head 1 and head 2').

    >>> _head_mark("head 1 gives 30 %, head 2 keeps"), _head_mark("Attention: head 1 and head 2", one=True)
    (2, None)
    >>> _head_mark("Hoved B er mere jævnt fordelt"), _head_mark("η κεφαλή 2 μοιράζει"), _head_mark("a head a")
    (2, 2, None)
    """
    heads = {_head_number(m) for m in HEAD_MARK.finditer(text or "")}
    if one and len(heads) > 1:
        return None
    m = ([None] + list(HEAD_MARK.finditer(text or "")))[-1]
    return _head_number(m) if m else None


def _head_number(m) -> int:
    """A head mark's head as written: its number, or its letter counted from A = 1 (``hoved B``: 2)."""
    g = next(g for g in m.groups() if g is not None)
    return ord(g) - ord("A") + 1 if g.isalpha() else int(g)


ROW_MARK = re.compile(r"(?:第\s*(\d+)\s*(?:行|个位置|个词)|\b(?:row|position|pos|query|ligne|Zeile|Position|vị trí|"
                      r"posizione|posición|posição|позиция|pozycj[ai]|pozisyon|konum|positie|posisi|स्थिति|"
                      r"[Rr]ad(?:en)?|[Rr][âa]nd(?:ul)?|[Ff]ila|[Rr]iga|[Ll]inha|[Ss]atır|[Rr]ij|[Bb]aris|[Hh]àng|[Сс]трок[аеи]|[Ww]iersz[au]?|पंक्ति|الصف|الموضع|"
                      r"الموقع|[Pp]aik(?:k)?a\w*|[Pp]ozíció\w*|[Pp]ozic\w*|[Pp]lats(?:en)?)\s*=?\s*\$?\s*"
                      r"(\d+)|\bt\s*=\s*(\d+)|位置\s*(\d+))")       # (rad $2$: the number in math)
SLIDE = re.compile(r"\s*\[?(?:Slide|Folie|Diapositive|幻灯片|Page)\s*\d+\]?", re.I)


def _row_mark(text: str, anywhere: bool = False) -> int | None:
    """The row a line's lead-in (``第 2 行：``, ``row 1:``, ``t=2:``) or a section's title
    (``…, position 3``) speaks of, as written (its origin is learned), else None."""
    if anywhere:
        m = ROW_MARK.search(text)
    else:                                       # the last lead-in before it: 第 1 行：…；第 2 行：σ²＝…
        m = ([None] + list(re.finditer(ROW_MARK.pattern + r"\s*[:：,，]", text)))[-1]
    return int(next(g for g in m.groups() if g is not None)) if m else None


def _sections(lines: list, numbers: list) -> dict:
    """figure index → the title of the section it stands in: its heading, or the last slide's title."""
    slides, title = {}, ""
    for no, line in enumerate(lines, 1):
        if SLIDE.match(line):
            title = line.strip()
        slides[no] = title
    return {n.index: n.heading or slides.get(n.line, "") for n in numbers}
