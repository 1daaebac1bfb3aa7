"""Find the Python files (and Jupyter notebooks) to lint under the paths a user names."""

from __future__ import annotations

import errno
import os
from functools import lru_cache
from typing import Callable, Iterable, Iterator, List, Optional, Tuple

from .config import Settings
from .gitignore import GitIgnore


class PathError(Exception):
    """A path the user named does not exist or cannot be read."""


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def _error(error: OSError) -> str:
    return f"{os.path.normpath(error.filename)}: {error.strerror or error}"


def iter_python_files(paths: Iterable[str], settings_for: Callable[[str], Settings],
                      errors: Optional[List[str]] = None) -> Iterator[str]:
    """Files named explicitly are linted (unless ``force-exclude`` excludes them), whatever
    their kind (``/dev/null``, a FIFO); directories are walked recursively.

    A path that does not exist, or a directory that cannot be listed, is appended to
    ``errors`` as one message and the rest goes on (without ``errors``: PathError).
    """
    def report(message: str) -> None:
        if errors is None:
            raise PathError(message)
        errors.append(message)

    for path in paths:
        if settings_for(path).force_exclude and settings_for(path).is_excluded(path):
            continue
        if os.path.isdir(path):
            yield from _walk(path, settings_for, report)
        elif os.path.exists(path):
            yield os.path.normpath(path)
        else:
            report(f"{path}: {os.strerror(errno.ENOENT)}")


def _walk(root: str, settings_for: Callable[[str], Settings],
          report: Callable[[str], None]) -> Iterator[str]:
    ignore = GitIgnore()
    # A directory named explicitly is walked even when git ignores it, like an excluded one
    # (ruff does the same); everything below it then matches its pattern, so ask no more.
    gitignored_root = settings_for(root).respect_gitignore and ignore.ignored(root, True)
    for directory, subdirectories, files in os.walk(root, onerror=lambda e: report(_error(e))):
        settings = settings_for(directory)
        respect_gitignore = settings.respect_gitignore and not gitignored_root

        def skipped(path: str, is_directory: bool) -> bool:
            return (settings.is_excluded(path, ancestors=False)
                    or (respect_gitignore and ignore.ignored(path, is_directory)))

        subdirectories[:] = sorted(
            name for name in subdirectories
            if not _is_virtualenv(os.path.join(directory, name))
            and not skipped(os.path.join(directory, name), True))
        for name in sorted(files):
            if name.endswith((".py", ".pyi", NOTEBOOK_SUFFIX)):
                path = os.path.normpath(os.path.join(directory, name))
                if not skipped(path, False):
                    yield path


def collect(paths: Iterable[str], settings_for: Callable[[str], Settings],
            errors: Optional[List[str]] = None) -> List[str]:
    return sorted(set(iter_python_files(paths, settings_for, errors)))


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


@lru_cache(maxsize=4096)
def folder_names(path: str, module: str) -> Tuple[str, ...]:
    """Other names than ``module`` that the module at ``path`` may be imported by, through
    the folders without ``__init__.py`` above it, nearest first, up to three (PEP 420, as
    Python finds them when a folder up is on ``sys.path``): ``common/models.py`` →
    ``common.models``. None for a module of a regular package's own folder (its
    package names it)."""
    directory = os.path.dirname(os.path.abspath(path))
    names: List[str] = []
    name = module.rpartition(".")[2]
    for _ in range(_NAMESPACE_DEPTH):
        folder = os.path.basename(directory)
        if os.path.isfile(os.path.join(directory, "__init__.py")) or not folder.isidentifier():
            break
        name = f"{folder}.{name}"
        if name != module:
            names.append(name)
        directory = os.path.dirname(directory)
    return tuple(names)


#: A Jupyter notebook's file name ends so; ``notebook`` reads its cells.
NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.endswith(NOTEBOOK_SUFFIX)


def module_name_for(path: str) -> Tuple[str, bool]:
    """Dotted module name of a file from the ``__init__.py`` files above it, and whether it
    is a package's ``__init__``: ``pkg/sub/mod.py`` → (``pkg.sub.mod``, False)."""
    directory, name = os.path.split(os.path.abspath(path))
    stem = name.rsplit(".", 1)[0]
    if is_notebook(name):  # a notebook is a module of its own, never importable
        return f"<notebook {stem}>", False
    packages = _package_parts(directory) or _namespace_parts(directory)
    if stem == "__init__":
        return ".".join(packages), True
    return ".".join(packages + (stem,)), False
