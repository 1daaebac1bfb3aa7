"""TFF201: a global or closure variable read while tracing keeps its trace-time value."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe

CLAIM = "changing the global after the first call does not change the result; " \
        "a tf.Variable does"


def _close(value, expected):
    return abs(float(value) - expected) < 1e-4


def bad(fixture):
    two, one = tf.constant(2.0), tf.constant(1.0)
    before = float(fixture.apply(two))
    setattr(fixture.module, "scale", 3.0)  # the fixture's later `scale = 3.0`
    after = float(fixture.apply(two))
    counted = float(fixture.progress(one))
    fixture.record_step()
    recounted = float(fixture.progress(one))
    rates = [float(out) for out in fixture.train([one, one])]
    frozen = (_close(before, 2.0) and _close(after, 2.0)
              and _close(counted, 1.0) and _close(recounted, 1.0)
              and fixture.steps_done == 1
              and len(rates) == 2 and _close(rates[0], 0.1) and _close(rates[1], 0.1))
    return observe(frozen,
                   f"apply gave {before:g} then {after:g} after scale changed to 3.0 "
                   f"(6 expected); progress gave {counted:g} then {recounted:g} after "
                   f"steps_done became {fixture.steps_done}; the closure step gave "
                   f"{rates[0]:g}, {rates[1]:g} while learning_rate halved")


def good(fixture):
    two, one = tf.constant(2.0), tf.constant(1.0)
    before = float(fixture.apply(two))
    fixture.scale.assign(3.0)
    after = float(fixture.apply(two))
    rates = [float(out) for out in fixture.train([one, one])]
    counts = [float(fixture.count(one)) for _ in range(3)]
    factors = [float(fixture.make_step(n)(one)) for n in (2, 3)]
    shifts = [float(fixture.shifted(one, tf.constant(n))) for n in (2.0, 5.0)]
    shifted_traces = fixture.shifted.experimental_get_tracing_count()
    predicted = fixture.predict(tf.ones((1, 2))).shape
    follows = (_close(before, 2.0) and _close(after, 6.0)
               and _close(rates[0], 0.1) and _close(rates[1], 0.05)
               and counts == [1.0, 2.0, 3.0] and factors == [2.0, 3.0]
               and shifts == [3.0, 6.0] and shifted_traces == 1
               and tuple(predicted) == (1, 1))
    return observe(follows,
                   f"apply gave {before:.4g} then {after:.4g} after scale.assign(3.0); the "
                   f"closure step gave {rates[0]:g}, {rates[1]:g} with a tf.Variable rate; "
                   f"lazy global counter {counts}; make_step(2), (3) gave {factors}; an "
                   f"argument gave {shifts} in {shifted_traces} trace(s)")
