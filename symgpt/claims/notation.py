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
from dataclasses import dataclass

from .context import ALIASES

AGREE_MIN = 2            # a name no alias explains is learned from at least this many agreeing figures …
AGREE_SHARE = 0.5        # … and this share of its figures
DATA_ALIASES = {         # what code and prose call the model's tensors (beside their own names and ALIASES)
    "p": ("probs", "prob", "probabilities", "probability", "P", "softmax", "y_hat", "ŷ", "p_hat"),
    "logits": ("z", "logit", "scores"), "z": ("logits", "logit", "scores"),
    "loss": ("L", "l", "loss", "J", "CE", "损失", "nll"),
    "x": ("x", "emb", "e", "h"), "X": ("x", "X", "h", "H", "emb"),
    "A": ("α", "attn", "attention", "weights", "a"), "S": ("scores", "score", "s"),
    "mu1": ("μ", "mu", "mean"), "var1": ("σ²", "var", "variance", "σ^2"),
    "mu2": ("μ", "mu", "mean"), "var2": ("σ²", "var", "variance", "σ^2"),
}
STATE_WORDS = re.compile(r"\bnew\b|_new|\bafter\b|\bupdated\b|\bnext\b|新|更新后|之后|一步后|nouveau|nouvelle|"
                         r"après|neu", re.I)


def _param(group: str) -> str:
    """The parameter a group is of: grad_W, sgd[1].W, lr*grad_W → W.

    >>> _param("sgd[1].grad_W"), _param("lr*grad_E"), _param("A")
    ('W', 'E', 'A')
    """
    return re.sub(r"^.*?(?:grad_|\.|\*)(?=[^.*]*$)", "", group).removeprefix("grad_")


@dataclass
class Reading:
    """What a name means: a group of the model's quantities, its indices' origin, how it was learned."""
    group: str
    base: int = 0
    agree: int = 0
    alias: bool = False
    others: list = None        # the groups some of its figures agree with instead (η: lr and adamw.lr)


class Notation:
    """Learns a document's names (see the module) and resolves each labelled figure to a quantity."""

    def __init__(self, matcher):
        self.m = matcher
        self.by: dict = {}
        for c in matcher.cands:
            self.by[(c.group, c.of, c.idx)] = c
        self.groups: dict = {}
        for c in matcher.cands:
            self.groups.setdefault((c.group, c.of), c.axes)

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
        words = {stem, *DATA_ALIASES.get(stem, ()),
                 *(a for a in ALIASES.get(stem, ()) if re.fullmatch(r"[\w\u0370-\u03ff²^]+", a))}
        if bare.startswith("grad_"):
            out |= {f"{p}{w}" for w in words for p in ("d", "grad_", "∂L/∂", "dL/d")} | {f"{w}.grad" for w in words}
        else:
            out |= words
        return {f"{layer}.{w}" if layer else w for w in out} | ({bare} if not layer else set())

    def _alias(self, name: str, group: str) -> bool:
        layer = re.match(r"(l\d+)\.", group)
        if layer and not name.startswith(layer[0]):
            return False
        if group in ("sgd.loss", "sgd.p"):
            return name in self.spellings(group[4:])
        return name in self.spellings(group) or name.lower() in {s.lower() for s in self.spellings(group) if len(s) > 1}

    # ------------------------------------------------------------ one label, one hypothesis

    def _where(self, group: str, label) -> tuple | None:
        """(group, of, index prefix) where a label's entries live under a reading: its state's group
        (``sgd[1].W``, ``sgd.loss`` at step 1), and a row's parameter as ``of`` (``adamw[1].m`` of W) or
        in the group's name (the reading ``adamw[1].{}`` is ``adamw[1].W`` on W's row)."""
        of = ""
        if "{}" in group:
            group = group.replace("{}", label.of)
        elif label.of:
            of = label.of
        if not label.state:
            return (group, of, ()) if (group, of) in self.groups else None
        if (f"{label.state}.{group}", of) in self.groups:
            return f"{label.state}.{group}", of, ()
        k = re.fullmatch(r"sgd\[(\d+)\]", label.state)
        if k and (f"sgd.{group}", of) in self.groups:
            return f"sgd.{group}", of, (int(k[1]),)
        return None

    def lookup(self, group: str, base: int, label):
        """The candidate a label names under a reading (None when out of range or absent)."""
        where = self._where(group, label)
        if where is None:
            return None
        group, of, prefix = where
        axes = self.groups[(group, of)][len(prefix):]
        if len(axes) != len(label.index):
            return None
        idx = list(prefix)
        for a, k in zip(axes, label.index):
            if isinstance(k, tuple):
                if a != "v":
                    return None
                idx.append(k[1])
            else:
                idx.append(k - base if a not in "k" else k)
        idx = tuple(idx)
        if group in ("sgd.loss", "sgd.p") and idx and idx[0] == 0:
            return self.by.get((group[4:], of, idx[1:]))
        return self.by.get((group, of, idx))

    # ------------------------------------------------------------ learning

    def learn(self, numbers, labels: dict) -> dict:
        """name → :class:`Reading` for the names the document's figures (or our spellings) explain."""
        names: dict = {}
        for n in numbers:
            lab = labels.get(n.index)
            if lab is not None and n.kind in ("decimal", "percent", "power", "integer"):
                names.setdefault((lab.name, len(lab.index), bool(lab.of), bool(lab.state)), []).append((n, lab))
        out = {}
        for key, figs in names.items():
            r = self._reading(key, figs)
            if r is not None:
                out[key] = r
        return out

    def _reading(self, key, figs):
        name, arity, of, _ = key
        votes = []
        hypotheses = self.groups.items() if not of else self._templates()
        for (group, g_of), axes in hypotheses:
            if group in ("id", "count", "onehot") or g_of and not of or of and not g_of and "{}" not in group:
                continue
            if len(axes) != arity and not (group in ("sgd.loss", "sgd.p") and len(axes) == arity + 1):
                continue
            alias = self._alias(name, group)
            for base in ((0, 1) if any(isinstance(k, int) for _, lab in figs for k in lab.index) else (0,)):
                agree, seen = 0, 0
                for n, lab in figs:
                    c = self.lookup(group, base, lab)
                    if c is None:
                        continue
                    seen += 1
                    agree += self.m.rounds(c, n)
                if seen == len(figs) and (agree or alias):
                    votes.append((agree, alias, -base, group))
        if not votes:
            return None
        votes.sort(reverse=True)
        agree, alias, base, group = votes[0]
        rivals = [v for v in votes[1:] if v[0] == agree and v[1] == alias and v[3] != group]
        if rivals:
            return None
        own = alias and self._own(name, group)
        if alias and agree >= 1 and agree > AGREE_SHARE * len(figs) or own and (agree or len(figs) <= 2) or \
                agree >= AGREE_MIN and agree >= AGREE_SHARE * len(figs):
            return Reading(group, -base, agree, alias, [v[3] for v in votes if v[0] and v[3] != group])
        return None

    def _own(self, name: str, group: str) -> bool:
        """Our own name, a usual spelling of it or of its gradient: enough without a figure agreeing."""
        bare = group[4:] if group in ("sgd.loss", "sgd.p") else group
        stem = bare.rpartition(".")[2]
        words = {stem, *DATA_ALIASES.get(stem.removeprefix("grad_"), ())}
        if stem.startswith("grad_"):
            words = {f"{p}{w}" for w in words for p in ("d", "grad_", "∂L/∂", "dL/d", "∂l/∂")} | \
                {f"{w}.grad" for w in words} | {stem}
        layer = bare.rpartition(".")[0]
        return name in {f"{layer}.{w}" if layer else w for w in words}

    def _templates(self):
        """The readings of a column whose rows are parameters' entries: the moments (of a parameter) and
        the groups named after a parameter, with its name as a slot: ``grad_{}``, ``adamw[1].{}``."""
        if not hasattr(self, "_tpl"):
            params = set(self.m.d.spec.params)
            out: dict = {}
            for (group, of), axes in self.groups.items():
                if of:
                    out.setdefault((group, of and "of"), axes)
                elif _param(group) in params:
                    out.setdefault((group[::-1].replace(_param(group)[::-1], "}{", 1)[::-1], ""), axes)
            self._tpl = list(out.items())
        return self._tpl

    # ------------------------------------------------------------ resolving

    def resolve(self, numbers, labels: dict) -> dict:
        """figure index → the candidate its label names, for every labelled figure whose name is learned.

        A figure whose quantity does not round to it but another state of the same entry does (``p(sat)``
        printed after an update is ``sgd[1].p[sat]``) is that state's.
        """
        readings = self.learn(numbers, labels)
        out = {}
        for n in numbers:
            lab = labels.get(n.index)
            r = readings.get((lab.name, len(lab.index), bool(lab.of), bool(lab.state))) if lab is not None else None
            if r is None:
                continue
            c = self.lookup(r.group, r.base, lab)
            if c is None:
                continue
            if not self.m.rounds(c, n):
                c = self._state(c, n) or c
                if not self.m.rounds(c, n) and any((x := self.lookup(g, r.base, lab)) is not None and
                                                   self.m.rounds(x, n) for g in r.others or ()):
                    continue        # the name means two things here (η of SGD and of AdamW): this one rounds
            out[n.index] = c
        return out

    def _state(self, c, n):
        """The same entry in another training state that the figure rounds from, else, when the sentence
        speaks of the new values, the nearest post-step state; None otherwise."""
        bare = c.group.partition(".")[2] if c.group.startswith(("sgd", "adamw", "head_step")) else c.group
        others = []
        for x in self.m.cands:
            if x is c or x.of != c.of:
                continue
            if x.group in (f"sgd[1].{bare}", f"adamw[1].{bare}", f"head_step.{bare}") and x.idx == c.idx or \
                    x.group == f"sgd.{bare}" and x.idx[1:] == c.idx or x.group == bare and x.idx == c.idx:
                others.append(x)
        for x in others:
            if self.m.rounds(x, n):
                return x
        told = " ".join((n.line_text[:n.col], n.row, n.column, n.table))
        adam = bool(re.search(r"adam", n.heading + " " + n.prose, re.I))
        post = [x for x in others if x.group != bare and (x.group != f"sgd.{bare}" or x.idx[0] == 1)
                and x.group.startswith("adamw") == adam]
        if c.group == bare and post and STATE_WORDS.search(told):
            y = float(n.value) / (100 if n.kind == "percent" else 1)
            return min(post, key=lambda x: abs(float(x.ball.mid()) - y) if hasattr(x.ball, "mid") else abs(
                float(x.ball.p) / float(x.ball.q) - y))
        return None
