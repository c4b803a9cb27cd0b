"""Output faults, signals, TeX runs, stdout and hostile text: one clear line, nothing left behind.

Each case asserts the exit status, the one ``error: …`` line and what it
names, and that nothing new exists under the test's work folder (which holds
``--out``, the folder beside it and TMPDIR) afterwards.  Most run in-process
through ``hostile.render`` (a failing fake ``latexmk`` too, found on PATH); signals
to the command, stdout faults, a file-size limit, a hanging ``latexmk`` and real TeX
runs go through the real command and are marked slow.

Root ignores permission bits, so "read-only" and "full disk" are real tmpfs
mounts (``mount -t tmpfs -o ro`` / ``-o size=8k``); where mounting is not
allowed those cases are skipped (a non-root user gets a chmod 555 folder).
"""
from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from symgpt import cli, render
from symgpt.core.limits import Limits
from symgpt.documents.blocks import is_control

import hostile

ROOT = Path(__file__).resolve().parent.parent
BIGRAM = ROOT / "derivations" / "bigram.toml"
HAVE_TEX = bool(shutil.which("xelatex") and shutil.which("latexmk"))

# A bigram whose tokens (and title) hold control characters, written with TOML escapes.
CONTROL_SPEC = r'''title = "Control \u001b[31m characters \u0007 in tokens \u202e"

[model]
kind = "bigram"
vocab = ["a\u001b[31mb", "c\u0007d", "e\u007ff", "g\u0085h", "i\u202ej", "k\u0000l\ufffe"]
d = 2

[data]
input = ["c\u0007d"]
target = "g\u0085h"

[weights]
E = [[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4], [0.5, 0.1], [0.2, 0.3], [-0.3, 0.2]]
W = [[0.5, -0.3, 0.1, 0.2, -0.1, 0.3], [0.2, 0.4, -0.5, 0.1, 0.3, -0.2]]

[sampling]
top_k = 2
top_p = 0.5
uniform = 0.5
continue = 2

[training]
lr = 0.5
steps = 3
report = [1, 2, 3]
'''
CONTROL_TOKENS = ["a\x1b[31mb", "c\x07d", "e\x7ff", "g\x85h", "i\u202ej", "k\x00l\ufffe"]
SHOWN_TOKENS = [r"a\x1b[31mb", r"c\x07d", r"e\x7ff", r"g\x85h", r"i\u202ej", r"k\x00l\ufffe"]


# ---------------------------------------------------------------- fixtures and helpers

@pytest.fixture
def work(tmp_path, monkeypatch):
    """The folder every case must leave as it found it: --out goes here, TMPDIR is work/tmp."""
    w = tmp_path / "work"
    (w / "tmp").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(w / "tmp"))
    monkeypatch.setenv("TMPDIR", str(w / "tmp"))
    return w


@pytest.fixture
def aux(tmp_path):
    """Files the test itself needs (specs, fake tools, pid files), outside the checked folder."""
    a = tmp_path / "aux"
    a.mkdir()
    return a


def snapshot(work: Path) -> dict:
    """Every path under ``work`` with its bytes (None for what is not a regular file)."""
    return {p: (Path(p).read_bytes() if Path(p).is_file() else None) for p in hostile.files_under(work)}


@contextlib.contextmanager
def unchanged(work: Path):
    before = snapshot(work)
    yield
    after = snapshot(work)
    assert after == before, f"new or changed: {sorted(set(after) ^ set(before)) or 'contents'}"


@contextlib.contextmanager
def tmpfs(where: Path, options: str):
    """A tmpfs mounted at ``where`` (skips the test where mounting is not allowed)."""
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@contextlib.contextmanager
def read_only(where: Path):
    """A folder nothing can be created in: a read-only mount, or chmod 555 for a non-root user."""
    if os.geteuid() != 0:
        where.mkdir(parents=True)
        where.chmod(0o555)
        try:
            yield where
        finally:
            where.chmod(0o755)
        return
    with tmpfs(where, "ro,size=64k") as w:
        yield w


def command(module, *args, work, env=None, timeout=60, **kw) -> subprocess.CompletedProcess:
    """``python -m module args`` from the repository, TMPDIR = work/tmp, no bytecode written."""
    e = dict(os.environ, TMPDIR=str(work / "tmp"), PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    kw.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, env=e,
                          stderr=subprocess.PIPE, timeout=timeout, **kw)


def refused(r, *needles) -> str:
    """The one error line of a finished command: exit 2, naming every needle."""
    return hostile.assert_refused(hostile.Outcome(r.returncode, "", r.stderr.decode("utf-8")), *needles)


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_for(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


FAKE_FAIL = """#!/bin/sh
# a latexmk that fails like xelatex on an undefined command
printf 'This is XeTeX\\n! Undefined control sequence.\\nl.12 \\\\foo\\n! Emergency stop.\\n' > doc.log
echo "Latexmk: Errors, so I did not complete making targets"
exit 1
"""
FAKE_HANG = """#!/bin/sh
# a latexmk that never ends, with a child in its process group
echo $$ > "$FAKE_DIR/latexmk.pid"
sleep 300 &
echo $! > "$FAKE_DIR/child.pid"
pwd > "$FAKE_DIR/scratch"
wait
"""


def fake_tex(aux: Path, script: str) -> dict:
    """Environment whose PATH starts with a fake latexmk (and a fake xelatex)."""
    bin_ = aux / "bin"
    bin_.mkdir(exist_ok=True)
    for name, text in (("latexmk", script), ("xelatex", "#!/bin/sh\nexit 1\n")):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    return {"PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "FAKE_DIR": str(aux)}


# ---------------------------------------------------------------- --out that cannot take the files

def test_out_naming_an_existing_file(work):
    (work / "out").write_text("mine")
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(work / "out")),
                               f"--out {work / 'out'}", "expected a directory, got a file")


def test_out_dev_full(work):
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", "/dev/full"), "--out /dev/full", "got a device")


def test_out_named_pipe(work):
    os.mkfifo(work / "fifo")
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(work / "fifo")), "fifo", "got a named pipe")


def test_out_dangling_symlink(work):
    (work / "link").symlink_to(work / "nowhere")
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(work / "link")), "link",
                               "dangling symbolic link")


def test_out_below_a_file(work):
    (work / "f").write_text("x")
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(work / "f" / "a" / "out")),
                               f"{work / 'f'} is not a directory")


def test_out_is_a_read_only_directory(work):
    with read_only(work / "ro") as ro, unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(ro)), f"--out {ro}",
                               "cannot write into the directory", "read-only file system"
                               if os.geteuid() == 0 else "permission denied")


def test_out_to_create_inside_a_read_only_directory(work):
    with read_only(work / "ro") as ro, unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--out", str(ro / "a" / "out")),
                               "cannot create the directory in", str(ro))


def test_full_disk_into_an_existing_out(work):
    with tmpfs(work / "small", "size=8k") as out, unchanged(work):
        line = hostile.assert_refused(hostile.render("bigram", "--format", "md", "--lang", "en",
                                                     "--out", str(out)), "no space left on device")
        assert str(out) in line and "nothing was written" in line
        assert list(out.iterdir()) == []


def test_full_disk_into_a_new_out(work):
    with tmpfs(work / "small", "size=8k") as mnt, unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--format", "md", "--lang", "en",
                                              "--out", str(mnt / "a" / "b")), "no space left on device")
        assert list(mnt.iterdir()) == []  # neither the staging folder nor a/ remains


def test_a_directory_where_an_output_file_goes(work):
    out = work / "out"
    (out / "bigram.en.md").mkdir(parents=True)
    (out / "bigram-loss.svg").write_text("old")
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--format", "md", "--lang", "en", "--out", str(out)),
                               str(out / "bigram.en.md"), "expected a file to write, got a directory")
    assert (out / "bigram-loss.svg").read_text() == "old"


def test_specs_whose_outputs_clash_are_refused_before_any_work(work, aux):
    (aux / "a").mkdir()
    (aux / "b").mkdir()
    shutil.copy(BIGRAM, aux / "a" / "twin.toml")
    (aux / "b" / "twin.toml").write_text("this is not TOML [")  # never read: the clash comes first
    with unchanged(work):
        hostile.assert_refused(hostile.render(str(aux / "a" / "twin.toml"), str(aux / "b" / "twin.toml"),
                                              "--out", str(work / "out")),
                               str(aux / "a" / "twin.toml"), str(aux / "b" / "twin.toml"), "twin.*")


def test_a_spec_named_twice_is_rendered_once(work):
    o = hostile.render("bigram", str(BIGRAM), "--format", "md", "--lang", "en", "--out", str(work / "out"))
    assert o.code == 0, o.err
    names = ["bigram-loss.svg", "bigram-precision.svg", "bigram-probs.svg", "bigram.en.md"]
    assert sorted(p.name for p in (work / "out").iterdir()) == names
    assert o.out.splitlines() == [str(work / "out" / n) for n in names]


def test_success_replaces_old_files_and_leaves_no_staging_folder(work):
    out = work / "out"
    out.mkdir()
    (out / "bigram.en.md").write_text("old")
    (out / "keep.txt").write_text("mine")
    o = hostile.render("bigram", "--format", "md", "--lang", "en", "--out", str(out))
    assert o.code == 0, o.err
    assert (out / "bigram.en.md").read_text(encoding="utf-8").startswith("# ")
    assert (out / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == ["bigram-loss.svg", "bigram-precision.svg", "bigram-probs.svg",
                                                     "bigram.en.md", "keep.txt"]
    assert not list((work / "tmp").iterdir()) and sorted(p.name for p in work.iterdir()) == ["out", "tmp"]


# ---------------------------------------------------------------- flags

@pytest.mark.parametrize("flag,value", [
    ("--max-ops", "0"), ("--max-ops", "-5"), ("--max-ops", "many"), ("--max-ops", "1e6"),
    ("--max-ops", str(10 ** 16)), ("--max-digits", "0"), ("--max-digits", "1_000"),
    ("--max-digits", str(10 ** 7)), ("--tex-timeout", "0"), ("--tex-timeout", "-1"),
    ("--tex-timeout", "nan"), ("--tex-timeout", "inf"), ("--tex-timeout", "100000"),
])
def test_limit_flags_are_range_checked(work, flag, value):
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", flag, value, "--out", str(work / "out")), flag)


def test_limit_flags_reach_load_spec_and_derivation(work, monkeypatch):
    seen = []
    real_load, real_derivation = render.load_spec, render.Derivation

    def load(path, limits=None):
        seen.append(("load_spec", limits))
        return real_load(path, limits)

    def derivation(spec, *a, limits=None, **k):
        seen.append(("Derivation", limits))
        return real_derivation(spec, *a, limits=limits, **k)

    monkeypatch.setattr(render, "load_spec", load)
    monkeypatch.setattr(render, "Derivation", derivation)
    o = hostile.render("bigram", "--format", "md", "--lang", "en", "--max-ops", "1999999",
                       "--max-digits", "900", "--out", str(work / "out"))
    assert o.code == 0, o.err
    want = Limits(max_ops=1999999, max_digits=900)
    assert seen == [("load_spec", want), ("Derivation", want)]


# ---------------------------------------------------------------- the error line is terminal-safe

def test_the_error_line_shows_control_characters_in_a_file_name(work):
    bad = work / "o\x1b[2Jut\u202e\x85"
    bad.write_text("x")
    with unchanged(work):
        line = hostile.assert_refused(hostile.render("bigram", "--out", str(bad)), r"o\x1b[2Jut\u202e\x85")
    assert not any(is_control(c) for c in line)


@pytest.mark.parametrize("raw,shown", [
    ("\x1b[31m", r"\x1b[31m"), ("\x07", r"\x07"), ("\x7f", r"\x7f"), ("\x85", r"\x85"), ("\x9b", r"\x9b"),
    ("\u202e", r"\u202e"), ("\u2066", r"\u2066"), ("\n", r"\n"), ("\x00", r"\x00"), ("é 猫", "é 猫"),
])
def test_terminal_safe(raw, shown):
    assert cli.terminal_safe(raw) == shown


# ---------------------------------------------------------------- signals (in this process)

@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_files_are_staged_leaves_nothing(work, sig, code):
    out = work / "out"

    def main(argv):
        with cli.staged(out) as stage:
            stage.write("a.txt", "staged")
            os.kill(os.getpid(), sig)
            time.sleep(10)  # the handler raises before this ends
        return 0

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with unchanged(work):
        t = time.monotonic()
        o = hostile.run_main(main, [])
        assert time.monotonic() - t < 5
    assert o.code == code
    assert o.err == f"error: stopped by {signal.Signals(sig).name}\n"
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_a_child_is_killed_with_its_process_group_when_a_signal_arrives(work, aux):
    script = f"sleep 300 & echo $! > {aux}/child.pid; wait"

    def main(argv):
        signal.setitimer(signal.ITIMER_REAL, 0.5)  # SIGALRM → SIGTERM to ourselves mid-wait
        cli.run_child(["sh", "-c", script], cwd=aux, env=None, timeout=60, what="sh", flag="--x")
        return 0

    old = signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGTERM))
    try:
        o = hostile.run_main(main, [])
    finally:
        signal.signal(signal.SIGALRM, old)
    assert o.code == 143, o.err
    child = int((aux / "child.pid").read_text())
    assert wait_for(lambda: not alive(child), 5)


# ---------------------------------------------------------------- through the real command (slow)
# stdout faults, a file-size limit, a latexmk that hangs or is signalled and a real TeX run need
# a child process of their own: each is marked slow.

@pytest.mark.slow
def test_stdout_on_dev_full(work):
    with unchanged(work), open("/dev/full", "w") as full:
        r = command("symgpt.render", "bigram", "--format", "md", "--lang", "en", "--out", work / "out",
                    work=work, stdout=full)
    refused(r, "cannot write to stdout", "no space left on device")


@pytest.mark.slow
def test_stdout_a_closed_pipe(work):
    with unchanged(work):
        rd, wr = os.pipe()
        os.close(rd)  # the reader is gone before a byte is written
        try:
            r = command("symgpt.render", "bigram", "--format", "md", "--lang", "en", "--out", work / "out",
                        work=work, stdout=wr)
        finally:
            os.close(wr)
    refused(r, "cannot write to stdout", "broken pipe")


@pytest.mark.slow
def test_verify_stdout_on_dev_full(work):
    with unchanged(work), open("/dev/full", "w") as full:
        r = command("symgpt.verify", ROOT / "derivations" / "bigram.claims.toml", "--all", work=work,
                    stdout=full)
    refused(r, "cannot write to stdout", "no space left on device")


@pytest.mark.slow
def test_verify_stdout_a_closed_pipe(work):
    rd, wr = os.pipe()
    os.close(rd)
    try:
        r = command("symgpt.verify", ROOT / "derivations" / "bigram.claims.toml", "--all", work=work,
                    stdout=wr)
    finally:
        os.close(wr)
    refused(r, "cannot write to stdout", "broken pipe")


@pytest.mark.slow
def test_file_size_limit(work):
    def limit():
        # the .md (29 KB) cannot be written, the pictures (< 9 KB) can
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    with unchanged(work):
        r = command("symgpt.render", "bigram", "--format", "md", "--lang", "en", "--out", work / "out",
                    work=work, preexec_fn=limit)
    refused(r, str(work / "out" / "bigram.en.md"), "file too large", "nothing was written")


def test_a_failing_latexmk_is_one_line_with_the_logs_first_error(work, aux, monkeypatch):
    for k, v in fake_tex(aux, FAKE_FAIL).items():  # in this process: PATH finds the fake first
        monkeypatch.setenv(k, v)
    with unchanged(work):
        hostile.assert_refused(hostile.render("bigram", "--format", "pdf", "--lang", "en", "--out", str(work / "out")),
                               "bigram.en.tex", "xelatex failed", "! Undefined control sequence.")


@pytest.mark.slow
def test_a_hanging_latexmk_is_stopped_by_the_timeout(work, aux):
    with unchanged(work):
        t = time.monotonic()
        r = command("symgpt.render", "bigram", "--format", "pdf", "--lang", "en", "--tex-timeout", "2",
                    "--out", work / "out", work=work, env=fake_tex(aux, FAKE_HANG))
        assert time.monotonic() - t < 15
    refused(r, "bigram.en.tex", "after 2 s", "--tex-timeout")
    for f in ("latexmk.pid", "child.pid"):
        assert wait_for(lambda: not alive(int((aux / f).read_text())), 5), f"{f} still running"


@pytest.mark.slow
@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_mid_pdf_kills_latexmk_and_leaves_nothing(work, aux, sig, code):
    with unchanged(work):
        p = subprocess.Popen([sys.executable, "-m", "symgpt.render", "bigram", "--format", "pdf", "--lang",
                              "en", "--out", str(work / "out")], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             env=dict(os.environ, TMPDIR=str(work / "tmp"), PYTHONDONTWRITEBYTECODE="1",
                                      **fake_tex(aux, FAKE_HANG)))
        try:
            assert wait_for(lambda: (aux / "scratch").exists() and (aux / "child.pid").exists())
            scratch = Path((aux / "scratch").read_text().strip())
            assert scratch.parent == work / "tmp" and scratch.name.startswith("symgpt-tex-")
            p.send_signal(sig)
            _, err = p.communicate(timeout=20)
        finally:
            p.kill()
    assert p.returncode == code
    assert err.decode() == f"error: stopped by {signal.Signals(sig).name}\n"
    for f in ("latexmk.pid", "child.pid"):
        assert wait_for(lambda: not alive(int((aux / f).read_text())), 5), f"{f} still running"


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_TEX, reason="xelatex/latexmk not installed")
def test_sigterm_mid_pdf_with_the_real_latexmk(work):
    with unchanged(work):
        p = subprocess.Popen([sys.executable, "-m", "symgpt.render", "bigram", "--format", "pdf", "--lang",
                              "en", "--out", str(work / "out")], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             env=dict(os.environ, TMPDIR=str(work / "tmp"), PYTHONDONTWRITEBYTECODE="1"))
        try:
            assert wait_for(lambda: any((work / "tmp").glob("symgpt-tex-*/doc.log")))
            scratch = next((work / "tmp").glob("symgpt-tex-*"))
            tex = [int(d.name) for d in Path("/proc").iterdir() if d.name.isdigit() and _cwd(d) == scratch]
            assert tex, "no TeX process runs in the scratch folder"
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=20)
        finally:
            p.kill()
    assert p.returncode == 143
    assert err.decode() == "error: stopped by SIGTERM\n"
    assert wait_for(lambda: not any(alive(pid) for pid in tex), 5)


def _cwd(proc: Path):
    with contextlib.suppress(OSError):
        return Path(os.readlink(proc / "cwd"))


# ---------------------------------------------------------------- hostile text in every output

def test_control_characters_are_shown_in_svg_markdown_latex_and_claims(aux):
    spec = aux / "ctl.toml"
    spec.write_text(CONTROL_SPEC, encoding="utf-8")
    files = render.render_all([spec], formats=("md", "tex", "claims"), langs=("en", "zh"))
    svgs = [t for p, t in files.items() if p.suffix == ".svg"]
    assert len(svgs) == 3  # probs, loss and the float formats' digits
    for text in svgs:
        ET.fromstring(text.encode("utf-8"))  # well-formed XML, or ParseError
    probs = next(t for p, t in files.items() if p.name == "ctl-probs.svg")
    labels = [e.text for e in ET.fromstring(probs).iter("{http://www.w3.org/2000/svg}text")]
    assert set(SHOWN_TOKENS) <= set(labels)
    for p, text in files.items():
        bad = sorted({repr(c) for c in text if is_control(c) and c != "\n"})
        assert not bad, f"{p}: raw control characters {bad}"
    md = next(t for p, t in files.items() if p.name == "ctl.en.md")
    assert r"a\\x1b\[31mb" in md and r"i\\u202ej" in md  # Markdown shows a\x1b[31mb, i\u202ej
    tex = next(t for p, t in files.items() if p.name == "ctl.en.tex")
    assert r"a\textbackslash{}x1b[31mb" in tex and r"k\textbackslash{}x00l\textbackslash{}ufffe" in tex
    claims = tomllib.loads(next(t for p, t in files.items() if p.name == "ctl.en.claims.toml"))
    assert len(claims["claim"]) > 50  # valid TOML


@pytest.mark.parametrize("text", CONTROL_TOKENS + ["tab\there", "line\u2028sep", "\U0001fffe"])
def test_claims_strings_escape_every_control_character_and_read_back_exactly(text):
    quoted = render._toml_str(text)
    assert not any(is_control(c) for c in quoted)
    assert tomllib.loads(f"x = {quoted}")["x"] == text


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_TEX or not shutil.which("pdftotext"), reason="needs xelatex and poppler-utils")
def test_control_characters_give_a_pdf_with_pages_that_shows_them(work, aux):
    spec = aux / "ctl.toml"
    spec.write_text(CONTROL_SPEC, encoding="utf-8")
    o = hostile.render(str(spec), "--format", "pdf", "--lang", "en", "--out", str(work / "out"))
    assert o.code == 0, o.err
    pdf = work / "out" / "ctl.en.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1]) >= 3
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    for tok in SHOWN_TOKENS:
        assert tok in text, f"{tok} not shown in the PDF"
    assert not list((work / "tmp").iterdir())  # latexmk's scratch folder is gone
