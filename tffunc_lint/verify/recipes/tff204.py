"""TFF204: .numpy() and .item() need a concrete value, which a traced tensor does not have."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = ".numpy() / .item() on a traced tensor raise AttributeError in graph " \
        "(on a tf.Variable, NotImplementedError); the same code runs eagerly"


def _name(error):
    return type(error).__name__ if error is not None else "nothing"


def bad(fixture):
    one, two = tf.constant(1.0), tf.constant(2.0)
    numpy_error = raised(lambda: fixture.scale(one, two))
    item_error = raised(lambda: fixture.first_value(tf.constant([1.0])))
    normalizer = fixture.Normalizer()
    variable_error = raised(lambda: normalizer(tf.constant([1.0, 2.0])))
    # a flag the traced caller passes as True: its .numpy() branch is traced
    flag_error = raised(lambda: fixture.trimmed_sum(tf.constant([1.0, 2.0, 4.0])))
    eager = float(fixture.scale.python_function(one, two))
    shows = (isinstance(numpy_error, AttributeError) and "numpy" in str(numpy_error)
             and isinstance(item_error, AttributeError) and "item" in str(item_error)
             # tf.Variable.numpy() in graph raises NotImplementedError, not AttributeError
             and isinstance(variable_error, (AttributeError, NotImplementedError))
             and "numpy" in str(variable_error)
             and isinstance(flag_error, AttributeError) and "numpy" in str(flag_error)
             and eager == 2.0)
    return observe(shows,
                   f"tensor.numpy() raised {_name(numpy_error)}, tensor.item() raised "
                   f"{_name(item_error)}, variable.numpy() raised {_name(variable_error)}, "
                   f"the flagged branch raised {_name(flag_error)} "
                   f"while tracing; eagerly scale gave {eager:g}")


def good(fixture):
    results = {
        "scale": (float(fixture.scale(tf.constant(1.0), tf.constant(2.0))), 2.0),
        "first_value": (float(fixture.first_value(tf.constant([1.0]))), 2.0),
        "describe": (float(fixture.describe(tf.constant(1.0))), 2.0),
        "report": (float(fixture.report(tf.constant(2.0))), 2.0),
        "to_host": (float(fixture.to_host(tf.constant(3.0))), 3.0),
        "with_py_function": (float(fixture.with_py_function(tf.constant(4.0))), 8.0),
        # ``actual`` left False by the traced caller: its .numpy() branch is never traced
        "masked_sum": (float(fixture.masked_sum(tf.constant([1.0, 2.0, 4.0]))), 3.0),
    }
    wrong = [f"{name} gave {got:g}, not {want:g}" for name, (got, want) in results.items()
             if got != want]
    return observe(not wrong,
                   f"{len(results) - len(wrong)} of {len(results)} functions ran without "
                   "error and gave the expected values (tf.py_function doubled 4 to "
                   f"{results['with_py_function'][0]:g})"
                   + (f"; {'; '.join(wrong)}" if wrong else ""))
