"""``python -m symgpt``: the ``symgpt`` command (:mod:`symgpt.command`)."""
from .command import console

if __name__ == "__main__":
    console()
