"""TFF501: a Python list appended to in a graph loop cannot carry tensors out of the loop."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "appending to a Python list in a tf.range/while/dataset loop raises " \
        "InaccessibleTensorError or gives a wrong result; the TensorArray version returns the " \
        "stacked values"


def bad(fixture):
    errors = {
        "squares": raised(lambda: fixture.squares(tf.constant(3))),
        "doubled_rows": raised(lambda: fixture.doubled_rows(tf.ones([3, 2]))),
        "collect": raised(lambda: fixture.collect(tf.data.Dataset.range(4).batch(2))),
    }
    # Not exported under tf.errors: match the class TensorFlow raises by its name.
    inaccessible = [name for name, error in errors.items()
                    if type(error).__name__ == "InaccessibleTensorError"]
    counted = int(fixture.count_below(tf.constant(3)))
    return observe(len(inaccessible) == len(errors) and counted != 3,
                   f"{len(inaccessible)} of {len(errors)} loops raised InaccessibleTensorError "
                   f"({', '.join(inaccessible) or 'none'}); the while loop's list gave "
                   f"len(seen) = {counted} for 3 iterations")


def good(fixture):
    squares = fixture.squares(tf.constant(4)).numpy().tolist()
    pairs = fixture.pairs(tf.constant(3)).numpy().tolist()
    return observe(squares == [0, 1, 4, 9] and pairs == [[0, 1], [1, 2], [2, 3]],
                   f"TensorArray loops returned squares {squares} and pairs {pairs}")
