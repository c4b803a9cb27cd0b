"""symgpt: exact, checkable derivations of tiny language models.

>>> import symgpt
>>> symgpt.load("bigram").value("z[0]")
'0.13'
"""
from .derivation import Derivation, load

__all__ = ["Derivation", "load"]
