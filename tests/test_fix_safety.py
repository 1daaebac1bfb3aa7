"""``--fix`` never loses anything: links, owner, permissions, read-only files, and edits
made to a file while the run went on."""

from __future__ import annotations

import os
import sys

import pytest

import tffunc_lint.doors.cli as cli
from tffunc_lint.doors.cli import main

from .test_cli import ALL_RULES, Result, write

FIXED = ALL_RULES.replace("experimental_relax_shapes", "reduce_retracing")
needs_links = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fix(capsys, *paths) -> Result:
    code = main(["--fix", "--select", "TFF405", "--output-format", "json", *paths])
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


@needs_links
def test_a_symlink_stays_a_symlink_and_its_target_is_fixed(capsys):
    target = write("real/target.py", ALL_RULES)
    os.symlink("real/target.py", "link.py")
    assert fix(capsys, "link.py") == Result(0, "[]\n", "")
    assert os.path.islink("link.py") and os.readlink("link.py") == "real/target.py"
    assert target.read_text() == FIXED


@needs_links
def test_a_hard_link_is_not_broken(capsys):
    first = write("a.py", ALL_RULES)
    os.link("a.py", "b.py")
    inode = first.stat().st_ino
    assert fix(capsys, "a.py").code == 0
    assert first.stat().st_ino == inode and first.stat().st_nlink == 2
    assert open("b.py").read() == FIXED


@pytest.mark.skipif(not hasattr(os, "chown"), reason="POSIX owners")
def test_owner_group_and_mode_are_kept(capsys):
    path = write("a.py", ALL_RULES)
    path.chmod(0o640)
    if os.geteuid() == 0:  # root can give the file another owner to keep
        os.chown(path, 65534, 65534)
    before = path.stat()
    assert fix(capsys, "a.py").code == 0
    after = path.stat()
    assert path.read_text() == FIXED
    assert (after.st_ino, after.st_uid, after.st_gid, after.st_mode) == (
        before.st_ino, before.st_uid, before.st_gid, before.st_mode)


def test_a_read_only_file_is_not_rewritten_and_its_findings_remain(capsys):
    path = write("a.py", ALL_RULES)
    path.chmod(0o444)
    try:
        result = fix(capsys, "a.py")
    finally:
        path.chmod(0o644)
    assert path.read_text() == ALL_RULES
    assert result.err == "a.py: not writable, fix not applied\n"
    assert result.code == 1 and '"code": "TFF405"' in result.out


def test_a_file_edited_during_the_run_is_not_overwritten(capsys, monkeypatch):
    path = write("a.py", ALL_RULES)
    edited = ALL_RULES + "# edited by someone else\n"
    lint_project = cli.lint_project

    def lint_then_edit(*args, **kwargs):
        results = lint_project(*args, **kwargs)
        path.write_text(edited)
        return results

    monkeypatch.setattr(cli, "lint_project", lint_then_edit)
    result = fix(capsys, "a.py")
    assert path.read_text() == edited
    assert result.err == "a.py: fix skipped: the file changed while it was linted\n"
    assert result.code == 1


def test_other_files_are_still_fixed_when_one_cannot_be(capsys):
    locked = write("a.py", ALL_RULES)
    free = write("b.py", ALL_RULES)
    locked.chmod(0o444)
    try:
        result = fix(capsys, "a.py", "b.py")
    finally:
        locked.chmod(0o644)
    assert (locked.read_text(), free.read_text()) == (ALL_RULES, FIXED)
    assert result.err == "a.py: not writable, fix not applied\n"
