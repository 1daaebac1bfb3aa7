"""TFF402 tf-function-recreated."""

from __future__ import annotations

import ast
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ..analysis.lazy_libcst import cst

from ..analysis.guards import is_executing_eagerly
from ..analysis.local_calls import local_uses
from ..analysis.module_index import TF_FUNCTION, def_key
from ..analysis.names import ast_dotted_name, dotted_name, function_local_names
from ..rule import Rule, Scope
from ..analysis.source_lines import SourceLines, tf_function_lines
from ..analysis.test_code import is_test_class, is_test_function, is_test_method, is_test_module
from ..analysis.ast_walk import child_nodes, walk_nodes

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

_ON_THE_SPOT = ("tf.function(f)(...) builds, traces and throws away a new tf.function on "
                "every call; create the tf.function once (decorate f, or wrap it at module "
                "level) and call that")
_IN_LOOP = ("tf.function(...) inside a loop creates and retraces a new tf.function on every "
            "pass; create it once, before the loop")
_NESTED = ("`@tf.function` on a nested function that is created and called within each call "
           "of `{outer}` retraces on every call of `{outer}`; create it once (at module "
           "level, or stored on the object) and reuse it")
#: Decorators that hand back the function itself (or a descriptor calling it): the body
#: still runs once per call. Any other decorator may run it once (a trace, a serialised
#: computation), cache it or never call it: how often is unknown.
_PASS_THROUGH = frozenset({"builtins.staticmethod", "builtins.classmethod", "builtins.property",
                           "functools.wraps", "abc.abstractmethod", "typing.override",
                           "typing_extensions.override"})
_PROPERTY_PARTS = ("setter", "getter", "deleter")

_NESTED_LOOP = ("`@tf.function` on a function defined inside a loop creates and retraces a "
                "new tf.function on every pass; create it once, before the loop")


@dataclass
class Recreations:
    """Ordinal of each tf.function expression/decorator (in source order) → message."""

    flagged: Dict[int, str] = field(default_factory=dict)
    positions: List[Tuple[int, int]] = field(default_factory=list)
    """(line, column) of each, in source order: a walk of the lines from some line on
    starts counting at the first of them there."""


@dataclass
class _Frame:
    """A function (or the module) being scanned, with the loops open inside it."""

    node: Optional[ast.AST]
    traced: bool
    loops: List[Tuple[ast.AST, Set[str]]] = field(default_factory=list)
    once_or_unknown: bool = False
    """The function (or one around it) is a test, which runs once, or carries a decorator
    that leaves unknown how often its body runs: a nested def made and called in one call
    of it is not reported."""
    eager_only: bool = False
    """In the body of ``if tf.executing_eagerly():``."""


def _stored_names(nodes) -> Set[str]:
    names: Set[str] = set()
    for node in nodes:
        for child in walk_nodes(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, _FUNCTIONS + (ast.ClassDef,)):
                names.add(child.name)
    return names


def _read_names(node: ast.AST) -> Set[str]:
    return {child.id for child in walk_nodes(node) if isinstance(child, ast.Name)}


def _is_cache_guard(test: ast.expr) -> bool:
    """``if key not in cache:``, ``if f is None:``, ``if not hasattr(...)``: made once."""
    for node in walk_nodes(test):
        if isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.NotIn, ast.In, ast.Is, ast.IsNot)) for op in node.ops):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("hasattr", "getattr")):
            return True
    return False


def _is_pass_through(decorator: ast.expr, names) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    dotted = ast_dotted_name(target)
    if dotted is None:
        return False
    head, _, last = dotted.rpartition(".")
    if head and "." not in head and last in _PROPERTY_PARTS and not isinstance(
            decorator, ast.Call):
        return True  # @name.setter of a property
    qualified = names.resolve(dotted) or ""
    return qualified in _PASS_THROUGH or qualified.rpartition(".")[2] == "override"


def _wraps_now(call: ast.Call) -> bool:
    """``tf.function(f, ...)`` wraps ``f``; ``tf.function(jit_compile=True)`` is a decorator
    factory, applied by the call around it."""
    return bool(call.args) or any(k.arg in ("func", None) for k in call.keywords)


def _implements(call: Optional[ast.Call]) -> bool:
    """``experimental_implements=``: a composite op, meant to be built inside another graph."""
    return call is not None and any(k.arg == "experimental_implements" for k in call.keywords)


def _graph_of_this_call(created: ast.Call, frame: _Frame) -> bool:
    """``tf.function(g)()``, ``g`` a def of the enclosing function that reads its locals: a
    graph of this call's own values, made to run them as one graph (TensorFlow's collective
    ops do so in eager mode, under ``if executing_eagerly():``). With no arguments there is
    nothing another call could reuse it for, and a tf.function made once would read the
    first call's values."""
    if frame.node is None or not created.args or not isinstance(created.args[0], ast.Name):
        return False
    name = created.args[0].id
    inner = next((n for n in walk_nodes(frame.node) if isinstance(n, _FUNCTIONS)
                  and n is not frame.node and n.name == name), None)
    if inner is None:
        return False
    outer_locals = function_local_names(frame.node) - {name}
    own = function_local_names(inner)
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
               and n.id in outer_locals and n.id not in own for n in walk_nodes(inner))


class _Scanner:
    """One pass over the module's ``ast``: finds tf.function objects made on each pass."""

    def __init__(self, context, lines: SourceLines):
        self.lines = lines
        self.names = context.names
        self.traced = context.graph.traced if context.graph is not None else {}
        self.test_module = is_test_module(context.path)
        self.events: List[Tuple[Tuple[int, int], Optional[str]]] = []
        self.parents: List[ast.AST] = []
        self.tree = context.tree
        self._calls = None

    def _eager_test(self, test: ast.expr) -> bool:
        """``tf.executing_eagerly()``, alone or as one operand of ``or``."""
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(
            test.op, ast.Or) else [test]
        return any(isinstance(t, ast.Call) and is_executing_eagerly(self.names.resolve(
            ast_dotted_name(t.func) or "")) for t in tests)

    def is_tf_function(self, node: ast.expr) -> bool:
        dotted = ast_dotted_name(node)
        return dotted is not None and self.names.resolve(dotted) == TF_FUNCTION

    def scan(self, tree: ast.Module) -> Recreations:
        self._visit(tree, _Frame(None, False), guarded=False)
        result = Recreations()
        for ordinal, (position, message) in enumerate(sorted(self.events, key=lambda e: e[0])):
            result.positions.append(position)
            if message is not None:
                result.flagged[ordinal] = message
        return result

    def _children(self, node: ast.AST, children, frame: _Frame, guarded: bool) -> None:
        self.parents.append(node)
        touches = self.lines.touches
        for child in children:
            if touches(child):
                self._visit(child, frame, guarded)
        self.parents.pop()

    def _visit(self, node: ast.AST, frame: _Frame, guarded: bool) -> None:
        if isinstance(node, _FUNCTIONS):
            self._definition(node, frame, guarded)
            cls = self.parents[-1] if self.parents else None
            in_class = isinstance(cls, ast.ClassDef)
            # Code traced anyway, and tests (each runs once, and wraps functions on purpose).
            exempt = (frame.traced or def_key(node.lineno, node.name) in self.traced
                      or is_test_function(node, in_class or frame.node is not None)
                      or any(isinstance(p, ast.ClassDef) and is_test_class(p)
                             for p in self.parents))
            once_or_unknown = (frame.once_or_unknown or self.test_module
                               or (in_class and is_test_method(node, cls))
                               or not all(_is_pass_through(d, self.names)
                                          for d in node.decorator_list))
            self._children(node, [node.args] + ([node.returns] if node.returns else []),
                           frame, guarded)
            self._children(node, node.body, _Frame(node, exempt, [], once_or_unknown), False)
            return
        if isinstance(node, ast.Lambda):
            self._children(node, [node.args], frame, guarded)
            inner = _Frame(node, frame.traced, [], frame.once_or_unknown)
            self._children(node, [node.body], inner, False)
            return
        if isinstance(node, ast.Call) and self.is_tf_function(node.func):
            self.events.append(((node.lineno, node.col_offset), self._judge_call(node, frame, guarded)))
        if isinstance(node, _LOOPS):
            self._loop(node, frame, guarded)
            return
        if isinstance(node, _COMPREHENSIONS):
            frame.loops.append((node, _stored_names(node.generators)))
            self._children(node, child_nodes(node), frame, guarded)
            frame.loops.pop()
            return
        if isinstance(node, ast.If) and self._eager_test(node.test):
            # The else of ``if tf.executing_eagerly() [or ...]:`` runs only while a graph is
            # built: a tf.function made there is made once per outer trace, not per call.
            self._children(node, [node.test], frame, guarded)
            eager = _Frame(frame.node, frame.traced, frame.loops, frame.once_or_unknown,
                           eager_only=True)
            self._children(node, node.body, eager, guarded)
            graph_only = _Frame(frame.node, True, frame.loops, frame.once_or_unknown)
            self._children(node, node.orelse, graph_only, guarded)
            return
        if isinstance(node, ast.If) and frame.loops and _is_cache_guard(node.test):
            self._children(node, [node.test], frame, guarded)
            self._children(node, node.body + node.orelse, frame, True)
            return
        self._children(node, child_nodes(node), frame, guarded)

    def _loop(self, node: ast.AST, frame: _Frame, guarded: bool) -> None:
        is_for = isinstance(node, (ast.For, ast.AsyncFor))
        self._children(node, [node.iter] if is_for else [node.test], frame, guarded)
        frame.loops.append((node, _stored_names(([node.target] if is_for else []) + node.body)))
        self._children(node, node.body, frame, guarded)
        frame.loops.pop()
        self._children(node, node.orelse, frame, guarded)

    def _judge_call(self, call: ast.Call, frame: _Frame, guarded: bool) -> Optional[str]:
        if frame.traced or _implements(call):
            return None  # runs once per trace of the enclosing function, not per call
        created = call
        parents = self.parents
        depth = len(parents)
        if not _wraps_now(call):
            if not (depth and isinstance(parents[-1], ast.Call) and parents[-1].func is call):
                return None
            created, depth = parents[-1], depth - 1
        user = parents[depth - 1] if depth else None
        if isinstance(user, ast.Call) and user.func is created:
            if (frame.eager_only and not user.args and not user.keywords
                    and _graph_of_this_call(created, frame)):
                return None
            return _ON_THE_SPOT if frame.node is not None or frame.loops else None
        if frame.loops and not guarded:
            _, bound = frame.loops[-1]
            if not (_read_names(created) & bound):
                return _IN_LOOP
        return None

    def _definition(self, node: ast.AST, frame: _Frame, guarded: bool) -> None:
        """A def decorated with tf.function: one event per such decorator."""
        tf_decorators = [d for d in node.decorator_list
                         if self.is_tf_function(d.func if isinstance(d, ast.Call) else d)]
        message = None
        if tf_decorators and not frame.traced and not any(
                _implements(d) for d in tf_decorators if isinstance(d, ast.Call)):
            message = self._judge_definition(node, frame, guarded)
        self.parents.append(node)
        for decorator in node.decorator_list:
            if decorator in tf_decorators:
                self.events.append(((decorator.lineno, decorator.col_offset), message))
                if isinstance(decorator, ast.Call):
                    self._children(decorator, decorator.args + [k.value for k in decorator.keywords],
                                   frame, guarded)
            else:
                self._visit(decorator, frame, guarded)
        self.parents.pop()

    def _judge_definition(self, node: ast.AST, frame: _Frame, guarded: bool) -> Optional[str]:
        if frame.loops and not guarded:
            loop, _ = frame.loops[-1]
            uses = local_uses(loop, node.name, node)
            if not uses.called_with_arguments or uses.escapes:
                return None
            return None if _fresh_objects_passed(loop, node) else _NESTED_LOOP
        if not isinstance(frame.node, _FUNCTIONS) or frame.once_or_unknown:
            return None
        uses = local_uses(frame.node, node.name, node)
        if (uses.called_with_arguments and not uses.in_loop and not uses.escapes
                and self._runs_repeatedly(frame.node)):
            return _NESTED.format(outer=frame.node.name)
        return None

    def _runs_repeatedly(self, function: ast.AST) -> bool:
        """Evidence that ``function`` runs more than once, so the nested tf.function it
        makes retraces again: a method that Keras or TensorFlow calls on every step
        (``call``, ``__call__``, ``*_step``), a property, or a call of it in a loop or at two
        places of the module. A one-shot utility retraces nothing it would not trace anyway."""
        name = function.name
        if name in _EVERY_STEP or name.endswith("_step") or any(
                ast_dotted_name(d) == "property" or (ast_dotted_name(d) or "").endswith(
                    (".setter", ".getter")) for d in function.decorator_list):
            return True  # run on every step, or on every attribute access
        if self._calls is None:
            self._calls = _call_counts(self.tree)
        once, repeated = self._calls
        return name in repeated or once.get(name, 0) > 1


#: Attributes of a model, layer or optimizer (not of a tensor) that a function reads from a
#: parameter holding one: its weights, or ``apply_gradients``.
_OBJECT_ATTRIBUTES = frozenset({"trainable_variables", "trainable_weights", "variables",
                                "weights", "layers", "apply_gradients",
                                "non_trainable_variables", "non_trainable_weights"})


def _fresh_objects_passed(loop: ast.AST, function: ast.AST) -> bool:
    """A call of ``function`` in ``loop`` passes, for a parameter that holds a model, a
    layer or an optimizer (the function calls it, or reads its weights), a name the loop's
    own body binds on each pass to what a call returns (``model = build(params)``, not in
    an inner loop): every pass gives the ``tf.function`` new objects, which retrace it
    anyway (their traces are keyed on the object), so one made once could reuse nothing."""
    parameters = [a.arg for a in function.args.posonlyargs + function.args.args]
    objects = set()
    for node in walk_nodes(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            objects.add(node.func.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.attr in _OBJECT_ATTRIBUTES):
            objects.add(node.value.id)
    objects &= set(parameters)
    if not objects:
        return False
    made = _made_each_pass(loop)
    for node in walk_nodes(loop):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == function.name):
            continue
        passed = list(zip(parameters, node.args)) + [
            (k.arg, k.value) for k in node.keywords if k.arg]
        if any(name in objects and isinstance(value, ast.Name) and value.id in made
               for name, value in passed):
            return True
    return False


def _made_each_pass(loop: ast.AST) -> Set[str]:
    """Names the loop's own statements (in blocks, not in an inner loop or def) bind to what
    a call returns (``model = build(params)``, ``a, b = make()``)."""
    found: Set[str] = set()
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for target in node.targets:
                found.update(n.id for n in walk_nodes(target) if isinstance(n, ast.Name))
        if isinstance(node, _LOOPS + _FUNCTIONS + (ast.ClassDef,)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, name, ()) or ())
    return found


#: Methods that run on every step of a model or layer.
_EVERY_STEP = frozenset({"call", "__call__", "step"})


def _call_counts(tree: ast.Module):
    """How often each name is called at a call site, and the names called inside a loop
    or comprehension (``f(...)``, ``self.f(...)``, ``obj.f(...)`` alike)."""
    counts: Dict[str, int] = {}
    repeated: Set[str] = set()
    stack = [(tree, False)]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else None)
            if name is not None:
                counts[name] = counts.get(name, 0) + 1
                if looped:
                    repeated.add(name)
        inner = looped or isinstance(node, _LOOPS + _COMPREHENSIONS)
        if isinstance(node, _FUNCTIONS):
            inner = False
        stack.extend((child, inner) for child in child_nodes(node))
    return counts, repeated


def recreations(context) -> Recreations:
    """The module's tf.function objects made on each pass (a ``context.fact``).

    Only the statements whose lines can name ``tf.function`` are scanned."""
    if context.tree is None:
        return Recreations()
    lines = tf_function_lines(context)
    if not lines:
        return Recreations()
    return _Scanner(context, lines).scan(context.tree)


class TfFunctionRecreated(Rule):
    """A new `tf.function` object made on every pass, so it retraces every time.

    ## What it does
    Flags `tf.function` objects that are created again each time the code around them runs:
    `tf.function(...)` inside a loop, `tf.function(f)(args)` invoked on the spot, and a
    `@tf.function` def nested in a function (or a loop) that is created and called within
    one call of that function (or one pass of that loop).

    ## Why is this bad?
    Traces are cached on the `tf.function` object. A new object starts with an empty cache,
    so every call traces the Python function again (the slowest part of `tf.function`) and
    then throws the graph away: the code runs slower than without `tf.function` at all.
    The trace count equals the call count.

    ## Example
    ```python
    import tensorflow as tf

    def predict(model, x):
        @tf.function
        def forward(x):
            return model(x)
        return forward(x)

    for x in [tf.constant(1.0), tf.constant(2.0)]:
        y = tf.function(tf.math.square)(x)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    square = tf.function(tf.math.square)

    def make_predict(model):
        @tf.function
        def forward(x):
            return model(x)
        return forward

    for x in [tf.constant(1.0), tf.constant(2.0)]:
        y = square(x)
    ```

    ## Known problems
    Nested traced functions that outlive the call are not reported: returned, stored
    (`self.step = step`, a cache), passed to another function, or called inside a loop of
    the enclosing function (made once per call, reused many times). `tf.function(g)` in a
    loop is not reported when `g` changes with the loop (`for g in fns: tf.function(g)`) or
    under a cache check (`if key not in cache:`). Nor is a `tf.function` made in a loop whose
    passes give it what a trace made once could not reuse: a model, layer or optimizer the
    pass builds and passes to it (`model = build(params)` then `train_one_step(model, x,
    y)`, where the function calls `model` or reads its weights: each model object traces
    anew in any `tf.function`). One that reads such objects as globals or closures is
    reported: made once, it could take them as arguments, or reuse them. Nor is `tf.function(g)()` called with no
    arguments under `if tf.executing_eagerly():` where `g` is a def of the enclosing function
    that reads its locals: a graph of that call's own values, made to run them as one graph
    in eager mode (as TensorFlow's collective ops do); made once, it would read the first
    call's values.

    A nested traced def made and called in one call is not reported where that call runs
    once, or where how often it runs cannot be told:
    - in a function traced anyway (decorated with `@tf.function`);
    - in a function with any decorator other than a pass-through one (`staticmethod`,
      `classmethod`, `property` and its `setter`/`getter`/`deleter`, `functools.wraps(...)`,
      `abc.abstractmethod`, `override`): `@tff.tensorflow.computation(tf.float32)` traces its
      body once to build a computation, `@functools.lru_cache` runs it once per key, a
      registration decorator may call it any number of times;
    - in tests, which run once: a `test*` method of a class that derives from a `TestCase`
      or is named `…Test`, `…Tests` or `Test…` (its base may be the project's own, in
      another module), and any function of a test module (`test_*.py`, `*_test.py`,
      `conftest.py`, or under a `tests` folder, except sample programs under its
      `fixtures`/`testdata` folders). Only this case is waived there: a helper method of a
      `…Test` class is reported, and so is a loop or `tf.function(f)(args)`, except in a
      class that derives from a `TestCase` or in a module-level `test_*` function.

    Otherwise it is reported only with evidence that the enclosing function runs again and
    again, so that each run retraces: it is a method run on every step (`call`,
    `__call__`, `*_step`) or a property, or the module calls it inside a loop or at two
    places. A one-shot utility (a `main()`, a data-preparation helper called once) traces
    its nested function once per run, as a hoisted one would, and is not reported. Nor is a
    `tf.function` made in the `else` of `if tf.executing_eagerly() [or ...]:`, which runs only
    while an outer graph is built: once per outer trace, not per call. Recreating a
    `tf.function` on purpose (the guide's way to force a retrace after mutating an object)
    deserves a `# noqa: TFF402`.

    ## References
    - [Better performance with tf.function: Rules of tracing](https://www.tensorflow.org/guide/function#rules_of_tracing)
    - [Introduction to graphs and tf.function](https://www.tensorflow.org/guide/intro_to_graphs)
    """

    code = "TFF402"
    name = "tf-function-recreated"
    message = _IN_LOOP
    scope = Scope.MODULE
    triggers = ("function",)
    about_tf_functions = True

    @classmethod
    def triggers_for(cls, context):
        if not cls.triggered(cls.triggers, context.text or ""):
            return ()  # the text first: the analysis looks for what it spells
        found = context.fact("tff402.recreations", recreations)
        return cls.triggers if found.flagged else ()

    def visit_Module(self, node: cst.Module) -> None:
        # The engine may walk the tree a second time, or a tree of a module's lines from
        # some line on (a piece of a long module).
        found = self.context.fact("tff402.recreations", recreations)
        self._ordinal = bisect_left(found.positions, (self.context.line_offset + 1, -1))
        self._flagged = found.flagged

    def visit_Call(self, node: cst.Call) -> None:
        if self._is_tf_function(node.func) and not self._is_decorator(node):
            self._event(node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        expression = node.decorator
        target = expression.func if isinstance(expression, cst.Call) else expression
        if self._is_tf_function(target):
            self._event(expression)

    def _event(self, node: cst.CSTNode) -> None:
        message = self._flagged.get(self._ordinal)
        self._ordinal += 1
        if message is not None:
            self.report(node, message)

    def _is_decorator(self, node: cst.Call) -> bool:
        ancestors = self.context.ancestors
        return len(ancestors) >= 2 and isinstance(ancestors[-2], cst.Decorator)

    def _is_tf_function(self, node: cst.BaseExpression) -> bool:
        dotted = dotted_name(node)
        return dotted is not None and self.context.names.resolve(dotted) == TF_FUNCTION
