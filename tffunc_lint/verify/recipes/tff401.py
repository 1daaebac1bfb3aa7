"""TFF401: Python numbers as arguments retrace the function for every new value."""

import itertools

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, side_by_side

CLAIM = "N distinct Python ints trace N graphs; tensors trace 1; the fix is faster"
#: Retracing costs milliseconds per call, a traced call microseconds: the fix must win.
SPEEDUP_AT_LEAST = 1.0
VALUES = range(1, 6)


def bad(fixture):
    for n in VALUES:
        fixture.train(n)
    traces = fixture.train.experimental_get_tracing_count()
    return observe(traces == len(VALUES), f"{traces} traces for {len(VALUES)} distinct ints")


def good(fixture):
    for n in VALUES:
        fixture.train(tf.constant(n))
        fixture.train_pinned(n)
    traces = fixture.train.experimental_get_tracing_count()
    pinned = fixture.train_pinned.experimental_get_tracing_count()
    return observe(traces == 1 and pinned == 1,
                   f"{traces} trace(s) with tensors, {pinned} with input_signature, "
                   f"for {len(VALUES)} values")


def speed(bad_fixture, good_fixture):
    fresh = itertools.count(1)  # every bad call sees a value it has not traced yet

    def retracing():
        for _ in range(5):
            bad_fixture.train(next(fresh))

    def one_trace():
        for _ in range(5):
            good_fixture.train(tf.constant(next(fresh)))

    return side_by_side(retracing, one_trace)
