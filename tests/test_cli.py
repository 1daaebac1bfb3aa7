"""The ``tffunc-lint`` command line, run in-process through ``tffunc_lint.doors.cli.main``.

Every test runs in its own empty working directory (``tmp_path``), so the paths printed are
the relative ones the test passed. Expected output is spelled out line by line; rule messages
come from the rule classes so that rewording a message does not break these tests.
Configuration files are covered in ``test_config.py``, which reuses the helpers below.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple, Union

import pytest

from tffunc_lint import __version__
from tffunc_lint.doors.cli import main
from tffunc_lint.docs import render_rule
from tffunc_lint.rule import all_rules, rule_by_code_or_name

# -- sources ------------------------------------------------------------------------------

#: One TFF101 at 5:5 and one TFF301 at 6:9, traced by the decorator on line 3.
PRINT_AND_VARIABLE = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function\n"
    "def f(x):\n"
    "    print(x)\n"
    "    v = tf.Variable(1.0)\n"
    "    return x\n"
)
#: One TFF101 at 5:5.
PRINT_ONLY = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function\n"
    "def f(x):\n"
    "    print(x)\n"
    "    return x\n"
)
#: TFF405 at 3:14 (fixable), TFF101 at 5:5, TFF301 at 6:9.
ALL_RULES = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def f(x):\n"
    "    print(x)\n"
    "    v = tf.Variable(1.0)\n"
    "    return x\n"
)
CLEAN = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function(reduce_retracing=True)\n"
    "def f(x):\n"
    "    tf.print(x)\n"
    "    return x\n"
)

AT_LINE_3 = "@tf.function at line 3"
RELAX_MESSAGE = "`experimental_relax_shapes=` is deprecated; use `reduce_retracing=`"
EAGERLY_MESSAGE = ("`tf.config.experimental_run_functions_eagerly` is deprecated; "
                   "use `tf.config.run_functions_eagerly`")

# -- helpers ------------------------------------------------------------------------------


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> List[str]:
        return self.out.splitlines()


def run(capsys, *args: Union[str, Path]) -> Result:
    """``tffunc-lint ARGS`` in this process: exit code, stdout, stderr."""
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def write(path: Union[str, Path], content: Union[str, bytes]) -> Path:
    """Write ``content`` byte for byte (``str`` as UTF-8), creating parent directories."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def finding(path: str, line: int, column: int, code: str, *, traced: Optional[str] = None,
            message: Optional[str] = None) -> str:
    """One line of text output; the message defaults to the rule's own."""
    text = rule_by_code_or_name(code).message if message is None else message
    if traced is not None:
        text += f" [traced: {traced}]"
    return f"{path}:{line}:{column}: {code} {text}"


_TEXT_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):\d+: (?P<code>TFF\d{3}) ")


def summary(count: int, fixable: int = 0) -> str:
    """The closing line of text output (ruff's wording)."""
    if not count:
        return "All checks passed!"
    detail = f" ({fixable} fixable with --fix)" if fixable else ""
    return f"Found {count} finding{'' if count == 1 else 's'}{detail}."


def reported(result: Result) -> List[Tuple[str, int, str]]:
    """(path, line, code) of every finding line, in output order; the last line must be the
    summary, counting them."""
    rows = []
    *lines, closing = result.lines or [""]
    for text in lines:
        match = _TEXT_LINE.match(text)
        assert match, f"not a finding line: {text!r}"
        rows.append((match["path"], int(match["line"]), match["code"]))
    fixable = r"( \(\d+ fixable with --fix\))?\."
    assert re.fullmatch(re.escape(summary(len(rows))).replace(r"\.", fixable), closing), closing
    return rows


def assert_usage_error(result: Result, message: str) -> None:
    """Exit 2, nothing on stdout, exactly one ``tffunc-lint: error:`` line on stderr."""
    assert (result.code, result.out, result.err) == (2, "", f"tffunc-lint: error: {message}\n")


def argv_id(value) -> Optional[str]:
    """Test ids from argument lists."""
    return (" ".join(value) or "(none)") if isinstance(value, list) else None


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- exit codes and usage errors ----------------------------------------------------------


def test_clean_file_exits_0_saying_so(capsys):
    write("clean.py", CLEAN)
    assert run(capsys, "clean.py") == Result(0, "All checks passed!\n", "")
    assert run(capsys, "--quiet", "clean.py") == Result(0, "", "")


def test_findings_exit_1_one_line_each(capsys):
    write("a.py", PRINT_AND_VARIABLE)
    assert run(capsys, "a.py") == Result(1, "\n".join([
        finding("a.py", 5, 5, "TFF101", traced=AT_LINE_3),
        finding("a.py", 6, 9, "TFF301", traced=AT_LINE_3),
        "Found 2 findings.",
    ]) + "\n", "")


def test_summary_counts_the_fixable_findings_and_quiet_drops_it(capsys):
    write("a.py", ALL_RULES)
    assert run(capsys, "a.py").lines[-1] == "Found 3 findings (1 fixable with --fix)."
    write("b.py", PRINT_ONLY)
    loud, quiet = run(capsys, "b.py"), run(capsys, "-q", "b.py")
    assert loud.lines[-1] == "Found 1 finding."
    assert (quiet.code, quiet.lines, quiet.err) == (1, loud.lines[:-1], "")
    assert reported(loud) == [("b.py", 5, "TFF101")]
    for machine in ("json", "github"):
        assert "Found" not in run(capsys, "--output-format", machine, "a.py").out


def test_output_is_sorted_by_path_line_and_column(capsys):
    write("b.py", PRINT_AND_VARIABLE)
    write("pkg/a.py", PRINT_ONLY)
    write("a.py", ("import tensorflow as tf\n"
                   "\n"
                   "@tf.function\n"
                   "def f(x):\n"
                   "    v = tf.Variable(1.0); print(x)\n"
                   "    print(x)\n"
                   "    return x\n"))
    result = run(capsys, "pkg", "b.py", "a.py")
    assert result.code == 1
    assert result.lines == [
        finding("a.py", 5, 9, "TFF301", traced=AT_LINE_3),
        finding("a.py", 5, 27, "TFF101", traced=AT_LINE_3),
        finding("a.py", 6, 5, "TFF101", traced=AT_LINE_3),
        finding("b.py", 5, 5, "TFF101", traced=AT_LINE_3),
        finding("b.py", 6, 9, "TFF301", traced=AT_LINE_3),
        finding("pkg/a.py", 5, 5, "TFF101", traced=AT_LINE_3),
        summary(6),
    ]


def test_default_path_is_the_working_directory(capsys):
    write("sub/a.py", PRINT_ONLY)
    result = run(capsys)
    assert (result.code, result.lines) == (1, [finding("sub/a.py", 5, 5, "TFF101",
                                                       traced=AT_LINE_3), summary(1)])


@pytest.mark.parametrize("args, message", [
    (["--bogus", "a.py"], "unrecognized arguments: --bogus"),
    (["--select", "TFF999", "a.py"], "--select: unknown rule code or name 'TFF999'"),
    (["--select", "TFF101,TFF9", "a.py"], "--select: unknown rule code or name 'TFF9'"),
    (["--ignore", "nope", "a.py"], "--ignore: unknown rule code or name 'nope'"),
    (["--extend-select", "print", "a.py"], "--extend-select: unknown rule code or name 'print'"),
    (["--extend-ignore", "X1", "a.py"], "--extend-ignore: unknown rule code or name 'X1'"),
    (["-j", "many", "a.py"], "argument -j/--jobs: invalid int value: 'many'"),
    (["-j", "0", "a.py"], "argument -j/--jobs: must be at least 1, not 0"),
    (["-j", "-3", "a.py"], "argument -j/--jobs: must be at least 1, not -3"),
    (["rule"], "the following arguments are required: CODE_OR_NAME"),
    (["-", "a.py"], "- (standard input) cannot be combined with other paths"),
    (["explain", "TFF999"], "unknown rule 'TFF999'; `tffunc-lint rules` lists them"),
    (["explain"], "the following arguments are required: CODE_OR_NAME"),
    (["rules", "--bogus"], "unrecognized arguments: --bogus"),
], ids=argv_id)
def test_usage_error_exits_2_with_one_line(capsys, args, message):
    write("a.py", PRINT_AND_VARIABLE)
    assert_usage_error(run(capsys, *args), message)


def test_invalid_output_format_is_a_usage_error(capsys):
    write("a.py", PRINT_AND_VARIABLE)
    result = run(capsys, "--output-format", "xml", "a.py")
    # The rest of argparse's message ("choose from ...") is worded differently across Pythons.
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(
        "tffunc-lint: error: argument --output-format: invalid choice: 'xml'")
    assert result.err.count("\n") == 1 and result.err.endswith("\n")


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"tffunc-lint {__version__}\n"


def test_exit_zero_keeps_the_output(capsys):
    write("a.py", PRINT_AND_VARIABLE)
    with_findings = run(capsys, "a.py")
    assert with_findings.code == 1
    assert run(capsys, "--exit-zero", "a.py") == Result(0, with_findings.out, "")


# -- output formats -----------------------------------------------------------------------


JSON_KEYS = ("path", "line", "column", "end_line", "end_column", "code", "name", "message",
             "reason", "fixable")


def test_json_output(capsys):
    write("a.py", ALL_RULES)
    result = run(capsys, "--output-format", "json", "a.py")
    traced = f" [traced: {AT_LINE_3}]"
    assert (result.code, result.err) == (1, "")
    items = json.loads(result.out)
    assert all(set(JSON_KEYS) <= set(item) for item in items)  # more keys may come
    assert [{key: item[key] for key in JSON_KEYS} for item in items] == [
        {"path": "a.py", "line": 3, "column": 14, "end_line": 3, "end_column": 44,
         "code": "TFF405", "name": "deprecated-tf-function-api", "message": RELAX_MESSAGE,
         "reason": None, "fixable": True},
        {"path": "a.py", "line": 5, "column": 5, "end_line": 5, "end_column": 13,
         "code": "TFF101", "name": "print-in-tf-function",
         "message": rule_by_code_or_name("TFF101").message + traced,
         "reason": AT_LINE_3, "fixable": False},
        {"path": "a.py", "line": 6, "column": 9, "end_line": 6, "end_column": 25,
         "code": "TFF301", "name": "variable-created-in-tf-function",
         "message": rule_by_code_or_name("TFF301").message + traced,
         "reason": AT_LINE_3, "fixable": False},
    ]


def test_json_output_without_findings_is_an_empty_list(capsys):
    write("clean.py", CLEAN)
    assert run(capsys, "--output-format", "json", "clean.py") == Result(0, "[]\n", "")


def test_github_output(capsys):
    write("a.py", ALL_RULES)
    result = run(capsys, "--output-format", "github", "a.py")
    message = rule_by_code_or_name("TFF101").message
    assert (result.code, result.err) == (1, "")
    assert result.lines[:2] == [
        "::error title=tffunc-lint (TFF405),file=a.py,line=3,col=14,endLine=3,endColumn=44::"
        f"TFF405 {RELAX_MESSAGE}",
        "::error title=tffunc-lint (TFF101),file=a.py,line=5,col=5,endLine=5,endColumn=13::"
        f"TFF101 {message} [traced: {AT_LINE_3}]",
    ]
    assert len(result.lines) == 3 and result.lines[2].startswith(
        "::error title=tffunc-lint (TFF301),file=a.py,line=6,col=9,endLine=6,endColumn=25::")


def test_github_output_escapes_property_values(capsys):
    write("odd,name:1.py", PRINT_ONLY)
    result = run(capsys, "--output-format", "github", "odd,name:1.py")
    assert result.lines == [
        "::error title=tffunc-lint (TFF101),file=odd%2Cname%3A1.py,line=5,col=5,endLine=5,"
        f"endColumn=13::TFF101 {rule_by_code_or_name('TFF101').message} [traced: {AT_LINE_3}]"]


def test_statistics_counts_per_rule_most_frequent_first_then_by_code(capsys):
    write("a.py", ALL_RULES)
    write("b.py", PRINT_AND_VARIABLE)
    write("c.py", ALL_RULES.replace("print(x)", "tf.print(x)"))
    assert run(capsys, "--statistics", "a.py", "b.py", "c.py") == Result(1, (
        "    3  TFF301  variable-created-in-tf-function\n"
        "    2  TFF101  print-in-tf-function\n"
        "    2  TFF405  deprecated-tf-function-api\n"), "")


def test_statistics_as_json(capsys):
    write("a.py", ALL_RULES)
    write("b.py", PRINT_AND_VARIABLE)
    result = run(capsys, "--statistics", "--output-format", "json", "a.py", "b.py")
    assert (result.code, result.err) == (1, "")
    assert json.loads(result.out) == [
        {"code": "TFF101", "name": "print-in-tf-function", "count": 2, "fixable": False},
        {"code": "TFF301", "name": "variable-created-in-tf-function", "count": 2,
         "fixable": False},
        {"code": "TFF405", "name": "deprecated-tf-function-api", "count": 1, "fixable": True}]
    write("clean.py", CLEAN)
    assert run(capsys, "--statistics", "--output-format", "json", "clean.py") == Result(
        0, "[]\n", "")


@pytest.mark.parametrize("flag", ["--statistics", "--show-traced"])
def test_statistics_and_show_traced_take_text_or_json(capsys, flag):
    write("a.py", ALL_RULES)
    assert_usage_error(run(capsys, flag, "--output-format", "github", "a.py"),
                       f"{flag} supports --output-format text or json")


# -- rule selection on the command line -----------------------------------------------------


@pytest.mark.parametrize("args, codes", [
    ([], ["TFF405", "TFF101", "TFF301"]),
    (["--select", "TFF101"], ["TFF101"]),
    (["--select", "tff101"], ["TFF101"]),
    (["--select", "TFF1"], ["TFF101"]),
    (["--select", "TFF"], ["TFF405", "TFF101", "TFF301"]),
    (["--select", "print-in-tf-function"], ["TFF101"]),
    (["--select", "TFF101,deprecated-tf-function-api"], ["TFF405", "TFF101"]),
    (["--select", "TFF101", "--select", "TFF301"], ["TFF101", "TFF301"]),
    (["--select", "TFF101, TFF301"], ["TFF101", "TFF301"]),
    (["--ignore", "TFF101"], ["TFF405", "TFF301"]),
    (["--ignore", "TFF1,variable-created-in-tf-function"], ["TFF405"]),
    (["--ignore", "TFF4", "--ignore", "TFF3"], ["TFF101"]),
    (["--select", "TFF1", "--extend-select", "TFF405"], ["TFF405", "TFF101"]),
    (["--select", "TFF3", "--extend-select", "TFF1", "--extend-select", "TFF4"],
     ["TFF405", "TFF101", "TFF301"]),
    (["--extend-ignore", "TFF3,TFF4"], ["TFF101"]),
    (["--select", "TFF", "--ignore", "TFF101", "--extend-ignore", "TFF405"], ["TFF301"]),
], ids=argv_id)
def test_rule_selection(capsys, args, codes):
    write("a.py", ALL_RULES)
    result = run(capsys, *args, "a.py")
    assert result.code == 1
    line_of = {"TFF405": 3, "TFF101": 5, "TFF301": 6}
    assert reported(result) == [("a.py", line_of[code], code) for code in codes]


def test_ignoring_every_rule_exits_0(capsys):
    write("a.py", ALL_RULES)
    assert run(capsys, "--ignore", "TFF", "a.py") == Result(0, summary(0) + "\n", "")


# -- rules and explain --------------------------------------------------------------------

KNOWN_RULES = [("TFF000", "file-not-analysed", False), ("TFF101", "print-in-tf-function", False),
               ("TFF301", "variable-created-in-tf-function", False),
               ("TFF405", "deprecated-tf-function-api", True)]


def test_rules_lists_every_rule(capsys):
    rules = all_rules()
    assert [(r.code, r.name, r.fixable) for r in rules
            if r.code in {k[0] for k in KNOWN_RULES}] == KNOWN_RULES
    width = max(len(r.name) for r in rules)
    result = run(capsys, "rules")
    assert (result.code, result.err) == (0, "")
    assert result.lines == [f"{r.code}  {r.name:<{width}}  {r.docs().summary}" for r in rules]


def test_rules_as_json(capsys):
    result = run(capsys, "rules", "--output-format", "json")
    assert (result.code, result.err) == (0, "")
    rows = json.loads(result.out)
    assert [(row["code"], row["name"], row["fixable"]) for row in rows
            if row["code"] in {k[0] for k in KNOWN_RULES}] == KNOWN_RULES
    assert rows == [{"code": r.code, "name": r.name, "summary": r.docs().summary,
                     "fixable": r.fixable} for r in all_rules()]


@pytest.mark.parametrize("key", ["TFF101", "tff101", "print-in-tf-function"])
def test_explain_by_code_or_name(capsys, key):
    rule = rule_by_code_or_name("TFF101")
    result = run(capsys, "explain", key)
    assert result == Result(0, render_rule(rule) + "\n", "")
    assert result.out.startswith("# TFF101 `print-in-tf-function`\n\n")
    assert f"TFF101 {rule.message}" in result.out
    assert "## Why is this bad?" in result.lines


# -- finding the files --------------------------------------------------------------------

SKIPPED = [".git/hook.py", ".venv/lib.py", "env/lib.py", "build/gen.py", "dist/gen.py",
           "lib/site-packages/dep.py", "__pycache__/cached.py", "pkg/__pycache__/mod.py",
           "demo.egg-info/x.py", ".tox/x.py", "node_modules/x.py"]


def test_directories_are_walked_recursively_skipping_tool_directories(capsys):
    linted = ["pkg/buildings/mod.py", "pkg/mod.py", "pkg/stub.pyi", "pkg/sub/deep/mod.py",
              "top.py"]
    for path in linted + SKIPPED + ["pkg/notes.txt", "pkg/script"]:
        write(path, PRINT_ONLY)
    write("env/pyvenv.cfg", "home = /usr/bin\n")  # a virtualenv, whatever its name
    result = run(capsys, ".")
    assert (result.code, result.err) == (1, "")
    assert result.lines == [finding(path, 5, 5, "TFF101", traced=AT_LINE_3)
                            for path in linted] + [summary(len(linted))]


def test_files_named_explicitly_are_always_linted(capsys):
    for path in SKIPPED + ["pkg/script"]:
        write(path, PRINT_ONLY)
    write("env/pyvenv.cfg", "home = /usr/bin\n")
    named = sorted(SKIPPED + ["pkg/script"])
    result = run(capsys, *named)
    assert result.lines == [finding(path, 5, 5, "TFF101", traced=AT_LINE_3)
                            for path in named] + [summary(len(named))]


def test_exclude_globs_skip_walked_files_but_not_named_ones(capsys):
    for path in ["generated/a.py", "pkg/generated/b.py", "pkg/skip_me.py", "pkg/keep.py"]:
        write(path, PRINT_ONLY)
    walked = run(capsys, "--exclude", "generated", "--exclude", "pkg/skip_*.py", ".")
    assert walked.lines == [finding("pkg/keep.py", 5, 5, "TFF101", traced=AT_LINE_3),
                            summary(1)]
    named = run(capsys, "--exclude", "generated,pkg/skip_*.py", "pkg/skip_me.py",
                "generated/a.py")
    assert reported(named) == [("generated/a.py", 5, "TFF101"), ("pkg/skip_me.py", 5, "TFF101")]


def test_each_file_is_linted_once_under_its_normalised_path(capsys):
    write("top.py", PRINT_ONLY)
    write("pkg/mod.py", PRINT_ONLY)
    result = run(capsys, "./top.py", "top.py", "pkg/../top.py", ".", "pkg/", "./pkg/mod.py")
    assert result.lines == [finding("pkg/mod.py", 5, 5, "TFF101", traced=AT_LINE_3),
                            finding("top.py", 5, 5, "TFF101", traced=AT_LINE_3), summary(2)]


# -- bad input never stops the run --------------------------------------------------------


def test_files_that_cannot_be_analysed_are_reported_and_the_run_goes_on(capsys):
    write("a_syntax.py", "x = 1\ndef broken(:\n    pass\n")
    write("b_binary.py", b"\xff\xfe\x00 bad\n")
    write("c_cookie.py", b"# -*- coding: bogus -*-\nx = 1\n")
    write("d_invalid_utf8.py", b"x = 1\n# \xff\n")
    write("e_empty.py", b"")
    write("f_null_byte.py", b"x = 1\x00\n")
    write("g_bom.py", b"\xef\xbb\xbf" + PRINT_ONLY.encode())
    write("h_good.py", PRINT_ONLY)
    # Python 2 source (a print statement; tabs after spaces beside xrange) is not this
    # linter's code: not reported (mlcommons' retired benchmarks)
    write("i_python2.py", 'print "hello"\n')
    write("j_python2_tabs.py", "def f():\n    for i in xrange(3):\n\tpass\n")
    # a merge conflict left in the file: said so, wherever the parser stops
    write("k_conflict.py", "import os\n<<<<<<< HEAD:train.py\nimport tensorflow as tf\n"
                           "=======\nimport keras\n>>>>>>> 05ffbcf70663:train.py\n")
    result = run(capsys, "--output-format", "json", ".")
    assert (result.code, result.err) == (1, "")
    rows = [(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(result.out)]
    print_message = f"{rule_by_code_or_name('TFF101').message} [traced: {AT_LINE_3}]"
    assert [row[:3] for row in rows] == [
        ("a_syntax.py", 2, "TFF000"), ("b_binary.py", 1, "TFF000"), ("c_cookie.py", 1, "TFF000"),
        ("d_invalid_utf8.py", 1, "TFF000"), ("f_null_byte.py", 1, "TFF000"),
        ("g_bom.py", 5, "TFF101"), ("h_good.py", 5, "TFF101"), ("k_conflict.py", 6, "TFF000")]
    messages = [row[3] for row in rows]
    conflict = ("syntax error: the file holds an unresolved merge conflict (its `<<<<<<<` "
                "marker at line 2); resolve it (")
    assert messages.pop().startswith(conflict)
    assert messages[0].startswith("syntax error: ")
    assert "merge conflict" not in messages[0]
    assert messages[1:4] == [
        "cannot decode file: invalid or missing encoding declaration",
        "cannot decode file: unknown encoding: bogus",
        "cannot decode file: 'utf-8' codec can't decode byte 0xff in position 8: "
        "invalid start byte"]
    # A SyntaxError or a ValueError depending on the Python version; the text is the same.
    assert messages[4].endswith("source code string cannot contain null bytes")
    assert messages[5:] == [print_message, print_message]


def test_huge_file(capsys):
    body = "".join(f"x{i} = {i}\n" for i in range(20_000))
    write("huge.py", PRINT_ONLY + body + "@tf.function\ndef g(x):\n    print(x)\n")
    result = run(capsys, "huge.py")
    assert result.lines == [finding("huge.py", 5, 5, "TFF101", traced=AT_LINE_3),
                            finding("huge.py", 20_009, 5, "TFF101",
                                    traced="@tf.function at line 20007"), summary(2)]


def test_deeply_nested_parentheses(capsys):
    nested = "(" * 200 + "1" + ")" * 200
    write("deep.py", ("import tensorflow as tf\n"
                      f"x = {nested}\n"
                      "@tf.function(experimental_relax_shapes=True)\n"
                      "def f(x):\n"
                      f"    y = {nested}\n"
                      "    print(x)\n"))
    result = run(capsys, "deep.py")
    assert result == Result(1, "\n".join([
        finding("deep.py", 3, 14, "TFF405", message=RELAX_MESSAGE),
        finding("deep.py", 6, 5, "TFF101", traced=AT_LINE_3),
        summary(2, fixable=1)]) + "\n", "")


def test_long_operator_chain_in_traced_code_does_not_stop_the_run(capsys):
    write("a_chain.py", ("import tensorflow as tf\n"
                         "@tf.function\n"
                         "def f(x):\n"
                         "    y = " + "1 + " * 1000 + "1\n"
                         "    print(x)\n"))
    write("b_good.py", PRINT_ONLY)
    result = run(capsys, ".")
    assert (result.code, result.err) == (1, "")
    # Analysed, or reported as too deeply nested to analyse; either way the run goes on.
    assert reported(result) in ([("a_chain.py", 5, "TFF101"), ("b_good.py", 5, "TFF101")],
                                [("a_chain.py", 1, "TFF000"), ("b_good.py", 5, "TFF101")])


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="needs POSIX permissions and a user that root's rights don't cover")
def test_unreadable_file(capsys):
    secret = write("a_secret.py", PRINT_ONLY)
    write("b_good.py", PRINT_ONLY)
    secret.chmod(0)
    try:
        result = run(capsys, ".")
    finally:
        secret.chmod(0o644)
    assert result.lines == [
        finding("a_secret.py", 1, 1, "TFF000", message="cannot read file: Permission denied"),
        finding("b_good.py", 5, 5, "TFF101", traced=AT_LINE_3), summary(2)]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_dangling_symlink_is_reported_as_unreadable(capsys):
    os.symlink("missing-target.py", "a_dangling.py")
    write("b_good.py", PRINT_ONLY)
    result = run(capsys, ".")
    assert result.lines == [
        finding("a_dangling.py", 1, 1, "TFF000",
                message="cannot read file: No such file or directory"),
        finding("b_good.py", 5, 5, "TFF101", traced=AT_LINE_3), summary(2)]


# -- noqa -----------------------------------------------------------------------------------


@pytest.mark.parametrize("statement, expected", [
    ("print(x)  # noqa", []),
    ("print(x)  # noqa: TFF101", []),
    ("print(x)  # NOQA:TFF101", []),
    ("print(x)  # noqa: TFF1", []),
    ("print(x)  # noqa: TFF301,TFF101", []),
    ("print(x)  # noqa: TFF301, TFF101", []),
    ("print(x)  # noqa: TFF301", [(5, "TFF101")]),
    ("print(x)  # noqa: TFF3", [(5, "TFF101")]),
    # flake8's regex: with a space before the colon the comment is a blanket noqa.
    ("print(x)  # noqa : TFF301", []),
    ("print(x); v = tf.Variable(1.0)  # noqa: TFF101", [(5, "TFF301")]),
    ("print(x); v = tf.Variable(1.0)  # noqa:TFF101,TFF301", []),
    ("print(x)\n    y = 1  # noqa", [(5, "TFF101")]),
    # A noqa covers every physical line of one token: a backslash continuation or a
    # multi-line string, so a comment on its last line suppresses a finding on its first.
    ("print(x, \\\n          x)  # noqa: TFF101", []),
    ('print("""\n""", x)  # noqa: TFF101', []),
    # Not a bracketed statement: in flake8 (and so here) a noqa on the last line of
    # `print(\n x)` does not cover the `print(` line; put it on the first line instead.
    ("print(  # noqa: TFF101\n        x)", []),
    ("print(\n        x)  # noqa: TFF101", [(5, "TFF101")]),
    # Beyond flake8, a noqa on a statement's first line covers findings on its other lines.
    ("y = [  # noqa: TFF101\n        print(x),\n    ]", []),
    ("y = [  # noqa: TFF301\n        print(x),\n    ]", [(6, "TFF101")]),
], ids=lambda value: repr(value) if isinstance(value, str) else None)
def test_noqa_works_as_in_flake8(capsys, statement, expected):
    write("a.py", ("import tensorflow as tf\n"
                   "\n"
                   "@tf.function\n"
                   "def f(x):\n"
                   f"    {statement}\n"
                   "    return x\n"))
    result = run(capsys, "a.py")
    assert result.code == (1 if expected else 0)
    assert reported(result) == [("a.py", line, code) for line, code in expected]


def test_flake8_noqa_line_skips_the_whole_file(capsys):
    write("a.py", "# flake8: noqa\n" + ALL_RULES)
    write("b.py", PRINT_ONLY)
    result = run(capsys, "a.py", "b.py")
    assert reported(result) == [("b.py", 5, "TFF101")]


def test_flake8_noqa_after_code_skips_nothing(capsys):
    write("a.py", PRINT_ONLY.replace("print(x)", "print(x)  # flake8: noqa"))
    assert reported(run(capsys, "a.py")) == [("a.py", 5, "TFF101")]


# -- --fix ----------------------------------------------------------------------------------

FIXABLE = (
    "import tensorflow as tf\n"
    "# café — a non-ASCII comment\n"
    "\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def f(x):\n"
    "    print(x)  # stays\n"
    "    return x\n"
    "\n"
    "tf.config.experimental_run_functions_eagerly(False)\n"
)
FIXED = (FIXABLE.replace("experimental_relax_shapes=", "reduce_retracing=")
         .replace("experimental_run_functions_eagerly(", "run_functions_eagerly("))


@pytest.mark.parametrize("before, after", [
    (FIXABLE.encode("utf-8"), FIXED.encode("utf-8")),
    (FIXABLE.replace("\n", "\r\n").encode("utf-8"), FIXED.replace("\n", "\r\n").encode("utf-8")),
    (b"\xef\xbb\xbf" + FIXABLE.encode("utf-8"), b"\xef\xbb\xbf" + FIXED.encode("utf-8")),
    # Same line count, so the finding stays on line 6.
    (FIXABLE.replace("import tensorflow as tf\n",
                     "# -*- coding: latin-1 -*-\nimport tensorflow as tf; s = 'é'\n", 1)
     .replace("# café — a non-ASCII comment\n", "").encode("latin-1"),
     FIXED.replace("import tensorflow as tf\n",
                   "# -*- coding: latin-1 -*-\nimport tensorflow as tf; s = 'é'\n", 1)
     .replace("# café — a non-ASCII comment\n", "").encode("latin-1")),
], ids=["utf-8", "crlf", "bom", "latin-1"])
def test_fix_rewrites_only_the_deprecated_spellings(capsys, before, after):
    path = write("a.py", before)
    remaining = [finding("a.py", 6, 5, "TFF101", traced="@tf.function at line 4")]
    assert run(capsys, "--fix", "a.py") == Result(
        1, "\n".join(remaining + ["Found 3 findings (2 fixed, 1 remaining)."]) + "\n", "")
    assert path.read_bytes() == after
    # Idempotent: nothing left to fix, the file is not touched again.
    assert run(capsys, "--fix", "a.py") == Result(
        1, "\n".join(remaining + ["Found 1 finding (0 fixed, 1 remaining)."]) + "\n", "")
    assert path.read_bytes() == after


def test_diff_shows_the_fixes_and_writes_nothing(capsys):
    import difflib

    path = write("a.py", FIXABLE)
    expected = "".join(difflib.unified_diff(FIXABLE.splitlines(keepends=True),
                                            FIXED.splitlines(keepends=True), "a.py", "a.py"))
    assert expected.count("\n+") == 1 + 2  # the +++ header and the two fixed lines
    assert run(capsys, "--diff", "a.py") == Result(1, expected, "Would fix 2 findings.\n")
    assert run(capsys, "--diff", "--quiet", "a.py") == Result(1, expected, "")
    assert path.read_text(encoding="utf-8") == FIXABLE
    write("b.py", PRINT_ONLY)  # findings, but nothing --fix would change
    assert run(capsys, "--diff", "b.py") == Result(0, "", "Would fix 0 findings.\n")


def test_show_fixes_lists_what_was_fixed_or_is_fixable(capsys):
    write("a.py", FIXABLE)
    write("b.py", PRINT_ONLY)
    before = run(capsys, "--show-fixes", "a.py", "b.py")
    assert before.lines[4:] == ["Fixable with --fix (2 findings):", "- a.py:",
                                "    2 \u00d7 TFF405 (deprecated-tf-function-api)",
                                "Found 4 findings (2 fixable with --fix)."]
    after = run(capsys, "--fix", "--show-fixes", "a.py", "b.py")
    assert after.lines[2:] == ["Fixed 2 findings:", "- a.py:",
                               "    2 \u00d7 TFF405 (deprecated-tf-function-api)",
                               "Found 4 findings (2 fixed, 2 remaining)."]
    again = run(capsys, "--fix", "--show-fixes", "a.py")
    assert again.lines[1:] == ["No fixes applied.", "Found 1 finding (0 fixed, 1 remaining)."]


def test_without_fix_files_are_left_alone(capsys):
    path = write("a.py", FIXABLE)
    result = run(capsys, "a.py")
    assert reported(result) == [("a.py", 4, "TFF405"), ("a.py", 6, "TFF101"),
                                ("a.py", 9, "TFF405")]
    assert result.lines[2] == finding("a.py", 9, 1, "TFF405", message=EAGERLY_MESSAGE)
    assert path.read_text(encoding="utf-8") == FIXABLE


def test_fix_is_skipped_when_the_new_keyword_is_already_there(capsys):
    source = ALL_RULES.replace("experimental_relax_shapes=True",
                               "experimental_relax_shapes=True, reduce_retracing=False")
    path = write("a.py", source)
    result = run(capsys, "--fix", "--select", "TFF405", "a.py")
    assert result == Result(1, finding("a.py", 3, 14, "TFF405", message=RELAX_MESSAGE) + "\n"
                            "Found 1 finding (0 fixed, 1 remaining).\n", "")
    assert path.read_text(encoding="utf-8") == source


def test_fix_with_json_output_lists_what_remains_and_keeps_permissions(capsys):
    path = write("a.py", ALL_RULES)
    path.chmod(0o750)
    result = run(capsys, "--fix", "--output-format", "json", "a.py")
    assert (result.code, result.err) == (1, "")
    assert [(f["code"], f["line"]) for f in json.loads(result.out)] == [("TFF101", 5),
                                                                        ("TFF301", 6)]
    assert path.read_text(encoding="utf-8") == ALL_RULES.replace("experimental_relax_shapes",
                                                                 "reduce_retracing")
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o750


# -- worker processes -----------------------------------------------------------------------


def test_parallel_run_gives_the_same_output(capsys, monkeypatch):
    sources = [PRINT_AND_VARIABLE, ALL_RULES, CLEAN, PRINT_ONLY, "def broken(:\n"]
    for index in range(20):
        write(f"pkg{index % 3}/mod_{index:02}.py", sources[index % len(sources)])

    pools = []

    class SpyPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            pools.append(kwargs.get("max_workers"))

    # The runner imports the pool where it starts one.
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", SpyPool)
    serial = run(capsys, "-j", "1", ".")
    assert pools == []
    parallel = run(capsys, "-j", "2", "--no-cache", ".")
    assert pools == [2]
    assert parallel == serial
    assert serial.code == 1 and len(serial.lines) == 28 + 1
    assert serial.lines[-1] == summary(28, fixable=4)


# -- the installed entry point --------------------------------------------------------------


def test_python_dash_m_entry_point(tmp_path):
    write("a.py", PRINT_AND_VARIABLE)

    def invoke(*args: str) -> Result:
        done = subprocess.run([sys.executable, "-m", "tffunc_lint", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        return Result(done.returncode, done.stdout, done.stderr)

    assert invoke("a.py") == Result(1, "\n".join([
        finding("a.py", 5, 5, "TFF101", traced=AT_LINE_3),
        finding("a.py", 6, 9, "TFF301", traced=AT_LINE_3), summary(2)]) + "\n", "")
    assert invoke("--select", "TFF999", "a.py") == Result(
        2, "", "tffunc-lint: error: --select: unknown rule code or name 'TFF999'\n")


def test_a_profiled_run_exits_the_usual_way_and_keeps_its_profile(tmp_path):
    """Profilers and coverage write their data at exit: under them, no quick exit."""
    write("a.py", PRINT_AND_VARIABLE)
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", "run.prof", "-m",
                           "tffunc_lint", "--no-cache", "a.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.endswith(summary(2) + "\n")  # (cProfile exits 0 whatever the code)
    assert (tmp_path / "run.prof").stat().st_size > 0


def test_the_entry_point_flushes_all_output_before_its_quick_exit(tmp_path):
    """The console script ends with ``os._exit``, which drops what a stream still buffers:
    the report, written line by line to a pipe (block-buffered), must arrive whole."""
    functions = "".join(f"@tf.function\ndef f{i}(x):\n    print(x)\n    return x\n\n"
                        for i in range(400))
    (tmp_path / "many.py").write_text("import tensorflow as tf\n\n" + functions)
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-m", "tffunc_lint", "--no-cache", "many.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=environment)
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == ["TFF101"] * 400
    assert lines[-1] == summary(400)
    assert (done.returncode, done.stderr) == (1, "")
