"""A cheap, statement-level index of one module, built from its ``ast`` tree.

Visiting only statements (never expressions) keeps this a small fraction of the cost of
``ast.walk``; it is all the engine needs to resolve imports and find function definitions
before deciding whether a file deserves a LibCST parse at all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Set, Tuple

_BLOCKS = ("body", "orelse", "finalbody")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def iter_statements(statements: Iterable[ast.stmt], *, into_scopes: bool = True
                    ) -> Iterator[ast.stmt]:
    """Every statement, depth-first, descending into blocks (and scopes, if asked)."""
    stack = list(reversed(list(statements)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES) and not into_scopes:
            continue
        children: List[ast.stmt] = []
        for block in _BLOCKS:
            children.extend(getattr(node, block, None) or ())
        for handler in getattr(node, "handlers", None) or ():
            children.extend(handler.body)
        for case in getattr(node, "cases", None) or ():
            children.extend(case.body)
        stack.extend(reversed(children))


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


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


@dataclass
class ModuleIndex:
    """Imports, module-level bindings and function definitions of one module."""

    imports: List[Tuple[str, str, int]] = field(default_factory=list)
    """(local name, imported dotted path or "" when unresolvable, relative level)."""
    module_bindings: Set[str] = field(default_factory=set)
    functions: List[ast.AST] = field(default_factory=list)

    @classmethod
    def build(cls, tree: ast.Module) -> "ModuleIndex":
        index = cls()
        for node in iter_statements(tree.body, into_scopes=False):
            index.module_bindings.update(bound_names(node))
        for node in iter_statements(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        index.imports.append((alias.asname, alias.name, 0))
                    else:
                        top = alias.name.partition(".")[0]
                        index.imports.append((top, top, 0))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    path = f"{node.module}.{alias.name}" if node.module else alias.name
                    index.imports.append((alias.asname or alias.name, path, node.level))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                index.functions.append(node)
        return index
