"""The errors bad input ends in: one line, naming the file, the key and what was expected.

Every error a user's input can cause is an :class:`InputError` (a ``ValueError``);
the commands print it as one ``error: …`` line and exit with status 2, the REPL
raises it.  :class:`LimitError` is the refusal of work whose estimated cost
exceeds a documented limit (see :mod:`symgpt.core.limits`).

>>> raise LimitError("spec.toml: the model needs about 3.1e9 operations, above --max-ops 2e7")
Traceback (most recent call last):
...
symgpt.core.errors.LimitError: spec.toml: the model needs about 3.1e9 operations, above --max-ops 2e7
>>> issubclass(LimitError, ValueError)
True
"""
from __future__ import annotations

import difflib


class InputError(ValueError):
    """Bad input reported as one line, exit status 2."""


class OutputError(InputError):
    """A fault writing the output (``--out``, a file in it, stdout, a TeX run): one line, exit 2."""


class LimitError(InputError):
    """Work refused up front: its estimated cost exceeds a limit; the message says
    the estimate and the flag or key that raises the limit."""


ALIASES = {
    # what other tools call it: our name (a did-you-mean for a word no spelling is near)
    "learning_rate": "lr", "step_size": "lr", "eta": "lr", "n_embd": "d", "d_model": "d", "n_head": "heads",
    "num_heads": "heads", "n_layer": "layers", "num_layers": "layers", "block_size": "T",
    "epsilon": "eps", "momentum": "beta1", "wd": "weight_decay", "logits": "z",
}


def nearest(word: str, options) -> str | None:
    """The option a mistyped ``word`` most likely meant (any case, or its usual name elsewhere: :data:`ALIASES`),
    or None.

    >>> nearest("ln_esp", ["ln_eps", "d"]), nearest("w", ["E", "W"]), nearest("zzz", ["E"])
    ('ln_eps', 'W', None)
    >>> nearest("learning_rate", ["lr", "steps"])
    'lr'
    """
    options = list(options)
    if ALIASES.get(word.lower()) in options:
        return ALIASES[word.lower()]
    lower = {o.lower(): o for o in options}
    hits = difflib.get_close_matches(word.lower(), lower, n=1, cutoff=0.6) if len(word) <= 100 else []
    return lower[hits[0]] if hits else None
