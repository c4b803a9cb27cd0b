"""A figure's name from the equation it closes: its left-hand side (``A[2,1] = 0.3901``), the lead-in that
names the entry an optimizer's states are worked for, a function of a figure (``exp(−0.12) ≈ 0.8781``), a
figure an operand repeats."""
from __future__ import annotations

import dataclasses
import re

from .aliases import DATA_ALIASES, IS_WORDS, MOMENTS, STEP_WORDS, prose_name
from .extract import HEADING
from .figure import FORMATS
from .marks import layer_mentioned, superscript_of
from .shares import AND
from .symbols import (
    BULLET,
    DICT_KEY,
    FUNCTIONS,
    NEW,
    NEW_VALUE,
    WORDS,
    Label,
    function_label,
    named,
    parse_label,
    plain,
    run_in,
    run_of,
    section_step,
    subscripted,
    unmarked,
)

IS = rf"(?<![^\W\d_])(?:{'|'.join(IS_WORDS)})(?![^\W\d_])|\bbecomes\b|变为|约为|約為|约等于|为|是|" \
     r"\bwordt\b|\bdiventa\b|\bfica\b|\bqueda\b|становится|\bolur\b|\bmenjadi\b"
"""The words that say a name's value follows ('is', 'becomes', 'ist', 'vaut', 'es', '为', '约为', 'равно', …)."""
APPOSED = re.compile(rf"(?:`(?P<code>[^`]{{1,60}})`|\$(?P<math>[^$]{{1,60}})\$)\s*,(?P<by>[^,;:=`$]{{3,90}}),\s*"
                     rf"(?:{IS})\s*$")
"""A name in code or math, then a clause set off by commas, then 'is' (``c_proj.weight.grad[1, 2]`, from channel
1 into channel 2, is``): the figure after it is the name's."""
STEPPED = re.compile(r"after|before|step|update|nach|vor|après|avant|schritt|шаг|步|後|후", re.I)
"""Words that say the set-off clause moves its name to another state: then the apposition is no plain one."""
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
OPERAND_NEXT = re.compile(r"[)\]]?\(|[)\]]?\s*(?:(?:\\[,;:!]\s*)+(?:\\(?:[bB]igg?l?|left)\s*)?|"     # (0.2816\,(…),
                          r"\\(?:[bB]igg?l?|left)\s*)\(|"
                          #                                                        0.79788\,\bigl(…): a factor)
                          r"\s*+[)\]]?+\s*+\$*+\s*+(?:[×*/÷^·+=≈²³]|\\times|\\cdot|\\div|[-−]\s*[\d(])")
#              what follows an operand, not an equation's result: 0.05 in '… = 0.05 + 0.18', (−0.1)(0.2)
FUNCTION_OF = re.compile(r"(?:√|e\^|(?:sqrt|exp|\bln|\blog|\b(?:GELU|gelu|ReLU|relu|SiLU|silu|swish))(?![A-Za-z]))\s*"
                         r"(?:\([^()=]*\)|\{[^{}=]*\}|[^\s=]+)\s*$")
ENTRY_MENTION = re.compile(r"(?<![\w\\])[A-Za-z][A-Za-z0-9_]{0,8}(?:\s*\[[^\[\]\n]{1,24}\](?:\s*\[[^\[\]\n]{1,24}\])?"
                           r"|_\{[^{}\n]{1,24}\}|[₀-₉]{2,}|\([^()\n]{1,16}\)(?:_\{[^{}\n]{1,8}\}|_\w|[₀-₉]+)|"
                           r"\([^(),\n]{1,12},[^(),\n]{1,12}\))(?![\w(])|"
                           r"(?<![\w\\])\([A-Za-z][A-Za-z0-9_{}]{0,10}\)(?:_\{[^{}\n]{1,8}\}|_\w+|[₀-₉]+)(?![\w(])")
#                            W[0, bellt], W_{0,bellt}, W₃₄, E(猫)₃, W(1, mange), (W_2)_{11}: an entry of a parameter
FROM_TO_WORDS = (("von", "auf|zu"), ("from", "to"), ("de", "à|a|para"), ("da", "a"), ("de la", "la"),
                 ("fra", "til"), ("från", "till"), ("van", "naar|tot"), ("z", "na|do"), ("с", "до|на"),
                 ("dari", "menjadi|ke"), ("từ", "lên|xuống|thành"), ("από", "σε|στο"), ("من", "إلى"))
"""Each language's own 'from' and 'to' (Czech 'z 0,36 a 0,28' is 'of 0,36 and 0,28': no pair)."""
FROM_TO = re.compile("|".join(rf"(?<!\w){f}\s*(\S+?)\s*%?\s*(?:{t})(?!\w)\s*$" for f, t in FROM_TO_WORDS) +
                     r"|从\s*(\S+?)\s*%?\s*(?:降到|升到|降至|升至|变为|变成|到)\s*$"
                     r"|จาก\s*(\S+?)\s*%?\s*(?:เป็น|เหลือ|ถึง)\s*$"
                     r"|(?<![^\s(])מ[-־]?\s*(\S+?)\s*%?\s*ל[-־]?\s*$"
                     r"|(\S+?)\s*%?\s*(?:から|より)\s*$", re.I)
"""'From A to B' ('fra 21,48 % til …', 'de 0,5 a …'); with no space between words (Thai 'ลดจาก 0.9675 เหลือ'), as
prefixes (Hebrew 'מ-0.9675 ל-'), or after A (Japanese 'から')."""
FROM_SUFFIX = re.compile(r"([-−]?\d+[.,]\d+)\s*%?\s*(?:에서|से|['’][dt][ae]n|:(?:st[äa]|lt[äa]))\s*$")
TO_SUFFIX = re.compile(r"\s*%?\s*(?:으?로|까지|तक|['’](?:y?[ae]|n[ae])(?![^\W\d_])|"
                       r":(?:een|ksi|iin|aan|ään|lle)(?![^\W\d_]))")
"""'From A to B' with both words after their figures (Korean '0.9675에서 0.7881로', Hindi '0.9675 से 0.7881 तक',
Turkish "0,9675'ten 0,7881'e", Finnish '0,9675:stä 0,7881:een'): 'from' alone after A is too little (에서 and से are
also 'at' and 'minus')."""
SCALED_DOT = re.compile(r"(?<![A-Za-z])q_?\{?(\d+)\}?\s*[·⋅]\s*k_?\{?(\d+)\}?\s*/\s*√\s*[{(]?\s*"
                        r"(?:\d+(?:\.\d+)?|d_?\{?k\}?)\s*[})]?\s*$")   # q_t · k_s / √d_k: the score of t on s
DEFINITION = re.compile(r"(?<![\w\\/∂])([^\W\d_pyzLxWE])(?:_\{?[a-z]\}?)?\s*=\s*([^=]+?)\s*(?:=|$)")
LOGIT_GRADIENT = re.compile(r"(?:ŷ|p|π|q|\\hat\{y\}|softmax\([^()]*\))(?:_\{?[a-z]\}?)?\s*-\s*(?:y|t|onehot|one-hot)"
                            r"(?:_\{?[a-z]\}?|\(\w+\))?")          # ŷ_j − y_j: the gradient of the logits
OPTIMIZER_STATE = re.compile(r"state\[\s*(\w+)\s*\]\s*\[\s*['\"](exp_avg(?:_sq)?)['\"]\s*\]")   # PyTorch's Adam
SOFTMAX_GRADIENT = re.compile(r"(?:[δΔ]\w*=)?(?:p|π|ŷ|probs?)(?:_\{?\w+\}?|\[\w+\])?-(?:y|onehot|one_hot)"
                              r"(?:_\{?\w+\}?|\[\w+\])?")
"""A header that writes the gradient at the logits as its formula: ``p − y``, ``p_v − y_v``, ``δ = p − y``."""
LETTER_INDEX = re.compile(r"(?:_\{?[a-z]\}?|\[[a-z]\])(?=[)}]?$)")   # z_{j}, p[j], exp(z[j]), e^{s_{j}}: an index
LETTER_LAST = re.compile(r"_\{([^\W\d]\w*),\s*[a-z]\}(?=[)}]?$)")    # γ_{f,j}: γ_f, its index j over the columns
VALUE_WORDS = {"wert", "value", "valeur", "值", "weight", "gewicht"}     # 'neuer Wert …', 'new value …'
LEAD_LINES = 12          # a lead-in names the entry of the lines below it, back to the heading and this far
def _arithmetic(chain: str, vocab=()) -> bool:
    """Only figures, operators, functions, short names and the vocabulary's tokens as indices (``p'(تشرب)``): an
    equation's chain, not a sentence.

    >>> _arithmetic("x'1 × (p'(تشرب) − 1)", ["تشرب"]), _arithmetic("0.5 × 2", []), _arithmetic("我们得到 0.5", [])
    (True, True, False)
    >>> _arithmetic("x_1 (ŷ_{içerim} − y_{içerim}) = 0.3 × 0.1463", ["içerim"])      # a token as a subscript
    True
    >>> _arithmetic("x_1 · (p̂_mangia − y_mangia) = 0.4 × 0.7", ["mangia"]), _arithmetic("x_mangiare", ["mangia"])
    (True, False)
    """
    words = sorted((w for w in vocab if isinstance(w, str) and len(w) > 1), key=len, reverse=True)
    if words:
        chain = re.sub(r"[(\[,{]\s*(?:" + "|".join(map(re.escape, words)) + r")\s*(?=[)\],}])", "(", chain)
        chain = re.sub(r"_(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", "", chain)   # p̂_mangia: a subscript
    return not re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", chain) and \
        all(w in FUNCTIONS for w in re.findall(r"[^\W\d_]{3,}", chain) if not re.fullmatch(r"[\u0370-\u03ff]+", w))


CONTINUES = re.compile(r"\s*+\$*+\s*+&?+\s*+(?:\\q?quad\s*+)*+(?:[-+−=≈]|\\approx)")   # (possessive: linear)


OPERATOR_END = re.compile(r"\d\)?\s*(?:[+×·−]|\s\*|\\times|\\cdot)\s*\$?\s*$")     # (not *0.5*'s emphasis)
"""A line that breaks inside a sum or a product (``q31 = 0.6093 × 0.3 +``): the equation goes on below."""


def stacked_fraction(lines: list, no: int, col: int) -> str | None:
    """The name a display sets as a fraction over the lines above and below an equals sign that begins line
    ``no`` (1-based; ``col`` where its literal opens), as a PDF's text lays it out: ``∂L`` ⏎ ``= (…)`` ⏎ ``∂z`` →
    ``∂L/∂z =``; None when the line holds more than '=' before the literal, or the lines around are no fraction.

    >>> stacked_fraction(["      ∂L", "       = (0,2; 0,8)", "      ∂z"], 2, 9)
    '∂L/∂z ='
    >>> stacked_fraction(["      ∂L", "        = (0,2; 0,8)", "    ∂E_{a,1}"], 2, 10)
    '∂L/∂E_{a,1} ='
    >>> stacked_fraction(["a", "= (1)"], 2, 2) is None                        # no line below
    True
    >>> stacked_fraction(["   ∂L", "x = (0,2)", "   ∂z"], 2, 4) is None          # a name before the '='
    True
    >>> stacked_fraction(["∂L", "           = (0,2)", "          ∂z"], 2, 13) is None   # not one above the other
    True
    """
    if not re.fullmatch(r"\s*=\s*", lines[no - 1][:col]) or no < 2 or no >= len(lines):
        return None
    eq = lines[no - 1].index("=")
    top, bottom = lines[no - 2], lines[no]
    parts = [(len(x) - len(x.lstrip()), x.strip()) for x in (top, bottom)]
    seen = lambda t: len(re.sub(r"[_^{}]", "", t))      # noqa: E731  (as set: E_{lait,1} is Eₗₐᵢₜ,₁ on the page)
    if any(not t or seen(t) > 12 or re.search(r"\d[.,]\d", t) or start + seen(t) > eq + 1 for start, t in parts):
        return None
    (a, num), (b, den) = parts
    if a > b + len(den) or b > a + len(num):
        return None                      # (not one above the other)
    return f"{num}/{den} ="


WRAPPED_AT_EQUALS = re.compile(r"(?:^|[=≈:,;]\s*|[^\W\d_]{2,}\s+)(?P<name>[^\s=≈:,;]+)\s*(?:=|≈)\s*\$?\s*$")
"""A line that ends on one name and its '=', after prose or at its clause's start (``la pèrdua és ℓ_{2} =``), not
after a formula's operator or symbol (``z = W x + b =``, ``o = A v =``: the right side goes on below)."""


def continued_label(n, lines: list, vocab) -> Label | None:
    """The result of an equation wrapped over lines (``k_{3,2} &= … \\\\`` then ``&\\qquad + … = -0.345``, or a
    line that breaks after an operator, ``… q31 = 0.6093 × 0.3 +`` then ``(−0.1161) × 0.4 = 0.1364``): the left
    side of the line it continues, up to three lines above.

    >>> from symgpt.claims.extract import extract
    >>> text = "Check one entry: q31 = 0.6093 × 0.3 +\\n(−0.1161) × 0.4 = 0.1364, and more"
    >>> str(continued_label(extract(text)[-1], text.split("\\n"), []))
    'q31'
    >>> text = "and the loss is ℓ_{2} =\\n0.9447: down by a quarter"      # a sentence wrapped at its "="
    >>> str(continued_label(extract(text)[-1], text.split("\\n"), []))
    'ℓ[2]'
    >>> [continued_label(extract(t)[-1], t.split("\\n"), []) for t in ("z = W x + b =\\n0.5312", "o = A v =\\n0.4613")]
    [None, None]
    """
    if n.kind != "integer" and n.line >= 2 and not n.line_text[:n.col].strip(" $*") and \
            not OPERAND_NEXT.match(n.line_text[n.col + len(n.text):]) and \
            (end := WRAPPED_AT_EQUALS.search(plain(lines[n.line - 2]))):
        return named(end["name"], vocab, n.heading)   # '… i la pèrdua és ℓ_{2} =' ⏎ '0,9447: en dos passos …': ℓ_2
    wrapped = n.line >= 2 and OPERATOR_END.search(lines[n.line - 2]) and \
        len(re.findall(r"[=≈]", n.line_text[:n.col])) == 1     # '… q31 = 0.6093 × 0.3 +' ⏎ '(−0.1161) × 0.4 = 0.1364'
    if n.kind == "integer" or not (CONTINUES.match(n.line_text) or wrapped) or \
            not re.search(r"[=≈]\s*\$*\s*$", n.line_text[:n.col]):
        return None
    rest = n.line_text[n.col + len(n.text):]
    if OPERAND_NEXT.match(rest):
        return None
    if "=" in n.line_text and (frac := stacked_fraction(lines, n.line, n.line_text.index("=") + 1)):
        return named(frac.rstrip(" ="), vocab, n.heading)    # ∂L ⏎ = (p − y)·h = 0,1286 ⏎ ∂E_{lait,1}: a PDF's
    for k in range(n.line - 2, max(-1, n.line - 5), -1):
        above = lines[k]
        if not above.strip():
            return None
        if not CONTINUES.match(above):
            head = re.split(r"=|≈|\\approx", last_clause(plain(above)) if wrapped else plain(above))[0]
            lab = named(head, vocab, n.heading) if re.search(r"[=≈]|\\approx", above) else None
            return dataclasses.replace(lab, sup=superscript_of(head)) if lab is not None else None
            #      (e^{(2)}_{31} = \frac{…} ⏎ = … = −0.5152: head 2's, as the line it continues says)
    return None


def last_clause(left: str) -> str:
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


GREEK_SYMBOL = re.compile(r"(\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|eta|theta|lambda|mu|sigma|tau|rho|"
                          r"omega|pi|nu|kappa|xi|zeta|phi|chi|psi))(?![A-Za-z])\s*(?:=|\\approx)\s*$")
"""A Greek letter written as a LaTeX command right before '=' (``$\\eta = …``): a symbol (a setting), even where the
same letter is a token of a Greek vocabulary (η, the article)."""


STATISTIC_OF = re.compile(r"\b(?:mean square|mean|average|variance|std|standard deviation|rms|Mittelwert|Varianz|"
                          r"moyenne|media|varianza|média|среднее|дисперсия)\s+"
                          r"(?:of|von|de|du|des|del|di|della|da|do|der)\s+\S{1,30}\s*"
                          rf"(?:=|≈|:|{IS})\s*$", re.I)
"""A statistic of a name before a figure ('the mean square of y₃ is 0.1189', 'la moyenne de x est'): the
statistic's figure, not the name's."""


ENTRY_WORDS = r"entry|element|component|coefficient|entrada|elemento|componente|entrée|élément|composante|" \
    r"Eintrag|Komponente|voce|wpis|składow\w*|элемент\w*|компонент\w*|元素|分量|要素|成分|성분|원소"
ENTRY_AT = re.compile(rf"(?<![^\W\d_])(?:{ENTRY_WORDS})(?![^\W\d_])\s*\$?\s*(?P<idx>\[[^\[\]$]{{1,20}}\]|"
                      rf"\([^()$]{{1,20}}\))\s*\$?(?:\s*(?:of|de|von|del|di|du|des|der|della)\s+(?P<of>\S{{1,30}}))?"
                      rf"\s*(?:(?:{IS}|hat(?:\s+sie)?\s+den\s+Wert|has\s+the\s+value|a\s+la\s+valeur|[=:：])"
                      rf"(?:\s+(?:only|just|about|apenas|solo|sólo|nur|seulement|solo|только|仅|约))?)\s*$", re.I)
"""An entry by its word and index before its figure, maybe then the tensor it is of, then 'is' (``its entry [1,2] is
only``, ``l'élément (1, 2) de ∂L/∂W_Q vaut``, ``Eintrag [1,2] hat den Wert``); not 'of Q squared is'."""
NAME_SPAN = re.compile(r"\$([^$]{1,40})\$|`([^`]{1,40})`|((?:∂L/∂|dL/d|grad_|∇_?)?[A-Za-z][\w.]{0,12}(?:\.grad)?)")
GRADIENT_OF_WORDS = re.compile(r"(?:gradient|gradiente|Gradient|градиент)\s*(?:of|de|von|del|di|du|des|der|della|"
                               r"по|nach)?\s*$|(?:∂L\s*/\s*∂)$", re.I)
"""'the gradient of' right before a name: the entry is its gradient's."""


def entry_at(left: str, vocab, heading: str = "") -> Label | None:
    """The entry a sentence names by a word and an index before its figure, of the tensor written after the index
    ('of ∂L/∂W_Q') or named last before it in the sentence (with 'the gradient of' before it: the gradient's).

    >>> from .symbols import Words
    >>> v = Words(["a", "b"], {"E", "W_Q", "Q"}, {"E", "W_Q"})
    >>> str(entry_at("The gradient of $W_Q$ is small: its entry $[1,2]$ is only ", v))
    '∂L/∂W_Q[1,2]'
    >>> str(entry_at("El elemento (0, 1) de Q vale ", v)), entry_at("The entry [1,2] = 3 × ", v)
    ('Q[0,1]', None)
    """
    sentence = re.split(r"(?<=[^\d\s])[.;!?。；](?:\s|$)", left)[-1]
    m = ENTRY_AT.search(sentence)
    if m is None:
        return None
    index = m["idx"][1:-1]
    if not re.fullmatch(r"\s*\w+\s*(?:,\s*\w+\s*){0,2}", index):
        return None
    if m["of"]:
        name = m["of"].strip("$`")
    else:
        name = None
        for span in reversed(list(NAME_SPAN.finditer(sentence[:m.start()]))):
            text = (span[1] or span[2] or span[3]).strip()
            before = plain(sentence[:span.start()]).rstrip()
            if span[3] and not GRADIENT_OF_WORDS.search(before) and not re.match(r"∂|dL/d|grad_|∇", text):
                continue                       # a bare word of the prose ('small', 'With Q known'): only a symbol
                #                                set as math or code, or named as a gradient's ('the gradient of W')
            if named(text, vocab, heading) is not None and text.lower() not in {w.lower() for w in vocab}:
                name = f"∂L/∂{text}" if GRADIENT_OF_WORDS.search(before) and not re.match(r"∂|d[A-Z]|grad", text) \
                    else text
                break
        if name is None:
            return None
    return named(f"{name}[{index}]", vocab, heading)


GRADIENT_NEXT = re.compile(r"(?<![^\W\d_])(?:gradient|Gradienten?|gradiente|градиент\w*|梯度|勾配|그래디언트)"
                           r"\s*(?:is|ist|est|è|es|é|of|von|de|di|=|:|：)?\s*$", re.I)
"""'… has the gradient', 'hat den Gradienten' right before a figure: the gradient of the entry the sentence names."""


def gradient_had(left: str, vocab, heading: str = "") -> Label | None:
    """The gradient of the one parameter entry a sentence sets as math or code, when 'gradient' stands right before
    the figure (``Der Eintrag $W^{K}_{1,0}$ (also `c_attn.weight[1, 4]`) hat den Gradienten``): its label, ∂L/∂ of
    the entry; None when the sentence names no entry, or several.

    >>> from .symbols import Words
    >>> v = Words(["a", "b"], {"W_K", "E"}, {"W_K", "E"})
    >>> str(gradient_had("Der Eintrag $W^{K}_{1,0}$ hat den Gradienten ", v))
    '∂L/∂W_K[1,0]'
    >>> gradient_had("Der Gradient ", v), gradient_had("$E_{a,0}$ and $E_{b,0}$ have the gradient ", v)
    (None, None)
    """
    sentence = re.split(r"(?<=[^\d\s])[.;!?。；](?:\s|$)", left)[-1]
    said = GRADIENT_NEXT.search(sentence)
    if said is None:
        return None
    entries = []
    for span in NAME_SPAN.finditer(sentence[:said.start()]):
        text = (span[1] or "").strip()
        lab = named(text, vocab, heading) if text else None
        if lab is not None and lab.index and lab.name in {p.rpartition(".")[2] for p in vocab.params}:
            entries.append(text)           # (W_K of a block too: the figures learn which)
    if len(entries) != 1:
        return None
    return named(f"∂L/∂{entries[0]}", vocab, heading)


LEAD_NUMBER = re.compile(r"\s*[^\W\d_]+\s*\d+\s*[^\W\d_]{0,3}\s*")
"""A lead-in of a word and a number before a colon ('Row 3', 'Kopf 2', '第 3 行', '头 2'): not the equation's head."""


def lhs_of(n, vocab, start: int = 0, lines: list | None = None) -> Label | None:
    """The label of a figure that closes its clause's equation: the clause's left-hand side.

    ``start`` is where the previous figure of the line ends: ``p(<s>) = 0.160    p(we) = 0.322`` names
    0.322 by the text after 0.160; ``L = -ln 0.2165 = 1.5302`` names 1.5302 by the clause's head.
    With the document's ``lines``, a step's words (``Schritt …``, ``neuer Wert …``) name the state of the
    entry a lead-in names (:func:`of_entry`).
    """
    if n.kind == "integer":
        return None                            # a count, an id, a size: read by the matcher's own rules
    left = n.line_text[:n.col]
    if STATISTIC_OF.search(plain(left[start:])):
        return None                            # 'the mean square of y_3 is 0.1189': a statistic of y_3, not y_3
    rest = n.line_text[n.col + len(n.text):]
    if OPERAND_NEXT.match(rest):
        return None                            # an operand: 0.05 in … = 0.05 + 0.18 + 0.06
    if (lab := entry_at(left[start:], vocab, n.heading)) is not None:
        return lab                             # 'the gradient of $W_Q$ …: its entry [1,2] is only 0.0012'
    if (lab := gradient_had(left[start:], vocab, n.heading)) is not None:
        return lab                             # 'Der Eintrag $W^K_{1,0}$ (…) hat den Gradienten −0,0224'
    if not RELATION.search(plain(left[-12:]).rstrip(" [(")) and not re.search(r"[=≈]\s*[\[(]?\s*$", left):
        step = next((w for w in re.findall(r"[^\W\d_]+", left[start:])[-3:] if w.lower() in STEP_WORDS), None)
        if step and lines is not None and not FORMATS.search(" ".join((n.column, n.row, n.table))) and \
                not re.search(rf"\d\s*{re.escape(step)}s?[\s|:]*$", left):     # ('| 1 step |': a count of steps)
            #                 'Zerfall 4.0e-05', 'der Schritt wäre dann …' under a lead-in (not a bfloat16 cell)
            return of_entry(Label(STEP_WORDS[step.lower()]), n, lines, vocab, strict=True)
        name = prose_name(left[start:])          # 'its variance 1.053', 'the variance is 1.053', '분산은 1.053'
        return Label(name) if name else None
    if (greek := GREEK_SYMBOL.search(left)) and plain(greek[1]) in vocab:
        return Label(plain(greek[1]))          # $\eta = 0{,}05$ where η is also a word: the symbol, not the token
    lhs = re.search(r"([^=≈:,;]*)[=≈]\s*$", plain(left))
    tail = CONSTANT_TAIL.search(lhs[1].rstrip()) if lhs else None
    if tail and not re.search(r"[-+−×*/·÷^)\]\d]\s*$", lhs[1][:tail.start()]) and \
            (const := _constant(tail[0])) is not None:      # (not q·k / √2 = …: the constant is one operand)
        return Label("const", ref=const)       # '… 균등 분포였다면 ln 5 ≈ 1.6094', '√(2/π) = 0.7979': the number
    qk = SCALED_DOT.search(lhs[1]) if lhs else None
    if qk:
        return Label("S", (int(qk[1]), int(qk[2])))           # q_2 · k_1 / √2 = …: the score S[2,1]
    apposed = APPOSED.search(left[start:])
    if apposed and not STEPPED.search(apposed["by"]) and \
            (lab := named(apposed["code"] or apposed["math"], vocab, n.heading)) is not None:
        return lab                             # 'For instance `W.grad[1, 2]`, from … into …, is 0.3956': the name
    opened = left.rfind("$")
    inline = left[opened + 1:] if left.count("$") % 2 == 1 and "$$" not in left and "=" in left[:opened] else left
    #        (inside $…$ after another equation: '$m_1 = … = −0.0024$ na $v_1 = … = 5.75·10⁻⁷$' names v_1)
    for first, clause in ((True, unmarked(last_clause(plain(left[start:])), vocab)),
                          (False, unmarked(_joined(last_clause(plain(inline))), vocab))):
        parts = re.split(rf"(=|≈|←|:(?!=)|{IS})", clause)
        if not first and len(parts) >= 5 and parts[1] == ":" and (
                re.search(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}", parts[0]) or LEAD_NUMBER.fullmatch(parts[0]) or
                re.match(r"\s*[^\W\d_]{2,}\s+\S", parts[0]) and named(parts[2].strip(), vocab, n.heading) is not None):
            parts = parts[2:]              # 'The target by hand: e^{z_home} = e^{0.318} = …', '头 2：q̃₃[3] = …',
            #                                'для W_{2,молоко}: m_{2} = …': the equation's own head
        recip = re.search(r"(?:^|[,;]|\s)\s*1\s*/\s*([^\s/(),;]+)\s*$", plain(parts[-3])) if len(parts) >= 3 else None
        if recip and (inner := named(recip[1], vocab, n.heading)) is not None:
            return dataclasses.replace(inner, fn="recip")    # 1/ρ₀ = 3.2025: the reciprocal of what ρ₀ names
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
                and (named(parts[j], vocab, n.heading) is not None or _summed_exp(parts[j], vocab)) and \
                not re.match(r"\s*[-−]\s*(?:ln|log)(?![A-Za-z])", plain(parts[j])) and \
                not (FUNCTION_OF.search(plain(parts[j])) and (function_label(plain(parts[j]), vocab) is None or
                                                             re.match(r"\s*[-−]", plain(parts[j])))) and \
                not (all(x in ("=", "≈") for x in parts[1:j:2]) and _ours(parts[0], vocab, n.heading) and
                     not _ours(parts[j], vocab, n.heading) and (lab_j := named(parts[j], vocab, n.heading)) is not None
                     and lab_j.index):
            head = parts[j]                # 'the variance is σ² = 0.412': the name nearest the figure
            #                                (but '∂L/∂W_K[0,3] = dW_attn[0, 7] = …': our own name, not the code's)
            #                  (not 'L = −ln ŷ_3 = …' nor 'L = − ln P(milk) = …': a formula, or a function negated)
            said = _gradient_said_as_p(parts[j - 2], named(head, vocab, n.heading))
            if said is not None:
                return said
        for side in ([parts[j]] if j >= 2 else []) + [head]:
            said = STEP_AFTER.search(side) if lines is not None else None
            if said is None or (k := int(said["k"] or said["k2"])) < 1:
                continue
            bare = (side[:said.start()] + side[said.end():]).strip()
            lab = named(bare, vocab, n.heading) if re.search(NAME_LETTER, bare) else None
            word = prose_name(plain(bare) + " ") if lab is None else None
            lab = lab or (Label(word) if word else None)
            if lab is not None and not lab.state:
                return param_case(dataclasses.replace(lab, state=f"{_run_near(n, lines)}[{k}]"), vocab)
            #      ('loss after step 2 = …', 'loss setelah langkah 2 = …', 'L nach Schritt 2 = …': after that step)
        if first and len(parts) == 3 and re.fullmatch(r"\s*[-−+×*/·]\s*[^\s()=]+\s*", head):
            continue                   # '1 − ŷ_{3} = …' after the figure 1: its operand, the clause names it
        if not first and not _arithmetic("".join(parts[2:]), vocab):
            return None                # d = 3 时…是 10000^{2/3} ≈ 464.16: the head's equation ended before
        if len(parts) >= 5 and (const := _constant(parts[-3])) is not None:
            return Label("const", ref=const)   # 'uniform, L = ln 5 = 1.6094': the number ln 5, not this model's L
        if head.strip().lower() in STEP_WORDS and lines is not None and len(parts) >= 3:
            return of_entry(Label(STEP_WORDS[head.strip().lower()]), n, lines, vocab, strict=True)
            #      ('衰减 = 0.1 × 0.1 × 0.099263 = …' under the lead-in of U[0,茶]: its decay, in any script)
        key = DICT_KEY.fullmatch(head)
        if key and key[2] in vocab and len(parts) == 3:
            return Label("token", (("tok", vocab.index(key[2])),))    # {'пьёт': 0.4321}: a dict's key, any script
        if head.strip() and not re.search(NAME_LETTER, head) and (word := prose_name(plain(head).rstrip())):
            return Label(word)             # 'потеря равна …', '손실은 …': the quantity's word in any script
        if head.strip() and re.search(NAME_LETTER, head):
            if FUNCTION_OF.search(plain(head)):
                return function_label(plain(head), vocab)   # √d_k, exp(z): a function of the name
            words = re.fullmatch(r"[^\W\d_]+(?:\s+[^\W\d_]+)+", plain(head).strip()) is not None
            lead = _leading_words(head, n.heading) if words and lines is not None else None
            lab = of_entry(lead, n, lines, vocab, strict=True) if lead is not None else None
            #     ('bước cập nhật = …': words for the update, not a name in their last word)
            lab = lab or formula_label(named(head, vocab, n.heading), parts[2:-1:2] if head is parts[0] else [],
                                       vocab)
            if lab is None and lines is not None and (lead := _leading_words(head, n.heading)) is not None:
                lab = of_entry(lead, n, lines, vocab, strict=True)
            if lab is None and (word := prose_name(plain(head).rstrip())) is not None:
                lab = Label(word)          # 'потеря равна …', 'la perte vaut …': the quantity's word
            if lab is not None and len(parts) > 1 and parts[1] == "←" and not lab.state:
                lab = param_case(Label(lab.name, lab.index, state=f"{_run_near(n, lines)}[{section_step(n) or 1}]"),
                                 vocab)
                #      (W ← W − η·g: after the step; under '七、第 3 步' after step 3, AdamW's beside its m̂ and v̂)
            return lab
    return None


STEP_AFTER = re.compile(r"\b(?:after|setelah|sesudah|nach|après|apres|tras|después de|depois d[oae]|após|dopo|po|"
                        r"efter|etter|после|після|sau|μετά από|μετά το)\s+(?:the |dem |de |del |la |l'|o |il |het |"
                        r"το )?(?:step|langkah|Schritt|étape|paso|passo|шаг\w*|крок\w*|bước|krok\w*|stap|steg|βήμα|"
                        r"trin)\s*(?:t\s*=\s*)?(?P<k>\d{1,2})\b|"
                        r"第\s*(?P<k2>\d{1,2})\s*步(?:后|之后|の後)", re.I)
"""A training step named after a quantity with a word for 'after' (``loss after step 2``, ``loss setelah langkah 2``):
the state after that step (not 'at step 2' nor '(step 2)': a training log's loss at a step is before its update)."""
PREVIOUS_STEP = re.compile(r"上一步|前一步|前のステップ|이전 스텝|previous step|last step|step before|"
                           r"vorige[nm]? Schritt|étape précédente|paso anterior|passo (?:anterior|precedente)|"
                           r"предыдущ\w* шаг", re.I)
"""Words that put a state at the step before the section's (``上一步 m = 0.021371``)."""
ADAM_STATES = re.compile(r"adam|m̂|v̂|\\hat\s*\{?[mv]\b|β[₁₂12]", re.I)
"""What says the lines before an update are AdamW's: its name, its corrected moments, its betas."""


def _ours(part: str, vocab, heading: str = "") -> bool:
    """Whether a part of an equation is one of our own names with its indices (``∂L/∂W_K[0,3]``, ``l0.Q[1,0]``), a
    gradient's or the tensor's.

    >>> from symgpt.claims.symbols import Words
    >>> w = Words(["a"], {"W_K"}, {"W_K"})
    >>> _ours(" ∂L/∂W_K[0,3] ", w), _ours(" dW_attn[0, 7] ", w)
    (True, False)
    """
    lab = named(part, vocab, heading)
    bare = re.sub(r"^(?:∂L/∂|dL/d|grad_|d(?=[A-Z]))", "", lab.name) if lab is not None else ""
    return bool(lab is not None and lab.index and bare in getattr(vocab, "names", ()))


def _summed_exp(part: str, vocab) -> bool:
    """Whether a clause's last part is a sum of exps (``Σ_v e^{z_v}``, ``\\sum_j \\exp(S_{3,j})``): a name of its own.

    Not a sum over scaled logits (``Σ e^{2z}``, ``Σ e^{z/T}``: a temperature's) nor over primed ones (``Σ e^{ℓ′}``:
    after an update, maybe the author's own).

    >>> _summed_exp(" Σ_v e^{z_v} ", []), _summed_exp(" e^{z_v} ", []), _summed_exp(" Σ e^{2z} ", [])
    (True, False, False)
    """
    m = re.search(r"(?:e\^|exp)\s*[({]?\s*(.*?)\s*[)}]?\s*$", plain(part))
    return bool(re.search(r"[Σ∑]|\\sum", part)) and m is not None and \
        re.fullmatch(r"[^\W\d_][\w{}]*", m[1]) is not None and function_label(plain(part), vocab) is not None


def _run_near(n, lines: list | None, back: int = 8) -> str:
    """The optimizer of an update line: the one its section names (:func:`run_in`), else AdamW where the lines
    just before it work AdamW's moments (``m̂ = …``, ``v̂ = …``), else SGD.

    >>> from types import SimpleNamespace as N
    >>> _run_near(N(heading="Step 3", over="", line=3), ["m̂ = 0.1 / 0.271 = 0.37", "v̂ = 0.2", "w ← …"])
    'adamw'
    >>> _run_near(N(heading="Step 3", over="", line=2), ["g = 0.5", "w ← …"])
    'sgd'
    """
    said = run_in(n)
    if said != "sgd" or lines is None or re.search(r"\bsgd\b|gradient descent", f"{n.heading} {n.over}", re.I):
        return said
    return "adamw" if any(ADAM_STATES.search(x) for x in lines[max(0, n.line - 1 - back):n.line - 1]) else said


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


OPERATOR_WORD = re.compile(r"(?<![^\W\d_])(?:plus|minus|times|over|by|divided|multiplied|mal|durch|geteilt|fois|par|"
                           r"divisé|più|meno|per|diviso|por|más|menos|mais|dividido|вычесть|плюс|минус|на|умнож\w*|"
                           r"artı|eksi|kere|bölü|kertaa|jaettuna|lisättynä)(?![^\W\d_])", re.I)
"""Words for arithmetic: a formula written on in words ('x̂ · γ plus its shift β') is no prose before a symbol."""


def _trailing_symbol(part: str) -> str | None:
    """A symbol that ends words before an equals sign (``tedy gradient ∂L/∂z_{mléko}`` → ``∂L/∂z_{mléko}``): the
    last run without spaces outside braces, when words stand before it and it holds a letter of a name (None else).

    >>> _trailing_symbol(" tedy gradient ∂L/∂z_{mléko} "), _trailing_symbol(" σ² "), _trailing_symbol("the x_{a b}")
    ('∂L/∂z_{mléko}', None, 'x_{a b}')
    >>> _trailing_symbol("−ln p_{a}"), _trailing_symbol("softmax z"), _trailing_symbol("h₁ W_2 ")   # no prose
    (None, None, None)
    >>> _trailing_symbol(" n_4 + f_4 keskiarvo on μ "), _trailing_symbol(" n_4 + f_4 on μ ")
    ('μ', None)
    >>> _trailing_symbol(" x̂_1 · γ_1 plus its shift β_1 "), _trailing_symbol(" q · k divided by temperature T ")
    (None, None)
    """
    depth, k = 0, len(part.rstrip())
    for i in range(k - 1, -1, -1):
        ch = part[i]
        depth += ch in "})]"
        depth -= ch in "{(["
        if ch.isspace() and depth == 0:
            last, before = part[i + 1:k], part[:i]
            words = re.findall(rf"{WORD_LETTER}{{2,}}", before)
            tail = re.search(rf"(?:^|\s)((?:{WORD_LETTER}{{2,}}\s+){{2,}})$", before + " ")   # (a formula, then
            said = not re.search(r"[-−+×/·=^\\]", before) or \
                tail is not None and not OPERATOR_WORD.search(tail[1])     # words: 'n_4 + f_4 keskiarvo on μ';
            prose = words and said and words[-1].lower() not in NOT_PROSE   # not 'x̂ · γ plus its shift β')
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


def formula_label(lab: Label | None, formulas, vocab) -> Label | None:
    """The label of a name a formula defines: the formula's parameters make one tensor, and that tensor is the
    name's, whatever the name's letter means elsewhere.  ``z = u W_1 + b_1 = (…)`` is the FFN's Z (W_1 and
    b_1 make it), not the logits the letter z names alone; ``h = x W_Q`` is Q.  A name that already is that
    tensor, a formula with no parameter or with parameters of several tensors, keeps ``lab``.

    >>> from symgpt.claims.symbols import Words
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
        flat = subscripted(plain(formula)).replace("{", "").replace("}", "")
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
    is the update, ``neuer Wert 0.4 − 0.01`` the new value (of the entry a lead-in names, :func:`of_entry`).

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
    if len(words) > 1 and " ".join(words).lower() in STEP_WORDS:
        return Label(STEP_WORDS[" ".join(words).lower()])     # two words for one ('suy giảm', weight decay)
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
    >>> from symgpt.claims.symbols import Words
    >>> str(_lead_in(extract(text)[-1], text.split("\\n"), Words(["a", "b"], {"W"}, {"W"})))
    'W[0,tok1]'
    >>> text = "对 $W_{\\\\text{out}}[1,\\\\text{b}]$（初值 $-0.4$）：\\n  \\\\theta_1 &= -0.4 - 0.001 = -0.401"
    >>> str(_lead_in(extract(text)[-1], text.split("\\n"), Words(["a", "b"], {"W_out"}, {"W_out"})))
    'W_out[1,tok1]'
    """
    listed = BULLET.match(n.line_text.strip()) or len(n.line_text.strip()) <= 80 or \
        re.match(r"[^=]{1,24}=", n.line_text.strip())     # an item or an equation (θ₁ &= θ₀ − …), not a paragraph
    above = [lines[k] for k in range(n.line - 2, max(-1, n.line - 2 - LEAD_LINES), -1)] if listed else \
        [lines[n.line - 2]] if n.line >= 2 and lines[n.line - 2].strip() and \
        not re.search(r"[.!?。]\s*$", lines[n.line - 2]) else []   # (a paragraph's sentence begun on the line above)
    for k, text in enumerate([n.line_text[:n.col], *above]):
        if k and HEADING.match(text) and not re.search(r"[=:：]", text):
            return _entry_named(text, vocab) if text.lstrip().startswith("#") else None
            #                            (a numbered item '3. m̂ = m / 0.1 = …' is no heading; a title names an entry)
        tag = k and TAG.match(text)
        found = _entry_named(text, vocab)
        if found:
            return found
        if any(not GENERIC_INDEX.search(m[0]) and (lab := parse_label(m[0].replace(" ", ""), vocab))
               is not None and lab.index and lab.name not in MOMENTS and
               (not k or lab.name not in getattr(vocab, "names", ()) and len(lab.index) >= 2)
               for m in ENTRY_MENTION.finditer(_unlatexed(text))):
            return None            # '<li>attn.c_proj, W_{proj}[3,1] (value 0.2): g = …': its own entry, not read
            #                        (but m_{2} = …, a moment at step 2, is no entry);
            #                        not the item above's (nor, above it, past an entry of a name we do not know:
            #                        a table's row `c_proj2[4, 2]` under the row `wte[home, 0]`)
        if tag or k and LEAD_END.search(text) and any(parse_label(m[0].replace(" ", ""), vocab) is not None
                                                      for m in ENTRY_MENTION.finditer(text)):
            return None            # '[E(x)_j]' or 'the coordinate e_{3} (θ = 0.3):' above, a block of its own:
            #                        an entry not read, not the block before
    return _entry_named(n.heading, vocab) if listed else None    # 'VI. DEUX PAS D'ADAMW SUR W(1, mange)'


def _entry_named(text: str, vocab) -> Label | None:
    """The last parameter entry a text names (``W[0, bellt]``, ``W_{0,bellt}``, ``W(1, mange)``), with the block
    it names in words in a model of several (``W2[3,2] van laag 2``: its superscript), else None."""
    found = [lab for m in ENTRY_MENTION.finditer(_unlatexed(text)) if not GENERIC_INDEX.search(m[0])
             and (lab := param_case(parse_label(m[0].replace(" ", ""), vocab), vocab)) is not None and lab.index
             and (lab.name in vocab.params or _in_blocks(lab.name, vocab))]
    if not found:
        return None
    block = layer_mentioned(text) if _in_blocks(found[-1].name, vocab) else ()
    return dataclasses.replace(found[-1], sup=block) if block else found[-1]


def _in_blocks(name: str, vocab) -> bool:
    """Whether a name is a block's parameter written without its block (``W2`` of l1.W_2)."""
    return any(p.startswith("l") and "." in p and p.partition(".")[2].replace("_", "") == name.replace("_", "")
               for p in vocab.params)


def _unlatexed(text: str) -> str:
    """LaTeX's ``W_{\text{out}}[1,\text{狗}]`` as ``W_out[1,狗]``, an entry as code writes it."""
    if "\\" not in text:
        return text
    return re.sub(r"_\{(\w+)\}(?=\s*\[)", r"_\1", plain(text)).replace("](", "] (")


GENERIC_INDEX = re.compile(r"[\[{(_]\s*[a-z]\s*[,\]\[]\s*\[?\s*[a-z]\s*[\]})]|_\{?[a-z]\}?$")
"""A formula's running indices (``W_{i,j}``, ``W[i][j]``, ``x_i``): no one entry."""


def param_case(lab, vocab):
    """A parameter's entry written in lower case (``w_{1,τρώει}``, ``e_{γάτα,1}``) as the parameter's: W's, E's,
    when the name is no parameter as written and its capital is one; a one-letter matrix no parameter's name,
    indexed by a token in one place (``U[0,茶]``), as the one parameter a token indexes there.

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"E", "W"}, {"E", "W"})
    >>> [str(param_case(parse_label(s, v), v)) for s in ("U[0,b]", "C[a,1]", "w_{1,b}", "Q[0,1]")]
    ['W[0,tok1]', 'E[tok0,1]', 'W[1,tok1]', 'Q[0,1]']
    >>> str(param_case(parse_label("W_down[4,1]", v), Words(["a"], {"W_2"}, {"W_2"})))     # a usual name of it
    'W_2[4,1]'
    >>> str(param_case(parse_label("b_{2,1}", v), Words(["a"], {"b_2"}, {"b_2"})))  # the parameter's number first
    'b_2[1]'
    """
    if lab is None or lab.name in vocab.params:
        return lab
    if lab.name.upper() in vocab.params:
        return dataclasses.replace(lab, name=lab.name.upper())
    usual = [p for p, names in DATA_ALIASES.items() if lab.name in names and p in vocab.params]
    if len(usual) == 1:
        return dataclasses.replace(lab, name=usual[0])      # W_down, c_fc: the parameter they usually name
    if len(lab.index) == 2 and isinstance(lab.index[0], int) and re.fullmatch(r"b|β|γ|beta|gamma|g", lab.name) and \
            f"{lab.name}_{lab.index[0]}" in vocab.params:     # b_{2,1}: a vector's entry, its number first: b_2's 1
        return dataclasses.replace(lab, name=f"{lab.name}_{lab.index[0]}", index=lab.index[1:])
    tokens = [isinstance(i, tuple) and i[0] == "tok" for i in lab.index]
    if len(tokens) == 2 and tokens.count(True) == 1 and re.fullmatch(r"[A-Za-z]", lab.name):
        by = [p for p in (("E",) if tokens[0] else ("W", "W_out")) if p in vocab.params]
        if len(by) == 1:               # U[0,茶]: a matrix a token indexes by its column is the output matrix
            return dataclasses.replace(lab, name=by[0])      # (by its row, the embedding), whatever its letter
    return lab


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
OF_PARAM = re.compile(r"(?P<state>m_hat|v_hat|mhat|vhat|m̂|v̂|grad|∂L/∂|m|v|g|d)_?(?P<param>[A-Za-z][\w.]*)")
"""A state named with its parameter (``m_W``, ``v̂_E``, ``dW``, ``grad_W``, ``∂L/∂W``): the state of the parameter's
entry a lead-in names, when the lead-in's entry is of that parameter."""


def _of_param(lab: Label, vocab) -> tuple:
    """(the state's name alone, the parameter it names) of a label such as ``m_W`` or ``dW``, else (lab, None)."""
    m = OF_PARAM.fullmatch(lab.name) if not lab.index and not lab.state and not lab.of else None
    if m is None:
        return lab, None
    param = m["param"] if m["param"] in vocab.params or not lab.name[m.end("state")] == "_" else \
        param_case(Label(m["param"]), vocab).name      # (dW, m_W, m_e; not 'de', 'me': words, not E's)
    if param not in vocab.params:
        return lab, None
    return Label(m["state"] if m["state"] in MOMENTS else "g", fn=lab.fn), param


def of_entry(lab: Label, n, lines: list, vocab, strict: bool = False) -> Label | None:
    """An optimizer state or the new value written without indices (``m = …``, ``Schritt …``, ``neu: …``)
    under a lead-in that names a parameter's entry: that entry's state (``adamw[1].m[W,0,2]``, the new
    ``W[0,bellt]``); else the label as it is (None when ``strict``: a step's words name nothing alone).

    A state may name its parameter (``m_W``, ``dW``): then only an entry of that parameter's.
    """
    unnamed = None if strict else lab
    lab, param = (lab, None) if strict else _of_param(lab, vocab)
    told = None
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
        if state is None and not lab.state and not lab.index and lab.name.lower() in STEP_WORDS and not n.column:
            state = STEP_WORDS[lab.name.lower()]           # 'ενημέρωση: −0,010000' under the lead-in: its update
        if lab.name in NEW_VALUE and not lab.state:        # θ' under the lead-in: the entry after the step
            lab = Label("new", state=f"{run_of(n.heading + ' ' + n.prose)}[1]")
        elif lab.name in THETA and not lab.state and (not lab.index or len(lab.index) == 1 and
                                                      isinstance(lab.index[0], int) and 0 <= lab.index[0] <= 9) and \
                THETA_FIRST.match(plain(last_clause(n.line_text[:n.col]))):
            #                                              θ₀, θ₁ under the lead-in: the entry before, after step 1
            #                                              (not 'ηλ θ_{0} = 0,00005', a product)
            k = lab.index[0] if lab.index else 0          # (θ alone: the entry as the lead-in names it)
            lab = Label("new", state=f"{run_of(n.heading + ' ' + n.prose)}[{k}]" if k else "")
        elif lab.name in GRADIENT_NAMES and not lab.state and (not lab.index or len(lab.index) == 1 and
                                                              isinstance(lab.index[0], int) and 1 <= lab.index[0] <= 9):
            told = lab.index[0] if lab.index else None     # g (g₁, g₂) under the lead-in: the entry's gradient (at
            lab = Label("gradient")                        # the step its index says, else its section's)
        elif (lab.name in THETA or lab.name in NEW_VALUE) and re.fullmatch(r"(?:sgd|adamw)\[(\d+)\]", lab.state) and \
                lab.index in ((), (int(lab.state.split("[")[1][:-1]),)):
            lab = Label("new", state=lab.state, ref="stated")   # θ_1, θ_new, read as after the step: the entry's
    stated = lab.ref == "stated"
    if lab.index or lab.of or lab.ref and not stated or (state is None and lab.name not in ("new", "gradient")):
        return unnamed
    entry = _lead_in(n, lines, vocab)
    if entry is None or param is not None and entry.name != param:
        return unnamed
    if lab.name == "new" and stated:         # the entry after the step, its origin learned with the other entries'
        return Label(f"{lab.state}.θ", entry.index, of=entry.name, sup=entry.sup)   # new values (W_up_{2,4}: from 1,
        #                                                                               as they are)
    if lab.name == "new":
        return Label(entry.name, entry.index, state=lab.state, sup=entry.sup)
    k = section_step(n) or 1                                 # (under '七、第 3 步': step 3's; '上一步 m = …' in it:
    k -= k > 1 and PREVIOUS_STEP.search(n.line_text[:n.col]) is not None   # the step before's)
    if lab.name == "gradient":             # (under step 2's heading: the gradient step 2 takes, at the model step 1
        k = told or k                      #  made)
        return Label(f"grad_{entry.name}", entry.index, state=f"{run_in(n)}[{k - 1}]" if k > 1 else "", sup=entry.sup)
    step = lab.state or f"adamw[{k}]"
    return Label(f"{step}.{state}", entry.index, of=entry.name, fn=lab.fn, sup=entry.sup)   # W₃₄'s m: its origin
    #                                                                                        learned
    #                                                              with the rest (and √v̂ is a function of v̂)


def restated(n, prev) -> Label | None:
    """A percentage that restates the figure just before it on its line (``ỹ = 0,3467, cioè il 34,67%``,
    ``0.3467 (34.67 %)``): the same quantity, whatever token or word stands between them."""
    if prev is None or prev.line != n.line or n.kind != "percent" or prev.kind != "decimal" or \
            n.value != prev.value * 100 or len(n.line_text[prev.col + len(prev.text):n.col]) > 24:
        return None
    return Label("same", inner=prev.index)


def after_step(n, prev) -> Label | None:
    """``Der Verlust fällt von 1.7446 auf 1.7301``, ``from 0.1747 to 0.1772``, ``21.36% から 27.47% に``: the
    second figure is the first's quantity after the training step (the figure before it on its line)."""
    wrapped = prev is not None and prev.line == n.line - 1 and not n.line_text[:n.col].strip(" *_`")
    left = prev.line_text + " " + n.line_text[:n.col] if wrapped else n.line_text[:n.col]
    m = FROM_TO.search(left) or (FROM_SUFFIX.search(left) if TO_SUFFIX.match(n.line_text, n.col + len(n.text))
                                 else None)     # (or wrapped after 'to': '… springt van 0,1551 naar' ⏎ '1,3176')
    said = next((g for g in m.groups() if g is not None), None) if m is not None else None
    if prev is None or prev.line != n.line and not wrapped or said is None or \
            said.replace(",", ".").rstrip("%") != prev.text.rstrip("%"):
        return None
    return Label("after", inner=prev.index)


FUNCTION_BEFORE = re.compile(r"(?:\\?exp\s*\(|e\s*\^\s*[{(]?|√\s*\(?|\\?sqrt\s*[({]|\\?ln\s*\(?|\\?log\s*\(?|"
                             r"(?:\\Phi|Φ)\s*\(|"
                             r"(?:GELU|gelu|ReLU|relu|SiLU|silu|swish|Swish)\s*\(|\\mathrm\{(?:GELU|ReLU|SiLU)\}\s*\()\s*$")
FUNCTION_NAME = {"e": "exp", "exp": "exp", "√": "sqrt", "sqrt": "sqrt", "ln": "log", "log": "log", "Φ": "Phi",
                 "Phi": "Phi",
                 **{a: "act" for a in ("GELU", "gelu", "ReLU", "relu", "SiLU", "silu", "swish", "Swish")}}
"""A function a figure is the value of, by its name: ``act`` is the FFN's activation of an entry of Z, ``Phi`` the
standard normal's distribution function, GELU's factor (``Φ(1.0514) = 0.8535``)."""


def defined_names(lines: list) -> dict:
    """The document's own symbols for the model's gradients, learned from its definitions: ``δ_j = ŷ_j − y_j``
    is the gradient of the logits, ``g = ∂L/∂x`` that of x: {symbol: the name we read}. A symbol defined twice
    in two ways is left alone.

    >>> defined_names(["记 δ_{j} = ŷ_{j} − y_{j}，", "g_i = ∂L/∂x_i, and p = 0.3"])
    {'δ': '∂L/∂z', 'g': '∂L/∂x'}
    >>> defined_names(["or, as a vector, δ = q − onehot(runs), where onehot(runs) = (0, 0, 1, 0)"])
    {'δ': '∂L/∂z'}
    >>> defined_names([r"$\\boldsymbol{\\delta} = \\partial\\mathcal{L}/\\partial\\boldsymbol{\\ell} = \\pi - y$"])
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


def function_of(n, prev) -> Label | None:
    """``exp(−0.12) ≈ 0.8781``, ``e^{0.10} = 1.1052``, ``√0.18869 ≈ 0.434``: the function of the figure
    just before, which closes the equation."""
    if prev is None or prev.line != n.line or not re.fullmatch(r"\s*[)}]?\s*\$?\s*&?\s*(?:=|≈|\\approx)\s*&?\s*\$?\s*",
                                                                 n.line_text[prev.col + len(prev.text):n.col]):
        return None                          # (e^{0.39} &= 1.4769 in LaTeX's align too)
    m = FUNCTION_BEFORE.search(n.line_text[:prev.col])
    if not m or re.search(r"(?:[\d)\]}]|[×*/÷·+^]|\\times|\\cdot|\\div)\s*(?:[-−]\s*)?\\?$", n.line_text[:m.start()]):
        return None                          # 1.130 / √2 = 0.799: the chain's result, not √2's (after prose: its)
    if ARITHMETIC_NEXT.match(n.line_text, n.col + len(n.text)):
        return None                          # SiLU(0.8259) = 0.8259 / (1 + e^−0.8259): an operand, not SiLU's value
    word = re.match(r"\\?(?:mathrm\{)?(exp|e|√|sqrt|ln|log|Φ|Phi|GELU|gelu|ReLU|relu|SiLU|silu|swish|Swish)",
                    m[0].strip())
    minus = re.search(r"(?:(?<![^\W\d_])-|−)\s*$", n.line_text[:m.start()])   # −ln 0.2165: the loss of that p
    #                                                                       (not a word's hyphen: ב-√2 ≈ 1.4142)
    return Label(("-" if minus else "") + FUNCTION_NAME[word[1]], inner=prev.index) if word else None


ARITHMETIC_NEXT = re.compile(r"\s*\$?\s*(?:[×*/÷·+]|\\times|\\cdot|\\div|[-−]\s+[\d(])")
"""What follows a figure that is the first operand of arithmetic (``0.8259 / (…)``, ``0.5 × …``, ``0.3 − 0.1``)."""


FUNCTION_HEAD = re.compile(r"\s*(?:[*•·\-]\s+)?(?:\$\s*)?\\?(?:mathrm\{|operatorname\{)?(exp|ln|log|sqrt|√|GELU|gelu|"
                           r"ReLU|relu|"
                           r"SiLU|silu|swish|Swish)\}?\s*\(\s*")
"""A line that opens on a function of a figure: ``* GELU(−0.7231) = 0.5 × … = −0.1698``."""


def _head_figure(head, line: str, line_figs):
    """The figure a function's head ``GELU(`` opens on, when its bracket closes right after it and an ``=`` follows."""
    inner = next((x for x in line_figs if head and x.col == head.end()), None)
    if inner is None or not re.match(r"\s*\)\s*\$?\s*(?:=|≈|\\approx)", line[inner.col + len(inner.text):]):
        return None
    return inner


def function_head(n, line_figs) -> Label | None:
    """The figure that closes a line opened by a function of a figure (``GELU(−0.7231) = … = −0.1698``):
    that function of the figure inside, however long the formula between.

    >>> from symgpt.claims.extract import extract
    >>> figs = extract("* GELU(−0.7231) = 0.5 × (−0.7231) × 1.4696 = −0.1698")
    >>> lab = function_head(figs[-1], figs)
    >>> lab.name, figs[lab.inner].text
    ('act', '−0.7231')
    """
    m = FUNCTION_HEAD.match(n.line_text)
    inner = _head_figure(m, n.line_text, line_figs)
    if inner is None or inner is n or n.kind not in ("decimal", "percent") or \
            not re.fullmatch(r"\s*\$?\s*[.,;。]?\s*(?:\(\d+\))?\s*", n.line_text[n.col + len(n.text):]):
        return None
    between = n.line_text[inner.col + len(inner.text):n.col]
    if re.search(r"\S\s{3,}\S", between) or re.search(rf"{re.escape(m[1])}\s*\(", between):
        return None          # 'exp(0.351) = 1.420     exp(0.107) = 1.113': equations side by side, not one
    return Label(FUNCTION_NAME.get(m[1], m[1]), inner=inner.index)


def function_continued(n, lines: list, by_line: dict) -> Label | None:
    """The figure alone on the last line of a function's equation continued over lines that open on ``=``
    (``GELU(0.4126) = 0.5 * 0.4126 * (…)`` ⏎ ``= 0.5 * 0.4126 * (1 + 0.3201)`` ⏎ ``= 0.2723``): that function of the
    figure inside its head.

    >>> from symgpt.claims.extract import extract
    >>> text = "  GELU(0.4126) = 0.5 * 0.4126 * (1 + 0.3201)\\n               = 0.2723"
    >>> figs = extract(text)
    >>> by = {}
    >>> for f in figs: by.setdefault(f.line, []).append(f)
    >>> lab = function_continued(figs[-1], text.split("\\n"), by)
    >>> lab.name, figs[lab.inner].text
    ('act', '0.4126')
    """
    if n.kind not in ("decimal", "percent") or \
            not re.fullmatch(r"\s*&?\s*(?:=|≈|\\approx)\s*", n.line_text[:n.col]) or \
            not re.fullmatch(r"\s*\$?\s*[.,;。]?\s*", n.line_text[n.col + len(n.text):]):
        return None
    k = n.line - 1
    while k >= 1 and re.match(r"\s*&?\s*(?:=|≈|\\approx)", lines[k - 1]):
        k -= 1                                  # (the lines above that go on with '= …')
    if k < 1:
        return None
    head = FUNCTION_HEAD.match(lines[k - 1])
    inner = _head_figure(head, lines[k - 1], by_line.get(k, ()))
    if inner is None:
        return None
    return Label(FUNCTION_NAME.get(head[1], head[1]), inner=inner.index)


ECHO_LINES = 3     # a figure printed again as an operand names what it was named this many lines above


def echoes(numbers: list, out: dict) -> dict:
    """Operands with no name of their own that repeat, digit for digit, a figure named a few lines above
    (``√v₁ ≈ 0,003148`` ⏎ ``Δ = 0,01 × 0,0099557 / 0,003148``): that figure's label.  Only figures of three
    significant digits or more, in the same section.

    >>> from symgpt.claims.extract import extract
    >>> ns = extract("v = 0.003148\\nstep = 0.01 × 0.0099557 / 0.003148 = 0.0316")
    >>> {ns[k].text: str(lab) for k, lab in echoes(ns, {0: Label("v", (0, 3))}).items()}
    {'0.003148': 'v[0,3]'}
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
        explicit = lab.index and not any(isinstance(k, tuple) and k[0] == "at" for k in lab.index) or lab.of
        if 0 < n.line - m.line <= ECHO_LINES and m.section == n.section and lab.inner is None and explicit:
            #   (only a label that says its entry itself: a literal's place or a bare μ takes its row from the
            #    text around it, which the repeat does not share)
            found[n.index] = lab
    return found


PRODUCT = re.compile(r"(?<![\w∂/\\^])([^\W\d_][\w']{0,3}?)\s*[·×*@]?\s*([A-Za-z]\w*)(?!\w)")
"""A name and the weight it multiplies, in a formula's plain text: ``x · W_1``, ``h W_Q``, ``uW_1``."""


def operand_names(lines: list, numbers: list, vocab) -> dict:
    """{(a section's title, a name): the tensor it is}, for a name a formula multiplies with a weight
    (``z = x · W₁ + b₁``: x is the tensor the model multiplies W_1 with, within that section), when one formula
    line of the section says so and no other line says otherwise.

    >>> from symgpt.claims.extract import extract
    >>> text = "## FFN\\n\\nx = (1.0, -1.0)\\nz = x · W₁ + b₁ = (0.8, -0.8)"
    >>> from symgpt.claims.symbols import Words
    >>> v = Words([], {"Z", "LN1", "W_1", "b_1"}, {"W_1", "b_1"}, reads={"W_1": "LN1"})
    >>> operand_names(text.splitlines(), extract(text), v)
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
        s = subscripted(plain(line))
        for m in PRODUCT.finditer(s.replace("{", "").replace("}", "")):
            name, weight = m[1], m[2]
            if weight in reads and name not in vocab.params and name not in reads and name.lower() not in WORDS:
                key = (heading[no], name)
                out[key] = reads[weight] if out.get(key, reads[weight]) == reads[weight] else None
    return {k: v for k, v in out.items() if v is not None}


def under_gradient(lines: list, no: int) -> bool:
    """Whether the line above a list of tokens' values (a blank line between them or not) writes the logits'
    gradient, ``dL/dz_v = p_v − y_v``: then the list is that gradient, token by token, not the probabilities.

    >>> under_gradient(["  dL/dz_v = p_v - y_v,  y = one-hot", "", "  a: 0.12   b: -0.88"], 3)
    True
    >>> under_gradient(["The probabilities:", "  a: 0.12   b: 0.88"], 2)
    False
    """
    for k in range(no - 2, max(-1, no - 4), -1):
        if lines[k].strip():
            return LOGIT_GRADIENT.search(plain(lines[k]).replace(" ", "")) is not None
    return False
