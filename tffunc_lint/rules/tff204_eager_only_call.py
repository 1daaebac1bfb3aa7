"""TFF204 eager-only-call."""

from __future__ import annotations

from ..analysis.lazy_libcst import cst

from ..analysis.lazy_import import lazy_module
from ..rule import Rule
from ..analysis.patterns import lazy_compile

tensor_taint = lazy_module("..analysis.tensor_taint", __package__)


class EagerOnlyCall(Rule):
    """`.numpy()` (or `.item()` on a tensor) in traced code, where tensors have no value yet.

    ## What it does
    Flags calls to `.numpy()` in code that TensorFlow traces into a graph, and calls to
    `.item()` on its tensors (values derived from the traced function's inputs or from
    TensorFlow operations).

    ## Why is this bad?
    While `tf.function` traces, tensors are symbolic: they describe a computation and have no
    value yet. `Tensor.numpy()` exists only for eager tensors, so the trace fails with
    `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'` (a variable raises
    `NotImplementedError`), and tensors have no `.item()` at all. Code that works eagerly or
    in a notebook breaks as soon as it is decorated. Stay in TensorFlow: use the tensor
    itself, or TensorFlow ops on it.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def scale(x, factor):
        return x * factor.numpy()
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def scale(x, factor):
        return x * factor
    ```

    ## Known problems
    Calls inside `if tf.executing_eagerly():` (or after `if not tf.executing_eagerly():
    return ...`) are not flagged: that branch never runs while tracing, and it is the
    documented way to keep eager-only code in a function that may be traced. Nor are calls
    under an attribute named `run_eagerly` (a Keras model's `self.run_eagerly`), or under
    the value the module hands Keras as that setting (`compile(run_eagerly=config.eager)`,
    then `if self.config.eager:` in a step): Keras traces the step only when it is false.
    Nor are calls
    under an `if` whose test an earlier `if` of the same block tested and left on every
    traced path (`if cache is not None:` ending in `return` or in
    `if not tf.executing_eagerly(): raise ...`). Code run through
    `tf.py_function` is eager and not flagged either, nor calls written for values that are
    not tensors: under `if not tf.is_tensor(x):` or in the `else` of
    `if isinstance(x, tf.Tensor):` (a result made from NumPy input turned back into NumPy);
    a trace that passes a Python list there is missed. `.item()` is flagged only on values that
    are tensors as far as one function shows (the inputs of a function TensorFlow traces
    directly, results of TensorFlow operations, and names derived from them); NumPy arrays
    made elsewhere have a legitimate `.item()`. Any `.numpy()` is reported, whatever its
    receiver, except a module or class.

    ## References
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    - [Introduction to graphs and tf.function](https://www.tensorflow.org/guide/intro_to_graphs)
    - [`tf.executing_eagerly`](https://www.tensorflow.org/api_docs/python/tf/executing_eagerly)
    """

    code = "TFF204"
    name = "eager-only-call"
    message = (".numpy() fails while tf.function traces (tensors have no value in a graph); "
               "use the tensor and TensorFlow ops directly, or guard eager-only code with "
               "`if tf.executing_eagerly():`")
    triggers = (lazy_compile(r"\.\s*(?:numpy|item)\s*\(\s*\)"),)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if node.args or not isinstance(func, cst.Attribute) or func.attr.value not in (
                "numpy", "item"):
            return
        if self.context.qualified_name(func.value) is not None:
            return  # a module or a class (``tnp.numpy()``), not a tensor
        if func.attr.value == "item" and not tensor_taint.is_tainted(self.context, func.value):
            return
        if self.context.in_eager_branch() or self.context.in_non_tensor_branch():
            return
        if func.attr.value == "item":
            self.report(node, ".item() does not exist on tensors and fails while tf.function "
                              "traces; use the tensor directly (tf.squeeze/tf.reshape)")
        else:
            self.report(node)
