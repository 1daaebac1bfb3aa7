"""Walks over ``ast`` trees that skip the nodes no analysis reads.

``ast.iter_child_nodes`` and ``ast.walk`` also yield each name's expression context
(``Load``, ``Store``, ``Del``) and each operator (``Add``, ``Not``, ``Eq``): a third of the
nodes of a typical module, and a generator frame per node. The analyses read contexts as
fields (``node.ctx``), never as nodes of a walk, so these walks leave them out and build
each node's children as one list, with every class's fields found once. Otherwise they
visit the same nodes in the same order as the standard library's.
"""

from __future__ import annotations

import ast
from collections import deque
from typing import Dict, Iterator, List, Tuple

#: Fields that hold only an expression context or operators.
_CONTEXT_FIELDS = frozenset({"ctx", "op", "ops"})
#: Per node class, the fields that may hold child nodes (filled on first use).
_FIELDS: Dict[type, Tuple[str, ...]] = {}
_AST = ast.AST


def _fields(cls: type) -> Tuple[str, ...]:
    fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _CONTEXT_FIELDS)
    return fields


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """``ast.iter_child_nodes(node)`` without expression contexts and operators."""
    cls = node.__class__
    children: List[ast.AST] = []
    for name in _FIELDS.get(cls) or _fields(cls):
        value = getattr(node, name, None)
        if value.__class__ is list:
            children.extend([item for item in value if isinstance(item, _AST)])
        elif isinstance(value, _AST):
            children.append(value)
    return children


def walk_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)`` (breadth first) without expression contexts and operators."""
    todo = deque([node])
    pop, extend = todo.popleft, todo.extend
    while todo:
        node = pop()
        extend(child_nodes(node))
        yield node
