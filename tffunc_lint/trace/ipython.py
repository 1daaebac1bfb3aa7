"""IPython extension: ``%load_ext tffunc_lint.trace``, then a cell starting with
``%%tffunc_trace`` runs under the recorder and prints why its tf.functions traced.

``%%tffunc_trace --json`` prints the JSON report. Needs no IPython at import time.
"""

from __future__ import annotations

from typing import Any, Optional


def run_cell(line: str, cell: str, shell: Any) -> Optional[Any]:
    """The magic's body: run ``cell`` in the shell, record, print the report."""
    from .recording import Recording

    output_format = "json" if "--json" in line.split() else "text"
    with Recording() as recording:
        result = shell.run_cell(cell)
    print(recording.report(output_format), end="")
    return result


def load_ipython_extension(ipython: Any) -> None:
    def tffunc_trace(line: str, cell: str) -> None:
        run_cell(line, cell, ipython)

    ipython.register_magic_function(tffunc_trace, magic_kind="cell", magic_name="tffunc_trace")
