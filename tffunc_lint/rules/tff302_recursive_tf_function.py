"""TFF302 recursive-tf-function."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ..analysis.lazy_libcst import NodeTypes, cst

from ..analysis.graph_context import ProjectGraph
from ..analysis.lazy_import import lazy_module
from ..analysis.module_index import CALLED, FunctionKey
from ..analysis.names import (ast_dotted_name, function_local_names, parameter_default,
                              parameter_names)
from ..analysis.patterns import words
from ..rule import Rule
from ..analysis.ast_walk import child_nodes, walk_nodes

loop_kind = lazy_module("..analysis.loop_kind", __package__)
tensor_taint = lazy_module("..analysis.tensor_taint", __package__)

#: For each traced function of the module: the functions it calls that close a cycle of
#: calls among traced functions, as (name, called as a method).
ClosingCalls = Dict[FunctionKey, FrozenSet[Tuple[str, bool]]]


@dataclass
class Cycles:
    """The cycles of calls among the traced functions of one module."""

    closing: ClosingCalls
    """For each traced function: the calls it makes back into the head of its cycle."""
    heads: Dict[FunctionKey, FunctionKey]
    """For each function of a cycle: the cycle's head, the member closest to an entry."""
    members: Dict[FunctionKey, FrozenSet[FunctionKey]]
    """For each function of a cycle: every function of that cycle."""
    callers: Dict[FunctionKey, FrozenSet[FunctionKey]]
    """For each traced function: the traced functions of the module that call it."""


def recursive_calls(context) -> ClosingCalls:
    """The calls that close a cycle of traced functions in this module."""
    return context.fact("recursive-calls", find_cycles).closing


def find_cycles(context) -> Cycles:
    """Cycles are the strongly connected components of the module's call graph restricted to
    traced functions. Each cycle is entered at its *head*, the member closest to an entry
    point; the calls back into the head close the cycle and are the ones reported.
    """
    graph = context.graph
    index = graph.index
    traced = graph.traced
    project = ProjectGraph([index])
    edges: Dict[FunctionKey, Set[FunctionKey]] = {key: set() for key in traced}
    for key in traced:
        function = index.functions.get(key)
        if function is None:
            continue
        for target, _, how in function.edges:
            if how != CALLED:
                continue
            found = project.resolve(index, target)
            if found and found[0] == index.path and found[1] in traced:
                edges[key].add(found[1])
    callers: Dict[FunctionKey, Set[FunctionKey]] = {}
    for key, targets in edges.items():
        for target in targets:
            callers.setdefault(target, set()).add(key)
    closing: Dict[FunctionKey, Set[Tuple[str, bool]]] = {}
    heads: Dict[FunctionKey, FunctionKey] = {}
    members: Dict[FunctionKey, FrozenSet[FunctionKey]] = {}
    for component in _components(edges):
        if len(component) == 1:
            (only,) = component
            if only not in edges[only]:
                continue
        head = min(component, key=lambda k: (len(traced[k].chain()),
                                             index.functions[k].start))
        target = index.functions[head]
        call = (head[2], target.class_qualname is not None)
        for key in component:
            heads[key], members[key] = head, frozenset(component)
            if head in edges[key]:
                closing.setdefault(key, set()).add(call)
    return Cycles({key: frozenset(calls) for key, calls in closing.items()}, heads, members,
                  {key: frozenset(found) for key, found in callers.items()})


def _components(edges: Dict[FunctionKey, Set[FunctionKey]]) -> List[Set[FunctionKey]]:
    """Strongly connected components (Tarjan's algorithm, iterative)."""
    order: Dict[FunctionKey, int] = {}
    low: Dict[FunctionKey, int] = {}
    stack: List[FunctionKey] = []
    on_stack: Set[FunctionKey] = set()
    found: List[Set[FunctionKey]] = []
    for root in edges:
        if root in order:
            continue
        work = [(root, iter(sorted(edges[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in order:
                    order[successor] = low[successor] = len(order)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], order[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


class RecursiveTfFunction(Rule):
    """A traced function that calls itself, directly or through other functions.

    ## What it does
    Flags calls that make code traced by TensorFlow recursive: a `tf.function` (or a function
    it calls) that calls itself with a smaller number (`f(n - 1)`), or functions of the module
    that call each other in such a cycle, unless a Python value visibly bounds the recursion.
    The finding is at the call that leads back into the cycle: the call to itself, or the call
    back to the function of the cycle closest to the `tf.function` entry point.

    ## Why is this bad?
    Recursive `tf.function`s are not supported. Tracing runs the Python body and builds the
    graph of every branch: with a tensor argument, AutoGraph turns `if n > 0:` into a
    `tf.cond` that traces both branches, so the recursive call is traced again and again
    until Python raises `RecursionError`. With Python numbers the recursion ends, but every
    distinct value is a new trace, and the whole recursion is unrolled into the graph.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def countdown(n):
        while n > 0:
            n -= 1
        return n
    ```

    ## Known problems
    Only recursion driven by a number is reported: a call back into the cycle whose
    arguments bring a name down (`n - 1`, `n // 2`, `x * 0.5`), or that passes a function's
    own parameters again unchanged. Recursion over a Python structure (`walk(node.left)`,
    `[f(v, depth + 1) for v in d.values()]`) or guarded by a Python flag ends while tracing
    and is not reported, though it is still unrolled into the graph. So is a method that
    calls itself again with the same arguments in a branch of `if self.flag:` after setting
    that flag, itself or through a method of its class that does (`if self.built: ...` and
    `else: self.build(shape); self.check(x)`): the call takes the other branch.

    Recursion bounded by a Python value is not reported either: each trace unrolls a fixed
    depth, as `nest(x, 3)` does with `def nest(v, depth): if depth == 0: return v` and
    `return nest(tf.expand_dims(v, 0), depth - 1)`. A call counts as bounded when its
    function has a base case (an `if` branch, or a conditional expression, that returns,
    raises or ends the function without recursing) and the call passes some parameter a
    visibly smaller value derived from that same parameter: `n - 1`, `n // 2`, `rest[1:]`,
    `x.values`, an attribute or item of it, or an item of `for item in x`; and that parameter
    enters the cycle as a Python value. It does when the cycle's first function is given, by
    every call from traced code of the module, a literal (`3`, a module constant such as
    `DEPTH = 3`), a static property (`x.shape[0]`, `x.shape.rank`, `len(x)`), a list or tuple
    display (for a shrinking structure), or a parameter that is itself such a value: annotated
    `int`/`float`, with a literal default, or passed one by its own callers (followed three
    calls up); or an attribute of `self` that only the class's `__init__` sets, each time to
    a number (`self.downsamplings = downsamplings` with `downsamplings: int = 4`), as a
    layer keeps its configuration. A parameter of a function TensorFlow traces directly is a tensor unless its
    annotation or a literal default says otherwise, so `@tf.function def fact(n)` calling
    `fact(n - 1)` is still reported; so is a bound computed by an operation (`tf.size(x)`),
    annotated `tf.Tensor`, or rebound to anything but such values. Calls from other modules
    are not seen: a helper traced only through them is reported, and one that this module
    calls with a literal is not, whatever other modules pass it.

    A function that tests the parameter it recurses into against Python container types
    (`isinstance(obj, (list, tuple, dict))`, with a base case) recurses only into the parts
    of Python containers, whatever its callers pass, and is not reported; the parts may be
    taken through a local view (`elems = obj.values()`, `for x in elems`).

    Only cycles among the functions of one module are found, and only through direct calls
    (`f(...)`, `self.f(...)`), not through functions passed as values.

    ## References
    - [Better performance with tf.function: Recursive tf.functions are not supported](https://www.tensorflow.org/guide/function#recursive_tffunctions_are_not_supported)
    - [AutoGraph: control flow](https://www.tensorflow.org/guide/function#autograph_transformations)
    """

    code = "TFF302"
    name = "recursive-tf-function"
    message = ("recursive call in traced code: tracing recurses without end on tensors (or "
               "retraces and unrolls for each Python value); use a loop (`while`, "
               "`tf.while_loop`) instead")

    @classmethod
    def triggers_for(cls, context):
        if not context.graph:
            return ()
        calls = recursive_calls(context)
        names = sorted({name for found in calls.values() for name, _ in found})
        if not names:
            return ()
        return (re.compile(words(names) + r"\s*\("),)

    def visit_Call(self, node: cst.Call) -> None:
        function = self.context.function
        if function is None:
            return
        calls = recursive_calls(self.context).get(function.key)
        if not calls or not self._closes_cycle(node, calls):
            return
        if self._repeats_itself(node, function):
            if not _resets_its_guard(function.node, _called_name(node),
                                     self._own_writes(function)):
                self.report(node)
        elif self._counts_down(node):
            if not _Bounds.of(self.context).bounded(node, function, calls):
                self.report(node)

    def _own_writes(self, function):
        """Method name → the attributes of ``self`` it assigns, for the methods of the class
        that defines ``function`` (``FunctionInfo.writes``); None if it is no method."""
        index = self.context.graph.index
        info = index.functions.get(function.key)
        cls = index.classes.get(info.class_qualname) if info is not None and \
            info.class_qualname else None
        if cls is None:
            return None
        return {name: index.functions[key].writes for name, key in cls.methods.items()
                if key in index.functions}

    @staticmethod
    def _closes_cycle(node: cst.Call, calls) -> bool:
        func = node.func
        if isinstance(func, cst.Name):
            return (func.value, False) in calls
        if isinstance(func, cst.Attribute) and (func.attr.value, True) in calls:
            receiver = func.value
            return (isinstance(receiver, cst.Name)
                    or (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name)
                        and receiver.func.value == "super"))
        return False

    @staticmethod
    def _counts_down(node: cst.Call) -> bool:
        """An argument brings a name down (``n - 1``): recursion driven by a number, endless
        when that number is a tensor. Recursion over the parts of a Python structure
        (``walk(tree.left)``, ``[f(v, depth + 1) for v in d.values()]``) ends while
        tracing."""
        finder = _arithmetic_on_name()()
        for arg in node.args:
            arg.value.visit(finder)
        return finder.found

    @staticmethod
    def _repeats_itself(node: cst.Call, function) -> bool:
        """``f(x)`` inside ``def f(x)``: the same arguments again, an endless recursion."""
        ast_node = function.node
        if ast_node is None or getattr(ast_node, "name", None) != _called_name(node):
            return False
        arguments = getattr(ast_node, "args", None)
        params = [a.arg for a in (*arguments.posonlyargs, *arguments.args)] if arguments else []
        if params[:1] in (["self"], ["cls"]) and isinstance(node.func, cst.Attribute):
            params = params[1:]
        passed = [arg.value.value for arg in node.args
                  if not arg.star and arg.keyword is None and isinstance(arg.value, cst.Name)]
        return len(passed) == len(node.args) == len(params) and passed == params


#: Keras's own ``Layer.build`` sets ``self.built``: a subclass that calls ``self.build(...)``
#: without defining it still changes that flag.
_KERAS_BUILD_WRITES = {"build": frozenset({"built"})}


def _resets_its_guard(function: Optional[ast.AST], name: Optional[str],
                      writes: Optional[Dict[str, FrozenSet[str]]]) -> bool:
    """Every call of ``name`` in ``function`` that passes its parameters again unchanged
    sits in a branch of an ``if`` that tests an attribute of ``self`` (``if self.built:``),
    and that branch sets the attribute before the call, directly or through a method of the
    class that assigns it (``self.build(shape)``; ``writes``: method → attributes): the call
    sees the other branch, so tracing ends (the recursion runs once more, not for ever)."""
    if not isinstance(function, _FUNCTIONS) or name is None or writes is None:
        return False
    receiver = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][:1]
    writes = {**_KERAS_BUILD_WRITES, **writes}

    def set_by(statement: ast.stmt) -> Set[str]:
        found: Set[str] = set()
        for node in (statement, *_own_nodes(statement)):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(t.attr for t in targets if isinstance(t, ast.Attribute)
                             and isinstance(t.value, ast.Name) and t.value.id in receiver)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in receiver):
                found.update(writes.get(node.func.attr, ()))
        return found

    def calls(nodes) -> List[ast.Call]:
        return [n for node in nodes for n in (node, *_own_nodes(node))
                if isinstance(n, ast.Call) and _calls_named(n, name, bool(receiver))]

    def guarded(statements: List[ast.stmt], tested: Set[str]) -> bool:
        """Every recursive call in ``statements`` comes after a statement that sets one of
        ``tested``, or in a nested ``if`` whose branch does."""
        changed = False
        for statement in statements:
            if not calls([statement]):
                changed = changed or bool(set_by(statement) & tested)
                continue
            if changed:
                continue
            if isinstance(statement, ast.If):
                own = tested | {n.attr for n in (statement.test, *_own_nodes(statement.test))
                                if isinstance(n, ast.Attribute)
                                and isinstance(n.value, ast.Name)
                                and n.value.id in receiver}
                if calls([statement.test]):
                    return False
                if not (guarded(statement.body, own) and guarded(statement.orelse, own)):
                    return False
                continue
            return False
        return True

    return bool(receiver) and bool(calls(function.body)) and guarded(function.body, set())


def _called_name(node: cst.Call):
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


#: Operators that bring a number down towards a base case (``n - 1``, ``n // 2``).
#: Counting up (``level + 1``) is how structure walkers track their depth: not reported.
_SHRINKING = NodeTypes("Subtract", "FloorDivide", "Divide", "RightShift", "Multiply")


@lru_cache(maxsize=None)
def _arithmetic_on_name() -> type:
    # Defined on first use: subclassing a LibCST class would import LibCST with the rule.
    class ArithmeticOnName(cst.CSTVisitor):
        """Finds ``n - 1``, ``n // k``, ``x * 0.5`` outside lambdas: a name on one side, and no
        string, list or tuple display on either (``[0] * n`` builds a list)."""

        def __init__(self):
            super().__init__()
            self.found = False

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
            sides = (node.left, node.right)
            if (isinstance(node.operator, _SHRINKING)
                    and any(isinstance(side, _NAMES) for side in sides)
                    and not any(isinstance(side, _DISPLAYS) for side in sides)
                    and (not isinstance(node.operator, cst.Multiply)
                         or any(isinstance(side, cst.Float) for side in sides))):
                self.found = True
            return not self.found

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    return ArithmeticOnName


_NAMES = NodeTypes("Name", "Attribute", "Subscript")
_DISPLAYS = NodeTypes("SimpleString", "ConcatenatedString", "FormattedString", "List", "Tuple",
                      "Dict", "Set", "ListComp")


# -- recursion bounded by a Python value --------------------------------------------------------
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Operators that bring a number down towards a base case: ``n - 1``, ``n // 2``, ``n >> 1``.
_DOWN = NodeTypes("Subtract", "FloorDivide", "Divide", "RightShift")
_NUMBER_TYPES = frozenset({"int", "float", "bool", "complex"})
#: Builtins that wrap an iterable: ``for k, v in enumerate(items)`` iterates ``items``.
_ITERATION_WRAPPERS = frozenset({
    "builtins.enumerate", "builtins.zip", "builtins.reversed", "builtins.sorted",
    "builtins.list", "builtins.tuple", "builtins.iter",
})
#: Builtins whose result is a Python number when their arguments are.
_NUMBER_BUILTINS = frozenset({
    "builtins.min", "builtins.max", "builtins.abs", "builtins.round", "builtins.sum",
    "builtins.pow",
})
_PYTHON_DISPLAYS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                    ast.SetComp)
#: How many callers up a parameter is followed to the value it receives.
_MAX_HOPS = 3
#: Python container types: a parameter tested against them holds a Python structure.
_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "set", "frozenset", "Mapping",
                              "Sequence", "MutableMapping", "MutableSequence", "OrderedDict"})

Bound = Dict[str, object]
"""Parameter name → the argument expression (LibCST or ``ast``) that call passes to it."""


class _Bounds:
    """Which recursive calls are bounded by a Python value, so each trace unrolls a fixed
    depth: the function has a base case, and the call passes some parameter a visibly smaller
    value derived from that same parameter (``n - 1``, ``rest[1:]``, ``x.values``, an item of
    ``for item in x``), where the parameter enters the cycle as a Python value (a literal, a
    number annotation, a static property such as ``x.shape[0]`` …), not a possible tensor.
    """

    def __init__(self, context):
        self.context = context
        self.cycles: Cycles = context.fact("recursive-calls", find_cycles)
        self.graph = context.graph
        self.index = context.graph.index
        self._parameters: Dict[Tuple[FunctionKey, str, str], bool] = {}
        self._locals: Set[Tuple[FunctionKey, str]] = set()

    @classmethod
    def of(cls, context) -> "_Bounds":
        return context.fact("tff302.bounds", cls)

    def bounded(self, node: cst.Call, function, calls) -> bool:
        own = function.node
        head = self.cycles.heads.get(function.key)
        head_node = self.index.nodes.get(head) if head is not None else None
        if not isinstance(own, _FUNCTIONS) or not isinstance(head_node, _FUNCTIONS):
            return False
        if not _has_base_case(own, lambda call: _is_closing(call, calls)):
            return False
        arguments = [(arg.keyword.value if arg.keyword is not None else None, arg.value,
                      bool(arg.star)) for arg in node.args]
        receiver = isinstance(node.func, cst.Attribute) and self._is_method(head, head_node)
        bound = _bind(arguments, head_node, receiver)
        if bound is None:
            return False
        own_parameters = parameter_names(own)
        items = _iterated_items(own, own_parameters)
        for parameter, value in bound.items():
            kind = _shrinks(value, parameter, items) if parameter in own_parameters else None
            if kind == "structure" and _tests_container(own, parameter):
                return True  # it recurses only into Python containers, whatever it is given
            if kind is not None and self._python_parameter(head, parameter, kind, 0):
                return True
        return False

    def _is_method(self, key: FunctionKey, node: ast.AST) -> bool:
        info = self.index.functions.get(key)
        return (info is not None and info.class_qualname is not None
                and not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                            for d in node.decorator_list))

    # -- where a parameter's value comes from ---------------------------------------------
    def _python_parameter(self, key: FunctionKey, name: str, kind: str, hops: int) -> bool:
        """Parameter ``name`` of function ``key`` holds a Python value (a number, or for
        ``kind == "structure"`` a Python container) whenever traced code calls it."""
        memo = (key, name, kind)
        if memo in self._parameters:
            return self._parameters[memo]
        self._parameters[memo] = False  # a cycle of callers proves nothing
        found = self._python_parameter_now(key, name, kind, hops)
        self._parameters[memo] = found
        return found

    def _python_parameter_now(self, key: FunctionKey, name: str, kind: str, hops: int) -> bool:
        node = self.index.nodes.get(key)
        reason = self.graph.traced.get(key)
        if not isinstance(node, _FUNCTIONS) or reason is None:
            return False
        parameter, default = parameter_default(node, name)
        if parameter is None:
            return False
        annotation = tensor_taint.read_annotation(parameter.annotation)
        if annotation is not None:
            if tensor_taint.python_annotation(annotation, _NUMBER_TYPES):
                return True
            if kind == "structure" and loop_kind.python_container_type(annotation):
                return True
            if "Tensor" in ast.unparse(annotation):
                return False
        if reason.via is None:  # traced directly: TensorFlow passes it, a tensor unless
            return _literal(default)  # a literal default shows it is a Python value
        if hops >= _MAX_HOPS:
            return False
        exclude = self.cycles.members.get(key, frozenset({key}))
        sites = [(caller, bound)
                 for caller in sorted(self.cycles.callers.get(key, ()))
                 if caller not in exclude
                 for bound in self._calls_to(caller, key, node)]
        if not sites:
            return False
        for caller, bound in sites:
            if bound is None:
                return False
            value = bound.get(name)
            if value is None:
                if not _literal(default):
                    return False
            elif not self._python_value(value, caller, kind, hops + 1):
                return False
        return True

    def _calls_to(self, caller: FunctionKey, key: FunctionKey, node: ast.AST
                  ) -> List[Optional[Bound]]:
        """How each call to ``key`` in ``caller``'s own code binds its parameters."""
        caller_node = self.index.nodes.get(caller)
        if caller_node is None or key[0] != "def":
            return [None]
        method = self._is_method(key, node)
        found = []
        for call in _own_nodes(caller_node):
            if not isinstance(call, ast.Call) or not _calls_named(call, key[2], method):
                continue
            arguments = [(None, arg.value if isinstance(arg, ast.Starred) else arg,
                          isinstance(arg, ast.Starred)) for arg in call.args]
            arguments += [(kw.arg, kw.value, kw.arg is None) for kw in call.keywords]
            found.append(_bind(arguments, node, method and isinstance(call.func, ast.Attribute)))
        return found

    def _python_value(self, node: ast.expr, key: FunctionKey, kind: str, hops: int) -> bool:
        """``node``, an expression of function ``key``, is visibly a Python value."""
        if isinstance(node, ast.Constant):
            return True
        if kind == "structure" and isinstance(node, _PYTHON_DISPLAYS):
            return True
        if isinstance(node, ast.BinOp):
            return (self._python_value(node.left, key, kind, hops)
                    and self._python_value(node.right, key, kind, hops))
        if isinstance(node, ast.UnaryOp):
            return self._python_value(node.operand, key, kind, hops)
        if isinstance(node, (ast.BoolOp, ast.Compare)):
            parts = (node.values if isinstance(node, ast.BoolOp)
                     else [node.left, *node.comparators])
            return all(self._python_value(part, key, kind, hops) for part in parts)
        if isinstance(node, ast.IfExp):
            return (self._python_value(node.body, key, kind, hops)
                    and self._python_value(node.orelse, key, kind, hops))
        if isinstance(node, ast.Attribute):
            return node.attr in tensor_taint.STATIC_ATTRIBUTES or (
                kind == "number" and self._number_setting(node, key))
        if isinstance(node, ast.Subscript):
            return self._python_value(node.value, key, kind, hops)
        if isinstance(node, ast.Call):
            return self._python_call(node, key, kind, hops)
        if isinstance(node, ast.Name):
            return self._python_name(node.id, key, kind, hops)
        return False

    def _number_setting(self, node: ast.Attribute, key: FunctionKey) -> bool:
        """``self.depth`` in a method: an attribute that only the class's ``__init__``
        sets, each time to a Python number (a literal, or a constructor parameter annotated
        ``int``/``float`` or with a literal default, or arithmetic on them), as a layer
        keeps its configuration (``self.downsamplings = downsamplings``)."""
        function, info = self.index.nodes.get(key), self.index.functions.get(key)
        cls = self.index.classes.get(info.class_qualname) if info is not None and \
            info.class_qualname else None
        receiver = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][:1] \
            if isinstance(function, _FUNCTIONS) else []
        if cls is None or not isinstance(node.value, ast.Name) or node.value.id not in (
                receiver) or "__init__" not in cls.methods:
            return False
        init = cls.methods["__init__"]
        if any(node.attr in self.index.functions[method].writes
               for method in cls.methods.values()
               if method != init and method in self.index.functions):
            return False
        init_node = self.index.nodes.get(init)
        if not isinstance(init_node, _FUNCTIONS):
            return False
        own = [a.arg for a in (*init_node.args.posonlyargs, *init_node.args.args)][:1]
        values = [statement.value for statement in _own_nodes(init_node)
                  if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                  for target in (statement.targets if isinstance(statement, ast.Assign)
                                 else [statement.target])
                  if isinstance(target, ast.Attribute) and target.attr == node.attr
                  and isinstance(target.value, ast.Name) and target.value.id in own]
        return bool(values) and all(_set_up_number(value, init_node) for value in values)

    def _python_call(self, node: ast.Call, key: FunctionKey, kind: str, hops: int) -> bool:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in tensor_taint.STATIC_ATTRIBUTES:
            return True  # ``x.get_shape()``, ``x.shape.as_list()``
        dotted = ast_dotted_name(func)
        function = self.index.nodes.get(key)
        local = function_local_names(function) if function is not None else frozenset()
        qualified = self.context.names.resolve(dotted, local) if dotted else None
        if qualified in tensor_taint.STATIC_CALLS:
            return True
        return (qualified in _NUMBER_BUILTINS and not node.keywords
                and all(self._python_value(arg, key, kind, hops) for arg in node.args))

    def _python_name(self, name: str, key: FunctionKey, kind: str, hops: int) -> bool:
        function = self.index.nodes.get(key)
        if function is None:
            return False
        values = _local_values(function, name)
        if values is None:
            return False
        if (key, name) in self._locals:
            return True  # ``n = n - 1``: the other bindings decide
        self._locals.add((key, name))
        try:
            if name in parameter_names(function):
                if not self._python_parameter(key, name, kind, hops):
                    return False
            elif not values:
                values = _module_values(self.context.tree, name)
                return bool(values) and all(isinstance(v, ast.Constant) for v in values)
            return all(self._python_value(value, key, kind, hops) for value in values)
        finally:
            self._locals.discard((key, name))


def _own_nodes(function: ast.AST):
    """The nodes of a function's own code: not those of the functions and classes it
    defines (lambdas are included: their calls run when the function runs them)."""
    stack = list(child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(child_nodes(node))


def _is_closing(call: ast.AST, calls) -> bool:
    """An ``ast`` call back into the cycle (the counterpart of ``_closes_cycle``)."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Name):
        return (func.id, False) in calls
    return (isinstance(func, ast.Attribute) and (func.attr, True) in calls
            and _is_receiver(func.value))


def _is_receiver(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) or (isinstance(node, ast.Call)
                                          and isinstance(node.func, ast.Name)
                                          and node.func.id == "super")


def _calls_named(call: ast.Call, name: str, method: bool) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == name
    return (method and isinstance(func, ast.Attribute) and func.attr == name
            and _is_receiver(func.value))


def _has_base_case(function: ast.AST, closing) -> bool:
    """An ``if`` (statement or conditional expression) with a way out of the function that
    does not recurse: a branch that returns or raises without a recursive call, or, when
    only one branch recurses (an ``if`` without ``else`` included), no recursive call in
    the code after the ``if``."""
    def recurses(nodes) -> bool:
        return any(closing(n) for node in nodes for n in (node, *_own_nodes(node)))

    def block(statements: List[ast.stmt], after: bool) -> bool:
        for position, statement in enumerate(statements):
            rest = after or recurses(statements[position + 1:])
            if isinstance(statement, ast.If):
                body, orelse = recurses(statement.body), recurses(statement.orelse)
                if (not body and _exits(statement.body)) or (
                        statement.orelse and not orelse and _exits(statement.orelse)):
                    return True
                if body != orelse and not rest:
                    return True  # one branch recurses, the other goes on to the end
            inner = rest or (isinstance(statement, (ast.For, ast.AsyncFor, ast.While))
                             and recurses([statement]))
            for field in ("body", "orelse", "finalbody", "handlers"):
                children = getattr(statement, field, None)
                if isinstance(statement, _SCOPES) or not isinstance(children, list):
                    continue
                if field == "handlers":
                    if any(block(handler.body, inner) for handler in children):
                        return True
                elif (children and isinstance(children[0], ast.stmt)
                      and block(children, inner)):
                    return True
        return False

    if block(function.body, False):
        return True
    return any(isinstance(node, ast.IfExp)
               and recurses([node.body]) != recurses([node.orelse])
               for node in _own_nodes(function))


def _exits(statements: List[ast.stmt]) -> bool:
    return any(isinstance(node, (ast.Return, ast.Raise))
               for statement in statements for node in (statement, *_own_nodes(statement)))


def _bind(arguments, function: ast.AST, receiver: bool) -> Optional[Bound]:
    """Parameter name → argument expression for a call to ``function`` given as
    (keyword, value, starred) triples; None when ``*args``/``**kwargs`` hide the binding.
    ``receiver``: called as ``obj.method(...)``, so the first parameter is bound already."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if receiver:
        positional = positional[1:]
    bound: Bound = {}
    position = 0
    for keyword, value, starred in arguments:
        if starred:
            return None
        if keyword is None:
            if position < len(positional):
                bound[positional[position]] = value
            position += 1
        else:
            bound[keyword] = value
    return bound


def _set_up_number(node: Optional[ast.expr], function: ast.AST) -> bool:
    """A Python number, as ``function`` (a constructor) computes it: a literal, a parameter
    annotated as a number or with a literal default, or arithmetic on them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _set_up_number(node.left, function) and _set_up_number(node.right, function)
    if isinstance(node, ast.UnaryOp):
        return _set_up_number(node.operand, function)
    if isinstance(node, ast.Name):
        parameter, default = parameter_default(function, node.id)
        if parameter is None:
            return False
        annotation = tensor_taint.read_annotation(parameter.annotation)
        if annotation is not None:
            return tensor_taint.python_annotation(annotation, _NUMBER_TYPES)
        return _literal(default)
    return False


def _literal(node: Optional[ast.expr]) -> bool:
    """A literal other than None (``3``, ``-1``, ``(1, 2)``): a Python value."""
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return False


def _local_values(function: ast.AST, name: str) -> Optional[List[ast.expr]]:
    """The values ``function`` assigns to ``name`` in its own code; None when it binds the
    name in some other way (a loop target, unpacking, ``with … as``, an import …)."""
    values: List[ast.expr] = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    values.append(node.value)
                elif name in _names_in(target):
                    return None
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            if isinstance(node.target, ast.Name) and node.target.id == name:
                if node.value is None:
                    continue
                values.append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and name in _names_in(node.target):
            return None
        elif isinstance(node, ast.withitem) and node.optional_vars is not None and (
                name in _names_in(node.optional_vars)):
            return None
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name).partition(".")[0] == name
                for alias in node.names):
            return None
        elif isinstance(node, _SCOPES) and node.name == name:
            return None
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            return None
    return values


def _module_values(tree: Optional[ast.Module], name: str) -> List[ast.expr]:
    """What the module's top-level code assigns to ``name`` (``DEPTH = 3``)."""
    values: List[ast.expr] = []
    for statement in getattr(tree, "body", ()):
        if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            values.append(statement.value)
        elif (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
              and statement.target.id == name and statement.value is not None):
            values.append(statement.value)
    return values


def _names_in(target: ast.AST) -> Set[str]:
    return {node.id for node in walk_nodes(target) if isinstance(node, ast.Name)}


def _root(node: ast.expr) -> Optional[str]:
    """The parameter an iterable derives from: ``x``, ``x.values``, ``x[1:]``,
    ``x.items()``, ``enumerate(x)``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif (isinstance(node.func, ast.Name)
                  and f"builtins.{node.func.id}" in _ITERATION_WRAPPERS and node.args):
                node = node.args[0]
            else:
                return None
        else:
            return None


def _tests_container(function: ast.AST, parameter: str) -> bool:
    """The function tests ``isinstance(parameter, (list, tuple, dict))`` (or another Python
    container type): with a base case, it recurses only into the parts of Python
    containers (trax's ``_is_at_level``), which ends while tracing."""
    for node in _own_nodes(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance" and len(node.args) == 2
                and isinstance(node.args[0], ast.Name) and node.args[0].id == parameter):
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any((ast_dotted_name(kind) or "").rpartition(".")[2] in _CONTAINER_TYPES
                   for kind in kinds):
                return True
    return False


def _iterated_items(function: ast.AST, parameters: FrozenSet[str]) -> Dict[str, str]:
    """Names bound by iterating a parameter (``for item in x``, ``[f(v) for v in x]``) →
    that parameter."""
    items: Dict[str, str] = {}
    views = {node.targets[0].id: _root(node.value) for node in _own_nodes(function)
             if isinstance(node, ast.Assign) and len(node.targets) == 1
             and isinstance(node.targets[0], ast.Name) and _root(node.value) in parameters}
    for node in _own_nodes(function):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            root = _root(node.iter)
            root = views.get(root, root)  # ``elems = obj.values()``, ``for x in elems``
            if root in parameters:
                for name in _names_in(node.target):
                    items.setdefault(name, root)
    return items


def _shrinks(value: cst.BaseExpression, parameter: str, items: Dict[str, str]
             ) -> Optional[str]:
    """How ``value`` is visibly smaller than ``parameter``: "number" (``n - 1``, ``n // 2``,
    ``x * 0.5``) or "structure" (``x[1:]``, ``x.values``, ``x.left``, an item of
    ``for item in x``); None if it is not."""
    if isinstance(value, cst.BinaryOperation) and not any(
            isinstance(side, _DISPLAYS) for side in (value.left, value.right)):
        if isinstance(value.operator, _DOWN):
            return "number" if _is_name(value.left, parameter) else None
        if isinstance(value.operator, cst.Multiply) and any(
                _is_name(a, parameter) and isinstance(b, cst.Float)
                for a, b in ((value.left, value.right), (value.right, value.left))):
            return "number"
        return None
    if isinstance(value, cst.Name):
        return "structure" if items.get(value.value) == parameter else None
    if isinstance(value, (cst.Attribute, cst.Subscript)):
        node: cst.BaseExpression = value
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        return "structure" if _is_name(node, parameter) else None
    return None


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
