"""TFF407: a tf.function on code that is traced anyway adds a call boundary, not a graph."""

import numpy as np
import tensorflow as tf

from tffunc_lint.verify.recipe import observe

CLAIM = "the outer trace holds the inner function's ops either way (the inner tf.function " \
        "adds only a call op); Keras fit gives the same losses with and without the decorator"
SPEC = tf.TensorSpec([4], tf.float32)
_CALLS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})


def _ops(fixture):
    """Op types of train_step's graph, and of the functions it calls (inlined or not)."""
    graph = fixture.train_step.get_concrete_function(SPEC).graph
    outer = [op.type for op in graph.get_operations()]
    library = [node.op for function in graph.as_graph_def().library.function
               for node in function.node_def]
    return outer, library


def _fit(fixture):
    tf.keras.utils.set_random_seed(7)
    model = tf.keras.Sequential([tf.keras.Input((3,)), fixture.Scale(), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    x = np.linspace(0.0, 1.0, 24, dtype="float32").reshape(8, 3)
    y = x.sum(axis=1, keepdims=True)
    return model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0).history["loss"]


_REFERENCE = {}


def _result(fixture):
    return fixture.train_step(tf.constant([1.0, 2.0, 2.0, 4.0])).numpy().tolist()


def bad(fixture):
    outer, library = _ops(fixture)
    called = bool(_CALLS.intersection(outer))
    inner_ops = "Sqrt" in library and "Sqrt" not in outer
    losses, value = _fit(fixture), _result(fixture)
    _REFERENCE["bad"] = (losses, value)
    return observe(called and inner_ops,
                   f"train_step's graph calls the inner tf.function ({sorted(_CALLS & set(outer))})"
                   f", whose ops (Sqrt in its function body: {inner_ops}) are the same as "
                   f"inlined; fit losses {np.round(losses, 5).tolist()}")


def good(fixture):
    outer, _ = _ops(fixture)
    inlined = "Sqrt" in outer and not _CALLS.intersection(outer)
    losses, value = _fit(fixture), _result(fixture)
    same = True
    if "bad" in _REFERENCE:
        bad_losses, bad_value = _REFERENCE["bad"]
        same = np.allclose(bad_losses, losses) and np.allclose(bad_value, value)
    return observe(inlined and same,
                   f"train_step's graph holds the ops inline (Sqrt: {'Sqrt' in outer}, no call "
                   f"op); fit losses {np.round(losses, 5).tolist()}"
                   + ("" if "bad" not in _REFERENCE else f", equal to the decorated version's: "
                      f"{same}"))
