"""The trace report: plain data built from recorded traces, rendered as text or JSON.

:func:`build` turns events into a dict (the JSON format); :func:`render_text` prints it.
Both work on plain data only, so the CLI renders what a traced child process wrote.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Tuple

from . import arguments
from .recorder import RULES

_NUMBERS = ("int", "float")


def where(path: str, line: int, cwd: Optional[str] = None) -> str:
    cwd = cwd or os.getcwd()
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:
        relative = path
    return f"{path if relative.startswith('..') else relative}:{line}"


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text not in ("True", "False")


def fixes_for(cause: str, changes: List[Dict[str, str]], kind: str,
              label: str) -> List[Tuple[str, Optional[str]]]:
    """What would have prevented one retrace, and the static rule that predicts it."""
    if cause == "recreated":
        return [("create the tf.function once, outside the loop or function that calls it, "
                 "and reuse it (hoist it)", "TFF402")]
    if cause == "new-instance":
        what = "model" if kind == "keras" else "instance"
        return [(f"each new {what} traces its tf.function methods again: reuse one {what}",
                 None)]
    if cause == "variables-created":
        return [("expected once: the first trace created variables, so TensorFlow traced "
                 "again without creating them", None)]
    if cause == "context":
        return [("same arguments in another context (device scope, graph, distribution "
                 "strategy or variable-creation scope): call it from one context", None)]
    fixes: List[Tuple[str, Optional[str]]] = []
    for change in changes:
        kind_of_change, path = change["kind"], change["path"]
        if kind_of_change == "python-value":
            if _numeric(change["old"]) and _numeric(change["new"]):
                fix = (f"pass a tensor, tf.constant({change['new']}), instead of a Python "
                       f"number for {path}: one graph then serves every value", "TFF401")
            else:
                fix = (f"every distinct Python value of {path} traces a new graph: fine for a "
                       "few mode flags, pass a tensor if it changes often", None)
        elif kind_of_change in ("shape", "rank") and kind == "keras":
            fix = ("Keras traces fit's step with reduce_retracing=True, so the relaxed graph "
                   "serves later shapes; one batch shape (batch(..., drop_remainder=True), "
                   "one batch_size) traces once", None)
        elif kind_of_change == "shape":
            fix = ("reduce_retracing=True, or the input_signature below with None for the "
                   f"varying dimensions of {path}", None)
        elif kind_of_change == "rank":
            fix = (f"give {path} one rank before the call, or shape=None for it in the "
                   "input_signature below", None)
        elif kind_of_change == "dtype":
            fix = (f"convert {path} to one dtype before the call (tf.cast)", None)
        elif kind_of_change == "new-object":
            fix = (f"{path} is matched by identity: reuse one object, or pass its tensors",
                   None)
        elif kind_of_change == "structure":
            sequence = all(change[s].startswith(("list of", "tuple of")) for s in ("old", "new"))
            fix = (f"keep the structure of {path} the same on every call"
                   + ("; pass the Python list as one tensor (tf.constant(...)) so its length "
                      "is data, not graph structure" if sequence else ""),
                   "TFF403" if sequence else None)
        else:
            fix = (f"pass {path} as the same kind of value on every call (a tensor)", None)
        if fix not in fixes:
            fixes.append(fix)
    return fixes


def _signature(events: List[Dict[str, Any]]) -> Tuple[Optional[str], List[str]]:
    """An input_signature accepting every traced call, and the Python-number parameters
    that must be passed as tensors for it."""
    names = list(events[0]["params"])
    if any(list(e["params"]) != names for e in events) or not names:
        return None, []
    specs, scalars = [], []
    for name in names:
        nodes = [arguments.from_json(e["params"][name]) for e in events]
        spec = arguments.merge_specs(nodes)
        if spec is None:
            return None, []
        specs.append(spec)
        if arguments.scalar_parameters(nodes):
            scalars.append(name)
    return "[" + ", ".join(specs) + "]", scalars


def _suggestion(info: Dict[str, Any], history: List[Dict[str, Any]],
                retraces: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """One change to the code, and how many traces it leaves."""
    causes = {r["cause"] for r in retraces}
    kinds = {c["kind"] for r in retraces for c in r["changes"]}
    distinct = len({json.dumps(e["params"], sort_keys=True) for e in history})
    if "recreated" in causes:
        return {"fix": "hoist the tf.function out of the loop or function that creates it",
                "predicted_traces": distinct}
    if info["kind"] == "keras" or not kinds or not kinds <= {"python-value", "shape", "rank"}:
        return None
    if "python-value" in kinds and any(
            not (_numeric(c["old"]) and _numeric(c["new"]))
            for r in retraces for c in r["changes"] if c["kind"] == "python-value"):
        return None
    signature, scalars = _signature(history)
    if signature is None:
        return None
    text = f"@tf.function(input_signature={signature})"
    if scalars:
        text += (" and pass " + ", ".join(scalars)
                 + (" as a tensor" if len(scalars) == 1 else " as tensors") + " (tf.constant)")
    return {"fix": text, "input_signature": signature, "tensor_parameters": scalars,
            "predicted_traces": 1}


def build(events: Iterable[Any], functions: Dict[str, Any],
          max_traces: Optional[int] = None, cwd: Optional[str] = None) -> Dict[str, Any]:
    """The report on ``events`` (``TraceEvent`` or their dicts), grouped by function;
    ``functions`` maps keys to ``FunctionInfo`` (or dicts) with their whole history."""
    rows: Dict[str, Dict[str, Any]] = {}
    plain = [e if isinstance(e, dict) else e.to_dict() for e in events]
    for event in plain:
        if event["failed"]:
            continue
        info = functions[event["key"]]
        info_dict = info if isinstance(info, dict) else info.to_dict()
        row = rows.get(event["key"])
        if row is None:
            path, line = info_dict["defined_at"]
            row = rows[event["key"]] = {
                "function": info_dict["label"], "defined_at": where(path, line, cwd),
                "kind": info_dict["kind"], "traces": 0, "retraces": [], "_info": info_dict}
        row["traces"] += 1
        if event["cause"] == "first":
            continue
        site = event["call_site"]
        changes = event["changes"]
        row["retraces"].append({
            "trace": event["index"],
            "call_site": f"{where(site[0], site[1], cwd)} in {site[2]}" if site else None,
            "cause": event["cause"], "changes": changes,
            "relaxed_to": {k: arguments.describe(arguments.from_json(v))
                           for k, v in event["relaxed"].items()},
            "fixes": [{"fix": text, "rule": f"{code} {RULES[code]}" if code else None}
                      for text, code in fixes_for(event["cause"], changes,
                                                  info_dict["kind"], info_dict["label"])]})
    for key, row in rows.items():
        info = functions[key]
        history = [e if isinstance(e, dict) else e.to_dict()
                   for e in (info["events"] if isinstance(info, dict) else info.events)]
        history = [e for e in history if not e["failed"]]
        row["suggestion"] = _suggestion(row.pop("_info"), history, row["retraces"]) \
            if row["retraces"] else None
    functions_out = sorted(rows.values(), key=lambda r: (-r["traces"], r["function"]))
    report = {"traces": sum(r["traces"] for r in functions_out),
              "retraces": sum(len(r["retraces"]) for r in functions_out),
              "functions": functions_out}
    if max_traces is not None:
        report["max_traces"] = max_traces
        report["exceeded"] = [r["function"] for r in functions_out if r["traces"] > max_traces]
    return report


_CAUSES = {
    "recreated": "a new tf.function object for the same code (recreated)",
    "new-instance": "first trace for a new instance",
    "variables-created": "traced again after creating variables on the first trace",
    "context": "same argument types, another calling context",
    "combination": "each argument's type was seen before, but not together; the closest "
                   "earlier trace differs in",
}


def _change_text(change: Dict[str, str]) -> str:
    kind = change["kind"]
    label = {"python-value": "Python value", "new-object": "new object",
             "structure": "nesting structure"}.get(kind, kind)
    return f"{change['path']}: {label} {change['old']} -> {change['new']}"


def render_text(report: Dict[str, Any]) -> str:
    lines = []
    functions = report["functions"]
    head = (f"tffunc-lint trace: {report['traces']} trace(s) of {len(functions)} "
            f"tf.function(s), {report['retraces']} retrace(s)")
    lines.append(head)
    for row in functions:
        lines.append("")
        lines.append(f"{row['function']}  defined at {row['defined_at']}  "
                     f"traced {row['traces']} time(s)")
        for retrace in row["retraces"]:
            site = f" at {retrace['call_site']}" if retrace["call_site"] else ""
            lines.append(f"  trace {retrace['trace']}{site}")
            if retrace["cause"] in _CAUSES:
                lines.append(f"    why: {_CAUSES[retrace['cause']]}")
            for change in retrace["changes"]:
                lines.append(f"    why: {_change_text(change)}")
            for name, relaxed in retrace["relaxed_to"].items():
                lines.append(f"    reduce_retracing traced {name} as {relaxed}")
            for fix in retrace["fixes"]:
                rule = f"  [{fix['rule']}]" if fix["rule"] else ""
                lines.append(f"    fix: {fix['fix']}{rule}")
        suggestion = row.get("suggestion")
        if suggestion:
            lines.append(f"  suggested: {suggestion['fix']}")
            lines.append(f"    -> {suggestion['predicted_traces']} trace(s) instead of "
                         f"{row['traces']}")
    if report.get("exceeded"):
        lines.append("")
        lines.append(f"over the limit of {report['max_traces']} trace(s): "
                     + ", ".join(report["exceeded"]))
    return "\n".join(lines) + "\n"


def render_json(report: Dict[str, Any]) -> str:
    return json.dumps(report, indent=2) + "\n"


def render(report: Dict[str, Any], output_format: str = "text") -> str:
    return render_json(report) if output_format == "json" else render_text(report)
