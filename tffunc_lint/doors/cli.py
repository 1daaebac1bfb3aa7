"""The ``tffunc-lint`` command line.

Exit codes: 0 no findings (with --verify: every claim holds), 1 findings (a claim failed),
2 usage error, bad configuration, TensorFlow missing for --verify, or internal error (a
one-line message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional, Sequence

from .. import __version__
from ..config import (ConfigError, Settings, SettingsResolver, expand_selector, load_settings,
                      split_list)
from ..docs import render_rule
from ..files import PathError, collect
from .output import FORMATS, write_findings, write_statistics, write_traced
from ..rule import all_rules, rule_by_code_or_name
from ..runner import lint_project
from ..verify import DEFAULT_TIMEOUT

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other usage error
        raise UsageError(message)


def _check_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tffunc-lint",
        description="Find tf.function pitfalls. Subcommands: `tffunc-lint rules` lists the "
                    "rules, `tffunc-lint explain CODE` prints a rule's documentation.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to lint (default: .)")
    selection = parser.add_argument_group("rule selection (codes, prefixes or rule names, "
                                          "comma-separated)")
    for flag in ("select", "ignore", "extend-select", "extend-ignore"):
        selection.add_argument(f"--{flag}", action="append", metavar="RULES")
    parser.add_argument("--exclude", action="append", metavar="GLOBS",
                        help="extra glob patterns of files or directories to skip")
    parser.add_argument("--extra-traced-decorators", action="append", metavar="NAMES",
                        help="project decorators that wrap tf.function")
    parser.add_argument("--config", metavar="PYPROJECT",
                        help="read [tool.tffunc-lint] from this file instead of searching")
    parser.add_argument("--isolated", action="store_true", help="ignore configuration files")
    parser.add_argument("--output-format", choices=FORMATS, default="text")
    parser.add_argument("--show-traced", action="store_true",
                        help="list the functions found traced, with the reason, instead of "
                             "findings")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings per rule instead of each finding")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings")
    parser.add_argument("--fix", action="store_true", help="apply the available safe fixes")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="also offer fixes that change behaviour on purpose "
                             "(print() to tf.print())")
    verify = parser.add_argument_group(
        "verification (needs TensorFlow: install tffunc-lint[verify])")
    verify.add_argument("--verify", action="store_true",
                        help="run every rule's bad/good fixtures under the installed "
                             "TensorFlow and check the documented behaviour; --select and "
                             "--ignore restrict the rules (`homework` names the training-loop "
                             "speed-up); no paths")
    verify.add_argument("--verify-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"per-rule limit (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: number of CPUs)")
    parser.add_argument("--version", action="version", version=f"tffunc-lint {__version__}")
    return parser


def _settings_for(args: argparse.Namespace) -> Callable[[str], Settings]:
    """Each file's settings: its nearest configuration (or the one named), plus the flags."""
    selections = {flag: split_list(getattr(args, flag.replace("-", "_")))
                  for flag in ("select", "ignore", "extend-select", "extend-ignore")}
    for flag, selectors in selections.items():
        for selector in selectors or ():
            expand_selector(selector, f"--{flag}")  # report the command line's own mistakes
    overrides = {flag.replace("-", "_"): value for flag, value in selections.items()}
    overrides.update(exclude=split_list(args.exclude),
                     extra_traced_decorators=split_list(args.extra_traced_decorators))
    if args.isolated:
        fixed: Optional[Settings] = Settings(root=os.getcwd())
    elif args.config:
        path = Path(args.config)
        if not path.is_file():
            raise ConfigError(f"{args.config}: no such configuration file")
        fixed = load_settings(path)
    else:
        fixed = None
    resolve = SettingsResolver(fixed, overrides).for_path
    if not args.unsafe_fixes:
        return resolve
    return lambda path: replace(resolve(path), unsafe_fixes=True)


def _write_fixed(path: str, content: bytes) -> None:
    """Replace the file atomically, keeping its permissions."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tffunc-lint-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None


def _verify_selection(args: argparse.Namespace, homework: str) -> Callable[[str], bool]:
    """Which claims --select/--ignore keep; ``homework`` is a selector of its own."""
    def expand(flag: str):
        keys = set()
        for selector in split_list(getattr(args, flag)) or ():
            if selector.strip().lower() == homework:
                keys.add(homework)
            else:
                keys |= expand_selector(selector, f"--{flag}")
        return keys

    selected = expand("select") if args.select else None
    ignored = expand("ignore") | expand("extend_ignore")
    return lambda key: (selected is None or key in selected) and key not in ignored


def run_verify(args: argparse.Namespace) -> int:
    # Imported here: plain lint runs do not pay for the worker machinery.
    from ..verify.runner import (HOMEWORK, VerifyUnavailable, available_claims, verify,
                                 write_report)

    if args.paths:
        raise UsageError("--verify runs the shipped fixtures and takes no paths")
    if args.output_format not in ("text", "json"):
        raise UsageError("--verify supports --output-format text or json")
    keep = _verify_selection(args, HOMEWORK)
    claims = [claim for claim in available_claims() if keep(claim.key)]
    if not claims:
        raise UsageError("--verify: the selection leaves no rule to verify")
    try:
        report = verify(claims, workers=max(1, min(args.jobs, 4)), timeout=args.verify_timeout)
    except VerifyUnavailable as error:
        raise UsageError(str(error)) from None
    write_report(report, args.output_format, sys.stdout)
    return EXIT_CLEAN if report.holds else EXIT_FINDINGS


def run_check(argv: Sequence[str]) -> int:
    args = _check_parser().parse_args(argv)
    if args.verify:
        return run_verify(args)
    args.paths = args.paths or ["."]
    settings_for = _settings_for(args)
    files = collect(args.paths, settings_for)
    results = lint_project(files, settings_for, fix=args.fix, workers=max(1, args.jobs))
    findings = sorted(f for result in results for f in result.findings)
    fixed = 0
    for result in results:
        if result.fix_error:
            print(f"{result.path}: {result.fix_error}", file=sys.stderr)
        if result.fixed_source is not None:
            if result.original is not None and _read(result.path) != result.original:
                print(f"{result.path}: fix skipped: the file changed while it was linted",
                      file=sys.stderr)
                continue
            _write_fixed(result.path, result.fixed_source)
            fixed += result.fixes_applied
    if args.show_traced:
        write_traced(results, sys.stdout)
        return EXIT_CLEAN
    if args.statistics:
        write_statistics(findings, sys.stdout)
    else:
        write_findings(findings, args.output_format, sys.stdout)
    if args.fix and args.output_format == "text":
        print(f"Fixed {fixed} finding(s); {len(findings)} remaining.", file=sys.stderr)
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def run_rules(argv: Sequence[str]) -> int:
    parser = _Parser(prog="tffunc-lint rules", description="List every rule.")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    rows = [{"code": r.code, "name": r.name, "summary": r.docs().summary,
             "fixable": r.fixable} for r in all_rules()]
    if args.output_format == "json":
        json.dump(rows, sys.stdout, indent=2)
        print()
    else:
        width = max(len(row["name"]) for row in rows)
        for row in rows:
            print(f"{row['code']}  {row['name']:<{width}}  {row['summary']}")
    return EXIT_CLEAN


def run_explain(argv: Sequence[str]) -> int:
    parser = _Parser(prog="tffunc-lint explain", description="Print a rule's documentation.")
    parser.add_argument("rule", metavar="CODE_OR_NAME")
    args = parser.parse_args(argv)
    rule = rule_by_code_or_name(args.rule)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule!r}; `tffunc-lint rules` lists them")
    print(render_rule(rule))
    return EXIT_CLEAN


_SUBCOMMANDS = {"rules": run_rules, "explain": run_explain}


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in _SUBCOMMANDS:
            return _SUBCOMMANDS[argv[0]](argv[1:])
        return run_check(argv)
    except UsageError as error:
        print(f"tffunc-lint: error: {error}", file=sys.stderr)
    except (ConfigError, PathError) as error:
        print(f"tffunc-lint: error: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        print("tffunc-lint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()
    except Exception as error:  # noqa: BLE001 - never show users a traceback
        print(f"tffunc-lint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
