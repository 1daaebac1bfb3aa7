"""What code adds to the graph that changes state on every call of that graph.

Python code in a traced function runs once per trace, but the TensorFlow operations it adds
run on every call of the graph. Code that means to run once (behind a Python flag,
``if not self.initialized:``) is right only when what it adds to the graph changes nothing
on later calls. :class:`GraphEffects` finds, in statements of the module's ``ast`` tree, the
first operation that does change something on every call:

- a variable update: ``v.assign(x)``, ``assign_add``, ``assign_sub``, ``scatter_update`` …;
- an attribute or item of outside state set to a tensor computed in the graph: the result of
  a TensorFlow operation (``self.scale = 1.0 / tf.sqrt(var)``, see
  ``tensor_taint.is_operation``) or of a Keras layer or model held in an attribute
  (``self.init_out = self.layer(x)``), directly or through local names;
- either of these in a method of the same class that the statements call (``self._init(x)``),
  followed through the class's own methods.

Not counted: creating variables, weights and layers, with their initial values
(``tf.Variable(tf.zeros(...))``: a variable made while tracing is initialised once); code in
``with tf.init_scope():`` (it runs eagerly); nested functions; Python-only work; operations
whose results nothing keeps (the graph prunes them).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set

from .names import ast_dotted_name, class_ancestors, function_local_names
from .tensor_taint import is_operation
from .ast_walk import child_nodes, walk_nodes
from .patterns import lazy_compile

if TYPE_CHECKING:  # pragma: no cover
    from .file_context import FileContext

#: Methods of ``tf.Variable`` that change it.
UPDATE_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
    "scatter_mul", "scatter_div", "scatter_max", "scatter_min", "scatter_nd_update",
    "scatter_nd_add", "scatter_nd_sub", "batch_scatter_update",
})
_CREATION_METHODS = frozenset({"add_weight", "add_variable", "get_variable"})
#: Attribute names that say they hold a layer or model (``self.layer`` of a Keras wrapper).
_LAYER_NAME = lazy_compile(
    r"(?:^|_)(?:layers?|model|net(?:work)?|encoder|decoder|dense|conv\w*|embeddings?|"
    r"block|cell|mlp|backbone)$", re.IGNORECASE)
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "rank", "ndim", "name"})


@dataclass(frozen=True)
class Operation:
    """An operation that changes state on every call, and how a message shows it."""

    line: int
    text: str
    """``self.g.assign(...)``, ``self.mean = ...``."""
    through: str = ""
    """The call of a method of the class that reaches it (``self._init(...)``), if any."""


class GraphEffects:
    """Per module: what statements add to the graph that changes state on every call."""

    def __init__(self, context: "FileContext"):
        self._context = context
        self._class_of: Dict[int, ast.ClassDef] = {}
        """Method → the class whose body defines it."""
        self._methods: Dict[int, Dict[str, ast.AST]] = {}
        """Class → its methods by name."""
        self._classes: Dict[int, ast.ClassDef] = {}
        self._by_name: Optional[Dict[str, List[ast.ClassDef]]] = None
        self._calls: Optional[FrozenSet[str]] = None
        self._layers: Dict[int, FrozenSet[str]] = {}
        """Class → attributes its methods set to a Keras layer or model."""
        if context.tree is not None:
            for node in walk_nodes(context.tree):
                if isinstance(node, ast.ClassDef):
                    methods = {m.name: m for m in node.body
                               if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                    self._methods[id(node)] = methods
                    self._classes[id(node)] = node
                    for method in methods.values():
                        self._class_of[id(method)] = node

    @classmethod
    def of(cls, context: "FileContext") -> "GraphEffects":
        return context.fact("graph_effects", cls)

    def class_of(self, function: ast.AST) -> Optional[ast.ClassDef]:
        """The class whose body defines the method ``function``."""
        return self._class_of.get(id(function))

    def related(self, one: ast.ClassDef, other: Optional[ast.ClassDef]) -> bool:
        """``one`` and ``other`` are the same class, or one derives from the other within
        the module (bases matched by name): an object of the one runs methods of both."""
        return other is not None and (one is other or other in self._ancestors(one)
                                      or one in self._ancestors(other))

    def separate(self, one: ast.ClassDef, other: Optional[ast.ClassDef]) -> bool:
        """No object is both a ``one`` and an ``other``: neither derives from the other, no
        class of the module derives from both, and neither is a mixin waiting for a host in
        another module (a class that derives from nothing but ``object`` and that the
        module never instantiates itself). ``self.x`` in a method of ``other`` is then
        another object's attribute than ``self.x`` in a method of ``one``."""
        if other is None or self.related(one, other):
            return False
        if any({one, other} <= {cls, *self._ancestors(cls)} for cls in self._classes.values()):
            return False
        return not self._may_be_mixin(one) and not self._may_be_mixin(other)

    def _may_be_mixin(self, cls: ast.ClassDef) -> bool:
        return all(ast_dotted_name(base) in ("object", "builtins.object") for base in cls.bases
                   ) and cls.name not in self._instantiated()

    def _instantiated(self) -> FrozenSet[str]:
        """Names the module calls (``PG()``): among them, those of its classes it makes."""
        if self._calls is None:
            self._calls = frozenset(
                node.func.id for node in walk_nodes(self._context.tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name))
        return self._calls

    def _ancestors(self, cls: ast.ClassDef) -> List[ast.ClassDef]:
        if self._by_name is None:
            self._by_name = {}
            for node in self._classes.values():
                self._by_name.setdefault(node.name, []).append(node)
        return class_ancestors(cls, self._by_name)

    def methods(self, function: ast.AST) -> Dict[str, ast.AST]:
        """The methods of the class of ``function`` by name (empty for a plain function)."""
        cls = self.class_of(function)
        return self._methods.get(id(cls), {}) if cls is not None else {}

    def operation(self, statements: Iterable[ast.stmt], function: ast.AST,
                  ignore: FrozenSet[str] = frozenset()) -> Optional[Operation]:
        """The first operation ``statements`` of ``function`` add to the graph that changes
        state on every call (see the module docstring), or None. ``ignore``: attributes
        whose stores do not count (the flag the code sets)."""
        return _Finder(self, ignore, set()).block(list(statements), function)

    # -- what names mean --------------------------------------------------------------------
    def resolve(self, node: ast.expr, function: ast.AST, local: FrozenSet[str]
                ) -> Optional[str]:
        dotted = ast_dotted_name(node)
        if dotted is None:
            return None
        return self._context.names.resolve(dotted, local, line=getattr(node, "lineno", None))

    def layer_attributes(self, function: ast.AST) -> FrozenSet[str]:
        """Attributes the methods of ``function``'s class set to a Keras layer or model
        (``self.dense = tf.keras.layers.Dense(4)``)."""
        cls = self.class_of(function)
        if cls is None:
            return frozenset()
        if id(cls) not in self._layers:
            found: Set[str] = set()
            for method in self._methods[id(cls)].values():
                local = function_local_names(method)
                for node in walk_nodes(method):
                    if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                            and _keras_class(self.resolve(node.value.func, method, local))):
                        found.update(t.attr for t in node.targets
                                     if isinstance(t, ast.Attribute))
            self._layers[id(cls)] = frozenset(found)
        return self._layers[id(cls)]


def _keras_class(qualified: Optional[str]) -> bool:
    return bool(qualified) and qualified.startswith("keras.") and (
        qualified.rpartition(".")[2][:1].isupper())


def _creates(qualified: Optional[str], func: ast.expr) -> bool:
    """A call that makes a variable, weight, layer or other TensorFlow object: its arguments
    are initial values, used once."""
    if isinstance(func, ast.Attribute) and func.attr in _CREATION_METHODS:
        return True
    if not qualified or not qualified.startswith(("tensorflow.", "keras.")):
        return False
    return qualified.rpartition(".")[2][:1].isupper() or qualified.endswith("get_variable")


class _Finder:
    """One search, following the class's methods (each at most once)."""

    def __init__(self, effects: GraphEffects, ignore: FrozenSet[str], visited: Set[int]):
        self.effects, self.ignore, self.visited = effects, ignore, visited

    def block(self, statements: List[ast.stmt], function: ast.AST) -> Optional[Operation]:
        self.visited.add(id(function))
        scope = _Scope(self, function)
        for statement in statements:
            found = scope.statement(statement)
            if found is not None:
                return found
        return None


class _Scope:
    """The statements of one function: its receiver, local names and tensor-valued locals."""

    def __init__(self, finder: _Finder, function: ast.AST):
        self.finder, self.function = finder, function
        self.local = function_local_names(function)
        arguments = [*function.args.posonlyargs, *function.args.args]
        methods = finder.effects.methods(function)
        self.receiver = arguments[0].arg if arguments and methods else None
        self.methods = methods
        self.tensors: Set[str] = set()

    def statement(self, statement: ast.stmt) -> Optional[Operation]:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            if any(isinstance(item.context_expr, ast.Call) and self.resolve(
                    item.context_expr.func) == "tensorflow.init_scope"
                   for item in statement.items):
                return None
            for item in statement.items:  # ``with tf.control_dependencies([v.assign(x)]):``
                found = self.calls(item.context_expr)
                if found is not None:
                    return found
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            return self.assignment(statement)
        for child in child_nodes(statement):
            if isinstance(child, ast.stmt):
                found = self.statement(child)
            elif isinstance(child, ast.expr):
                found = self.calls(child)
            else:
                continue
            if found is not None:
                return found
        return None

    def assignment(self, statement) -> Optional[Operation]:
        value = statement.value
        if value is None:
            return None
        found = self.calls(value)
        if found is not None:
            return found
        tensor = self.tensor(value)
        targets = statement.targets if isinstance(statement, ast.Assign) else [
            statement.target]
        for target in targets:
            for element in _elements(target):
                if isinstance(element, ast.Name):
                    if tensor:
                        self.tensors.add(element.id)
                    else:
                        self.tensors.discard(element.id)
                elif tensor and isinstance(element, (ast.Attribute, ast.Subscript)):
                    stored = element.value if isinstance(element, ast.Subscript) else element
                    flag = isinstance(stored, ast.Attribute) and stored.attr in self.finder.ignore
                    if not flag:
                        return Operation(statement.lineno, f"{ast.unparse(element)} = ...")
        return None

    def calls(self, expression: ast.expr) -> Optional[Operation]:
        """A variable update in ``expression``, or one reached through a method of the
        class it calls."""
        for call in self.own_calls(expression):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in UPDATE_METHODS:
                return Operation(call.lineno, f"{ast.unparse(func)}(...)")
            method = self.method(func)
            if method is not None and id(method) not in self.finder.visited:
                inner = self.finder.block(list(method.body), method)
                if inner is not None:
                    return Operation(inner.line, inner.text, f"{ast.unparse(func)}(...)")
        return None

    def own_calls(self, expression: ast.expr):
        """The calls ``expression`` makes, outside creation arguments and nested lambdas."""
        stack = [expression]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Call):
                yield node
                if _creates(self.resolve(node.func), node.func):
                    continue
            stack.extend(reversed(list(child_nodes(node))))

    def tensor(self, expression: ast.expr) -> bool:
        """``expression`` is computed in the graph: it holds a TensorFlow operation, a call
        of a layer or model, or a local name set from one (what a value is, its shape or
        dtype, does not count)."""
        stack = [expression]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda) or (
                    isinstance(node, ast.Attribute) and node.attr in _STATIC_ATTRIBUTES):
                continue
            if isinstance(node, ast.Name) and node.id in self.tensors:
                return True
            if isinstance(node, ast.Call):
                qualified = self.resolve(node.func)
                if _creates(qualified, node.func):
                    continue
                if is_operation(qualified) or self.layer_call(node.func):
                    return True
            stack.extend(child_nodes(node))
        return False

    def layer_call(self, func: ast.expr) -> bool:
        """``self.layer(x)``: an attribute of the receiver, not a method, that holds a Keras
        layer or model (set to one in the class, or named as one)."""
        if not (isinstance(func, ast.Attribute) and self.own(func.value)):
            return False
        if func.attr in self.methods:
            return False
        return (func.attr in self.finder.effects.layer_attributes(self.function)
                or bool(_LAYER_NAME.search(func.attr)))

    def method(self, func: ast.expr) -> Optional[ast.AST]:
        if isinstance(func, ast.Attribute) and self.own(func.value):
            return self.methods.get(func.attr)
        return None

    def own(self, node: ast.expr) -> bool:
        return (self.receiver is not None and isinstance(node, ast.Name)
                and node.id == self.receiver)

    def resolve(self, func: ast.expr) -> Optional[str]:
        return self.finder.effects.resolve(func, self.function, self.local)


def _elements(target: ast.expr):
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _elements(element)
    elif isinstance(target, ast.Starred):
        yield from _elements(target.value)
    else:
        yield target
