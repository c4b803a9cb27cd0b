"""What the installed package carries: the Jinja templates, the derivations (specs, claims
files) and its version.

The repository keeps ``templates/`` and ``derivations/`` at its top; the wheel carries them
inside the package, as ``symgpt/templates`` and ``symgpt/derivations`` (the ``package-dir``
mapping in ``pyproject.toml``).  :func:`folder` finds them through
:func:`importlib.resources.files` on the ``symgpt`` package itself:

- inside the package: an installed wheel (``pip install symgpt-*.whl`` or ``pip install .``);
- beside the package: a checkout (the folder holding ``pyproject.toml``), run in place or
  installed editable (``pip install -e .``).

The package's own location decides, never another copy that the import system could map
(an editable install of a different checkout): the data always belongs to the code that runs.
Why not ``files("symgpt.templates")``: setuptools' editable finder maps that name to the
checkout's folder but cannot import it (a data folder has no ``__init__.py``; setuptools 84),
and in a wheel it is a namespace package whose ``files()`` is a ``MultiplexedPath``, no ``Path``.
Both are real folders on disk, read with ordinary paths (Jinja's ``FileSystemLoader``,
``Path.glob``); importing symgpt from a zip file is not supported.

>>> TEMPLATES.is_dir(), (TEMPLATES / "lang" / "en.toml").is_file()
(True, True)
>>> sorted(p.name for p in DERIVATIONS.glob("*.toml") if not p.name.endswith(".claims.toml"))
['bigram.toml', 'tiny-transformer.toml']
"""
from __future__ import annotations

from importlib import metadata, resources
from pathlib import Path

__all__ = ["DERIVATIONS", "TEMPLATES", "folder", "version", "version_line"]


def folder(name: str) -> Path:
    """The folder of shipped data ``name`` (``"templates"`` or ``"derivations"``) as a path.

    Inside the installed package when it is there, else at the top of the checkout
    the package lies in; a missing folder is returned as the installed place, so an
    error names where the data was expected.

    >>> folder("templates").name
    'templates'
    >>> folder("nothing").parent.name
    'symgpt'
    """
    package = resources.files("symgpt")
    if not isinstance(package, Path):
        raise ImportError(f"symgpt: the package lies in {package}, not in a folder on disk; "
                          f"install it from the wheel (pip install symgpt) to render")
    inside, checkout = package / name, package.parent / name
    if not inside.is_dir() and checkout.is_dir() and (package.parent / "pyproject.toml").is_file():
        return checkout
    return inside


TEMPLATES = folder("templates")
DERIVATIONS = folder("derivations")


def version() -> str:
    """The installed version of symgpt, from its package metadata (``pyproject.toml``'s).

    A checkout that was never installed has no metadata: then ``"unknown"``.

    >>> version().split(".")[0].isdigit()
    True
    """
    try:
        return metadata.version("symgpt")
    except metadata.PackageNotFoundError:
        return "unknown"


def version_line() -> str:
    """What ``--version`` prints.

    >>> version_line().split()[0]
    'symgpt'
    """
    v = version()
    return f"symgpt {v}" if v != "unknown" else "symgpt unknown (not installed: pip install -e . in the checkout)"
