"""TFF301: a tf.Variable (or Keras layer/optimizer) created on every trace raises ValueError."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "ValueError \"tf.function only supports singleton tf.Variables\"; variables created " \
        "once (outside, or behind a None/hasattr guard) work"
MESSAGE = "tf.function only supports singleton tf.Variables"


#: What TensorFlow says when a later call (a new trace) creates variables.
LATER_CALL = "Creating variables on a non-first call"


def _singleton_error(error):
    return isinstance(error, ValueError) and (MESSAGE in str(error)
                                              or LATER_CALL in str(error))


def bad(fixture):
    trainer = fixture.Trainer()  # keep a reference: traced methods hold the instance weakly
    errors = {
        "tf.Variable": raised(lambda: fixture.accumulate(tf.constant(1.0))),
        "SGD optimizer": raised(lambda: trainer.step(tf.ones((2,)))),
        "Dense layer": raised(lambda: trainer.predict(tf.ones((1, 2)))),
        "Normalization layer": raised(lambda: trainer.standardize(tf.ones((1, 2)))),
        "Dropout layer": raised(lambda: trainer.noisy(tf.ones((1, 2)))),
        "second optimizer": raised(
            lambda: fixture.train_with_two_optimizers(tf.Variable([1.0, 2.0]))),
    }
    matching = [name for name, error in errors.items() if _singleton_error(error)]
    others = [f"{name}: {type(error).__name__ if error else 'no error'}"
              for name, error in errors.items() if name not in matching]
    return observe(not others,
                   f"{len(matching)} of {len(errors)} cases ({', '.join(matching)}) raised "
                   f"ValueError \"{MESSAGE}\" (or, for variables a later call makes, "
                   f"\"{LATER_CALL}\")" + (f"; {'; '.join(others)}" if others else ""))


def good(fixture):
    one = tf.constant(1.0)
    totals = [float(fixture.accumulate(one)), float(fixture.accumulate(tf.constant(2.0)))]
    counter = fixture.Counter()
    counts = [float(counter(one)) for _ in range(3)]
    relu = fixture.regularize(tf.constant([-1.0, 2.0])).numpy().tolist()
    made = float(fixture.make_variable())
    trained = float(fixture.train_with_two_built_optimizers(tf.Variable([1.0, 2.0])))
    # Two traces (two shapes) of a function making a Normalization given its statistics.
    standardized = [fixture.standardized(tf.ones((rows, 2))).numpy().tolist()
                    for rows in (1, 2)]
    works = (totals == [1.0, 3.0] and counts == [2.0, 4.0, 6.0] and relu == [0.0, 4.0]
             and made == 1.0 and float(counter.offset) == 1.0 and trained > 0
             and standardized == [[[1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]])
    return observe(works,
                   f"outside variable accumulated {totals}; guarded lazy variables gave "
                   f"{counts} over 3 calls; weightless layers gave {relu}; two optimizers "
                   f"built first trained one function (loss {trained:.3f}); a Normalization "
                   f"given its mean and variance gave {standardized} on two traces; "
                   "no ValueError")
