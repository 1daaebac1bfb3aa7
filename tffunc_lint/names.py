"""Resolve the names a module uses to the canonical objects they import.

``tf.compat.v2.function``, ``from tensorflow import function`` and
``import tensorflow.compat.v1 as tf; tf.function`` all resolve to ``tensorflow.function``.
Resolution goes through the module's imports, never through the text ``tf``: a local class
called ``tf`` or another library's ``function`` resolves to nothing.
"""

from __future__ import annotations

import ast
import builtins
from typing import Dict, FrozenSet, Iterable, Optional

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
        if qualified.startswith(prefix) or qualified + "." == prefix:
            qualified = replacement + qualified[len(prefix):]
    if qualified in ("tensorflow.compat.v1", "tensorflow.compat.v2"):
        return "tensorflow"
    if qualified == "tensorflow.keras":
        return "keras"
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

    def __init__(self, bindings: Dict[str, str]):
        self._bindings = bindings

    @classmethod
    def from_ast(cls, tree: ast.Module) -> "NameTable":
        bindings: Dict[str, str] = {}

        def bind(name: str, target: str) -> None:
            previous = bindings.get(name)
            bindings[name] = target if previous in (None, target) else _AMBIGUOUS

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bind(alias.asname, canonical(alias.name))
                    else:
                        top = alias.name.partition(".")[0]
                        bind(top, top)
            elif isinstance(node, ast.ImportFrom):
                if node.level or not node.module:
                    for alias in node.names:
                        bind(alias.asname or alias.name, _AMBIGUOUS)
                    continue
                for alias in node.names:
                    if alias.name != "*":
                        bind(alias.asname or alias.name, canonical(f"{node.module}.{alias.name}"))
        for name in module_level_bindings(tree):
            bindings[name] = _AMBIGUOUS
        return cls(bindings)

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

    def local_alias(self, qualified: str) -> Optional[str]:
        """A name under which this module can write ``qualified`` (e.g. ``tf`` for ``tensorflow``)."""
        for name, target in sorted(self._bindings.items()):
            if target == qualified:
                return name
        return None


def _target_names(target: ast.expr) -> Iterable[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id


def _bound_names(statements: Iterable[ast.stmt]) -> Iterable[str]:
    """Names bound by statements other than imports, looking into blocks, not scopes."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _target_names(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            yield from _target_names(node.target)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    yield from _target_names(item.optional_vars)
        for block in ("body", "orelse", "finalbody"):
            yield from _bound_names(getattr(node, block, None) or ())
        for handler in getattr(node, "handlers", None) or ():
            if handler.name:
                yield handler.name
            yield from _bound_names(handler.body)


def module_level_bindings(tree: ast.Module) -> FrozenSet[str]:
    """Names the module binds at top level by anything but an import."""
    return frozenset(_bound_names(tree.body))


def function_local_names(func: ast.AST) -> FrozenSet[str]:
    """Parameters and names a function or lambda binds in its own scope (imports excluded)."""
    args = func.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
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
