"""Which loops of a traced function AutoGraph turns into graph loops.

In code that ``tf.function`` traces, AutoGraph converts a loop into a TensorFlow loop (a
``tf.while_loop``, or a reduction over a dataset) only when what drives it is a graph value:

- a ``for`` over ``tf.range(...)``, over ``range()`` of a tensor, over a ``tf.data`` dataset
  (or ``iter``/``enumerate``/``zip`` of one), or over a tensor;
- a ``while`` whose condition is a tensor.

The body of such a *graph loop* is traced once, as a function of its own, and runs in the
graph on every iteration: Python code in it runs once, while tracing (a message is logged once,
not on every iteration: TFF105), and a Python list appended to there receives a single
symbolic tensor from the loop body (TFF501). Every other loop is a *Python loop*: it runs while
tracing and is unrolled into the graph, one copy of its body per iteration, so Python code in
it runs on each iteration, as Python code does.

The decision is conservative: a loop is a graph loop only when the analysis sees that it
iterates a tensor or a dataset, in a function AutoGraph converts (not one decorated
``@tf.autograph.experimental.do_not_convert`` or ``@tf.function(autograph=False)``).

- A tensor is the result of a TensorFlow operation, a name bound to one (anywhere in the
  function's own scope, in any order), arithmetic, comparison or slicing of those, or a
  parameter that the function's ``input_signature`` or a ``tf.Tensor`` annotation makes a
  tensor. The result of other calls is not known to be a tensor (a Keras layer may return a
  list), and an unannotated parameter may be a Python list.
- TensorFlow operations that return a Python list or tuple of tensors (``tf.unstack``,
  ``tf.split`` …) give Python sequences (a name bound to one anywhere in the function, as
  in ``x = tf.unstack(x)``, is not taken for a tensor), and so does a parameter annotated
  as a Python container (``List[tf.Tensor]``, ``Sequence[...]``, ``Optional[tuple]`` …),
  whatever its items are.
- A dataset is a ``tf.data`` chain, a name bound to one, or a name such as ``ds`` or
  ``dataset``.
"""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Sequence, Set, Tuple

from .lazy_libcst import NodeTypes, cst

from .container_provenance import module_scopes
from .cst_walk import children
from .module_index import DATASET_CHAIN_METHODS, DATASET_NAME
from .names import assigned_names
from .tensor_taint import annotation_tree, is_operation, tensor_parameters

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
_DATASET_WRAPPERS = frozenset({"builtins.iter", "builtins.enumerate", "builtins.zip"})
_SCOPES = NodeTypes("FunctionDef", "Lambda", "ClassDef")
#: Annotations of Python containers: iterating one is a Python loop, whatever it holds.
_CONTAINERS = frozenset({
    "list", "tuple", "dict", "set", "frozenset", "List", "Tuple", "Dict", "Set", "FrozenSet",
    "Sequence", "MutableSequence", "Mapping", "MutableMapping", "OrderedDict",
})
_OPTIONAL = frozenset({"Optional"})

Loop = "cst.CSTNode"
"""A ``cst.For`` or a ``cst.While``."""


def python_container_annotation(annotation: Optional[cst.Annotation]) -> bool:
    """``List[tf.Tensor]``, ``Sequence[Union[int, tf.Tensor]]``, ``Optional[tuple]``,
    ``"list[int]"``: the parameter holds a Python container, whatever its items are, so a
    ``for`` over it is a Python loop even if the annotation names ``tf.Tensor``."""
    tree = annotation_tree(annotation)
    if tree is None:
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


def bindings(body: cst.CSTNode) -> Iterator[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, value) of the assignments and ``for`` targets in ``body``, not counting
    nested functions and classes (one function's own scope)."""
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


#: Decorators that keep AutoGraph from converting a function.
_DO_NOT_CONVERT = frozenset({"tensorflow.autograph.experimental.do_not_convert"})


class GraphLoops:
    """Which loops of one function AutoGraph turns into graph loops (see the module
    docstring)."""

    def __init__(self, context, function: cst.FunctionDef, is_method: bool):
        self.resolve = context.qualified_name
        self.dataset_names = context.graph.index.dataset_names
        sources = tensor_parameters(function.params, is_method, entry=False)
        if any(self._has_signature(d.decorator) for d in function.decorators):
            sources = tensor_parameters(function.params, is_method, entry=True)
        sources -= {param.name.value for param in (*function.params.posonly_params,
                                                   *function.params.params,
                                                   *function.params.kwonly_params)
                    if python_container_annotation(param.annotation)}
        self.tensors: Set[str] = set(sources)
        self.datasets: Set[str] = set()
        self.sequences: Set[str] = set()
        """Names (also) bound to a Python list or tuple: ``chars = tf.unstack(chars)``
        makes a loop over ``chars`` a Python loop, whatever else ``chars`` holds."""
        self.converted = not any(self._no_autograph(d.decorator) for d in function.decorators)
        """AutoGraph converts the function: not under ``@tf.autograph.experimental.
        do_not_convert`` or ``@tf.function(autograph=False)``, where every loop is a Python
        loop."""
        self._propagate(function.body)

    def _no_autograph(self, decorator: cst.BaseExpression) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        qualified = self.resolve(target)
        if qualified in _DO_NOT_CONVERT:
            return True
        return (isinstance(decorator, cst.Call) and qualified == "tensorflow.function"
                and any(a.keyword is not None and a.keyword.value == "autograph"
                        and isinstance(a.value, cst.Name) and a.value.value == "False"
                        for a in decorator.args))

    def _has_signature(self, decorator: cst.BaseExpression) -> bool:
        return (isinstance(decorator, cst.Call)
                and self.resolve(decorator.func) == "tensorflow.function"
                and any(a.keyword is not None and a.keyword.value == "input_signature"
                        for a in decorator.args))

    # -- names bound to tensors and datasets -----------------------------------------------
    def _propagate(self, body: cst.CSTNode) -> None:
        found = list(bindings(body))
        for target, value in found:
            if isinstance(value, (cst.List, cst.Tuple, cst.ListComp)) or (
                    isinstance(value, cst.Call)
                    and self.resolve(value.func) in _PYTHON_SEQUENCES):
                self.sequences.update(assigned_names(target))
        changed = True
        while changed:  # in any order: a name may be used above its binding in a loop
            changed = False
            for target, value in found:
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
            return node.value in self.tensors and node.value not in self.sequences
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
        """A ``tf.data`` chain, a name bound to one, or a name such as ``ds``/``dataset``."""
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
                return node.value in self.datasets or (
                    self.dataset_names and bool(DATASET_NAME.search(node.value)))
            if isinstance(node, cst.Attribute):
                return self.dataset_names and bool(DATASET_NAME.search(node.attr.value))
            return False

    # -- loops --------------------------------------------------------------------------------
    def is_graph_loop(self, loop: Loop) -> bool:
        if not self.converted:
            return False
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


def enclosing_loops(ancestors: Sequence[cst.CSTNode]
                    ) -> Tuple[Optional[cst.FunctionDef], List[Loop]]:
    """The function holding the last of ``ancestors`` (the node being visited), and the
    loops of that function whose body holds it, innermost first. (None, []) when the node
    is not in a ``def`` of its own (module code, or a lambda)."""
    loops: List[Loop] = []
    for index in range(len(ancestors) - 1, 0, -1):
        node = ancestors[index - 1]
        if isinstance(node, cst.FunctionDef):
            return node, loops
        if isinstance(node, cst.Lambda):
            break
        if isinstance(node, (cst.For, cst.While)) and ancestors[index] is node.body:
            loops.append(node)
    return None, []


def graph_loops(context, function: cst.FunctionDef) -> GraphLoops:
    """The loop analysis of ``function``, the innermost ``def`` of the traced code being
    visited; computed once per function and shared by the rules."""
    cache = context.tree_fact("loop_kind.graph_loops", lambda _: {})
    found = cache.get(id(function))
    if found is None or found[0] is not function:
        traced = context.function
        is_method = (traced is not None
                     and module_scopes(context).receiver(traced.node) is not None)
        found = (function, GraphLoops(context, function, is_method))
        cache[id(function)] = found
    return found[1]


def in_graph_loop(context) -> bool:
    """The node being visited is in the body of a graph loop of its own function."""
    function, loops = enclosing_loops(context.ancestors)
    if function is None or not loops:
        return False
    analysis = graph_loops(context, function)
    return any(analysis.is_graph_loop(loop) for loop in loops)
