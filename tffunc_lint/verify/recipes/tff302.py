"""TFF302: a traced function that recurses never stops tracing on a tensor."""

import contextlib
import sys

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "recursion error on a tensor argument; several traces with Python ints"
#: Python frames allowed above the caller's depth while tracing a recursion: enough for about
#: ten nested traces, so the error comes fast instead of after the default 1 000 frames.
HEADROOM = 300


@contextlib.contextmanager
def _bounded_recursion():
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(min(saved, depth + HEADROOM))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


def _recursion_error(error):
    """The RecursionError at the root of ``error`` (AutoGraph wraps it once per level)."""
    levels = 0
    while error is not None:
        if isinstance(error, RecursionError):
            return error, levels
        levels += 1
        error = error.__cause__ or error.__context__
    return None, levels


def bad(fixture):
    results = [int(fixture.recursive_fn(n)) for n in (3, 5)]
    traces = fixture.recursive_fn.experimental_get_tracing_count()
    tower = fixture.Tower()  # keep a reference: the traced method holds the instance weakly
    parity = [bool(fixture.parity(n)) for n in (4, 5)]
    heights = [float(tower(n)) for n in (2, 3)]
    with _bounded_recursion():
        direct = raised(lambda: fixture.recursive_fn(tf.constant(5)))
        mutual = raised(lambda: fixture.parity(tf.constant(4)))
        method = raised(lambda: tower(tf.constant(2)))
    root, levels = _recursion_error(direct)
    endless = [name for name, error in (("mutual", mutual), ("method", method))
               if _recursion_error(error)[0] is not None]
    # n=5 ends after 5 nested calls on ints; deeper nesting means the tensor never ended it
    shows = (root is not None and levels > 5 and len(endless) == 2
             and results == [1, 1] and traces == 6
             and parity == [True, False] and heights == [2.0, 3.0]
             and tf.executing_eagerly())
    return observe(shows,
                   f"recursive_fn(tf.constant(5)) raised {type(direct).__name__} from "
                   f"{type(root).__name__ if root else 'no RecursionError'} after {levels} "
                   f"nested traces; mutual and method recursion on tensors: "
                   f"{len(endless)} of 2 RecursionError; Python ints 3 and 5 took "
                   f"{traces} traces of recursive_fn (one per value 5..0)")


def good(fixture):
    counts = [int(fixture.countdown(tf.constant(n))) for n in (5, 7, 2)]
    traces = fixture.countdown.experimental_get_tracing_count()
    total = float(fixture.total({"a": tf.constant(1.0), "b": {"c": tf.constant(2.0)}}))
    squares = [float(fixture.minimize(tf.constant(3.0), jit_compile=flag))
               for flag in (False, True)]
    works = (counts == [0, 0, 0] and traces == 1 and total == 3.0
             and squares == [9.0, 9.0] and fixture.factorial(4) == 24)
    return observe(works,
                   f"the while loop counted tensors 5, 7, 2 down to {counts} in {traces} "
                   f"trace(s); recursion over a nested dict summed to {total:g}; "
                   f"self-call with a Python flag gave {squares}")
