"""The flake8 door and the CLI door report exactly the same findings.

Every fixture ``.py`` file under ``tffunc_lint/fixtures/`` and ``tests/fixtures/`` is linted
once by ``flake8 --isolated --select TFF`` and once by ``tffunc-lint --isolated
--output-format json``; the sets of (path, line, column, code, message) must be equal. The two
doors share the engine but not the ``# noqa`` handling (flake8 applies its own), the column
base (flake8 adds 1 to the plugin's 0-based column) or the message formatting, which is what
this test pins down.

The files are copied (``.py`` only, same relative paths) into a temporary directory first:
the flake8 plugin reads ``[tool.tffunc-lint]`` from the nearest ``pyproject.toml`` even under
``flake8 --isolated`` (flake8 does not tell plugins about ``--isolated``), so a table in this
repository's or a fixture directory's ``pyproject.toml`` would otherwise make the doors
disagree for a reason unrelated to the engine.

Files that do not parse are a documented difference: flake8 reports them as E999 and never
runs tree plugins, the CLI reports TFF000. They are linted too, and must give a TFF000 from the
CLI and nothing from ``flake8 --select TFF``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIRS = (ROOT / "tffunc_lint" / "fixtures", ROOT / "tests" / "fixtures")
SAMPLE = "tests/fixtures/parity_sample.py"
COPY = "copy"

_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+[0-9]+) "
                          r"(?P<message>.*)$")
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")

Row = Tuple[str, int, int, str, str]


def _fixture_files() -> List[str]:
    """Relative (POSIX) paths of every fixture Python file."""
    files = set()
    for directory in FIXTURE_DIRS:
        for path in directory.rglob("*.py"):
            if "__pycache__" not in path.parts:
                files.add(path.relative_to(ROOT).as_posix())
    return sorted(files)


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError,
            MemoryError):
        return False
    return True


def _norm(path: str) -> str:
    """The path as it is in the repository."""
    path = Path(os.path.normpath(path)).as_posix()
    assert path.startswith(COPY + "/"), path
    return path[len(COPY) + 1:]


def _run(argv: List[str], cwd: Path) -> "subprocess.Popen[str]":
    return subprocess.Popen([sys.executable, *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_flake8_and_cli_report_the_same_findings(tmp_path):
    files = _fixture_files()
    assert files, "no fixture files found"
    assert SAMPLE in files

    # Not straight into the working directory: a copied ``tffunc_lint/`` there would shadow
    # the real package for ``python -m`` (the working directory comes first on sys.path).
    copy = tmp_path / COPY
    for relative in files:
        target = copy / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, target)
    unparseable = {relative for relative in files if not _parses(copy / relative)}
    arguments = [f"{COPY}/{relative}" for relative in files]

    # Both runs at once: each is one process over every file.
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "TFF", *arguments], tmp_path)
    cli = _run(["-m", "tffunc_lint", "--isolated", "--output-format", "json", *arguments],
               tmp_path)
    flake8_out, flake8_err = flake8.communicate(timeout=600)
    cli_out, cli_err = cli.communicate(timeout=600)

    assert flake8.returncode in (0, 1), f"flake8 failed ({flake8.returncode}):\n{flake8_err}"
    assert cli.returncode in (0, 1), f"tffunc-lint failed ({cli.returncode}):\n{cli_err}"

    from_flake8: Set[Row] = set()
    for line in flake8_out.splitlines():
        match = _FLAKE8_LINE.match(line)
        assert match, f"unexpected flake8 output line: {line!r}\nstderr:\n{flake8_err}"
        from_flake8.add((_norm(match["path"]), int(match["line"]), int(match["column"]),
                         match["code"], match["message"]))
    from_cli_all: Set[Row] = {
        (_norm(item["path"]), item["line"], item["column"], item["code"], item["message"])
        for item in json.loads(cli_out)}

    assert from_cli_all, "no findings at all: the parity check would pass vacuously"
    assert (flake8.returncode == 1) == bool(from_flake8)
    assert cli.returncode == 1

    # Files that do not parse: TFF000 from the CLI, nothing from flake8 (E999 is not selected).
    for relative in unparseable:
        assert any(row[0] == relative and row[3] == "TFF000" for row in from_cli_all), relative
        assert not any(row[0] == relative for row in from_flake8), relative
    from_cli = {row for row in from_cli_all if row[0] not in unparseable}

    only_flake8 = sorted(from_flake8 - from_cli)
    only_cli = sorted(from_cli - from_flake8)
    assert not only_flake8 and not only_cli, (
        "the doors disagree\n  only flake8:\n    " + "\n    ".join(map(str, only_flake8))
        + "\n  only the CLI:\n    " + "\n    ".join(map(str, only_cli)))

    # The sample must exercise what it was written for: every expected finding reported,
    # the suppressed ones (``# noqa`` on the line or on the last line of a multi-line string
    # or backslash continuation) not reported.
    expected: Dict[int, List[str]] = {}
    for number, text in enumerate((ROOT / SAMPLE).read_text().splitlines(), start=1):
        match = _EXPECT.search(text)
        if match:
            expected[number] = sorted(c.strip() for c in match["codes"].split(","))
    reported: Dict[int, List[str]] = {}
    for path, line, _, code, _ in from_flake8:
        if path == SAMPLE:
            reported.setdefault(line, []).append(code)
    assert {line: sorted(codes) for line, codes in reported.items()} == expected
    assert {"TFF101", "TFF301", "TFF405"} <= {c for codes in expected.values() for c in codes}


@pytest.mark.xfail(strict=True, reason=(
    "known divergence: flake8 consumes --isolated in its preliminary parse and never tells "
    "plugins, so the plugin still reads [tool.tffunc-lint] from pyproject.toml"))
def test_isolated_means_no_configuration_for_both_doors(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tffunc-lint]\nignore = ["TFF101"]\n')
    (tmp_path / "bad.py").write_text(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n")
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "TFF", "bad.py"], tmp_path)
    cli = _run(["-m", "tffunc_lint", "--isolated", "bad.py"], tmp_path)
    flake8_out, _ = flake8.communicate(timeout=300)
    cli_out, _ = cli.communicate(timeout=300)
    assert cli_out.startswith("bad.py:5:5: TFF101 ")  # the CLI ignores the table
    assert flake8_out == cli_out


@pytest.mark.parametrize("config, problem", [
    ("[tool.tffunc-lint]\nselect = [\n", "invalid TOML: "),
    ('[tool.tffunc-lint]\nselect = ["TFF999"]\n', "unknown rule code or name 'TFF999'"),
    ('[tool.tffunc-lint]\nselec = ["TFF101"]\n', "[tool.tffunc-lint] unknown key 'selec'"),
], ids=["malformed", "unknown-code", "unknown-key"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_reports_a_broken_configuration_instead_of_using_the_defaults(
        tmp_path, config, problem, jobs):
    (tmp_path / "pyproject.toml").write_text(config)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import tensorflow as tf\n\n@tf.function\n"
                                     "def f(x):\n    print(x)\n")
    done = subprocess.run([sys.executable, "-m", "flake8", "--select", "TFF", "-j", jobs,
                           "a.py", "b.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    first = done.stdout.splitlines()[0]
    assert re.match(r'[ab]\.py: "tffunc-lint\[TFF\]" failed during execution due to '
                    r"ConfigError\(", first), done.stdout
    assert f"{tmp_path / 'pyproject.toml'}: {problem}" in first, done.stdout
    assert "TFF101" not in done.stdout
