"""Reading, under Python 3.11 and older, a module whose f-strings only Python 3.12 parses.

PEP 701 (Python 3.12) lets an f-string's replacement fields hold its own quotes
(``f"{d["k"]}"``), backslashes, comments and line breaks. ``ast`` of an older Python
rejects the whole module; LibCST's parser accepts it. The engine's index needs an ``ast``
tree, so :func:`older_text` gives the text with each f-string turned into a plain string
literal of the same extent: the same lines, the same columns, every other character as it
was. The index then misses only what is inside those f-strings (the names their fields
read); the rules, which parse with LibCST, see the module as written, and fixes are made on
the original text.
"""

from __future__ import annotations

import re
from typing import List, Optional

from .lazy_libcst import cst

_LINE_BREAKS = ("\n", "\r")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def older_text(text: str) -> Optional[str]:
    """``text`` with its f-strings blanked into plain string literals of the same lines
    and columns, or None when LibCST cannot parse it or an f-string is too short to hold
    the quotes its line breaks need."""
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - not parseable by LibCST either: the error stands
        return None
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    finder = _FStrings(positions)
    wrapper.module.visit(finder)
    if not finder.ranges:
        return None
    starts = _line_starts(text)
    chars = list(text)
    for (first_line, first_column), (last_line, last_column) in finder.ranges:
        start = starts[first_line - 1] + first_column
        end = starts[last_line - 1] + last_column
        blanked = _blank(text[start:end])
        if blanked is None:
            return None
        chars[start:end] = blanked
    return "".join(chars)


class _FStrings(cst.CSTVisitor):
    """The extent of each outermost f-string: ((line, column), (line, column))."""

    def __init__(self, positions):
        super().__init__()
        self.positions = positions
        self.ranges: List[tuple] = []

    def visit_FormattedString(self, node) -> bool:
        where = self.positions[node]
        self.ranges.append(((where.start.line, where.start.column),
                            (where.end.line, where.end.column)))
        return False  # an f-string nested in its fields goes with it


def _line_starts(text: str) -> List[int]:
    """The offset of each line's first character, lines ending as LibCST ends them."""
    return [0] + [match.end() for match in _LINE_BREAK.finditer(text)]


def _blank(literal: str) -> Optional[List[str]]:
    """A plain string literal as long as ``literal``: its line breaks and non-ASCII
    characters kept where they are (so byte columns hold too), the rest spaces, within
    quotes: triple quotes when it spans lines."""
    out = [c if c in _LINE_BREAKS or ord(c) > 127 else " " for c in literal]
    quotes = 3 if any(c in _LINE_BREAKS for c in literal) else 1
    if len(out) < 2 * quotes:
        return None
    ends = list(range(quotes)) + list(range(len(out) - quotes, len(out)))
    if any(out[i] in _LINE_BREAKS for i in ends):
        return None
    for i in ends:
        out[i] = '"'
    return out
