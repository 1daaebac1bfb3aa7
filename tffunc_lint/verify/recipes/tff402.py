"""TFF402: a tf.function object made on every pass traces its function again on every call."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, side_by_side

CLAIM = "trace count equals call count when the tf.function is recreated; hoisted, it traces " \
        "once; report the speedup of hoisting"
#: A recreated function traces on every call (milliseconds), a hoisted one runs its cached
#: graph (tens of microseconds): the fix wins by an order of magnitude.
SPEEDUP_AT_LEAST = 1.0
CALLS = 5


def _count_traces(fixture):
    """Count how often the fixture's ``square`` runs: once per trace of any function using it.

    The fixtures look ``square`` up in their module globals while tracing, so a counting
    wrapper installed there sees every trace (and no graph execution).
    """
    traces = []
    square = fixture.module.square

    def counting_square(x):
        traces.append(1)
        return square(x)

    fixture.module.square = counting_square
    return traces


def _values():
    return [tf.constant(float(i)) for i in range(CALLS)]


def bad(fixture):
    traces = _count_traces(fixture)
    for value in _values():
        fixture.predict(value)
    nested = len(traces)
    fixture.square_each_in_loop(_values())
    in_loop = len(traces) - nested
    fixture.square_each_on_the_spot(_values())
    on_the_spot = len(traces) - nested - in_loop
    return observe(nested == in_loop == on_the_spot == CALLS,
                   f"{nested} traces in {CALLS} calls of predict (nested @tf.function), "
                   f"{in_loop} with tf.function in the loop, {on_the_spot} with "
                   f"tf.function(square)(v) on the spot")


def good(fixture):
    traces = _count_traces(fixture)
    predict = fixture.make_predict(1.0)
    for value in _values():
        predict(value)
    hoisted = len(traces)
    fixture.evaluate(_values())
    once_per_call = len(traces) - hoisted
    fixture.loop_with_hoisted_function(_values())
    module_level = fixture.fast_square.experimental_get_tracing_count()
    return observe(hoisted == once_per_call == module_level == 1,
                   f"{hoisted} trace in {CALLS} calls of a function made once by make_predict, "
                   f"{once_per_call} in evaluate's loop over {CALLS} values, {module_level} "
                   f"for the module-level fast_square")


def speed(bad_fixture, good_fixture):
    values = _values()
    predict = good_fixture.make_predict(1.0)  # the fix: made once, outside the calls

    def recreated():
        for value in values:
            bad_fixture.predict(value)

    def hoisted():
        for value in values:
            predict(value)

    return side_by_side(recreated, hoisted)
