"""A document's own vocabulary: which quantity each of its names means, learned from the document.

Every name a document writes (``dW``, ``probs``, ``∂L/∂z``, ``W_new``, a table, a literal) is read as
the tensor of the model that most of its labelled figures agree with (:mod:`symgpt.claims.labels`
gives each figure its name and indices), with indices counted from 0 or from 1 as the figures say.
A name that is ours (``A``, ``l0.Q``, ``mu1``, ``grad_W``) or a usual spelling of ours (``dW``,
``W.grad``, ``∂L/∂W``, ``probs``) needs no majority: its label alone names the quantity.  Once a name
is known, *every* figure under it is about that quantity, whether or not its value agrees: a
transposed or sign-flipped figure is wrong, not another entry.

>>> import symgpt
>>> from symgpt.claims.extract import extract
>>> from symgpt.claims.match import Matcher
>>> text = "dW = [[0.1, 0.2], [0.3, 0.4]]"
>>> m = Matcher(symgpt.load("bigram"))
>>> sorted(Notation(m).spellings("grad_W"))[:4]
['W.grad', 'dL/dW', 'dW', 'grad_W']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import NamedTuple

from flint import fmpq

from ..core.numeric import UndecidableError
from .aliases import DATA_ALIASES, HEAD_NAMES, MOMENTS
from .candidates import PREFILTER_BITS, Candidate, Spans, _bounds, _same_value
from .context import ALIASES
from .figure import cell, near_window, readable
from .marks import printed_by, sentence_of
from .refs import ExprError, bind, parse
from .symbols import LOSS_WORDS, NEW_VALUE, plain, run_in, run_of, section_step, share_ref

TENSOR_GROUP = re.compile(r"[\w.]+(?:\[\d+\]\.[\w.]+)?(?:\|[^*/()+]*)?")
"""A group that is a tensor or its row (``E``, ``adamw[1].E``, ``l1.R``, ``LN_f|2:``), not arithmetic of one
(``S*sqrt(d/heads)``)."""
OPTIMIZER_STATES = r"(?:m|v|mhat|vhat|update|decay)"
MOMENT_GROUP = re.compile(rf"adamw\[1\]\.{OPTIMIZER_STATES}")
RUN_STATE = re.compile(rf"(?:(?:sgd|adamw)\[[1-9]\d*\]|head_step)\.(?!{OPTIMIZER_STATES}$)")
"""A model tensor after a training step (``sgd[1].W_V``, ``head_step.E``), not an optimizer's own state."""
AGREE_MIN = 2            # a name no alias explains is learned from at least this many agreeing figures …
STEPPED = ("sgd.loss", "sgd.p", "adamw.loss", "adamw.p", "sgd.grad_z", "sgd.grad_logits")
#         (a training run's states, the step their first index)
MAX_STEP = 8            # a state after training named by its place is looked for up to this step
LINE_WINDOW = 12         # an index-less name's neighbours: the figures read before it on its line, this many
MAX_CUT = 16             # a matrix's rows or columns are readings of a one-index name up to this many
AGREE_SHARE = 0.5        # … and this share of its figures
STATE_WORDS = re.compile(r"\bnew\b|_new|\bnew_(?=\w)|\bafter\b|\bupdated\b|\bnext\b|新|更新后|之后|一步后|"
                         r"nouveau|nouvelle|"
                         r"après|neu|\bnach (?:dem|einem|\d+|zwei|drei) \S*Schritt|\bnuev[oa]s?\b|después|"
                         r"\bnov[oa]s?\b|depois|após|\bnuov[oa]\b|\bdopo\b|\bнов|\bпосле\b|\bпісля\b|\bnow[aey]\b|"
                         r"\bpo kroku|"
                         r"\byeni\b|adım(?:dan)? sonra|\bnieuwe?\b|\bna de\b|\bnya?\b|\be[ft]ter (?:ett|steget|\d+)|"
                         r"\bبعد\b|جديد|नया|नए|के बाद|\bmới\b|\bsau (?:khi|bước|một)|\bbaru\b|setelah|新しい|後の|"
                         r"새로운|후의?\b|אחרי|חדש|\bμετά\b|\bνέ[οαε]|\bután\b|\búj\b|jälkeen|\buusi\b|\bdupă\b|"
                         r"\bnou[ăl]?\b|\bny[et]?\b",
                         re.I)
CHANGE_WORDS = re.compile(r"\bbecomes\b|\bmoves to\b|\bgoes to\b|\bdevient\b|\bpasse à\b|\bdiventa\b|\bpasa a\b|"
                          r"\bse vuelve\b|\bpassa a\b|становится|станет|变为|变成|になり", re.I)
"""Words that say an entry changes ('W[0,2] becomes 0.2900'): its value after the step, in a text about one."""


TOKEN_AFTER = re.compile(r"(?:\bafter|\bnext|после|nach|après|después|dopo|depois|后|之后|後)\s*(?:the\s+)?[«“\"'‘「„]|"
                         r"\bnext[- ](?:word|token)s?\b", re.I)
"""'after «пьёт»', 'the next token': a word that follows another in the text, not a state after a step."""


def _of_tokens(text: str) -> str:
    """The text without the phrases that put a word after another (:data:`TOKEN_AFTER`).

    >>> _of_tokens("Вероятности следующего слова после «пьёт»"), _of_tokens("the next token's logits")
    ('Вероятности следующего слова  пьёт»', "the  's logits")
    """
    return TOKEN_AFTER.sub(" ", text)


BEFORE_WORDS = re.compile(r"\bbefore\b|\bvor (?:dem|einem)\b|\bavant\b|\bantes d|\bprima del|"
                          r"\bдо (?:шага|обновлени)|\bprzed\b|\bönce(?:si)?\b|\bvoor de\b|\bföre\b|\bsebelum\b|"
                          r"\btrước\b|\bقبل\b|से पहले|之前|以前|前の|전의?\b", re.I)
"""The words that say a figure is of the model before a step ('before the step, W = …')."""


TEMPERATURE_SET = re.compile(r"(?<![\w.])(?:T|τ|tau|temperature|Temperatur|température|温度)\s*[=＝]\s*"
                             r"(\d+(?:\.\d+)?)(?![\d.])")
"""A sentence that sets the temperature before a token's probability: ``T = 1.5 にすると … p(私) = …``."""
SETTING = re.compile(r"d|d_ff|heads|kv_heads|layers|ln_eps|lr|adamw\.(?:lr|beta[12]|eps|weight_decay)|top_k|top_p|"
                     r"vocab_size\(\)|seq_len\(\)|argmax\(\)")
"""The spec's sizes and settings (and the likeliest token's id): a name reads as one only when it spells it, never
by a value it happens to share."""
SETTING_WORD = re.compile(r"temperatures?|temperatur[ae]?|température|temperatura|температура|温度|temp|τ|tau|T|"
                          r"top_?[kp]|learning_rate|weight_decay|betas|seed|batch_size|n_steps|steps|lr",
                          re.I)
"""A setting's word in code or prose (``temperature=0.8``): it names a setting, never a tensor of the model, whatever
value it shares (not ``beta`` or ``eps`` alone: a norm's shift, a norm's ε may be written so)."""
GRADIENT_NAME = re.compile(r"(?:∂L/∂|dL/d(?=\w)|∇_?|δ(?=[^\W\d_]))\S")
"""A name written as a derivative of the loss (``∂L/∂u``, ``∇_W``, ``δW_Q``, ``δα``): it names a gradient."""
GRADIENT_GROUP = re.compile(r"(?:^|\.)grad_|^gradcheck$|\bgrad_")
TUTORIAL_STEP = re.compile(r"^\s*(?:\d+(?:\.\d+)*\s*[.:]?\s*)?(?:step|шаг|крок|schritt|étape|paso|passo|krok|steg|"
                           r"adım|stap|langkah|bước|βήμα|ステップ|스텝|단계|خطوة|צעד)\s*\d+\s*[.:：—–-]", re.I)
"""A heading that numbers the tutorial's own steps (``Шаг 9. Температура``, ``Step 3: the logits``): no training."""
TOP_K = re.compile(r"top[- _]?k|top[- _]?\d+\b|前\s*\d+\s*个|前\s*k", re.I)
LINE_LEAD = re.compile(r"\s*(?:[-*•]|\d{1,2}[.)])?\s*(?:\*\*|__)([^*\n]{1,40}?)(?:\*\*|__)\s*[:：—–-]")
"""A line led by a bold name and a colon (``- **top-k**: …``): the name the rest of the line is about."""
TOP_P = re.compile(r"top[- _]?p|nucleus|核采样|Nukleus|noyau", re.I)


DRAWN = re.compile(r"\bdrawn\b|\bsampled\b|renormali[sz]|gezogen|normalisiert|tir[ée]|renormalis|reescal|"
                   r"sorteado|抽到|抽中|采样到|再正規化|재정규화|chuẩn hóa|normalizzat|normaliz|нормир", re.I)
"""Words that say a probability is the one a filtered distribution draws with (not p before renormalising)."""


HEAD_COLUMNS = re.compile(r"(?:^|\.|grad_)(?:Q|K|V)(?:_rot)?$")
"""The tensors whose columns the heads split (a head's q, k, v are slices of them)."""


FUNCTION_OF = re.compile(r"(exp|log|sqrt)\((.+?)( \+ ln_eps)?\)")   # a function candidate's ref: exp(z[2])
SUPERSCRIPTED = re.compile(r"\^\([\d,]+\)$")     # the superscript Notation.named keeps in a name


def plain_words(s: str) -> str:
    """Text with its Markdown code marks off (for the words it says)."""
    return s.replace("`", "")


NUMBER_WORDS = {**dict.fromkeys(("two", "zwei", "deux", "dos", "due", "dois", "duas", "twee", "dwa", "dwóch", "två",
                                  "to", "iki", "два", "двух", "dva", "dvou", "dvě", "hai", "dua", "两", "二", "두"), 2),
                **dict.fromkeys(("three", "drei", "trois", "tres", "tre", "três", "drie", "trzy", "trzech", "tre",
                                 "üç", "три", "трёх", "tři", "ba", "tiga", "三", "세"), 3)}
"""Two and three in words, by language: the steps a sentence says it took ('in two steps', 'em dois passos')."""
CJK_NUMBERS = ("两", "二", "두", "三", "세")
_SPACED = "|".join(w for w in NUMBER_WORDS if w not in CJK_NUMBERS)
STEPS_SAID = re.compile(r"(?:(?<![\w.,])(\d|" + _SPACED + r")|(?<![\d.,])(" + "|".join(CJK_NUMBERS) + r"))\s*"
                        r"(?:(?:steps|passos|Schritte\w*|pas|pasos|passi|stappen|kroki|kroków|krocích|steg|stegen|"
                        r"skridt|adım|шаг\w*|krok\w*|bước|langkah)\b|个?步|ステップ|스텝|단계)", re.I)
"""A number of steps said in a sentence: the state after that many steps."""
AGAIN_WITHIN = 8         # lines: a state printed again this near its last printing is the next step's (a loop)
NUMERICAL = re.compile(r"num|finite|(?<!de)fini[et](?!ion)|finit[ao]s?|(?<!un)endlich|(?<!on)eindig|(?<!nie)skończon|"
                       r"sonlu|(?<!o)ändlig|(?<!u)endelig|konečn|"
                       r"centra|centré|zentral|quotient|差分|数值|数値|수치|числ|\bfd\b|≈|"
                       r"/\s*\(?\s*2\s*[·*]?\s*(?:h|ε|δ|τ|eps)\b", re.I)
"""A name that says its gradient is the central difference (``numérico``, ``数值梯度``, ``g_num``, ``fd``,
``differenze centrate``, or its form: ``beza/2h``), not their difference (``differenza``)."""
TRAINED = re.compile(r"\bsgd\b|adam|optimi[sz]|\.step\(\)|\bupdat|learning rate|\blr\b|\bη\b|学习率|更新|优化|"
                     r"Lernrate|Aktualis|taux d'apprentissage|mise à jour|step \d+ of training|after \d+ steps?|"
                     r"шаг|обучени|обновл|спуск|навчанн|оновл|крок|passo|atualiza|treinamento|학습|업데이트|스텝|ステップ|学習|"
                     r"gradient descent|descente de gradient|Gradientenabstieg|descenso|discesa del gradiente|"
                     r"aggiorna|addestramento|entrenamiento|actualiza|"
                     r"\bkrok\w* (?:uczenia|spadku|SGD|optymalizacji)|spad\w* gradientu|uczeni|"
                     r"öğrenme|güncelle|eğitim|\badım\w* sonra|leersnelheid|bijwerk|trainingsstap|na de stap|"
                     r"langkah pelatihan|pembaruan|laju pembelajaran|cập nhật|huấn luyện|"
                     r"अद्यतन|प्रशिक्षण|सीखने की दर|अपडेट|inlärning|uppdater|träning|\bsteg(?:et)?\b|"
                     r"تحديث|تدريب|معدل التعلم|خطوة|צעד|אימון|עדכון|קצב למידה|βήμα|εκπαίδευσ|ενημέρωσ|"
                     r"\bkrok\b|učení|lépés|tanítás|frissít|askel|koulutu|päivit|antrenare|actualizare|"
                     r"\btrin\b|træning|opdater|ก้าว(?!หน้า)|อัปเดต|ฝึก(?!หัด)|อัตราการเรียนรู้|به‌روزرسانی|"
                     r"نرخ یادگیری|آموزش (?:مدل|شبکه)", re.I)
"""A heading or paragraph about training: there a figure may be of the model after a step."""


def _param(group: str) -> str:
    """The parameter a group is of: grad_W, sgd[1].W, lr*grad_W → W.

    >>> _param("sgd[1].grad_W"), _param("lr*grad_E"), _param("A")
    ('W', 'E', 'A')
    """
    return re.sub(r"^.*?(?:grad_|\.|\*)(?=[^.*]*$)", "", group).removeprefix("grad_")


def _instance(group: str) -> str:
    """Which norm, block or layer a group belongs to: mu2, var2, LN2 → '2'; l1.Q → 'l1.'; l1.var2 → 'l1.2';
    p → ''.

    >>> _instance("var2"), _instance("l1.Q"), _instance("grad_W_1"), _instance("p"), _instance("l1.LN1")
    ('2', 'l1.', '', '', 'l1.1')
    """
    layer = re.match(r"l\d+\.", group)
    bare = group[layer.end():] if layer else group
    m = re.search(r"(?<=[A-Za-z])(\d)$", bare)
    return (layer[0] if layer else "") + (m[1] if m and "_" not in bare else "")


class Vote(NamedTuple):
    """How well one reading of a name explains its figures (votes sort best first: agreement, then our own
    spelling, then agreement with a later training state, then the origin 0 before 1)."""
    agree: int
    alias: bool
    later: int
    base: int                  # minus the origin of the indices (MIXED: positions from 1, the rest from 0)
    group: str


TWIN_SETTING = {"lr": "adamw.lr", "adamw.lr": "lr"}
"""A learning rate's other optimizer's: 'lr' names either where a spec gives SGD and AdamW each their own."""
BATCH_TWIN = re.compile(r"loss|grad_(?!logits|z\b)\w+\[[^\]]*\]")
"""The quantities a mini-batch's spec also has as the batch's mean (``sgd[0].loss``, ``sgd[0].grad_W[0,1]``)."""

MIXED = 2
"""An origin that counts positions from 1 and the other axes from 0 (``u₃[0]``, a table whose rows are
t = 1, 2, 3 and whose columns are ``v[0]``, ``v[1]``)."""
MIXED_DIMS = 3
"""The other mixed origin: positions from 0, the other axes from 1 (``k̃_{2,1}``, position 2's first entry, where
the text counts positions as code does and a vector's entries as maths does)."""
LAYER_FIRST = "|@layer"
"""A reading's mark: its name's first index is the block (``q_{1,3,3}``: layer 1's Q[3,3])."""


def shift(base: int, axis: str) -> int:
    """What an index on ``axis`` counts from under an origin ``base`` (0, 1 or :data:`MIXED`).

    >>> shift(1, "j"), shift(MIXED, "t"), shift(MIXED, "j"), shift(MIXED_DIMS, "t"), shift(MIXED_DIMS, "j")
    (1, 1, 0, 0, 1)
    """
    return int(axis in "ts") if base == MIXED else int(axis not in "ts") if base == MIXED_DIMS else base


GRADIENT_WORDS = re.compile(r"gradient|Gradient|градиент|勾配|梯度|기울기|gradiente|grad\b", re.I)
"""Words that say a sentence is about gradients."""


def _written(figs) -> bool:
    """Whether a name's figures carry indices as the text writes them (W_{1,fly}), not only places in a
    vector written out (whose places count from 0 whatever the document's origin)."""
    return any(isinstance(k, int) or k[0] == "pos" for _, lab in figs for k in lab.index)


GRADIENT_OF = re.compile(r"(?:∂L/∂|dL/d|grad_|∂l/∂|δ(?=[^\W\d_]))(.+)|(.+)\.grad")
"""A gradient's spelling and the symbol it is of: ∂L/∂e, dL/de, grad_e, e.grad."""


@dataclass
class Reading:
    """What a name means: a group of the model's quantities, its indices' origin, how it was learned."""
    group: str
    base: int = 0
    agree: int = 0
    alias: bool = False
    others: list = None        # the groups some of its figures agree with instead (η: lr and adamw.lr)
    spelled: bool = False      # read through another name's reading (∂L/∂U where U is W), not from its figures


HEADED_NOT = re.compile(r"[hHxXuEez]['′″]*|LN\w*|ln\w*")
"""Names of quantities no head has its own of (the stream h, x, u, an embedding, a norm): their superscript is
no head when the head numbers' origin is learned."""
SHARES = re.compile(r"(?:^|\.)(?:p|A)$|^(?:softmax_T|topk|topp)")
"""Groups of shares (probabilities, attention weights): what a token's percentage can be."""
FREE_INDEX = re.compile(r"(?:_\{?[vtijksu]\}?|[ᵥₜᵢⱼₖₛᵤ])$")
"""A running index written after a name (``z_v``, ``p_{j}``, ``zᵥ``): the table's columns or rows give its value."""
NORM_STAT = re.compile(r"((?:l\d+\.)?)(mu|var)(\w*)")
"""A norm's mean or variance group (``mu2``, ``l1.var1``, ``var_f``): its layer, its statistic, its norm."""
STAT_LABEL = re.compile(r"(μ|mu|mean)(?:[12]|_f)?|(?:σ\^?\{?2\}?|σ²|var|variance)(?:[12]|_f)?", re.I)
"""A label that names a mean (group 1) or a variance without saying at which position (``μ``, ``var2``: a heading
named the norm)."""


NEGATIVE_LOG = re.compile(r"-\(?log\(")
"""A chain that is a negative logarithm: a cross-entropy, whatever its left side's symbol."""
LOSSES = re.compile(r"(?:^|\.)loss$|^loss_at|^gradcheck")
"""The groups a cross-entropy can be."""


def _spelt_stem(name: str, tied: list):
    """Of votes tied on a gradient's name written ``d`` + a stem (``dh``, ``grad_h``), the one whose gradient's
    stem is that stem, or it followed by ``_`` (``grad_h_final``), when exactly one is; else None.

    >>> from collections import namedtuple
    >>> V = namedtuple("V", "group")
    >>> _spelt_stem("dh", [V("grad_h_final"), V("grad_beta2"), V("grad_LN2|2:")]).group
    'grad_h_final'
    >>> _spelt_stem("dh", [V("grad_h_final"), V("grad_h_mid")]), _spelt_stem("h", [V("grad_h_final")])
    (None, None)
    """
    m = re.fullmatch(r"(?:d|grad_|∂L/∂)([^\W\d_][\w]*?)", name)
    if m is None or not tied:
        return None
    hits = [v for v in tied if re.fullmatch(rf"(?:l\d+\.)?grad_{re.escape(m[1])}(?:_\w+)?", v.group)]
    return hits[0] if len(hits) == 1 else None


SGD_NAMED = re.compile(r"\bsgd\b|gradient[- ]descent|梯度下降|勾配降下|descente d[eu] gradient|Gradientenabstieg|"
                       r"descenso (?:de|del) gradiente|discesa del gradiente|descida d[eo] gradiente|"
                       r"градиентн\w*\s+спуск|градієнтн\w*\s+спуск|gradyan iniş|spadek gradientu|경사 하강", re.I)
"""A text's words for plain gradient descent: where none is said and AdamW is, a step is AdamW's."""
ADAM_SAID = re.compile(r"\badam(?:w)?\b", re.I)
ADAM_EVIDENCE = re.compile(r"β[₁₂12]|beta_?[12]|m̂|v̂|\\hat\s*\{?\s*[mv]|\bmoments?\b|矩(?!阵)|モーメント|момент|Moment",
                           re.I)


def adam_only(text: str) -> bool:
    """Whether a text trains by AdamW alone: it names Adam as a word, shows its moments or β's, and never names
    plain gradient descent.

    >>> adam_only("Two AdamW steps: m̂ = m / (1 − β₁)"), adam_only("Madam, one SGD step"), adam_only("Adam, then SGD")
    (True, False, False)
    """
    return bool(ADAM_SAID.search(text) and ADAM_EVIDENCE.search(text) and not SGD_NAMED.search(text))


def _slipped(c, n) -> bool:
    """Whether a figure of four or more significant digits lies one unit in its last place from the candidate's
    value (a carried rounding, a last digit slipped): evidence, when a name is learned, that the name means it."""
    mantissa = re.split(r"[eE×]", n.text)[0]
    if n.kind != "decimal" or len(re.sub(r"\D", "", mantissa).lstrip("0")) < 4:
        return False
    lo, hi = cell(n)
    ulp = hi - lo
    return c.meets(lo - ulp, hi + ulp)



DECLARED_TRANSPOSE = re.compile(r"(?<![\w∂/])([A-Za-z][\w]{0,7})\s*=\s*([A-Za-z][\w.]{0,12}?)\s*"
                                r"(?:\^\s*\{?\s*(?:⊤|T|top)\s*\}?|ᵀ|\.T\b|\.t\(\))"
                                r"(?!\s*(?:[@·*(\\]|[A-Za-zα-ω](?![A-Za-z])|[A-Za-z]\w*[_^]))")
"""A letter set equal to a matrix transposed, in plain text: ``U = E^⊤``, ``W_U = Eᵀ``, ``U = wte.T``; not the
start of a product (``z = E^⊤ h``, ``s = E.T @ h``).

>>> [m[1] for m in DECLARED_TRANSPOSE.finditer("U = E^top alkion; z = E^T h; s = E.T @ h; A = E^T E; W_U = Eᵀ.")]
['U', 'W_U']
"""


class Notation:
    """Learns a document's names (see the module) and resolves each labelled figure to a quantity."""

    def __init__(self, matcher):
        self.m = matcher
        self._functions_of: dict = {}       # a function's ref → its candidate (None: it does not bind)
        self._named = None                  # the graph's own candidates as Spans, once a function needs them
        self._zero_first = None             # (labels, the (name, arity) some label indexes from 0 first)
        self.by: dict = {}
        for c in matcher.every:
            self.by.setdefault((c.group, c.of, c.idx), c)
        self.by_ref = {c.ref: c for c in matcher.every}
        self.head_base = 0
        self._numbers = None           # the document's figures, while learning (an update's operands)
        self._trained: dict = {}       # figure index → whether its section speaks of training
        self._runs_in: dict = {}       # section → the optimizer its post-step figures were read as (resolve)
        self._spellings: dict = {}     # group → _spelled(group)
        self._lower_names = None       # the one-letter names some group is spelled by (_capital)
        self.groups: dict = {}
        self.unspoken = set()          # a plain name's readings: only the topics the text speaks of (no top-p
        for c in matcher.every:        # unless it does); a name a step's state is written on is read as stated
            self.groups.setdefault((c.group, c.of), c.axes)
            if not matcher.spoken(c):
                self.unspoken.add(c.group)
        self._stepped = {(g.split(".", 1)[1], of) for g, of in self.groups if re.match(r"sgd\[\d+\]\.", g)}
        for c in matcher.every:        # a gradient check's entries, by the parameter's entry (a table's rows)
            entry = re.fullmatch(r"gradcheck\(([\w.]+)\[([^\]]+)\], .*\)", c.ref)
            if entry and (entry[1], "") in self.groups:
                try:                   # (E[runs,0]: the token's row, by its id)
                    node = matcher.d.node(f"{entry[1]}[{entry[2]}]")
                except Exception:  # noqa: BLE001 - no entry of the graph: none to read
                    continue
                self.by[("gradcheck", entry[1], tuple(int(i) for i in re.findall(r"\d+", node.partition("[")[2])))] = c
                self.groups[("gradcheck", entry[1])] = self.groups[(entry[1], "")]

    # ------------------------------------------------------------ spellings

    def spellings(self, group: str) -> set:
        """The names that mean a group without a vote: its own, its aliases, its gradient's spellings.

        The state prefix of a training step is kept: ``sgd[1].W`` is spelled only so.
        """
        if "(" in group or "[" in group and not group.startswith(("sgd[", "adamw[")):
            return {group}
        out = {group}
        layer, _, bare = group.rpartition(".") if re.match(r"l\d+\.", group) else ("", "", group)
        if group.startswith(("sgd", "adamw", "head_step")):
            return out
        stem = bare[5:] if bare.startswith("grad_") else bare
        words = {stem, *self._data_aliases(stem),
                 *(a for a in ALIASES.get(stem, ()) if re.fullmatch(r"[\w\u0300-\u036f\u0370-\u03ff²^]+", a))}
        if stem.endswith("_f"):          # the final norm's statistics with an f under their letter: μ_f, σ_f², σ²_f
            words |= {w for a in words if re.fullmatch(r"[μσ]²?", a)
                      for w in ((f"{a[:-1]}_f²", f"{a}_f") if a.endswith("²") else (f"{a}_f",))}
        if bare.startswith("grad_"):
            words |= {"l"} if stem in ("logits", "z") else set()      # (∂L/∂l: a plain l for ℓ, under the derivative)
            norm = re.fullmatch(r"(gamma|beta)(\d|_f)", stem)          # ∂L/∂β_f, ∂L/∂γ₁: a norm's weight, shift
            words |= {f"{g}{j}" for g in ({"gamma": "γ", "beta": "β"}[norm[1]], norm[1])
                      for j in {norm[2].lstrip("_"), "_" + norm[2].lstrip("_"), "_{" + norm[2].lstrip("_") + "}"}} \
                if norm else set()
            out |= {f"{p}{w}" for w in words for p in ("d", "grad_", "∂L/∂", "dL/d")} | {f"{w}.grad" for w in words}
            out |= {"δ"} if stem in ("logits", "z") else set()       # (backpropagation's error signal at the logits)
        else:
            out |= words
        return {f"{layer}.{w}" if layer else w for w in out} | ({bare} if not layer else set())

    def _data_aliases(self, stem: str) -> tuple:
        """What code and prose call a tensor (:data:`DATA_ALIASES`), and a tied model's E also the output matrix's
        names (W_out, lm_head, a letter the text sets equal to Eᵀ: read transposed)."""
        return DATA_ALIASES.get(stem, ()) + (HEAD_NAMES + self._declared_heads() if stem in ("E", "E_head") and
                                             self._tied() else ())

    def _declared_heads(self) -> tuple:
        """The letters the text sets equal to a tied model's Eᵀ (``U = E^\\top``, ``W_U = Eᵀ``, ``U = wte.T``): the
        output matrix under the document's own name."""
        if not hasattr(self, "_declared"):
            text = plain("\n".join(getattr(self.m, "lines", ())))
            self._declared = tuple(dict.fromkeys(
                m[1] for m in DECLARED_TRANSPOSE.finditer(text)
                if m[2] in ("E", "W_E", "W_e", "wte", "wte.weight", "embed_tokens") and m[1] not in ("E", "W_E"))) \
                if self._tied() else ()
        return self._declared

    def _tied(self) -> bool:
        """Whether the model is a transformer whose output matrix is Eᵀ."""
        spec = self.m.d.spec
        return spec.kind == "transformer" and getattr(spec, "tied", False)

    def _spelled(self, group: str) -> tuple:
        """(its spellings, those longer than one letter in lower case), worked out once per group."""
        if group not in self._spellings:
            words = self.spellings(group)
            self._spellings[group] = words, {w.lower() for w in words if len(w) > 1}
        return self._spellings[group]

    def named(self, label) -> str:
        """The name a label's figures are learned under: its name, with a superscript that is neither a head nor
        a layer (``W^{(1)}`` and ``W^{(2)}``, a one-block model's two MLP matrices; ``h^{(0)}``, ``h^{(1)}``, the
        stream after 0 and 1 blocks, in a model of any depth) kept as part of it, since two such superscripts
        name two tensors.

        >>> from symgpt.claims.symbols import Label
        >>> import symgpt; from symgpt.claims.match import Matcher
        >>> n = Notation(Matcher(symgpt.load("tiny-transformer")))
        >>> n.named(Label("W", (0, 1), sup=(1,))), n.named(Label("W", (0, 1)))
        ('W^(1)', 'W')
        """
        if not label.sup or self.head(label) is not None or \
                (self.m.d.spec.layers or 1) != 1 and not HEADED_NOT.fullmatch(label.name):   # (a bigram: one)
            return label.name          # (with layers, s^{(1)} is layer 1's s; the stream's h^{(1)}, h^{(2)}: two)
        return f"{label.name}^({','.join(map(str, label.sup))})"

    def _alias(self, name: str, group: str) -> bool:
        """Whether ``name`` is one of ``group``'s spellings, a running index after it or not: ``∂L/∂z_v``,
        ``∂L/∂zᵥ`` and ``p_j`` of a table whose columns give v and j spell ∂L/∂z and p."""
        name = SUPERSCRIPTED.sub("", name)          # W^(1): W's spellings (the figures tell W_1 from W_2)
        if self._spells(name, group):
            return True
        bare = FREE_INDEX.sub("", name)
        return bare != name and bare != "" and self._spells(bare, group)

    def _spells(self, name: str, group: str) -> bool:
        if name == "token":
            return group == "p"
        if group == "gradcheck":
            return NUMERICAL.search(name) is not None
        layered = re.fullmatch(r"grad_(l\d+)\.(.+)", group)
        if layered and not re.search(rf"(?:^|∂|_|d){layered[1]}\.", name):   # ∂L/∂W_Q of a block's W_Q: any
            return self._spells(name, f"grad_{layered[2]}")                   # layer's (its figures say which)
        layer = re.match(r"(l\d+)\.", group)
        if layer and not name.startswith(layer[0]):
            bare = group[len(layer[0]):]              # A of a block's attention: any layer's (the figures say which)
            exact, lower = self._spelled(bare)        # … and μ of a block's norm, as of a model without blocks
            return name == bare or name in exact or name.lower() in lower or self._capital(name, bare)
        if group in STEPPED:
            return name in self._spelled(group.partition(".")[2])[0]
        if (moment := re.fullmatch(r"adamw\[\d+\]\.(m|v|mhat|vhat|update|decay)", group)) is not None and \
                MOMENTS.get(name) == moment[1]:
            return True                  # a column m, v̂ of a parameter's rows: AdamW's (m1, m̂₁ spelled below)
        exact, lower = self._spelled(group)
        return name in exact or name.lower() in lower or self._capital(name, group)

    def _capital(self, name: str, group: str) -> bool:
        """A lower-case letter that spells no tensor (``f`` where F is the FFN's output, but never ``z``, the
        logits beside Z): its capital's group."""
        if len(name) != 1 or not name.islower() or name.upper() != group:
            return False
        if self._lower_names is None:
            self._lower_names = {w for g, _ in self.groups for w in self._spelled(g)[0] if len(w) == 1}
        return name not in self._lower_names

    # ------------------------------------------------------------ one label, one hypothesis

    def _where(self, group: str, label) -> tuple | None:
        """(group, of, index prefix) where a label's entries live under a reading: its state's group
        (``sgd[1].W``, ``sgd.loss`` at step 1), and a row's parameter as ``of`` (``adamw[1].m`` of W) or
        in the group's name (the reading ``adamw[1].{}`` is ``adamw[1].W`` on W's row)."""
        of, said = "", self._param_named(label.of)
        if "{}" in group:
            group = group.replace("{}", said)
        elif label.of:
            of = said
        if not label.state:
            return (group, of, ()) if (group, of) in self.groups else None
        if (f"{label.state}.{group}", of) in self.groups:
            return f"{label.state}.{group}", of, ()
        k = re.fullmatch(r"(sgd|adamw|example)\[(\d+)\]", label.state)
        if k and (f"{k[1]}.{group}", of) in self.groups:
            return f"{k[1]}.{group}", of, (int(k[2]),)
        row = self._input_row(group, of, ())
        if row is not None and (f"{label.state}.E", "") in self.groups:
            return f"{label.state}.E", "", row[1]             # a bigram's x after a step: its word's row of E
        return None

    def _param_named(self, name: str) -> str:
        """The spec's parameter a row's name spells (``wte`` → E, ``b_fc`` → b_1); the name itself else."""
        params = self.m.d.spec.params
        if not name or name in params:
            return name
        if not hasattr(self, "_named_params"):
            self._named_params = {}
        if name not in self._named_params:
            hits = [p for p in params if name in self._spelled(p)[0]]
            if len(hits) == 1:
                self._named_params[name] = hits[0]
        if name in self._named_params:
            return self._named_params[name]
        learned = list(dict.fromkeys(r.group for k, r in getattr(self, "_learned", {}).items()
                                     if k[0] == name and len(k) == 4 and not k[2] and not k[3] and
                                     r.group in params and r.agree))
        return learned[0] if len(learned) == 1 else name     # the document's own letter, read from its figures
        #                                                       (U for W), as far as learning has gone

    def _input_row(self, group: str, of: str, idx: tuple) -> tuple | None:
        """A bigram's x at ``idx`` as the row of E it is, ``("E", (word, *idx))``; None for another group."""
        spec = self.m.d.spec
        if group != "x" or of or len(spec.input) != 1:
            return None
        return "E", (spec.input[0], *idx)

    def _position(self, token: int) -> int | None:
        """The one position the input holds ``token`` at (a table's column 'cat' over Q's rows), else None."""
        where = [t for t, x in enumerate(self.m.d.spec.input) if x == token]
        return where[0] if len(where) == 1 else None

    def head(self, label) -> int | None:
        """The head a label speaks of, as written: the one its text names, else its name's superscript's, which
        is the head in a model of one layer (``Q^{(1)}``) and the second of two (``a^{(2,1)}``: layer 2, head 1).

        A superscript's one number in a model of several layers is its layer, which the section says."""
        spec = self.m.d.spec
        if label.head is not None or spec.heads < 2 or not label.sup:
            return label.head
        if len(label.sup) == 2:
            return label.sup[1]
        return label.sup[0] if spec.layers == 1 else None

    def _name_head(self, label) -> int | None:
        """The head a one-layer model's name carries as its last digit (``s₁(3,2)``, ``a2[3,1]``), on the scale of
        :attr:`head_base`: the names' digits count from 1 unless one of them is 0."""
        k = self._name_digit(label)
        return None if k is None else k - getattr(self, "_name_base", 1) + self.head_base

    def _name_digit(self, label) -> int | None:
        spec = self.m.d.spec
        m = re.fullmatch(r"[^\W\d_]+_?(\d)", label.name) if spec.heads > 1 and spec.layers == 1 else None
        return int(m[1]) if m else None

    def _concatenated(self, group: str) -> bool:
        """Whether a group is the heads' outputs set side by side: Attn_heads (before W_O), or Attn where the
        block has no W_O (``o^{[2]}_3`` is then Attn's columns of head 2)."""
        layer, _, bare = group.rpartition(".") if re.match(r"l\d+\.", group) else ("", "", group)
        grad = "grad_" if bare.startswith("grad_") else ""         # (and their gradients, ∂L/∂o^{(2)})
        bare = bare.removeprefix("grad_")
        prefix = f"{layer}." if layer else ""
        return bare == "Attn_heads" or bare == "Attn" and (f"{prefix}{grad}Attn_heads", "") not in self.groups

    def lookup(self, group: str, base: int, label):
        """The candidate a label names under a reading (None when out of range or absent).

        A reading ``G|:1`` is the column 1 of a matrix G (a table's ``cos(pos)`` column is PE[·,1]);
        ``G|1:`` its row 1."""
        if group.endswith("|@last"):
            if label.index:
                return None
            last = len(self.m.d.spec.input) - 1 + shift(base, "t")    # (the fixed index counts from 0, as a
            #                                                               slice's)
            return self.lookup(group[:-6], base, replace(label, index=(last,)))
        if group.endswith(LAYER_FIRST):
            k = label.index[0] if label.index else None
            if not isinstance(k, int):
                return None
            return self.lookup(f"l{k - shift(base, 'L')}.{group.removesuffix(LAYER_FIRST)}", base,
                               replace(label, index=label.index[1:]))
        if group.endswith("|T"):
            if len(label.index) != 2:
                return None
            return self.lookup(group[:-2], base, replace(label, index=label.index[::-1]))
        if "|" in group:
            group, _, cut = group.partition("|")
            if len(label.index) != 1:
                return None
            a, _, b = cut.partition(":")        # the fixed index counts from 0: shifted by the base lookup takes off
            i, axes = label.index[0], self.groups.get((group, ""), "  ")
            index = (i, int(b) + shift(base, axes[1])) if a == "" else (int(a) + shift(base, axes[0]), i)
            return self.lookup(group, base, replace(label, index=index))     # (its head's superscript kept:
            #                                                                     o^{(2)}_1 of row 2 is head 2's)
        where = self._where(group, label)
        if where is None:
            return None
        group, of, prefix = where
        axes = self.groups[(group, of)][len(prefix):]
        head, sliced = self.head(label), None
        if head is None and axes[:1] == "h" and len(axes) == len(label.index) + 1:
            head = self._name_head(label)          # s₁(3,2): head 1's score, its head in the name's subscript
        if head is not None and axes[:1] == "h" and len(axes) == len(label.index) + 1:
            prefix, axes = prefix + (head - self.head_base,), axes[1:]   # α of head 2: A[1, t, s]
        elif head is not None and (HEAD_COLUMNS.search(group) or self._concatenated(group) and label.sup) and \
                self.m.d.spec.heads > 1:       # (o^{[2]}: its own superscript; not 'attn[2]' under 'head 1 …')
            sliced = head - self.head_base       # q of head 2 is a slice of Q's columns, o of head 2 of Attn's
        if len(axes) != len(label.index):
            return None
        idx = list(prefix)
        step_axis = 0 if group in STEPPED and not prefix else None     # a run's step: counted as written
        for i, (a, k) in enumerate(zip(axes, label.index)):
            if isinstance(k, tuple) and k[0] == "at":
                idx.append(k[1])              # a place in a literal: counted from 0 whatever the text's origin
            elif isinstance(k, tuple) and k[0] == "pos":
                if a not in "ts":
                    return None
                idx.append(k[1] - shift(base, a))   # a position its token's header numbers, 'il (4)', as counted
            elif isinstance(k, tuple):
                at = self._position(k[1]) if a in "ts" else None
                if a != "v" and at is None:
                    return None
                idx.append(k[1] if a == "v" else at)     # a token over a position axis: where it stands
            else:
                idx.append(k if i == step_axis else k - shift(base, a))
        idx = tuple(idx)
        d_k = self.m.d.spec.d // self.m.d.spec.heads
        if sliced is not None and idx and 0 <= idx[-1] < d_k and sliced >= 0:
            idx = idx[:-1] + (sliced * d_k + idx[-1],)       # head h's column c is Q's column h·d_k + c
        #     (a column beyond d_k counts Q's own columns: Q^{(1)}_{0,3} in layer 1, not a head)
        if group in STEPPED and idx and idx[0] == 0:          # step 0: the model as it starts (a mini-batch's
            rest = group.partition(".")[2]                    # mean, whichever optimizer starts from it)
            return self.by.get((group, of, idx)) or self.by.get((f"sgd.{rest}", of, idx)) or \
                self.by.get((rest, of, idx[1:]))
        if group.startswith("example.") and idx and idx[0] == 0:     # a mini-batch's example 0: the spec's own
            return self.by.get((group.partition(".")[2], of, idx[1:]))
        return self.by.get((group, of, idx))

    # ------------------------------------------------------------ learning

    def learn(self, numbers, labels: dict) -> dict:
        """name → :class:`Reading` for the names the document's figures (or our spellings) explain."""
        self._numbers = numbers
        marks = {h for lab in labels.values() if (h := self.head(lab)) is not None and
                 (lab.head is not None or not HEADED_NOT.fullmatch(lab.name) and not lab.name.startswith("literal@"))}
        #      (h^{(0)}, h^{(1)}: the stream before and after the block, no head 0 that counts heads from 0; nor
        #       the superscript of a vector written out, h^{(0)} = (…), whose name is not read)
        if 0 in marks and self.m.d.spec.heads in marks:
            marks = set()    # head 0 and head H of H heads: some of these superscripts are no heads' (r^{(0)},
            #                  r^{(1)}, a stream's stages, beside a^{(2)}): the figures say how the heads count
        if not marks:                    # only superscripts of names no head has its own of: counted from 1 if
            every = {h for lab in labels.values() if (h := self.head(lab)) is not None}     # one is the last head's
            marks = every if every and 0 not in every and max(every) == self.m.d.spec.heads else marks
        self.head_base = 0 if 0 in marks or not marks else 1     # head 1, head 2: counted from 1
        if not marks:                    # superscripts that do not say how they count (only (1) of two heads):
            self.head_base = self._head_base_by_votes(numbers, labels)      # as most of their figures agree
        self._name_base = 0 if any(self._name_digit(lab) == 0 for lab in labels.values()) else 1    # s₁, s₂
        names: dict = {}
        for n in numbers:
            lab = labels.get(n.index)
            if lab is not None and lab.inner is None and readable(n) and \
                    n.kind in ("decimal", "percent", "power", "integer"):
                key = (self.named(lab), len(lab.index), bool(lab.of), bool(lab.state))
                names.setdefault(key, []).append((n, lab))
                names.setdefault(key + (lab.section,), []).append((n, lab))
        self._figures = names
        out = self._learned = {}
        for key, figs in sorted(names.items(), key=lambda kv: kv[0][2]):   # (a column of a row's parameter after
            r = self._reading(key, figs)                                   #  the parameter's own name is read:
            if r is not None:                                              #  U, the author's letter for W)
                out[key] = r
        for key, figs in names.items():        # σ² beside μ = mu2 in one section: var2, not var1
            if key not in out and len(key) == 5:
                prefer = {_instance(r.group) for k, r in out.items() if len(k) == 5 and k[4] == key[4]} - {""}
                r = self._reading(key, figs, prefer) if prefer else None
                if r is not None:
                    out[key] = r
        kin = [k[1:] for k, r in out.items() if k[0] in "qkv" and len(k) == 4 and r.alias and
               r.group == k[0].upper()]        # k and v read as K and V: the document writes the projections in
        for key, figs in names.items():        # lower case, so q, with one of its two figures wrong, is Q
            if key not in out and key[0] in ("q", "k", "v") and len(key) == 4 and kin.count(key[1:]) >= 2:
                r = self._reading(key, figs, kin=True)
                if r is not None and r.group == key[0].upper():
                    out[key] = r
        return self._origins(out, names)

    def _head_base_by_votes(self, numbers, labels: dict) -> int:
        """How a document counts heads whose superscripts do not say (``s_{31}^{(1)}`` with no head 0 nor the
        last head written): from 1 when more of its headed figures agree with our own name's tensor so counted,
        whatever the origin of their other indices; else from 0."""
        agree = [0, 0]
        for n in numbers:
            lab = labels.get(n.index)
            if lab is None or lab.inner is not None or lab.fn or lab.state or lab.of or self.head(lab) is None or \
                    not readable(n) or n.kind != "decimal":
                continue
            groups = [g for (g, of), axes in self.groups.items() if not of and axes[:1] == "h" and
                      len(axes) == len(lab.index) + 1 and self._alias(lab.name, g)]
            for head_base in (0, 1):
                self.head_base = head_base
                agree[head_base] += any((c := self.lookup(g, base, lab)) is not None and self.m.rounds(c, n)
                                        for g in groups for base in (0, 1))
        self.head_base = 0
        return 1 if agree[1] > agree[0] else 0

    def _origins(self, out: dict, names: dict) -> dict:
        """The readings no figure agrees with, their origins from the rest of the document; and names read
        through their gradient's spelling (``e`` where ``∂L/∂e`` is grad_x)."""
        written = [r.base for k, r in out.items() if r.agree and _written(names[k])]
        origin = self._origin = max(set(written), key=written.count) if written else 0    # how the document
        through_read = set()                                                                 # counts, mostly
        for key in names:                       # e read through ∂L/∂e (grad_x): x; ∂L/∂e through e: grad_x
            if key not in out and len(key) == 4 and not key[2] and (through := self._through_gradient(key, out)):
                group, source = through       # (a vector's places count from 0: the document's own origin)
                base = out[source].base if _written(names[source]) else origin
                mean = self._batch_mean(group, base, names[key])
                out[key] = Reading(mean, base, spelled=mean != group)    # (a batch's mean by its letter: kept in a
                #                                                           section whose figures all are wrong)
                through_read.add(key)
        for key, r in out.items():
            lead = [o.base for k, o in out.items() if k != key and k[2] and k[1] == key[1] and o.agree and
                    k[4:] == key[4:]] if key[2] and r.agree else []
            base = max(set(lead), key=lead.count) if lead else r.base      # (the origin most of the rows' columns
            if 2 * lead.count(base) > len(lead) and base != r.base and \
                    self._agreeing(r.group, base, names[key]) >= self._agreeing(r.group, r.base, names[key]):
                out[key] = replace(r, base=base)    # read; v̂ = g² agrees at W_{1,2} and at W_{1,1} = −W_{1,2}: the
                continue                            # rows' origin, as m and m̂ read it)
            if r.agree or key in through_read or not _written(names[key]) and not key[2]:
                continue
            lead = {o.base for k, o in out.items() if k[2] and k[1] == key[1] and o.agree} if key[2] else set()
            if len(lead) == 1:                  # an entry's lead-in counts from one origin in all its states (v of
                out[key] = replace(r, base=lead.pop())     # W_{1,fly} from m's and m̂'s, when v's own is wrong)
            elif _written(names[key]):
                zero = any(k == 0 for _, lab in names[key] for k in lab.index if isinstance(k, int))
                base = 0 if zero else origin    # a name read by its spelling alone: the document's origin (but an
                #                                 index 0 counts from 0: wte[cat, 0])
                if all(self.lookup(r.group, base, lab) is not None for _, lab in names[key]):
                    out[key] = replace(r, base=base)   # (unless that origin cannot place its figures: ∂L/∂S_{3,1}
                    #                                    at T = 3 counts from 1, whatever the rest does)
        return out

    def _agreeing(self, group: str, base: int, figs: list) -> int:
        """How many of a name's figures round from ``group``'s entries counted from ``base``."""
        return sum(1 for n, lab in figs if (c := self.lookup(group, base, lab)) is not None and self.m.rounds(c, n))

    def _batch_mean(self, group: str, base: int, figs: list) -> str:
        """A gradient read through its parameter's spelling (``∇_U J`` where U is W) as the mini-batch's mean
        gradient, ``sgd[0].grad_W``, unless more of its figures agree with the spec's own example's (the gradient
        of a batch's loss is its mean's, where no figure says otherwise)."""
        mean = f"sgd[0].{group}"
        if not group.startswith("grad_") or (mean, "") not in self.groups:
            return group
        return mean if self._agreeing(mean, base, figs) >= self._agreeing(group, base, figs) else group

    def _through_gradient(self, key, out: dict) -> tuple | None:
        """(group, the key read) for a name whose gradient's spelling is read (``e`` where ``∂L/∂e`` is grad_x:
        x), or a gradient's spelling whose symbol is read (``de`` where ``e`` is x: grad_x)."""
        name, arity = key[:2]
        bare = GRADIENT_OF.fullmatch(name)
        sources = [(bare[1] or bare[2], arity, False, False)] if bare else \
            [(p + name, arity, False, False) for p in ("∂L/∂", "dL/d", "grad_", "d")]
        for source in sources:
            r = out.get(source)
            if r is None or r.group.startswith("grad_") != (not bare):
                continue
            group = "grad_" + r.group if bare else r.group.removeprefix("grad_")
            if (group, "") in self.groups:
                return group, source
        return None

    def _reading(self, key, figs, prefer=(), kin=False):
        name, arity, of = key[:3]
        if of:        # a column over rows of entries: those of parameters the rows place (not W_V^{(1)}, its block
            figs = [(n, lab) for n, lab in figs if self._param_named(lab.of) in self.m.d.spec.params] or figs
            #         unread in a model of blocks: its row says nothing of the column)
        votes = []
        hypotheses = list(self.groups.items()) if not of else self._templates()
        literal_only, signed = name.startswith("literal@"), []      # an anonymous literal: signs as evidence too
        literal = any(isinstance(k, tuple) and k[0] == "at" for _, lab in figs for k in lab.index)
        anonymous = re.match(r"(?:literal|table)@", name) is not None   # (a near figure is evidence for a name only)
        #         (a literal's places fit any tensor of its shape: a name alone, no figure agreeing, is too little)
        if arity == 1 and not of:
            hypotheses += self._slices()
        if arity == 0 and not of:
            hypotheses += self._last_rows()
        if arity >= 2 and not of:
            hypotheses += self._layers_first()
        if arity == 2 and not of and (re.match(r"literal@|table@|.*weight", name) or self._head_name(name)) and \
                not self.m.checkpoint_names.as_stored(name):
            hypotheses += self._transposes()     # a Linear's .weight (out × in), a matrix printed transposed
            #                                      (not a Conv1D's, c_proj.weight: GPT-2 stores it as we do)
        if SETTING_WORD.fullmatch(name):
            hypotheses = [h for h in hypotheses if SETTING.fullmatch(h[0][0])]   # temperature=0.8: no tensor's
        if GRADIENT_NAME.match(name):            # ∂J/∂u: a gradient by its form, whatever tensor its figures fit
            hypotheses = [h for h in hypotheses if GRADIENT_GROUP.search(h[0][0]) and not (
                h[0][0].endswith("_head") and self._alias(name, h[0][0].removesuffix("_head")))]
            #   (∂L/∂wte is the whole gradient of E, never its head's part: a part has no name of its own)
        for (group, g_of), axes in hypotheses:
            if group in ("id", "count", "onehot", "loss_at", "gradcheck.theta") or g_of and not of or \
                    of and not g_of and "{}" not in group:     # (a check's moved losses: by their value, nearby)
                continue
            if group in self.unspoken and not key[3]:
                continue
            if SETTING.fullmatch(group) and not self._alias(name, group) and \
                    not self._alias(name, group.removeprefix("adamw.")):
                continue                     # h = 10⁻² beside ln_eps = 0.01: a setting only by its own name
            unheaded = sum(self.head(lab) is None and self._name_head(lab) is None for _, lab in figs)
            headed = axes[:1] == "h" and len(axes) == arity + 1 and 2 * unheaded < len(figs)
            #        (most figures' heads known: a long formula's s^{[1,1]}_{3,1} out of reach leaves one out)
            if len(axes) != arity and not headed and not (group in STEPPED and len(axes) == arity + 1):
                continue
            if group.endswith("|@last") and not re.search(r"_f|final", name, re.I):
                continue                     # (the final norm's statistics only under a name that says so: μ_f)
            alias = self._alias(name, group.partition("|")[0] if group.endswith(("|@last", "|T")) else
                                "l0." + group.partition("|")[0] if group.endswith(LAYER_FIRST) else group)
            mixed = any(a in "ts" for a in axes) and any(a not in "tsvh" for a in axes)
            for base in ((0, 1, MIXED, MIXED_DIMS) if mixed else (0, 1)) if _written(figs) else (0,):
                agree, seen, later, nonzero, flips, stepped_on = 0, 0, 0, 0, 0, False
                for n, lab in figs:
                    c = self.at_temperature(self.lookup(group, base, lab), n)
                    if c is not None and lab.fn:      # e^logit's figures vote for logit through exp
                        c = self.function(lab.fn, c)
                    if c is None:
                        continue
                    seen += 1
                    exact = self.m.rounds(c, n) or self._through_step(c, n) or not key[3] and \
                        MOMENT_GROUP.fullmatch(c.group) is not None and self._later_step(c, n) is not None
                    #        (m, v, m̂ in a table per AdamW step: the first step's moments, each table at its own)
                    ok = exact or not anonymous and _slipped(c, n)
                    agree += 1 if exact else 0.5 if ok else 0     # (a figure one unit off: half a vote)
                    nonzero += exact and n.value != 0     # (one figure at least agreeing to its digits)
                    later += not ok and self._a_later_state(c, n)   # (an origin's tie-breaker, no agreement)
                    flips += not ok and literal_only and self._flipped(c, n)
                    stepped_on = stepped_on or ok and bool(c.idx) and c.idx[0] > 0 and n.value != 0
                agree = agree if nonzero else 0       # zeros alone (masked cells, 0.000) agree with any zero
                if group in STEPPED and literal_only and not stepped_on:
                    agree = 0    # an anonymous matrix whose row 0 alone agrees with p: no rows of steps (a batch's)
                if not alias and agree and re.fullmatch(r"[^|]+\|\d+:", group) and \
                        self._alias(name, group.partition("|")[0]):
                    alias = True              # F|2:, F's row 2, spelled as F is where a figure agrees with it
                    #                           (a row: a vector printed for one position; never a column)
                if seen == len(figs) - (unheaded if headed else 0) and \
                        (agree or alias and (not literal or self._own(name, group))):
                    votes.append(Vote(agree, alias, later, -base, group))
                    if agree and agree + flips == len(figs) and flips <= agree:
                        signed.append(votes[-1])     # (−0.0123, 0.1429): one agreeing, one its sign turned
        if len(figs) == 1 and not key[3] and not TRAINED.search(figs[0][0].heading + " " + figs[0][0].prose):
            votes = [v for v in votes if v.alias or not RUN_STATE.match(v.group)]
            #   (one figure agreeing with a state after training, where its section speaks of none: a coincidence)
        if not votes:
            return None
        votes.sort(reverse=True)
        share = lambda a: a >= AGREE_SHARE * len(figs) if len(figs) > 1 else a >= 1   # noqa: E731
        named = [v for v in votes if v.alias]
        best, top = votes[0], named[0] if named else None
        own = top is not None and top.group.rpartition(".")[2].startswith("grad_") and self._own(name, top.group) \
            and (share(top.agree) or len(figs) <= 2 and best.group == "p") and best.agree - top.agree <= 1
        #     (∂L/∂z printed as p at one entry: the −y forgotten; δ_oggi = 0,2214 alone, δ defined as ∂L/∂ℓ)
        alike = top is not None and top.agree == 0 and best.agree > 0 and share(best.agree) and \
            not self._exact(name, top.group) and \
            (len(figs) > 1 or name == "token" or TENSOR_GROUP.fullmatch(best.group))
        #     (a name's one figure is no arithmetic of a tensor against a usual spelling: s = … = −0.6589, q·k with
        #      its 1/√d_k forgotten, is s wrong, not S*sqrt(d/heads))
        most = best.agree >= AGREE_MIN and share(best.agree) and (top is None or best.agree > top.agree) and \
            not (top is not None and top.agree and self._exact(name, top.group) and best.agree <= 2 * top.agree)
        #     (our own name W_O, one figure agreeing, is not outvoted by W_1's two: short figures, 0.1, fit many)
        spelt = None
        derivative = len(figs) == 1 and top is not None and top.agree == 0 and GRADIENT_NAME.match(name) and \
            GRADIENT_GROUP.search(top.group) and top.group.replace("grad_", "", 1) in self.m.d.spec.params
        #     (one figure under a parameter's derivative, ∂L/∂e_{supă,1}: E's gradient, wrong; another tensor it
        #      happens to equal, the residual's gradient, is that gradient with a term left out, not its name)
        if derivative:
            pick = top
        elif (most or alike) and not own:
            pick = best                 # most of its figures agree with one tensor: that is what it names
            #                             (a usual spelling none of whose figures agree names the tensor that does)
        #                                 (but ∂L/∂z is the gradient, even where p agrees with one more figure)
        elif top is not None and ((self._own(name, top.group) or self._own_in_one_layer(name, top, named)) and
                                  (len({(lab.index, lab.head, n.value) for n, lab in figs}) <= 2 or
                                   share(top.agree)) or     # (one entry printed again is one figure)
                                  top.agree > AGREE_SHARE * len(figs) or
                                  key[3] and top.agree >= max(1, AGREE_SHARE * len(figs)) or   # (e ← …: a state
                                  #                                 written on the name, half its figures agreeing)
                                  literal and top.agree >= 1 and share(top.agree) or
                                  kin and top.agree >= 1 and share(top.agree) or
                                  len(figs) == 2 and top.agree == 1 and best is top and arity >= 2):
            #                           (f_{3,1} beside f_{3,2}: a usual spelling of F, one of its two figures
            #                            agreeing at both its indices and no reading explaining more)
            #                           (a vector written out under a spelling of ours, half its entries agreeing)
            pick = top                  # our name or a usual spelling of it, not outvoted
        elif sum(v.agree >= 1 for v in votes) == 1 and best.agree >= 1 and any(lab.fn for _, lab in figs) and \
                int(best.agree) == sum(not lab.fn and len(n.text.strip("-−+.0").replace(".", "")) >= 4
                                       for n, lab in figs):
            pick = best                 # u₅ = 1.2978, then GELU(u₅) = …: the one tensor its plain figures fit
            #                             to four digits; its function's figure is judged by it
        elif (spelt := _spelt_stem(name, [v for v in votes if v.agree == best.agree and best.agree >= 1])) \
                is not None and share(best.agree):
            pick = spelt                # dh between grad_h_final and grad_β₂, alike at its figures: h_final's
        elif signed and signed[0].agree == best.agree and (len(signed) == 1 or (same := self._same_values(
                {v.group for v in signed}, signed[0].base, figs)) is not None):
            pick = spelt = signed[0] if len(signed) == 1 else next(v for v in signed if v.group == same)
            #                             (an anonymous pair, one entry agreeing and the other its sign turned: that
            #                              tensor's, the turned sign a slip, not another tensor's that happens to agree)
        else:
            return None
        tied = [v for v in votes if v.agree == pick.agree and v.alias == pick.alias] if pick is not spelt else [pick]
        steps = {re.sub(r"\[\d+\]", "[k]", v.group, count=1) for v in tied}
        if len({v.group for v in tied}) > 1 and len(steps) == 1:      # adamw[1].update, adamw[2].update: the first
            tied = pick = min(tied, key=lambda v: int(re.search(r"\[(\d+)\]", v.group)[1]))
            tied = [tied]
        columns = [v for v in tied if "|:" in v.group]
        if len({v.group for v in tied}) > 1 and len(columns) == 1 and name.startswith("column@"):
            tied = [pick := columns[0]]  # a table's column runs down its rows: V's column 2, not its row 2 read across
        if len({v.group for v in tied}) > 1 and not key[3]:
            groups = {v.group for v in tied}
            model = [v for v in tied if re.sub(r"^(?:sgd|adamw)(?:\[\d+\])?\.", "", v.group) not in groups - {v.group}]
            if model and len(model) < len(tied):      # W as it starts, not adamw[1].W a small step away: a
                tied, pick = model, model[0]          # state after a step is named as such
            said = NUMERICAL.search(name)           # a gradient and its check agree to the digits printed: the
            model = [v for v in tied if (v.group == "gradcheck") == bool(said)]     # column's name tells which
            if model and len(model) < len(tied):
                tied, pick = model, model[0]
            model = [v for v in tied if not re.match(r"(?:(?:sgd|adamw)(?!\[0\]\.)|head_step)\b", v.group) and
                     re.fullmatch(r"(?:(?:sgd|adamw)\[0\]\.)?[\w.{}]+", v.group)]
            #        (a tensor, not an expression: lr*grad_W is m₁; a mini-batch's mean gradient, sgd[0].grad_E, is one)
            if model and len(model) < len(tied):      # the gradient, not the first step's m̂ (equal to it): an
                tied, pick = model, model[0]          # optimizer's state is named as such too
            same = self._same_values({v.group for v in tied}, pick.base, figs)
            if same:                                  # PE and W_pe, one tensor under two names: the parameter
                tied = [pick := next((v for v in tied if v.group == same), pick)]
        plain_p = [v for v in tied if not re.search(r"(?:^|\.)(?:softmax_T|topk|topp)$", v.group)]
        if len({v.group for v in tied}) > 1 and plain_p and len(plain_p) < len(tied) and \
                any(re.search(r"(?:^|\.)p$", v.group) for v in plain_p):
            tied = plain_p          # a cut that keeps every token, or a temperature of 1: p itself, named as p
            pick = pick if pick in tied else tied[0]
        head = [v for v in tied if "E_head" in v.group]
        if len({v.group for v in tied}) > 1 and self._head_name(name) and len({v.group for v in head}) == 1:
            tied = [pick := head[0]]    # the output matrix's gradient is E's head part, where the rest of E's is 0
        whole = [v for v in tied if "|" not in v.group]
        if len({v.group for v in tied}) > 1 and len({v.group for v in whole}) == 1 and not name.startswith("column@"):
            tied = [pick := whole[0]]   # h_final, not LN_f's row 2 nor its column 1 (alike at d = 2): a vector
        if len({v.group for v in tied}) > 1:
            tied = [v for v in tied if v.group.partition("|")[0] == name] or tied    # LN1's rows, for LN1
            tied = self._last_position(tied, figs) or tied
            pick = tied[0] if len({v.group for v in tied}) == 1 else pick
        if len({v.group for v in tied}) > 1:
            mine = [v for v in tied if _instance(v.group) in prefer]
            if len({v.group for v in mine}) != 1:
                return None             # two tensors agree as well: the name does not tell them apart
            pick = mine[0]
        agree, alias, _, base, group = pick
        return Reading(group, -base, agree, alias, [v.group for v in votes if v.agree and v.alias and v.group != group
                                                    and name != "token" and v.group.partition("|")[0] !=
                                                    group.partition("|")[0]])    # (not its own rows, columns)

    def _own_in_one_layer(self, name: str, top, named: list) -> bool:
        """Our name written without its layer (``s`` for l0.S) where that layer's tensor is the only one a figure
        agrees with: the layer is the figures' (``s^{(1)}_{3,1}`` agreeing with l0.S, not l1.S)."""
        layer = re.match(r"l\d+\.", top.group)
        bare = top.group[layer.end():] if layer else ""
        return bool(layer) and top.agree >= 1 and self._own(name, bare) and \
            all(v.agree < top.agree for v in named if v is not top and re.sub(r"^l\d+\.", "", v.group) == bare)

    def _last_position(self, tied: list, figs: list) -> list | None:
        """Of tied rows of one tensor over positions that every figure agrees or disagrees with alike (``Z|2:``
        and ``Z|3:``, where a norm makes two positions' inputs alike), the last position's: the one whose stream
        the prediction is read from.  (Rows that two halves of the figures agree with are two positions' prints.)"""
        rows = [(v, r) for v in tied if (r := re.fullmatch(r"(.+)\|(\d+):", v.group))]
        #        (a column of the same tensor, alike too, yields: a vector at one position is the usual print)
        if not rows or any(v.group.partition("|")[0] != rows[0][1][1] for v in tied) or \
                len({r[1] for _, r in rows}) != 1 or self.groups.get((rows[0][1][1], ""), "")[:1] != "t":
            return None
        for n, lab in figs:
            said = {(c := self.lookup(v.group, -v.base, lab)) is not None and self.m.rounds(c, n) for v, _ in rows}
            if len(said) > 1:
                return None
        last = max(int(r[2]) for _, r in rows)
        return [v for v, r in rows if int(r[2]) == last]

    def _same_values(self, groups: set, base: int, figs) -> str | None:
        """The one of several groups to name when they hold the same values at every figure's place (learned
        positions as ``PE`` and as the parameter ``W_pe``): the parameter, else a whole tensor, else the first by
        name; None when they differ somewhere."""
        if len(groups) < 2:
            return None
        for _, lab in figs:
            found = [self.lookup(g, -base, lab) for g in groups]
            if any(c is None for c in found) or len({repr(c.ball) for c in found}) != 1:
                return None
        params = self.m.d.spec.params
        return min(groups, key=lambda g: (g not in params, "|" in g, g.removeprefix("grad_") in params, g))
        #                                  (the parameter, else a tensor whole before a row of another, h_final
        #                                   before LN_f's last row; then any group but a parameter's gradient
        #                                   before a parameter's gradient equal to it, grad_h_final before
        #                                   grad_beta_f: that one is named by β)

    def _exact(self, name: str, group: str) -> bool:
        """Our own name of the group itself (``X``, ``grad_X``, ``∂L/∂X``, ``dX``, ``l0.A``), not a usual spelling
        another author may mean otherwise (``h``, ``∂L/∂h``)."""
        stem = group.rpartition(".")[2]
        bare = stem.removeprefix("grad_")
        own = {stem} | ({f"{p}{bare}" for p in ("d", "grad_", "∂L/∂", "dL/d")} | {f"{bare}.grad"}
                        if stem.startswith("grad_") else set())
        return name in own or name.rpartition(".")[2] in own and name.rpartition(".")[0] == group.rpartition(".")[0]

    def _own(self, name: str, group: str) -> bool:
        """Our own name, a usual spelling of it or of its gradient: enough without a figure agreeing (a token's
        own share, ``laut: 18.73 %``, is its probability)."""
        if name == "token":
            return group == "p"
        if group == "gradcheck":
            return NUMERICAL.search(name) is not None      # a column 'numerical', 'g_num', '数值梯度'
        group = group.removesuffix("|@last")
        if group.endswith(LAYER_FIRST):
            group = "l0." + group.removesuffix(LAYER_FIRST)
        bare = group.partition(".")[2] if group in STEPPED else group
        stem = bare.rpartition(".")[2]
        words = {stem.removeprefix("grad_"), *self._data_aliases(stem.removeprefix("grad_"))}
        if stem.startswith("grad_"):
            words |= {"l"} if stem in ("grad_logits", "grad_z") else set()     # (∂L/∂l, as in spellings)
            words = {f"{p}{w}" for w in words for p in ("d", "grad_", "∂L/∂", "dL/d", "∂l/∂")} | \
                {f"{w}.grad" for w in words} | {stem} | ({"δ"} if stem in ("grad_logits", "grad_z") else set())
        layer = bare.rpartition(".")[0]
        names = {f"{layer}.{w}" if layer else w for w in words}
        return name in names or FREE_INDEX.sub("", name) in names or bool(layer) and name == stem

    def _slices(self):
        """The rows and columns of the model's matrices, as readings of a one-index name (a table's column).
        Fixed indices count from 0 here; the name's own index keeps its learned origin."""
        if not hasattr(self, "_cut"):
            shape: dict = {}
            for c in self.m.every:
                if len(c.idx) == 2 and not c.of and c.group not in STEPPED:   # (sgd.p's first index: a step)
                    s = shape.setdefault(c.group, [0, 0, c.axes])
                    s[0], s[1] = max(s[0], c.idx[0] + 1), max(s[1], c.idx[1] + 1)
            cut = []
            for g, (rows, cols, axes) in shape.items():
                cut += [((f"{g}|:{j}", ""), axes[0]) for j in range(cols) if cols <= MAX_CUT]
                cut += [((f"{g}|{i}:", ""), axes[1]) for i in range(rows) if rows <= MAX_CUT]
            self._cut = cut
        return self._cut

    def _last_rows(self):
        """The final norm's statistics at the last position, as readings of a name without an index (``μ_f``,
        ``σ_f²``): a tutorial normalises the last position's stream alone before the logits."""
        if not hasattr(self, "_last"):
            self._last = [((f"{g}|@last", ""), "") for (g, of), axes in self.groups.items()
                          if axes == "t" and not of and re.fullmatch(r"(?:mu|var|ms)_f", g)]
        return self._last

    def _layers_first(self):
        """Each block's tensor with its layer as the first index (``G|@layer``): ``q_{1,3,3}``, layer 1's query
        at position 3, column 3, in a model of several blocks."""
        if not hasattr(self, "_lf"):
            seen: dict = {}
            for (g, of), axes in self.groups.items():
                m = re.fullmatch(r"l(\d+)\.(\w+)", g)
                if m and not of:
                    seen.setdefault(m[2], (set(), axes))[0].add(int(m[1]))
            self._lf = [((f"{g}{LAYER_FIRST}", ""), "L" + axes) for g, (layers, axes) in seen.items()
                        if len(layers) > 1 and axes]
        return self._lf

    def _head_name(self, name: str) -> bool:
        """Whether a name (or its gradient's) is a tied model's output matrix, Eᵀ (``∂L/∂W_out``, ``∂L/∂U`` where
        the text sets U = Eᵀ)."""
        return self._tied() and (re.sub(r"^(?:∂L/∂|dL/d|grad_|d)(?=W_)", "", name) in HEAD_NAMES or
                                 re.sub(r"^(?:∂L/∂|dL/d|grad_)", "", name) in self._declared_heads())

    def _transposes(self):
        """The model's matrices read transposed (``G|T``): PyTorch's Linear keeps its weight as out × in."""
        if not hasattr(self, "_tr"):
            self._tr = [((f"{g}|T", ""), axes[::-1]) for (g, of), axes in self.groups.items()
                        if len(axes) == 2 and not of and g not in STEPPED and "(" not in g]
        return self._tr

    def _templates(self):
        """The readings of a column whose rows are parameters' entries: the moments (of a parameter) and
        the groups named after a parameter, with its name as a slot: ``grad_{}``, ``adamw[1].{}``."""
        if not hasattr(self, "_tpl"):
            params = set(self.m.d.spec.params)
            out: dict = {}
            for (group, of), axes in self.groups.items():     # (one a rank: W's rows, b's entries)
                if of:
                    out.setdefault((group, of and "of", len(axes)), axes)
                elif _param(group) in params:
                    out.setdefault((group[::-1].replace(_param(group)[::-1], "}{", 1)[::-1], "", len(axes)), axes)
            self._tpl = [(key[:2], axes) for key, axes in out.items()]
        return self._tpl

    # ------------------------------------------------------------ resolving

    def resolve(self, numbers, labels: dict) -> dict:
        """figure index → the candidate its label names, for every labelled figure whose name is learned.

        A figure whose quantity does not round to it but another state of the same entry does (``p(sat)``
        printed after an update is ``sgd[1].p[sat]``) is that state's.
        """
        readings = self.learn(numbers, labels)
        self._texts = {n.line: n.line_text for n in numbers}
        self._ranged: dict = {}
        self._runs_in: dict = {}         # section → the optimizer its post-step figures were read as
        out, printed = {}, {}
        from_one = self._rows_from_one(numbers, labels)
        text = "\n".join(getattr(self.m, "lines", ()))
        by_adam_alone = adam_only(text)
        for n in numbers:
            lab = labels.get(n.index)
            if lab is None or lab.inner is not None or not readable(n):
                continue
            lab = self._example_index(lab, readings, labels)
            if by_adam_alone and re.fullmatch(r"sgd\[\d+\]", lab.state):
                lab = replace(lab, state=lab.state.replace("sgd", "adamw", 1))   # a text that trains by AdamW alone
            if lab.name in ("loss_at+", "loss_at-"):
                c = self._nudged(lab, n, numbers, labels)
                if c is not None:
                    out[n.index] = c
                continue
            if lab.ref:
                ref = self._counted(lab, readings, lab.section in from_one)
                c = self.by_ref.get(ref) or (self.m.expression(ref) if lab.name == "const" else None)
                if c is not None and not self.m.rounds(c, n):
                    c = self._twin(c, n) or c
                if c is not None:
                    out[n.index] = c if self.m.rounds(c, n) else self._later_step(c, n) or self._section_step(c, n) or c
                continue
            key = (self.named(lab), len(lab.index), bool(lab.of), bool(lab.state))
            r = readings.get(key + (lab.section,)) or (readings.get(key) if lab.name != "token" else None)
            #  the section's meaning first (a token's entry means p here, a top-k's there: only the section's)
            whole = readings.get(key)
            if r is not None and whole is not None and r.group == whole.group and not r.agree and whole.agree:
                r = whole    # a section whose figures agree with no entry: the document's origin of the indices
            if r is whole and r is not None and not r.alias and not r.spelled and \
                    self._foreign(r, key + (lab.section,)):
                continue     # learned from other sections' figures, and none of this section's agree with it
            drawn = lab.name == "p" and re.fullmatch(r"(?:sgd|adamw)\[1\]", lab.state) is not None and \
                (TOP_K.search(n.heading) or TOP_P.search(n.heading)) and not TRAINED.search(n.heading)
            if r is None and re.fullmatch(r"p['′]", lab.name) and not lab.state and len(lab.index) == 1 or drawn:
                bare = replace(lab, name="p", state="")    # p′ in a section on top-k, top-p or a temperature:
                p = self.lookup("p", 0, bare) if len(lab.index) == 1 and not lab.of else None    # the share
                c = p and self._sampled(p, n)                                     # drawn (elsewhere p′ is
                if c is not None and c.group in ("topk", "topp", "softmax_T") and \
                        any(self.m.rounds(x, m) for m in numbers if m.line == n.line for x in (p, c)):
                    out[n.index] = c        # (where the line prints the model's own p or the share itself: not
                    continue                #  the shares of a model trained first, p′ of sgd[3].p)
                if not drawn:
                    continue
            layer = self._layer_written(lab, labels, numbers)
            by_layer = self._in_layer(lab, layer) if layer is not None else None
            if by_layer is not None and lab.fn:
                by_layer = self.function(lab.fn, by_layer)      # e^{s^{[1]}_{21}}: exp of that block's score
            if by_layer is not None:
                c = by_layer             # ∂L/∂W_Q^{(1)}[0,1]: the block its superscript names, whatever the other
            elif r is None and lab.name == "token":          # blocks' figures under the name agree with
                c = self._drawn(lab, n)  # a token's renormalised share, where the sentence says it is drawn so
            elif r is None and lab.index and lab.name in self.m.graph and not lab.of and not lab.state and \
                    self._in_range(lab.name, len(lab.index), labels, numbers):
                c = self.lookup(lab.name, 0, lab)    # our own name (A[2,0] of a share in prose), counted from 0
                if c is not None and lab.fn:         # exp(z) = (…): exp of z's entries, not z's; and only where
                    c = self.function(lab.fn, c)     # the value confirms it (a toy z = (1, 2, 3) is not the
                    c = c if c is not None and (self.m.rounds(c, n) or self._state(c, n)) else None    # model's)
            elif r is None and lab.state and not lab.of and not lab.index and lab.name.lower() in LOSS_WORDS and \
                    len(spelled := {
                    g for (g, o), axes in self.groups.items() if not o and re.fullmatch(r"[A-Za-z_]\w*", g) and
                    len(axes) == len(lab.index) and self._alias(lab.name, g)}) == 1:
                c = self.lookup(spelled.pop(), 0, lab)     # 'Kerugian setelah langkah 2': the loss at that step,
                #                                            by its word alone (no figure of it taught a reading)
            elif r is None:
                c = self._entry(lab, n, [out[m.index] for m in numbers[max(0, n.index - LINE_WINDOW):n.index]
                                         if n.line - 1 <= m.line <= n.line and m.index in out])
            else:
                c = self.at_temperature(self.lookup(r.group, r.base, lab), n)
                if c is not None and lab.name == "token" and re.fullmatch(r"p|softmax_T|topk|topp", c.group):
                    c = self._led(c, n) or c     # '- **top-k**: … *sofaen* får 0.2756' under a heading on top-p
                if c is not None and lab.fn:
                    c = self.function(lab.fn, c)
            if c is None:
                continue
            if lab.name == "token" and n.kind == "percent" and not SHARES.search(c.group):
                c = self.by.get(("p", "", c.idx)) or c   # a token's percentage is a share, never its logit
            if n.kind == "percent" and re.search(r"(?:^|\.)loss$", c.group):
                continue                                 # 'the loss fell by 24.3 %': a change, not the loss
            if n.chain and NEGATIVE_LOG.match(n.chain) and not LOSSES.search(c.group):
                continue        # 'ℓ₂ = −ln 0,1855 = …': a loss (another example's), whatever else ℓ may spell
            c = self._sampled(c, n)
            if not self.m.rounds(c, n):
                c = self._as_example(c, n, lab) or self._twin(c, n) or self._later_step(c, n) or \
                    self._updated(c, n, numbers) or self._state(c, n) or \
                    self._gradient_of(c, n) or self._moved(c, n) or \
                    self._next_gradient(c, n) or self._section_step(c, n) or c
                if r is not None and not self.m.rounds(c, n) and any(
                        (x := self.lookup(g, r.base, lab)) is not None and self.m.rounds(x, n) for g in r.others or ()):
                    continue        # the name means two things here (η of SGD and of AdamW): this one rounds
            out[n.index] = c = self._printed_again(c, n, printed)
            if (run := re.match(r"(sgd|adamw)\[\d+\]\.", c.group)):
                self._runs_in[n.section] = run[1]     # the optimizer whose states this section prints
        return self._paired(self._once_a_line(self._one_entry(out, numbers, labels), numbers), numbers, labels)

    def _layer_written(self, lab, labels: dict, numbers) -> int | None:
        """The block a label's one superscript names in a model of several (``W_Q^{(1)}[1,0]``), counted as the
        document counts its blocks; None where the superscript is a head's, a stream's (``h^{(1)}``, after one
        block) or out of range."""
        layers = self.m.d.spec.layers or 1
        if layers < 2 or len(lab.sup) != 1 or lab.head is not None or HEADED_NOT.fullmatch(lab.name):
            return None
        if lab.index and lab.index[0] == lab.sup[0] and any(isinstance(k, tuple) and k[0] == "at" for k in lab.index):
            return None        # f^{[2]} = (…): a literal whose block its reading already holds as its first index
        if not hasattr(self, "_block_base"):
            self._block_base = self._layer_base(labels, numbers)
        k = lab.sup[0] - self._block_base if self._block_base is not None else -1
        return k if 0 <= k < layers else None

    def _layer_base(self, labels: dict, numbers) -> int | None:
        """How the document counts the blocks its superscripts name: from 0 where one is 0, from 1 where one is
        the last block's number; else as more of their figures agree with the block so counted (None on a tie).
        None too where too few of those figures agree with it: the superscripts are no blocks (a head's ``q^{[2]}``
        in a model of two blocks and two heads)."""
        layers = self.m.d.spec.layers or 1
        marked = [(n, lab) for n in numbers if (lab := labels.get(n.index)) is not None and len(lab.sup) == 1 and
                  lab.head is None and not HEADED_NOT.fullmatch(lab.name) and lab.inner is None and
                  any(self._in_layer(lab, k) is not None for k in range(layers))]   # (a block's tensor's names only)
        marks = {lab.sup[0] for _, lab in marked}
        agree = [sum(1 for n, lab in marked if 0 <= lab.sup[0] - base < layers and
                     (c := self._in_layer(lab, lab.sup[0] - base)) is not None and self.m.rounds(c, n))
                 for base in (0, 1)]
        base = (0 if 0 in marks else 1) if 0 in marks or layers in marks else \
            None if agree[0] == agree[1] else agree.index(max(agree))
        need = 0.75 if self.m.d.spec.heads > 1 else 0.5    # (where heads are many, a superscript may be a head's:
        return base if base is not None and agree[base] >= need * len(marked) else None   # most figures confirm)

    def _in_layer(self, lab, layer: int):
        """The candidate a label names in one block: its name's tensor of that block (``∂L/∂W_Q`` → grad_l1.W_Q),
        or its row's parameter there (``m̂`` of W_Q → adamw[1].mhat of l1.W_Q), at the document's origin; None
        where the name spells no one tensor of the block."""
        at = f"l{layer}."
        learned = getattr(self, "_learned", {})
        key = (self.named(lab), len(lab.index), bool(lab.of), bool(lab.state))
        r = learned.get(key + (lab.section,)) or learned.get(key)
        if r is not None and not lab.of and r.agree:   # the text's own letter, learned from its figures (a for
            own = re.fullmatch(r"(grad_)?l\d+\.([^|]+)(\|.*)?", r.group)      # Attn, not A): in that block
            return self.lookup(f"{own[1] or ''}{at}{own[2]}{own[3] or ''}", r.base, replace(lab, sup=())) \
                if own and own[3] != LAYER_FIRST else None
        if lab.of:
            of = lab.of if re.match(r"l\d+\.", lab.of) else self._block_param(lab.of, at)
            groups = {g for g, o in self.groups if o == of and self._alias(lab.name, g)}
            lab = replace(lab, of=of, sup=())
        else:
            param = self._block_param(lab.name, at)                                          # (W2: l1.W_2)
            groups = {g for g, o in self.groups if not o and re.match(rf"(?:grad_)?{re.escape(at)}", g) and
                      (g == param or self._alias(lab.name, g))}
            lab = replace(lab, sup=())
        if len(groups) != 1 and lab.of:      # θ_new of a row's entry: the reading its rows' other figures taught
            if r is not None and "{}" in r.group:
                return self.lookup(r.group, r.base, lab)
            stated = re.fullmatch(r"((?:sgd|adamw)\[\d+\])\.θ", lab.name)     # the entry after the step, as its
            if stated:                                                        # lead-in names it
                return self.lookup(f"{stated[1]}.{{}}", getattr(self, "_origin", 0), lab)
            if lab.name not in NEW_VALUE:
                return None
            said = getattr(self, "_runs_in", {}).get(lab.section)   # (the optimizer the section's states are of)
            runs = [f"{run}[1].{{}}" for run in ("adamw", "sgd") if run == said or not said and any(
                c.group == f"{run}[1].{lab.of}" for c in self.m.cands)]     # (else the one the text speaks of)
            return self.lookup(runs[0], getattr(self, "_origin", 0), lab) if len(runs) == 1 else None
        if len(groups) != 1:
            return None
        return self.lookup(groups.pop(), getattr(self, "_origin", 0), lab)

    def _block_param(self, name: str, at: str) -> str:
        """The block's parameter a name spells without its block (``W2``, ``W_fc`` in ``l1.``: l1.W_2, l1.W_1)."""
        params = self.m.d.spec.params
        hits = [p for p in params if p.startswith(at) and (at + name in self._spelled(p)[0] or
                                                           p[len(at):].replace("_", "") == name.replace("_", ""))]
        return hits[0] if len(hits) == 1 else self._param_named(at + name)

    def _one_entry(self, out: dict, numbers, labels: dict) -> dict:
        """A name without indices, our own (``ms2``, ``var1``), left unresolved where another figure of its section
        under the same name resolved to one entry, or a function of one (``√(ms + ε) = 0.7369`` is
        ``sqrt(ms2[2] + ln_eps)``): that entry, the one the name means in that section (``ms = mean((h₃ − μ)²) =
        0.1256`` is ms2[2], to be judged)."""
        named: dict = {}
        for n in numbers:
            lab = labels.get(n.index)
            if lab is not None and not lab.index and not lab.state and not lab.of and lab.section and \
                    lab.inner is None and lab.name in self.m.graph:
                named.setdefault((lab.name, lab.section), []).append(n)
        for (name, _), figs in named.items():
            entries = {x for n in figs if n.index in out
                       for x in re.findall(rf"(?<![\w.]){re.escape(name)}\[[^\]]*\]", out[n.index].ref)}
            if len(entries) != 1 or (c := self.by_ref.get(next(iter(entries)))) is None:
                continue
            for n in figs:
                if n.index not in out and not labels[n.index].fn and n.kind in ("decimal", "percent") and \
                        not any(x.group == c.group and self.m.rounds(x, n) for x in self.m.nearby(n, *cell(n))):
                    out[n.index] = c       # (not where another entry of the tensor rounds to it: 'row 0 has σ² = …')
        return out

    def _example_index(self, lab, readings: dict, labels: dict):
        """A mini-batch's example written as a name's first index (``z_{1,chase}``, ``L_2`` where z has one index and
        the loss none): that example's quantity, ``z[chase]``, ``example[1].loss``.  The examples count from 1,
        unless a label of the name says 0."""
        size = len(self.m.d.spec.training.examples)
        if size < 2 or lab.state or lab.of or not lab.index or not isinstance(lab.index[0], int) or \
                (self.named(lab), len(lab.index), False, False) in readings:
            return lab
        own = self.groups.get((lab.name, ""))       # our own name's indices (z[v]), else the document's name's
        if (len(own) if own is not None else -1) != len(lab.index) - 1 and \
                (self.named(lab), len(lab.index) - 1, False, False) not in readings:
            return lab
        if self._zero_first is None or self._zero_first[0] is not labels:
            self._zero_first = (labels, {(x.name, len(x.index)) for x in labels.values()
                                         if x.index and x.index[0] == 0 and not x.state})
        zero = (lab.name, len(lab.index)) in self._zero_first[1]
        k = lab.index[0] + zero                    # (the k-th example, from 1)
        if not 1 <= k <= size:
            return lab
        return replace(lab, index=lab.index[1:], state=f"example[{k - 1}]" if k > 1 else "")

    def _as_example(self, c, n, lab):
        """On a mini-batch, ``L_1``, ``L_2`` read as the losses after steps 1 and 2 where the figure is example 1's
        or 2's loss instead, to its digits or one unit off (a carried rounding): that example's (``loss``,
        ``example[1].loss``); None else."""
        size = len(self.m.d.spec.training.examples)
        run = re.fullmatch(r"(?:sgd|adamw)\[\d+\]\.(loss)", c.ref)
        if size < 2 or run is None or len(lab.index) != 1 or not isinstance(lab.index[0], int) or \
                not 1 <= lab.index[0] <= size:
            return None
        k = lab.index[0]
        x = self.by_ref.get(run[1] if k == 1 else f"example[{k - 1}].{run[1]}")
        return x if x is not None and (self.m.rounds(x, n) or _slipped(x, n)) else None

    def _once_a_line(self, out: dict, numbers) -> dict:
        """A label that names one entry for two figures of one line (a header cell 'numeric rel. error' over two
        columns): the figure the entry rounds to is it, else the first; the other is no such entry."""
        by: dict = {}
        for k, c in out.items():
            by.setdefault((numbers[k].line, c.ref), []).append(k)
        for ks in by.values():
            if len(ks) < 2:
                continue
            if len({numbers[k].column for k in ks}) == len(ks) and len({numbers[k].kind for k in ks}) == len(ks):
                continue        # | 0,1364 | 13,46% | under 'q_j' and 'q_j em %': the entry twice, as printed
            keep = [k for k in ks if self.m.rounds(out[k], numbers[k])] or ks[:1]    # (none: the first, under the
            for k in ks:                                                             #  header's first word)
                if k not in keep:
                    del out[k]
        return out

    def _twin(self, c, n):
        """The quantity a name also means that rounds to the figure where its first meaning does not: AdamW's rate
        where 'lr' is SGD's (``AdamW(lr=0.01, …)``), a mini-batch's mean loss or gradient where 'loss', ``W.grad``
        name the first example's (``sgd[0].loss``, ``sgd[0].grad_W[0,1]``), or whose sum over the batch it is;
        a step's state where the text tells of the loop that updates before all its gradients are taken
        (``sgd_wrong_order[1].loss``); None else."""
        twin = TWIN_SETTING.get(c.ref) or (f"sgd[0].{c.ref}" if BATCH_TWIN.fullmatch(c.ref) else None)
        x = self.by_ref.get(twin) if twin else None
        wrong_order = self.by_ref.get(c.ref.replace("sgd[", "sgd_wrong_order[", 1)) if c.ref.startswith("sgd[") \
            else None
        if wrong_order is not None and self.m.rounds(wrong_order, n):
            return wrong_order      # 'the loss after the first update is 0.8792 instead of …': the loop's wrong order
        if x is None:
            return None
        size = len(self.m.d.spec.training.examples)
        summed = self.m.expression(f"{size}*{x.ref}") if twin.startswith("sgd[0].") else None
        return x if self.m.rounds(x, n) or summed is not None and self.m.rounds(summed, n) else None
        #           (the batch's sum, not divided by its size: the mean's slip, which its diagnosis names)

    def _printed_again(self, c, n, printed: dict):
        """A run's state printed once more with another value, a few lines after its last printing (a loop
        printing ``v_hat=…`` of W[1,leite] after each step, in a line of the same words): the k-th printing is
        step k's, where the figure does not round from the state its label read.  ``printed``: (section, state,
        the line's words) → (value, line) so far."""
        run = re.fullmatch(r"(sgd|adamw)\[(\d+)\]\.(.+)", c.ref)
        if run is None or run[2] == "0":
            return c              # (a mini-batch's mean before any step is no loop's printing)
        shape = re.sub(r"[-−+]?\d[\d.,eE+−-]*", "#", re.sub(r"\s+", " ", n.line_text.strip()))
        seen = printed.setdefault((n.section, run[1], run[3], shape), [])    # (a loop's line: the same words)
        if seen and seen[-1][1] >= n.line - AGAIN_WITHIN and n.value not in (v for v, _ in seen) and \
                not self.m.rounds(c, n):
            c = self.by_ref.get(f"{run[1]}[{len(seen) + 1}].{run[3]}") or c
        seen.append((n.value, n.line))
        return c

    def _foreign(self, r, key) -> bool:
        """Whether a document-wide reading of a name no spelling of ours explains (``k̃``, read from a literal of
        one head's key) fails two or more of a section's figures of that name and fits none of them: there the
        name means what the section says (another head, another position), not what it meant elsewhere."""
        figs = self._figures.get(key, [])
        if len(figs) < 2:
            return False
        for n, lab in figs:
            c = self.lookup(r.group, r.base, lab)
            if c is not None and lab.fn:
                c = self.function(lab.fn, c)
            if c is not None and (self.m.rounds(c, n) or self._through_step(c, n)):
                return False          # (or its value after a step worked on its line: 'U[3,5] : −0.6 − 0.5·g = …')
        return True

    def _nudged(self, lab, n, numbers, labels: dict):
        """A gradient check's loss with one entry moved by ±h, from a table's row (the entry, as written) and
        column (``L(θ − h)``): of the check's candidates for that entry and sign, the one that rounds to the
        figure; else the one whose origin (the entry's indices from 0 or from 1) most of the table's other
        such cells round from."""
        def refs(label, base):
            at, axes = [], self.groups.get((label.of, ""), "")
            for k, i in enumerate(label.index):   # (a token's row as the spec's check names it: by its id or text)
                at.append(f"(?:{i[1]}|{re.escape(self.m.vocab[i[1]])})" if isinstance(i, tuple) and
                          isinstance(i[1], int) and 0 <= i[1] < len(self.m.vocab) else
                          str(i[1]) if isinstance(i, tuple) else
                          f"(?:{i - base}|{re.escape(self.m.vocab[i - base])})" if axes[k:k + 1] == "v" and
                          0 <= i - base < len(self.m.vocab)
                          else str(i - base))     # (wte.weight[3,0]: the spec's check names row 3 by its token)
            sign = "-" if label.name.endswith("-") else ""
            pattern = re.compile(rf"loss_at\((?:l\d+\.)?{re.escape(label.of)}\[{','.join(at)}\], {sign}\d[^,)]*\)")
            return [c for r, c in self.by_ref.items() if pattern.fullmatch(r)]
        mine = {b: refs(lab, b) for b in (0, 1)}
        hits = [c for b in (0, 1) for c in mine[b] if self.m.rounds(c, n)]
        if len(hits) == 1:
            return hits[0]
        votes = [0, 0]
        for m in numbers:
            other = labels.get(m.index)
            if other is not None and other.name in ("loss_at+", "loss_at-") and m.index != n.index:
                for b in (0, 1):
                    votes[b] += any(self.m.rounds(c, m) for c in refs(other, b))
        base = 1 if votes[1] > votes[0] else 0
        return mine[base][0] if len(mine[base]) == 1 else None

    def _rows_from_one(self, numbers, labels: dict) -> set:
        """The sections whose rows of parameters' entries (a ref written with the entry's indices, ``m_1`` of
        W_{1,b}) agree with more figures counted from 1 than as written: their entries count from 1."""
        tally: dict = {}
        for n in numbers:
            lab = labels.get(n.index)
            if lab is None or not lab.ref or not lab.of or not lab.index or not readable(n):
                continue
            for k, ref in enumerate((lab.ref, self._counted(lab, {}, True))):
                c = self.by_ref.get(ref)
                if c is not None and self.m.rounds(c, n):
                    tally.setdefault(lab.section, [0, 0])[k] += 1
        return {s for s, (written, shifted) in tally.items() if shifted > written}

    @staticmethod
    def _counted(lab, readings: dict, from_one: bool = False) -> str:
        """A row's ref (``adamw[1].m[W,1,3]`` for the row ``W_{1,thee}``) as the rows of its section count: from
        1 when the other columns of parameters' rows there are read from 1 (its g, its step, its new value), or
        when its own rows agree more so (``from_one``)."""
        if not lab.of or not lab.index:
            return lab.ref
        bases = {r.base for k, r in readings.items() if len(k) == 5 and k[2] and k[4] == lab.section and r.agree}
        if bases != {1} and not from_one:
            return lab.ref
        keys = ",".join(str(i[1]) if isinstance(i, tuple) else str(i - 1) for i in lab.index)
        return re.sub(r"\[[^\[\]]*\]$", f"[{lab.of},{keys}]", lab.ref)

    def _in_range(self, name: str, arity: int, labels: dict, numbers: list) -> bool:
        """Whether every figure the text labels with our name ``name`` and ``arity`` indices names an entry of
        that tensor counted from 0 (a misread literal, W's matrix labelled E, has entries E lacks)."""
        key = (name, arity)
        if key not in self._ranged:
            self._ranged[key] = all(self.lookup(name, 0, lab) is not None for n in numbers
                                    if (lab := labels.get(n.index)) is not None and lab.name == name
                                    and len(lab.index) == arity and not lab.of and not lab.state)
        return self._ranged[key]

    def _paired(self, out: dict, numbers: list, labels: dict) -> dict:
        """A norm's mean and variance printed side by side are of one norm: ``μ = 0,0259 et σ² = 0,3367``, where μ
        is mu2[2]'s, makes a σ² that no variance rounds to var2[2]'s (wrong), not another norm's nearest, and a
        σ² its label left unread (no variance rounds to it) var2[2]'s as well."""
        line: dict = {}
        for n in numbers:
            line.setdefault(n.line, []).append(n)
        for n in numbers:
            c = out.get(n.index)
            m = NORM_STAT.fullmatch(c.group) if c is not None else None
            lab = labels.get(n.index)
            if c is None and lab is not None and not lab.index and (said := STAT_LABEL.fullmatch(lab.name)):
                m = ("", "", "mu" if said[1] else "var", "")      # (layer, stat, norm): the statistic alone
            elif m is None or self.m.rounds(c, n):
                continue
            before = [k for k in line[n.line] if k.col < n.col][::-1]
            for k in before + [k for k in line[n.line] if k.col > n.col]:     # the nearest before it first
                c2 = out.get(k.index)
                m2 = NORM_STAT.fullmatch(c2.group) if c2 is not None and k is not n else None
                said = labels.get(k.index)
                if m2 is None and said is not None and (other := STAT_LABEL.fullmatch(said.name)) and \
                        bool(other[1]) != (m[2] == "mu"):
                    if c is None and m[2] == "var" and (x := self._variance_of_mean(n, {n.line: [k]})):
                        out[n.index] = self._of(lab, x)   # the mean right before it, by its value alone
                    break          # ('row 0 has μ = …, σ² = …': row 0's, not the line's other mean's)
                if m2 is None or m2[2] == m[2] or (m2[1], m2[3]) == (m[1], m[3]) or not self.m.rounds(c2, k):
                    continue
                x = self.by_ref.get(f"{m2[1]}{m[2]}{m2[3]}{c2.ref[len(c2.group):]}")     # the same entry of its norm
                if x is not None:
                    out[n.index] = self._of(lab, x) if c is None else x
                    break
            else:
                if c is None and m[2] == "var" and (x := self._variance_of_mean(n, line)) is not None:
                    out[n.index] = self._of(lab, x)
        return out

    def _of(self, lab, c):
        """The candidate a label names through its function (√(σ² + ε) of var2[2]), else ``c`` itself."""
        x = self.function(lab.fn, c) if lab is not None and lab.fn else c
        return x if x is not None else c

    def _variance_of_mean(self, n, line: dict):
        """The variance of the one norm entry whose mean a figure on σ²'s line, or the line above, rounds from
        (``σ² = ((1.251 − 0.906)² + …)/(2 − 1) = 0.239`` after ``μ = 0.906``, or ``Its mean is 0.3668`` above):
        a σ² no variance rounds to is that entry's, wrong; None when no mean or several do."""
        means = set()
        for k in line.get(n.line, []) + line.get(n.line - 1, []):
            if k is n or k.kind not in ("decimal", "percent"):
                continue
            for c in self.m.nearby(k, *cell(k)):
                s = NORM_STAT.fullmatch(c.group)
                if s and s[2] == "mu" and self.m.rounds(c, k):
                    means.add((s[1], s[3], c.ref[len(c.group):]))
        if len({m[:2] for m in means}) == 1 and len(means) > 1:     # one norm's mean at two positions alike:
            means = {max(means, key=lambda m: [int(i) for i in re.findall(r"\d+", m[2])])}    # the last's
        if len(means) != 1:
            return None
        layer, norm, idx = means.pop()
        return self.by_ref.get(f"{layer}var{norm}{idx}")

    def _sampled(self, c, n):
        """A token's probability in a sentence (or under a heading) about top-k or top-p sampling: that
        distribution's entry of the token ('after top-3 filtering "tea" is drawn with probability …')."""
        sentence = plain_words(re.split(r"[.!?。]\s", n.line_text[:n.col])[-1])
        rest = re.split(r"[.!?。](?:\s|$)", n.line_text[n.col + len(n.text):])[0]
        local = (TOP_K.search(sentence) or TOP_P.search(sentence)) and DRAWN.search(sentence + " " + rest)
        #        ('after top-3 filtering "I" is drawn with 0.2621': the renormalised p, whatever the figure)
        if c.group == "softmax_T" and (TOP_K.search(sentence) or TOP_P.search(sentence)) and not self.m.rounds(c, n):
            token = c.ref[c.ref.rindex(",") + 1:-1].strip()    # a section's temperatures, but a sentence on top-k:
            c = self.by_ref.get(f"p[{token}]", c)               # that token's share under top-k
        if c.group != "p" or c.of or self.m.rounds(c, n) and not local:
            return c                   # (a section on top-k prints p too, before renormalising: p where it rounds)
        said = plain_words(n.line_text[:n.col] + " " + n.heading)
        above = getattr(self, "_texts", {}).get(n.line - 1, "")
        wrapped = above + " " if above.strip() and not re.search(r"[.!?。]\s*$", above) else ""
        t = list(TEMPERATURE_SET.finditer(re.split(r"[.!?。]\s", wrapped + n.line_text[:n.col])[-1]))
        #     (its sentence, from the line above when it wraps: 'T = 2.0 时只剩34.9%，⏎「风」…也有了7.2%')
        if t and t[-1][1] not in ("1", "1.0"):     # 'with T = 1.5, p(私) = …': that temperature's distribution
            x = self.by_ref.get(share_ref(t[-1][1], c.ref[c.ref.index("[") + 1:-1]))     # tau = 2.0: T = 2
            if x is not None and self.m.spoken(x):
                return x
        kind = "topk" if TOP_K.search(said) else "topp" if TOP_P.search(said) else None
        if kind is None:
            return c
        x = next((x for x in self.m.every if x.group == kind and x.idx == c.idx and self.m.spoken(x)), None)
        return x if x is not None else c

    def at_temperature(self, c, n):
        """A share at a temperature, at the one its place states (a column ``p (T = 1.5)``, a table captioned
        ``Distribution at T = 1.5``, a row, the heading): softmax_T at that T, p at T = 1; ``c`` else.
        A table's share is read at the temperature it is printed for, not the spec's first."""
        if c is None or c.group != "softmax_T":
            return c
        for place in (n.column, n.row, n.table, n.heading):
            words = plain_words(place or "")
            said = {t[1] for t in TEMPERATURE_SET.finditer(words) if not re.match(r",\d", words[t.end():])}
            if len(said) == 1:        # (not 'T = 1,5' left with its decimal comma: no temperature 1)
                return self.by_ref.get(share_ref(said.pop(), self.m.vocab[c.idx[0]]), c)
            if said:
                return c
        return c

    def _led(self, c, n):
        """A token's share on a line led by the one distribution it lists (a summary's bullets, ``- **top-k**:
        …``, ``- **$T = 0.7$**: …``): that distribution's entry of the token where it differs from the section's
        reading; else None.

        >>> import re; bool(LINE_LEAD.match("- **top-k**: *katten* og *på*")), bool(LINE_LEAD.match("Med top-k får"))
        (True, False)
        """
        lead = LINE_LEAD.match(n.line_text[:n.col])
        if lead is None or self.m.rounds(c, n):
            return None                  # (the section's own share where it rounds: 'p before, … after')
        words = plain_words(lead[1])
        temps = {t[1] for t in TEMPERATURE_SET.finditer(words)}
        kinds = {k for k, rx in (("topk", TOP_K), ("topp", TOP_P)) if rx.search(words)} | \
            ({"softmax_T"} if temps else set())
        if len(kinds) != 1 or len(temps) > 1:
            return None
        kind, token = kinds.pop(), self.m.vocab[c.idx[0]] if c.idx else None
        if token is None or kind == c.group and kind != "softmax_T":
            return None
        if kind == "softmax_T":
            x = self.by_ref.get(share_ref(next(iter(temps)), token))
        else:
            x = next((x for x in self.m.every if x.group == kind and x.idx == c.idx), None)
        return x if x is not None and x is not c else None

    def _drawn(self, lab, n):
        """A token's share in a sentence that says it is renormalised or drawn under top-k, top-p or a
        temperature (``Ví dụ “em” sau khi chuẩn hóa: …``): that distribution's entry of the token; else None."""
        if not all(isinstance(k, tuple) and k[0] == "tok" for k in lab.index):
            return None                  # (token[9]: an index, not a token)
        p = self.by.get(("p", "", tuple(k[1] for k in lab.index)))
        sentence = plain_words(re.split(r"[.!?。]\s", n.line_text[:n.col])[-1])
        if p is None or not (DRAWN.search(sentence) or TOP_K.search(sentence) or TOP_P.search(sentence) or
                             TEMPERATURE_SET.search(sentence)):
            return None                  # (drawn, renormalised, or a sentence on top-k itself: 'with top-3, …'; or
            #                              at a temperature: 'Mit T = 0,8 … *laut* auf 2,47 %')
        x = self._sampled(p, n)
        return x if x is not p else None

    def _entry(self, lab, n, beside=()):
        """A name without indices (``σ² = 0.412``, ``√(σ² + ε) = 0.642``): the one entry of the tensors the
        name spells that rounds to the figure; None when none or several do (the name picks the tensor, the
        value only the entry). Of a wrong figure, the one entry near it, or the one of the norm and position
        of the quantities ``beside`` it (those its line's other names were read as)."""
        if lab.index or lab.of or lab.state or lab.name == "token":
            return None
        groups = {g for g, _ in self.groups if "(" not in g and "[" not in g and self._alias(lab.name, g)}
        if not groups:
            return None
        found, near = {}, {}
        lo, hi = near_window(n)
        for c in self.m.every:
            if c.group in groups and not c.scoped:
                x = self.function(lab.fn, c) if lab.fn else c
                if x is not None and self.m.rounds(x, n):
                    found[x.ref] = x
                elif x is not None and x.meets(lo, hi) and x.group in self.m.graph and not isinstance(x.ball, fmpq):
                    near[x.ref] = x
        if not found:              # σ² ≈ 2.1707 a line after μ of position 2 in LN1: that norm's, position's
            own = [x for x in self.m.every if x.group in groups and not x.scoped and x.group in self.m.graph and
                   any(y.idx[:1] == x.idx[:1] and _instance(y.group) == _instance(x.group) != "" and
                       re.search(r"(?:LN|mu|ms)\d$", y.group) for y in beside)]
            if len(own) == 1:
                return own[0]
        if not found and len(near) > 1:         # 'its mean is 0.257 and its variance 1.053': the entry of the
            near = {k: x for k, x in near.items() if any(   # norm and position the names beside it are of
                y.idx == x.idx and _instance(y.group) == _instance(x.group) for y in beside)}
        near = {k: x for k, x in near.items() if x not in beside}   # (gate = −1.2793 … (z = −1.2785): not gate's)
        if not found and len(near) == 1:
            return next(iter(near.values()))     # the one entry near it, wrong
        return next(iter(found.values())) if len(found) == 1 else None

    def function(self, fn: str, c):
        """The candidate for a function of a quantity: ``sqrt+eps`` of var1[1] is sqrt(var1[1] + ln_eps);
        -log of p[target] is the loss (a graph node of the same value is named, not the expression)."""
        if fn == "act":            # GELU(z): the FFN's activation of that entry of Z (silu's, of a gated FFN)
            return self._activation(c)
        ref = f"sqrt({c.ref} + ln_eps)" if fn == "sqrt+eps" else f"1/{c.ref}" if fn == "recip" and "(" in c.ref \
            else f"1/({c.ref})" if fn == "recip" else f"(1+erf(({c.ref})/sqrt(2)))/2" if fn == "Phi" \
            else f"{fn}({c.ref})"
        x = self.by_ref.get(ref)
        if x is not None:
            return x
        if ref not in self._functions_of:     # (asked again for each figure a name's reading tries)
            self._functions_of[ref] = self._function_of(ref, fn, c)
        return self._functions_of[ref]

    def _function_of(self, ref: str, fn: str, c):
        try:
            q = bind(parse(ref, self.m.d.limits), self.m.d, self.m.d.limits)
            ball = q.ball(PREFILTER_BITS)
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return None
        if not isinstance(ball, fmpq) and not ball.is_finite():
            return None
        x = Candidate(ref, f"{fn}()", c.idx, c.axes, q, ball)
        if x.span is None:
            return x
        if self._named is None:               # the graph's own nodes, their spans side by side (one numpy test)
            plain = [y for y in self.m.cands if y.span is not None and not y.derived and "(" not in y.ref]
            self._named = Spans(plain)
        same = [y for y in self._named.among(Fraction(x.span[0]), Fraction(x.span[1])) if _same_value(x, y)]
        return same[0] if len(same) == 1 else x

    def _activation(self, c):
        """The activation of an entry of Z: R's entry where R is it (GELU, ReLU), the expression silu(z) =
        z/(1 + e^−z) where the FFN is gated (R = silu(Z)·U); None for another quantity."""
        layer, _, name = c.group.rpartition(".")
        if name != "Z" or c.of:
            return None
        if self.m.d.spec.activation != "swiglu":
            return self.by.get(((layer + "." if layer else "") + "R", "", c.idx))
        ref = f"{c.ref}/(1+exp(-{c.ref}))"         # (as the candidates spell SiLU's entries)
        if (x := self.by_ref.get(ref)) is not None:
            return x
        try:
            q = bind(parse(ref, self.m.d.limits), self.m.d, self.m.d.limits)
            return Candidate(ref, "silu()", c.idx, c.axes, q, q.ball(PREFILTER_BITS))
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return None

    def _later_step(self, c, n):
        """The same AdamW state of the same entry at a later step (``adamw[2].m[E,1,0]``), when that rounds to
        the figure and the first step's does not: a second step worked by hand (never from a later step a
        place named, row t = 3 of a table of steps: a figure copied there from step 2 is wrong)."""
        head, dot, rest = c.ref.partition("].")
        if head != "adamw[1" or not dot:
            return None
        later = [x for k in range(2, MAX_STEP + 1) if (x := self.by_ref.get(f"adamw[{k}].{rest}")) is not None]
        hits = [x for x in later if self.m.rounds(x, n)]
        return hits[0] if len(hits) == 1 else None

    def _section_step(self, c, n):
        """The quantity after step k where the figure's own section is step k's (``六、第 2 步``, ``Step 3``) and the
        quantity itself does not round to it: the forward pass worked again after that step (Σ exp(s) after the
        second AdamW step), of the optimizer the text speaks of; None else."""
        k = section_step(n)
        if k is None or "." in c.ref.split("[")[0]:
            return None
        hits = [x for run in ("adamw", "sgd") if (x := self.by_ref.get(f"{run}[{k}].{c.ref}")) is not None
                and self.m.rounds(x, n)]
        return hits[0] if len(hits) == 1 else None

    def after(self, c, n):
        """The quantity ``c`` after training (``von 1.7446 auf 1.7301``): of its states after each step (SGD's,
        AdamW's) the one that rounds to the figure, else the first step of the optimizer the heading or prose
        speaks of."""
        ref = c.ref.removeprefix("sgd[0].")     # (a mini-batch's mean loss before any step: the run's start)
        if "." in ref.split("[")[0]:
            return None
        post = {s: x for k in range(1, MAX_STEP + 1) for s in (f"sgd[{k}]", f"adamw[{k}]")
                if (x := self.by_ref.get(f"{s}.{ref}")) is not None and self.m.spoken(x)}   # 'in two steps,
        #                                                                                  from 22.5 % to 46.8 %'
        hits = [x for x in post.values() if self.m.rounds(x, n)]
        if len(hits) == 1:
            return hits[0]
        tok = re.fullmatch(r"p\[(.+)\]", ref)
        shares = [x for x in self.m.every if tok and re.fullmatch(rf"softmax_T\([^,]+, {re.escape(tok[1])}\)", x.ref)
                  and self.m.rounds(x, n)] if not hits else []
        if len(shares) == 1:
            return shares[0]            # 'grew from 33.76 % to 41.38 %' at τ = 0.7: its share at a temperature
        told = TUTORIAL_STEP.sub(" ", n.heading) + " " + n.prose + " " + n.line_text
        if not TRAINED.search(told) and not STEPS_SAID.search(n.line_text[:n.col]):
            return None                 # 'from 0.2506 to 0.2716' under a temperature: no step's doing
        #                                 (nor under 'Шаг 9. Температура': a step of the tutorial)
        run = run_of(told) if re.search(r"adam|\bsgd\b", told, re.I) or not self._runs_in else \
            list(self._runs_in.values())[-1]          # (a summary under no optimizer's name: the one run so far)
        said = STEPS_SAID.search(n.line_text[:n.col])
        word = said and (said[1] or said[2])
        k = int(word) if word and word.isdigit() else NUMBER_WORDS.get(word.lower(), 1) if word else 1
        return post.get(f"{run}[{k}]")

    def _a_later_state(self, c, n) -> bool:
        """Whether, in a text about training, the figure is the entry's value after some SGD step (``∂L/∂W₁₄``
        in a section on the second step): its indices agree though the state is not the label's."""
        if c.group.startswith(("sgd", "adamw", "head_step")) or (c.group, c.of) not in self._stepped:
            return False
        if n.index not in self._trained:
            self._trained[n.index] = bool(TRAINED.search(n.heading + " " + n.prose))
        if not self._trained[n.index]:
            return False
        return any((x := self.by.get((f"sgd[{k}].{c.group}", c.of, c.idx))) is not None and self.m.rounds(x, n)
                   for k in range(1, MAX_STEP + 1))

    def _flipped(self, c, n) -> bool:
        """Whether the figure with its sign turned rounds from ``c`` (a sign flipped in print)."""
        if n.value == 0 or n.kind not in ("decimal", "percent"):
            return False
        text = n.text[1:] if n.text.startswith(("-", "−")) else "-" + n.text
        return self.m.rounds(c, replace(n, value=-n.value, text=text))

    def _through_step(self, c, n) -> bool:
        """Whether a figure is the entry's value after a step worked on its line (``W₁₄ : 0.4580 − 0.5·g``)."""
        u = self._updated(c, n, self._numbers) if n.chain and n.operands and self._numbers else None
        return u is not None and self.m.rounds(u, n)

    def _next_gradient(self, c, n):
        """A parameter's gradient at the model after k steps of the optimizer its section speaks of
        (``adamw[1].grad_W[0,mange]``: 'the new gradient g' of AdamW's second step), when that rounds to the
        figure and the gradient before any step does not."""
        if not c.group.startswith("grad_") or c.group[5:] not in self.m.d.spec.params or c.of:
            return None
        run = self._runs_in.get(n.section, run_of(n.heading + " " + n.prose))
        steps = getattr(getattr(self.m.d.spec, "training", None), "steps", 0) or 0
        for k in range(1, min(steps, MAX_STEP) + 1):
            x = self.m.expression(f"{run}[{k}].{c.ref}")
            if x is not None and self.m.rounds(x, n):
                return x
        return None

    def _moved(self, c, n):
        """A gradient check's moved entry (``W[1][3] = 0,301`` with h = 0.001): θ ± h, where the section speaks of
        the check and that rounds to the figure and the entry itself does not."""
        h = getattr(getattr(self.m.d.spec, "training", None), "gradcheck_h", None)
        if h is None or c.group not in self.m.d.spec.params or not isinstance(c.ball, fmpq):
            return None
        step = fmpq(int(h.p), int(h.q))
        said = self.m.nearby(n, Fraction(-10 ** 9), Fraction(10 ** 9))     # (only where the text moves θ)
        return next((x for x in said if x.group == "gradcheck.theta" and isinstance(x.ball, fmpq)
                     and abs(x.ball - c.ball) == step and self.m.rounds(x, n)), None)

    def _gradient_of(self, c, n):
        """The gradient of the entry a figure names, in a sentence about gradients ('der neue Gradient für
        W … beträgt −0,4095, der für x_{3} beträgt 0,4717'): the entry's own gradient or one after a step, where
        the figure rounds from it; else None."""
        above = " ".join(self._texts.get(k, "") for k in (n.line - 2, n.line - 1))   # (lines with figures)
        sentence = re.split(r"[.!?。](?:\s|$)", f"{above} {n.line_text[:n.col]}")[-1]
        group = re.sub(r"^sgd\[\d+\]\.", "", c.group)       # (the new x: its gradient)
        lines = getattr(self.m, "lines", None) or []
        code = any(re.search(r"\.grad\b", x) for x in lines[max(0, n.line - 13):n.line - 1])
        #      (a cell that reads .grad, then prints its entries under the weights' names: {'c_attn.weight[0, 1]': …})
        if not (GRADIENT_WORDS.search(sentence) or code) or group.startswith(("grad_", "adamw", "sgd")):
            return None
        group, idx = self._input_row(group, c.of, c.idx) or (group, c.idx)
        for g in (f"grad_{group}", *(f"sgd[{k}].grad_{group}" for k in range(1, MAX_STEP))):
            x = self.by.get((g, c.of, idx))
            if x is not None and self.m.rounds(x, n):
                return x
        return None

    def _updated(self, c, n, numbers):
        """``W[0, dort] : 0.6 + 0.5 × (−0.3099) = 0.4450``: an equation whose first operand is the named
        entry's own value gives its value after the step (sgd[1], or adamw[1] under a heading on AdamW)."""
        if not n.chain or not n.operands:
            return None
        first, bare = numbers[n.operands[0]], re.sub(r"^(?:sgd|adamw)\[\d+\]\.", "", c.group)
        if bare.rpartition(".")[2].startswith("grad_"):
            return None           # (a gradient is no parameter an update moves: Σ x·δ / 3 is no step)
        lead = re.match(r"\(*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", n.chain.replace("−", "-"))
        if lead is None or Fraction(lead[1]) != Fraction(first.value).limit_denominator(10 ** 12):
            return None           # (W ← W − 0,5 × (−0,5146): the entry's value not printed, its first figure the rate)
        run = run_in(n)
        if (row := self._input_row(bare, c.of, c.idx)) is not None:     # a bigram's x is its word's row of E
            bare, c = row[0], self.by.get(("E", "", row[1]))
            if c is None:
                return None
        for k in range(MAX_STEP):          # the entry after step k + 1 from its value after step k (W₁₄ : 0.4580 − …)
            before = self.by.get((f"{run}[{k}].{bare}" if k else bare, c.of, c.idx))
            if before is not None and self.m.rounds(before, first):
                return self.by.get((f"{run}[{k + 1}].{bare}", c.of, c.idx))
        return None

    def _state(self, c, n, through=None):
        """The same entry in another training state that the figure rounds from, else, when the sentence
        speaks of the new values, the nearest post-step state; None otherwise.  Of a function of an entry
        (``exp(z)`` printed after the step), the function of that entry's state (``through``: that function)."""
        fn = FUNCTION_OF.fullmatch(c.ref) if through is None else None
        inner = self.by_ref.get(fn[2]) if fn else None
        if inner is not None:
            name = fn[1] + ("+eps" if fn[3] else "")
            return self._state(inner, n, lambda y: self.function(name, y))
        rounds = (lambda x: self.m.rounds(x, n)) if through is None else \
            (lambda x: (fx := through(x)) is not None and self.m.rounds(fx, n))
        bare = c.group.partition(".")[2] if c.group.startswith(("sgd", "adamw", "head_step")) else c.group
        others = []
        for x in self.m.every:
            if x is c or x.of != c.of:
                continue
            if (x.group == f"head_step.{bare}" or re.fullmatch(rf"(?:sgd|adamw)\[\d+\]\.{re.escape(bare)}", x.group)) \
                    and x.idx == c.idx or \
                    x.group in (f"sgd.{bare}", f"adamw.{bare}") and x.idx[1:] == c.idx or \
                    x.group == bare and x.idx == c.idx:
                others.append(x)
        own = re.match(r"(sgd|adamw)\[(\d+)\]\.", c.group)
        if own:                 # a state its place names (row k of a table of steps): never another step of its run
            others = [x for x in others if not re.match(rf"{own[1]}\[(?!{own[2]}\])\d+\]\.", x.group)]
        lines = getattr(self.m, "lines", None) or []
        told = _of_tokens(" ".join((n.line_text[:n.col], n.row, n.column, n.table, printed_by(lines, n))))
        local = STATE_WORDS.search(" ".join((told, n.heading, n.prose))) or TRAINED.search(n.heading + " " + n.prose) \
            or c.group != bare or CHANGE_WORDS.search(told) and self.m.trains_here(n)
        #   (the label itself named a state after a step, logit^{new}; 'becomes' where the section trains)
        for x in others:      # another state only where the text speaks of training: the label's own otherwise
            if (x.group == bare or local and self.m.spoken(x)) and rounds(x):
                return x if through is None else through(x)
        if through is not None:
            return None
        adam = self._runs_in.get(n.section, run_of(n.heading + " " + n.prose)) == "adamw"
        post = [x for x in others if x.group != bare and (x.group not in STEPPED or x.idx[0] == 1)
                and x.group.startswith("adamw") == adam and self.m.spoken(x)]
        sentence = _of_tokens(sentence_of(getattr(self.m, "lines", []), n)) if getattr(self.m, "lines", None) else ""
        said = STATE_WORDS.search(told) or STATE_WORDS.search(n.heading) and TRAINED.search(n.heading) and \
            not BEFORE_WORDS.search(n.heading) or \
            STATE_WORDS.search(sentence) and not BEFORE_WORDS.search(sentence)
        #      (under 'After one AdamW step' too; and in its sentence begun on the line above: 'förlusten efter
        #       ett steg är' ⏎ 'L = −ln 0.1524 = 0.8170')
        near = _of_tokens(" ".join((n.line_text[:n.col], n.row, n.column)))
        if c.group == bare and post and said and not BEFORE_WORDS.search(told) and \
                (not bare.rpartition(".")[2].startswith("grad_") or STATE_WORDS.search(near)):
            #                                     (a gradient under a caption 'Gradientes e valores novos': the
            #                                        step's own; 'the new gradient is …' said of it: the next one)
            y = n.value / (100 if n.kind == "percent" else 1)
            return min(post, key=lambda x: abs(_bounds(x.ball)[0] - y))
        return None
