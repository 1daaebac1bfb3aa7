"""Which TensorFlow versions a project supports: the ``tensorflow-version`` setting, else
what the project declares (``requirements*.txt``, ``pyproject.toml``'s
``[project] dependencies``, ``setup.cfg``'s ``install_requires``, ``setup.py``).

A rule that suggests a newer spelling (TFF405: ``reduce_retracing=`` exists from TensorFlow
2.9) asks :func:`has_everywhere` whether every supported version has it. Versions are
compared by (major, minor). Only the bounds are read (``==``, ``~=``, ``>=``, ``>``, ``<=``,
``<``); an unknown declaration supports any version, as if the newest were targeted.

Whether a file belongs to a distribution others install (:func:`is_distributed`) is read
from the same project files: the code of an application runs only as the project uses it.

The standard library has no requirement parser (``packaging`` is not a dependency of this
project), hence the small one here.
"""

from __future__ import annotations

import ast
import configparser
import functools
import os
import re
from typing import Iterator, List, Optional, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

Version = Tuple[int, int]
#: (oldest supported, newest excluded); None where the declaration sets no bound.
Bounds = Tuple[Optional[Version], Optional[Version]]

_NAME = re.compile(r"^\s*tensorflow(?:[-_.](?:gpu|cpu|macos|intel|aarch64))?\s*(?:\[[^\]]*\])?"
                   r"\s*(?P<spec>[<>=!~][^;#]*)?\s*(?:[;#].*)?$", re.IGNORECASE)
_CLAUSE = re.compile(r"^\s*(?P<op>===|==|~=|>=|<=|!=|>|<)\s*(?P<version>\d+(?:\.\d+)*)"
                     r"(?:\.\*)?\s*$")
_ROOT_MARKERS = (".git", ".hg", "pyproject.toml", "setup.py", "setup.cfg")


class SpecifierError(ValueError):
    """A ``tensorflow-version`` that is not a version or a list of version clauses."""


def bounds(spec: str) -> Bounds:
    """The bounds of a specifier: ``">=2.4,<2.9"``; a bare version (``"2.4"``) is the
    oldest supported one."""
    text = spec.strip()
    if re.fullmatch(r"\d+(?:\.\d+)*", text):
        text = ">=" + text
    low: Optional[Version] = None
    high: Optional[Version] = None
    for clause in text.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            raise SpecifierError(f"not a version specifier: {spec!r} (e.g. \"2.4\", "
                                 f"\">=2.4,<2.9\", \"==2.2.0\")")
        op = match.group("op")
        parts = [int(p) for p in match.group("version").split(".")]
        version = (parts[0], parts[1] if len(parts) > 1 else 0)
        following = (version[0], version[1] + 1)
        if op in ("==", "===", "~=", ">=", ">"):
            low = version if low is None else max(low, version)
        if op in ("==", "===", "<="):
            high = following if high is None else min(high, following)
        elif op == "<":
            high = version if high is None else min(high, version)
        elif op == "~=":
            last = (version[0] + 1, 0) if len(parts) <= 2 else following
            high = last if high is None else min(high, last)
    return low, high


def has_everywhere(spec: Optional[str], since: Version) -> bool:
    """Every version ``spec`` allows has what appeared in ``since``: False when an allowed
    version is older, or when every allowed version is."""
    if not spec:
        return True
    low, high = bounds(spec)
    return not (low is not None and low < since or high is not None and high <= since)


@functools.lru_cache(maxsize=None)
def declared(directory: str) -> Optional[str]:
    """The TensorFlow specifier the nearest project files above ``directory`` declare, or
    None: the first directory (going up) whose files name TensorFlow decides; the walk stops
    at the project's root (a ``.git``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg``)."""
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    specs = [spec for spec in _declarations(directory, names) if spec]
    if specs:
        return ",".join(specs)
    parent = os.path.dirname(directory)
    if parent == directory or any(marker in names for marker in _ROOT_MARKERS):
        return None
    return declared(parent)


@functools.lru_cache(maxsize=None)
def distributed(directory: str) -> bool:
    """The code in ``directory`` is part of a distribution others install and import: the
    nearest project files above it build one (a ``setup.py``; ``pyproject.toml`` with
    ``[project]``, ``[build-system]`` or ``[tool.poetry]``; ``setup.cfg`` with
    ``[metadata]``), or it was built or installed as one (``PKG-INFO``, ``*.dist-info``,
    ``*.egg-info`` beside it). The walk stops at the project's root, as ``declared``'s."""
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    if any(name in ("setup.py", "PKG-INFO") or name.endswith((".dist-info", ".egg-info"))
           for name in names):
        return True
    try:
        if "pyproject.toml" in names:
            with open(os.path.join(directory, "pyproject.toml"), "rb") as handle:
                data = tomllib.load(handle)
            tool = data.get("tool")
            if "project" in data or "build-system" in data or (
                    isinstance(tool, dict) and "poetry" in tool):
                return True
        if "setup.cfg" in names:
            parser = configparser.ConfigParser(interpolation=None)
            parser.read(os.path.join(directory, "setup.cfg"), encoding="utf-8")
            if parser.has_section("metadata"):
                return True
    except (OSError, ValueError, tomllib.TOMLDecodeError, configparser.Error):
        return True  # a project file the linter cannot read may declare one
    parent = os.path.dirname(directory)
    if parent == directory or any(marker in names for marker in _ROOT_MARKERS):
        return False
    return distributed(parent)


def is_distributed(path: str) -> bool:
    """``distributed`` for the directory of the file ``path``."""
    return distributed(os.path.dirname(os.path.abspath(path)))


def _declarations(directory: str, names: List[str]) -> Iterator[str]:
    for name in sorted(names):
        path = os.path.join(directory, name)
        try:
            if name.startswith("requirements") and name.endswith(".txt"):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    yield from _specs(handle)
            elif name == "pyproject.toml":
                with open(path, "rb") as handle:
                    project = tomllib.load(handle).get("project", {})
                dependencies = project.get("dependencies", []) if isinstance(
                    project, dict) else []
                yield from _specs(d for d in dependencies if isinstance(d, str))
            elif name == "setup.cfg":
                parser = configparser.ConfigParser(interpolation=None)
                parser.read(path, encoding="utf-8")
                yield from _specs(parser.get("options", "install_requires",
                                             fallback="").splitlines())
            elif name == "setup.py":
                with open(path, encoding="utf-8", errors="replace") as handle:
                    tree = ast.parse(handle.read())
                yield from _specs(node.value for node in ast.walk(tree)
                                  if isinstance(node, ast.Constant)
                                  and isinstance(node.value, str) and len(node.value) < 200)
        except (OSError, ValueError, SyntaxError, tomllib.TOMLDecodeError,
                configparser.Error, RecursionError):
            continue  # a project file the linter cannot read declares nothing it can use


def _specs(lines) -> Iterator[str]:
    for line in lines:
        match = _NAME.match(line)
        if match and match.group("spec"):
            spec = match.group("spec").strip()
            try:
                bounds(spec)
            except SpecifierError:
                continue
            yield spec


def for_file(path: str, setting: Optional[str]) -> Optional[str]:
    """The TensorFlow versions a file is written for: the ``tensorflow-version`` setting,
    else what its project declares."""
    return setting or declared(os.path.dirname(os.path.abspath(path)))


def has_anywhere(spec: Optional[str], since: Version) -> bool:
    """Some version ``spec`` allows has what appeared in ``since`` (True when unknown)."""
    if not spec:
        return True
    _, high = bounds(spec)
    return high is None or high > since
