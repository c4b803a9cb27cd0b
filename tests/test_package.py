"""Packaging: the wheel carries the data, symgpt/core/resources.py finds it, .ci/wheel-check passes.

References: the files on disk (templates/, derivations/) against pyproject.toml's package
data, matched here with fnmatch as setuptools matches them; folder layouts made in a
temporary directory for :func:`symgpt.core.resources.folder`; and, marked ``slow``, the real
thing: ``.ci/wheel-check`` builds the wheel, installs it into a fresh venv in another
folder and checks what the installed commands do there (see that script).
"""
from __future__ import annotations

import fnmatch
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

from symgpt.core import resources

from conftest import ROOT

PYPROJECT = ROOT / "pyproject.toml"


def setuptools_config() -> dict:
    with open(PYPROJECT, "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def package_folder(package: str, package_dir: dict):
    """The source folder of ``package`` under ``[tool.setuptools.package-dir]`` (longest mapped prefix)."""
    parts = package.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in package_dir:
            return ROOT / package_dir[head] / "/".join(parts[k:])
    return ROOT / "/".join(parts)


def shipped_files() -> set:
    """The data files the configuration ships: each package's package-data globs in its folder."""
    cfg = setuptools_config()
    found = set()
    for package in cfg["packages"]:
        folder = package_folder(package, cfg.get("package-dir", {}))
        for pattern in cfg.get("package-data", {}).get(package, []):
            found |= {p for p in folder.iterdir() if p.is_file() and fnmatch.fnmatch(p.name, pattern)}
    return found


def test_every_template_spec_and_claims_file_is_package_data():
    templates = {p for p in (ROOT / "templates").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    specs = set((ROOT / "derivations").glob("*.toml"))
    shipped = shipped_files()
    assert templates | specs <= shipped, sorted(map(str, templates | specs - shipped))
    assert not [p for p in shipped if "rendered" in p.parts], "the rendered examples stay out of the wheel"
    assert {ROOT / "symgpt" / "py.typed", ROOT / "symgpt" / "published_models.toml"} <= shipped


def test_the_checkout_reads_its_own_folders():
    assert resources.TEMPLATES == ROOT / "templates" and resources.DERIVATIONS == ROOT / "derivations"


def _layout(monkeypatch, package_dir):
    monkeypatch.setattr(resources.resources, "files", lambda name: package_dir)
    package_dir.mkdir(parents=True)


def test_an_installed_package_reads_the_folder_inside_it(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    _layout(monkeypatch, site / "symgpt")
    (site / "symgpt" / "templates").mkdir()
    (site / "templates").mkdir()  # another distribution's folder beside it is never taken
    assert resources.folder("templates") == site / "symgpt" / "templates"


def test_a_checkout_reads_the_folder_beside_the_package(tmp_path, monkeypatch):
    _layout(monkeypatch, tmp_path / "symgpt")
    (tmp_path / "templates").mkdir()
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    assert resources.folder("templates") == tmp_path / "templates"


def test_a_folder_beside_an_installed_package_is_not_taken(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    _layout(monkeypatch, site / "symgpt")
    (site / "derivations").mkdir()  # no pyproject.toml: site-packages, not a checkout
    assert resources.folder("derivations") == site / "symgpt" / "derivations"


def test_a_package_in_a_zip_is_refused_by_name(tmp_path, monkeypatch):
    archive = tmp_path / "symgpt.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("symgpt/__init__.py", "")
    monkeypatch.setattr(resources.resources, "files", lambda name: zipfile.Path(archive, "symgpt/"))
    with pytest.raises(ImportError, match=r"symgpt: the package lies in .*symgpt.zip.*not in a folder on disk"):
        resources.folder("templates")



# ---------------------------------------------------------------- a light import and --version

ENGINE = ("sympy", "flint", "numpy", "mpmath", "ml_dtypes", "jinja2")


def python(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_import_symgpt_leaves_the_engine_unimported_until_a_name_is_used():
    r = python("-c", "import symgpt, sys; print('sympy' in sys.modules)")
    assert (r.returncode, r.stdout, r.stderr) == (0, "False\n", "")
    r = python("-c", f"import symgpt, sys; print(sorted(set({ENGINE!r}) & set(sys.modules)))")
    assert (r.returncode, r.stdout) == (0, "[]\n"), r.stderr
    # each public name and submodule is there when asked for, as a user writes it
    r = python("-c", "import symgpt, sys\n"
                     "print(symgpt.precision.forensics.__name__, symgpt.verify.__name__, symgpt.train.__name__)\n"
                     "from symgpt import load, InputError\n"
                     "print(load('bigram').value('loss', digits=10), 'sympy' in sys.modules)\n"
                     "try:\n    symgpt.no_such_thing\nexcept AttributeError as e:\n    print(e)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["forensics symgpt.verify symgpt.training.train", "1.051470136 True",
                                     "module 'symgpt' has no attribute 'no_such_thing'"]


@pytest.mark.parametrize("argv", [["--version"], ["render", "--version"], ["list", "--version"]])
def test_version_is_the_projects_and_imports_no_engine(argv):
    with open(PYPROJECT, "rb") as f:
        want = f"symgpt {tomllib.load(f)['project']['version']}\n"
    r = python("-X", "importtime", "-m", "symgpt", *argv)
    assert (r.returncode, r.stdout) == (0, want)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in r.stderr.splitlines()}
    assert "symgpt" in imported and not imported & set(ENGINE)
    script = shutil.which("symgpt", path=os.path.dirname(sys.executable))
    if script:   # the console script the install put beside this Python
        r = subprocess.run([script, *argv], capture_output=True, text=True, timeout=120)
        assert (r.returncode, r.stdout, r.stderr) == (0, want, "")


@pytest.mark.slow
def test_wheel_check():
    """.ci/wheel-check: the wheel from a clean copy, installed elsewhere, renders and verifies."""
    missing = [m for m in ("build", "mpmath") if importlib.util.find_spec(m) is None]
    if missing or shutil.which("git") is None or not (ROOT / ".git").exists():
        why = f"needs git, a git checkout and {', '.join(missing) or 'build'}"
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the wheel check: it {why}")
        pytest.skip(why)
    r = subprocess.run([sys.executable, str(ROOT / ".ci" / "wheel-check")], cwd=ROOT, capture_output=True,
                       text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr
