"""TFF202: a plain-Python attribute read while tracing keeps its trace-time value."""

import tensorflow as tf

from tffunc_lint.verify.recipe import call_traced, observe

CLAIM = "the guide's SimpleModel ignores the new bias (20.0 before and after bias += 5.0); " \
        "a tf.Variable bias gives 25.0"


def bad(fixture):
    x = tf.constant(10.0)
    model = fixture.simple_model
    before = float(fixture.evaluate(model, x))
    model.bias += 5.0  # the guide's "Adding bias!"
    after = float(fixture.evaluate(model, x))
    traces = fixture.evaluate.experimental_get_tracing_count()

    scaler = fixture.Scaler()  # keep a reference: the traced method holds the instance weakly
    scaled = float(scaler(x))
    scaler.boost()
    boosted = float(scaler(x))

    evaluating = fixture.Scaler()
    evaluating.boost()
    trained = float(evaluating(x))
    evaluating.eval()
    evaluated = float(evaluating(x))

    frozen = (before == after == 20.0 and traces == 1 and scaled == boosted == 10.0
              and trained == evaluated == 20.0)
    return observe(frozen,
                   f"SimpleModel gave {before:g} then {after:g} after bias += 5.0 (25 expected) "
                   f"in {traces} trace(s); Scaler gave {scaled:g} then {boosted:g} after "
                   f"boost() (20 expected) and {trained:g} then {evaluated:g} after "
                   "eval() (10 expected)")


def good(fixture):
    x = tf.constant(10.0)
    model = fixture.SimpleModel()
    before = float(model(x))
    model.add_bias(5.0)
    after = float(model(x))

    counter = fixture.Model()
    counts = [int(counter()) for _ in range(3)]

    layer = fixture.Dense(2)
    ones = tf.ones((1, 3))
    traced = call_traced(layer, ones)
    dense_ok = bool(tf.reduce_all(tf.abs(traced - ones @ layer.kernel) < 1e-5))

    biases = [float(fixture.evaluate(model, x, tf.constant(b))) for b in (5.0, 7.0)]
    traces = fixture.evaluate.experimental_get_tracing_count()

    follows = (before == 20.0 and after == 25.0 and counts == [1, 1, 1] and dense_ok
               and biases == [25.0, 27.0] and traces == 1)
    return observe(follows,
                   f"tf.Variable bias gave {before:g} then {after:g} after add_bias(5.0); "
                   f"init_scope counter returned {counts}; traced Dense with scale set in "
                   f"build() {'matches' if dense_ok else 'differs from'} the eager matmul; "
                   f"bias as an argument gave {biases} in {traces} trace(s)")
