"""``tffunc-lint trace [--max-traces N] [--output-format text|json] -- python train.py ARGS``.

Runs the command with the recorder armed in every Python process it starts (a
``sitecustomize`` on ``PYTHONPATH``), then prints why each ``tf.function`` traced. The
program's exit code is kept, unless a function traced more than ``--max-traces`` times:
then 1. Without TensorFlow: exit 2 and say what to install.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

EXIT_ERROR = 2
INSTALL_HINT = ("TensorFlow is not installed; `tffunc-lint trace` records the traces of a "
                "TensorFlow program: pip install 'tffunc-lint[verify]'")
SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_site")


class TraceUsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise TraceUsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tffunc-lint trace",
                     description="Run a Python program and report why each tf.function "
                                 "traced: tffunc-lint trace [OPTIONS] -- python train.py ARGS")
    parser.add_argument("--max-traces", type=int, metavar="N",
                        help="exit 1 when a function traces more than N times")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument("--output", metavar="FILE",
                        help="write the report to FILE instead of standard output")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the program to run, after --")
    return parser


def _tensorflow_available() -> bool:
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def traced_environment(directory: str, base: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = dict(os.environ if base is None else base)
    from .bootstrap import ENV_DIR

    env[ENV_DIR] = directory
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SITE_DIR, env.get("PYTHONPATH")) if p)
    return env


def read_dumps(directory: str) -> List[Dict[str, Any]]:
    dumps = []
    for path in glob.glob(os.path.join(directory, "*.json")):
        with open(path, encoding="utf-8") as stream:
            dumps.append(json.load(stream))
    return sorted(dumps, key=lambda d: d["events"][0]["number"] if d["events"] else 0)


def reports(dumps: List[Dict[str, Any]], max_traces: Optional[int]) -> List[Dict[str, Any]]:
    from . import report

    out = []
    for dump in dumps:
        data = report.build(dump["events"], dump["functions"], max_traces, cwd=dump["cwd"])
        data["pid"], data["argv"] = dump["pid"], dump["argv"]
        out.append(data)
    return out


def render(datas: List[Dict[str, Any]], output_format: str) -> str:
    from . import report

    if output_format == "json":
        return json.dumps(datas[0] if len(datas) == 1 else {"processes": datas}, indent=2) + "\n"
    if not datas:
        return "tffunc-lint trace: no tf.function traced\n"
    if len(datas) == 1:
        return report.render_text(datas[0])
    return "\n".join(f"== process {d['pid']}: {' '.join(d['argv'])}\n"
                     + report.render_text(d) for d in datas)


def run_trace(argv: Sequence[str]) -> int:
    argv = list(argv)
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1:]
    else:
        options, command = argv, []
    args = _parser().parse_args(options)
    command = command or args.command
    if not command:
        raise TraceUsageError("trace: no command to run; tffunc-lint trace -- python train.py")
    if args.max_traces is not None and args.max_traces < 1:
        raise TraceUsageError("--max-traces must be at least 1")
    if not _tensorflow_available():
        raise TraceUsageError(INSTALL_HINT)
    directory = tempfile.mkdtemp(prefix="tffunc-lint-trace-")
    try:
        try:
            completed = subprocess.run(command, env=traced_environment(directory))
        except OSError as error:
            raise TraceUsageError(f"trace: cannot run {command[0]!r}: {error}") from None
        datas = reports(read_dumps(directory), args.max_traces)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    text = render(datas, args.output_format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as stream:
            stream.write(text)
    else:
        sys.stdout.flush()
        sys.stdout.write(text)
    code = completed.returncode
    if code < 0:  # killed by a signal: report it as a shell would
        code = 128 + (-code if -code in signal.valid_signals() else 0)
    if any(d.get("exceeded") for d in datas):
        return 1
    return code


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Standalone entry (the ``tffunc-lint`` CLI dispatches ``trace`` to :func:`run_trace`)."""
    try:
        return run_trace(sys.argv[1:] if argv is None else argv)
    except TraceUsageError as error:
        print(f"tffunc-lint: error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
