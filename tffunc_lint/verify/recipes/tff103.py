"""TFF103: rebinding Python state in traced code freezes a trace-time value or leaks tensors."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "the guide's counter model returns 1, 2, 3 instead of 1, 1, 1; the leaked tensor " \
        "has no .numpy"


def bad(fixture):
    model = fixture.Model()
    counts = [int(model()) for _ in range(3)]
    fixture.leaky_function(tf.constant(1))
    leaked = fixture.x
    no_numpy = not hasattr(leaked, "numpy") and not hasattr(fixture.holder.field, "numpy")
    error = raised(lambda: leaked + 1)
    step = fixture.make_step()
    steps = [int(step(tf.constant(2))) for _ in range(3)]
    holds = counts == [1, 2, 3] and no_numpy and error is not None and steps == [2, 2, 2]
    return observe(holds, f"counter model returned {counts}; leaked global is a "
                          f"{type(leaked).__name__} without .numpy, using it raises "
                          f"{type(error).__name__ if error else 'nothing'}; nonlocal counter "
                          f"step returned {steps} (eagerly 2, 4, 6)")


def good(fixture):
    model = fixture.Model()
    counts = [int(model()) for _ in range(3)]
    lazy = fixture.Lazy()
    outputs = [float(lazy(tf.constant(1.0))) for _ in range(3)]
    calls = int(lazy.calls)
    _, returned = fixture.plus_one(tf.constant(1))
    total = float(fixture.running_sum(tf.constant([1.0, 2.0, 3.0])))
    holds = (counts == [1, 1, 1] and model.counter == 1 and outputs == [3.0, 3.0, 3.0]
             and calls == 3 and int(returned) == 3 and total == 6.0)
    return observe(holds, f"init_scope counter model returned {counts}; lazy variables gave "
                          f"{outputs} with a tf.Variable call count of {calls}; returned value "
                          f"{int(returned)}, running sum {total}")
