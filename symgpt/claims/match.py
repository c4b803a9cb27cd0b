"""Which quantity a printed figure is: candidates, a cheap prefilter, certified rounding, context.

Every quantity a tutorial of one spec may print is a *candidate*
(:mod:`symgpt.claims.candidates`), enclosed once at 64 bits; a
figure keeps the candidates whose enclosure meets its rounding cell
(``0.454`` → [0.4535, 0.4545]), and only those are certified
(:func:`symgpt.claims.claims.certify_rounding`).  A figure that is the result of
arithmetic on earlier figures (``1.050×0.820 = 0.861``) also gets the same
arithmetic over their quantities as a candidate (``Q[0,0]*K[0,0]``).

Among the certified candidates the context decides (:func:`symgpt.claims.context.score`): the
symbol to the figure's left (``q1,0 =``, ``p(你)``, ``exp(``), the table's
caption, row and column (``t=1``, ``dim 0``, a token), and the document's
order (a matrix is printed entry after entry).

>>> import symgpt
>>> from symgpt.claims.extract import extract
>>> m = Matcher(symgpt.load("tiny-transformer"))
>>> [(r.verdict, r.ref) for r in m.match(extract("A1,0 = 2.175 / 4.789 ≈ 0.454"))][-1]
('matched', 'A[1,0]')
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
from fractions import Fraction

from flint import arb, fmpq
from sympy import preorder_traversal as sympy_preorder

from ..core.numeric import UndecidableError
from ..engine.arch import Arch
from ..training.first_step import rule
from .candidates import (
    PERCENT_OF,
    PREFILTER_BITS,
    Candidate,
    Spans,
    _integral,
    _same_value,
    candidates,
    value_candidates,
)
from .causes import lone_weights
from .checkpoint_names import CheckpointNames
from .context import _base, _names, _pinned, context, counted, score, spells_input
from .diagnose import _chain_rounds, diagnose, slipped, wrong
from .extract import chain_spelling, decimal_comma, normal_line
from .figure import FORMATS, SETTINGS, Result, cell, near_window, readable, rounds_to
from .figure import operand as _operand
from .grids import grids
from .labels import labels
from .notation import Notation, adam_only
from .refs import ExprError, bind, parse
from .symbols import plain
from .tables import ANOTHER_EXAMPLE, EXAMPLE_NUMBER, example_row, table_header

GRADIENT_GROUP = re.compile(r"(?:l\d+\.)?grad_\w+")
"""A gradient of the loss: what a chain with p_t − 1 for p_t computes (Matcher._without_y)."""
MOMENT = re.compile(r"adamw\[(\d+)\]\.([mv])\[([^\]]+)\]")
"""An AdamW moment before its bias correction: its step, m or v, its entry."""
LETTER = re.compile(r"[^\W\d_]")
"""A label of one letter ('P', 'h', 'η'): a setting's symbol, where a figure equals the setting (not ∂L/∂W[0,1])."""
SCIENTIFIC = re.compile(r"\d[eE][-+−]?\d|10\^|×\s*10|·\s*10")
"""A figure written with a power of ten (``1e-3``, ``10^{-5}``, ``2 × 10⁻⁴``)."""
FORM_OPERANDS = 24      # a chain of at most this many operands is tried against the nodes' definitions …
FORM_ALTERNATIVES = 3   # … with up to this many quantities for each operand …
FORM_TRIES = 64         # … in at most this many combinations
FLIP_ALTERNATIVES = 8   # … and a product's factors, for a result printed with its sign turned, among this many
FACTORS = re.compile(r"\(?-?[\d.]+\)?(?:[×*·/]\(?-?[\d.]+\)?)+|-?[\d.]+[-−+]\(?-?[\d.]+\)?")
"""A chain of factors alone (``0.2376*0.3800``, ``(-0.85)*0.68/2``), or of two terms (``0.2567 − 1``): the result's
sign is the one its printed operands give."""
RUN = 3                 # cells of a row (of four or more) that must agree on consecutive entries of one tensor
PAIR = 2                # … or, on each side of a cell whose value its own entry explains by a cause, these
EXPLAINED = ("sign flip", "transposed index", "scale slip", "percent slip")    # (those causes)
ROW_CAUSES = (*EXPLAINED, "swapped digits", "last-digit slip", "truncation")
"""The causes by which a state of a row's parameter entry names a cell no quantity rounds to (Matcher._entry_rows)."""
                        # (Matcher._runs)
GRID = 3                # figures of a matrix or table that must agree on entries of one tensor at their places …
GRID_SHARE = 0.6        # … and this share of its figures (Matcher._grids)
ROW_CELLS = 4           # a table's row of this many cells or more is also a vector of its own
LABELLED = 10.0         # the score of a quantity a figure's place names (its label, read by the notation)
SURE = 3.0              # a match this well named can carry an equation's arithmetic (see _match)
STRONG_NAMING = 8.0     # a context score that names one quantity beyond doubt (symbol and indices, or
                        # caption, row and column)
STRONG_GAP = 4.0        # … and by this much more than a quantity that rounds to the figure and is named too


EXERCISE = re.compile(r"^[\W\d_]*(?:exercises?|homework|Übung(?:en)?|Aufgaben|Hausaufgaben?|exercices?|devoirs?|"
                      r"ejercicios|tareas|esercizi|compiti|exercícios|упражнени[яе]|задания|练习|习题|作业|演習|宿題|"
                      r"연습\s*문제|과제|bài tập|ćwiczenia|zadania|ödev(?:ler)?|alıştırmalar|oefeningen|opdrachten|"
                      r"latihan|गृहकार्य|अभ्यास)(?!\w)", re.I)
"""A heading that opens on exercises (``## 8. Exercises``, ``## Übungen``): its figures are what the reader is
asked to try (``take η = 0.05``), not claims.  (Not 'die Aufgabe: …', 'pelatihan'.)"""


MOVED = re.compile(r"\s*[-+−±×*/·]\s*[^\d\s=][^\d=]{0,11}[=≈]\s*")
"""What stands between a quantity's figure and the figure of that quantity moved: ``+ h =``, ``− ε =``."""

APPROX_NEXT = re.compile(r"\s*+\$?\s*+(?:≈|\\approx|~)\s*+\$?\s*+")
ROUNDING_SAID = re.compile(r"\b(?:round(?:ing|ed)?|arrondi\w*|Rundung\w*|gerundet|redonde\w*|arrotond\w*|arredond\w*|"
                           r"округл\w*|yuvarla\w*|zaokrągl\w*|afrond\w*|làm tròn|pembulatan|avrund\w*|pyöristy\w*|"
                           r"kerekít\w*|στρογγυλ\w*)\b|四舍五入|舍入|丸め|반올림|पूर्णांकन", re.I)
"""Words after a figure that say its own arithmetic on rounded figures is why it is off ('= 0.9999, which is
below 1 only by rounding', 'जो पूर्णांकन की वजह से …')."""


REDO = re.compile(r"(?:redo|repeat|reprendre|refaire|recommencer|wiederhole|rifate|rifai|rehacer|repite|refaça|"
                  r"refazer|повтори|再做|重做|やり直)\w*\s+(?:l['’])?(?:the\s+)?(?:exercise|exercice|Übung|Aufgabe|"
                  r"esercizio|ejercicio|exercício|упражнение|练习|演習|calculation|calcul|Rechnung|cálculo|calcolo|"
                  r"check|controllo|contrôle|vérification|Prüfung|Kontrolle|comprobación|verificação|проверк\w*)",
                  re.I)
"""A sentence that asks to redo an exercise with another setting ('Reprendre l'exercice 3 avec η = 0,05')."""
NUMBERED_EXERCISE = re.compile(r"^[\W\d_]*(?:exercise|Übung|Aufgabe|exercice|ejercicio|esercizio|exercício|"
                               r"упражнение|задание|练习|习题|演習|연습\s*문제|bài tập|ćwiczenie|zadanie|alıştırma|"
                               r"oefening|latihan)\s*\d", re.I)
"""A heading of one numbered exercise (``Exercice 1 : propagation avant``), which a handout may solve below it."""
SOLUTION = re.compile(r"^\s*(?:\d+\.\s*)?(?:[^\n]{0,80}\s)?(?:Solution|Corrigé|Lösung|Solución|Soluzione|Solução|"
                      r"Решение|Rozwiązanie|Çözüm|Oplossing|Penyelesaian|Lời giải|解答|答案|解|풀이)\s*[.:：]", re.M)
"""A worked answer's mark at a line's start (``Solution. On lit …``, ``Lösung:``, ``解：``)."""
EXERCISE_SAID = re.compile(r"(?:exercise|homework|Übung|Aufgabe|exercice|devoir|ejercicio|tarea|esercizio|compito|"
                           r"exercício|tarefa|упражнение|задание|练习|习题|作业|演習|宿題|연습\s*문제|과제|bài tập|"
                           r"ćwiczenie|zadanie|ödev|alıştırma|oefening|opdracht|latihan|tugas|अभ्यास)"
                           r"[^.!?。:：]{0,30}[:：]", re.I)
"""A sentence that sets an exercise (``Esercizio per casa: rifate … con η = 0,1``): its figures are a setting the
reader is asked to try, not the model's."""


ROUNDED = r"rounded|arrotondat\w*|gerundet\w*|arrondi\w*|redondead\w*|arredondad\w*|округл\w*|afgerond\w*|" \
    r"zaokrąglon\w*|yuvarlanmış|avrundade"
OPERANDS = r"values|numbers|figures|operands|terms|valori|numeri|Werte\w*|Zahlen|valeurs|nombres|valores|números|" \
    r"значени\w*|чис\w*|waarden|getallen|wartości|liczb\w*|değerler\w*|värden"
ROUNDED_SAID = re.compile(rf"\b(?:{ROUNDED})\s+(?:{OPERANDS})\b|\b(?:{OPERANDS})\s+(?:\w+\s+)?(?:{ROUNDED})|"
                          r"四舍五入后的(?:值|数)|반올림한\s*값|丸めた値", re.I)
"""Words that say a figure is worked from rounded operands (``la somma dei valori arrotondati dà 5,1988``, 'the sum
of the rounded values'): the author says it differs from the exact value's rounding, so it is no wrong figure of
the quantity ('rounded to four places: …' says the opposite, and is no such phrase)."""
CONFIG = re.compile(r"(?:(?:adamw|sgd)\.)?(?:lr|weight_decay|beta[12]|eps)|ln_eps|temperature|top_[kp]")
"""The settings a text may set otherwise in an exercise (η = 0,1 where the spec's is 0.5)."""


def _exercises(results: list, text: str | None = None) -> list:
    """A figure under an exercise heading, or a setting a sentence that sets an exercise changes, is no claim of
    the model's, and one whose clause says it is worked from rounded operands claims no exact rounding: never
    wrong, at most unmatched. (A handout whose numbered exercises are followed by their solutions, 'Exercice 1'
    and 'Solution. …', works them: its figures are claims.)"""
    solved = bool(text) and SOLUTION.search(text) is not None

    def asked(n) -> bool:
        clause = re.split(r"[;；:：]|(?<!\d)[.!?。](?:\s|$)", n.line_text[:n.col])[-1]      # (its own line's)
        heading = n.heading or ""
        worked = solved and NUMBERED_EXERCISE.search(heading) is not None
        return bool(EXERCISE.search(heading) and not worked or ROUNDED_SAID.search(clause))

    def setting(r) -> bool:           # 'Esercizio per casa: rifate … con η = 0,1': another setting, asked for
        sentence = re.split(r"(?<!\d)[.!?。](?:\s|$)", f"{r.number.prose} {r.number.line_text[:r.number.col]}")[-1]
        if REDO.search(sentence) and re.search(r"(?<![\w])[^\W\d]{1,3}\s*=\s*$", r.number.line_text[:r.number.col]):
            return True                 # 'redo the check with h = 10⁻²': a setting asked for, whatever it equals
        return CONFIG.fullmatch(r.ref or "") is not None and bool(
            EXERCISE_SAID.match(sentence.strip()) or EXERCISE_SAID.match(r.number.line_text.lstrip(" *_#>-")) or
            REDO.search(sentence))      # 'Reprendre l'exercice 3 avec η = 0,05': the exercise redone so
    return [dataclasses.replace(r, verdict="unmatched", ref=None, cause=None, correct=None, exact=None, distance=None)
            if r.verdict == "wrong" and (asked(r.number) or setting(r)) else r for r in results]



SUM_COLUMN = re.compile(r"Σ|∑|\\sum|\bsum\b|Summe|somme|suma|soma|сумма|합계|합|合計|总和|求和|toplam|jumlah|summa|"
                        r"összeg", re.I)
"""A table column of sums (``Σ_b g^{(b)}``, 'sum'): a figure there is a mean's numerator, not its slip."""

class Matcher:
    """Matches a document's figures to one derivation's quantities."""

    def __init__(self, d):
        self.d = d
        self.every = candidates(d)                  # what a figure's place may name
        self.cands = value_candidates(self.every)   # what its value alone may be
        self._by_ref = {c.ref: c for c in self.cands}        # the candidates by name (match() renews it)
        self.vocab = list(d.spec.vocab)
        self._alias: dict = {}
        self._by_value = None         # the nodes' candidates by value (_node_at)
        self._rounds: dict = {}       # (candidate, figure as printed) → does it round so (context-free: once)
        self._found: dict = {}        # what the figures of the match under way were found to be (match() renews it)
        self.graph = {p.partition("[")[0] for p, _, _ in d._registry.groups()}    # the model's nodes' groups

    @property
    def near(self) -> Spans:
        """The value candidates as :class:`Spans`: those a value can be near, found at once (kept while
        ``cands`` is the same list)."""
        if getattr(self, "_near", None) is None or self._near[0] is not self.cands:
            self._near = (self.cands, Spans(self.cands))
        return self._near[1]

    def rounds(self, c: Candidate, n) -> bool:
        """:func:`rounds_to`, remembered: a figure printed again (0.0%, 1.000) is certified once."""
        k = (c.ref, n.text, n.kind)
        if k not in self._rounds:
            self._rounds[k] = rounds_to(c, n)
        return self._rounds[k]

    def expression(self, ref: str):
        """A candidate for a claims expression (``log(5)``, a chain with its operands' quantities), or None
        when it does not bind or its value is not finite."""
        try:
            q = bind(parse(ref, self.d.limits), self.d, self.d.limits)
            ball = q.ball(PREFILTER_BITS)
        except (ExprError, ValueError, KeyError, ArithmeticError, UndecidableError):
            return None
        if not isinstance(ball, fmpq) and not ball.is_finite():
            return None
        return Candidate(ref, "chain", (), "", q, ball, derived=True)

    def derived(self, n, found: dict, refs: list | None = None):
        """The figure's chain with each operand replaced by its matched quantity (or None); ``refs``: other
        quantities for the operands, in their order."""
        if not n.chain or not n.operands:
            return None
        refs = refs or [self._operand(found.get(i), found["_numbers"][i], found["_sure"]) for i in n.operands]
        if any(r is None for r in refs):
            return None
        chain, out, pos = n.chain, [], 0
        for i, r in zip(n.operands, refs):
            text = chain_spelling(found["_text"][i]).lstrip("+")    # as the chain writes it (10^(-8))
            k = chain.find(text, pos)
            if k < 0:
                return None
            out.append(chain[pos:k])
            out.append(r.ref if re.fullmatch(r"[\w.\[\],<>\u4e00-\u9fff]+|\w+\(.*\)", r.ref) else f"({r.ref})")
            pos = k + len(text)
        return self.expression("".join(out) + chain[pos:])

    def match(self, numbers, text: str | None = None) -> list:
        """A :class:`Result` for every figure, in order.

        Two passes: the first finds what each equation computes (``q0,0 = 0.500 × 0.3 + … = 1.050``
        is ``Q[0,0]``); the second prefers, for the figures of that line, the quantities its definition
        reads (``H0[0,0]``, ``W_Q[0,0]``, …).
        """
        self.labelled, self.functions = {}, {}
        self.slip_of: dict = {}            # figure index → the slip its chain's form shows (Matcher._slipped_form)
        self._section_steps = None         # (results seen, section → the kinds of step they were matched to)
        self._by_value = None
        self.cands = value_candidates(self.every)
        self.unspoken = [ref for ref, about in TOPICS if text is not None and not about.search(text)]
        if text is not None and adam_only(text):      # AdamW's steps alone: no state of plain SGD's ('η', 'update'
            self.unspoken.append(SGD_STATES)        # said all the same)
        if text is not None:              # an optimizer's moments, a sampling table: only in a text about them
            self.cands = [c for c in self.cands if self.spoken(c)]
        self._by_ref = {c.ref: c for c in self.cands}     # (after the topics the text never speaks of are left out)
        self.silent = _silent(text, numbers) if text is not None else {}    # … and in the sections about them
        if text is not None:              # structure first: the quantity each figure's place names
            sequence = [t if isinstance(t, str) else self.vocab[t] for t in self.d.spec.input]
            read = labels(text, numbers, self.vocab, self.graph | set(self.d.spec.params), self.d.spec.params,
                          sequence, made_by(self.d.spec), read_by(self.d.spec), self.checkpoint_names,
                          batch=len(getattr(self.d.spec.training, "examples", ()) or ()) > 1)
            comma = decimal_comma(text)
            self.lines = [normal_line(x, comma) for x in re.split(r"\r\n|\r|\n", text)]   # (as labels reads them)
            self.notation = Notation(self)
            self.labelled = self.notation.resolve(numbers, read)
            self.functions = {k: lab for k, lab in read.items() if lab.inner is not None}
        self.read = read if text is not None else {}
        first = self._match(numbers, {})
        results = self._grids(self._entry_rows(self._runs(self._right(self._match(numbers, self._inputs(first))))),
                              numbers)
        return _exercises(_foreign_columns(self._acknowledged(self._batch(results), numbers)), text)

    def _batch(self, results: list) -> list:
        """On a mini-batch, a figure the text works for another example (its paragraph says 'Exemple 2', 'example
        3') is that example's, which no quantity of the spec is but the batch's own (sgd[0]'s means, the later
        steps' states); and a sum printed over the batch's size on the line below (a PDF's stacked fraction,
        ``5,2855`` over ``3``) is the sum before its division: neither is wrong."""
        size = len(self.d.spec.training.examples)
        if size < 2:
            return results
        lines = getattr(self, "lines", [])

        def other_example(n) -> int:
            """The number (from 1) of the other example the figure's paragraph works for; 0 for none."""
            sentence = re.split(r"(?<!\d)[.!?。](?:\s|$)", n.line_text[:n.col])
            told = f"{n.heading or ''} {n.prose[-200:]} {n.line_text[:n.col]}"
            last = list(EXAMPLE_NUMBER.finditer(told))
            if last and last[-1]["k"] == "1":
                return 0             # '… 样本 2 … 得到样本 1 的概率分布': the last example it names is the first
            if not ANOTHER_EXAMPLE.search(told) or \
                    re.search(r"(?:mean|moyenne?|Mittel|media|平均|lot|batch|Batch)", sentence[-1], re.I):
                return 0
            return int(last[-1]["k"]) if last else -1        # (-1: another, its number not said)

        def row_of_another(n) -> int:     # | 3 | 南 | 5.6676 | under | 样本 | …: the third example's row
            example = example_row(n.row, (table_header(lines, n.line)[1] or [""])[0]) if n.row and lines else None
            return example if example is not None and example != 1 else 0

        def own(r, k: int):
            """The result as example k's: its quantity there (example[k − 1].p[v]) when the figure rounds from it;
            judged by it when the figure's place named the quantity (wrong as the first example's) and none of its
            candidates rounds there."""
            n = r.number
            if 1 < k <= size and (r.ref or "").startswith(f"example[{k - 1}]."):
                return r                               # (already that example's, right or wrong)
            for ref in [r.ref, *r.candidates] if 1 < k <= size else ():
                ref = re.sub(r"^example\[\d+\]\.", "", ref or "")      # (another example's, equal in value)
                if ref and not re.match(r"(?:sgd|adamw)\[", ref):
                    c = self._by_ref.get(f"example[{k - 1}].{ref}")
                    if c is not None and self.rounds(c, n):
                        return dataclasses.replace(r, verdict="matched", ref=c.ref, candidates=[c.ref], cause=None,
                                                   correct=None, exact=None, distance=None)
            if not 1 < k <= size:
                return None
            own_values = [c for c in self.nearby(n, *cell(n)) if c.ref.startswith(f"example[{k - 1}].") and
                          self.rounds(c, n)]          # (the example's other quantities: its outer product's cells)
            if len(own_values) == 1:
                c = own_values[0]
                return dataclasses.replace(r, verdict="matched", ref=c.ref, candidates=[c.ref], cause=None,
                                           correct=None, exact=None, distance=None)
            bare = re.sub(r"^example\[\d+\]\.", "", r.ref or "")
            c = self._by_ref.get(f"example[{k - 1}].{bare}") if r.verdict == "wrong" and bare and not own_values \
                else None
            return self._judged(n, c) if c is not None else None

        by_line: dict = {}
        for r in results:
            by_line.setdefault(r.number.line, []).append(r.number)

        def over_size(n) -> bool:
            below = lines[n.line:n.line + 2]
            if any(m[0] == str(size) and n.col - 2 <= m.start() <= n.col + len(n.text) + 2
                   for x in below for m in re.finditer(r"\d+", x)):
                return True
            terms = [m.value for m in by_line.get(n.line, []) if m.col < n.col and m.kind == "decimal"]
            ulp = Fraction(1, 10 ** n.decimals)          # (the sum of the terms printed before it: a numerator)
            divided = re.search(rf"\\[dt]?frac\s*\{{\s*1\s*\}}\s*\{{\s*{size}\s*\}}|(?<![\d.])1\s*/\s*{size}(?!\d)|"
                                rf"[/÷]\s*{size}(?![\d.])", n.line_text[:n.col])
            return len(terms) == size and abs(sum(terms) - n.value) <= ulp * size and not divided
            #      (but not where the line divides by the size before it: ⅓[a + b + c] = S is the mean, wrong)

        out, others = [], {}         # (another example's figures, by their text: printed again, still its)
        for r in results:
            n = r.number
            other = not (r.ref or "").startswith("sgd[0].") and other_example(n) or row_of_another(n)
            if other > 1 and r.verdict in ("wrong", "unmatched", "ambiguous") and (mine := own(r, other)) is not None:
                out.append(mine)
                continue
            if other and n.kind == "decimal" and len(n.text.strip("-−+0.")) >= 3:
                others[n.text] = n.line
            again = n.text in others and 0 <= n.line - others[n.text] <= 3
            summed = r.cause == "sum for mean" and over_size(n) and (not n.column or SUM_COLUMN.search(n.column))
            if r.verdict == "wrong" and (summed or other or again):    # (a table's column of means: a sum there is
                #                                                          a slip; a column of sums, a numerator)
                r = dataclasses.replace(r, verdict="unmatched", ref=None, cause=None, correct=None, exact=None,
                                        distance=None)
            out.append(r)
        return out

    @functools.cached_property
    def checkpoint_names(self) -> CheckpointNames:
        """The spec's parameters under a checkpoint's names (``c_fc.weight[0, 2]``)."""
        return CheckpointNames(self.d.spec)

    def spoken(self, c) -> bool:
        """Whether the text talks about what the candidate belongs to (AdamW, a temperature, top-k, top-p):
        a quantity of a topic the document never mentions is no reading of its figures."""
        return not any(ref.search(c.ref) for ref in getattr(self, "unspoken", ()))

    def _stepped(self, n, found: dict):
        """The state after a step that a figure's place names by a symbol no vote resolved (``W_{1,mléko} ← −0,3
        − 0,1 · 0,8881 = …``): the same entry of the parameter its update's first operand is (``W_out[1,mléko]``,
        so ``sgd[1].W_out[1,mléko]``), when that parameter's name starts as the symbol does (None else)."""
        lab = self.read.get(n.index)
        first = found.get(n.operands[0]) if n.operands else None
        if lab is None or not lab.state or first is None or first.group not in self.d.spec.params or \
                not first.group.startswith(lab.name.partition("_")[0]):
            return None
        return self._by_ref.get(f"{lab.state}.{first.ref}")

    def _settings(self) -> list:
        """The candidates that are training or sampling settings (lr, top_p, gradcheck.h, …)."""
        if getattr(self, "_setting_cands", None) is None or self._setting_cands[0] is not self.cands:
            self._setting_cands = (self.cands, [x for x in self.cands if x.group in SETTINGS])
        return self._setting_cands[1]

    def _other_step(self, c, n):
        """The same quantity after the one other kind of step whose value the figure rounds from, when the
        figure's place names a state after a step that it does not round from: the loss after updating only the
        target's row (head_step) where the place said SGD's, or AdamW's (None if none, or several, do)."""
        m = STEP_STATE.match(c.ref)
        later = re.match(r"(sgd|adamw)\[(\d+)\]\.(.+)", c.ref) if m is None else None
        if later is not None:     # krok 2 of AdamW's run read as SGD's: the other optimizer's state at that step
            other = "adamw" if later[1] == "sgd" else "sgd"
            x = self._by_ref.get(f"{other}[{later[2]}].{later[3]}") or next(
                (y for y in self.cands if y.ref == f"{other}[{later[2]}].{later[3]}"), None)
            return x if x is not None and self.rounds(x, n) else None
        if m is None:
            return None
        alts = [self._by_ref.get(f"{s}.{m.group(2)}") for s in STEPS if s != m.group(1)]
        alts = [a for a in alts if a is not None and self.rounds(a, n)]
        return alts[0] if len(alts) == 1 else None

    def _step_of_section(self, c, n, so_far: list):
        """The same quantity after the kind of step the figure's section has shown so far, when its place names
        another's: a section whose figures were the head's step alone (``head_step.p[t]``, W_out moved, the rest
        frozen) goes on with it, its loss printed with a slip included (None else)."""
        m = STEP_STATE.match(c.ref)
        if m is None:
            return None
        seen, by_section = self._section_steps if getattr(self, "_section_steps", None) and \
            self._section_steps[0] <= len(so_far) else (0, {})
        for r in so_far[seen:]:                        # (the results since the last call: linear over a text)
            if r.verdict == "matched" and r.ref and STEP_STATE.match(r.ref):
                by_section.setdefault(r.number.section, set()).add(r.ref.split(".", 1)[0])
        self._section_steps = (len(so_far), by_section)
        kinds = by_section.get(n.section, set())
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        return self._by_ref.get(f"{kind}.{m.group(2)}") if kind not in (None, m.group(1)) else None

    def nearby(self, n, lo, hi) -> list:
        """The value candidates near [lo, hi] that figure ``n``'s section may speak of: an optimizer's moments, a
        training step's states, a sampling table's shares only in a section about them (:func:`_silent`)."""
        quiet = self.silent.get(n.section, ())
        pool = self.near.among(lo, hi)
        said = " ".join((n.line_text, n.prose[-160:], n.heading))
        if not MOVED_SAID.search(said) and not MOVED_SAID.search(plain(said)):   # (\mathcal{L}(\theta + …): L(θ + …)
            pool = [c for c in pool if c.group not in CHECKED]  # L(θ ± h) and θ ± h only where the text moves θ
        return [c for c in pool if not any(TOPICS[k][0].search(c.ref) for k in quiet)] if quiet else pool

    def trains_here(self, n) -> bool:
        """Whether figure ``n``'s section speaks of a training step (SGD's or AdamW's, :data:`TOPICS`)."""
        quiet = self.silent.get(n.section, set())
        return any(k not in quiet for k in TRAINING)

    @staticmethod
    def _operand(c, m, sure=()):
        """The quantity an operand stands for in arithmetic: a one-digit figure (0.1, 2, not 1.000) that its
        quantity is not exactly, and that no context named, is the number it prints (β₁'s complement in
        0.1 × g, not an entry that rounds to 0.1)."""
        if m.kind == "fraction" and c is None:
            return _Literal(f"({m.value.numerator}/{m.value.denominator})")   # 1/6 ≈ 0.1667: a fraction is exact
        short = m.kind in ("decimal", "integer") and len(m.text.replace(".", "").lstrip("-−+0")) < 2
        if not short or m.index in sure or c is not None and isinstance(c.ball, fmpq) and \
                Fraction(int(c.ball.p), int(c.ball.q)) == m.value:
            return c
        return _Literal(m.text.replace("−", "-"))

    def _quotient(self, n, found: dict):
        """A gradient check's quotient where the figure's chain is worked on the check's two losses of one entry
        (``(1,29726856 − 1,29730635)/(2 · 10⁻⁴) = −0,18895``): gradcheck of that entry, not its gradient, which
        it may equal to the printed digits; else None."""
        if not n.chain or not QUOTIENT_CHAIN.fullmatch(n.chain.replace(" ", "")):
            return None                  # (a difference divided by a step: not the losses' sum, mean or difference)
        spelled = {found[i].ref for i in n.operands if found.get(i) is not None}
        for ref in spelled:
            up = MOVED_UP.fullmatch(ref)
            if up is not None and f"loss_at({up[1]}, -{up[2]})" in spelled:
                return self._by_ref.get(f"gradcheck({up[1]}, {up[2]})")
        return None

    def _form(self, n, found: dict, numbers: list):
        """The quantity whose definition the figure's chain computes: the node whose value the chain takes,
        exactly, with each operand some quantity it rounds from (``(1.521 − 0.751) / 0.642 = 1.199`` is
        LN1[2,0] when H1[2,0], mu1[2] and √(var1[2] + ε) print so). None when no such node is near it."""
        if len(n.operands) < 2 or len(n.operands) > FORM_OPERANDS or n.kind not in ("decimal", "percent"):
            return None
        alts = self._alternatives(n, found, numbers)
        near = near_window(n)
        for refs in itertools.islice(itertools.product(*alts), FORM_TRIES):
            if None in refs:
                continue
            dc = self.derived(n, found, list(refs))
            if dc is None or isinstance(dc.ball, fmpq) or not dc.meets(*near):
                continue
            c = self._node_at(dc.ball)
            if c is not None and all(getattr(r, "key", None) != c.key for r in refs):
                return c                       # (x + 0 = x is no definition: the node is none of its operands)
        return self._uncorrected(n, found, alts) or self._slipped_form(n, found, alts) or \
            self._left_out(n, found, [a[:1] for a in alts])

    def _alternatives(self, n, found: dict, numbers: list, cap: int | None = None) -> list:
        """For each operand of a figure's chain, the quantities it may stand for: its own match first, then
        the others it rounds from (a short coefficient, 0.1 in 0.1 × g, only as printed)."""
        alts = []
        for i in n.operands:
            m = numbers[i]
            if isinstance(self._operand(None, m), _Literal):
                alts.append([self._operand(found.get(i), m)])      # 0.1 × g: a coefficient, as printed
                continue
            lo, hi = cell(m)
            own = [found[i]] if found.get(i) is not None else []
            more = [c for c in self.nearby(m, lo, hi) if c.group not in self.d.spec.params
                    and self.rounds(c, m)] if m.kind == "decimal" and len(m.text.strip("-−+0.")) >= 2 else []
            alts.append((own + [c for c in more if c not in own])[:cap or FORM_ALTERNATIVES] or [None])
        return alts

    def _flipped_result(self, n, found: dict, alts: list):
        """The node a product's chain defines when the printed result is its value with the sign turned (``0.2376
        × 0.3800 = −0.0903`` for ∂L/∂E[t3,1] = 0.0903…): the figure is that node, found wrong by a sign flip.
        Only a chain of factors, whose signs are its operands' own, and only to the printed digits."""
        if not FACTORS.fullmatch(n.chain.replace(" ", "")) or n.value == 0 or _chain_rounds(self, n)[0]:
            return None                  # (its printed factors give it: no sign turned)
        lo, hi = cell(n)
        wider = self._alternatives(n, found, found["_numbers"], cap=FLIP_ALTERNATIVES) if "_numbers" in found else alts
        for refs in itertools.islice(itertools.product(*wider), FORM_TRIES):
            dc = self.derived(n, found, list(refs)) if None not in refs else None
            x = _mid(dc.ball) if dc is not None and not isinstance(dc.ball, fmpq) else None
            if x is None or not -hi <= x <= -lo:
                continue
            hits = [c for c in self._nodes_at(dc.ball) if all(getattr(r, "key", None) != c.key for r in refs)]
            hits = [c for c in hits if not re.fullmatch(r"adamw\[\d+\]\.mhat", c.group)] or hits   # (the gradient,
            if len({_param_of(c.group) for c in hits}) == 1:                    # not the first AdamW m̂, equal to it)
                return min(hits, key=lambda c: (len(c.group), c.key))   # ∂L/∂E[t3,1], the head's part alike: E's
        return None

    def _slipped_form(self, n, found: dict, alts: list):
        """The quantity a chain defines when its printed result slipped in a way the chain's form shows: an
        update ``θ − η·g`` printed as θ + η·g (the state after the step; cause 'update with the wrong sign'; of
        any other node, ``h − f`` for the residual h + f, 'sign of a term'),
        a sum of squares divided by n − 1 where the variance divides by n ('unbiased variance'). The figure
        is then that quantity, found wrong; None for any other chain."""
        refs = [a[0] for a in alts]
        if None in refs:
            return None
        dc = self.derived(n, found, refs)
        if dc is None or isinstance(dc.ball, fmpq):
            return None
        lo, hi = near_window(n)
        near = lambda b: lo <= (Fraction(int(b.p), int(b.q)) if isinstance(b, fmpq) else  # noqa: E731
                                Fraction(float(b.mid())) if b.is_finite() else lo - 1) <= hi
        flipped = _last_sign_turned(n.chain)
        if flipped is not None:          # θ − η·g printed as θ + η·g, or θ·(1 − ηλ) + Δ written for θ·(1 − ηλ) − Δ
            turned = dataclasses.replace(n, chain=flipped)
            for tries in itertools.islice(itertools.product(*self._alternatives(n, found, found["_numbers"])),
                                          FORM_TRIES):
                if None in tries:
                    continue
                for at, other in ((n, turned), (turned, n)):
                    x, y = self.derived(at, found, list(tries)), self.derived(other, found, list(tries))
                    if x is None or y is None or isinstance(x.ball, fmpq) or not near(y.ball):
                        continue
                    c = self._node_at(x.ball, n=n)    # the step's state the right sign gives; the other, printed
                    if c is not None and all(getattr(r, "key", None) != c.key for r in tries):
                        self.slip_of[n.index] = "update with the wrong sign" if RUN_PREFIX.match(c.group) else \
                            "sign of a term"          # (h − down for h + down: the residual's sum, a term's sign)
                        return c
        flip = self._flipped_result(n, found, alts)
        if flip is not None:
            return flip
        decay = self._decay_left_out(n, found, refs, near)
        if decay is not None:
            self.slip_of[n.index] = "forgotten decay"
            return decay
        divided = re.search(r"/\(?(\d+)\)?$", n.chain)
        figs = found["_numbers"]
        named = [found.get(i) if found.get(i) is not None and figs[i].kind != "integer" else r
                 for i, r in zip(n.operands, refs)]      # (0.0007: the square it was found to be, not its digit)
        dn = self.derived(n, found, named) if divided else None
        if dn is not None and not isinstance(dn.ball, fmpq):
            k = int(divided[1])
            c = self._node_at(dn.ball * k / (k + 1))
            if c is not None and re.match(r"(?:l\d+\.)?var", c.group):
                self.slip_of[n.index] = "unbiased variance"
                return c
        return None

    def _decay_left_out(self, n, found: dict, refs: list, near):
        """AdamW's step written θ − Δ without its decay (θ·(1 − ηλ) − Δ): the new weight, when the chain starts
        from a weight's state (the first operand), its value near the printed figure, and the weight decays."""
        a = getattr(self.d.spec.training, "adamw", None)
        first = refs[0] if refs else None
        if a is None or not a.weight_decay or _last_sign_turned(n.chain) is None or \
                not re.fullmatch(r"(?:adamw\[\d+\]\.)?[\w.]+", getattr(first, "group", "") or "-") or \
                getattr(first, "group", "").partition(".")[2 if "adamw[" in first.group else 0].startswith("grad_"):
            return None
        x = self.derived(n, found, refs)
        if x is None or isinstance(x.ball, fmpq) or not near(x.ball):
            return None
        rate = Fraction(str(a.lr)) * Fraction(str(a.weight_decay))
        ball = first.ball if isinstance(first.ball, fmpq) else first.ball
        c = self._node_at(x.ball - ball * fmpq(rate.numerator, rate.denominator))
        return c if c is not None and c.group.startswith("adamw[") else None

    def _uncorrected(self, n, found: dict, alts: list):
        """The AdamW update a chain computes from the raw moments (``0.01 × m / (√v + 10⁻⁸)``, m and v not
        divided by 1 − βᵗ): the node the same chain gives with m̂ and v̂ in their places, when it is the update of
        the moments' entry (None else). The figure is then that update, and its value says whether it slipped."""
        refs = [a[0] for a in alts]
        moved = [self._corrected(r) for r in refs]
        if None in refs or all(m is r for m, r in zip(moved, refs)) or None in moved:
            return None
        dc = self.derived(n, found, moved)
        entry = {m.group(1, 3) for r in refs if (m := MOMENT.fullmatch(_root_of(getattr(r, "ref", ""))))}
        if dc is None or isinstance(dc.ball, fmpq) or len(entry) != 1:
            return None
        k, idx = entry.pop()
        c = self._by_ref.get(f"adamw[{k}].update[{idx}]")
        if c is None or isinstance(c.ball, fmpq):
            return None
        near = abs(dc.ball - c.ball) < abs(c.ball) * UNCORRECTED_EPS       # (decided on the balls: arb's < is certain)
        return c if near else None                                         # (ε left out of the chain: 10⁻⁸ / √v̂)

    def _forgot_y(self, n, found: dict, numbers: list, c) -> bool:
        """Whether the chain of a figure its place names ``c`` computes c with p where p − y belongs, its operands
        as found or as any other quantity they round from (1,0000 in ``(p − y)·h₁ = 0,1286 × 1,0000``: h₁, not y)."""
        own = [self._operand(found.get(i), numbers[i], found["_sure"]) for i in n.operands]
        alts = self._alternatives(n, found, numbers)
        return any(any(x.ref == c.ref for x in self._with_y(n, found, list(tries)))
                   for tries in itertools.islice(itertools.chain([own], itertools.product(*alts)), FORM_TRIES))

    def _without_y(self, n, found: dict, alts: list):
        """The gradient a chain computes with the target's probability where p − y belongs (``x₁ · p_t``): the
        node the same chain gives with p_t − 1 in its place, when it is a gradient of the loss (None else)."""
        hits = self._with_y(n, found, [a[0] for a in alts])
        params = [c for c in hits if c.group.removeprefix("grad_") in self.d.spec.params]
        return hits[0] if len(hits) == 1 else params[0] if len(params) == 1 else None
        #      (a tied head's row a token never read: grad_E, the parameter's, equal to its head's part)

    def _with_y(self, n, found: dict, refs: list) -> list:
        """The gradients of the loss the chain gives on ``refs`` with the target's probability p_t, where it is
        an operand, replaced by p_t − 1 ([] when p_t is none of them)."""
        target = f"p[{self.vocab[self.d.spec.target]}]" if isinstance(self.d.spec.target, int) else None
        if target is None or None in refs or not any(getattr(r, "ref", "") == target for r in refs):
            return []
        moved = [_Literal(f"({target} - 1)") if getattr(r, "ref", "") == target else r for r in refs]
        dc = self.derived(n, found, moved)
        if dc is None or isinstance(dc.ball, fmpq):
            return []
        return self._nodes_at(dc.ball, GRADIENT_GROUP)    # (not lr·g nor m̂ of the same value)

    def _left_out(self, n, found: dict, alts: list):
        """The sum of products a chain computes without the lone weight its definition adds (``u₁[0] = 0.99 × 0.3
        + (−0.99) × (−0.1) = 0.4000`` for Z[1,0] = … + b_1[0]): the node at the chain's value plus one bias, when
        that bias is a term of its definition (None else, and for a figure the next lines add to)."""
        refs = [a[0] for a in alts]
        if None in refs or len(refs) < 2 or "×" not in n.chain and "*" not in n.chain and "·" not in n.chain or \
                _added_to(n, getattr(self, "lines", [])):
            return None
        figs = found["_numbers"]
        printed = [self._operand(None, figs[i]) if isinstance(self._operand(None, figs[i]), _Literal) else r
                   for i, r in zip(n.operands, refs)]     # (−0.4 a weight as printed, not an entry near it)
        for tries in (refs, printed) if printed != refs else (refs,):
            dc = self.derived(n, found, tries)
            if dc is None or isinstance(dc.ball, fmpq):
                continue
            for w in self._biases():
                for c in self._nodes_at(dc.ball + w):    # (Z[2,0], not R[2,0] = ReLU of it: the one adding w)
                    if c.group not in self.d.spec.params and \
                            Fraction(int(w.p), int(w.q)) in lone_weights(self.d, c.ref):
                        self.slip_of[n.index] = "forgotten term"
                        return c
        return None

    def _biases(self) -> list:
        """The distinct nonzero values of the vectors among the parameters (a bias, a norm's shift: what a
        definition may add alone), as exact balls; computed once per document."""
        if not hasattr(self, "_bias_values"):
            lone: dict = {}
            for c in self.cands:
                if c.group in self.d.spec.params and isinstance(c.ball, fmpq) and c.ball != 0 and \
                        len(c.idx) == 1:
                    lone.setdefault(c.ball, c)
            self._bias_values = list(lone)
        return self._bias_values

    def _corrected(self, r):
        """The bias-corrected moment for a raw one (adamw[1].m[…] → adamw[1].mhat[…]), else ``r`` itself."""
        ref = getattr(r, "ref", "")
        m = MOMENT.fullmatch(_root_of(ref))
        if m is None:
            return r
        hat = f"adamw[{m.group(1)}].{m.group(2)}hat[{m.group(3)}]"
        return self._by_ref.get(hat) if ref == m[0] else self.expression(f"sqrt({hat})")     # (√v: √v̂)

    def _node_at(self, ball, group=None, n=None):
        """The quantity (a node, or a function of one: exp(S), S·√d_k) whose value is ``ball``'s, to 2⁻⁴⁰
        relatively (None when none or many); ``group``: only among the groups that pattern matches; ``n``: the
        figure, whose section may name the optimizer of a step two kinds of step take alike."""
        hits = self._nodes_at(ball, group)
        runs = {(RUN_PREFIX.sub("", c.group), c.idx) for c in hits if RUN_PREFIX.match(c.group)}
        if len(hits) > 1 and len(runs) == 1 and all(RUN_PREFIX.match(c.group) for c in hits):
            said = OPTIMIZER_SAID.findall(" ".join((n.heading, getattr(n, "over", ""))) if n is not None else "")
            named = [c for c in hits if said and c.group.startswith(said[-1].lower())]
            return min(named or hits, key=lambda c: c.key)    # one entry after two steps that move it alike
            #   (the target's row after the head's own step and after SGD's, alike: SGD's under 'One SGD step')
        return hits[0] if len(hits) == 1 else None

    def _nodes_at(self, ball, group=None) -> list:
        """Every node :meth:`_node_at` may name at ``ball`` (Z[2,0] and R[2,0] = ReLU(Z[2,0]) alike)."""
        if self._by_value is None:
            self._by_value = sorted((float(c.ball.mid()), k, c) for k, c in enumerate(self.cands)
                                    if c.group not in self.d.spec.params and not c.scoped and not c.derived
                                    and not isinstance(c.ball, fmpq) and c.ball.is_finite())
        x = float(ball.mid())
        w = abs(x) * 2.0 ** -40 + 1e-300
        lo = bisect.bisect_left(self._by_value, (x - w,))
        hits = {self._node(c): c for v, _, c in self._by_value[lo:lo + 8] if abs(v - x) <= w
                and (group is None or group.fullmatch(c.group)) and (c.ball - ball).contains(0)}
        return list(hits.values())

    def _function(self, n, found: dict):
        """exp(−0.12) ≈ 0.8781: exp of the quantity the figure inside was found to be (None if none)."""
        lab = self.functions.get(n.index)
        inner = found.get(lab.inner) if lab is not None else None
        if inner is None or inner.derived or n.kind not in ("decimal", "percent"):
            return None
        if lab.name == "after":
            return self.notation.after(inner, n)
        if lab.name == "same":
            return inner if PERCENT_OF.search(inner.group) else None    # 0,3467, cioè il 34,67%: that share
        return self.notation.function(lab.name, inner)

    def _judged(self, n, c: Candidate, axes: tuple | None = None) -> Result:
        """The verdict on a figure whose place names ``c`` and which does not round from it (transposed when the
        entry with its indices on ``axes`` swapped does; by default its last two: a score's query and key)."""
        chain_ok, chain_value = _chain_rounds(self, n)
        a, b = axes if axes is not None else (len(c.idx) - 2, len(c.idx) - 1)
        swapped = list(c.idx)
        if 0 <= a and len(swapped) > max(a, b):
            swapped[a], swapped[b] = swapped[b], swapped[a]
        transposed = a >= 0 and len(c.idx) > max(a, b) and c.idx[a] != c.idx[b] and any(
            x.group == c.group and x.of == c.of and x.idx == tuple(swapped) and self.rounds(x, n) for x in self.every)
        #     (every: the entry's own tensor, whatever the text speaks of — a batch's mean gradient in an AdamW text)
        if chain_ok and self._transposed_operand(n, c):
            chain_ok, transposed = False, True    # q₃,₂ = 1.209 × 0.2 + …: W_Q[1,0] read for W_Q[0,1]
        other = self._other_form(n, c) if chain_ok else None
        if other is not None:
            chain_ok = False                      # q̃[3] = q[3]·cos θ = 0.1748 where q̃[3] = q[3]·cos θ − q[4]·sin θ:
            #                                       its operands give it, but its formula is not c's
        res = wrong(n, c, [c.ref], LABELLED, chain_ok=chain_ok, chain_value=chain_value, transposed=transposed,
                    d=self.d)
        if other and res.verdict == "wrong" and res.cause == "plain error":
            res = dataclasses.replace(res, cause=other)
        return res

    def _other_form(self, n, c) -> str | None:
        """When the figure's chain, on the quantities its operands were found to be, computes something far from
        ``c`` (beyond what rounding its operands could do: 1 % and 20 of the figure's last places), a formula other
        than c's and not c's own carried rounding: 'forgotten term' when it is c's definition with one term of a
        sum left out, else ''. None when the chain computes c."""
        dc = self.derived(n, self._found) if "_numbers" in self._found else None
        x, y = (_mid(dc.ball) if dc is not None and not isinstance(dc.ball, fmpq) else None), _mid(c.ball)
        if x is None or y is None:
            return None
        ulp = Fraction(1, 10 ** n.decimals) / (100 if n.kind == "percent" else 1)
        if abs(x - y) <= max(20 * ulp, abs(y) / 100):
            return None
        return "forgotten term" if self._term_left_out(c, x) else ""

    def _term_left_out(self, c, x: Fraction) -> bool:
        """Whether ``c``'s definition with one term of one of its sums left out has the value x (to 2⁻³⁰)."""
        try:
            e = self._definition(c.ref)
        except Exception:  # noqa: BLE001 - not a node of the graph
            return False
        sums = list(itertools.islice((a for a in sympy_preorder(e) if a.is_Add), 8))
        for a in sums:
            for t in a.args[:FORM_OPERANDS]:
                try:
                    v = self.expression(str(e.subs(a, a - t)))
                except Exception:  # noqa: BLE001 - a form the expression reader does not take
                    continue
                y = _mid(v.ball) if v is not None and not isinstance(v.ball, fmpq) else None
                if y is not None and abs(y - x) <= abs(x) * Fraction(1, 2 ** 30) + Fraction(1, 10 ** 12):
                    return True
        return False

    def _transposed_operand(self, n, c) -> bool:
        """Whether the figure's arithmetic reads a matrix entry whose transpose, not itself, is what ``c``'s
        definition reads: its printed operands give it, but one of them is the wrong entry."""
        numbers = self._found.get("_numbers", [])
        if not n.operands or not numbers:
            return False
        try:
            keys = {str(x) for x in self._definition(c.ref).free_symbols}
        except Exception:  # noqa: BLE001 - not a node of the graph
            return False
        by_key = {(x.group, x.of, x.idx): x for x in self.cands if len(x.idx) == 2}
        for i in n.operands:                # (0.5 may print H0[0,0] as well as W_Q[1,0]: any entry it rounds from)
            m = numbers[i]
            for op in (x for x in self.nearby(m, *cell(m)) if len(x.idx) == 2 and x.idx[0] != x.idx[1]):
                mirror = by_key.get((op.group, op.of, op.idx[::-1]))
                if mirror is not None and op.key not in keys and mirror.key in keys and self.rounds(op, m) and \
                        not self.rounds(mirror, m):
                    return True
        return False

    def _right(self, results: list) -> list:
        """No figure is wrong whose quantity rounds to it: a verdict reached through an equation's arithmetic
        (``(1.000, …) + (0.340, …) = (1.340, …)``) is matched when the quantity itself prints so."""
        by_ref = self._by_ref
        for k, r in enumerate(results):
            c = by_ref.get(r.ref) if r.verdict == "wrong" else None
            if c is not None and self.rounds(c, r.number):
                results[k] = dataclasses.replace(r, verdict="matched", cause=None, correct=None, distance=None,
                                                 chain_value=None)
        return results

    def _runs(self, results: list) -> list:
        """A row of figures that prints consecutive entries of one tensor (``GELU(z₃ₖ) | 1.017 | −0.012 | …``,
        no label the notation knows): when most of its cells match T[…, k + c] with k their place in the row, a
        cell between two such cells is the entry of its own place, whatever other entry its value equals.  A
        copy of its left neighbour is then wrong as that entry, not matched to the neighbour.  A row of three
        whose two outer cells agree (``skoor(3,j)  -0,3233  -0,3058  0,1506``) names its middle cell only when that
        entry explains its value by a cause (:data:`EXPLAINED`: a sign flipped, an index transposed)."""
        by_ref = self._by_ref
        by_key = {(c.group, c.of, c.idx): c for c in self.cands}
        rows: dict = {}
        operands = {i for r in results for i in (r.number.operands or ())}
        for k, r in enumerate(results):
            n = r.number
            if n.cell >= 0 and n.width >= PAIR + 1 and n.index not in self.labelled:
                rows.setdefault((n.line, n.row), []).append(k)
        #     (an equation's operands count among a row's cells but are none of its run: x₀ × W₀₁ + x₁ × W₁₁, x's
        #      entries equal to W's, is no row of W whose middle cell slipped)
        for ks in rows.values():
            fits: dict = {}       # (group, of, axis, the other indices, index − place) → the places that fit
            for k in ks:
                r = results[k]
                if r.number.index in operands:
                    continue
                for c in (by_ref.get(x) for x in r.candidates) if r.verdict in ("matched", "ambiguous") else ():
                    for a in range(len(c.idx) if c is not None else 0):
                        key = (c.group, c.of, a, c.idx[:a] + c.idx[a + 1:], c.idx[a] - r.number.cell)
                        fits.setdefault(key, set()).add(r.number.cell)
            most = max(map(len, fits.values()), default=0)
            pair = most == PAIR                                # two about a third: only a cause names it
            if (most < RUN or most < 0.6 * len(ks)) and not pair:
                continue
            best = [key for key, places in fits.items() if len(places) == most]   # p and ∂ℒ/∂z agree off the target
            places = fits[best[0]]
            if most <= RUN and any(results[k].number.significant < 3 for k in ks if results[k].number.cell in places):
                continue                 # three short figures agreeing by chance are no run
            first, last = min(results[j].number.cell for j in ks), max(results[j].number.cell for j in ks)
            for k in ks:
                n = results[k].number
                if n.index in operands:
                    continue
                inside = n.cell - 1 in places and n.cell + 1 in places
                edge = most >= RUN + 1 and not pair and ({n.cell + 1, n.cell + 2} <= places and n.cell == first or
                                                         {n.cell - 1, n.cell - 2} <= places and n.cell == last)
                #      (a row's first or last cell, four of its cells agreeing)
                if n.cell in places or not (inside or edge):
                    continue
                at = [by_key.get((g, of, rest[:a] + (n.cell + shift,) + rest[a:])) for g, of, a, rest, shift in best]
                at = [c for c in at if c is not None]
                ok = [c for c in at if self.rounds(c, n)]
                if ok and ok[0].ref != results[k].ref:
                    results[k] = Result(n, "matched", ok[0].ref, [c.ref for c in ok], LABELLED)
                elif not ok and len(at) == 1 and len(best) == 1 and not _subtracted(n):
                    res = self._judged(n, at[0])
                    if not pair or res.verdict == "wrong" and res.cause in EXPLAINED and (
                            results[k].verdict != "matched" or by_ref[results[k].ref].group == at[0].group):
                        results[k] = res
        return results

    def _entry_rows(self, results: list) -> list:
        """A table row whose cells print one parameter entry's states (``W_{2,7}^{fc} | g | m₁ | v₁ | m̂₁ | v̂₁``):
        where two of its cells match that entry's states, a cell no quantity rounds to that exactly one other state
        of the entry explains by a cause (a sign turned, digits swapped, a last digit slipped, …) is that state,
        found wrong; it was left unmatched."""
        rows: dict = {}
        for k, r in enumerate(results):
            n = r.number
            if n.cell >= 0 and n.width >= 3 and n.row and not re.search(r"[=≈]", n.line_text):   # (no equation)
                rows.setdefault((n.line, n.row), []).append(k)
        states = None
        for ks in rows.values():
            if not any(results[k].verdict == "unmatched" for k in ks):
                continue
            votes: dict = {}
            for k in ks:
                c = self._by_ref.get(results[k].ref) if results[k].verdict == "matched" else None
                if c is not None and c.group not in self.d.spec.params and (e := self._param_entry(c)) is not None:
                    votes[e] = votes.get(e, 0) + 1     # (its states: a weight's own value is no evidence)
            if not votes or max(votes.values()) < PAIR or list(votes.values()).count(max(votes.values())) > 1:
                continue
            entry = max(votes, key=votes.get)
            if states is None:
                states = {}
                for c in self.cands:
                    if (e := self._param_entry(c)) is not None:
                        states.setdefault(e, []).append(c)
            for k in ks:
                if results[k].verdict != "unmatched" or results[k].number.kind != "decimal":
                    continue
                judged = {res.ref: res for c in states.get(entry, ()) if c.group not in self.d.spec.params and
                          "(" not in c.ref and
                          (res := self._judged(results[k].number, c)).verdict == "wrong" and res.cause in ROW_CAUSES}
                if len(judged) == 1:
                    results[k] = next(iter(judged.values()))
        return results

    def _param_entry(self, c) -> tuple | None:
        """The parameter entry a candidate is a state of: (W_1, (1, 6)) for W_1[1,6], grad_W_1[1,6] and
        adamw[1].m[W_1,1,6]; None for any other quantity."""
        params = self.d.spec.params
        if c.of:
            return (c.of, c.idx) if c.of in params else None
        bare = RUN_PREFIX.sub("", c.group).removeprefix("grad_")
        return (bare, c.idx) if bare in params and not RUN_PREFIX.match(c.group) else None

    def _grids(self, results: list, numbers: list) -> list:
        """A matrix or a table that prints entries of one tensor at their places (``S_{,2} = (…)`` for head 2's
        scores, ``V_{,2}`` for V's columns 2 and 3, a table with rows t and columns s): when most of its figures
        match T[…, i + a, …, j + b, …] at their place (i, j), a figure between them is the entry of its own place,
        whatever other entry its value equals.  A transposed score is then wrong as its own entry, not matched to
        its mirror image; a copy of a neighbour is wrong as the entry it stands for."""
        by_ref = self._by_ref
        by_key = {(c.group, c.of, c.idx): c for c in self.cands}
        at = {r.number.index: k for k, r in enumerate(results)}
        for grid in grids(numbers, getattr(self, "read", {})):
            self._grid(results, grid, at, by_ref, by_key)
            for row in {p[0] for _, p in grid}:
                cells = [(i, p) for i, p in grid if p[0] == row]
                if len(cells) >= ROW_CELLS:  # a table's row that prints one vector: 'r_3  0.434 1.137 −0.544 0.296'
                    self._grid(results, cells, at, by_ref, by_key, edges=True)
        return results

    def _grid(self, results: list, grid: list, at: dict, by_ref: dict, by_key: dict, edges: bool = False):
        """:meth:`_grids` on one grid; ``edges``: a row whose every other cell fits names its cells at either
        end too (not only those between fitting ones)."""
        fits: dict = {}       # (group, of, row axis, column axis, other indices, offsets) → places that fit
        for i, place in grid:
            r = results[at[i]]
            if r.number.significant < 2:
                continue             # 0.000, 1.0, a masked cell's 0: equal to too many entries to vote
            for c in (by_ref.get(x) for x in r.candidates) if r.verdict in ("matched", "ambiguous") else ():
                for a, b in itertools.permutations(range(len(c.idx) if c is not None else 0), 2):
                    rest = tuple(x for k, x in enumerate(c.idx) if k not in (a, b))
                    key = (c.group, c.of, a, b, rest, c.idx[a] - place[0], c.idx[b] - place[1])
                    fits.setdefault(key, set()).add(place)
        most = max(map(len, fits.values()), default=0)
        if most < GRID or most < GRID_SHARE * len(grid):
            return
        best = [key for key, places in fits.items() if len(places) == most]
        places = fits[best[0]]
        if most == GRID and any(results[at[i]].number.significant < 3 for i, p in grid if p in places):
            return                   # three short figures agreeing by chance are no grid
        rows, cols = {p[0] for p in places}, {p[1] for p in places}
        if edges and most == len(grid) - 1:
            cols = {p[1] for _, p in grid}      # (every other cell of the row fits: its odd cell may stand at an end)
        for i, place in grid:
            k = at[i]
            n = results[k].number
            if place in places or place[0] not in rows or place[1] not in cols or i in self.labelled or \
                    n.significant < 2:
                continue
            entries = [by_key.get((g, of, _placed(rest, a, b, place[0] + da, place[1] + db)))
                       for g, of, a, b, rest, da, db in best]
            entries = [c for c in entries if c is not None]
            ok = [c for c in entries if self.rounds(c, n)]
            if ok and ok[0].ref != results[k].ref:
                results[k] = Result(n, "matched", ok[0].ref, [c.ref for c in ok], LABELLED)
            elif not ok and len(entries) == 1 and len(best) == 1 and not _subtracted(n):
                results[k] = self._judged(n, entries[0], best[0][2:4])

    def _moved(self, n, c, numbers) -> bool:
        """Whether the figure is the result of arithmetic on the figure before it, which is the named quantity
        itself (``W[1,på] = -0.3 + h = -0.2999``: a gradient check's nudged weight, not a wrong W)."""
        m = numbers[n.index - 1] if n.index > 0 and numbers[n.index - 1].index == n.index - 1 else None
        return m is not None and m.line == n.line and MOVED.fullmatch(n.before) is not None and self.rounds(c, m)

    def _acknowledged(self, results: list, numbers: list) -> list:
        """A sum of rounded figures the text itself rounds to its quantity (``… = −0.0001 ≈ 0``), or a carried
        rounding the words after it say is off by rounding (``… = 0.9999, below 1 by rounding``), is the author's
        own account of the rounding, not a wrong figure; nor is the same figure repeated on its line."""
        by_ref, kept = {c.ref: c for c in self.cands}, set()
        for k, r in enumerate(results):
            n = r.number
            after = APPROX_NEXT.match(n.line_text, n.col + len(n.text)) if r.verdict == "wrong" and r.ref else None
            nxt = next((m for m in numbers[k + 1:k + 2] if m.line == n.line and after and m.col == after.end()), None)
            closes = nxt is not None and n.chain and _chain_rounds(self, n)[0]   # its printed operands give it
            c = (by_ref.get(r.ref) or self.expression(r.ref)) if closes else None
            if c is not None and nxt.kind in ("integer", "decimal") and self.rounds(c, nxt):
                kept.add((n.line, n.text, r.ref))
            if r.verdict == "wrong" and r.cause == "carried rounding" and \
                    ROUNDING_SAID.search(n.line_text[n.col + len(n.text):][:120]):
                kept.add((n.line, n.text, r.ref))      # '… = 0.9999, below 1 by rounding': said, not a slip
        return [dataclasses.replace(r, verdict="matched", cause=None, correct=None, distance=None, chain_value=None)
                if r.verdict == "wrong" and (r.number.line, r.number.text, r.ref) in kept else r for r in results]

    def _named(self, n, ctx, prev, ranked):
        """(score, candidate) when the context names one quantity near the figure far more strongly
        (by STRONG_NAMING, and STRONG_GAP above the best candidate that rounds to it), else None."""
        if n.kind not in ("decimal", "percent") or _operand(n) or not (n.chain or n.array or n.table):
            return None
        if FORMATS.search(" ".join((n.column, n.row, n.table))):
            return None                 # a bfloat16 value beside the exact one: that format's, not a slip
        lo, hi = near_window(n)
        scored = sorted(((score(c, ctx, prev), i, c) for i, c in enumerate(self.nearby(n, lo, hi))),
                        key=lambda t: (-t[0], t[1]))
        if not scored or scored[0][0] < STRONG_NAMING or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return None
        top = scored[0][2]
        if not _pinned(top, ctx) or _integral(top.ball) or self.rounds(top, n):
            return None
        if ranked and scored[0][0] < ranked[0][0] + STRONG_GAP and _pinned(ranked[0][2], ctx):
            return None                 # a quantity that rounds to it is named about as well
        if any(_base(r[2]) == _base(top) for r in ranked):
            return None                 # p printed after an update is sgd[1].p: the same symbol, another state
        return scored[0][0], top

    def _definition(self, ref: str):
        """A node's definition over the graph's own node names (``p[4]``, as candidates' keys are)."""
        return self.d.definitions.definition(self.d.node(ref))

    def _node(self, c: Candidate) -> str:
        """The node a candidate names, through definitions that are a single other node
        (X[0,0] := E[2,0], h_final[0] := LN2[1,0]); its own key otherwise."""
        if c.key not in self._alias:
            key = c.key
            try:
                e = self._definition(c.ref) if not c.derived and "(" not in c.ref else None
                if e is not None and e.is_Symbol:
                    key = str(e)
            except Exception:  # noqa: BLE001 - not a graph node: itself
                pass
            self._alias[c.key] = key
        return self._alias[c.key]

    def _reads(self, c: Candidate, keys: set) -> bool:
        """The node's definition reads one of these quantities (A_den[1] reads A_num[1,0]; R[1,0] = 0.2 does
        not read the R[1,1] and W_2[1,0] of 0.5 × 0.4 = 0.2); True for what is not a node of the graph."""
        if c.group not in self.graph:
            return True
        try:
            return bool({str(x) for x in self._definition(c.ref).free_symbols} & keys)
        except Exception:  # noqa: BLE001 - a node without a definition (a parameter)
            return False

    def _transposed(self, ctx, best: Candidate):
        """The candidate the context names by symbol and both indices (``W[1,0]``, when ``best`` is its
        transpose ``W[0,1]`` and it does not itself round to the figure), else None."""
        if len(ctx.sym_idx) != 2 or best.idx != ctx.sym_idx[::-1] or best.idx == ctx.sym_idx:
            return None
        named = [c for c in self.cands if c.group == best.group and c.idx == ctx.sym_idx]
        if len(named) != 1 or ctx.symbol not in _names(best):
            return None
        return named[0]

    @staticmethod
    def _same_token(n, tied: list, numbers, found: dict):
        """Among tied entries of one group that differ only in their token (1/3 is every token's
        probability at T → ∞), the one for the token the line's last matched figure is about; else None."""
        cands = [r[2] for r in tied]
        if len(cands) < 2 or len({(c.group, c.axes) for c in cands}) != 1 or "v" not in cands[0].axes:
            return None
        for x in reversed(numbers[:n.index] if numbers and numbers[0].index == 0 else []):
            if x.line != n.line:
                return None
            c = found.get(x.index)
            if c is not None and "v" in c.axes:
                token = c.idx[c.axes.index("v")]
                same = [r for r in tied if r[2].idx[r[2].axes.index("v")] == token]    # (one axes: above)
                return same[:1] if len(same) == 1 else None
        return None

    def _inputs(self, results) -> dict:
        """line → the quantities the definitions of its equations' results read (canonical keys), and
        figure index → the key of the factor it is, where a printed product ``a × b`` matches one term
        of the definition by value (``0.500 × 0.3`` in ``q0,0 = …`` is ``H0[0,0]·W_Q[0,0]``)."""
        import sympy
        graph = {p.partition("[")[0] for p, _, _ in self.d._registry.groups()}
        by_key = {c.key: c for c in self.cands}
        out: dict = {}
        products: dict = {}      # figure a → figure b → the (factor of a, factor of b) pairs of a × b
        texts = {r.number.line: r.number.line_text for r in results}
        for r in results:
            if r.verdict not in ("matched", "wrong") or not r.ref:
                continue
            step = rule(self.d, r.ref)                 # m = 0.1 × g beside m's figure: (1 − β₁)·g
            if step is not None:
                out.setdefault(r.number.line, set()).update(
                    str(f) for t in (step, *sympy.Add.make_args(step)) for f in sympy.Mul.make_args(t)
                    if f.is_Symbol or f.is_Add and str(f) in by_key)
            if not r.number.chain:
                continue
            c = next((c for c in self.cands if c.ref == r.ref), None)
            inner = re.fullmatch(r"(?:exp|sqrt|log)\((.+)\)", c.ref) if c is not None else None
            arg = next((x for x in self.cands if inner and x.ref == inner[1]), None)
            if arg is not None:             # exp(0.400) = 1.492 is exp(logits[爱]): the 0.400 is logits[爱]
                out.setdefault(r.number.line, set()).add(arg.key)
                continue
            if c is None or c.group not in graph and step is None:
                continue
            try:
                definition = self._definition(c.ref) if step is None else step
            except Exception:  # noqa: BLE001 - a node without a definition (a parameter)
                continue
            keys = {str(x) for x in definition.free_symbols}
            out.setdefault(r.number.line, set()).update(keys)        # not the subject: it is no operand of itself
            lines, todo = {r.number.line}, list(r.number.operands)
            while todo:                          # the lines its chain reads, and theirs (= … = … over 3 lines)
                x = results[todo.pop()].number
                if x.line not in lines and len(lines) < 4:
                    lines.add(x.line)
                    todo += x.operands
            for at in sorted(lines, reverse=True):      # '   = (0.200 + 0.0915, …)' continues the line above
                prior = max((k for k in texts if k < at), default=None)
                if texts[at].lstrip().startswith("=") and prior is not None and at - prior <= 2 and len(lines) < 4:
                    lines.add(prior)
            line = [x.number for x in results if x.number.line in lines]    # with the line an equation continues
            terms = [(t, [str(f) for f in sympy.Mul.make_args(t) if f.is_Symbol])
                     for t in sympy.Add.make_args(sympy.expand(definition))]
            for k, a in enumerate(line[:-1]):
                if not re.fullmatch(r"\s*\)?\s*(?:[×*·]|\\times)\s*\(?\s*", a.after):
                    continue
                group = [line[k + 1]]               # a × b: one term's factors; a × (b, c): a times each
                if re.search(r"\(\s*$", a.after):
                    for b in line[k + 2:]:
                        if ")" in group[-1].after or "," not in group[-1].after:
                            break
                        group.append(b)
                for b in group:
                    products.setdefault(a.index, {}).setdefault(b.index, set()).update(
                        (x, y) for _, fs in terms if len(fs) == 2 and all(f in by_key for f in fs)
                        for x, y in (fs, fs[::-1]) if by_key[x].meets(*cell(a)) and by_key[y].meets(*cell(b)))
            for b in line:                                                      # … + 0.1 is b_1[k]
                if (re.search(r"\+\s*$", b.before) or re.match(r"\s*\+", b.after) and not
                        re.search(r"(?:[×*/·]|\\times)\s*\(?\s*$", b.before)) and \
                        not re.match(r"\s*(?:[×*/·]|\\times)", b.after):      # … and 0.5 + … is X[0,0]
                    for t, fs in terms:
                        if t.is_Symbol and str(t) in by_key and by_key[str(t)].meets(*cell(b)):
                            out.setdefault(("factor", b.index), set()).add(str(t))
        for a, by_b in products.items():        # over every equation the line's products feed
            xs = [{x for x, _ in ps} for ps in by_b.values() if ps]
            if not xs:
                continue
            mine = set.intersection(*xs) or set.union(*xs)      # 0 × (0.3, 0.5): the factor every component pairs
            out.setdefault(("factor", a), set()).update(mine)
            for b, ps in by_b.items():
                out.setdefault(("factor", b), set()).update(y for x, y in ps if x in mine)
        return {k: frozenset(v) for k, v in out.items()}

    def _match(self, numbers, inputs: dict) -> list:
        found: dict = {"_text": {n.index: n.text for n in numbers}, "_numbers": numbers}
        prev: list = []
        printed_as: dict = {}     # a figure's text → the quantity it was matched to (a reprint is the same)
        sure_of: set = set()      # figures matched with a context that names their quantity
        found["_sure"] = sure_of
        self._found = found       # (what each figure was found to be so far: _judged reads the operands')
        wrong_as: dict = {}       # a wrong figure's text → its Result
        derived_as: dict = {}     # a figure's text → (the arithmetic it was matched to, its line)
        out = []
        for n in numbers:
            if not readable(n) or SIGNATURE.match(n.line_text):
                out.append(Result(n, "unmatched"))     # 1e400, 1e-300: beyond every float; no quantity's;
                prev.append(None)                      # def grad(w, eps=1e-6): a default, no claim
                continue
            c = self.labelled.get(n.index) or self._function(n, found) or self._stepped(n, found)
            if c is not None and not self.rounds(c, n) and self._moved(n, c, numbers):
                c = None                    # W = −0.3 + h = −0.2999: the quantity moved, not the quantity
            if c is not None and c.group in SETTINGS and not self.rounds(c, n):
                c = None                    # 'h = 10⁻⁵' where the spec's h is 10⁻⁴: another setting the text states
            if c is not None and not self.rounds(c, n) and (n.section == n.line or SCIENTIFIC.search(n.text)) and \
                    LETTER.fullmatch(getattr(self.read.get(n.index), "name", "")):
                c = next((x for x in self._settings() if self.rounds(x, n)), c)
                #   '13. top-p 采样（P = 0.85）': a heading states a setting, not the quantity its letter names below;
                #   'h = 1e-3' a setting too, written as settings are
            if c is not None and not self.rounds(c, n):
                c = self._other_step(c, n) or self._step_of_section(c, n, out) or c   # L′ after 'the step': the
                #                                                            one step whose loss it is
            if c is not None and not self.rounds(c, n) and n.chain and (q := self._quotient(n, found)) is not None:
                c = q                       # 'W2[1,1]: (L₊ − L₋) / 0.0002 = −0.10480': the entry's check, not it
            form = self._form(n, found, numbers) if c is not None and not self.rounds(c, n) and n.chain and \
                n.index in self.labelled else None
            if form is not None and (self.rounds(form, n) or n.index in self.slip_of) and not _same_value(form, c):
                if form.group == c.group + "_head" and form.idx == c.idx:
                    self.slip_of[n.index] = "forgotten term"   # ∂L/∂E_{v,3} = P(v)·z₃ = …: the head's part alone
                else:
                    c = form                # x^{(1)}_{2,1} = −0.2 + 0.2830 = 0.0830: the node its arithmetic defines,
                #                             exactly and to its digits, outweighs a symbol read as another's (and
                #                             E′ = 0.6 + 0.5·(−0.789) with the head's gradient: the head's step)
            if c is not None:               # its place names it: the value confirms it, or it is wrong
                res = Result(n, "matched", c.ref, [c.ref], LABELLED) if self.rounds(c, n) else self._judged(n, c)
                if res.verdict == "wrong" and n.index in self.slip_of:
                    res = dataclasses.replace(res, cause=self.slip_of[n.index])
                if res.verdict == "wrong" and n.chain and n.operands and \
                        all(found.get(i) is None for i in n.operands) and _chain_rounds(self, n)[0]:
                    res = Result(n, "unmatched")      # −ln 0.4052 = 0.9034 of a probability no quantity is: its
                    #                                   own arithmetic, right; no claim on the label's loss
                if res.verdict == "wrong" and n.chain and n.operands and self._forgot_y(n, found, numbers, c):
                    res = dataclasses.replace(res, cause="forgotten −y")     # ∂L/∂W_{1,t} = … = 0.3 × p_t
                slip = slipped(self, n, context(n, self.vocab), prev, 0.0, _recent(numbers, n, found)) \
                    if n.kind == "percent" and res.cause == "plain error" else None
                if slip is not None:        # '5.91 % to t0' under A's row (0.5907, …): the share its words
                    res = slip              # restate with the point moved, not t0's probability missed
                    c = next(x for x in self.cands if x.ref == slip.ref)
                if res.verdict == "wrong":
                    wrong_as.setdefault(n.text, res)
                elif res.verdict == "matched":
                    printed_as[n.text] = (c.ref, n.line)
                found[n.index] = c
                sure_of.add(n.index)
                prev.append(c)
                out.append(res)
                continue
            lo, hi = cell(n)
            pool = self.nearby(n, lo, hi)
            line_inputs = inputs.get(n.line, frozenset())
            factor = inputs.get(("factor", n.index), frozenset())
            if n.kind == "integer":      # a count or an id; a rounded value only as a factor the equation reads
                pool = [c for c in pool if _integral(c.ball) or c.key in factor]
                if PART_OF.search(n.line_text[max(0, n.col - 24):n.col]):
                    out.append(Result(n, "unmatched"))    # 'the other 34 parameters': a part of a count, no size
                    prev.append(None)
                    continue
            elif n.kind == "percent":    # a share or a rate: 2.25 % is no squared deviation of 0.0225
                pool = [c for c in pool if PERCENT_OF.search(c.group)]
            else:                        # a token's id is printed as an integer: 1.0 is no id
                pool = [c for c in pool if c.group != "id"]
            ctx = context(n, self.vocab)
            hits = [c for c in pool if self.rounds(c, n) and (c.group != "count" or counted(c, ctx))]
            dc = self.derived(n, found)
            confirmed: set = set()
            dc_rounds = dc is not None and rounds_to(dc, n)
            own = [[self._operand(found.get(i), numbers[i], found["_sure"])] for i in n.operands] \
                if dc_rounds else []
            form = self._quotient(n, found) or (
                self._form(n, found, numbers) if n.chain and not dc_rounds else
                self._uncorrected(n, found, own) if dc_rounds else None)
            #      (0.01 × m / (√v + ε) = 0.0316: its own arithmetic, on moments the update divides first)
            forgot = self._without_y(n, found, own) if dc_rounds and form is None else None
            form = form or forgot          # (0.3 × 0.1463 = 0.0439 for ∂L/∂W_{1,t}: x₁·p_t, the −y left out)
            bias = self._left_out(n, found, own) if dc_rounds and form is None else None
            wide = _expanded(n, numbers) if dc_rounds and form is None and bias is None else None
            if wide is not None:           # a·b + c·d = e + f = g: g's form is the products', not the sum of e, f
                bias = self._left_out(wide, found, [[self._operand(found.get(i), numbers[i], found["_sure"])]
                                                    for i in wide.operands])
            form = form or bias            # (x·W = 0.4000 for z = x·W + b: the bias left out)
            form = form or (self._slipped_form(n, found, own) if dc_rounds and n.chain else None)
            if form is not None:           # its arithmetic is a node's definition: the value confirms it or not
                res = Result(n, "matched", form.ref, [form.ref], LABELLED) if self.rounds(form, n) else \
                    self._judged(n, form)
                if forgot is not None and res.verdict == "wrong":
                    res = dataclasses.replace(res, cause="forgotten −y")
                if bias is not None and res.verdict == "wrong":
                    res = dataclasses.replace(res, cause="forgotten term")
                if n.index in self.slip_of and res.verdict == "wrong":
                    res = dataclasses.replace(res, cause=self.slip_of[n.index])
                if res.verdict == "wrong":
                    wrong_as.setdefault(n.text, res)
                found[n.index] = form
                sure_of.add(n.index)
                prev.append(form)
                out.append(res)
                continue
            if dc_rounds:
                reads = {k for i in n.operands if found.get(i) is not None
                         for k in [found[i].key, _inner_key(found[i]),
                                   *re.findall(r"[A-Za-z_][\w.]*\[[^\]]*\]", found[i].ref)]}
                confirmed = {c.ref for c in hits if c.group not in self.d.spec.params and _same_value(c, dc)
                             and self._reads(c, reads)}
                spelled = [found[i].ref for i in n.operands if found.get(i) is not None]
                same = {c.ref for c in hits if "(" in c.ref and not c.derived and len(spelled) == len(n.operands)
                        and all(re.search(rf"(?<![\w.]){re.escape(r)}(?![\w\[])", c.ref) for r in spelled)}
                confirmed |= same      # √0,1350 + 10⁻⁶ = 0,3674 (a radical's bar lost): √(ms1[1] + ε), its operands'
                nodes = {c.ref for c in hits if c.ref in confirmed and (c.group in self.graph or c.ref in same)}
                hits = hits + ([] if nodes else [dc])     # a node it equals names it (Attn[1,1], not a·v + a·v)
            ctx.inputs = line_inputs
            ctx.input_ids = len(self.d.spec.input) > 1 and spells_input(n, self.d.spec.input)
            ctx.factor = factor
            again, where = printed_as.get(n.text, (None, None))
            digits = n.text.strip("-+−%").replace(".", "").lstrip("0")
            if where == n.line and (n.table or n.row or n.column) or len(digits) < 3:
                again = None                 # a table's reprint is on another row (a row may print one value twice)
            plain = len(digits.rstrip("0") if "." in n.text else digits) < 3    # 1.000, 0.500: many quantities'
            exact = len(digits) < 3                  # 1.0, 0.20: a short figure is most likely what it prints
            ranked = sorted(((score(c, ctx, prev) + ((1 if plain else 3) if again is not None and c.ref == again else 0)
                              + (2 if c.ref in confirmed else 0) + (1 if exact and _is(c, n.value) else 0), i, c)
                             for i, c in enumerate(hits)), key=lambda t: (-t[0], t[1]))
            sure = all(i in sure_of for i in n.operands)     # every operand named by its context
            if dc is not None and not dc_rounds and n.chain and sure and (not ranked or ranked[0][0] < 2) \
                    and dc.meets(*near_window(n)):
                ranked = []                  # 0.840 × 0.2 = 0.1680: its own arithmetic outweighs a coincidence
            swapped = self._transposed(ctx, ranked[0][2]) if ranked else None
            named = None if swapped is not None or (dc is not None and dc in hits) else \
                self._named(n, ctx, prev, ranked)
            if named is not None:           # 1.0 in Q's table at t=0, dim 0: Q[0,0] = 1.05, not a 1
                chain_ok, chain_value = _chain_rounds(self, n)
                res = wrong(n, named[1], [named[1].ref] + [r[2].ref for r in ranked[:2]], named[0],
                            chain_ok=chain_ok, chain_value=chain_value, d=self.d)
                wrong_as.setdefault(n.text, res)
                sure_of.add(n.index)              # named beyond doubt: its value carries into the chains
                found[n.index] = named[1]
                prev.append(named[1])
                out.append(res)
                continue
            if swapped is not None:         # W[0,1] printed where the context names W[1,0]
                res = wrong(n, swapped, [r[2].ref for r in ranked[:3]], ranked[0][0], transposed=True, d=self.d)
                wrong_as.setdefault(n.text, res)
                found[n.index] = swapped
                prev.append(swapped)
                out.append(res)
                continue
            loose = ranked and (n.kind == "percent" or ctx.symbol and ranked[0][0] < 1)   # nothing named rounds
            slip = slipped(self, n, ctx, prev, ranked[0][0]) if loose and named is None and swapped is None else None
            if slip is not None:            # 收 0.1% beside weight decay, whose λ is 0.1: a fraction printed as %
                wrong_as.setdefault(n.text, slip)
                found[n.index] = next(c for c in self.cands if c.ref == slip.ref)
                prev.append(found[n.index])
                out.append(slip)
                continue
            if ranked:
                best = ranked[0]
                tied = [r for r in ranked if r[0] == best[0]]
                if len({self._node(r[2]) for r in tied}) == 1:
                    tied = tied[:1]             # X[1,0] and E[爱,0]: one node under two names
                tied = self._same_token(n, tied, numbers, found) or tied
                tied = _with_epsilon(n, tied) or tied
                tied = _last_position(tied, found, numbers, n) or tied
                tied = _denominator(tied)
                tied = _plainest(tied, self.graph)
                if len(tied) > 1 and len({(r[2].idx, r[2].axes) for r in tied}) == 1 and \
                        isinstance(tied[0][2].ball, arb) and \
                        all(_one_ball(r[2].ball, tied[0][2].ball) for r in tied[1:]):
                    tied = tied[:1]             # grad_H0[2,0], grad_X[2,0], grad_W_pe[2,0]: one gradient, one ball,
                    #                             under the names of the tensors a sum passes it to unchanged (not
                    #                             two exact weights that happen to be equal, W_K[0,0] = W_2[0,0])
                best = tied[0]
                res = Result(n, "matched" if len(tied) == 1 else "ambiguous", best[2].ref,
                             [r[2].ref for r in ranked[:6]], best[0])
                found[n.index] = best[2]
                prev.append(best[2])
                if res.verdict == "matched":
                    printed_as[n.text] = (best[2].ref, n.line)
                    if best[2].derived:
                        derived_as[n.text] = (best[2], n.line)
                    if best[0] >= SURE:
                        sure_of.add(n.index)
                out.append(res)
                continue
            chain, where = derived_as.get(n.text, (None, n.line))
            if chain is not None and 0 < n.line - where <= 10 and len(digits) >= 3 and _operand(n):   # S0,0 =
                found[n.index] = chain           # 1.130 / 1.4142 divides the dot product printed just above
                prev.append(chain)
                out.append(Result(n, "matched", chain.ref, [chain.ref], 0.0))
                continue
            res = diagnose(self, n, ctx, prev, dc, sure)
            if res.verdict == "wrong" and n.chain and n.operands and \
                    all(found.get(i) is None for i in n.operands) and _chain_rounds(self, n)[0]:
                res = Result(n, "unmatched")   # 7,958·10⁻⁶ / 0,001999 = 0,003981 on operands no quantity is (a later
                #                                step's moment, read by no place): its own arithmetic, right
            if res.verdict == "unmatched" or res.verdict == "wrong" and res.cause == "plain error":
                res = slipped(self, n, ctx, prev, 0.0, _recent(numbers, n, found)) or res
                #      (0.851 where the context names 0.0851, or where 0.0851 was printed just above: a slip that
                #       gives its digits outweighs a named quantity it misses by a plain error)
            if res.verdict != "wrong" and n.text in wrong_as:
                res = _reprint(wrong_as[n.text], n)
            if res.verdict == "wrong":
                wrong_as.setdefault(n.text, res)
                if res.score >= SURE:
                    sure_of.add(n.index)
            if res.verdict == "wrong" and res.ref:
                c = next((c for c in self.cands if c.ref == res.ref), dc)
                found[n.index] = c
                prev.append(c)
            else:
                prev.append(None)
            out.append(res)
        return [Result(r.number, "matched", r.ref, [r.ref], r.score) if r.verdict == "wrong" and
                r.cause == "sign flip" and (_subtracted(r.number) or _step_size(r)) else r for r in out]
        #       (0.2 − 0.4161 for 0.2 + cos 2: a term after a binary minus is the entry's size, no flipped sign)


def _is(c, value: Fraction) -> bool:
    """The quantity is exactly the printed value (γ = 1.0 in 1.0 × 0.9788, not an H2 entry of 0.9788 that rounds
    to it): what a short figure most likely is."""
    return isinstance(c.ball, fmpq) and Fraction(int(c.ball.p), int(c.ball.q)) == value


def _one_ball(a, b) -> bool:
    """Whether two values are one ball: the same midpoint and radius, or the same exact number.

    >>> from flint import arb, fmpq
    >>> _one_ball(arb(1, 1e-9), arb(1, 1e-9)), _one_ball(arb(1, 1e-9), arb(1, 2e-9)), _one_ball(fmpq(1, 3), fmpq(1, 3))
    (True, False, True)
    """
    if isinstance(a, arb) and isinstance(b, arb):
        return bool(a.mid() == b.mid() and a.rad() == b.rad())
    return type(a) is type(b) and a == b


def _plainest(tied: list, graph) -> list:
    """Of quantities that print alike, the one a text prints by its own name: a node of the graph over
    arithmetic on nodes (σ₃² = var1[3], not (H1[3,0] − mu1[3])², equal at d = 2), and a run's step over the same
    step taken in the wrong order (sgd[1].loss, not sgd_wrong_order[1].loss); a gradient over its head's part.

    >>> from types import SimpleNamespace as S
    >>> [t[2].ref for t in _plainest([(5, 0, S(ref="var1[3]", group="var1")),
    ...                               (5, 1, S(ref="(H1[3,0]-mu1[3])^2", group="chain"))], {"var1"})]
    ['var1[3]']
    """
    if len(tied) < 2:
        return tied
    ordered = [t for t in tied if not t[2].ref.startswith("sgd_wrong_order")]
    tied = ordered or tied
    groups = {t[2].group for t in tied}
    whole = [t for t in tied if not (t[2].group.endswith("_head") and t[2].group.removesuffix("_head") in groups)]
    tied = whole or tied            # ∂L/∂E of a word that is no input: E's gradient, not its head's part (equal)
    nodes = [t for t in tied if t[2].group in graph]
    return nodes if len(nodes) == 1 else tied


def _denominator(tied: list) -> list:
    """Of √(σ²) and √(σ² + ε) that print alike, the norm's denominator √(σ² + ε): what a worked row divides by.

    >>> from types import SimpleNamespace as S
    >>> [t[2].ref for t in _denominator([(5, 0, S(ref="sqrt(var1[2])")), (5, 1, S(ref="sqrt(var1[2] + ln_eps)"))])]
    ['sqrt(var1[2] + ln_eps)']
    """
    refs = {t[2].ref for t in tied}
    return [t for t in tied if not (t[2].ref.startswith("sqrt(") and f"{t[2].ref[:-1]} + ln_eps)" in refs)]


STEPS = ("sgd[1]", "adamw[1]", "head_step")
STEP_STATE = re.compile(r"(sgd\[1\]|adamw\[1\]|head_step)\.(.+)")
"""A state after one step: the kind of step, and the quantity (``sgd[1].loss``, ``head_step.p[を]``)."""
SIGNATURE = re.compile(r"\s*(?:async\s+)?def\s+\w+\s*\(")
"""A Python function's signature: its keyword defaults (``eps=1e-6``) are the code's, not the model's."""

RECENT_LINES = 3     # a slipped figure is the quantity printed this many lines above it, or on its own line …
RECENT_SHARES = 30   # … or, for a percentage, the share printed this many lines above (the words after a matrix)


def _recent(numbers: list, n, found: dict) -> frozenset:
    """The quantities of the figures on the lines just above ``n`` (and before it on its own line): a walk back
    from ``n`` that stops at the first figure further up (figures come in the text's order).  A percentage
    looks further, at shares only: the paragraph that says a matrix's weights in words sits below it."""
    out = set()
    k = n.index if n.index < len(numbers) and numbers[n.index] is n else numbers.index(n)
    far = RECENT_SHARES if n.kind == "percent" else RECENT_LINES
    while k > 0 and n.line - numbers[k - 1].line <= far:
        k -= 1
        c = found.get(numbers[k].index)
        if c is not None and (n.line - numbers[k].line <= RECENT_LINES or PERCENT_OF.search(c.group)):
            out.add(c.ref)
    return frozenset(out)


def _silent(text: str, numbers: list) -> dict:
    """{a section's heading line: the topics of :data:`TOPICS` it never speaks of}, for a text of two or more
    sections (its titles as :func:`symgpt.claims.extract.extract` read them).  A section speaks of what its own
    lines or an enclosing section's say (by the title's level: ``###`` under ``##``, 5.2 under 5), so AdamW's
    moments are values of the AdamW section and its subsections, not of the forward pass above it.  What only
    the text above the first title (or a lone top title) speaks of, the whole text does: 'One AdamW step, by
    hand' over sections that never say AdamW again.

    >>> from symgpt.claims.extract import extract
    >>> text = "# SGD and AdamW\\n## 1. Forward\\nloss = 2.5\\n## 2. AdamW\\n### 2.1 Moments\\nm = 0.025\\n"
    >>> _silent(text, extract(text))
    {2: {0, 2, 3, 4, 5}, 5: {2, 3, 4, 5}}
    >>> text = "# One AdamW step\\n## 1. Forward\\nloss = 2.5\\n## 2. The step\\nm = 0.025\\n"
    >>> _silent(text, extract(text))
    {2: {1, 2, 3, 4, 5}, 4: {1, 2, 3, 4, 5}}
    """
    starts = sorted({n.section for n in numbers})
    titles, numbered = {}, {}
    for at, level, number in getattr(numbers, "headings", ()):     # 2.1 under '## 2.': one level below it
        outer = numbered.get(number.rpartition(".")[0]) if "." in number else None
        titles[at] = max(level, titles[outer] + 1) if outer is not None else level
        numbered[number] = at if number else None
    if len(starts) < 2 or not titles:
        return {}
    lines = re.split(r"\r\n|\r|\n", text)
    heads = sorted({0, *titles})
    top = min(titles.values())
    title = {s for s, v in titles.items() if v == top} if sum(v == top for v in titles.values()) == 1 else set()
    own, spoken, stack = {}, {}, []      # stack: (level, heading line) of the enclosing sections
    for i, s in enumerate(heads):
        body = "\n".join(lines[max(s - 1, 0):(heads[i + 1] - 1 if i + 1 < len(heads) else len(lines))])
        own[s] = {k for k, (_, about) in enumerate(TOPICS) if about.search(body)}
        level = titles.get(s, 0)
        while stack and stack[-1][0] >= level:
            stack.pop()
        spoken[s] = own[s] | (spoken[stack[-1][1]] if stack else set())
        if s and s not in title:
            stack.append((level, s))
    above = {0, *title}                  # (the preamble and a lone title: what the document is about)
    only_above = set().union(*(own[s] for s in above if s in own)) - \
        set().union(*(own[s] for s in heads if s not in above))
    return {s: set(range(len(TOPICS))) - spoken[s] - only_above for s in starts}


FINITE_DIFFERENCES = (r"diferències finites|diferència centrada|beza terhingga|beda hingga|sai phân|véges differenci|"
                      r"różnic\w* skończon|eindige verschil|ändliga differens|endelige differens|differenssi|"
                      r"πεπερασμέν\w* διαφορ|konečn\w* diferenc|diferențe finite|परिमित अंतर|الفروق المحدودة|"
                      r"הפרשים סופיים|ผลต่างจำกัด|تفاضل محدود|সসীম পার্থক্য")
"""'Finite differences' in languages :data:`TOPICS` and :data:`MOVED_SAID` name no other way."""
TOPICS = (    # (a candidate's ref, the text a document must hold for it to be matched by value alone)
    (re.compile(r"adamw"), re.compile(r"adam|exp_avg|\bmoments?\b|矩(?!阵)|动量|weight[ _]?decay|权重衰减|Zerfall|"
                                      r"décroissance|β[₁₂12]|beta[12_]|[mv]̂|\\hat\s*\{?\s*[mv]|偏差修正|"
                                      r"bias[- ]?correct|"
                                      r"Bias-Korrektur", re.I)),
    (re.compile(r"^(?:sgd(?!\[0\])|head_step|sgd_wrong_order)\b|^lr\*|^loss - sgd"),   # (sgd[0]: a batch's means)
     re.compile(r"\bsgd\b|gradient descent|learning rate|\blr\b|\bη\b|\beta\b|\bupdat|\.step\(\)|optimi[sz]|"
                r"学习率|更新|梯度下降|Lernrate|Gradientenabstieg|Aktualis|taux d'apprentissage|descente|mise à jour|"
                r"tasa de aprendizaje|descenso|actualiza|paso de|อัตราการเรียนรู้|학습률|경사 ?하강|सीखने की दर|"
                r"öğrenme oranı|gradyan ini|oppimisnopeu|gradienttimenetelm|קצב למידה|ירידת גרדיאנט|"
                r"скорост\w* обучения|градиентн\w* спуск", re.I)),   # a training step: only in a text about one
    (re.compile(r"softmax_T\((?!inf)"), re.compile(r"temperat|温度|\bT\s*=|τ|\\tau\b", re.I)),   # (1/V at T → ∞:
    #                                                                                               uniform)
    (re.compile(r"topk"), re.compile(r"\btop[- _$]{0,3}(?:k|\d+\b)|前\s*(?:k|\d+\s*个)|"
                                     r"(?<![\w.{_])k\s*=\s*\d+(?![\d.,]\d)",
                                     re.I)),
    (re.compile(r"topp"), re.compile(r"\btop[- _$]{0,3}p\b|nucleus|núcleo|nucleo|核采样|"
                                     r"(?<![\w.{_(])p\s*=\s*0(?:[.,]|\{,\})\d(?!\d)", re.I)),
    #                      (k = 3, p = 0.9: the settings; not k = x @ W_k, p = 0.2615, any attention's or softmax's)
    (re.compile(r"^loss_at\(|^\w+\[[^\]]*\] \+ \("), re.compile(     # a gradient check's losses and moved entry
        r"grad\w*[- ]?check|finite[- ]?diff|central[- ]?diff|numerical|différences? (?:finies|centrées)|"
        r"differenze finite|diferencias finitas|diferenças finitas|[Dd]ifferenzenquotient|zentrale\w* Differenz|"
        r"numeri\w*|数值梯度|数値微分|中心差分|差分|수치 ?미분|конечн\w* разност|численн|sonlu fark|"
        r"L\s*\(\s*[θw]\s*[+±]\s*h|L[+₊]|L\(θ\+h\)|[Lℓℒ]\s*\(\s*(?:θ|w|theta)\s*[+±]\s*(?:h|τ|ε|δ|eps)\b|" +
        FINITE_DIFFERENCES, re.I)),
)
SGD_STATES = re.compile(r"^(?:sgd(?!\[0\])|sgd_wrong_order)\b|^loss - sgd")
"""The states of a plain SGD run (not a mini-batch's mean at the start, sgd[0])."""


def made_by(spec) -> dict:
    """Each parameter's name (without its layer's prefix) → the one tensor its op makes (``W_1`` → ``Z``), for
    the parameters that make exactly one kind of tensor (a tied E makes X and the logits: left out).

    >>> import symgpt
    >>> m = made_by(symgpt.load("tiny-transformer").spec)
    >>> m["W_1"], m["W_Q"], "E" in m
    ('Z', 'Q', False)
    """
    outs: dict = {}
    for a in Arch.of(spec).plan(len(spec.input), spec.input, spec.target):
        for role, group in a.params + tuple((g, g) for g in a.ins if g in spec.params):   # E read as an input too
            out = _PROJECTIONS.get(role, a.out)                 # attention's W_Q makes its Q, not its output
            outs.setdefault(group.rpartition(".")[2], set()).add(out.rpartition(".")[2])
    return {p: next(iter(o)) for p, o in outs.items() if len(o) == 1}


def read_by(spec) -> dict:
    """Each weight's name (without its layer's prefix) → the one tensor its op multiplies it with (``W_1`` →
    ``LN1`` after a post-norm block's first norm), for the weights every op of theirs reads one tensor with.

    >>> import symgpt
    >>> r = read_by(symgpt.load("tiny-transformer").spec)
    >>> r["W_1"], r["W_2"], r["W_Q"], "b_1" in r
    ('LN1', 'R', 'H0', False)
    """
    ins: dict = {}
    for a in Arch.of(spec).plan(len(spec.input), spec.input, spec.target):
        tensors = [g for g in a.ins if g not in spec.params]
        for role, group in a.params:
            if role.startswith("W") and len(tensors) == 1:       # (a bias, a norm's γ and β: added, no product)
                ins.setdefault(group.rpartition(".")[2], set()).add(tensors[0].rpartition(".")[2])
    return {p: next(iter(t)) for p, t in ins.items() if len(t) == 1}


_PROJECTIONS = {"W_Q": "Q", "W_K": "K", "W_V": "V"}
"""The tensor each of attention's projections makes inside the op."""


TRAINING = {k for k, (ref, _) in enumerate(TOPICS) if ref.search("sgd[1].loss") or ref.search("adamw[1].loss")}
"""The topics of a training step: SGD's and AdamW's states and moments."""


@dataclasses.dataclass(frozen=True)
class _Literal:
    """A short figure in a chain taken as the number it prints (β₁'s 0.1 in 0.1 × g), not as a quantity."""
    ref: str


FOREIGN_SHARE = 0.25   # a table column with at most this share of its figures matched …
FOREIGN_MIN = 4        # … out of at least this many, is about something this model does not compute


def _foreign_columns(results: list) -> list:
    r"""A table column whose figures are almost all no quantity of this model (the second example of a
    batch beside the first, another model's column) is about something its row labels do not name alone:
    its plain errors are unmatched, with their nearest quantities, not wrong.  (A figure with a cause
    rounding explains, a carried rounding or a slip, stays wrong.)

    >>> import symgpt
    >>> from symgpt.claims.extract import extract
    >>> rows = "| t | ours | theirs |\n|---|---|---|\n" + "".join(f"| {k} | {p} | {q} |\n" for k, p, q in
    ...     [("p(猫)", "0.3673", "0.3600"), ("p(吃)", "0.2832", "0.2900"), ("p(鱼)", "0.3494", "0.3500"),
    ...      ("L", "1.0515", "1.0682")])
    >>> [(r.number.text, r.verdict, r.candidates[:1])
    ...  for r in Matcher(symgpt.load("bigram")).match(extract(rows))][-4:]  # doctest: +NORMALIZE_WHITESPACE
    [('0.3494', 'matched', ['p[鱼]']), ('0.3500', 'unmatched', ['p[鱼]']), ('1.0515', 'matched', ['loss']),
     ('1.0682', 'unmatched', ['loss'])]
    """
    columns: dict = {}
    block, last = 0, None                     # a table: figures on lines no more than 2 apart
    for k, r in enumerate(results):
        n = r.number
        block += last is not None and n.line - last > 2
        last = n.line
        if n.column:
            columns.setdefault((block, n.table, n.column), []).append(k)
    for ks in columns.values():
        matched = sum(results[k].verdict in ("matched", "ambiguous") for k in ks)
        if len(ks) >= FOREIGN_MIN and matched <= FOREIGN_SHARE * len(ks):
            for k in ks:
                if results[k].verdict == "wrong" and results[k].cause == "plain error":
                    results[k] = dataclasses.replace(results[k], verdict="unmatched", ref=None, cause=None,
                                                     correct=None, distance=None)
    return results


def _reprint(first: Result, n) -> Result:
    """A wrong figure printed again: the same quantity, the same cause (its chain is the first printing's)."""
    return dataclasses.replace(first, number=n)


def _placed(rest: tuple, a: int, b: int, i: int, j: int) -> tuple:
    """The index with ``i`` on axis ``a``, ``j`` on axis ``b`` and ``rest`` on the others, in order."""
    out, it = [], iter(rest)
    for k in range(len(rest) + 2):
        out.append(i if k == a else j if k == b else next(it))
    return tuple(out)


CHECKED = ("loss_at", "gradcheck.theta")
QUOTIENT_CHAIN = re.compile(r"\(?[-+]?[\d.]+-\(?[-+]?[\d.]+\)?\)?/.+")
"""A chain that divides a difference of two figures: ``(1.2972-1.2973)/(2*10^(-4))``."""
MOVED_UP = re.compile(r"loss_at\((.+), ([^-,()][^,()]*)\)")
"""A gradient check's loss with its entry moved up: ``loss_at(W[1,2], 1e-4)``."""
"""A gradient check's losses and moved entry: candidates only beside words that move a parameter by h."""
MOVED_SAID = re.compile(r"[+±−-]\s*h\b|[θwW]\s*[+±−-]\s*[εδτ]|\bh\s*[=:]|\b[Lℒ]\s*[+₊−₋±]|[Lℒℓ]\s*\(\s*[θwW]|"
                        r"\((?:L|ℒ)\s*[+₊]|"
                        r"finite|centr|différence|differenz|diferen|numeri|数值|差分|수치|разност|численн|fark|" +
                        FINITE_DIFFERENCES, re.I)
"""The words that move a parameter by a step h (``L(w + h)``, ``L+ = …``, ``h = 0,001``, 'finite differences')."""
OPTIMIZER_SAID = re.compile(r"\b(sgd|adamw?)\b", re.I)
"""An optimizer a heading names ('One SGD step', '9. Один шаг AdamW')."""
RUN_PREFIX = re.compile(r"(?:sgd|adamw)\[\d+\]\.|head_step\.")
"""A training state's run: SGD's, AdamW's or the output head's own step."""
UNCORRECTED_EPS = fmpq(1, 10 ** 5)
"""How near the update a chain on m̂ and v̂ must come: ε = 10⁻⁸ left out moves it by ε/√v̂, far below this."""


def _root_of(ref: str) -> str:
    """The quantity under a square root's sign (``sqrt(adamw[1].v[W,0,0])`` → ``adamw[1].v[W,0,0]``); else ''."""
    return ref[5:-1] if ref.startswith("sqrt(") and ref.endswith(")") and ref.count("(") == 1 else \
        ref if "(" not in ref else ""


PART_OF = re.compile(r"(?:\bother|\bremaining|\brest of(?: the)?|\bübrigen|\bautres|\brestants?|\bdemás|\baltri|"
                     r"\boutros|\bостальн\w*|其余|其他|剩下的?|残りの?|나머지)\s*$", re.I)
"""Words before a count that make it a part of a whole ('the other 34 parameters'), not the model's size."""
EPSILON_SAID = re.compile(r"[εϵ]|\\(?:var)?epsilon|\beps\b|1e-0?[5-9]|10\^?\{?[-−⁻]")
"""A line that writes the norm's ε: its symbol, or its value as a power of ten."""


def _with_epsilon(n, tied: list) -> list | None:
    """Of √σ² and √(σ² + ε), tied (ε moves no printed digit), the ones the line writes: with ε where it writes ε,
    else without; None when no such pair is tied."""
    bare = {re.sub(r"\s*\+\s*\w*eps\b", "", r[2].ref) for r in tied if "eps" in r[2].ref}
    if not bare or not any(r[2].ref in bare for r in tied):
        return None
    said = bool(EPSILON_SAID.search(n.line_text))
    return [r for r in tied if ("eps" in r[2].ref if said else r[2].ref in bare)]


def _last_position(tied: list, found: dict, numbers: list, n) -> list | None:
    """Of one tensor's entries at several positions, tied (their values print alike), the position the figures
    just before it were found at, else the last (a tutorial follows the position that predicts); None for any
    other tie."""
    cands = [r[2] for r in tied]
    if len(cands) < 2 or len({(c.group, c.axes) for c in cands}) != 1 or "t" not in cands[0].axes:
        return None
    a = cands[0].axes.index("t")
    rest = {c.idx[:a] + c.idx[a + 1:] for c in cands}
    if len(rest) != 1:
        return None
    for x in reversed([m for m in numbers[max(0, n.index - 6):n.index] if m.line >= n.line - 2]):
        c = found.get(x.index)
        if c is not None and "t" in c.axes and (same := [r for r in tied if r[2].idx[a] == c.idx[c.axes.index("t")]]):
            return same[:1]
    return [max(tied, key=lambda r: r[2].idx[a])]


def _last_sign_turned(chain: str) -> str | None:
    """The chain with its last term's sign turned (``a*b+c`` → ``a*b-c``), when it ends on a term added or
    subtracted at the top level; else None.

    >>> _last_sign_turned("0.2*0.999+0.0099999991"), _last_sign_turned("(0.3-0.1)*2"), _last_sign_turned("-0.4")
    ('0.2*0.999-0.0099999991', None, None)
    """
    depth = 0
    for i in range(len(chain) - 1, 0, -1):
        ch = chain[i]
        depth += ch == ")"
        depth -= ch == "("
        if depth == 0 and ch in "+-" and chain[i - 1] not in "*/^(eE+-":
            return chain[:i] + ("-" if ch == "+" else "+") + chain[i + 1:]
    return None


def _mid(ball) -> Fraction | None:
    """A value's midpoint as a Fraction (an exact rational as itself); None for a ball that is not finite."""
    if isinstance(ball, fmpq):
        return Fraction(int(ball.p), int(ball.q))
    return Fraction(float(ball.mid())) if ball.is_finite() else None


def _param_of(group: str) -> str:
    """The tensor a group's gradient is of, its parts alike (``grad_E_head`` and ``grad_E`` are both E's).

    >>> _param_of("grad_E_head"), _param_of("grad_E"), _param_of("l0.Z")
    ('E', 'E', 'l0.Z')
    """
    return re.sub(r"_(?:head|early)$", "", group.removeprefix("grad_")) if group.startswith("grad_") else group


def _inner_key(c) -> str:
    """The node a function's candidate applies to, as the graph names it (``exp(z[il])`` → ``z[0]``): what the
    definition of a sum of them reads.

    >>> from symgpt.claims.candidates import Candidate
    >>> exp_z = Candidate("exp(z[il])", "exp(z)", (0,), "v", None, None)
    >>> p = Candidate("p[a]", "p", (1,), "v", None, None)
    >>> _inner_key(exp_z), _inner_key(p)
    ('z[0]', 'p[1]')
    """
    inner = re.fullmatch(r"(?:exp|sqrt|log|tanh|erf)\((.+)\)", c.group)
    return f"{inner[1] if inner else c.group}[{','.join(map(str, c.idx))}]"


def _added_to(n, lines: list) -> bool:
    """Whether a figure is a partial sum the text goes on with: a term follows it on its line (``= 0.4000 + 0.1
    = 0.5000``) or the next lines start from it (``0.4000 + b = …``).

    >>> from symgpt.claims.extract import extract
    >>> f = extract("u = 0.3 × 0.5 = 0.15")[-1]
    >>> _added_to(f, ["u = 0.3 × 0.5 = 0.15", "u + b = 0.15 + 0.1 = 0.25"]), _added_to(f, ["u = 0.3 × 0.5 = 0.15"])
    (True, False)
    """
    rest = n.line_text[n.col + len(n.text):]
    if re.match(r"\s*[+\-−]\s*[\d(]", rest):
        return True
    return any(re.search(rf"(?<![\d.]){re.escape(n.text.lstrip('+'))}\s*[+\-−]\s*[\d(]", x)
               for x in lines[n.line:n.line + 2])


def _step_size(r) -> bool:
    """A step's size told in prose (``W grows by almost 0.05 each step``): an update's magnitude, its sign the
    direction the text says in words, not a sign flipped (never a table's cell or an equation's result)."""
    n = r.number
    return bool(UPDATE.fullmatch(r.ref or "")) and not n.chain and not n.table and not n.column and \
        not re.search(r"[=≈:]\s*[-−]?\s*$", n.line_text[:n.col])


UPDATE = re.compile(r"adamw\[\d+\]\.update\[[^\]]+\]|(?:adamw\.)?lr\*(?:sgd\[\d+\]\.)?grad_\w+\[[^\]]+\]")
"""An optimizer's step on one entry: AdamW's update, η·g."""


def _expanded(n, numbers: list):
    """The figure with its chain's operands that are results of chains of their own on its line written out as
    those chains (``0.5245 × 0.3 + (−0.5245) × (−0.2) = 0.1573 + 0.1049 = 0.2622``: 0.2622 is
    ``(0.5245*0.3)+((-0.5245)*(-0.2))`` on the four leaves), or None when no operand is such a result.

    >>> from symgpt.claims.extract import extract
    >>> ns = extract("f = 0.5245 × 0.3 + (−0.5245) × (−0.2) = 0.1573 + 0.1049 = 0.2622")
    >>> w = _expanded(ns[-1], ns)
    >>> w.chain, [ns[i].text for i in w.operands]
    ('(0.5245*0.3)+((-0.5245)*(-0.2))', ['0.5245', '0.3', '−0.5245', '−0.2'])
    """
    if not n.chain or not n.operands:
        return None
    out, leaves, pos, grown = [], [], 0, False
    for i in n.operands:
        m = numbers[i]
        text = chain_spelling(m.text).lstrip("+")
        k = n.chain.find(text, pos)
        if k < 0:
            return None
        out.append(n.chain[pos:k])
        inner = m.chain is not None and m.operands and m.line == n.line and m.index < n.index and \
            all(j < m.index for j in m.operands)
        out.append(f"({m.chain})" if inner else text)
        leaves += m.operands if inner else [i]
        grown = grown or bool(inner)
        pos = k + len(text)
    if not grown:
        return None
    out.append(n.chain[pos:])
    return dataclasses.replace(n, chain="".join(out), operands=leaves)


def _subtracted(n) -> bool:
    """A figure after a binary minus (``¼(−0.702 − 0.203 + …)``): its entry may be −0.203, printed as a term."""
    return bool(re.fullmatch(r"\s*[-−]\s*", n.before) or re.search(r"[\w)\]}]\s*[-−]\s*$", n.before)) and \
        not n.text.startswith(("-", "−"))     # (before: the text since the last figure)
