"""The traced program's side: arm the recorder before TensorFlow is imported, write the
traces when the program exits.

``tffunc-lint trace -- python train.py`` puts ``_site/`` on ``PYTHONPATH``; its
``sitecustomize`` calls :func:`arm`, which adds an import hook: when TensorFlow imports its
tracing module, the recorder wraps it (TensorFlow is not imported any earlier than the
program imports it). At exit every process that traced writes ``<pid>.json`` to the
directory named by ``TFFUNC_LINT_TRACE_DIR``, which the CLI reads back.

``python -m tffunc_lint.trace.bootstrap script.py ARGS`` runs a script the same way and
prints the report on stderr at exit.
"""

from __future__ import annotations

import atexit
import importlib.abc
import json
import os
import sys
from typing import Any, Optional

from .recorder import RECORDER, TRACING_MODULE

ENV_DIR = "TFFUNC_LINT_TRACE_DIR"


class _PatchingLoader(importlib.abc.Loader):
    """Delegates to TensorFlow's loader, then wraps the module's tracing function."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        try:
            RECORDER.patch(module)
        except Exception:  # noqa: BLE001 - never break the program
            RECORDER.errors += 1

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ...
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != TRACING_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                if self in sys.meta_path:
                    sys.meta_path.remove(self)
                return spec
        return None


def arm() -> None:
    """Record traces from the moment TensorFlow loads (now, if it already has)."""
    module = sys.modules.get(TRACING_MODULE)
    if module is not None:
        RECORDER.patch(module)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def dump(directory: str) -> Optional[str]:
    """Write this process's traces (nothing if it traced nothing); the file's path."""
    with RECORDER.lock:
        if not RECORDER.events:
            return None
        data = {"pid": os.getpid(), "argv": sys.argv, "cwd": os.getcwd(),
                "events": [e.to_dict() for e in RECORDER.events],
                "functions": {key: dict(info.to_dict(),
                                        events=[e.to_dict() for e in info.events])
                              for key, info in RECORDER.functions.items()}}
    path = os.path.join(directory, f"{os.getpid()}.json")
    with open(path + ".part", "w", encoding="utf-8") as stream:
        json.dump(data, stream)
    os.replace(path + ".part", path)
    return path


def _dump_at_exit() -> None:
    directory = os.environ.get(ENV_DIR)
    if directory and os.path.isdir(directory):
        try:
            dump(directory)
        except Exception as error:  # noqa: BLE001
            print(f"tffunc-lint trace: could not write the traces: {error}", file=sys.stderr)


def arm_from_environment() -> None:
    """What ``sitecustomize`` runs in a traced process."""
    if os.environ.get(ENV_DIR):
        arm()
        atexit.register(_dump_at_exit)


def _print_report_at_exit(output_format: str) -> None:
    from . import report

    data = report.build(list(RECORDER.events), dict(RECORDER.functions))
    sys.stderr.write(report.render(data, output_format))


def main(argv: Optional[list] = None) -> None:
    """``python -m tffunc_lint.trace.bootstrap script.py ARGS``."""
    import runpy

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.exit("usage: python -m tffunc_lint.trace.bootstrap SCRIPT [ARGS...]")
    arm()
    if not os.environ.get(ENV_DIR):
        atexit.register(_print_report_at_exit, "text")
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
