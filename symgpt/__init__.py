"""symgpt: exact, checkable derivations of tiny language models.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> d.closed_form("z[0]"), d.value("loss", digits=10)
(13/100, '1.051470136')

``import symgpt`` itself is light: the engine (SymPy, python-flint, NumPy, mpmath) is
imported when a name below is first used, and so is each submodule (``symgpt.precision``,
``symgpt.verify``, …), so ``symgpt --version`` answers at once (PEP 562).

>>> symgpt.precision.__name__, symgpt.InputError.__module__
('symgpt.precision', 'symgpt.core.errors')
"""
import importlib
import importlib.util

__all__ = ["ClaimError", "Derivation", "InputError", "LimitError", "Limits", "SpecError", "derive", "load", "precision",
           "sampling", "train"]

_NAMES = {"ClaimError": ".claims.claims", "Derivation": ".derivation", "InputError": ".core.errors",
         "LimitError": ".core.errors", "Limits": ".core.limits", "SpecError": ".engine.spec", "load": ".derivation"}
"""The public names, each with the module that defines it."""

_MODULES = {"derive": ".engine.derive", "sampling": ".training.sampling", "train": ".training.train"}
"""The public modules that live in a room below the face, by their short names."""


def __getattr__(name: str):
    """A public name or a submodule of symgpt, imported on first use and kept.

    >>> import symgpt
    >>> symgpt.train.__name__, symgpt.verify.__name__
    ('symgpt.training.train', 'symgpt.verify')
    >>> symgpt.nothing
    Traceback (most recent call last):
    AttributeError: module 'symgpt' has no attribute 'nothing'
    """
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name], __name__)
    elif name.isidentifier() and not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f".{name}", __name__)   # symgpt.precision, symgpt.verify, …
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list:
    """The public names and modules, with what the module already holds."""
    return sorted(set(globals()) | set(__all__))
