"""Thin flake8 adapter: ``flake8 --select TFF`` runs the same engine as the CLI.

flake8 does the ``# noqa`` handling and code selection itself; the plugin only drops the
findings silenced on the first line of their statement, which flake8 does not look at. ``extra-traced-decorators`` and ``per-file-ignores`` come from the same
``[tool.tffunc-lint]`` table the CLI reads.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterator, List, Tuple

from .. import __version__, noqa
from ..config import Settings, find_pyproject, load_settings
from ..engine import lint_text
from ..analysis import lazy_libcst

lazy_libcst.freeze_on_import = True  # flake8's process: see lazy_libcst


@lru_cache(maxsize=64)
def _settings_for(directory: str) -> Settings:
    """The file's ``[tool.tffunc-lint]`` settings. A configuration that cannot be read or is
    invalid raises ConfigError, which flake8 reports as the plugin failing on that file
    (``a.py: "TFF" failed during execution due to ConfigError('pyproject.toml: ...')``) and
    exits 1, as it does for any plugin error: never a silent run with the defaults."""
    return load_settings(find_pyproject(Path(directory))).resolved()


class Flake8Plugin:
    """flake8 ``tree`` plugin, registered under the ``TFF`` prefix."""

    name = "tffunc-lint"
    version = __version__

    def __init__(self, tree: ast.Module, filename: str, lines: List[str]):
        self._tree = tree
        self._filename = filename
        self._lines = lines
        # Here, not in run(): flake8 turns an exception raised while it builds the plugin
        # into its one-line plugin failure report, while one raised from run()'s iteration
        # escapes as a traceback.
        self._settings = _settings_for(os.path.dirname(os.path.abspath(filename)))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        settings = self._settings
        text = "".join(self._lines)
        result = lint_text(self._filename, text, settings, apply_noqa=False, tree=self._tree,
                           alone=True)
        findings = noqa.filter_findings(result.findings, text, self._lines, statement_only=True)
        for finding in findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.text}", type(self)
