"""Tell test code from product code, for rules whose pitfall is harmless or deliberate in tests.

Test code is a file named ``test_*.py``, ``*_test.py`` or ``conftest.py``, a file under a
``tests`` folder, a module-level ``test_*`` function (pytest) or anything inside a class that
derives from a ``TestCase`` (``unittest``, ``absltest``, ``tf.test``, ``parameterized``) or is
named ``…TestCase`` itself.

A test class often derives from a project's own base (``class GraphTensorTest(
tu.GraphTensorTestBase)``, the base deriving ``tf.test.TestCase`` in another module), which
one module cannot see: :func:`is_test_method` also takes a ``test*`` method of a class named
``…Test``, ``…Tests`` or ``Test…`` for a test. A test runs once, so code that runs once per
call of it runs once.

:func:`is_test_module` tells a module of tests from the programs its tests read: under a
``tests`` folder, files under a ``fixtures`` or ``testdata`` folder are sample inputs (for
a linter, sample product code), not tests, unless their own name says so.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Sequence

from .lazy_libcst import cst

from .names import ast_dotted_name, dotted_name
from .patterns import lazy_compile

_TEST_FILE = lazy_compile(r"^(?:test_.*|.*_test|conftest)\.pyi?$")


def is_test_path(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py``, or anything under a ``tests`` folder."""
    parts = re.split(r"[\\/]", os.path.normpath(path))
    return bool(_TEST_FILE.match(parts[-1])) or "tests" in parts[:-1]


_DATA_FOLDERS = frozenset({"fixtures", "testdata"})


def is_test_module(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py``, or a module under a ``tests`` folder
    that is not under a ``fixtures``/``testdata`` folder (or ``fixtures_*``) inside it."""
    parts = re.split(r"[\\/]", os.path.normpath(path))
    if _TEST_FILE.match(parts[-1]):
        return True
    folders = parts[:-1]
    if "tests" not in folders:
        return False
    below = folders[len(folders) - folders[::-1].index("tests"):]
    return not any(folder in _DATA_FOLDERS or folder.startswith(("fixtures_", "testdata_"))
                   for folder in below)


def _is_test_case_name(dotted) -> bool:
    return bool(dotted) and dotted.rpartition(".")[2].endswith("TestCase")


def is_test_class(node: ast.ClassDef) -> bool:
    """A class that derives from a ``TestCase``, or is one (``class TestCase(*bases)``)."""
    return _is_test_case_name(node.name) or any(
        _is_test_case_name(ast_dotted_name(base)) for base in node.bases)


def is_test_function(node: ast.AST, in_class: bool) -> bool:
    """A module-level ``test_*`` function (methods are judged by their class)."""
    return not in_class and node.name.startswith("test")


def _is_test_class_name(name: str) -> bool:
    return name.endswith(("Test", "Tests")) or name.startswith("Test")


def is_test_method(node: ast.AST, cls: ast.ClassDef) -> bool:
    """A ``test*`` method of a test class: one deriving from a ``TestCase``, or named
    ``…Test``, ``…Tests`` or ``Test…`` (its base may be a project's own, out of sight)."""
    return node.name.startswith("test") and (is_test_class(cls)
                                             or _is_test_class_name(cls.name))


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
