"""One module's index, built from its ``ast`` tree in a single pass.

The index records what graph-context detection needs and nothing more: imports, functions
and classes with their line ranges, the *entry points* that make a function traced
(``@tf.function``, ``tf.function(f)``, ``Dataset.map(f)``, ``tf.map_fn(f, ...)`` …) and the
*call edges* out of every function. It holds no ``ast`` node once pickled, so worker
processes can send it to the process that joins the modules of a project into one call graph
(``graph_context``).

Functions are keyed so the same function can be found again in a LibCST tree:
``("def", line of the def keyword, name)`` or ``("lambda", line, column in characters)``.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
import sys
import zlib
from collections import ChainMap
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import (Dict, FrozenSet, Iterable, Iterator, List, Mapping, NamedTuple, Optional,
                    Sequence, Set, Tuple, TypeVar, Union)

from . import guards
from .names import (ALIAS, FALLBACK, IMPORT, OTHER, TF_FUNCTION, Binding, NameTable,
                    ast_dotted_name, canonical, function_body_names, function_local_names,
                    parameter_default)
from .patterns import words, lazy_compile
from .test_code import is_test_module
from .ast_walk import child_nodes, walk_nodes
from .tensorflow_versions import names_layers_with_seed, removed_before, says_keras_3

FunctionKey = Tuple
#: ("local", key) | ("method", class qualname, name) | ("super", class qualname, name)
#: | ("external", qualified name) | ("held", "Class.attribute", method name)
Target = Tuple
_V = TypeVar("_V")

INIT_SCOPE = "tensorflow.init_scope"
#: Callables run eagerly by TensorFlow, never traced: argument 0 or ``func=``.
PY_FUNCTIONS = frozenset({
    "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func",
    "tensorflow.compat.v1.py_func",
})
_PY_FUNCTION_NAMES = frozenset(name.rpartition(".")[2] for name in PY_FUNCTIONS)


def is_py_function(qualified: Optional[str], attribute: Optional[str]) -> bool:
    """A call of ``tf.py_function`` & co.: by its resolved name, or by the attribute name
    when the receiver is not TensorFlow as far as imports tell (``tf`` bound by ``try:
    import tensorflow as tf`` with a fallback, or re-exported by a project module)."""
    if qualified in PY_FUNCTIONS:
        return True
    return attribute in _PY_FUNCTION_NAMES and not (qualified or "").startswith("tensorflow.")


#: Graph-building APIs: canonical name → (spelling for messages, positions, keywords) of
#: the callables they trace, even when called eagerly.
GRAPH_APIS = {
    "tensorflow.vectorized_map": ("tf.vectorized_map", (0,), ("fn",)),
}
#: The control-flow APIs, and ``strategy.run``: called eagerly, they run their callables as
#: Python (the branch the predicate picks, a Python loop, replica threads); called in traced
#: code, they trace them, with tensors for arguments (an ``Entry`` ``within`` the caller).
CONTROL_FLOW_APIS = {
    "tensorflow.map_fn": ("tf.map_fn", (0,), ("fn",)),
    "tensorflow.while_loop": ("tf.while_loop", (0, 1), ("cond", "body")),
    "tensorflow.cond": ("tf.cond", (1, 2), ("true_fn", "false_fn")),
    "tensorflow.switch_case": ("tf.switch_case", (1,), ("branch_fns",)),
    "tensorflow.scan": ("tf.scan", (0,), ("fn",)),
    "tensorflow.foldl": ("tf.foldl", (0,), ("fn",)),
    "tensorflow.foldr": ("tf.foldr", (0,), ("fn",)),
}
STRATEGY_METHODS = {"run": ((0,), ("fn",)), "experimental_run_v2": ((0,), ("fn",))}
DATASET_METHODS = {
    "map": ((0,), ("map_func",)),
    "filter": ((0,), ("predicate",)),
    "flat_map": ((0,), ("map_func",)),
    "interleave": ((0,), ("map_func",)),
    "reduce": ((1,), ("reduce_func",)),
    "scan": ((1,), ("scan_func",)),
}
#: Methods that return a dataset again, so ``ds.batch(8).map(f)`` is a dataset chain.
DATASET_CHAIN_METHODS = frozenset(DATASET_METHODS) | {
    "batch", "padded_batch", "unbatch", "rebatch", "shuffle", "repeat", "prefetch", "cache",
    "take", "skip", "shard", "concatenate", "zip", "apply", "with_options", "enumerate",
    "window", "ragged_batch", "bucket_by_sequence_length", "group_by_window", "ignore_errors",
    "take_while", "unique", "rejection_resample", "sample_from_datasets", "choose_from_datasets",
    "from_tensor_slices", "from_tensors", "from_generator", "range", "list_files", "load",
}
#: Keras and TFDS functions that return a ``tf.data.Dataset`` (tfds.load: see the indexer).
_DATASET_FACTORIES = (
    "keras.utils.image_dataset_from_directory", "keras.utils.text_dataset_from_directory",
    "keras.utils.audio_dataset_from_directory", "keras.utils.timeseries_dataset_from_array",
    "keras.preprocessing.image_dataset_from_directory",
    "keras.preprocessing.text_dataset_from_directory",
    "keras.preprocessing.timeseries_dataset_from_array",
)
DATASET, MANY = "dataset", "datasets"
#: A name that reads as a dataset (``train_ds``, ``dataset``), where ``dataset_names`` holds.
DATASET_NAME = lazy_compile(r"(?:^|_)(?:ds|dataset)s?$", re.IGNORECASE)
#: Other libraries' datasets, whose ``.map`` is not tf.data's (PaddlePaddle's and
#: PaddleNLP's, MindSpore's too).
_OTHER_DATASETS = ("datasets.", "torch.utils.data", "torchdata", "paddle", "mindspore")
#: Keras methods that Keras traces (``fit``/``evaluate``/``predict`` and graph-mode calls).
KERAS_GRAPH_METHODS = ("call", "train_step", "test_step", "predict_step")
#: Keras's base class of learning-rate schedules, whose ``__call__`` optimizers call when
#: they apply gradients (the last part of its qualified names).
SCHEDULE_BASE = "LearningRateSchedule"
_KERAS_STEPS = frozenset(KERAS_GRAPH_METHODS[1:])
#: Model methods through which Keras runs the step functions in graphs of its own.
KERAS_RUNS = frozenset({"fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                        "predict_on_batch"})
_STEPS_AND_RUNS = _KERAS_STEPS | KERAS_RUNS
#: Methods through which a call runs a model (``net.call(x)``, ``net.predict(x)``).
_MODEL_CALLS = _STEPS_AND_RUNS | {"call", "__call__"}
#: Of those, the runs that train or evaluate: Keras refuses them before ``compile()``,
#: which sets whether they run eagerly (``predict`` and exports need no ``compile()``).
KERAS_TRAINING = frozenset({"fit", "evaluate", "train_on_batch", "test_on_batch"})
#: Model methods that trace ``call`` to export it (a SavedModel).
_KERAS_EXPORTS = frozenset({"save", "export"})
_KERAS_RUNS_AND_EXPORTS = KERAS_RUNS | _KERAS_EXPORTS
_CUSTOM_GRADIENT = "tensorflow.custom_gradient"
#: Asking Keras to run a model eagerly (``compile(..., run_eagerly=True)``, an attribute).
_RUN_EAGERLY = words(["run_eagerly"]) + r"\s*=\s*True\b"
RUN_EAGERLY = lazy_compile(_RUN_EAGERLY)


def run_eagerly_line(tree: ast.Module, text: str) -> Optional[int]:
    """The first line where the module asks Keras to run eagerly (``compile(...,
    run_eagerly=True)``, ``model.run_eagerly = True``), if it does; not in a comment or a
    string. A parameter's default (``def compile(self, optimizer, loss,
    run_eagerly=True)``) asks only if the function reads the parameter (passes it on to
    Keras): one it never reads asks nothing."""
    if not RUN_EAGERLY.search(text):
        return None
    lines = []
    for node in walk_nodes(tree):
        if isinstance(node, ast.Call):
            lines += [keyword.value.lineno for keyword in node.keywords
                      if keyword.arg == "run_eagerly" and _is_true(keyword.value)]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _is_true(node.value) and any(
                    (target.attr if isinstance(target, ast.Attribute) else
                     getattr(target, "id", None)) == "run_eagerly" for target in targets):
                lines.append(node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            default = parameter_default(node, "run_eagerly")[1]
            if _is_true(default) and any(
                    isinstance(inner, ast.Name) and inner.id == "run_eagerly"
                    for statement in node.body for inner in walk_nodes(statement)):
                lines.append(default.lineno)
    return min(lines) if lines else None


def _is_true(node: Optional[ast.expr]) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


#: Keras's ``fit``, called by a class's own: ``super().fit(...)``, ``keras.Model.fit(self,
#: ...)``.
_KERAS_FIT = lazy_compile(r"\bsuper\s*\([^)]*\)\s*\.\s*fit\s*\(|\.fit\s*\(\s*self\b")
_EAGER_CLASS = lazy_compile(words(["dynamic"]) + r"\s*=\s*True|" + _RUN_EAGERLY)
#: ``tf.config.run_functions_eagerly(True)``: tf.function off for the whole process. In a
#: class's constructor (a bridge to host code that needs values), Keras runs the instance's
#: methods eagerly; left in a script, TFF406 reports it. Starts with a literal, so the regex
#: engine can skip ahead (a leading lookbehind made this search 25 times slower).
EAGER_SWITCH_ON = lazy_compile(r"run_functions_eagerly\s*\(\s*(?:run_eagerly\s*=\s*)?True\b")
#: ``tf.config.run_functions_eagerly(...)`` with anything but ``True``: turned off again.
EAGER_SWITCH_OFF = lazy_compile(r"run_functions_eagerly\s*\(\s*(?:run_eagerly\s*=\s*)?(?!True\b)\S")
#: The switch, as the names resolve, and its deprecated spelling.
EAGER_SWITCH = "tensorflow.config.run_functions_eagerly"
EAGER_SWITCHES = frozenset({EAGER_SWITCH, "tensorflow.config.experimental_run_functions_eagerly"})


def _switches_eager_on(statement: ast.stmt, names: NameTable) -> bool:
    """``tf.config.run_functions_eagerly(True)`` as a statement of its own."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    call = statement.value
    dotted = ast_dotted_name(call.func)
    if not dotted or names.resolve(dotted, line=statement.lineno) not in EAGER_SWITCHES:
        return False
    value = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "run_eagerly"), None)
    return _is_true(value)


#: TensorFlow 1's API, as the names resolve (``tf.compat.v1.Session`` as ``tf.Session``):
#: ``tf.enable_eager_execution()`` and ``tf.contrib`` are TensorFlow 1's alone; sessions and
#: placeholders run graphs built the TensorFlow 1 way; ``disable_v2_behavior()`` and
#: ``disable_eager_execution()`` turn a process back to graph mode.
_TF1_ONLY = frozenset({
    "tensorflow.enable_eager_execution", "tensorflow.Session", "tensorflow.InteractiveSession",
    "tensorflow.placeholder", "tensorflow.ConfigProto", "tensorflow.disable_v2_behavior",
    "tensorflow.disable_eager_execution",
})
_TF1_TEXT = lazy_compile(
    words(["enable_eager_execution", "Session", "placeholder", "ConfigProto", "contrib",
           "disable_v2_behavior", "disable_eager_execution"]) + r"\b")


def _uses_tf1(tree: ast.Module, names: NameTable) -> bool:
    """The module names TensorFlow 1's API (``_TF1_ONLY``, ``tf.contrib``)."""
    for node in walk_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in _TF1_ATTRIBUTES:
            dotted = ast_dotted_name(node)
            qualified = names.resolve(dotted, line=node.lineno) if dotted else None
            if qualified and (qualified in _TF1_ONLY or _contrib(qualified)):
                return True
    return False


def _contrib(qualified: str) -> bool:
    return qualified == "tensorflow.contrib" or qualified.startswith("tensorflow.contrib.")


_TF1_ATTRIBUTES = frozenset(name.rpartition(".")[2] for name in _TF1_ONLY) | {"contrib"}


def _eager_switches(tree: ast.Module, names: NameTable) -> Tuple[bool, bool]:
    """Whether the module turns ``tf.function`` off for the process (see
    ``_switches_eager_on``) as it is imported, and as it runs as a program (its main
    guard). A call of a module-level function counts when the function switches before it
    calls anything (``def train(): tf.config.run_functions_eagerly(True)``, then
    ``train()``): what the call runs runs after the switch."""
    switching = {node.name for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and _switches_first(node.body, names)}

    def switches(statement: ast.stmt) -> bool:
        if _switches_eager_on(statement, names):
            return True
        call = statement.value if isinstance(statement, ast.Expr) else None
        return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in switching)

    on_import = any(switches(statement) for statement in tree.body)
    as_program = any(switches(inner) for statement in tree.body if is_main_guard(statement)
                     for inner in statement.body)
    return on_import, as_program


def _switches_first(body: Sequence[ast.stmt], names: NameTable) -> bool:
    """A statement of ``body`` turns ``tf.function`` off, and no statement before it calls
    anything."""
    for statement in body:
        if _switches_eager_on(statement, names):
            return True
        if any(node.__class__ is ast.Call for node in walk_nodes(statement)):
            return False
    return False


CALLED, PASSED = "called from", "passed to a call in"
#: Where Keras's own model classes come from, as the index resolves imports.
KERAS_MODULES = ("keras.", "tensorflow.keras.", "tensorflow.python.keras.", "tf_keras.")
#: Libraries none of whose classes are Keras models (TensorFlow's own, but for Keras;
#: TensorFlow Probability's distributions and bijectors; the estimators of scikit-learn and
#: its kin, whose ``fit``/``predict`` run no graph).
NOT_KERAS = ("tensorflow.", "tensorflow_probability.distributions.",
             "tensorflow_probability.bijectors.", "sklearn.", "xgboost.", "lightgbm.",
             "catboost.", "statsmodels.", "torch.", "scipy.", "numpy.", "pandas.")


def may_trace(text: str, tree: Optional[ast.Module] = None,
              extra: FrozenSet[str] = frozenset()) -> bool:
    """Whether a module linted on its own may have traced code, judged from its text: each
    way in names a word of its own in the source. ``tf.function`` in any spelling (as a
    decorator, a call, in a project decorator or a wrapper that hands its parameter on)
    names ``function`` in code; a graph API its name; a ``Dataset`` method is an attribute
    (``.map``); Keras runs methods defined under their names (``def call``), and the
    ``__call__`` of a class derived from ``LearningRateSchedule`` (named in its bases); the
    ``extra-traced-decorators`` are imported or written under their last name. When
    ``function`` is the only such word, ``tree`` (the module's ``ast``) tells whether code
    names it or only prose does ("this function returns"). False: the module has no traced
    code unless another module calls into it."""
    pattern = _TRACE_WORDS.get(extra)
    if pattern is None:
        names = {*GRAPH_APIS, *extra} - {TF_FUNCTION}
        # ``def`` without ``\b`` before it: a pattern that starts with a literal is searched
        # for that literal (a thirtieth of the time); the word's start is checked below.
        pattern = _TRACE_WORDS[extra] = re.compile("|".join(
            [re.escape(name.rpartition(".")[2]) for name in sorted(names)]
            + [_DATASET_CALL.pattern, SCHEDULE_BASE,
               r"def\s+(?:%s)\b" % "|".join(KERAS_GRAPH_METHODS)]))
    for found in pattern.finditer(text):
        start = found.start()
        if not (found.group().startswith("def") and start and _is_word_char(text[start - 1])):
            return True
    word = TF_FUNCTION.rpartition(".")[2]
    if word not in text:
        return False
    return tree is None or _names_word(tree, word, text)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_word(node: ast.AST, word: str) -> bool:
    cls = node.__class__
    return (cls is ast.Name and node.id == word or cls is ast.Attribute and node.attr == word
            or cls is ast.alias and word in (node.name, node.asname))


def _names_word(tree: ast.Module, word: str, text: str) -> bool:
    """Some name, attribute or import of ``tree`` is ``word``. Walks only into the nodes
    whose lines hold the word (a docstring's or a comment's mention leaves the rest of the
    module unvisited: walking every module named "function" in prose took a sixth of a
    lint of modules on their own)."""
    if text.count("\r") != text.count("\r\n"):  # lines ended by "\r" alone: walk it all
        return any(_is_word(node, word) for node in walk_nodes(tree))
    lines, line, at = [], 1, 0  # the lines that hold the word, in part of a longer one too
    start = text.find(word)
    while start >= 0:
        line += text.count("\n", at, start)
        at = start
        if not lines or lines[-1] != line:
            lines.append(line)
        start = text.find(word, start + len(word))
    todo: List[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if _is_word(node, word):
            return True
        for child in child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is not None:
                decorators = getattr(child, "decorator_list", None)
                if decorators:  # above the ``def``: lines of the definition's too
                    first = decorators[0].lineno
                number = bisect.bisect_left(lines, first)
                if number == len(lines) or lines[number] > child.end_lineno:
                    continue  # no line of the child's holds the word
            todo.append(child)
    return False


_TRACE_WORDS: Dict[FrozenSet[str], "re.Pattern[str]"] = {}
#: A call of a ``Dataset`` method that takes a function, as ``may_trace`` finds one.
_DATASET_CALL = lazy_compile(r"\.[\s\\]*(?:%s)\b" % "|".join(DATASET_METHODS))

#: Calls that run the function handed to them in another process or thread, or at exit:
#: ``ctx.Process(target=fn)``, ``threading.Thread(target=fn)``, ``executor.submit(fn)``;
#: or as Python, outside any trace: ``tf.data.Dataset.from_generator(gen, ...)`` iterates
#: the generator ``gen`` returns in Python, also when a traced function makes the dataset.
_RUNS_ELSEWHERE = frozenset({
    "Process", "Thread", "Timer", "submit", "apply_async", "map_async", "register",
    "from_generator"})

#: A call that runs the builder handed to it once and caches what it returns:
#: ``tf.compat.v1.keras.utils.get_or_create_layer("name", self.build_model)``, or any
#: function whose name says it gets or creates (``_get_or_create_slot(key, make)``).
_ONCE_CALLEE = lazy_compile(r"(?:^|[._])get_or_(?:create|make|build)", re.IGNORECASE)
ONCE = ("once",)


def _passed_value(argument: ast.expr, params: Mapping[str, Tuple]) -> Union[bool, str, None]:
    """An argument as ``FunctionInfo.edge_args`` keeps it."""
    cls = argument.__class__
    if cls is ast.Constant:
        return argument.value if argument.value.__class__ is bool else None
    if cls is ast.Name and (argument.id in params or argument.id + guards.IS_NONE in params):
        return argument.id
    return None


def _flags(conditions: Sequence[Tuple]) -> Tuple[Tuple[str, bool], ...]:
    """The flags of ``self`` among a scope's guards (``("flag", "self.x", False)``); not
    the function's parameters, which the functions it hands on do not see."""
    return tuple(sorted({(c[1], c[2]) for c in conditions if c[0] == "flag" and "." in c[1]}))


def _required_positional(args: ast.arguments) -> int:
    """How many positional parameters a call must fill (``self`` included)."""
    positional = len(args.posonlyargs) + len(args.args)
    return positional - len(args.defaults)


def _takes_one_batch(args: ast.arguments) -> bool:
    """A method Keras can call as a step: with the batch as its one argument (``self``
    included, two positional parameters at least, or ``*args``, and no more required)."""
    positional = len(args.posonlyargs) + len(args.args)
    return _required_positional(args) <= 2 and (positional >= 2 or args.vararg is not None)


def _takes_nothing(args: ast.arguments) -> bool:
    """A method that takes no argument besides ``self`` (``def call(self)`` that builds and
    returns a functional model): Keras, which passes the inputs, cannot call it."""
    return (len(args.posonlyargs) + len(args.args) <= 1 and args.vararg is None
            and not args.kwonlyargs and args.kwarg is None)


def def_key(line: int, name: str) -> FunctionKey:
    return ("def", line, name)


def lambda_key(line: int, column: int) -> FunctionKey:
    return ("lambda", line, column)


@dataclass
class FunctionInfo:
    """A ``def`` or an entry-point lambda."""

    key: FunctionKey
    qualname: str
    region: Tuple[int, int]
    """Lines to parse to see the whole function: a def itself, or what encloses a lambda."""
    class_qualname: Optional[str] = None
    start: Tuple[int, int] = (0, 0)
    """Where the function's source starts (first decorator), to order functions by."""
    wraps_tf_function: bool = False
    """It returns ``tf.function(...)``: a project decorator such as ``common.function``."""
    edges: List[Tuple[Target, int, str]] = field(default_factory=list)
    """(what it calls, line, CALLED or PASSED)."""
    fresh_edges: Set[int] = field(default_factory=set)
    """Edges (by position) that call a method on an object this function made itself
    (``registry = Registry(); registry.insert(...)``): the method's ``self`` is new."""
    edge_guards: Dict[int, Tuple[Tuple, ...]] = field(default_factory=dict)
    """For an edge (by position in ``edges``) under tests the call graph must settle: any of
    ``("pred", callee, polarity)`` (skipped: untraced if the callee is such a predicate),
    ``("init", attributes)`` or ``("init-call", callee)`` (one-time initialisation when the
    called function sets one of the attributes the test checks)."""
    predicate: Optional[Tuple] = None
    """It tells whether code is traced: ``(polarity,)`` or ``(polarity, wanted, callee)``
    (see ``guards``)."""
    init_test: FrozenSet[str] = frozenset()
    """It returns a one-time-initialisation test of these attributes (``return not
    self._ready``)."""
    writes: Set[str] = field(default_factory=set)
    """Attributes of ``self`` it assigns."""
    guard_calls: Dict[str, Target] = field(default_factory=dict)
    """No-argument calls in its tests, by spelling, for predicates to be looked up."""
    runs_eagerly: bool = False
    """Decorated with ``@tf.py_function(...)``: Python runs it eagerly, never traced."""
    custom_gradient: bool = False
    """Decorated with ``@tf.custom_gradient``: the gradient function it returns runs where
    the gradient is computed, in graph context when this function is."""
    eager_params: Set[int] = field(default_factory=set)
    """Positions of its parameters that it (or a function nested in it) hands to
    ``tf.py_function``: a function passed there runs eagerly (``def wrap(func): return
    tf.py_function(func, ...)``)."""
    traced_params: Set[object] = field(default_factory=set)
    """The parameters it hands to ``tf.function`` or another graph API (``def compile_step(
    fn): return tf.function(fn)``), as a caller passes them: positions counted without
    ``self``, and names for keyword arguments. A function passed there is traced."""
    traced_param_apis: Dict[object, str] = field(default_factory=dict)
    """For each of ``traced_params``, the API that traces it (``Dataset.map(...)``)."""
    outer_aliases: Dict[str, str] = field(default_factory=dict)
    """Tests that enclosing functions bind to names it reads (``use_xla = not
    tf.executing_eagerly()``), as source text."""
    flag_params: Dict[str, Tuple[Optional[int], bool]] = field(default_factory=dict)
    """Its parameters that are flags: a ``True``/``False`` default, never rebound in its
    body (``def set_width(model, widths, actual=False)``), each as name → (position as a
    caller passes it, without ``self``, or None for a keyword-only one; the default); and
    those whose default is None, as the flag ``<name> is None`` (``guards.IS_NONE``), True
    by default. Empty for a function whose decorators may change what its callers pass."""
    calls_objects: bool = False
    """It calls something that is neither a function the index knows nor a library's
    (``model(x)``, ``net.call(x)``, ``layers[i](x)``, a parameter): it may run a model,
    which the call graph has no edge for. ``self.encoder(x)`` is an edge to a method the
    class may not have (see ``ProjectGraph.resolve``)."""
    edge_args: Dict[int, Union[Tuple, int]] = field(default_factory=dict)
    """For a call (an edge by position, see ``edges``): what it passes, as ``(positional,
    keywords, open)``, each value ``True``/``False`` written as such, the name of one of
    this function's ``flag_params`` (passed on), or None (anything else); ``open`` when
    ``*args`` or ``**kwargs`` may pass more. Most calls pass only positional arguments of
    no known value: just their number. None for a call through a class
    (``Net.build(self, ...)``)."""

    # Most functions leave most of these collections empty, and the process that joins a
    # project holds every module's functions: an empty one is not pickled, and an unpickled
    # function shares one immutable empty collection for each (an index is complete, and
    # read only, once built).
    def __getstate__(self):
        return {name: value for name, value in self.__dict__.items()
                if value or name not in _SHARED_EMPTY}

    def __setstate__(self, state):
        # Set in the fields' order, as ``__init__`` sets them, so that the instances share
        # one table of keys (5% of the unpickled indexes' memory).
        self.__dict__.update({name: state[name] if name in state else _SHARED_EMPTY[name]
                              for name in _FIELD_ORDER})


#: One empty, immutable collection for each of ``FunctionInfo``'s that are mostly empty.
_SHARED_EMPTY = {
    "edges": (), "fresh_edges": frozenset(), "edge_guards": MappingProxyType({}),
    "writes": frozenset(), "guard_calls": MappingProxyType({}), "eager_params": frozenset(),
    "traced_params": frozenset(), "traced_param_apis": MappingProxyType({}),
    "outer_aliases": MappingProxyType({}), "init_test": frozenset(),
    "flag_params": MappingProxyType({}), "edge_args": MappingProxyType({})}
_FIELD_ORDER = tuple(f.name for f in fields(FunctionInfo))


@dataclass
class ClassInfo:
    qualname: str
    bases: List[Target]
    methods: Dict[str, FunctionKey]
    first_line: int
    last_line: int
    eager: bool
    trains_itself: bool = False
    """It defines a ``fit`` of its own that does not hand over to Keras's (see
    ``trained_by_own_loop``)."""
    builds_functional: bool = False
    """A method of its own runs ``call`` on symbolic inputs and makes a functional model of
    the result (``inputs = keras.Input(shape); return keras.Model(inputs,
    self.call(inputs))``): what Keras trains is that model, made of the layers ``call``
    made once (see ``_Indexer._builds_functional``)."""
    assigned: Tuple[str, ...] = ()
    """The attributes of ``self`` that the class's methods assign (``FunctionInfo.writes``),
    sorted: on an object of the class, a call of one of these names calls what was
    assigned, not the method of that name (``self.encoder = self.encoder()``). Kept here,
    not asked of the functions, so that resolving a method does not read a joined module's
    functions; a tuple, a third of a set's memory for the few names a class assigns."""

    def trained_by_own_loop(self, kind: Optional[str]) -> bool:
        """A Keras model (``kind``: ``"Model"``) whose ``fit`` is a loop of its own, which
        runs ``call`` and the steps as it calls them, not in Keras's graph. A Keras layer's
        ``fit`` (a preprocessing layer fitting its statistics) is not its training."""
        return kind == "Model" and self.trains_itself


@dataclass
class Entry:
    """Something that makes ``target`` traced: ``how`` as a user would write it, at ``line``."""

    target: Target
    how: str
    line: int
    decorated: Optional[FunctionKey] = None
    """For a project decorator: the def it decorates (traced if the decorator wraps
    tf.function)."""
    flags: Tuple[Tuple[str, bool], ...] = ()
    """Flags of ``self`` the code making the entry runs under (``if not self.eager:``)."""
    within: Optional[FunctionKey] = None
    """For a control-flow API (``tf.cond``, ``tf.while_loop``, ``tf.map_fn`` …, see
    ``CONTROL_FLOW_APIS``): the function making the call. Called eagerly, those APIs run
    their callables as Python; the callables are traced only when that function is."""


#: Calls that run a module's code again, and read none of its names
#: (``importlib.reload(models)`` in a notebook's first cell).
_RELOADS = frozenset({"importlib.reload", "imp.reload"})

#: Calls that make Keras run layers on symbolic tensors (by their qualified name's end).
_KERAS_INPUTS = ("keras.Input", "keras.layers.Input")
_KERAS_GRAPH_BUILDERS = (*_KERAS_INPUTS, "saved_model.save", "TFLiteConverter.from_keras_model")
#: Of those, the exports: they trace the functions of the object they are given.
_KERAS_GRAPH_EXPORTS = ("saved_model.save", "TFLiteConverter.from_keras_model")


def _builds_keras_graph(qualified: str, call: ast.Call) -> bool:
    """``keras.Input(...)``, a functional ``keras.Model(inputs, outputs)``, an export."""
    if qualified.endswith(_KERAS_GRAPH_BUILDERS):
        return True
    return (qualified.endswith(("keras.Model", "keras.models.Model"))
            and (len(call.args) >= 2 or any(k.arg in ("inputs", "outputs")
                                            for k in call.keywords)))


def _is_property_accessor(node: ast.FunctionDef) -> bool:
    """``@name.setter`` / ``@name.deleter``: not what ``self.name`` reads."""
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
               and isinstance(d.value, ast.Name) and d.value.id == node.name
               for d in node.decorator_list)


class FunctionSummary(NamedTuple):
    """Of a module's functions, what the call graph asks of every module."""

    eager: FrozenSet[FunctionKey]
    """The functions Python runs eagerly (``FunctionInfo.runs_eagerly``)."""
    guard_calls: Tuple[Tuple[FunctionKey, str, Target], ...]
    """``(function, spelling, callee)`` of each call a function makes in its tests."""
    traced_params: Dict[FunctionKey, Set[object]]
    """The functions with ``traced_params``, and those."""
    predicates: Dict[FunctionKey, Tuple]
    """The functions that are predicates, and their form (``FunctionInfo.predicate``)."""


@dataclass(eq=False)
class ModuleIndex:
    """What graph-context detection needs to know about one module.

    Two indexes are equal only when they are one object: comparing every field would read
    the deferred fields of an unpickled index (its functions and bindings) just to tell
    two modules apart. ``same_to_the_graph`` compares what the call graph reads."""

    path: str
    module: str
    imports: List[Tuple[str, str]] = field(default_factory=list)
    module_bindings: Set[str] = field(default_factory=set)
    functions: Dict[FunctionKey, FunctionInfo] = field(default_factory=dict)
    top_level: Dict[str, FunctionKey] = field(default_factory=dict)
    classes: Dict[str, ClassInfo] = field(default_factory=dict)
    entries: List[Entry] = field(default_factory=list)
    lambdas: List[FunctionKey] = field(default_factory=list)
    """Every lambda's key, entry point or not."""
    decorated: List[Entry] = field(default_factory=list)
    """Defs under project decorators: traced when the decorator wraps tf.function."""
    eager_steps: Set[Tuple[str, str]] = field(default_factory=set)
    """(receiver, method) of the Keras step methods that module-level code calls directly
    (``model.train_step(batch)``: run eagerly, not through ``fit``), of the methods that
    run them in graphs (``model.fit(...)``, ``KERAS_RUNS``), and ``(name, "__call__")`` for
    the names module-level code calls (``model(x)``)."""
    step_calls: Set[Tuple[str, Optional[str]]] = field(default_factory=set)
    """Keras step methods (``train_step`` …) that some code of the module calls itself, on
    anything but ``super()`` (``loss = model.train_step(optimizer, x, y)`` in a project's
    own training loop), with the class of this module the receiver is an instance of, when
    known (else None): a decorator on such a method is what makes that call a graph."""
    loop_step_calls: Set[Tuple[str, Optional[str]]] = field(default_factory=set)
    """The ``step_calls`` made neither in a function the module traces itself (under a
    tracing decorator) nor in a Keras graph method (``call``, a step), nor within one: a
    training loop of the project's own, which runs the step where it calls it."""
    own_entries: Set[FunctionKey] = field(default_factory=set)
    """Methods ``__call__`` that never reach the base class's (no ``super().__call__(...)``
    or ``Base.__call__(self, ...)``): calling an instance of a Keras layer with one runs
    that method, not Keras's ``Layer.__call__``, through which Keras runs ``call`` in its
    graphs (an image processor's ``__call__`` that hands a file path to ``self.call``)."""
    custom_steps: Set[FunctionKey] = field(default_factory=set)
    """Methods named like Keras graph methods whose signature Keras cannot call (``def
    train_step(self, optimizer, inputs, targets)``, ``def train_step(self)``: Keras passes
    one batch; ``def call(self)``: Keras passes the inputs): the project's own methods,
    not Keras's."""
    keras_runs: List[Tuple[Optional[str], str]] = field(default_factory=list)
    """(receiver, method) of every call of a method through which Keras runs models in
    graphs (``trainer.fit(...)``, ``KERAS_RUNS``): the receiver's name when it is a plain
    name, else None; the method, since a class of the project that defines its own
    ``evaluate`` is run by that, not by Keras. Not those the code asked first to run
    eagerly (``eager_keras_runs``), nor calls of a project module's function
    (``tools.evaluate(...)``)."""
    eager_keras_runs: List[str] = field(default_factory=list)
    """Receivers of the runs of models that the code, in the same scope, asked to run
    eagerly first (``model.run_eagerly = True``, ``model.compile(..., run_eagerly=True)``,
    then ``model.fit(...)``): Keras runs their steps without tracing them."""
    keras_run_classes: Set[str] = field(default_factory=set)
    """Classes of the module whose instances the module's code fits, evaluates, predicts,
    saves or exports (``model = Net(); model.fit(...)``, ``tf.saved_model.save(self, d)``,
    in any scope); not instances asked to run eagerly (``eager_run_classes``)."""
    eager_run_classes: Set[str] = field(default_factory=set)
    """Classes of the module whose instances the code runs after asking them to run
    eagerly."""
    keras_trained_classes: Set[str] = field(default_factory=set)
    """Classes of the module whose instances the code trains or evaluates (``KERAS_TRAINING``),
    not asked to run eagerly in the same scope; ``keras_run_classes`` holds those it
    predicts with or exports."""
    compiles_keras: bool = False
    """The code compiles a model without asking it to run eagerly
    (``model.compile(optimizer)``, ``run_eagerly=debug``), or through a call of no known
    receiver (``super().compile(**kwargs)``)."""
    compiles_eagerly: bool = False
    """The code compiles a model with ``run_eagerly=True``."""
    keras_exports: List[str] = field(default_factory=list)
    """Names whose ``save``/``export`` the module calls (``model.save(path)`` traces ``call``
    for a SavedModel when ``model`` is a Keras model)."""
    instance_classes: Dict[str, Optional[Target]] = field(default_factory=dict)
    """Module-level ``name = SomeClass(...)``: name → the class (None when the name is
    bound to instances of different classes). So for an attribute that a class's methods
    set on ``self`` (``self.svm = SVC(...)``), as ``Class.attribute``, and for a name a
    function binds, as ``function:name``: None unless every such assignment makes an
    instance of one class."""

    def runs_models_of_unknown_class(self) -> bool:
        """Module code fits, evaluates, predicts or saves something whose class the module
        does not know (``model = build()``; a parameter) or a Keras container
        (``tf.keras.Sequential([...])``): any Keras class of the module may be run by Keras
        (in a graph, or eagerly when asked). An instance of another library's class
        (``SINDy().fit(x)``) is not one of them."""
        for receiver in (*(receiver for receiver, _ in self.keras_runs),
                         *self.eager_keras_runs, *self.keras_exports):
            made = self.instance_classes.get(receiver) if receiver else None
            if made is None or made[0] == "external" and made[1].startswith(KERAS_MODULES):
                return True
        return False

    def instance_of(self, name: str) -> Optional[str]:
        """The module's class that the module-level ``name`` is an instance of, or None."""
        made = self.instance_classes.get(name)
        return made[1] if made is not None and made[0] == "class" else None
    handed_lambdas: List[Tuple[Target, int, FunctionKey]] = field(default_factory=list)
    """(callee, position, lambda) of each lambda passed positionally to a call of a function
    the module can name: it runs as Python where the callee hands that parameter to
    ``tf.py_function`` (``ProjectGraph.eager_lambdas``)."""
    passed_callables: List[Tuple[Target, object, Target, int]] = field(default_factory=list)
    """(callee, position or keyword, the function passed, line) of each function that code
    hands to another call: traced when the callee hands that parameter to ``tf.function``
    or another graph API (``traced_params``)."""
    builds_keras_graphs: bool = False
    """The module builds a Keras model from symbolic inputs (``keras.Input``, a functional
    ``keras.Model(inputs, outputs)``) or exports an object of no known class of its own
    (``tf.saved_model.save(model, path)``, the TFLite converter): Keras runs ``call`` in a
    graph then."""
    exports_keras_graphs: bool = False
    """Of those, an export (``tf.saved_model.save(model, path)``, the TFLite converter): it
    traces the model's ``call`` whether or not anything runs the model. A functional build
    alone runs each layer's ``call`` once on symbolic inputs; Keras runs the model's
    layers in a graph only when something fits, evaluates or predicts with it, or exports
    it."""
    nodes: Dict[FunctionKey, ast.AST] = field(default_factory=dict, repr=False)
    text_hash: Optional[int] = None
    """``hash()`` of the text it was built from, set by the engine: an index sent back to a
    worker is used only for the same text (forked workers share the parent's hash seed;
    other processes differ, and build the index again)."""

    # The process that joins a project holds every module's index, and follows the call
    # graph into few of them: the fields it reads of those only (the functions are two
    # thirds of an index's memory, a seventh of it pickled), and the bindings it reads once
    # to build the name table, travel as pickles of their own (``_DEFERRED``; compressed,
    # to a third: they stay in memory), read when first asked for. A read-only index keeps
    # those pickles, and sends them on unchanged.
    # Nor is a field at its default (an empty collection, a flag not set): an unpickled
    # index holds only the fields of its own in its attribute table, and reads the others
    # from the class, which holds one immutable empty of each collection (an index's
    # table of some 40 fields is too big for the tables instances share: 20 MB on 12 000
    # modules).
    def __getstate__(self):
        state = {name: value for name, value in self.__dict__.items()
                 if name not in _NOT_PICKLED and not _at_default(name, value)}
        summary = self.function_summary()
        if summary != _NO_SUMMARY:
            state["_summary"] = summary
        bound = self.bound_names()
        if bound:
            state["_bound"] = bound
        import pickle  # here: loaded already by whoever pickles; a lint alone never does

        for holder, names in _DEFERRED.items():
            stored = self.__dict__.get(holder)
            if stored is None:
                stored = zlib.compress(pickle.dumps(
                    tuple(self.__dict__[name] for name in names), pickle.HIGHEST_PROTOCOL), 1)
            state[holder] = stored
        return state

    def __setstate__(self, state):
        # The names most modules repeat (``tensorflow``, ``os.path.join``, ``__init__``),
        # each unpickled anew: one string each (a tenth of the indexes' memory).
        if "imports" in state:
            state["imports"] = [(sys.intern(local), sys.intern(qualified))
                                for local, qualified in state["imports"]]
        if "_bound" in state:
            state["_bound"] = {sys.intern(name): sys.intern(qualified)
                               for name, qualified in state["_bound"].items()}
        self.__dict__.update((name, state[name]) for name in _INDEX_FIELD_ORDER
                             if name in state)
        self.__dict__.update((holder, state[holder]) for holder in _DEFERRED)
        self.__dict__["_summary"] = state.get("_summary", _NO_SUMMARY)
        self.__dict__["_bound"] = state.get("_bound", _NO_NAMES)
        self.nodes = {}

    def made_to_trace(self) -> Set[FunctionKey]:
        """The module's functions that TensorFlow would trace whatever the project does with
        them, and ``tf.config.run_functions_eagerly(True)`` runs as Python: those a
        ``tf.function`` decorator or call makes, the ``call`` and steps of its classes, and
        the module's functions and methods they call in turn (TFF406 asks whether any of them
        needs eager execution)."""
        found: Set[FunctionKey] = {entry.target[1] for entry in self.entries
                                   if entry.target[0] == "local"
                                   and entry.how.startswith(("@", "tf.function("))}
        for cls in self.classes.values():
            found.update(key for name, key in cls.methods.items()
                         if name in KERAS_GRAPH_METHODS)
        queue = list(found)
        while queue:
            function = self.functions.get(queue.pop())
            for target, _, how in function.edges if function is not None else ():
                callee = None
                if how != CALLED:
                    continue
                if target[0] == "local":
                    callee = target[1]
                elif target[0] == "method" and target[1] in self.classes:
                    callee = self.classes[target[1]].methods.get(target[2])
                if callee is not None and callee not in found:
                    found.add(callee)
                    queue.append(callee)
        return found

    def same_to_the_graph(self, other: "ModuleIndex") -> bool:
        """``other`` indexes the module as this does, in all the call graph reads: each field
        but the text's hash and the nodes (an edit such as a comment, or a changed constant,
        that moved no line and changed no call). An unpickled index holds tuples and
        immutable empties where a built one holds lists, sets and dicts."""
        return all(_same(getattr(self, name), getattr(other, name))
                   for name in _COMPARED_FIELDS)

    def function_summary(self) -> "FunctionSummary":
        """What the call graph asks of every function of every module, known without
        reading ``functions`` (see ``FunctionSummary``). For a complete index."""
        summary = self.__dict__.get("_summary")
        if summary is None:
            functions = self.functions
            summary = self.__dict__["_summary"] = FunctionSummary(
                frozenset(key for key, function in functions.items() if function.runs_eagerly),
                tuple((key, spelling, target) for key, function in functions.items()
                      for spelling, target in function.guard_calls.items()),
                {key: function.traced_params for key, function in functions.items()
                 if function.traced_params},
                {key: function.predicate for key, function in functions.items()
                 if function.predicate is not None})
        return summary

    def bound_names(self) -> Mapping[str, str]:
        """``names.bound()``: what the call graph asks of the name table of every module,
        known without building it (see ``NameTable.binding``: ``bound_names().get(name)``)."""
        bound = self.__dict__.get("_bound")
        if bound is None:
            bound = self.__dict__["_bound"] = self.names.bound()
        return bound

    def release(self) -> None:
        """Forget what an unpickled index read of its deferred fields, and its name table:
        read again when asked for."""
        for holder, names in _DEFERRED.items():
            if holder in self.__dict__:
                for name in names:
                    self.__dict__.pop(name, None)
        self.__dict__.pop("_names", None)

    def _deferred(self, holder: str) -> Optional[tuple]:
        """The values of the fields pickled in ``holder`` (None: not an unpickled index)."""
        stored = self.__dict__.get(holder)
        if stored is None:
            return None
        import pickle  # here, as in ``__getstate__``

        return pickle.loads(zlib.decompress(stored))

    def __getattr__(self, name: str):
        # Only for attributes not in the instance: the deferred fields of an unpickled index.
        holder = _DEFERRED_IN.get(name)
        values = self._deferred(holder) if holder else None
        if values is None:
            raise AttributeError(name)
        self.__dict__.update(zip(_DEFERRED[holder], values))
        return self.__dict__[name]

    bindings: List[Binding] = field(default_factory=list)
    """How module-level statements bind names, in statement order (see ``NameTable``)."""
    dataset_names: bool = True
    """A name such as ``train_ds`` or ``dataset`` may be taken for a ``tf.data`` chain:
    not in a module that uses another library's datasets (Hugging Face ``datasets``,
    ``torch.utils.data``, PaddlePaddle), nor in a notebook that does not import
    TensorFlow."""
    module_calls: Set[str] = field(default_factory=set)
    """Qualified names of functions called through an imported module (``mod.f(x)``)."""
    private_calls: Set[str] = field(default_factory=set)
    """Private names the code calls on an object of any kind but ``self``/``cls``
    (``flow._permute(z, p)`` in a test): another module's private method that may run
    eagerly there."""
    module_reads: Set[str] = field(default_factory=set)
    """Qualified names the code reads through a name bound to a module that may be the
    project's (``layers.Gate``, ``layers.make(x)``: ``pkg.layers.Gate``, see
    ``may_be_project_module``)."""
    modules_passed: Set[str] = field(default_factory=set)
    """Such modules that the code hands on whole (``getattr(layers, name)``, ``x =
    layers``, ``return layers``): any of their names may be read."""
    switches_eager_on: bool = False
    """A module-level statement turns ``tf.function`` off for the process
    (``tf.config.run_functions_eagerly(True)``): once the module is imported."""
    switches_eager_off: bool = False
    """Some code of the module turns it on again (``run_functions_eagerly(False)``)."""
    switches_eager_as_program: bool = False
    """The module's main guard turns ``tf.function`` off for the process, or calls a
    function of the module that does so first thing (``def train():
    tf.config.run_functions_eagerly(True)``): when the module runs as a program."""
    removed_before: Optional[Tuple[int, int]] = None
    """The first TensorFlow release that removed an API the module's code uses, or that a
    notebook was not last run on (see ``tensorflow_versions``): the module runs only on
    the releases before it."""
    callback_model_writes: Dict[str, int] = field(default_factory=dict)
    """Attributes that a hook of a class of the module (``on_epoch_end`` …, as Keras
    callbacks have) sets on ``self.model``, the model Keras trains, with the first line
    (``self.model.epochs = epoch + 1``): set between two runs of the model's traced step."""
    attribute_words: Set[str] = field(default_factory=set)
    """Of a module that defines classes: every word its text writes after a dot
    (``self.epochs``, ``model.epochs``), a superset of the attributes its code reads. Which
    attributes the project's callbacks set on a model (``callback_model_writes``) is asked
    only for these (``ProjectGraph.callback_writes``): a module reading none of them is not
    linted again for them. Pickled apart (``_DEFERRED``): the joining process reads it only
    for a module with Keras models in a project with callbacks that set some."""
    keras_3: bool = False
    """The module's text says it runs on Keras 3 (``tensorflow_versions.says_keras_3``:
    ``keras.ops``, ``keras_core``, an upgrade of TensorFlow to its newest release)."""
    other_keras_backend: bool = False
    """The module sets Keras 3's backend to one that is not TensorFlow
    (``os.environ["KERAS_BACKEND"] = "torch"``): its Keras objects never run in a
    ``tf.function``."""
    names_layers_with_seed: bool = False
    """The module's text names a layer that holds a seed variable under Keras 3 only
    (``tensorflow_versions.names_layers_with_seed``): the only findings that depend on
    ``keras_3``, its own or that of modules linked to it. Once the module is linted on its
    own, true only if a rule asked whether it runs on Keras 3 (``KERAS_3_FACT``): a seed
    layer made in its traced code."""
    asks_versions: bool = True
    """The module's findings may depend on the TensorFlow releases it runs on (as the
    programs importing it narrow them, ``removed_before``): once the module is linted on its
    own, true only if a rule asked (``FileContext.tensorflow_versions``)."""
    uses_tf1: bool = False
    """The module uses TensorFlow 1's own API (``_TF1_ONLY``): it runs on TensorFlow 1,
    or in its graph mode, where Keras runs models eagerly or builds them into a graph once,
    never through ``tf.function``."""
    star_imports: List[str] = field(default_factory=list)
    """Modules the module's code imports every public name of (``from utils import *``)."""
    runs_as_program: bool = False
    """The module runs as a program: it has ``if __name__ == "__main__":``, or parses
    its command line at module level (``args = parser.parse_args()``)."""
    works_at_module_level: bool = False
    """Module-level statements, outside any block, call something or loop
    (``print(tf.__version__)``, ``for epoch in range(100):``): the module does its work
    as it runs, as a script does (``ProjectGraph.script``)."""
    off_flags: Set[str] = field(default_factory=set)
    """Module-level names bound once, to a constant that is false (``DEBUG = False``), and
    bound nowhere else (no function declares them ``global``): code under ``if DEBUG:``
    never runs as the module is written."""
    eager_settings: Set[str] = field(default_factory=set)
    """Attributes the module hands to Keras as its eager setting
    (``model.compile(..., run_eagerly=params.system.run_eagerly)``, ``model.run_eagerly =
    config.eager``): true only when Keras runs the model eagerly. A test of such an
    attribute, or of one that ends in it (``self.params.system.run_eagerly``, the model's
    copy of the same parameters), or of any attribute named ``run_eagerly`` (the model's
    own ``self.run_eagerly``), is never true while Keras traces a step (see
    ``guards.GuardReader``)."""
    unnamed: Tuple[Tuple[int, int], ...] = ()
    """Of a notebook: the lines (decorators included) of module-level defs and
    classes whose name its text has nowhere else, not even in a comment or a masked
    ``%timeit`` line (``f.python_function``, the undecorated function, does not count).
    The notebook never runs them, nor the code written in them. Of a module that runs as a
    program (``runs_as_program``) or does its work in module-level statements
    (``works_at_module_level``: a lesson calling its examples), likewise, but a comment
    line (a call commented out) does not count; none when it may look names up as it runs
    (``globals()``), nor of a test module or a program that runs tests
    (``tf.test.main()``: the runner finds the tests by their names). Such a script, when
    nothing imports it, never runs them (``ProjectGraph.never_run``, only when the run is
    the whole project: linted on its own, by pre-commit or flake8, a module with a main
    guard looks like one even when other modules import its functions)."""

    unnamed_classes: Tuple[Tuple[str, int, int], ...] = ()
    """Of a module that is not a notebook: its module-level classes, undecorated, whose name
    its text has nowhere outside the class, not even in a comment or a string
    (``super(Net, self)`` within it does not count), each with its first and last line;
    none when the module may look names up as it runs (``globals()``, ``eval``). Whether
    anything runs them is the project's to say: another module may import them
    (``ProjectGraph.never_named``)."""

    class_users: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    """Where the module's text names classes that may be the project's. Keys: its
    module-level classes with bases (by qualified name, ``pkg.layers.Gate``), and the
    capitalised names, as classes' names mostly are, that it imports from a module that
    may be the project's (by import target) or reads through such a module
    (``layers.Gate``). Values: the module-level classes whose lines name it,
    ``MAIN_GUARD`` for the lines of the main guard (``if __name__ == "__main__":``, which
    runs only when the module is the program), ``""`` for other lines. A class's own lines,
    import statements and comment lines (commented-out code; but in a notebook, whose
    magics are masked as comments) do not count; strings and comments after code do. Every
    key holds ``""`` when the module may look names up as it runs (``globals()``). A key
    with no holder is named nowhere else in the module; a name imported but not a key may
    be used anywhere (see ``ProjectGraph.keras_class_runs``)."""

    star_names: Optional[FrozenSet[str]] = None
    """Of a module with ``star_imports``: the names its code reads (not its comments or
    strings) that may come from them: those it does not define itself by a module-level
    ``def`` or ``class`` before it first reads them. None when it may look names up as it
    runs (``globals()``, ``eval``), or has no star import."""

    def decorates_keras_graph_methods(self) -> bool:
        """A def named as a Keras graph method (``call``, a step) is under a tracing
        decorator of the module's own spelling (``@tf.function def train_step``)."""
        return any(entry.how.startswith("@") and entry.target[0] == "local"
                   and entry.target[1][0] == "def" and entry.target[1][2] in KERAS_GRAPH_METHODS
                   for entry in self.entries)

    @property
    def names(self) -> NameTable:
        table = self.__dict__.get("_names")
        if table is None:
            # The bindings serve only to build the table: not kept when unpickled for it.
            bindings = self.__dict__.get("bindings")
            if bindings is None:
                bindings = self._deferred("_pickled_bindings")[0]
            table = self.__dict__["_names"] = NameTable.from_statements(bindings)
            if self.star_imports:  # see NameTable.stars
                table.stars = tuple(self.star_imports)
        return table

    def attach(self, tree: ast.Module, lines: Sequence[str]) -> None:
        """Find the nodes of the index's functions in ``tree``, a new parse of the text the
        index was built from (an index sent back to the worker that lints the file again
        with the project's view: rebuilding it would cost a third of the lint)."""
        functions = self.functions
        nodes = {}
        # A def is a statement: only blocks need looking into, unless a lambda is wanted.
        lambdas = any(key[0] == "lambda" for key in functions)
        for node in walk_nodes(tree) if lambdas else iter_statements(tree.body):
            cls = node.__class__
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
                key = def_key(node.lineno, node.name)
            elif cls is ast.Lambda:
                key = lambda_key(node.lineno, char_column(node, lines))
            else:
                continue
            if key in functions:
                nodes[key] = node
        self.nodes = {key: nodes[key] for key in functions if key in nodes}  # the build's order

    @classmethod
    def build(cls, path: str, module: str, tree: ast.Module, lines: Sequence[str],
              extra_traced_decorators: Iterable[str] = (), is_package: bool = False
              ) -> "ModuleIndex":
        index = cls(path=path, module=module)
        index.runs_as_program = any(_starts_program(statement) for statement in tree.body)
        index.works_at_module_level = any(_does_work(statement) for statement in tree.body)
        index.off_flags = _off_flags(tree, lines)
        index.eager_settings = _eager_settings(lines)
        module_text = _Text(lines)
        if path.endswith(".ipynb"):
            index.unnamed = _unnamed(tree, module_text)
        else:
            index.unnamed_classes = _unnamed_classes(tree, module_text)
            if ((index.runs_as_program or index.works_at_module_level)
                    and not is_test_module(path) and not _runs_tests(module_text.joined()[0])):
                index.unnamed = _unnamed(tree, module_text, script=True)
        import_spans = _collect_imports(index, tree, module, is_package)
        if index.star_imports:
            index.star_names = _star_names(tree, lines)
        indexer = _Indexer(index, lines, frozenset(extra_traced_decorators))
        indexer.shadowed = _shadowed_defs(tree)
        indexer.visit_body(tree.body)
        indexer.close()
        for info in index.classes.values():
            info.assigned = tuple(sorted({name for method in info.methods.values()
                                          for name in index.functions[method].writes}))
        index.class_users = _class_users(tree, module_text, index, import_spans)
        if _TF1_TEXT.search(module_text.joined()[0]):
            index.uses_tf1 = (any(_contrib(target) for _, target in index.imports)
                              or _uses_tf1(tree, index.names))
        joined, starts = module_text.joined()
        index.removed_before = removed_before(tree, joined, index.names.resolve,
                                              index.names.bound(), starts)
        index.keras_3 = says_keras_3(joined)
        if "KERAS_BACKEND" in joined and _OTHER_KERAS_BACKEND.search(joined):
            index.other_keras_backend = True  # (set only then: the class's default stays)
        if index.classes:
            index.attribute_words = set(_ATTRIBUTE_WORD.findall(joined))
        index.names_layers_with_seed = names_layers_with_seed(joined)
        switch_lines = [line for line in lines if "functions_eagerly" in line]
        if switch_lines:
            index.switches_eager_on, index.switches_eager_as_program = _eager_switches(
                tree, index.names)
            index.switches_eager_off = any(map(EAGER_SWITCH_OFF.search, switch_lines))
        return index


#: A word after a dot, spaces between them allowed (``ModuleIndex.attribute_words``).
_ATTRIBUTE_WORD = lazy_compile(r"\.\s*([^\W\d]\w*)")


#: A program that runs tests (``tf.test.main()``, ``unittest.main()``, ``absltest``):
#: the runner finds its test classes and functions by their names, which its code need not
#: write.
_RUNS_TESTS = lazy_compile(words(["unittest", "absltest", "pytest", "test"]) + r"\.main\s*\(|"
                           + words(["TestCase"]) + r"\b")


def _runs_tests(text: str) -> bool:
    """``text`` runs a test framework's main or defines test cases (``_RUNS_TESTS``); the
    words are looked for first, the pattern only in a text that has them."""
    return (".main" in text or "TestCase" in text) and bool(_RUNS_TESTS.search(text))


#: Keras 3's backend set to one that is not TensorFlow, in code or by a notebook's magic:
#: ``os.environ["KERAS_BACKEND"] = "jax"``, ``os.environ.setdefault("KERAS_BACKEND",
#: "torch")``, ``%env KERAS_BACKEND=jax``.
_OTHER_KERAS_BACKEND = lazy_compile(
    r"""KERAS_BACKEND["']\s*(?:\]\s*=|,)\s*["'](?:jax|torch|numpy|openvino)["']"""
    r"""|%env\s+KERAS_BACKEND\s*=?\s*(?:jax|torch|numpy|openvino)\b""")
#: The holder (``ModuleIndex.class_users``) of the lines of a module's main guard.
MAIN_GUARD = "__main__"


#: Fields of ``ModuleIndex`` pickled apart, by the attribute that holds their pickle: read
#: when first asked for (see ``__getstate__``).
_DEFERRED = {"_pickled_functions": ("functions", "module_bindings", "lambdas"),
             "_pickled_bindings": ("bindings",),
             "_pickled_words": ("attribute_words",)}
_DEFERRED_IN = {name: holder for holder, names in _DEFERRED.items() for name in names}
_NOT_PICKLED = frozenset({*_DEFERRED, *_DEFERRED_IN, "nodes", "_names", "_summary", "_bound"})
_NO_SUMMARY = FunctionSummary(frozenset(), (), MappingProxyType({}), MappingProxyType({}))
_NO_NAMES: Mapping[str, str] = MappingProxyType({})
_INDEX_FIELD_ORDER = tuple(f.name for f in fields(ModuleIndex) if f.name not in _NOT_PICKLED)
#: What an unpickled ``ModuleIndex`` reads of a field it was not sent: one empty, immutable
#: collection for each collection, the default of each other field.
_DEFAULT_OF_INDEX = {
    f.name: ({list: (), set: frozenset(), dict: MappingProxyType({})}[f.default_factory]
             if f.default_factory in (list, set, dict) else f.default)
    for f in fields(ModuleIndex) if f.name not in _NOT_PICKLED
    and (f.default_factory in (list, set, dict) or f.default is None
         or f.default.__class__ is bool or f.default.__class__ is tuple and not f.default)}
for _name, _value in _DEFAULT_OF_INDEX.items():
    setattr(ModuleIndex, _name, _value)  # after ``dataclass``: ``__init__`` is unchanged


def _at_default(name: str, value: object) -> bool:
    """``value`` is what an unpickled index reads of field ``name`` when not sent it."""
    if name not in _DEFAULT_OF_INDEX:
        return False
    default = _DEFAULT_OF_INDEX[name]
    if default is None or default.__class__ is bool:
        return value is default
    return not value  # an empty collection: the class's immutable empty stands for it


def _own_attribute(node: ast.expr, cls: ClassInfo) -> Optional[str]:
    """``self.<attribute>`` as ``Class.attribute`` (see ``instance_classes``), or None."""
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self"):
        return f"{cls.qualname}.{node.attr}"
    return None


_COMPARED_FIELDS = tuple(f.name for f in fields(ModuleIndex)
                         if f.name not in ("nodes", "text_hash"))


def _same(one: object, other: object) -> bool:
    """Equal, a list equal to a tuple of the same items (see ``same_to_the_graph``)."""
    if isinstance(one, (list, tuple)) and isinstance(other, (list, tuple)):
        return len(one) == len(other) and all(map(_same, one, other))
    if isinstance(one, Mapping) and isinstance(other, Mapping):
        return one.keys() == other.keys() and all(_same(one[key], other[key]) for key in one)
    if type(one) is not type(other) or not hasattr(one, "__dataclass_fields__"):
        return one == other
    return all(_same(getattr(one, name), getattr(other, name))
               for name in one.__dataclass_fields__)


_UNKNOWN = object()


# -- statements ---------------------------------------------------------------------------
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def iter_statements(statements: Iterable[ast.stmt], *, into_scopes: bool = True
                    ) -> Iterator[ast.stmt]:
    """Every statement, depth-first, descending into blocks (and scopes, if asked)."""
    stack = list(reversed(list(statements)))
    fields_of = _STATEMENT_FIELDS
    while stack:
        node = stack.pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = fields_of[cls] = tuple(f for f in ("body", "orelse", "finalbody",
                                                        "handlers", "cases")
                                            if f in cls._fields)
        if not fields or not into_scopes and cls in _SCOPES:
            continue
        children: List[ast.stmt] = []
        for name in fields:
            if name == "handlers" or name == "cases":  # their bodies, in order
                for part in getattr(node, name) or ():
                    children.extend(part.body)
            else:
                children.extend(getattr(node, name, None) or ())
        stack.extend(reversed(children))


#: Per statement class, its fields that hold blocks of statements (filled on first use).
_STATEMENT_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def statement_bindings(node: ast.stmt) -> Iterator[str]:
    """Names a single statement binds in its own scope, imports included."""
    yield from bound_names(node)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name.partition(".")[0]


def _shadowed_defs(tree: ast.Module) -> Dict[str, int]:
    """Module-level functions whose name the module's last binding of it, an assignment of
    the module body itself, gives another value for the rest of the module
    (``discriminator = discriminator(channels=1)``: the model the function built; ``net =
    build()``): name → the line of that assignment. Code of functions defined after it that
    calls the name calls that value, not the function. Not a re-wrap that keeps the
    function (``f = tf.function(f)``, ``f = partial(f, k=1)``), nor a name that a function
    assigns under ``global``."""
    last: Dict[str, ast.stmt] = {}
    defs: Set[str] = set()
    for statement in iter_statements(tree.body, into_scopes=False):
        for name in statement_bindings(statement):
            last[name] = statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.add(statement.name)
    found: Dict[str, int] = {}
    top = {id(statement) for statement in tree.body}
    for name in defs:
        statement = last[name]
        if not (isinstance(statement, ast.Assign) and id(statement) in top
                and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            continue
        value = statement.value
        calls_itself = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                        and value.func.id == name)
        if any(isinstance(n, ast.Name) and n.id == name and not (calls_itself and n is value.func)
               for n in walk_nodes(value)):
            continue  # the function passed on: a re-wrap
        found[name] = statement.end_lineno or statement.lineno
    if found and any(isinstance(n, ast.Global) and set(n.names) & set(found)
                     for n in ast.walk(tree)):
        found = {name: line for name, line in found.items() if not any(
            isinstance(n, ast.Global) and name in n.names for n in ast.walk(tree))}
    return found


def bound_names(node: ast.stmt) -> Iterator[str]:
    """Names a single statement binds in its own scope, imports excluded."""
    if isinstance(node, _SCOPES):
        yield node.name
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_names(target)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        yield from _target_names(node.target)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                yield from _target_names(item.optional_vars)
    elif isinstance(node, ast.Try):
        for handler in node.handlers:
            if handler.name:
                yield handler.name


def resolve_relative(module: str, is_package: bool, level: int, target: Optional[str]) -> str:
    """Absolute module path of ``from ..target import x`` written in ``module``."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    return ".".join(parts + ([target] if target else []))


def _is_none_assignment(node: ast.stmt) -> bool:
    """``tf = None`` (in an ``except ImportError:``, the module is missing, not rebound)."""
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and node.value.value is None
            and all(isinstance(t, ast.Name) for t in node.targets))


def _alias(node: ast.stmt) -> Optional[Tuple[str, str]]:
    """``keras = tf.keras``: (name, dotted name assigned)."""
    if (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)):
        dotted = ast_dotted_name(node.value)
        if dotted is not None:
            return node.targets[0].id, dotted
    return None


def _collect_imports(index: ModuleIndex, tree: ast.Module, module: str, is_package: bool
                     ) -> List[Tuple[int, int]]:
    """Fill in the module's imports and bindings; returns the lines of its import
    statements."""
    spans: List[Tuple[int, int]] = []
    module_level = list(iter_statements(tree.body, into_scopes=False))
    for node in module_level:
        index.module_bindings.update(bound_names(node))
    straight = {id(node) for node in tree.body}
    fallbacks = {id(node) for statement in module_level if isinstance(statement, ast.Try)
                 for handler in statement.handlers for node in handler.body
                 if _is_none_assignment(node)}
    for node in iter_statements(tree.body):
        line, direct = node.lineno, id(node) in straight
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            spans.append((line, node.end_lineno or line))
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    pair = (alias.asname, alias.name)
                else:
                    top = alias.name.partition(".")[0]
                    pair = (top, top)
                index.imports.append(pair)
                index.bindings.append((*pair[:1], line, IMPORT, pair[1], direct))
        elif isinstance(node, ast.ImportFrom):
            base = (resolve_relative(module, is_package, node.level, node.module)
                    if node.level else node.module)
            for alias in node.names:
                if alias.name != "*" and base:
                    name = alias.asname or alias.name
                    index.imports.append((name, f"{base}.{alias.name}"))
                    index.bindings.append((name, line, IMPORT, f"{base}.{alias.name}", direct))
                elif base:
                    index.star_imports.append(base)
    for node in module_level:
        alias = _alias(node)
        if alias is not None:
            index.bindings.append((alias[0], node.lineno, ALIAS, alias[1], id(node) in straight))
        elif id(node) in fallbacks:
            for name in bound_names(node):
                index.bindings.append((name, node.lineno, FALLBACK, "", False))
        else:
            for name in bound_names(node):
                index.bindings.append((name, node.lineno, OTHER, "", id(node) in straight))
    return spans


# -- the one pass over expressions ------------------------------------------------------------
class _Scope:
    """The function (or module/class body) whose code is being indexed."""

    def __init__(self, function: Optional[FunctionInfo], parent: Optional["_Scope"],
                 cls: Optional[ClassInfo], edges: bool = True):
        self.function = function
        self.parent = parent
        self.cls = cls
        self.edges = edges and function is not None
        self.nested: Dict[str, FunctionKey] = {}
        self.datasets: Set[str] = set()
        self.dataset_groups: Dict[str, object] = {}
        """Names bound to collections of datasets (see ``_Indexer._dataset_value``)."""
        self.instances: Dict[str, str] = {}
        self.chosen: Dict[str, List[ast.expr]] = {}
        """Names bound to a choice of callables (``fn = self.crop if train else self.resize``)."""
        self.partials: Dict[str, Target] = {}
        """Names bound to ``functools.partial(f, ...)``: calling them runs ``f``."""
        self.py_functions: Dict[str, bool] = {}
        """Names the function binds: True while every binding so far names ``tf.py_function``
        or a kin (``wrap = tf.py_function if new_api else tf.py_func``)."""
        self.eager_models: Set[str] = set()
        """Names of models asked to run eagerly (``model.run_eagerly = True``), so far."""
        self.locals_made: Dict[str, str] = {}
        """Names the function binds, as ``instance_classes`` knows them (``fit:svm``)."""
        self.guards: Tuple[Tuple, ...] = ()
        self.not_datasets: FrozenSet[str] = frozenset()
        """Names that an earlier ``isinstance(x, tf.data.Dataset)`` test ruled out."""
        self.known_false: Tuple[ast.expr, ...] = ()
        """Tests of earlier ``if <test>: return`` in the enclosing blocks."""
        self.aliases: Dict[str, Optional[ast.expr]] = {}
        self.reader: Optional[guards.GuardReader] = None
        """Reads this function's tests; shared by its guarded copies."""

    def lookup(self, name: str) -> Optional[FunctionKey]:
        scope: Optional[_Scope] = self
        while scope is not None:
            if name in scope.nested:
                return scope.nested[name]
            scope = scope.parent
        return None

    def without_edges(self) -> "_Scope":
        return self._copy(edges=False)

    def guarded(self, conditions: Iterable[Tuple]) -> "_Scope":
        scope = self._copy(edges=self.edges)
        scope.guards = self.guards + tuple(conditions)
        return scope

    def _copy(self, edges: bool) -> "_Scope":
        scope = _Scope(self.function, self.parent, self.cls, edges=edges)
        scope.nested, scope.datasets, scope.instances = self.nested, self.datasets, self.instances
        scope.dataset_groups, scope.partials = self.dataset_groups, self.partials
        scope.py_functions = self.py_functions
        scope.eager_models = self.eager_models
        scope.guards, scope.not_datasets = self.guards, self.not_datasets
        scope.known_false, scope.aliases = self.known_false, self.aliases
        scope.reader = self.reader
        return scope


class _Indexer:
    def __init__(self, index: ModuleIndex, lines: Sequence[str], extra: FrozenSet[str]):
        self.index = index
        self.lines = lines
        self.shadowed: Dict[str, int] = {}
        """Module-level defs rebound for good by a later module-level assignment (see
        ``_shadowed_defs``): name → the line of that assignment."""
        self.extra = extra
        self.names = index.names
        targets = [target for _, target in index.imports]
        self.imported_aliases = frozenset(name for name, _ in index.imports)
        self.module_aliases = {name: target for name, target in index.imports
                               if may_be_project_module(target)}
        index.dataset_names = not any(
            target == "datasets" or target.startswith(_OTHER_DATASETS) for target in targets
        ) and not (index.path.endswith(".ipynb") and not any(
            target.startswith(("tensorflow", "keras", "tf_keras")) for target in targets))
        self.entry_lambdas: Dict[int, Tuple[str, int, Optional[FunctionKey]]] = {}
        self.visited_lambdas: Dict[int, Tuple[int, int]] = {}
        """Lambdas indexed where they are written (not, or not yet, handed to a tracing
        API), by ``id``: the region of the statement that holds each."""
        self.class_defs: Dict[str, FrozenSet[str]] = {}
        """Class qualname → the names of the methods its body defines, known before its
        methods are visited (one calls another defined further down)."""
        self.pending: List[Tuple[FunctionInfo, str, int, str, Tuple, int, object]] = []
        self.passed: Dict[Tuple, Tuple] = {}
        self.pending_entries: List[Tuple[str, str, int, int, Optional[FunctionKey]]] = []
        self.statement_region = (1, 1)
        self.pending_decorated: List[Tuple[Target, FunctionKey, str, int]] = []
        self.defs: Dict[str, List[Tuple[int, FunctionKey]]] = {}
        """Module-level defs of each name, in statement order (a script may redefine one)."""
        self.dataset_predicates: Set[str] = set()
        self.module_scope = _Scope(None, None, None)
        self.locals: Dict[Optional[FunctionKey], FrozenSet[str]] = {}
        self.readers: List[guards.GuardReader] = []
        self.made: List[Tuple[str, ast.expr]] = []
        """Module-level ``name = Something(...)``, for ``ModuleIndex.instance_classes``."""
        self.symbolic: Set[str] = set()
        """Module-level names bound to symbolic Keras tensors (``inputs = keras.Input(...)``,
        ``x = layer(inputs)``): calls on them build a functional model, they run nothing."""
        self.attribute_calls: List[Tuple[FunctionInfo, str]] = []
        """Calls of a method of an attribute of ``self`` (``Class.attribute``), for
        ``FunctionInfo.calls_objects``."""
        self.held: Dict[str, List[Tuple[FunctionInfo, Target, int, Tuple, object]]] = {}
        """Attributes of ``self`` (``Class.attribute``) whose methods the module calls, with
        the calls: (caller, target, line, guards, what it passes). Where the attribute holds
        objects of one class, that class is kept in ``ModuleIndex.instance_classes`` and
        the calls become edges."""
        self.traced_defs: Set[FunctionKey] = set()
        """Functions of the module under a tracing decorator."""
        self.returns_datasets: Dict[FunctionKey, bool] = {}
        """Functions seen so far → every ``return`` of theirs gives a dataset."""
        self.qualified: Dict[int, Optional[str]] = {}
        """``id()`` of an expression node of the tree (alive while indexing) → its name."""
        self.shared: Dict[object, object] = {}
        """Each target and decorator spelling the module's calls name, once (see ``_one``)."""
        self.tracks_datasets = _DATASET_CALL.search("".join(lines)) is not None
        """Which names hold datasets is asked only of the receiver of a ``Dataset`` method
        that takes a function (``ds.map(f)``): a module whose text calls none is not
        followed through its assignments and returns."""

    # statements ----------------------------------------------------------------------------
    def visit_body(self, body: Sequence[ast.stmt]) -> None:
        module_scope = self.module_scope
        for statement in body:
            first = min([d.lineno for d in getattr(statement, "decorator_list", ())]
                        + [statement.lineno])
            self.statement_region = (first, statement.end_lineno)
            self.visit(statement, module_scope)
        self._resolve_pending()

    def visit(self, node: ast.AST, scope: _Scope) -> None:
        cls = node.__class__
        if cls in _LEAVES:
            return
        method = _HANDLERS.get(cls)
        if method is not None:
            method(self, node, scope)
        else:
            self.generic_visit(node, scope)

    def generic_visit(self, node: ast.AST, scope: _Scope) -> None:
        cls = node.__class__
        fields = _VISITED_FIELDS.get(cls)
        if fields is None:  # operators and expression contexts hold nothing to index
            fields = _VISITED_FIELDS[cls] = tuple(f for f in cls._fields
                                                  if f not in ("ctx", "op", "ops"))
        for name in fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, ast.AST) and item.__class__ not in _LEAVES:
                        self.visit(item, scope)
            elif isinstance(value, ast.AST) and value.__class__ not in _LEAVES:
                self.visit(value, scope)

    def _visit_all(self, nodes: Iterable[Optional[ast.AST]], scope: _Scope) -> None:
        for node in nodes:
            if node is not None:
                self.visit(node, scope)

    def visit_FunctionDef(self, node: ast.FunctionDef, scope: _Scope) -> None:
        self._visit_all(node.decorator_list, scope)
        self._visit_all(node.args.defaults, scope)
        self._visit_all(node.args.kw_defaults, scope)
        key = def_key(node.lineno, node.name)
        outer = scope.function.qualname + "." if scope.function else (
            scope.cls.qualname + "." if scope.cls else "")
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        in_class = scope.cls is not None and scope.function is None
        start = min([(d.lineno, d.col_offset) for d in node.decorator_list]
                    + [(node.lineno, node.col_offset)])
        info = FunctionInfo(key, outer + node.name, (first, node.end_lineno),
                            scope.cls.qualname if scope.cls else None, start=start)
        self.index.functions[key] = info
        self.index.nodes[key] = node
        if in_class:
            if not (node.name in scope.cls.methods and _is_property_accessor(node)):
                scope.cls.methods[node.name] = key  # ``self.name`` stays the getter
            if node.name in _KERAS_STEPS and not _takes_one_batch(node.args) or (
                    node.name == "call" and _takes_nothing(node.args)):
                self.index.custom_steps.add(key)
            elif node.name == "__call__" and not any(
                    isinstance(inner, ast.Attribute) and inner.attr == "__call__"
                    for statement in node.body for inner in walk_nodes(statement)):
                self.index.own_entries.add(key)
        elif scope.function is None:
            self.index.top_level[node.name] = key
            self.defs.setdefault(node.name, []).append((first, key))
            if self._dataset_predicate(node):
                self.dataset_predicates.add(node.name)
        else:
            scope.nested[node.name] = key
        # ``@tf.py_function(Tout=...)``; a bare ``@tf.py_function`` fails where the def
        # runs (``Tout`` is required), but what it asks for is the same: never traced.
        info.runs_eagerly = any(
            is_py_function(self._qualified(target), target.attr
                           if isinstance(target, ast.Attribute) else None)
            for target in (d.func if isinstance(d, ast.Call) else d
                           for d in node.decorator_list))
        info.custom_gradient = any(
            self._qualified(d.func if isinstance(d, ast.Call) else d) == _CUSTOM_GRADIENT
            for d in node.decorator_list)
        for decorator in node.decorator_list:
            how = self._tracing_decorator(decorator)
            if how:
                self.index.entries.append(Entry(("local", key), how, decorator.lineno))
                self.traced_defs.add(key)
                break
        else:
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                found = self._callable(target, scope)
                if found is not None and found[0] in ("name", "local", "external"):
                    self.pending_decorated.append(
                        (found, key, f"@{ast_dotted_name(target)}", decorator.lineno))
        info.flag_params = self._flag_params(node, in_class)
        inner = _Scope(info, scope if scope.function else None, scope.cls)
        outer = [s.aliases for s in _chain(inner.parent)]
        if outer:
            inner.aliases = ChainMap({}, *outer)
            local = function_local_names(node)
            info.outer_aliases = {name: ast.unparse(test) for name, test in ChainMap(*outer).items()
                                  if test is not None and name not in local}
        inner.reader = self._new_reader(inner)
        self._visit_block(node.body, inner)
        if len(node.args.args) <= 1 and not node.args.vararg and not node.args.kwonlyargs:
            reader = self._guard_reader(inner)
            info.predicate = reader.predicate_polarity(node)
            returns = [s for s in node.body if isinstance(s, ast.Return)]
            if len(returns) == 1 and returns[0].value is not None:
                info.init_test = guards.attributes(guards.init_targets(returns[0].value))

    visit_AsyncFunctionDef = visit_FunctionDef

    def _flag_params(self, node: ast.FunctionDef, in_class: bool
                     ) -> Dict[str, Tuple[Optional[int], bool]]:
        """See ``FunctionInfo.flag_params``."""
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        found = {}
        for number, default in enumerate(args.defaults, len(positional) - len(args.defaults)):
            if default.__class__ is ast.Constant and default.value.__class__ is bool:
                found[positional[number].arg] = (number, default.value)
            elif default.__class__ is ast.Constant and default.value is None:
                found[positional[number].arg + guards.IS_NONE] = (number, True)
        for parameter, default in zip(args.kwonlyargs, args.kw_defaults):
            if default.__class__ is ast.Constant and default.value.__class__ is bool:
                found[parameter.arg] = (None, default.value)
            elif default.__class__ is ast.Constant and default.value is None:
                found[parameter.arg + guards.IS_NONE] = (None, True)
        if not found:
            return found
        static = False
        for decorator in node.decorator_list:
            spelled = ast_dotted_name(decorator)
            if spelled == "staticmethod":
                static = True
            elif spelled != "classmethod" and not self._tracing_decorator(decorator):
                return {}  # a wrapper may pass other arguments than its callers do
        bound = in_class and not static
        rebound = function_body_names(node)
        return {name: (None if number is None else number - bound, default)
                for name, (number, default) in found.items()
                if guards.flag_parameter(name) not in rebound}

    # tests ---------------------------------------------------------------------------------
    def _guard_reader(self, scope: _Scope) -> guards.GuardReader:
        """One reader per function (its copies share names, classes and aliases)."""
        if scope.reader is None:
            scope.reader = self._new_reader(scope)
        return scope.reader

    def _new_reader(self, scope: _Scope) -> guards.GuardReader:
        def callee(func: ast.expr) -> Optional[Target]:
            target = self._callable(func, scope)
            if target is None or target[0] not in ("local", "name", "method", "super",
                                                   "external"):
                return None
            dotted = ast_dotted_name(func)
            if dotted and scope.function is not None:
                scope.function.guard_calls[dotted] = target
            return target
        off = self.index.off_flags
        if off:  # a parameter or variable of the function (or one around it) shadows the flag
            off = off.difference(*(self._locals(outer) for outer in _chain(scope)))
        reader = guards.GuardReader(self._resolve, callee, scope.aliases,
                                    off | self.index.eager_settings)
        self.readers.append(reader)
        return reader

    def close(self) -> None:
        """Break the cycles between scopes and their readers (a reader's callee knows its
        scope): the scopes, and the nodes they hold, are freed as soon as indexing ends,
        not by the cyclic garbage collector."""
        for reader in self.readers:
            reader.resolve = reader.callee = None
        self.readers = []
        if self.attribute_calls:  # an object of a library's that runs no model, or not
            made_as: Dict[str, Optional[Target]] = {}
            for name, func in self.made:
                made = self._class_ref(func) if func is not None else None
                made_as[name] = made if made_as.get(name, made) == made else None
            for function, held in self.attribute_calls:
                made = made_as.get(held)
                if made is None or made[0] != "external" or not made[1].startswith(NOT_KERAS):
                    function.calls_objects = True
            self.attribute_calls = []
        known = self.index.instance_classes
        # Of the names functions bind and the attributes set on ``self``, only those that
        # receive a Keras run are asked about (and kept: indexes stay small).
        receivers = {receiver for receiver, _ in self.index.keras_runs}
        # So are attributes whose methods the module calls (``self.pool.query(x)``), kept
        # only when they hold objects of one known class.
        held: Dict[str, Optional[Target]] = {}
        for name, func in self.made:  # once every class of the module is known
            asked = name in receivers or not ("." in name or ":" in name)
            if not asked and name not in self.held:
                continue
            made = self._class_ref(func) if func is not None else None
            found = known if asked else held
            found[name] = made if found.get(name, made) == made else None
        for name, made in held.items():
            if made is None:
                continue
            known[name] = made
            for function, target, line, conditions, passed in self.held[name]:
                self._append_edge(function, target, line, CALLED, conditions, passed)

    def _branch(self, test: ast.expr, value: bool, scope: _Scope) -> _Scope:
        """The scope of code that runs when ``test`` is ``value``."""
        if scope.function is None:
            return scope
        reader = self._guard_reader(scope)
        untraced = reader.untraced_if(test, value)
        if untraced is True or (value and reader.excluded(test, scope.known_false)):
            return scope.without_edges()
        conditions = [("pred", callee, polarity) for callee, polarity in untraced]
        params = scope.function.flag_params
        conditions.extend(("flag", name, wanted) for name, wanted
                          in guards.known_flags(test, value, frozenset(params)).items()
                          if name in params or name.startswith("self.") and name.count(".") == 1)
        if value:
            attributes = guards.attributes(guards.init_targets(test))
            if attributes:
                conditions.append(("init", attributes))
            elif isinstance(test, ast.Call) and not test.args:
                callee = self._callable(test.func, scope)
                if callee is not None:
                    conditions.append(("init-call", callee))
        return scope.guarded(conditions) if conditions else scope

    def _visit_block(self, body: Sequence[ast.stmt], scope: _Scope) -> None:
        """Statements in order; after ``if <test>: return``, the rest runs only when the
        test is false."""
        for position, statement in enumerate(body):
            self.visit(statement, scope)
            if (scope.function is not None and isinstance(statement, ast.If)
                    and not statement.orelse and guards.exits(statement.body)):
                scope = self._branch(statement.test, False, scope).guarded(())
                scope.known_false = scope.known_false + (statement.test,)
                tested = guards.initialised_targets(statement.test)
                done = guards.attributes(tested)
                if done:
                    scope = scope.guarded([("init", done)])
                if guards.sets_tested(body[position + 1:], tested):
                    # ``if key in cache: return cache[key]`` … ``cache[key] = made``: the
                    # rest sets up what the exit tested, once
                    scope = scope.guarded([ONCE])
                dataset = self._dataset_test(statement.test)
                if dataset:
                    scope.not_datasets = scope.not_datasets | {dataset}

    def _dataset_test(self, test: ast.expr) -> Optional[str]:
        """``isinstance(x, tf.data.Dataset)``, or a call of a module function that returns
        such a test of its argument (``_is_tf_dataset(x)``): the name tested."""
        if not (isinstance(test, ast.Call) and len(test.args) in (1, 2)
                and isinstance(test.args[0], ast.Name)):
            return None
        if len(test.args) == 2:
            if self._qualified(test.func) == "builtins.isinstance" and self._is_dataset_type(
                    test.args[1]):
                return test.args[0].id
            return None
        if isinstance(test.func, ast.Name) and test.func.id in self.dataset_predicates:
            return test.args[0].id
        return None

    def _is_dataset_type(self, node: ast.expr) -> bool:
        """``tf.data.Dataset`` by import, or so spelled through a ``tf`` the imports cannot
        tell (``from .utils import tf``)."""
        qualified = self._qualified(node) or ""
        if qualified.startswith("tensorflow."):
            return qualified.startswith("tensorflow.data.")
        return (ast_dotted_name(node) or "").endswith("data.Dataset")

    def _dataset_predicate(self, node: ast.FunctionDef) -> bool:
        """``def _is_tf_dataset(x): return tf is not None and isinstance(x, tf.data.Dataset)``."""
        if len(node.args.args) != 1 or len(node.body) != 1:
            return False
        body = node.body[0]
        if not isinstance(body, ast.Return) or body.value is None:
            return False
        value = body.value
        terms = value.values if isinstance(value, ast.BoolOp) and isinstance(
            value.op, ast.And) else [value]
        return any(self._dataset_test(term) == node.args.args[0].arg for term in terms)

    def visit_If(self, node: ast.If, scope: _Scope) -> None:
        self.visit(node.test, scope)
        body = self._branch(node.test, True, scope)
        if scope.function is not None and (guards.sets_tested(
                node.body, guards.init_targets(node.test, certain=True))
                or guards.clears_tested_flag(node.body, node.test)):
            # ``if not self.ready: ...; self.ready = True``, ``if self.first: ...;
            # self.first = False``
            body = body.guarded([ONCE])
        self._visit_block(node.body, body)
        self._visit_block(node.orelse, self._branch(node.test, False, scope))

    def visit_IfExp(self, node: ast.IfExp, scope: _Scope) -> None:
        self.visit(node.test, scope)
        self.visit(node.body, self._branch(node.test, True, scope))
        self.visit(node.orelse, self._branch(node.test, False, scope))

    def visit_ClassDef(self, node: ast.ClassDef, scope: _Scope) -> None:
        self._visit_all(node.decorator_list, scope)
        self._visit_all(node.bases, scope)
        qualname = (scope.function.qualname + "." if scope.function else
                    scope.cls.qualname + "." if scope.cls else "") + node.name
        text = "".join(self.lines[node.lineno - 1:node.end_lineno])
        eager = bool(_EAGER_CLASS.search(text)) or any(
            isinstance(item, ast.FunctionDef) and item.name == "__init__"
            and EAGER_SWITCH_ON.search("".join(self.lines[item.lineno - 1:item.end_lineno]))
            for item in node.body)
        own = node.name if scope.function is None and scope.cls is None else None
        info = ClassInfo(qualname, [t for t in (self._class_ref(base, own) for base in node.bases)
                                    if t],
                         {}, node.lineno, node.end_lineno, eager,
                         trains_itself=self._trains_itself(node),
                         builds_functional="Input" in text and self._builds_functional(node))
        if scope.function is None and scope.cls is None:
            self.index.classes[qualname] = info
        else:
            self.index.classes.setdefault(qualname, info)
        self.class_defs[qualname] = frozenset(
            item.name for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
        body_scope = _Scope(None, None, info)
        for statement in node.body:
            self.visit(statement, body_scope)

    def _builds_functional(self, node: ast.ClassDef) -> bool:
        """A method other than ``call`` binds symbolic inputs (``keras.Input(...)``), passes
        them to ``self.call`` (or ``self(...)``) and makes a ``keras.Model`` (see
        ``ClassInfo.builds_functional``)."""
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name == "call":
                continue
            text = "".join(self.lines[item.lineno - 1:item.end_lineno])
            if not ("Model" in text and "Input" in text and ("self(" in text
                                                             or "call(" in text)):
                continue  # cheaper than the walk: the text lacks what it needs
            symbolic: Set[str] = set()
            calls_self = makes_model = False
            for part in walk_nodes(item):
                if not isinstance(part, (ast.Assign, ast.Call)):
                    continue
                if isinstance(part, ast.Assign):
                    if self._keras_input(part.value):
                        symbolic.update(n.id for target in part.targets
                                        for n in walk_nodes(target) if isinstance(n, ast.Name))
                    continue
                func = part.func
                qualified = self._qualified(func) or ""
                if qualified.endswith(("keras.Model", "keras.models.Model")):
                    makes_model = True
                elif ((isinstance(func, ast.Name) and func.id == "self"
                       or isinstance(func, ast.Attribute) and func.attr == "call"
                       and isinstance(func.value, ast.Name) and func.value.id == "self")
                      and (_symbolic_value(part, symbolic)
                           or any(self._keras_input(a) for a in part.args))):
                    calls_self = True
            if calls_self and makes_model:
                return True
        return False

    def _trains_itself(self, node: ast.ClassDef) -> bool:
        """The class has a ``def fit`` that does not hand over to Keras's (``_KERAS_FIT``);
        see ``ClassInfo.trains_itself``."""
        return any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and item.name == "fit" and not _KERAS_FIT.search(
                       "".join(self.lines[item.lineno - 1:item.end_lineno]))
                   for item in node.body)

    def visit_With(self, node: ast.With, scope: _Scope) -> None:
        self._visit_all(node.items, scope)
        escapes = any(isinstance(item.context_expr, ast.Call)
                      and self._qualified(item.context_expr.func) == INIT_SCOPE
                      for item in node.items)
        body_scope = scope.without_edges() if escapes else scope
        for statement in node.body:
            self.visit(statement, body_scope)

    visit_AsyncWith = visit_With

    def _asks_eagerly(self, name: str, value: Optional[ast.expr], scope: _Scope) -> None:
        """``name.run_eagerly = value`` or ``name.compile(..., run_eagerly=value)``: Keras
        runs the model eagerly from then on when ``value`` is ``True``; anything else (a
        ``compile`` without it sets it back) may be a graph."""
        if _is_true(value):
            scope.eager_models.add(name)
        else:
            scope.eager_models.discard(name)

    def visit_AugAssign(self, node: ast.AugAssign, scope: _Scope) -> None:
        self.generic_visit(node, scope)
        self._sets_model_attribute(node.target, node.lineno, scope)

    def _sets_model_attribute(self, target: ast.expr, line: int, scope: _Scope) -> None:
        """``self.model.<name> = ...`` in a hook (``on_...``) of a class: what a Keras
        callback sets on the model it trains (``ModuleIndex.callback_model_writes``)."""
        function = scope.function
        if (function is None or scope.cls is None or target.__class__ is not ast.Attribute
                or not function.qualname.startswith(scope.cls.qualname + ".on_")):
            return
        holder = target.value
        if (holder.__class__ is ast.Attribute and holder.attr == "model"
                and holder.value.__class__ is ast.Name and holder.value.id == "self"):
            self.index.callback_model_writes.setdefault(target.attr, line)

    def visit_Assign(self, node: ast.Assign, scope: _Scope) -> None:
        self.generic_visit(node, scope)
        if scope.cls is not None and scope.function is not None:
            for target in node.targets:
                self._sets_model_attribute(target, node.lineno, scope)
        if scope.eager_models or any(isinstance(t, ast.Attribute) for t in node.targets):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.eager_models.discard(target.id)  # another model
                elif (isinstance(target, ast.Attribute) and target.attr == "run_eagerly"
                        and isinstance(target.value, ast.Name)):
                    self._asks_eagerly(target.value.id, node.value, scope)
        if self.module_aliases:
            self._passes_modules((node.value,))
        if (scope.function is None and scope.cls is None
                and isinstance(node.value, ast.Call)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.made.append((target.id, node.value.func))
        if scope.function is None and scope.cls is None:
            symbolic = (self._symbolic_call(node.value) if isinstance(node.value, ast.Call)
                        else bool(self.symbolic) and _symbolic_value(node.value, self.symbolic))
            for target in node.targets:
                for bound in walk_nodes(target):
                    if isinstance(bound, ast.Name):
                        (self.symbolic.add if symbolic else self.symbolic.discard)(bound.id)
        if scope.function is not None:
            for target in node.targets:
                if isinstance(target, ast.Name):  # ``svm = SVC(...)`` in a function
                    known = scope.locals_made[target.id] = (
                        f"{scope.function.qualname}:{target.id}")
                    self.made.append((known, node.value.func if isinstance(
                        node.value, ast.Call) else None))
        if scope.function is not None and scope.cls is not None:
            for target in node.targets:
                attribute = _own_attribute(target, scope.cls)
                if attribute is not None:  # ``self.svm = SVC(...)``; anything else: unknown
                    self.made.append((attribute, node.value.func if isinstance(
                        node.value, ast.Call) else None))
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.IfExp) and all(
                    isinstance(branch, (ast.Name, ast.Attribute))
                    for branch in (value.body, value.orelse)):
                scope.chosen[node.targets[0].id] = [value.body, value.orelse]
            elif isinstance(value, ast.Lambda):
                scope.chosen[node.targets[0].id] = [value]  # ``cond = lambda i: i < n``
            else:
                scope.chosen.pop(node.targets[0].id, None)
            made = self._partial(value, scope)
            if made is not None:
                scope.partials[node.targets[0].id] = made
            else:
                scope.partials.pop(node.targets[0].id, None)
            if scope.function is not None:
                name = node.targets[0].id
                scope.py_functions[name] = scope.py_functions.get(name, True) and all(
                    self._names_py_function(branch) for branch in (
                        (value.body, value.orelse) if isinstance(value, ast.IfExp)
                        else (value,)))
        if scope.function is not None and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            name = node.targets[0].id
            test = isinstance(node.value, (ast.BoolOp, ast.UnaryOp, ast.Call, ast.Compare))
            scope.aliases[name] = node.value if test and name not in scope.aliases else None
        if scope.function is not None:
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    scope.function.writes.add(target.attr)
        if len(node.targets) == 1 and self.tracks_datasets:
            self._bind_datasets(node.targets[0], self._dataset_value(node.value, scope), scope,
                                isinstance(node.value, ast.Call)
                                and self._factory_value(node.value) is not None)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name not in scope.datasets and isinstance(node.value, ast.Call):
                class_name = ast_dotted_name(node.value.func)
                if class_name and class_name in self.index.classes:
                    scope.instances[name] = class_name

    def _symbolic_call(self, call: ast.Call) -> bool:
        """A module-level call that makes a symbolic Keras tensor: ``keras.Input(...)``, or
        a call given one (``layer(inputs)``, ``Dense(4)(x)``)."""
        if self.symbolic and _symbolic_value(call, self.symbolic):
            return True
        return self._keras_input(call)

    def _keras_input(self, value: ast.expr) -> bool:
        """``keras.Input(...)`` (``tf.keras.layers.Input(...)`` …)."""
        return isinstance(value, ast.Call) and (
            self._qualified(value.func) or "").endswith(_KERAS_INPUTS)

    def _instance_class(self, value: ast.expr, scope: _Scope) -> Optional[str]:
        """The module's class ``value`` is an instance of, when known: ``self`` in a method,
        or a name bound to ``SomeClass(...)``."""
        if not isinstance(value, ast.Name):
            return None
        if value.id == "self" and scope.function is not None and scope.cls is not None:
            return scope.cls.qualname
        return scope.instances.get(value.id)

    def visit_Return(self, node: ast.Return, scope: _Scope) -> None:
        value = node.value
        if self.module_aliases:
            self._passes_modules((value,))
        if scope.function is not None and self.tracks_datasets:
            key = scope.function.key
            self.returns_datasets[key] = self.returns_datasets.get(key, True) and (
                value is not None and self._dataset_value(value, scope) is DATASET)
        if (scope.function is not None and isinstance(value, ast.Call)
                and self._qualified(value.func) == TF_FUNCTION):
            scope.function.wraps_tf_function = True
        if scope.function is not None and scope.function.custom_gradient and scope.edges:
            # ``return y, grad_fn``: TensorFlow calls grad_fn to build the gradient.
            for element in value.elts if isinstance(value, ast.Tuple) else ():
                target = self._callable(element, scope) if isinstance(element, ast.Name) else None
                if target is not None:
                    self._add_edge(scope, target, node.lineno, PASSED)
        self.generic_visit(node, scope)

    def visit_Lambda(self, node: ast.Lambda, scope: _Scope) -> None:
        self._visit_all(node.args.defaults, scope)
        self._visit_all(node.args.kw_defaults, scope)
        key = lambda_key(node.lineno, self._char_column(node))
        self.index.lambdas.append(key)
        entry = self.entry_lambdas.pop(id(node), None)
        if entry is None:
            self.visited_lambdas[id(node)] = self.statement_region
            self.visit(node.body, scope)  # runs, if at all, where it is written
            return
        self._lambda_entry(node, entry, scope)

    def _lambda_entry(self, node: ast.Lambda, entry: Tuple[str, int, Optional[FunctionKey]],
                      scope: _Scope) -> None:
        """The lambda ``node`` is handed to an API that traces it (``entry``): a function
        of its own, entered there. A lambda bound to a name first (``cond = lambda i: i <
        n``, then ``tf.while_loop(cond, ...)``) was indexed where it is written as well."""
        key = lambda_key(node.lineno, self._char_column(node))
        if key in self.index.functions:
            self.index.entries.append(Entry(("local", key), *entry[:2], within=entry[2]))
            return
        region = scope.function.region if scope.function else self.visited_lambdas.get(
            id(node), self.statement_region)
        info = FunctionInfo(key, "<lambda>", region, scope.cls.qualname if scope.cls else None)
        self.index.functions[key] = info
        self.index.nodes[key] = node
        how, line, within = entry
        self.index.entries.append(Entry(("local", key), how, line, within=within))
        self.visit(node.body, _Scope(info, scope if scope.function else None, scope.cls))

    # calls ---------------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute, scope: _Scope) -> None:
        value = node.value
        if value.__class__ is ast.Name:
            target = self.module_aliases.get(value.id)
            if target is not None:
                self.index.module_reads.add(f"{target}.{node.attr}")
        elif value.__class__ not in _LEAVES:
            self.visit(value, scope)

    def _passes_modules(self, values: Iterable[Optional[ast.expr]]) -> None:
        for value in values:
            if value.__class__ is ast.Name and value.id in self.module_aliases:
                self.index.modules_passed.add(self.module_aliases[value.id])

    def visit_Call(self, node: ast.Call, scope: _Scope) -> None:
        func = node.func
        qualified = self._qualified(func)
        if self.module_aliases and qualified not in _RELOADS:
            self._passes_modules(node.args)
            self._passes_modules(keyword.value for keyword in node.keywords)
        attr = func.attr if func.__class__ is ast.Attribute else None
        receiver_name = (func.value.id if attr is not None and func.value.__class__ is ast.Name
                         else None)  # ``mod`` of ``mod.f(x)``
        if qualified and receiver_name in self.imported_aliases:
            self.index.module_calls.add(qualified)  # ``mod._helper(x)``, through its module
        elif (attr is not None and attr[0] == "_" and not attr.endswith("__")
              and receiver_name not in ("self", "cls")):
            self.index.private_calls.add(attr)
        # Keras's runs and exports take the data or the path: ``model.predict()`` with
        # nothing to predict is a method of the project's own (a wrapped SVM's).
        given = bool(node.args or node.keywords)
        eager = attr in KERAS_RUNS and given and receiver_name in scope.eager_models
        if attr == "compile" and receiver_name not in self.imported_aliases:
            value = next((k.value for k in node.keywords if k.arg == "run_eagerly"), None)
            if _is_true(value):
                self.index.compiles_eagerly = True
            else:
                self.index.compiles_keras = True
            if receiver_name is not None:
                self._asks_eagerly(receiver_name, value, scope)
        own = False
        if attr in _KERAS_RUNS_AND_EXPORTS and given:
            receiver = self._callable(func, scope)
            if receiver is not None and receiver[0] == "method" and receiver[1] in (
                    self.index.classes):
                # (a class that defines its own ``evaluate`` runs that, not Keras's)
                own = (attr in self.index.classes[receiver[1]].methods
                       or attr in self.class_defs.get(receiver[1], ()))
                if not own:
                    (self.index.eager_run_classes if eager
                     else self.index.keras_trained_classes if attr in KERAS_TRAINING
                     else self.index.keras_run_classes).add(receiver[1])
        if eager:
            self.index.eager_keras_runs.append(receiver_name)
        elif own and receiver_name in ("self", "cls"):
            pass  # ``self.evaluate(data)`` in a class that defines ``evaluate``: its own
        elif attr in KERAS_RUNS and given and receiver_name not in self.module_aliases:
            self.index.keras_runs.append((scope.locals_made.get(receiver_name, receiver_name)
                                          if receiver_name else _own_attribute(
                                              func.value, scope.cls) if scope.cls else None,
                                          attr))
        elif attr in _KERAS_EXPORTS and given and receiver_name is not None:
            self.index.keras_exports.append(receiver_name)
        elif qualified and _builds_keras_graph(qualified, node):
            exported = (self._instance_class(node.args[0], scope)
                        if qualified.endswith(_KERAS_GRAPH_EXPORTS) and node.args else None)
            if exported is not None:  # ``tf.saved_model.save(self, path)``: that class only
                self.index.keras_run_classes.add(exported)
            else:
                self.index.builds_keras_graphs = True
                if qualified.endswith(_KERAS_GRAPH_EXPORTS):
                    self.index.exports_keras_graphs = True
        if attr in _KERAS_STEPS and not (
                isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "super"):
            receiver = self._callable(func, scope)
            call = (func.attr, receiver[1] if receiver and receiver[0] in ("method", "super")
                    else None)
            self.index.step_calls.add(call)
            if not any(outer.function.key in self.traced_defs
                       or outer.function.qualname.rpartition(".")[2] in KERAS_GRAPH_METHODS
                       for outer in _chain(scope)):
                self.index.loop_step_calls.add(call)
        if scope.function is None and attr in _STEPS_AND_RUNS and receiver_name is not None:
            self.index.eager_steps.add((receiver_name, attr))
        elif (scope.function is None and func.__class__ is ast.Name
              and not self._symbolic_call(node)):
            self.index.eager_steps.add((func.id, "__call__"))  # ``model(x)``, run eagerly
        skipped: Set[int] = set()
        if is_py_function(qualified, attr) or (
                func.__class__ is ast.Name and scope.py_functions.get(func.id)):
            for callable_ in _arguments(node, (0,), ("func",)):
                skipped.add(id(callable_))
                if isinstance(callable_, ast.Name):
                    self._eager_parameter(callable_.id, scope)
                    for called in self._parameters_called_by(callable_, scope):
                        self._eager_parameter(called, scope)
                if isinstance(callable_, ast.Lambda):  # a lambda all the same: keys by order
                    self.index.lambdas.append(
                        lambda_key(callable_.lineno, self._char_column(callable_)))
                    self.visit(callable_.body, scope.without_edges())
        elif qualified == TF_FUNCTION:
            self._entries(node, (0,), ("func",), "tf.function(...)", scope)
        elif qualified in GRAPH_APIS:
            spelling, positions, keywords = GRAPH_APIS[qualified]
            self._entries(node, positions, keywords, f"{spelling}(...)", scope)
        elif qualified in CONTROL_FLOW_APIS:
            if scope.function is not None:  # at module level they run eagerly
                spelling, positions, keywords = CONTROL_FLOW_APIS[qualified]
                self._entries(node, positions, keywords, f"{spelling}(...)", scope,
                              within=scope.function.key)
        elif isinstance(func, ast.Attribute):
            if func.attr in DATASET_METHODS and self._is_dataset(func.value, scope):
                positions, keywords = DATASET_METHODS[func.attr]
                self._entries(node, positions, keywords, f"Dataset.{func.attr}(...)", scope)
            elif (func.attr in STRATEGY_METHODS and scope.function is not None
                  and self._is_strategy(func.value)):
                positions, keywords = STRATEGY_METHODS[func.attr]
                self._entries(node, positions, keywords, f"strategy.{func.attr}(...)", scope,
                              within=scope.function.key)
        arguments = [a for a in (*node.args, *(k.value for k in node.keywords))
                     if id(a) not in skipped]
        skipped_lambdas: Set[int] = set()
        if scope.edges:
            if func.__class__ is ast.Name and func.id == "self" and scope.cls is not None:
                callee = ("method", scope.cls.qualname, "__call__")  # ``self(x)``: calls it
            else:
                callee = self._callable(func, scope)
            if attr in _MODEL_CALLS or callee is None and not (
                    attr is not None or func.__class__ is ast.Name and qualified):
                scope.function.calls_objects = True
            elif callee is None and attr is not None:  # ``obj.method(x)``, ``obj`` unknown
                held = _own_attribute(func.value, scope.cls) if scope.cls else None
                if held is None:
                    scope.function.calls_objects = True
                else:  # ``self.dist.sample(n)``: settled once the class is known
                    self.attribute_calls.append((scope.function, held))
                    # ``self.pool.query(x)`` where ``self.pool = ImagePool(...)``: the
                    # method of the class the attribute holds (``ProjectGraph.resolve``),
                    # an edge once the module shows that class
                    self.held.setdefault(held, []).append(
                        (scope.function, ("held", held, attr), node.lineno, scope.guards,
                         self._passed(node, scope)))
            if callee is not None:
                if (callee[0] == "method" and isinstance(func, ast.Attribute)
                        and isinstance(func.value, ast.Name)
                        and func.value.id in scope.instances):
                    scope.function.fresh_edges.add(len(scope.function.edges))
                self._add_edge(scope, callee, node.lineno, CALLED,
                               passed=self._passed(node, scope))
            # A function handed to another call (tf.nest.map_structure(fn, ...)) runs there,
            # unless that callee hands it to tf.py_function (settled by the call graph), or
            # the call starts a process or thread to run it (outside any trace).
            # ``functools.partial(f, ...)`` runs nothing: what it makes runs where it goes.
            positions = None
            elsewhere = (qualified or ast_dotted_name(func) or "").rpartition(".")[2] in (
                _RUNS_ELSEWHERE) or qualified == "functools.partial"
            for argument in arguments if not elsewhere else ():
                if isinstance(argument, (ast.Name, ast.Attribute)) or (
                        argument.__class__ is ast.Call
                        and self._partial(argument, scope) is not None):
                    target = self._callable(argument, scope)
                    if target is not None:
                        if positions is None:
                            positions = {id(a): i for i, a in enumerate(node.args)}
                        if callee is not None:
                            slot = positions.get(id(argument), next(
                                (k.arg for k in node.keywords if k.value is argument), None))
                            self.index.passed_callables.append(
                                (self._one(callee), slot, self._one(target), node.lineno))
                        extra = (("eager-arg", callee, positions[id(argument)]),) if (
                            callee is not None and id(argument) in positions) else ()
                        if _ONCE_CALLEE.search(qualified or ast_dotted_name(func) or ""):
                            extra += (ONCE,)
                        self._add_edge(scope, target, node.lineno, PASSED, extra)
            if callee is not None and not elsewhere:
                # A lambda handed over runs where the callee runs it: what it calls is
                # traced unless the callee hands that parameter to tf.py_function
                # (``new_py_function(lambda d: parse(d), [d], Tout)``).
                for position, argument in enumerate(node.args):
                    if isinstance(argument, ast.Lambda) and id(argument) not in skipped:
                        self.visit(argument, scope.guarded(
                            (("eager-arg", callee, position),)))
                        skipped_lambdas.add(id(argument))
                        if callee[0] != "external" or not callee[1].startswith(
                                ("tensorflow.", "keras.", "numpy.", "builtins.")):
                            self.index.handed_lambdas.append((self._one(callee), position, (
                                lambda_key(argument.lineno, self._char_column(argument)))))
        elif scope.function is None and arguments:  # module level: only what it passes
            callee = self._callable(func, scope)
            for position, argument in enumerate(node.args):
                if callee is not None and isinstance(argument, (ast.Name, ast.Attribute)):
                    target = self._callable(argument, scope)
                    if target is not None:
                        self.index.passed_callables.append(
                            (self._one(callee), position, self._one(target), node.lineno))
        self.visit(func, scope)
        for argument in arguments:
            if id(argument) not in skipped_lambdas:
                self.visit(argument, scope)

    def _entries(self, call: ast.Call, positions, keywords, how: str, scope: _Scope,
                 within: Optional[FunctionKey] = None) -> None:
        for argument in _arguments(call, positions, keywords):
            if isinstance(argument, ast.Name) and argument.id in scope.chosen:
                callables = scope.chosen[argument.id]  # either may be the one handed over
            else:
                callables = _callables(argument)
            for callable_ in callables:
                if isinstance(callable_, ast.Lambda):
                    if id(callable_) in self.visited_lambdas:  # bound to a name before
                        self._lambda_entry(callable_, (how, call.lineno, within), scope)
                    else:
                        self.entry_lambdas[id(callable_)] = (how, call.lineno, within)
                    continue
                target = self._callable(callable_, scope)
                if target is not None:
                    self._add_entry(target, how, call.lineno, _flags(scope.guards)
                                    if target[0] in ("local", "method") else (), within)
                elif isinstance(callable_, ast.Name) and within is None:
                    self._traced_parameter(callable_.id, scope, how)

    def _add_entry(self, target: Target, how: str, line: int,
                   flags: Tuple[Tuple[str, bool], ...] = (),
                   within: Optional[FunctionKey] = None) -> None:
        if target[0] == "name":
            self.pending_entries.append((target[1], how, line, self.statement_region[0],
                                         within))
        else:
            self.index.entries.append(Entry(target, how, line, flags=flags, within=within))

    def _add_edge(self, scope: _Scope, target: Target, line: int, how: str,
                  extra: Tuple[Tuple, ...] = (), passed: Union[Tuple, int, None] = None
                  ) -> None:
        function = scope.function
        conditions = scope.guards + extra
        if target[0] == "name":
            self.pending.append((function, target[1], line, how, conditions,
                                 self.statement_region[0], passed))
        else:
            self._append_edge(function, target, line, how, conditions, passed)

    def _append_edge(self, function: FunctionInfo, target: Target, line: int, how: str,
                     conditions: Tuple, passed: Union[Tuple, int, None]) -> None:
        if conditions:
            function.edge_guards[len(function.edges)] = conditions
        if passed is not None:
            function.edge_args[len(function.edges)] = passed
        function.edges.append((self._one(target), line, how))

    def _one(self, value: _V) -> _V:
        """``value`` (a target, a decorator's spelling) as the first equal one this module
        made: a module names the same callee many times, and the process joining a project
        holds every module's calls and decorations (pickled, equal values that are one
        object stay one)."""
        return self.shared.setdefault(value, value)

    def _passed(self, call: ast.Call, scope: _Scope) -> Union[Tuple, int, None]:
        """What ``call`` passes, as ``FunctionInfo.edge_args`` keeps it."""
        func = call.func
        if (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
                and func.value.id in self.index.classes):
            return None  # ``Net.build(self, ...)``: the first argument is ``self``
        params = scope.function.flag_params
        if not call.keywords:
            for argument in call.args:
                cls = argument.__class__
                if (cls is ast.Starred or cls is ast.Constant and argument.value.__class__ is bool
                        or cls is ast.Name and (argument.id in params
                                                or argument.id + guards.IS_NONE in params)):
                    break
            else:
                return len(call.args)  # positional arguments only, none of them known
        positional, open_ = [], False
        for argument in call.args:
            if argument.__class__ is ast.Starred:
                open_ = True
                break
            positional.append(_passed_value(argument, params))
        keywords = []
        for keyword in call.keywords:
            if keyword.arg is None:
                open_ = True
            else:
                keywords.append((keyword.arg, _passed_value(keyword.value, params)))
        passed = (tuple(positional), tuple(keywords), open_)
        # Most calls pass the same: one tuple each, pickled once.
        return self.passed.setdefault(passed, passed)

    def _traced_parameter(self, name: str, scope: _Scope, how: str) -> None:
        """``name``, handed to tf.function or a graph API (``how``), is a parameter of this
        function: record how its callers pass it, and the API that traces it."""
        function = scope.function
        node = self.index.nodes.get(function.key) if function is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        if name in positional:
            bound = function.class_qualname is not None and not any(
                ast_dotted_name(d) == "staticmethod" for d in node.decorator_list)
            position = positional.index(name) - bound
            if position >= 0:
                function.traced_params.add(position)
                function.traced_param_apis.setdefault(position, how)
        if name in positional or name in {a.arg for a in node.args.kwonlyargs}:
            function.traced_params.add(name)
            function.traced_param_apis.setdefault(name, how)

    def _eager_parameter(self, name: str, scope: _Scope) -> None:
        """``name``, handed to tf.py_function, is a parameter of this function or of one
        enclosing it (a closure of a wrapper): record its position there."""
        for outer in _chain(scope):
            node = self.index.nodes.get(outer.function.key)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return
            positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            if name in positional:
                outer.function.eager_params.add(positional.index(name))
                return
            if name in function_local_names(node):
                return

    def _parameters_called_by(self, name: ast.Name, scope: _Scope) -> List[str]:
        """The names a nested function ``name`` calls that it does not bind itself: in
        ``def inner(*a): fn(*a)`` handed to tf.py_function, a parameter ``fn`` of the
        enclosing wrapper runs eagerly too."""
        target = self._callable(name, scope) if scope.function is not None else None
        node = self.index.nodes.get(target[1]) if target and target[0] == "local" else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        own = function_local_names(node)
        return [call.func.id for call in walk_nodes(node)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id not in own]

    def _resolve_pending(self) -> None:
        """Names used before the module-level def that binds them."""
        for function, name, line, how, conditions, position, passed in self.pending:
            if how == CALLED and name not in self.index.top_level and (
                    name not in self.index.classes):
                function.calls_objects = True  # ``model(x)`` of a module-level ``model``
            if name in self.index.top_level:
                if conditions:
                    function.edge_guards[len(function.edges)] = conditions
                if passed is not None:
                    function.edge_args[len(function.edges)] = passed
                function.edges.append((self._one(("local", self._in_force(name, position))),
                                       line, how))
        for name, how, line, position, within in self.pending_entries:
            if name in self.index.top_level:
                self.index.entries.append(Entry(("local", self._in_force(name, position)),
                                                how, line, within=within))
        for target, key, how, line in self.pending_decorated:
            if target[0] == "name":
                if target[1] not in self.index.top_level:
                    continue
                target = ("local", self.index.top_level[target[1]])
            self.index.decorated.append(Entry(self._one(target), self._one(how), line, key))

    def _in_force(self, name: str, position: int) -> FunctionKey:
        """The module-level def of ``name`` that code of the top-level statement starting at
        ``position`` reaches: the last one defined by then (statement order), else the first
        (a function that runs later than the def it names)."""
        defs = self.defs.get(name)
        if not defs or len(defs) == 1:
            return self.index.top_level[name]
        before = [key for start, key in defs if start <= position]
        return before[-1] if before else defs[0][1]

    # resolution ----------------------------------------------------------------------------
    def _resolve(self, dotted: str) -> Optional[str]:
        """``dotted`` as the module binds it where the current statement runs."""
        return self.names.resolve(dotted, line=self.statement_region[0])

    def _qualified(self, node: ast.expr) -> Optional[str]:
        """``node``'s canonical name, once per node (a call's callee is asked for by several
        analyses of the call)."""
        known = self.qualified
        found = known.get(id(node), _UNKNOWN)
        if found is _UNKNOWN:
            dotted = ast_dotted_name(node)
            found = known[id(node)] = self._resolve(dotted) if dotted else None
        return found

    def _tracing_decorator(self, decorator: ast.expr) -> Optional[str]:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = ast_dotted_name(target)
        if dotted is None:
            return None
        if dotted in self.extra or self._resolve(dotted) in self.extra | {TF_FUNCTION}:
            return f"@{dotted}"
        return None

    def _names_py_function(self, node: ast.expr) -> bool:
        """``node`` names ``tf.py_function`` or a kin (``tf.numpy_function``,
        ``tf.py_func``), not a call of it."""
        return isinstance(node, (ast.Name, ast.Attribute)) and is_py_function(
            self._qualified(node), node.attr if isinstance(node, ast.Attribute) else None)

    def _partial(self, node: ast.expr, scope: _Scope) -> Optional[Target]:
        """What calling ``functools.partial(f, ...)`` runs: ``f``."""
        if node.__class__ is ast.Call and node.args and (
                self._qualified(node.func) == "functools.partial"):
            return self._callable(node.args[0], scope)
        return None

    def _callable(self, node: ast.expr, scope: _Scope) -> Optional[Target]:
        """What calling ``node`` runs, as far as this module can tell."""
        if isinstance(node, ast.Name):
            made = scope.partials.get(node.id) if scope.partials else None
            if made is not None:
                return made
            key = scope.lookup(node.id)
            if key is not None:
                return ("local", key)
            if node.id in self.shadowed and self.statement_region[0] > self.shadowed[node.id]:
                return None  # ``netD = netD()`` above: the object the def made
            bound = node.id in self.index.module_bindings
            qualified = None if bound else self._resolve(node.id)
            if not bound and not qualified:
                return None  # a name the module does not know: the function's locals can't tell
            if any(node.id in self._locals(outer) for outer in _chain(scope)):
                return None  # a parameter or variable shadows the module's name
            return ("name", node.id) if bound else ("external", qualified)
        if isinstance(node, ast.Attribute):
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls") and scope.cls:
                return ("method", scope.cls.qualname, node.attr)
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id == "super" and scope.cls):
                return ("super", scope.cls.qualname, node.attr)
            if isinstance(value, ast.Name) and value.id in scope.instances:
                return ("method", scope.instances[value.id], node.attr)
            if isinstance(value, ast.Name) and value.id in self.index.classes:
                return ("method", value.id, node.attr)
            qualified = self._qualified(node)
            return ("external", qualified) if qualified else None
        return self._partial(node, scope)

    def _class_ref(self, node: ast.expr, own: Optional[str] = None) -> Optional[Target]:
        """The class a base names. ``own``: the name of the module-level class being
        defined, which its bases read as bound before it (``class Encoder(Encoder):``
        derives from the imported ``Encoder``)."""
        dotted = ast_dotted_name(node)
        if dotted is None:
            return None
        if own is not None and dotted.partition(".")[0] == own:
            qualified = self._bound_before(dotted, node.lineno)
            return ("external", qualified) if qualified else None
        if dotted in self.index.classes:
            return ("class", dotted)
        qualified = self._resolve(dotted)
        return ("external", qualified) if qualified else None

    def _bound_before(self, dotted: str, line: int) -> Optional[str]:
        """``dotted`` as the module's imports bound its first name before ``line``, or, with
        none, as a star import brings it; None when something else bound it last."""
        head, _, rest = dotted.partition(".")
        last = None
        for name, at, kind, target, _ in self.index.bindings:
            if name == head and at < line:
                last = (kind, target)
        if last is None:
            return self.names.from_stars(dotted)
        if last[0] != IMPORT:
            return None
        return canonical(f"{last[1]}.{rest}" if rest else last[1])

    def _dataset_value(self, node: ast.expr, scope: _Scope) -> Optional[object]:
        """What ``node`` holds as far as datasets go: ``DATASET``, a collection of them
        (``[...]`` of kinds by position, ``MANY`` when keyed or unknown), or None."""
        if isinstance(node, ast.Call):
            value = self._factory_value(node)
            if value is not None:
                return value
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            values = [self._dataset_value(e, scope) for e in node.elts]
            return values if any(v is not None for v in values) else None
        if isinstance(node, ast.Dict) and node.values:
            values = [self._dataset_value(v, scope) for v in node.values if v is not None]
            return MANY if values and all(v is DATASET for v in values) else None
        if isinstance(node, ast.Subscript):
            container = self._dataset_value(node.value, scope)
            if container is MANY:
                return DATASET
            index = node.slice
            if (isinstance(container, list) and isinstance(index, ast.Constant)
                    and isinstance(index.value, int) and -len(container) <= index.value
                    < len(container)):
                return container[index.value]
            return None
        if isinstance(node, ast.Name) and node.id in scope.dataset_groups:
            return scope.dataset_groups[node.id]
        if isinstance(node, ast.Name) and scope is not self.module_scope and (
                node.id in self.module_scope.dataset_groups
                and node.id not in self._locals(scope)):
            return self.module_scope.dataset_groups[node.id]
        return DATASET if self._is_dataset(node, scope) else None

    def _factory_value(self, node: ast.Call) -> Optional[object]:
        """What a call of ``tfds.load`` or a Keras ``*_dataset_from_directory`` returns."""
        qualified = self._qualified(node.func) or ""
        if qualified == "tensorflow_datasets.load":
            split = next((k.value for k in node.keywords if k.arg == "split"),
                         node.args[1] if len(node.args) > 1 else None)
            value: object = (DATASET if split is not None and not isinstance(
                split, (ast.List, ast.Tuple, ast.Dict)) else MANY)
            if isinstance(split, (ast.List, ast.Tuple)):
                value = [DATASET] * len(split.elts)
            with_info = any(k.arg == "with_info" and isinstance(k.value, ast.Constant)
                            and k.value.value is True for k in node.keywords)
            return [value, None] if with_info else value
        if qualified.startswith(_DATASET_FACTORIES):
            both = any(k.arg == "subset" and isinstance(k.value, ast.Constant)
                       and k.value.value == "both" for k in node.keywords)
            return [DATASET, DATASET] if both else DATASET
        return None

    def _bind_datasets(self, target: ast.expr, value: Optional[object], scope: _Scope,
                       loaded: bool = False) -> None:
        """Record the names an assignment binds to datasets (``train, test = tfds.load(...,
        split=["train", "test"])``) or to collections of them (``splits = tfds.load(...)``).
        ``loaded``: the value is what a dataset factory returned (``tfds.load``)."""
        if isinstance(target, ast.Name):
            if value is DATASET:
                scope.datasets.add(target.id)
            elif value is not None:
                scope.dataset_groups[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value if isinstance(value, list) else None
            if loaded and value is DATASET:
                # ``(train, test), info = tfds.load(..., split=list(splits), with_info=True)``:
                # a split the call does not spell as a list, which unpacks into datasets
                values = [DATASET] * len(target.elts)
            if values is None or len(values) != len(target.elts):
                return
            for element, element_value in zip(target.elts, values):
                self._bind_datasets(element, element_value, scope, loaded)

    def _locals(self, scope: _Scope) -> FrozenSet[str]:
        """Names the function of ``scope`` binds itself (they shadow module-level ones)."""
        key = scope.function.key if scope.function else None
        found = self.locals.get(key)
        if found is None:
            node = self.index.nodes.get(key)
            found = self.locals[key] = function_local_names(node) if node else frozenset()
        return found

    def _is_dataset(self, node: ast.expr, scope: _Scope) -> bool:
        while True:
            if isinstance(node, ast.Subscript):
                return self._dataset_value(node, scope) is DATASET
            if isinstance(node, ast.Call):
                qualified = self._qualified(node.func)
                if qualified and qualified.startswith("tensorflow.data."):
                    return True
                if qualified and self._factory_value(node) is DATASET:
                    return True
                if isinstance(node.func, ast.Name):  # a function of the module returning one
                    name = node.func.id
                    key = scope.lookup(name) or (
                        None if scope.function is not None and name in self._locals(scope)
                        else self.index.top_level.get(name))
                    if key is not None and self.returns_datasets.get(key):
                        return True
                if isinstance(node.func, ast.Attribute) and node.func.attr in DATASET_CHAIN_METHODS:
                    node = node.func.value
                    continue
                return False
            if isinstance(node, ast.Name):
                if node.id in scope.not_datasets:
                    return False
                if node.id in scope.datasets or (
                        self.index.dataset_names and DATASET_NAME.search(node.id)):
                    return True
                return (scope is not self.module_scope and node.id in self.module_scope.datasets
                        and node.id not in self._locals(scope))
            if isinstance(node, ast.Attribute):
                return self.index.dataset_names and bool(DATASET_NAME.search(node.attr))
            return False

    def _is_strategy(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            qualified = self._qualified(node.func)
            return bool(qualified and qualified.startswith("tensorflow.distribute."))
        dotted = ast_dotted_name(node)
        return bool(dotted and "strategy" in dotted.rpartition(".")[2].lower())

    def _char_column(self, node: ast.AST) -> int:
        return char_column(node, self.lines)


def char_column(node: ast.AST, lines: Sequence[str]) -> int:
    """``ast`` columns count UTF-8 bytes; LibCST's count characters."""
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    if line.isascii():
        return node.col_offset
    return len(line.encode("utf-8")[:node.col_offset].decode("utf-8", errors="replace"))


#: After a name: the undecorated function (``tf.autograph.to_code(f.python_function)``).
_PYTHON_FUNCTION = lazy_compile(r"\s*\.\s*python_function\b")


def _unnamed(tree: ast.Module, module_text: _Text, script: bool = False
             ) -> Tuple[Tuple[int, int], ...]:
    """Module-level defs and classes named only within themselves (see
    ``ModuleIndex.unnamed``): of a ``script``, not even on a line of code, and none when it
    may look names up as it runs."""
    if script and module_text.looks_names_up():
        return ()
    spans: Dict[str, List[Tuple[int, int]]] = {}
    for statement in tree.body:
        if isinstance(statement, _SCOPES):
            first = min([statement.lineno] + [d.lineno for d in statement.decorator_list])
            spans.setdefault(statement.name, []).append((first, statement.end_lineno))
    if not spans:
        return ()
    text, starts = module_text.joined()
    return tuple(span for name, found in spans.items()
                 if not _named_outside(text, starts, name, found, python_function=True,
                                       comment_lines=not script)
                 for span in found)


#: Top-level packages no project's module is named after (besides the standard library's).
_LIBRARIES = frozenset({
    "tensorflow", "keras", "tf_keras", "numpy", "scipy", "pandas", "matplotlib", "sklearn",
    "torch", "jax", "absl", "tqdm", "PIL", "cv2", "tensorflow_datasets", "tensorflow_hub",
    "tensorflow_probability", "tensorflow_addons", "tensorflow_text", "transformers", "seaborn",
    "yaml", "h5py", "IPython", "google"})
_STANDARD_LIBRARY = frozenset(getattr(sys, "stdlib_module_names", ()))


def may_be_project_module(target: str) -> bool:
    """An imported name may be a module of the project's own: its top-level package is
    not the standard library's nor one of the big libraries' (which the index does not
    follow into: ``tf.keras`` is read thousands of times)."""
    top = target.partition(".")[0]
    return top not in _LIBRARIES and top not in _STANDARD_LIBRARY


#: Text of code that may look a module's names up as it runs (``globals()[name]``), each a
#: word of its own: ``reset_debug_vars()`` and ``model.eval()`` look nothing up.
_NAME_LOOKUP = lazy_compile(r"\b(?:globals|locals)\b|(?<![\w.])(?:vars|eval|exec)\s*\(|"
                            r"__subclasses__|\bsys\.modules\b|__dict__")
#: Where such a lookup may start: searched first, since a pattern that starts with a
#: lookbehind is tried at every position (ten times slower on a module).
_LOOKUP_WORDS = lazy_compile(r"globals|locals|vars|eval|exec|__subclasses__|sys\.modules|__dict__")


#: The words ``_LOOKUP_WORDS`` matches: a text with none of them is not searched.
_LOOKUP_LITERALS = ("globals", "locals", "vars", "eval", "exec", "__subclasses__",
                    "sys.modules", "__dict__")


def _looks_names_up(text: str) -> bool:
    """``text`` has code that may look a module's names up as it runs (``_NAME_LOOKUP``)."""
    return any(word in text for word in _LOOKUP_LITERALS) and any(
        _NAME_LOOKUP.match(text, found.start()) for found in _LOOKUP_WORDS.finditer(text))


def _unnamed_classes(tree: ast.Module, module_text: _Text) -> Tuple[Tuple[str, int, int], ...]:
    """See ``ModuleIndex.unnamed_classes``: of the classes with bases (a class of no base is
    no Keras class, nor reached from one)."""
    classes = [statement for statement in tree.body if statement.__class__ is ast.ClassDef
               and statement.bases and not statement.decorator_list]
    if not classes:
        return ()
    text, starts = module_text.joined()
    found = tuple((statement.name, statement.lineno, statement.end_lineno)
                  for statement in classes if not _named_outside(
                      text, starts, statement.name, [(statement.lineno, statement.end_lineno)]))
    return () if found and module_text.looks_names_up() else found


def _class_users(tree: ast.Module, module_text: _Text, index: ModuleIndex,
                 import_spans: Sequence[Tuple[int, int]]) -> Dict[str, Tuple[str, ...]]:
    """See ``ModuleIndex.class_users``. The text is searched for each name as a word of its
    own, as ``_named_outside`` does: a name it has in a string counts, one on a comment line
    only in a notebook."""
    words: Dict[str, List[str]] = {}
    holders: List[Tuple[int, int, str]] = []
    own: Dict[str, Tuple[int, int]] = {}
    for statement in tree.body:
        if is_main_guard(statement):
            holders.append((statement.lineno, statement.end_lineno, MAIN_GUARD))
        elif statement.__class__ is ast.ClassDef:
            first = min([statement.lineno] + [d.lineno for d in statement.decorator_list])
            holders.append((first, statement.end_lineno, statement.name))
            if statement.bases:
                qualified = f"{index.module}.{statement.name}"
                words.setdefault(statement.name, []).append(qualified)
                own[qualified] = (first, statement.end_lineno)
    for local, target in index.imports:
        if local[:1].isupper() and "." in target and may_be_project_module(target):
            words.setdefault(local, []).append(target)
    for read in index.module_reads:
        name = read.rpartition(".")[2]
        if name[:1].isupper():
            words.setdefault(name, []).append(read)
    # ``from ops import *``: a class name the code reads may be the star module's (the
    # project resolves ``ops.BatchNorm`` through it, or finds no such class there).
    stars = [star for star in index.star_imports if may_be_project_module(star)]
    for name in sorted(index.star_names or ()) if stars else ():
        if name[:1].isupper():
            words.setdefault(name, []).extend(f"{star}.{name}" for star in stars)
    if not words:
        return {}
    text, starts = module_text.joined()
    everywhere = module_text.looks_names_up()
    code_only = not index.path.endswith(".ipynb")  # a notebook's magics are comments
    firsts = [first for first, _, _ in holders]
    imports = {line for first, last in import_spans for line in range(first, last + 1)}
    found: Dict[str, Tuple[str, ...]] = {}
    for word, keys in words.items():
        seen: Set[Tuple[int, str]] = set()  # (line, holder) of each mention
        at = text.find(word)
        while at != -1:
            after = at + len(word)
            if not (at and _identifier_char(text[at - 1])
                    or after < len(text) and _identifier_char(text[after])):
                line = bisect.bisect_right(starts, at)
                if line not in imports and not (
                        code_only and _COMMENT_LINE.match(text, starts[line - 1])):
                    slot = bisect.bisect_right(firsts, line) - 1
                    holder = (holders[slot][2] if slot >= 0 and line <= holders[slot][1]
                              else "")
                    seen.add((line, holder))
            at = text.find(word, after)
        for key in keys:
            span = own.get(key)
            named = {holder for line, holder in seen
                     if span is None or not span[0] <= line <= span[1]}
            if everywhere:
                named.add("")
            found[key] = tuple(sorted(named | set(found.get(key, ()))))
    return found


#: A line that is a comment (commented-out code), matched where the line starts.
_COMMENT_LINE = lazy_compile(r"[ \t]*#")


def _star_names(tree: ast.Module, lines: Sequence[str]) -> Optional[FrozenSet[str]]:
    """See ``ModuleIndex.star_names``."""
    if any(map(_looks_names_up, lines)):
        return None
    first_read: Dict[str, int] = {}
    for node in ast.walk(tree):
        if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load:
            known = first_read.get(node.id)
            if known is None or node.lineno < known:
                first_read[node.id] = node.lineno
    defined: Dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.setdefault(statement.name, statement.lineno)
    # ``class Encoder(Encoder):`` reads the imported one on its own line.
    return frozenset(name for name, line in first_read.items()
                     if name not in defined or line <= defined[name])


def _text_and_starts(lines: Sequence[str]) -> Tuple[str, List[int]]:
    """The lines joined, and where each line starts in the text (one more: its end)."""
    return "\n".join(lines), [0, *itertools.accumulate(len(line) + 1 for line in lines)]


class _Text:
    """A module's text as the searches for names read it: joined once, when first asked
    for, for all of them."""

    def __init__(self, lines: Sequence[str]):
        self.lines = lines
        self._joined: Optional[Tuple[str, List[int]]] = None
        self._lookups: Optional[bool] = None

    def joined(self) -> Tuple[str, List[int]]:
        """``_text_and_starts`` of the lines."""
        if self._joined is None:
            self._joined = _text_and_starts(self.lines)
        return self._joined

    def looks_names_up(self) -> bool:
        """``_looks_names_up`` of the text."""
        if self._lookups is None:
            self._lookups = _looks_names_up(self.joined()[0])
        return self._lookups


def _named_outside(text: str, starts: Sequence[int], word: str,
                   spans: Sequence[Tuple[int, int]], python_function: bool = False,
                   comment_lines: bool = True) -> bool:
    """``text`` has ``word`` as a word of its own (``Net``, not ``NetV2``) outside the line
    ranges ``spans``; with ``python_function``, one that ``.python_function`` does not
    follow; without ``comment_lines``, not on a line that is a comment."""
    ranges = [(starts[first - 1], starts[min(last, len(starts) - 1)]) for first, last in spans]
    at = text.find(word)
    while at != -1:
        after = at + len(word)
        if not (at and _identifier_char(text[at - 1])
                or after < len(text) and _identifier_char(text[after])
                or any(low <= at < high for low, high in ranges)
                or python_function and _PYTHON_FUNCTION.match(text, after)
                or not comment_lines and _on_comment_line(text, starts, at)):
            return True
        at = text.find(word, after)
    return False


def _on_comment_line(text: str, starts: Sequence[int], at: int) -> bool:
    """The line of ``text`` holding offset ``at`` is a comment (commented-out code)."""
    return _COMMENT_LINE.match(text, starts[bisect.bisect_right(starts, at) - 1]) is not None


def _identifier_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _off_flags(tree: ast.Module, lines: Sequence[str]) -> Set[str]:
    """See ``ModuleIndex.off_flags``. Only a module whose text has ``global`` is walked
    for the declarations (``x = None`` at module level is common; ``global`` is not)."""
    bindings: Dict[str, int] = {}
    false: Set[str] = set()
    for statement in iter_statements(tree.body, into_scopes=False):
        for name in statement_bindings(statement):
            bindings[name] = bindings.get(name, 0) + 1
        value = (statement.value if statement.__class__ in (ast.Assign, ast.AnnAssign)
                 else None)
        if value.__class__ is ast.Constant and not value.value:
            targets = (statement.targets if statement.__class__ is ast.Assign
                       else [statement.target])
            false.update(t.id for t in targets if t.__class__ is ast.Name)
    if not false:
        return set()
    declared = {name for node in walk_nodes(tree) if node.__class__ is ast.Global
                for name in node.names} if any("global" in line for line in lines) else ()
    return {name for name in false if bindings.get(name) == 1 and name not in declared}


#: The value handed to Keras as its eager setting: ``run_eagerly=a.b`` in a call,
#: ``x.run_eagerly = a.b``; an attribute, not a plain name (a parameter's name means
#: nothing in another function).
_EAGER_SETTING = lazy_compile(r"run_eagerly\s*=\s*([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+)")


def _eager_settings(lines: Sequence[str]) -> Set[str]:
    """See ``ModuleIndex.eager_settings``."""
    return {"".join(match.group(1).split()) for line in lines if "run_eagerly" in line
            for match in _EAGER_SETTING.finditer(line)}


def _starts_program(statement: ast.stmt) -> bool:
    """``if __name__ == "__main__":``, or ``args = parser.parse_args()`` at module level."""
    value = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("parse_args", "parse_known_args")):
        return True
    return is_main_guard(statement)


def _does_work(statement: ast.stmt) -> bool:
    """A module-level loop, or a call as a statement of its own."""
    cls = statement.__class__
    return (cls is ast.For or cls is ast.While or cls is ast.AsyncFor
            or cls is ast.Expr and statement.value.__class__ is ast.Call)


def is_main_guard(statement: ast.stmt) -> bool:
    """``if __name__ == "__main__":``."""
    test = statement.test if isinstance(statement, ast.If) else None
    return (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _chain(scope: Optional[_Scope]) -> Iterator[_Scope]:
    """``scope`` and the function scopes enclosing it, innermost first."""
    while scope is not None and scope.function is not None:
        yield scope
        scope = scope.parent


#: Nodes with nothing of interest below them.
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global,
                     ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Load, ast.Store, ast.Del})
_VISITED_FIELDS: Dict[type, Tuple[str, ...]] = {}
_HANDLERS = {
    getattr(ast, name[len("visit_"):]): method
    for name, method in vars(_Indexer).items()
    if name.startswith("visit_") and name != "visit_body" and hasattr(ast, name[len("visit_"):])
}


def _symbolic_value(value: ast.expr, symbolic: Set[str]) -> bool:
    """``value`` holds one of the ``symbolic`` names' tensors (``x``, ``x[0]``, ``[x, y]``,
    ``Dense(4)(x)``): a symbolic Keras tensor, or a structure of them."""
    if isinstance(value, ast.Name):
        return value.id in symbolic
    if isinstance(value, ast.Call):
        parts: List[ast.expr] = [*value.args, *(k.value for k in value.keywords)]
    elif isinstance(value, (ast.Subscript, ast.Attribute, ast.Starred)):
        parts = [value.value]
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        parts = list(value.elts)
    elif isinstance(value, ast.Dict):
        parts = [v for v in value.values if v is not None]
    else:
        return False
    return any(_symbolic_value(part, symbolic) for part in parts)


def _arguments(call: ast.Call, positions: Sequence[int], keywords: Sequence[str]
               ) -> List[ast.expr]:
    found = [call.args[i] for i in positions
             if i < len(call.args) and not isinstance(call.args[i], ast.Starred)]
    found += [k.value for k in call.keywords if k.arg in keywords]
    return found


def _callables(node: ast.expr) -> List[ast.expr]:
    """The callables an argument holds: itself, or the items of a list/tuple/dict."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    return [node]
