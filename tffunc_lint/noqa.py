"""``# noqa`` suppression: flake8's semantics, plus the first line of the statement.

flake8 reads a ``# noqa`` on the finding's line, where a "line" spans every physical line of
one token (a multi-line string, a backslash continuation) but ends at each line break inside
brackets; ``# noqa: TFF101,TFF3`` suppresses matching codes and code prefixes; a line that is
just ``# flake8: noqa`` switches the whole file off. The CLI applies all of this itself; under
flake8, flake8 does. Both doors also honour a ``# noqa`` on the first line of the statement
that holds the finding (the flake8 plugin drops those findings before flake8 sees them), so a
finding deep inside a multi-line call can be silenced where the statement starts.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from .analysis.patterns import lazy_compile

NOQA_INLINE = lazy_compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.I)
NOQA_FILE = lazy_compile(r"\s*# flake8[:=]\s*noqa", re.I)
_CODE_SEPARATOR = lazy_compile(r"[,\s]")


def file_is_ignored(lines: Sequence[str]) -> bool:
    return any(NOQA_FILE.match(line) for line in lines)


def _logical_line_text(text: str, lines: Sequence[str]) -> Dict[int, str]:
    """Map each physical line number to the text of its whole logical line."""
    mapping: Dict[int, str] = {}
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, token.start[0]), max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1:last])
                mapping.update(dict.fromkeys(range(first, last + 1), joined))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return mapping


def is_suppressed(code: str, noqa_text: str) -> bool:
    match = NOQA_INLINE.search(noqa_text)
    if match is None:
        return False
    codes_text = match.group("codes")
    if codes_text is None:
        return True
    codes = tuple(c for c in _CODE_SEPARATOR.split(codes_text) if c)
    return code in codes or code.startswith(codes)


def filter_findings(findings: List, text: str, lines: Sequence[str], *,
                    statement_only: bool = False) -> List:
    """Drop the findings a ``# noqa`` comment suppresses.

    ``statement_only`` checks just the statement's first line (what flake8 does not do).
    """
    return apply(findings, text, lines, statement_only=statement_only)[0]


class Directive(NamedTuple):
    """One ``# noqa`` comment: where it is and the codes it lists (None when bare)."""

    line: int
    column: int
    end_column: int
    codes: Optional[Tuple[str, ...]]


def directives(text: str) -> List[Directive]:
    """The ``# noqa`` comments of a file (comment tokens only, not text in strings)."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            match = NOQA_INLINE.search(token.string)
            if match is None or match.start() != 0:
                continue
            codes = match.group("codes")
            found.append(Directive(
                token.start[0], token.start[1] + 1, token.start[1] + match.end() + 1,
                None if codes is None else tuple(c for c in _CODE_SEPARATOR.split(codes) if c)))
    except (tokenize.TokenError, SyntaxError):
        return []
    return found


def apply(findings: List, text: str, lines: Sequence[str], *, statement_only: bool = False
          ) -> Tuple[List, Dict[int, Set[str]]]:
    """The findings no ``# noqa`` suppresses, and which codes each noqa line suppressed:
    {physical line of the ``# noqa`` → codes of the findings it silenced}."""
    used: Dict[int, Set[str]] = {}
    if not findings or "noqa" not in text.lower():
        return findings, used
    if not statement_only and file_is_ignored(lines):
        return [], used
    mapping = _logical_line_text(text, lines)

    def noqa_text(line: int) -> str:
        return mapping.get(line, lines[line - 1] if 0 < line <= len(lines) else "")

    def mark(code: str, line: int) -> None:
        """Credit the first ``# noqa`` of the physical lines whose text ``line`` reads."""
        joined, first, last = mapping.get(line), line, line
        while joined is not None and mapping.get(first - 1) is joined:
            first -= 1
        while joined is not None and mapping.get(last + 1) is joined:
            last += 1
        for number in range(first, min(last, len(lines)) + 1):
            if NOQA_INLINE.search(lines[number - 1]):
                used.setdefault(number, set()).add(code)
                return

    def suppressed(finding) -> bool:
        if not statement_only and is_suppressed(finding.code, noqa_text(finding.line)):
            mark(finding.code, finding.line)
            return True
        if (finding.statement_line not in (0, finding.line)
                and is_suppressed(finding.code, noqa_text(finding.statement_line))):
            mark(finding.code, finding.statement_line)
            return True
        return False

    return [f for f in findings if not suppressed(f)], used
