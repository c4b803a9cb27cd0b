"""What code and prose call the model's tensors, beside their own names: the words
:mod:`symgpt.claims.notation` reads as a name without a vote, and :mod:`symgpt.claims.labels` as a name in
prose (``its variance 1.053``).

>>> "variance" in DATA_ALIASES["var1"], "verlust" in PROSE
(True, True)
"""
import re

MEAN = ("μ", "mu", "mean", "Mittelwert", "moyenne", "media", "média", "gemiddelde", "średnia", "medelvärde",
        "middelværdi", "gjennomsnitt", "ortalama", "среднее", "průměr", "trung bình", "rata-rata", "均值", "平均值",
        "平均", "평균")
VARIANCE = ("σ²", "var", "variance", "σ^2", "sigma²", "sigma^2", "Varianz", "varianza", "variância", "variantie",
            "wariancja", "varians", "varyans", "дисперсия", "rozptyl", "phương sai", "方差", "分散", "분산")
"""The mean and the variance, by language (σ² in ASCII: sigma^2)."""
DATA_ALIASES = {         # what code and prose call the model's tensors (beside their own names and ALIASES)
    "p": ("probs", "prob", "probabilities", "probability", "P", "softmax", "y_hat", "ŷ", "p_hat"),
    "logits": ("z", "ℓ", "logit", "scores"), "z": ("logits", "logit", "scores", "ℓ"),
    "loss": ("L", "l", "ℓ", "loss", "J", "CE", "ℒ", "L̄", "J̄", "损失", "nll", "Verlust", "perte", "perda", "pérdida",
             "perdita", "strata", "kayıp", "verlies", "потеря", "потери", "損失", "손실", "kerugian", "हानि", "लॉस"),
    "x": ("x", "emb", "e", "h"), "X": ("x", "X", "h", "H", "emb"),
    "A": ("α", "attn", "attention", "weights", "a"), "S": ("scores", "score", "s"),
    "mu1": MEAN, "var1": VARIANCE,
    "mu2": MEAN, "var2": VARIANCE, "mu_f": MEAN, "var_f": VARIANCE,
    "ms1": ("ms", "mean_sq"), "ms2": ("ms", "mean_sq"), "ms_f": ("ms", "mean_sq"),   # RMSNorm's mean of squares
    # the weights by GPT-2's, nanoGPT's and Llama's module names, where the name says which one (c_proj does not)
    "E": ("wte", "tok_emb", "embed_tokens"), "W_pe": ("wpe", "pos_emb"),
    "W_Q": ("q_proj", "W_q"), "W_K": ("k_proj", "W_k"), "W_V": ("v_proj", "W_v"), "W_O": ("o_proj", "W_o"),
    "W_1": ("W_fc", "c_fc", "W_gate", "gate_proj"), "b_1": ("b_fc",), "W_2": ("W_pr", "W_down", "down_proj"),
    "b_2": ("b_pr",), "W_3": ("W_up", "up_proj"),
    "Q_rot": ("q̃", "Q̃", "q_rot", "q_rope"), "K_rot": ("k̃", "K̃", "k_rot", "k_rope"),   # q and k turned by RoPE
    "rope.sin": ("sin", "sinθ", "sin_t"), "rope.cos": ("cos", "cosθ", "cos_t"),      # RoPE's angles' table
}

HEAD_NAMES = ("W_out", "W_U", "W_unembed", "W_vocab")
"""What a tutorial calls the output matrix as x·W multiplies it (d × V): a tied model's is Eᵀ, so these spell E, read
transposed (not lm_head: PyTorch keeps its weight V × d, as E)."""

QUERY_WORDS = ("query", "queries", "쿼리", "クエリ", "查询", "requête", "Anfrage", "consulta", "interrogazione",
               "запрос", "sorgu", "zapytanie", "truy vấn", "vraag", "kueri", "fråga", "spørring", "forespørgsel",
               "kysely", "lekérdezés", "dotaz", "interogare", "ερώτημα", "שאילתה", "پرسش", "استعلام", "คิวรี")
KEY_WORDS = ("key", "keys", "키", "キー", "键", "clé", "Schlüssel", "clave", "chiave", "chave", "ключ", "anahtar",
             "klucz", "khóa", "sleutel", "kunci", "nyckel", "nøkkel", "nøgle", "avain", "kulcs", "klíč", "cheie",
             "κλειδί", "מפתח", "کلید", "مفتاح", "คีย์")
"""A query and a key of attention, by language: a score table's axes ('nøkkel 2', 'spørring 3')."""


def alternation(words) -> str:
    """Words as one regular-expression alternation, the longest first (so 'keys' before 'key').

    >>> alternation(("key", "keys", "clé"))
    'keys|key|clé'
    """
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


PROSE = frozenset(w.lower() for w in (*MEAN, *VARIANCE, *DATA_ALIASES["loss"], "probability", "logit")
                  if len(w) > 1 and w.replace(" ", "").replace("-", "").isalpha() and not w.isascii() or len(w) > 2
                  and w.isalpha())    # the words prose puts right before a figure: 'its variance 1.053'
IS_WORDS = ("is", "equals", "ist", "beträgt", "est", "vaut", "es", "vale", "è", "é", "wynosi", "равн[аоы]", "olur",
            "este", "είναι", "egyenlő", "adalah", "ialah")
"""The verb 'is' between a name and its value, by language (a pattern each: ``равн[аоы]``)."""
PROSE_COPULAS = ("jest", "är", "blir", "er", "bedraagt", "равен", "составляет", "je", "činí", "bằng", "là", "sebesar")
"""More words for 'is', read only after a quantity's word ('tapet er 2,13'): after a name they may say something
else ('För W[0,glows] blir steget …': the step becomes, not W; German 'er', French 'je': pronouns)."""
COPULA = "|".join(IS_WORDS + PROSE_COPULAS) + "|of|de|von|di|van"
"""The verb 'is' between a quantity's word and its figure ('the variance is 0.0699'), by language, and the 'of'
that says the same ('a loss of 2.5851', 'une perte de 2,58', 'ein Verlust von 2,58')."""
PARTICLE = r"[은는이가을를의はがのを为為是]|(?:은|는)\s*약|约为|約"
"""What Korean, Japanese and Chinese put between a quantity's word and its figure ('분산은 0.0699', '方差为')."""


def _ending(terms, wall: str, group: str) -> str:
    words = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return rf"{wall}(?P<{group}>{words})(?:\s*(?:{PARTICLE})|\s+(?:{COPULA}))?\s*[:：]?\s*(?:\$|\\\(|`)?\s*$"


PROSE_END = re.compile("|".join(_ending([t for t in PROSE if bool(re.match(r"[\u3040-\u9fff\uac00-\ud7af]", t)) is cjk],
                                        "" if cjk else r"(?<![^\W\d_])", "term2" if cjk else "term")
                               for cjk in (False, True)), re.IGNORECASE)
"""A word of :data:`PROSE` at the end of the text before a figure (then maybe 'is' or a particle)."""


def prose_name(left: str) -> str | None:
    """The quantity a figure's prose names right before it: a word of :data:`PROSE`, maybe then 'is' or a
    particle, or None.

    >>> prose_name("its variance "), prose_name("and the variance is "), prose_name("평균은 -0.1567, 분산은 $")
    ('variance', 'variance', '분산')
    >>> prose_name("方差为 "), prose_name("the loss function "), prose_name("trung bình là ")
    ('方差', None, 'trung bình')
    """
    m = PROSE_END.search(left)
    return m and (m["term"] or m["term2"]) or None
MOMENTS = {"m": "m", "v": "v", "m̂": "mhat", "v̂": "vhat", "mhat": "mhat", "vhat": "vhat", "m_hat": "mhat",
           "v_hat": "vhat", "m_t": "m", "v_t": "v", "Δ": "update", "Δθ": "update", "Delta": "update",
           "ηλθ": "decay", "λθη": "decay"}
"""An optimizer state a tutorial writes without indices under a lead-in that names the entry (``Von Hand für
W[0, bellt]: … m = …``): its name → the AdamW state's (adamw[k].m[W,0,bellt])."""
STEP_WORDS = {"update": "update", "step": "update", "schritt": "update", "pas": "update", "步长": "update",
              "更新量": "update", "decay": "decay", "suy giảm": "decay", "zerfall": "decay", "衰减": "decay",
              "décroissance": "decay",
              **dict.fromkeys(("oppdatering", "opdatering", "uppdatering", "aktualizacja", "aggiornamento",
                               "actualización", "atualização", "actualització", "güncelleme", "frissítés",
                               "päivitys", "actualizare", "aktualizace", "ενημέρωση", "עדכון", "تحديث",
                               "оновлення", "обновление", "cập nhật", "bước", "pembaruan"), "update"),
              **dict.fromkeys(("vektforfall", "vægtforfald", "viktförfall", "gewichtsverval", "rozpad wag",
                               "decadimento", "decaimiento", "decaimento", "затухание"), "decay")}
"""The words that name the AdamW step of an entry (the update, η·m̂/(√v̂ + ε)) and its weight decay (η·λ·θ)."""
NEW_WORDS = r"new|neue?[rs]?|nouve(?:au|lle)|nuev[oa]s?|nuov[oa]|nov[oa]s?|now[aey]|nieuwe?|yeni|mới|baru|uusi|" \
    r"új|nou[ăl]?|ny[et]?|νέ[οαε]|нов\w*"
"""The adjective 'new' that a parameter's name carries after the step (``W_new``, ``E[op] nieuw``), by language;
the scripts without word breaks are :data:`NEW_MARKS`."""
NEW_MARKS = r"新的?|更新后的?|新しい|새로운"
