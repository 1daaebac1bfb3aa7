"""TFF103: rebinding Python state in traced code freezes a trace-time value or leaks tensors."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "the guide's counter model returns 1, 2, 3 instead of 1, 1, 1; the leaked tensor " \
        "has no .numpy; a Python flag's data-dependent init runs on every call, not on a " \
        "retrace; a learning-rate schedule's Python counter moves only while tracing"

#: Batches for the flag-guarded initialisation: the third has another shape (a retrace).
BATCHES = ([2.0, 1.0], [4.0, 1.0], [8.0, 1.0, 1.0], [10.0, 1.0])


def _scales(norm):
    scales = []
    for batch in BATCHES:
        norm(tf.constant(batch))
        scales.append(round(float(norm.scale), 4))
    return scales


def bad(fixture):
    model = fixture.Model()
    counts = [int(model()) for _ in range(3)]
    fixture.leaky_function(tf.constant(1))
    leaked = fixture.x
    no_numpy = not hasattr(leaked, "numpy") and not hasattr(fixture.holder.field, "numpy")
    error = raised(lambda: leaked + 1)
    step = fixture.make_step()
    steps = [int(step(tf.constant(2))) for _ in range(3)]
    scales = _scales(fixture.ActNorm())
    train_step = fixture.make_train_step(fixture.WarmUp(0.5, 4))
    weights = [round(float(train_step()), 3) for _ in range(4)]
    holds = (counts == [1, 2, 3] and no_numpy and error is not None and steps == [2, 2, 2]
             and scales == [0.5, 0.25, 0.25, 0.1] and weights == [0.875, 0.75, 0.625, 0.5])
    return observe(holds, f"counter model returned {counts}; leaked global is a "
                          f"{type(leaked).__name__} without .numpy, using it raises "
                          f"{type(error).__name__ if error else 'nothing'}; nonlocal counter "
                          f"step returned {steps} (eagerly 2, 4, 6); flag-guarded init left "
                          f"the scale at {scales} after each batch (eagerly 0.5 throughout); "
                          f"a warm-up schedule counting its calls kept its first rate, "
                          f"weights {weights} (eagerly 0.875, 0.625, 0.25, -0.25)")


def good(fixture):
    model = fixture.Model()
    counts = [int(model()) for _ in range(3)]
    lazy = fixture.Lazy()
    outputs = [float(lazy(tf.constant(1.0))) for _ in range(3)]
    calls = int(lazy.calls)
    _, returned = fixture.plus_one(tf.constant(1))
    total = float(fixture.running_sum(tf.constant([1.0, 2.0, 3.0])))
    scales = _scales(fixture.ActNorm())
    holds = (counts == [1, 1, 1] and model.counter == 1 and outputs == [3.0, 3.0, 3.0]
             and calls == 3 and int(returned) == 3 and total == 6.0
             and scales == [0.5, 0.5, 0.5, 0.5])
    return observe(holds, f"init_scope counter model returned {counts}; lazy variables gave "
                          f"{outputs} with a tf.Variable call count of {calls}; returned value "
                          f"{int(returned)}, running sum {total}; tf.Variable flag with "
                          f"tf.cond kept the scale at {scales}")
