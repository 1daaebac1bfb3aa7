"""Output formats: text (flake8/ruff style), JSON and GitHub Actions annotations."""

from __future__ import annotations

import io
import tokenize
from collections import Counter
from typing import Dict, Iterable, List, Optional, TextIO

from ..finding import Finding

FORMATS = ("text", "json", "github", "sarif")


def _escape_github(value: str, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def write_findings(findings: List[Finding], output_format: str, stream: TextIO) -> None:
    if output_format == "sarif":
        from .sarif import write_sarif
        write_sarif(findings, stream)
        return
    if output_format == "json":
        import json  # here: only JSON output needs it

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


def write_fixes(findings: List[Finding], stream: TextIO, *, applied: bool) -> None:
    """ruff's ``--show-fixes`` listing: per file, how many of each rule were fixed (or, when
    nothing was applied, would be fixed by ``--fix``)."""
    if not findings:
        stream.write("No fixes applied.\n" if applied else "No fixable findings.\n")
        return
    total = _count(len(findings), "finding")
    stream.write(f"Fixed {total}:\n" if applied else f"Fixable with --fix ({total}):\n")
    by_path: Dict[str, Counter] = {}
    for f in sorted(findings):
        by_path.setdefault(f.path, Counter())[(f.code, f.name)] += 1
    for path, counts in by_path.items():
        stream.write(f"- {path}:\n")
        for (code, name), count in sorted(counts.items()):
            stream.write(f"    {count} \u00d7 {code} ({name})\n")


def _decoded(path: str, data: bytes) -> str:
    if not path.endswith(".ipynb"):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            pass
    return data.decode("utf-8", "replace")


def write_diff(results, stream: TextIO) -> int:
    """The fixes of ``results`` (linted with ``fix=True``) as unified diffs, files untouched;
    returns how many findings the fixes would fix."""
    import difflib  # here: only --diff needs it

    changes = 0
    for result in sorted(results, key=lambda r: r.path):
        if result.fixed_source is None or result.original is None:
            continue
        before = _decoded(result.path, result.original).splitlines(keepends=True)
        after = _decoded(result.path, result.fixed_source).splitlines(keepends=True)
        for line in difflib.unified_diff(before, after, result.path, result.path):
            stream.write(line if line.endswith(("\n", "\r")) else
                         line + "\n\\ No newline at end of file\n")
        changes += result.fixes_applied
    return changes


def write_statistics(findings: Iterable[Finding], stream: TextIO,
                     output_format: str = "text") -> None:
    """One line per code, most frequent first: count, code, name. In JSON (ruff's shape) a
    list of ``{"code", "name", "count", "fixable"}``, ``fixable`` when ``--fix`` would fix
    some of them."""
    findings = list(findings)
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if f.fixable}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format == "json":
        import json  # here: only JSON output needs it

        json.dump([{"code": code, "name": name, "count": count, "fixable": code in fixable}
                   for (code, name), count in rows], stream, indent=2)
        stream.write("\n")
        return
    for (code, name), count in rows:
        stream.write(f"{count:>5}  {code}  {name}\n")


def _place(path: str, line: int, maps) -> dict:
    """``{"path", "line", "cell"}``, the line within its cell in a notebook."""
    cell = None
    if path in maps:
        cell, line = maps[path].locate(line)
    return {"path": path, "line": line, "cell": cell}


def traced_records(results) -> List[dict]:
    """Every function found traced: where it is, its name, the reason and the reason chain."""
    maps = {r.path: r.cells for r in results if getattr(r, "cells", None) is not None}
    records = []
    for result in sorted(results, key=lambda r: r.path):
        if not result.view or not result.view.traced or result.index is None:
            continue
        functions = result.index.functions
        for key, reason in sorted(result.view.traced.items(), key=lambda item: item[0][1:]):
            text = reason.render(result.path)
            if maps:
                from ..notebook import relocate_text

                text = relocate_text(text, result.path, maps)
            trace = [dict(how=link.how, **_place(link.path or result.path, link.line, maps))
                     for link in reason.chain()]
            records.append(dict(_place(result.path, key[1], maps),
                                function=functions[key].qualname, reason=text, trace=trace))
    return records


def write_traced(results, stream: TextIO, output_format: str = "text") -> None:
    """``path:line: qualname [traced: reason]`` for every function found traced
    (``path:cell N:line:`` in a notebook); in JSON a list of :func:`traced_records`."""
    records = traced_records(results)
    if output_format == "json":
        import json  # here: only JSON output needs it

        json.dump(records, stream, indent=2)
        stream.write("\n")
        return
    for record in records:
        where = f"{record['path']}:{record['line']}"
        if record["cell"] is not None:
            where = f"{record['path']}:cell {record['cell']}:{record['line']}"
        stream.write(f"{where}: {record['function']} [traced: {record['reason']}]\n")
