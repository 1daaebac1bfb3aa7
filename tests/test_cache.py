"""The result cache: a hit gives the findings a fresh run gives, and a change re-lints
exactly the files whose result it can change (the file itself, and the modules whose trace
it changes)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List

import pytest

import tffunc_lint.cache
import tffunc_lint.runner
from tffunc_lint.cache import Cache
from tffunc_lint.config import Settings
from tffunc_lint.doors.cli import main
from tffunc_lint.runner import lint_project

CALLER = (
    "import tensorflow as tf\n"
    "from pkg import helpers\n"
    "\n"
    "@tf.function\n"
    "def step(x):\n"
    "    return helpers.scale(x)\n"
)
HELPERS = (
    "def scale(x):\n"
    "    print(\"scaling\")\n"
    "    return x * 2\n"
)
OTHER = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function\n"
    "def f(x):\n"
    "    print(x)\n"
    "    return x\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "train.py").write_text(CALLER)
    (package / "helpers.py").write_text(HELPERS)
    (package / "other.py").write_text(OTHER)
    return tmp_path


@pytest.fixture
def linted(monkeypatch) -> List[str]:
    """The paths the engine lints (cache misses), in order."""
    seen: List[str] = []
    original = tffunc_lint.runner._lint_job

    def spy(job):
        seen.append(os.path.basename(job[0]) + (" (view)" if job[3] is not None else ""))
        return original(job)

    monkeypatch.setattr(tffunc_lint.runner, "_lint_job", spy)
    return seen


def _run(root: Path, cache: Cache, settings: Settings = None,
         findings_only: bool = False) -> Dict[str, list]:
    settings = settings or Settings(root=str(root)).resolved()
    files = sorted(str(p) for p in root.glob("pkg/*.py"))
    results = lint_project(files, lambda path: settings, cache=cache,
                           findings_only=findings_only)
    return {os.path.basename(r.path): [(f.line, f.code, f.message) for f in r.findings]
            for r in results}


def test_hit_gives_identical_findings_and_lints_nothing(project, linted):
    cache = Cache(str(project / ".tffunc_lint_cache"))
    cold = _run(project, cache)
    assert cold["helpers.py"] and cold["other.py"]  # traced from train.py; traced itself
    linted.clear()
    warm = _run(project, cache)
    assert warm == cold
    assert linted == []
    assert warm == _run(project, Cache(None))


def test_an_unchanged_project_is_not_joined_again(project, linted, monkeypatch):
    """With every file as the last run saw it, the re-linted results are found by the keys
    that run stored: no call graph is built; a change builds it again."""
    cache = Cache(str(project / ".tffunc_lint_cache"))
    cold = _run(project, cache)
    built = []
    original = tffunc_lint.runner.ProjectGraph

    def spy(indexes, *args, **kwargs):
        built.append(1)
        return original(indexes, *args, **kwargs)

    monkeypatch.setattr(tffunc_lint.runner, "ProjectGraph", spy)
    linted.clear()
    assert _run(project, cache) == cold
    assert built == [] and linted == []
    (project / "pkg" / "other.py").write_text(OTHER + "\n")
    assert _run(project, cache) == cold
    assert built == [1] and linted == ["other.py"]


def test_findings_of_an_unchanged_project_come_from_one_entry(project, linted, monkeypatch):
    cache = Cache(str(project / ".tffunc_lint_cache"))
    cold = _run(project, cache)
    loaded = []
    original = Cache.load

    def spy(self, path, kind, key):
        loaded.append(kind)
        return original(self, path, kind, key)

    monkeypatch.setattr(Cache, "load", spy)
    linted.clear()
    assert _run(project, cache, findings_only=True) == cold
    assert loaded == ["summary"] and linted == []
    (project / "pkg" / "helpers.py").write_text("import os\n\n" + HELPERS)
    edited = _run(project, cache, findings_only=True)
    assert edited == _run(project, Cache(None)) != cold
    loaded.clear()
    assert _run(project, cache, findings_only=True) == edited
    assert loaded == ["summary"]


@pytest.fixture
def graphs(monkeypatch) -> List[int]:
    """One entry per project call graph built."""
    built: List[int] = []
    original = tffunc_lint.runner.ProjectGraph

    def spy(indexes, *args, **kwargs):
        built.append(1)
        return original(indexes, *args, **kwargs)

    monkeypatch.setattr(tffunc_lint.runner, "ProjectGraph", spy)
    return built


def test_an_edit_the_graph_does_not_read_relints_that_file_alone(project, linted, graphs):
    """A comment, or a changed string, in a traced helper: the graph of the last run holds,
    so the helper is linted again, with the view that run gave it, and nothing else is read
    or built. What it finds is what a run without the cache finds."""
    cache = Cache(str(project / ".tffunc_lint_cache"))
    _run(project, cache, findings_only=True)
    helpers = project / "pkg" / "helpers.py"
    for text in (HELPERS + "# a comment\n", HELPERS.replace("scaling", "scaling up")):
        helpers.write_text(text)
        graphs.clear()
        linted.clear()
        findings = _run(project, cache, findings_only=True)
        assert graphs == [] and linted == ["helpers.py", "helpers.py (view)"]
        assert findings == _run(project, Cache(None))
    graphs.clear()
    linted.clear()
    assert _run(project, cache, findings_only=True) == findings  # and that run was stored
    assert graphs == [] and linted == []


def test_an_edit_the_call_graph_reads_joins_it_again(project, linted, graphs):
    """A line moved, or a call gone: the last run's graph no longer holds."""
    cache = Cache(str(project / ".tffunc_lint_cache"))
    _run(project, cache, findings_only=True)
    graphs.clear()
    (project / "pkg" / "helpers.py").write_text("\n" + HELPERS)
    findings = _run(project, cache, findings_only=True)
    assert graphs == [1] and findings == _run(project, Cache(None))
    (project / "pkg" / "train.py").write_text(CALLER.replace("helpers.scale(x)", "x"))
    graphs.clear()
    findings = _run(project, cache, findings_only=True)
    assert graphs == [1] and findings["helpers.py"] == []
    assert findings == _run(project, Cache(None))


def test_editing_a_callee_relints_it_and_only_the_modules_whose_trace_changed(project, linted):
    cache = Cache(str(project / ".tffunc_lint_cache"))
    _run(project, cache)
    # The helper moves two lines down: train.py's trace of it does not change (train.py is
    # not re-linted), helpers.py is linted alone and again with the project's view.
    (project / "pkg" / "helpers.py").write_text("import os\n\n" + HELPERS)
    linted.clear()
    findings = _run(project, cache)
    assert linted == ["helpers.py", "helpers.py (view)"]
    assert [line for line, *_ in findings["helpers.py"]] == [4]
    assert findings == _run(project, Cache(None))

    # train.py now calls it through a function in train.py: helpers.py's view changes
    # (the reason names the new caller), train.py is linted because it changed.
    (project / "pkg" / "train.py").write_text(CALLER.replace(
        "    return helpers.scale(x)\n",
        "    return inner(x)\n\n\ndef inner(x):\n    return helpers.scale(x)\n"))
    linted.clear()
    findings = _run(project, cache)
    assert sorted(linted) == ["helpers.py (view)", "train.py"]
    assert findings == _run(project, Cache(None))
    assert "inner" in str(_traced_reasons(project, cache)["helpers.py"])


def _traced_reasons(root: Path, cache: Cache) -> Dict[str, list]:
    settings = Settings(root=str(root)).resolved()
    files = sorted(str(p) for p in root.glob("pkg/*.py"))
    results = lint_project(files, lambda path: settings, cache=cache)
    return {os.path.basename(r.path): [f.text for f in r.findings] for r in results}


def test_a_callee_that_stops_being_traced_is_relinted(project, linted):
    cache = Cache(str(project / ".tffunc_lint_cache"))
    assert _run(project, cache)["helpers.py"]
    (project / "pkg" / "train.py").write_text(CALLER.replace("helpers.scale(x)", "x"))
    linted.clear()
    findings = _run(project, cache)
    assert findings["helpers.py"] == []
    assert findings == _run(project, Cache(None))


def test_corrupt_entries_are_ignored_and_replaced(project, linted):
    directory = project / ".tffunc_lint_cache"
    cache = Cache(str(directory))
    cold = _run(project, cache)
    entries = [p for p in directory.rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert entries
    for number, entry in enumerate(entries):
        entry.write_bytes(b"not a pickle" if number % 2 else entry.read_bytes()[:20])
    linted.clear()
    assert _run(project, cache) == cold
    assert "train.py" in linted
    linted.clear()
    assert _run(project, cache) == cold
    assert linted == []


def test_settings_change_invalidates(project, linted):
    cache = Cache(str(project / ".tffunc_lint_cache"))
    _run(project, cache)
    linted.clear()
    only = Settings(root=str(project), select=("TFF301",)).resolved()
    assert all(not found for found in _run(project, cache, only).values())
    assert {"__init__.py", "helpers.py", "other.py", "train.py"} <= set(linted)


def test_another_python_version_does_not_read_the_entries(project, linted, monkeypatch):
    # a cell or module only a newer Python parses: its findings depend on the version
    cache = Cache(str(project / ".tffunc_lint_cache"))
    _run(project, cache)
    linted.clear()
    major, minor = sys.version_info[:2]
    monkeypatch.setattr(sys, "version_info", (major, minor + 1, 0, "final", 0))
    _run(project, Cache(str(project / ".tffunc_lint_cache")))
    assert {"__init__.py", "helpers.py", "other.py", "train.py"} <= set(linted)


def test_cli_writes_a_gitignored_cache_and_no_cache_skips_it(project, monkeypatch, capsys,
                                                             linted):
    monkeypatch.chdir(project)
    assert main(["--exit-zero", "--no-cache", "pkg"]) == 0
    assert not (project / ".tffunc_lint_cache").exists()
    first = capsys.readouterr().out
    assert main(["--exit-zero", "pkg"]) == 0
    assert (project / ".tffunc_lint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert capsys.readouterr().out == first
    linted.clear()
    assert main(["--exit-zero", "pkg"]) == 0
    assert capsys.readouterr().out == first
    assert linted == []


def test_cache_dir_setting(project, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.tffunc-lint]\ncache-dir = "build/lint"\n')
    monkeypatch.chdir(project)
    assert main(["--exit-zero", "pkg"]) == 0
    assert (project / "build" / "lint" / ".gitignore").is_file()
    assert not (project / ".tffunc_lint_cache").exists()


def test_fix_never_serves_cached_results(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    fixable = project / "pkg" / "fixable.py"
    fixable.write_text("import tensorflow as tf\n\n"
                       "@tf.function(experimental_relax_shapes=True)\n"
                       "def f(x):\n    return x\n")
    main(["--exit-zero", "pkg"])
    before = capsys.readouterr().out
    assert "fixable.py" in before
    main(["--exit-zero", "--fix", "pkg"])
    capsys.readouterr()
    assert "reduce_retracing" in fixable.read_text()
    main(["--exit-zero", "pkg"])
    assert "fixable.py" not in capsys.readouterr().out


def _entries(directory: Path) -> List[str]:
    return sorted(p.name.rpartition(".")[2] if not p.name.startswith("pack.") else p.name
                  for p in directory.rglob("*") if p.is_file() and p.name != ".gitignore")


def test_many_entries_go_into_one_pack_that_the_next_runs_read(project, linted, monkeypatch):
    """A run that writes many entries of a kind writes one file (creating a file per linted
    file costs more than linting it on some disks); a later run finds them there, and one
    that changes few files writes those entries on their own and still reads the pack."""
    monkeypatch.setattr(tffunc_lint.cache, "PACK_FROM", 2)
    directory = project / ".tffunc_lint_cache"
    cold = _run(project, Cache(str(directory)))
    # 1 file re-linted; the run's views, and its file keys as the last run of these files
    assert _entries(directory) == ["last", "pack.alone", "project", "summary", "views"]
    linted.clear()
    assert _run(project, Cache(str(directory))) == cold and linted == []
    (project / "pkg" / "other.py").write_text(OTHER + "\n# edited\n")
    edited = _run(project, Cache(str(directory)))
    assert linted == ["other.py"] and edited == cold
    assert _entries(directory) == ["alone", "last", "pack.alone", "project", "summary", "views"]
    linted.clear()
    assert _run(project, Cache(str(directory))) == cold and linted == []


def test_a_corrupt_pack_is_ignored_and_replaced(project, linted, monkeypatch):
    monkeypatch.setattr(tffunc_lint.cache, "PACK_FROM", 2)
    directory = project / ".tffunc_lint_cache"
    cold = _run(project, Cache(str(directory)))
    (pack,) = directory.rglob("pack.alone")
    pack.write_bytes(pack.read_bytes()[:50])
    for summary in directory.rglob("*.summary"):
        summary.unlink()
    linted.clear()
    assert _run(project, Cache(str(directory))) == cold
    assert sorted(linted) == ["__init__.py", "helpers.py", "other.py", "train.py"]
    linted.clear()
    assert _run(project, Cache(str(directory))) == cold and linted == []


def test_a_file_edited_while_linted_is_not_stored_under_its_old_key(project, monkeypatch):
    """The key is made from the bytes read first; a worker that reads other bytes lints
    them, and their result must not answer for the first bytes later."""
    other = project / "pkg" / "other.py"
    edited = OTHER.replace("    print(x)\n", "")
    original = tffunc_lint.runner._lint_job

    def edit_first(job):
        if job[0] == str(other) and other.read_text() == OTHER:
            other.write_text(edited)
        return original(job)

    monkeypatch.setattr(tffunc_lint.runner, "_lint_job", edit_first)
    cache = Cache(str(project / ".tffunc_lint_cache"))
    assert _run(project, cache)["other.py"] == []  # the bytes linted: no print left
    monkeypatch.undo()
    other.write_text(OTHER)  # back to the bytes the key was made from
    assert _run(project, cache)["other.py"] == [(5, "TFF101", _run(
        project, Cache(None))["other.py"][0][2])]


def test_the_second_pass_in_workers_keeps_the_first_pass_index(project, monkeypatch):
    """A re-linted file's index is not sent back from the worker (a second copy of every
    such index in this process): the result gets the first pass's index again."""
    monkeypatch.setattr(tffunc_lint.runner, "PARALLEL_THRESHOLD", 1)
    passes = []
    original = tffunc_lint.runner._done

    def received(jobs, done):
        passes.append((jobs, [(item.result.index, item.same_index) for item in done]))
        return original(jobs, done)

    monkeypatch.setattr(tffunc_lint.runner, "_done", received)
    settings = Settings(root=str(project)).resolved()
    files = sorted(str(p) for p in project.glob("pkg/*.py"))
    results = lint_project(files, lambda path: settings, workers=2)
    (_, first), (again, relinted) = passes
    assert [os.path.basename(job[0]) for job in again] == ["helpers.py"]
    assert first[files.index(again[0][0])][0] is not None
    assert relinted == [(None, True)]  # as it came from the worker
    assert results[files.index(again[0][0])].index is again[0][5] is not None
    assert [r.findings for r in results] == [r.findings for r in lint_project(
        files, lambda path: settings)]
