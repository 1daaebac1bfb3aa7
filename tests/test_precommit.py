"""The pre-commit hook, end to end: ``pre-commit try-repo`` installs this repository into
an isolated environment (pip, from the package registry) and runs ``tffunc-lint`` on a
temporary git repository.

``try-repo`` on a local path with uncommitted changes takes only what ``git add -u`` would
(tracked files, modified or staged); untracked files, such as a new ``.pre-commit-hooks.yaml``
or new modules, are silently left out. So the test snapshots the working tree (tracked and
untracked, minus what ``.gitignore`` excludes) into a throwaway repository, commits it there,
and points ``try-repo`` at that: it tests exactly the files on disk, committed or not, and
never touches this repository's git state.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tffunc_lint.rules.tff101_print import PrintInTfFunction

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")

BAD = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"
CLEAN = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    tf.print(x)\n    return x\n"
BAD_NOTEBOOK = json.dumps({"cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# A notebook"]},
    {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
     "source": (BAD + "\n\nf(tf.constant(1.0))\n").splitlines(keepends=True)}],
    "metadata": {}, "nbformat": 4,
    "nbformat_minor": 5}, indent=1)
EXPECTED_LINE = f"bad.py:5:5: TFF101 {PrintInTfFunction.message} [traced: @tf.function at line 3]"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(GIT is None, reason="git is not installed; pre-commit needs it"),
]


def _environment(home: Path) -> dict:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GIT_", "PRE_COMMIT"))}  # e.g. when run from a git hook
    env["PRE_COMMIT_HOME"] = str(home)
    env["PRE_COMMIT_COLOR"] = "never"
    return env


def _git(*args: str, cwd: Path, env: dict) -> None:
    subprocess.run([GIT, "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, env=env, check=True, capture_output=True, text=True)


def _new_repo(path: Path, env: dict) -> None:
    path.mkdir(parents=True)
    _git("init", "-q", cwd=path, env=env)
    _git("config", "user.email", "tests@example.invalid", cwd=path, env=env)
    _git("config", "user.name", "tffunc-lint tests", cwd=path, env=env)


def _commit_all(path: Path, env: dict) -> None:
    _git("add", "-A", cwd=path, env=env)
    _git("commit", "-q", "--no-verify", "-m", "snapshot", cwd=path, env=env)


#: What a copy of a source tree without git (a tarball, an sdist) leaves out.
_NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info",
                                      "__pycache__", ".pytest_cache", ".cache")


def _source_files(env: dict) -> list:
    """This project's files: git's list in a checkout (tracked and untracked, minus what
    .gitignore excludes), or every file but build and cache output in a source tree that
    is not one (``git archive`` output, an unpacked sdist)."""
    inside = subprocess.run([GIT, "rev-parse", "--show-toplevel"], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    if inside.returncode == 0 and Path(inside.stdout.strip()).resolve() == ROOT:
        listing = subprocess.run(
            [GIT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, env=env, check=True, capture_output=True).stdout.decode()
        return list(filter(None, listing.split("\0")))
    files = []
    for directory, subdirectories, names in os.walk(ROOT):
        ignored = _NOT_SOURCES(directory, subdirectories + names)
        subdirectories[:] = [name for name in subdirectories if name not in ignored]
        files += [os.path.relpath(os.path.join(directory, name), ROOT)
                  for name in names if name not in ignored]
    return files


def _snapshot_of_working_tree(target: Path, env: dict) -> None:
    _new_repo(target, env)
    for relative in _source_files(env):
        source = ROOT / relative
        if source.is_file():  # a tracked file deleted in the working tree is left out
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    _commit_all(target, env)


def _try_repo(hook_repo: Path, project: Path, env: dict, *files: str):
    selection = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "tffunc-lint",
         *selection],
        cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_precommit_hook_reports_findings_and_passes_clean_files(tmp_path):
    env = _environment(tmp_path / "pre-commit-home")
    hook_repo = tmp_path / "hook-repo"
    _snapshot_of_working_tree(hook_repo, env)
    assert (hook_repo / ".pre-commit-hooks.yaml").is_file()

    project = tmp_path / "project"
    _new_repo(project, env)
    (project / "bad.py").write_text(BAD)
    (project / "clean.py").write_text(CLEAN)
    (project / "bad.ipynb").write_text(BAD_NOTEBOOK)
    _commit_all(project, env)

    found = _try_repo(hook_repo, project, env)
    output = found.stdout + found.stderr
    assert found.returncode == 1, output
    assert EXPECTED_LINE in output.splitlines(), output
    assert any(line.startswith("bad.ipynb:cell 2:5:5: TFF101 ")  # types_or: jupyter
               for line in output.splitlines()), output
    assert "clean.py:" not in output, output

    clean = _try_repo(hook_repo, project, env, "clean.py")
    output = clean.stdout + clean.stderr
    assert clean.returncode == 0, output
    assert "Passed" in output, output


def test_precommit_hook_applies_exclude_to_the_files_it_is_given(tmp_path):
    """pre-commit names every file, so the hook passes --force-exclude: `exclude` and
    `extend-exclude` apply to those files as they do when tffunc-lint walks a directory."""
    env = _environment(tmp_path / "pre-commit-home")
    hook_repo = tmp_path / "hook-repo"
    _snapshot_of_working_tree(hook_repo, env)

    project = tmp_path / "project"
    _new_repo(project, env)
    (project / "pyproject.toml").write_text(
        '[tool.tffunc-lint]\nextend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    (project / "generated" / "bad.py").write_text(BAD)
    (project / "build").mkdir()
    (project / "build" / "bad.py").write_text(BAD)  # a default exclude
    (project / "bad.py").write_text(BAD)
    _commit_all(project, env)

    found = _try_repo(hook_repo, project, env)
    output = found.stdout + found.stderr
    assert found.returncode == 1, output
    assert any(line.startswith("bad.py:5:5: TFF101 ") for line in output.splitlines()), output
    assert "generated/bad.py" not in output and "build/bad.py" not in output, output

    excluded_only = _try_repo(hook_repo, project, env, "generated/bad.py", "build/bad.py")
    output = excluded_only.stdout + excluded_only.stderr
    assert excluded_only.returncode == 0, output
