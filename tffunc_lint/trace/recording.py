"""``with recording() as rec: ...`` — the traces made inside the block, and their report."""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Optional

from . import report as report_module
from .recorder import RECORDER, TraceEvent


class Recording:
    """The traces recorded while it is active (reasons are judged against the whole
    process's history, so a trace in this block can be a retrace of an earlier one)."""

    def __init__(self, max_traces: Optional[int] = None) -> None:
        self.events: List[TraceEvent] = []
        self.max_traces = max_traces

    def start(self) -> "Recording":
        RECORDER.install()
        with RECORDER.lock:
            RECORDER.sinks.append(self)
        return self

    def stop(self) -> None:
        with RECORDER.lock:
            if self in RECORDER.sinks:
                RECORDER.sinks.remove(self)

    def __enter__(self) -> "Recording":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def data(self) -> Dict[str, Any]:
        """The report as plain data (the JSON format)."""
        with RECORDER.lock:
            return report_module.build(list(self.events), dict(RECORDER.functions),
                                       self.max_traces)

    def report(self, output_format: str = "text") -> str:
        return report_module.render(self.data(), output_format)

    def counts(self) -> Dict[str, int]:
        """Traces per function label (qualified name) in this recording."""
        counter: Counter = Counter(e.key for e in self.events if not e.failed)
        infos = [RECORDER.functions[key] for key in counter]
        labels = Counter(info.label for info in infos)

        def name(info):
            if labels[info.label] == 1:
                return info.label
            return f"{info.label} ({report_module.where(*info.defined_at)})"

        return {name(info): counter[info.key] for info in infos}

    def exceeding(self, limit: int) -> Dict[str, int]:
        return {label: n for label, n in self.counts().items() if n > limit}

    def __repr__(self) -> str:
        return f"<Recording of {len(self.events)} trace(s)>"


def recording(max_traces: Optional[int] = None) -> Recording:
    """Record the traces made inside a ``with`` block: ``rec.report()`` says why each
    retrace happened. Imports TensorFlow when the block starts."""
    return Recording(max_traces)
