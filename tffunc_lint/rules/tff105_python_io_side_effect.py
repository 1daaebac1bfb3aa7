"""TFF105 python-io-side-effect."""

import ast
import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ..cst_walk import children
from ..index import DATASET_CHAIN_METHODS, iter_statements
from ..names import assigned_names, ast_dotted_name, dotted_name
from ..rule import Rule
from ..tensor_taint import is_operation, is_tainted, tensor_parameters

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


#: Calls that turn their argument into text: ``str(x)`` of a tensor shows it symbolically.
_TEXT_CALLS = frozenset({"builtins.str", "builtins.repr", "builtins.format", "builtins.ascii"})
_TEXT_METHODS = frozenset({"format", "join", "format_map"})


def _shows_value(context, node: cst.BaseExpression) -> bool:
    """``node``, a logging argument, shows a tensor's value (not a static property): it is
    tainted, or text built from a tainted value (an f-string field, ``%`` or ``.format``
    arguments, ``str(x)``)."""
    if is_tainted(context, node):
        return True
    if isinstance(node, cst.FormattedString):
        return any(_shows_value(context, part.expression) for part in node.parts
                   if isinstance(part, cst.FormattedStringExpression))
    if isinstance(node, cst.ConcatenatedString):
        return _shows_value(context, node.left) or _shows_value(context, node.right)
    if isinstance(node, cst.BinaryOperation):
        return _shows_value(context, node.left) or _shows_value(context, node.right)
    if isinstance(node, cst.IfExp):
        return _shows_value(context, node.body) or _shows_value(context, node.orelse)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return any(_shows_value(context, element.value) for element in node.elements)
    if isinstance(node, cst.Dict):
        return any(_shows_value(context, element.value) for element in node.elements)
    if isinstance(node, cst.Call):
        func = node.func
        if (context.qualified_name(func) in _TEXT_CALLS
                or isinstance(func, cst.Attribute) and func.attr.value in _TEXT_METHODS):
            return any(_shows_value(context, arg.value) for arg in node.args)
    return False


# -- graph loops --------------------------------------------------------------------------------
#: TensorFlow operations that return a Python list or tuple: a ``for`` over one is unrolled.
_PYTHON_SEQUENCES = frozenset({
    "tensorflow.unstack", "tensorflow.split", "tensorflow.meshgrid", "tensorflow.shape_n",
    "tensorflow.dynamic_partition", "tensorflow.gradients", "tensorflow.nn.moments",
    "tensorflow.math.top_k", "tensorflow.nn.top_k", "tensorflow.unique", "tensorflow.while_loop",
    "tensorflow.linalg.eigh", "tensorflow.linalg.svd", "tensorflow.linalg.qr",
})
_DATASET_NAME = re.compile(r"(?:^|_)(?:ds|dataset)s?$", re.IGNORECASE)
_DATASET_WRAPPERS = frozenset({"builtins.iter", "builtins.enumerate", "builtins.zip"})
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _bindings(body: cst.CSTNode) -> Iterator[Tuple[cst.BaseExpression, cst.BaseExpression]]:
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
        elif isinstance(node, cst.NamedExpr):
            yield node.target, node.value
        elif isinstance(node, cst.For):
            yield node.target, node.iter
        stack.extend(children(node))


class _GraphLoops:
    """Which loops of one function AutoGraph turns into graph loops, as TFF501 decides:
    a ``for`` over ``tf.range(...)``, ``range()`` of a tensor, a ``tf.data`` dataset (or
    ``iter``/``enumerate``/``zip`` of one) or a tensor; a ``while`` on a tensor condition.
    Only a parameter that ``input_signature`` or a ``tf.Tensor`` annotation makes a tensor
    counts as one: a loop over another parameter may be over a Python list."""

    def __init__(self, context, function: cst.FunctionDef, is_method: bool):
        self.resolve = context.qualified_name
        signed = any(self._has_signature(d.decorator) for d in function.decorators)
        self.tensors: Set[str] = tensor_parameters(function.params, is_method, entry=signed)
        bindings = list(_bindings(function.body))
        changed = True
        while changed:  # names bound to tensors, in any order
            changed = False
            for target, value in bindings:
                names = set(assigned_names(target)) - self.tensors
                if names and self.is_tensor(value):
                    self.tensors |= names
                    changed = True

    def _has_signature(self, decorator: cst.BaseExpression) -> bool:
        return (isinstance(decorator, cst.Call)
                and self.resolve(decorator.func) == "tensorflow.function"
                and any(a.keyword is not None and a.keyword.value == "input_signature"
                        for a in decorator.args))

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """A TensorFlow operation's result, a name bound to one, or arithmetic, comparison or
        slicing of those; not the result of other calls (a layer may return a list)."""
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
        while isinstance(node, cst.Call):
            if (self.resolve(node.func) or "").startswith("tensorflow.data."):
                return True
            if not (isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in DATASET_CHAIN_METHODS):
                return False
            node = node.func.value
        if isinstance(node, cst.Name):
            return bool(_DATASET_NAME.search(node.value))
        if isinstance(node, cst.Attribute):
            return bool(_DATASET_NAME.search(node.attr.value))
        return False

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
        return self.is_dataset(iterable) or self.is_tensor(iterable)


def _in_graph_loop(context) -> bool:
    """The visited node is in the body of a graph loop of its own function."""
    ancestors: Sequence[cst.CSTNode] = context.ancestors
    enclosing: List[cst.CSTNode] = []  # loops whose body holds the node, innermost first
    function: Optional[cst.CSTNode] = None
    for index in range(len(ancestors) - 1, 0, -1):
        node = ancestors[index - 1]
        if isinstance(node, _FUNCTIONS):
            function = node
            break
        if isinstance(node, (cst.For, cst.While)) and ancestors[index] is node.body:
            enclosing.append(node)
    if not enclosing or not isinstance(function, cst.FunctionDef):
        return False
    position = index - 1
    owner = ancestors[position - 2] if position >= 2 else None  # ClassDef > block > def
    is_method = isinstance(owner, cst.ClassDef) and not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
        for d in function.decorators)
    cache: Dict[int, Tuple[cst.FunctionDef, _GraphLoops]] = context.fact(
        "tff105.loops", lambda _: {})
    found = cache.get(id(function))
    if found is None or found[0] is not function:
        found = (function, _GraphLoops(context, function, is_method))
        cache[id(function)] = found
    return any(found[1].is_graph_loop(loop) for loop in enclosing)


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
    Logging static trace-time information is not reported: a plain message, a configuration
    value, a layer name, or a tensor's static properties (`x.shape`, `x.dtype`, `x.name`,
    `x.device`, `x.ndim`, `x.shape[0]`, `x.shape.rank`, `len(x.shape)`). It is written once
    per trace, which is usually the intent. Logging a value is reported, including through
    `str(x)`. Values are followed as TFF203 follows them: the parameters of a function
    TensorFlow traces directly (except `self`, `*args`/`**kwargs`, and parameters with a
    literal default or an `int`/`float`/`bool`/`str` annotation), parameters annotated as
    `tf.Tensor`, results of TensorFlow operations, and names assigned from them; the
    unannotated parameters of a helper that traced code calls are not, so a value logged
    there is missed. A loop is a graph loop only when the analysis sees it iterate
    `tf.range`, `range()` of a tensor, a tensor, or a dataset (a `tf.data` chain, or a name
    such as `ds`/`dataset`); a loop over a parameter without `input_signature` or a
    `tf.Tensor` annotation is taken for a Python loop, and a message in a Python loop
    (over `range(3)` or a list of layers) is not reported. Loggers are recognised when they
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
        if message and not self.context.in_eager_branch():
            self.report(node, message)

    def _message(self, node: cst.Call) -> Optional[str]:
        func = node.func
        qualified = self.context.qualified_name(func)
        spelled = f"{dotted_name(func)}()"
        if qualified in _IO or (qualified or "").startswith(_SUBPROCESS):
            return f"{spelled} runs only while tf.function traces, not on every call; {_FIX}"
        if qualified and self._is_log_function(qualified):
            return self._log_message(node, spelled)
        if self._is_logger_call(func):
            return self._log_message(node, f"{cst.Module(body=[]).code_for_node(func)}()")
        return None

    def _log_message(self, node: cst.Call, spelled: str) -> Optional[str]:
        """Logging is reported when it shows a tensor's value or sits in a graph loop; static
        trace-time information (shapes, dtypes, configuration) is logged on purpose."""
        if any(_shows_value(self.context, arg.value) for arg in node.args):
            return (f"{spelled} logs a symbolic tensor (Tensor(\"...\")) once per trace, not "
                    f"its value on every call; {_VALUE_FIX}")
        if _in_graph_loop(self.context):
            return (f"{spelled} in a graph loop (tf.range, tensor or dataset) logs once while "
                    f"tracing, not on every iteration; {_LOOP_FIX}")
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
