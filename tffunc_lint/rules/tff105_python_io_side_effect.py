"""TFF105 python-io-side-effect."""

import ast
import re
from typing import FrozenSet, Optional

import libcst as cst

from ..eager_branches import in_eager_branch
from ..index import iter_statements
from ..names import ast_dotted_name, dotted_name
from ..rule import Rule

_FIX = "use tf.print(), tf.summary or tf.io.write_file, or wrap it in tf.py_function on purpose"
_LOG_FIX = "use tf.print() or tf.summary to report values on every call"

#: Functions that do input/output when called.
_IO = frozenset({
    "builtins.open", "builtins.input", "io.open", "os.system", "os.popen",
    "sys.stdout.write", "sys.stderr.write", "sys.stdout.writelines", "sys.stderr.writelines",
})
_SUBPROCESS = "subprocess."
#: Modules whose functions of these names emit a log record.
_LOGGING_MODULES = ("logging", "absl.logging", "tensorflow.logging")
_LOG_FUNCTIONS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "vlog", "log_every_n", "log_every_n_seconds", "log_first_n", "log_if",
})
#: Logger methods that emit a record.
_LOGGER_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
})
_LOGGER_FACTORIES = frozenset({
    "logging.getLogger", "tensorflow.get_logger", "absl.logging.get_absl_logger",
})


def _module_loggers(context) -> FrozenSet[str]:
    """Module-level names bound only to ``logging.getLogger(...)`` (or ``tf.get_logger()``)."""
    tree = context.tree
    if tree is None:
        return frozenset()
    loggers, others = set(), set()
    for statement in iter_statements(tree.body, into_scopes=False):
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
            continue
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        value = statement.value
        is_logger = (isinstance(value, ast.Call) and _resolve_ast(context, value.func)
                     in _LOGGER_FACTORIES)
        for target in targets:
            if isinstance(target, ast.Name):
                (loggers if is_logger else others).add(target.id)
    imported = {name for name, _ in context.graph.index.imports}
    return frozenset(loggers - others - imported)


def _resolve_ast(context, node: ast.expr) -> Optional[str]:
    dotted = ast_dotted_name(node)
    return context.names.resolve(dotted) if dotted else None


class PythonIoSideEffect(Rule):
    """Python I/O in traced code (files, logging, stdout, subprocesses) happens once per trace.

    ## What it does
    Flags `open(...)`, `input()`, `logging.*` calls and logger methods (`logger.info(...)`
    on a module-level `logger = logging.getLogger(...)`, `absl.logging`,
    `tf.compat.v1.logging`), `sys.stdout.write`/`sys.stderr.write`, `os.system`,
    `os.popen` and `subprocess.*` in code that TensorFlow traces.

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. Python I/O is not part
    of that graph: a log line is written once, on the first call (and again on each retrace),
    then never again; a file is read once and its content frozen into the graph; a command
    runs once. Values logged are symbolic tensors (`Tensor("x:0", ...)`), not numbers. Use
    graph operations, which run on every call: `tf.print`, `tf.summary`, `tf.io.read_file` /
    `tf.io.write_file`, or call Python on purpose through `tf.py_function`.

    ## Example
    ```python
    import logging

    import tensorflow as tf

    @tf.function
    def train_step(x):
        logging.info("loss: %s", x)
        return x * 2
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train_step(x):
        tf.print("loss:", x)
        return x * 2
    ```

    ## Known problems
    Logging once per trace is sometimes intended (a "tracing train_step" message, or logging
    static configuration such as shapes): keep it and add `# noqa: TFF105`. Loggers are
    recognised when they are module-level names bound to `logging.getLogger(...)` or
    `tf.get_logger()`; a logger kept in an attribute (`self.logger`) is not. Code inside
    `if tf.executing_eagerly():` never runs while tracing and is not flagged, nor is code run
    through `tf.py_function`.

    ## References
    - [Better performance with tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [`tf.print`](https://www.tensorflow.org/api_docs/python/tf/print)
    - [`tf.py_function`](https://www.tensorflow.org/api_docs/python/tf/py_function)
    """

    code = "TFF105"
    name = "python-io-side-effect"
    message = f"Python I/O runs only while tf.function traces, not on every call; {_FIX}"
    triggers = (re.compile(r"\b(?:open|input|system|popen)\s*\(|\blogging\s*\.|subprocess|"
                           r"\bstd(?:out|err)\s*\.|get_logger|getLogger"),)

    @classmethod
    def triggers_for(cls, context):
        prefixes = ("logging.", "absl.logging", "tensorflow.logging", "subprocess.", "io.open",
                    "os.system", "os.popen", "sys.")
        names = context.names.local_names_for(prefixes)
        loggers = context.fact("tff105.loggers", _module_loggers)
        return cls.triggers + tuple(re.compile(rf"\b{re.escape(name)}\s*[.(]")
                                    for name in (*names, *loggers))

    def visit_Call(self, node: cst.Call) -> None:
        message = self._message(node)
        if message and not in_eager_branch(self.context.ancestors, self.context.qualified_name):
            self.report(node, message)

    def _message(self, node: cst.Call) -> Optional[str]:
        func = node.func
        qualified = self.context.qualified_name(func)
        spelled = f"{dotted_name(func)}()"
        if qualified in _IO or (qualified or "").startswith(_SUBPROCESS):
            return f"{spelled} runs only while tf.function traces, not on every call; {_FIX}"
        if qualified and self._is_log_function(qualified):
            return (f"{spelled} logs only while tf.function traces (once per trace, showing "
                    f"symbolic tensors); {_LOG_FIX}")
        if self._is_logger_call(func):
            spelled = f"{cst.Module(body=[]).code_for_node(func)}()"
            return (f"{spelled} logs only while tf.function traces (once per trace, showing "
                    f"symbolic tensors); {_LOG_FIX}")
        return None

    @staticmethod
    def _is_log_function(qualified: str) -> bool:
        module, _, name = qualified.rpartition(".")
        return module in _LOGGING_MODULES and name in _LOG_FUNCTIONS

    def _is_logger_call(self, func: cst.BaseExpression) -> bool:
        """``logger.info(...)`` on a module-level logger, or ``logging.getLogger().info``."""
        if not isinstance(func, cst.Attribute) or func.attr.value not in _LOGGER_METHODS:
            return False
        receiver = func.value
        if isinstance(receiver, cst.Call):
            return self.context.qualified_name(receiver.func) in _LOGGER_FACTORIES
        if isinstance(receiver, cst.Name) and receiver.value not in self.context.local_names:
            return receiver.value in self.context.fact("tff105.loggers", _module_loggers)
        return False
