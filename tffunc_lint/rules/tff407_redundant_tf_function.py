"""TFF407 redundant-tf-function."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..analysis.lazy_libcst import cst
from ..files import is_notebook

from ..analysis.module_index import (KERAS_GRAPH_METHODS, TF_FUNCTION, def_key, run_eagerly_line,
                                     lambda_key)
from ..analysis.names import ast_dotted_name
from ..analysis.test_code import is_test_class, is_test_function
from ..rule import Rule, Scope
from ..analysis.ast_walk import child_nodes, walk_nodes
from ..analysis.patterns import lazy_compile

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Fields that hold statements (or the handlers and cases that hold them).
_BLOCKS = frozenset({"body", "handlers", "orelse", "finalbody", "cases"})


@dataclass(frozen=True)
class Redundant:
    """A ``@tf.function`` (without arguments) that adds nothing: why, for the message."""

    kind: str
    """"keras" (a Keras graph method) or "inlined" (every caller is traced)."""
    detail: str
    line: int = 0
    """For "keras": where the module asks Keras to run eagerly."""


def redundant_decorators(context) -> Dict[Tuple[str, int], Redundant]:
    """The redundant decorators of the module, by (function name, ordinal among the defs of
    that name in source order)."""
    return context.fact("redundant-tf-function", _find)


def _find(context) -> Dict[Tuple[str, int], Redundant]:
    tree = context.tree
    if tree is None or not context.graph:
        return {}
    finder = _Finder(context)
    finder.scan(tree)
    return finder.found


class _Finder:
    def __init__(self, context):
        self.context = context
        self.index = context.graph.index
        self.traced = context.graph.traced
        self.found: Dict[Tuple[str, int], Redundant] = {}
        self.ordinals: Dict[str, int] = {}
        self.exported = _exported(context.tree)
        self.candidates: List[Tuple[Tuple[str, int], ast.AST, Optional[ast.AST], str]] = []
        self.tf_function_uses: Optional[List[Tuple[int, str]]] = None
        """(line, method) of the module's uses of methods as tf.function objects, read once."""
        self.run_eagerly_line = run_eagerly_line(context.tree, context.text or "")
        """Where the module asks Keras to run eagerly, if it does."""

    def scan(self, tree: ast.Module) -> None:
        self._walk(tree.body, [tree])
        if not self.candidates:
            return
        references = _references(tree, {c[1].name for c in self.candidates})
        for slot, node, scope, qualname in self.candidates:
            self._inlined(slot, node, scope, qualname, references.get(node.name, []))

    def _walk(self, statements: List[ast.AST], parents: List[ast.AST]) -> None:
        """The defs in source order. A def is a statement, so only blocks of statements are
        looked into (fields in their order: a ``try``'s handlers come before its ``else``)."""
        for child in statements:
            if isinstance(child, _FUNCTIONS):
                ordinal = self.ordinals.get(child.name, 0)
                self.ordinals[child.name] = ordinal + 1
                self._decorated(child, parents, (child.name, ordinal))
            inner = parents + [child] if isinstance(child, (*_FUNCTIONS, ast.ClassDef)) else (
                parents)
            for field in child._fields:
                if field in _BLOCKS:
                    self._walk(getattr(child, field), inner)

    def _decorated(self, node: ast.AST, parents: List[ast.AST], slot: Tuple[str, int]) -> None:
        decorator = next((d for d in node.decorator_list if self._is_tf_function(d)), None)
        if decorator is None or isinstance(decorator, ast.Call) and (
                decorator.args or decorator.keywords):
            return  # arguments change what the tf.function does: not redundant
        scope = parents[-1]
        in_class = isinstance(scope, ast.ClassDef)
        if is_test_function(node, in_class) or (in_class and is_test_class(scope)):
            return
        key = def_key(node.lineno, node.name)
        info = self.index.functions.get(key)
        if info is None:
            return
        if in_class and node.name in KERAS_GRAPH_METHODS and key not in self.index.custom_steps:
            cls = self.index.classes.get(info.class_qualname or "")
            kind, own_steps = self.context.graph.keras_classes.get(
                info.class_qualname or "", (None, ()))
            if (kind and not cls.eager and not cls.trained_by_own_loop(kind)
                    and self.context.graph.runs_keras
                    and node.name not in own_steps
                    and not _called_eagerly(self.index, cls)
                    and node.name not in self._used_as_tf_function(cls)
                    and node.name not in self.context.graph.direct_steps
                    and (node.name != "call" or self._run_by_keras_here(cls))
                    and not _needs_autograph(node)
                    # the one thing the decorator changes: it keeps the method a graph where
                    # the module asks Keras to run eagerly; elsewhere it only nests a trace
                    and self.run_eagerly_line is not None):
                self.found[slot] = Redundant("keras", f"{kind}.{node.name}",
                                             self.run_eagerly_line)
            return
        private = node.name.startswith("_") and not node.name.endswith("__")
        nested = isinstance(scope, _FUNCTIONS)
        # a notebook's functions have no callers outside it: public or not, its own calls
        # are all there are (a script may be imported as a library too)
        local = private or nested or not in_class and is_notebook(self.index.path)
        if (local and node.name not in self.exported
                and node.name not in self.context.graph.imported_names):
            self.candidates.append((slot, node, scope, info.qualname))

    def _run_by_keras_here(self, cls) -> bool:
        """The linted code lets Keras run ``cls``: a module that builds a functional model,
        or one that fits, evaluates, predicts or saves an instance of the class; in a
        whole program (a notebook, a script nothing imports), also one that runs a model
        whose class it cannot tell
        (``model = build(); model.fit(x)``). A library's decorated ``call`` also serves its
        users' direct eager calls (``model(x)``), which the decorator compiles, and so does
        a notebook's model that only its own eager loop calls (``odeint(model, y0, t)``)."""
        if self.index.builds_keras_graphs or cls.qualname in (
                *self.index.keras_run_classes, *self.index.keras_trained_classes,
                *self.index.eager_run_classes):
            return True
        return self.context.graph.whole_program and self.index.runs_models_of_unknown_class()

    def _used_as_tf_function(self, cls) -> set:
        """Methods that the class ``cls``, or module code outside every class, uses as
        tf.function objects (``self.call.get_concrete_function(spec)`` for a SavedModel
        signature): without the decorator that code breaks."""
        if self.tf_function_uses is None:
            self.tf_function_uses = _tf_function_uses(self.context.text or "")
        spans = [(c.first_line, c.last_line) for c in self.index.classes.values()
                 if c is not cls]
        return {name for line, name in self.tf_function_uses
                if cls.first_line <= line <= cls.last_line
                or not any(first <= line <= last for first, last in spans)}

    def _is_tf_function(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = ast_dotted_name(target)
        return dotted is not None and self.context.names.resolve(
            dotted, line=decorator.lineno) == TF_FUNCTION

    def _inlined(self, slot, node, scope, qualname: str, references) -> None:
        """Every reference to the function is a call made by traced code that is not traced
        because of this function itself, or hands it to a ``tf.data`` transformation
        (``ds.map(parse)``), which traces it too."""
        callers = []
        for reference, is_call, enclosing, handed_at in references:
            if not is_call and handed_at is not None:
                how = self._traced_by_dataset(node, handed_at)
                if how is None:
                    return
                callers.append(how)
                continue
            if not is_call or enclosing is None or enclosing is node:
                return
            within = reference[next(i for i, p in enumerate(reference) if p is enclosing):]
            if any(isinstance(p, ast.With) and self._places(p) for p in within):
                return  # the call op runs as one unit on that device, not split op by op
            if isinstance(node, _FUNCTIONS) and isinstance(scope, _FUNCTIONS) and not any(
                    p is scope for p in reference):
                continue  # the same name in another scope
            key = _key(enclosing, self.context)
            reason = self.traced.get(key)
            if (reason is None or _through(reason, qualname) or _eager_capable(reason)
                    or self.context.graph.runs_eagerly_too(key)):
                return
            callers.append(getattr(enclosing, "name", "<lambda>"))
        if callers:
            names = ", ".join(sorted(set(callers)))
            self.found[slot] = Redundant("inlined", names)

    def _traced_by_dataset(self, node, line: int) -> Optional[str]:
        """The ``tf.data`` transformation at ``line`` that the module index found tracing
        the function ``node`` (``Dataset.map(...)``), or None."""
        key = def_key(node.lineno, node.name)
        return next((entry.how for entry in self.index.entries
                     if entry.line == line and entry.how.startswith("Dataset.")
                     and entry.target == ("local", key)), None)

    def _places(self, block: ast.With) -> bool:
        """``with tf.device(...):``: a tf.function called there runs whole on the device."""
        return any(isinstance(item.context_expr, ast.Call) and self.context.names.resolve(
            ast_dotted_name(item.context_expr.func) or "", line=block.lineno) in _DEVICE_SCOPES
            for item in block.items)


#: Scopes that place the ops made in them on a device.
_DEVICE_SCOPES = frozenset({"tensorflow.device", "tensorflow.compat.v1.device"})


def _called_eagerly(index, cls) -> bool:
    """Module-level code calls an instance of ``cls`` (``pred = model(x)``): eagerly, so the
    decorator is what runs that call as a graph."""
    return any(method == "__call__" and index.instance_of(receiver) == cls.qualname
               for receiver, method in index.eager_steps)


#: What only a tf.function object has: code that asks the method for it needs the decorator.
_TF_FUNCTION_API = lazy_compile(
    r"\.\s*(\w+)\s*\.\s*(?:get_concrete_function|python_function|"
    r"experimental_get_tracing_count|pretty_printed_concrete_signatures|input_signature|"
    r"function_spec|experimental_get_compiler_ir)\b")


def _tf_function_uses(text: str) -> List[Tuple[int, str]]:
    """(line, method) of each use of a method as a tf.function object in the module."""
    return [(text.count("\n", 0, match.start()) + 1, match.group(1))
            for match in _TF_FUNCTION_API.finditer(text)]


#: Parameters of a Keras method that hold Python values, not tensors.
_PYTHON_PARAMETERS = frozenset({"self", "training", "mask"})


def _needs_autograph(method: ast.AST) -> bool:
    """The method's own body has a loop, or an ``if`` on a value other than attributes,
    constants, ``training`` or ``mask``: Keras 3 does not convert ``call`` with AutoGraph, so
    the decorator may be what turns that Python control flow into graph control flow."""
    parameters = {a.arg for a in (*method.args.posonlyargs, *method.args.args,
                                  *method.args.kwonlyargs)} - _PYTHON_PARAMETERS
    stack = list(method.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return True
        if isinstance(node, (ast.If, ast.IfExp)) and any(
                isinstance(name, ast.Name) and name.id in parameters
                for name in walk_nodes(node.test)):
            return True
        stack.extend(child_nodes(node))
    return False


def _through(reason, qualname: str) -> bool:
    """The caller is traced only because the candidate calls it (a cycle)."""
    while reason is not None:
        if getattr(reason, "function", None) == qualname and reason.via is not None:
            return True
        reason = reason.via
    return False


#: Roots of traces that also run eagerly: a Keras layer's call runs eagerly when the layer
#: is called on eager tensors (``layer(x)``, ``model.predict`` with run_eagerly); a
#: tf.function below it is what makes a graph then. (``tf.cond`` and the other control-flow
#: APIs trace their callables only through a traced caller: see ``module_index``.)
_EAGER_CAPABLE = ("Keras Layer.call(", "Keras Model.call(")


def _eager_capable(reason) -> bool:
    """The caller is traced only through a root that also runs eagerly."""
    while reason.via is not None:
        reason = reason.via
    return reason.how.startswith(_EAGER_CAPABLE)


def _key(node: ast.AST, context):
    if isinstance(node, _FUNCTIONS):
        return def_key(node.lineno, node.name)
    lines = context.text.splitlines()
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    column = node.col_offset if line.isascii() else len(
        line.encode("utf-8")[:node.col_offset].decode("utf-8", errors="replace"))
    return lambda_key(node.lineno, column)


_Reference = Tuple[List[ast.AST], bool, object, Optional[int]]


def _references(tree: ast.Module, names) -> Dict[str, List[_Reference]]:
    """For each name: every load of it (``name`` or ``x.name``), with its enclosing scopes
    and ``with`` blocks, whether it is the callee of a call, the innermost function or
    lambda around it, and, for an argument of a call (``ds.map(parse)``), that call's
    line."""
    found: Dict[str, List[_Reference]] = {}

    def walk(node: ast.AST, parents: List[ast.AST], callee: Optional[ast.AST]) -> None:
        arguments = ({id(a) for a in node.args} | {id(k.value) for k in node.keywords}
                     if isinstance(node, ast.Call) else ())
        for child in child_nodes(node):
            name = None
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                name = child.id
            elif isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load):
                name = child.attr
            if name in names:
                enclosing = next((p for p in reversed(parents)
                                  if isinstance(p, (*_FUNCTIONS, ast.Lambda))), None)
                found.setdefault(name, []).append((
                    parents, child is callee, enclosing,
                    node.lineno if id(child) in arguments else None))
            inner = parents + [child] if isinstance(
                child, (*_FUNCTIONS, ast.ClassDef, ast.Lambda, ast.With)) else parents
            walk(child, inner, child.func if isinstance(child, ast.Call) else None)

    walk(tree, [tree], None)
    return found


def _exported(tree: ast.Module) -> frozenset:
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets)
                and isinstance(statement.value, (ast.List, ast.Tuple))):
            return frozenset(e.value for e in statement.value.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset()


class RedundantTfFunction(Rule):
    """`@tf.function` that adds nothing but a second trace (Keras methods, functions only traced code calls).

    ## What it does
    Flags a `@tf.function` (or `@tf.function()`) without arguments on:

    - the `call`, `train_step`, `test_step` or `predict_step` of a Keras `Model` or `Layer`
      subclass, in a module that asks Keras to run eagerly (`compile(...,
      run_eagerly=True)`, `model.run_eagerly = True`): Keras traces these itself, and the
      decorator keeps them a graph when you debug;
    - a private (`_name`) or nested function, not listed in `__all__`, or any function of a
      notebook, whose every call in the module is made from traced code, or that is only
      handed to `tf.data` transformations (`ds.map(_parse)`), which trace it anyway. A
      caller that the module also runs as Python does not count as traced (a search method
      that a `tf.function` training step calls, and an eager `test()` too): the decorator
      compiles the calls made then.

    ## Why is this bad?
    Keras already runs `call` and the `*_step` methods in a graph, as `compile` asks
    (`jit_compile=`, `run_eagerly=`); a `tf.function` on them ignores `run_eagerly=True`:
    the method stays a graph while you debug it, so Python breakpoints and prints in it
    run only while it traces. Elsewhere (TensorFlow 2.21, Keras 3) the extra trace gives
    the same results, export and distribution, so it is reported only where the module asks
    for eager execution.
    A function called only from traced code is inlined into its caller's graph anyway
    ("tf.function traces any Python function it calls"); a nested `tf.function` adds a second
    retrace cache (its own retracing, its own warnings) and a call boundary, but no speed.

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def _normalise(x):
        return x / tf.norm(x)


    @tf.function
    def train_step(x):
        return _normalise(x) * 2.0


    class Block(tf.keras.layers.Layer):
        @tf.function
        def call(self, x):
            return x * 2.0
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    def _normalise(x):
        return x / tf.norm(x)


    @tf.function
    def train_step(x):
        return _normalise(x) * 2.0


    class Block(tf.keras.layers.Layer):
        def call(self, x):
            return x * 2.0
    ```

    ## Known problems
    Only decorators without arguments are reported (removing them is the safe fix):
    `input_signature=`, `jit_compile=`, `reduce_retracing=` and other arguments change what
    the function does. A public function is never reported outside notebooks, since callers
    outside the linted code may call it eagerly (a script may be imported as a library
    too; nothing imports a notebook's functions); a private function is taken as
    module-local unless another linted module (a test included) imports it by name or calls
    it through the module (`postprocess._merge(x)`), whose calls may run eagerly. Functions also called from untraced code, referenced other than by a
    call, or called only from `tf.cond`/`tf.while_loop`/`tf.map_fn` callables or from a
    Keras `call` (which run eagerly when their caller does, or when the layer is called on
    eager tensors), functions called under `with tf.device(...):` (the call runs whole on
    that device, where the ops of an inlined body would be placed one by one and may split
    between host and accelerator), and test code are not reported. A Keras class is
    recognised through bases this module can resolve. A Keras method is not reported when
    module-level code calls an instance of the class directly (`pred = model(x)` runs
    eagerly: the decorator is what makes it a graph), nor when its body has a loop or an `if`
    on one of its arguments: Keras 3 does not convert `call` with AutoGraph, so the
    decorator is what turns that Python control flow into graph control flow. Nor when the
    class uses the method as a tf.function object (`self.call.get_concrete_function(spec)`
    for a SavedModel signature), nor in a notebook that never lets Keras run its models
    (no `fit`/`evaluate`/`predict` of a Keras model, no functional model): there the
    decorator is what compiles the eager calls. A decorated `call` is reported only where
    the linted code lets Keras run the class: a module or notebook that builds a
    functional model, code that fits, evaluates, predicts or saves an instance of it
    (`model = Net(); model.fit(...)`), or a notebook that does so to a model whose class it
    cannot tell (`model = build(); model.fit(...)`; not an instance of an imported class,
    `SINDy().fit(x)`); a library's layer or model is also called directly,
    eagerly, by its users, and the decorator compiles those calls. Nor a step method that the project's own
    code calls itself (`model.predict_step(x)` in its own loop, in any linted module), nor
    one whose signature Keras cannot call (`def train_step(self, optimizer, x, y)`: Keras
    passes one batch), which is the project's method, not Keras's.

    ## References
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    - [Customizing what happens in `fit()`](https://www.tensorflow.org/guide/keras/customizing_what_happens_in_fit)
    """

    code = "TFF407"
    name = "redundant-tf-function"
    message = ("@tf.function here is redundant: the function is already traced where it runs; "
               "remove the decorator and use it as a plain Python function")
    scope = Scope.MODULE
    fixable = True
    triggers = ("function",)
    about_tf_functions = True

    @classmethod
    def triggers_for(cls, context):
        # The text first: most modules never spell the decorator, and the search is cheap.
        return cls.triggers if (cls.triggered(cls.triggers, context.text or "")
                                and redundant_decorators(context)) else ()

    def __init__(self, context):
        super().__init__(context)
        self.found = redundant_decorators(context)
        self.ordinals: Dict[str, int] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        ordinal = self.ordinals.get(name, 0)
        self.ordinals[name] = ordinal + 1
        redundant = self.found.get((name, ordinal))
        if redundant is None:
            return
        decorator = next((d for d in node.decorators if self._is_tf_function(d)), None)
        if decorator is None:
            return
        self.report(decorator, self._message(redundant),
                    replacement=cst.RemovalSentinel.REMOVE)

    def _is_tf_function(self, decorator: cst.Decorator) -> bool:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            if target.args:
                return False
            target = target.func
        return self.context.qualified_name(target) == TF_FUNCTION

    @staticmethod
    def _message(redundant: Redundant) -> str:
        if redundant.kind == "keras":
            return (f"@tf.function on Keras {redundant.detail}() keeps it a graph when "
                    f"`run_eagerly=True` (line {redundant.line}) asks Keras to run it eagerly, "
                    "and adds nothing otherwise: Keras traces it itself (fit/evaluate/predict, "
                    "compile(jit_compile=...)); remove the decorator and use compile() options")
        if "Dataset." in redundant.detail:
            return (f"@tf.function is redundant here: every use calls it from traced code or "
                    f"hands it to a tf.data transformation ({redundant.detail}), which trace "
                    "it anyway; the nested tf.function only adds a retrace cache and a call "
                    "boundary; remove the decorator and use it as a plain Python function")
        return (f"@tf.function is redundant here: every call is made from traced code "
                f"({redundant.detail}), whose graph inlines this function anyway; the nested "
                "tf.function only adds a retrace cache and a call boundary; remove the "
                "decorator and use it as a plain Python function")
