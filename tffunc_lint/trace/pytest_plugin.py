"""pytest plugin: ``pytest --tffunc-trace`` reports why each test's tf.functions traced;
``@pytest.mark.max_traces(N)`` fails a test in which a function traced more than N times;
the ``tffunc_trace`` fixture gives the test its :class:`~.recording.Recording`.

Registered through the ``pytest11`` entry point. Importing it costs nothing: TensorFlow and
the recorder are imported only by a test that uses the option, the marker or the fixture.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import pytest

_KEY = pytest.StashKey[Any]()
_REPORTS = pytest.StashKey[List[Tuple[str, str]]]()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("tffunc-lint")
    group.addoption("--tffunc-trace", action="store_true", default=False,
                    help="report why each test's tf.functions traced (tffunc-lint trace)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "max_traces(n): fail the test when a tf.function traces more than n times "
                   "in it (tffunc-lint trace)")
    config.stash[_REPORTS] = []


def _limit(item: Any):
    marker = item.get_closest_marker("max_traces")
    if marker is None:
        return None
    limit = marker.args[0] if marker.args else marker.kwargs.get("n")
    if not isinstance(limit, int) or limit < 1:
        raise pytest.UsageError(f"{item.nodeid}: max_traces needs a positive int, "
                                f"got {limit!r}")
    return limit


def _recording(item: Any):
    recording = item.stash.get(_KEY, None)
    if recording is None:
        from .recording import Recording

        recording = item.stash[_KEY] = Recording(_limit(item)).start()
    return recording


@pytest.fixture
def tffunc_trace(request: Any):
    """The traces made by this test so far: ``tffunc_trace.counts()``, ``.report()``."""
    return _recording(request.node)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: Any) -> None:
    if _limit(item) is not None or item.config.getoption("tffunc_trace"):
        _recording(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any):
    # Old-style wrapper and a rewritten report: works with every pluggy pytest 7+ brings.
    outcome = yield
    recording = item.stash.get(_KEY, None)
    if call.when != "call" or recording is None:
        return
    recording.stop()
    if item.config.getoption("tffunc_trace") and recording.events:
        item.config.stash[_REPORTS].append((item.nodeid, recording.report()))
    limit = _limit(item)
    over = recording.exceeding(limit) if limit is not None else {}
    report = outcome.get_result()
    if over and report.passed:
        report.outcome = "failed"
        report.longrepr = (f"tf.function traced more than max_traces({limit}) times: "
                           + ", ".join(f"{name} {n}x" for name, n in over.items())
                           + "\n\n" + recording.report())


def pytest_runtest_teardown(item: Any) -> None:
    recording = item.stash.get(_KEY, None)
    if recording is not None:  # started by the fixture during set-up
        recording.stop()


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    reports = config.stash.get(_REPORTS, [])
    if not config.getoption("tffunc_trace"):
        return
    terminalreporter.section("tffunc-lint trace")
    if not reports:
        terminalreporter.write_line("no tf.function traced")
    for nodeid, text in reports:
        terminalreporter.write_line(f"-- {nodeid}")
        terminalreporter.write(text)
