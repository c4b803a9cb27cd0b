"""A name as a document writes it: the :class:`Label` a figure's place gives it, and the reading of one
written name (``A[2,1]``, ``p(sat)``, ``W_{0,球}``, ``α₃₁``) into a name and its indices."""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass

from .aliases import NEW_MARKS, NEW_WORDS
from .context import NUDGED
from .extract import accented


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
LATEX = [(r"\\mathcal\{L\}|\\mathcal\s*L(?![A-Za-z])", "L"), (r"\\mathcal\s*\{([A-Z])\}", r"\1"),
         (r"\\hat\{y\}|\\hat\s*y(?![A-Za-z\d])", "ŷ"),
         (r"\\hat\s*\{([A-Za-z])\}|\\hat\s+([A-Za-z])(?![A-Za-z])",
          lambda m: unicodedata.normalize("NFC", (m[1] or m[2]) + "\u0302")),
         #   (m̂, v̂: Adam's; \hat{x}, \hat h: x̂, ĥ, a letter of its own, as the text sets it)
         (r"\\text\{([^{}]*)\}|\\mathrm\{([^{}]*)\}|\\operatorname\{([^{}]*)\}|\\mathbf\{([^{}]*)\}|"
          r"\\boldsymbol\{([^{}]*)\}|\\hat\{([^{}]*)\}", None),
         (r"(?<=[A-Za-z])\\(?:mathbf|boldsymbol|bm|vec)\s+([A-Za-z])", r" \1"),   # \mathbf o_4: o_4, bold as
         (r"\\(?:mathbf|boldsymbol|bm|vec)\s+([A-Za-z])", r"\1"),               # plain (\delta\mathbf o: δo)
         (r"\\[dt]?frac\{\\partial\s*([^{}]*)\}\{\\partial\s*((?:[^{}]|\{[^{}]*\})*)\}", r"∂\1/∂\2"),
         (r"\\[dt]?frac\s*(\d)\s*(\d)", r"(\1/\2)"),                    # \tfrac14: (1/4)
         (r"\\(?:sum|prod)(?:_\{[^{}]*\}|_\w)?(?:\^\{[^{}]*\}|\^\w)?", "Σ"),   # \sum_{j=1}^{4}: no clause
         (r"\\leftarrow|\\gets", "←"), (r"\\partial\s*", "∂"), (r"\\nabla\s*", "∇"),
         (r"\\left(?![a-z])|\\right(?![a-z])|\\[Bb]igg?[lrm]?(?![a-z])|\\,|\\;|\\!|\\quad", ""),
         (r"\\times", "×"), (r"\\cdot", "·"), (r"\\approx", "≈"),
         (r"\\to\b|\\rightarrow", "→"), (r"\\alpha", "α"), (r"\\mu", "μ"), (r"\\sigma", "σ"),
         (r"\\theta", "θ"), (r"\\eta", "η"), (r"\\lambda", "λ"), (r"\\epsilon|\\varepsilon", "ε"),
         (r"\\beta", "β"), (r"\\ln\b", "ln"), (r"\\log\b", "log"), (r"\\exp\b", "exp"), (r"\\sqrt", "√"),
         (r"\^\{2\}|\^2(?![\d.])", "²"), (r"\\ell(?![A-Za-z])", "ℓ"),
         (r"\\delta\s+(?=[A-Za-z])", "δ"),       # \delta W^Q: δW_Q, one name (a gradient in δ notation)
         (r"\\(" + "|".join(GREEK) + r")(?![A-Za-z])", lambda m: GREEK[m[1]]),
         (r"\((σ)\^\{?([A-Za-z0-9]{1,3})\}?\)²", r"\1_\2²")]     # (\sigma^f)^2: σ_f², the final norm's variance
FULL_WIDTH = str.maketrans("＝，：（）［］；－＋×𝓛ℒ𝐿∆", "=,:()[];-+×LLLΔ")    # (a script ℒ is the loss's L; the
#                                                                         increment sign ∆ is the letter Δ)
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def run_of(text: str) -> str:
    """The optimizer a heading or paragraph speaks of: 'adamw' if it names Adam, else 'sgd'.

    >>> run_of("5. AdamW step"), run_of("SGD")
    ('adamw', 'sgd')
    """
    return "adamw" if re.search(r"adam", text, re.I) else "sgd"


def names_optimizer(text: str) -> bool:
    """Whether a caption or heading names an optimizer: Adam(W) anywhere, or SGD as a word.

    >>> names_optimizer("Table 3: W after one AdamW step"), names_optimizer("SGD step"), names_optimizer("sgdx")
    (True, True, False)
    """
    return re.search(r"adam|\bsgd\b", text, re.I) is not None


def run_in(n) -> str:
    """The optimizer a figure's section speaks of: its own heading's, else the nearest enclosing section's that
    names one ('7.3 Update' under '7. One AdamW step': 'adamw'), else 'sgd'.

    >>> from types import SimpleNamespace as N
    >>> run_in(N(heading="7.3 Update", over="SGD and AdamW › 7. One AdamW step"))
    'adamw'
    >>> run_in(N(heading="3. SGD", over="AdamW"))
    'sgd'
    """
    for text in (n.heading, *reversed(getattr(n, "over", "").split(" › "))):
        if re.search(r"adam|\bsgd\b|gradient descent", text, re.I):
            return run_of(text)
    return "sgd"


SECTION_STEP = re.compile(r"第\s*(\d{1,2})\s*(?:步|ステップ)|(\d{1,2})\s*(?:번째\s*)?(?:스텝|단계)|"
                          r"ステップ\s*(\d{1,2})|\b(?:step|Schritt|шаг|étape|paso|passo|krok|pas|adım|bước|langkah|stap|"
                          r"steg|trin|vaihe|lépés|βήμα|крок|चरण|خطوة|گام)\s*(\d{1,2})\b|ขั้นที่\s*(\d{1,2})\b|"
                          r"(?<![\d.])(\d{1,2})\.\s*(?:adım|Schritt|lépés|steg|trin|vaihe|krok|skridt)\b"
                          r"(?!\s+(?:für|po|för|for|by|adım|vaiheelta|lépésre|trin|steg|krok|Schritt)\b)", re.I)
#                                          (an ordinal before its noun: '2. adım', '2. Schritt', '2. lépés')
"""A section heading or a column's header that is one training step's (``六、第 2 步（t = 2）``, ``Step 3``,
``2 단계``, ``ステップ 1``, ``ขั้นที่ 2``, ``گام 2``)."""


def share_ref(temperature: str, token: str) -> str:
    """The name of ``token``'s share at a temperature as written (``2.0`` is 2, ``1`` is p itself).

    >>> share_ref("2.0", "a"), share_ref("1.0", "a"), share_ref("0.50", "b"), share_ref("inf", "b")
    ('softmax_T(2, a)', 'p[a]', 'softmax_T(0.5, b)', 'softmax_T(inf, b)')
    """
    value = temperature.rstrip("0").rstrip(".") if "." in temperature else temperature
    return f"p[{token}]" if value == "1" else f"softmax_T({value}, {token})"


def section_step(n) -> int | None:
    """The training step a figure's own section heading is (``六、第 2 步（t = 2）``: 2), else None.

    >>> from types import SimpleNamespace as N
    >>> [section_step(N(heading=h)) for h in ("六、第 2 步（t = 2）", "Step 3: AdamW", "2 단계", "ステップ 1", "x")]
    [2, 3, 2, 1, None]
    >>> [section_step(N(heading=h)) for h in ("4. AdamW — 2. adım", "3. Der 2. Schritt", "1.2. lépés")]
    [2, 2, None]
    """
    said = SECTION_STEP.search(getattr(n, "heading", "") or "")
    return int(next(g for g in said.groups() if g)) if said else None


def plain(s: str) -> str:
    """A formula's text as plain symbols: LaTeX commands read, $ and full-width forms gone.

    >>> plain(r"$\\frac{\\partial L}{\\partial W_{1,\\text{球}}}$ ＝")
    '∂L/∂W_{1,球} ='
    >>> plain(r"\\(\\partial\\mathcal{L}/\\partial z_v\\)")
    '∂L/∂z_v'
    >>> plain(r"\\sigma^{2} = \\tfrac14\\sum_{j=1}^{4}(h_{3,j} - 0.3668)^{2} =")
    'σ² = (1/4)Σ(h_{3,j} - 0.3668)² ='
    >>> plain(r"\\hat h^{[0]}_3 = h^{[0]}_3 / 1.0874"), plain(r"\\hat{h}_3")
    ('ĥ^{[0]}_3 = h^{[0]}_3 / 1.0874', 'ĥ_3')
    >>> plain(r"$S^{(h=2)}$"), plain(r"$\\partial L / \\partial z_{\\text{ang}}$"), plain(r"$W^Q_1$")
    ('S^{(2)}', '∂L/∂z_{ang}', 'W_Q^{(1)}')
    >>> plain(r"\\delta W^Q_{1,3} = \\delta q_{4,3}"), plain(r"\\delta = 0.1")
    ('δW_Q_{1,3} = δq_{4,3}', 'δ = 0.1')
    >>> plain(r"\\boldsymbol{\\gamma}^f = (1.1, 0.9)"), plain(r"(\\sigma^{\\text{final}})^2"), plain("β^{f}_2 ← β^fi")
    ('γ_f = (1.1, 0.9)', '(σ_f)²', 'β_f_2 ← β^fi')
    """
    s = unicodedata.normalize("NFC", s)      # y + U+0302 (a PDF's ŷ) is the ŷ a tutorial types
    s = accented(s.translate(FULL_WIDTH)).replace("$", "").replace("−", "-").replace("&", "").replace("`", "")
    s = re.sub(r"\\[()\[\]]", "", s)          # MathJax's \( … \) and \[ … \]: delimiters, like $
    s = HEAD_IS.sub(r"^{(\1)}", s)            # S^{(h=2)}: head 2's, as S^{(2)}
    s = PROJECTION.sub(lambda m: f"{m[1]}_{m[2]}" + (f"^{{({m[3]})}}" if m[3] else ""), s)   # W^Q, b^{V}: W_Q,
    #                                            b_V; W^K_1: layer 1's W_K, its block's superscript
    s = BOLD_ACCENT.sub(lambda m: unicodedata.normalize("NFC", m[2] + ACCENT_MARKS[m[1]]), s)
    for rx, to in LATEX:
        s = re.sub(rx, (lambda m: next(g for g in m.groups() if g is not None)) if to is None else to, s)
    s = SPACED_QUOTIENT.sub(r"\1/", s)       # ∂L / ∂z_{ang}: one symbol, ∂L/∂z
    s = FINAL_NORM.sub(r"\1_f", s)           # γ^f, β^{final}, (σ^f)²: the final norm's, as γ_f
    return s.replace("\\", "")


FINAL_NORM = re.compile(r"(?<![\w\\])([γβμσ])\^(?:\{\s*(?:\(f\)|f|fin|final|ln_?f)\s*\}|f(?![\w{]))")
"""A norm's statistic or parameter with the final norm in a superscript (``γ^f``, ``β^{final}``, ``μ^{(f)}``)."""
PROJECTION = re.compile(r"(?<![A-Za-z\\])([Wb])\^\{?(?:\\(?:text|mathrm)\{)?([QKVO]|down|up|gate|fc|proj)\}?\}?"
                        r"(?![A-Za-z])(?:_\{?(\d)\}?(?![\d,]))?")
"""A projection named by a superscript, as the Transformer paper writes it (``W^Q``, ``W^{K}``, ``b^V``), or an
MLP's by its role (``W^{\\text{down}}``: W_down)."""
HEAD_IS = re.compile(r"\^\{\s*\(?\s*h\s*=\s*(\d+)\s*\)?\s*\}")
"""A superscript that says which head by an equation (``S^{(h=2)}``, ``α^{h=1}``)."""
SPACED_QUOTIENT = re.compile(r"((?:∂|\bd)[LℒJ])\s+/\s+(?=(?:∂|d)\w)")
r"""A derivative written with spaces round its bar (``\partial L / \partial z``)."""


BOLD_ACCENT = re.compile(r"\\(hat|tilde|bar)\s*\{\s*\\(?:mathbf|boldsymbol|bm|vec|mathrm)\s*\{\s*([A-Za-z])\s*\}\s*\}")
"""An accent over a bold letter (``\\hat{\\boldsymbol{h}}``): the accented letter, ĥ (not h, not ``hat{h}``)."""
ACCENT_MARKS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304"}


# ---------------------------------------------------------------- a name and its indices

NAME = r"(?:∂L/∂|dL/d|∇_?)?[A-Za-z\u0370-\u03ffℓ∂ŷĉĝĥĵŝŵẑāēīōūȳ][\w.'′\u0302\u0303\u0304]*"   # (a consonant with a hat:
#                                                                          ĝ, ĥ as a text sets them, precomposed)
INDEX = r"(?:\[[^\[\]]{1,24}\](?:\[[^\[\]]{1,24}\])?|_\{[^{}]{1,24}\}|_[0-9A-Za-z\u4e00-\u9fff]|[₀-₉]+|\([^()]{1,16}\))"
LHS = re.compile(rf"({NAME})\s*({INDEX})?\s*(?:\^\{{?\([\d,\s]*\)\}}?)?['′]*$")
#     (a superscript of numbers is a layer, head or step the notation reads; p^{(τ,3)} is another quantity)
NEW = re.compile(r"\bnew\b|_new\b|"
                 r"(?:(?<=\b[LJCℓ])|(?<=\bloss))_\{?(?:after|nach|après|después|depois|dopo|после)\}?(?![\w{])|"
                 r"(?<=[\]\w])new\b|\^\{?new\}?|\bupdated\b|新的?|更新后的?|nouve(?:au|lle)|"
                 rf"\bneue?[rs]?\b|(?<=[\]\w}}])\s+(?:{NEW_WORDS})\s*$|^\s*(?:{NEW_WORDS})\s+\S+\s*$|{NEW_MARKS}", re.I)
#   (the other languages' word only right beside the name, 'E[op] nieuw': 'di nuovo', 'de novo' say 'again')
BULLET = re.compile(r"^(?:[*•·▪‣+-]|\d{1,2}[.)])\s+")
WORDS = {"the", "a", "an", "of", "and", "so", "then", "thus", "here", "now", "that", "which", "its", "it",
         "we", "get", "gives", "give", "is", "are", "be", "becomes", "to", "with", "for", "in", "on", "at"}


SLICE = ("slice", None)
"""An index that runs over a whole axis (``:``, ``·``): a literal's place fills it."""
SLICE_MARKS = (":", "·", "⋅", "∶", "cdot")


def _keys(inner: str, vocab) -> tuple | None:
    """Indices as written: '2,1' → (2, 1); '0, 球' → (0, tok); '3→1' → (3, 1); '31' → (3, 1); ':,4' → (slice, 4)."""
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
        elif p in SLICE_MARKS and len(parts) > 1:
            out.append(SLICE)             # W_{:,4}, α_{2,·}: a whole row or column, its entries a literal's places
        elif p in vocab:
            out.append(("tok", vocab.index(p)))
        else:
            return None
    return tuple(out)


def named(head: str, vocab, heading: str = "") -> Label | None:
    """:func:`parse_label` of a left-hand side that may say it is the value after a training step
    (``E[1]new``, ``W_new``, ``新的 W``, ``W ←``): then its state is ``sgd[1]`` (``adamw[1]`` under a
    heading about AdamW).

    >>> str(named("E[1]new", ["a", "b"])), str(named("W_new", [])), str(named("W", [])), str(named("E[b] nieuw", ["b"]))
    ('sgd[1].E[1]', 'sgd[1].W', 'W', 'sgd[1].E[tok0]')
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
    >>> str(named("loss after one AdamW step:", [])), str(named("J after 3 steps", []))
    ('adamw[1].loss', 'sgd[3].J')
    """
    optimizer = run_of(heading)
    after = AFTER_STEPS.fullmatch(plain(head).strip().rstrip(":：").strip())
    if after is not None and (lab := parse_label(after["name"], vocab)) is not None and not lab.state:
        k = int(after["k"]) if after["k"] and after["k"].isdigit() else int(after["n"]) if after["n"] else \
            COUNT_WORDS.get((after["k"] or "").lower(), 1)          # ('setelah langkah 2', 'after step 2': the 2nd)
        run = run_of(after["opt"]) if after["opt"] else optimizer       # 'loss after one AdamW step': AdamW's
        name = "loss" if not lab.index and len(lab.name) > 1 and lab.name.lower() in LOSS_WORDS else lab.name
        return Label(name, lab.index, lab.of, f"{run}[{k}]")          # ('Verlust nach 1 Schritt': the loss's)
    step = STEP_SUPERSCRIPT.search(plain(head))
    if step and getattr(vocab, "batch", False) and step["name"] not in getattr(vocab, "params", ()):
        lab = parse_label(step["name"] + (step["rest"] or ""), vocab)   # ŷ^{(1)} of a mini-batch: the first
        k = int(step["k"] or "⁰¹²³".index(step["s"]))                  # example's (the spec's); ŷ^{(2)}: the
        if lab is None or k == 1:                                        # second's, example[1]
            return lab
        return Label(lab.name, lab.index, lab.of, f"example[{k - 1}]") if k > 1 else Label("another example")
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


AFTER_STEPS = re.compile(r"(?P<name>\S.*?)\s+(?:after|nach|après|después de|dopo|após|после|po|na|sau|setelah|efter)"
                         r"\s+(?:(?P<k>\d{1,3}|one|two|three|four|five|a|the|the first|this|that)\s+)?"
                         r"(?:(?P<opt>AdamW?|SGD|GD)[\s-]+)?(?:steps?|updates?|iterations?|Schritt\w*|étapes?|pasos?|"
                         r"pass[oi]|шаг\w*|krok\w*|stap\w*|bước|langkah|steg)(?:\s+(?P<n>\d{1,3})\b)?", re.I)
"""A name 'after' a count of training steps: ``loss after one AdamW step``, ``J after 3 steps``."""
LOSS_WORDS = {"loss", "verlust", "perte", "perda", "pérdida", "perdita", "strata", "kayıp", "verlies", "потеря",
              "потери", "损失", "損失", "손실", "kerugian"}
"""The loss's word in prose, by language."""
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "a": 1, "the": 1, "the first": 1,
               "this": 1, "that": 1}


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


GROUPED_NAME = re.compile(r"^\(\s*([^\W\d_](?:_(?![{(])\w+|\w)*?)(?:_\{?([^{}()]+?)\}?)?\s*\)_\{?([^{}()]+?)\}?$")
"""A name in brackets with its entry's subscript outside: ``(W_out)_{1,が}``, ``(e_{猫})_2`` (e's row 猫, entry 2)."""


def _grouped(m, vocab) -> str:
    """A bracketed name's entry as code writes it: its inner subscript an index where it is a token or a number
    (``(e_{猫})_2``: e[猫,2]), else part of the name (``(W_out)_{1,が}``: W_out[1,が])."""
    inner = (m[2] or "").strip()
    if inner and (inner in vocab or inner.isdigit()) and f"{m[1]}_{inner}" not in getattr(vocab, "names", ()):
        #                                   ((W_2)_{11}: W_2's entry 1,1, where W_2 is a name of the model's)
        return f"{m[1]}[{inner},{m[3]}]"
    return f"{m[1]}{'_' + inner if inner else ''}[{m[3]}]"


def parse_label(lhs: str, vocab) -> Label | None:
    """The label a left-hand side writes, or None.

    >>> v = ["猫", "吃", "鱼"]
    >>> [str(parse_label(s, v)) for s in ("A[2,1]", "p(鱼)", "W_{0,吃}", "α31", "∂L/∂z_{鱼}", "the loss", "σ_3²")]
    ['A[2,1]', 'p[tok2]', 'W[0,tok1]', 'α[3,1]', '∂L/∂z[tok2]', 'loss', 'σ²[3]']
    >>> [str(parse_label(s, v)) for s in ("∇_{x}J", "∂J/∂W_{1,吃}", "L(θ + h)", "J(w − ε)", "E[鱼]_0", "E(鱼)_{1}")]
    ['∂L/∂x', '∂L/∂W[1,tok1]', 'None', 'None', 'E[tok2,0]', 'E[tok2,1]']
    >>> w2 = ["gato", "pez"]
    >>> str(parse_label("{'pez'", w2)), str(parse_label('"pez"', w2)), str(parse_label("'鱼'", v))
    ('token[tok1]', 'token[tok1]', 'token[tok2]')
    >>> parse_label("“pez”", w2) is None                 # (prose's quotes: a share's reading, not a name's)
    True
    >>> str(parse_label("grad E[鱼]", v)), str(parse_label("z_鱼", v)), str(parse_label("g_{z}", v))
    ('grad_E[tok2]', 'z[tok2]', '∂L/∂z')
    >>> w = Words(v, {"W_2", "b_1"})
    >>> [str(parse_label(s, w)) for s in ("W₂", "W_{2}", "b₁", "x₂")]
    ['W_2', 'W_2', 'b_1', 'x[2]']
    >>> [str(parse_label(s, Words(v, {"gamma1", "beta_f"}))) for s in ("γ1", "β_{f}", "γ_f", "γ₂", "∂L/∂γ_1")]
    ['gamma1', 'beta_f', 'γ_f', 'γ[2]', '∂L/∂gamma1']
    """
    s = BULLET.sub("", unmarked(plain(lhs)).strip().rstrip("=≈←:").strip())      # '* m = …': a list item's name
    key = DICT_KEY.fullmatch(s)                # {'pescado': 0.4175}: a dict's key, quoted as code quotes
    if key and key[2] in vocab:
        return Label("token", (("tok", vocab.index(key[2])),))
    s = key[2] if key else s
    s = GROUPED_NAME.sub(lambda m: _grouped(m, vocab), s)       # (W_out)_{1,が}, (e_{猫})_2
    ours = vocab.checkpoint.read(s, vocab) if getattr(vocab, "checkpoint", None) else None
    if ours is not None:         # h.0.mlp.c_fc.weight[0, 2]: the checkpoint's name of W_1[0,2]
        return parse_label(ours, vocab)
    if NUDGED.match(s):
        return None              # L(θ + h): a nudged model's loss (a gradient check's), not the loss
    primed = re.match(r"(∂\s*(?:[LJEC]|ℒ|𝓛|𝒥|ℓ))(['′″]+)(\s*/\s*∂.+)", s)
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
    s = re.sub(r"_\{([A-Za-z]+)\}(?=\^|\[)", r"_\1", s)        # W_{Q}[2,0], W_{down}^{(1)}[1,3]: W_Q's, W_down's
    s = re.sub(r"^\(\s*(?:∇_?\{?([^{}\s∇()]+?)\}?\s*(?:[LJEC]|ℒ|𝓛|𝒥|ℓ|loss)?|∂L/∂([^()\s]+))\s*\)(?=_|\[)",
               lambda m: "∂L/∂" + (m[1] or m[2]), s)                          # (∇_e ℒ)_1, (∂L/∂x)_2: its entry
    s = re.sub(r"^∇_?\{?([^{}\s∇]+?)\}?\s*(?:[LJEC]|ℒ|𝓛|𝒥|ℓ|loss)?$", r"∂L/∂\1", s)   # ∇_W ℒ, ∇_{x}J: ∂L/∂W
    s = re.sub(r"^∂\s*(?:[JEC]|ℒ|𝓛|𝒥|ℓ)\s*/\s*∂", "∂L/∂", s)                       # ∂J/∂W, ∂ℓ/∂W: the loss is J, ℓ
    s = re.sub(r"(?:^|(?<=\s))δ\^(?!\{?[lL]\}?(?![^\W_]))(?:\{([^\W\d_]\w*)\}|([^\W\d_]))", r"∂L/∂\1\2",
               s)                                                                  # δ^z, δ^{y}_w: the error at z
    #                                                                                (not δ^l, a layer's error)
    s = re.sub(r"^grad\s+(?=[^\W\d])", "grad_", s)                             # grad E[op]: grad_E[op]
    s = re.sub(r"^g_(?:\{([A-Za-z\u0370-\u03ff][\w̃̂']*)\}|([A-Za-su-z\u0370-\u03ff]))$",
               lambda m: s if (m[1] or m[2]) in vocab or (m[1] or m[2]) in "tijksv" else f"∂L/∂{m[1] or m[2]}", s)
    #   (g_z, g_{W}: ∂L/∂z; not g_t, g_{i}: a step's or an entry's index)
    s = re.sub(r"(?:(?<=[^\W\d_])|(?<=\)))[₀-₉]+(?=['′]*$|[²\s])", lambda m: "_{" + m[0].translate(SUBSCRIPTS) + "}", s)
    s = s.translate(SUBSCRIPTS) if re.search(r"[₀-₉]", s) else s      # W₃₄ is W_{34}: row 3, column 4
    if (flat := re.sub(r"_\{(\w+)\}((?:\^\{?\(\d\)\}?)?)$", r"_\1\2", s)) in getattr(vocab, "names", ()) or \
            re.sub(r"\^\{?\(\d\)\}?$", "", flat) in getattr(vocab, "names", ()):
        s = flat                                                       # W₂, W_{2}: the model's W_2, as W_2 is
    s = re.sub(r"(?<=[^\W\d_])\(([^()|]{1,16})\|[^()]{1,24}\)", r"(\1)", s)   # p(pije|kot): of pije, given kot
    s = re.sub(r"(?<=[^\W\d_])[(\[]([^()\[\]]{1,16})[)\]]_\{?([^{}]{1,8}?)\}?$", r"[\1,\2]", s)  # E(猫)_3, E[op]_0
    s = re.sub(r"^\(([^\W\d]\w*)\)(?=_|\[)", r"\1", s)                             # (W_out)_{3,3}: W_out's
    if (own := SUPERSCRIPT_NAME.search(s)) and own[1] != "e" and \
            own[2] in set(getattr(vocab, "params", ()) or ()) | set(getattr(vocab, "names", ()) or ()) and \
            not re.search(r"[-+×*/·=<>⊙∘]", s[:own.start()]):
        keys = _keys(own[3], vocab) if own[3] else ()          # G^W_{0,食べる}: the text's own name of something
        return Label(f"{own[1]}^{own[2]}", keys) if keys is not None else None    # of W (not W itself)
    m = LHS.search(s)
    words = re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", " ", s[:m.start()]) if m else ""   # cross-entropy: no minus
    if not m or re.search(r"[-+×*/·=<>⊙∘]", re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", words)):
        return None                            # p - y = …: an expression, not one name
    name, index = m[1], m[2] or ""
    grad = re.match(r"∂L/∂|dL/d", name)
    norm = NORM_WEIGHT.fullmatch(name[grad.end() if grad else 0:] + index)
    if norm and (ours := f"{NORM_KIND[norm[1]]}{'_f' if norm[2] == 'f' else norm[2]}") in getattr(vocab, "names", ()):
        return Label(f"{grad[0] if grad else ''}{ours}")    # γ1, β_{f}, ∂L/∂β_2: a norm's weight and shift, our
        #                                                       gamma1 and beta_f, and their gradients
    if not index:                              # α31, mu1 stay whole unless they end in two digits after a Greek
        g = re.fullmatch(r"([\u0370-\u03ff])(\d\d?)", name)
        if g:
            name, index = g[1], g[2]
    split = re.fullmatch(r"(.+?)_\{?(\d+(?:,\d+)*)\}?", name) if not index else None
    if split and name not in getattr(vocab, "names", ()):
        name, index = split[1], "[" + split[2] + "]"          # z_2, x_0: an entry; W_1, b_2, d_k: names
    token = re.fullmatch(r"(.+?)_(\w+)", name) if not index and name not in getattr(vocab, "names", ()) else None
    if token and token[2] in vocab:
        name, index = token[1], "[" + token[2] + "]"          # z_home: z of the token 'home' (as z_{home})
    spelled = re.fullmatch(r"_\{((?![TLNB]\})[A-Z][A-Za-z]{0,7}|(?![ijklmnstab]{2}\})[a-z]{2,8})\}", index)
    #                                    (not _{i}, _{ij}: running indices; nor x_{T}, h_{L}: a length, a layer)
    if spelled and spelled[1] not in vocab:
        name, index = f"{name}_{spelled[1]}", ""              # W̄_{V}: a name (W̄_V), not an entry V
    if name in vocab and not index:
        return Label("token", (("tok", vocab.index(name)),))     # dort : 0.2252: the token's entry of the section's
    if name in WORDS and "," not in index and not s.startswith(name + "_") or len(name) > 24:
        return None          # distribution ('a' is a name only with two indices, a_{3,2}, or its own subscript, a_2)
    keys = _keys(index, vocab) if index else ()
    if keys is None:
        return None
    return Label(name, keys)


SUPERSCRIPT_NAME = re.compile(r"(?<![A-Za-z0-9_^\\])([A-Za-z\u0370-\u03ff])\^\{?([A-Za-z][A-Za-z0-9_]{0,6})\}?"
                              r"((?:_\{[^{}]{1,24}\}|_[0-9A-Za-z\u4e00-\u9fff]|\[[^\[\]]{1,24}\])?)\s*$")
"""A letter with a model's name as its superscript (``G^W_{0,食べる}``, ``g^{E}``): one name of the text's own, read
from its figures (a mean gradient of W's), never the name in the superscript."""
DICT_KEY = re.compile(r"[{,]?\s*(['\"])([^'\"]+)\1\s*")
"""A printed dict's key in code's quotes (``{'pescado'``, ``, 'y'``): the token it names is group 2."""
NORM_WEIGHT = re.compile(r"(γ|β|gamma|beta)_?\{?(\d|f)\}?")
"""A norm's weight or shift by its Greek letter and the norm's number (``γ1``, ``β_{f}``)."""
NORM_KIND = {"γ": "gamma", "gamma": "gamma", "β": "beta", "beta": "beta"}


FUNCTIONS = {"exp", "log", "ln", "sqrt", "softmax", "frac", "cdot", "times", "sum", "max", "min", "mathrm",
             "text", "dfrac", "tfrac", "approx", "left", "right", "big", "Big", "cos", "sin", "tanh", "erf"}


FUNCTION_LABEL = re.compile(r"(√|e\^|(?:sqrt|exp|ln|log|GELU|gelu|ReLU|relu|SiLU|silu|swish)(?![A-Za-z]))\s*"
                            r"[({]?\s*(.+?)\s*(?:\+\s*(ε|eps|epsilon))?\s*[)}]?\s*$")


ACTIVATIONS = ("gelu", "relu", "silu", "swish")
"""The FFN's activations by name: GELU(u_5) is the activation of that entry (Notation.function's 'act')."""


SCORE_ROW = re.compile(r"(?:[sS]|scores?)_\{?(\d+),?\s*[a-z]\}?(?:\s*/\s*\S+)?")
"""A row of attention's scores under a running index (``s_3i``, ``S_{3,j}``), whose exps the row's softmax sums."""


def function_label(head: str, vocab) -> Label | None:
    """``√(σ² + ε)``, ``exp(z_2)``, ``√d_k``: the function and the name it is of.

    >>> lab = function_label("√(σ²+ε)", [])
    >>> lab.name, lab.fn, str(function_label("exp(z_2)", []))
    ('σ²', 'sqrt+eps', 'z[2]')
    >>> function_label("-ln p_home", ["home"]).fn, str(function_label("Σ_v e^{logits_v}", []))
    ('-log', 'sum_exp')
    >>> function_label("Σ e^{2z}", []), function_label("Σ e^{z/2}", [])
    (None, None)
    >>> function_label("GELU(u_5)", []).fn, [str(function_label(h, [])) for h in ("Σ_i exp(s_3i)", "Σ_j exp(S_{3,j})")]
    ('act', ['A_den[3]', 'A_den[3]'])

    """
    m = FUNCTION_LABEL.search(head)
    summed = m is not None and re.search(r"[Σ∑]|\\sum|\bsum\b", head[:m.start()]) is not None
    row = SCORE_ROW.fullmatch(m[2].strip()) if summed and m[1] in ("exp", "e^") else None
    if row is not None and any(x.endswith("A_den") for x in getattr(vocab, "names", ("A_den",))):
        return Label("A_den", (int(row[1]),))                   # Σ_i exp(s_3i): the attention's denominator at 3
    lab = parse_label(m[2], vocab) if m else None
    if lab is None:
        return None
    fn = {"√": "sqrt", "e^": "exp", "ln": "log"}.get(m[1], "act" if m[1].lower() in ACTIVATIONS else m[1])
    if summed:                       # Σ_v e^{z_v}: the softmax's denominator (not Σ e^{2z}: a temperature's)
        return Label("sum_exp") if fn == "exp" and re.fullmatch(r"\{?[^\W\d_][^/*·]*", m[2].strip()) else None
    if fn == "log" and re.fullmatch(r"\s*[-−]\s*", head[:m.start()]):
        fn = "-log"                  # −ln p_home: the negated log, a loss
    return dataclasses.replace(lab, fn=fn + ("+eps" if m[3] else ""))


def subscripted(s: str) -> str:
    """Unicode subscript digits after a letter as an underscore's: ``W₁`` is ``W_1``.

    >>> subscripted("z = x · W₁ + b₁")
    'z = x · W_1 + b_1'
    """
    return re.sub(r"(?<=[A-Za-z])([₀-₉]+)", lambda m: "_" + m[1].translate(SUBSCRIPTS), s)


NEW_VALUE_NAME = re.compile(rf"(?:θ|[Tt]heta|w)(?:['′]|[_^]\{{?(?i:{NEW_WORDS})\}}?)")   # (not W', a matrix's)


class _Names(frozenset):
    """A set of names that also holds every name its pattern spells."""
    def __new__(cls, names, pattern):
        out = super().__new__(cls, names)
        out.pattern = pattern
        return out

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and (frozenset.__contains__(self, name) or bool(self.pattern.fullmatch(name)))


NEW_VALUE = _Names({"θ'", "θ′", "θ_new", "w'", "w′", "w_new"}, NEW_VALUE_NAME)
"""The names of a parameter's value after the step, written without indices under an entry's lead-in (``θ'``,
``theta_nieuw``, ``θ_{neu}``, ``w_yeni``)."""


def shown_as(token: str) -> tuple:
    """How a text shows a token of white space: a space as ␣ (and a leading space as ␣, Ġ or ▁, GPT-2's and
    SentencePiece's marks), a newline as ↵ or \\n.

    >>> shown_as(" "), shown_as(" the"), shown_as("cat")
    (('␣', '⎵'), ('␣the', 'Ġthe', '▁the'), ())
    """
    if token == " ":
        return "␣", "⎵"
    if token == "\n":
        return "↵", "\\n", "⏎"
    if token.startswith(" ") and token.strip():
        return tuple(m + token[1:] for m in "␣Ġ▁")
    return ()


class Words(list):
    """The vocabulary, with the model's own names beside it (``W_1`` is a name, ``x_1`` an entry)."""

    def __init__(self, vocab, names=(), params=(), sequence=(), made_by=None, reads=None, checkpoint=None,
                 batch=False):
        super().__init__(vocab)
        self.batch = batch                      # a mini-batch: an activation's superscript ŷ^{(2)} is its example
        self.checkpoint = checkpoint            # the spec's parameters under a checkpoint's names (wte.weight[2, 0])
        self.shown = {a: i for i, t in enumerate(vocab) for a in shown_as(t) if a not in vocab}
        self.names, self.params, self.sequence = frozenset(names), frozenset(params), tuple(sequence)
        self.made_by = dict(made_by or {})      # a parameter's name → the one tensor it makes (W_1 → Z)
        self.reads = dict(reads or {})          # a weight's name → the one tensor it multiplies (W_1 → LN1)
        self.names |= {n.rpartition(".")[2] for n in self.names}    # l0.b_1's name is b_1 (whole, not b of 1)
        # a model without blocks (a bigram): a superscript on any name can only be a training step
        self.stepped = bool(self.names) and not any(n == "A" or n.endswith(".A") for n in self.names)

    def __contains__(self, word) -> bool:
        return list.__contains__(self, word) or word in self.shown

    def index(self, word, *args) -> int:
        """A token's id, also where the text shows it by its mark (``␣`` for a space)."""
        if not list.__contains__(self, word) and word in self.shown:
            return self.shown[word]
        return list.index(self, word, *args)
