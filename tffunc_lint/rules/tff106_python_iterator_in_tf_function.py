"""TFF106 python-iterator-in-tf-function."""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet

from ..analysis.lazy_libcst import cst

from ..analysis.call_sites import call_sites
from ..rule import Rule
from ..analysis.ast_walk import child_nodes
from ..analysis.patterns import lazy_compile


class PythonIteratorInTfFunction(Rule):
    """`next()` on, or a `for` over, a Python iterator passed to a `tf.function`.

    ## What it does
    Flags `next(it)` and `for x in it` in traced code when `it` is a parameter of the
    `tf.function` and a call site in the module passes a Python iterator or generator for
    it: `iter([...])`, a generator expression, a call of a generator function, `zip(...)`,
    `map(...)`, `itertools.*`.

    ## Why is this bad?
    A Python iterator is a Python side effect: it advances only while the function is
    traced. The graph keeps the value it got then, so every later call sees the same
    element (`1, 1, 1` instead of `1, 2, 3`), and a `for` over it is unrolled once with
    the elements consumed during tracing. A `tf.data` iterator is a TensorFlow object: each
    call of the graph advances it.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def consume_next(iterator):
        return next(iterator)

    iterator = iter([1, 2, 3])
    consume_next(iterator)
    consume_next(iterator)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def consume_next(iterator):
        return next(iterator)

    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    consume_next(iterator)
    consume_next(iterator)
    ```

    ## Known problems
    Only iterators whose origin is visible at a call site in the same module are reported;
    `iter(dataset)`, iterators of unknown origin (a parameter, an attribute) and iterators
    rebound inside the traced function are not.

    ## References
    - [Better performance with tf.function: Using Python iterators and generators](https://www.tensorflow.org/guide/function#using_python_iterators_and_generators)
    - [`tf.data.Iterator`](https://www.tensorflow.org/api_docs/python/tf/data/Iterator)
    """

    code = "TFF106"
    name = "python-iterator-in-tf-function"
    message = ("a Python iterator advances only while tracing, so every call gets the same "
               "elements; use a tf.data iterator (iter(tf.data.Dataset...)) or pass tensors")
    triggers = (lazy_compile(r"\bnext\s*\(|\bfor\b"),)

    @classmethod
    def triggers_for(cls, context):
        return cls.triggers if call_sites(context).iterators else ()

    def _iterators(self) -> Dict[str, str]:
        function = self.context.function
        if function is None:
            return {}
        passed = call_sites(self.context).iterators.get(function.key, {})
        if not passed:
            return {}
        rebound = _rebound(function.node)
        return {name: what for name, what in passed.items() if name not in rebound}

    def _message(self, name: str, what: str, how: str) -> str:
        return (f"{how} on `{name}`, a Python iterator ({what} at a call site), runs only "
                "while tracing, so every call gets the same elements; use a tf.data iterator "
                "(iter(tf.data.Dataset...)) or pass tensors")

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.qualified_name(node.func) != "builtins.next" or not node.args:
            return
        argument = node.args[0].value
        if isinstance(argument, cst.Name):
            what = self._iterators().get(argument.value)
            if what is not None:
                self.report(node, self._message(argument.value, what, "next()"))

    def visit_For(self, node: cst.For) -> None:
        self._iterated(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter)

    def _iterated(self, iterable: cst.BaseExpression) -> None:
        if isinstance(iterable, cst.Name):
            what = self._iterators().get(iterable.value)
            if what is not None:
                self.report(iterable, self._message(iterable.value, what, "a `for` loop"))


def _rebound(function) -> FrozenSet[str]:
    """Names the function assigns in its own body (a parameter rebound is another value)."""
    if function is None or not hasattr(function, "body"):
        return frozenset()
    names = set()
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            stack.extend(child_nodes(node))
    return frozenset(names)
