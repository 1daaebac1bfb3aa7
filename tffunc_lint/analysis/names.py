"""Resolve the names a module uses to the canonical objects they import.

``tf.compat.v2.function``, ``from tensorflow import function`` and
``import tensorflow.compat.v1 as tf; tf.function`` all resolve to ``tensorflow.function``.
Resolution goes through the module's imports, never through the text ``tf``: a local class
called ``tf`` or another library's ``function`` resolves to nothing.
"""

from __future__ import annotations

import ast
import builtins
from typing import Dict, FrozenSet, Iterable, Iterator, Optional, Tuple

import libcst as cst

_BUILTINS = frozenset(dir(builtins))

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


def canonical(qualified: str) -> str:
    """Map an import path to the canonical public name TensorFlow documents."""
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


def ast_dotted_name(node: ast.expr) -> Optional[str]:
    """``a.b.c`` for an ``ast`` Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class NameTable:
    """Module-wide map from a local name to the canonical object it imports.

    A name that is imported in two different ways, or also bound by other module-level
    code (``tf = MyShim()``, ``class tf: ...``), resolves to nothing: a false alarm costs
    more than a miss.
    """

    def __init__(self, bindings: Dict[str, str], written: Optional[Dict[str, str]] = None):
        self._bindings = bindings
        self._written = written or {}

    @classmethod
    def from_bindings(cls, imports: Iterable[Tuple[str, str]], module_bindings: Iterable[str]
                      ) -> "NameTable":
        """The table of a module that imports ``(name, path)`` pairs and binds
        ``module_bindings`` otherwise (assignments, defs: not resolvable by import)."""
        bindings: Dict[str, str] = {}
        written: Dict[str, str] = {}
        for name, path in imports:
            target = canonical(path)
            previous = bindings.get(name)
            bindings[name] = target if previous in (None, target) else _AMBIGUOUS
            written[name] = path if bindings[name] else _AMBIGUOUS
        for name in module_bindings:
            bindings[name] = written[name] = _AMBIGUOUS
        return cls(bindings, written)

    def imported_from(self, dotted: str, package: str) -> bool:
        """``dotted`` starts with a name imported from ``package`` as written, before
        canonical spelling (``tf_keras.layers`` and ``keras.layers`` both read ``keras``)."""
        path = self._written.get(dotted.partition(".")[0]) or ""
        return path == package or path.startswith(package + ".")

    def resolve(self, dotted: str, local_names: FrozenSet[str] = frozenset()) -> Optional[str]:
        """Canonical qualified name of ``dotted`` as written in this module, or None."""
        head, _, rest = dotted.partition(".")
        if head in local_names:
            return None
        target = self._bindings.get(head)
        if target is None:
            if head in _BUILTINS:
                return f"builtins.{dotted}"
            return None
        if target == _AMBIGUOUS:
            return None
        return canonical(f"{target}.{rest}" if rest else target)

    def local_names_for(self, prefixes: Tuple[str, ...]) -> Tuple[str, ...]:
        """Local names bound to anything under ``prefixes`` (``Dense`` for ``keras.layers.``)."""
        return tuple(sorted(name for name, target in self._bindings.items()
                            if target and target.startswith(prefixes)))

    def local_alias(self, qualified: str) -> Optional[str]:
        """A name this module can write ``qualified`` as (``tf`` for ``tensorflow``)."""
        for name, target in sorted(self._bindings.items()):
            if target == qualified:
                return name
        return None


def parameter_names(func: ast.AST) -> FrozenSet[str]:
    args = func.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return frozenset(names)


def function_local_names(func: ast.AST) -> FrozenSet[str]:
    """Parameters and names a function or lambda binds in its own scope (imports excluded)."""
    names = set(parameter_names(func))
    if isinstance(func, ast.Lambda):
        return frozenset(names)
    declared_outer = set()
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_outer.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(names - declared_outer)
