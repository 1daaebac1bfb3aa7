"""Which TensorFlow versions a project supports: the ``tensorflow-version`` setting, else
what the project declares (``requirements*.txt``, ``pyproject.toml``'s
``[project] dependencies``, ``setup.cfg``'s ``install_requires``, ``setup.py``), else the
releases it names exactly where it says how to run it: a Docker image
(``tensorflow/tensorflow:2.4.0-gpu`` in a ``Dockerfile`` or the README) or a pinned install
(``pip install tensorflow==2.4.0``, conda's ``tensorflow=2.4`` in ``environment.yml`` or
``requirements.yaml``, a Docker build's ``ENV TENSORFLOW_VERSION=2.4.0``; also in the
Docker files and conda environments of a folder for them beside the project's
files, ``envs/tf2.2-gpu-env.yml``, ``docker/Dockerfile``),
or, short of those, the item of a list of requirements that names TensorFlow and its
version alone (``- Tensorflow (version 2.0+)``, ``* tensorflow 2.4.1``). Prose ("written
for TensorFlow 2.0", "2.8+") is not read: it seldom says whether later releases are meant
too. A file that installs TensorFlow itself (a notebook's
``!pip install tensorflow==2.3.0``) runs that release (:func:`installed_in`).

A lock file (``poetry.lock``, ``uv.lock``, ``Pipfile.lock``) names the release the
project installs and runs: it narrows what the other files declare (``tensorflow =
"^2.11"`` locked at 2.12.0 runs on 2.12, whose ``tf.keras`` is Keras 2; a Pipfile's
``tensorflow = "*"`` locked at 2.4.1 runs on 2.4).

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
import functools
import os
import re
from types import ModuleType
from typing import Iterator, List, NamedTuple, Optional, Tuple

from .analysis.patterns import lazy_compile


def toml() -> ModuleType:
    """The TOML reader (``tomllib``, ``tomli`` before Python 3.11), imported when a file is
    first read: a run that reads none does not pay for it."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    return tomllib


Version = Tuple[int, int]
#: (oldest supported, newest excluded); None where the declaration sets no bound.
Bounds = Tuple[Optional[Version], Optional[Version]]

#: TensorFlow's distributions: ``tensorflow``, its variants, and its nightly builds
#: (``tf-nightly-gpu==2.4.0.dev20201005`` is a build of 2.4 before its release).
_NAME = lazy_compile(r"^\s*(?:tensorflow(?:[-_.](?:gpu|cpu|macos|intel|aarch64))?"
                     r"|tf[-_]nightly(?:[-_](?:gpu|cpu))?)\s*(?:\[[^\]]*\])?"
                     r"\s*(?P<spec>[<>=!~][^;#]*)?\s*(?:[;#].*)?$", re.IGNORECASE)
#: A clause of a specifier. A release's pre-, post- or development suffix (PEP 440:
#: ``2.2.0rc3``, ``2.4.0.post1``, ``2.9.0.dev0``) names the same minor release.
_CLAUSE = lazy_compile(r"^\s*(?P<op>===|==|~=|>=|<=|!=|>|<)\s*(?P<version>\d+(?:\.\d+)*)"
                       r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
                       r"(?:[-_.]?(?:post|rev|r)[-_.]?\d*)?(?:[-_.]?dev[-_.]?\d*)?"
                       r"(?:\.\*)?\s*$", re.IGNORECASE)
_REPOSITORY_MARKERS = (".git", ".hg")
_ROOT_MARKERS = (*_REPOSITORY_MARKERS, "pyproject.toml", "setup.py", "setup.cfg")
#: A TensorFlow release named exactly: a Docker image's tag, or a pinned install (``==``,
#: conda's ``=``). ``tensorflow-text==2.4`` and NVIDIA's ``tensorflow:22.03-tf2`` are not.
_IMAGE = lazy_compile(r"tensorflow[\w.-]*:(?P<version>[12]\.\d+)(?![\d])", re.IGNORECASE)
#: Where an image counts: a line that starts building or running it (``FROM``, ``docker
#: run``, a list item ``- docker image …``, the image alone) or passes it on (``--image``,
#: compose's ``image:``), not one quoting it in a sentence.
_RUNS_IMAGE = lazy_compile(r"^[ \t]*(?:[-*+>$][ \t]*)*`?[ \t]*(?:sudo[ \t]+)?(?:FROM\b|"
                           r"(?:nvidia-)?docker\b|\./|image:|[\w./-]*tensorflow[\w.-]*:)|"
                           r"--image[ \t=]+`?[\w./-]*tensorflow", re.IGNORECASE)
#: A Docker build's variable that names the TensorFlow release it installs
#: (``ENV TENSORFLOW_VERSION=2.4.0``, ``ARG TF_VERSION 2.3.1``).
_VERSION_VARIABLE = lazy_compile(
    r"^[ \t]*(?:ENV|ARG)[ \t]+(?:TENSORFLOW|TF)(?:_GPU|_CPU)?_VERSION(?:[ \t]*=[ \t]*|[ \t]+)"
    r"[\"']?(?P<version>[12]\.\d+)(?![\d])", re.IGNORECASE)
_PIN = lazy_compile(r"(?<![\w.-])(?:tensorflow|tf[-_]nightly)(?:[-_](?:gpu|cpu))?\s*={1,2}\s*"
                    r"(?P<version>[12]\.\d+)"
                    r"(?![\d*])", re.IGNORECASE)
#: Where a pin counts: a line that starts installing (``RUN pip install``, ``$ conda
#: install``, ``- pip install`` in a list, after ``&&``), or one that is nothing but the
#: requirement (an item of a conda environment or of a README's list). A pin quoted in a
#: sentence may be anyone's: this project's own README quotes some.
_INSTALLS = lazy_compile(r"(?:^[ \t]*(?:RUN\b)?|&&|;)[ \t]*(?:[-*+>$!][ \t]*)*`?[ \t]*"
                         r"(?:sudo[ \t]+)?(?:python3?[ \t]+-m[ \t]+)?"
                         r"(?:pip3?|conda|mamba)[ \t]+install\b")
_REQUIREMENT_LINE = lazy_compile(
    r"^[ \t]*(?:[-*+][ \t]+)?`?tensorflow[\w-]*[ \t]*=[^ \t]*`?[ \t]*$", re.IGNORECASE)
#: An item of a list that names TensorFlow and its version, and nothing else (a README's
#: requirements: ``- TensorFlow 2.4``, ``* tensorflow >= 2.3``, ``- Tensorflow (version
#: 2.0+)``, ``* tensorflow 2.0 or above``, the same in Korean or Chinese, ``- Tensorflow 2.3
#: or PyTorch 1.6`` for a project of both, ``- tensorflow - 2.7.0`` as a conda listing
#: reads).
_LISTED = lazy_compile(
    r"^[ \t]*(?:[-*+]|\d+\.)[ \t]+[`*_]*tensorflow(?:[-_](?:gpu|cpu))?[`*_]*[ \t]*(?:[:-][ \t]*)?"
    r"(?:\([ \t]*)?(?:version[ \t]*|v(?=\d))?(?P<op>==|[<>~]=?)?[ \t]*"
    r"(?P<version>\d+(?:\.\d+)*(?P<any>\.[xX*])?)[ \t]*"
    r"(?P<on>\+|(?:or|and)[ \t]+(?:above|higher|later|newer|up)|이상|以上|及以上)?"
    r"[ \t]*\)?[`*_]*[ \t]*(?:(?:or|/)[ \t]+[A-Za-z][\w.-]*[ \t]+v?\d+(?:\.\d+)*\+?[ \t]*)?$",
    re.IGNORECASE)
#: A file's own install: ``!pip install`` in a notebook (a comment in the converted
#: source), the same comment in a script; what follows ``#`` is read as ``_INSTALLS``.
_COMMENTED_INSTALL = lazy_compile(r"^[ \t]*#(.*\binstall\b.*)$", re.MULTILINE)
#: Where a project says how to run it (``_RUN_NOTES_READ``: read up to this many characters).
_RUN_NOTES = lazy_compile(r"(?:readme(?:\.(?:md|rst|txt|markdown))?|dockerfile[\w.-]*|"
                          r"[\w.-]*\.dockerfile|(?:environment|requirements|conda)[\w.-]*\.ya?ml)$",
                          re.IGNORECASE)
_RUN_NOTES_READ = 200_000


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


class _Directory(NamedTuple):
    """What one directory's project files say."""

    specs: Tuple[str, ...]
    """The TensorFlow specifiers they declare."""
    pinned: Tuple[Version, ...]
    """The TensorFlow releases its README, Docker files or conda environment name exactly."""
    listed: Tuple[str, ...]
    """The TensorFlow specifiers their lists of requirements name (``_LISTED``)."""
    locked: Tuple[Version, ...]
    """The TensorFlow releases a lock file installs."""
    builds: bool
    """They build a distribution, or the directory holds one built or installed."""
    root: bool
    """The directory is the project's root (a ``.git``, ``pyproject.toml`` …)."""


@functools.lru_cache(maxsize=None)
def _read(directory: str) -> _Directory:
    """Each directory's files, listed and read once per run for both questions."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    specs: List[str] = []
    pinned: List[Version] = []
    listed: List[str] = []
    locked: List[Version] = []
    builds = any(name in ("setup.py", "PKG-INFO") or name.endswith((".dist-info", ".egg-info"))
                 for name in names)
    for name in names:
        path = os.path.join(directory, name)
        try:
            if name.startswith("requirements") and name.endswith(".txt"):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    specs.extend(_specs(handle))
            elif name == "pyproject.toml":
                with open(path, "rb") as handle:
                    data = toml().load(handle)  # its TOMLDecodeError is a ValueError
                project, tool = data.get("project", {}), data.get("tool")
                builds = builds or "project" in data or "build-system" in data or (
                    isinstance(tool, dict) and "poetry" in tool)
                dependencies = project.get("dependencies", []) if isinstance(
                    project, dict) else []
                specs.extend(_specs(d for d in dependencies if isinstance(d, str)))
                specs.extend(_poetry_specs(tool))
            elif name in _LOCK_FILES:
                with open(path, "rb") as handle:
                    locked.extend(_locked(toml().load(handle)))
            elif name == "Pipfile.lock":
                import json  # here: only a directory with a Pipfile.lock needs it

                with open(path, encoding="utf-8", errors="replace") as handle:
                    locked.extend(_pipfile_locked(json.load(handle)))
            elif name == "setup.cfg":
                metadata, requires = _setup_cfg(path)
                builds = builds or metadata
                specs.extend(_specs(requires.splitlines()))
            elif name == "setup.py":
                with open(path, encoding="utf-8", errors="replace") as handle:
                    tree = ast.parse(handle.read())
                specs.extend(_specs(node.value for node in ast.walk(tree)
                                    if isinstance(node, ast.Constant)
                                    and isinstance(node.value, str) and len(node.value) < 200))
            elif _RUN_NOTES.match(name) and os.path.isfile(path):
                text = _run_notes(path)
                pinned.extend(_pinned(text))
                listed.extend(_listed(text))
        except (OSError, ValueError, SyntaxError, RecursionError):
            # A project file the linter cannot read declares no version it can use, and
            # may build a distribution.
            builds = builds or name in ("pyproject.toml", "setup.cfg")
    for name in names:
        if name.lower() in _ENVIRONMENT_DIRECTORIES:
            pinned.extend(_environment_pins(os.path.join(directory, name)))
    return _Directory(tuple(specs), tuple(pinned), tuple(listed), tuple(locked), builds,
                      any(marker in names for marker in _ROOT_MARKERS))


#: Folders beside a project's files that hold how to run it: its Docker files and conda
#: environments (``envs/tf2.2-gpu-env.yml``, ``docker/Dockerfile``).
_ENVIRONMENT_DIRECTORIES = frozenset({"docker", "dockerfiles", "env", "envs", "environment",
                                      "environments", "conda", ".devcontainer"})
_ENVIRONMENT_FILE = lazy_compile(r"(?:dockerfile[\w.-]*|[\w.-]*\.dockerfile|[\w.-]*\.ya?ml)$",
                                 re.IGNORECASE)


def _environment_pins(folder: str) -> Iterator[Version]:
    """The releases the Docker files and conda environments of ``folder`` name exactly
    (``_pinned``): in such a folder every YAML file is an environment."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if _ENVIRONMENT_FILE.match(name) and os.path.isfile(path):
            try:
                yield from _pinned(_run_notes(path))
            except OSError:
                continue


def _run_notes(path: str) -> str:
    """The start of a file that says how to run the project (``_RUN_NOTES_READ``)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read(_RUN_NOTES_READ)


#: Lock files in TOML whose ``[[package]]`` tables give each installed package's ``name``
#: and ``version``.
_LOCK_FILES = ("poetry.lock", "uv.lock")


def _locked(data: dict) -> Iterator[Version]:
    """The TensorFlow releases a TOML lock file installs (one per platform or Python
    version it resolves for)."""
    packages = data.get("package")
    for package in packages if isinstance(packages, list) else ():
        name = package.get("name") if isinstance(package, dict) else None
        version = package.get("version") if isinstance(package, dict) else None
        match = _LOCKED_VERSION.match(version) if isinstance(version, str) else None
        if isinstance(name, str) and _NAME.match(name) and match:
            yield int(match.group(1)), int(match.group(2))


_LOCKED_VERSION = lazy_compile(r"(\d+)\.(\d+)")


def _pipfile_locked(data: object) -> Iterator[Version]:
    """The TensorFlow releases a ``Pipfile.lock`` installs: its ``default`` and ``develop``
    packages, each with its ``version`` (``"==2.4.1"``)."""
    for section in ("default", "develop"):
        packages = data.get(section) if isinstance(data, dict) else None
        for name, package in packages.items() if isinstance(packages, dict) else ():
            version = package.get("version") if isinstance(package, dict) else None
            match = (_LOCKED_VERSION.match(version.lstrip("=")) if isinstance(version, str)
                     else None)
            if _NAME.match(name) and match:
                yield int(match.group(1)), int(match.group(2))


def _setup_cfg(path: str) -> Tuple[bool, str]:
    """Whether ``setup.cfg`` describes a distribution, and its ``install_requires``; an
    unreadable file raises ValueError."""
    import configparser  # here: only a directory with a ``setup.cfg`` needs it

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
        return (parser.has_section("metadata"),
                parser.get("options", "install_requires", fallback=""))
    except configparser.Error as error:
        raise ValueError(str(error)) from None


def forget() -> None:
    """Read the project files again (they changed since: a test writes them)."""
    _read.cache_clear()
    declared.cache_clear()
    _in_repository.cache_clear()
    distributed.cache_clear()


@functools.lru_cache(maxsize=None)
def declared(directory: str) -> Optional[str]:
    """The TensorFlow specifier the nearest project files above ``directory`` declare, or
    None: the first directory (going up) whose files name TensorFlow decides, its requirement
    files before the releases its other files pin (``_pinned``); the walk stops at the
    project's root (a ``.git``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg``). A
    package's own root inside a repository (``src/pkg/setup.py`` that names no TensorFlow)
    does not stop it: the repository's requirements are the package's too."""
    found = _read(directory)
    if found.specs or found.locked:
        return ",".join(found.specs + ((_between(found.locked),) if found.locked else ()))
    if found.pinned:
        return _between(found.pinned)
    if found.listed:
        return ",".join(found.listed)
    parent = os.path.dirname(directory)
    if parent == directory or found.root and (_repository(directory)
                                              or not _in_repository(parent)):
        return None
    return declared(parent)


def _repository(directory: str) -> bool:
    """``directory`` is a repository's top: it holds its ``.git`` (or ``.hg``)."""
    return any(os.path.exists(os.path.join(directory, marker))
               for marker in _REPOSITORY_MARKERS)


@functools.lru_cache(maxsize=None)
def _in_repository(directory: str) -> bool:
    """``directory`` or one above it is a repository's top."""
    parent = os.path.dirname(directory)
    return _repository(directory) or parent != directory and _in_repository(parent)


@functools.lru_cache(maxsize=None)
def distributed(directory: str) -> bool:
    """The code in ``directory`` is part of a distribution others install and import: the
    nearest project files above it build one (a ``setup.py``; ``pyproject.toml`` with
    ``[project]``, ``[build-system]`` or ``[tool.poetry]``; ``setup.cfg`` with
    ``[metadata]``), or it was built or installed as one (``PKG-INFO``, ``*.dist-info``,
    ``*.egg-info`` beside it). The walk stops at the project's root, as ``declared``'s."""
    found = _read(directory)
    if found.builds:
        return True
    parent = os.path.dirname(directory)
    return False if parent == directory or found.root else distributed(parent)


def whole_project(directory: str) -> bool:
    """``directory`` holds its project whole: it is a project's top (``_project_top``), or
    no directory above it is one. Linting it sees every module that may import another."""
    directory = os.path.abspath(directory)
    return _project_top(directory) or not any(
        _project_top(above) for above in _above(os.path.dirname(directory)))


def _above(directory: str) -> Iterator[str]:
    """``directory`` and each directory above it."""
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def _project_top(directory: str) -> bool:
    """A project's root (a ``.git``, ``pyproject.toml`` …), or a folder holding the
    ``.gitignore`` that a repository's export keeps at its top."""
    return _read(directory).root or os.path.isfile(os.path.join(directory, ".gitignore"))


def is_distributed(path: str) -> bool:
    """``distributed`` for the directory of the file ``path``."""
    return distributed(os.path.dirname(os.path.abspath(path)))


def _pinned(text: str) -> Iterator[Version]:
    """The releases a README, Docker or conda file names exactly: an image's tag and a pin
    where they count (``_RUNS_IMAGE``; ``_INSTALLS``, ``_REQUIREMENT_LINE``), and a Docker
    build's version variable (``_VERSION_VARIABLE``)."""
    if "tensorflow" not in text.lower():
        return
    for line in text.splitlines():
        if ":" in line and _RUNS_IMAGE.search(line):
            yield from (_release(match.group("version")) for match in _IMAGE.finditer(line))
        if "=" in line:
            yield from _installed(line, _REQUIREMENT_LINE.match(line) is not None)
        if "VERSION" in line.upper():
            variable = _VERSION_VARIABLE.match(line)
            if variable is not None:
                yield _release(variable.group("version"))


def _listed(text: str) -> Iterator[str]:
    """The specifiers of the list items that name TensorFlow and its version (``_LISTED``):
    ``2.4.1`` the release itself, ``2.0+`` (``or above``) from it on, ``2.x`` (``2``) that
    major version."""
    if "tensorflow" not in text.lower():
        return
    for line in text.splitlines():
        match = _LISTED.match(line)
        if match is None:
            continue
        version, op = match.group("version"), match.group("op")
        if match.group("any"):
            version = version[:-2]
        if op:
            spec = f"{op}{version}"
        elif match.group("on"):
            spec = f">={version}"
        elif match.group("any") or "." not in version:
            spec = f">={version},<{int(version.split('.')[0]) + 1}"
        else:
            spec = f"=={version}"
        try:
            bounds(spec)
        except SpecifierError:
            continue
        yield spec


def _installed(line: str, requirement: bool = False) -> Iterator[Version]:
    """The releases pinned after the install command that ``line`` starts (``_INSTALLS``),
    or anywhere in it when it is a requirement of its own."""
    install = _INSTALLS.search(line)
    if install or requirement:
        yield from (_release(match.group("version"))
                    for match in _PIN.finditer(line, install.end() if install else 0))


def _release(version: str) -> Version:
    major, minor = version.split(".")
    return int(major), int(minor)


def _between(releases) -> str:
    """A specifier allowing each of ``releases`` and those between them."""
    low, high = min(releases), max(releases)
    return f">={low[0]}.{low[1]},<{high[0]}.{high[1] + 1}"


def installed_in(text: str) -> Optional[str]:
    """The TensorFlow releases a file installs for itself (``!pip install
    tensorflow==2.3.0`` in a notebook, the same as a comment in a script), as a specifier,
    or None."""
    if "install" not in text:
        return None
    releases = [release for comment in _COMMENTED_INSTALL.finditer(text)
                for release in _installed(comment.group(1))]
    return _between(releases) if releases else None


#: What pip reads after a requirement on its line: options (``--hash=sha256:…``) and the
#: backslash that continues the line.
_LINE_OPTIONS = lazy_compile(r"\s+--\S.*$|\s*\\\s*$")


#: A Poetry constraint: ``^2.4``, ``~2.1.0``, ``2.4.*``, a bare version, or PEP 440 clauses.
_POETRY = lazy_compile(r"^\s*(?P<op>\^|~(?!=))?\s*(?P<version>\d+(?:\.\d+)*)\s*$")


def _poetry_specs(tool: object) -> Iterator[str]:
    """The TensorFlow specifiers of ``[tool.poetry.dependencies]`` (``tensorflow =
    "~2.1.0"``, or a table with a ``version``), in PEP 440's words: a caret allows what
    keeps the first nonzero part, a tilde what keeps the minor release."""
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    dependencies = poetry.get("dependencies") if isinstance(poetry, dict) else None
    if not isinstance(dependencies, dict):
        return
    for name, value in dependencies.items():
        if not isinstance(name, str) or _NAME.match(name) is None:
            continue
        if isinstance(value, dict):
            value = value.get("version")
        if not isinstance(value, str):
            continue
        match = _POETRY.match(value)
        if match is None:
            yield from _specs([f"tensorflow {value}"])
            continue
        parts = [int(part) for part in match.group("version").split(".")]
        if match.group("op") is None:
            yield f"=={match.group('version')}"
            continue
        if match.group("op") == "^":
            first = next((i for i, part in enumerate(parts) if part), len(parts) - 1)
            upper = parts[:first] + [parts[first] + 1]
        else:
            upper = [parts[0] + 1] if len(parts) == 1 else [parts[0], parts[1] + 1]
        yield f">={match.group('version')},<{'.'.join(map(str, upper))}"


def _specs(lines) -> Iterator[str]:
    for line in lines:
        match = _NAME.match(_LINE_OPTIONS.sub("", line))
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
