"""The progress line on stderr: shown on a terminal, updated in place and erased at the end;
never written to a pipe or a file, nor with ``--quiet``."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from tffunc_lint.doors.progress import ERASE, Progress, progress_for

SOURCE = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"


@pytest.fixture
def project(tmp_path):
    for number in range(3):
        (tmp_path / f"m{number}.py").write_text(SOURCE)
    return tmp_path


def lint(project, *args, terminal: bool):
    """Run the installed command with stderr on a pseudo-terminal or a pipe; its stderr."""
    command = [sys.executable, "-m", "tffunc_lint", "--isolated", "-j", "1",
               *args, "."]
    if not terminal:
        done = subprocess.run(command, cwd=project, capture_output=True, timeout=120)
        return done.stderr.decode()
    import pty

    master, slave = pty.openpty()
    process = subprocess.Popen(command, cwd=project, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    assert process.wait(timeout=120) == 1
    return received.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_on_a_terminal_the_progress_line_is_updated_in_place_and_erased(project):
    err = lint(project, terminal=True)
    assert err.startswith(ERASE + "Linting ")
    assert f"{ERASE}Linting 3/3 files" in err  # the last file of a pass is always shown
    assert err.endswith(ERASE)  # and the line is erased at the end
    assert "\n" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_quiet_shows_no_progress_even_on_a_terminal(project):
    assert lint(project, "--quiet", terminal=True) == ""


def test_nothing_when_stderr_is_not_a_terminal(project):
    assert lint(project, terminal=False) == ""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_updates_are_throttled_but_the_last_of_a_pass_is_shown():
    stream, now = Terminal(), [0.0]
    progress = Progress(stream, interval=0.1, clock=lambda: now[0])
    for done in range(1, 6):
        progress(done, 5)
        now[0] += 0.04
    progress(1, 2, phase=1)
    progress.clear()
    assert stream.getvalue().split(ERASE) == [
        "", "Linting 1/5 files", "Linting 4/5 files", "Linting 5/5 files",
        "Following calls across modules: 1/2 files", ""]


def test_progress_only_for_terminals():
    assert progress_for(io.StringIO()) is None
    assert isinstance(progress_for(Terminal()), Progress)
    assert progress_for(Terminal(), quiet=True) is None
