"""Find the Python files to lint under the paths a user names."""

from __future__ import annotations

import os
from typing import Iterable, Iterator, List

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


def iter_python_files(paths: Iterable[str], settings: Settings) -> Iterator[str]:
    """Files named explicitly are always linted; directories are walked recursively."""
    for path in paths:
        if os.path.isfile(path):
            yield os.path.normpath(path)
        elif os.path.isdir(path):
            yield from _walk(path, settings)
        else:
            raise PathError(f"{path}: no such file or directory")


def _walk(root: str, settings: Settings) -> Iterator[str]:
    def on_error(error: OSError) -> None:
        raise PathError(f"{error.filename}: {error.strerror}")

    for directory, subdirectories, files in os.walk(root, onerror=on_error):
        subdirectories[:] = sorted(
            name for name in subdirectories
            if name not in SKIPPED_DIRECTORIES and not name.endswith(".egg-info")
            and not _is_virtualenv(os.path.join(directory, name))
            and not settings.is_excluded(os.path.join(directory, name)))
        for name in sorted(files):
            if name.endswith((".py", ".pyi")):
                path = os.path.normpath(os.path.join(directory, name))
                if not settings.is_excluded(path):
                    yield path


def collect(paths: Iterable[str], settings: Settings) -> List[str]:
    return sorted(set(iter_python_files(paths, settings)))
