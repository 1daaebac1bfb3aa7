"""Output formats: text (flake8/ruff style), JSON and GitHub Actions annotations."""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterable, List, Optional, TextIO

from ..finding import Finding
from ..notebook import relocate_text

FORMATS = ("text", "json", "github")


def _escape_github(value: str, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def write_findings(findings: List[Finding], output_format: str, stream: TextIO) -> None:
    if output_format == "json":
        json.dump([f.to_dict() for f in findings], stream, indent=2)
        stream.write("\n")
        return
    for f in findings:
        if output_format == "github":
            # In a notebook the line is the cell's; the message names the cell.
            cell = f"cell {f.cell}: " if f.cell is not None else ""
            stream.write(
                f"::error title=tffunc-lint ({_escape_github(f.code, True)}),"
                f"file={_escape_github(f.path, True)},line={f.line},col={f.column},"
                f"endLine={f.end_line},endColumn={f.end_column}::"
                f"{_escape_github(f'{cell}{f.code} {f.text}')}\n")
        else:
            stream.write(f"{location(f)}: {f.code} {f.text}\n")


def location(f: Finding) -> str:
    """``path:line:column``; in a notebook ``path:cell N:line:column`` (ruff's spelling)."""
    if f.cell is not None:
        return f"{f.path}:cell {f.cell}:{f.line}:{f.column}"
    return f"{f.path}:{f.line}:{f.column}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def write_summary(findings: List[Finding], stream: TextIO, *, fixed: Optional[int] = None
                  ) -> None:
    """ruff's closing line: ``Found 12 findings (3 fixable with --fix).``, with ``--fix``
    ``Found 5 findings (3 fixed, 2 remaining).``, and ``All checks passed!`` when clean."""
    total = len(findings) + (fixed or 0)
    if not total:
        stream.write("All checks passed!\n")
    elif fixed is not None:
        stream.write(f"Found {_count(total, 'finding')} ({fixed} fixed, "
                     f"{len(findings)} remaining).\n")
    else:
        fixable = sum(f.fixable for f in findings)
        detail = f" ({fixable} fixable with --fix)" if fixable else ""
        stream.write(f"Found {_count(total, 'finding')}{detail}.\n")


def write_statistics(findings: Iterable[Finding], stream: TextIO) -> None:
    """One line per code, most frequent first: count, code, name."""
    counts = Counter((f.code, f.name) for f in findings)
    for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        stream.write(f"{count:>5}  {code}  {name}\n")


def write_traced(results, stream: TextIO) -> None:
    """``path:line: qualname [traced: reason]`` for every function found traced
    (``path:cell N:line:`` in a notebook)."""
    maps = {r.path: r.cells for r in results if getattr(r, "cells", None) is not None}
    for result in sorted(results, key=lambda r: r.path):
        if not result.view or not result.view.traced or result.index is None:
            continue
        functions = result.index.functions
        for key, reason in sorted(result.view.traced.items(), key=lambda item: item[0][1:]):
            where = f"{result.path}:{key[1]}"
            if result.path in maps:
                where = "{}:cell {}:{}".format(result.path, *maps[result.path].locate(key[1]))
            text = relocate_text(reason.render(result.path), result.path, maps)
            stream.write(f"{where}: {functions[key].qualname} [traced: {text}]\n")
