"""TFF406: run_functions_eagerly(True) left on makes every tf.function run as eager Python."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, side_by_side

CLAIM = "tf.executing_eagerly() is True inside the tf.function with eager mode left on, False " \
        "without; report the speedup lost"
#: A 200-step tf.range loop: eager dispatches every op from Python (tens of milliseconds),
#: the graph runs it as one while loop (a millisecond or two): about 10x or more.
SPEEDUP_AT_LEAST = 1.0
STEPS = 200


def _inside(fixture):
    """``tf.executing_eagerly()`` as seen inside the fixture's tf.function."""
    return bool(fixture.runs_eagerly(tf.constant(1.0)))


def bad(fixture):
    switched_on = tf.config.functions_run_eagerly()  # as the fixture's import left it
    eager_inside = _inside(fixture)
    return observe(switched_on and eager_inside,
                   f"after importing bad.py functions_run_eagerly() is {switched_on}; "
                   f"tf.executing_eagerly() inside the tf.function is {eager_inside}")


def good(fixture):
    switched_on = tf.config.functions_run_eagerly()
    eager_inside = _inside(fixture)
    via_main = bool(fixture.main([]))
    return observe(not switched_on and not eager_inside and not via_main,
                   f"after importing good.py functions_run_eagerly() is {switched_on}; "
                   f"tf.executing_eagerly() inside the tf.function is {eager_inside}, "
                   f"and {via_main} through main() without --debug")


def speed(bad_fixture, good_fixture):
    # Both fixtures are loaded here: set the process-wide switch before each timed call.
    x = tf.random.uniform([64])
    steps = tf.constant(STEPS)

    def run(fixture, eagerly):
        def call():
            tf.config.run_functions_eagerly(eagerly)
            fixture.oscillate(x, steps)
        return call

    try:
        return side_by_side(run(bad_fixture, eagerly=True), run(good_fixture, eagerly=False))
    finally:
        tf.config.run_functions_eagerly(False)
