"""Output formats: text (flake8/ruff style), JSON and GitHub Actions annotations."""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterable, List, TextIO

from ..finding import Finding

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
            stream.write(
                f"::error title=tffunc-lint ({_escape_github(f.code, True)}),"
                f"file={_escape_github(f.path, True)},line={f.line},col={f.column},"
                f"endLine={f.end_line},endColumn={f.end_column}::"
                f"{_escape_github(f'{f.code} {f.text}')}\n")
        else:
            stream.write(f"{f.path}:{f.line}:{f.column}: {f.code} {f.text}\n")


def write_statistics(findings: Iterable[Finding], stream: TextIO) -> None:
    """One line per code, most frequent first: count, code, name."""
    counts = Counter((f.code, f.name) for f in findings)
    for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        stream.write(f"{count:>5}  {code}  {name}\n")


def write_traced(results, stream: TextIO) -> None:
    """``path:line: qualname [traced: reason]`` for every function found traced."""
    for result in sorted(results, key=lambda r: r.path):
        if not result.view or not result.view.traced or result.index is None:
            continue
        functions = result.index.functions
        for key, reason in sorted(result.view.traced.items(), key=lambda item: item[0][1:]):
            stream.write(f"{result.path}:{key[1]}: {functions[key].qualname} "
                         f"[traced: {reason.render(result.path)}]\n")
