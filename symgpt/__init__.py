"""symgpt: exact, checkable derivations of tiny language models.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> d.closed_form("z[0]"), d.value("loss", digits=10)
(13/100, '1.051470136')
"""
import importlib

from .claims.claims import ClaimError
from .core.errors import InputError, LimitError
from .core.limits import Limits
from .derivation import Derivation, load
from .engine import derive
from .engine.spec import SpecError
from .training import sampling, train

__all__ = ["ClaimError", "Derivation", "InputError", "LimitError", "Limits", "SpecError", "derive", "load", "precision",
           "sampling", "train"]


def __getattr__(name: str):
    """``symgpt.precision`` (the forensics and their command) is loaded when first used, so that
    ``python -m symgpt.precision`` runs a module the package has not imported already (PEP 562)."""
    if name == "precision":
        return importlib.import_module(".precision", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
