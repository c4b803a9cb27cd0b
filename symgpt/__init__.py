"""symgpt: exact, checkable derivations of tiny language models.

>>> import symgpt
>>> d = symgpt.load("bigram")
>>> d.closed_form("z[0]"), d.value("loss", digits=10)
(13/100, '1.051470136')
"""
from .derivation import Derivation, load

__all__ = ["Derivation", "load"]
