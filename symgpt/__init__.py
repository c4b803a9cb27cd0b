"""symgpt: exact, checkable derivations of tiny language models.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> d.closed_form("z[0]"), d.value("loss", digits=10)
(13/100, '1.051470136')
"""
from .claims import ClaimError
from .derivation import Derivation, load
from .errors import InputError, LimitError
from .limits import Limits
from .spec import SpecError

__all__ = ["ClaimError", "Derivation", "InputError", "LimitError", "Limits", "SpecError", "load"]
