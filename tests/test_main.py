"""The ``symgpt`` command (symgpt/command.py) and ``--version`` everywhere, in-process.

References: the package metadata for the version; the spec files' own TOML (read here with
tomllib) for names, titles and shapes; the committed examples in derivations/rendered/ and
the claims files' [[claim]] tables for render and verify; bash itself for the completion
script; the README's usage lines for the options.  One subprocess: ``python -m symgpt``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest

from symgpt import command, render, verify
from symgpt.cli import run

from conftest import ROOT

DERIVATIONS = ROOT / "derivations"
SPECS = sorted(p for p in DERIVATIONS.glob("*.toml") if not p.name.endswith(".claims.toml"))


def toml(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def status(capsys, argv, main=command.main):
    """Run a command as the console script does (through symgpt.cli.run): (status, stdout, stderr)."""
    with pytest.raises(SystemExit) as e:
        run(lambda: main(argv))
    out, err = capsys.readouterr()
    return e.value.code, out, err


def one_error(err: str) -> str:
    """The single ``error: …`` line of a failed command (no traceback)."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# ---------------------------------------------------------------- --version

@pytest.mark.parametrize("main, argv", [
    (command.main, ["--version"]), (command.main, ["render", "--version"]),
    (command.main, ["verify", "--version"]), (command.main, ["list", "--version"]),
    (command.main, ["completion", "--version"]), (render.main, ["--version"]), (verify.main, ["--version"]),
])
def test_version_from_the_package_metadata(capsys, main, argv):
    code, out, err = status(capsys, argv, main)
    assert (code, out, err) == (0, f"symgpt {metadata.version('symgpt')}\n", "")


# ---------------------------------------------------------------- usage errors: one line, exit 2

@pytest.mark.parametrize("argv, says", [
    ([], r"a command is required: render, verify, list, completion, precision, check, import, grad "
         r"\(see symgpt --help\)"),
    (["--bogus"], r"unrecognized arguments: --bogus \(see symgpt --help\)"),
    (["rendr"], r"argument COMMAND: invalid choice: 'rendr' .*'render'.* \(see symgpt --help\)"),
    (["render", "--bogus"], r"unrecognized arguments: --bogus \(see symgpt render --help\)"),
    (["--bogus", "list"], r"unrecognized arguments: --bogus \(see symgpt --help\)"),
    (["render", "--lang", "fr"], r"--lang: expected one of zh, en or all, got 'fr'"),
    (["render", "bigram", "--uniform", "1"], r"--uniform: expected a number in \[0, 1\), got 1"),
    (["verify", "--format", "xml"], r"argument --format: invalid choice: 'xml' .* \(see symgpt verify --help\)"),
    (["verify", "--color", "sometimes"],
     r"argument --color: invalid choice: 'sometimes' \(choose from 'auto', 'always', 'never'\) "
     r"\(see symgpt verify --help\)"),
    (["list", "bigram", "extra"], r"unrecognized arguments: extra \(see symgpt list --help\)"),
    (["list", "bigram", "--max-ops", "0"], r"--max-ops: expected a whole number from 1 to 10\^15, got 0"),
    (["completion"], r"the following arguments are required: bash\|zsh \(see symgpt completion --help\)"),
    (["completion", "fish"], r"argument bash\|zsh: invalid choice: 'fish' .* \(see symgpt completion --help\)"),
])
def test_usage_errors_are_one_line_exit_2(capsys, argv, says):
    code, out, err = status(capsys, argv)
    assert code == 2 and out == ""
    assert re.fullmatch(f"error: {says}", one_error(err)), err


def test_an_unknown_spec_names_the_shipped_ones(capsys):
    code, out, err = status(capsys, ["list", "bigrma"])
    known = ", ".join(p.stem for p in SPECS)
    assert code == 2 and one_error(err) == f"error: bigrma: no such derivation; known: {known}"


def test_help_is_the_sub_command_s(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps help text at hyphens too
    with pytest.raises(SystemExit) as e:
        command.main(["render", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith("usage: symgpt render ") and "--uniform U" in out
    assert "NAME-attention-L-H.svg" in out


# ---------------------------------------------------------------- list

def test_list_names_the_shipped_specs_with_titles_and_files(capsys):
    code, out, _ = status(capsys, ["list"])
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2 * len(SPECS)
    for name_line, path_line, spec in zip(lines[::2], lines[1::2], SPECS):
        t = toml(spec)
        zh, en = t["title"], t["title_en"]  # the shipped specs give a string title and title_en
        assert name_line == f"{spec.stem:<16}  {en} / {zh}"
        assert path_line.strip() == str(spec) and path_line.startswith(" " * 18)


def test_list_spec_is_verify_list(capsys):
    code, out, _ = status(capsys, ["list", "bigram"])
    assert code == 0
    t = toml(DERIVATIONS / "bigram.toml")
    E, W = t["weights"]["E"], t["weights"]["W"]
    shapes = dict(re.findall(r"^  (\w+)\[[^]]*\]\s+(\d+×\d+)", out, re.M))
    assert shapes["E"] == f"{len(E)}×{len(E[0])}" and shapes["W"] == f"{len(W)}×{len(W[0])}"
    assert out.splitlines()[0].endswith(f"bigram, tokens {', '.join(t['model']['vocab'])} "
                                        f"(an index v is a token or 0..{len(t['model']['vocab']) - 1})")
    code, old, _ = status(capsys, ["--list", "bigram"], verify.main)
    assert code == 0 and old == out


# ---------------------------------------------------------------- render and verify through the dispatcher

def test_render_then_verify_through_symgpt(capsys, tmp_path):
    code, out, err = status(capsys, ["render", "bigram", "--format", "md,claims", "--lang", "en",
                                     "--out", str(tmp_path), "--quiet"])
    assert code == 0 and err == ""
    written = sorted(p.name for p in tmp_path.iterdir())
    assert [os.path.basename(line) for line in out.splitlines()] == written
    committed = DERIVATIONS / "rendered"
    for name in written:
        if not name.endswith(".claims.toml"):  # a claims file names its spec relative to itself
            assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name
    code, out, _ = status(capsys, ["verify", str(tmp_path / "bigram.en.claims.toml"), "--color", "never"])
    n = len(toml(tmp_path / "bigram.en.claims.toml")["claim"])
    assert code == 0 and f"bigram.en.claims.toml: {n} claims, {n} correct, 0 wrong" in out


def test_verify_the_seed_exits_1_with_every_claim_judged(capsys):
    code, out, _ = status(capsys, ["verify", "bigram", "--format", "json"])
    verdicts = json.loads(out)
    assert code == 1 and len(verdicts) == len(toml(DERIVATIONS / "bigram.claims.toml")["claim"])
    assert any(v["verdict"] == "wrong" for v in verdicts)


# ---------------------------------------------------------------- completion

def test_completion_without_shtab_says_how_to_get_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "shtab", None)  # import shtab raises ImportError
    code, out, err = status(capsys, ["completion", "bash"])
    assert code == 2 and out == ""
    assert one_error(err) == ("error: symgpt completion needs the shtab package: "
                              "pip install 'symgpt[completion]' (or pip install shtab)")


def _shtab():
    try:
        import shtab  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI installs shtab (the dev extra)")
        pytest.skip("shtab not installed (pip install 'symgpt[completion]')")


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_options_and_files(capsys, tmp_path):
    _shtab()
    code, script, _ = status(capsys, ["completion", "bash"])
    assert code == 0
    (tmp_path / "c.bash").write_text(script, encoding="utf-8")
    (tmp_path / "bigram.toml").write_text("", encoding="utf-8")

    def complete(*words):
        probe = (f"source {tmp_path / 'c.bash'}; COMP_WORDS=(symgpt {' '.join(words)}); "
                 f"COMP_CWORD={len(words)}; _shtab_symgpt; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        r = subprocess.run(["bash", "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return sorted(filter(None, r.stdout.split("\n")))

    assert complete("re") == ["render"]
    assert complete("render", "--un") == ["--uniform"]
    assert complete("verify", "--co") == ["--color"]
    assert complete("completion", "''") == ["bash", "zsh"]
    assert complete("render", "bi") == ["bigram.toml"]


def test_zsh_completion_names_every_command(capsys):
    _shtab()
    code, script, _ = status(capsys, ["completion", "zsh"])
    assert code == 0 and script.startswith("#compdef symgpt")
    for word in ("render", "verify", "list", "completion", "--uniform", "--color", "--quiet"):
        assert word in script


# ---------------------------------------------------------------- the README

def test_readme_usage_lines_name_every_option():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    parsers = command._subparsers(command.parser())
    for name, p in parsers.items():
        usage = re.search(rf"^symgpt {name} .*(?:\n {{8,}}.*)*", readme, re.M)
        assert usage, f"README has no usage line for symgpt {name}"
        for action in p._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert flag in usage.group(0), f"README's symgpt {name} line lacks {flag}"
    assert re.search(r"^symgpt --version", readme, re.M)


# ---------------------------------------------------------------- python -m symgpt (the one subprocess)

def test_python_m_symgpt_runs():
    r = subprocess.run([sys.executable, "-m", "symgpt", "--version"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"symgpt {metadata.version('symgpt')}\n", "")


def test_render_with_no_shipped_specs_says_so(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(render, "DERIVATIONS", tmp_path)   # an install whose data went missing
    code, out, err = status(capsys, ["render", "--out", str(tmp_path / "out")])
    assert code == 2 and out == "" and not (tmp_path / "out").exists()
    assert one_error(err) == f"error: no specs in {tmp_path} (a broken install? reinstall symgpt, or name a spec file)"


@pytest.mark.parametrize("command", ["render", "verify", "list"])
@pytest.mark.parametrize("arg", ["", "  ", "/", "CLAIMS"])
def test_empty_names_folders_and_claims_files_are_one_clear_error(capsys, tmp_path, command, arg):
    """'' used to become '.', and verify crashed on Path('.').with_name (a traceback)."""
    claims = str(SPECS[0].with_name(SPECS[0].stem + ".claims.toml"))
    arg = claims if arg == "CLAIMS" else arg
    argv = [command, arg] + (["--out", str(tmp_path / "out")] if command == "render" else [])
    code, out, err = status(capsys, argv)
    if command == "verify" and arg == claims:        # a claims file is what verify checks
        assert code == 1 and "claims" in out
        return
    line = one_error(err)
    assert code == 2 and out == "" and not (tmp_path / "out").exists()
    if not arg.strip():
        assert line.endswith(f"got {arg!r}") and "expected a spec" in line
    elif arg == "/":
        assert line.startswith("error: /: expected a spec") and line.endswith("got a directory")
    else:
        assert line == (f"error: {claims}: a claims file, not a spec: give the spec its `spec` key names "
                        f"(symgpt verify checks a claims file)")
