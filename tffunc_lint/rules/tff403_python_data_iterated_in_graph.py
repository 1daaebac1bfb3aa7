"""TFF403 python-data-iterated-in-graph."""

from ..analysis.call_sites import CallSiteReporter
from ..rule import Rule, Scope


class PythonDataIteratedInGraph(CallSiteReporter, Rule):
    """A Python list passed to a `tf.function` that loops over it: the loop is unrolled.

    ## What it does
    Flags call sites that pass a Python list or tuple of constants (a literal, a list
    comprehension, `list(range(...))`, or a name bound to one) to a `tf.function` whose body
    iterates that parameter with a Python `for` loop (or a comprehension).

    ## Why is this bad?
    AutoGraph converts a `for` loop over a tensor or a dataset into one graph loop, but a
    `for` over a Python list runs while tracing: every element adds a copy of the loop body
    to the graph. The graph grows with the data, tracing gets slower, and each new list
    (another length, other values) traces a new graph.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def total(values):
        result = tf.constant(0)
        for v in values:
            result += v
        return result

    total([1, 2, 3, 4, 5])
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def total(values):
        result = tf.constant(0)
        for v in values:
            result += v
        return result

    total(tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5]))
    ```

    ## Known problems
    Only call sites in the same module, with data visible there, are seen. Lists of tensors
    or of unknown values are not reported (a fixed structure, such as the outputs of a
    model, is fine to unroll), nor is a list of iterators (`[iter(ds) for ds in datasets]`:
    one per data source, each advanced on every call), nor a list of objects a factory
    makes without the loop variable (`[model_fn() for _ in range(num_clusters)]`). A list
    comprehension counts as data only when it iterates data: `range(...)`, Python data
    (`[v + 1 for v in numbers]` with `numbers = [1, 2, 3]`), or `enumerate`/`zip`/`sorted`
    of such; one over a parameter or a slice of keys picks objects the program holds, as
    many as its design has (`[images[k] for k in keys[:batch_size]]`, a batch of the same
    size each step, as in TensorFlow's few-shot detection tutorial). NumPy arrays are not
    reported: `tf.function` converts them to tensors, and a loop over a tensor argument
    becomes a graph loop. A function with an `input_signature` converts lists to tensors
    and is not reported either.

    ## References
    - [Better performance with tf.function: Looping over Python data](https://www.tensorflow.org/guide/function#looping_over_python_data)
    - [AutoGraph transformations: loops](https://www.tensorflow.org/guide/function#loops)
    """

    code = "TFF403"
    name = "python-data-iterated-in-graph"
    message = ("a Python list passed to a tf.function that loops over it is unrolled into the "
               "graph; use a tf.data.Dataset or a tensor")
    scope = Scope.MODULE
    triggers = ("function",)
    about_tf_functions = True
