"""TFF203: NumPy called on a symbolic tensor fails while tracing."""

import numpy as np
import tensorflow as tf

from tffunc_lint.verify.recipe import call_traced, observe, raised

CLAIM = "np.mean / np.array on a traced tensor raise NotImplementedError " \
        "(the same code runs eagerly); TensorFlow ops and NumPy on constants run"


def _name(error):
    return type(error).__name__ if error is not None else "nothing"


def bad(fixture):
    values = tf.constant([1.0, 2.0, 3.0])
    mean_error = raised(lambda: fixture.normalize(values))
    array_error = raised(lambda: fixture.to_array(values))
    eager = fixture.normalize.python_function(values).numpy().tolist()

    layer_error = raised(lambda: call_traced(fixture.Scaler(), tf.ones((2, 3))))
    symbolic = all(isinstance(error, NotImplementedError)
                   and "symbolic tf.Tensor" in str(error)
                   for error in (mean_error, array_error))
    # np.ones with a tensor as a dimension fails on int conversion instead.
    layer_fails = (isinstance(layer_error, NotImplementedError)
                   or (isinstance(layer_error, TypeError)
                       and "interpreted as an integer" in str(layer_error)))
    return observe(symbolic and layer_fails and eager == [-1.0, 0.0, 1.0],
                   f"np.mean raised {_name(mean_error)}, np.array raised "
                   f"{_name(array_error)} while tracing (eagerly np.mean gave {eager}); "
                   f"the Keras layer's np.ones([batch, 1]) raised {_name(layer_error)} "
                   "(a symbolic tensor is no integer)")


def good(fixture):
    values = tf.constant([[1.0, 2.0, 3.0, 4.0]])
    plain = values.numpy()
    expected = {
        "normalize": (plain - 2.5) * np.float32(np.pi),
        "scaled": plain / (np.sqrt(4.0) + np.sqrt(2.0)) + 4.0,
        "static_rank": plain * 2 + 1 + 1,
        "uses_helper": plain / 2.0,
        "eager_only": plain,
    }
    wrong = [name for name, want in expected.items()
             if not np.allclose(getattr(fixture, name)(values).numpy(), want, atol=1e-5)]

    if not np.allclose(call_traced(fixture.Attention(4), values).numpy(), plain / 2.0):
        wrong.append("Attention")
    if not np.isclose(fixture.eager_code(values), 2.5):
        wrong.append("eager_code")
    checked = len(expected) + 2
    return observe(not wrong,
                   f"{checked - len(wrong)} of {checked} traced/eager functions ran and "
                   "matched NumPy's results" + (f"; wrong: {', '.join(wrong)}" if wrong else ""))
