"""The ``symgpt`` command (and ``python -m symgpt``): one entry for every job.

``symgpt render``, ``symgpt verify`` take the arguments of ``python -m symgpt.render`` and
``python -m symgpt.verify`` (the same parsers, :func:`symgpt.render.parser` and
:func:`symgpt.verify.parser`); ``symgpt list`` names the shipped derivations, or every
quantity one spec defines; ``symgpt completion bash|zsh`` prints a shell completion script
(with the optional ``shtab``: ``pip install 'symgpt[completion]'``); ``symgpt --version``.
Usage errors are one ``error: …`` line, exit status 2, as in every symgpt command.
Each sub-command's module (and with it the engine) is imported when the command runs, so
``symgpt --version`` answers without importing any.

>>> main(["list"])  # doctest: +ELLIPSIS
bigram            Three words, twelve parameters / 三个词的词表，十二个参数
                  .../bigram.toml
tiny-transformer  From 我爱 to 你 / 从「我爱」到「你」
                  .../tiny-transformer.toml
0
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .core.errors import InputError
from .core.limits import MAX_DIGITS, MAX_OPS, Limits
from .core.resources import DERIVATIONS, version_line

SHELLS = ("bash", "zsh")

JOBS = {"render": "render", "verify": "verify", "check": "check", "precision": "precision", "import": "importers",
        "grad": "grad"}
"""The sub-commands that are modules of their own (each has ``parser`` and ``execute``), by command name."""


def face(name: str):
    """The module ``symgpt.NAME`` (``cli``, ``render``, ``derivation``, …), imported when first needed.

    >>> face("render").__name__, face(JOBS["import"]).__name__
    ('symgpt.render', 'symgpt.importers')
    """
    return importlib.import_module(f".{name}", __package__)


def parser() -> argparse.ArgumentParser:
    """The ``symgpt`` command line: ``--version`` and one sub-command.

    >>> parser().parse_args(["verify", "bigram"]).paths
    ['bigram']
    """
    ap = face("cli").Parser(prog="symgpt",
                description="Exact, checkable derivations of how tiny language models compute and learn.",
                epilog="Each command has its own --help (symgpt render --help). "
                       "python -m symgpt is the same command; python -m symgpt.render and "
                       "python -m symgpt.verify are symgpt render and symgpt verify.")
    ap.add_argument("--version", action="version", version=version_line(),
                    help="print the installed version of symgpt and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    job = lambda command: face(JOBS[command])
    job("render").parser(sub.add_parser("render", help="write the derivation documents: Markdown, LaTeX, PDF, claims"))
    job("verify").parser(sub.add_parser("verify", help="check every figure a document prints (exit 1 on a wrong one)"))
    job("check").parser(sub.add_parser("check", help="check a tutorial's figures from its text, with no claims file"))
    list_parser(sub.add_parser("list", help="the shipped derivations, or every name one spec defines"))
    completion_parser(sub.add_parser("completion", help="print a shell completion script (bash or zsh)"))
    job("precision").parser(sub.add_parser("precision", help="what float64/32, bfloat16, float16 do to every quantity"))
    job("import").parser(sub.add_parser("import", help="write a spec for a nanoGPT, GPT-2 or Llama checkpoint"))
    job("grad").parser(sub.add_parser("grad", help="write the certified loss and full gradient to a JSON or "
                                                   "safetensors file"))
    return ap


# ---------------------------------------------------------------- list

def list_parser(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``symgpt list``.

    >>> a = list_parser(argparse.ArgumentParser(prog="symgpt list")).parse_args(["bigram"])
    >>> a.spec, a.max_ops == str(MAX_OPS)
    ('bigram', True)
    """
    ap.description = ("With no SPEC: the shipped derivations, with their titles and files. "
                      "With a SPEC (a name such as bigram, or a spec file): every quantity name it "
                      "defines, with shape and meaning, as python -m symgpt.verify --list SPEC.")
    ap.add_argument("--version", action="version", version=version_line(),
                    help="print the installed version of symgpt and exit")
    ap.add_argument("spec", nargs="?", metavar="SPEC", help="a spec name or file (default: list the specs)")
    ap.add_argument("--max-ops", default=str(MAX_OPS), metavar="N",
                    help=f"refuse a spec whose estimated scalar operations exceed N (default: {MAX_OPS})")
    ap.add_argument("--max-digits", default=str(MAX_DIGITS), metavar="N",
                    help=f"refuse numbers of more than N digits (default: {MAX_DIGITS})")
    return ap


def shipped() -> str:
    """The shipped derivations: name, titles (English / Chinese), file.

    >>> print(shipped().splitlines()[0])
    bigram            Three words, twelve parameters / 三个词的词表，十二个参数
    """
    specs = [p for p in sorted(DERIVATIONS.glob("*.toml")) if not p.name.endswith(".claims.toml")]
    if not specs:
        raise InputError(f"no derivations in {DERIVATIONS} (a broken install? reinstall symgpt)")
    lines, load_spec, terminal_safe = [], face("engine.spec").load_spec, face("cli").terminal_safe
    for p in specs:
        titles = load_spec(p).titles
        lines.append(f"{p.stem:<16}  {terminal_safe(titles['en'])} / {terminal_safe(titles['zh'])}")
        lines.append(f"{'':<16}  {terminal_safe(p)}")
    return "\n".join(lines) + "\n"


def list_command(a: argparse.Namespace) -> int:
    """``symgpt list [SPEC]``.

    >>> list_command(list_parser(argparse.ArgumentParser()).parse_args([]))  # doctest: +ELLIPSIS
    bigram            Three words, twelve parameters / 三个词的词表，十二个参数
    ...
    0
    >>> list_command(list_parser(argparse.ArgumentParser()).parse_args(["bigram"]))  # doctest: +ELLIPSIS
    /.../bigram.toml: bigram, tokens 猫, 吃, 鱼 (an index v is a token or 0..2)
    ...
    0
    """
    if a.spec is None:
        sys.stdout.write(shipped())
        return 0
    render, verify = face("render"), face("verify")
    limits = Limits(max_ops=render.whole(a.max_ops, "--max-ops", 1, 10 ** 15),
                    max_digits=render.whole(a.max_digits, "--max-digits", 1, 10 ** 6))
    sys.stdout.write(verify.list_names(verify.derivation_for(face("derivation").find_spec(a.spec), limits)))
    return 0


# ---------------------------------------------------------------- completion

def completion_parser(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``symgpt completion``.

    >>> completion_parser(argparse.ArgumentParser(prog="symgpt completion")).parse_args(["zsh"]).shell
    'zsh'
    """
    ap.description = ("Print a completion script for the shell. It needs shtab "
                      "(pip install 'symgpt[completion]'). Bash: symgpt completion bash > "
                      "~/.local/share/bash-completion/completions/symgpt; zsh: symgpt completion zsh > "
                      "a folder of your $fpath, as the file _symgpt.")
    ap.add_argument("--version", action="version", version=version_line(),
                    help="print the installed version of symgpt and exit")
    ap.add_argument("shell", choices=SHELLS, metavar="bash|zsh", help="the shell to complete in")
    return ap


def completion(a: argparse.Namespace) -> int:
    """``symgpt completion bash|zsh``: the script shtab writes for :func:`parser`.

    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> try:
    ...     with contextlib.redirect_stdout(out):
    ...         status = completion(argparse.Namespace(shell="bash"))
    ...     status == 0 and "complete -o bashdefault -F _shtab_symgpt symgpt" in out.getvalue()
    ... except InputError as e:  # without shtab: one line saying how to get it
    ...     "pip install 'symgpt[completion]'" in str(e)
    True
    """
    try:
        shtab = importlib.import_module("shtab")
    except ImportError:
        raise InputError("symgpt completion needs the shtab package: "
                         "pip install 'symgpt[completion]' (or pip install shtab)") from None
    ap = parser()
    for sub in _subparsers(ap).values():
        for action in sub._actions:
            if not action.option_strings and action.dest in ("specs", "paths", "spec"):
                action.complete = shtab.FILE  # spec and claims files
            elif "--out" in action.option_strings:
                action.complete = shtab.DIRECTORY
    sys.stdout.write(shtab.complete(ap, shell=a.shell))
    return 0


def _subparsers(ap: argparse.ArgumentParser) -> dict:
    """{name: parser} of the sub-commands."""
    return {name: p for action in ap._actions if isinstance(action, argparse._SubParsersAction)
            for name, p in action.choices.items()}


# ---------------------------------------------------------------- running

COMMANDS = ("render", "verify", "list", "completion", "precision", "check", "import", "grad")


def asks_version(argv: list) -> bool:
    """Whether ``symgpt ARGV`` prints the version and nothing else: ``--version`` before any other
    of symgpt's own options, or first after the command (as argparse reads them).

    >>> asks_version(["--version"]), asks_version(["render", "--version", "bigram"])
    (True, True)
    >>> asks_version(["-h", "--version"]), asks_version(["render", "bigram", "--version"])
    (False, False)
    """
    before = next((argv[:i] for i, x in enumerate(argv) if not x.startswith("-")), argv)
    if before:
        return before[0] == "--version" and all(x in ("-h", "--help", "--version") for x in before)
    return argv[:1] in ([c] for c in COMMANDS) and argv[1:2] == ["--version"]


def main(argv=None) -> int:
    """``symgpt ARGS``: run one sub-command; its exit status."""
    argv = sys.argv[1:] if argv is None else [str(x) for x in argv]
    ap = parser()
    before = next((argv[:i] for i, x in enumerate(argv) if not x.startswith("-")), argv)
    unknown = [x for x in before if x not in ("-h", "--help", "--version")]
    if unknown:                     # symgpt's own options come before the command
        ap.error(f"unrecognized arguments: {' '.join(unknown)}")
    if not argv:
        ap.error(f"a command is required: {', '.join(COMMANDS)}")
    a, extra = ap.parse_known_args(argv)
    if extra:  # named by the parser they were given to: "(see symgpt render --help)"
        before = argv[:argv.index(a.command)]
        owner = ap if any(x in before for x in extra) else _subparsers(ap)[a.command]
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    if a.command in JOBS:
        return face(JOBS[a.command]).execute(a)
    return {"list": list_command, "completion": completion}[a.command](a)


def console() -> None:
    """The ``symgpt`` console script: :func:`main` under :func:`symgpt.cli.run` (one error line, exit 2).

    >>> saved, sys.argv = sys.argv, ["symgpt", "list"]
    >>> try:
    ...     console()
    ... except SystemExit as e:
    ...     print("exit", e.code)
    ... finally:
    ...     sys.argv = saved  # doctest: +ELLIPSIS
    bigram            Three words, twelve parameters / 三个词的词表，十二个参数
    ...
    exit 0
    """
    if asks_version(sys.argv[1:]):   # answered before the engine is imported
        try:
            sys.stdout.write(version_line() + "\n")
            sys.stdout.flush()
        except OSError:
            pass                     # a stdout fault: the whole command below meets it as it always has
        else:
            raise SystemExit(0)
    face("cli").run(main)
