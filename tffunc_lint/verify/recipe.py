"""What a verification recipe may use: observations, fixtures and measuring helpers.

A recipe is a module ``tffunc_lint/verify/recipes/<code>.py`` that runs in a worker process
with TensorFlow imported. It defines:

- ``CLAIM``: one line, the documented behaviour it checks (a string literal, so the runner
  can show it even when the worker dies);
- ``bad(fixture) -> Observation``: run the rule's ``bad.py``; ``holds`` is True when the
  pitfall shows (the print ran once, the value stayed frozen, the error was raised);
- ``good(fixture) -> Observation``: run ``good.py``; ``holds`` is True when the documented
  fix behaves (printed every call, value follows, no error);
- optionally ``speed(bad_fixture, good_fixture) -> Timing`` and ``SPEEDUP_AT_LEAST``, a
  literal bound on ``bad seconds / good seconds`` that must hold for the claim to pass.

Each of ``bad``, ``good`` and ``speed`` gets freshly loaded fixtures, so module state (a
global list, a counter) starts clean every time.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from typing import Callable, Iterator, List


@dataclass(frozen=True)
class Observation:
    """One fixture's outcome: whether the expected behaviour held, and what was seen."""

    holds: bool
    detail: str


def observe(holds: bool, detail: str) -> Observation:
    return Observation(bool(holds), detail)


@dataclass(frozen=True)
class Timing:
    """Median seconds of the pitfall and of the fix, measured side by side."""

    bad_seconds: float
    good_seconds: float

    @property
    def speedup(self) -> float:
        return self.bad_seconds / self.good_seconds if self.good_seconds > 0 else float("inf")


class Fixture:
    """A fixture program loaded as a fresh module (its ``__main__`` block does not run)."""

    def __init__(self, path: str):
        self.path = path
        self.module = load_module(path)

    def __getattr__(self, name: str):
        return getattr(self.module, name)


_loaded = 0


def load_module(path: str) -> types.ModuleType:
    """Execute ``path`` as a new module with a unique name, registered in ``sys.modules``."""
    global _loaded
    _loaded += 1
    name = f"_tffunc_lint_fixture_{_loaded}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Captured:
    """Text written to stdout and stderr (Python and native code alike) inside ``capture``."""

    text = ""

    def count(self, needle: str) -> int:
        return self.text.count(needle)


@contextlib.contextmanager
def capture() -> Iterator[Captured]:
    """Redirect file descriptors 1 and 2, so native writers (``tf.print``) are seen too."""
    captured = Captured()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            captured.text = sink.read().decode("utf-8", "replace")


def raised(function: Callable[[], object]) -> "BaseException | None":
    """The exception ``function()`` raises, or None."""
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the recipe inspects whatever was raised
        return error
    return None


def median_seconds(function: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``function()`` over ``repeat`` runs, after ``warmup`` runs."""
    for _ in range(warmup):
        function()
    samples: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def side_by_side(bad: Callable[[], object], good: Callable[[], object],
                 repeat: int = 5, warmup: int = 1) -> Timing:
    """Time both versions interleaved (bad, good, bad, good, ...) and keep the medians."""
    for _ in range(warmup):
        bad()
        good()
    bad_samples: List[float] = []
    good_samples: List[float] = []
    for _ in range(repeat):
        for function, samples in ((bad, bad_samples), (good, good_samples)):
            start = time.perf_counter()
            function()
            samples.append(time.perf_counter() - start)
    return Timing(statistics.median(bad_samples), statistics.median(good_samples))


@functools.lru_cache(maxsize=None)
def _layer_caller():
    import tensorflow as tf

    @tf.function
    def call(layer, inputs):
        return layer(inputs)

    return call


def call_traced(layer, inputs):
    """Call a Keras layer inside a tf.function (called eagerly, Keras 3 does not trace it)."""
    return _layer_caller()(layer, inputs)
