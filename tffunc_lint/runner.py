"""Lint many files as one project: per-file work in parallel, one call graph across them.

1. Every file is linted on its own, in worker processes; each result carries the module's
   index and the functions found traced from inside the module.
2. The indexes are joined into one :class:`~tffunc_lint.analysis.graph_context.ProjectGraph`, seeded
   with those per-module results, and traced code is followed across imports.
3. Only files where step 2 learnt more (other traced functions, or what a predicate imported
   from another module says) are linted again, with that knowledge.

With a :class:`~tffunc_lint.cache.Cache`, steps 1 and 3 reuse the results of earlier runs
for files whose content, settings and (step 3) view from the project are unchanged.
"""

from __future__ import annotations

import gc
import os
import stat
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

from . import requirements
from .cache import Cache, file_key, fingerprint, paused_gc, source_digest
from .config import Settings
from .engine import lint_file, lint_source
from .finding import FileResult
from .files import module_name_for
from .analysis.graph_context import ModuleView, ProjectGraph
from .analysis.module_index import FunctionKey, ModuleIndex

#: At most this many changed files are compared with the last run's (``_after_few_changes``).
_FEW_CHANGED = 8

#: Below this many files, worker processes cost more than they save.
PARALLEL_THRESHOLD = 16

#: Most files a worker lints before it sends their results: it holds them until then (a
#: worker sent a sixteenth of the site-packages of a TensorFlow install at once, and grew to
#: 380 MB).
_CHUNK = 32

#: Told ``(files done, files in this pass, pass)`` as files finish (pass 0 lints every file,
#: later passes re-lint what the project taught them); set by a door with ``reporting_to``.
_progress: List[Callable[[int, int, int], None]] = []
_passes: List[int] = [0]


class reporting_to:
    """``with reporting_to(callback): lint_project(...)`` reports progress to ``callback``."""

    def __init__(self, callback: Callable[[int, int, int], None]):
        self._callback = callback

    def __enter__(self):
        _progress.append(self._callback)
        _passes[0] = 0

    def __exit__(self, *exc):
        _progress.remove(self._callback)


Job = Tuple[str, Settings, bool, Optional[ModuleView], Union[str, bytes, None],
            Optional[ModuleIndex]]
"""(path, settings, fix, view, content, index): ``content`` is :func:`source_digest` of the
bytes the cache key was computed from, or those bytes themselves when the file cannot be
read again (a named pipe), or None (no cache: read the file); ``index`` the file's index
from the first pass (None: build it)."""


class _Done(NamedTuple):
    """A job's result, as the worker sends it back. ``current``: the file's bytes were those
    of the job's digest (a result of other bytes must not be stored under the job's key).
    ``same_index``: the result's index is the job's (not sent back: the caller has it)."""

    result: FileResult
    current: bool
    same_index: bool


def _lint_job(job: Job) -> _Done:
    # Each worker reads its files: the caller keeps only their digests, and the jobs that
    # reach a worker carry no file's bytes (but a named pipe's).
    path, settings, fix, view, content, index = job
    source = _read(path)[0] if isinstance(content, str) else content
    if source is None:
        result = lint_file(path, settings, fix=fix, view=view, index=index)
    else:
        result = lint_source(path, source, settings, fix=fix, view=view, index=index)
    same = index is not None and result.index is index
    if same:
        result.index = None
    return _Done(result, isinstance(content, bytes) or (
        source is not None and source_digest(source) == content), same)


def _done(jobs: Sequence[Job], done: Sequence[_Done]) -> Tuple[List[FileResult], Set[str]]:
    """The results, each with its index back, and the paths whose result may be stored."""
    results, current = [], set()
    for job, (result, is_current, same_index) in zip(jobs, done):
        if same_index:
            result.index = job[5]
        if is_current:
            current.add(result.path)
        results.append(result)
    return results, current


def _read(path: str) -> Tuple[Optional[bytes], bool]:
    """The file's bytes (None: unreadable), and whether it can be read again (a regular
    file, not a named pipe)."""
    try:
        with open(path, "rb") as stream:
            return stream.read(), stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except OSError:
        return None, False


class _Workers:
    """Worker processes, started when a pass has enough files and kept for the next pass
    (the second pass then starts no processes of its own)."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = None

    def map(self, jobs: Sequence[Job]) -> Tuple[List[FileResult], Set[str]]:
        """The jobs' results, and the paths of those that may be stored under their key."""
        if self.workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
            return _done(jobs, _reported(map(_lint_job, jobs), len(jobs)))
        if self._pool is None:
            import multiprocessing  # here: a run of a few files starts no workers
            from concurrent.futures import ProcessPoolExecutor

            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            # Forked while this process pauses the cyclic collector (``paused_gc``): a worker
            # turns it on again, or the garbage cycles of every file it lints would stay.
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                             initializer=gc.enable)
        # The biggest files first, so that none of them is left for one worker at the end.
        order = sorted(range(len(jobs)), key=lambda number: -_size(jobs[number]))
        chunk = max(1, min(_CHUNK, len(jobs) // (self.workers * 8)))
        results: List[Optional[_Done]] = [None] * len(jobs)
        # The results arrive pickled: unpickling thousands of indexes with the cyclic
        # collector on would rescan all that came before each time (about 0.5 s of this
        # process's time on 1 250 files, taken from the workers' cores; 0.05 s without).
        with paused_gc():
            done = self._pool.map(_lint_job, [jobs[number] for number in order],
                                  chunksize=chunk)
            for number, result in zip(order, _reported(done, len(jobs))):
                results[number] = result
            _kept()
        return _done(jobs, results)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def _map(jobs: Sequence[Job], workers: _Workers) -> Tuple[List[FileResult], Set[str]]:
    return workers.map(jobs)


def _size(job: Job) -> int:
    if isinstance(job[4], bytes):
        return len(job[4])
    try:
        return os.path.getsize(job[0])
    except OSError:
        return 0


def _reported(results, total: int) -> List[_Done]:
    """The results, telling the progress callbacks as each arrives."""
    done: List[_Done] = []
    number = _passes[0]
    _passes[0] += 1
    for result in results:
        done.append(result)
        for callback in _progress:
            callback(len(done), total, number)
    return done


def _learnt(project: ModuleView, alone: Optional[ModuleView], index: ModuleIndex) -> bool:
    """The project knows more than the file alone: other traced functions, other one-time
    set-up or objects made while tracing, or predicates the file could not resolve (a
    reason's wording may differ)."""
    alone = alone or ModuleView({}, {})
    # The Keras classes, and the steps linted code calls itself, are read only to judge a
    # ``tf.function`` on a Keras graph method (TFF407); a decorator the project spells
    # further than the module does shows in the names.
    keras_methods = index.decorates_keras_graph_methods()
    flags = {(key, reason.once, reason.fresh) for key, reason in project.traced.items()
             if reason.once or reason.fresh}
    # Whether Keras runs the module's classes matters only to a module with Keras classes;
    # whether it is a whole program, to those and to traced code (``Timeline``: when its
    # functions may run).
    keras = bool(project.keras_classes) and project.runs_keras != alone.runs_keras
    program = (bool(project.keras_classes) or bool(project.traced)) and (
        project.whole_program != alone.whole_program)
    # Whether it is a program of its own code only, to a module that turns ``tf.function``
    # off (TFF406: nothing to switch).
    program = program or index.switches_eager_on and (
        project.self_contained != alone.self_contained)
    return (set(project.traced) != set(alone.traced) or project.predicates != alone.predicates
            or program
            or dict(project.names) != dict(alone.names) or keras
            or keras_methods and (project.direct_steps != alone.direct_steps
                                  or dict(project.keras_classes) != dict(alone.keras_classes))
            or project.imported_names != alone.imported_names
            or project.runs_eagerly != alone.runs_eagerly
            # the TensorFlow versions the module runs on (TFF301, TFF405)
            or index.asks_versions and project.runs_before != alone.runs_before
            or project.superseded != alone.superseded
            or index.names_layers_with_seed and project.keras_3 != alone.keras_3
            or project.eager_lambdas != alone.eager_lambdas
            or dict(project.callback_writes) != dict(alone.callback_writes)
            # code that never runs makes no call of a ``tf.function`` (TFF401, TFF403)
            or _dead_tf_functions(index, project) != _dead_tf_functions(index, alone)
            or flags != {(key, reason.once, reason.fresh)
                         for key, reason in alone.traced.items() if reason.once or reason.fresh}
            or _known_flags(project) != _known_flags(alone))


def _dead_tf_functions(index: ModuleIndex, view: ModuleView) -> List[int]:
    """The lines of the module's ``tf.function`` definitions (decorated, or handed to
    ``tf.function(...)``) that ``view`` knows never run: the calls written in them are not
    made. Dead code that only calls one may still count, as before the project knew it
    dead: asked of every module, this stays cheap."""
    if not view.never_run:
        return []
    return [entry.line for entry in (*index.decorated, *index.entries)
            if any(first <= entry.line <= last for first, last in view.never_run)]


def _known_flags(view: ModuleView) -> Dict[FunctionKey, tuple]:
    return {key: reason.flags for key, reason in view.traced.items() if reason.flags}


def _project_views(results: Sequence[FileResult], settings_for: Callable[[str], Settings],
                   fix: bool, contents: Dict[str, Union[str, bytes]], whole_project: bool
                   ) -> List[Job]:
    """Join the files' indexes into one graph; the jobs of the files it teaches more."""
    graph = ProjectGraph((r.index for r in results if r.index is not None),
                         requirements.is_distributed, whole_project=whole_project)
    # Only the roots seed the project trace: what they reach is followed again, with the
    # predicates of every module known.
    traced = graph.trace({r.path: {k: v for k, v in r.view.traced.items() if v.via is None}
                          for r in results if r.view and r.view.traced})
    again = []
    for result in results:
        if result.index is None:
            continue
        view = graph.view_of(result.index, traced[result.path])
        if _learnt(view, result.view, result.index):
            again.append((result.path, settings_for(result.path), fix, view,
                          contents.get(result.path), result.index))
    for result in results:  # what the graph read of the indexes, until asked for again
        if result.index is not None:
            result.index.release()
    return again


def lint_project(files: Sequence[str], settings_for: Callable[[str], Settings], *,
                 fix: bool = False, workers: int = 1,
                 cache: Optional[Cache] = None, findings_only: bool = False,
                 whole_project: bool = False) -> List[FileResult]:
    """Lint ``files`` together, so calls between them are followed. ``cache`` is not used
    with ``fix`` (fixed files must be linted as they are now). ``findings_only``: the caller
    reads only the results' findings (and a notebook's cells), so a project in which no file
    changed is answered from one cache entry. ``whole_project``: ``files`` are every module
    of their project (``ProjectGraph``'s ``whole_project``)."""
    pool = _Workers(workers)
    try:
        return _lint_project(files, settings_for, fix, pool,
                             cache if cache and not fix else Cache(None), findings_only,
                             whole_project)
    finally:
        pool.close()
        gc.unfreeze()


def _kept() -> None:
    """The results read from the cache live until the run ends: move them out of the cyclic
    collector's sight (``gc.freeze``), which would otherwise scan them again and again;
    ``lint_project`` hands them back to it when it returns."""
    gc.freeze()


def _project_key(files: Sequence[str], keys: Dict[str, str], whole_project: bool
                 ) -> Optional[str]:
    """What the project's views depend on: every file, in order, with its own key, and
    whether they are the whole project (None if some file could not be read)."""
    if len(keys) != len(files):
        return None
    import hashlib

    digest = hashlib.sha256(b"whole\0" if whole_project else b"part\0")
    for path in files:
        digest.update(f"{path}\0{keys[path]}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _load_summary(cache: Cache, files: Sequence[str], project_key: Optional[str]
                  ) -> Optional[tuple]:
    """What a run of the same files (``project_key``) stored: the keys of the results it
    re-linted with the project's view, and every file's findings and notebook cells."""
    if project_key is None:
        return None
    summary = cache.load(cache.directory, "summary", project_key)
    if not (isinstance(summary, tuple) and len(summary) == 2 and isinstance(summary[0], dict)
            and isinstance(summary[1], list)
            and [entry[0] for entry in summary[1]] == list(files)):
        return None
    return summary


def _load_project_results(cache: Cache, views: Dict[str, str]) -> Dict[str, FileResult]:
    redone: Dict[str, FileResult] = {}
    with paused_gc():
        for path, key in views.items():
            hit = cache.load(path, "project", key)
            if isinstance(hit, FileResult) and hit.path == path:
                redone[path] = hit
        _kept()
    return redone


def _lint_project(files: Sequence[str], settings_for: Callable[[str], Settings], fix: bool,
                  workers: _Workers, cache: Cache, findings_only: bool,
                  whole_project: bool) -> List[FileResult]:
    keys: Dict[str, str] = {}
    contexts: Dict[str, tuple] = {}
    contents: Dict[str, Union[str, bytes]] = {}
    cached: Dict[str, FileResult] = {}
    project_key, summary = None, None
    view_objects: Optional[Dict[str, ModuleView]] = None
    if cache:
        settings_keys: Dict[int, Tuple[Settings, str]] = {}
        for path in files:
            settings = settings_for(path)
            known = settings_keys.get(id(settings))
            if known is None:
                known = settings_keys[id(settings)] = (settings, fingerprint(settings))
            source, rereadable = _read(path)
            if source is not None:  # unreadable: linted (and reported) every time
                digest = source_digest(source)
                contents[path] = digest if rereadable else source
                # The versions the project declares count as settings (TFF405 reads them).
                # So does whether it is part of a distribution (``ProjectGraph.never_named``).
                context = contexts[path] = (module_name_for(path), known[1] + str(
                    requirements.for_file(path, settings.tensorflow_version))
                    + str(requirements.is_distributed(path)))
                keys[path] = file_key(path, context[0], digest, context[1])
        project_key = _project_key(files, keys, whole_project)
        summary = _load_summary(cache, files, project_key)
        if summary is not None and findings_only:
            return [FileResult(path, list(findings), cells=cells)
                    for path, findings, cells in summary[1]]
        if summary is None and findings_only and project_key is not None:
            quick = _after_few_changes(cache, files, keys, contexts, project_key,
                                       whole_project, settings_for, workers, contents)
            if quick is not None:
                return quick
        with paused_gc():  # once for every entry, not once per entry
            for path, key in keys.items():
                hit = cache.load(path, "alone", key)
                if isinstance(hit, FileResult) and hit.path == path:
                    cached[path] = hit
            _kept()
    linted = _linted_alone([path for path in files if path not in cached], settings_for, fix,
                           contents, keys, cache, workers)
    results = [cached[path] if path in cached else linted[path] for path in files]
    redone: Dict[str, FileResult] = {}
    # Every file as a run saw it before: the project's views are those of that run, and
    # their keys, stored by it, find the re-linted results without joining the call graph.
    views = summary[0] if summary is not None else None
    if views is not None:
        redone = _load_project_results(cache, views)
        if len(redone) != len(views):
            views, redone, summary = None, {}, None
    if views is None:
        with paused_gc():
            again = _project_views(results, settings_for, fix, contents, whole_project)
        view_objects = {job[0]: job[3] for job in again}
        # The project's view of the file is part of the key.
        views = {job[0]: keys[job[0]] + fingerprint(tuple(job[3])) for job in again
                 if job[0] in keys} if cache else {}
        redone = _with_views(again, views, cache, workers)
    if redone:
        results = [redone.get(r.path, r) for r in results]
    cells = {r.path: r.cells for r in results if r.cells is not None}
    if cells:  # reasons in other modules that point into a notebook: cell positions
        from .notebook import relocate

        for result in results:
            if result.cells is None:
                result.findings = [relocate(f, cells) for f in result.findings]
    if project_key is not None and summary is None:
        _store_summary(cache, files, whole_project, project_key, keys, contexts, views,
                       view_objects, [(r.path, r.findings, r.cells) for r in results])
    return results


def _linted_alone(paths: Sequence[str], settings_for: Callable[[str], Settings], fix: bool,
                  contents: Dict[str, Union[str, bytes]], keys: Dict[str, str], cache: Cache,
                  workers: "_Workers") -> Dict[str, FileResult]:
    """``paths`` linted on their own (the first pass), each result stored under its key."""
    done, current = _map([(path, settings_for(path), fix, None, contents.get(path), None)
                          for path in paths], workers)
    linted = {result.path: result for result in done}
    cache.store_all("alone", {path: (keys[path], result) for path, result in linted.items()
                              if path in current})
    return linted


def _with_views(again: Sequence[Job], views: Dict[str, str], cache: Cache,
                workers: "_Workers") -> Dict[str, FileResult]:
    """The results of the jobs that carry the project's view of their file: found in the
    cache under their view keys (``views``), or linted and stored there."""
    redone = _load_project_results(cache, {job[0]: views[job[0]] for job in again
                                           if job[0] in views})
    missing = [job for job in again if job[0] not in redone]
    if missing:
        relinted, current = _map(missing, workers)
        redone.update((result.path, result) for result in relinted)
        cache.store_all("project", {result.path: (views[result.path], result)
                                    for result in relinted
                                    if result.path in views and result.path in current})
    return redone


def _files_key(files: Sequence[str], whole_project: bool) -> str:
    """Which files a run lints (not their content): its last run is found under this."""
    import hashlib

    digest = hashlib.sha256(b"whole\0" if whole_project else b"part\0")
    for path in files:
        digest.update(f"{path}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _store_summary(cache: Cache, files: Sequence[str], whole_project: bool, project_key: str,
                   keys: Dict[str, str], contexts: Dict[str, tuple],
                   views: Optional[Dict[str, str]],
                   view_objects: Optional[Dict[str, ModuleView]], entries: list) -> None:
    """The summary of a run (see ``_load_summary``); with the views it re-linted files with
    (None: the run did not join the call graph), also the views themselves, and every
    file's key and what its key holds besides its content, as the last run of these files
    (see ``_after_few_changes``)."""
    cache.store(cache.directory, "summary", project_key, (views, entries))
    if view_objects is not None and views is not None and view_objects.keys() == views.keys():
        cache.store(cache.directory, "views", project_key, view_objects)
        cache.store(cache.directory, "last", _files_key(files, whole_project),
                    (project_key, keys, contexts))


def _after_few_changes(cache: Cache, files: Sequence[str], keys: Dict[str, str],
                       contexts: Dict[str, tuple], project_key: str, whole_project: bool,
                       settings_for: Callable[[str], Settings], workers: "_Workers",
                       contents: Dict[str, Union[str, bytes]]) -> Optional[List[FileResult]]:
    """The findings of a run after one of the same files in which few files changed, and
    only in what the call graph does not read (a comment, a constant; see
    ``ModuleIndex.same_to_the_graph``): the project's call graph is the last run's, so
    are its views, and only the changed files are linted (again with their view, if the
    last run gave them one). None where that does not hold: the caller joins the graph.

    An editor that saves a file, and a pre-commit run after a small change, take this
    path: it reads the last results of the changed files only, not every file's index."""
    last = cache.load(cache.directory, "last", _files_key(files, whole_project))
    if not (isinstance(last, tuple) and len(last) == 3 and isinstance(last[1], dict)
            and isinstance(last[2], dict) and last[1].keys() == keys.keys()):
        return None
    last_key, last_keys, last_contexts = last
    changed = [path for path in files if keys[path] != last_keys[path]]
    if not changed or len(changed) > _FEW_CHANGED or any(
            contexts[path] != last_contexts.get(path) for path in changed):
        return None
    summary = _load_summary(cache, files, last_key)
    views = cache.load(cache.directory, "views", last_key)
    if summary is None or not isinstance(views, dict) or views.keys() != summary[0].keys():
        return None
    before, now = {}, {}
    for path in changed:
        for found, key in ((before, last_keys[path]), (now, keys[path])):
            hit = cache.load(path, "alone", key)
            if isinstance(hit, FileResult) and hit.path == path:
                found[path] = hit
    if before.keys() != set(changed):
        return None
    now.update(_linted_alone([path for path in changed if path not in now], settings_for,
                             False, contents, keys, cache, workers))
    if not all(_same_to_the_graph(before[path], now[path]) for path in changed):
        return None
    view_keys = dict(summary[0])
    again = [(path, settings_for(path), False, views[path], contents.get(path), now[path].index)
             for path in changed if path in views]
    view_keys.update((job[0], keys[job[0]] + fingerprint(tuple(job[3]))) for job in again)
    redone = _with_views(again, {job[0]: view_keys[job[0]] for job in again}, cache, workers)
    entries = {path: (findings, cells) for path, findings, cells in summary[1]}
    cells = {path: entry[1] for path, entry in entries.items() if entry[1] is not None}
    for path in changed:
        result = redone.get(path, now[path])
        findings = result.findings
        if cells and result.cells is None:  # as ``_lint_project`` does
            from .notebook import relocate

            findings = [relocate(finding, cells) for finding in findings]
        entries[path] = (findings, result.cells)
    listed = [(path, *entries[path]) for path in files]
    _store_summary(cache, files, whole_project, project_key, keys, contexts, view_keys, views,
                   listed)
    return [FileResult(path, list(findings), cells=cells) for path, findings, cells in listed]


def _same_to_the_graph(before: FileResult, now: FileResult) -> bool:
    """A file's result on its own, of the last run and now, tell the call graph the same:
    its index, what it found traced, its notebook cells (where other modules' reasons
    point)."""
    return (before.index is not None and now.index is not None
            and before.view == now.view and before.cells == now.cells
            and before.index.same_to_the_graph(now.index))
