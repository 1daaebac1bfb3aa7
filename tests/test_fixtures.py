"""Annotated fixtures: each file's findings equal its ``# expect:`` annotations exactly."""

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_file
from tffunc_lint.rule import all_rules

from .conftest import PACKAGE_FIXTURES, ROOT, expected_findings, fixture_files

SETTINGS = Settings().resolved()
#: Rules that are off by default are on for their own fixtures.
OPT_IN = {rule.code: Settings(extend_select=(rule.code,)).resolved()
          for rule in all_rules() if not rule.default_enabled}


def settings_for(path):
    return OPT_IN.get(path.parent.name.upper(), OPT_IN.get(path.name[:6].upper(), SETTINGS))


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_findings_match_annotations(path):
    findings = lint_file(str(path), settings_for(path)).findings
    assert {(f.line, f.code) for f in findings} == expected_findings(path)


def test_every_rule_has_a_bad_and_a_good_fixture():
    for rule in all_rules():
        if rule.code == "TFF000":
            continue
        bad = PACKAGE_FIXTURES / rule.code / "bad.py"
        good = PACKAGE_FIXTURES / rule.code / "good.py"
        assert {code for _, code in expected_findings(bad)} == {rule.code}, rule.code
        assert good.is_file() and not expected_findings(good), rule.code
