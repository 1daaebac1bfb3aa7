"""TFF405: deprecated tf.function spellings, and what TensorFlow says about them.

TensorFlow logs each deprecation once per process, and the worker loads the fixture before
``bad()`` runs, so the recipe loads it again with TensorFlow's warn-once registry emptied for
the duration. ``experimental_relax_shapes=``/``experimental_compile=`` are checked by
``deprecation.deprecated_args``, which TensorFlow only reports while building a graph (or
before the eager context exists, as at the top of a fresh program): loaded in eager mode in
a process that has already run ops, they stay silent, so the fixture is loaded both ways.
"""

import contextlib
import logging
from unittest import mock

import tensorflow as tf
from tensorflow.python.util import deprecation

from tffunc_lint.verify.recipe import load_module, observe

CLAIM = "each deprecated spelling logs TensorFlow's deprecation warning (the two " \
        "tf.function arguments only in graph mode or before the first eager op); the current " \
        "spellings log none and compute the same results"
DEPRECATED = ("experimental_relax_shapes", "experimental_compile",
              "experimental_run_functions_eagerly")
#: Both spellings: scale() doubles, relaxed to 2 traces for 3 shapes; compiled() adds 1 under XLA.
EXPECTED = ([[2.0], [2.0, 2.0], [2.0, 2.0, 2.0]], 2, [2.0, 3.0], True)


class _Records(logging.Handler):

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _deprecation_warnings():
    """Collect the deprecation warnings TensorFlow logs, as if none had been logged before."""
    logger = tf.get_logger()
    records = _Records()
    level = logger.level
    logger.addHandler(records)
    logger.setLevel(logging.WARNING)
    try:
        with mock.patch.dict(deprecation._PRINTED_WARNING, clear=True):
            yield records.messages
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)


def _warned(path):
    """Deprecated names warned about when ``path`` loads in eager mode, and in a graph."""
    tf.constant(0.0)  # the eager context exists, as in any program that has run an op
    with _deprecation_warnings() as eager:
        load_module(path)
    with _deprecation_warnings() as graph, tf.Graph().as_default():
        load_module(path)
    return _named(eager), _named(graph)


def _named(messages):
    return [name for name in DEPRECATED
            if any(name in message and "deprecated" in message for message in messages)]


def _results(fixture):
    """What the fixture's functions compute, and how they were compiled."""
    scaled = [fixture.scale(tf.ones([n])).numpy().tolist() for n in (1, 2, 3)]
    traces = fixture.scale.experimental_get_tracing_count()  # relaxed: 2 for 3 shapes
    x = tf.constant([1.0, 2.0])
    plus_one = fixture.compiled(x).numpy().tolist()
    xla = fixture.compiled.get_concrete_function(x).function_def.attr["_XlaMustCompile"].b
    return (scaled, traces, plus_one, xla)


def _describe(results):
    scaled, traces, plus_one, xla = results
    return (f"scale gave {scaled} with {traces} traces for 3 shapes, compiled gave {plus_one}"
            f"{' under XLA' if xla else ' without XLA'}")


def bad(fixture):
    eager, graph = _warned(fixture.path)
    results = _results(fixture)
    return observe("experimental_run_functions_eagerly" in eager
                   and set(graph) == set(DEPRECATED) and results == EXPECTED,
                   f"loading bad.py logged deprecation warnings for "
                   f"{', '.join(eager) or 'none'} in eager mode (after a first op), for "
                   f"{', '.join(graph) or 'none'} in a graph; "
                   + _describe(results))


def good(fixture):
    eager, graph = _warned(fixture.path)
    results = _results(fixture)
    return observe(not eager and not graph and results == EXPECTED,
                   f"loading good.py logged {len(eager) + len(graph)} deprecation warnings; "
                   + _describe(results))
