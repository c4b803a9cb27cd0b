"""What code and prose call the model's tensors, beside their own names: the words
:mod:`symgpt.claims.notation` reads as a name without a vote, and :mod:`symgpt.claims.labels` as a name in
prose (``its variance 1.053``).

>>> "variance" in DATA_ALIASES["var1"], "verlust" in PROSE
(True, True)
"""
MEAN = ("μ", "mu", "mean", "Mittelwert", "moyenne", "均值")
VARIANCE = ("σ²", "var", "variance", "σ^2", "sigma²", "sigma^2", "Varianz", "方差")    # (σ² in ASCII: sigma^2)
DATA_ALIASES = {         # what code and prose call the model's tensors (beside their own names and ALIASES)
    "p": ("probs", "prob", "probabilities", "probability", "P", "softmax", "y_hat", "ŷ", "p_hat"),
    "logits": ("z", "ℓ", "logit", "scores"), "z": ("logits", "logit", "scores", "ℓ"),
    "loss": ("L", "l", "loss", "J", "CE", "ℒ", "损失", "nll", "Verlust", "perte", "perda", "pérdida", "perdita",
             "strata", "kayıp", "verlies", "потеря", "потери", "損失", "손실", "kerugian", "हानि", "लॉस"),
    "x": ("x", "emb", "e", "h"), "X": ("x", "X", "h", "H", "emb"),
    "A": ("α", "attn", "attention", "weights", "a"), "S": ("scores", "score", "s"),
    "mu1": MEAN, "var1": VARIANCE,
    "mu2": MEAN, "var2": VARIANCE,
    "ms1": ("ms", "mean_sq"), "ms2": ("ms", "mean_sq"), "ms_f": ("ms", "mean_sq"),   # RMSNorm's mean of squares
}

PROSE = frozenset(w.lower() for w in (*MEAN, *VARIANCE, *DATA_ALIASES["loss"], "probability", "logit")
                  if len(w) > 2 and w.isalpha())    # the words prose puts right before a figure: 'its variance 1.053'

MOMENTS = {"m": "m", "v": "v", "m̂": "mhat", "v̂": "vhat", "mhat": "mhat", "vhat": "vhat", "m_hat": "mhat",
           "v_hat": "vhat", "m_t": "m", "v_t": "v", "Δ": "update", "Δθ": "update",
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
