"""Where a value used in traced code comes from: made by the call, or outliving it.

A Python container that the traced function creates (``out = []``) is rebuilt on every
trace, so filling it is harmless. One that outlives the call (a module global, a variable
of an enclosing function that is not traced, an attribute such as ``self.history``, a
parameter) keeps what the trace put into it: the mutation happens once per trace, not once
per call, and leaks symbolic tensors. :func:`origin` answers the question for a dotted name
(``history``, ``self.history``) in the traced function being visited, and says whether the
module visibly binds it to a Python container (``[]``, ``{}``, ``set()``, ``dict(...)``,
``collections.defaultdict(...)`` …): a name nothing says is a container is reported with
``kind=None``, so that rules can stay silent about it.

The analysis works on the module's ``ast`` tree (``FileContext.tree``) and is computed once
per file (``FileContext.fact``).
"""

from __future__ import annotations

import ast
import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from .names import (NameTable, ast_dotted_name, element_values, function_local_names,
                    parameter_names)
from .ast_walk import child_nodes, walk_nodes

if TYPE_CHECKING:  # pragma: no cover
    from .file_context import FileContext


class Provenance(enum.Enum):
    LOCAL = "local"
    """Bound inside the traced call (or inside a traced function that encloses it)."""
    PARAMETER = "parameter"
    ATTRIBUTE = "attribute"
    GLOBAL = "global"
    CLOSURE = "closure"
    UNKNOWN = "unknown"


#: Provenances of objects that exist before the call and after it.
OUTLIVING = frozenset({Provenance.PARAMETER, Provenance.ATTRIBUTE, Provenance.GLOBAL,
                       Provenance.CLOSURE})


@dataclass(frozen=True)
class Origin:
    """Where the object a dotted name denotes comes from."""

    provenance: Provenance
    kind: Optional[str] = None
    """``list``, ``dict``, ``set``, ``deque`` or ``container`` (several kinds) when every
    binding the module shows is a Python container (or ``None``); otherwise None."""
    description: str = ""
    """How a message names it: "module global `CACHE`", "attribute `self.history`"."""
    scope: Optional[ast.AST] = field(default=None, compare=False)
    """For a closure variable, the enclosing function that binds it."""

    @property
    def outlives_call(self) -> bool:
        return self.provenance in OUTLIVING


UNKNOWN = Origin(Provenance.UNKNOWN)

# -- what a bound value is ---------------------------------------------------------------------
_NONE, _OTHER = "none", "other"
_CONSTRUCTORS = {
    "builtins.list": "list", "builtins.dict": "dict", "builtins.set": "set",
    "collections.defaultdict": "dict", "collections.OrderedDict": "dict",
    "collections.Counter": "dict", "collections.deque": "deque",
    "typing.OrderedDict": "dict", "typing.DefaultDict": "dict",
}
_DISPLAYS = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict",
             ast.Set: "set", ast.SetComp: "set"}


def value_kind(value: Optional[ast.expr], names: NameTable,
               local_names: FrozenSet[str] = frozenset()) -> str:
    """``list``/``dict``/``set``/``deque`` for a container display or constructor call,
    ``none`` for ``None``, ``other`` for anything else (or an unknown value)."""
    if value is None:
        return _OTHER
    kind = _DISPLAYS.get(type(value))
    if kind:
        return kind
    if isinstance(value, ast.Constant) and value.value is None:
        return _NONE
    if isinstance(value, ast.Call):
        dotted = ast_dotted_name(value.func)
        qualified = names.resolve(dotted, local_names) if dotted else None
        return _CONSTRUCTORS.get(qualified or "", _OTHER)
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        # ``items or []``: a container whichever operand is taken, as far as anyone can tell.
        kinds = [value_kind(v, names, local_names) for v in value.values]
        containers = [k for k in kinds if k not in (_NONE, _OTHER)]
        return containers[-1] if containers else _OTHER
    if isinstance(value, ast.IfExp):
        return combine_kinds([value_kind(value.body, names, local_names),
                              value_kind(value.orelse, names, local_names)]) or _OTHER
    return _OTHER


def container_evidence(context: "FileContext") -> Callable[[str], bool]:
    """A cheap necessary condition for :func:`value_kind` to see a container bound to a name
    (or attribute) in the file: some assignment to it whose first line holds a display
    bracket, a container constructor, or continues on the next line. Rules use it to skip
    parsing code that cannot report. Computed once per file."""
    return context.fact("container_provenance.evidence",
                        lambda c: _container_evidence(c.text, c.names))


def _container_evidence(text: str, names: NameTable) -> Callable[[str], bool]:
    constructors = {qualified.rpartition(".")[2] for qualified in _CONSTRUCTORS}
    constructors.update(names.local_names_for(tuple(_CONSTRUCTORS)))
    container = re.compile(r"[\[{]|\b(?:%s)\s*\(|[(\\,]\s*$" % "|".join(sorted(constructors)))
    answers: Dict[str, bool] = {}

    def may_hold_container(name: str) -> bool:
        found = answers.get(name)
        if found is None:
            # ``name = ...``, and ``name, other = ...`` or ``other, name = ...`` (unpacking)
            assignment = re.compile(r"(?<!\w)(?:[\w.*]+\s*,\s*)*%s\s*(?:,\s*[\w.*]+\s*)*"
                                    r"(?::[^=\n]*)?=(?!=)([^\n]*)" % re.escape(name))
            found = answers[name] = any(container.search(m.group(1))
                                        for m in assignment.finditer(text))
        return found

    return may_hold_container


def combine_kinds(kinds: List[str]) -> Optional[str]:
    """The container kind shared by every binding, ``None`` bindings aside; None when some
    binding is not a container or none is."""
    if not kinds or _OTHER in kinds:
        return None
    containers = {k for k in kinds if k != _NONE}
    if not containers:
        return None
    return containers.pop() if len(containers) == 1 else "container"


# -- bindings of one scope --------------------------------------------------------------------
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NEUTRAL = object()


def _target_bindings(target: ast.expr, value) -> Iterator[Tuple[str, object]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element, item in zip(target.elts, element_values(target, value)):
            yield from _target_bindings(element, item)
    elif isinstance(target, ast.Starred):
        yield from _target_bindings(target.value, None)


def _scope_children(node: ast.AST) -> Iterator[ast.AST]:
    """Children of ``node`` that run in the same scope (nested scopes' bodies left out;
    their decorators, defaults and, for comprehensions, first iterable do run here)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from node.decorator_list
        yield from node.args.defaults
        yield from (d for d in node.args.kw_defaults if d is not None)
    elif isinstance(node, ast.ClassDef):
        yield from node.decorator_list
        yield from node.bases
    elif isinstance(node, ast.Lambda):
        yield from node.args.defaults
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        yield node.generators[0].iter
    else:
        yield from child_nodes(node)


@dataclass
class ScopeBindings:
    """Names one scope binds: the values assigned to each (None: bound some other way),
    and the names it declares ``global``/``nonlocal``."""

    values: Dict[str, List[object]]
    declared_global: Set[str]
    declared_nonlocal: Set[str]

    def kind(self, name: str, names: NameTable, local_names: FrozenSet[str] = frozenset()
             ) -> Optional[str]:
        kinds = [value_kind(v, names, local_names) for v in self.values.get(name, ())
                 if v is not _NEUTRAL]
        return combine_kinds(kinds)


def scope_bindings(body: List[ast.stmt]) -> ScopeBindings:
    values: Dict[str, List[object]] = {}
    declared_global: Set[str] = set()
    declared_nonlocal: Set[str] = set()
    stack: List[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        found: List[Tuple[str, object]] = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                found.extend(_target_bindings(target, node.value))
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                found.extend(_target_bindings(node.target, node.value))
        elif isinstance(node, ast.AugAssign):
            found.extend(_target_bindings(node.target, _NEUTRAL))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            found.extend(_target_bindings(node.target, None))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    found.extend(_target_bindings(item.optional_vars, None))
        elif isinstance(node, ast.NamedExpr):
            found.extend(_target_bindings(node.target, node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, None))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found.append(((alias.asname or alias.name).partition(".")[0], None))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.append((node.name, None))
        elif isinstance(node, ast.Global):
            declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            declared_nonlocal.update(node.names)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                found.extend(_target_bindings(target, None))
        for name, value in found:
            values.setdefault(name, []).append(value)
        stack.extend(reversed(list(_scope_children(node))))
    for name in declared_global | declared_nonlocal:
        values.pop(name, None)
    return ScopeBindings(values, declared_global, declared_nonlocal)


# -- the module ---------------------------------------------------------------------------------
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class ModuleScopes:
    """The module's functions and classes, how they nest, and what they bind."""

    def __init__(self, tree: ast.Module, names: NameTable):
        self.names = names
        self.parent: Dict[int, Optional[ast.AST]] = {}
        """Function node id → the nearest enclosing function (None at module/class level)."""
        self.owner_class: Dict[int, ast.ClassDef] = {}
        """Method node id → its class (functions written directly in a class body)."""
        self.classes: Dict[str, ast.ClassDef] = {}
        """Top-level class name → node (the bases a class can name in this module)."""
        self.functions: List[ast.AST] = []
        self._bindings: Dict[int, ScopeBindings] = {}
        self._class_attributes: Dict[int, Dict[str, List[object]]] = {}
        self._declaring_global: List[ast.AST] = []
        """Functions with a ``global`` statement of their own."""
        self.module = scope_bindings(tree.body)
        self._collect(tree)
        self._add_global_assignments()

    def _collect(self, tree: ast.Module) -> None:
        stack: List[Tuple[ast.AST, Optional[ast.AST], Optional[ast.ClassDef]]] = [
            (child, None, None) for child in child_nodes(tree)]
        while stack:
            node, function, cls = stack.pop()
            if isinstance(node, _FUNCTIONS):
                self.parent[id(node)] = function
                self.functions.append(node)
                if cls is not None and not isinstance(node, ast.Lambda):
                    self.owner_class[id(node)] = cls
                for child in child_nodes(node):
                    stack.append((child, node, None))
                continue
            if isinstance(node, ast.ClassDef):
                if function is None and cls is None:
                    self.classes.setdefault(node.name, node)
                for child in child_nodes(node):
                    stack.append((child, function, node if child in node.body else None))
                continue
            if isinstance(node, ast.Global) and function is not None:
                self._declaring_global.append(function)
            for child in child_nodes(node):
                stack.append((child, function, None))

    def _add_global_assignments(self) -> None:
        """``global CACHE; CACHE = {}`` inside a function binds the module's ``CACHE``."""
        for function in dict.fromkeys(self._declaring_global):
            declared = self.bindings(function).declared_global
            if not declared:
                continue
            for statement in walk_nodes(function):
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        for name, value in _target_bindings(target, statement.value):
                            if name in declared:
                                self.module.values.setdefault(name, []).append(value)

    def bindings(self, function: ast.AST) -> ScopeBindings:
        """What ``function`` (a def or a lambda) binds in its own scope."""
        found = self._bindings.get(id(function))
        if found is None:
            body = ([ast.Expr(function.body)] if isinstance(function, ast.Lambda)
                    else function.body)
            found = scope_bindings(body)
            self._bindings[id(function)] = found
        return found

    # -- classes --------------------------------------------------------------------------
    def receiver(self, function: ast.AST) -> Optional[str]:
        """The name of ``self`` (or ``cls``) in a method; None for other functions."""
        cls = self.owner_class.get(id(function))
        if cls is None or isinstance(function, ast.Lambda):
            return None
        for decorator in function.decorator_list:
            if ast_dotted_name(decorator) == "staticmethod":
                return None
        positional = [*function.args.posonlyargs, *function.args.args]
        return positional[0].arg if positional else None

    def attribute_kind(self, cls: ast.ClassDef, attribute: str) -> Optional[str]:
        """Container kind of ``self.<attribute>`` from the class and its in-module bases."""
        values: List[object] = []
        for klass in self._lineage(cls):
            values.extend(self._attributes(klass).get(attribute, ()))
        kinds = [value_kind(v, self.names) for v in values if v is not _NEUTRAL]
        return combine_kinds(kinds)

    def _lineage(self, cls: ast.ClassDef) -> List[ast.ClassDef]:
        found: List[ast.ClassDef] = []
        stack = [cls]
        while stack and len(found) < 16:
            klass = stack.pop()
            if klass in found:
                continue
            found.append(klass)
            for base in klass.bases:
                dotted = ast_dotted_name(base)
                if dotted in self.classes:
                    stack.append(self.classes[dotted])
        return found

    def _attributes(self, cls: ast.ClassDef) -> Dict[str, List[object]]:
        found = self._class_attributes.get(id(cls))
        if found is not None:
            return found
        found = {}
        for statement in cls.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                targets = (statement.targets if isinstance(statement, ast.Assign)
                           else [statement.target])
                for target in targets:
                    for name, value in _target_bindings(target, statement.value):
                        found.setdefault(name, []).append(value)
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            receiver = self.receiver(statement)
            if receiver is None:
                continue
            for node in walk_nodes(statement):
                for attribute, value in _attribute_assignments(node, receiver):
                    found.setdefault(attribute, []).append(value)
        self._class_attributes[id(cls)] = found
        return found


def _attribute_assignments(node: ast.AST, receiver: str) -> Iterator[Tuple[str, object]]:
    """(attribute, value) for each ``<receiver>.attribute = value`` in one statement."""
    if isinstance(node, ast.Assign):
        pairs = [(t, node.value) for t in node.targets]
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        pairs = [(node.target, node.value)]
    elif isinstance(node, ast.AugAssign):
        pairs = [(node.target, _NEUTRAL)]
    else:
        return
    for target, value in pairs:
        if isinstance(target, (ast.Tuple, ast.List)):
            targets = list(zip(target.elts, element_values(target, value)))
        else:
            targets = [(target, value)]
        for element, item in targets:
            if isinstance(element, ast.Starred):
                element = element.value
            if (isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name)
                    and element.value.id == receiver):
                yield element.attr, item


# -- the question rules ask ------------------------------------------------------------------
RECEIVERS = ("self", "cls")


def is_entry_point(reason) -> bool:
    """The traced function is a ``tf.function`` itself: TensorFlow checks that it leaves
    its arguments alone."""
    return (reason is not None and reason.via is None
            and (reason.how.startswith("@") or reason.how == "tf.function(...)"))


def outliving_names(context: "FileContext") -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """Names whose objects can outlive a traced call: the parameters of ``tf.function`` entry
    points (receivers aside; mutating those raises), and the rest (``self``/``cls``, module
    names, variables of functions that enclose traced ones)."""
    return context.fact("container_provenance.outliving", _outliving_names)


def _outliving_names(context: "FileContext") -> Tuple[FrozenSet[str], FrozenSet[str]]:
    index, graph = context.graph.index, context.graph
    parameters = set()
    names = set(index.module_bindings) | set(RECEIVERS)
    enclosing = set()  # qualnames of the functions and classes around traced functions
    for key in graph.traced:
        function = graph.get(key)
        if is_entry_point(function.reason):
            parameters |= function.parameters
        parts = index.functions[key].qualname.split(".")
        enclosing.update(".".join(parts[:cut]) for cut in range(1, len(parts)))
    for key, info in index.functions.items():
        if key in index.nodes and info.qualname in enclosing:
            names |= function_local_names(index.nodes[key])
    return frozenset(parameters - set(RECEIVERS)), frozenset(names)


def module_scopes(context: "FileContext") -> ModuleScopes:
    return context.fact("container_provenance.scopes",
                        lambda c: ModuleScopes(c.tree, c.names))


def _function_keys(context: "FileContext") -> Dict[int, tuple]:
    return context.fact("container_provenance.keys",
                        lambda c: {id(node): key for key, node in c.graph.index.nodes.items()})


def is_traced_node(context: "FileContext", function: Optional[ast.AST]) -> bool:
    """Whether the def or lambda ``function`` runs in graph context (a lambda that is no
    entry point of its own runs where it is written)."""
    scopes = module_scopes(context)
    keys = _function_keys(context)
    while function is not None:
        key = keys.get(id(function))
        if key is not None:
            return key in context.graph.traced
        if not isinstance(function, ast.Lambda):
            return False
        function = scopes.parent.get(id(function))
    return False


def origin(context: "FileContext", dotted: str) -> Origin:
    """Where the object that ``dotted`` (``acc``, ``self.history``) denotes, written in the
    traced function being visited, comes from."""
    function = context.function
    if function is None or function.node is None or context.tree is None:
        return UNKNOWN
    head, _, rest = dotted.partition(".")
    if head in context.local_names and head not in function.local_names:
        return UNKNOWN  # a parameter of a lambda written in the traced code
    scopes = module_scopes(context)
    scope: Optional[ast.AST] = function.node
    while scope is not None:
        own = scopes.bindings(scope)
        if head in own.declared_global:
            break
        parameters = parameter_names(scope)
        if head in parameters or head in own.values:
            return _bound_in(context, scopes, scope, own, head, rest,
                             head in parameters and head not in own.values)
        if scope is function.node and head in function.local_names:
            return Origin(Provenance.LOCAL, None, f"local `{head}`")
        scope = scopes.parent.get(id(scope))
    if context.names.resolve(head) is not None or head not in scopes.module.values:
        return UNKNOWN  # an import, a builtin, or a name this module does not bind
    kind = None if rest else scopes.module.kind(head, context.names)
    return Origin(Provenance.GLOBAL, kind, f"module global `{head}`")


def _bound_in(context: "FileContext", scopes: ModuleScopes, scope: ast.AST,
              own: ScopeBindings, head: str, rest: str, parameter: bool) -> Origin:
    attribute, _, deeper = rest.partition(".")
    if head == scopes.receiver(scope):
        if not attribute:
            return UNKNOWN
        cls = scopes.owner_class[id(scope)]
        kind = None if deeper else scopes.attribute_kind(cls, attribute)
        if scope is context.function.node and context.function.reason.fresh:
            # Traced only as a method of objects the traced code makes (``r = Registry();
            # r.insert(...)``): this ``self`` is new in each trace, like a local.
            return Origin(Provenance.LOCAL, kind, f"attribute `{head}.{attribute}` of an "
                                                  "object made while tracing")
        return Origin(Provenance.ATTRIBUTE, kind, f"attribute `{head}.{attribute}`")
    kind = None if rest else own.kind(head, context.names)
    if scope is context.function.node:
        kwarg = getattr(scope.args, "kwarg", None)
        if parameter and kwarg is not None and kwarg.arg == head:
            # ``**kwargs`` is a new dict on every call; its values are the caller's.
            return UNKNOWN if rest else Origin(Provenance.LOCAL, "dict", f"local `{head}`")
        if parameter:
            return (UNKNOWN if rest else
                    Origin(Provenance.PARAMETER, None, f"parameter `{head}`"))
        return Origin(Provenance.LOCAL, kind, f"local `{head}`")
    if is_traced_node(context, scope):
        return Origin(Provenance.LOCAL, kind, f"local `{head}` of a traced function")
    name = getattr(scope, "name", "<lambda>")
    return Origin(Provenance.CLOSURE, kind, f"variable `{head}` of the enclosing `{name}`",
                  scope)
