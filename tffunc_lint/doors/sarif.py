"""SARIF 2.1.0 output (``--output-format sarif``), as GitHub code scanning reads it.

One run of one tool: every rule in ``tool.driver.rules`` (summary, the "What it does"
section, the whole rule page as ``help.markdown`` and a ``helpUri`` into ``docs/rules/``),
one result per finding with its region (1-based lines and columns, end column exclusive, as
SARIF wants them), the trace reason in the message, and ``partialFingerprints`` that survive
edits elsewhere in the file: a hash of the path, the code, the finding's source line with its
whitespace normalised, and which occurrence of that triple it is, never a line number.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tokenize
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, TextIO, Tuple
from urllib.parse import quote

from .. import __version__
from ..docs import render_rule
from ..finding import Finding
from ..rule import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: Rule pages, relative to the repository root (the docs are generated into it).
DOCS = "docs/rules/"
FINGERPRINT = "tffuncLint/v1"
SRCROOT = "%SRCROOT%"


def _rule_entry(rule: type) -> dict:
    docs = rule.docs()
    entry = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": docs.summary},
        "fullDescription": {"text": docs.sections.get("What it does", docs.summary)},
        "help": {"text": render_rule(rule), "markdown": render_rule(rule)},
        "helpUri": f"{DOCS}{rule.code}.md",
        "defaultConfiguration": {"level": "error",
                                 "enabled": bool(getattr(rule, "default_enabled", True))},
        "properties": {"tags": ["tf.function"],
                       "fixable": bool(rule.fixable or rule.unsafe_fixable)},
    }
    return entry


class _Lines:
    """Source lines of the linted files, read once each, for fingerprints."""

    def __init__(self):
        self._files: Dict[str, List[str]] = {}
        self._cells: Dict[str, object] = {}

    def _read(self, path: str) -> List[str]:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return []
        if path.endswith(".ipynb"):
            from ..notebook import Notebook, NotebookError
            try:
                book = Notebook.parse(data)
            except NotebookError:
                return []
            self._cells[path] = book.cell_map
            return book.text.splitlines()
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding).splitlines()
        except (SyntaxError, LookupError, UnicodeDecodeError):
            return data.decode("utf-8", "replace").splitlines()

    def text(self, finding: Finding) -> str:
        if finding.path not in self._files:
            self._files[finding.path] = self._read(finding.path)
        lines, line = self._files[finding.path], finding.line
        if finding.cell is not None:  # the line is the cell's: find it in the joined text
            cells = self._cells.get(finding.path)
            if cells is None or finding.cell not in cells.cells:
                return ""
            line += cells.first_lines[cells.cells.index(finding.cell)] - 1
        return " ".join(lines[line - 1].split()) if 0 < line <= len(lines) else ""


def fingerprints(findings: Sequence[Finding]) -> List[str]:
    """One stable hash per finding: path, code, normalised line text, occurrence."""
    lines, seen, result = _Lines(), Counter(), []
    for f in findings:
        key: Tuple[str, str, str, Optional[int]] = (f.path, f.code, lines.text(f), f.cell)
        seen[key] += 1
        text = "\0".join([f.path, f.code, str(f.cell or ""), key[2], str(seen[key])])
        result.append(hashlib.sha256(text.encode("utf-8")).hexdigest())
    return result


def _artifact(path: str, root: str) -> dict:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(Path(relative).as_posix()), "uriBaseId": SRCROOT}


def _result(f: Finding, index: Dict[str, int], fingerprint: str, root: str) -> dict:
    region = {"startLine": f.line, "startColumn": f.column,
              "endLine": max(f.end_line, f.line), "endColumn": max(f.end_column, 1)}
    result = {
        "ruleId": f.code,
        "level": "error",
        # In a notebook the region's lines are the cell's: the message names the cell.
        "message": {"text": (f"cell {f.cell}: " if f.cell is not None else "") + f.text},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(f.path, root),
                                            "region": region}}],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {"name": f.name, "fixable": f.fixable},
    }
    if f.code in index:
        result["ruleIndex"] = index[f.code]
    if f.reason:
        result["properties"]["reason"] = f.reason
    if f.cell is not None:
        result["properties"]["cell"] = f.cell
    return result


def sarif_log(findings: Iterable[Finding], *, errors: Sequence[str] = (),
              warnings: Sequence[str] = (), root: Optional[str] = None) -> dict:
    """The SARIF document for one run; ``errors`` (the run is then unsuccessful) and
    ``warnings`` become tool execution notifications."""
    findings = list(findings)
    root = os.path.abspath(root or os.getcwd())
    rules = list(all_rules())
    index = {rule.code: number for number, rule in enumerate(rules)}
    notifications = ([{"level": "error", "message": {"text": text}} for text in errors]
                     + [{"level": "warning", "message": {"text": text}} for text in warnings])
    invocation = {"executionSuccessful": not errors}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tffunc-lint", "version": __version__,
                                "semanticVersion": __version__,
                                "rules": [_rule_entry(rule) for rule in rules]}},
            "invocations": [invocation],
            "originalUriBaseIds": {SRCROOT: {"uri": Path(root).as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(f, index, fingerprint, root)
                        for f, fingerprint in zip(findings, fingerprints(findings))],
        }],
    }


def write_sarif(findings: Iterable[Finding], stream: TextIO, **notes) -> None:
    json.dump(sarif_log(findings, **notes), stream, indent=2)
    stream.write("\n")
