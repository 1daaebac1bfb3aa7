"""TFF203 numpy-on-tensor."""

from __future__ import annotations

import ast

from ..analysis.lazy_libcst import cst

from ..analysis.ast_walk import walk_nodes
from ..analysis.names import ast_dotted_name, dotted_name
from ..rule import Rule
from ..analysis.lazy_import import lazy_module

tensor_taint = lazy_module("..analysis.tensor_taint", __package__)


#: NumPy functions that read only static properties (``.shape``, ``.ndim``) or take dtypes,
#: and so work on symbolic tensors too.
_STATIC_FUNCTIONS = frozenset({
    "shape", "ndim", "isscalar", "iterable", "dtype", "issubdtype", "result_type",
    "promote_types", "can_cast", "finfo", "iinfo", "errstate", "printoptions", "ndarray",
    "broadcast_shapes", "obj2sctype", "sctype2char", "format_float_positional",
})


def _called_with_arrays(context) -> frozenset:
    """Names of the functions that the module calls with a tensor or an array
    (``normalize(tf.constant([1.0, 2.0]))``, ``f(np.ones(3))``, or a module-level name
    bound to one): a ``tf.function`` gets a tensor there."""
    tree = context.tree
    if tree is None:
        return frozenset()

    def array(value: ast.expr, names) -> bool:
        if isinstance(value, ast.Name):
            return value.id in names
        if not isinstance(value, ast.Call):
            return False
        qualified = context.names.resolve(ast_dotted_name(value.func) or "") or ""
        return qualified.startswith(("tensorflow.", "numpy."))

    arrays = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and array(statement.value, ()):
            arrays.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    found = set()
    for node in walk_nodes(tree):
        if isinstance(node, ast.Call) and any(
                array(value, arrays)
                for value in (*node.args, *(k.value for k in node.keywords))):
            name = ast_dotted_name(node.func)
            if name:
                found.add(name.rpartition(".")[2])
    return frozenset(found)


class NumpyOnTensor(Rule):
    """NumPy functions called on the tensors of a traced function.

    ## What it does
    Flags calls to NumPy functions (`np.mean(x)`, `np.array(x)`, `np.sqrt(x)`,
    `np.float32(x)` …) whose arguments derive from the parameters of a function that
    TensorFlow traces.

    ## Why is this bad?
    While `tf.function` traces, its arguments are symbolic tensors: they have no value yet,
    and NumPy cannot turn them into arrays. The trace fails with `NotImplementedError: Cannot
    convert a symbolic tf.Tensor to a numpy array`. Code that works eagerly breaks as soon as
    it is decorated, or when Keras compiles `call()` for `fit`. TensorFlow has an operation
    for almost every NumPy function (`tf.reduce_mean`, `tf.sqrt`, `tf.cast`, or
    `tf.experimental.numpy`), and those run in the graph on every call.

    ## Example
    ```python
    import numpy as np
    import tensorflow as tf

    @tf.function
    def normalize(x):
        return x - np.mean(x)

    normalize(tf.constant([1.0, 2.0, 3.0]))
    ```

    ## Use instead
    ```python
    import numpy as np
    import tensorflow as tf

    @tf.function
    def normalize(x):
        return (x - tf.reduce_mean(x)) * np.float32(np.pi)

    normalize(tf.constant([1.0, 2.0, 3.0]))
    ```

    ## Known problems
    Values are followed within one function, in statement order: the parameters of a
    function TensorFlow traces directly with tensors (a Keras `call`, a `Dataset.map`
    callable …), the results of TensorFlow operations, and names assigned from expressions
    that use them. The parameters of a `@tf.function` (or `tf.function(f)`) are what its
    callers pass, and a Python number or list stays a Python value in the trace, on which
    NumPy works (`np.abs(max_x)` with `max_x=10`): they are taken for tensors only when
    the module calls the function with a tensor or an array (`normalize(tf.constant(...))`,
    `f(np.ones(3))`, or a module-level name bound to one), or when annotated as
    `tf.Tensor`. NumPy on a tensor that other modules pass to a `tf.function` is missed. A method's `self`, `*args`/`**kwargs`, and parameters that visibly hold
    Python values (a literal default such as `axis=-1`, a default `None` that the first
    statements replace with one, `if f is None: f = [1, 2, 1]`, an `int`/`float`/`bool`/`str`
    annotation, or a union or container of those, `Union[str, List[str]]`) are not taken
    for tensors, nor is a name in the branch of `isinstance(x, T)` where `T` is a kind no
    tensor is (a string or number, `np.ndarray`, another library's class such as a PIL
    `Image.Image`; not a list or tuple, which may hold tensors). A parameter of a Keras
    `call` after its inputs that every call of the module's objects of that class fills
    with a Python literal (`self.conv(x, 3)` where `self.conv = ConvBlock(8)`) holds that
    value; calls from other modules are not seen. Nor are the parameters of helpers that traced code
    calls, which get Python numbers and NumPy arrays as often as tensors, unless they are
    annotated as `tf.Tensor`: NumPy on a tensor passed down to a helper is missed.
    Static properties are Python values while tracing and are not flagged:
    `np.prod(x.shape)`, `np.sqrt(x.shape[-1])`, `len(x)`, `x.dtype`, and NumPy functions
    that only read them (`np.shape`, `np.ndim`). NumPy on constants (`np.zeros(3)`,
    `np.float32`, `np.pi`) is fine, and so is NumPy on what `.numpy()` answers (a NumPy
    array; in a graph the `.numpy()` call fails first, which TFF204 reports). Code inside
    `if tf.executing_eagerly():` is not flagged, nor code written for values that are not tensors: under `if not tf.is_tensor(x):`, in the
    `else` of `if tf.is_tensor(x):` or `if isinstance(x, tf.Tensor):` (NumPy input to a
    function that also takes tensors). A trace that passes a Python list there is missed.

    ## References
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    - [NumPy API on TensorFlow](https://www.tensorflow.org/guide/tf_numpy)
    - [Introduction to graphs and tf.function](https://www.tensorflow.org/guide/intro_to_graphs)
    """

    code = "TFF203"
    name = "numpy-on-tensor"
    message = ("NumPy fails while tf.function traces: it cannot convert a symbolic tensor to "
               "an array; use the TensorFlow op (tf.reduce_mean, tf.math.*, tf.cast) or "
               "tf.experimental.numpy")

    @classmethod
    def triggers_for(cls, context):
        return tuple(f"{name}." for name in context.names.local_names_for(("numpy",))
                     if context.names.resolve(name) == "numpy") + tuple(
            f"{name}(" for name in context.names.local_names_for(("numpy.",)))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified is None or not qualified.startswith("numpy."):
            return
        parts = qualified.split(".")
        if parts[1] in ("random", "testing", "typing") or parts[-1] in _STATIC_FUNCTIONS:
            return
        parameters = self._inputs_are_tensors()
        if not any(tensor_taint.is_tainted(self.context, arg.value, parameters)
                   for arg in node.args):
            return
        if self.context.in_eager_branch() or self.context.in_non_tensor_branch():
            return
        self._report(node)

    def _inputs_are_tensors(self) -> bool:
        """The traced function's inputs are tensors whoever calls it: Keras gives a layer's
        ``call`` tensors, tf.data gives a dataset function its elements, and so on. A
        ``tf.function``'s are what its callers pass: a Python number or list stays a Python
        value in the trace, and NumPy works on it."""
        reason = self.context.reason
        root = reason.chain()[-1] if reason is not None else None
        return root is None or not root.how.startswith(("@", "tf.function(")) or (
            root.function.rpartition(".")[2]
            in self.context.fact("numpy_on_tensor.called_with_arrays", _called_with_arrays))

    def _report(self, node: cst.Call) -> None:
        self.report(node, f"{dotted_name(node.func)}() fails while tf.function traces: NumPy "
                          "cannot convert a symbolic tensor to an array; use the TensorFlow op "
                          "(tf.reduce_mean, tf.math.*, tf.cast) or tf.experimental.numpy")
