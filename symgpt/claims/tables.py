"""A table cell's label from its row's and column's labels and the table's subject, in pipe tables, text
tables laid out with spaces and grid tables: ``第 1 行``, ``t=1``, a token, ``step 3``, ``T = 0,5``."""
from __future__ import annotations

import copy
import dataclasses
import re
import unicodedata

from .aliases import DATA_ALIASES, KEY_WORDS, MOMENTS, QUERY_WORDS, STEP_WORDS, alternation
from .context import NUDGED
from .equations import FUNCTION_BEFORE, LETTER_INDEX, LETTER_LAST, SOFTMAX_GRADIENT, param_case
from .extract import GRID_RULE, spanned
from .figure import FORMATS
from .marks import HEAD_MARK, HEAD_WORD, HEAD_WORDS, LAYER_MENTION, head_number, superscript_of
from .shares import QUOTES, prose_word
from .symbols import (
    FUNCTION_LABEL,
    NEW,
    SECTION_STEP,
    STEP_SUPERSCRIPT,
    SUBSCRIPTS,
    Label,
    function_label,
    names_optimizer,
    parse_label,
    plain,
    run_of,
    share_ref,
)

KEY = re.compile(r"(?:第\s*(\d+)\s*(?:行|列|个|维|位)|(\d+)\s*(?:行目|列目|番目|번째(?:\s*\S{1,4})?)|"
                 r"(?:row|col(?:umn)?|query|key|pos(?:ition)?|t|s|i|j|k|dim(?:ension)?|unit|component|feature|step|"
                 r"head|token|位置|步|行|列|ligne|colonne|Zeile|Spalte|étape|Schritt|위치|행|열|단계|posição|linha|coluna|"
                 r"vị trí|hàng|cột|posizione|riga|colonna|posición|fila|wiersz|kolumna|pozycja|satır|sütun|pozisyon|"
                 r"rij|kolom|positie|baris|posisi|पंक्ति|स्तंभ|维度?|分量|Komponente|composante|componente|次元|차원|"
                 r"строка|столбец|позиция|шаг|"
                 r"wymiar|dimensión|dimensione|dimensão|dimenze|dimensi|boyut|chiều|измерение|вимір|διάσταση|आयाम|"
                 rf"{alternation(QUERY_WORDS + KEY_WORDS)}|유닛|ユニット|单元|神经元|"
                 r"Einheit|"
                 r"unité|unidad|unità|unidade|neuron|nöron)\s*[=:]?\s*(\d+)|(\d+)|"
                 r"(?-i:[a-z])\s*=\s*(\d{1,3}))",      # 'c = 1': a running letter of the author's, its value
                 re.I)
QUERY_AXIS = re.compile(alternation(QUERY_WORDS), re.I)
KEY_AXIS = re.compile(rf"(?:{alternation(KEY_WORDS)})(?![A-Za-z])", re.I)
"""A row's or column's word for the queries' or the keys' axis of a score table (rows of keys are transposed)."""
INITIAL = re.compile(r"初始|initial|before|original|untrained|step\s*0|start|avant|vorher|Ausgangs|inicial|iniziale|"
                     r"исходн|начальн|初期|처음|(?<!\w)(?:ennen|előtt|kabla|sebelum|перед|před|przed|antes|önce|före|"
                     r"før|trước)(?!\w)|更新前|ステップ前|업데이트\s*전|스텝\s*전", re.I)
STEPPED = re.compile(r"(adam\w*)|\b(sgd)\b|一步后|after|更新后|new|après|nach|"
                     r"(?<!\w)(?:uusi|nuevo|nueva|novo|nova|nuovo|nuova|nouveau|nouvelle|neu(?:e[rsm]?)?|nieuwe?|nytt?|"
                     r"nya|nowy|nowa|nowe|nový|nová|yeni|baru|mới|нов\w+|нове|új|mpya|νέο|νέα|جديد|חדש|नया|नई)(?!\w)"
                     r"(?!\s*(?:tokens?|Tokens?|токен\w*|words?|Wort|mot|palabra|parola|слово|kelime))|"
                     r"新[值しい]|새\s*값", re.I)
"""A header of a state after training: 'after', and 'new' in many languages (``uusi arvo``, ``nuevo θ``, ``新值``)."""
AFTER_A_PART = re.compile(r"(?<![^\W\d_])(?:after|après|nach|dopo|después|depois|после|після|efter|sonra|setelah)\s+"
                          r"(?:(?:the|dem|der|den|le|la|il|el|o|a)\s+)?(?:blocks?|Block|layer|Schicht|couche|bloc|"
                          r"blocco|bloque|blocos?|слоя|блока|softmax|relu|gelu|silu|swiglu|norm\w*|LayerNorm|RMSNorm|"
                          r"ln\w*|attention|Attention|mask\w*|head|Kopf|tête|residual|Residual|MLP|FFN)(?![^\W\d_])",
                          re.I)
"""'After' a part of the model (``nach Block 2``, 'after the softmax'): a place in the forward pass, no training."""
AFTER_WORD = re.compile(r"(?<!\w)(?:setelah|dopo|después|depois|после|після|sau|efter|sonra|بعد|μετά)(?!\w)", re.I)
"""'After' in more languages: a state after training only beside a step's number (``بعد الخطوة 2``, ``setelah
langkah 2``), not 'sau softmax'."""
AFTER_ALONE = re.compile(r"etter|efter|dopo|después|depois|после|після|sonra|sau|setelah|sesudah|jälkeen|után|po|na|"
                         r"poté|după|بعد|μετά|אחרי|หลัง|پس از|بعد از|後|后|후", re.I)
"""A column headed by 'after' alone (``| før | etter |``): the state after the step, where the table's caption or
section names an optimizer."""
STEP_COUNT = re.compile(r"\b(\d{1,3})\s*(?:(?:SGD|AdamW?|GD)[- ]?)?(?:steps?|Schritt\w*|шаг\w*|pass[oi]|étapes?|pasos?|"
                        r"pas\b|passos?|adım|kroki?|krok[óu]w|stappen|stap|langkah|bước|"
                        r"updates?|Updates?|iterations?)|(?:step|Schritt|шаг|passo|étape|paso|pas|langkah|stap|steg|adım|krok|bước|"
                        r"βήμα|خطوة|الخطوة)\s*(?:[tk]\s*=\s*)?(\d{1,3})\b|"
                        r"(\d{1,3})\s*(?:ステップ|步|스텝|단계)", re.I)
"""A count of training steps: ``2 SGD-Schritten``, ``after 3 steps``, ``step 2``, ``Schritt t = 2``, ``2 ステップ``,
``2 pas AdamW``."""


AXIS = re.compile(r"(?:query|key|queries|keys|row|rows|col(?:umn)?s?|pos(?:ition)?s?|tokens?|words?|chars?|(?-i:[a-z])|"
                  r"词|字|单词|mot|Wort|palabra|parola|palavra|слово|単語|단어|kelime|słowo|woord|từ|kata|ord|λέξη|"
                  r"[a-z]\s*[\\/→↓]\s*[a-z]|(?-i:[a-z])\s+(?-i:[a-z])|位置|查询|键|行|列|Zeile|Spalte|ligne|colonne|Anfrage|requête|쿼리|키|"
                  r"クエリ|キー|clé|consulta|clave|chiave|запрос|ключ)", re.I)
"""A table's corner cell that names the rows' axis (or both axes), not the matrix."""
CAPTION_SYMBOL = re.compile(r"(?<![\w\\∂/])((?:∂[\wℒ𝓛]/∂|d[\wℒ]/d)?[A-Za-z\u0370-\u03ff](?:_\{?\w+\}?)?)\s*"
                            r"(?:\[[a-z]\]\s*\[[a-z]\]|\[[a-z],\s*[a-z]\]|_\{[a-z],?[a-z]\})")
"""A caption's symbol written with letter indices: ``w[t][s]``, ``A[t, s]``, ``α_{ts}``, ``∂L/∂W_attn[i, c]``."""
TEMPERATURE_AXIS = re.compile(r"T|τ|tau|[Tt]emp(?:erature)?|[Tt]empérature|Temperatur|[Tt]emperatura|温度")
TEMPERATURE_ROW = re.compile(r"(?:T|τ|tau|[Tt]emp(?:erature)?|[Tt]empérature|Temperatur|温度)\s*=\s*"
                             r"(?:\d+(?:\.\d+)?|∞|inf|oo)")
"""(Case matters here: a row 't = 1' is a position, 'T = 1' a temperature.)"""
TEMPERATURE = re.compile(r"(?:T|τ|tau|temp(?:erature)?|température|温度)\s*=\s*(\d+(?:\.\d+)?|∞|inf|oo)", re.I)


def _key(cell: str, vocab) -> tuple | None:
    """A row's or column's label as one index: '第 1 行' → (1,), 't=2' → (2,), a token → (tok,), else None.

    >>> v = ["le", "好き"]
    >>> _key("「好き」", v), _key("« le »", v), _key("t=2", v), _key("le (1)", v), _key("le (la)", v)
    ((('tok', 1),), (('tok', 0),), (2,), (('pos', 1),), (('tok', 0),))
    >>> _key("query t=2", v), _key("key s = 0", v), _key("2 好き", v), _key("c = 8 (v, head 1)", v)
    ((2,), (0,), (('tok', 1),), (8,))
    """
    s = plain(cell).strip().strip("*`").strip()
    if s in vocab:
        return (("tok", vocab.index(s)),)
    if (q := s.strip(QUOTES)) in vocab:           # 「好き」, « le », “the”: a token in its quotes
        return (("tok", vocab.index(q)),)
    numbered = re.fullmatch(r"\d{1,3}[.:)]?\s+(\S.*)", s)
    if numbered and (q := numbered[1].strip().strip(QUOTES)) in vocab:
        return (("tok", vocab.index(q)),)           # '2 يقرأ', '3. kota': the word, after its number in a list
    bare = re.sub(r"\s*[(（][^()（）]{1,24}[)）]$", "", s)
    if bare != s and (q := bare.strip(QUOTES)) in vocab:    # 'il (4)': a token and its place, the place
        place = re.search(r"[(（]\s*(\d{1,3})\s*[)）]$", s)
        return (("pos", int(place[1])),) if place else (("tok", vocab.index(q)),)
    m = KEY.fullmatch(s) or KEY.fullmatch(bare) or \
        KEY.fullmatch(re.sub(r"^[^\W\d_]{3,}\s+(?=[a-z]\s*=\s*\d)", "", s))   # 't = 1 (sun)', 'query t=2'
    if m:
        return (int(next(g for g in m.groups() if g is not None)),)
    m = re.fullmatch(r"[a-z]\s*=\s*(\d{1,3})", bare) if bare != s else None
    return (int(m[1]),) if m else None      # 'c = 8 (v, head 1)': a running letter's value, its column's note after


def _token(key) -> bool:
    """Whether a row's or column's key is a token (``('tok', id)``), not a number or a numbered place."""
    return isinstance(key, tuple) and key[0] == "tok"


STEP_WORD = (r"(?:steps?|askel\w*|Schritt\w*|pas|paso|passo|шаг\w*|крок\w*|adım\w*|langkah|krok\w*|stap|steg|"
             r"trinn|bước|lépés\w*|hatua|ステップ|스텝|단계|步|updates?|päivity\w*|更新|업데이트)")
AFTER_STEP = re.compile(rf"(?<![A-Za-zА-яЁё]){STEP_WORD}(?![A-Za-zА-яЁё])\s*\S{{0,6}}\s*"
                        rf"(?:jälkeen|után|sonra|后|後|후)|"
                        rf"(?<![A-Za-zА-яЁё])(?:after|dopo|después|depois|после|після|efter|etter|setelah|sesudah|"
                        rf"selepas|sau|baada\s+ya|po|na)\s+(?:\S+\s+)?{STEP_WORD}(?![A-Za-zА-яЁё])", re.I)
"""'After the step' in more languages (``askeleen jälkeen``, ``ステップ後``, ``setelah langkah``, ``po kroku``):
a state after training, by a step's word beside an 'after' (alone, 'sau softmax' is a place in the model)."""
STEP_NUMBER = re.compile(rf"(?<![A-Za-zА-яЁё]){STEP_WORD}(?![A-Za-zА-яЁё])\s*(?:[^\W\d_]{{1,3}}\s+)?#?"
                         rf"(\d{{1,3}})(?!\d)|(?<![\d.,])(\d{{1,3}})\.\s*{STEP_WORD}", re.I)
"""A step's number after its word (``hatua ya 3``, ``askel 2``, ``step #3``), or before it as an ordinal
(``2. adımdan sonra``, ``2. Schritt``)."""


def _state(cell: str) -> str | None:
    """The training state a header names: '' (the model as it starts), 'sgd[1]', 'adamw[1]', and after a
    count of steps that count (``nach 2 SGD-Schritten``: 'sgd[2]'); None if none.

    >>> _state("nach 2 SGD-Schritten"), _state("after 1 AdamW step"), _state("Ausgangsmodell"), _state("W")
    ('sgd[2]', 'adamw[1]', '', None)
    >>> _state("بعد الخطوة 2"), _state("setelah langkah 2"), _state("البعد 2"), _state("sau softmax")
    ('sgd[2]', 'sgd[2]', None, None)
    >>> _state("`ln_f` (nach Block 2)"), _state("after the softmax"), _state("après le pas 1")
    (None, None, 'sgd[1]')
    >>> [_state(s) for s in ("askeleen jälkeen", "ステップ後", "lépés után", "ennen askelta", "uusi arvo", "neuron")]
    ['sgd[1]', 'sgd[1]', 'sgd[1]', '', 'sgd[1]', None]
    """
    s = plain(cell)
    if INITIAL.search(s):
        return ""
    if AFTER_A_PART.search(s) and not STEP_COUNT.search(s) and not re.search(r"adam|\bsgd\b", s, re.I):
        return None                 # '`ln_f` (nach Block 2)', 'after softmax': a place in the model, no step
    m = STEPPED.search(s) or AFTER_WORD.search(s) and STEP_COUNT.search(s) or AFTER_STEP.search(s)
    if not m:
        return None
    k = STEP_COUNT.search(s)
    k = int(next(g for g in k.groups() if g is not None)) if k else \
        int(after[1] or after[2]) if (after := STEP_NUMBER.search(s)) else 1   # 'hatua ya 3', '2. adım'
    return f"{run_of(s)}[{k}]" if k else ""


def table_header(lines: list, no: int) -> tuple:
    """(the first line of the pipe table line ``no`` sits in, its header cells), or (0, []).

    >>> table_header(["|---|---|", "| U | 1 a |", "|---|---|", "| i = 1 | 0.2 |"], 4)
    (2, ['U', '1 a'])
    """
    if not lines[no - 1].lstrip().startswith("|"):
        return 0, []
    top = no
    while top > 1 and (lines[top - 2].lstrip().startswith("|") or GRID_RULE.fullmatch(lines[top - 2])):
        top -= 1                                  # (+---+---+ between a grid table's header and its rows)
    while GRID_RULE.fullmatch(lines[top - 1]) or PIPE_RULE.fullmatch(lines[top - 1]) and top < no:
        top += 1                                  # (a top border, |-----|-----|, over the header)
    cells = [c.strip() for c in lines[top - 1].strip().strip("|").split("|")]
    return top, cells


PIPE_RULE = re.compile(r"\s*\|(?:\s*:?-+:?\s*\|)+\s*")
"""A pipe table's rule or border, ``|------|:----|``."""


def stacked_header(lines: list, top: int, no: int) -> bool:
    """Whether a pipe table whose first line is ``top`` has a second row of labels before line ``no`` (``| head 1
    | | | head 2 |`` over ``| t | s=1 | s=2 | …``): its first row's spans then name no columns of their own."""
    return any(not re.search(r"\d[.,]\d", lines[k]) and not set(lines[k].strip()) <= set("|-: ")
               for k in range(top, no - 1))


MIXED_INDEX = re.compile(r"(.+?)_\{?[A-Za-z]\s*,\s*(\d+)\}?")
"""A column header indexed by the rows' running letter and a number (``∂L/∂E_{v,1}``, ``W_{i,2}``)."""
ROW_NOTE = re.compile(r"(?<=\S)\s*[（(](?!\s*(?:t|s|pos(?:ition)?)\s*=)[^（）()]*[=≈]\s*\$?\s*[-−]?\d[^（）()]*"
                      r"[)）]\s*$|"
                      r"(?<=\S)\s*[（(](?!\s*(?:temp\w*|τ|T|lr|η|eps|ε|var\w*|top|k|p|h)\b)\s*(?:(?:[^\W\d_]{2,}\.?\s*:?\s*)+\$?[-−]?\d+(?:[.,]|\{,\})\d+|"
                      r"(?:was|oli|war|était|era|fue|foi|var|init\w*|old|alt|ancien|antigo|vecchio)\s*:?\s*\$?[-−]?\d+)"
                      r"\$?\s*[)）]\s*$", re.I)
"""A note in brackets after a row's label that states a value (``（θ₀ = 0.3）``, ``(oli 0,2)``, ``(was 0)``): no part
of the label."""
POSITION_TAIL = re.compile(r"(?P<name>.+?)\s*(?:,|\(|\b(?:at|bei|für|à|en|a|в|na)\b|在)?\s*"
                           r"\b(?:t|pos(?:ition)?)\s*=\s*(?P<k>\d+)\s*\)?")
"""A row label that names a position after its symbol (``∂L/∂x'' at t = 2``, ``h (t = 1)``): the symbol's row."""
RUNNING_ROW = re.compile(r"(?P<name>[^\s_^{}]+?)(?P<sup>\^\{?\(?\d\)?\}?)?_\{(?P<k>\d+)\s*,?\s*[a-z]\}"
                         r"(?P<sup2>\^\{?\(?\d\)?\}?)?")
"""A row label indexed by a number and the columns' running letter (``α^{(2)}_{4,j}``, ``δs_{4,j}``): over a column
per token, the row k's entry at each token."""


EXAMPLE_WORDS = (r"样本|例子|示例|序列|系列|サンプル|例|샘플|예제|시퀀스|문장|example|sample|sequence|window|sentence|"
                 r"Beispiel|Sequenz|Fenster|exemple|séquence|fenêtre|ejemplo|secuencia|ventana|esempio|sequenza|"
                 r"finestra|exemplo|sequência|janela|пример|последовательность|окно|приклад|послідовність|örnek|dizi|"
                 r"voorbeeld|venster|przykład|sekwencja|okno|příklad|sekvence|exempel|eksempel|sekvens|esimerkki|"
                 r"jakso|példa|szekvencia|exemplu|secvență|παράδειγμα|ακολουθία|contoh|urutan|ví dụ|chuỗi|mẫu|"
                 r"mfano|उदाहरण|अनुक्रम|مثال|تسلسل|دنباله|نمونه|דוגמה|רצף|ตัวอย่าง|ลำดับ|"
                 r"pair|Paar|paire|coppia|пара|çift|쌍|ペア|cặp|pasangan|זוג|คู่|जोड़ी|jozi|pár")
"""A mini-batch's example, by the words tutorials use for one in each language (a bigram's training pair too)."""
ANOTHER_EXAMPLE = re.compile(rf"(?:{EXAMPLE_WORDS})\s*#?\s*(?:[2-9]|1\d)(?!\d)|"
                             r"\b(?:second|third|fourth|2nd|3rd|zweite[nsmr]?|dritte[nsmr]?|deuxième|troisième|segund[oa]|"
                             r"tercer[oa]?|second[oa]|terz[oa])\s+(?:example|sample|sequence|window|sentence|Beispiel|"
                             r"Sequenz|Fenster|exemple|séquence|fenêtre|ejemplo|secuencia|ventana|esempio|sequenza|"
                             r"finestra|exemplo|sequência|janela)\b|"
                             r"第\s*[二三四2-9]\s*个?(?:样本|例子|序列|句子)", re.I)
"""A header that names a mini-batch's second or later example (``样本 2 的 ŷ``, ``example 3``, 'the second window'):
a spec without a mini-batch has no quantities of it (its quantities are its first example's)."""
EXAMPLE_NUMBER = re.compile(rf"(?:{EXAMPLE_WORDS})\s*#?\s*(?P<k>1\d|[1-9])(?!\d)", re.I)
"""A mini-batch's example named with its number (``样本 1``, ``example 3``): the first one is the spec's."""


def cell_label(row: str, col: str, corner: str, top: int, vocab, caption: str = "", optimizer: str = "") -> \
        Label | None:
    """A table cell's label from its row's and column's labels and the table's subject: its corner, else (a
    corner that names the rows' axis, 'query', 't \\ s') the symbol its caption gives it (``w[t][s]``);
    ``optimizer``: the one the text spoke of last, whose steps a column 'Step 2' counts unless the caption says.
    In a spec that trains on a mini-batch, a column of an example (``z^{(2)}``, ``系列 2 の z``) is that example's;
    a row or column that names another example in any other way is no one's (as in a spec without one)."""
    batch = getattr(vocab, "batch", False)
    if ANOTHER_EXAMPLE.search(" ".join((row, col))) and \
            not (batch and (example_column(col) or example_row(row, corner))):
        return None                                 # 'ŷ of example 2': no entry of a spec without a mini-batch
    return of_example(_cell_label(row, col, corner, top, vocab, caption, optimizer), col, vocab)


def of_example(lab, col: str, vocab):
    """``lab`` as the mini-batch's example its column names (``z^{(2)}``: example[1]); as it is where the spec has
    no mini-batch, the column names none, or ``lab`` is a parameter's (W^{(1)}: a step's, never an example's)."""
    k = example_column(col) if getattr(vocab, "batch", False) else None
    if lab is None or not k or k == 1 or lab.state or lab.ref or lab.name in getattr(vocab, "params", ()):
        return lab
    return dataclasses.replace(lab, state=f"example[{k - 1}]")


LAYER_AFTER = re.compile(rf"[\s,;]*(?:\b(?:of|van|in|von|im|de|del|du|da|della)\s+)?(?:{LAYER_MENTION.pattern})\s*$",
                         re.I)
"""A row label's block named in words after its entry (``, layer 2``, `` van laag 2``)."""


def _cell_label(row: str, col: str, corner: str, top: int, vocab, caption: str = "", optimizer: str = "") -> \
        Label | None:
    if FORMATS.search(" ".join((row, col, corner))):
        return None                                 # a float32 or bfloat16 value: that format's, not a slip
    row = ROW_NOTE.sub("", row)                     # '$W_q[1,3]$（$\theta_0 = 0.3$）': the entry, its value aside
    if (bare := re.sub(r"\s*[（(][^（）()]{1,30}[)）]\s*$", "", row)) != row and _indexed(bare, vocab) and \
            not _indexed(row, vocab):
        row = bare                                  # 'E[süt, 1] (embed_tokens)': the entry, its module aside
    if (bare := LAYER_AFTER.sub("", row)) != row and _indexed(bare, vocab) and not _indexed(row, vocab):
        row = bare                                  # 'W_2[4,1], layer 2': the entry, its block named (labels.py)
    col = head_power(col)
    if corner and TEMPERATURE_AXIS.fullmatch(plain(corner).strip().strip("*`")) and \
            re.fullmatch(r"\d+(?:\.\d+)?|∞|inf", plain(row).strip()):
        row = f"T = {plain(row).strip()}"         # a column of temperatures under the corner 'T': row 0.5 is T = 0.5
    if (lab := _letter_bound(row, col, vocab)) is not None:
        return lab
    if NEW.search(plain(col)) and NEW.sub("", plain(col)).replace(" ", "") in GRADIENT_SYMBOLS and \
            (lab := _stepped_cell(row, col, corner, f"{caption} {optimizer}", vocab)) is not None:
        return lab                                  # 'nouveau gradient' over rows of entries: no value after a step
    if (example := example_row(row, corner)) is not None:       # | 样本 1（春→风） | … |, | 2 | 又 | … | under 样本
        if example < 1:
            return None                             # (counted from 0: which is the spec's is not said)
        ck = _key(col, vocab)
        if ck is not None and _token(ck[0]):        # a token's column: the corner's symbol, s^{(i)}, at that token
            sym = parse_label(re.sub(r"\^\{?\(\w\)\}?", "", plain(corner)).replace(" ", ""), vocab)
            lab = Label(sym.name, ck) if sym is not None and not sym.index else None
        else:                                       # (ℓ^{(b)} over the examples' rows: each row's own ℓ)
            lab = _header_label(RUNNING_EXAMPLE.sub("", col), vocab, letters=False)
        if lab is None or example == 1:
            return lab
        return None if lab.state else dataclasses.replace(lab, state=f"example[{example - 1}]")   # another example
        #                                                                          of the mini-batch: example[k − 1]
    if VALUE_COLUMN.fullmatch(plain(col).strip().strip("*`")) and (entry := _entry_of(caption, vocab)) is not None:
        return _stepped_cell(entry, row, corner, caption, vocab)    # | m_1 | 0,1·g | −0,03931 | of W_{1,b}
    if (stepped := _cornered_step(row, col, corner, caption, vocab)) is not None:
        return stepped                              # | 第 2 步 | U[0,茶] | … | with rows θ, g, m, v, m̂, v̂, θ′
    if (stepped := _step_column(row, col, caption if names_optimizer(caption) else
                                f"{caption} {optimizer}", vocab)) is not None:
        return stepped                              # | | Step 1 | Step 2 | over rows loss, ŷ_b, W_{0,b}
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
    head = HEAD_MARK.fullmatch(plain(row).strip().strip("*`"))
    if head and (entry := _header_label(col, vocab, letters=False)) is not None and entry.index and entry.head is None:
        return dataclasses.replace(entry, head=head_number(head))   # a row per head under entries (capul 2 | α_{3,3})
    if rk is not None and ck is not None:           # a matrix: the corner names it, else the table itself
        axis = not corner or AXIS.fullmatch(plain(corner).strip()) or HEAD_MARK.fullmatch(plain(corner).strip()) or \
            re.fullmatch(r"(?:[^\s\d=]{3,}\s+)+[a-z]", plain(corner).strip())    # 'input dim i': the rows' axis
        lab = parse_label(plain(corner).replace(" ", ""), vocab) if not axis else None
        if lab is None and (m := CAPTION_SYMBOL.search(plain(caption))):
            lab = parse_label(re.sub(r"_\{(\w+)\}", r"_\1", m[1]), vocab)     # (∂L/∂W_{attn}: W_attn's)
        name = lab.name if lab is not None and not lab.index else f"table@{top}"
        return Label(name, rk + ck)
    for by, across in ((row, ck), (col, rk)):     # a row per temperature and a column per token, or transposed
        t = TEMPERATURE.fullmatch(plain(by).strip()) or _share_at_temperature(plain(by).strip())
        if t and across is not None and _token(across[0]):
            value = "inf" if t[1] in ("∞", "inf", "oo") else t[1]       # (T = 2.0 is the temperature 2)
            return Label("softmax_T", across, ref=share_ref(value, vocab[across[0][1]]))
    rstate = _state(row) if rk is None and ck is None else None
    if rstate is not None and (q := _header_label(col, vocab, letters=False)) is not None and not q.state:
        return Label(q.name, q.index, state=rstate)  # a row per training state, a quantity per column: J, π_bellt
    named = _header_label(col, vocab) if not re.search(r"[,;，]", col) else None   # 'ŷ_{j}' over rows j: ŷ
    mixed = MIXED_INDEX.fullmatch(plain(col).replace(" ", "")) if named is None and rk is not None else None
    if mixed and (over := _header_label(mixed[1], vocab)) is not None and not over.index:
        return Label(over.name, rk + (int(mixed[2]),))   # ∂L/∂E_{v,1} over rows v: that row's entry 1 (as written)
    if rk is not None and named is not None and named.index and DIM_CORNER.fullmatch(plain(corner).strip()):
        return dataclasses.replace(named, index=named.index + rk)   # x_2 over rows of dimensions: x_2's entries
    if rk is not None:                              # a column of one quantity, a row per index (or step)
        return dataclasses.replace(named, index=rk + named.index) if named is not None else \
            Label(f"column@{top}:" + plain(col).strip(), rk)     # 'head 2, a': its own table's column
    at = POSITION_TAIL.fullmatch(plain(row).strip().strip("*`"))
    if at and ck is not None and len(ck) == 1 and isinstance(ck[0], int) and \
            (sym := _header_label(at["name"], vocab)) is not None and not sym.index:
        return Label(sym.name, (int(at["k"]), *ck), sup=sym.sup)   # '∂L/∂x'' at t = 2' over 'dim 3': (2, 3)
    named_row = re.sub(r"\s*=.*$", "", plain(row))     # 'score s_{3j} = q_3·k_j / √4': its name, the formula aside
    *lead, last = named_row.split() or [""]
    worded = lead and all(re.fullmatch(r"[^\W\d_]{2,}", w) for w in lead)   # ('score s_{3j}', not 'Δ W_{2,j}')
    running = worded and RUNNING_ROW.fullmatch(last.strip("*`")) or \
        RUNNING_ROW.fullmatch(named_row.replace(" ", "").strip("*`")) or \
        RUNNING_ROW.fullmatch(last.strip("*`"))      # '가중치 α^{(2)}_{3,j}': its symbol
    if running and ck is not None and len(ck) == 1:
        sym = parse_label(running["name"] + (running["sup"] or running["sup2"] or ""), vocab)
        if sym is not None and not sym.index:     # α^{(2)}_{4,j} over token columns: α^{(2)} at (4, that token)
            sup = superscript_of(running["name"] + (running["sup"] or running["sup2"] or ""))
            return Label(sym.name, (int(running["k"]), *ck), sup=sym.sup or sup)
    row_label, over = _header_label(row, vocab, letters=False), _header_label(row, vocab)
    if over is not None and (row_label is None or not row_label.index and row_label.name not in vocab.names):
        row_label = over                            # ∂L/∂z_v over token columns: ∂L/∂z, indexed by the columns
    word = plain(row).strip().strip("*`")
    if corner and ck is not None and word.isalpha() and len(word) > 2 and word not in vocab.names and \
            (subject := _header_label(corner, vocab)) is not None and not subject.index and \
            ("∂" in subject.name or subject.name in vocab.names):
        row_label = subject                         # '∂ℒ/∂z_v' in the corner, a row 'value': the corner's quantity
    if (row_label is None or row_label.name not in getattr(vocab, "params", ()) or not row_label.index) and \
            (stepped := _stepped_cell(col, row, corner, f"{caption} {optimizer}", vocab)) is not None:
        return stepped                              # rows θ0, g, m1, v̂1, θ1 under columns 'W_Q, entry (1,1)': the
        #                                             table of an entry's states, transposed
    state = _state(col)
    if state is None and AFTER_ALONE.fullmatch(plain(col).strip().strip("*`").strip()) and \
            names_optimizer(f"{caption} {optimizer}"):
        state = f"{run_of(f'{caption} {optimizer}')}[1]"     # | før | etter | under 'Ett SGD-steg': after the step
        #                                                    (not | przed | po | of a norm: no optimizer named there)
    if ck is not None and row_label is not None and not row_label.index and state is None:
        return dataclasses.replace(row_label, index=ck)    # a row of one quantity, a column per index: dL/dlogit
    if row_label is not None and state is not None:   # a quantity per row, a training state per column
        if hasattr(vocab, "params") and row_label.index:
            row_label = param_case(row_label, vocab)     # (e_{w,1}, b_{2,1} under 'new value': E's, b_2's)
        return Label(row_label.name, row_label.index, state=state)
    if ck is not None and len(ck) == 1 and isinstance(ck[0], tuple) and row_label is not None and \
            len(row_label.index) == 1 and isinstance(row_label.index[0], int) and row_label.name not in vocab:
        return Label(row_label.name, ck + row_label.index)    # row q₁ under a token's column: q at that token, q's 1
    if ck is not None and len(ck) == 1 and isinstance(ck[0], int) and row_label is not None and \
            row_label.index and all(isinstance(k, int) for k in row_label.index):
        return Label(row_label.name, row_label.index + ck)     # row q₁ under 'cột 2' (column 2): q₁'s entry 2
    entry = param_case(row_label, vocab) if row_label is not None and hasattr(vocab, "params") else None
    if entry is not None and entry.index and entry.name in vocab.params and \
            (nudged := _nudged_cell(entry, col)) is not None:
        return nudged                               # | B_{2,bebe} | ℓ(θ − h) |: the author's letter for W too
    if entry is not None and entry.index and entry.name in vocab.params and \
            (grad := _gradient_cell(entry, col, vocab)) is not None:
        return grad                                 # | U_{2,bellt} | ∂ℓ₁/∂θ | ∂J/∂θ |: the entry's gradient
    if entry is not None and entry.index and entry.name in vocab.params and \
            (stepped := _stepped_cell(row, col, corner, f"{caption} {optimizer}", vocab)) is not None:
        return stepped                              # | W_q[1,3] | g | m_1 | v̂_1 |: that entry's states at step 1
    if row_label is not None and row_label.index and (named is None or not named.index):
        name = named.name if named is not None else "column:" + plain(col).strip()
        row_label = entry if entry is not None and entry.index and entry.name in vocab.params else row_label
        return Label(name, row_label.index, of=row_label.name)        # AdamW's update of W_{1,跑} (of b_{2,1}: b_2)
    return None


DIM_CORNER = re.compile(r"dim(?:ension)?s?|boyut|chiều|измерение|вимір|wymiar|dimensión|dimensione|dimensão|"
                        r"dimenze|dimensi|διάσταση|आयाम|次元|차원|维度?|分量|component|Komponente|composante|"
                        r"componente|komponen|ulottuvuus|dimensio|mitta|j|k", re.I)
"""A corner over rows that are a vector's entries (``boyut``, 'dim', ``j``): a column ``x_2`` is then x_2's."""
RUNNING_EXAMPLE = re.compile(r"\^\s*\{?\s*\(\s*[A-Za-z]\s*\)\s*\}?")
"""A superscript of a running letter in brackets (``ℓ^{(b)}``, ``z^{(i)}``): the example each row names (not a
power or a transpose, ``e^{z}``, ``W^{T}``)."""
VALUE_COLUMN = re.compile(r"values?|wert|werte|valeur|valor|valore|waarde|wartość|värde|verdi|значение|değer|"
                          r"giá trị|nilai|result|ergebnis|résultat|resultado|risultato|值|数值|結果|値|값|결과", re.I)
"""A column headed by a word for 'value': its rows' labels name its cells."""


def example_row(row: str, corner: str) -> int | None:
    """The number of the mini-batch's example a table's row is about: its label names it (``样本 1（春→风）``,
    ``example 2``), or its corner does and the row holds the number (``| 样本 | … |`` over ``| 2 | … |``).

    >>> example_row("样本 1（春→风）", "$s^{(i)}$"), example_row("3", "样本"), example_row("3", "t")
    (1, 3, None)
    """
    m = EXAMPLE_NUMBER.match(plain(row).strip().strip("*`"))
    if m is not None:
        return int(m["k"])
    word = EXAMPLE_NUMBER.pattern.split(")")[0] + ")"
    if re.fullmatch(word + r"\s*#?", plain(corner).strip().strip("*`"), re.I) and re.fullmatch(r"\d{1,2}", row.strip()):
        return int(row)
    return None


def example_column(col: str) -> int | None:
    """The mini-batch's example a column is about, as its header numbers it (``系列 2 g^{(2)}``, ``z^{(2)}``,
    ``example 1``); None when it names none.

    >>> example_column("系列 2 g^{(2)}"), example_column("$z^{(2)}$"), example_column("p⁽¹⁾"), example_column("p")
    (2, 2, 1, None)
    """
    said = EXAMPLE_NUMBER.search(plain(col))
    if said is not None:
        return int(said["k"])
    step = STEP_SUPERSCRIPT.search(plain(col).replace(" ", "").split("_")[0] + " ")
    return int(step["k"] or "⁰¹²³".index(step["s"])) if step is not None else None


def _entry_of(caption: str, vocab) -> str | None:
    """The parameter entry a table's caption is about (``Erster AdamW-Schritt für W_{1,bellt}``: W_{1,bellt}),
    as written; None when it names none, or several.

    >>> from symgpt.claims.symbols import Words
    >>> _entry_of("Table 3: first AdamW step for W_{1,b}", Words(["a", "b"], {"W"}, {"W"}))
    'W_{1,b}'
    """
    found = [m[0] for m in re.finditer(r"[^\W\d_][\w]*(?:_\{[^{}]+\}|\[[^\[\]]+\])", plain(caption))]
    entries = [e for e in found if (lab := parse_label(e.replace(" ", ""), vocab)) is not None and lab.index and
               lab.name in getattr(vocab, "params", ())]
    return entries[0] if len(set(entries)) == 1 else None


def _letter_bound(row: str, col: str, vocab) -> Label | None:
    """A row that names a quantity by an index letter its column binds (``s_2(3,j)`` under ``j = 1``): the
    quantity at that index, as written (the notation learns whether it counts from 1); None otherwise.

    >>> str(_letter_bound("$s_2(3,j)$", "$j = 1$", [])), _letter_bound("e^{α_{2,j}}", "j=0", []).fn
    ('s_2[3,1]', 'exp')
    >>> _letter_bound("p_j", "T = 2", []), _letter_bound("score", "j = 1", [])
    (None, None)
    """
    bind = re.fullmatch(r"([a-z])\s*=\s*(\d{1,3})", plain(col).strip().strip("*`$ "))
    if bind is None or TEMPERATURE_ROW.fullmatch(plain(col).strip()):
        return None
    s = plain(row).replace(" ", "").strip("*`$")
    filled = re.sub(rf"(?<=[(\[{{,]){bind[1]}(?=[)\]}},])", bind[2], s)
    if filled == s:
        return None
    lab = _header_label(filled, vocab, letters=False)
    return lab if lab is not None and lab.index else None


def _share_at_temperature(header: str):
    """The temperature a share's column header sets (``p (%) pada T = 2``, ``π at T = 0.5``): its match, or None
    for a header of logits scaled by it (``z / T (T = 2)``).

    >>> _share_at_temperature("p (%) pada T = 2")[1], _share_at_temperature("z / T (T = 2)")
    ('2', None)
    """
    t = TEMPERATURE.search(header)
    rest = header[:t.start()] + header[t.end():] if t else ""
    return t if t and not re.search(r"logit|(?<![A-Za-z])z(?![A-Za-z])|/", rest, re.I) else None


STEP_CORNER = re.compile(r"k|n|#|(?:steps?|iter(?:ation)?s?|epochs?|шаг|Schritt|étape|paso|passo|스텝|단계|ステップ|"
                         r"步数?)(?:\s*[tkn])?", re.I)
"""A table's corner over rows that count training steps (``| k | ℒ | W₁₄ |``, ``| Schritt t | ℓ |``)."""


START_OF = re.compile(r"(?:start|beginning) of step [kt]\b|before step [kt]\b|第\s*[kt]\s*步开始|"
                      r"vor Schritt [kt]\b|au début de l'étape [kt]\b|al inicio del paso [kt]\b|"
                      r"all'inizio del passo [kt]\b|no início do passo [kt]\b|в начале шага [kt]\b", re.I)
"""A caption that says a table's row k is the state before step k, after k − 1 steps ('at the start of step k';
not 'before each step', said of rows that count from 0)."""


def _step_column(row: str, col: str, caption: str, vocab) -> Label | None:
    """A cell of a table with a column per training step (``Step 2``, ``2 단계``, ``第 2 步``) and a row per
    quantity or parameter entry: that quantity after so many steps, as :func:`_step_row` reads it transposed.

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"W", "p", "loss"}, {"W"})
    >>> [str(_step_column(r, c, "SGD", v)) for r, c in (("loss", "Step 2"), ("W_{0,b}", "2 단계"), ("p(b)", "第 3 步"))]
    ['sgd[2].loss', 'sgd[2].W[0,tok1]', 'sgd[3].p[tok1]']
    >>> _step_column("Step 1", "Step 2", "SGD", v), _step_column("loss", "k = 2", "SGD", v)
    (None, None)
    >>> _step_column("p(b)", "Step 2", "Generation", v) is None          # a procedure's steps: no training said
    True
    """
    said = SECTION_STEP.fullmatch(plain(col).strip().strip("*`"))
    if said is None or SECTION_STEP.search(plain(row)) or not names_optimizer(caption):
        return None                     # (only where the text speaks of training: 'Bước 2' of a procedure is no step)
    k = int(next(g for g in said.groups() if g))
    return _step_row((k,), row, "step", caption, vocab, explicit=True)


def _step_row(rk, col: str, corner: str, caption: str, vocab, row: str = "", explicit: bool = False) -> Label | None:
    """A cell of a table with a row per training step and a column per parameter entry (``W₁₄`` over rows
    k = 0, 1, 2 or rows ``step 2``): that entry after k steps (of AdamW when the caption says so, else SGD).
    ``explicit``: the step is the cell's own header's (``Step 2``), so any quantity's column is read after it.

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"W"}, {"W"})
    >>> str(_step_row((2,), "W₁₄", "k", "", v)), str(_step_row((0,), "W_{0,b}", "step", "", v))
    ('sgd[2].W[1,4]', 'W[0,tok1]')
    >>> str(_step_row((1,), "W_{3,b}", "", "", v, "Schritt 1")), str(_step_row((3,), "W_{1,b}", "Schritt t", "Adam", v))
    ('sgd[1].W[3,tok1]', 'adamw[3].W[1,tok1]')
    >>> str(_step_row((2,), "L = −ln p̂_b", "passo", "SGD", v)), str(_step_row((2,), "loss", "k", "AdamW", v))
    ('sgd[2].L', 'adamw[2].loss')
    >>> _step_row((1,), "loss", "#", "SGD", v), _step_row((1,), "loss", "step", "", v)     # a rank; whose steps?
    (None, None)
    >>> str(_step_row((2,), "loss", "step", "SGD: the loss at the start of step k", v))
    'sgd[1].loss'

    """
    if rk is None or len(rk) != 1 or not isinstance(rk[0], int) or not (
            STEP_CORNER.fullmatch(plain(corner).strip()) or re.fullmatch(rf"(?:{STEP_CORNER.pattern})\s*=?\s*\d+",
                                                                       plain(row).strip(), re.I)):
        return None
    own = re.search(r"_\{?([a-z])\}?$", plain(col).strip())       # η_{t}: a schedule's own index, not a token
    said = explicit or names_optimizer(caption)   # (its caption or heading says whose; or its header is a
    #                                                    step's own: 'Step 2')
    entry = _header_label(col, vocab) if STEP_CORNER.fullmatch(plain(corner).strip()) and said and \
        plain(corner).strip() != "#" and (own is None or own[1] in vocab) else None
    if entry is not None and entry.name not in getattr(vocab, "params", ()) and not entry.state and \
            not re.search(r"\d", plain(col)):
        k = max(0, rk[0] - bool(START_OF.search(caption)))   # 'passo | L = −ln p̂_mangia | p̂_mangia' over rows 0–3:
        return Label(entry.name, entry.index, state=f"{run_of(caption)}[{k}]" if k else "")   # after k steps
        #     (a caption 'at the start of step k': after k − 1)
    entry = parse_label(plain(col).replace(" ", ""), vocab)
    if entry is None or not entry.index or entry.state or entry.name not in getattr(vocab, "params", ()) and (
            entry.name in getattr(vocab, "names", ()) or not any(_token(k) for k in entry.index)):
        return None         # (a parameter's entry, or the document's own name for one: U[2,runs], a token's column)
    k = max(0, rk[0] - bool(START_OF.search(caption)))
    run = run_of(caption)
    return Label(entry.name, entry.index, state=f"{run}[{k}]" if k else "")


WORDED_SYMBOL = re.compile(r"(?!.*\b(?:exp|log|ln|sqrt|softmax|tanh|relu|gelu|silu|sigmoid|sin|cos|erf|grad\w*|"
                           r"[Gg]radien\w*|gradyan\w*|градиент\w*|update\w*|[Ää]nderung|delta|wrt|d[Ll]|"
                           r"[Tt]oken|für|for|of|de|di|von)\b)"
                           r"(?:[^\W\d_]{3,}\s+)+(?:\$(?P<math>[^$]+)\$|(?P<letter>[A-ZΑ-Ωα-ωℓ][²ᵀ']?))\s*")
"""A row's words before the symbol they gloss (``häviö $L$``, ``keskiarvo μ``, ``varianssi σ²``): the symbol."""


FIXED_THEN_LETTER = re.compile(r"([(\[]|_\{)(\d+),\s*[a-z]([)\]}])(?=[)}]?$)")
"""A header's fixed index before the rows' running letter (``s(3,j)``, ``α_{3,j}``, ``exp(s(3,j))``): the fixed one
stays, the letter is the row's."""


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
    if (worded := WORDED_SYMBOL.fullmatch(cell.strip())) is not None:
        cell = worded["math"] or worded["letter"]     # 'häviö $L$', 'keskiarvo μ': the symbol the words gloss
    s = plain(cell).strip().strip("|│").strip()
    s = re.sub(r"(?<=[^\W\d_]{2})\s+[a-z]$", "", s) if letters else s    # 'sin t' over rows t: sin
    s = s.replace(" ", "")                            # (a text table's rule beside its header)
    if SOFTMAX_GRADIENT.fullmatch(s):
        return parse_label("∂L/∂z", vocab)        # p − y: the loss's gradient at the softmax's input
    if s.count("=") == 1 and (lhs := s.partition("=")[0]) and \
            (SOFTMAX_GRADIENT.fullmatch(s.partition("=")[2]) or not re.search(r"\d", s) or
             FIXED_THEN_LETTER.search(lhs) and not re.search(r"\d[.,]\d", s) or
             not re.search(r"\d", re.sub(r"_\{[^{}]*\}|_\w+", "", s.partition("=")[2]))):
        #  ('n_2 = RMSNorm(x_2)': digits only in the formula's subscripts, no figure: the name it defines)
        return _header_label(lhs, vocab, letters)    # '∂L/∂z_{w} = p − y': the name its formula defines
    s = LETTER_LAST.sub(r"_\1", LETTER_INDEX.sub("", FIXED_THEN_LETTER.sub(r"\1\2\3", s))) if letters else s
    if FUNCTION_LABEL.fullmatch(s) and re.match(r"(?:√|sqrt|exp|e\^|ln|log)", s):
        return function_label(s, vocab)
    return parse_label(s, vocab)


def place_in_cell(n, line_figures: list, header: list = ()) -> tuple:
    """(the figure's place among its pipe-table cell's figures, how many figures the cell holds): a cell that
    prints a vector (``| 1 | 0,3300    0,4500 |``) gives each entry its component.

    >>> from symgpt.claims.extract import extract
    >>> figs = extract("| 2 | 0.9087    0.1317 | 0.3885 |")
    >>> [place_in_cell(f, figs) for f in figs]
    [(0, 1), (0, 2), (1, 2), (0, 1)]
    >>> figs = extract("| 2 | 0.6070 | 0.6070 | -0.0655 |")
    >>> [place_in_cell(f, figs, ["", "q", "", "k"]) for f in figs]
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


ENTRY_INDEX = re.compile(r"(?:index|indeks|índice|indice|Index|idx|entry|entrada|Eintrag|élément|elemento|element|"
                          r"komponent|component|Komponente|composante|componente|komponen|bileşen|thành phần|"
                          r"компонента|składowa|složka|分量|成分|성분|[ijk])(?:\s*\$?\s*[ijk]\s*\$?)?", re.I)
"""A pipe table's column of an entry's index beside a parameter's row (``| parameter | komponent | før |``)."""


def indexed_row(n, header: list):
    """A figure whose pipe-table row names a parameter in its first cell and the entry's index in a column headed
    as one ('komponent', 'index', ``i``): the same figure with that entry as its row label (``h.0.ln_1.bias`` and
    1: ``h.0.ln_1.bias[1]``); any other figure as it is.

    >>> from types import SimpleNamespace as N
    >>> f = N(row="`ln_f.bias` (β^f)", line_text="| `ln_f.bias` (β^f) | 4 | 0,1 | 0,0721 |")
    >>> indexed_row(f, ["parameter", "komponent", "før", "etter"]).row, indexed_row(f, ["p", "x", "y", "z"]).row
    ('ln_f.bias[4]', '`ln_f.bias` (β^f)')
    """
    cells = [c.strip() for c in n.line_text.strip().strip("|").split("|")]
    if len(cells) != len(header) or len(cells) < 3 or not n.row:
        return n
    at = [k for k, h in enumerate(header[1:], 1) if ENTRY_INDEX.fullmatch(plain(h).strip().strip("*`"))]
    if len(at) != 1 or not re.fullmatch(r"\d{1,3}(?:\s*,\s*\d{1,3})?", cells[at[0]].strip("`$ ")):
        return n
    out = copy.copy(n)
    name = re.match(r"[`$\s]*([^\s`$(（]+)", n.row)[1]      # (its name, a note in brackets aside: 'ln_f.weight (γ^f)')
    out.row = f"{name}[{cells[at[0]].strip('`$ ')}]"
    return out


def table_label(n, lines: list, vocab, optimizer: str = "") -> Label | None:
    """A pipe table's cell: its row label, its column header, the header's corner cell (``optimizer``: the one
    the text spoke of last, which a step's superscript is of)."""
    if n.kind != "integer" and not n.column and n.width == 1 and n.row and n.line_text.lstrip().startswith("|"):
        lab = _header_label(n.row, vocab, letters=False)   # | ∂L/∂E_{seviyorum,1} | −0,6646 |: a row names its figure
        return lab if lab is not None and lab.index and not prose_word(lab, vocab) else None
    if n.kind == "integer" or not n.column:
        return None
    top, header = table_header(lines, n.line)
    if not top or header and n.column.strip() == header[0]:
        return None
    corner, about = (n.corner or (header[0] if header else "")), f"{n.heading} {optimizer}"
    n = indexed_row(n, header)
    span = _head_span(n, header)
    column = HEAD_PREFIX.sub("", plain(n.column)) if span is not None else n.column   # 'Kopf 1: s=0': s=0
    lab = _stepped_cell(n.row, column, corner, about, vocab) or _bound_cell(n, header, vocab) or \
        cell_label(n.row, column, corner, top, vocab, f"{n.table} {n.heading}".strip(), optimizer) or \
        _headed_row(n, header, top, vocab)
    if lab is not None and span is not None and lab.head is None:
        lab = dataclasses.replace(lab, head=span)    # | Kopf 0: s=0 | s=1 | … | Kopf 1: s=0 | s=1 |: its head's
    if lab is not None and (head := _head_cell(n.line_text, header)) is not None:
        lab = dataclasses.replace(lab, head=head)    # | 2 (gato) | 2 | 0,0159 |: the row's own head column says 2
    lab = with_power_head(lab, n.column)
    example = getattr(vocab, "batch", False) and lab is not None and lab.name not in getattr(vocab, "params", ()) \
        and example_column(n.column)                 # (a mini-batch's z^{(1)}: its first example's, no step's)
    if example:
        return of_example(lab, n.column, vocab)      # | 系列 2 g^{(2)} |, | z^{(2)} |
    step = STEP_SUPERSCRIPT.search(plain(n.column).replace(" ", "").split("_")[0] + " ") \
        if lab is not None and getattr(vocab, "stepped", False) and not lab.state and not lab.ref else None
    if step and (k := int(step["k"] or "⁰¹²³".index(step["s"]))):    # s^{(1)}_{j} of a bigram: after step 1
        lab = dataclasses.replace(lab, state=f"{run_of(about)}[{k}]")
    return lab


HEAD_POWER = re.compile(r"^([qkvosaαeQKVOSA]\u0303?)(?:\^(\d)|([¹²³⁴⁵⁶⁷⁸⁹]))(?=_|$)")
"""An attention quantity with its head as a bare superscript digit (``q^2_t``, ``q~^1_t``): no power."""
def head_power(col: str) -> str:
    """An attention quantity's head written as a bare superscript digit, as a head's mark (``q^2_t``, ``q²_t``:
    ``q^{(2)}_t``, no square); a tilde after its letter as the letter's (``q~`` is q̃, RoPE's rotated q).

    >>> head_power("q^2_t"), head_power("q~^1_t"), head_power("σ^2")
    ('q^{(2)}_t', 'q̃^{(1)}_t', 'σ^2')
    """
    col = re.sub(r"^([qkQK])~", "\\1\u0303", col.strip())
    return HEAD_POWER.sub(lambda m: f"{m[1]}^{{({head_of_power(m[0])})}}", col)


def head_of_power(col: str) -> int | None:
    """The head :func:`head_power` reads in a column's name, as written (None: no such mark).

    >>> head_of_power("q^2_t"), head_of_power("q̃¹_t"), head_of_power("p_t")
    (2, 1, None)
    """
    m = HEAD_POWER.match(col.strip())
    return None if m is None else int(m[2]) if m[2] else "¹²³⁴⁵⁶⁷⁸⁹".index(m[3]) + 1


def with_power_head(lab, col: str):
    """``lab`` with the head its column's bare superscript names (q^2_t: head 2), when it has none."""
    k = head_of_power(re.sub(r"^([qkQK])~", "\\1\u0303", plain(col).strip()))
    return dataclasses.replace(lab, head=k) if lab is not None and k is not None and lab.head is None else lab


HEAD_PREFIX = re.compile(rf"^\s*(?:{HEAD_WORDS})\s*\$?\(?\d+\)?\$?\s*[:：,]?\s*", re.I)
"""A column header that opens a head's run of columns: ``Kopf 1: s=0``, ``head 2, s = 0``."""


def _head_span(n, header: list) -> int | None:
    """The head a pipe-table cell's column is under when the header opens each head's run of columns with its
    mark (``| t | Kopf 0: s=0 | s=1 | Kopf 1: s=0 | s=1 |``): the last mark at or left of its column; None
    where the header opens no two such runs.

    >>> from symgpt.claims.extract import extract
    >>> f = extract("| 2 | 0.27 | 0.44 | 0.42 | 0.34 |")[-1]
    >>> _head_span(f, ["t", "Kopf 0: s=0", "s=1", "Kopf 1: s=0", "s=1"])
    1
    """
    marks = [HEAD_PREFIX.match(plain(h)) is not None and HEAD_MARK.search(plain(h)) for h in header]
    if sum(bool(m) for m in marks) < 2:
        return None
    bars = [i for i, ch in enumerate(n.line_text) if ch == "|"]
    k = sum(b < n.col for b in bars) - (1 if n.line_text.lstrip().startswith("|") else 0)
    for j in range(min(k, len(header) - 1), 0, -1):
        if marks[j]:
            return head_number(marks[j])
    return None


INDEX_COLUMN = re.compile(r"(?:[^\W\d_]{2,}\s+)?([a-z])")
"""A column of an index's values, headed by its letter (``t``, ``s``), after a word for it (``key s``, ``klucz s``)."""
SCRIPT = re.compile(r"_\{([^{}]*)\}|_([a-z])|\[([a-z\d,\s]+)\](?:\[([a-z\d\s]+)\])?")
"""A name's indices: ``_{2,s}``, ``_s``, ``[t, s]``, ``[t][s]``."""


def _bound_cell(n, header: list, vocab) -> Label | None:
    """A cell of a long table, whose first columns hold indices' values and whose header writes a quantity with
    those indices' letters: ``| głowa | klucz s | s^{(h)}_{2,s} |`` over ``| (2) | 1 | 0.9119 |`` is s_{2,1} of
    head 2 (as written: the notation learns origins). None unless every letter of the header's indices is bound.

    >>> from symgpt.claims.extract import extract
    >>> row = "| (2) | 1 | 0.9119 | 0.4018 |"
    >>> f = extract(row)[2]
    >>> f.column = "$s^{(h)}_{2,s}$"
    >>> lab = _bound_cell(f, ["głowa", "klucz $s$", "$s^{(h)}_{2,s}$", "$α^{(h)}_{2,s}$"], [])
    >>> str(lab), lab.head
    ('s[2,1]', 2)
    >>> f = extract("| 1（は） | -0.1705 | 0.3553 |")[-1]
    >>> f.column = "`att[0, 2, s]`"
    >>> str(_bound_cell(f, ["$s$", "スコア", "`att[0, 2, s]`"], []))
    'att[0,2,1]'
    """
    cells = [c.strip() for c in n.line_text.strip().strip("|").split("|")]
    if len(cells) != len(header):
        return None
    bound, head = {}, None
    for h, c in zip(header, cells):
        value = re.fullmatch(r"[(（]?\s*(\d{1,3})\s*[)）]?\s*(?:[(（][^()（）]{1,16}[)）])?", c.strip())
        if value is None:
            break                      # (2), 1, 0（私）: an index's value, a token's name after it
        value = value[1]
        word = plain(h).strip().strip("*`")
        if HEAD_WORD.fullmatch(word):
            head = int(value)
        elif m := INDEX_COLUMN.fullmatch(word):
            bound[m[1]] = value
        else:
            break
    col = head_power(plain(n.column).replace(" ", ""))
    if not bound or head is None and re.search(r"\^\{?\(?[a-z]\)?\}?", col):
        return None
    col = re.sub(r"\^\{?\(?[a-z]\)?\}?(?=_|\[|$|\})", "", col) if head is not None else col   # ^{(h)}: the row's head

    def fill(m) -> str:
        inner = next(g for g in m.groups() if g is not None)
        letters = re.findall(r"[a-z]", ",".join(g for g in m.groups() if g is not None))
        if any(x not in bound for x in letters):
            raise LookupError
        used.extend(letters)
        keys = [bound.get(x.strip(), x.strip()) for g in m.groups() if g is not None for x in g.split(",")]
        return "_{" + ",".join(keys) + "}" if inner else m[0]

    used: list = []
    try:
        col = SCRIPT.sub(fill, col)
    except LookupError:
        return None
    if not used:
        return None                    # (W₁₄ over rows k: a column of one entry, no index the rows bind)
    lab = _header_label(col, vocab, letters=False)
    return dataclasses.replace(lab, head=head) if lab is not None and lab.index else None


def _headed_row(n, header: list, top: int, vocab) -> Label | None:
    """A cell whose row names a head in one cell and its row's index in the next (``| 헤드 2 | 위치 2 | 77.84% |``
    under ``| 헤드 | 쿼리 위치 | 키 1 (나는) |``): the cell the row's index and the column's give, of that head.

    >>> from symgpt.claims.extract import extract
    >>> f = extract("| head 2 | query 3 | 54.53% | 15.96% |")[-1]
    >>> f.column = "key 2"
    >>> lab = _headed_row(f, ["head", "query position", "key 1", "key 2"], 1, [])
    >>> str(lab).split("[")[1], lab.head
    ('3,2]', 2)
    """
    cells = [c.strip() for c in n.line_text.strip().strip("|").split("|")]
    if len(cells) != len(header) or len(cells) < 3:
        return None
    first, second = plain(cells[0]).strip().strip("*`"), cells[1]
    head = HEAD_MARK.fullmatch(first)
    if head is None or _key(second, vocab) is None:
        return None
    lab = cell_label(second, n.column, header[1], top, vocab, n.table)
    return dataclasses.replace(lab, head=head_number(head)) if lab is not None else None


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


STEP_MARK = re.compile(r"^(?P<sym>.+?)(?:_\{?(?P<a>\d)\}?|(?P<a2>[₀₁₂₃])|\^\{?\((?P<b>\d)\)\}?|⁽(?P<c>[⁰¹²³])⁾)$|"
                       r"^(?P<sym2>[θmv]\u0302?)(?P<a3>\d)$")
"""A column header with a step number: ``g_{1}``, ``m̂_1``, ``m₁``, ``θ^{(0)}``, ``θ⁽¹⁾``, and a one-letter symbol's
subscript as a PDF's text lays it flat (``m1``, ``θ0``)."""
ENTRY_WORDS = re.compile(r"\s*,?\s*(?:entry|element|Eintrag|Element|élément|entrée|entrada|elemento|элемент|"
                         r"елемент|prvek|prvku|element|eleman|öğe|phần tử|elemen|στοιχείο|元素|要素|성분|원소|"
                         r"عنصر|איבר)\s*[(\[]([^()\[\]]{1,30})[)\]]\s*$", re.I)
"""An entry named in words after its matrix (``W_Q, entry (1,1)``, ``E, Eintrag (on,1)``): the matrix at those
indices, ``W_Q[1,1]``."""


def entry_words(cell: str) -> str:
    """A header that names an entry in words, as the matrix indexed (any other header as it is).

    >>> entry_words("W_Q, entry (1,1)"), entry_words("E, élément [on, 1]"), entry_words("W_Q")
    ('W_Q[1,1]', 'E[on, 1]', 'W_Q')
    """
    m = ENTRY_WORDS.search(cell)
    return f"{cell[:m.start()].strip()}[{m[1].strip()}]" if m and cell[:m.start()].strip() else cell
NEW_THETA = re.compile(r"(?:θ|w|W|param|value|valor|Wert|valeur)(?:['′]|_\{?new\}?|\^\{?new\}?|\s*nuevo|\s*neu|"
                       r"\s*nouveau|\s*new)", re.I)
"""A column of an entry's value after the step: ``θ'``, ``θ_new``, ``w′``."""
STEP_ROLES = {"Δ": "update", "Δθ": "update", "-Δ": "update", "ηλθ": "decay", "η·λ·θ": "decay", "ηλw": "decay",
              "λθ": "decay"}
"""Column symbols for AdamW's step of an entry (the update η·m̂/(√v̂ + ε)) and its decay (η·λ·θ)."""
GRADIENT_SYMBOLS = frozenset(("g", "grad", "gradient", "∇", "∇θ", "∇_θL", "∂L/∂θ", "dθ", "gradiente", "Gradient",
                              "梯度"))


LOSS_GRADIENT = re.compile(r"(?:∂|d)(?P<loss>[ℓLJl])(?:_?\{?(?P<k>\d)\}?)?/(?:∂|d)(?:θ|w|param\w*)")
"""A column of a loss's gradient over rows of parameter entries: ``∂ℓ₁/∂θ`` (example 1's loss), ``∂J/∂θ``."""


def _gradient_cell(entry: Label, col: str, vocab) -> Label | None:
    """The gradient a column names at a row's parameter entry: ∂L/∂θ the loss's; on a mini-batch ∂ℓ₁/∂θ the first
    example's (the spec's own) and ∂J/∂θ the batch's mean (``sgd[0]``); None for any other column (another
    example's gradient has no name).

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"W"}, {"W"}, batch=True)
    >>> [str(_gradient_cell(Label("W", (1, ("tok", 1))), c, v)) for c in ("∂ℓ_{1}/∂θ", "∂J/∂θ", "∂ℓ_{2}/∂θ")]
    ['grad_W[1,tok1]', 'sgd[0].grad_W[1,tok1]', 'None']
    """
    m = LOSS_GRADIENT.fullmatch(plain(col).replace(" ", "").translate(SUBSCRIPTS))
    if m is None:
        return None
    grad = Label(f"grad_{entry.name}", entry.index)
    if not getattr(vocab, "batch", False):
        return grad
    if m["k"]:
        return grad if m["k"] == "1" else None
    return dataclasses.replace(grad, state="sgd[0]") if m["loss"] == "J" else None


def _nudged_cell(entry: Label, col: str) -> Label | None:
    """A gradient check's loss in a row of a parameter's entry, under a column ``L(θ + h)`` or ``L(θ − h)``:
    the loss with that entry moved up or down by the check's h (read by :meth:`Notation._nudged`)."""
    if not NUDGED.fullmatch(plain(col).strip()):
        return None
    sign = "-" if re.search(r"[-−]\s*\S+\s*[)\]]\s*=?\s*$", plain(col)) else "+"
    return Label(f"loss_at{sign}", entry.index, of=entry.name)


def _stepped_cell(row: str, col: str, corner: str, heading: str, vocab) -> Label | None:
    """A cell of a table whose rows are parameters' entries (``W_{0,come}``) and whose column names a state at
    a step (``θ^{(0)}``, ``g_{1}``, ``m_{1}``, ``v̂_{1}``, ``θ^{(1)}``): that entry's value before the first step
    (step 0), its gradient, its AdamW moments at the step, or its value after the step (AdamW's under a
    heading about Adam, else SGD's).

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"W"}, {"W"})
    >>> [str(_stepped_cell("W_{0,b}", c, "θ", "5. AdamW", v)) for c in ("θ^{(0)}", "g_{1}", "m̂_{1}", "θ^{(1)}")]
    ['W[0,tok1]', 'grad_W[0,tok1]', 'm̂[W,0,tok1]', 'adamw[1].W[0,tok1]']
    >>> _stepped_cell("W_{0,b}", "m̂_{1}", "θ", "", v).ref, _stepped_cell("t = 1", "g_{1}", "", "", v)
    ('adamw[1].mhat[W,0,1]', None)
    >>> [_stepped_cell("W_{0,b}", c, "θ", "AdamW", v).ref for c in ("Δ", "ηλθ^{(0)}")]
    ['adamw[1].update[W,0,1]', 'adamw[1].decay[W,0,1]']
    >>> str(_stepped_cell("W_{0,b}", "θ'", "parámetro", "5. Un paso de AdamW", v))
    'adamw[1].W[0,tok1]'
    >>> [str(_stepped_cell("W_{0,b}", c, "", "7.2 Step 2 adam", v)) for c in ("g_2", "新しい値θ_2", "更新量")]
    ['adamw[1].grad_W[0,tok1]', 'adamw[2].W[0,tok1]', '更新量[W,0,tok1]']
    >>> [str(_stepped_cell("W_{0,b}", "new gradient", "", h, v)) for h in ("SGD", "Step 2, SGD", "Step 3, SGD")]
    ['sgd[1].grad_W[0,tok1]', 'sgd[1].grad_W[0,tok1]', 'sgd[2].grad_W[0,tok1]']

    """
    entry = parse_label(plain(entry_words(row)).replace(" ", ""), vocab)
    entry = param_case(entry, vocab) if entry is not None and entry.index and hasattr(vocab, "params") else entry
    if entry is not None and entry.name not in vocab.params and (own := next(
            (p for p in vocab.params if entry.name in DATA_ALIASES.get(p, ())), None)) is not None:
        entry = dataclasses.replace(entry, name=own)   # `wte[in, 0]`: a module's name for E, as code counts it
        #                                                (not e_{猫,2}: a symbol of the text's, counted its own way)
    if entry is None or not entry.index or entry.name not in vocab.params or entry.state or entry.of:
        return None
    keys = ",".join(str(i[1] if isinstance(i, tuple) else i) for i in entry.index)
    head = re.sub(r"\^\{?\(0\)\}?|⁽⁰⁾", "", plain(col).replace(" ", ""))    # ηλθ^{(0)}: of the weight before
    role = STEP_ROLES.get(head) or STEP_WORDS.get(head.lower())
    said = SECTION_STEP.search(heading)
    at = int(next(g for g in said.groups() if g)) if said else 1          # (a table under 'Step 2': step 2's)
    if role and run_of(heading) == "adamw":              # Δ, ηλθ: AdamW's update and decay of the entry
        return Label(head, entry.index, of=entry.name, ref=f"adamw[{at}].{role}[{entry.name},{keys}]")
    if (nudged := _nudged_cell(entry, col)) is not None:
        return nudged
    if NEW.search(plain(col)) and NEW.sub("", plain(col)).replace(" ", "") in GRADIENT_SYMBOLS:
        return Label(f"grad_{entry.name}", entry.index, state=f"{run_of(heading)}[{max(at - 1, 1)}]")
        #     ('nouveau gradient', 'new gradient': the gradient at the model a step made, not the entry after it;
        #      under step k ≥ 2 the one step k takes, at the model step k − 1 made; else at the model step 1 made)
    if NEW_THETA.fullmatch(plain(col).replace(" ", "")):
        return Label(entry.name, entry.index, state=f"{run_of(heading)}[{at}]")   # θ', θ_new: after the step
    if head in GRADIENT_SYMBOLS:                         # g: the gradient the section's step takes
        return Label(f"grad_{entry.name}", entry.index, state=f"{run_of(heading)}[{at - 1}]" if at > 1 else "")
    m = STEP_MARK.match(plain(col).replace(" ", ""))
    if m is None:
        return None
    k = int(m["a"] or m["b"] or m["a3"] or ("₀₁₂₃".index(m["a2"]) if m["a2"] else "⁰¹²³".index(m["c"] or "⁰")))
    sym = m["sym"] or unicodedata.normalize("NFC", m["sym2"])
    if (worded := re.fullmatch(r"[^\W\d_\u0370-\u03ff]{3,}(θ|w)", sym)) is not None:
        sym = worded[1]                                   # '新しい値 θ_2', 'neuer Wert θ_2': θ after step 2 (not
        #                                                   Δθ_2, ηλθ_2: a step's role)
    if sym in MOMENTS and k >= 1:
        return Label(sym, entry.index, of=entry.name, ref=f"adamw[{k}].{MOMENTS[sym]}[{entry.name},{keys}]")
        #            (the row's indices kept: a table counting from 1 shifts the ref, Notation.resolve)
    if sym in GRADIENT_SYMBOLS and k <= 1:
        return Label(f"grad_{entry.name}", entry.index)
    if sym in GRADIENT_SYMBOLS:                           # g_2: the gradient step 2 takes, at the model step 1 made
        return Label(f"grad_{entry.name}", entry.index, state=f"{run_of(heading)}[{k - 1}]")
    if sym in ("θ", "w", "W", "p", "param", entry.name) or sym == plain(corner).strip():
        if k == 0:
            return Label(entry.name, entry.index)
        return Label(entry.name, entry.index, state=f"{run_of(heading)}[{k}]")
    return None


def _cornered_step(row: str, col: str, corner: str, caption: str, vocab) -> Label | None:
    """A cell of a table of one optimizer step whose number its corner (else its section) states, a row per state
    and a column per entry, or transposed (``第 2 步``, ``Step 3``): θ is the entry before step k, g its gradient
    there, m, v, m̂, v̂, the update and the decay step k's, θ′ the entry after it; None for any other cell.

    >>> from symgpt.claims.symbols import Words
    >>> v = Words(["a", "b"], {"W", "E"}, {"W", "E"})
    >>> [_cornered_step(r, "W[0,b]", "第 2 步", "", v).ref for r in ("m", "v̂", "更新量 η·m̂/(√v̂+ε)", "衰减 η·λ·θ")]
    ['adamw[2].m[W,0,1]', 'adamw[2].vhat[W,0,1]', 'adamw[2].update[W,0,1]', 'adamw[2].decay[W,0,1]']
    >>> [str(_cornered_step(r, "W[0,b]", "Step 3", "AdamW", v)) for r in ("θ", "g", "θ′")]
    ['adamw[2].W[0,tok1]', 'adamw[2].grad_W[0,tok1]', 'adamw[3].W[0,tok1]']
    >>> _cornered_step("m", "W[0,b]", "param", "AdamW", v) is None         # no step said: _stepped_cell's
    True
    >>> [str(_cornered_step("U_{1,b}", c, "θ", "Tabelle 5: AdamW-Schritt t = 2.", v)) for c in ("m_{2}", "θ_{2}")]
    ['m[W,1,tok1]', 'adamw[2].W[1,tok1]']
    """
    said = STEP_COUNT.search(plain(corner)) or (STEP_COUNT.search(plain(caption)) if corner.strip() else None)
    if said is None:
        return None
    k = int(next(g for g in said.groups() if g))
    for state, entry_text in ((row, col), (col, row)):
        entry = param_case(parse_label(plain(entry_text).replace(" ", ""), vocab), vocab)
        if entry is None or not entry.index or entry.name not in vocab.params or entry.state or entry.of:
            continue
        keys = ",".join(str(i[1] if isinstance(i, tuple) else i) for i in entry.index)
        head = plain(state).strip().split()[0] if plain(state).strip() else ""
        sub = re.fullmatch(r"(.+?)(?:_\{?(\d)\}?|([₀-₉]))", head)
        at = (int(sub[2]) if sub[2] else "₀₁₂₃₄₅₆₇₈₉".index(sub[3])) if sub else None
        if at == k and sub[1] not in ("θ", "w"):
            head = sub[1]            # m_{2}, v̂₂, g_2, ∆_2 under 'Schritt t = 2': that step's m, v̂, g, update
        elif at == k and sub[1] in ("θ", "w"):
            head = "θ′"              # θ_2: the entry after step 2
        elif at == k - 1 and sub[1] in ("θ", "w"):
            head = sub[1]            # θ_1 under step 2: the entry step 2 starts from
        role = MOMENTS.get(head) or STEP_ROLES.get(head) or STEP_WORDS.get(head.lower())
        before = f"adamw[{k - 1}]." if k > 1 else ""
        if role:
            return Label(head, entry.index, of=entry.name, ref=f"adamw[{k}].{role}[{entry.name},{keys}]")
        if head in GRADIENT_SYMBOLS:
            return Label(f"grad_{entry.name}", entry.index, state=before.rstrip(".") if before else "")
        if head in ("θ", "w", "param"):
            return Label(entry.name, entry.index, state=before.rstrip(".") if before else "")
        if NEW_THETA.fullmatch(head):
            return Label(entry.name, entry.index, state=f"adamw[{k}]")
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


def text_tables(lines: list, numbers: list, vocab=()) -> dict:
    """figure index → (row label, column header, corner, header line) in tables laid out with spaces:
    a header line of labels over rows whose cells line up under them.  A header cell may be a formula over
    a figure (``p / 0.7074``); a row whose first cell is a rank is keyed by its token cell (``1  私  0.2506``).
    Tables set side by side (:func:`panes`) are read each on its own.

    >>> from symgpt.claims.extract import extract
    >>> text = "      pos    sin    cos\\n       0    0.000  1.000\\n       1    0.841  0.540"
    >>> sorted(text_tables(text.split("\\n"), extract(text)).values())[-1]
    ('1', 'sin', 'pos', 1)
    >>> text = "rank  word   p       p / 0.70\\n 1    cat    0.40    0.5714\\n 2    dog    0.30    0.4286"
    >>> sorted(text_tables(text.split("\\n"), extract(text), ["cat", "dog"]).values())[-1]
    ('dog', 'p / 0.70', 'rank', 1)
    >>> text = ("  E    1     2         P     1     2\\n  a   0.1   0.2      t=1   0.5   0.6\\n"
    ...         "  b   0.3   0.4      t=2   0.7   0.8")
    >>> [v[:2] for _, v in sorted(text_tables(text.split("\\n"), extract(text), ["a", "b"]).items())]
    [('a', '1'), ('a', '2'), ('t=1', '1'), ('t=1', '2'), ('b', '1'), ('b', '2'), ('t=2', '1'), ('t=2', '2')]
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, []).append(n)
    out: dict = {}
    for pane, cols in panes(lines, at):
        out.update(_one_pane(pane, {no: [n for n in figs if cols(no, n.col)] for no, figs in at.items()}, vocab))
    return out


def panes(lines: list, at: dict) -> list:
    """The text as panes of tables set side by side (a PDF's ``E`` table beside its ``P`` table): where at least
    two rows of a block go on, after their figures, with a row label of a second table (``t = 1   0.1 …``), the
    block splits at the river of white space they share; each pane is the lines with the other's columns
    blanked, and with which figures (line, column) it keeps.  Without such rows: the text whole.

    >>> lines = ["E   1    2       P    1    2", "a  0.1  0.2     t=1  0.5  0.6", "b  0.3  0.4     t=2  0.7  0.8"]
    >>> from symgpt.claims.extract import extract
    >>> at = {}
    >>> for n in extract("\\n".join(lines)): at.setdefault(n.line, []).append(n)
    >>> [p[0] for p, _ in panes(lines, at)]
    ['E   1    2                  ', '                 P    1    2']
    """
    inner = {}                           # line → the gap before its second table's row label
    for no, figs in at.items():
        cells = _cells_at(lines[no - 1])
        has = [any(a <= n.col < b for n in figs if n.kind != "integer") for a, b, _ in cells]
        for k in range(1, len(cells) - 1):
            if has[k - 1] and not has[k] and any(has[k + 1:]) and cells[k][0] - cells[k - 1][1] >= 3 and \
                    not re.search(r"[=≈:：]\s*$|^[=≈]", cells[k][2]) and re.search(r"[^\W\d_]", cells[k][2]):
                inner[no] = (cells[k - 1][1] + 1, cells[k][0])
                break
    splits = []
    for no in sorted(inner):
        lo, hi = inner[no]
        if splits and no - splits[-1][3] <= 2 and max(lo, splits[-1][0]) < min(hi, splits[-1][1]):
            first, last = splits[-1][2], no
            splits[-1] = (max(lo, splits[-1][0]), min(hi, splits[-1][1]), first, last, splits[-1][4] + 1)
        else:
            splits.append((lo, hi, no, no, 1))
    out_splits = []
    for lo, hi, first, last, count in splits:
        if count < 2:
            continue
        for step in (-1, 1):                  # the block's other lines: while the river runs through them
            no, blanks = (first if step < 0 else last) + step, 0
            while 1 <= no <= len(lines) and blanks < 2:
                line = lines[no - 1]
                if not line.strip():
                    blanks += 1
                else:
                    free = [c for c in range(lo, hi) if c >= len(line) or line[c] == " "]
                    runs = [r for r in _runs(free) if r[1] - r[0] >= 2]
                    if not runs:
                        break
                    lo, hi = max(runs, key=lambda r: r[1] - r[0])
                    blanks = 0
                    first, last = (no, last) if step < 0 else (first, no)
                no += step
        out_splits.append((lo, first, last))
    if not out_splits:
        return [(lines, lambda no, col: True)]

    def split_at(no):
        return next((lo for lo, first, last in out_splits if first <= no <= last), None)

    left = [line if (c := split_at(no)) is None else line[:c].ljust(len(line)) for no, line in enumerate(lines, 1)]
    right = ["" if (c := split_at(no)) is None else " " * c + line[c:] for no, line in enumerate(lines, 1)]
    return [(left, lambda no, col: (c := split_at(no)) is None or col < c),
            (right, lambda no, col: (c := split_at(no)) is not None and col >= c)]


def _runs(columns: list) -> list:
    """Consecutive runs of columns as [start, end) pairs."""
    out = []
    for c in columns:
        if out and out[-1][1] == c:
            out[-1][1] = c + 1
        else:
            out.append([c, c + 1])
    return [tuple(r) for r in out]


def _one_pane(lines: list, at: dict, vocab) -> dict:
    """:func:`text_tables` of one pane."""
    out: dict = {}
    header, top, matrix, row_at, spaced, seen_rows = None, 0, "", 0, False, {}
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
                (marks or not re.search(r"[=≈:：]", line) or _defining(cells)) and not RULE_LINE.fullmatch(line):
            grouped = header is not None and top == no - 1 and _grouped(header, cells)
            header, top = grouped or cells, no       # labels only: a header, if rows follow
            continue
        if header is None or len(cells) < 2 or not any(has_figure):
            if not line.strip() and (top == no - 1 or spaced and row_at == no - 1):
                continue                              # a rule under the header (booktabs in a PDF): a blank line;
            #                                           and, in a table whose rows are all set apart so, one
            header = None if not line.strip() or len(cells) < 2 else header
            continue
        if row_at == no - 2 and top < row_at and len(cells) not in (len(header), len(header) + 1):
            header = None                             # after a blank line, a row of other cells: another block
            continue
        spaced = spaced if top < row_at else top == no - 2 and not lines[no - 2].strip()
        row_at = no                                   # (the first row after a blank under the header: a PDF's)
        corner = header[0][2] if len(header) == len(cells) and header[0][2].strip() not in vocab else ""
        first = min((n.col for n in figs if n.kind != "integer" and cells[0][0] < n.col < cells[0][1]), default=None)
        glued = first is not None and re.search(r"[\[(|]\s*$", line[:first])   # '∇_W ℒ = i=1 [ 0.1240   0.0745'
        if glued:
            said = line[cells[0][0]:first].rstrip(" [(|")
            name, _, key = said.rpartition(" = ") if " = " in said else (matrix, "", said)
            matrix, corner = name.strip(), name.strip()
        label = _row_key(cells, figs, vocab, header[0][2]) if not glued else ""
        if label and (top, label) in seen_rows and seen_rows[top, label] != no:
            continue                                  # a row label printed twice in one table (m_2 over m_2: a PDF's
            #                                           text lost a hat, m̂_2): which row is which is not said
        seen_rows.setdefault((top, label), no)
        merged = any(GLUED_CELL.fullmatch(t.strip()) for *_, t in cells)
        #        (two figures one space apart, '0,3046 -0,7228', are one cell: the order of cells counts no column)
        for n in figs:
            if n.kind == "integer" or n.col < cells[0][1] and not glued:
                continue                              # the row's label itself
            k = next((i for i, (a, b, _) in enumerate(cells) if a <= n.col < b), None)
            trailing = len(cells) == len(header) + 1 and header[0][0] < cells[0][1]   # (a remark after the row)
            if k is not None and len(cells) in (len(header), len(header) + 1) and not merged and not trailing:
                k -= len(cells) - len(header)     # by order: pdftotext keeps it, not the columns (ŷ_{j} is wide)
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
            if k is not None and re.search(r"[^\W\d][\w)\]}']*\s*\)?\s*[=≈]\s*$", line[cells[k][0]:n.col]):
                continue      # (a cell that names its figure, '(p(mange) = 0,2201)': its own equation's)
            out[n.index] = (key.strip() if glued else label, col[2], corner, top)
    return out


def _grouped(groups: list, cells: list) -> list | None:
    """A header line of indices under a line that names a quantity over each run of them (``q  k`` over
    ``t  [0]  [1]  [0]  [1]``): each index under its nearest name, as that name's entry (``q[1]``); the first
    cell, the rows' own label, stays. None unless every cell after the first is an index and every name a label.

    >>> _grouped([(8, 9, "q"), (26, 27, "k")], [(0, 1, "t"), (5, 8, "[0]"), (12, 15, "[1]"), (22, 25, "[0]"),
    ...                                         (30, 33, "[1]")])
    [(0, 1, 't'), (5, 8, 'q[0]'), (12, 15, 'q[1]'), (22, 25, 'k[0]'), (30, 33, 'k[1]')]
    >>> _grouped([(0, 4, "head 1")], [(0, 1, "t"), (5, 8, "[0]")]) is None
    True
    """
    index = [re.fullmatch(r"\[?(\d{1,3})\]?|(?:dim|col(?:umn)?|i|j)\s*=?\s*(\d{1,3})", plain(t).strip())
             for *_, t in cells[1:]]
    if len(cells) < 3 or not all(index) or len(groups) < 1 or \
            not all(re.fullmatch(r"[^\W\d_][\w'^̂̃]*", plain(t).strip()) for *_, t in groups):
        return None
    out = [cells[0]]
    for (a, b, _), m in zip(cells[1:], index):
        g = min(groups, key=lambda h: abs(h[0] + h[1] - a - b))
        out.append((a, b, f"{plain(g[2]).strip()}[{m[1] or m[2]}]"))
    return out


def _defining(cells: list) -> bool:
    """A header line whose cells name their columns by a formula (``passo   L = −ln p̂_mangia   p̂_mangia``): its
    first cell a plain label, the others a name or ``name = formula`` without a figure.

    >>> _defining([(0, 5, "passo"), (10, 27, "L = −ln p̂_mangia"), (32, 40, "p̂_mangia")])
    True
    >>> _defining([(0, 1, "x"), (11, 30, "= E[parola]")]), _defining([(0, 3, "a:"), (5, 9, "b = c")])
    (False, False)
    """
    first, rest = cells[0][2], [t for *_, t in cells[1:]]
    return not re.search(r"[=≈:：]", first) and \
        all(re.fullmatch(r"[^=≈:：\d]{1,12}?\s*=\s*[^=≈:：]+|[^=≈:：]+", t.strip()) or
            re.fullmatch(r"[^=≈:：]{1,12}?\s*=\s*[^=≈:：]+", t.strip()) and not re.search(r"\d[.,]\d", t)
            for t in rest)      # ('s(3,j) = q_3·k_j/√2': a name with a fixed index, its formula; no figure)


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


def _indexed(cell: str, vocab) -> bool:
    """Whether a cell names one entry of a tensor (``E_{bebe,1}``, ``(W_k)_{2,3}``, ``W[0, a]``)."""
    lab = parse_label(plain(cell).replace(" ", ""), vocab)
    return lab is not None and lab.name != "token" and (len(lab.index) >= 2 or "[" in cell and bool(lab.index))
    #      (W_1 alone, 'W[1]' read from a module's name, is no entry)


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
    entries = [t for a, _, t in cells[1:] if a < start and _indexed(t, vocab)]
    if len(entries) == 1 and re.fullmatch(r"[A-Za-z_][\w.]*", first.strip()) and not _indexed(first, vocab):
        return entries[0]     # 'k_proj  (W_k)_{2,3}  −0,2617': the entry, beside the module it belongs to
    tokens = [t for a, _, t in cells[1:] if a < start and t.strip().strip("「」\"'`") in vocab]
    if len(tokens) == 1 and re.fullmatch(r"[-–—#.*]|\d+\.?|[(（]?\d+[)）]?", first.strip()):
        return tokens[0].strip().strip("「」\"'`")
    return first
