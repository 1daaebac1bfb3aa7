"""TFF406 eager-mode-left-on."""

from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..analysis.lazy_libcst import cst

from ..analysis.ast_walk import walk_nodes
from ..analysis.cst_walk import descendants
from ..analysis.module_index import (EAGER_SWITCH, EAGER_SWITCH_ON, EAGER_SWITCHES,
                                     PY_FUNCTIONS)
from ..analysis.test_code import in_test_code, is_test_path
from ..finding import made_by_tf_data
from ..rule import Rule, Scope


#: Methods of a logger that tell the user something (``logger.warning(...)``).
_LOG_METHODS = frozenset({"warn", "warning", "info", "critical", "error"})


def _literal_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _calls_numpy(function: ast.AST) -> bool:
    """``function`` calls ``x.numpy()`` and never asks whether it runs eagerly."""
    found = False
    for node in walk_nodes(function):
        if node.__class__ is ast.Call and not node.args and node.func.__class__ is (
                ast.Attribute) and node.func.attr == "numpy":
            found = True
        elif node.__class__ is ast.Attribute and node.attr == "executing_eagerly":
            return False
    return found


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``: a script's entry point, which always runs."""
    return (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name)
            and test.left.value == "__name__")


class EagerModeLeftOn(Rule):
    """`tf.config.run_functions_eagerly(True)` left in code that is not a test.

    ## What it does
    Flags `tf.config.run_functions_eagerly(True)` called with a literal `True`,
    unconditionally, outside tests.

    ## Why is this bad?
    The switch is global: it turns every `tf.function` in the process, including those of the
    libraries you use, into plain eager Python. It is the documented way to debug a traced
    function step by step, but left in place it silently throws away all graph optimisations:
    the program still works, only several times slower, and nothing says why.

    ## Example
    ```python
    import tensorflow as tf

    tf.config.run_functions_eagerly(True)

    @tf.function
    def step(x):
        return x * 2
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    DEBUG = False
    tf.config.run_functions_eagerly(DEBUG)

    @tf.function
    def step(x):
        return x * 2
    ```

    ## Known problems
    The deprecated spelling `tf.config.experimental_run_functions_eagerly(True)` counts too
    (TFF405 also reports it as deprecated, and its fix renames it). Tests are exempt: files named `test_*.py`, `*_test.py` or `conftest.py`, files under a
    `tests` folder, module-level `test_*` functions and methods of `TestCase` classes. A call
    under an `if` (other than `if __name__ == "__main__":`) is taken for a deliberate debug
    switch (`if flags.debug: ...`) and not reported. A value computed at run time (a flag, a
    variable holding `True`) is not reported either, nor is a switch that a later statement
    of the same block (script or notebook cell order) sets back with
    `run_functions_eagerly(False)`: a bounded debugging section. Nor is a switch the same
    block announces with a warning or a log message (`warnings.warn(...)`,
    `logger.warning(...)`): a component that needs eager execution and says so (a bridge to
    host code that reads tensor values), whose slowdown is not silent. Nor is a switch in a
    module whose code that the switch runs as Python needs it: a `tf.function`, a Keras
    `call` or step, or a function of the module they call, calls `.numpy()` without testing
    `tf.executing_eagerly()` (a loss that plots its matrices, a `train_step` that logs
    `loss.numpy()`): traced, that code fails, so the switch is not a leftover; TFF204
    reports such calls where nothing switches. If you really mean to run
    eagerly (a debugging script), add `# noqa: TFF406`. A notebook or script (nothing
    imports it; in an application, also one that does its work at module level without a
    main guard and imports none of the project's modules) with no traced code of its own
    that lets Keras run no model is not reported: the switch changes nothing there, unless
    a library it calls traces code. Nor is such a script of its own code only that exports
    its Keras model (`model.save(path)`) but never fits, evaluates or predicts with it:
    the export traces `call` whatever the switch says. Nor is such a script of its own code
    only whose traced code is all run by tf.data (`Dataset.map(fn)`, the helpers `fn` calls,
    the models it runs): the switch does not reach functions passed to tf.data
    transformations, which always run as graphs.

    ## References
    - [`tf.config.run_functions_eagerly`](https://www.tensorflow.org/api_docs/python/tf/config/run_functions_eagerly)
    - [Better performance with tf.function: Debugging](https://www.tensorflow.org/guide/function#debugging)
    """

    code = "TFF406"
    name = "eager-mode-left-on"
    message = ("tf.config.run_functions_eagerly(True) turns every tf.function in the process "
               "into slow eager Python; remove it, or use a debug flag that defaults to False")
    scope = Scope.MODULE
    triggers = (EAGER_SWITCH_ON,)

    @classmethod
    def triggers_for(cls, context):
        return () if is_test_path(context.path) else cls.triggers

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified not in EAGER_SWITCHES:
            return
        value = self._switch_value(node)
        if (value is not None and _literal_true(value) and not self._in_test_or_guarded()
                and not self._switched_off_later() and not self._announced()
                and not self._nothing_to_switch() and not self._needed()):
            self.report(node, None if qualified == EAGER_SWITCH else self.message.replace(
                "run_functions_eagerly", "experimental_run_functions_eagerly", 1))

    def _nothing_to_switch(self) -> bool:
        """A whole program (a notebook, a script nothing imports), or a script of an
        application that imports none of the project's modules, with no traced code of its
        own that lets Keras run no model: the switch changes nothing there (Kaggle's
        convolution exercise, a textbook script of eager operations). Nor in such a script
        (its own code all that runs) without a ``tf.function`` of its own that only exports
        its Keras models, never fits, evaluates or predicts with them: an export traces
        ``call`` whatever the switch says. Nor in such a script whose traced code is all
        tf.data's (``Dataset.map(fn)`` and what ``fn`` calls): the switch has no effect on
        functions passed to tf.data transformations, which always run as graphs."""
        graph = self.context.graph
        if not (graph.whole_program or graph.self_contained) or any(
                not reason.chain()[-1].by_tf_data() for reason in graph.traced.values()):
            return False
        index = graph.index
        if graph.self_contained and not index.keras_runs and all(
                made_by_tf_data(entry.how) for entry in index.entries) and all(
                entry.target[0] == "external" and entry.target[1] in PY_FUNCTIONS
                for entry in index.decorated):
            return True  # nothing but tf.data traces, and the switch leaves tf.data alone
        return not graph.runs_keras and not graph.traced

    def _needed(self) -> bool:
        """Code of the module that the switch makes eager needs it: a traced function (or a
        helper it calls) calls ``.numpy()``, which fails in a graph (TFF204), and does not
        test ``tf.executing_eagerly()`` first. The switch is what makes the program run,
        not a debugging leftover, and removing it breaks the program (a clustering
        script's loss that plots its matrices; a ``train_step`` that logs
        ``loss.numpy()``)."""
        index = self.context.graph.index
        if index is None:
            return False
        return any(_calls_numpy(index.nodes[key]) for key in index.made_to_trace()
                   if key in index.nodes)

    def _block(self) -> Tuple[List[cst.CSTNode], int]:
        """The statements of the innermost block holding the call, and the call's position
        among them (script or cell order at module level)."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 2, -1, -1):
            block = ancestors[index]
            if isinstance(block, (cst.Module, cst.IndentedBlock)):
                body = list(block.body)
                if ancestors[index + 1] in body:
                    return body, body.index(ancestors[index + 1])
        return [], -1

    def _switched_off_later(self) -> bool:
        """A later statement of the same block (script or cell order) sets it back with
        ``run_functions_eagerly(False)``: a deliberate, bounded debugging section."""
        body, position = self._block()
        return any(self._sets_off(later) for later in body[position + 1:])

    def _announced(self) -> bool:
        """The same block warns or logs (``warnings.warn("TF now runs eagerly")``): the switch
        is deliberate and the slowdown is not silent."""
        body, position = self._block()
        return any(self._warns(other) for i, other in enumerate(body) if i != position)

    def _warns(self, statement: cst.CSTNode) -> bool:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not isinstance(call, cst.Call):
                continue
            qualified = self.context.qualified_name(call.func) or ""
            if qualified == "warnings.warn" or qualified.startswith(("logging.", "absl.logging.")):
                return True
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in _LOG_METHODS:
                return True
        return False

    def _sets_off(self, statement: cst.CSTNode) -> bool:
        for node in descendants(statement):
            if (isinstance(node, cst.Call)
                    and self.context.qualified_name(node.func) in EAGER_SWITCHES):
                value = self._switch_value(node)
                if isinstance(value, cst.Name) and value.value == "False":
                    return True
        return False

    @staticmethod
    def _switch_value(node: cst.Call) -> Optional[cst.BaseExpression]:
        for arg in node.args:
            if arg.keyword is None and not arg.star:
                return arg.value
            if arg.keyword is not None and arg.keyword.value == "run_eagerly":
                return arg.value
        return None

    def _in_test_or_guarded(self) -> bool:
        ancestors = self.context.ancestors
        for index, node in enumerate(ancestors[:-1]):
            if (isinstance(node, cst.If) and ancestors[index + 1] is not node.test
                    and not _is_main_guard(node.test)):
                return True
        return in_test_code(ancestors)
