"""Shares said in prose: a percentage beside a token (``„laut“ mit 18.73 %``), the weight one token's query
gives another (``« mange » consacre 47,32 % de son attention à « le »``), a query's share for itself."""
from __future__ import annotations

import dataclasses
import re

from .aliases import DATA_ALIASES, PROSE, prose_name
from .marks import row_mark
from .symbols import Label

QUOTES = "'\"«»“”„‘’「」『』‹› \u00a0"
"""The marks a token may be quoted in, in any language (and the spaces inside French guillemets)."""


ATTENTION = re.compile(r"attention|attend|\bheads?\b|\bscores?\b|α|注意力|Aufmerksamkeit|\bKopf|tête|atenção|"
                       r"attenzione|atención|\btesta\b|внимани|어텐션|주의|アテンション|ヘッド|注意|chú ý|"
                       r"\buwag|głowic|\bdikkat|\bkafa|aandacht|\bkop\b|ध्यान|हेड|perhatian|\bkepala\b|\bувага|\bуваги|"
                       r"uppmärksamhet|opmærksomhed|oppmerksomhet|\bhuvud|الانتباه|انتباه|\bرأس|\bhuomio|\bpään?\b|"
                       r"figyelem|pozornost|προσοχή|\baten[tţț]i",
                       re.I)


CUMULATIVE = re.compile(r"累积|累计|累加|cumul|kumul|acumul|накоплен|totale? (?:parziale|cumulé)|running total|"
                        r"in total|insgesamt|au total|en total|합계|누적|累積|مجموع|المجموع|סכום|ผลรวม|योग|toplam|"
                        r"summa|sum(?:me|men)?\b|somme|suma|somma|сумма", re.I)
"""A word that says a figure after a token is the running total of the shares up to it (a top-p paragraph's)."""
RUNNING = re.compile(r"累积|累计|累積|누적|cumul|kumul|acumul|накоплен|dystrybuant|\bCDF\b|Verteilungsfunktion|"
                     r"répartition|running total", re.I)
"""A sentence on the running total, the distribution function ('dystrybuanta … 0,7285 po «psa»'): a figure
before a token is the total through it."""
ADDING = re.compile(r"加上|加入|算上|再加|足す|加えると|더하면|"
                    r"\b(?:adding|add|plus|ajoutant|sumando|añadiendo|aggiungendo|somando|adicionando|добавив|"
                    r"прибавив|hinzu\w*|dazu|toevoegen|menambahkan|ekleyince|lisäämällä)\b|"
                    r"اضافه|إضافة|בהוספת|เพิ่ม|जोड़", re.I)
"""A word before a token that says the figure after it is a sum with the token's share added ('加上「吃」之后是
0.8018', 'adding “eat” gives 0.8018'), not that token's share."""


def token_share(n, vocab, start: int) -> Label | None:
    """A percentage beside one token in its clause: ``„laut“ mit 18.73 %``, ``34.2 % on the``, ``*jumps* (3.79%)``:
    that token's share (the section's distribution learns which: p, a top-k's or a temperature's).

    >>> from symgpt.claims.extract import extract
    >>> [str(token_share(n, ["the", "jumps"], 0)) for n in extract("would say *jumps* (3.79%), 「the」（0.5%）")]
    ['token[tok1]', 'token[tok0]']
    >>> [str(token_share(n, ["the", "sun"], 0)) for n in extract("back at *the* and *sun* (41.6% and 4.34%)")]
    ['None', 'None']
    >>> [str(token_share(n, ["吃"], 0)) for n in extract("加上「吃」之后是 80.18%，「吃」是 26.13%")]
    ['None', 'token[tok0]']
    >>> [str(token_share(n, ["ik", "koffie"], 0)) for n in extract("De logit van *koffie* springt van 0.1551")]
    ['logits[tok1]']
    >>> text = "*Milch* ist mit 28,05 % hinter *trinkt* (33,5 %)"
    >>> [str(token_share(n, ["Milch", "trinkt"], 0)) for n in extract(text)]
    ['token[tok0]', 'token[tok1]']
    """
    rest = n.line_text[n.col + len(n.text):]
    if BOUND_BEFORE.search(n.line_text[start:n.col]):
        return None                        # '« le » et « chat » tombent sous 0,5 %': a bound, no one's share
    paren = PAREN_AFTER_TOKEN.search(n.line_text[start:n.col])
    if paren and paren[1] in vocab and re.match(r"\s*[)）]", rest):   # (one figure: '(41.6% and 4.34%)' lists two)
        return Label("token", (("tok", vocab.index(paren[1])),))    # '*jumps* (3.79%)': the word the brackets follow
    after = AND.split(re.split(r"[,;:.!?)\]]|[，；：。、]|\s[—–]\s", rest)[0])[0][:40]   # ('57,4% và «sữa» …': sữa's
    #                                                                   own; not '23.94 % — with «над»', an aside's)
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
        if side == "after" and len(words) == 1 and not _quoted(text, words[0]) and \
                re.search(rf"(?<![\w]){re.escape(words[0])}\s+[-−]?\d", rest):
            words = []                     # 'from 54.59% to 4.559%': the range's 'to', not the token 'to'
        if side == "after" and len(words) == 1 and \
                re.search(rf"(?<![\w]){re.escape(words[0])}[*_\"'»”」`]*\s*[(（]\s*[-−]?\d", rest):
            words = []                     # '*Milch* ist mit 0,2805 nur Zweiter hinter *trinkt* (0,3350)': the
            #                                word after it has its own figure, in brackets
        plain_word = set_off is not None and words and not _quoted(text, words[0])
        if len(words) == 1 and _beside(text, words[0], side) and not plain_word:
            if side == "after" and RUNNING.search(re.split(r"[.!?](?:\s|$)|。", n.line_text[:n.col])[-1]):
                return None                # 'the CDF is 0,5892 after «kota» and 0,7285 after «psa»': a running
                #                            total through that token, not its share
            if side == "before" and (CUMULATIVE.search(text.rpartition(words[0])[2]) or
                                     ADDING.search(text.rpartition(words[0])[0][-12:])):
                return None                # '加上“喝”以后累积到 0.8688', '加上「吃」之后是 0.8018': the running
                #                            total up to it, not its share
            lead = prose_name(re.sub(r"[\"'«»„“”*_‘’「『\s]+$", " ", text.rpartition(words[0])[0])) \
                if side == "before" and n.kind != "percent" else None
            if lead is not None and lead.lower() in ("logit", "logits"):
                return Label("logits", (("tok", vocab.index(words[0])),))    # 'the logit of *koffie* … 0.1551'
            return Label("token", (("tok", vocab.index(words[0])),))
        if words and set_off is None:
            return None                    # (an unquoted token that is also a word, 'il', yields to a quoted one)
    return Label("token", (("tok", set_off),)) if set_off is not None else None


PAREN_AFTER_TOKEN = re.compile(r"(?<![\w])[*_\"'«“„「`]*(\w+)[*_\"'»”」`]*\s*[(（]\s*$")
"""A word, maybe set in emphasis or quotes, with the figure in brackets right after it (``*jumps* (3.79%)``)."""
BOUND_BEFORE = re.compile(r"(?:\bbelow|\bunder|\bless than|\bmore than|\babove|\bover|\bpast|\bbeyond|\bexceeds?|"
                          r"\bsous|au-dessous de|"
                          r"au-dessus de|moins de|plus de|\bunter|\büber|weniger als|mehr als|menos de|más de|"
                          r"por debajo de|\bsotto|meno di|più di|abaixo de|acima de|ниже|меньше|больше|低于|高于|"
                          r"不到|超过|未満|以下|以上|미만|이하|이상)\s*$", re.I)
"""Words before a percentage that make it a bound ('below 0.5 %'), not a token's share."""


def parallel(n, line_figs, out: dict, token: Label) -> Label | None:
    """A token's figure in a clause set beside one that names its symbol for another token: the same symbol
    for this one (``"gato" tem z_gato = 0,08 e "." tem 0,03``: z of '.'); the clause before it first, else the
    clause after it in the same sentence.

    >>> from symgpt.claims.extract import extract
    >>> a, b = extract('"gato" tem z_gato = 0.08 e "." tem 0.03.')
    >>> str(parallel(b, [a, b], {a.index: Label("z", (("tok", 0),))}, Label("token", (("tok", 3),))))
    'z[tok3]'
    >>> a, b = extract('「ねこ」の 1.1892、「が」は z_が = 0.4558 です。')
    >>> str(parallel(a, [a, b], {b.index: Label("z", (("tok", 3),))}, Label("token", (("tok", 0),))))
    'z[tok0]'
    """
    start = len(re.split(r"[.!?](?:\s|$)|。", n.line_text[:n.col])[-1])
    end = n.col + len(re.split(r"[.!?](?:\s|$)|。", n.line_text[n.col:])[0])
    beside = [m for m in line_figs if m is not n and n.col - start <= m.col < end and m.index in out]
    earlier = [m for m in beside if m.col < n.col]
    later = [m for m in beside if m.col > n.col]     # (「ねこ」の 1.1892、「が」は z_が = 0.4558: the clause after it)
    lab = out[earlier[-1].index] if earlier else out[later[0].index] if later else None
    if lab is None or len(lab.index) != 1 or not (isinstance(lab.index[0], tuple) and lab.index[0][0] == "tok") or \
            lab.index == token.index or lab.name == "token" or lab.of or lab.state or lab.fn:
        return None
    return dataclasses.replace(lab, index=token.index)


def _quoted(text: str, token: str) -> bool:
    return re.search(rf"{OPEN}\s?{re.escape(token)}\s?{CLOSE}", text) is not None


OPEN, CLOSE = "[«\"“„'‘「『`*]", "[»\"”“'’」』`*]"        # (and Markdown's emphasis, *Hund*)
"""The marks a token is quoted in: « », “ ”, „ “, 「 」, ` `, ' '."""


def prose_word(lab: Label, vocab) -> bool:
    """Whether a label is only a word of the prose before an equation ('chuẩn hóa: 0,2797 / 0,9 = …'), no
    name the model, its aliases or the prose words know: a quoted token before it may still say whose share
    it is."""
    return not (lab.index or lab.of or lab.state or lab.ref or lab.inner is not None) and \
        re.fullmatch(r"[^\W\d_]{3,}", lab.name) is not None and lab.name not in getattr(vocab, "names", ()) and \
        lab.name.lower() not in PROSE and not any(lab.name in a for a in DATA_ALIASES.values())


def quoted_token(text: str, vocab) -> str | None:
    """The token quoted last in a text's last clause, with no figure after it (the text before a chain of
    arithmetic: '… Ví dụ “em” sau khi chuẩn hóa: '), else None."""
    clause = re.split(r"[;!?。；]|\.\s|\d", text)[-1]
    found = [(m.start(), t) for t in vocab for m in re.finditer(rf"{OPEN}\s?{re.escape(t)}\s?{CLOSE}", clause)
             if not _owned(clause[m.end():])]         # (not '"오늘"의 제곱합은 0.13^2 + …': its sum of squares)
    return max(found)[1] if found else None


def _owned(after: str) -> bool:
    """Whether a token's possessive and a noun that is no share follow it (``의 제곱합``, ``'s logit``)."""
    owned = POSSESSIVE.match(after)      # (a share's word among the next few: 'の予測確率', "'s predicted probability")
    return bool(owned) and not any(c in w for w in re.findall(r"[^\W\d_]+", owned[1].lower()) for c in CHANCE)


def quoted_before(n, vocab) -> bool:
    """Whether a token in quotes stands just before a decimal (``"I" with 0.2621``): a decimal is a token's share
    only so, where a percentage needs no quotes."""
    before = re.split(r"[,;!?(\[]|[，；。、]|(?<!\w)\d", n.line_text[:n.col])[-1]
    of = re.search(rf"(?<![^\W\d_])([^\W\d_]+)\s+(?:of|de|von|del|di|du|des|della|do|da)\s*{OPEN}", before)
    if of and of[1].lower() not in SHARE_WORDS:
        return False                   # 'rms of "the" was only 0.2739': another quantity of the token's position
    return any((m := re.search(rf"{OPEN}\s?{re.escape(t)}\s?{CLOSE}[^=:：^{{}}()\[\]<>≈]*$", before)) and
               not _owned(before[m.start():].split(t, 1)[1].lstrip("\"'»”」』*_` ")) for t in vocab)
    #          (not '“bebe”: e^{−0.3864}': a formula of its own follows the token)


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


ARTICLES = frozenset({"the", "a", "an", "der", "die", "das", "le", "la", "les", "el", "il", "lo", "o", "de", "het",
                      "een", "un", "une", "uno", "una"})
"""Articles, which a vocabulary of words may hold: before a noun in prose they are no token."""


POSSESSIVE = re.compile(r"[\"'»”」』*_`]*\s*(?:의|の|的|['’]s)\s*((?:[^\W\d_]+\s*){1,3})")
"""A token's possessive right after it, and the noun it owns: ``"오늘"의 제곱합``, ``「猫」の確率``,
``*cat*'s logit``."""


def _beside(text: str, token: str, side: str) -> bool:
    """Whether only linking words (:data:`LINKING`) stand between the figure and the token: 'the uniform 20 %'
    is no share of the token 'the'."""
    k = list(re.finditer(rf"(?<![\w]){re.escape(token)}(?![\w])", text))
    between = text[k[-1].end():] if side == "before" else text[:k[0].start()]
    words = re.findall(r"[^\W\d_]+", between)
    quoted = _quoted(text, token)
    if side == "before" and _owned(between):
        return False                  # '"오늘"의 제곱합은 0.5594', «кот»'s norm: another quantity of the token's
    if side == "after" and not quoted and re.match(r"\s+[^\W\d_]{2,}", text[k[0].end():]) and \
            token.lower() in ARTICLES:
        return False                  # '38.09% of the mass': the article before a noun, not the token 'the'
    chance = sum(w.lower() in CHANCE for w in words)
    return all(w.lower() in LINKING or w.lower() in CHANCE for w in words) and len(words) <= 2 + chance or \
        quoted and len(words) <= 6
    #      (a token in quotes is named as one: «спит» приходится уже 3,38 %; *duerme* le sigue de cerca con un 2,7 %)


def attention_share(n, vocab, start: int, above: str = "", below: str = "") -> Label | None:
    """A percentage beside one token of the input in a paragraph on attention (``34.2 % on the``): the weight
    the query puts on that token's position (the position its line or section speaks of, else the last); the
    query's own share when the words after it say 'itself' (``24.96% para ela mesma``); and where a token
    before it gives the share to a token after it (``« mange » consacre 47,32 % de son attention à « le »``,
    the sentence going on below), the first token's query's weight on the second's key."""
    seq = vocab.sequence
    wrapped = (above.rstrip().splitlines() or [""])[-1] + " " if above.strip() else ""   # (På rad ⏎ $2$ tittar …)
    sentence = re.split(r"[.!?](?:\s|$)|。", wrapped + n.line_text[:n.col])[-1]
    #          (位置 0 … 。看最后一行：… 20.4%: not 0)
    said = row_mark(sentence, anywhere=True) if n.position is None else None
    said = row_mark(above, anywhere=True) if said is None and n.position is None else said
    t = n.position if n.position is not None else said     # (位置 2 から見ると、… on the line above)
    t = t if t is not None and seq and t < len(seq) else ("at", t - 1) if t == len(seq) else ("at", len(seq) - 1)
    #   (position T can only count from 1: the last; a lower one's origin is learned)
    #   (a position as the text writes it, its origin learned; the last place, and a key's, from 0)
    after = re.split(r"[,;.!?)\]]|[，；。、]", n.line_text[n.col + len(n.text):] + " " + below)[0][:40]
    if seq and SELF.search(after):
        query = _querying(wrapped + n.line_text[:n.col], seq) if said is None and n.position is None else None
        t = ("at", seq.index(query)) if query is not None else t    # ('*der* schaut zu 100 % auf sich selbst')
        return Label("A", (t, t))
    k = row_mark(after, anywhere=True) if said is not None and n.position is None else None
    if k is not None and seq:            # 'Paikka 3 … 4,932 % painolla paikkaan 2': query 3's weight on key 2,
        return Label("A", (t, ("at", k - 1) if said == len(seq) else k))     # both counted as the sentence counts
    lab = token_share(n, vocab, start)
    if lab is None or not seq:
        return None
    word = vocab[lab.index[0][1]]
    given = GIVEN_TO.match(n.line_text[n.col + len(n.text):] + " " + below) or \
        GIVEN_NEXT.match(n.line_text[n.col + len(n.text):] + " " + below)
    if given and given[1] in seq and seq.count(given[1]) == 1:
        query = word if word in seq and seq.count(word) == 1 and re.search(
            rf"{OPEN}\s?{re.escape(word)}\s?{CLOSE}(?=[^\d{OPEN[1:-1]}]*?[^\W\d_])[^\d{OPEN[1:-1]}]*$",
            n.line_text[start:n.col]) else _querying(wrapped + n.line_text[:n.col], seq)
        #     (« mange » consacre 47,32 % à « le »: a verb between; not '… to “a”, 25.37% to “b”', a list's items)
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
    >>> _querying("Sana *c* jakaa: 34,1 % menee sanalle *a*, 29,9 % sanalle *b* ja ", ["a", "b", "c"])
    'c'
    >>> _querying("In head 1 the word *b* looks back: 60.6 % goes to *a* and ", ["a", "b"])
    'b'
    """
    sentence = re.split(r"[.!?](?:\s|$)|[。；;！？]", left)[-1]
    for m in reversed(list(re.finditer(rf"{OPEN}\s?([^\s{OPEN[1:-1]}{CLOSE[1:-1]}]+)\s?{CLOSE}", sentence))):
        if re.search(rf"{GIVEN_WORDS}\s*$", sentence[:m.start()], re.I) or \
                re.search(r"\d\s*%?\s*(?:[^\W\d_]{1,4}\s+)?$|(?:\d[.,]\d+\s*%?|\d\s*%)\s*(?:[^\W\d_]+\s+){1,3}$",
                          sentence[:m.start()]):
            continue                     # 给「小猫」, à « le », '0.3414 pe "pisica"', '29,9 % sanalle *juo*': a key
            #                              given a share (a few words between: Finnish says 'to' by a case ending)
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


def token_colon(n, vocab) -> tuple | None:
    """The token a figure follows with a colon (``ест: 0.1650``, « le » : 0,12), as an index; else None.

    >>> from symgpt.claims.extract import extract
    >>> [token_colon(f, ["кот", "ест"]) for f in extract("кот: 0.2747   ест: 0.1650   x: 0.5")]
    [(('tok', 0),), (('tok', 1),), None]
    """
    m = re.search(r"(\S+)\s*[:：]\s*$", n.line_text[:n.col])
    word = m[1].strip(QUOTES) if m else None
    return (("tok", vocab.index(word)),) if word in vocab else None
