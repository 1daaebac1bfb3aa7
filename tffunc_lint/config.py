"""Settings: rule selection, per-file ignores, excludes and extra traced decorators.

Read from ``[tool.tffunc-lint]`` in the nearest ``pyproject.toml``; CLI flags override.
Selection follows ruff: ``select`` replaces the default set, ``extend-select`` adds to it,
``ignore``/``extend-ignore`` remove from it; every entry is a code (``TFF101``), a code
prefix (``TFF1``, ``TFF``) or a rule name (``print-in-tf-function``).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from functools import lru_cache
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from .requirements import SpecifierError, bounds, toml
from .rules.catalog import CATALOG

SECTION = "tffunc-lint"
_LIST_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude",
              "extend-exclude", "extra-traced-decorators")
_BOOLEAN_KEYS = ("force-exclude", "respect-gitignore")
KNOWN_KEYS = frozenset(_LIST_KEYS + _BOOLEAN_KEYS + ("per-file-ignores", "cache-dir",
                                                     "tensorflow-version"))

#: The default ``exclude``: directories of tools, caches, builds and installed packages
#: (ruff's and flake8's usual suspects). Setting ``exclude`` replaces it; ``extend-exclude``
#: adds to it.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache", ".svn",
    ".tox", ".venv", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist",
    "node_modules", "site-packages", "venv", "*.egg-info",
)


class ConfigError(Exception):
    """A user-facing configuration problem; the CLI prints it and exits 2."""


def expand_selector(selector: str, origin: str = "") -> FrozenSet[str]:
    """Codes matched by a code, code prefix or rule name; ConfigError if none."""
    key = selector.strip()
    codes = frozenset(
        rule.code for rule in CATALOG
        if key and (key.lower() == rule.name or key.upper() == "ALL"
                    or rule.code.startswith(key.upper()))
    )
    if not codes:
        where = f"{origin}: " if origin else ""
        raise ConfigError(f"{where}unknown rule code or name {selector!r}")
    return codes


def _expand_all(selectors: Iterable[str], origin: str) -> FrozenSet[str]:
    codes: FrozenSet[str] = frozenset()
    for selector in selectors:
        codes |= expand_selector(selector, origin)
    return codes


def _selected(selectors: Iterable[str], origin: str) -> FrozenSet[str]:
    """Codes ``select``/``extend-select`` turn on: rules that are off by default only when a
    selector names them (code, name, or a prefix longer than ``TFF``; not ``TFF``/``ALL``)."""
    off = {rule.code for rule in CATALOG if not rule.default_enabled}
    codes: FrozenSet[str] = frozenset()
    for selector in selectors:
        key = selector.strip().upper()
        broad = key in ("ALL", "TFF")
        codes |= {code for code in expand_selector(selector, origin)
                  if not (broad and code in off)}
    return codes


@dataclass(frozen=True)
class Settings:
    """Resolved settings; picklable, so files can be linted in worker processes."""

    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    extend_ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    extra_traced_decorators: Tuple[str, ...] = ()
    unsafe_fixes: bool = False
    cache_dir: Optional[str] = None
    """Where results are cached (``cache-dir``; default: ``.tffunc_lint_cache`` in ``root``)."""
    tensorflow_version: Optional[str] = None
    """The TensorFlow versions the project supports (``tensorflow-version``, a specifier
    such as ``">=2.4"``); unset, what the project's requirements declare is read."""
    root: str = "."
    source: str = ""
    enabled: FrozenSet[str] = field(default=frozenset(), compare=False)

    def resolved(self) -> "Settings":
        """Validate every selector and compute the enabled codes."""
        origin = self.source or "command line"
        base = (_selected(self.select, origin) if self.select is not None
                else frozenset(r.code for r in CATALOG if r.default_enabled))
        enabled = (base | _selected(self.extend_select, origin)) - _expand_all(
            self.ignore + self.extend_ignore, origin)
        for _, selectors in self.per_file_ignores:
            _expand_all(selectors, origin)
        return replace(self, enabled=enabled)

    def enabled_for(self, path: str) -> FrozenSet[str]:
        """Enabled codes for one file, after ``per-file-ignores``."""
        enabled = self.enabled
        if self.per_file_ignores:
            relative = _relative(path, self.root)
            for pattern, selectors in self.per_file_ignores:
                if _glob_match(relative, pattern):
                    enabled = enabled - _expand_all(selectors, "per-file-ignores")
        return enabled

    def is_excluded(self, path: str, ancestors: bool = True) -> bool:
        """Whether ``exclude``/``extend-exclude`` match the path (relative to the
        configuration's directory) or its name; with ``ancestors``, also any directory it is
        in. A walk checks each entry as it meets it, so it passes ``ancestors=False``: a
        directory named on the command line is walked even when its own name is excluded."""
        patterns = self.exclude + self.extend_exclude
        if not patterns:
            return False
        relative = _relative(path, self.root)
        if ancestors:
            return any(_glob_match(relative, pattern) for pattern in patterns)
        name = relative.rsplit("/", 1)[-1]
        match = _matcher(patterns)
        return bool(match(os.path.normcase(relative)) or match(os.path.normcase(name)))


@lru_cache(maxsize=64)
def _matcher(patterns: Tuple[str, ...]) -> Callable[[str], Optional[re.Match]]:
    """``fnmatch.fnmatch`` against any of ``patterns`` (trailing ``/`` dropped) in one
    regular expression: a walk asks it of every file and directory."""
    return re.compile("|".join(
        f"(?:{fnmatch.translate(os.path.normcase(pattern.rstrip('/')))})"
        for pattern in patterns)).match


#: ``os.path.normpath`` of a configuration's absolute directory, asked for every walked path.
_normalised = lru_cache(maxsize=64)(os.path.normpath)


def _relative(path: str, root: str) -> str:
    absolute = os.path.abspath(path)
    base = _normalised(root) if os.path.isabs(root) else os.path.abspath(root)
    if os.sep == "/":  # the common case without building Path objects
        if absolute == base:
            return "."
        prefix = base if base.endswith("/") else base + "/"
        if absolute.startswith(prefix):
            return absolute[len(prefix):]
        return Path(path).as_posix()
    try:
        return Path(absolute).relative_to(base).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _glob_match(relative: str, pattern: str) -> bool:
    """Match a path relative to the config's directory, or its last component(s)."""
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(relative), pattern):
        return True
    parts = relative.split("/")
    return any(fnmatch.fnmatch("/".join(parts[:i]), pattern) for i in range(1, len(parts)))


def _has_section(pyproject: Path) -> bool:
    """Whether the file holds a ``tool.tffunc-lint`` table, however the TOML spells it.

    A file that is not valid TOML counts when it mentions ``[tool.tffunc-lint``, so that
    ``load_settings`` reports it instead of the configuration being silently skipped. A file
    whose text names no ``tffunc`` and has no escape that could spell it in a quoted key
    holds no such table: it is not parsed.
    """
    with open(pyproject, "rb") as handle:
        raw = handle.read()
    if b"tffunc" not in raw and b"\\u" not in raw and b"\\U" not in raw:
        return False
    tomllib = toml()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return f"[tool.{SECTION}" in raw.decode("utf-8", errors="replace")
    tool = data.get("tool")
    return isinstance(tool, dict) and SECTION in tool


def find_pyproject(start: Path, memo: Optional[Dict[str, Optional[Path]]] = None
                   ) -> Optional[Path]:
    """Nearest ``pyproject.toml`` at or above ``start`` with a ``[tool.tffunc-lint]`` table.

    ``memo`` (directory → answer) is filled with the answer for every directory looked at,
    so that a walk of many directories reads each ``pyproject.toml`` once."""
    start = start.resolve()
    looked_at: List[str] = []
    found: Optional[Path] = None
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        key = str(directory)
        if memo is not None and key in memo:
            found = memo[key]
            break
        looked_at.append(key)
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                if _has_section(candidate):
                    found = candidate
                    break
            except OSError as error:  # it may hold our table: never skip it silently
                raise ConfigError(f"{candidate}: cannot read: {error.strerror or error}"
                                  ) from None
    if memo is not None:
        memo.update(dict.fromkeys(looked_at, found))
    return found


def _string_list(value, key: str, origin: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{origin}: [tool.{SECTION}] key {key!r} must be a list of strings")
    return tuple(value)


def load_settings(pyproject: Optional[Path]) -> Settings:
    """Settings from a pyproject file (or defaults), unresolved."""
    if pyproject is None:
        return Settings(root=os.getcwd())
    origin = str(pyproject)
    tomllib = toml()
    try:
        with open(pyproject, "rb") as handle:
            data = tomllib.load(handle)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{origin}: invalid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{origin}: cannot read: {error.strerror}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{origin}: [tool] must be a table")
    table = tool.get(SECTION, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: [tool.{SECTION}] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{origin}: [tool.{SECTION}] unknown key {unknown[0]!r} "
                          f"(known keys: {', '.join(sorted(KNOWN_KEYS))})")
    values: Dict[str, object] = {k.replace("-", "_"): _string_list(table[k], k, origin)
                                 for k in _LIST_KEYS if k in table}
    for key in _BOOLEAN_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{origin}: [tool.{SECTION}] key {key!r} must be true or false")
            values[key.replace("-", "_")] = table[key]
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str) or not table["cache-dir"]:
            raise ConfigError(f"{origin}: [tool.{SECTION}] key 'cache-dir' must be a path")
        values["cache_dir"] = os.path.join(str(pyproject.parent), table["cache-dir"])
    if "tensorflow-version" in table:
        spec = table["tensorflow-version"]
        try:
            if not isinstance(spec, str):
                raise SpecifierError("must be a string")
            bounds(spec)
        except SpecifierError as error:
            raise ConfigError(f"{origin}: [tool.{SECTION}] key 'tensorflow-version': "
                              f"{error}") from None
        values["tensorflow_version"] = spec
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{origin}: [tool.{SECTION}] key 'per-file-ignores' must be a table "
                          "of glob = [codes]")
    values["per_file_ignores"] = tuple(
        (pattern, _string_list(codes, f"per-file-ignores.{pattern}", origin))
        for pattern, codes in per_file.items())
    return Settings(root=str(pyproject.parent), source=origin, **values)


def with_overrides(settings: Settings, **overrides) -> Settings:
    """Apply CLI flags: ``select``/``ignore``/``exclude`` replace, ``extend_*`` add to the
    file's lists, booleans (``force_exclude``, ``respect_gitignore``) replace."""
    changes: Dict[str, object] = {}
    for key, value in overrides.items():
        if value is None:
            continue
        if isinstance(value, bool):
            changes[key] = value
            continue
        value = tuple(value)
        if key in ("extend_select", "extend_ignore", "extend_exclude"):
            value = getattr(settings, key) + value
        changes[key] = value
    return replace(settings, **changes)


def split_list(values: Optional[List[str]]) -> Optional[List[str]]:
    """``--select TFF1,TFF3 --select TFF405`` → ``['TFF1', 'TFF3', 'TFF405']``."""
    if values is None:
        return None
    return [item for value in values for item in value.split(",") if item.strip()]


class SettingsResolver:
    """Settings per file: the nearest configuration above it, plus command-line overrides.

    ``fixed`` (from ``--config`` or ``--isolated``) replaces the search. Lookups are cached
    per directory and per configuration file.
    """

    def __init__(self, fixed: Optional[Settings], overrides: Dict[str, Optional[Sequence[str]]]):
        self._fixed = fixed
        self._overrides = overrides
        self._by_config: Dict[Optional[Path], Settings] = {}
        self._by_directory: Dict[str, Settings] = {}
        self._nearest: Dict[str, Optional[Path]] = {}  # directory → its pyproject.toml

    def _resolve(self, base: Settings) -> Settings:
        base.resolved()  # the file's own unknown codes are reported against the file
        return with_overrides(base, **self._overrides).resolved()

    def for_path(self, path: str) -> Settings:
        if self._fixed is not None:
            if None not in self._by_config:
                self._by_config[None] = self._resolve(self._fixed)
            return self._by_config[None]
        directory = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        settings = self._by_directory.get(directory)
        if settings is None:
            config = find_pyproject(Path(directory), self._nearest)
            settings = self._by_config.get(config)
            if settings is None:
                settings = self._by_config[config] = self._resolve(load_settings(config))
            self._by_directory[directory] = settings
        return settings
