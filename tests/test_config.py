"""``[tool.tffunc-lint]`` in ``pyproject.toml``, through the command line.

Every test runs in its own empty working directory; ``write_config`` puts a configuration
next to the files it governs. The source ``ALL_RULES`` has TFF405 on line 3, TFF101 on line
5 and TFF301 on line 6.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import pytest

from tests.test_cli import (ALL_RULES, PRINT_ONLY, Result, assert_usage_error, finding, reported,
                            run, write)

LINE_OF = {"TFF405": 3, "TFF101": 5, "TFF301": 6}
KNOWN_KEYS = ("cache-dir, exclude, extend-exclude, extend-ignore, extend-select, "
              "extra-traced-decorators, force-exclude, ignore, per-file-ignores, "
              "respect-gitignore, select, tensorflow-version")


def write_config(directory: str, body: str) -> Path:
    return write(Path(directory) / "pyproject.toml", "[tool.tffunc-lint]\n" + body)


def findings_of(path: str, *codes: str) -> List[Tuple[str, int, str]]:
    """What ``reported`` gives for a file holding ``ALL_RULES`` with these codes enabled."""
    return [(path, LINE_OF[code], code) for code in codes]


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- where the configuration comes from -----------------------------------------------------


@pytest.mark.parametrize("target, codes", [
    ("top.py", ["TFF301"]),
    ("project/a.py", ["TFF101"]),
    # project/sub/pyproject.toml has no [tool.tffunc-lint]: the search goes on upwards.
    ("project/sub/b.py", ["TFF101"]),
    ("project/sub/inner/c.py", ["TFF405"]),
])
def test_nearest_pyproject_with_a_table_above_the_linted_path(capsys, target, codes):
    write_config(".", 'select = ["TFF301"]\n')
    write_config("project", 'select = ["TFF101"]\n')
    write("project/sub/pyproject.toml", '[project]\nname = "sub"\n')
    write_config("project/sub/inner", 'select = ["TFF405"]\n')
    write(target, ALL_RULES)
    assert reported(run(capsys, target)) == findings_of(target, *codes)


def test_configuration_is_found_from_the_paths_not_the_working_directory(
        capsys, monkeypatch, tmp_path):
    write_config("project", 'select = ["TFF101"]\n')
    write("project/a.py", ALL_RULES)
    write_config("elsewhere", 'select = ["TFF301"]\n')
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert reported(run(capsys, "../project/a.py")) == findings_of("../project/a.py", "TFF101")


def test_each_file_gets_its_own_nearest_configuration(capsys):
    """Linting files together gives each the findings it gets alone (as flake8 does)."""
    write_config("sub", 'select = ["TFF405"]\n')
    write("sub/a.py", ALL_RULES)
    write("b.py", ALL_RULES)
    assert reported(run(capsys, "sub/a.py", "b.py")) == (
        findings_of("b.py", "TFF405", "TFF101", "TFF301") + findings_of("sub/a.py", "TFF405"))
    assert reported(run(capsys, "sub/a.py")) == findings_of("sub/a.py", "TFF405")


@pytest.mark.parametrize("table", [
    '[tool."tffunc-lint"]\nselect = ["TFF101"]\n',
    '[ tool . tffunc-lint ]\nselect = ["TFF101"]\n',
    '[tool]\n"tffunc-lint" = { select = ["TFF101"] }\n',
    'tool.tffunc-lint.select = ["TFF101"]\n',
    '[tool."\\u0074ffunc\\u002dlint"]\nselect = ["TFF101"]\n',
], ids=["quoted", "spaced", "inline", "dotted-keys", "escaped"])
def test_every_toml_spelling_of_the_table_is_found(capsys, table):
    write("pyproject.toml", table)
    write("a.py", ALL_RULES)
    assert reported(run(capsys, "a.py")) == findings_of("a.py", "TFF101")


def test_explicit_config_file(capsys):
    write_config(".", 'select = ["TFF101"]\n')
    write("configs/strict.toml", '[tool.tffunc-lint]\nselect = ["TFF301"]\n')
    write("a.py", ALL_RULES)
    result = run(capsys, "--config", "configs/strict.toml", "a.py")
    assert reported(result) == findings_of("a.py", "TFF301")


def test_missing_explicit_config_file(capsys):
    write("a.py", ALL_RULES)
    assert_usage_error(run(capsys, "--config", "missing.toml", "a.py"),
                       "missing.toml: no such configuration file")


def test_isolated_ignores_configuration_even_a_broken_one(capsys):
    write_config(".", "select = [\n")
    write("a.py", ALL_RULES)
    assert run(capsys, "a.py").code == 2
    assert reported(run(capsys, "--isolated", "a.py")) == findings_of(
        "a.py", "TFF405", "TFF101", "TFF301")


# -- what the configuration says ------------------------------------------------------------


@pytest.mark.parametrize("body, codes", [
    ("", ["TFF405", "TFF101", "TFF301"]),
    ('select = ["TFF1"]\n', ["TFF101"]),
    ('select = ["print-in-tf-function", "TFF405"]\n', ["TFF405", "TFF101"]),
    ('ignore = ["TFF301"]\n', ["TFF405", "TFF101"]),
    ('select = ["TFF1"]\nextend-select = ["TFF3"]\n', ["TFF101", "TFF301"]),
    ('extend-ignore = ["TFF4", "variable-created-in-tf-function"]\n', ["TFF101"]),
    ('select = ["TFF"]\nignore = ["TFF101"]\nextend-ignore = ["TFF405"]\n', ["TFF301"]),
])
def test_selection_keys(capsys, body, codes):
    write_config(".", body)
    write("a.py", ALL_RULES)
    assert reported(run(capsys, "a.py")) == findings_of("a.py", *codes)


def test_per_file_ignores(capsys):
    # (the pitfall rules do not run in test modules; the deprecation rule does, unless
    # ignored there)
    write_config(".", 'per-file-ignores = { "tests/*" = ["TFF405"], '
                      '"legacy_*.py" = ["print-in-tf-function", "TFF3"] }\n')
    for path in ["main.py", "tests/test_main.py", "legacy_model.py", "pkg/legacy_io.py"]:
        write(path, ALL_RULES)
    result = run(capsys, ".")
    assert reported(result) == (
        findings_of("legacy_model.py", "TFF405")
        + findings_of("main.py", "TFF405", "TFF101", "TFF301")
        + findings_of("pkg/legacy_io.py", "TFF405"))


def test_globs_are_relative_to_the_configuration_not_the_working_directory(
        capsys, tmp_path, monkeypatch):
    write_config(".", 'per-file-ignores = { "pkg/legacy.py" = ["TFF1"] }\n'
                      'exclude = ["pkg/generated"]\n')
    write("pkg/legacy.py", ALL_RULES)
    write("pkg/other.py", ALL_RULES)
    write("pkg/generated/out.py", ALL_RULES)
    monkeypatch.chdir(tmp_path / "pkg")
    assert reported(run(capsys, ".")) == (findings_of("legacy.py", "TFF405", "TFF301")
                                          + findings_of("other.py", "TFF405", "TFF101", "TFF301"))


def test_exclude(capsys):
    write_config(".", 'exclude = ["generated", "pkg/skip_*.py"]\n')
    for path in ["generated/a.py", "pkg/generated/b.py", "pkg/skip_me.py", "pkg/keep.py",
                 "pkg/vendor/c.py"]:
        write(path, PRINT_ONLY)
    assert reported(run(capsys, ".")) == [("pkg/keep.py", 5, "TFF101"),
                                          ("pkg/vendor/c.py", 5, "TFF101")]
    # --extend-exclude adds to the configured globs, --exclude replaces them (as in ruff).
    assert reported(run(capsys, "--extend-exclude", "vendor", ".")) == [
        ("pkg/keep.py", 5, "TFF101")]
    assert reported(run(capsys, "--exclude", "vendor", ".")) == [
        ("generated/a.py", 5, "TFF101"), ("pkg/generated/b.py", 5, "TFF101"),
        ("pkg/keep.py", 5, "TFF101"), ("pkg/skip_me.py", 5, "TFF101")]
    # A file named on the command line is linted all the same.
    assert reported(run(capsys, "pkg/skip_me.py")) == [("pkg/skip_me.py", 5, "TFF101")]


PROJECT_DECORATOR = (
    "import tensorflow as tf\n"
    "from myproject.utils import traced\n"
    "\n"
    "\n"
    "def my_traced(fn):\n"
    "    return registry.wrap(fn)  # wraps tf.function where this linter cannot see\n"
    "\n"
    "\n"
    "@my_traced\n"
    "def step(x):\n"
    "    print(x)\n"
    "    return x\n"
    "\n"
    "\n"
    "@traced(jit=True)\n"
    "def other(x):\n"
    "    print(x)\n"
    "    return x\n"
)


def test_extra_traced_decorators(capsys):
    write("a.py", PROJECT_DECORATOR)
    assert run(capsys, "a.py") == Result(0, "All checks passed!\n", "")
    write_config(".", 'extra-traced-decorators = ["my_traced", "myproject.utils.traced"]\n')
    assert run(capsys, "a.py") == Result(1, "\n".join([
        finding("a.py", 11, 5, "TFF101", traced="@my_traced at line 9"),
        finding("a.py", 17, 5, "TFF101", traced="@traced at line 15"),
        "Found 2 findings."]) + "\n", "")


def test_extra_traced_decorators_on_the_command_line(capsys):
    write("a.py", PROJECT_DECORATOR)
    result = run(capsys, "--isolated", "--extra-traced-decorators", "my_traced", "a.py")
    assert result.lines == [finding("a.py", 11, 5, "TFF101", traced="@my_traced at line 9"),
                            "Found 1 finding."]


# -- command-line flags override the file ----------------------------------------------------


@pytest.mark.parametrize("body, args, codes", [
    ('select = ["TFF101"]\n', ["--select", "TFF301"], ["TFF301"]),
    ('select = ["TFF1"]\n', ["--extend-select", "TFF405"], ["TFF405", "TFF101"]),
    # --ignore replaces the file's ignore list; --extend-ignore adds to its extend-ignore.
    ('ignore = ["TFF101"]\n', ["--ignore", "TFF301"], ["TFF405", "TFF101"]),
    ('extend-ignore = ["TFF101"]\n', ["--extend-ignore", "TFF301"], ["TFF405"]),
    ('extend-select = ["TFF405"]\n', ["--select", "TFF101"], ["TFF405", "TFF101"]),
])
def test_command_line_overrides_the_file(capsys, body, args, codes):
    write_config(".", body)
    write("a.py", ALL_RULES)
    assert reported(run(capsys, *args, "a.py")) == findings_of("a.py", *codes)


# -- bad configuration exits 2 naming the file and the problem --------------------------------


@pytest.mark.parametrize("body, problem", [
    ('select = "TFF101"\n', "[tool.tffunc-lint] key 'select' must be a list of strings"),
    ('exclude = ["ok", 3]\n', "[tool.tffunc-lint] key 'exclude' must be a list of strings"),
    ('extra-traced-decorators = [["x"]]\n',
     "[tool.tffunc-lint] key 'extra-traced-decorators' must be a list of strings"),
    ('selec = ["TFF101"]\n', f"[tool.tffunc-lint] unknown key 'selec' (known keys: {KNOWN_KEYS})"),
    ('select = ["TFF999"]\n', "unknown rule code or name 'TFF999'"),
    ('ignore = ["TFF101", "print"]\n', "unknown rule code or name 'print'"),
    ('extend-select = ["X"]\n', "unknown rule code or name 'X'"),
    ('extend-ignore = ["TFF3", "TFF30X"]\n', "unknown rule code or name 'TFF30X'"),
    ('per-file-ignores = { "tests/*" = ["TFF999"] }\n', "unknown rule code or name 'TFF999'"),
    ('per-file-ignores = { "tests/*" = "TFF101" }\n',
     "[tool.tffunc-lint] key 'per-file-ignores.tests/*' must be a list of strings"),
    ('per-file-ignores = ["tests/*"]\n',
     "[tool.tffunc-lint] key 'per-file-ignores' must be a table of glob = [codes]"),
    ('tensorflow-version = 2.4\n',
     "[tool.tffunc-lint] key 'tensorflow-version': must be a string"),
    ('tensorflow-version = "two"\n',
     "[tool.tffunc-lint] key 'tensorflow-version': not a version specifier: 'two' "
     '(e.g. "2.4", ">=2.4,<2.9", "==2.2.0")'),
])
def test_invalid_configuration(capsys, tmp_path, body, problem):
    write_config(".", body)
    write("a.py", ALL_RULES)
    pyproject = (tmp_path / "pyproject.toml").resolve()
    assert_usage_error(run(capsys, "a.py"), f"{pyproject}: {problem}")


@pytest.mark.parametrize("content", [
    b"[tool.tffunc-lint]\nselect = [\n",
    b"[tool.tffunc-lint]\nselect = ['TFF101']\nselect = ['TFF301']\n",
    b"[tool.tffunc-lint]\n# caf\xe9 in latin-1\n",
], ids=["unclosed", "duplicate-key", "not-utf-8"])
def test_malformed_toml(capsys, tmp_path, content):
    write("pyproject.toml", content)
    write("a.py", ALL_RULES)
    result = run(capsys, "a.py")
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(
        f"tffunc-lint: error: {(tmp_path / 'pyproject.toml').resolve()}: invalid TOML: ")
    assert result.err.count("\n") == 1 and result.err.endswith("\n")


@pytest.mark.parametrize("content, problem", [
    ('[tool]\ntffunc-lint = ["TFF101"]\n', "[tool.tffunc-lint] must be a table"),
    ('tool = "x"\n', "[tool] must be a table"),
])
def test_tables_that_are_not_tables(capsys, content, problem):
    write("settings.toml", content)
    write("a.py", ALL_RULES)
    assert_usage_error(run(capsys, "--config", "settings.toml", "a.py"),
                       f"settings.toml: {problem}")


def test_unknown_code_on_the_command_line_names_the_flag_not_the_file(capsys):
    write_config(".", 'select = ["TFF101"]\n')
    write("a.py", ALL_RULES)
    assert_usage_error(run(capsys, "--ignore", "TFF999", "a.py"),
                       "--ignore: unknown rule code or name 'TFF999'")


def test_unknown_code_in_the_file_is_reported_even_when_a_flag_replaces_it(capsys, tmp_path):
    write_config(".", 'select = ["TFF999"]\n')
    write("a.py", ALL_RULES)
    assert_usage_error(run(capsys, "--select", "TFF101", "a.py"),
                       f"{(tmp_path / 'pyproject.toml').resolve()}: "
                       "unknown rule code or name 'TFF999'")
