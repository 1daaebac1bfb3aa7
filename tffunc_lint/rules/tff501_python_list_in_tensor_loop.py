"""TFF501 python-list-in-tensor-loop."""

import ast
import re
from typing import Iterator, List, Optional, Sequence, Set

import libcst as cst

from ..container_provenance import Provenance, module_scopes, origin, value_kind
from ..cst_walk import children
from ..index import DATASET_CHAIN_METHODS
from ..names import assigned_names, dotted_name
from ..rule import Rule
from ..tensor_taint import is_operation, tensor_parameters

_APPENDS = frozenset({"append", "extend", "insert"})
#: TensorFlow operations that return a Python list or tuple of tensors: a ``for`` over
#: their result is a Python loop, unrolled while tracing.
_PYTHON_SEQUENCES = frozenset({
    "tensorflow.unstack", "tensorflow.split", "tensorflow.meshgrid",
    "tensorflow.dynamic_partition", "tensorflow.shape_n", "tensorflow.gradients",
    "tensorflow.unique", "tensorflow.unique_with_counts", "tensorflow.math.top_k",
    "tensorflow.nn.top_k", "tensorflow.nn.moments", "tensorflow.linalg.eigh",
    "tensorflow.linalg.svd", "tensorflow.linalg.qr", "tensorflow.while_loop",
    "tensorflow.split_v", "tensorflow.sparse.split", "tensorflow.searchsorted",
})
_DATASET_NAME = re.compile(r"(?:^|_)(?:ds|dataset)s?$", re.IGNORECASE)
_DATASET_WRAPPERS = frozenset({"builtins.iter", "builtins.enumerate", "builtins.zip"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
#: Annotations of Python containers: iterating one is a Python loop, whatever it holds.
_CONTAINERS = frozenset({
    "list", "tuple", "dict", "set", "frozenset", "List", "Tuple", "Dict", "Set", "FrozenSet",
    "Sequence", "MutableSequence", "Mapping", "MutableMapping", "OrderedDict",
})
_OPTIONAL = frozenset({"Optional"})


def python_container_annotation(annotation: Optional[cst.Annotation]) -> bool:
    """``List[tf.Tensor]``, ``Sequence[Union[int, tf.Tensor]]``, ``Optional[tuple]``,
    ``"list[int]"``: the parameter holds a Python container, whatever its items are, so a
    ``for`` over it is a Python loop even if the annotation names ``tf.Tensor``."""
    if annotation is None:
        return False
    code = cst.Module(body=[]).code_for_node(annotation.annotation)
    try:
        tree = ast.parse(code, mode="eval").body
        if isinstance(tree, ast.Constant) and isinstance(tree.value, str):
            tree = ast.parse(tree.value, mode="eval").body
    except SyntaxError:
        return False
    return python_container_type(tree)


def python_container_type(node: ast.expr) -> bool:
    """The ``ast`` of an annotation names a Python container (see
    :func:`python_container_annotation`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # ``list | None``
        sides = [side for side in (node.left, node.right)
                 if not (isinstance(side, ast.Constant) and side.value is None)]
        return bool(sides) and all(python_container_type(side) for side in sides)
    base = node.value if isinstance(node, ast.Subscript) else node
    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
    if isinstance(node, ast.Subscript) and name in _OPTIONAL:
        return python_container_type(node.slice)
    return name in _CONTAINERS


class _Loops:
    """Which loops of one traced function AutoGraph turns into graph loops.

    A ``for`` is a graph loop when it iterates ``tf.range(...)``, ``range()`` of a tensor,
    a ``tf.data`` dataset (or ``iter``/``enumerate``/``zip`` of one) or a tensor (the result
    of a TensorFlow operation, a name bound to one, a parameter the function's
    ``input_signature`` or annotation makes a tensor, unless the annotation is a Python
    container such as ``List[tf.Tensor]``); a ``while`` is one when its condition
    is a tensor. Loops over ``range(3)``, Python lists, ``tf.unstack(...)`` or anything
    unknown are Python loops, unrolled while tracing.
    """

    def __init__(self, rule: Rule, function: cst.FunctionDef, is_method: bool):
        self.rule = rule
        self.resolve = rule.context.qualified_name
        sources = tensor_parameters(function.params, is_method, entry=False)
        if any(self._has_signature(d.decorator) for d in function.decorators):
            sources = tensor_parameters(function.params, is_method, entry=True)
        sources -= {param.name.value for param in (*function.params.posonly_params,
                                                   *function.params.params,
                                                   *function.params.kwonly_params)
                    if python_container_annotation(param.annotation)}
        self.tensors: Set[str] = set(sources)
        self.datasets: Set[str] = set()
        self._propagate(function.body)

    def _has_signature(self, decorator: cst.BaseExpression) -> bool:
        return (isinstance(decorator, cst.Call)
                and self.resolve(decorator.func) == "tensorflow.function"
                and any(a.keyword is not None and a.keyword.value == "input_signature"
                        for a in decorator.args))

    # -- names bound to tensors and datasets -----------------------------------------------
    def _propagate(self, body: cst.CSTNode) -> None:
        bindings = list(_bindings(body))
        changed = True
        while changed:
            changed = False
            for target, value in bindings:
                names = set(assigned_names(target))
                if not names - self.tensors - self.datasets:
                    continue
                if self.is_dataset(value):
                    new = names - self.datasets
                    self.datasets |= new
                elif self.is_tensor(value):
                    new = names - self.tensors
                    self.tensors |= new
                else:
                    continue
                changed = changed or bool(new)

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """A TensorFlow operation's result, a name bound to one, or arithmetic, comparison or
        slicing of those. The result of other calls (a Keras layer returning a list) is not
        known to be a tensor."""
        if isinstance(node, cst.Name):
            return node.value in self.tensors
        if isinstance(node, cst.Call):
            qualified = self.resolve(node.func)
            return qualified not in _PYTHON_SEQUENCES and is_operation(qualified)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            return self.is_tensor(node.left) or self.is_tensor(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self.is_tensor(node.expression)
        if isinstance(node, cst.Comparison):
            return (not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
                            for c in node.comparisons)
                    and (self.is_tensor(node.left)
                         or any(self.is_tensor(c.comparator) for c in node.comparisons)))
        return False

    def is_dataset(self, node: cst.BaseExpression) -> bool:
        while True:
            if isinstance(node, cst.Call):
                qualified = self.resolve(node.func) or ""
                if qualified.startswith("tensorflow.data."):
                    return True
                if (isinstance(node.func, cst.Attribute)
                        and node.func.attr.value in DATASET_CHAIN_METHODS):
                    node = node.func.value
                    continue
                return False
            if isinstance(node, cst.Name):
                return node.value in self.datasets or bool(_DATASET_NAME.search(node.value))
            if isinstance(node, cst.Attribute):
                return bool(_DATASET_NAME.search(node.attr.value))
            return False

    # -- loops --------------------------------------------------------------------------------
    def is_graph_loop(self, loop: cst.CSTNode) -> bool:
        if isinstance(loop, cst.While):
            return self.is_tensor(loop.test)
        iterable = loop.iter
        if isinstance(iterable, cst.Call):
            qualified = self.resolve(iterable.func)
            if qualified == "tensorflow.range":
                return True
            if qualified == "builtins.range":
                return any(self.is_tensor(a.value) for a in iterable.args)
            if qualified in _DATASET_WRAPPERS:
                return any(self.is_dataset(a.value) for a in iterable.args)
            if qualified in _PYTHON_SEQUENCES:
                return False
        if self.is_dataset(iterable):
            return True
        return self.is_tensor(iterable)


def _bindings(body: cst.CSTNode) -> Iterator[tuple]:
    """(target, value) of the assignments and ``for`` targets of one function's own scope."""
    stack: List[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                yield target.target, node.value
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, cst.For):
            yield node.target, node.iter
        elif isinstance(node, cst.NamedExpr):
            yield node.target, node.value
        stack.extend(children(node))


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` is (re)bound somewhere in ``node`` (a loop body)."""
    return any(name in assigned_names(target) for target, _ in _bindings(node))


class PythonListInTensorLoop(Rule):
    """A Python list is appended to in a loop that AutoGraph turns into a graph loop.

    ## What it does
    Flags `append` (and `extend`/`insert`) on a Python list inside a loop that AutoGraph
    converts into a TensorFlow loop: `for` over `tf.range(...)`, over a tensor or over a
    `tf.data` dataset, and `while` on a tensor condition, in traced code.

    ## Why is this bad?
    AutoGraph turns such a loop into a `tf.while_loop` (or a dataset reduction) whose body
    is traced once, as a function of its own. The Python list is not part of the loop: it
    receives a single symbolic tensor from inside the loop body, whatever the number of
    iterations, and using it after the loop fails with `InaccessibleTensorError` (or gives a
    silently wrong result such as a length of 1). This is the case even for a list the
    traced function creates itself. Accumulate in a `tf.TensorArray` instead: it is a loop
    variable, written on every iteration and stacked after the loop.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def squares(n):
        values = []
        for i in tf.range(n):
            values.append(i * i)
        return tf.stack(values)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def squares(n):
        values = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            values = values.write(i, i * i)
        return values.stack()
    ```

    ## Known problems
    A loop counts as a graph loop only when the analysis can see it iterates a tensor or a
    dataset: `tf.range`, `range()` of a tensor, a TensorFlow operation's result or a name
    bound to one, a dataset (a `tf.data` chain, or a name such as `ds`/`dataset`), a
    parameter made a tensor by `input_signature` or a `tf.Tensor` annotation. A parameter
    annotated as a Python container (`List[...]`, `list[...]`, `Sequence[...]`,
    `Tuple[...]`, `Dict[...]`, `Optional[List[...]]` …) is a Python sequence even when its
    items may be tensors (`shape: List[Optional[Union[int, tf.Tensor]]]`): iterating it is a
    Python loop, unrolled while tracing, and is not reported; `Union[tf.Tensor, List[int]]`
    may be a tensor and still counts as one. A loop over an unannotated parameter is
    assumed to be a Python loop (it is one when the caller passes a list), and so is one
    over `tf.unstack(...)`, which returns a Python list. A list is recognised by a list
    display, comprehension or `list()` call bound to its name (or, for an attribute, in the
    class). A list made inside the loop body is fine. Appending to a list that outlives the
    call is also reported by TFF102.

    ## References
    - [Better performance with tf.function: Accumulating values in a loop](https://www.tensorflow.org/guide/function#accumulating_values_in_a_loop)
    - [`tf.TensorArray`](https://www.tensorflow.org/api_docs/python/tf/TensorArray)
    - [AutoGraph reference: control flow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md)
    """

    code = "TFF501"
    name = "python-list-in-tensor-loop"
    message = ("appending to a Python list inside a graph loop (tf.range, tensor or dataset) "
               "stores one symbolic tensor from the loop body and fails with "
               "InaccessibleTensorError; use a tf.TensorArray (`ta = ta.write(i, value)`)")

    # An append that follows a loop header in the region (graph loops only exist there).
    triggers = (re.compile(r"^[ \t]*(?:for|while)\b[^\n]*(?:\n[^\n]*)*?"
                           r"\.\s*(?:append|extend|insert)\s*\(", re.MULTILINE),)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _APPENDS:
            return
        name = dotted_name(func.value)
        if name is None or not self._is_list(name):
            return
        loop = self._graph_loop(name)
        if loop is not None:
            self.report(node)

    def _is_list(self, name: str) -> bool:
        found = origin(self.context, name)
        if found.kind == "list":
            return True
        if found.provenance is not Provenance.LOCAL or "." in name:
            return False
        # A local list may be rebound later (``values = tf.stack(values)``): any list binding.
        function = self.context.function
        values = module_scopes(self.context).bindings(function.node).values.get(name, ())
        return any(value_kind(v, self.context.names, self.context.local_names) == "list"
                   for v in values)

    def _graph_loop(self, name: str) -> Optional[cst.CSTNode]:
        """The innermost enclosing loop that AutoGraph converts, if the list is made before
        it; None otherwise."""
        ancestors: Sequence[cst.CSTNode] = self.context.ancestors
        head = name.partition(".")[0]
        function = None
        for node in reversed(ancestors):
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                function = node
                break
        if not isinstance(function, cst.FunctionDef):
            return None
        loops = self._loops(function)
        for index in range(len(ancestors) - 1, 0, -1):
            node = ancestors[index - 1]
            if node is function:
                return None
            if not isinstance(node, (cst.For, cst.While)) or ancestors[index] is not node.body:
                continue
            if "." not in name and _binds(node.body, head):
                return None  # a fresh list on every iteration
            if loops.is_graph_loop(node):
                return node
        return None

    def _loops(self, function: cst.FunctionDef) -> _Loops:
        cache = self.context.fact("tff501.loops", lambda _: {})
        found = cache.get(id(function))
        if found is None or found[0] is not function:
            traced = self.context.function
            is_method = module_scopes(self.context).receiver(traced.node) is not None
            found = (function, _Loops(self, function, is_method))
            cache[id(function)] = found
        return found[1]
