"""``--output-format sarif``: valid SARIF 2.1.0 (checked against the OASIS schema shipped in
``tests/data``), one rule entry per code, results GitHub code scanning can place and track."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tffunc_lint.doors.cli import main
from tffunc_lint.rule import all_rules, rule_by_code_or_name

from .conftest import ROOT

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))

SOURCE = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def f(x):\n"
    "    print(x)\n"
    "    print(x)\n"
    "    return x\n"
)


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sarif(capsys, *args):
    code = main(["--isolated", "--output-format", "sarif", *map(str, args)])
    out = capsys.readouterr().out
    return code, json.loads(out)  # the whole of stdout is the document: no summary line


def validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_the_schema_is_the_published_one_and_rejects_a_broken_log():
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})


def test_sarif_log_is_valid_and_describes_every_rule(capsys):
    Path("a.py").write_text(SOURCE)
    code, log = sarif(capsys, "a.py")
    assert code == 1
    validate(log)
    assert log["version"] == "2.1.0"
    run, = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    by_id = {rule["id"]: rule for rule in rules}
    tff101 = by_id["TFF101"]
    assert tff101["name"] == "print-in-tf-function"
    assert tff101["shortDescription"]["text"] == rule_by_code_or_name("TFF101").docs().summary
    assert tff101["defaultConfiguration"] == {"level": "error", "enabled": True}
    assert by_id["TFF001"]["defaultConfiguration"]["enabled"] is False  # off by default
    assert tff101["fullDescription"]["text"].startswith("Flags calls to the built-in `print`")
    assert tff101["help"]["markdown"].startswith("# TFF101 `print-in-tf-function`")
    for rule in rules:  # every help link is a page of the repository's docs
        assert (ROOT / rule["helpUri"]).is_file(), rule["helpUri"]
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_results_carry_region_reason_and_rule(capsys):
    Path("a.py").write_text(SOURCE)
    _, log = sarif(capsys, "a.py")
    run = log["runs"][0]
    results = run["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]) for r in results] == [
        ("TFF405", {"startLine": 3, "startColumn": 14, "endLine": 3, "endColumn": 44}),
        ("TFF101", {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 13}),
        ("TFF101", {"startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 13}),
    ]
    first_print = results[1]
    assert first_print["message"]["text"].endswith("[traced: @tf.function at line 3]")
    assert run["tool"]["driver"]["rules"][first_print["ruleIndex"]]["id"] == "TFF101"
    assert first_print["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "a.py", "uriBaseId": "%SRCROOT%"}
    assert results[0]["properties"]["fixable"] is True


def fingerprints(log):
    return [r["partialFingerprints"]["tffuncLint/v1"] for r in log["runs"][0]["results"]]


def test_fingerprints_survive_moved_lines_and_tell_equal_lines_apart(capsys):
    Path("a.py").write_text(SOURCE)
    _, before = sarif(capsys, "a.py")
    assert len(set(fingerprints(before))) == 3  # two identical print lines: two occurrences
    Path("a.py").write_text("# a comment\n\n" + SOURCE)
    _, moved = sarif(capsys, "a.py")
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"]
             for r in moved["runs"][0]["results"]]
    assert lines == [5, 7, 8]  # every finding moved, the fingerprints did not
    assert fingerprints(moved) == fingerprints(before)
    Path("a.py").write_text(SOURCE.replace("shapes=True)", "shapes=True,  jit_compile=False)"))
    _, edited = sarif(capsys, "a.py")
    assert fingerprints(edited)[0] != fingerprints(before)[0]  # its line changed
    assert fingerprints(edited)[1:] == fingerprints(before)[1:]


def test_a_failed_run_is_not_successful_and_says_why(capsys):
    Path("a.py").write_text(SOURCE)
    code, log = sarif(capsys, "a.py", "missing.py")
    assert code == 2
    validate(log)
    invocation, = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["level"] == "error"
    assert "missing.py" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_clean_run_is_an_empty_list_of_results(capsys):
    Path("a.py").write_text("x = 1\n")
    code, log = sarif(capsys, "a.py")
    assert code == 0
    validate(log)
    assert log["runs"][0]["results"] == []
