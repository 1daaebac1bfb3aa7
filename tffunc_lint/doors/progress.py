"""A progress line on stderr for long runs, only when stderr is a terminal.

``Linting 120/340 files``, rewritten in place (carriage return, erase line) at most
every ``interval`` seconds, on a new pass and on the last file of a pass, and erased when
the run ends: nothing of it is left in the terminal, and nothing reaches a pipe or a file.
"""

from __future__ import annotations

import time
from typing import Optional, TextIO

ERASE = "\r\x1b[K"
PHASES = ("Linting", "Following calls across modules:")


class Progress:
    def __init__(self, stream: TextIO, interval: float = 0.1, clock=time.monotonic):
        self._stream, self._interval, self._clock = stream, interval, clock
        self._last = float("-inf")
        self._phase = 0
        self._shown = False

    def __call__(self, done: int, total: int, phase: int = 0) -> None:
        now = self._clock()
        if done != total and phase == self._phase and now - self._last < self._interval:
            return
        self._last, self._phase = now, phase
        label = PHASES[min(phase, len(PHASES) - 1)]
        self._stream.write(f"{ERASE}{label} {done}/{total} files")
        self._stream.flush()
        self._shown = True

    def clear(self) -> None:
        if self._shown:
            self._stream.write(ERASE)
            self._stream.flush()
            self._shown = False


def progress_for(stream: TextIO, quiet: bool = False) -> Optional[Progress]:
    """A progress line on ``stream`` if it is a terminal (and not ``--quiet``), else None."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    return Progress(stream) if terminal and not quiet else None


class _Shown:
    """A progress line attached to the linter's passes until ``close()``."""

    def __init__(self, progress: Optional[Progress]):
        from ..runner import reporting_to

        self._progress = progress
        self._hook = reporting_to(progress) if progress is not None else None
        if self._hook is not None:
            self._hook.__enter__()

    def close(self) -> None:
        if self._hook is not None:
            self._hook.__exit__(None, None, None)
            self._hook = None
            self._progress.clear()


def show_progress(stream: TextIO, quiet: bool = False) -> _Shown:
    """Show progress on ``stream`` (if a terminal) until the returned object is closed."""
    return _Shown(progress_for(stream, quiet))
