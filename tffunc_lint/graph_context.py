"""Decide which functions of a module run while TensorFlow traces a graph, and why.

This is the one component every rule relies on. It works on the cheap ``ast`` tree so that
files without graph context never pay for a LibCST parse; the engine then parses only the
line ranges (regions) that hold traced code.

Functions are keyed so the same function can be found again in a LibCST tree:
``("def", line of the def keyword, name)`` or ``("lambda", line, column)``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from .finding import TraceReason
from .index import ModuleIndex
from .names import NameTable, ast_dotted_name, function_local_names

FunctionKey = Tuple
TF_FUNCTION = "tensorflow.function"


def def_key(line: int, name: str) -> FunctionKey:
    return ("def", line, name)


def lambda_key(line: int, column: int) -> FunctionKey:
    return ("lambda", line, column)


@dataclass(frozen=True)
class TracedFunction:
    """A function body that runs in graph context."""

    key: FunctionKey
    name: str
    first_line: int
    last_line: int
    reason: TraceReason
    local_names: FrozenSet[str]


class GraphContext:
    """The traced functions of one module and the reason each is traced."""

    def __init__(self, index: ModuleIndex, names: NameTable,
                 extra_traced_decorators: Iterable[str] = ()):
        self.names = names
        self._extra = frozenset(extra_traced_decorators)
        self.functions: Dict[FunctionKey, TracedFunction] = {}
        for node in index.functions:
            if node.decorator_list:
                decorator = self._tracing_decorator(node)
                if decorator is not None:
                    how, line = decorator
                    self._add(node, TraceReason(how=how, line=line, function=node.name))

    # -- entry points -------------------------------------------------------------------
    def _tracing_decorator(self, node: ast.AST) -> Optional[Tuple[str, int]]:
        """(``@tf.function`` as written, its line) when a decorator makes ``node`` traced."""
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            dotted = ast_dotted_name(target)
            if dotted is None:
                continue
            if dotted in self._extra or self.names.resolve(dotted) in self._extra | {TF_FUNCTION}:
                return f"@{dotted}", decorator.lineno
        return None

    def _add(self, node: ast.AST, reason: TraceReason) -> None:
        if isinstance(node, ast.Lambda):
            key, name, first = lambda_key(node.lineno, node.col_offset), "<lambda>", node.lineno
        else:
            key, name = def_key(node.lineno, node.name), node.name
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        if key not in self.functions:
            self.functions[key] = TracedFunction(
                key, name, first, node.end_lineno, reason, function_local_names(node))

    # -- queries ------------------------------------------------------------------------
    def get(self, key: FunctionKey) -> Optional[TracedFunction]:
        return self.functions.get(key)

    def __bool__(self) -> bool:
        return bool(self.functions)

    def regions(self) -> List[Tuple[int, int]]:
        """Disjoint, sorted line ranges that contain every traced function."""
        spans = sorted((f.first_line, f.last_line) for f in self.functions.values())
        merged: List[Tuple[int, int]] = []
        for first, last in spans:
            if merged and first <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return merged
