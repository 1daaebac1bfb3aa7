"""Shared helpers: annotated fixtures and linting snippets in memory."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_source

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FIXTURES = ROOT / "tffunc_lint" / "fixtures"
TEST_FIXTURES = ROOT / "tests" / "fixtures"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TFF\d{3}(?:\s*,\s*TFF\d{3})*)")


def fixture_files() -> List[Path]:
    return sorted(p for d in (PACKAGE_FIXTURES, TEST_FIXTURES) for p in d.rglob("*.py")
                  if p.name != "__init__.py")


def expected_findings(path: Path) -> Set[Tuple[int, str]]:
    """(line, code) pairs announced by trailing ``# expect: CODE[, CODE]`` comments."""
    expected = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            expected.update((number, code.strip()) for code in match.group("codes").split(","))
    return expected


def lint_snippet(code: str, path: str = "snippet.py", settings: Settings = None):
    settings = settings or Settings().resolved()
    return lint_source(path, textwrap.dedent(code).encode("utf-8"), settings).findings


@pytest.fixture
def lint():
    return lint_snippet
