"""Shared helpers: annotated fixtures and linting snippets in memory."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_source
from tffunc_lint.fixtures import expected_findings  # noqa: F401 - shared with the tests

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FIXTURES = ROOT / "tffunc_lint" / "fixtures"
TEST_FIXTURES = ROOT / "tests" / "fixtures"


def fixture_files() -> List[Path]:
    return sorted(p for d in (PACKAGE_FIXTURES, TEST_FIXTURES) for p in d.rglob("*.py")
                  if p.name != "__init__.py")


def lint_snippet(code: str, path: str = "snippet.py", settings: Settings = None):
    settings = settings or Settings().resolved()
    return lint_source(path, textwrap.dedent(code).encode("utf-8"), settings).findings


@pytest.fixture
def lint():
    return lint_snippet
