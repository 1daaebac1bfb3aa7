"""Results of earlier runs, so that a run lints only what changed (like ruff's cache).

The cache lives in ``.tffunc_lint_cache/`` at the project root (or the ``cache-dir``
setting) and holds, per linted file, two entries:

* the file linted on its own, keyed on the file's content, its path and module name, the
  settings that apply to it and the versions of tffunc-lint and Python (what parses
  depends on it): its findings and its index (for
  joining the project's call graph);
* the file linted again with what the project's call graph found about it (the "view":
  traced functions with their reasons, predicates, names resolved through other modules),
  keyed on the same plus the view. A change in one module re-lints another only if it
  changes that module's view.

One more entry holds, for the last run's set of files (keyed on every file's own key, in
order), the keys of those second entries and every file's findings: a run in which no file
changed finds its results without joining the project's call graph again, and a run that
reports only findings reads nothing else. Next to it, the views themselves, and, for the
set of files (keyed on their paths alone), the key of the last run and each file's key: a
run in which a few files changed only in what the call graph does not read (a comment, a
string) takes the last run's views, and lints just those files (``runner``).

Entries are written to a temporary file and renamed into place, so concurrent runs never
read half an entry; an entry that cannot be read, or whose key does not match, is ignored
and replaced. A run that writes many entries of a kind at once (a first run, a branch
switch) writes them as one pack file of that kind, with the pack's earlier entries of the
files it did not lint: creating a file per linted file costs more than linting it on some
disks. The directory holds a ``.gitignore`` of ``*``.
"""

from __future__ import annotations

import contextlib
import gc
import functools
import os
import sys
from typing import Any, Dict, Optional, Tuple

from . import __version__

DIRECTORY = ".tffunc_lint_cache"
_FORMAT = 3  # 2: FileResult moved to tffunc_lint.finding; 3: packs hold values pickled
#: From this many entries of one kind written by one run, they go into the kind's pack.
PACK_FROM = 32


def fingerprint(value: Any) -> str:
    """A stable digest of settings or a view: sets are sorted, so it does not depend on
    hash randomisation."""
    import hashlib  # here, as pickle below: a run without the cache does not load them

    return hashlib.sha256(_canonical(value).encode("utf-8", "surrogatepass")).hexdigest()


def _canonical(value: Any) -> str:
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    if hasattr(value, "__dataclass_fields__"):
        fields = {name: getattr(value, name) for name in value.__dataclass_fields__}
        return f"{type(value).__name__}{_canonical(fields)}"
    return repr(value)


@contextlib.contextmanager
def paused_gc():
    """Pause the cyclic garbage collector while many acyclic objects are made (unpickled
    indexes, the project graph): it would rescan them all, again and again."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@functools.lru_cache(maxsize=None)
def _code_stamp() -> str:
    """A digest of the linter's own modules (names, sizes, modification times): results of
    one build of the analysis are never served by another, also for a checkout or an
    editable install whose version number did not change."""
    package = os.path.dirname(os.path.abspath(__file__))
    entries = []
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                entries.append((os.path.relpath(os.path.join(folder, name), package),
                                stat.st_size, stat.st_mtime_ns))
    return fingerprint(sorted(entries))[:12]


class Cache:
    """Per-file results under ``directory``; a no-op when ``directory`` is None."""

    def __init__(self, directory: Optional[str]):
        self.directory = directory
        # The Python version too: what parses (and so what is found) depends on it.
        python = "py%d%d" % sys.version_info[:2]
        self._folder = (os.path.join(directory,
                                     f"v{__version__}-{_FORMAT}-{python}-{_code_stamp()}")
                        if directory else None)
        self._ready = False
        self._packs: Dict[str, Dict[str, Tuple[str, bytes]]] = {}

    def __bool__(self) -> bool:
        return self.directory is not None

    def _path(self, path: str, kind: str) -> str:
        import hashlib

        name = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogatepass"))
        return os.path.join(self._folder, f"{name.hexdigest()[:32]}.{kind}")

    def load(self, path: str, kind: str, key: str) -> Any:
        """The value stored for ``path`` under ``key``, or None (missing, stale, corrupt):
        the file's own entry, else the kind's pack."""
        if self._folder is None:
            return None
        location = os.path.abspath(path)
        stored = self._read(self._path(path, kind))
        if not (isinstance(stored, tuple) and len(stored) == 3 and stored[0] == key
                and stored[1] == location):
            packed = self._pack(kind).get(location)
            return _loads(packed[1]) if packed is not None and packed[0] == key else None
        return stored[2]

    def store(self, path: str, kind: str, key: str, value: Any) -> None:
        """Write atomically; a cache that cannot be written is silently skipped."""
        if self._folder is not None:
            self._write(self._path(path, kind), (key, os.path.abspath(path), value))

    def store_all(self, kind: str, entries: Dict[str, Tuple[str, Any]]) -> None:
        """Store ``path → (key, value)`` for many files: each as its own entry, or, from
        ``PACK_FROM`` of them, in the kind's pack together with the pack's other files."""
        if self._folder is None or not entries:
            return
        if len(entries) < PACK_FROM:
            for path, (key, value) in entries.items():
                self.store(path, kind, key, value)
            return
        import pickle

        pack = dict(self._pack(kind))
        pack.update((os.path.abspath(path), (key, pickle.dumps(value, pickle.HIGHEST_PROTOCOL)))
                    for path, (key, value) in entries.items())
        self._packs[kind] = pack
        self._write(os.path.join(self._folder, f"pack.{kind}"), pack, records=True)

    def _pack(self, kind: str) -> Dict[str, Tuple[str, bytes]]:
        """The kind's pack: ``(path, key, value)`` records, one pickle each (written one at a
        time, so that pickling them all at once does not hold a memo of every object), each
        value pickled on its own: a run that reads a few entries of a pack unpickles only
        those (a run after a change to one file reads the last results of that file)."""
        pack = self._packs.get(kind)
        if pack is None:
            records = self._read(os.path.join(self._folder, f"pack.{kind}"), records=True)
            pack = self._packs[kind] = {path: (key, value)
                                        for path, key, value in records or ()}
        return pack

    @staticmethod
    def _read(location: str, records: bool = False) -> Any:
        """What ``location`` holds, or None if it cannot be read; ``records``: the list of
        ``(path, key, value)`` records of a pack (None if any is bad)."""
        import pickle

        try:
            with open(location, "rb") as stream, paused_gc():
                if not records:
                    return pickle.load(stream)
                found = []
                while True:  # one unpickler each: the records share no memo
                    try:
                        path, key, value = pickle.load(stream)
                    except EOFError:
                        return found
                    found.append((path, key, value))
        except Exception:  # noqa: BLE001 - a bad entry is a miss, never an error
            return None

    def _write(self, location: str, value: Any, records: bool = False) -> None:
        """``value`` pickled into ``location``; ``records``: ``value`` is a pack, written as
        one ``(path, key, value)`` pickle per entry."""
        import pickle
        import tempfile  # here: a run that only reads the cache does not need it

        try:
            self._prepare()
            handle, temporary = tempfile.mkstemp(dir=self._folder, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as stream:
                    for record in ((path, *entry) for path, entry in value.items()) \
                            if records else [value]:
                        pickle.dump(record, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, location)
            except BaseException:
                if os.path.exists(temporary):
                    os.unlink(temporary)
                raise
        except (OSError, pickle.PicklingError, RecursionError):
            pass

    def _prepare(self) -> None:
        if self._ready:
            return
        import tempfile

        os.makedirs(self._folder, exist_ok=True)
        ignore = os.path.join(self.directory, ".gitignore")
        if not os.path.exists(ignore):
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            with os.fdopen(handle, "w") as stream:
                stream.write("# Automatically created by tffunc-lint.\n*\n")
            os.replace(temporary, ignore)
        self._ready = True


def _loads(value: bytes) -> Any:
    """A value of a pack, or None if it cannot be read."""
    import pickle

    try:
        with paused_gc():
            return pickle.loads(value)
    except Exception:  # noqa: BLE001 - a bad entry is a miss, never an error
        return None


def source_digest(source: bytes) -> str:
    """The digest of a file's bytes that its keys are made from."""
    import hashlib

    return hashlib.sha256(source).hexdigest()


def file_key(path: str, module: tuple, digest: str, settings_fingerprint: str) -> str:
    """What a file's own result depends on: its bytes (``digest``: :func:`source_digest`),
    its path and module name, the settings and the version (in the folder name)."""
    import hashlib

    key = hashlib.sha256(digest.encode("ascii"))
    key.update(repr((os.path.abspath(path), module, settings_fingerprint)).encode(
        "utf-8", "surrogatepass"))
    return key.hexdigest()
