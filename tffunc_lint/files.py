"""Find the Python files (and Jupyter notebooks) to lint under the paths a user names."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Callable, Iterable, Iterator, List, Tuple

from .config import Settings

#: Directory names never descended into (ruff's and flake8's usual suspects).
SKIPPED_DIRECTORIES = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache", ".svn",
    ".tox", ".venv", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist",
    "node_modules", "site-packages", "venv",
})


class PathError(Exception):
    """A path the user named does not exist or cannot be read."""


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def iter_python_files(paths: Iterable[str], settings_for: Callable[[str], Settings]
                      ) -> Iterator[str]:
    """Files named explicitly are always linted; directories are walked recursively."""
    for path in paths:
        if os.path.isfile(path):
            yield os.path.normpath(path)
        elif os.path.isdir(path):
            yield from _walk(path, settings_for)
        else:
            raise PathError(f"{path}: no such file or directory")


def _walk(root: str, settings_for: Callable[[str], Settings]) -> Iterator[str]:
    def on_error(error: OSError) -> None:
        raise PathError(f"{error.filename}: {error.strerror}")

    for directory, subdirectories, files in os.walk(root, onerror=on_error):
        settings = settings_for(directory)
        subdirectories[:] = sorted(
            name for name in subdirectories
            if name not in SKIPPED_DIRECTORIES and not name.endswith(".egg-info")
            and not _is_virtualenv(os.path.join(directory, name))
            and not settings.is_excluded(os.path.join(directory, name)))
        for name in sorted(files):
            if name.endswith((".py", ".pyi", ".ipynb")):
                path = os.path.normpath(os.path.join(directory, name))
                if not settings.is_excluded(path):
                    yield path


def collect(paths: Iterable[str], settings_for: Callable[[str], Settings]) -> List[str]:
    return sorted(set(iter_python_files(paths, settings_for)))


#: How many directories without ``__init__.py`` may sit between a module and a regular
#: package and still be namespace packages inside it (``pkg/models/bert/m.py``).
_NAMESPACE_DEPTH = 3


@lru_cache(maxsize=4096)
def _package_parts(directory: str) -> Tuple[str, ...]:
    """Names of the packages ``directory`` is nested in, outermost first."""
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return ()
    parent = os.path.dirname(directory)
    if parent == directory:
        return (os.path.basename(directory),)
    return _package_parts(parent) + (os.path.basename(directory),)


def _namespace_parts(directory: str) -> Tuple[str, ...]:
    """For a module outside any regular package: the namespace packages (PEP 420,
    directories without ``__init__.py``) between it and a regular package close above, so
    its relative imports resolve (``pkg/models/bert/m.py``: ``from ...utils import x``)."""
    names: Tuple[str, ...] = ()
    for _ in range(_NAMESPACE_DEPTH):
        parent = os.path.dirname(directory)
        if parent == directory:
            return ()
        names = (os.path.basename(directory),) + names
        directory = parent
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            return _package_parts(directory) + names
    return ()


def module_name_for(path: str) -> Tuple[str, bool]:
    """Dotted module name of a file from the ``__init__.py`` files above it, and whether it
    is a package's ``__init__``: ``pkg/sub/mod.py`` → (``pkg.sub.mod``, False)."""
    directory, name = os.path.split(os.path.abspath(path))
    stem = name.rsplit(".", 1)[0]
    if name.endswith(".ipynb"):  # a notebook is a module of its own, never importable
        return f"<notebook {stem}>", False
    packages = _package_parts(directory) or _namespace_parts(directory)
    if stem == "__init__":
        return ".".join(packages), True
    return ".".join(packages + (stem,)), False
