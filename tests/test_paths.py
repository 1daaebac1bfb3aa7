"""Which files a run lints, as users of ruff and flake8 expect: standard input, default and
configured excludes, --force-exclude, .gitignore, paths that are missing or unreadable,
special files, and subcommand names that are also directory names."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from pathlib import Path
from typing import List, Tuple

import pytest

from tffunc_lint.doors.cli import main
from tffunc_lint.rule import all_rules

from .test_cli import PRINT_ONLY, Result, write

POSIX_USER = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="needs POSIX permissions and a user that root's rights don't cover")


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *args, stdin: bytes = None, monkeypatch=None) -> Result:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def linted(capsys, *args) -> Tuple[int, List[Tuple[str, int, str]], str]:
    """Exit code, (path, line, code) of each finding (JSON output), standard error."""
    result = run(capsys, "--output-format", "json", *args)
    rows = json.loads(result.out) if result.out.strip() else []
    return result.code, [(row["path"], row["line"], row["code"]) for row in rows], result.err


def paths(rows) -> List[str]:
    return [row[0] for row in rows]


# -- missing, unreadable and special paths ----------------------------------------------------


def test_a_missing_path_is_reported_and_the_rest_is_linted(capsys):
    write("a.py", PRINT_ONLY)
    code, rows, err = linted(capsys, "a.py", "missing.py", "gone/")
    assert (code, rows) == (2, [("a.py", 5, "TFF101")])
    assert err == ("tffunc-lint: error: missing.py: No such file or directory\n"
                   "tffunc-lint: error: gone/: No such file or directory\n")


@POSIX_USER
def test_an_unreadable_directory_is_reported_and_the_rest_is_linted(capsys):
    write("a.py", PRINT_ONLY)
    secret = write("sub/secret/b.py", PRINT_ONLY).parent
    write("sub/c.py", PRINT_ONLY)
    secret.chmod(0)
    try:
        code, rows, err = linted(capsys, ".")
    finally:
        secret.chmod(0o755)
    assert (code, paths(rows)) == (2, ["a.py", "sub/c.py"])
    assert err == "tffunc-lint: error: sub/secret: Permission denied\n"


def test_dev_null_is_an_empty_file(capsys):
    if not os.path.exists(os.devnull) or os.name != "posix":
        pytest.skip("no /dev/null")
    assert run(capsys, "--isolated", os.devnull).code == 0
    assert linted(capsys, os.devnull) == (0, [], "")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_fifo_named_explicitly_is_read_and_linted(capsys):
    os.mkfifo("pipe.py")

    def feed():
        with open("pipe.py", "w") as stream:
            stream.write(PRINT_ONLY)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, rows, err = linted(capsys, "pipe.py")
    writer.join(10)
    assert (code, rows, err) == (1, [("pipe.py", 5, "TFF101")], "")


# -- exclude: defaults, exclude, extend-exclude, force-exclude ---------------------------------


def test_default_excludes_are_replaced_by_exclude_and_extended_by_extend_exclude(capsys):
    for path in ["build/a.py", "dist/b.py", ".venv/c.py", "gen/d.py", "pkg/e.py"]:
        write(path, PRINT_ONLY)
    assert paths(linted(capsys, ".")[1]) == ["gen/d.py", "pkg/e.py"]
    write("pyproject.toml", '[tool.tffunc-lint]\nextend-exclude = ["gen"]\n')
    assert paths(linted(capsys, ".")[1]) == ["pkg/e.py"]
    write("pyproject.toml", '[tool.tffunc-lint]\nexclude = ["gen"]\n')
    assert paths(linted(capsys, ".")[1]) == [".venv/c.py", "build/a.py", "dist/b.py",
                                             "pkg/e.py"]
    # On the command line as in ruff: --exclude replaces, --extend-exclude adds.
    assert paths(linted(capsys, "--exclude", "pkg", ".")[1]) == [
        ".venv/c.py", "build/a.py", "dist/b.py", "gen/d.py"]
    assert paths(linted(capsys, "--extend-exclude", "build,dist", ".")[1]) == [
        ".venv/c.py", "pkg/e.py"]


def test_a_directory_named_explicitly_is_linted_even_if_excluded(capsys):
    write("build/gen.py", PRINT_ONLY)
    write("build/sub/more.py", PRINT_ONLY)
    write("build/__pycache__/x.py", PRINT_ONLY)
    assert paths(linted(capsys, "build")[1]) == ["build/gen.py", "build/sub/more.py"]
    assert linted(capsys, "--force-exclude", "build") == (0, [], "")
    assert linted(capsys, "--force-exclude", "build/sub/more.py") == (0, [], "")


def test_force_exclude_applies_exclude_to_named_files(capsys):
    write("generated/a.py", PRINT_ONLY)
    write("keep.py", PRINT_ONLY)
    write("pyproject.toml", '[tool.tffunc-lint]\nextend-exclude = ["generated"]\n')
    named = ("generated/a.py", "keep.py")
    assert paths(linted(capsys, *named)[1]) == ["generated/a.py", "keep.py"]
    assert paths(linted(capsys, "--force-exclude", *named)[1]) == ["keep.py"]
    write("pyproject.toml",
          '[tool.tffunc-lint]\nextend-exclude = ["generated"]\nforce-exclude = true\n')
    assert paths(linted(capsys, *named)[1]) == ["keep.py"]
    assert paths(linted(capsys, "--no-force-exclude", *named)[1]) == [
        "generated/a.py", "keep.py"]


@pytest.mark.parametrize("body, problem", [
    ("force-exclude = 1", "key 'force-exclude' must be true or false"),
    ('respect-gitignore = "no"', "key 'respect-gitignore' must be true or false"),
    ("extend-exclude = 'x'", "key 'extend-exclude' must be a list of strings"),
])
def test_new_keys_are_validated(capsys, body, problem):
    write("a.py", PRINT_ONLY)
    write("pyproject.toml", f"[tool.tffunc-lint]\n{body}\n")
    result = run(capsys, "a.py")
    assert (result.code, result.out) == (2, "")
    assert result.err == f"tffunc-lint: error: {Path('pyproject.toml').resolve()}: " \
                         f"[tool.tffunc-lint] {problem}\n"


# -- .gitignore ----------------------------------------------------------------------------------


def _repository():
    """A git work tree, as git sees one (a .git directory), with nested ignore files."""
    Path(".git/info").mkdir(parents=True)
    write(".git/info/exclude", "local_only.py\n")
    write(".gitignore", "ignored/\n*_pb2.py\n/top_only.py\n")
    write("pkg/.gitignore", "!keep_pb2.py\nscratch*.py\n")
    for path in ["ignored/a.py", "x_pb2.py", "top_only.py", "pkg/top_only.py",
                 "pkg/keep_pb2.py", "pkg/other_pb2.py", "pkg/scratch1.py", "local_only.py",
                 "pkg/mod.py", "other/scratch2.py"]:
        write(path, PRINT_ONLY)


def test_gitignore_files_are_respected_when_walking(capsys):
    _repository()
    assert paths(linted(capsys, ".")[1]) == ["other/scratch2.py", "pkg/keep_pb2.py",
                                             "pkg/mod.py", "pkg/top_only.py"]
    # Ignore files above the walked directory count too.
    assert paths(linted(capsys, "pkg")[1]) == ["pkg/keep_pb2.py", "pkg/mod.py",
                                               "pkg/top_only.py"]
    # A file named explicitly is linted, as in ruff.
    assert paths(linted(capsys, "x_pb2.py", "ignored")[1]) == ["ignored/a.py", "x_pb2.py"]


def test_respecting_gitignore_can_be_switched_off(capsys):
    _repository()
    every = ["ignored/a.py", "local_only.py", "other/scratch2.py", "pkg/keep_pb2.py",
             "pkg/mod.py", "pkg/other_pb2.py", "pkg/scratch1.py", "pkg/top_only.py",
             "top_only.py", "x_pb2.py"]
    assert paths(linted(capsys, "--no-respect-gitignore", ".")[1]) == every
    write("pyproject.toml", "[tool.tffunc-lint]\nrespect-gitignore = false\n")
    assert paths(linted(capsys, ".")[1]) == every
    assert len(linted(capsys, "--respect-gitignore", ".")[1]) == 4


def test_gitignore_outside_a_git_work_tree_is_not_read(capsys):
    write(".gitignore", "*.py\n")
    write("a.py", PRINT_ONLY)
    assert paths(linted(capsys, ".")[1]) == ["a.py"]


# -- standard input -------------------------------------------------------------------------------


def test_dash_lints_standard_input(capsys, monkeypatch):
    result = run(capsys, "-", stdin=PRINT_ONLY.encode(), monkeypatch=monkeypatch)
    assert result.code == 1
    assert result.out.startswith("-:5:5: TFF101 ")


def test_stdin_filename_names_the_file_and_finds_its_configuration(capsys, monkeypatch):
    write("pkg/pyproject.toml", '[tool.tffunc-lint]\nper-file-ignores = { "tests/*" = '
                                '["TFF101"] }\nextend-exclude = ["generated"]\n')
    source = PRINT_ONLY.encode()

    def lint(*args):
        return run(capsys, "--output-format", "json", *args, "-", stdin=source,
                   monkeypatch=monkeypatch)

    found = lint("--stdin-filename", "pkg/mod.py")
    assert [(f["path"], f["code"]) for f in json.loads(found.out)] == [("pkg/mod.py", "TFF101")]
    assert json.loads(lint("--stdin-filename", "pkg/tests/test_mod.py").out) == []
    # exclude applies to standard input as to files named explicitly: with --force-exclude.
    assert len(json.loads(lint("--stdin-filename", "pkg/generated/m.py").out)) == 1
    assert lint("--force-exclude", "--stdin-filename", "pkg/generated/m.py") == Result(
        0, "[]\n", "")


def test_fix_on_standard_input_writes_the_fixed_source_to_standard_output(capsys, monkeypatch):
    source = PRINT_ONLY.replace("@tf.function", "@tf.function(experimental_relax_shapes=True)")
    result = run(capsys, "--fix", "--stdin-filename", "a.py", "-", stdin=source.encode(),
                 monkeypatch=monkeypatch)
    assert result.out == source.replace("experimental_relax_shapes", "reduce_retracing")
    assert result.code == 1
    assert result.err.startswith("a.py:5:5: TFF101 ")  # what is left, on standard error
    assert os.listdir(".") == []
    # Excluded: the source comes back unchanged, with nothing to report.
    excluded = run(capsys, "--fix", "--force-exclude", "--extend-exclude", "a.py",
                   "--stdin-filename", "a.py", "-", stdin=source.encode(),
                   monkeypatch=monkeypatch)
    assert excluded == Result(0, source, "")


# -- subcommands and paths with their names ------------------------------------------------------


def test_rule_is_an_alias_of_explain(capsys):
    assert run(capsys, "rule", "TFF101") == run(capsys, "explain", "TFF101")
    assert run(capsys, "rule", "TFF101").out.startswith("# TFF101 ")


def test_check_subcommand_lints_like_the_default(capsys):
    write("a.py", PRINT_ONLY)
    assert run(capsys, "check", "a.py") == run(capsys, "a.py")
    assert run(capsys, "check").code == 1


@pytest.mark.parametrize("name", ["rules", "explain", "rule", "check"])
def test_a_directory_named_like_a_subcommand_is_linted_with_check_or_dot_slash(capsys, name):
    write(f"{name}/a.py", PRINT_ONLY)
    for args in (["check", name], [f"./{name}"], ["--", name]):
        result = run(capsys, *args)
        assert (result.code, result.out.startswith(f"{name}/a.py:5:5: TFF101 ")) == (1, True)
    if name == "rules":  # the subcommand still wins, with a note on how to lint the path
        result = run(capsys, "rules")
        assert result.code == 0
        assert len(result.out.splitlines()) == len(all_rules())
        assert result.err == ("tffunc-lint: note: `rules` is a subcommand; to lint the path "
                              "rules, run `tffunc-lint check rules`\n")


# -- configuration files that cannot be read -----------------------------------------------------


@POSIX_USER
def test_an_unreadable_pyproject_is_an_error_naming_it(capsys):
    write("a.py", PRINT_ONLY)
    config = write("pyproject.toml", "[tool.tffunc-lint]\n")
    config.chmod(0)
    try:
        result = run(capsys, "a.py")
    finally:
        config.chmod(0o644)
    assert result == Result(2, "", f"tffunc-lint: error: {config.resolve()}: cannot read: "
                                   "Permission denied\n")
