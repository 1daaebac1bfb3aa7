"""A read-only walk over LibCST trees, in source order, without LibCST's visitor machinery.

``CSTNode.visit`` rebuilds every node it passes (``_visit_and_replace_children``) and calls
attribute hooks for every field, even for a visitor that changes nothing. Rules only read
the tree, so the engine walks the dataclass fields itself and skips pure formatting
(whitespace, commas, parentheses, comments), which no rule looks at.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterator, Tuple

from .lazy_libcst import cst

#: Fields whose nodes only carry formatting.
_FORMATTING_FIELDS = frozenset({
    "lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer",
    "trailing_whitespace", "comma", "semicolon", "equal", "colon", "dot", "lbracket",
    "rbracket", "lbrace", "rbrace", "relative", "indent", "newline", "whitespace",
})
#: Classes (by name: no LibCST class is touched at import) whose field order differs from
#: source order.
_SOURCE_ORDER: Dict[str, Tuple[str, ...]] = {
    "ClassDef": ("decorators", "name", "bases", "keywords", "body"),
    "FunctionDef": ("decorators", "name", "params", "returns", "body"),
    "IfExp": ("body", "test", "orelse"),
    "Arg": ("keyword", "value"),
    "Parameters": ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params",
                   "star_kwarg"),
}
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _child_fields(cls: type) -> Tuple[str, ...]:
    names = _SOURCE_ORDER.get(cls.__name__)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls)
                      if f.name not in _FORMATTING_FIELDS and not f.name.startswith("whitespace"))
    _FIELDS[cls] = names
    return names


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it that carries meaning (in no particular order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The node's children that carry meaning, in source order."""
    cls = node.__class__
    for name in _FIELDS.get(cls) or _child_fields(cls):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif value.__class__ in (tuple, list):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item
