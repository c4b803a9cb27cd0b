"""The README's REPL session runs as written (its values are the documents' and the oracle's)."""
import doctest
from pathlib import Path


def test_readme_session_runs():
    readme = Path(__file__).resolve().parent.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0
