"""The ``tffunc-lint`` command line.

Exit codes: 0 no findings (with --verify: every claim holds), 1 findings (a claim failed),
2 usage error, bad configuration, TensorFlow missing for --verify, or internal error (a
one-line message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import os
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from .. import __version__
from ..cache import DIRECTORY as CACHE_DIRECTORY, Cache
from ..config import (ConfigError, Settings, SettingsResolver, expand_selector, load_settings,
                      split_list)
from ..files import PathError, collect
from .output import (FORMATS, write_diff, write_findings, write_fixes, write_statistics,
                     write_summary, write_traced)
from .progress import show_progress
from ..rule import all_rules, rule_by_code_or_name
from ..engine import lint_source
from ..analysis import lazy_libcst
from ..finding import FileResult
from .. import requirements
from ..runner import lint_project
from ..verify import DEFAULT_TIMEOUT

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other usage error
        raise UsageError(message)


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {value!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {jobs}")
    return jobs


def _check_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tffunc-lint",
        description="Find tf.function pitfalls. Subcommands: `tffunc-lint rules` lists the "
                    "rules, `tffunc-lint explain CODE` prints a rule's documentation.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to lint (default: .); - reads standard "
                             "input")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the name of the file read from standard input: for messages, "
                             "its configuration, per-file-ignores and (with --force-exclude) "
                             "exclude")
    selection = parser.add_argument_group("rule selection (codes, prefixes or rule names, "
                                          "comma-separated)")
    for flag in ("select", "ignore", "extend-select", "extend-ignore"):
        selection.add_argument(f"--{flag}", action="append", metavar="RULES")
    parser.add_argument("--exclude", action="append", metavar="GLOBS",
                        help="glob patterns of files or directories to skip; replaces the "
                             "configured `exclude` (and its defaults: build, dist, .venv, ...)")
    parser.add_argument("--extend-exclude", action="append", metavar="GLOBS",
                        help="glob patterns to skip in addition to `exclude`")
    parser.add_argument("--force-exclude", action="store_const", const=True,
                        dest="force_exclude",
                        help="apply exclude to files and directories named on the command "
                             "line (and to --stdin-filename) too")
    parser.add_argument("--no-force-exclude", action="store_const", const=False,
                        dest="force_exclude", help=argparse.SUPPRESS)
    parser.add_argument("--respect-gitignore", action="store_const", const=True,
                        dest="respect_gitignore", help=argparse.SUPPRESS)
    parser.add_argument("--no-respect-gitignore", action="store_const", const=False,
                        dest="respect_gitignore",
                        help="also lint files that .gitignore files ignore when walking "
                             "directories")
    parser.add_argument("--extra-traced-decorators", action="append", metavar="NAMES",
                        help="project decorators that wrap tf.function")
    parser.add_argument("--config", metavar="PYPROJECT",
                        help="read [tool.tffunc-lint] from this file instead of searching")
    parser.add_argument("--isolated", action="store_true", help="ignore configuration files")
    parser.add_argument("--no-cache", action="store_true",
                        help="lint every file afresh; do not read or write the cache "
                             "(.tffunc_lint_cache in the project root, or cache-dir)")
    parser.add_argument("--output-format", choices=FORMATS, default="text")
    parser.add_argument("--show-traced", action="store_true",
                        help="list the functions found traced, with the reason, instead of "
                             "findings")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings per rule instead of each finding")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings only: no summary line, no progress")
    parser.add_argument("--fix", action="store_true", help="apply the available safe fixes")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff instead of applying them; exit "
                             "1 if any fix would apply, 0 otherwise")
    parser.add_argument("--show-fixes", action="store_true",
                        help="after the findings, list the fixes applied (without --fix: what "
                             "--fix would fix), per file and rule")
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
    parser.add_argument("-j", "--jobs", type=_jobs, default=os.cpu_count() or 1,
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
                     extend_exclude=split_list(args.extend_exclude),
                     force_exclude=args.force_exclude, respect_gitignore=args.respect_gitignore,
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


NOT_WRITABLE = "not writable, fix not applied"
CHANGED = "fix skipped: the file changed while it was linted"


def _cache(args: argparse.Namespace, settings_for: Callable[[str], Settings]) -> Cache:
    """The cache of the project the first path is in (its configuration's directory)."""
    if args.no_cache:
        return Cache(None)
    settings = settings_for(args.paths[0])
    return Cache(settings.cache_dir or os.path.join(settings.root, CACHE_DIRECTORY))


def _write_fixed(path: str, content: bytes, original: Optional[bytes]) -> Optional[str]:
    """Write a fix into the file; None, or why it was not written.

    The file is rewritten in place, as ruff and black do, not replaced by a renamed
    temporary file: ``open`` follows a symbolic link to its target, and the inode stays the
    same, so hard links, owner, group, permissions and extended attributes all survive (a
    rename would turn a symlink into a regular file, split a hard link, and give the file
    our owner). A read-only file (no write bit, even for root) is left alone. Through the
    same handle, the bytes are compared first with those the fix was computed from, so an
    edit made while the run went on is never overwritten.
    """
    try:
        if not os.stat(path).st_mode & 0o222:
            return NOT_WRITABLE
        with open(path, "r+b") as stream:
            if original is not None and stream.read() != original:
                return CHANGED
            stream.seek(0)
            stream.write(content)
            stream.truncate()
            stream.flush()
            os.fsync(stream.fileno())
    except PermissionError:
        return NOT_WRITABLE
    except OSError as error:
        return f"fix not applied: {error.strerror or error}"
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
    from ..verify.runner import (HOMEWORK, StreamingTable, VerifyUnavailable,
                                 available_claims, tensorflow_available, verify, write_report)

    if args.paths:
        raise UsageError("--verify runs the shipped fixtures and takes no paths")
    if args.output_format not in ("text", "json"):
        raise UsageError("--verify supports --output-format text or json")
    keep = _verify_selection(args, HOMEWORK)
    claims = [claim for claim in available_claims() if keep(claim.key)]
    if not claims:
        raise UsageError("--verify: the selection leaves no rule to verify")
    # In text, each rule's line is printed as soon as its claim is complete.
    table = (StreamingTable(claims, sys.stdout)
             if args.output_format == "text" and tensorflow_available() else None)
    try:
        report = verify(claims, workers=max(1, min(args.jobs, 4)), timeout=args.verify_timeout,
                        on_done=table)
    except VerifyUnavailable as error:
        raise UsageError(str(error)) from None
    if table is not None:
        table.finish(report)
    else:
        write_report(report, args.output_format, sys.stdout)
    return EXIT_CLEAN if report.holds else EXIT_FINDINGS


def run_check(argv: Sequence[str]) -> int:
    args = _check_parser().parse_args(argv)
    if args.verify:
        return run_verify(args)
    lazy_libcst.freeze_on_import = True  # this process and its workers: see lazy_libcst
    args.paths = args.paths or ["."]
    for flag in ("statistics", "show_traced"):
        if getattr(args, flag) and args.output_format not in ("text", "json"):
            raise UsageError(f"--{flag.replace('_', '-')} supports --output-format text or "
                             "json")
    settings_for = _settings_for(args)
    if "-" in args.paths:
        return _run_stdin(args, settings_for)
    errors: List[str] = []  # paths that do not exist or cannot be listed: reported, not fatal
    files = collect(args.paths, settings_for, errors)
    for error in errors:
        print(f"tffunc-lint: error: {error}", file=sys.stderr)
    progress = show_progress(sys.stderr, args.quiet)
    # Linting a project's root folder sees every module that may import another (not so a
    # list of files, as pre-commit passes, or a folder inside a project).
    whole = bool(files) and all(os.path.isdir(path) and requirements.whole_project(path)
                                for path in args.paths)
    results = lint_project(files, settings_for, fix=args.fix or args.diff, workers=args.jobs,
                           cache=_cache(args, settings_for),
                           findings_only=not args.show_traced, whole_project=whole)
    progress.close()
    if args.diff:
        changes = write_diff(results, sys.stdout)
        if not args.quiet:
            print(f"Would fix {changes} finding{'' if changes == 1 else 's'}.", file=sys.stderr)
        return EXIT_ERROR if errors else EXIT_FINDINGS if changes else EXIT_CLEAN
    fixed = 0
    applied = []  # the findings whose fixes were written
    warnings: List[str] = []  # fixes not applied: also in SARIF's notifications
    for result in results:
        if result.fix_error:
            warnings.append(f"{result.path}: {result.fix_error}")
            print(warnings[-1], file=sys.stderr)
        if result.fixed_source is not None:
            problem = _write_fixed(result.path, result.fixed_source, result.original)
            if problem is not None:
                warnings.append(f"{result.path}: {problem}")
                print(warnings[-1], file=sys.stderr)
                result.findings = sorted(result.findings + result.fixed_findings)
                continue
            fixed += result.fixes_applied
            applied += result.fixed_findings
    findings = sorted(f for result in results for f in result.findings)
    if args.show_traced:
        write_traced(results, sys.stdout, args.output_format)
        return EXIT_CLEAN
    if args.statistics:
        write_statistics(findings, sys.stdout, args.output_format)
    elif args.output_format == "sarif":
        from .sarif import write_sarif  # here: other formats do not load it

        write_sarif(findings, sys.stdout, errors=errors, warnings=warnings)
    else:
        write_findings(findings, args.output_format, sys.stdout)
        if args.show_fixes and args.output_format == "text":
            write_fixes(applied if args.fix else [f for f in findings if f.fixable],
                        sys.stdout, applied=args.fix)
        if args.output_format == "text" and not args.quiet:
            write_summary(findings, sys.stdout, fixed=fixed if args.fix else None)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _run_stdin(args: argparse.Namespace, settings_for: Callable[[str], Settings]) -> int:
    """``tffunc-lint -``: lint standard input as the file ``--stdin-filename`` names (its
    configuration, per-file-ignores and, with --force-exclude, exclude). With --fix, the
    fixed source goes to standard output and the findings left to standard error, as in
    ruff."""
    if len(args.paths) > 1:
        raise UsageError("- (standard input) cannot be combined with other paths")
    name = args.stdin_filename or "-"
    source = sys.stdin.buffer.read()
    settings = settings_for(name)
    if args.stdin_filename and settings.force_exclude and settings.is_excluded(name):
        result = FileResult(name, [])
    else:
        result = lint_source(name, source, settings, fix=args.fix)
    if result.fix_error:
        print(f"{name}: {result.fix_error}", file=sys.stderr)
    findings = sorted(result.findings)
    if args.fix:
        sys.stdout.buffer.write(result.fixed_source if result.fixed_source is not None
                                else source)
        sys.stdout.flush()
        write_findings(findings, args.output_format, sys.stderr)
    elif args.statistics:
        write_statistics(findings, sys.stdout, args.output_format)
    else:
        write_findings(findings, args.output_format, sys.stdout)
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def run_rules(argv: Sequence[str]) -> int:
    parser = _Parser(prog="tffunc-lint rules", description="List every rule.")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    rows = [{"code": r.code, "name": r.name, "summary": r.docs().summary,
             "fixable": r.fixable} for r in all_rules()]
    if args.output_format == "json":
        import json

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
    from ..docs import render_rule

    print(render_rule(rule))
    return EXIT_CLEAN


def run_trace(argv: Sequence[str]) -> int:
    # Imported here: the trace door loads only for `tffunc-lint trace` (and TensorFlow only
    # in the traced program).
    from ..trace.cli import TraceUsageError, run_trace as trace_program

    try:
        return trace_program(argv)
    except TraceUsageError as error:
        raise UsageError(str(error)) from None


#: ``rule`` is ruff's spelling of ``explain``. A first argument that names a subcommand is
#: always the subcommand, whatever the working directory holds, so a command means the same
#: everywhere; lint a directory called ``rules`` with ``tffunc-lint check rules`` (``check``
#: is the default command, spelled out) or ``tffunc-lint ./rules``.
_SUBCOMMANDS = {"check": run_check, "rules": run_rules, "explain": run_explain,
                "rule": run_explain, "trace": run_trace}


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in _SUBCOMMANDS:
            if argv[0] != "check" and os.path.exists(argv[0]):
                print(f"tffunc-lint: note: `{argv[0]}` is a subcommand; to lint the path "
                      f"{argv[0]}, run `tffunc-lint check {argv[0]}`", file=sys.stderr)
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


def run() -> None:
    """The console script (``tffunc-lint``, ``python -m tffunc_lint``): ``main``, then an exit
    that skips the interpreter's teardown. Freeing every module, rule and tree one by one
    took a tenth of the time of linting one file. Nothing is left to do at exit: output is
    flushed here, cache entries are closed when written, worker pools are shut down. A
    process that has loaded TensorFlow (``--verify``, ``trace``) exits the usual way, which
    runs TensorFlow's exit handlers; so does one run under a tracer or profiler (coverage,
    cProfile), which writes its data at exit."""
    code = main()
    if "tensorflow" in sys.modules or sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed stream or a reader gone: nothing to show
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
