"""TFF501 python-list-in-tensor-loop."""

from __future__ import annotations

import re
from typing import Optional

from ..analysis.lazy_libcst import cst

from ..analysis.cst_walk import descendants
from ..analysis.lazy_import import lazy_module
from ..analysis.names import assigned_names, dotted_name
from ..rule import Rule
from ..analysis.patterns import lazy_compile

container_provenance = lazy_module("..analysis.container_provenance", __package__)
loop_kind = lazy_module("..analysis.loop_kind", __package__)

_LOOP_HEADER = lazy_compile(r"^[ \t]*(?:for|while)\b", re.MULTILINE)
_APPEND = lazy_compile(r"\.\s*(?:append|extend|insert)\s*\(")


def _append_after_loop(text: str) -> bool:
    """An append anywhere after the first loop header (one pattern spanning both would
    rescan the rest of the text from every header)."""
    header = _LOOP_HEADER.search(text)
    return header is not None and _APPEND.search(text, header.end()) is not None


_APPENDS = frozenset({"append", "extend", "insert"})


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` is (re)bound somewhere in ``node`` (a loop body)."""
    return any(name in assigned_names(target) for target, _ in loop_kind.bindings(node))


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
    class). A list made inside the loop body is fine, and so is a local list that nothing
    reads after the loop (its use commented out), unless the loop sits in another loop,
    whose next pass may read it. In a function AutoGraph does not
    convert (`@tf.autograph.experimental.do_not_convert`, `@tf.function(autograph=False)`)
    every loop is a Python loop. Appending to a list that outlives the call is also
    reported by TFF102.

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
    triggers = (_append_after_loop,)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _APPENDS:
            return
        name = dotted_name(func.value)
        if name is None or not self._is_list(name):
            return
        loop = self._graph_loop(name)
        if loop is not None and (container_provenance.origin(self.context, name).provenance is not container_provenance.Provenance.LOCAL
                                 or "." in name or self._read_after(loop, name)):
            self.report(node)

    def _read_after(self, loop: cst.CSTNode, name: str) -> bool:
        """The function names the local list again after the graph loop (returns it,
        stacks it), or the loop sits in another loop, whose next pass may read it: only
        a read outside the loop meets the symbolic tensors of the loop's body. A list
        nothing reads after the loop (its use commented out) holds them harmlessly."""
        ancestors = self.context.ancestors
        child: cst.CSTNode = loop
        for parent in reversed(ancestors[:ancestors.index(loop)]):
            if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(parent, (cst.For, cst.While)):
                return True
            statements = getattr(parent, "body", None)
            if isinstance(parent, (cst.IndentedBlock, cst.Module)) and child in statements:
                later = statements[statements.index(child) + 1:]
                if any(isinstance(found, cst.Name) and found.value == name
                       for statement in later for found in descendants(statement)):
                    return True
            child = parent
        return True

    def _is_list(self, name: str) -> bool:
        found = container_provenance.origin(self.context, name)
        if found.kind == "list":
            return True
        if found.provenance is not container_provenance.Provenance.LOCAL or "." in name:
            return False
        # A local list may be rebound later (``values = tf.stack(values)``): any list binding.
        function = self.context.function
        values = container_provenance.module_scopes(self.context).bindings(function.node).values.get(name, ())
        return any(container_provenance.value_kind(v, self.context.names, self.context.local_names) == "list"
                   for v in values)

    def _graph_loop(self, name: str) -> Optional[cst.CSTNode]:
        """The innermost enclosing loop that AutoGraph converts, if the list is made before
        it; None otherwise."""
        function, loops = loop_kind.enclosing_loops(self.context.ancestors)
        head = name.partition(".")[0]
        for loop in loops:
            if "." not in name and _binds(loop.body, head):
                return None  # a fresh list on every iteration
            if loop_kind.graph_loops(self.context, function).is_graph_loop(loop):
                return loop
        return None
