"""``tffunc-lint trace``: record why each ``tf.function`` traced, in the user's own program.

Doors: the CLI (:mod:`.cli`, ``tffunc-lint trace -- python train.py``), the pytest plugin
(:mod:`.pytest_plugin`), the context manager (:func:`recording`) and the IPython extension
(``%load_ext tffunc_lint.trace``, then ``%%tffunc_trace``). Importing this package does not
import TensorFlow; recording does.
"""

from __future__ import annotations

from typing import Any


def recording(max_traces: Any = None):
    """``with recording() as rec: ...; print(rec.report())``."""
    from .recording import recording as _recording

    return _recording(max_traces)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tffunc_lint.trace`` registers the ``%%tffunc_trace`` cell magic."""
    from .ipython import load_ipython_extension as _load

    _load(ipython)
