"""Resolve the names a module uses to the canonical objects they import.

``tf.compat.v2.function``, ``from tensorflow import function`` and
``import tensorflow.compat.v1 as tf; tf.function`` all resolve to ``tensorflow.function``.
Resolution goes through the module's imports, never through the text ``tf``: a local class
called ``tf`` or another library's ``function`` resolves to nothing.
"""

from __future__ import annotations

import ast
import builtins
from typing import Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from .lazy_libcst import cst
from .ast_walk import child_nodes

_BUILTINS = frozenset(dir(builtins))
#: ``tf.function``, as every spelling of it resolves.
TF_FUNCTION = "tensorflow.function"

#: Methods that change a list, dict, set or deque in place (``x.append(v)``).
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                      "setdefault", "add", "discard", "appendleft", "extendleft", "popitem",
                      "popleft"})

#: Prefixes rewritten, in order, to one canonical spelling.
_PREFIX_ALIASES = (
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow._api.v2.", "tensorflow."),
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
)

#: TensorFlow-internal spellings of public objects.
_EXACT_ALIASES = {
    "tensorflow.python.eager.def_function.function": "tensorflow.function",
    "tensorflow.python.eager.polymorphic_function.polymorphic_function.function":
        "tensorflow.function",
    "tensorflow.python.ops.variables.Variable": "tensorflow.Variable",
    "tensorflow.python.ops.resource_variable_ops.ResourceVariable": "tensorflow.Variable",
}

_AMBIGUOUS = ""
_UNKNOWN = object()
#: Keras names a module often takes with ``import *`` from one of several Keras modules,
#: and the modules (canonical spelling) that define them.
_STAR_HOMES = {
    "Layer": ("keras.layers", "keras"), "InputSpec": ("keras.layers", "keras"),
    "Model": ("keras.models", "keras"), "Sequential": ("keras.models", "keras"),
    "Callback": ("keras.callbacks",), "Loss": ("keras.losses",),
    "Metric": ("keras.metrics",), "Optimizer": ("keras.optimizers",),
}


_CANONICAL: Dict[str, str] = {}
"""Names already made canonical (a module resolves the same names again and again)."""


def canonical(qualified: str) -> str:
    """Map an import path to the canonical public name TensorFlow documents."""
    found = _CANONICAL.get(qualified)
    if found is None:
        if len(_CANONICAL) > 100_000:
            _CANONICAL.clear()
        found = _CANONICAL[qualified] = _canonical(qualified)
    return found


def _canonical(qualified: str) -> str:
    qualified = _EXACT_ALIASES.get(qualified, qualified)
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified + "." == prefix:
            qualified = replacement[:-1]
        elif qualified.startswith(prefix):
            qualified = replacement + qualified[len(prefix):]
    return _EXACT_ALIASES.get(qualified, qualified)


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a LibCST Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def assigned_names(target: cst.BaseExpression) -> Iterator[str]:
    """Names an assignment target binds: ``a``, ``a, (b, *c)`` → a, b, c."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from assigned_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from assigned_names(target.value)


def class_ancestors(cls: ast.ClassDef, by_name: Mapping[str, Sequence[ast.ClassDef]]
                    ) -> List[ast.ClassDef]:
    """The classes of ``by_name`` (a module's classes, by name) that ``cls`` derives from,
    directly or not, each base matched by its last name (``layers.Base`` → ``Base``)."""
    found: List[ast.ClassDef] = []
    stack = [cls]
    while stack:
        for base in stack.pop().bases:
            name = ast_dotted_name(base)
            for parent in by_name.get((name or "").rpartition(".")[2], ()):
                if parent is not cls and parent not in found:
                    found.append(parent)
                    stack.append(parent)
    return found


def ast_dotted_name(node: ast.expr) -> Optional[str]:
    """``a.b.c`` for an ``ast`` Name/Attribute chain, else None."""
    cls = node.__class__
    if cls is _AST_NAME:
        return node.id
    if cls is not _AST_ATTRIBUTE:
        return None
    parts = []
    while node.__class__ is _AST_ATTRIBUTE:
        parts.append(node.attr)
        node = node.value
    if node.__class__ is not _AST_NAME:
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_AST_NAME, _AST_ATTRIBUTE = ast.Name, ast.Attribute
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def element_values(target: ast.expr, value: object) -> List[Optional[ast.expr]]:
    """The value each element of a tuple or list target gets: the items of a tuple or list
    literal of the same length (``pool_a, pool_b = [], []``), else None for each (a call,
    a starred element on either side)."""
    elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
    if (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(elements)
            and not any(isinstance(e, ast.Starred) for e in elements + value.elts)):
        return list(value.elts)
    return [None] * len(elements)


def own_nodes(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of ``body`` (a function's statements), not descending into the functions,
    lambdas and classes written in it."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in child_nodes(node):
            if not isinstance(child, _SCOPE_NODES):
                stack.append(child)


#: How a module-level statement binds a name (see ``NameTable.from_statements``).
IMPORT, ALIAS, FALLBACK, OTHER = "import", "alias", "fallback", "other"

Binding = Tuple[str, int, str, str, bool]
"""(name, line, kind, value, straight): ``value`` is the import path (IMPORT) or the dotted
name assigned (ALIAS, ``keras = tf.keras``); ``straight`` when the statement sits directly in
the module body (not under ``if``/``try``/a def), so statement order decides which binding is
in force."""


class NameTable:
    """Module-wide map from a local name to the canonical object it imports.

    Names resolve as Python binds them: imports, module-level aliases of imported objects
    (``keras = tf.keras``, ``Layer = keras.layers.Layer``), ``try``/``except ImportError``
    alternatives (``tf = None`` in the handler is the fallback, not another binding). A name
    imported as different objects by statements of the module body resolves, given a line,
    to the binding in force there (``import numpy as tf`` … ``import tensorflow as tf``).
    A name also bound by other module-level code (``tf = MyShim()``, ``class tf: ...``), or
    imported differently under branches, resolves to nothing: a false alarm costs more than
    a miss.
    """

    def __init__(self, bindings: Dict[str, str], written: Optional[Dict[str, str]] = None,
                 positional: Optional[Dict[str, List[Tuple[int, str, str]]]] = None):
        self._bindings = bindings
        self._written = written or {}
        self._positional = positional or {}
        """name → [(line, canonical, as written)] for names rebound by imports in order."""
        self._resolved: Optional[Dict[str, Optional[str]]] = {}
        """``resolve`` of names bound once (None while the table is being built)."""
        self.stars: Tuple[str, ...] = ()
        """The modules of the module's ``from mod import *``, in order: a public name the
        module does not bind otherwise is taken for the last one's, or for the one that is
        its home when it is a well-known Keras name (``Layer`` under ``from keras.layers
        import *`` then ``from keras.models import *``); which linted module of several
        binds it is known only with the project (``ProjectGraph.names_of``)."""

    @classmethod
    def from_bindings(cls, imports: Iterable[Tuple[str, str]], module_bindings: Iterable[str]
                      ) -> "NameTable":
        """The table of a module that imports ``(name, path)`` pairs and binds
        ``module_bindings`` otherwise (assignments, defs: not resolvable by import)."""
        return cls.from_statements([(name, 0, IMPORT, path, False) for name, path in imports]
                                   + [(name, 0, OTHER, "", False) for name in module_bindings])

    @classmethod
    def from_statements(cls, statements: Sequence[Binding]) -> "NameTable":
        """The table of a module whose statements bind names as ``statements`` says, in
        statement order."""
        by_name: Dict[str, List[Binding]] = {}
        for binding in statements:
            by_name.setdefault(binding[0], []).append(binding)
        table = cls({}, {})
        table._resolved = None
        # Imports first, then aliases in statement order (each resolved by what precedes it).
        pending = sorted(by_name, key=lambda n: (any(b[2] == ALIAS for b in by_name[n]),
                                                 min(b[1] for b in by_name[n])))
        for name in pending:
            table._bind(name, sorted(by_name[name], key=lambda b: b[1]))
        table._resolved = {}
        return table

    def _bind(self, name: str, bindings: List[Binding]) -> None:
        resolved: List[Tuple[int, str, str, bool]] = []
        for _, line, kind, value, straight in bindings:
            if kind == FALLBACK:
                continue
            if kind == IMPORT:
                resolved.append((line, canonical(value), value, straight))
            elif kind == ALIAS:
                head, _, rest = value.partition(".")
                if head == name:
                    target = None  # ``keras = keras.api``: resolved only by statement order
                else:
                    target = self.resolve(value, line=line)
                    written = self._written_at(head, line)
                if not target or target.startswith("builtins."):
                    self._bindings[name] = self._written[name] = _AMBIGUOUS
                    return
                resolved.append((line, target, written + ("." + rest if rest else ""),
                                 straight))
            else:
                self._bindings[name] = self._written[name] = _AMBIGUOUS
                return
        if not resolved:
            return
        targets = {target for _, target, _, _ in resolved}
        last = resolved[-1]
        if len(targets) == 1:
            self._bindings[name], self._written[name] = last[1], last[2]
        elif all(straight for *_, straight in resolved):
            self._positional[name] = [(line, target, written)
                                      for line, target, written, _ in resolved]
            self._bindings[name], self._written[name] = last[1], last[2]
        else:
            self._bindings[name] = self._written[name] = _AMBIGUOUS

    def _target_at(self, head: str, line: Optional[int]) -> Optional[str]:
        bindings = self._positional.get(head)
        if bindings is None or line is None:
            return self._bindings.get(head)
        found = [target for at, target, _ in bindings if at <= line]
        return found[-1] if found else _AMBIGUOUS

    def _written_at(self, head: str, line: Optional[int]) -> str:
        bindings = self._positional.get(head)
        if bindings is None or line is None:
            return self._written.get(head) or ""
        found = [written for at, _, written in bindings if at <= line]
        return found[-1] if found else ""

    def refined(self, resolved: Dict[str, str]) -> "NameTable":
        """This table with some names resolved further (through other linted modules)."""
        if not resolved:
            return self
        bindings, written = dict(self._bindings), dict(self._written)
        bindings.update(resolved)
        written.update(resolved)
        positional = {k: v for k, v in self._positional.items() if k not in resolved}
        table = NameTable(bindings, written, positional)
        table.stars = self.stars
        return table

    def bound(self) -> Dict[str, str]:
        """Every name the module binds to one importable object, with that object."""
        return {name: target for name, target in self._bindings.items()
                if target and target != _AMBIGUOUS}

    def binding(self, name: str) -> Optional[str]:
        """What ``name`` is bound to once the module has run (canonical), or None."""
        return self._bindings.get(name) or None

    def imported_from(self, dotted: str, package: str) -> bool:
        """``dotted`` starts with a name imported from ``package`` as written, before
        canonical spelling (``tf_keras.layers`` and ``keras.layers`` both read ``keras``)."""
        path = self._written.get(dotted.partition(".")[0]) or ""
        return path == package or path.startswith(package + ".")

    def resolve(self, dotted: str, local_names: FrozenSet[str] = frozenset(),
                line: Optional[int] = None) -> Optional[str]:
        """Canonical qualified name of ``dotted`` as written in this module, or None.
        ``line``: where it is used, for a name the module imports more than once."""
        head, _, rest = dotted.partition(".")
        if head in local_names:
            return None
        memo = self._resolved
        if memo is not None and head not in self._positional:
            found = memo.get(dotted, _UNKNOWN)
            if found is _UNKNOWN:
                found = memo[dotted] = self._resolve(dotted, head, rest, None)
            return found
        return self._resolve(dotted, head, rest, line)

    def _resolve(self, dotted: str, head: str, rest: str, line: Optional[int]
                 ) -> Optional[str]:
        target = self._target_at(head, line)
        if target is None:
            if head in _BUILTINS:
                return f"builtins.{dotted}"
            return self.from_stars(dotted)
        if target == _AMBIGUOUS:
            return None
        return canonical(f"{target}.{rest}" if rest else target)

    def from_stars(self, dotted: str) -> Optional[str]:
        """``dotted`` as the module's star imports bring its public first name, or None."""
        head = dotted.partition(".")[0]
        if self.stars and not head.startswith("_"):
            return canonical(f"{self._star_module(head)}.{dotted}")
        return None

    def _star_module(self, name: str) -> str:
        """The star-imported module a public ``name`` the module does not bind comes from:
        its home among them when it is a well-known Keras name, else the last one."""
        homes = _STAR_HOMES.get(name)
        if homes and len(self.stars) > 1:
            for module in reversed(self.stars):
                if canonical(module) in homes:
                    return module
        return self.stars[-1]

    def local_names_for(self, prefixes: Tuple[str, ...]) -> Tuple[str, ...]:
        """Local names bound to anything under ``prefixes`` (``Dense`` for ``keras.layers.``)."""
        return tuple(sorted(name for name, target in self._bindings.items()
                            if target and target.startswith(prefixes)))

    def local_alias(self, qualified: str) -> Optional[str]:
        """A name this module can write ``qualified`` as (``tf`` for ``tensorflow``)."""
        aliases = self.__dict__.get("_aliases")
        if aliases is None:  # built once: the first name in order for each target
            aliases = self._aliases = {}
            for name, target in sorted(self._bindings.items()):
                aliases.setdefault(target, name)
        return aliases.get(qualified)


def parameter_default(function: ast.AST, name: str
                      ) -> Tuple[Optional[ast.arg], Optional[ast.expr]]:
    """The parameter ``name`` of ``function`` and its default value (None, None when it has
    no such parameter; the default is None when it has none)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in (*zip(positional, defaults), *zip(args.kwonlyargs, args.kw_defaults)):
        if arg.arg == name:
            return arg, default
    return None, None


def parameter_names(func: ast.AST) -> FrozenSet[str]:
    args = func.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return frozenset(names)


#: Fields that hold only expression contexts and operators: no name is bound below them.
_NO_NAMES_BELOW = frozenset({"ctx", "op", "ops"})
#: Per node class, the fields ``function_local_names`` looks into (filled on first use).
_WALKED_FIELDS: Dict[type, Tuple[str, ...]] = {
    ast.Constant: (), ast.Lambda: (), ast.Global: (), ast.Nonlocal: (),
    ast.FunctionDef: (), ast.AsyncFunctionDef: (), ast.ClassDef: (),
}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def function_local_names(func: ast.AST) -> FrozenSet[str]:
    """Parameters and names a function or lambda binds in its own scope (imports excluded).

    Nested defs and classes bind their name (their decorators, defaults and bodies are not
    looked into), lambdas bind nothing; ``global`` and ``nonlocal`` names are not local.
    Kept on the node: the indexer, the graph context and the analyses all ask."""
    found = func.__dict__.get("_local_names")
    if found is None:
        found = func._local_names = _function_local_names(func)
    return found


def function_body_names(func: ast.AST) -> FrozenSet[str]:
    """The names a function's body binds in its own scope, parameters apart (a parameter
    among them is rebound); as ``function_local_names``, kept on the node."""
    found = func.__dict__.get("_body_names")
    if found is None:
        found = func._body_names = (frozenset() if isinstance(func, ast.Lambda)
                                    else _body_names(func))
    return found


def _function_local_names(func: ast.AST) -> FrozenSet[str]:
    return parameter_names(func) | function_body_names(func)


def _body_names(func: ast.AST) -> FrozenSet[str]:
    names: set = set()
    declared_outer = set()
    stack = list(func.body)
    pop, push, extend = stack.pop, stack.append, stack.extend
    walked, name_class, store_class = _WALKED_FIELDS, ast.Name, ast.Store
    node_class = ast.AST
    while stack:
        node = pop()
        cls = node.__class__
        if cls is name_class:
            if node.ctx.__class__ is store_class:
                names.add(node.id)
            continue
        fields = walked.get(cls)
        if fields is None:
            if not isinstance(node, node_class):
                continue  # a string or None in a list field
            fields = walked[cls] = tuple(f for f in cls._fields if f not in _NO_NAMES_BELOW)
        if not fields:
            if cls in _DEFINITIONS:
                names.add(node.name)
            elif cls is ast.Global or cls is ast.Nonlocal:
                declared_outer.update(node.names)
            continue
        if cls is ast.ExceptHandler and node.name:
            names.add(node.name)
        for field in fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                extend(value)
            elif isinstance(value, node_class):
                push(value)
    return frozenset(names - declared_outer)
