"""TFF105 python-io-side-effect."""

from __future__ import annotations

import ast
import re
from typing import FrozenSet, Optional

from ..analysis.lazy_libcst import cst

from ..analysis.module_index import iter_statements
from ..analysis.lazy_import import lazy_module
from ..analysis.names import ast_dotted_name, dotted_name
from ..analysis.patterns import words, lazy_compile
from ..rule import Rule

loop_kind = lazy_module("..analysis.loop_kind", __package__)
trace_output = lazy_module("..analysis.trace_output", __package__)
call_sites = lazy_module("..analysis.call_sites", __package__)

_FIX = "use tf.print(), tf.summary or tf.io.write_file, or wrap it in tf.py_function on purpose"
_VALUE_FIX = ("use tf.print() (or tf.summary) for the value; static shapes, dtypes and names "
              "may stay in logging")
_LOOP_FIX = "use tf.print() for a message on every iteration, or log once before the loop"

#: Functions that do input/output when called.
_IO = frozenset({
    "builtins.open", "builtins.input", "io.open", "os.system", "os.popen",
    "sys.stdout.write", "sys.stderr.write", "sys.stdout.writelines", "sys.stderr.writelines",
})
_SUBPROCESS = "subprocess."
_OPEN = frozenset({"builtins.open", "io.open"})
#: Modules whose functions of these names emit a log record.
_LOGGING_MODULES = ("logging", "absl.logging", "tensorflow.logging")
_LOG_FUNCTIONS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "vlog", "log_every_n", "log_every_n_seconds", "log_first_n", "log_if",
})
#: Levels that report a problem: under a static condition, a check made while tracing.
_WARNING_LEVELS = frozenset({"warning", "warn", "error", "exception", "critical", "fatal"})
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


def _writes(node: cst.Call) -> bool:
    """``open(path, "w")``: the mode, a string literal, writes, appends or creates. A read
    (no mode, ``"r"``, ``"rb"``) or a mode the code computes is not known to write."""
    mode = (call_sites.argument_at(node, ("pos", 1))
            or call_sites.argument_at(node, ("kw", "mode")))
    value = mode.evaluated_value if isinstance(mode, cst.SimpleString) else None
    return isinstance(value, str) and any(letter in value for letter in "wax+")


class PythonIoSideEffect(Rule):
    """Python I/O in traced code (files, stdout, subprocesses, logged values) happens once per trace.

    ## What it does
    Flags `open(...)`, `input()`, `sys.stdout.write`/`sys.stderr.write`, `os.system`,
    `os.popen` and `subprocess.*` in code that TensorFlow traces. Flags `logging.*` calls and
    logger methods (`logger.info(...)` on a module-level `logger = logging.getLogger(...)`,
    `absl.logging`, `tf.compat.v1.logging`) there only when they log a tensor's value (an
    argument, keyword argument, f-string field or `%`/`.format` argument derived from a
    traced input or a TensorFlow operation) or sit in a loop that AutoGraph turns into a
    graph loop (`for` over `tf.range(...)`, a tensor or a dataset; `while` on a tensor).

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. Python I/O is not part
    of that graph: a file is read once and its content frozen into the graph; a command runs
    once; a line is written once, on the first call (and again on each retrace), then never
    again. A logged tensor shows as a symbolic `Tensor("add:0", shape=(), dtype=float32)`,
    never as a number, and a message inside a graph loop is written once, while the loop body
    is traced, not on every iteration. Use graph operations, which run on every call:
    `tf.print`, `tf.summary`, `tf.io.read_file` / `tf.io.write_file`, or call Python on
    purpose through `tf.py_function`.

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
    import logging

    import tensorflow as tf

    @tf.function
    def train_step(x):
        logging.info("tracing train_step for shape %s, dtype %s", x.shape, x.dtype)
        tf.print("loss:", x)
        return x * 2
    ```

    ## Known problems
    Logging in code that Python traces once and never calls is not reported: a dataset
    function (`Dataset.map(parse)`, decorated or not, that Python calls nowhere but in the
    module's straight-line code) and a signature factory's
    `@tf.function(input_signature=...)` that its enclosing function returns without calling
    it, or a function or method with an `input_signature` that a program (a script nothing
    imports) exports (`tf.saved_model.save`, `signatures=`) and calls nowhere (traced for
    export, then served without Python): what it logs while tracing is all it logs, the structure of what it
    serves. A file opened for reading (no mode, `"r"`,
    `"rb"`, or a mode the code computes) is not reported: it gives the same content on
    every call unless the program rewrites it, as with a configuration read to build a
    parsing spec; a file opened to write, append or create (`"w"`, `"a"`, `"x"`, `"+"`) is.
    I/O in one-time set-up is not reported: it is meant to run once (a plugin compiled and
    cached on first use, after `if key in cache: return cache[key]`; a file read under
    `if self.vocab is None:`). Logging static trace-time information is not reported: a plain message, a configuration
    value, a layer name, or a tensor's static properties (`x.shape`, `x.dtype`, `x.name`,
    `x.device`, `x.ndim`, `x.shape[0]`, `x.shape.rank`, `len(x.shape)`). It is written once
    per trace, which is usually the intent, also in a graph loop: the static properties are
    the same on every pass. Logging a value is reported, including through
    `str(x)`. Values are followed as TFF203 follows them: the parameters of a function
    TensorFlow traces directly (except `self`, `*args`/`**kwargs`, and parameters with a
    literal default or an `int`/`float`/`bool`/`str` annotation), parameters annotated as
    `tf.Tensor`, results of TensorFlow operations, and names assigned from them; the
    unannotated parameters of a helper that traced code calls are not, so a value logged
    there is missed. A loop is a graph loop only when the analysis sees it iterate
    `tf.range`, `range()` of a tensor, a tensor, or a dataset (a `tf.data` chain, or a name
    such as `ds`/`dataset`); a loop over a parameter without `input_signature` or a
    `tf.Tensor` annotation, or over one annotated as a Python container (`List[tf.Tensor]`),
    is taken for a Python loop, and a message in a Python loop (over `range(3)` or a list of
    layers) is not reported. A warning or error under `if` tests that are Python values while
    tracing (`if x.shape.rank == 0: logging.warning("got %s", x)`) checks what is being traced
    and is not reported even when it shows a tensor; under a tensor test it is. Loggers are
    recognised when they
    are module-level names bound to `logging.getLogger(...)` or `tf.get_logger()`; a logger
    kept in an attribute (`self.logger`) is not. Code inside `if tf.executing_eagerly():`
    never runs while tracing and is not flagged, nor is code run through `tf.py_function`.

    ## References
    - [Better performance with tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [`tf.print`](https://www.tensorflow.org/api_docs/python/tf/print)
    - [`tf.py_function`](https://www.tensorflow.org/api_docs/python/tf/py_function)
    - [AutoGraph reference: control flow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md)
    """

    code = "TFF105"
    name = "python-io-side-effect"
    message = f"Python I/O runs only while tf.function traces, not on every call; {_FIX}"
    triggers = (lazy_compile(words(["open", "input", "system", "popen"]) + r"\s*\(|"
                             + words(["logging", "stdout", "stderr"]) + r"\s*\.|subprocess|"
                             r"get_logger|getLogger"),)

    @classmethod
    def triggers_for(cls, context):
        prefixes = ("logging.", "absl.logging", "tensorflow.logging", "subprocess.", "io.open",
                    "os.system", "os.popen", "sys.")
        names = context.names.local_names_for(prefixes)
        loggers = context.fact("tff105.loggers", _module_loggers)
        names = (*names, *loggers)
        return cls.triggers + ((re.compile(words(names) + r"\s*[.(]"),) if names else ())

    def visit_Call(self, node: cst.Call) -> None:
        message = self._message(node)
        if (message and not self.context.in_eager_branch()
                and not self.context.in_one_time_setup()):
            self.report(node, message)

    def _message(self, node: cst.Call) -> Optional[str]:
        func = node.func
        qualified = self.context.qualified_name(func)
        spelled = f"{dotted_name(func)}()"
        if qualified in _OPEN and not _writes(node):
            return None  # a read gives the same content on every call
        if qualified in _IO or (qualified or "").startswith(_SUBPROCESS):
            return f"{spelled} runs only while tf.function traces, not on every call; {_FIX}"
        if qualified and self._is_log_function(qualified):
            return self._log_message(node, spelled)
        if self._is_logger_call(func):
            return self._log_message(node, f"{cst.Module(body=[]).code_for_node(func)}()")
        return None

    def _log_message(self, node: cst.Call, spelled: str) -> Optional[str]:
        """Logging is reported when it shows a tensor's value or sits in a graph loop; static
        trace-time information (shapes, dtypes, configuration) is logged on purpose, and so
        is a warning about a condition decided while tracing."""
        if (self._static_warning(node) or trace_output.announces_tracing(node) or trace_output.labelled_static(node)
                or trace_output.traced_once_by_design(self.context)):
            return None
        if any(trace_output.shows_tensor_value(self.context, arg.value) for arg in node.args):
            return (f"{spelled} logs a symbolic tensor (Tensor(\"...\")) once per trace, not "
                    f"its value on every call; {_VALUE_FIX}")
        if loop_kind.in_graph_loop(self.context) and not trace_output.shows_static_only(node):
            return (f"{spelled} in a graph loop (tf.range, tensor or dataset) logs once while "
                    f"tracing, not on every iteration; {_LOOP_FIX}")
        return None

    def _static_warning(self, node: cst.Call) -> bool:
        """A warning (or error) under ``if`` tests that are all Python values while tracing
        (``if loss.shape.rank == 0: logging.warning(...)``): a check of what is being
        traced, made once per trace by design (see ``trace_output``)."""
        func = node.func
        level = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        return level in _WARNING_LEVELS and trace_output.under_static_check(self.context)

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
