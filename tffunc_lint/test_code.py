"""Tell test code from product code, for rules whose pitfall is harmless or deliberate in tests.

Test code is a file named ``test_*.py``, ``*_test.py`` or ``conftest.py``, a file under a
``tests`` folder, a module-level ``test_*`` function (pytest) or anything inside a class that
derives from a ``TestCase`` (``unittest``, ``absltest``, ``tf.test``, ``parameterized``) or is
named ``…TestCase`` itself.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Sequence

import libcst as cst

from .names import ast_dotted_name, dotted_name

_TEST_FILE = re.compile(r"^(?:test_.*|.*_test|conftest)\.pyi?$")


def is_test_path(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py``, or anything under a ``tests`` folder."""
    parts = re.split(r"[\\/]", os.path.normpath(path))
    return bool(_TEST_FILE.match(parts[-1])) or "tests" in parts[:-1]


def _is_test_case_name(dotted) -> bool:
    return bool(dotted) and dotted.rpartition(".")[2].endswith("TestCase")


def is_test_class(node: ast.ClassDef) -> bool:
    """A class that derives from a ``TestCase``, or is one (``class TestCase(*bases)``)."""
    return _is_test_case_name(node.name) or any(
        _is_test_case_name(ast_dotted_name(base)) for base in node.bases)


def is_test_function(node: ast.AST, in_class: bool) -> bool:
    """A module-level ``test_*`` function (methods are judged by their class)."""
    return not in_class and node.name.startswith("test")


def in_test_code(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether LibCST ``ancestors`` (outermost first) put a node in a test class or test
    function."""
    for position, node in enumerate(ancestors):
        if isinstance(node, cst.ClassDef) and (_is_test_case_name(node.name.value) or any(
                _is_test_case_name(dotted_name(base.value)) for base in node.bases)):
            return True
        if isinstance(node, cst.FunctionDef) and node.name.value.startswith("test") and not any(
                isinstance(outer, cst.ClassDef) for outer in ancestors[:position]):
            return True
    return False
